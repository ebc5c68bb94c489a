//! The tool-call formats of the model APIs: OpenAI (Chat Completions and
//! Responses) and Anthropic (Messages), and MCP tool listings.
//!
//! An agent holds a model response, not a list of [`ToolCall`]s. This
//! module reads the calls out of it, turns the [`ToolResult`]s back into
//! the messages that API expects next, and describes tools
//! ([`ToolInfo`]) in each API's tool-list shape. It uses serde only, no
//! SDK.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use toolexec_core::formats::{openai_calls, openai_results, OpenAiApi};
//! use toolexec_core::ToolResult;
//!
//! let message = json!({
//!     "role": "assistant",
//!     "content": null,
//!     "tool_calls": [{
//!         "id": "call_1",
//!         "type": "function",
//!         "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}
//!     }]
//! });
//! let batch = openai_calls(&message).unwrap();
//! assert_eq!(batch.api, OpenAiApi::ChatCompletions);
//! assert_eq!(batch.calls[0].input, r#"{"path":"a.txt"}"#);
//!
//! // … run the calls, then hand the results back:
//! let results = vec![ToolResult {
//!     id: "call_1".into(),
//!     name: "read".into(),
//!     is_error: false,
//!     error_kind: None,
//!     content: "     1\thello".into(),
//!     changes: vec![],
//!     spill_path: None,
//! }];
//! let reply = serde_json::to_string(&openai_results(batch.api, &results)).unwrap();
//! assert_eq!(
//!     reply,
//!     r#"[{"role":"tool","tool_call_id":"call_1","content":"     1\thello"}]"#
//! );
//! ```
//!
//! # Shapes
//!
//! Calls, in:
//! - [`openai_calls`]: an assistant message (its `tool_calls`), a Chat
//!   Completions response (the message of `choices[0]`), a list of
//!   Responses API output items (its `function_call` items) or a Responses
//!   API response object (its `output`).
//! - [`anthropic_calls`]: an assistant message or a Messages API response
//!   (its `tool_use` content blocks), or the list of content blocks alone.
//!
//! Results, out (serialized with the keys in this order):
//! - Chat Completions: one `{"role":"tool","tool_call_id":ID,"content":TEXT}`
//!   per result; Responses API: one
//!   `{"type":"function_call_output","call_id":ID,"output":TEXT}` per result.
//! - Anthropic: one user message `{"role":"user","content":[{"type":
//!   "tool_result","tool_use_id":ID,"content":TEXT,"is_error":BOOL}, …]}`.
//!
//! Tools, out: [`openai_tools`] (`{"type":"function","function":{"name",
//! "description","parameters"}}`), [`anthropic_tools`] (`{"name",
//! "description","input_schema"}`), [`mcp_tools`] (MCP `tools/list`
//! entries with annotations and toolexec's flags under `_meta`).
//!
//! # Decisions
//!
//! - **Arguments stay raw.** OpenAI's `arguments` string is the call's
//!   input text exactly, valid JSON or not, so the guard reports malformed
//!   arguments with the parser's own message; nothing is repaired. A
//!   non-string `arguments` (some compatible servers send an object) and
//!   Anthropic's `input` object become their compact JSON text; an `input`
//!   that is a string is taken as raw text.
//! - **Other content is ignored**: text, thinking, refusals, reasoning
//!   items, server-side tool blocks (`server_tool_use`, web search
//!   results). No tool call gives an empty batch, and results of an empty
//!   batch are an empty list (OpenAI) or a user message with no blocks
//!   (Anthropic).
//! - **Unusable input is an error** naming what was wrong and where
//!   (`openai: tool_calls[1].function.name: expected a string`), never a
//!   guess: a message of another role, a tool call of another type than
//!   `function` (it could not be answered), a missing id, name or
//!   arguments.
//! - **Several choices**: only `choices[0]` of a Chat Completions response
//!   is read (the one an agent continues with).
//! - **Ids** in the results are the results' ids, which are the calls' ids
//!   (the pipeline would mask one only if it held a secret); results are
//!   written in their order, which is the calls' order.
//! - **MCP hints**: `readOnlyHint` from [`ToolInfo::read_only`], then
//!   `idempotentHint` for read-only tools and `destructiveHint` for the
//!   others; `openWorldHint` as the caller decides (MCP's default is
//!   true, so say false for tools that only touch the workspace).

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::tool::ToolInfo;
use crate::types::{ToolCall, ToolResult};

