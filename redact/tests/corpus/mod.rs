//! A labelled corpus of realistic tool output: secrets of every built-in family
//! in many contexts, and clean look-alike records. Generated from a fixed seed.

#![allow(dead_code)]

/// SplitMix64: small, fixed-seed, good enough for test data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

pub const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
pub const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
pub const DIGITS: &str = "0123456789";
pub const HEX: &str = "0123456789abcdef";
pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
pub const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
pub const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
pub const UPPER_D: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
pub const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
pub const LOWER_DIGITS: &str = "abcdefghijklmnopqrstuvwxyz0123456789";

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    pub fn chars(&mut self, alphabet: &str, n: usize) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n).map(|_| a[self.below(a.len())]).collect()
    }
    pub fn chars_n(&mut self, alphabet: &str, lo: usize, hi: usize) -> String {
        let n = self.range(lo, hi);
        self.chars(alphabet, n)
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

pub fn b64(data: &[u8], url: bool, pad: bool) -> String {
    let table: Vec<char> = if url { B64URL } else { B64 }.chars().collect();
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let k = chunk.len() + 1;
        for i in 0..4 {
            if i < k {
                out.push(table[((n >> (18 - 6 * i)) & 63) as usize]);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn base62(mut n: u32, width: usize) -> String {
    let a: Vec<char> = ALNUM.chars().collect();
    // GitHub encodes with 0-9A-Za-z.
    let digits: Vec<char> = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
        .chars()
        .collect();
    let _ = a;
    let mut s = Vec::new();
    while n > 0 {
        s.push(digits[(n % 62) as usize]);
        n /= 62;
    }
    while s.len() < width {
        s.push('0');
    }
    s.iter().rev().collect()
}

pub fn percent_encode(v: &str) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn json_escape(v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// How a family's secret is used in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A token with a distinctive format (found without context).
    Token,
    /// A token that needs its name or surroundings (AWS secret, Azure key, Twilio auth token…).
    ContextToken,
    /// A human password.
    Password,
    /// A URL with `user:PASS@`.
    Url,
    /// An `Authorization` header value (`Bearer X` / `Basic X`).
    Header,
    /// A PEM private-key block.
    Pem,
    /// A Docker config `auth` value.
    DockerAuth,
}

/// A generated secret: the text to embed and the substrings that must not survive.
#[derive(Clone, Debug)]
pub struct Secret {
    pub value: String,
    pub must_hide: Vec<String>,
}

impl Secret {
    fn plain(v: String) -> Secret {
        Secret {
            must_hide: vec![v.clone()],
            value: v,
        }
    }
}

pub struct Family {
    pub name: &'static str,
    pub kind: Kind,
    /// Environment-style name (`OPENAI_API_KEY`).
    pub env: &'static str,
    /// Config key (`api_key`).
    pub key: &'static str,
    /// HTTP header that carries it (`None`: `Authorization: Bearer`).
    pub header: Option<&'static str>,
    pub gen: fn(&mut Rng) -> Secret,
}

fn github_classic(r: &mut Rng) -> Secret {
    let prefix = r
        .pick(&["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
        .to_string();
    let body = r.chars(ALNUM, 30);
    let sum = base62(crc32(body.as_bytes()), 6);
    Secret::plain(format!("{prefix}{body}{sum}"))
}

fn discord_bot(r: &mut Rng) -> Secret {
    // User ids of 17 to 20 digits.
    let n = r.range(16, 19);
    let id = format!("{}{}", r.range(1, 9), r.chars(DIGITS, n));
    let first = b64(id.as_bytes(), true, false);
    let ts = r.chars(B64URL, 6);
    let mac_len = *r.pick(&[27, 38]);
    let mac = r.chars(B64URL, mac_len);
    Secret::plain(format!("{first}.{ts}.{mac}"))
}

fn jwt(r: &mut Rng) -> Secret {
    let header = b64(br#"{"alg":"HS256","typ":"JWT"}"#, true, false);
    let sub = r.chars(DIGITS, 8);
    let payload = format!(
        r#"{{"sub":"{sub}","name":"ci-bot","iat":1716239022,"exp":1716242622,"scope":"repo:write"}}"#
    );
    let payload = b64(payload.as_bytes(), true, false);
    let sig = b64(&r.bytes(32), true, false);
    Secret::plain(format!("{header}.{payload}.{sig}"))
}

fn pem(r: &mut Rng) -> Secret {
    let label = *r.pick(&[
        "RSA PRIVATE KEY",
        "PRIVATE KEY",
        "EC PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
        "DSA PRIVATE KEY",
    ]);
    let nlines = r.range(4, 14);
    let mut lines: Vec<String> = (0..nlines).map(|_| r.chars(B64, 64)).collect();
    let last = r.chars_n(B64, 8, 60);
    lines.push(format!("{last}=="));
    let mut body = String::new();
    if label == "RSA PRIVATE KEY" && r.below(3) == 0 {
        body.push_str("Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,");
        body.push_str(&r.chars("0123456789ABCDEF", 32));
        body.push_str("\n\n");
    }
    if label == "PGP PRIVATE KEY BLOCK" {
        body.push_str("Version: GnuPG v2\n\n");
    }
    body.push_str(&lines.join("\n"));
    let value = format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----");
    Secret {
        value,
        must_hide: lines,
    }
}

fn docker_auth(r: &mut Rng) -> Secret {
    let user = r
        .pick(&["ci-bot", "deploy", "octocat", "jenkins", "gitlab-ci-token"])
        .to_string();
    let pass = if r.below(2) == 0 {
        format!("dckr_pat_{}", r.chars(B64URL, 27))
    } else {
        r.chars_n(ALNUM, 16, 32)
    };
    Secret::plain(b64(format!("{user}:{pass}").as_bytes(), false, true))
}

fn basic_auth(r: &mut Rng) -> Secret {
    let user = r
        .pick(&["admin", "svc-deploy", "grafana", "api"])
        .to_string();
    let pass = r.chars_n(ALNUM, 12, 24);
    Secret::plain(b64(format!("{user}:{pass}").as_bytes(), false, true))
}

/// A password hash as `crypt(3)`, htpasswd, LDAP, Django or Werkzeug write
/// it: the digest must be hidden (the scheme and salt may stay).
fn password_hash(r: &mut Rng) -> Secret {
    let crypt = format!("./{ALNUM}");
    let b64 = format!("{ALNUM}+/");
    let (head, digest) = match r.below(10) {
        0 => (
            format!("${}$1{}$", r.pick(&["2a", "2b", "2y"]), r.range(0, 9)),
            r.chars(&crypt, 53),
        ),
        1 => (
            format!("$6${}$", r.chars_n(&crypt, 8, 16)),
            r.chars(&crypt, 86),
        ),
        2 => (
            format!("$5$rounds=5000${}$", r.chars(&crypt, 16)),
            r.chars(&crypt, 43),
        ),
        3 => (
            format!("${}${}$", r.pick(&["1", "apr1"]), r.chars(&crypt, 8)),
            r.chars(&crypt, 22),
        ),
        4 => (
            format!("$y$j9T${}$", r.chars(&crypt, 22)),
            r.chars(&crypt, 43),
        ),
        5 => (
            format!("$argon2id$v=19$m=65536,t=3,p=4${}$", r.chars(&b64, 22)),
            r.chars(&b64, 43),
        ),
        6 => (
            format!("pbkdf2_sha256$600000${}$", r.chars(ALNUM, 22)),
            format!("{}=", r.chars(&b64, 43)),
        ),
        7 => (
            format!(
                "{}${}$",
                r.pick(&["pbkdf2:sha256:600000", "scrypt:32768:8:1"]),
                r.chars(ALNUM, 16)
            ),
            r.chars(HEX, 64),
        ),
        // Every `$` doubled, as Docker Compose files escape them.
        8 if r.below(2) == 0 => (
            format!("$$apr1$${}$$", r.chars(&crypt, 8)),
            r.chars(&crypt, 22),
        ),
        8 => (format!("$$2y$$0{}$$", r.range(4, 9)), r.chars(&crypt, 53)),
        _ => (
            r.pick(&["{SSHA}", "{SSHA512}"]).to_string(),
            r.chars(&b64, 32),
        ),
    };
    Secret {
        value: format!("{head}{digest}"),
        must_hide: vec![digest],
    }
}

pub fn password(r: &mut Rng) -> String {
    loop {
        let n = r.range(10, 22);
        let p = r.chars(
            "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!%^*-_+=?~",
            n,
        );
        let classes = [
            p.chars().any(|c| c.is_ascii_lowercase()),
            p.chars().any(|c| c.is_ascii_uppercase()),
            p.chars().any(|c| c.is_ascii_digit()),
        ];
        // Tools read a leading `-` as a flag: such passwords are not used.
        // A leading `=` makes `password=` read `password==` or `password===`,
        // a comparison (left as such: see the crate docs): not used either.
        if classes.iter().all(|&x| x) && !p.ends_with(['.', '-', '_']) && !p.starts_with(['-', '='])
        {
            return p;
        }
    }
}

pub fn families() -> Vec<Family> {
    vec![
        Family {
            name: "aws-access-key-id",
            kind: Kind::Token,
            env: "AWS_ACCESS_KEY_ID",
            key: "aws_access_key_id",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.pick(&["AKIA", "ASIA"]),
                    r.chars(BASE32, 16)
                ))
            },
        },
        Family {
            name: "aws-secret-access-key",
            kind: Kind::ContextToken,
            env: "AWS_SECRET_ACCESS_KEY",
            key: "aws_secret_access_key",
            header: None,
            gen: |r| Secret::plain(b64(&r.bytes(30), false, false)),
        },
        Family {
            name: "aws-session-token",
            kind: Kind::Token,
            env: "AWS_SESSION_TOKEN",
            key: "aws_session_token",
            header: Some("X-Amz-Security-Token"),
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.pick(&["IQoJb3JpZ2luX2VjE", "FwoGZXIvYXdzE"]),
                    r.chars_n(B64, 300, 420)
                ))
            },
        },
        Family {
            name: "gcp-api-key",
            kind: Kind::Token,
            env: "GOOGLE_API_KEY",
            key: "api_key",
            header: Some("X-Goog-Api-Key"),
            gen: |r| Secret::plain(format!("AIza{}", r.chars(B64URL, 35))),
        },
        Family {
            name: "azure-storage-key",
            kind: Kind::ContextToken,
            env: "AZURE_STORAGE_KEY",
            key: "storage_key",
            header: None,
            gen: |r| Secret::plain(b64(&r.bytes(64), false, true)),
        },
        Family {
            name: "github-token",
            kind: Kind::Token,
            env: "GITHUB_TOKEN",
            key: "token",
            header: None,
            gen: github_classic,
        },
        Family {
            name: "github-fine-grained-token",
            kind: Kind::Token,
            env: "GH_TOKEN",
            key: "github_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "github_pat_{}_{}",
                    r.chars(ALNUM, 22),
                    r.chars(ALNUM, 59)
                ))
            },
        },
        Family {
            name: "gitlab-token",
            kind: Kind::Token,
            env: "GITLAB_TOKEN",
            key: "private_token",
            header: Some("PRIVATE-TOKEN"),
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.pick(&["glpat-", "gldt-", "glrt-", "glptt-"]),
                    r.chars(B64URL, 20)
                ))
            },
        },
        Family {
            name: "npm-token",
            kind: Kind::Token,
            env: "NPM_TOKEN",
            key: "_authToken",
            header: None,
            gen: |r| Secret::plain(format!("npm_{}", r.chars(ALNUM, 36))),
        },
        Family {
            name: "pypi-token",
            kind: Kind::Token,
            env: "TWINE_PASSWORD",
            key: "password",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "pypi-AgEIcHlwaS5vcmc{}",
                    r.chars_n(B64URL, 120, 180)
                ))
            },
        },
        Family {
            name: "docker-auth",
            kind: Kind::DockerAuth,
            env: "DOCKER_AUTH",
            key: "auth",
            header: None,
            gen: docker_auth,
        },
        Family {
            name: "docker-token",
            kind: Kind::Token,
            env: "DOCKERHUB_TOKEN",
            key: "token",
            header: None,
            gen: |r| Secret::plain(format!("dckr_pat_{}", r.chars(B64URL, 27))),
        },
        Family {
            name: "slack-token",
            kind: Kind::Token,
            env: "SLACK_BOT_TOKEN",
            key: "bot_token",
            header: None,
            gen: |r| {
                let p = *r.pick(&["xoxb", "xoxp", "xoxa", "xoxr", "xoxs"]);
                Secret::plain(format!(
                    "{p}-{}-{}-{}",
                    r.chars(DIGITS, 12),
                    r.chars(DIGITS, 13),
                    r.chars(ALNUM, 24)
                ))
            },
        },
        Family {
            name: "slack-app-token",
            kind: Kind::Token,
            env: "SLACK_APP_TOKEN",
            key: "app_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "xapp-1-A{}-{}-{}",
                    r.chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
                    r.chars(DIGITS, 13),
                    r.chars(HEX, 64)
                ))
            },
        },
        Family {
            name: "slack-webhook",
            kind: Kind::Token,
            env: "SLACK_WEBHOOK_URL",
            key: "webhook_url",
            header: None,
            gen: |r| {
                let path = format!(
                    "T{}/B{}/{}",
                    r.chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
                    r.chars("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", 10),
                    r.chars(ALNUM, 24)
                );
                Secret {
                    value: format!("https://hooks.slack.com/services/{path}"),
                    must_hide: vec![path],
                }
            },
        },
        Family {
            name: "stripe-key",
            kind: Kind::Token,
            env: "STRIPE_SECRET_KEY",
            key: "secret_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.pick(&["sk_live_", "sk_test_", "rk_live_"]),
                    r.chars_n(ALNUM, 24, 99)
                ))
            },
        },
        Family {
            name: "stripe-webhook-secret",
            kind: Kind::Token,
            env: "STRIPE_WEBHOOK_SECRET",
            key: "webhook_secret",
            header: None,
            gen: |r| Secret::plain(format!("whsec_{}", r.chars(ALNUM, 32))),
        },
        Family {
            name: "twilio-api-key",
            kind: Kind::Token,
            env: "TWILIO_API_KEY",
            key: "api_key_sid",
            header: None,
            gen: |r| Secret::plain(format!("SK{}", r.chars(HEX, 32))),
        },
        Family {
            name: "twilio-auth-token",
            kind: Kind::ContextToken,
            env: "TWILIO_AUTH_TOKEN",
            key: "auth_token",
            header: None,
            gen: |r| Secret::plain(r.chars(HEX, 32)),
        },
        Family {
            name: "sendgrid-api-key",
            kind: Kind::Token,
            env: "SENDGRID_API_KEY",
            key: "api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "SG.{}.{}",
                    r.chars(B64URL, 22),
                    r.chars(B64URL, 43)
                ))
            },
        },
        Family {
            name: "discord-bot-token",
            // Found by its format alone (the base64 of the bot's user id).
            kind: Kind::Token,
            env: "DISCORD_BOT_TOKEN",
            key: "bot_token",
            header: None,
            gen: discord_bot,
        },
        Family {
            name: "discord-webhook",
            kind: Kind::Token,
            env: "DISCORD_WEBHOOK_URL",
            key: "webhook",
            header: None,
            gen: |r| {
                let token = r.chars(B64URL, 68);
                Secret {
                    value: format!(
                        "https://discord.com/api/webhooks/{}/{token}",
                        r.chars(DIGITS, 19)
                    ),
                    must_hide: vec![token],
                }
            },
        },
        Family {
            name: "openai-api-key",
            kind: Kind::Token,
            env: "OPENAI_API_KEY",
            key: "openai_api_key",
            header: None,
            gen: |r| match r.below(3) {
                0 => Secret::plain(format!(
                    "sk-{}T3BlbkFJ{}",
                    r.chars(ALNUM, 20),
                    r.chars(ALNUM, 20)
                )),
                1 => Secret::plain(format!(
                    "sk-proj-{}T3BlbkFJ{}",
                    r.chars(B64URL, 74),
                    r.chars(B64URL, 74)
                )),
                _ => Secret::plain(format!(
                    "sk-svcacct-{}T3BlbkFJ{}",
                    r.chars(B64URL, 74),
                    r.chars(B64URL, 74)
                )),
            },
        },
        Family {
            name: "anthropic-api-key",
            kind: Kind::Token,
            env: "ANTHROPIC_API_KEY",
            key: "api_key",
            header: Some("x-api-key"),
            gen: |r| {
                Secret::plain(format!(
                    "sk-ant-{}-{}AA",
                    r.pick(&["api03", "admin01"]),
                    r.chars(B64URL, 93)
                ))
            },
        },
        Family {
            name: "huggingface-token",
            kind: Kind::Token,
            env: "HF_TOKEN",
            key: "hf_token",
            header: None,
            gen: |r| Secret::plain(format!("hf_{}", r.chars(&format!("{UPPER}{LOWER}"), 34))),
        },
        Family {
            name: "jwt",
            kind: Kind::Token,
            env: "ID_TOKEN",
            key: "id_token",
            header: None,
            gen: jwt,
        },
        Family {
            name: "private-key",
            kind: Kind::Pem,
            env: "PRIVATE_KEY",
            key: "private_key",
            header: None,
            gen: pem,
        },
        Family {
            name: "url-password",
            kind: Kind::Url,
            env: "DATABASE_URL",
            key: "url",
            header: None,
            gen: |r| Secret::plain(password(r)),
        },
        Family {
            name: "bearer-token",
            kind: Kind::Header,
            env: "API_TOKEN",
            key: "access_token",
            header: None,
            // Opaque access tokens: base64url with an occasional dot.
            gen: |r| {
                let a = r.chars_n(&format!("{ALNUM}-_"), 20, 40);
                let b = r.chars_n(ALNUM, 12, 24);
                Secret::plain(format!("{a}.{b}"))
            },
        },
        Family {
            name: "basic-auth",
            kind: Kind::Header,
            env: "BASIC_AUTH",
            key: "authorization",
            header: None,
            gen: basic_auth,
        },
        Family {
            name: "generic-password",
            kind: Kind::Password,
            env: "DB_PASSWORD",
            key: "password",
            header: None,
            gen: |r| Secret::plain(password(r)),
        },
        Family {
            name: "generic-api-key",
            kind: Kind::ContextToken,
            env: "SERVICE_API_KEY",
            key: "api_key",
            header: Some("X-API-Key"),
            gen: |r| Secret::plain(r.chars_n(ALNUM, 24, 48)),
        },
        Family {
            name: "generic-client-secret",
            kind: Kind::ContextToken,
            env: "OAUTH_CLIENT_SECRET",
            key: "client_secret",
            header: None,
            gen: |r| {
                Secret::plain(
                    r.chars(&format!("{ALNUM}-_~"), 40)
                        .trim_end_matches(['-', '_', '~'])
                        .to_string()
                        + "Q",
                )
            },
        },
        Family {
            name: "generic-pw",
            kind: Kind::Password,
            env: "DB_PW",
            key: "db_pw",
            header: None,
            gen: |r| Secret::plain(password(r)),
        },
        // A word that says what kind of key a name holds (`cache_key`,
        // `s3_object_key`) does not when another word follows it.
        Family {
            name: "s3-secret-key",
            kind: Kind::ContextToken,
            env: "AWS_S3_SECRET_ACCESS_KEY",
            key: "s3_secret_key",
            header: None,
            gen: |r| Secret::plain(r.chars(B64, 40).replace('/', "Q")),
        },
        Family {
            name: "cache-password",
            kind: Kind::Password,
            env: "REDIS_CACHE_PASSWORD",
            key: "cache_password",
            header: None,
            gen: |r| Secret::plain(password(r)),
        },
        Family {
            name: "messagebird-key",
            kind: Kind::ContextToken,
            env: "MESSAGE_BIRD_API_KEY",
            key: "message_bird_api_key",
            header: None,
            gen: |r| Secret::plain(r.chars(ALNUM, 25)),
        },
        Family {
            name: "action-input-token",
            kind: Kind::ContextToken,
            env: "INPUT_DEPLOY_TOKEN",
            key: "input_deploy_token",
            header: None,
            gen: |r| Secret::plain(r.chars(ALNUM, 32)),
        },
        // `<vendor>_key` for a vendor the rule set does not name.
        Family {
            name: "unnamed-vendor-key",
            kind: Kind::ContextToken,
            env: "TAVILY_KEY",
            key: "tavily_key",
            header: None,
            gen: |r| Secret::plain(format!("{}{}", r.chars(ALNUM, 31), r.chars(DIGITS, 1))),
        },
        Family {
            name: "mysql-pwd",
            kind: Kind::Password,
            env: "MYSQL_PWD",
            key: "pwd",
            header: None,
            gen: |r| Secret::plain(password(r)),
        },
        Family {
            name: "okta-token",
            kind: Kind::ContextToken,
            env: "OKTA_API_TOKEN",
            key: "okta_token",
            header: None,
            gen: |r| Secret::plain(format!("00{}", r.chars(&format!("{ALNUM}-_"), 40))),
        },
        Family {
            name: "lob-api-key",
            kind: Kind::ContextToken,
            env: "LOB_API_KEY",
            key: "lob_key",
            header: None,
            gen: |r| Secret::plain(format!("live_{}", r.chars(HEX, 35))),
        },
        Family {
            name: "beamer-api-token",
            kind: Kind::ContextToken,
            env: "BEAMER_TOKEN",
            key: "beamer_token",
            header: None,
            gen: |r| Secret::plain(format!("b_{}", r.chars(&format!("{ALNUM}-_"), 44))),
        },
        Family {
            name: "twitch-api-token",
            kind: Kind::ContextToken,
            env: "TWITCH_API_TOKEN",
            key: "twitch_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.chars(LOWER, 2),
                    r.chars(LOWER_DIGITS, 28)
                ))
            },
        },
        Family {
            name: "vault-legacy-token",
            kind: Kind::ContextToken,
            env: "VAULT_TOKEN",
            key: "vault_token",
            header: Some("X-Vault-Token"),
            gen: |r| Secret::plain(format!("s.{}", r.chars(ALNUM, 24))),
        },
        Family {
            name: "heroku-legacy-key",
            kind: Kind::ContextToken,
            env: "HEROKU_API_KEY",
            key: "heroku_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}-{}-{}-{}-{}",
                    r.chars(HEX, 8),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 12)
                ))
            },
        },
        Family {
            name: "grafana-legacy-key",
            kind: Kind::Token,
            env: "GRAFANA_API_KEY",
            key: "grafana_api_key",
            header: None,
            gen: |r| {
                Secret::plain(b64(
                    format!(
                        "{{\"k\":\"{}\",\"n\":\"ci-{}\",\"id\":{}}}",
                        r.chars(ALNUM, 32),
                        r.chars(LOWER, 6),
                        r.range(1, 99)
                    )
                    .as_bytes(),
                    false,
                    true,
                ))
            },
        },
        Family {
            name: "mailgun-pubkey",
            kind: Kind::Token,
            env: "MAILGUN_PUBLIC_KEY",
            key: "mailgun_public_key",
            header: None,
            gen: |r| Secret::plain(format!("pubkey-{}", r.chars(HEX, 32))),
        },
        Family {
            name: "clojars-token",
            kind: Kind::Token,
            env: "LEIN_PASSWORD",
            key: "deploy_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "CLOJARS_{}",
                    r.chars("abcdefghijklmnopqrstuvwxyz0123456789", 60)
                ))
            },
        },
        Family {
            name: "duffel-token",
            kind: Kind::Token,
            env: "DUFFEL_ACCESS_TOKEN",
            key: "duffel_access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "duffel_{}_{}",
                    r.pick(&["test", "live"]),
                    r.chars(ALNUM, 43)
                ))
            },
        },
        Family {
            name: "easypost-token",
            kind: Kind::Token,
            env: "EASYPOST_API_KEY",
            key: "easypost_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}{}",
                    r.pick(&["EZAK", "EZTK"]),
                    r.chars(ALNUM, 54)
                ))
            },
        },
        Family {
            name: "flutterwave-key",
            kind: Kind::Token,
            env: "FLW_SECRET_KEY",
            key: "flw_secret_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "FLWSECK{}-{}-X",
                    r.pick(&["", "_TEST"]),
                    r.chars("abcdefgh0123456789", 32)
                ))
            },
        },
        Family {
            name: "frameio-token",
            kind: Kind::Token,
            env: "FRAMEIO_TOKEN",
            key: "frameio_token",
            header: None,
            gen: |r| Secret::plain(format!("fio-u-{}", r.chars(B64URL, 64))),
        },
        Family {
            name: "prefect-token",
            kind: Kind::Token,
            env: "PREFECT_API_KEY",
            key: "prefect_api_key",
            header: None,
            gen: |r| Secret::plain(format!("pnu_{}", r.chars(ALNUM, 36))),
        },
        Family {
            name: "readme-api-key",
            kind: Kind::Token,
            env: "README_API_KEY",
            key: "readme_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "rdme_{}",
                    r.chars("abcdefghijklmnopqrstuvwxyz0123456789", 70)
                ))
            },
        },
        Family {
            name: "brevo-api-key",
            kind: Kind::Token,
            env: "BREVO_API_KEY",
            key: "brevo_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}-{}-{}",
                    r.pick(&["xkeysib", "xsmtpsib"]),
                    r.chars(HEX, 64),
                    r.chars(ALNUM, 16)
                ))
            },
        },
        Family {
            name: "shippo-token",
            kind: Kind::Token,
            env: "SHIPPO_API_TOKEN",
            key: "shippo_api_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "shippo_{}_{}",
                    r.pick(&["live", "test"]),
                    r.chars(HEX, 40)
                ))
            },
        },
        Family {
            name: "defined-networking-token",
            kind: Kind::Token,
            env: "DNKEY",
            key: "dn_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "dnkey-{}-{}",
                    r.chars("abcdefghijklmnopqrstuvwxyz0123456789", 26),
                    r.chars("abcdefghijklmnopqrstuvwxyz0123456789", 52)
                ))
            },
        },
        Family {
            name: "dynatrace-token",
            kind: Kind::Token,
            env: "DT_API_TOKEN",
            key: "dt_api_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "dt0c01.{}.{}",
                    r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 24),
                    r.chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 64)
                ))
            },
        },
        Family {
            name: "openshift-token",
            kind: Kind::Token,
            env: "OPENSHIFT_TOKEN",
            key: "oc_token",
            header: None,
            gen: |r| Secret::plain(format!("sha256~{}", r.chars(B64URL, 43))),
        },
        Family {
            name: "sourcegraph-token",
            kind: Kind::Token,
            env: "SRC_ACCESS_TOKEN",
            key: "src_access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "sgp_{}{}",
                    if r.below(2) == 0 {
                        format!("{}_", r.chars(HEX, 16))
                    } else {
                        String::new()
                    },
                    r.chars(HEX, 40)
                ))
            },
        },
        Family {
            name: "octopus-deploy-api-key",
            kind: Kind::Token,
            env: "OCTOPUS_API_KEY",
            key: "octopus_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "API-{}{}{}",
                    r.chars(UPPER_D, 12),
                    r.chars(DIGITS, 1),
                    r.chars(UPPER_D, 13)
                ))
            },
        },
        Family {
            name: "jwt-base64",
            kind: Kind::Token,
            env: "ID_TOKEN_B64",
            key: "id_token_b64",
            header: None,
            gen: |r| {
                let token = jwt(r).value;
                let token = if r.below(2) == 0 {
                    token
                } else {
                    format!("{token}\n")
                };
                Secret::plain(b64(token.as_bytes(), false, true))
            },
        },
        Family {
            name: "langfuse-secret-key",
            kind: Kind::Token,
            env: "LANGFUSE_SECRET_KEY",
            key: "langfuse_secret_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "sk-lf-{}-{}-{}-{}-{}",
                    r.chars(HEX, 8),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 12)
                ))
            },
        },
        Family {
            name: "mercadopago-access-token",
            kind: Kind::Token,
            env: "MP_ACCESS_TOKEN",
            key: "mp_access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "APP_USR-{}-{}-{}-{}",
                    r.chars(DIGITS, 16),
                    r.chars(DIGITS, 6),
                    r.chars(HEX, 32),
                    r.chars(DIGITS, 9)
                ))
            },
        },
        Family {
            name: "databricks-oauth-secret",
            kind: Kind::Token,
            env: "DATABRICKS_CLIENT_SECRET",
            key: "databricks_client_secret",
            header: None,
            gen: |r| {
                let prefix = *r.pick(&["dose", "doau"]);
                Secret::plain(format!("{prefix}{}", r.chars(HEX, 32)))
            },
        },
        Family {
            name: "adafruit-io-key",
            kind: Kind::Token,
            env: "ADAFRUIT_IO_KEY",
            key: "adafruit_io_key",
            header: None,
            gen: |r| Secret::plain(format!("aio_{}{}", r.chars(ALNUM, 27), r.chars(DIGITS, 1))),
        },
        Family {
            name: "alchemy-api-key",
            kind: Kind::Token,
            env: "ALCHEMY_API_KEY",
            key: "alchemy_api_key",
            header: None,
            gen: |r| Secret::plain(format!("alcht_{}", r.chars(ALNUM, 30))),
        },
        Family {
            name: "bannerbear-api-key",
            kind: Kind::Token,
            env: "BANNERBEAR_API_KEY",
            key: "bannerbear_api_key",
            header: None,
            gen: |r| Secret::plain(format!("bb_{}_{}", r.pick(&["pr", "ma"]), r.chars(HEX, 30))),
        },
        Family {
            name: "bitbucket-data-center-token",
            kind: Kind::Token,
            env: "BITBUCKET_TOKEN",
            key: "bitbucket_token",
            header: None,
            gen: |r| Secret::plain(format!("BBDC-{}", r.chars(B64, 44))),
        },
        Family {
            name: "ubidots-token",
            kind: Kind::Token,
            env: "UBIDOTS_TOKEN",
            key: "ubidots_token",
            header: None,
            gen: |r| Secret::plain(format!("BBFF-{}", r.chars(ALNUM, 30))),
        },
        Family {
            name: "cloudflare-api-token",
            kind: Kind::Token,
            env: "CLOUDFLARE_API_TOKEN",
            key: "cloudflare_api_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}_{}{}",
                    r.pick(&["cfut", "cfat", "cfk"]),
                    r.chars(ALNUM, 40),
                    r.chars(HEX, 8)
                ))
            },
        },
        Family {
            name: "deno-deploy-token",
            kind: Kind::Token,
            env: "DENO_DEPLOY_TOKEN",
            key: "deno_deploy_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}_{}",
                    r.pick(&["ddp", "ddw"]),
                    r.chars(ALNUM, 36)
                ))
            },
        },
        Family {
            name: "figma-pat-v3",
            kind: Kind::Token,
            env: "FIGMA_TOKEN",
            key: "figma_token",
            header: None,
            gen: |r| Secret::plain(format!("figp_{}", r.chars(B64URL, 48))),
        },
        Family {
            name: "rootly-api-key",
            kind: Kind::Token,
            env: "ROOTLY_TOKEN",
            key: "rootly_token",
            header: None,
            gen: |r| Secret::plain(format!("rootly_{}", r.chars(HEX, 64))),
        },
        Family {
            name: "ramp-secret",
            kind: Kind::Token,
            env: "RAMP_CLIENT_SECRET",
            key: "ramp_client_secret",
            header: None,
            gen: |r| Secret::plain(format!("ramp_sec_{}", r.chars(ALNUM, 48))),
        },
        Family {
            name: "flexport-api-key",
            kind: Kind::Token,
            env: "FLEXPORT_API_KEY",
            key: "flexport_api_key",
            header: None,
            gen: |r| Secret::plain(format!("shltm_{}", r.chars(ALNUM, 40))),
        },
        Family {
            name: "sourcegraph-cody-token",
            kind: Kind::Token,
            env: "CODY_ACCESS_TOKEN",
            key: "cody_access_token",
            header: None,
            gen: |r| Secret::plain(format!("slk_{}", r.chars(HEX, 64))),
        },
        Family {
            name: "sonarcloud-token",
            kind: Kind::Token,
            env: "SONAR_TOKEN",
            key: "sonar_token",
            header: None,
            gen: |r| Secret::plain(format!("sqco_{}", r.chars(ALNUM, 59))),
        },
        Family {
            name: "saladcloud-api-key",
            kind: Kind::Token,
            env: "SALAD_API_KEY",
            key: "salad_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "salad_cloud_{}_{}",
                    r.chars(ALNUM, 6),
                    r.chars(ALNUM, 30)
                ))
            },
        },
        Family {
            name: "robinhood-crypto-api-key",
            kind: Kind::Token,
            env: "RH_API_KEY",
            key: "rh_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "rh-api-{}-{}-{}-{}-{}",
                    r.chars(HEX, 8),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 12)
                ))
            },
        },
        Family {
            name: "salesforce-access-token",
            kind: Kind::Token,
            env: "SF_ACCESS_TOKEN",
            key: "sf_access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "00D{}!{}.{}",
                    r.chars(ALNUM, 12),
                    r.chars(ALNUM, 60),
                    r.chars(ALNUM, 35)
                ))
            },
        },
        Family {
            name: "vault-service-token",
            kind: Kind::Token,
            env: "VAULT_TOKEN",
            key: "vault_token",
            header: None,
            gen: |r| Secret::plain(format!("s.CAESI{}", r.chars(B64URL, 84))),
        },
        Family {
            name: "spectralops-token",
            kind: Kind::Token,
            env: "SPECTRAL_DSN_TOKEN",
            key: "spectral_token",
            header: None,
            gen: |r| Secret::plain(format!("spu-{}", r.chars(HEX, 32))),
        },
        Family {
            name: "jenkins-secret",
            kind: Kind::Token,
            env: "JENKINS_SECRET",
            key: "jenkins_secret",
            header: None,
            gen: |r| {
                let mut raw = vec![1u8, 0, 0, 0, 16, 0, 0, 0, 32];
                raw.extend(r.bytes(48));
                let body = b64(&raw, false, true);
                Secret {
                    value: format!("{{{body}}}"),
                    must_hide: vec![body[12..].to_string()],
                }
            },
        },
        Family {
            name: "apify-token",
            kind: Kind::Token,
            env: "APIFY_TOKEN",
            key: "apify_token",
            header: None,
            gen: |r| Secret::plain(format!("apify_api_{}", r.chars(ALNUM, 36))),
        },
        Family {
            name: "photoroom-api-key",
            kind: Kind::Token,
            env: "PHOTOROOM_API_KEY",
            key: "photoroom_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "sk_pr_{}_{}",
                    r.chars(LOWER_DIGITS, 12),
                    r.chars(HEX, 40)
                ))
            },
        },
        Family {
            name: "pganalyze-key",
            kind: Kind::Token,
            env: "PGA_API_KEY",
            key: "pga_api_key",
            header: None,
            gen: |r| Secret::plain(format!("pgar_{}", r.chars(ALNUM, 27))),
        },
        Family {
            name: "pagarme-api-key",
            kind: Kind::Token,
            env: "PAGARME_API_KEY",
            key: "pagarme_api_key",
            header: None,
            gen: |r| Secret::plain(format!("ak_live_{}", r.chars(ALNUM, 30))),
        },
        Family {
            name: "nuget-api-key",
            kind: Kind::Token,
            env: "NUGET_API_KEY",
            key: "nuget_api_key",
            header: None,
            gen: |r| Secret::plain(format!("oy2{}", r.chars(LOWER_DIGITS, 43))),
        },
        Family {
            name: "plaid-access-token",
            kind: Kind::Token,
            env: "PLAID_ACCESS_TOKEN",
            key: "plaid_access_token",
            header: None,
            gen: |r| {
                let env = r
                    .pick(&["sandbox", "development", "production"])
                    .to_string();
                let id = format!(
                    "{}-{}-{}-{}-{}",
                    r.chars(HEX, 8),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 4),
                    r.chars(HEX, 12)
                );
                // The environment's name is a word the records hold anyway
                // (`APP_ENV=production`): the id is what must not survive.
                Secret {
                    value: format!("access-{env}-{id}"),
                    must_hide: vec![id],
                }
            },
        },
        Family {
            name: "sonarqube-token",
            kind: Kind::Token,
            env: "SONAR_TOKEN",
            key: "sonar_token",
            header: None,
            gen: |r| {
                let p = r.pick(&["sqp_", "squ_", "sqa_"]).to_string();
                Secret::plain(format!("{p}{}", r.chars(HEX, 40)))
            },
        },
        Family {
            name: "scalingo-token",
            kind: Kind::Token,
            env: "SCALINGO_API_TOKEN",
            key: "scalingo_api_token",
            header: None,
            gen: |r| Secret::plain(format!("tk-us-{}", r.chars(B64URL, 48))),
        },
        Family {
            name: "yandex-api-key",
            kind: Kind::Token,
            env: "YC_API_KEY",
            key: "yc_api_key",
            header: None,
            gen: |r| {
                let n = r.range(35, 38);
                Secret::plain(format!("AQVN{}", r.chars(B64URL, n)))
            },
        },
        Family {
            name: "contentful-token",
            kind: Kind::Token,
            env: "CONTENTFUL_MANAGEMENT_TOKEN",
            key: "contentful_management_token",
            header: None,
            gen: |r| Secret::plain(format!("CFPAT-{}", r.chars(ALNUM, 43))),
        },
        Family {
            name: "buildkite-token",
            kind: Kind::Token,
            env: "BUILDKITE_API_TOKEN",
            key: "buildkite_api_token",
            header: None,
            gen: |r| Secret::plain(format!("bkua_{}", r.chars(HEX, 40))),
        },
        Family {
            name: "circleci-token",
            kind: Kind::Token,
            env: "CIRCLECI_TOKEN",
            key: "circleci_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "CCIPAT_{}_{}",
                    r.chars(ALNUM, 22),
                    r.chars(HEX, 40)
                ))
            },
        },
        Family {
            name: "honeycomb-key",
            kind: Kind::Token,
            env: "HONEYCOMB_API_KEY",
            key: "honeycomb_api_key",
            header: None,
            gen: |r| {
                let p = r.pick(&["hcaik_", "hcxik_", "hcamk_"]).to_string();
                Secret::plain(format!("{p}{}", r.chars(LOWER_DIGITS, 58)))
            },
        },
        Family {
            name: "pinecone-api-key",
            kind: Kind::Token,
            env: "PINECONE_API_KEY",
            key: "pinecone_api_key",
            header: None,
            gen: |r| Secret::plain(format!("pcsk_{}_{}", r.chars(ALNUM, 5), r.chars(ALNUM, 64))),
        },
        Family {
            name: "alibaba-access-key-id",
            kind: Kind::Token,
            env: "ALIBABA_CLOUD_ACCESS_KEY_ID",
            key: "access_key_id",
            header: None,
            gen: |r| Secret::plain(format!("LTAI{}", r.chars(ALNUM, 20))),
        },
        Family {
            name: "onepassword-secret-key",
            kind: Kind::Token,
            env: "OP_SECRET_KEY",
            key: "op_secret_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "A3-{}-{}-{}-{}-{}",
                    r.chars(UPPER_D, 6),
                    r.chars(UPPER_D, 11),
                    r.chars(UPPER_D, 5),
                    r.chars(UPPER_D, 5),
                    r.chars(UPPER_D, 5)
                ))
            },
        },
        Family {
            name: "newrelic-key",
            kind: Kind::Token,
            env: "NEW_RELIC_LICENSE_KEY",
            key: "license_key",
            header: None,
            gen: |r| match r.below(4) {
                0 => Secret::plain(format!("NRJS-{}", r.chars(HEX, 19))),
                1 => Secret::plain(format!("NRII-{}", r.chars(B64URL, 32))),
                2 => Secret::plain(format!("NRAA-{}", r.chars(HEX, 27))),
                _ => Secret::plain(format!("NRRA-{}", r.chars(HEX, 42))),
            },
        },
        Family {
            name: "dropbox-token",
            kind: Kind::Token,
            env: "DROPBOX_TOKEN",
            key: "dropbox_token",
            header: None,
            gen: |r| Secret::plain(format!("sl.{}", r.chars(B64URL, 138))),
        },
        Family {
            name: "facebook-token",
            kind: Kind::Token,
            env: "FB_ACCESS_TOKEN",
            key: "fb_access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "EAA{}{}",
                    r.pick(&["C", "G", "B"]),
                    r.chars(ALNUM, 160)
                ))
            },
        },
        Family {
            name: "twitter-bearer-token",
            kind: Kind::Token,
            env: "TWITTER_BEARER_TOKEN",
            key: "bearer_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "AAAAAAAAAAAAAAAAAAAAA{}%3D{}",
                    r.chars(ALNUM, 30),
                    r.chars(ALNUM, 50)
                ))
            },
        },
        Family {
            name: "typeform-token",
            kind: Kind::Token,
            env: "TYPEFORM_TOKEN",
            key: "typeform_token",
            header: None,
            gen: |r| Secret::plain(format!("tfp_{}", r.chars(ALNUM, 59))),
        },
        Family {
            name: "settlemint-token",
            kind: Kind::Token,
            env: "SETTLEMINT_TOKEN",
            key: "settlemint_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "sm_{}_{}",
                    r.pick(&["pat", "aat", "sat"]),
                    r.chars(ALNUM, 16)
                ))
            },
        },
        Family {
            name: "intra42-secret",
            kind: Kind::Token,
            env: "INTRA42_SECRET",
            key: "client_secret",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "s-s4t2{}-{}",
                    r.pick(&["ud", "af"]),
                    r.chars(HEX, 64)
                ))
            },
        },
        Family {
            name: "infracost-api-key",
            kind: Kind::Token,
            env: "INFRACOST_API_KEY",
            key: "infracost_api_key",
            header: None,
            gen: |r| Secret::plain(format!("ico-{}", r.chars(ALNUM, 32))),
        },
        Family {
            name: "harness-token",
            kind: Kind::Token,
            env: "HARNESS_PAT",
            key: "harness_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}.{}.{}.{}",
                    r.pick(&["pat", "sat"]),
                    r.chars(B64URL, 22),
                    r.chars(HEX, 24),
                    r.chars(ALNUM, 20)
                ))
            },
        },
        Family {
            name: "cloudflare-origin-ca-key",
            kind: Kind::Token,
            env: "CF_ORIGIN_CA_KEY",
            key: "origin_ca_key",
            header: None,
            gen: |r| Secret::plain(format!("v1.0-{}-{}", r.chars(HEX, 24), r.chars(HEX, 146))),
        },
        Family {
            name: "aws-appsync-api-key",
            kind: Kind::Token,
            env: "APPSYNC_API_KEY",
            key: "appsync_api_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "da2-{}",
                    r.chars("abcdefghijklmnopqrstuvwxyz0123456789", 26)
                ))
            },
        },
        Family {
            name: "razorpay-key",
            kind: Kind::Token,
            env: "RAZORPAY_KEY_ID",
            key: "razorpay_key",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "rzp_{}_{}",
                    r.pick(&["live", "test"]),
                    r.chars(ALNUM, 14)
                ))
            },
        },
        Family {
            name: "mailchimp-api-key",
            kind: Kind::Token,
            env: "MAILCHIMP_API_KEY",
            key: "mailchimp_api_key",
            header: None,
            gen: |r| Secret::plain(format!("{}-us{}", r.chars(HEX, 32), r.range(1, 21))),
        },
        Family {
            name: "sentry-token",
            kind: Kind::Token,
            env: "SENTRY_AUTH_TOKEN",
            key: "sentry_auth_token",
            header: None,
            gen: |r| match r.below(2) {
                0 => Secret::plain(format!("sntrys_eyJ{}", r.chars(ALNUM, 120))),
                _ => Secret::plain(format!("sntryu_{}", r.chars(HEX, 64))),
            },
        },
        Family {
            name: "teams-webhook",
            kind: Kind::Token,
            env: "TEAMS_WEBHOOK_URL",
            key: "webhook_url",
            header: None,
            gen: |r| {
                let uuid = |r: &mut Rng| {
                    format!(
                        "{}-{}-4{}-{}{}-{}",
                        r.chars(HEX, 8),
                        r.chars(HEX, 4),
                        r.chars(HEX, 3),
                        r.pick(&["8", "9", "a", "b"]),
                        r.chars(HEX, 3),
                        r.chars(HEX, 12)
                    )
                };
                let path = format!(
                    "{}@{}/IncomingWebhook/{}/{}",
                    uuid(r),
                    uuid(r),
                    r.chars(HEX, 32),
                    uuid(r)
                );
                Secret {
                    value: format!("https://acme.webhook.office.com/webhookb2/{path}"),
                    must_hide: vec![path],
                }
            },
        },
        Family {
            name: "neon-api-key",
            kind: Kind::Token,
            env: "NEON_API_KEY",
            key: "neon_api_key",
            header: None,
            gen: |r| Secret::plain(format!("napi_{}", r.chars(LOWER_DIGITS, 64))),
        },
        Family {
            name: "mapbox-secret-token",
            kind: Kind::Token,
            env: "MAPBOX_SECRET_TOKEN",
            key: "mapbox_token",
            header: None,
            gen: |r| {
                let payload = b64(
                    format!(
                        "{{\"u\":\"{}\",\"a\":\"{}\"}}",
                        r.chars(LOWER, 8),
                        r.chars(LOWER_DIGITS, 25)
                    )
                    .as_bytes(),
                    true,
                    false,
                );
                Secret::plain(format!(
                    "sk.{payload}.{}",
                    r.chars(&format!("{ALNUM}-_"), 22)
                ))
            },
        },
        Family {
            name: "crates-io-token",
            kind: Kind::Token,
            env: "CARGO_REGISTRY_TOKEN",
            key: "token",
            header: None,
            gen: |r| Secret::plain(format!("cio{}", r.chars(ALNUM, 32))),
        },
        Family {
            name: "akamai-edgegrid-token",
            kind: Kind::Token,
            env: "AKAMAI_ACCESS_TOKEN",
            key: "access_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "akab-{}-{}",
                    r.chars(LOWER_DIGITS, 16),
                    r.chars(LOWER_DIGITS, 16)
                ))
            },
        },
        Family {
            name: "tencent-secret-id",
            kind: Kind::Token,
            env: "TENCENTCLOUD_SECRET_ID",
            key: "secret_id",
            header: None,
            gen: |r| Secret::plain(format!("AKID{}", r.chars(ALNUM, 32))),
        },
        Family {
            name: "telegram-bot-token",
            kind: Kind::Token,
            env: "TELEGRAM_BOT_TOKEN",
            key: "bot_token",
            header: None,
            gen: |r| {
                let id = r.chars_n(DIGITS, 7, 9);
                let rest = r.chars(&format!("{ALNUM}_-"), 33);
                Secret::plain(format!("{}{id}:AA{rest}", r.range(1, 9)))
            },
        },
        Family {
            name: "password-hash",
            kind: Kind::Token,
            env: "ADMIN_PASSWORD_HASH",
            key: "password_hash",
            header: None,
            gen: password_hash,
        },
        Family {
            name: "clickup-token",
            kind: Kind::Token,
            env: "CLICKUP_API_TOKEN",
            key: "clickup_token",
            header: None,
            gen: |r| {
                let user = r.chars_n(DIGITS, 7, 9);
                Secret::plain(format!("pk_{user}_{}", r.chars(UPPER_D, 32)))
            },
        },
        Family {
            name: "elevenlabs-api-key",
            kind: Kind::Token,
            env: "ELEVENLABS_API_KEY",
            key: "xi_api_key",
            header: None,
            gen: |r| Secret::plain(format!("sk_{}", r.chars(HEX, 48))),
        },
        Family {
            name: "launchdarkly-key",
            kind: Kind::Token,
            env: "LAUNCHDARKLY_SDK_KEY",
            key: "sdk_key",
            header: None,
            gen: |r| {
                let parts = [8, 4, 4, 4, 12].map(|n| r.chars(HEX, n));
                Secret::plain(format!("sdk-{}", parts.join("-")))
            },
        },
        Family {
            name: "yandex-iam-token",
            kind: Kind::Token,
            env: "YC_IAM_TOKEN",
            key: "iam_token",
            header: None,
            gen: |r| {
                let n = r.range(40, 120);
                let head = r.chars(B64URL, n);
                Secret::plain(format!("t1.{head}.{}", r.chars(B64URL, 86)))
            },
        },
        Family {
            name: "azure-devops-pat",
            kind: Kind::Token,
            env: "AZURE_DEVOPS_EXT_PAT",
            key: "azure_devops_pat",
            header: None,
            gen: |r| {
                // Microsoft's format has `JQQJ9` at 52; the rule wants `AZDO`
                // at 76 only, as Nosey Parker's does.
                let head = r.chars(ALNUM, 52);
                let mid = r.chars(ALNUM, 19);
                let sig = if r.below(2) == 0 { "JQQJ9" } else { "Jq7x2" };
                Secret::plain(format!("{head}{sig}{mid}AZDO{}", r.chars(ALNUM, 4)))
            },
        },
        Family {
            name: "dependency-track-key",
            kind: Kind::Token,
            env: "DTRACK_API_KEY",
            key: "dependency_track_api_key",
            header: Some("X-Api-Key"),
            gen: |r| Secret::plain(format!("odt_{}", r.chars_n(ALNUM, 32, 40))),
        },
        Family {
            name: "twitch-stream-key",
            kind: Kind::Token,
            env: "TWITCH_STREAM_KEY",
            key: "stream_key",
            header: None,
            gen: |r| {
                let user = r.chars_n(DIGITS, 8, 10);
                Secret::plain(format!("live_{user}_{}", r.chars(ALNUM, 30)))
            },
        },
        Family {
            name: "newrelic-license-key",
            kind: Kind::Token,
            env: "NEW_RELIC_LICENSE_KEY",
            key: "license_key",
            header: None,
            gen: |r| {
                let region = format!("{}{}xx", r.pick(&["eu", "us", "gov"]), r.chars(DIGITS, 2));
                let region = &region[..region.len().min(6)];
                let pad = 6 - region.len();
                Secret::plain(format!(
                    "{region}{}{}NRAL",
                    r.chars(HEX, pad),
                    r.chars(HEX, 30)
                ))
            },
        },
        Family {
            name: "word-password",
            kind: Kind::Password,
            env: "MYSQL_ROOT_PASSWORD",
            key: "db_password",
            header: None,
            gen: |r| Secret::plain(word_password(r)),
        },
        Family {
            name: "braintree-token",
            kind: Kind::Token,
            env: "BRAINTREE_ACCESS_TOKEN",
            key: "braintree_access_token",
            header: None,
            gen: |r| {
                // The merchant id stays readable; the key after it is masked.
                let env = r.pick(&["production", "sandbox"]).to_string();
                let key = r.chars(HEX, 32);
                Secret {
                    value: format!("access_token${env}${}${key}", r.chars(LOWER_DIGITS, 16)),
                    must_hide: vec![key],
                }
            },
        },
        Family {
            name: "resend-api-key",
            kind: Kind::Token,
            env: "RESEND_API_KEY",
            key: "resend_api_key",
            header: None,
            gen: |r| Secret::plain(format!("re_{}_{}", r.chars(ALNUM, 8), r.chars(ALNUM, 24))),
        },
        Family {
            name: "e2b-api-key",
            kind: Kind::Token,
            env: "E2B_API_KEY",
            key: "e2b_api_key",
            header: Some("X-API-Key"),
            gen: |r| Secret::plain(format!("e2b_{}", r.chars(HEX, 40))),
        },
        Family {
            name: "airtable-pat",
            kind: Kind::Token,
            env: "AIRTABLE_API_KEY",
            key: "airtable_token",
            header: None,
            gen: |r| Secret::plain(format!("pat{}.{}", r.chars(ALNUM, 14), r.chars(HEX, 64))),
        },
        Family {
            // A Facebook app access token: the app id, `|`, the app secret.
            name: "facebook-app-token",
            kind: Kind::ContextToken,
            env: "FACEBOOK_ACCESS_TOKEN",
            key: "access_token",
            header: None,
            gen: |r| {
                let id = r.chars_n(DIGITS, 15, 16);
                Secret::plain(format!("{id}|{}", r.chars(HEX, 32)))
            },
        },
        Family {
            name: "dropbox-long-lived-token",
            kind: Kind::ContextToken,
            env: "DROPBOX_ACCESS_TOKEN",
            key: "dropbox_token",
            header: None,
            gen: |r| {
                Secret::plain(format!(
                    "{}AAAAAAAAAA{}",
                    r.chars(ALNUM, 11),
                    r.chars(&format!("{ALNUM}-_"), 43)
                ))
            },
        },
    ]
}

