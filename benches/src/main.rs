//! End-to-end measurements behind `cargo xtask bench` (issue 8).
//!
//! Every row times toolexec against a reference measured in the same
//! process, rep by rep in alternating order (after one unmeasured warm-up
//! of each), and reports medians. Inputs (file trees, logs) are generated
//! fresh at the start of each row from a clock-seeded generator; no result
//! is reused between reps.
//!
//! ```text
//! cargo run --release -p toolexec-bench -- --list
//! cargo run --release -p toolexec-bench -- --row NAME [--quick]
//! ```
//!
//! Output: progress on stderr; on stdout one line per table row,
//! `ROW\tWHAT\tOURS\tREFERENCE\tRATIO\tGOAL\tVERDICT`, and `NOTE\tTEXT`
//! lines for the notes under the table (fields never hold tabs or
//! newlines). VERDICT is `pass`, `miss`, `report` or `not measured:
//! REASON`. RATIO is ours ÷ reference in the row's own unit.
//!
//! The redaction rows compare with the gitleaks named by
//! `TOOLEXEC_BENCH_GITLEAKS` (`cargo xtask bench` finds or fetches one and
//! sets it, or sets `TOOLEXEC_BENCH_NO_GITLEAKS` to the reason there is
//! none).
//!
//! Peak-memory rows start this binary again once per rep
//! (`--probe KIND --arg N`), since VmHWM is a per-process high-water mark.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fs;
use std::hint::black_box;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use toolexec_core::{BatchOptions, Executor, Tool, ToolCall, ToolContext, ToolFuture};
use toolexec_limiter::{Limiter, Limits};
use toolexec_redact::Redactor;
use toolexec_snapshot::{Bounds, Snapshot, DEFAULT_SKIPPED_DIRS, DEFAULT_SKIPPED_FILES};
use toolexec_tools::{ExecConfig, ExecTool, GrepTool};

// ------------------------------------------------------------------ rows

/// A row of the table: its name on the command line, the text shown when
/// it could not be measured at all, and the function measuring it.
struct RowDef {
    name: &'static str,
    what: &'static str,
    run: fn(&Cfg, &mut Out) -> Result<(), String>,
}

const ROWS: &[RowDef] = &[
    RowDef {
        name: "overhead",
        what: "executor overhead per call",
        run: row_overhead,
    },
    RowDef {
        name: "scheduler",
        what: "scheduler efficiency",
        run: row_scheduler,
    },
    RowDef {
        name: "snapshot-500",
        what: "snapshot, 500 files",
        run: row_snapshot_500,
    },
    RowDef {
        name: "snapshot-pruned",
        what: "snapshot, 500 files + pruned node_modules/target",
        run: row_snapshot_pruned,
    },
    RowDef {
        name: "watcher",
        what: "snapshot steps per call with the watcher",
        run: row_watcher,
    },
    RowDef {
        name: "redact-clean",
        what: "redaction, secret-free log text",
        run: row_redact_clean,
    },
    RowDef {
        name: "redact-dense",
        what: "redaction, secret-dense text",
        run: row_redact_dense,
    },
    RowDef {
        name: "limiter",
        what: "limiter throughput",
        run: row_limiter,
    },
    RowDef {
        name: "limiter-rss",
        what: "limiter peak RSS",
        run: row_limiter_rss,
    },
    RowDef {
        name: "exec-spawn",
        what: "exec spawn of `true`",
        run: row_exec_spawn,
    },
    RowDef {
        name: "exec-rss",
        what: "exec capture of 1 GB, peak RSS",
        run: row_exec_rss,
    },
    RowDef {
        name: "grep",
        what: "grep, 10 000-file tree",
        run: row_grep,
    },
    RowDef {
        name: "formats-openai",
        what: "OpenAI message → calls → tool messages, 100 calls",
        run: row_formats_openai,
    },
    RowDef {
        name: "shell-classifier",
        what: "exec read-only classifier, per command",
        run: row_shell_classifier,
    },
    RowDef {
        name: "exec-sandbox",
        what: "exec spawn of `true` in the sandbox",
        run: row_exec_sandbox,
    },
    RowDef {
        name: "jail-read",
        what: "read through the race-free jail, per call",
        run: row_jail_read,
    },
    RowDef {
        name: "jail-write",
        what: "write through the race-free jail, per call",
        run: row_jail_write,
    },
    RowDef {
        name: "jail-edit",
        what: "edit through the race-free jail, per call",
        run: row_jail_edit,
    },
    RowDef {
        name: "jail-grep",
        what: "grep through the race-free jail, 10 000-file tree",
        run: row_jail_grep,
    },
    RowDef {
        name: "mcp-stdio",
        what: "MCP round trip of a no-op tools/call over stdio",
        run: row_mcp_stdio,
    },
    RowDef {
        name: "mcp-http",
        what: "MCP round trip of a no-op tools/call over Streamable HTTP",
        run: row_mcp_http,
    },
    RowDef {
        name: "mcp-proxy",
        what: "`toolexec_mcp::Proxy` in front of an MCP server over stdio: a no-op tools/call round trip, and start-up",
        run: row_mcp_proxy,
    },
    RowDef {
        name: "redact-stream",
        what: "streaming redaction (`toolexec redact`): keyword logs, JSON, source, dense",
        run: row_redact_stream,
    },
    RowDef {
        name: "redact-rss",
        what: "`toolexec redact` peak RSS on a keyword-dense line without a line break",
        run: row_redact_rss,
    },
];

/// Run settings: `--quick` shrinks inputs and repetitions.
struct Cfg {
    quick: bool,
}

impl Cfg {
    fn pick<T>(&self, quick: T, full: T) -> T {
        if self.quick {
            quick
        } else {
            full
        }
    }
}

/// Where rows and notes go: stdout, one line each, flushed at once so a
/// later crash keeps what was measured.
struct Out;

impl Out {
    fn row(
        &mut self,
        what: &str,
        ours: &str,
        reference: &str,
        ratio: &str,
        goal: &str,
        verdict: &str,
    ) {
        let fields = [what, ours, reference, ratio, goal, verdict].map(clean);
        println!("ROW\t{}", fields.join("\t"));
        let _ = std::io::stdout().flush();
    }

    fn note(&mut self, text: &str) {
        println!("NOTE\t{}", clean(text));
        let _ = std::io::stdout().flush();
    }
}

fn clean(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

fn verdict(pass: bool) -> &'static str {
    if pass {
        "pass"
    } else {
        "miss"
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let cfg = Cfg { quick };
    let value_of = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    if args.iter().any(|a| a == "--list") {
        for row in ROWS {
            println!("{}", row.name);
        }
        return;
    }
    if let Some(kind) = value_of("--probe") {
        let arg: u64 = value_of("--arg").and_then(|v| v.parse().ok()).unwrap_or(0);
        if let Err(err) = probe(&kind, arg) {
            eprintln!("bench_e2e: probe {kind}: {err}");
            std::process::exit(1);
        }
        return;
    }
    let Some(name) = value_of("--row") else {
        eprintln!("usage: bench_e2e --list | --row NAME [--quick] | --probe KIND --arg N");
        std::process::exit(2);
    };
    let Some(row) = ROWS.iter().find(|r| r.name == name) else {
        eprintln!("bench_e2e: unknown row {name:?}");
        std::process::exit(2);
    };
    let mut out = Out;
    let started = Instant::now();
    if let Err(reason) = (row.run)(&cfg, &mut out) {
        out.row(
            row.what,
            "—",
            "—",
            "—",
            "—",
            &format!("not measured: {reason}"),
        );
    }
    eprintln!("  [{}] done in {:.1?}", row.name, started.elapsed());
}

// ------------------------------------------------------------------ measuring

/// One unmeasured round of each, then `reps` rounds of `a` and `b`,
/// alternating which goes first. Each closure times its own work (so
/// set-up and clean-up stay outside) and returns seconds.
fn interleaved(
    reps: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> (Vec<f64>, Vec<f64>) {
    a();
    b();
    let mut xs = Vec::with_capacity(reps);
    let mut ys = Vec::with_capacity(reps);
    for i in 0..reps {
        if i % 2 == 0 {
            xs.push(a());
            ys.push(b());
        } else {
            ys.push(b());
            xs.push(a());
        }
    }
    (xs, ys)
}

fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn secs(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

fn sig(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn fmt_time(s: f64) -> String {
    let a = s.abs();
    if a >= 1.0 {
        format!("{} s", sig(s))
    } else if a >= 1e-3 {
        format!("{} ms", sig(s * 1e3))
    } else if a >= 1e-6 {
        format!("{} µs", sig(s * 1e6))
    } else {
        format!("{} ns", sig(s * 1e9))
    }
}

/// Throughput in MB/s (10^6 bytes).
fn mbps(bytes: usize, s: f64) -> f64 {
    bytes as f64 / 1e6 / s
}

/// A difference with its sign: `+2.13 µs`, `−292 µs`.
fn fmt_added(s: f64) -> String {
    if s < 0.0 {
        format!("−{}", fmt_time(-s))
    } else {
        format!("+{}", fmt_time(s))
    }
}

fn fmt_mbps(v: f64) -> String {
    format!("{} MB/s", sig(v))
}

/// Bytes as MB (10^6).
fn fmt_mb(bytes: f64) -> String {
    format!("{} MB", sig(bytes / 1e6))
}

fn fmt_ratio(r: f64) -> String {
    format!("{}×", sig(r))
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    // The CLI's flavour.
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a tokio runtime: {e}"))
}

fn temp_dir(tag: &str) -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix(&format!("toolexec-bench-{tag}-"))
        .tempdir()
        .map_err(|e| format!("cannot create a temp dir: {e}"))
}

fn progress(msg: &str) {
    eprintln!("  {msg}");
}

/// A small xorshift generator, seeded from the clock: inputs differ from
/// run to run.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Rng(nanos | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn chars(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len() as u64) as usize] as char)
            .collect()
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const DIGITS: &[u8] = b"0123456789";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// ------------------------------------------------------------------ executor rows

struct Noop(Value);

impl Tool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "Does nothing."
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

fn path_schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
}

fn row_overhead(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    const CALLS: usize = 10_000;
    let reps = cfg.pick(7, 21);
    let rt = runtime()?;
    let dir = temp_dir("overhead")?;
    // The default chain (redact, limit, guard, hooks, deadline with panic
    // capture) without the snapshot stage.
    let executor = Executor::builder(dir.path())
        .tool(Noop(path_schema()))
        .snapshot(None)
        .build()
        .map_err(|e| format!("executor: {e}"))?;
    let direct = Noop(path_schema());
    let calls = || -> Vec<ToolCall> {
        (0..CALLS)
            .map(|i| ToolCall::new(i.to_string(), "noop", r#"{"path":"src/main.rs"}"#))
            .collect()
    };
    let mut chain_bad = 0usize;
    let mut direct_bad = 0usize;
    progress(&format!(
        "{CALLS} no-op calls × {reps} reps, chain vs direct"
    ));
    let (ours, reference) = interleaved(
        reps,
        || {
            let batch = calls();
            let options = BatchOptions::new();
            let start = Instant::now();
            let results = rt.block_on(executor.run_batch(batch, &options));
            let t = secs(start);
            chain_bad += results
                .iter()
                .filter(|r| r.is_error || r.content != "ok")
                .count();
            t
        },
        || {
            let batch = calls();
            let start = Instant::now();
            let results = rt.block_on(async {
                let mut results = Vec::with_capacity(batch.len());
                for call in batch {
                    let input: Value = match serde_json::from_str(&call.input) {
                        Ok(v) => v,
                        Err(e) => {
                            results.push(Err(toolexec_core::ToolError::new(e.to_string())));
                            continue;
                        }
                    };
                    results.push(
                        direct
                            .call(input, ToolContext::new(dir.path(), call.id))
                            .await,
                    );
                }
                results
            });
            let t = secs(start);
            direct_bad += results
                .iter()
                .filter(|r| !matches!(r, Ok(s) if s == "ok"))
                .count();
            t
        },
    );
    if chain_bad + direct_bad > 0 {
        return Err(format!(
            "{chain_bad} chain and {direct_bad} direct results were not \"ok\""
        ));
    }
    let per_ours = median(ours) / CALLS as f64;
    let per_ref = median(reference) / CALLS as f64;
    let added = per_ours - per_ref;
    out.row(
        &format!("executor overhead per call ({} no-op read-only calls in one batch, full chain without snapshot)", group(CALLS)),
        &format!("{}/call ({})", fmt_time(per_ours), fmt_added(added)),
        &format!("{}/call direct", fmt_time(per_ref)),
        &fmt_ratio(per_ours / per_ref),
        "≤ 2 µs added",
        verdict(added <= 2e-6),
    );
    Ok(())
}

struct Sleeper(Value);

impl Tool for Sleeper {
    fn name(&self) -> &str {
        "sleep100"
    }
    fn description(&self) -> &str {
        "Sleeps 100 ms."
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
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok("slept".to_string())
        })
    }
}

fn row_scheduler(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(3, 7);
    let rt = runtime()?;
    let dir = temp_dir("scheduler")?;
    let executor = Executor::builder(dir.path())
        .tool(Sleeper(json!({"type": "object"})))
        .max_concurrency(5)
        .build()
        .map_err(|e| format!("executor: {e}"))?;
    progress(&format!("50 calls of 100 ms at cap 5 × {reps} reps"));
    let mut walls = Vec::with_capacity(reps);
    for _ in 0..reps {
        let calls: Vec<ToolCall> = (0..50)
            .map(|i| ToolCall::new(i.to_string(), "sleep100", "{}"))
            .collect();
        let start = Instant::now();
        let results = rt.block_on(executor.run_batch(calls, &BatchOptions::new()));
        walls.push(secs(start));
        let bad = results
            .iter()
            .filter(|r| r.is_error || r.content != "slept")
            .count();
        if bad > 0 {
            return Err(format!("{bad} of 50 calls did not return \"slept\""));
        }
    }
    let wall = median(walls);
    out.row(
        "scheduler efficiency: 50 calls of 100 ms at cap 5 (wall time)",
        &fmt_time(wall),
        "1.00 s ideal",
        &fmt_ratio(wall / 1.0),
        "≤ 1.1 s",
        verdict(wall <= 1.1),
    );
    Ok(())
}

// ------------------------------------------------------------------ snapshot rows

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| format!("mkdir {}: {e}", parent.display()))?;
    }
    fs::write(path, bytes).map_err(|e| format!("write {}: {e}", path.display()))
}

