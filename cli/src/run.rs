//! `toolexec run`: a JSON array of calls on stdin, a JSON array of results
//! on stdout, through the whole pipeline with the built-in tools.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use serde_json::Value;
use toolexec_core::{BatchOptions, Event, EventKind, ToolCall};
use toolexec_mcp::ToolOptions;

use crate::mcp::{PipelineArgs, SandboxArgs};
use crate::CliError;

/// Options of `toolexec run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The workspace root every path is relative to.
    #[arg(long)]
    pub workdir: PathBuf,
    /// The pipeline options shared with `mcp` and `proxy`.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Total budget for the model-facing contents of the whole batch.
    #[arg(long)]
    pub batch_budget: Option<usize>,
    /// Write queued / started / finished events as JSON lines on stderr.
    #[arg(long)]
    pub events: bool,
    /// Environment variable passed to exec even though its name looks
    /// secret (repeatable).
    #[arg(long = "allow-env", value_name = "NAME")]
    pub allow_env: Vec<String>,
    /// The shape of stdin and stdout: toolexec's own, or a model API's.
    #[arg(long, value_enum, default_value_t)]
    pub format: crate::format::RunFormat,
    /// The sandbox options.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

/// Reads the calls: a JSON array of `{"id", "name", "input"}` objects.
/// `input` may be a JSON value or a string holding raw (possibly invalid)
/// JSON text; absent, it is `{}`. A missing `id` becomes the call's
/// 1-based position. Unknown fields are ignored.
pub fn parse_calls(text: &str) -> Result<Vec<ToolCall>, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("stdin is not valid JSON: {e}"))?;
    let Value::Array(items) = value else {
        return Err("stdin must be a JSON array of calls".to_string());
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let k = i + 1;
            let Value::Object(mut obj) = item else {
                return Err(format!("call {k} is not a JSON object"));
            };
            let name = match obj.remove("name") {
                Some(Value::String(name)) => name,
                Some(_) => return Err(format!("call {k}: \"name\" must be a string")),
                None => return Err(format!("call {k} has no \"name\"")),
            };
            let id = match obj.remove("id") {
                Some(Value::String(id)) => id,
                Some(Value::Number(n)) => n.to_string(),
                None | Some(Value::Null) => k.to_string(),
                Some(_) => return Err(format!("call {k}: \"id\" must be a string or a number")),
            };
            let input = match obj.remove("input") {
                Some(Value::String(raw)) => raw,
                Some(value) => value.to_string(),
                None => "{}".to_string(),
            };
            Ok(ToolCall { id, name, input })
        })
        .collect()
}

/// One event line of `--events`.
#[derive(serde::Serialize)]
struct EventLine<'a> {
    event: EventKind,
    id: &'a str,
    name: &'a str,
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_kind: Option<&'a str>,
}

/// The `--events` sink: the batch's task only queues each event; a thread
/// of its own formats and writes the lines, so a slow or blocked stderr
/// never holds the batch up. Join the handle once the options (and so the
/// sink) are dropped, to have every line written.
fn event_sink() -> (
    impl Fn(Event) + Send + Sync + 'static,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = std::sync::mpsc::channel::<Event>();
    let writer = std::thread::spawn(move || {
        let mut err = io::stderr();
        for e in rx {
            let line = EventLine {
                event: e.event,
                id: &e.id,
                name: &e.name,
                index: e.index,
                is_error: e.result.as_ref().map(|r| r.is_error),
                error_kind: e
                    .result
                    .as_ref()
                    .and_then(|r| r.error_kind)
                    .map(|k| k.as_str()),
            };
            if let Ok(text) = serde_json::to_string(&line) {
                let _ = writeln!(err, "{text}");
            }
        }
    });
    let sink = move |e: Event| {
        let _ = tx.send(e);
    };
    (sink, writer)
}

/// Runs `toolexec run`.
pub async fn run(args: RunArgs) -> Result<(), CliError> {
    let workdir = toolexec_mcp::canonical_workdir(&args.workdir)?;
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::Usage(format!("cannot read stdin: {e}")))?;
    let (calls, reply) = crate::format::read_calls(args.format, &text).map_err(CliError::Usage)?;
    let mut pipeline = args.pipeline.options();
    // Scratch: the per-user root (or --scratch DIR), checked, and
    // the workspace's session directory in it, shared by every run on this
    // workspace so that a later run can read an earlier run's spill files.
    let root = toolexec_limiter::ScratchRoot::open(pipeline.limits()?.scratch_dir)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let session = root
        .workspace_session(&workdir)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    pipeline.scratch = Some(session.dir().to_path_buf());
    let redactor = pipeline.redactor()?;
    let tools = ToolOptions {
        allow_env: args.allow_env.clone(),
        read_roots: vec![session.dir().to_path_buf()],
        sandbox: args.sandbox.sandbox(),
        redactor: Some(redactor.clone()),
    };
    let snapshot = pipeline.snapshot_config(&workdir).await?;
    let executor = pipeline
        .builtin_executor(&workdir, &tools, Arc::new(redactor), snapshot)?
        .batch_budget(args.batch_budget)
        .build()
        .map_err(|e| CliError::Runtime(e.to_string()))?;

    // SIGTERM, SIGINT and SIGHUP cancel the batch; the results
    // (running calls `cancelled`, their processes killed) are still
    // written, and the exit status stays 0.
    // The handlers are installed here, before the batch starts, so that no
    // signal can arrive between the start and the handler.
    let cancel = tokio_util::sync::CancellationToken::new();
    let on_signal = {
        use tokio::signal::unix::{signal, SignalKind};
        let install = |kind: SignalKind| {
            signal(kind).map_err(|e| CliError::Runtime(format!("cannot handle signals: {e}")))
        };
        let mut term = install(SignalKind::terminate())?;
        let mut int = install(SignalKind::interrupt())?;
        let mut hup = install(SignalKind::hangup())?;
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
                _ = hup.recv() => "SIGHUP",
            };
            eprintln!("toolexec: {name}: cancelling the batch");
            cancel.cancel();
        })
    };
    let mut options = BatchOptions::new().cancel(cancel);
    let mut writer = None;
    if args.events {
        let (sink, thread) = event_sink();
        options = options.events(sink);
        writer = Some(thread);
    }
    let results = executor.run_batch(calls, &options).await;
    on_signal.abort();
    drop(options);
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let mut text = crate::format::write_results(reply, results)
        .map_err(|e| CliError::Runtime(e.to_string()))?;
    text.push('\n');
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Runtime(format!("cannot write to stdout: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_may_be_an_object_or_raw_text() {
        let calls = parse_calls(r#"[{"id":"1","name":"read","input":{"path":"a"}},{"id":2,"name":"x","input":"{bad"},{"name":"y"}]"#)
            .unwrap();
        assert_eq!(calls[0].input, r#"{"path":"a"}"#);
        assert_eq!(calls[1].id, "2");
        assert_eq!(calls[1].input, "{bad");
        assert_eq!(calls[2].id, "3");
        assert_eq!(calls[2].input, "{}");
    }

    #[test]
    fn bad_stdin_is_refused_with_one_line() {
        for (text, want) in [
            ("nope", "stdin is not valid JSON"),
            ("{}", "stdin must be a JSON array of calls"),
            (r#"[{"id":"1"}]"#, "call 1 has no \"name\""),
            ("[3]", "call 1 is not a JSON object"),
        ] {
            let err = parse_calls(text).unwrap_err();
            assert!(err.starts_with(want), "{err}");
            assert!(!err.contains('\n'));
        }
    }
}
