//! Peak memory of exec capturing a large output.
//!
//! `cargo run --release -p toolexec-tools --example capture_rss -- [BYTES]`
//! runs `yes | head -c BYTES` (default 1 000 000 000) through the exec tool
//! and prints the peak resident set size (VmHWM) of this process.

use serde_json::json;
use toolexec_core::{Tool, ToolContext};
use toolexec_tools::{ExecConfig, ExecTool};

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let bytes: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000_000);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temp workspace");
    let before = vm_hwm_kib().unwrap_or(0);
    let started = std::time::Instant::now();
    let exec = ExecTool::new(ExecConfig::default());
    let text = runtime
        .block_on(exec.call(
            json!({"command": format!("yes | head -c {bytes}")}),
            ToolContext::new(dir.path(), "rss"),
        ))
        .expect("exec succeeds");
    let elapsed = started.elapsed();
    let after = vm_hwm_kib().unwrap_or(0);
    let last = text.lines().last().unwrap_or_default();
    let marker = text
        .lines()
        .find(|l| l.starts_with("[... "))
        .unwrap_or("(nothing dropped)");
    println!(
        "captured {bytes} bytes in {elapsed:.2?}; result {} chars",
        text.len()
    );
    println!("{marker}");
    println!("{last}");
    println!(
        "peak RSS (VmHWM): {} KiB before, {} KiB after",
        before, after
    );
}
