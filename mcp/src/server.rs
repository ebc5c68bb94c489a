//! The MCP server of an [`Executor`] (`toolexec mcp`): its tools
//! through the whole pipeline.
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
//!   once (see [`Lifecycle`]); a shutdown request ([`Server::shutdown_on`];
//!   SIGTERM and SIGINT in the command line) cancels them too.
//!
//! Over stdio nothing but the protocol goes to stdout.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

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
use toolexec_core::{BatchOptions, ErrorKind, Executor, ToolCall, ToolInfo, ToolResult};

use crate::{Error, Outcome, Transport};

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
    let mut tool = McpTool::new(
        info.name.clone(),
        info.description.clone(),
        schema_object(&info.input_schema),
    )
    .with_annotations(annotations)
    .with_meta(meta);
    tool.title = builtin_title(&info.name).map(str::to_string);
    tool
}

/// The human-readable title of a built-in tool (none for other tools).
pub fn builtin_title(name: &str) -> Option<&'static str> {
    Some(match name {
        "read" => "Read file",
        "write" => "Write file",
        "edit" => "Edit file",
        "grep" => "Search file contents",
        "glob" => "Find files by pattern",
        "exec" => "Run shell command",
        "tool_search" => "Search tools",
        _ => return None,
    })
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

/// How long in-flight calls get to end after a shutdown request.
pub const SHUTDOWN_DRAIN: Duration = Duration::from_secs(2);

/// The life of a server: calls in flight and the token that stops them all.
///
/// rmcp, when the client closes stdin, first waits up to 5 s for the
/// handlers still running and only then cancels them; MCP clients commonly
/// send SIGTERM 2 s after closing stdin, and a process killed by it would
/// leave exec's children behind. So toolexec watches stdin itself
/// ([`Lifecycle::stdin`]): at end of input every call in flight is
/// cancelled at once (exec kills its process group). A shutdown request
/// (SIGTERM or SIGINT in the command line) does the same.
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

    /// A new life that also shuts down when `parent` fires.
    pub fn child_of(parent: &CancellationToken) -> Self {
        Lifecycle {
            shutdown: parent.child_token(),
            in_flight: AtomicUsize::new(0),
        }
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

    /// Waits until `requested` fires, then cancels the calls in flight
    /// and gives them [`SHUTDOWN_DRAIN`] to end.
    pub async fn shut_down_when(&self, requested: &CancellationToken) {
        requested.cancelled().await;
        self.shut_down();
        self.drain(SHUTDOWN_DRAIN).await;
    }
}

/// Completes on SIGTERM (with 143), SIGINT (with 130) or SIGHUP (with
/// 129), the exit status a command should end with; never when the
/// handlers cannot be installed.
///
/// Once installed, tokio keeps the handlers for the life of the process.
pub async fn termination_signal() -> i32 {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(mut term), Ok(mut int), Ok(mut hup)) => tokio::select! {
            _ = term.recv() => 143,
            _ = int.recv() => 130,
            _ = hup.recv() => 129,
        },
        _ => std::future::pending().await,
    }
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
    /// Dropped (and an ephemeral directory removed) with the last clone of
    /// the server, when its MCP session ends.
    _scratch: Option<Arc<toolexec_limiter::ScratchSession>>,
}

impl BuiltinServer {
    /// A server running calls on `executor`.
    pub fn new(executor: Executor, life: Arc<Lifecycle>) -> Self {
        BuiltinServer::of_session(Session::new(executor), life)
    }

    /// A server running the calls of `session`.
    pub fn of_session(session: Session, life: Arc<Lifecycle>) -> Self {
        BuiltinServer {
            executor: session.executor,
            life,
            _scratch: session.scratch.map(Arc::new),
        }
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
        let run = self.life.run_call(&self.executor, call, &context.ct);
        let result = match context.meta.get_progress_token() {
            Some(token) => {
                let (sink, forward) = McpProgress::start(context.peer.clone(), token);
                let result = toolexec_core::with_progress_sink(sink, run).await;
                // The reports sent so far go out before the result.
                let _ = tokio::time::timeout(Duration::from_secs(1), forward).await;
                result
            }
            None => run.await,
        };
        Ok(call_tool_result(result).into())
    }
}

/// Sends the progress reports of one call to the client that asked for
/// them (`notifications/progress` with its token), in order.
struct McpProgress {
    tx: tokio::sync::mpsc::UnboundedSender<toolexec_core::Progress>,
}

impl McpProgress {
    /// The sink, and the task that forwards its reports; the task ends
    /// once the sink is dropped and everything was sent.
    fn start(
        peer: rmcp::Peer<RoleServer>,
        token: rmcp::model::ProgressToken,
    ) -> (Arc<McpProgress>, tokio::task::JoinHandle<()>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<toolexec_core::Progress>();
        let forward = tokio::spawn(async move {
            while let Some(report) = rx.recv().await {
                let mut params =
                    rmcp::model::ProgressNotificationParam::new(token.clone(), report.progress);
                params.total = report.total;
                params.message = report.message;
                // The client may be gone; progress is best effort.
                if peer.notify_progress(params).await.is_err() {
                    break;
                }
            }
        });
        (Arc::new(McpProgress { tx }), forward)
    }
}

