//! Public-API tests of toolexec-core: scheduling, deadline, panics,
//! cancellation, events and bad input.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use toolexec_core::{
    BatchOptions, ErrorKind, Event, EventKind, Executor, Invocation, Next, Outcome, Stage, Tool,
    ToolCall, ToolContext, ToolError, ToolFuture, ToolResult,
};

type Behaviour = Arc<dyn Fn(Value, ToolContext) -> ToolFuture<'static> + Send + Sync>;

/// A tool whose flags and behaviour are set by the test.
struct TestTool {
    name: String,
    schema: Value,
    read_only: bool,
    safe: bool,
    timeout: Duration,
    behaviour: Behaviour,
}

impl TestTool {
    fn new<F, Fut>(name: &str, safe: bool, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, ToolError>> + Send + 'static,
    {
        TestTool {
            name: name.to_string(),
            schema: json!({"type": "object"}),
            read_only: safe,
            safe,
            timeout: Duration::from_secs(120),
            behaviour: Arc::new(move |input, ctx| Box::pin(f(input, ctx))),
        }
    }

    fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }
}

impl Tool for TestTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn read_only(&self, _input: &Value) -> bool {
        self.read_only
    }
    fn concurrency_safe(&self, _input: &Value) -> bool {
        self.safe
    }
    fn timeout(&self, _input: &Value) -> Duration {
        self.timeout
    }
    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        (self.behaviour)(input, ctx)
    }
}

