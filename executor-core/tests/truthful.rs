//! Truthful results under concurrency, budgets, big outputs and panics
//! (SPEC §2 steps 5–6 and the batch budget, §5.3–5.4).
#![cfg(all(feature = "snapshot", feature = "limit", feature = "redact"))]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
#[cfg(feature = "watch")]
use std::time::Instant;

use futures_util::future::BoxFuture;
use proptest::prelude::*;
use serde_json::{json, Value};
use tempfile::TempDir;
use toolexec_core::{
    BatchOptions, Executor, ExecutorBuilder, Invocation, Next, Outcome, OutputSinkConfig, Stage,
    Tool, ToolCall, ToolContext, ToolError, ToolFuture, ToolResult,
};

type Behaviour = Arc<dyn Fn(Value, ToolContext) -> ToolFuture<'static> + Send + Sync>;

/// A tool with chosen flags and behaviour.
struct T {
    name: String,
    schema: Value,
    read_only: bool,
    safe: bool,
    behaviour: Behaviour,
}

impl T {
    fn new<F, Fut>(name: &str, read_only: bool, safe: bool, f: F) -> Self
    where
        F: Fn(Value, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, ToolError>> + Send + 'static,
    {
        T {
            name: name.to_string(),
            schema: json!({"type": "object"}),
            read_only,
            safe,
            behaviour: Arc::new(move |input, ctx| Box::pin(f(input, ctx))),
        }
    }
}

impl Tool for T {
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
    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        (self.behaviour)(input, ctx)
    }
}

/// A directory with the workspace `ws/` and the scratch dir `scratch/`
/// beside it.
struct Dirs {
    root: TempDir,
}

impl Dirs {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("ws")).unwrap();
        Dirs { root }
    }
    fn ws(&self) -> PathBuf {
        self.root.path().join("ws")
    }
    fn scratch(&self) -> PathBuf {
        self.root.path().join("scratch")
    }
    fn builder(&self) -> ExecutorBuilder {
        Executor::builder(self.ws())
            .limits(Some(
                toolexec_limiter::Limits::default().scratch_dir(self.scratch()),
            ))
            .redactor(Some(redactor()))
    }
}

/// The built-in rules, compiled once for all tests of this file.
fn redactor() -> Arc<toolexec_redact::Redactor> {
    static SHARED: std::sync::OnceLock<Arc<toolexec_redact::Redactor>> = std::sync::OnceLock::new();
    SHARED
        .get_or_init(|| Arc::new(toolexec_redact::Redactor::builtin()))
        .clone()
}

/// A writer that creates the file named by `file` and then waits at the
/// barrier, so that all writers of a test are inside their call at once.
fn barrier_writer(name: &str, barrier: Arc<tokio::sync::Barrier>) -> T {
    T::new(name, false, true, move |input, ctx| {
        let barrier = barrier.clone();
        async move {
            let file = input["file"].as_str().unwrap_or("x.txt").to_string();
            std::fs::write(ctx.workdir().join(&file), "written")?;
            barrier.wait().await;
            Ok(format!("wrote {file}"))
        }
    })
}

fn call(id: &str, name: &str, input: Value) -> ToolCall {
    ToolCall::new(id, name, input.to_string())
}

