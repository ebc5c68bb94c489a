//! Rules as data: [`Rule`], [`RuleBuilder`], [`SecretGroup`] and [`RuleSet`].
//!
//! # How a rule's regex is compiled
//!
//! A rule's pattern is parsed once ([`crate::quick::parse_bytes`]: the
//! `regex::bytes` syntax, no UTF-8 requirement) and that one parse serves all
//! that reads it: the rule's engine, the keyword-prefix test
//! ([`Rule::prefixed`]), the resume test, the pieces ([`Split`]) and the
//! redactor's start test (a built-in rule used to be parsed three or four
//! times). Its regex is one `regex_automata` meta engine ([`Engine`]),
//! searched with exactly the semantics of `regex::bytes::Regex`
//! (leftmost-first, bytes, empty matches anywhere; tests compare every
//! built-in rule's matches, groups and anchored matches with the `regex`
//! crate's on the corpus and on generated text), built with the engines the
//! rule's searches use:
//!
//! * **User rules** ([`RuleBuilder::build`]): the `regex` crate's own
//!   configuration (its prefilters and reverse strategies: a user rule may
//!   have no keyword and run on every line), 32 MiB NFA limit. A pattern the
//!   engine refuses is compiled once more by `regex::bytes::RegexBuilder`
//!   for its message, so the error is the `regex` crate's, byte for byte.
//! * **Built-in rules whose matches start with a keyword** (`ghp_`, `sk-`,
//!   `xoxb-`, …): they run anchored at their keyword hits, so their engine
//!   has no prefilter (the start is given) and serves both the anchored
//!   searches and the window search (the latter only in tests). Before, such
//!   a rule built a default `regex::bytes::Regex` used only for its group
//!   names, plus a second engine for its anchored searches.
//! * **Other built-in rules** search their windows (a line around a hit, or a
//!   few KiB): lazy DFA forward and reverse, and a prefilter built here from
//!   the literals every match opens with when they make a fast one (`memchr`,
//!   `memmem`, Teddy) — not the engine's `auto_prefilter`, whose
//!   reverse-suffix and reverse-inner strategies cost a second literal
//!   extraction and a second reverse NFA and lazy DFA per rule, and never
//!   paid in a rule's windows.
//!
//! Measured with callgrind (instructions, deterministic; before = the
//! engines as they were at commit 4d82a5c, one default `regex::bytes` build
//! per rule plus a second engine for anchored searches):
//! `toolexec redact --no-env --threads 1` over 20 MB of Rust sources went
//! from 444.0 M to 401.4 M in all, the rules' first-use compilation
//! (`OnceLock::initialize`) from 89.5 M to 46.5 M, with the same output. The
//! search cost of later passes over the same 2 MB (a redactor streaming a
//! file three times, passes 2–3) did not rise on any input: the
//! rule-search code (`Redactor::spans_with_hits`, inclusive) went 114.0 →
//! 114.3 M on the keyword-dense log (its regex engines run 0 instructions
//! there: the difference is `memcpy` alignment), 25.7 → 24.6 M keyword-free
//! log, 221.3 → 220.9 M JSON responses, 13.6 → 9.1 M sources, 317.2 → 317.1 M
//! secret-dense text. Tried and left out: no prefilter at all, or only
//! `memchr`/`memmem` ones (5 M fewer at first use on the sources, but the
//! Teddy prefilters of the header, URL and generic rules save ~0.5
//! instructions per byte of secret-dense text); no lazy DFA for the
//! anchored engines (2.3 M fewer at first use, +35 M per 4 MB of secret-dense
//! text searched); pieces without lazy DFA (1.6 M fewer, +2.2 M per 4 MB
//! dense); captures and one-pass DFA left out of whole-match rules (no
//! measurable difference).

use std::fmt;
use std::sync::{Arc, OnceLock};

use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::Hir;

use crate::checks::{Check, Guard, Needs};
use crate::resume::Resume;
use crate::Error;

/// How far past the line of a keyword hit a multi-line rule may look.
pub(crate) const MULTILINE_WINDOW: usize = 64 * 1024;

/// Priority of user rules when matches of several rules overlap (lower wins).
pub(crate) const USER_PRIORITY: u8 = 15;

/// Which part of a rule's match is the secret (and is replaced by the marker).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum SecretGroup {
    /// The whole match (capture group 0).
    #[default]
    Whole,
    /// A capture group by index.
    Index(usize),
    /// A capture group by name.
    Name(String),
}

impl From<usize> for SecretGroup {
    fn from(i: usize) -> Self {
        if i == 0 {
            SecretGroup::Whole
        } else {
            SecretGroup::Index(i)
        }
    }
}

impl From<&str> for SecretGroup {
    fn from(s: &str) -> Self {
        SecretGroup::Name(s.to_string())
    }
}

impl From<String> for SecretGroup {
    fn from(s: String) -> Self {
        SecretGroup::Name(s)
    }
}

impl fmt::Display for SecretGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretGroup::Whole => f.write_str("0"),
            SecretGroup::Index(i) => write!(f, "{i}"),
            SecretGroup::Name(n) => write!(f, "{n:?}"),
        }
    }
}

/// Where a rule's regex is run around a keyword hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    /// The line holding the hit (at most 4 KiB either side of it).
    Line,
    /// From the start of the hit's line to this many bytes further (snapped to a line end).
    Following(usize),
    /// The hit's line and the next one.
    NextLine,
    /// The hit's line and the lines that continue it (each line before
    /// ends in `\`, `^` or `` ` ``, a shell's, cmd's or PowerShell's line
    /// continuation), to at most this many bytes further (snapped to a line
    /// end): always within [`Window::Following`] of the same size.
    Continued(usize),
}

/// One detection rule: a regex, the part of its match that is the secret, the
/// keywords that make it worth running, and filters against false positives.
///
/// Build one with [`Rule::builder`]. Rules are immutable once built and cheap to clone.
///
/// A match is reported when:
/// 1. the secret group took part in the match and is not empty,
/// 2. no allow pattern matches the secret text (allow patterns are unanchored;
///    write `^…$` to require a whole-secret match),
/// 3. the secret's Shannon entropy (bits per byte) is at least `min_entropy`, when set.
#[derive(Clone)]
pub struct Rule {
    pub(crate) id: String,
    pub(crate) pattern: String,
    /// The compiled regex and its groups: set at build for user rules, on
    /// first use for built-in ones (shared by clones).
    pub(crate) compiled: Arc<OnceLock<Compiled>>,
    /// The pattern parsed once ([`crate::quick::parse_bytes`]) for all that
    /// reads it: the engines, [`Rule::prefixed`], [`Rule::resume`], the
    /// pieces and the redactor's start tests (shared by clones).
    pub(crate) hir: Arc<OnceLock<Option<Hir>>>,
    pub(crate) group: SecretGroup,
    pub(crate) keywords: Vec<String>,
    pub(crate) min_entropy: Option<f64>,
    pub(crate) allow: Vec<Regex>,
    pub(crate) window: Window,
    pub(crate) check: Option<Check>,
    pub(crate) priority: u8,
    /// The names of the alternative secret groups ([`Compiled::alt`]).
    pub(crate) alt_names: Vec<String>,
    /// A cheap test at the keyword hit (built-in rules).
    pub(crate) guard: Option<Guard>,
    /// A cheap test of the window before the regex runs (built-in rules).
    pub(crate) needs: Option<Needs>,
    /// Token boundaries checked outside the regex: the byte before / after the
    /// whole match must not be alphanumeric nor one of these.
    pub(crate) before: Option<&'static [u8]>,
    pub(crate) after: Option<&'static [u8]>,
    /// The pattern may start with a keyword (a cheap look at its first
    /// bytes): [`Rule::prefixed`] is worth asking.
    pub(crate) may_prefix: bool,
    /// Every match starts with one of the keywords (the regex's literal
    /// prefixes all begin with one): the regex is then run anchored at the
    /// keyword hits instead of searching the window. Found on first use.
    pub(crate) prefixed: Arc<OnceLock<bool>>,
    /// See [`Rule::reads_far`], found on first use.
    reads_far: Arc<OnceLock<bool>>,
    /// Where the search may resume after a match it did not skip over
    /// (rules with `Needs::Byte`), found on first use.
    pub(crate) resume: Arc<OnceLock<Option<Resume>>>,
    /// The rule's pattern cut at its groups, built once the rule has asked
    /// for groups [`SPLIT_AFTER`] times (see [`Split`]).
    pub(crate) split: Arc<OnceLock<Option<Split>>>,
    /// How many times the rule asked for its split before it was built.
    pub(crate) split_asks: Arc<std::sync::atomic::AtomicU32>,
}

