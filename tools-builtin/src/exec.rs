//! `exec`: run `sh -c COMMAND`, contained (every process it starts ends
//! with the call) and sandboxed (see [`crate::sandbox`]).

use std::ffi::OsString;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::exec_output::Output;
use crate::jail::Jail;
use crate::sandbox::{Containment, Sandbox, SandboxPolicy, BLOCKED_NOTE};

/// Whether an environment variable is left out of exec's child
/// environment by default: the one secret-name rule (the name, split into
/// words on `_`, `-`, `.` and case changes, holds a word such as KEY,
/// TOKEN, SECRET, PASSWORD, AUTH or SESSION, and is not one of the known
/// harmless names such as `PWD` or `SSH_AUTH_SOCK`), defined in
/// [`toolexec_redact::is_secret_env_name`] (re-exported here) and shared
/// with the redactor's masking of environment values.
///
/// ```
/// use toolexec_tools::exec::is_secret_env_name;
/// assert!(is_secret_env_name("OPENAI_API_KEY"));
/// assert!(is_secret_env_name("DB_PASSWD"));
/// assert!(!is_secret_env_name("PATH"));
/// ```
pub use toolexec_redact::is_secret_env_name;

/// Settings of the exec tool.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExecConfig {
    /// Secret-looking variables let through to the child anyway, by exact
    /// name (e.g. `GITHUB_TOKEN` for a tool that needs it).
    pub allow_env: Vec<String>,
    /// Bytes of output kept in memory: the first half and the last half;
    /// the middle is dropped and counted. Default 1 MiB.
    pub capture_cap: usize,
    /// Timeout when `timeout_ms` is not given. Default 120 s.
    pub default_timeout: Duration,
    /// The largest `timeout_ms` accepted. Default 600 s.
    pub max_timeout: Duration,
    /// The shell run as `SHELL -c COMMAND`. Default `sh` (found on `PATH`).
    pub shell: PathBuf,
    /// The sandbox every command runs in (see [`crate::sandbox`]). Default
    /// `workspace-write` (writes only to the workspace, the session's
    /// scratch dir, the system temp dir and `/dev/null`-like devices),
    /// network denied.
    pub sandbox: Sandbox,
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            allow_env: Vec::new(),
            capture_cap: 1024 * 1024,
            default_timeout: Duration::from_secs(120),
            max_timeout: Duration::from_secs(600),
            shell: PathBuf::from("sh"),
            sandbox: Sandbox::default(),
        }
    }
}

impl ExecConfig {
    /// Lets these secret-looking variables through by name.
    pub fn allow_env<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_env.extend(names.into_iter().map(Into::into));
        self
    }

    /// Sets the sandbox (policy, network, extra writable roots).
    pub fn sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Sets the capture cap in bytes (at least 2).
    pub fn capture_cap(mut self, bytes: usize) -> Self {
        self.capture_cap = bytes.max(2);
        self
    }

    /// The child environment built from `parent`: secret-looking names are
    /// dropped unless listed in [`allow_env`](Self::allow_env).
    pub fn child_env<I>(&self, parent: I) -> Vec<(OsString, OsString)>
    where
        I: IntoIterator<Item = (OsString, OsString)>,
    {
        parent
            .into_iter()
            .filter(|(name, _)| {
                let name = name.to_string_lossy();
                !is_secret_env_name(&name) || self.allow_env.iter().any(|a| *a == name)
            })
            .collect()
    }
}

/// How long exec keeps reading after the shell exited (or was killed)
/// when the pipes are still open: until they are empty for this long…
const DRAIN_QUIET: Duration = Duration::from_millis(50);
/// …and never longer than this in all.
const DRAIN_MAX: Duration = Duration::from_millis(250);
/// After a cancellation: how long the group has to exit on SIGTERM before
/// SIGKILL, and how long the killed shell has to be reaped. Together with
/// the drain this stays under the executor's 200 ms grace.
const TERM_GRACE: Duration = Duration::from_millis(50);
const REAP_WAIT: Duration = Duration::from_millis(50);
const CANCEL_DRAIN_QUIET: Duration = Duration::from_millis(20);
const CANCEL_DRAIN_MAX: Duration = Duration::from_millis(50);
/// exec stops itself this long after its declared timeout, for use
/// without the executor (whose deadline fires first).
const SELF_TIMEOUT_SLACK: Duration = Duration::from_secs(1);