/// Records, for every call, when it started and ended (a global sequence
/// number) and the number of calls in flight.
#[derive(Default)]
struct Tracker {
    seq: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    log: Mutex<Vec<(usize, String, &'static str)>>,
}

impl Tracker {
    fn enter(&self, id: &str) -> usize {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let seq = self.seq.fetch_add(1, Ordering::SeqCst);
        self.log
            .lock()
            .unwrap()
            .push((seq, id.to_string(), "start"));
        now
    }
    fn leave(&self, id: &str) {
        let seq = self.seq.fetch_add(1, Ordering::SeqCst);
        self.log.lock().unwrap().push((seq, id.to_string(), "end"));
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A tool that sleeps `input.ms` milliseconds while tracked; a non-safe one
/// also asserts it runs alone.
fn tracked(name: &str, safe: bool, tracker: &Arc<Tracker>) -> TestTool {
    let tracker = tracker.clone();
    TestTool::new(name, safe, move |input, ctx| {
        let tracker = tracker.clone();
        async move {
            let alone = tracker.enter(ctx.call_id()) == 1;
            let ms = input["ms"].as_u64().unwrap_or(20);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            tracker.leave(ctx.call_id());
            Ok(format!("{} alone={alone}", ctx.call_id()))
        }
    })
}

fn call(id: &str, name: &str, input: &str) -> ToolCall {
    ToolCall::new(id, name, input)
}

/// An executor over a workspace of its own (removed with it).
struct TestExecutor {
    ex: Executor,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for TestExecutor {
    type Target = Executor;
    fn deref(&self) -> &Executor {
        &self.ex
    }
}

/// A fresh directory holding the workspace `ws/` and, beside it, the
/// scratch directory `scratch/` (so spill files never show as changes).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("ws")).unwrap();
    dir
}

/// A builder over the workspace of `dir`, spilling into its scratch dir.
fn builder(dir: &tempfile::TempDir) -> toolexec_core::ExecutorBuilder {
    Executor::builder(dir.path().join("ws")).limits(Some(
        toolexec_limiter::Limits::default().scratch_dir(dir.path().join("scratch")),
    ))
}

fn executor(tools: Vec<TestTool>) -> TestExecutor {
    let dir = workspace();
    let mut b = builder(&dir);
    for t in tools {
        b = b.tool(t);
    }
    TestExecutor {
        ex: b.build().expect("executor builds"),
        _dir: dir,
    }
}

#[tokio::test]
async fn grouping_read_grep_edit_read() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![
        tracked("read", true, &t),
        tracked("grep", true, &t),
        tracked("edit", false, &t),
    ]);
    let res = ex
        .run_batch(
            vec![
                call("1", "read", r#"{"ms":60}"#),
                call("2", "grep", r#"{"ms":60}"#),
                call("3", "edit", r#"{"ms":10}"#),
                call("4", "read", r#"{"ms":10}"#),
            ],
            &BatchOptions::new(),
        )
        .await;
    let ids: Vec<&str> = res.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4"]);
    let log = t.log.lock().unwrap().clone();
    let pos = |id: &str, what: &str| {
        log.iter()
            .find(|(_, i, w)| i == id && *w == what)
            .unwrap()
            .0
    };
    // read and grep overlap: both start before either ends.
    assert!(pos("1", "start") < pos("2", "end") && pos("2", "start") < pos("1", "end"));
    // edit starts after both ended and ends before the last read starts.
    assert!(pos("3", "start") > pos("1", "end") && pos("3", "start") > pos("2", "end"));
    assert!(pos("4", "start") > pos("3", "end"));
    assert_eq!(res[2].content, "3 alone=true");
}

#[tokio::test]
async fn non_safe_call_never_overlaps_anything() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![tracked("read", true, &t), tracked("edit", false, &t)]);
    let mut calls = Vec::new();
    for i in 0..30 {
        let name = if i % 4 == 3 { "edit" } else { "read" };
        calls.push(call(&i.to_string(), name, r#"{"ms":5}"#));
    }
    let res = ex.run_batch(calls, &BatchOptions::new()).await;
    for r in res.iter().filter(|r| r.name == "edit") {
        assert!(r.content.ends_with("alone=true"), "{}", r.content);
    }
}

#[tokio::test]
async fn fifty_safe_calls_never_exceed_the_cap() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![tracked("read", true, &t)]);
    let calls = (0..50)
        .map(|i| call(&i.to_string(), "read", r#"{"ms":10}"#))
        .collect();
    let res = ex.run_batch(calls, &BatchOptions::new()).await;
    assert_eq!(res.len(), 50);
    assert_eq!(t.max_in_flight.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn results_keep_input_order_when_later_calls_finish_first() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![tracked("read", true, &t)]);
    let calls = (0..5)
        .map(|i| {
            call(
                &i.to_string(),
                "read",
                &format!(r#"{{"ms":{}}}"#, 100 - i * 20),
            )
        })
        .collect();
    let res = ex.run_batch(calls, &BatchOptions::new()).await;
    let ids: Vec<String> = res.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids, ["0", "1", "2", "3", "4"]);
    let log = t.log.lock().unwrap().clone();
    let first_end = log.iter().find(|(_, _, w)| *w == "end").unwrap();
    assert_eq!(first_end.1, "4", "the last call finished first");
}

#[tokio::test]
async fn queued_events_of_a_group_precede_the_start_of_a_waiting_call() {
    let t = Arc::new(Tracker::default());
    let dir = workspace();
    let ex = builder(&dir)
        .tool(tracked("read", true, &t))
        .max_concurrency(2)
        .build()
        .unwrap();
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let sink = events.clone();
    let calls = (0..4)
        .map(|i| call(&i.to_string(), "read", r#"{"ms":20}"#))
        .collect();
    ex.run_batch(
        calls,
        &BatchOptions::new().events(move |e: Event| sink.lock().unwrap().push(e)),
    )
    .await;
    let events = events.lock().unwrap();
    let kinds: Vec<(EventKind, &str)> = events.iter().map(|e| (e.event, e.id.as_str())).collect();
    // All four queued first; call 2 and 3 had to wait for a slot.
    assert!(
        kinds[..4].iter().all(|(k, _)| *k == EventKind::Queued),
        "{kinds:?}"
    );
    let started_2 = kinds
        .iter()
        .position(|k| *k == (EventKind::Started, "2"))
        .unwrap();
    let first_finished = kinds
        .iter()
        .position(|(k, _)| *k == EventKind::Finished)
        .unwrap();
    assert!(
        started_2 > first_finished,
        "call 2 waited for a slot: {kinds:?}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e.event == EventKind::Finished)
            .count(),
        4
    );
    let fin = events
        .iter()
        .find(|e| e.event == EventKind::Finished)
        .unwrap();
    assert!(fin.result.as_ref().is_some_and(|r| !r.is_error));
}

fn by_id<'a>(res: &'a [ToolResult], id: &str) -> &'a ToolResult {
    res.iter().find(|r| r.id == id).unwrap()
}

#[tokio::test]
async fn panic_timeout_and_error_leave_the_rest_untouched() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![
        tracked("read", true, &t),
        TestTool::new("crasher", true, |_, _| async {
            panic!("assignment to entry in nil map")
        }),
        TestTool::new("sleeper", true, |_, _| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok("late".to_string())
        })
        .timeout(Duration::from_millis(100)),
        TestTool::new("failer", true, |_, _| async {
            Err(ToolError::new("disk on fire"))
        }),
        TestTool::new("empty", true, |_, _| async { Ok(String::new()) }),
    ]);
    let res = ex
        .run_batch(
            vec![
                call("a", "read", "{}"),
                call("b", "crasher", "{}"),
                call("c", "sleeper", "{}"),
                call("d", "failer", "{}"),
                call("e", "empty", "{}"),
                call("f", "read", "{}"),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert!(by_id(&res, "a").content.starts_with("a alone="));
    assert!(!by_id(&res, "a").is_error && !by_id(&res, "f").is_error);
    let b = by_id(&res, "b");
    assert_eq!(
        (b.is_error, b.error_kind),
        (true, Some(ErrorKind::Execution))
    );
    assert_eq!(
        b.content,
        "tool crasher panic: assignment to entry in nil map"
    );
    let c = by_id(&res, "c");
    assert_eq!(c.error_kind, Some(ErrorKind::Timeout));
    assert_eq!(
        c.content,
        "Tool 'sleeper' execution timed out after 100ms. The external service may be slow or unavailable. Consider: retry later, use alternative approach, or skip this step."
    );
    let d = by_id(&res, "d");
    assert_eq!(
        (d.error_kind, d.content.as_str()),
        (Some(ErrorKind::Execution), "disk on fire")
    );
    let e = by_id(&res, "e");
    assert_eq!(
        (e.error_kind, e.content.as_str()),
        (
            Some(ErrorKind::Execution),
            "tool empty returned an empty result"
        )
    );
}

struct SyncPanic(Value);

impl Tool for SyncPanic {
    fn name(&self) -> &str {
        "sync_panic"
    }
    fn description(&self) -> &str {
        "panics before returning a future"
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn call(&self, _input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
        panic!("{}", String::from("panicked in call itself"))
    }
}

#[tokio::test]
async fn panic_in_call_itself_is_captured() {
    let dir = workspace();
    let ex = builder(&dir)
        .tool(SyncPanic(json!({"type":"object"})))
        .build()
        .unwrap();
    let res = ex
        .run_batch(vec![call("1", "sync_panic", "{}")], &BatchOptions::new())
        .await;
    assert_eq!(
        res[0].content,
        "tool sync_panic panic: panicked in call itself"
    );
    assert_eq!(res[0].error_kind, Some(ErrorKind::Execution));
}

#[tokio::test]
async fn timed_out_tool_hands_back_partial_output_in_the_grace() {
    let ex = executor(vec![
        TestTool::new("build", false, |_, ctx: ToolContext| async move {
            ctx.cancelled().await;
            Ok("error[E0308]: mismatched types".to_string())
        })
        .timeout(Duration::from_millis(1500)),
        TestTool::new("stubborn", false, |_, ctx: ToolContext| async move {
            ctx.set_partial_output("step 1 done");
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok("never".to_string())
        })
        .timeout(Duration::from_millis(50)),
    ]);
    let res = ex
        .run_batch(
            vec![call("1", "build", "{}"), call("2", "stubborn", "{}")],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        "Tool 'build' execution timed out after 1.5s. The external service may be slow or unavailable. Consider: retry later, use alternative approach, or skip this step.\n\nerror[E0308]: mismatched types"
    );
    assert!(
        res[1].content.ends_with("skip this step.\n\nstep 1 done"),
        "{}",
        res[1].content
    );
    assert_eq!(res[1].error_kind, Some(ErrorKind::Timeout));
}

#[tokio::test]
async fn tool_handling_its_own_timeout_gets_its_result() {
    let ex = executor(vec![TestTool::new("polite", false, |_, _| async {
        tokio::time::sleep(Duration::from_millis(10)).await;
        Err(ToolError::new("upstream timed out after 10ms"))
    })
    .timeout(Duration::from_secs(5))]);
    let res = ex
        .run_batch(vec![call("1", "polite", "{}")], &BatchOptions::new())
        .await;
    assert_eq!(res[0].content, "upstream timed out after 10ms");
    assert_eq!(res[0].error_kind, Some(ErrorKind::Execution));
}

#[tokio::test]
async fn timeout_override_applies_to_every_tool() {
    let dir = workspace();
    let ex = builder(&dir)
        .tool(TestTool::new("slow", true, |_, _| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok("x".into())
        }))
        .timeout_override(Some(Duration::from_millis(30)))
        .build()
        .unwrap();
    let res = ex
        .run_batch(vec![call("1", "slow", "{}")], &BatchOptions::new())
        .await;
    assert!(res[0]
        .content
        .starts_with("Tool 'slow' execution timed out after 30ms."));
}

#[tokio::test]
async fn cancelling_a_batch_stops_running_calls_and_skips_the_rest() {
    let dropped = Arc::new(AtomicUsize::new(0));
    struct DropCount(Arc<AtomicUsize>);
    impl Drop for DropCount {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let d = dropped.clone();
    let ex = executor(vec![TestTool::new("hang", false, move |_, _| {
        let guard = DropCount(d.clone());
        async move {
            let _guard = guard;
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok("x".into())
        }
    })]);
    let token = CancellationToken::new();
    let t2 = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        t2.cancel();
    });
    let res = ex
        .run_batch(
            vec![
                call("1", "hang", "{}"),
                call("2", "hang", "{}"),
                call("3", "nope", "{}"),
            ],
            &BatchOptions::new().cancel(token),
        )
        .await;
    assert_eq!(res[0].content, "tool hang was cancelled");
    assert_eq!(res[0].error_kind, Some(ErrorKind::Cancelled));
    assert_eq!(res[1].content, "tool hang was cancelled before it started");
    assert_eq!(res[2].content, "tool nope was cancelled before it started");
    assert_eq!(
        dropped.load(Ordering::SeqCst),
        1,
        "the running future was dropped"
    );
}

/// A tool that answers the cancellation itself (as exec does: it kills its
/// process group and returns) is still reported as cancelled: the batch's
/// cancellation decides the outcome, not which future was ready first.
#[tokio::test]
async fn a_tool_that_returns_on_cancellation_is_reported_cancelled() {
    let started = Arc::new(tokio::sync::Notify::new());
    let s = started.clone();
    let ex = executor(vec![TestTool::new("polite", false, move |_, ctx| {
        let s = s.clone();
        async move {
            s.notify_one();
            ctx.cancelled().await;
            Ok("stopped on my own".into())
        }
    })]);
    let token = CancellationToken::new();
    let t2 = token.clone();
    tokio::spawn(async move {
        started.notified().await;
        t2.cancel();
    });
    let res = ex
        .run_batch(
            vec![call("1", "polite", "{}")],
            &BatchOptions::new().cancel(token),
        )
        .await;
    assert_eq!(res[0].content, "tool polite was cancelled");
    assert_eq!(res[0].error_kind, Some(ErrorKind::Cancelled));
}

#[tokio::test]
async fn pre_hooks_run_in_order_and_the_first_verdict_wins() {
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    let dir = workspace();
    let ex = builder(&dir)
        .tool(TestTool::new("exec", true, move |_, _| {
            r.fetch_add(1, Ordering::SeqCst);
            async { Ok("ran".to_string()) }
        }))
        .pre_hook(|call: &ToolCall, input: &Value| {
            (input["command"] == "rm -rf /")
                .then(|| Outcome::error(ErrorKind::Invocation, format!("{}: denied", call.name)))
        })
        .pre_hook(|_: &ToolCall, input: &Value| {
            (input["command"] == "cached").then(|| Outcome::success("from cache"))
        })
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "exec", r#"{"command":"rm -rf /"}"#),
                call("2", "exec", r#"{"command":"cached"}"#),
                call("3", "exec", r#"{"command":"ls"}"#),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(res[0].content, "exec: denied");
    assert_eq!(res[1].content, "from cache");
    assert_eq!(res[2].content, "ran");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

struct Tag;

impl Stage for Tag {
    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let seen = format!(
            " [tagged {} {} read_only={} input={:?}]",
            inv.call().id,
            inv.tool().map_or("-", |t| t.name()),
            inv.read_only(),
            inv.input().map(Value::to_string),
        );
        Box::pin(async move {
            let mut out = next.run(inv).await;
            out.content.push_str(&seen);
            out
        })
    }
}

#[tokio::test]
async fn user_stages_wrap_the_tool() {
    let dir = workspace();
    let ex = builder(&dir)
        .tool(TestTool::new("t", true, |_, _| async {
            Ok("hi".to_string())
        }))
        .stage(Tag)
        .build()
        .unwrap();
    let res = ex
        .run_batch(vec![call("1", "t", "{}")], &BatchOptions::new())
        .await;
    // User stages sit inside the guard: the input is parsed already.
    assert_eq!(
        res[0].content,
        r#"hi [tagged 1 t read_only=true input=Some("{}")]"#
    );
}

#[cfg(feature = "guard")]
#[tokio::test]
async fn guard_messages_and_turn_sets() {
    let ex = executor(vec![
        TestTool::new("quiet_writer", false, |_, _| async { Ok("ok".into()) })
            .schema(json!({"type":"object","required":["text"]})),
        TestTool::new("hidden", true, |_, _| async { Ok("ok".into()) }),
    ]);
    ex.set_offered(Some(["quiet_writer"]));
    let res = ex
        .run_batch(
            vec![
                call("1", "quiet_writer", "{}"),
                call("2", "rm_rf", "{}"),
                call("3", "hidden", "{}"),
                call("4", "quiet_writer", "{not json"),
                call("5", "", "{}"),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        r#"tool quiet_writer: invalid input: missing required field "text""#
    );
    assert_eq!(res[1].content, "unknown tool: rm_rf");
    assert_eq!(
        res[2].content,
        "tool hidden is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list."
    );
    assert_eq!(
        res[3].content,
        "tool quiet_writer: invalid input: key must be a string at line 1 column 2"
    );
    assert_eq!(res[4].content, "unknown tool: ");
    assert!(res
        .iter()
        .all(|r| r.error_kind == Some(ErrorKind::Invocation)));
    ex.set_disabled(["quiet_writer"]);
    let res = ex
        .run_batch(vec![call("1", "quiet_writer", "{}")], &BatchOptions::new())
        .await;
    assert_eq!(res[0].content, "tool quiet_writer is disabled");
    assert!(ex
        .catalog()
        .iter()
        .any(|i| i.name == "hidden" && !i.offered));
}

#[tokio::test]
async fn empty_batch_duplicate_ids_and_ten_thousand_calls() {
    let ex = executor(vec![TestTool::new("noop", true, |_, _| async {
        Ok("x".into())
    })]);
    assert!(ex.run_batch(vec![], &BatchOptions::new()).await.is_empty());
    let res = ex
        .run_batch(
            vec![call("same", "noop", "{}"), call("same", "noop", "{}")],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(res.len(), 2);
    let calls: Vec<ToolCall> = (0..10_000)
        .map(|i| call(&i.to_string(), "noop", "{}"))
        .collect();
    let res = ex.run_batch(calls, &BatchOptions::new()).await;
    assert_eq!(res.len(), 10_000);
    assert!(res
        .iter()
        .enumerate()
        .all(|(i, r)| r.id == i.to_string() && r.content == "x"));
}

#[tokio::test]
async fn run_call_admits_safe_calls_together_and_unsafe_alone() {
    let t = Arc::new(Tracker::default());
    let ex = executor(vec![tracked("read", true, &t), tracked("edit", false, &t)]);
    let mut handles = Vec::new();
    for i in 0..12 {
        let ex = ex.clone();
        let name = if i % 4 == 0 { "edit" } else { "read" };
        handles.push(tokio::spawn(async move {
            ex.run_call(
                call(&i.to_string(), name, r#"{"ms":15}"#),
                &BatchOptions::new(),
            )
            .await
        }));
    }
    for h in handles {
        let r = h.await.unwrap();
        if r.name == "edit" {
            assert!(r.content.ends_with("alone=true"), "{}", r.content);
        }
    }
    assert!(t.max_in_flight.load(Ordering::SeqCst) <= 5);
}

/// A non-read-only tool that writes `name` into the workspace, then does
/// what `then` says: fail, hang past its deadline, hang until cancelled or
/// panic.
#[cfg(feature = "snapshot")]
fn writer_then(then: &'static str) -> TestTool {
    let mut tool = TestTool::new(then, false, move |_, ctx: ToolContext| async move {
        std::fs::write(ctx.workdir().join(format!("{then}.txt")), "half\n")?;
        match then {
            "fail" => Err(ToolError::new("failed after writing")),
            "panic" => panic!("after writing"),
            _ => {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok("never".to_string())
            }
        }
    });
    tool.read_only = false;
    if then == "hang" {
        tool = tool.timeout(Duration::from_millis(100));
    }
    tool
}

#[cfg(feature = "snapshot")]
#[tokio::test]
async fn change_report_survives_error_panic_timeout_and_cancellation() {
    let dir = tempfile::tempdir().unwrap();
    let seen: Arc<Mutex<Vec<std::path::PathBuf>>> = Arc::default();
    let s = seen.clone();
    let ex = Executor::builder(dir.path())
        .tool(writer_then("fail"))
        .tool(writer_then("panic"))
        .tool(writer_then("hang"))
        .tool(writer_then("wait"))
        .observer(Arc::new(
            move |_: &std::path::Path, changes: &[toolexec_core::FileChange]| {
                s.lock()
                    .unwrap()
                    .extend(changes.iter().map(|c| c.absolute.clone()));
            },
        ))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "fail", "{}"),
                call("2", "panic", "{}"),
                call("3", "hang", "{}"),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        "failed after writing\n\n[Workspace Changes]\n+ fail.txt (created, 5 B)"
    );
    assert_eq!(
        res[1].content,
        "tool panic panic: after writing\n\n[Workspace Changes]\n+ panic.txt (created, 5 B)"
    );
    assert!(res[2]
        .content
        .ends_with("skip this step.\n\n[Workspace Changes]\n+ hang.txt (created, 5 B)"));
    assert_eq!(res[2].changes.len(), 1);
    assert_eq!(res[2].changes[0].path, "hang.txt");
    assert_eq!(res[2].changes[0].kind, toolexec_core::ChangeKind::Created);
    assert_eq!(res[2].changes[0].new_size, Some(5));

    let token = CancellationToken::new();
    let t2 = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        t2.cancel();
    });
    let res = ex
        .run_batch(
            vec![call("4", "wait", "{}")],
            &BatchOptions::new().cancel(token),
        )
        .await;
    assert_eq!(
        res[0].content,
        "tool wait was cancelled\n\n[Workspace Changes]\n+ wait.txt (created, 5 B)"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen
        .iter()
        .all(|p| p.is_absolute() && p.starts_with(dir.path().canonicalize().unwrap())));
}

#[cfg(feature = "snapshot")]
#[tokio::test]
async fn read_only_tools_get_no_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let mut sneaky = TestTool::new("sneaky", true, |_, ctx: ToolContext| async move {
        std::fs::write(ctx.workdir().join("x.txt"), "x")?;
        Ok("done".to_string())
    });
    sneaky.read_only = true;
    let ex = Executor::builder(dir.path()).tool(sneaky).build().unwrap();
    let res = ex
        .run_batch(vec![call("1", "sneaky", "{}")], &BatchOptions::new())
        .await;
    assert_eq!(res[0].content, "done");
    assert!(res[0].changes.is_empty());
}

/// Redaction runs before limiting on the way out: neither the model nor
/// the spill file ever holds the secret, and the batch budget counts the
/// masked text.
#[cfg(all(feature = "redact", feature = "limit"))]
#[tokio::test]
async fn spill_files_hold_only_redacted_text() {
    let scratch = tempfile::tempdir().unwrap();
    let secret = "ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ";
    let mut leaky = TestTool::new("leaky", true, move |_, _| async move {
        Ok(format!("token {secret}\n").repeat(2_000))
    });
    leaky.read_only = false;
    let dir = workspace();
    let ex = builder(&dir)
        .tool(leaky)
        .snapshot(None)
        .tool(TestTool::new("short", true, move |_, _| async move {
            Ok(format!("key: {secret}"))
        }))
        .limits(Some(
            toolexec_limiter::Limits::default().scratch_dir(scratch.path()),
        ))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![call("1", "leaky", "{}"), call("2", "short", "{}")],
            &BatchOptions::new(),
        )
        .await;
    let spill = res[0].spill_path.as_ref().expect("spilled");
    let text = std::fs::read_to_string(spill).unwrap();
    assert!(
        text.starts_with("token [REDACTED:github-token]\n"),
        "{}",
        &text[..80]
    );
    assert!(!text.contains("R8sWq2Lm"));
    assert!(res[0].content.starts_with("Result too large ("));
    assert_eq!(res[1].content, "key: [REDACTED:github-token]");
}

/// One `FileChange` type for results and observers: the observer sees the
/// real absolute path, the result masks a secret in a file name in both
/// its paths, and the JSON shape is `{path, kind, old_size, new_size}`.
#[cfg(all(feature = "redact", feature = "snapshot"))]
#[tokio::test]
async fn one_file_change_for_results_and_observers() {
    let dir = workspace();
    let secret = "ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ";
    let seen: Arc<Mutex<Vec<toolexec_core::FileChange>>> = Arc::default();
    let s = seen.clone();
    let mut writer = TestTool::new("w", false, move |_, ctx: ToolContext| async move {
        std::fs::write(ctx.workdir().join(format!("{secret}.txt")), "abc")?;
        std::fs::write(ctx.workdir().join("plain.txt"), "hello")?;
        Ok("wrote".to_string())
    });
    writer.read_only = false;
    let ex = builder(&dir)
        .tool(writer)
        .observer(Arc::new(
            move |_: &std::path::Path, changes: &[toolexec_core::FileChange]| {
                s.lock().unwrap().extend_from_slice(changes);
            },
        ))
        .build()
        .unwrap();
    let res = ex
        .run_batch(vec![call("1", "w", "{}")], &BatchOptions::new())
        .await;
    let ws = dir.path().join("ws").canonicalize().unwrap();
    let seen = seen.lock().unwrap().clone();
    let observed: Vec<_> = seen.iter().map(|c| c.absolute.clone()).collect();
    assert_eq!(
        observed,
        vec![ws.join(format!("{secret}.txt")), ws.join("plain.txt")]
    );
    let changes = &res[0].changes;
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0].path, "[REDACTED:github-token].txt");
    assert_eq!(
        changes[0].absolute,
        ws.join("[REDACTED:github-token].txt"),
        "the result's absolute path is masked too"
    );
    assert_eq!(changes[1], seen[1], "a path without a secret is unchanged");
    assert_eq!(
        serde_json::to_string(&changes[1]).unwrap(),
        r#"{"path":"plain.txt","kind":"created","old_size":null,"new_size":5}"#
    );
    let back: toolexec_core::FileChange =
        serde_json::from_str(&serde_json::to_string(&changes[1]).unwrap()).unwrap();
    assert_eq!(back.path, "plain.txt");
    assert!(back.absolute.as_os_str().is_empty());
}

