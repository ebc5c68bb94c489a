//! The read-before-edit tracker: edit and write of an existing file need a
//! read of its current content first.

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use toolexec_core::{ChangeKind, ChangeObserver, FileChange};

use crate::error::ToolsError;

/// Files up to this size are fingerprinted by a BLAKE3 hash of their
/// content; larger ones by size, modification time and inode (hashing
/// gigabytes on every read would cost seconds).
pub const HASH_LIMIT: u64 = 64 * 1024 * 1024;

/// What the model last saw of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fingerprint {
    /// BLAKE3 of the whole content (files up to [`HASH_LIMIT`]).
    Content([u8; 32]),
    /// Larger files: size, mtime in nanoseconds, inode.
    Meta { len: u64, mtime_ns: i128, ino: u64 },
}

impl Fingerprint {
    /// The fingerprint of content held in memory (at most [`HASH_LIMIT`]).
    pub(crate) fn of_bytes(bytes: &[u8]) -> Self {
        Fingerprint::Content(*blake3::hash(bytes).as_bytes())
    }

    /// The metadata fingerprint of a large file.
    pub(crate) fn of_metadata(meta: &Metadata) -> Self {
        Fingerprint::Meta {
            len: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ino: meta.ino(),
        }
    }

    /// The fingerprint of the file at `path` now: streams the content
    /// through the hash (bounded memory) unless the file is larger than
    /// [`HASH_LIMIT`].
    /// The file is opened with `O_NONBLOCK | O_NOFOLLOW` and must be a
    /// regular file, so a FIFO or link swapped in never blocks or leads
    /// the tracker elsewhere.
    pub(crate) fn of_file(path: &Path) -> io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc_flags())
            .open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        Self::of_open_file(file, &meta)
    }

    /// The fingerprint of an open file (its metadata from `fstat`).
    pub(crate) fn of_open_file(mut file: impl Read, meta: &Metadata) -> io::Result<Self> {
        if meta.len() > HASH_LIMIT {
            return Ok(Fingerprint::of_metadata(meta));
        }
        let mut hasher = Hasher::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(hasher.finish())
    }

    /// The fingerprint of a file just written with `content` (the
    /// metadata is asked for only above [`HASH_LIMIT`]).
    pub(crate) fn of_written(
        content: &[u8],
        meta: impl FnOnce() -> io::Result<Metadata>,
    ) -> io::Result<Self> {
        if content.len() as u64 > HASH_LIMIT {
            Ok(Fingerprint::of_metadata(&meta()?))
        } else {
            Ok(Fingerprint::of_bytes(content))
        }
    }
}

/// `O_NONBLOCK | O_NOFOLLOW` as `custom_flags` wants them.
fn libc_flags() -> i32 {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    i32::try_from(flags.bits()).unwrap_or(0)
}

/// Incremental content hashing, for readers that see the bytes once.
#[derive(Default)]
pub(crate) struct Hasher(blake3::Hasher);

impl Hasher {
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub(crate) fn finish(&self) -> Fingerprint {
        Fingerprint::Content(*self.0.finalize().as_bytes())
    }
}

/// Remembers, per file, the content the model last saw, so that edit and
/// write of an existing file can require a read first (of any range, of
/// the content the file holds now: compared by hash, not by mtime).
///
/// Keys are absolute canonical paths. A file counts as read when
///
/// - the read tool showed any range of it (the hash of the whole file at
///   that moment is recorded),
/// - write or edit produced it (the new content is recorded), or
/// - the executor reported it created or modified by a call
///   ([`ChangeObserver::files_changed`]: the file is hashed in its new
///   state; a deleted file is forgotten).
///
/// Edit and write of an existing file are refused unless it was read and
/// its current fingerprint equals the recorded one. Fingerprints compare
/// content (BLAKE3), so a `touch` or a same-content rewrite is no reason
/// to refuse; files larger than [`HASH_LIMIT`] are compared by size,
/// modification time and inode instead.
///
/// One tracker is shared by the tools of one session (see
/// [`builtin_tools`](crate::builtin_tools)); register the same `Arc` as the
/// executor's change observer.
///
/// # Example
///
/// ```
/// use std::path::Path;
/// use toolexec_core::{ChangeKind, ChangeObserver, FileChange};
/// use toolexec_tools::FileTracker;
///
/// let dir = tempfile::tempdir().unwrap();
/// let file = dir.path().join("built.txt");
/// std::fs::write(&file, "output\n").unwrap();
/// let tracker = FileTracker::new();
/// assert!(!tracker.is_tracked(&file));
/// // What the executor does after a call that created the file:
/// let created = FileChange {
///     path: "built.txt".into(),
///     absolute: file.clone(),
///     kind: ChangeKind::Created,
///     old_size: None,
///     new_size: Some(7),
/// };
/// tracker.files_changed(dir.path(), &[created]);
/// assert!(tracker.is_tracked(&file));
/// ```
#[derive(Debug, Default)]
pub struct FileTracker {
    seen: Mutex<HashMap<PathBuf, Fingerprint>>,
}

