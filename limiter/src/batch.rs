//! The per-batch total budget (SPEC §2, after the batch): water-filling.

use crate::count::{char_len, newlines};
use crate::lines::View;
use crate::middle::{cut, note_cost_bound};

/// One model-facing result of a batch, borrowed for [`fit_batch`].
#[derive(Debug)]
#[non_exhaustive]
pub struct BatchItem<'a> {
    /// The content the model will see; cut in place.
    pub content: &'a mut String,
    /// Error results are never cut below their first line.
    pub is_error: bool,
}

impl<'a> BatchItem<'a> {
    /// Borrows one result's content.
    pub fn new(content: &'a mut String, is_error: bool) -> Self {
        BatchItem { content, is_error }
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
    /// Total characters before.
    pub chars_before: usize,
    /// Total characters after.
    pub chars_after: usize,
    /// Whether the total now fits; false only when even cutting every result
    /// to its smallest form (note only; first line + note for errors) is too
    /// big — everything cuttable is then cut that far.
    pub fits: bool,
}

struct Sizes {
    chars: usize,
    lines: usize,
    /// Smallest size a cut can reach (note, plus the first line for errors).
    floor: usize,
    /// Characters the head must keep (the first line, for errors).
    min_head: usize,
}

impl Sizes {
    fn of(content: &str, is_error: bool) -> Self {
        let chars = char_len(content);
        let lines = newlines(content) + 1;
        let min_head = if is_error {
            match memchr::memchr(b'\n', content.as_bytes()) {
                Some(at) => char_len(&content[..=at]),
                None => chars,
            }
        } else {
            0
        };
        let floor = note_cost_bound(chars, lines).saturating_add(min_head);
        Sizes {
            chars,
            lines,
            floor,
            min_head,
        }
    }

    /// Size of this item when every result is held to `cap` characters.
    fn at(&self, cap: usize) -> usize {
        self.chars.min(cap.max(self.floor))
    }
}

/// Holds a batch's model-facing contents to `total` characters together.
///
/// Nothing happens when they already fit. Otherwise the fair share c is the
/// largest cap such that Σ min(len, c) ≤ `total`, counting for each cut
/// result the exact worst-case size of its note; results no longer than c
/// stay whole and each longer one is middle-truncated (same note as SPEC §5)
/// to at most c characters, head and tail splitting what the note leaves.
/// An error result keeps at least its whole first line (an error with a
/// single line is never cut), and a result smaller than its own note is
/// never cut. When `total` cannot be reached at all, everything that can be
/// cut is cut to its smallest form and [`BatchFit::fits`] is false.
///
/// The note's line numbers refer to the content as it was handed in (after
/// the per-result limits), not to the tool's raw output.
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
    let sizes: Vec<Sizes> = items
        .iter()
        .map(|it| Sizes::of(it.content, it.is_error))
        .collect();
    let chars_before = sizes
        .iter()
        .fold(0usize, |acc, s| acc.saturating_add(s.chars));
    if chars_before <= total {
        return BatchFit {
            cap: None,
            cut: Vec::new(),
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
    let (mut lo, mut hi) = (0usize, sizes.iter().map(|s| s.chars).max().unwrap_or(0));
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
        if size.chars <= target {
            chars_after = chars_after.saturating_add(size.chars);
            continue;
        }
        // target >= floor >= note bound + min_head, and target < chars, so
        // head + tail < chars: the cut is well formed.
        let room = target - note_cost_bound(size.chars, size.lines);
        let head = size.min_head.max(room - room / 2);
        let tail = room - head;
        let view = View::new(item.content.as_str(), usize::MAX, size.chars);
        let (text, _) = cut(&view, head, tail);
        chars_after = chars_after.saturating_add(char_len(&text));
        *item.content = text;
        fit.cut.push(index);
    }
    fit.chars_after = chars_after;
    fit.fits = chars_after <= total;
    fit
}
