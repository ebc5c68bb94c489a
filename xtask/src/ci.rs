//! `cargo xtask ci`: the checks every commit must pass.
//!
//! 1. `cargo fmt --check`.
//! 2. Feature combinations: `cargo check --no-default-features` of each
//!    library crate on its own (a crate's minimal build must compile; one
//!    cargo run per crate, so features of the others cannot unify into
//!    it), then clippy of the workspace with `--all-features` and
//!    `-D warnings` (every optional module linted). The library crates are
//!    the workspace's directories with a `src/lib.rs`, found at run time,
//!    so a new crate is checked without editing this file.
//! 3. The tests (cargo-nextest when installed, else `cargo test`), the doc
//!    tests, and `cargo doc --no-deps` with warnings denied.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::{cargo, workspace_root};

/// Runs format check, feature checks, clippy, tests and docs, stopping at
/// the first failure.
pub fn run() -> Result<(), String> {
    cargo("fmt", &["fmt", "--all", "--", "--check"], &[])?;
    for krate in library_crates(&workspace_root())? {
        cargo(
            &format!("{krate} without default features"),
            &["check", "-p", &krate, "--no-default-features"],
            &[],
        )?;
    }
    cargo(
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
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

/// The package names of the workspace's library crates: the directories
/// under `root` holding a `Cargo.toml` and a `src/lib.rs`, sorted.
fn library_crates(root: &Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(root).map_err(|e| format!("cannot list {}: {e}", root.display()))?;
    let mut names = Vec::new();
    for entry in entries.flatten() {
        let dir = entry.path();
        if !dir.join("src/lib.rs").is_file() {
            continue;
        }
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        if let Some(name) = package_name(&manifest) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// The `name` of the `[package]` table of a manifest.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("name") {
                let value = value.trim_start().strip_prefix('=')?.trim();
                return Some(value.trim_matches('"').to_string());
            }
        }
    }
    None
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_name_reads_only_the_package_table() {
        let manifest = "[workspace]\nname = \"no\"\n\n[package]\nversion = \"1\"\nname = \"toolexec-x\"\n[dependencies]\nname = \"no\"\n";
        assert_eq!(package_name(manifest).as_deref(), Some("toolexec-x"));
        assert_eq!(package_name("[dependencies]\nname = \"a\"\n"), None);
    }

    #[test]
    fn the_library_crates_of_this_workspace() {
        let crates = library_crates(&workspace_root()).unwrap();
        for name in [
            "toolexec-core",
            "toolexec-guard",
            "toolexec-limiter",
            "toolexec-redact",
            "toolexec-snapshot",
            "toolexec-tools",
        ] {
            assert!(
                crates.iter().any(|c| c == name),
                "{name} missing: {crates:?}"
            );
        }
        // Binaries only: the cli and xtask itself.
        assert!(!crates.iter().any(|c| c == "toolexec-cli" || c == "xtask"));
        let mut sorted = crates.clone();
        sorted.sort();
        assert_eq!(crates, sorted);
    }
}
