//! The model APIs' formats (`toolexec_core::formats`) on fixtures written
//! from each API's documented shapes.
#![cfg(feature = "formats")]

use proptest::prelude::*;
use serde_json::{json, Value};
use toolexec_core::formats::{
    anthropic_calls, anthropic_results, anthropic_tools, mcp_tools, openai_calls, openai_results,
    openai_tools, ChatToolCall, FormatError, OpenAiApi, ResponsesFunctionCall, ToolUseBlock,
};
use toolexec_core::{ErrorKind, ToolCall, ToolInfo, ToolResult};

fn result(id: &str, content: &str, is_error: bool) -> ToolResult {
    ToolResult {
        id: id.to_string(),
        name: "t".to_string(),
        is_error,
        error_kind: is_error.then_some(ErrorKind::Invocation),
        content: content.to_string(),
        changes: vec![],
        spill_path: None,
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

/// A Chat Completions response with parallel tool calls, one of them with
/// arguments that are not JSON.
#[test]
fn openai_chat_completion_with_parallel_calls_keeps_raw_arguments() {
    let response = json!({
        "id": "chatcmpl-9x",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "refusal": null,
                "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris\"}"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"location\": \"Bogot"}},
                    {"id": "call_c", "type": "function",
                     "function": {"name": "noop", "arguments": ""}}
                ]
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
    });
    let batch = openai_calls(&response).unwrap();
    assert_eq!(batch.api, OpenAiApi::ChatCompletions);
    assert_eq!(
        batch.calls,
        vec![
            ToolCall::new("call_a", "get_weather", "{\"location\": \"Paris\"}"),
            ToolCall::new("call_b", "get_weather", "{\"location\": \"Bogot"),
            ToolCall::new("call_c", "noop", ""),
        ]
    );
    // The bare assistant message gives the same calls.
    let message = &response["choices"][0]["message"];
    assert_eq!(openai_calls(message).unwrap(), batch);

    let results = [
        result("call_a", "sunny", false),
        result("call_b", "tool get_weather: invalid input: EOF", true),
        result("call_c", "ok", false),
    ];
    assert_eq!(
        to_json(&openai_results(batch.api, &results)),
        r#"[{"role":"tool","tool_call_id":"call_a","content":"sunny"},{"role":"tool","tool_call_id":"call_b","content":"tool get_weather: invalid input: EOF"},{"role":"tool","tool_call_id":"call_c","content":"ok"}]"#
    );
}

#[test]
fn openai_responses_items_and_response_object() {
    let output = json!([
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Let me look.", "annotations": []}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
         "arguments": "{\"path\":\"a.txt\"}", "status": "completed"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "grep",
         "arguments": "{\"pattern\":", "status": "completed"}
    ]);
    let batch = openai_calls(&output).unwrap();
    assert_eq!(batch.api, OpenAiApi::Responses);
    assert_eq!(
        batch.calls,
        vec![
            ToolCall::new("call_1", "read", "{\"path\":\"a.txt\"}"),
            ToolCall::new("call_2", "grep", "{\"pattern\":"),
        ]
    );
    let response =
        json!({"id": "resp_1", "object": "response", "status": "completed", "output": output});
    assert_eq!(openai_calls(&response).unwrap(), batch);
    let results = [result("call_1", "x", false), result("call_2", "bad", true)];
    assert_eq!(
        to_json(&openai_results(batch.api, &results)),
        r#"[{"type":"function_call_output","call_id":"call_1","output":"x"},{"type":"function_call_output","call_id":"call_2","output":"bad"}]"#
    );
}

/// A Messages API response with text, thinking and two tool_use blocks.
#[test]
fn anthropic_message_with_text_and_tool_use_blocks() {
    let response = json!({
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "thinking", "thinking": "Check both.", "signature": "sig"},
            {"type": "text", "text": "I'll check the weather in both cities."},
            {"type": "tool_use", "id": "toolu_01A", "name": "get_weather",
             "input": {"location": "San Francisco, CA", "unit": "celsius"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "get_time", "input": {}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 20}
    });
    let calls = anthropic_calls(&response).unwrap();
    assert_eq!(
        calls,
        vec![
            ToolCall::new(
                "toolu_01A",
                "get_weather",
                r#"{"location":"San Francisco, CA","unit":"celsius"}"#
            ),
            ToolCall::new("toolu_01B", "get_time", "{}"),
        ]
    );
    // The content blocks alone give the same calls.
    assert_eq!(anthropic_calls(&response["content"]).unwrap(), calls);
    let results = [
        result("toolu_01A", "15 degrees", false),
        result("toolu_01B", "unknown tool: get_time", true),
    ];
    assert_eq!(
        to_json(&anthropic_results(&results)),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"15 degrees","is_error":false},{"type":"tool_result","tool_use_id":"toolu_01B","content":"unknown tool: get_time","is_error":true}]}"#
    );
}