const OVERLAP_TAIL: &str = "ran at the same time; some changes may be theirs)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_overlapping_writers_over_run_call_each_name_the_other() {
    let dirs = Dirs::new();
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let ex = dirs
        .builder()
        .tool(barrier_writer("writer", barrier))
        .build()
        .unwrap();
    let opts = BatchOptions::new();
    let (a, b) = tokio::join!(
        ex.run_call(call("a1", "writer", json!({"file": "a.txt"})), &opts),
        ex.run_call(call("b2", "writer", json!({"file": "b.txt"})), &opts),
    );
    assert!(
        a.content.ends_with(&format!("\n(calls b2 {OVERLAP_TAIL}")),
        "{}",
        a.content
    );
    assert!(
        b.content.ends_with(&format!("\n(calls a1 {OVERLAP_TAIL}")),
        "{}",
        b.content
    );
    // Each report is honest about what it cannot tell apart: both files
    // may show up in both reports, but the line says so.
    assert!(a.content.contains("+ a.txt (created, 7 B)"));
    assert!(b.content.contains("+ b.txt (created, 7 B)"));

    // A lone call afterwards: no overlap line.
    let lone_barrier = Arc::new(tokio::sync::Barrier::new(1));
    let dirs2 = Dirs::new();
    let ex2 = dirs2
        .builder()
        .tool(barrier_writer("writer", lone_barrier))
        .build()
        .unwrap();
    let lone = ex2
        .run_call(call("c3", "writer", json!({"file": "c.txt"})), &opts)
        .await;
    assert_eq!(
        lone.content,
        "wrote c.txt\n\n[Workspace Changes]\n+ c.txt (created, 7 B)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_one_after_another_never_get_the_overlap_line() {
    let dirs = Dirs::new();
    let barrier = Arc::new(tokio::sync::Barrier::new(1));
    let ex = dirs
        .builder()
        .tool(barrier_writer("writer", barrier.clone()))
        .tool(T::new(
            "edit",
            false,
            false,
            |_, ctx: ToolContext| async move {
                std::fs::write(ctx.workdir().join("e.txt"), "e")?;
                Ok("edited".to_string())
            },
        ))
        .build()
        .unwrap();
    let opts = BatchOptions::new();
    for (i, file) in ["a.txt", "b.txt"].iter().enumerate() {
        let res = ex
            .run_call(
                call(&format!("s{i}"), "writer", json!({ "file": file })),
                &opts,
            )
            .await;
        assert!(
            !res.content.contains("ran at the same time"),
            "{}",
            res.content
        );
    }
    // Non-safe calls of a batch run alone: never the line.
    let res = ex
        .run_batch(
            vec![
                call("1", "edit", json!({})),
                call("2", "writer", json!({"file": "c.txt"})),
            ],
            &opts,
        )
        .await;
    for r in &res {
        assert!(!r.content.contains("ran at the same time"), "{}", r.content);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overlapping_safe_writers_of_a_batch_list_the_others_in_input_order() {
    let dirs = Dirs::new();
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let ex = dirs
        .builder()
        .tool(barrier_writer("writer", barrier))
        .tool(T::new("quiet", false, true, |_, _| async {
            Ok("nothing".to_string())
        }))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("w3", "writer", json!({"file": "c.txt"})),
                call("w1", "writer", json!({"file": "a.txt"})),
                call("w2", "writer", json!({"file": "b.txt"})),
            ],
            &BatchOptions::new(),
        )
        .await;
    let tails: Vec<String> = res
        .iter()
        .map(|r| r.content.lines().last().unwrap().to_string())
        .collect();
    assert_eq!(
        tails,
        [
            format!("(calls w1, w2 {OVERLAP_TAIL}"),
            format!("(calls w3, w2 {OVERLAP_TAIL}"),
            format!("(calls w3, w1 {OVERLAP_TAIL}"),
        ]
    );
    // A call that overlapped a writer but changed nothing sees the
    // writer's change (written between two barriers, so inside both
    // windows): it cannot tell it is not its own, and says so.
    let dirs = Dirs::new();
    let first = Arc::new(tokio::sync::Barrier::new(2));
    let second = Arc::new(tokio::sync::Barrier::new(2));
    let (f1, s1) = (first.clone(), second.clone());
    let (f2, s2) = (first, second);
    let ex = dirs
        .builder()
        .tool(T::new("writer", false, true, move |_, ctx: ToolContext| {
            let (f, s) = (f1.clone(), s1.clone());
            async move {
                f.wait().await;
                std::fs::write(ctx.workdir().join("a.txt"), "written")?;
                s.wait().await;
                Ok("wrote a.txt".to_string())
            }
        }))
        .tool(T::new("quiet", false, true, move |_, _| {
            let (f, s) = (f2.clone(), s2.clone());
            async move {
                f.wait().await;
                s.wait().await;
                Ok("nothing".to_string())
            }
        }))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "writer", json!({})),
                call("2", "quiet", json!({})),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        format!(
            "wrote a.txt\n\n[Workspace Changes]\n+ a.txt (created, 7 B)\n(calls 2 {OVERLAP_TAIL}"
        )
    );
    assert_eq!(
        res[1].content,
        format!("nothing\n\n[Workspace Changes]\n+ a.txt (created, 7 B)\n(calls 1 {OVERLAP_TAIL}")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panicking_pre_hook_ends_only_its_call() {
    let dirs = Dirs::new();
    let ex = dirs
        .builder()
        .tool(T::new("t", true, true, |_, _| async {
            Ok("fine".to_string())
        }))
        .pre_hook(|call: &ToolCall, _: &Value| -> Option<Outcome> {
            if call.id == "2" {
                panic!("the hook broke");
            }
            None
        })
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "t", json!({})),
                call("2", "t", json!({})),
                call("3", "t", json!({})),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(res[0].content, "fine");
    assert_eq!(res[1].content, "stage pre-hook panic: the hook broke");
    assert_eq!(res[1].error_kind, Some(toolexec_core::ErrorKind::Execution));
    assert!(res[1].is_error);
    assert_eq!(res[2].content, "fine");
}

