//! A small MCP server (stdio) that the `toolexec proxy` tests put behind
//! the proxy. Not a product: each tool exists to exercise one stage.
//!
//! ```text
//! mcp_test_server [--log FILE]
//! ```
//!
//! - `echo_secret`: text and `structuredContent` holding a GitHub-style
//!   token (built at run time, so no token-like literal is in the source).
//! - `sleep {ms}`: sleeps, sending progress every 100 ms when the caller
//!   gave a progress token (the message names the token too); it appends
//!   `sleep started` to the `--log` file, and `sleep cancelled` when the
//!   call is cancelled.
//! - `big`: 100 000 characters.
//! - `many_lines`: 3 000 lines `line NNNN of the child's output`.
//! - `readonly_big`: 500 lines of 50 characters, annotated `readOnlyHint`.
//! - `needs_field {name}`: the schema requires `name`.
//! - `write_file {path, content}`: writes a file.
//! - `crash`: exits with status 3 without answering.
//! - `ask`: asks the client to sample a message and to elicit a name, and
//!   returns both answers.
//! - `add_tool`: adds `late_tool` and sends `tools/list_changed`.
//! - A resource `test://notes` and a prompt `greet`, both holding the token.
//!
//! It prints `mcp_test_server: ready` on stderr once it serves.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// The fake token every secret-echoing tool shows.
fn secret() -> String {
    format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
}

fn schema(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(Map::new()),
    }
}

fn tools() -> Vec<Tool> {
    let no_args = || schema(json!({"type": "object", "properties": {}}));
    vec![
        Tool::new(
            "echo_secret",
            "Returns a token, as text and as structured content.",
            no_args(),
        ),
        Tool::new(
            "sleep",
            "Sleeps `ms` milliseconds, reporting progress.",
            schema(
                json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]}),
            ),
        ),
        Tool::new("big", "Returns 100 000 characters.", no_args()),
        Tool::new("many_lines", "Returns 3 000 numbered lines.", no_args()),
        Tool::new(
            "readonly_big",
            "Returns 500 lines of 50 characters.",
            no_args(),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "needs_field",
            "Greets `name`.",
            schema(
                json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
            ),
        ),
        Tool::new(
            "write_file",
            "Writes `content` to `path`.",
            schema(json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"]
            })),
        ),
        Tool::new("crash", "Exits at once with status 3.", no_args()),
        Tool::new(
            "ask",
            "Asks the client to sample a message and to elicit a name.",
            no_args(),
        ),
        Tool::new(
            "add_tool",
            "Adds the tool late_tool and says so.",
            no_args(),
        ),
    ]
}

/// A value of an rmcp model type from its JSON form.
fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("valid MCP JSON")
}

#[derive(Debug, Clone)]
struct TestServer {
    log: Option<PathBuf>,
    late_tool: Arc<std::sync::atomic::AtomicBool>,
}