/// A password a person chose: a lower-case word (`swordfish`), here four
/// to eleven random letters (no password word inside, as `mypassword`).
pub fn word_password(r: &mut Rng) -> String {
    loop {
        let n = r.range(4, 11);
        let w = r.chars(LOWER, n);
        if !["pass", "pwd", "secret"].iter().any(|p| w.contains(p)) {
            return w;
        }
    }
}

/// A labelled record.
#[derive(Clone, Debug)]
pub struct Record {
    pub family: &'static str,
    pub context: &'static str,
    pub text: String,
    pub must_hide: Vec<String>,
    /// Substrings that must still be in the output (types, grep prefixes,
    /// names that are not secrets): redaction never eats them.
    pub must_keep: Vec<String>,
}

fn env_dump(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    Some(format!(
        "$ env | sort\nHOME=/home/runner\nHOSTNAME=ci-worker-7f9c\nLANG=C.UTF-8\n{}={}\nPATH=/usr/local/sbin:/usr/local/bin:/usr/bin\nPWD=/home/runner/work/app\nSHLVL=1\n",
        f.env, value_in_env(f, s)
    ))
}

fn value_in_env(f: &Family, s: &Secret) -> String {
    match f.kind {
        Kind::Url => format!(
            "postgres://app:{}@db.internal:5432/prod",
            percent_encode(&s.value)
        ),
        Kind::Header if f.name == "basic-auth" => s.value.clone(),
        Kind::Pem => json_escape(&s.value),
        _ => s.value.clone(),
    }
}

