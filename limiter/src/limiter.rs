//! Configuration and the three layers in order: spill, long lines,
//! middle.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::count::char_len;
use crate::error::LimitError;
use crate::hint::{spill_message, Context, NoteHint};
use crate::lines::View;
use crate::middle::{truncate_view, MiddleCut};
use crate::spill::spill;

/// The size settings: per-result budget (default 10 000 characters), max
/// line length (default 2 000), spill floor (default 20 000), scratch
/// directory.
///
/// Every value is taken literally (a budget of 0 keeps nothing but the note);
/// `usize::MAX` switches a layer off (`max_line(usize::MAX)`: no line
/// truncation; `spill_floor(usize::MAX)`: never spill).
///
/// ```
/// use toolexec_limiter::Limits;
/// let limits = Limits::default().budget(400).scratch_dir("/tmp/my-agent");
/// assert_eq!((limits.budget, limits.max_line, limits.spill_floor), (400, 2_000, 20_000));
/// assert_eq!(limits.effective_budget(true), 1_200);
/// assert_eq!(limits.reader_tool.as_deref(), Some("read"));
/// // A proxy whose model reads spill files with its own tool:
/// let proxy = Limits::default().reader_tool(Some("toolexec_read_spill"));
/// assert_eq!(proxy.reader_tool.as_deref(), Some("toolexec_read_spill"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Per-result budget in characters (default 10 000).
    pub budget: usize,
    /// Longest line kept, in characters (default 2 000).
    pub max_line: usize,
    /// Results up to this many characters are never spilled (default 20 000).
    pub spill_floor: usize,
    /// Where spill files go (default [`ScratchRoot::default_path`]: the
    /// per-user `toolexec-<uid>` in the system temp dir; programs with
    /// sessions put a [`ScratchSession::dir`] here).
    ///
    /// [`ScratchRoot::default_path`]: crate::ScratchRoot::default_path
    /// [`ScratchSession::dir`]: crate::ScratchSession::dir
    pub scratch_dir: PathBuf,
    /// The tool that hints tell the model to use on a spill file or to
    /// re-read a cut file (default `read`; a proxy sets
    /// `toolexec_read_spill`). `None`: no such tool exists, hints name the
    /// path alone. A hint names it only when it can be called this turn
    /// ([`Context::reader`]); [`Limiter::limit`] assumes it can.
    pub reader_tool: Option<String>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            budget: Self::DEFAULT_BUDGET,
            max_line: Self::DEFAULT_MAX_LINE,
            spill_floor: Self::DEFAULT_SPILL_FLOOR,
            scratch_dir: crate::scratch::ScratchRoot::default_path(),
            reader_tool: Some(Self::DEFAULT_READER_TOOL.to_string()),
        }
    }
}

impl Limits {
    /// Default per-result budget.
    pub const DEFAULT_BUDGET: usize = 10_000;
    /// Default maximum line length.
    pub const DEFAULT_MAX_LINE: usize = 2_000;
    /// Default spill floor.
    pub const DEFAULT_SPILL_FLOOR: usize = 20_000;
    /// The default tool hints name.
    pub const DEFAULT_READER_TOOL: &'static str = "read";

    /// The defaults (same as [`Limits::default`]).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the per-result budget.
    #[must_use]
    pub fn budget(mut self, chars: usize) -> Self {
        self.budget = chars;
        self
    }

    /// Sets the maximum line length.
    #[must_use]
    pub fn max_line(mut self, chars: usize) -> Self {
        self.max_line = chars;
        self
    }

    /// Sets the spill floor.
    #[must_use]
    pub fn spill_floor(mut self, chars: usize) -> Self {
        self.spill_floor = chars;
        self
    }

    /// Sets the scratch directory.
    #[must_use]
    pub fn scratch_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.scratch_dir = dir.into();
        self
    }

    /// Sets the tool hints name (`None`: hints name the path alone).
    #[must_use]
    pub fn reader_tool(mut self, tool: Option<&str>) -> Self {
        self.reader_tool = tool.map(str::to_string);
        self
    }

    /// The effective budget E: the budget, times 3 for a successful result
    /// of a `read_only` tool (saturating).
    #[must_use]
    pub fn effective_budget(&self, read_only_success: bool) -> usize {
        if read_only_success {
            self.budget.saturating_mul(3)
        } else {
            self.budget
        }
    }

    /// Results longer than this are spilled: max(spill floor, 3 × E).
    #[must_use]
    pub fn spill_threshold(&self, read_only_success: bool) -> usize {
        self.spill_floor
            .max(self.effective_budget(read_only_success).saturating_mul(3))
    }
}

