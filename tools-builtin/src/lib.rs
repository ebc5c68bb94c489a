//! toolexec-tools: the built-in tools of toolexec — read, write, edit, grep,
//! glob, exec and tool_search — jailed to the workspace, with a
//! read-before-edit tracker.
//!
//! # Example
//!
//! ```
//! use serde_json::json;
//! use toolexec_core::ToolContext;
//! use toolexec_tools::{builtin_tools, BuiltinConfig};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(dir.path().join("hello.txt"), "hello\nworld\n").unwrap();
//! let builtin = builtin_tools(&BuiltinConfig::default());
//! let ctx = ToolContext::new(dir.path(), "call-1");
//!
//! let read = builtin.get("read").unwrap();
//! let text = read.call(json!({"path": "hello.txt"}), ctx.clone()).await.unwrap();
//! assert_eq!(text, "     1\thello\n     2\tworld");
//!
//! // The file was read, so it may be edited.
//! let edit = builtin.get("edit").unwrap();
//! let input = json!({"path": "hello.txt", "old_string": "world", "new_string": "there"});
//! let done = edit.call(input, ctx.clone()).await.unwrap();
//! assert_eq!(done, "Edited hello.txt: replaced 1 occurrence");
//!
//! // Paths that leave the workspace are refused.
//! let err = read.call(json!({"path": "../etc/passwd"}), ctx).await.unwrap_err();
//! assert!(err.message().contains("outside the workspace"));
//! # }
//! ```
//!
//! Register [`BuiltinTools::tools`] with the executor and
//! [`BuiltinTools::tracker`] as its change observer, so that files a call
//! created or changed count as read in their new state.
//!
//! # Features
//!
//! One per tool, all on by default: `read`, `write`, `edit`, `grep`,
//! `glob`, `exec`, `tool-search`. Without `exec` the crate spawns no
//! processes and does not depend on `nix`; without `grep` and `glob` it
//! does not depend on `regex`, `ignore` or `globset`.
//!
//! # Decisions where the spec is silent
//!
//! - **Input.** Unknown fields are ignored (models send extra ones);
//!   `null` counts as absent; a wrong type is an error naming the field:
//!   `invalid input: field "path" must be a string, got a number`.
//!   Integers accept integral floats (`10.0`).
//! - **Jail.** See [`Jail`]: `..` is applied lexically and may not climb
//!   above the root; the existing part of the path is canonicalized and
//!   must stay inside; dangling symbolic links are refused. Errors name
//!   the path as given: `path "../x" is outside the workspace (…)`.
//! - **Race-free jail.** The checked path is never used as such: every
//!   open, stat, mkdir, create and rename goes through an `O_PATH` handle
//!   of the root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//!   RESOLVE_NO_MAGICLINKS)` (through `rustix`; chosen over `cap-std`
//!   because it is already in the tree, gives the flags directly and fails
//!   closed instead of falling back to a user-space walk). The checked path
//!   holds no symbolic link, so one met at use time is a swap: the call
//!   fails (`… (it changed into a symbolic link while the call ran)`) and
//!   touches nothing. Without `openat2` (Linux < 5.6) every file operation
//!   fails with `the workspace jail is unavailable: …`. Writes create
//!   `.toolexec-PID-N.tmp` with `O_EXCL | O_NOFOLLOW` in the handle of the
//!   target's directory and `renameat` it on that same handle; parents are
//!   created one `mkdirat` at a time, each in the handle of the previous.
//!   grep and glob walk with the `ignore` crate (by path), so each file is
//!   opened beneath the root handle before it is read, each listed name
//!   is checked beneath it before it is printed, and a directory that is no
//!   longer a real directory beneath the root is not descended into: a
//!   swap can make the walk skip or list less, never read or print
//!   anything outside.
//! - **Non-regular files.** Opened with `O_NONBLOCK | O_NOFOLLOW` and
//!   checked with `fstat` on the descriptor before the first byte is read:
//!   FIFOs, sockets (`ENXIO`) and devices are refused at once with
//!   `path "P" is not a regular file (a FIFO, socket or device)`;
//!   `/dev/zero` or `/dev/stdin` behind a link resolve outside the root and
//!   are refused as such.
//! - **Scratch.** read opens, outside the workspace, only the spill files
//!   (`tool_result_<digits>.txt`, regular, owned by this user, directly in
//!   the directory) of the session scratch directories it was given
//!   ([`BuiltinConfig::with_read_root`], normally
//!   [`toolexec_limiter::ScratchSession::dir`]); nothing else in them, and
//!   not the scratch root. The rules live in the limiter (see
//!   `toolexec_limiter::ScratchRoot`).
//! - **Bounds.** read checks cancellation before every 64 KiB it reads,
//!   grep before every 64 KiB chunk it searches (also inside one file);
//!   read's `limit` is capped at 2 000 lines by default
//!   ([`BuiltinConfig::with_read_max_limit`]); a too-large `limit` is
//!   clamped, not refused, and the usual continuation line follows. grep
//!   refuses patterns over 64 KiB of text or 8 MiB of compiled program,
//!   quoting at most their first 100 characters; a NUL byte ends the search
//!   of a file, so sparse files are never scanned in full; files that could
//!   not be read are counted: `(N files could not be read)` (always
//!   `files`, as the issue words it).
//! - **Odd names.** glob and grep print names that are not valid UTF-8 or
//!   hold control characters (a newline) with those bytes as `\xNN`
//!   ([`escape_name`]), so each entry is one line; [`Jail::resolve`] looks
//!   an argument up with the escapes decoded when it does not exist as
//!   written, so printed names can be read back. A NUL byte in a path is
//!   refused (`must not contain a NUL byte`); a name too long for the file
//!   system gets the system's `File name too long`.
//! - **Output formats.** read: `{n:>6}\t{line}` (see [`ReadTool`]); grep:
//!   `path:line:text`; glob: one path a line; exec: output, notes, then
//!   `exit status: N` (see [`ExecTool`]); tool_search: JSON. Paths are
//!   relative to the workspace root with `/` separators. Every tool says
//!   something when there is nothing to show (`(file "x" is empty)`,
//!   `No matches found …`, `(no output)`), since the executor turns empty
//!   content into an error.
//! - **Read-before-edit.** See [`FileTracker`]: content hashes (BLAKE3) up
//!   to 64 MiB, size + mtime + inode above.
//! - **Timeouts.** exec declares `timeout_ms` (default 120 s, at most
//!   600 s); the other tools use the executor's default (120 s). grep and
//!   glob stop walking when cancelled and return what they found.
//! - **exec and concurrency.** exec is never `read_only` (a snapshot is
//!   always taken around it), and it is `concurrency_safe` only for a
//!   command that the conservative classifier of [`shell`] recognises as
//!   read-only (`ls -la`, `cat a | grep x`, `git status 2>/dev/null`,
//!   `sleep 1`; not `echo hi > x`, `sed -i …`, `cargo build`, `$(date)`);
//!   asked without a command (a listing's `null`) it says not safe. The
//!   [`shell`] module docs list every program and argument it accepts.
//! - **Platform.** Unix only (process groups, permissions). The exec
//!   sandbox ([`sandbox`]) needs Linux; elsewhere only
//!   [`SandboxPolicy::Off`] runs commands, the other policies fail closed.
#![deny(missing_docs)]
// `unsafe` is allowed in one module only: the `pre_exec` hook of the exec
// sandbox (`sandbox/linux.rs`).
#![deny(unsafe_code)]
// Helpers shared by several tools go unused when some tools are left out.
#![cfg_attr(
    not(all(
        feature = "read",
        feature = "write",
        feature = "edit",
        feature = "grep",
        feature = "glob",
        feature = "exec",
        feature = "tool-search"
    )),
    allow(dead_code, unused_mut, unused_imports)
)]

