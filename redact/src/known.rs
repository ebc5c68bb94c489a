//! Known values: exact strings to mask wherever they appear, in the forms an
//! output can give them (JSON-escaped, percent-encoded, CRLF, wrapped once).

/// Where a known value came from (decides its rule id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The process environment (`env-secret`).
    Env,
    /// Registered by the embedding program (`known-value`).
    Embedder,
}

/// One searchable form of a known value.
#[derive(Clone, Debug)]
pub(crate) struct Variant {
    pub(crate) bytes: Vec<u8>,
    pub(crate) origin: Origin,
}

/// Minimum length of an environment value to be masked: shorter values
/// (`1`, `true`, `dev`) would mask ordinary words everywhere.
pub(crate) const ENV_MIN_CHARS: usize = 8;

/// The words that make an environment variable name look secret: a name
/// split into words by [`env_name_words`] that contains one of these
/// (compared ignoring ASCII case) looks secret.
pub const SECRET_NAME_WORDS: &[&str] = &[
    "KEY",
    "APIKEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PW",
    "PWD",
    "CREDENTIAL",
    "CREDENTIALS",
    "AUTH",
    "COOKIE",
    "SESSION",
    "PRIVATE",
    "SIGNATURE",
];

/// Names known not to hold secrets although one of their words is a secret
/// word. A trailing or leading `*` matches any text.
pub const NOT_SECRET_NAMES: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "XAUTHORITY",
    "*_KEYRING_*",
    "KEYMAP",
    "SESSION_MANAGER",
    "XDG_SESSION_*",
    "DBUS_SESSION_BUS_ADDRESS",
];

/// The words of an environment variable name, upper-cased: split on every
/// character that is not an ASCII letter or digit (`_`, `-`, `.`, …), on
/// case changes (`dbPassword` → `DB`, `PASSWORD`; `APIKey` → `API`,
/// `KEY`) and between letters and digits (`PASS2` → `PASS`, `2`).
pub fn env_name_words(name: &str) -> Vec<String> {
    // Spans fall on ASCII bytes, so they are char boundaries of `name`.
    name_word_spans(name.as_bytes())
        .map(|(s, e)| name[s..e].to_ascii_uppercase())
        .collect()
}

/// [`env_name_words`] as byte ranges of `name`, without allocating: the
/// redactor's checks split names and values of code the same way.
pub(crate) fn name_word_spans(name: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at + name.get(at..)?.iter().position(u8::is_ascii_alphanumeric)?;
        let mut end = start + 1;
        while end < name.len() && name[end].is_ascii_alphanumeric() {
            let (prev, c) = (name[end - 1], name[end]);
            let next = name.get(end + 1).copied();
            let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (prev.is_ascii_uppercase()
                    && c.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()))
                || prev.is_ascii_digit() != c.is_ascii_digit();
            if boundary {
                break;
            }
            end += 1;
        }
        at = end;
        Some((start, end))
    })
}

fn matches_pattern(pattern: &str, name: &str) -> bool {
    match (pattern.strip_prefix('*'), pattern.strip_suffix('*')) {
        (Some(rest), _) if rest.ends_with('*') => name.contains(&rest[..rest.len() - 1]),
        (Some(suffix), None) => name.ends_with(suffix),
        (None, Some(prefix)) => name.starts_with(prefix),
        _ => name == pattern,
    }
}

/// Whether `name` is one of [`NOT_SECRET_NAMES`] (ignoring ASCII case): the
/// generic assignment rule asks this too, so that `PWD=/srv/app-2024_v3` in
/// an `env` or `ps axeww` dump is left alone, as exec's filter leaves it.
pub(crate) fn is_known_not_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    NOT_SECRET_NAMES
        .iter()
        .any(|pattern| matches_pattern(pattern, &upper))
}

