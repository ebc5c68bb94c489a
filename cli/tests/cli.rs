//! End-to-end tests of the `toolexec` binary: demo, run, redact, tools.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn toolexec() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolexec"))
}

fn run_with_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = toolexec()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolexec");
    // Written on another thread: a large input would otherwise fill the
    // pipes both ways. A process that refuses its arguments exits without
    // reading stdin: a broken pipe here is expected then.
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("wait toolexec");
    writer.join().expect("stdin writer");
    out
}

fn run_batch(dir: &std::path::Path, extra: &[&str], calls: &str) -> (Vec<Value>, String) {
    let mut args = vec!["run", "--workdir", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run_with_stdin(&args, calls);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    let results: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (results.as_array().expect("array").clone(), stderr)
}

/// The spill file paths a text names: `DIR/tool_result_NANOS.txt`.
fn spill_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("/tool_result_") {
        let start = rest[..at].rfind(' ').map_or(0, |s| s + 1);
        let end = at + rest[at..].find(".txt").expect("a .txt name") + 4;
        paths.push(rest[start..end].to_string());
        rest = &rest[end..];
    }
    paths
}

/// The seed scenario of SPEC §7, byte for byte apart from the scratch path
/// and the numbers in the spill files' names; with `--keep` the files the
/// hints name hold the complete outputs.
#[test]
fn demo_prints_the_seed_scenario() {
    let out = toolexec().args(["demo", "--keep"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let kept = stderr
        .lines()
        .find_map(|l| l.strip_prefix("demo workspace kept at "))
        .expect("kept path on stderr")
        .to_string();
    let paths = spill_paths(&text);
    assert_eq!(paths.len(), 2, "{text}");
    let (dir, _) = paths[0].rsplit_once('/').unwrap();
    assert!(dir.starts_with(&kept), "{dir} is not under {kept}");
    let mut normalized = text.replace(dir, "SCRATCH");
    for path in &paths {
        let nanos = path
            .rsplit_once("/tool_result_")
            .and_then(|(_, f)| f.strip_suffix(".txt"))
            .unwrap();
        assert!(
            nanos.len() >= 18 && nanos.bytes().all(|b| b.is_ascii_digit()),
            "{nanos}"
        );
        normalized = normalized.replace(nanos, "NANOS");
    }

    let log = |n: usize| -> String {
        (1..=n)
            .map(|i| format!("line {i:04} of a long build log\n"))
            .collect()
    };
    let log200 = log(200);
    let head: String = log200.chars().take(400).collect();
    let tail: String = log200.chars().skip(log200.chars().count() - 400).collect();
    let expected = format!(
        "[1] quiet_writer IsError=false ErrorKind=\n\
         ok\n\
         \n\
         [Workspace Changes]\n\
         + notes.md (created, 8 B)\n\
         ~ report.txt (modified, 6 B → 1.5 KB)\n\
         - old.log (deleted)\n\
         \n\
         [2] quiet_writer IsError=true ErrorKind=invocation\n\
         tool quiet_writer: invalid input: missing required field \"text\"\n\
         \n\
         [3] rm_rf IsError=true ErrorKind=invocation\n\
         unknown tool: rm_rf\n\
         \n\
         [4] print_lines IsError=false ErrorKind=\n\
         {head}\n\
         ...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; use read on SCRATCH/tool_result_NANOS.txt with offset=15 to see middle]...\n\
         {tail}\n\
         \n\
         [5] print_lines IsError=false ErrorKind=\n\
         Result too large (60000 chars). Full output was spilled to scratch file: SCRATCH/tool_result_NANOS.txt\n\
         Use read tool on this path if you need full content.\n\
         \n\
         [6] crasher IsError=true ErrorKind=execution\n\
         tool crasher panic: assignment to entry in nil map\n\
         \n"
    );
    assert_eq!(normalized, expected);
    // The hints hold: call 4's file has all 200 lines, call 5's all 2 000.
    assert_eq!(std::fs::read_to_string(&paths[0]).unwrap(), log200);
    assert_eq!(std::fs::read_to_string(&paths[1]).unwrap(), log(2000));
    std::fs::remove_dir_all(&kept).unwrap();

    // Without --keep nothing stays behind.
    let out = toolexec().arg("demo").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for path in spill_paths(&text) {
        assert!(
            !std::path::Path::new(&path).exists(),
            "{path} was left behind"
        );
    }
}

#[test]
fn run_reports_every_guard_message() {
    let dir = tempfile::tempdir().unwrap();
    let (res, _) = run_batch(
        dir.path(),
        &["--offered", "read,write,grep", "--disabled", "grep"],
        r#"[
            {"id":"1","name":"nope","input":{}},
            {"id":"2","name":"grep","input":{"pattern":"x"}},
            {"id":"3","name":"exec","input":{"command":"true"}},
            {"id":"4","name":"read","input":"{\"path\": "},
            {"id":"5","name":"write","input":{"path":"a.txt"}},
            {"id":"6","name":"read","input":"x"}
        ]"#,
    );
    let contents: Vec<&str> = res.iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert_eq!(
        contents,
        [
            "unknown tool: nope",
            "tool grep is disabled",
            "tool exec is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list.",
            "tool read: invalid input: EOF while parsing a value at line 1 column 9",
            "tool write: invalid input: missing required field \"content\"",
            "tool read: invalid input: expected value at line 1 column 1",
        ]
    );
    assert!(res
        .iter()
        .all(|r| r["is_error"] == true && r["error_kind"] == "invocation"));
}

#[test]
fn run_reports_created_files_and_keeps_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let (res, _) = run_batch(
        dir.path(),
        &[],
        r#"[
            {"id":"a","name":"exec","input":{"command":"sleep 0.3; printf 'hello\\n' > made.txt; echo done"}},
            {"id":"b","name":"exec","input":{"command":"echo quick"}},
            {"id":"c","name":"write","input":{"path":"other.txt","content":"x"}},
            {"id":"d","name":"read","input":{"path":"made.txt"}}
        ]"#,
    );
    let ids: Vec<&str> = res.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert!(res[1]["content"].as_str().unwrap().starts_with("quick"));
    let a = res[0]["content"].as_str().unwrap();
    // While exec counts as concurrency-safe for this command, `b` runs at
    // the same time and the report says so.
    let a = a
        .strip_suffix("\n(calls b ran at the same time; some changes may be theirs)")
        .unwrap_or(a);
    assert!(
        a.ends_with("\n\n[Workspace Changes]\n+ made.txt (created, 6 B)"),
        "{a}"
    );
    assert_eq!(res[0]["changes"][0]["path"], "made.txt");
    assert_eq!(res[0]["changes"][0]["kind"], "created");
    assert_eq!(res[0]["changes"][0]["new_size"], 6);
    assert_eq!(res[0]["error_kind"], Value::Null);
    // The write is not concurrency-safe: the read after it runs after both
    // execs finished.
    assert!(res[3]["content"].as_str().unwrap().contains("hello"));
}