/// A workspace of exactly 500 files inside the snapshot bounds: 5 in the
/// root, 45 at level 2, 225 at level 3, 225 at level 4; plus what both
/// the snapshot and `find` leave out: a `.git` directory of 120 files, 90
/// files at level 5, and two skipped file names.
fn plain_tree(root: &Path, rng: &mut Rng) -> Result<(), String> {
    let body = |rng: &mut Rng| -> Vec<u8> {
        let n = 100 + rng.below(4000) as usize;
        rng.chars(n, ALNUM).into_bytes()
    };
    for name in [
        "README.md",
        "Cargo.toml",
        "Cargo.lock",
        ".gitignore",
        "LICENSE",
    ] {
        write_file(&root.join(name), &body(rng))?;
    }
    write_file(&root.join("notes.txt~"), b"backup")?;
    write_file(&root.join(".DS_Store"), b"junk")?;
    for i in 0..120 {
        write_file(
            &root.join(format!(
                ".git/objects/{:02x}/{}",
                i % 40,
                rng.chars(38, HEX)
            )),
            &body(rng),
        )?;
    }
    for a in 0..9 {
        let top = root.join(format!("src{a}"));
        for f in 0..5 {
            write_file(&top.join(format!("file{f}.rs")), &body(rng))?;
        }
        for b in 0..5 {
            let module = top.join(format!("mod{b}"));
            for f in 0..5 {
                write_file(&module.join(format!("item{f}.rs")), &body(rng))?;
                write_file(&module.join(format!("sub/leaf{f}.rs")), &body(rng))?;
            }
            for f in 0..2 {
                write_file(&module.join(format!("sub/deep/too_deep{f}.rs")), &body(rng))?;
            }
        }
    }
    Ok(())
}

/// `extra` more files in `node_modules/` (packages of 100) and `target/`
/// (a fifth flat in `debug/deps`, the rest in build dirs of 100).
fn heavy_dirs(root: &Path, extra: usize) -> Result<(), String> {
    let half = extra / 2;
    for p in 0..half.div_ceil(100) {
        let dir = root.join(format!("node_modules/pkg{p:05}/lib"));
        fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        for f in 0..100.min(half - p * 100) {
            fs::write(dir.join(format!("f{f:02}.js")), b"module.exports = 1;\n")
                .map_err(|e| format!("write: {e}"))?;
        }
    }
    let rest = extra - half;
    let flat = rest / 5;
    let deps = root.join("target/debug/deps");
    fs::create_dir_all(&deps).map_err(|e| format!("mkdir {}: {e}", deps.display()))?;
    for f in 0..flat {
        fs::write(deps.join(format!("lib{f:06}.rlib")), b"x").map_err(|e| format!("write: {e}"))?;
    }
    let built = rest - flat;
    for c in 0..built.div_ceil(100) {
        let dir = root.join(format!("target/debug/build/crate{c:04}/out"));
        fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        for f in 0..100.min(built - c * 100) {
            fs::write(dir.join(format!("g{f:02}.o")), b"x").map_err(|e| format!("write: {e}"))?;
        }
    }
    Ok(())
}

/// `find ROOT -maxdepth 4 \( -name .git -o … \) -prune -o -type f
/// ! \( -name '*.pyc' -o … \) -printf '%s %T@ %i\n'`: the snapshot's
/// bounds and skip lists, and the same metadata.
fn find_command(root: &Path) -> Command {
    let mut cmd = Command::new("find");
    cmd.arg(root).args(["-maxdepth", "4", "("]);
    for (i, name) in DEFAULT_SKIPPED_DIRS.iter().enumerate() {
        if i > 0 {
            cmd.arg("-o");
        }
        cmd.args(["-name", name]);
    }
    cmd.args([")", "-prune", "-o", "-type", "f", "!", "("]);
    for (i, pattern) in DEFAULT_SKIPPED_FILES.iter().enumerate() {
        if i > 0 {
            cmd.arg("-o");
        }
        cmd.args(["-name", pattern]);
    }
    cmd.args([")", "-printf", "%s %T@ %i\\n"]);
    // The C locale: find's name matching is faster than in a UTF-8 locale,
    // so the reference is the faster of the two.
    cmd.env("LC_ALL", "C");
    cmd.stdin(Stdio::null()).stderr(Stdio::null());
    cmd
}

fn take(root: &Path, bounds: &Bounds) -> Result<Snapshot, String> {
    Snapshot::take(root, bounds).map_err(|e| format!("snapshot of {}: {e}", root.display()))
}

/// Times one snapshot, counting it in `failures` unless it holds the 500
/// files.
fn timed_take(root: &Path, bounds: &Bounds, failures: &Cell<usize>) -> f64 {
    let start = Instant::now();
    let snap = Snapshot::take(root, bounds);
    let t = secs(start);
    if !matches!(&snap, Ok(s) if s.len() == 500) {
        failures.set(failures.get() + 1);
    }
    t
}

fn check_snapshot(root: &Path, bounds: &Bounds) -> Result<(), String> {
    let snap = take(root, bounds)?;
    if snap.len() != 500 || snap.is_cut() {
        return Err(format!(
            "expected 500 files in the snapshot, got {} (cut: {})",
            snap.len(),
            snap.is_cut()
        ));
    }
    Ok(())
}

