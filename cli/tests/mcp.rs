//! `toolexec mcp` and `toolexec proxy` driven by rmcp's client over the
//! real binary.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ErrorCode,
    ProgressNotificationParam, ServerResult, Tool,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestHandle, RoleClient, RunningService,
};
use rmcp::{ClientHandler, ServiceError, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::io::AsyncReadExt;

const TOOLEXEC: &str = env!("CARGO_BIN_EXE_toolexec");
const WAIT: Duration = Duration::from_secs(15);

/// The fake token the tests echo (built at run time, as in the test server).
fn secret() -> String {
    format!("ghp_{}", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
}

/// Records the progress notifications and tool-list changes it receives;
/// answers sampling and elicitation requests.
#[derive(Debug, Default, Clone)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    tools_changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for Recorder {
    #[allow(deprecated)]
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities = rmcp::model::ClientCapabilities::builder()
            .enable_sampling()
            .enable_elicitation()
            .build();
        rmcp::model::ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("toolexec-tests", "0.1.0"),
        )
    }

    #[allow(deprecated)]
    async fn create_message(
        &self,
        _params: rmcp::model::CreateMessageRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, rmcp::ErrorData> {
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "hi from the client"},
            "model": "test-model"
        }))
        .unwrap())
    }

    async fn create_elicitation(
        &self,
        _params: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                .unwrap(),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

/// A running `toolexec` with an MCP client on its stdio.
struct Session {
    client: RunningService<RoleClient, Recorder>,
    recorder: Recorder,
    process: tokio::process::Child,
    stderr: Arc<Mutex<String>>,
}

impl Session {
    async fn start(args: &[&str]) -> Session {
        let mut command = tokio::process::Command::new(TOOLEXEC);
        command.args(args);
        Session::start_command(command, args).await
    }

    /// [`Session::start`] of a command that runs toolexec with `args`.
    async fn start_command(mut command: tokio::process::Command, args: &[&str]) -> Session {
        let mut process = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("toolexec starts");
        let stdin = process.stdin.take().unwrap();
        let stdout = process.stdout.take().unwrap();
        let mut err_pipe = process.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let recorder = Recorder::default();
        let client = tokio::time::timeout(WAIT, recorder.clone().serve((stdout, stdin)))
            .await
            .expect("handshake in time")
            .unwrap_or_else(|e| {
                panic!(
                    "handshake with toolexec {args:?}: {e}; stderr: {}",
                    stderr.lock().unwrap()
                )
            });
        Session {
            client,
            recorder,
            process,
            stderr,
        }
    }

    async fn tools(&self) -> Vec<Tool> {
        self.client
            .peer()
            .list_all_tools()
            .await
            .expect("tools/list")
    }

    async fn call(&self, name: &str, args: Value) -> CallToolResult {
        self.try_call(name, args)
            .await
            .unwrap_or_else(|e| panic!("tools/call {name}: {e}; stderr: {}", self.stderr()))
    }

    async fn try_call(&self, name: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(object(args));
        tokio::time::timeout(WAIT, self.client.peer().call_tool(params))
            .await
            .expect("tools/call answered in time")
    }

    /// Sends tools/call without waiting for it, so that the test can
    /// cancel it or watch its progress.
    async fn start_call(&self, name: &str, args: Value) -> RequestHandle<RoleClient> {
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(object(args));
        self.client
            .peer()
            .send_cancellable_request(
                ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .unwrap()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The text of a result's text blocks.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| b.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn meta(result: &CallToolResult, key: &str) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get(key).cloned())
        .unwrap_or(Value::Null)
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn names(tools: &[Tool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for: {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn dir_str(dir: &Path) -> &str {
    dir.to_str().expect("utf-8 temp path")
}

/// The processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
        else {
            continue;
        };
        if let Ok(raw) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(format!("{pid}: {cmdline}"));
            }
        }
    }
    found
}

/// The test server binary (`examples/mcp_test_server.rs`), built next to
/// `toolexec`. `cargo test` builds examples; a filtered run (`--test mcp`)
/// does not, so a missing or older binary is built here.
fn test_server() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let profile_dir = Path::new(TOOLEXEC).parent().expect("binary dir");
        let path = profile_dir.join("examples").join("mcp_test_server");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mcp_test_server.rs");
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let stale = match (modified(&path), modified(&source)) {
            (Some(built), Some(written)) => built < written,
            _ => true,
        };
        if stale {
            let mut cmd = std::process::Command::new(env!("CARGO"));
            cmd.args([
                "build",
                "-p",
                "toolexec-cli",
                "--example",
                "mcp_test_server",
            ])
            .arg("--manifest-path")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"));
            if profile_dir.file_name().and_then(|n| n.to_str()) == Some("release") {
                cmd.arg("--release");
            }
            if let Some(target) = profile_dir.parent() {
                cmd.env("CARGO_TARGET_DIR", target);
            }
            let status = cmd.status().expect("cargo runs");
            assert!(status.success(), "building the test server failed");
        }
        path.to_str().expect("utf-8 path").to_string()
    })
}

