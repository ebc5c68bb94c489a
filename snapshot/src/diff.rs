//! Comparing two snapshots and rendering the change report.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

use crate::{Entry, Snapshot};

/// The first line of a non-empty report.
pub const REPORT_HEADER: &str = "[Workspace Changes]";

/// At most this many entries are listed by [`Diff::report`].
pub const DEFAULT_REPORT_LIMIT: usize = 50;

/// What happened to one path. The one change kind of toolexec:
/// `toolexec-core` re-exports it for results and observers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum ChangeKind {
    /// Absent before, present after.
    Created,
    /// Present in both with a different kind, size, mtime or inode.
    Modified,
    /// Present before, absent after.
    Deleted,
}

impl ChangeKind {
    /// `created`, `modified` or `deleted`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
        }
    }
}

impl std::fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The name of the root the path belongs to: `None` for the snapshot's
    /// own root (the workdir), `Some(name)` for an extra watched root.
    pub root: Option<String>,
    /// Path relative to its root.
    pub path: PathBuf,
    /// Absolute path (the root joined with `path`), for observers.
    pub absolute: PathBuf,
    /// How the report shows the path: components joined with `/`, decoded
    /// lossily, prefixed with `NAME:` for an extra root.
    pub display: String,
    /// Created, modified or deleted.
    pub kind: ChangeKind,
    /// Size before (`None` for created).
    pub old_size: Option<u64>,
    /// Size after (`None` for deleted).
    pub new_size: Option<u64>,
}

impl Change {
    /// A change to `relative` under `root` (named `root_name`, or the workdir
    /// when `None`) from state `before` to state `after`; `None` when both
    /// are absent.
    pub fn new(
        root_name: Option<&str>,
        root: &Path,
        relative: &Path,
        before: Option<&Entry>,
        after: Option<&Entry>,
    ) -> Option<Change> {
        let kind = match (before, after) {
            (None, None) => return None,
            (None, Some(_)) => ChangeKind::Created,
            (Some(_), None) => ChangeKind::Deleted,
            (Some(_), Some(_)) => ChangeKind::Modified,
        };
        Some(Change {
            root: root_name.map(str::to_owned),
            path: relative.to_path_buf(),
            absolute: root.join(relative),
            display: display_path(root_name, relative),
            kind,
            old_size: before.map(|e| e.size),
            new_size: after.map(|e| e.size),
        })
    }

    /// The report line for this change (without newline).
    pub fn report_line(&self) -> String {
        match self.kind {
            ChangeKind::Created => format!(
                "+ {} (created, {})",
                self.display,
                format_size(self.new_size.unwrap_or(0))
            ),
            ChangeKind::Modified => format!(
                "~ {} (modified, {} \u{2192} {})",
                self.display,
                format_size(self.old_size.unwrap_or(0)),
                format_size(self.new_size.unwrap_or(0))
            ),
            ChangeKind::Deleted => format!("- {} (deleted)", self.display),
        }
    }

    fn order(&self, other: &Change) -> Ordering {
        self.kind
            .cmp(&other.kind)
            .then_with(|| self.root.is_some().cmp(&other.root.is_some()))
            .then_with(|| self.root.cmp(&other.root))
            .then_with(|| self.display.cmp(&other.display))
            .then_with(|| self.path.cmp(&other.path))
    }
}

/// `relative` with `/` separators, lossily decoded, prefixed `NAME:` for a
/// named root.
pub fn display_path(root_name: Option<&str>, relative: &Path) -> String {
    let mut out = String::new();
    if let Some(name) = root_name {
        out.push_str(name);
        out.push(':');
    }
    let mut first = true;
    for component in relative.components() {
        if !first {
            out.push('/');
        }
        first = false;
        match component {
            Component::Normal(name) => out.push_str(&name.to_string_lossy()),
            other => out.push_str(&other.as_os_str().to_string_lossy()),
        }
    }
    out
}

/// The changes between two snapshots, in report order: created, then
/// modified, then deleted; within each kind the workdir's paths first, then
/// each extra root's by root name, each sorted by displayed path (byte order
/// of the string).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    changes: Vec<Change>,
    untracked: Option<String>,
}

impl Diff {
    /// A diff of these changes, put into report order.
    pub fn from_changes(mut changes: Vec<Change>) -> Diff {
        changes.sort_by(Change::order);
        Diff {
            changes,
            untracked: None,
        }
    }

    /// Marks the diff as blind beyond the walk's bounds for `reason`; a
    /// non-empty report then ends with
    /// `(changes beyond the snapshot bounds are not tracked: REASON)`.
    #[must_use]
    pub fn with_untracked(mut self, reason: Option<String>) -> Diff {
        self.untracked = reason;
        self
    }

