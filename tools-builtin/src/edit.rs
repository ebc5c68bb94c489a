//! `edit`: replace an exact string in a file.

use std::io::Read;
use std::sync::Arc;

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{atomic_write, blocking};
use crate::jail::Jail;
use crate::tracker::{FileTracker, Fingerprint, HASH_LIMIT};

/// The largest file edit loads (the same bound as content hashing).
pub const EDIT_MAX_BYTES: u64 = HASH_LIMIT;

/// The `edit` tool: replaces `old_string` by `new_string` in a file.
///
/// The file must have been read in this session and be unchanged since
/// ([`FileTracker`]). `old_string` must occur exactly once, or any number
/// of times with `replace_all`; occurrences are found left to right
/// without overlap, exactly as [`str::replace`] does. The file is handled
/// as bytes, so invalid UTF-8 elsewhere in it is kept as it was. The write
/// is atomic and the tracker then holds the new content.
///
/// Output: `Edited PATH: replaced N occurrence(s)`. Errors: not found
/// (read again, check whitespace), not unique (the count; add context or
/// set replace_all), `old_string` equal to `new_string`, empty
/// `old_string`, files over [`EDIT_MAX_BYTES`].
#[derive(Debug)]
pub struct EditTool {
    tracker: Arc<FileTracker>,
    redactor: toolexec_redact::Redactor,
    schema: Value,
}

impl EditTool {
    /// An edit tool checking and recording into `tracker`.
    pub fn new(tracker: Arc<FileTracker>) -> Self {
        EditTool {
            tracker,
            redactor: toolexec_redact::Redactor::builtin(),
            schema: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to edit, relative to the workspace root. It must have been read first."
                    },
                    "old_string": {
                        "type": "string",
                        "description": "The exact text to replace, including whitespace and indentation. Must be unique in the file unless replace_all is true."
                    },
                    "new_string": {
                        "type": "string",
                        "description": "The text to put in its place (must differ from old_string)."
                    },
                    "replace_all": {
                        "type": "boolean",
                        "description": "Replace every occurrence of old_string (default false)."
                    }
                },
                "required": ["path", "old_string", "new_string"]
            }),
        }
    }
}

impl EditTool {
    /// Matches `old_string` against the file as seen through `redactor` (the
    /// session's redactor; default: the built-in rules), see the module
    /// `markers` (secret-preserving edits).
    pub fn with_redactor(mut self, redactor: toolexec_redact::Redactor) -> Self {
        self.redactor = redactor;
        self
    }
}

/// Replaces non-overlapping occurrences of `needle` from left to right
/// (every one, or only the first), as [`str::replace`] does on bytes.
pub(crate) fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8], all: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut last = 0;
    for start in memchr::memmem::find_iter(haystack, needle) {
        out.extend_from_slice(&haystack[last..start]);
        out.extend_from_slice(with);
        last = start + needle.len();
        if !all {
            break;
        }
    }
    out.extend_from_slice(&haystack[last..]);
    out
}

impl Tool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }

    fn description(&self) -> &str {
        "Replace an exact string in a file. The file must have been read first in this \
         session. old_string must match the file exactly (whitespace included) and be \
         unique, unless replace_all is true. Use write to create new files."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        let tracker = Arc::clone(&self.tracker);
        let redactor = self.redactor.clone();
        Box::pin(async move {
            let args = Args::new(&input)?;
            let arg = args.string("path")?;
            let old = args.string("old_string")?.to_string();
            let new = args.string("new_string")?.to_string();
            let all = args.opt_bool("replace_all")?.unwrap_or(false);
            if old.is_empty() {
                return Err(ToolsError::field(
                    "old_string",
                    "must not be empty; use write to create a file or replace all of it",
                )
                .into());
            }
            if old == new {
                return Err(ToolsError::EditNoChange.into());
            }
            let jail = Jail::new(ctx.workdir())?;
            let path = jail.resolve(arg)?;
            let display = arg.to_string();
            let message = blocking(move || {
                let (file, meta) = jail.open_read(&path, &display)?;
                if meta.len() > EDIT_MAX_BYTES {
                    return Err(ToolsError::TooLarge {
                        path: display,
                        size: meta.len(),
                        limit: EDIT_MAX_BYTES,
                    });
                }
                let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
                (&file)
                    .take(EDIT_MAX_BYTES + 1)
                    .read_to_end(&mut bytes)
                    .map_err(|e| ToolsError::io("read", &display, e))?;
                drop(file);
                let current = if bytes.len() as u64 > HASH_LIMIT {
                    Fingerprint::of_metadata(&meta)
                } else {
                    Fingerprint::of_bytes(&bytes)
                };
                tracker.check(&path, current, &display)?;

                // Matched against the redacted view the model saw (markers kept
                // in `new_string` write their original values back).
                let view = crate::markers::View::of(&redactor, &bytes);
                let (edited, count) =
                    crate::markers::edit(&view, &bytes, old.as_bytes(), new.as_bytes(), all)
                        .map_err(|r| r.into_error("edit", &display))?;
                atomic_write(&jail, &path, &edited, &display)?;
                let written = Fingerprint::of_written(&edited, || {
                    jail.stat(&path, &display)
                        .ok()
                        .flatten()
                        .ok_or_else(|| std::io::Error::other("the edited file is gone"))
                });
                match written {
                    Ok(fingerprint) => tracker.record(path.clone(), fingerprint),
                    Err(_) => tracker.forget(&path),
                }
                let noun = if count == 1 {
                    "occurrence"
                } else {
                    "occurrences"
                };
                Ok(format!(
                    "Edited {}: replaced {count} {noun}",
                    jail.display(&path)
                ))
            })
            .await?;
            Ok::<_, ToolError>(message)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn replaces_first_or_all() {
        assert_eq!(replace_bytes(b"aXbXc", b"X", b"--", false), b"a--bXc");
        assert_eq!(replace_bytes(b"aXbXc", b"X", b"--", true), b"a--b--c");
        assert_eq!(replace_bytes(b"aaaa", b"aa", b"b", true), b"bb");
        assert_eq!(replace_bytes(b"\xffX\xfe", b"X", b"Y", true), b"\xffY\xfe");
    }

    proptest! {
        #[test]
        fn replace_all_equals_str_replace(
            hay in "[ab\n é]{0,40}",
            needle in "[ab é]{1,3}",
            with in "[abc\n]{0,4}",
        ) {
            let ours = replace_bytes(hay.as_bytes(), needle.as_bytes(), with.as_bytes(), true);
            prop_assert_eq!(ours, hay.replace(&needle, &with).into_bytes());
            let first = replace_bytes(hay.as_bytes(), needle.as_bytes(), with.as_bytes(), false);
            prop_assert_eq!(first, hay.replacen(&needle, &with, 1).into_bytes());
        }
    }
}
