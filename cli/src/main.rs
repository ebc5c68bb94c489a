//! `toolexec`: the command line of the toolexec executor.
//!
//! - `toolexec demo` runs the six-call seed scenario (see the README).
//! - `toolexec run --workdir DIR` reads a JSON array of calls on stdin and
//!   writes a JSON array of results.
//! - `toolexec redact` masks secrets from stdin to stdout, streaming.
//! - `toolexec tools` prints the built-in tools and their schemas.
//! - `toolexec mcp` / `toolexec proxy` serve MCP on stdio.
//!
//! Exit status: 0 when the batch ran (tool errors are results, not
//! failures); 2 for unusable arguments or input, with one line on stderr.

mod demo;
mod format;
mod logging;
mod mapped;
mod mcp;
mod run;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// The tool-execution layer of an AI agent.
#[derive(Debug, Parser)]
#[command(name = "toolexec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the six-call seed scenario and print each outcome.
    Demo {
        /// Keep the scratch workspace and print where it is.
        #[arg(long)]
        keep: bool,
    },
    /// Run a JSON array of calls from stdin; print a JSON array of results.
    Run(run::RunArgs),
    /// Mask secrets from stdin to stdout.
    Redact(RedactArgs),
    /// Print the built-in tools with their schemas, as JSON.
    Tools {
        /// The shape: toolexec's own, or a model API's tool list.
        #[arg(long, value_enum, default_value_t)]
        format: format::ToolsFormat,
    },
    /// Serve the built-in tools over MCP on stdio, through the pipeline.
    Mcp(mcp::McpArgs),
    /// Serve the tools of the child MCP server CMD over MCP on stdio,
    /// through the pipeline.
    Proxy(mcp::ProxyArgs),
}

#[derive(Debug, Args)]
struct RedactArgs {
    /// Extra rules (a TOML or JSON file).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// Do not mask the values of this process's secret-looking environment
    /// variables.
    #[arg(long)]
    no_env: bool,
    /// Rounds of input judged at the same time (default: the CPUs this
    /// process may use, at most 4). The output is the same for every count.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: Option<u16>,
}

/// A failure of the command itself: unusable arguments or input (exit 2)
/// or an I/O failure while running (exit 1).
#[derive(Debug)]
pub(crate) enum CliError {
    /// Exit 2: the arguments or the input cannot be used.
    Usage(String),
    /// Exit 1: something failed while running.
    Runtime(String),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            let text = err.to_string();
            let line = text.lines().next().unwrap_or("invalid arguments");
            eprintln!("toolexec: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    install_panic_hook();
    logging::install();
    // `redact` is a plain synchronous copy: no async runtime to start (its
    // worker threads and their shutdown took ~10 ms of a ~35 ms start).
    let command = match cli.command {
        Command::Redact(args) => return exit_code(redact(args)),
        other => other,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("toolexec: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match command {
            Command::Demo { keep } => demo::run(keep).await.map_err(CliError::Runtime),
            Command::Run(args) => run::run(args).await,
            Command::Redact(args) => redact(args),
            Command::Tools { format } => tools(format),
            Command::Mcp(args) => mcp::run(args).await,
            Command::Proxy(args) => mcp::run_proxy(args).await,
        }
    });
    // A blocking read of stdin left behind (MCP) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    exit_code(result)
}

/// The exit status of a command's result, with its one stderr line.
fn exit_code(result: Result<(), CliError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(msg)) => {
            eprintln!("toolexec: {msg}");
            ExitCode::from(2)
        }
        Err(CliError::Runtime(msg)) => {
            eprintln!("toolexec: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Tool panics are results (`tool NAME panic: MESSAGE`); print one short
/// line for them on stderr instead of the default multi-line report.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = toolexec_core::panic_message(info.payload());
        match info.location() {
            Some(loc) => eprintln!(
                "toolexec: panic caught: {msg} ({}:{})",
                loc.file(),
                loc.line()
            ),
            None => eprintln!("toolexec: panic caught: {msg}"),
        }
    }));
}

fn redact(args: RedactArgs) -> Result<(), CliError> {
    use std::os::fd::AsFd;
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let threads = args.threads.map_or(cpus.min(4), usize::from);
    let redactor =
        toolexec_mcp::build_redactor(args.rules.as_deref(), !args.no_env)?.with_threads(threads);
    let failed = |e: io::Error| CliError::Runtime(format!("redact: {e}"));
    // The stream reads and writes whole rounds (~1 MiB): plain files on
    // duplicates of fds 0 and 1 skip stdin's 8 KiB buffer and stdout's line
    // buffering (which looks for the last newline of every write).
    let stdin = io::stdin();
    let stdout = io::stdout();
    let files = (
        stdin.as_fd().try_clone_to_owned(),
        stdout.as_fd().try_clone_to_owned(),
    );
    match files {
        (Ok(input), Ok(output)) => {
            let input = std::fs::File::from(input);
            // A regular file is mapped and redacted in place (see `mapped`).
            if let Some((map, end)) = mapped::map_rest(&input) {
                mapped::redact_mapped(&redactor, &map, std::fs::File::from(output))
                    .map_err(failed)?;
                mapped::consumed(&input, end);
                return Ok(());
            }
            // A regular file never makes a read wait for data to come: the
            // stream may read it ahead while its rounds are judged (see
            // `RedactorBuilder::read_ahead`).
            let file = input.metadata().is_ok_and(|m| m.is_file());
            let output = std::fs::File::from(output);
            if file || threads < 2 {
                redactor
                    .with_read_ahead(file)
                    .redact_stream(input, output)
                    .map_err(failed)?;
            } else {
                grow_pipe(&input);
                // A pipe or socket: read on a thread of its own, so that the
                // batches are judged while the next input comes (see
                // `toolexec_redact::ReadAhead`).
                redactor
                    .redact_stream(toolexec_redact::ReadAhead::new(input), output)
                    .map_err(failed)?;
            }
        }
        _ => {
            let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
            redactor
                .redact_stream(stdin.lock(), &mut out)
                .map_err(failed)?;
            out.flush().map_err(failed)?;
        }
    }
    Ok(())
}

/// Asks for a 1 MiB pipe buffer on a pipe (Linux; the default is 64 KiB),
/// so that the writer's large writes arrive in few reads. A refusal (a
/// lower `/proc/sys/fs/pipe-max-size`, or not a pipe) changes nothing.
fn grow_pipe(f: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        #[allow(unsafe_code)]
        // SAFETY: `fcntl(F_SETPIPE_SZ)` on a descriptor we own reads or
        // writes no memory of ours; on another kind of descriptor it fails
        // with EBADF.
        unsafe {
            libc::fcntl(f.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = f;
}

fn tools(format: format::ToolsFormat) -> Result<(), CliError> {
    // The listing runs no tool: an empty private directory stands in for
    // the workspace.
    let dir = tempfile::tempdir().map_err(|e| CliError::Runtime(format!("tools: {e}")))?;
    let executor =
        toolexec_mcp::builtin_executor_builder(dir.path(), &toolexec_mcp::ToolOptions::default())
            .build()
            .map_err(|e| CliError::Runtime(e.to_string()))?;
    let text = format::write_tools(format, &executor.catalog())
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "{text}").map_err(|e| CliError::Runtime(e.to_string()))?;
    Ok(())
}