    /// Why changes beyond the bounds are not tracked, if they are not.
    pub fn untracked(&self) -> Option<&str> {
        self.untracked.as_deref()
    }

    /// All changes, complete, in report order.
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// All changes, consumed.
    pub fn into_changes(self) -> Vec<Change> {
        self.changes
    }

    /// Number of changes.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The change report with at most 50 entries (then `… and N more`):
    /// created files first, then modified, then deleted, each sorted by
    /// path, sizes below 1024 as `N B`, else with one decimal in 1024 steps
    /// (`1.5 KB`, `2.0 MB`); empty for an
    /// empty diff. Lines are separated by `\n`, with no newline at the end.
    ///
    /// ```text
    /// [Workspace Changes]
    /// + notes.md (created, 8 B)
    /// ~ report.txt (modified, 6 B → 1.5 KB)
    /// - old.log (deleted)
    /// ```
    pub fn report(&self) -> String {
        self.report_with_limit(DEFAULT_REPORT_LIMIT)
    }

    /// The report with at most `limit` entries; when more changed, a last
    /// entry line `… and N more` (U+2026) counts the rest.
    pub fn report_with_limit(&self, limit: usize) -> String {
        if self.changes.is_empty() {
            return String::new();
        }
        let mut out = String::from(REPORT_HEADER);
        for change in self.changes.iter().take(limit) {
            out.push('\n');
            out.push_str(&change.report_line());
        }
        if self.changes.len() > limit {
            let _ = write!(out, "\n\u{2026} and {} more", self.changes.len() - limit);
        }
        if let Some(reason) = &self.untracked {
            let _ = write!(
                out,
                "\n(changes beyond the snapshot bounds are not tracked: {reason})"
            );
        }
        out
    }
}

/// The changes from `before` to `after` (two snapshots of the same root
/// taken with the same bounds).
///
/// # No phantom changes
///
/// A path is compared only where *both* walks know its state
/// ([`Snapshot::covers`]):
///
/// * present in both → modified when kind, size, mtime or inode differ;
/// * present only before → deleted only if `after` covers the path;
/// * present only after → created only if `before` covers the path.
///
/// A snapshot covers a path unless its walk was cut and the path is greater,
/// in walk order (`Path`'s `Ord`), than the last entry the walk recorded, or
/// the path is inside a directory that walk could not read. Both walks visit
/// entries in the same total order and record every in-bounds entry up to
/// where they stop, so a path that is absent from a walk that covers it is
/// truly absent; a path beyond either stop point can never be reported.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Diff {
    let mut changes = Vec::new();
    let root = after.root();
    let mut old = before.entries().peekable();
    let mut new = after.entries().peekable();
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some((a, _)), Some((b, _))) => a.cmp(b),
        };
        match order {
            Ordering::Equal => {
                let (path, a) = old.next().expect("peeked");
                let (_, b) = new.next().expect("peeked");
                if a != b {
                    changes.extend(Change::new(None, root, path, Some(a), Some(b)));
                }
            }
            Ordering::Less => {
                let (path, a) = old.next().expect("peeked");
                if after.covers(path) {
                    changes.extend(Change::new(None, root, path, Some(a), None));
                }
            }
            Ordering::Greater => {
                let (path, b) = new.next().expect("peeked");
                if before.covers(path) {
                    changes.extend(Change::new(None, root, path, None, Some(b)));
                }
            }
        }
    }
    Diff::from_changes(changes)
}

