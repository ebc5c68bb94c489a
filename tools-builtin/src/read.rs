//! `read`: numbered lines of a text file.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{blocking, looks_binary, read_line_capped, utf8_prefix, BINARY_PROBE};
use crate::jail::Jail;
use crate::tracker::{FileTracker, Fingerprint, Hasher, HASH_LIMIT};

/// Lines shown when `limit` is not given.
pub const DEFAULT_READ_LIMIT: u64 = 2000;

/// Bytes of one line that read shows; the rest of a longer line is
/// replaced by a note. Chosen so that a cut line, with its number, stays
/// under the executor's default maximum line length (2 000 characters)
/// and the model still sees the beginning of it.
pub const READ_MAX_LINE_BYTES: usize = 1900;

/// The `read` tool: shows lines `offset..offset+limit` of a text file,
/// numbered, and records the file as read in the [`FileTracker`].
///
/// Output: one line per file line, `format!("{n:>6}\t{text}")` (as
/// `cat -n`), joined by `\n` without a trailing newline; `\r` before the
/// `\n` is dropped; invalid UTF-8 is shown as U+FFFD. When more lines
/// follow, a last line `(more lines follow; use offset=N to continue)`.
/// A line longer than [`READ_MAX_LINE_BYTES`] is cut with
/// ` [… line cut: N bytes in total]`. An empty file gives
/// `(file "PATH" is empty)`. Binary files (a NUL byte in the first 8 KiB),
/// directories and devices are refused; `offset` past the end is an error
/// saying how many lines there are.
///
/// The file is read through a buffer: memory is bounded by `limit` lines
/// of at most [`READ_MAX_LINE_BYTES`] bytes whatever the file size. The
/// rest of a file up to [`HASH_LIMIT`] is streamed through the hash the
/// tracker records.
#[derive(Debug)]
pub struct ReadTool {
    tracker: Arc<FileTracker>,
    extra_roots: Vec<PathBuf>,
    schema: Value,
}

impl ReadTool {
    /// A read tool recording into `tracker`.
    pub fn new(tracker: Arc<FileTracker>) -> Self {
        ReadTool {
            tracker,
            extra_roots: Vec::new(),
            schema: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File to read, relative to the workspace root."
                    },
                    "offset": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "1-based line number to start at (default 1)."
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Maximum number of lines to show (default 2000)."
                    }
                },
                "required": ["path"]
            }),
        }
    }
}

impl ReadTool {
    /// Also lets read (and only read) open files under these directories,
    /// given by absolute path: typically the executor's scratch directory,
    /// whose spill message tells the model to read the spilled file. Each
    /// root is a jail of its own (no `..` or symbolic link out of it).
    pub fn with_extra_roots(mut self, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        self.extra_roots.extend(roots);
        self
    }

    /// The workspace jail first; for an absolute path outside it, the
    /// extra roots.
    fn resolve(&self, workdir: &Path, arg: &str) -> Result<PathBuf, ToolsError> {
        let refused = match Jail::new(workdir)?.resolve(arg) {
            Ok(path) => return Ok(path),
            Err(err) => err,
        };
        if refused.is_outside_workspace() && Path::new(arg).is_absolute() {
            for root in &self.extra_roots {
                if let Ok(path) = Jail::new(root).and_then(|jail| jail.resolve(arg)) {
                    return Ok(path);
                }
            }
        }
        Err(refused)
    }
}

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        "Read a text file of the workspace. Returns numbered lines (number, tab, text), \
         starting at `offset` (1-based, default 1), at most `limit` lines (default 2000); \
         says how to continue when more lines follow. Refuses binary files and \
         directories. Reading a file is required before editing or overwriting it."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn read_only(&self, _input: &Value) -> bool {
        true
    }

    fn concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        let tracker = Arc::clone(&self.tracker);
        Box::pin(async move {
            let args = Args::new(&input)?;
            let arg = args.string("path")?;
            let offset = args.opt_u64("offset")?.unwrap_or(1).max(1);
            let limit = match args.opt_u64("limit")? {
                Some(0) => return Err(ToolsError::field("limit", "must be at least 1").into()),
                Some(n) => n,
                None => DEFAULT_READ_LIMIT,
            };
            // The executor's note on a cut result counts the lines before it.
            ctx.set_first_line(offset);
            let path = self.resolve(ctx.workdir(), arg)?;
            let display = arg.to_string();
            let (text, fingerprint, canonical) =
                blocking(move || read_lines(&path, &display, offset, limit)).await?;
            tracker.record(canonical, fingerprint);
            Ok::<_, ToolError>(text)
        })
    }
}

