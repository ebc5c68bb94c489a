//! Public API tests of toolexec-redact: behaviour, the labelled corpus, properties.

mod corpus;

use std::borrow::Cow;
use std::io::Read;

use proptest::prelude::*;
use toolexec_redact::{Error, Redactor, Rule, RuleSet, SecretGroup, StreamOptions};

fn redactor() -> Redactor {
    Redactor::builtin()
}

// ---------------------------------------------------------------------------- corpus

/// The labelled corpus, exact: every secret record loses all its secrets and
/// keeps what it must keep (types, grep prefixes, `PWD`), and no clean record
/// changes at all. A regression of one record fails.
#[test]
fn corpus_recall_and_false_positives() {
    let redactor = redactor();
    // Three fixed seeds: each gives other secrets in the same contexts.
    let secrets: Vec<corpus::Record> = [0x5EC2E7, 2, 3]
        .into_iter()
        .flat_map(|seed| corpus::secret_records(seed, 3))
        .collect();
    let mut missed = Vec::new();
    let mut families = std::collections::BTreeSet::new();
    let mut contexts = std::collections::BTreeSet::new();
    for rec in &secrets {
        families.insert(rec.family);
        contexts.insert(rec.context);
        let out = redactor.redact(&rec.text);
        if rec.must_hide.iter().any(|s| corpus::survives(&out, s))
            || rec.must_keep.iter().any(|k| !out.contains(k.as_str()))
        {
            missed.push((rec, out.into_owned()));
        }
    }
    let mut clean = corpus::clean_records(0xC1EA7, 600);
    clean.extend(corpus::clean_records(5, 600));
    clean.extend(corpus::hard_clean_records());
    let mut changed = Vec::new();
    for rec in &clean {
        let out = redactor.redact(&rec.text);
        if out != rec.text {
            changed.push((rec, out.into_owned()));
        }
    }
    println!(
        "corpus: {} families x {} contexts = {} secret records, {} missed; \
         {} clean records, {} changed",
        families.len(),
        contexts.len(),
        secrets.len(),
        missed.len(),
        clean.len(),
        changed.len()
    );
    let mut by_place = std::collections::BTreeMap::new();
    for (rec, _) in &missed {
        *by_place.entry((rec.family, rec.context)).or_insert(0) += 1;
    }
    for ((family, context), n) in &by_place {
        println!("missed {n}: {family} in {context}");
    }
    for (rec, out) in missed.iter().take(20) {
        println!(
            "MISSED {} in {}:\n{}\n---- out:\n{}\n====",
            rec.family, rec.context, rec.text, out
        );
    }
    for (rec, out) in changed.iter().take(20) {
        println!(
            "CHANGED {}:\n{}\n---- out:\n{}\n====",
            rec.family, rec.text, out
        );
    }
    // Every family in at least ten contexts.
    for f in corpus::families() {
        let n = secrets
            .iter()
            .filter(|r| r.family == f.name)
            .map(|r| r.context)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        assert!(n >= 10, "{} only in {n} contexts", f.name);
    }
    assert_eq!(
        missed.len(),
        0,
        "{} of {} secret records missed",
        missed.len(),
        secrets.len()
    );
    assert_eq!(
        changed.len(),
        0,
        "{} of {} clean records changed",
        changed.len(),
        clean.len()
    );
}

// ---------------------------------------------------------------------------- behaviour

#[test]
fn spec_examples() {
    let r = redactor();
    assert_eq!(
        r.redact("Authorization: Bearer 9f8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d"),
        "Authorization: Bearer [REDACTED:bearer-token]"
    );
    assert_eq!(
        r.redact("postgres://app:Xk9-pl2Q@db/prod"),
        "postgres://app:[REDACTED:url-password]@db/prod"
    );
    assert_eq!(
        r.redact("token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
        "token: [REDACTED:github-token]"
    );
}

#[test]
fn borrowed_when_clean() {
    let r = redactor();
    let text = "2024-05-21T10:04:11Z INFO listening on 0.0.0.0:8080\n";
    assert!(matches!(r.redact(text), Cow::Borrowed(t) if t == text));
    // Keywords without secrets also come back borrowed.
    let text = "the token expired; please re-enter your password\n";
    assert!(matches!(r.redact(text), Cow::Borrowed(_)));
}

#[test]
fn pem_block_disappears_whole() {
    let body = "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naIzU0sBEEyEgdX3pFX4P7VUJgIg+6hLNq9Y1Aq0zQwIDAQABAoIBAQC6QzXz9pI=";
    let text = format!("$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n$ ls\n");
    assert_eq!(
        redactor().redact(&text),
        "$ cat id_rsa\n-----BEGIN RSA PRIVATE KEY-----\n[REDACTED:private-key]\n-----END RSA PRIVATE KEY-----\n$ ls\n"
    );
    let escaped = format!(
        "{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{}\\n-----END PRIVATE KEY-----\\n\"}}",
        body.replace('\n', "\\n")
    );
    assert_eq!(
        redactor().redact(&escaped),
        "{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n[REDACTED:private-key]\\n-----END PRIVATE KEY-----\\n\"}"
    );
}

#[test]
fn generic_assignments_in_many_syntaxes() {
    let r = redactor();
    for (input, want) in [
        (
            "DB_PASSWORD=Zq7!mP2xR9",
            "DB_PASSWORD=[REDACTED:generic-secret]",
        ),
        (
            "export API_KEY=\"a8f3K2m9Qz7Lw4Xc\"",
            "export API_KEY=\"[REDACTED:generic-secret]\"",
        ),
        (
            "\"password\": \"Zq7!mP2xR9\",",
            "\"password\": \"[REDACTED:generic-secret]\",",
        ),
        (
            "  client_secret: Zq7mP2xR9aB4",
            "  client_secret: [REDACTED:generic-secret]",
        ),
        (
            "mysql -u root -pZq7mP2xR9 app",
            "mysql -u root -p[REDACTED:generic-secret] app",
        ),
        (
            "deploy --token=a8f3K2m9Qz7Lw4Xc",
            "deploy --token=[REDACTED:generic-secret]",
        ),
        (
            "Server=db;User Id=sa;Password=Zq7!mP2xR9;",
            "Server=db;User Id=sa;Password=[REDACTED:generic-secret];",
        ),
        (
            "X-API-Key: a8f3K2m9Qz7Lw4Xc",
            "X-API-Key: [REDACTED:generic-secret]",
        ),
    ] {
        assert_eq!(r.redact(input), want, "{input}");
    }
}

#[test]
fn placeholders_and_lookalikes_are_left() {
    let r = redactor();
    for text in [
        "DB_PASSWORD=${DB_PASSWORD}",
        "api_key: your-api-key-here",
        "token: <token>",
        "SECRET=xxxxxxxx",
        "Authorization: Bearer $TOKEN",
        "password: null",
        "checksum = \"3f5e2b0c9a8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f\"",
        "\"integrity\": \"sha512-Q2FyZ28ubG9jayBjaGVja3N1bSBsb29rcyBsaWtlIGJhc2U2NCBidXQgaXMgbm90IGEgc2VjcmV0IGtleSBhdCBhbGwgb2s=\"",
        "request_id=3f2504e0-4f89-41d3-9a0c-0305e82c3301",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "max_tokens: 4096",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    ] {
        assert_eq!(r.redact(text), text, "{text}");
    }
}

#[test]
fn known_values_and_their_escaped_forms() {
    let r = Redactor::builder()
        .env_values(false)
        .known_value("s3cr3t\"value/with\\slashes")
        .build()
        .unwrap();
    assert_eq!(
        r.redact("x s3cr3t\"value/with\\slashes y"),
        "x [REDACTED:known-value] y"
    );
    assert_eq!(
        r.redact(r#"{"v":"s3cr3t\"value/with\\slashes"}"#),
        r#"{"v":"[REDACTED:known-value]"}"#
    );
    assert_eq!(
        r.redact(r#"{"v":"s3cr3t\"value\/with\\slashes"}"#),
        r#"{"v":"[REDACTED:known-value]"}"#
    );
    assert_eq!(
        r.redact("s3cr3t%22value%2Fwith%5Cslashes"),
        "[REDACTED:known-value]"
    );
    // Wrapped by a line break.
    assert_eq!(
        r.redact("s3cr3t\"value/wi\nth\\slashes!"),
        "[REDACTED:known-value]!"
    );
    // Masked as given: case-sensitive.
    assert_eq!(
        r.redact("S3CR3T\"VALUE/WITH\\SLASHES"),
        "S3CR3T\"VALUE/WITH\\SLASHES"
    );
}

#[test]
fn env_values_are_masked_when_the_name_looks_secret() {
    let r = Redactor::builder()
        .env_vars([
            ("MY_SERVICE_TOKEN", "tok-7f3a9c2e51"),
            ("DEPLOY_PASSWORD", "pässwörd-ünïcode"),
            ("HOME", "/home/runner/very-long"),
            ("API_KEY", "short"),
            ("SOME_SECRET", "${OTHER}"),
        ])
        .build()
        .unwrap();
    assert_eq!(r.env_value_count(), 2);
    assert_eq!(
        r.redact("using tok-7f3a9c2e51 now"),
        "using [REDACTED:env-secret] now"
    );
    assert_eq!(r.redact("pw=pässwörd-ünïcode"), "pw=[REDACTED:env-secret]");
    assert_eq!(
        r.redact(r#"{"pw":"p\u00e4ssw\u00f6rd-\u00fcn\u00efcode"}"#),
        r#"{"pw":"[REDACTED:env-secret]"}"#
    );
    assert_eq!(
        r.redact("home is /home/runner/very-long"),
        "home is /home/runner/very-long"
    );
    assert_eq!(r.redact("short"), "short");
}

#[test]
fn user_rules_from_code_and_files() {
    let rule = Rule::builder("acme-token", r"\b(acme_[a-z0-9]{32})\b")
        .secret_group(1)
        .keywords(["acme_"])
        .min_entropy(3.0)
        .allow("^acme_0+$")
        .build()
        .unwrap();
    assert_eq!(rule.id(), "acme-token");
    assert_eq!(rule.secret_group(), &SecretGroup::Index(1));
    let r = Redactor::builder()
        .env_values(false)
        .rule(rule)
        .build()
        .unwrap();
    assert_eq!(
        r.redact("key acme_0123456789abcdefghijklmnopqrstuv end"),
        "key [REDACTED:acme-token] end"
    );
    assert_eq!(
        r.redact("key acme_00000000000000000000000000000000 end"),
        "key acme_00000000000000000000000000000000 end"
    );

    let toml = r#"
[[rules]]
id = "internal-ticket-key"
pattern = '''TK-(?P<secret>[A-Z0-9]{20})'''
secret_group = "secret"
keywords = ["tk-"]
"#;
    let set = RuleSet::from_toml_str(toml).unwrap();
    assert_eq!(set.len(), 1);
    let json = r#"{"rules": [{"id": "corp-pin", "pattern": "PIN:(\\d{6})", "secret_group": 1, "keywords": ["pin:"]}]}"#;
    let set2 = RuleSet::from_json_str(json).unwrap();
    let r = Redactor::builder()
        .env_values(false)
        .rules(set)
        .rules(set2)
        .build()
        .unwrap();
    assert_eq!(
        r.redact("TK-ABCDEFGHIJ0123456789 PIN:123456"),
        "TK-[REDACTED:internal-ticket-key] PIN:[REDACTED:corp-pin]"
    );

    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let path = dir.join("rules.toml");
    std::fs::write(&path, toml).unwrap();
    assert_eq!(RuleSet::from_path(&path).unwrap().len(), 1);
    let bad = dir.join("rules.yaml");
    std::fs::write(&bad, "x").unwrap();
    assert!(matches!(
        RuleSet::from_path(&bad),
        Err(Error::UnknownFormat { .. })
    ));
    assert!(matches!(
        RuleSet::from_path(dir.join("missing.json")),
        Err(Error::Io { .. })
    ));
}

#[test]
fn rule_errors_name_the_problem() {
    assert!(matches!(
        Rule::builder("Bad Id", "x").build(),
        Err(Error::InvalidRuleId { .. })
    ));
    assert!(matches!(
        Rule::builder("ok", "(").build(),
        Err(Error::InvalidPattern { .. })
    ));
    assert!(matches!(
        Rule::builder("ok", "(a)").secret_group(2).build(),
        Err(Error::UnknownSecretGroup { .. })
    ));
    assert!(matches!(
        Rule::builder("ok", "(a)").secret_group("nope").build(),
        Err(Error::UnknownSecretGroup { .. })
    ));
    assert!(matches!(
        Rule::builder("ok", "a").keyword("").build(),
        Err(Error::InvalidKeyword { .. })
    ));
    assert!(matches!(
        Rule::builder("ok", "a").min_entropy(f64::NAN).build(),
        Err(Error::InvalidEntropy { .. })
    ));
    let e = RuleSet::from_toml_str("[[rules]]\nid = 3").unwrap_err();
    assert!(e.to_string().starts_with("invalid toml rules:"), "{e}");
    let e = RuleSet::from_json_str("{").unwrap_err();
    assert!(e.to_string().starts_with("invalid json rules:"), "{e}");
}

#[test]
fn stats_and_findings() {
    let r = redactor();
    let text = "a=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 b=AKIAZ7Q3MXR5TYBW2LPK";
    let (out, stats) = r.redact_with_stats(text);
    assert_eq!(
        out,
        "a=[REDACTED:github-token] b=[REDACTED:aws-access-key-id]"
    );
    assert_eq!(stats.redactions, 2);
    assert_eq!(stats.by_rule.get("github-token"), Some(&1));
    let f = r.find(text);
    assert_eq!(f.len(), 2);
    assert_eq!(&text[f[1].start..f[1].end], "AKIAZ7Q3MXR5TYBW2LPK");
    assert_eq!(f[1].rule_id, "aws-access-key-id");
}

#[test]
fn bytes_need_not_be_utf8() {
    let r = redactor();
    let mut input = b"\xff\xfe token=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 \xc3".to_vec();
    let out = r.redact_bytes(&input).into_owned();
    assert_eq!(out, b"\xff\xfe token=[REDACTED:github-token] \xc3".to_vec());
    input.truncate(3);
    assert!(matches!(r.redact_bytes(&input), Cow::Borrowed(_)));
}

#[test]
fn redactor_is_shareable() {
    fn assert_send_sync<T: Send + Sync + Clone + 'static>() {}
    assert_send_sync::<Redactor>();
    let r = redactor();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let r = r.clone();
            std::thread::spawn(move || r.redact(&format!("k{i} AKIAZ7Q3MXR5TYBW2LPK")).into_owned())
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap().ends_with("[REDACTED:aws-access-key-id]"));
    }
}

/// A reader handing out at most `sizes[i % len]` bytes per call.
struct Chunked<'a> {
    data: &'a [u8],
    sizes: Vec<usize>,
    i: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.sizes[self.i % self.sizes.len()]
            .max(1)
            .min(buf.len())
            .min(self.data.len());
        self.i += 1;
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

trait FloorBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        i = i.min(self.len());
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

fn stream(r: &Redactor, text: &[u8], sizes: Vec<usize>, chunk: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let reader = Chunked {
        data: text,
        sizes,
        i: 0,
    };
    r.redact_stream_with(
        reader,
        &mut out,
        StreamOptions {
            chunk_size: chunk,
            max_buffer: 1 << 24,
        },
    )
    .unwrap();
    out
}

#[test]
fn stream_of_a_large_input_equals_one_shot() {
    let r = redactor();
    let recs = corpus::secret_records(7, 1);
    let mut text = String::new();
    for rec in recs.iter().cycle().take(4000) {
        text.push_str(&rec.text);
        text.push_str("2024-05-21T10:04:11Z INFO plain log line without anything\n");
    }
    let one = r.redact(&text).into_owned();
    let mut out = Vec::new();
    let stats = r.redact_stream(text.as_bytes(), &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), one);
    assert_eq!(stats.bytes_in, text.len() as u64);
    assert_eq!(stats.bytes_out, one.len() as u64);
    assert!(stats.redactions > 3000);
    // Small pieces too.
    let part = &text[..text.floor_char_boundary_compat(200_000)];
    assert_eq!(
        String::from_utf8(stream(&r, part.as_bytes(), vec![7, 300, 1], 4096)).unwrap(),
        r.redact(part)
    );
}

#[test]
fn stream_holds_a_private_key_split_across_reads() {
    let r = redactor();
    let body: String = (0..40)
        .map(|i| format!("{:064}\n", i).replace('0', "Ab9+"))
        .map(|l| l[..64].to_string() + "\n")
        .collect();
    let text = format!("start\n-----BEGIN OPENSSH PRIVATE KEY-----\n{body}-----END OPENSSH PRIVATE KEY-----\nend\n");
    let out = String::from_utf8(stream(&r, text.as_bytes(), vec![13], 64)).unwrap();
    assert_eq!(out, "start\n-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED:private-key]\n-----END OPENSSH PRIVATE KEY-----\nend\n");
}

/// A keyword-dense text: every line names a key or token, some hold secrets,
/// Kubernetes `name:`/`value:` pairs, a PEM block and a long line.
fn keyword_dense(lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        match i % 9 {
            0 => s.push_str(&format!("ts={i} level=info token_count={i} key_id=key_{i:04} secret_name=db/{i}\n")),
            1 => s.push_str(&format!("- name: DB_PASSWORD_{i}\n  value: Zq9vK2mL7pXw{i:04}\n")),
            2 => s.push_str(&format!("export API_TOKEN=ghp_{}{i:04}\n", &"aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"[..32])),
            3 => s.push_str("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Vh3bq9Zs1Tq2Jm4n5A8x0P3rW6yLk2Fv9Qd1Hs8Tc4Ue7Rb\nX2c5Mn8Kp1Lq4Ws7Ev0Rt3Yu6Io9Pa2Sd5Fg8Hj1Kl4Zx7Cv0Bn3Mq6We9Rt2Y\n-----END RSA PRIVATE KEY-----\n"),
            4 => s.push_str(&format!("{}password=hunter2-{i:05}-Lr8nK3sYbQ{}\n", "token key ".repeat(40), " key".repeat(30))),
            5 => s.push_str(&format!("{{\"key_id\":\"k{i}\",\"token_type\":\"bearer\",\"secret\":\"s3cr3t-Vx8{i:05}Qa\"}}\n")),
            _ => s.push_str(&format!("auth: password policy check {i} passed; key rotation scheduled\n")),
        }
    }
    s
}

/// The secrets [`keyword_dense`] planted.
fn keyword_dense_secrets(lines: usize) -> Vec<String> {
    let mut v = Vec::new();
    for i in 0..lines {
        match i % 9 {
            1 => v.push(format!("Zq9vK2mL7pXw{i:04}")),
            2 => v.push(format!(
                "ghp_{}{i:04}",
                &"aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"[..32]
            )),
            3 => {
                v.push("X2c5Mn8Kp1Lq4Ws7Ev0Rt3Yu6Io9Pa2Sd5Fg8Hj1Kl4Zx7Cv0Bn3Mq6We9Rt2Y".to_string())
            }
            4 => v.push(format!("hunter2-{i:05}-Lr8nK3sYbQ")),
            5 => v.push(format!("s3cr3t-Vx8{i:05}Qa")),
            _ => {}
        }
    }
    v
}

fn assert_hidden(out: &str, secrets: &[String]) {
    // Any 10-byte piece of a secret left readable is a leak: all pieces are
    // looked for in one pass (a search per piece took most of a 40 MB test).
    let pieces: Vec<(&str, &str)> = secrets
        .iter()
        .flat_map(|sec| {
            sec.as_bytes()
                .windows(10)
                .step_by(5)
                .map(move |w| (std::str::from_utf8(w).unwrap(), sec.as_str()))
        })
        .collect();
    let ac = aho_corasick::AhoCorasick::new(pieces.iter().map(|p| p.0)).unwrap();
    if let Some(m) = ac.find(out) {
        let (w, sec) = pieces[m.pattern().as_usize()];
        panic!("{w:?} of {sec:?} readable");
    }
}

#[test]
fn stream_at_every_read_boundary_equals_one_shot() {
    // Keyword-dense lines, then one 3 KB line of keywords with a password in
    // it: with small rounds there is no safe cut in it (forced cuts).
    let mut text = keyword_dense(4);
    text.push_str(&"token key ".repeat(60));
    text.push_str("password=Lr8nK3sYbQ-hunter2 ");
    text.push_str(&"key token ".repeat(60));
    text.push('\n');
    for block in [usize::MAX, 1024] {
        let r = if block == usize::MAX {
            redactor()
        } else {
            Redactor::builder()
                .env_values(false)
                .block_size(block)
                .build()
                .unwrap()
        };
        let one = r.redact(&text).into_owned();
        assert_hidden(&one, &keyword_dense_secrets(4));
        assert!(!one.contains("Lr8nK3sYbQ"));
        for i in 0..=text.len() {
            let out = stream(&r, text.as_bytes(), vec![i, text.len()], 1);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                one,
                "block {block}, read split at {i}"
            );
        }
    }
}

/// Small rounds force cuts inside windows (a chain of windows longer than a
/// round): no secret may come out readable, and one-shot still equals the stream.
#[test]
fn forced_cuts_never_leak() {
    let text = keyword_dense(400);
    let secrets = keyword_dense_secrets(400);
    let whole = redactor().redact(&text).into_owned();
    assert_hidden(&whole, &secrets);
    for block in [1024, 3000, 20_000] {
        let r = Redactor::builder()
            .env_values(false)
            .block_size(block)
            .build()
            .unwrap();
        let one = r.redact(&text).into_owned();
        assert_hidden(&one, &secrets);
        assert_eq!(
            String::from_utf8(stream(&r, text.as_bytes(), vec![17, 4096, 3], 4096)).unwrap(),
            one,
            "block {block}"
        );
    }
}

/// The leak repro of issue 15 at `scale` × 1 MB: half of it one long line
/// where keywords never stop (no line start to cut at, `password=` every
/// 64 KiB), then Kubernetes pairs, PEM blocks, long `password=` lines.
fn keyword_dense_stream(scale: usize) -> String {
    let mut text = String::with_capacity((scale + 1) << 20);
    let unit = "token_count=3 key_id=k7 secret_name=db ";
    while text.len() < scale << 19 {
        text.push_str(unit);
        if text.len() % (64 << 10) < unit.len() {
            text.push_str("password=Lr8nK3sYbQ-hunter2 ");
        }
    }
    text.push('\n');
    let tail = keyword_dense(4000);
    while text.len() < scale << 20 {
        text.push_str(&tail);
    }
    text
}

/// The leaks of the old 16 MiB forced cut in a keyword-dense stream: one
/// long line (no line start to cut at) followed by Kubernetes pairs, PEM
/// blocks and long `password=` lines. 4 MB with 128 KiB rounds make the same
/// number of forced cuts as 40 MB with the default 1 MiB rounds; the 40 MB
/// run itself is `keyword_dense_40mb_stream_leaks_nothing`.
#[test]
fn keyword_dense_stream_with_forced_cuts_leaks_nothing() {
    let r = Redactor::builder()
        .env_values(false)
        .block_size(128 << 10)
        .build()
        .unwrap();
    let text = keyword_dense_stream(4);
    let lines = 4000;
    let mut out = Vec::new();
    r.redact_stream(text.as_bytes(), &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        !out.contains("Lr8nK3sYbQ"),
        "a password in the long line is readable"
    );
    assert_hidden(&out, &keyword_dense_secrets(lines));
    assert_eq!(out, r.redact(&text));
}

/// Issue 15's leak repro at full size: 40 MB of keyword-dense stream with
/// the default 1 MiB rounds, read in odd sizes (~3 s in a test build).
#[test]
fn keyword_dense_40mb_stream_leaks_nothing() {
    let r = redactor();
    let text = keyword_dense_stream(40);
    let out = String::from_utf8(stream(
        &r,
        text.as_bytes(),
        vec![65_537, 1 << 20, 3],
        1 << 20,
    ))
    .unwrap();
    assert!(
        !out.contains("Lr8nK3sYbQ"),
        "a password in the long line is readable"
    );
    assert_hidden(&out, &keyword_dense_secrets(4000));
    assert_eq!(out, r.redact(&text));
}

// ---------------------------------------------------------------------------- properties

/// Text pieces that exercise the rules: keywords, separators, secrets, markers.
fn piece() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "password",
        "token",
        "secret",
        "api_key",
        "Authorization: ",
        "Bearer ",
        "Basic ",
        "=",
        ": ",
        "\"",
        "'",
        " ",
        " ",
        "\n",
        "\\n",
        "://",
        "@",
        "user:",
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----",
        "[REDACTED:generic-secret]",
        "[REDACTED:",
        "]",
        "ghp_",
        "AKIA",
        "sk-",
        "xoxb-",
        "eyJ",
        ".",
        "==",
        "--password ",
        "-p",
        "mysql ",
        "AccountKey=",
        "sig=",
        "Cookie: session=",
        ";",
        "&",
        "?",
        "%22",
        "\\\"",
        "${",
        "}",
        "é",
        "€",
        // The contexts of issue 15.
        "?=",
        "::=",
        ".=",
        " || '",
        " ?? \"",
        "process.env.API_TOKEN",
        "System.setProperty(\"",
        "\", \"",
        ":-",
        "<password>",
        "</password>",
        "DB_PW=",
        "PWD=",
        "const API_TOKEN: &str = \"",
        "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhR2xQ.",
        // Commands continued over lines, and secrets stored from them.
        " \\\n  ",
        " ^\r\n",
        "docker login ",
        "redis-cli -a ",
        "echo \"",
        "\" | docker secret create x -",
        " <<< ",
    ])
    .prop_map(str::to_string);
    prop_oneof![
        4 => fixed,
        2 => "[A-Za-z0-9+/]{1,70}",
        1 => "[a-z]{1,8}",
        1 => (any::<u64>(), 0..8usize).prop_map(|(seed, i)| {
            let mut rng = corpus::Rng::new(seed);
            let fams = corpus::families();
            let f = &fams[(seed as usize / 7 + i) % fams.len()];
            let s = (f.gen)(&mut rng);
            corpus::minimal(f, &s)
        }),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn prop_idempotent(t in text()) {
        let r = redactor();
        let once = r.redact(&t).into_owned();
        let twice = r.redact(&once).into_owned();
        prop_assert_eq!(twice, once);
    }

    #[test]
    fn prop_never_panics(s in any::<String>(), b in prop::collection::vec(any::<u8>(), 0..512)) {
        let r = redactor();
        let _ = r.redact(&s);
        let _ = r.redact_bytes(&b);
        let mut out = Vec::new();
        r.redact_stream_with(&b[..], &mut out, StreamOptions { chunk_size: 7, max_buffer: 64 }).unwrap();
    }

    #[test]
    fn prop_embedded_secret_never_survives(
        seed in any::<u64>(),
        family in 0..64usize,
        filler in "[A-Za-z0-9 .,;:!?()\n-]{0,300}",
        at in 0..301usize,
    ) {
        let fams = corpus::families();
        let f = &fams[family % fams.len()];
        let mut rng = corpus::Rng::new(seed);
        let s = (f.gen)(&mut rng);
        let secret = corpus::minimal(f, &s);
        let at = at.min(filler.len());
        let text = format!("{} {} {}", &filler[..at], secret, &filler[at..]);
        let out = redactor().redact(&text).into_owned();
        for h in corpus::minimal_hidden(f, &s) {
            prop_assert!(!corpus::survives(&out, &h), "{} survived in {:?} -> {:?}", f.name, text, out);
        }
    }

    #[test]
    fn prop_no_keyword_means_unchanged_and_borrowed(t in "[bcdfhjluvwxyz1-35689 \n,;!?()]{0,400}") {
        let r = redactor();
        match r.redact(&t) {
            Cow::Borrowed(b) => prop_assert_eq!(b, t.as_str()),
            Cow::Owned(o) => prop_assert!(false, "allocated for {:?}: {:?}", t, o),
        }
    }

    #[test]
    fn prop_stream_equals_one_shot(t in text(), sizes in prop::collection::vec(1..50usize, 1..8), chunk in 1..96usize) {
        let r = redactor();
        let one = r.redact(&t).into_owned();
        let streamed = stream(&r, t.as_bytes(), sizes, chunk);
        prop_assert_eq!(String::from_utf8(streamed).unwrap(), one);
    }

    /// Under a tiny round size (many forced cuts) on keyword-dense text the
    /// stream still equals one-shot, whatever the reads.
    #[test]
    fn prop_stream_equals_one_shot_under_tiny_rounds(
        t in prop::collection::vec(text(), 1..40).prop_map(|v| v.concat()),
        block in 1024..3000usize,
        sizes in prop::collection::vec(1..50usize, 1..8),
    ) {
        let r = Redactor::builder().env_values(false).block_size(block).build().unwrap();
        let one = r.redact(&t).into_owned();
        prop_assert_eq!(String::from_utf8(stream(&r, t.as_bytes(), sizes.clone(), 1)).unwrap(), one.clone());
        // Arbitrary bytes: the stream equals redact_bytes.
        let mut bytes = t.into_bytes();
        bytes.insert(bytes.len() / 2, 0xE9);
        let want = r.redact_bytes(&bytes).into_owned();
        prop_assert_eq!(stream(&r, &bytes, sizes, 1), want.clone());
        // Straight from the slice, on one and on three threads: the same
        // rounds, so the same bytes; `done` only ever grows, within the text.
        for threads in [1, 3] {
            let mut out = Vec::new();
            let mut done = Vec::new();
            r.with_threads(threads)
                .redact_slice_to(&bytes, &mut out, |n| done.push(n))
                .unwrap();
            prop_assert_eq!(&out, &want, "threads {}", threads);
            prop_assert!(done.windows(2).all(|w| w[0] < w[1]) && done.iter().all(|&n| n <= bytes.len()));
        }
    }
}

#[test]
fn no_keyword_alphabet_cannot_form_a_keyword() {
    // Guards `prop_no_keyword_means_unchanged_and_borrowed`: every built-in
    // keyword needs a character outside the alphabet used there (no `4`:
    // `4b1d` is a keyword; no `7`: `7z` is one; no `0`: `00d` is one).
    let alphabet = "bcdfhjluvwxyz1235689 \n,;!?()";
    for rule in RuleSet::builtin().iter() {
        for k in rule.keywords() {
            assert!(
                k.to_ascii_lowercase()
                    .chars()
                    .any(|c| !alphabet.contains(c)),
                "keyword {k:?} of {} fits the alphabet",
                rule.id()
            );
        }
    }
}

/// Shrunk failures of the properties and probe findings, kept as named cases.
#[test]
fn regressions() {
    let r = redactor();
    // An Azure key that starts with `/` is not a path.
    let k =
        "/5A0tL1BQJ6KOo2KZuphSMBAYMXcH/7TY1MYgF12k4oSnRbwdnWWXG2eku7fNJywbh38sui4fPZU031JNGT6wg==";
    assert_eq!(
        r.redact(&format!(" AZURE_STORAGE_KEY={k} ")),
        " AZURE_STORAGE_KEY=[REDACTED:azure-storage-key] "
    );
    // Real AWS session tokens contain runs of `/`.
    let t = "IQoJb3JpZ2luX2VjEPT//////////wEaCXVzLWVhc3QtMSJHMEUCIQDdtLqzJ9kPnTx3kk8v1kdZ7jQ5fFLkQ7p+uM2D5vY7dwIgT8";
    assert_eq!(
        r.redact(&format!("\"SessionToken\": \"{t}\"")),
        "\"SessionToken\": \"[REDACTED:aws-session-token]\""
    );
    // Passwords may start with `!`.
    assert_eq!(
        r.redact("created admin user with password: !9v^TAPBKk"),
        "created admin user with password: [REDACTED:generic-secret]"
    );
    // A Discord webhook keeps its id, loses its token.
    assert_eq!(
        r.redact("https://discord.com/api/webhooks/1234567890123456789/sXNqMp7AQWyPlwp3DDhfpqOo343tJhaxW3xUFBYWP7wd7ODyZ8AAvoGRfI3hSoI0h9nKab"),
        "https://discord.com/api/webhooks/1234567890123456789/[REDACTED:discord-webhook]"
    );
    // YAML value on the next line; XML entry keyed by attribute.
    assert_eq!(
        r.redact("password:\n  Zx9kLm2QpV\n"),
        "password:\n  [REDACTED:generic-secret]\n"
    );
    assert_eq!(
        r.redact("<entry key=\"db.password\">Zx9kLm2QpV</entry>"),
        "<entry key=\"db.password\">[REDACTED:generic-secret]</entry>"
    );
    // Twilio auth token after the account SID.
    assert_eq!(
        r.redact(
            "Client(\"AC1234567890abcdef1234567890abcdef\", \"f1e2d3c4b5a6978877665544332211aa\")"
        ),
        "Client(\"AC1234567890abcdef1234567890abcdef\", \"[REDACTED:twilio-auth-token]\")"
    );
    // A rejected match must not hide a later assignment (idempotence).
    let t = "ahttps://hooks.slack.com/services/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Authorization: passwordAuthorization: Auser:";
    let once = r.redact(t).into_owned();
    assert_eq!(r.redact(&once), once);
    // Paths after `::` are not assignments; ARNs name secrets.
    for clean in [
        "DEBUG auth::session token refreshed",
        "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf",
        "SECRET_KEY = get_secret(\"django\")",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

// ---------------------------------------------------------------------------- issue 15

/// `n` characters of `alphabet`, mixed deterministically (a token body).
fn body(alphabet: &str, n: usize, seed: u64) -> String {
    let a = alphabet.as_bytes();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize] as char
        })
        .collect()
}

const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &str = "0123456789abcdef";
const LOW: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
const UP: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