const SECRET: &str = "ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ";

#[test]
fn a_secret_echoed_by_exec_is_masked_in_the_result_and_the_spill_file() {
    let dir = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let calls = format!(
        r#"[
            {{"id":"1","name":"exec","input":{{"command":"echo token={SECRET}"}}}},
            {{"id":"2","name":"exec","input":{{"command":"for i in $(seq 1 2000); do echo \"line $i {SECRET}\"; done"}}}}
        ]"#
    );
    let (res, _) = run_batch(
        dir.path(),
        &["--scratch", scratch.path().to_str().unwrap()],
        &calls,
    );
    let first = res[0]["content"].as_str().unwrap();
    assert!(first.contains("token=[REDACTED:"), "{first}");
    assert!(!first.contains(&SECRET[4..12]));
    let spill = res[1]["spill_path"].as_str().expect("spilled");
    let spilled = std::fs::read_to_string(spill).unwrap();
    assert!(spilled.contains("line 2000 [REDACTED:"));
    assert!(
        !spilled.contains(&SECRET[4..12]),
        "the spill file holds the secret"
    );
    assert!(res[1]["content"]
        .as_str()
        .unwrap()
        .starts_with("Result too large ("));
}

/// The note of SPEC §5 recomputed from the full text, naming `file`.
fn expected_note(full: &str, budget: usize, file: &str) -> String {
    let chars: Vec<char> = full.chars().collect();
    let keep = budget / 3;
    let line_of = |idx: usize| chars[..idx].iter().filter(|c| **c == '\n').count() + 1;
    let total = full.matches('\n').count() + 1;
    format!(
        "...[truncated {} chars; showing lines 1-{} and {}-{} of {} total; use read on {file} with offset={} to see middle]...",
        chars.len() - 2 * keep,
        line_of(keep - 1),
        line_of(chars.len() - keep),
        total,
        total,
        line_of(keep - 1) + 1
    )
}

