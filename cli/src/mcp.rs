//! `toolexec mcp --workdir DIR`: an MCP server on stdio offering the
//! built-in tools through the whole pipeline (SPEC §7).
//!
//! - `tools/list` returns the tools offered this turn (`--offered`, minus
//!   `--disabled`) with their input schemas. Annotations are mapped from the
//!   tools' flags: a `read_only` tool is `readOnlyHint` and
//!   `idempotentHint`; any other is `destructiveHint`; `exec` alone is
//!   `openWorldHint` (the others only touch the workspace, so they say
//!   `openWorldHint: false` explicitly, since MCP defaults it to true). The
//!   scheduler's flags are under `_meta`: `toolexec/concurrencySafe` and
//!   `toolexec/readOnly`.
//! - `tools/call` runs the call through [`Executor::run_call`]: calls that
//!   arrive concurrently (rmcp handles each request on its own task) are
//!   scheduled by the batch rules. Every outcome of the pipeline (guard
//!   refusals, timeouts, tool errors, panics, cancellations) is a result
//!   with `isError` and our exact text; the change report is part of the
//!   text. The result's `_meta` carries `toolexec/errorKind`,
//!   `toolexec/changes` (the complete structured list) and
//!   `toolexec/spillPath` when they apply. A tool name that is not
//!   registered at all is a JSON-RPC error -32602 (`unknown tool: NAME`), as
//!   the MCP specification asks; a registered tool that is disabled or not
//!   offered goes through the guard and gets its refusal as a result.
//! - `notifications/cancelled` fires the call's cancellation token: a call
//!   still waiting for its slot ends without running, a running one is
//!   stopped (exec kills its process group). rmcp sends no response for a
//!   cancelled request, as the specification asks.
//! - When the client closes stdin, the calls still running are cancelled at
//!   once (see [`Lifecycle`]); SIGTERM and SIGINT cancel them too and exit
//!   with 128 + the signal number.
//!
//! Only stdio is served; nothing but the protocol goes to stdout.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool as McpTool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::sync::CancellationToken;
use toolexec_core::{
    BatchOptions, ErrorKind, Executor, ExecutorBuilder, ToolCall, ToolInfo, ToolResult,
};

use crate::run::{build_redactor, builtin_executor_builder, ToolOptions};
use crate::CliError;

