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
//! # Three ways in, by cost
//!
//! - **Typed items** ([`ChatToolCall`], [`ResponsesFunctionCall`],
//!   [`ToolUseBlock`]: serde structs of the APIs' shapes, as an SDK holds
//!   them): `ToolCall::from(item)` moves the strings, nothing is copied or
//!   parsed. The cheapest path: 100 calls in and 100 results out (moved,
//!   see [`ResultInput`]) cost about 2.5 µs, the `formats-openai` row of
//!   `cargo xtask bench`.
//! - **A parsed `serde_json::Value` by reference** (`openai_calls(&message)`):
//!   the message stays whole, for the agent's history; the id, name and
//!   arguments of each call are copied.
//! - **A parsed `Value` by value** (`openai_calls(message)`): taken apart,
//!   the strings moved out. It copies nothing, which pays for calls with
//!   large arguments (a `write` with a whole file); for short calls,
//!   dropping the rest of the value's maps costs more than the copies it
//!   saves (about 40 µs against 25 µs per 100 short calls on the bench
//!   machine). `toolexec run --format` uses it, having no further use for
//!   the value.
//!
//! The whole-message readers below accept every shape of an API and name
//! the exact field that is wrong; the typed items are for a program that
//! already holds the calls. Parsing the JSON text itself (about 100 µs for a
//! 12 KB, 100-call message) costs more than any of these.
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

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
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

/// Where a field is, as a path into the value (`tool_calls[1].function`),
/// written out only when an error names it.
#[derive(Clone, Copy)]
enum Loc<'a> {
    Root,
    Key(&'a Loc<'a>, &'static str),
    Index(&'a Loc<'a>, usize),
}

impl fmt::Display for Loc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Root => Ok(()),
            Loc::Key(Loc::Root, key) => f.write_str(key),
            Loc::Key(parent, key) => write!(f, "{parent}.{key}"),
            Loc::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