/// Passes bytes through while feeding them to the content hash.
struct HashingReader<R> {
    inner: R,
    hasher: Option<Hasher>,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(hasher) = &mut self.hasher {
            hasher.update(&buf[..n]);
        }
        Ok(n)
    }
}

fn read_lines(
    path: &Path,
    display: &str,
    offset: u64,
    limit: u64,
) -> Result<(String, Fingerprint, PathBuf), ToolsError> {
    let io_err = |e| ToolsError::io("read", display, e);
    let meta = fs::metadata(path).map_err(io_err)?;
    if meta.is_dir() {
        return Err(ToolsError::IsDirectory {
            path: display.to_string(),
        });
    }
    if !meta.is_file() {
        return Err(ToolsError::NotRegularFile {
            path: display.to_string(),
        });
    }
    let file = File::open(path).map_err(io_err)?;
    let opened = file.metadata().map_err(io_err)?;
    let large = opened.len() > HASH_LIMIT;
    let mut source = HashingReader {
        inner: file,
        hasher: (!large).then(Hasher::default),
    };

    let mut head = Vec::with_capacity(BINARY_PROBE);
    (&mut source)
        .take(BINARY_PROBE as u64)
        .read_to_end(&mut head)
        .map_err(io_err)?;
    if looks_binary(&head) {
        return Err(ToolsError::Binary {
            path: display.to_string(),
        });
    }
    let empty = head.is_empty();

    let mut out = String::new();
    if empty {
        out = format!("(file \"{display}\" is empty)");
    } else {
        let mut reader = BufReader::with_capacity(64 * 1024, Cursor::new(head).chain(&mut source));
        let mut line = Vec::new();
        let mut number = 0u64;
        while number + 1 < offset {
            match read_line_capped(&mut reader, &mut line, 0).map_err(io_err)? {
                Some(_) => number += 1,
                None => {
                    return Err(ToolsError::OffsetPastEnd {
                        path: display.to_string(),
                        offset,
                        lines: number,
                    })
                }
            }
        }
        let mut shown = 0u64;
        while shown < limit {
            let Some(total) = read_line_capped(&mut reader, &mut line, READ_MAX_LINE_BYTES + 1)
                .map_err(io_err)?
            else {
                break;
            };
            number += 1;
            shown += 1;
            if !out.is_empty() {
                out.push('\n');
            }
            let mut text: &[u8] = &line;
            let cut = total > READ_MAX_LINE_BYTES;
            if cut {
                text = utf8_prefix(text, READ_MAX_LINE_BYTES);
            } else if text.last() == Some(&b'\r') {
                text = &text[..text.len() - 1];
            }
            out.push_str(&format!("{number:>6}\t"));
            out.push_str(&String::from_utf8_lossy(text));
            if cut {
                out.push_str(&format!(" [… line cut: {total} bytes in total]"));
            }
        }
        if shown == 0 {
            return Err(ToolsError::OffsetPastEnd {
                path: display.to_string(),
                offset,
                lines: number,
            });
        }
        let more = !reader.fill_buf().map_err(io_err)?.is_empty();
        if more {
            out.push_str(&format!(
                "\n(more lines follow; use offset={} to continue)",
                number + 1
            ));
        }
        if !large {
            // Hash the rest, so the tracker holds the whole file's hash.
            io::copy(&mut reader, &mut io::sink()).map_err(io_err)?;
        }
    }
    let fingerprint = match source.hasher {
        Some(hasher) => hasher.finish(),
        None => Fingerprint::of_metadata(&opened),
    };
    let canonical = fs::canonicalize(path).map_err(io_err)?;
    Ok((out, fingerprint, canonical))
}
