//! Secret-preserving edits through `toolexec run` (SPEC §6): the model reads
//! a config file with a real token (it sees the marker), edits around the
//! marker, and the file keeps the token; markers that stand for nothing are
//! refused and leave the file byte-identical.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

const TOKEN: &str = "ghp_Zr8Kq2Wm5Xv9Lp3Nt6Yb1Hc4Jd7Fs0Ga2Qe8";

fn run_batch(dir: &std::path::Path, calls: &Value) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolexec"))
        .args(["run", "--workdir", dir.to_str().unwrap(), "--no-watch"])
        .env_remove("GITHUB_TOKEN")
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
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array().unwrap().clone()
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"id": id, "name": name, "input": input})
}

fn refusal(tool: &str, marker: &str) -> String {
    format!(
        "tool {tool}: input contains the redaction marker {marker}; keep it inside the text you replace, or write the real value"
    )
}

#[test]
fn edit_round_trip_keeps_the_real_token() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ci.toml");
    let original =
        format!("[github]\nuser = \"octo\"\ntoken = \"{TOKEN}\" # ci only\nretries = 3\n");
    std::fs::write(&path, &original).unwrap();
    let marker_line = "token = \"[REDACTED:github-token]\" # ci only";
    let results = run_batch(
        dir.path(),
        &json!([
            call("1", "read", json!({"path": "ci.toml"})),
            // Another part of the same line, the marker kept.
            call(
                "2",
                "edit",
                json!({"path": "ci.toml", "old_string": marker_line,
                       "new_string": "token = \"[REDACTED:github-token]\" # ci and deploy"}),
            ),
            // A marker where the replaced text holds none: refused.
            call(
                "3",
                "edit",
                json!({"path": "ci.toml", "old_string": "retries = 3",
                       "new_string": "retries = [REDACTED:github-token]"}),
            ),
            // A write whose content holds a marker the file does not hold there.
            call(
                "4",
                "write",
                json!({"path": "ci.toml",
                       "content": "[github]\nuser = \"[REDACTED:github-token]\"\n"}),
            ),
        ]),
    );
    let content = |i: usize| results[i]["content"].as_str().unwrap().to_string();
    assert!(
        content(0).contains("[REDACTED:github-token]"),
        "{}",
        content(0)
    );
    assert!(!content(0).contains(TOKEN));
    assert_eq!(results[1]["is_error"], false, "{}", content(1));
    assert_eq!(results[2]["is_error"], true);
    assert_eq!(results[2]["error_kind"], "execution");
    assert!(
        content(2).starts_with(&refusal("edit", "[REDACTED:github-token]")),
        "{}",
        content(2)
    );
    assert_eq!(results[3]["is_error"], true);
    assert!(
        content(3).starts_with(&refusal("write", "[REDACTED:github-token]")),
        "{}",
        content(3)
    );
    // The real token stays; the refused calls changed nothing.
    let now = std::fs::read(&path).unwrap();
    assert_eq!(
        now,
        original
            .replace("# ci only", "# ci and deploy")
            .into_bytes()
    );
}

#[test]
fn a_dropped_marker_is_replaced_by_what_the_model_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".env");
    std::fs::write(&path, format!("GITHUB_TOKEN={TOKEN}\nLOG=debug\n")).unwrap();
    let results = run_batch(
        dir.path(),
        &json!([
            call("1", "read", json!({"path": ".env"})),
            call(
                "2",
                "edit",
                json!({"path": ".env", "old_string": "GITHUB_TOKEN=[REDACTED:github-token]",
                       "new_string": "GITHUB_TOKEN=${CI_GITHUB_TOKEN}"}),
            ),
            call("3", "read", json!({"path": ".env"})),
            // A whole-file write keeping the markers the file holds is fine.
            call(
                "4",
                "write",
                json!({"path": ".env", "content": "GITHUB_TOKEN=${CI_GITHUB_TOKEN}\nLOG=info\n"}),
            ),
        ]),
    );
    for r in &results {
        assert_eq!(r["is_error"], false, "{r}");
    }
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "GITHUB_TOKEN=${CI_GITHUB_TOKEN}\nLOG=info\n"
    );
}

#[test]
fn a_write_keeping_the_marker_in_place_keeps_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.env");
    std::fs::write(&path, format!("GITHUB_TOKEN={TOKEN}\nLOG=debug\n")).unwrap();
    let results = run_batch(
        dir.path(),
        &json!([
            call("1", "read", json!({"path": "app.env"})),
            call(
                "2",
                "write",
                json!({"path": "app.env",
                       "content": "GITHUB_TOKEN=[REDACTED:github-token]\nLOG=info\n"}),
            ),
        ]),
    );
    assert_eq!(results[1]["is_error"], false, "{}", results[1]);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!("GITHUB_TOKEN={TOKEN}\nLOG=info\n")
    );
}
