//! Layer 3, middle: the first and last ⌊E/3⌋ characters kept, one note
//! line between them with an exact re-read hint.

use std::borrow::Cow;
use std::fmt;

use crate::count::char_len;
use crate::hint::NoteHint;
use crate::lines::View;

/// What a middle truncation removed, in the numbers of its note.
///
/// [`Display`](fmt::Display) prints the note of a `read` result that
/// started at line 1:
/// `...[truncated N chars; showing lines A-B and C-D of T total; use read with offset=B+1 to see middle]...`
/// (A is always 1 and D is always T). The limiter writes the note each
/// result's hint calls for, so that following it works: the spill file for other tools,
/// the call's own offset for `read`, the path alone when no reading tool
/// can be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MiddleCut {
    /// N: characters removed.
    pub removed: usize,
    /// Characters kept before the note.
    pub head_chars: usize,
    /// Characters kept after the note.
    pub tail_chars: usize,
    /// B: the 1-based line holding the last kept head character (0 when the
    /// head is empty, so the range `1-0` is empty and `offset=1`).
    pub head_end_line: usize,
    /// C: the 1-based line holding the first kept tail character (T + 1 when
    /// the tail is empty).
    pub tail_start_line: usize,
    /// T: lines of the truncated text (`\n` count + 1).
    pub total_lines: usize,
}

impl MiddleCut {
    /// The `offset=` of the note: the first line not (fully) shown by the head.
    #[must_use]
    pub fn reread_offset(&self) -> usize {
        self.head_end_line + 1
    }

    /// The note line (without newlines), as [`Display`](fmt::Display) prints it.
    #[must_use]
    pub fn note(&self) -> String {
        self.to_string()
    }

    /// The note with this hint.
    pub(crate) fn note_with(&self, hint: &NoteHint<'_>) -> String {
        let mut out = format!(
            "...[truncated {} chars; showing lines 1-{} and {}-{} of {} total",
            self.removed,
            self.head_end_line,
            self.tail_start_line,
            self.total_lines,
            self.total_lines,
        );
        hint.write_to(&mut out);
        out.push_str("]...");
        out
    }
}

impl fmt::Display for MiddleCut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "...[truncated {} chars; showing lines 1-{} and {}-{} of {} total; use read with offset={} to see middle]...",
            self.removed,
            self.head_end_line,
            self.tail_start_line,
            self.total_lines,
            self.total_lines,
            self.reread_offset(),
        )
    }
}

/// Characters of the longest note a cut of a text with `chars` characters
/// and `lines` lines can have with `hint` (whose offset is the largest it
/// can be), plus the two joining newlines.
pub(crate) fn note_cost_bound(chars: usize, lines: usize, hint: &NoteHint<'_>) -> usize {
    let worst = MiddleCut {
        removed: chars,
        head_chars: 0,
        tail_chars: 0,
        head_end_line: lines,
        tail_start_line: lines.saturating_add(1),
        total_lines: lines,
    };
    char_len(&worst.note_with(hint)) + 2
}

/// Keeps the first `head` and last `tail` characters of the view's text
/// (`head + tail` < `view.chars`) with the note on its own line between them.
///
/// Joining: a `\n` goes before the note unless the head is empty or already
/// ends with `\n`, and after it unless the tail is empty or already starts
/// with `\n`; so the note is always exactly one line and no empty line is
/// invented.
pub(crate) fn cut<'h>(
    view: &View<'_>,
    head: usize,
    tail: usize,
    hint: &dyn Fn(&MiddleCut) -> NoteHint<'h>,
) -> (String, MiddleCut) {
    debug_assert!(head + tail < view.chars);
    let (head_text, head_end_line) = view.head(head);
    let (tail_text, tail_start_line) = view.tail(tail);
    let cut = MiddleCut {
        removed: view.chars - head - tail,
        head_chars: head,
        tail_chars: tail,
        head_end_line,
        tail_start_line,
        total_lines: view.lines,
    };
    let note = cut.note_with(&hint(&cut));
    let mut out = String::with_capacity(head_text.len() + note.len() + tail_text.len() + 2);
    out.push_str(&head_text);
    if !head_text.is_empty() && !head_text.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&note);
    if !tail_text.is_empty() && !tail_text.starts_with('\n') {
        out.push('\n');
    }
    out.push_str(&tail_text);
    (out, cut)
}

/// Layer 3 on a view: cut to `budget` when longer (⌊budget/3⌋ each side).
pub(crate) fn truncate_view<'a, 'h>(
    view: &View<'a>,
    budget: usize,
    hint: &dyn Fn(&MiddleCut) -> NoteHint<'h>,
) -> (Cow<'a, str>, Option<MiddleCut>) {
    if view.chars <= budget {
        return (view.materialize(), None);
    }
    let keep = budget / 3;
    let (text, cut) = cut(view, keep, keep, hint);
    (Cow::Owned(text), Some(cut))
}

/// The hint of a `read` result that started at line 1 (the legacy note).
pub(crate) fn reread_from_start(cut: &MiddleCut) -> NoteHint<'static> {
    NoteHint::Reread {
        reader: "read",
        offset: cut.reread_offset() as u64,
    }
}

/// Middle truncation: when `text` is longer than `budget`
/// characters, keeps its first and last ⌊budget/3⌋ characters with the note
/// `...[truncated N chars; showing lines A-B and C-D of T total; use read with offset=B+1 to see middle]...`
/// on its own line between them. Returns the input borrowed when it fits.
///
/// ```
/// use toolexec_limiter::middle_truncate;
/// let log: String = (1..=200).map(|i| format!("line {i:04} of a long build log\n")).collect();
/// let out = middle_truncate(&log, 1200);
/// assert!(out.contains("\n...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; use read with offset=15 to see middle]...\n"));
/// ```
#[must_use]
pub fn middle_truncate(text: &str, budget: usize) -> Cow<'_, str> {
    middle_truncate_with_cut(text, budget).0
}

/// [`middle_truncate`], also returning the numbers of the note (or `None`
/// when the text fit).
#[must_use]
pub fn middle_truncate_with_cut(text: &str, budget: usize) -> (Cow<'_, str>, Option<MiddleCut>) {
    let chars = char_len(text);
    if chars <= budget {
        return (Cow::Borrowed(text), None);
    }
    truncate_view(
        &View::new(text, usize::MAX, chars),
        budget,
        &reread_from_start,
    )
}
