//! Peak memory of the limiter on a large generated log.
//!
//! `cargo run --release -p toolexec-limiter --example peak_rss -- [MB] [ascii|unicode] [truncate|spill]`
//!
//! Prints the input size, the resident-set high-water mark (VmHWM, Linux)
//! after building the input and after limiting it, and their ratio.

use std::time::Instant;

use toolexec_limiter::{Limiter, Limits};

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn build(mb: usize, unicode: bool) -> String {
    let size = mb << 20;
    let mut out = String::with_capacity(size + 8192);
    let mut i = 0usize;
    while out.len() < size {
        i += 1;
        if i.is_multiple_of(5_000) {
            out.push_str(&(if unicode { "ü" } else { "=" }).repeat(3_000));
        } else if unicode {
            out.push_str("résumé e\u{301}cole 日本語のテキスト ✓ passed 😀 naïve café");
        } else {
            out.push_str(&format!(
                "[{i:>9}] compiling crate_{} v0.{}.{} ok",
                i % 97,
                i % 13,
                i % 7
            ));
        }
        out.push('\n');
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mb: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let unicode = args.next().as_deref() == Some("unicode");
    let spill = args.next().as_deref() == Some("spill");
    let input = build(mb, unicode);
    let before = vm_hwm_kib().unwrap_or(0);
    let scratch = tempfile::tempdir().expect("a temp scratch dir");
    let limits = Limits::default().scratch_dir(scratch.path());
    let limiter = Limiter::new(if spill {
        limits
    } else {
        limits.spill_floor(usize::MAX)
    });
    let start = Instant::now();
    let limited = limiter.limit(&input, false);
    let elapsed = start.elapsed();
    let after = vm_hwm_kib().unwrap_or(0);
    let out_len = limited.content.len();
    if let Some(path) = &limited.spill_path {
        let _ = std::fs::remove_file(path);
    }
    let input_kib = (input.len() / 1024) as f64;
    println!(
        "input {:.1} MB {} {}: {:.0} ms ({:.0} MB/s), output {} bytes, VmHWM before {} KiB, after {} KiB, peak/input {:.2}",
        input.len() as f64 / 1e6,
        if unicode { "unicode" } else { "ascii" },
        if spill { "spill" } else { "truncate" },
        elapsed.as_secs_f64() * 1e3,
        input.len() as f64 / 1e6 / elapsed.as_secs_f64(),
        out_len,
        before,
        after,
        after as f64 / input_kib,
    );
}
