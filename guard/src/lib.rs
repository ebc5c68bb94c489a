//! Decides whether a tool call may run: known name, enabled, offered this turn,
//! input that is valid JSON with every required top-level field, and (opt-in)
//! input that is valid against the tool's full JSON Schema.
//!
//! `toolexec-guard` is the guard stage of toolexec (SPEC §2 step 2) as a plain,
//! synchronous library: no async runtime, no dependency on `toolexec-core`.
//! A [`Guard`] holds the registered tools and their compiled schemas, the
//! disabled set and the set of tools offered to the model this turn;
//! [`Guard::check`] runs the five checks in the order of the contract and
//! returns the parsed input or a [`Rejection`] whose `Display` is the exact
//! message the model sees.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use toolexec_guard::{Guard, Rejection};
//!
//! let mut guard = Guard::new();
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
//!     "required": ["path"]
//! });
//! guard.register("read", &schema)?;
//!
//! // Accepted: the parsed input is handed back for the tool.
//! let input = guard.check("read", r#"{"path": "src/lib.rs"}"#)?;
//! assert_eq!(input["path"], "src/lib.rs");
//!
//! // Rejected: the Display of the rejection is the message for the model.
//! let err = guard.check("read", "{}").unwrap_err();
//! assert_eq!(err.to_string(), r#"tool read: invalid input: missing required field "path""#);
//! assert!(matches!(err, Rejection::MissingField { .. }));
//!
//! let err = guard.check("rm_rf", "{}").unwrap_err();
//! assert_eq!(err.to_string(), "unknown tool: rm_rf");
//!
//! // Opt-in full validation against the compiled schema.
//! guard.set_full_validation(true);
//! let err = guard.check("read", r#"{"path": "a", "offset": "x"}"#).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     r#"tool read: invalid input: /offset: "x" is not of type "integer""#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The checks, in order
//!
//! | # | failure | [`Rejection`] | message |
//! |---|---|---|---|
//! | 1 | name not registered | `UnknownTool` | `unknown tool: NAME` |
//! | 2 | name disabled | `Disabled` | `tool NAME is disabled` |
//! | 3 | not offered this turn | `NotOffered` | `tool NAME is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list.` |
//! | 4 | input is not JSON | `InvalidJson` | `tool NAME: invalid input: DETAIL` |
//! | 5 | required field absent | `MissingField` | `tool NAME: invalid input: missing required field "FIELD"` |
//! | 6 | full mode only: schema violated | `SchemaViolation` | `tool NAME: invalid input: /ptr: message; /ptr: message` |
//!
//! The first failing check wins: an unknown tool with invalid JSON is reported
//! as unknown, a disabled tool that is also not offered as disabled.
//!
//! # Decisions where the contract is silent
//!
//! - **Schemas compile once, at registration, in both modes.** A schema that
//!   does not compile (not a valid JSON Schema, a dangling `#/...` pointer, a
//!   bad `pattern`) is a [`GuardError::InvalidSchema`] naming the tool, even
//!   when full validation is off, so switching it on later can never fail.
//!   Re-registering a name replaces its schema.
//! - **Schemas never fetch anything.** Every reference that is not inside the
//!   schema itself (`https://…`, `http://…`, `file://…`, or a relative URI
//!   such as `other.json`) is refused by a retriever that always fails, and
//!   registration returns [`GuardError::ExternalRef`] naming the tool and the
//!   URI. This holds even if another crate in the build enables the HTTP or
//!   file features of `jsonschema`.
//! - **Invalid JSON is never repaired.** `DETAIL` is `serde_json`'s error
//!   message, e.g. `expected value at line 1 column 1`. An empty input is
//!   invalid (`EOF while parsing a value at line 1 column 0`) and so is
//!   trailing text after a value (`trailing characters at line 1 column N`).
//! - **Required fields** are the strings of the schema's top-level `required`
//!   array, checked in schema order; a key that is present counts, whatever
//!   its value (`null` included). Nested `required` lists and `required`
//!   inside `allOf`/`$ref` are left to full mode (or the tool).
//! - **Input that is JSON but not an object** (`[]`, `"x"`, `null`, `3`):
//!   with a non-empty `required` list, the first required field is reported
//!   missing; with none it passes in the default mode (types are the tool's
//!   job) and full mode reports the type error.
//! - **Full-mode message**: after the required check, the input is validated
//!   against the compiled schema; the first three errors are listed as
//!   `POINTER: MESSAGE` joined by `; `, where `POINTER` is the JSON pointer of
//!   the offending value (`/` for the root) and `MESSAGE` is the validator's
//!   text, cut to 200 characters (with `…`) because it may quote the value.
//!   When there are more than three, ` (more errors not shown)` follows.
//! - **Visibility**: [`Guard::set_disabled`] and [`Guard::set_offered`] take
//!   names, registered or not; they apply to tools registered later too.
//!   [`Guard::offer_all`] (or `set_offered(None::<Vec<String>>)`) offers
//!   every tool.
//! - **Panics**: the schema compiler and validator are third-party code fed
//!   with schemas and inputs from outside; their calls run under
//!   `catch_unwind`, so a panic there becomes an [`GuardError::InvalidSchema`]
//!   at registration or a [`Rejection::SchemaViolation`] at check time.
//! - **Cost**: [`Guard::check`] does one hash lookup (visibility is cached
//!   per tool), parses the input once and looks the required keys up in the
//!   parsed map; it allocates nothing on the accepting path beyond the parsed
//!   value itself.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde_json::Value;

