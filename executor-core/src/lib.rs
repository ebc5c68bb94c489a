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
//! `spawn_blocking` (the built-in tools do).
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

pub mod duration;
pub mod event;
pub mod executor;
#[cfg(feature = "formats")]
pub mod formats;
pub mod observer;
pub mod sink;
pub mod stage;
pub mod stages;
pub mod tool;
pub mod types;

pub use duration::format_go_duration;
pub use event::{Event, EventKind, EventSink};
pub use executor::{BatchOptions, BuildError, Executor, ExecutorBuilder, DEFAULT_MAX_CONCURRENCY};
pub use observer::{ChangeObserver, ObservedChange};
pub use sink::{OutputSink, OutputSinkConfig, SpilledOutput};
pub use stage::{Chain, Invocation, Next, Outcome, Stage};
pub use stages::deadline::{timeout_message, DeadlineStage, DEFAULT_GRACE};
pub use stages::hooks::{HooksStage, PreHook};
pub use tool::{
    Tool, ToolContext, ToolError, ToolErrorKind, ToolFuture, ToolInfo, ToolOutput, DEFAULT_TIMEOUT,
};
pub use types::{ChangeKind, ErrorKind, FileChange, ToolCall, ToolResult};

#[cfg(feature = "snapshot")]
pub use stages::snapshot::SnapshotConfig;
