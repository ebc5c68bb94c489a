//! Scheduler properties (SPEC §2.1) over random batches that mix
//! concurrency-safe calls, non-safe calls, a tool whose flags depend on
//! the call's input (as exec's do), invalid input and unknown tools.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use proptest::prelude::*;
use serde_json::{json, Value};
use toolexec_core::{
    BatchOptions, Event, EventKind, Executor, Tool, ToolCall, ToolContext, ToolFuture,
};

/// What the tools saw: calls in flight now and at most.
#[derive(Debug, Default)]
struct Flight {
    now: AtomicUsize,
    max: AtomicUsize,
}

/// A tool that yields `yields` times while it runs. Its flags are fixed
/// (`Some`) or depend on the input like exec's (`None`): safe when
/// `command` starts with `read`.
struct Probe {
    name: &'static str,
    fixed: Option<bool>,
    schema: Value,
    flight: Arc<Flight>,
}

impl Probe {
    fn safe_for(&self, input: &Value) -> bool {
        match self.fixed {
            Some(safe) => safe,
            None => input
                .get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| c.starts_with("read")),
        }
    }
}

impl Tool for Probe {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "records how many calls run at once"
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn read_only(&self, input: &Value) -> bool {
        self.safe_for(input)
    }
    fn concurrency_safe(&self, input: &Value) -> bool {
        self.safe_for(input)
    }
    fn call(&self, input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let now = self.flight.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.flight.max.fetch_max(now, Ordering::SeqCst);
            for _ in 0..input["yields"].as_u64().unwrap_or(0) {
                tokio::task::yield_now().await;
            }
            self.flight.now.fetch_sub(1, Ordering::SeqCst);
            Ok(format!("done {}", input["i"]))
        })
    }
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `reader`: always concurrency-safe.
    Reader,
    /// `writer`: never.
    Writer,
    /// `shell` with a reading command: safe by input.
    ShellRead,
    /// `shell` with a writing command: not safe by input.
    ShellWrite,
    /// `shell` with input that is not JSON: not safe, refused by the guard.
    ShellInvalid,
    /// A tool that does not exist: not safe, refused by the guard.
    Unknown,
}

impl Kind {
    fn safe(self) -> bool {
        matches!(self, Kind::Reader | Kind::ShellRead)
    }

    fn call(self, i: usize, yields: u8) -> ToolCall {
        let id = format!("c{i}");
        let args =
            |command: &str| json!({"i": i, "yields": yields, "command": command}).to_string();
        match self {
            Kind::Reader => ToolCall::new(id, "reader", args("")),
            Kind::Writer => ToolCall::new(id, "writer", args("")),
            Kind::ShellRead => ToolCall::new(id, "shell", args("read a.txt")),
            Kind::ShellWrite => ToolCall::new(id, "shell", args("write a.txt")),
            Kind::ShellInvalid => ToolCall::new(id, "shell", r#"{"command": "read"#),
            Kind::Unknown => ToolCall::new(id, "nope", args("")),
        }
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        3 => Just(Kind::Reader),
        1 => Just(Kind::Writer),
        3 => Just(Kind::ShellRead),
        1 => Just(Kind::ShellWrite),
        1 => Just(Kind::ShellInvalid),
        1 => Just(Kind::Unknown),
    ]
}

const MAX_CAP: usize = 4;

struct Setup {
    _dir: tempfile::TempDir,
    /// Index: `max_concurrency` − 1.
    executors: Vec<Executor>,
    flight: Arc<Flight>,
}

/// One executor for every case (building one compiles the redaction
/// rules); the calls of a batch leave no state behind in it.
fn setup() -> &'static Mutex<Setup> {
    static SETUP: OnceLock<Mutex<Setup>> = OnceLock::new();
    SETUP.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let flight = Arc::new(Flight::default());
        let schema = json!({"type": "object"});
        let probe = |name, fixed| Probe {
            name,
            fixed,
            schema: schema.clone(),
            flight: Arc::clone(&flight),
        };
        let executors = (1..=MAX_CAP)
            .map(|cap| {
                Executor::builder(dir.path())
                    .tool(probe("reader", Some(true)))
                    .tool(probe("writer", Some(false)))
                    .tool(probe("shell", None))
                    .max_concurrency(cap)
                    .build()
                    .unwrap()
            })
            .collect();
        Mutex::new(Setup {
            _dir: dir,
            executors,
            flight,
        })
    })
}