/// A byte count as the report shows it: below 1024 `N B`, else one decimal
/// in 1024 steps: `1.5 KB`, `2.0 MB`, `1.1 GB`, then TB, PB, EB.
///
/// The unit is the largest whose integer quotient is at least 1, as in the
/// common Go `ByteCountIEC` idiom, so 1 048 575 B is `1024.0 KB`.
pub fn format_size(bytes: u64) -> String {
    const UNIT: u64 = 1024;
    if bytes < UNIT {
        return format!("{bytes} B");
    }
    let mut div = UNIT;
    let mut exp = 0usize;
    let mut n = bytes / UNIT;
    while n >= UNIT {
        div *= UNIT;
        exp += 1;
        n /= UNIT;
    }
    let unit = ["KB", "MB", "GB", "TB", "PB", "EB"][exp];
    format!("{:.1} {unit}", bytes as f64 / div as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EntryKind;
    use std::collections::BTreeMap;

    fn entry(size: u64, mtime: i128, inode: u64) -> Entry {
        Entry {
            kind: EntryKind::File,
            size,
            mtime_ns: mtime,
            inode,
        }
    }

    fn snap(files: &[(&str, Entry)], cut: bool, unreadable: &[&str]) -> Snapshot {
        let entries: BTreeMap<PathBuf, Entry> =
            files.iter().map(|(p, e)| (PathBuf::from(p), *e)).collect();
        Snapshot::from_parts(
            PathBuf::from("/root"),
            entries,
            cut,
            unreadable.iter().map(PathBuf::from).collect(),
        )
    }

    #[test]
    fn sizes() {
        assert_eq!(format_size(0), "0 B");
        assert_eq!(format_size(8), "8 B");
        assert_eq!(format_size(1023), "1023 B");
        assert_eq!(format_size(1024), "1.0 KB");
        assert_eq!(format_size(1500), "1.5 KB");
        assert_eq!(format_size(2 * 1024 * 1024), "2.0 MB");
        assert_eq!(format_size(1_181_116_006), "1.1 GB");
        assert_eq!(format_size(3 << 40), "3.0 TB");
        assert_eq!(format_size(u64::MAX), "16.0 EB");
        assert_eq!(format_size(1_048_575), "1024.0 KB");
    }

    #[test]
    fn cut_hides_paths_beyond_either_stop() {
        let e = entry(1, 1, 1);
        let before = snap(&[("a", e), ("b", e), ("c", e)], true, &[]);
        // After: "a" deleted, "b0" created (before the old stop "c"? no: b0 < c),
        // the walk now stops at "d" which before never saw.
        let after = snap(&[("b", e), ("b0", e), ("c", e), ("d", e)], true, &[]);
        let d = diff(&before, &after);
        let got: Vec<(String, ChangeKind)> = d
            .changes()
            .iter()
            .map(|c| (c.display.clone(), c.kind))
            .collect();
        assert_eq!(
            got,
            vec![
                ("b0".to_string(), ChangeKind::Created),
                ("a".to_string(), ChangeKind::Deleted)
            ]
        );
    }

    #[test]
    fn unreadable_dir_hides_its_contents() {
        let e = entry(1, 1, 1);
        let before = snap(&[("x", e)], false, &["locked"]);
        let after = snap(&[("locked/f", e), ("x", e)], false, &[]);
        assert!(diff(&before, &after).is_empty());
        assert!(diff(&after, &before).is_empty());
    }

    #[test]
    fn modified_on_any_field() {
        let before = snap(
            &[
                ("s", entry(1, 1, 1)),
                ("m", entry(1, 1, 1)),
                ("i", entry(1, 1, 1)),
            ],
            false,
            &[],
        );
        let after = snap(
            &[
                ("s", entry(2, 1, 1)),
                ("m", entry(1, 2, 1)),
                ("i", entry(1, 1, 2)),
            ],
            false,
            &[],
        );
        assert_eq!(diff(&before, &after).len(), 3);
        assert!(diff(&before, &before).is_empty());
    }

    #[test]
    fn report_limit_and_untracked_line() {
        let changes: Vec<Change> = (0..53)
            .map(|i| {
                let p = format!("f{i:02}");
                Change::new(
                    None,
                    Path::new("/r"),
                    Path::new(&p),
                    None,
                    Some(&entry(3, 0, 0)),
                )
                .expect("created")
            })
            .collect();
        let d = Diff::from_changes(changes);
        let report = d.report();
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(lines.len(), 1 + 50 + 1);
        assert_eq!(lines[1], "+ f00 (created, 3 B)");
        assert_eq!(lines[51], "\u{2026} and 3 more");
        let short = d.report_with_limit(2);
        assert_eq!(
            short,
            "[Workspace Changes]\n+ f00 (created, 3 B)\n+ f01 (created, 3 B)\n\u{2026} and 51 more"
        );
        let d = d.with_untracked(Some("inotify watch limit reached".into()));
        assert!(d
            .report_with_limit(1)
            .ends_with("\n\u{2026} and 52 more\n(changes beyond the snapshot bounds are not tracked: inotify watch limit reached)"));
        assert_eq!(Diff::default().report(), "");
        assert_eq!(
            Diff::default().with_untracked(Some("x".into())).report(),
            ""
        );
    }

    #[test]
    fn order_is_kind_then_root_then_display() {
        let e = entry(1, 1, 1);
        let r = Path::new("/r");
        let changes = vec![
            Change::new(Some("proj"), r, Path::new("a"), None, Some(&e)).expect("c"),
            Change::new(None, r, Path::new("z"), Some(&e), None).expect("c"),
            Change::new(None, r, Path::new("b/c"), None, Some(&e)).expect("c"),
            Change::new(None, r, Path::new("b.txt"), None, Some(&e)).expect("c"),
            Change::new(None, r, Path::new("m"), Some(&e), Some(&e)).expect("c"),
        ];
        let d = Diff::from_changes(changes);
        let shown: Vec<&str> = d.changes().iter().map(|c| c.display.as_str()).collect();
        assert_eq!(shown, vec!["b.txt", "b/c", "proj:a", "m", "z"]);
    }
}
