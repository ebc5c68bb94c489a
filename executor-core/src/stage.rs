//! The [`Stage`] trait, the [`Next`] handle and the [`Chain`] that composes
//! stages around a tool.
//!
//! A stage is tower's `Service` without `poll_ready` and without `&mut self`
//! (the scheduler's concurrency cap is the back-pressure): it gets the
//! [`Invocation`] and a [`Next`] handle to the rest of the chain, and returns
//! an [`Outcome`]. The outcome is infallible: refusals, tool errors, panics
//! and timeouts are outcome values, so a stage never has to handle a
//! `Result` of the stage inside it.
//!
//! The first stage of a chain is the outermost: it sees the invocation first
//! and the outcome last.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use std::panic::AssertUnwindSafe;

use futures_util::future::{BoxFuture, FutureExt};
use serde_json::Value;

use crate::sink::SpilledOutput;
use crate::stages::stage_panic;
use crate::tool::{Tool, ToolContext};
use crate::types::{ErrorKind, FileChange, ToolCall};

/// A call on its way through the chain: the call itself, the tool it names
/// (if registered), the parsed input (once the guard accepted it) and the
/// context the tool will run with.
///
/// A stage reads all of it through accessors; what it may change is the
/// parsed input ([`set_input`](Invocation::set_input), e.g. to normalise
/// an argument). The tool, the read-only flag and the context are the
/// scheduler's decisions: a stage that could set `read_only` could skip
/// the workspace snapshot of a call that writes, so they stay private.
#[derive(Debug)]
pub struct Invocation {
    /// The call as the model sent it.
    pub(crate) call: ToolCall,
    /// The registered tool of that name, if any.
    pub(crate) tool: Option<Arc<dyn Tool>>,
    /// The parsed input; set by the guard stage. The innermost step parses
    /// the raw input itself when no guard ran.
    pub(crate) input: Option<Value>,
    /// Whether the tool declared this call read-only (asked with the
    /// parsed input by the scheduler; false for an unknown tool or input
    /// that is not JSON).
    pub(crate) read_only: bool,
    /// Workdir, cancellation token (the batch's, until the deadline stage
    /// narrows it to the call), partial-output slot and tool catalogue.
    pub(crate) ctx: ToolContext,
}

impl Invocation {
    /// Takes the parsed input, parsing the raw text when no guard did; an
    /// `invocation` outcome with the guard's wording when it is not JSON.
    // The refusal is the cold path; boxing it would cost every caller.
    #[allow(clippy::result_large_err)]
    pub fn take_input(&mut self) -> Result<Value, Outcome> {
        match self.input.take() {
            Some(input) => Ok(input),
            None => serde_json::from_str(&self.call.input).map_err(|err| {
                Outcome::error(
                    ErrorKind::Invocation,
                    format!("tool {}: invalid input: {err}", self.call.name),
                )
            }),
        }
    }

    /// Whether the tool is registered and declared this call read-only.
    pub fn read_only(&self) -> bool {
        self.tool.is_some() && self.read_only
    }
}

impl Invocation {
    /// An invocation of `call` with the tool it names (`None` when no tool
    /// of that name is registered), to run through a [`Chain`] by hand (the
    /// executor builds its own). The read-only flag is asked of the tool
    /// with the parsed input, as the scheduler does: false for an unknown
    /// tool or input that is not JSON.
    pub fn new(call: ToolCall, tool: Option<Arc<dyn Tool>>, ctx: ToolContext) -> Self {
        let read_only = tool.as_ref().is_some_and(|tool| {
            serde_json::from_str::<Value>(&call.input).is_ok_and(|input| tool.read_only(&input))
        });
        Invocation {
            call,
            tool,
            input: None,
            read_only,
            ctx,
        }
    }

    /// The call as the model sent it (id, name, raw input text).
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The registered tool the call names, if any.
    pub fn tool(&self) -> Option<&Arc<dyn Tool>> {
        self.tool.as_ref()
    }

    /// The parsed input, once the guard (or an earlier stage) set it.
    pub fn input(&self) -> Option<&Value> {
        self.input.as_ref()
    }

    /// Replaces the parsed input the tool will get.
    pub fn set_input(&mut self, input: Value) {
        self.input = Some(input);
    }

    /// The context the tool will run with: workspace root, call id,
    /// cancellation token, tool catalogue.
    pub fn ctx(&self) -> &ToolContext {
        &self.ctx
    }
}

/// What a call produced, on its way out of the chain.
///
/// `content` is the model-facing text before the change report; `report` is
/// the change report (`[Workspace Changes]` and one line per file) that
/// the executor appends after the limited
/// content, separated by one blank line, once the batch budget was applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Whether the call failed.
    pub is_error: bool,
    /// Why it failed.
    pub error_kind: Option<ErrorKind>,
    /// The text for the model (before the change report).
    pub content: String,
    /// The structured list of changed files.
    pub changes: Vec<FileChange>,
    /// The change report text; empty when nothing changed.
    pub report: String,
    /// The spill file, when the content was too large (or when it holds
    /// the complete output of a cut result).
    pub spill_path: Option<PathBuf>,
    /// The tool's complete output, when it wrote it through the redacting
    /// output sink ([`ToolContext::output_sink`]): the file is already
    /// redacted, `content` is then only a header (e.g. the timeout
    /// message; empty for none) that the limit stage puts before the
    /// limited view of the file, after a blank line.
    pub full_output: Option<SpilledOutput>,
    /// The complete redacted content when `content` is a cut of it; kept by
    /// the limit stage only when a batch budget needs it (the budget cuts
    /// from it, never from already cut text).
    pub complete: Option<String>,
    /// `Some(lines_before)` when the content is the reader tool's own view
    /// of a file that starts after `lines_before` lines (set by the limit
    /// stage; its notes count them).
    pub reader_view: Option<u64>,
}