#[test]
fn typed_declarations_mask_the_value_never_the_type() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let cases = [
        (
            format!("const API_TOKEN: &str = \"{v}\";"),
            "const API_TOKEN: &str = \"[REDACTED:generic-secret]\";",
        ),
        (
            format!("pub static SIGNING_KEY: &'static str = \"{v}\";"),
            "pub static SIGNING_KEY: &'static str = \"[REDACTED:generic-secret]\";",
        ),
        (
            format!("let key: String = \"{v}\".to_string();"),
            "let key: String = \"[REDACTED:generic-secret]\".to_string();",
        ),
        (
            format!("var tok string = \"{v}\""),
            "var tok string = \"[REDACTED:generic-secret]\"",
        ),
        (
            format!("const apiToken: string = '{v}';"),
            "const apiToken: string = '[REDACTED:generic-secret]';",
        ),
        (
            format!("val apiKey: String = \"{v}\""),
            "val apiKey: String = \"[REDACTED:generic-secret]\"",
        ),
        (
            format!("var password string = `{v}`"),
            "var password string = `[REDACTED:generic-secret]`",
        ),
    ];
    for (input, want) in &cases {
        assert_eq!(r.redact(input), *want, "{input}");
    }
    // Types alone: untouched.
    for clean in [
        "    pub eq_token: Token![=],",
        "    arrow_token: Token![=>],",
        "        pwd: *mut passwd,",
        "        pub pw_passwd: *mut c_char,",
        "        operator_token_result: TokenizeResult,",
        "static ALLOC_PTHREAD_KEY: CachePadded<PThreadKey<ThreadAllocInfo>> = CachePadded(PThreadKey::new());",
        "        let tokens = vec!(Token::ParenOpen, Token::Semi, Token::ParenClose);",
        "async refreshToken(refreshToken: string): Promise<void> {",
        "fn check(password: &str, api_key: Option<String>) -> bool {",
        "interface Creds { token: string; secret?: string }",
        "    secret_key: [u8; 32],",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

#[test]
fn a_rust_file_keeps_its_types_and_loses_its_values() {
    let r = redactor();
    let v = "hN4kTq8ZrW2mLx7Pb5Vc";
    let src = format!(
        "use syn::Token;\n\npub struct Assign {{\n    pub eq_token: Token![=],\n    pub pwd: *mut passwd,\n}}\n\nconst API_TOKEN: &str = \"{v}\";\n\nfn main() {{\n    let key: String = \"{v}\".into();\n    let api_key: Option<String> = None;\n}}\n"
    );
    let out = r.redact(&src).into_owned();
    assert!(!out.contains(v), "{out}");
    assert_eq!(out, src.replace(v, "[REDACTED:generic-secret]"));
}

#[test]
fn grep_prefixes_are_kept() {
    let r = redactor();
    let tok = format!("ghp_{}", body(AN, 36, 1));
    assert_eq!(
        r.redact(&format!("creds.txt:2:github = {tok}")),
        "creds.txt:2:github = [REDACTED:github-token]"
    );
    assert_eq!(
        r.redact("config/app.yml:14:  password: Zq9vK2mL7pXw"),
        "config/app.yml:14:  password: [REDACTED:generic-secret]"
    );
    for clean in [
        "src/token.rs:120:    let n = 4;",
        "src/key.rs-7-fn main() {}",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Literals handed to secret-named setters, stored in C arrays and macros,
/// and Ansible's and Helm's `key:`/`value:` pairs are masked; setters given
/// a variable, several literals or a charset, macros of numbers and names,
/// and index comparisons stay.
#[test]
fn setters_c_arrays_macros_and_key_value_pairs_mask_the_literal() {
    let r = redactor();
    let v = "Zq8vR2mK9pLx4TnW";
    for text in [
        format!("client.setPassword(\"{v}\");"),
        format!("cfg.set_api_key('{v}')"),
        format!("Client.builder().withClientSecret(\"{v}\").build();"),
        format!("opts.SetToken(`{v}`)"),
        // A builder's method named by the secret (see
        // `builder_methods_pat_names_and_values_below_are_masked`).
        format!("client.password(\"{v}\")"),
        format!("user.setPass( \"{v}\" );"),
        format!("char secret[] = \"{v}\";"),
        format!("static const char API_TOKEN[33] = \"{v}\";"),
        format!("char pass[] = \"{v}\";"),
        format!("#define WIFI_PASSWORD \"{v}\""),
        format!("  #  define BLYNK_AUTH_TOKEN \"{v}\""),
        format!("- key: DB_PASSWORD\n  value: {v}\n"),
    ] {
        let out = r.redact(&text);
        assert_eq!(out, text.replace(v, "[REDACTED:generic-secret]"), "{text}");
    }
    for clean in [
        "user.setPassword(password);",
        "user.setPassword(\"\");",
        "settingsToken(\"Zq8vR2mK9pLx4TnW\");",
        "client.passwordField(\"Zq8vR2mK9pLx4TnW\")",
        "this.filter.setCredentialsCharset(\"ISO-8859-1\");",
        "credentialsCharset = \"ISO-8859-1\"",
        "setSecretName(\"prod/db/password\");",
        "#define API_KEY_LEN 32",
        "#define PASSWORD_PROMPT \"Enter password: \"",
        "#define SECRET_KEY SECRET_KEY_FROM_ENV",
        "char password[64];",
        "if (token[0] == \"x\") {}",
        "- key: LOG_LEVEL\n  value: debug\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Package managers' and git's configuration set from the command line:
/// the value of a secret-named setting is masked, as are a repository's
/// basic credentials and Bundler's host credentials; settings that name no
/// secret, placeholders and a signing key's public id stay.
#[test]
fn config_commands_mask_the_value_and_signing_key_ids_stay() {
    let r = redactor();
    let v = "9dR2vLq8Zx4TnWmK7pB3sY6uH1jF5gC0";
    for (text, id) in [
        (
            format!("git config --global github.token {v}"),
            "generic-secret",
        ),
        (
            format!("npm config set //registry.npmjs.org/:_authToken {v}"),
            "generic-secret",
        ),
        (
            format!("yarn config set npmAuthToken \"{v}\""),
            "generic-secret",
        ),
        (
            format!("poetry config http-basic.pypi bob {v}"),
            "generic-secret",
        ),
        (
            format!("composer config --global http-basic.repo.example.com bob {v}"),
            "generic-secret",
        ),
        (
            format!("bundle config set --global gems.contribsys.com bob:{v}"),
            "bundler-credentials",
        ),
    ] {
        let masked = if id == "bundler-credentials" {
            text.replace(&format!("bob:{v}"), &format!("[REDACTED:{id}]"))
        } else {
            text.replace(v, &format!("[REDACTED:{id}]"))
        };
        assert_eq!(r.redact(&text), masked, "{text}");
    }
    for clean in [
        "git config --global credential.helper store",
        "git config --global credential.helper \"cache --timeout=3600\"",
        "git config --global user.signingkey 3AA5C34371567BD2",
        "[user]\n\tsigningkey = 3AA5C34371567BD2\n",
        "GPG_SIGNING_KEY=3AA5C34371567BD2",
        "npm config set registry https://registry.npmjs.org/",
        "npm config get _authToken",
        "yarn config set npmAuthToken \"${NPM_TOKEN}\"",
        "bundle config set --local path vendor/bundle",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Passwords given to commands as positional arguments or short flags,
/// basic credentials passed as a pair of literals and Spring's property
/// defaults are masked; the same commands without a password stay.
#[test]
fn command_lines_and_basic_auth_pairs_mask_the_password() {
    let r = redactor();
    let v = "Zq8vR2mK9pLx4TnW";
    for text in [
        format!("requests.get(url, auth=(\"bob\", \"{v}\"))"),
        format!("auth = HTTPBasicAuth(\"bob\", '{v}')"),
        format!("req.SetBasicAuth(\"bob\", \"{v}\")"),
        format!("h.setBasicAuth(\"client\", \"{v}\");"),
        format!(".basic_auth(\"bob\", Some(\"{v}\"))"),
        format!("@Value(\"${{db.password:{v}}}\")"),
        format!("password: ${{DB_PASSWORD:{v}}}"),
        format!("ssh-keygen -t ed25519 -N \"{v}\" -f key"),
        format!("jarsigner -storepass {v} app.jar alias"),
        format!("mongosh \"mongodb://db\" -u admin -p {v}"),
        format!("rabbitmqctl add_user bob {v}"),
        format!("net user bob {v} /add"),
        format!("echo \"bob:{v}\" | chpasswd"),
        format!("mc alias set local http://localhost:9000 minioadmin {v}"),
        format!("sqlplus system/{v}@//db:1521/ORCL"),
    ] {
        assert_eq!(
            r.redact(&text),
            text.replace(v, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
    for clean in [
        "net user bob /delete",
        "net user bob *",
        "sqlplus / as sysdba",
        "sqlplus -s /nolog",
        "rman target /",
        "requests.get(url, auth=(\"bob\", password))",
        "req.SetBasicAuth(user, pass)",
        "mc alias set local http://localhost:9000 minioadmin $MINIO_SECRET",
        "@Value(\"${server.port:8080}\")",
        "password: ${DB_PASSWORD:}",
        "echo ${TOKEN:0:8}",
        "ssh-keygen -t ed25519 -N \"\" -f key",
        "mongosh --port 27017",
        "we pass the token to the next stage",
        "jarsigner -storepass:file pass.txt app.jar alias",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Windows' task scheduler, MQTT clients, Samba, Vault's unseal, SQLCipher,
/// LUKS and PowerShell's secure strings take passwords and keys on the
/// command line; the same commands prompting or reading a file stay.
#[test]
fn scheduler_mqtt_samba_unseal_sqlcipher_and_luks_passwords_are_masked() {
    let r = redactor();
    let v = "Wq7xLm2VbN9rKt4Z";
    assert_masked(
        &r,
        v,
        &[
        format!("schtasks /create /tn backup /tr backup.bat /sc daily /ru admin /rp {v}"),
        format!("mosquitto_pub -h broker -u bob -P {v} -t t -m hi"),
        format!("smbclient //srv/share {v} -U bob"),
        format!("vault operator unseal {v}"),
        format!("PRAGMA key = '{v}';"),
        format!("sqlite> PRAGMA main.rekey = \"{v}\";"),
        format!("sqlite3 db \"ATTACH DATABASE 'x.db' AS x KEY '{v}'\""),
        format!("cryptsetup luksOpen /dev/sdb1 data <<< \"{v}\""),
        format!("echo -n \"{v}\" | cryptsetup open /dev/sdb1 data -"),
        format!("Set-ADAccountPassword bob -NewPassword (ConvertTo-SecureString -AsPlainText \"{v}\" -Force)"),
        ],
    );
    assert_unchanged(
        &r,
        &[
            "schtasks /create /tn backup /ru admin /rp *",
            "smbclient //srv/share -U bob",
            "vault operator unseal -reset",
            "vault operator unseal",
            "PRAGMA foreign_keys = ON;",
            "PRAGMA key_size = 'x';",
            "cryptsetup luksOpen /dev/sdb1 data --key-file key.bin",
        ],
    );
}

/// A command split over continuation lines (`\` in POSIX shells, `^` in
/// cmd, `` ` `` in PowerShell) keeps its password flag masked on a later
/// line; a line that does not continue the command ends it.
#[test]
fn command_lines_continued_over_lines_mask_the_password() {
    let r = redactor();
    let v = "Wq7xLm2VbN9rKt4Z";
    assert_masked(
        &r,
        v,
        &[
            format!("docker login \\\n  -u ci \\\n  -p \"{v}\" \\\n  registry.example.com\n"),
            format!("docker login \\\r\n  -u ci \\\r\n  -p {v} \\\r\n  ghcr.io\r\n"),
            format!("sshpass \\\n  -p {v} ssh deploy@host\n"),
            format!("redis-cli -h cache \\\n  -a {v} ping\n"),
            format!("mysql -h db \\\n  -u root \\\n  -p{v} app\n"),
            format!("psexec \\\\host ^\n  -u admin -p {v} cmd\n"),
            format!("sqlcmd -S db `\n  -U sa -P {v} -Q \"select 1\"\n"),
            format!("az keyvault secret set --vault-name kv \\\n  --name db \\\n  --value {v}\n"),
        ],
    );
    assert_unchanged(
        &r,
        &[
            "mysql -u root\n-pWq7xLm2VbN9rKt4Z\n",
            "mysql -u root \\\n  --batch\necho done\n  -pWq7xLm2VbN9rKt4Z\n",
            "mysql -u root; echo \\\n  -p x\n",
            "docker login \\\n  -u ci \\\n  --password-stdin < token.txt\n",
            // A container named after the command publishes its ports.
            "docker run -d --name mongo \\\n  -p 27017:27017 \\\n  mongo:6\n",
            "docker run -d --name mongo \\\n  -p 127.0.0.1:27017:27017/tcp \\\n  mongo:6\n",
            "docker run --name mysql \\\n  -p 3306:3306 \\\n  -p 33060-33061:33060-33061 mysql:8\n",
        ],
    );
}

/// Secrets stored from the command line: a value piped (`echo`, `printf`)
/// or given in a here-string to a command that stores its standard input,
/// a secret store's value flag, a name then its value, and the password
/// flags of publishers and archivers are masked; the same commands reading
/// a file, a variable or a prompt, and settings that name no secret, stay.
/// A log's fields under secret names whose values say there is none
/// (`token=null`, `password=***`, `api_key=[REDACTED]`, `API key: redacted`)
/// stay as they are; a value that only opens with such a word is a value.
#[test]
fn null_masked_and_redacted_values_of_secret_names_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "2024-05-16T20:47:22.879Z INFO svc.auth request_id=3c947e3b5e token=null user=u1",
            "level=info password=*** user=u1",
            "level=info api_key=[REDACTED] user=u1",
            "level=info password=[FILTERED]",
            "level=info credentials=default session=s_1",
            "level=info API key: redacted",
            "{\"token\": null, \"password\": false, \"secret\": None}",
            "password=NULL,token=None;secret=undefined",
        ],
    );
    let v = "nullXq9vR2mK7pLw";
    assert_masked(
        &r,
        v,
        &[
            format!("level=info token={v} user=u1"),
            format!("level=info password={v}"),
        ],
    );
}

/// A template's text before its placeholder holds no secret: the program
/// fills one in (`format!("OPENAI_API_KEY=sk-proj-{}", …)`, `"ghp_{token}"`,
/// a JWT's public header before `{}.{}`). A shell default before its `}` and
/// a value that only ends at a `}` are still masked.
#[test]
fn a_template_before_its_placeholder_is_no_secret() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "            _ => format!(\"OPENAI_API_KEY=sk-proj-{}\", rng.chars(48, URLSAFE)),",
            "                \"[{i}] export GITHUB_TOKEN=ghp_{token} password=x{token}\\n\"",
            "                \"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.{}.{}\",",
            "api_key = f\"sk-{prefix}{rest}\"",
            "let url = format!(\"https://ci:hunter2x{}@example.com\", n);",
        ],
    );
    let v = "s3cr3tPa55Xq";
    assert_masked(
        &r,
        v,
        &[
            format!("DB_URL=\"${{DB_PASSWORD:-{v}}}\""),
            format!("password={v}}}"),
            format!("{{\"password\":\"{v}\"}}"),
        ],
    );
}

/// The parts of an ARN are no assignments: `arn:aws:secretsmanager:…:secret:prod/db`
/// names a secret by its resource type (`secret`), as `aws secretsmanager`
/// prints on every line; a secret assigned after it on the same line is
/// still masked.
#[test]
fn the_parts_of_an_arn_are_no_assignments() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "{\"ARN\": \"arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-Xk9mP2\", \"Name\": \"prod/db\"}",
            "2024-05-16T20:47:22.879Z WARN vault.sync secret_arn=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-Xk9mP2 rotated=true",
            "SecretId: arn:aws:secretsmanager:eu-west-1:123456789012:secret:api/token-AbC123",
            "arn:aws:ssm:us-east-1:123456789012:parameter/app/password-Q7x9Lm2VbN9rKt4Z",
        ],
    );
    let v = "Q7x9Lm2VbN9rKt4Z";
    assert_masked(
        &r,
        v,
        &[
            format!("arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db password={v}"),
            format!("secret: {v}"),
        ],
    );
}

/// A key assigned to its service's name alone, as public rule sets find
/// them: `DATADOG=v`, `"cloudflare": "v"`, `ci_bitbucket: v`, names of two
/// words parted or not (`NEW_RELIC`, `linked-in`), Make's and Go's
/// operators. Under Heroku's and HubSpot's names a UUID is the legacy key;
/// under other names a UUID, a version, a host, digits alone and names made
/// of words stay. The vendors whose keys have a shape of their own (Okta,
/// Lob, Twitch) find them after a prefix too (`ci_lob`).
#[test]
fn secrets_assigned_to_a_vendor_name_alone_are_masked() {
    let r = redactor();
    let v = "k8fjudt8mqxv27sy3oc353sa";
    assert_masked(
        &r,
        v,
        &[
            format!("DATADOG={v}"),
            format!("export CLOUDFLARE=\"{v}\""),
            format!("  \"cloudflare\": \"{v}\","),
            format!("ci_bitbucket: {v}"),
            format!("asana := \"{v}\""),
            format!("MERAKI => '{v}'"),
            format!("NEW_RELIC={v}"),
            format!("new-relic: '{v}'"),
            format!("newrelic = \"{v}\""),
            format!("LINKED-IN={v}"),
            format!("prod.sentry={v}"),
            format!("SUMOLOGIC ?= {v}"),
            format!("FASTLY ::= {v}"),
            format!("etsy={v} # shop"),
        ],
    );
    // A key qualified by a service is an API key's name: a short value too.
    let short = "2mc981id6lvtizat";
    assert_masked(
        &r,
        short,
        &[
            format!("confluent_key := \"{short}\""),
            format!("ci_etsy_key: {short}"),
        ],
    );
    assert_unchanged(&r, &[&format!("cache_key: {short}")]);
    let hex = "bd17e04d7f34bfb536583ec20531c6345942d0b3";
    assert_masked(&r, hex, &[format!("MERAKI={hex}")]);
    // Mixed-case hex is no commit.
    let mixed = "6d2FabeB6ADd229Bc199FabA28fD3efb57dF0bD3";
    assert_masked(&r, mixed, &[format!("sourcegraph: {mixed}")]);
    let pat = "patL7DxtpYlSXpfKt.fae923d5a4fd12aabfe228f219e9cb0eb53f16947ccf25ec84d8dbc74254770f";
    // An Airtable token: its own rule names it.
    assert_eq!(
        r.redact(&format!("AIRTABLE={pat}")),
        "AIRTABLE=[REDACTED:airtable-pat]"
    );
    for (text, masked) in [
        (
            "heroku: 35d483cf-c4aa-b754-8155-4f8e08a268c5",
            "heroku: [REDACTED:heroku-api-key]",
        ),
        (
            "\"HUBSPOT\": \"38CAAC05-58ED-D772-2371-550F60F51AB7\"",
            "\"HUBSPOT\": \"[REDACTED:hubspot-api-key]\"",
        ),
        // The vendors whose keys have their own shape, after a prefix.
        (
            "ub_okta => \"00TYkkZspODS5fiewyOfk5OTJBJEAhXxBkTrEGgExp\"",
            "ub_okta => \"[REDACTED:okta-token]\"",
        ),
        (
            "ci_lob := \"live_82b0257fc86a651b4ff965db3bfe02de2a3\"",
            "ci_lob := \"[REDACTED:lob-api-key]\"",
        ),
        (
            "ci_twitch = \"q5hnlmr9u34a9w7v1uffi9htvsh1cx\"",
            "ci_twitch = \"[REDACTED:twitch-api-token]\"",
        ),
    ] {
        assert_eq!(r.redact(text), masked);
    }
    assert_unchanged(
        &r,
        &[
            "\"datadog\": \"^3.21.0\",",
            "\"sentry\": \"7.42.0-rc.1+build.2024\",",
            "sentry: o123456.ingest.sentry.io",
            "datadog_site: datadoghq.com",
            "SENTRY: production-eu-west-1",
            "twitter: TwitterClientConfig2",
            "DISCORD: 448387004634747105",
            "\"datadog\": \"5d808551-a733-06de-a218-16ef38c4b738\"",
            "jira: PROJ-1234",
            "sentry:",
            "etsy is a shop, datadog=enabled",
            "datadog: ${DATADOG_API_KEY}",
            "cloudflare: your-cloudflare-token-here",
            "github: 7d3e9f0a1b2c4d5e6f708192a3b4c5d6e7f80912",
            "bitbucket: 7d3e9f0a1b2c4d5e6f708192a3b4c5d6e7f80912",
            "myblob = \"live_82b0257fc86a651b4ff965db3bfe02de2a3\"",
            // A file's fingerprint is no Infracost key.
            "http://assets.example.com/media/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
            "\"sentry\": \"sentry-cli-binary-2.1.0\",",
        ],
    );
}

#[test]
fn secrets_stored_from_the_command_line_are_masked() {
    let r = redactor();
    let v = "Wq7xLm2VbN9rKt4Z";
    assert_masked(
        &r,
        v,
        &[
            format!("echo \"{v}\" | docker secret create db_pass -"),
            format!("echo -n '{v}' | podman secret create api -"),
            format!("printf \"{v}\" | gh secret set API_TOKEN"),
            format!("printf '%s' \"{v}\" | gh secret set API_TOKEN --repo o/r"),
            format!("echo {v} | vercel env add API_TOKEN production"),
            format!("vercel env add API_TOKEN production <<< \"{v}\""),
            format!("echo \"{v}\" | npx wrangler secret put API_TOKEN"),
            format!("wrangler secret put API_TOKEN <<< {v}"),
            format!("echo -n \"{v}\" | gcloud secrets create db-pass --data-file=-"),
            format!("printf \"{v}\" | gcloud secrets versions add db-pass --data-file=-"),
            format!("echo \"{v}\" | firebase functions:secrets:set STRIPE_KEY"),
            format!("echo \"{v}\" | doppler secrets set API_KEY"),
            format!("echo \"{v}\" | pass insert -e web/github"),
            format!("echo -n \"{v}\" | secret-tool store --label=api service api"),
            format!("echo \"{v}\" | keyring set system api"),
            format!("echo \"{v}\" | passwd --stdin deploy"),
            format!("echo \"{v}\" | htpasswd -i .htpasswd admin"),
            format!("echo \"{v}\" | gh auth login --with-token"),
            format!("echo \"{v}\" | glab auth login --stdin"),
            format!("echo \"{v}\" | circleci context store-secret org ctx API_KEY"),
            format!(
                "echo \"{v}\" | kubectl create secret generic api --from-file=token=/dev/stdin"
            ),
            format!("printf '{v}' | docker login -u ci --password-stdin ghcr.io"),
            format!("az keyvault secret set --vault-name kv --name dbpass --value \"{v}\""),
            format!("security add-generic-password -a ci -s api -w \"{v}\""),
            format!("security add-internet-password -a ci -s x.com -w {v}"),
            format!("aws ssm put-parameter --name /app/db --value \"{v}\" --type SecureString"),
            format!(
                "aws ssm put-parameter --name /app/db --type SecureString --value {v} --overwrite"
            ),
            format!("dotnet user-secrets set \"Stripe:SecretKey\" \"{v}\""),
            format!("netlify env:set STRIPE_SECRET_KEY {v}"),
            format!("glab variable set DEPLOY_TOKEN {v}"),
            format!("glab variable set DEPLOY_TOKEN --value {v} --masked"),
            format!("rclone config create s3 s3 provider AWS secret_access_key {v}"),
            format!("rclone config create box sftp host example.com user me pass {v}"),
            format!("snyk auth {v}"),
            format!("twine upload -u __token__ -p {v} dist/*"),
            format!("poetry publish -u __token__ -p {v}"),
            format!(
            "dotnet nuget add source https://nuget.example.com/v3/index.json -n priv -u ci -p {v}"
        ),
            format!("unrar x -p{v} archive.rar"),
            format!("wmic /node:srv /user:admin /password:{v} process list"),
            format!("mc admin user add local ci {v}"),
        ],
    );
    for clean in [
        "aws ssm put-parameter --name /app/instance --value t3.micro --type String",
        "aws ssm put-parameter --name /app/db --value \"$DB_PASSWORD\" --type SecureString",
        "docker secret create db_pass ./password.txt",
        "gh secret set API_TOKEN < token.txt",
        "cat token.txt | gh auth login --with-token",
        "echo \"$TOKEN\" | docker login --password-stdin",
        "echo \"${GITLAB_TOKEN}\" | glab auth login --stdin",
        "echo \"<token>\" | gh auth login --with-token",
        "printf '%s' \"$SECRET\" | gcloud secrets create s --data-file=-",
        "echo \"Creating secret\" | tee -a log && docker secret create db ./db.txt",
        "netlify env:set NODE_VERSION 18",
        "glab variable set DEPLOY_ENV production",
        "rclone config create remote s3 provider AWS env_auth true",
        "dotnet user-secrets set \"Api:Url\" \"https://api.example.com\"",
        "snyk auth",
        "rar a -p archive.rar files/",
        "unrar x -p- archive.rar",
        "wmic /node:srv /user:admin /password:%ADMIN_PASSWORD% process list",
        "mc admin user add myminio newuser $NEW_PASSWORD",
        "security add-generic-password -a ci -s api -w",
        "poetry publish --build",
        "az keyvault secret set --vault-name kv --name x --file secret.txt",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// The value ending a phrase that names a secret, as installers and CLIs
/// print it, is masked; phrases whose value is a word, a path, a time, an
/// address or an id stay.
#[test]
fn installer_output_phrases_mask_the_generated_secret() {
    let r = redactor();
    let v = "9dR2vLq8Zx4TnWmK7pB3sY6uH1jF5gC0";
    for line in [
        format!("[Note] A temporary password is generated for root@localhost: {v}"),
        format!("Please use the following password to proceed to installation: {v}"),
        format!("The generated password for the elastic built-in superuser is : {v}"),
        format!("Password for user postgres: {v}"),
        format!("Temporary password for bob is {v}"),
        format!("Your API key is: {v}"),
        format!("Token (will not be shown again): {v}"),
    ] {
        assert_eq!(
            r.redact(&line),
            line.replace(v, "[REDACTED:generic-secret]"),
            "{line}"
        );
    }
    for clean in [
        "Error: the password is incorrect",
        "API key is: missing",
        "Token expired at: 2024-05-11T05:25:41Z",
        "Refreshing token for user: alice@example.com",
        "The secret is stored in: vault://prod/db",
        "Password reset link sent to: bob@example.com",
        "API key id: ak_01HXZ5F3QW8E",
        "The key is: /etc/ssl/private/key.pem",
        "Secret rotation scheduled for: 2024-06-01",
        "token limit reached for model: gpt-4o-mini-2024",
        "    // used when the password is not_set_yet",
        "'password' => 'The provided password is incorrect.',",
        "state.output += token.output != null ? token.output : 'default-value';",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A literal given as a default (Python's `default=`/`fallback=` arguments,
/// pydantic's `Field`, Ruby's fallback block, a Terraform variable's
/// `default` lines below its name), a box-drawn table's cell and a Key
/// Vault secret whose `tags` object sits between its name and its value.
#[test]
fn defaults_box_tables_and_key_vault_output_mask_the_secret() {
    let r = redactor();
    let v = "Zr8vLq2NwT5xKp9sHq7vLr2N";
    for text in [
        format!("SECRET_KEY = env(\"SECRET_KEY\", default=\"{v}\")"),
        format!("password = settings.get('DB_PASSWORD', default='{v}')"),
        format!("token = config.get(\"api_token\", fallback=\"{v}\")"),
        format!("parser.add_argument(\"--api-key\", type=str, help=\"the key\", default=\"{v}\")"),
        format!("@click.option(\"--password\", default=\"{v}\")"),
        format!("    api_key: str = Field(default=\"{v}\")"),
        format!("    api_key: SecretStr = SecretStr(\"{v}\")"),
        format!("api_key = ENV.fetch(\"API_KEY\") {{ \"{v}\" }}"),
        format!("variable \"db_password\" {{\n  type      = string\n  sensitive = true\n  validation {{\n    condition = length(var.db_password) > 8\n  }}\n  default   = \"{v}\"\n}}\n"),
        format!("│ DB_PASSWORD  │ {v} │"),
        format!("┃ api_token ┃ {v} ┃"),
        format!("{{\n  \"name\": \"db-password\",\n  \"tags\": {{\n    \"env\": \"prod\"\n  }},\n  \"value\": \"{v}\"\n}}"),
    ] {
        assert_eq!(
            r.redact(&text),
            text.replace(v, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
    for clean in [
        "DEBUG = env(\"DEBUG\", default=False)",
        "parser.add_argument(\"--timeout\", type=int, default=30)",
        "parser.add_argument(\"--api-key\", default=os.environ.get(\"API_KEY\"))",
        "parser.add_argument(\"--api-key\", default=\"YOUR_API_KEY\")",
        "parser.add_argument(\"--password\", action=\"store_true\", default=False)",
        "@click.option(\"--token-file\", default=\"~/.config/app/token\")",
        "key_id: Optional[str] = Field(None, env=\"API_KEY_ID\")",
        "api_key: str = Field(default=None, description=\"the api key\")",
        "port = ENV.fetch(\"PORT\") { 3000 }",
        "token = ENV.fetch(\"TOKEN\") { raise \"missing TOKEN\" }",
        "if (token) { \"use strict\"; }",
        "variable \"region\" {\n  default = \"us-east-1\"\n}\n",
        "variable \"token_ttl\" {\n  default = \"3600s\"\n}\n",
        "variable \"db_password\" {\n  type = string\n}\nvariable \"region\" {\n  default = \"eu-west-1\"\n}\n",
        "│ TOKEN_TTL │ 3600 │",
        "│ key       │ value │",
        "{\n  \"name\": \"db-host\",\n  \"tags\": {},\n  \"value\": \"db.internal.example.com\"\n}",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Python's `http.client` debug output (`send: b'…\\r\\nAuthorization: …'`):
/// a header after an escaped line break is a header.
#[test]
fn escaped_header_lines_mask_the_credential() {
    let r = redactor();
    assert_eq!(
        r.redact("send: b'GET / HTTP/1.1\\r\\nAuthorization: Token Zr8vLq2NwT5xKp9sHq7vLr2N\\r\\n\\r\\n'"),
        "send: b'GET / HTTP/1.1\\r\\nAuthorization: Token [REDACTED:bearer-token]\\r\\n\\r\\n'"
    );
    assert_eq!(
        r.redact("\"GET / HTTP/1.1\\nAuthorization: Basic YWRtaW46UmszbVpxOEx3VDJ2WG43UA==\\n\""),
        "\"GET / HTTP/1.1\\nAuthorization: Basic [REDACTED:basic-auth]\\n\""
    );
}

/// What the Google Cloud SDK's Python sources hold and were masked: field
/// descriptions of generated API messages (`authorization: Required.
/// Immutable. …`), snake_case names with numbered words (`oauth2_…`,
/// `imdsv2_…`, `_pkcs12`), constants of a config module, format templates
/// (`'google_oauth2_flow_{0}'`, `'%s.cryptoKeyVersions'`), class names with a
/// version (`V1SecretVolumeSource`), values that say they are fake or
/// spell their name (`"wrongpassword"`), and the App Engine SDK's
/// docstrings, log formats and function arguments.
#[test]
fn generated_api_docs_and_python_names_are_left_alone() {
    let r = redactor();
    for clean in [
        "    authorization: Required. Immutable. RBAC policy that will be applied and",
        "    desiredSecretManagerConfig: Enable/Disable Secret Manager Config.",
        "    secretManagerResources: mTLS auth config loaded from Secret Manager.",
        "    privateKey: Hardware-backed private key text in SSH format.",
        "    initialPassword: vCenter initial password.",
        "    oauth2JwtBearer: Oauth2JwtBearer.",
        "      self.credentials = oauth2_parameters.credentials",
        "  client_secret = config.CLOUDSDK_CLIENT_NOTSOSECRET",
        "    kwargs['oauth2ClientSecret'] = oauth2_client_secret",
        "            headers = {\"X-aws-ec2-metadata-token\": imdsv2_session_token}",
        "        credentials._private_key_pkcs12 = private_key_pkcs12",
        "    oauth2client.client.OAuth2Credentials: _convert_oauth2_credentials,",
        "_FLOW_KEY = 'google_oauth2_flow_{0}'",
        "_CSRF_KEY = 'google_oauth2_csrf_token'",
        "_CREDENTIALS_KEY = 'google_oauth2_credentials'",
        "_PKCS12_KEY = '_private_key_pkcs12'",
        "CRYPTO_KEY_VERSION_COLLECTION = '%s.cryptoKeyVersions' % CRYPTO_KEY_COLLECTION",
        "      'secret': 'V1SecretVolumeSource',",
        "  --type=oracle --oracle-password=fakepassword --oracle-username=fakeuser",
        "\tpassword := \"testpassword\"",
        "    decryption_key: Base64-encoded decryption key for the source object, if any.",
        "      crypto_key: Base64-encoded string of a CSEK, or the name of a Cloud KMS",
        "    LOG.debug('InMemoryTokenCache.GetToken: key=%s%s present',",
        "      auth_func=oauth2_parameters,",
        "    AWS_IMDSV2_SESSION_TOKEN = \"awsimdsv2sessiontoken\"",
        "\tprivate static final String WRONG_PASSWORD = \"wrongpassword\";",
        "CLIENT_SECRET = \"some+client+secret\"",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
    // The same shapes with a secret stay masked: a password after its name
    // and a sentence, words with numbers but no secret word, symbols.
    for (text, v) in [
        (
            "ERROR password: Zr8vLq2N rejected for user admin.",
            "Zr8vLq2N",
        ),
        ("password: hunter2_prod", "hunter2_prod"),
        ("token = \"hunter2.prod\"", "hunter2.prod"),
        ("DB_PASSWORD=yWX*^KR+%s%XbhM6fZM", "yWX*^KR+%s%XbhM6fZM"),
        ("password: Zr8vLq2N rejected for the user", "Zr8vLq2N"),
        (
            "api_key: AbCdEfGhIjKlMnOp  # rotate every month",
            "AbCdEfGhIjKlMnOp",
        ),
        (
            "api_key: AbCdEfGhIjKlMnOp rotated every month by ops.",
            "AbCdEfGhIjKlMnOp",
        ),
        (
            "password: Summerbreeze // set by the ops team",
            "Summerbreeze",
        ),
        (
            "API_TOKEN=Zr8vLq2NwT5x+Kp9sHq7v/Lr2N==",
            "Zr8vLq2NwT5x+Kp9sHq7v/Lr2N==",
        ),
    ] {
        assert_eq!(
            r.redact(text),
            text.replace(v, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
}

#[test]
fn placeholders_of_issue_15_stay() {
    let r = redactor();
    for clean in [
        "set PASSWORD=%DB_PASSWORD%",
        "password=%TestSourcePassword%",
        "token: ${VAR}",
        "password: <password>",
        "curl -u <user:password> https://api.example.com",
        "authDomain: \"acme-prod.firebaseapp.com\",",
        "Invalid username/password combination.",
        "<artifactId>io.jsonwebtoken:jjwt-jackson-0.11.2</artifactId>",
        "implementation 'io.jsonwebtoken:jjwt-jackson:0.11.2'",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

#[test]
fn a_value_with_invalid_utf8_is_still_judged() {
    let r = redactor();
    let input = b"password=hunter2\xe9t\xe9Zq9\nnext line \xff\n";
    let out = r.redact_bytes(input);
    assert_eq!(
        &out[..],
        &b"password=[REDACTED:generic-secret]\nnext line \xff\n"[..]
    );
    // Invalid UTF-8 without secrets passes through byte for byte.
    let clean = b"caf\xe9 \xff\xfe token_count=3\n";
    assert_eq!(&r.redact_bytes(clean)[..], &clean[..]);
}

#[test]
fn vendor_families_of_issue_15() {
    let r = redactor();
    let cases: Vec<(String, &str)> = vec![
        (format!("eyJrIjoi{}", body(AN, 60, 2)), "grafana-token"),
        (format!("pubkey-{}", body(HEX, 32, 4)), "mailgun-api-key"),
        (format!("CLOJARS_{}", body(LOW, 60, 6)), "clojars-token"),
        (format!("duffel_test_{}", body(AN, 43, 7)), "duffel-token"),
        (format!("EZAK{}", body(AN, 54, 8)), "easypost-token"),
        (
            format!("FLWSECK_TEST-{}-X", body("abcdefgh0123456789", 32, 9)),
            "flutterwave-key",
        ),
        (format!("fio-u-{}", body(AN, 64, 10)), "frameio-token"),
        (format!("pnu_{}", body(AN, 36, 11)), "prefect-token"),
        (format!("rdme_{}", body(LOW, 70, 12)), "readme-api-key"),
        (
            format!("xkeysib-{}-{}", body(HEX, 64, 13), body(AN, 16, 14)),
            "brevo-api-key",
        ),
        (format!("shippo_live_{}", body(HEX, 40, 15)), "shippo-token"),
        (
            format!("dnkey-{}-{}", body(LOW, 26, 16), body(LOW, 52, 17)),
            "defined-networking-token",
        ),
        (
            format!("dt0c01.{}.{}", body(UP, 24, 18), body(UP, 64, 19)),
            "dynatrace-token",
        ),
        (format!("sha256~{}", body(AN, 43, 20)), "openshift-token"),
        (format!("sgp_{}", body(HEX, 40, 21)), "sourcegraph-token"),
        (format!("LTAI{}", body(AN, 20, 22)), "alibaba-access-key-id"),
        (
            format!(
                "A3-{}-{}-{}-{}-{}",
                body(UP, 6, 23),
                body(UP, 11, 24),
                body(UP, 5, 25),
                body(UP, 5, 26),
                body(UP, 5, 27)
            ),
            "onepassword-secret-key",
        ),
        (format!("NRJS-{}", body(HEX, 19, 28)), "newrelic-key"),
        (format!("NRII-{}", body(AN, 32, 29)), "newrelic-key"),
        (format!("sl.{}", body(AN, 140, 30)), "dropbox-token"),
        (format!("EAAC{}", body(AN, 120, 31)), "facebook-token"),
        (
            format!("AAAAAAAAAAAAAAAAAAAAAA{}", body(AN, 90, 32)),
            "twitter-bearer-token",
        ),
        (format!("tfp_{}", body(AN, 59, 33)), "typeform-token"),
        (format!("sm_pat_{}", body(AN, 16, 34)), "settlemint-token"),
        (format!("s-s4t2ud-{}", body(HEX, 64, 35)), "intra42-secret"),
        (format!("ico-{}", body(AN, 32, 36)), "infracost-api-key"),
        (
            format!(
                "pat.{}.{}.{}",
                body(AN, 22, 37),
                body(HEX, 24, 38),
                body(AN, 20, 39)
            ),
            "harness-token",
        ),
        (
            format!("v1.0-{}-{}", body(HEX, 24, 40), body(HEX, 146, 41)),
            "cloudflare-origin-ca-key",
        ),
        (format!("da2-{}", body(LOW, 26, 42)), "aws-appsync-api-key"),
        (format!("rzp_live_{}", body(AN, 14, 43)), "razorpay-key"),
        (format!("{}-us14", body(HEX, 32, 44)), "mailchimp-api-key"),
        (format!("sntrys_eyJ{}", body(AN, 60, 45)), "sentry-token"),
        (format!("sntryu_{}", body(HEX, 64, 46)), "sentry-token"),
    ];
    for (tok, id) in &cases {
        let text = format!("found {tok} in the output\n");
        assert_eq!(
            r.redact(&text),
            format!("found [REDACTED:{id}] in the output\n"),
            "{id}: {tok}"
        );
    }
    // Contexts that need a word nearby.
    let okta = format!("00{}", body(AN, 40, 3));
    assert_eq!(
        r.redact(&format!("okta api token {okta}")),
        "okta api token [REDACTED:okta-token]"
    );
    let vault = format!("s.{}", body(AN, 24, 47));
    assert_eq!(
        r.redact(&format!("vault token {vault}")),
        "vault token [REDACTED:vault-token]"
    );
    let heroku = "4f9a8c2e-1b3d-4e5f-8a7b-9c0d1e2f3a4b";
    assert_eq!(
        r.redact(&format!("heroku api key: {heroku}")),
        "heroku api key: [REDACTED:heroku-api-key]"
    );
    let teams = format!(
        "https://acme.webhook.office.com/webhookb2/{}@{}/IncomingWebhook/{}/{}",
        "0f8e2a6c-5d4b-4a3c-9b1e-7f6d5c4b3a21",
        "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        body(HEX, 32, 48),
        "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
    );
    assert_eq!(
        r.redact(&teams),
        "https://acme.webhook.office.com/webhookb2/[REDACTED:teams-webhook]"
    );
    // An unsigned two-part JWT.
    let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9";
    assert_eq!(r.redact(&format!("token {jwt}")), "token [REDACTED:jwt]");
}

/// Two families gitleaks finds bare, without a vendor's name nearby:
/// Octopus Deploy's `API-` keys and JWTs in standard base64 (`ZXlK…`, a
/// Kubernetes secret's or `echo $TOKEN | base64`'s). What only looks like
/// them stays.
#[test]
fn octopus_keys_and_base64_jwts_are_masked_bare() {
    let r = redactor();
    let octopus = format!("API-{}7{}", body(UP, 12, 51), body(UP, 13, 52));
    assert_eq!(
        r.redact(&format!("X-Octopus-ApiKey: {octopus}\n")),
        "X-Octopus-ApiKey: [REDACTED:octopus-deploy-api-key]\n"
    );
    assert_eq!(
        r.redact(&format!("octo push --apiKey={octopus} --package app.nupkg")),
        "octo push --apiKey=[REDACTED:octopus-deploy-api-key] --package app.nupkg"
    );
    let jwt = format!(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwiaWF0IjoxNTE2MjM5MDIyfQ.{}",
        body(AN, 43, 53)
    );
    for plain in [jwt.clone(), format!("{jwt}\n")] {
        let encoded = corpus::b64(plain.as_bytes(), false, true);
        assert!(encoded.starts_with("ZXlK"), "{encoded}");
        assert_eq!(
            r.redact(&format!("  token: {encoded}\n")),
            "  token: [REDACTED:jwt]\n"
        );
        assert_eq!(
            r.redact(&format!("decoded {encoded} from the secret")),
            "decoded [REDACTED:jwt] from the secret"
        );
    }
    for kept in [
        // Words, versions and headers around `api-`.
        "see API-SPECIFICATIONDOCUMENTSXX for details".to_string(),
        "GET /v1/items?api-version=2024-01-01 HTTP/1.1".to_string(),
        "x-api-key header missing".to_string(),
        // 25 and 27 characters after `API-`.
        format!("id API-{}7{}", body(UP, 12, 54), body(UP, 12, 55)),
        format!("id API-{}7{}", body(UP, 12, 56), body(UP, 14, 57)),
        // Base64 of JSON that is no JWT: a header alone, an object.
        corpus::b64(
            b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is a header",
            false,
            true,
        ),
        corpus::b64(
            br#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}"#,
            false,
            true,
        ),
    ] {
        assert_eq!(r.redact(&kept), kept.as_str());
    }
}

/// Langfuse secret keys, Mercado Pago access tokens and Databricks OAuth
/// secrets, bare; the public key beside a Langfuse secret key and words
/// that open like them stay.
#[test]
fn langfuse_mercadopago_and_databricks_oauth_secrets_are_masked_bare() {
    let r = redactor();
    let uuid = |seed| {
        format!(
            "{}-{}-{}-{}-{}",
            body(HEX, 8, seed),
            body(HEX, 4, seed + 1),
            body(HEX, 4, seed + 2),
            body(HEX, 4, seed + 3),
            body(HEX, 12, seed + 4)
        )
    };
    let cases = [
        (format!("sk-lf-{}", uuid(60)), "langfuse-secret-key"),
        (
            format!(
                "APP_USR-4381{}-120918-{}-{}",
                body("0123456789", 12, 66),
                body(HEX, 32, 67),
                body("0123456789", 9, 68)
            ),
            "mercadopago-access-token",
        ),
        (format!("dose{}", body(HEX, 32, 69)), "databricks-token"),
        (format!("doau{}", body(HEX, 32, 70)), "databricks-token"),
    ];
    for (tok, id) in &cases {
        assert_eq!(
            r.redact(&format!("client configured with {tok} at start\n")),
            format!("client configured with [REDACTED:{id}] at start\n"),
            "{id}: {tok}"
        );
    }
    for kept in [
        format!("langfuse public key pk-lf-{}", uuid(71)),
        "APP_USR-1234 is the prefix of production tokens".to_string(),
        "take one dose every 8 hours; doses0123 and dosage".to_string(),
        format!("dose{}", body("ghijklmnopqrstuvwxyz", 32, 77)),
    ] {
        assert_eq!(r.redact(&kept), kept.as_str());
    }
}

/// Prefixed tokens trufflehog's detectors know, bare; identifiers and
/// short strings that open with the same prefixes stay.
#[test]
fn prefixed_tokens_trufflehog_knows_are_masked_bare() {
    let r = redactor();
    let cases = [
        (format!("aio_{}7", body(AN, 27, 80)), "adafruit-io-key"),
        (format!("alcht_{}", body(AN, 30, 81)), "alchemy-api-key"),
        (format!("bb_pr_{}", body(HEX, 30, 82)), "bannerbear-api-key"),
        (
            format!("BBDC-{}", body(AN, 44, 83)),
            "bitbucket-data-center-token",
        ),
        (format!("BBFF-{}", body(AN, 30, 84)), "ubidots-token"),
        (
            format!("cfut_{}{}", body(AN, 40, 85), body(HEX, 8, 86)),
            "cloudflare-api-token",
        ),
        (
            format!("cfk_{}{}", body(AN, 40, 87), body(HEX, 8, 88)),
            "cloudflare-global-api-key",
        ),
        (format!("ddp_{}", body(AN, 36, 89)), "deno-deploy-token"),
        (format!("figp_{}", body(AN, 48, 90)), "figma-token"),
        (format!("rootly_{}", body(HEX, 64, 91)), "rootly-api-key"),
        (format!("apify_api_{}", body(AN, 36, 103)), "apify-token"),
        (
            format!("sk_pr_{}_{}", body(AN, 10, 104), body(HEX, 40, 105)),
            "photoroom-api-key",
        ),
        (format!("pgar_{}", body(AN, 27, 106)), "pganalyze-key"),
        (format!("ak_live_{}", body(AN, 30, 107)), "pagarme-api-key"),
        (format!("ramp_sec_{}", body(AN, 48, 92)), "ramp-secret"),
        (format!("shltm_{}", body(AN, 40, 93)), "flexport-api-key"),
        (
            format!("slk_{}", body(HEX, 64, 94)),
            "sourcegraph-cody-token",
        ),
        (format!("sqco_{}", body(AN, 59, 95)), "sonarcloud-token"),
        (
            format!("salad_cloud_{}_{}", body(AN, 6, 96), body(AN, 30, 97)),
            "saladcloud-api-key",
        ),
        (
            format!(
                "rh-api-{}-{}-{}-{}-{}",
                body(HEX, 8, 98),
                body(HEX, 4, 99),
                body(HEX, 4, 100),
                body(HEX, 4, 101),
                body(HEX, 12, 102)
            ),
            "robinhood-crypto-api-key",
        ),
    ];
    for (tok, id) in &cases {
        assert_eq!(
            r.redact(&format!("loaded {tok} from the vault\n")),
            format!("loaded [REDACTED:{id}] from the vault\n"),
            "{id}: {tok}"
        );
    }
    assert_eq!(
        r.redact("POST https://hooks.zapier.com/hooks/catch/1234567/bq8xz2k/ with the payload"),
        "POST https://hooks.zapier.com/hooks/catch/[REDACTED:zapier-webhook]/ with the payload"
    );
    for kept in [
        "await aio_createConnectionPoolManagerAb(cfg)",
        "ddp_handleIncomingSubscriptionMessagesAb",
        "BBDC-1234 tracks the data center bug",
        "see rh-api-docs and bb_pr_template",
        "slk_ is Sourcegraph's prefix, sqco_ SonarCloud's",
    ] {
        assert_eq!(r.redact(kept), kept);
    }
}

/// The committed seed of `prop_embedded_secret_never_survives`
/// (api.proptest-regressions, family 63): an Adafruit IO key whose random
/// letters happen to read as words (`J`, `Da`, `Qhfw`, `Vynk`, `ONS6`) is
/// still masked; a name made of long words after the same prefix stays.
#[test]
fn prefixed_keys_whose_random_letters_read_as_words_are_masked() {
    let r = Redactor::builder().env_values(false).build().unwrap();
    assert_eq!(
        r.redact(" aio_hciJDaQhfwDeRBVynkTgyWgyONS6 "),
        " [REDACTED:adafruit-io-key] "
    );
    for kept in [
        "await aio_createConnection2PoolManager(cfg)",
        "s.OAS3ComponentWrapFactory",
    ] {
        assert_eq!(r.redact(kept), kept);
    }
}

/// The committed seed of `prop_embedded_secret_never_survives`
/// (api.proptest-regressions, family 33): a random password shaped like a
/// setting (`EfTDt-Hir=7`: its letters read as words by chance) is masked;
/// real settings after a flag stay.
#[test]
fn random_passwords_shaped_like_a_setting_are_masked() {
    let r = Redactor::builder().env_values(false).build().unwrap();
    assert_eq!(
        r.redact(" password=EfTDt-Hir=7 "),
        " password=[REDACTED:generic-secret] "
    );
    assert_eq!(
        r.redact("DB_PASSWORD=EfTDtHir=7"),
        "DB_PASSWORD=[REDACTED:generic-secret]"
    );
    for kept in [
        "aws cognito-idp set-user-mfa-preference --software-token-mfa-settings Enabled=true",
        "--token-validity-units AccessToken=hours,IdToken=minutes",
    ] {
        assert_eq!(r.redact(kept), kept);
    }
}

/// Azure DevOps PATs (the `AZDO` signature), Salesforce access tokens
/// (`00D…!…`) and Vault's protobuf service tokens (`s.CAES…`), bare, as
/// Nosey Parker's examples hold them; text with the same pieces stays.
#[test]
fn azure_devops_salesforce_and_vault_service_tokens_are_masked_bare() {
    let r = redactor();
    let ado = format!(
        "{}JQQJ99BFACAAAAA{}AZDO{}",
        body(AN, 52, 110),
        body(AN, 9, 111),
        body(AN, 4, 112)
    );
    assert_eq!(ado.len(), 84);
    assert_eq!(
        r.redact(&format!("azure_devops_pat = \"{ado}\"")),
        "azure_devops_pat = \"[REDACTED:azure-devops-pat]\""
    );
    assert_eq!(
        r.redact(&format!("echo {ado} | az devops login")),
        "echo [REDACTED:azure-devops-pat] | az devops login"
    );
    let sf = format!(
        "00D{}!{}.{}",
        body(AN, 12, 113),
        body(AN, 60, 114),
        body(AN, 35, 115)
    );
    assert_eq!(
        r.redact(&format!(
            "Access Token      {sf}\nClient Id         PlatformCLI\n"
        )),
        "Access Token      [REDACTED:salesforce-access-token]\nClient Id         PlatformCLI\n"
    );
    assert_eq!(
        r.redact(&format!("sfdx force:org:display => {sf}!")),
        "sfdx force:org:display => [REDACTED:salesforce-access-token]!"
    );
    let vault = format!("s.CAESI{}", body(AN, 84, 116));
    assert_eq!(
        r.redact(&format!("`-vaultToken {vault}`")),
        "`-vaultToken [REDACTED:vault-token]`"
    );
    for kept in [
        "AZDO is the signature of Azure DevOps tokens".to_string(),
        format!("{}AZDO", body(AN, 76, 117)),
        "Id                00D5fORGIDEXAMPLE".to_string(),
        format!("00D{}!short", body(AN, 12, 118)),
        "s.CAES is how the old service tokens open".to_string(),
    ] {
        assert_eq!(r.redact(&kept), kept.as_str());
    }
}

/// Jenkins' encrypted credentials in its XML files and SpectralOps tokens;
/// Jenkins' plain `{…}` placeholders stay.
#[test]
fn jenkins_encrypted_credentials_and_spectralops_tokens_are_masked() {
    let r = redactor();
    let enc = format!("AQAAABAAAAAg{}=", body(AN, 63, 120));
    let xml = format!(
        "<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n  <id>deploy</id>\n  <username>ci</username>\n  <password>{{{enc}}}</password>\n</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n"
    );
    let out = r.redact(&xml);
    assert!(out.contains("<password>{[REDACTED:"), "{out}");
    assert!(!out.contains(&enc[12..40]), "{out}");
    assert_eq!(
        r.redact(&format!("  <secret>{{{enc}}}</secret>")),
        "  <secret>{[REDACTED:jenkins-secret]}</secret>"
    );
    let spu = format!("spu-{}", body(HEX, 32, 121));
    assert_eq!(
        r.redact(&format!("[DEBUG] Using token {spu}")),
        "[DEBUG] Using token [REDACTED:spectralops-token]"
    );
    for kept in [
        "<secret>{AQAAABAAAA}</secret>",
        "<id>{jenkins-credentials}</id>",
        "spu-1234 is a ticket",
    ] {
        assert_eq!(r.redact(kept), kept);
    }
}

/// A secret handed over in a sentence (`Your new API key is v`): masked
/// when the value ends the line and reads as random; sentences about keys,
/// tokens and passwords that hand nothing over stay.
#[test]
fn secrets_handed_over_in_a_sentence_are_masked() {
    let r = redactor();
    let v = body(AN, 32, 130);
    for (text, masked) in [
        (
            format!("The API key is {v}"),
            "The API key is [REDACTED:generic-secret]",
        ),
        (
            format!("Your new API key is {v}."),
            "Your new API key is [REDACTED:generic-secret].",
        ),
        (
            format!("Your access token is {v}"),
            "Your access token is [REDACTED:generic-secret]",
        ),
        (
            format!("Your token is: {v}"),
            "Your token is: [REDACTED:generic-secret]",
        ),
        (
            format!("  my password is {v}  "),
            "  my password is [REDACTED:generic-secret]  ",
        ),
    ] {
        assert_eq!(r.redact(&text), masked, "{text}");
    }
    for kept in [
        "The token is invalid or expired".to_string(),
        "Your password is too short.".to_string(),
        "The API key is stored in ~/.config/app/credentials".to_string(),
        format!("The cache key is {v}"),
        format!("The page token is {v}"),
        format!("The token id is {v}"),
        "the secret is base64url-encoded".to_string(),
    ] {
        assert_eq!(r.redact(&kept), kept.as_str());
    }
}

/// The same families in the forms public rule sets (gitleaks) match, which
/// are wider than the vendors' own examples: other letter cases, other
/// separators, the public and encryption keys beside the secret key, and
/// the families those rule sets know that the list of issue 15 did not name.
/// Asserts that each token is masked as its rule id bare in prose, as an
/// env value and in JSON.
fn assert_tokens_masked(r: &Redactor, cases: &[(String, &str)]) {
    for (tok, id) in cases {
        for text in [
            format!("found {tok} in the output\n"),
            format!("DEPLOY_VALUE={tok}\n"),
            format!("{{\"value\": \"{tok}\"}}\n"),
        ] {
            let want = text.replace(tok.as_str(), &format!("[REDACTED:{id}]"));
            assert_eq!(r.redact(&text), want, "{id}: {text}");
        }
    }
}

/// Python's triple-quoted strings on one line (`PASSWORD = """v"""`,
/// `api_key = '''v'''`): the value between the quotes is masked; a docstring
/// or a prose literal stays.
#[test]
fn triple_quoted_values_are_masked() {
    let r = redactor();
    let v = "Zq8vLm2NwT5xKp9sHq7v";
    for q in ["\"\"\"", "'''"] {
        for text in [
            format!("PASSWORD = {q}{v}{q}\n"),
            format!("    api_key={q}{v}{q}\n"),
            format!("settings = {{\"token\": {q}{v}{q}}}\n"),
        ] {
            assert_eq!(
                r.redact(&text),
                text.replace(v, "[REDACTED:generic-secret]"),
                "{text}"
            );
        }
    }
    assert_unchanged(
        &r,
        &[
            "def token(self):\n    \"\"\"Return the API token.\"\"\"\n",
            "PASSWORD_HELP = \"\"\"Enter the password of the admin user\"\"\"\n",
            "token = \"\"\"\"\"\"\n",
        ],
    );
}

/// A shell prompt before a command that sets a variable apart from its
/// value (fish's `set -gx`, `set --export`, `setx`, csh's `setenv`), and
/// the password literal of Java's `PasswordAuthentication` and Go's
/// `smtp.PlainAuth`: the value is masked, the variable names a plain path.
#[test]
fn prompted_env_commands_and_positional_passwords_are_masked() {
    let r = redactor();
    let v = "Zq8vLm2NwT5xKp9sHq7v";
    for (text, want) in [
        (format!("$ set -gx API_TOKEN {v}\n"), "$ set -gx API_TOKEN [REDACTED:generic-secret]\n".to_string()),
        (format!("set --export API_TOKEN {v}\n"), "set --export API_TOKEN [REDACTED:generic-secret]\n".to_string()),
        (format!("> setx API_TOKEN \"{v}\"\n"), "> setx API_TOKEN \"[REDACTED:generic-secret]\"\n".to_string()),
        (format!("% setenv DB_PASSWORD {v}\n"), "% setenv DB_PASSWORD [REDACTED:generic-secret]\n".to_string()),
        (
            format!("auth := smtp.PlainAuth(\"\", \"bot@example.com\", \"{v}\", host)\n"),
            "auth := smtp.PlainAuth(\"\", \"bot@example.com\", \"[REDACTED:generic-secret]\", host)\n".to_string(),
        ),
        (
            format!("return new PasswordAuthentication(\"bot\", \"{v}\".toCharArray());\n"),
            "return new PasswordAuthentication(\"bot\", \"[REDACTED:generic-secret]\".toCharArray());\n".to_string(),
        ),
    ] {
        assert_eq!(r.redact(&text), want, "{text}");
    }
    assert_unchanged(
        &r,
        &[
            "$ set -x PATH /usr/local/bin\n",
            "auth := smtp.PlainAuth(\"\", user, pass, host)\n",
            "$ echo token key secret\n",
        ],
    );
}

/// Literals given to calls that take a password or a key by position, a
/// notebook cell's JSON-escaped assignment, Go's MySQL DSN and a here-string
/// to `--password-stdin`.
#[test]
fn credential_calls_crypto_keys_and_notebook_cells_mask_the_literal() {
    let r = redactor();
    let v = "Zr8vLq2NwT5xKp9sHq7vLr2N";
    for text in [
        format!("var cred = new NetworkCredential(\"admin\", \"{v}\");"),
        format!("Connection c = DriverManager.getConnection(url, \"admin\", \"{v}\");"),
        format!("$pdo = new PDO($dsn, 'admin', '{v}');"),
        format!("$db = mysqli_connect($host, $user, '{v}');"),
        format!("smtp.login(\"bot@example.com\", \"{v}\")"),
        format!("ftp.login('admin', '{v}')"),
        format!("db, err := sql.Open(\"mysql\", \"admin:{v}@tcp(127.0.0.1:3306)/app\")"),
        format!("token = jwt.encode(payload, \"{v}\", algorithm=\"HS256\")"),
        format!("jwt.sign(payload, '{v}', {{ expiresIn: '1h' }})"),
        format!("mac = hmac.new(b\"{v}\", msg, hashlib.sha256)"),
        format!("f = Fernet(b'{v}=')"),
        format!("cipher = AES.new(b'{v}', AES.MODE_GCM)"),
        format!("docker login registry.example.com -u admin --password-stdin <<< \"{v}\""),
        format!("     \"openai.api_key = \\\"{v}\\\"\\n\","),
        format!("     \"client = OpenAI(api_key=\\\"{v}\\\")\\n\""),
    ] {
        let out = r.redact(&text);
        assert!(!out.contains(v), "{text} -> {out}");
        assert!(out.contains("[REDACTED:generic-secret]"), "{text} -> {out}");
    }
    for clean in [
        "jwt.decode(token, \"secret\", algorithms=[\"HS256\"])",
        "jwt.sign(payload, process.env.JWT_SECRET)",
        "smtp.login(user, password)",
        "ftp.login(\"anonymous\", \"\")",
        "cl.login(\"anonymous\", \"john.doe@mydomain.com\")",
        "DriverManager.getConnection(url, user, pass)",
        "$pdo = new PDO($dsn, $user, $pass);",
        "fmt.Sprintf(\"%s:%s@tcp(%s)/%s\", user, pass, host, db)",
        "docker login --password-stdin <<< \"$TOKEN\"",
        "     \"api_key = \\\"YOUR_API_KEY\\\"\\n\",",
        "     \"token = \\\"abc\\\"\\n\",",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A Kubernetes Secret of type dockerconfigjson, as `kubectl get secret -o
/// yaml` and `-o json` print it: the base64 of `{"auths":…}` holds the
/// registry's password, under a name that names no secret.
#[test]
fn kubernetes_docker_config_secrets_are_masked() {
    let r = redactor();
    // base64 of {"auths":{"registry.example.com":{"username":"bob","password":"Zr8vLq2NwT5xKp9s"}}}
    let v = "eyJhdXRocyI6eyJyZWdpc3RyeS5leGFtcGxlLmNvbSI6eyJ1c2VybmFtZSI6ImJvYiIsInBhc3N3b3JkIjoiWnI4dkxxMk53VDV4S3A5cyJ9fX0=";
    for text in [
        format!("apiVersion: v1\ndata:\n  .dockerconfigjson: {v}\nkind: Secret\n"),
        format!("{{\"data\": {{\".dockerconfigjson\": \"{v}\"}}, \"kind\": \"Secret\"}}"),
    ] {
        assert_eq!(
            r.redact(&text),
            text.replace(v, "[REDACTED:docker-config]"),
            "{text}"
        );
    }
    let clean = "type: kubernetes.io/dockerconfigjson\n";
    assert_eq!(r.redact(clean), clean);
}

/// Keys of developer platforms an agent's tools call, bare in output (no
/// name or keyword near them): each by its own prefix and format.
#[test]
fn developer_platform_keys_are_masked_by_their_prefix() {
    let r = redactor();
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        body(HEX, 8, 201),
        body(HEX, 4, 202),
        body(HEX, 4, 203),
        body(HEX, 4, 204),
        body(HEX, 12, 205)
    );
    let cases: Vec<(String, &str)> = vec![
        (format!("fc-{}", body(HEX, 32, 206)), "firecrawl-api-key"),
        (
            format!("sb_secret_{}", body(AN, 31, 207)),
            "supabase-secret-key",
        ),
        (format!("pat-na1-{uuid}"), "hubspot-token"),
        (format!("pat-eu1-{uuid}"), "hubspot-token"),
        (format!("ddp_{}", body(AN, 36, 208)), "deno-deploy-token"),
        (
            format!("signkey-prod-{}", body(HEX, 64, 209)),
            "inngest-signing-key",
        ),
        (format!("tr_dev_{}", body(AN, 20, 210)), "trigger-dev-key"),
        (format!("tr_prod_{}", body(AN, 24, 211)), "trigger-dev-key"),
        (format!("phx_{}", body(AN, 43, 212)), "posthog-personal-key"),
        (
            format!("secret-live-{}", body(AN, 36, 213)),
            "stytch-secret",
        ),
        (
            format!("ls__{}", body(HEX, 32, 214)),
            "langsmith-legacy-key",
        ),
        (
            format!("mdb_sa_sk_{}", body(AN, 40, 215)),
            "mongodb-atlas-key",
        ),
        (format!("esecret_{}", body(AN, 40, 216)), "anyscale-key"),
        (format!("dp.st.prd.{}", body(AN, 40, 217)), "doppler-token"),
    ];
    assert_tokens_masked(&r, &cases);
    for clean in [
        "see rfc-7519 and fc-layout for details\n",
        "fc-0123 is the fan controller\n",
        "sb_secret_name = \"prod\"\n",
        "the pat-na1 region\n",
        "signkey-prod-missing\n",
        "tr_dev_mode = true\n",
        "phx_click handlers\n",
        "secret-live-reload watcher\n",
        "ls__init__ helper\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Families that public rule sets (gitleaks) know and the list of issue 15
/// did not name, bare and in the forms a gem host's credentials take.
#[test]
fn more_families_public_rule_sets_know_are_masked() {
    let r = redactor();
    let uuid = |seed| {
        format!(
            "{}-{}-{}-{}-{}",
            body(HEX, 8, seed),
            body(HEX, 4, seed + 1),
            body(HEX, 4, seed + 2),
            body(HEX, 4, seed + 3),
            body(HEX, 12, seed + 4)
        )
    };
    let cases: Vec<(String, &str)> = vec![
        (format!("oy2{}", body(LOW, 43, 120)), "nuget-api-key"),
        (
            format!("access-production-{}", uuid(121)),
            "plaid-access-token",
        ),
        (
            format!("access-sandbox-{}", uuid(126)),
            "plaid-access-token",
        ),
        (format!("sqp_{}", body(HEX, 40, 131)), "sonarqube-token"),
        (format!("squ_{}", body(HEX, 40, 132)), "sonarqube-token"),
        (
            format!("tk-us-{}", body(AN, 47, 133) + "-"),
            "scalingo-token",
        ),
        (format!("AQVN{}", body(AN, 36, 134)), "yandex-api-key"),
        (format!("rk_prod_{}", body(AN, 40, 135)), "stripe-key"),
        (format!("sk_prod_{}", body(AN, 40, 136)), "stripe-key"),
        (format!("CFPAT-{}", body(AN, 43, 137)), "contentful-token"),
        (format!("bkua_{}", body(HEX, 40, 138)), "buildkite-token"),
        (
            format!("CCIPAT_{}_{}", body(AN, 22, 139), body(HEX, 40, 160)),
            "circleci-token",
        ),
        (format!("hcaik_{}", body(LOW, 58, 161)), "honeycomb-key"),
        (
            format!("pcsk_{}_{}", body(AN, 5, 162), body(AN, 64, 163)),
            "pinecone-api-key",
        ),
    ];
    assert_tokens_masked(&r, &cases);
    // Bundler's credentials for a gem host: the environment and `.bundle/config`.
    assert_eq!(
        r.redact("export BUNDLE_GEMS__CONTRIBSYS__COM=cafe4b1e:d3adb33fc0ffee\n"),
        "export BUNDLE_GEMS__CONTRIBSYS__COM=[REDACTED:bundler-credentials]\n"
    );
    assert_eq!(
        r.redact("BUNDLE_RUBYGEMS__PKG__GITHUB__COM: \"octocat:Zq8vR2mK9pLx4TnW\"\n"),
        "BUNDLE_RUBYGEMS__PKG__GITHUB__COM: \"[REDACTED:bundler-credentials]\"\n"
    );
    // An OpenVPN shared key: its hex lines, the armour kept; JSON-escaped too.
    let lines: Vec<String> = (0..16).map(|i| body(HEX, 32, 140 + i)).collect();
    let block = format!(
        "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{}\n-----END OpenVPN Static key V1-----\n</tls-auth>\n",
        lines.join("\n")
    );
    assert_eq!(
        r.redact(&block),
        "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n[REDACTED:openvpn-static-key]\n-----END OpenVPN Static key V1-----\n</tls-auth>\n"
    );
    let escaped = format!(
        "{{\"key\": \"-----BEGIN OpenVPN Static key V1-----\\n{}\\n-----END OpenVPN Static key V1-----\\n\"}}",
        lines.join("\\n")
    );
    assert_eq!(
        r.redact(&escaped),
        "{\"key\": \"-----BEGIN OpenVPN Static key V1-----\\n[REDACTED:openvpn-static-key]\\n-----END OpenVPN Static key V1-----\\n\"}"
    );
    let ngrok = format!("2{}_{}", body(AN, 26, 164), body(AN, 21, 165));
    assert_eq!(
        r.redact(&format!("ngrok config add-authtoken {ngrok}")),
        "ngrok config add-authtoken [REDACTED:generic-secret]"
    );
    for clean in [
        "# 2048 bit OpenVPN static key\n",
        "ngrok config add-authtoken $NGROK_AUTHTOKEN\n",
        "BUNDLE_PATH=vendor/bundle\n",
        "BUNDLE_GEMS__EXAMPLE__COM=${GEM_TOKEN}\n",
        "nuget push pkg.nupkg -k oy2\n",
        "access-production-logs rotated\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

#[test]
fn rule_set_forms_of_the_vendor_families_are_masked() {
    let r = redactor();
    let mixed_hex = "0123456789abcdefABCDEF";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("dnkey-{}-{}", body(AN, 26, 60), body(AN, 52, 61)),
            "defined-networking-token",
        ),
        (
            format!("dt0c01.{}.{}", body(LOW, 24, 62), body(AN, 64, 63)),
            "dynatrace-token",
        ),
        (
            format!("shippo_test_{}", body(mixed_hex, 40, 64)),
            "shippo-token",
        ),
        (format!("CLOJARS_{}", body(AN, 60, 65)), "clojars-token"),
        (format!("rdme_{}", body(AN, 70, 66)), "readme-api-key"),
        (
            format!("u-s4t2af-{}", body(mixed_hex, 64, 67)),
            "intra42-secret",
        ),
        (
            format!("FLWPUBK_TEST-{}-X", body("abcdefgh0123456789", 32, 68)),
            "flutterwave-key",
        ),
        (
            format!("FLWSECK-{}-X", body("ABCDEFGH0123456789", 32, 69)),
            "flutterwave-key",
        ),
        (
            format!("FLWSECK_TEST-{}", body("abcdefgh0123456789", 12, 70)),
            "flutterwave-key",
        ),
        (
            format!("FLWSECK_TEST{}", body("abcdefgh0123456789", 12, 71)),
            "flutterwave-key",
        ),
        (
            format!(
                "sat.{}.{}.{}",
                body(AN, 22, 72),
                body(AN, 24, 73),
                body(AN, 20, 74)
            ),
            "harness-token",
        ),
        (
            format!(
                "github_pat_{}_{}",
                body(AN, 40, 75),
                body("ABCDEFabcdef0123456789_", 41, 76)
            ),
            "github-fine-grained-token",
        ),
        (
            format!(
                "SG.{}",
                body("abcdefghijklmnopqrstuvwxyz0123456789=_-.", 66, 77)
            ),
            "sendgrid-api-key",
        ),
        (format!("xoxr-{}", body(AN, 30, 78)), "slack-token"),
        (format!("xoxa-2-{}", body(AN, 40, 79)), "slack-token"),
        (format!("A3T{}", body(UP, 17, 80)), "aws-access-key-id"),
        (format!("fm1r_{}", body(AN, 120, 81)), "flyio-token"),
        (
            format!("{}.atlasv1.{}=", body(LOW, 14, 82), body(LOW, 64, 83)),
            "terraform-cloud-token",
        ),
        (format!("s.{}", body(AN, 24, 84)), "vault-token"),
        (format!("s.{}", body(LOW, 24, 85)), "vault-token"),
        (format!("4b1d{}", body(AN, 38, 86)), "clickhouse-api-secret"),
        (
            format!("{}_{}_mmk", body(AN, 6, 87), body(AN, 29, 88)),
            "maxmind-license-key",
        ),
        (
            format!("ABSK{}==", body(AN, 130, 89)),
            "aws-bedrock-api-key",
        ),
        (
            format!(
                "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{}",
                body(AN, 60, 90)
            ),
            "aws-bedrock-api-key",
        ),
        (
            format!(
                "sc_{}.{}.acc_{}.{}",
                body(LOW, 12, 91),
                body(LOW, 5, 92),
                body(LOW, 16, 93),
                body(LOW, 40, 94)
            ),
            "authress-access-key",
        ),
        (format!("cmVmd{}", body(AN, 59, 95)), "jfrog-token"),
        (format!("p8e-{}", body(LOW, 32, 96)), "adobe-client-secret"),
    ];
    assert_tokens_masked(&r, &cases);
    // `FB_TOKEN=EAA…`: `=` before a Facebook token is an assignment.
    let fb = format!("EAAB{}", body(AN, 120, 97));
    assert_eq!(
        r.redact(&format!("FB_PAGE={fb}")),
        "FB_PAGE=[REDACTED:facebook-token]"
    );
    let cookie = body(LOW, 32, 98);
    assert_eq!(
        r.redact(&format!("Cookie: _gitlab_session={cookie}; path=/")),
        "Cookie: _gitlab_session=[REDACTED:gitlab-session-cookie]; path=/"
    );
    // A bare `s.` needs a token's shape: letters and digits, a whole word.
    for clean in [
        "let n = s.getElementsByTagNameNS(a);\n",
        "s.abcdefghijklmnopqrstuvwx\n",
        "x = s.aaaaaaaaaaaaaaaaaaaaaaa1\n",
        format!("v = s.{}()\n", body(AN, 24, 99)).as_str(),
        format!("path = a.s.{}\n", body(AN, 24, 100)).as_str(),
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Airtable's personal access tokens bare (`pat`, an id, a dot, 64 hex:
/// also ids that open like `path`, `patt`), and Facebook's app access
/// tokens (`<app id>|<app secret>`) under a secret name and the vendor's
/// name, where a bare value otherwise ends at `|`; words and pipes stay.
#[test]
fn airtable_and_facebook_app_tokens_are_masked() {
    let r = redactor();
    let hex = |n, seed| body("0123456789abcdef", n, seed);
    let cases: Vec<(String, &str)> = ["", "h", "t", "hQ", "tr", "ch"]
        .iter()
        .enumerate()
        .map(|(i, head)| {
            let id = format!("{head}{}", body(AN, 14 - head.len(), 320 + i as u64));
            (
                format!("pat{id}.{}", hex(64, 330 + i as u64)),
                "airtable-pat",
            )
        })
        .collect();
    assert_tokens_masked(&r, &cases);
    let secret = hex(32, 340);
    for n in [15, 16] {
        let token = format!("{}|{secret}", body("0123456789", n, 341));
        for text in [
            format!("GET https://graph.facebook.com/v19.0/me?access_token={token} 200\n"),
            format!("FB_ACCESS_TOKEN={token}\n"),
            format!("FACEBOOK={token}\n"),
            format!("facebook: '{token}'\n"),
            format!("{{\"access_token\": \"{token}\"}}\n"),
        ] {
            let out = r.redact(&text).into_owned();
            assert!(!out.contains(&secret), "{out}");
        }
    }
    for clean in [
        "let path = PathBuf::from(pattern);\n".to_string(),
        "patch -p1 < fix.patch; pathname=$(dirname \"$0\")\n".to_string(),
        // A pipe after a number: no token follows.
        "token_count=123456789012345|wc -l\n".to_string(),
        format!("access_token=123456789012345|{}\n", &secret[..20]),
        // Too many digits for an app id: the bare value ends at `|` as before.
        format!("request_id=12345678901234567|{secret}\n"),
    ] {
        assert_eq!(r.redact(&clean), clean);
    }
}

/// Braintree's access tokens (the merchant id stays), Resend's and E2B's
/// API keys by their prefixes; Dropbox's long-lived tokens (ten `A`s, not a
/// placeholder's run) and Sendbird's 40-hex tokens under their names.
#[test]
fn payment_mail_and_sandbox_keys_are_masked() {
    let r = redactor();
    let hex = |n, seed| body("0123456789abcdef", n, seed);
    let cases: Vec<(String, &str)> = vec![
        (
            format!("re_{}_{}", body(AN, 8, 301), body(AN, 24, 302)),
            "resend-api-key",
        ),
        (format!("e2b_{}", hex(40, 303)), "e2b-api-key"),
    ];
    assert_tokens_masked(&r, &cases);
    for env in ["production", "sandbox"] {
        let id = body(LOW, 16, 304);
        let key = hex(32, 305);
        assert_eq!(
            r.redact(&format!("paid with access_token${env}${id}${key}\n")),
            format!("paid with access_token${env}${id}$[REDACTED:braintree-token]\n")
        );
    }
    let dropbox = format!("{}AAAAAAAAAA{}", body(AN, 11, 306), body(AN, 43, 307));
    for text in [
        format!("DROPBOX={dropbox}\n"),
        format!("dropbox_token: \"{dropbox}\"\n"),
    ] {
        let out = r.redact(&text);
        assert!(!out.contains(&dropbox[21..]), "{out}");
    }
    let sendbird = hex(40, 308);
    let out = r
        .redact(&format!("sendbird => '{sendbird}'\n"))
        .into_owned();
    assert!(!out.contains(&sendbird), "{out}");
    for clean in [
        "m = re_compile(pattern)\nlet re_match_index_value = 1;\n".to_string(),
        "from e2b_code_interpreter import Sandbox\n".to_string(),
        format!("github: {sendbird}\n"),
        format!(
            "blob = \"{}AAAAAAAAAAAAAAAAAAAA{}\"\n",
            body(AN, 11, 309),
            body(AN, 33, 310)
        ),
    ] {
        assert_eq!(r.redact(&clean), clean);
    }
}

/// The names of shapes in API models (botocore's JSON) are no AWS keys:
/// `AwsEc2VpcPeeringConnectionVpcInfoDetails` is 40 letters and digits, as
/// an AWS secret access key is, on a line that says `Aws`.
#[test]
fn names_of_capitalised_words_are_no_aws_keys() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\"shape\":\"AwsEc2VpcPeeringConnectionVpcInfoDetails\",\n",
            "    \"AwsEc2VpcPeeringConnectionVpcInfoDetails\":{\n",
        ],
    );
    let secret = "Kx7mN2pQ9vB4wE5rT7yU1iO4pA0sD3fG6hJ9k8Lz";
    for text in [
        format!("aws_secret_access_key = {secret}\n"),
        format!("\"SecretAccessKey\": \"{secret}\"\n"),
    ] {
        assert!(!r.redact(&text).contains(secret), "{text}");
    }
}

/// A word that is no value (`missing`, `null`, `hidden`) reads, to the
/// verdict memo's keys, as any value of its length: after a hundred lines
/// of `password=missing`, `password=Hk3jL8p` is still a password (the
/// seed `c88caffd…` of `remembered_verdicts_change_nothing`).
#[test]
fn a_word_that_is_no_value_does_not_stand_for_a_password_of_its_length() {
    let r = redactor();
    for (none, secret) in [
        ("missing", "Hk3jL8p"),
        ("null", "Zq9x"),
        ("hidden", "Xk9mP2"),
        ("undefined", "Wq8eR3tY6"),
    ] {
        for sep in ["=", ":\t", ": "] {
            let mut text = String::new();
            for _ in 0..100 {
                text.push_str(&format!("2024-05-11 INFO user=bob password{sep}{none}\n"));
            }
            text.push_str(&format!("2024-05-11 INFO user=bob password{sep}{secret}\n"));
            let alone = r
                .redact(&format!("2024-05-11 INFO user=bob password{sep}{secret}\n"))
                .into_owned();
            assert!(!alone.contains(secret) || secret.len() < 6, "{alone}");
            let out = r.redact(&text).into_owned();
            assert_eq!(
                out.lines().last().unwrap().contains(secret),
                alone.contains(secret),
                "{sep}{none} then {secret}: {alone}"
            );
        }
    }
}

/// Text found in the Google Cloud SDK's sources under secret names that
/// holds no secret: a KMS key's name, `credential.https://…` (a URL's
/// scheme, no name), a query string, an option's name before the value it
/// is joined to, a class's qualified name, and a qualifier written apart
/// (`Next page token:`) — while a field's value before a name stays no
/// qualifier (`mode=public token=v`).
#[test]
fn names_and_values_of_code_under_secret_names_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "gcloud kms-config update --kms-key=crypto-key2 --kms-keyring=ring\n",
            "kms_key: crypto-key1\n\"kmsKey\": \"my-key-7\"\n",
            "git config 'credential.https://source.developers.google.com/.helper=' gcloud\n",
            "_GCE_VM_AUTH = '&authMechanism=MONGODB-OIDC&authMechanismProperties=ENVIRONMENT:gcp'\n",
            "args = ['-o', 'Credentials:gs_host_header=' + gs_host]\n",
            "oauth2_creds: 'oauth2client_4_0.client.OAuth2Credentials',\n",
            "auth_token_class = \"com.example.auth.TokenProvider\"\n",
            "Next page token: eav1OzQB0OM8rLdGXOEsyQWSG\n",
            "Max token: 4096\nPublic key: AAAAC3NzaC1lZDI1NTE5AAAAIB9x7Qk2Lm\n",
        ],
    );
    for (text, secret) in [
        (
            "mode=public token=eav1OzQB0OM8rLdGXOEsyQWSG\n",
            "eav1OzQB0OM8rLdGXOEsyQWSG",
        ),
        (
            "API token: eav1OzQB0OM8rLdGXOEsyQWSG\n",
            "eav1OzQB0OM8rLdGXOEsyQWSG",
        ),
        ("password: \"?K8bGCY2UoB=Kj99RxbSm\"\n", "K8bGCY2UoB"),
        ("PASSWORD='a_b_c_d9='\n", "a_b_c_d9="),
        (
            "password: \"correct.horse.Battery\"\n",
            "correct.horse.Battery",
        ),
    ] {
        let out = r.redact(text);
        assert!(!out.contains(secret), "{text} -> {out}");
    }
}

#[test]
fn model_provider_and_infra_keys_beyond_the_issue_list_are_masked() {
    let r = redactor();
    let cases: Vec<(String, &str)> = vec![
        (format!("nvapi-{}", body(AN, 64, 201)), "nvidia-api-key"),
        (format!("tvly-{}", body(AN, 32, 202)), "tavily-api-key"),
        (format!("tvly-dev-{}", body(AN, 32, 203)), "tavily-api-key"),
        (format!("csk-{}", body(AN, 48, 204)), "cerebras-api-key"),
        (format!("jina_{}", body(AN, 60, 205)), "jina-api-key"),
        (format!("fw_{}", body(AN, 24, 206)), "fireworks-api-key"),
        (
            format!("tskey-auth-{}-{}", body(AN, 17, 207), body(AN, 33, 208)),
            "tailscale-key",
        ),
        (format!("EAAA{}", body(AN, 60, 209)), "square-token"),
    ];
    assert_tokens_masked(&r, &cases);
    for clean in [
        "fw_version=1.2.3 fw_update_available=true\n",
        "let fw_buffer_size_in_bytes_x = 4;\n",
        "tskey-auth is the prefix of Tailscale auth keys\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

// ---------------------------------------------------------------------------- issue 15: contexts

/// Asserts that each input masks exactly the value `v` (every occurrence,
/// as `[REDACTED:generic-secret]`) and keeps everything else.
fn assert_masks_value(r: &Redactor, inputs: &[String], v: &str) {
    for input in inputs {
        let want = input.replace(v, "[REDACTED:generic-secret]");
        assert_eq!(r.redact(input), want, "{input}");
        // Redacting twice changes nothing; the stream gives the same.
        assert_eq!(r.redact(&want), want, "{input}");
        assert_eq!(
            stream(r, input.as_bytes(), vec![1, 3], 5),
            want.as_bytes(),
            "{input}"
        );
    }
}

/// A fixed-seed xorshift generator for the tests' random values.
fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The random values (`count` of `len` characters of `alphabet`, from the
/// xorshift seed `seed`) that survive redaction of the text `text` puts them
/// in (`None`: the value is skipped).
fn left_unmasked(
    r: &Redactor,
    seed: u64,
    alphabet: &[u8],
    (len, count): (usize, usize),
    text: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut next = xorshift(seed);
    let n = alphabet.len() as u64;
    let mut left = Vec::new();
    for _ in 0..count {
        let v: String = (0..len)
            .map(|_| char::from(alphabet[(next() % n) as usize]))
            .collect();
        if let Some(t) = text(&v) {
            if r.redact(&t).contains(v.as_str()) {
                left.push(v);
            }
        }
    }
    left
}

fn assert_unchanged(r: &Redactor, inputs: &[&str]) {
    for input in inputs {
        assert_eq!(r.redact(input), *input, "{input}");
    }
}

/// Each of `texts` comes out with every `v` in it masked by the generic rule.
fn assert_masked(r: &Redactor, v: &str, texts: &[String]) {
    for text in texts {
        assert_eq!(
            r.redact(text),
            text.replace(v, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
}

#[test]
fn literals_wrapped_in_a_conversion_mask_the_literal() {
    let r = redactor();
    let v = "Hq3vX8mR2pLw6Tz9";
    let inputs = [
        format!("var jwtKey = []byte(\"{v}\")"),
        format!("\tsigningSecret := []byte(`{v}`)"),
        format!("let db_password: String = String::from(\"{v}\");"),
        format!("let api_token = String::from(\"{v}\");"),
        format!("let api_key = SecretString::new(\"{v}\".into());"),
        format!("password = str(\"{v}\")"),
        format!("SECRET_KEY = bytes('{v}', 'utf-8')"),
        format!("const clientSecret = Buffer.from('{v}');"),
        format!("auto secret = std::string(\"{v}\");"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "let token = String::from(\"\");",
            "password = str(password_input)",
            "let token_name = String::from(\"Hq3vX8mR2pLw6Tz9\");",
            "let secret = String::from(\"${SECRET}\");",
            "key := []byte(\"Hq3vX8mR2pLw6Tz9\")",
            "let password_prompt = String::from(\"Enter your password:\");",
            "auto s = std::string(token);",
        ],
    );
}

/// `gh secret set NAME --body v` (`-b v`, `--body=v`) stores a secret: the
/// value is masked. A YAML tag before a value (`password: !!binary …`,
/// `api_key: !!str …`) is not the value: what follows it is masked. A
/// variable, a file or a tag without a value stay.
#[test]
fn gh_secret_set_and_yaml_tags_mask_the_value() {
    let r = redactor();
    let v = "Hq3vX8mR2pLw6Tz9";
    let inputs = [
        format!("gh secret set API_TOKEN --body \"{v}\""),
        format!("gh secret set DEPLOY_KEY -b {v} --repo acme/api"),
        format!("gh secret set NPM_TOKEN --env prod --body={v}"),
        format!("gh secret set SLACK_WEBHOOK -b'{v}'"),
        format!("  api_key: !!str {v}"),
        format!("password: !!binary {v}"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "gh secret set API_TOKEN --body \"$API_TOKEN\"",
            "gh secret set DEPLOY_KEY < deploy_key.pem",
            "gh secret set -f .env",
            "gh secret list --repo acme/api",
            "  token: !!binary",
            "  secret_name: !!str prod/db",
            "retries: !!int 3",
        ],
    );
}

/// Typed declarations whose type is nullable (Kotlin, Swift `String?`), a
/// union (`string | undefined`, Python's `str | None`) or qualified
/// (`typing.Optional[str]`), TypeScript optional properties with a default
/// (`apiKey?: string = "v"`)
/// and the lines of a Go `var (` / `const (` block mask the literal; the
/// names and types stay, and so do the same shapes without a literal.
#[test]
fn typed_declarations_with_nullable_types_optional_properties_and_go_blocks() {
    let r = redactor();
    let v = "Hq3vX8mR2pLw6Tz9";
    let inputs = [
        format!("private val apiToken: String? = \"{v}\""),
        format!("let token: String? = \"{v}\""),
        format!("var clientSecret: String? = '{v}'"),
        format!("  apiKey?: string = \"{v}\";"),
        format!("  private readonly authToken?: string = '{v}';"),
        format!("var (\n\tapiSecret string = \"{v}\"\n)"),
        format!("const (\n    githubToken string = `{v}`\n)"),
        format!("export const AUTH_TOKEN: string | undefined = \"{v}\";"),
        format!("token: str | None = \"{v}\""),
        format!("api_key: typing.Optional[str] = '{v}'"),
    ];
    assert_masks_value(&r, &inputs, v);
    for text in &inputs {
        let out = r.redact(text);
        let name_and_type = text.split(" = ").next().unwrap_or_default();
        assert!(out.contains(name_and_type), "the name and type stay: {out}");
    }
    assert_unchanged(
        &r,
        &[
            "private val apiToken: String? = null",
            "  apiKey?: string;",
            "  authToken?: string = undefined;",
            "var (\n\tapiSecret string\n)",
            "    token refreshed at 12:00 = ok",
            "const x = cond ? token : fallback;",
            "let tokenKind: TokenKind | undefined = \"Identifier\";",
            "secret: str | None = None",
        ],
    );
}

/// A string literal with a prefix is the value: Python's bytes, raw and
/// unicode strings (`app.secret_key = b'…'` is Flask's documented form),
/// Rust's byte strings; the prefix and the quotes stay. Raw regexes, data
/// bytes, short or empty values and f-strings (code: `f"share-{org}"`)
/// stay whole.
#[test]
fn string_prefixed_literals_mask_the_literal() {
    let r = redactor();
    let v = "Hq3vX8mR2pLw6Tz9";
    let inputs = [
        format!("app.secret_key = b'{v}'"),
        format!("SECRET_KEY = b\"{v}\""),
        format!("    password = r'{v}'"),
        format!("API_TOKEN = u'{v}'"),
        format!("settings.AUTH_TOKEN = br\"{v}\""),
        format!("client_secret = RB'{v}'"),
        format!("model = Model(password_bytes=b'{v}')"),
        format!("token=b'{v}'"),
        format!("const SECRET: &[u8] = b\"{v}\";"),
        format!("\"password\": b\"{v}\","),
    ];
    assert_masks_value(&r, &inputs, v);
    for text in &inputs {
        let out = r.redact(text);
        let quote = if text.contains(&format!("'{v}'")) {
            '\''
        } else {
            '"'
        };
        assert!(
            out.contains(&format!("{quote}[REDACTED:")),
            "the prefix and the quote stay: {out}"
        );
    }
    assert_unchanged(
        &r,
        &[
            "password_regex = r'^(?=.*[A-Z])(?=.*\\d).{8,}$'",
            "TOKEN_RE = re.compile(rb'[A-Za-z0-9]{40}')",
            "secret = f'{prefix}-{name}'",
            "portfolio_share_token = f\"share-{portfolio_id}-{org_type}-{org_value}\"",
            "db_password = f\"Hq3vX8mR2pLw6Tz9\"",
            "password = b''",
            "if token == b'abc': pass",
            "data = b'hello world token'",
            "export TOKEN=rb",
            "token = bar",
        ],
    );
}

/// Java and C code seen through the redactor stays whole (the JDK's own
/// sources: 56 lines changed in 105 MB before, 8 after): numbers with a
/// C or Java suffix, a field set from the variable of its name, a
/// camel-case variable or declared field, resource strings written
/// with `\\uXXXX` escapes after a `-keypass` flag, and member paths
/// through names with a number between words (`P11Key.secretKey`). Values
/// of the same names are still masked.
#[test]
fn java_code_values_are_not_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "    public static final long  CKA_NETSCAPE_TRUST_SERVER_AUTH      = 0xCE536358L;",
            "    public static final long  CKM_GENERIC_SECRET_KEY_GEN     = 0x00000350UL;",
            "int secret_len = 42UL;",
            "float password_weight = 1.5f;",
            "        this.pskIdentity = pskIdentity;",
            "    SecretKey                               baseReadSecret;",
            "            SecretKey secret = isValidation ?",
            "            { \".keypass.and.new.can.not.be.specified.if.storetype.is.{0}\", \"-storetype\\uC774 {0}\\uC778 \\uACBD\\uC6B0 -keypass \\uC640 -new\" },",
            "            { \".keypasswd.commands.not.supported\", \"comandos -keypasswd n\\u00E3o suportados\" },",
            // Member paths through names with a number between words.
            "            SecretKey key = P11Key.secretKey",
            "            Token token = p11Key.token;",
            "    public static final String KEY = CertificateX509Key.NAME;",
            "    MessageDigest digest = Sha256Digest.INSTANCE;",
        ],
    );
    // A value with a number but no capitalised word after it stays a secret.
    for v in ["hunter2.prod", "aB3dE5fG7Kab.xyZ", "Passw0rdSecure.Prod"] {
        assert_masks_value(&r, &[format!("password = {v};")], v);
    }
    let v = "Hq3vX8mR2pLw6Tz9";
    assert_masks_value(
        &r,
        &[
            format!("CKA_TRUST_SERVER_AUTH = {v};"),
            format!("this.pskIdentity = {v};"),
            format!("SecretKey secret = {v};"),
            format!("-keypass {v} -new"),
            format!("password = \"{v}\";"),
        ],
        v,
    );
}

/// Go code seen through the redactor stays whole (Supabase Auth's sources:
/// 25 lines of code no longer changed): a pointer type or dereference, a
/// composite literal's type, a variable given to a struct literal's field.
/// Random values in the same places are still masked.
#[test]
fn go_code_values_are_not_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\tprivKey      *ecdsa.PrivateKey",
            "\t\ttoken       *AccessTokenResponse",
            "\t\tpassword := *params.Password",
            "\t\tpwd = *u.EncryptedPassword",
            "\t\t\tCredential: protocol.Credential{",
            "\t\twc.Credential = webauthn.Credential{}",
            "\tcred := &webauthn.Credential{",
            "\t\tPrivateKey: sigKey1,",
            "\t\tPrivateKey: privJwk,\n\t}",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9";
    assert_masks_value(
        &r,
        &[
            format!("\t\tpassword := \"{v}\""),
            format!("\t\tPrivateKey: {v},"),
        ],
        v,
    );
}

/// Java declarations whose value is a class (a builder chain going on on
/// the next line) and the code between two string literals (PHP's `.`,
/// Twig's `~`, Java's `toString()` chains) stay whole (Spring Security's
/// sources: 202 lines changed before, 147 after, the rest literal test
/// fixtures; Laravel's: 2 and 1).
/// Values of the same names are still masked, and a config's CamelCase
/// password without a type before its name too.
#[test]
fn class_values_and_string_concatenations_are_code() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\t\tOAuth2Authorization authorization = TestOAuth2Authorizations\n\t\t\t.authorization().build();",
            "\tprivate Supplier<PasswordEncoder> passwordEncoder = SingletonSupplier\n\t\t.of(x);",
            "\tprivate static RequiredFactor REQUIRED_PASSWORD = RequiredFactor;",
            "            'password' => '--password='.$connection['password'],",
            "        return new HtmlString('<input type=\"hidden\" name=\"_token\" value=\"'.csrf_token().'\" autocomplete=\"off\">');",
            "cmd = \"--password=\" . $pass . \" --user\";",
            "x = \"password=\" ~ pw ~ \";\"",
            // Java's `toString()`: a call chain, a quote on one side only.
            "\t\tsb.append(\"CredentialsNonExpired=\").append(this.credentialsNonExpired).append(\", \");",
            "\t\t\t\t+ \", clientSecret='\" + this.clientSecret + '\\''",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9";
    assert_masks_value(
        &r,
        &[
            format!("\t\tString clientSecret = \"{v}\";"),
            format!("'password' => '{v}',"),
        ],
        v,
    );
    // A random value opening with `.` or `+` is no concatenation, nor one
    // between parentheses.
    for text in [
        format!("password = \"){v}(\""),
        format!("password = \"'{v}\""),
        format!("token = \".{v}\""),
        format!("secret = \"+{v}\""),
        // Base64 may open and close with a bare `+`.
        format!("secret = \"+{v}+\""),
    ] {
        let out = r.redact(&text);
        assert!(!out.contains(v), "{out}");
    }
    let header = format!("Authorization: Bearer {v}\n");
    assert_eq!(
        r.redact(&header),
        "Authorization: Bearer [REDACTED:bearer-token]\n"
    );
    // A value that reads as words, without a type before its name.
    let out = r.redact("password = TrustNoOne42\n");
    assert!(!out.contains("TrustNoOne42"), "{out}");
}

/// TypeScript member access written with optional chaining or a non-null
/// assertion, and a prefix increment, is code (supabase-js: 88 lines
/// changed before, 65 after, the rest literal test values and tokens).
#[test]
fn optional_chaining_and_non_null_assertions_are_code() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "            gotrue_meta_security: { captcha_token: options?.captchaToken },",
            "      const accessToken = data.session?.access_token",
            "        const originalSecret = createData!.client_secret",
            "    this.accessToken = options?.accessToken ?? null",
            "    const authGeneration = ++this._authGeneration",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9";
    assert_masks_value(&r, &[format!("const accessToken = '{v}'")], v);
    let text = format!("token = {v}?.x\n");
    let out = r.redact(&text);
    assert!(!out.contains(v), "{out}");
}

#[test]
fn js_env_fallbacks_mask_the_literal() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("const token = process.env.API_TOKEN || '{v}';"),
        format!("const key = process.env.STRIPE_KEY ?? \"{v}\";"),
        format!("  apiKey: process.env[\"OPENAI_API_KEY\"] || `{v}`,"),
        format!("const secret = import.meta.env.VITE_CLIENT_SECRET ?? '{v}';"),
        format!("let tok = Deno.env.get(\"GITHUB_TOKEN\") ?? \"{v}\";"),
        format!("token = os.environ.get(\"API_TOKEN\") or \"{v}\""),
        format!("token = os.getenv('SLACK_BOT_TOKEN') or '{v}'"),
        format!("$key = getenv('API_KEY') ?: '{v}';"),
        format!("$pass = $_ENV['DB_PASSWORD'] ?? '{v}';"),
        format!("val key = System.getenv(\"SERVICE_API_KEY\") ?: \"{v}\""),
        format!("token = ENV[\"AUTH_TOKEN\"] || \"{v}\""),
        format!("token ||= \"{v}\""),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "const token = process.env.API_TOKEN || '';",
            "const apiKey = process.env.OPENAI_API_KEY ?? undefined;",
            "token = os.environ.get(\"GITHUB_TOKEN\") or None",
            "const key = process.env.API_KEY || 'your-api-key-here';",
            "const port = process.env.PORT || '8080';",
            "const t = options.token || 'anonymous';",
        ],
    );
}

#[test]
fn php_assignments_and_appends() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("$password = '{v}';"),
        format!("$db_pass = \"{v}\";"),
        format!("$password .= '{v}';"),
        format!("$secret.='{v}';"),
        format!("define('DB_PASSWORD', '{v}');"),
        format!("$config['api_key'] = \"{v}\";"),
        format!("'password' => '{v}',"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "$password .= $chars[random_int(0, $max)];",
            "$password = $_POST['password'];",
            "define('DB_PASSWORD', getenv('DB_PASSWORD'));",
        ],
    );
}

#[test]
fn make_assignment_operators() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("API_TOKEN ::= {v}"),
        format!("API_TOKEN :::= {v}"),
        format!("API_TOKEN ?= {v}"),
        format!("API_TOKEN += {v}"),
        format!("API_TOKEN := {v}"),
        format!("export REGISTRY_PASSWORD ?= {v}"),
        format!("override DEPLOY_KEY ::= {v}"),
        format!("DB_PASSWORD?={v}"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "API_KEY ?= $(shell cat .api-key)",
            "TOKEN ::= $(TOKEN_FROM_VAULT)",
            "CFLAGS += -O2 -Wall",
            "TOKEN_FILE ?= /run/secrets/token",
        ],
    );
}

#[test]
fn set_property_and_env_setters() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("System.setProperty(\"X_TOKEN\", \"{v}\");"),
        format!("System.setProperty(\"db.password\", \"{v}\");"),
        format!("System.setProperty( 'api.key' , '{v}' );"),
        format!("os.Setenv(\"API_TOKEN\", \"{v}\")"),
        format!("std::env::set_var(\"GITHUB_TOKEN\", \"{v}\");"),
        format!("os.environ.setdefault(\"OPENAI_API_KEY\", \"{v}\")"),
        format!("token = os.getenv('SLACK_TOKEN', '{v}')"),
        format!("Environment.SetEnvironmentVariable(\"CLIENT_SECRET\", \"{v}\");"),
        format!("props.setProperty(\"mail.smtp.password\", \"{v}\");"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "System.setProperty(\"javax.net.ssl.trustStorePassword\", System.getenv(\"TRUST_PW\"));",
            "os.Setenv(\"API_TOKEN\", token)",
            "t(\"auth.password\", \"Password\")",
            "log.info(\"token\", \"Token refreshed for user\")",
            "Buffer.from(\"secret\", \"utf-8\")",
            "System.setProperty(\"token.ttl\", \"3600\");",
        ],
    );
}

#[test]
fn xml_value_on_the_next_line() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("<password>\n   {v}\n</password>"),
        format!("<settings>\n  <server>\n    <password>\n      {v}\n    </password>\n  </server>\n</settings>\n"),
        format!("<db-password encrypted=\"false\">\r\n\t{v}\r\n</db-password>\r\n"),
        format!("<apiKey>\n{v}\n</apiKey>"),
        format!("<client_secret>  \n    {v}   \n  </client_secret>"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "<password>\n  <value>${DB_PASSWORD}</value>\n</password>\n",
            "<token>\n    {{ token }}\n</token>\n",
            "<secret>\n    The secret is used for signing cookies.\n</secret>\n",
            "<password/>\n  hunter2-Zq9vK2mL\n</x>",
            "<password-policy>\n   minLength12\n</password-policy>",
        ],
    );
}

#[test]
fn shell_defaults_mask_the_default() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("      POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{v}}}"),
        format!("export API_TOKEN=\"${{API_TOKEN:={v}}}\""),
        format!("token=${{GITHUB_TOKEN-{v}}}"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-}",
            "      TOKEN_TTL: ${TOKEN_TTL:-3600}",
            "      DB_PASSWORD: ${DB_PASSWORD:-changeme}",
            "      API_KEY: ${API_KEY:-$(cat /run/secrets/api_key)}",
            "      API_KEY: ${API_KEY:?API_KEY is required}",
            "DB_PASSWORD=${DB_PASSWORD:?missing}",
            "token=${SECRET_TOKEN?unset_token}",
            "args=${API_TOKEN:+--token-from-env}",
        ],
    );
}

#[test]
fn pw_and_pwd_names_are_passwords() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("DB_PW={v}"),
        format!("MYSQL_PWD={v}"),
        format!("export ADMIN_PW='{v}'"),
        format!("  db_pw: {v}"),
        format!("{{\"smtp_pw\": \"{v}\"}}"),
        format!("GET /login?user=bob&pw={v} HTTP/1.1"),
        format!("db.createUser({{user: \"app\", pwd: \"{v}\", roles: []}})"),
        format!("--db-pw={v}"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "lib/auth/password.ts:33:export function hash(pw: string): string {",
            "        pub pw_passwd: *mut c_char,",
            "Run pwd to print the working directory.",
        ],
    );
}

#[test]
fn a_question_mark_before_an_equals_sign_in_a_value_is_no_nullable_type() {
    let r = redactor();
    let v = "QpX?=fzPf4E";
    let inputs = [
        format!("password: {v}"),
        format!("> X-Db-Password: {v}"),
        format!("  db_password: {v}"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "val password: String?=null",
            "fun login(password: String?=null, token: String? = null) {}",
            "var token: String? = nil",
        ],
    );
}

#[test]
fn rust_debug_options_and_some_literals_are_masked() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("Config {{ host: \"db\", password: Some(\"{v}\") }}"),
        format!("Options {{ api_token: Some(\"{v}\"), retries: 3 }}"),
        format!("let password: Option<&str> = Some(\"{v}\");"),
        format!("let api_key = Some(\"{v}\".to_string());"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "token = Some(token)",
            "Config { password: None, token_count: Some(\"Zq9vK2mL7pXw4Rt8\") }",
            "password: Some(\"***\")",
        ],
    );
}

