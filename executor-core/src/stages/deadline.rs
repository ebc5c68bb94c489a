//! The deadline stage: runs the tool under its timeout, captures panics and
//! turns batch cancellation into a `cancelled` outcome.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::future::{BoxFuture, FutureExt};

use crate::duration::format_go_duration;
use crate::stage::{empty_result_message, Invocation, Next, Outcome, Stage};
use crate::types::ErrorKind;

/// The grace a tool gets after its deadline to hand back partial output.
pub const DEFAULT_GRACE: Duration = Duration::from_millis(200);

/// Runs the rest of the chain (normally just the tool) under a deadline.
///
/// - The deadline is the tool's declared [`Tool::timeout`](crate::Tool::timeout)
///   for this input, or the override when one is set. It wraps the call
///   from outside, so a tool's own longer wait cannot pass it.
/// - At the deadline the call's cancellation token fires and the tool gets
///   `grace` to return. What it returns then (or what it recorded with
///   [`ToolContext::set_partial_output`](crate::ToolContext::set_partial_output))
///   follows the timeout message after a blank line. Then the future is
///   dropped.
/// - A panic, both in `Tool::call` itself and while its future is polled,
///   becomes an `execution` error `tool NAME panic: MESSAGE`.
/// - When the batch is cancelled the future is dropped at once and the
///   outcome is `cancelled`.
#[derive(Debug, Clone)]
pub struct DeadlineStage {
    grace: Duration,
    timeout_override: Option<Duration>,
}

impl Default for DeadlineStage {
    fn default() -> Self {
        DeadlineStage {
            grace: DEFAULT_GRACE,
            timeout_override: None,
        }
    }
}

impl DeadlineStage {
    /// A deadline stage with the default grace and the tools' own timeouts.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the grace period after the deadline (default 200 ms).
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Uses `timeout` for every tool instead of its declared one.
    pub fn timeout_override(mut self, timeout: Option<Duration>) -> Self {
        self.timeout_override = timeout;
        self
    }
}

/// The timeout message: `Tool 'NAME' execution timed out after DURATION.
/// The external service may be slow or unavailable. Consider: retry later,
/// use alternative approach, or skip this step.`, DURATION as
/// [`format_go_duration`](crate::format_go_duration) prints it.
pub fn timeout_message(name: &str, after: Duration) -> String {
    format!(
        "Tool '{name}' execution timed out after {}. The external service may be slow or unavailable. Consider: retry later, use alternative approach, or skip this step.",
        format_go_duration(after)
    )
}

/// The text of a panic payload (`&str` and `String` payloads; others get a
/// generic description).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

enum Interrupt {
    Deadline,
    Cancelled,
}

impl Stage for DeadlineStage {
    fn name(&self) -> &str {
        "deadline"
    }

    fn call<'a>(&'a self, mut inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        Box::pin(async move {
            let name = inv.call.name.clone();
            let batch = inv.ctx.cancel_token().clone();
            if batch.is_cancelled() {
                return Outcome::error(
                    ErrorKind::Cancelled,
                    format!("tool {name} was cancelled before it started"),
                );
            }
            let timeout = match (self.timeout_override, &inv.tool, &inv.input) {
                (Some(t), _, _) => t,
                (None, Some(tool), Some(input)) => tool.timeout(input),
                (None, Some(tool), None) => tool.timeout(&serde_json::Value::Null),
                (None, None, _) => crate::tool::DEFAULT_TIMEOUT,
            };
            let call_token = batch.child_token();
            inv.ctx = inv.ctx.clone().with_cancel(call_token.clone());
            let ctx = inv.ctx.clone();

            // Boxed (not pinned on the stack) so that `drop(fut)` below really
            // drops the tool's future at that point: exec's kill guard runs
            // before the outcome is returned.
            let mut fut = AssertUnwindSafe(async move { next.run(inv).await })
                .catch_unwind()
                .boxed();
            let sleep = tokio::time::sleep(timeout);
            tokio::pin!(sleep);
            // The batch's cancellation is polled first: a tool that reacts to
            // the (shared) token itself — exec kills its process group and
            // returns — can be ready in the same poll, and its own account
            // must not replace "was cancelled" (a race seen under load).
            let interrupt = tokio::select! {
                biased;
                _ = batch.cancelled() => Interrupt::Cancelled,
                done = &mut fut => return finish(&name, done),
                _ = &mut sleep => Interrupt::Deadline,
            };
            call_token.cancel();
            match interrupt {
                Interrupt::Cancelled => {
                    drop(fut);
                    Outcome::error(ErrorKind::Cancelled, format!("tool {name} was cancelled"))
                }
                Interrupt::Deadline => {
                    let mut full_output = None;
                    let partial = tokio::select! {
                        biased;
                        done = &mut fut => match done {
                            Ok(out) if out.full_output.is_some() => {
                                full_output = out.full_output;
                                None
                            }
                            Ok(out) if out.content != empty_result_message(&name) => Some(out.content),
                            _ => None,
                        },
                        _ = tokio::time::sleep(self.grace) => None,
                        _ = batch.cancelled() => None,
                    };
                    drop(fut);
                    let mut message = timeout_message(&name, timeout);
                    if full_output.is_none() {
                        let partial = partial
                            .filter(|p| !p.is_empty())
                            .or_else(|| ctx.take_partial_output().filter(|p| !p.is_empty()));
                        if let Some(partial) = partial {
                            message.push_str("\n\n");
                            message.push_str(&partial);
                        }
                    }
                    // With a sink file the message is the header the limit
                    // stage puts before the limited view of the file.
                    let mut outcome = Outcome::error(ErrorKind::Timeout, message);
                    outcome.full_output = full_output;
                    outcome
                }
            }
        })
    }
}

fn finish(name: &str, done: Result<Outcome, Box<dyn Any + Send>>) -> Outcome {
    match done {
        Ok(outcome) => outcome,
        Err(payload) => Outcome::error(
            ErrorKind::Execution,
            format!("tool {name} panic: {}", panic_message(payload.as_ref())),
        ),
    }
}
