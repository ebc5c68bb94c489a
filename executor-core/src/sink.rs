//! The redacting output sink: how a tool that bounds its own capture hands
//! the executor its *complete* output, so that a spill file a hint names
//! holds all of it.
//!
//! A tool asks its context for a sink ([`ToolContext::output_sink`](crate::ToolContext::output_sink)) once
//! its output no longer fits in memory, writes every byte of the output to
//! it (in chunks of any size, in order, including what it had buffered so
//! far) and calls [`OutputSink::finish`]. The bytes are decoded as lossy
//! UTF-8 and streamed through the executor's redactor into a new spill file
//! of the scratch directory (created exclusively, mode 0600): no unmasked
//! secret reaches the disk, and the file equals `redact(from_utf8_lossy(all
//! bytes))` exactly. The executor then uses that file as the call's output:
//! the limit stage names it in its spill message (with the character count
//! of the complete redacted output), or reads it back when it is small
//! enough to be shown.
//!
//! Memory is bounded whatever the output size: at most
//! [`SINK_CHUNK`] × [`SINK_QUEUE`] bytes are queued, plus the redactor's
//! stream buffer. Decoding, redaction and file writes run on tokio's
//! blocking pool, never on the task that polls the batch; a full queue
//! makes [`OutputSink::write`] wait (back-pressure), it never blocks a
//! thread of the runtime.
//!
//! A sink that is dropped without [`OutputSink::finish`] removes its file.
//!
//! ```
//! use toolexec_core::{OutputSinkConfig, ToolContext};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let scratch = tempfile::tempdir().unwrap();
//! let workspace = tempfile::tempdir().unwrap();
//! let ctx = ToolContext::new(workspace.path(), "1")
//!     .with_output_sink(Some(OutputSinkConfig::new(scratch.path())));
//! let mut sink = ctx.output_sink().expect("offered");
//! assert!(ctx.output_sink().is_none(), "one sink per call");
//! sink.write(b"line 1\nGITHUB_TOKEN=ghp_").await.unwrap();
//! sink.write(b"0123456789abcdefghijklmnopqrstuvwxyzAB\n").await.unwrap();
//! let out = sink.finish().await.unwrap();
//! let text = std::fs::read_to_string(&out.path).unwrap();
//! assert!(text.starts_with("line 1\n"));
//! assert!(!text.contains("ghp_0123"), "{text}");
//! assert_eq!(out.chars, text.chars().count() as u64);
//! // The executor picks the file up as the call's complete output.
//! assert_eq!(ctx.take_spilled_output(), Some(out));
//! # });
//! ```

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::tool::CallState;

/// Bytes per message queued from a tool to the sink's writer.
pub(crate) const SINK_CHUNK: usize = 64 * 1024;
/// Messages queued at most before [`OutputSink::write`] waits.
pub(crate) const SINK_QUEUE: usize = 8;

/// A file holding the complete, already redacted output of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpilledOutput {
    /// The spill file (in the scratch directory).
    pub path: PathBuf,
    /// Characters (Unicode scalar values) of its content.
    pub chars: u64,
    /// Lines of its content (`\n` count + 1).
    pub lines: u64,
    /// Bytes of its content.
    pub bytes: u64,
}

impl SpilledOutput {
    /// Describes the file at `path` with these counts.
    pub fn new(path: PathBuf, chars: u64, lines: u64, bytes: u64) -> Self {
        SpilledOutput {
            path,
            chars,
            lines,
            bytes,
        }
    }
}

/// Where a sink writes and what masks it: the scratch directory and the
/// redactor (the executor's own, so that the file equals one-shot
/// redaction of the output).
#[derive(Clone)]
pub struct OutputSinkConfig {
    dir: PathBuf,
    #[cfg(feature = "redact")]
    redactor: Option<Arc<toolexec_redact::Redactor>>,
}