#[test]
fn shell_setters_double_quoted_sql_and_powershell_literals_are_masked() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("set -x API_KEY {v}"),
        format!("    set -gx GITHUB_TOKEN {v}"),
        format!("setenv DB_PASSWORD {v}"),
        format!("setx API_TOKEN \"{v}\""),
        format!("ALTER USER app IDENTIFIED BY \"{v}\";"),
        format!("CREATE USER 'bob'@'%' IDENTIFIED WITH mysql_native_password BY \"{v}\";"),
        format!("$password = ConvertTo-SecureString \"{v}\" -AsPlainText -Force"),
        format!("$s = ConvertTo-SecureString -String '{v}' -AsPlainText -Force"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "$pw = Read-Host -AsSecureString \"Password\"",
            "$password = Get-Content .\\pw.txt | ConvertTo-SecureString",
            "set -x PATH $HOME/.cargo/bin $PATH",
            "set -e API_KEY",
        ],
    );
}

#[test]
fn wordpress_keys_with_spaces_are_masked_and_regexes_are_not() {
    let r = redactor();
    let salts = [
        "q1}+zK#2L(~y<9PV.w!|R:Vb e@%Tuc8M(n0]Ha,DkU*/h=C3]Z7Q-s+Js-Ei{BO",
        ")w:4L]u^Q)aX+ <g@1WZ(!3v%FcNq~n8Yz#J.kT0bR,e=D{M-6sP_o/h>2j",
        "Xk3jR9sLm2QpW7vN4tYb8cZd1 -|+Qp7vN4tYb8cZd1Xk3jR9sLm2Q",
    ];
    for (name, v) in ["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY"]
        .iter()
        .zip(salts)
    {
        assert_masks_value(&r, &[format!("define('{name}',  '{v}');")], v);
    }
    assert_unchanged(
        &r,
        &[
            "define('NONCE_KEY', 'put your unique phrase here');",
            "TOKEN_RE = \"^[A-Za-z0-9+/]{40}={0,2} ?(?:Bearer|Token) [0-9a-f]{32}$\"",
            "token = \"The token is used to sign requests, see docs at https://x.io\"",
        ],
    );
}

