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
