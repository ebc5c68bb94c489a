//! Taking a bounded snapshot of a directory tree.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use std::ops::ControlFlow;

use globset::GlobSet;

use crate::{Bounds, SnapshotError};

/// What kind of entry a snapshot recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A symbolic link, recorded with its own (`lstat`) metadata and never
    /// followed.
    Symlink,
}

/// The recorded state of one entry.
///
/// Two states are *the same* when kind, size, modification time and inode
/// are all equal; any difference is a modification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    /// File or symlink.
    pub kind: EntryKind,
    /// Size in bytes (for a symlink: the length of its target path).
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (negative
    /// before it).
    pub mtime_ns: i128,
    /// Inode number (0 on platforms without inodes).
    pub inode: u64,
}

impl Entry {
    /// The state recorded from `lstat` metadata, or `None` when the metadata
    /// is neither a regular file nor a symlink (directories, FIFOs, sockets,
    /// devices are never recorded).
    pub fn from_metadata(metadata: &Metadata) -> Option<Entry> {
        let file_type = metadata.file_type();
        let kind = if file_type.is_file() {
            EntryKind::File
        } else if file_type.is_symlink() {
            EntryKind::Symlink
        } else {
            return None;
        };
        Some(Entry {
            kind,
            size: metadata.len(),
            mtime_ns: mtime_ns(metadata),
            inode: inode(metadata),
        })
    }
}

#[cfg(unix)]
fn mtime_ns(metadata: &Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec())
}

#[cfg(not(unix))]
fn mtime_ns(metadata: &Metadata) -> i128 {
    match metadata.modified() {
        Ok(t) => match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        },
        Err(_) => 0,
    }
}

#[cfg(unix)]
fn inode(metadata: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    metadata.ino()
}

#[cfg(not(unix))]
fn inode(_metadata: &Metadata) -> u64 {
    0
}

/// A bounded record of the files under a root.
///
/// # Walk order
///
/// The walk is depth-first and sorted: in every directory the entries are
/// visited in byte order of their names, and a directory's contents are
/// visited right after the directory itself, before its next sibling. This
/// is exactly the order of [`Path`]'s `Ord` (component-wise comparison, each
/// component compared as bytes), so the recorded entries, kept in a
/// `BTreeMap<PathBuf, _>`, are in walk order, and "beyond the point where
/// the walk stopped" means "greater than [`Snapshot::cut_at`] as a `Path`".
/// Note that this is not the order of the paths as strings: `a/b` comes
/// before `a.txt` because the component `a` sorts before `a.txt`, while
/// the string `a.txt` sorts before `a/b` (`.` < `/`).
#[derive(Debug, Clone)]
pub struct Snapshot {
    root: PathBuf,
    entries: BTreeMap<PathBuf, Entry>,
    cut: bool,
    last: Option<PathBuf>,
    unreadable: Vec<PathBuf>,
}

impl Snapshot {
    /// Walks `root` within `bounds` and records every regular file and
    /// symlink.
    ///
    /// Never enters a skipped directory nor a directory whose files would
    /// be deeper than `max_depth`; stops at the first entry past
    /// `max_files`. Directories that cannot be read (and entries whose
    /// metadata cannot be read for any reason but "not found") are listed in
    /// [`Snapshot::unreadable`] and their contents are unknown to the
    /// snapshot; entries that vanish between listing and `lstat` are absent.
    ///
    /// # Errors
    ///
    /// [`SnapshotError::RootNotFound`], [`SnapshotError::RootNotADirectory`]
    /// or [`SnapshotError::RootUnreadable`] for a root that cannot be walked
    /// (a symlink to a directory is followed for the root only), and
    /// [`SnapshotError::InvalidPattern`] for a bad skipped-file pattern.
    pub fn take(root: &Path, bounds: &Bounds) -> Result<Snapshot, SnapshotError> {
        let matcher = bounds.matcher()?;
        let root_error = |source: io::Error| match source.kind() {
            io::ErrorKind::NotFound => SnapshotError::RootNotFound {
                path: root.to_path_buf(),
            },
            io::ErrorKind::NotADirectory => SnapshotError::RootNotADirectory {
                path: root.to_path_buf(),
            },
            _ => SnapshotError::RootUnreadable {
                path: root.to_path_buf(),
                source,
            },
        };
        let metadata = fs::metadata(root).map_err(root_error)?;
        if !metadata.is_dir() {
            return Err(SnapshotError::RootNotADirectory {
                path: root.to_path_buf(),
            });
        }

        let mut walk = Walk {
            bounds,
            matcher,
            snapshot: Snapshot {
                root: root.to_path_buf(),
                entries: BTreeMap::new(),
                cut: false,
                last: None,
                unreadable: Vec::new(),
            },
        };
        match walk.dir(root, &mut PathBuf::new(), 1) {
            Err(source) => Err(root_error(source)),
            Ok(_) => Ok(walk.snapshot),
        }
    }

