//! Progress of a running call, for callers that asked for it (an MCP
//! client that gave a `progressToken`).
//!
//! The caller runs the call inside [`with_progress_sink`]; a tool asks its
//! context for a [`ProgressReporter`] ([`ToolContext::progress`]) and
//! reports through it. Without a sink, reporting does nothing and costs a
//! branch. Reports carry counts, never output text, so they need no
//! redaction.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::tool::ToolContext;

/// The shortest time between two reports of [`ProgressReporter::output`]
/// (at most four a second).
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// One progress report.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far the call is (grows with each report; for exec: lines of
    /// output so far).
    pub progress: f64,
    /// The end, when known.
    pub total: Option<f64>,
    /// A short sentence for a person.
    pub message: Option<String>,
}

impl Progress {
    /// A report of `progress` with a message.
    pub fn new(progress: f64, message: impl Into<String>) -> Self {
        Progress {
            progress,
            total: None,
            message: Some(message.into()),
        }
    }
}

/// Where the progress reports of calls go.
pub trait ProgressSink: Send + Sync {
    /// A report for the call `call_id`.
    fn progress(&self, call_id: &str, report: Progress);
}

tokio::task_local! {
    static SINK: Arc<dyn ProgressSink>;
}

/// Runs `future` (a call: [`Executor::run_call`](crate::Executor::run_call))
/// with `sink` receiving the progress its tools report.
pub async fn with_progress_sink<F: Future>(sink: Arc<dyn ProgressSink>, future: F) -> F::Output {
    SINK.scope(sink, future).await
}

/// A tool's handle for reporting progress.
pub struct ProgressReporter {
    sink: Option<Arc<dyn ProgressSink>>,
    call_id: String,
    lines: u64,
    bytes: u64,
    last: Option<Instant>,
}

impl std::fmt::Debug for ProgressReporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressReporter")
            .field("wanted", &self.sink.is_some())
            .field("lines", &self.lines)
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl ProgressReporter {
    /// Whether anyone listens.
    pub fn is_wanted(&self) -> bool {
        self.sink.is_some()
    }

    /// Sends `report` (nothing happens when no one listens).
    pub fn report(&self, report: Progress) {
        if let Some(sink) = &self.sink {
            sink.progress(&self.call_id, report);
        }
    }

    /// Counts a chunk of a command's output; at most every
    /// [`PROGRESS_INTERVAL`] reports `N lines, M bytes of output so far`
    /// (progress = lines).
    pub fn output(&mut self, chunk: &[u8]) {
        if self.sink.is_none() {
            return;
        }
        self.bytes += chunk.len() as u64;
        self.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        let now = Instant::now();
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < PROGRESS_INTERVAL)
        {
            return;
        }
        self.last = Some(now);
        let (lines, bytes) = (self.lines, self.bytes);
        self.report(Progress::new(
            lines as f64,
            format!("{lines} lines, {bytes} bytes of output so far"),
        ));
    }
}

impl ToolContext {
    /// The progress reporter of this call. Ask for it while the call runs
    /// (inside the tool's future); it reports to the sink of
    /// [`with_progress_sink`], if any.
    pub fn progress(&self) -> ProgressReporter {
        ProgressReporter {
            sink: SINK.try_with(Arc::clone).ok(),
            call_id: self.call_id().to_string(),
            lines: 0,
            bytes: 0,
            last: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Record(Mutex<Vec<(String, Progress)>>);

    impl ProgressSink for Record {
        fn progress(&self, call_id: &str, report: Progress) {
            self.0.lock().unwrap().push((call_id.to_string(), report));
        }
    }

    #[tokio::test]
    async fn reports_reach_the_sink_of_the_scope() {
        let record = Arc::new(Record::default());
        let ctx = ToolContext::new(".", "c1");
        assert!(!ctx.progress().is_wanted());
        with_progress_sink(record.clone(), async {
            let mut reporter = ctx.progress();
            assert!(reporter.is_wanted());
            reporter.output(b"a\nb\n");
        })
        .await;
        let got = record.0.lock().unwrap().clone();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, "c1");
        assert_eq!(
            got[0].1.message.as_deref(),
            Some("2 lines, 4 bytes of output so far")
        );
    }
}
