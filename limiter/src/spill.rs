//! Layer 1, spill: the whole content written to a new private scratch file
//! (`SCRATCH/tool_result_<unix-nanos>.txt`, created exclusively, mode 0600).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::LimitError;

/// How many names are tried before giving up ([`LimitError::NoFreeName`]).
const ATTEMPTS: u32 = 1000;

/// The last time stamp handed out in this process.
static LAST_STAMP: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds since the Unix epoch, strictly increasing within the process
/// so that two spills in the same nanosecond still get distinct names.
fn next_stamp() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    let mut prev = LAST_STAMP.load(Ordering::Relaxed);
    loop {
        let next = now.max(prev.saturating_add(1));
        match LAST_STAMP.compare_exchange_weak(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => prev = seen,
        }
    }
}

fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    // create_new = O_CREAT | O_EXCL: never overwrites, never follows a
    // symlink planted at the name.
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Writes `content` to a new `dir/tool_result_<unix-nanos>.txt` and returns
/// its path.
pub(crate) fn spill(dir: &Path, content: &str) -> Result<PathBuf, LimitError> {
    spill_with_stamps(dir, content, next_stamp)
}

/// Creates a new, empty spill file `dir/tool_result_<unix-nanos>.txt`
/// (exclusively, mode 0600, the directory 0700 when it is created) for a
/// caller that writes the content itself, e.g. as a stream.
///
/// The caller must write exactly the complete (redacted) output into it,
/// or remove it: a spill file is only ever named to the model as the whole
/// output.
///
/// ```
/// use std::io::Write;
/// let scratch = tempfile::tempdir()?;
/// let (mut file, path) = toolexec_limiter::create_spill_file(scratch.path())?;
/// file.write_all(b"all of it")?;
/// assert!(path.file_name().unwrap().to_str().unwrap().starts_with("tool_result_"));
/// assert_eq!(std::fs::read_to_string(&path)?, "all of it");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`LimitError::CreateScratchDir`], [`LimitError::CreateSpillFile`] or
/// [`LimitError::NoFreeName`].
pub fn create_spill_file(dir: &Path) -> Result<(File, PathBuf), LimitError> {
    create_with_stamps(dir, next_stamp)
}

fn create_with_stamps(
    dir: &Path,
    mut stamp: impl FnMut() -> u64,
) -> Result<(File, PathBuf), LimitError> {
    // Created 0700 when absent; an existing directory must be private to
    // this user (owner and mode checked before use).
    crate::scratch::ensure_private_dir(dir).map_err(|error| match error {
        crate::scratch::ScratchError::Io { source, .. } => LimitError::CreateScratchDir {
            path: dir.to_path_buf(),
            source,
        },
        other => LimitError::Scratch(other),
    })?;
    for _ in 0..ATTEMPTS {
        let path = dir.join(format!("tool_result_{}.txt", stamp()));
        match create_new(&path) {
            Ok(file) => return Ok((file, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(LimitError::CreateSpillFile { path, source }),
        }
    }
    Err(LimitError::NoFreeName {
        dir: dir.to_path_buf(),
        attempts: ATTEMPTS,
    })
}

fn spill_with_stamps(
    dir: &Path,
    content: &str,
    stamp: impl FnMut() -> u64,
) -> Result<PathBuf, LimitError> {
    let (mut file, path) = create_with_stamps(dir, stamp)?;
    match file
        .write_all(content.as_bytes())
        .and_then(|()| file.flush())
    {
        Ok(()) => Ok(path),
        Err(source) => {
            drop(file);
            // Best effort: a partial spill must not be mistaken for the
            // full output later.
            let _ = fs::remove_file(&path);
            Err(LimitError::WriteSpillFile { path, source })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_strictly_increase() {
        let a = next_stamp();
        let b = next_stamp();
        assert!(b > a);
    }

    #[test]
    fn a_taken_name_is_skipped_not_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let taken = dir.path().join("tool_result_5.txt");
        fs::write(&taken, "taken").expect("plant");
        let mut stamps = [5, 5, 6].into_iter();
        let path =
            spill_with_stamps(dir.path(), "fresh", || stamps.next().unwrap_or(7)).expect("spill");
        assert_eq!(path, dir.path().join("tool_result_6.txt"));
        assert_eq!(fs::read_to_string(&path).expect("read"), "fresh");
        assert_eq!(fs::read_to_string(&taken).expect("read"), "taken");
    }

    #[test]
    fn gives_up_after_every_name_is_taken() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("tool_result_1.txt"), "taken").expect("plant");
        let err = spill_with_stamps(dir.path(), "x", || 1).expect_err("all names taken");
        assert!(
            matches!(
                err,
                LimitError::NoFreeName {
                    attempts: ATTEMPTS,
                    ..
                }
            ),
            "{err}"
        );
    }
}
