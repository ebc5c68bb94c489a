//! `toolexec mcp` and `toolexec proxy`: argument parsing over
//! [`toolexec_mcp`], and the pipeline options they share with `run`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use tokio_util::sync::CancellationToken;
use toolexec_mcp::{Outcome, PipelineOptions, Proxy, Server, ToolOptions, Transport};
use toolexec_tools::{Sandbox, SandboxPolicy};

use crate::CliError;

impl From<toolexec_mcp::Error> for CliError {
    fn from(err: toolexec_mcp::Error) -> Self {
        if err.is_usage() {
            CliError::Usage(err.to_string())
        } else {
            CliError::Runtime(err.to_string())
        }
    }
}

impl CliError {
    /// A library error of the command `command`: a usage error as it is
    /// (it names the option), except a child that did not start; any
    /// other prefixed with the command.
    fn from_mcp(command: &str, err: toolexec_mcp::Error) -> CliError {
        match &err {
            toolexec_mcp::Error::SpawnChild { .. } => CliError::Usage(format!("{command}: {err}")),
            _ if err.is_usage() => CliError::Usage(err.to_string()),
            _ => CliError::Runtime(format!("{command}: {err}")),
        }
    }
}

/// The pipeline options `mcp` and `proxy` share with `run`.
#[derive(Debug, Clone, Args)]
pub struct PipelineArgs {
    /// Per-result budget in characters.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
    /// Lines longer than this many characters are replaced by a note.
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_line: u64,
    /// How many concurrency-safe calls run at once.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_concurrency: u64,
    /// Where oversized results are spilled (default: a `toolexec`
    /// directory in the system temp dir).
    #[arg(long)]
    pub scratch: Option<PathBuf>,
    /// Tools offered to the model, comma-separated (default all). Only
    /// these are listed; calling another registered tool gets the guard's
    /// refusal.
    #[arg(long, value_delimiter = ',')]
    pub offered: Option<Vec<String>>,
    /// Disabled tools, comma-separated (not listed; refused when called).
    #[arg(long, value_delimiter = ',')]
    pub disabled: Vec<String>,
    /// Deadline for every call in milliseconds, overriding each tool's own
    /// (default: the tool's own, 120 s unless it declares another).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Validate every input against the tool's whole JSON Schema.
    #[arg(long)]
    pub full_validation: bool,
    /// Extra redaction rules (a TOML or JSON file).
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Extra directory watched for changes besides the workdir (repeatable).
    #[arg(long = "watch-root", value_name = "DIR")]
    pub watch_roots: Vec<PathBuf>,
    /// Do not start the snapshot watcher (only the bounded walk is used).
    #[arg(long)]
    pub no_watch: bool,
}

impl PipelineArgs {
    /// The library's pipeline options.
    pub fn options(&self) -> PipelineOptions {
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        PipelineOptions {
            budget: size(self.budget),
            max_line: size(self.max_line),
            max_concurrency: size(self.max_concurrency),
            scratch: self.scratch.clone(),
            offered: self.offered.clone(),
            disabled: self.disabled.clone(),
            timeout: self.timeout_ms.map(Duration::from_millis),
            full_validation: self.full_validation,
            rules: self.rules.clone(),
            watch_roots: self.watch_roots.clone(),
            no_watch: self.no_watch,
        }
    }
}

/// The transport options of `mcp` and `proxy`.
#[derive(Debug, Clone, Args)]
pub struct HttpArgs {
    /// Serve Streamable HTTP on ADDR:PORT (endpoint `/mcp`) instead of
    /// stdio.
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<std::net::SocketAddr>,
    /// File whose first line is the bearer token HTTP clients must send
    /// (default: the environment variable TOOLEXEC_MCP_TOKEN).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<PathBuf>,
}