fn dotenv(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let v = value_in_env(f, s);
    Some(format!("# generated by setup.sh\nAPP_ENV=production\nLOG_LEVEL=info\n{}=\"{}\"\nFEATURE_FLAGS=search,billing\n", f.env, v))
}

fn json_cfg(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let (k, v) = match f.kind {
        Kind::Url => (
            "database_url".to_string(),
            format!(
                "mysql://root:{}@127.0.0.1:3306/app",
                percent_encode(&s.value)
            ),
        ),
        Kind::Header => ("Authorization".to_string(), header_value(f, s)),
        Kind::Pem => ("private_key".to_string(), json_escape(&s.value)),
        Kind::DockerAuth => ("auth".to_string(), s.value.clone()),
        _ => (f.key.to_string(), s.value.clone()),
    };
    Some(format!(
        "{{\n  \"service\": \"billing-api\",\n  \"region\": \"eu-west-1\",\n  \"credentials\": {{\n    \"{k}\": \"{v}\",\n    \"expires_in\": 3600\n  }},\n  \"retries\": 3\n}}\n"
    ))
}

fn header_value(f: &Family, s: &Secret) -> String {
    if f.name == "basic-auth" {
        format!("Basic {}", s.value)
    } else {
        format!("Bearer {}", s.value)
    }
}