/// Panics in `call` itself for id 2, while its future is polled for id 3.
struct Flaky;

impl Stage for Flaky {
    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        if inv.call().id == "2" {
            panic!("flaky stage broke");
        }
        Box::pin(async move {
            let out = next.run(inv).await;
            if out.content == "fine 3" {
                panic!("flaky stage broke later");
            }
            out
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panicking_user_stage_ends_only_its_call() {
    let dirs = Dirs::new();
    let ex = dirs
        .builder()
        .tool(T::new("t", true, true, |_, ctx: ToolContext| async move {
            Ok(format!("fine {}", ctx.call_id()))
        }))
        .stage(Flaky)
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            (1..=4)
                .map(|i| call(&i.to_string(), "t", json!({})))
                .collect(),
            &BatchOptions::new(),
        )
        .await;
    let contents: Vec<&str> = res.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            "fine 1",
            "stage Flaky panic: flaky stage broke",
            "stage Flaky panic: flaky stage broke later",
            "fine 4"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn panicking_observer_ends_only_its_call() {
    let dirs = Dirs::new();
    let ex = dirs
        .builder()
        .tool(T::new(
            "w",
            false,
            false,
            |input: Value, ctx: ToolContext| async move {
                let file = input["file"].as_str().unwrap().to_string();
                std::fs::write(ctx.workdir().join(&file), "x")?;
                Ok(format!("wrote {file}"))
            },
        ))
        .observer(Arc::new(
            |_: &Path, changes: &[toolexec_core::FileChange]| {
                if changes.iter().any(|c| c.absolute.ends_with("boom.txt")) {
                    panic!("observer broke");
                }
            },
        ))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            vec![
                call("1", "w", json!({"file": "a.txt"})),
                call("2", "w", json!({"file": "boom.txt"})),
                call("3", "w", json!({"file": "c.txt"})),
            ],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        "wrote a.txt\n\n[Workspace Changes]\n+ a.txt (created, 1 B)"
    );
    assert!(
        res[1]
            .content
            .starts_with("stage observer panic: observer broke"),
        "{}",
        res[1].content
    );
    assert!(res[1].is_error);
    assert_eq!(
        res[2].content,
        "wrote c.txt\n\n[Workspace Changes]\n+ c.txt (created, 1 B)"
    );
}

/// Five concurrency-safe calls that are not read-only (so each takes
/// snapshots and, with the watcher on, a watcher mark) still run at the
/// same time: every start comes before every end.
#[cfg(feature = "watch")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_safe_calls_with_the_watcher_on_still_overlap() {
    let dirs = Dirs::new();
    let watcher = toolexec_snapshot::Watcher::start(
        &dirs.ws(),
        Vec::new(),
        &toolexec_snapshot::Bounds::default(),
        toolexec_snapshot::WatchOptions::default(),
    )
    .unwrap();
    let times = Arc::new(std::sync::Mutex::new(Vec::<(Instant, Instant)>::new()));
    let t = times.clone();
    let ex = dirs
        .builder()
        .snapshot(Some(
            toolexec_core::SnapshotConfig::new().watcher(Some(Arc::new(watcher))),
        ))
        .tool(T::new("probe", false, true, move |_, _| {
            let t = t.clone();
            async move {
                let start = Instant::now();
                tokio::time::sleep(Duration::from_millis(300)).await;
                t.lock().unwrap().push((start, Instant::now()));
                Ok("ok".to_string())
            }
        }))
        .build()
        .unwrap();
    let res = ex
        .run_batch(
            (1..=5)
                .map(|i| call(&i.to_string(), "probe", json!({})))
                .collect(),
            &BatchOptions::new(),
        )
        .await;
    assert!(res.iter().all(|r| r.content == "ok"));
    let times = times.lock().unwrap();
    let last_start = times.iter().map(|t| t.0).max().unwrap();
    let first_end = times.iter().map(|t| t.1).min().unwrap();
    assert!(last_start < first_end, "the five calls did not overlap");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_name_read_only_when_it_can_be_called_this_turn() {
    let dirs = Dirs::new();
    let log: String = (1..=200)
        .map(|i| format!("line {i:04} of a long build log\n"))
        .collect();
    let text = log.clone();
    let ex = dirs
        .builder()
        .budget(400)
        .tool(T::new("print", true, true, move |_, _| {
            let text = text.clone();
            async move { Ok(text) }
        }))
        .tool(T::new("read", true, true, |_, _| async {
            Ok("r".to_string())
        }))
        .build()
        .unwrap();
    let res = ex
        .run_batch(vec![call("1", "print", json!({}))], &BatchOptions::new())
        .await;
    let path = res[0].spill_path.clone().expect("complete output saved");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), log);
    assert!(res[0].content.contains(&format!(
        "\n...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; use read on {} with offset=15 to see middle]...\n",
        path.display()
    )));
    ex.set_offered(Some(["print"]));
    let res = ex
        .run_batch(vec![call("1", "print", json!({}))], &BatchOptions::new())
        .await;
    let path = res[0].spill_path.clone().unwrap();
    assert!(res[0].content.contains(&format!(
        "\n...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; the full output is in {}]...\n",
        path.display()
    )));
    ex.set_offered(None::<Vec<String>>);
    ex.set_disabled(["read"]);
    let big: String = log.repeat(10);
    let text = big.clone();
    let dirs2 = Dirs::new();
    let ex2 = dirs2
        .builder()
        .budget(400)
        .disabled(["read"])
        .tool(T::new("print", true, true, move |_, _| {
            let text = text.clone();
            async move { Ok(text) }
        }))
        .tool(T::new("read", true, true, |_, _| async {
            Ok("r".to_string())
        }))
        .build()
        .unwrap();
    let res = ex2
        .run_batch(vec![call("1", "print", json!({}))], &BatchOptions::new())
        .await;
    let path = res[0].spill_path.clone().unwrap();
    assert_eq!(
        res[0].content,
        format!(
            "Result too large (60000 chars). Full output was spilled to scratch file: {}",
            path.display()
        )
    );
}