impl Outcome {
    /// A successful outcome with this content.
    pub fn success(content: impl Into<String>) -> Self {
        Outcome {
            content: content.into(),
            ..Outcome::default()
        }
    }

    /// A failed outcome of this kind with this message.
    pub fn error(kind: ErrorKind, message: impl Into<String>) -> Self {
        Outcome {
            is_error: true,
            error_kind: Some(kind),
            content: message.into(),
            ..Outcome::default()
        }
    }
}

/// One layer of the onion around a tool call.
///
/// # Example
///
/// A stage that refuses calls whose input mentions `rm -rf`:
///
/// ```
/// use futures_util::future::BoxFuture;
/// use toolexec_core::{ErrorKind, Invocation, Next, Outcome, Stage};
///
/// struct NoRmRf;
///
/// impl Stage for NoRmRf {
///     fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
///         if inv.call().input.contains("rm -rf") {
///             let msg = format!("tool {} refused: rm -rf", inv.call().name);
///             return Box::pin(async move { Outcome::error(ErrorKind::Invocation, msg) });
///         }
///         next.run(inv)
///     }
/// }
/// ```
pub trait Stage: Send + Sync + 'static {
    /// Handles `inv`, usually by calling `next.run(inv)` and looking at or
    /// changing the outcome.
    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome>;

    /// The name a panic of this stage is reported under
    /// (`stage NAME panic: MESSAGE`). The default is the type's name
    /// without its module path.
    fn name(&self) -> &str {
        let full = std::any::type_name::<Self>();
        let base = full.split('<').next().unwrap_or(full);
        base.rsplit("::").next().unwrap_or(base)
    }
}

/// Runs one stage with panic capture: a panic in [`Stage::call`] itself or
/// while its future is polled ends the call with `stage NAME panic:
/// MESSAGE` (a panic of a stage further in is caught at that stage, and the
/// tool's own panic by the deadline stage).
fn run_stage<'a>(stage: &'a dyn Stage, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| stage.call(inv, next))) {
        Ok(fut) => Box::pin(AssertUnwindSafe(fut).catch_unwind().map(move |done| {
            done.unwrap_or_else(|payload| stage_panic(stage.name(), payload.as_ref()))
        })),
        Err(payload) => {
            let outcome = stage_panic(stage.name(), payload.as_ref());
            Box::pin(std::future::ready(outcome))
        }
    }
}

impl fmt::Debug for dyn Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Stage")
    }
}

/// The rest of the chain, handed to a stage.
#[derive(Debug, Clone, Copy)]
pub struct Next<'a> {
    rest: &'a [Arc<dyn Stage>],
}

impl<'a> Next<'a> {
    /// Runs the rest of the chain: the next stage, or the tool itself after
    /// the last one.
    pub fn run(self, inv: Invocation) -> BoxFuture<'a, Outcome> {
        match self.rest.split_first() {
            Some((stage, rest)) => run_stage(stage.as_ref(), inv, Next { rest }),
            None => Box::pin(call_tool(inv)),
        }
    }
}

/// An ordered list of stages around the tool call; the first is the
/// outermost.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    stages: Vec<Arc<dyn Stage>>,
}

impl Chain {
    /// An empty chain: calls go straight to the tool.
    pub fn new() -> Self {
        Chain::default()
    }

    /// Adds `stage` inside the ones already added.
    pub fn push(&mut self, stage: impl Stage) -> &mut Self {
        self.stages.push(Arc::new(stage));
        self
    }

    /// Adds an already shared stage inside the ones already added.
    pub fn push_arc(&mut self, stage: Arc<dyn Stage>) -> &mut Self {
        self.stages.push(stage);
        self
    }

    /// The number of stages.
    pub fn len(&self) -> usize {
        self.stages.len()
    }

    /// Whether the chain has no stage.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Runs `inv` through every stage and the tool.
    pub fn run(&self, inv: Invocation) -> BoxFuture<'_, Outcome> {
        Next { rest: &self.stages }.run(inv)
    }
}

/// The message of a tool that returned empty content without an error.
pub(crate) fn empty_result_message(name: &str) -> String {
    format!("tool {name} returned an empty result")
}

/// The innermost step: calls the tool and maps its output to an outcome.
///
/// Handles, for chains without a guard, an unknown tool and unparsed input.
/// Panics are not caught here but by the deadline stage around it, so that a
/// panic both in `Tool::call` itself and while its future is polled is
/// captured.
async fn call_tool(mut inv: Invocation) -> Outcome {
    // Unknown before invalid JSON, as the guard orders its checks.
    let Some(tool) = inv.tool.take() else {
        return Outcome::error(
            ErrorKind::Invocation,
            format!("unknown tool: {}", inv.call.name),
        );
    };
    let input = match inv.take_input() {
        Ok(input) => input,
        Err(refusal) => return refusal,
    };
    let Invocation { call, ctx, .. } = inv;
    let state = ctx.state().clone();
    let returned = tool.call(input, ctx).await;
    let spilled = state.spilled.lock().ok().and_then(|mut slot| slot.take());
    match (returned, spilled) {
        (Ok(_), Some(out)) if out.bytes > 0 => Outcome {
            full_output: Some(out),
            ..Outcome::default()
        },
        (returned, spilled) => {
            if let Some(out) = spilled {
                // An error (or an empty output) does not use the file.
                let _ = std::fs::remove_file(&out.path);
            }
            match returned {
                Ok(content) if content.is_empty() => {
                    Outcome::error(ErrorKind::Execution, empty_result_message(&call.name))
                }
                Ok(content) => Outcome::success(content),
                Err(err) => Outcome::error(ErrorKind::Execution, err.message()),
            }
        }
    }
}