// ---------------------------------------------------------------- mcp

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_lists_the_builtin_tools_with_annotations_and_meta() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let tools = s.tools().await;
    assert_eq!(
        names(&tools),
        [
            "edit",
            "exec",
            "glob",
            "grep",
            "read",
            "tool_search",
            "write"
        ]
    );

    for name in ["read", "grep", "glob", "tool_search"] {
        let a = tool(&tools, name).annotations.clone().unwrap();
        assert_eq!(
            (a.read_only_hint, a.idempotent_hint),
            (Some(true), Some(true)),
            "{name}"
        );
        assert_eq!(a.open_world_hint, Some(false), "{name}");
    }
    for name in ["write", "edit", "exec"] {
        let a = tool(&tools, name).annotations.clone().unwrap();
        assert_eq!(
            (a.read_only_hint, a.destructive_hint),
            (Some(false), Some(true)),
            "{name}"
        );
        assert_eq!(a.open_world_hint, Some(name == "exec"), "{name}");
    }
    // exec is concurrency-safe only for a read-only command, so its
    // listing (asked without a call) says false.
    for (name, safe) in [
        ("read", true),
        ("exec", false),
        ("write", false),
        ("edit", false),
    ] {
        let meta = tool(&tools, name).meta.clone().unwrap();
        assert_eq!(meta.0["toolexec/concurrencySafe"], json!(safe), "{name}");
    }
    let read = tool(&tools, "read");
    assert!(read.input_schema["required"]
        .as_array()
        .unwrap()
        .contains(&json!("path")));
    let write = tool(&tools, "write");
    assert_eq!(write.input_schema["required"], json!(["path", "content"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_guard_refusals_are_error_results_and_an_unknown_tool_is_a_protocol_error() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "mcp",
        "--workdir",
        dir_str(work.path()),
        "--offered",
        "read,write,exec,grep",
        "--disabled",
        "exec",
    ])
    .await;
    assert_eq!(names(&s.tools().await), ["grep", "read", "write"]);

    let r = s.call("write", json!({"path": "a.txt"})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        r#"tool write: invalid input: missing required field "content""#
    );
    assert_eq!(meta(&r, "toolexec/errorKind"), json!("invocation"));
    assert!(!work.path().join("a.txt").exists());

    let r = s.call("exec", json!({"command": "true"})).await;
    assert_eq!(
        (r.is_error, text(&r)),
        (Some(true), "tool exec is disabled".to_string())
    );

    let r = s.call("glob", json!({"pattern": "*"})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        "tool glob is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list."
    );

    match s.try_call("rm_rf", json!({})).await {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(e.message, "unknown tool: rm_rf");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_a_call_past_its_deadline_is_a_timeout_result() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "mcp",
        "--workdir",
        dir_str(work.path()),
        "--timeout-ms",
        "300",
    ])
    .await;
    let r = s
        .call("exec", json!({"command": "echo started; sleep 20"}))
        .await;
    assert_eq!(r.is_error, Some(true));
    let t = text(&r);
    assert!(
        t.starts_with(
            "Tool 'exec' execution timed out after 300ms. The external service may be slow or unavailable. \
             Consider: retry later, use alternative approach, or skip this step."
        ),
        "{t}"
    );
    assert_eq!(meta(&r, "toolexec/errorKind"), json!("timeout"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_masks_a_secret_that_exec_echoes() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let command = format!("printf 'token=%s\\n' {}", secret());
    let r = s.call("exec", json!({ "command": command })).await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(false), "{t}");
    assert!(t.contains("token=[REDACTED:github-token]"), "{t}");
    assert!(!t.contains(&secret()), "{t}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_spills_a_result_that_is_too_large() {
    let work = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "mcp",
        "--workdir",
        dir_str(work.path()),
        "--scratch",
        dir_str(scratch.path()),
    ])
    .await;
    let r = s
        .call(
            "exec",
            json!({"command": "head -c 100000 /dev/zero | tr '\\0' a"}),
        )
        .await;
    let t = text(&r);
    // The server's own session directory in the scratch root.
    let prefix = format!(
        "Full output was spilled to scratch file: {}/session-",
        scratch.path().canonicalize().unwrap().display()
    );
    assert!(t.starts_with("Result too large ("), "{t}");
    assert!(t.contains(&prefix), "{t}");
    assert!(
        t.ends_with("Use read tool on this path if you need full content."),
        "{t}"
    );
    let spill = meta(&r, "toolexec/spillPath");
    let spill = PathBuf::from(spill.as_str().expect("spill path in _meta"));
    assert!(t.contains(&spill.display().to_string()));
    let full = std::fs::read_to_string(&spill).unwrap();
    assert!(full.contains(&"a".repeat(100_000)));

    // The model can follow the message: read opens the spill file.
    let r = s
        .call("read", json!({"path": dir_str(&spill), "limit": 1}))
        .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert!(text(&r).contains("aaaaaaaaaa"), "{}", text(&r));

    // The session directory goes with the server.
    let session_dir = spill.parent().unwrap().to_path_buf();
    let Session {
        client,
        mut process,
        ..
    } = s;
    let _ = client.cancel().await;
    let status = tokio::time::timeout(WAIT, process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!session_dir.exists(), "{}", session_dir.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_appends_the_change_report() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let r = s
        .call("write", json!({"path": "notes.md", "content": "# notes\n"}))
        .await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(false), "{t}");
    assert!(
        t.contains("\n\n[Workspace Changes]\n+ notes.md (created, 8 B)"),
        "{t}"
    );
    assert_eq!(
        meta(&r, "toolexec/changes"),
        json!([{"path": "notes.md", "kind": "created", "old_size": null, "new_size": 8}])
    );
    assert_eq!(
        std::fs::read_to_string(work.path().join("notes.md")).unwrap(),
        "# notes\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_watch_root_reports_changes_outside_the_workdir() {
    let work = tempfile::tempdir().unwrap();
    let extra = tempfile::tempdir().unwrap();
    let name = extra
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let s = Session::start(&[
        "mcp",
        "--workdir",
        dir_str(work.path()),
        "--watch-root",
        dir_str(extra.path()),
    ])
    .await;
    let target = extra.path().join("out.txt");
    let command = format!("printf abc > {}", dir_str(&target));
    let r = s.call("exec", json!({ "command": command })).await;
    let t = text(&r);
    assert!(
        t.contains(&format!(
            "[Workspace Changes]\n+ {name}:out.txt (created, 3 B)"
        )),
        "{t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_cancelled_exec_leaves_no_process_behind() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let marker = unique_marker();
    let handle = s
        .start_call(
            "exec",
            json!({"command": format!("sleep {marker}; echo late")}),
        )
        .await;
    eventually("the sleep to start", || !processes_with(&marker).is_empty()).await;
    handle.cancel(Some("test".to_string())).await.unwrap();
    eventually("the sleep to be killed", || {
        processes_with(&marker).is_empty()
    })
    .await;

    // The server goes on serving.
    let r = s.call("exec", json!({"command": "echo still here"})).await;
    assert!(text(&r).contains("still here"));
}

/// A marker no other process has: `300.<pid><nanos>` (a valid `sleep`
/// argument).
fn unique_marker() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("300.{}{}", std::process::id(), nanos % 100_000)
}