fn field_err(format: &'static str, at: &Loc<'_>, expected: impl Into<String>) -> FormatError {
    FormatError::Field {
        format,
        path: at.to_string(),
        expected: expected.into(),
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

/// A JSON value the call readers ([`openai_calls`], [`anthropic_calls`])
/// accept:
///
/// - `&Value`: the message stays as it is (an agent keeps it for its
///   history); the id, name and arguments of each call are copied.
/// - `Value`: the message is taken apart; those strings are moved into the
///   calls, nothing is copied (the cheaper path when the message is not
///   needed afterwards, as for `toolexec run --format`).
///
/// Sealed: implemented for these two only.
pub trait JsonInput: sealed::Json {}

impl JsonInput for &Value {}
impl JsonInput for Value {}

/// A result the reply builders ([`openai_results`], [`anthropic_results`])
/// accept: `&ToolResult` (its id and content are copied) or `ToolResult`
/// (they are moved into the messages). Sealed: implemented for these two
/// only.
pub trait ResultInput: sealed::Parts {}

impl ResultInput for &ToolResult {}
impl ResultInput for ToolResult {}

mod sealed {
    use serde_json::{Map, Value};

    use crate::types::ToolResult;

    /// Taking a JSON value apart, by reference (copying strings) or by
    /// value (moving them).
    pub trait Json: Sized {
        type Items: ExactSizeIterator<Item = Self>;
        type Obj: Obj<Self>;
        fn view(&self) -> &Value;
        fn into_array(self) -> Result<Self::Items, Self>;
        fn into_object(self) -> Result<Self::Obj, Self>;
        fn into_string(self) -> Result<String, Self>;
    }

    /// The fields of a JSON object: looked at, or taken.
    pub trait Obj<J> {
        fn view(&self, key: &str) -> Option<&Value>;
        fn take(&mut self, key: &str) -> Option<J>;
    }

    impl<'a> Json for &'a Value {
        type Items = std::slice::Iter<'a, Value>;
        type Obj = &'a Map<String, Value>;
        fn view(&self) -> &Value {
            self
        }
        fn into_array(self) -> Result<Self::Items, Self> {
            match self {
                Value::Array(items) => Ok(items.iter()),
                other => Err(other),
            }
        }
        fn into_object(self) -> Result<Self::Obj, Self> {
            match self {
                Value::Object(obj) => Ok(obj),
                other => Err(other),
            }
        }
        fn into_string(self) -> Result<String, Self> {
            match self {
                Value::String(s) => Ok(s.clone()),
                other => Err(other),
            }
        }
    }

    impl<'a> Obj<&'a Value> for &'a Map<String, Value> {
        fn view(&self, key: &str) -> Option<&Value> {
            self.get(key)
        }
        fn take(&mut self, key: &str) -> Option<&'a Value> {
            self.get(key)
        }
    }

    impl Json for Value {
        type Items = std::vec::IntoIter<Value>;
        type Obj = Map<String, Value>;
        fn view(&self) -> &Value {
            self
        }
        fn into_array(self) -> Result<Self::Items, Self> {
            match self {
                Value::Array(items) => Ok(items.into_iter()),
                other => Err(other),
            }
        }
        fn into_object(self) -> Result<Self::Obj, Self> {
            match self {
                Value::Object(obj) => Ok(obj),
                other => Err(other),
            }
        }
        fn into_string(self) -> Result<String, Self> {
            match self {
                Value::String(s) => Ok(s),
                other => Err(other),
            }
        }
    }

    impl Obj<Value> for Map<String, Value> {
        fn view(&self, key: &str) -> Option<&Value> {
            self.get(key)
        }
        fn take(&mut self, key: &str) -> Option<Value> {
            self.remove(key)
        }
    }

    /// The id, content and error flag of a result, copied or moved.
    pub trait Parts {
        fn parts(self) -> (String, String, bool);
    }

    impl Parts for ToolResult {
        fn parts(self) -> (String, String, bool) {
            (self.id, self.content, self.is_error)
        }
    }

    impl Parts for &ToolResult {
        fn parts(self) -> (String, String, bool) {
            (self.id.clone(), self.content.clone(), self.is_error)
        }
    }
}

use sealed::{Json, Obj as _};

fn object<J: Json>(format: &'static str, value: J, at: &Loc<'_>) -> Result<J::Obj, FormatError> {
    value.into_object().map_err(|value| {
        field_err(
            format,
            at,
            format!("expected an object, got {}", type_name(value.view())),
        )
    })
}

fn array<J: Json>(format: &'static str, value: J, at: &Loc<'_>) -> Result<J::Items, FormatError> {
    value.into_array().map_err(|value| {
        field_err(
            format,
            at,
            format!("expected an array, got {}", type_name(value.view())),
        )
    })
}

fn string_field<J: Json>(
    format: &'static str,
    obj: &mut J::Obj,
    at: &Loc<'_>,
    key: &'static str,
) -> Result<String, FormatError> {
    let here = Loc::Key(at, key);
    match obj.take(key) {
        None => Err(field_err(format, &here, "missing")),
        Some(value) => value.into_string().map_err(|other| {
            field_err(
                format,
                &here,
                format!("expected a string, got {}", type_name(other.view())),
            )
        }),
    }
}

/// Raw input text: a string as it is, any other value as its JSON text.
fn input_text<J: Json>(
    format: &'static str,
    obj: &mut J::Obj,
    at: &Loc<'_>,
    key: &'static str,
) -> Result<String, FormatError> {
    match obj.take(key) {
        Some(value) if !value.view().is_null() => {
            Ok(value.into_string().unwrap_or_else(|v| v.view().to_string()))
        }
        _ => Err(field_err(format, &Loc::Key(at, key), "missing")),
    }
}