impl TestServer {
    fn log(&self, line: &str) {
        if let Some(path) = &self.log {
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                let _ = writeln!(file, "{line}");
            }
        }
    }

    async fn sleep(&self, ms: u64, context: &RequestContext<RoleServer>) -> CallToolResult {
        self.log("sleep started");
        let token = context.meta.get_progress_token();
        let start = tokio::time::Instant::now();
        let end = start + Duration::from_millis(ms);
        let mut step = 0u32;
        loop {
            let now = tokio::time::Instant::now();
            if now >= end {
                return CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))]);
            }
            let next = (now + Duration::from_millis(100)).min(end);
            tokio::select! {
                () = tokio::time::sleep_until(next) => {}
                () = context.ct.cancelled() => {
                    self.log("sleep cancelled");
                    return CallToolResult::error(vec![ContentBlock::text("cancelled")]);
                }
            }
            step += 1;
            if let Some(token) = &token {
                let message = format!("step {step} with {}", secret());
                let progress = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_message(message);
                let _ = context.peer.notify_progress(progress).await;
            }
        }
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mcp_test_server", "0.1.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = tools();
        if self.late_tool.load(std::sync::atomic::Ordering::SeqCst) {
            tools.push(Tool::new(
                "late_tool",
                "Added at run time.",
                schema(json!({"type": "object"})),
            ));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(from_json(json!({
            "resources": [{"uri": "test://notes", "name": "notes", "mimeType": "text/plain"}]
        })))
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        let result: rmcp::model::ReadResourceResult = from_json(json!({
            "contents": [{"uri": request.uri, "mimeType": "text/plain", "text": format!("notes with token={}", secret())}]
        }));
        Ok(rmcp::model::ReadResourceResponse::Complete(result))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        Ok(from_json(json!({
            "prompts": [{"name": "greet", "description": "Greets."}]
        })))
    }

    async fn get_prompt(
        &self,
        _request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        let result: rmcp::model::GetPromptResult = from_json(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("hello, use {}", secret())}}]
        }));
        Ok(rmcp::model::GetPromptResponse::Complete(result))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let text = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let result = match request.name.as_ref() {
            "echo_secret" => {
                let token = secret();
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(format!("token={token}"))]);
                result.structured_content = Some(json!({"token": token, "note": "kept"}));
                result
            }
            "sleep" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                self.sleep(ms, &context).await
            }
            "big" => CallToolResult::success(vec![ContentBlock::text("a".repeat(100_000))]),
            "many_lines" => {
                let lines: Vec<String> = (1..=3000)
                    .map(|n| format!("line {n:04} of the child's output"))
                    .collect();
                CallToolResult::success(vec![ContentBlock::text(lines.join("\n"))])
            }
            "readonly_big" => {
                let line = format!("{}\n", "r".repeat(49));
                CallToolResult::success(vec![ContentBlock::text(line.repeat(500))])
            }
            "needs_field" => {
                CallToolResult::success(vec![ContentBlock::text(format!("hello {}", text("name")))])
            }
            "write_file" => match std::fs::write(text("path"), text("content")) {
                Ok(()) => CallToolResult::success(vec![ContentBlock::text("written")]),
                Err(err) => {
                    CallToolResult::error(vec![ContentBlock::text(format!("cannot write: {err}"))])
                }
            },
            "crash" => std::process::exit(3),
            "ask" => {
                #[allow(deprecated)]
                let sampled = context
                    .peer
                    .create_message(from_json(json!({
                        "messages": [{"role": "user", "content": {"type": "text", "text": "say hi"}}],
                        "maxTokens": 10
                    })))
                    .await;
                let elicited = context
                    .peer
                    .create_elicitation(from_json(json!({
                        "mode": "form",
                        "message": "your name?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                    })))
                    .await;
                let sampled = match sampled {
                    Ok(r) => serde_json::to_value(&r)
                        .map(|v| v["content"]["text"].clone())
                        .unwrap_or_default(),
                    Err(e) => json!(format!("sampling failed: {e}")),
                };
                let elicited = match elicited {
                    Ok(r) => serde_json::to_value(&r).unwrap_or_default(),
                    Err(e) => json!(format!("elicitation failed: {e}")),
                };
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "sampled={sampled} elicited={elicited}"
                ))])
            }
            "add_tool" => {
                self.late_tool
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("added")])
            }
            "late_tool" if self.late_tool.load(std::sync::atomic::Ordering::SeqCst) => {
                CallToolResult::success(vec![ContentBlock::text("late tool ran")])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool: {other}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() {
    let mut log = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--log" {
            log = args.next().map(PathBuf::from);
        }
    }
    let server = TestServer {
        log,
        late_tool: Arc::new(std::sync::atomic::AtomicBool::new(false)),
    };
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(err) => {
            eprintln!("mcp_test_server: handshake failed: {err}");
            std::process::exit(1);
        }
    };
    eprintln!("mcp_test_server: ready");
    let _ = running.waiting().await;
}