#[test]
fn names_with_a_kind_word_elsewhere_than_before_the_key_word_are_secret() {
    let r = redactor();
    let v = "Xk3jR9sLm2QpW7vN4tYb8cZd1";
    let inputs = [
        format!("AWS_S3_SECRET_ACCESS_KEY={v}"),
        format!("REDIS_CACHE_PASSWORD={v}"),
        format!("message_bird_api_key = \"{v}\""),
        format!("MESSAGE_BIRD_SECRET={v}"),
        format!("INPUT_GITHUB_TOKEN={v}"),
        format!("{{\"group_api_token\": \"{v}\"}}"),
        format!("tavily_key: {v}"),
        format!("  \"tursoKey\": \"{v}\","),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "cache_key: Xk3jR9sLm2QpW7vN4tYb8cZd1",
            "{\"next_page_token\": \"Xk3jR9sLm2QpW7vN4tYb8cZd1\", \"input_tokens\": 812}",
            "S3_OBJECT_KEY=Xk3jR9sLm2QpW7vN4tYb8cZd1",
            "item_key: \"item-42\"",
            "state_key: \"b3a1f9d2-4c5e-4a7b-9d8c-2f1e0a9b8c7d\"",
            "sha_key: \"3f786850e387550fdab836ed7e6dc881de23001b\"",
        ],
    );
}