/// What [`Limiter::limit`] made of one result.
#[derive(Debug)]
#[non_exhaustive]
pub struct Limited<'a> {
    /// What the model sees (borrowed when nothing had to change).
    pub content: Cow<'a, str>,
    /// The spill file holding the whole content, when it was spilled.
    pub spill_path: Option<PathBuf>,
    /// Why spilling failed, when it should have spilled but could not (the
    /// content is then truncated and ends with the failure line).
    pub spill_error: Option<LimitError>,
    /// Characters of the input.
    pub original_chars: usize,
    /// Lines replaced by `[line truncated: N chars]`.
    pub lines_truncated: usize,
    /// The middle truncation, if one was made.
    pub middle: Option<MiddleCut>,
}

impl Limited<'_> {
    /// True when the content is the input unchanged.
    #[must_use]
    pub fn is_unchanged(&self) -> bool {
        matches!(self.content, Cow::Borrowed(_))
    }

    /// The content as an owned string.
    #[must_use]
    pub fn into_content(self) -> String {
        self.content.into_owned()
    }
}

/// The line appended to the truncated content when a spill failed.
#[must_use]
pub fn spill_failure_line(error: &LimitError) -> String {
    format!("[spill failed: {error}; output truncated instead]")
}

/// Limits tool results: spill, long lines, middle, in that order.
///
/// ```
/// use toolexec_limiter::{Limiter, Limits};
/// let scratch = tempfile::tempdir().unwrap();
/// let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
/// let log: String = (1..=200).map(|i| format!("line {i:04} of a long build log\n")).collect();
/// let limited = limiter.limit(&log, true); // a read-only tool succeeded: E = 1200
/// let cut = limited.middle.expect("6000 chars > 1200");
/// assert_eq!((cut.removed, cut.head_end_line, cut.tail_start_line, cut.total_lines), (5200, 14, 187, 201));
/// // The complete output was saved for the note's hint.
/// assert_eq!(std::fs::read_to_string(limited.spill_path.unwrap()).unwrap(), log);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Limiter {
    limits: Limits,
}

impl Limiter {
    /// A limiter with these settings.
    #[must_use]
    pub fn new(limits: Limits) -> Self {
        Limiter { limits }
    }

    /// The settings.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The scratch directory spill files go to.
    #[must_use]
    pub fn scratch_dir(&self) -> &Path {
        &self.limits.scratch_dir
    }

