//! The official Python MCP client (PyPI `mcp`) drives `toolexec mcp` over
//! stdio and over Streamable HTTP (`tests/python/mcp_client.py`): initialize,
//! list, exec with a secret (masked), spill then read, cancel, 401 without
//! the token, 403 on a foreign Origin. It also drives `toolexec proxy` in
//! front of a wire-level Python server (`tests/python/proxy_client.py`,
//! `task_server.py`): `execution.taskSupport` passes through, and over HTTP
//! each session gets its own child, whose tree ends with the session.
//!
//! The client lives in a virtual environment under the target directory
//! (`target/mcp-venv`), made here from PyPI when missing (`cargo xtask ci`
//! makes it before the tests). Skipped, with the reason printed, only when
//! there is no `python3`.

use std::path::{Path, PathBuf};
use std::process::Command;

const TOOLEXEC: &str = env!("CARGO_BIN_EXE_toolexec");

/// The venv's python, made when missing; `None` when there is no python3.
fn python() -> Option<PathBuf> {
    let target = Path::new(TOOLEXEC).parent()?.parent()?.to_path_buf();
    let venv = target.join("mcp-venv");
    let python = venv.join("bin/python");
    if python.exists() {
        return Some(python);
    }
    if Command::new("python3").arg("--version").output().is_err() {
        return None;
    }
    // Made aside and renamed into place, so that tests running at the same
    // time never see a half-made environment.
    let temp = target.join(format!("mcp-venv-{}", std::process::id()));
    let made = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&temp)
        .status()
        .expect("python3 runs");
    assert!(made.success(), "python3 -m venv failed");
    let installed = Command::new(temp.join("bin/pip"))
        .args(["install", "--quiet", "mcp"])
        .status()
        .expect("pip runs");
    assert!(installed.success(), "pip install mcp failed");
    if std::fs::rename(&temp, &venv).is_err() {
        // Another test made it first.
        let _ = std::fs::remove_dir_all(&temp);
    }
    Some(python)
}

fn drive(mode: &str) {
    let Some(python) = python() else {
        println!("skipped: python3 is not installed, so the Python MCP client cannot run");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workdir = dir.path().join("work");
    let scratch = dir.path().join("scratch");
    std::fs::create_dir(&workdir).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/mcp_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(mode)
        .arg(TOOLEXEC)
        .arg(&workdir)
        .arg(&scratch)
        .output()
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all ok"),
        "{mode}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    let http_checks: &[&str] = if mode == "http" {
        &["401 without the token", "403 on a foreign Origin"]
    } else {
        &[]
    };
    for check in http_checks.iter().copied().chain([
        "initialize",
        "list",
        "exec with a secret is masked",
        "spill",
        "read the spill file",
        "cancel stops the exec",
    ]) {
        assert!(
            stdout.contains(&format!("ok: {check}\n")),
            "{mode}: {stdout}"
        );
    }
}

#[test]
fn python_client_over_stdio() {
    drive("stdio");
}

#[test]
fn python_client_over_streamable_http() {
    drive("http");
}

/// `tests/python/proxy_client.py` in `mode` against `toolexec proxy` in
/// front of `tests/python/task_server.py`; the checks it must print.
fn drive_proxy(mode: &str, checks: &[&str]) {
    let Some(python) = python() else {
        println!("skipped: python3 is not installed, so the Python MCP client cannot run");
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/proxy_client.py");
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/task_server.py");
    let out = Command::new(python)
        .arg(script)
        .arg(mode)
        .arg(TOOLEXEC)
        .arg(server)
        .output()
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all ok"),
        "proxy {mode}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    for check in checks {
        assert!(
            stdout.contains(&format!("ok: {check}\n")),
            "proxy {mode}: no `{check}` in {stdout}"
        );
    }
}

#[test]
fn python_client_sees_the_childs_task_support_through_the_proxy() {
    drive_proxy(
        "stdio",
        &[
            "stdio: task-required tool listed with execution",
            "stdio: task-optional tool listed with execution",
            "stdio: a tool without execution has none",
            "a task-required tool called without a task gets the child's refusal",
        ],
    );
}

#[test]
fn python_client_gets_a_child_per_http_session_of_the_proxy() {
    drive_proxy(
        "http",
        &[
            "no child before a session",
            "http: task-required tool listed with execution",
            "each session has its own child",
            "each child keeps its own state",
            "a crashed child fails its own session's call",
            "a crash in one session leaves the others working",
            "closing a session ends its child's tree",
            "the other session still works",
            "every session's tree ended",
            "its child runs",
            "shutdown ends an open session's tree",
            "nothing left after shutdown",
            "only the crashed child is reported as exited",
            "SIGKILL of the proxy ends its sessions' trees",
        ],
    );
}
