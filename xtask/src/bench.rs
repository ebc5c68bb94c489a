//! `cargo xtask bench [--quick] [--divan | --no-divan]`: the end-to-end
//! measurements of issue 8, one table, and BENCHMARKS.md.
//!
//! 1. Builds the harness, the `bench_e2e` binary of the `publish = false`
//!    crate `benches/` (`toolexec-bench`), in release.
//! 2. Finds or fetches gitleaks for the redaction rows' comparison (see
//!    `gitleaks.rs`; without it those rows say why they are not measured).
//! 3. Runs the harness once per row (`--row NAME`, each in its own process, so one
//!    row's memory or failure never touches another) and collects its
//!    `ROW` / `NOTE` lines (format documented in the harness).
//! 4. Prints the table and rewrites `BENCHMARKS.md` with the table, the
//!    machine's description, the date and the exact command. The file names
//!    no path of the machine that wrote it: the harness is named by its
//!    file name, and any absolute path a row or note printed (the
//!    workspace, the target dir, the temp dir, the home dir) is replaced by
//!    a placeholder (`<workspace>`, `<target>`, `<tmp>`, `~`).
//! 5. Runs the crates' divan benches (`cargo bench --workspace --benches`):
//!    by default in a full run, with `--divan` also in a quick one,
//!    never with `--no-divan`.
//!
//! `--quick` uses smaller inputs and fewer repetitions (the table says
//! which sizes) and stays under 3 minutes on a 2-core machine once the
//! harness is built.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::{cargo, workspace_root};

const PACKAGE: &str = "toolexec-bench";
const EXAMPLE: &str = "bench_e2e";

/// The gitleaks the harness compares with (see `gitleaks.rs`), or why
/// there is none.
const GITLEAKS_ENV: &str = "TOOLEXEC_BENCH_GITLEAKS";
const GITLEAKS_MISSING_ENV: &str = "TOOLEXEC_BENCH_NO_GITLEAKS";

/// One row of the table, as the harness printed it.
#[derive(Debug, Clone)]
struct Row {
    what: String,
    ours: String,
    reference: String,
    ratio: String,
    goal: String,
    verdict: String,
}

/// Runs the measurements; see the module docs for the flags.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut quick = false;
    let mut divan = None;
    for arg in args {
        match arg.as_str() {
            "--quick" => quick = true,
            "--divan" => divan = Some(true),
            "--no-divan" => divan = Some(false),
            other => {
                return Err(format!(
                    "bench: unknown argument {other:?} (expected --quick, --divan or --no-divan)"
                ))
            }
        }
    }
    let divan = divan.unwrap_or(!quick);
    let command = std::iter::once("cargo xtask bench".to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");

    let machine = Machine::read();
    let exe = build_harness()?;
    // The redaction rows compare with gitleaks where there is one.
    let gitleaks = target_dir_of(&exe)
        .ok_or_else(|| format!("{} is not in a release dir", exe.display()))
        .and_then(|target| crate::gitleaks::ensure(&target));
    if let Err(e) = &gitleaks {
        eprintln!("==> no gitleaks: {e}");
    }
    let started = Instant::now();
    let names = harness_rows(&exe)?;
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for name in &names {
        eprintln!("==> bench row {name}");
        let (mut got, mut got_notes) = run_row(&exe, name, quick, &gitleaks);
        rows.append(&mut got);
        notes.append(&mut got_notes);
    }
    let elapsed = started.elapsed().as_secs_f64();

    let table = console_table(&rows);
    println!("\n{table}");
    for note in &notes {
        println!("note: {note}");
    }
    let misses: Vec<&Row> = rows.iter().filter(|r| r.verdict == "miss").collect();
    let unmeasured = rows
        .iter()
        .filter(|r| r.verdict.starts_with("not measured"))
        .count();
    println!(
        "\n{} rows: {} pass, {} miss, {} report, {} not measured; measured in {:.0} s",
        rows.len(),
        rows.iter().filter(|r| r.verdict == "pass").count(),
        misses.len(),
        rows.iter().filter(|r| r.verdict == "report").count(),
        unmeasured,
        elapsed
    );

    let markdown = render_markdown(&Report {
        command: &command,
        quick,
        machine: &machine,
        exe: &exe,
        rows: &rows,
        notes: &notes,
        elapsed,
    });
    let markdown = PathScrub::for_this_machine(&exe).apply(&markdown);
    let path = workspace_root().join("BENCHMARKS.md");
    std::fs::write(&path, markdown).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("==> wrote {}", path.display());

    if divan {
        cargo("divan benches", &["bench", "--workspace", "--benches"], &[])?;
    }
    Ok(())
}