fn row_snapshot_500(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(41, 201);
    let mut rng = Rng::new();
    let dir = temp_dir("snap500")?;
    plain_tree(dir.path(), &mut rng)?;
    let bounds = Bounds::default();
    check_snapshot(dir.path(), &bounds)?;
    let lines = find_command(dir.path())
        .output()
        .map_err(|e| format!("cannot run find: {e}"))?
        .stdout
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    if lines != 500 {
        return Err(format!("find listed {lines} files, expected 500"));
    }
    progress(&format!("snapshot vs find, 500 files × {reps} reps"));
    let failures = Cell::new(0usize);
    let (ours, reference) = interleaved(
        reps,
        || timed_take(dir.path(), &bounds, &failures),
        || {
            let start = Instant::now();
            let output = find_command(dir.path()).output();
            let t = secs(start);
            if !matches!(&output, Ok(o) if o.status.success()) {
                failures.set(failures.get() + 1);
            }
            t
        },
    );
    let failures = failures.get();
    if failures > 0 {
        return Err(format!("{failures} snapshot or find runs failed"));
    }
    let (o, r) = (median(ours), median(reference));
    out.row(
        "snapshot, 500 files (+120 in .git, 90 too deep)",
        &fmt_time(o),
        &format!("{} find -maxdepth 4, equal prunes", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 1.2×",
        verdict(o / r <= 1.2),
    );
    Ok(())
}

fn row_snapshot_pruned(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let extra = cfg.pick(20_000, 200_000);
    let reps = cfg.pick(41, 201);
    let mut rng = Rng::new();
    let plain = temp_dir("snap500")?;
    plain_tree(plain.path(), &mut rng)?;
    let heavy = temp_dir("snapheavy")?;
    plain_tree(heavy.path(), &mut rng)?;
    progress(&format!(
        "writing {extra} files under node_modules/ and target/"
    ));
    let start = Instant::now();
    heavy_dirs(heavy.path(), extra)?;
    progress(&format!("  written in {:.1?}", start.elapsed()));
    let bounds = Bounds::default();
    check_snapshot(plain.path(), &bounds)?;
    check_snapshot(heavy.path(), &bounds)?;
    progress(&format!("snapshot heavy vs plain × {reps} reps"));
    let failures = Cell::new(0usize);
    let (ours, reference) = interleaved(
        reps,
        || timed_take(heavy.path(), &bounds, &failures),
        || timed_take(plain.path(), &bounds, &failures),
    );
    let failures = failures.get();
    if failures > 0 {
        return Err(format!("{failures} snapshots failed"));
    }
    let (o, r) = (median(ours), median(reference));
    out.row(
        &format!(
            "snapshot, same + {} files under node_modules/ and target/",
            group(extra)
        ),
        &fmt_time(o),
        &format!("{} the 500-file snapshot", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 1.1×",
        verdict(o / r <= 1.1),
    );
    Ok(())
}

fn vm_rss_kib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The per-call cost of the snapshot steps with the session watcher on a
/// large tree (the 500-file workspace plus `vendor/` files 6 levels deep,
/// 10 per directory) against the walk alone. Each call rewrites one file
/// the walk cannot see; the watcher must report it.
fn row_watcher(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let files = cfg.pick(20_000, 100_000);
    let reps = cfg.pick(21, 61);
    let mut rng = Rng::new();
    let dir = temp_dir("watch")?;
    let root = dir.path();
    plain_tree(root, &mut rng)?;
    progress(&format!("writing {} files", group(files)));
    let written = Instant::now();
    let deep_dirs = (files - 500) / 10;
    for i in 0..deep_dirs {
        let sub = root.join(format!(
            "vendor/a{}/b{}/c{}/d{}",
            i / 1000,
            i / 100 % 10,
            i / 10 % 10,
            i % 10
        ));
        fs::create_dir_all(&sub).map_err(|e| format!("mkdir {}: {e}", sub.display()))?;
        for f in 0..10 {
            fs::write(sub.join(format!("f{f}.rs")), b"pub fn f() {}\n")
                .map_err(|e| format!("write: {e}"))?;
        }
    }
    let i = deep_dirs / 2;
    let relative = format!(
        "vendor/a{}/b{}/c{}/d{}/f4.rs",
        i / 1000,
        i / 100 % 10,
        i / 10 % 10,
        i % 10
    );
    let target = root.join(&relative);
    progress(&format!("  written in {:.1?}", written.elapsed()));
    let bounds = Bounds::default();
    let rss_before = vm_rss_kib();
    let started = Instant::now();
    let watcher = toolexec_snapshot::Watcher::start(
        root,
        Vec::new(),
        &bounds,
        toolexec_snapshot::WatchOptions::default(),
    )
    .map_err(|e| format!("the watcher did not start: {e}"))?;
    let start_time = secs(started);
    let rss_after = vm_rss_kib();
    if let Some(reason) = watcher.degraded() {
        return Err(format!("the watcher is degraded: {reason}"));
    }
    let mut n = 0u64;
    let change = RefCell::new(move || {
        n += 1;
        fs::write(&target, format!("pub fn f() {{ {n} }}\n"))
    });
    let problems = RefCell::new(Vec::new());
    let after_steps = RefCell::new((Vec::new(), Vec::new()));
    progress(&format!(
        "per-call snapshot steps, watcher vs walk alone × {reps} reps"
    ));
    let (ours, reference) = interleaved(
        reps,
        || {
            let t0 = Instant::now();
            let mark = watcher.begin();
            let before = take(root, &bounds);
            let t_before = secs(t0);
            if let Err(e) = (change.borrow_mut())() {
                problems.borrow_mut().push(format!("write: {e}"));
            }
            let t1 = Instant::now();
            let after = take(root, &bounds);
            let diff = match (&before, &after) {
                (Ok(b), Ok(a)) => Some(watcher.finish(mark, b, a)),
                _ => None,
            };
            let t_after = secs(t1);
            after_steps.borrow_mut().0.push(t_after);
            match diff {
                Some(d)
                    if d.untracked().is_none()
                        && d.len() == 1
                        && d.report().contains(relative.as_str()) => {}
                Some(d) => problems
                    .borrow_mut()
                    .push(format!("watcher report: {:?}", d.report())),
                None => problems.borrow_mut().push("a snapshot failed".to_string()),
            }
            t_before + t_after
        },
        || {
            let t0 = Instant::now();
            let before = take(root, &bounds);
            let t_before = secs(t0);
            if let Err(e) = (change.borrow_mut())() {
                problems.borrow_mut().push(format!("write: {e}"));
            }
            let t1 = Instant::now();
            let after = take(root, &bounds);
            let diff = match (&before, &after) {
                (Ok(b), Ok(a)) => Some(toolexec_snapshot::diff(b, a)),
                _ => None,
            };
            let t_after = secs(t1);
            after_steps.borrow_mut().1.push(t_after);
            if !diff.is_some_and(|d| d.is_empty()) {
                problems
                    .borrow_mut()
                    .push("the walk alone saw a change 6 levels deep".to_string());
            }
            t_before + t_after
        },
    );
    if let Some(first) = problems.into_inner().into_iter().next() {
        return Err(first);
    }
    let (after_ours, after_ref) = after_steps.into_inner();
    out.note(&format!(
        "watcher on {} files: {} directory watches, {} files tracked, started in {}, process memory +{} (VmRSS); after-step alone (walk + diff/finish) {} with the watcher vs {} without",
        group(files),
        group(watcher.watch_count()),
        group(watcher.tracked_files()),
        fmt_time(start_time),
        fmt_mb(rss_after.saturating_sub(rss_before) as f64 * 1024.0),
        fmt_time(median(after_ours)),
        fmt_time(median(after_ref)),
    ));
    let (o, r) = (median(ours), median(reference));
    let added = o - r;
    out.row(
        &format!(
            "snapshot steps per call with the watcher, {}-file tree (a change 6 levels deep each call)",
            group(files)
        ),
        &format!("{} ({})", fmt_time(o), fmt_added(added)),
        &format!("{} the walk alone", fmt_time(r)),
        &fmt_ratio(o / r),
        "< 5 ms added",
        verdict(added < 5e-3),
    );
    Ok(())
}

/// 200000 → "200 000".
fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

// ------------------------------------------------------------------ text rows

/// Realistic secret-free log text of at least `size` bytes: build output,
/// test results, HTTP access lines, stack frames, git SHAs, UUIDs, and a
/// few lines that name keys and passwords without holding any (one in
/// ten; left out without `keywords`). With `long_lines`, one line of 3 000
/// chars every 5 000 lines.
fn clean_log(size: usize, long_lines: bool, keywords: bool, rng: &mut Rng) -> String {
    let crates = [
        "serde_json",
        "tokio",
        "regex",
        "hyper",
        "clap",
        "syn",
        "rand",
        "libc",
    ];
    let words = [
        "parse", "config", "retry", "cache", "render", "upload", "merge", "index",
    ];
    let mut out = String::with_capacity(size + 4096);
    let mut i = 0u64;
    while out.len() < size {
        i += 1;
        if long_lines && i.is_multiple_of(5_000) {
            out.push_str(&"=".repeat(3_000));
            out.push('\n');
            continue;
        }
        let kind = match rng.below(20) {
            15 | 16 if !keywords => 0,
            k => k,
        };
        let line = match kind {
            0..=4 => format!(
                "2025-06-01T12:{:02}:{:02}.{:03}Z INFO  [worker-{}] GET /api/v1/items/{} 200 {}ms {} bytes",
                rng.below(60),
                rng.below(60),
                rng.below(1000),
                rng.below(16),
                rng.below(1_000_000),
                rng.below(900),
                rng.below(100_000)
            ),
            5..=7 => format!(
                "   Compiling {} v{}.{}.{}",
                rng.pick(&crates),
                rng.below(3),
                rng.below(40),
                rng.below(20)
            ),
            8..=10 => format!(
                "test {}::tests::{}_{}_{} ... ok",
                rng.pick(&crates),
                rng.pick(&words),
                rng.pick(&words),
                rng.below(100)
            ),
            11 => format!(
                "warning: unused variable: `{}`\n  --> src/{}.rs:{}:{}",
                rng.pick(&words),
                rng.pick(&words),
                rng.below(900),
                rng.below(80)
            ),
            12 => format!(
                "    at com.example.{}.{}Service.{}(Service.java:{})",
                rng.pick(&words),
                rng.pick(&["User", "Order", "Cart"]),
                rng.pick(&words),
                rng.below(500)
            ),
            13 => format!("commit {}", rng.chars(40, HEX)),
            14 => format!(
                "{}-{}-4{}-a{}-{} job {} finished in {}.{}s",
                rng.chars(8, HEX),
                rng.chars(4, HEX),
                rng.chars(3, HEX),
                rng.chars(3, HEX),
                rng.chars(12, HEX),
                rng.pick(&words),
                rng.below(60),
                rng.below(10)
            ),
            15 => format!(
                "DEBUG cache: lookup key users:{} hit ratio 0.{}",
                rng.below(100_000),
                rng.below(100)
            ),
            16 => format!(
                "INFO  auth: password policy check passed for user {} (session renewed)",
                rng.pick(&["alice", "bob", "carol", "dave"])
            ),
            17 => format!(
                "npm WARN deprecated {}@{}.{}.{}: this library is no longer supported",
                rng.pick(&words),
                rng.below(9),
                rng.below(9),
                rng.below(9)
            ),
            18 => format!(
                "Step {}/{} : RUN apt-get install -y --no-install-recommends {}",
                rng.below(12),
                12,
                rng.pick(&["curl", "git", "build-essential", "ca-certificates"])
            ),
            _ => format!(
                "[{i:>9}] {} {} in {}.{:03}s",
                rng.pick(&words),
                rng.pick(&["finished", "started", "skipped"]),
                rng.below(10),
                rng.below(1000)
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// One line of about 200 bytes per secret, each of a real format and in
/// a realistic context, rotating over a dozen families.
fn dense_text(size: usize, rng: &mut Rng) -> (String, usize) {
    let mut out = String::with_capacity(size + 512);
    let mut planted = 0usize;
    while out.len() < size {
        let secret_line = match rng.below(12) {
            0 => format!("export GITHUB_TOKEN=ghp_{}", rng.chars(36, ALNUM)),
            1 => format!("aws_access_key_id = AKIA{}", rng.chars(16, UPPER_DIGITS)),
            2 => format!(
                "SLACK_BOT_TOKEN=xoxb-{}-{}-{}",
                rng.chars(11, DIGITS),
                rng.chars(12, DIGITS),
                rng.chars(24, ALNUM)
            ),
            3 => format!("stripe.api_key = \"sk_live_{}\"", rng.chars(24, ALNUM)),
            4 => format!(
                "ANTHROPIC_API_KEY=sk-ant-api03-{}AA",
                rng.chars(93, URLSAFE)
            ),
            5 => format!("HF_TOKEN=hf_{}", rng.chars(34, ALNUM)),
            6 => format!(
                "DATABASE_URL=postgres://app:{}@db.internal:5432/prod",
                rng.chars(18, ALNUM)
            ),
            7 => format!(
                "//registry.npmjs.org/:_authToken=npm_{}",
                rng.chars(36, ALNUM)
            ),
            8 => format!("  \"password\": \"{}\",", rng.chars(20, ALNUM)),
            9 => format!(
                "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{}.{}",
                rng.chars(40, URLSAFE),
                rng.chars(43, URLSAFE)
            ),
            10 => format!("GITLAB_TOKEN: glpat-{}", rng.chars(20, URLSAFE)),
            _ => format!("OPENAI_API_KEY=sk-proj-{}", rng.chars(48, URLSAFE)),
        };
        let mut line = format!(
            "[2025-06-01T12:00:{:02}Z] deploy step {}: ",
            rng.below(60),
            rng.below(1000)
        );
        line.push_str(&secret_line);
        line.push(' ');
        while line.len() < 199 {
            line.push_str(" (ok)");
        }
        line.truncate(199);
        line.push('\n');
        out.push_str(&line);
        planted += 1;
    }
    (out, planted)
}

fn redactor() -> Result<Redactor, String> {
    // What the CLI builds: built-in rules plus the secret-looking
    // environment values of this process.
    Redactor::builder()
        .build()
        .map_err(|e| format!("redactor: {e}"))
}

/// A cat-speed copy of the same bytes: through one 128 KiB buffer, as
/// `cat` moves them (no page faults of a fresh output buffer counted).
fn copy_secs(text: &str) -> f64 {
    let mut buf = vec![0u8; 128 * 1024];
    let start = Instant::now();
    for chunk in black_box(text.as_bytes()).chunks(buf.len()) {
        buf[..chunk.len()].copy_from_slice(chunk);
        black_box(&mut buf);
    }
    secs(start)
}

fn row_redact_clean(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(20, 100) * 1_000_000;
    let reps = cfg.pick(5, 7);
    let mut rng = Rng::new();
    let redactor = redactor()?;
    for keywords in [true, false] {
        let text = clean_log(size, false, keywords, &mut rng);
        let label = if keywords {
            "secret-free log text (1 line in 10 names a key or password)"
        } else {
            "secret-free log text without any rule keyword"
        };
        progress(&format!(
            "redacting {} {label} × {reps} reps",
            fmt_mb(text.len() as f64)
        ));
        let mut changed = false;
        let (ours, reference) = interleaved(
            reps,
            || {
                let start = Instant::now();
                let masked = redactor.redact(black_box(&text));
                let t = secs(start);
                changed |= matches!(masked, Cow::Owned(_));
                t
            },
            || copy_secs(&text),
        );
        if changed {
            let (_, stats) = redactor.redact_with_stats(&text);
            out.note(&format!(
                "redaction of {label} masked {} spans (false positives: {:?})",
                stats.redactions, stats.by_rule
            ));
        }
        let (o, r) = (
            mbps(text.len(), median(ours)),
            mbps(text.len(), median(reference)),
        );
        out.row(
            &format!("redaction, {} {label}", fmt_mb(text.len() as f64)),
            &fmt_mbps(o),
            &format!("{} cat-speed copy", fmt_mbps(r)),
            &fmt_ratio(o / r),
            "≥ 1 GB/s",
            verdict(o >= 1000.0),
        );
    }
    Ok(())
}

fn row_redact_dense(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(2, 10) * 1_000_000;
    let reps = cfg.pick(3, 5);
    let mut rng = Rng::new();
    let (text, planted) = dense_text(size, &mut rng);
    let redactor = redactor()?;
    progress(&format!(
        "redacting {} of dense secrets × {reps} reps",
        fmt_mb(text.len() as f64)
    ));
    // The last rep's output is kept (after its clock stopped) to check it.
    let mut last = String::new();
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            let masked = redactor.redact(black_box(&text));
            let t = secs(start);
            last = masked.into_owned();
            t
        },
        || copy_secs(&text),
    );
    let kept: Vec<&str> = last.lines().filter(|l| !l.contains("[REDACTED:")).collect();
    let mut note = format!(
        "secret-dense redaction: {planted} secrets planted (one per 200-byte line, 12 families), {} masks written, lines left unmasked: {}",
        last.matches("[REDACTED:").count(),
        kept.len()
    );
    // The start of the context only: no whole token-shaped string lands in
    // BENCHMARKS.md.
    for line in kept.iter().take(3) {
        let context = line.split_once(": ").map_or(*line, |(_, rest)| rest);
        let shown: String = context.chars().take(28).collect();
        note.push_str(&format!("; e.g. `{shown}…`"));
    }
    out.note(&note);
    let (o, r) = (
        mbps(text.len(), median(ours)),
        mbps(text.len(), median(reference)),
    );
    out.row(
        &format!(
            "redaction, {} secret-dense text (1 secret per 200 bytes)",
            fmt_mb(text.len() as f64)
        ),
        &fmt_mbps(o),
        &format!("({} cat-speed copy)", fmt_mbps(r)),
        &fmt_ratio(o / r),
        "report",
        "report",
    );
    Ok(())
}

/// Mixed Unicode: accents, combining marks, CJK, emoji, CRLF, empty lines,
/// one 3 000-char line every 5 000 lines.
fn unicode_log(size: usize, rng: &mut Rng) -> String {
    let words = [
        "résumé",
        "e\u{301}cole",
        "日本語のテキスト",
        "✓ passed",
        "😀🚀",
        "Ωmega",
        "plain ascii words",
        "naïve café",
    ];
    let mut out = String::with_capacity(size + 16384);
    let mut i = 0u64;
    while out.len() < size {
        i += 1;
        if i.is_multiple_of(5_000) {
            out.push_str(&"ü".repeat(3_000));
        } else if !i.is_multiple_of(17) {
            for _ in 0..(rng.below(9) + 1) {
                out.push_str(rng.pick(&words));
                out.push(' ');
            }
        }
        out.push_str(if i.is_multiple_of(3) { "\r\n" } else { "\n" });
    }
    out
}

fn row_limiter(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(20, 100) * 1_000_000;
    let reps = cfg.pick(5, 7);
    let mut rng = Rng::new();
    // Spilling off: line truncation then middle truncation, the work the
    // limiter itself does.
    let truncating = Limiter::new(Limits::default().spill_floor(usize::MAX));
    let read_view = toolexec_limiter::Context::new(false)
        .reader(Some("read"))
        .reader_view(Some(0));
    for (kind, text) in [
        ("ASCII log", clean_log(size, true, true, &mut rng)),
        ("mixed Unicode", unicode_log(size, &mut rng)),
    ] {
        progress(&format!(
            "limiting {} {kind} × {reps} reps",
            fmt_mb(text.len() as f64)
        ));
        let mut bad = false;
        let (ours, reference) = interleaved(
            reps,
            || {
                let start = Instant::now();
                // The cut alone (a `read` view: no spill file for the middle).
                let limited = truncating.limit_with(black_box(&text), &read_view);
                let t = secs(start);
                bad |= limited.content.len() > 40_000 || limited.spill_path.is_some();
                t
            },
            || copy_secs(&text),
        );
        if bad {
            return Err(format!(
                "the limiter's {kind} output was not middle-truncated"
            ));
        }
        let (o, r) = (
            mbps(text.len(), median(ours)),
            mbps(text.len(), median(reference)),
        );
        let ascii = kind == "ASCII log";
        out.row(
            &format!("limiter, {} {kind} (truncate)", fmt_mb(text.len() as f64)),
            &fmt_mbps(o),
            &format!("{} cat-speed copy", fmt_mbps(r)),
            &fmt_ratio(o / r),
            if ascii { "≥ 1 GB/s" } else { "report" },
            if ascii {
                verdict(o >= 1000.0)
            } else {
                "report"
            },
        );
    }

    // Default settings: the whole result goes to a spill file.
    let text = clean_log(size, true, true, &mut rng);
    let scratch = temp_dir("spill")?;
    let spilling = Limiter::new(Limits::default().scratch_dir(scratch.path()));
    let reference_path = scratch.path().join("reference.txt");
    progress(&format!(
        "spilling {} × {reps} reps",
        fmt_mb(text.len() as f64)
    ));
    let failures = RefCell::new(Vec::new());
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            let limited = spilling.limit(black_box(&text), false);
            let t = secs(start);
            match limited.spill_path {
                Some(path) => {
                    let _ = fs::remove_file(path);
                }
                None => failures
                    .borrow_mut()
                    .push(format!("not spilled: {:?}", limited.spill_error)),
            }
            t
        },
        || {
            let start = Instant::now();
            let written = fs::write(&reference_path, black_box(text.as_bytes()));
            let t = secs(start);
            let _ = fs::remove_file(&reference_path);
            if let Err(e) = written {
                failures.borrow_mut().push(format!("reference write: {e}"));
            }
            t
        },
    );
    if let Some(first) = failures.into_inner().into_iter().next() {
        return Err(first);
    }
    let (o, r) = (
        mbps(text.len(), median(ours)),
        mbps(text.len(), median(reference)),
    );
    out.row(
        &format!(
            "limiter, {} ASCII log spilled (default limits)",
            fmt_mb(text.len() as f64)
        ),
        &fmt_mbps(o),
        &format!("{} fs::write of the same bytes", fmt_mbps(r)),
        &fmt_ratio(o / r),
        "report",
        "report",
    );
    Ok(())
}

// ------------------------------------------------------------------ peak-memory rows

fn vm_hwm_kib() -> Result<u64, String> {
    let status = fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| "no VmHWM in /proc/self/status".to_string())
}

/// Runs in a fresh process; prints `PROBE\tHWM_KIB\tDETAIL`.
fn probe(kind: &str, arg: u64) -> Result<(), String> {
    match kind {
        "limiter-truncate" | "limiter-spill" => {
            let mut rng = Rng::new();
            let text = clean_log(arg as usize, true, true, &mut rng);
            let scratch = temp_dir("rss")?;
            let limits = Limits::default().scratch_dir(scratch.path());
            let limiter = Limiter::new(if kind == "limiter-spill" {
                limits
            } else {
                limits.spill_floor(usize::MAX)
            });
            let limited = if kind == "limiter-spill" {
                limiter.limit(&text, false)
            } else {
                // The cut alone (a `read` view: no spill file for the middle).
                let view = toolexec_limiter::Context::new(false)
                    .reader(Some("read"))
                    .reader_view(Some(0));
                limiter.limit_with(&text, &view)
            };
            let hwm = vm_hwm_kib()?;
            if kind == "limiter-spill" && limited.spill_path.is_none() {
                return Err(format!("not spilled: {:?}", limited.spill_error));
            }
            println!("PROBE\t{hwm}\t{}", text.len());
            Ok(())
        }
        "exec" => {
            let rt = runtime()?;
            let dir = temp_dir("exec-rss")?;
            let builtin = toolexec_tools::builtin_tools(&toolexec_tools::BuiltinConfig::default());
            let executor = Executor::builder(dir.path())
                .tools(builtin.tools)
                .observer(builtin.tracker)
                .build()
                .map_err(|e| format!("executor: {e}"))?;
            let input = json!({"command": format!("yes | head -c {arg}")}).to_string();
            let results = rt.block_on(executor.run_batch(
                vec![ToolCall::new("1", "exec", input)],
                &BatchOptions::new(),
            ));
            let hwm = vm_hwm_kib()?;
            let Some(result) = results.first() else {
                return Err("no result".to_string());
            };
            if result.is_error {
                return Err(format!("exec failed: {}", result.content));
            }
            let text = match &result.spill_path {
                Some(path) => fs::read_to_string(path).map_err(|e| format!("spill file: {e}"))?,
                None => result.content.clone(),
            };
            if !text.trim_end().ends_with("exit status: 0") {
                return Err(format!(
                    "unexpected exec output ending {:?}",
                    text.chars().rev().take(80).collect::<String>()
                ));
            }
            if let Some(path) = &result.spill_path {
                let _ = fs::remove_file(path);
            }
            println!("PROBE\t{hwm}\t{arg}");
            Ok(())
        }
        "mcp-serve" => {
            // The MCP server of the mcp-stdio row, on this process's stdio.
            let rt = runtime()?;
            let workspace = tempfile::tempdir().map_err(|e| e.to_string())?;
            let executor = noop_executor(workspace.path())?;
            rt.block_on(toolexec_mcp::serve(
                executor,
                toolexec_mcp::Transport::Stdio,
            ))
            .map_err(|e| e.to_string())?;
            Ok(())
        }
        "mcp-proxy" => {
            // The proxy of the mcp-proxy row (its child contained in a PID
            // namespace) in front of the mcp-serve probe, on this
            // process's stdio.
            let rt = runtime()?;
            let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
            let mut command = std::process::Command::new(exe);
            command.args(["--probe", "mcp-serve"]);
            rt.block_on(
                toolexec_mcp::Proxy::builder(command).serve(toolexec_mcp::Transport::Stdio),
            )
            .map_err(|e| e.to_string())?;
            Ok(())
        }
        "redact-input" => {
            // The redaction rows' inputs on stdout, for profiling the
            // redactor on them outside the harness (`--arg`: 0 keyword log,
            // 1 keyword-free log, 2 JSON, 3 JSON on one line, 4 Rust
            // sources, 5 secret-dense text; 5 MB each, 20 MB of sources).
            let mut rng = Rng::new();
            let mb = 1_000_000;
            let text = match arg {
                0 => keyword_log(5 * mb, true, &mut rng),
                1 => keyword_log(5 * mb, false, &mut rng),
                2 => json_responses(5 * mb, &mut rng),
                3 => format!(
                    "[{}]",
                    json_responses(5 * mb, &mut rng)
                        .trim_end()
                        .replace('\n', ",")
                ),
                4 => registry_sources(20 * mb).ok_or("no sources in the cargo registry")?,
                5 => dense_text(5 * mb, &mut rng).0,
                _ => return Err(format!("no redaction input {arg}")),
            };
            use std::io::Write as _;
            std::io::stdout()
                .write_all(text.as_bytes())
                .map_err(|e| e.to_string())
        }
        _ => Err(format!("unknown probe {kind:?}")),
    }
}

/// Runs `--probe KIND ARG` in `reps` fresh processes; the median VmHWM in
/// bytes.
fn probe_median(kind: &str, arg: u64, reps: usize) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut peaks = Vec::with_capacity(reps);
    for _ in 0..reps {
        let output = Command::new(&exe)
            .args(["--probe", kind, "--arg", &arg.to_string()])
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("cannot start probe: {e}"))?;
        if !output.status.success() {
            return Err(format!("probe {kind} failed ({})", output.status));
        }
        let text = String::from_utf8_lossy(&output.stdout);
        let kib: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("PROBE\t"))
            .and_then(|l| l.split('\t').next())
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("probe {kind} printed no figure"))?;
        peaks.push(kib as f64 * 1024.0);
    }
    Ok(median(peaks))
}

