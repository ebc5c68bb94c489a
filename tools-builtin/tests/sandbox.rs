//! The exec sandbox (SPEC §6.1) on this machine's kernel, with real
//! processes: containment, the filesystem and network policy, escape
//! attempts, and the environment of toolexec.
#![cfg(target_os = "linux")]

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;
use toolexec_core::{Tool, ToolContext};
use toolexec_tools::sandbox::{Sandbox, SandboxPolicy, BLOCKED_NOTE};
use toolexec_tools::{ExecConfig, ExecTool};

fn exec_tool(sandbox: Sandbox) -> ExecTool {
    ExecTool::new(ExecConfig::default().sandbox(sandbox))
}

/// A directory outside the workspace and outside the system temp dir
/// (which workspace-write allows).
/// A temp dir outside every root `workspace-write` lets exec write to: not
/// under the system temp dir (which the sandbox allows), wherever this
/// checkout lives (a clone under /tmp has its target dir there too).
fn outside_dir() -> TempDir {
    let system_temp =
        fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
    let candidates = [
        std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        std::path::PathBuf::from("/var/tmp"),
        std::env::var_os("HOME").map(Into::into).unwrap_or_default(),
    ];
    for dir in candidates {
        let Ok(real) = fs::canonicalize(&dir) else {
            continue;
        };
        if real.starts_with(&system_temp) {
            continue;
        }
        if let Ok(made) = tempfile::tempdir_in(&real) {
            return made;
        }
    }
    panic!(
        "no directory outside {} to test writes against",
        system_temp.display()
    )
}

async fn run(tool: &ExecTool, ws: &Path, command: &str) -> String {
    tool.call(json!({ "command": command }), ToolContext::new(ws, "call"))
        .await
        .unwrap_or_else(|e| panic!("exec failed: {}", e.message()))
}

/// A marker unique to this test process and call: `sleep 37.MARKER`
/// processes are found again in the host's /proc by it.
fn marker() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}{:04}",
        std::process::id() % 100_000,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The pids of the host whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(raw) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
        if cmdline.contains(needle) {
            // A zombie has an empty command line; one that still shows
            // the marker is alive.
            found.push((pid, cmdline));
        }
    }
    found
}