#[test]
fn middle_truncation_note_agrees_with_a_recount_of_the_full_output() {
    let dir = tempfile::tempdir().unwrap();
    let calls = r#"[{"id":"1","name":"exec","input":{"command":"seq 1 3000"}}]"#;
    let (full, _) = run_batch(dir.path(), &["--budget", "100000"], calls);
    let full = full[0]["content"].as_str().unwrap().to_string();
    let (cut, _) = run_batch(dir.path(), &["--budget", "600"], calls);
    let file = cut[0]["spill_path"]
        .as_str()
        .expect("the complete output saved");
    assert_eq!(std::fs::read_to_string(file).unwrap(), full);
    let cut = cut[0]["content"].as_str().unwrap();
    let note = expected_note(&full, 600, file);
    assert!(cut.contains(&note), "{cut}\n---\n{note}");
    let head: String = full.chars().take(200).collect();
    let tail: String = full.chars().skip(full.chars().count() - 200).collect();
    assert!(cut.starts_with(&head) && cut.ends_with(&tail));
}

#[test]
fn timeout_ms_gives_the_exact_message() {
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let (res, _) = run_batch(
        dir.path(),
        &["--timeout-ms", "1500"],
        r#"[{"id":"1","name":"exec","input":{"command":"echo before; sleep 30"}}]"#,
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(res[0]["error_kind"], "timeout");
    let content = res[0]["content"].as_str().unwrap();
    assert!(content.starts_with(
        "Tool 'exec' execution timed out after 1.5s. The external service may be slow or unavailable. Consider: retry later, use alternative approach, or skip this step.\n\n"
    ), "{content}");
    assert!(
        content.contains("before"),
        "partial output follows: {content}"
    );
}

#[test]
fn events_are_json_lines_with_queued_before_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let calls: Vec<String> = (0..4)
        .map(|i| format!(r#"{{"id":"{i}","name":"exec","input":{{"command":"sleep 0.2"}}}}"#))
        .collect();
    let (_, stderr) = run_batch(
        dir.path(),
        &["--events", "--max-concurrency", "2"],
        &format!("[{}]", calls.join(",")),
    );
    let events: Vec<Value> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<(String, String)> = events
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap().to_string(),
                e["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(kinds.len(), 12, "{kinds:?}");
    assert!(kinds[..4].iter().all(|(k, _)| k == "queued"), "{kinds:?}");
    let pos = |k: &str, id: &str| kinds.iter().position(|(a, b)| a == k && b == id).unwrap();
    assert!(pos("started", "2") > pos("finished", "0").min(pos("finished", "1")));
    assert!(events.iter().all(|e| e["name"] == "exec"));
}

#[test]
fn bad_stdin_exits_2_with_one_line_and_no_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path().to_str().unwrap();
    for stdin in [
        "not json",
        r#"{"id":"1"}"#,
        r#"[{"id":"1","input":{}}]"#,
        "[1]",
    ] {
        let out = run_with_stdin(&["run", "--workdir", wd], stdin);
        assert_eq!(out.status.code(), Some(2), "{stdin}");
        assert!(out.stdout.is_empty(), "{stdin}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("toolexec: "), "{err}");
    }
    for args in [
        vec!["run", "--workdir", "/definitely/not/here"],
        vec!["run"],
        vec!["run", "--workdir", wd, "--budget", "lots"],
        vec!["run", "--workdir", wd, "--budget", "0"],
        vec!["run", "--workdir", wd, "--max-concurrency", "0"],
        vec!["frobnicate"],
    ] {
        let out = run_with_stdin(&args, "[]");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(
            String::from_utf8(out.stderr).unwrap().lines().count(),
            1,
            "{args:?}"
        );
    }
}

#[test]
fn redact_masks_stdin_to_stdout() {
    let input = format!("export GITHUB_TOKEN={SECRET}\nplain line\n");
    let out = run_with_stdin(&["redact"], &input);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[REDACTED:"), "{text}");
    assert!(text.ends_with("plain line\n"));
    assert!(!text.contains(&SECRET[4..12]));
}

/// A few MB of keyword-dense text with secrets: tokens, a PEM block, a
/// Kubernetes name/value pair, a long line (the shapes whose windows span
/// lines and rounds).
fn secret_dense_log(lines: usize) -> String {
    let mut s = String::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut token = |n: usize| {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[(x % 62) as usize]
                    as char
            })
            .collect::<String>()
    };
    for i in 0..lines {
        match i % 7 {
            0 => s.push_str(&format!(
                "step {i}: export GITHUB_TOKEN=ghp_{}\n",
                token(36)
            )),
            1 => s.push_str(&format!(
                "key_id=key_{i} token_count={i} secret_name=prod/db\n"
            )),
            2 => s.push_str(&format!(
                "  - name: DB_PASSWORD\n    value: {}\n",
                token(20)
            )),
            3 => s.push_str(&format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----\n",
                token(64)
            )),
            4 => s.push_str(&format!(
                "password={} {}\n",
                token(18),
                "x".repeat(i % 3000)
            )),
            _ => s.push_str(&format!(
                "{{\"api_key\": \"sk_live_{}\", \"n\": {i}}}\n",
                token(24)
            )),
        }
    }
    s
}

#[test]
fn redact_of_a_file_on_stdin_equals_redact_of_a_pipe_and_reads_from_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.log");
    let text = secret_dense_log(20_000);
    assert!(text.len() > 4 << 20, "{}", text.len());
    std::fs::write(&path, &text).unwrap();
    let piped = run_with_stdin(&["redact", "--no-env"], &text);
    assert!(piped.status.success());
    let masked = String::from_utf8(piped.stdout.clone()).unwrap();
    assert!(masked.matches("[REDACTED:").count() >= 15_000);
    assert!(!masked.contains("ghp_") && !masked.contains("sk_live_"));
    // A regular file on stdin (mapped), on several thread counts.
    for threads in ["1", "2", "3"] {
        let out = toolexec()
            .args(["redact", "--no-env", "--threads", threads])
            .stdin(std::fs::File::open(&path).unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == piped.stdout,
            "{threads} threads: file and pipe differ"
        );
    }
    // Stdin already read part-way: the rest is redacted, and the offset
    // (shared with this process) is left at the end, as reading leaves it.
    use std::io::{Read, Seek};
    let mut file = std::fs::File::open(&path).unwrap();
    let mut head = vec![0u8; 1234];
    file.read_exact(&mut head).unwrap();
    let out = toolexec()
        .args(["redact", "--no-env"])
        .stdin(file.try_clone().unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let rest = run_with_stdin(&["redact", "--no-env"], &text[1234..]);
    assert!(
        out.stdout == rest.stdout,
        "the rest after the offset differs"
    );
    assert_eq!(file.stream_position().unwrap(), text.len() as u64);
}

#[test]
fn redact_of_a_file_truncated_while_mapped_stops_with_a_message() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.log");
    std::fs::write(&path, secret_dense_log(60_000)).unwrap();
    let mut child = toolexec()
        .args(["redact", "--no-env", "--threads", "1"])
        .stdin(std::fs::File::open(&path).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // Output has begun, so the file is mapped; the pipe is not read further
    // until the file is cut, so the command is still well before its end.
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let mut rest = Vec::new();
    stdout.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "toolexec: redact: the input file shrank while it was read\n"
    );
}