/// How many schema errors a full-mode rejection lists.
pub const MAX_REPORTED_VIOLATIONS: usize = 3;

/// Longest message (in characters) kept for one schema violation.
const MAX_VIOLATION_MESSAGE_CHARS: usize = 200;

/// The guard: registered tools with their compiled schemas, and which of them
/// the model may call this turn.
///
/// Build one with [`Guard::new`] or [`Guard::builder`], [`register`] each tool
/// once, update [`set_disabled`] / [`set_offered`] per turn, and call
/// [`check`] for every call. `check` takes `&self`, so a `Guard` can be shared
/// between threads (`Guard: Send + Sync`); cloning it is cheap enough to keep
/// one per turn (compiled schemas are shared).
///
/// [`register`]: Guard::register
/// [`set_disabled`]: Guard::set_disabled
/// [`set_offered`]: Guard::set_offered
/// [`check`]: Guard::check
#[derive(Debug, Clone, Default)]
pub struct Guard {
    tools: HashMap<String, Entry>,
    disabled: HashSet<String>,
    /// `None`: every registered tool is offered.
    offered: Option<HashSet<String>>,
    full_validation: bool,
}

/// One registered tool.
#[derive(Debug, Clone)]
struct Entry {
    /// The schema's top-level `required` names, in schema order.
    required: Box<[String]>,
    /// Shared, so cloning a `Guard` does not copy compiled schemas.
    validator: Arc<jsonschema::Validator>,
    /// Cached from `Guard::disabled` so `check` does a single lookup.
    disabled: bool,
    /// Cached from `Guard::offered`.
    offered: bool,
}

/// Builder for a [`Guard`] with options set before any tool is registered.
#[derive(Debug, Clone, Default)]
pub struct GuardBuilder {
    full_validation: bool,
}

impl GuardBuilder {
    /// Validates every input against the tool's whole JSON Schema after the
    /// required-field check (default: off).
    pub fn full_validation(&mut self, yes: bool) -> &mut Self {
        self.full_validation = yes;
        self
    }

    /// Builds an empty guard with these options.
    pub fn build(&self) -> Guard {
        Guard {
            full_validation: self.full_validation,
            ..Guard::default()
        }
    }
}

impl Guard {
    /// An empty guard: no tools, nothing disabled, everything offered, full
    /// validation off.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder to set options before use.
    pub fn builder() -> GuardBuilder {
        GuardBuilder::default()
    }

    /// Registers (or replaces) tool `name` with its input JSON Schema.
    ///
    /// The schema is compiled now, whatever the mode, and its top-level
    /// `required` list is kept in schema order.
    ///
    /// # Errors
    ///
    /// [`GuardError::ExternalRef`] if the schema refers to anything outside
    /// itself (nothing is fetched), [`GuardError::InvalidSchema`] if it does
    /// not compile. On error the guard is unchanged.
    pub fn register(&mut self, name: &str, schema: &Value) -> Result<(), GuardError> {
        let validator = compile(name, schema)?;
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let entry = Entry {
            required,
            validator: Arc::new(validator),
            disabled: self.disabled.contains(name),
            offered: self.offered.as_ref().is_none_or(|set| set.contains(name)),
        };
        self.tools.insert(name.to_owned(), entry);
        Ok(())
    }

    /// Removes tool `name`; returns whether it was registered. Its name stays
    /// in the disabled and offered sets.
    pub fn unregister(&mut self, name: &str) -> bool {
        self.tools.remove(name).is_some()
    }