    /// The root the snapshot was taken of, as given to [`Snapshot::take`].
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The recorded entries in walk order, with paths relative to the root.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (&Path, &Entry)> + '_ {
        self.entries.iter().map(|(p, e)| (p.as_path(), e))
    }

    /// The recorded state of one path relative to the root.
    pub fn get(&self, relative: &Path) -> Option<&Entry> {
        self.entries.get(relative)
    }

    /// Number of recorded entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether the walk was cut by `max_files`.
    pub fn is_cut(&self) -> bool {
        self.cut
    }

    /// Where a cut walk stopped: `Some(Some(path))` is the last entry it
    /// recorded (every path after it in walk order is unknown),
    /// `Some(None)` a walk cut before recording anything (`max_files` 0),
    /// `None` a walk that was not cut.
    pub fn cut_at(&self) -> Option<Option<&Path>> {
        if self.cut {
            Some(self.last.as_deref())
        } else {
            None
        }
    }

    /// Directories (and entries) that could not be read, relative to the
    /// root, in walk order; their contents are unknown to this snapshot.
    pub fn unreadable(&self) -> &[PathBuf] {
        &self.unreadable
    }

    /// Whether this snapshot knows the state of `relative`: `false` when the
    /// path lies beyond the point where a cut walk stopped or inside an
    /// unreadable directory. (Depth and skip bounds are not checked here:
    /// see [`Bounds::contains`].)
    pub fn covers(&self, relative: &Path) -> bool {
        if self.cut {
            match &self.last {
                Some(last) if relative <= last.as_path() => {}
                _ => return false,
            }
        }
        !self.unreadable.iter().any(|u| relative.starts_with(u))
    }

    #[cfg(test)]
    pub(crate) fn from_parts(
        root: PathBuf,
        entries: BTreeMap<PathBuf, Entry>,
        cut: bool,
        unreadable: Vec<PathBuf>,
    ) -> Snapshot {
        let last = if cut {
            entries.keys().next_back().cloned()
        } else {
            None
        };
        Snapshot {
            root,
            entries,
            cut,
            last,
            unreadable,
        }
    }
}

/// Names starting with this are the watcher's sync markers: never recorded,
/// whatever the bounds say.
pub(crate) const SYNC_MARKER_PREFIX: &str = ".toolexec-sync-";

/// Whether `name` is reserved for the watcher's sync markers.
pub(crate) fn is_sync_marker(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes()
        .starts_with(SYNC_MARKER_PREFIX.as_bytes())
}

/// The state of one walk.
struct Walk<'a> {
    bounds: &'a Bounds,
    matcher: &'a GlobSet,
    snapshot: Snapshot,
}

