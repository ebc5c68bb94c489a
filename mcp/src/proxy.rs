//! The MCP proxy (`toolexec proxy [options] -- CMD ARGS…`): an MCP
//! server that re-exposes the tools of the child MCP server CMD, every call
//! through the toolexec pipeline.
//!
//! Each child tool is wrapped as a [`toolexec_core::Tool`] whose `call`
//! forwards the call to the child, so the [`Executor`] gives it the guard
//! (the child's input schema, `--disabled`, `--offered`), the deadline
//! (`--timeout-ms`, default 120 s), redaction, the limiter and, with
//! `--workdir`, the workspace diff.
//!
//! Decisions:
//! - **The child process** is spawned by toolexec itself (stdin and stdout
//!   piped, stderr inherited, so the child's log lines reach our stderr
//!   unchanged) so that its exit status can be reported, in a process group
//!   of its own ([`spawn_child`]). It keeps our working directory. Its
//!   whole tree is contained with the exec sandbox's mechanism
//!   ([`toolexec_tools::sandbox::contain`], the containment of `--sandbox
//!   off`; with `--sandbox workspace-write|read-only` the sandbox itself):
//!   a supervisor with a parent-death signal (SIGKILL) runs it in a PID
//!   namespace of its own, so that when the proxy dies, **SIGKILL of the
//!   proxy included**, every process of the tree dies (also those that
//!   left the group or the session). Where user and PID namespaces are not
//!   available, the proxy says so once on stderr and falls back to the
//!   process group plus a parent-death signal on the direct child: then a
//!   SIGKILL of the proxy ends only that child. The contained child sees
//!   its own PID namespace (its `/proc` shows only its tree; its pid is
//!   small) and IPC namespace, and keeps our uid and gid (mapped 1:1 in a
//!   user namespace of its own), network and filesystem (a mount namespace
//!   whose only change is that `/proc`). Whenever the child ends, or is
//!   stopped, a SIGKILL goes to what is left of its group ([`end_group`]),
//!   so a wrapper (`npx`, `sh -c`, `uv run`) leaves no server behind: after
//!   end of input, a shutdown request, and a crash of the child alike.
//!   When our client closes stdin, the calls in flight
//!   are cancelled at once (the child is told), the child's stdin is closed
//!   and it gets 3 s to exit before it is killed; [`Proxy::serve`] returns
//!   [`Outcome::ClientClosed`] (the command exits 0). On a shutdown request
//!   (SIGTERM or SIGINT in the command) the same happens with 0.5 s for the
//!   child ([`Outcome::Shutdown`]; the command exits with 128 + the signal
//!   number).
//! - **The tool list** is read at start-up (`tools/list`, all pages) and
//!   again on each `notifications/tools/list_changed` of the child: the
//!   executor is rebuilt for the new list and our client gets
//!   `tools/list_changed` (we declare `tools.listChanged`). Every tool
//!   field passes through: those rmcp models (title, annotations, icons,
//!   `_meta`, …) as such, the others (`execution` with `taskSupport`, and
//!   whatever a later protocol version adds) carried past rmcp's types
//!   through `_meta["toolexec/fields"]` and lifted back to the top level
//!   on the wire, so the client sees them exactly as the child sent them
//!   ([`crate::passthrough`]). A tool whose input schema the guard refuses
//!   (say a remote `$ref`) and a second tool of the same name are left
//!   out, with a line on stderr.
//! - **Tasks** (MCP 2025-11-25 `execution.taskSupport`): the proxy lists
//!   the field unchanged but runs no tasks itself and declares no `tasks`
//!   capability (rmcp does not parse the child's), so every call goes to
//!   the child as a plain `tools/call`. A task-required tool called that
//!   way gets the child's answer unchanged in substance: by the
//!   specification a -32601 error, which becomes an `execution` error
//!   result naming the code and the child's message (as every JSON-RPC
//!   error of the child does); a task-optional tool simply runs.
//! - **Read-only and concurrency.** A child's `readOnlyHint` is trusted only
//!   with `--trust-annotations`; a trusted read-only tool gets no snapshot and
//!   three times the budget. Trusted read-only tools are concurrency-safe.
//!   Other tools are concurrency-safe only without `--workdir`: with a
//!   workspace diff each such call runs alone, so that the diff it reports
//!   is its own.
//! - **Content.** Text blocks are joined with newlines; an embedded text
//!   resource contributes its text; images, audio, binary resources and
//!   resource links become one bracketed line each (`[image: image/png,
//!   1234 bytes of base64 left out]`), since the pipeline carries text only.
//!   A result with `structuredContent` and no text gets the JSON text of
//!   the structured content as its text.
//! - **`structuredContent`** is redacted (each string of the value, then
//!   its JSON text as a whole, kept when that still parses) and passed on
//!   when its JSON text fits the result's effective budget (the budget,
//!   three times for a successful trusted read-only call). A larger one is
//!   left out and `_meta["toolexec/structuredContent"]` says why; its text
//!   form in the content went through the limiter (and spill) as usual. It
//!   is passed on only when the child answered (success or the tool's own
//!   error), never after a timeout or cancellation. Since the proxy may thus
//!   change or drop it, a child's `outputSchema` is not advertised as such
//!   (clients would validate against it) but under
//!   `_meta["toolexec/outputSchema"]`.
//! - **Errors.** `isError` from the child makes the call an `execution`
//!   error with the child's text. A JSON-RPC error from the child, a child
//!   that closed the connection, or an answer that is not a tool result
//!   also end as `execution` errors with a sentence naming the server.
//! - **Deadline and cancellation.** When the deadline passes or our client
//!   cancels, the child is sent `notifications/cancelled` for its request
//!   (at once when the call's token fires; also when the forwarding future
//!   is dropped before the child answered).
//! - **Progress** (best effort): rmcp gives every request to the child its
//!   own progress token; a `notifications/progress` from the child for that
//!   token is sent to our client with the token our client gave in its
//!   `tools/call`, the message redacted. Calls without a caller token get
//!   none. rmcp handles notifications on separate tasks, so their order is
//!   not guaranteed.
//! - **Capabilities.** Toward the child the proxy declares sampling,
//!   elicitation and roots (with `listChanged`) on behalf of its client, and
//!   forwards the child's `sampling/createMessage`, `elicitation/create`
//!   and `roots/list` to the client that initialized last (over stdio: the
//!   only one), returning the client's answer or error; with no client
//!   connected the child gets an error. Toward our client the proxy
//!   declares the child's own capabilities (resources, prompts,
//!   completions, logging), plus tools with `listChanged`.
//! - **Resources, prompts, completions, logging** of the child are
//!   re-exposed: `resources/list`, `resources/templates/list`,
//!   `resources/read` (text contents redacted), `resources/subscribe`,
//!   `prompts/list`, `prompts/get` (every string redacted),
//!   `completion/complete`, `logging/setLevel`; the child's logging
//!   messages (data redacted), resource updates and list changes are
//!   forwarded to our client. Its stderr reaches ours.
//! - **Hints that work.** When a result is spilled (or cut with a spill
//!   file), the proxy lists its own read-only tool `toolexec_read_spill`
//!   ([`crate::spill_tool`], reads only this proxy's spill files) from then
//!   on, sends `tools/list_changed`, and the result's hint names that tool
//!   instead of `read`.
//! - **Streamable HTTP** ([`crate::Transport::Http`]): each MCP session
//!   gets a child of its own, started when the session's `initialize`
//!   arrives (the answer waits for the child's handshake; a child that
//!   fails to start fails that `initialize` with an internal error naming
//!   it), with its own executor (turn state, read-before-edit state), its
//!   own scratch directory (an ephemeral session of the scratch root,
//!   removed with the session) and its own spill reader. The child's
//!   sampling, elicitation and roots requests go to that session's client.
//!   The child's tree ends when the session does: DELETE, the idle timeout
//!   (5 min, [`crate::HttpOptions::session_idle`]), or shutdown (the calls
//!   in flight are cancelled, each child gets 0.5 s). A child that dies on its
//!   own ends no other session: that session's calls fail with an
//!   `execution` error naming the exit (the client opens a new session);
//!   the proxy goes on serving. The child command of each session is a
//!   copy of the one given (program, arguments, environment changes,
//!   working directory: what [`std::process::Command`] lets one read
//!   back); a program that is not found (in `PATH`) is refused when the
//!   proxy starts ([`Error::SpawnChild`]), since no child runs before the
//!   first session. At most [`MAX_HTTP_SESSIONS`] sessions (64) have a
//!   child at a time: the next `initialize` fails with an internal error
//!   saying so until a session ends, so abandoned sessions cannot start an
//!   unbounded number of servers.
//! - **The parent-death signal** that ties a child's tree to the proxy
//!   follows the thread that spawned the child (a Linux rule): the child
//!   is spawned from the thread polling [`Proxy::serve`] (stdio) or a
//!   session's `initialize` (HTTP), so run the proxy on a runtime whose
//!   threads live as long as it (tokio's worker threads and a
//!   `block_on` thread do; a `spawn_blocking` thread does not).
//! - **When the child dies**, pending calls end with an `execution` error
//!   naming the server and its exit status; once they are answered (at most
//!   5 s), [`Proxy::serve`] returns [`Outcome::ChildExited`] (the command
//!   prints the exit status on stderr and exits with status 1).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult,
    CancelledNotification, CancelledNotificationParam, ClientCapabilities, ClientConfig,
    ClientNotification, ClientRequest, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, RequestId, ResourceContents, ServerCapabilities,
    ServerConfig, ServerResult, Tool as McpTool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RoleClient};