/// Why a model message could not be read as a batch of calls.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// The value is none of the shapes the format accepts.
    UnknownShape {
        /// `openai` or `anthropic`.
        format: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// A field is missing or has the wrong type.
    Field {
        /// `openai` or `anthropic`.
        format: &'static str,
        /// Where, as a path into the value (`tool_calls[1].function.name`).
        path: String,
        /// What was expected there.
        expected: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::UnknownShape { format, expected } => {
                write!(f, "{format}: expected {expected}")
            }
            FormatError::Field {
                format,
                path,
                expected,
            } => write!(f, "{format}: {path}: {expected}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// Which OpenAI API a batch came from (its results go back in that
/// API's shape).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OpenAiApi {
    /// Chat Completions: `tool_calls` in, `role: tool` messages out.
    ChatCompletions,
    /// Responses: `function_call` items in, `function_call_output` items
    /// out.
    Responses,
}

/// The calls of an OpenAI message, and the API it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiCalls {
    /// Chat Completions or Responses.
    pub api: OpenAiApi,
    /// The calls, in the message's order.
    pub calls: Vec<ToolCall>,
}

const OPENAI: &str = "openai";
const ANTHROPIC: &str = "anthropic";
const OPENAI_SHAPES: &str = "an OpenAI assistant message (with \"tool_calls\"), a Chat \
     Completions response (with \"choices\"), a list of Responses API output items or a \
     Responses API response (with \"output\")";
const ANTHROPIC_SHAPES: &str = "an Anthropic assistant message or Messages API response \
     (with \"content\"), or a list of content blocks";

fn field_err(format: &'static str, path: &str, expected: impl Into<String>) -> FormatError {
    FormatError::Field {
        format,
        path: path.to_string(),
        expected: expected.into(),
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else if key.starts_with('[') {
        format!("{prefix}{key}")
    } else {
        format!("{prefix}.{key}")
    }
}

/// A JSON type's name for error messages.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string_field(
    format: &'static str,
    obj: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<String, FormatError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None => Err(field_err(format, &join(path, key), "missing")),
        Some(other) => Err(field_err(
            format,
            &join(path, key),
            format!("expected a string, got {}", type_name(other)),
        )),
    }
}

fn object<'a>(
    format: &'static str,
    value: &'a Value,
    path: &str,
) -> Result<&'a Map<String, Value>, FormatError> {
    value.as_object().ok_or_else(|| {
        field_err(
            format,
            path,
            format!("expected an object, got {}", type_name(value)),
        )
    })
}