#[test]
fn no_tool_call_gives_an_empty_batch_and_empty_replies() {
    for message in [
        json!({"role": "assistant", "content": "Hello!"}),
        json!({"role": "assistant", "content": "Hi", "tool_calls": null}),
        json!({"role": "assistant", "content": null, "tool_calls": []}),
        json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}]}),
    ] {
        let batch = openai_calls(&message).unwrap();
        assert_eq!(batch.api, OpenAiApi::ChatCompletions);
        assert!(batch.calls.is_empty(), "{message}");
    }
    assert!(openai_calls(json!([])).unwrap().calls.is_empty());
    assert!(openai_calls(json!([{"type": "message", "content": []}]))
        .unwrap()
        .calls
        .is_empty());
    for message in [
        json!({"role": "assistant", "content": "Just text."}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}),
        json!({"type": "message", "content": []}),
    ] {
        assert!(anthropic_calls(&message).unwrap().is_empty(), "{message}");
    }
    assert_eq!(
        to_json(&openai_results(OpenAiApi::ChatCompletions, &[])),
        "[]"
    );
    assert_eq!(to_json(&openai_results(OpenAiApi::Responses, &[])), "[]");
    assert_eq!(
        to_json(&anthropic_results(&[])),
        r#"{"role":"user","content":[]}"#
    );
}

#[test]
fn unusable_input_is_an_error_naming_what_was_wrong() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!("text"),
            "openai: expected an OpenAI assistant message",
        ),
        (
            json!({"model": "x"}),
            "openai: expected an OpenAI assistant message",
        ),
        (
            json!({"role": "user", "content": "hi"}),
            r#"openai: role: expected "assistant", got "user""#,
        ),
        (
            json!({"choices": []}),
            "openai: choices: expected at least one choice",
        ),
        (
            json!({"choices": {}}),
            "openai: choices: expected an array, got an object",
        ),
        (
            json!({"choices": [{"index": 0}]}),
            "openai: choices[0].message: missing",
        ),
        (
            json!({"tool_calls": {}}),
            "openai: tool_calls: expected an array, got an object",
        ),
        (
            json!({"tool_calls": [{"type": "custom", "id": "a"}]}),
            r#"openai: tool_calls[0].type: only "function" tool calls can be run, got "custom""#,
        ),
        (
            json!({"tool_calls": [{"id": "a", "type": "function"}]}),
            "openai: tool_calls[0].function: missing",
        ),
        (
            json!({"tool_calls": [{"id": "a", "function": {"name": "x"}}]}),
            "openai: tool_calls[0].function.arguments: missing",
        ),
        (
            json!({"tool_calls": [{"function": {"name": "x", "arguments": "{}"}}]}),
            "openai: tool_calls[0].id: missing",
        ),
        (
            json!([{"type": "function_call", "call_id": "c", "arguments": "{}"}]),
            "openai: [0].name: missing",
        ),
        (
            json!({"output": "x"}),
            "openai: output: expected an array, got a string",
        ),
    ];
    for (value, want) in cases {
        let err = openai_calls(&value).unwrap_err().to_string();
        assert!(err.starts_with(want), "{value}: {err}");
        assert_eq!(openai_calls(value.clone()).unwrap_err().to_string(), err);
        assert!(!err.contains('\n'));
    }
    let cases: Vec<(Value, &str)> = vec![
        (
            json!(3),
            "anthropic: expected an Anthropic assistant message",
        ),
        (
            json!({"role": "assistant"}),
            "anthropic: expected an Anthropic assistant message",
        ),
        (
            json!({"role": "user", "content": []}),
            r#"anthropic: role: expected "assistant", got "user""#,
        ),
        (
            json!({"content": 5}),
            "anthropic: content: expected an array of blocks, got a number",
        ),
        (
            json!({"content": [{"type": "tool_use", "id": "a", "name": "x"}]}),
            "anthropic: content[0].input: missing",
        ),
        (
            json!({"content": [{"type": "tool_use", "name": "x", "input": {}}]}),
            "anthropic: content[0].id: missing",
        ),
        (
            json!({"content": ["text"]}),
            "anthropic: content[0]: expected an object, got a string",
        ),
    ];
    for (value, want) in cases {
        let err = anthropic_calls(&value).unwrap_err();
        assert_eq!(anthropic_calls(value.clone()).unwrap_err(), err);
        assert!(matches!(
            err,
            FormatError::Field { .. } | FormatError::UnknownShape { .. }
        ));
        let err = err.to_string();
        assert!(err.starts_with(want), "{value}: {err}");
    }
}

