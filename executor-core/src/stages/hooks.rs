//! Pre-hooks: checks supplied by the embedding program that may end a call
//! before its tool runs (in order; the first that returns a result ends
//! the call with it).

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::{ErrorKind, ToolCall};

/// A check that sees each call before its tool runs. Returning `Some`
/// ends the call with that outcome (the tool does not run); `None` lets it
/// go on to the next hook and then the tool.
///
/// Hooks are async so that one can ask a person for permission. Any
/// `Fn(&ToolCall, &Value) -> Option<Outcome>` is a (synchronous) hook.
pub trait PreHook: Send + Sync + 'static {
    /// Looks at the call and its parsed input.
    fn before<'a>(&'a self, call: &'a ToolCall, input: &'a Value)
        -> BoxFuture<'a, Option<Outcome>>;
}

impl<F> PreHook for F
where
    F: Fn(&ToolCall, &Value) -> Option<Outcome> + Send + Sync + 'static,
{
    fn before<'a>(
        &'a self,
        call: &'a ToolCall,
        input: &'a Value,
    ) -> BoxFuture<'a, Option<Outcome>> {
        let verdict = self(call, input);
        Box::pin(async move { verdict })
    }
}

/// Runs the pre-hooks in order; the first that returns an outcome ends the
/// call. With no hooks it adds nothing but a pointer check.
///
/// A hook that is still deciding when the batch is cancelled is dropped and
/// the call ends `cancelled` (its tool never started).
#[derive(Clone, Default)]
pub struct HooksStage {
    hooks: Vec<Arc<dyn PreHook>>,
}

impl fmt::Debug for HooksStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HooksStage")
            .field("hooks", &self.hooks.len())
            .finish()
    }
}

impl HooksStage {
    /// A stage running `hooks` in order.
    pub fn new(hooks: Vec<Arc<dyn PreHook>>) -> Self {
        HooksStage { hooks }
    }
}

impl Stage for HooksStage {
    fn name(&self) -> &str {
        "pre-hook"
    }

    fn call<'a>(&'a self, mut inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        if self.hooks.is_empty() {
            return next.run(inv);
        }
        Box::pin(async move {
            let input = match inv.take_input() {
                Ok(input) => input,
                Err(refusal) => return refusal,
            };
            let cancel = inv.ctx.cancel_token().clone();
            for hook in &self.hooks {
                let verdict = tokio::select! {
                    biased;
                    v = hook.before(&inv.call, &input) => v,
                    _ = cancel.cancelled() => {
                        return Outcome::error(
                            ErrorKind::Cancelled,
                            format!("tool {} was cancelled before it started", inv.call.name),
                        );
                    }
                };
                if let Some(outcome) = verdict {
                    return outcome;
                }
            }
            inv.input = Some(input);
            next.run(inv).await
        })
    }
}