/// Runs the batch with at most `cap` calls at a time; returns the
/// results, per call the sequence numbers of its `started` and `finished`
/// events, and the most calls that were inside the tools at once.
fn run(
    kinds: &[(Kind, u8)],
    cap: usize,
) -> (Vec<toolexec_core::ToolResult>, Vec<(usize, usize)>, usize) {
    let setup = setup().lock().unwrap_or_else(|e| e.into_inner());
    setup.flight.max.store(0, Ordering::SeqCst);
    let executor = &setup.executors[cap - 1];
    let log: Arc<Mutex<Vec<(EventKind, usize)>>> = Arc::default();
    let sink_log = Arc::clone(&log);
    let options = BatchOptions::new().events(move |e: Event| {
        sink_log.lock().unwrap().push((e.event, e.index));
    });
    let calls: Vec<ToolCall> = kinds
        .iter()
        .enumerate()
        .map(|(i, &(k, y))| k.call(i, y))
        .collect();
    let results = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(executor.run_batch(calls, &options));
    let log = log.lock().unwrap();
    let mut spans = vec![(usize::MAX, usize::MAX); kinds.len()];
    for (seq, &(event, index)) in log.iter().enumerate() {
        match event {
            EventKind::Started => spans[index].0 = seq,
            EventKind::Finished => spans[index].1 = seq,
            _ => {}
        }
    }
    (results, spans, setup.flight.max.load(Ordering::SeqCst))
}

proptest! {
    #[test]
    fn non_safe_calls_run_alone_the_cap_holds_and_results_keep_input_order(
        kinds in proptest::collection::vec((kind(), 0u8..6), 1..24),
        cap in 1..=MAX_CAP,
    ) {
        let (results, spans, max_in_tool) = run(&kinds, cap);

        // Results in input order, one per call; guard refusals where due.
        let ids: Vec<String> = results.iter().map(|r| r.id.clone()).collect();
        let expected: Vec<String> = (0..kinds.len()).map(|i| format!("c{i}")).collect();
        prop_assert_eq!(ids, expected);
        for (i, (r, &(k, _))) in results.iter().zip(&kinds).enumerate() {
            let refused = matches!(k, Kind::ShellInvalid | Kind::Unknown);
            prop_assert_eq!(r.is_error, refused, "call {}: {:?}", i, r);
            if !refused {
                prop_assert_eq!(&r.content, &format!("done {i}"));
            }
        }

        // Every call started and finished, in that order.
        for (i, &(start, end)) in spans.iter().enumerate() {
            prop_assert!(start < end && end != usize::MAX, "call {} span {:?}", i, (start, end));
        }
        let overlap = |a: (usize, usize), b: (usize, usize)| a.0 < b.1 && b.0 < a.1;

        // A non-safe call never overlaps any other call.
        for (i, &(k, _)) in kinds.iter().enumerate() {
            if k.safe() {
                continue;
            }
            for j in (0..kinds.len()).filter(|&j| j != i) {
                prop_assert!(
                    !overlap(spans[i], spans[j]),
                    "non-safe call {} ({:?}) overlaps call {} ({:?})", i, k, j, kinds[j].0
                );
            }
        }

        // Groups run one after another: a call never starts before every
        // call of an earlier group finished.
        let mut group = Vec::with_capacity(kinds.len());
        let mut g = 0;
        for (i, &(k, _)) in kinds.iter().enumerate() {
            if i > 0 && !(k.safe() && kinds[i - 1].0.safe()) {
                g += 1;
            }
            group.push(g);
        }
        for i in 0..kinds.len() {
            for j in (i + 1)..kinds.len() {
                if group[i] < group[j] {
                    prop_assert!(spans[i].1 < spans[j].0, "call {} started before call {} finished", j, i);
                }
            }
        }

        // The cap is never exceeded: in the event order and inside the tools.
        let mut points: Vec<(usize, i32)> = spans
            .iter()
            .flat_map(|&(s, e)| [(s, 1), (e, -1)])
            .collect();
        points.sort();
        let mut in_flight = 0;
        for (_, delta) in points {
            in_flight += delta;
            prop_assert!(in_flight as usize <= cap, "{} calls in flight, cap {}", in_flight, cap);
        }
        prop_assert!(max_in_tool <= cap, "{} calls in tools, cap {}", max_in_tool, cap);
    }
}

/// The input decides: the same tool's calls run together when their input
/// is safe and one by one when it is not.
#[test]
fn an_input_dependent_tool_overlaps_only_for_safe_input() {
    let safe = [(Kind::ShellRead, 5u8); 4];
    let (_, spans, max) = run(&safe, 4);
    assert!(spans.iter().all(|s| s.0 < spans[0].1), "{spans:?}");
    assert_eq!(max, 4);
    let unsafe_ = [(Kind::ShellWrite, 5u8); 4];
    let (_, spans, max) = run(&unsafe_, 4);
    for w in spans.windows(2) {
        assert!(w[0].1 < w[1].0, "{spans:?}");
    }
    assert_eq!(max, 1);
}
