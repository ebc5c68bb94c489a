//! The guard stage: adapts [`toolexec_guard::Guard`] to the chain (name,
//! disabled, offered-this-turn, JSON and required-field checks; the tool
//! never runs when one fails).

use std::sync::{Arc, RwLock};

use futures_util::future::BoxFuture;

use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::ErrorKind;

/// Refuses calls the guard rejects (`invocation` errors with the guard's
/// exact message) and hands the parsed input to the rest of the chain.
#[derive(Debug, Clone)]
pub(crate) struct GuardStage {
    guard: Arc<RwLock<toolexec_guard::Guard>>,
}

impl GuardStage {
    /// A stage checking calls with `guard` (shared, so that the executor
    /// can change the offered and disabled tools between turns).
    pub(crate) fn new(guard: Arc<RwLock<toolexec_guard::Guard>>) -> Self {
        GuardStage { guard }
    }
}

impl Stage for GuardStage {
    fn name(&self) -> &str {
        "guard"
    }

    fn call<'a>(&'a self, mut inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let verdict = {
            let guard = self.guard.read().unwrap_or_else(|p| p.into_inner());
            // The scheduler parsed the input to ask the tool's flags: it
            // is handed on, not parsed again.
            guard.check_parsed(&inv.call.name, &inv.call.input, inv.input.take())
        };
        match verdict {
            Ok(input) => {
                inv.input = Some(input);
                next.run(inv)
            }
            Err(rejection) => {
                let message = rejection.to_string();
                Box::pin(async move { Outcome::error(ErrorKind::Invocation, message) })
            }
        }
    }
}
