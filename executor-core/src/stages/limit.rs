//! The limit stage: adapts [`toolexec_limiter::Limiter`] to the chain
//! (SPEC §2 step 8, §5), and the per-batch budget.

use std::sync::Arc;

use futures_util::future::{BoxFuture, FutureExt};

use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::ToolCall;

/// Turns the redacted content into what the model sees: spill, long-line
/// and middle truncation. A successful result of a read-only tool gets
/// three times the budget. The change report is not part of the content at
/// this point and is never cut.
#[derive(Debug, Clone)]
pub(crate) struct LimitStage {
    limiter: Arc<toolexec_limiter::Limiter>,
}

impl LimitStage {
    /// A stage limiting with `limiter`.
    pub(crate) fn new(limiter: Arc<toolexec_limiter::Limiter>) -> Self {
        LimitStage { limiter }
    }
}

/// Contents above this many bytes are limited on tokio's blocking pool: a
/// spill writes the whole text to disk, which must not stall other calls.
const BLOCKING_THRESHOLD: usize = 256 * 1024;

fn apply(limiter: &toolexec_limiter::Limiter, outcome: &mut Outcome, read_only: bool) {
    let limited = limiter.limit(&outcome.content, read_only && !outcome.is_error);
    if !limited.is_unchanged() {
        let spill_path = limited.spill_path.clone();
        outcome.content = limited.into_content();
        if spill_path.is_some() {
            outcome.spill_path = spill_path;
        }
    }
}

impl Stage for LimitStage {
    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let read_only = inv.read_only();
        let name = inv.call.name.clone();
        next.run(inv)
            .then(move |mut outcome| async move {
                if outcome.content.len() <= BLOCKING_THRESHOLD {
                    apply(&self.limiter, &mut outcome, read_only);
                    return outcome;
                }
                let limiter = self.limiter.clone();
                tokio::task::spawn_blocking(move || {
                    apply(&limiter, &mut outcome, read_only);
                    outcome
                })
                .await
                .unwrap_or_else(|err| {
                    // Only a limiter bug or a runtime shutting down gets here.
                    Outcome::error(
                        crate::types::ErrorKind::Execution,
                        format!("tool {name}: its output could not be limited: {err}"),
                    )
                })
            })
            .boxed()
    }
}

/// Cuts the largest contents of a batch until their total fits `total`.
///
/// Water-filling: results below their fair share stay whole; error results
/// are never cut below their first line. Only the content is counted and
/// cut; the change reports are appended afterwards.
pub(crate) fn fit_batch(total: usize, outcomes: &mut [(ToolCall, Outcome)]) {
    let mut items: Vec<toolexec_limiter::BatchItem<'_>> = outcomes
        .iter_mut()
        .map(|(_, o)| toolexec_limiter::BatchItem::new(&mut o.content, o.is_error))
        .collect();
    toolexec_limiter::fit_batch(&mut items, total);
}
