//! toolexec-core: the tool types, the `Stage` chain and the batch scheduler.
//!
//! (Filled by issue 2; this is the public surface other crates build on.)
#![deny(missing_docs)]

pub mod observer;
pub mod tool;
pub mod types;

pub use observer::{ChangeObserver, ObservedChange};
pub use tool::{Tool, ToolContext, ToolError, ToolFuture, ToolInfo, ToolOutput, DEFAULT_TIMEOUT};
pub use types::{ChangeKind, ErrorKind, FileChange, ToolCall, ToolResult};
