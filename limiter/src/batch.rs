//! The per-batch total budget, applied after the whole batch ran: the
//! largest results are cut further (water-filling) until the total fits.

use std::path::{Path, PathBuf};

use crate::count::char_len;
use crate::hint::{Context, NoteHint};
use crate::limiter::{file_hint, Limits};
use crate::lines::View;
use crate::middle::{cut, note_cost_bound, MiddleCut};
use crate::spill::spill;

/// One model-facing result of a batch, borrowed for [`fit_batch`].
///
/// The budget is counted on `content` (what the model would see), but a
/// result that has to be cut is cut from its *complete* content
/// ([`BatchItem::complete`]; `content` itself when it is complete), so the
/// note's counts and line numbers describe the complete output, never an
/// earlier cut.
#[derive(Debug)]
#[non_exhaustive]
pub struct BatchItem<'a> {
    /// The content the model will see; cut in place.
    pub content: &'a mut String,
    /// Error results are never cut below their first line.
    pub is_error: bool,
    /// The complete redacted content when `content` is already a cut of it
    /// (`None`: `content` is complete).
    pub complete: Option<&'a str>,
    /// The reader a hint may name and whether the result is its own view
    /// of a file ([`Context`]; `read_only_success` is not used here).
    pub context: Context<'a>,
    /// The spill file holding exactly the complete content, if there is
    /// one; a cut that needs one and has none writes one here (with
    /// [`Limiter::fit_batch`](crate::Limiter::fit_batch)).
    pub spill_path: Option<&'a mut Option<PathBuf>>,
    /// Never cut (a spill message: already as small as a note).
    pub fixed: bool,
}

impl<'a> BatchItem<'a> {
    /// Borrows one result's content (complete, no reader, not fixed).
    pub fn new(content: &'a mut String, is_error: bool) -> Self {
        BatchItem {
            content,
            is_error,
            complete: None,
            context: Context::default(),
            spill_path: None,
            fixed: false,
        }
    }

    /// The complete content when `content` is a cut of it.
    #[must_use]
    pub fn complete(mut self, complete: Option<&'a str>) -> Self {
        self.complete = complete;
        self
    }

    /// The hint context of the result.
    #[must_use]
    pub fn context(mut self, context: Context<'a>) -> Self {
        self.context = context;
        self
    }

    /// Where the spill file of the complete content is (or goes).
    #[must_use]
    pub fn spill_path(mut self, slot: &'a mut Option<PathBuf>) -> Self {
        self.spill_path = Some(slot);
        self
    }

    /// Never cut this result.
    #[must_use]
    pub fn fixed(mut self, fixed: bool) -> Self {
        self.fixed = fixed;
        self
    }
}

/// What [`fit_batch`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BatchFit {
    /// The fair share c (characters per result) when something was cut.
    pub cap: Option<usize>,
    /// Indexes of the items that were cut, ascending.
    pub cut: Vec<usize>,
    /// The numbers of each cut's note, in the order of [`BatchFit::cut`]
    /// (`None` when the complete content fit the share whole).
    pub cuts: Vec<Option<MiddleCut>>,
    /// Total characters before.
    pub chars_before: usize,
    /// Total characters after.
    pub chars_after: usize,
    /// Whether the total now fits; false only when even cutting every result
    /// to its smallest form (note only; first line + note for errors) is too
    /// big — everything cuttable is then cut that far.
    pub fits: bool,
}

/// The longest spill file name a cut can still have to name.
const WORST_NAME: &str = "tool_result_18446744073709551615.txt";

struct Sizes {
    /// Characters of the content now.
    current: usize,
    /// Characters of the line-truncated complete content.
    full: usize,
    /// Smallest size a cut can reach (note, plus the first line for errors).
    floor: usize,
    /// Characters the head must keep (the first line, for errors).
    min_head: usize,
    /// The worst note's cost (note + two newlines).
    note: usize,
    fixed: bool,
}

impl Sizes {
    /// Size of this item when every result is held to `cap` characters.
    fn at(&self, cap: usize) -> usize {
        if self.fixed {
            self.current
        } else {
            self.current.min(cap.max(self.floor))
        }
    }
}