/// The `exec` tool: runs `sh -c COMMAND`.
///
/// - **Sandbox and containment** ([`ExecConfig::sandbox`], see
///   [`crate::sandbox`]): the shell runs in its own PID namespace (and
///   user, mount, IPC and, with the network denied, network namespace)
///   under a Landlock policy. Everything it starts lives in that namespace,
///   whatever process group or session it moves to, and dies with it: when
///   the shell exits the namespace ends at once (so the call returns at
///   once even if a background child such as `server &` held the output
///   pipes; exec then reads on only until the pipes are quiet for 50 ms,
///   250 ms at most), and when toolexec dies its parent-death signal ends
///   it. A command that failed in the sandbox gets the last line
///   [`BLOCKED_NOTE`]. Where the sandbox cannot be built exec fails closed
///   with `exec: sandbox unavailable: REASON (run with --sandbox off to run
///   without it)`. With the policy `off` and no user namespaces, the shell
///   leads a process group that exec kills instead.
/// - **Cancellation** ([`ToolContext::cancelled`]: the executor's deadline
///   or a cancelled batch): the output so far is handed to
///   [`ToolContext::set_partial_output`] at once, the namespace is ended
///   (the process group gets SIGTERM, then SIGKILL after 50 ms, where there
///   is no namespace), and the call returns the captured output as `Ok`
///   within about 150 ms, so the executor shows it after its timeout
///   message. If the future is dropped instead, a guard kills the
///   namespace (or group) on drop.
/// - **Timeout.** [`Tool::timeout`] returns `timeout_ms` (default 120 s, at
///   most 600 s) for the executor to enforce; exec also stops itself 1 s
///   after it, for use without an executor.
/// - **Capture.** stdout and stderr are read concurrently into one buffer
///   in arrival order (as a terminal would interleave them). Past
///   [`ExecConfig::capture_cap`] bytes (1 MiB) the complete output streams
///   through the executor's redacting output sink
///   ([`ToolContext::output_sink`]) into the call's spill file, so it stays
///   available whole, while memory keeps only the first and last halves;
///   without a sink the middle is dropped and counted. Memory is bounded
///   whatever the command prints. Decoding is lossy UTF-8.
/// - **Environment.** The parent's environment without secret-looking
///   variables ([`is_secret_env_name`]) unless allowed by name; stdin is
///   `/dev/null`; the working directory is `cwd` (jailed, default the
///   workspace root).
///
/// Output: the captured text (`(no output)` if there was none); where
/// bytes were dropped, a line `[... N bytes dropped ...]` between head and
/// tail; then notes in brackets when processes were killed; then the last
/// line, `exit status: N` or `exit status: killed by signal N (SIGNAME)`.
/// A non-zero exit status is an ordinary result (not an error): the model
/// reads it in the last line.
///
/// Flags: never [`Tool::read_only`]; [`Tool::concurrency_safe`] only when
/// the call's `command` is read-only by [`crate::shell::classify`], so a
/// writing command never runs beside another call.
#[derive(Debug)]
pub struct ExecTool {
    config: ExecConfig,
    schema: Value,
    description: String,
}

impl ExecTool {
    /// An exec tool with these settings.
    pub fn new(config: ExecConfig) -> Self {
        let default_ms = config.default_timeout.as_millis();
        let max_ms = config.max_timeout.as_millis();
        let sandbox = match config.sandbox.policy() {
            SandboxPolicy::WorkspaceWrite => {
                " It runs in a sandbox: writes outside the workspace and the temp dir fail"
            }
            SandboxPolicy::ReadOnly => " It runs in a sandbox: every file write fails",
            _ => "",
        };
        let network = if config.sandbox.network_allowed() {
            ""
        } else if sandbox.is_empty() {
            " Network access is blocked."
        } else {
            ", and network access is blocked."
        };
        let end = if !sandbox.is_empty() && network.is_empty() {
            "."
        } else {
            ""
        };
        let description = format!(
            "Run a shell command (sh -c) in the workspace and return its combined stdout and \
             stderr followed by the exit status. Every process the command starts ends when \
             it ends (background processes included). Secret-looking environment variables \
             are not passed. Optional cwd and timeout_ms (default {default_ms}, max {max_ms}).\
             {sandbox}{end}{network}"
        );
        ExecTool {
            description,
            schema: json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "Shell command, run as `sh -c COMMAND`."
                    },
                    "timeout_ms": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": max_ms,
                        "description": format!("Timeout in milliseconds (default {default_ms}, at most {max_ms}). The whole process group is killed when it passes.")
                    },
                    "cwd": {
                        "type": "string",
                        "description": "Working directory, relative to the workspace root (default: the root)."
                    }
                },
                "required": ["command"]
            }),
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &ExecConfig {
        &self.config
    }

    fn parse_timeout(&self, args: &Args<'_>) -> Result<Duration, ToolsError> {
        match args.opt_u64("timeout_ms")? {
            None => Ok(self.config.default_timeout),
            Some(0) => Err(ToolsError::field("timeout_ms", "must be at least 1")),
            Some(ms) if u128::from(ms) > self.config.max_timeout.as_millis() => {
                Err(ToolsError::field(
                    "timeout_ms",
                    format!("must be at most {}", self.config.max_timeout.as_millis()),
                ))
            }
            Some(ms) => Ok(Duration::from_millis(ms)),
        }
    }
}