impl FileTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        FileTracker::default()
    }

    fn map(&self) -> MutexGuard<'_, HashMap<PathBuf, Fingerprint>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every operation is a single insert or remove), so a poisoned
        // lock is still usable.
        self.seen
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Marks the file as read in its current state (for embedding programs
    /// that show files to the model by other means).
    pub fn mark_read(&self, path: &Path) -> io::Result<()> {
        let canonical = fs::canonicalize(path)?;
        let fingerprint = Fingerprint::of_file(&canonical)?;
        self.record(canonical, fingerprint);
        Ok(())
    }

    /// Forgets the file: the next edit or write of it needs a read.
    pub fn forget(&self, path: &Path) {
        let key = canonical_key(path);
        let mut map = self.map();
        map.remove(&key);
        map.remove(path);
    }

    /// Whether the file was read (in any state).
    pub fn is_tracked(&self, path: &Path) -> bool {
        self.map().contains_key(&canonical_key(path))
    }

    /// How many files are tracked.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// Whether no file is tracked.
    pub fn is_empty(&self) -> bool {
        self.map().is_empty()
    }

    /// Forgets every file.
    pub fn clear(&self) {
        self.map().clear();
    }

    pub(crate) fn record(&self, canonical: PathBuf, fingerprint: Fingerprint) {
        self.map().insert(canonical, fingerprint);
    }

    /// Refuses an edit or write of the existing file `canonical` whose
    /// current fingerprint is `current`, unless the model saw exactly that.
    pub(crate) fn check(
        &self,
        canonical: &Path,
        current: Fingerprint,
        display: &str,
    ) -> Result<(), ToolsError> {
        match self.map().get(canonical) {
            None => Err(ToolsError::NotRead {
                path: display.to_string(),
            }),
            Some(seen) if *seen != current => Err(ToolsError::Stale {
                path: display.to_string(),
            }),
            Some(_) => Ok(()),
        }
    }
}

/// The canonical form of a path, also for a path whose last component no
/// longer exists (its parent is canonicalized).
fn canonical_key(path: &Path) -> PathBuf {
    if let Ok(canonical) = fs::canonicalize(path) {
        return canonical;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => match fs::canonicalize(parent) {
            Ok(parent) => parent.join(name),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    }
}

impl ChangeObserver for FileTracker {
    /// Takes created and modified files as read in their new state (each
    /// is hashed now) and forgets deleted ones, found by their
    /// [`absolute`](FileChange::absolute) path (a relative one is taken
    /// relative to `root`).
    fn files_changed(&self, root: &Path, changes: &[FileChange]) {
        for change in changes {
            let path = root.join(&change.absolute);
            match change.kind {
                ChangeKind::Created | ChangeKind::Modified => {
                    let hashed = fs::canonicalize(&path).and_then(|canonical| {
                        Fingerprint::of_file(&canonical).map(|fp| (canonical, fp))
                    });
                    match hashed {
                        Ok((canonical, fingerprint)) => self.record(canonical, fingerprint),
                        Err(_) => self.forget(&path),
                    }
                }
                ChangeKind::Deleted => self.forget(&path),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_compare_content_not_mtime() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        fs::write(&path, "same").expect("write");
        let a = Fingerprint::of_file(&path).expect("fp");
        fs::write(&path, "same").expect("rewrite");
        assert_eq!(a, Fingerprint::of_file(&path).expect("fp"));
        assert_eq!(a, Fingerprint::of_bytes(b"same"));
        fs::write(&path, "diff").expect("change");
        assert_ne!(a, Fingerprint::of_file(&path).expect("fp"));
    }

    #[test]
    fn incremental_hash_equals_one_shot() {
        let mut h = Hasher::default();
        h.update(b"hello ");
        h.update(b"world");
        assert_eq!(h.finish(), Fingerprint::of_bytes(b"hello world"));
    }

    #[test]
    fn observer_records_and_forgets() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("f");
        fs::write(&path, "x").expect("write");
        let tracker = FileTracker::new();
        tracker.files_changed(
            dir.path(),
            &[FileChange {
                path: "f".into(),
                absolute: PathBuf::from("f"),
                kind: ChangeKind::Modified,
                old_size: Some(1),
                new_size: Some(1),
            }],
        );
        assert!(tracker.is_tracked(&path));
        fs::remove_file(&path).expect("rm");
        tracker.files_changed(
            dir.path(),
            &[FileChange {
                path: "f".into(),
                absolute: path.clone(),
                kind: ChangeKind::Deleted,
                old_size: Some(1),
                new_size: None,
            }],
        );
        assert!(!tracker.is_tracked(&path));
        assert!(tracker.is_empty());
    }
}