#[test]
fn tools_lists_the_builtin_tools_with_schemas() {
    let out = toolexec().arg("tools").output().unwrap();
    assert!(out.status.success());
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read",
            "write",
            "edit",
            "grep",
            "glob",
            "exec",
            "tool_search"
        ]
    );
    let exec = &tools[5];
    assert_eq!(exec["input_schema"]["required"][0], "command");
    // Listed without a call (input null) exec is neither: only a call
    // with a read-only command is concurrency-safe.
    assert_eq!(exec["read_only"], false);
    assert_eq!(exec["concurrency_safe"], false);
    for (i, tool) in tools.as_array().unwrap().iter().enumerate() {
        let reads = !matches!(i, 1 | 2 | 5);
        assert_eq!(tool["read_only"], reads, "{}", tool["name"]);
        assert_eq!(tool["concurrency_safe"], reads, "{}", tool["name"]);
    }
}

/// The README's `run` example: the writing exec runs alone, before grep,
/// so grep finds the file it wrote.
#[test]
fn readme_run_example_grep_finds_the_file_exec_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = run_batch(
        dir.path(),
        &["--events"],
        r#"[{"id":"1","name":"exec","input":{"command":"echo hello > x.txt; cat x.txt"}},
            {"id":"2","name":"grep","input":{"pattern":"hel+o"}}]"#,
    );
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["is_error"], false, "{:?}", results[0]);
    let exec = results[0]["content"].as_str().unwrap();
    assert!(exec.starts_with("hello\n"), "{exec}");
    assert!(exec.contains("+ x.txt (created, 6 B)"), "{exec}");
    assert_eq!(results[1]["is_error"], false, "{:?}", results[1]);
    assert_eq!(results[1]["content"], "x.txt:1:hello");
}