use std::sync::Arc;

use toolexec_core::Tool;

mod args;
mod error;
mod fsutil;
mod jail;
mod tracker;
#[cfg(any(feature = "grep", feature = "glob"))]
mod walk;

#[cfg(feature = "edit")]
pub mod edit;
#[cfg(feature = "exec")]
pub mod exec;
#[cfg(feature = "exec")]
mod exec_output;
#[cfg(feature = "glob")]
pub mod glob;
#[cfg(feature = "grep")]
pub mod grep;
#[cfg(any(feature = "edit", feature = "write"))]
mod markers;
#[cfg(feature = "read")]
pub mod read;
#[cfg(feature = "exec")]
pub mod sandbox;
pub mod shell;
#[cfg(feature = "tool-search")]
pub mod tool_search;
#[cfg(feature = "write")]
pub mod write;

#[cfg(feature = "edit")]
pub use edit::EditTool;
pub use error::ToolsError;
#[cfg(feature = "exec")]
pub use exec::{ExecConfig, ExecTool};
#[cfg(feature = "glob")]
pub use glob::GlobTool;
#[cfg(feature = "grep")]
pub use grep::GrepTool;
pub use jail::{escape_name, Jail};
#[cfg(feature = "read")]
pub use read::ReadTool;
#[cfg(feature = "exec")]
pub use sandbox::{Sandbox, SandboxPolicy};
#[cfg(feature = "tool-search")]
pub use tool_search::ToolSearchTool;
pub use tracker::{FileTracker, HASH_LIMIT};
#[cfg(feature = "write")]
pub use write::WriteTool;