fn yaml_cfg(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let line = match f.kind {
        Kind::Url => format!(
            "  dsn: redis://default:{}@cache.internal:6379/0",
            percent_encode(&s.value)
        ),
        Kind::Pem => format!("  {}: |\n    {}", f.key, s.value.replace('\n', "\n    ")),
        Kind::Header => format!("  headers:\n    Authorization: {}", header_value(f, s)),
        Kind::DockerAuth => format!(
            "  auths:\n    registry.example.com:\n      auth: \"{}\"",
            s.value
        ),
        _ => format!("  {}: {}", f.key, s.value),
    };
    Some(format!(
        "service:\n  name: billing\n  replicas: 3\n{line}\n  timeout: 30s\n"
    ))
}

fn toml_cfg(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let line = match f.kind {
        Kind::Url => format!(
            "url = \"amqp://worker:{}@mq.internal:5672/vhost\"",
            percent_encode(&s.value)
        ),
        Kind::Pem => format!("{} = \"\"\"\n{}\n\"\"\"", f.key, s.value),
        Kind::Header => format!("authorization = \"{}\"", header_value(f, s)),
        Kind::DockerAuth => format!("auth = \"{}\"", s.value),
        _ => format!("{} = \"{}\"", f.key, s.value),
    };
    Some(format!("[package]\nname = \"worker\"\n\n[service]\nendpoint = \"https://api.example.com\"\n{line}\nmax_connections = 16\n"))
}

fn curl_cmd(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    // `-u USER:WORD` is no password's place alone: `docker run -u
    // app:app` gives a user and a group.
    if f.name == "word-password" {
        return None;
    }
    let cmd = match f.kind {
        Kind::Url => format!(
            "curl -sS https://deploy:{}@registry.example.com/v2/_catalog",
            percent_encode(&s.value)
        ),
        Kind::Password => format!(
            "curl -sS -u deploy:{} https://registry.example.com/v2/_catalog",
            s.value
        ),
        Kind::Header => format!(
            "curl -sS -H 'Authorization: {}' https://api.example.com/v1/items",
            header_value(f, s)
        ),
        Kind::Pem => format!(
            "curl -sS -X POST https://kms.example.com/import -d '{{\"key\": \"{}\"}}'",
            json_escape(&s.value)
        ),
        Kind::DockerAuth => format!(
            "curl -sS -H 'Authorization: Basic {}' https://registry.example.com/v2/",
            s.value
        ),
        _ => match f.header {
            Some(h) => format!(
                "curl -sS -H \"{h}: {}\" https://api.example.com/v1/items",
                s.value
            ),
            None if r.below(2) == 0 => format!(
                "curl -sS -H \"Authorization: Bearer {}\" https://api.example.com/v1/items",
                s.value
            ),
            None => format!(
                "curl -sS \"https://api.example.com/v1/items?{}={}&limit=10\"",
                f.key, s.value
            ),
        },
    };
    Some(format!("$ {cmd}\n{{\"items\":[],\"next\":null}}\n"))
}

fn http_headers(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let h = match f.kind {
        Kind::Header => format!("Authorization: {}", header_value(f, s)),
        Kind::DockerAuth => format!("Authorization: Basic {}", s.value),
        Kind::Url => format!(
            "Referer: https://admin:{}@intranet.example.com/dashboard",
            percent_encode(&s.value)
        ),
        Kind::Pem => return None,
        Kind::Password => format!("X-Db-Password: {}", s.value),
        _ => match f.header {
            Some(h) => format!("{h}: {}", s.value),
            None => format!("Authorization: Bearer {}", s.value),
        },
    };
    Some(format!(
        "*   Trying 93.184.216.34:443...\n* Connected to api.example.com (93.184.216.34) port 443\n> GET /v1/me HTTP/2\n> Host: api.example.com\n> {h}\n> User-Agent: curl/8.5.0\n> Accept: */*\n>\n< HTTP/2 401\n< content-type: application/json\n"
    ))
}

fn conn_url(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let url = match f.kind {
        Kind::Url | Kind::Password => format!(
            "mongodb+srv://analytics:{}@cluster0.abcd1.mongodb.net/reports?retryWrites=true",
            percent_encode(&s.value)
        ),
        Kind::Pem | Kind::Header | Kind::DockerAuth => return None,
        _ => format!(
            "https://oauth2:{}@git.example.com/platform/infra.git",
            percent_encode(&s.value)
        ),
    };
    Some(format!("Cloning into 'infra'...\nremote: Enumerating objects: 1412, done.\nfatal: unable to access '{url}': The requested URL returned error: 403\n"))
}

fn stack_trace(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let detail = match f.kind {
        Kind::Url => format!("sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not connect to server\n(Background on this error at: postgresql://etl:{}@10.0.4.12:5432/warehouse)", percent_encode(&s.value)),
        Kind::Password => format!("ValueError: invalid login for user etl with password={}", s.value),
        Kind::Header => format!("requests.exceptions.HTTPError: 401 Client Error: Unauthorized (request headers: {{'Authorization': '{}'}})", header_value(f, s)),
        Kind::Pem => format!("ValueError: Could not deserialize key data: {:?}", s.value),
        Kind::DockerAuth => format!("docker.errors.APIError: 401 Client Error: auth config {{\"auth\": \"{}\"}} rejected", s.value),
        Kind::ContextToken => format!("KeyError: 'unexpected credential' while loading {}={}", f.env, s.value),
        Kind::Token => format!("github.GithubException.BadCredentialsException: 401 {{\"message\": \"Bad credentials\"}} (token {})", s.value),
    };
    Some(format!(
        "Traceback (most recent call last):\n  File \"/app/sync.py\", line 88, in <module>\n    main()\n  File \"/app/sync.py\", line 41, in main\n    client.login()\n{detail}\n"
    ))
}

fn git_remote(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let url = match f.kind {
        Kind::Url | Kind::Password => format!(
            "https://builder:{}@bitbucket.example.org/scm/ops/deploy.git",
            percent_encode(&s.value)
        ),
        Kind::Token | Kind::ContextToken => format!(
            "https://x-access-token:{}@github.com/acme/webapp.git",
            percent_encode(&s.value)
        ),
        _ => return None,
    };
    Some(format!("$ git remote -v\norigin\t{url} (fetch)\norigin\t{url} (push)\nupstream\thttps://github.com/upstream/webapp.git (fetch)\n"))
}

fn docker_cfg(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    Some(match f.kind {
        Kind::DockerAuth => match r.below(3) {
            0 => format!("$ cat ~/.docker/config.json\n{{\n\t\"auths\": {{\n\t\t\"ghcr.io\": {{\n\t\t\t\"auth\": \"{}\"\n\t\t}}\n\t}},\n\t\"credsStore\": \"desktop\"\n}}\n", s.value),
            1 => format!("{{\"auths\":{{\"https://index.docker.io/v1/\":{{\"auth\":\"{}\"}}}}}}\n", s.value),
            _ => format!("DOCKER_AUTH_CONFIG={{\"auths\": {{\"registry.gitlab.com\": {{\"auth\": \"{}\"}}}}}}\n", s.value),
        },
        Kind::Pem => format!("$ docker inspect app --format '{{{{json .Config.Env}}}}'\n[\"PATH=/usr/bin\",\"{}={}\"]\n", f.env, json_escape(&json_escape(&s.value))),
        Kind::Url => format!("$ docker inspect worker | grep -A3 Env\n            \"Env\": [\n                \"BROKER_URL=amqp://svc:{}@rabbit:5672//\",\n", percent_encode(&s.value)),
        Kind::Header => format!("$ docker inspect api | grep AUTH\n                \"UPSTREAM_AUTH_HEADER={}\",\n", header_value(f, s)),
        _ => format!("$ docker login registry.example.com -u ci -p {}\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nLogin Succeeded\n", s.value),
    })
}

