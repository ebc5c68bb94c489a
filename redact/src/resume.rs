//! Where a rule's search may resume after a match it did not skip over.
//!
//! After a match that is not masked from end to end, the search resumes one
//! byte after its start (see `next_start` in the redactor), and usually
//! scans the rest of the window for nothing: `GITHUB_TOKEN=ghp_…  (ok)` holds
//! one assignment. For a rule whose matches all hold one of its needed bytes
//! (`Needs::Byte`, `=`/`:` for the generic assignments) *after* their first
//! byte, read from its pattern together with the bytes a match can open
//! with, the next match must open with such a byte before the window's last
//! needed byte: when no position qualifies, no match is left and the search
//! ends; otherwise it resumes at the first position that does. A search
//! from there finds what the search from one byte after the match would (it
//! returns the match that starts leftmost), so nothing found changes.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// What a rule's matches open with and hold after their first byte.
#[derive(Clone, Debug)]
pub(crate) struct Resume {
    /// The bytes a match can open with where it does not start a line (a
    /// match that starts the haystack or a line may open with anything).
    first: [bool; 256],
    /// Every match holds one of these after its first byte.
    needed: &'static [u8],
}

impl Resume {
    /// The resume test of `pattern` with needed bytes `needed` (one to three);
    /// `None` when the pattern does not parse, can match the empty string, or
    /// does not hold one of `needed` after its first byte in every match.
    #[cfg(test)]
    pub(crate) fn of(pattern: &str, needed: &'static [u8]) -> Option<Resume> {
        Resume::of_hir(&crate::quick::parse_bytes(pattern)?, needed)
    }

    /// The resume test of a pattern already parsed ([`crate::quick::parse_bytes`]):
    /// `None` when it can match the empty string or does not hold one of
    /// `needed` (one to three bytes) after its first byte in every match.
    pub(crate) fn of_hir(hir: &Hir, needed: &'static [u8]) -> Option<Resume> {
        if needed.is_empty() || needed.len() > 3 {
            return None;
        }
        let mut first = [false; 256];
        let nullable = first_bytes(hir, &mut first);
        if nullable || !holds_after_first(hir, needed) {
            return None;
        }
        Some(Resume { first, needed })
    }

    /// The first position at or after `at` where a match may start in
    /// `win`, or `None` when no match can start there or later.
    pub(crate) fn next(&self, win: &[u8], at: usize) -> Option<usize> {
        let last = match *self.needed {
            [a] => memchr::memrchr(a, win),
            [a, b] => memchr::memrchr2(a, b, win),
            [a, b, c] => memchr::memrchr3(a, b, c, win),
            _ => Some(win.len()),
        }?;
        (at..last).find(|&p| {
            p == 0 || self.first[usize::from(win[p])] || matches!(win[p - 1], b'\n' | b'\r')
        })
    }
}

/// Marks the bytes a match of `h` can open with (not at a line start: a
/// branch that opens with `^` cannot match there); whether `h` can match
/// without taking a byte (then what follows it may open the match too).
fn first_bytes(h: &Hir, set: &mut [bool; 256]) -> bool {
    match h.kind() {
        HirKind::Empty => true,
        // `^` (of the haystack or a line) cannot hold where no line starts:
        // the branch takes no byte here and nothing after it either.
        HirKind::Look(Look::Start | Look::StartLF | Look::StartCRLF) => false,
        HirKind::Look(_) => true,
        HirKind::Literal(lit) => match lit.0.first() {
            Some(&b) => {
                set[usize::from(b)] = true;
                false
            }
            None => true,
        },
        HirKind::Class(c) => {
            crate::quick::class_bytes(c, set);
            // An empty class matches nothing: it takes no byte.
            c.is_empty()
        }
        HirKind::Repetition(rep) => {
            if rep.max == Some(0) {
                return true;
            }
            first_bytes(&rep.sub, set) || rep.min == 0
        }
        HirKind::Capture(cap) => first_bytes(&cap.sub, set),
        HirKind::Concat(v) => v.iter().all(|sub| first_bytes(sub, set)),
        HirKind::Alternation(v) => {
            let mut nullable = false;
            for sub in v {
                nullable |= first_bytes(sub, set);
            }
            nullable
        }
    }
}

/// The least number of bytes a match of `h` takes.
fn min_len(h: &Hir) -> usize {
    h.properties().minimum_len().unwrap_or(usize::MAX)
}

/// Whether every match of `h` holds one of `needed`.
fn holds(h: &Hir, needed: &[u8]) -> bool {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => false,
        HirKind::Literal(lit) => lit.0.iter().any(|b| needed.contains(b)),
        HirKind::Class(Class::Bytes(c)) => {
            !c.ranges().is_empty()
                && c.ranges()
                    .iter()
                    .all(|r| (r.start()..=r.end()).all(|b| needed.contains(&b)))
        }
        HirKind::Class(Class::Unicode(c)) => {
            !c.ranges().is_empty()
                && c.ranges().iter().all(|r| {
                    let (s, e) = (u32::from(r.start()), u32::from(r.end()));
                    e < 0x80 && (s..=e).all(|b| needed.contains(&(b as u8)))
                })
        }
        HirKind::Repetition(rep) => rep.min >= 1 && holds(&rep.sub, needed),
        HirKind::Capture(cap) => holds(&cap.sub, needed),
        HirKind::Concat(v) => v.iter().any(|sub| holds(sub, needed)),
        HirKind::Alternation(v) => !v.is_empty() && v.iter().all(|sub| holds(sub, needed)),
    }
}