/// Settings of the built-in tools.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct BuiltinConfig {
    /// Settings of exec.
    #[cfg(feature = "exec")]
    pub exec: ExecConfig,
    /// Directories outside the workspace that read may also open by
    /// absolute path (read only; e.g. the executor's scratch directory
    /// where too-large results are spilled). See
    /// [`ReadTool::with_extra_roots`].
    pub read_extra_roots: Vec<std::path::PathBuf>,
    /// The cap on read's `limit` (`None`: [`read::DEFAULT_READ_MAX_LIMIT`]).
    #[cfg(feature = "read")]
    pub read_max_limit: Option<u64>,
    /// The session's redactor, used by edit and write to see a file as the
    /// model saw it (secret-preserving edits). `None`: the built-in rules.
    #[cfg(any(feature = "edit", feature = "write"))]
    pub redactor: Option<toolexec_redact::Redactor>,
}

impl BuiltinConfig {
    /// Replaces the exec settings.
    #[cfg(feature = "exec")]
    pub fn with_exec(mut self, exec: ExecConfig) -> Self {
        self.exec = exec;
        self
    }

    /// Sets the sandbox exec runs commands in: the policy
    /// ([`SandboxPolicy`]), the network switch and extra writable roots.
    /// The default is `workspace-write` with the network denied.
    #[cfg(feature = "exec")]
    pub fn with_sandbox(mut self, sandbox: Sandbox) -> Self {
        self.exec.sandbox = sandbox;
        self
    }

    /// Sets the session's redactor (see [`BuiltinConfig::redactor`]).
    #[cfg(any(feature = "edit", feature = "write"))]
    pub fn with_redactor(mut self, redactor: toolexec_redact::Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Lets read open the spill files of the session scratch directory
    /// `dir` (and nothing else in it) by absolute path, e.g.
    /// [`toolexec_limiter::ScratchSession::dir`].
    pub fn with_read_root(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.read_extra_roots.push(dir.into());
        self
    }

    /// Caps read's `limit` at `lines` (default 2 000).
    #[cfg(feature = "read")]
    pub fn with_read_max_limit(mut self, lines: u64) -> Self {
        self.read_max_limit = Some(lines);
        self
    }
}

/// The built-in tools of one session and the tracker they share.
#[derive(Debug, Clone)]
pub struct BuiltinTools {
    /// The tools, in the order read, write, edit, grep, glob, exec,
    /// tool_search (those whose feature is on).
    pub tools: Vec<Arc<dyn Tool>>,
    /// The read-before-edit tracker shared by read, write and edit.
    /// Register it as the executor's change observer.
    pub tracker: Arc<FileTracker>,
}

impl BuiltinTools {
    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|tool| tool.name() == name)
    }
}

/// Builds every built-in tool whose feature is on, sharing one new
/// [`FileTracker`]. Call it once per session.
// One push per feature-gated tool; `vec![]` cannot hold `#[cfg]` elements.
#[allow(clippy::vec_init_then_push)]
pub fn builtin_tools(config: &BuiltinConfig) -> BuiltinTools {
    let tracker = Arc::new(FileTracker::new());
    let _ = config;
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    #[cfg(feature = "read")]
    tools.push(Arc::new(
        ReadTool::new(Arc::clone(&tracker))
            .with_extra_roots(config.read_extra_roots.clone())
            .with_max_limit(
                config
                    .read_max_limit
                    .unwrap_or(read::DEFAULT_READ_MAX_LIMIT),
            ),
    ));
    #[cfg(feature = "write")]
    tools.push(Arc::new(
        WriteTool::new(Arc::clone(&tracker)).with_redactor(
            config
                .redactor
                .clone()
                .unwrap_or_else(toolexec_redact::Redactor::builtin),
        ),
    ));
    #[cfg(feature = "edit")]
    tools.push(Arc::new(
        EditTool::new(Arc::clone(&tracker)).with_redactor(
            config
                .redactor
                .clone()
                .unwrap_or_else(toolexec_redact::Redactor::builtin),
        ),
    ));
    #[cfg(feature = "grep")]
    tools.push(Arc::new(GrepTool::new()));
    #[cfg(feature = "glob")]
    tools.push(Arc::new(GlobTool::new()));
    #[cfg(feature = "exec")]
    tools.push(Arc::new(ExecTool::new(config.exec.clone())));
    #[cfg(feature = "tool-search")]
    tools.push(Arc::new(ToolSearchTool::new()));
    BuiltinTools { tools, tracker }
}

/// The library example of the workspace README, compiled and run as a doc
/// test so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
