//! Throughput of the redactor on generated log text.
//!
//! * `clean_100mb`: 100 MB of secret-free log text (access logs, app logs with
//!   key=value fields, build output, stack traces; about 1 line in 20 holds a
//!   keyword such as `auth` or `token` without a secret).
//! * `dense_20mb`: 20 MB with one secret (of every built-in family, in many
//!   contexts) per ~200 bytes.
//! * `stream_clean_100mb`: the clean text through `redact_stream`.
//! * `keyword_lines_20mb` / `keyword_free_20mb`: 20 MB of the end-to-end
//!   benchmark's secret-free log text (`benches/src/main.rs`, `clean_log`)
//!   with 1 line in 10 naming a key or password (`lookup key users:…`,
//!   `auth: password policy …`), and the same text without those lines.
//! * `stream_field_names_20mb` / `stream_json_fields_20mb`: the inputs of
//!   issue 15 through `redact_stream`: a structured log where every line
//!   names `token_count`, `key_id` or `secret_name`, and JSON API responses
//!   with many `token`/`key` field names (no secret in either).

use std::borrow::Cow;
use std::hint::black_box;
use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::Bencher;
use toolexec_redact::Redactor;

#[path = "../tests/corpus/mod.rs"]
mod corpus;

fn main() {
    divan::main();
}

fn clean_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut r = corpus::Rng::new(42);
        let mut s = String::with_capacity(100_000_000 + 512);
        let paths = ["/api/v1/users", "/api/v1/orders/8812", "/healthz", "/static/app.9f3c2.js", "/api/v2/search?q=shoes&page=3"];
        let mods = ["server::http", "db::pool", "worker::queue", "cache::lru", "api::handlers::users", "scheduler::cron"];
        while s.len() < 100_000_000 {
            let ts = format!(
                "2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                r.range(1, 28),
                r.range(0, 23),
                r.range(0, 59),
                r.range(0, 59),
                r.range(0, 999)
            );
            let line = match r.below(20) {
                0..=5 => format!(
                    "10.0.{}.{} - - [{ts}] \"GET {} HTTP/1.1\" {} {} \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"\n",
                    r.range(0, 255),
                    r.range(0, 255),
                    r.pick(&paths),
                    r.pick(&[200, 200, 304, 404, 500]),
                    r.range(100, 99999)
                ),
                6..=11 => format!(
                    "{ts} {} {} request completed user_id={} duration_ms={} status={} bytes={}\n",
                    r.pick(&["INFO", "DEBUG", "WARN"]),
                    r.pick(&mods),
                    r.range(1, 99999),
                    r.range(1, 900),
                    r.pick(&[200, 201, 204, 400, 503]),
                    r.range(0, 65535)
                ),
                12..=14 => format!(
                    "   Compiling {} v{}.{}.{}\n",
                    r.pick(&["serde", "regex-automata", "tokio", "hyper", "rustls", "clap_derive"]),
                    r.range(0, 4),
                    r.range(0, 40),
                    r.range(0, 20)
                ),
                15 => format!(
                    "    at com.example.orders.OrderService.process(OrderService.java:{})\n",
                    r.range(10, 900)
                ),
                16 => format!("{ts} INFO worker::queue job {} finished in {}ms (retries=0)\n", corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 12), r.range(1, 5000)),
                17 => format!("{ts} DEBUG auth::session token refreshed for user_id={} expires_in=3600\n", r.range(1, 99999)),
                18 => format!("commit {}\nMerge: {} {}\n", corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 40), corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 7), corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 7)),
                _ => format!("{ts} WARN db::pool connection to 10.0.3.17:5432 slow ({}ms), pool size={}\n", r.range(100, 2000), r.range(1, 64)),
            };
            s.push_str(&line);
        }

        s
    })
}

fn dense_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut r = corpus::Rng::new(7);
        let fams = corpus::families();
        let mut s = String::with_capacity(20_000_000 + 1024);
        let mut secrets = 0usize;
        while s.len() < 20_000_000 {
            let f = &fams[r.below(fams.len())];
            let sec = (f.gen)(&mut r);
            let m = corpus::minimal(f, &sec);
            s.push_str(&m);
            secrets += 1;
            // Pad with ordinary log text so that there is one secret per 200 bytes on average.
            let filler = " request completed user_id=1842 duration_ms=31 status=200 path=/api/v1/orders/8812 region=eu-west-1 cache=miss worker=7 attempt=1 queue=default trace=ab12cd34ef56 ok done ok";
            let want = (secrets * 200).saturating_sub(s.len() + 2).clamp(4, filler.len());
            s.push(' ');
            s.push_str(&filler[..want]);
            s.push('\n');
        }
        assert!(s.len() / secrets <= 210, "{} bytes per secret", s.len() / secrets);
        s
    })
}