impl fmt::Debug for OutputSinkConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSinkConfig")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl OutputSinkConfig {
    /// Sinks writing spill files into `scratch_dir`, masking with the
    /// built-in redactor rules (set another with
    /// [`redactor`](Self::redactor)).
    pub fn new(scratch_dir: impl Into<PathBuf>) -> Self {
        OutputSinkConfig {
            dir: scratch_dir.into(),
            #[cfg(feature = "redact")]
            redactor: Some(Arc::new(toolexec_redact::Redactor::builtin())),
        }
    }

    /// Masks with `redactor` (`None`: the output is written unmasked, as a
    /// pipeline without redaction would show it).
    #[cfg(feature = "redact")]
    pub fn redactor(mut self, redactor: Option<Arc<toolexec_redact::Redactor>>) -> Self {
        self.redactor = redactor;
        self
    }

    /// The scratch directory.
    pub fn scratch_dir(&self) -> &Path {
        &self.dir
    }
}

/// A redacting file sink for one call's complete output: how a tool that
/// bounds its own capture hands the executor its *complete* output, so that
/// "Full output was spilled" and every re-read hint stay true.
///
/// A tool asks its context for a sink ([`ToolContext::output_sink`](crate::ToolContext::output_sink)) once
/// its output no longer fits in memory, writes every byte of the output to
/// it (in chunks of any size, in order, including what it had buffered so
/// far) and calls [`OutputSink::finish`]. The bytes are decoded as lossy
/// UTF-8 and streamed through the executor's redactor into a new spill file
/// of the scratch directory (created exclusively, mode 0600): no unmasked
/// secret reaches the disk, and the file equals `redact(from_utf8_lossy(all
/// bytes))` exactly. The executor then uses that file as the call's output:
/// the limit stage names it in its spill message (with the character count
/// of the complete redacted output), or reads it back when it is small
/// enough to be shown.
///
/// Memory is bounded whatever the output size: at most
/// 64 KiB × 8 messages (512 KiB) are queued, plus the redactor's
/// stream buffer. Decoding, redaction and file writes run on tokio's
/// blocking pool, never on the task that polls the batch; a full queue
/// makes [`OutputSink::write`] wait (back-pressure), it never blocks a
/// thread of the runtime.
///
/// A sink that is dropped without [`OutputSink::finish`] removes its file.
///
/// ```
/// use toolexec_core::{OutputSinkConfig, ToolContext};
///
/// # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
/// let scratch = tempfile::tempdir().unwrap();
/// let workspace = tempfile::tempdir().unwrap();
/// let ctx = ToolContext::new(workspace.path(), "1")
///     .with_output_sink(Some(OutputSinkConfig::new(scratch.path())));
/// let mut sink = ctx.output_sink().expect("offered");
/// assert!(ctx.output_sink().is_none(), "one sink per call");
/// sink.write(b"line 1\nGITHUB_TOKEN=ghp_").await.unwrap();
/// sink.write(b"0123456789abcdefghijklmnopqrstuvwxyzAB\n").await.unwrap();
/// let out = sink.finish().await.unwrap();
/// let text = std::fs::read_to_string(&out.path).unwrap();
/// assert!(text.starts_with("line 1\n"));
/// assert!(!text.contains("ghp_0123"), "{text}");
/// assert_eq!(out.chars, text.chars().count() as u64);
/// // The executor picks the file up as the call's complete output.
/// assert_eq!(ctx.take_spilled_output(), Some(out));
/// # });
/// ```
///
pub struct OutputSink {
    tx: Option<tokio::sync::mpsc::Sender<Vec<u8>>>,
    worker: Option<tokio::task::JoinHandle<io::Result<SpilledOutput>>>,
    abandoned: Arc<AtomicBool>,
    state: Arc<CallState>,
    pending: Vec<u8>,
    written: u64,
}

