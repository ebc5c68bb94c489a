//! How the stream talks to its reader and writer: few large writes, reads
//! of any size, the same bytes as one-shot redaction.

use std::io::{self, Read, Write};

use toolexec_redact::{Redactor, StreamOptions};

/// Records the size of every write.
#[derive(Default)]
struct Counting {
    bytes: Vec<u8>,
    writes: Vec<usize>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Take at most 100 000 bytes at a time: the stream must finish
        // partial writes itself.
        let n = buf.len().min(100_000);
        self.bytes.extend_from_slice(&buf[..n]);
        self.writes.push(n);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Returns reads of the sizes given in turn, with an `Interrupted` error
/// before each.
struct Jerky<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl Read for Jerky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.turn += 1;
        if self.turn % 2 == 1 {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        let n = self.sizes[self.turn / 2 % self.sizes.len()]
            .min(buf.len())
            .min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn redactor() -> Redactor {
    Redactor::builder().env_values(false).build().unwrap()
}

/// 36 pseudo-random alphanumerics from `seed`.
fn token(mut seed: u64) -> String {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..36)
        .map(|_| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ALNUM[(seed >> 33) as usize % ALNUM.len()] as char
        })
        .collect()
}

fn log(lines: usize, secret_every: usize) -> String {
    let mut text = String::new();
    for i in 0..lines {
        if secret_every > 0 && i % secret_every == 0 {
            text.push_str(&format!(
                "[{i:>8}] deploy: export GITHUB_TOKEN=ghp_{}\n",
                token(i as u64)
            ));
        } else {
            text.push_str(&format!(
                "[{i:>8}] worker-{} finished job {} in {}.{:03}s\n",
                i % 7,
                i * 31 % 1000,
                i % 10,
                i % 1000
            ));
        }
    }
    text
}

#[test]
fn clean_text_goes_out_in_few_large_writes() {
    let r = redactor();
    let text = log(80_000, 0);
    assert!(text.len() > 3_000_000);
    let mut w = Counting::default();
    let stats = r.redact_stream(text.as_bytes(), &mut w).unwrap();
    assert_eq!(w.bytes, text.as_bytes());
    assert_eq!(stats.bytes_in, text.len() as u64);
    assert_eq!(stats.bytes_out, text.len() as u64);
    // The writer takes 100 000 bytes a call: one call per 100 000 bytes
    // and a few more per round, never one per line.
    assert!(
        w.writes.len() <= text.len() / 100_000 + 16,
        "{} writes for {} bytes",
        w.writes.len(),
        text.len()
    );
}

#[test]
fn secret_dense_text_streams_as_one_shot_whatever_the_reads() {
    let r = redactor();
    let text = log(40_000, 3);
    let one = r.redact(&text).into_owned();
    assert!(one.matches("[REDACTED:github-token]").count() >= 13_000);
    for sizes in [vec![1 << 20], vec![4096, 1, 70_000], vec![333_333, 17]] {
        let reader = Jerky {
            data: text.as_bytes(),
            sizes: sizes.clone(),
            turn: 0,
        };
        let mut w = Counting::default();
        let stats = r
            .redact_stream_with(
                reader,
                &mut w,
                StreamOptions {
                    chunk_size: 1 << 20,
                    ..StreamOptions::default()
                },
            )
            .unwrap();
        assert!(w.bytes == one.as_bytes(), "reads of {sizes:?}");
        assert_eq!(stats.bytes_out, one.len() as u64);
        assert_eq!(stats.bytes_in, text.len() as u64);
        // Masked text is gathered before it is written, not sent marker by marker.
        assert!(
            w.writes.len() * 20_000 <= one.len() + 20 * 20_000,
            "{}",
            w.writes.len()
        );
    }
    // Straight from the text in memory: the same bytes and counts, in
    // writes as large, with what the rounds are done with reported as it grows.
    for threads in [1, 2, 4] {
        let mut w = Counting::default();
        let mut done = Vec::new();
        let stats = r
            .with_threads(threads)
            .redact_slice_to(text.as_bytes(), &mut w, |n| done.push(n))
            .unwrap();
        assert!(w.bytes == one.as_bytes(), "{threads} threads");
        assert_eq!(stats.bytes_out, one.len() as u64);
        assert_eq!(stats.bytes_in, text.len() as u64);
        assert!(w.writes.len() * 20_000 <= one.len() + 20 * 20_000);
        // One batch of four rounds may hold the whole text; one round not.
        assert!(threads > 1 || !done.is_empty(), "{}", text.len());
        assert!(done.windows(2).all(|p| p[0] < p[1]));
        assert!(done.iter().all(|&n| n < text.len()));
    }
}
