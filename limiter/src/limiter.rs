//! Configuration and the three layers of SPEC §5 in order.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::count::char_len;
use crate::error::LimitError;
use crate::lines::View;
use crate::middle::{truncate_view, MiddleCut};
use crate::spill::{spill, spill_message};

/// The size settings of SPEC §5.
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
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            budget: Self::DEFAULT_BUDGET,
            max_line: Self::DEFAULT_MAX_LINE,
            spill_floor: Self::DEFAULT_SPILL_FLOOR,
            scratch_dir: crate::scratch::ScratchRoot::default_path(),
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

/// Applies SPEC §5 to tool results: spill, long lines, middle, in that order.
///
/// ```
/// use toolexec_limiter::{Limiter, Limits};
/// let limiter = Limiter::new(Limits::default().budget(400));
/// let log: String = (1..=200).map(|i| format!("line {i:04} of a long build log\n")).collect();
/// let limited = limiter.limit(&log, true); // a read-only tool succeeded: E = 1200
/// let cut = limited.middle.expect("6000 chars > 1200");
/// assert_eq!((cut.removed, cut.head_end_line, cut.tail_start_line, cut.total_lines), (5200, 14, 187, 201));
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

    /// Turns one (already redacted) result into what the model sees.
    ///
    /// `read_only_success` is true for a successful result of a `read_only`
    /// tool (effective budget × 3). Never panics and never fails: when the
    /// spill cannot be written the content is line- and middle-truncated and
    /// ends with one line `[spill failed: REASON; output truncated instead]`.
    #[must_use]
    pub fn limit<'a>(&self, content: &'a str, read_only_success: bool) -> Limited<'a> {
        let chars = char_len(content);
        let mut spill_error = None;
        if chars > self.limits.spill_threshold(read_only_success) {
            match spill(&self.limits.scratch_dir, content) {
                Ok(path) => {
                    return Limited {
                        content: Cow::Owned(spill_message(chars, &path)),
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
        let (mut text, middle) =
            truncate_view(&view, self.limits.effective_budget(read_only_success));
        if let Some(error) = &spill_error {
            let text = text.to_mut();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&spill_failure_line(error));
        }
        Limited {
            content: text,
            spill_path: None,
            spill_error,
            original_chars: chars,
            lines_truncated: view.replaced,
            middle,
        }
    }
}
