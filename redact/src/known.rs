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

/// Minimum length of an environment value to be masked (SPEC §4).
pub(crate) const ENV_MIN_CHARS: usize = 8;

/// Whether an environment variable name looks secret: contains KEY, SECRET,
/// TOKEN or PASSWORD (ASCII case-insensitive).
pub fn is_secret_env_name(name: &str) -> bool {
    let up = name.to_ascii_uppercase();
    ["KEY", "SECRET", "TOKEN", "PASSWORD"]
        .iter()
        .any(|w| up.contains(w))
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
        assert!(!is_secret_env_name("PASS"));
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