fn info(name: &str, read_only: bool, schema: Value) -> ToolInfo {
    ToolInfo {
        name: name.to_string(),
        description: format!("The {name} tool."),
        input_schema: schema,
        read_only,
        concurrency_safe: read_only,
        offered: true,
        disabled: false,
    }
}

#[test]
fn tool_definitions_in_each_api_shape() {
    let schema =
        json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
    let tools = [
        info("read", true, schema.clone()),
        info("exec", false, json!(true)),
    ];
    assert_eq!(
        serde_json::to_value(openai_tools(&tools)).unwrap(),
        json!([
            {"type": "function", "function": {"name": "read", "description": "The read tool.", "parameters": schema}},
            {"type": "function", "function": {"name": "exec", "description": "The exec tool.", "parameters": true}}
        ])
    );
    assert_eq!(
        to_json(&anthropic_tools(&tools[..1])),
        format!(r#"[{{"name":"read","description":"The read tool.","input_schema":{schema}}}]"#)
    );
    assert_eq!(
        serde_json::to_value(mcp_tools(&tools, |t| t.name == "exec")).unwrap(),
        json!([
            {"name": "read", "description": "The read tool.", "inputSchema": schema,
             "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
             "_meta": {"toolexec/concurrencySafe": true, "toolexec/readOnly": true}},
            {"name": "exec", "description": "The exec tool.", "inputSchema": {},
             "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true},
             "_meta": {"toolexec/concurrencySafe": false, "toolexec/readOnly": false}}
        ])
    );
    assert_eq!(to_json(&openai_tools(&[])), "[]");
    assert_eq!(to_json(&anthropic_tools(&[])), "[]");
    assert_eq!(to_json(&mcp_tools(&[], |_| false)), "[]");
}

fn arb_calls() -> impl Strategy<Value = Vec<(String, String, Value, bool)>> {
    // (id, name, arguments as JSON, send them as broken text instead)
    let args = prop_oneof![
        Just(json!({})),
        "[a-z]{0,8}".prop_map(|s| json!({"path": s})),
        (any::<i64>(), "\\PC{0,12}").prop_map(|(n, s)| json!({"n": n, "text": s, "list": [1, 2]})),
    ];
    proptest::collection::vec(
        ("[A-Za-z0-9_-]{1,24}", "[a-z_]{1,12}", args, any::<bool>()),
        0..12,
    )
}

proptest! {
    /// calls → API message → calls keeps ids, names, raw input and order;
    /// results → API reply keeps ids and order.
    #[test]
    fn round_trip_keeps_ids_and_order(calls in arb_calls()) {
        let text = |args: &Value, broken: bool| {
            let t = args.to_string();
            if broken { t[..t.len() - 1].to_string() } else { t }
        };
        let chat = json!({"role": "assistant", "content": null, "tool_calls": calls.iter().map(|(id, name, args, broken)| json!({
            "id": id, "type": "function", "function": {"name": name, "arguments": text(args, *broken)}
        })).collect::<Vec<_>>()});
        let items = Value::Array(calls.iter().map(|(id, name, args, broken)| json!({
            "type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name, "arguments": text(args, *broken)
        })).collect());
        let blocks = json!({"role": "assistant", "content": calls.iter().flat_map(|(id, name, args, _)| [
            json!({"type": "text", "text": "calling"}),
            json!({"type": "tool_use", "id": id, "name": name, "input": args}),
        ]).collect::<Vec<_>>()});

        let expected: Vec<ToolCall> = calls.iter().map(|(id, name, args, broken)| ToolCall::new(id, name, text(args, *broken))).collect();
        let from_chat = openai_calls(&chat).unwrap();
        prop_assert_eq!(&from_chat.calls, &expected);
        let from_items = openai_calls(&items).unwrap();
        prop_assert_eq!(&from_items.calls, &expected);
        let from_blocks = anthropic_calls(&blocks).unwrap();
        // The typed API items (as an SDK holds them), moved into calls:
        // the same calls, and they serialize back to the API's shape.
        let typed: Vec<ChatToolCall> = serde_json::from_value(chat["tool_calls"].clone()).unwrap();
        prop_assert_eq!(&serde_json::to_value(&typed).unwrap(), &chat["tool_calls"]);
        prop_assert_eq!(&typed.into_iter().map(ToolCall::from).collect::<Vec<_>>(), &expected);
        let typed: Vec<ResponsesFunctionCall> = serde_json::from_value(items.clone()).unwrap();
        prop_assert_eq!(&typed.into_iter().map(ToolCall::from).collect::<Vec<_>>(), &expected);
        let typed: Vec<ToolCall> = blocks["content"].as_array().unwrap().iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| ToolCall::from(serde_json::from_value::<ToolUseBlock>(b.clone()).unwrap()))
            .collect();
        prop_assert_eq!(&typed, &from_blocks);
        // Taken apart by value: the same calls.
        prop_assert_eq!(&openai_calls(chat.clone()).unwrap(), &from_chat);
        prop_assert_eq!(&openai_calls(items.clone()).unwrap(), &from_items);
        prop_assert_eq!(&anthropic_calls(blocks.clone()).unwrap(), &from_blocks);
        let anthropic_expected: Vec<ToolCall> = calls.iter().map(|(id, name, args, _)| ToolCall::new(id, name, args.to_string())).collect();
        prop_assert_eq!(&from_blocks, &anthropic_expected);
        // Anthropic's input text is the same JSON value.
        for (call, (_, _, args, _)) in from_blocks.iter().zip(&calls) {
            prop_assert_eq!(&serde_json::from_str::<Value>(&call.input).unwrap(), args);
        }

        let results: Vec<ToolResult> = expected.iter().enumerate()
            .map(|(i, c)| result(&c.id, &format!("out {i}"), i % 2 == 1)).collect();
        let ids: Vec<&str> = expected.iter().map(|c| c.id.as_str()).collect();
        let chat_reply = serde_json::to_value(openai_results(from_chat.api, &results)).unwrap();
        let got: Vec<&str> = chat_reply.as_array().unwrap().iter().map(|m| m["tool_call_id"].as_str().unwrap()).collect();
        prop_assert_eq!(&got, &ids);
        let items_reply = serde_json::to_value(openai_results(from_items.api, &results)).unwrap();
        let got: Vec<&str> = items_reply.as_array().unwrap().iter().map(|m| m["call_id"].as_str().unwrap()).collect();
        prop_assert_eq!(&got, &ids);
        let user = serde_json::to_value(anthropic_results(&results)).unwrap();
        // Moved instead of copied: the same messages.
        prop_assert_eq!(&serde_json::to_value(openai_results(from_chat.api, results.clone())).unwrap(), &chat_reply);
        prop_assert_eq!(&serde_json::to_value(openai_results(from_items.api, results.clone())).unwrap(), &items_reply);
        prop_assert_eq!(&serde_json::to_value(anthropic_results(results.clone())).unwrap(), &user);
        let blocks = user["content"].as_array().unwrap();
        let got: Vec<&str> = blocks.iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect();
        prop_assert_eq!(&got, &ids);
        for (i, b) in blocks.iter().enumerate() {
            prop_assert_eq!(&b["is_error"], &json!(i % 2 == 1));
            prop_assert_eq!(&b["content"], &json!(format!("out {i}")));
        }
    }

    /// Any JSON value is read or refused, never a panic.
    #[test]
    fn arbitrary_json_never_panics(text in "\\PC{0,64}") {
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            // By reference and by value: the same calls or the same error.
            prop_assert_eq!(openai_calls(&value), openai_calls(value.clone()));
            prop_assert_eq!(anthropic_calls(&value), anthropic_calls(value.clone()));
        }
    }
}