/// Raw input text: a string as it is, any other value as its JSON text.
fn input_text(
    format: &'static str,
    obj: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<String, FormatError> {
    match obj.get(key) {
        Some(Value::String(raw)) => Ok(raw.clone()),
        None | Some(Value::Null) => Err(field_err(format, &join(path, key), "missing")),
        Some(value) => Ok(value.to_string()),
    }
}

fn check_role(
    format: &'static str,
    obj: &Map<String, Value>,
    path: &str,
) -> Result<(), FormatError> {
    match obj.get("role") {
        None => Ok(()),
        Some(Value::String(role)) if role == "assistant" => Ok(()),
        Some(other) => Err(field_err(
            format,
            &join(path, "role"),
            format!("expected \"assistant\", got {other}"),
        )),
    }
}

/// The calls of an OpenAI assistant message, Chat Completions response,
/// list of Responses API output items or Responses API response (see the
/// [module docs](self)).
pub fn openai_calls(value: &Value) -> Result<OpenAiCalls, FormatError> {
    let unknown = || FormatError::UnknownShape {
        format: OPENAI,
        expected: OPENAI_SHAPES,
    };
    match value {
        Value::Array(items) => Ok(OpenAiCalls {
            api: OpenAiApi::Responses,
            calls: responses_items(items, "")?,
        }),
        Value::Object(obj) => {
            if let Some(choices) = obj.get("choices") {
                let Value::Array(choices) = choices else {
                    return Err(field_err(
                        OPENAI,
                        "choices",
                        format!("expected an array, got {}", type_name(choices)),
                    ));
                };
                let first = choices
                    .first()
                    .ok_or_else(|| field_err(OPENAI, "choices", "expected at least one choice"))?;
                let first = object(OPENAI, first, "choices[0]")?;
                let message = first
                    .get("message")
                    .ok_or_else(|| field_err(OPENAI, "choices[0].message", "missing"))?;
                chat_message(message, "choices[0].message")
            } else if let Some(output) = obj.get("output") {
                let Value::Array(items) = output else {
                    return Err(field_err(
                        OPENAI,
                        "output",
                        format!("expected an array, got {}", type_name(output)),
                    ));
                };
                Ok(OpenAiCalls {
                    api: OpenAiApi::Responses,
                    calls: responses_items(items, "output")?,
                })
            } else if obj.contains_key("tool_calls") || obj.contains_key("role") {
                chat_message(value, "")
            } else {
                Err(unknown())
            }
        }
        _ => Err(unknown()),
    }
}

fn chat_message(message: &Value, path: &str) -> Result<OpenAiCalls, FormatError> {
    let obj = object(
        OPENAI,
        message,
        if path.is_empty() { "message" } else { path },
    )?;
    check_role(OPENAI, obj, path)?;
    let calls_path = join(path, "tool_calls");
    let list = match obj.get("tool_calls") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(other) => {
            return Err(field_err(
                OPENAI,
                &calls_path,
                format!("expected an array, got {}", type_name(other)),
            ))
        }
    };
    let mut calls = Vec::with_capacity(list.len());
    for (i, call) in list.iter().enumerate() {
        let at = format!("{calls_path}[{i}]");
        let call = object(OPENAI, call, &at)?;
        match call.get("type") {
            None => {}
            Some(Value::String(t)) if t == "function" => {}
            Some(other) => {
                return Err(field_err(
                    OPENAI,
                    &join(&at, "type"),
                    format!("only \"function\" tool calls can be run, got {other}"),
                ))
            }
        }
        let id = string_field(OPENAI, call, &at, "id")?;
        let fn_path = join(&at, "function");
        let function = call
            .get("function")
            .ok_or_else(|| field_err(OPENAI, &fn_path, "missing"))?;
        let function = object(OPENAI, function, &fn_path)?;
        let name = string_field(OPENAI, function, &fn_path, "name")?;
        let input = input_text(OPENAI, function, &fn_path, "arguments")?;
        calls.push(ToolCall { id, name, input });
    }
    Ok(OpenAiCalls {
        api: OpenAiApi::ChatCompletions,
        calls,
    })
}

fn responses_items(items: &[Value], path: &str) -> Result<Vec<ToolCall>, FormatError> {
    calls_of_type(OPENAI, items, path, "function_call", "call_id", "arguments")
}

/// The calls among `items`: each object whose `type` is `kind`, with its
/// id under `id_key`, its `name`, and its input under `input_key`; other
/// items are skipped.
fn calls_of_type(
    format: &'static str,
    items: &[Value],
    path: &str,
    kind: &str,
    id_key: &str,
    input_key: &str,
) -> Result<Vec<ToolCall>, FormatError> {
    let mut calls = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = join(path, &format!("[{i}]"));
        let item = object(format, item, &at)?;
        if item.get("type").and_then(Value::as_str) != Some(kind) {
            continue;
        }
        let id = string_field(format, item, &at, id_key)?;
        let name = string_field(format, item, &at, "name")?;
        let input = input_text(format, item, &at, input_key)?;
        calls.push(ToolCall { id, name, input });
    }
    Ok(calls)
}