/// The end-to-end benchmark's `clean_log`: 1 line in 10 names a key or a
/// password (without a secret) when `keywords` is set, none otherwise.
fn e2e_log(size: usize, keywords: bool, seed: u64) -> String {
    let crates = [
        "serde_json",
        "tokio",
        "regex",
        "hyper",
        "clap",
        "syn",
        "rand",
        "libc",
    ];
    let words = [
        "parse", "config", "retry", "cache", "render", "upload", "merge", "index",
    ];
    let mut r = corpus::Rng::new(seed);
    let mut out = String::with_capacity(size + 4096);
    let mut i = 0u64;
    while out.len() < size {
        i += 1;
        let kind = match r.below(20) {
            15 | 16 if !keywords => 0,
            k => k,
        };
        let line = match kind {
            0..=4 => format!(
                "2025-06-01T12:{:02}:{:02}.{:03}Z INFO  [worker-{}] GET /api/v1/items/{} 200 {}ms {} bytes",
                r.below(60),
                r.below(60),
                r.below(1000),
                r.below(16),
                r.below(1_000_000),
                r.below(900),
                r.below(100_000)
            ),
            5..=7 => format!(
                "   Compiling {} v{}.{}.{}",
                r.pick(&crates),
                r.below(3),
                r.below(40),
                r.below(20)
            ),
            8..=10 => format!(
                "test {}::tests::{}_{}_{} ... ok",
                r.pick(&crates),
                r.pick(&words),
                r.pick(&words),
                r.below(100)
            ),
            11 => format!(
                "warning: unused variable: `{}`\n  --> src/{}.rs:{}:{}",
                r.pick(&words),
                r.pick(&words),
                r.below(900),
                r.below(80)
            ),
            12 => format!(
                "    at com.example.{}.{}Service.{}(Service.java:{})",
                r.pick(&words),
                r.pick(&["User", "Order", "Cart"]),
                r.pick(&words),
                r.below(500)
            ),
            13 => format!("commit {}", r.chars(corpus::HEX, 40)),
            14 => format!(
                "{}-{}-4{}-a{}-{} job {} finished in {}.{}s",
                r.chars(corpus::HEX, 8),
                r.chars(corpus::HEX, 4),
                r.chars(corpus::HEX, 3),
                r.chars(corpus::HEX, 3),
                r.chars(corpus::HEX, 12),
                r.pick(&words),
                r.below(60),
                r.below(10)
            ),
            15 => format!(
                "DEBUG cache: lookup key users:{} hit ratio 0.{}",
                r.below(100_000),
                r.below(100)
            ),
            16 => format!(
                "INFO  auth: password policy check passed for user {} (session renewed)",
                r.pick(&["alice", "bob", "carol", "dave"])
            ),
            17 => format!(
                "npm WARN deprecated {}@{}.{}.{}: this library is no longer supported",
                r.pick(&words),
                r.below(9),
                r.below(9),
                r.below(9)
            ),
            18 => format!(
                "Step {}/{} : RUN apt-get install -y --no-install-recommends {}",
                r.below(12),
                12,
                r.pick(&["curl", "git", "build-essential", "ca-certificates"])
            ),
            _ => format!(
                "[{i:>9}] {} {} in {}.{:03}s",
                r.pick(&words),
                r.pick(&["finished", "started", "skipped"]),
                r.below(10),
                r.below(1000)
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn keyword_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| e2e_log(20_000_000, true, 11))
}

fn keyword_free_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| e2e_log(20_000_000, false, 11))
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn keyword_lines_20mb(bencher: Bencher<'_, '_>) {
    let r = Redactor::builtin();
    let text = keyword_text();
    assert!(
        matches!(r.redact(text), Cow::Borrowed(_)),
        "the keyword text must be secret-free"
    );
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| r.redact(black_box(text)).len());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn keyword_free_20mb(bencher: Bencher<'_, '_>) {
    let r = Redactor::builtin();
    let text = keyword_free_text();
    assert!(
        matches!(r.redact(text), Cow::Borrowed(_)),
        "the keyword-free text must be secret-free"
    );
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| r.redact(black_box(text)).len());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn clean_100mb(bencher: Bencher<'_, '_>) {
    let r = Redactor::builtin();
    let text = clean_text();
    assert!(
        matches!(r.redact(text), Cow::Borrowed(_)),
        "the clean text must be secret-free"
    );
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| r.redact(black_box(text)).len());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn dense_20mb(bencher: Bencher<'_, '_>) {
    let r = Redactor::builtin();
    let text = dense_text();
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| r.redact(black_box(text)).len());
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn stream_clean_100mb(bencher: Bencher<'_, '_>) {
    let r = Redactor::builtin();
    let text = clean_text();
    bencher.counter(BytesCount::new(text.len())).bench(|| {
        let mut sink = std::io::sink();
        r.redact_stream(black_box(text.as_bytes()), &mut sink)
            .map(|s| s.bytes_out)
            .unwrap_or(0)
    });
}

/// A structured log naming `token_count`, `key_id`, `secret_name` on every line.
fn field_names_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut r = corpus::Rng::new(15);
        let mods = ["api.usage", "billing.meter", "auth.keys", "vault.sync", "llm.gateway"];
        let mut s = String::with_capacity(20_000_000 + 256);
        while s.len() < 20_000_000 {
            let ts = format!("2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z", r.range(1, 28), r.range(0, 23), r.range(0, 59), r.range(0, 59), r.range(0, 999));
            let m = r.pick(&mods);
            let hex = corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 10);
            let line = match r.below(3) {
                0 => format!("{ts} INFO {m} request_id={hex} model=gpt-4o token_count={} latency_ms={} status=200\n", r.below(9000), r.below(900)),
                1 => format!("{ts} DEBUG {m} rotated key_id=key_{hex} owner=team-{} expires_in={}s\n", r.below(50), r.below(99999)),
                _ => format!("{ts} WARN {m} secret_name=prod/db/{} version={} fetched from cache\n", r.pick(&["password", "api-key", "token"]), r.below(40)),
            };
            s.push_str(&line);
        }
        s
    })
}

