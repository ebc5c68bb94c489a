//! exec's output capture: bounded memory, and the complete output through
//! the executor's redacting sink once it no longer fits, so that the spill
//! file a result names holds the complete redacted output.
//!
//! Up to the capture cap everything stays in memory and the output is
//! returned as text. The first write past the cap asks the context for its
//! output sink ([`ToolContext::output_sink`]) and streams everything — what
//! was buffered, all that follows and the closing notes and status line —
//! through it, so the executor gets the complete redacted output as a spill
//! file and "Full output was spilled" is true for any size. Memory stays
//! bounded meanwhile: the in-memory capture keeps only its first and last
//! halves (for the partial output shown after a timeout, and as the
//! fallback). Without a sink (no executor limits), or when the sink fails
//! (full disk), the result is the head and the tail with a line
//! `[... N bytes dropped ...]` between them, and, for a failed sink, a note
//! saying why the complete output could not be kept.

use toolexec_core::{OutputSink, ToolContext};

/// Output kept within a fixed budget: the first `head_cap` bytes, the last
/// `tail_cap` bytes (a ring), and the count of everything in between.
pub(crate) struct Capture {
    head: Vec<u8>,
    head_cap: usize,
    tail: Vec<u8>,
    tail_cap: usize,
    /// Next write position in `tail` once it is full.
    tail_pos: usize,
    total: u64,
}

impl Capture {
    pub(crate) fn new(cap: usize) -> Self {
        let cap = cap.max(2);
        let head_cap = cap / 2;
        Capture {
            head: Vec::new(),
            head_cap,
            tail: Vec::new(),
            tail_cap: cap - head_cap,
            tail_pos: 0,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut data: &[u8]) {
        self.total += data.len() as u64;
        if self.head.len() < self.head_cap {
            let take = data.len().min(self.head_cap - self.head.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
        }
        if data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            self.tail.clear();
            self.tail
                .extend_from_slice(&data[data.len() - self.tail_cap..]);
            self.tail_pos = 0;
            return;
        }
        if self.tail.len() < self.tail_cap {
            let take = data.len().min(self.tail_cap - self.tail.len());
            self.tail.extend_from_slice(&data[..take]);
            data = &data[take..];
            if data.is_empty() {
                return;
            }
        }
        // The ring is full: overwrite from tail_pos, wrapping once at most.
        let first = data.len().min(self.tail_cap - self.tail_pos);
        self.tail[self.tail_pos..self.tail_pos + first].copy_from_slice(&data[..first]);
        let rest = &data[first..];
        self.tail[..rest.len()].copy_from_slice(rest);
        self.tail_pos = (self.tail_pos + data.len()) % self.tail_cap;
    }

    /// Every byte received, in order, while nothing was dropped yet.
    fn all(&self) -> Option<Vec<u8>> {
        if self.total > (self.head.len() + self.tail.len()) as u64 {
            return None;
        }
        let mut all = Vec::with_capacity(self.head.len() + self.tail.len());
        all.extend_from_slice(&self.head);
        all.extend_from_slice(&self.tail[self.tail_pos..]);
        all.extend_from_slice(&self.tail[..self.tail_pos]);
        Some(all)
    }

    /// Bytes received in all.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The kept bytes as text: head, `[... N bytes dropped ...]`, tail.
    pub(crate) fn render(&self) -> String {
        let mut tail = Vec::with_capacity(self.tail.len());
        tail.extend_from_slice(&self.tail[self.tail_pos..]);
        tail.extend_from_slice(&self.tail[..self.tail_pos]);
        let kept = (self.head.len() + tail.len()) as u64;
        let dropped = self.total - kept;
        if dropped == 0 {
            let mut all = self.head.clone();
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        // Do not start the tail inside a UTF-8 sequence.
        let skip = tail
            .iter()
            .take(3)
            .take_while(|&&b| (b & 0b1100_0000) == 0b1000_0000)
            .count();
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[... {} bytes dropped ...]\n",
            dropped + skip as u64
        ));
        out.push_str(&String::from_utf8_lossy(&tail[skip..]));
        out
    }
}

/// Where the output goes.
enum Sink {
    /// Everything still fits in memory.
    NotNeeded,
    /// The complete output streams through the executor's sink.
    Active(OutputSink),
    /// The executor offers no sink: head and tail only.
    Unavailable,
    /// The sink failed: head and tail, and why.
    Failed(String),
}