/// Holds a batch's model-facing contents to `total` characters together.
///
/// Nothing happens when they already fit. Otherwise the fair share c is the
/// largest cap such that Σ min(len, c) ≤ `total`, counting for each cut
/// result the exact worst-case size of its note; results no longer than c
/// stay whole and each longer one is middle-truncated (same note as [`crate::middle_truncate`])
/// to at most c characters, head and tail splitting what the note leaves.
/// An error result keeps at least its whole first line (an error with a
/// single line is never cut), and a result smaller than its own note is
/// never cut. When `total` cannot be reached at all, everything that can be
/// cut is cut to its smallest form and [`BatchFit::fits`] is false.
///
/// A result is counted as it is now (after the per-result limits) but cut
/// from its complete content ([`BatchItem::complete`]), so the note's counts
/// and line numbers describe the complete output; when the complete content
/// fits the share whole it is shown whole. This free function writes no
/// spill file: a cut names the item's existing spill file (or the reader's
/// own file), else it has no hint; [`Limiter::fit_batch`](crate::Limiter::fit_batch)
/// also spills what it cuts, so every hint holds.
///
/// ```
/// use toolexec_limiter::{char_len, fit_batch, BatchItem};
/// let mut small = "ok".to_string();
/// let mut big = "x\n".repeat(5_000);
/// let mut items = [BatchItem::new(&mut small, false), BatchItem::new(&mut big, false)];
/// let fit = fit_batch(&mut items, 1_000);
/// assert!(fit.fits && fit.cut == [1]);
/// assert_eq!(small, "ok");
/// assert!(char_len(&small) + char_len(&big) <= 1_000);
/// ```
pub fn fit_batch(items: &mut [BatchItem<'_>], total: usize) -> BatchFit {
    fit(items, total, None)
}

/// The source a cut is made from: the complete content.
fn source<'s>(item: &'s BatchItem<'_>) -> &'s str {
    match item.complete {
        Some(complete) => complete,
        None => item.content.as_str(),
    }
}

fn existing_spill(item: &BatchItem<'_>) -> Option<PathBuf> {
    item.spill_path.as_ref().and_then(|slot| (**slot).clone())
}

/// The batch fit with optional limits (line length for the view of the
/// complete content, scratch directory for new spill files).
pub(crate) fn fit(items: &mut [BatchItem<'_>], total: usize, limits: Option<&Limits>) -> BatchFit {
    let max_line = limits.map_or(usize::MAX, |l| l.max_line);
    let worst_path: Option<PathBuf> = limits.map(|l| l.scratch_dir.join(WORST_NAME));
    let sizes: Vec<Sizes> = items
        .iter()
        .map(|it| {
            let current = char_len(it.content);
            if it.fixed {
                return Sizes {
                    current,
                    full: current,
                    floor: current,
                    min_head: 0,
                    note: 0,
                    fixed: true,
                };
            }
            let src = source(it);
            let view = View::new(src, max_line, char_len(src));
            let existing = existing_spill(it);
            let note = {
                let worst_offset = view.lines as u64 + 1;
                let hint = match it.context.own_view() {
                    Some((reader, before)) => NoteHint::Reread {
                        reader,
                        offset: before.saturating_add(worst_offset),
                    },
                    None => {
                        let path: Option<&Path> = existing.as_deref().or(worst_path.as_deref());
                        file_hint(path, it.context.reader, worst_offset)
                    }
                };
                note_cost_bound(view.chars, view.lines, &hint)
            };
            let min_head = if it.is_error {
                first_line_chars(src).min(view.chars)
            } else {
                0
            };
            Sizes {
                current,
                full: view.chars,
                floor: note.saturating_add(min_head),
                min_head,
                note,
                fixed: false,
            }
        })
        .collect();
    let chars_before = sizes
        .iter()
        .fold(0usize, |acc, s| acc.saturating_add(s.current));
    if chars_before <= total {
        return BatchFit {
            cap: None,
            cut: Vec::new(),
            cuts: Vec::new(),
            chars_before,
            chars_after: chars_before,
            fits: true,
        };
    }
    let sum_at = |cap: usize| {
        sizes
            .iter()
            .fold(0usize, |acc, s| acc.saturating_add(s.at(cap)))
    };
    // Largest cap with sum_at(cap) <= total; sum_at is non-decreasing and
    // sum_at(max len) = chars_before > total.
    let (mut lo, mut hi) = (0usize, sizes.iter().map(|s| s.current).max().unwrap_or(0));
    let reachable = sum_at(0) <= total;
    if reachable {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if sum_at(mid) <= total {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    let cap = lo;
    let mut fit = BatchFit {
        cap: Some(cap),
        chars_before,
        ..BatchFit::default()
    };
    let mut chars_after = 0usize;
    for (index, (item, size)) in items.iter_mut().zip(&sizes).enumerate() {
        let target = cap.max(size.floor);
        if size.fixed || size.current <= target {
            chars_after = chars_after.saturating_add(size.current);
            continue;
        }
        let src = source(item);
        let view = View::new(src, max_line, char_len(src));
        let (text, middle) = if size.full <= target {
            // The complete content fits the share whole: better than a cut.
            (view.materialize().into_owned(), None)
        } else {
            // target >= floor >= note bound + min_head, and target < full,
            // so head + tail < full: the cut is well formed.
            let room = target - size.note;
            let head = size.min_head.max(room - room / 2);
            let tail = room - head;
            let own = item.context.own_view();
            let reader = item.context.reader;
            let mut path = existing_spill(item);
            let mut written = None;
            if own.is_none() && path.is_none() {
                if let Some(limits) = limits {
                    if let Ok(p) = spill(&limits.scratch_dir, src) {
                        written = Some(p.clone());
                        path = Some(p);
                    }
                }
            }
            let (text, c) = cut(&view, head, tail, &|c: &MiddleCut| match own {
                Some((reader, before)) => NoteHint::Reread {
                    reader,
                    offset: before.saturating_add(c.reread_offset() as u64),
                },
                None => file_hint(path.as_deref(), reader, c.reread_offset() as u64),
            });
            if let (Some(p), Some(slot)) = (written, item.spill_path.as_mut()) {
                **slot = Some(p);
            }
            (text, Some(c))
        };
        chars_after = chars_after.saturating_add(char_len(&text));
        *item.content = text;
        fit.cut.push(index);
        fit.cuts.push(middle);
    }
    fit.chars_after = chars_after;
    fit.fits = chars_after <= total;
    fit
}

/// Characters of the first line of `text`, its `\n` included.
fn first_line_chars(text: &str) -> usize {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(at) => char_len(&text[..=at]),
        None => char_len(text),
    }
}