/// JSON API responses with many `token`/`key` field names.
fn json_fields_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut r = corpus::Rng::new(16);
        let mut s = String::with_capacity(20_000_000 + 512);
        while s.len() < 20_000_000 {
            let hex = corpus::Rng::new(r.next_u64()).chars(corpus::HEX, 10);
            let line = match r.below(4) {
                0 => format!("{{\"id\":\"req_{hex}\",\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}}},\"token_count\":{},\"max_tokens\":4096}}\n", r.below(999), r.below(999), r.below(2000), r.below(99)),
                1 => format!("{{\"data\":[{{\"key_id\":\"key_{hex}\",\"key_name\":\"ci-{}\",\"key_prefix\":\"sk-...{}\",\"last_used_at\":null,\"key_type\":\"secret\"}}],\"has_more\":true}}\n", r.below(99), r.below(9999)),
                2 => format!("{{\"items\":[],\"next_page_token\":\"page-{}\",\"prev_page_token\":null,\"total_count\":{}}}\n", r.below(1000), r.below(100000)),
                _ => "{\"issuer\":\"https://auth.example.com\",\"token_endpoint\":\"https://auth.example.com/oauth/token\",\"token_endpoint_auth_methods_supported\":[\"client_secret_basic\",\"private_key_jwt\"],\"token_type\":\"Bearer\",\"expires_in\":3600}\n".to_string(),
            };
            s.push_str(&line);
        }
        s
    })
}

fn stream_secret_free(bencher: Bencher<'_, '_>, text: &str) {
    let r = Redactor::builtin();
    let mut sink = Vec::new();
    let stats = r
        .redact_stream(text.as_bytes(), &mut sink)
        .unwrap_or_default();
    assert_eq!(
        stats.redactions, 0,
        "the text must be secret-free: {:?}",
        stats.by_rule
    );
    bencher.counter(BytesCount::new(text.len())).bench(|| {
        let mut sink = std::io::sink();
        r.redact_stream(black_box(text.as_bytes()), &mut sink)
            .map(|s| s.bytes_out)
            .unwrap_or(0)
    });
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn stream_field_names_20mb(bencher: Bencher<'_, '_>) {
    stream_secret_free(bencher, field_names_text());
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn stream_json_fields_20mb(bencher: Bencher<'_, '_>) {
    stream_secret_free(bencher, json_fields_text());
}