impl fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSink")
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl OutputSink {
    pub(crate) fn start(config: &OutputSinkConfig, state: Arc<CallState>) -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(SINK_QUEUE);
        let abandoned = Arc::new(AtomicBool::new(false));
        let dir = config.dir.clone();
        #[cfg(feature = "redact")]
        let redactor = config.redactor.clone();
        let flag = abandoned.clone();
        let worker = tokio::task::spawn_blocking(move || {
            let reader = ChannelReader {
                rx,
                decoder: Lossy::default(),
                buf: Vec::new(),
                pos: 0,
                done: false,
            };
            #[cfg(feature = "redact")]
            let result = write_file(&dir, reader, redactor.as_deref());
            #[cfg(not(feature = "redact"))]
            let result = write_file(&dir, reader);
            if let Ok(out) = &result {
                if flag.load(Ordering::Acquire) {
                    let _ = std::fs::remove_file(&out.path);
                }
            }
            result
        });
        OutputSink {
            tx: Some(tx),
            worker: Some(worker),
            abandoned,
            state,
            pending: Vec::with_capacity(SINK_CHUNK),
            written: 0,
        }
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Appends `bytes` to the output. Waits while the queue is full.
    ///
    /// # Errors
    ///
    /// The spill file could not be created or written (full disk, no
    /// scratch directory): the sink is then unusable and its file removed;
    /// the tool should fall back to its bounded capture and say what it
    /// dropped.
    pub async fn write(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        self.written += bytes.len() as u64;
        while !bytes.is_empty() {
            let room = SINK_CHUNK - self.pending.len();
            let take = room.min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() == SINK_CHUNK {
                self.flush_pending().await?;
            }
        }
        Ok(())
    }

    async fn flush_pending(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.pending, Vec::with_capacity(SINK_CHUNK));
        let sent = match &self.tx {
            Some(tx) => tx.send(chunk).await.is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self.failure().await)
        }
    }

    /// The writer stopped early: its error.
    async fn failure(&mut self) -> io::Error {
        self.tx = None;
        match self.worker.take() {
            Some(worker) => match worker.await {
                Ok(Err(err)) => err,
                Ok(Ok(out)) => {
                    let _ = std::fs::remove_file(&out.path);
                    io::Error::other("the output sink stopped early")
                }
                Err(join) => io::Error::other(format!("the output sink failed: {join}")),
            },
            None => io::Error::other("the output sink already failed"),
        }
    }

    /// Ends the output: waits until every byte is redacted and on disk,
    /// and registers the file as the call's complete output (the executor
    /// takes it from the context when the tool returns; what the tool
    /// returns as text is then not used).
    ///
    /// # Errors
    ///
    /// As [`write`](Self::write); the file is removed.
    pub async fn finish(mut self) -> io::Result<SpilledOutput> {
        self.flush_pending().await?;
        self.tx = None;
        let Some(worker) = self.worker.as_mut() else {
            return Err(io::Error::other("the output sink already failed"));
        };
        // Dropped while waiting: the worker is still set, so Drop marks the
        // file abandoned and the worker removes it.
        let joined = worker.await;
        self.worker = None;
        let out = match joined {
            Ok(result) => result?,
            Err(join) => return Err(io::Error::other(format!("the output sink failed: {join}"))),
        };
        if let Ok(mut slot) = self.state.spilled.lock() {
            if let Some(old) = slot.replace(out.clone()) {
                let _ = std::fs::remove_file(old.path);
            }
        }
        Ok(out)
    }
}

impl Drop for OutputSink {
    fn drop(&mut self) {
        if self.worker.is_some() {
            // Not finished: the worker removes the file once the queue ends.
            self.abandoned.store(true, Ordering::Release);
        }
    }
}