fn row_limiter_rss(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(20, 100) * 1_000_000;
    let reps = 3;
    for (kind, label) in [("limiter-truncate", "truncate"), ("limiter-spill", "spill")] {
        progress(&format!(
            "{label}: {reps} processes of {}",
            fmt_mb(size as f64)
        ));
        let peak = probe_median(kind, size as u64, reps)?;
        let ratio = peak / size as f64;
        out.row(
            &format!(
                "limiter peak RSS, {} ASCII log ({label})",
                fmt_mb(size as f64)
            ),
            &fmt_mb(peak),
            &format!("{} input", fmt_mb(size as f64)),
            &fmt_ratio(ratio),
            "≤ 2× input",
            verdict(ratio <= 2.0),
        );
    }
    out.note("peak RSS is the process's VmHWM after the call, input included (median of 3 fresh processes)");
    Ok(())
}

fn row_exec_spawn(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(60, 300);
    let rt = runtime()?;
    let dir = temp_dir("exec")?;
    let tool = ExecTool::new(ExecConfig::default());
    let failures = Cell::new(0usize);
    progress(&format!("exec `true` vs sh -c true × {reps} reps"));
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            let result = rt.block_on(tool.call(
                json!({"command": "true"}),
                ToolContext::new(dir.path(), "b"),
            ));
            let t = secs(start);
            if !matches!(&result, Ok(s) if s.ends_with("exit status: 0")) {
                failures.set(failures.get() + 1);
            }
            t
        },
        || {
            let start = Instant::now();
            let output = Command::new("sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output();
            let t = secs(start);
            if !matches!(&output, Ok(o) if o.status.success()) {
                failures.set(failures.get() + 1);
            }
            t
        },
    );
    if failures.get() > 0 {
        return Err(format!("{} spawns failed", failures.get()));
    }
    // Where the difference goes: tokio's process support with the options
    // exec sets (own process group, filtered environment, piped output).
    let config = ExecConfig::default();
    let env = config.child_env(std::env::vars_os());
    let mut tokio_times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        let output = rt.block_on(async {
            tokio::process::Command::new("sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .env_clear()
                .envs(env.iter().cloned())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true)
                .output()
                .await
        });
        tokio_times.push(secs(start));
        if !matches!(&output, Ok(o) if o.status.success()) {
            return Err("tokio spawn of sh -c true failed".to_string());
        }
    }
    out.note(&format!(
        "exec spawn: `sh -c true` through tokio::process with exec's options (process group, filtered env, pipes) takes {} at the median",
        fmt_time(median(tokio_times))
    ));
    let (o, r) = (median(ours), median(reference));
    out.row(
        "exec spawn of `true` (tool called directly)",
        &format!("{}/call", fmt_time(o)),
        &format!("{} sh -c true via std::process", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 1.5×",
        verdict(o / r <= 1.5),
    );
    Ok(())
}

fn row_exec_rss(_cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let bytes = 1_000_000_000u64;
    let reps = 3;
    progress(&format!(
        "{reps} processes running `yes | head -c {bytes}` through the executor"
    ));
    let peak = probe_median("exec", bytes, reps)?;
    out.row(
        "exec capture of 1 GB (`yes | head -c 1e9`, full executor), peak RSS",
        &fmt_mb(peak),
        "—",
        "—",
        "< 64 MB",
        verdict(peak < 64e6),
    );
    Ok(())
}

// ------------------------------------------------------------------ grep

