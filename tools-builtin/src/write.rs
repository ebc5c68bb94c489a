//! `write`: create or replace a whole file, atomically.

use std::fs;
use std::io;
use std::sync::Arc;

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{atomic_write, blocking};
use crate::jail::Jail;
use crate::tracker::{FileTracker, Fingerprint};

/// The `write` tool: writes `content` to `path`, creating parent
/// directories.
///
/// A new file needs no read. An existing file must have been read in this
/// session and be unchanged since ([`FileTracker`]), else the call is
/// refused and nothing is written. The write is atomic (temporary file in
/// the same directory, then rename; the old file's permissions are kept),
/// so a failed write never leaves half a file. Afterwards the tracker holds
/// the new content.
///
/// Output: `Created PATH (N bytes)` or `Overwrote PATH (N bytes)`, with
/// PATH relative to the workspace root.
#[derive(Debug)]
pub struct WriteTool {
    tracker: Arc<FileTracker>,
    redactor: toolexec_redact::Redactor,
    schema: Value,
}

impl WriteTool {
    /// A write tool checking and recording into `tracker`.
    pub fn new(tracker: Arc<FileTracker>) -> Self {
        WriteTool {
            tracker,
            redactor: toolexec_redact::Redactor::builtin(),
            schema: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to write, relative to the workspace root. Parent directories are created."
                    },
                    "content": {
                        "type": "string",
                        "description": "The complete new content of the file."
                    }
                },
                "required": ["path", "content"]
            }),
        }
    }
}

impl WriteTool {
    /// Judges markers in `content` against the file as seen through
    /// `redactor` (the session's redactor; default: the built-in rules).
    pub fn with_redactor(mut self, redactor: toolexec_redact::Redactor) -> Self {
        self.redactor = redactor;
        self
    }
}

impl Tool for WriteTool {
    fn name(&self) -> &str {
        "write"
    }

    fn description(&self) -> &str {
        "Create a file or replace its whole content. An existing file must have been read \
         first in this session (and not changed since). Parent directories are created. \
         Prefer edit for changing part of an existing file."
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
            let content = args.string("content")?.to_string();
            let jail = Jail::new(ctx.workdir())?;
            let path = jail.resolve(arg)?;
            let display = arg.to_string();
            let message = blocking(move || {
                let existed = match fs::metadata(&path) {
                    Ok(meta) if meta.is_dir() => {
                        return Err(ToolsError::IsDirectory { path: display })
                    }
                    Ok(meta) if !meta.is_file() => {
                        return Err(ToolsError::NotRegularFile { path: display })
                    }
                    Ok(_) => {
                        let current = Fingerprint::of_file(&path)
                            .map_err(|e| ToolsError::io("read", &display, e))?;
                        tracker.check(&path, current, &display)?;
                        true
                    }
                    Err(e) if e.kind() == io::ErrorKind::NotFound => false,
                    Err(e) => return Err(ToolsError::io("inspect", &display, e)),
                };
                // A redaction marker stays only where the file holds it.
                let bytes = &crate::markers::write_bytes(
                    &redactor,
                    existed.then_some(path.as_path()),
                    content.as_bytes(),
                    &display,
                )?[..];
                atomic_write(&path, bytes, &display)?;
                let canonical = fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                match Fingerprint::of_written(&canonical, bytes) {
                    Ok(fingerprint) => tracker.record(canonical, fingerprint),
                    Err(_) => tracker.forget(&canonical),
                }
                let verb = if existed { "Overwrote" } else { "Created" };
                Ok(format!(
                    "{verb} {} ({} bytes)",
                    jail.display(&path),
                    bytes.len()
                ))
            })
            .await?;
            Ok::<_, ToolError>(message)
        })
    }
}
