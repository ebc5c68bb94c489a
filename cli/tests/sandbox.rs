//! The exec sandbox through the `toolexec` binary (SPEC §6.1, §7): signals
//! and SIGKILL of `toolexec run`, the `--sandbox` flags, fail-closed, an
//! unprivileged user, and `proxy --sandbox`.
#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const TOOLEXEC: &str = env!("CARGO_BIN_EXE_toolexec");

/// A marker no other test process uses.
fn marker(n: u32) -> String {
    format!("{}{n}", std::process::id() % 100_000)
}

/// The processes of the host whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if let Ok(raw) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&raw).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(format!("{}: {cmdline}", name.to_string_lossy()));
            }
        }
    }
    found
}

/// Polls until no process shows `needle`, failing after `within`.
fn assert_all_gone(needle: &str, within: Duration) {
    let end = Instant::now() + within;
    loop {
        let live = processes_with(needle);
        if live.is_empty() {
            return;
        }
        assert!(Instant::now() < end, "left after {within:?}: {live:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn wait_for(path: &Path) {
    let end = Instant::now() + Duration::from_secs(30);
    while !path.exists() {
        assert!(Instant::now() < end, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `toolexec run` on `calls`, stdin closed after writing them.
fn start_run(ws: &Path, extra: &[&str], calls: &Value) -> Child {
    let mut child = Command::new(TOOLEXEC)
        .args(["run", "--workdir", ws.to_str().unwrap()])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolexec");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(calls.to_string().as_bytes())
        .unwrap();
    child
}

/// A call that starts escapers and then sleeps; it writes `up` once they
/// all run.
fn sleeping_call(m: &str) -> Value {
    json!([{"id": "1", "name": "exec", "input": {"command": format!(
        "sleep 37.{m}1 & setsid sleep 37.{m}2 & \
         perl -e 'setpgrp(0,0); exec \"sleep\", \"37.{m}3\"' & \
         sh -c \"trap '' TERM HUP INT; sleep 37.{m}4\" & \
         echo > up; sleep 37.{m}5"
    )}}])
}

#[test]
fn kill_9_of_run_leaves_no_process_of_the_call() {
    let ws = tempfile::tempdir().unwrap();
    let m = marker(1);
    let mut child = start_run(ws.path(), &[], &sleeping_call(&m));
    wait_for(&ws.path().join("up"));
    assert!(!processes_with(&format!("37.{m}")).is_empty());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    child.wait().unwrap();
    assert_all_gone(&format!("37.{m}"), Duration::from_secs(1));
}

#[test]
fn sigterm_sigint_sighup_cancel_the_batch_and_print_the_results() {
    use nix::sys::signal::Signal;
    for (i, signal) in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP]
        .into_iter()
        .enumerate()
    {
        let ws = tempfile::tempdir().unwrap();
        let m = marker(10 + i as u32);
        let child = start_run(ws.path(), &[], &sleeping_call(&m));
        wait_for(&ws.path().join("up"));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{signal}: {:?} {stderr}", out.status);
        let results: Value = serde_json::from_slice(&out.stdout).expect("results on stdout");
        assert_eq!(results[0]["error_kind"], "cancelled", "{signal}: {results}");
        let content = results[0]["content"].as_str().unwrap();
        assert!(
            content.starts_with("tool exec was cancelled"),
            "{signal}: {content}"
        );
        assert_all_gone(&format!("37.{m}"), Duration::from_secs(1));
    }
}

#[test]
fn unknown_sandbox_mode_exits_2_with_one_line() {
    for command in ["run", "mcp"] {
        let out = Command::new(TOOLEXEC)
            .args([command, "--workdir", ".", "--sandbox", "loose"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("unknown sandbox mode \"loose\""),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
    let out = Command::new(TOOLEXEC)
        .args(["proxy", "--sandbox", "nope", "--", "true"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

fn run_to_end(cmd: &mut Command, calls: &Value) -> (Value, String) {
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
        .write_all(calls.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    (serde_json::from_slice(&out.stdout).expect("JSON"), stderr)
}

/// Inside a user namespace whose limit of nested user namespaces is 0, the
/// sandbox cannot be built: exec fails closed with the SPEC's message, the
/// CLI warns once, and `--sandbox off` still runs (contained by process
/// group).
#[test]
fn without_user_namespaces_exec_fails_closed() {
    let ws = tempfile::tempdir().unwrap();
    let calls = json!([{"id": "1", "name": "exec", "input": {"command": "echo hi"}}]);
    let script = format!(
        "echo 0 > /proc/sys/user/max_user_namespaces && exec {TOOLEXEC} run --workdir {} \"$@\"",
        ws.path().display()
    );
    let (results, stderr) = run_to_end(
        Command::new("unshare").args(["-r", "sh", "-c", &script, "sh"]),
        &calls,
    );
    let content = results[0]["content"].as_str().unwrap();
    assert_eq!(results[0]["error_kind"], "execution");
    assert!(
        content.starts_with(
            "exec: sandbox unavailable: cannot create the user, PID and mount namespaces"
        ) && content.ends_with(" (run with --sandbox off to run without it)"),
        "{content}"
    );
    assert_eq!(stderr.matches("sandbox unavailable").count(), 1, "{stderr}");
    let (results, _) = run_to_end(
        Command::new("unshare").args(["-r", "sh", "-c", &script, "sh", "--sandbox", "off"]),
        &calls,
    );
    assert_eq!(results[0]["content"], "hi\nexit status: 0");
}

/// The sandbox needs no root: as `nobody` (if this test runs as root, it
/// switches with setpriv), writes outside the workspace and the network
/// are blocked and the workspace is writable.
#[test]
fn works_for_an_unprivileged_user() {
    if !nix::unistd::geteuid().is_root() {
        // Already unprivileged: the other tests cover this path.
        return;
    }
    let base = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let ws = base.path().join("ws");
    let outside = base.path().join("outside");
    // /tmp itself is writable in workspace-write: "outside" must not be
    // in it, so the system temp dir is pointed elsewhere.
    let tmp = base.path().join("tmp");
    for dir in [&ws, &outside, &tmp] {
        std::fs::create_dir(dir).unwrap();
        nix::unistd::chown(
            dir.as_path(),
            Some(nix::unistd::Uid::from_raw(65534)),
            Some(nix::unistd::Gid::from_raw(65534)),
        )
        .unwrap();
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let o = outside.display();
    let calls = json!([
        {"id": "1", "name": "exec", "input": {"command": format!("id -u; touch a && echo ws-ok; touch {o}/b 2>&1")}},
        {"id": "2", "name": "exec", "input": {"command": format!("bash -c 'echo > /dev/tcp/127.0.0.1/{port}' && echo connected")}},
        {"id": "3", "name": "exec", "input": {"command": "echo $$ $PPID; ls /proc | grep -c '^[0-9]'"}}
    ]);
    let (results, stderr) = run_to_end(
        Command::new("setpriv")
            .args([
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                TOOLEXEC,
            ])
            .args(["run", "--workdir", ws.to_str().unwrap()])
            .args(["--scratch", tmp.join("scratch").to_str().unwrap()])
            .env("TMPDIR", &tmp),
        &calls,
    );
    assert!(!stderr.contains("sandbox unavailable"), "{stderr}");
    // touch's complaint goes to stdout (2>&1): the order of lines written
    // to two different pipes is not defined, the order within one is.
    let one = results[0]["content"].as_str().unwrap();
    assert!(one.starts_with("65534\nws-ok\n"), "{one}");
    assert!(one.contains("Permission denied"), "{one}");
    assert!(ws.join("a").exists() && !outside.join("b").exists());
    let two = results[1]["content"].as_str().unwrap();
    assert!(!two.contains("connected"), "{two}");
    let three = results[2]["content"].as_str().unwrap();
    assert!(three.starts_with("2 1\n"), "{three}");
}

/// A minimal MCP server on stdio (newline-delimited JSON-RPC) with one
/// tool, `escape`, that writes a file and connects to a TCP port.
const ESCAPE_SERVER: &str = r#"
import json, socket, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method, rid = msg.get("method"), msg["id"]
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}},
                  "serverInfo": {"name": "escape", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "escape", "description": "write and connect",
                  "inputSchema": {"type": "object", "properties": {
                      "path": {"type": "string"}, "port": {"type": "integer"}}}}]}
    elif method == "tools/call":
        args = msg["params"]["arguments"]
        out = []
        try:
            open(args["path"], "w").write("x")
            out.append("write-ok")
        except OSError as e:
            out.append("write-failed: %s" % e)
        try:
            socket.create_connection(("127.0.0.1", args["port"]), timeout=5).close()
            out.append("connect-ok")
        except OSError as e:
            out.append("connect-failed: %s" % e)
        result = {"content": [{"type": "text", "text": "\n".join(out)}], "isError": False}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
"#;

/// Calls `escape` once through `toolexec proxy ARGS -- python3 server`.
fn call_escape_through_proxy(args: &[&str], path: &Path, port: u16) -> String {
    let dir = tempfile::tempdir().unwrap();
    let server = dir.path().join("server.py");
    std::fs::write(&server, ESCAPE_SERVER).unwrap();
    let mut child = Command::new(TOOLEXEC)
        .arg("proxy")
        .args(args)
        .args(["--", "python3", server.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut recv = |id: i64| -> Value {
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "proxy closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    let init = recv(1);
    assert!(init.get("result").is_some(), "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "escape", "arguments": {"path": path.to_str().unwrap(), "port": port}}}),
    );
    let reply = recv(2);
    child.kill().ok();
    child.wait().ok();
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
        .to_string()
}

#[test]
fn proxy_sandbox_confines_the_child_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("escaped");
    let w = ws.path().to_str().unwrap();

    let text = call_escape_through_proxy(
        &["--workdir", w, "--sandbox", "workspace-write"],
        &target,
        port,
    );
    assert!(
        text.contains("write-failed") && text.contains("connect-failed"),
        "{text}"
    );
    assert!(!target.exists());
    // Inside --workdir it may write.
    let text = call_escape_through_proxy(
        &["--workdir", w, "--sandbox", "workspace-write"],
        &ws.path().join("inside"),
        port,
    );
    assert!(text.starts_with("write-ok"), "{text}");

    let text = call_escape_through_proxy(&["--workdir", w, "--sandbox", "off"], &target, port);
    assert_eq!(text, "write-ok\nconnect-ok");
    assert!(target.exists());
    // The default is off as well.
    std::fs::remove_file(&target).unwrap();
    let text = call_escape_through_proxy(&["--workdir", w], &target, port);
    assert_eq!(text, "write-ok\nconnect-ok");
}

/// `toolexec mcp` killed by SIGHUP or SIGKILL while an exec call runs
/// leaves no process of the call.
#[test]
fn mcp_sighup_and_sigkill_leave_no_process_of_the_call() {
    use nix::sys::signal::Signal;
    for (i, signal) in [Signal::SIGHUP, Signal::SIGKILL].into_iter().enumerate() {
        let ws = tempfile::tempdir().unwrap();
        let m = marker(20 + i as u32);
        let mut child = Command::new(TOOLEXEC)
            .args(["mcp", "--workdir", ws.path().to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let command = sleeping_call(&m)[0]["input"]["command"].clone();
        for msg in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "exec", "arguments": {"command": command}}}),
        ] {
            writeln!(stdin, "{msg}").unwrap();
            stdin.flush().unwrap();
            if msg["id"] == 1 {
                let mut line = String::new();
                stdout.read_line(&mut line).unwrap();
                assert!(line.contains("\"result\""), "{line}");
            }
        }
        wait_for(&ws.path().join("up"));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "{signal}: {status:?}");
        assert_all_gone(&format!("37.{m}"), Duration::from_secs(1));
    }
}