/// `_meta` key of a tool: whether it may run alongside other calls.
pub const META_CONCURRENCY_SAFE: &str = "toolexec/concurrencySafe";
/// `_meta` key of a tool: whether toolexec treats it as read-only (no
/// snapshot, three times the budget).
pub const META_READ_ONLY: &str = "toolexec/readOnly";
/// `_meta` key of a result: `invocation`, `execution`, `timeout` or
/// `cancelled` (absent on success).
pub const META_ERROR_KIND: &str = "toolexec/errorKind";
/// `_meta` key of a result: every changed file, as `run` prints them.
pub const META_CHANGES: &str = "toolexec/changes";
/// `_meta` key of a result: the spill file of an oversized result.
pub const META_SPILL_PATH: &str = "toolexec/spillPath";

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
    /// The size limits these options ask for. A relative `--scratch` is
    /// made absolute, so that the spill message names a path the model can
    /// read whatever its working directory.
    pub fn limits(&self) -> Result<toolexec_limiter::Limits, CliError> {
        let mut limits = toolexec_limiter::Limits::default()
            .budget(usize::try_from(self.budget).unwrap_or(usize::MAX))
            .max_line(usize::try_from(self.max_line).unwrap_or(usize::MAX));
        if let Some(scratch) = &self.scratch {
            let scratch = std::path::absolute(scratch)
                .map_err(|e| CliError::Usage(format!("--scratch {}: {e}", scratch.display())))?;
            limits = limits.scratch_dir(scratch);
        }
        Ok(limits)
    }

    /// Applies the limits, scheduling, turn, deadline, validation and
    /// redaction options to `builder`.
    pub fn apply(
        &self,
        builder: ExecutorBuilder,
        redactor: Arc<toolexec_redact::Redactor>,
    ) -> Result<ExecutorBuilder, CliError> {
        let max_concurrency = usize::try_from(self.max_concurrency).unwrap_or(usize::MAX);
        Ok(builder
            .max_concurrency(max_concurrency)
            .limits(Some(self.limits()?))
            .offered(self.offered.clone())
            .disabled(self.disabled.clone())
            .timeout_override(self.timeout_ms.map(Duration::from_millis))
            .full_validation(self.full_validation)
            .redactor(Some(redactor)))
    }

    /// The snapshot settings for a workspace diff of `workdir`: the default
    /// bounds and, unless `--no-watch`, a watcher of `workdir` and the
    /// `--watch-root` directories (each shown under its directory name,
    /// `NAME:path`). The watcher's start-up walk runs on the blocking pool.
    pub async fn snapshot_config(
        &self,
        workdir: &Path,
    ) -> Result<toolexec_core::SnapshotConfig, CliError> {
        let config = toolexec_core::SnapshotConfig::new();
        if self.no_watch {
            if let Some(root) = self.watch_roots.first() {
                return Err(CliError::Usage(format!(
                    "--watch-root {} cannot be used with --no-watch",
                    root.display()
                )));
            }
            return Ok(config);
        }
        let mut extra = Vec::with_capacity(self.watch_roots.len());
        for root in &self.watch_roots {
            if !root.is_dir() {
                return Err(CliError::Usage(format!(
                    "--watch-root {}: not a directory",
                    root.display()
                )));
            }
            let canonical = root
                .canonicalize()
                .map_err(|e| CliError::Usage(format!("--watch-root {}: {e}", root.display())))?;
            let name = canonical
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "root".to_string());
            extra.push(toolexec_snapshot::WatchRoot::new(name, canonical));
        }
        let workdir = workdir.to_path_buf();
        let bounds = config.bounds.clone();
        let started = tokio::task::spawn_blocking(move || {
            toolexec_snapshot::Watcher::start(
                &workdir,
                extra,
                &bounds,
                toolexec_snapshot::WatchOptions::default(),
            )
        })
        .await
        .map_err(|e| CliError::Runtime(format!("the snapshot watcher did not start: {e}")))?;
        let watcher = started.map_err(|e| CliError::Usage(format!("--watch-root: {e}")))?;
        Ok(config.watcher(Some(Arc::new(watcher))))
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
}

/// The directory `dir`, canonicalized; a usage error when it is not one.
pub fn canonical_workdir(dir: &Path) -> Result<PathBuf, CliError> {
    if !dir.is_dir() {
        return Err(CliError::Usage(format!(
            "--workdir {}: not a directory",
            dir.display()
        )));
    }
    dir.canonicalize()
        .map_err(|e| CliError::Usage(format!("--workdir {}: {e}", dir.display())))
}

/// The identity toolexec gives itself in the MCP handshake.
pub fn implementation(name: &str) -> Implementation {
    Implementation::new(name, env!("CARGO_PKG_VERSION"))
}

/// A JSON value as the object a JSON Schema must be in MCP (a schema that is
/// not an object becomes `{}`: no constraint).
pub fn schema_object(schema: &Value) -> Arc<Map<String, Value>> {
    match schema {
        Value::Object(map) => Arc::new(map.clone()),
        _ => Arc::new(Map::new()),
    }
}

/// The MCP definition of a built-in tool: schema, annotations mapped from
/// its flags, and the scheduler's flags under `_meta`.
pub fn builtin_tool_definition(info: &ToolInfo) -> McpTool {
    let mut annotations = ToolAnnotations::new()
        .read_only(info.read_only)
        .open_world(info.name == "exec");
    annotations = if info.read_only {
        annotations.idempotent(true)
    } else {
        annotations.destructive(true)
    };
    let mut meta = MetaObject::new();
    meta.0.insert(
        META_CONCURRENCY_SAFE.to_string(),
        Value::Bool(info.concurrency_safe),
    );
    meta.0
        .insert(META_READ_ONLY.to_string(), Value::Bool(info.read_only));
    McpTool::new(
        info.name.clone(),
        info.description.clone(),
        schema_object(&info.input_schema),
    )
    .with_annotations(annotations)
    .with_meta(meta)
}