impl HttpArgs {
    /// The transport these options ask for. Over HTTP the bound address is
    /// printed on stderr (`toolexec: serving MCP on http://ADDR/mcp`).
    pub fn transport(&self) -> Result<Transport, CliError> {
        let Some(addr) = self.http else {
            return Ok(Transport::Stdio);
        };
        let token = toolexec_mcp::read_token(self.token_file.as_deref())?;
        let options = toolexec_mcp::HttpOptions::new(addr)
            .token(token)
            .on_listening(|bound| eprintln!("toolexec: serving MCP on http://{bound}/mcp"));
        options.check()?;
        Ok(Transport::Http(options))
    }
}

/// The sandbox options of `run` and `mcp` (default `workspace-write`,
/// network denied); `proxy` has its
/// own, whose default is `off`.
#[derive(Debug, Clone, Args)]
pub struct SandboxArgs {
    /// The sandbox exec runs commands in: workspace-write, read-only or
    /// off.
    #[arg(
        long = "sandbox",
        value_name = "MODE",
        default_value = "workspace-write"
    )]
    pub sandbox: SandboxPolicy,
    /// Let sandboxed commands reach the network.
    #[arg(long)]
    pub allow_network: bool,
}

impl SandboxArgs {
    /// The library's sandbox, after warning once on stderr when it cannot
    /// work on this machine (exec calls then fail closed).
    pub fn sandbox(&self) -> Sandbox {
        let sandbox = Sandbox::new(self.sandbox).allow_network(self.allow_network);
        warn_if_unavailable(&sandbox);
        sandbox
    }
}

/// Says once on stderr, at start, that the sandbox cannot work here.
pub fn warn_if_unavailable(sandbox: &Sandbox) {
    if let Err(err) = sandbox.check() {
        eprintln!(
            "toolexec: warning: {} (run with --sandbox off to run without it); commands will not run",
            err
        );
    }
}

/// Options of `toolexec mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The workspace root every path is relative to.
    #[arg(long)]
    pub workdir: PathBuf,
    /// The pipeline options.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Environment variable passed to exec even though its name looks
    /// secret (repeatable).
    #[arg(long = "allow-env", value_name = "NAME")]
    pub allow_env: Vec<String>,
    /// The sandbox options.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    /// The transport options.
    #[command(flatten)]
    pub transport: HttpArgs,
}

/// Options of `toolexec proxy`.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Workspace whose changes are reported after each call of a tool that
    /// is not trusted read-only (no workspace diff without it).
    #[arg(long)]
    pub workdir: Option<PathBuf>,
    /// Trust the child's `readOnlyHint` annotations (no snapshot, three
    /// times the budget for those tools).
    #[arg(long)]
    pub trust_annotations: bool,
    /// The pipeline options.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// The transport options.
    #[command(flatten)]
    pub transport: HttpArgs,
    /// Run the child server in the exec sandbox: workspace-write (writes
    /// only beneath --workdir), read-only or off (its process tree is
    /// still contained: nothing of it outlives the proxy).
    #[arg(long = "sandbox", value_name = "MODE", default_value = "off")]
    pub sandbox: SandboxPolicy,
    /// Let the sandboxed child server reach the network.
    #[arg(long)]
    pub allow_network: bool,
    /// The child MCP server and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Cancels the returned token on SIGTERM or SIGINT; the exit status the
/// command then ends with (128 + the signal) is kept in the cell.
fn shutdown_on_signal() -> (CancellationToken, Arc<std::sync::OnceLock<i32>>) {
    let token = CancellationToken::new();
    let code = Arc::new(std::sync::OnceLock::new());
    let (t, c) = (token.clone(), code.clone());
    tokio::spawn(async move {
        let got = toolexec_mcp::termination_signal().await;
        eprintln!("toolexec: stopping on signal {}", got - 128);
        let _ = c.set(got);
        t.cancel();
    });
    (token, code)
}

/// Exits the process at once with `code`, after flushing stdout and
/// stderr.
///
/// Used instead of returning from `main` when our client may still hold
/// stdin open: tokio reads stdin on a blocking thread that only returns once
/// the client writes or closes it, and the runtime waits for that thread
/// when it shuts down.
fn exit_now(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code);
}