fn escaped_json(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let inner = match f.kind {
        Kind::Pem => format!("{{\"type\": \"service_account\", \"private_key\": \"{}\", \"client_email\": \"ci@proj.iam.gserviceaccount.com\"}}", json_escape(&s.value)),
        Kind::Url => format!("DATABASE_URL=postgres://app:{}@db:5432/app\nREDIS_URL=redis://cache:6379", percent_encode(&s.value)),
        Kind::Header => format!("> GET / HTTP/1.1\n> Authorization: {}\n", header_value(f, s)),
        Kind::DockerAuth => format!("{{\"auths\": {{\"quay.io\": {{\"auth\": \"{}\"}}}}}}", s.value),
        _ => format!("loading settings\n{}={}\nready", f.env, s.value),
    };
    Some(format!(
        "{{\"tool_use_id\":\"toolu_01\",\"content\":\"{}\",\"is_error\":false}}\n",
        json_escape(&inner)
    ))
}

fn log_line(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let msg = match f.kind {
        Kind::Url => format!("connecting to amqps://orders:{}@mq.example.com:5671/prod", percent_encode(&s.value)),
        Kind::Password => format!("bootstrap: created admin user with password: {}", s.value),
        Kind::Header => format!("outgoing request GET https://api.example.com/v2/users headers={{\"Authorization\":\"{}\"}}", header_value(f, s)),
        Kind::Pem => format!("loaded signing key:\n{}", s.value),
        Kind::DockerAuth => format!("registry auth resolved: {{\"auth\":\"{}\",\"serveraddress\":\"ghcr.io\"}}", s.value),
        Kind::ContextToken => format!("config: {}={} source=env", f.key, s.value),
        Kind::Token => format!("upload: using credentials {} for bucket artifacts", s.value),
    };
    Some(format!("2024-05-21T10:04:11.382Z INFO  worker::boot starting worker pid=4211\n2024-05-21T10:04:11.391Z DEBUG worker::auth {msg}\n2024-05-21T10:04:11.402Z INFO  worker::boot ready in 20ms\n"))
}

fn k8s_env(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let v = match f.kind {
        Kind::Url => format!(
            "postgres://app:{}@postgres:5432/app",
            percent_encode(&s.value)
        ),
        Kind::Pem => json_escape(&s.value),
        Kind::Header => header_value(f, s),
        _ => s.value.clone(),
    };
    let name = if f.kind == Kind::Header {
        "UPSTREAM_AUTHORIZATION"
    } else {
        f.env
    };
    Some(format!(
        "    spec:\n      containers:\n      - name: api\n        image: ghcr.io/acme/api:1.4.2\n        env:\n        - name: {name}\n          value: \"{v}\"\n        - name: LOG_LEVEL\n          value: info\n"
    ))
}

fn python_call(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let call = match f.kind {
        Kind::Url => format!(
            "engine = create_engine(\"mysql+pymysql://report:{}@db.example.com/sales\")",
            percent_encode(&s.value)
        ),
        Kind::Password => format!(
            "conn = psycopg2.connect(host=\"db\", user=\"app\", password=\"{}\")",
            s.value
        ),
        Kind::Header => format!(
            "resp = requests.get(url, headers={{\"Authorization\": \"{}\"}})",
            header_value(f, s)
        ),
        Kind::Pem => format!("KEY = \"\"\"{}\"\"\"", s.value),
        Kind::DockerAuth => format!(
            "client.login(registry=\"ghcr.io\", auth_config={{\"auth\": \"{}\"}})",
            s.value
        ),
        _ => format!(
            "client = Client({}=\"{}\", timeout=30)",
            f.key.trim_start_matches('_'),
            s.value
        ),
    };
    Some(format!(
        ">>> import client\n>>> {call}\n>>> client.ping()\nTrue\n"
    ))
}

fn cli_flag(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let cmd = match f.kind {
        Kind::Url => format!("psql \"postgresql://readonly:{}@replica.internal:5432/app?sslmode=require\" -c 'select 1'", percent_encode(&s.value)),
        Kind::Password => match r.below(3) {
            0 => format!("mysql -h db.internal -u root -p{} app < dump.sql", s.value),
            1 => format!("PGPASSWORD={} psql -h db.internal -U app -c 'select 1'", s.value),
            _ => format!("deploy --db-password={} --region eu-west-1", s.value),
        },
        Kind::Header => format!("http GET api.example.com/v1/items 'Authorization:{}'", header_value(f, s)),
        Kind::Pem => return None,
        Kind::DockerAuth => format!("regctl registry set ghcr.io --auth {}", s.value),
        _ => {
            let flag = f.key.trim_start_matches('_').replace('_', "-");
            if r.below(2) == 0 {
                format!("deploy --{flag}={} --region eu-west-1", s.value)
            } else {
                format!("deploy --{flag} {} --region eu-west-1", s.value)
            }
        }
    };
    Some(format!("+ {cmd}\nok\n"))
}

fn xml_cfg(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let inner = match f.kind {
        Kind::Url => format!("<connectionString>Server=tcp:sql.example.com,1433;Database=app;User ID=app;Password={};Encrypt=true;</connectionString>", s.value),
        Kind::Password => format!("<add key=\"DbPassword\" value=\"{}\" />", s.value),
        Kind::Header => format!("<header name=\"Authorization\">{}</header>", header_value(f, s)),
        Kind::Pem => format!("<privateKey>{}</privateKey>", s.value),
        Kind::DockerAuth => return None,
        _ => {
            let tag: String = f.key.trim_start_matches('_').to_string();
            format!("<{tag}>{}</{tag}>", s.value)
        }
    };
    Some(format!("<?xml version=\"1.0\"?>\n<configuration>\n  <appSettings>\n    {inner}\n  </appSettings>\n</configuration>\n"))
}

fn connection_string(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    Some(match f.kind {
        Kind::ContextToken if f.name == "azure-storage-key" => format!("AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={};EndpointSuffix=core.windows.net\n", s.value),
        Kind::Password | Kind::Url => format!("ConnectionStrings__Default=Server=tcp:sql.example.com,1433;Initial Catalog=app;User ID=app;Password={};Encrypt=True;\n", s.value),
        Kind::Token | Kind::ContextToken => format!("Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;{}={}\n", f.env, s.value),
        _ => return None,
    })
}

fn terraform(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let line = match f.kind {
        Kind::Url => format!(
            "  connection_url = \"postgres://tf:{}@db:5432/state\"",
            percent_encode(&s.value)
        ),
        Kind::Pem => format!("  private_key = <<EOT\n{}\nEOT", s.value),
        Kind::Header => format!("  authorization = \"{}\"", header_value(f, s)),
        _ => format!("  {} = \"{}\"", f.key.trim_start_matches('_'), s.value),
    };
    Some(format!(
        "resource \"vault_generic_secret\" \"app\" {{\n  path = \"secret/app\"\n{line}\n}}\n"
    ))
}

fn export_shell(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let v = match f.kind {
        Kind::Pem => s.value.clone(),
        _ => value_in_env(f, s),
    };
    Some(format!(
        "$ cat deploy.sh\n#!/bin/sh\nset -eu\nexport {}='{}'\n./release --env prod\n",
        f.env, v
    ))
}

fn url_query(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let q = match f.kind {
        Kind::Token | Kind::ContextToken => format!("access_token={}", percent_encode(&s.value)),
        Kind::Password => format!("password={}", percent_encode(&s.value)),
        Kind::Url => format!(
            "jdbc:postgresql://db.internal:5432/app?user=app&password={}&ssl=true",
            percent_encode(&s.value)
        ),
        _ => return None,
    };
    Some(format!("10.1.2.3 - - [21/May/2024:10:04:11 +0000] \"GET /oauth/callback?state=af0ifjsldkj&{q}&scope=read HTTP/1.1\" 302 0\n"))
}

fn env_repr(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let v = match f.kind {
        Kind::Pem => json_escape(&s.value),
        _ => value_in_env(f, s),
    };
    Some(format!(">>> import os; os.environ\nenviron({{'PATH': '/usr/local/bin:/usr/bin', 'HOME': '/root', '{}': '{}', 'LANG': 'C.UTF-8'}})\n", f.env, v))
}

fn markdown_table(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    // A cell holds no raw `|` (Facebook's `<app id>|<secret>`): it would end the cell.
    if matches!(f.kind, Kind::Pem) || s.value.contains('|') {
        return None;
    }
    Some(format!(
        "| Variable | Value |\n|---|---|\n| LOG_LEVEL | info |\n| {} | {} |\n",
        f.env,
        value_in_env(f, s)
    ))
}

fn systemd(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    if matches!(f.kind, Kind::Pem) {
        return None;
    }
    Some(format!("$ systemctl cat api.service\n[Service]\nUser=api\nEnvironment=\"{}={}\"\nExecStart=/usr/bin/api --port 8080\n", f.env, value_in_env(f, s)))
}

fn http_response(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let body = match f.kind {
        Kind::Token | Kind::ContextToken | Kind::Header => format!("{{\"{}\":\"{}\",\"token_type\":\"Bearer\",\"expires_in\":3599,\"scope\":\"read write\"}}", if f.kind == Kind::Header { "access_token" } else { f.key }, s.value),
        Kind::Password => format!("{{\"username\":\"svc\",\"password\":\"{}\",\"created\":true}}", json_escape(&s.value)),
        Kind::Pem => format!("{{\"name\":\"deploy\",\"private_key\":\"{}\"}}", json_escape(&s.value)),
        Kind::Url => format!("{{\"connection_uri\":\"postgresql://u_8f2:{}@pg.example.com:5432/db\"}}", percent_encode(&s.value)),
        Kind::DockerAuth => format!("{{\"auths\":{{\"r.example.com\":{{\"auth\":\"{}\"}}}}}}", s.value),
    };
    Some(format!(
        "< HTTP/1.1 200 OK\n< Content-Type: application/json\n<\n{body}\n"
    ))
}

/// The value as a one-line string literal body (PEM blocks JSON-escaped).
fn literal(f: &Family, s: &Secret) -> String {
    match f.kind {
        Kind::Pem => json_escape(&s.value),
        Kind::Header => header_value(f, s),
        _ => value_in_env(f, s),
    }
}

/// `apiToken` from `api_token` / `_authToken`.
fn camel(key: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in key.trim_start_matches('_').chars() {
        if c == '_' || c == '-' {
            up = !out.is_empty();
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn js_env_fallback(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    let env = f.env;
    let c = camel(f.key);
    let line = match r.below(7) {
        0 => format!("const {c} = process.env.{env} || '{v}';"),
        1 => format!("const {c} = process.env.{env} ?? \"{v}\";"),
        2 => format!("  {c}: process.env[\"{env}\"] || `{v}`,"),
        3 => format!("{c} = os.environ.get(\"{env}\") or \"{v}\""),
        4 => format!("$key = getenv('{env}') ?: '{v}';"),
        5 => format!("const {c} = import.meta.env.VITE_{env} ?? '{v}';"),
        _ => format!("let {c} = Deno.env.get(\"{env}\") ?? \"{v}\";"),
    };
    Some(format!("// config.js\nconst port = process.env.PORT || 8080;\n{line}\nmodule.exports = {{ port }};\n"))
}

fn php_cfg(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    let k = f.key.trim_start_matches('_');
    let line = match r.below(4) {
        0 => format!("${k} = '{v}';"),
        1 => format!("${k} .= '{v}';"),
        2 => format!("define('{}', '{v}');", f.env),
        _ => format!("$config['{k}'] = \"{v}\";"),
    };
    Some(format!(
        "<?php\n$host = 'db.internal';\n{line}\nreturn $config;\n"
    ))
}

fn makefile(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s);
    let op = *r.pick(&["::=", ":::=", "?=", "+=", ":=", "="]);
    let pre = if r.below(3) == 0 { "export " } else { "" };
    Some(format!(
        "CC ?= gcc\nPREFIX := /usr/local\n{pre}{} {op} {v}\n\nall:\n\t$(CC) -o app main.c\n",
        f.env
    ))
}

fn set_property(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    let env = f.env;
    let line = match r.below(6) {
        0 => format!(
            "System.setProperty(\"{}\", \"{v}\");",
            f.key.trim_start_matches('_').replace('_', ".")
        ),
        1 => format!("System.setProperty(\"{env}\", \"{v}\");"),
        2 => format!("os.Setenv(\"{env}\", \"{v}\")"),
        3 => format!("std::env::set_var(\"{env}\", \"{v}\");"),
        4 => format!("os.environ.setdefault(\"{env}\", \"{v}\")"),
        _ => format!("token = os.getenv('{env}', '{v}')"),
    };
    Some(format!("    // test setup\n    {line}\n    run();\n"))
}

fn xml_next_line(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s).replace('&', "&amp;");
    let tag = f.key.trim_start_matches('_');
    Some(format!("<settings>\n  <server>\n    <id>deploy</id>\n    <{tag}>\n      {v}\n    </{tag}>\n  </server>\n</settings>\n"))
}

/// A key element then its value element: a property list's `<key>` and
/// `<string>` on two lines, or a Hadoop `<property>`'s `<name>` and
/// `<value>` on one.
fn xml_key_value(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s).replace('&', "&amp;").replace('<', "&lt;");
    let name = f.key.trim_start_matches('_');
    Some(if r.below(2) == 0 {
        format!("<plist version=\"1.0\">\n<dict>\n\t<key>{name}</key>\n\t<string>{v}</string>\n</dict>\n</plist>\n")
    } else {
        format!("<configuration>\n  <property><name>{name}</name><value>{v}</value></property>\n</configuration>\n")
    })
}

fn shell_default(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s);
    if v.contains(' ') {
        return None;
    }
    Some(format!("services:\n  api:\n    image: ghcr.io/acme/api:1.4\n    environment:\n      LOG_LEVEL: ${{LOG_LEVEL:-info}}\n      {env}: ${{{env}:-{v}}}\n", env = f.env))
}

fn typed_decl(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    let c = camel(f.key);
    let env = f.env;
    let line = match r.below(8) {
        0 => format!("const {env}: &str = \"{v}\";"),
        1 => format!("pub static {env}: &'static str = \"{v}\";"),
        2 => format!("const {c}: string = \"{v}\";"),
        3 => format!("val {c}: String = \"{v}\""),
        // A nullable type (Kotlin, Swift).
        4 => format!("private var {c}: String? = \"{v}\""),
        // A TypeScript optional property with a default.
        5 => format!("class Config {{\n  {c}?: string = \"{v}\";\n}}"),
        // A line of a Go `var (` block.
        6 => format!("var (\n\t{c} string = \"{v}\"\n)"),
        _ => format!("var {c} string = \"{v}\""),
    };
    Some(format!("pub struct Assign {{\n    pub eq_token: Token![=],\n    pub pwd: *mut passwd,\n}}\n{line}\nfn check(password: &str, api_key: Option<String>) -> bool {{ true }}\n"))
}

/// Go raw strings and JS template literals holding the secret, beside
/// backtick commands and templates that must stay.
fn raw_string(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || c == '`') {
        return None;
    }
    let c = camel(f.key);
    let env = f.env;
    let line = match r.below(4) {
        0 => format!("\t{c} := `{v}`"),
        1 => format!("const {c} = `{v}`"),
        2 => format!("\t{env} = `{v}`"),
        _ => format!("export const {env} = `{v}`;"),
    };
    Some(format!("func load() {{\n{line}\n\tcmd := `git rev-parse HEAD`\n}}\nTOKEN=`cat /run/secrets/token`\nconst url = `${{base}}/v1/token`;\n"))
}