/// The raw JSON text of a call's arguments (`{}` when there are none).
pub fn arguments_text(arguments: Option<Map<String, Value>>) -> String {
    match arguments {
        Some(map) => Value::Object(map).to_string(),
        None => "{}".to_string(),
    }
}

/// The MCP result of a pipeline result: one text block with the content
/// (change report included), `isError`, and the error kind, the complete
/// list of changes and the spill path under `_meta`.
pub fn call_tool_result(result: ToolResult) -> CallToolResult {
    let ToolResult {
        is_error,
        error_kind,
        content,
        changes,
        spill_path,
        ..
    } = result;
    let blocks = if content.is_empty() {
        Vec::new()
    } else {
        vec![ContentBlock::text(content)]
    };
    let mut out = if is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    };
    let mut meta = MetaObject::new();
    if let Some(kind) = error_kind {
        meta.0.insert(
            META_ERROR_KIND.to_string(),
            Value::String(kind.as_str().to_string()),
        );
    }
    if !changes.is_empty() {
        if let Ok(list) = serde_json::to_value(&changes) {
            meta.0.insert(META_CHANGES.to_string(), list);
        }
    }
    if let Some(path) = spill_path {
        meta.0.insert(
            META_SPILL_PATH.to_string(),
            Value::String(path.display().to_string()),
        );
    }
    if !meta.0.is_empty() {
        out.meta = Some(meta);
    }
    out
}

/// The JSON-RPC error for a tool name that is not registered.
pub fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(format!("unknown tool: {name}"), None)
}

/// Whether `kind` is an outcome in which the tool answered (success or its
/// own error), as opposed to a refusal, timeout or cancellation.
pub fn tool_answered(kind: Option<ErrorKind>) -> bool {
    matches!(kind, None | Some(ErrorKind::Execution))
}

/// The tools of the current turn (offered and not disabled), as MCP
/// definitions built by `define`.
pub fn listed_tools(
    executor: &Executor,
    mut define: impl FnMut(&ToolInfo) -> Option<McpTool>,
) -> Vec<McpTool> {
    executor
        .catalog()
        .iter()
        .filter(|info| info.offered && !info.disabled)
        .filter_map(&mut define)
        .collect()
}

/// How long in-flight calls get to end after a termination signal.
const SIGNAL_DRAIN: Duration = Duration::from_secs(2);

/// The life of a server: calls in flight and the token that stops them all.
///
/// rmcp, when the client closes stdin, first waits up to 5 s for the
/// handlers still running and only then cancels them; MCP clients commonly
/// send SIGTERM 2 s after closing stdin, and a process killed by it would
/// leave exec's children behind. So toolexec watches stdin itself
/// ([`Lifecycle::stdin`]): at end of input every call in flight is
/// cancelled at once (exec kills its process group). SIGTERM and SIGINT
/// do the same, then the process exits with 128 + the signal number.
#[derive(Debug, Default)]
pub struct Lifecycle {
    shutdown: CancellationToken,
    in_flight: AtomicUsize,
}

