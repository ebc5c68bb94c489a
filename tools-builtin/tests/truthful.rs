//! Hints that hold (SPEC §5.3–5.4) for the built-in tools, through the
//! whole pipeline: exec's complete output through the redacting sink, the
//! spill file a middle-truncation note names, and `read`'s own offset.
#![cfg(all(feature = "exec", feature = "read"))]

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;
use tempfile::TempDir;
use toolexec_core::{BatchOptions, Executor, ToolCall, ToolResult};
use toolexec_tools::{builtin_tools, BuiltinConfig};

/// A workspace and, beside it, the scratch directory read may open.
struct Session {
    _root: TempDir,
    workspace: PathBuf,
    scratch: PathBuf,
    executor: Executor,
}

impl Session {
    fn new(budget: usize) -> Self {
        let root = tempfile::tempdir().expect("tempdir");
        let workspace = root.path().join("ws");
        let scratch = root.path().join("scratch");
        fs::create_dir(&workspace).expect("mkdir ws");
        let builtin = builtin_tools(&BuiltinConfig::default().with_read_root(&scratch));
        let executor = Executor::builder(&workspace)
            .tools(builtin.tools.clone())
            .observer(builtin.tracker.clone())
            .limits(Some(
                toolexec_limiter::Limits::default()
                    .budget(budget)
                    .scratch_dir(&scratch),
            ))
            .build()
            .expect("executor");
        Session {
            _root: root,
            workspace,
            scratch,
            executor,
        }
    }

    async fn run(&self, name: &str, input: serde_json::Value) -> ToolResult {
        let call = ToolCall::new("1", name, input.to_string());
        let mut results = self
            .executor
            .run_batch(vec![call], &BatchOptions::new())
            .await;
        results.pop().expect("one result")
    }
}

/// The note's numbers: (B, offset, path) of `... lines 1-B and ... use read
/// on PATH with offset=N to see middle]...`.
fn note_of(content: &str) -> (usize, u64, Option<PathBuf>) {
    let note = content
        .lines()
        .find(|l| l.starts_with("...[truncated "))
        .unwrap_or_else(|| panic!("no note in {content}"));
    let b: usize = note
        .split("showing lines 1-")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("B");
    let offset: u64 = note
        .split("offset=")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("offset");
    let path = note
        .split("use read on ")
        .nth(1)
        .and_then(|r| r.split(" with offset=").next())
        .map(PathBuf::from);
    (b, offset, path)
}

/// Line `n` (1-based) of `text`.
fn line(text: &str, n: u64) -> &str {
    text.split('\n').nth(n as usize - 1).expect("line exists")
}

/// `read`'s rendering of one line: `{n:>6}\t{text}`.
fn numbered(n: u64, text: &str) -> String {
    format!("{n:>6}\t{text}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_middle_cut_names_a_file_whose_offset_line_is_the_first_one_not_shown() {
    let s = Session::new(400);
    // 2 000 lines (8 893 chars + status): over E = 400, under the spill threshold.
    let res = s.run("exec", json!({"command": "seq 1 2000"})).await;
    assert!(!res.is_error, "{}", res.content);
    let (b, offset, path) = note_of(&res.content);
    assert_eq!(offset, b as u64 + 1);
    let path = path.expect("the note names the spill file");
    assert!(path.starts_with(&s.scratch), "{}", path.display());
    let complete = fs::read_to_string(&path).expect("spill file");
    let expected: String =
        (1..=2000).map(|i| format!("{i}\n")).collect::<String>() + "exit status: 0";
    assert_eq!(complete, expected);
    assert_eq!(res.spill_path.as_deref(), Some(path.as_path()));
    // Following the hint with the read tool of the same session.
    let read = s
        .run(
            "read",
            json!({"path": path.to_str().unwrap(), "offset": offset, "limit": 1}),
        )
        .await;
    assert!(!read.is_error, "{}", read.content);
    let first = read.content.lines().next().unwrap();
    assert_eq!(first, numbered(offset, line(&complete, offset)));
    // And that line is indeed not shown whole by the head.
    let head = res.content.split("\n...[truncated").next().unwrap();
    assert!(!head.contains(&format!("\n{}\n", line(&complete, offset))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_note_counts_the_call_offset() {
    let s = Session::new(400);
    let text: String = (1..=3000)
        .map(|i| format!("line {i:04} of a long file\n"))
        .collect();
    fs::write(s.workspace.join("big.txt"), &text).unwrap();
    let res = s
        .run(
            "read",
            json!({"path": "big.txt", "offset": 500, "limit": 300}),
        )
        .await;
    assert!(!res.is_error, "{}", res.content);
    let (b, offset, path) = note_of(&res.content);
    assert_eq!(path, None, "read's own file holds the middle");
    assert!(res.content.contains(&format!(
        "; use read with offset={offset} to see middle]..."
    )));
    // Output line 1 is file line 500: line B+1 of the output is file line 499+B+1.
    assert_eq!(offset, 499 + b as u64 + 1);
    let next = s
        .run(
            "read",
            json!({"path": "big.txt", "offset": offset, "limit": 1}),
        )
        .await;
    let shown = line(&res.content, b as u64 + 1);
    assert!(
        !shown.starts_with(&numbered(offset, "")),
        "line B+1 is cut: {shown}"
    );
    assert_eq!(
        next.content.lines().next().unwrap(),
        numbered(offset, &format!("line {offset:04} of a long file"))
    );
}

/// Peak resident memory of this process (VmHWM), in KiB.
fn vm_hwm_kib() -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_printing_3_mib_with_a_secret_spills_every_line_and_no_secret() {
    let s = Session::new(10_000);
    let secret = "ghp_R8sWq2LmZ4xV7nB1cD5fG9hJ3kP6tY0uE2aQ";
    // seq 1 480000 prints 3.25 MB; the secret comes near the end.
    let command = format!("seq 1 480000; echo \"token {secret}\"; seq 1 10");
    let res = s.run("exec", json!({ "command": command })).await;
    assert!(!res.is_error, "{}", res.content);
    let path = res.spill_path.clone().expect("spilled");
    let complete = fs::read_to_string(&path).expect("spill file");
    assert!(
        !complete.contains("R8sWq2Lm"),
        "the secret reached the disk"
    );
    let mut expected = String::new();
    for i in 1..=480_000 {
        expected.push_str(&format!("{i}\n"));
    }
    expected.push_str("token [REDACTED:github-token]\n");
    for i in 1..=10 {
        expected.push_str(&format!("{i}\n"));
    }
    expected.push_str("exit status: 0");
    assert!(
        complete == expected,
        "the spill file is not the complete output"
    );
    assert_eq!(
        res.content,
        format!(
            "Result too large ({} chars). Full output was spilled to scratch file: {}\nUse read tool on this path if you need full content.",
            expected.chars().count(),
            path.display()
        )
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    // Reported by the test run (the issue asks for the figure); the bound
    // itself is the capture cap + the sink queue + the redactor's buffer.
    eprintln!("peak RSS of the test process: {} KiB", vm_hwm_kib());
    assert!(Path::new(&path).exists());
}
