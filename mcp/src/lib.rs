//! toolexec over MCP: an MCP server of any [`Executor`](toolexec_core::Executor) and an MCP proxy in
//! front of any MCP server, both with every call through the toolexec
//! pipeline (guard, deadline, snapshot, redaction, limits), for embedders
//! and for the `toolexec mcp` / `toolexec proxy` commands.
//!
//! Serving your own executor over stdio:
//!
//! ```no_run
//! use toolexec_core::Executor;
//! use toolexec_mcp::{serve, Outcome, Transport};
//!
//! #[tokio::main]
//! async fn main() -> Result<(), toolexec_mcp::Error> {
//!     let builtin = toolexec_tools::builtin_tools(&Default::default());
//!     let executor = Executor::builder(std::env::current_dir().unwrap())
//!         .tools(builtin.tools)
//!         .observer(builtin.tracker)
//!         .build()?;
//!     let outcome = serve(executor, Transport::Stdio).await?;
//!     assert_eq!(outcome, Outcome::ClientClosed);
//!     Ok(())
//! }
//! ```
//!
//! - [`serve`] / [`Server`]: the tools of an executor ([`server`] module
//!   docs: listing, annotations, `_meta` keys, cancellation).
//! - [`Proxy::builder`]: the tools of a child MCP server ([`proxy`] module
//!   docs: what passes through and how; the child's whole process tree is
//!   contained in a PID namespace; over HTTP each session has its own
//!   child). Tool fields rmcp does not model (`execution.taskSupport`) are
//!   carried past rmcp's types ([`passthrough`]).
//! - [`PipelineOptions`], [`builtin_executor_builder`], [`build_redactor`]:
//!   the executor the command line builds, for `toolexec run` as well.
//!
//! Decisions where the specification is silent are in the module docs.

#![deny(missing_docs)]

pub mod http;
pub mod passthrough;
pub mod pipeline;
pub mod proxy;
pub mod server;
pub mod spill_tool;

use std::net::SocketAddr;
use std::path::PathBuf;

pub use http::{read_token, HttpOptions, TOKEN_ENV};
pub use pipeline::{
    build_redactor, builtin_executor_builder, canonical_workdir, PipelineOptions, ToolOptions,
};
pub use proxy::{end_group, spawn_child, Proxy};
pub use server::{serve, termination_signal, Server, Session};

/// Where an MCP server listens.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Transport {
    /// Our stdin and stdout (one session; end of input ends it).
    Stdio,
    /// Streamable HTTP on `/mcp` ([`http`] module docs).
    Http(HttpOptions),
}

/// How serving ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The client went away (stdio: end of input).
    ClientClosed,
    /// The shutdown token fired; the calls in flight were cancelled.
    Shutdown,
    /// The proxy's child MCP server exited; pending calls were answered
    /// with an error naming it.
    ChildExited {
        /// The child program.
        program: String,
        /// Its exit status, as text (`exit status: 3`).
        status: String,
    },
}

/// Why serving could not start or go on.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The workspace directory is not usable.
    Workdir {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The scratch directory path is not usable.
    Scratch {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A watched root is not usable.
    WatchRoot {
        /// The directory given.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// A watched root was given to a proxy without a workspace.
    WatchRootNeedsWorkdir {
        /// The directory given.
        path: PathBuf,
    },
    /// The snapshot watcher did not start.
    Watcher(String),
    /// The redaction rules file is not usable.
    Rules {
        /// The file given (empty for the built-in rules).
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// The executor could not be built.
    Build(toolexec_core::BuildError),
    /// The proxy's child could not be started.
    SpawnChild {
        /// The child program.
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// The proxy's child cannot run in the sandbox asked for (fail closed).
    Sandbox(toolexec_tools::sandbox::SandboxError),
    /// A sandbox that allows writes was asked for without a workspace.
    SandboxNeedsWorkdir {
        /// The sandbox mode asked for.
        mode: toolexec_tools::SandboxPolicy,
    },
    /// The proxy's child did not get through its start-up.
    ChildStartup(String),
    /// The MCP handshake with our client failed.
    Handshake(String),
    /// The server failed while running.
    Server(String),
    /// A non-loopback address was to be bound without a bearer token.
    TokenRequired {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The bearer token could not be read or is unusable.
    Token(String),
    /// The HTTP address could not be bound.
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// Why it could not be bound.
        source: std::io::Error,
    },
}

impl Error {
    /// Whether the error comes from unusable options (the command line
    /// exits 2 for these) rather than from a failure while running.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::Workdir { .. }
                | Error::Scratch { .. }
                | Error::WatchRoot { .. }
                | Error::WatchRootNeedsWorkdir { .. }
                | Error::SandboxNeedsWorkdir { .. }
                | Error::Watcher(_)
                | Error::Rules { .. }
                | Error::SpawnChild { .. }
                | Error::TokenRequired { .. }
                | Error::Token(_)
                | Error::Bind { .. }
        )
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Workdir { path, detail } => write!(f, "--workdir {}: {detail}", path.display()),
            Error::Scratch { path, detail } => write!(f, "--scratch {}: {detail}", path.display()),
            Error::WatchRoot { path, detail } => {
                write!(f, "--watch-root {}: {detail}", path.display())
            }
            Error::WatchRootNeedsWorkdir { path } => write!(
                f,
                "--watch-root {} needs --workdir (without it there is no workspace diff)",
                path.display()
            ),
            Error::Watcher(detail) => write!(f, "--watch-root: {detail}"),
            Error::Rules { path, detail } if path.as_os_str().is_empty() => {
                write!(f, "redaction rules: {detail}")
            }
            Error::Rules { path, detail } => write!(f, "--rules {}: {detail}", path.display()),
            Error::Build(err) => write!(f, "{err}"),
            Error::SpawnChild { program, source } => write!(f, "cannot start {program}: {source}"),
            Error::Sandbox(err) => write!(f, "{err} (run with --sandbox off to run without it)"),
            Error::SandboxNeedsWorkdir { mode } => write!(
                f,
                "--sandbox {mode} needs --workdir (the only directory the server may write to)"
            ),
            Error::ChildStartup(msg) => f.write_str(msg),
            Error::Handshake(msg) => write!(f, "the MCP handshake with the client failed: {msg}"),
            Error::Server(msg) => write!(f, "the server failed: {msg}"),
            Error::TokenRequired { addr } => write!(
                f,
                "--http {addr}: refusing to listen on a non-loopback address without a bearer token (give --token-file FILE or set {})",
                http::TOKEN_ENV
            ),
            Error::Token(msg) => f.write_str(msg),
            Error::Bind { addr, source } => write!(f, "--http {addr}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Build(err) => Some(err),
            Error::SpawnChild { source, .. } | Error::Bind { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<toolexec_core::BuildError> for Error {
    fn from(err: toolexec_core::BuildError) -> Self {
        Error::Build(err)
    }
}
