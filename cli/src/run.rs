//! `toolexec run`: a JSON array of calls on stdin, a JSON array of results
//! on stdout, through the whole pipeline with the built-in tools.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::Value;
use toolexec_core::{BatchOptions, Event, EventKind, ExecutorBuilder, ToolCall};

use crate::mcp::{canonical_workdir, PipelineArgs};
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
}

/// Settings of the built-in tools shared by `run`, `tools` and `mcp`.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// Secret-looking environment variables exec may pass on.
    pub allow_env: Vec<String>,
    /// Directories outside the workspace that `read` may open by absolute
    /// path: the scratch directory, so that the model can follow a spill
    /// message.
    pub read_roots: Vec<PathBuf>,
    /// The session's redactor, so that edit and write see files as the model
    /// saw them (secret-preserving edits); `None`: the built-in rules.
    pub redactor: Option<toolexec_redact::Redactor>,
}

/// An executor builder with the built-in tools and their read-before-edit
/// tracker registered as change observer.
pub fn builtin_executor_builder(workdir: &Path, options: &ToolOptions) -> ExecutorBuilder {
    let exec = toolexec_tools::ExecConfig::default().allow_env(options.allow_env.iter().cloned());
    let mut config = toolexec_tools::BuiltinConfig::default().with_exec(exec);
    for root in &options.read_roots {
        config = config.with_read_root(root);
    }
    if let Some(redactor) = &options.redactor {
        config = config.with_redactor(redactor.clone());
    }
    let builtin = toolexec_tools::builtin_tools(&config);
    toolexec_core::Executor::builder(workdir)
        .tools(builtin.tools)
        .observer(builtin.tracker)
}

/// The redactor: built-in rules, optional user rules, and (unless
/// `env_values` is false) the values of secret-looking environment
/// variables.
pub fn build_redactor(
    rules: Option<&Path>,
    env_values: bool,
) -> Result<toolexec_redact::Redactor, CliError> {
    let mut builder = toolexec_redact::Redactor::builder();
    if let Some(path) = rules {
        let set = toolexec_redact::RuleSet::from_path(path)
            .map_err(|e| CliError::Usage(format!("--rules {}: {e}", path.display())))?;
        builder = builder.rules(set);
    }
    builder = builder.env_values(env_values);
    builder
        .build()
        .map_err(|e| CliError::Usage(format!("redaction rules: {e}")))
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

fn event_sink() -> impl Fn(Event) + Send + Sync + 'static {
    let stderr = Arc::new(Mutex::new(io::stderr()));
    move |e: Event| {
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
        if let (Ok(text), Ok(mut err)) = (serde_json::to_string(&line), stderr.lock()) {
            let _ = writeln!(err, "{text}");
        }
    }
}

/// Runs `toolexec run`.
pub async fn run(args: RunArgs) -> Result<(), CliError> {
    let workdir = canonical_workdir(&args.workdir)?;
    let mut text = String::new();
    io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| CliError::Usage(format!("cannot read stdin: {e}")))?;
    let calls = parse_calls(&text).map_err(CliError::Usage)?;
    let pipeline = &args.pipeline;
    let redactor = build_redactor(pipeline.rules.as_deref(), true)?;
    let limits = pipeline.limits()?;
    let options = ToolOptions {
        allow_env: args.allow_env.clone(),
        read_roots: vec![limits.scratch_dir.clone()],
        redactor: Some(redactor.clone()),
    };
    let snapshot = pipeline.snapshot_config(&workdir).await?;
    let executor = pipeline
        .apply(
            builtin_executor_builder(&workdir, &options),
            Arc::new(redactor),
        )?
        .batch_budget(args.batch_budget)
        .snapshot(Some(snapshot))
        .build()
        .map_err(|e| CliError::Runtime(e.to_string()))?;

    let mut options = BatchOptions::new();
    if args.events {
        options = options.events(event_sink());
    }
    let results = executor.run_batch(calls, &options).await;
    let mut text =
        serde_json::to_string_pretty(&results).map_err(|e| CliError::Runtime(e.to_string()))?;
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