/// The most groups a pattern read by its pieces may have (their spans are
/// kept on the stack).
pub(crate) const MAX_SPLIT_GROUPS: usize = 16;

/// Group reads a rule makes with the capture engine before its [`Split`] is
/// built: a redactor that sees few matches of a rule (a small tool output)
/// does not pay the pieces' compilation (~1 M instructions per rule).
pub(crate) const SPLIT_AFTER: u32 = 32;

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rule")
            .field("id", &self.id)
            .field("pattern", &self.pattern)
            .field("secret_group", &self.group)
            .field("keywords", &self.keywords)
            .field("min_entropy", &self.min_entropy)
            .field(
                "allow",
                &self.allow.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
            )
            .field("multiline", &self.is_multiline())
            .finish()
    }
}

impl Rule {
    /// Starts a rule with its id (lowercase-kebab, used in `[REDACTED:id]`) and
    /// its pattern (syntax of the `regex` crate, matched against bytes with
    /// Unicode mode on; add `(?i)` yourself for case-insensitive matching).
    pub fn builder(id: impl Into<String>, pattern: impl Into<String>) -> RuleBuilder {
        RuleBuilder {
            id: id.into(),
            pattern: pattern.into(),
            group: SecretGroup::Whole,
            keywords: Vec::new(),
            min_entropy: None,
            allow: Vec::new(),
            multiline: false,
            check: None,
            priority: USER_PRIORITY,
            following: 0,
            next_line: false,
            continued: false,
            alt: Vec::new(),
            guard: None,
            needs: None,
            before: None,
            after: None,
        }
    }

    /// The rule id (appears in the marker `[REDACTED:id]`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The capture group that is the secret.
    pub fn secret_group(&self) -> &SecretGroup {
        &self.group
    }

    /// The prefilter keywords (matched ASCII-case-insensitively). Empty means the
    /// rule runs on every line (slower: give keywords when you can).
    pub fn keywords(&self) -> &[String] {
        &self.keywords
    }

    /// The minimum Shannon entropy of the secret, in bits per byte.
    pub fn min_entropy(&self) -> Option<f64> {
        self.min_entropy
    }

    /// The allow patterns (a secret matching any of them is left alone).
    pub fn allow_patterns(&self) -> impl Iterator<Item = &str> {
        self.allow.iter().map(|r| r.as_str())
    }

    /// Whether the rule may match across lines (its regex then sees up to
    /// 64 KiB after the line of a keyword hit).
    pub fn is_multiline(&self) -> bool {
        !matches!(self.window, Window::Line)
    }
}

/// Builder for a [`Rule`]; finish with [`RuleBuilder::build`].
#[derive(Clone, Debug)]
pub struct RuleBuilder {
    id: String,
    pattern: String,
    group: SecretGroup,
    keywords: Vec<String>,
    min_entropy: Option<f64>,
    allow: Vec<String>,
    multiline: bool,
    check: Option<Check>,
    priority: u8,
    following: usize,
    next_line: bool,
    continued: bool,
    alt: Vec<String>,
    guard: Option<Guard>,
    needs: Option<Needs>,
    before: Option<&'static [u8]>,
    after: Option<&'static [u8]>,
}

impl RuleBuilder {
    /// The capture group that is the secret: an index (`1`), a name (`"secret"`),
    /// or `0` / [`SecretGroup::Whole`] for the whole match (the default).
    pub fn secret_group(mut self, group: impl Into<SecretGroup>) -> Self {
        self.group = group.into();
        self
    }

    /// Adds prefilter keywords. The regex only runs near a line holding one of
    /// them (ASCII case-insensitive). Without keywords the rule runs on every line.
    pub fn keywords<I, S>(mut self, keywords: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.keywords.extend(keywords.into_iter().map(Into::into));
        self
    }

    /// Adds one prefilter keyword.
    pub fn keyword(mut self, keyword: impl Into<String>) -> Self {
        self.keywords.push(keyword.into());
        self
    }

    /// Only secrets with at least this Shannon entropy (bits per byte, 0..=8) are reported.
    pub fn min_entropy(mut self, bits: f64) -> Self {
        self.min_entropy = Some(bits);
        self
    }

    /// Adds an allow pattern: a secret in which it matches is left alone
    /// (placeholders such as `^\$\{.*\}$`).
    pub fn allow(mut self, pattern: impl Into<String>) -> Self {
        self.allow.push(pattern.into());
        self
    }

    /// Lets the rule match across lines (up to 64 KiB after the keyword's line).
    pub fn multiline(mut self, yes: bool) -> Self {
        self.multiline = yes;
        self
    }

    pub(crate) fn check(mut self, check: Check) -> Self {
        self.check = Some(check);
        self
    }

    pub(crate) fn priority(mut self, priority: u8) -> Self {
        self.priority = priority;
        self
    }

    /// Alternative secret groups (by name), tried when the main group did not take part.
    pub(crate) fn alt_groups(mut self, names: &[&str]) -> Self {
        self.alt = names.iter().map(|n| n.to_string()).collect();
        self
    }

    /// Token boundaries around the whole match (built-in rules): the byte before
    /// / after must not be alphanumeric nor in the given set.
    pub(crate) fn bounds(
        mut self,
        before: Option<&'static [u8]>,
        after: Option<&'static [u8]>,
    ) -> Self {
        self.before = before;
        self.after = after;
        self
    }

    /// A cheap test at each keyword hit (built-in rules).
    pub(crate) fn guard(mut self, guard: Guard) -> Self {
        self.guard = Some(guard);
        self
    }

    /// A condition every match meets in its window (built-in rules): windows
    /// without it are skipped before the regex runs.
    pub(crate) fn needs(mut self, needs: Needs) -> Self {
        self.needs = Some(needs);
        self
    }

    /// The window is the hit's line and the next one (built-in two-line rules).
    pub(crate) fn next_line(mut self) -> Self {
        self.next_line = true;
        self
    }

    /// Multi-line window of `bytes` after the hit's line (built-in rules).
    pub(crate) fn window_bytes(mut self, bytes: usize) -> Self {
        self.multiline = bytes > 0;
        self.following = bytes;
        self
    }

    /// The window is the hit's line and its continuation lines, up to
    /// `bytes` after the hit's line ([`Window::Continued`]; built-in
    /// command rules).
    pub(crate) fn continued_lines(mut self, bytes: usize) -> Self {
        self.continued = bytes > 0;
        self.window_bytes(bytes)
    }

    /// Compiles the rule, checking the id, the pattern, the secret group, the
    /// keywords and the entropy bound. A user rule's regex is compiled here,
    /// so every error shows now (the built-in rules compile on first use).
    pub fn build(self) -> Result<Rule, Error> {
        self.finish(true)
    }

    /// [`RuleBuilder::build`] for the built-in rules: the regex compiles and
    /// its groups are resolved on first use (their validity is tested).
    pub(crate) fn build_lazy(self) -> Result<Rule, Error> {
        self.finish(false)
    }