/// 100 directories of 100 files of 40 lines; about one file in 97 holds a
/// `needle_N` line.
fn grep_tree(root: &Path, rng: &mut Rng) -> Result<usize, String> {
    let mut needles = 0usize;
    for d in 0..100 {
        let sub = root.join(format!("dir{d:03}"));
        fs::create_dir_all(&sub).map_err(|e| format!("mkdir {}: {e}", sub.display()))?;
        for f in 0..100 {
            let mut text = String::with_capacity(2400);
            let needle = rng.below(97) == 0;
            for line in 0..40 {
                if needle && line == 20 {
                    text.push_str(&format!(
                        "    let needle_{} = compute({line});\n",
                        rng.below(1000)
                    ));
                    needles += 1;
                } else {
                    text.push_str(&format!(
                        "    let value_{line} = some_function(argument_{line}, {});\n",
                        rng.below(100_000)
                    ));
                }
            }
            fs::write(sub.join(format!("file{f:03}.rs")), text)
                .map_err(|e| format!("write: {e}"))?;
        }
    }
    Ok(needles)
}

fn row_grep(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(7, 21);
    let mut rng = Rng::new();
    let dir = temp_dir("grep")?;
    let root: PathBuf = dir.path().to_path_buf();
    let needles = grep_tree(&root, &mut rng)?;
    let rt = runtime()?;
    let tool = Arc::new(GrepTool::new());
    let wrong = RefCell::new(Vec::new());
    progress(&format!(
        "grep tool vs grep -rn on 10 000 files × {reps} reps"
    ));
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            let result = rt.block_on(tool.call(
                json!({"pattern": "needle_[0-9]+", "max_results": 10_000}),
                ToolContext::new(&root, "b"),
            ));
            let t = secs(start);
            let n = result.as_ref().map(|s| s.lines().count()).unwrap_or(0);
            if n != needles {
                wrong
                    .borrow_mut()
                    .push(format!("grep tool found {n} lines, expected {needles}"));
            }
            t
        },
        || {
            let start = Instant::now();
            let output = Command::new("grep")
                .args(["-rnE", "needle_[0-9]+", "."])
                .current_dir(&root)
                .stdin(Stdio::null())
                .output();
            let t = secs(start);
            let n = output
                .as_ref()
                .map(|o| o.stdout.iter().filter(|&&b| b == b'\n').count())
                .unwrap_or(0);
            if n != needles {
                wrong
                    .borrow_mut()
                    .push(format!("grep -rn found {n} lines, expected {needles}"));
            }
            t
        },
    );
    if let Some(first) = wrong.into_inner().into_iter().next() {
        return Err(first);
    }
    let (o, r) = (median(ours), median(reference));
    out.row(
        &format!("grep, 10 000-file tree ({needles} matches)"),
        &fmt_time(o),
        &format!("{} grep -rn", fmt_time(r)),
        &fmt_ratio(o / r),
        "report",
        "report",
    );
    Ok(())
}

// ------------------------------------------------------------------ MCP

/// The executor of the MCP rows: the no-op tool, the default chain without
/// the snapshot stage.
fn noop_executor(dir: &Path) -> Result<Executor, String> {
    Executor::builder(dir)
        .tool(Noop(path_schema()))
        .snapshot(None)
        .build()
        .map_err(|e| format!("executor: {e}"))
}

/// Median seconds of one direct `Executor::run_call` of the no-op tool.
fn direct_call_secs(rt: &tokio::runtime::Runtime, executor: &Executor, n: usize) -> f64 {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let call = ToolCall::new(i.to_string(), "noop", r#"{"path":"src/main.rs"}"#);
        let start = Instant::now();
        let r = rt.block_on(executor.run_call(call, &BatchOptions::new()));
        times.push(secs(start));
        black_box(r);
    }
    median(times)
}

fn mcp_row(out: &mut Out, what: &str, per_ours: f64, per_ref: f64, goal: Option<f64>) {
    let added = per_ours - per_ref;
    out.row(
        what,
        &format!("{}/call ({})", fmt_time(per_ours), fmt_added(added)),
        &format!("{}/call executor directly", fmt_time(per_ref)),
        &fmt_ratio(per_ours / per_ref),
        goal.map_or("report", |_| "≤ 200 µs added"),
        match goal {
            Some(g) => verdict(added <= g),
            None => "report",
        },
    );
}

fn row_mcp_stdio(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    use rmcp::ServiceExt;
    let n = cfg.pick(300, 2_000);
    let rt = runtime()?;
    let dir = temp_dir("mcp-stdio")?;
    let executor = noop_executor(dir.path())?;
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    progress(&format!("{n} tools/call round trips over stdio"));
    let per_ours = rt.block_on(async {
        let mut child = tokio::process::Command::new(&exe)
            .args(["--probe", "mcp-serve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("spawn the server: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no pipes".to_string());
        };
        let client = ().serve((stdout, stdin)).await.map_err(|e| format!("handshake: {e}"))?;
        let mut times = Vec::with_capacity(n);
        for i in 0..n + 20 {
            let mut params = rmcp::model::CallToolRequestParams::new("noop");
            params.arguments = json!({"path": "src/main.rs"}).as_object().cloned();
            let start = Instant::now();
            let r = client
                .peer()
                .call_tool(params)
                .await
                .map_err(|e| format!("call: {e}"))?;
            let t = secs(start);
            if r.is_error == Some(true) {
                return Err(format!("the call failed: {r:?}"));
            }
            if i >= 20 {
                times.push(t);
            }
        }
        let _ = client.cancel().await;
        let _ = child.wait().await;
        Ok::<_, String>(median(times))
    })?;
    let per_ref = direct_call_secs(&rt, &executor, n);
    mcp_row(
        out,
        "MCP round trip of a no-op tools/call over stdio (rmcp client, `toolexec_mcp::serve` in a child process)",
        per_ours,
        per_ref,
        Some(200e-6),
    );
    Ok(())
}

/// Starts `exe --probe PROBE` as an MCP server on stdio and makes `n` no-op
/// tools/call round trips (after 20 warm-up calls): the median per call,
/// and the time from spawn to a listed tool set.
async fn stdio_round_trips(
    exe: &std::path::Path,
    probe: &str,
    n: usize,
) -> Result<(f64, f64), String> {
    use rmcp::ServiceExt;
    let start = Instant::now();
    let mut child = tokio::process::Command::new(exe)
        .args(["--probe", probe])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawn the server: {e}"))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("no pipes".to_string());
    };
    let client = ().serve((stdout, stdin)).await.map_err(|e| format!("handshake: {e}"))?;
    client
        .peer()
        .list_all_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let started = secs(start);
    let mut times = Vec::with_capacity(n);
    for i in 0..n + 20 {
        let mut params = rmcp::model::CallToolRequestParams::new("noop");
        params.arguments = json!({"path": "src/main.rs"}).as_object().cloned();
        let start = Instant::now();
        let r = client
            .peer()
            .call_tool(params)
            .await
            .map_err(|e| format!("call: {e}"))?;
        let t = secs(start);
        if r.is_error == Some(true) {
            return Err(format!("the call failed: {r:?}"));
        }
        if i >= 20 {
            times.push(t);
        }
    }
    let _ = client.cancel().await;
    let _ = child.wait().await;
    Ok((median(times), started))
}

fn row_mcp_proxy(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let n = cfg.pick(300, 2_000);
    let starts = cfg.pick(5, 15);
    let rt = runtime()?;
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    progress(&format!(
        "{n} tools/call round trips through the proxy and straight to the server"
    ));
    let (proxied, direct) = rt.block_on(async {
        let (proxied, _) = stdio_round_trips(&exe, "mcp-proxy", n).await?;
        let (direct, _) = stdio_round_trips(&exe, "mcp-serve", n).await?;
        Ok::<_, String>((proxied, direct))
    })?;
    out.row(
        "proxy round trip of a no-op tools/call over stdio (rmcp client → `Proxy` → `serve`, each in a child process)",
        &format!("{}/call ({})", fmt_time(proxied), fmt_added(proxied - direct)),
        &format!("{}/call to the server directly", fmt_time(direct)),
        &fmt_ratio(proxied / direct),
        "report",
        "report",
    );
    progress(&format!("{starts} proxy and server start-ups"));
    let (proxy_start, server_start) = rt.block_on(async {
        let mut proxy = Vec::new();
        let mut server = Vec::new();
        for _ in 0..starts {
            proxy.push(stdio_round_trips(&exe, "mcp-proxy", 0).await?.1);
            server.push(stdio_round_trips(&exe, "mcp-serve", 0).await?.1);
        }
        Ok::<_, String>((median(proxy), median(server)))
    })?;
    out.row(
        "proxy start-up: spawn, contained child (PID namespace), both handshakes, tools/list",
        &fmt_time(proxy_start),
        &format!("{} the server alone", fmt_time(server_start)),
        &fmt_ratio(proxy_start / server_start),
        "report",
        "report",
    );
    Ok(())
}

/// One HTTP/1.1 POST on a kept-alive connection; the response's head and
/// body (chunked SSE or plain) as text.
async fn http_post(
    stream: &mut tokio::net::TcpStream,
    addr: &str,
    session: Option<&str>,
    body: &str,
) -> Result<(String, String), String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        request.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut chunk).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("connection closed".to_string());
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        let Some((head, rest)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let head_l = head.to_ascii_lowercase();
        if let Some(len) = head_l
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            if rest.len() >= len {
                return Ok((head.to_string(), rest.to_string()));
            }
        } else if rest.ends_with("0\r\n\r\n") {
            return Ok((head.to_string(), rest.to_string()));
        }
    }
}

fn row_mcp_http(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let n = cfg.pick(300, 2_000);
    let rt = runtime()?;
    let dir = temp_dir("mcp-http")?;
    let executor = noop_executor(dir.path())?;
    progress(&format!("{n} tools/call round trips over Streamable HTTP"));
    let per_ours = rt.block_on(async {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let tx = std::sync::Mutex::new(Some(tx));
        let options = toolexec_mcp::HttpOptions::new(([127, 0, 0, 1], 0).into()).on_listening(
            move |addr| {
                if let Some(tx) = tx.lock().ok().and_then(|mut t| t.take()) {
                    let _ = tx.send(addr);
                }
            },
        );
        let stop = tokio_util::sync::CancellationToken::new();
        let server = toolexec_mcp::Server::new(executor.clone()).shutdown_on(stop.clone());
        let serving = tokio::spawn(server.serve(toolexec_mcp::Transport::Http(options)));
        let addr = rx.await.map_err(|_| "the server did not listen".to_string())?.to_string();
        let mut stream = tokio::net::TcpStream::connect(&addr).await.map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (head, _) = http_post(
            &mut stream,
            &addr,
            None,
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#,
        )
        .await?;
        let session = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("mcp-session-id").then(|| v.trim().to_string())
            })
            .ok_or("no session id")?;
        http_post(&mut stream, &addr, Some(&session), r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await?;
        let mut times = Vec::with_capacity(n);
        for i in 1..=n + 20 {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"noop","arguments":{{"path":"src/main.rs"}}}}}}"#
            );
            let start = Instant::now();
            let (_, reply) = http_post(&mut stream, &addr, Some(&session), &body).await?;
            let t = secs(start);
            if !reply.contains(r#"\"isError\":false"#) && !reply.contains(r#""isError":false"#) {
                return Err(format!("unexpected reply: {reply}"));
            }
            if i > 20 {
                times.push(t);
            }
        }
        stop.cancel();
        let _ = serving.await;
        Ok::<_, String>(median(times))
    })?;
    let per_ref = direct_call_secs(&rt, &executor, n);
    mcp_row(
        out,
        "MCP round trip of a no-op tools/call over Streamable HTTP (one kept-alive connection, SSE replies)",
        per_ours,
        per_ref,
        None,
    );
    Ok(())
}

// ------------------------------------------------------------------ shell classifier row

// The table of tools-builtin's classifier test: `SHELL_TABLE`.
include!("../../tools-builtin/tests/data/shell_table.rs");

/// The read-only classifier that decides whether an exec call may run
/// concurrently: median time per command over the test table, against
/// one spawn of `sh -c true` (what the call costs anyway).
fn row_shell_classifier(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(30, 200);
    let rounds = cfg.pick(20, 100);
    let dir = temp_dir("shell")?;
    let commands = SHELL_TABLE.len();
    let wrong = SHELL_TABLE
        .iter()
        .filter(|(c, safe)| toolexec_tools::shell::is_read_only(black_box(c)) != *safe)
        .count();
    if wrong > 0 {
        return Err(format!("{wrong} commands misclassified"));
    }
    progress(&format!(
        "classify {commands} commands × {rounds} rounds vs sh -c true × {reps} reps"
    ));
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            for _ in 0..rounds {
                for (command, _) in SHELL_TABLE {
                    black_box(toolexec_tools::shell::is_read_only(black_box(command)));
                }
            }
            secs(start) / (rounds * commands) as f64
        },
        || {
            let start = Instant::now();
            let _ = Command::new("sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            secs(start)
        },
    );
    let (ours, reference) = (median(ours), median(reference));
    out.row(
        &format!("exec read-only classifier, per command ({commands} commands)"),
        &fmt_time(ours),
        &format!("{} (spawn of sh -c true)", fmt_time(reference)),
        &fmt_ratio(ours / reference),
        "≤ 5 µs",
        verdict(ours <= 5e-6),
    );
    Ok(())
}