/// Starts `exec sleep MARKER` without waiting for it, and waits until the
/// process runs.
async fn start_sleeping_exec(s: &Session, marker: &str) {
    let peer = s.client.peer().clone();
    let command = format!("sleep {marker}; echo late");
    tokio::spawn(async move {
        let mut params = CallToolRequestParams::new("exec");
        params.arguments = Some(object(json!({ "command": command })));
        let _ = peer.call_tool(params).await;
    });
    eventually("the sleep to start", || !processes_with(marker).is_empty()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_end_of_input_and_sigterm_stop_running_execs() {
    let work = tempfile::tempdir().unwrap();

    // The client closes the connection while an exec runs.
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let marker = unique_marker();
    start_sleeping_exec(&s, &marker).await;
    let Session {
        client,
        mut process,
        ..
    } = s;
    let _ = client.cancel().await;
    let status = tokio::time::timeout(WAIT, process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    eventually("the sleep to be killed", || {
        processes_with(&marker).is_empty()
    })
    .await;

    // SIGTERM while an exec runs, the client still connected.
    let mut s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let marker = unique_marker() + "1";
    start_sleeping_exec(&s, &marker).await;
    let pid = s.process.id().unwrap().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = tokio::time::timeout(WAIT, s.process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(143));
    assert!(
        processes_with(&marker).is_empty(),
        "{:?}",
        processes_with(&marker)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_concurrent_safe_calls_run_at_the_same_time() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    // Two read-only execs, each a sleep with a marker of its own: seen
    // running at the same moment, they overlap.
    let pid = std::process::id();
    let (mark_a, mark_b) = (format!("sleep 2.{pid}1"), format!("sleep 2.{pid}2"));
    let both = async {
        eventually("both sleeps at once", || {
            !processes_with(&mark_a).is_empty() && !processes_with(&mark_b).is_empty()
        })
        .await
    };
    let (a, b, ()) = tokio::join!(
        s.call("exec", json!({"command": format!("{mark_a} && echo met")})),
        s.call("exec", json!({"command": format!("{mark_b} && echo met")})),
        both,
    );
    assert!(text(&a).contains("met"), "{}", text(&a));
    assert!(text(&b).contains("met"), "{}", text(&b));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_a_non_safe_call_waits_until_it_can_run_alone() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    // A read-only (concurrency-safe) exec runs first and then looks for
    // the file that write (not safe) creates: write must wait until exec
    // is done.
    let marker = format!("sleep 1.{}3", std::process::id());
    let peer = s.client.peer().clone();
    let command = format!("{marker}; test -e x.txt && echo met || echo alone");
    let exec = tokio::spawn(async move {
        let mut params = CallToolRequestParams::new("exec");
        params.arguments = Some(object(json!({ "command": command })));
        peer.call_tool(params).await
    });
    eventually("exec to start", || !processes_with(&marker).is_empty()).await;
    let w = s
        .call("write", json!({"path": "x.txt", "content": "x"}))
        .await;
    assert_eq!(w.is_error, Some(false), "{}", text(&w));
    let e = tokio::time::timeout(WAIT, exec)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(text(&e).starts_with("alone"), "{}", text(&e));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_a_long_exec_reports_progress_and_tools_have_titles() {
    let dir = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(dir.path())]).await;
    let tools = s.tools().await;
    assert_eq!(
        tool(&tools, "exec").title.as_deref(),
        Some("Run shell command")
    );
    assert_eq!(tool(&tools, "read").title.as_deref(), Some("Read file"));
    // About 3 s: a line every 100 ms.
    let handle = s
        .start_call(
            "exec",
            json!({"command": "for i in $(seq 1 30); do echo line $i; sleep 0.1; done"}),
        )
        .await;
    let token = handle.progress_token.clone();
    let response = tokio::time::timeout(WAIT, handle.await_response())
        .await
        .unwrap()
        .unwrap();
    let ServerResult::CallToolResult(r) = response else {
        panic!("not a tool result: {response:?}");
    };
    assert!(text(&r).contains("line 30"), "{}", text(&r));
    eventually("three progress notifications", || {
        s.recorder.progress.lock().unwrap().len() >= 3
    })
    .await;
    let progress = s.recorder.progress.lock().unwrap().clone();
    let mut seen = 0.0;
    for p in &progress {
        assert_eq!(p.progress_token, token);
        assert!(p.progress >= seen && p.progress <= 30.0, "{progress:?}");
        seen = p.progress;
        let message = p.message.clone().unwrap_or_default();
        assert!(
            message.ends_with(" bytes of output so far")
                && message.starts_with(&format!("{} lines, ", p.progress)),
            "{message}"
        );
    }
}

#[test]
fn mcp_and_proxy_refuse_unusable_arguments_with_exit_2() {
    let out = std::process::Command::new(TOOLEXEC)
        .args(["mcp", "--workdir", "/nonexistent/toolexec-dir"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "toolexec: --workdir /nonexistent/toolexec-dir: not a directory"
    );
    assert!(out.stdout.is_empty());

    let out = std::process::Command::new(TOOLEXEC)
        .args(["proxy", "--", "/nonexistent/mcp-server"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("toolexec: proxy: cannot start /nonexistent/mcp-server: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    // Over HTTP no child runs before a session: the program is looked up
    // at start, on a path or in PATH.
    for program in ["/nonexistent/mcp-server", "toolexec-no-such-mcp-server"] {
        let out = std::process::Command::new(TOOLEXEC)
            .args(["proxy", "--http", "127.0.0.1:0", "--", program])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{program}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!("toolexec: proxy: cannot start {program}: no such program (looked in PATH)")
        );
    }

    let out = std::process::Command::new(TOOLEXEC)
        .args([
            "proxy",
            "--watch-root",
            "/tmp",
            "--",
            "/nonexistent/mcp-server",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "toolexec: --watch-root /tmp needs --workdir (without it there is no workspace diff)"
    );
}

// ---------------------------------------------------------------- proxy

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_lists_the_child_tools_and_passes_its_stderr() {
    let s = Session::start(&["proxy", "--", test_server()]).await;
    let tools = s.tools().await;
    assert_eq!(
        names(&tools),
        [
            "add_tool",
            "ask",
            "big",
            "crash",
            "echo_secret",
            "many_lines",
            "needs_field",
            "readonly_big",
            "sleep",
            "write_file"
        ]
    );
    assert_eq!(
        tool(&tools, "needs_field").input_schema["required"],
        json!(["name"])
    );
    let ro = tool(&tools, "readonly_big");
    assert_eq!(ro.annotations.clone().unwrap().read_only_hint, Some(true));
    // Not trusted without --trust-annotations; no workdir: concurrent.
    assert_eq!(
        ro.meta.clone().unwrap().0["toolexec/readOnly"],
        json!(false)
    );
    assert_eq!(
        ro.meta.clone().unwrap().0["toolexec/concurrencySafe"],
        json!(true)
    );
    eventually("the child's stderr", || {
        s.stderr().contains("mcp_test_server: ready")
    })
    .await;

    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "proxy",
        "--workdir",
        dir_str(work.path()),
        "--trust-annotations",
        "--",
        test_server(),
    ])
    .await;
    let tools = s.tools().await;
    let ro = tool(&tools, "readonly_big").meta.clone().unwrap();
    assert_eq!(
        (
            &ro.0["toolexec/readOnly"],
            &ro.0["toolexec/concurrencySafe"]
        ),
        (&json!(true), &json!(true))
    );
    let wf = tool(&tools, "write_file").meta.clone().unwrap();
    assert_eq!(
        (
            &wf.0["toolexec/readOnly"],
            &wf.0["toolexec/concurrencySafe"]
        ),
        (&json!(false), &json!(false))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_masks_secrets_in_text_and_structured_content() {
    let s = Session::start(&["proxy", "--", test_server()]).await;
    let r = s.call("echo_secret", json!({})).await;
    let t = text(&r);
    assert_eq!(r.is_error, Some(false), "{t}");
    assert_eq!(t, "token=[REDACTED:github-token]");
    let structured = r
        .structured_content
        .clone()
        .expect("structured content passed on");
    assert_eq!(
        structured,
        json!({"token": "[REDACTED:github-token]", "note": "kept"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_guards_with_the_child_schema_and_our_turn_options() {
    let s = Session::start(&["proxy", "--disabled", "crash", "--", test_server()]).await;
    assert!(!names(&s.tools().await).contains(&"crash".to_string()));

    let r = s.call("needs_field", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        r#"tool needs_field: invalid input: missing required field "name""#
    );
    let r = s.call("needs_field", json!({"name": "Ada"})).await;
    assert_eq!(
        (r.is_error, text(&r)),
        (Some(false), "hello Ada".to_string())
    );

    let r = s.call("crash", json!({})).await;
    assert_eq!(
        (r.is_error, text(&r)),
        (Some(true), "tool crash is disabled".to_string())
    );

    match s.try_call("nope", json!({})).await {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_deadline_times_out_and_cancels_the_child_call() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let s = Session::start(&[
        "proxy",
        "--timeout-ms",
        "500",
        "--",
        test_server(),
        "--log",
        dir_str(&log),
    ])
    .await;
    let r = s.call("sleep", json!({"ms": 20_000})).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        text(&r),
        "Tool 'sleep' execution timed out after 500ms. The external service may be slow or unavailable. \
         Consider: retry later, use alternative approach, or skip this step."
    );
    eventually("the child to see notifications/cancelled", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("sleep cancelled"))
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_passes_a_cancellation_on_to_the_child() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let s = Session::start(&["proxy", "--", test_server(), "--log", dir_str(&log)]).await;
    let handle = s.start_call("sleep", json!({"ms": 60_000})).await;
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
    eventually("the child to start sleeping", || {
        read_log().contains("sleep started")
    })
    .await;
    handle.cancel(Some("test".to_string())).await.unwrap();
    eventually("the child to see notifications/cancelled", || {
        read_log().contains("sleep cancelled")
    })
    .await;
    let r = s.call("needs_field", json!({"name": "again"})).await;
    assert_eq!(text(&r), "hello again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_spills_a_100000_char_result() {
    let scratch = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "proxy",
        "--scratch",
        dir_str(scratch.path()),
        "--",
        test_server(),
    ])
    .await;
    let r = s.call("big", json!({})).await;
    let t = text(&r);
    let prefix = format!(
        "Result too large (100000 chars). Full output was spilled to scratch file: {}/tool_result_",
        scratch.path().display()
    );
    assert!(t.starts_with(&prefix), "{t}");
    // The proxy offers no `read`: the message names a tool only when the
    // model can call it (SPEC §5.4).
    assert!(
        t.ends_with(".txt\nUse toolexec_read_spill tool on this path if you need full content."),
        "{t}"
    );
    let spill = meta(&r, "toolexec/spillPath");
    let full = std::fs::read_to_string(spill.as_str().unwrap()).unwrap();
    assert_eq!(full, "a".repeat(100_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_spill_hint_names_its_spill_reader_which_reads_only_its_spill_files() {
    let scratch = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "proxy",
        "--scratch",
        dir_str(scratch.path()),
        "--",
        test_server(),
    ])
    .await;
    // Not listed before anything was spilled.
    assert!(!names(&s.tools().await).contains(&"toolexec_read_spill".to_string()));
    let r = s.call("many_lines", json!({})).await;
    let t = text(&r);
    let path = meta(&r, "toolexec/spillPath").as_str().unwrap().to_string();
    assert!(
        t.ends_with(&format!(
            "{path}\nUse toolexec_read_spill tool on this path if you need full content."
        )),
        "{t}"
    );
    let tools = s.tools().await;
    let reader = tool(&tools, "toolexec_read_spill");
    assert_eq!(
        reader.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    let r = s
        .call(
            "toolexec_read_spill",
            json!({"path": path, "offset": 1500, "limit": 3}),
        )
        .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(
        text(&r),
        "  1500\tline 1500 of the child's output\n  1501\tline 1501 of the child's output\n  1502\tline 1502 of the child's output\n[showing lines 1500-1502; use toolexec_read_spill with offset=1503 to see more]"
    );
    // The last lines, without a "more" note.
    let r = s
        .call("toolexec_read_spill", json!({"path": path, "offset": 3000}))
        .await;
    assert_eq!(text(&r), "  3000\tline 3000 of the child's output");
    // Nothing but its own spill files.
    let elsewhere = tempfile::tempdir().unwrap();
    let other = elsewhere.path().join("tool_result_1.txt");
    std::fs::write(&other, "not ours").unwrap();
    for bad in [other.to_str().unwrap(), "/etc/passwd"] {
        let r = s.call("toolexec_read_spill", json!({"path": bad})).await;
        assert_eq!(r.is_error, Some(true), "{bad}");
        assert!(
            text(&r).contains("only this server's spill files"),
            "{}",
            text(&r)
        );
    }
}

/// The processes whose process group is `pgid` (from `/proc/PID/stat`).
fn group_members(pgid: u32) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parens.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // A zombie waits for its parent to reap it; it runs nothing.
        if fields.first() == Some(&"Z") {
            continue;
        }
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) == Some(pgid) {
            found.push(stat);
        }
    }
    found
}

/// The process group of `pid` (host ids), from `/proc/PID/stat`.
fn pgid_of(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process runs");
    let (_, rest) = stat.rsplit_once(')').expect("a stat line");
    rest.split_whitespace()
        .nth(2)
        .and_then(|g| g.parse().ok())
        .expect("a pgrp field")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_ends_the_whole_process_group_of_a_wrapper() {
    let logs = tempfile::tempdir().unwrap();
    for (round, how) in ["end of input", "SIGTERM", "wrapper killed"]
        .iter()
        .enumerate()
    {
        let log = logs.path().join(format!("server-{round}.log"));
        let log = dir_str(&log).to_string();
        // A shell that does not exec: the real server is a grandchild, next
        // to a background sleeper.
        let script = format!("sleep 3600 & '{}' --log '{log}'; wait", test_server());
        let s = Session::start(&["proxy", "--", "sh", "-c", &script]).await;
        let wrapper = processes_with(&log)
            .into_iter()
            .find_map(|p| {
                let (pid, cmd) = p.split_once(": ")?;
                cmd.starts_with("sh -c").then(|| pid.parse::<u32>().ok())?
            })
            .expect("the wrapper shell runs");
        // The wrapper's group (led by the containment's supervisor where
        // PID namespaces work, by the wrapper itself elsewhere) holds the
        // server and the sleeper.
        let group = pgid_of(wrapper);
        eventually("the group to hold the server and the sleeper", || {
            group_members(group).len() >= 3
        })
        .await;
        let Session {
            client,
            mut process,
            ..
        } = s;
        let want = match *how {
            "end of input" => {
                let _ = client.cancel().await;
                Some(0)
            }
            "SIGTERM" => {
                let pid = process.id().unwrap().to_string();
                assert!(std::process::Command::new("kill")
                    .args(["-TERM", &pid])
                    .status()
                    .unwrap()
                    .success());
                Some(143)
            }
            _ => {
                assert!(std::process::Command::new("kill")
                    .args(["-KILL", &wrapper.to_string()])
                    .status()
                    .unwrap()
                    .success());
                Some(1)
            }
        };
        let status = tokio::time::timeout(WAIT, process.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), want, "{how}");
        eventually(&format!("the group to be empty after {how}"), || {
            group_members(group).is_empty()
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_trusts_read_only_hints_only_when_asked() {
    let whole = format!("{}\n", "r".repeat(49)).repeat(500);
    let s = Session::start(&["proxy", "--", test_server()]).await;
    let t = text(&s.call("readonly_big", json!({})).await);
    assert!(
        t.contains("...[truncated "),
        "untrusted: the plain budget of 10 000 applies"
    );
    assert!(t.len() < 11_000);

    let s = Session::start(&["proxy", "--trust-annotations", "--", test_server()]).await;
    let t = text(&s.call("readonly_big", json!({})).await);
    assert_eq!(t, whole, "trusted read-only: three times the budget");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_with_workdir_appends_the_change_report() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&[
        "proxy",
        "--workdir",
        dir_str(work.path()),
        "--",
        test_server(),
    ])
    .await;
    let path = work.path().join("out.txt");
    let r = s
        .call(
            "write_file",
            json!({"path": dir_str(&path), "content": "hello"}),
        )
        .await;
    let t = text(&r);
    assert_eq!(
        t,
        "written\n\n[Workspace Changes]\n+ out.txt (created, 5 B)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_forwards_sampling_elicitation_resources_prompts_and_new_tools() {
    let s = Session::start(&["proxy", "--", test_server()]).await;
    // The child's capabilities are mirrored; tools/list_changed is ours.
    let info = s.client.peer_info().expect("server info");
    assert!(info.capabilities.resources.is_some());
    assert!(info.capabilities.prompts.is_some());

    // Sampling and elicitation go to our client and back.
    let r = s.call("ask", json!({})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let t = text(&r);
    assert!(t.contains("sampled=\"hi from the client\""), "{t}");
    assert!(
        t.contains("\"action\":\"accept\"") && t.contains("Ada"),
        "{t}"
    );

    // Resources and prompts, their text masked.
    let peer = s.client.peer();
    let resources = peer.list_resources(None).await.unwrap();
    let listed = serde_json::to_value(&resources).unwrap();
    assert_eq!(listed["resources"][0]["uri"], json!("test://notes"));
    let read = peer
        .read_resource(serde_json::from_value(json!({"uri": "test://notes"})).unwrap())
        .await
        .unwrap();
    let read = serde_json::to_value(&read).unwrap().to_string();
    assert!(read.contains("token=[REDACTED:github-token]"), "{read}");
    assert!(!read.contains(&secret()), "{read}");
    let prompts = peer.list_prompts(None).await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts).unwrap()["prompts"][0]["name"],
        json!("greet")
    );
    let prompt = peer
        .get_prompt(serde_json::from_value(json!({"name": "greet"})).unwrap())
        .await
        .unwrap();
    let prompt = serde_json::to_value(&prompt).unwrap().to_string();
    assert!(prompt.contains("[REDACTED:github-token]"), "{prompt}");
    assert!(!prompt.contains(&secret()), "{prompt}");

    // A tool added at run time: the proxy follows the child's
    // tools/list_changed and tells us.
    assert!(!names(&s.tools().await).contains(&"late_tool".to_string()));
    let r = s.call("add_tool", json!({})).await;
    assert_eq!(text(&r), "added");
    eventually("our tools/list_changed", || {
        s.recorder
            .tools_changed
            .load(std::sync::atomic::Ordering::SeqCst)
            > 0
    })
    .await;
    assert!(names(&s.tools().await).contains(&"late_tool".to_string()));
    let r = s.call("late_tool", json!({})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(text(&r), "late tool ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_passes_progress_on_with_the_callers_token() {
    let s = Session::start(&["proxy", "--", test_server()]).await;
    let handle = s.start_call("sleep", json!({"ms": 450})).await;
    let token = handle.progress_token.clone();
    let response = tokio::time::timeout(WAIT, handle.await_response())
        .await
        .unwrap()
        .unwrap();
    let ServerResult::CallToolResult(r) = response else {
        panic!("not a tool result: {response:?}");
    };
    assert_eq!(text(&r), "slept 450 ms");
    eventually("progress notifications", || {
        !s.recorder.progress.lock().unwrap().is_empty()
    })
    .await;
    let progress = s.recorder.progress.lock().unwrap().clone();
    for p in &progress {
        assert_eq!(p.progress_token, token);
        let message = p.message.clone().unwrap_or_default();
        assert!(message.contains("[REDACTED:github-token]"), "{message}");
        assert!(!message.contains(&secret()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_stops_the_child_at_end_of_input_and_on_sigterm() {
    let logs = tempfile::tempdir().unwrap();
    for (round, signal) in [(0, false), (1, true)] {
        let log = logs.path().join(format!("server-{round}.log"));
        let log = dir_str(&log).to_string();
        let s = Session::start(&["proxy", "--", test_server(), "--log", &log]).await;
        // The test server's own process (the proxy's command line names the
        // log file too).
        let servers = || -> Vec<String> {
            processes_with(&log)
                .into_iter()
                .filter(|p| {
                    p.split_once(": ")
                        .is_some_and(|(_, cmd)| cmd.starts_with(test_server()))
                })
                .collect()
        };
        assert_eq!(servers().len(), 1, "{:?}", servers());
        let peer = s.client.peer().clone();
        tokio::spawn(async move {
            let mut params = CallToolRequestParams::new("sleep");
            params.arguments = Some(object(json!({"ms": 60_000})));
            let _ = peer.call_tool(params).await;
        });
        let read_log = || std::fs::read_to_string(&log).unwrap_or_default();
        eventually("the child to start sleeping", || {
            read_log().contains("sleep started")
        })
        .await;
        let Session {
            client,
            mut process,
            ..
        } = s;
        let want = if signal {
            let pid = process.id().unwrap().to_string();
            let kill = std::process::Command::new("kill")
                .args(["-TERM", &pid])
                .status()
                .unwrap();
            assert!(kill.success());
            143
        } else {
            let _ = client.cancel().await;
            0
        };
        let status = tokio::time::timeout(WAIT, process.wait())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.code(), Some(want), "signal: {signal}");
        eventually("the child to exit", || servers().is_empty()).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_fails_pending_calls_and_exits_non_zero_when_the_child_dies() {
    let mut s = Session::start(&["proxy", "--", test_server()]).await;
    let peer = s.client.peer().clone();
    let pending = tokio::spawn(async move {
        let mut params = CallToolRequestParams::new("sleep");
        params.arguments = Some(object(json!({"ms": 60_000})));
        peer.call_tool(params).await
    });
    // Give the sleep call time to reach the child.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let crash = s.call("crash", json!({})).await;
    assert_eq!(crash.is_error, Some(true));
    assert!(
        text(&crash).starts_with("the MCP server "),
        "{}",
        text(&crash)
    );
    let sleep = tokio::time::timeout(WAIT, pending)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(sleep.is_error, Some(true));
    let t = text(&sleep);
    assert!(
        t.contains("mcp_test_server exited before answering (exit status: 3)"),
        "{t}"
    );
    let status = tokio::time::timeout(WAIT, s.process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    eventually("the exit line", || {
        s.stderr().contains("exited (exit status: 3)")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_sigkill_leaves_no_process_of_the_childs_tree() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("server.log");
    let log = dir_str(&log).to_string();
    let marker = unique_marker();
    // The real server is a grandchild, next to a background sleeper that
    // leaves the group and the session: only the PID namespace holds it.
    let script = format!(
        "setsid sleep {marker} & '{}' --log '{log}'; wait",
        test_server()
    );
    let s = Session::start(&["proxy", "--", "sh", "-c", &script]).await;
    eventually("the server and the sleeper to run", || {
        processes_with(&log).len() >= 2 && !processes_with(&marker).is_empty()
    })
    .await;
    let Session {
        client,
        mut process,
        stderr,
        ..
    } = s;
    let pid = process.id().unwrap().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-KILL", &pid])
        .status()
        .unwrap()
        .success());
    let status = tokio::time::timeout(WAIT, process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    drop(client);
    let contained = !stderr
        .lock()
        .unwrap()
        .contains("user and PID namespaces are not available");
    if contained {
        eventually("no process of the child's tree to remain", || {
            processes_with(&log).is_empty() && processes_with(&marker).is_empty()
        })
        .await;
    } else {
        // Fallback (no namespaces here): the parent-death signal ends the
        // wrapper, the proxy's direct child; what it started may remain.
        println!("note: no PID namespaces here; only the direct child is checked");
        eventually("the wrapper to end", || {
            !processes_with(&log).iter().any(|p| {
                p.split_once(": ")
                    .is_some_and(|(_, c)| c.starts_with("sh -c"))
            })
        })
        .await;
        for p in processes_with(&log).iter().chain(&processes_with(&marker)) {
            let pid = p.split_once(": ").unwrap().0.to_string();
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status();
        }
    }
}

/// Where user namespaces cannot be created (a user namespace whose
/// `max_user_namespaces` is 0), the proxy warns once and falls back to the
/// process group (end of input still ends the whole group) plus a
/// parent-death signal on its direct child (a SIGKILL of the proxy ends
/// the wrapper).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_without_namespaces_warns_once_and_falls_back_to_the_group() {
    if std::process::Command::new("unshare")
        .args(["-r", "true"])
        .status()
        .map_or(true, |s| !s.success())
    {
        println!("skipped: unshare -r does not work here");
        return;
    }
    let logs = tempfile::tempdir().unwrap();
    for (round, how) in ["end of input", "SIGKILL"].iter().enumerate() {
        let log = logs.path().join(format!("server-{round}.log"));
        let log = dir_str(&log).to_string();
        let marker = unique_marker();
        let wrapped = format!("sleep {marker} & '{}' --log '{log}'; wait", test_server());
        let mut command = tokio::process::Command::new("unshare");
        command.args([
            "-r",
            "sh",
            "-c",
            &format!(
                "echo 0 > /proc/sys/user/max_user_namespaces && exec '{TOOLEXEC}' proxy -- sh -c \"$0\""
            ),
            &wrapped,
        ]);
        let s = Session::start_command(command, &["proxy", "(without namespaces)"]).await;
        let wrapper = processes_with(&log)
            .into_iter()
            .find_map(|p| {
                let (pid, cmd) = p.split_once(": ")?;
                cmd.starts_with("sh -c sleep")
                    .then(|| pid.parse::<u32>().ok())?
            })
            .expect("the wrapper shell runs");
        // No supervisor: the wrapper leads its own group.
        assert_eq!(pgid_of(wrapper), wrapper);
        eventually("the group to hold the server and the sleeper", || {
            group_members(wrapper).len() >= 3
        })
        .await;
        let warning = "user and PID namespaces are not available here";
        assert_eq!(s.stderr().matches(warning).count(), 1, "{}", s.stderr());
        let Session {
            client,
            mut process,
            ..
        } = s;
        if *how == "end of input" {
            let _ = client.cancel().await;
            let status = tokio::time::timeout(WAIT, process.wait())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(status.code(), Some(0));
            eventually("the group to be empty", || {
                group_members(wrapper).is_empty()
            })
            .await;
        } else {
            let pid = process.id().unwrap().to_string();
            assert!(std::process::Command::new("kill")
                .args(["-KILL", &pid])
                .status()
                .unwrap()
                .success());
            let _ = tokio::time::timeout(WAIT, process.wait()).await.unwrap();
            drop(client);
            eventually("the wrapper (the direct child) to end", || {
                std::fs::read_to_string(format!("/proc/{wrapper}/stat")).map_or(true, |stat| {
                    stat.rsplit_once(')')
                        .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
                })
            })
            .await;
            // What the wrapper started may remain in this fallback.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(wrapper as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// `python3 tests/python/task_server.py`, or `None` without python3.
fn task_server() -> Option<[&'static str; 2]> {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .ok()?;
    Some([
        "python3",
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/task_server.py"),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_passes_tool_fields_rmcp_does_not_model_on_the_wire() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let Some(server) = task_server() else {
        println!("skipped: python3 is not installed");
        return;
    };
    let mut process = tokio::process::Command::new(TOOLEXEC)
        .args(["proxy", "--", server[0], server[1]])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = process.stdin.take().unwrap();
    let mut lines = tokio::io::BufReader::new(process.stdout.take().unwrap()).lines();
    let line_of = |line: Value| {
        let mut text = line.to_string();
        text.push('\n');
        text
    };
    let initialize = line_of(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}}),
    );
    stdin.write_all(initialize.as_bytes()).await.unwrap();
    let reply = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let reply: Value = serde_json::from_str(&reply).unwrap();
    assert_eq!(reply["id"], json!(1), "{reply}");
    let rest = line_of(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        + &line_of(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    stdin.write_all(rest.as_bytes()).await.unwrap();
    let list = loop {
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let value: Value = serde_json::from_str(&line).unwrap();
        if value["id"] == json!(2) {
            break value;
        }
    };
    let tools = list["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .clone();
    let by_name = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == json!(name))
            .unwrap_or_else(|| panic!("no {name} in {list}"))
            .clone()
    };
    assert_eq!(
        by_name("long_job")["execution"],
        json!({"taskSupport": "required"})
    );
    let maybe = by_name("maybe_task");
    assert_eq!(maybe["execution"], json!({"taskSupport": "optional"}));
    assert_eq!(maybe["x-vendor"], json!({"tier": 2}));
    // The carrier key is gone; our own `_meta` keys stay.
    assert!(maybe["_meta"].get("toolexec/fields").is_none(), "{maybe}");
    assert_eq!(maybe["_meta"]["toolexec/readOnly"], json!(false));
    let whoami = by_name("whoami");
    assert!(whoami.get("execution").is_none(), "{whoami}");
    drop(stdin);
    let status = tokio::time::timeout(WAIT, process.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// The live (not zombie) descendants of `root`, as `pid: cmdline`.
fn descendants(root: u32) -> Vec<String> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (Some(state), Some(ppid)) = (fields.first(), fields.get(1)) else {
            continue;
        };
        if let Ok(ppid) = ppid.parse::<u32>() {
            parents.push((pid, ppid, *state == "Z"));
        }
    }
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, zombie) in &parents {
            if ppid == parent {
                frontier.push(pid);
                if !zombie {
                    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    found.push(format!(
                        "{pid}: {}",
                        String::from_utf8_lossy(&cmdline).replace('\0', " ")
                    ));
                }
            }
        }
    }
    found
}

/// POSTs `body` to `http://ADDR/mcp` (one connection, closed after the
/// answer); the status line, the headers (lower-case names) and the body.
async fn post_mcp(
    addr: std::net::SocketAddr,
    body: &Value,
) -> (String, Vec<(String, String)>, String) {
    use tokio::io::AsyncWriteExt;
    let body = body.to_string();
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut answer))
        .await
        .expect("an answer in time")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap_or_default().to_string();
    let headers = lines
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_ascii_lowercase(), v.to_string()))
        .collect();
    (status, headers, body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_http_session_idle_timeout_ends_its_childs_tree() {
    let Some(server) = task_server() else {
        println!("skipped: python3 is not installed");
        return;
    };
    let mut command = std::process::Command::new(server[0]);
    command.arg(server[1]);
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tx = Mutex::new(Some(tx));
    let mut options =
        toolexec_mcp::HttpOptions::new("127.0.0.1:0".parse().unwrap()).on_listening(move |addr| {
            if let Some(tx) = tx.lock().unwrap().take() {
                let _ = tx.send(addr);
            }
        });
    options.session_idle = Duration::from_millis(500);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let proxy = tokio::spawn(
        toolexec_mcp::Proxy::builder(command)
            .shutdown_on(shutdown.clone())
            .serve(toolexec_mcp::Transport::Http(options)),
    );
    let addr = tokio::time::timeout(WAIT, rx).await.unwrap().unwrap();
    let me = std::process::id();
    assert!(descendants(me).is_empty(), "{:?}", descendants(me));
    let (status, headers, body) = post_mcp(
        addr,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
    )
    .await;
    assert!(status.contains(" 200 "), "{status} {body}");
    assert!(
        headers.iter().any(|(k, _)| k == "mcp-session-id"),
        "{headers:?}"
    );
    assert!(body.contains("toolexec-proxy"), "{body}");
    let tree = descendants(me);
    assert!(
        tree.iter().any(|p| p.contains("task_server.py")) && tree.len() >= 3,
        "{tree:?}"
    );
    // Nothing more is sent: the session idles out, and its child's tree
    // ends with it.
    eventually("the idle session's tree to end", || {
        descendants(me).is_empty()
    })
    .await;
    shutdown.cancel();
    let outcome = tokio::time::timeout(WAIT, proxy)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(outcome, toolexec_mcp::Outcome::Shutdown);
}

// ---------------------------------------------------------------- bad input

/// Runs `toolexec ARGS` with `lines` on stdin (then end of input); its
/// stdout lines parsed as JSON (each must be JSON) and its exit status.
fn raw_session(args: &[&str], lines: &[String]) -> (Vec<Value>, Option<i32>) {
    use std::io::Write;
    let mut child = std::process::Command::new(TOOLEXEC)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines.to_vec();
    let writer = std::thread::spawn(move || {
        for line in lines {
            if stdin.write_all(line.as_bytes()).is_err() || stdin.write_all(b"\n").is_err() {
                return;
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).expect("utf-8 stdout");
    let values = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (values, out.status.code())
}

#[test]
fn mcp_answers_bad_input_on_stdio_with_errors_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let big = "a".repeat(10 * 1024 * 1024);
    let initialize = r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    // Only the request after the last line (tools/list, id 7) needs an
    // answer before end of input: sleep on nothing, the writer just ends.
    let lines = vec![
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_string(),
        "this is not json".to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"x":"{big}"}}}}"#),
        r#"{"jsonrpc":"2.0","id":3,"method":"nope/nothing"}"#.to_string(),
        initialize.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        "{\"unterminated".to_string(),
        r#"{"jsonrpc":"2.0","id":5,"method":"nope/nothing"}"#.to_string(),
        format!(r#"{{"jsonrpc":"2.0","id":6,"method":"ping","params":{{"x":"{big}"}}}}"#),
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#.to_string(),
    ];
    let (replies, code) = raw_session(&["mcp", "--workdir", dir_str(dir.path())], &lines);
    assert_eq!(code, Some(0));
    let by_id = |id: u64| {
        replies
            .iter()
            .find(|r| r["id"] == json!(id))
            .unwrap_or_else(|| panic!("no reply {id}: {replies:?}"))
            .clone()
    };
    // Before initialize: an error naming what is missing, no crash.
    assert!(by_id(1)["error"]["message"].is_string(), "{}", by_id(1));
    assert!(by_id(3)["error"]["message"].is_string(), "{}", by_id(3));
    assert_eq!(by_id(4)["result"]["serverInfo"]["name"], json!("toolexec"));
    assert_eq!(by_id(5)["error"]["code"], json!(-32601));
    assert_eq!(by_id(6)["result"], json!({}));
    let tools = by_id(7)["result"]["tools"].as_array().unwrap().len();
    assert!(tools >= 6, "{}", by_id(7));
}

/// `toolexec tools --format mcp` prints exactly what `toolexec mcp` lists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_format_mcp_matches_the_servers_tools_list() {
    let work = tempfile::tempdir().unwrap();
    let s = Session::start(&["mcp", "--workdir", dir_str(work.path())]).await;
    let mut served: Vec<Value> = s
        .tools()
        .await
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    let out = std::process::Command::new(TOOLEXEC)
        .args(["tools", "--format", "mcp"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut printed: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |v: &Value| v["name"].as_str().unwrap().to_string();
    served.sort_by_key(by_name);
    printed.sort_by_key(by_name);
    assert_eq!(printed, served);
}
