//! Throughput of the redactor on generated log text.
//!
//! * `clean_100mb`: 100 MB of secret-free log text (access logs, app logs with
//!   key=value fields, build output, stack traces; about 1 line in 20 holds a
//!   keyword such as `auth` or `token` without a secret).
//! * `dense_20mb`: 20 MB with one secret (of every built-in family, in many
//!   contexts) per ~200 bytes.
//! * `stream_clean_100mb`: the clean text through `redact_stream`.

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
