//! The one error type of the crate.

use std::fmt;
use std::io;

/// Why a built-in tool refused or failed a call. Its `Display` text is what
/// the model reads, so every message names the field or path at fault and,
/// where there is one, the next step to take.
///
/// Converts into [`toolexec_core::ToolError`] with `?`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolsError {
    /// The input is not an object, a required field is missing, or a field
    /// has the wrong type or an unusable value.
    InvalidInput {
        /// The field at fault, if one is.
        field: Option<String>,
        /// What is wrong with it.
        message: String,
    },
    /// A path argument resolves outside the workspace root.
    OutsideWorkspace {
        /// The path as the model wrote it.
        path: String,
        /// Why it is outside (`..`, absolute, symbolic link).
        reason: String,
    },
    /// A path argument could not be resolved (permission denied, a loop of
    /// symbolic links, a dangling link, …).
    Unresolvable {
        /// The path as the model wrote it.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The kernel cannot resolve paths beneath a directory handle
    /// (`openat2` missing): the tools fail closed rather than use a racy
    /// path check.
    JailUnavailable {
        /// Why.
        reason: String,
    },
    /// A grep pattern larger than the tool accepts (its text, or its
    /// compiled program).
    PatternTooLarge {
        /// At most the first 100 characters of the pattern.
        excerpt: String,
        /// What limit it passed.
        message: String,
    },
    /// The call was cancelled (deadline or batch cancellation) while the
    /// tool was working.
    Cancelled,
    /// The file or directory does not exist.
    NotFound {
        /// The path as the model wrote it.
        path: String,
    },
    /// A file was expected and the path is a directory.
    IsDirectory {
        /// The path as the model wrote it.
        path: String,
    },
    /// A directory was expected and the path is something else.
    NotDirectory {
        /// The path as the model wrote it.
        path: String,
    },
    /// The path is a FIFO, socket or device.
    NotRegularFile {
        /// The path as the model wrote it.
        path: String,
    },
    /// The file contains NUL bytes in its first 8 KiB.
    Binary {
        /// The path as the model wrote it.
        path: String,
    },
    /// The file is larger than the tool handles.
    TooLarge {
        /// The path as the model wrote it.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// `offset` lies past the last line of the file.
    OffsetPastEnd {
        /// The path as the model wrote it.
        path: String,
        /// The requested 1-based line.
        offset: u64,
        /// How many lines the file has.
        lines: u64,
    },
    /// An existing file is edited or overwritten without having been read
    /// in this session.
    NotRead {
        /// The path as the model wrote it.
        path: String,
    },
    /// The file changed since the model last read it.
    Stale {
        /// The path as the model wrote it.
        path: String,
    },
    /// edit: `old_string` does not occur in the file.
    EditNotFound {
        /// The path as the model wrote it.
        path: String,
    },
    /// edit: `old_string` occurs more than once and `replace_all` is off.
    EditNotUnique {
        /// The path as the model wrote it.
        path: String,
        /// How many times it occurs.
        count: usize,
    },
    /// edit: `old_string` and `new_string` are equal.
    EditNoChange,
    /// edit / write: the input holds a redaction marker that stands for no
    /// value of the file at that place (secret-preserving edits).
    RedactionMarker {
        /// The tool (`edit`, `write`).
        tool: String,
        /// The marker, `[REDACTED:RULE]`.
        marker: String,
    },
    /// The regex does not compile.
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// The compiler's message.
        message: String,
    },
    /// The glob does not compile.
    InvalidGlob {
        /// The pattern as given.
        pattern: String,
        /// The compiler's message.
        message: String,
    },
    /// An I/O operation on a path failed.
    Io {
        /// What was being done (`read`, `write`, `rename`, …).
        op: &'static str,
        /// The path as the model wrote it.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The shell could not be started.
    Spawn {
        /// The program that failed to start.
        program: String,
        /// The underlying error.
        source: io::Error,
    },
    /// exec cannot run the command in the sandbox it was asked for; the
    /// whole message (`exec: sandbox unavailable: REASON (run with
    /// --sandbox off to run without it)`).
    Sandbox(String),
    /// A background task of the tool failed (a panic in a blocking task).
    Internal {
        /// What failed.
        message: String,
    },
}

impl ToolsError {
    /// `invalid input: field "FIELD" MESSAGE`.
    pub(crate) fn field(field: &str, message: impl Into<String>) -> Self {
        ToolsError::InvalidInput {
            field: Some(field.to_string()),
            message: message.into(),
        }
    }

    /// An I/O error on `path`, turned into the precise variant where one
    /// exists (not found, is a directory).
    pub(crate) fn io(op: &'static str, path: &str, source: io::Error) -> Self {
        match source.kind() {
            io::ErrorKind::NotFound => ToolsError::NotFound {
                path: path.to_string(),
            },
            io::ErrorKind::IsADirectory => ToolsError::IsDirectory {
                path: path.to_string(),
            },
            _ => ToolsError::Io {
                op,
                path: path.to_string(),
                source,
            },
        }
    }

    /// Whether this is a refusal of the workspace jail.
    pub fn is_outside_workspace(&self) -> bool {
        matches!(self, ToolsError::OutsideWorkspace { .. })
    }

    /// Whether this is a refusal of the read-before-edit rule.
    pub fn is_read_before_edit(&self) -> bool {
        matches!(self, ToolsError::NotRead { .. } | ToolsError::Stale { .. })
    }
}

impl fmt::Display for ToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolsError::InvalidInput {
                field: Some(field),
                message,
            } => write!(f, "invalid input: field \"{field}\" {message}"),
            ToolsError::InvalidInput {
                field: None,
                message,
            } => write!(f, "invalid input: {message}"),
            ToolsError::OutsideWorkspace { path, reason } => write!(
                f,
                "path \"{path}\" is outside the workspace ({reason}); \
                 use a path relative to the workspace root"
            ),
            ToolsError::Unresolvable { path, source } => {
                write!(f, "path \"{path}\" cannot be resolved: {source}")
            }
            ToolsError::JailUnavailable { reason } => write!(
                f,
                "the workspace jail is unavailable: {reason}; refusing to touch files"
            ),
            ToolsError::PatternTooLarge { excerpt, message } => {
                write!(
                    f,
                    "pattern \"{excerpt}\" is too large: {message}; use a shorter pattern"
                )
            }
            ToolsError::Cancelled => f.write_str("the call was cancelled before it finished"),
            ToolsError::NotFound { path } => write!(f, "path \"{path}\" does not exist"),
            ToolsError::IsDirectory { path } => write!(
                f,
                "path \"{path}\" is a directory, not a file; use glob to list its files"
            ),
            ToolsError::NotDirectory { path } => {
                write!(f, "path \"{path}\" is not a directory")
            }
            ToolsError::NotRegularFile { path } => write!(
                f,
                "path \"{path}\" is not a regular file (a FIFO, socket or device)"
            ),
            ToolsError::Binary { path } => write!(
                f,
                "file \"{path}\" looks binary (it contains NUL bytes); read only shows text files"
            ),
            ToolsError::TooLarge { path, size, limit } => write!(
                f,
                "file \"{path}\" is too large ({size} bytes; the limit is {limit} bytes)"
            ),
            ToolsError::OffsetPastEnd {
                path,
                offset,
                lines,
            } => write!(
                f,
                "offset {offset} is past the end of \"{path}\" (it has {lines} lines)"
            ),
            ToolsError::NotRead { path } => write!(
                f,
                "file \"{path}\" has not been read in this session; read it first \
                 (any range), then retry"
            ),
            ToolsError::Stale { path } => write!(
                f,
                "file \"{path}\" has changed since it was last read; read it again, \
                 then retry"
            ),
            ToolsError::EditNotFound { path } => write!(
                f,
                "old_string was not found in \"{path}\"; read the file again and copy \
                 the text exactly (check whitespace and indentation)"
            ),
            ToolsError::EditNotUnique { path, count } => write!(
                f,
                "old_string occurs {count} times in \"{path}\"; add surrounding context \
                 to make it unique, or set replace_all to true to replace every occurrence"
            ),
            ToolsError::RedactionMarker { tool, marker } => write!(
                f,
                "tool {tool}: input contains the redaction marker {marker}; keep it inside \
                 the text you replace, or write the real value"
            ),
            ToolsError::EditNoChange => {
                f.write_str("old_string and new_string are identical; nothing to change")
            }
            ToolsError::InvalidRegex { pattern, message } => {
                write!(f, "invalid regex \"{pattern}\": {message}")
            }
            ToolsError::InvalidGlob { pattern, message } => {
                write!(f, "invalid glob \"{pattern}\": {message}")
            }
            ToolsError::Io { op, path, source } => {
                write!(f, "cannot {op} \"{path}\": {source}")
            }
            ToolsError::Spawn { program, source } => {
                write!(f, "cannot start {program}: {source}")
            }
            ToolsError::Internal { message } => f.write_str(message),
            ToolsError::Sandbox(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ToolsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolsError::Unresolvable { source, .. }
            | ToolsError::Io { source, .. }
            | ToolsError::Spawn { source, .. } => Some(source),
            _ => None,
        }
    }
}