/// Read-only execs still run side by side: every call starts before the
/// first one finishes (event order, not wall time).
#[test]
fn read_only_execs_overlap_and_writing_ones_run_alone() {
    let dir = tempfile::tempdir().unwrap();
    let commands = [
        "sleep 1",
        "sleep 1 && ls",
        "sleep 1; cat /dev/null",
        "sleep 1 | wc -l",
        "sleep 1 2>/dev/null",
        "sleep 0.1; echo hi > y.txt",
        "sleep 0.1 && ls",
    ];
    let calls: Vec<Value> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| serde_json::json!({"id": i.to_string(), "name": "exec", "input": {"command": c}}))
        .collect();
    let (results, stderr) = run_batch(
        dir.path(),
        &["--events"],
        &serde_json::to_string(&calls).unwrap(),
    );
    let ids: Vec<&str> = results.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["0", "1", "2", "3", "4", "5", "6"]);
    assert!(
        results.iter().all(|r| r["is_error"] == false),
        "{results:?}"
    );
    let events: Vec<(String, String)> = stderr
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            (
                e["event"].as_str().unwrap().to_string(),
                e["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let pos = |k: &str, id: &str| {
        events
            .iter()
            .position(|(a, b)| a == k && b == id)
            .unwrap_or_else(|| panic!("no {k} {id} in {events:?}"))
    };
    let first_finish = (0..5)
        .map(|i| pos("finished", &i.to_string()))
        .min()
        .unwrap();
    for i in 0..5 {
        assert!(pos("started", &i.to_string()) < first_finish, "{events:?}");
    }
    // The writer starts after all five finished, and the next call after it.
    let last_finish = (0..5)
        .map(|i| pos("finished", &i.to_string()))
        .max()
        .unwrap();
    assert!(pos("started", "5") > last_finish, "{events:?}");
    assert!(pos("started", "6") > pos("finished", "5"), "{events:?}");
}

