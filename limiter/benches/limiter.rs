//! Throughput of the limiter on 100 MB inputs generated at run time.
//!
//! `cargo bench -p toolexec-limiter` (set `LIMITER_BENCH_MB` for another size).

use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use toolexec_limiter::{char_len, middle_truncate, truncate_long_lines, Limiter, Limits};

fn main() {
    divan::main();
}

fn size() -> usize {
    std::env::var("LIMITER_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100)
        << 20
}

/// A build log: short lines of varying length, one 3 000-char line every
/// 5 000 lines (so line truncation has work to do).
fn ascii_log() -> &'static str {
    static LOG: OnceLock<String> = OnceLock::new();
    LOG.get_or_init(|| {
        let mut out = String::with_capacity(size() + 4096);
        let mut i = 0usize;
        while out.len() < size() {
            i += 1;
            if i.is_multiple_of(5_000) {
                out.push_str(&"=".repeat(3_000));
            } else {
                out.push_str(&format!(
                    "[{i:>9}] compiling crate_{} v0.{}.{} (/src/crate_{})",
                    i % 97,
                    i % 13,
                    i % 7,
                    i % 31
                ));
                out.push_str(&" ok".repeat(i % 11));
            }
            out.push('\n');
        }
        out
    })
}

/// Mixed Unicode: accents, combining marks, CJK, emoji, CRLF, empty lines.
fn unicode_log() -> &'static str {
    static LOG: OnceLock<String> = OnceLock::new();
    LOG.get_or_init(|| {
        let words = [
            "résumé",
            "e\u{301}cole",
            "日本語のテキスト",
            "✓ passed",
            "😀🚀",
            "Ωmega",
            "plain ascii words",
            "naïve café",
        ];
        let mut out = String::with_capacity(size() + 4096);
        let mut i = 0usize;
        while out.len() < size() {
            i += 1;
            if i.is_multiple_of(5_000) {
                out.push_str(&"ü".repeat(3_000));
            } else if !i.is_multiple_of(17) {
                for k in 0..(i % 9 + 1) {
                    out.push_str(words[(i + k) % words.len()]);
                    out.push(' ');
                }
            }
            out.push_str(if i.is_multiple_of(3) { "\r\n" } else { "\n" });
        }
        out
    })
}

fn input(kind: &str) -> &'static str {
    match kind {
        "ascii" => ascii_log(),
        _ => unicode_log(),
    }
}

const KINDS: [&str; 2] = ["ascii", "unicode"];

#[divan::bench(args = KINDS, sample_count = 10, sample_size = 1)]
fn count_chars(bencher: Bencher<'_, '_>, kind: &str) {
    let text = input(kind);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| char_len(black_box(text)));
}

#[divan::bench(args = KINDS, sample_count = 10, sample_size = 1)]
fn long_lines(bencher: Bencher<'_, '_>, kind: &str) {
    let text = input(kind);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| truncate_long_lines(black_box(text), 2_000).len());
}

#[divan::bench(args = KINDS, sample_count = 10, sample_size = 1)]
fn middle(bencher: Bencher<'_, '_>, kind: &str) {
    let text = input(kind);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| middle_truncate(black_box(text), 10_000).len());
}

/// The whole limiter with spilling off: line truncation then middle truncation.
#[divan::bench(args = KINDS, sample_count = 10, sample_size = 1)]
fn limit_truncate(bencher: Bencher<'_, '_>, kind: &str) {
    let text = input(kind);
    let limiter = Limiter::new(Limits::default().spill_floor(usize::MAX));
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| limiter.limit(black_box(text), false).content.len());
}

/// The whole limiter with default settings: a 100 MB result is spilled.
#[divan::bench(args = KINDS, sample_count = 5, sample_size = 1)]
fn limit_spill(bencher: Bencher<'_, '_>, kind: &str) {
    let text = input(kind);
    let dir = tempfile::tempdir().expect("tempdir for spill files");
    let limiter = Limiter::new(Limits::default().scratch_dir(dir.path()));
    bencher.counter(BytesCount::new(text.len())).bench(|| {
        let limited = limiter.limit(black_box(text), false);
        let path = limited.spill_path.expect("a 100 MB result spills");
        std::fs::remove_file(path).expect("remove spill file");
    });
}