fn check_role<J: Json>(
    format: &'static str,
    obj: &J::Obj,
    at: &Loc<'_>,
) -> Result<(), FormatError> {
    match obj.view("role") {
        None => Ok(()),
        Some(Value::String(role)) if role == "assistant" => Ok(()),
        Some(other) => Err(field_err(
            format,
            &Loc::Key(at, "role"),
            format!("expected \"assistant\", got {other}"),
        )),
    }
}

/// The calls of an OpenAI assistant message, Chat Completions response,
/// list of Responses API output items or Responses API response (see the
/// [module docs](self)), from a borrowed or an owned value
/// ([`JsonInput`]).
pub fn openai_calls<J: JsonInput>(value: J) -> Result<OpenAiCalls, FormatError> {
    let unknown = || FormatError::UnknownShape {
        format: OPENAI,
        expected: OPENAI_SHAPES,
    };
    let value = match value.into_array() {
        Ok(items) => {
            return Ok(OpenAiCalls {
                api: OpenAiApi::Responses,
                calls: responses_items::<J>(items, &Loc::Root)?,
            })
        }
        Err(value) => value,
    };
    let mut obj = value.into_object().map_err(|_| unknown())?;
    if let Some(choices) = obj.take("choices") {
        let at = Loc::Key(&Loc::Root, "choices");
        let mut choices = array(OPENAI, choices, &at)?;
        let first = choices
            .next()
            .ok_or_else(|| field_err(OPENAI, &at, "expected at least one choice"))?;
        let at = Loc::Index(&at, 0);
        let mut first = object(OPENAI, first, &at)?;
        let at = Loc::Key(&at, "message");
        let message = first
            .take("message")
            .ok_or_else(|| field_err(OPENAI, &at, "missing"))?;
        chat_message::<J>(object(OPENAI, message, &at)?, &at)
    } else if let Some(output) = obj.take("output") {
        let at = Loc::Key(&Loc::Root, "output");
        Ok(OpenAiCalls {
            api: OpenAiApi::Responses,
            calls: responses_items::<J>(array(OPENAI, output, &at)?, &at)?,
        })
    } else if obj.view("tool_calls").is_some() || obj.view("role").is_some() {
        chat_message::<J>(obj, &Loc::Root)
    } else {
        Err(unknown())
    }
}

fn chat_message<J: Json>(mut obj: J::Obj, at: &Loc<'_>) -> Result<OpenAiCalls, FormatError> {
    check_role::<J>(OPENAI, &obj, at)?;
    let list_at = Loc::Key(at, "tool_calls");
    let list = match obj.take("tool_calls") {
        Some(list) if !list.view().is_null() => Some(array(OPENAI, list, &list_at)?),
        _ => None,
    };
    let mut calls = Vec::with_capacity(list.as_ref().map_or(0, ExactSizeIterator::len));
    for (i, call) in list.into_iter().flatten().enumerate() {
        let at = Loc::Index(&list_at, i);
        let mut call = object(OPENAI, call, &at)?;
        match call.view("type") {
            None => {}
            Some(Value::String(t)) if t == "function" => {}
            Some(other) => {
                return Err(field_err(
                    OPENAI,
                    &Loc::Key(&at, "type"),
                    format!("only \"function\" tool calls can be run, got {other}"),
                ))
            }
        }
        let id = string_field::<J>(OPENAI, &mut call, &at, "id")?;
        let fn_at = Loc::Key(&at, "function");
        let function = call
            .take("function")
            .ok_or_else(|| field_err(OPENAI, &fn_at, "missing"))?;
        let mut function = object(OPENAI, function, &fn_at)?;
        let name = string_field::<J>(OPENAI, &mut function, &fn_at, "name")?;
        let input = input_text::<J>(OPENAI, &mut function, &fn_at, "arguments")?;
        calls.push(ToolCall { id, name, input });
    }
    Ok(OpenAiCalls {
        api: OpenAiApi::ChatCompletions,
        calls,
    })
}

