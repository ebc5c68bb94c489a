//! `read`: numbered lines of a text file.

use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{
    blocking, is_cancelled_io, looks_binary, read_line_capped, utf8_prefix, CancellableReader,
    BINARY_PROBE,
};
use crate::jail::Jail;
use crate::tracker::{FileTracker, Fingerprint, Hasher, HASH_LIMIT};

/// Lines shown when `limit` is not given.
pub const DEFAULT_READ_LIMIT: u64 = 2000;

/// The default cap on `limit`: a larger `limit` shows this many lines (and
/// the usual `(more lines follow; use offset=N to continue)` line), so one
/// call never copies a whole huge file. See [`ReadTool::with_max_limit`].
pub const DEFAULT_READ_MAX_LIMIT: u64 = 2000;

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
/// of at most [`READ_MAX_LINE_BYTES`] bytes whatever the file size, and
/// `limit` itself is capped ([`DEFAULT_READ_MAX_LIMIT`], see
/// [`ReadTool::with_max_limit`]). The rest of a file up to [`HASH_LIMIT`]
/// is streamed through the hash the tracker records. Cancellation (the
/// call's deadline) is checked before every 64 KiB read, so a call on a
/// huge file stops at once.
///
/// The file is opened beneath the workspace root's handle ([`Jail`]) with
/// `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat` before the first
/// byte is read: FIFOs, sockets and devices are refused at once. Outside
/// the workspace, read opens only the spill files of its session (the
/// directories given to [`ReadTool::with_extra_roots`]; see
/// [`toolexec_limiter::open_spill_file`]).
#[derive(Debug)]
pub struct ReadTool {
    tracker: Arc<FileTracker>,
    extra_roots: Vec<PathBuf>,
    max_limit: u64,
    schema: Value,
}

impl ReadTool {
    /// A read tool recording into `tracker`.
    pub fn new(tracker: Arc<FileTracker>) -> Self {
        ReadTool {
            tracker,
            extra_roots: Vec::new(),
            max_limit: DEFAULT_READ_MAX_LIMIT,
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
    /// Also lets read (and only read) open, by absolute path, the spill
    /// files of these session scratch directories: files named
    /// `tool_result_<digits>.txt` directly in one of them, regular, owned by
    /// this user (nothing else there, and nothing elsewhere outside the
    /// workspace). The spill message tells the model to read such a file.
    pub fn with_extra_roots(mut self, roots: impl IntoIterator<Item = PathBuf>) -> Self {
        self.extra_roots.extend(roots);
        self
    }

    /// Caps `limit`: a call asking for more lines gets this many (at least
    /// 1), then the line saying where to continue.
    pub fn with_max_limit(mut self, lines: u64) -> Self {
        self.max_limit = lines.max(1);
        self
    }
}

/// Opens the file a read names: beneath the workspace root, or, for an
/// absolute path outside it, one of the session's spill files. Returns the
/// file, its metadata and the key the tracker records it under.
fn open_for_read(
    jail: &Jail,
    spill_dirs: &[PathBuf],
    arg: &str,
) -> Result<(File, Metadata, PathBuf), ToolsError> {
    let refused = match jail.resolve(arg) {
        Ok(path) => {
            let (file, meta) = jail.open_read(&path, arg)?;
            return Ok((file, meta, path));
        }
        Err(err) => err,
    };
    if refused.is_outside_workspace() && Path::new(arg).is_absolute() {
        for dir in spill_dirs {
            if let Ok(file) = toolexec_limiter::open_spill_file(dir, Path::new(arg)) {
                let meta = file
                    .metadata()
                    .map_err(|e| ToolsError::io("inspect", arg, e))?;
                return Ok((file, meta, PathBuf::from(arg)));
            }
        }
    }
    Err(refused)
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
            let limit = limit.min(self.max_limit);
            let jail = Jail::new(ctx.workdir())?;
            let spill_dirs = self.extra_roots.clone();
            let arg = arg.to_string();
            let cancel = ctx.clone();
            let (text, fingerprint, canonical) = blocking(move || {
                let (file, meta, key) = open_for_read(&jail, &spill_dirs, &arg)?;
                let cancelled = || cancel.is_cancelled();
                let (text, fingerprint) = read_lines(file, &meta, &arg, offset, limit, &cancelled)?;
                Ok((text, fingerprint, key))
            })
            .await?;
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
    file: File,
    opened: &Metadata,
    display: &str,
    offset: u64,
    limit: u64,
    cancelled: &dyn Fn() -> bool,
) -> Result<(String, Fingerprint), ToolsError> {
    let io_err = |e: io::Error| {
        if is_cancelled_io(&e) {
            ToolsError::Cancelled
        } else {
            ToolsError::io("read", display, e)
        }
    };
    let large = opened.len() > HASH_LIMIT;
    let mut source = HashingReader {
        inner: CancellableReader {
            inner: file,
            cancel: cancelled,
            consumed: 0,
        },
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
        None => Fingerprint::of_metadata(opened),
    };
    Ok((out, fingerprint))
}
