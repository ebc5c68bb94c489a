//! The limiter's one error type.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a spill file could not be written.
///
/// [`Limiter::limit`](crate::Limiter::limit) never returns it as a failure:
/// the model then gets the truncated content plus one line quoting this
/// error, and the error itself is kept in
/// [`Limited::spill_error`](crate::Limited::spill_error).
#[derive(Debug)]
#[non_exhaustive]
pub enum LimitError {
    /// The scratch directory did not exist and could not be created (or the
    /// path exists and is not a directory).
    CreateScratchDir {
        /// The scratch directory.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The spill file could not be created in the scratch directory.
    CreateSpillFile {
        /// The file that was to be created.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The spill file was created but writing it failed (full disk, quota);
    /// the partial file has been removed.
    WriteSpillFile {
        /// The file being written.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The scratch directory exists but is not private to this user
    /// (another owner, group- or world-writable, a symbolic link).
    Scratch(crate::scratch::ScratchError),
    /// Every candidate file name was already taken.
    NoFreeName {
        /// The scratch directory.
        dir: PathBuf,
        /// How many names were tried.
        attempts: u32,
    },
}

impl LimitError {
    /// The path the failure is about (the scratch directory or the file).
    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        match self {
            LimitError::CreateScratchDir { path, .. }
            | LimitError::CreateSpillFile { path, .. }
            | LimitError::WriteSpillFile { path, .. } => path,
            LimitError::NoFreeName { dir, .. } => dir,
            LimitError::Scratch(crate::scratch::ScratchError::Io { path, .. })
            | LimitError::Scratch(crate::scratch::ScratchError::NotPrivate { path, .. })
            | LimitError::Scratch(crate::scratch::ScratchError::NotOwnSpillFile { path, .. }) => {
                path
            }
        }
    }
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::CreateScratchDir { path, source } => {
                write!(
                    f,
                    "cannot create scratch directory {}: {source}",
                    path.display()
                )
            }
            LimitError::CreateSpillFile { path, source } => {
                write!(f, "cannot create spill file {}: {source}", path.display())
            }
            LimitError::WriteSpillFile { path, source } => {
                write!(f, "cannot write spill file {}: {source}", path.display())
            }
            LimitError::Scratch(error) => write!(f, "{error}"),
            LimitError::NoFreeName { dir, attempts } => {
                write!(
                    f,
                    "no free spill file name in {} after {attempts} attempts",
                    dir.display()
                )
            }
        }
    }
}

impl std::error::Error for LimitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LimitError::CreateScratchDir { source, .. }
            | LimitError::CreateSpillFile { source, .. }
            | LimitError::WriteSpillFile { source, .. } => Some(source),
            LimitError::Scratch(error) => Some(error),
            LimitError::NoFreeName { .. } => None,
        }
    }
}