/// The calls of an Anthropic assistant message or Messages API response
/// (its `tool_use` blocks), or of a list of content blocks (see the
/// [module docs](self)).
pub fn anthropic_calls(value: &Value) -> Result<Vec<ToolCall>, FormatError> {
    let (blocks, path) = match value {
        Value::Array(blocks) => (blocks.as_slice(), ""),
        Value::Object(obj) => {
            check_role(ANTHROPIC, obj, "")?;
            match obj.get("content") {
                Some(Value::Array(blocks)) => (blocks.as_slice(), "content"),
                // Text-only content.
                Some(Value::String(_)) => return Ok(Vec::new()),
                Some(other) => {
                    return Err(field_err(
                        ANTHROPIC,
                        "content",
                        format!("expected an array of blocks, got {}", type_name(other)),
                    ))
                }
                None => {
                    return Err(FormatError::UnknownShape {
                        format: ANTHROPIC,
                        expected: ANTHROPIC_SHAPES,
                    })
                }
            }
        }
        _ => {
            return Err(FormatError::UnknownShape {
                format: ANTHROPIC,
                expected: ANTHROPIC_SHAPES,
            })
        }
    };
    calls_of_type(ANTHROPIC, blocks, path, "tool_use", "id", "input")
}

/// A Chat Completions tool message: `{"role":"tool","tool_call_id":ID,"content":TEXT}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatToolMessage {
    /// Always `tool`.
    pub role: &'static str,
    /// The id of the call it answers.
    pub tool_call_id: String,
    /// The result's content.
    pub content: String,
}

/// A Responses API item: `{"type":"function_call_output","call_id":ID,"output":TEXT}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionCallOutput {
    /// Always `function_call_output`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The `call_id` of the call it answers.
    pub call_id: String,
    /// The result's content.
    pub output: String,
}

/// One message to append for an OpenAI API (serialized as the inner
/// shape, without a tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum OpenAiMessage {
    /// Chat Completions.
    Chat(ChatToolMessage),
    /// Responses API.
    Responses(FunctionCallOutput),
}

/// The messages that answer a batch, one per result, in order: Chat
/// Completions `tool` messages or Responses API `function_call_output`
/// items.
pub fn openai_results(api: OpenAiApi, results: &[ToolResult]) -> Vec<OpenAiMessage> {
    results
        .iter()
        .map(|r| match api {
            OpenAiApi::ChatCompletions => OpenAiMessage::Chat(ChatToolMessage {
                role: "tool",
                tool_call_id: r.id.clone(),
                content: r.content.clone(),
            }),
            OpenAiApi::Responses => OpenAiMessage::Responses(FunctionCallOutput {
                kind: "function_call_output",
                call_id: r.id.clone(),
                output: r.content.clone(),
            }),
        })
        .collect()
}

/// An Anthropic `tool_result` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolResultBlock {
    /// Always `tool_result`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The id of the `tool_use` block it answers.
    pub tool_use_id: String,
    /// The result's content.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// The Anthropic user message that answers a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnthropicToolResults {
    /// Always `user`.
    pub role: &'static str,
    /// One `tool_result` block per result, in order.
    pub content: Vec<ToolResultBlock>,
}

/// The user message with one `tool_result` block per result, in order
/// (no blocks for an empty batch).
pub fn anthropic_results(results: &[ToolResult]) -> AnthropicToolResults {
    AnthropicToolResults {
        role: "user",
        content: results
            .iter()
            .map(|r| ToolResultBlock {
                kind: "tool_result",
                tool_use_id: r.id.clone(),
                content: r.content.clone(),
                is_error: r.is_error,
            })
            .collect(),
    }
}