use rmcp::{
    ClientHandler, ErrorData as McpError, Peer, RoleServer, ServerHandler, ServiceError, ServiceExt,
};
use serde_json::Value;
use toolexec_core::{BuildError, Executor, Tool, ToolCall, ToolContext, ToolError, ToolFuture};

use tokio_util::sync::CancellationToken;

use crate::passthrough::{Lifting, Observed, RawFields, META_FIELDS};
use crate::pipeline::{canonical_workdir, PipelineOptions};
use crate::server::{
    arguments_text, call_tool_result, implementation, listed_tools, schema_object, tool_answered,
    unknown_tool, Lifecycle, META_CONCURRENCY_SAFE, META_READ_ONLY,
};
use crate::spill_tool::{retarget_hints, ReadSpill, READ_SPILL};
use crate::{Error, Outcome, Transport};

/// `_meta` key of a proxied tool: the child's `outputSchema`.
pub const META_OUTPUT_SCHEMA: &str = "toolexec/outputSchema";
/// `_meta` key of a result whose `structuredContent` was left out: why.
pub const META_STRUCTURED: &str = "toolexec/structuredContent";

/// How long the child gets for the MCP handshake and its tool list.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the child gets to exit after its stdin was closed.
const CHILD_EXIT_GRACE: Duration = Duration::from_secs(3);
/// How long pending calls get to be answered after the child died.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the child gets to exit when we were sent SIGTERM / SIGINT.
const SIGNAL_CHILD_GRACE: Duration = Duration::from_millis(500);
/// At most this many HTTP sessions (each with its own child) at a time.
pub const MAX_HTTP_SESSIONS: usize = 64;

/// Where a progress notification of the child goes: our client and the
/// token it gave.
#[derive(Debug, Clone)]
struct Route {
    peer: Peer<RoleServer>,
    token: ProgressToken,
}

/// What the proxy keeps per call in flight, by toolexec call id.
#[derive(Debug, Default)]
struct CallSlot {
    caller: Option<Route>,
    structured: Option<Value>,
}

/// State shared by the server, the forwarding tools and the child client.
#[derive(Debug)]
struct Shared {
    /// What the server side registered for each call in flight.
    calls: Mutex<HashMap<String, CallSlot>>,
    /// Child progress token → our caller.
    routes: Mutex<HashMap<ProgressToken, Route>>,
    redactor: Arc<toolexec_redact::Redactor>,
    /// The child program, for messages.
    program: String,
    /// How the child ended, once it did.
    exit: OnceLock<String>,
    /// Our client (the latest to initialize), to which the child's requests
    /// (sampling, elicitation, roots) and notifications go.
    client: Mutex<Option<Peer<RoleServer>>>,
    /// The server side, once it exists (to follow `tools/list_changed`).
    server: OnceLock<std::sync::Weak<ServerInner>>,
    /// The tool fields of the child that rmcp does not model.
    fields: Arc<RawFields>,
}

impl Shared {
    fn client(&self) -> Option<Peer<RoleServer>> {
        self.client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn no_client(&self, what: &str) -> McpError {
        McpError::internal_error(
            format!("toolexec proxy: no client is connected to answer {what}"),
            None,
        )
    }

    fn lock_calls(&self) -> std::sync::MutexGuard<'_, HashMap<String, CallSlot>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_routes(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Route>> {
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redactor.redact(text)
    }

    /// The sentence for a call the child could not answer.
    async fn failure(&self, err: ServiceError) -> ToolError {
        let program = &self.program;
        match err {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                // The exit status follows the closed pipe by a moment.
                for _ in 0..30 {
                    if self.exit.get().is_some() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                match self.exit.get() {
                    Some(status) => ToolError::new(format!(
                        "the MCP server {program} exited before answering ({status})"
                    )),
                    None => ToolError::new(format!(
                        "the MCP server {program} closed the connection before answering"
                    )),
                }
            }
            ServiceError::McpError(e) => ToolError::new(format!(
                "the MCP server {program} answered with error {}: {}",
                e.code.0, e.message
            )),
            other => ToolError::new(format!("the MCP server {program} did not answer: {other}")),
        }
    }
}

/// Removes a progress route when the forwarded call ends.
struct RouteGuard<'a> {
    shared: &'a Shared,
    token: Option<ProgressToken>,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.token.take() {
            self.shared.lock_routes().remove(&token);
        }
    }
}

/// Sends `notifications/cancelled` for a request to the child unless
/// disarmed: on demand, or when dropped still armed.
struct CancelGuard {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelGuard {
    fn send(&mut self, reason: &str) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let notification = ClientNotification::CancelledNotification(CancelledNotification::new(
            CancelledNotificationParam::new(Some(id), Some(reason.to_string())),
        ));
        runtime.spawn(async move {
            // A child that is gone needs no cancellation.
            let _ = peer.send_notification(notification).await;
        });
    }

    fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelGuard {
    fn drop(&mut self) {
        self.send("toolexec: the call was dropped");
    }
}

/// A child tool, wrapped so that the executor runs it.
#[derive(Debug, Clone)]
struct ForwardTool {
    name: String,
    description: String,
    schema: Value,
    read_only: bool,
    concurrency_safe: bool,
    peer: Peer<RoleClient>,
    shared: Arc<Shared>,
}

impl Tool for ForwardTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn read_only(&self, _input: &Value) -> bool {
        self.read_only
    }

    fn concurrency_safe(&self, _input: &Value) -> bool {
        self.concurrency_safe
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(self.forward(input, ctx))
    }
}

