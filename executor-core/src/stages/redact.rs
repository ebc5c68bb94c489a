//! The redaction stage: adapts [`toolexec_redact::Redactor`] to the chain
//! (the full content is masked before it goes to the event, the model or a
//! spill file).

use std::borrow::Cow;
use std::sync::Arc;

use futures_util::future::{BoxFuture, FutureExt};
use toolexec_redact::Redactor;

use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::ErrorKind;

/// Contents above this many bytes are masked on tokio's blocking pool, so
/// that a 100 MB log does not stall the other calls of the batch.
const BLOCKING_THRESHOLD: usize = 256 * 1024;

/// The executor's default redactor: the built-in rules plus the values of
/// this process's secret-looking environment variables (at least 8
/// characters long; values that are only digits, a single absolute path
/// or a placeholder are left out).
pub(crate) fn default_redactor() -> Redactor {
    Redactor::builder()
        .known_values_from_env()
        .build()
        .unwrap_or_else(|err| {
            tracing::warn!(%err, "environment values cannot be masked; using the built-in rules only");
            Redactor::builtin()
        })
}

/// Masks secrets in the content (results, error messages, partial output)
/// and in the change report of every outcome. It sits just inside the limit
/// stage, so the limiter (and any spill file it writes) only ever sees
/// redacted text, and outside everything else, so that refusals, hook
/// results and panic messages are masked too.
#[derive(Debug, Clone)]
pub(crate) struct RedactStage {
    redactor: Arc<Redactor>,
}

impl RedactStage {
    /// A stage masking with `redactor`.
    pub(crate) fn new(redactor: Arc<Redactor>) -> Self {
        RedactStage { redactor }
    }
}

fn mask(redactor: &Redactor, outcome: &mut Outcome) {
    if let Cow::Owned(masked) = redactor.redact(&outcome.content) {
        outcome.content = masked;
    }
    if !outcome.report.is_empty() {
        if let Cow::Owned(masked) = redactor.redact(&outcome.report) {
            outcome.report = masked;
        }
    }
    // The structured list echoes the same paths.
    for change in &mut outcome.changes {
        if let Cow::Owned(masked) = redactor.redact(&change.path) {
            change.path = masked;
        }
        if let Cow::Owned(masked) = redactor.redact(&change.absolute.to_string_lossy()) {
            change.absolute = masked.into();
        }
    }
}

impl Stage for RedactStage {
    fn name(&self) -> &str {
        "redact"
    }

    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let name = inv.call.name.clone();
        next.run(inv)
            .then(move |mut outcome| async move {
                if outcome.content.len() <= BLOCKING_THRESHOLD {
                    mask(&self.redactor, &mut outcome);
                    return outcome;
                }
                let redactor = self.redactor.clone();
                tokio::task::spawn_blocking(move || {
                    mask(&redactor, &mut outcome);
                    outcome
                })
                .await
                .unwrap_or_else(|err| {
                    // Never let unmasked text through: drop it instead.
                    match err.try_into_panic() {
                        Ok(payload) => crate::stages::stage_panic("redact", payload.as_ref()),
                        Err(err) => Outcome::error(
                            ErrorKind::Execution,
                            format!(
                                "tool {name}: its output could not be redacted and was withheld: {err}"
                            ),
                        ),
                    }
                })
            })
            .boxed()
    }
}