impl Tool for ExecTool {
    fn name(&self) -> &str {
        "exec"
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn read_only(&self, _input: &Value) -> bool {
        false
    }

    /// Only for a command that [`crate::shell::is_read_only`] recognises.
    fn concurrency_safe(&self, input: &Value) -> bool {
        input
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(crate::shell::is_read_only)
    }

    fn timeout(&self, input: &Value) -> Duration {
        Args::new(input)
            .and_then(|args| self.parse_timeout(&args))
            .unwrap_or(self.config.default_timeout)
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let args = Args::new(&input)?;
            let command = args.string("command")?;
            let timeout = self.parse_timeout(&args)?;
            let cwd_arg = args.opt_string("cwd")?;
            let jail = Jail::new(ctx.workdir())?;
            let cwd = jail.resolve(cwd_arg.unwrap_or(""))?;
            let shown = cwd_arg.unwrap_or(".");
            let meta = std::fs::metadata(&cwd).map_err(|e| ToolsError::io("enter", shown, e))?;
            if !meta.is_dir() {
                return Err(ToolsError::NotDirectory {
                    path: shown.to_string(),
                }
                .into());
            }
            let text = run(&self.config, command, cwd, timeout, &ctx).await?;
            Ok::<_, ToolError>(text)
        })
    }
}

/// Kills the command's processes on drop (the executor drops the call's
/// future when a batch is cancelled): the sandbox's supervisor process
/// (whose death ends the whole PID namespace), or the process group where
/// the command is not in a namespace.
struct GroupGuard {
    pgid: Option<Pid>,
    /// The pid is the sandbox's supervisor, not a process group.
    namespace: bool,
}

impl GroupGuard {
    /// Sends `signal` to the group, or ends the namespace; true when some
    /// process received it.
    fn signal(&self, signal: Signal) -> bool {
        self.pgid.is_some_and(|pid| {
            if self.namespace {
                // Every signal ends the namespace: the supervisor has the
                // default dispositions, and its death kills the rest.
                nix::sys::signal::kill(pid, signal).is_ok()
            } else {
                killpg(pid, signal).is_ok()
            }
        })
    }