fn responses_items<J: Json>(items: J::Items, at: &Loc<'_>) -> Result<Vec<ToolCall>, FormatError> {
    calls_of_type::<J>(OPENAI, items, at, "function_call", "call_id", "arguments")
}

/// The calls among `items`: each object whose `type` is `kind`, with its
/// id under `id_key`, its `name`, and its input under `input_key`; other
/// items are skipped.
fn calls_of_type<J: Json>(
    format: &'static str,
    items: J::Items,
    at: &Loc<'_>,
    kind: &str,
    id_key: &'static str,
    input_key: &'static str,
) -> Result<Vec<ToolCall>, FormatError> {
    let mut calls = Vec::new();
    for (i, item) in items.enumerate() {
        let at = Loc::Index(at, i);
        let mut item = object(format, item, &at)?;
        if item.view("type").and_then(Value::as_str) != Some(kind) {
            continue;
        }
        let id = string_field::<J>(format, &mut item, &at, id_key)?;
        let name = string_field::<J>(format, &mut item, &at, "name")?;
        let input = input_text::<J>(format, &mut item, &at, input_key)?;
        calls.push(ToolCall { id, name, input });
    }
    Ok(calls)
}

/// The calls of an Anthropic assistant message or Messages API response
/// (its `tool_use` blocks), or of a list of content blocks (see the
/// [module docs](self)), from a borrowed or an owned value
/// ([`JsonInput`]).
pub fn anthropic_calls<J: JsonInput>(value: J) -> Result<Vec<ToolCall>, FormatError> {
    let unknown = || FormatError::UnknownShape {
        format: ANTHROPIC,
        expected: ANTHROPIC_SHAPES,
    };
    let value = match value.into_array() {
        Ok(blocks) => {
            return calls_of_type::<J>(ANTHROPIC, blocks, &Loc::Root, "tool_use", "id", "input")
        }
        Err(value) => value,
    };
    let mut obj = value.into_object().map_err(|_| unknown())?;
    check_role::<J>(ANTHROPIC, &obj, &Loc::Root)?;
    let at = Loc::Key(&Loc::Root, "content");
    match obj.take("content").map(Json::into_array) {
        None => Err(unknown()),
        Some(Ok(blocks)) => calls_of_type::<J>(ANTHROPIC, blocks, &at, "tool_use", "id", "input"),
        // Text-only content.
        Some(Err(text)) if text.view().is_string() => Ok(Vec::new()),
        Some(Err(other)) => Err(field_err(
            ANTHROPIC,
            &at,
            format!(
                "expected an array of blocks, got {}",
                type_name(other.view())
            ),
        )),
    }
}

/// A Chat Completions tool call, typed as the API sends it:
/// `{"id":ID,"type":"function","function":{"name":NAME,"arguments":TEXT}}`
/// (the shape an SDK holds). [`ToolCall::from`] moves its strings into the
/// call; nothing is copied. `arguments` is read as raw text (a non-string
/// value becomes its compact JSON text), as [`openai_calls`] reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatToolCall {
    /// The call id.
    pub id: String,
    /// Always `function` (may be absent when read).
    #[serde(rename = "type", default)]
    pub kind: FunctionKind,
    /// Name and arguments.
    pub function: ChatFunction,
}

/// The `type` of a [`ChatToolCall`]: the only kind that can be run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FunctionKind {
    /// `function`.
    #[default]
    Function,
}

/// The function of a [`ChatToolCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatFunction {
    /// The tool name.
    pub name: String,
    /// The raw arguments text, valid JSON or not.
    #[serde(deserialize_with = "raw_text")]
    pub arguments: String,
}

/// A Responses API `function_call` output item, typed:
/// `{"type":"function_call","call_id":ID,"name":NAME,"arguments":TEXT}`
/// (the item's own `id`, `status` and other fields are not kept).
/// [`ToolCall::from`] moves its strings; `call_id` is the call's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResponsesFunctionCall {
    /// Always `function_call`.
    #[serde(rename = "type")]
    pub kind: FunctionCallKind,
    /// The id the output item must name.
    pub call_id: String,
    /// The tool name.
    pub name: String,
    /// The raw arguments text, valid JSON or not.
    #[serde(deserialize_with = "raw_text")]
    pub arguments: String,
}