impl Walk<'_> {
    /// Records the entries of the directory `abs` (`rel` relative to the
    /// root; its entries are at level `depth`), sorted by name, descending
    /// into each subdirectory before the next sibling. Subdirectories are
    /// entered only when in bounds, so a skipped or too-deep directory is
    /// never even opened. `Break` when the file limit cut the walk; `Err`
    /// only for the root itself.
    fn dir(&mut self, abs: &Path, rel: &mut PathBuf, depth: usize) -> io::Result<ControlFlow<()>> {
        let listing = fs::read_dir(abs).and_then(|entries| {
            let mut listed = Vec::new();
            for entry in entries {
                let entry = entry?;
                listed.push((entry.file_name(), entry));
            }
            Ok(listed)
        });
        let mut listed = match listing {
            Ok(listed) => listed,
            Err(err) if rel.as_os_str().is_empty() => return Err(err),
            Err(err) => {
                // Vanished since its parent was listed: simply absent.
                if err.kind() != io::ErrorKind::NotFound {
                    self.snapshot.unreadable.push(rel.clone());
                }
                return Ok(ControlFlow::Continue(()));
            }
        };
        listed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in listed {
            let file_type = match entry.file_type() {
                Ok(file_type) => file_type,
                Err(err) => {
                    self.unreadable_entry(rel, &name, &err);
                    continue;
                }
            };
            if file_type.is_dir() {
                if depth < self.bounds.depth_limit() && !self.bounds.is_skipped_dir(&name) {
                    rel.push(&name);
                    let flow = self.dir(&entry.path(), rel, depth + 1);
                    rel.pop();
                    if let ControlFlow::Break(()) = flow? {
                        return Ok(ControlFlow::Break(()));
                    }
                }
                continue;
            }
            if !(file_type.is_file() || file_type.is_symlink())
                || self.matcher.is_match(&name)
                || is_sync_marker(&name)
            {
                continue;
            }
            if self.snapshot.entries.len() >= self.bounds.file_limit() {
                self.snapshot.cut = true;
                return Ok(ControlFlow::Break(()));
            }
            // `lstat` (relative to the open directory on Linux).
            let metadata = match entry.metadata() {
                Ok(metadata) => metadata,
                Err(err) => {
                    self.unreadable_entry(rel, &name, &err);
                    continue;
                }
            };
            // Replaced by a directory (or something else) since the listing.
            let Some(recorded) = Entry::from_metadata(&metadata) else {
                continue;
            };
            let path = rel.join(&name);
            self.snapshot.entries.insert(path.clone(), recorded);
            self.snapshot.last = Some(path);
        }
        Ok(ControlFlow::Continue(()))
    }

    /// An entry whose type or metadata could not be read: absent when it
    /// vanished, unknown (listed as unreadable) otherwise.
    fn unreadable_entry(&mut self, rel: &Path, name: &std::ffi::OsStr, err: &io::Error) {
        if err.kind() != io::ErrorKind::NotFound {
            self.snapshot.unreadable.push(rel.join(name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk order equals `Path`'s `Ord`, including names that sort
    /// differently as strings and as components.
    #[test]
    fn walk_order_is_path_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let names = [
            "a", "a.txt", "a-b", "a/b", "a/b.c/d", "a/b/c", "a0", "A", "b", "a/ b", "a/~",
        ];
        for name in names {
            let path = dir.path().join(name);
            if name == "a" || name == "a/b" || name == "a/b.c" {
                continue;
            }
            fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
            if !path.exists() {
                fs::write(&path, name).expect("write");
            }
        }
        // The order of a plain recursive walk sorted by name per directory.
        fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
            let mut names: Vec<_> = fs::read_dir(dir)
                .expect("read_dir")
                .map(|e| e.expect("entry").file_name())
                .collect();
            names.sort();
            for name in names {
                let path = dir.join(&name);
                if path.is_dir() {
                    walk(&path, &rel.join(&name), out);
                } else {
                    out.push(rel.join(&name));
                }
            }
        }
        let mut walked = Vec::new();
        walk(dir.path(), Path::new(""), &mut walked);
        let mut sorted = walked.clone();
        sorted.sort();
        assert_eq!(walked, sorted);
        let bounds = Bounds::default().skip_files(Vec::<String>::new());
        let snap = Snapshot::take(dir.path(), &bounds).expect("snapshot");
        let keys: Vec<PathBuf> = snap.entries().map(|(p, _)| p.to_path_buf()).collect();
        assert_eq!(keys, walked);
        // And the string order differs, which is why it matters.
        let mut as_strings: Vec<String> = walked
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        as_strings.sort();
        let walked_strings: Vec<String> = walked
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        assert_ne!(as_strings, walked_strings);
    }

    #[test]
    fn covers_respects_cut_and_unreadable() {
        let mut entries = BTreeMap::new();
        let e = Entry {
            kind: EntryKind::File,
            size: 1,
            mtime_ns: 1,
            inode: 1,
        };
        entries.insert(PathBuf::from("a/x"), e);
        entries.insert(PathBuf::from("b"), e);
        let snap =
            Snapshot::from_parts(PathBuf::from("/r"), entries, true, vec!["a/locked".into()]);
        assert!(snap.covers(Path::new("a/x")));
        assert!(snap.covers(Path::new("a.txt")) == (Path::new("a.txt") <= Path::new("b")));
        assert!(snap.covers(Path::new("b")));
        assert!(!snap.covers(Path::new("b0")));
        assert!(!snap.covers(Path::new("b/c")));
        assert!(!snap.covers(Path::new("c")));
        assert!(!snap.covers(Path::new("a/locked/f")));
        assert!(snap.covers(Path::new("a/lockedx")));
    }
}
