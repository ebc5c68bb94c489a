//! toolexec-core: the tool types, the [`Stage`] chain that composes the
//! pipeline stages, and the batch scheduler.
//!
//! A model sends a batch of tool calls; an [`Executor`] decides what may
//! run and in what order, runs each call through a chain of stages (guard,
//! hooks, snapshot, deadline; redaction and limits on the way out) and
//! returns one [`ToolResult`] per call, in input order.
//!
//! # Example
//!
//! ```
//! use serde_json::{json, Value};
//! use toolexec_core::{BatchOptions, Executor, Tool, ToolCall, ToolContext, ToolFuture};
//!
//! struct Shout(Value);
//!
//! impl Tool for Shout {
//!     fn name(&self) -> &str { "shout" }
//!     fn description(&self) -> &str { "Upper-cases `text`." }
//!     fn input_schema(&self) -> &Value { &self.0 }
//!     fn read_only(&self, _input: &Value) -> bool { true }
//!     fn concurrency_safe(&self, _input: &Value) -> bool { true }
//!     fn call(&self, input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
//!         Box::pin(async move { Ok(input["text"].as_str().unwrap_or("").to_uppercase()) })
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let dir = tempfile::tempdir().unwrap();
//! let executor = Executor::builder(dir.path())
//!     .tool(Shout(json!({"type": "object", "required": ["text"]})))
//!     .build()
//!     .unwrap();
//! let results = executor
//!     .run_batch(
//!         vec![
//!             ToolCall::new("1", "shout", r#"{"text":"hi"}"#),
//!             ToolCall::new("2", "shout", "{}"),
//!             ToolCall::new("3", "rm_rf", "{}"),
//!         ],
//!         &BatchOptions::new(),
//!     )
//!     .await;
//! assert_eq!(results[0].content, "HI");
//! assert_eq!(results[1].content, r#"tool shout: invalid input: missing required field "text""#);
//! assert_eq!(results[2].content, "unknown tool: rm_rf");
//! # });
//! ```
//!
//! # The pipeline
//!
//! See [`ExecutorBuilder`] for the order of the stages. Every failure is an
//! outcome, never a Rust error: `invocation` (refused before running),
//! `execution` (tool error, panic, empty result), `timeout` and `cancelled`.
//!
//! # Scheduling
//!
//! Consecutive concurrency-safe calls form a group that runs concurrently,
//! at most `max_concurrency` (default 5) at a time; each other call
//! (including a call of an unknown tool) is a group of its own; groups run
//! one after another. The concurrent calls of a group are polled on the
//! task that runs the batch, so tools must move blocking work to
//! `spawn_blocking` (the built-in tools do); so does the executor itself
//! (snapshots, the watcher's mark, redaction and limiting of large
//! contents, spill writes, observers, the batch budget).
//!
//! # Truthful results
//!
//! - **Output sink.** A tool that bounds its own capture (exec) asks
//!   [`ToolContext::output_sink`] for an [`OutputSink`] once its output no
//!   longer fits in memory, writes every byte to it and calls
//!   [`OutputSink::finish`]: the bytes stream (lossy UTF-8, then the
//!   executor's redactor) into a new spill file of the scratch directory,
//!   with bounded memory, off the polling task. The executor then uses that
//!   file as the call's complete output ([`Outcome::full_output`]), so
//!   "Full output was spilled" is said only when it is true. See [`OutputSink`].
//! - **Hints.** The limiter's [`reader_tool`](toolexec_limiter::Limits::reader_tool)
//!   (default `read`; a proxy sets `toolexec_read_spill`) is named in a hint
//!   only when a tool of that name is registered, offered and not disabled
//!   this turn; otherwise hints give the path alone (`the full output is in
//!   PATH`, and the spill message has no second line). A middle cut of any
//!   result but the reader's own output saves the complete redacted content
//!   to a spill file first and names it; the reader's own note counts the
//!   first line it showed ([`ToolContext::set_first_line`]).
//! - **Batch budget.** Cut from each result's complete redacted content
//!   (kept in [`Outcome::complete`] while the batch runs), on the blocking
//!   pool; spill messages (and results with a timeout header over a sink
//!   file) are never cut; change reports are neither counted nor cut.
//! - **Overlaps.** A non-read-only call whose snapshot window (from before
//!   its before-snapshot to after its after-snapshot) overlapped another
//!   such call's window ends its (non-empty) report with `(calls ID1, ID2
//!   ran at the same time; some changes may be theirs)`: the *other* calls'
//!   ids, in input order (arrival order for [`Executor::run_call`]), masked
//!   like every echoed text. Within a batch only concurrency-safe calls
//!   that are not read-only (safe exec commands) can overlap.
//! - **Panics.** A panic in any stage ([`Stage::name`]; built in:
//!   `pre-hook`, `guard`, `snapshot`, `redact`, `limit`, `deadline`, and
//!   `observer` for a change observer) ends only its call with an
//!   `execution` result `stage STAGE panic: MESSAGE`; the tool's own panic
//!   keeps `tool NAME panic: MESSAGE`. A panic in the batch budget leaves
//!   the results as the per-result limits made them (logged).
//! - **Masking.** Result and event ids and names, the paths in `changes`
//!   and the report, and every message are masked by the redactor.
//! - **Parsing once.** The scheduler parses each input to ask the tool's
//!   flags and hands the value on; the guard checks it without parsing
//!   again.
//!
//! # Features
//!
//! `guard`, `snapshot`, `redact` and `limit` (all on by default) each add
//! one stage crate and its adapter. `formats` (on by default, serde only)
//! adds [`formats`]: calls from OpenAI and Anthropic messages, results back
//! to them, tool lists in each API's shape. Without `guard`, unknown tools and
//! invalid JSON are still refused by the innermost step, but disabled /
//! offered sets and required fields are not checked.
#![deny(missing_docs)]
// Every public item has exactly one path: the modules are private and the
// crate root re-exports what users need; anything else `pub` is a mistake.
#![warn(unreachable_pub)]

mod duration;
mod event;
mod executor;
// The model APIs' tool-call shapes: its items are reached as
// `toolexec_core::formats::…` only (the one path of each).
#[cfg(feature = "formats")]
pub mod formats;
mod observer;
mod progress;
mod sink;
mod stage;
mod stages;
mod tool;
mod types;

pub use duration::format_go_duration;
pub use event::{Event, EventKind, EventSink};
pub use executor::{BatchOptions, BuildError, Executor, ExecutorBuilder, DEFAULT_MAX_CONCURRENCY};
pub use observer::ChangeObserver;
pub use progress::{
    with_progress_sink, Progress, ProgressReporter, ProgressSink, PROGRESS_INTERVAL,
};
pub use sink::{OutputSink, OutputSinkConfig, SpilledOutput};
pub use stage::{Chain, Invocation, Next, Outcome, Stage};
pub use stages::deadline::{panic_message, timeout_message, DeadlineStage, DEFAULT_GRACE};
pub use stages::hooks::{HooksStage, PreHook};
pub use tool::{
    Tool, ToolContext, ToolError, ToolErrorKind, ToolFuture, ToolInfo, ToolOutput, DEFAULT_TIMEOUT,
};
pub use types::{ChangeKind, ErrorKind, FileChange, ToolCall, ToolResult};

#[cfg(feature = "snapshot")]
pub use stages::snapshot::SnapshotConfig;