// ------------------------------------------------------------------ formats row

/// Converting a 100-call OpenAI assistant message to calls and the results
/// back to tool messages, against the executor's own time for the same
/// 100 no-op calls (full chain without snapshot). The goal row is the
/// typed path (the API's tool-call items as an SDK holds them, moved into
/// calls; the results moved into the tool messages); the `Value` paths
/// (taken apart by value, or borrowed with the strings copied) and the
/// JSON text parse + serialise are reported on their own.
fn row_formats_openai(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    use toolexec_core::formats::{openai_calls, openai_results, ChatToolCall, OpenAiApi};
    const CALLS: usize = 100;
    let reps = cfg.pick(50, 300);
    let rt = runtime()?;
    let dir = temp_dir("formats")?;
    let executor = Executor::builder(dir.path())
        .tool(Noop(path_schema()))
        .snapshot(None)
        .build()
        .map_err(|e| format!("executor: {e}"))?;
    let mut rng = Rng::new();
    let message = json!({
        "role": "assistant",
        "content": null,
        "tool_calls": (0..CALLS).map(|_| json!({
            "id": format!("call_{}", rng.chars(24, ALNUM)),
            "type": "function",
            "function": {"name": "noop", "arguments": "{\"path\":\"src/main.rs\"}"}
        })).collect::<Vec<_>>()
    });
    let text = message.to_string();
    let batch = openai_calls(&message).map_err(|e| e.to_string())?;
    let results = rt.block_on(executor.run_batch(batch.calls.clone(), &BatchOptions::new()));
    if results.iter().any(|r| r.is_error) {
        return Err("the executor refused a call".to_string());
    }
    progress(&format!(
        "{CALLS}-call message × {reps} reps, conversion vs run_batch"
    ));
    let typed: Vec<ChatToolCall> =
        serde_json::from_value(message["tool_calls"].clone()).map_err(|e| e.to_string())?;
    let bad = Cell::new(0usize);
    let (ours, reference) = interleaved(
        reps,
        || {
            // The inputs the agent hands over (its SDK's tool calls, the
            // executor's results), made outside the timed part.
            let (typed, results) = (typed.clone(), results.clone());
            let start = Instant::now();
            let calls: Vec<ToolCall> = black_box(typed).into_iter().map(ToolCall::from).collect();
            let reply = openai_results(OpenAiApi::ChatCompletions, black_box(results));
            let t = secs(start);
            if calls.len() != CALLS || reply.len() != CALLS {
                bad.set(bad.get() + 1);
            }
            t
        },
        || {
            let calls = batch.calls.clone();
            let start = Instant::now();
            let results = rt.block_on(executor.run_batch(calls, &BatchOptions::new()));
            let t = secs(start);
            if results.len() != CALLS {
                bad.set(bad.get() + 1);
            }
            t
        },
    );
    // The parsed `Value` taken apart, the results moved.
    let mut owned = Vec::with_capacity(reps);
    // Borrowed: the message stays whole (an agent's history), strings copied.
    let mut borrowed = Vec::with_capacity(reps);
    // From and to JSON text, parsing and printing included.
    let mut text_times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (value, moved) = (message.clone(), results.clone());
        let start = Instant::now();
        let got = openai_calls(black_box(value)).map(|b| b.calls.len());
        let reply = openai_results(batch.api, black_box(moved));
        owned.push(secs(start));
        if got != Ok(CALLS) || reply.len() != CALLS {
            bad.set(bad.get() + 1);
        }
        let start = Instant::now();
        let got = openai_calls(black_box(&message)).map(|b| b.calls.len());
        let reply = openai_results(batch.api, black_box(&results));
        borrowed.push(secs(start));
        if got != Ok(CALLS) || reply.len() != CALLS {
            bad.set(bad.get() + 1);
        }
        let results = results.clone();
        let start = Instant::now();
        let value: Value = serde_json::from_str(black_box(&text)).map_err(|e| e.to_string())?;
        let calls = openai_calls(value).map_err(|e| e.to_string())?;
        let reply = serde_json::to_string(&openai_results(calls.api, results))
            .map_err(|e| e.to_string())?;
        black_box(reply);
        text_times.push(secs(start));
    }
    if bad.get() > 0 {
        return Err(format!(
            "{} rounds gave the wrong number of calls",
            bad.get()
        ));
    }
    let (ours, reference) = (median(ours), median(reference));
    let ratio = ours / reference;
    out.row(
        &format!(
            "OpenAI tool calls → calls → tool messages ({CALLS} calls, typed: strings moved both ways)"
        ),
        &fmt_time(ours),
        &format!(
            "{} run_batch of the same {CALLS} no-op calls",
            fmt_time(reference)
        ),
        &format!("{:.2} %", ratio * 100.0),
        "≤ 1 % of the batch",
        verdict(ratio <= 0.01),
    );
    let owned = median(owned);
    out.row(
        &format!(
            "the same from the parsed message as a serde_json::Value, taken apart ({CALLS} calls)"
        ),
        &fmt_time(owned),
        &format!("{} run_batch", fmt_time(reference)),
        &format!("{:.2} %", owned / reference * 100.0),
        "report",
        "report",
    );
    let borrowed = median(borrowed);
    out.row(
        &format!("the same, borrowed (message kept, strings copied; {CALLS} calls)"),
        &fmt_time(borrowed),
        &format!("{} run_batch", fmt_time(reference)),
        &format!("{:.2} %", borrowed / reference * 100.0),
        "report",
        "report",
    );
    let text_time = median(text_times);
    // What the typed row cannot avoid: the results' `name` strings, which
    // no message carries, are freed. Dropping the 100 names alone:
    let mut names = Vec::with_capacity(reps);
    for _ in 0..reps {
        let owned: Vec<String> = results.iter().map(|r| r.name.clone()).collect();
        let start = Instant::now();
        drop(black_box(owned));
        names.push(secs(start));
    }
    out.note(&format!(
        "formats-openai: of the typed row, freeing the {CALLS} results' names (not carried by any message) alone takes {}.",
        fmt_time(median(names))
    ));
    out.row(
        &format!(
            "the same from and to JSON text ({} bytes in; parse + serialise included)",
            text.len()
        ),
        &fmt_time(text_time),
        &format!("{} run_batch", fmt_time(reference)),
        &format!("{:.2} %", text_time / reference * 100.0),
        "report",
        "report",
    );
    Ok(())
}

/// exec of `true` in the default sandbox (workspace-write, network denied:
/// user, PID, mount, IPC and network namespaces, a fresh /proc, Landlock)
/// against `sh -c true` spawned directly; notes the unsandboxed exec
/// (policy `off` where namespaces are not available is the old process
/// group path: measured here as exec's tokio spawn with its options) and
/// the sandbox's set-up alone (`Sandbox::apply`: the Landlock ruleset).
fn row_exec_sandbox(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    use toolexec_tools::sandbox::{Sandbox, SandboxPolicy};
    let reps = cfg.pick(60, 300);
    let rt = runtime()?;
    let dir = temp_dir("exec-sandbox")?;
    let sandboxed = ExecTool::new(ExecConfig::default().sandbox(Sandbox::default()));
    let off = ExecTool::new(ExecConfig::default().sandbox(Sandbox::new(SandboxPolicy::Off)));
    let failures = Cell::new(0usize);
    let call = |tool: &ExecTool| {
        let start = Instant::now();
        let result = rt.block_on(tool.call(
            json!({"command": "true"}),
            ToolContext::new(dir.path(), "b"),
        ));
        let t = secs(start);
        if !matches!(&result, Ok(s) if s.ends_with("exit status: 0")) {
            failures.set(failures.get() + 1);
        }
        t
    };
    progress(&format!(
        "sandboxed exec `true` vs sh -c true × {reps} reps"
    ));
    let (ours, reference) = interleaved(
        reps,
        || call(&sandboxed),
        || {
            let start = Instant::now();
            let output = Command::new("sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .output();
            let t = secs(start);
            if !matches!(&output, Ok(o) if o.status.success()) {
                failures.set(failures.get() + 1);
            }
            t
        },
    );
    let off_times: Vec<f64> = (0..reps).map(|_| call(&off)).collect();
    if failures.get() > 0 {
        return Err(format!("{} spawns failed", failures.get()));
    }
    // The set-up before the spawn, alone.
    let sandbox = Sandbox::default();
    let mut setup = Vec::with_capacity(reps);
    for _ in 0..reps {
        let mut cmd = Command::new("true");
        let start = Instant::now();
        let applied = sandbox.apply(&mut cmd, dir.path());
        setup.push(secs(start));
        applied.map_err(|e| e.to_string())?;
    }
    // The unsandboxed path exec had before: tokio spawn with its options.
    let env = ExecConfig::default().child_env(std::env::vars_os());
    let mut plain = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = Instant::now();
        let output = rt.block_on(async {
            tokio::process::Command::new("sh")
                .args(["-c", "true"])
                .current_dir(dir.path())
                .env_clear()
                .envs(env.iter().cloned())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .process_group(0)
                .kill_on_drop(true)
                .output()
                .await
        });
        plain.push(secs(start));
        if !matches!(&output, Ok(o) if o.status.success()) {
            return Err("tokio spawn of sh -c true failed".to_string());
        }
    }
    let (o, r) = (median(ours), median(reference));
    let (off_m, setup_m, plain_m) = (median(off_times), median(setup), median(plain));
    out.note(&format!(
        "exec sandbox: exec `true` with --sandbox off (PID-namespace containment only) {}/call; \
         unsandboxed spawn with exec's options (tokio, process group, pipes) {}; \
         Sandbox::apply (Landlock ruleset, pipes) {}; added by the sandbox over the unsandboxed spawn {}",
        fmt_time(off_m),
        fmt_time(plain_m),
        fmt_time(setup_m),
        fmt_time(o - plain_m),
    ));
    out.row(
        "exec spawn of `true` in the sandbox (workspace-write, network off)",
        &format!("{}/call", fmt_time(o)),
        &format!("{} sh -c true via std::process", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 2.0×, set-up ≤ 2 ms",
        verdict(o / r <= 2.0 && o - plain_m <= 0.002),
    );
    Ok(())
}

// ------------------------------------------------------------------ jail (issue 14)

/// The pre-issue-14 read, by path after the same `Jail::resolve` check:
/// `metadata`, `open`, read the lines, number them.
fn legacy_read(root: &Path, rel: &str) -> Result<String, String> {
    let jail = toolexec_tools::Jail::new(root).map_err(|e| e.to_string())?;
    let path = jail.resolve(rel).map_err(|e| e.to_string())?;
    let meta = fs::metadata(&path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a file".into());
    }
    let text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let _ = fs::canonicalize(&path).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len() + 8 * 200);
    for (i, line) in text.lines().take(2000).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>6}\t{line}", i + 1));
    }
    Ok(out)
}

/// The pre-issue-14 atomic write, by path after `Jail::resolve`.
fn legacy_write(root: &Path, rel: &str, content: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let jail = toolexec_tools::Jail::new(root).map_err(|e| e.to_string())?;
    let path = jail.resolve(rel).map_err(|e| e.to_string())?;
    let parent = path.parent().ok_or("no parent")?;
    fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    let permissions = fs::metadata(&path).ok().map(|m| m.permissions());
    let tmp = parent.join(format!(".legacy-{}.tmp", std::process::id()));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(&tmp)
        .map_err(|e| e.to_string())?;
    file.write_all(content).map_err(|e| e.to_string())?;
    if let Some(p) = permissions {
        file.set_permissions(p).map_err(|e| e.to_string())?;
    }
    file.sync_all().map_err(|e| e.to_string())?;
    drop(file);
    fs::rename(&tmp, &path).map_err(|e| e.to_string())?;
    let _ = fs::canonicalize(&path);
    Ok(())
}

fn jail_text(lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "    let value_{i} = some_function(argument_{i}, {});\n",
                i * 7
            )
        })
        .collect()
}