/// Streams the decoded bytes through the redactor into a new spill file.
fn write_file(
    dir: &Path,
    reader: ChannelReader,
    #[cfg(feature = "redact")] redactor: Option<&toolexec_redact::Redactor>,
) -> io::Result<SpilledOutput> {
    let (file, path) = create(dir)?;
    let mut out = Counting {
        inner: io::BufWriter::with_capacity(256 * 1024, file),
        bytes: 0,
        chars: 0,
        newlines: 0,
    };
    let copied = (|| {
        #[cfg(feature = "redact")]
        match redactor {
            Some(redactor) => {
                redactor.redact_stream(reader, &mut out)?;
            }
            None => {
                io::copy(&mut { reader }, &mut out)?;
            }
        }
        #[cfg(not(feature = "redact"))]
        io::copy(&mut { reader }, &mut out)?;
        io::Write::flush(&mut out)
    })();
    match copied {
        Ok(()) => Ok(SpilledOutput::new(
            path,
            out.chars,
            out.newlines + 1,
            out.bytes,
        )),
        Err(err) => {
            drop(out);
            let _ = std::fs::remove_file(&path);
            Err(err)
        }
    }
}

#[cfg(feature = "limit")]
fn create(dir: &Path) -> io::Result<(std::fs::File, PathBuf)> {
    toolexec_limiter::create_spill_file(dir).map_err(io::Error::other)
}

#[cfg(not(feature = "limit"))]
fn create(dir: &Path) -> io::Result<(std::fs::File, PathBuf)> {
    let _ = dir;
    Err(io::Error::other(
        "spill files need the `limit` feature of toolexec-core",
    ))
}

/// Counts what goes to the file.
struct Counting<W> {
    inner: W,
    bytes: u64,
    chars: u64,
    newlines: u64,
}

impl<W: io::Write> io::Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        let done = &buf[..n];
        self.bytes += n as u64;
        self.chars += done.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64;
        self.newlines += memchr_count(done);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn memchr_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The blocking side of the queue, decoding lossy UTF-8 as it reads.
struct ChannelReader {
    rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
    decoder: Lossy,
    buf: Vec<u8>,
    pos: usize,
    done: bool,
}

impl io::Read for ChannelReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.buf.len() {
            if self.done {
                return Ok(0);
            }
            self.buf.clear();
            self.pos = 0;
            match self.rx.blocking_recv() {
                Some(chunk) => self.decoder.push(&chunk, &mut self.buf),
                None => {
                    self.decoder.finish(&mut self.buf);
                    self.done = true;
                }
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Streaming `String::from_utf8_lossy`: the same output for any split of
/// the input into chunks (an incomplete sequence at a chunk's end waits
/// for the next chunk).
#[derive(Debug, Default)]
pub(crate) struct Lossy {
    carry: Vec<u8>,
}

const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

impl Lossy {
    pub(crate) fn push(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let joined;
        let mut rest: &[u8] = if self.carry.is_empty() {
            input
        } else {
            let mut all = std::mem::take(&mut self.carry);
            all.extend_from_slice(input);
            joined = all;
            &joined
        };
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    out.extend_from_slice(valid.as_bytes());
                    return;
                }
                Err(err) => {
                    let valid = err.valid_up_to();
                    out.extend_from_slice(&rest[..valid]);
                    match err.error_len() {
                        Some(bad) => {
                            out.extend_from_slice(REPLACEMENT);
                            rest = &rest[valid + bad..];
                        }
                        None => {
                            self.carry = rest[valid..].to_vec();
                            return;
                        }
                    }
                }
            }
        }
    }

    pub(crate) fn finish(&mut self, out: &mut Vec<u8>) {
        if !self.carry.is_empty() {
            self.carry.clear();
            out.extend_from_slice(REPLACEMENT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Decoding in chunks equals `from_utf8_lossy` of the whole input.
        #[test]
        fn lossy_stream_equals_one_shot(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            cuts in proptest::collection::vec(0usize..200, 0..8),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut decoder = Lossy::default();
            let mut out = Vec::new();
            let mut at = 0;
            for cut in cuts.into_iter().chain(std::iter::once(bytes.len())) {
                decoder.push(&bytes[at..cut], &mut out);
                at = cut;
            }
            decoder.finish(&mut out);
            prop_assert_eq!(String::from_utf8(out).unwrap(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
}