#[cfg(feature = "limit")]
#[tokio::test]
async fn batch_budget_cuts_the_largest_results_but_never_the_change_report() {
    let dir = workspace();
    let ex = builder(&dir)
        .tool(TestTool::new("big", true, |_, _| async {
            Ok("x\n".repeat(3_000))
        }))
        .tool(TestTool::new("small", true, |_, _| async {
            Ok("tiny".to_string())
        }))
        .batch_budget(Some(2_000))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "big", "{}"),
                call("2", "small", "{}"),
                call("3", "big", "{}"),
            ],
            &BatchOptions::new(),
        )
        .await;
    let total: usize = res.iter().map(|r| r.content.chars().count()).sum();
    assert!(total <= 2_000, "total {total}");
    assert_eq!(res[1].content, "tiny");
    assert!(res[0].content.contains("...[truncated "));
}

#[tokio::test]
async fn an_unusable_schema_keeps_the_guard_error_and_says_its_prefix_once() {
    let dir = tempfile::tempdir().unwrap();
    let tool = TestTool::new("bad", true, |_, _| async { Ok("x".to_string()) })
        .schema(json!({"type": "object", "properties": {"n": {"type": 12}}}));
    let err = Executor::builder(dir.path())
        .tool(tool)
        .build()
        .unwrap_err();
    let toolexec_core::BuildError::InvalidSchema { name, source } = &err else {
        panic!("expected InvalidSchema, got {err:?}");
    };
    assert_eq!(name, "bad");
    assert_eq!(source.tool(), "bad");
    let text = err.to_string();
    assert_eq!(text, source.to_string());
    assert!(
        text.starts_with("tool bad: invalid input schema: "),
        "{text}"
    );
    assert_eq!(text.matches("invalid input schema").count(), 1, "{text}");
    assert_eq!(text.matches("bad").count(), 1, "{text}");
    // Printing the whole chain does not repeat it either.
    let mut chain = text.clone();
    let mut next = std::error::Error::source(&err);
    while let Some(cause) = next {
        chain.push_str(&format!(": {cause}"));
        next = cause.source();
    }
    assert_eq!(chain.matches("invalid input schema").count(), 1, "{chain}");
}