/// `zip`, `unzip`, `openssl` and `htpasswd` take a password on the command line.
#[test]
fn archive_openssl_and_htpasswd_passwords_on_a_command_line_are_masked() {
    let r = redactor();
    let v = "Wq8rT3yU1iO5pL";
    let inputs = [
        format!("openssl enc -aes-256-cbc -salt -k {v} -in a.txt -out a.enc"),
        format!("openssl enc -d -aes-256-cbc -k '{v}' -in a.enc"),
        format!("zip -r -P {v} backup.zip ./data"),
        format!("unzip -P \"{v}\" backup.zip"),
        format!("htpasswd -b -c /etc/nginx/.htpasswd admin {v}"),
        format!("htpasswd -cb .htpasswd admin {v}"),
        format!("htpasswd -nb admin {v}"),
        format!("$ htpasswd -B -b users.db alice '{v}' && echo ok"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "openssl s_client -connect example.com:443 -servername example.com",
            "zip -r -9 backup.zip ./data",
            "for (a, b) in xs.iter().zip(ys) { p += a * b; }",
            "htpasswd -c /etc/nginx/.htpasswd admin",
            "unzip -P $ZIP_PASSWORD backup.zip",
        ],
    );
}

/// In code a data store's `<store>_key` is a key into the store: lower-case
/// and camel-case names of theirs mask only a token-shaped value, while the
/// environment-variable form stays a secret name.
#[test]
fn data_store_keys_in_code_are_keys_into_the_store() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "redis_key: \"session:9f8e7d6c\"",
            "redisKey = \"user:42:profile\"",
            "db_key = \"orders_2024\"",
            "  \"mongo_key\": \"tenant/17\",",
            "database_key: \"region-eu\"",
            "mysqlKey := \"pk_users\"",
        ],
    );
    let v = "Xk3jR9sLm2QpW7vN4tYb8cZd1";
    let inputs = [
        format!("redis_key: \"{v}\""),
        format!("dbKey = \"{v}\""),
        format!("REDIS_KEY={v}"),
        format!("DB_KEY=\"{v}\""),
        format!("REDIS_PASSWORD={v}"),
        format!("db_password = \"{v}\""),
    ];
    assert_masks_value(&r, &inputs, v);
}

/// A logger's name before a colon (`auth.session:`) reads like a secret
/// name, but what follows it is the line's next `name=value` field, not a
/// value: the log line is unchanged. A password holding `=` is still masked,
/// and so is a secret in the field itself.
#[test]
fn a_logger_name_before_a_field_is_no_secret_assignment() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "2024-06-07 06:59:58,053 [DEBUG] auth.session: session_token_ttl=3600 refresh_token_rotated=true",
            "auth: user_id=5 tenant=acme",
            "password.policy: min_length=12 max_age=90d",
            "[WARN] credentials.cache: cache_hit_ratio=0.93",
        ],
    );
    for v in [
        "A_Jmwo=jcLEgFyXbGLe3YM",
        "P-ZT=6Ft7XGpLWQ",
        "Xk9q=w7bbQ2",
        "dXNlcjpwYXNzd29yZA==",
    ] {
        assert_masks_value(
            &r,
            &[format!("password: {v}"), format!("auth.session: {v}")],
            v,
        );
    }
    let t = "Xk3jR9sLm2QpW7vN4tYb8cZd1";
    assert_masks_value(&r, &[format!("auth.session: session_token={t}")], t);
}

/// SQL's `IDENTIFIED BY` is masked in account statements, not in prose;
/// a dotted number (OID, IP address, version) is no secret value.
#[test]
fn prose_identified_by_and_dotted_numbers_are_left_alone() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "** that have the same value for all columns identified by \"aOrderBy\".",
            "The row is identified by 'order_id' in the index.",
            "const OID_PKCS9_MESSAGE_DIGEST_KEY = '1.2.840.113549.1.9.4';",
            "DB_PASSWORD_VERSION: 2.31.0",
            "secret_host = \"10.0.12.7\"",
        ],
    );
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("CREATE USER 'bob'@'%' IDENTIFIED BY '{v}';"),
        format!("create user bob identified by '{v}';"),
        format!("alter role app identified by \"{v}\";"),
        format!("grant all on db.* to 'u'@'h' identified by '{v}';"),
        format!("  identified by '{v}';"),
        format!("CREATE USER scott\n  IDENTIFIED WITH caching_sha2_password BY '{v}';"),
    ];
    assert_masks_value(&r, &inputs, v);
}

/// `PWD` and `OLDPWD` (and the other names SPEC §4 knows not to hold
/// secrets) are left alone by the generic rule, as by `is_secret_env_name`:
/// `ps axeww` and `env` output keep their working directories.
#[test]
fn working_directory_variables_are_not_secrets() {
    let r = redactor();
    for name in [
        "PWD",
        "OLDPWD",
        "SSH_AUTH_SOCK",
        "XAUTHORITY",
        "GPG_AGENT_INFO",
    ] {
        assert!(!toolexec_redact::is_secret_env_name(name), "{name}");
        for value in [
            "/srv/app-2024_v3/x9Kq",
            "/tmp/ssh-XXXXabc12DeF/agent.1234",
            "/home/u/Zq9vK2mL7pXw4Rt8",
        ] {
            for line in [
                format!("{name}={value}"),
                format!("export {name}='{value}'"),
                format!(" 4242 ?        Ss     0:00 /usr/bin/api PATH=/usr/bin {name}={value} HOME=/root"),
            ] {
                assert_eq!(r.redact(&line), line, "{line}");
            }
        }
    }
    // The secrets on the same `ps` line are still masked.
    let line = " 4242 ?        Ss     0:00 api PWD=/srv/app-2024_v3 OLDPWD=/srv/x_9Kq2 DB_PASSWORD=Zq9vK2mL7pXw4Rt8 HOME=/root";
    assert_eq!(
        r.redact(line),
        line.replace("Zq9vK2mL7pXw4Rt8", "[REDACTED:generic-secret]")
    );
    assert!(toolexec_redact::is_secret_env_name("MYSQL_PWD"));
    assert!(toolexec_redact::is_secret_env_name("DB_PW"));
}

#[test]
fn go_raw_strings_in_backticks() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    let inputs = [
        format!("var password string = `{v}`"),
        format!("const apiKey string = `{v}`"),
        format!("\tvar tok string = `{v}`"),
        // Untyped: short declarations, assignments, constants, struct
        // fields, and JS/TS template literals.
        format!("\ttoken := `{v}`"),
        format!("\tdbPassword := `{v}`"),
        format!("password = `{v}`"),
        format!("const apiKey = `{v}`"),
        format!("\tSecret: `{v}`,"),
        format!("export const API_TOKEN = `{v}`;"),
    ];
    assert_masks_value(&r, &inputs, v);
    assert_unchanged(
        &r,
        &[
            "var password string",
            "const tokenKind string = `ident`",
            // Commands (shell, Perl, Ruby, PHP backticks) and templates.
            "TOKEN=`cat /run/secrets/token`",
            "export GH_TOKEN=`gh auth token`",
            "my $password = `pass show db`;",
            "PASSWORD=`whoami`",
            "API_KEY=`./gen-key.sh`",
            "const token = `Bearer ${accessToken}`;",
            "const key = `${prefix}_${id}`;",
            "The `password` option: `string`",
        ],
    );
}

#[test]
fn unsigned_two_part_jwts() {
    let r = redactor();
    for jwt in [
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIiwiYWRtaW4iOnRydWV9",
        "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJpc3MiOiJhY21lIiwiZXhwIjoxNzE2MjQyNjIyfQ.",
    ] {
        for (input, want) in [
            (format!("token {jwt}"), "token [REDACTED:jwt]".to_string()),
            (
                format!("{{\"id_token\":\"{jwt}\"}}"),
                "{\"id_token\":\"[REDACTED:jwt]\"}".to_string(),
            ),
            (
                format!("Cookie: session={jwt}"),
                "Cookie: session=[REDACTED:jwt]".to_string(),
            ),
        ] {
            assert_eq!(r.redact(&input), want, "{input}");
        }
    }
    // A JWT header alone is no secret.
    assert_unchanged(
        &r,
        &["alg header: eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ kid=1"],
    );
}

// ---------------------------------------------------------------------------- issue 15: false positives

#[test]
fn fp_refresh_token_parameter_type() {
    assert_unchanged(
        &redactor(),
        &[
            "async refreshToken(refreshToken: string): Promise<void> {",
            "  refreshToken(refreshToken: string) {",
            "function rotate(accessToken: string, refreshToken: string): Tokens {",
            "  constructor(private readonly apiKey: string) {}",
        ],
    );
}

#[test]
fn fp_firebase_auth_domain() {
    assert_unchanged(
        &redactor(),
        &[
            "  authDomain: \"acme-prod.firebaseapp.com\",",
            "const firebaseConfig = { authDomain: \"my-app-7f3a2.firebaseapp.com\", projectId: \"my-app-7f3a2\" };",
            "AUTH_DOMAIN=login.example-2024.auth0.com",
        ],
    );
}

#[test]
fn fp_prose_password_combination() {
    assert_unchanged(
        &redactor(),
        &[
            "Invalid username/password combination.",
            "Error: wrong password combination. Please try again.",
            "The password combination you entered is incorrect.",
        ],
    );
}

#[test]
fn fp_maven_coordinates() {
    assert_unchanged(
        &redactor(),
        &[
            "<artifactId>io.jsonwebtoken:jjwt-jackson-0.11.2</artifactId>",
            "implementation 'io.jsonwebtoken:jjwt-jackson:0.11.2'",
            "[INFO] +- io.jsonwebtoken:jjwt-api:jar:0.12.5:compile",
            "    <dependency>io.jsonwebtoken:jjwt-impl:0.12.6</dependency>",
        ],
    );
}

#[test]
fn fp_curl_user_placeholder() {
    assert_unchanged(
        &redactor(),
        &[
            "curl -u <user:password> https://api.example.com",
            "Usage: curl -u <username:token> https://registry.example.com/v2/",
            "curl --user '<user>:<password>' https://x.example.com",
        ],
    );
}

#[test]
fn fp_percent_variables() {
    assert_unchanged(
        &redactor(),
        &[
            "password=%TestSourcePassword%",
            "set PASSWORD=%DB_PASSWORD%",
            "<add key=\"ApiKey\" value=\"%ApiKey%\" />",
        ],
    );
}

#[test]
fn fp_json_field_names_that_are_not_secrets() {
    assert_unchanged(
        &redactor(),
        &[
            "{\"token_count\": 1532, \"max_tokens\": 4096, \"next_page_token\": \"CAESEQoPCgt0b2tlbi0xMjM0EAE\", \"key_id\": \"k-7f3a2b9c\"}",
            "{\"secret_name\": \"prod/db\", \"key_type\": \"RSA\", \"token_type\": \"Bearer\", \"expires_in\": 3599}",
            "{\"nextPageToken\": \"AJ3kd83JdkX0aPq\", \"pageToken\": \"b2Zmc2V0PTIw\"}",
        ],
    );
}

// ---------------------------------------------------------------------------- proptest seeds

// Every shrunk case of `api.proptest-regressions`, as a named test. The
// `seed, family` cases of `prop_embedded_secret_never_survives` name the
// family by the index it had when the seed was recorded (the 33 families of
// the corpus then, `family % 33`); the `t` cases are `prop_idempotent`'s,
// checked here for idempotence and for streaming equal to one-shot.

/// `prop_embedded_secret_never_survives` with an empty filler.
fn embedded_seed(family: &str, seed: u64) {
    let fams = corpus::families();
    let f = fams
        .iter()
        .find(|f| f.name == family)
        .expect("family of the seed");
    let mut rng = corpus::Rng::new(seed);
    let s = (f.gen)(&mut rng);
    // The property's text: filler[..at] + " " + secret + " " + filler[at..].
    let text = format!(" {} ", corpus::minimal(f, &s));
    let out = redactor().redact(&text).into_owned();
    for h in corpus::minimal_hidden(f, &s) {
        assert!(
            !corpus::survives(&out, &h),
            "{family} survived in {text:?} -> {out:?}"
        );
    }
    assert_eq!(redactor().redact(&out), out, "not idempotent");
}

/// `prop_idempotent` on `t`, and the stream of `t` equals one-shot.
fn idempotent_seed(t: &str) {
    let r = redactor();
    let once = r.redact(t).into_owned();
    assert_eq!(r.redact(&once), once);
    for chunk in [1, 7, 64] {
        assert_eq!(
            stream(&r, t.as_bytes(), vec![3, 1, 5], chunk),
            once.as_bytes()
        );
    }
}

#[test]
fn seed_azure_storage_key_2361590265952577498() {
    embedded_seed("azure-storage-key", 2361590265952577498);
}

#[test]
fn seed_discord_webhook_0() {
    embedded_seed("discord-webhook", 0);
}

#[test]
fn seed_aws_session_token_3584985462024188760() {
    embedded_seed("aws-session-token", 3584985462024188760);
}

#[test]
fn seed_aws_secret_access_key_3175408187848277408() {
    embedded_seed("aws-secret-access-key", 3175408187848277408);
}

#[test]
fn seed_bearer_token_122889887115537145() {
    embedded_seed("bearer-token", 122889887115537145);
}

#[test]
fn seed_npm_token_16755738237393175377() {
    embedded_seed("npm-token", 16755738237393175377);
}

#[test]
fn seed_generic_password_15106854975325140129() {
    embedded_seed("generic-password", 15106854975325140129);
}

/// `%_9Rg4BYKy_%%s`: `%%s` is a literal percent and an `s`, no format
/// field, and the random run around it is a password's.
#[test]
fn seed_generic_password_4456954476630087712() {
    embedded_seed("generic-password", 4456954476630087712);
}

/// `prop_embedded_secret_never_survives` at `PROPTEST_CASES=1500` (seed 0,
/// family 30, a filler ending in `??`): a password before ` ??` was taken
/// for the operand of a condition (`?? ` and `? ` once counted as
/// operators after a bare value).
#[test]
fn seed_generic_password_0_before_question_marks() {
    let r = redactor();
    for text in [
        ", 0a0aa0a password=z7m+!Tc^ePTRDi5pX~A ?? ",
        "is it password=z7m+!Tc^ePTRDi5pX~A ? ",
    ] {
        let out = r.redact(text);
        assert!(!out.contains("z7m+!Tc^ePTRDi5pX~A"), "{text:?} -> {out:?}");
    }
}

#[test]
fn seed_slack_token_1681810980024546398() {
    embedded_seed("slack-token", 1681810980024546398);
}

#[test]
fn seed_bearer_token_5607788393303251231() {
    embedded_seed("bearer-token", 5607788393303251231);
}

#[test]
fn seed_aws_access_key_id_8690761672386853908() {
    embedded_seed("aws-access-key-id", 8690761672386853908);
}

#[test]
fn seed_generic_password_10085521258798858505() {
    embedded_seed("generic-password", 10085521258798858505);
}

#[test]
fn seed_generic_password_4740250704161354977() {
    embedded_seed("generic-password", 4740250704161354977);
}

#[test]
fn seed_generic_password_14020471628304711579() {
    embedded_seed("generic-password", 14020471628304711579);
}

#[test]
fn seed_slack_app_token_12144092632595830278() {
    embedded_seed("slack-app-token", 12144092632595830278);
}

#[test]
fn seed_bearer_token_16702887072388714987() {
    embedded_seed("bearer-token", 16702887072388714987);
}

#[test]
fn seed_slack_webhook_then_authorization_words() {
    idempotent_seed("ahttps://hooks.slack.com/services/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Authorization: passwordAuthorization: Auser:");
}

#[test]
fn seed_aws_secret_then_pem_and_bearer() {
    idempotent_seed("AWS_SECRET_ACCESS_KEY=xPRi8zsSZxCEZqz1pOoGLK+P4GQ84rHgm+T6lOOV-----BEGIN RSA PRIVATE KEY-----Bearer \n00A0aa0Aa/AaA+0Aa0+A0AAnpm_lJXkqKFytBdwUJrnwgiaCvqZ0Z8rxl0OIwsPpypi-AgEIcHlwaS5vcmcax0QaRLmht-1atl239cil4s6bF5OaZ2dMXGAcdQJ0CiN8wgnGLGbupDQ9_-MxnKDV7VFbVd_T7vyaYEUszije4QAB4ssf7hiBGZnQ57kvu0tFkJECLp16VruvB_ynNHdf11iAcmwgC0dM5tlapkkVuOAwTU-ZYUZbvBF0aClwaQCL");
}

#[test]
fn seed_password_then_aws_key_id_and_open_marker() {
    idempotent_seed("password=qr?^aguvd+7MFjmqorUpassword.AKIAJP7Z6EZ4DHRTMTGY[REDACTED:");
}

#[test]
fn seed_github_token_between_markers() {
    idempotent_seed("passwordpassword==://[REDACTED:A.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://[REDACTED:generic-secret]");
}

#[test]
fn seed_docker_token_sig_and_azure_key_before_marker() {
    idempotent_seed("dckr_pat_lCGyLee5zNTrT6QndyzW9hwBW8bsig=AZURE_STORAGE_KEY=jg7IBTg53zcj2ucBx0jW/QGRFOpSGAQLs92pqc9PFSDb1a4oZNiWD4VyNT3RAiGnQw5L5QhVAFnt/IFEg1h6dw==://[REDACTED:generic-secret]");
}

#[test]
fn seed_cookie_with_open_marker() {
    idempotent_seed("Cookie: session=a0+0aA;=[REDACTED:Cookie: session=--password ");
}

/// A flag where an authorization scheme goes; and an unlisted scheme whose
/// credential, masked, ends the window of a second pass.
#[test]
fn seed_authorization_flag_before_a_value() {
    idempotent_seed("Authorization: --password Aa/A+AaB");
    idempotent_seed("Authorization: Non-existent Aa/A+AaB");
}

// ---------------------------------------------------------------------------- issue 15: Discord, real code

/// A Discord bot token in its documented format: the base64 of the bot's
/// user id, a 6-character timestamp, an HMAC.
fn discord_token(id: &str, seed: u64, mac_len: usize) -> String {
    let first = corpus::b64(id.as_bytes(), false, false);
    let b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    format!(
        "{first}.{}.{}",
        body(b64url, 6, seed),
        body(b64url, mac_len, seed + 1)
    )
}

#[test]
fn discord_bot_tokens_without_a_keyword_nearby() {
    let r = redactor();
    let ids = [
        "80351110224678912",    // 17 digits
        "175928847299117063",   // 18
        "987654321012345678",   // 18, leading 9
        "1234567890123456789",  // 19
        "12345678901234567890", // 20
        "41771983423143937",
    ];
    for (i, id) in ids.iter().enumerate() {
        for mac_len in [27, 38] {
            let tok = discord_token(id, i as u64 * 7 + mac_len as u64, mac_len);
            for (input, want) in [
                (tok.clone(), "[REDACTED:discord-bot-token]".to_string()),
                (
                    format!("client.run('{tok}')"),
                    "client.run('[REDACTED:discord-bot-token]')".to_string(),
                ),
                (
                    format!("{{\"value\": \"{tok}\"}}"),
                    "{\"value\": \"[REDACTED:discord-bot-token]\"}".to_string(),
                ),
                (
                    format!("export DSC={tok}"),
                    "export DSC=[REDACTED:discord-bot-token]".to_string(),
                ),
                (
                    format!("bot.login(\"{tok}\");"),
                    "bot.login(\"[REDACTED:discord-bot-token]\");".to_string(),
                ),
                (
                    format!("  - {tok}\n"),
                    "  - [REDACTED:discord-bot-token]\n".to_string(),
                ),
            ] {
                assert_eq!(r.redact(&input), want, "{id} {input}");
            }
        }
    }
    // Look-alikes: JWTs, dotted versions and names, base64 that is not of digits.
    assert_unchanged(
        &r,
        &[
            "see docs.rs/tokio/1.38.0/tokio/index.html for the context of syntax.Monday",
            "MTIzNDU2Nzg5MDEy.abcdef.ghijklmnopqrstuvwxyzABCDEFG",
            "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY.abcdef.ghijklmnopqrstuvwxyzABCDEFG",
            "com.example.service.internal.ApplicationContextInitializer.initialize",
            "index.context.syntax.NDEx.NTEx",
        ],
    );
    let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
    assert_eq!(r.redact(jwt), "[REDACTED:jwt]");
}

/// Lines of real Rust sources (crates of the cargo registry) that hold no
/// secret: types, paths, challenge parameters, field names, protocol keys.
#[test]
fn real_source_code_is_left_alone() {
    assert_unchanged(
        &redactor(),
        &[
            "    ///     Win32::Security::Authorization::{SetSecurityInfo, SE_KERNEL_OBJECT},",
            "        colon2_token: node.colon2_token,",
            "        or1_token: node.or1_token,",
            "pub log_passwd: __u32,",
            "    pub pw_uid: uid_t,",
            "    const PROGRESS_TOKEN_FIELD: &str = \"progressToken\";",
            "    const META_KEY_PROTOCOL_VERSION: &str = \"io.modelcontextprotocol/protocolVersion\";",
            "    const META_KEY_CLIENT_INFO: &str = \"io.modelcontextprotocol/clientInfo\";",
            "const SERVER_INFO_META_KEY: &str = \"io.modelcontextprotocol/serverInfo\";",
            "        static TOKEN: OnceLock<u64> = OnceLock::new();",
            "    pub const STOP_REASON_END_MAX_TOKEN: &str = \"maxTokens\";",
            "const ID_JAG_TOKEN_TYPE: &str = \"urn:ietf:params:oauth:token-type:id-jag\";",
            "        let token: ResourceTokenResponse = post_form(",
            "pub type OAuthTokenResponse = StandardTokenResponse<VendorExtraTokenFields, BasicTokenType>;",
            "        r#\"Bearer resource_metadata=\"/.well-known/oauth-protected-resource\"\"#,",
            "WWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\"",
            "    json!({\"access_token\":\"resource-token\",\"token_type\":\"Bearer\",\"expires_in\":300})",
            "                    \"refresh_token\": \"initial-refresh-token\",",
            "            client_secret: \"super-secret\".to_string(),",
            "    const SECRET: &str = \"secret-error-sentinel\";",
            "        let creds = StoredCredentials {",
            "        let csrf_key = \"same-csrf\";",
            "        const API_KEY_HEADER: &str = \"x-api-key\";",
            "        \"progressToken\": \"progress-1\",",
            "         &username=alice&password=alice-pw&grant_type=password&scope=openid+profile\"",
            "        \"access_token\": \"m2m-access-token-12345\",",
            "        HeaderValue::from_static(\"Bearer token123\"),",
        ],
    );
    // Values that are secrets stay masked next to such code.
    let r = redactor();
    assert_eq!(
        r.redact("    const SECRET: &str = \"hN4kTq8ZrW2mLx7Pb5Vc\";"),
        "    const SECRET: &str = \"[REDACTED:generic-secret]\";"
    );
    assert_eq!(
        r.redact("password = \"correct-horse-battery-staple\""),
        "password = \"[REDACTED:generic-secret]\""
    );
    assert_eq!(
        r.redact("    colon2_token: \"hunter2.prod\","),
        "    colon2_token: \"[REDACTED:generic-secret]\","
    );
}

/// Lines of real Python sources (the standard library and site packages)
/// that hold no secret: subscripts, calls, class names, constants, module
/// types, format strings, comparisons, conditions, wrapped prose.
#[test]
fn real_python_code_is_left_alone() {
    assert_unchanged(
        &redactor(),
        &[
            "    def open(self, name_or_info, mode=\"r\", pwd=None):",
            "        Token:                      FG_DEFAULT,",
            "             r'CurrentDataSession|CurrentPass|CurrentX|CurrentY|'",
            "        secret = params[\"oauth_token_secret\"][0]",
            "        auth = self.__proxy[4] + b\":\" + self.__proxy[5]",
            "        auth = dict(Email=credentials[0], Passwd=credentials[1], service=service)",
            "    def add_certificate(self, key, cert, domain, password=None):",
            "RSAPrivateKeyWithSerialization = RSAPrivateKey",
            "EllipticCurvePrivateKeyWithSerialization = EllipticCurvePrivateKey",
            "    password: typing.Optional[bytes],",
            "        self, private_key: rsa.RSAPrivateKey, f_priv: _FragList",
            "    AttributeOID.CHALLENGE_PASSWORD: \"challengePassword\",",
            "    private_key: \"_RSAPrivateKey\",",
            "        self, token: typing.Union[bytes, str], ttl: typing.Optional[int] = None",
            "                        creds = \" --username=\" + auth",
            "                    'password': config.get(server, 'password'),",
            "            self.password = config['password']",
            "            data['name'] = data['password'] = data['email'] = ''",
            "            un, pw = self.passwords[netloc]",
            "    MovedAttribute(\"HTTPPasswordMgr\", \"urllib2\", \"urllib.request\"),",
            "                token = token[:-1]",
            "PassphraseCallableT = typing.Union[bytes, Callable[..., bytes]]",
            "        :type passphrase: :class:`bytes`",
            "        if cookie == 0 and self._decoder:",
            "        if pwd:\n            try:\n                pass",
            "         SMTPAuthenticationError  The server didn't accept the username/\n                                  password combination.",
            "            user_pass = '%s:%s' % (unquote(user),",
            "    password = DEFAULT_PASSWORD",
        ],
    );
    // SQL keeps its password literals masked.
    let r = redactor();
    assert_eq!(
        r.redact("ALTER USER app WITH PASSWORD 'Zq9vK2mL7pXw';"),
        "ALTER USER app WITH PASSWORD '[REDACTED:generic-secret]';"
    );
    assert_eq!(
        r.redact("SET PASSWORD = PASSWORD('Zq9vK2mL7pXw');"),
        "SET PASSWORD = PASSWORD('[REDACTED:generic-secret]');"
    );
}

/// The shapes of lines of other real code that no secret is in, found by
/// running `toolexec redact` over the Python site packages, npm's
/// JavaScript, the C headers and the Perl modules of a Debian machine
/// (every one was masked before): typed parameters whose default is a
/// name, constants and header names as values, class names in words, dotted
/// module paths, variables passed on, format strings, type paths as keys,
/// C declarations in columns, `->` member access, kernel-doc tags, words
/// after `Basic`, ASN.1 comments.
#[test]
fn real_code_of_other_languages_is_left_alone() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            // Python: typed parameters and constants.
            "    def lookup(self, base_key: str = \"ItemDescription\") -> dict[str, Any]:",
            "    session_key: str = \"flask.session\",",
            "    default_key_scheme: str = \"argon-concat\"",
            "    environ_key_cflags: str = \"CFLAGS\"  # usually 'CFLAGS'",
            "_FINISHED_BY_PARAMETER_KEY: Final[str] = \"FinishedBy\"",
            "REAL_IP_KEY = 'HTTP_X_REAL_IP'",
            "TRACE_HEADER_KEY = '_X_AMZN_REQUEST_ID'",
            "GATEWAY_AUTHORIZER_KEY = \"x-example-gateway-authorizer\"",
            "SECRET_KEY_FIELD = 'AWSSecretKeyName'",
            "        'CopySourceCustomerKeyMD5': 'SSECustomerKeyMD5',",
            "X448PrivateKey = rust_openssl.x448.X448PrivateKey",
            "        private_key: PKCS12PrivateKeyTypes,",
            "    def __init__(self, parser:Parser, stream:TokenStream=None, stopToken:Token=None,",
            "            authorization=authorization,",
            "            return {'Authorization': bearer_token}",
            "        request.authorization = authorization",
            "                    Token.Name.Builtin: '#ansigreen',",
            "            _PassArg.environment: \"context.environment\",",
            "        npm_token_line = '//{}{}:_authToken'.format(",
            "    \"AWS::IAM::AccessKey\": \"d41d8cd98f00b204\",",
            "        # ECPrivateKey ::= SEQUENCE {",
            // JavaScript.
            "exports.X509SubjectKeyIDExtension = X509SubjectKeyIDExtension;",
            "})(Socks4Auth || (exports.Socks4Auth = Socks4Auth = {}));",
            "exports.X509KeyUsageExtension = exports.X509BasicConstraintsExtension = void 0;",
            "P.Minipass=P.isWritable=P.isReadable=void 0;",
            "        const auth = !res.headers || !res.headers['proxy-authenticate']",
            "const UNEXPECTED_TOKEN = /^Unexpected end of input/i",
            // C and C++.
            "\tgss_cred_id_t\t\tdelegated_cred;",
            "    IceAuthProc\t\t*auth_handlers;",
            "    _TokenT                       _M_last_token;",
            "  Pass *FoundPass = Resolver->findPass(ID);",
            " * @GNUTLS_KX_DHE_PSK: DHE-PSK key-exchange algorithm.",
            " * @PSK_16:\t16-PSK modulation",
            "/* Basic Operations */",
            " *   Basic SFNT/OpenType tables and interface",
            // Perl.
            "  my $token = $lexer->next_token;",
            "    my $pass = $result->{pass};",
            "            'Test2::Event::Pass'    => '1.302199',",
            "    my $status = $t->{pass} ? \"PASS\" : \"FAIL\";",
            "        \"-auth=anonymous:$REPLY_TO\",",
            "    my $header = $proxy ? 'Proxy-Authorization' : 'Authorization';",
        ],
    );
    // Secrets in the same shapes stay masked.
    for (input, want) in [
        (
            "    session_key: str = \"hN4kTq8ZrW2mLx7Pb5Vc\",",
            "    session_key: str = \"[REDACTED:generic-secret]\",",
        ),
        (
            "REAL_API_KEY = 'Zq8xL2mTb7RkV0pWn4Hs'",
            "REAL_API_KEY = '[REDACTED:generic-secret]'",
        ),
        (
            "    api_key: str = \"Xk9mP2vLq7Rt4Zs8Wn3B\",",
            "    api_key: str = \"[REDACTED:generic-secret]\",",
        ),
        (
            "            return {'Authorization': 'Bearer mF9sT2qX7vLp0ZkR3wYbQ1'}",
            "            return {'Authorization': 'Bearer [REDACTED:bearer-token]'}",
        ),
        (
            "  my $token = 'Zq8xL2mTb7RkV0pWn4Hs';",
            "  my $token = '[REDACTED:generic-secret]';",
        ),
        (
            "    my $password = 'Xk9#mP2$vL';",
            "    my $password = '[REDACTED:generic-secret]';",
        ),
    ] {
        assert_eq!(r.redact(input), want, "{input}");
    }
}

/// Lines of test logs, ChangeLogs and configuration files of a Debian
/// machine (`/usr/share/doc`, `/etc`) that hold no secret: test runners'
/// `PASS: name` verdicts, files named before a colon, PKCS#11 URIs with
/// encoded spaces, settings about passwords, paths under a variable.
#[test]
fn test_logs_changelogs_and_settings_are_left_alone() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "PASS: gas/i386/avx512bw_vl-wig insns",
            "PASS: ld-elf/pr22450 (map file check)",
            "PASS: tst-passwd-lookup",
            "\t* src/chgpasswd.c: Usage() now lists the new options.",
            "\t* man/passwd.5.xml: Document the shadow fields.",
            "pkcs11:token=Example%20Root%20Certificates;serial=1%3AROOTS%3ADEFAULT",
            "#password_encryption = scram-sha-256\t# scram-sha-256 or md5",
            "private_key\t= $dir/private/ca.key.pem # The private key",
        ],
    );
    assert_eq!(
        r.redact("PASS=Zq8xL2mTb7RkV0pWn4Hs\n"),
        "PASS=[REDACTED:generic-secret]\n"
    );
}

/// A 40-character run near an AWS word is a secret access key only when it
/// does not read as words between its slashes: URL paths, ARNs and class
/// names of AWS's documentation and policies are left; 5 000 random keys
/// (fixed seed), with and without slashes, are all masked.
#[test]
fn aws_paths_and_names_are_no_secret_key_and_random_keys_are() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "# See: http://docs.aws.amazon.com/AmazonS3/latest/dev/UsingBucketPolicies.html",
            "# https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-networking.html",
            "      \"arn:aws:iam::*:role/AmazonSSMRoleForAutomationQuickSetup\"",
            " \"AmazonSSMManagedEC2InstanceDefaultRoleForQ\":{",
            "       \"aws:RequestTag/LakeFormationAuthorizedCallers\":\"EMR on EKS\",",
            "          \"Resources/AWS::EC2::Instance/Properties/BlockDeviceMappings/*\",",
            "      \"arn:aws:iam::*:role/aws-service-role/insights.amazonaws.com/AWSServiceRoleForApplicationInsights\"",
        ],
    );
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let missed = left_unmasked(&r, 0xa3_5ec7_u64, alphabet, (40, 5_000), |key| {
        let edge = key.starts_with(['/', '+']) || key.ends_with(['/', '+']);
        (!edge).then(|| format!("aws configure set secret {key}\n"))
    });
    assert!(
        missed.is_empty(),
        "{} left: {:?}",
        missed.len(),
        &missed[..missed.len().min(4)]
    );
}

/// URL passwords are human passwords: the new code shapes (names in
/// words, declared names, dotted paths) never apply to them. 5 000 random
/// 18-character passwords (fixed seed) are all masked.
#[test]
fn random_url_passwords_are_all_masked() {
    let r = redactor();
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let left = left_unmasked(&r, 0x70c3_11e5_u64, alphabet, (18, 5_000), |v| {
        Some(format!(
            "DATABASE_URL=postgres://app:{v}@db.internal:5432/prod\n"
        ))
    });
    assert!(
        left.is_empty(),
        "{} left: {:?}",
        left.len(),
        &left[..left.len().min(6)]
    );
}

/// More lines of the cargo registry: numeric literals with type suffixes,
/// pointer types, Rust paths in strings, names ending in protocol/purpose.
#[test]
fn real_rust_constants_are_left_alone() {
    assert_unchanged(
        &redactor(),
        &[
            "    UserPass = 0x02,",
            "    DEVSTAT_MATCH_PASS = 0x04,",
            "pub const RASLCPAP_EAP: RASPPP_PROJECTION_INFO_SERVER_AUTH_PROTOCOL = 49703u32;",
            "pub const AdministratorPin: SECRET_PURPOSE = 4i32;",
            "pub const VK_PAD_Y: XINPUT_VIRTUAL_KEY = 22531u16;",
            "pub const XCN_NCRYPT_UI_NO_PROTECTION_FLAG: X509PrivateKeyProtection = 0i32;",
            "pub type BCRYPT_SECRET_HANDLE = *mut core::ffi::c_void;",
            "const SERDE_JSON_NUMBER_TOKEN: &str = \"$serde_json::private::Number\";",
            "pub const TOKEN: &str = \"$serde_json::private::RawValue\";",
        ],
    );
    // A PIN of plain digits is still a value.
    assert_eq!(
        redactor().redact("PIN_PASSWORD=48213377"),
        "PIN_PASSWORD=[REDACTED:generic-secret]"
    );
}