/// Builds the harness in release and returns the path of its executable
/// (read from cargo's JSON messages, so any target dir works).
fn build_harness() -> Result<PathBuf, String> {
    eprintln!("==> building the harness: cargo build --release -p {PACKAGE} --bin {EXAMPLE}");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            PACKAGE,
            "--bin",
            EXAMPLE,
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!("building the harness failed ({})", output.status));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter(|l| {
            l.contains("\"compiler-artifact\"") && l.contains(&format!("\"name\":\"{EXAMPLE}\""))
        })
        .find_map(|l| json_string_field(l, "executable"))
        .map(PathBuf::from)
        .ok_or_else(|| "cargo reported no executable for the harness".to_string())
}

/// The string value of `"key":"…"` in one line of JSON (enough for
/// cargo's messages: handles `\"`, `\\` and `\/`).
fn json_string_field(line: &str, key: &str) -> Option<String> {
    let start = line.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut out = String::new();
    let mut chars = line[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

fn harness_rows(exe: &Path) -> Result<Vec<String>, String> {
    let output = Command::new(exe)
        .arg("--list")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} --list failed ({})",
            exe.display(),
            output.status
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// Runs one row in its own process. A harness that fails or prints no row
/// yields a `not measured` row naming the cause.
fn run_row(
    exe: &Path,
    name: &str,
    quick: bool,
    gitleaks: &Result<PathBuf, String>,
) -> (Vec<Row>, Vec<String>) {
    let mut cmd = Command::new(exe);
    cmd.args(["--row", name]).current_dir(workspace_root());
    if quick {
        cmd.arg("--quick");
    }
    match gitleaks {
        Ok(path) => cmd.env(GITLEAKS_ENV, path),
        Err(why) => cmd.env(GITLEAKS_MISSING_ENV, why),
    };
    let output = cmd.stdin(Stdio::null()).stderr(Stdio::inherit()).output();
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            return (
                vec![failed_row(name, &format!("cannot run the harness: {e}"))],
                vec![],
            )
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for line in stdout.lines() {
        let mut fields = line.split('\t');
        match fields.next() {
            Some("ROW") => {
                let f: Vec<&str> = fields.collect();
                if let [what, ours, reference, ratio, goal, verdict] = f[..] {
                    rows.push(Row {
                        what: what.to_string(),
                        ours: ours.to_string(),
                        reference: reference.to_string(),
                        ratio: ratio.to_string(),
                        goal: goal.to_string(),
                        verdict: verdict.to_string(),
                    });
                } else {
                    rows.push(failed_row(
                        name,
                        &format!("malformed harness line {line:?}"),
                    ));
                }
            }
            Some("NOTE") => notes.push(fields.collect::<Vec<_>>().join(" ")),
            _ => {}
        }
    }
    if !output.status.success() {
        rows.push(failed_row(
            name,
            &format!(
                "harness row {name} failed ({}); see its output above",
                output.status
            ),
        ));
    } else if rows.is_empty() {
        rows.push(failed_row(name, "the harness printed no row"));
    }
    (rows, notes)
}

fn failed_row(name: &str, reason: &str) -> Row {
    Row {
        what: name.to_string(),
        ours: "—".to_string(),
        reference: "—".to_string(),
        ratio: "—".to_string(),
        goal: "—".to_string(),
        verdict: format!("not measured: {reason}"),
    }
}

const HEADERS: [&str; 6] = [
    "what",
    "ours (median)",
    "reference (median)",
    "ratio",
    "goal",
    "result",
];

fn cells(row: &Row) -> [&str; 6] {
    [
        &row.what,
        &row.ours,
        &row.reference,
        &row.ratio,
        &row.goal,
        &row.verdict,
    ]
}

/// An aligned plain-text table (widths in chars, not bytes: the figures
/// hold `µ`, `×`, `≤`).
fn console_table(rows: &[Row]) -> String {
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in rows {
        for (w, c) in widths.iter_mut().zip(cells(row)) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cols: [&str; 6]| {
        let mut s = String::new();
        for (i, (c, w)) in cols.iter().zip(widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            s.push_str(c);
            if i + 1 < cols.len() {
                s.push_str(&" ".repeat(w - c.chars().count()));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(HEADERS);
    let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
    out.push_str(&"-".repeat(total));
    out.push('\n');
    for row in rows {
        out.push_str(&line(cells(row)));
    }
    out
}

struct Report<'a> {
    command: &'a str,
    quick: bool,
    machine: &'a Machine,
    exe: &'a Path,
    rows: &'a [Row],
    notes: &'a [String],
    elapsed: f64,
}

fn md_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn render_markdown(r: &Report<'_>) -> String {
    let m = r.machine;
    let mut s = String::new();
    let _ = writeln!(s, "# Benchmarks\n");
    let _ = writeln!(
        s,
        "Written by `{}` on {}. Do not edit by hand: rerun the command.\n",
        r.command, m.date
    );
    let _ = writeln!(
        s,
        "- Machine: {} ({} logical CPUs), {}, Linux {}",
        m.cpu, m.cores, m.memory, m.kernel
    );
    let _ = writeln!(s, "- Toolchain: {}", m.rustc);
    let _ = writeln!(
        s,
        "- Load average when the run started: {} (a shared machine: other builds may run at the same time, so figures are noisy; only same-run ratios are meaningful)",
        m.load
    );
    let _ = writeln!(
        s,
        "- Mode: {}; the row names give the input sizes used",
        if r.quick {
            "quick (smaller inputs, fewer repetitions; the full run is `cargo xtask bench`)"
        } else {
            "full"
        }
    );
    let _ = writeln!(
        s,
        "- Harness: `cargo build --release -p {PACKAGE} --bin {EXAMPLE}`, then `{} --row NAME{}` for each row, one process per row; measuring took {:.0} s",
        display_exe(r.exe),
        if r.quick { " --quick" } else { "" },
        r.elapsed
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| {} |", HEADERS.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(HEADERS.len()));
    for row in r.rows {
        let c = cells(row).map(md_cell);
        let _ = writeln!(s, "| {} |", c.join(" | "));
    }
    let _ = writeln!(s);
    let misses: Vec<&str> = r
        .rows
        .iter()
        .filter(|row| row.verdict == "miss")
        .map(|row| row.what.as_str())
        .collect();
    let unmeasured: Vec<String> = r
        .rows
        .iter()
        .filter(|row| row.verdict.starts_with("not measured"))
        .map(|row| format!("{} ({})", row.what, row.verdict))
        .collect();
    let _ = writeln!(
        s,
        "Missed goals: {}.",
        if misses.is_empty() {
            "none".to_string()
        } else {
            misses.join("; ")
        }
    );
    if !unmeasured.is_empty() {
        let _ = writeln!(s, "\nNot measured: {}.", unmeasured.join("; "));
    }
    if !r.notes.is_empty() {
        let _ = writeln!(s, "\n## Notes from this run\n");
        for note in r.notes {
            let _ = writeln!(s, "- {note}");
        }
    }
    s.push_str(METHOD);
    s
}

/// The harness named by its file name only: where cargo put it is a path
/// of this machine, not part of the command a reader reruns.
fn display_exe(exe: &Path) -> String {
    exe.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| EXAMPLE.to_string())
}

/// The target dir of a release executable: `…/target/release/bench_e2e`
/// or `…/target/release/examples/bench_e2e` → `…/target`.
fn target_dir_of(exe: &Path) -> Option<PathBuf> {
    exe.ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == "release"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// Replaces the absolute paths of this machine in text that goes into
/// BENCHMARKS.md by placeholders, longest prefix first (the target dir
/// usually lies inside the workspace, the workspace inside the home dir).
#[derive(Debug)]
struct PathScrub {
    prefixes: Vec<(String, &'static str)>,
}

impl PathScrub {
    fn for_this_machine(exe: &Path) -> PathScrub {
        let target = target_dir_of(exe);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        PathScrub::new(&[
            (target, "<target>"),
            (Some(workspace_root()), "<workspace>"),
            (Some(std::env::temp_dir()), "<tmp>"),
            (home, "~"),
        ])
    }

    fn new(paths: &[(Option<PathBuf>, &'static str)]) -> PathScrub {
        let mut prefixes: Vec<(String, &'static str)> = paths
            .iter()
            .filter_map(|(p, name)| {
                let p = p.as_ref()?.to_str()?.trim_end_matches('/').to_string();
                // `/` or an empty HOME would replace every slash.
                (p.len() > 1).then_some((p, *name))
            })
            .collect();
        prefixes.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        PathScrub { prefixes }
    }

    fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (prefix, name) in &self.prefixes {
            out = out.replace(prefix.as_str(), name);
        }
        out
    }
}

const METHOD: &str = "
## Method

- Every figure is a median over repeated runs. Ours and the reference run in
  the same process, alternating rep by rep (which one goes first alternates
  too), after one unmeasured warm-up of each.
- Ratio = ours ÷ reference in the row's unit: for times lower is better, for
  throughputs (MB/s) higher is better. MB = 10^6 bytes.
- Inputs are generated at the start of each row from a clock-seeded
  generator (file trees under the system temp dir, logs in memory) and
  removed afterwards; no result is reused between reps and nothing is
  skipped because the input is known.
- What is cached: the OS page cache and dentry cache hold the generated
  trees (they were just written, as a workspace the agent works in would
  be); the executor, redactor, limiter and tools are built once per row, as
  once per session in a real agent.
- Executor overhead: a batch of 10 000 calls of a no-op read-only tool
  through the default chain (redact, limit, guard, hooks, deadline with panic
  capture; no snapshot stage), against parsing the input and calling the
  tool directly; \"added\" = the difference per call.
- Scheduler: 50 calls of a tool that sleeps 100 ms, at most 5 at a time, on
  the CLI's multi-threaded tokio runtime; 1.0 s is the ideal.
- Snapshot: `Snapshot::take` with the default bounds against `find ROOT
  -maxdepth 4 ( -name .git -o … ) -prune -o -type f ! ( -name '*.pyc' -o … )
  -printf '%s %T@ %i\\n'` (the same skip lists and metadata; `LC_ALL=C`,
  where find matches names faster than in a UTF-8 locale), a process spawn
  included as a real `find` would need one. The pruned row compares the
  snapshot of the 500-file tree plus the node_modules/target files with the
  snapshot of a 500-file tree alone.
- Watcher: a session `Watcher` over the 500-file workspace plus `vendor/`
  files 6 levels deep (10 per directory); per call `begin`, walk, a rewrite
  of one deep file, walk, `finish` (which must report that file), against
  walk, the same rewrite, walk, `diff` (which cannot see it); the rewrite
  itself is not timed.
- Redaction: `Redactor::redact` (built-in rules plus secret-looking
  environment values, as the CLI builds it) against a cat-speed copy of the
  same bytes (through one 128 KiB buffer, as `cat` moves them). One line
  in ten of the first log names a key or a password without holding one, as
  build and server logs do; the second has no rule keyword at all. The
  secret-dense text has one secret of a real format per 200-byte line, over
  a dozen families.
- Streaming redaction: `Redactor::redact_stream` (one thread, the redactor
  built once per row) and `toolexec redact < file > /dev/null` (a fresh
  process per run, start-up and lazy rule compilation included, on its
  default thread count: the CPUs it may use, at most 4), on a structured log
  whose every line names `token_count`, `key_id` or `secret_name`, the same
  log without those words, JSON API responses full of `token`/`key` field
  names (one object per line, and the same minified into one array on a
  single line, where every keyword hit's window reaches 4 KiB either side),
  the cargo registry's `.rs` files a build leaves on the machine, and
  the secret-dense text (the command reads its input file ahead while
  its rounds are judged: on 2 CPUs while it waits for its worker). What
  keeps these rows under their
  goals: every byte goes through the keyword scanner (a four-lane DFA over
  the ~730 built-in keywords and guard words, 9–16 instructions per byte,
  about 1–1.5 GB/s on one core of this machine alone, bound by the latency
  of its dependent table loads: variants with fewer instructions ran
  slower); the keyword log holds ~23 keyword hits per KB and the JSON ~40
  (no keyword is hit twice at one start any more: `tok` inside `token`,
  `secret_` inside `secret`), each of which costs ~800 instructions to be
  dismissed (its name and context read, its guards failed, each hit a
  mispredicted step out of the scanner's loop) although none is a secret;
  secret-dense text costs ~100
  instructions per byte, most of it in regex searches and value checks per
  secret. Several threads judge rounds side by side, so on 2 CPUs the
  command gets up to ~1.8× one thread on long inputs, less on the quick
  run's 20 MB (start-up and the compilation of the rules on first use weigh
  more) and little on 2 MB (two rounds).
- Limiter: `Limiter::limit` with spilling off (line and middle truncation)
  against the same cat-speed copy; the spill row uses the default limits
  (the whole input goes to a scratch file) against `fs::write` of the same
  bytes. Peak RSS is the VmHWM of a fresh process that generated the input
  and limited it once, input included (median of 3 processes).
- Exec: the exec tool called directly with `true` against `sh -c true`
  spawned with std::process (piped output); the 1 GB capture runs
  `yes | head -c 1000000000` through the whole executor with the built-in
  tools in a fresh process and reads its VmHWM (median of 3).
- Grep: the grep tool (`needle_[0-9]+`, every match shown) against
  `grep -rnE` over the same generated 10 000-file tree.
";

/// What the machine is, read from /proc.
struct Machine {
    cpu: String,
    cores: usize,
    memory: String,
    kernel: String,
    rustc: String,
    load: String,
    date: String,
}

impl Machine {
    fn read() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown CPU".to_string());
        let listed = cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count();
        let cores = if listed > 0 {
            listed
        } else {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(0)
        };
        let memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                m.lines()
                    .find(|l| l.starts_with("MemTotal:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|kib| kib.parse::<f64>().ok())
            })
            .map(|kib| format!("{:.1} GiB RAM", kib / 1024.0 / 1024.0))
            .unwrap_or_else(|| "unknown RAM".to_string());
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".to_string());
        let load = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next().map(String::from))
            .unwrap_or_else(|| "unknown".to_string());
        let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string()))
            .arg("-V")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown rustc".to_string());
        Machine {
            cpu,
            cores,
            memory,
            kernel,
            rustc,
            load,
            date: utc_now(),
        }
    }
}

/// Now as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian
/// (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_089), (2025, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn json_field() {
        let line = r#"{"reason":"compiler-artifact","target":{"name":"bench_e2e"},"executable":"/t/release/examples/bench_e2e","fresh":true}"#;
        assert_eq!(
            json_string_field(line, "executable").as_deref(),
            Some("/t/release/examples/bench_e2e")
        );
        assert_eq!(
            json_string_field(r#"{"executable":"a\"b\\c"}"#, "executable").as_deref(),
            Some("a\"b\\c")
        );
        assert_eq!(
            json_string_field(r#"{"executable":null}"#, "executable"),
            None
        );
    }

    #[test]
    fn target_dir_of_a_binary_or_an_example() {
        for exe in ["/t/x/release/bench_e2e", "/t/x/release/examples/bench_e2e"] {
            assert_eq!(
                target_dir_of(Path::new(exe)),
                Some(PathBuf::from("/t/x")),
                "{exe}"
            );
        }
        assert_eq!(target_dir_of(Path::new("/t/debug/bench_e2e")), None);
    }

    #[test]
    fn markdown_names_no_path_of_the_machine() {
        let exe = Path::new("/srv/build/tgt/release/examples/bench_e2e");
        let rows = [Row {
            what: "x".into(),
            ours: "1 ms".into(),
            reference: "2 ms".into(),
            ratio: "0.50×".into(),
            goal: "report".into(),
            verdict: "not measured: cannot open /home/dev/ws/data and /tmp/x/y".into(),
        }];
        let notes = ["spilled to /srv/build/tgt/release/spill.txt".to_string()];
        let machine = Machine {
            cpu: "Some CPU".into(),
            cores: 2,
            memory: "1.0 GiB RAM".into(),
            kernel: "6.1".into(),
            rustc: "rustc 1.91.0".into(),
            load: "0.5".into(),
            date: "2026-01-01 00:00 UTC".into(),
        };
        let markdown = render_markdown(&Report {
            command: "cargo xtask bench --quick",
            quick: true,
            machine: &machine,
            exe,
            rows: &rows,
            notes: &notes,
            elapsed: 1.0,
        });
        let scrub = PathScrub::new(&[
            (Some(PathBuf::from("/srv/build/tgt")), "<target>"),
            (Some(PathBuf::from("/home/dev/ws")), "<workspace>"),
            (Some(PathBuf::from("/tmp/")), "<tmp>"),
            (Some(PathBuf::from("/home/dev")), "~"),
            (Some(PathBuf::from("/")), "never"),
        ]);
        let out = scrub.apply(&markdown);
        for path in ["/srv", "/home", "/tmp", "never"] {
            assert!(!out.contains(path), "{path} left in:\n{out}");
        }
        assert!(out.contains("then `bench_e2e --row NAME --quick`"), "{out}");
        assert!(out.contains("cannot open <workspace>/data and <tmp>/x/y"));
        assert!(out.contains("spilled to <target>/release/spill.txt"));
        assert!(out.contains("Some CPU (2 logical CPUs)"));
    }

    #[test]
    fn table_aligns_by_chars() {
        let row = Row {
            what: "x".into(),
            ours: "1.0 µs".into(),
            reference: "2 µs".into(),
            ratio: "0.50×".into(),
            goal: "≤ 2 µs".into(),
            verdict: "pass".into(),
        };
        let table = console_table(&[row]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        // The last column starts at the same char offset on every line.
        let header_at = lines[0]
            .find("result")
            .map(|b| lines[0][..b].chars().count());
        let row_at = lines[2]
            .rfind("pass")
            .map(|b| lines[2][..b].chars().count());
        assert_eq!(header_at, row_at);
    }
}
