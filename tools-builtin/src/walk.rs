//! The directory walk shared by grep and glob, and a bounded collector that
//! keeps the first N items in sorted order.

use std::collections::BinaryHeap;
use std::path::Path;

use ignore::WalkBuilder;

/// Directories never entered, even if a rule would let them through.
const SKIP_DIRS: &[&str] = &[".git", ".hg", ".svn"];

/// A walker over `root` with ripgrep's default filters: `.gitignore`
/// (also outside a git repository), `.ignore`, `.git/info/exclude` and the
/// global git excludes are honoured; hidden files and directories are
/// skipped (the root itself is always walked); symbolic links are not
/// followed, so the walk never leaves the workspace; `.git`, `.hg` and
/// `.svn` are never entered.
pub(crate) fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(true)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIP_DIRS.contains(&name)))
        });
    builder
}

/// Keeps the `cap` smallest items pushed (bounded memory) and counts all.
#[derive(Debug)]
pub(crate) struct Smallest<T: Ord> {
    cap: usize,
    heap: BinaryHeap<T>,
    total: u64,
}

impl<T: Ord> Smallest<T> {
    pub(crate) fn new(cap: usize) -> Self {
        Smallest {
            cap,
            heap: BinaryHeap::new(),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, item: T) {
        self.total += 1;
        if self.heap.len() < self.cap {
            self.heap.push(item);
        } else if self.heap.peek().is_some_and(|largest| item < *largest) {
            self.heap.pop();
            self.heap.push(item);
        }
    }

    /// Counts items that were not pushed (known to be beyond the cap).
    pub(crate) fn count_more(&mut self, n: u64) {
        self.total += n;
    }

    /// The kept items in ascending order, and how many were pushed or
    /// counted in all.
    pub(crate) fn finish(self) -> (Vec<T>, u64) {
        (self.heap.into_sorted_vec(), self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn smallest_keeps_the_first_n_in_order(items in proptest::collection::vec(0u32..1000, 0..200), cap in 1usize..50) {
            let mut s = Smallest::new(cap);
            for &i in &items {
                s.push(i);
            }
            let (kept, total) = s.finish();
            let mut sorted = items.clone();
            sorted.sort();
            sorted.truncate(cap);
            prop_assert_eq!(kept, sorted);
            prop_assert_eq!(total, items.len() as u64);
        }
    }
}