/// Runs `calls` tool calls per rep and reports the per-call median
/// against the legacy closure doing the same job by path.
fn jail_row(
    out: &mut Out,
    what: &str,
    reps: usize,
    calls: usize,
    mut ours: impl FnMut(usize) -> Result<(), String>,
    mut legacy: impl FnMut(usize) -> Result<(), String>,
) -> Result<(), String> {
    let failure = RefCell::new(None::<String>);
    let round = Cell::new(0usize);
    let (a, b) = interleaved(
        reps,
        || {
            let base = round.get() * calls;
            round.set(round.get() + 1);
            let start = Instant::now();
            for i in 0..calls {
                if let Err(e) = ours(base + i) {
                    failure.borrow_mut().get_or_insert(e);
                }
            }
            secs(start) / calls as f64
        },
        || {
            let base = round.get() * calls;
            round.set(round.get() + 1);
            let start = Instant::now();
            for i in 0..calls {
                if let Err(e) = legacy(base + i) {
                    failure.borrow_mut().get_or_insert(e);
                }
            }
            secs(start) / calls as f64
        },
    );
    if let Some(e) = failure.into_inner() {
        return Err(e);
    }
    let (o, r) = (median(a), median(b));
    out.row(
        what,
        &fmt_time(o),
        &format!("{} by path (pre-jail)", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 1.2×",
        verdict(o / r <= 1.2),
    );
    Ok(())
}

fn row_jail_read(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let (reps, calls) = (cfg.pick(5, 15), cfg.pick(200, 1000));
    let dir = temp_dir("jail-read")?;
    let root = dir.path().to_path_buf();
    fs::create_dir_all(root.join("src/deep")).map_err(|e| e.to_string())?;
    write_file(&root.join("src/deep/file.rs"), jail_text(200).as_bytes())?;
    let rt = runtime()?;
    let tools = toolexec_tools::builtin_tools(&toolexec_tools::BuiltinConfig::default());
    let read = tools.get("read").ok_or("no read tool")?.clone();
    progress(&format!(
        "read tool vs path-based read, {calls} calls × {reps} reps"
    ));
    jail_row(
        out,
        "read, 200-line file, per call",
        reps,
        calls,
        |_| {
            rt.block_on(read.call(
                json!({"path": "src/deep/file.rs"}),
                ToolContext::new(&root, "b"),
            ))
            .map(|t| {
                black_box(t);
            })
            .map_err(|e| e.message().to_string())
        },
        // Like the old tool: the same work in a blocking task.
        |_| {
            let root = root.clone();
            rt.block_on(rt.spawn_blocking(move || legacy_read(&root, "src/deep/file.rs")))
                .map_err(|e| e.to_string())?
                .map(|t| {
                    black_box(t);
                })
        },
    )
}

fn row_jail_write(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let (reps, calls) = (cfg.pick(5, 15), cfg.pick(100, 400));
    let dir = temp_dir("jail-write")?;
    let root = dir.path().to_path_buf();
    let content = jail_text(100);
    let rt = runtime()?;
    let tools = toolexec_tools::builtin_tools(&toolexec_tools::BuiltinConfig::default());
    let write = tools.get("write").ok_or("no write tool")?.clone();
    progress(&format!(
        "write tool vs path-based atomic write, {calls} new files × {reps} reps"
    ));
    jail_row(
        out,
        "write, new 6 KB file in a subdirectory, per call",
        reps,
        calls,
        |i| {
            rt.block_on(write.call(
                json!({"path": format!("ours/d{}/f{i}.rs", i % 10), "content": content}),
                ToolContext::new(&root, "b"),
            ))
            .map(|_| ())
            .map_err(|e| e.message().to_string())
        },
        |i| {
            legacy_write(
                &root,
                &format!("legacy/d{}/f{i}.rs", i % 10),
                content.as_bytes(),
            )
        },
    )
}

fn row_jail_edit(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let (reps, calls) = (cfg.pick(5, 15), cfg.pick(100, 400));
    let dir = temp_dir("jail-edit")?;
    let root = dir.path().to_path_buf();
    let text = jail_text(200);
    for name in ["ours.rs", "legacy.rs"] {
        write_file(&root.join(name), text.as_bytes())?;
    }
    let rt = runtime()?;
    let tools = toolexec_tools::builtin_tools(&toolexec_tools::BuiltinConfig::default());
    let edit = tools.get("edit").ok_or("no edit tool")?.clone();
    let read = tools.get("read").ok_or("no read tool")?.clone();
    rt.block_on(read.call(json!({"path": "ours.rs"}), ToolContext::new(&root, "r")))
        .map_err(|e| e.message().to_string())?;
    // Each call flips one line between two values, so every call edits.
    progress(&format!(
        "edit tool vs path-based edit, {calls} calls × {reps} reps"
    ));
    let mut seen = std::collections::HashSet::new();
    let mut legacy_seen = std::collections::HashSet::new();
    jail_row(
        out,
        "edit, 200-line file, per call",
        reps,
        calls,
        |i| {
            let line = i % 200;
            let (old, new) = if seen.insert(line) {
                (format!("argument_{line},"), format!("argument_{line}x,"))
            } else {
                seen.remove(&line);
                (format!("argument_{line}x,"), format!("argument_{line},"))
            };
            rt.block_on(edit.call(
                json!({"path": "ours.rs", "old_string": old, "new_string": new}),
                ToolContext::new(&root, "b"),
            ))
            .map(|_| ())
            .map_err(|e| e.message().to_string())
        },
        |i| {
            let line = i % 200;
            let (old, new) = if legacy_seen.insert(line) {
                (format!("argument_{line},"), format!("argument_{line}x,"))
            } else {
                legacy_seen.remove(&line);
                (format!("argument_{line}x,"), format!("argument_{line},"))
            };
            let jail = toolexec_tools::Jail::new(&root).map_err(|e| e.to_string())?;
            let path = jail.resolve("legacy.rs").map_err(|e| e.to_string())?;
            let meta = fs::metadata(&path).map_err(|e| e.to_string())?;
            if !meta.is_file() {
                return Err("not a file".into());
            }
            let bytes = fs::read(&path).map_err(|e| e.to_string())?;
            // (The old edit also hashed the bytes for the tracker; left out
            // here, which only makes the reference cheaper.)
            let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
            if text.matches(old.as_str()).count() != 1 {
                return Err(format!("legacy edit: {old} not unique"));
            }
            legacy_write(&root, "legacy.rs", text.replacen(&old, &new, 1).as_bytes())
        },
    )
}

fn row_jail_grep(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let reps = cfg.pick(5, 15);
    let mut rng = Rng::new();
    let dir = temp_dir("jail-grep")?;
    let root: PathBuf = dir.path().to_path_buf();
    let needles = grep_tree(&root, &mut rng)?;
    let rt = runtime()?;
    let tool = Arc::new(GrepTool::new());
    let wrong = RefCell::new(None::<String>);
    progress(&format!(
        "grep tool vs grep -rn on 10 000 files × {reps} reps"
    ));
    let (ours, reference) = interleaved(
        reps,
        || {
            let start = Instant::now();
            let result = rt.block_on(tool.call(
                json!({"pattern": "needle_[0-9]+", "max_results": 10_000}),
                ToolContext::new(&root, "b"),
            ));
            let t = secs(start);
            let n = result.as_ref().map(|s| s.lines().count()).unwrap_or(0);
            if n != needles {
                wrong
                    .borrow_mut()
                    .get_or_insert(format!("grep tool found {n}, expected {needles}"));
            }
            t
        },
        || {
            let start = Instant::now();
            let _ = Command::new("grep")
                .args(["-rnE", "needle_[0-9]+", "."])
                .current_dir(&root)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status();
            secs(start)
        },
    );
    if let Some(e) = wrong.into_inner() {
        return Err(e);
    }
    let (o, r) = (median(ours), median(reference));
    out.row(
        &format!("grep through the jail, 10 000-file tree ({needles} matches)"),
        &fmt_time(o),
        &format!("{} grep -rn", fmt_time(r)),
        &fmt_ratio(o / r),
        "≤ 0.6×",
        verdict(o / r <= 0.6),
    );
    let rg = Command::new("rg")
        .args(["-n", "needle_[0-9]+", "."])
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status();
    match rg {
        Ok(_) => {
            let times: Vec<f64> = (0..reps)
                .map(|_| {
                    let start = Instant::now();
                    let _ = Command::new("rg")
                        .args(["-n", "needle_[0-9]+", "."])
                        .current_dir(&root)
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .status();
                    secs(start)
                })
                .collect();
            out.note(&format!(
                "jail-grep: rg -n on the same tree: {}",
                fmt_time(median(times))
            ));
        }
        Err(_) => out.note("jail-grep: rg is not installed on this machine; not compared"),
    }
    Ok(())
}

// ------------------------------------------------------------------ redact-stream

/// A structured log where every line names `token_count`, `key_id` or
/// `secret_name` (no secret), or the same log without those words.
fn keyword_log(size: usize, keywords: bool, rng: &mut Rng) -> String {
    let mods = [
        "api.usage",
        "billing.meter",
        "auth.keys",
        "vault.sync",
        "llm.gateway",
    ];
    let mut s = String::with_capacity(size + 256);
    while s.len() < size {
        let ts = format!(
            "2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            1 + rng.below(28),
            rng.below(24),
            rng.below(60),
            rng.below(60),
            rng.below(1000)
        );
        let m = rng.pick(&mods);
        let hex = rng.chars(10, b"0123456789abcdef");
        let line = match (rng.below(3), keywords) {
            (0, true) => format!("{ts} INFO {m} request_id={hex} model=gpt-4o token_count={} latency_ms={} status=200\n", rng.below(9000), rng.below(900)),
            (1, true) => format!("{ts} DEBUG {m} rotated key_id=key_{hex} owner=team-{} expires_in={}s\n", rng.below(50), rng.below(99999)),
            (_, true) => format!("{ts} WARN {m} secret_name=prod/db/{} version={} fetched from cache\n", rng.pick(&["password", "api-key", "token"]), rng.below(40)),
            (0, false) => format!("{ts} INFO {m} request_id={hex} model=gpt-4o count={} latency_ms={} status=200\n", rng.below(9000), rng.below(900)),
            (1, false) => format!("{ts} DEBUG {m} rotated id=k_{hex} owner=team-{} expires_in={}s\n", rng.below(50), rng.below(99999)),
            (_, false) => format!("{ts} WARN {m} name=prod/db/{} version={} fetched from cache\n", rng.pick(&["main", "replica", "cache"]), rng.below(40)),
        };
        s.push_str(&line);
    }
    s
}

/// JSON API responses naming many `token`/`key` fields: usage records, key
/// listings, pagination tokens, OAuth metadata (no secret).
fn json_responses(size: usize, rng: &mut Rng) -> String {
    let mut s = String::with_capacity(size + 512);
    while s.len() < size {
        let hex = rng.chars(10, b"0123456789abcdef");
        let line = match rng.below(4) {
            0 => format!("{{\"id\":\"req_{hex}\",\"object\":\"usage\",\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}}},\"token_count\":{},\"max_tokens\":4096}}\n", rng.below(999), rng.below(999), rng.below(2000), rng.below(99)),
            1 => format!("{{\"data\":[{{\"key_id\":\"key_{hex}\",\"key_name\":\"ci-{}\",\"key_prefix\":\"sk-...{}\",\"created_at\":\"2024-05-01T00:00:00Z\",\"last_used_at\":null,\"key_type\":\"secret\"}}],\"has_more\":true}}\n", rng.below(99), rng.chars(4, b"abcdefghijklmnop")),
            2 => format!("{{\"items\":[],\"next_page_token\":\"page-{}\",\"prev_page_token\":null,\"total_count\":{}}}\n", rng.below(1000), rng.below(100000)),
            _ => "{\"issuer\":\"https://auth.example.com\",\"token_endpoint\":\"https://auth.example.com/oauth/token\",\"token_endpoint_auth_methods_supported\":[\"client_secret_basic\",\"private_key_jwt\"],\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token_expires_in\":86400}\n".to_string(),
        };
        s.push_str(&line);
    }
    s
}

/// Real Rust sources: the `.rs` files a build left in the cargo registry
/// (`~/.cargo/registry/src`), concatenated in sorted order up to `size`.
fn registry_sources(size: usize) -> Option<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))?;
    let mut stack = vec![home.join("registry").join("src")];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() && p.extension().is_some_and(|x| x == "rs") => files.push(p),
                _ => {}
            }
        }
    }
    files.sort();
    let mut s = String::with_capacity(size);
    for f in files {
        if s.len() >= size {
            break;
        }
        if let Ok(t) = std::fs::read_to_string(&f) {
            s.push_str(&t);
        }
    }
    (s.len() >= size / 4).then_some(s)
}