impl toolexec_core::ProgressSink for McpProgress {
    fn progress(&self, _call_id: &str, report: toolexec_core::Progress) {
        let _ = self.tx.send(report);
    }
}

/// What one MCP session runs its calls on: an executor and, when it has
/// one of its own, the scratch session holding its spill files (removed
/// when the MCP session ends, for an ephemeral one).
#[derive(Debug)]
pub struct Session {
    executor: Executor,
    scratch: Option<toolexec_limiter::ScratchSession>,
}

impl Session {
    /// A session running its calls on `executor`.
    pub fn new(executor: Executor) -> Self {
        Session {
            executor,
            scratch: None,
        }
    }

    /// Keeps `scratch` (the executor's spill directory) for the life of the
    /// MCP session.
    pub fn with_scratch(mut self, scratch: toolexec_limiter::ScratchSession) -> Self {
        self.scratch = Some(scratch);
        self
    }
}

impl From<Executor> for Session {
    fn from(executor: Executor) -> Self {
        Session::new(executor)
    }
}

/// Makes the [`Session`] of each MCP session.
pub type SessionFactory = Arc<dyn Fn() -> Result<Session, Error> + Send + Sync>;

/// An MCP server of an [`Executor`]: its tools, through its whole pipeline.
///
/// Over stdio there is one session; over Streamable HTTP each session gets
/// the executor its [factory](Server::per_session) makes (own turn state,
/// read-before-edit tracker and scratch directory), or a clone of the one
/// executor given to [`Server::new`] (then the sessions share them).
#[derive(Clone)]
pub struct Server {
    sessions: SessionFactory,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

impl Server {
    /// A server of `executor` (shared by every HTTP session).
    pub fn new(executor: Executor) -> Self {
        Server::per_session(move || Ok(Session::new(executor.clone())))
    }

    /// A server that makes a new [`Session`] (its executor, its scratch)
    /// for each MCP session.
    pub fn per_session(
        factory: impl Fn() -> Result<Session, Error> + Send + Sync + 'static,
    ) -> Self {
        Server {
            sessions: Arc::new(factory),
            shutdown: CancellationToken::new(),
        }
    }

    /// Shuts the server down when `token` fires: the calls in flight are
    /// cancelled (exec kills its processes) and get [`SHUTDOWN_DRAIN`] to
    /// end; [`Server::serve`] then returns [`Outcome::Shutdown`].
    pub fn shutdown_on(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// Serves until the client goes away (stdio: end of input) or the
    /// shutdown token fires.
    pub async fn serve(self, transport: Transport) -> Result<Outcome, Error> {
        match transport {
            Transport::Stdio => {
                let session = (self.sessions)()?;
                let life = Arc::new(Lifecycle::new());
                let handler = BuiltinServer::of_session(session, life.clone());
                serve_stdio(handler, &life, &self.shutdown).await
            }
            Transport::Http(options) => {
                let sessions = self.sessions.clone();
                let shutdown = self.shutdown.clone();
                let factory = move || {
                    let session = sessions().map_err(std::io::Error::other)?;
                    let life = Arc::new(Lifecycle::child_of(&shutdown));
                    Ok(BuiltinServer::of_session(session, life))
                };
                crate::http::serve_http(factory, options, self.shutdown).await
            }
        }
    }
}

/// Serves `executor` over `transport` until the client goes away (see
/// [`Server`] for more control).
pub async fn serve(executor: Executor, transport: Transport) -> Result<Outcome, Error> {
    Server::new(executor).serve(transport).await
}

/// Serves `handler` on our stdio until the client closes stdin or
/// `shutdown` fires.
pub(crate) async fn serve_stdio<H: ServerHandler>(
    handler: H,
    life: &Arc<Lifecycle>,
    shutdown: &CancellationToken,
) -> Result<Outcome, Error> {
    let stop = life.shut_down_when(shutdown);
    tokio::pin!(stop);
    let running = tokio::select! {
        running = handler.serve(life.stdio()) => {
            running.map_err(|e| Error::Handshake(e.to_string()))?
        }
        () = &mut stop => return Ok(Outcome::Shutdown),
    };
    tokio::select! {
        done = running.waiting() => {
            done.map_err(|e| Error::Server(e.to_string()))?;
            Ok(Outcome::ClientClosed)
        }
        () = &mut stop => Ok(Outcome::Shutdown),
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
                absolute: "/work/a.txt".into(),
                kind: ChangeKind::Created,
                old_size: None,
                new_size: Some(3),
            }],
            spill_path: Some(std::path::PathBuf::from("/tmp/x.txt")),
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