/// A stage that rewrites the parsed input the tool gets.
struct Shout;

impl Stage for Shout {
    fn call<'a>(&'a self, mut inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let text = serde_json::from_str::<Value>(&inv.call().input)
            .ok()
            .and_then(|v| v["text"].as_str().map(str::to_uppercase));
        if let Some(text) = text {
            inv.set_input(json!({ "text": text }));
        }
        next.run(inv)
    }
}

#[tokio::test]
async fn a_chain_run_by_hand_asks_the_tool_for_read_only_and_passes_a_rewritten_input() {
    let dir = tempfile::tempdir().unwrap();
    let echo: Arc<dyn Tool> = Arc::new(TestTool::new("echo", true, |input, _| async move {
        Ok(input["text"].as_str().unwrap_or("").to_string())
    }));
    let writer: Arc<dyn Tool> = Arc::new(TestTool::new("w", false, |_, _| async {
        Ok("w".to_string())
    }));
    let inv = |name: &str, input: &str, tool: &Arc<dyn Tool>| {
        Invocation::new(
            call("1", name, input),
            Some(tool.clone()),
            ToolContext::new(dir.path(), "1"),
        )
    };
    assert!(inv("echo", r#"{"text":"a"}"#, &echo).read_only());
    assert!(!inv("w", "{}", &writer).read_only());
    // Input that is not JSON is never asked: not read-only.
    assert!(!inv("echo", "{oops", &echo).read_only());
    let unknown = Invocation::new(
        call("2", "nope", "{}"),
        None,
        ToolContext::new(dir.path(), "2"),
    );
    assert!(!unknown.read_only() && unknown.tool().is_none() && unknown.input().is_none());

    let mut chain = toolexec_core::Chain::new();
    chain.push(Shout);
    let out = chain.run(inv("echo", r#"{"text":"hi"}"#, &echo)).await;
    assert_eq!(out.content, "HI");
    let out = chain.run(unknown).await;
    assert_eq!(out.content, "unknown tool: nope");
}
