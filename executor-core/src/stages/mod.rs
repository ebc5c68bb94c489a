//! The built-in stages, and the adapters that put the stage crates
//! (`toolexec-guard`, `-snapshot`, `-redact`, `-limiter`) into the chain.

pub(crate) mod deadline;
#[cfg(feature = "guard")]
pub(crate) mod guard;
pub(crate) mod hooks;
#[cfg(feature = "limit")]
pub(crate) mod limit;
#[cfg(feature = "redact")]
pub(crate) mod redact;
#[cfg(feature = "snapshot")]
pub(crate) mod snapshot;