    /// Whether tool `name` is registered.
    pub fn is_registered(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The registered tools' names, in no particular order.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The top-level required fields of tool `name`, in schema order.
    pub fn required_fields(&self, name: &str) -> Option<&[String]> {
        self.tools.get(name).map(|entry| &*entry.required)
    }

    /// Replaces the set of disabled tool names.
    pub fn set_disabled<I, S>(&mut self, names: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disabled = names.into_iter().map(Into::into).collect();
        for (name, entry) in &mut self.tools {
            entry.disabled = self.disabled.contains(name);
        }
    }

    /// Whether `name` is in the disabled set.
    pub fn is_disabled(&self, name: &str) -> bool {
        self.disabled.contains(name)
    }

    /// Sets the tools offered to the model this turn; `None` offers all.
    pub fn set_offered<I, S>(&mut self, names: Option<I>)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.offered = names.map(|names| names.into_iter().map(Into::into).collect());
        for (name, entry) in &mut self.tools {
            entry.offered = self.offered.as_ref().is_none_or(|set| set.contains(name));
        }
    }

    /// Offers every tool (same as `set_offered(None)`).
    pub fn offer_all(&mut self) {
        self.set_offered(None::<[String; 0]>);
    }

    /// Whether `name` is offered this turn (true for every name when all are
    /// offered).
    pub fn is_offered(&self, name: &str) -> bool {
        self.offered.as_ref().is_none_or(|set| set.contains(name))
    }

    /// Turns full JSON-Schema validation on or off.
    pub fn set_full_validation(&mut self, yes: bool) {
        self.full_validation = yes;
    }

    /// Whether full JSON-Schema validation is on.
    pub fn full_validation(&self) -> bool {
        self.full_validation
    }

    /// Runs the checks of SPEC §2.2 on one call and returns its parsed input.
    ///
    /// # Errors
    ///
    /// The first failing check, as a [`Rejection`] whose `Display` is the
    /// message for the model.
    pub fn check(&self, name: &str, raw_input: &str) -> Result<Value, Rejection> {
        self.check_parsed(name, raw_input, None)
    }

    /// [`Guard::check`] for a caller that already parsed `raw_input`
    /// (`parsed` must be `serde_json::from_str(raw_input)`'s value; `None`:
    /// parse here). The checks and their order are the same; the input is
    /// just not parsed twice.
    ///
    /// # Errors
    ///
    /// As [`Guard::check`].
    pub fn check_parsed(
        &self,
        name: &str,
        raw_input: &str,
        parsed: Option<Value>,
    ) -> Result<Value, Rejection> {
        let Some(entry) = self.tools.get(name) else {
            return Err(Rejection::UnknownTool {
                tool: name.to_owned(),
            });
        };
        if entry.disabled {
            return Err(Rejection::Disabled {
                tool: name.to_owned(),
            });
        }
        if !entry.offered {
            return Err(Rejection::NotOffered {
                tool: name.to_owned(),
            });
        }
        let input: Value = match parsed.map_or_else(|| serde_json::from_str(raw_input), Ok) {
            Ok(value) => value,
            Err(err) => {
                return Err(Rejection::InvalidJson {
                    tool: name.to_owned(),
                    detail: err.to_string(),
                })
            }
        };
        if let Some(field) = first_missing(&entry.required, &input) {
            return Err(Rejection::MissingField {
                tool: name.to_owned(),
                field: field.to_owned(),
            });
        }
        if self.full_validation {
            validate(name, &entry.validator, &input)?;
        }
        Ok(input)
    }
}

/// The first name of `required` that is not a key of `input` (every name,
/// when `input` is not an object).
fn first_missing<'r>(required: &'r [String], input: &Value) -> Option<&'r str> {
    match input {
        Value::Object(map) => required
            .iter()
            .find(|field| !map.contains_key(field.as_str()))
            .map(String::as_str),
        _ => required.first().map(String::as_str),
    }
}

/// A retriever that refuses every external resource, so compiling a schema
/// never touches the network or the file system.
struct RefuseExternal;

impl jsonschema::Retrieve for RefuseExternal {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("external reference {uri} refused: schemas never fetch anything").into())
    }
}