    /// SIGKILL to the group, then forget it (so a later drop cannot hit a
    /// recycled id). True when some process was left to kill.
    fn kill(&mut self) -> bool {
        let killed = self.signal(Signal::SIGKILL);
        self.pgid = None;
        killed
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

async fn read_from<R: AsyncRead + Unpin>(
    reader: &mut Option<R>,
    buf: &mut [u8],
) -> io::Result<usize> {
    match reader {
        Some(r) => r.read(buf).await,
        None => std::future::pending().await,
    }
}

/// The two pipes and their buffers.
struct Pipes {
    stdout: Option<tokio::process::ChildStdout>,
    stderr: Option<tokio::process::ChildStderr>,
    out_buf: Vec<u8>,
    err_buf: Vec<u8>,
}

impl Pipes {
    fn open(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }

    /// Reads on until both pipes reach end of file, they stay quiet for
    /// `quiet`, or `max` passed.
    async fn drain(&mut self, capture: &mut Output, quiet: Duration, max: Duration) {
        let end = Instant::now() + max;
        while self.open() && Instant::now() < end {
            let pause = tokio::time::sleep_until((Instant::now() + quiet).min(end));
            tokio::select! {
                biased;
                r = read_from(&mut self.stdout, &mut self.out_buf) => match r {
                    Ok(n) if n > 0 => capture.push(&self.out_buf[..n]).await,
                    _ => self.stdout = None,
                },
                r = read_from(&mut self.stderr, &mut self.err_buf) => match r {
                    Ok(n) if n > 0 => capture.push(&self.err_buf[..n]).await,
                    _ => self.stderr = None,
                },
                () = pause => break,
            }
        }
    }
}

enum End {
    Exited(io::Result<ExitStatus>),
    Cancelled,
    TimedOut,
}

fn status_line(status: Option<&ExitStatus>) -> String {
    match status {
        Some(status) => match (status.code(), status.signal()) {
            (Some(code), _) => format!("exit status: {code}"),
            (None, Some(signal)) => {
                let name = Signal::try_from(signal).map_or("unknown signal", |s| s.as_str());
                format!("exit status: killed by signal {signal} ({name})")
            }
            (None, None) => "exit status: unknown".to_string(),
        },
        None => "exit status: unknown (the process group was killed)".to_string(),
    }
}

async fn run(
    config: &ExecConfig,
    command: &str,
    cwd: PathBuf,
    timeout: Duration,
    ctx: &ToolContext,
) -> Result<String, ToolsError> {
    let mut cmd = std::process::Command::new(&config.shell);
    cmd.arg("-c")
        .arg(command)
        .current_dir(&cwd)
        .env_clear()
        .envs(config.child_env(std::env::vars_os()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let containment = config
        .sandbox
        .apply(&mut cmd, ctx.workdir())
        .map_err(|e| ToolsError::Sandbox(e.message_for("exec")))?;
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let mut child =
        cmd.spawn()
            .map_err(|source| match crate::sandbox::decode_spawn_error(source) {
                Ok(e) => ToolsError::Sandbox(e.message_for("exec")),
                Err(source) => ToolsError::Spawn {
                    program: config.shell.display().to_string(),
                    source,
                },
            })?;
    // The write end of the sandbox's report pipe goes with the command.
    drop(cmd);
    let (namespace, mut report) = match containment {
        Containment::Namespace(report) => (true, Some(report)),
        _ => (false, None),
    };
    let mut guard = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
        namespace,
    };
    let mut pipes = Pipes {
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        out_buf: vec![0; 64 * 1024],
        err_buf: vec![0; 64 * 1024],
    };
    let mut capture = Output::new(config.capture_cap, ctx);
    let mut wait = std::pin::pin!(child.wait());
    let mut deadline = std::pin::pin!(tokio::time::sleep(timeout + SELF_TIMEOUT_SLACK));
    let mut cancelled = std::pin::pin!(ctx.cancelled());
    let mut progress = ctx.progress();

    let end = loop {
        tokio::select! {
            () = &mut cancelled => break End::Cancelled,
            () = &mut deadline => break End::TimedOut,
            status = &mut wait => break End::Exited(status),
            r = read_from(&mut pipes.stdout, &mut pipes.out_buf) => match r {
                Ok(n) if n > 0 => {
                    progress.output(&pipes.out_buf[..n]);
                    capture.push(&pipes.out_buf[..n]).await
                }
                _ => pipes.stdout = None,
            },
            r = read_from(&mut pipes.stderr, &mut pipes.err_buf) => match r {
                Ok(n) if n > 0 => {
                    progress.output(&pipes.err_buf[..n]);
                    capture.push(&pipes.err_buf[..n]).await
                }
                _ => pipes.stderr = None,
            },
        }
    };

    let mut notes = Vec::new();
    // Only a command that ended by itself "failed"; one exec killed on a
    // timeout or cancellation gets no sandbox line.
    let ended_by_itself = matches!(end, End::Exited(_));
    let status = match end {
        End::Exited(status) if namespace => {
            // The supervisor exits only after the namespace is empty: its
            // init ended with the shell, and the kernel killed the rest.
            // Its pid is reaped, so it must not be signalled again.
            guard.pgid = None;
            if report.take().is_some_and(|r| r.others_were_running()) {
                notes.push(
                    "[processes left running in the background were killed; a command's \
                     processes end when it ends]"
                        .to_string(),
                );
            }
            pipes.drain(&mut capture, DRAIN_QUIET, DRAIN_MAX).await;
            Some(status.map_err(|source| ToolsError::Io {
                op: "wait for",
                path: command.to_string(),
                source,
            })?)
        }
        End::Exited(status) => {
            if guard.kill() {
                notes.push(
                    "[processes left running in the background were killed; start a process \
                     with setsid to keep it running after the command]"
                        .to_string(),
                );
            }
            pipes.drain(&mut capture, DRAIN_QUIET, DRAIN_MAX).await;
            Some(status.map_err(|source| ToolsError::Io {
                op: "wait for",
                path: command.to_string(),
                source,
            })?)
        }
        End::Cancelled | End::TimedOut => {
            let note = match end {
                End::TimedOut => format!(
                    "[timed out after {} ms; the process group was killed]",
                    timeout.as_millis()
                ),
                _ => "[cancelled; the process group was killed]".to_string(),
            };
            // In case the executor drops this future before it returns.
            ctx.set_partial_output(
                capture.preview(std::slice::from_ref(&note), &status_line(None)),
            );
            guard.signal(Signal::SIGTERM);
            let term_end = Instant::now() + TERM_GRACE;
            let mut status = None;
            while Instant::now() < term_end {
                tokio::select! {
                    s = &mut wait => { status = Some(s); break; }
                    r = read_from(&mut pipes.stdout, &mut pipes.out_buf) => match r {
                        Ok(n) if n > 0 => capture.push(&pipes.out_buf[..n]).await,
                        _ => pipes.stdout = None,
                    },
                    r = read_from(&mut pipes.stderr, &mut pipes.err_buf) => match r {
                        Ok(n) if n > 0 => capture.push(&pipes.err_buf[..n]).await,
                        _ => pipes.stderr = None,
                    },
                    () = tokio::time::sleep_until(term_end) => break,
                }
            }
            guard.kill();
            if status.is_none() {
                status = tokio::time::timeout(REAP_WAIT, &mut wait).await.ok();
            }
            pipes
                .drain(&mut capture, CANCEL_DRAIN_QUIET, CANCEL_DRAIN_MAX)
                .await;
            notes.push(note);
            status.and_then(Result::ok)
        }
    };
    let mut last = status_line(status.as_ref());
    if config.sandbox.is_on() && ended_by_itself && status.is_some_and(|s| !s.success()) {
        last.push('\n');
        last.push_str(BLOCKED_NOTE);
    }
    Ok(capture.finish(&notes, &last).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            "AWS_SECRET_ACCESS_KEY",
            "npm_token",
            "DB_PASSWORD",
            "GOOGLE_CREDENTIALS",
        ] {
            assert!(is_secret_env_name(name), "{name}");
        }
        for name in ["PATH", "HOME", "LANG", "CARGO_HOME"] {
            assert!(!is_secret_env_name(name), "{name}");
        }
        // The secret-name table: stripped from the child environment…
        let config = ExecConfig::default();
        let spec = [
            "DB_PASSWD",
            "MYSQL_PWD",
            "API_AUTH",
            "SESSION_COOKIE",
            "GOOGLE_CREDENTIALS",
            "PWD",
            "OLDPWD",
            "SSH_AUTH_SOCK",
            "GIT_AUTHOR_NAME",
            "KEYBOARD",
        ];
        let env =
            config.child_env(spec.map(|k| (OsString::from(k), OsString::from("value-123456"))));
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        // …and these kept.
        assert_eq!(
            names,
            [
                "PWD",
                "OLDPWD",
                "SSH_AUTH_SOCK",
                "GIT_AUTHOR_NAME",
                "KEYBOARD"
            ]
        );
        let config = ExecConfig::default().allow_env(["GITHUB_TOKEN"]);
        let env = config.child_env(
            [("GITHUB_TOKEN", "a"), ("NPM_TOKEN", "b"), ("PATH", "/bin")]
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        );
        let names: Vec<_> = env
            .iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["GITHUB_TOKEN", "PATH"]);
    }

    #[test]
    fn status_lines() {
        assert_eq!(
            status_line(Some(&ExitStatus::from_raw(0))),
            "exit status: 0"
        );
        assert_eq!(
            status_line(Some(&ExitStatus::from_raw(3 << 8))),
            "exit status: 3"
        );
        assert_eq!(
            status_line(Some(&ExitStatus::from_raw(9))),
            "exit status: killed by signal 9 (SIGKILL)"
        );
    }
}
