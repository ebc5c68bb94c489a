//! The one error type of this crate.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a snapshot (or, with the `watch` feature, a watcher) could not be
/// taken.
///
/// Problems *inside* the tree are never errors: unreadable directories are
/// skipped and counted ([`Snapshot::unreadable`](crate::Snapshot::unreadable)),
/// files that vanish during the walk are simply absent. Only the root itself
/// and the configuration can fail.
#[derive(Debug)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The root does not exist.
    RootNotFound {
        /// The root as given.
        path: PathBuf,
    },
    /// The root exists but is not a directory (a file, a socket, …).
    RootNotADirectory {
        /// The root as given.
        path: PathBuf,
    },
    /// The root exists but could not be read (permissions, I/O error).
    RootUnreadable {
        /// The root as given.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// An extra root given to the watcher cannot be used: missing, not a
    /// directory, badly named, or overlapping another root.
    InvalidWatchRoot {
        /// The root's name.
        name: String,
        /// The root as given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A skipped-file pattern of the [`Bounds`](crate::Bounds) is not a valid
    /// glob.
    InvalidPattern {
        /// The pattern as configured.
        pattern: String,
        /// The glob parser's message.
        message: String,
    },
}

impl SnapshotError {
    /// The path the error is about, if any.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            SnapshotError::RootNotFound { path }
            | SnapshotError::RootNotADirectory { path }
            | SnapshotError::RootUnreadable { path, .. }
            | SnapshotError::InvalidWatchRoot { path, .. } => Some(path),
            SnapshotError::InvalidPattern { .. } => None,
        }
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::RootNotFound { path } => {
                write!(f, "snapshot root {} does not exist", path.display())
            }
            SnapshotError::RootNotADirectory { path } => {
                write!(f, "snapshot root {} is not a directory", path.display())
            }
            SnapshotError::RootUnreadable { path, source } => {
                write!(
                    f,
                    "snapshot root {} cannot be read: {source}",
                    path.display()
                )
            }
            SnapshotError::InvalidWatchRoot { name, path, reason } => {
                write!(
                    f,
                    "watch root {name} ({}) cannot be used: {reason}",
                    path.display()
                )
            }
            SnapshotError::InvalidPattern { pattern, message } => {
                write!(f, "invalid skipped-file pattern {pattern:?}: {message}")
            }
        }
    }
}

impl std::error::Error for SnapshotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SnapshotError::RootUnreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}
