//! Project tasks, run as `cargo xtask <task>`.
//!
//! - `cargo xtask ci`: `cargo fmt --check`, `cargo check
//!   --no-default-features` of each library crate, `cargo clippy
//!   --workspace --all-targets --all-features -D warnings`, the tests
//!   (cargo-nextest when installed, else `cargo test`; doc tests always
//!   through `cargo test --doc`) and `cargo doc --no-deps` with warnings
//!   denied; see `ci.rs`.
//! - `cargo xtask bench [--quick]`: the benchmarks; see `bench.rs`.

mod bench;
mod ci;
mod gitleaks;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run(),
        Some("bench") => bench::run(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <ci | bench [--quick] [--divan | --no-divan]>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `cargo ARGS` in the workspace root with extra environment, failing
/// with the step's name when it fails.
pub(crate) fn cargo(step: &str, args: &[&str], env: &[(&str, &str)]) -> Result<(), String> {
    eprintln!("==> {step}: cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = std::process::Command::new(cargo);
    cmd.args(args).current_dir(workspace_root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("{step}: could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{step} failed ({status})"))
    }
}

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> std::path::PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}