/// The output of one exec call.
pub(crate) struct Output {
    capture: Capture,
    cap: usize,
    sink: Sink,
    ctx: ToolContext,
    /// The last byte received (to end the text with `\n` before the notes).
    last: Option<u8>,
}

impl Output {
    /// Keeps `cap` bytes in memory; `ctx` offers the sink.
    pub(crate) fn new(cap: usize, ctx: &ToolContext) -> Self {
        Output {
            capture: Capture::new(cap),
            cap: cap.max(2),
            sink: Sink::NotNeeded,
            ctx: ctx.clone(),
            last: None,
        }
    }

    /// Takes the next bytes of the output.
    pub(crate) async fn push(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        self.last = data.last().copied();
        if matches!(self.sink, Sink::NotNeeded)
            && self.capture.total() + data.len() as u64 > self.cap as u64
        {
            self.sink = match self.ctx.output_sink() {
                None => Sink::Unavailable,
                Some(mut sink) => {
                    let so_far = self.capture.all().unwrap_or_default();
                    match sink.write(&so_far).await {
                        Ok(()) => Sink::Active(sink),
                        Err(err) => Sink::Failed(err.to_string()),
                    }
                }
            };
        }
        if let Sink::Active(sink) = &mut self.sink {
            if let Err(err) = sink.write(data).await {
                self.sink = Sink::Failed(err.to_string());
            }
        }
        self.capture.push(data);
    }

    /// What is in memory, as the result text: head, tail, notes, status.
    pub(crate) fn preview(&self, notes: &[String], status: &str) -> String {
        let mut out = if self.capture.total() == 0 {
            "(no output)".to_string()
        } else {
            self.capture.render()
        };
        if !out.ends_with('\n') {
            out.push('\n');
        }
        if let Sink::Failed(err) = &self.sink {
            out.push_str(&format!(
                "[the complete output could not be kept ({err}); the middle was dropped]\n"
            ));
        }
        for note in notes {
            out.push_str(note);
            out.push('\n');
        }
        out.push_str(status);
        out
    }

    /// Ends the output with the notes and the status line. With an active
    /// sink they go to the sink too and the executor takes the file as the
    /// result (the returned preview is then not used).
    pub(crate) async fn finish(mut self, notes: &[String], status: &str) -> String {
        if let Sink::Active(mut sink) = std::mem::replace(&mut self.sink, Sink::NotNeeded) {
            let mut trailer = String::new();
            if self.last != Some(b'\n') {
                trailer.push('\n');
            }
            for note in notes {
                trailer.push_str(note);
                trailer.push('\n');
            }
            trailer.push_str(status);
            let done = match sink.write(trailer.as_bytes()).await {
                Ok(()) => sink.finish().await.map(|_| ()),
                Err(err) => Err(err),
            };
            match done {
                Ok(()) => {}
                Err(err) => self.sink = Sink::Failed(err.to_string()),
            }
        }
        self.preview(notes, status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn capture_keeps_everything_under_the_cap() {
        let mut c = Capture::new(10);
        c.push(b"hello ");
        c.push(b"w");
        assert_eq!(c.render(), "hello w");
    }

    #[test]
    fn capture_drops_and_counts_the_middle() {
        let mut c = Capture::new(8);
        c.push(b"0123456789abcdef");
        assert_eq!(c.render(), "0123\n[... 8 bytes dropped ...]\ncdef");
    }

    proptest! {
        /// Whatever the chunking, the capture keeps exactly the first and
        /// last halves of the stream and counts the rest.
        #[test]
        fn capture_is_head_plus_tail(
            chunks in proptest::collection::vec(proptest::collection::vec(b'a'..=b'z', 0..40), 0..30),
            cap in 2usize..64,
        ) {
            let mut c = Capture::new(cap);
            let all: Vec<u8> = chunks.concat();
            for chunk in &chunks {
                c.push(chunk);
            }
            let head_cap = cap / 2;
            let tail_cap = cap - head_cap;
            let expected = if all.len() <= cap {
                String::from_utf8(all.clone()).unwrap()
            } else {
                let head = &all[..head_cap];
                let tail = &all[all.len() - tail_cap..];
                format!(
                    "{}\n[... {} bytes dropped ...]\n{}",
                    String::from_utf8_lossy(head),
                    all.len() - cap,
                    String::from_utf8_lossy(tail)
                )
            };
            prop_assert_eq!(c.render(), expected);
        }
    }
}
