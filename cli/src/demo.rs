//! `toolexec demo`: the seed scenario (three demo tools, six calls in one
//! batch: a quiet writer, its call without `text`, an unknown tool, 200 and
//! 2 000 printed lines, a panic), run through the real,
//! default-configured pipeline with only the budget set to 400.
//!
//! Besides the three demo tools the executor registers the built-in `read`
//! tool, allowed to open the demo's scratch directory: the hints the demo
//! prints (`use read on SCRATCH/tool_result_….txt with offset=15`, `Use
//! read tool on this path`) name a tool the model could call, so they hold
//! (every hint works when followed). With `--keep` the workspace and the scratch directory stay,
//! so the printed spill files can be opened.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use serde_json::{json, Value};
use toolexec_core::{
    BatchOptions, Executor, Tool, ToolCall, ToolContext, ToolError, ToolFuture, ToolResult,
};

/// Not read-only; creates notes.md, rewrites report.txt with 300 lines,
/// deletes old.log, returns `ok`.
struct QuietWriter(Value);

impl Tool for QuietWriter {
    fn name(&self) -> &str {
        "quiet_writer"
    }
    fn description(&self) -> &str {
        "Writes notes.md, rewrites report.txt and deletes old.log without saying so."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn call(&self, _input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let root = ctx.workdir().to_path_buf();
            tokio::task::spawn_blocking(move || -> Result<String, ToolError> {
                fs::write(root.join("notes.md"), "# notes\n")?;
                fs::write(root.join("report.txt"), "line\n".repeat(300))?;
                fs::remove_file(root.join("old.log"))?;
                Ok("ok".to_string())
            })
            .await
            .map_err(|e| ToolError::new(format!("quiet_writer failed: {e}")))?
        })
    }
}

/// Read-only; prints `n` lines `line NNNN of a long build log`.
struct PrintLines(Value);

impl Tool for PrintLines {
    fn name(&self) -> &str {
        "print_lines"
    }
    fn description(&self) -> &str {
        "Prints n numbered lines of a long build log."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn read_only(&self, _input: &Value) -> bool {
        true
    }
    fn concurrency_safe(&self, _input: &Value) -> bool {
        true
    }
    fn call(&self, input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let n = input["n"].as_u64().ok_or_else(|| {
                ToolError::new("print_lines: field \"n\" must be a non-negative integer")
            })?;
            let mut out = String::with_capacity(n as usize * 30);
            for i in 1..=n {
                out.push_str(&format!("line {i:04} of a long build log\n"));
            }
            Ok(out)
        })
    }
}

/// Panics with Go's classic message.
struct Crasher(Value);

impl Tool for Crasher {
    fn name(&self) -> &str {
        "crasher"
    }
    fn description(&self) -> &str {
        "Always panics."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn call(&self, _input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move { panic!("assignment to entry in nil map") })
    }
}

/// The six calls of the seed scenario.
pub fn calls() -> Vec<ToolCall> {
    vec![
        ToolCall::new("1", "quiet_writer", r#"{"text":"hi"}"#),
        ToolCall::new("2", "quiet_writer", "{}"),
        ToolCall::new("3", "rm_rf", "{}"),
        ToolCall::new("4", "print_lines", r#"{"n":200}"#),
        ToolCall::new("5", "print_lines", r#"{"n":2000}"#),
        ToolCall::new("6", "crasher", "{}"),
    ]
}

/// Builds the demo executor over `workspace`, spilling into `scratch`.
pub fn executor(workspace: &Path, scratch: &Path) -> Result<Executor, toolexec_core::BuildError> {
    let tracker = std::sync::Arc::new(toolexec_tools::FileTracker::new());
    let read =
        toolexec_tools::ReadTool::new(tracker.clone()).with_extra_roots([scratch.to_path_buf()]);
    Executor::builder(workspace)
        .tool(QuietWriter(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })))
        .tool(PrintLines(json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 0}},
            "required": ["n"]
        })))
        .tool(Crasher(json!({"type": "object"})))
        .tool(read)
        .observer(tracker)
        .limits(Some(
            toolexec_limiter::Limits::default()
                .budget(400)
                .scratch_dir(scratch),
        ))
        .build()
}

/// Lays out the scratch workspace: report.txt (6 B) and old.log.
pub fn prepare(workspace: &Path) -> io::Result<()> {
    fs::write(workspace.join("report.txt"), "draft\n")?;
    fs::write(workspace.join("old.log"), "old log line\n")?;
    Ok(())
}

/// Prints results as the demo shows them: a header line
/// `[K] NAME IsError=BOOL ErrorKind=KIND`, the content, and a blank line.
pub fn print(out: &mut impl Write, results: &[ToolResult]) -> io::Result<()> {
    for (k, r) in results.iter().enumerate() {
        let kind = r.error_kind.map(|k| k.as_str()).unwrap_or("");
        writeln!(
            out,
            "[{}] {} IsError={} ErrorKind={}",
            k + 1,
            r.name,
            r.is_error,
            kind
        )?;
        writeln!(out, "{}", r.content)?;
        writeln!(out)?;
    }
    Ok(())
}

/// Runs the demo and prints it to stdout.
pub async fn run(keep: bool) -> Result<(), String> {
    let dir = tempfile::Builder::new()
        .prefix("toolexec-demo-")
        .tempdir()
        .map_err(|e| format!("cannot create the demo workspace: {e}"))?;
    let workspace = dir.path().join("workspace");
    let scratch = dir.path().join("scratch");
    fs::create_dir(&workspace)
        .map_err(|e| format!("cannot create {}: {e}", workspace.display()))?;
    prepare(&workspace).map_err(|e| format!("cannot prepare the demo workspace: {e}"))?;
    let executor = executor(&workspace, &scratch).map_err(|e| e.to_string())?;
    let results = executor.run_batch(calls(), &BatchOptions::new()).await;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    print(&mut out, &results).map_err(|e| format!("cannot write to stdout: {e}"))?;
    out.flush()
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    if keep {
        let kept = dir.keep();
        eprintln!("demo workspace kept at {}", kept.display());
    }
    Ok(())
}
