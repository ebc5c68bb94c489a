//! `write`: create or replace a whole file, atomically.

use std::io::{self, Read};
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
                let existed = match jail.stat(&path, &display)? {
                    Some(meta) if meta.is_dir() => {
                        return Err(ToolsError::IsDirectory { path: display })
                    }
                    Some(meta) if meta.file_type().is_symlink() => {
                        return Err(Jail::open_error("write", &display, rustix::io::Errno::LOOP))
                    }
                    Some(meta) if !meta.is_file() => {
                        return Err(ToolsError::NotRegularFile { path: display })
                    }
                    Some(_) => {
                        let (file, meta) = jail.open_read(&path, &display)?;
                        let current = Fingerprint::of_open_file(file, &meta)
                            .map_err(|e| ToolsError::io("read", &display, e))?;
                        tracker.check(&path, current, &display)?;
                        true
                    }
                    None => false,
                };
                // A redaction marker stays only where the file holds it.
                let read_existing = || -> Result<Vec<u8>, ToolsError> {
                    let (file, _meta) = jail.open_read(&path, &display)?;
                    let mut bytes = Vec::new();
                    (&file)
                        .read_to_end(&mut bytes)
                        .map_err(|e| ToolsError::io("read", &display, e))?;
                    Ok(bytes)
                };
                let owned = crate::markers::write_bytes(
                    &redactor,
                    if existed { Some(&read_existing) } else { None },
                    content.as_bytes(),
                    &display,
                )?;
                let bytes = &owned[..];
                atomic_write(&jail, &path, bytes, &display)?;
                let written = Fingerprint::of_written(bytes, || {
                    jail.stat(&path, &display)
                        .ok()
                        .flatten()
                        .ok_or_else(|| io::Error::other("the written file is gone"))
                });
                match written {
                    Ok(fingerprint) => tracker.record(path.clone(), fingerprint),
                    Err(_) => tracker.forget(&path),
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