/// Decrements the in-flight count when a call ends.
struct Flight<'a>(&'a AtomicUsize);

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Lifecycle {
    /// A new life: nothing in flight, not shut down.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `call` on `executor`, cancelled when the client cancels the
    /// request (`request`) or the server shuts down.
    pub async fn run_call(
        &self,
        executor: &Executor,
        call: ToolCall,
        request: &CancellationToken,
    ) -> ToolResult {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let _flight = Flight(&self.in_flight);
        let token = self.shutdown.child_token();
        let options = BatchOptions::new().cancel(token.clone());
        let run = executor.run_call(call, &options);
        tokio::pin!(run);
        tokio::select! {
            biased;
            result = &mut run => result,
            () = request.cancelled() => {
                token.cancel();
                run.await
            }
        }
    }

    /// Cancels every call in flight and every later one.
    pub fn shut_down(&self) {
        self.shutdown.cancel();
    }

    /// Waits until no call is in flight, at most `limit`.
    pub async fn drain(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while self.in_flight.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Our stdin, shutting the server down when it ends.
    pub fn stdin(&self) -> EofSignal<tokio::io::Stdin> {
        EofSignal {
            inner: tokio::io::stdin(),
            token: self.shutdown.clone(),
        }
    }

    /// The stdio transport: [`Lifecycle::stdin`] and stdout.
    pub fn stdio(&self) -> (EofSignal<tokio::io::Stdin>, tokio::io::Stdout) {
        (self.stdin(), tokio::io::stdout())
    }

    /// On SIGTERM or SIGINT: cancels the calls in flight, gives them
    /// [`SIGNAL_DRAIN`] to end, and returns the exit status (128 + signal).
    pub async fn on_signal(&self) -> i32 {
        let code = termination_signal().await;
        eprintln!("toolexec: stopping on signal {}", code - 128);
        self.shut_down();
        self.drain(SIGNAL_DRAIN).await;
        code
    }
}

/// Completes on SIGTERM (143) or SIGINT (130); never when the handlers
/// cannot be installed.
async fn termination_signal() -> i32 {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => tokio::select! {
            _ = term.recv() => 143,
            _ = int.recv() => 130,
        },
        _ => std::future::pending().await,
    }
}

/// Exits the process at once with `code`, after flushing stdout and
/// stderr.
///
/// Used instead of returning from `main` when our client may still hold
/// stdin open: tokio reads stdin on a blocking thread that only returns once
/// the client writes or closes it, and the runtime waits for that thread
/// when it shuts down.
pub fn exit_now(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code);
}

/// An [`AsyncRead`] that fires a token when its input ends (or fails).
#[derive(Debug)]
pub struct EofSignal<R> {
    inner: R,
    token: CancellationToken,
}

impl<R: AsyncRead + Unpin> AsyncRead for EofSignal<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let had_room = buf.remaining() > 0;
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        match &poll {
            Poll::Ready(Ok(())) if had_room && buf.filled().len() == before => self.token.cancel(),
            Poll::Ready(Err(_)) => self.token.cancel(),
            _ => {}
        }
        poll
    }
}

/// The MCP server of `toolexec mcp`.
#[derive(Debug, Clone)]
pub struct BuiltinServer {
    executor: Executor,
    life: Arc<Lifecycle>,
}

impl BuiltinServer {
    /// A server running calls on `executor`.
    pub fn new(executor: Executor, life: Arc<Lifecycle>) -> Self {
        BuiltinServer { executor, life }
    }
}

