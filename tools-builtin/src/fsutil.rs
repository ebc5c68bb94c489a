//! File helpers shared by the tools: atomic writes, bounded line reading,
//! binary detection, blocking-task plumbing.

use std::fs::File;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use crate::error::ToolsError;
use crate::jail::{mode_at, Jail};

/// How many leading bytes decide whether a file is binary.
pub(crate) const BINARY_PROBE: usize = 8 * 1024;

/// Whether these leading bytes of a file mark it as binary (a NUL byte,
/// as git and ripgrep decide).
pub(crate) fn looks_binary(head: &[u8]) -> bool {
    head.contains(&0)
}

/// Runs blocking file work off the async threads.
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, ToolsError>
where
    F: FnOnce() -> Result<T, ToolsError> + Send + 'static,
    T: Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(join) => Err(ToolsError::Internal {
            message: format!("blocking task failed: {join}"),
        }),
    }
}

/// Reads the next line into `buf` (cleared first) without its `\n`,
/// keeping at most `cap` bytes of it and skipping the rest. Returns the
/// full length of the line in bytes, or `None` at end of input. Memory use
/// is bounded by `cap` whatever the line length.
#[cfg(any(feature = "read", feature = "grep"))]
pub(crate) fn read_line_capped<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut total = 0usize;
    let mut started = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(started.then_some(total));
        }
        started = true;
        let (take, newline) = match memchr::memchr(b'\n', available) {
            Some(pos) => (pos, true),
            None => (available.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&available[..take.min(room)]);
        total = total.saturating_add(take);
        reader.consume(take + usize::from(newline));
        if newline {
            return Ok(Some(total));
        }
    }
}

/// Cuts `bytes` to at most `max` bytes without splitting a UTF-8
/// sequence (for valid UTF-8; invalid bytes are cut anywhere).
pub(crate) fn utf8_prefix(bytes: &[u8], max: usize) -> &[u8] {
    if bytes.len() <= max {
        return bytes;
    }
    let mut end = max;
    // Back up over at most three continuation bytes.
    while end > 0 && max - end < 3 && (bytes[end] & 0b1100_0000) == 0b1000_0000 {
        end -= 1;
    }
    if (bytes[end] & 0b1100_0000) != 0b1000_0000 {
        &bytes[..end]
    } else {
        &bytes[..max]
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `content` to the resolved path `path` atomically, entirely
/// through handles beneath the jail's root: the parent directory is opened
/// (missing directories created) with beneath-resolution, a temporary file
/// `.toolexec-PID-N.tmp` is created exclusively *in that directory handle*
/// (`openat(O_CREAT | O_EXCL | O_NOFOLLOW)`), written, given the
/// permissions of the file it replaces, synced, and renamed over the name
/// with `renameat` on the same handle. A directory swapped for a symbolic
/// link meanwhile cannot redirect any of these steps: the handle is the
/// directory that was checked. On any failure the temporary file is
/// removed and the original is untouched.
pub(crate) fn atomic_write(
    jail: &Jail,
    path: &Path,
    content: &[u8],
    display: &str,
) -> Result<(), ToolsError> {
    let (dir, name) = jail.open_parent(path, display, true)?;
    let permissions = mode_at(&dir, &name)
        .filter(|mode| mode & 0o170000 == 0o100000)
        .map(|mode| mode & 0o7777);

    let (tmp, mut file) = loop {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = format!(".toolexec-{}-{n}.tmp", std::process::id());
        match rustix::fs::openat(
            &dir,
            tmp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(fd) => break (tmp, File::from(fd)),
            Err(Errno::EXIST) => continue,
            Err(errno) => {
                return Err(ToolsError::Io {
                    op: "create a temporary file next to",
                    path: display.to_string(),
                    source: errno.into(),
                })
            }
        }
    };

    let written = (|| {
        file.write_all(content)?;
        if let Some(mode) = permissions {
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode))?;
        }
        file.sync_all()?;
        drop(file);
        rustix::fs::renameat(&dir, tmp.as_str(), &dir, name.as_os_str())?;
        Ok::<(), io::Error>(())
    })();
    if let Err(source) = written {
        let _ = rustix::fs::unlinkat(&dir, tmp.as_str(), AtFlags::empty());
        return Err(ToolsError::Io {
            op: "write",
            path: display.to_string(),
            source,
        });
    }
    Ok(())
}

/// Wraps a reader so that it fails with [`cancelled_io`] as soon as the call is cancelled: checked before every read of
/// the inner reader (at most 64 KiB, microseconds of work), so a tool
/// reading a huge file stops within one chunk of its deadline.
pub(crate) struct CancellableReader<'a, R> {
    pub(crate) inner: R,
    pub(crate) cancel: &'a dyn Fn() -> bool,
    /// Bytes handed out so far (tests assert on it).
    pub(crate) consumed: u64,
}

impl<R: std::io::Read> std::io::Read for CancellableReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if (self.cancel)() {
            return Err(cancelled_io());
        }
        let cap = buf.len().min(CHUNK);
        let n = self.inner.read(&mut buf[..cap])?;
        self.consumed += n as u64;
        Ok(n)
    }
}

/// Most bytes handled between two cancellation checks.
pub(crate) const CHUNK: usize = 64 * 1024;

/// The error inside [`cancelled_io`].
#[derive(Debug)]
pub(crate) struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the call was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// The I/O error a cancelled read fails with (not `Interrupted`, which
/// std's readers retry).
pub(crate) fn cancelled_io() -> io::Error {
    io::Error::other(Cancelled)
}

/// Whether an I/O error is [`cancelled_io`].
pub(crate) fn is_cancelled_io(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Cancelled>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    #[cfg(any(feature = "read", feature = "grep"))]
    #[test]
    fn capped_lines_bound_memory_and_count_everything() {
        let data = b"short\r\nthis is a long line\nlast";
        let mut reader = io::BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 100).unwrap(),
            Some(6)
        );
        assert_eq!(buf, b"short\r");
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 7).unwrap(),
            Some(19)
        );
        assert_eq!(buf, b"this is");
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 100).unwrap(),
            Some(4)
        );
        assert_eq!(buf, b"last");
        assert_eq!(read_line_capped(&mut reader, &mut buf, 100).unwrap(), None);
    }

    #[cfg(any(feature = "read", feature = "grep"))]
    #[test]
    fn empty_lines_are_lines() {
        let mut reader = io::BufReader::new(&b"\n\n"[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 10).unwrap(),
            Some(0)
        );
        assert_eq!(
            read_line_capped(&mut reader, &mut buf, 10).unwrap(),
            Some(0)
        );
        assert_eq!(read_line_capped(&mut reader, &mut buf, 10).unwrap(), None);
    }

    #[test]
    fn utf8_prefix_never_splits_a_character() {
        let s = "aé€😀b".as_bytes();
        for max in 0..=s.len() {
            let cut = utf8_prefix(s, max);
            assert!(cut.len() <= max);
            assert!(std::str::from_utf8(cut).is_ok(), "max {max}");
            assert!(max < 4 || cut.len() + 3 >= max);
        }
    }

    #[test]
    fn atomic_write_keeps_permissions_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        let jail = Jail::new(dir.path()).unwrap();
        let root = jail.root().to_path_buf();
        atomic_write(&jail, &root.join("script.sh"), b"new", "script.sh").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o751);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        atomic_write(&jail, &root.join("a/b/c.txt"), b"deep", "a/b/c.txt").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "deep"
        );
    }
}
