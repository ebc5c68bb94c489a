//! The executor's own overhead per call: a batch of 10 000 no-op read-only
//! calls through the full chain (redact, limit, guard, hooks, deadline,
//! panic capture; no snapshot since the tool is read-only) against calling
//! the tool directly the same number of times.

use divan::Bencher;
use serde_json::{json, Value};
use toolexec_core::{BatchOptions, Executor, Tool, ToolCall, ToolContext, ToolFuture};

const CALLS: usize = 10_000;

struct Noop(Value);

impl Tool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "does nothing"
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
    fn call(&self, _input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async { Ok("ok".to_string()) })
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
}

fn calls() -> Vec<ToolCall> {
    (0..CALLS)
        .map(|i| ToolCall::new(i.to_string(), "noop", r#"{"path":"src/main.rs"}"#))
        .collect()
}

/// The whole chain, 10 000 calls in one batch.
#[divan::bench(sample_count = 20)]
fn chain_10k(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("tempdir");
    let executor = Executor::builder(dir.path())
        .tool(Noop(schema()))
        .pre_hook(|_: &ToolCall, _: &Value| None)
        .build()
        .expect("executor");
    bencher
        .with_inputs(calls)
        .bench_local_values(|calls| rt.block_on(executor.run_batch(calls, &BatchOptions::new())));
}

/// The tool called directly, with the input parsed, 10 000 times.
#[divan::bench(sample_count = 20)]
fn direct_10k(bencher: Bencher<'_, '_>) {
    let rt = runtime();
    let tool = Noop(schema());
    let dir = tempfile::tempdir().expect("tempdir");
    let dir = dir.path();
    bencher.with_inputs(calls).bench_local_values(|calls| {
        rt.block_on(async {
            let mut out = Vec::with_capacity(calls.len());
            for call in calls {
                let input: Value = serde_json::from_str(&call.input).expect("valid");
                out.push(tool.call(input, ToolContext::new(dir, call.id)).await);
            }
            out
        })
    });
}

fn main() {
    divan::main();
}
