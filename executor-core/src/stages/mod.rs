//! The built-in stages, and the adapters that put the stage crates
//! (`toolexec-guard`, `-snapshot`, `-redact`, `-limiter`) into the chain.

pub mod deadline;
#[cfg(feature = "guard")]
pub mod guard;
pub mod hooks;
#[cfg(feature = "limit")]
pub mod limit;
#[cfg(feature = "redact")]
pub mod redact;
#[cfg(feature = "snapshot")]
pub mod snapshot;

use std::any::Any;

use crate::stage::Outcome;
use crate::types::ErrorKind;

/// The `execution` outcome of a panic in the stage named `stage`:
/// `stage STAGE panic: MESSAGE`.
pub fn stage_panic(stage: &str, payload: &(dyn Any + Send)) -> Outcome {
    Outcome::error(
        ErrorKind::Execution,
        format!("stage {stage} panic: {}", deadline::panic_message(payload)),
    )
}

/// The outcome of a blocking-pool job of `stage` that did not complete: a
/// panic (`stage STAGE panic: MESSAGE`) or a runtime shutting down.
#[cfg_attr(not(feature = "limit"), allow(dead_code))]
pub(crate) fn panic_outcome(stage: &str, err: tokio::task::JoinError) -> Outcome {
    match err.try_into_panic() {
        Ok(payload) => stage_panic(stage, payload.as_ref()),
        Err(err) => Outcome::error(
            ErrorKind::Execution,
            format!("stage {stage} did not complete: {err}"),
        ),
    }
}