/// Whether every match of `h` holds one of `needed` past its first byte.
fn holds_after_first(h: &Hir, needed: &[u8]) -> bool {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => false,
        HirKind::Literal(lit) => lit.0.iter().skip(1).any(|b| needed.contains(b)),
        HirKind::Repetition(rep) => {
            (rep.min >= 1 && holds_after_first(&rep.sub, needed))
                || (rep.min >= 2 && min_len(&rep.sub) >= 1 && holds(&rep.sub, needed))
        }
        HirKind::Capture(cap) => holds_after_first(&cap.sub, needed),
        HirKind::Concat(v) => {
            // The first byte is taken by the first item that must take one,
            // or by an item before it: whatever comes after that item is past
            // the first byte, and that item itself must hold one past its own.
            let Some(k) = v.iter().position(|sub| min_len(sub) >= 1) else {
                return false;
            };
            holds_after_first(&v[k], needed) || v[k + 1..].iter().any(|sub| holds(sub, needed))
        }
        HirKind::Alternation(v) => {
            !v.is_empty() && v.iter().all(|sub| holds_after_first(sub, needed))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assignment_holds_its_operator_past_its_first_byte() {
        let r = Resume::of(
            r"(?:^|[^A-Za-z0-9_.\-$])[A-Za-z_]*key[\t ]*(?:=|:)[\t ]*\S+",
            b"=:",
        )
        .unwrap();
        // One match: nothing can start before the last `=` but in the name.
        let line = b" api_key=Ab3dEf6hIj  (ok) (ok)";
        assert_eq!(r.next(line, 1), None);
        // A second assignment: the delimiters before it qualify (`=`, ` `).
        let line = b" api_key=Ab3 x_key=Zz9  (ok)";
        assert_eq!(r.next(line, 1), Some(8));
        assert_eq!(r.next(line, 9), Some(12));
        assert_eq!(r.next(line, 13), None);
        // After a line break anything may open a match.
        let line = b" api_key=Ab3\nkey=Zz9";
        assert_eq!(r.next(line, 13), Some(13));
        assert_eq!(r.next(line, 14), None);
    }

    use proptest::prelude::*;

    /// The built-in rules with a resume test (the generic assignments at least).
    fn resumable() -> Vec<crate::rule::Rule> {
        crate::builtin::rules()
            .into_iter()
            .filter(|r| r.resume().is_some())
            .collect()
    }

    #[test]
    fn the_generic_assignment_rule_resumes() {
        let rules = resumable();
        assert!(
            rules.iter().any(|r| r.id == "generic-secret"),
            "{}",
            rules.len()
        );
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(vec![
                "token", "key", "API_KEY", "password", "secret", "pwd", "auth", "x", "=", ":",
                " = ", ": ", ":=", "=>", "\"", "'", " ", "\n", "\r\n", "$", "@", "-", ".",
                "(ok)", "[", "]", "identified by", "'", ",", ";", "GITHUB_TOKEN=", "\"password\": \"",
            ])
            .prop_map(str::to_string),
            1 => "[A-Za-z0-9_=:\\-]{1,20}",
        ]
    }

    proptest! {
        /// Wherever a search would restart, resuming where `Resume::next`
        /// says finds the same next match (or none, when it says none can
        /// start), for every built-in rule that has a resume test.
        #[test]
        fn resuming_finds_the_match_a_restart_finds(
            parts in prop::collection::vec(piece(), 0..24),
        ) {
            let text = parts.concat();
            let win = text.as_bytes();
            for rule in resumable() {
                let res = rule.resume().unwrap();
                let re = rule.regex();
                for at in 0..=win.len() {
                    let plain = re.find_at(win, at).map(|m| (m.start(), m.end()));
                    let resumed = res
                        .next(win, at)
                        .and_then(|p| re.find_at(win, p))
                        .map(|m| (m.start(), m.end()));
                    prop_assert_eq!(plain, resumed, "rule {} at {} in {:?}", rule.pattern, at, text);
                }
            }
        }
    }

    #[test]
    fn patterns_that_need_nothing_past_their_first_byte_get_no_resume() {
        // `=` may be the first byte (it is in the delimiter class) and nothing after it.
        assert!(Resume::of(r"[^a-z][a-z]+", b"=").is_none());
        // May match empty.
        assert!(Resume::of(r"a*=?", b"=").is_none());
        // Not every branch holds one.
        assert!(Resume::of(r"ab=|cd", b"=").is_none());
        assert!(Resume::of(r"ab=|cd:", b"=:").is_some());
        // The operator may be the first byte of the match.
        assert!(Resume::of(r"x?=y", b"=").is_none());
        assert!(Resume::of(r"x=y", b"=").is_some());
        assert!(Resume::of(r"(?:ab)+", b"b").is_some());
        assert!(Resume::of(r"(?:b)+", b"b").is_none());
        assert!(Resume::of(r"(?:b){2,}", b"b").is_some());
    }
}