    fn finish(self, eager: bool) -> Result<Rule, Error> {
        if !valid_id(&self.id) {
            return Err(Error::InvalidRuleId { id: self.id });
        }
        let hir = OnceLock::new();
        let compiled = if eager {
            let parsed = hir.get_or_init(|| crate::quick::parse_bytes(&self.pattern));
            OnceLock::from(compile_rule(
                &self.id,
                &self.pattern,
                parsed.as_ref(),
                &self.group,
                &self.alt,
                Usage::User,
            )?)
        } else {
            OnceLock::new()
        };
        for k in &self.keywords {
            if k.is_empty() || k.len() > 64 || k.contains(['\n', '\r']) {
                return Err(Error::InvalidKeyword {
                    rule: self.id,
                    keyword: k.clone(),
                });
            }
        }
        if let Some(e) = self.min_entropy {
            if !e.is_finite() || e < 0.0 {
                return Err(Error::InvalidEntropy {
                    rule: self.id,
                    value: e,
                });
            }
        }
        let mut allow = Vec::with_capacity(self.allow.len());
        for a in &self.allow {
            allow.push(compile(&self.id, a)?);
        }
        let window = if self.next_line {
            Window::NextLine
        } else if self.multiline {
            let n = if self.following > 0 {
                self.following
            } else {
                MULTILINE_WINDOW
            };
            if self.continued {
                Window::Continued(n)
            } else {
                Window::Following(n)
            }
        } else {
            Window::Line
        };
        let may_prefix = may_be_prefixed(&self.pattern, &self.keywords);
        let prefixed = if eager || !may_prefix {
            OnceLock::from(
                may_prefix
                    && hir
                        .get_or_init(|| crate::quick::parse_bytes(&self.pattern))
                        .as_ref()
                        .is_some_and(|h| keyword_prefixed(h, &self.keywords)),
            )
        } else {
            OnceLock::new()
        };
        Ok(Rule {
            may_prefix,
            prefixed: Arc::new(prefixed),
            reads_far: Arc::new(OnceLock::new()),
            resume: Arc::new(OnceLock::new()),
            split: Arc::new(OnceLock::new()),
            split_asks: Arc::new(std::sync::atomic::AtomicU32::new(0)),
            alt_names: self.alt,
            guard: self.guard,
            needs: self.needs,
            before: self.before,
            after: self.after,
            id: self.id,
            pattern: self.pattern,
            compiled: Arc::new(compiled),
            hir: Arc::new(hir),
            group: self.group,
            keywords: self.keywords,
            min_entropy: self.min_entropy,
            allow,
            window,
            check: self.check,
            priority: self.priority,
        })
    }
}

/// A rule's regex, compiled, with the capture groups it names resolved.
pub(crate) struct Compiled {
    pub(crate) regex: Engine,
    /// The index of the secret group.
    pub(crate) group_index: usize,
    /// Alternative secret groups tried in order when the main one did not take part.
    pub(crate) alt: Vec<usize>,
    /// The group named `name` (the variable name of generic assignments).
    pub(crate) name_group: Option<usize>,
}

impl Compiled {
    /// Whether the whole match is the secret (no capture groups to resolve).
    pub(crate) fn whole(&self) -> bool {
        self.group_index == 0 && self.alt.is_empty() && self.name_group.is_none()
    }
}

/// A pattern whose groups of interest are items of its top-level
/// concatenation (`prefix (?P<secret>…) suffix`), cut into its pieces
/// between them, each compiled as an anchored regex: the groups of a match
/// found by the plain search are then read by running the pieces one after
/// the other from its start, each where the one before ended — the first
/// way through in the pattern's order of preference, which is the way the
/// capture engines report — instead of a capture engine (the backtracker
/// costs ~100 instructions per byte of a 130-byte `Authorization` header).
/// When a piece does not match there, or the last does not end at the
/// match's end, the capture engine gives the groups.
///
/// A group that is one greedy repetition of a byte class (`(?P<secret>[^\s"',;]+)`,
/// most secrets) is read without an engine: the run of the class's bytes
/// from where the piece starts, as long as the repetition allows (what the
/// piece's anchored leftmost-first search matches: the longest run). Its
/// bytes lie in match states of the lazy DFA, each a slow step: reading the
/// 130-byte `Authorization` header's token was 37 % of its pieces'
/// instructions (callgrind, 5 000 headers: 61.9 → 39.0 M).
#[derive(Debug)]
pub(crate) struct Split {
    /// The pieces in order, each with the group it is (`None`: between groups).
    pieces: Vec<(Piece, Option<usize>)>,
    /// Number of groups of the whole pattern (with group 0).
    groups: usize,
}

/// One piece of a [`Split`].
#[derive(Debug)]
enum Piece {
    /// Matched by an anchored search.
    Regex(regex_automata::meta::Regex),
    /// `[set]{min,max}`, greedy: read as a run of the set's bytes (a bit
    /// per byte).
    Run {
        set: [u64; 4],
        min: usize,
        max: Option<usize>,
    },
}

impl Piece {
    /// The run piece `hir` is, if it is a greedy repetition of a class of
    /// bytes (or of ASCII characters), captured or not.
    fn run(hir: &Hir) -> Option<Piece> {
        use regex_syntax::hir::{Class, HirKind};
        let hir = match hir.kind() {
            HirKind::Capture(cap) => &cap.sub,
            _ => hir,
        };
        let HirKind::Repetition(rep) = hir.kind() else {
            return None;
        };
        if !rep.greedy {
            return None;
        }
        let HirKind::Class(class) = rep.sub.kind() else {
            return None;
        };
        let mut set = [0u64; 4];
        let mut add = |from: u8, to: u8| {
            for b in from..=to {
                set[usize::from(b >> 6)] |= 1 << (b & 63);
            }
        };
        match class {
            Class::Bytes(c) => c.ranges().iter().for_each(|r| add(r.start(), r.end())),
            Class::Unicode(c) => {
                for r in c.ranges() {
                    if !r.end().is_ascii() {
                        return None;
                    }
                    add(r.start() as u8, r.end() as u8);
                }
            }
        }
        Some(Piece::Run {
            set,
            min: rep.min as usize,
            max: rep.max.map(|m| m as usize),
        })
    }

    /// Where the piece's anchored match at `at` ends, reading no further
    /// than `end`; `None` when it does not match there.
    fn end_at(&self, hay: &[u8], at: usize, end: usize) -> Option<usize> {
        use regex_automata::{Anchored, Input};
        match self {
            Piece::Regex(re) => re
                .search(&Input::new(hay).span(at..end).anchored(Anchored::Yes))
                .map(|m| m.end()),
            Piece::Run { set, min, max } => {
                let most = max.map_or(end, |m| end.min(at.saturating_add(m)));
                let n = hay[at..most]
                    .iter()
                    .take_while(|&&b| set[usize::from(b >> 6)] >> (b & 63) & 1 != 0)
                    .count();
                (n >= *min).then_some(at + n)
            }
        }
    }
}

impl Split {
    /// The pieces of `pattern` around the groups `wanted`; `None` unless the
    /// pattern is a concatenation with each wanted group as one of its items.
    /// `runs`: groups that are runs of a class are read as such (off only in
    /// tests that compare both ways).
    fn of(hir: &Hir, wanted: &[usize], groups: usize, runs: bool) -> Option<Split> {
        use regex_syntax::hir::HirKind;
        if wanted.is_empty() || groups > MAX_SPLIT_GROUPS {
            return None;
        }
        let HirKind::Concat(items) = hir.kind() else {
            return None;
        };
        let build = |h: &Hir| {
            regex_automata::meta::Builder::new()
                .configure(anchored_config())
                .build_from_hir(h)
                .ok()
        };
        let mut pieces = Vec::new();
        let mut between: Vec<Hir> = Vec::new();
        let mut found = 0;
        for item in items {
            match item.kind() {
                HirKind::Capture(cap) if wanted.contains(&(cap.index as usize)) => {
                    if !between.is_empty() {
                        let between = Hir::concat(std::mem::take(&mut between));
                        pieces.push((Piece::Regex(build(&between)?), None));
                    }
                    let piece = match Piece::run(item) {
                        Some(run) if runs => run,
                        _ => Piece::Regex(build(item)?),
                    };
                    pieces.push((piece, Some(cap.index as usize)));
                    found += 1;
                }
                _ => between.push(item.clone()),
            }
        }
        if !between.is_empty() {
            pieces.push((Piece::Regex(build(&Hir::concat(between))?), None));
        }
        (found == wanted.len()).then_some(Split { pieces, groups })
    }

    /// The number of groups of the whole pattern (with group 0).
    pub(crate) fn groups(&self) -> usize {
        self.groups
    }

