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