/// Waits (polling, with a deadline) until no process shows `needle`.
fn assert_all_gone(needle: &str, within: Duration) {
    let end = Instant::now() + within;
    loop {
        let live = processes_with(needle);
        if live.is_empty() {
            return;
        }
        assert!(
            Instant::now() < end,
            "processes left after {within:?}: {live:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits (polling, with a deadline) until `path` exists.
async fn wait_for_file(path: &Path) {
    let end = Instant::now() + Duration::from_secs(20);
    while !path.exists() {
        assert!(Instant::now() < end, "{} never appeared", path.display());
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test]
async fn toolexec_environment_is_invisible_inside() {
    const VALUE: &str = "fake-secret-0d9f3a7c1e";
    // Planted in this process, the "toolexec" of the test (nextest runs
    // each test in its own process).
    std::env::set_var("TOOLEXEC_TEST_API_TOKEN", VALUE);
    std::env::set_var("DB_PASSWD", VALUE);
    let ws = tempfile::tempdir().unwrap();
    for policy in [SandboxPolicy::WorkspaceWrite, SandboxPolicy::Off] {
        let tool = exec_tool(Sandbox::new(policy));
        let out = run(
            &tool,
            ws.path(),
            "echo \"ppid=$PPID\"; echo \"v=$TOOLEXEC_TEST_API_TOKEN $DB_PASSWD\"; \
             tr '\\0' '\\n' < /proc/$PPID/environ | base64 -w0; echo; \
             tr '\\0' '\\n' < /proc/1/environ | base64 -w0; echo; \
             ps eww; ps axeww; \
             for f in /proc/[0-9]*/environ; do echo \"== $f\"; tr '\\0' '\\n' < $f; done; \
             ls /proc | grep -c '^[0-9]'",
        )
        .await;
        assert!(!out.contains(VALUE), "{policy}: {out}");
        let b64 = base64_of(VALUE);
        // base64 of the whole environment holds the value's encoding at one
        // of three alignments; none of them may appear.
        for shift in 0..3 {
            let probe = base64_of(&format!("{}{VALUE}", "x".repeat(shift)));
            let inner = &probe[probe.len().min(4 + shift * 2)..probe.len().saturating_sub(4)];
            assert!(!out.contains(inner), "{policy}: {out}");
        }
        assert!(!out.contains(&b64), "{policy}: {out}");
        // The shell's parent is the namespace's init, whose memory (a copy
        // of toolexec's) is closed to it.
        assert!(out.contains("ppid=1\n"), "{out}");
        assert!(out.contains("/proc/1/environ: Permission denied"), "{out}");
        assert!(out.contains("\nv= \n"), "{out}");
    }
}

fn base64_of(text: &str) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Commands that try to outlive the call in every known way.
fn escapers(m: &str) -> String {
    format!(
        "sleep 37.{m}1 & \
         setsid sleep 37.{m}2 & \
         perl -e 'setpgrp(0,0); exec \"sleep\", \"37.{m}3\"' & \
         sh -c 'sleep 37.{m}4 &' & \
         sh -c \"trap '' TERM HUP INT; sleep 37.{m}5\" & \
         (set -m; sleep 37.{m}6 &) ; "
    )
}

#[tokio::test]
async fn shell_exit_kills_every_escaper_at_once() {
    let ws = tempfile::tempdir().unwrap();
    for policy in [SandboxPolicy::WorkspaceWrite, SandboxPolicy::Off] {
        let tool = exec_tool(Sandbox::new(policy));
        let m = marker();
        let out = run(
            &tool,
            ws.path(),
            &format!("{} sleep 0.2; echo done", escapers(&m)),
        )
        .await;
        assert!(out.starts_with("done\n"), "{out}");
        assert!(
            out.contains("[processes left running in the background were killed"),
            "{out}"
        );
        assert!(out.ends_with("exit status: 0"), "{out}");
        // The namespace is gone by the time the call returns.
        assert!(processes_with(&format!("37.{m}")).is_empty());
    }
}

#[tokio::test]
async fn cancellation_and_drop_kill_the_whole_namespace() {
    let ws = tempfile::tempdir().unwrap();
    let tool = std::sync::Arc::new(exec_tool(Sandbox::default()));
    // Cancellation through the context's token.
    let m = marker();
    let ctx = ToolContext::new(ws.path(), "c1");
    let token = ctx.cancel_token().clone();
    let task = {
        let tool = tool.clone();
        let cmd = format!("{} echo up > up1; sleep 37.{m}9", escapers(&m));
        tokio::spawn(async move { tool.call(json!({ "command": cmd }), ctx).await })
    };
    wait_for_file(&ws.path().join("up1")).await;
    token.cancel();
    let out = task.await.unwrap().unwrap();
    assert!(
        out.contains("[cancelled; the process group was killed]"),
        "{out}"
    );
    // exec killed it: that is no failure of the command's own.
    assert!(!out.contains(BLOCKED_NOTE), "{out}");
    assert_all_gone(&format!("37.{m}"), Duration::from_secs(1));

    // The executor drops the future.
    let m = marker();
    let cmd = format!("{} echo up > up2; sleep 37.{m}9", escapers(&m));
    let ctx = ToolContext::new(ws.path(), "c2");
    let up = ws.path().join("up2");
    let call = tool.call(json!({ "command": cmd }), ctx);
    tokio::select! {
        _ = call => panic!("the call ended by itself"),
        () = wait_for_file(&up) => {}
    }
    assert_all_gone(&format!("37.{m}"), Duration::from_secs(1));
}

/// 1 000 cancellations of mixed escaping commands at random moments leave
/// no process behind. `TOOLEXEC_SANDBOX_TRIALS` sets the count (CI runs
/// 100 to keep its cost down).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_trials_leave_no_process() {
    let trials: usize = std::env::var("TOOLEXEC_SANDBOX_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let ws = tempfile::tempdir().unwrap();
    let tool = std::sync::Arc::new(exec_tool(Sandbox::default()));
    let prefix = marker();
    let kinds = [
        "sleep 30.{m} & wait",
        "sh -c 'sleep 30.{m} &'; sleep 30.{m}",
        "trap '' TERM; sh -c \"trap '' TERM; sleep 30.{m}\"",
        "perl -e 'setpgrp(0,0); exec \"sleep\", \"30.{m}\"' & wait",
        "setsid sleep 30.{m} & wait",
    ];
    let mut rng = 0x9E37_79B9_u32;
    for trial in 0..trials {
        rng ^= rng << 13;
        rng ^= rng >> 17;
        rng ^= rng << 5;
        let m = format!("{prefix}{trial:05}");
        let up = format!("up{trial}");
        let body = kinds[trial % kinds.len()].replace("{m}", &m);
        let cmd = format!("echo > {up}; {body}");
        let ctx = ToolContext::new(ws.path(), format!("t{trial}"));
        let token = ctx.cancel_token().clone();
        let task = {
            let tool = tool.clone();
            tokio::spawn(async move { tool.call(json!({ "command": cmd }), ctx).await })
        };
        match rng % 3 {
            // Right away, maybe before the shell even started.
            0 => {}
            // Once the command runs.
            1 => wait_for_file(&ws.path().join(&up)).await,
            // A little later.
            _ => {
                wait_for_file(&ws.path().join(&up)).await;
                tokio::time::sleep(Duration::from_millis(u64::from(rng % 20))).await;
            }
        }
        if rng.is_multiple_of(5) {
            task.abort();
            let _ = task.await;
        } else {
            token.cancel();
            let out = task.await.unwrap().unwrap();
            assert!(out.contains("exit status"), "{out}");
        }
        assert_all_gone(&format!("30.{m}"), Duration::from_secs(1));
    }
    assert!(processes_with(&format!("30.{prefix}")).is_empty());
}

#[tokio::test]
async fn workspace_write_allows_the_workspace_only() {
    let ws = tempfile::tempdir().unwrap();
    let outside = outside_dir();
    let o = outside.path().display();
    let tool = exec_tool(Sandbox::default());
    let out = run(&tool, ws.path(), "touch a && echo ok").await;
    assert_eq!(out, "ok\nexit status: 0");
    assert!(ws.path().join("a").exists());
    let out = run(&tool, ws.path(), &format!("touch {o}/b")).await;
    assert!(out.contains("Permission denied"), "{out}");
    assert!(
        out.ends_with(&format!("exit status: 1\n{BLOCKED_NOTE}")),
        "{out}"
    );
    assert!(!outside.path().join("b").exists());
    // Nor can it remove, rename into, or link out of the workspace.
    fs::write(outside.path().join("keep"), "x").unwrap();
    let out = run(
        &tool,
        ws.path(),
        &format!(
            "rm -f {o}/keep; mv a {o}/moved; ln -s /etc {o}/l; echo x > /dev/null && echo null-ok"
        ),
    )
    .await;
    assert!(outside.path().join("keep").exists(), "{out}");
    assert!(!outside.path().join("moved").exists(), "{out}");
    assert!(!outside.path().join("l").exists(), "{out}");
    assert!(out.contains("null-ok"), "{out}");
    // The system temp dir and an extra root (the scratch dir) are writable.
    let scratch = outside_dir();
    let tool = exec_tool(Sandbox::default().writable(scratch.path()));
    let out = run(
        &tool,
        ws.path(),
        &format!("touch {}/s && echo ok", scratch.path().display()),
    )
    .await;
    assert_eq!(out, "ok\nexit status: 0");
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        &tool,
        ws.path(),
        &format!("touch {}/t && echo ok", tmp.path().display()),
    )
    .await;
    assert_eq!(out, "ok\nexit status: 0");
    // An extra root that does not exist (yet) is no reason to fail.
    let tool = exec_tool(Sandbox::default().writable(scratch.path().join("later")));
    assert_eq!(run(&tool, ws.path(), "echo ok").await, "ok\nexit status: 0");
}

#[tokio::test]
async fn read_only_blocks_every_write_and_off_none() {
    let ws = tempfile::tempdir().unwrap();
    let outside = outside_dir();
    let o = outside.path().display();
    let tool = exec_tool(Sandbox::new(SandboxPolicy::ReadOnly));
    let out = run(
        &tool,
        ws.path(),
        &format!("touch a; touch {o}/b; cat /etc/hostname >/dev/null && echo read-ok"),
    )
    .await;
    assert!(out.contains("read-ok"), "{out}");
    assert_eq!(out.matches("Permission denied").count(), 2, "{out}");
    assert!(!ws.path().join("a").exists() && !outside.path().join("b").exists());

    let tool = exec_tool(Sandbox::new(SandboxPolicy::Off));
    let out = run(
        &tool,
        ws.path(),
        &format!("touch a && touch {o}/b && exit 3"),
    )
    .await;
    assert!(ws.path().join("a").exists() && outside.path().join("b").exists());
    // No sandbox, no sandbox line.
    assert_eq!(out, "(no output)\nexit status: 3");
}

#[tokio::test]
async fn network_is_denied_unless_allowed() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws = tempfile::tempdir().unwrap();
    let cmd = format!("bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' && echo connected");
    for (sandbox, reachable) in [
        (Sandbox::default(), false),
        (Sandbox::new(SandboxPolicy::ReadOnly), false),
        (Sandbox::default().allow_network(true), true),
        (Sandbox::new(SandboxPolicy::Off), true),
    ] {
        let tool = exec_tool(sandbox.clone());
        let out = run(&tool, ws.path(), &cmd).await;
        assert_eq!(out.contains("connected"), reachable, "{sandbox:?}: {out}");
        if !reachable {
            assert!(out.ends_with(BLOCKED_NOTE), "{out}");
        }
    }
}

#[tokio::test]
async fn escape_attempts_fail_inside_and_the_call_returns() {
    let ws = tempfile::tempdir().unwrap();
    fs::create_dir(ws.path().join("m")).unwrap();
    let tool = exec_tool(Sandbox::default());
    for (attempt, cmd) in [
        ("unshare", "unshare -U true"),
        ("unshare", "unshare -r -m true"),
        ("mount", "mount -t tmpfs none m"),
        ("mount", "mount --bind /etc m"),
        ("ptrace", "strace -p 1 -e trace=none"),
        ("ptrace", "cat /proc/1/mem"),
        ("proc", "echo 1000 > /proc/self/oom_score_adj"),
        ("proc", "echo x > /proc/self/comm"),
        ("proc", "umount /proc"),
    ] {
        let out = run(&tool, ws.path(), &format!("{cmd}; echo rc=$?")).await;
        assert!(!out.contains("rc=0"), "{attempt}: {cmd}: {out}");
        assert!(out.contains("exit status"), "{attempt}: {cmd}: {out}");
    }
    assert!(fs::read_dir(ws.path().join("m")).unwrap().next().is_none());
    // The init of the namespace cannot be killed from inside, and nothing
    // outside can be addressed.
    let out = run(&tool, ws.path(), "kill -9 1; kill -9 -1; echo still-here").await;
    assert!(
        out.contains("still-here") && out.ends_with("exit status: 0"),
        "{out}"
    );
}

/// `sandbox::contain` (the MCP proxy's child containment): a program's
/// whole tree, escapers included, ends when the spawned child is killed,
/// and the program keeps its stdio, arguments and exit status.
#[test]
fn contain_ties_a_programs_whole_tree_to_the_spawned_child() {
    let m = marker();
    let mut cmd = std::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "setsid sleep 37.{m} & (trap '' TERM; sleep 38.{m}) & echo started; wait"
        ))
        .stdout(std::process::Stdio::piped());
    let containment = toolexec_tools::sandbox::contain(&mut cmd);
    if !containment.is_namespace() {
        println!("skipped: no user and PID namespaces here (process-group fallback)");
        return;
    }
    let mut child = cmd
        .spawn()
        .map_err(toolexec_tools::sandbox::decode_spawn_error)
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line, "started\n");
    let end = Instant::now() + Duration::from_secs(20);
    while processes_with(&m).len() < 2 {
        assert!(Instant::now() < end, "{:?}", processes_with(&m));
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_all_gone(&m, Duration::from_secs(20));

    // The exit status passes through.
    let mut cmd = std::process::Command::new("sh");
    cmd.args(["-c", "exit 7"]);
    assert!(toolexec_tools::sandbox::contain(&mut cmd).is_namespace());
    assert_eq!(cmd.status().unwrap().code(), Some(7));
}
