//! The data that flows in and out of a batch: calls, results, error kinds and
//! file changes.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One tool call as the model produced it.
///
/// `input` is the raw JSON text of the arguments, exactly as the model wrote
/// it; it may be invalid JSON. The guard parses it (and never repairs it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id chosen by the model; echoed back in the result.
    pub id: String,
    /// The tool name the model asked for.
    pub name: String,
    /// Raw JSON text of the arguments.
    pub input: String,
}

impl ToolCall {
    /// Builds a call from its three parts.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            input: input.into(),
        }
    }
}

/// Why a call failed. `None` in a result means success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// The call was refused before the tool ran (guard, hooks).
    Invocation,
    /// The tool ran and failed: an error, a panic, or an empty result.
    Execution,
    /// The deadline passed.
    Timeout,
    /// The batch was cancelled.
    Cancelled,
}

impl ErrorKind {
    /// The lowercase name used in results and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Invocation => "invocation",
            ErrorKind::Execution => "execution",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What happened to one file during a call: `toolexec-snapshot`'s kind,
/// serialized as `"created"`, `"modified"` or `"deleted"`.
pub use toolexec_snapshot::ChangeKind;

/// One file a call changed: the one type for a changed file, listed in a
/// result's [`changes`](ToolResult::changes), carried by the `finished`
/// event's result and handed to every
/// [`ChangeObserver`](crate::ChangeObserver).
///
/// Serialized as `{"path","kind","old_size","new_size"}` (`kind` as
/// `"created"`, `"modified"` or `"deleted"`, an absent size as `null`).
/// [`absolute`](Self::absolute) is not serialized: it names a place on the
/// executor's machine, which the model has no use for; a deserialized
/// `FileChange` has an empty `absolute`.
///
/// When the redactor is on, a secret in a file name is masked in both
/// `path` and `absolute` of the result (the text of a result never carries
/// a secret); observers run before that, with the real paths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Path relative to its root, `/`-separated (lossy for non-UTF-8 names).
    /// Paths under an extra watch root carry the root's name and a colon in
    /// front (`project:src/main.rs`).
    pub path: String,
    /// Absolute path of the file (its root joined with the relative path).
    #[serde(skip)]
    pub absolute: PathBuf,
    /// Created, modified or deleted.
    pub kind: ChangeKind,
    /// Size before the call (`None` for created files).
    pub old_size: Option<u64>,
    /// Size after the call (`None` for deleted files).
    pub new_size: Option<u64>,
}

/// The outcome of one call, as handed back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the call.
    pub id: String,
    /// The tool name of the call.
    pub name: String,
    /// Whether the call failed.
    pub is_error: bool,
    /// Why it failed; `None` on success.
    pub error_kind: Option<ErrorKind>,
    /// What the model sees: redacted, limited, with the change report
    /// appended.
    pub content: String,
    /// Every changed file (complete, even when the report is cut at 50).
    pub changes: Vec<FileChange>,
    /// Where the full redacted output was written when it was too large.
    pub spill_path: Option<PathBuf>,
}
