//! The private scratch directory (mode 0700, owner checked; one that
//! another user owns or that is group/world-writable is refused): a
//! per-user root, one
//! subdirectory per session, and the check that lets `read` open only a
//! session's own spill files.

use std::ffi::OsStr;
use std::fmt;
use std::fs::{self, DirBuilder, File, Metadata};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use rustix::fs::{Mode, OFlags};

/// Spill files older than this (24 h) are removed when a session starts.
pub const SPILL_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Prefix of the per-workspace session directories (`toolexec run`).
const WORKSPACE_PREFIX: &str = "ws-";
/// Prefix of the per-process / per-connection session directories.
const EPHEMERAL_PREFIX: &str = "session-";

static SESSION_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Why a scratch directory or spill file was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScratchError {
    /// The directory could not be created or inspected.
    Io {
        /// What was being done.
        op: &'static str,
        /// The directory or file.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The directory is not private to this user: another owner, group- or
    /// world-writable, a symbolic link or not a directory at all.
    NotPrivate {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it, e.g. `it is owned by uid 0, not by this
        /// user (uid 1000)` or `it has mode 0777 (group- or world-writable)`.
        reason: String,
    },
    /// A path that is not one of this session's spill files.
    NotOwnSpillFile {
        /// The path as given.
        path: PathBuf,
        /// Why (another directory, not a spill file name, not a regular file).
        reason: String,
    },
}

impl fmt::Display for ScratchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScratchError::Io { op, path, source } => {
                write!(f, "cannot {op} {}: {source}", path.display())
            }
            ScratchError::NotPrivate { path, reason } => write!(
                f,
                "scratch directory {} is not private to this user: {reason}; \
                 remove it or choose another with --scratch",
                path.display()
            ),
            ScratchError::NotOwnSpillFile { path, reason } => write!(
                f,
                "{} is not a spill file of this session: {reason}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ScratchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ScratchError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The effective uid of this process.
fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether `name` is a spill file name: `tool_result_<digits>.txt`.
#[must_use]
pub fn is_spill_file_name(name: &OsStr) -> bool {
    name.to_str()
        .and_then(|n| n.strip_prefix("tool_result_"))
        .and_then(|n| n.strip_suffix(".txt"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Refuses `meta` (of `path`, from `lstat`) unless it is a directory owned
/// by this user that neither group nor others may write.
fn check_private(path: &Path, meta: &Metadata) -> Result<(), ScratchError> {
    let refuse = |reason: String| {
        Err(ScratchError::NotPrivate {
            path: path.to_path_buf(),
            reason,
        })
    };
    if meta.file_type().is_symlink() {
        return refuse("it is a symbolic link".to_string());
    }
    if !meta.is_dir() {
        return refuse("it is not a directory".to_string());
    }
    let me = euid();
    if meta.uid() != me {
        return refuse(format!(
            "it is owned by uid {}, not by this user (uid {me})",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return refuse(format!("it has mode {mode:04o} (group- or world-writable)"));
    }
    Ok(())
}

/// Creates `dir` (mode 0700, missing parents too) when absent, then checks
/// that it is private to this user: a directory (not a symbolic link) owned
/// by the effective uid, not group- or world-writable. The limiter calls it
/// before every spill.
pub fn ensure_private_dir(dir: &Path) -> Result<(), ScratchError> {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut builder = DirBuilder::new();
            builder.recursive(true).mode(0o700);
            builder.create(dir).map_err(|source| ScratchError::Io {
                op: "create scratch directory",
                path: dir.to_path_buf(),
                source,
            })?;
            fs::symlink_metadata(dir).map_err(|source| ScratchError::Io {
                op: "inspect scratch directory",
                path: dir.to_path_buf(),
                source,
            })?
        }
        Err(source) => {
            return Err(ScratchError::Io {
                op: "inspect scratch directory",
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    check_private(dir, &meta)
}

/// Lexical normalization of an absolute path (`.` dropped, `..` applied).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Opens `path` for reading if, and only if, it is a spill file directly in
/// `dir`: the name is `tool_result_<digits>.txt`, the parent is `dir`
/// (compared after lexical normalization), and the file is a regular file
/// owned by this user. The last component is opened with `O_NOFOLLOW` and
/// `O_NONBLOCK` and checked with `fstat` on the open descriptor, so a
/// symbolic link or FIFO planted under the name is refused without
/// blocking. `dir` itself must be private ([`ensure_private_dir`]'s
/// check, without creating it).
pub fn open_spill_file(dir: &Path, path: &Path) -> Result<File, ScratchError> {
    let refuse = |reason: &str| {
        Err(ScratchError::NotOwnSpillFile {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        })
    };
    if !path.is_absolute() {
        return refuse("not an absolute path");
    }
    let normalized = normalize(path);
    let (Some(parent), Some(name)) = (normalized.parent(), normalized.file_name()) else {
        return refuse("not a file path");
    };
    if parent != normalize(dir) {
        return refuse("it is not in this session's scratch directory");
    }
    if !is_spill_file_name(name) {
        return refuse("only files named tool_result_<digits>.txt can be read there");
    }
    let dir_meta = fs::symlink_metadata(dir).map_err(|source| ScratchError::Io {
        op: "inspect scratch directory",
        path: dir.to_path_buf(),
        source,
    })?;
    check_private(dir, &dir_meta)?;
    let fd = rustix::fs::open(
        &normalized,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|errno| {
        let source = io::Error::from(errno);
        if errno == rustix::io::Errno::LOOP {
            ScratchError::NotOwnSpillFile {
                path: path.to_path_buf(),
                reason: "it is a symbolic link".to_string(),
            }
        } else {
            ScratchError::Io {
                op: "open spill file",
                path: path.to_path_buf(),
                source,
            }
        }
    })?;
    let file = File::from(fd);
    let meta = file.metadata().map_err(|source| ScratchError::Io {
        op: "inspect spill file",
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_file() {
        return refuse("it is not a regular file");
    }
    if meta.uid() != euid() {
        return refuse("it is owned by another user");
    }
    Ok(file)
}

/// A checked per-user scratch root: every session of this user gets a
/// subdirectory of it.
///
/// ```
/// use toolexec_limiter::ScratchRoot;
///
/// let base = tempfile::tempdir()?;
/// let root = ScratchRoot::open(base.path().join("scratch"))?;
/// let a = root.ephemeral_session()?;
/// let b = root.ephemeral_session()?;
/// assert_ne!(a.dir(), b.dir());
/// let dir = a.dir().to_path_buf();
/// drop(a); // an ephemeral session's directory goes with it
/// assert!(!dir.exists());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ScratchRoot {
    path: PathBuf,
}

impl ScratchRoot {
    /// The default root: `toolexec-<uid>` in the system temp directory.
    #[must_use]
    pub fn default_path() -> PathBuf {
        std::env::temp_dir().join(format!("toolexec-{}", euid()))
    }

    /// [`ScratchRoot::open`] of [`ScratchRoot::default_path`].
    pub fn open_default() -> Result<Self, ScratchError> {
        Self::open(Self::default_path())
    }

    /// Opens (creating it with mode 0700 when absent) the root at `path`
    /// and checks it: a directory, not a symbolic link, owned by this user,
    /// not group- or world-writable. A relative path is made absolute
    /// against the current directory, then canonicalized, so that spill
    /// messages name a path that can be read back from anywhere.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, ScratchError> {
        let path = path.into();
        let path = std::path::absolute(&path).map_err(|source| ScratchError::Io {
            op: "resolve scratch directory",
            path: path.clone(),
            source,
        })?;
        ensure_private_dir(&path)?;
        let path = fs::canonicalize(&path).map_err(|source| ScratchError::Io {
            op: "resolve scratch directory",
            path: path.clone(),
            source,
        })?;
        Ok(ScratchRoot { path })
    }

    /// The root directory (canonical).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The session of a workspace (`toolexec run`): the directory
    /// `ws-<hash of the workspace path>`, the same for every run on that
    /// workspace, so one run can read the spill files of an earlier one.
    /// Kept when the session is dropped. Sweeps old spill files first
    /// ([`ScratchRoot::sweep`]).
    pub fn workspace_session(&self, workspace: &Path) -> Result<ScratchSession, ScratchError> {
        let workspace = fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let name = format!(
            "{WORKSPACE_PREFIX}{:016x}",
            fnv1a(workspace.as_os_str().as_encoded_bytes())
        );
        self.sweep(SPILL_MAX_AGE);
        let dir = self.path.join(name);
        ensure_private_dir(&dir)?;
        Ok(ScratchSession {
            dir,
            remove_on_drop: false,
        })
    }

    /// A new session of its own (an MCP server process, one HTTP session):
    /// a fresh directory `session-<pid>-<n>-<nanos>`, removed with its
    /// files when the [`ScratchSession`] is dropped. Sweeps old spill files
    /// first ([`ScratchRoot::sweep`]).
    pub fn ephemeral_session(&self) -> Result<ScratchSession, ScratchError> {
        self.sweep(SPILL_MAX_AGE);
        loop {
            let n = SESSION_COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let dir = self.path.join(format!(
                "{EPHEMERAL_PREFIX}{}-{n}-{nanos}",
                std::process::id()
            ));
            let mut builder = DirBuilder::new();
            builder.mode(0o700);
            match builder.create(&dir) {
                Ok(()) => {
                    return Ok(ScratchSession {
                        dir,
                        remove_on_drop: true,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(source) => {
                    return Err(ScratchError::Io {
                        op: "create session directory",
                        path: dir,
                        source,
                    })
                }
            }
        }
    }

    /// Removes spill files older than `max_age` (by modification time) in
    /// the root and in every session directory, then session directories
    /// left empty whose own modification time is older than `max_age`.
    /// Symbolic links and entries of other owners are left alone. Best
    /// effort; returns how many spill files were removed.
    pub fn sweep(&self, max_age: Duration) -> usize {
        let now = SystemTime::now();
        let old = |meta: &Metadata| {
            meta.modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > max_age)
        };
        let me = euid();
        let mut removed = 0;
        let mut sweep_files = |dir: &Path| {
            let Ok(entries) = fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let Ok(meta) = entry.metadata() else { continue };
                if meta.is_file()
                    && meta.uid() == me
                    && is_spill_file_name(&entry.file_name())
                    && old(&meta)
                    && fs::remove_file(entry.path()).is_ok()
                {
                    removed += 1;
                }
            }
        };
        sweep_files(&self.path);
        let Ok(entries) = fs::read_dir(&self.path) else {
            return removed;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if !(name.starts_with(WORKSPACE_PREFIX) || name.starts_with(EPHEMERAL_PREFIX)) {
                continue;
            }
            // `DirEntry::metadata` does not follow symbolic links.
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_dir() || meta.uid() != me {
                continue;
            }
            let path = entry.path();
            sweep_files(&path);
            if let Ok(meta) = fs::symlink_metadata(&path) {
                if old(&meta) {
                    // Fails (harmlessly) unless the directory is empty.
                    let _ = fs::remove_dir(&path);
                }
            }
        }
        removed
    }
}

/// One session's scratch directory. Spill files of the session go here
/// (use [`ScratchSession::dir`] as [`Limits::scratch_dir`](crate::Limits));
/// `read` may open outside the workspace only the files that
/// [`ScratchSession::is_own_spill_file`] accepts.
#[derive(Debug)]
pub struct ScratchSession {
    dir: PathBuf,
    remove_on_drop: bool,
}

impl ScratchSession {
    /// The session's directory (absolute, canonical).
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the directory is removed when the session is dropped
    /// (ephemeral sessions: yes; workspace sessions: no).
    #[must_use]
    pub fn removes_on_drop(&self) -> bool {
        self.remove_on_drop
    }

    /// Keeps the directory when the session is dropped.
    pub fn keep(&mut self) {
        self.remove_on_drop = false;
    }

    /// Whether `path` is one of this session's spill files: directly in
    /// [`ScratchSession::dir`], named `tool_result_<digits>.txt`, a regular
    /// file (not a symbolic link) owned by this user.
    #[must_use]
    pub fn is_own_spill_file(&self, path: &Path) -> bool {
        self.open_spill_file(path).is_ok()
    }

    /// Opens one of this session's spill files for reading
    /// ([`open_spill_file`] with this session's directory).
    pub fn open_spill_file(&self, path: &Path) -> Result<File, ScratchError> {
        open_spill_file(&self.dir, path)
    }
}

impl Drop for ScratchSession {
    fn drop(&mut self) {
        if self.remove_on_drop {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// 64-bit FNV-1a: a stable hash for session names (the same on every run
/// and toolchain, unlike `DefaultHasher`).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn spill_names() {
        assert!(is_spill_file_name(OsStr::new(
            "tool_result_1791784113234832000.txt"
        )));
        for bad in [
            "tool_result_.txt",
            "tool_result_1.txt.bak",
            "x.txt",
            "tool_result_1a.txt",
        ] {
            assert!(!is_spill_file_name(OsStr::new(bad)), "{bad}");
        }
    }

    #[test]
    fn world_writable_root_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let root = base.path().join("r");
        fs::create_dir(&root).unwrap();
        fs::set_permissions(&root, fs::Permissions::from_mode(0o777)).unwrap();
        let err = ScratchRoot::open(&root).unwrap_err();
        assert!(err.to_string().contains("mode 0777"), "{err}");
    }

    #[test]
    fn workspace_sessions_are_stable_and_kept() {
        let base = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ScratchRoot::open(base.path().join("r")).unwrap();
        let a = root.workspace_session(ws.path()).unwrap();
        let dir = a.dir().to_path_buf();
        drop(a);
        assert!(dir.is_dir());
        assert_eq!(root.workspace_session(ws.path()).unwrap().dir(), dir);
        let other = tempfile::tempdir().unwrap();
        assert_ne!(root.workspace_session(other.path()).unwrap().dir(), dir);
    }

    #[test]
    fn sweep_removes_only_old_spill_files() {
        let base = tempfile::tempdir().unwrap();
        let root = ScratchRoot::open(base.path().join("r")).unwrap();
        let s = root.ephemeral_session().unwrap();
        let spill = s.dir().join("tool_result_1.txt");
        let other = s.dir().join("notes.txt");
        let fresh = s.dir().join("tool_result_2.txt");
        let two_days_ago = SystemTime::now() - 2 * SPILL_MAX_AGE;
        for path in [&spill, &other] {
            fs::write(path, "x").unwrap();
            File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(two_days_ago)
                .unwrap();
        }
        fs::write(&fresh, "x").unwrap();
        assert_eq!(root.sweep(SPILL_MAX_AGE), 1);
        assert!(!spill.exists());
        assert!(other.exists(), "only spill files are swept");
        assert!(fresh.exists(), "young spill files stay");
        // A new session sweeps too.
        fs::write(&spill, "x").unwrap();
        File::options()
            .write(true)
            .open(&spill)
            .unwrap()
            .set_modified(two_days_ago)
            .unwrap();
        let _t = root.ephemeral_session().unwrap();
        assert!(!spill.exists());
    }
}