/// The `type` of a [`ResponsesFunctionCall`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FunctionCallKind {
    /// `function_call`.
    #[default]
    FunctionCall,
}

/// An Anthropic `tool_use` content block, typed:
/// `{"type":"tool_use","id":ID,"name":NAME,"input":{…}}`.
/// [`ToolCall::from`] moves id and name; the input becomes its compact
/// JSON text (an `input` that is a string is taken as raw text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// Always `tool_use`.
    #[serde(rename = "type")]
    pub kind: ToolUseKind,
    /// The block id the `tool_result` must name.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The input object.
    pub input: Value,
}

/// The `type` of a [`ToolUseBlock`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolUseKind {
    /// `tool_use`.
    #[default]
    ToolUse,
}

/// Raw input text: a string as it is, any other value (but null) as its
/// compact JSON text.
fn raw_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(raw) => Ok(raw),
        Value::Null => Err(D::Error::custom("expected the arguments text, got null")),
        other => Ok(other.to_string()),
    }
}

impl From<ChatToolCall> for ToolCall {
    fn from(call: ChatToolCall) -> Self {
        ToolCall {
            id: call.id,
            name: call.function.name,
            input: call.function.arguments,
        }
    }
}

impl From<ResponsesFunctionCall> for ToolCall {
    fn from(call: ResponsesFunctionCall) -> Self {
        ToolCall {
            id: call.call_id,
            name: call.name,
            input: call.arguments,
        }
    }
}

impl From<ToolUseBlock> for ToolCall {
    fn from(block: ToolUseBlock) -> Self {
        let input = match block.input {
            Value::String(raw) => raw,
            other => other.to_string(),
        };
        ToolCall {
            id: block.id,
            name: block.name,
            input,
        }
    }
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
///
/// Takes the results by reference (`&results`: id and content copied) or by
/// value (`results`: moved into the messages), see [`ResultInput`].
pub fn openai_results<R: ResultInput>(
    api: OpenAiApi,
    results: impl IntoIterator<Item = R>,
) -> Vec<OpenAiMessage> {
    results
        .into_iter()
        .map(|r| {
            let (id, content, _) = r.parts();
            match api {
                OpenAiApi::ChatCompletions => OpenAiMessage::Chat(ChatToolMessage {
                    role: "tool",
                    tool_call_id: id,
                    content,
                }),
                OpenAiApi::Responses => OpenAiMessage::Responses(FunctionCallOutput {
                    kind: "function_call_output",
                    call_id: id,
                    output: content,
                }),
            }
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
/// (no blocks for an empty batch), from results by reference or by value
/// ([`ResultInput`]).
pub fn anthropic_results<R: ResultInput>(
    results: impl IntoIterator<Item = R>,
) -> AnthropicToolResults {
    AnthropicToolResults {
        role: "user",
        content: results
            .into_iter()
            .map(|r| {
                let (tool_use_id, content, is_error) = r.parts();
                ToolResultBlock {
                    kind: "tool_result",
                    tool_use_id,
                    content,
                    is_error,
                }
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
            openai_calls(json!({"tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}))
                .unwrap_err();
        assert_eq!(
            err.to_string(),
            "openai: tool_calls[0].function.name: missing"
        );
        let err = anthropic_calls(
            json!({"content": [{"type": "tool_use", "id": 3, "name": "x", "input": {}}]}),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "anthropic: content[0].id: expected a string, got a number"
        );
        let err = openai_calls(
            json!({"output": [{"type": "function_call", "name": "x", "arguments": "{}"}]}),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "openai: output[0].call_id: missing");
        let err = openai_calls(json!([5])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "openai: [0]: expected an object, got a number"
        );
    }
}