fn compile(tool: &str, schema: &Value) -> Result<jsonschema::Validator, GuardError> {
    let built = catch_unwind(AssertUnwindSafe(|| {
        jsonschema::options()
            .with_retriever(RefuseExternal)
            .build(schema)
    }));
    match built {
        Ok(Ok(validator)) => Ok(validator),
        Ok(Err(err)) => Err(match err.kind() {
            jsonschema::error::ValidationErrorKind::Referencing(
                jsonschema::ReferencingError::Unretrievable { uri, .. },
            ) => GuardError::ExternalRef {
                tool: tool.to_owned(),
                uri: uri.clone(),
            },
            _ => GuardError::InvalidSchema {
                tool: tool.to_owned(),
                detail: format!("{}: {}", pointer_or_root(err.instance_path().as_str()), err),
            },
        }),
        Err(payload) => Err(GuardError::InvalidSchema {
            tool: tool.to_owned(),
            detail: format!(
                "the schema compiler panicked: {}",
                panic_text(payload.as_ref())
            ),
        }),
    }
}

fn validate(tool: &str, validator: &jsonschema::Validator, input: &Value) -> Result<(), Rejection> {
    let collected = catch_unwind(AssertUnwindSafe(|| {
        let mut violations = Vec::new();
        let mut more = false;
        for err in validator.iter_errors(input) {
            if violations.len() == MAX_REPORTED_VIOLATIONS {
                more = true;
                break;
            }
            violations.push(Violation {
                pointer: pointer_or_root(err.instance_path().as_str()).to_owned(),
                message: clip(err.to_string()),
            });
        }
        (violations, more)
    }));
    let (violations, more) = match collected {
        Ok(found) => found,
        Err(payload) => (
            vec![Violation {
                pointer: "/".to_owned(),
                message: clip(format!(
                    "the schema validator failed on this input: {}",
                    panic_text(payload.as_ref())
                )),
            }],
            false,
        ),
    };
    if violations.is_empty() {
        Ok(())
    } else {
        Err(Rejection::SchemaViolation {
            tool: tool.to_owned(),
            violations,
            more,
        })
    }
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() {
        "/"
    } else {
        pointer
    }
}

/// Cuts `message` to [`MAX_VIOLATION_MESSAGE_CHARS`] characters, marking the
/// cut with `…`.
fn clip(mut message: String) -> String {
    if let Some((cut, _)) = message.char_indices().nth(MAX_VIOLATION_MESSAGE_CHARS) {
        message.truncate(cut);
        message.push('…');
    }
    message
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "non-text panic payload"
    }
}

/// Why a call was refused. `Display` gives the exact message for the model
/// (SPEC §2.2).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejection {
    /// No tool of that name is registered: `unknown tool: NAME`.
    UnknownTool {
        /// The name the model used.
        tool: String,
    },
    /// The tool is disabled: `tool NAME is disabled`.
    Disabled {
        /// The tool's name.
        tool: String,
    },
    /// The tool is registered but not offered to the model this turn.
    NotOffered {
        /// The tool's name.
        tool: String,
    },
    /// The input is not valid JSON: `tool NAME: invalid input: DETAIL`.
    InvalidJson {
        /// The tool's name.
        tool: String,
        /// The JSON parser's message, e.g. `expected value at line 1 column 1`.
        detail: String,
    },
    /// A top-level required field is absent:
    /// `tool NAME: invalid input: missing required field "FIELD"`.
    MissingField {
        /// The tool's name.
        tool: String,
        /// The first missing field, in schema order.
        field: String,
    },
    /// Full mode only: the input does not match the tool's schema.
    SchemaViolation {
        /// The tool's name.
        tool: String,
        /// The first [`MAX_REPORTED_VIOLATIONS`] errors (never empty).
        violations: Vec<Violation>,
        /// Whether there were more errors than those listed.
        more: bool,
    },
}

impl Rejection {
    /// The tool name of the refused call.
    pub fn tool(&self) -> &str {
        match self {
            Rejection::UnknownTool { tool }
            | Rejection::Disabled { tool }
            | Rejection::NotOffered { tool }
            | Rejection::InvalidJson { tool, .. }
            | Rejection::MissingField { tool, .. }
            | Rejection::SchemaViolation { tool, .. } => tool,
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::UnknownTool { tool } => write!(f, "unknown tool: {tool}"),
            Rejection::Disabled { tool } => write!(f, "tool {tool} is disabled"),
            Rejection::NotOffered { tool } => write!(
                f,
                "tool {tool} is not available in this turn. Use tool_search to find available \
                 tools, or use one of the tools in the current list."
            ),
            Rejection::InvalidJson { tool, detail } => {
                write!(f, "tool {tool}: invalid input: {detail}")
            }
            Rejection::MissingField { tool, field } => {
                write!(
                    f,
                    "tool {tool}: invalid input: missing required field \"{field}\""
                )
            }
            Rejection::SchemaViolation {
                tool,
                violations,
                more,
            } => {
                write!(f, "tool {tool}: invalid input: ")?;
                for (i, violation) in violations.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{violation}")?;
                }
                if *more {
                    f.write_str(" (more errors not shown)")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Rejection {}

/// One schema error found in full mode.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// JSON pointer of the offending value in the input; `/` for the root.
    pub pointer: String,
    /// The validator's message (at most 200 characters, then `…`).
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)
    }
}

/// A tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GuardError {
    /// The schema is not a JSON Schema that compiles.
    InvalidSchema {
        /// The tool being registered.
        tool: String,
        /// `POINTER: MESSAGE`, the pointer locating the problem in the schema.
        detail: String,
    },
    /// The schema refers to a resource outside itself (remote, file or
    /// relative URI); it was not fetched.
    ExternalRef {
        /// The tool being registered.
        tool: String,
        /// The URI the schema refers to, resolved against the schema's `$id`.
        uri: String,
    },
}