impl ForwardTool {
    async fn forward(&self, input: Value, ctx: ToolContext) -> Result<String, ToolError> {
        let shared = &*self.shared;
        let arguments = match input {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => {
                return Err(ToolError::new(format!(
                    "tool {}: invalid input: the arguments must be a JSON object",
                    self.name
                )))
            }
        };
        let mut params = CallToolRequestParams::new(self.name.clone());
        params.arguments = arguments;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = match self
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(err) => return Err(shared.failure(err).await),
        };
        let mut cancel = CancelGuard {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let caller = shared
            .lock_calls()
            .get(ctx.call_id())
            .and_then(|slot| slot.caller.clone());
        let _route = match caller {
            Some(route) => {
                shared
                    .lock_routes()
                    .insert(handle.progress_token.clone(), route);
                RouteGuard {
                    shared,
                    token: Some(handle.progress_token.clone()),
                }
            }
            None => RouteGuard {
                shared,
                token: None,
            },
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = ctx.cancelled() => {
                cancel.send("toolexec: deadline passed or call cancelled");
                // The executor drops this future after its grace period.
                std::future::pending().await
            }
        };
        cancel.disarm();
        let result = match response {
            Ok(ServerResult::CallToolResult(result)) => result,
            Ok(ServerResult::EmptyResult(_)) => CallToolResult::success(Vec::new()),
            Ok(ServerResult::InputRequiredResult(_)) => {
                return Err(ToolError::new(format!(
                    "the MCP server {} asked for more input (elicitation), which toolexec proxy does not support",
                    shared.program
                )))
            }
            Ok(_) => {
                return Err(ToolError::new(format!(
                    "the MCP server {} answered tools/call with something that is not a tool result",
                    shared.program
                )))
            }
            Err(err) => return Err(shared.failure(err).await),
        };
        let mut text = render_content(&result.content);
        if let Some(structured) = result.structured_content {
            if text.is_empty() {
                text = structured.to_string();
            }
            if let Some(slot) = shared.lock_calls().get_mut(ctx.call_id()) {
                slot.structured = Some(structured);
            }
        }
        if result.is_error == Some(true) {
            if text.is_empty() {
                text = format!(
                    "the MCP server {} reported an error without a message",
                    shared.program
                );
            }
            return Err(ToolError::new(text));
        }
        Ok(text)
    }
}

/// The text of a child's content blocks (see the module docs).
fn render_content(blocks: &[ContentBlock]) -> String {
    let mut parts: Vec<Cow<'_, str>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        let part = match block {
            ContentBlock::Text(text) => Cow::Borrowed(text.text.as_str()),
            ContentBlock::Image(image) => Cow::Owned(format!(
                "[image: {}, {} bytes of base64 left out]",
                image.mime_type,
                image.data.len()
            )),
            ContentBlock::Audio(audio) => Cow::Owned(format!(
                "[audio: {}, {} bytes of base64 left out]",
                audio.mime_type,
                audio.data.len()
            )),
            ContentBlock::Resource(embedded) => match &embedded.resource {
                ResourceContents::TextResourceContents { text, .. } => Cow::Borrowed(text.as_str()),
                ResourceContents::BlobResourceContents { uri, blob, .. } => Cow::Owned(format!(
                    "[resource {uri}: {} bytes of base64 left out]",
                    blob.len()
                )),
                _ => Cow::Borrowed("[resource left out]"),
            },
            ContentBlock::ResourceLink(link) => {
                Cow::Owned(format!("[resource link: {}]", link.uri))
            }
            _ => Cow::Borrowed("[content block left out]"),
        };
        parts.push(part);
    }
    parts.join("\n")
}

/// Masks secrets in a JSON value: each string (keys too), then the JSON
/// text as a whole so that rules that need the key (`"password": "…"`)
/// apply; the second step is kept only when its text still parses.
fn redact_json(redactor: &toolexec_redact::Redactor, value: Value) -> Value {
    fn leaves(redactor: &toolexec_redact::Redactor, value: Value) -> Value {
        match value {
            Value::String(s) => match redactor.redact(&s) {
                Cow::Owned(masked) => Value::String(masked),
                Cow::Borrowed(_) => Value::String(s),
            },
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| leaves(redactor, v)).collect())
            }
            Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| {
                        let k = redactor.redact(&k).into_owned();
                        (k, leaves(redactor, v))
                    })
                    .collect(),
            ),
            other => other,
        }
    }
    let value = leaves(redactor, value);
    let text = value.to_string();
    match redactor.redact(&text) {
        Cow::Borrowed(_) => value,
        Cow::Owned(masked) => serde_json::from_str(&masked).unwrap_or(value),
    }
}

/// The structured content to pass on, or why it was left out.
fn limit_structured(value: Value, budget: usize) -> Result<Value, String> {
    let chars = value.to_string().chars().count();
    if chars <= budget {
        Ok(value)
    } else {
        Err(format!(
            "left out: its JSON text has {chars} chars, more than the budget of {budget}; the text content carries the output"
        ))
    }
}

/// The MCP definition under which a child tool is re-exposed; `fields`:
/// the child's fields of it that rmcp does not model (carried in `_meta`,
/// see [`crate::passthrough`]).
fn proxied_definition(
    child: &McpTool,
    fields: Option<serde_json::Map<String, Value>>,
    read_only: bool,
    concurrency_safe: bool,
) -> McpTool {
    let mut tool = child.clone();
    let mut meta = tool.meta.take().unwrap_or_default();
    if let Some(fields) = fields {
        meta.0
            .insert(META_FIELDS.to_string(), Value::Object(fields));
    }
    if let Some(schema) = tool.output_schema.take() {
        meta.0.insert(
            META_OUTPUT_SCHEMA.to_string(),
            Value::Object((*schema).clone()),
        );
    }
    meta.0.insert(
        META_CONCURRENCY_SAFE.to_string(),
        Value::Bool(concurrency_safe),
    );
    meta.0
        .insert(META_READ_ONLY.to_string(), Value::Bool(read_only));
    tool.meta = Some(meta);
    tool
}

/// The MCP client toward the child: routes progress.
#[derive(Debug)]
struct ChildClient {
    shared: Arc<Shared>,
}