    /// The spans of the wanted groups of the match `[ms, me)` of `hay`, in
    /// `out` (indexed by group, `groups()` long); whether they were found
    /// (`false`: ask a capture engine).
    pub(crate) fn read(
        &self,
        hay: &[u8],
        (ms, me): (usize, usize),
        out: &mut [Option<(usize, usize)>],
    ) -> bool {
        out.fill(None);
        let mut at = ms;
        for (piece, group) in &self.pieces {
            let Some(end) = piece.end_at(hay, at, me) else {
                return false;
            };
            if let Some(g) = group {
                out[*g] = Some((at, end));
            }
            at = end;
        }
        if at != me {
            return false;
        }
        out[0] = Some((ms, me));
        true
    }
}

/// Compiles `pattern` for `usage` and resolves the secret group and the
/// alternative groups (by name) of rule `id`.
fn compile_rule(
    id: &str,
    pattern: &str,
    hir: Option<&Hir>,
    group: &SecretGroup,
    alt_names: &[String],
    usage: Usage,
) -> Result<Compiled, Error> {
    let regex = Engine::new(id, pattern, hir, usage)?;
    let by_name = |n: &str| regex.capture_names().position(|c| c == Some(n));
    let unknown = |group: String| Error::UnknownSecretGroup {
        rule: id.to_string(),
        group,
    };
    let group_index = match group {
        SecretGroup::Whole => 0,
        SecretGroup::Index(i) if *i < regex.captures_len() => *i,
        SecretGroup::Index(_) => return Err(unknown(group.to_string())),
        SecretGroup::Name(name) => by_name(name).ok_or_else(|| unknown(group.to_string()))?,
    };
    let mut alt = Vec::with_capacity(alt_names.len());
    for a in alt_names {
        alt.push(by_name(a).ok_or_else(|| unknown(format!("{a:?}")))?);
    }
    let name_group = by_name("name");
    Ok(Compiled {
        regex,
        group_index,
        alt,
        name_group,
    })
}

/// Whether every match of `pattern` starts with one of `keywords` (ASCII
/// case-insensitive): the regex's literal prefixes are finite and each
/// begins with a keyword. Look-arounds (`\b`, `^`) take no bytes, so
/// `\bghp_[A-Za-z0-9]{36}` with keyword `ghp_` qualifies; `[A-Za-z0-9]{40}`
/// with keyword `aws` does not.
fn keyword_prefixed(hir: &Hir, keywords: &[String]) -> bool {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    // Small limits: only whether each literal prefix reaches past a keyword
    // matters (keywords are short), and big classes or alternations make the
    // default extraction slow for every redactor built. 128 literals hold a
    // six-letter keyword's case forms and a blank after it (`bearer `).
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix)
        .limit_class(8)
        .limit_repeat(4)
        .limit_literal_len(24)
        .limit_total(128);
    let seq = ex.extract(hir);
    let Some(lits) = seq.literals() else {
        return false;
    };
    !lits.is_empty()
        && lits.iter().all(|l| {
            let l = l.as_bytes();
            keywords
                .iter()
                .any(|k| l.len() >= k.len() && l[..k.len()].eq_ignore_ascii_case(k.as_bytes()))
        })
}

/// Whether `pattern` may be [`keyword_prefixed`]: it has keywords and its
/// first bytes are no class, line start or named group (most patterns that
/// cannot qualify say so there: no need to parse them).
fn may_be_prefixed(pattern: &str, keywords: &[String]) -> bool {
    if keywords.is_empty() {
        return false;
    }
    let mut head = pattern;
    loop {
        let rest = [
            "(?-u)", "(?i)", "(?m)", "(?s)", "(?x)", "(?im)", "(?-u:", "\\b",
        ]
        .iter()
        .find_map(|f| head.strip_prefix(f));
        match rest {
            Some(r) => head = r,
            None => break,
        }
    }
    !(head.starts_with(['[', '.', '^', '$'])
        || head.starts_with("(?:^")
        || head.starts_with("(?P<")
        || head.starts_with("(?m)"))
}

impl Rule {
    /// The pattern parsed ([`crate::quick::parse_bytes`]), on first use;
    /// `None` when it does not parse (never for a built rule).
    pub(crate) fn hir(&self) -> Option<&Hir> {
        self.hir
            .get_or_init(|| crate::quick::parse_bytes(&self.pattern))
            .as_ref()
    }

    /// The rule's regex and groups, compiled now if this is their first use.
    pub(crate) fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            // Only built-in rules compile late, and every one of them
            // compiles (test `every_builtin_rule_compiles_as_built_lazily`).
            let usage = if self.prefixed() {
                Usage::Anchored
            } else {
                Usage::Searched
            };
            compile_rule(
                &self.id,
                &self.pattern,
                self.hir(),
                &self.group,
                &self.alt_names,
                usage,
            )
            .unwrap_or_else(|e| panic!("{e}"))
        })
    }

    /// Where the search may resume after a match it did not skip over (see
    /// [`Resume`]): only for rules whose every match holds one of their
    /// needed bytes past its first byte.
    pub(crate) fn resume(&self) -> Option<&Resume> {
        self.resume
            .get_or_init(|| match self.needs {
                Some(Needs::Byte(set) | Needs::ThenQuote(set)) => {
                    self.hir().and_then(|h| Resume::of_hir(h, set))
                }
                _ => None,
            })
            .as_ref()
    }

    /// The rule's pattern cut at the groups it reads (see [`Split`]), for
    /// rules with capture groups but no alternative ones; `None` until the
    /// rule has asked [`SPLIT_AFTER`] times.
    pub(crate) fn split(&self) -> Option<&Split> {
        use std::sync::atomic::Ordering;
        if self.split.get().is_none()
            && self.split_asks.fetch_add(1, Ordering::Relaxed) < SPLIT_AFTER
        {
            return None;
        }
        self.built_split()
    }

    /// [`Rule::split`], built now if it is not yet.
    pub(crate) fn built_split(&self) -> Option<&Split> {
        self.split
            .get_or_init(|| {
                let c = self.compiled();
                if c.whole() || !c.alt.is_empty() {
                    return None;
                }
                let groups: Vec<usize> = std::iter::once(c.group_index)
                    .chain(c.name_group)
                    .filter(|&g| g > 0)
                    .collect();
                Split::of(self.hir()?, &groups, c.regex.captures_len(), true)
            })
            .as_ref()
    }

    /// The rule's regex (see [`Rule::compiled`]).
    pub(crate) fn regex(&self) -> &Engine {
        &self.compiled().regex
    }

    /// Whether every match starts with one of the keywords (see the field).
    pub(crate) fn prefixed(&self) -> bool {
        *self.prefixed.get_or_init(|| {
            self.may_prefix
                && self
                    .hir()
                    .is_some_and(|h| keyword_prefixed(h, &self.keywords))
        })
    }

    /// Whether a match, or an attempt to match, may read far past its start
    /// and across words (see [`reads_across_words`]), such as a command
    /// line's `tool[^\n]*?-p`. Anchored at each of many starts on one long
    /// line (`tool tool tool …`), such a rule reads the rest of its window
    /// from each. A pattern that could not be parsed here counts as one.
    pub(crate) fn reads_far(&self) -> bool {
        *self
            .reads_far
            .get_or_init(|| self.hir().is_none_or(reads_across_words))
    }

    /// The engine of a [`Rule::prefixed`] rule's anchored searches: its
    /// regex itself (one build serves both kinds of search; `None` for
    /// rules that are not prefixed, without compiling anything).
    pub(crate) fn anchored(&self) -> Option<&regex_automata::meta::Regex> {
        self.prefixed().then(|| self.compiled().regex.meta())
    }
}

/// Repetitions of more than this many items read far (see [`reads_across_words`]).
const FAR_MATCH: u32 = 256;