/// The typed items keep malformed arguments raw, accept a missing `type`,
/// and refuse what cannot be run, with serde's message.
#[test]
fn typed_items_keep_raw_arguments_and_refuse_other_kinds() {
    let call: ChatToolCall = serde_json::from_value(json!({
        "id": "call_1", "function": {"name": "read", "arguments": "{\"path\": \"a"}
    }))
    .unwrap();
    assert_eq!(
        ToolCall::from(call),
        ToolCall::new("call_1", "read", "{\"path\": \"a")
    );
    let call: ChatToolCall = serde_json::from_value(json!({
        "id": "c", "type": "function", "function": {"name": "x", "arguments": {"a": 1}}
    }))
    .unwrap();
    assert_eq!(call.function.arguments, r#"{"a":1}"#);
    let err = serde_json::from_value::<ChatToolCall>(json!({
        "id": "c", "type": "custom", "function": {"name": "x", "arguments": "{}"}
    }))
    .unwrap_err();
    assert!(
        err.to_string().contains("unknown variant `custom`"),
        "{err}"
    );
    let err = serde_json::from_value::<ChatToolCall>(json!({
        "id": "c", "function": {"name": "x", "arguments": null}
    }))
    .unwrap_err();
    assert!(err.to_string().contains("got null"), "{err}");
    let err = serde_json::from_value::<ResponsesFunctionCall>(
        json!({"type": "message", "call_id": "c", "name": "x", "arguments": "{}"}),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("unknown variant `message`"),
        "{err}"
    );
    let block: ToolUseBlock = serde_json::from_str(
        r#"{"type":"tool_use","id":"toolu_1","name":"grep","input":{"pattern":"fn main"}}"#,
    )
    .unwrap();
    assert_eq!(
        ToolCall::from(block),
        ToolCall::new("toolu_1", "grep", r#"{"pattern":"fn main"}"#)
    );
}