/// String literals with a prefix holding the secret: Python's bytes, raw
/// and unicode strings (Flask's `app.secret_key = b'…'`), Rust's byte
/// strings; beside a raw regex and a bytes literal of data that must stay.
fn string_prefix(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(['\'', '"', '\\', '{', '\n']) {
        return None;
    }
    let c = camel(f.key);
    let env = f.env;
    let line = match r.below(6) {
        0 => format!("{env} = b'{v}'"),
        1 => format!("    {c} = r\"{v}\""),
        2 => format!("{env} = u'{v}'"),
        3 => format!("    settings.{env} = br\"{v}\""),
        4 => format!("let {c} = b\"{v}\";"),
        _ => format!("const {env}: &[u8] = b\"{v}\";"),
    };
    Some(format!(
        "import re\n{line}\nTOKEN_RE = re.compile(rb'[A-Za-z0-9]{{40}}')\nheader = b'\\x89PNG\\r\\n'\n"
    ))
}

/// Python's triple-quoted string on one line holding the secret, beside a
/// docstring that names a token.
fn triple_quoted(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(['\'', '"', '\\', '\n']) {
        return None;
    }
    let env = f.env;
    let q = if r.below(2) == 0 { "\"\"\"" } else { "'''" };
    let line = match r.below(3) {
        0 => format!("{env} = {q}{v}{q}"),
        1 => format!("    {} = {q}{v}{q}", f.key),
        _ => format!("settings.{env}={q}{v}{q}"),
    };
    Some(format!(
        "def token_of(user):\n    \"\"\"Return the API token of the user.\"\"\"\n{line}\n"
    ))
}

/// A YAML value after a tag (`password: !!str v`), beside a tagged value
/// that names no secret.
fn yaml_tag(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains([' ', '#', '\n']) || v.starts_with(['\'', '"']) {
        return None;
    }
    Some(format!(
        "config:\n  region: !!str eu-west-1\n  {}: !!str {v}\n  retries: !!int 3\n",
        f.key.trim_start_matches('_')
    ))
}

/// The GitHub CLI storing the secret: `gh secret set NAME --body "v"`.
fn gh_secret_set(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || "\"'$`\\".contains(c)) {
        return None;
    }
    let env = f.env;
    let line = match r.below(3) {
        0 => format!("gh secret set {env} --body \"{v}\""),
        1 => format!("gh secret set {env} -b {v} --repo acme/api"),
        _ => format!("gh secret set {env} --env production --body={v}"),
    };
    Some(format!(
        "$ {line}\n✓ Set Actions secret {env} for acme/api\n$ gh secret set DEPLOY_KEY < deploy_key.pem\n"
    ))
}

/// A secret stored from the command line: piped or given in a here-string
/// to a command that stores its standard input, or given to a secret
/// store's value flag, beside the same commands reading a file or a
/// variable (which stay).
fn stored_secret(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem
        || v.starts_with('-')
        || v.contains(|c: char| c.is_whitespace() || "\"'$`\\|;&<>%".contains(c))
    {
        return None;
    }
    let env = f.env;
    let line = match r.below(8) {
        0 => format!("echo \"{v}\" | docker secret create {} -", f.key),
        1 => format!("printf '%s' '{v}' | gh secret set {env} --repo acme/api"),
        2 => format!("npx wrangler secret put {env} <<< \"{v}\""),
        3 => format!(
            "echo -n {v} | gcloud secrets versions add {} --data-file=-",
            f.key
        ),
        4 => format!(
            "az keyvault secret set --vault-name acme-kv --name {} --value \"{v}\"",
            f.key
        ),
        5 => format!(
            "aws ssm put-parameter --name /acme/{} --type SecureString --value {v}",
            f.key
        ),
        6 => format!("dotnet user-secrets set \"Acme:{env}\" \"{v}\""),
        _ => format!("security add-generic-password -a ci -s {} -w '{v}'", f.key),
    };
    Some(format!(
        "$ {line}\n$ docker secret create {} ./secret.txt\n$ echo \"${env}\" | gh secret set {env}\n$ aws ssm put-parameter --name /acme/region --value eu-west-1 --type String\n",
        f.key
    ))
}

/// A key assigned to its service's name alone (`DATADOG=v`, `"cloudflare":
/// "v"`), for the families whose name opens with a service that keys are
/// named after; a setting of the same service that is no key stays.
fn vendor_name(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    const VENDORS: &[&str] = &[
        "bitbucket",
        "circleci",
        "cloudflare",
        "contentful",
        "discord",
        "dropbox",
        "facebook",
        "heroku",
        "launchdarkly",
        "mailchimp",
        "mapbox",
        "messagebird",
        "newrelic",
        "plaid",
        "sendgrid",
        "sentry",
        "telegram",
        "twilio",
        "twitter",
        "yandex",
    ];
    let vendor = f.name.split('-').next().filter(|v| VENDORS.contains(v))?;
    let v = literal(f, s);
    if !matches!(f.kind, Kind::Token | Kind::ContextToken)
        || v.contains(|c: char| c.is_whitespace() || "\"'\\`".contains(c))
    {
        return None;
    }
    let upper = vendor.to_ascii_uppercase();
    let line = match r.below(5) {
        0 => format!("{upper}={v}"),
        1 => format!("  \"{vendor}\": \"{v}\","),
        2 => format!("{vendor}: '{v}'"),
        3 => format!("ci_{vendor} = \"{v}\""),
        _ => format!("export STAGING_{upper}={v}"),
    };
    Some(format!(
        "{line}\n{vendor}_site: app.{vendor}.example.com\n\"{vendor}\": \"^3.21.0\",\n{upper}_ENV=production-eu-west-1\n"
    ))
}

/// C and C++ sources: a `char` array and a macro holding the secret
/// (firmware, Arduino sketches), beside a length macro, a buffer and an
/// index comparison that must stay.
fn c_source(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(['"', '\\']) {
        return None;
    }
    let c = camel(f.key);
    let env = f.env;
    let line = match r.below(4) {
        0 => format!("static const char {c}[] = \"{v}\";"),
        1 => format!("#define {env} \"{v}\""),
        2 => format!("char {env}[{}] = \"{v}\";", v.len() + 1),
        _ => format!("  #  define {env} \"{v}\""),
    };
    Some(format!(
        "#include <stdio.h>\n#define {env}_LEN 64\n{line}\nchar {c}Buf[64];\nif (key[0] == 'x') return;\n"
    ))
}

/// A secret-named setter or builder given the secret as its one literal
/// (Java, Go, Python), beside setters given a variable or a number.
fn setter_call(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(['"', '\'', '\\']) {
        return None;
    }
    let c = camel(f.key);
    let mut up = c.clone();
    if let Some(first) = up.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    let key = f.key.trim_start_matches('_');
    let line = match r.below(4) {
        0 => format!("client.set{up}(\"{v}\");"),
        1 => format!("cfg.set_{key}('{v}')"),
        2 => format!("Client.builder().with{up}(\"{v}\").build();"),
        _ => format!("opts.Set{up}(\"{v}\")"),
    };
    Some(format!(
        "    // wire the client\n    {line}\n    client.setTimeout(30);\n    user.setPassword(password);\n"
    ))
}

/// A package manager's or git's configuration set from the command line,
/// beside settings that name no secret and a signing key's public id.
fn config_command(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || "\"'$`\\".contains(c)) {
        return None;
    }
    let key = f.key.trim_start_matches('_');
    let line = match r.below(4) {
        0 => format!("git config --global {} {v}", key.replace('_', ".")),
        1 => format!("yarn config set {} \"{v}\"", camel(f.key)),
        2 if f.name == "aws-secret-access-key" || f.name == "aws-session-token" => {
            format!("aws configure set {key} {v} --profile ci")
        }
        _ => format!("npm config set //npm.pkg.example.com/:{key} {v}"),
    };
    Some(format!(
        "$ {line}\n$ git config --global credential.helper store\n$ git config --global user.signingkey 3AA5C34371567BD2\n$ npm config set registry https://registry.npmjs.org/\n"
    ))
}

/// What installers and CLIs print when they make a credential: a phrase
/// naming it, then the value at the line's end; beside phrases whose value
/// is about the credential.
fn installer_output(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    // A phrase's value must read as random: a word ends prose's sentences.
    if f.kind == Kind::Pem
        || f.name == "word-password"
        || v.contains(|c: char| c.is_whitespace() || "\"'`".contains(c))
    {
        return None;
    }
    let line = match r.below(5) {
        0 => format!("[Note] A temporary password is generated for root@localhost: {v}"),
        1 => format!("Please use the following password to proceed to installation: {v}"),
        2 => format!("The generated password for the elastic built-in superuser is : {v}"),
        3 => format!("Your API key is: {v}"),
        _ => format!("Token (will not be shown again): {v}"),
    };
    Some(format!(
        "Setting up service...\n{line}\nToken expires at: 2024-06-01T00:00:00Z\nThe password is stored in: /etc/app/credentials\nDone.\n"
    ))
}

/// A password given to a command as a positional argument or a short flag.
fn command_password(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = &s.value;
    if f.kind != Kind::Password
        || v.starts_with(['*', '-', '/'])
        || v.contains(|c: char| c.is_whitespace() || "\"'`/@:$\\".contains(c))
    {
        return None;
    }
    let line = |i: usize| match i {
        0 => format!("mongosh \"mongodb://db:27017/app\" -u admin -p {v}"),
        1 => format!("rabbitmqctl add_user deploy {v}"),
        2 => format!("net user deploy {v} /add"),
        3 => format!("sqlplus system/{v}@//db:1521/ORCL"),
        4 => format!("echo \"deploy:{v}\" | chpasswd"),
        5 => format!("ssh-keygen -t ed25519 -N \"{v}\" -f deploy_key"),
        7 => format!("echo \"{v}\" | sudo -S systemctl restart api"),
        8 => format!("sudo -S apt-get update <<< '{v}'"),
        9 => format!("mysql -h db -u root -e \"SET PASSWORD FOR 'app'@'%' = PASSWORD('{v}');\""),
        10 => format!(
            "python3 -c 'c = configparser.ConfigParser(); c.set(\"db\", \"password\", \"{v}\")'"
        ),
        11 => format!("echo \"::add-mask::{v}\""),
        12 => format!("nmcli dev wifi connect HomeNet password {v}"),
        13 => format!("cmdkey /add:fileserver /user:corp\\bob /pass:{v}"),
        14 => format!("xfreerdp /v:host /u:admin /p:{v} /cert:ignore"),
        15 => format!("psexec \\\\host -u admin -p {v} cmd"),
        16 => format!("lftp -u bob,{v} sftp://files.example.com"),
        17 => format!("http -a bob:{v} https://api.example.com/me"),
        18 => format!("redis-cli monitor\n1700000000.123456 [0 10.0.0.5:5000] \"AUTH\" \"{v}\""),
        // A registry's token is never a word (`run the cargo login
        // command`): a word password goes to `mysql -p` instead.
        19 if f.name == "word-password" => format!("mysql -h db -u root -p{v} app"),
        19 => format!("cargo login --registry internal {v}"),
        20 => format!("expect \"*assword:\"\nsend \"{v}\\r\""),
        21 => format!("mysqladmin -u root -h db password {v}"),
        // A command continued over lines.
        22 => format!("docker login \\\n    -u ci \\\n    -p {v} \\\n    registry.example.com"),
        _ => format!("mc alias set local http://localhost:9000 minioadmin {v}"),
    };
    // Five commands of the 24 per record (one in four or five), so that
    // nearly every command's rule meets a value in one record per family.
    let first = r.below(24);
    let lines: Vec<String> = (0..5)
        .map(|k| format!("$ {}\n", line((first + 4 * k) % 24)))
        .collect();
    Some(format!(
        "{}$ net user deploy /delete\n$ sqlplus / as sysdba\n$ mongosh --port 27017\n",
        lines.concat()
    ))
}

/// A literal given as a default: Python's `default=` argument (django-environ,
/// settings lookups, argparse, click, pydantic), Ruby's fallback block and a
/// Terraform variable's `default`, beside defaults that are no secret.
fn default_argument(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(['"', '\'', '\\', '{', '}']) {
        return None;
    }
    let env = f.env;
    let key = f.key.trim_start_matches('_');
    let flag = key.replace('_', "-");
    let text = match r.below(7) {
        0 => format!("import environ\nenv = environ.Env()\nDEBUG = env(\"DEBUG\", default=False)\n{env} = env(\"{env}\", default=\"{v}\")\n"),
        1 => format!("db = settings.get('DATABASE_HOST', default='localhost')\n{key} = settings.get('{env}', default='{v}')\n"),
        2 => format!("parser.add_argument(\"--timeout\", type=int, default=30)\nparser.add_argument(\"--{flag}\", type=str, help=\"the key\", default=\"{v}\")\n"),
        3 => format!("@click.command()\n@click.option(\"--{flag}\", default=\"{v}\")\n@click.option(\"--{flag}-file\", default=None)\ndef main({key}):\n"),
        4 => format!("class Settings(BaseSettings):\n    {key}: str = Field(default=\"{v}\")\n    {key}_id: Optional[str] = Field(None, env=\"{env}_ID\")\n"),
        5 => format!("{key} = ENV.fetch(\"{env}\") {{ \"{v}\" }}\nport = ENV.fetch(\"PORT\") {{ 3000 }}\n"),
        _ => format!("variable \"{key}\" {{\n  type        = string\n  description = \"The {key} for the API\"\n  sensitive   = true\n  default     = \"{v}\"\n}}\nvariable \"region\" {{\n  default = \"us-east-1\"\n}}\n"),
    };
    Some(text)
}

/// What secret managers print: a CLI's box-drawn table (`doppler secrets`)
/// and Azure Key Vault's JSON, whose `tags` object sits between the
/// secret's name and its value.
fn secret_manager_output(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || "\"\\|│".contains(c)) {
        return None;
    }
    let env = f.env;
    let name = f.key.trim_start_matches('_').replace('_', "-");
    Some(match r.below(2) {
        0 => format!(
            "$ doppler secrets\n┌──────────┬──────────┐\n│ NAME     │ VALUE    │\n├──────────┼──────────┤\n│ LOG_LEVEL │ info │\n│ {env} │ {v} │\n└──────────┴──────────┘\n"
        ),
        _ => format!(
            "$ az keyvault secret show --vault-name kv --name {name}\n{{\n  \"attributes\": {{\n    \"enabled\": true\n  }},\n  \"contentType\": null,\n  \"id\": \"https://kv.vault.azure.net/secrets/{name}/0123abcd\",\n  \"name\": \"{name}\",\n  \"tags\": {{\n    \"env\": \"prod\"\n  }},\n  \"value\": \"{v}\"\n}}\n"
        ),
    })
}

fn grep_output(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s);
    let n = r.range(2, 400);
    let line = match r.below(3) {
        0 => format!("config/settings.py:{n}:{} = \"{v}\"", f.env),
        1 => format!("deploy/.env:{n}:{}={v}", f.env),
        _ => format!("creds.txt:{n}:{}: {v}", f.key.trim_start_matches('_')),
    };
    Some(format!(
        "$ grep -rn {} .\n{line}\nsrc/token.rs-{}-    let n = 4;\n",
        f.env,
        n + 1
    ))
}

fn ps_env(f: &Family, s: &Secret, _r: &mut Rng) -> Option<String> {
    if f.kind == Kind::Pem {
        return None;
    }
    let v = literal(f, s);
    if v.contains(' ') {
        return None;
    }
    Some(format!("$ ps axeww | grep api\n 4242 ?        Ss     0:00 /usr/bin/api --port 8080 PATH=/usr/local/bin:/usr/bin PWD=/srv/api-2024_v3/x9Kq OLDPWD=/srv/releases/2024-05-21_x7Q {}={v} HOME=/root\n", f.env))
}