/// Whether `hir` repeats, more than [`FAR_MATCH`] times or without bound,
/// something that can read across words: a class that holds a space or
/// tab and other bytes too (`[^\r\n|;&]*?`, `.+`), or anything more than a
/// class or a literal (conservatively). Repeated token classes
/// (`[A-Za-z0-9]{32,}`, `[\t ]+`, `\S+`) stop at the next word: from each
/// of many starts of such a rule, attempts read disjoint stretches.
fn reads_across_words(hir: &Hir) -> bool {
    use regex_syntax::hir::{Class, HirKind};
    // Whether ranges of code points hold a space or tab, and a byte other
    // than those `\s` matches in ASCII (`\t`, `\n`, `\x0b`, `\x0c`, `\r`, space).
    fn crosses(ranges: impl Iterator<Item = (u32, u32)>) -> bool {
        let (mut blank, mut other) = (false, false);
        for (a, b) in ranges {
            blank |= (a <= 9 && b >= 9) || (a <= 32 && b >= 32);
            other |= a < 9 || b > 32 || (a <= 31 && b >= 14);
        }
        blank && other
    }
    match hir.kind() {
        HirKind::Repetition(rep) => {
            let long = rep.max.is_none_or(|m| m > FAR_MATCH);
            let wide = match rep.sub.kind() {
                HirKind::Class(Class::Bytes(c)) => crosses(
                    c.ranges()
                        .iter()
                        .map(|r| (u32::from(r.start()), u32::from(r.end()))),
                ),
                HirKind::Class(Class::Unicode(c)) => crosses(
                    c.ranges()
                        .iter()
                        .map(|r| (u32::from(r.start()), u32::from(r.end()))),
                ),
                HirKind::Literal(_) => false,
                _ => true,
            };
            (long && wide) || reads_across_words(&rep.sub)
        }
        HirKind::Capture(c) => reads_across_words(&c.sub),
        HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().any(reads_across_words),
        _ => false,
    }
}

/// How a rule's regex is searched, which decides the engines it is built
/// with (see [`Engine::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Usage {
    /// A user rule, compiled at build: the `regex` crate's own configuration.
    User,
    /// A built-in rule searched over its windows.
    Searched,
    /// A built-in [`Rule::prefixed`] rule, run anchored at its keyword hits.
    Anchored,
}

/// A rule's compiled regex: one `regex_automata` meta engine, searched with
/// the semantics of `regex::bytes::Regex` (leftmost-first, bytes, no UTF-8
/// requirement, empty matches anywhere) — the methods below are those of
/// `regex::bytes::Regex` that the redactor uses, computed the same way.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    re: regex_automata::meta::Regex,
}

/// The capture groups of one [`Engine::captures_read_at`] search.
#[derive(Clone, Debug)]
pub(crate) struct Locations(regex_automata::util::captures::Captures);

impl Locations {
    /// The span of group `g`, if it took part in the match.
    pub(crate) fn get(&self, g: usize) -> Option<(usize, usize)> {
        self.0.get_group(g).map(|sp| (sp.start, sp.end))
    }
}

impl Engine {
    /// Compiles `pattern` (of rule `id`) with the engines `usage` needs. An
    /// error carries the `regex` crate's message for the pattern.
    fn new(id: &str, pattern: &str, hir: Option<&Hir>, usage: Usage) -> Result<Engine, Error> {
        // A pattern that does not parse: the `regex` crate's message.
        let Some(hir) = hir else {
            return Err(compile(id, pattern)
                .err()
                .unwrap_or_else(|| Error::InvalidPattern {
                    rule: id.to_string(),
                    pattern: pattern.to_string(),
                    message: "the pattern does not parse".to_string(),
                }));
        };
        let config = match usage {
            Usage::User => regex_config(),
            Usage::Searched => regex_config()
                .auto_prefilter(false)
                .prefilter(prefix_prefilter(hir)),
            Usage::Anchored => anchored_config(),
        };
        regex_automata::meta::Builder::new()
            .configure(config)
            .build_from_hir(hir)
            .map(|re| Engine { re })
            .map_err(|e| match compile(id, pattern) {
                // The message the `regex` crate gives for this pattern (it
                // fails the same way: same parser, same NFA size limit).
                Err(err) => err,
                Ok(_) => Error::InvalidPattern {
                    rule: id.to_string(),
                    pattern: pattern.to_string(),
                    message: e.to_string(),
                },
            })
    }

    /// The meta engine itself.
    pub(crate) fn meta(&self) -> &regex_automata::meta::Regex {
        &self.re
    }

    /// The leftmost-first match starting at `at` or later (look-arounds see
    /// the bytes before `at`), as `regex::bytes::Regex::find_at`.
    pub(crate) fn find_at(&self, hay: &[u8], at: usize) -> Option<regex_automata::Match> {
        self.re
            .find(regex_automata::Input::new(hay).span(at..hay.len()))
    }

    /// [`Engine::find_at`] that also records the groups in `locs`, as
    /// `regex::bytes::Regex::captures_read_at`.
    pub(crate) fn captures_read_at(
        &self,
        locs: &mut Locations,
        hay: &[u8],
        at: usize,
    ) -> Option<regex_automata::Match> {
        let input = regex_automata::Input::new(hay).span(at..hay.len());
        self.re.search_captures(&input, &mut locs.0);
        locs.0.get_match()
    }

    /// Room for the groups of one search.
    pub(crate) fn capture_locations(&self) -> Locations {
        Locations(self.re.create_captures())
    }

    /// The names of the groups, by index (`None` for unnamed ones and group 0).
    pub(crate) fn capture_names(&self) -> impl Iterator<Item = Option<&str>> {
        self.re
            .group_info()
            .pattern_names(regex_automata::PatternID::ZERO)
    }

    /// The number of groups, group 0 included.
    pub(crate) fn captures_len(&self) -> usize {
        self.re.captures_len()
    }

    /// Whether the pattern matches anywhere in `hay`.
    #[cfg(test)]
    pub(crate) fn is_match(&self, hay: &[u8]) -> bool {
        self.re.is_match(hay)
    }
}

/// The prefilter of a searched built-in rule: the literals every match
/// opens with, as the meta engine extracts them itself, when they make a
/// fast prefilter (`memchr`, `memmem`, Teddy); `None` otherwise. Built here
/// rather than by the engine's `auto_prefilter`, which also tries the
/// reverse-suffix and reverse-inner strategies (a second literal
/// extraction, a second reverse NFA and lazy DFA per rule) that never paid
/// in a rule's windows.
fn prefix_prefilter(hir: &Hir) -> Option<regex_automata::util::prefilter::Prefilter> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    let mut ex = Extractor::new();
    ex.kind(ExtractKind::Prefix);
    let mut seq = ex.extract(hir);
    seq.optimize_for_prefix_by_preference();
    regex_automata::util::prefilter::Prefilter::new(
        regex_automata::MatchKind::LeftmostFirst,
        seq.literals()?,
    )
    .filter(|p| p.is_fast())
}

/// The configuration `regex::bytes::RegexBuilder::new(p).size_limit(32 MiB)`
/// gives its meta engine (leftmost-first, empty matches anywhere, a 2 MiB
/// lazy DFA cache).
fn regex_config() -> regex_automata::meta::Config {
    regex_automata::meta::Config::new()
        .utf8_empty(false)
        .nfa_size_limit(Some(32 * 1024 * 1024))
        .hybrid_cache_capacity(2 * 1024 * 1024)
}

/// The engines of anchored searches (a prefixed rule at its keyword hits,
/// a rule's pieces from where the previous one ended): no prefilter (the
/// start is given), no full DFA to build.
fn anchored_config() -> regex_automata::meta::Config {
    regex_config().auto_prefilter(false).dfa(false)
}

fn compile(id: &str, pattern: &str) -> Result<Regex, Error> {
    RegexBuilder::new(pattern)
        .size_limit(32 * 1024 * 1024)
        .build()
        .map_err(|e| Error::InvalidPattern {
            rule: id.to_string(),
            pattern: pattern.to_string(),
            message: e.to_string(),
        })
}

/// Whether `id` is lowercase-kebab: `[a-z0-9]+(-[a-z0-9]+)*`.
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id.split('-').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// An ordered collection of rules, e.g. the built-in set or a user rule file.
#[derive(Clone, Debug, Default)]
pub struct RuleSet {
    pub(crate) rules: Vec<Rule>,
}

impl RuleSet {
    /// An empty set.
    pub fn new() -> RuleSet {
        RuleSet::default()
    }

    /// The built-in rules (see the crate docs for the list).
    pub fn builtin() -> RuleSet {
        RuleSet {
            rules: crate::builtin::rules(),
        }
    }