fn row_redact_stream(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(20, 100) * 1_000_000;
    let reps = cfg.pick(3, 3);
    let mut rng = Rng::new();
    let redactor = redactor()?;
    let mut inputs: Vec<(String, String, f64)> = vec![
        (
            "structured log, every line names token_count/key_id/secret_name".into(),
            keyword_log(size, true, &mut rng),
            1000.0,
        ),
        (
            "the same log without those words".into(),
            keyword_log(size, false, &mut rng),
            1000.0,
        ),
        (
            "JSON API responses with many token/key field names".into(),
            json_responses(size, &mut rng),
            500.0,
        ),
    ];
    // The same responses minified into one array on one line (what `curl`
    // prints): every hit's window reaches thousands of bytes either side.
    let one_line = format!("[{}]", inputs[2].1.trim_end().replace('\n', ","));
    inputs.push(("the same JSON minified on one line".into(), one_line, 500.0));
    match registry_sources(size) {
        Some(src) => inputs.push((
            "Rust sources of the cargo registry (~/.cargo/registry/src)".into(),
            src,
            1000.0,
        )),
        None => {
            out.note("redact-stream: no .rs files under ~/.cargo/registry/src; source row skipped")
        }
    }
    let (dense, _) = dense_text(cfg.pick(2, 10) * 1_000_000, &mut rng);
    inputs.push((
        "secret-dense text (1 secret per 200 bytes)".into(),
        dense,
        100.0,
    ));
    for (label, text, goal) in &inputs {
        progress(&format!(
            "streaming redaction of {} {label} × {reps} reps",
            fmt_mb(text.len() as f64)
        ));
        let mut changed = 0usize;
        let (ours, reference) = interleaved(
            reps,
            || {
                let start = Instant::now();
                let stats = redactor
                    .redact_stream(black_box(text.as_bytes()), std::io::sink())
                    .expect("in-memory stream");
                let t = secs(start);
                changed = stats.redactions;
                t
            },
            || copy_secs(text),
        );
        if *goal >= 500.0 && changed > 0 {
            out.note(&format!(
                "redact-stream: {label}: {changed} spans masked in secret-free text"
            ));
        }
        let (o, r) = (
            mbps(text.len(), median(ours)),
            mbps(text.len(), median(reference)),
        );
        out.row(
            &format!("streaming redaction, {} {label}", fmt_mb(text.len() as f64)),
            &fmt_mbps(o),
            &format!("{} cat-speed copy", fmt_mbps(r)),
            &fmt_ratio(o / r),
            &format!("≥ {} MB/s", *goal as u64),
            verdict(o >= *goal),
        );
    }
    // What a user sees: the real CLI, a fresh process per run (start-up
    // included), stdin from a file, stdout to /dev/null, on its default
    // thread count (the CPUs it may use, at most 4).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    // MB/s of the command per input, for the gitleaks rows.
    let mut cli_mbps: Vec<Option<f64>> = vec![None; inputs.len()];
    match toolexec_cli() {
        Ok(cli) => {
            let dir = temp_dir("redact-cli")?;
            let path = dir.path().join("input.txt");
            // A file on stdin (mapped), then the same through a pipe, as a
            // program that runs the command and writes its input to it
            // sees it (a script's `subprocess`, `producer | toolexec
            // redact`): no file to map.
            for piped in [false, true] {
                for (i, (label, text, goal)) in inputs.iter().enumerate() {
                    if !piped {
                        std::fs::write(&path, text)
                            .map_err(|e| format!("cannot write the input: {e}"))?;
                    }
                    progress(&format!(
                        "`toolexec redact` {} on {} {label} × {reps} reps",
                        if piped {
                            "through a pipe"
                        } else {
                            "from a file"
                        },
                        fmt_mb(text.len() as f64)
                    ));
                    let run = || -> Result<f64, String> {
                        let mut command = Command::new(&cli);
                        command
                            .arg("redact")
                            .stdout(Stdio::null())
                            .stderr(Stdio::inherit());
                        let failed =
                            |e: std::io::Error| format!("cannot run {}: {e}", cli.display());
                        let (start, status) = if piped {
                            let start = Instant::now();
                            let mut child =
                                command.stdin(Stdio::piped()).spawn().map_err(failed)?;
                            let mut stdin = child.stdin.take().ok_or("no stdin pipe")?;
                            let status = std::thread::scope(|sc| {
                                sc.spawn(move || stdin.write_all(text.as_bytes()));
                                child.wait()
                            })
                            .map_err(|e| format!("toolexec redact: {e}"))?;
                            (start, status)
                        } else {
                            let input = std::fs::File::open(&path).map_err(|e| e.to_string())?;
                            let start = Instant::now();
                            (start, command.stdin(input).status().map_err(failed)?)
                        };
                        let t = secs(start);
                        if !status.success() {
                            return Err(format!("toolexec redact failed ({status})"));
                        }
                        Ok(t)
                    };
                    run()?;
                    let mut times = Vec::with_capacity(reps);
                    for _ in 0..reps {
                        times.push(run()?);
                    }
                    let cat = copy_secs(text);
                    let o = mbps(text.len(), median(times));
                    if !piped {
                        cli_mbps[i] = Some(o);
                    }
                    let how = if piped {
                        "`producer | toolexec redact > /dev/null`"
                    } else {
                        "`toolexec redact < file > /dev/null`"
                    };
                    out.row(
                        &format!(
                            "{how} ({threads} threads), {} {label}",
                            fmt_mb(text.len() as f64)
                        ),
                        &fmt_mbps(o),
                        &format!("{} cat-speed copy", fmt_mbps(mbps(text.len(), cat))),
                        &fmt_ratio(o / mbps(text.len(), cat)),
                        &format!("≥ {} MB/s", *goal as u64),
                        verdict(o >= *goal),
                    );
                }
            }
        }
        Err(e) => out.note(&format!(
            "redact-stream: the CLI rows were not measured: {e}"
        )),
    }
    gitleaks_rows(cfg, out, &inputs, &cli_mbps)
}

/// The issue's "≥ 10× gitleaks": gitleaks 8.16 (`detect --no-git` on a
/// directory holding one file) on a slice of each input, since it runs at
/// a few MB/s; the slice ends at a line end. Its rate is compared with the
/// command's rate on the whole input measured above (gitleaks' start-up is
/// a small part of its time at these sizes, so the slice does not favour
/// toolexec).
fn gitleaks_rows(
    cfg: &Cfg,
    out: &mut Out,
    inputs: &[(String, String, f64)],
    cli_mbps: &[Option<f64>],
) -> Result<(), String> {
    let gitleaks = match std::env::var_os("TOOLEXEC_BENCH_GITLEAKS") {
        Some(path) => PathBuf::from(path),
        None => {
            let why = std::env::var("TOOLEXEC_BENCH_NO_GITLEAKS")
                .unwrap_or_else(|_| "the harness was run without `cargo xtask bench`".into());
            out.note(&format!(
                "redact-stream: the ≥ 10× gitleaks goal is not measured: {why}"
            ));
            return Ok(());
        }
    };
    let slice_len = cfg.pick(2, 10) * 1_000_000;
    let reps = cfg.pick(1, 2);
    let dir = temp_dir("redact-gitleaks")?;
    let source = dir.path().join("source");
    std::fs::create_dir(&source).map_err(|e| format!("cannot create {}: {e}", source.display()))?;
    let report = dir.path().join("report.json");
    for ((label, text, _), ours) in inputs.iter().zip(cli_mbps) {
        let cut = match text.as_bytes()[..slice_len.min(text.len())]
            .iter()
            .rposition(|&b| b == b'\n')
        {
            Some(i) => i + 1,
            None => slice_len.min(text.len()),
        };
        let slice = &text.as_bytes()[..cut];
        std::fs::write(source.join("input.txt"), slice)
            .map_err(|e| format!("cannot write the gitleaks input: {e}"))?;
        progress(&format!(
            "gitleaks detect --no-git on {} of {label} × {reps} reps",
            fmt_mb(slice.len() as f64)
        ));
        let mut times = Vec::with_capacity(reps);
        let mut findings = None;
        for _ in 0..reps {
            let start = Instant::now();
            let status = Command::new(&gitleaks)
                .args([
                    "detect",
                    "--no-git",
                    "--no-banner",
                    "--exit-code",
                    "0",
                    "-l",
                    "error",
                ])
                .arg("-s")
                .arg(&source)
                .arg("-r")
                .arg(&report)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .status()
                .map_err(|e| format!("cannot run {}: {e}", gitleaks.display()))?;
            let t = secs(start);
            if !status.success() {
                return Err(format!("gitleaks failed ({status})"));
            }
            times.push(t);
            findings = std::fs::read(&report)
                .ok()
                .and_then(|r| serde_json::from_slice::<Value>(&r).ok())
                .and_then(|v| v.as_array().map(Vec::len));
        }
        let theirs = mbps(slice.len(), median(times));
        let what = format!("`toolexec redact` vs gitleaks 8.16 detect --no-git, {label}");
        match ours {
            Some(o) => out.row(
                &what,
                &fmt_mbps(*o),
                &format!(
                    "{} gitleaks (on {})",
                    fmt_mbps(theirs),
                    fmt_mb(slice.len() as f64)
                ),
                &fmt_ratio(o / theirs),
                "≥ 10×",
                verdict(o / theirs >= 10.0),
            ),
            None => out.row(
                &what,
                "—",
                &format!("{} gitleaks", fmt_mbps(theirs)),
                "—",
                "≥ 10×",
                "not measured: the command's row failed",
            ),
        }
        if let Some(n) = findings {
            out.note(&format!(
                "redact-stream: gitleaks reported {n} findings in {} of {label}",
                fmt_mb(slice.len() as f64)
            ));
        }
    }
    Ok(())
}

/// `toolexec redact < file > /dev/null` on one keyword-dense line without a
/// line break (no safe cut anywhere: every round is forced), at the
/// command's default thread count: its peak RSS, sampled from
/// `/proc/PID/status` (VmHWM, the high-water mark) every 2 ms while it runs.
fn row_redact_rss(cfg: &Cfg, out: &mut Out) -> Result<(), String> {
    let size = cfg.pick(40, 200) * 1_000_000;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let cli = toolexec_cli()?;
    let dir = temp_dir("redact-rss")?;
    let path = dir.path().join("line.txt");
    let units = [
        (
            "the structured log's words, `password=` every 64 KiB",
            "token_count=3 key_id=k7 secret_name=db ",
        ),
        ("`token ` repeated (a hit every 3 bytes)", "token "),
        (
            "`key=value ` repeated (an assignment every 10 bytes)",
            "key=value ",
        ),
        (
            "`lftp ` repeated (a command whose rule reads the rest of the line)",
            "lftp ",
        ),
        (
            "`AKIA ` repeated (an AWS key prefix every 5 bytes)",
            "AKIA ",
        ),
    ];
    for (label, unit) in units {
        let mut text = String::with_capacity(size + 64);
        while text.len() < size {
            text.push_str(unit);
            if unit.starts_with("token_count") && text.len() % (64 << 10) < unit.len() {
                text.push_str("password=Lr8nK3sYbQ-hunter2 ");
            }
        }
        std::fs::write(&path, &text).map_err(|e| format!("cannot write the input: {e}"))?;
        drop(text);
        progress(&format!(
            "`toolexec redact` peak RSS on {} of {label}",
            fmt_mb(size as f64)
        ));
        let input = std::fs::File::open(&path).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let mut child = Command::new(&cli)
            .arg("redact")
            .stdin(input)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", cli.display()))?;
        let status_file = format!("/proc/{}/status", child.id());
        let mut peak_kib = 0u64;
        let status = loop {
            if let Ok(status) = std::fs::read_to_string(&status_file) {
                if let Some(kib) = status
                    .lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                {
                    peak_kib = peak_kib.max(kib);
                }
            }
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break status;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let took = secs(start);
        if !status.success() {
            return Err(format!("toolexec redact failed ({status})"));
        }
        out.note(&format!(
            "redact-rss: {label}: {} in {took:.2} s ({})",
            fmt_mb(size as f64),
            fmt_mbps(mbps(size, took))
        ));
        let peak = peak_kib as f64 * 1024.0;
        out.row(
            &format!(
                "`toolexec redact` peak RSS ({threads} threads), {} line of {label}",
                fmt_mb(size as f64)
            ),
            &fmt_mb(peak),
            &format!("{} input", fmt_mb(size as f64)),
            &fmt_ratio(peak / size as f64),
            "< 64 MB",
            verdict(peak < 64e6),
        );
    }
    out.note("redact-rss: peak RSS is the VmHWM of the running command, sampled every 2 ms (the last sample before it exits)");
    Ok(())
}

/// The release `toolexec` binary next to this harness (`target/release/`),
/// brought up to date first with `cargo build --release -p toolexec-cli
/// --bin toolexec` (a no-op when it is).
fn toolexec_cli() -> Result<std::path::PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let dir = exe
        .ancestors()
        .find(|d| d.file_name().is_some_and(|n| n == "release"))
        .ok_or_else(|| format!("{} is not a release build", exe.display()))?;
    let cli = dir.join("toolexec");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace above benches/")?;
    progress("building the CLI: cargo build --release -p toolexec-cli --bin toolexec");
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "toolexec-cli",
            "--bin",
            "toolexec",
        ])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !status.success() || !cli.exists() {
        return Err(format!("building the CLI failed ({status})"));
    }
    Ok(cli)
}