#[test]
fn the_watcher_reports_deep_changes_and_extra_roots_and_no_watch_turns_it_off() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a/b/c/d/e/f");
    std::fs::create_dir_all(&deep).unwrap();
    let project = tempfile::Builder::new()
        .prefix("project")
        .tempdir()
        .unwrap();
    let name = project
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let calls = format!(
        r#"[{{"id":"1","name":"exec","input":{{"command":"echo x > a/b/c/d/e/f/deep.txt; echo y > {}/main.rs"}}}}]"#,
        project.path().display()
    );
    let (res, _) = run_batch(
        dir.path(),
        &["--watch-root", project.path().to_str().unwrap()],
        &calls,
    );
    let content = res[0]["content"].as_str().unwrap();
    assert!(
        content.contains("+ a/b/c/d/e/f/deep.txt (created, 2 B)"),
        "{content}"
    );
    assert!(
        content.contains(&format!("+ {name}:main.rs (created, 2 B)")),
        "{content}"
    );

    let calls =
        r#"[{"id":"1","name":"exec","input":{"command":"echo z > a/b/c/d/e/f/deeper.txt"}}]"#;
    let (res, _) = run_batch(dir.path(), &["--no-watch"], calls);
    let content = res[0]["content"].as_str().unwrap();
    assert!(!content.contains("deeper.txt"), "{content}");
    assert!(res[0]["changes"].as_array().unwrap().is_empty());
}

/// `tracing` warnings reach stderr (`warn` by default), `RUST_LOG` filters
/// them, and an unusable `RUST_LOG` is said once and ignored. The warning
/// used: the after-snapshot fails because the call removed the workspace.
#[test]
fn warnings_go_to_stderr_filtered_by_rust_log() {
    let calls = r#"[{"id":"1","name":"exec","input":{"command":"cd .. && rm -rf ws"}}]"#;
    let warning = "WARN toolexec_core::stages::snapshot: workspace snapshot failed";
    let bad_filter = "RUST_LOG=\"toolexec_core=loud\" is not a log filter";
    for (rust_log, want_warning, want_problem) in [
        (None, true, false),
        (Some("error"), false, false),
        (Some("toolexec_core=warn"), true, false),
        (Some("toolexec_core=loud"), true, true),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(ws.join("a.txt"), "a\n").unwrap();
        let mut cmd = toolexec();
        cmd.args(["run", "--no-watch", "--workdir", ws.to_str().unwrap()]);
        match rust_log {
            Some(v) => cmd.env("RUST_LOG", v),
            None => cmd.env_remove("RUST_LOG"),
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(calls.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{rust_log:?}: {stderr}");
        assert!(!ws.exists(), "the call did not remove the workspace");
        assert_eq!(
            stderr.contains(warning),
            want_warning,
            "{rust_log:?}: {stderr}"
        );
        assert_eq!(
            stderr.matches(bad_filter).count(),
            usize::from(want_problem),
            "{rust_log:?}: {stderr}"
        );
        // stdout holds only the results.
        let results: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
        assert_eq!(results[0]["id"], "1");
    }
}

// ---------------------------------------------------------------------------
// --format openai|anthropic (SPEC §7)

fn run_format(dir: &std::path::Path, format: &str, stdin: &str) -> Value {
    let wd = dir.to_str().unwrap();
    let out = run_with_stdin(&["run", "--workdir", wd, "--format", format], stdin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn run_format_openai_chat_runs_parallel_calls_and_answers_with_tool_messages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let response = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [
                {"id": "call_read", "type": "function",
                 "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}},
                {"id": "call_bad", "type": "function",
                 "function": {"name": "grep", "arguments": "{\"pattern\": \"hel"}},
                {"id": "call_exec", "type": "function",
                 "function": {"name": "exec", "arguments": "{\"command\":\"echo hi > b.txt\"}"}}
            ]
        }}]
    });
    let reply = run_format(dir.path(), "openai", &response.to_string());
    let messages = reply.as_array().unwrap();
    assert_eq!(messages.len(), 3);
    for (m, id) in messages.iter().zip(["call_read", "call_bad", "call_exec"]) {
        let keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["content", "role", "tool_call_id"], "{m}");
        assert_eq!(m["role"], "tool");
        assert_eq!(m["tool_call_id"], id);
    }
    assert_eq!(messages[0]["content"], "     1\thello");
    assert_eq!(
        messages[1]["content"],
        "tool grep: invalid input: EOF while parsing a string at line 1 column 16"
    );
    let exec = messages[2]["content"].as_str().unwrap();
    assert!(exec.contains("+ b.txt (created, 3 B)"), "{exec}");
}