    /// Adds a rule.
    pub fn push(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// Adds all rules of another set.
    pub fn extend(&mut self, other: RuleSet) {
        self.rules.extend(other.rules);
    }

    /// The rules in order.
    pub fn iter(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter()
    }

    /// Number of rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether the set has no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The distinct rule ids, in first-appearance order.
    pub fn ids(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.rules {
            if !out.contains(&r.id.as_str()) {
                out.push(&r.id);
            }
        }
        out
    }
}

impl FromIterator<Rule> for RuleSet {
    fn from_iter<T: IntoIterator<Item = Rule>>(iter: T) -> Self {
        RuleSet {
            rules: iter.into_iter().collect(),
        }
    }
}

impl IntoIterator for RuleSet {
    type Item = Rule;
    type IntoIter = std::vec::IntoIter<Rule>;
    fn into_iter(self) -> Self::IntoIter {
        self.rules.into_iter()
    }
}

/// The labelled corpus of the integration tests (used by the tests below
/// and by the redactor's).
#[cfg(test)]
#[path = "../tests/corpus/mod.rs"]
pub(crate) mod corpus;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rules_that_read_across_words_are_told_from_token_rules() {
        let far = |p: &str| reads_across_words(&crate::quick::parse_bytes(p).unwrap());
        assert!(far(r"\blftp\b[^\r\n|;&]*?[\t ]-u[\t ]+[^\s,]+,"));
        assert!(far(
            r#"::add-mask::[\t ]*(?:"(?P<s>[^"\r\n]+)"|(?P<t>[^\s"'$][^\r\n"']*))"#
        ));
        assert!(far(r"key.+x"));
        assert!(far(r#"k(?:[^"]|\\")*"#));
        assert!(!far(r"\bsk-[A-Za-z0-9]{32,}"));
        assert!(!far(
            r"(?i)\bbasic[\t ]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"
        ));
        assert!(!far(r"tool\S+"));
        assert!(!far(r"a[^\n]{0,40}b"));
    }

    /// The built-in rules whose groups the pieces read.
    fn split_rules() -> &'static [Rule] {
        static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
        RULES.get_or_init(|| {
            crate::builtin::rules()
                .into_iter()
                .filter(|r| r.built_split().is_some())
                .collect()
        })
    }

    #[test]
    fn header_url_and_command_rules_are_read_by_pieces() {
        let ids: Vec<&str> = split_rules().iter().map(|r| r.id.as_str()).collect();
        for id in [
            "bearer-token",
            "url-password",
            "basic-auth",
            "generic-secret",
        ] {
            assert!(ids.contains(&id), "{id} not in {ids:?}");
        }
        // The bench's header: read by the pieces, as the backtracker reads it.
        let hay = b"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl (ok)";
        let mut read_by_pieces = 0;
        for rule in split_rules() {
            let c = rule.compiled();
            let mut out = vec![None; rule.built_split().unwrap().groups()];
            for caps in c.regex.meta().captures_iter(hay) {
                let m = caps.get_match().unwrap();
                assert!(rule
                    .built_split()
                    .unwrap()
                    .read(hay, (m.start(), m.end()), &mut out));
                read_by_pieces += 1;
                let want = caps.get_group(c.group_index).map(|g| (g.start, g.end));
                assert_eq!(out[c.group_index], want, "{}", rule.pattern);
            }
        }
        assert!(read_by_pieces >= 2, "{read_by_pieces}");
    }

    /// A rule reads its first groups with the capture engine: its pieces are
    /// compiled only when it keeps matching.
    #[test]
    fn pieces_are_built_for_rules_that_keep_matching() {
        let rule = crate::builtin::rules()
            .into_iter()
            .find(|r| r.id == "bearer-token")
            .unwrap();
        for _ in 0..SPLIT_AFTER {
            assert!(rule.split().is_none());
        }
        assert!(rule.split().is_some());
        // Clones share it.
        assert!(rule.clone().split().is_some());
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(vec![
                "Authorization", "authorization: ", "Bearer ", "bearer\t", "Basic ", "token ",
                "Proxy-Authorization:", "https://", "postgres://", "git+ssh://", "app", ":", "@",
                "@db:5432/x", "/", "\"", "'", "\\", " ", "\t", "=", ",", ";", "-u ", "curl ",
                "--user ", "password ", "machine ", "login ", "sshpass -p ", "redis-cli -a ",
                "=${", "}", "<", ">", "\n", "eyJ", ".", "-", "_", "%", "~", "+", "\u{e9}",
            ])
            .prop_map(str::to_string),
            2 => "[A-Za-z0-9+/=._~-]{1,30}",
        ]
    }

    proptest! {
        /// The groups read by the pattern's pieces are those of the capture
        /// engine, for every match of every built-in rule they serve.
        #[test]
        fn pieces_read_the_groups_a_capture_engine_reads(
            parts in prop::collection::vec(piece(), 0..20),
        ) {
            let text = parts.concat();
            let hay = text.as_bytes();
            for rule in split_rules() {
                let c = rule.compiled();
                let sp = rule.built_split().unwrap();
                let mut out = vec![None; sp.groups()];
                for caps in c.regex.meta().captures_iter(hay) {
                    let m = caps.get_match().unwrap();
                    if sp.read(hay, (m.start(), m.end()), &mut out) {
                        for g in std::iter::once(c.group_index).chain(c.name_group) {
                            let want = caps.get_group(g).map(|x| (x.start, x.end));
                            prop_assert_eq!(out[g], want, "{} on {:?}", &rule.pattern, &text);
                        }
                    }
                }
            }
        }
    }

    /// A group that is one greedy repetition of a class, read as a run,
    /// ends where its anchored search ends, from any start, below any end.
    #[test]
    fn runs_end_where_their_search_ends() {
        let build = |h: &Hir| {
            regex_automata::meta::Builder::new()
                .configure(anchored_config())
                .build_from_hir(h)
                .unwrap()
        };
        let hays: [&[u8]; 4] = [b"abcabcxab\nca", b"", b"xxxx", b"aaaaaaaaaa\xe9b"];
        for pattern in [
            r"(?-u)(?P<s>[a-c]{2,4})",
            r"(?-u)(?P<s>[a-c]*)",
            r"(?-u)(?P<s>[^x\n]+)",
            r"(?-u)[a-c]{3}",
            r"(?-u)(?P<s>[\x00-\xff]{1,5})",
            r"(?P<s>[a-c]{0,1})",
        ] {
            let hir = crate::quick::parse_bytes(pattern).unwrap();
            let run = Piece::run(&hir).unwrap_or_else(|| panic!("{pattern} is no run"));
            let re = Piece::Regex(build(&hir));
            for hay in hays {
                for at in 0..=hay.len() {
                    for end in at..=hay.len() {
                        assert_eq!(
                            run.end_at(hay, at, end),
                            re.end_at(hay, at, end),
                            "{pattern} on {hay:?} [{at}, {end})"
                        );
                    }
                }
            }
        }
        // Not runs: lazy, not a class, a concatenation.
        for pattern in [
            r"(?-u)(?P<s>[a-c]+?)",
            r"(?-u)(?P<s>ab+)",
            r"(?-u)(?P<s>(?:ab)+)",
        ] {
            assert!(Piece::run(&crate::quick::parse_bytes(pattern).unwrap()).is_none());
        }
    }

    #[test]
    fn header_tokens_are_read_as_runs() {
        let rule = crate::builtin::rules()
            .into_iter()
            .find(|r| r.pattern.contains("authorization") && r.id == "bearer-token")
            .unwrap();
        let runs = rule
            .built_split()
            .unwrap()
            .pieces
            .iter()
            .filter(|(p, g)| matches!(p, Piece::Run { .. }) && g.is_some())
            .count();
        assert_eq!(runs, 1);
    }