/// Mixed-case passwords of letters only (no digit) are masked in every
/// context: they have camel humps like a class name, but their "words" are
/// not words (the bench's secret-dense text caught 13 of 10 000 left
/// readable). Real class names stay as they are.
#[test]
fn letter_only_mixed_case_passwords_are_masked() {
    let r = redactor();
    for v in [
        "CjlNlAZkeNncJgQyVe",
        "SBrgZZyJiuetkiqFRu",
        "AiDweFaKKnKDcdVfhv",
        "WMQYFjHjOtIqIwrVBx",
        "TiyInWHGxvnRSOBkKj",
    ] {
        let url = format!("DATABASE_URL=postgres://app:{v}@db.internal:5432/prod");
        let out = r.redact(&url);
        assert!(!out.contains(v), "{url} -> {out}");
        assert_masks_value(&r, &[format!("password={v}")], v);
    }
    assert_unchanged(
        &r,
        &[
            "key = EllipticCurvePrivateKey",
            "private_key = RSAPrivateKey",
            "token = XMLHttpRequestToken",
        ],
    );
}

/// Seed of `prop_embedded_secret_never_survives` (seed 1978568279124117983,
/// family 28): a bearer token with a dot whose halves have few capitals was
/// taken for a dotted code path (`config.apiKey`) and left readable.
#[test]
fn seed_dotted_bearer_token_is_not_a_code_path() {
    let r = redactor();
    assert_eq!(
        r.redact("Authorization: Bearer fYmrurKapvs6nDwOkxmtOmtfLFw80J.lRpZpcelSmnFf"),
        "Authorization: Bearer [REDACTED:bearer-token]"
    );
}

/// The class of that seed: 20 000 dotted opaque tokens (the corpus's
/// bearer-token family, fixed seed) in a header, an assignment and JSON are
/// all masked, while dotted code paths built from words stay.
#[test]
fn dotted_random_tokens_are_masked_and_dotted_code_paths_kept() {
    let r = redactor();
    let fams = corpus::families();
    let f = fams.iter().find(|f| f.name == "bearer-token").unwrap();
    let mut rng = corpus::Rng::new(0x05ee_dd07);
    let mut missed = Vec::new();
    for _ in 0..20_000 {
        let v = (f.gen)(&mut rng).value;
        for text in [
            format!("Authorization: Bearer {v}\n"),
            format!("access_token={v}\n"),
            format!("{{\"access_token\": \"{v}\"}}\n"),
        ] {
            if r.redact(&text).contains(v.as_str()) {
                missed.push(text);
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{} left readable: {:?}",
        missed.len(),
        &missed[..missed.len().min(5)]
    );
    for code in [
        "token = self.passwordHasherFactory\n",
        "api_key = process.env.NEXT_PUBLIC_API_KEY\n",
        "access_token = ctx.refreshTokenProviderFactory\n",
    ] {
        assert_eq!(r.redact(code), code);
    }
}

/// Seed of `prop_embedded_secret_never_survives` (family twilio-auth-token,
/// at 0, no filler): a 32-hex token that opens with `0b` was taken for a
/// binary number literal (`0b1010`) and left.
#[test]
fn seed_hex_token_opening_with_0b_is_no_binary_literal() {
    let r = redactor();
    assert_eq!(
        r.redact(" TWILIO_AUTH_TOKEN=0bb006f98b24ecd4be0c1556dcb3b2eb "),
        " TWILIO_AUTH_TOKEN=[REDACTED:generic-secret] "
    );
}

/// The class of that seed: after `0x`, `0o` or `0b` a number literal has
/// digits of that base and fits 64 bits (128 with a wide suffix or `_`
/// separators). Hex secrets that open with those bytes are masked — 2 000
/// random 32-hex tokens made to open with `0b`, `0o`, `0x`, and `0x` + 64
/// hex (an Ethereum private key) — while literals as code writes them stay.
#[test]
fn hex_secrets_after_a_radix_prefix_are_masked_and_number_literals_kept() {
    let r = redactor();
    let mut x = 0x5eed_u64;
    let mut hex = |n: usize| -> String {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b"0123456789abcdef"[(x % 16) as usize])
            })
            .collect()
    };
    let mut missed = Vec::new();
    for i in 0..2_000 {
        let v = match i % 4 {
            0 => format!("0b{}", hex(30)),
            1 => format!("0o{}", hex(30)),
            2 => format!("0x{}", hex(30)),
            _ => format!("0x{}", hex(64)),
        };
        let text = format!("PRIVATE_KEY={v}\n");
        if r.redact(&text).contains(v.as_str()) {
            missed.push(v);
        }
    }
    assert!(
        missed.is_empty(),
        "{} left, e.g. {:?}",
        missed.len(),
        &missed[..missed.len().min(3)]
    );
    for code in [
        "let key_mask = 0xFFFF_FFFF;\n",
        "const TOKEN_FLAGS: u8 = 0b1010u8;\n",
        "secret_mode = 0o755\n",
        "token_limit = 0x7fffffffffffffff\n",
        "let key_bits: u128 = 0xffff_ffff_ffff_ffff_ffff_ffff_ffff_ffffu128;\n",
    ] {
        assert_eq!(r.redact(code), code);
    }
}

/// Mixed-case values of letters only under key names: 16 letters or more
/// that do not read as words are masked (`DNpthukIaQsiCItispkTzgpvW`, a
/// known miss until stop 23: such a value passed for a camel-case
/// identifier or a class name), while long identifiers made of words stay.
/// Random letters read as words by chance now and then: of 2 000 values of
/// 16–40 letters (fixed seed), at most 5 % are left with one capital in
/// four (86 % were), 1 % with capitals as often as not (4.7 % were) and
/// 20 % in lower case only (all were: such a value passed for a word).
#[test]
fn long_random_letters_are_masked_and_long_identifiers_kept() {
    let r = redactor();
    let mut next = xorshift(0x1e77e25_u64);
    for (capitals_one_in, most_left) in [(4, 100), (2, 20), (u64::MAX, 400)] {
        let mut missed = Vec::new();
        for _ in 0..2_000 {
            let n = 16 + (next() % 25) as usize;
            let v: String = (0..n)
                .map(|_| {
                    let c = b'a' + (next() % 26) as u8;
                    char::from(
                        if capitals_one_in != u64::MAX && next().is_multiple_of(capitals_one_in) {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        },
                    )
                })
                .collect();
            let text = format!("SERVICE_API_KEY={v}\n");
            if r.redact(&text).contains(v.as_str()) {
                missed.push(v);
            }
        }
        assert!(
            missed.len() <= most_left,
            "one capital in {capitals_one_in}: {} left, e.g. {:?}",
            missed.len(),
            &missed[..missed.len().min(4)]
        );
    }
    for code in [
        "api_key=DefaultAzureCredentialProvider\n",
        "token=StandardTokenResponseBuilder\n",
        "secret_key=PasswordHasherFactoryImpl\n",
        "api_key=getAccessTokenFromEnvironment\n",
        "key=HttpServerConnectionManager\n",
        "access_token=oauthAccessTokenRefresher\n",
        "key=PasswordStrengthChecker\n",
    ] {
        assert_eq!(r.redact(code), code);
    }
}

/// On a long line a rule's window reaches at most 4 KiB either side of its
/// own keyword, however many other hits chain their windows around it
/// (minified JSON, base64): a match of the rule 20 KB from its keyword is
/// its own no more than on another line, one near the keyword is masked,
/// and streaming in small reads gives the same.
#[test]
fn a_rules_window_on_a_long_line_stays_near_its_own_keyword() {
    let rule = Rule::builder("order-pin", r"\bPIN-([0-9]{8})\b")
        .secret_group(1)
        .keywords(["orderpin"])
        .build()
        .unwrap();
    let r = Redactor::builder()
        .env_values(false)
        .rule(rule)
        .build()
        .unwrap();
    // Secrets of the built-in rules every ~600 bytes chain their windows
    // into one.
    let filler = |n: usize| -> String {
        let mut s = String::new();
        while s.len() < n {
            s.push_str(r#"{"id":7,"db_password":"Lr8nK3sYbQhunter2x","note":"words"},"#);
            s.push_str(&"x".repeat(500));
        }
        s
    };
    let near = format!("{}orderpin PIN-12345678 {}", filler(10_000), filler(30_000));
    let out = r.redact(&near);
    assert!(out.contains("PIN-[REDACTED:order-pin]"), "near its keyword");
    let far = format!(
        "{}orderpin {} PIN-12345678 {}",
        filler(10_000),
        filler(20_000),
        filler(10_000)
    );
    assert!(!far.contains('\n'));
    let out = r.redact(&far);
    assert!(out.contains("PIN-12345678"), "20 KB from its keyword");
    for text in [&near, &far] {
        let one = r.redact(text).into_owned();
        let streamed = stream(&r, text.as_bytes(), vec![997, 4093, 65_536], 1 << 20);
        assert_eq!(String::from_utf8(streamed).unwrap(), one);
    }
}

/// Password hashes in the formats system files, web servers, directories and
/// frameworks store: the digest is masked (the scheme and salt stay), real
/// hashes generated by `openssl passwd` and Python's `crypt`; look-alikes in
/// code (`$1$2` replacements, `{sha}` templates, a `$6$` with a short digest)
/// are left.
#[test]
fn password_hashes_are_masked_to_their_digest() {
    let r = redactor();
    let cases = [
        ("root:$6$JgQ6D6ryUHQbCELN$", ".RcU6YF6im.yT1jPL1q6IrJvKMJjfFWos/F9H2ZE7o3902EsJSHJpoePwtSGnf6uIbviQN8bqhGJKlW4g.v.s1", ":19000:0:99999:7:::"),
        ("$5$L5LXJ7Lzmt/Hv8lF$", "e.LH/0ZRd42H2NfMjmcCxNm39EGRBjhUb.pJHg7y6c4", ""),
        ("admin:$apr1$OUCRVsYX$", "NXJWycru3VHJcrv4C34xu/", ""),
        ("$1$5xIALI1Z$", "L1zazFEcv6Zs2f0lJJ4N80", " root"),
        ("bob:$y$j9T$Zx8Lq3Wm7v2Kp9Rt4Yb6N.$", "CZBTfTRLJynIThbIxvIfcr3F.HBkfMrXCssUTtaZje.", ":19000::::::"),
        ("UserDetails u = new User(\"user\", \"$2a$10$", "FBAKClV1zBIOOC9XMXf3AO8RoGXYVYsfvUdoLxGkd/BnXEn4tqT3u", "\");"),
        ("$argon2id$v=19$m=65536,t=3,p=4$eDap2lO5S8tFQrCOTkpcig$", "xTS5sqkM1FU/l21k4FBVwctzmOuRgMEC+Xqtz4pW9O8", ""),
        ("pbkdf2_sha256$600000$Zx8Lq3Wm7v2K$", "BLnjvpKb5TaY54oSdmxWc8/kfxwPqV3VhUpWyJH/urg=", ""),
        ("pbkdf2:sha256:600000$Zx8Lq3Wm7v2K$", "04b9e3be929be53698e78a12766c5673cfe47f1c0fa95dd5854a56c891ffbab8", ""),
        ("userPassword: {SSHA}", "hbql1rLcr4+L6FFTVHT9gbrj36ArsJQF", ""),
    ];
    for (before, digest, after) in cases {
        let text = format!("{before}{digest}{after}\n");
        assert_eq!(
            r.redact(&text),
            format!("{before}[REDACTED:password-hash]{after}\n"),
            "{text}"
        );
    }
    let clean = "s.replace(/(\\d+)-(\\d+)/, \"$1$2\");\nprintf '$6$%s$%s' \"$salt\" \"$hash\"\nurl = f\"{sha}/{name}.tar.gz\"\n$6$rounds=5000$short$tooShortDigest\n";
    assert_eq!(r.redact(clean), clean);
}

/// A presigned URL's signature is masked (S3, Cloud Storage, CloudFront):
/// the URL grants access to whoever holds it.
#[test]
fn presigned_url_signatures_are_masked() {
    let r = redactor();
    let sig = body(HEX, 64, 301);
    for (before, after) in [
        ("https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=", ""),
        ("https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=", "&X-Goog-SignedHeaders=host"),
    ] {
        let text = format!("{before}{sig}{after}\n");
        assert_eq!(r.redact(&text), format!("{before}[REDACTED:signed-url]{after}\n"));
    }
    let cf = format!("{}~{}__", body(AN, 40, 302), body(AN, 30, 303));
    let text = format!("https://d1.cloudfront.net/a.jpg?Expires=1700000000&Signature={cf}&Key-Pair-Id=K2JCJMDEHXQW5F\n");
    assert_eq!(r.redact(&text), text.replace(&cf, "[REDACTED:signed-url]"));
    let clean = "X-Amz-SignedHeaders=host;x-amz-date\nlet signature = sign(&key, &msg);\n";
    assert_eq!(r.redact(clean), clean);
}

/// Passwords given to `sudo -S`, MySQL's `SET PASSWORD`, the AWS CLI's
/// `configure set`, configparser's `set` and a PuTTY key's private lines.
#[test]
fn sudo_set_password_aws_configure_and_putty_keys_mask_the_secret() {
    let r = redactor();
    let pw = "Zr8vLq2NwT5x";
    for line in [
        format!("echo \"{pw}\" | sudo -S apt-get update"),
        format!("echo {pw} | sudo --stdin -k true"),
        format!("sudo -S systemctl restart api <<< '{pw}'"),
        format!("SET PASSWORD FOR 'app'@'localhost' = '{pw}';"),
        format!("set password = password('{pw}');"),
        format!("config.set('database', 'password', '{pw}')"),
        format!("aws configure set aws_secret_access_key {pw}Kp9Rt4Yb6Nc1Hd5Jf0Gs3Qa7W"),
        format!("aws configure set profile.ci.aws_session_token {pw}Kp9Rt4Yb6Nc1Hd5"),
    ] {
        let out = r.redact(&line);
        assert!(!out.contains(pw), "{line} -> {out}");
        assert!(out.contains("[REDACTED:generic-secret]"), "{line} -> {out}");
    }
    let body_lines = format!(
        "{}\n{}\n{}=",
        body(AN, 64, 304),
        body(AN, 64, 305),
        body(AN, 19, 306)
    );
    let body_lines = body_lines.as_str();
    let ppk = format!("PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nPrivate-Lines: 3\n{body_lines}\nPrivate-MAC: 5b1c\n");
    assert_eq!(
        r.redact(&ppk),
        ppk.replace(body_lines, "[REDACTED:private-key]")
    );
    // The setter's first argument, no name: a user's password is a value.
    for clean in [
        "new User(\"joe\", \"password\", \"ROLE_A\");\n",
        "echo $PASSWORD | sudo -S true\nsudo -s\n",
        "aws configure set region us-east-1\n",
        "SET PASSWORD_REUSE_INTERVAL = 365;\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Passwords on the command lines of network and remote-access tools, in a
/// CI log's mask command, a Redis monitor and an `expect` script's answer.
#[test]
fn remote_access_commands_ci_masks_and_expect_answers_mask_the_secret() {
    let r = redactor();
    let pw = "Zr8vLq2NwT5x";
    for (text, id) in [
        (
            format!("echo \"::add-mask::{pw}\"\n::add-mask::{pw}\n"),
            "generic-secret",
        ),
        (
            format!("nmcli dev wifi connect HomeNet password {pw}\n"),
            "generic-secret",
        ),
        (
            format!("cmdkey /add:fs /user:corp\\bob /pass:{pw}\n"),
            "generic-secret",
        ),
        (
            format!("xfreerdp /v:host /u:admin /p:{pw}\n"),
            "generic-secret",
        ),
        (
            format!("PsExec64.exe \\\\host -u admin -p {pw} cmd\n"),
            "generic-secret",
        ),
        (
            format!("lftp -u bob,{pw} ftp.example.com\n"),
            "generic-secret",
        ),
        (
            format!("cargo login cio{pw}Kp9sWq3LZr8vLq2NwT5x\n"),
            "crates-io-token",
        ),
        (
            format!("cargo login --registry internal {pw}\n"),
            "generic-secret",
        ),
        (
            format!("http -a bob:{pw} https://api\nhttps --auth=bob:{pw} api\n"),
            "basic-auth",
        ),
        (
            format!(
                "1700000000.1 [0 10.0.0.5:5000] \"AUTH\" \"{pw}\"\n\"AUTH\" \"app\" \"{pw}\"\n"
            ),
            "generic-secret",
        ),
        (
            format!("spawn ssh deploy@host\nexpect \"*assword:\"\nsend \"{pw}\\r\"\n"),
            "generic-secret",
        ),
    ] {
        let out = r.redact(&text);
        assert!(!out.contains(pw), "{text} -> {out}");
        assert!(out.contains(&format!("[REDACTED:{id}]")), "{text} -> {out}");
    }
    for clean in [
        "echo \"::add-mask::$TOKEN\"\n",
        "nmcli dev wifi connect HomeNet password\n",
        "http -a bob https://api\n",
        "expect \"$ \"\nsend \"ls\\r\"\n",
        "\"AUTH\" \"$REDIS_PASSWORD\"\n",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A value on the line below its name: YAML's (plain, quoted, a block
/// scalar's) is masked, a quoted one inside its quotes; a dict's wrapped
/// value in code (`'key':` / `'value',`) is code and stays.
#[test]
fn wrapped_dict_values_in_code_stay_and_yaml_values_below_their_name_are_masked() {
    let r = redactor();
    let pw = "Zr8vLq2NwT5xKp9s";
    let yaml = format!(
        "password:\n  '{pw}'\napi_token:\n  \"{pw}\"  # prod\nclient_secret:\n  {pw}\nprivate_key: |\n  {pw}\n"
    );
    assert_eq!(
        r.redact(&yaml),
        "password:\n  '[REDACTED:generic-secret]'\napi_token:\n  \"[REDACTED:generic-secret]\"  # prod\nclient_secret:\n  [REDACTED:generic-secret]\nprivate_key: |\n  [REDACTED:generic-secret]\n"
    );
    let code = "FIELDS = {\n    'http_oauth_token_scope_override':\n        'oauthToken.scope',\n    \"client_secret\":\n        \"clientSecret\",\n}\n";
    assert_eq!(r.redact(code), code);
}

/// C headers: a constant whose string spells words of its own name
/// (OpenSSL's `SSL_TXT_kPSK "kPSK"`, cipher-suite names, a label written in
/// hex escapes) and a macro of C code (`OBJ_X509,35L`, another function's
/// name) stay; a macro's string literal that is a secret is masked.
#[test]
fn c_macros_that_name_themselves_or_hold_code_stay_and_secret_literals_are_masked() {
    let r = redactor();
    for clean in [
        "#define SSL_TXT_kPSK \"kPSK\"",
        "#define SN_kx_psk               \"KxPSK\"",
        "#define SN_auth_gost01          \"AuthGOST01\"",
        "#define LN_kx_ecdhe_psk         \"kx-ecdhe-psk\"",
        "#define TLS1_TXT_PSK_WITH_AES_128_CCM_8 \"PSK-AES128-CCM8\"",
        "#define TLS1_RFC_PSK_WITH_AES_128_GCM_SHA256 \"TLS_PSK_WITH_AES_128_GCM_SHA256\"",
        "#define TLS1_RFC_DHE_PSK_WITH_AES_256_CCM_8 \"TLS_PSK_DHE_WITH_AES_256_CCM_8\"",
        "#define TLS1_RFC_PSK_WITH_CHACHA20_POLY1305 \"TLS_PSK_WITH_CHACHA20_POLY1305_SHA256\"",
        "#define TLS_MD_SERVER_WRITE_KEY_CONST \"server write key\"",
        "#define TLS_MD_MASTER_SECRET_CONST \"\\x6d\\x61\\x73\\x74\\x65\\x72\\x20\\x73\\x65\\x63\\x72\\x65\\x74\"",
        "#define OBJ_userPassword                OBJ_X509,35L",
        "#define chacha_poly1305_set_key nettle_chacha_poly1305_set_key",
        "#define xmlSecCryptoAppKeyCertLoad              xmlSecNssAppKeyCertLoad",
        " * PrivateKeyAlgorithmIdentifier ::= AlgorithmIdentifier",
        "SSL_TXT_kPSK = \"kPSK\"",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
    let v = "Zq8vR2mK9pLx4TnW";
    for text in [
        format!("#define WIFI_PASSWORD \"{v}\""),
        format!("#define API_KEY '{v}'"),
        format!("#define PSK_IDENTITY_KEY \"{v}\""),
        // Words of the name, but not only them: a passphrase.
        format!("WIFI_PASSWORD_HOME = \"home-{v}-network\""),
        "WIFI_PASSWORD_HOME_NETWORK = \"network-home-wifi-2024\"".to_string(),
        // Random bytes in hex escapes are a key, not a label.
        "#define HMAC_SECRET \"\\x9a\\x3f\\xe1\\x07\\xc4\\x5d\\x88\\x12\\xb6\\x4e\\x70\\xd9\""
            .to_string(),
    ] {
        let out = r.redact(&text);
        assert!(out.contains("[REDACTED:generic-secret]"), "{text} -> {out}");
    }
}

/// A Telegram bot token in a Bot API URL's path (`/bot<token>/getMe`) and
/// `mysqladmin`'s `password NEW` are masked; the documented sample token's
/// 32 characters after `AA` are a token too; a variable or nothing after
/// `password` stays.
#[test]
fn telegram_bot_urls_and_mysqladmin_passwords_are_masked() {
    let r = redactor();
    let token = "7350912846:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw";
    for (text, id) in [
        (
            format!("curl -s \"https://api.telegram.org/bot{token}/sendMessage?chat_id=1\""),
            "telegram-bot-token",
        ),
        (
            format!("GET https://api.telegram.org/bot{token}Q/getMe"),
            "telegram-bot-token",
        ),
        (format!("bot token {token}"), "telegram-bot-token"),
        (
            "mysqladmin -u root -h db password Zq8vR2mK9pLx".to_string(),
            "generic-secret",
        ),
        (
            "mysqladmin --user=root PASSWORD 'N3w-Pass_w0rd'".to_string(),
            "generic-secret",
        ),
    ] {
        let out = r.redact(&text);
        assert!(out.contains(&format!("[REDACTED:{id}]")), "{text} -> {out}");
        assert!(
            !out.contains("Zq8vR2mK9pLx") && !out.contains("N3w-Pass_w0rd"),
            "{out}"
        );
        assert!(!out.contains("AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"), "{out}");
    }
    for clean in [
        "mysqladmin -u root password",
        "mysqladmin -u root password $NEW_PW",
        "see https://core.telegram.org/bots/api#getme",
        "GET https://api.telegram.org/bot<token>/getMe",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A rename in git's diffstat (`git log --stat`) is two names, not an
/// assignment; a Perl hash's bare value is still a value.
#[test]
fn git_diffstat_renames_stay_and_perl_hash_values_are_masked() {
    let r = redactor();
    for clean in [
        " man/{readpassphrase.3 => readpassphrase.3bsd}   |  0",
        " src/{passwd_keys.c => passwd_keys2.c} | Bin 0 -> 12 bytes",
        " lib/{token_store.rb => token_vault.rb}        | 14 +++++++-------",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
    for text in [
        "my %h = {password => Zq8vR2mK9pLx4TnW}",
        "{password => Zq8vR2mK9pLx4TnW} | grep x",
    ] {
        assert_eq!(
            r.redact(text),
            text.replace("Zq8vR2mK9pLx4TnW", "[REDACTED:generic-secret]")
        );
    }
}

/// A bare value that is a class named after its field is a type or a
/// factory, not a secret (Python annotations of `cryptography` and `httpx`);
/// nor is the code after `cookie:` a cookie. A quoted value, a random
/// value and a random module path before the class stay masked.
#[test]
fn classes_named_after_their_field_and_annotated_cookies_stay() {
    let r = redactor();
    for clean in [
        "    private_key: x25519.X25519PrivateKey",
        "    private_key: X25519PrivateKey",
        "        self, private_key: MLDSA44Ed25519PrivateKey, f_priv: _FragList",
        "    auth: httpx2.Auth | None = None,",
        "    credentials: oauth2client.Credentials or",
        "secret: ClientSecret",
        "        cookie: http.cookies.BaseCookie[str] = http.cookies.SimpleCookie()",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
    for (text, secret, id) in [
        (
            "model = Model(password_bytes=b'IAmSensitiveBytes')",
            "IAmSensitiveBytes",
            "generic-secret",
        ),
        (
            "API_KEY=Zq8vR2mK9pLx4TnW",
            "Zq8vR2mK9pLx4TnW",
            "generic-secret",
        ),
        (
            "private_key: Zq8vR2mK9pLx.Key",
            "Zq8vR2mK9pLx.Key",
            "generic-secret",
        ),
        (
            "Cookie: session=Zq8vR2mK9pLx4TnWQa7Lm2Xc; theme=dark",
            "Zq8vR2mK9pLx4TnWQa7Lm2Xc",
            "cookie",
        ),
    ] {
        assert_eq!(
            r.redact(text),
            text.replace(secret, &format!("[REDACTED:{id}]")),
            "{text}"
        );
    }
}

/// A `.netrc` password: bare or in double quotes, the quotes kept; a
/// quote inside a bare password is part of it; a quoted placeholder and a
/// word closing a quoted sentence (`"machine id password path"`) stay.
#[test]
fn netrc_passwords_bare_or_quoted_and_placeholders_in_docs() {
    let r = redactor();
    for (text, want) in [
        (
            "machine api.example.com login me password Zq8vR2mK9pLx4TnW",
            "machine api.example.com login me password [REDACTED:generic-secret]",
        ),
        (
            "machine api.example.com login me password \"Zq8vR2mK9pLx4TnW\"",
            "machine api.example.com login me password \"[REDACTED:generic-secret]\"",
        ),
        (
            "machine h login u password Zq8v\"R2mK9pLx",
            "machine h login u password [REDACTED:generic-secret]",
        ),
    ] {
        assert_eq!(r.redact(text), want);
    }
    for clean in [
        "\tmachine HOSTNAME login USERID password \"PASSWORD\"",
        "     echomsg ':Nread \"machine id password path\"           uses ftp'",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A `.pgpass` line on PostgreSQL's default port: the password (the rest of
/// the line, colons included) is masked; a placeholder, a comment and a
/// log line naming `host:5432:db` stay.
#[test]
fn pgpass_lines_mask_the_password() {
    let r = redactor();
    for (text, want) in [
        (
            "db.example.com:5432:app:appuser:Zq8vR2mK9pLx4TnW",
            "db.example.com:5432:app:appuser:[REDACTED:generic-secret]",
        ),
        (
            "localhost:5432:*:postgres:Zq8v:R2mK9pLx\n",
            "localhost:5432:*:postgres:[REDACTED:generic-secret]\n",
        ),
    ] {
        assert_eq!(r.redact(text), want);
    }
    for clean in [
        "# hostname:5432:database:username:password",
        "localhost:5432:app:user:password",
        "*:5432:*:*:changeme",
        "2024-01-01 connected to localhost:5432:app in 3 ms",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// Values that are code under a secret name: a catalogue number (MITRE
/// ATT&CK's `T1003.008`), a Kubernetes API group's version and a regular
/// expression stay (the Google Cloud SDK holds each); a random value beside
/// them is masked.
#[test]
fn catalogue_numbers_api_versions_and_regexes_under_secret_names_stay() {
    let r = redactor();
    for clean in [
        "      OS_CREDENTIAL_DUMPING_ETC_PASSWORD_AND_ETC_SHADOW: T1003.008",
        "AUTH_VERSION_1_ALPHA = 'authentication.gke.io/v1alpha1'",
        "AUTH_VERSION_2_BETA = \"authentication.gke.io/v2beta3\"",
        "  _REMOTE_SECRET_VERSION_SHORT = r':(?P<version_short>.+)'",
        "TOKEN_PATTERN = '[a-z0-9]{32}'",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
    for (text, secret) in [
        ("password: T1003.008x", "T1003.008x"),
        (
            "API_TOKEN = 'gke.io/Zq8vR2mK9pLx4TnW'",
            "gke.io/Zq8vR2mK9pLx4TnW",
        ),
    ] {
        assert_eq!(
            r.redact(text),
            text.replace(secret, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
}

/// A command in a Markdown code span (a README's `` `redis-cli -a v` ``):
/// the password is masked and the span's closing backtick stays; outside
/// a span, a backtick inside a bare password is part of it.
#[test]
fn passwords_closing_a_markdown_code_span_keep_the_backtick() {
    let r = redactor();
    let v = "Zq8vR2mK9pLx4TnW";
    for (text, want) in [
        (
            format!("Run `redis-cli -a {v}` to connect."),
            "Run `redis-cli -a [REDACTED:generic-secret]` to connect.",
        ),
        (
            format!("Run `mysql -u root -p{v}` then `exit`."),
            "Run `mysql -u root -p[REDACTED:generic-secret]` then `exit`.",
        ),
        (
            format!("Try `docker login -u me -p {v}`."),
            "Try `docker login -u me -p [REDACTED:generic-secret]`.",
        ),
        (
            format!("Or `curl --password {v}`, once."),
            "Or `curl --password [REDACTED:generic-secret]`, once.",
        ),
        (
            "redis-cli -a Zq8v`R2mK9pLx4TnW".to_string(),
            "redis-cli -a [REDACTED:generic-secret]",
        ),
    ] {
        assert_eq!(r.redact(&text), want);
        assert_eq!(r.redact(want), want);
    }
}

/// Key and value elements side by side: a property list's `<key>` and
/// `<string>`, Hadoop's `<name>` and `<value>`, on one line or two. The
/// value is judged as any value under its name: flags, paths, principals,
/// build-setting references and names without a secret word stay.
#[test]
fn xml_key_and_value_elements_mask_the_value() {
    let r = redactor();
    for (text, want) in [
        (
            "<dict>\n\t<key>API_KEY</key>\n\t<string>Xq7vLp2mR9tWc4Bz8KdN3hYf</string>\n</dict>\n",
            "<dict>\n\t<key>API_KEY</key>\n\t<string>[REDACTED:generic-secret]</string>\n</dict>\n",
        ),
        (
            "<key>ClientSecret</key><string>hunter2!Strong</string>",
            "<key>ClientSecret</key><string>[REDACTED:generic-secret]</string>",
        ),
        (
            "<property><name>fs.s3a.secret.key</name><value>q8Zt3kV0mW1xYb7Np4Rs9Lc2Hd6Jf5Ge/Au+Ki0T</value></property>",
            "<property><name>fs.s3a.secret.key</name><value>[REDACTED:generic-secret]</value></property>",
        ),
        (
            "<property>\n  <name>ssl.server.keystore.keypassword</name>\r\n  <value>Kp9x!mQ2vL</value>\n</property>\n",
            "<property>\n  <name>ssl.server.keystore.keypassword</name>\r\n  <value>[REDACTED:generic-secret]</value>\n</property>\n",
        ),
    ] {
        assert_eq!(r.redact(text), want, "{text}");
    }
    for clean in [
        "\t<key>API_KEY</key>\n\t<string>$(API_KEY)</string>",
        "\t<key>GCM_SENDER_ID</key>\n\t<string>123456789012</string>",
        "\t<key>NSFaceIDUsageDescription</key>\n\t<string>Unlock your passwords with Face ID</string>",
        "\t<key>TokenType</key>\n\t<string>Bearer</string>",
        "\t<key>AuthenticationMethod</key>\n\t<string>Password</string>",
        "\t<key>PasswordRequired</key>\n\t<true/>\n\t<key>Name</key>\n\t<string>Qm7vLp2mR9tWc4Bz8K</string>",
        "<property><name>hadoop.security.authentication</name><value>kerberos</value></property>",
        "<property><name>dfs.block.access.token.enable</name><value>true</value></property>",
        "<property><name>hadoop.security.credential.provider.path</name><value>jceks://hdfs@nn1.example.com/path/to/file.jceks</value></property>",
        "<property><name>yarn.resourcemanager.keytab</name><value>/etc/security/keytab/rm.service.keytab</value></property>",
        "<property><name>dfs.web.authentication.kerberos.principal</name><value>HTTP/_HOST@EXAMPLE.COM</value></property>",
        "<property><name>fs.s3a.secret.key</name><value>${env.AWS_SECRET}</value></property>",
        "<property><name>ssl.server.keystore.location</name><value>/etc/ssl/keystore.jks</value></property>",
        "<name>api_key</name>\n\n<value>Xq7vLp2mR9tWc4Bz8KdN3hYf</value>",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// A crypt hash whose hash characters spell `...` is no elided value, and a
/// password that opens and closes with `~` is no concatenation; an
/// expression between bare `&` or `~` (`"pwd="&pass&";"`) still is.
#[test]
fn crypt_hashes_with_dots_and_passwords_in_tildes_are_masked() {
    let r = redactor();
    for (text, want) in [
        (
            "'ADMIN_PASSWORD_HASH': '$apr1$U3RIw61K$rdiBc...COH.kYyBBctlfy'",
            "'ADMIN_PASSWORD_HASH': '[REDACTED:generic-secret]'",
        ),
        (
            "MYSQL_PWD=\"~y^ce%At-_SXb*H5A~\"",
            "MYSQL_PWD=\"[REDACTED:generic-secret]\"",
        ),
    ] {
        assert_eq!(r.redact(text), want, "{text}");
    }
    for clean in [
        "api_key = 'sk-...abcd'",
        "PASSWORD_HASH='$2y$10$...'",
        "url = \"password=\" ~ pw ~ \";\"",
        "url = \"password=\" ~pw~ \";\"",
        "conn = \"Password=\"&pass&\";\"",
        "conn = \"Password=\"&Me.Pass(0)&\";\"",
    ] {
        assert_eq!(r.redact(clean), clean);
    }
}

/// `/proc/PID/environ` separates its variables with NUL: a bare value ends
/// at NUL, so the variables after a password keep their names and values.
#[test]
fn proc_environ_values_end_at_nul() {
    let r = redactor();
    let text = b"HOME=/root\0DB_PASSWORD=Zq8vR2mK9pLx4TnWb7Yc\0API_TOKEN=Hq3vX8mR2pLw6Tz9Kd\0LANG=C.UTF-8\0PATH=/usr/bin:/bin\0";
    let want = b"HOME=/root\0DB_PASSWORD=[REDACTED:generic-secret]\0API_TOKEN=[REDACTED:generic-secret]\0LANG=C.UTF-8\0PATH=/usr/bin:/bin\0";
    assert_eq!(
        String::from_utf8_lossy(&r.redact_bytes(text)),
        String::from_utf8_lossy(want)
    );
    let flag = b"node\0server.js\0--api-key=Zq8vR2mK9pLx4TnWb7Yc\0--port\080\0";
    let want = b"node\0server.js\0--api-key=[REDACTED:generic-secret]\0--port\080\0";
    assert_eq!(
        String::from_utf8_lossy(&r.redact_bytes(flag)),
        String::from_utf8_lossy(want)
    );
}

/// Helm values that name a Kubernetes Secret object (`existingSecret`,
/// `tlsSecret`, `jksSecret`, `initScriptsSecret`, `extraEnvVarsSecret`, the
/// key names inside one) and Go template paths (`.Values.x`) stay; a
/// secret named by its use (`jwtSecret`, `clientSecret`) and an existing
/// password are masked.
#[test]
fn helm_secret_object_names_and_template_paths_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "auth.existingSecret=all-my-secrets",
            "  existingSecret: load-definition",
            "    tlsSecret: grafana.local-tls",
            "tls.certificatesSecret=my-certs",
            "auth.kafka.jksSecret=schema-registry-jks",
            "initScriptsSecret=special-scripts-sensitive",
            "extraEnvVarsSecret: logstash-secrets",
            "  existingSecretAccessKeyIDKey: \"root-user\"",
            "  existingSecretPasswordKey: admin-password",
            "imagePullSecrets: regcred-docker-hub",
            "{{- range $index, $secret := .Values.tls.hidden.existingSecrets }}",
            "{{- $postgresPassword := .Values.passwordUpdateJob.previousPasswords.postgresPassword }}",
            "  password: {{ $.Values.auth.password | quote }}",
            "    cert: \"urn:k8s:secret:tls:cert\"",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9Kd";
    assert_masks_value(
        &r,
        &[
            format!("  jwtSecret: {v}"),
            format!("  clientSecret: \"{v}\""),
            format!("existing_password: {v}"),
            format!("auth.password={v}"),
        ],
        v,
    );
}

/// Ruby code: instance variables as values (`token: @user.token`,
/// `ENV["X_KEY"] = @previous_key`), a route's `controller#action`, an
/// interpolation inside a string and a realm's error message stay; literals
/// are masked.
#[test]
fn ruby_variables_routes_interpolations_and_messages_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "    User.authenticate_by(token: @user.token, password: @user.password)",
            "    ENV[\"MANDRILL_INGRESS_API_KEY\"] = @previous_key",
            "    old_auth_token = @user.auth_token",
            "        @encryption_key ||= @keys.last.tap do |key|",
            "    # session_options[:secret] = @@old_secret",
            "    put  \"/disk/:encoded_token\" => \"active_storage/disk#update\", as: :update_rails_disk_service",
            "    post \"/keys/:token\" => \"api_keys#create\"",
            "    raise Errors::Configuration, \"Missing encryption credential: active_record_encryption.#{key}\"",
            "    request_http_basic_authentication(\"SuperSecret\", \"Authentication Failed\\n\")",
            "    request_http_digest_authentication(\"SuperSecret\", \"Access Denied\", \"application/json\")",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9Kd";
    assert_masks_value(
        &r,
        &[
            format!("    User.create(token: \"{v}\")"),
            format!("    ENV[\"MANDRILL_INGRESS_API_KEY\"] = \"{v}\""),
        ],
        v,
    );
}

/// Ansible's `password` lookup takes a file path and options, or builds the
/// path from a directory and variables: neither is a password. A literal
/// password is masked, and so is a random value that ends in `/`.
#[test]
fn ansible_password_lookups_keep_their_path_and_options() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "    password1: \"{{ lookup('password', '/dev/null length=20') }}\"",
            "    test_password: Password123{{ lookup('password', '/dev/null chars=ascii_letters,digits length=8') }}",
            "    password: \"{{ lookup('ansible.builtin.password', 'credentials/' + client + '/mysqlpassword', length=15) }}\"",
            "    db_pass: \"{{ lookup('password', 'secrets/db/prod chars=ascii_letters') }}\"",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9Kd";
    assert_masks_value(&r, &[format!("    vault_password: '{v}'")], v);
    let text = format!("    token = '{v}/'");
    assert!(!r.redact(&text).contains(v), "{text}");
}

/// Laravel's validation rules and encrypted casts under a secret's name,
/// a Kubernetes namespace and a rotation schedule's expression are no
/// secrets; a password joined with `|` that holds no rule words is.
#[test]
fn validation_rules_casts_namespaces_and_schedules_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "        return ['password' => 'required|confirmed'];",
            "            'password' => 'required|string|min:8|confirmed',",
            "            'current_password' => 'required|current_password',",
            "  $rules = ['api_token' => 'nullable|string|size:80'];",
            "        'secret_json' => 'encrypted:json',",
            "    adminSecretNamespace: kube-system",
            "    _SECRET_NAMESPACE = 'oauth2client:secrets#ns'",
            "  master_user_password_rotation_schedule_expression = \"rate(15 days)\"",
        ],
    );
    let v = "hunter|Xq7vLp2m|dog";
    assert_masks_value(&r, &[format!("password = '{v}'")], v);
}

/// `bearer` as a log field's value, followed by the next field: the next
/// field's name and its `=` are no token (`token_type=bearer
/// api_key_last4=9f2c`); a token with padding, and a random run with `=`
/// inside, after `bearer` are still masked.
#[test]
fn bearer_before_the_next_field_is_no_token() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "2024-06-07T06:59:58.053Z INFO svc.auth token_type=bearer api_key_last4=9f2c status=200",
            "level=info token_type=Bearer auth.provider=github latency_ms=12",
            "token_type=bearer apiKeyHeader=X-Api-Key",
            "token_type=bearer refresh_token_rotated=true",
        ],
    );
    for (text, masked) in [
        (
            "Authorization: Bearer Zx9kQ2mN7vB4tR8wY1pL==",
            "Authorization: Bearer [REDACTED:bearer-token]",
        ),
        (
            "curl -H \"Authorization: Bearer Zx9kQ2mN7vB4tR8wY1pL=\" https://x",
            "curl -H \"Authorization: Bearer [REDACTED:bearer-token]\" https://x",
        ),
        (
            "token_type=bearer Zx9kQ2mN7vB4tR8wY1pL=x9",
            "token_type=bearer [REDACTED:bearer-token]x9",
        ),
    ] {
        assert_eq!(r.redact(text), masked, "{text}");
    }
}

/// Go composite literals under a secret's name (`Authorization:
/// &config.Authorization{`, `validAPIKey := SDConfig{`), a field set from
/// a variable with a digit inside (`signV4Algorithm,`), prose after
/// `bearer` and a published port after a container named `…-mongo` are no
/// secrets; MongoDB's shells still have their `-p` password masked.
#[test]
fn composite_literals_bearer_prose_and_published_ports_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\t\t\tAuthorization: &config.Authorization{",
            "\tcfg.HTTPClientConfig.Authorization = &config.Authorization{",
            "\tvalidAPIKey := SDConfig{",
            "\t\t\tinputV4AuthStr:    signV4Algorithm,",
            "* [FEATURE] OAuth2: support jwt-bearer grant-type (RFC7523 3.1). #17592",
            "docker run --network some-network -e ME_CONFIG_MONGODB_SERVER=some-mongo -p 8081:8081 mongo-express",
            "docker run --name my-mongo -p 27017:27017 -d mongo",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9Kd";
    assert_masks_value(
        &r,
        &[
            format!("mongo -u admin -p {v} --authenticationDatabase admin"),
            format!("docker run -it --rm mongo mongosh --host db -u admin -p {v}"),
            format!("$ mongodump --uri mongodb://db -u a -p {v}"),
            format!("\tsecret: {v},"),
        ],
        v,
    );
    assert_eq!(
        r.redact(&format!("token = {v}{{")),
        "token = [REDACTED:generic-secret]"
    );
    assert_eq!(
        r.redact(&format!("Authorization: Bearer {v}")),
        "Authorization: Bearer [REDACTED:bearer-token]"
    );
}

/// Translated message bundles (`Password=Пароль`, `Authorization=権限管理`),
/// object keys with a file name, an index into a member, a call being
/// built, names of selectors, delimiters, methods and an algorithm's
/// default, a Go constant spelling its name and a Java parameter list stay.
/// Values with digits and symbols beside letters beyond ASCII, and invalid
/// UTF-8, are still judged as values.
#[test]
fn translations_object_keys_and_code_under_secret_names_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "Password=Пароль",
            "Confirm\\ password=パスワードの確認",
            "Change\\ Password=Ändra lösenord",
            "TokenDisplayedOnce=このトークンは将来回復できないため、今すぐコピーしてください。",
            "Invalid\\ username\\ or\\ password=Usuário\\ ou\\ senha\\ inválida",
            "Authorization=Авторизация",
            "\t\t\tremoteKey: \"loki_index_v2_20598/fake/1779799681971192955-compactor-1779659125419-4eafaf2b.tsdb\",",
            "\t\t\texpectedKey: \"goldfish/results/2024/10/11/fc761f29-edad-4152/cell-a.json.gz\",",
            "\t\tlog.NewLabelExtractionExpr(\"api_key\", `request.headers[\"X-API-KEY\"]`),",
            "\t\t\tdst.Spec.Tenants.Authorization = dstAuthz",
            "\"--logs.auth.extract-selectors=SrcK8S_Namespace,DstK8S_Namespace\",",
            "const ruleTokenDelimiter = \";rule-shard-token\"",
            "\t\"auth_methods\":    \"password,token,sso\",",
            "    public static final String PASSWORD_ENCODER_CIPHER_ALGORITHM_DEFAULT = \"AES/CBC/PKCS5Padding\";",
            "        String delegationTokenImageString = \"DelegationTokenImage(\" + String.join(\", \", ids) + \")\";",
            "\tObjectStorageSecretAlibabaCloud ObjectStorageSecretType = \"alibabacloud\"",
            "    public SslConfig(String storeType,\n                     Password storePassword,\n                     Password keyPassword) {",
        ],
    );
    let v = "Hq3vX8mR2pLw6Tz9Kd";
    assert_masks_value(&r, &[format!("PASSWORD_DEFAULT = \"{v}\"")], v);
    for text in [
        "password=Straße2024!",
        "password=Zürich#Kq7vLp2m",
        "token = \"Hq3vX8mR2pLw6Tz9Kd/tWc4Bz8/KdN3hYf.abc\"",
        "password Hq3vX8mR2pLw6Tz9Kd;",
    ] {
        assert_ne!(r.redact(text), text, "{text}");
    }
    let invalid = b"password=hunter2\xe9t\xe9Zq9";
    assert_ne!(&r.redact_bytes(invalid)[..], &invalid[..]);
}

/// Keys found by their documented prefixes without a name beside them:
/// ClickUp's `pk_<user id>_…`, ElevenLabs' `sk_` + 48 hex, LaunchDarkly's
/// `sdk-<uuid>`, Yandex Cloud IAM tokens `t1.….…`. Their prefixes alone,
/// and what shares them (`pk_users_id`, `sdk-version`, `t1.micro`, an
/// `sk_` of other lengths), stay.
#[test]
fn clickup_elevenlabs_launchdarkly_and_yandex_iam_keys_are_masked() {
    let r = redactor();
    // An IAM token's signature part is 86 base64url characters.
    let signature: String =
        "b7Ig3aXm9kR2tQw8ZLhN4cV1YpF5sJ0eU6oK-3WnA9yT_dMfB7gH2iCjE8lO1qP4rS6uX0vZ"
            .chars()
            .cycle()
            .take(86)
            .collect();
    let iam = format!(
        "t1.9euelZqKlc2Tm5KSxpuVm8uWjZqOx-3rnpWanZeKkJyUmJTJko2UnJSelZrl8_dHCh9c.{signature}"
    );
    let cases = [
        (
            "pk_81730264_Q7ZK2M9XH4B1RPTV0C8YD6NWE3LFA5GJ",
            "clickup-token",
        ),
        (
            "sk_3f9a0c1d7be24e58a6c90b1f2d3e4a5b6c7d8e9f0a1b2c3d",
            "elevenlabs-api-key",
        ),
        (
            "sdk-5f2c8e1a-9b3d-4c7e-a1f0-2d6b8e4c9a71",
            "launchdarkly-key",
        ),
        (iam.as_str(), "yandex-iam-token"),
    ];
    for (token, id) in cases {
        for line in [
            format!("using {token} for the upload"),
            format!("export TOKEN_VALUE=\"{token}\""),
        ] {
            let out = r.redact(&line);
            assert!(!out.contains(token), "{line:?} -> {out:?}");
            assert!(
                out.contains(&format!("[REDACTED:{id}]")),
                "{line:?} -> {out:?}"
            );
        }
    }
    assert_unchanged(
        &r,
        &[
            "ALTER TABLE t ADD CONSTRAINT pk_users_id PRIMARY KEY (id);",
            "sdk-version: 1.2.3 (sdk-5f2c8e1a)",
            "instance_type = \"t1.micro\"",
            "sk_3f9a0c1d7be24e58a6c90b1f2d3e4a5b is a 32-digit id",
        ],
    );
}

/// A password quoted apart from its user (`curl --user kevin:'v'`,
/// `-u kevin:"v"`, `--user "{id}":"{v}"`), an `Authorization` scheme that
/// names a key or token (`Api-Token v`, `DeepL-Auth-Key v`,
/// `Klaviyo-API-Key v`), and the passwords of `7z -pV`, `rdesktop -p V`
/// and `net use … /user:NAME V` are masked. A query parameter's value ends
/// at its URL's fragment (`?token=v#section`); a prompt (`-p`, `-p -`,
/// `*`) and a switch (`/persistent:yes`) stay.
#[test]
fn quoted_curl_passwords_named_auth_schemes_and_archive_passwords_are_masked() {
    let r = redactor();
    let v = "pRf7vG2h1L8nQkW9";
    let cases = [
        (
            format!("curl --user kevin:'{v}' -iX PATCH https://api.example.com/x"),
            "basic-auth",
        ),
        (
            format!("curl -u kevin:\"{v}\" https://api.example.com/x"),
            "basic-auth",
        ),
        (
            format!("curl -X POST --user \"{{acd3c08b-74e8}}\":\"{v}\" https://x.example"),
            "basic-auth",
        ),
        (
            format!("curl -H \"Authorization: Api-Token {v}\" https://x.example/api"),
            "bearer-token",
        ),
        (format!("Authorization: DeepL-Auth-Key {v}"), "bearer-token"),
        (
            format!("authorization: Klaviyo-API-Key {v}"),
            "bearer-token",
        ),
        (format!("7z a -p{v} backup.7z docs"), "generic-secret"),
        (
            format!("7za x -mhe=on -p\"{v}\" -oout backup.7z"),
            "generic-secret",
        ),
        (format!("rdesktop -u bob -p {v} host"), "generic-secret"),
        (
            format!("net use Z: \\\\srv\\share /user:CORP\\bob {v} /persistent:no"),
            "generic-secret",
        ),
    ];
    for (line, id) in cases {
        let want = line.replace(v, &format!("[REDACTED:{id}]"));
        assert_eq!(r.redact(&line), want, "{line}");
        assert_eq!(r.redact(&want), want, "{line}");
    }
    assert_eq!(
        r.redact(&format!("GET https://x.example/cb?token={v}#section")),
        "GET https://x.example/cb?token=[REDACTED:generic-secret]#section"
    );
    assert_eq!(
        r.redact(&format!("PASSWORD={v}#2")),
        "PASSWORD=[REDACTED:generic-secret]"
    );
    assert_unchanged(
        &r,
        &[
            "7z x backup.7z -p",
            "rdesktop -u bob -p - host",
            "net use Z: \\\\srv\\share /user:bob *",
            "net use Z: \\\\srv\\share /user:bob /persistent:yes",
            "Authorization: Api-Token",
        ],
    );
}

/// A numbered secret word is that word (`password1`, `api_token2`,
/// `DB_PASSWORD2`, `secret3`), and a URL's `?key=`/`&key=` holds an API
/// key. Numbered protocol names (`OAuth2`, `oauth2_refresh_retries`), a
/// bare `key1`, and a query's object or cache key (`?key=photos/cat.jpg`,
/// `?key=user-42`) or a `key=` outside a URL stay.
#[test]
fn numbered_secret_names_and_url_query_keys_are_masked() {
    let r = redactor();
    let v = "AemQ06R35S1Y8rXnOzYvT8I4-a7u";
    assert_masks_value(
        &r,
        &[
            format!("token2 = '{v}'"),
            format!("api_token2 = '{v}'"),
            format!("typeform_token2 = '{v}'"),
            format!("password1 = \"{v}\""),
            format!("DB_PASSWORD2={v}"),
            format!("secret3: {v}"),
            format!("GET /v1/list?key={v} 200"),
            format!("url := \"https://api.example.com/v1/users?key={v}\""),
            format!("https://x.example/a?x=1&key={v}&y=2"),
        ],
        v,
    );
    assert_unchanged(
        &r,
        &[
            "tries=boto.config.get('OAuth2', 'oauth2_refresh_retries', 6),",
            "export type ConnectionUserAuthorizationUrloAuth1 = Management.ConnectionHttpsUrl255;",
            "key1 = 'AemQ06R35S1Y8rXnOzYvT8I4-a7u'",
            "https://s3.example.com/bucket?key=photos/2024/cat.jpg",
            "https://x.example/cache?key=user-42&x=1",
            "foo?key=AemQ06R35S1Y8rXnOzYvT8I4-a7u",
        ],
    );
}

/// Found in authelia and oauth2-proxy: JOSE algorithm names
/// (`id_token_encrypted_response_enc: 'A128CBC-HS256'`), a Markdown
/// link's target with its anchor, a table cell's code span of words
/// (`` `confidential` ``), a message template with `%s` between words, an
/// anchored regex (`'^(abc123|zyx789)$'`), key file names
/// (`--file.ca-private-key='ca.rsa.1024.key'`), a label path
/// (`authorization: 'area/authorization'`), concatenations (`"X=" +
/// os.Getenv("X")`, Go's `` `echo `+password+` | …` ``), struct fields set
/// from variables with acronyms (`keyRSA2048,`, `svcSK,`), a token's name
/// numbered (`IDToken: "IDToken-1234"`), a code's name after an excluded
/// word (`ldapPasswordComplexityCode`) and host names before a URL's `@`
/// (open-redirect probes) stay. Their secret-shaped neighbours are masked.
#[test]
fn algorithms_link_targets_templates_key_files_and_probes_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "        id_token_encrypted_response_enc: 'A128CBC-HS256'",
            "        userinfo_signed_response_alg: RS256",
            "token_alg: 'ECDH-ES+A128KW'",
            "[Generating a Random Password Hash]: ../../reference/guides/generating-secure-values.md#generating-a-random-password-hash",
            "|    Secret via HTTP Basic Auth Scheme     |     `client_secret_basic`     |     Secret      |     `confidential`     |",
            "\terrFmtFileAuthBackendPassword = \"authentication_backend: file: password: %s: \"",
            "        key: 'token'\n        value: '^(abc123|zyx789)$'",
            "go run ./cmd/authelia crypto certificate rsa generate --file.ca-private-key='ca.rsa.1024.key' -n=x",
            "ssl_key: server.key",
            "\tprivKeyPath = flag.String(\"private-key\", \"support_private.pem\", \"private key\")",
            "              authorization:  'area/authorization',",
            "\t\t\"-e\", \"GPG_PASSWORD=\" + os.Getenv(\"GPG_PASSWORD\"),",
            "\treturn utils.CommandWithStdout(\"bash\", \"-c\", `echo `+password+` | docker login `+registry+` --password-stdin -u `+username).Run()",
            "\t\t\t\tIssuerPrivateKey: keyRSA2048,",
            "\t\tSecret: tOpenIDConnectPBKDF2ClientSecret,",
            "\t\t\tSecretKey:  svcSK,",
            "\t\t\t\t\tIDToken: \"IDToken-1234\",",
            "const ldapPasswordComplexityCode = \"0000052D.\"",
            "https://www.whitelisteddomain.tld@google.com",
            "/https://%5cwww.whitelisteddomain.tld@localdomain.pw/%2f..",
        ],
    );
    let v = "Zq81xK9mQ2pLvR4t";
    assert_masks_value(
        &r,
        &[
            format!("secret: '{v}'"),
            format!("\t\tSecretKey:  {v},"),
            format!("password_reset_code = \"{v}\""),
        ],
        v,
    );
    assert_eq!(
        r.redact(&format!("IDToken: \"IDToken-{v}\",")),
        "IDToken: \"[REDACTED:generic-secret]\","
    );
    // A file name of random characters is a value.
    assert_eq!(
        r.redact(&format!("private_key: {v}.pem")),
        "private_key: [REDACTED:generic-secret]"
    );
    assert_eq!(
        r.redact(&format!("| password | `{v}` |")),
        "| password | [REDACTED:generic-secret] |"
    );
    assert_eq!(
        r.redact(&format!("git clone https://{v}Zq81xK9m@github.com/x/y")),
        "git clone https://[REDACTED:url-password]@github.com/x/y"
    );
}

/// A value in a language beyond ASCII that opens like a JOSE algorithm
/// (`A` and a multi-byte letter) once made the algorithm test slice a
/// string inside a character: a panic, caught by the command, that lost
/// the rest of its output.
#[test]
fn values_beyond_ascii_never_panic_the_value_checks() {
    let r = redactor();
    for line in [
        "\t\"Repeat new password\": \"Atkārtot jauno paroli\",",
        "password: Aāā",
        "token: \"A12ā\"",
    ] {
        assert_eq!(r.redact(line), line, "{line}");
    }
    // Shaped like the algorithms, with a letter beyond ASCII: judged as
    // values, without a panic.
    for line in ["secret = 'RSA-OAEP-āZq81xK9'", "api_key: PBES2-HSā+A128KW"] {
        let out = r.redact(line);
        assert!(out.contains("[REDACTED:generic-secret]"), "{line} -> {out}");
    }
}

/// Found in dex and IdentityServer4: Go struct fields whose type names an
/// acronym (`signing_key  *jose.JSONWebKey` in gofmt's columns), Babel's
/// compiled defaults (`x = _ref$accessTokenExpir2 === undefined ? … : …`)
/// and names of algorithm lists (`AllowedAccessTokenSigningAlgorithms =
/// resource1Algorithms`) stay. A shell's `PASSWORD=v && ./run.sh` is
/// still a secret.
#[test]
fn pointer_types_compiled_defaults_and_algorithm_lists_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\tsigning_key             *jose.JSONWebKey",
            "\tSigningKey    *jose.JSONWebKey",
            "            accessTokenExpiringTimer = _ref$accessTokenExpir2 === undefined ? new _Timer.Timer(\"Access token expiring\") : _ref$accessTokenExpir2,",
            "                AllowedAccessTokenSigningAlgorithms = resource1Algorithms",
        ],
    );
    let v = "Zq81xK9mQ2pLvR4t";
    assert_masks_value(
        &r,
        &[
            format!("PASSWORD={v} && ./run.sh"),
            format!("TOKEN={v} || exit 1"),
            format!("signing_key             {v}"),
        ],
        v,
    );
}

/// Found in loghub's system logs: Android's object identities
/// (`wtoken = AppWindowToken{9f4ef63 token=Token{a64f992 …`, `Bad activity
/// token: android.os.BinderProxy@2bd79ce`), a failure's reason named
/// after auth (`reason = AuthFail:sts:5_rsn:0`) and a percent-encoded
/// e-mail address as a URL's user (`https://13957525385%40163.com@host/`)
/// stay. A password shaped like a word, `@` and a number
/// (`Summer@2024`) is still one.
#[test]
fn object_identities_failure_reasons_and_encoded_emails_in_logs_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogsopening app wtoken = AppWindowToken{9f4ef63 token=Token{a64f992 ActivityRecord{de9231d u0 com.tencent.qt.qtl/.activity.info.NewsDetailXmlActivity t761}}}, allDrawn= false",
            "03-17 16:13:45.466  1702 17632 W ActivityManager: Bad activity token: android.os.BinderProxy@2bd79ce",
            "Jul  1 10:08:21 authorMacBook-Pro corecaptured[31313]: CCFile::captureLog Received Capture notice id: 1498928900.759059, reason = AuthFail:sts:5_rsn:0",
            "Jul  3 16:36:40 calvisitor-10-105-160-184 AddressBookSourceSync[33594]: [CardDAVPlugin-ERROR] -getPrincipalInfo:[_controller supportsRequestCompressionAtURL:https://13957525385%40163.com@p28-contacts.icloud.com/874161398/principal/] Error",
        ],
    );
    for v in ["Summer@2024", "Summer@beef12", "Zq81xK9mQ2pLvR4t"] {
        assert_masks_value(&r, &[format!("password={v}")], v);
    }
    assert_eq!(
        r.redact("https://bob%40example.com:Zq81xK9mQ2pLvR4t@host/"),
        "https://bob%40example.com:[REDACTED:url-password]@host/"
    );
}

