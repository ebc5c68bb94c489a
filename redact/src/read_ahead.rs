//! A reader that reads its source on a thread of its own, so that a stream
//! redacting a pipe does not stop judging while it reads.

use std::io::{self, Read};
use std::sync::mpsc;

/// Reads a source on a thread of its own into a bounded queue; reads from
/// it take what the thread has read so far, and wait only when nothing is
/// queued.
///
/// A stream ([`Redactor::redact_stream`](crate::Redactor::redact_stream))
/// reads its input between batches of rounds, while its workers wait. From
/// a file that costs little (and [`RedactorBuilder::read_ahead`](crate::RedactorBuilder::read_ahead)
/// reads a file ahead while the rounds are judged); from a pipe it is a
/// few dozen `read` calls of at most 64 KiB per batch, each waiting for the
/// writer. This reader moves those calls to a thread of its own, which
/// reads while the batches are judged.
///
/// Unlike reading ahead on the stream's own thread, it never delays the
/// output: the stream still reads only when it needs input (after writing
/// what it judged), and takes what is queued at once. So a producer that
/// waits for the redacted output before it writes more (an interactive
/// protocol) is not kept waiting; a queue that is empty waits as a plain
/// read would.
///
/// Memory: at most `depth` pieces of at most `piece` bytes are queued (the
/// thread then waits for the queue to drain). The output is the same as
/// reading the source directly: bytes come in order, the end and a failure
/// where the source gave them.
///
/// Dropping the reader before its source ended leaves the thread in its
/// current `read`: it ends as soon as that read returns.
///
/// # Example
///
/// ```
/// use toolexec_redact::{ReadAhead, Redactor};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let input = "GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n";
/// let mut out = Vec::new();
/// Redactor::builtin().redact_stream(ReadAhead::new(input.as_bytes()), &mut out)?;
/// assert_eq!(out, b"GITHUB_TOKEN=[REDACTED:github-token]\n");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ReadAhead {
    queue: mpsc::Receiver<io::Result<Vec<u8>>>,
    /// The piece being read from, and how much of it was taken.
    piece: Vec<u8>,
    taken: usize,
    /// The source ended or failed (nothing more comes from the queue).
    done: bool,
}

/// Default piece: the most one `read` asks of the source.
const PIECE: usize = 256 << 10;

/// Default depth: pieces queued at most (2 MiB with full pieces, one batch
/// of rounds on two threads: the thread stays a batch ahead of the stream).
const DEPTH: usize = 8;

impl ReadAhead {
    /// Reads `source` on a new thread, at most 8 pieces of at most 256 KiB
    /// queued.
    pub fn new<R: Read + Send + 'static>(source: R) -> ReadAhead {
        ReadAhead::with_queue(source, PIECE, DEPTH)
    }

    /// Reads `source` on a new thread, at most `depth` pieces of at most
    /// `piece` bytes queued (each at least 1).
    pub fn with_queue<R: Read + Send + 'static>(
        mut source: R,
        piece: usize,
        depth: usize,
    ) -> ReadAhead {
        let piece = piece.max(1);
        let (tx, queue) = mpsc::sync_channel(depth.max(1));
        let spawned = std::thread::Builder::new()
            .name("toolexec-redact-read".into())
            .spawn(move || {
                let mut buf = vec![0u8; piece];
                loop {
                    let sent = match source.read(&mut buf) {
                        Ok(0) => return,
                        Ok(n) => tx.send(Ok(buf[..n].to_vec())),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    if sent.is_err() {
                        // The reader was dropped: nobody reads any more.
                        return;
                    }
                }
            });
        let mut reader = ReadAhead {
            queue,
            piece: Vec::new(),
            taken: 0,
            done: false,
        };
        if let Err(e) = spawned {
            // No thread: the first read says why, and nothing is lost (the
            // source was moved into the closure that never ran, so nothing
            // of it was read).
            let (tx, queue) = mpsc::sync_channel(1);
            let _ = tx.send(Err(e));
            reader.queue = queue;
        }
        reader
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.taken == self.piece.len() {
            if self.done {
                return Ok(0);
            }
            match self.queue.recv() {
                Ok(Ok(piece)) => {
                    self.piece = piece;
                    self.taken = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // The thread ended without an error: the source's end.
                Err(mpsc::RecvError) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = (self.piece.len() - self.taken).min(buf.len());
        buf[..n].copy_from_slice(&self.piece[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A source that gives its bytes in reads of the given sizes, then
    /// fails or ends.
    struct Pieces {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        k: usize,
        fail: bool,
    }

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.at == self.data.len() {
                return if self.fail {
                    Err(io::Error::other("source failed"))
                } else {
                    Ok(0)
                };
            }
            if self.k % 5 == 4 {
                self.k += 1;
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            let want = self.sizes[self.k % self.sizes.len()].max(1);
            self.k += 1;
            let n = want.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    #[test]
    fn a_failing_source_fails_after_its_bytes() {
        let src = Pieces {
            data: b"abcdef".to_vec(),
            at: 0,
            sizes: vec![2],
            k: 0,
            fail: true,
        };
        let mut r = ReadAhead::with_queue(src, 4, 1);
        let mut got = Vec::new();
        let err = r.read_to_end(&mut got).unwrap_err();
        assert_eq!(got, b"abcdef");
        assert_eq!(err.to_string(), "source failed");
        // After the failure, the end.
        assert_eq!(r.read(&mut [0u8; 4]).unwrap(), 0);
    }

    #[test]
    fn redacting_through_it_is_redacting_the_source() {
        let text = "password=hunter2-Zq9vK2mL7pXw\nGITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"
            .repeat(3000);
        let redactor = crate::Redactor::builtin().with_threads(2);
        let mut direct = Vec::new();
        redactor
            .redact_stream(text.as_bytes(), &mut direct)
            .unwrap();
        let mut ahead = Vec::new();
        redactor
            .redact_stream(
                ReadAhead::with_queue(std::io::Cursor::new(text.clone().into_bytes()), 1000, 3),
                &mut ahead,
            )
            .unwrap();
        assert_eq!(ahead, direct);
        assert!(String::from_utf8(ahead)
            .unwrap()
            .contains("[REDACTED:github-token]"));
    }

    proptest! {
        /// Whatever the source's read sizes and the queue, the bytes come
        /// out as the source gave them, then the end.
        #[test]
        fn reads_give_the_sources_bytes_in_order(
            data in proptest::collection::vec(any::<u8>(), 0..5000),
            sizes in proptest::collection::vec(1usize..700, 1..8),
            piece in 1usize..900,
            depth in 1usize..4,
            take in 1usize..600,
        ) {
            let src = Pieces { data: data.clone(), at: 0, sizes, k: 0, fail: false };
            let mut r = ReadAhead::with_queue(src, piece, depth);
            let mut got = Vec::new();
            let mut buf = vec![0u8; take];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            prop_assert_eq!(got, data);
            prop_assert_eq!(r.read(&mut buf).unwrap(), 0);
        }
    }
}
