//! `cargo xtask ci`: the checks every commit must pass.

use std::process::{Command, Stdio};

use crate::cargo;

/// Runs format check, clippy, tests and docs, stopping at the first failure.
pub fn run() -> Result<(), String> {
    cargo("fmt", &["fmt", "--all", "--", "--check"], &[])?;
    cargo(
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    python_mcp_client();
    if nextest_available() {
        cargo(
            "tests",
            &["nextest", "run", "--workspace", "--no-fail-fast"],
            &[],
        )?;
    } else {
        eprintln!("cargo-nextest not found; falling back to cargo test");
        cargo(
            "tests",
            &["test", "--workspace", "--lib", "--bins", "--tests"],
            &[],
        )?;
    }
    cargo("doc tests", &["test", "--workspace", "--doc"], &[])?;
    cargo(
        "docs",
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    eprintln!("==> ci: all checks passed");
    Ok(())
}

fn nextest_available() -> bool {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .args(["nextest", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Makes the virtual environment with the Python MCP client
/// (`target/mcp-venv`, PyPI `mcp`) that `cli/tests/mcp_python.rs` drives
/// toolexec with, when it is missing; without python3 those tests print
/// why they are skipped.
fn python_mcp_client() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let venv = target.join("mcp-venv");
    if venv.join("bin/python").exists() {
        return;
    }
    eprintln!("==> python mcp client: {}", venv.display());
    let temp = target.join(format!("mcp-venv-{}", std::process::id()));
    let made = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&temp)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(temp.join("bin/pip"))
            .args(["install", "--quiet", "mcp"])
            .status()
            .is_ok_and(|s| s.success());
    if !made || std::fs::rename(&temp, &venv).is_err() {
        eprintln!("python mcp client not installed; its tests install or skip it themselves");
        let _ = std::fs::remove_dir_all(&temp);
    }
}