/// What a context's text must keep: the types of typed declarations, grep
/// prefixes, the working-directory variables of `ps` output.
fn keeps(context: &str, text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match context {
        "typed-decl" => {
            out.push("pub eq_token: Token![=],".into());
            out.push("pub pwd: *mut passwd,".into());
            out.push("fn check(password: &str, api_key: Option<String>) -> bool".into());
            for t in [
                ": &str = \"",
                ": &'static str = \"",
                ": string = \"",
                ": String = \"",
                " string = \"",
            ] {
                if text.contains(t) {
                    out.push(t.into());
                    break;
                }
            }
        }
        "string-prefix" => {
            out.push("TOKEN_RE = re.compile(rb'[A-Za-z0-9]{40}')".into());
            out.push("header = b'\\x89PNG\\r\\n'".into());
        }
        "grep-output" => {
            for line in text.lines().skip(1) {
                let n = line.split(':').take(2).collect::<Vec<_>>();
                if n.len() == 2 && n[1].bytes().all(|b| b.is_ascii_digit()) {
                    out.push(format!("{}:{}:", n[0], n[1]));
                }
            }
            out.push("src/token.rs-".into());
        }
        "raw-string" => {
            out.push("cmd := `git rev-parse HEAD`".into());
            out.push("TOKEN=`cat /run/secrets/token`".into());
            out.push("const url = `${base}/v1/token`;".into());
        }
        "vendor-name" => {
            for line in text.lines().skip(1) {
                out.push(line.into());
            }
        }
        "ps-env" => {
            out.push("PWD=/srv/api-2024_v3/x9Kq ".into());
            out.push("OLDPWD=/srv/releases/2024-05-21_x7Q ".into());
        }
        _ => {}
    }
    out
}

pub type Context = fn(&Family, &Secret, &mut Rng) -> Option<String>;

pub fn contexts() -> Vec<(&'static str, Context)> {
    vec![
        ("env-dump", env_dump as Context),
        ("dotenv", dotenv),
        ("json", json_cfg),
        ("yaml", yaml_cfg),
        ("toml", toml_cfg),
        ("curl", curl_cmd),
        ("http-headers", http_headers),
        ("connection-url", conn_url),
        ("stack-trace", stack_trace),
        ("git-remote", git_remote),
        ("docker", docker_cfg),
        ("escaped-json", escaped_json),
        ("log-line", log_line),
        ("k8s-env", k8s_env),
        ("python", python_call),
        ("cli-flag", cli_flag),
        ("xml", xml_cfg),
        ("connection-string", connection_string),
        ("terraform", terraform),
        ("shell-export", export_shell),
        ("url-query", url_query),
        ("env-repr", env_repr),
        ("markdown-table", markdown_table),
        ("systemd", systemd),
        ("http-response", http_response),
        ("js-env-fallback", js_env_fallback),
        ("php", php_cfg),
        ("makefile", makefile),
        ("set-property", set_property),
        ("xml-next-line", xml_next_line),
        ("shell-default", shell_default),
        ("typed-decl", typed_decl),
        ("raw-string", raw_string),
        ("string-prefix", string_prefix),
        ("triple-quoted", triple_quoted),
        ("grep-output", grep_output),
        ("ps-env", ps_env),
        ("yaml-tag", yaml_tag),
        ("gh-secret-set", gh_secret_set),
        ("stored-secret", stored_secret),
        ("c-source", c_source),
        ("setter-call", setter_call),
        ("config-command", config_command),
        ("installer-output", installer_output),
        ("command-password", command_password),
        ("default-argument", default_argument),
        ("secret-manager-output", secret_manager_output),
        ("xml-key-value", xml_key_value),
        ("vendor-name", vendor_name),
        ("value-below", value_below),
        ("builder-method", builder_method),
    ]
}

/// A value on the line below its name's `=`: a one-line heredoc in
/// Terraform or the shell, or a shell line continuation, beside a heredoc
/// whose body is prose.
fn value_below(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || "\"'\\`$".contains(c)) {
        return None;
    }
    let key = f.key.trim_start_matches('_');
    Some(match r.below(3) {
        0 => format!(
            "resource \"vault_generic_secret\" \"app\" {{\n  description = <<EOT\nThe token of the deploy user.\nEOT\n  {key} = <<EOT\n{v}\nEOT\n}}\n"
        ),
        1 => format!("cat > .env <<'EOF'\n{} = <<-\"EOF\"\n\t{v}\n\tEOF\n", f.env),
        // A bare `|` would be a pipe: such a value is quoted.
        _ if v.contains('|') => {
            format!("#!/bin/sh\nexport {}=\\\n  \"{v}\"\n./release --env prod\n", f.env)
        }
        _ => format!("#!/bin/sh\nexport {}=\\\n  {v}\n./release --env prod\n", f.env),
    })
}

/// A builder's or client's method named by the secret, given one literal,
/// beside a method that reads a password at a prompt.
fn builder_method(f: &Family, s: &Secret, r: &mut Rng) -> Option<String> {
    let v = literal(f, s);
    if f.kind == Kind::Pem || v.contains(|c: char| c.is_whitespace() || "\"'\\".contains(c)) {
        return None;
    }
    let m = camel(f.key);
    if !matches!(
        m.to_ascii_lowercase().as_str(),
        "password"
            | "token"
            | "apikey"
            | "apitoken"
            | "accesstoken"
            | "authtoken"
            | "secret"
            | "clientsecret"
            | "secretkey"
    ) {
        return None;
    }
    let key = f.key.trim_start_matches('_');
    let line = match r.below(3) {
        0 => format!("let client = Client::builder().{key}(\"{v}\").build()?;"),
        1 => format!("client = sdk.Client.{key}('{v}')"),
        _ => format!("ds = DataSourceBuilder.create().url(url).{m}(\"{v}\").build();"),
    };
    Some(format!(
        "    {line}\n    let typed = reader.password(\"Password: \")?;\n"
    ))
}

/// Secret records: every family in every context that suits it, `per` instances each.
pub fn secret_records(seed: u64, per: usize) -> Vec<Record> {
    let mut r = Rng::new(seed);
    let mut out = Vec::new();
    for f in families() {
        for (cname, ctx) in contexts() {
            for _ in 0..per {
                let s = (f.gen)(&mut r);
                if let Some(text) = ctx(&f, &s, &mut r) {
                    let mut must_hide = s.must_hide.clone();
                    // In URLs the password appears percent-encoded.
                    if text.contains(&percent_encode(&s.value)) && !text.contains(&s.value) {
                        must_hide = s.must_hide.iter().map(|h| percent_encode(h)).collect();
                    }
                    let must_keep = keeps(cname, &text);
                    out.push(Record {
                        family: f.name,
                        context: cname,
                        text,
                        must_hide,
                        must_keep,
                    });
                }
            }
        }
    }
    out
}

fn sha(r: &mut Rng, n: usize) -> String {
    r.chars(HEX, n)
}

fn uuid(r: &mut Rng) -> String {
    format!(
        "{}-{}-4{}-{}{}-{}",
        r.chars(HEX, 8),
        r.chars(HEX, 4),
        r.chars(HEX, 3),
        r.pick(&["8", "9", "a", "b"]),
        r.chars(HEX, 3),
        r.chars(HEX, 12)
    )
}

fn minified_js(r: &mut Rng) -> String {
    let v = |r: &mut Rng| r.chars(LOWER, 1);
    let mut s = String::from("!function(e,t){\"use strict\";");
    for _ in 0..r.range(20, 40) {
        let a = v(r);
        let b = v(r);
        let piece = match r.below(10) {
            0 => format!("var {a}=function({b}){{return {b}.token=t.token,{b}}};"),
            1 => format!("{a}.headers.Authorization=\"Bearer \"+{b}.accessToken;"),
            2 => format!("function {a}({b}){{if(!{b}.password)throw new Error(\"password required\");return {b}}}"),
            3 => format!("{a}={{apiKey:{b}.apiKey,secret:void 0,key:\"{}\"}};", r.chars(LOWER, 6)),
            4 => format!("{a}.prototype.getToken=function(){{return this._token||null}};"),
            5 => format!("const {a}=new Map([[\"x\",{}],[\"y\",{}]]);", r.range(0, 99), r.range(0, 99)),
            6 => format!("{a}=\"{}\"===typeof {b}?{b}:{b}.id;", r.pick(&["string", "number"])),
            7 => format!("{a}.cacheKey=\"{}:\"+{b};", r.chars(LOWER, 5)),
            8 => format!("var {a}=/^[a-f0-9]{{40}}$/i.test({b});"),
            _ => format!("{a}.setItem(\"auth_state\",JSON.stringify({{loggedIn:!0,user:{b}}}));"),
        };
        s.push_str(&piece);
    }
    s.push_str("}(window);\n");
    s
}

/// Clean records: look-alikes and ordinary output that must come back unchanged.
pub fn clean_records(seed: u64, n: usize) -> Vec<Record> {
    let mut r = Rng::new(seed);
    let mut out = Vec::new();
    let kinds = 24;
    for i in 0..n {
        let (name, text) = match i % kinds {
            0 => ("git-log", format!("commit {}\nAuthor: Jane Doe <jane@example.com>\nDate:   Tue May 21 10:04:11 2024 +0200\n\n    Fix token refresh race ({})\n", sha(&mut r, 40), sha(&mut r, 7))),
            1 => ("cargo-lock", format!("[[package]]\nname = \"serde\"\nversion = \"1.0.{}\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{}\"\n", r.range(100, 219), sha(&mut r, 64))),
            2 => ("package-lock", format!("    \"node_modules/lodash\": {{\n      \"version\": \"4.17.21\",\n      \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n      \"integrity\": \"sha512-{}\",\n      \"dev\": true\n    }},\n", b64(&r.bytes(64), false, true))),
            3 => ("uuids", format!("2024-05-21T10:04:11Z INFO request_id={} trace_id={} span_id={} status=200\n{{\"id\": \"{}\", \"session_id\": \"{}\"}}\n", uuid(&mut r), sha(&mut r, 32), sha(&mut r, 16), uuid(&mut r), uuid(&mut r))),
            4 => ("base64-image", format!("<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgo{}\"/>\n.icon{{background:url(data:image/svg+xml;base64,{})}}\n", b64(&r.bytes(600), false, true), b64(&r.bytes(300), false, true))),
            5 => ("minified-js", minified_js(&mut r)),
            6 => ("placeholders", {
                let p = [
                    "DB_PASSWORD=${DB_PASSWORD}", "API_KEY=$API_KEY", "password: \"your-password-here\"", "api_key = \"your-api-key-here\"",
                    "token: <token>", "SECRET_KEY=xxxxxxxx", "Authorization: Bearer $TOKEN", "Authorization: Bearer <your-token>",
                    "password=changeme", "NPM_TOKEN: ${{ secrets.NPM_TOKEN }}", "password: {{ .Values.db.password }}",
                    "DATABASE_URL=postgres://user:password@localhost:5432/app", "AWS_SECRET_ACCESS_KEY=", "client_secret: null",
                    "export GITHUB_TOKEN=\"<paste token here>\"", "-p ****", "\"apiKey\": \"***\"", "token = \"\"", "password: !vault |",
                    "STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx", "OPENAI_API_KEY=sk-...", "secret: REPLACE_ME", "--password=$(cat /run/secrets/db)",
                    "password: ${env:DB_PASSWORD}", "api_key: %API_KEY%", "test: mysqladmin ping --password=\"$$(cat /run/secrets/db-password)\"", "token: \"{{ vault 'secret/token' }}\"", "passwd: ********",
                ];
                let a = r.pick(&p).to_string();
                let b = r.pick(&p).to_string();
                ("placeholders", format!("# example configuration\n{a}\n{b}\n"))
            }.1),
            7 => ("public-key", format!("-----BEGIN PUBLIC KEY-----\n{}\n{}\n-----END PUBLIC KEY-----\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{} deploy@ci\n", r.chars(B64, 64), r.chars(B64, 40), r.chars(B64, 43))),
            8 => ("certificate", format!("-----BEGIN CERTIFICATE-----\n{}\n{}\n{}\n-----END CERTIFICATE-----\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{} user@laptop\n", r.chars(B64, 64), r.chars(B64, 64), r.chars(B64, 30), r.chars(B64, 200))),
            9 => ("prose", r.pick(&[
                "The access token expires after 3600 seconds; request a new token with your refresh token.\nRotate API keys every 90 days and never commit a secret to git.\n",
                "To authenticate, set GITHUB_TOKEN in the repository secrets and pass it to the action.\nA password must be at least 12 characters long.\n",
                "Error: the provided token is invalid or expired. Generate a new personal access token under Settings > Developer settings.\n",
                "Use a bearer token in the Authorization header. Basic authentication is deprecated.\nKeys are rotated automatically by the secret manager.\n",
                "password reset email sent to j***@example.com\ntoken refresh scheduled in 300s\nsecret rotation: 0 secrets due\n",
                "Enter your password: \nPassword: \nLogin failed: wrong password (3 attempts left)\n",
                "Authorization: OAuth realm=photos, oauth_signature_method=HMAC-SHA1, oauth_version=1.0\nAuthorization: Digest username=Mufasa, realm=testrealm, qop=auth, algorithm=MD5\n",
            ]).to_string()),
            10 => ("docker-ps", format!("CONTAINER ID   IMAGE                         COMMAND                  STATUS\n{}   ghcr.io/acme/api@sha256:{}   \"/entrypoint.sh\"   Up 3 hours\n", sha(&mut r, 12), sha(&mut r, 64))),
            11 => ("aws-cli", format!("{{\n    \"UserId\": \"AIDA{}\",\n    \"Account\": \"{}\",\n    \"Arn\": \"arn:aws:iam::{}:user/ci\"\n}}\nETag: \"{}\"\nx-amz-request-id: {}\nx-amz-id-2: {}\n", r.chars(BASE32, 17), r.chars(DIGITS, 12), r.chars(DIGITS, 12), sha(&mut r, 32), r.chars("0123456789ABCDEF", 16), b64(&r.bytes(57), false, false))),
            12 => ("k8s", format!("NAME                      READY   STATUS    RESTARTS   AGE\napi-{}-{}   1/1     Running   0          3h\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db-credentials\n              key: password\n", sha(&mut r, 10), r.chars(LOWER, 5))),
            13 => ("go-sum", format!("github.com/stretchr/testify v1.9.0 h1:{}=\ngithub.com/stretchr/testify v1.9.0/go.mod h1:{}=\n", r.chars(B64, 43), r.chars(B64, 43))),
            14 => ("example-keys", format!("aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nTwilio account: AC{}\nStripe publishable: pk_live_{}\n", sha(&mut r, 32), r.chars(ALNUM, 24))),
            15 => ("build-log", format!("   Compiling regex-automata v0.4.{}\n   Compiling tokenizers v0.19.1\n    Finished `release` profile [optimized] target(s) in 41.{}s\ntest auth::tests::token_refresh ... ok\ntest result: ok. 128 passed; 0 failed\n", r.range(1, 9), r.range(10, 99))),
            16 => ("yarn-lock", format!("\"@babel/core@^7.24.0\":\n  version \"7.24.5\"\n  resolved \"https://registry.yarnpkg.com/@babel/core/-/core-7.24.5.tgz#{}\"\n  integrity sha512-{}\n", sha(&mut r, 40), b64(&r.bytes(64), false, true))),
            17 => ("pip-hash", format!("requests==2.32.3 \\\n    --hash=sha256:{} \\\n    --hash=sha256:{}\n", sha(&mut r, 64), sha(&mut r, 64))),
            18 => ("jwt-header-only", format!("alg header: eyJhbGciOiJSUzI1NiIsImtpZCI6Ij{}\" kid={}\nkey_id: {}\nkid: {}\n", r.chars(ALNUM, 10), sha(&mut r, 16), uuid(&mut r), sha(&mut r, 40))),
            20 => ("code", r.pick(&[
                "def login(username: str, password: str) -> Token:\n    token = request.headers.get(\"Authorization\")\n    secret = os.environ[\"SECRET\"]\n",
                "SECRET_KEY = get_secret(\"django\")\nAPI_KEY = config(\"API_KEY\")\npassword = None\n",
                "interface Options {\n  apiKey: string;\n  token?: string;\n}\nconst password: string = process.env.DB_PASSWORD ?? \"\";\n",
                "class Settings(BaseSettings):\n    password: SecretStr = Field(..., min_length=12)\n    api_key: str | None = None\n",
            ]).to_string()),
            21 => ("arn", format!("arn:aws:secretsmanager:eu-west-1:{}:secret:prod/db-{}\nSecretId: prod/api-key\n", r.chars(DIGITS, 12), r.chars(ALNUM, 6))),
            22 => ("schema", "{\"password\": {\"type\": \"string\", \"description\": \"The password of the database user\"},\n \"token\": \"The API token used to authenticate requests\"}\n".to_string()),
            23 => ("docs", r.pick(&[
                "export OPENAI_API_KEY=<your-key>\n# then run\ncurl -H \"Authorization: Bearer $OPENAI_API_KEY\" https://api.openai.com/v1/models\n",
                "token: ${{ github.token }}\npassword: ${{ secrets.REGISTRY_PASSWORD }}\n",
                "Using API key from environment variable OPENAI_API_KEY\nSet api_key in ~/.config/tool.toml or pass --api-key.\n",
                "xoxb-your-bot-token\nghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nsk-proj-...\nAKIAXXXXXXXXXXXXXXXX\n",
            ]).to_string()),
            _ => ("llm-usage", format!("{{\"usage\": {{\"prompt_tokens\": {}, \"completion_tokens\": {}, \"total_tokens\": {}}}, \"max_tokens\": 4096, \"token_type\": \"Bearer\", \"expires_in\": 3599}}\n", r.range(100, 999), r.range(10, 99), r.range(1000, 1999))),
        };
        out.push(Record {
            family: name,
            context: name,
            text,
            must_hide: Vec::new(),
            must_keep: Vec::new(),
        });
    }
    out
}