    /// Turns one (already redacted) result into what the model sees, for a
    /// tool other than the reader, assuming the reader tool
    /// ([`Limits::reader_tool`]) can be called: [`Limiter::limit_with`]
    /// with [`Context::new`]`(read_only_success)` and that reader.
    ///
    /// `read_only_success` is true for a successful result of a `read_only`
    /// tool (effective budget × 3). Never panics and never fails: when a
    /// spill file cannot be written the content is line- and
    /// middle-truncated and ends with one line
    /// `[spill failed: REASON; output truncated instead]`.
    #[must_use]
    pub fn limit<'a>(&self, content: &'a str, read_only_success: bool) -> Limited<'a> {
        let ctx = Context::new(read_only_success).reader(self.limits.reader_tool.as_deref());
        self.limit_with(content, &ctx)
    }

    /// Limits one (already redacted) result, with hints that hold when
    /// followed (E is the effective budget: the budget, times 3 for a
    /// successful result of a read-only tool):
    ///
    /// 1. over max(spill floor, 3 × E) characters: the whole content is
    ///    spilled and the model gets the spill message (its second line,
    ///    which names the reader, only when `ctx.reader` is set);
    /// 2. long lines are replaced;
    /// 3. over E characters: the middle is cut. For the reader's own view
    ///    of a file (`ctx.reader_view`) the note says `use READER with
    ///    offset=N` (N counts the lines before the view). For any other
    ///    result the complete content is first saved to a spill file and
    ///    the note says `use READER on PATH with offset=B+1 to see middle`,
    ///    or `the full output is in PATH` without a reader.
    #[must_use]
    pub fn limit_with<'a>(&self, content: &'a str, ctx: &Context<'_>) -> Limited<'a> {
        let chars = char_len(content);
        let mut spill_error = None;
        if chars > self.limits.spill_threshold(ctx.read_only_success) {
            match spill(&self.limits.scratch_dir, content) {
                Ok(path) => {
                    return Limited {
                        content: Cow::Owned(spill_message(chars, &path, ctx.reader)),
                        spill_path: Some(path),
                        spill_error: None,
                        original_chars: chars,
                        lines_truncated: 0,
                        middle: None,
                    }
                }
                Err(error) => spill_error = Some(error),
            }
        }
        let view = View::new(content, self.limits.max_line, chars);
        let budget = self.limits.effective_budget(ctx.read_only_success);
        let mut spill_path = None;
        let (mut text, middle) = if view.chars <= budget {
            (view.materialize(), None)
        } else if let Some((reader, before)) = ctx.own_view() {
            truncate_view(&view, budget, &|cut: &MiddleCut| NoteHint::Reread {
                reader,
                offset: before.saturating_add(cut.reread_offset() as u64),
            })
        } else {
            if spill_error.is_none() {
                match spill(&self.limits.scratch_dir, content) {
                    Ok(path) => spill_path = Some(path),
                    Err(error) => spill_error = Some(error),
                }
            }
            let path = spill_path.as_deref();
            truncate_view(&view, budget, &|cut: &MiddleCut| {
                file_hint(path, ctx.reader, cut.reread_offset() as u64)
            })
        };
        if let Some(error) = &spill_error {
            let text = text.to_mut();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&spill_failure_line(error));
        }
        Limited {
            content: text,
            spill_path,
            spill_error,
            original_chars: chars,
            lines_truncated: view.replaced,
            middle,
        }
    }

    /// Limits a result whose complete (already redacted) output is in
    /// a file of the scratch directory (written through a redacting sink):
    /// over the spill threshold the model gets the spill message naming
    /// that file, with the file's character count; otherwise the file is
    /// read back (it is at most the threshold long) and limited as
    /// [`Limiter::limit_with`] would, the note naming that same file. A
    /// file whose content fits whole is removed (no hint names it).
    ///
    /// # Errors
    ///
    /// Reading the file back failed; the file is left in place.
    pub fn limit_spilled(
        &self,
        output: &SpilledOutput,
        ctx: &Context<'_>,
    ) -> std::io::Result<Limited<'static>> {
        let chars = usize::try_from(output.chars).unwrap_or(usize::MAX);
        if chars > self.limits.spill_threshold(ctx.read_only_success) {
            return Ok(Limited {
                content: Cow::Owned(spill_message(chars, &output.path, ctx.reader)),
                spill_path: Some(output.path.clone()),
                spill_error: None,
                original_chars: chars,
                lines_truncated: 0,
                middle: None,
            });
        }
        let bytes = std::fs::read(&output.path)?;
        let content = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        };
        let chars = char_len(&content);
        let view = View::new(&content, self.limits.max_line, chars);
        let budget = self.limits.effective_budget(ctx.read_only_success);
        if view.chars <= budget {
            let text = view.materialize().into_owned();
            let _ = std::fs::remove_file(&output.path);
            return Ok(Limited {
                content: Cow::Owned(text),
                spill_path: None,
                spill_error: None,
                original_chars: chars,
                lines_truncated: view.replaced,
                middle: None,
            });
        }
        let path = Some(output.path.as_path());
        let (text, middle) = truncate_view(&view, budget, &|cut: &MiddleCut| {
            file_hint(path, ctx.reader, cut.reread_offset() as u64)
        });
        Ok(Limited {
            content: Cow::Owned(text.into_owned()),
            spill_path: Some(output.path.clone()),
            spill_error: None,
            original_chars: chars,
            lines_truncated: view.replaced,
            middle,
        })
    }

    /// Holds a batch's contents to `total` characters ([`fit_batch`](crate::fit_batch)),
    /// cutting from each result's complete content with this limiter's
    /// line length, and saving the complete content of each cut result that
    /// has no spill file yet (and is not the reader's own view) to a new
    /// one, which its note names.
    pub fn fit_batch(&self, items: &mut [crate::BatchItem<'_>], total: usize) -> crate::BatchFit {
        crate::batch::fit(items, total, Some(&self.limits))
    }

    /// Creates a new empty spill file in the scratch directory (see
    /// [`create_spill_file`](crate::create_spill_file)).
    ///
    /// # Errors
    ///
    /// The scratch directory or the file could not be created.
    pub fn create_spill_file(&self) -> Result<(std::fs::File, PathBuf), LimitError> {
        crate::spill::create_spill_file(&self.limits.scratch_dir)
    }
}

/// The hint of a cut whose complete content is in `path` (if it could be
/// written).
pub(crate) fn file_hint<'a>(
    path: Option<&'a Path>,
    reader: Option<&'a str>,
    offset: u64,
) -> NoteHint<'a> {
    match (path, reader) {
        (Some(path), Some(reader)) => NoteHint::ReadFile {
            reader,
            path,
            offset,
        },
        (Some(path), None) => NoteHint::Path(path),
        (None, _) => NoteHint::Gone,
    }
}

/// A file holding the complete, already redacted output of one call (as a
/// redacting sink wrote it): its path and size.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpilledOutput {
    /// The spill file.
    pub path: PathBuf,
    /// Characters (Unicode scalar values) of its content.
    pub chars: u64,
    /// Lines of its content (`\n` count + 1).
    pub lines: u64,
    /// Bytes of its content.
    pub bytes: u64,
}

impl SpilledOutput {
    /// Describes the file at `path` with these counts.
    #[must_use]
    pub fn new(path: PathBuf, chars: u64, lines: u64, bytes: u64) -> Self {
        SpilledOutput {
            path,
            chars,
            lines,
            bytes,
        }
    }
}