/// An OpenAI tool definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAiTool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name, description and parameters.
    pub function: OpenAiFunction,
}

/// The function of an [`OpenAiTool`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAiFunction {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// The input JSON Schema.
    pub parameters: Value,
}

/// Tools as OpenAI's `tools` list:
/// `[{"type":"function","function":{"name","description","parameters"}}]`.
pub fn openai_tools(tools: &[ToolInfo]) -> Vec<OpenAiTool> {
    tools
        .iter()
        .map(|t| OpenAiTool {
            kind: "function",
            function: OpenAiFunction {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.input_schema.clone(),
            },
        })
        .collect()
}

/// An Anthropic tool definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnthropicTool {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// The input JSON Schema.
    pub input_schema: Value,
}

/// Tools as Anthropic's `tools` list: `[{"name","description","input_schema"}]`.
pub fn anthropic_tools(tools: &[ToolInfo]) -> Vec<AnthropicTool> {
    tools
        .iter()
        .map(|t| AnthropicTool {
            name: t.name.clone(),
            description: t.description.clone(),
            input_schema: t.input_schema.clone(),
        })
        .collect()
}

/// An MCP `tools/list` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpTool {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// The input JSON Schema (an object; `{}` when the tool's is not).
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// The behaviour hints.
    pub annotations: McpAnnotations,
    /// toolexec's flags: `toolexec/concurrencySafe`, `toolexec/readOnly`.
    #[serde(rename = "_meta")]
    pub meta: Map<String, Value>,
}

/// The hints of an [`McpTool`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpAnnotations {
    /// The tool does not change its environment.
    pub read_only_hint: bool,
    /// The tool may destroy data (set for tools that are not read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling again with the same input has no further effect (set for
    /// read-only tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside the workspace (network, processes).
    pub open_world_hint: bool,
}

/// The `_meta` key of [`ToolInfo::concurrency_safe`].
pub const META_CONCURRENCY_SAFE: &str = "toolexec/concurrencySafe";
/// The `_meta` key of [`ToolInfo::read_only`].
pub const META_READ_ONLY: &str = "toolexec/readOnly";

/// Tools as MCP `tools/list` entries; `open_world` says which tools reach
/// outside the workspace (see the [module docs](self)).
pub fn mcp_tools(tools: &[ToolInfo], open_world: impl Fn(&ToolInfo) -> bool) -> Vec<McpTool> {
    tools
        .iter()
        .map(|t| {
            let mut meta = Map::new();
            meta.insert(
                META_CONCURRENCY_SAFE.to_string(),
                Value::Bool(t.concurrency_safe),
            );
            meta.insert(META_READ_ONLY.to_string(), Value::Bool(t.read_only));
            McpTool {
                name: t.name.clone(),
                description: t.description.clone(),
                input_schema: if t.input_schema.is_object() {
                    t.input_schema.clone()
                } else {
                    Value::Object(Map::new())
                },
                annotations: McpAnnotations {
                    read_only_hint: t.read_only,
                    destructive_hint: (!t.read_only).then_some(true),
                    idempotent_hint: t.read_only.then_some(true),
                    open_world_hint: open_world(t),
                },
                meta,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_paths_name_the_field() {
        let err =
            openai_calls(&json!({"tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}))
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            "openai: tool_calls[0].function.name: missing"
        );
        let err = anthropic_calls(
            &json!({"content": [{"type": "tool_use", "id": 3, "name": "x", "input": {}}]}),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "anthropic: content[0].id: expected a string, got a number"
        );
        let err = openai_calls(
            &json!({"output": [{"type": "function_call", "name": "x", "arguments": "{}"}]}),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "openai: output[0].call_id: missing");
        let err = openai_calls(&json!([5])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "openai: [0]: expected an object, got a number"
        );
    }
}
