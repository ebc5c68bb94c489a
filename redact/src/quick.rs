//! What every match of a rule that runs anchored at its keyword hits needs
//! at its start: a cheap test that lets a keyword hit where no match can
//! start be dismissed without running the regex (`secret_name=…` for
//! `\bsecret_[A-Za-z0-9]{43,46}`, `"sk-...ab"` for `\bsk-[A-Za-z0-9]{32,}`,
//! `client_secret_basic` for `\bbasic[\t ]+…`).

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// Necessary conditions of a match starting at a given position, read from
/// the rule's pattern: the bytes a match can hold at all, its minimum length,
/// and whether it opens with a word boundary.
#[derive(Clone, Debug)]
pub(crate) struct StartNeeds {
    /// The pattern opens with `\b` (or a word-start assertion) in every branch.
    boundary: bool,
    /// No match is shorter (bytes).
    min_len: usize,
    /// The bytes that can occur anywhere in a match.
    bytes: [bool; 256],
}

impl StartNeeds {
    /// The conditions of `pattern` (parsed as the anchored engine parses it:
    /// no UTF-8 requirement); `None` when it does not parse.
    #[cfg(test)]
    pub(crate) fn of(pattern: &str) -> Option<StartNeeds> {
        StartNeeds::of_hir(&parse_bytes(pattern)?)
    }

    /// The conditions of a pattern already parsed ([`parse_bytes`]).
    pub(crate) fn of_hir(hir: &Hir) -> Option<StartNeeds> {
        let mut bytes = [false; 256];
        bytes_of(hir, &mut bytes);
        Some(StartNeeds {
            boundary: opens_with_boundary(hir),
            // A pattern that cannot match at all needs nothing to be dismissed.
            min_len: hir.properties().minimum_len().unwrap_or(usize::MAX),
            bytes,
        })
    }

    /// Whether a match may start at `hs` in a window that starts at `ws`
    /// (`ws <= hs`) and ends at most at the end of `hay`. `false` is certain:
    /// the byte before `hs` is inside the window and makes a word boundary
    /// impossible, or fewer than the minimum length of bytes a match can
    /// hold follow `hs`.
    pub(crate) fn may_match_at(&self, hay: &[u8], hs: usize, ws: usize) -> bool {
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        if self.boundary && hs > ws && hs < hay.len() && word(hay[hs - 1]) && word(hay[hs]) {
            return false;
        }
        match hs.checked_add(self.min_len).and_then(|e| hay.get(hs..e)) {
            Some(run) => run.iter().all(|&b| self.bytes[b as usize]),
            None => false,
        }
    }
}

/// `pattern` parsed the way the anchored engines parse it (bytes, no UTF-8
/// requirement); `None` when it does not parse.
pub(crate) fn parse_bytes(pattern: &str) -> Option<Hir> {
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()
}

/// Marks every byte a character of class `c` can be made of (UTF-8 bytes
/// of non-ASCII characters all count).
pub(crate) fn class_bytes(c: &Class, set: &mut [bool; 256]) {
    match c {
        Class::Bytes(c) => {
            for r in c.ranges() {
                for b in r.start()..=r.end() {
                    set[usize::from(b)] = true;
                }
            }
        }
        Class::Unicode(c) => {
            for r in c.ranges() {
                let (s, e) = (u32::from(r.start()), u32::from(r.end()));
                for b in s..=e.min(0x7F) {
                    set[b as usize] = true;
                }
                if e >= 0x80 {
                    set[0x80..].fill(true);
                }
            }
        }
    }
}

/// Marks every byte that a match of `h` can hold (UTF-8 bytes of
/// non-ASCII characters all count).
fn bytes_of(h: &Hir, set: &mut [bool; 256]) {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => {
            for &b in lit.0.iter() {
                set[b as usize] = true;
            }
        }
        HirKind::Class(c) => class_bytes(c, set),
        HirKind::Repetition(rep) => {
            if rep.max != Some(0) {
                bytes_of(&rep.sub, set);
            }
        }
        HirKind::Capture(cap) => bytes_of(&cap.sub, set),
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            for sub in v {
                bytes_of(sub, set);
            }
        }
    }
}

/// Whether every match of `h` starts with a word-boundary assertion.
fn opens_with_boundary(h: &Hir) -> bool {
    match h.kind() {
        HirKind::Look(l) => matches!(
            l,
            Look::WordAscii
                | Look::WordUnicode
                | Look::WordStartAscii
                | Look::WordStartUnicode
                | Look::WordStartHalfAscii
                | Look::WordStartHalfUnicode
        ),
        HirKind::Capture(cap) => opens_with_boundary(&cap.sub),
        HirKind::Concat(v) => v.first().is_some_and(opens_with_boundary),
        HirKind::Alternation(v) => !v.is_empty() && v.iter().all(opens_with_boundary),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendor_prefixes_need_their_run() {
        let n = StartNeeds::of(r"(?-u)\b(?:ntn|secret)_[A-Za-z0-9]{43,46}\b").unwrap();
        assert!(n.boundary);
        assert_eq!(n.min_len, 47);
        let hay = b"x secret_name=prod/db/password";
        assert!(!n.may_match_at(hay, 2, 0));
        let tok = format!("a secret_{}", "Ab1".repeat(15));
        assert!(n.may_match_at(tok.as_bytes(), 2, 0));
        // Inside a word: no boundary, unless the window starts there.
        let tok = format!("client_secret_{}", "Ab1".repeat(15));
        assert!(!n.may_match_at(tok.as_bytes(), 7, 0));
        assert!(n.may_match_at(tok.as_bytes(), 7, 7));
        // Too close to the end.
        assert!(!n.may_match_at(b"secret_Ab1", 0, 0));
    }

    #[test]
    fn case_insensitive_and_unicode_classes_count_every_form() {
        let n = StartNeeds::of(r"(?i)\bbasic[\t ]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})").unwrap();
        assert!(n.may_match_at(b"BASIC dXNlcjpwYXNz", 0, 0));
        assert!(!n.may_match_at(b"\"client_secret_basic\",", 15, 0));
        let n = StartNeeds::of(r"\bvault[^\r\n]{0,30}x").unwrap();
        assert!(n.may_match_at("vault é x".as_bytes(), 0, 0));
        assert!(!n.may_match_at(b"vault\nx", 0, 0));
    }

    #[test]
    fn a_branch_without_a_boundary_keeps_the_inner_start() {
        let n = StartNeeds::of(r"\bab+|ab+c").unwrap();
        assert!(!n.boundary);
        assert!(n.may_match_at(b"xabbbc", 1, 0));
    }
}