/// A string literal alone on the line below its name, as formatters wrap
/// long ones: Prettier's `const apiKey =` / `  "v";`, Black's `API_KEY = (`
/// / `    "v"` / `)`, a member's `this.dbPassword =` / `'v',`. A URL, an
/// expression (`process.env.API_KEY;`, `"v" + suffix`) and a template
/// with a Windows path (`'Software\\Python\\{sys_version}'`) stay.
#[test]
fn literals_on_the_line_below_their_name_are_masked() {
    let r = redactor();
    let v = "Zq81xK9mQ2pLvR4tWn";
    assert_masks_value(
        &r,
        &[
            format!("const scrapingBeeApiKey =\n  \"{v}\"; // Replace"),
            format!("API_KEY = (\n    \"{v}\"\n)"),
            format!("this.dbPassword =\n      '{v}',"),
            format!("\tprivate static final String CLIENT_SECRET =\r\n\t\t\"{v}\";"),
        ],
        v,
    );
    assert_unchanged(
        &r,
        &[
            "const tokenUrl =\n  \"https://example.com/oauth/token\";",
            "const apiKey =\n  process.env.API_KEY;",
            "let token =\n  \"Zq81xK9mQ2pLvR4tWn\" + suffix;",
            "    REGISTRY_KEY = (\n        'Software\\\\Python\\\\PythonCore\\\\{sys_version}'\n        '\\\\Modules\\\\{fullname}')",
            "apiKey ==\n  \"Zq81xK9mQ2pLvR4tWn\"",
        ],
    );
}

/// A password a person chose is often a lower-case word: given to a name
/// that is a password's own (`DB_PASSWORD`, `adminPass`), quoted, or bare
/// where a configuration's value ends (a line's end, `;`, `&`, a closing
/// quote, a table's cell, a shell default), and on a command line's
/// password flag, it is masked.
#[test]
fn word_passwords_after_password_names_are_masked() {
    let r = redactor();
    let v = "swordfish";
    assert_masks_value(
        &r,
        &[
            format!("DB_PASSWORD={v}"),
            format!("password: \"{v}\""),
            format!("REACT_APP_AUTH_PASSWORD={v}    # some comment"),
            format!("export MYSQL_ROOT_PASSWORD=\"{v}\""),
            format!("[client]\npassword = {v}\n"),
            format!("ssl.keystore.password={v}"),
            format!("PGPASSWORD={v} psql -h db"),
            format!("Server=db;User Id=app;Password={v};Encrypt=True;"),
            format!("GET /login?user=bob&password={v}&next=/ HTTP/1.1"),
            format!("<password>{v}</password>"),
            format!("<add key=\"SmtpPassword\" value=\"{v}\" />"),
            format!("| DB_PASSWORD | {v} |"),
            format!("      DB_PASSWORD: ${{DB_PASSWORD:-{v}}}"),
            format!("const dbPassword = `{v}`"),
            format!("  adminPass: {v}"),
            format!("private static final String PASSWORD = \"{v}\";"),
            format!("psexec \\\\10.0.0.5 -u Administrator -p {v} cmd"),
            format!("sshpass -p {v} ssh deploy@host"),
            format!("mysql -u root -p{v} app"),
            format!("export DB_PASSWORD = {v}"),
        ],
        v,
    );
    assert_eq!(
        r.redact(&format!("http -a bob:{v} https://api.example.com/me")),
        "http -a bob:[REDACTED:basic-auth] https://api.example.com/me"
    );
}

/// Where a word is no password: the literals, types and states of a
/// configuration (`password: none`, `update_password: always`), a
/// variable in code (indented, after a `,`, an instance variable's, a
/// keyword argument), a shell's command in backticks, a name about a
/// password rather than its value (`password_policy`), a secret's or a
/// token's name (their values are random), a capitalised label, a
/// password word itself, and the prose of an `htpasswd -b` or `--password`
/// mention. `mysql -p DB` asks for the password.
#[test]
fn words_that_are_no_passwords_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "password: none",
            "password: required",
            "    update_password: always",
            "pass: string",
            "    password = ident",
            "                username, password = split",
            "    @argonaut.password = long",
            "connect(user=u, password=pw)",
            "PASSWORD=`whoami`",
            "password_policy: strict",
            "client_secret: \"hello\"",
            "api_token = \"hello\"",
            "password: \"Passwort\"",
            "password: \"mypassword\"",
            "GIT_ASKPASS: 'echo',",
            "pass = console_attr.Colorizer('PASS', 'green')",
            "($expectToPass ? 'pass' : 'fail')",
            "], ['foo.*.password' => 'confirmed']);",
            "information can be provided via the --username and --password options",
            "passwords given to htpasswd -b on a command line are masked",
            "mysql -u root -p mydb",
            "def hash(password: str, method: str = \"scrypt\", salt_length: int = 16):",
            "POSTGRES_PASSWORD=postgres",
        ],
    );
}

/// Families by their documented shapes: Azure DevOps PATs of the 2024
/// format, Dependency-Track keys, Twitch stream keys, New Relic license
/// and Insights query keys, Teams webhooks on `outlook.office.com`,
/// SonarQube's `sonar.login`, Vault unseal keys, Cisco type 8/9 hashes and
/// roasted Kerberos tickets. Near misses stay.
#[test]
fn devops_stream_license_webhook_unseal_and_ticket_secrets_are_masked() {
    let r = redactor();
    let pat =
        "6RtqHqPc66Y6DYbkydbrrFJTYnRoA7r40ts7LWS2SkINSFsRABxhJQQJ99BFACAAAAALGcqjAAASAZDO3eqU";
    let hex40 = "826de5590c75919a8317fdface58206eebe7ebbc";
    let share = "0tZn+7QQCxphpHwTm7/dC3LpP5JGIbYl3PK8Sy81R+P2";
    let edata = "c2e64fc4a6bd5f4ec8f4b305749d708ef7f0e2b74b21d7d51e28e5027c8b354b951a1eed63abea24a270c5ed747676d8";
    let hook = "555aa7fc-ea71-4fb7-ae9e-755caa4404ed@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/16085df23e564bb9076842605ede3af2/51dab674-ad95-4f0a-8964-8bdefc25b6d9";
    for (input, want) in [
        (format!("azure_devops_pat = \"{pat}\""), "azure_devops_pat = \"[REDACTED:azure-devops-pat]\"".to_string()),
        ("odt_KTJlDq2AGGGlqG4riKdT7p980AW8RlU5".into(), "[REDACTED:dependency-track-key]".into()),
        ("rtmp://live.twitch.tv/app/live_126031192_tiX3sbwIzL9VmkecdxioBMA1LJ9S4m".into(), "rtmp://live.twitch.tv/app/[REDACTED:twitch-stream-key]".into()),
        ("license: eu01xxaa7460e1ea3abdfbbbd36e85c10cd0NRAL".into(), "license: [REDACTED:newrelic-key]".into()),
        ("\"querykey\": \"NRIQ-pD-yUGl9Z3ACIJ89V-zGkhMxFJE5O121\",".into(), "\"querykey\": \"[REDACTED:newrelic-key]\",".into()),
        (format!("webhooks: https://outlook.office.com/webhook/{hook}"), "webhooks: https://outlook.office.com/webhook/[REDACTED:teams-webhook]".into()),
        (format!("-Dsonar.login={hex40}"), "-Dsonar.login=[REDACTED:sonarqube-token]".into()),
        (format!("sonar.login', '{hex40}"), "sonar.login', '[REDACTED:sonarqube-token]".into()),
        (format!("Unseal Key 2: {share}"), "Unseal Key 2: [REDACTED:vault-unseal-key]".into()),
        (format!("kubectl exec vault-0 -- vault operator unseal {share}"), "kubectl exec vault-0 -- vault operator unseal [REDACTED:vault-unseal-key]".into()),
        ("username admin secret 8 $8$TnGX/fE4KGHOVU$pEhnEvxrvaynpi8j4f.EMHr6M.FzU8xnZnBr/tJdFWk".into(), "username admin secret 8 $8$TnGX/fE4KGHOVU$[REDACTED:password-hash]".into()),
        (format!("$krb5tgs$23$*svc_sql$CORP.LOCAL$MSSQLSvc/db01:1433*$8d28cfbfdcb2a99259b3fb639444e9a8${edata}"), "$krb5tgs$23$*svc_sql$CORP.LOCAL$MSSQLSvc/db01:1433*$8d28cfbfdcb2a99259b3fb639444e9a8$[REDACTED:password-hash]".into()),
        (format!("$krb5asrep$23$user@corp.local:3e156ada591263b8aab0965f5aebd837${edata}"), "$krb5asrep$23$user@corp.local:3e156ada591263b8aab0965f5aebd837$[REDACTED:password-hash]".into()),
    ] {
        assert_eq!(r.redact(&input), want, "{input}");
        assert_eq!(r.redact(&want), want, "{input}");
    }
    assert_unchanged(
        &r,
        &[
            "keep_alive_timeout = 75",
            "live_1234_abc",
            "odt_template.docx",
            "sonar.login=admin",
            "Unseal Key (will be hashed): see below",
            "seal status: sealed=true, key shares: 5",
            "https://outlook.office.com/mail/inbox",
        ],
    );
}

/// Code that looked like an assignment: a label's text in a minified
/// script (`passwordLabel:"Password:",…`: the quote after the colon closes
/// the string), a CSS selector (`"#add-password"`), a variable spliced
/// between a shell's quotes (`"'$PRECOMPILE_PASSWORD'"`), an HTML-escaped
/// placeholder (`&lt;…&gt;`) and a string closed against a concatenation
/// (`"…:_password = "+new Buffer("feast")`). The same names with values
/// are still masked.
#[test]
fn labels_selectors_spliced_and_escaped_placeholders_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "usernameLabel:\"Username or email:\",passwordLabel:\"Password:\",rememberMeLabel:\"Remember me:\"",
            "s.composeExec(\"tailscale\", \"up\", \"--authkey=\"+authKey, \"--advertise-routes=10.0.0.0/24\")",
            "this.addPassword = \"#add-password\";",
            "$('.reset-password').hide(); resetPassword = '.reset-password';",
            "- echo 'export DATABASE_PASSWORD=\"'$PRECOMPILE_PASSWORD'\"' >> .env",
            "\"password\": \"&lt;YOURPASSWORD&gt;\"",
            "\"//localhost:1337/:_password = \"+new Buffer(\"feast\").toString(\"base64\")",
        ],
    );
    let v = "Zq9vK2mL7pXw4Rt8";
    assert_masks_value(
        &r,
        &[
            format!("\"password\":\"{v}\""),
            format!("cfg = \"password={v}\""),
            format!("'oauth_token: '{v}',"),
        ],
        v,
    );
    // A value that opens with `#` and is no selector of words.
    assert_eq!(
        r.redact("password: \"#Zq9vK2mL7pXw4Rt8\""),
        "password: \"[REDACTED:generic-secret]\""
    );
}