/// A tool writing `n` lines through the output sink.
fn sink_tool(name: &str, line: &'static str) -> T {
    T::new(
        name,
        false,
        false,
        move |input: Value, ctx: ToolContext| async move {
            let n = input["n"].as_u64().unwrap_or(10);
            let mut sink = ctx
                .output_sink()
                .ok_or_else(|| ToolError::new("no sink offered"))?;
            for i in 1..=n {
                sink.write(format!("{i} {line}\n").as_bytes()).await?;
            }
            sink.finish().await?;
            Ok("this text is not used".to_string())
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sink_output_is_the_result_spilled_or_read_back() {
    let dirs = Dirs::new();
    let ex = dirs
        .builder()
        .budget(400)
        .snapshot(None)
        .tool(sink_tool(
            "big",
            "token ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ here",
        ))
        .build()
        .unwrap();
    // 10 000 lines: spilled, the message counts the complete redacted output.
    let res = ex
        .run_batch(
            vec![call("1", "big", json!({"n": 10_000}))],
            &BatchOptions::new(),
        )
        .await;
    let path = res[0].spill_path.clone().expect("spilled");
    let text = std::fs::read_to_string(&path).unwrap();
    let expected: String = (1..=10_000)
        .map(|i| format!("{i} token [REDACTED:github-token] here\n"))
        .collect();
    assert_eq!(text, expected);
    // No read tool is registered here: the message names no tool.
    assert_eq!(
        res[0].content,
        format!(
            "Result too large ({} chars). Full output was spilled to scratch file: {}",
            expected.chars().count(),
            path.display()
        )
    );
    // 30 lines: read back and cut in the middle, the note names that file.
    let res = ex
        .run_batch(
            vec![call("2", "big", json!({"n": 30}))],
            &BatchOptions::new(),
        )
        .await;
    let path = res[0].spill_path.clone().expect("the file the note names");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 30);
    assert!(res[0]
        .content
        .contains(&format!("; the full output is in {}]...", path.display())));
    // 2 lines: fits, shown whole, the file is removed.
    let res = ex
        .run_batch(
            vec![call("3", "big", json!({"n": 2}))],
            &BatchOptions::new(),
        )
        .await;
    assert_eq!(
        res[0].content,
        "1 token [REDACTED:github-token] here\n2 token [REDACTED:github-token] here\n"
    );
    assert_eq!(res[0].spill_path, None);
}

/// Parses `...[truncated N chars; showing lines 1-B and C-D of T total; HINT]...`.
fn parse_note(note: &str) -> (usize, usize, usize, usize, String) {
    let rest = note.strip_prefix("...[truncated ").expect("note");
    let (n, rest) = rest.split_once(" chars; showing lines 1-").unwrap();
    let (b, rest) = rest.split_once(" and ").unwrap();
    let (c, rest) = rest.split_once('-').unwrap();
    let (_d, rest) = rest.split_once(" of ").unwrap();
    let (t, rest) = rest.split_once(" total").unwrap();
    let hint = rest
        .strip_prefix("; ")
        .and_then(|h| h.strip_suffix("]..."))
        .unwrap_or("")
        .to_string();
    (
        n.parse().unwrap(),
        b.parse().unwrap(),
        c.parse().unwrap(),
        t.parse().unwrap(),
        hint,
    )
}

/// The 1-based line of `text` holding the character at char index `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.chars().take(at).filter(|&c| c == '\n').count() + 1
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The batch budget cuts from the complete output: each cut result's
    /// note agrees with a recount on the complete output, names a file
    /// holding it, and the change reports are intact and uncounted.
    #[test]
    fn batch_budget_notes_recount_on_the_complete_output(
        sizes in proptest::collection::vec(1usize..400, 1..5),
        budget in 50usize..2_000,
        total in 300usize..4_000,
    ) {
        batch_budget_case(sizes, budget, total)?;
    }

    /// Bytes written through the sink in any chunking give exactly the
    /// one-shot redaction of their lossy decoding.
    #[test]
    fn sink_equals_one_shot_redaction(
        parts in proptest::collection::vec(
            prop_oneof![
                "[a-z =\n]{0,40}".prop_map(|s| s.into_bytes()),
                Just(b"password=hunter2secretvalue\n".to_vec()),
                Just(b"ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ".to_vec()),
                proptest::collection::vec(any::<u8>(), 0..6),
            ],
            0..12,
        ),
        cuts in proptest::collection::vec(0usize..600, 0..10),
    ) {
        let bytes: Vec<u8> = parts.concat();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
        cuts.sort_unstable();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let redactor = redactor();
        let ctx = ToolContext::new(scratch.path(), "p").with_output_sink(Some(
            OutputSinkConfig::new(scratch.path()).redactor(Some(redactor.clone())),
        ));
        let out = runtime.block_on(async {
            let mut sink = ctx.output_sink().unwrap();
            let mut at = 0;
            for cut in cuts.iter().copied().chain(std::iter::once(bytes.len())) {
                sink.write(&bytes[at..cut]).await.unwrap();
                at = cut;
            }
            sink.finish().await.unwrap()
        });
        let text = std::fs::read_to_string(&out.path).unwrap();
        let lossy = String::from_utf8_lossy(&bytes);
        let expected = redactor.redact(&lossy);
        prop_assert_eq!(&text, &*expected);
        prop_assert_eq!(out.chars, text.chars().count() as u64);
        prop_assert_eq!(out.lines, text.matches('\n').count() as u64 + 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_sink_leaves_no_file() {
    let scratch = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(scratch.path(), "d")
        .with_output_sink(Some(OutputSinkConfig::new(scratch.path().join("s"))));
    let mut sink = ctx.output_sink().unwrap();
    sink.write(b"half of it").await.unwrap();
    drop(sink);
    // The writer removes the file once the queue ends; wait for it by
    // polling the directory (no fixed sleep).
    let dir = scratch.path().join("s");
    for _ in 0..1000 {
        let empty = std::fs::read_dir(&dir)
            .map(|d| d.count() == 0)
            .unwrap_or(true);
        if empty {
            return;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the abandoned spill file was not removed");
}

/// The body of `batch_budget_notes_recount_on_the_complete_output`.
fn batch_budget_case(sizes: Vec<usize>, budget: usize, total: usize) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let dirs = Dirs::new();
        let ex = dirs
            .builder()
            .budget(budget)
            .batch_budget(Some(total))
            .tool(T::new(
                "gen",
                false,
                false,
                |input: Value, ctx: ToolContext| async move {
                    let n = input["n"].as_u64().unwrap() as usize;
                    std::fs::write(ctx.workdir().join(format!("{}.txt", ctx.call_id())), "x")?;
                    Ok((1..=n)
                        .map(|i| format!("row {i} of output\n"))
                        .collect::<String>())
                },
            ))
            .tool(T::new("read", true, true, |_, _| async {
                Ok("r".to_string())
            }))
            .build()
            .unwrap();
        let calls: Vec<ToolCall> = sizes
            .iter()
            .enumerate()
            .map(|(i, n)| call(&format!("c{i}"), "gen", json!({ "n": n })))
            .collect();
        let res: Vec<ToolResult> = ex.run_batch(calls, &BatchOptions::new()).await;
        let mut contents_total = 0;
        for (i, (r, n)) in res.iter().zip(&sizes).enumerate() {
            let complete: String = (1..=*n).map(|k| format!("row {k} of output\n")).collect();
            let report = format!("\n\n[Workspace Changes]\n+ c{i}.txt (created, 1 B)");
            prop_assert!(r.content.ends_with(&report), "report cut: {}", r.content);
            let content = &r.content[..r.content.len() - report.len()];
            contents_total += content.chars().count();
            if content.starts_with("Result too large") {
                let path = r.spill_path.as_ref().unwrap();
                prop_assert_eq!(std::fs::read_to_string(path).unwrap(), complete.clone());
                continue;
            }
            let Some(note) = content.lines().find(|l| l.starts_with("...[truncated ")) else {
                prop_assert_eq!(content, complete.as_str());
                continue;
            };
            let (removed, b, c, t, hint) = parse_note(note);
            let (pre, post) = content.split_once(note).unwrap();
            let chars = complete.chars().count();
            prop_assert_eq!(t, complete.matches('\n').count() + 1);
            // The note sits on a line of its own: one joining `\n` on
            // each side may or may not belong to the kept text.
            let heads = [Some(pre), pre.strip_suffix('\n')];
            let tails = [Some(post), post.strip_prefix('\n')];
            let agrees = heads.iter().flatten().any(|head| {
                tails.iter().flatten().any(|tail| {
                    let (hc, tc) = (head.chars().count(), tail.chars().count());
                    complete.starts_with(head)
                        && complete.ends_with(tail)
                        && hc + tc < chars
                        && removed == chars - hc - tc
                        && b == if hc == 0 {
                            0
                        } else {
                            line_of(&complete, hc - 1)
                        }
                        && c == if tc == 0 {
                            t + 1
                        } else {
                            line_of(&complete, chars - tc)
                        }
                })
            });
            prop_assert!(agrees, "note {} disagrees with the complete output", note);
            let path = hint
                .strip_prefix("use read on ")
                .and_then(|h| h.split_once(" with offset="))
                .map(|(p, o)| {
                    (
                        PathBuf::from(p),
                        o.split(' ').next().unwrap().parse::<usize>().unwrap(),
                    )
                });
            let (path, offset) = path.expect("the note names a file");
            prop_assert_eq!(offset, b + 1);
            prop_assert_eq!(std::fs::read_to_string(&path).unwrap(), complete);
        }
        // The total of contents fits whenever a note-only cut can reach it.
        if total >= res.len() * 260 {
            prop_assert!(contents_total <= total, "{} > {}", contents_total, total);
        }
        Ok(())
    })?;
    Ok(())
}

/// The shrunk case of `truthful.proptest-regressions` (one call of 57 rows,
/// budget 50, batch total 300), as a named test.
#[test]
fn seed_one_call_of_57_rows_budget_50_total_300() {
    batch_budget_case(vec![57], 50, 300).unwrap();
}