    proptest! {
        /// Pieces read as runs give what the same pieces searched give, for
        /// every match of every built-in rule read by pieces.
        #[test]
        fn pieces_read_as_runs_read_what_searched_pieces_read(
            parts in prop::collection::vec(piece(), 0..20),
        ) {
            let text = parts.concat();
            let hay = text.as_bytes();
            for rule in split_rules() {
                let c = rule.compiled();
                let with_runs = rule.built_split().unwrap();
                let groups: Vec<usize> = std::iter::once(c.group_index)
                    .chain(c.name_group)
                    .filter(|&g| g > 0)
                    .collect();
                let searched =
                    Split::of(rule.hir().unwrap(), &groups, c.regex.captures_len(), false).unwrap();
                let (mut a, mut b) = (vec![None; with_runs.groups()], vec![None; searched.groups()]);
                for m in c.regex.meta().find_iter(hay) {
                    let (ra, rb) = (
                        with_runs.read(hay, (m.start(), m.end()), &mut a),
                        searched.read(hay, (m.start(), m.end()), &mut b),
                    );
                    prop_assert_eq!(ra, rb, "{} on {:?}", &rule.pattern, &text);
                    if ra {
                        prop_assert_eq!(&a, &b, "{} on {:?}", &rule.pattern, &text);
                    }
                }
            }
        }
    }

    #[test]
    fn every_builtin_rule_compiles_as_built_lazily() {
        let lazy = crate::builtin::rules();
        let eager = crate::builtin::rules_eager();
        assert_eq!(lazy.len(), eager.len());
        for (l, e) in lazy.iter().zip(&eager) {
            // Nothing is compiled or parsed for the literal check at build.
            assert!(l.compiled.get().is_none(), "{} compiled at build", l.id);
            assert!(l.hir.get().is_none(), "{} parsed at build", l.id);
            assert!(e.compiled.get().is_some(), "{} not compiled at build", e.id);
            assert!(l.may_prefix || l.prefixed.get() == Some(&false), "{}", l.id);
            let (lc, ec) = (l.compiled(), e.compiled());
            assert_eq!(
                (lc.group_index, &lc.alt, lc.name_group, l.prefixed()),
                (ec.group_index, &ec.alt, ec.name_group, e.prefixed()),
                "{}",
                l.id
            );
            assert_eq!(l.regex().captures_len(), e.regex().captures_len());
        }
        // Some built-in rules run anchored at their keywords.
        assert!(lazy.iter().filter(|r| r.prefixed()).count() >= 20);
    }

    /// A keyword's case forms and a blank after it (`(?i)\bbearer[\t ]+`:
    /// 128 literal prefixes) keep a rule prefixed: the bare `Bearer` rule
    /// runs anchored at its hits, where it searched every line that holds
    /// one (`token_type=bearer latency_ms=12`, a log's every line: 100 ->
    /// 78 instructions a byte).
    #[test]
    fn case_forms_and_a_blank_after_a_keyword_keep_a_rule_prefixed() {
        let bearer = crate::builtin::rules()
            .into_iter()
            .find(|r| r.id == "bearer-token" && r.pattern.contains(r"\bbearer[\t ]+"))
            .unwrap();
        assert!(bearer.prefixed());
        // Docker's `"auth":` from its keyword on (a JSON log's `"auth":"ok"`).
        let docker = crate::builtin::rules()
            .into_iter()
            .find(|r| r.id == "docker-auth")
            .unwrap();
        assert!(docker.prefixed());
    }

    /// A class of up to eight bytes after a keyword's first bytes keeps a
    /// rule prefixed: `gh[pousr]_` starts with one of `ghp_` … `ghr_`, so
    /// the GitHub rule runs anchored at those hits instead of searching
    /// each line that holds one (1 311 window searches per 2 MB of
    /// secret-dense text).
    #[test]
    fn a_small_class_after_a_keyword_keeps_a_rule_prefixed() {
        let github = crate::builtin::rules()
            .into_iter()
            .find(|r| r.id == "github-token" && r.pattern.contains("gh[pousr]_"))
            .unwrap();
        assert!(github.prefixed());
        let rule = Rule::builder("wide", r"x[abcdefghi]_[0-9]{8}")
            .keywords([
                "xa_", "xb_", "xc_", "xd_", "xe_", "xf_", "xg_", "xh_", "xi_",
            ])
            .build()
            .unwrap();
        assert!(
            !rule.prefixed(),
            "nine bytes are more than the extraction keeps"
        );
    }

    #[test]
    fn rules_and_redactors_stay_send_sync_and_cheap_to_clone() {
        fn send_sync<T: Send + Sync + Clone>() {}
        send_sync::<Rule>();
        send_sync::<RuleSet>();
        send_sync::<crate::Redactor>();
        // A set's clone shares its rules' compiled regexes.
        let set = RuleSet::builtin();
        let copy = set.clone();
        let _ = set.rules[0].regex();
        assert!(copy.rules[0].compiled.get().is_some());
        let a = crate::Redactor::builder()
            .env_values(false)
            .build()
            .unwrap();
        let text = "export GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
        assert_eq!(a.clone().redact(text), a.redact(text));
        assert!(a.redact(text).contains("[REDACTED:github-token]"));
    }

    #[test]
    fn a_clone_shares_the_lazily_compiled_regex() {
        let rules = crate::builtin::rules();
        let a = rules[0].clone();
        assert!(a.compiled.get().is_none());
        let _ = rules[0].regex();
        assert!(a.compiled.get().is_some(), "the clone compiled again");
    }

    #[test]
    fn a_bad_user_pattern_fails_at_build_with_the_regex_message() {
        for pattern in [
            r"a(b",
            r"[z-a]",
            r"\p{NoSuchClass}",
            r"(?P<n>x)(?P<n>y)",
            r"\w{2000}{2000}",
        ] {
            let err = Rule::builder("bad-rule", pattern)
                .keyword("a")
                .build()
                .expect_err(pattern);
            let message = RegexBuilder::new(pattern)
                .size_limit(32 * 1024 * 1024)
                .build()
                .expect_err(pattern)
                .to_string();
            assert_eq!(
                err.to_string(),
                format!("rule bad-rule: invalid pattern {pattern:?}: {message}")
            );
            assert!(matches!(err, Error::InvalidPattern { .. }), "{err:?}");
        }
        // A user rule's regex is compiled by `build`.
        let rule = Rule::builder("ok-rule", r"ok_[a-z]{4}")
            .keyword("ok_")
            .build()
            .unwrap();
        assert!(rule.compiled.get().is_some());
    }

    use super::corpus;