/// Ends the command the way `outcome` asks.
fn finish(outcome: Outcome, signal: &std::sync::OnceLock<i32>) -> Result<(), CliError> {
    match outcome {
        Outcome::ClientClosed => Ok(()),
        Outcome::ChildExited { program, status } => {
            eprintln!("toolexec: proxy: the MCP server {program} exited ({status})");
            exit_now(1)
        }
        _ => exit_now(signal.get().copied().unwrap_or(143)),
    }
}

/// Runs `toolexec mcp` until the client closes stdin.
pub async fn run(args: McpArgs) -> Result<(), CliError> {
    let workdir = toolexec_mcp::canonical_workdir(&args.workdir)?;
    let pipeline = args.pipeline.options();
    let redactor = Arc::new(pipeline.redactor()?);
    let snapshot = pipeline.snapshot_config(&workdir).await?;
    let tools = ToolOptions {
        allow_env: args.allow_env.clone(),
        sandbox: args.sandbox.sandbox(),
        redactor: Some((*redactor).clone()),
        ..ToolOptions::default()
    };
    let transport = args.transport.transport()?;
    // Scratch: the checked per-user root (or --scratch DIR) and a
    // session directory of our own in it, removed when the session ends:
    // one for the stdio session, one for each HTTP session.
    let root = toolexec_limiter::ScratchRoot::open(pipeline.limits()?.scratch_dir)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let session = move || -> Result<toolexec_mcp::Session, toolexec_mcp::Error> {
        let scratch = root
            .ephemeral_session()
            .map_err(|e| toolexec_mcp::Error::Server(e.to_string()))?;
        let mut options = pipeline.clone();
        options.scratch = Some(scratch.dir().to_path_buf());
        let mut tools = tools.clone();
        tools.read_roots = vec![scratch.dir().to_path_buf()];
        let executor = options
            .builtin_executor(&workdir, &tools, redactor.clone(), snapshot.clone())?
            .build()?;
        Ok(toolexec_mcp::Session::new(executor).with_scratch(scratch))
    };
    let server = match &transport {
        // Each HTTP session gets its own executor: its own turn state,
        // read-before-edit tracker and scratch directory.
        Transport::Http(_) => Server::per_session(session),
        _ => {
            let once = session()?;
            let cell = std::sync::Mutex::new(Some(once));
            Server::per_session(move || {
                cell.lock()
                    .ok()
                    .and_then(|mut s| s.take())
                    .ok_or_else(|| toolexec_mcp::Error::Server("one stdio session only".into()))
            })
        }
    };
    let (shutdown, signal) = shutdown_on_signal();
    let outcome = server
        .shutdown_on(shutdown)
        .serve(transport)
        .await
        .map_err(|e| CliError::from_mcp("mcp", e))?;
    finish(outcome, &signal)
}

/// Runs `toolexec proxy` until our client closes stdin (exit 0) or the
/// child dies (exit 1).
pub async fn run_proxy(args: ProxyArgs) -> Result<(), CliError> {
    let Some((program, program_args)) = args.command.split_first() else {
        return Err(CliError::Usage(
            "proxy: no command given after --".to_string(),
        ));
    };
    let mut command = std::process::Command::new(program);
    command.args(program_args);
    let mut proxy = Proxy::builder(command)
        .trust_annotations(args.trust_annotations)
        .pipeline(args.pipeline.options());
    if args.sandbox != SandboxPolicy::Off || args.allow_network {
        let sandbox = Sandbox::new(args.sandbox).allow_network(args.allow_network);
        warn_if_unavailable(&sandbox);
        proxy = proxy.sandbox(sandbox);
    }
    if let Some(dir) = &args.workdir {
        proxy = proxy.workdir(dir);
    }
    let transport = args.transport.transport()?;
    let (shutdown, signal) = shutdown_on_signal();
    let outcome = proxy
        .shutdown_on(shutdown)
        .serve(transport)
        .await
        .map_err(|e| CliError::from_mcp("proxy", e))?;
    finish(outcome, &signal)
}