/// Hard clean records, one per line of text that looks like a secret
/// assignment and is not one: the false positives of issue 15, type
/// annotations, prose, JSON field names, grep prefixes, Maven coordinates,
/// code identifiers, the working-directory variables, env references.
pub const HARD_CLEAN: &[(&str, &str)] = &[
    // The false positives of issue 15.
    ("fp-refresh-token-param", "async refreshToken(refreshToken: string): Promise<void> {\n"),
    ("fp-refresh-token-param", "  refreshToken(refreshToken: string) {\n"),
    ("fp-auth-domain", "  authDomain: \"acme-prod.firebaseapp.com\",\n"),
    ("fp-auth-domain", "const firebaseConfig = { authDomain: \"my-app-7f3a2.firebaseapp.com\", projectId: \"my-app-7f3a2\" };\n"),
    ("fp-prose", "Invalid username/password combination.\n"),
    ("fp-prose", "Error: wrong password combination. Please try again.\n"),
    ("fp-maven", "<artifactId>io.jsonwebtoken:jjwt-jackson-0.11.2</artifactId>\n"),
    ("fp-maven", "implementation 'io.jsonwebtoken:jjwt-jackson:0.11.2'\n"),
    ("fp-maven", "[INFO] +- io.jsonwebtoken:jjwt-api:jar:0.12.5:compile\n"),
    ("fp-curl-user-placeholder", "curl -u <user:password> https://api.example.com\n"),
    ("fp-curl-user-placeholder", "Usage: curl -u <username:token> https://registry.example.com/v2/\n"),
    ("fp-percent-var", "password=%TestSourcePassword%\n"),
    ("fp-percent-var", "set PASSWORD=%DB_PASSWORD%\n"),
    // Type annotations and code.
    ("type", "    pub eq_token: Token![=],\n"),
    ("type", "    arrow_token: Token![=>],\n"),
    ("type", "        pwd: *mut passwd,\n"),
    ("type", "        pub pw_passwd: *mut c_char,\n"),
    ("type", "        operator_token_result: TokenizeResult,\n"),
    ("type", "fn check(password: &str, api_key: Option<String>) -> bool {\n"),
    ("type", "interface Creds { token: string; secret?: string }\n"),
    ("type", "    secret_key: [u8; 32],\n"),
    ("type", "    def login(self, username: str, password: str) -> Token:\n        private_key: x25519.X25519PrivateKey\n    def sign(self, private_key: MLDSA44Ed25519PrivateKey, auth: httpx2.Auth | None = None):\n        cookie: http.cookies.BaseCookie[str] = http.cookies.SimpleCookie()\n"),
    ("type", "  private apiKey: string | undefined;\n"),
    ("type", "  fun auth(token: String?, key: ByteArray): Boolean\n"),
    ("type", "func Login(user string, password string) (*Session, error) {\n"),
    ("type", "let tokens: Vec<Token> = lexer.collect();\n"),
    ("type", "static ALLOC_PTHREAD_KEY: CachePadded<PThreadKey<ThreadAllocInfo>> = CachePadded(PThreadKey::new());\n"),
    ("code", "        let tokens = vec!(Token::ParenOpen, Token::Semi, Token::ParenClose);\n"),
    ("code", "    token = request.headers.get(\"Authorization\")\n"),
    ("code", "const token = process.env.API_TOKEN || '';\n"),
    ("code", "const apiKey = process.env.OPENAI_API_KEY ?? undefined;\n"),
    ("code", "token = os.environ.get(\"GITHUB_TOKEN\") or None\n"),
    ("code", "$password .= $chars[random_int(0, $max)];\n"),
    ("code", "password += random.choice(alphabet)\n"),
    ("code", "System.setProperty(\"javax.net.ssl.trustStorePassword\", System.getenv(\"TRUST_PW\"));\n"),
    ("code", "os.Setenv(\"API_TOKEN\", token)\n"),
    ("code", "t(\"auth.password\", \"Password\")\n"),
    ("code", "log.info(\"token\", \"Token refreshed for user\")\n"),
    ("code", "Buffer.from(\"secret\", \"utf-8\")\n#define SSL_TXT_kECDHEPSK \"kECDHEPSK\"\n#define TLS1_TXT_PSK_WITH_AES_256_CCM_8 \"PSK-AES256-CCM8\"\n#define OBJ_pkcs9_challengePassword OBJ_pkcs9,7L\n man/{readpassphrase.3 => readpassphrase.3bsd}   |  0\n"),
    ("code", "API_KEY ?= $(shell cat .api-key)\n"),
    ("code", "TOKEN ::= $(TOKEN_FROM_VAULT)\n"),
    ("code", "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-}\n"),
    ("code", "      TOKEN_TTL: ${TOKEN_TTL:-3600}\n"),
    ("code", "      DB_PASSWORD: ${DB_PASSWORD:-changeme}\n"),
    ("code", "<password>\n  <value>${DB_PASSWORD}</value>\n</password>\n"),
    ("code", "<token>\n    {{ token }}\n</token>\n"),
    ("code", "<secret>\n    The secret is used for signing cookies.\n</secret>\n"),
    ("code", "if (password.length < 12) throw new Error('password too short');\n"),
    // JSON field names that are not secrets.
    ("json-fields", "{\"token_count\": 1532, \"max_tokens\": 4096, \"next_page_token\": \"CAESEQoPCgt0b2tlbi0xMjM0EAE\", \"key_id\": \"k-7f3a2b9c\"}\n"),
    ("json-fields", "{\"usage\": {\"input_tokens\": 12, \"output_tokens\": 340, \"cache_read_input_tokens\": 0}}\n"),
    ("json-fields", "{\"secret_name\": \"prod/db\", \"key_type\": \"RSA\", \"token_type\": \"Bearer\", \"expires_in\": 3599}\n"),
    ("json-fields", "{\"nextPageToken\": \"AJ3kd83JdkX0aPq\", \"pageToken\": \"b2Zmc2V0PTIw\"}\n"),
    // grep prefixes without secrets.
    ("grep", "src/token.rs:120:    let n = 4;\n"),
    ("grep", "src/key.rs-7-fn main() {}\n"),
    ("grep", "lib/auth/password.ts:33:export function hash(pw: string): string {\n"),
    // Working-directory variables and other names known not to hold secrets.
    ("pwd", "PWD=/srv/app-2024_v3/x9Kq\nOLDPWD=/home/runner/work/my-app_2/Xz81\n"),
    ("pwd", " 4242 ?        Ss     0:00 bash PWD=/tmp/tmp.Xa8s9dK2 OLDPWD=/home/u/proj-2024_v3 SHELL=/bin/bash\n"),
    ("pwd", "SSH_AUTH_SOCK=/tmp/ssh-XXXXabc12DeF/agent.1234\n"),
    ("pwd", "XDG_SESSION_ID=c2\nDBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n"),
    // A word that says what kind of key or token a name holds, right before it.
    ("kind-qualifier", "{\"cache_key\": \"user:42:profile:v3\", \"s3_object_key\": \"uploads/2024/05/a7f3c9e2.png\"}\n"),
    ("kind-qualifier", "SYNC_TOKEN=CAESEQoPCgt0b2tlbi0xMjM0EAE\npage_token: \"CgsIARIHCgVhYmNkZQ\"\n"),
    ("kind-qualifier", "idempotency_key = \"9f2c7e1a-5b3d-4e8f-a6c2-1d0b9e8f7a6c\"\n"),
    ("kind-qualifier", "\"usage\": {\"input_tokens\": 812, \"cache_read_input_tokens\": 64, \"output_tokens\": 301}\n"),
    // `<word>_key` holding a key into something, not a secret.
    ("keyed", "item_key: \"item-42\"\nstate_key: \"b3a1f9d2-4c5e-4a7b-9d8c-2f1e0a9b8c7d\"\nsha_key: \"3f786850e387550fdab836ed7e6dc881de23001b\"\n"),
    ("keyed", "{\"flag_key\": \"new-checkout-flow-v2-2024\", \"lock_key\": \"lock:user:12345:profile\", \"product_key\": \"prod_NZ8xKq3LmT4vWp\"}\n"),
    // A data store's key in code: a key into the store.
    ("keyed", "redis_key = \"sess:7a3f9c1e\"\nredisKey: \"lock:4b7e9a2c81\"\ndb_key = \"user:5c1d8f3a\"\nmongo_key: \"tenant_9e2b7d4f1a\"\n"),
    // A logger's name before the line's next `name=value` field.
    ("log-fields", "2024-06-07 06:59:58,053 [INFO] auth.session: session_token_ttl=3600 refresh_token_rotated=true user=ccd268a2\n"),
    // `bearer` as a field's value, the next field's name right after it.
    ("log-fields", "2024-06-07T06:59:58.053Z INFO svc.auth token_type=bearer api_key_last4=9f2c auth.provider=github\n"),
    // Prose.
    ("prose", "The password combination you entered is incorrect.\n"),
    ("prose", "Pass the token as a bearer token in the Authorization header.\n"),
    ("prose", "secret: the secret used to sign tokens (see docs)\n"),
    // Backticks that hold no secret: commands, templates, Markdown code.
    ("backtick-command", "TOKEN=`cat /run/secrets/token`\nexport GH_TOKEN=`gh auth token`\nsecret_key = `openssl rand -hex 32`\nPASSWORD=`whoami`\nAPI_KEY=`./gen-key.sh`\n"),
    ("backtick-template", "const token = `Bearer ${accessToken}`;\nconst key = `${prefix}_${id}`;\nregKey = `//${parsed.host}${parsed.pathname}`\nkey = `${stat.dev}:${stat.ino}`\n"),
    ("python-dict-wrapped", "MAPPING = {\n    'http_oauth_token_scope_override':\n        'oauthToken.scope',\n    'aws_secret_access_key':\n        'AWS_SECRET_ACCESS_KEY_value',\n    \"refresh_token\":\n        \"refreshToken\",\n}\n"),
    ("backtick-markdown", "The `password` option: `string`\n- `api_key`: `ApiKeyConfig` (see `config.key`)\n"),
    // Cloud resource names under secret names (gcloud's flags, Terraform).
    ("resource-name", "gcloud kms encrypt --kms-key=projects/*/locations/*/keyRings/*/cryptoKeys/* \\\n  --seed-phrase-secret=projects/acme/secrets/seed-phrase\n"),
    ("resource-name", "  secret_id: projects/123456789012/secrets/stripe-webhook\n  api_key = \"projects/123456789012/secrets/stripe-key/versions/latest\"\n"),
    // Command lines whose flags take words: a compiler's pass, a command's name.
    ("nsswitch", "passwd:         files systemd\ngroup:          files systemd\nshadow:         files\ngshadow:        files\n"),
    ("command-words", "$ cargo dev new_lint --name=foo --pass=early --category=style\nThen run the cargo login command and paste your token.\n"),
    // Prose inside a JSON string, lines joined by `\n` escapes.
    ("escaped-prose", "{\"body\":\"Authenticate with the --token option\\nor the credential process.\"}\n"),
    // Vendor prefixes inside base64 blobs (a font, a search index).
    ("base64-blob", "src:url(data:font/woff2;base64,d09GMgABAAAAAAu4AA0AAAAAF+AAAAAAAAAAAAAAAAAAAAAAAAAABq3Zk9Xw8RmT2cLpN4vYs7Hb1JeQ6oXW9dA2fKgU5zRiC3nMtE8aVqP0lBjS4yHxOuG7wI1cD6rKeF2mN9pTz5bLgAh+AAAA)\n\"AAEbXQAAAnAWAAA/EAAAWq8zR2vK9tLm3xNbY7Hd4Jf6Gc1==\"\n"),
    // Found in the Google Cloud SDK's sources: a KMS key's name, a URL's
    // scheme, a query string, an option's name before its value, a
    // class's qualified name, a qualifier written apart.
    ("gcloud-sources", "  $ {command} KMS_CONFIG --kms-keyring=kms-keyring2 --kms-key=crypto-key2\n            'credential.https://source.developers.google.com/.helper=',\n  _GCE_VM_AUTH = '&authMechanism=MONGODB-OIDC&authMechanismProperties=ENVIRONMENT:gcp,TOKEN_RESOURCE:FIRESTORE'\n        '-o', 'Credentials:gs_host=' + gs_ip, '-o',\n    oauth2_creds: 'oauth2client_4_0.client.OAuth2Credentials',\n    Next page token: eav1OzQB0OM8rLdGXOEsyQWSG\n"),
];

/// [`HARD_CLEAN`] as records.
pub fn hard_clean_records() -> Vec<Record> {
    HARD_CLEAN
        .iter()
        .map(|&(name, text)| Record {
            family: name,
            context: name,
            text: text.to_string(),
            must_hide: Vec::new(),
            must_keep: Vec::new(),
        })
        .collect()
}

/// Whether any `min(8, len)`-byte window of `secret` is still in `out`.
pub fn survives(out: &str, secret: &str) -> bool {
    let w = secret.len().min(8);
    if w == 0 {
        return false;
    }
    (0..=secret.len() - w).any(|i| secret.get(i..i + w).is_some_and(|win| out.contains(win)))
}

/// The secret with the least context its family needs (for property tests).
pub fn minimal(f: &Family, s: &Secret) -> String {
    match f.kind {
        Kind::Token | Kind::Pem => s.value.clone(),
        Kind::ContextToken => format!("{}={}", f.env, s.value),
        Kind::Password => format!("password={}", s.value),
        Kind::Url => format!(
            "postgres://app:{}@db.internal/prod",
            percent_encode(&s.value)
        ),
        Kind::Header => format!("Authorization: {}", header_value(f, s)),
        Kind::DockerAuth => format!("\"auth\": \"{}\"", s.value),
    }
}

/// The substrings of `minimal` that must not survive.
pub fn minimal_hidden(f: &Family, s: &Secret) -> Vec<String> {
    match f.kind {
        Kind::Url => vec![percent_encode(&s.value)],
        _ => s.must_hide.clone(),
    }
}