#[test]
fn run_format_openai_responses_items_get_function_call_outputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
    let items = r#"[
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "glob", "arguments": "{\"pattern\":\"*.txt\"}"},
        {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "nope", "arguments": "{}"}
    ]"#;
    let reply = run_format(dir.path(), "openai", items);
    assert_eq!(
        reply,
        serde_json::json!([
            {"type": "function_call_output", "call_id": "call_1", "output": "a.txt"},
            {"type": "function_call_output", "call_id": "call_2", "output": "unknown tool: nope"}
        ])
    );
}

#[test]
fn run_format_anthropic_answers_tool_use_blocks_with_one_user_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let message = r#"{"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "Look first.", "signature": "s"},
            {"type": "text", "text": "I'll search."},
            {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"pattern": "hel+o"}},
            {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}
        ]}"#;
    let reply = run_format(dir.path(), "anthropic", message);
    assert_eq!(
        reply,
        serde_json::json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt:1:hello", "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_2",
             "content": "tool read: invalid input: missing required field \"path\"", "is_error": true}
        ]})
    );
}

#[test]
fn run_format_without_tool_calls_gives_an_empty_reply() {
    let dir = tempfile::tempdir().unwrap();
    let reply = run_format(
        dir.path(),
        "openai",
        r#"{"role":"assistant","content":"Done."}"#,
    );
    assert_eq!(reply, serde_json::json!([]));
    let reply = run_format(
        dir.path(),
        "anthropic",
        r#"{"role":"assistant","content":[{"type":"text","text":"Done."}]}"#,
    );
    assert_eq!(reply, serde_json::json!({"role": "user", "content": []}));
    // native stays the default
    let reply = run_format(dir.path(), "native", "[]");
    assert_eq!(reply, serde_json::json!([]));
}

#[test]
fn run_format_refuses_unusable_input_with_exit_2_and_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let wd = dir.path().to_str().unwrap();
    for (format, stdin, want) in [
        ("openai", "not json", "toolexec: stdin is not valid JSON: "),
        (
            "openai",
            r#"{"role":"user","content":"hi"}"#,
            r#"toolexec: openai: role: expected "assistant", got "user""#,
        ),
        (
            "openai",
            r#"{"tool_calls":[{"id":"a","function":{"arguments":"{}"}}]}"#,
            "toolexec: openai: tool_calls[0].function.name: missing",
        ),
        (
            "openai",
            "42",
            "toolexec: openai: expected an OpenAI assistant message",
        ),
        (
            "anthropic",
            r#"{"content":[{"type":"tool_use","name":"x","input":{}}]}"#,
            "toolexec: anthropic: content[0].id: missing",
        ),
        (
            "anthropic",
            "[1]",
            "toolexec: anthropic: [0]: expected an object, got a number",
        ),
        (
            "anthropic",
            "{}",
            "toolexec: anthropic: expected an Anthropic assistant message",
        ),
    ] {
        let out = run_with_stdin(&["run", "--workdir", wd, "--format", format], stdin);
        assert_eq!(out.status.code(), Some(2), "{stdin}");
        assert!(out.stdout.is_empty(), "{stdin}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(want), "{stdin}: {err}");
    }
    let out = run_with_stdin(&["run", "--workdir", wd, "--format", "gemini"], "[]");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
}