impl ServerHandler for BuiltinServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(implementation("toolexec"))
            .with_instructions(format!(
                "Tools run in the workspace {} through toolexec: inputs are checked, every call has a \
                 deadline, secrets are masked, results are bounded (large ones are spilled to a file \
                 you can read), and the workspace changes a call made are listed after its output.",
                self.executor.workdir().display()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(listed_tools(
            &self.executor,
            |info| Some(builtin_tool_definition(info)),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if self.executor.tool(&request.name).is_none() {
            return Err(unknown_tool(&request.name));
        }
        let call = ToolCall::new(
            context.id.to_string(),
            request.name.to_string(),
            arguments_text(request.arguments),
        );
        let result = self.life.run_call(&self.executor, call, &context.ct).await;
        Ok(call_tool_result(result).into())
    }
}

/// Runs `toolexec mcp` until the client closes stdin.
pub async fn run(args: McpArgs) -> Result<(), CliError> {
    let workdir = canonical_workdir(&args.workdir)?;
    let redactor = Arc::new(build_redactor(args.pipeline.rules.as_deref(), true)?);
    let snapshot = args.pipeline.snapshot_config(&workdir).await?;
    // read may open spill files, so that the model can follow a spill message.
    let options = ToolOptions {
        allow_env: args.allow_env.clone(),
        read_roots: vec![args.pipeline.limits()?.scratch_dir],
        redactor: Some((*redactor).clone()),
    };
    let executor = args
        .pipeline
        .apply(builtin_executor_builder(&workdir, &options), redactor)?
        .snapshot(Some(snapshot))
        .build()
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    let life = Arc::new(Lifecycle::new());
    // Once installed, tokio keeps the signal handlers for the life of the
    // process: one listener serves both phases.
    let signal = life.on_signal();
    tokio::pin!(signal);
    let server = BuiltinServer::new(executor, life.clone());
    let running = tokio::select! {
        running = server.serve(life.stdio()) => {
            running.map_err(|e| CliError::Runtime(format!("mcp: the MCP handshake failed: {e}")))?
        }
        code = &mut signal => exit_now(code),
    };
    tokio::select! {
        done = running.waiting() => {
            done.map_err(|e| CliError::Runtime(format!("mcp: the server task failed: {e}")))?;
            Ok(())
        }
        code = &mut signal => exit_now(code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolexec_core::{ChangeKind, FileChange};

    fn info(name: &str, read_only: bool, concurrency_safe: bool) -> ToolInfo {
        ToolInfo {
            name: name.to_string(),
            description: format!("the {name} tool"),
            input_schema: json!({"type": "object", "required": ["path"]}),
            read_only,
            concurrency_safe,
            offered: true,
            disabled: false,
        }
    }

    #[test]
    fn annotations_follow_the_flags() {
        let read =
            serde_json::to_value(builtin_tool_definition(&info("read", true, true))).unwrap();
        assert_eq!(
            read["annotations"],
            json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false})
        );
        assert_eq!(
            read["_meta"],
            json!({"toolexec/concurrencySafe": true, "toolexec/readOnly": true})
        );
        assert_eq!(
            read["inputSchema"],
            json!({"type": "object", "required": ["path"]})
        );

        let exec =
            serde_json::to_value(builtin_tool_definition(&info("exec", false, true))).unwrap();
        assert_eq!(
            exec["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true})
        );
        let write =
            serde_json::to_value(builtin_tool_definition(&info("write", false, false))).unwrap();
        assert_eq!(
            write["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false})
        );
        assert_eq!(write["_meta"]["toolexec/concurrencySafe"], json!(false));
    }

    #[test]
    fn a_schema_that_is_not_an_object_becomes_empty() {
        assert!(schema_object(&json!(true)).is_empty());
        assert_eq!(
            schema_object(&json!({"type": "object"}))["type"],
            json!("object")
        );
    }

    #[test]
    fn results_carry_kind_changes_and_spill_path_in_meta() {
        let result = ToolResult {
            id: "1".into(),
            name: "write".into(),
            is_error: true,
            error_kind: Some(ErrorKind::Timeout),
            content: "timed out".into(),
            changes: vec![FileChange {
                path: "a.txt".into(),
                kind: ChangeKind::Created,
                old_size: None,
                new_size: Some(3),
            }],
            spill_path: Some(PathBuf::from("/tmp/x.txt")),
        };
        let out = serde_json::to_value(call_tool_result(result)).unwrap();
        assert_eq!(out["isError"], json!(true));
        assert_eq!(
            out["content"],
            json!([{"type": "text", "text": "timed out"}])
        );
        assert_eq!(out["_meta"]["toolexec/errorKind"], json!("timeout"));
        assert_eq!(
            out["_meta"]["toolexec/changes"],
            json!([{"path": "a.txt", "kind": "created", "old_size": null, "new_size": 3}])
        );
        assert_eq!(out["_meta"]["toolexec/spillPath"], json!("/tmp/x.txt"));

        let ok = ToolResult {
            id: "2".into(),
            name: "read".into(),
            is_error: false,
            error_kind: None,
            content: "fine".into(),
            changes: Vec::new(),
            spill_path: None,
        };
        let out = serde_json::to_value(call_tool_result(ok)).unwrap();
        assert_eq!(out["isError"], json!(false));
        assert!(out.get("_meta").is_none());
    }

    #[test]
    fn missing_arguments_are_an_empty_object() {
        assert_eq!(arguments_text(None), "{}");
        let mut map = Map::new();
        map.insert("path".into(), json!("a"));
        assert_eq!(arguments_text(Some(map)), r#"{"path":"a"}"#);
    }
}