/// Whether an environment variable name looks secret — the one rule used
/// both for masking the executor's own environment values and
/// for leaving variables out of exec's child environment: the name, split
/// into words by [`env_name_words`], contains one of [`SECRET_NAME_WORDS`],
/// and it is not one of [`NOT_SECRET_NAMES`] (compared ignoring ASCII case).
///
/// ```
/// use toolexec_redact::is_secret_env_name;
/// for name in ["DB_PASSWD", "MYSQL_PWD", "API_AUTH", "SESSION_COOKIE", "GOOGLE_CREDENTIALS", "githubToken"] {
///     assert!(is_secret_env_name(name), "{name}");
/// }
/// for name in ["PWD", "OLDPWD", "SSH_AUTH_SOCK", "GIT_AUTHOR_NAME", "KEYBOARD", "XDG_SESSION_ID", "PATH"] {
///     assert!(!is_secret_env_name(name), "{name}");
/// }
/// ```
pub fn is_secret_env_name(name: &str) -> bool {
    if is_known_not_secret(name) {
        return false;
    }
    env_name_words(name)
        .iter()
        .any(|word| SECRET_NAME_WORDS.contains(&word.as_str()))
}

/// Whether an environment value is worth masking (see the crate docs).
pub(crate) fn env_value_qualifies(value: &str) -> bool {
    let v = value.trim();
    if v.chars().count() < ENV_MIN_CHARS {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if v.starts_with('/') && !v.contains(char::is_whitespace) {
        return false;
    }
    !crate::checks::is_placeholder(v.as_bytes())
}

fn json_escape(v: &str, escape_slash: bool, ascii_only: bool) -> String {
    let mut out = String::with_capacity(v.len() + 8);
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '/' if escape_slash => out.push_str("\\/"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii_only && !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn percent_encode(v: &str, upper: bool) -> String {
    let mut out = String::with_capacity(v.len() * 3);
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else if upper {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// All forms of `value` worth searching for.
pub(crate) fn variants(value: &str, origin: Origin) -> Vec<Variant> {
    let mut forms: Vec<String> = vec![value.to_string()];
    if value.contains('\n') && !value.contains("\r\n") {
        forms.push(value.replace('\n', "\r\n"));
    }
    let esc = json_escape(value, false, false);
    forms.push(esc.clone());
    forms.push(json_escape(value, true, false));
    forms.push(json_escape(value, false, true));
    forms.push(json_escape(value, true, true));
    // JSON inside a JSON string.
    forms.push(json_escape(&esc, false, false));
    forms.push(percent_encode(value, true));
    forms.push(percent_encode(value, false));
    let mut seen = std::collections::HashSet::new();
    forms
        .into_iter()
        .filter(|f| !f.is_empty() && seen.insert(f.clone()))
        .map(|f| Variant {
            bytes: f.into_bytes(),
            origin,
        })
        .collect()
}

/// The anchor length used for a variant: both its first and its last `a`
/// bytes are searched, so an occurrence broken by one line break still has one
/// intact anchor.
pub(crate) fn anchor_len(len: usize) -> usize {
    if len < ENV_MIN_CHARS {
        len
    } else {
        len.div_ceil(2).min(8)
    }
}

fn line_break_at(hay: &[u8], i: usize) -> usize {
    if hay.get(i) == Some(&b'\n') {
        1
    } else if hay.get(i) == Some(&b'\r') && hay.get(i + 1) == Some(&b'\n') {
        2
    } else {
        0
    }
}

/// Matches `v` at `start`, allowing one line break (`\n` or `\r\n`) between
/// two of its bytes when `breakable`. Returns the end.
pub(crate) fn match_forward(hay: &[u8], start: usize, v: &[u8], breakable: bool) -> Option<usize> {
    let mut i = start;
    let mut j = 0;
    let mut broke = !breakable;
    while j < v.len() {
        if i < hay.len() && hay[i] == v[j] {
            i += 1;
            j += 1;
            continue;
        }
        if !broke && j > 0 {
            let k = line_break_at(hay, i);
            if k > 0 {
                i += k;
                broke = true;
                continue;
            }
        }
        return None;
    }
    Some(i)
}

/// Matches `v` ending at `end` (exclusive), scanning backwards. Returns the start.
pub(crate) fn match_backward(hay: &[u8], end: usize, v: &[u8], breakable: bool) -> Option<usize> {
    let mut i = end;
    let mut j = v.len();
    let mut broke = !breakable;
    while j > 0 {
        if i > 0 && hay[i - 1] == v[j - 1] {
            i -= 1;
            j -= 1;
            continue;
        }
        if !broke && j < v.len() && i >= 1 && hay[i - 1] == b'\n' {
            i -= if i >= 2 && hay[i - 2] == b'\r' { 2 } else { 1 };
            broke = true;
            continue;
        }
        return None;
    }
    Some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_env_names() {
        assert!(is_secret_env_name("GITHUB_TOKEN"));
        assert!(is_secret_env_name("aws_secret_access_key"));
        assert!(is_secret_env_name("MY_API_KEY"));
        assert!(is_secret_env_name("DbPassword"));
        assert!(!is_secret_env_name("HOME"));
        assert!(is_secret_env_name("PASS"));
    }

    /// The table of SPEC §4.
    #[test]
    fn spec_secret_name_table() {
        for name in [
            "DB_PASSWD",
            "MYSQL_PWD",
            "API_AUTH",
            "SESSION_COOKIE",
            "GOOGLE_CREDENTIALS",
            "GOOGLE_CREDENTIAL",
            "OPENAI_APIKEY",
            "openaiApiKey",
            "APIKey",
            "github.token",
            "my-secret",
            "SSH_PRIVATE",
            "REQUEST_SIGNATURE",
            "USER_PW",
            "PASS2",
        ] {
            assert!(is_secret_env_name(name), "{name} should look secret");
        }
        for name in [
            "PWD",
            "OLDPWD",
            "SSH_AUTH_SOCK",
            "GPG_AGENT_INFO",
            "XAUTHORITY",
            "GNOME_KEYRING_CONTROL",
            "GNOME_KEYRING_SESSION",
            "KEYMAP",
            "SESSION_MANAGER",
            "XDG_SESSION_ID",
            "XDG_SESSION_TYPE",
            "DBUS_SESSION_BUS_ADDRESS",
            "GIT_AUTHOR_NAME",
            "KEYBOARD",
            "PASSENGER",
            "AUTHOR",
            "MONKEY",
            "PATH",
            "HOME",
            "CARGO_HOME",
            "",
        ] {
            assert!(!is_secret_env_name(name), "{name} should not look secret");
        }
    }

    /// The values of the SPEC §4 secret names are masked; the values of the
    /// names that do not look secret are not.
    #[test]
    fn spec_table_values_are_masked() {
        let secret = [
            ("DB_PASSWD", "db-passwd-value-1"),
            ("MYSQL_PWD", "mysql-pwd-value-2"),
            ("API_AUTH", "api-auth-value-3"),
            ("SESSION_COOKIE", "session-cookie-value-4"),
            ("GOOGLE_CREDENTIALS", "google-credentials-value-5"),
        ];
        let kept = [
            ("OLDPWD", "oldpwd-value-6x"),
            ("SSH_AUTH_SOCK", "ssh-auth-sock-value-7"),
            ("GIT_AUTHOR_NAME", "git-author-name-8"),
            ("KEYBOARD", "keyboard-value-9x"),
        ];
        let redactor = crate::Redactor::builder()
            .env_vars(secret.iter().chain(kept.iter()).copied())
            .build()
            .unwrap();
        for (name, value) in secret {
            let text = format!("v={value} end");
            let out = redactor.redact(&text);
            assert!(!out.contains(value), "{name}: {out}");
            assert!(out.contains("[REDACTED:env-secret]"), "{name}: {out}");
        }
        for (name, value) in kept {
            let text = format!("v={value} end");
            assert_eq!(redactor.redact(&text), text, "{name}");
        }
    }

    #[test]
    fn name_words() {
        assert_eq!(env_name_words("dbPassword"), ["DB", "PASSWORD"]);
        assert_eq!(env_name_words("APIKey"), ["API", "KEY"]);
        assert_eq!(env_name_words("a.b-c__D"), ["A", "B", "C", "D"]);
        assert_eq!(env_name_words("PASS2X"), ["PASS", "2", "X"]);
    }

    /// The splitter before [`name_word_spans`] (chars, one `String` a word).
    fn old_env_name_words(name: &str) -> Vec<String> {
        let chars: Vec<char> = name.chars().collect();
        let mut words = Vec::new();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            if !c.is_ascii_alphanumeric() {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                continue;
            }
            if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p)) {
                let next = chars.get(i + 1).copied();
                let boundary = (prev.is_ascii_lowercase() && c.is_ascii_uppercase())
                    || (prev.is_ascii_uppercase()
                        && c.is_ascii_uppercase()
                        && next.is_some_and(|n| n.is_ascii_lowercase()))
                    || (prev.is_ascii_digit() != c.is_ascii_digit()
                        && prev.is_ascii_alphanumeric());
                if boundary && !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            word.push(c.to_ascii_uppercase());
        }
        if !word.is_empty() {
            words.push(word);
        }
        words
    }

    proptest::proptest! {
        /// The byte spans split any name, non-ASCII included, as the
        /// splitter of chars before them did.
        #[test]
        fn word_spans_split_as_the_old_splitter(name in "\\PC{0,24}|[A-Za-z0-9_. é-]{0,24}") {
            proptest::prop_assert_eq!(env_name_words(&name), old_env_name_words(&name));
        }

        /// Word splitting loses no letter or digit and keeps their order.
        #[test]
        fn words_keep_every_alphanumeric(name in "[A-Za-z0-9_.-]{0,24}") {
            let joined: String = env_name_words(&name).concat();
            let expected: String = name
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_uppercase())
                .collect();
            proptest::prop_assert_eq!(joined, expected);
        }

        /// A secret word as its own word makes any name secret, unless the
        /// name is a listed exception.
        #[test]
        fn a_secret_word_is_enough(
            prefix in "[A-Z]{1,6}",
            word in proptest::sample::select(SECRET_NAME_WORDS),
        ) {
            let name = format!("{prefix}_{word}");
            let exception = NOT_SECRET_NAMES.iter().any(|p| matches_pattern(p, &name));
            proptest::prop_assert_eq!(is_secret_env_name(&name), !exception);
        }
    }

    #[test]
    fn variants_cover_escapes() {
        let v = variants("a\"b/c\\d\né", Origin::Env);
        let forms: Vec<String> = v
            .iter()
            .map(|x| String::from_utf8(x.bytes.clone()).unwrap())
            .collect();
        assert!(forms.contains(&"a\\\"b/c\\\\d\\né".to_string()));
        assert!(forms.contains(&"a\\\"b\\/c\\\\d\\n\\u00e9".to_string()));
        assert!(forms.contains(&"a\"b/c\\d\r\né".to_string()));
        assert!(forms.contains(&"a%22b%2Fc%5Cd%0A%C3%A9".to_string()));
    }

    #[test]
    fn wrapped_matches() {
        let hay = b"xx abcd\r\nefgh yy";
        assert_eq!(match_forward(hay, 3, b"abcdefgh", true), Some(13));
        assert_eq!(match_forward(hay, 3, b"abcdefgh", false), None);
        assert_eq!(match_backward(hay, 13, b"abcdefgh", true), Some(3));
    }

    #[test]
    fn env_values() {
        assert!(env_value_qualifies("s3cr3t-value-1"));
        assert!(!env_value_qualifies("short"));
        assert!(!env_value_qualifies("12345678"));
        assert!(!env_value_qualifies("${OTHER_VAR}"));
        assert!(!env_value_qualifies("/run/user/1000/keyring"));
    }
}