/// A secret compared with a literal is the literal a program checks:
/// `if password == "v":`, `apiKey !== 'v'`, `creds.Secret != "v"`. A
/// lexer's token compared (`token == "#define"`), `typeof x ===
/// 'function'`, a placeholder, an empty string and a constant's name
/// (`VALUE_SPECIFIED_IN_NO_LOG_PARAMETER`, in a comparison or an
/// assignment) stay.
#[test]
fn literals_compared_with_secrets_are_masked() {
    let r = redactor();
    let v = "Zq9vK2mL7pXw4Rt8";
    assert_masks_value(
        &r,
        &[
            format!("if password == \"{v}\":"),
            format!("if (apiKey !== '{v}') {{"),
            format!("if creds.Secret != \"{v}\" {{"),
            format!("    if username == 'admin' and password == '{v}':"),
            format!("assert resp[\"password\"] == \"{v}\""),
            format!("if (clientSecret === \"{v}\")"),
        ],
        v,
    );
    assert_unchanged(
        &r,
        &[
            "elif token == \"#bygroup\":",
            "if token == \"Zq9vK2mL7pXw4Rt8\":",
            "typeof client.auth.signInWithPassword === 'function',",
            "if password == \"\":",
            "if (password !== undefined)",
            "if password == \"${DB_PASSWORD}\":",
            "if key == \"Enter\":",
            "if token_type == \"Bearer\":",
            "x = password == y",
            "- module_args.default_pass == 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'",
            "password = \"VALUE_SPECIFIED_IN_NO_LOG_PARAMETER\"",
        ],
    );
}

/// A private key's body written as string literals, one a line (Java, C#,
/// Go and JavaScript with `+`, Python without): each line's base64 is
/// masked, its quotes, escapes and operators stay, so the source still
/// reads as code. A header with no key after it stays.
#[test]
fn private_keys_in_string_literal_lines_are_masked() {
    let r = redactor();
    let lines = [
        "MIIEowIBAAKCAQEAtDSHFO5tfN+jYMJuiNvBaplkSI3eFqKMLOvXyVu+dmSEic6x",
        "yKWQqjQiFpXogArvAq2tBxWOq7F+a6rNhDKdICD2amRwDHqKD1bzXVSZ5c1XnpCF",
        "sBiQaEyX2iqyjScnntFHIpTCVHNxILDxsStocj64YS0C7hfCGVhft/Ts/O0AAAIQ",
    ];
    let java = format!(
        "String key = \"-----BEGIN RSA PRIVATE KEY-----\\n\" +\n{}    \"-----END RSA PRIVATE KEY-----\";\n",
        lines.iter().map(|l| format!("    \"{l}\\n\" +\n")).collect::<String>()
    );
    let python =
        format!(
        "KEY = (\n    '-----BEGIN PRIVATE KEY-----\\n'\n{}    '-----END PRIVATE KEY-----\\n'\n)\n",
        lines.iter().map(|l| format!("    '{l}\\n'\n")).collect::<String>()
    );
    for input in [java, python] {
        let out = r.redact(&input);
        let mut want = input.clone();
        for l in lines {
            want = want.replace(l, "[REDACTED:private-key]");
        }
        assert_eq!(out, want, "{input}");
        assert_eq!(r.redact(&out), out);
        assert_eq!(stream(&r, input.as_bytes(), vec![1, 3], 5), want.as_bytes());
    }
    assert_unchanged(
        &r,
        &["if (line == \"-----BEGIN RSA PRIVATE KEY-----\") {\n    \"see docs\" +\n    \"x\"\n}"],
    );
}

/// A password told in prose, quoted: `The password is 'v'`, `ensure the
/// password is "v"`, `The default password for the user "u" is "v"`. A
/// state (`"required"`), a placeholder and an empty string stay.
#[test]
fn quoted_passwords_told_in_prose_are_masked() {
    let r = redactor();
    for v in ["Secret123", "centipede"] {
        assert_masks_value(
            &r,
            &[
                format!("The password is '{v}'"),
                format!("just fill in your mount point name, ensure the password is \"{v}\" and press the \"On\" button!"),
                format!("The default password for the user \"pyne-user\" is \"{v}\"."),
                format!("    ## Password is '{v}'"),
            ],
            v,
        );
    }
    assert_unchanged(
        &r,
        &[
            "the password is \"required\" for login",
            "The password is \"optional\".",
            "the password is 'your-password-here'",
            "if the password is \"\" we skip",
            "the password is stored in \"/etc/app/credentials\"",
        ],
    );
}

/// An AWS SSM SecureString parameter as `aws ssm get-parameters --output
/// yaml` prints it (`Name:`, `Type: SecureString`, `Value: v`): the type
/// says the value is a secret, whatever the parameter's name; a word
/// counts. A `String` parameter's value stays.
#[test]
fn ssm_secure_string_values_in_yaml_are_masked() {
    let r = redactor();
    for v in ["hunter2-Prod", "swordfish"] {
        assert_masks_value(
            &r,
            &[
                format!("Parameters:\n- ARN: arn:aws:ssm:us-east-1:123456789012:parameter/prod/db\n  DataType: text\n  Name: /prod/db\n  Type: SecureString\n  Value: {v}\n  Version: 3\n"),
                format!("Parameter:\n  Name: api\n  Type: 'SecureString'\n  Value: '{v}'\n"),
            ],
            v,
        );
    }
    assert_unchanged(
        &r,
        &[
            "- Name: /prod/app/mode\n  Type: String\n  Value: blue-green-7\n",
            "  Type: SecureString\n  Value: ${SSM_VALUE}\n",
            "security: enabled\nsecure: true\n",
        ],
    );
}

/// Code and listings of auth servers (Ory Kratos, NextAuth.js, Supabase
/// Auth, PocketBase, Casdoor, Devise) under secret names, left alone:
/// members read from objects (Go's `p.IDToken`, TypeScript's `config.secret!`
/// and `this.#auth.loginPassword`), a composite literal with its fields,
/// package versions, data files named in `ls` output, JSON's `\u0026`
/// before a name, Go raw strings spliced around an expression, an OAuth
/// provider's authorization URL, a header cell in HTML, comparisons and
/// compound assignments in minified code, a member of a one-letter
/// variable that reads as words, Go error variables, key prefixes being
/// concatenated, Ruby durations, format strings and an authorization
/// scheme the rules do not list before a word, TypeScript members' types
/// after `public`/`private`/`readonly`, JSON pointers (`"#/components/…"`)
/// and a WebAuthn credential's id (64 bytes in base64 after an id's name,
/// the shape of an Azure storage key), a Kotlin builder call under a
/// cookie's name, a string template of variables alone, ffmpeg's filter
/// options, a render pass, Phoenix's generator field specs
/// (`password:string:redact`), Elixir's `<>` after a key's prefix, a Swift
/// closure under a cookie's name, NTLM's signature alone and a run of `A`s
/// padding curl's test data, BuildKit's `--secret id=…,src=…` options,
/// and the AWS CLI's examples: paths and ARNs of 40 characters, shorthand
/// settings, lock, change, starting and sequence tokens; Helm's htpasswd
/// file's base name. Beside them,
/// secrets of the
/// same shapes stay masked, and password hashes whose `$` Docker Compose
/// doubled are masked.
#[test]
fn members_versions_data_files_and_spliced_strings_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "\tf.IDToken = p.IDToken",
            "\t\toauthResponse[\"id_token\"] = tokenResponse.IDToken",
            "              refresh_token: token.refresh_token!,",
            "          sessionToken: result.session.sessionToken!,",
            "      secret: config.secret!, // Asserted in assert.ts",
            "    password = this.#auth.loginPassword,",
            "\t\t\tcfg.Azure.SPAuth.ClientSecret = creds.AzSP.ClientSecret",
            "\t\tCredentials: identity.CredentialsWebAuthn{*credentialWebAuthn},",
            "        \"getpass\": \"^0.1.1\",",
            "      '@aws-sdk/credential-providers': ^3.188.0",
            "        \"minipass\": \"^3.1.1\",",
            "=== identity/.snapshots/TestWithDeclassifiedCredentials-case=saml-credential=webauthn.json",
            "  \"rel=\\\"next\\\",\\u003chttp://example.com?page_size=50\\u0026page_token=eyJvZmZzZXQiOiIxMDAiLCJ2IjoyfQ\\u003e\",",
            "\t\t\tres := get(t, adminTS, \"/identities?credentials_identifier=ProviderID:293b5d9b-1009-4600-a3e9-bd1845de22f2\", http.StatusOK)",
            "\t\t\t\tConfig:      sqlxx.JSONRawMessage(`{\"hashed_password\":\"` + string(p) + `\"}`),",
            "\t\t\t\t\"password\":\"` + strings.Repeat(\"a\", 72) + `\"",
            "x = '{\"password\":\"' + str(p) + '\"}'",
            "    authorization: \"https://app.clickup.com/api\",",
            "      <td>Authorization: TOKEN</td>",
            "onkeyup:e=>{e.key==`Backspace`&&n.config.secret===void 0&&(n.config.secret=``)}",
            "n.referrerPolicy=e.referrerPolicy),n.credentials=e.crossOrigin===`use-credentials`?`include`",
            "if(\":\"!=b||g){var w=Y(b,K);g?e.password+=w:e.username+=w}else g=!0}",
            "t.default=Object(s.OAS3ComponentWrapFactory)((function(e){",
            "\t\t\treturn validation.Errors{FieldNamePassword: ErrMustBeSystemAndHidden}",
            "\t\t\t\tresendKey := \"@limitPasswordResetEmail_\" + authRecord.Collection().Id + authRecord.Id",
            "\t\t\t\t\tc.Secret = \"new_\" + c.Secret",
            "  @@reset_password_within = 6.hours",
            "    swap Devise, reset_password_within: 1.hour do",
            "\t\treturn \"\", fmt.Errorf(\"failed to get access token: errcode=%d, errmsg=%s\",",
            "    response = client.get(\"/items\", headers={\"Authorization\": \"Non-existent testtoken\"})",
            "      Authorization: Requires the `getSettings` permission for the associated",
            "//\tAuthorization: algorithm Credential=accessKeyID/credScope, \\",
            "  public password: InputLocator",
            "  private readonly apiKey: ApiKeyService;",
            "      password: \"#/components/schemas/updateLoginFlowWithPasswordMethod\"",
            "\t_, res := hc.Do(json.RawMessage(`{\"session_token\": \"`+sess.Token+`\"}`))",
            "            \"id\": \"HQ4LaIJ9NiqS1r0CQpWY+K0gMvhOq4yk5BHuO/YlitcurSpBK7weDXOvBcuN4lvn6DAmjGfmj/J/6bpOmtdT8Q==\",",
            "    val cookie: Cookie = Cookie.Builder().build()",
            "    val usernameAndPassword = \"$username:$password\"",
            "                    overlayFilters.Add(\"overlay=eof_action=pass:repeatlast=0\");",
            "                        var hwScaleFilterFirstPass = \"vpp_rkrga=format=bgra:afbc=1\";",
            "      $ mix phx.gen.schema Accounts.Superhero superheroes secret_identity:redact password:string:redact",
            "                      secret:uuid:redact announcement_date:date alarm:time",
            "          csrf_token_query = \"&_csrf_token=\" <> URI.encode_www_form(conn.resp_body)",
            "        let cookie: String = self.cookies.map { (name, value) in",
            "          strstr(req->reqbuf, \"Authorization: NTLM TlRMTVNTUAAD\")) {",
            "Authorization: Basic %b64[AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA]b64%",
            "# Build with: docker build --secret id=npm_token,src=.npmrc .",
            "                \"arn\": \"arn:aws:servicecatalog:us-west-2:813737243517:/applications/03axw94pjfj3uan00tcgbrxnkw\",",
            "See http://docs.aws.amazon.com/AmazonS3/latest/API/RESTBucketPUTacl.html for details on custom ACLs",
            "=== awscli/customizations/s3/fileinfobuilder.py",
            "        --token-validity-units AccessToken=hours,IdToken=minutes,RefreshToken=days \\",
            "        --software-token-mfa-configuration Enabled=true \\",
            "                \"LockToken\":\"0674c84b-0304-47fe-8728-c6bff46af8fc\",",
            " aws waf update-rule --rule-id a123fae4-b567-8e90-1234-5ab67ac8ca90 --change-token 12cs345-67cd-890b-1cd2-c3a4567d89f1",
            "        --starting-token eyJOZXh0VG9rZW4iOiBudWxsLCAiYm90b190cnVuY2F0ZV9hbW91bnQiOiAxMH0=",
            "\ttestHtpasswdFileBasename = \"authtest.htpasswd\"",
        ],
    );
    // The same places with secrets in them.
    for (text, v) in [
        ("token = s.Ga5jyNq6kNfRMVQk2LY1j9iu", "Ga5jyNq6kNfRMVQk2LY1j9iu"),
        ("  pwd: !!str umwTCfK+=n47bL4cD", "umwTCfK+=n47bL4cD"),
        (
            "      <td>Authorization: Bearer Xk9mP2qL7vN4rT8wQz3</td>",
            "Xk9mP2qL7vN4rT8wQz3",
        ),
        (
            "\\u0026api_token=Xk9mP2qL7vN4rT8wQz3Hd\\u0026",
            "Xk9mP2qL7vN4rT8wQz3Hd",
        ),
        ("secret: config.Xk9mP2qL7vN4rT8wQz3Hd", "Xk9mP2qL7vN4rT8wQz3Hd"),
        ("password = Tr0ub4dor&3x!Q", "Tr0ub4dor&3x!Q"),
        ("\"password\": \"^7Gq!z2Lm#8\",", "^7Gq!z2Lm#8"),
        (
            "Authorization: Custom-Scheme Xk9mP2qL7vN4rT8wQz3Hd",
            "Xk9mP2qL7vN4rT8wQz3Hd",
        ),
        (
            "  public password: string = \"Xk9mP2qL7vN4rT8wQz3\"",
            "Xk9mP2qL7vN4rT8wQz3",
        ),
        (
            "  key: \"HQ4LaIJ9NiqS1r0CQpWY+K0gMvhOq4yk5BHuO/YlitcurSpBK7weDXOvBcuN4lvn6DAmjGfmj/J/6bpOmtdT8Q==\",",
            "HQ4LaIJ9NiqS1r0CQpWY",
        ),
        ("password = \"$Xk9mP2q:$L7vN4rT8\"", "Xk9mP2q"),
        (
            "x AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F y",
            "MLheAAAAAAA0%2BuSeid",
        ),
        ("mytool --secret Xk9mP2qL7vN4rT8wQz3", "Xk9mP2qL7vN4rT8wQz3"),
        (
            "PASSWORD=Xk9mP2qL7vN4rT8wQz3.htpasswd",
            "Xk9mP2qL7vN4rT8wQz3",
        ),
        (
            "id=x AccessToken=Xk9mP2qL7vN4rT8wQz3,IdToken=minutes",
            "Xk9mP2qL7vN4rT8wQz3",
        ),
        (
            "export AWS_SECRET_ACCESS_KEY=Zq9wJalrXUtnFEMI/K7MDENG/bPxRfiCYzKQa1b2",
            "Zq9wJalrXUtnFEMI",
        ),
        // Authelia's plain-text secret: a scheme, then the secret.
        ("  client_secret: '$plaintext$insecure_secret'", "insecure_secret"),
        ("Cookie: session=Xk9mP2qL7vN4rT8wQz3Hd", "Xk9mP2qL7vN4rT8wQz3Hd"),
        // Docker Compose doubles every `$` of a password hash.
        (
            "  - \"traefik.http.middlewares.auth.basicauth.users=test2:$$apr1$$d9hr9HBB$$4HxwgUir3HP4EsggP/QNo0\"",
            "4HxwgUir3HP4EsggP/QNo0",
        ),
        (
            "users: admin:$$2y$$05$$LqyWjlm6TOFdhx0AtKzeAOoPfOBIR0cEbVLWZP9nSGBQS7kNYyOmu",
            "LqyWjlm6TOFdhx0AtKzeAOoPfOBIR0cEbVLWZP9nSGBQS7kNYyOmu",
        ),
    ] {
        let out = r.redact(text);
        assert!(!out.contains(v), "{text} -> {out}");
    }
}

/// An `Authorization` header whose credentials are a list of auth-params
/// led by one that names no secret (OAuth 1's `realm=`, Digest's
/// `username=`; RFC 7235: a token68 credential has `=` only as padding) is
/// no token: the params that hold secrets are masked by their own names. A
/// single param that names a secret, a query string and token68 stay masked.
#[test]
fn authorization_auth_param_lists_mask_their_secret_params_only() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "...         'Authorization': 'OAuth realm=movies user, oauth_....'",
            "Authorization: Digest username=Mufasa, realm=testrealm",
            "Authorization: OAuth realm=photos",
        ],
    );
    let v = "Zq3K9vL2mN8pR4tX6yB1";
    for (input, want) in [
        (
            format!("Authorization: OAuth realm=Example,oauth_consumer_key={v}"),
            "Authorization: OAuth realm=Example,oauth_consumer_key=[REDACTED:generic-secret]",
        ),
        (
            format!("Authorization: Token token={v}"),
            "Authorization: Token [REDACTED:bearer-token]",
        ),
        (
            format!("Authorization: OAuth oauth_token={v}"),
            "Authorization: OAuth [REDACTED:bearer-token]",
        ),
        (
            "Authorization: Bearer dGhpcyBpcyBhIHRva2Vu=".to_string(),
            "Authorization: Bearer [REDACTED:bearer-token]",
        ),
        (
            format!("Authorization: SharedAccessSignature sr=https%3A%2F%2Fbus.servicebus.windows.net%2F&sig={v}%3D&se=1738205742&skn=RootManageSharedAccessKey"),
            "Authorization: SharedAccessSignature sr=https%3A%2F%2Fbus.servicebus.windows.net%2F&sig=[REDACTED:azure-sas-token]&se=1738205742&skn=RootManageSharedAccessKey",
        ),
    ] {
        assert_eq!(r.redact(&input), want, "{input}");
    }
}

/// `$$` escapes a `$` in Compose files and Makefiles: a healthcheck's
/// `--password="$$(cat /run/secrets/db-password)"` is a command's output and
/// `$${DB_PASS}` a variable, not secrets; `$$` before a random value is the
/// literal `$` Compose passes on, and the value is masked.
#[test]
fn compose_escaped_command_substitutions_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "      test: ['CMD-SHELL', 'mysqladmin ping -h 127.0.0.1 --password=\"$$(cat /run/secrets/db-password)\" --silent']",
            "mysql -p$$(cat /run/secrets/pw)",
            "DB_PASSWORD=$${DB_PASS}",
            "\tmysql --password=$$(cat .dbpass) < dump.sql",
        ],
    );
    assert_eq!(
        r.redact("password: $$x9Kq2LmP7vR4"),
        "password: [REDACTED:generic-secret]"
    );
}

/// nginx's directives that pass a request on (`fastcgi_pass`, `uwsgi_pass`,
/// `scgi_pass`, `grpc_pass`, `memcached_pass`; `proxy_pass` to a URL made of
/// variables) name an address, not a password; a proxy's `PROXY_PASS`
/// still holds one.
#[test]
fn nginx_pass_directives_are_no_passwords() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "                fastcgi_pass  unix:/var/run/php-fpm/wordpress.sock;",
            "    fastcgi_pass   php-fpm:9000;",
            "    uwsgi_pass  unix:///tmp/uwsgi.sock;",
            "    scgi_pass   localhost:4000;",
            "    grpc_pass   grpc://backend:50051;",
            "    memcached_pass  cache-1:11211;",
            "    proxy_pass  $scheme://$host;",
        ],
    );
    assert_eq!(
        r.redact("PROXY_PASS=Zq3K9vL2mN8p"),
        "PROXY_PASS=[REDACTED:generic-secret]"
    );
    assert_eq!(
        r.redact("proxy_password: Zq3K9vL2mN8p"),
        "proxy_password: [REDACTED:generic-secret]"
    );
}

/// An ISO 8601 date and time under a secret's name says when it was set
/// (`adminPasswordMtime: "2006-01-02T15:04:05Z"`, bitnami's Argo CD chart):
/// no secret. A date alone stays a value (people pick dates).
#[test]
fn iso_timestamps_under_secret_names_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "    argocdServerAdminPasswordMtime: \"2006-01-02T15:04:05Z\"",
            "secret: 2006-01-02T15:04:05Z",
            "password: 2024-05-01T10:00+0200",
            "token: \"2024-05-01T10:00:00.123456789Z\"",
            "api_key_rotated = '2024-05-01 10:00:00+02:00'",
        ],
    );
    assert_eq!(
        r.redact("password: 1985-04-12"),
        "password: [REDACTED:generic-secret]"
    );
    assert_eq!(
        r.redact("password: 2024-05-01T10:00:00Zq"),
        "password: [REDACTED:generic-secret]"
    );
}

#[test]
fn cloud_resource_names_under_secret_names_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "        --kms-key=projects/*/locations/*/keyRings/*/cryptoKeys/*",
            "  --seed-phrase-reference-secret=projects/my-project/secrets/my-seed-phrase",
            "secret: projects/PROJECT/secrets/SECRET/versions/VERSION",
            "api_key = \"projects/123456789012/secrets/stripe-key/versions/latest\"",
            "  kmsKeyName: projects/acme-prod/locations/us-east4/keyRings/ring-1/cryptoKeys/db",
            "      `--validation-shared-key='secret_version=projects/PROJECT/secrets/SECRET/versions/VERSION'`",
        ],
    );
    // Secrets with slashes: base64 runs, too few segments, no collections.
    for (text, masked) in [
        (
            "secret: wJalrXUtnFEMI/K7MDENG/bPxRfiCYq2hTz8aWkL",
            "secret: [REDACTED:generic-secret]",
        ),
        (
            "password: pass/Wq8zR2vK9tLm3xNb/word/7Hd",
            "password: [REDACTED:generic-secret]",
        ),
        (
            "api_key = \"projects/Kx9mQ2vL8pZ4rT7w/secrets/x\"",
            "api_key = \"[REDACTED:generic-secret]\"",
        ),
    ] {
        assert_eq!(r.redact(text), masked, "{text}");
    }
}

#[test]
fn words_after_a_pass_flag_or_cargo_login_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "$ cargo dev new_lint --name=foo_functions --pass=early --category=pedantic",
            "we set --pass=late in this command",
            "Then run the cargo login command and paste your API key.",
            "by cargo login and cargo logout when using the credential process",
        ],
    );
    // Random values still count, and words after a password's full name.
    for (text, masked) in [
        (
            "tool --pass=Qx8vR2mK9zLp4wTn",
            "tool --pass=[REDACTED:generic-secret]",
        ),
        (
            "cargo login cio5Wq8zR2vK9tLm3xNbY7Hd4Jf6Gc1Pa",
            "cargo login [REDACTED:generic-secret]",
        ),
        ("DB_PASS=sunrise", "DB_PASS=[REDACTED:generic-secret]"),
        ("--password=sunrise", "--password=[REDACTED:generic-secret]"),
    ] {
        assert_eq!(r.redact(text), masked, "{text}");
    }
}

/// `/etc/nsswitch.conf` lists the modules of the `passwd` database (a word
/// after `passwd:` there is no password); a word under a password's name
/// elsewhere still is.
#[test]
fn nsswitch_sources_of_the_passwd_database_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "passwd:         files systemd",
            "passwd:         files",
            "passwd: compat\ngroup: compat\nshadow: compat",
            "passwd:     sss files",
            "passwd: files ldap [NOTFOUND=return]",
        ],
    );
    for (text, masked) in [
        ("passwd: sunrise", "passwd: [REDACTED:generic-secret]"),
        ("password: files", "password: [REDACTED:generic-secret]"),
        (
            "passwd: Qx8vR2mK9zLp4wTn",
            "passwd: [REDACTED:generic-secret]",
        ),
    ] {
        assert_eq!(r.redact(text), masked, "{text}");
    }
}

#[test]
fn words_joined_by_escaped_line_breaks_are_no_secrets() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            r#"{"body":"authenticated with either the --token option\nor using cargo-login(1)."}"#,
            r#"JSON.parse('{"t":"the password\\nfield is required"}')"#,
            r#"printf("api_key\tvalue\n");"#,
            r#""the token may be\npassed with the --token command-line\nflag or""#,
        ],
    );
    // A random value before an escape is still one (the mask runs on to
    // the end of the string, as the value's pattern reads it).
    assert_eq!(
        r.redact(r#"{"log":"--token Qx8vR2mK9zLp4wTnYb7H\nnext"}"#),
        r#"{"log":"--token [REDACTED:generic-secret]"}"#
    );
}

#[test]
fn vendor_prefixes_inside_a_base64_blob_are_no_tokens() {
    let r = redactor();
    let run = "Wq8zR2vK9tLm3xNbY7Hd4Jf6Gc1Pa0Se";
    let square = format!("EAAA{run}Kd8sQ2");
    let twitter = format!("{}B{run}{run}{run}", "A".repeat(24));
    assert_unchanged(
        &r,
        &[
            // A search index's or a font's base64, as a bundle embeds it.
            &format!("x=\"AdDcBAEgGAQD3AAEAAQAA+F/{square}/JYyAAAyBkFAsABAHD\""),
            &format!("src: url(data:font/woff2;base64,d09GMgABAAAAAAu4AA0+{twitter}+AAAAAAAA)"),
            &format!("[\"AAAAAh5xAABKcQAAASyuAAAA\",\"{twitter}=\"]"),
            &format!("\"AAEbXQAAAnAWAAA/{square}==\""),
            // Random letters holding `PwD` before a blob's padding and a
            // quote, inside a run or after its `/`.
            "[\"AAEb/hJPwDgSQUA4koBAOpKCwAqSwEAcEsbAN5LAQAyTBEA==\")rd_(\"e18746d1724\"",
            "[\"QwsAXUQRAPFFEwAhRgsAX0YHAM5HAwCISA8AXkkBAHhJPwDgSQUA4koBAOpKCwAqSwEAcEsbAN5LAQAyTBEA==\")rd_(\"e18746d1724\"",
        ],
    );
    // The same tokens on their own are masked.
    for text in [
        format!("Authorization: Bearer {square}"),
        format!("TWITTER_BEARER_TOKEN={twitter}"),
        format!("token {twitter} expires"),
    ] {
        let out = r.redact(&text);
        assert!(out.contains("[REDACTED:"), "{text} -> {out}");
        assert!(!out.contains(run), "{text} -> {out}");
    }
}

#[test]
fn a_raw_hash_inside_a_url_password_is_masked_with_it() {
    let r = redactor();
    for text in [
        "connecting to mongodb+srv://admin:mQCyvO44#pdL7Y@cluster0.abcde.mongodb.net/test",
        "DATABASE_URL=postgres://app:Xk#9vR2mLq@db.internal:5432/app",
    ] {
        let out = r.redact(text);
        assert!(out.contains(":[REDACTED:url-password]@"), "{text} -> {out}");
    }
    // A fragment is no password: no `user:` before it.
    assert_unchanged(
        &r,
        &["see https://docs.example.com/#/install:step@2 for details"],
    );
}

#[test]
fn a_password_ending_in_dollar_and_capitals_is_no_variable() {
    let r = redactor();
    let v = "WxYLwx72$TVDPH";
    assert_masks_value(
        &r,
        &[
            format!("sshpass -p '{v}' ssh deploy@host"),
            format!("DB_PASSWORD='{v}'"),
        ],
        v,
    );
    // A trailing variable after nothing, a separator or a word stays.
    assert_unchanged(
        &r,
        &[
            "sshpass -p '$SSH_PASS' ssh deploy@host",
            "ftp_password = anonymous:$FROM_EMAIL",
            "DB_PASSWORD='prefix$DB_SUFFIX'",
        ],
    );
}

#[test]
fn lob_beamer_and_twitch_tokens_are_masked_near_their_vendor_name() {
    let r = redactor();
    for (text, id) in [
        (
            "lob: live_7cc62b61f3dcb09bbceb3f4a70b20426ad9",
            "lob-api-key",
        ),
        (
            "Lob.configure(\"test_pub_7cc62b61f3dcb09bbceb3f4a70b2042\")",
            "lob-api-key",
        ),
        (
            "beamer: b_pvV9JWz6W8UUbQ9_5b8jNxDowwHOkUaCQbgWvn-5S=b6",
            "beamer-api-token",
        ),
        ("twitch: n0bu3qgoq8sb7hwjxbsllmbyc8fvhc", "twitch-api-token"),
    ] {
        let out = r.redact(text);
        assert!(out.contains(&format!("[REDACTED:{id}]")), "{text} -> {out}");
    }
    // Not without the vendor's word, nor after `blob`/`global`, nor a
    // word for Twitch.
    assert_unchanged(
        &r,
        &[
            "blob: live_7cc62b61f3dcb09bbceb3f4a70b20426ad9",
            "global = \"test_7cc62b61f3dcb09bbceb3f4a70b20426ad9\"",
            "twitch_username: averylongusernamewithoutdigit",
            "twitch: https://www.twitch.tv/somechannel",
        ],
    );
}

#[test]
fn a_password_and_its_salt_given_to_a_key_derivation_are_no_setting() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "scrypt('password', 'salt', 64, (err, derivedKey) => {",
            "const key1 = scryptSync('password', 'salt', 64);",
            "const key = crypto.pbkdf2Sync('secret', 'NaCl9xQ2vL8p', 100000, 64, 'sha512');",
        ],
    );
    // A setter or a lookup with a default still gives the value.
    for text in [
        "os.getenv('PASSWORD', 'letmein')",
        "define('DB_PASSWORD', 'Xk9mQ2vL8pZ4');",
        "System.setProperty(\"API_TOKEN\", \"Xk9mQ2vL8pZ4wT7r\");",
    ] {
        assert!(r.redact(text).contains("[REDACTED:"), "{text}");
    }
}

#[test]
fn a_gpg_keys_fingerprint_is_no_secret() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "            \"GPG_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D\",",
            "ENV GPG_KEY 7169605F62C751356D054A26A821E680E5FA6305",
            "pgp_key: 3AA5C34371567BD2",
        ],
    );
    // Forty hex digits under other key names may be an HMAC key.
    assert!(r
        .redact("WEBHOOK_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D")
        .contains("[REDACTED:"));
}

/// A builder's or client's method named by the secret (`.password("v")`,
/// `Client.access_token('v')`), an environment-style `*_PAT` name, and a
/// value on the line below its name's `=` (a one-line heredoc, a shell line
/// continuation): the value is masked; prompts, globs, patterns, other
/// methods and multi-word heredoc bodies are not.
#[test]
fn builder_methods_pat_names_and_values_below_are_masked() {
    let r = redactor();
    let v = "Zq8vLm2NwT5xKp9sHq7v";
    for text in [
        format!("PgConnectOptions::new().host(\"db\").password(\"{v}\")\n"),
        format!("client = asana.Client.access_token('{v}')\n"),
        format!("Client.builder().apiKey(\"{v}\").build();\n"),
        format!("http.get(url).bearer_auth(\"{v}\")\n"),
        format!("GITHUB_PAT={v}\n"),
        format!("  AZURE_DEVOPS_EXT_PAT: \"{v}\"\n"),
        format!("{{\"GH_PAT\": \"{v}\"}}\n"),
        format!("  password = <<EOT\n{v}\nEOT\n"),
        format!("secret_key = <<-\"EOF\"\n    {v}\n    EOF\n"),
        format!("export API_TOKEN=\\\n  {v}\n"),
        format!("DB_PASSWORD=\\\r\n  \"{v}\"\r\n"),
    ] {
        assert_eq!(
            r.redact(&text),
            text.replace(v, "[REDACTED:generic-secret]"),
            "{text}"
        );
    }
    assert_unchanged(
        &r,
        &[
            "password = getpass.getpass('Password: ')\n",
            "const again = await read.password('       Again:     ')\n",
            "t.pass(\"tests/pass/*.rs\");\n",
            "if private_key_path.endswith('.p12'):\n",
            "lexer.token(\"(\")\n",
            "k8s.secret(\"my-secret-name\")\n",
            "cfg.password(\"${DB_PASSWORD}\")\n",
            "conn.auth('jdoe', other)\n",
            "const SHORT_PAT: &str = \"some/**/needle.txt\";\n",
            "_UNRESERVED_PAT = r\"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-~\"\n",
            "glob_pat = \"Zq8vLm2NwT5xKp9sHq7v\"\n",
            "description = <<EOT\nThe token of the deploy user, rotated weekly.\nEOT\n",
            "token_count=\\\n  42\n",
            "s = \"password=\\\"\" + v\n",
        ],
    );
}

/// A short random value at the end of a phrase that names a secret: ten
/// bytes with a repeated character read as random as a hand-over's do
/// (entropy below 3, as 1 in ~20 random 10-character keys has).
#[test]
fn short_random_values_ending_phrases_are_masked() {
    let r = redactor();
    for v in ["g66XRxjT6%", "5J5qC4jCjY"] {
        let text = format!("Token (will not be shown again): {v}\n");
        assert_eq!(
            r.redact(&text),
            "Token (will not be shown again): [REDACTED:generic-secret]\n",
            "{text}"
        );
    }
    assert_unchanged(
        &r,
        &[
            "Token for request: abcdefgh\n",
            "Password for the admin user: changeme\n",
            "Token expires at: 2024-06-01T00:00:00Z\n",
        ],
    );
}

/// A relative path under a private key's name is no key (every private key
/// format holds 32 bytes or more): it stays; a short random value under the
/// name and a real key are masked.
#[test]
fn private_key_paths_stay() {
    let r = redactor();
    assert_unchanged(
        &r,
        &[
            "$ gcloud compute ssl-certificates create my-cert --certificate=foo/cert --private-key=foo/pk\n",
            "ansible-playbook site.yml --private-key=keys/deploy_ed25519\n",
        ],
    );
    for (text, want) in [
        (
            "privateKey: \"Xk2/mQp9RtVw3LzYa8BcD\"\n",
            "privateKey: \"[REDACTED:generic-secret]\"\n",
        ),
        (
            "PrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n",
            "PrivateKey = [REDACTED:generic-secret]\n",
        ),
    ] {
        assert_eq!(r.redact(text), want, "{text}");
    }
}

/// A CLI prompt that shows the current value in brackets, answered with a
/// secret (`aws configure`): the answer is masked; a region's is not, nor
/// code that indexes a `key`.
#[test]
fn prompts_with_a_current_value_are_masked() {
    let r = redactor();
    let v = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQWERTYKEY9";
    for prompt in [
        "AWS Secret Access Key [None]: ",
        "AWS Secret Access Key [****************KEY9]: ",
        "API token [none]: ",
        "Password [hidden]: ",
    ] {
        assert_eq!(
            r.redact(&format!("{prompt}{v}\n")),
            format!("{prompt}[REDACTED:generic-secret]\n")
        );
    }
    assert_unchanged(
        &r,
        &[
            "Default region name [None]: us-east-1\n",
            "Default output format [None]: json\n",
            "let first = key [0];\n",
        ],
    );
}

/// The proptest regression `filler = "No"` of
/// `prop_embedded_secret_never_survives`: a word written apart before a
/// name qualifies it away only before a spaced operator or a colon (`Next
/// page token: v`); before an `=` joined to the name, `name=value` is a
/// field of its own whatever precedes it.
#[test]
fn a_word_before_a_joined_assignment_does_not_qualify_it() {
    let r = redactor();
    let v = "z7m+!Tc^ePTRDi5pX~A";
    for word in ["No", "no", "NO", "max", "public", "Next page"] {
        let text = format!("{word} password={v} \n");
        assert_eq!(
            r.redact(&text),
            format!("{word} password=[REDACTED:generic-secret] \n"),
            "{text}"
        );
    }
    assert_unchanged(
        &r,
        &[
            "Next page token: CiAKGjBpNDd2Nmp3Zm9ycWxh\n",
            "max token = 5\n",
            "max token=5\n",
        ],
    );
}