#[test]
fn tools_format_prints_each_apis_tool_list() {
    let list = |format: &str| -> Vec<Value> {
        let out = toolexec()
            .args(["tools", "--format", format])
            .output()
            .unwrap();
        assert!(out.status.success(), "{format}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let native = list("native");
    let openai = list("openai");
    let anthropic = list("anthropic");
    let mcp = list("mcp");
    assert_eq!(native.len(), 7);
    for (i, tool) in native.iter().enumerate() {
        assert_eq!(
            openai[i],
            serde_json::json!({"type": "function", "function": {
                "name": tool["name"], "description": tool["description"], "parameters": tool["input_schema"]
            }})
        );
        assert_eq!(
            anthropic[i],
            serde_json::json!({"name": tool["name"], "description": tool["description"], "input_schema": tool["input_schema"]})
        );
        assert_eq!(mcp[i]["name"], tool["name"]);
        assert_eq!(mcp[i]["inputSchema"], tool["input_schema"]);
        assert_eq!(mcp[i]["annotations"]["readOnlyHint"], tool["read_only"]);
        assert_eq!(
            mcp[i]["_meta"]["toolexec/concurrencySafe"],
            tool["concurrency_safe"]
        );
    }
    let out = toolexec()
        .args(["tools", "--format", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
}

/// SPEC §6 Scratch through `toolexec run`: the workspace is the session, so
/// a later run reads an earlier run's spill file; another workspace's
/// session cannot; an unsafe `--scratch` root is refused with exit 2.
#[test]
fn run_spills_into_the_workspace_session_that_later_runs_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let base = tempfile::tempdir().unwrap();
    let scratch = base.path().join("scratch");
    let scratch_arg = scratch.to_str().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    let spill_calls = r#"[{"id":"1","name":"exec","input":{"command":"seq 1 30000"}}]"#;
    let (res, _) = run_batch(ws.path(), &["--scratch", scratch_arg], spill_calls);
    let spill = res[0]["spill_path"].as_str().expect("spilled").to_string();
    let session = std::path::Path::new(&spill).parent().unwrap();
    assert_eq!(
        session.parent().unwrap(),
        std::fs::canonicalize(&scratch).unwrap()
    );
    let mode = std::fs::metadata(session).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);

    let read = format!(r#"[{{"id":"1","name":"read","input":{{"path":"{spill}","limit":2}}}}]"#);
    let (res, _) = run_batch(ws.path(), &["--scratch", scratch_arg], &read);
    assert_eq!(res[0]["is_error"], false, "{}", res[0]["content"]);
    assert!(res[0]["content"]
        .as_str()
        .unwrap()
        .starts_with("     1\t1\n     2\t2"));
    // Another workspace is another session.
    let (res, _) = run_batch(other.path(), &["--scratch", scratch_arg], &read);
    assert_eq!(res[0]["is_error"], true);
    assert!(res[0]["content"]
        .as_str()
        .unwrap()
        .contains("is outside the workspace"));

    let open = base.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = run_with_stdin(
        &[
            "run",
            "--workdir",
            ws.path().to_str().unwrap(),
            "--scratch",
            open.to_str().unwrap(),
        ],
        spill_calls,
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not private to this user: it has mode 0777"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}