impl ClientHandler for ChildClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let route = self
            .shared
            .lock_routes()
            .get(&params.progress_token)
            .cloned();
        let Some(route) = route else {
            return;
        };
        let mut out = ProgressNotificationParam::new(route.token, params.progress);
        out.total = params.total;
        out.message = params.message.map(|m| self.shared.redact(&m).into_owned());
        // Our client may be gone; progress is best effort.
        let _ = route.peer.notify_progress(out).await;
    }

    #[allow(deprecated)] // sampling and roots: still in the protocol versions we speak
    fn get_info(&self) -> ClientConfig {
        // Declared to the child on behalf of our client (see module docs).
        let capabilities = ClientCapabilities::builder()
            .enable_roots()
            .enable_roots_list_changed()
            .enable_sampling()
            .enable_elicitation()
            .build();
        ClientConfig::new(capabilities, implementation("toolexec-proxy"))
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        params: rmcp::model::CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, McpError> {
        let peer = self
            .shared
            .client()
            .ok_or_else(|| self.shared.no_client("sampling/createMessage"))?;
        peer.create_message(params).await.map_err(forwarded_error)
    }

    async fn create_elicitation(
        &self,
        params: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, McpError> {
        let peer = self
            .shared
            .client()
            .ok_or_else(|| self.shared.no_client("elicitation/create"))?;
        peer.create_elicitation(params)
            .await
            .map_err(forwarded_error)
    }

    #[allow(deprecated)]
    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, McpError> {
        let peer = self
            .shared
            .client()
            .ok_or_else(|| self.shared.no_client("roots/list"))?;
        peer.list_roots().await.map_err(forwarded_error)
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        mut params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(peer) = self.shared.client() else {
            return;
        };
        params.data = redact_json(&self.shared.redactor, params.data);
        params.logger = params.logger.map(|l| self.shared.redact(&l).into_owned());
        let _ = peer.notify_logging_message(params).await;
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(peer) = self.shared.client() {
            let _ = peer.notify_resource_updated(params).await;
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(peer) = self.shared.client() {
            let _ = peer.notify_resource_list_changed().await;
        }
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(peer) = self.shared.client() {
            let _ = peer.notify_prompt_list_changed().await;
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(server) = self.shared.server.get().and_then(std::sync::Weak::upgrade) else {
            return;
        };
        let peer = context.peer.clone();
        // Not on the notification task: listing needs the child to answer.
        tokio::spawn(async move {
            match peer.list_all_tools().await {
                Ok(tools) => {
                    if let Err(err) = server.retool(tools, &peer) {
                        eprintln!("toolexec: proxy: the new tool list is not usable: {err}");
                        return;
                    }
                    if let Some(client) = server.shared.client() {
                        let _ = client.notify_tool_list_changed().await;
                    }
                }
                Err(err) => eprintln!("toolexec: proxy: listing the changed tools failed: {err}"),
            }
        });
    }
}

/// A JSON-RPC error for a request we forwarded and that failed.
fn forwarded_error(err: ServiceError) -> McpError {
    match err {
        ServiceError::McpError(e) => e,
        other => McpError::internal_error(format!("toolexec proxy: {other}"), None),
    }
}

/// Masks the texts of a resource's contents.
fn redact_contents(redactor: &toolexec_redact::Redactor, contents: &mut [ResourceContents]) {
    for item in contents {
        if let ResourceContents::TextResourceContents { text, .. } = item {
            if let Cow::Owned(masked) = redactor.redact(text) {
                *text = masked;
            }
        }
    }
}

/// Masks every text of a value that serializes to JSON (a prompt): each
/// string, as in structured content, and parsed back.
fn redact_typed<T: serde::Serialize + serde::de::DeserializeOwned>(
    redactor: &toolexec_redact::Redactor,
    value: T,
) -> T {
    match serde_json::to_value(&value) {
        Ok(json) => serde_json::from_value(redact_json(redactor, json)).unwrap_or(value),
        Err(_) => value,
    }
}

/// The MCP server side of the proxy.
#[derive(Debug, Clone)]
struct ProxyServer {
    inner: Arc<ServerInner>,
}

#[derive(Debug)]
struct ServerInner {
    /// The executor of the current tool list and the re-exposed
    /// definitions, by name (replaced when the child's list changes).
    tools: std::sync::RwLock<(Executor, Arc<HashMap<String, McpTool>>)>,
    /// What a new executor is built from.
    rebuild: Rebuild,
    /// The child's own capabilities (mirrored to our client).
    child_capabilities: ServerCapabilities,
    /// The child peer (resources, prompts, completions are forwarded).
    child: Peer<RoleClient>,
    shared: Arc<Shared>,
    limits: toolexec_limiter::Limits,
    /// Whether a result was spilled or cut: from then on
    /// [`READ_SPILL`] is listed.
    spilled: AtomicBool,
    next_id: AtomicU64,
    life: Arc<Lifecycle>,
}

/// What building the proxy's executor takes.
#[derive(Debug)]
struct Rebuild {
    pipeline: PipelineOptions,
    wrap: WrapOptions,
    workdir: Option<PathBuf>,
    snapshot: Option<toolexec_core::SnapshotConfig>,
    redactor: Arc<toolexec_redact::Redactor>,
}

impl ServerInner {
    fn current(&self) -> (Executor, Arc<HashMap<String, McpTool>>) {
        self.tools.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Rebuilds the executor for the child's new tool list.
    fn retool(&self, child_tools: Vec<McpTool>, peer: &Peer<RoleClient>) -> Result<(), Error> {
        let r = &self.rebuild;
        let tools = wrap_tools(child_tools, r.wrap, peer, &self.shared);
        let (executor, definitions) = build_executor(
            tools,
            &r.pipeline,
            r.workdir.as_ref(),
            r.snapshot.clone(),
            &r.redactor,
        )?;
        *self.tools.write().unwrap_or_else(|p| p.into_inner()) = (executor, Arc::new(definitions));
        Ok(())
    }
}

/// Forgets a call's slot when the call ends.
struct SlotGuard<'a> {
    shared: &'a Shared,
    id: String,
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        self.shared.lock_calls().remove(&self.id);
    }
}

impl ServerHandler for ProxyServer {
    fn get_info(&self) -> ServerConfig {
        // The child's capabilities, with tools (whose list we follow).
        let mut capabilities = self.inner.child_capabilities.clone();
        capabilities.tools = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build()
            .tools;
        ServerConfig::new(capabilities)
            .with_server_info(implementation("toolexec-proxy"))
            .with_instructions(format!(
                "Tools of the MCP server {} behind toolexec: inputs are checked, every call has a deadline, \
                 secrets are masked and results are bounded (large ones are spilled to a file).",
                self.inner.shared.program
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let inner = &*self.inner;
        let (executor, definitions) = inner.current();
        Ok(ListToolsResult::with_all_items(listed_tools(
            &executor,
            |info| {
                if info.name == READ_SPILL && !inner.spilled.load(Ordering::SeqCst) {
                    return None;
                }
                definitions.get(&info.name).cloned()
            },
        )))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        *self
            .inner
            .shared
            .client
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(context.peer.clone());
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, McpError> {
        self.inner
            .child
            .list_resources(request)
            .await
            .map_err(forwarded_error)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, McpError> {
        self.inner
            .child
            .list_resource_templates(request)
            .await
            .map_err(forwarded_error)
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, McpError> {
        let mut result = self
            .inner
            .child
            .read_resource(request)
            .await
            .map_err(forwarded_error)?;
        redact_contents(&self.inner.shared.redactor, &mut result.contents);
        Ok(rmcp::model::ReadResourceResponse::Complete(result))
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner
            .child
            .subscribe(request)
            .await
            .map_err(forwarded_error)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner
            .child
            .unsubscribe(request)
            .await
            .map_err(forwarded_error)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, McpError> {
        self.inner
            .child
            .list_prompts(request)
            .await
            .map_err(forwarded_error)
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, McpError> {
        let result = self
            .inner
            .child
            .get_prompt(request)
            .await
            .map_err(forwarded_error)?;
        let result = redact_typed(&self.inner.shared.redactor, result);
        Ok(rmcp::model::GetPromptResponse::Complete(result))
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, McpError> {
        self.inner
            .child
            .complete(request)
            .await
            .map_err(forwarded_error)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.inner
            .child
            .set_level(request)
            .await
            .map_err(forwarded_error)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let inner = &*self.inner;
        let (executor, _) = inner.current();
        let Some(tool) = executor.tool(&request.name) else {
            return Err(unknown_tool(&request.name));
        };
        let read_only = tool.read_only(&Value::Null);
        let id = inner.next_id.fetch_add(1, Ordering::SeqCst).to_string();
        let caller = context.meta.get_progress_token().map(|token| Route {
            peer: context.peer.clone(),
            token,
        });
        inner.shared.lock_calls().insert(
            id.clone(),
            CallSlot {
                caller,
                structured: None,
            },
        );
        let _slot = SlotGuard {
            shared: &inner.shared,
            id: id.clone(),
        };
        let call = ToolCall::new(
            id.clone(),
            request.name.to_string(),
            arguments_text(request.arguments),
        );
        let result = inner.life.run_call(&executor, call, &context.ct).await;
        let structured = inner
            .shared
            .lock_calls()
            .get_mut(&id)
            .and_then(|slot| slot.structured.take());
        let answered = tool_answered(result.error_kind);
        let success = !result.is_error;
        let mut result = result;
        if let Some(path) = &result.spill_path {
            if let Some(text) = retarget_hints(&result.content, path) {
                result.content = text;
            }
            if !inner.spilled.swap(true, Ordering::SeqCst) {
                // The spill reader is listed from now on.
                let _ = context.peer.notify_tool_list_changed().await;
            }
        }
        let mut out = call_tool_result(result);
        if let Some(value) = structured.filter(|_| answered) {
            let value = redact_json(&inner.shared.redactor, value);
            match limit_structured(value, inner.limits.effective_budget(read_only && success)) {
                Ok(value) => out.structured_content = Some(value),
                Err(why) => {
                    let mut meta = out.meta.take().unwrap_or_default();
                    meta.0
                        .insert(META_STRUCTURED.to_string(), Value::String(why));
                    out.meta = Some(meta);
                }
            }
        }
        Ok(out.into())
    }
}

/// How the child tools are wrapped.
#[derive(Debug, Clone, Copy)]
struct WrapOptions {
    trust_annotations: bool,
    workspace_diff: bool,
}

/// The child tools as the executor's tools and their MCP definitions.
fn wrap_tools(
    child_tools: Vec<McpTool>,
    options: WrapOptions,
    peer: &Peer<RoleClient>,
    shared: &Arc<Shared>,
) -> Vec<(ForwardTool, McpTool)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for child in child_tools {
        let name = child.name.to_string();
        if !seen.insert(name.clone()) {
            eprintln!("toolexec: proxy: the MCP server lists tool {name} twice; the second one is left out");
            continue;
        }
        let read_only = options.trust_annotations
            && child.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        let concurrency_safe = read_only || !options.workspace_diff;
        let definition =
            proxied_definition(&child, shared.fields.of(&name), read_only, concurrency_safe);
        let tool = ForwardTool {
            name,
            description: child.description.as_deref().unwrap_or_default().to_string(),
            schema: Value::Object((*child.input_schema).clone()),
            read_only,
            concurrency_safe,
            peer: peer.clone(),
            shared: shared.clone(),
        };
        out.push((tool, definition));
    }
    out
}

/// Builds the executor, leaving out tools whose schema the guard refuses.
fn build_executor(
    mut tools: Vec<(ForwardTool, McpTool)>,
    pipeline: &PipelineOptions,
    workdir: Option<&PathBuf>,
    snapshot: Option<toolexec_core::SnapshotConfig>,
    redactor: &Arc<toolexec_redact::Redactor>,
) -> Result<(Executor, HashMap<String, McpTool>), Error> {
    loop {
        let root = match workdir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        };
        // Hints name the proxy's own spill reader (the child may have no
        // read tool, or refuse the scratch path).
        let limits = pipeline.limits()?.reader_tool(Some(READ_SPILL));
        let mut builder = pipeline
            .apply(Executor::builder(root), redactor.clone())?
            .limits(Some(limits))
            .snapshot(snapshot.clone());
        let mut definitions = HashMap::new();
        for (tool, definition) in &tools {
            definitions.insert(tool.name.clone(), definition.clone());
            builder = builder.tool(tool.clone());
        }
        if !definitions.contains_key(READ_SPILL) {
            // The reader of our own spill files, so that our hints work.
            let limits = pipeline.limits()?;
            let reader = ReadSpill::new(limits.scratch_dir.clone(), limits.effective_budget(true));
            let mut definition = McpTool::new(
                READ_SPILL,
                reader.description().to_string(),
                schema_object(reader.input_schema()),
            )
            .with_annotations(
                rmcp::model::ToolAnnotations::new()
                    .read_only(true)
                    .idempotent(true)
                    .open_world(false),
            );
            definition.title = Some("Read a toolexec spill file".to_string());
            definitions.insert(READ_SPILL.to_string(), definition);
            builder = builder.tool(reader);
        }
        match builder.build() {
            Ok(executor) => return Ok((executor, definitions)),
            Err(BuildError::InvalidSchema { name, source }) => {
                eprintln!("toolexec: proxy: {source}; the tool is left out");
                tools.retain(|(tool, _)| tool.name != name);
            }
            Err(err) => return Err(Error::Build(err)),
        }
    }
}

/// Our stdio as an rmcp transport whose `tools/list` answers carry the
/// child's unmodelled tool fields ([`crate::passthrough`]).
fn stdio_transport(life: &Lifecycle) -> impl rmcp::transport::Transport<RoleServer> {
    let (read, write) = life.stdio();
    Lifting(rmcp::transport::async_rw::AsyncRwTransport::new_server(
        read, write,
    ))
}

fn describe_exit(status: &std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(status) => status.to_string(),
        Err(err) => format!("its status is unknown: {err}"),
    }
}

/// Starts the child MCP server in a process group of its own (its id is
/// the child's pid): stdin and stdout piped to us, stderr inherited (its
/// log lines reach our stderr unchanged), killed when its handle is
/// dropped. This is the one place that spawns the child, so that a caller
/// can prepare `command` (environment, working directory, a sandbox set up
/// in `pre_exec`) before it runs. [`end_group`] ends the whole group.
pub fn spawn_child(command: std::process::Command) -> std::io::Result<tokio::process::Child> {
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .kill_on_drop(true);
    command.spawn()
}

/// Sends SIGKILL to every process left in the process group `pgid` (the
/// child's pid, see [`spawn_child`]): a wrapper's server, and whatever the
/// server started, end with it. A group that is already empty is left
/// alone.
pub fn end_group(pgid: u32) {
    use nix::sys::signal::{killpg, Signal};
    let Ok(raw) = i32::try_from(pgid) else {
        return;
    };
    if raw <= 1 {
        return;
    }
    // ESRCH (no such group) means nothing is left.
    let _ = killpg(nix::unistd::Pid::from_raw(raw), Signal::SIGKILL);
}

/// An MCP proxy in front of the child MCP server a command starts: the
/// child's tools re-exposed through the toolexec pipeline.
///
/// ```no_run
/// # async fn demo() -> Result<(), toolexec_mcp::Error> {
/// let mut command = std::process::Command::new("npx");
/// command.args(["-y", "@modelcontextprotocol/server-everything"]);
/// toolexec_mcp::Proxy::builder(command)
///     .trust_annotations(true)
///     .serve(toolexec_mcp::Transport::Stdio)
///     .await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Proxy {
    command: std::process::Command,
    sandbox: Option<toolexec_tools::Sandbox>,
    workdir: Option<PathBuf>,
    trust_annotations: bool,
    pipeline: PipelineOptions,
    shutdown: CancellationToken,
}

impl Proxy {
    /// A proxy of the MCP server `command` starts, with the default
    /// pipeline options, no workspace diff and untrusted annotations.
    pub fn builder(command: std::process::Command) -> Proxy {
        Proxy {
            command,
            sandbox: None,
            workdir: None,
            trust_annotations: false,
            pipeline: PipelineOptions::default(),
            shutdown: CancellationToken::new(),
        }
    }

    /// Reports the changes of `dir` after each call of a tool that is not
    /// trusted read-only.
    pub fn workdir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workdir = Some(dir.into());
        self
    }

    /// Runs the child server in the exec sandbox (the same user, PID,
    /// mount and IPC namespaces plus Landlock as `exec`): writes only
    /// beneath the [`workdir`](Self::workdir) (or nowhere with
    /// `read-only`), the network per [`Sandbox::allow_network`], and its
    /// whole process tree ended with the proxy. The system temp dir is not
    /// writable for it. Without a call the child is not confined, but its
    /// whole tree is still contained (a PID namespace under a supervisor
    /// that dies with the proxy, see [`toolexec_tools::sandbox::contain`]).
    ///
    /// [`Sandbox::allow_network`]: toolexec_tools::Sandbox::allow_network
    pub fn sandbox(mut self, sandbox: toolexec_tools::Sandbox) -> Self {
        self.sandbox = Some(sandbox.without_temp_dir());
        self
    }

    /// Trusts the child's `readOnlyHint` annotations (no snapshot, three
    /// times the budget for those tools).
    pub fn trust_annotations(mut self, trust: bool) -> Self {
        self.trust_annotations = trust;
        self
    }

    /// The pipeline options (budget, deadline, turn, redaction rules, …).
    pub fn pipeline(mut self, options: PipelineOptions) -> Self {
        self.pipeline = options;
        self
    }

    /// Shuts the proxy down when `token` fires: the calls in flight are
    /// cancelled (the child is told) and the child is stopped.
    pub fn shutdown_on(mut self, token: CancellationToken) -> Self {
        self.shutdown = token;
        self
    }

    /// Starts the child and serves its tools until our client goes away
    /// ([`Outcome::ClientClosed`]), the child dies
    /// ([`Outcome::ChildExited`]) or the shutdown token fires
    /// ([`Outcome::Shutdown`]). The child is stopped in every case.
    pub async fn serve(self, transport: Transport) -> Result<Outcome, Error> {
        let Proxy {
            command,
            sandbox,
            workdir,
            trust_annotations,
            pipeline,
            shutdown,
        } = self;
        if let Transport::Http(options) = &transport {
            options.check()?;
        }
        let workdir = match &workdir {
            Some(dir) => Some(canonical_workdir(dir)?),
            None => None,
        };
        let snapshot = match &workdir {
            Some(dir) => Some(pipeline.snapshot_config(dir).await?),
            None => {
                if let Some(root) = pipeline.watch_roots.first() {
                    return Err(Error::WatchRootNeedsWorkdir { path: root.clone() });
                }
                None
            }
        };
        let program = command.get_program().to_string_lossy().into_owned();
        let redactor = Arc::new(pipeline.redactor()?);
        let sandbox_root = match &sandbox {
            Some(sandbox) => match (&workdir, sandbox.policy()) {
                (Some(dir), _) => dir.clone(),
                (None, toolexec_tools::SandboxPolicy::WorkspaceWrite) => {
                    return Err(Error::SandboxNeedsWorkdir {
                        mode: sandbox.policy(),
                    })
                }
                // Nothing is writable (read-only) or everything is (off).
                (None, _) => PathBuf::from("/"),
            },
            None => PathBuf::from("/"),
        };
        let blueprint = Blueprint {
            program: program.clone(),
            sandbox,
            sandbox_root,
            wrap: WrapOptions {
                trust_annotations,
                workspace_diff: workdir.is_some(),
            },
            workdir,
            snapshot,
            redactor,
        };

        if let Transport::Http(options) = transport {
            return serve_sessions(blueprint, command, pipeline, options, shutdown).await;
        }

        let life = Arc::new(Lifecycle::new());
        let stop = life.shut_down_when(&shutdown);
        tokio::pin!(stop);
        let Some(running) = blueprint
            .start(command, pipeline, life.clone(), &mut stop)
            .await?
        else {
            return Ok(Outcome::Shutdown);
        };
        let Running {
            server,
            stopper,
            mut child_task,
            client_stop,
            mut client_done,
        } = running;
        let child_status = |status: Result<String, tokio::task::JoinError>| {
            status.unwrap_or_else(|e| e.to_string())
        };
        let running = tokio::select! {
            running = server.serve(stdio_transport(&life)) => running.map_err(|e| Error::Handshake(e.to_string()))?,
            _ = &mut client_done => {
                stopper.stop(Duration::ZERO);
                let status = child_status((&mut child_task).await);
                return Ok(Outcome::ChildExited { program, status });
            }
            () = &mut stop => {
                stopper.stop(Duration::ZERO);
                let _ = child_task.await;
                return Ok(Outcome::Shutdown);
            }
        };
        let server_stop = running.cancellation_token();
        let mut server_done = tokio::spawn(running.waiting());

        tokio::select! {
            _ = &mut server_done => {
                // Our client is gone (the calls in flight were cancelled at the
                // end of its input): close the child's stdin, let it exit.
                client_stop.cancel();
                let _ = client_done.await;
                stopper.stop(CHILD_EXIT_GRACE);
                let _ = child_task.await;
                Ok(Outcome::ClientClosed)
            }
            _ = &mut client_done => {
                // The child is gone: answer what is pending, then stop.
                life.drain(DRAIN_TIMEOUT).await;
                server_stop.cancel();
                let _ = server_done.await;
                stopper.stop(Duration::ZERO);
                let status = child_status(child_task.await);
                Ok(Outcome::ChildExited { program, status })
            }
            () = &mut stop => {
                // The calls in flight were cancelled (the child was told).
                client_stop.cancel();
                let _ = tokio::time::timeout(SIGNAL_CHILD_GRACE, client_done).await;
                stopper.stop(SIGNAL_CHILD_GRACE);
                let _ = child_task.await;
                Ok(Outcome::Shutdown)
            }
        }
    }
}

/// Says once per process that the child's tree cannot be contained.
fn warn_uncontained() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        eprintln!(
            "toolexec: warning: proxy: user and PID namespaces are not available here; \
             the MCP server's process group is ended with the proxy, but if the proxy is \
             killed with SIGKILL only the server's first process is (parent-death signal)"
        );
    });
}

/// A copy of `command` for another child (program, arguments, environment
/// changes and working directory: what [`std::process::Command`] lets one
/// read back).
fn copy_command(command: &std::process::Command) -> std::process::Command {
    let mut copy = std::process::Command::new(command.get_program());
    copy.args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => copy.env(key, value),
            None => copy.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        copy.current_dir(dir);
    }
    copy
}

/// Stops a child: the first request wins (a grace for it to exit, then a
/// kill of its whole tree).
#[derive(Debug)]
struct Stopper(Mutex<Option<tokio::sync::oneshot::Sender<Duration>>>);

impl Stopper {
    fn stop(&self, grace: Duration) {
        if let Some(tx) = self.lock().take() {
            let _ = tx.send(grace);
        }
    }

    /// Whether the child was asked to stop.
    fn requested(&self) -> bool {
        self.lock().is_none()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<tokio::sync::oneshot::Sender<Duration>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A started child and the server side of its tools.
struct Running {
    server: ProxyServer,
    stopper: Arc<Stopper>,
    /// The child's exit status, as text, once it ended (its tree ended
    /// with it).
    child_task: tokio::task::JoinHandle<String>,
    /// Ends our MCP client toward the child (its stdin closes).
    client_stop: rmcp::service::RunningServiceCancellationToken,
    /// Ends when the child's MCP connection does.
    client_done: tokio::task::JoinHandle<Result<rmcp::service::QuitReason, tokio::task::JoinError>>,
}

/// What starting a child and serving its tools takes (one child over
/// stdio; one for each HTTP session).
#[derive(Debug)]
struct Blueprint {
    program: String,
    sandbox: Option<toolexec_tools::Sandbox>,
    sandbox_root: PathBuf,
    wrap: WrapOptions,
    workdir: Option<PathBuf>,
    snapshot: Option<toolexec_core::SnapshotConfig>,
    redactor: Arc<toolexec_redact::Redactor>,
}

impl Blueprint {
    /// Starts the child `command` (contained or sandboxed), completes the
    /// MCP handshake with it, lists its tools and builds the server side.
    /// `Ok(None)`: `stop` fired first (the child was stopped).
    async fn start(
        &self,
        mut command: std::process::Command,
        pipeline: PipelineOptions,
        life: Arc<Lifecycle>,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<Option<Running>, Error> {
        let program = &self.program;
        match &self.sandbox {
            Some(sandbox) if sandbox.is_on() => {
                sandbox
                    .apply(&mut command, &self.sandbox_root)
                    .map_err(Error::Sandbox)?;
            }
            // Containment only: the child's whole tree ends with the proxy,
            // SIGKILL of the proxy included.
            _ => {
                if !toolexec_tools::sandbox::contain(&mut command).is_namespace() {
                    warn_uncontained();
                }
            }
        }
        let mut child =
            spawn_child(command).map_err(
                |source| match toolexec_tools::sandbox::decode_spawn_error(source) {
                    Ok(err) => Error::Sandbox(err),
                    Err(source) => Error::SpawnChild {
                        program: program.clone(),
                        source,
                    },
                },
            )?;
        let (Some(child_stdin), Some(child_stdout)) = (child.stdin.take(), child.stdout.take())
        else {
            return Err(Error::Server(format!("no pipes to {program}")));
        };
        let shared = Arc::new(Shared {
            calls: Mutex::new(HashMap::new()),
            routes: Mutex::new(HashMap::new()),
            redactor: self.redactor.clone(),
            program: program.clone(),
            exit: OnceLock::new(),
            client: Mutex::new(None),
            server: OnceLock::new(),
            fields: Arc::new(RawFields::default()),
        });

        // The child's life: its exit status once it ends; on request, a grace
        // to exit (its stdin is closed by then), then a kill.
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<Duration>();
        let stopper = Arc::new(Stopper(Mutex::new(Some(stop_tx))));
        let child_shared = shared.clone();
        let pgid = child.id();
        let mut child_task = tokio::spawn(async move {
            let status = tokio::select! {
                status = child.wait() => status,
                grace = stop_rx => {
                    let grace = grace.unwrap_or(CHILD_EXIT_GRACE);
                    match tokio::time::timeout(grace, child.wait()).await {
                        Ok(status) => status,
                        Err(_) => {
                            let _ = child.start_kill();
                            child.wait().await
                        }
                    }
                }
            };
            // The child ended (by itself, or after its grace): what is left
            // of its process group ends with it.
            if let Some(pgid) = pgid {
                end_group(pgid);
            }
            let text = describe_exit(&status);
            let _ = child_shared.exit.set(text.clone());
            text
        });
        let child_status = |status: Result<String, tokio::task::JoinError>| {
            status.unwrap_or_else(|e| e.to_string())
        };

        let startup = async {
            let client = ChildClient {
                shared: shared.clone(),
            }
            .serve((
                Observed::new(child_stdout, shared.fields.clone()),
                child_stdin,
            ))
            .await
            .map_err(|e| format!("the MCP handshake with {program} failed: {e}"))?;
            let tools = client
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| format!("listing the tools of {program} failed: {e}"))?;
            Ok::<_, String>((client, tools))
        };
        tokio::pin!(stop);
        let started = tokio::select! {
            started = tokio::time::timeout(STARTUP_TIMEOUT, startup) => started,
            status = &mut child_task => {
                return Err(Error::ChildStartup(format!(
                    "the MCP server {program} exited during start-up ({})",
                    child_status(status)
                )));
            }
            () = &mut stop => {
                stopper.stop(Duration::ZERO);
                let _ = child_task.await;
                return Ok(None);
            }
        };
        let (client, child_tools) = match started {
            Ok(Ok(started)) => started,
            failed => {
                // The child is stopped with its group before we give up.
                stopper.stop(Duration::ZERO);
                let _ = child_task.await;
                return Err(Error::ChildStartup(match failed {
                    Ok(Err(msg)) => msg,
                    _ => format!(
                        "the MCP server {program} did not complete the handshake within {}s",
                        STARTUP_TIMEOUT.as_secs()
                    ),
                }));
            }
        };
        let peer = client.peer().clone();
        let child_capabilities = client
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let client_stop = client.cancellation_token();
        let client_done = tokio::spawn(client.waiting());

        let tools = wrap_tools(child_tools, self.wrap, &peer, &shared);
        let built = build_executor(
            tools,
            &pipeline,
            self.workdir.as_ref(),
            self.snapshot.clone(),
            &self.redactor,
        )
        .and_then(|built| Ok((built, pipeline.limits()?)));
        let ((executor, definitions), limits) = match built {
            Ok(built) => built,
            Err(err) => {
                client_stop.cancel();
                stopper.stop(Duration::ZERO);
                let _ = child_task.await;
                return Err(err);
            }
        };
        let inner = Arc::new(ServerInner {
            tools: std::sync::RwLock::new((executor, Arc::new(definitions))),
            rebuild: Rebuild {
                pipeline,
                wrap: self.wrap,
                workdir: self.workdir.clone(),
                snapshot: self.snapshot.clone(),
                redactor: self.redactor.clone(),
            },
            child_capabilities,
            child: peer,
            shared: shared.clone(),
            limits,
            spilled: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            life,
        });
        let _ = shared.server.set(Arc::downgrade(&inner));
        Ok(Some(Running {
            server: ProxyServer { inner },
            stopper,
            child_task,
            client_stop,
            client_done,
        }))
    }
}

/// Whether `command`'s program exists: a path (with a `/`) as given, a
/// bare name in one of the `PATH` directories (the command's own `PATH`
/// when it sets one).
fn program_exists(command: &std::process::Command) -> bool {
    let program = std::path::Path::new(command.get_program());
    if program.components().count() > 1 {
        let program = match command.get_current_dir() {
            Some(dir) if program.is_relative() => dir.join(program),
            _ => program.to_path_buf(),
        };
        return program.is_file();
    }
    let path = command
        .get_envs()
        .find(|(key, _)| *key == "PATH")
        .map(|(_, value)| value.map(std::ffi::OsStr::to_os_string))
        .unwrap_or_else(|| std::env::var_os("PATH"));
    path.is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// What the sessions of `proxy --http` share.
#[derive(Debug)]
struct Sessions {
    blueprint: Blueprint,
    command: std::process::Command,
    pipeline: PipelineOptions,
    /// Where each session makes its scratch directory.
    scratch_root: toolexec_limiter::ScratchRoot,
    /// Fires on shutdown: every session's calls are cancelled and its
    /// child stopped.
    shutdown: CancellationToken,
    /// One task per child, ending when the child (and its tree) did.
    children: tokio_util::task::TaskTracker,
    /// One permit per session with a child ([`MAX_HTTP_SESSIONS`]).
    slots: Arc<tokio::sync::Semaphore>,
}

/// `proxy --http`: each MCP session gets its own child, started when the
/// session initializes, with its own executor, turn state and scratch
/// directory; the child's tree ends when the session does.
async fn serve_sessions(
    blueprint: Blueprint,
    command: std::process::Command,
    pipeline: PipelineOptions,
    options: crate::HttpOptions,
    shutdown: CancellationToken,
) -> Result<Outcome, Error> {
    // No child runs before a session: a program that cannot be found is
    // reported now rather than at every session's start.
    if !program_exists(&command) {
        return Err(Error::SpawnChild {
            program: blueprint.program.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such program (looked in PATH)",
            ),
        });
    }
    let limits = pipeline.limits()?;
    let scratch_root =
        toolexec_limiter::ScratchRoot::open(limits.scratch_dir.clone()).map_err(|e| {
            Error::Scratch {
                path: limits.scratch_dir.clone(),
                detail: e.to_string(),
            }
        })?;
    let sessions = Arc::new(Sessions {
        blueprint,
        command,
        pipeline,
        scratch_root,
        shutdown: shutdown.child_token(),
        children: tokio_util::task::TaskTracker::new(),
        slots: Arc::new(tokio::sync::Semaphore::new(MAX_HTTP_SESSIONS)),
    });
    let http_stop = CancellationToken::new();
    let factory = {
        let sessions = sessions.clone();
        move || Ok(SessionProxy::new(sessions.clone()))
    };
    let http = crate::http::serve_http(factory, options, http_stop.clone());
    tokio::pin!(http);
    let served = tokio::select! {
        served = &mut http => served,
        () = shutdown.cancelled() => {
            // The sessions' calls are cancelled (their lives are children
            // of the shutdown token), their children are stopped.
            sessions.shutdown.cancel();
            http_stop.cancel();
            http.await
        }
    };
    sessions.shutdown.cancel();
    sessions.children.close();
    let _ = tokio::time::timeout(
        SIGNAL_CHILD_GRACE + Duration::from_secs(2),
        sessions.children.wait(),
    )
    .await;
    served
}

/// One HTTP session of the proxy: its child starts at `initialize`.
#[derive(Debug, Clone)]
struct SessionProxy {
    state: Arc<SessionState>,
}

#[derive(Debug)]
struct SessionState {
    sessions: Arc<Sessions>,
    life: Arc<Lifecycle>,
    running: tokio::sync::OnceCell<Result<ProxyServer, McpError>>,
    stopper: OnceLock<Arc<Stopper>>,
    /// The session's scratch directory, removed with the session.
    scratch: OnceLock<toolexec_limiter::ScratchSession>,
    /// The session's place among [`MAX_HTTP_SESSIONS`], freed with it.
    slot: OnceLock<tokio::sync::OwnedSemaphorePermit>,
}

impl Drop for SessionState {
    fn drop(&mut self) {
        // The session ended (DELETE, idle timeout, shutdown): so does its
        // child, with its whole tree.
        if let Some(stopper) = self.stopper.get() {
            stopper.stop(Duration::ZERO);
        }
    }
}

impl SessionProxy {
    fn new(sessions: Arc<Sessions>) -> Self {
        let life = Arc::new(Lifecycle::child_of(&sessions.shutdown));
        SessionProxy {
            state: Arc::new(SessionState {
                sessions,
                life,
                running: tokio::sync::OnceCell::new(),
                stopper: OnceLock::new(),
                scratch: OnceLock::new(),
                slot: OnceLock::new(),
            }),
        }
    }

    /// Starts this session's child.
    async fn start(&self) -> Result<ProxyServer, McpError> {
        let state = &*self.state;
        let sessions = &*state.sessions;
        let fail = |err: &dyn std::fmt::Display| {
            McpError::internal_error(format!("toolexec proxy: {err}"), None)
        };
        let slot = sessions.slots.clone().try_acquire_owned().map_err(|_| {
            fail(&format_args!(
                "{MAX_HTTP_SESSIONS} sessions (each with its own MCP server) are open; \
                 close one (DELETE) or wait for an idle one to time out"
            ))
        })?;
        let _ = state.slot.set(slot);
        let scratch = sessions
            .scratch_root
            .ephemeral_session()
            .map_err(|e| fail(&e))?;
        let mut pipeline = sessions.pipeline.clone();
        pipeline.scratch = Some(scratch.dir().to_path_buf());
        let _ = state.scratch.set(scratch);
        let command = copy_command(&sessions.command);
        let started = sessions
            .blueprint
            .start(
                command,
                pipeline,
                state.life.clone(),
                sessions.shutdown.cancelled(),
            )
            .await
            .map_err(|e| fail(&e))?;
        let Some(running) = started else {
            return Err(fail(&"the server is shutting down"));
        };
        let Running {
            server,
            stopper,
            child_task,
            client_stop,
            client_done,
        } = running;
        let _ = state.stopper.set(stopper.clone());
        let watched = stopper.clone();
        // The child's watcher: stops it on shutdown, reports an exit of
        // its own, and lets the shutdown wait until its tree is gone.
        let shutdown = sessions.shutdown.clone();
        let program = sessions.blueprint.program.clone();
        sessions.children.spawn(async move {
            tokio::pin!(child_task);
            let status = tokio::select! {
                status = &mut child_task => Some(status),
                () = shutdown.cancelled() => {
                    client_stop.cancel();
                    let _ = tokio::time::timeout(SIGNAL_CHILD_GRACE, client_done).await;
                    stopper.stop(SIGNAL_CHILD_GRACE);
                    let _ = child_task.await;
                    None
                }
            };
            if let Some(status) = status {
                // An exit of its own, not the end of its session.
                if !shutdown.is_cancelled() && !watched.requested() {
                    let status = status.unwrap_or_else(|e| e.to_string());
                    eprintln!(
                        "toolexec: proxy: the MCP server {program} of an HTTP session exited ({status})"
                    );
                }
            }
        });
        Ok(server)
    }

    /// The session's server side, once `initialize` started it.
    fn server(&self) -> Result<ProxyServer, McpError> {
        match self.state.running.get() {
            Some(Ok(server)) => Ok(server.clone()),
            Some(Err(err)) => Err(err.clone()),
            None => Err(McpError::internal_error(
                "toolexec proxy: the session is not initialized",
                None,
            )),
        }
    }
}

impl ServerHandler for SessionProxy {
    fn get_info(&self) -> ServerConfig {
        match self.state.running.get() {
            Some(Ok(server)) => server.get_info(),
            _ => ServerConfig::new(
                ServerCapabilities::builder()
                    .enable_tools()
                    .enable_tool_list_changed()
                    .build(),
            )
            .with_server_info(implementation("toolexec-proxy")),
        }
    }

    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, McpError> {
        let server = self
            .state
            .running
            .get_or_init(|| self.start())
            .await
            .clone()?;
        // The child's requests (sampling, elicitation, roots) go to this
        // session's client.
        *server
            .inner
            .shared
            .client
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(context.peer.clone());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Ok(server) = self.server() {
            server.on_initialized(context).await;
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.server()?.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.server()?.call_tool(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, McpError> {
        self.server()?.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, McpError> {
        self.server()?
            .list_resource_templates(request, context)
            .await
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, McpError> {
        self.server()?.read_resource(request, context).await
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.server()?.subscribe(request, context).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.server()?.unsubscribe(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, McpError> {
        self.server()?.list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, McpError> {
        self.server()?.get_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, McpError> {
        self.server()?.complete(request, context).await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.server()?.set_level(request, context).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ImageContent, ToolAnnotations};
    use serde_json::json;

    #[test]
    fn content_blocks_become_text() {
        let blocks = vec![
            ContentBlock::text("one"),
            ContentBlock::Image(ImageContent::new("aGVsbG8=", "image/png")),
            ContentBlock::embedded_text("file:///a.txt", "two"),
        ];
        assert_eq!(
            render_content(&blocks),
            "one\n[image: image/png, 8 bytes of base64 left out]\ntwo"
        );
        assert_eq!(render_content(&[]), "");
    }

    #[test]
    fn structured_content_is_masked_in_strings_keys_and_as_json_text() {
        let redactor = toolexec_redact::Redactor::builtin();
        let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
        let value = json!({
            "items": [{"token": token.clone()}, 42, null],
            "note": "kept",
            "password": "correct-horse-battery-staple",
            token.clone(): true,
        });
        let masked = redact_json(&redactor, value);
        let text = masked.to_string();
        assert!(!text.contains(&token), "{text}");
        assert!(!text.contains("correct-horse-battery-staple"), "{text}");
        assert_eq!(
            masked["items"][0]["token"],
            json!("[REDACTED:github-token]")
        );
        assert_eq!(masked["items"][1], json!(42));
        assert_eq!(masked["note"], json!("kept"));
        assert_eq!(masked["[REDACTED:github-token]"], json!(true));
        // Masking twice changes nothing.
        assert_eq!(redact_json(&redactor, masked.clone()), masked);
    }

    fn builtin_redactor() -> &'static toolexec_redact::Redactor {
        static REDACTOR: OnceLock<toolexec_redact::Redactor> = OnceLock::new();
        REDACTOR.get_or_init(toolexec_redact::Redactor::builtin)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// Wherever a token sits in the structured content (a value or a
        /// key, at any depth), it is masked; the rest of the structure is
        /// kept and masking twice changes nothing.
        #[test]
        fn a_token_anywhere_in_structured_content_is_masked(
            words in proptest::collection::vec("[a-z]{1,8}", 1..6),
            depth in 0usize..4,
            in_key in proptest::bool::ANY,
            numbers in proptest::collection::vec(proptest::num::i64::ANY, 0..4),
        ) {
            let token = format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5");
            let sentence = format!("{} {token} {}", words[0], words[words.len() - 1]);
            let mut value = if in_key {
                let mut map = serde_json::Map::new();
                map.insert(sentence.clone(), json!(words));
                Value::Object(map)
            } else {
                json!({"text": sentence, "words": words})
            };
            for _ in 0..depth {
                value = json!([value, numbers]);
            }
            let masked = redact_json(builtin_redactor(), value.clone());
            let text = masked.to_string();
            proptest::prop_assert!(!text.contains(&token), "{}", text);
            proptest::prop_assert!(text.contains("[REDACTED:github-token]"), "{}", text);
            let expected = value.to_string().replace(&token, "[REDACTED:github-token]");
            proptest::prop_assert_eq!(&text, &expected);
            proptest::prop_assert_eq!(redact_json(builtin_redactor(), masked.clone()), masked);
        }
    }

    #[test]
    fn structured_content_over_the_budget_is_left_out() {
        let value = json!({"text": "x".repeat(100)});
        assert_eq!(limit_structured(value.clone(), 1_000), Ok(value.clone()));
        let why = limit_structured(value, 50).unwrap_err();
        assert!(
            why.starts_with("left out: its JSON text has 111 chars, more than the budget of 50"),
            "{why}"
        );
    }

    #[test]
    fn output_schema_moves_to_meta_and_flags_are_added() {
        let child = McpTool::new(
            "search",
            "Searches.",
            schema_object(&json!({"type": "object", "required": ["q"]})),
        )
        .with_raw_output_schema(schema_object(&json!({"type": "object"})))
        .with_annotations(ToolAnnotations::new().read_only(true));
        let def = serde_json::to_value(proxied_definition(&child, None, false, true)).unwrap();
        assert!(def.get("outputSchema").is_none());
        assert_eq!(def["_meta"][META_OUTPUT_SCHEMA], json!({"type": "object"}));
        assert_eq!(def["_meta"][META_READ_ONLY], json!(false));
        assert_eq!(def["_meta"][META_CONCURRENCY_SAFE], json!(true));
        assert_eq!(def["annotations"], json!({"readOnlyHint": true}));
        assert_eq!(def["inputSchema"]["required"], json!(["q"]));
    }
}