impl GuardError {
    /// The tool whose registration failed.
    pub fn tool(&self) -> &str {
        match self {
            GuardError::InvalidSchema { tool, .. } | GuardError::ExternalRef { tool, .. } => tool,
        }
    }
}

impl fmt::Display for GuardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuardError::InvalidSchema { tool, detail } => {
                write!(f, "tool {tool}: invalid input schema: {detail}")
            }
            GuardError::ExternalRef { tool, uri } => write!(
                f,
                "tool {tool}: invalid input schema: external reference \"{uri}\" is not allowed \
                 (schemas never fetch anything; only references inside the schema itself work)"
            ),
        }
    }
}

impl std::error::Error for GuardError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn first_missing_follows_schema_order() {
        let required = names(&["b", "a", "c"]);
        let input = serde_json::json!({"a": 1});
        assert_eq!(first_missing(&required, &input), Some("b"));
        let input = serde_json::json!({"a": 1, "b": null});
        assert_eq!(first_missing(&required, &input), Some("c"));
        let input = serde_json::json!({"a": 1, "b": 2, "c": 3});
        assert_eq!(first_missing(&required, &input), None);
    }

    #[test]
    fn first_missing_on_non_objects() {
        let required = names(&["x", "y"]);
        for input in [serde_json::json!([]), serde_json::json!("x"), Value::Null] {
            assert_eq!(first_missing(&required, &input), Some("x"));
            assert_eq!(first_missing(&[], &input), None);
        }
    }

    #[test]
    fn clip_keeps_short_messages_and_cuts_on_char_boundaries() {
        assert_eq!(clip("short".to_owned()), "short");
        let exact = "é".repeat(MAX_VIOLATION_MESSAGE_CHARS);
        assert_eq!(clip(exact.clone()), exact);
        let long = "é".repeat(MAX_VIOLATION_MESSAGE_CHARS + 1);
        let clipped = clip(long);
        assert_eq!(clipped.chars().count(), MAX_VIOLATION_MESSAGE_CHARS + 1);
        assert!(clipped.ends_with("é…"));
    }

    #[test]
    fn pointer_of_root_is_slash() {
        assert_eq!(pointer_or_root(""), "/");
        assert_eq!(pointer_or_root("/a/0"), "/a/0");
    }

    #[test]
    fn panic_text_reads_str_and_string_payloads() {
        let payload: Box<dyn std::any::Any + Send> = Box::new("static");
        assert_eq!(panic_text(payload.as_ref()), "static");
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_text(payload.as_ref()), "owned");
        let payload: Box<dyn std::any::Any + Send> = Box::new(7_u8);
        assert_eq!(panic_text(payload.as_ref()), "non-text panic payload");
    }

    #[test]
    fn visibility_cache_follows_later_registration_and_updates() {
        let mut guard = Guard::new();
        guard.set_disabled(["a"]);
        guard.set_offered(Some(["b"]));
        guard.register("a", &serde_json::json!({})).unwrap();
        guard.register("b", &serde_json::json!({})).unwrap();
        guard.register("c", &serde_json::json!({})).unwrap();
        let cached = |guard: &Guard, name: &str| {
            let entry = &guard.tools[name];
            (entry.disabled, entry.offered)
        };
        assert_eq!(cached(&guard, "a"), (true, false));
        assert_eq!(cached(&guard, "b"), (false, true));
        assert_eq!(cached(&guard, "c"), (false, false));
        guard.set_disabled(Vec::<String>::new());
        guard.offer_all();
        for name in ["a", "b", "c"] {
            assert_eq!(cached(&guard, name), (false, true));
        }
    }
}