    /// The built-in rules, each with the `regex::bytes::Regex` of its
    /// pattern (the reference the engines are compared with).
    fn with_reference() -> &'static [(Rule, Regex)] {
        static RULES: OnceLock<Vec<(Rule, Regex)>> = OnceLock::new();
        RULES.get_or_init(|| {
            crate::builtin::rules()
                .into_iter()
                .map(|r| {
                    let re = compile(&r.id, &r.pattern).unwrap();
                    (r, re)
                })
                .collect()
        })
    }

    /// Compares one rule's engine with the `regex` crate on `hay`: the same
    /// group names; from 0, match after match (as the redactor resumes), the
    /// same matches and groups; and for a prefixed rule, at every start of
    /// one of its keywords, the anchored search finds the match the search
    /// from there finds when it starts there (else none). Returns the
    /// number of matches compared, or what differed.
    fn same_as_the_regex_crate(
        rule: &Rule,
        reference: &Regex,
        hay: &[u8],
    ) -> Result<usize, String> {
        use regex_automata::{Anchored, Input};
        let engine = rule.regex();
        let names: Vec<_> = engine.capture_names().collect();
        let want: Vec<_> = reference.capture_names().collect();
        if names != want || engine.captures_len() != reference.captures_len() {
            return Err(format!("groups {names:?} vs {want:?}"));
        }
        let text = String::from_utf8_lossy(hay);
        let mut locs = engine.capture_locations();
        let mut ref_locs = reference.capture_locations();
        let mut at = 0;
        let mut found = 0;
        while at <= hay.len() {
            let got = engine.find_at(hay, at).map(|m| (m.start(), m.end()));
            let want = reference.find_at(hay, at).map(|m| (m.start(), m.end()));
            if got != want {
                return Err(format!("find_at {at}: {got:?} vs {want:?} in {text:?}"));
            }
            let got_c = engine
                .captures_read_at(&mut locs, hay, at)
                .map(|m| (m.start(), m.end()));
            let want_c = reference
                .captures_read_at(&mut ref_locs, hay, at)
                .map(|m| (m.start(), m.end()));
            if got_c != want || want_c != want {
                return Err(format!("captures_read_at {at}: {got_c:?} vs {want_c:?}"));
            }
            let Some((s, e)) = want else { break };
            for g in 0..reference.captures_len() {
                if locs.get(g) != ref_locs.get(g) {
                    return Err(format!(
                        "group {g} at {at}: {:?} vs {:?} in {text:?}",
                        locs.get(g),
                        ref_locs.get(g)
                    ));
                }
            }
            found += 1;
            at = if e > s { e } else { e + 1 };
        }
        if let Some(re) = rule.anchored() {
            let lower = hay.to_ascii_lowercase();
            let mut caps = re.create_captures();
            for k in &rule.keywords {
                let k = k.to_ascii_lowercase();
                for st in memchr::memmem::find_iter(&lower, k.as_bytes()) {
                    let input = Input::new(hay).span(st..hay.len()).anchored(Anchored::Yes);
                    let got = re.search(&input).map(|m| (m.start(), m.end()));
                    let want = reference
                        .captures_read_at(&mut ref_locs, hay, st)
                        .map(|m| (m.start(), m.end()))
                        .filter(|&(s, _)| s == st);
                    re.search_captures(&input, &mut caps);
                    let got_c = caps.get_match().map(|m| (m.start(), m.end()));
                    if got != want || got_c != want {
                        return Err(format!(
                            "anchored at {st}: {got:?} / {got_c:?} vs {want:?} in {text:?}"
                        ));
                    }
                    if want.is_some() {
                        for g in 0..reference.captures_len() {
                            let got_g = caps.get_group(g).map(|sp| (sp.start, sp.end));
                            if got_g != ref_locs.get(g) {
                                return Err(format!(
                                    "anchored group {g} at {st}: {got_g:?} vs {:?}",
                                    ref_locs.get(g)
                                ));
                            }
                        }
                        found += 1;
                    }
                }
            }
        }
        Ok(found)
    }

    /// Every built-in rule's engine, built for how the rule is searched (a
    /// prefilter or none, anchored or not), finds on the whole labelled
    /// corpus the matches and groups that `regex::bytes::Regex` finds.
    #[test]
    fn builtin_engines_find_what_the_regex_crate_finds_on_the_corpus() {
        let mut records = corpus::secret_records(0xE7617E, 1);
        records.extend(corpus::clean_records(0xC1EA7, 300));
        records.extend(corpus::hard_clean_records());
        let mut all = String::new();
        for rec in &records {
            all.push_str(&rec.text);
            all.push('\n');
        }
        let (mut matched_rules, mut matched_anchored, mut matches) = (0, 0, 0);
        for (rule, reference) in with_reference() {
            let found = same_as_the_regex_crate(rule, reference, all.as_bytes())
                .unwrap_or_else(|e| panic!("{} {}: {e}", rule.id, rule.pattern));
            matches += found;
            matched_rules += usize::from(found > 0);
            matched_anchored += usize::from(found > 0 && rule.anchored().is_some());
        }
        // Most rules match somewhere in the corpus, prefixed ones too.
        let rules = with_reference().len();
        assert!(matched_rules * 2 >= rules, "{matched_rules} of {rules}");
        assert!(matched_anchored >= 40, "{matched_anchored}");
        assert!(matches >= 10_000, "{matches}");
    }

    fn corpus_text() -> impl Strategy<Value = String> {
        static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
        let texts = TEXTS.get_or_init(|| {
            corpus::secret_records(0x7E47, 1)
                .into_iter()
                .map(|r| r.text)
                .collect()
        });
        (prop::sample::select(texts.clone()), 0usize..24, 0usize..24).prop_map(|(t, a, b)| {
            // A record, some bytes off either end (partial tokens and
            // contexts), cut at char boundaries.
            let mut s = a.min(t.len());
            while !t.is_char_boundary(s) {
                s -= 1;
            }
            let mut e = t.len().saturating_sub(b).max(s);
            while !t.is_char_boundary(e) {
                e += 1;
            }
            t[s..e].to_string()
        })
    }

    proptest! {
        /// [`builtin_engines_find_what_the_regex_crate_finds_on_the_corpus`]
        /// on slices of secret records mixed with header, URL and command
        /// pieces.
        #[test]
        fn builtin_engines_find_what_the_regex_crate_finds(
            parts in prop::collection::vec(prop_oneof![2 => corpus_text(), 1 => piece()], 0..6),
        ) {
            let text = parts.concat();
            for (rule, reference) in with_reference() {
                if let Err(e) = same_as_the_regex_crate(rule, reference, text.as_bytes()) {
                    prop_assert!(false, "{} {}: {}", rule.id, rule.pattern, e);
                }
            }
        }
    }

    /// A prefixed rule's anchored searches run on its regex: one engine, one
    /// build (and the engine is made for them: no prefilter).
    #[test]
    fn a_prefixed_rule_builds_one_engine_for_both_searches() {
        let rules = crate::builtin::rules();
        let mut prefixed = 0;
        for rule in &rules {
            match rule.anchored() {
                Some(re) => {
                    prefixed += 1;
                    assert!(
                        std::ptr::eq(re, rule.compiled().regex.meta()),
                        "{}",
                        rule.id
                    );
                    assert!(!rule
                        .compiled()
                        .regex
                        .meta()
                        .get_config()
                        .get_auto_prefilter());
                    assert!(rule
                        .compiled()
                        .regex
                        .meta()
                        .get_config()
                        .get_prefilter()
                        .is_none());
                }
                None => assert!(!rule.prefixed(), "{}", rule.id),
            }
        }
        assert!(prefixed >= 20, "{prefixed}");
        // A rule that is not prefixed compiles nothing when asked.
        let plain = rules.iter().find(|r| !r.may_prefix).unwrap();
        assert!(plain.anchored().is_none());
        assert!(plain.compiled.get().is_none() && plain.hir.get().is_none());
    }

    /// The engines' configurations: user rules that of the `regex` crate
    /// (its prefilters and strategies), searched built-in rules a prefilter
    /// only when their prefix literals make a fast one, never the reverse
    /// strategies.
    #[test]
    fn engines_are_configured_for_how_rules_are_searched() {
        let user = Rule::builder("acme-token", r"\bacme_[a-z0-9]{32}\b")
            .keyword("acme_")
            .build()
            .unwrap();
        let config = user.compiled().regex.meta().get_config();
        assert!(config.get_auto_prefilter() && config.get_hybrid());
        assert_eq!(config.get_nfa_size_limit(), Some(32 * 1024 * 1024));
        let mut with_prefilter = 0;
        for rule in crate::builtin::rules().iter().filter(|r| !r.prefixed()) {
            let config = rule.compiled().regex.meta().get_config();
            assert!(
                !config.get_auto_prefilter() && config.get_hybrid(),
                "{}",
                rule.id
            );
            assert_eq!(config.get_nfa_size_limit(), Some(32 * 1024 * 1024));
            if let Some(p) = config.get_prefilter() {
                assert!(p.is_fast(), "{}", rule.id);
                with_prefilter += 1;
            }
        }
        // Rules opening with one literal (`-----BEGIN`) or a few (Teddy) get one.
        assert!(with_prefilter >= 10, "{with_prefilter}");
    }

    /// Lazily compiled built-in rules give exactly the output of rules
    /// compiled at build, record by record and on the whole corpus at once.
    #[test]
    fn lazy_rules_redact_the_corpus_as_eager_ones() {
        let lazy = crate::Redactor::builder()
            .env_values(false)
            .build()
            .unwrap();
        let eager = crate::Redactor::builder()
            .env_values(false)
            .builtin_rules(false)
            .rules(RuleSet {
                rules: crate::builtin::rules_eager(),
            })
            .build()
            .unwrap();
        let mut records = corpus::secret_records(0x5EC2E7, 3);
        records.extend(corpus::clean_records(0xC1EA7, 600));
        records.extend(corpus::hard_clean_records());
        let mut all = String::new();
        let mut masked = 0;
        for rec in &records {
            let (l, e) = (lazy.redact(&rec.text), eager.redact(&rec.text));
            assert_eq!(l, e, "{}/{}", rec.family, rec.context);
            masked += usize::from(l != rec.text);
            all.push_str(&rec.text);
            all.push('\n');
        }
        assert!(masked > records.len() / 3, "only {masked} records masked");
        assert_eq!(lazy.redact(&all), eager.redact(&all));
    }
}
