//! Validators of the built-in rules: what makes a regex match a secret, and
//! what makes it a placeholder, a type name, code, a path or prose.

/// A built-in validator attached to a rule (not available to rule files: user
/// rules filter with `min_entropy` and allow patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// A vendor token with a fixed prefix: reject obvious fakes (`xxxx`, `your…here`).
    Token,
    /// A token without a distinctive prefix: also needs 2+ character classes and entropy.
    Mixed,
    /// A bare 40-character AWS secret near an AWS keyword: 3+ classes, high entropy.
    AwsSecret,
    /// A token assigned to a service's name alone (`DATADOG=v`): letters
    /// and digits, entropy 3, not a UUID, not words (`TwitterClient2`),
    /// and not a fake.
    VendorNamed,
    /// A token whose prefix is short and common (`s.`): the match also needs
    /// a digit and entropy 3.5 (`s.getElementsByTagNameNS` and other
    /// identifiers are not tokens).
    ShortPrefix,
    /// A bare 88-character base64 key: not a checksum/signature/integrity value.
    Azure88,
    /// `"auth": "base64"` in a Docker config: decodes to `user:secret` (or is long and random).
    DockerAuth,
    /// Generic assignment: the `name` group must look secret, the value must not be a placeholder.
    Generic,
    /// `name = value` / `"name": "value"` matched as a whole: split by hand, then as `Generic`.
    GenericKv,
    /// A typed declaration (`const API_TOKEN: &str = "v"`, `var tok string = "v"`):
    /// the name holds a secret word (also bare `key`, `tok`), the string literal is the value.
    Typed,
    /// A value whose name is implied by the rule (`-pSECRET`, `sig=`): only placeholder checks.
    Value,
    /// A value whose place says it is a password: a command line's password
    /// flag (`sshpass -p v`, `psexec … -p v`, `mysql -pv`), an SSM
    /// SecureString's value. [`Check::Value`]'s checks, and a lower-case
    /// word counts too, as it does after a password's name (`-p swordfish`).
    Command,
    /// The value ending a phrase that names a secret ([`Guard::Phrase`]): the
    /// `name` group holds the phrase from its secret word to the `:` or
    /// `is`; neither the word after the secret word nor the phrase's last
    /// word may say the value is about the secret (`Token endpoint: …`,
    /// `API key id: …`, `Token expires at: …`), and the value reads as
    /// random (two character classes, entropy 3 or, below 13 bytes, a
    /// little less: see `short_random`; no sentence's final `.`) and passes
    /// [`Check::Value`]'s checks.
    Phrase,
    /// The value a sentence hands over (`Your new API key is v`):
    /// [`Check::Phrase`]'s value checks, and unless the `name` group names
    /// a password, a value that does not read as words (`the secret is
    /// base64url-encoded`).
    Handover,
    /// The password of `scheme://user:PASS@host` (placeholders are left).
    UrlPassword,
    /// A long token used as the user of a URL (`https://TOKEN@github.com`).
    UrlToken,
    /// The credential of an `Authorization` header or a bare `Bearer X`.
    Bearer,
    /// A bare `Bearer X` outside a header: also needs 2+ classes.
    BareBearer,
    /// `Basic X` outside a header: X must decode to `user:password`.
    BasicValue,
    /// A `Cookie:` / `Set-Cookie:` value: masks session-like cookie values one by one.
    Cookie,
    /// A PEM private-key body: trims separators, needs real base64 content.
    Pem,
    /// A PEM private-key body written as string literals, one a line
    /// (`"MIIE…\n" +`): each line's base64 is masked, the quotes and
    /// operators kept; needs real base64 content.
    PemLines,
    /// A base64-encoded PEM block (`LS0tLS1CRUdJTi…`, as in Kubernetes secrets):
    /// masked when it decodes to a private key.
    Base64Pem,
    /// A base64-encoded JWT (`ZXlK…`): masked when it decodes to a JWT's
    /// header and payload (`eyJ….eyJ…`, base64url parts).
    Base64Jwt,
}

/// A cheap test at a keyword hit that must pass for the rule to run on the
/// hit's window (most keyword hits in logs are prose: `token refreshed`).
/// Guards only look inside the hit's line (or the next line), so streaming
/// and one-shot decisions agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Guard {
    /// The keyword's name is followed by an assignment operator (after
    /// quotes and spaces: see [`ASSIGN_OPS`]).
    Assign,
    /// The keyword's name is followed by `:` and `{` (a JSON object value).
    AssignObject,
    /// The keyword is the whole name, in double quotes, and `=`/`:` follows.
    QuotedWord,
    /// A typed declaration may follow: `name:` (not `::`), or `var|const name
    /// TYPE` (Go), with an `=` later on the line.
    Typed,
    /// [`Guard::Assign`], and the whole name may name a secret (its last
    /// word is not `count`, `id`, `name`, `type`, …: see `classify_name`).
    AssignName,
    /// The keyword's name is followed by `\"` (JSON inside a JSON string).
    Esc,
    /// The keyword's name is followed by `%22` (URL-encoded JSON).
    UrlEnc,
    /// The keyword's name is followed by `|` (a table cell).
    Pipe,
    /// The keyword's name is an XML tag: `<name>` or `<name attr…>`.
    Tag,
    /// The keyword ends a phrase (`API key: …`): a space before the name, `:`/`=` after.
    Spaced,
    /// A YAML block scalar: `name: |` or `name: >`.
    Block,
    /// The keyword is in a `-flag` / `--flag`, or the line is a Dockerfile
    /// `ENV`/`ARG` (or `setenv`, `setx`, `set -x`, a C `#define`).
    Flag,
    /// The hit's line or the next one says `value`.
    ValueNearby,
    /// An `@` follows on the same token (URL credentials).
    AtAfter,
    /// The hit is preceded by this many base64 characters.
    B64Before(usize),
    /// The line holds a run of at least this many token characters `[A-Za-z0-9+/_-]`.
    Run(usize),
    /// The line closes an XML element (`</`).
    Closing,
    /// The line has a JSON `"name"` / `"key"` / `"parameterkey"` field.
    JsonName,
    /// The name is followed by two spaces or a tab (a column layout).
    Column,
    /// The hit is `AC` followed by 32 hex digits (a Twilio account SID).
    TwilioSid,
    /// The value is on the next line: the hit (`=\`, `= <<`) ends its line,
    /// but for a heredoc's tag after `<<` (`= <<EOT`, `=<<-"EOF"`).
    ValueBelow,
    /// The line holds `X.YYYYYY.Z` with 23+ token characters before the first dot
    /// (the shape of a Discord bot token).
    DotSix,
    /// The line ends in a phrase's value: its last word, 8 bytes or more,
    /// after spaces, and before them `:` or the word `is` (`A temporary
    /// password is generated for root@localhost: v`, `Temporary password
    /// for bob is v`, `Token (will not be shown again): v`). A line guard.
    Phrase,
    /// A context rule's shape around the name: an env fallback (`process.env.X
    /// || 'v'`, `getenv("X") ?: "v"`), a call naming it (`setProperty("X", …)`),
    /// a secret-named setter given a literal (`setPassword("v")`), a C
    /// array (`char secret[] = "v"`), a shell default (`${X:-…}`) or an XML
    /// start tag ending its line.
    Context,
    /// The keyword's name is compared with a string literal: `==`, `===`,
    /// `!=` or `!==` (after closing quotes and spaces), spaces, and a quote
    /// (`if password == "v"`: the literal a program checks is the secret).
    Compare,
}

/// A cheap condition that every match of a rule meets inside its window
/// (built-in rules): a window that fails it cannot hold a match, so the regex
/// is not run there. Unlike a [`Guard`] it is tested on the window itself, so
/// it never changes what is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    /// One of these bytes (one to three) occurs in the window.
    Byte(&'static [u8]),
    /// A line of the window starts, after spaces and tabs, with this word
    /// (ASCII case-insensitive; the pattern is `(?m)^[\t ]*word…`).
    LineStart(&'static [u8]),
    /// A `.` right after one of these bytes (ASCII case-insensitive, given in
    /// lower case) and before at least this many ASCII letters or digits: the
    /// legacy Vault tokens `s.` / `b.` + 24.
    DotRun(&'static [u8], usize),
    /// This word occurs in the window, ASCII case-insensitive (given in lower
    /// case, opening with a letter): `"value"` of a terraform output object.
    Word(&'static [u8]),
    /// One of these bytes (one to three) followed, after spaces and tabs, by
    /// a quote (`"`, `'` or `` ` ``): the `("` of a string literal passed to
    /// a call (`[]byte("v")`, `Some("v")`). A log line's `(ok)` or a call
    /// without a literal (`f(x)`) fails it, where `Byte(b"(")` passed every
    /// line with a parenthesis (secret-dense logs: two regexes searched every
    /// line for nothing).
    ThenQuote(&'static [u8]),
}

/// Whether the window `win` meets `n`.
pub(crate) fn needs_ok(n: Needs, win: &[u8]) -> bool {
    match n {
        Needs::Byte(&[a]) => memchr::memchr(a, win).is_some(),
        Needs::Byte(&[a, b]) => memchr::memchr2(a, b, win).is_some(),
        Needs::Byte(&[a, b, c]) => memchr::memchr3(a, b, c, win).is_some(),
        // Any other length: no pre-check (the regex decides).
        Needs::Byte(_) => true,
        Needs::LineStart(word) => {
            let starts_with_word = |from: usize| {
                let rest = &win[from..];
                let t = rest
                    .iter()
                    .position(|b| !matches!(b, b' ' | b'\t'))
                    .unwrap_or(rest.len());
                let rest = &rest[t..];
                rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word)
            };
            starts_with_word(0) || memchr::memchr_iter(b'\n', win).any(|i| starts_with_word(i + 1))
        }
        Needs::Word(word) => match word.first() {
            Some(&w) => memchr::memchr2_iter(w, w.to_ascii_uppercase(), win).any(|i| {
                win.len() - i >= word.len() && win[i..i + word.len()].eq_ignore_ascii_case(word)
            }),
            None => true,
        },
        // Searched from the quotes, which logs hold fewer of than `(`: a
        // quote whose last byte before it, past spaces and tabs, is in `set`.
        Needs::ThenQuote(set) if (1..=3).contains(&set.len()) => {
            memchr::memchr3_iter(b'"', b'\'', b'`', win).any(|i| {
                win[..i]
                    .iter()
                    .rev()
                    .find(|&&b| !matches!(b, b' ' | b'\t'))
                    .is_some_and(|b| set.contains(b))
            })
        }
        // Any other length: no pre-check (the regex decides).
        Needs::ThenQuote(_) => true,
        Needs::DotRun(heads, run) => memchr::memchr_iter(b'.', win).any(|i| {
            i > 0
                && heads.contains(&win[i - 1].to_ascii_lowercase())
                && win.len() - i > run
                && win[i + 1..=i + run].iter().all(u8::is_ascii_alphanumeric)
        }),
    }
}

/// For [`Needs::Byte`] sets of one to three bytes: where the first byte of the
/// set at or after `from` is (`hay.len()` when there is none); `None` for other
/// sets, which [`needs_ok`] does not pre-check.
pub(crate) fn first_needed(set: &[u8], hay: &[u8], from: usize) -> Option<usize> {
    let rest = &hay[from..];
    let at = match *set {
        [a] => memchr::memchr(a, rest),
        [a, b] => memchr::memchr2(a, b, rest),
        [a, b, c] => memchr::memchr3(a, b, c, rest),
        _ => return None,
    };
    Some(at.map_or(hay.len(), |i| from + i))
}

/// Byte classes of names, looked up for every keyword hit: bit 0 a name
/// byte (`[A-Za-z0-9_.-]`), bit 1 a word byte (`[A-Za-z0-9_]`).
const NAME_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = 3;
        } else if c == b'.' || c == b'-' {
            t[b] = 1;
        }
        b += 1;
    }
    t
};

#[inline(always)]
fn is_name_byte(b: u8) -> bool {
    NAME_CLASS[b as usize] & 1 != 0
}

#[inline(always)]
fn is_word_byte(b: u8) -> bool {
    NAME_CLASS[b as usize] & 2 != 0
}

#[inline(always)]
fn name_start(hay: &[u8], hs: usize, ls: usize) -> usize {
    hay[ls..hs]
        .iter()
        .rposition(|&b| !is_name_byte(b))
        .map_or(ls, |k| ls + k + 1)
}

/// [`name_start`] along one text, remembered: hits come in order of start
/// and their windows' starts never go back, so each walk back reads only
/// the bytes since the last hit's. On a line of name bytes only
/// (`keykeykey…`, `passwordpassword…`) every hit walked back to its
/// window's start, up to 4 KiB: 98 % of the instructions, 0.8 MB/s. One per
/// text (positions are the text's).
#[derive(Default)]
pub(crate) struct NameStarts {
    /// `(l, hs, name_start(hay, hs, l))` of the last hit asked.
    last: Option<(usize, usize, usize)>,
}

impl NameStarts {
    /// `name_start(hay, hs, ls)`.
    pub(crate) fn of(&mut self, hay: &[u8], hs: usize, ls: usize) -> usize {
        // For `l <= ls <= hs`, `name_start(hay, hs, ls)` is
        // `max(ls, name_start(hay, hs, l))`; and with no break in
        // `[upto, hs)` the name starts where it did at `upto`.
        let (l, ns) = match self.last {
            Some((l, upto, ns)) if l <= ls && upto <= hs => (
                l,
                hay[upto..hs]
                    .iter()
                    .rposition(|&b| !is_name_byte(b))
                    .map_or(ns, |k| upto + k + 1),
            ),
            _ => (ls, name_start(hay, hs, ls)),
        };
        self.last = Some((l, hs, ns));
        ns.max(ls)
    }
}

/// The assignment operators after a name (its closing quotes and spaces),
/// longest first: the one table that decides what counts as an assignment
/// context, both for the keyword prefilter ([`Guard::Assign`],
/// [`Guard::AssignName`]) and for splitting a generic match into name and
/// value: `NAME = v`, `NAME: v`, Go's `:=`, Ruby/PHP's `=>`, PHP's `.=`,
/// Make's `?=` `::=` `:::=` `+=`, JS's `??=` / `||=` and fallbacks `X || 'v'`.
/// A rule that learns a new operator adds it here (a `:` alone must not be
/// part of `::`, which is a path such as `Token::Semi`).
pub(crate) const ASSIGN_OPS: &[&[u8]] = &[
    b":::=", b"::=", b"??=", b"||=", b":=", b"=>", b"?=", b".=", b"+=", b"||", b"=", b":",
];

/// The length of the assignment operator at `i` (before `end`), if any.
fn assign_op_at(hay: &[u8], i: usize, end: usize) -> Option<usize> {
    if i >= end {
        return None;
    }
    let rest = &hay[i..end];
    if !matches!(rest[0], b'=' | b':' | b'?' | b'.' | b'+' | b'|') {
        return None;
    }
    // The two usual operators, decided by the byte after them: `=` unless
    // `=>`; `:` unless `::`, `:=`, `::=`, `:::=` (and not after a `:`).
    match (rest[0], rest.get(1)) {
        (b'=', next) if next != Some(&b'>') => return Some(1),
        (b':', next) if !matches!(next, Some(b':' | b'=')) => {
            return (i == 0 || hay[i - 1] != b':').then_some(1);
        }
        _ => {}
    }
    let op = ASSIGN_OPS
        .iter()
        .find(|op| op[0] == rest[0] && rest.starts_with(op))?;
    if **op == b":"[..] && (rest.get(1) == Some(&b':') || (i > 0 && hay[i - 1] == b':')) {
        return None;
    }
    Some(op.len())
}

/// [`assign_op_at`] as a length, 0 when there is no operator.
pub(crate) fn assign_op_len(hay: &[u8], i: usize, end: usize) -> usize {
    assign_op_at(hay, i, end).unwrap_or(0)
}

/// An assignment operator (see [`ASSIGN_OPS`]) at `i`.
fn assign_at(hay: &[u8], i: usize, end: usize) -> bool {
    assign_op_at(hay, i, end).is_some()
}

/// Whether a value that the generic rules could take (at least 4 bytes:
/// shorter values fail every value check) starts at `v` on a line ending at
/// `le`: a quoted string with 4 bytes before its closing quote, or 4 bytes of
/// a bare value, or 4 bytes of a backtick string without whitespace (see the
/// generic rule's value). `[`, `{`, an empty string or the line end there
/// rule out the assignment (`"scopes":["a"]`, `key: {`, `token=""`), and so
/// does a bare literal that every value check rejects ([`NO_VALUE_WORDS`]:
/// `token=null`, `password=redacted`, a log's every line).
///
/// A string prefix (`b'…'`, `r"…"`, `br'…'`: Python, Rust; see
/// [`string_prefix_end`]) before a quote is skipped: the quoted string after
/// it is the value, and so is the string after a triple quote without a
/// prefix (`"""v"""`): up to seven bytes from `v` are read.
#[inline]
fn value_may_follow(hay: &[u8], v: usize, le: usize) -> bool {
    let v = match string_prefix_end(hay, v, le) {
        Some(p) => p,
        // A triple-quoted string (`"""v"""`, without a prefix): its value
        // after the third quote, read as far as after a prefix.
        None => match hay.get(v) {
            Some(&q @ (b'"' | b'\'')) if le >= v + 3 && hay[v + 1] == q && hay[v + 2] == q => v + 2,
            _ => v,
        },
    };
    match hay.get(v) {
        _ if v >= le => false,
        Some(b'`') => {
            le >= v + 5
                && hay[v + 1..v + 5]
                    .iter()
                    .all(|&b| b != b'`' && !b.is_ascii_whitespace())
        }
        Some(&q @ (b'"' | b'\'')) => {
            let mut i = v + 1;
            while i < (v + 5).min(le) {
                match hay[i] {
                    b'\r' | b'\n' => return false,
                    b'\\' if q == b'"' => i += 2,
                    b if b == q => return false,
                    _ => i += 1,
                }
            }
            i >= v + 5
        }
        // A string in a JSON-escaped text: a notebook cell's `api_key = \"v\"`.
        Some(b'\\') if hay.get(v + 1) == Some(&b'"') => {
            le >= v + 6 && hay[v + 2..v + 6].iter().all(|&b| !NOT_BARE[b as usize])
        }
        Some(_) => {
            le >= v + 4
                && hay[v..v + 4].iter().all(|&b| !NOT_BARE[b as usize])
                && !no_value_word(hay, v, le)
        }
        None => false,
    }
}

/// Bare literals that no generic rule takes for a value: too short for a
/// token, and words that are no password (see [`NOT_PASSWORDS`]).
const NO_VALUE_WORDS: &[&[u8]] = &[
    b"null",
    b"none",
    b"true",
    b"false",
    b"undefined",
    b"default",
    b"empty",
    b"redacted",
    b"hidden",
    b"masked",
    b"unset",
    b"missing",
];

/// Whether the whole bare value at `v` (the line or the value ends after
/// it) is one of [`NO_VALUE_WORDS`] (any case), or letters in brackets
/// (`[REDACTED]`, `[FILTERED]`: a placeholder to [`is_placeholder`]).
fn no_value_word(hay: &[u8], v: usize, le: usize) -> bool {
    if !no_value_first(hay[v]) {
        return false;
    }
    let ends = |i: usize| {
        i == le
            || matches!(
                hay[i],
                b' ' | b'\t'
                    | b'\r'
                    | b','
                    | b';'
                    | b'&'
                    | b')'
                    | b'}'
                    | b']'
                    | b'"'
                    | b'\''
                    | b'|'
            )
    };
    if hay[v] == b'[' {
        let n = hay[v + 1..le]
            .iter()
            .take(24)
            .take_while(|b| b.is_ascii_alphabetic() || **b == b'_')
            .count();
        let close = v + 1 + n;
        return n >= 3 && close < le && hay[close] == b']' && ends(close + 1);
    }
    let n = hay[v..le]
        .iter()
        .take(10)
        .take_while(|b| b.is_ascii_alphabetic())
        .count();
    ends(v + n)
        && (4..=9).contains(&n)
        && NO_VALUE_WORDS
            .iter()
            .any(|w| w.eq_ignore_ascii_case(&hay[v..v + n]))
}

/// Whether `b` may open what [`no_value_word`] looks for: the first
/// letters of [`NO_VALUE_WORDS`] (any case) and `[`.
#[inline(always)]
fn no_value_first(b: u8) -> bool {
    matches!(
        b | 0x20,
        b'n' | b't' | b'f' | b'u' | b'd' | b'e' | b'r' | b'h' | b'm' | b'{'
    )
}

/// Where the quote after a string prefix at `v` is: `b`, `r` or `u`, or
/// `br` or `rb` (either case: Python's bytes, raw and unicode strings,
/// Rust's byte strings; not f-strings, which are code), then `"` or `'`,
/// before `le`. The built-in values' regexes take the same prefixes.
#[inline]
fn string_prefix_end(hay: &[u8], v: usize, le: usize) -> Option<usize> {
    let at = |i: usize| if i < le { hay[i] | 0x20 } else { 0 };
    let quote = |i: usize| i < le && matches!(hay[i], b'"' | b'\'');
    match (at(v), at(v + 1)) {
        (b'b' | b'r' | b'u', _) if quote(v + 1) => Some(v + 1),
        (b'b', b'r') | (b'r', b'b') if quote(v + 2) => Some(v + 2),
        _ => None,
    }
}

/// A table of the bytes in `bytes` (`true` for each of them).
const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
}

/// The bytes a bare value of [`value_may_follow`] cannot hold: ASCII
/// whitespace, quotes, backticks and `,` `;` `&` `<` `>` `\\` `|`.
const NOT_BARE: [bool; 256] = byte_set(b" \t\n\r\x0c\"'`,;&<>\\|");

/// Literal words whose presence in a line decides a line-level guard:
/// `(guard, words)`. The keyword scanner finds them in the same pass as the
/// keywords, so the guard is a lookup among the line's hits instead of a scan
/// of the line ([`guard_ok_at`] scans, and gives the same answer).
pub(crate) const LINE_WORDS: &[(Guard, &[&str])] = &[
    (Guard::ValueNearby, &["value"]),
    (Guard::Closing, &["</"]),
    (
        Guard::JsonName,
        &["\"name\"", "\"key\"", "\"parameterkey\""],
    ),
];

/// Whether the guard looks only at the hit's line (and the next one), not at
/// the hit itself: hits on the same line share its result.
pub(crate) fn line_level(g: Guard) -> bool {
    matches!(
        g,
        Guard::ValueNearby
            | Guard::Closing
            | Guard::JsonName
            | Guard::DotSix
            | Guard::Run(_)
            | Guard::Phrase
    )
}

/// What the name-level guards look at around one keyword hit, computed once
/// per hit (every guard of the hit's rules then costs a comparison or two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HitCtx {
    hs: usize,
    he: usize,
    ls: usize,
    le: usize,
    /// The guards look at most this far (`le`, at most 256 bytes past the hit).
    end: usize,
    /// The name around the hit: `[ns, name_end)` of name bytes (`[A-Za-z0-9_.-]`).
    ns: usize,
    name_end: usize,
    /// The end of the word (`[A-Za-z0-9_]`) the hit ends in.
    word_end: usize,
    /// After the name and spaces.
    after: usize,
    /// After the name, closing quotes (`"'`\]`) and spaces.
    after_q: usize,
    /// Which context shapes are present (`F_*` bits): a guard whose shape is
    /// absent fails without being evaluated.
    feat: u16,
}

const F_ASSIGN_Q: u16 = 1;
const F_ASSIGN: u16 = 1 << 1;
const F_COLON_Q: u16 = 1 << 2;
const F_BACKSLASH: u16 = 1 << 3;
const F_PERCENT: u16 = 1 << 4;
const F_PIPE: u16 = 1 << 5;
const F_LT_BEFORE: u16 = 1 << 6;
const F_SPACE_BEFORE: u16 = 1 << 7;
const F_COLUMN: u16 = 1 << 8;
const F_TYPED: u16 = 1 << 9;
const F_FLAG: u16 = 1 << 10;
const F_CONTEXT: u16 = 1 << 11;
const F_ASSIGN_VALUE: u16 = 1 << 12;
const F_COMPARE: u16 = 1 << 13;
const F_ANY: u16 = u16::MAX;

/// The context shapes of which a guard needs at least one ([`F_ANY`]: none in particular).
pub(crate) fn guard_shapes(g: Guard) -> u16 {
    match g {
        Guard::Assign | Guard::QuotedWord => F_ASSIGN_Q,
        Guard::AssignName => F_ASSIGN_VALUE,
        Guard::Context => F_CONTEXT,
        Guard::AssignObject => F_COLON_Q,
        Guard::Block => F_COLON_Q | F_ASSIGN_Q,
        Guard::Esc => F_BACKSLASH,
        Guard::UrlEnc => F_PERCENT,
        Guard::Pipe => F_PIPE,
        Guard::Tag => F_LT_BEFORE,
        Guard::Spaced => F_SPACE_BEFORE,
        Guard::Column => F_COLUMN,
        Guard::Typed => F_TYPED,
        Guard::Flag => F_FLAG,
        Guard::Compare => F_COMPARE,
        _ => F_ANY,
    }
}

impl HitCtx {
    /// The context of the hit `[hs, he)` on the line `[ls, le)`.
    pub(crate) fn new(hay: &[u8], hs: usize, he: usize, ls: usize, le: usize) -> HitCtx {
        HitCtx::build(hay, hs, he, ls, le)
    }

    /// [`HitCtx::new`], inlined where the dismissal renews its context in
    /// place (a returned copy read back at once stalls the next loads).
    #[inline(always)]
    fn build(hay: &[u8], hs: usize, he: usize, ls: usize, le: usize) -> HitCtx {
        let (end, word_end, name_end) = name_ends(hay, hs, he, le);
        HitCtx::build_from(hay, (hs, he), (ls, le), (end, word_end, name_end))
    }

    /// [`HitCtx::build`] once [`name_ends`] are known.
    #[inline(always)]
    fn build_from(
        hay: &[u8],
        (hs, he): (usize, usize),
        (ls, le): (usize, usize),
        (end, word_end, name_end): (usize, usize, usize),
    ) -> HitCtx {
        let skip_spaces = |mut i: usize| {
            while i < end && matches!(hay[i], b' ' | b'\t') {
                i += 1;
            }
            i
        };
        let after = skip_spaces(name_end);
        let mut q = name_end;
        let mut backslash = false;
        while q < end && matches!(hay[q], b'"' | b'\'' | b'`' | b'\\' | b']') {
            backslash |= hay[q] == b'\\';
            q += 1;
        }
        let after_q = if q == name_end { after } else { skip_spaces(q) };
        let ns = name_start(hay, hs, ls);
        let at = |i: usize| if i < end { hay[i] } else { b'\n' };
        let mut feat = 0;
        if let Some(op) = assign_op_at(hay, after_q, end) {
            feat |= F_ASSIGN_Q;
            // `Guard::AssignName` but the name's verdict.
            let mut v = after_q + op;
            while v < le && matches!(hay[v], b' ' | b'\t') {
                v += 1;
            }
            if value_may_follow(hay, v, le) {
                feat |= F_ASSIGN_VALUE;
            }
        }
        // Usually the same place as `after_q` (no closing quote).
        // After a closing quote (JSON's `"name":`), `after` is at the quote:
        // only an operator's first byte there needs the table.
        let assign_after = if after == after_q {
            feat & F_ASSIGN_Q != 0
        } else {
            after < end
                && matches!(hay[after], b'=' | b':' | b'?' | b'.' | b'+' | b'|')
                && assign_at(hay, after, end)
        };
        if assign_after {
            feat |= F_ASSIGN;
        }
        feat |= match at(after) {
            b'\\' => F_BACKSLASH,
            b'%' => F_PERCENT,
            // `|`, or the first byte of a box-drawing bar (`│`, `┃`).
            b'|' | 0xE2 => F_PIPE,
            _ => 0,
        };
        match at(after_q) {
            b':' => feat |= F_COLON_Q,
            b'=' | b'!' if at(after_q + 1) == b'=' => feat |= F_COMPARE,
            _ => {}
        }
        let before = if ns > ls { hay[ns - 1] } else { b'\n' };
        match before {
            b'<' => feat |= F_LT_BEFORE | F_CONTEXT,
            // `Guard::Spaced` but its word list.
            b' ' | b'\t' if ns > ls + 1 && hay[ns - 2].is_ascii_alphanumeric() && assign_after => {
                feat |= F_SPACE_BEFORE
            }
            // A shell default `${NAME:-v}`.
            b'{' if ns >= ls + 2 && hay[ns - 2] == b'$' => feat |= F_CONTEXT,
            // A call's first argument `("NAME", …` (as `call_arg` reads it:
            // not a JSON value `:"key_…",`).
            q @ (b'"' | b'\'' | b'`') if at(name_end) == q => {
                let mut j = name_end + 1;
                while j < end && matches!(hay[j], b' ' | b'\t') {
                    j += 1;
                }
                if at(j) == b',' && paren_before(hay, ns, ls) {
                    feat |= F_CONTEXT;
                }
            }
            _ => {}
        }
        // An env fallback `NAME || 'v'` (see `fallback`). `fallback` skips
        // closing quotes, brackets and spaces after the name: without a `\`
        // among the quotes `after_q` skipped, and with none of those bytes at
        // `after_q`, it stops at `after_q` too. Else only where the bytes it
        // skips or its operators' first bytes follow the name (`or` cannot:
        // a letter would be part of the name).
        if feat & F_CONTEXT == 0 {
            let stops_at_after_q = !backslash
                && !matches!(
                    at(after_q),
                    b'"' | b'\'' | b'`' | b']' | b')' | b' ' | b'\t'
                );
            // A setter's literal or a C array's (see `literal_call_or_array`):
            // `(` or `[` right after the name, where `fallback` stops too.
            let fb = if stops_at_after_q {
                match at(after_q) {
                    b'|' | b'?' | b'o' => fallback_op_at(hay, after_q, end),
                    b'(' | b'[' => literal_call_or_array(hay, ns, name_end, end),
                    _ => false,
                }
            } else {
                matches!(
                    at(name_end),
                    b'"' | b'\'' | b'`' | b']' | b')' | b' ' | b'\t' | b'|' | b'?'
                ) && fallback(hay, name_end, end)
            };
            if fb {
                feat |= F_CONTEXT;
            }
        }
        if at(name_end) == b'\t' || (at(name_end) == b' ' && at(name_end + 1) == b' ') {
            feat |= F_COLUMN;
        }
        feat |= typed_feat(hay, hs, ls, ns, word_end, end);
        let env_arg = || env_or_arg_line(&hay[ls..le]);
        // `ENV`/`ARG`/`setenv`/`setx`/`set -x` after the line's leading spaces.
        if hay.get(ns) == Some(&b'-') || (ENV_LINE_FIRST[hay[ls] as usize] && env_arg()) {
            feat |= F_FLAG;
        }
        HitCtx {
            hs,
            he,
            ls,
            le,
            end,
            ns,
            name_end,
            word_end,
            after,
            after_q,
            feat,
        }
    }

    /// `HitCtx::new(hay, hs, he, ls, le)` for a hit that starts where this
    /// one does and ends at or after its end, inside the word this one ends
    /// in (`token` after `tok`, `secret_` after `secret`): every position it
    /// reads is the same, so only the end differs. `None` for other hits.
    pub(crate) fn for_longer_hit(
        &self,
        hay: &[u8],
        (hs, he): (usize, usize),
        (ls, le): (usize, usize),
    ) -> Option<HitCtx> {
        let same = hs == self.hs
            && he >= self.he
            && (ls, le) == (self.ls, self.le)
            && le.min(he + 256) == self.end
            && name_end_of_hit(hay, hs, he) <= self.word_end;
        same.then_some(HitCtx { he, ..*self })
    }

    /// Makes this the context of the hit `[hs, he)` on the line `(ls, le)`:
    /// [`HitCtx::for_longer_hit`] when it applies, else [`HitCtx::new`].
    /// (Reusing the name of an earlier hit for a hit inside it, as in
    /// `token_endpoint_auth`, was measured: it applies to too few hits of
    /// logs and JSON to pay for its test.)
    pub(crate) fn renew(&mut self, hay: &[u8], (hs, he): (usize, usize), (ls, le): (usize, usize)) {
        match self.for_longer_hit(hay, (hs, he), (ls, le)) {
            Some(c) => self.he = c.he,
            None => *self = HitCtx::build(hay, hs, he, ls, le),
        }
    }

    /// [`HitCtx::renew`] for a context that may be missing, and may be left
    /// missing: `None` when the hit has no context shape ([`bare_after_name`],
    /// [`Renewed::Bare`]), or when `memo` knows that the hit fails every name
    /// guard of its target ([`Renewed::Known`]; `memo` holds the memo, the
    /// line's facts and the hit's pattern). When the context is built
    /// ([`Renewed::Built`]), `key` is the hit's key if it has one, for the
    /// caller to remember the verdict by.
    #[inline(always)]
    pub(crate) fn renew_shaped(
        ctx: &mut Option<HitCtx>,
        hay: &[u8],
        (hs, he): (usize, usize),
        (ls, le): (usize, usize),
        memo: Option<(&mut VerdictMemo, &LineFacts, u32)>,
        key: &mut VerdictKey,
        names: &mut NameStarts,
    ) -> Renewed {
        if let Some(c) = ctx.as_mut() {
            if let Some(longer) = c.for_longer_hit(hay, (hs, he), (ls, le)) {
                c.he = longer.he;
                key.clear();
                return Renewed::Built;
            }
        }
        let ends = name_ends(hay, hs, he, le);
        if bare_after_name(hay, (hs, he), (ls, le), ends, names) {
            *ctx = None;
            return Renewed::Bare;
        }
        key.clear();
        if let Some((memo, facts, pattern)) = memo {
            if key.make(hay, (hs, he), (ls, le), ends.2, facts, pattern) && memo.knows(key) {
                *ctx = None;
                return Renewed::Known;
            }
        }
        // Built in place (a returned copy read back at once stalls the next loads).
        match ctx.as_mut() {
            Some(c) => *c = HitCtx::build_from(hay, (hs, he), (ls, le), ends),
            None => *ctx = Some(HitCtx::build_from(hay, (hs, he), (ls, le), ends)),
        }
        Renewed::Built
    }

    /// The context shapes present (see [`guard_shapes`]).
    #[inline]
    pub(crate) fn feat(&self) -> u16 {
        self.feat
    }

    /// Whether guard `g` may pass here (a cheap necessary condition of
    /// [`guard_ok_at`]).
    #[inline]
    pub(crate) fn may_pass(&self, g: Guard) -> bool {
        let shapes = guard_shapes(g);
        shapes == F_ANY || self.feat & shapes != 0
    }
}

/// Evaluates a guard for the hit `[hs, he)` whose line is `[ls, le)` and whose
/// line plus next line ends at `ne`.
#[cfg(test)]
pub(crate) fn guard_ok(
    g: Guard,
    hay: &[u8],
    hs: usize,
    he: usize,
    ls: usize,
    le: usize,
    ne: usize,
) -> bool {
    guard_ok_at(
        g,
        hay,
        &HitCtx::new(hay, hs, he, ls, le),
        ne,
        &mut NameMemo::default(),
    )
}

/// Remembers [`name_may_be_secret`] for recent names: logs and JSON repeat
/// the same field names on every line.
pub(crate) struct NameMemo {
    memo: TwoWay<bool>,
}

/// Names up to this long are remembered (by [`NameMemo`] and [`classify_name`]).
const NAME_MEMO_LEN: usize = 30;
const NAME_MEMO_SLOTS: usize = 512;

impl Default for NameMemo {
    fn default() -> Self {
        NameMemo {
            memo: TwoWay::new(NAME_MEMO_SLOTS, false),
        }
    }
}

impl NameMemo {
    /// [`name_may_be_secret`]`(name)`, remembered.
    pub(crate) fn may_be_secret(&mut self, name: &[u8]) -> bool {
        self.memo.get_or(name, name_may_be_secret)
    }

    /// `f` with this thread's memo: for the checks of matches, which the
    /// hits' memo does not reach (a log's `api_key_hash=sha256:…` runs the
    /// generic check on every line, ~1 350 instructions a name unremembered).
    fn with_thread<T>(f: impl FnOnce(&mut NameMemo) -> T) -> T {
        thread_local! {
            static MEMO: std::cell::RefCell<NameMemo> = std::cell::RefCell::new(NameMemo::default());
        }
        MEMO.with(|m| f(&mut m.borrow_mut()))
    }
}

/// A small cache of a pure function of short names: two slots per set,
/// chosen by a hash of the name, the one remembered last first. Two ways, not
/// one: with one slot per hash, `GITHUB_TOKEN` and `_authToken` shared a
/// slot and pushed each other out on every line of secret-dense text (each
/// miss ~5 500 instructions for the name's words and their classification:
/// one line in twelve of dense5 missed; dense5 644.5 M → 633.6 M, json5
/// 329.5 M → 330.3 M and kwlog5 187.4 M → 187.8 M, whose many names miss
/// anyway and pay the second probe). A hit in the second slot stays there:
/// moving it first cost another 0.6 M on json5 (330.9 M). Tried first and
/// dropped: remembering names up to 48 bytes instead of 30, on the guess
/// that the misses were long names (644.5 M → 645.0 M: they were not).
struct TwoWay<V: Copy> {
    /// `(length, bytes, value)`; sets of two, the newer first.
    slots: Vec<(u8, [u8; NAME_MEMO_LEN], V)>,
}

impl<V: Copy> TwoWay<V> {
    fn new(slots: usize, empty: V) -> TwoWay<V> {
        TwoWay {
            slots: vec![(0, [0; NAME_MEMO_LEN], empty); slots],
        }
    }

    /// `f(name)`, remembered when `name` is short enough.
    fn get_or(&mut self, name: &[u8], f: impl FnOnce(&[u8]) -> V) -> V {
        match self.get(name) {
            Ok(v) => v,
            Err(set) => {
                let v = f(name);
                self.put(set, name, v);
                v
            }
        }
    }

    /// The value remembered for `name`, or the set to [`TwoWay::put`] it
    /// in (`None`: the name is too long to remember).
    fn get(&self, name: &[u8]) -> Result<V, Option<usize>> {
        if name.is_empty() || name.len() > NAME_MEMO_LEN {
            return Err(None);
        }
        let mut h: u32 = 0x811c_9dc5;
        for &b in name {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        let set = (h as usize ^ (h as usize >> 16)) % (self.slots.len() / 2) * 2;
        for s in &self.slots[set..set + 2] {
            if usize::from(s.0) == name.len() && s.1[..name.len()] == *name {
                return Ok(s.2);
            }
        }
        Err(Some(set))
    }

    /// Remembers `v` for `name` (not remembered yet) in `set`: first in
    /// it, the set's first moving second (its second is forgotten).
    fn put(&mut self, set: Option<usize>, name: &[u8], v: V) {
        let Some(set) = set else {
            return;
        };
        self.slots[set + 1] = self.slots[set];
        let slot = &mut self.slots[set];
        slot.0 = name.len() as u8;
        slot.1[..name.len()].copy_from_slice(name);
        slot.2 = v;
    }
}

/// What [`HitCtx::renew_shaped`] found at a hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Renewed {
    /// No context shape: every name guard with a shape fails.
    Bare,
    /// The verdict memo knows that every name guard fails.
    Known,
    /// The context is built.
    Built,
}

/// The bytes a Block guard lets open a line before a YAML key (see
/// [`Guard::Block`]): spaces, tabs, `-` and quotes.
const BLOCK_LEAD: [bool; 256] = byte_set(b" \t-\"'");

/// What the name guards read from the start of a hit's line (`[ls, le)`,
/// shared by its hits): whether it is a Dockerfile `ENV`/`ARG` line
/// ([`Guard::Flag`], [`F_FLAG`]) and where its leading run of
/// [`BLOCK_LEAD`] bytes ends ([`Guard::Block`] asks that the run reach
/// the name). A [`VerdictKey`] carries them instead of the line's start.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LineFacts {
    env_arg: bool,
    lead_end: usize,
}

impl LineFacts {
    /// The facts of the line `[ls, le)`.
    pub(crate) fn of(hay: &[u8], ls: usize, le: usize) -> LineFacts {
        // The usual line (or long line's window) opens with neither a
        // `BLOCK_LEAD` byte nor the first letter of an `ENV`/`ARG`/`set…`
        // word: both facts are known from that byte.
        if ls < le && !ENV_LINE_FIRST[hay[ls] as usize] && !BLOCK_LEAD[hay[ls] as usize] {
            return LineFacts {
                env_arg: false,
                lead_end: ls,
            };
        }
        let line = &hay[ls..le];
        LineFacts {
            env_arg: env_or_arg_line(line),
            lead_end: ls
                + line
                    .iter()
                    .position(|&b| !BLOCK_LEAD[b as usize])
                    .unwrap_or(line.len()),
        }
    }
}

/// How many bytes before a hit's name a [`VerdictKey`] holds (after a
/// space or tab, where `var`/`const` may precede the name: more), and after it.
const KEY_BEFORE: usize = 2;
const KEY_BEFORE_SPACED: usize = 8;
const KEY_AFTER: usize = 10;
/// A key's header: its length, the pattern (4 bytes), the flags and the
/// offsets of the name's start, the hit and the name's end in the key.
const KEY_HEAD: usize = 10;
/// A memo slot: a key of at most this many bytes (longer names are not memoized).
const KEY_LEN: usize = 64;
const VERDICT_SLOTS: usize = 512;
/// Hits looked up before the memo's table is made (a short text with a
/// handful of hits pays nothing for it; in tests, the first hit makes it).
const VERDICT_WARMUP: u32 = if cfg!(test) { 1 } else { 64 };

/// The key bytes of the text around a name: ASCII letters and digits all
/// read as `a` (where the guards only ask whether a byte is a letter or a
/// digit), every other byte as itself.
const CANON: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphanumeric() { b'a' } else { c };
        b += 1;
    }
    t
};

/// The bytes skipped from a name's end to its first other byte: closing
/// quotes, `\`, brackets, spaces. Where that byte is `o` (`or `) or `%`
/// (`%22`), a guard reads the letters or digits after it as themselves.
const AFTER_NAME_SKIP: [bool; 256] = byte_set(b"\"'`\\]) \t");

/// The bytes of the assignment operators ([`ASSIGN_OPS`]) and blanks.
const OP_OR_BLANK: [bool; 256] = byte_set(b"=:?|>.+ \t");

/// The key of a hit's name-guard verdict (see [`VerdictMemo`]): the
/// pattern, the hit's place in its name, the line's facts, whether the
/// key's bytes reach the line's ends, whether a bare word that is no value
/// follows the name ([`no_value_word`]), and the bytes from [`KEY_BEFORE`]
/// before the name to [`KEY_AFTER`] after it: the name as it is, the bytes
/// around it through [`CANON`] (before the name as they are after a space
/// or tab, where `var`/`const` may precede it).
pub(crate) struct VerdictKey {
    buf: [u8; KEY_LEN],
    /// The key's bytes are `hay[lo..hi]`; `lo == 0 && hi == 0`: no key.
    lo: usize,
    hi: usize,
}

impl Default for VerdictKey {
    fn default() -> Self {
        VerdictKey {
            buf: [0; KEY_LEN],
            lo: 0,
            hi: 0,
        }
    }
}

impl VerdictKey {
    /// Makes this the key of the hit `[hs, he)` of pattern `pattern` on the
    /// line `[ls, le)` with `facts`, whose name ends at `name_end`; `false`
    /// (and no key) where the hit is not memoized: a keyword that does not
    /// end in a name byte (`pw=`), a name too long for a slot, or an `o` or
    /// `%` first after the name.
    #[inline]
    pub(crate) fn make(
        &mut self,
        hay: &[u8],
        (hs, he): (usize, usize),
        (ls, le): (usize, usize),
        name_end: usize,
        facts: &LineFacts,
        pattern: u32,
    ) -> bool {
        self.lo = 0;
        self.hi = 0;
        if name_end_of_hit(hay, hs, he) != he {
            return false;
        }
        let ns = name_start(hay, hs, ls);
        let spaced = ns > ls && matches!(hay[ns - 1], b' ' | b'\t');
        let lo = ns
            .saturating_sub(if spaced {
                KEY_BEFORE_SPACED
            } else {
                KEY_BEFORE
            })
            .max(ls);
        // `name_end <= le`; the key ends before `he + 256`, where the
        // guards' reach (`end`) could cut a line short: the name is short.
        let hi = (name_end + KEY_AFTER).min(le);
        let len = KEY_HEAD + (hi - lo);
        if len > KEY_LEN || he - hs > 255 {
            return false;
        }
        let mut g = name_end;
        while g < hi && AFTER_NAME_SKIP[hay[g] as usize] {
            g += 1;
        }
        if g < hi && matches!(hay[g], b'o' | b'%') {
            return false;
        }
        // `value_may_follow` reads a bare value's letters (`null` and
        // `[REDACTED]` are no values, `Hk3jL8p` is), which `CANON` folds
        // alike: whether a word of [`NO_VALUE_WORDS`] follows the name's
        // closing quotes, the operator and blanks is a flag of the key.
        let mut p = g;
        while p < hi && OP_OR_BLANK[hay[p] as usize] {
            p += 1;
        }
        let no_value = p < hi && no_value_first(hay[p]) && no_value_word(hay, p, le);
        let buf = &mut self.buf;
        let (a, b) = (ns - lo, name_end - lo);
        let n = hi - lo;
        // The text, raw: a fixed-size copy (a few vector moves, no `memcpy`
        // call) where the text holds the bytes, else the key's bytes alone.
        const ROOM: usize = KEY_LEN - KEY_HEAD;
        match hay.get(lo..lo + ROOM) {
            Some(text) => buf[KEY_HEAD..].copy_from_slice(text),
            None => buf[KEY_HEAD..len].copy_from_slice(&hay[lo..hi]),
        }
        // The rest of the last word compared and hashed is 0 (the bytes
        // after it are never compared: a key's length is in its first word).
        let tail = len.next_multiple_of(8);
        let mut last = [0u8; 8];
        last.copy_from_slice(&buf[tail - 8..tail]);
        let keep = 8 - (tail - len);
        let word = u64::from_le_bytes(last) & (u64::MAX >> (8 * (8 - keep)));
        buf[tail - 8..tail].copy_from_slice(&word.to_le_bytes());
        buf[0] = len as u8;
        buf[1..5].copy_from_slice(&pattern.to_le_bytes());
        buf[5] = u8::from(lo == ls)
            | u8::from(hi == le) << 1
            | u8::from(facts.env_arg) << 2
            | u8::from(facts.lead_end >= lo) << 3
            | u8::from(no_value) << 4;
        buf[6] = (ns - lo) as u8;
        buf[7] = (hs - ns) as u8;
        buf[8] = (he - hs) as u8;
        buf[9] = (name_end - ns) as u8;
        let key = &mut buf[KEY_HEAD..len];
        // Through `CANON` but the name (and after a space the bytes before it).
        if !spaced {
            for c in &mut key[..a] {
                *c = CANON[*c as usize];
            }
        }
        for c in &mut key[b..n] {
            *c = CANON[*c as usize];
        }
        self.lo = lo;
        self.hi = hi;
        true
    }

    /// Whether the key was made.
    #[inline]
    pub(crate) fn is_some(&self) -> bool {
        self.hi != 0
    }

    /// No key.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.lo = 0;
        self.hi = 0;
    }

    /// The key's bytes: `hay[lo..hi]`.
    #[inline]
    pub(crate) fn window(&self) -> (usize, usize) {
        (self.lo, self.hi)
    }

    /// How many words of 8 bytes the key fills (its length is in its first
    /// byte: keys of other lengths differ there).
    #[inline]
    fn words(&self) -> usize {
        usize::from(self.buf[0]).div_ceil(8)
    }

    /// Word `k` of a slot's bytes.
    #[inline(always)]
    fn word(buf: &[u8; KEY_LEN], k: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&buf[k * 8..k * 8 + 8]);
        u64::from_le_bytes(w)
    }

    #[inline]
    fn slot(&self) -> usize {
        let mut h: u64 = 0;
        for k in 0..self.words() {
            h = (h ^ Self::word(&self.buf, k))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29);
        }
        (h >> 32) as usize % VERDICT_SLOTS
    }
}

/// Remembers which hits fail every name guard of their target: JSON and
/// logs repeat the same field with the same shape (`"prompt_tokens":123`,
/// `key_id=key_…`). A hit whose [`VerdictKey`] is remembered fails them
/// without its context being built. A key is remembered only when every
/// byte that building the hit's context and evaluating its target's name
/// guards reads lies in the key's bytes ([`HitCtx::reads_within`]), so the
/// verdict is a function of the key: a hit with the same key reads the
/// same bytes (up to letters and digits where the guards ask only that)
/// at the same offsets and decides the same.
///
/// Measured (callgrind, `toolexec redact --threads 1`, 5 MB): JSON API
/// responses 329.6 -> 302.3 M instructions, the structured log 187.4 ->
/// 181.8 M (nine in ten JSON hits that get a context are told by the key:
/// ~145 k of 155 k; `guard_ok_at` ran 13 k times, not 356 k). Tried and
/// dropped on the way: 8 bytes before every name and 12 after (not 2,
/// or 8 after a space, and 10), with the whole 64-byte slot cleared,
/// hashed and compared: 314.6 M on JSON; words compared as 8-byte slices
/// (a `memcmp` call each, ~830 k calls) and bytes copied through zipped
/// iterators (not inlined): 15 M and 7 M more than word loads and indexed
/// copies. Free-form logs, sources and secret-dense text, whose hits
/// repeat less, take 0.5-1.8 % more (the keys of hits the memo does not
/// tell). Letting the memo rest after runs of 1024 lookups with few told
/// (16 k hits judged without a key) took dense text back to +0.4 % but
/// JSON to 308.8 M, the structured log to 183.9 M: not kept.
#[derive(Default)]
pub(crate) struct VerdictMemo {
    /// Direct-mapped by a hash of the key (empty until the warm-up is over).
    slots: Vec<[u8; KEY_LEN]>,
    looked: u32,
}

impl VerdictMemo {
    /// Whether the hit of `key` is known to fail every name guard.
    #[inline]
    pub(crate) fn knows(&mut self, key: &VerdictKey) -> bool {
        if self.slots.is_empty() {
            self.looked += 1;
            if self.looked < VERDICT_WARMUP {
                return false;
            }
            self.slots = vec![[0; KEY_LEN]; VERDICT_SLOTS];
        }
        let slot = &self.slots[key.slot()];
        (0..key.words()).all(|k| VerdictKey::word(slot, k) == VerdictKey::word(&key.buf, k))
    }

    /// Remembers that the hit of `key` fails every name guard.
    pub(crate) fn remember(&mut self, key: &VerdictKey) {
        if !self.slots.is_empty() {
            let s = key.slot();
            self.slots[s] = key.buf;
        }
    }
}

impl HitCtx {
    /// Whether building this context (from its hit, its line `[ls, le)`
    /// and `facts`) and evaluating the name guards `guards` read only
    /// bytes in `[lo, hi)` (and the line's facts), the bytes of a
    /// [`VerdictKey`] (`false` for guards that read the hit only). Reads
    /// that stop at the line's end count as inside when the key reaches it.
    /// (`Guard::Typed` also reads the byte at `le` when its word ends right
    /// before it, to tell `::`: the byte before is then a `:` with no `=`
    /// after it on the line, and the guard fails whatever that byte is.)
    /// The bounds are generous: each is the farthest place one of the
    /// functions involved may look, not where it looked.
    pub(crate) fn reads_within(
        &self,
        hay: &[u8],
        guards: &[Guard],
        (lo, hi): (usize, usize),
    ) -> bool {
        let HitCtx {
            hs,
            ls,
            le,
            end,
            ns,
            name_end,
            word_end,
            after,
            after_q,
            ..
        } = *self;
        // Back: `hay[ns - 1]`, `hay[ns - 2]`; `go_declared` (after a space:
        // the spaces, `const` and the byte before it) and `call_arg` (after
        // a quote: the spaces before it and a `(`).
        let spaces_before = |mut b: usize| {
            while b > ls && matches!(hay[b - 1], b' ' | b'\t') {
                b -= 1;
            }
            b
        };
        let mut back = ns.saturating_sub(2);
        if ns > ls {
            match hay[ns - 1] {
                b' ' | b'\t' => back = back.min(spaces_before(ns).saturating_sub(6)),
                b'"' | b'\'' | b'`' => back = back.min(spaces_before(ns - 1).saturating_sub(1)),
                _ => {}
            }
        }
        if back.max(ls) < lo {
            return false;
        }
        let skip = |mut i: usize, to: usize, set: &[u8]| {
            while i < to && set.contains(&hay[i]) {
                i += 1;
            }
            i
        };
        // Forward: the two bytes after the name (`F_COLUMN`, `Guard::Typed`'s
        // `::`), an operator or `or `/`%22`/`\"` after the spaces and after
        // the closing quotes, `fallback` past quotes and brackets, the `,`
        // of a call's first argument, the value's first five bytes (seven with a string prefix), the
        // byte after `:` and spaces (`Guard::AssignObject`, `Guard::Block`).
        let mut far = (name_end + 2).max(after + 4).max(after_q + 4);
        far = far.max(skip(name_end, end, b"\"'`]) \t") + 3);
        far = far.max(skip(name_end + 1, end, b" \t") + 1);
        far = far.max(skip(after_q + 1, le, b" \t\r") + 1);
        if let Some(op) = assign_op_at(hay, after_q, end) {
            // Five bytes of the value, after a string prefix of up to two
            // (or the two more quotes of a triple quote).
            far = far.max(skip(after_q + op, le, b" \t") + 7);
        }
        for &g in guards {
            match g {
                // `=` anywhere after a typed name (`Guard::Typed`, read to
                // the line's end); the rest of the line after `<name`
                // (`Guard::Context`).
                Guard::Typed => {
                    let i = word_end;
                    let colon = typed_colon(hay, i, end);
                    let go = i < end && matches!(hay[i], b' ' | b'\t') && go_declared(hay, hs, ls);
                    if colon || go {
                        far = far.max(le);
                    }
                }
                Guard::Context if ns > ls && hay[ns - 1] == b'<' => far = far.max(le),
                Guard::Context => far = far.max(literal_call_or_array_reach(hay, name_end, end)),
                // The operator's `=`s, the spaces and the quote after it.
                Guard::Compare => far = far.max(skip(after_q + 1, end, b"= \t") + 1),
                g if reads_hit_only(g) => return false,
                _ => {}
            }
        }
        far <= hi || hi == le
    }
}

/// Evaluates a guard for the hit of `c`, whose line plus next line ends at `ne`.
pub(crate) fn guard_ok_at(
    g: Guard,
    hay: &[u8],
    c: &HitCtx,
    ne: usize,
    memo: &mut NameMemo,
) -> bool {
    let HitCtx {
        hs,
        he,
        ls,
        le,
        end,
        ns,
        name_end,
        word_end: _,
        after,
        after_q,
        feat,
    } = *c;
    match g {
        Guard::Assign => assign_at(hay, after_q, end),
        Guard::Compare => {
            let at = |i: usize| if i < end { hay[i] } else { b'\n' };
            if !(matches!(at(after_q), b'=' | b'!') && at(after_q + 1) == b'=') {
                return false;
            }
            let mut j = after_q + 2;
            if at(j) == b'=' {
                j += 1;
            }
            while j < end && matches!(hay[j], b' ' | b'\t') {
                j += 1;
            }
            matches!(at(j), b'"' | b'\'')
        }
        Guard::AssignObject => {
            if !(after_q < end && hay[after_q] == b':') {
                return false;
            }
            let mut j = after_q + 1;
            while j < end && matches!(hay[j], b' ' | b'\t') {
                j += 1;
            }
            j < end && hay[j] == b'{'
        }
        Guard::QuotedWord => {
            ns == hs
                && name_end == he
                && ns > ls
                && hay[ns - 1] == b'"'
                && assign_at(hay, after_q, end)
        }
        Guard::Typed => {
            let mut i = name_end_of_hit(hay, hs, he);
            while i < end && (hay[i].is_ascii_alphanumeric() || hay[i] == b'_') {
                i += 1;
            }
            let colon = typed_colon(hay, i, end);
            // Go: `var NAME TYPE = v` / `const NAME TYPE = v`, the hit in NAME.
            let go = i < end && matches!(hay[i], b' ' | b'\t') && go_declared(hay, hs, ls);
            (colon || go) && memchr::memchr(b'=', &hay[i..le]).is_some()
        }
        // The operator and the value were read by `HitCtx::new`.
        // (A URL's `?key=` or `&key=`: the check asks for the URL.)
        Guard::AssignName => {
            feat & F_ASSIGN_VALUE != 0
                && !arn_part(hay, ls, ns)
                && (memo.may_be_secret(&hay[ns..name_end])
                    || (name_end == ns + 3
                        && ns > ls
                        && matches!(hay[ns - 1], b'?' | b'&')
                        && hay[ns..name_end].eq_ignore_ascii_case(b"key")))
        }
        Guard::Esc => {
            after + 1 < end
                && hay[after] == b'\\'
                && (hay[after + 1] == b'"' || hay[after + 1] == b'\\')
        }
        Guard::UrlEnc => {
            hay[after..end].len() >= 3 && hay[after..after + 3].eq_ignore_ascii_case(b"%22")
        }
        // A table cell `| name | value |`, not an alternation `a|Pass|b`.
        Guard::Pipe => {
            after < end
                && (hay[after] == b'|' || box_bar(&hay[after..end]))
                && (after > name_end || (ns > ls + 1 && matches!(hay[ns - 1], b' ' | b'\t')))
        }
        Guard::Tag => {
            ns > ls && hay[ns - 1] == b'<' && after < end && (hay[after] == b'>' || after > he)
        }
        Guard::Spaced => {
            // The phrase's last word is the secret word itself (`API key:`).
            let word = &hay[ns..name_end];
            let spaced_word = [
                &b"key"[..],
                b"token",
                b"secret",
                b"password",
                b"passphrase",
                b"pwd",
                b"pass",
                b"credential",
                b"credentials",
            ]
            .iter()
            .any(|w| w.eq_ignore_ascii_case(word));
            spaced_word
                && ns > ls + 1
                && matches!(hay[ns - 1], b' ' | b'\t')
                && hay[ns - 2].is_ascii_alphanumeric()
                && assign_at(hay, after, end)
                // A value may follow (`API key: ***`, `token=null` are none).
                && feat & F_ASSIGN_VALUE != 0
        }
        Guard::Block => {
            let i = after_q;
            // `const apiKey =` or `API_KEY = (` ending its line, the literal
            // on the next (Prettier, Black). The line ends within the bytes
            // a verdict's key holds, so the key decides the verdict.
            if i < le && hay[i] == b'=' && le <= name_end + KEY_AFTER {
                let mut j = i + 1;
                while j < le && matches!(hay[j], b' ' | b'\t' | b'(' | b'\r') {
                    j += 1;
                }
                return j >= le;
            }
            if !(i < le && hay[i] == b':') {
                return false;
            }
            // A YAML key opens its line (`  password:`, `- "token":`), unlike
            // `if pwd:` in Python.
            if !hay[ls..ns].iter().all(|&b| BLOCK_LEAD[b as usize]) {
                return false;
            }
            let mut j = i + 1;
            while j < le && matches!(hay[j], b' ' | b'\t' | b'\r') {
                j += 1;
            }
            j >= le || matches!(hay[j], b'|' | b'>')
        }
        Guard::Flag => {
            if hay.get(ns) == Some(&b'-') {
                return true;
            }
            env_or_arg_line(&hay[ls..le])
        }
        Guard::ValueNearby => memchr::memchr2_iter(b'v', b'V', &hay[ls..ne]).any(|i| {
            hay[ls + i..ne].len() >= 5 && hay[ls + i..ls + i + 5].eq_ignore_ascii_case(b"value")
        }),
        Guard::AtAfter | Guard::B64Before(_) | Guard::TwilioSid | Guard::ValueBelow => {
            hit_guard_ok(g, hay, (hs, he), (ls, le))
        }
        Guard::Closing => {
            let line = &hay[ls..le];
            memchr::memchr_iter(b'<', line).any(|i| line.get(i + 1) == Some(&b'/'))
        }
        Guard::JsonName => {
            let line = &hay[ls..le];
            memchr::memchr_iter(b'"', line).any(|i| {
                let rest = &line[i + 1..];
                [&b"name\""[..], b"key\"", b"parameterkey\""]
                    .iter()
                    .any(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w))
            })
        }
        Guard::Column => {
            let mut i = he;
            while i < le && is_name_byte(hay[i]) {
                i += 1;
            }
            (i < le && hay[i] == b'\t') || (i + 1 < le && hay[i] == b' ' && hay[i + 1] == b' ')
        }
        Guard::DotSix => dot_six(&hay[ls..le]),
        Guard::Phrase => phrase_end(&hay[ls..le]),
        Guard::Context => context_guard_ok(hay, hs, name_end_of_hit(hay, hs, he), ls, le),
        Guard::Run(n) => has_run(&hay[ls..le], n),
    }
}

/// A byte of [`Guard::Run`]'s token runs: `[A-Za-z0-9+/_-]`.
fn run_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-')
}

/// [`Guard::Run`]`(n)` on `piece`: it holds a run of at least `n` token bytes.
pub(crate) fn has_run(piece: &[u8], n: usize) -> bool {
    let mut run = 0;
    for &b in piece {
        if run_byte(b) {
            run += 1;
            if run >= n {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// The maximal runs of token bytes of `hay` at least `n` long, as `[s, e)`
/// in order: [`has_run`] of a piece `hay[ls..le]` holds exactly when one of
/// them overlaps it by `n` bytes or more.
pub(crate) fn long_runs(hay: &[u8], n: usize) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &b) in hay.iter().enumerate() {
        match (run_byte(b), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if i - s >= n {
                    runs.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start.filter(|&s| hay.len() - s >= n) {
        runs.push((s, hay.len()));
    }
    runs
}

/// Bytes at which, after a name and its spaces, a context shape may begin
/// (see [`bare_after_name`]): quotes and the bytes `fallback` skips (`\\` `]`
/// `)`), the first bytes of [`ASSIGN_OPS`], `%`, `?` (`??`, `?:`) and `!`
/// (`!=`, [`F_COMPARE`]). An
/// `o` may begin the fallback `or `, a `(` or `[` a setter's or a C array's
/// literal (both tested in place).
const SHAPE_AFTER: [u8; 256] = {
    let mut t = [AFTER_NONE; 256];
    // 0xE2 opens a box-drawing bar (`Guard::Pipe`).
    let shape = b"\"'`\\])=:?.+|%!\xE2";
    let mut i = 0;
    while i < shape.len() {
        t[shape[i] as usize] = AFTER_SHAPE;
        i += 1;
    }
    t[b'(' as usize] = AFTER_CALL;
    t[b'[' as usize] = AFTER_CALL;
    t[b'o' as usize] = AFTER_OR;
    t
};
/// [`SHAPE_AFTER`]'s kinds: no shape opens at the byte; one may; `(` or `[`
/// (a setter's literal or a C array's, see [`literal_call_or_array`]); `o`
/// (the fallback `or `).
const AFTER_NONE: u8 = 0;
const AFTER_SHAPE: u8 = 1;
const AFTER_CALL: u8 = 2;
const AFTER_OR: u8 = 3;

/// [`bare_after_name`] for the hit `[hs, he)` on the line `[ls, le)`.
#[cfg(test)]
pub(crate) fn no_shape(hay: &[u8], hs: usize, he: usize, ls: usize, le: usize) -> bool {
    bare_after_name(
        hay,
        (hs, he),
        (ls, le),
        name_ends(hay, hs, he, le),
        &mut NameStarts::default(),
    )
}

/// How far the name guards of the hit `[hs, he)` on a line ending at `le`
/// look (`le`, at most 256 bytes past the hit), where the word the hit ends
/// in ends (`[A-Za-z0-9_]`, where `Guard::Typed` looks) and where its name
/// ends (`[A-Za-z0-9_.-]`). A keyword that carries its operator or quote
/// (`pw=`, `pass\"`): the name ends before those bytes.
#[inline(always)]
fn name_ends(hay: &[u8], hs: usize, he: usize, le: usize) -> (usize, usize, usize) {
    let end = le.min(he + 256);
    let i = name_end_of_hit(hay, hs, he);
    let word_end = hay[i..end]
        .iter()
        .position(|&b| !is_word_byte(b))
        .map_or(end, |k| i + k);
    let name_end = hay[word_end..end]
        .iter()
        .position(|&b| !is_name_byte(b))
        .map_or(end, |k| word_end + k);
    (end, word_end, name_end)
}

/// Whether the hit `[hs, he)` on the line `[ls, le)`, whose [`name_ends`]
/// are `(end, word_end, name_end)`, has no context shape
/// at all: `HitCtx::new(hay, hs, he, ls, le).feat()` is 0 whenever this is
/// true (it may be false for a hit without shapes). It reads what the
/// shapes need first, the name and the byte after it and its spaces, and
/// stops at the first byte that may begin one, so that the usual hit in
/// prose or a log (`auth.keys rotated`, `prod/db/password version`) is
/// judged without building its context:
///
/// - after the name and its spaces (`after`): no quote, no operator, no
///   `\` `%` `|` `]` `)` `?` `!`, no `or ` (assignments, comparisons,
///   escapes, cells, fallbacks, [`F_COLON_Q`]); no tab and no two spaces right after the
///   name ([`F_COLUMN`]); or a quote right after the name closing a quoted
///   value, followed by spaces and `,` or `}` (JSON values `"key_0571…",`
///   repeat no name the verdict memo could remember), unless a `(` and
///   spaces come before its opening quote and a `,` after it (a call's
///   first argument, [`F_CONTEXT`]);
/// - the word of the hit ends the name or is followed by `.`/`-`, and a
///   space after it is no Go declaration ([`F_TYPED`]);
/// - no `<` or `${` before the name ([`F_LT_BEFORE`], [`F_CONTEXT`]; a
///   quote before it matters only with one after it, and a space before it
///   only with an operator after it);
/// - the name does not start with `-` and the line is no `ENV`/`ARG` line
///   ([`F_FLAG`]).
#[inline(always)]
fn bare_after_name(
    hay: &[u8],
    (hs, _he): (usize, usize),
    (ls, le): (usize, usize),
    (end, word_end, name_end): (usize, usize, usize),
    names: &mut NameStarts,
) -> bool {
    let at = |i: usize| if i < end { hay[i] } else { b'\n' };
    let c0 = at(name_end);
    let mut after = name_end;
    match c0 {
        b'\t' => return false,
        b' ' => {
            if at(name_end + 1) == b' ' {
                return false;
            }
            after += 1;
            while matches!(at(after), b' ' | b'\t') {
                after += 1;
            }
        }
        _ => {}
    }
    let c = at(after);
    // A quoted value that ends with the name (`:"key_0571…",`, `"tok"}`):
    // after its closing quote only a `,` or `}` — no operator, `:`,
    // fallback or escape. With a `,`, `comma_after` holds the quote (a
    // call's first argument is told below).
    let mut comma_after = None;
    match SHAPE_AFTER[c as usize] {
        AFTER_NONE => {}
        // A setter's literal or a C array's ([`F_CONTEXT`]).
        AFTER_CALL if literal_call_or_array_with(hay, || names.of(hay, hs, ls), name_end, end) => {
            return false
        }
        kind if kind == AFTER_SHAPE || hay[after..end].starts_with(b"or ") => {
            if !(matches!(c, b'"' | b'\'' | b'`') && after == name_end) {
                return false;
            }
            let mut j = name_end + 1;
            while matches!(at(j), b' ' | b'\t') {
                j += 1;
            }
            match at(j) {
                b',' => comma_after = Some(c),
                b'}' => {}
                _ => return false,
            }
        }
        _ => {}
    }
    let ns = names.of(hay, hs, ls);
    // `("NAME", …`: a call's first argument ([`F_CONTEXT`]).
    if comma_after.is_some_and(|q| ns > ls && hay[ns - 1] == q && paren_before(hay, ns, ls)) {
        return false;
    }
    if ns > ls {
        match hay[ns - 1] {
            b'<' => return false,
            b'{' if ns >= ls + 2 && hay[ns - 2] == b'$' => return false,
            // `go_declared` holds only after a space (see `typed_feat`).
            b' ' | b'\t' if word_end == name_end && c0 == b' ' && go_declared(hay, hs, ls) => {
                return false
            }
            _ => {}
        }
    }
    if hay.get(ns) == Some(&b'-') {
        return false;
    }
    // `ENV`/`ARG`/`setenv`/`setx`/`set -x` after the line's leading spaces.
    if !ENV_LINE_FIRST[hay[ls] as usize] {
        return true;
    }
    !env_or_arg_line(&hay[ls..le])
}

/// The bytes an [`env_or_arg_line`] may open with: leading blanks, the
/// words' first letters, `#` (`#define`) and a shell prompt's `$`, `%`, `>`.
const ENV_LINE_FIRST: [bool; 256] = byte_set(b" \tEAs#$%>");

/// Whether `line` is a Dockerfile `ENV` or `ARG` instruction, sets a
/// variable by a space-separated command (csh `setenv`, Windows `setx`,
/// fish `set -x` / `set -gx` / `set --export`) or defines a C macro
/// (`#define`, `# define`): after its leading spaces, the word and a space
/// or tab (`set` and a flag). A shell prompt (`$ `, `% `, `> `) may come
/// before the command, as in a transcript or a README.
fn env_or_arg_line(line: &[u8]) -> bool {
    let blanks = |t: &[u8]| t.iter().take_while(|b| matches!(b, b' ' | b'\t')).count();
    let mut t = &line[blanks(line)..];
    if t.len() > 1 && matches!(t[0], b'$' | b'%' | b'>') && matches!(t[1], b' ' | b'\t') {
        t = &t[1..];
        t = &t[blanks(t)..];
    }
    let word =
        |w: &[u8]| t.len() > w.len() && t.starts_with(w) && matches!(t[w.len()], b' ' | b'\t');
    if let Some(d) = t.strip_prefix(b"#") {
        // A C macro: `#define NAME "v"`, `# define NAME "v"`.
        let k = d
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t'))
            .unwrap_or(d.len());
        let d = &d[k..];
        return d.len() > 6 && d.starts_with(b"define") && matches!(d[6], b' ' | b'\t');
    }
    word(b"ENV") || word(b"ARG") || word(b"setenv") || word(b"setx") || t.starts_with(b"set -")
}

/// [`Guard::DotSix`] on a line: 23 token bytes (`[A-Za-z0-9_-]`), a dot, 6
/// token bytes and a dot (the two first parts of a Discord bot token).
///
/// The first dot is at 23 or later and the second 7 bytes after it: the
/// dots are looked for in `[23, len - 7)` only. (Looking for two dots 7
/// bytes apart eight places at a time, by two word loads and a byte test,
/// was measured: ~600 instructions a JSON line against ~220 for `memchr`,
/// whose lines of 150+ bytes hold few dots.)
pub(crate) fn dot_six(line: &[u8]) -> bool {
    if line.len() < 31 {
        return false;
    }
    let from = &line[23..line.len() - 7];
    memchr::memchr_iter(b'.', from).any(|k| dot_six_at(line, k + 23))
}

/// Whether the dot at `i` (23 or more, more than 7 before the end of
/// `hay`) opens [`dot_six`]'s pattern: 23 token bytes before it, 6 after it,
/// then a dot.
#[inline(always)]
fn dot_six_at(hay: &[u8], i: usize) -> bool {
    let tok = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    hay[i + 7] == b'.'
        && hay[i + 1..i + 7].iter().all(|&b| tok(b))
        && hay[i - 23..i].iter().all(|&b| tok(b))
}

/// Every dot of `hay` that opens [`dot_six`]'s pattern, in order: `dot_six`
/// of a piece `hay[ls..le]` holds exactly when one of them lies in
/// `[ls + 23, le - 7)` (the pattern only reads bytes inside the piece).
pub(crate) fn dot_six_dots(hay: &[u8]) -> Vec<usize> {
    if hay.len() < 31 {
        return Vec::new();
    }
    memchr::memchr_iter(b'.', &hay[23..hay.len() - 7])
        .map(|k| k + 23)
        .filter(|&i| dot_six_at(hay, i))
        .collect()
}

/// [`F_TYPED`] for the hit at `hs` whose name starts at `ns` and whose word
/// ends at `word_end` (reading before `end`): a `:` that is not `::` after
/// the word (or `?:`, a TypeScript optional property), or a space after it
/// in a Go declaration. `go_declared` walks
/// back over word bytes from `hs` to spaces: it can only hold when the byte
/// before the name is a space (a `.` or `-` inside the name stops it first).
#[inline(always)]
fn typed_feat(hay: &[u8], hs: usize, ls: usize, ns: usize, word_end: usize, end: usize) -> u16 {
    let at = |i: usize| if i < end { hay[i] } else { b'\n' };
    match at(word_end) {
        b':' if at(word_end + 1) != b':' => F_TYPED,
        b'?' if at(word_end + 1) == b':' && at(word_end + 2) != b':' => F_TYPED,
        b' ' | b'\t'
            if ns > ls && matches!(hay[ns - 1], b' ' | b'\t') && go_declared(hay, hs, ls) =>
        {
            F_TYPED
        }
        _ => 0,
    }
}

/// Whether guard `g` reads only the hit and its line's ends, not the
/// name around it ([`hit_guard_ok`] then judges it without a [`HitCtx`]).
pub(crate) fn reads_hit_only(g: Guard) -> bool {
    matches!(
        g,
        Guard::AtAfter | Guard::B64Before(_) | Guard::TwilioSid | Guard::ValueBelow
    )
}

/// [`guard_ok_at`] for a guard of [`reads_hit_only`] at the hit `[hs, he)`
/// on the line `[ls, le)`.
pub(crate) fn hit_guard_ok(
    g: Guard,
    hay: &[u8],
    (hs, he): (usize, usize),
    (ls, le): (usize, usize),
) -> bool {
    match g {
        Guard::AtAfter => hay[he..le]
            .iter()
            .take(512)
            .take_while(|&&b| !matches!(b, b' ' | b'\t' | b'"' | b'\'' | b'<' | b'>'))
            .any(|&b| b == b'@'),
        Guard::B64Before(n) => {
            hs >= ls + n
                && hay[hs - n..hs]
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        }
        Guard::TwilioSid => {
            hay.get(hs..hs + 2) == Some(b"AC".as_slice())
                && hay
                    .get(hs + 2..hs + 34)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        }
        Guard::ValueBelow => {
            let mut i = he;
            if hay[hs..he].ends_with(b"<<") {
                if matches!(hay.get(i), Some(b'-' | b'~')) {
                    i += 1;
                }
                while i < le && matches!(hay[i], b' ' | b'\t' | b'"' | b'\'') {
                    i += 1;
                }
                let tag = i;
                while i < le && (hay[i].is_ascii_alphanumeric() || hay[i] == b'_') {
                    i += 1;
                }
                if i == tag {
                    return false;
                }
            }
            hay[i.min(le)..le]
                .iter()
                .all(|&b| matches!(b, b' ' | b'\t' | b'\r' | b'"' | b'\''))
        }
        _ => unreachable!("not a guard of reads_hit_only"),
    }
}

/// Whether a type annotation follows a name's word ending at `i` (before
/// `end`): a `:` that is not `::` (`key: &str`), or `?:` that is not `?::`
/// (a TypeScript optional property, `apiKey?: string = "v"`).
fn typed_colon(hay: &[u8], i: usize, end: usize) -> bool {
    let at = |k: usize| if k < end { hay[k] } else { b'\n' };
    match at(i) {
        b':' => hay.get(i + 1) != Some(&b':'),
        b'?' => at(i + 1) == b':' && hay.get(i + 2) != Some(&b':'),
        _ => false,
    }
}

/// Go: `var NAME TYPE = v` / `const NAME TYPE = v`, the hit at `hs` in NAME
/// (the word around it follows `var` or `const` and spaces on the line from
/// `ls`), or a line of a `var (` / `const (` block: the word is the first
/// on an indented line (`\tapiSecret string = "v"`; the rule's pattern then
/// asks for a type and a literal after it).
fn go_declared(hay: &[u8], hs: usize, ls: usize) -> bool {
    let mut s = hs;
    while s > ls && (hay[s - 1].is_ascii_alphanumeric() || hay[s - 1] == b'_') {
        s -= 1;
    }
    let mut t = s;
    while t > ls && matches!(hay[t - 1], b' ' | b'\t') {
        t -= 1;
    }
    t < s
        && (t == ls
            || [&b"var"[..], b"const"].iter().any(|w| {
                t >= ls + w.len()
                    && &hay[t - w.len()..t] == *w
                    && (t == ls + w.len() || !is_name_byte(hay[t - w.len() - 1]))
            }))
}

/// A keyword that carries its operator or quote (`pw=`, `pass\"`): name
/// guards look from the end of the name, before those bytes.
pub(crate) fn name_end_of_hit(hay: &[u8], hs: usize, he: usize) -> usize {
    let mut e = he;
    while e > hs + 1 && !is_name_byte(hay[e - 1]) {
        e -= 1;
    }
    e
}

/// [`Guard::Context`] for the hit `[hs, he)` on the line `[ls, le)`: one
/// pass decides for the four context rules (env fallbacks, setter calls,
/// shell defaults, XML values on the next line), so that a keyword hit costs
/// one evaluation, not four; the byte before the name picks the shape.
fn context_guard_ok(hay: &[u8], hs: usize, he: usize, ls: usize, le: usize) -> bool {
    let end = le.min(he + 256);
    let ns = name_start(hay, hs, ls);
    let mut i = he;
    while i < end && is_name_byte(hay[i]) {
        i += 1;
    }
    if literal_call_or_array(hay, ns, i, end) {
        return true;
    }
    let before = if ns > ls { hay[ns - 1] } else { b'\n' };
    match before {
        // `<password>` + line break.
        b'<' => {
            if i >= le || !matches!(hay[i], b'>' | b' ' | b'\t') {
                return false;
            }
            let Some(k) = memchr::memchr(b'>', &hay[i..le]) else {
                return false;
            };
            let close = i + k;
            hay[close - 1] != b'/' && hay[close + 1..le].iter().all(u8::is_ascii_whitespace)
        }
        // `${NAME:-default}`, `${NAME:=default}`, `${NAME-default}`, `${name:default}`.
        b'{' if ns >= ls + 2 && hay[ns - 2] == b'$' => {
            let mut w = he;
            while w < end && (hay[w].is_ascii_alphanumeric() || hay[w] == b'_') {
                w += 1;
            }
            let r = &hay[w..end];
            // Spring's `${db.password:v}` too.
            r.starts_with(b":") || r.starts_with(b"-") || r.starts_with(b"=")
        }
        q @ (b'"' | b'\'' | b'`') => call_arg(hay, ns, i, ls, end, q) || fallback(hay, i, end),
        _ => fallback(hay, i, end),
    }
}

/// `("NAME", …`: the quoted name `[ns, i)` (quote `q`) is a call's first argument.
fn call_arg(hay: &[u8], ns: usize, i: usize, ls: usize, end: usize, q: u8) -> bool {
    if !(i < end && hay[i] == q) {
        return false;
    }
    let mut j = i + 1;
    while j < end && matches!(hay[j], b' ' | b'\t') {
        j += 1;
    }
    j < end && hay[j] == b',' && paren_before(hay, ns, ls)
}

/// Whether a `(` and spaces come before the opening quote at `ns - 1` of a
/// quoted name on the line from `ls` (a call's first argument, see [`call_arg`]).
fn paren_before(hay: &[u8], ns: usize, ls: usize) -> bool {
    let mut k = ns - 1;
    while k > ls && matches!(hay[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    k > ls && hay[k - 1] == b'('
}

/// Whether `rest` opens with a box-drawing vertical bar (`│` or `┃`, the
/// column rule of the tables CLIs draw: `│ DB_PASSWORD │ v │`).
fn box_bar(rest: &[u8]) -> bool {
    rest.starts_with("│".as_bytes()) || rest.starts_with("┃".as_bytes())
}

/// `NAME || 'v'`, `getenv("NAME") ?: 'v'`, `get("NAME") or "v"`: after the
/// name at `i`, closing quotes, brackets and spaces, a fallback operator;
/// or Ruby's fallback block after a call, `ENV.fetch("NAME") { "v" }`.
fn fallback(hay: &[u8], mut i: usize, end: usize) -> bool {
    let from = i;
    while i < end && matches!(hay[i], b'"' | b'\'' | b'`' | b']' | b')' | b' ' | b'\t') {
        i += 1;
    }
    fallback_op_at(hay, i, end) || (i < end && hay[i] == b'{' && quoted_call_closed(&hay[from..i]))
}

/// Whether the bytes `skipped` between a name and a `{` close a call on a
/// quoted argument: a quote, then `)` among spaces (`"API_KEY") {`).
fn quoted_call_closed(skipped: &[u8]) -> bool {
    let mut rest = skipped.iter().filter(|&&b| b != b' ' && b != b'\t');
    matches!(rest.next(), Some(b'"' | b'\'' | b'`'))
        && rest.next() == Some(&b')')
        && rest.next().is_none()
}

/// A fallback operator (`||`, `??`, `?:`, `or `) at `i` (before `end`).
#[inline]
fn fallback_op_at(hay: &[u8], i: usize, end: usize) -> bool {
    let r = &hay[i.min(end)..end];
    r.starts_with(b"||") || r.starts_with(b"??") || r.starts_with(b"?:") || r.starts_with(b"or ")
}

/// A literal handed to a secret-named setter or stored in a C array: the
/// name `[ns, ne)` (its bytes end at `ne`, reads stop at `end`) is
///
/// - a setter, `set`/`with` opening its last `.`-separated segment before
///   `_` or a capital (`client.setPassword`, `set_api_key`, `WithToken`,
///   not `settingsToken`), or a builder's method named by the secret
///   ([`builder_method`]: `.password`, `.bearer_auth`), called with a
///   string literal: `("`, `('`, `` (` `` after spaces;
/// - or a C array, `[`, digits, `]`, then `=` (not `==`) and a string
///   literal (`char secret[] = "v"`, `API_TOKEN[33] = "v"`).
///
/// Reads at most up to [`literal_call_or_array_reach`].
pub(crate) fn literal_call_or_array(hay: &[u8], ns: usize, ne: usize, end: usize) -> bool {
    literal_call_or_array_with(hay, || ns, ne, end)
}

/// [`literal_call_or_array`] where the name's start is found only when the
/// bytes after it (a literal after `(`, `[N] = ` and a literal) ask: most
/// calls and subscripts in code (`token(x)`, `keys[i]`) fail there first.
#[inline]
pub(crate) fn literal_call_or_array_with(
    hay: &[u8],
    ns: impl FnOnce() -> usize,
    ne: usize,
    end: usize,
) -> bool {
    let at = |i: usize| if i < end { hay[i] } else { b'\n' };
    let spaces = |mut i: usize| {
        while matches!(at(i), b' ' | b'\t') {
            i += 1;
        }
        i
    };
    let quote = |i: usize| matches!(at(i), b'"' | b'\'' | b'`');
    match at(ne) {
        b'(' => {
            if !quote(spaces(ne + 1)) {
                return false;
            }
            let seg = last_segment(hay, ns(), ne);
            let name = &hay[seg..ne];
            builder_method(hay, seg, ne)
                || [&b"set"[..], b"Set", b"SET", b"with", b"With"]
                    .iter()
                    .any(|p| {
                        name.len() > p.len()
                            && name.starts_with(p)
                            && (name[p.len()] == b'_' || name[p.len()].is_ascii_uppercase())
                    })
        }
        b'[' => {
            let mut i = ne + 1;
            while at(i).is_ascii_digit() {
                i += 1;
            }
            if at(i) != b']' {
                return false;
            }
            let eq = spaces(i + 1);
            at(eq) == b'=' && at(eq + 1) != b'=' && quote(spaces(eq + 1))
        }
        _ => false,
    }
}

/// Whether the call of the name `[ns, ne)` (a `(` at `ne`) is a setter's
/// (see [`literal_call_or_array`]) whose only argument is the string literal
/// `[vs, ve)` (inside its quotes). A builder's method named by the secret
/// word ([`builder_method`]) also names prompts and labels
/// (`reader.password("  Again: ")`): its literal holds no blank and does
/// not end in `:`.
fn setter_literal(hay: &[u8], ns: usize, ne: usize, (vs, ve): (usize, usize)) -> bool {
    let mut i = ve + 1;
    while i < hay.len() && matches!(hay[i], b' ' | b'\t') {
        i += 1;
    }
    if hay.get(i) != Some(&b')') || !literal_call_or_array(hay, ns, ne, hay.len()) {
        return false;
    }
    let v = &hay[vs..ve];
    !builder_method(hay, last_segment(hay, ns, ne), ne)
        || !(v.iter().any(u8::is_ascii_whitespace) || v.ends_with(b":"))
}

/// Where the last `.`-separated segment of the name `[ns, ne)` starts (a
/// method's name in `client.setPassword`).
fn last_segment(hay: &[u8], ns: usize, ne: usize) -> usize {
    hay[ns..ne]
        .iter()
        .rposition(|&b| b == b'.')
        .map_or(ns, |k| ns + k + 1)
}

/// Whether `hay[seg..ne]` is a method of a builder or client named by the
/// secret itself, after a `.` (`.password("v")`, `.apiKey("v")`, reqwest's
/// `.bearer_auth("v")`, `asana.Client.access_token('v')`): the name, without
/// `_` and in lower case, is one of [`BUILDER_SECRETS`]. Not verbs
/// (`t.pass("tests/*.rs")`, `getpass.getpass(…)`) nor other words around a
/// secret (`.passwordField`).
fn builder_method(hay: &[u8], seg: usize, ne: usize) -> bool {
    if seg == 0 || hay[seg - 1] != b'.' || ne - seg > 24 {
        return false;
    }
    let mut buf = [0u8; 24];
    let mut n = 0;
    for &b in &hay[seg..ne] {
        if b != b'_' {
            buf[n] = b.to_ascii_lowercase();
            n += 1;
        }
    }
    BUILDER_SECRETS.contains(&&buf[..n])
}

/// The method names [`builder_method`] takes, without `_`, in lower case.
const BUILDER_SECRETS: &[&[u8]] = &[
    b"password",
    b"passwd",
    b"token",
    b"apikey",
    b"apitoken",
    b"accesstoken",
    b"authtoken",
    b"bearertoken",
    b"bearerauth",
    b"secret",
    b"clientsecret",
    b"secretkey",
    b"secretaccesskey",
];

/// Whether `v` is the id of a signing key, not the key: the name ends in
/// `signingkey` or `signing_key` (any case and separator: git's
/// `user.signingkey`, `GPG_SIGNING_KEY`) and the value is a GPG key id, 8
/// or 16 hex digits (`3AA5C34371567BD2`), which `gpg --list-secret-keys`
/// prints and public key servers index. Decision: not 40 hex digits, which
/// may be a fingerprint but also an HMAC key of 20 bytes — unless the name
/// is a GPG key's ([`gpg_name`]): then they are its fingerprint.
fn signing_key_id(name: &[u8], v: &[u8]) -> bool {
    // Most values are no hex digits: decided before the name's letters are
    // collected (an allocation each time, ~740 instructions a value).
    if !v.iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    // Collected, not compared as an iterator: that form, though it runs only
    // on matches, changed how the hot loop around the checks was compiled
    // (callgrind, 5 MB: log 168.8 -> 170.5 M, JSON 269.3 -> 272.1 M).
    let letters: Vec<u8> = name
        .iter()
        .rev()
        .filter(|b| b.is_ascii_alphanumeric())
        .take(10)
        .map(u8::to_ascii_lowercase)
        .collect();
    let id = matches!(v.len(), 8 | 16);
    (letters == b"yekgningis" && id) || ((id || v.len() == 40) && gpg_name(name))
}

/// Whether a name is a GPG or PGP key's (`GPG_KEY`, `pgpKey`): its 8, 16
/// or 40 hex digits are a key's id or fingerprint (the official Python
/// images set `GPG_KEY=A035C8C1…` to verify their sources), as no secret
/// of GPG's is hex digits (a private key is an armored block, a
/// passphrase words).
fn gpg_name(name: &[u8]) -> bool {
    name.windows(3)
        .any(|w| w.eq_ignore_ascii_case(b"gpg") || w.eq_ignore_ascii_case(b"pgp"))
}

/// [`Guard::Phrase`] on a line: its last word (after trailing spaces), 8
/// bytes or more without quotes, follows spaces, and before those a `:` or
/// the word `is`. Read backwards from the line's end, a byte at a time: the
/// usual last word is short, and a JSON line's ends at a quote.
pub(crate) fn phrase_end(line: &[u8]) -> bool {
    let mut e = line.len();
    while e > 0 && matches!(line[e - 1], b' ' | b'\t' | b'\r') {
        e -= 1;
    }
    let mut s = e;
    while s > 0 && !matches!(line[s - 1], b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'`') {
        s -= 1;
    }
    if e - s < 8 || s == 0 || !matches!(line[s - 1], b' ' | b'\t') {
        return false;
    }
    let mut k = s - 1;
    while k > 0 && matches!(line[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    let before = &line[..k];
    before.ends_with(b":")
        || (before.len() >= 3
            && before[before.len() - 2..].eq_ignore_ascii_case(b"is")
            && matches!(before[before.len() - 3], b' ' | b'\t'))
}

/// Whether the phrase naming a secret ([`Check::Phrase`]) says its value is
/// about the secret, not the secret: the word right after the secret word,
/// or the phrase's last word, is one [`classify_name`] excludes as a last
/// component (`endpoint`, `id`, `type`, `expires`, `at`, `name`, …).
fn phrase_about_secret(phrase: &[u8]) -> bool {
    let words: Vec<String> = phrase
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).to_ascii_lowercase())
        .collect();
    let excluded = |w: &String| excluded_last().contains(w.as_str());
    // `api key`, `access key`: the secret word is the phrase's second word.
    let first = usize::from(
        words.len() > 1 && matches!(words[0].as_str(), "api" | "access") && words[1] == "key",
    );
    words.get(first + 1).is_some_and(excluded) || words.last().is_some_and(excluded)
}

/// How far [`literal_call_or_array`] may read after the name's end `ne`
/// (an exclusive bound, at most `end`).
pub(crate) fn literal_call_or_array_reach(hay: &[u8], ne: usize, end: usize) -> usize {
    let skip = |mut i: usize, set: &[u8]| {
        while i < end && set.contains(&hay[i]) {
            i += 1;
        }
        i
    };
    let far = match hay.get(ne) {
        Some(b'(') => skip(ne + 1, b" \t") + 1,
        Some(b'[') => {
            let close = skip(ne + 1, b"0123456789");
            let eq = skip(close + 1, b" \t");
            skip(eq + 1, b" \t").max(eq + 1) + 1
        }
        _ => ne + 1,
    };
    far.min(end)
}

/// Result of a check: the span (relative to the haystack) to mask, possibly several.
pub(crate) enum Verdict {
    Reject,
    Accept,
    Spans(Vec<(usize, usize)>),
}

/// Shannon entropy in bits per byte.
pub(crate) fn entropy(s: &[u8]) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    // H = log2(n) - (1/n) * sum(c * log2(c)), with c*log2(c) from a table.
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        (0..1024u32)
            .map(|c| {
                if c < 2 {
                    0.0
                } else {
                    f64::from(c) * f64::from(c).log2()
                }
            })
            .collect()
    });
    let mut counts = [0u32; 256];
    // The bytes present, so that only they are visited (in byte order, as
    // a walk over all 256 counts would add them: the same sum to the bit).
    let mut present = [0u64; 4];
    for &b in s {
        counts[b as usize] += 1;
        present[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    let n = s.len() as f64;
    let sum: f64 = present
        .iter()
        .enumerate()
        .flat_map(|(w, &bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                let b = bits.trailing_zeros();
                (bits != 0).then(|| {
                    bits &= bits - 1;
                    w * 64 + b as usize
                })
            })
        })
        .map(|b| counts[b])
        .filter(|&c| c > 1)
        .map(|c| {
            table
                .get(c as usize)
                .copied()
                .unwrap_or_else(|| f64::from(c) * f64::from(c).log2())
        })
        .sum();
    (n.log2() - sum / n).max(0.0)
}

/// Number of character classes present among lower, upper, digit, other.
pub(crate) fn classes(s: &[u8]) -> u32 {
    let mut l = 0;
    let mut u = 0;
    let mut d = 0;
    let mut o = 0;
    for &b in s {
        match b {
            b'a'..=b'z' => l = 1,
            b'A'..=b'Z' => u = 1,
            b'0'..=b'9' => d = 1,
            _ => o = 1,
        }
    }
    l + u + d + o
}

fn lower(s: &[u8]) -> Vec<u8> {
    s.to_ascii_lowercase()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// The first occurrence of `needle` in `hay`. `memmem::find` builds a
/// searcher on every call (~400 instructions); the values and line pieces
/// judged here are short, so they are scanned from each occurrence of the
/// needle's first byte instead.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    if hay.len() > 256 {
        return memchr::memmem::find(hay, needle);
    }
    let mut i = 0;
    while let Some(k) = memchr::memchr(first, &hay[i..]) {
        let at = i + k;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// Words that stand for a secret rather than being one.
const PLACEHOLDER_WORDS: &[&str] = &[
    "null",
    "nil",
    "none",
    "undefined",
    "true",
    "false",
    "yes",
    "no",
    "on",
    "off",
    "required",
    "optional",
    "empty",
    "string",
    "str",
    "int",
    "integer",
    "bool",
    "boolean",
    "bytes",
    "text",
    "number",
    "any",
    "unknown",
    "object",
    "value",
    "secret",
    "secrets",
    "password",
    "passwd",
    "pass",
    "pwd",
    "pw",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "key",
    "auth",
    "credentials",
    "credential",
    "hidden",
    "masked",
    "secure",
    "private",
    "sensitive",
    "removed",
    "omitted",
    "filtered",
    "protected",
    "unset",
    "default",
    "tbd",
    "todo",
    "fixme",
    "n/a",
    "na",
    "changeit",
    "change_me",
    "change-me",
    "sample",
    "test",
    "testing",
    "foo",
    "bar",
    "baz",
    "foobar",
    "admin",
    "root",
    "user",
    "username",
    "guest",
    "demo",
    "secretstr",
    "secretstring",
    "option",
    "optional[str]",
    "option<string>",
    "str|none",
    "string|null",
    "env",
    "environment",
    "vault",
    "keychain",
    "prompt",
    "ask",
    "stdin",
    "file",
    "inherit",
    "include",
    "same-origin",
    "omit",
    "basic",
    "bearer",
    "digest",
    "oauth",
    "oauth2",
    "jwt",
    "none.",
    "invalid",
    "expired",
    "missing",
    "set",
    "notset",
    "not-set",
    "not_set",
    "xxx",
    "utf-8",
    "utf8",
    "base64",
    "base64url",
    "hex",
    "ascii",
    "latin1",
    "binary",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "hs256",
    "rs256",
];

/// Substrings that make a value a placeholder (matched on the lowercased value).
const PLACEHOLDER_PARTS: &[&str] = &[
    "xxxxx",
    "****",
    "...",
    "…",
    "••",
    "change_me",
    "change-me",
    "_here",
    "-here",
    "here>",
    "process.env",
    "os.environ",
    "getenv",
    "env(",
    "env:",
    "env.",
    "vault:",
    "secretkeyref",
    "valuefrom",
    "ref+",
    "op://",
    "arn:aws:",
    "lookup(",
    "secret(",
    "secrets.",
    "not-a-real",
    "replace_with",
    "replace-with",
    "replace_me",
    "put_your",
    "put-your",
    "enter_your",
    "enter-your",
    "sensitive value",
];

/// Words that make a value a placeholder when they stand alone (delimited by
/// non-alphanumerics) or come with another such word.
const PLACEHOLDER_WORDS_IN: &[&str] = &[
    "example",
    "placeholder",
    "changeme",
    "dummy",
    "secretsmanager",
    "keyvault",
    "notarealsecret",
    "fake",
    "insert",
    "replaceme",
    "sample",
    "your",
    "mine",
    "token_here",
    "key_here",
    "secret_here",
];

/// Lower, UPPER and Capitalized forms of `words`, case-sensitive: a random
/// value that happens to spell `FAke` or `HeRe` is no placeholder.
fn case_forms_ac(words: &[&str]) -> aho_corasick::AhoCorasick {
    let mut pats: Vec<String> = Vec::new();
    for p in words {
        pats.push(p.to_string());
        pats.push(p.to_uppercase());
        // `Example`, `Placeholder`; not `Xxxx` (random text spells that).
        if p.len() >= 5 && p.bytes().all(|b| b.is_ascii_lowercase()) {
            let mut c = p.to_string();
            c[..1].make_ascii_uppercase();
            pats.push(c);
        }
    }
    aho_corasick::AhoCorasick::new(&pats).expect("constant word patterns compile")
}

/// Whether one of the words opens `v` (or is 7+ bytes long and anywhere), or
/// two of them occur.
fn has_word(ac: &aho_corasick::AhoCorasick, v: &[u8]) -> bool {
    let mut n = 0;
    for m in ac.find_overlapping_iter(v) {
        // A short word counts when it opens the value (`fake-token`, `dummy_key`);
        // seven letters in one exact case form do not occur by chance anywhere.
        let right = m.end() == v.len() || !v[m.end()].is_ascii_alphanumeric();
        if (m.start() == 0 && right) || m.len() >= 7 {
            return true;
        }
        n += 1;
    }
    n >= 2
}

fn placeholder_words_ac() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| case_forms_ac(PLACEHOLDER_WORDS_IN))
}

/// Case-sensitive in lower, UPPER and Capitalized form.
/// Whether `v` holds one of [`PLACEHOLDER_PARTS`]. A part that opens with a
/// letter (`env.`, `getenv`, `secrets.`, `vault:`) counts only where a word
/// of the value starts (`process.env.X`, `${{ secrets.X }}`, `$env:X`), so
/// that a random token that happens to spell `…yenv.` is not taken for one;
/// `xxxxx` counts anywhere.
fn placeholder_part(v: &[u8]) -> bool {
    let hash = v.first() == Some(&b'$') && crypt_hash(v);
    placeholder_ac().find_overlapping_iter(v).any(|m| {
        let part = PLACEHOLDER_PARTS[m.pattern().as_usize() / 2].as_bytes();
        if hash && part == b"..." {
            return false;
        }
        !part[0].is_ascii_alphabetic()
            || part == b"xxxxx"
            || m.start() == 0
            || !v[m.start() - 1].is_ascii_alphanumeric()
    })
}

/// Whether `v` is a modular crypt hash, `$id$[params$]salt$hash`
/// (`$apr1$…`, `$6$rounds=5000$…`, `$2y$10$…`, `$argon2id$v=19$…`): its
/// salt and hash are in `./0-9A-Za-z`, where `...` is three characters of
/// the hash, not an ellipsis.
fn crypt_hash(v: &[u8]) -> bool {
    let crypt = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'/');
    let mut fields = v.split(|&b| b == b'$');
    let (Some(head), Some(id)) = (fields.next(), fields.next()) else {
        return false;
    };
    let rest: Vec<&[u8]> = fields.collect();
    head.is_empty()
        && !id.is_empty()
        && id.len() <= 8
        && id.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        && rest.len() >= 2
        && rest[rest.len() - 1].len() >= 16
        && rest
            .iter()
            .all(|f| !f.is_empty() && f.iter().all(|b| crypt(b) || matches!(b, b'=' | b',')))
}

fn placeholder_ac() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| {
        let mut pats: Vec<String> = Vec::new();
        for p in PLACEHOLDER_PARTS {
            pats.push(p.to_string());
            pats.push(p.to_uppercase());
        }
        aho_corasick::AhoCorasick::new(&pats).expect("constant placeholder patterns compile")
    })
}

/// `serde_json::private::Number`, `$crate::Token`: identifiers joined by `::`.
fn rust_path(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"$").unwrap_or(v);
    // Two colons at least (most values have none): no need to split.
    if memchr::memchr(b':', v).is_none() {
        return false;
    }
    let segs: Vec<&[u8]> = v.split(|&b| b == b':').collect();
    // `a::b` splits into `a`, ``, `b`: every other piece is empty.
    segs.len() >= 3
        && segs.len() % 2 == 1
        && segs.iter().enumerate().all(|(i, s)| {
            if i % 2 == 1 {
                s.is_empty()
            } else {
                identifier(s)
            }
        })
}

/// A number as code writes it: `0x04`, `0b1010`, `0o755`, `49703u32`,
/// `0i32`, `1_000`, `2.5f64`, `0xCE536358L`, `42UL`, `1.5f` (a PIN of plain digits is not one: it has no
/// prefix or suffix). After `0x`, `0o` and `0b` come digits of that base
/// (and `_`), then an integer suffix or nothing, and no more than 64 bits of
/// them (128 with a `u128`/`i128` suffix or `_` separators): a hex token
/// that opens with `0b` (`0bb006f9…`) is no binary number, and `0x` with 64
/// hex digits (an Ethereum private key) is no number of any type.
fn numeric_literal(v: &[u8]) -> bool {
    // C, C++, Java and C#: `0xCE536358L`, `42UL`, `7ull` (and `1.5f`,
    // `2.0d` with a point).
    const C_INT_SUFFIXES: [&[u8]; 12] = [
        b"L", b"l", b"LL", b"ll", b"U", b"u", b"UL", b"ul", b"ULL", b"ull", b"LU", b"lu",
    ];
    const INT_SUFFIXES: [&[u8]; 12] = [
        b"u8", b"u16", b"u32", b"u64", b"u128", b"usize", b"i8", b"i16", b"i32", b"i64", b"i128",
        b"isize",
    ];
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let radix = match v {
        [b'0', b'x' | b'X', ..] => Some((16, 4)),
        [b'0', b'o', ..] => Some((8, 3)),
        [b'0', b'b', ..] => Some((2, 1)),
        _ => None,
    };
    if let Some((radix, bits)) = radix {
        let rest = &v[2..];
        let n = rest
            .iter()
            .take_while(|&&b| b == b'_' || char::from(b).is_digit(radix))
            .count();
        let (digits, suffix) = rest.split_at(n);
        let count = digits.iter().filter(|&&b| b != b'_').count();
        let wide = suffix.ends_with(b"128") || digits.contains(&b'_');
        return count > 0
            && count * bits <= if wide { 128 } else { 64 }
            && (suffix.is_empty()
                || INT_SUFFIXES.contains(&suffix)
                || C_INT_SUFFIXES.contains(&suffix));
    }
    let digits = v
        .iter()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'_' | b'.'))
        .count();
    if digits == 0 || !v[0].is_ascii_digit() {
        return false;
    }
    let suffix = &v[digits..];
    [
        &b"u8"[..],
        b"u16",
        b"u32",
        b"u64",
        b"u128",
        b"usize",
        b"i8",
        b"i16",
        b"i32",
        b"i64",
        b"i128",
        b"isize",
        b"f32",
        b"f64",
    ]
    .contains(&suffix)
        || C_INT_SUFFIXES.contains(&suffix)
        || (matches!(suffix, b"f" | b"F" | b"d" | b"D") && v[..digits].contains(&b'.'))
        || (suffix.is_empty() && v.contains(&b'_'))
}

/// Whether letters read as a class name of three or more words
/// (`EllipticCurvePrivateKey`, `RSAPrivateKey`): split at camel humps, every
/// word is a capital followed by two or more lower-case letters with a
/// vowel and no five consonants in a row, or one acronym of 2–5 capitals. A
/// random mixed-case password (`CjlNlAZkeNncJgQyVe`) has one-letter humps
/// and vowel-less words, a longer one (`NzaTasggxgcbwiYatdunehf`) runs of
/// consonants no word has, and is not taken for one.
fn class_name_words(v: &[u8]) -> bool {
    let mut words = 0usize;
    let mut acronyms = 0usize;
    let mut i = 0;
    while i < v.len() {
        let start = i;
        if !v[i].is_ascii_uppercase() {
            return false;
        }
        i += 1;
        if v.get(i).is_some_and(u8::is_ascii_uppercase) {
            // An acronym: capitals up to the one that starts the next word.
            while i < v.len() && v[i].is_ascii_uppercase() {
                i += 1;
            }
            if i < v.len() {
                i -= 1;
            }
            let len = i - start;
            if !(2..=5).contains(&len) {
                return false;
            }
            acronyms += 1;
        } else {
            while i < v.len() && v[i].is_ascii_lowercase() {
                i += 1;
            }
            let word = &v[start..i];
            if word.len() < 3 || !word[1..].iter().any(|b| b"aeiouy".contains(b)) {
                return false;
            }
            // No five consonants in a row (`Strength` has four; random
            // letters such as `Tasggxgcbwi` have more).
            let mut run = 0;
            if word.iter().any(|b| {
                run = if b"aeiouyAEIOUY".contains(b) {
                    0
                } else {
                    run + 1
                };
                run >= 5
            }) {
                return false;
            }
        }
        words += 1;
    }
    words >= 3 && acronyms <= 1
}

/// The segments of a value split at `-`, `_`, `.`, `:`, `/` and spaces, when
/// each is a word (letters, at most one capital hump per 3 letters), a number
/// or a short mixed piece (`m2m`, `v2`): a value a person typed from words.
fn word_segments(v: &[u8]) -> Option<Vec<&[u8]>> {
    segments(v, false)
}

/// [`word_segments`] that also takes words with a number at their end
/// (`oauth2`, `pkcs12`: [`numbered_word`]) and class names with a number
/// (`V1SecretVolumeSource`: [`numbered_name`]), for [`secret_word_phrase`]:
/// such words around a secret word name a secret (`google_oauth2_csrf_token`),
/// while without one they may be a password (`hunter2.prod`).
fn numbered_segments(v: &[u8]) -> Option<Vec<&[u8]>> {
    segments(v, true)
}

fn segments(v: &[u8], numbered: bool) -> Option<Vec<&[u8]>> {
    // Judged before they are collected: most values (random tokens) fail
    // on their first segments and need no list.
    let segs = v
        .split(|&b| matches!(b, b'-' | b'_' | b'.' | b':' | b'/' | b' ' | b'+'))
        .filter(|s| !s.is_empty());
    let words = || {
        segs.clone()
            .filter(|s| s.iter().all(u8::is_ascii_alphabetic) || numbered && numbered_name(s))
            .count()
    };
    let ok = segs.clone().all(|s| {
        let alpha = s.iter().all(u8::is_ascii_alphabetic);
        let vowel = s.iter().any(|&b| is_vowel(b));
        (alpha
            && (identifier_like(s) || component_spans(s).all(|(a, b)| b - a >= 3))
            && (vowel || s.len() <= 4)
            && (s.len() < 16 || reads_as_words(s)))
            || s.iter().all(u8::is_ascii_digit) && s.len() <= 6
            || s.len() <= 3 && s.iter().all(u8::is_ascii_alphanumeric)
            || numbered && (numbered_word(s) || numbered_name(s))
    }) && words() >= 1;
    ok.then(|| segs.collect())
}

/// A secret word after a word that says the value is not real, in one
/// case or camel case, digits after it allowed: `fakepassword`,
/// `dummyToken`, `yourpassword`, `examplekey1`, `MY_SECRET`.
fn prefixed_secret_word(v: &[u8]) -> bool {
    const MARKS: [&[u8]; 7] = [
        b"fake", b"dummy", b"sample", b"example", b"your", b"my", b"test",
    ];
    const WORDS: [&[u8]; 8] = [
        b"password",
        b"passwd",
        b"pass",
        b"pwd",
        b"secret",
        b"token",
        b"apikey",
        b"key",
    ];
    let first = v.first().map(u8::to_ascii_lowercase);
    if v.len() > 24
        || !matches!(first, Some(b'f' | b'd' | b's' | b'e' | b'y' | b'm' | b't'))
        || !v
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return false;
    }
    let mut letters = [0u8; 24];
    let mut n = 0;
    for &b in v.iter().filter(|&&b| b != b'_' && b != b'-') {
        letters[n] = b.to_ascii_lowercase();
        n += 1;
    }
    let digits = letters[..n]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let body = &letters[..n - digits];
    MARKS.iter().any(|m| {
        body.strip_prefix(*m).is_some_and(|rest| {
            WORDS
                .iter()
                .any(|w| rest == *w || rest.strip_suffix(b"s") == Some(*w))
        })
    })
}

/// Whether `v` holds a format string's field: `{}`, `{0}`, `{name}` (Python,
/// Rust, C#: `google_oauth2_flow_{0}`), or printf's `%s` standing alone
/// (`%s.cryptoKeyVersions`, `key=%s`), in a value of name bytes
/// (`[A-Za-z0-9_./:=-]`, and `\\` of a Windows path:
/// `Software\\Python\\PythonCore\\{sys_version}`):
/// a template, filled in elsewhere.
fn format_field(v: &[u8]) -> bool {
    // A name's bytes around the field (a generated password has other
    // symbols: `yWX*^KR+%s%Xb`).
    // A message template may have spaces between its words
    // (`"authentication_backend: file: password: %s: "`).
    let words = v
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3)
        .count();
    let spaced = |b: u8| b == b' ' && words >= 2;
    if memchr::memchr2(b'{', b'%', v).is_none()
        || !v
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"_./:-{}%=\\".contains(&b) || spaced(b))
    {
        return false;
    }
    // A random run of letters of both cases and digits is a password's
    // (`%_9Rg4BYKy_%%s`), not a name's.
    if v.split(|b| !b.is_ascii_alphanumeric())
        .any(|run| run.len() >= 6 && classes(run) >= 3)
    {
        return false;
    }
    let braces = memchr::memchr_iter(b'{', v).any(|i| {
        let inner = v[i + 1..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
            .count();
        inner <= 24 && v.get(i + 1 + inner) == Some(&b'}')
    });
    // `%%` is a literal percent sign, no field.
    let alone = |i: usize| i >= v.len() || !v[i].is_ascii_alphanumeric();
    braces
        || memchr::memchr_iter(b'%', v).any(|i| {
            v.get(i + 1) == Some(&b's')
                && (i == 0 || (alone(i - 1) && v[i - 1] != b'%'))
                && alone(i + 2)
        })
}

/// A vowel (`y` counts), in either case: words have them, random letters
/// often do not.
fn is_vowel(b: u8) -> bool {
    matches!(
        b.to_ascii_lowercase(),
        b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
    )
}

/// A word with a number at its end: three or more letters of one case
/// (with a vowel, or four at most: `pkcs`), then one to three digits
/// (`oauth2`, `pkcs12`, `sha256`, `imdsv2`, `HTTP2`). Random segments mix
/// cases and put digits between letters (`Zr8vLq2N`).
fn numbered_word(s: &[u8]) -> bool {
    let l = s.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let d = s.len() - l;
    let letters = &s[..l];
    let one_case =
        letters.iter().all(u8::is_ascii_lowercase) || letters.iter().all(u8::is_ascii_uppercase);
    let vowel = letters.iter().any(|&b| is_vowel(b));
    l >= 3
        && (1..=3).contains(&d)
        && s[l..].iter().all(u8::is_ascii_digit)
        && one_case
        && (vowel || l <= 4)
}

/// `secret-error-sentinel`, `refresh-token`, `alice-pw`, `m2m-access-token-12345`:
/// words one of which is a secret word stand for a secret, they are not one.
fn secret_word_phrase(v: &[u8]) -> bool {
    match word_segments(v) {
        Some(segs) => secret_words_in(Some(&segs)),
        None => secret_words_in(numbered_segments(v).as_deref()),
    }
}

/// [`secret_word_phrase`] of the [`word_segments`] of a value.
fn secret_words_in(segs: Option<&[&[u8]]>) -> bool {
    let Some(segs) = segs else {
        return false;
    };
    // CamelCase words count too: `challengePassword`, `_EllipticCurvePrivateKey`.
    let words = || {
        segs.iter()
            .flat_map(|s| component_spans(s).map(move |(a, b)| &s[a..b]))
    };
    words().nth(1).is_some()
        && words().any(|s| {
            [
                &b"token"[..],
                b"secret",
                b"key",
                b"password",
                b"passwd",
                b"pass",
                b"pwd",
                b"pw",
                b"auth",
                b"credential",
                b"credentials",
                b"apikey",
            ]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w))
        })
}

/// Whether a value is a placeholder / reference / mask rather than a secret.
pub(crate) fn is_placeholder(v: &[u8]) -> bool {
    let v = trim(v);
    if v.is_empty() {
        return true;
    }
    // `$$` is a `$` escaped from Compose and Make: `--password="$$(cat
    // /run/secrets/db)"` in a Compose healthcheck is a command's output,
    // `$${DB_PASS}` a variable. (`$$x9Kq2…` stays a value: Compose passes
    // it on as the literal `$x9Kq2…`.)
    let v = if v.starts_with(b"$$(") || v.starts_with(b"$${") {
        &v[1..]
    } else {
        v
    };
    if v.starts_with(b"[REDACTED") {
        return true;
    }
    // Templates and variable references.
    for p in [
        &b"${"[..],
        b"$(",
        b"{{",
        b"%(",
        b"#{",
        b"<%",
        b"@{",
        b"%{",
        b"[[",
        b"((",
    ] {
        if v.starts_with(p) {
            return true;
        }
    }
    if format_field(v) || prefixed_secret_word(v) {
        return true;
    }
    if escaped_or_spliced(v) {
        return true;
    }
    // A URN names a thing (`cert: "urn:k8s:secret:tls:cert"`).
    if v.len() > 4 && v[..4].eq_ignore_ascii_case(b"urn:") {
        return true;
    }
    // `$VAR`, and PHP/Perl expressions on a variable: `$_POST[`, `$cfg->x`, `$ENV{…}`.
    if v[0] == b'$' && v.len() > 1 && (v[1].is_ascii_alphabetic() || v[1] == b'_') {
        let n = 1 + v[1..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
            .count();
        // `$dir/private/cakey.pem`: a path under a variable; nginx's
        // `$scheme://$host`: a URL.
        if n == v.len()
            || matches!(v[n], b'[' | b'{' | b'(' | b'.' | b'/')
            || v[n..].starts_with(b"->")
            || v[n..].starts_with(b"://")
        {
            return true;
        }
    }
    if v.len() > 2 && v[0] == b'%' && v[v.len() - 1] == b'%' && {
        let inner = &v[1..v.len() - 1];
        let upper = inner
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        let lower = inner.iter().all(|&b| b.is_ascii_lowercase() || b == b'_');
        // `%TestSourcePassword%`: CamelCase words, no digits.
        let camel = inner[0].is_ascii_uppercase()
            && inner.iter().any(u8::is_ascii_lowercase)
            && inner.iter().all(|&b| b.is_ascii_alphabetic() || b == b'_');
        upper || lower || camel
    } {
        return true;
    }
    if matches!(v[0], b'<' | b'(' | b'{') {
        return true;
    }
    // YAML tags: `!Ref Name`, `!Sub …`, `!vault |`.
    if v[0] == b'!' {
        let tag = v[1..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        if tag >= 2 && v.get(1 + tag).is_none_or(|&b| b == b' ') {
            return true;
        }
    }
    if v[0] == b'[' && v[v.len() - 1] == b']' {
        let inner = &v[1..v.len() - 1];
        if inner.len() < 2
            || word_like(inner)
            || inner
                .iter()
                .all(|b| b.is_ascii_alphabetic() || matches!(b, b' ' | b'_' | b'-' | b':'))
            || is_placeholder(inner)
        {
            return true;
        }
    }
    // Templates inside the value, Ruby's and CoffeeScript's `#{…}` as well
    // (`"…credential: active_record_encryption.#{key}"`).
    if contains(v, b"{{")
        || contains(v, b"}}")
        || contains(v, b"${")
        || contains(v, b"{}")
        || contains(v, b"#{")
    {
        return true;
    }
    // `anonymous:$FROM_EMAIL`: ends in a variable (capitals, as shells and
    // Perl name them) after nothing, a separator or words — not after
    // random letters and digits (`WxYLwx72$TVDPH` is a password).
    if let Some(d) = v.iter().rposition(|&b| b == b'$') {
        let var = &v[d + 1..];
        if var.len() >= 3
            && var[0].is_ascii_uppercase()
            && var
                .iter()
                .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && var_prefix(&v[..d])
        {
            return true;
        }
    }
    // Masks: ****, xxxxxxxx, ••••, ....
    if v.iter().all(|&b| {
        matches!(
            b,
            b'*' | b'x' | b'X' | b'#' | b'.' | b'-' | b'_' | b' ' | b'?' | b'0'
        )
    }) {
        return true;
    }
    // Invalid UTF-8 is judged as text with replacement characters: a value
    // holding such bytes is a value, not a placeholder. (An ASCII byte
    // other than `*` is none of these characters: no need to decode.)
    if !v.iter().any(|&b| b < 0x80 && b != b'*')
        && String::from_utf8_lossy(v)
            .chars()
            .all(|c| matches!(c, '•' | '●' | '*' | '·' | '…' | '░' | '█'))
    {
        return true;
    }
    if placeholder_part(v) || has_word(placeholder_words_ac(), v) {
        return true;
    }
    // `your-api-key`, `my-secret`, `some_token`: a possessive and a secret
    // word. Only the first 16 bytes matter there, lowercased on the stack.
    let mut head = [0u8; 16];
    let hl = v.len().min(head.len());
    for (d, &b) in head.iter_mut().zip(v) {
        *d = b.to_ascii_lowercase();
    }
    let l = &head[..hl];
    for p in [&b"your"[..], b"my", b"some", b"the"] {
        if let Some(rest) = l.strip_prefix(p) {
            let rest = rest
                .strip_prefix(b"-")
                .or_else(|| rest.strip_prefix(b"_"))
                .unwrap_or(rest);
            if [
                &b"secret"[..],
                b"password",
                b"pass",
                b"token",
                b"key",
                b"api",
                b"app",
                b"access",
                b"client",
                b"db",
                b"auth",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
            {
                return true;
            }
        }
    }
    if v.len() <= placeholder_words_max() {
        if let Ok(s) = std::str::from_utf8(&v.to_ascii_lowercase()) {
            if placeholder_words().contains(s) {
                return true;
            }
        }
    }
    // The same character over and over.
    if v.len() >= 4 && v.iter().all(|&b| b == v[0]) {
        return true;
    }
    format_string(v)
}

/// `%s:%s`, `%(user)s:%(password)s`, `{}:{}`: only format specifiers and punctuation.
fn format_string(v: &[u8]) -> bool {
    let mut specs = 0;
    let mut i = 0;
    while i < v.len() {
        match v[i] {
            b'%' if v.get(i + 1).is_some_and(|b| b"sdrifx".contains(b)) => {
                specs += 1;
                i += 2;
            }
            b'%' if v.get(i + 1) == Some(&b'(') => {
                let Some(k) = v[i..].iter().position(|&b| b == b')') else {
                    return false;
                };
                if !v.get(i + k + 1).is_some_and(|b| b"sdrifx".contains(b)) {
                    return false;
                }
                specs += 1;
                i += k + 2;
            }
            b'{' => {
                let Some(k) = v[i..].iter().position(|&b| b == b'}') else {
                    return false;
                };
                specs += 1;
                i += k + 1;
            }
            b if b.is_ascii_alphanumeric() || b >= 0x80 => return false,
            _ => i += 1,
        }
    }
    specs > 0
}

/// Substrings that make a prefixed token a fake (matched on the lowercased token).
/// Parts that make a prefixed token a fake. Matched case-sensitively in
/// lower, UPPER and Capitalized form only, so that random tokens (which mix
/// cases) practically never hit one by chance; the English words only count
/// when they stand alone (`sk-proj-YOUR_KEY_HERE`) or come in pairs
/// (`ghp_yourtokenhere`).
/// The marks [`fake_marks_or_runs`] finds (in their case forms); the test
/// oracle searches for them.
#[cfg(test)]
const FAKE_MARKS: &[&str] = &[
    "xxxxxx",
    "****",
    "...",
    "0000000000",
    "1234567890",
    "<",
    ">",
    "$",
    "{",
];
const FAKE_WORDS: &[&str] = &[
    "your",
    "here",
    "example",
    "placeholder",
    "dummy",
    "changeme",
    "redacted",
    "insert",
    "replace",
    "notreal",
    "not_real",
    "not-real",
    "sample",
    "fake",
    "test_key",
    "testkey",
];

#[cfg(test)]
fn fake_marks_ac() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| case_forms_ac(FAKE_MARKS))
}

fn fake_words_ac() -> &'static aho_corasick::AhoCorasick {
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    AC.get_or_init(|| case_forms_ac(FAKE_WORDS))
}

/// Fakes inside prefixed vendor tokens: `ghp_xxxx…`, `sk-proj-YOUR_KEY_HERE`.
///
/// Every vendor match of secret-dense text asks this (~2 000 instructions
/// a call through the marks' and the words' automata): the marks are read
/// in one pass with the letter runs ([`fake_marks_or_runs`]), the words'
/// overlapping search runs only where one of them occurs at all, and the
/// entropy test skips its sum of logarithms where the byte counts decide it
/// ([`entropy_below_2`]; callgrind, 6 MB of secret-dense text through
/// `redact_stdin`: 781.7 -> 770.5 M instructions, ~2 460 -> ~1 970 a call).
pub(crate) fn looks_fake(v: &[u8]) -> bool {
    (fake_marks_or_runs(v) && !dropbox_long_lived(v))
        || (fake_words_ac().is_match(v) && has_word(fake_words_ac(), v))
        || entropy_below_2(v)
}

/// Dropbox's long-lived access tokens: 11 characters, ten `A`s (not a
/// placeholder's run of letters), then 43 characters.
fn dropbox_long_lived(v: &[u8]) -> bool {
    v.len() == 64
        && v[11..21] == *b"AAAAAAAAAA"
        && v[..11].iter().all(u8::is_ascii_alphanumeric)
        && v[21..]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'='))
}

/// `entropy(v) < 2.0`, without the sum of logarithms where no byte makes up
/// a quarter of `v`: the min-entropy `-log2(max count / len)`, a lower bound
/// of Shannon's, is then above 2 bits by at least `1.44 / len`, far more
/// than the rounding of the sum. Vendor tokens, which every match of
/// secret-dense text checks for fakes, have a dozen distinct bytes or more.
fn entropy_below_2(v: &[u8]) -> bool {
    if v.len() <= usize::from(u8::MAX) {
        let mut counts = [0u8; 256];
        let mut max = 0u8;
        for &b in v {
            let c = &mut counts[usize::from(b)];
            *c += 1;
            max = max.max(*c);
        }
        if 4 * usize::from(max) < v.len() {
            return false;
        }
    }
    entropy(v) < 2.0
}

/// Whether `v` holds one of the case forms of [`FAKE_MARKS`] (`xxxxxx`,
/// `XXXXXX`, `Xxxxxx`, `****`, `...`, ten `0`, `1234567890`, `<`, `>`, `$`,
/// `{`) or a run of eight of the same letter. Runs of `/` or `+` are normal
/// in base64 (AWS session tokens: `EPT//////////wEa`), runs of digits in
/// numeric ids (`xoxb-969999995512-…`).
fn fake_marks_or_runs(v: &[u8]) -> bool {
    if memchr::memchr3(b'<', b'>', b'$', v).is_some() || memchr::memchr(b'{', v).is_some() {
        return true;
    }
    let (mut prev, mut run) = (0u8, 0usize);
    for (i, &b) in v.iter().enumerate() {
        run = if b == prev { run + 1 } else { 1 };
        prev = b;
        let fake = match b {
            b'x' => run >= 6 || (run == 5 && i >= 5 && v[i - 5] == b'X'),
            b'*' => run >= 4,
            b'.' => run >= 3,
            b'0' => run >= 10 || (i >= 9 && v[i - 9..i] == *b"123456789"),
            _ => run >= 8 && b.is_ascii_alphabetic(),
        };
        if fake || (run >= 6 && b == b'X') {
            return true;
        }
    }
    false
}

/// A name a programmer would write (`config`, `apiKey`, `TOKEN`, `GithubToken`),
/// not random letters (`iVxoaLPJjCMUvZvT`).
fn identifier_like(s: &[u8]) -> bool {
    let upper = s.iter().filter(|b| b.is_ascii_uppercase()).count();
    let letters = s.iter().filter(|b| b.is_ascii_alphabetic()).count();
    upper * 3 <= letters || upper == letters
}

/// Whether a long identifier is made of words (`passwordHasherFactory`,
/// `oauth2AccessToken`, `NEXT_PUBLIC_API_KEY`, `sslKeyPEM`) rather than
/// random letters that happen to have few capitals
/// (`fYmrurKapvs6nDwOkxmtOmtfLFw80J`): its pieces between `_`, `$`, digits and
/// case humps are words with a vowel and no run of four consonants, with at
/// most one short vowel-less abbreviation (`ssl`, `Http`), one single letter
/// (`xAxis`), two acronyms inside camel case (`HTTPServer`) and one digit
/// run between letters (`oauth2Token`).
/// Any byte but an ASCII letter or digit separates pieces as `_` does.
fn reads_as_words(s: &[u8]) -> bool {
    reads_as_words_ending(s, false)
}

/// [`reads_as_words`], where with `end4` a word may end in four consonants
/// (`Insights`, `Strength`; random letters have such runs too, so only
/// names that must read as words as a whole use it).
fn reads_as_words_ending(s: &[u8], end4: bool) -> bool {
    let (mut abbrevs, mut singles, mut acronyms, mut inner_digits) = (0, 0, 0, 0);
    let vowel = is_vowel;
    let word = |h: &[u8]| {
        let mut run = 0;
        h.iter().any(|&b| vowel(b))
            && h.iter().enumerate().all(|(k, &b)| {
                run = if vowel(b) { 0 } else { run + 1 };
                run < 4 || (end4 && run == 4 && k + 1 == h.len())
            })
    };
    // Any other byte splits too: a hump is letters, so a byte that is no
    // letter or digit would end none.
    for piece in s
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        let mixed = piece.iter().any(u8::is_ascii_lowercase);
        let mut i = 0;
        while i < piece.len() {
            if piece[i].is_ascii_digit() {
                while i < piece.len() && piece[i].is_ascii_digit() {
                    i += 1;
                }
                if i < piece.len() {
                    inner_digits += 1;
                }
                continue;
            }
            // One hump: capitals then lower-case letters; a run of capitals
            // followed by a lower-case letter leaves its last capital to the next hump.
            let start = i;
            while i < piece.len() && piece[i].is_ascii_uppercase() {
                i += 1;
            }
            if i - start > 1 && piece.get(i).is_some_and(u8::is_ascii_lowercase) {
                i -= 1;
            }
            if i == start || !piece[start..i].iter().all(u8::is_ascii_uppercase) || i - start == 1 {
                while i < piece.len() && piece[i].is_ascii_lowercase() {
                    i += 1;
                }
            }
            let h = &piece[start..i];
            if h.len() == 1 {
                singles += 1;
            } else if h.iter().all(u8::is_ascii_uppercase) && (mixed || !word(h)) {
                if h.len() > 5 {
                    return false;
                }
                acronyms += 1;
            } else if !h.iter().any(|&b| vowel(b)) {
                if h.len() > 4 {
                    return false;
                }
                abbrevs += 1;
            } else if !word(h) {
                return false;
            }
        }
    }
    abbrevs <= 1 && singles <= 1 && acronyms <= 2 && inner_digits <= 1
}

/// Whether words of four letters or more ([`word_hump`]) make up 60 % of
/// `v` or more, as in names made of words (`OAS3ComponentWrapFactory`,
/// `createConnection2PoolManager`: digits end words here).
fn mostly_long_words(v: &[u8]) -> bool {
    let words: usize = v.split(u8::is_ascii_digit).map(long_word_bytes).sum();
    words * 5 >= v.len() * 3
}

/// How many bytes of `v` are words of four letters or more ([`word_hump`])
/// among its [`component_spans`].
fn long_word_bytes(v: &[u8]) -> usize {
    component_spans(v)
        .filter(|&(a, b)| word_hump(&v[a..b]))
        .map(|(a, b)| b - a)
        .sum()
}

/// Whether the pieces of `v` between `/` and `+` are all words or names
/// made of words (`com/AmazonS3/latest/dev/UploadingObjects`,
/// `role/AmazonSSMRoleForInstancesQuickSetup`,
/// `AmazonSSMManagedEC2InstanceDefaultPolicy`): a URL path, an ARN or a
/// class name, not 40 random base64 characters. Each piece reads as words,
/// and words of four letters or more ([`word_hump`]) make up 60 % of the
/// run or more (random base64 has few: none of 50 000 random runs passes).
fn words_between_slashes(v: &[u8]) -> bool {
    let mut pieces = v
        .split(|&b| b == b'/' || b == b'+')
        .filter(|p| !p.is_empty())
        .peekable();
    long_word_bytes(v) * 5 >= v.len() * 3
        && pieces.peek().is_some()
        && pieces.all(|p| {
            p.iter().all(u8::is_ascii_alphanumeric)
                && p.iter().any(u8::is_ascii_alphabetic)
                && reads_as_words_ending(p, true)
        })
}

/// A name of capitalised words, as API models name their shapes and
/// fields (`AwsEc2VpcPeeringConnectionVpcInfoDetails`, 40 characters as an
/// AWS secret access key is): humps of a capital and lower-case letters,
/// each maybe ending in digits (`Ec2`, `Ipv6`, `V2`), 40 characters or
/// more, words of four letters or more ([`word_hump`]) making up 60 % of
/// it. Random base64 of that length is no such name: every capital would
/// have to open a run of lower-case letters (shorter random tokens can:
/// `PipoClXidjZr`, `Ii2XcmePqisT28PazyvQu61Hyes`).
fn pascal_name(v: &[u8]) -> bool {
    if v.len() < 40 {
        return false;
    }
    let (mut i, mut humps) = (0, 0);
    while i < v.len() {
        if !v[i].is_ascii_uppercase() {
            return false;
        }
        i += 1;
        let s = i;
        while i < v.len() && v[i].is_ascii_lowercase() {
            i += 1;
        }
        let letters = i > s;
        while i < v.len() && v[i].is_ascii_digit() {
            i += 1;
        }
        if !letters && i == s {
            return false;
        }
        humps += 1;
    }
    humps >= 3 && long_word_bytes(v) * 5 >= v.len() * 3
}

/// A word of four letters or more, capitalised or not (`Amazon`, `latest`,
/// `Insights`): a vowel (`y` only after the first letter), no run of four
/// consonants but at its end.
fn word_hump(h: &[u8]) -> bool {
    h.len() >= 4
        && h.iter().all(u8::is_ascii_alphabetic)
        && h[1..].iter().all(u8::is_ascii_lowercase)
        && hump_is_word(h, 4, true)
}

/// Whether the letters `w` read as a word: a vowel (`y` only after the
/// first letter: `Yfzqj` is no word) and no run of `most` consonants, but
/// four at its end where `end4` (`Insights`).
fn hump_is_word(w: &[u8], most: usize, end4: bool) -> bool {
    let vowel_at =
        |k: usize| b"aeiouyAEIOUY".contains(&w[k]) && !(k == 0 && w[k].eq_ignore_ascii_case(&b'y'));
    let mut run = 0;
    (0..w.len()).any(vowel_at)
        && (0..w.len()).all(|k| {
            run = if vowel_at(k) { 0 } else { run + 1 };
            run < most || (end4 && run == 4 && k + 1 == w.len())
        })
}

/// A name in camel or Pascal case made of words, one of them a secret word
/// (`AWSAccessKeyId`, `SSECustomerKeyMD5`, `X509KeyUsageExtension`,
/// `Socks5Auth`, `X448PrivateKey`): a name for a secret, not one. Read hump
/// by hump: acronyms (2–5 capitals, at most two), words (one capital or
/// none, then lower-case letters, with a vowel and no run of four
/// consonants, five in words of seven letters or more: `Constraints`), one
/// letter alone only first (`X509`), one run of digits but not first; the
/// words hold 60 % of the letters or more, one has four letters or more.
/// Random letters and digits (`EhGLJA1cnUyrvGAIY7`, `AprdL6IN`) break it
/// with vowel-less humps, lone letters or digit runs, and the secret word
/// makes a chance reading negligible (none in 200 000 random tokens of
/// 8–40 characters).
fn camel_secret_name(s: &[u8]) -> bool {
    if s.len() < 6
        || !s.iter().all(u8::is_ascii_alphanumeric)
        || !s[0].is_ascii_alphabetic()
        || !s.iter().any(u8::is_ascii_lowercase)
        || !s.iter().any(u8::is_ascii_uppercase)
    {
        return false;
    }
    const SECRET_WORDS: &[&[u8]] = &[
        b"key",
        b"token",
        b"secret",
        b"password",
        b"passwd",
        b"pass",
        b"pwd",
        b"auth",
        b"credential",
        b"credentials",
        b"apikey",
        b"access",
    ];
    let (mut acronyms, mut digit_runs, mut pieces, mut long) = (0, 0, 0, 0);
    let (mut word_letters, mut secret_word) = (0, false);
    let mut i = 0;
    while i < s.len() {
        let start = i;
        if s[i].is_ascii_digit() {
            if start == 0 {
                return false;
            }
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            digit_runs += 1;
            continue;
        }
        while i < s.len() && s[i].is_ascii_uppercase() {
            i += 1;
        }
        if i - start >= 2 {
            // An acronym; its last capital opens the next word, if one follows.
            if s.get(i).is_some_and(u8::is_ascii_lowercase) {
                i -= 1;
            }
            let n = i - start;
            if n >= 2 {
                if n > 5 {
                    return false;
                }
                acronyms += 1;
                pieces += 1;
                continue;
            }
        }
        while i < s.len() && s[i].is_ascii_lowercase() {
            i += 1;
        }
        let w = &s[start..i];
        pieces += 1;
        if w.len() == 1 {
            if start != 0 {
                return false;
            }
            continue;
        }
        if !hump_is_word(w, if w.len() >= 7 { 5 } else { 4 }, false) {
            return false;
        }
        word_letters += w.len();
        long += usize::from(w.len() >= 4);
        secret_word |= SECRET_WORDS.iter().any(|sw| w.eq_ignore_ascii_case(sw));
    }
    let letters = s.iter().filter(|b| b.is_ascii_alphabetic()).count();
    secret_word
        && long >= 1
        && pieces >= 2
        && acronyms <= 2
        && digit_runs <= 1
        && word_letters * 5 >= letters * 3
}

/// `exports.X509BasicConstraintsExtension`, `module.Name`, `context.eval_ctx`:
/// a lower-case word, a dot and names (a member of an object or module).
/// Not `hunter2.prod` (a word and digits first: how passwords are made).
fn dotted_words(v: &[u8]) -> bool {
    let mut parts = v.split(|&b| b == b'.');
    let first = parts.next().unwrap_or_default();
    v.contains(&b'.')
        && first.len() >= 2
        && first.iter().all(|&b| b.is_ascii_lowercase() || b == b'_')
        && parts.all(script_identifier)
}

/// A path of identifiers (`P.isWritable`, `self.token`).
fn identifier_path(v: &[u8]) -> bool {
    v.split(|&b| b == b'.').all(script_identifier)
}

/// TypeScript, C# and Kotlin member access written with optional chaining
/// or a non-null assertion (`options?.captchaToken`, `createData!.client_secret`,
/// `data.session?.access_token`), read as the same path with plain dots;
/// and a prefix increment (`++this._authGeneration`).
fn chained_code(v: &[u8]) -> bool {
    if let Some(rest) = v.strip_prefix(b"++") {
        return !rest.is_empty() && looks_like_code(rest);
    }
    if !v.windows(2).any(|w| matches!(w, [b'?' | b'!', b'.'])) {
        return false;
    }
    let mut plain = Vec::with_capacity(v.len());
    for (i, &b) in v.iter().enumerate() {
        if matches!(b, b'?' | b'!') && v.get(i + 1) == Some(&b'.') {
            continue;
        }
        plain.push(b);
    }
    looks_like_code(&plain)
}

/// A name as code writes a type or a variable: a dotted path of two or
/// more identifiers of letters and digits that read like names
/// (`ecdsa.PrivateKey`, `conf.PasswordConfiguration`, `u.EncryptedPassword`),
/// or one identifier of letters that reads as words (`credential`,
/// `validAuth`, `AccessTokenResponse`). Random letters and digits
/// (`Xk9mQ2pL7vR4`) are neither.
fn code_path(v: &[u8]) -> bool {
    let name = |s: &[u8]| {
        script_identifier(s)
            && s[0].is_ascii_alphabetic()
            && (identifier_like(s) || (acronym_identifier(s) && reads_as_words(s)))
            && (s.len() < 16 || reads_as_words(s))
    };
    if v.contains(&b'.') {
        v.split(|&b| b == b'.').all(name)
    } else {
        v.len() >= 4 && v.iter().all(u8::is_ascii_alphabetic) && name(v) && reads_as_words(v)
    }
}

/// A value that is a variable given to a field of a struct or object
/// literal, the line's last item (`PrivateKey: sigKey1,`, `token:
/// privJwk,`, `inputV4AuthStr: signV4Algorithm,`): an identifier that
/// reads as words (one run of digits inside it at most, as
/// [`reads_as_words`] allows), then `,` and the line's end.
fn field_variable(hay: &[u8], (vs, ve): (usize, usize)) -> bool {
    let v = &hay[vs..ve];
    let letters = &v[..v.len() - v.iter().rev().take_while(|b| b.is_ascii_digit()).count()];
    hay.get(ve) == Some(&b',')
        && hay[ve + 1..]
            .iter()
            .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r'))
            .is_none_or(|&b| b == b'\n')
        && letters.len() >= 3
        && letters[0].is_ascii_alphabetic()
        && letters.iter().all(u8::is_ascii_alphanumeric)
        && (identifier_like(letters) || acronym_identifier(letters))
        && reads_as_words(letters)
}

/// [`identifier_like`] where a run of capitals counts once: an identifier
/// with acronyms in it (`keyRSA2048`, `tOpenIDConnectPBKDF2ClientSecret`).
fn acronym_identifier(s: &[u8]) -> bool {
    let runs = s
        .iter()
        .enumerate()
        .filter(|&(i, b)| b.is_ascii_uppercase() && (i == 0 || !s[i - 1].is_ascii_uppercase()))
        .count();
    let letters = s.iter().filter(|b| b.is_ascii_alphabetic()).count();
    runs * 3 <= letters
}

/// An identifier of C-like languages: `[A-Za-z_][A-Za-z0-9_]*`.
fn identifier(p: &[u8]) -> bool {
    !p.is_empty()
        && (p[0].is_ascii_alphabetic() || p[0] == b'_')
        && p.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// An identifier of a script language: letters, digits, `_` and `$`, not
/// opening with a digit.
fn script_identifier(p: &[u8]) -> bool {
    !p.is_empty()
        && (p[0].is_ascii_alphabetic() || p[0] == b'_' || p[0] == b'$')
        && p.iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// A C, C++ or Java declaration's name after its type (`my_cred;`,
/// `*auth_procs;`, `_M_token;`, `baseReadSecret;`): an identifier ending
/// the statement, not a value.
fn declared_name(v: &[u8]) -> bool {
    let Some(body) = v.strip_suffix(b";") else {
        return false;
    };
    let body = body.trim_ascii_start();
    let id = &body[body.iter().take_while(|b| matches!(b, b'*' | b'&')).count()..];
    !id.is_empty()
        && (id[0].is_ascii_alphabetic() || id[0] == b'_')
        && id.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        && (id.contains(&b'_') || id.len() < body.len() || camel_identifier(id))
}

/// A camel-case identifier made of words (`handshakeKeyDerivation`,
/// `baseReadSecret`, `isValidation`): a lower-case first word, then
/// capitalised ones (no two capitals in a row, a lower-case letter last),
/// letters only, eight or more of them. Code names a variable so; random
/// letters are not made of words (`fYmrurKapvs`, see [`reads_as_words`])
/// and, with capitals as often as one in two, hold two in a row.
fn camel_identifier(v: &[u8]) -> bool {
    v.len() >= 8
        && v[0].is_ascii_lowercase()
        && v[v.len() - 1].is_ascii_lowercase()
        && v.iter().all(u8::is_ascii_alphabetic)
        && v.iter().any(u8::is_ascii_uppercase)
        && !v
            .windows(2)
            .any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
        && reads_as_words(v)
}

/// The code between two string literals that a quoted value's regex took
/// for one string (`'--password='.$connection['password']`, `"password="
/// ~ pw ~ ";"`, `value="'.csrf_token().'"`): a concatenation operator (`.`,
/// `~`, `&`, or `+` with a space beside it) opens the value before an
/// expression and closes it after one, or PHP's `.$` opens it. So is the
/// code between a call's `).` and a later call's `(` (Java's
/// `"CredentialsNonExpired=").append(this.credentialsNonExpired).append("`).
fn concatenated(v: &[u8]) -> bool {
    let mut t = trim(v);
    if t.len() > 3 && t.starts_with(b").") && t[t.len() - 1] == b'(' {
        return true;
    }
    // A name between Go raw strings (`` `echo `+password+` | …` ``): the
    // backticks close and open them, `+` joins (the value may end before
    // the second backtick, as a code span's does).
    if let Some(inner) = t
        .strip_prefix(b"`+")
        .and_then(|r| r.strip_suffix(b"+`").or_else(|| r.strip_suffix(b"+")))
    {
        // A member too (`` `+sess.Token+` ``).
        return inner.split(|&b| b == b'.').all(identifier);
    }
    // The other kind of quote around it (`"'.csrf_token().'"`, Go's raw
    // strings in a JSON literal: `` `{"hashed_password":"` + string(p) +
    // `"}` ``): the code between two strings of the language the value is
    // written in.
    if t.len() > 2 && matches!(t[0], b'\'' | b'"' | b'`') && t[t.len() - 1] == t[0] {
        t = trim(&t[1..t.len() - 1]);
    }
    // Or on one side only, beside the operator (Java's `", clientSecret='" +
    // this.clientSecret + '\''`: the value `" + this.clientSecret + `).
    let beside_op = |b: Option<&u8>| b.is_some_and(|&b| matches!(b, b'+' | b'.' | b'~' | b'&'));
    if t.len() > 2
        && matches!(t[0], b'\'' | b'"' | b'`')
        && beside_op(t[1..].iter().find(|&&b| b != b' '))
    {
        t = trim(&t[1..]);
    }
    if t.len() > 2
        && matches!(t[t.len() - 1], b'\'' | b'"' | b'`')
        && beside_op(t[..t.len() - 1].iter().rev().find(|&&b| b != b' '))
    {
        t = trim(&t[..t.len() - 1]);
    }
    if t.len() < 2 {
        return false;
    }
    // `+` only with a space beside it (`" + name + "`): base64 opens and
    // closes with a bare `+` now and then. Between operators without
    // spaces (`"pwd="&pass&";"`, Twig's `~pw~`), an expression: names,
    // members, calls and indexes, not a random password's symbols
    // (`~y^ce%At-_SXb*H5A~`).
    let n = t.len();
    let op = |b: u8| matches!(b, b'.' | b'~' | b'&');
    let after = t[1..].iter().find(|&&b| b != b' ').copied();
    let before = t[..n - 1].iter().rev().find(|&&b| b != b' ').copied();
    let opens = (op(t[0]) || (t[0] == b'+' && t[1] == b' '))
        && after.is_some_and(|b| b == b'$' || b == b'_' || b == b'(' || b.is_ascii_alphabetic());
    // Or a call opened on the next string (`" + os.Getenv("`).
    let call_opened = t[n - 1] == b'(' && (t[n - 2].is_ascii_alphanumeric() || t[n - 2] == b'_');
    let closes = ((op(t[n - 1]) || (t[n - 1] == b'+' && t[n - 2] == b' '))
        && before
            .is_some_and(|b| b == b')' || b == b']' || b == b'_' || b.is_ascii_alphanumeric()))
        || (call_opened && t[0] == b'+' && t[1] == b' ');
    // `"+new Buffer("`: `+` against the string's closing quote, and a call
    // opened on the next string.
    if t[0] == b'+'
        && call_opened
        && t[1].is_ascii_alphabetic()
        && t[1..n - 1]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b' '))
    {
        return true;
    }
    let bare = |b: u8| matches!(b, b'~' | b'&');
    if opens && closes && (bare(t[0]) && t[1] != b' ' || bare(t[n - 1]) && t[n - 2] != b' ') {
        return t[1..n - 1].iter().all(|&b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'$'
                        | b'.'
                        | b'('
                        | b')'
                        | b'['
                        | b']'
                        | b'\''
                        | b'"'
                        | b' '
                        | b'-'
                        | b'>'
                        | b':'
                        | b','
                )
        });
    }
    (opens && closes) || t.starts_with(b".$") || t.starts_with(b". $")
}

/// A class name as the value of a declaration with a type (`OAuth2Authorization
/// authorization = TestOAuth2Authorizations`, `Supplier<PasswordEncoder>
/// passwordEncoder = SingletonSupplier`, a builder whose chain goes on on
/// the next line): the name follows a type (an identifier, `>` or `]`
/// before it), a space comes before `=`, and the value is a CamelCase
/// identifier of two or more words (digits allowed, `OAuth2`) that ends the
/// line or is followed by `;` or `.`. A config's `password = BlueSky` has no
/// type before its name.
fn typed_class_value(hay: &[u8], (ns, ne): (usize, usize), (vs, ve): (usize, usize)) -> bool {
    if !class_identifier(&hay[vs..ve]) {
        return false;
    }
    let eq = hay[ne..vs].iter().position(|&b| b == b'=').map(|i| ne + i);
    let spaced = eq.is_some_and(|e| e > ne && matches!(hay[e - 1], b' ' | b'\t'));
    let mut b = ns;
    while b > 0 && matches!(hay[b - 1], b' ' | b'\t') {
        b -= 1;
    }
    let typed = b < ns
        && b > 0
        && (hay[b - 1].is_ascii_alphanumeric() || matches!(hay[b - 1], b'_' | b'>' | b']'));
    let ends = hay[ve..]
        .iter()
        .find(|&&b| !matches!(b, b' ' | b'\t' | b'\r'))
        .is_none_or(|&b| matches!(b, b'\n' | b';' | b'.'));
    spaced && typed && ends
}

/// A CamelCase class name of two or more words (`TestOAuth2Authorizations`,
/// `SingletonSupplier`, `RequiredFactor`): letters and digits, a capital
/// first, lower-case letters, a capital after a lower-case letter or a
/// digit, few capitals, and it reads as words (random letters do not).
fn class_identifier(v: &[u8]) -> bool {
    v.len() >= 6
        && v[0].is_ascii_uppercase()
        && v.iter().all(u8::is_ascii_alphanumeric)
        && v.iter().any(u8::is_ascii_lowercase)
        && v.windows(2)
            .any(|w| !w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase())
        && {
            // Its letters, collected only for a value shaped like a class
            // name (a 130-byte bearer token was copied for every check).
            let letters: Vec<u8> = v.iter().copied().filter(|b| !b.is_ascii_digit()).collect();
            identifier_like(&letters)
        }
        && reads_as_words(v)
}

/// Whether `p` may come before a trailing `$VAR` of a placeholder:
/// nothing, a separator (`anonymous:`, `https://`, `--token=`) or a word
/// (`pre$SUFFIX`).
fn var_prefix(p: &[u8]) -> bool {
    match p.last() {
        None => true,
        Some(b) if !b.is_ascii_alphanumeric() => true,
        Some(_) => {
            let from = p
                .iter()
                .rposition(|b| !b.is_ascii_alphanumeric())
                .map_or(0, |k| k + 1);
            let word = &p[from..];
            word.iter().all(u8::is_ascii_alphabetic) && (word_like(word) || reads_as_words(word))
        }
    }
}

/// Words joined by escaped line breaks or tabs (`option\nor`,
/// `command-line\\nflag`): prose inside a JSON or C string, where `\n`
/// ends a line, not a value holding a backslash. Each piece is a word of
/// letters or words joined by `-`.
fn escaped_prose(v: &[u8]) -> bool {
    let mut escapes = 0;
    let mut pieces = 0;
    let mut i = 0;
    while i < v.len() {
        let start = i;
        while i < v.len() && (v[i].is_ascii_alphabetic() || v[i] == b'-') {
            i += 1;
        }
        let piece = &v[start..i];
        if !piece.is_empty() {
            if !piece
                .split(|&b| b == b'-')
                .all(|w| !w.is_empty() && (word_like(w) || reads_as_words(w)))
            {
                return false;
            }
            pieces += 1;
        }
        if i == v.len() {
            break;
        }
        let slashes = v[i..].iter().take_while(|&&b| b == b'\\').count();
        if !(1..=2).contains(&slashes) || !matches!(v.get(i + slashes), Some(b'n' | b'r' | b't')) {
            return false;
        }
        escapes += 1;
        i += slashes + 1;
    }
    escapes > 0 && pieces >= 2
}

/// Text written with Java's `\uXXXX` escapes (`\uC640`, `n\u00E3o`): a
/// localised word, not a value.
fn unicode_escaped(v: &[u8]) -> bool {
    let mut i = 0;
    let mut escapes = 0;
    while i < v.len() {
        if v[i] == b'\\' {
            if v.len() < i + 6
                || v[i + 1] != b'u'
                || !v[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit)
            {
                return false;
            }
            escapes += 1;
            i += 6;
        } else if v[i].is_ascii_alphabetic() {
            i += 1;
        } else {
            return false;
        }
    }
    escapes > 0
}

/// Code rather than a literal: `getpass()`, `config.api_key`, `a||b`, `secret_value`.
/// A PowerShell cmdlet (`ConvertTo-SecureString`, `Read-Host`,
/// `Get-Content`): an approved verb, `-` and a CamelCase noun — the command
/// of `$password = ConvertTo-SecureString "v" -AsPlainText`, not its value.
fn powershell_cmdlet(v: &[u8]) -> bool {
    const VERBS: &[&[u8]] = &[
        b"Get",
        b"Set",
        b"New",
        b"Read",
        b"Write",
        b"ConvertTo",
        b"ConvertFrom",
        b"Import",
        b"Export",
        b"Invoke",
        b"Add",
        b"Remove",
        b"Select",
        b"Test",
        b"Join",
        b"Resolve",
        b"Protect",
        b"Unprotect",
        b"Out",
        b"Format",
    ];
    let Some(d) = v.iter().position(|&b| b == b'-') else {
        return false;
    };
    let noun = &v[d + 1..];
    VERBS.contains(&&v[..d])
        && noun.len() >= 3
        && noun[0].is_ascii_uppercase()
        && noun.iter().any(u8::is_ascii_lowercase)
        && noun.iter().all(u8::is_ascii_alphanumeric)
}

pub(crate) fn looks_like_code(v: &[u8]) -> bool {
    let v = trim(v);
    if v.is_empty() {
        return true;
    }
    // Calls, subscripts and slices: `getpass()`, `config['password']`,
    // `token[:-1]`, `None):`; reST roles `:class:`.
    if v.iter().any(|&b| matches!(b, b'(' | b')' | b'[' | b']'))
        || v[0] == b':'
        || v[v.len() - 1] == b':'
    {
        return true;
    }
    if numeric_literal(v) || v.starts_with(b"*mut") || v.starts_with(b"*const") {
        return true;
    }
    // A constant (`FG_DEFAULT`, `DEFAULT_PASSWORD`) or a class name of three
    // or more words (`EllipticCurvePrivateKey`, `RSAPrivateKey`).
    if upper_constant(v) {
        return true;
    }
    if v[0].is_ascii_uppercase() && v.iter().all(u8::is_ascii_alphabetic) && class_name_words(v) {
        return true;
    }
    if contains(v, b"||") || contains(v, b"&&") || contains(v, b"=>") || contains(v, b"::") {
        return true;
    }
    if matches!(v[0], b'{' | b'[') {
        return true;
    }
    // `!0`, `!vault`, `!Ref`, `@Value`: YAML tags, JS negations, annotations.
    if matches!(v[0], b'!' | b'@') && (v.len() <= 2 || v[1..].iter().all(u8::is_ascii_alphabetic)) {
        return true;
    }
    // `!er.headers`, `!is_set`: a negated expression.
    if powershell_cmdlet(v) {
        return true;
    }
    if v[0] == b'!' && v.len() > 1 && looks_like_code(&v[1..]) {
        return true;
    }
    // `/^Unexpected token/`: a regex literal.
    if v.starts_with(b"/^") {
        return true;
    }
    // Go and C: a pointer type or a dereference (`*ecdsa.PrivateKey`,
    // `*params.Password`, `*credential`), or a composite literal's type
    // (`protocol.Credential{`, `&webauthn.Credential{`).
    let pointed = v.strip_prefix(b"*").or_else(|| v.strip_prefix(b"&"));
    let literal = v.strip_suffix(b"{").map(|t| {
        let t = t.strip_prefix(b"&").unwrap_or(t);
        t.strip_prefix(b"*").unwrap_or(t)
    });
    if pointed.or(literal).is_some_and(code_path) {
        return true;
    }
    if chained_code(v) {
        return true;
    }
    // `my_cred;`, `*auth_procs;`: a declared name.
    if declared_name(v) {
        return true;
    }
    // Two shapes with a dot (most values, random tokens, have none).
    if let Some(dot) = memchr::memchr(b'.', v) {
        // `P.isWritable=P.isReadable=void`: a chained assignment.
        if let Some(eq) = memchr::memchr(b'=', &v[dot..]).map(|i| dot + i) {
            if identifier_path(&v[..eq]) && v.get(eq + 1).is_some_and(|&b| b != b'=' && b != b'>') {
                return true;
            }
        }
        // `rust_openssl.hpke.MLKEM768X25519PrivateKey`: a path through modules
        // (lower-case names) to a name.
        let module = |p: &[u8]| {
            !p.is_empty()
                && p[0].is_ascii_lowercase()
                && p.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        if let Some(last) = v.iter().rposition(|&b| b == b'.') {
            if last > dot
                && v[..last].split(|&b| b == b'.').all(module)
                && identifier(&v[last + 1..])
            {
                return true;
            }
        }
    }
    // A member path through a name with a number between words
    // (`P11Key.secretKey`, `p11Key.token`, `CertificateX509Key.NAME`).
    if numbered_member_path(v) {
        return true;
    }
    // Dotted identifier path: self.password, process.env.TOKEN, args.api_key.
    let segs = v.split(|&b| b == b'.');
    // Digits are allowed when a later segment reads as a field name
    // (`node.colon2_token`, `cfg.apiKey2`), not in `hunter2.prod`.
    let field_like = |s: &&[u8]| {
        let letters_then_digits = {
            let l = s.iter().take_while(|b| !b.is_ascii_digit()).count();
            s[l..].iter().all(u8::is_ascii_digit)
        };
        s.contains(&b'_')
            || letters_then_digits
                && s.windows(2)
                    .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    };
    // A constant's segment (`config.CLOUDSDK_CLIENT_NOTSOSECRET`) and a
    // snake_case name with a numbered word (`oauth2_parameters.credentials`)
    // are names whatever their length and digits.
    let named = |s: &[u8]| upper_constant(s) || snake_words(s);
    if v.contains(&b'.')
        && segs.clone().all(|s| {
            !s.is_empty()
                && (s[0].is_ascii_alphabetic() || s[0] == b'_' || s[0] == b'$')
                && s.iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                && identifier_like(s)
                && (s.len() < 16 || reads_as_words(s) || named(s))
        })
        && (!v.iter().any(u8::is_ascii_digit)
            || segs.clone().skip(1).any(|s| field_like(&s))
            || segs
                .clone()
                .all(|s| !s.iter().any(u8::is_ascii_digit) || named(s)))
    {
        return true;
    }
    // snake_case identifier made of words: secret_value, api_key_from_env,
    // with numbered words and a leading `_` (`imdsv2_session_token`,
    // `_convert_oauth2_credentials`).
    if v.contains(&b'_') && v.iter().all(|&b| b.is_ascii_lowercase() || b == b'_') && v[0] != b'_' {
        return true;
    }
    // With numbered words, two are a password's shape too (`hunter2_prod`):
    // three or more, a leading `_`, or a secret word among them.
    if (v[0].is_ascii_lowercase() || v[0] == b'_') && snake_words(v) {
        let body = v.strip_prefix(b"_").unwrap_or(v);
        let words = body.split(|&b| b == b'_').count();
        if words >= 3 || body.len() < v.len() || secret_word_phrase(v) {
            return true;
        }
    }
    false
}

/// An UPPER_SNAKE constant of two or more words (`FG_DEFAULT`, `CLOUDSDK_CLIENT_NOTSOSECRET`).
fn upper_constant(v: &[u8]) -> bool {
    v.contains(&b'_')
        && v[0].is_ascii_uppercase()
        && v.iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && v.split(|&b| b == b'_').filter(|w| w.len() >= 2).count() >= 2
}

/// A lower-case snake_case name of two or more words, some of them with a
/// number at the end (`oauth2_client_secret`, `imdsv2_session_token`), a
/// leading `_` allowed (`_convert_oauth2_credentials`): each word three
/// letters or more ([`numbered_word`], or letters only).
fn snake_words(v: &[u8]) -> bool {
    let body = v.strip_prefix(b"_").unwrap_or(v);
    let mut words = body.split(|&b| b == b'_');
    // A name, not a blob: a few dozen bytes at most.
    v.len() <= 80
        && body.contains(&b'_')
        && words.clone().count() >= 2
        && words.all(|w| {
            (w.len() >= 2 && w.iter().all(u8::is_ascii_lowercase))
                || numbered_word(w) && w[0].is_ascii_lowercase()
        })
}

/// A class or field name with a number between words: letters, one to four
/// digits, then capitalised words to its end (`P11Key`, `X509Certificate`,
/// `Sha256Digest`, `CertificateX509Key`). A random token seldom ends in a
/// capitalised word right after digits; `hunter2` or `abc123` do not.
fn numbered_name(s: &[u8]) -> bool {
    let l = s.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let d = s[l..].iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = &s[l + d..];
    if l == 0 || l > 16 || d == 0 || d > 4 || rest.len() < 3 {
        return false;
    }
    // Capitalised words: an upper-case letter, then at least two lower-case ones.
    let mut i = 0;
    while i < rest.len() {
        let lower = rest[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        if !rest[i].is_ascii_uppercase() || lower < 2 {
            return false;
        }
        i += 1 + lower;
    }
    true
}

/// A member path (`A.b`, `A.b.C`) whose names are identifiers, one of them
/// a [`numbered_name`], the others short or made of words, as the dotted
/// paths [`looks_like_code`] takes (`Token token = p11Key.token;`).
fn numbered_member_path(v: &[u8]) -> bool {
    let mut numbered = false;
    let mut parts = 0;
    for s in v.split(|&b| b == b'.') {
        parts += 1;
        if !identifier(s) {
            return false;
        }
        if numbered_name(s) {
            numbered = true;
        } else if s.iter().any(u8::is_ascii_digit)
            || !identifier_like(s)
            || (s.len() >= 16 && !reads_as_words(s))
        {
            return false;
        }
    }
    parts >= 2 && numbered
}

fn is_path(v0: &[u8]) -> bool {
    let mut v = trim(v0);
    // A path with options after it, as Ansible's `password` lookup takes
    // them (`'/dev/null chars=ascii_letters,digits length=8'`,
    // `'secrets/db/prod length=15'`): the path decides.
    if let Some(sp) = v.iter().position(|&b| b == b' ') {
        let options = v[sp + 1..].split(|&b| b == b' ').all(|o| {
            o.iter().position(|&b| b == b'=').is_some_and(|e| {
                e > 0
                    && o[..e].iter().all(|&b| b.is_ascii_lowercase() || b == b'_')
                    && o[e + 1..]
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b'-'))
            })
        });
        if options && v[..sp].contains(&b'/') {
            v = &v[..sp];
        }
    }
    // A directory of lower-case names (`'credentials/' + client`), or a
    // relative path of them before options.
    let lower_path = |p: &[u8]| {
        p.len() > 1
            && p[0].is_ascii_lowercase()
            && p.contains(&b'/')
            && p.iter().all(|&b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(b, b'_' | b'-' | b'.' | b'/')
            })
    };
    if lower_path(v) && (v.ends_with(b"/") || v.len() < trim(v0).len()) {
        return true;
    }
    // An object's key or a relative file path: two or more `/`, a file
    // name with an extension last (`goldfish/results/2024/…/cell-a.json.gz`,
    // `loki_index_v2_20598/fake/…-4eafaf2b.tsdb`), no capital (base64 has
    // capitals, and no `.`).
    if v.first().is_some_and(u8::is_ascii_alphanumeric)
        && v.iter().filter(|&&b| b == b'/').count() >= 2
        && v.iter().all(|&b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'/')
        })
        && v.rsplit(|&b| b == b'/').next().is_some_and(|file| {
            file.iter().rposition(|&b| b == b'.').is_some_and(|d| {
                (2..=5).contains(&(file.len() - d - 1))
                    && file[d + 1..].iter().all(u8::is_ascii_lowercase)
                    && d > 0
            })
        })
    {
        return true;
    }
    // A document's anchor after the path (`../guides/values.md#generating-a-hash`,
    // a Markdown link's target): lower-case words joined by `-` or `_`.
    if let Some(h) = v.iter().rposition(|&b| b == b'#') {
        let anchor = &v[h + 1..];
        if h > 0
            && v[..h].contains(&b'/')
            && !anchor.is_empty()
            && anchor
                .iter()
                .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        {
            v = &v[..h];
        }
    }
    // Base64 secrets may start with `/` too: a path has no random-looking segment.
    if v.ends_with(b"=")
        || v.split(|&b| b == b'/' || b == b'\\').any(|seg| {
            seg.len() > 40 || (seg.len() >= 10 && classes(seg) >= 3 && !seg.contains(&b'.'))
        })
    {
        return false;
    }
    v.starts_with(b"/")
        || v.starts_with(b"./")
        || v.starts_with(b"../")
        || v.starts_with(b"~/")
        || v.starts_with(b"file:")
        || (v.len() > 2
            && v[0].is_ascii_alphabetic()
            && v[1] == b':'
            && (v[2] == b'\\' || v[2] == b'/'))
}

/// Whether the name starting at `ns` opens a call's arguments as a quoted
/// literal, and the value ending at `ve` (before its closing quote) is
/// followed by a number: a function of a password and its salt
/// (`scryptSync('password', 'salt', 64)`, `pbkdf2Sync('secret', 'salt',
/// 100000, 64, 'sha512')`), not a setter or a lookup with a default
/// (`getenv("PASSWORD", "v")`), which take a name and a value only.
fn derived_from_literals(hay: &[u8], ns: usize, ve: usize) -> bool {
    let opened = hay[..ns.saturating_sub(1)]
        .iter()
        .rev()
        .find(|&&b| b != b' ' && b != b'\t')
        == Some(&b'(');
    let quoted = ns > 0 && matches!(hay[ns - 1], b'"' | b'\'' | b'`');
    let rest = hay.get(ve + 1..).unwrap_or_default();
    let rest = &rest[rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()..];
    let number = rest.strip_prefix(b",").is_some_and(|r| {
        r.iter()
            .find(|&&b| b != b' ' && b != b'\t')
            .is_some_and(u8::is_ascii_digit)
    });
    opened && quoted && matches!(hay.get(ve), Some(b'"' | b'\'' | b'`')) && number
}

/// Whether the name `hay[ns..ne]` is a piece of a run of random letters
/// and digits: a keyword inside a base64 blob (`…AHhJPwDgSQUA…=="`, its
/// `PwD`) began the match after a letter, a digit, `+` or `/`, and the 24
/// or more letters and digits from there hold a digit and read as no
/// words. A name a person wrote starts at a word's start, or reads as
/// words from its keyword on (`dbPasswordHash`). Only the byte before the
/// name is read, as other name tests do: the run's start may lie outside
/// the rule's window.
fn random_run_name(hay: &[u8], (ns, ne): (usize, usize)) -> bool {
    let name = &hay[ns..ne];
    ns > 0
        && (hay[ns - 1].is_ascii_alphanumeric() || matches!(hay[ns - 1], b'+' | b'/'))
        && name.len() >= 24
        && name.iter().all(u8::is_ascii_alphanumeric)
        && name.iter().any(u8::is_ascii_digit)
        && !reads_as_words(name)
}

/// A cloud resource name (Google's AIP-122 form, which `gcloud --kms-key=`
/// and `--secret=` flags take): collections and ids in turn, at least two
/// of each (`projects/my-proj/secrets/db-pass/versions/3`,
/// `projects/*/locations/*/keyRings/*/cryptoKeys/*`,
/// `projects/PROJECT/secrets/SECRET`). A collection is a lower-case or
/// camel-case name of 3+ letters made of words; an id is `*`, `-` or a
/// short name without a random-looking run (base64 has capitals, digits
/// and letters mixed, and no collection of words every other segment).
/// A setting's name may come first (`--validation-shared-key=
/// 'secret_version=projects/P/secrets/S/versions/V'`).
fn resource_name(v: &[u8]) -> bool {
    let v = match v.iter().position(|&b| b == b'=') {
        Some(e) if e > 0 && identifier(&v[..e]) => &v[e + 1..],
        _ => v,
    };
    let mut segments = 0;
    for (k, seg) in v.split(|&b| b == b'/').enumerate() {
        segments += 1;
        let ok = if k % 2 == 0 {
            seg.len() >= 3
                && seg[0].is_ascii_lowercase()
                && seg.iter().all(u8::is_ascii_alphabetic)
                && identifier_like(seg)
                && reads_as_words(seg)
        } else {
            matches!(seg, b"*" | b"-")
                || (!seg.is_empty()
                    && seg.len() <= 63
                    && seg
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                    && !(seg.len() >= 10 && classes(seg) >= 3 && !reads_as_words(seg)))
        };
        if !ok {
            return false;
        }
    }
    segments >= 4
}

fn is_url(v: &[u8]) -> bool {
    let v = trim(v);
    match find(v, b"://") {
        Some(i) if i > 0 => v[..i]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')),
        _ => false,
    }
}

fn is_public_material(v: &[u8]) -> bool {
    let v = trim(v);
    for p in [
        &b"ssh-rsa "[..],
        b"ssh-ed25519 ",
        b"ssh-dss ",
        b"ecdsa-sha2-",
        b"sk-ssh-",
        b"sk-ecdsa-",
        b"-----BEGIN",
        b"sha256:",
        b"sha512:",
        b"sha1:",
        b"sha256-",
        b"sha384-",
        b"sha512-",
        b"md5:",
    ] {
        if v.starts_with(p) {
            return true;
        }
    }
    false
}

const STOPWORDS: &[&str] = &[
    "the", "a", "an", "of", "for", "to", "your", "you", "is", "are", "be", "must", "used", "use",
    "with", "and", "or", "in", "on", "this", "that", "will", "not", "should", "enter", "user",
    "users", "account", "password", "secret", "token", "key", "api", "here", "from", "by", "at",
    "it", "as", "if", "when", "new", "old", "please", "required", "optional", "value", "set",
];

/// Prose rather than a passphrase: contains a common English word.
fn is_prose(v: &[u8]) -> bool {
    v.split(|&b| b == b' ').any(|w| {
        STOPWORDS
            .iter()
            .any(|s| w.eq_ignore_ascii_case(s.as_bytes()))
    })
}

/// `^[A-Za-z][a-z]*$`: a dictionary-like word.
fn word_like(v: &[u8]) -> bool {
    !v.is_empty() && v[0].is_ascii_alphabetic() && v[1..].iter().all(u8::is_ascii_lowercase)
}

/// How secret a name looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tier {
    /// `<word>_key` in lower or camel case with a word that is no known
    /// qualifier (`kaggle_key`, `tavilyKey`): the value must look random
    /// as a token does, and be a 20+ character string of one token alphabet
    /// with letters and digits and entropy 3.5 (`item_key: "item-42"`,
    /// `redis_key: "session:9f8e7d6c"` are keys into something).
    Keyed,
    /// Token/key-like names: the value must look random.
    Token,
    /// Password-like names: short human passwords count too.
    Strong,
}

/// Last components that make a name about a secret, not a secret itself.
const EXCLUDED_LAST: &[&str] = &[
    "domain",
    "domains",
    "id",
    "ids",
    // `credentials_identifier=user@example.com`: whose credentials.
    "identifier",
    "identifiers",
    "url",
    "uri",
    "urls",
    "endpoint",
    "file",
    "files",
    "path",
    "paths",
    // `testHtpasswdFileBasename = "authtest.htpasswd"`.
    "basename",
    "filename",
    "dirname",
    "dir",
    "directory",
    "type",
    "types",
    "name",
    "names",
    "length",
    "len",
    "size",
    "count",
    "ttl",
    "expiry",
    "expires",
    "expiration",
    "expire",
    "exp",
    "timeout",
    "header",
    "headers",
    "enabled",
    "enable",
    "disabled",
    "disable",
    "required",
    "version",
    "format",
    // `credentialsCharset = "ISO-8859-1"`, `passwordEncoding = "UTF-8"`.
    "charset",
    "encoding",
    "encoder",
    "algorithm",
    "algorithms",
    "alg",
    "encryption",
    "hashing",
    "prefix",
    "suffix",
    "hint",
    "policy",
    "mode",
    "scope",
    "scopes",
    "kind",
    "method",
    "methods",
    // `--logs.auth.extract-selectors=SrcK8S_Namespace`, `ruleTokenDelimiter = ";rule-shard-token"`.
    "selector",
    "selectors",
    "delimiter",
    "separator",
    "field",
    "fields",
    "info",
    "level",
    "capabilities",
    "response",
    "request",
    "result",
    "results",
    "client",
    "factory",
    "builder",
    "limit",
    "limits",
    "max",
    "min",
    "rotation",
    // `adminSecretNamespace: kube-system`,
    // `password_rotation_schedule_expression = "rate(15 days)"`.
    "namespace",
    "namespaces",
    "expression",
    "schedule",
    "pattern",
    "regex",
    "env",
    "var",
    "provider",
    "source",
    "store",
    "manager",
    "mgr",
    "protocol",
    "purpose",
    "choice",
    "protection",
    "realm",
    "location",
    "server",
    "host",
    "port",
    "user",
    "username",
    "usr",
    "login",
    "email",
    "reset",
    "changed",
    "change",
    "updated",
    "created",
    "at",
    "date",
    "time",
    "label",
    "description",
    "desc",
    "help",
    "text",
    "message",
    "msg",
    "prompt",
    "placeholder",
    "example",
    "char",
    "chars",
    "index",
    "idx",
    "column",
    "col",
    "table",
    "stdin",
    "lifetime",
    "duration",
    "age",
    "days",
    "hours",
    "seconds",
    "secs",
    "ms",
    "interval",
    "in",
    "period",
    "timestamp",
    "ts",
    "status",
    "state",
    "error",
    "errors",
    // `reason = AuthFail:sts:5_rsn:0` (macOS `corecaptured`).
    "fail",
    "failed",
    "failure",
    "failures",
    "valid",
    "validity",
    "strength",
    "complexity",
    "rules",
    "rule",
    "requirements",
    "tokens",
    "keys",
    "secrets",
    "passwords",
    "usage",
    "used",
    "budget",
    "remaining",
    "total",
    "number",
    "num",
    "generator",
    "class",
    "handler",
    "callback",
    // A function given where the secret is made (`auth_func=oauth2_parameters`).
    "func",
    "fn",
    "hook",
    "template",
    "sent",
    "ref",
    "reference",
    "refs",
    "arn",
    "uuid",
    "fingerprint",
    "sha",
    "digest",
    "checksum",
    "len",
    "hash_algorithm",
    "set",
    "list",
    "map",
    "store",
    "storage_class",
    "kid",
    "pair",
    "pairs",
    "ring",
    "chain",
    "cmd",
    "command",
    "script",
    "auth_method",
    "flow",
    "grant",
    "issuer",
    "audience",
    "aud",
    "iss",
    "sub",
    "exists",
    "present",
    "configured",
    "visible",
    "invisible",
    "input",
    "field",
    "dialog",
    "modal",
    "button",
    "form",
    "page",
    "screen",
    "view",
    "link",
    "title",
    "tooltip",
    "mask",
    "masked",
    "toggle",
    "icon",
    "param",
    "parameter",
    "params",
    "arg",
    "args",
    "option",
    "options",
    "opts",
    "spec",
    "schema",
    "check",
    "checks",
    "validator",
    "validation",
    "policy_id",
    "salt_rounds",
    "rounds",
    "iterations",
    "cost",
    "bits",
];

/// Components that make a secret name a non-secret wherever they stand
/// before its last word (`next_sync_token`, `max_output_tokens`,
/// `show_api_key`, `public_api_key`), and two-word tails that do
/// (`primary_key`, `sort_key`).
const EXCLUDED_QUALIFIERS: &[&str] = &[
    "next",
    "prev",
    "previous",
    "max",
    "num",
    "public",
    "pub",
    "publishable",
    "tokenizer",
    "forgot",
    "show",
    "hide",
    "has",
    "is",
    "use",
    "uses",
    "enable",
    "enabled",
    "require",
    "requires",
    "allow",
    "allows",
    "no",
    "skip",
    "min",
    "length",
    "total",
    "count",
    "remember",
    "expose",
    "rotate",
    "generate",
    "validate",
    "sign",
    "hotkey",
    "shortcut",
    "keyboard",
    "keyed",
    "emoji",
    "mouse",
    "press",
    "pressed",
    "up",
    "down",
    "cache_read",
    "verify_ssl",
    "primary_key",
    "foreign_key",
    // A render or encoding pass (`hwScaleFilterFirstPass`, `two_pass`).
    "first_pass",
    "second_pass",
    "final_pass",
    "single_pass",
    "multi_pass",
    "two_pass",
    "render_pass",
    // nginx's directives that pass a request on to a server
    // (`fastcgi_pass  unix:/var/run/php-fpm.sock;`). Not `proxy_pass`:
    // `PROXY_PASS` is a proxy's password (nginx's values are URLs).
    "fastcgi_pass",
    "uwsgi_pass",
    "scgi_pass",
    "grpc_pass",
    "memcached_pass",
    "sort_key",
    "partition_key",
    "object_key",
    "key_value",
    "api_version",
];

/// Components that say what kind of key or token a name holds when they
/// stand right before that word (`page_token`, `cache_key`,
/// `completion_tokens`, `s3_object_key`), and only then: `S3_SECRET_KEY`,
/// `REDIS_CACHE_PASSWORD`, `MESSAGE_BIRD_API_KEY`, `INPUT_GITHUB_TOKEN` and
/// `EVENT_HUB_KEY` name secrets.
const KIND_QUALIFIERS: &[&str] = &[
    "meta",
    "progress",
    // AWS's concurrency, pagination and ordering tokens (`--lock-token`,
    // `--change-token`, `--starting-token`, `--sequence-token`).
    "lock",
    "change",
    "starting",
    "sequence",
    "page",
    "pagination",
    "continuation",
    "cursor",
    "sync",
    "resume",
    "cache",
    "foreign",
    "sort",
    "partition",
    "hash",
    "routing",
    "shard",
    "idempotency",
    "dedup",
    "dedupe",
    "deduplication",
    "lookup",
    "i18n",
    "translation",
    "event",
    "group",
    "row",
    "unique",
    "composite",
    "index",
    "join",
    "cancel",
    "cancellation",
    "input",
    "output",
    "completion",
    "prompt",
    "reasoning",
    "cached",
    "lang",
    "locale",
    "map",
    "dict",
    "object",
    "range",
    "s3",
    "bucket",
    "file",
    "message",
    "msg",
    "i",
    "j",
    "k",
    "kv",
    "unicode",
    // A KMS key is named by its id or resource path (`--kms-key=crypto-key2`).
    "kms",
];

/// Qualifiers that turn a bare `key` into a secret name (`api_key`, `signing_key`).
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "access",
    "secret",
    "private",
    "priv",
    "signing",
    "encryption",
    "encrypt",
    "enc",
    "decryption",
    "master",
    "license",
    "licence",
    "client",
    "app",
    "application",
    "auth",
    "service",
    "account",
    "storage",
    "subscription",
    "admin",
    "shared",
    "consumer",
    "webhook",
    "deploy",
    "hmac",
    "jwt",
    "session",
    "crypto",
    "aes",
    "ssh",
    "gpg",
    "pgp",
    "root",
    "cluster",
    "tls",
    "ssl",
    "x509",
    "cert",
    "server_tls",
    "pem",
    "jks",
    "p12",
    "cloud",
    "customer",
    "partner",
    "merchant",
    "developer",
    "dev",
    "prod",
    "live",
    "project",
    "user",
    "write",
    "read",
    "ingest",
    "ingestion",
    "insert",
    "org",
    "organization",
    "team",
    "workspace",
    "install",
    "installation",
    "bot",
    "rest",
    "mgmt",
    "management",
    "primary",
    "secondary",
    "rsa",
    "ecdsa",
    "ed25519",
    "cipher",
    "server",
    "sas",
    "sendgrid",
    "stripe",
    "openai",
    "anthropic",
    "google",
    "maps",
    "firebase",
    "aws",
    "azure",
    "gcp",
    "twilio",
    "mailgun",
    "algolia",
    "pusher",
    "segment",
    "datadog",
    "dd",
    "sentry",
    "honeycomb",
    "rollbar",
    "slack",
    "github",
    "gitlab",
    "npm",
    "pypi",
    "docker",
    "hf",
    "huggingface",
    "cohere",
    "mistral",
    "groq",
    "together",
    "replicate",
    "pinecone",
    "weaviate",
    "qdrant",
    "supabase",
    "vercel",
    "netlify",
    "heroku",
    "cloudflare",
    "cf",
    "sdk",
    "launchdarkly",
    "kaggle",
    "fal",
    "fastly",
    "akamai",
    "mapbox",
    "here_api",
    "openweather",
    "weather",
    "news",
    "search",
    "serp",
    "bing",
    "youtube",
    "spotify",
    "discord",
    "telegram",
    "shopify",
    "square",
    "paypal",
    "braintree",
    "plaid",
    "coinbase",
    "binance",
    "alchemy",
    "infura",
    "etherscan",
    "moralis",
    "elastic",
    "es",
    // Not the data stores (`redis`, `db`, `mongo`, …): in code their
    // `<store>_key` is a key into the store (`redis_key: "session:42"`), so
    // lower-case names of theirs are `Tier::Keyed`.
    "smtp",
    "mail",
    "email",
    "sms",
    "push",
    "fcm",
    "apns",
    "vapid",
    "recaptcha",
    "captcha",
    "turnstile",
    "hcaptcha",
    "analytics",
    "tracking",
    "newrelic",
    "nr",
    "splunk",
    "logdna",
    "loggly",
    "papertrail",
    "bugsnag",
    "launchdarkly",
    "optimizely",
    "mixpanel",
    "amplitude",
    "intercom",
    "zendesk",
    "hubspot",
    "salesforce",
    "jira",
    "confluence",
    "atlassian",
    "linear",
    "notion",
    "airtable",
    "asana",
    "trello",
    "figma",
    "dropbox",
    "box",
    "okta",
    "auth0",
    "clerk",
    "cognito",
    "keycloak",
    "oidc",
    "oauth",
    "sso",
    "saml",
    "ldap",
    "kerberos",
    "vault",
    "kms",
    "secret_access",
    "x_api",
    "apim",
    "ocp",
    "goog",
    "rapidapi",
    "rapid",
    "openrouter",
    "deepseek",
    "xai",
    "perplexity",
    "voyage",
    "jina",
    "fireworks",
    "anyscale",
    "octo",
    "deepgram",
    "assemblyai",
    "elevenlabs",
    "resend",
    "postmark",
    "mailchimp",
    "mandrill",
    "sparkpost",
    "brevo",
    "sendinblue",
    "encryption_at_rest",
    "data",
    "field_encryption",
    "cookie",
    "csrf",
    "signing_secret",
    "secret_key",
    "access_key",
    "ssh_private",
    "sig",
    "signature",
    "verification",
    "verify",
    "backup",
    "recovery",
    "unlock",
    "wallet",
    "mnemonic",
    "seed",
    "node",
    "rpc",
    "infra",
];

/// Words that are password-like on their own or as a suffix.
const STRONG_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passwort",
    "pass",
    "pwd",
    "pswd",
    "secret",
    "psk",
    "privatekey",
    "private_key",
    "secretkey",
];

/// Words that are token-like on their own or as a suffix.
const TOKEN_SUFFIXES: &[&str] = &[
    "token",
    "apikey",
    "accesskey",
    "authkey",
    "masterkey",
    "signingkey",
    "encryptionkey",
    "apisecret",
    "credential",
    "credentials",
    "creds",
    "cred",
    "auth",
    "bearer",
    "jwt",
    "sessionkey",
    "licensekey",
    "deploykey",
    "clientkey",
    "appkey",
    "serverkey",
    "userkey",
    "subscriptionkey",
    "storagekey",
    "accountkey",
    "sharedkey",
    "hmackey",
    "webhookkey",
];

const PASS_EXCEPTIONS: &[&str] = &[
    "askpass",
    "bypass",
    "compass",
    "encompass",
    "surpass",
    "trespass",
    "overpass",
    "underpass",
    "firstpass",
    "multipass",
    "onepass",
    "impass",
    "passthrough",
    "passthru",
    "passenger",
    "passive",
    "passage",
    "passport",
    "passes",
    "passed",
    "passing",
    "passable",
    "subpass",
    "renderpass",
    "singlepass",
    "twopass",
    "skippass",
];

/// FNV-1a: the word sets are looked up for most keyword hits (short ASCII
/// words), where SipHash's setup dominates.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type WordSet = std::collections::HashSet<&'static str, std::hash::BuildHasherDefault<Fnv>>;

fn set_of(
    words: &'static [&'static str],
    cell: &'static std::sync::OnceLock<WordSet>,
) -> &'static WordSet {
    cell.get_or_init(|| words.iter().copied().collect())
}

fn excluded_last() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    set_of(EXCLUDED_LAST, &S)
}

fn excluded_qualifiers() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    set_of(EXCLUDED_QUALIFIERS, &S)
}

fn kind_qualifiers() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    set_of(KIND_QUALIFIERS, &S)
}

/// The words a [`KIND_QUALIFIERS`] entry qualifies.
fn key_like(word: &str) -> bool {
    matches!(word, "key" | "keys" | "token" | "tokens" | "tok" | "toks")
}

/// Whether the words before the last of `comps` (lower case) make the name
/// a non-secret: an [`EXCLUDED_QUALIFIERS`] word anywhere, or a
/// [`KIND_QUALIFIERS`] word right before a key or token word.
fn qualified_away(comps: &[String]) -> bool {
    let Some((_, rest)) = comps.split_last() else {
        return false;
    };
    let secret_word = |w: &str| matches!(w, "secret" | "secrets");
    rest.iter().enumerate().any(|(i, c)| {
        excluded_qualifiers().contains(c.as_str())
            || (kind_qualifiers().contains(c.as_str()) && key_like(&comps[i + 1]))
            || (c == "existing" && secret_word(&comps[i + 1]))
            || (i + 2 == comps.len()
                && SECRET_OBJECT_QUALIFIERS.contains(&c.as_str())
                && secret_word(&comps[i + 1]))
    })
}

/// A name right before `://` is a URL's scheme, not a name assigned to
/// (git's `credential.https://host/.helper=`).
fn url_scheme(hay: &[u8], ne: usize) -> bool {
    hay.get(ne..ne + 3) == Some(b"://")
}

/// Whether the word written apart before the name `[ns, ne)` qualifies it
/// away as if joined to it (`Next page token: v` reads as
/// `next_page_token`, `max token = 5`, `Public key: ssh-ed25519 …`): one
/// word of letters, after a space or a tab, that is no field's value
/// (`mode=public token=v` keeps its token). Not before an `=` joined to
/// the name: `name=value` is a field of its own, whatever word precedes
/// it (`No password=v`, `max token=5` fails as a value anyway).
fn qualified_apart(hay: &[u8], ns: usize, ne: usize) -> bool {
    if ns < 2 || !matches!(hay[ns - 1], b' ' | b'\t') || hay.get(ne) == Some(&b'=') {
        return false;
    }
    let we = ns - 1;
    let mut ws = we;
    while ws > 0 && we - ws <= 24 && hay[ws - 1].is_ascii_alphabetic() {
        ws -= 1;
    }
    if ws == we || we - ws > 24 {
        return false;
    }
    if ws > 0
        && !matches!(
            hay[ws - 1],
            b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'(' | b'#' | b'*' | b'>'
        )
    {
        return false;
    }
    let mut comps = vec![hay[ws..we]
        .to_ascii_lowercase()
        .iter()
        .map(|&b| b as char)
        .collect()];
    comps.extend(components(&hay[ns..ne]));
    comps.len() >= 2 && qualified_away(&comps)
}

/// Words right before a last `secret`/`secrets` that make the name name a
/// Kubernetes Secret object, by what it holds (Helm values: `tlsSecret:
/// grafana-tls`, `jksSecret`, `initScriptsSecret`, `extraEnvVarsSecret`,
/// `imagePullSecrets`); `existing` before `secret` anywhere does too
/// (`existingSecret: all-my-secrets`, `existingSecretPasswordKey:
/// password`). A secret itself is named by its use (`jwtSecret`,
/// `clientSecret`, `webhookSecret`), which none of these is.
const SECRET_OBJECT_QUALIFIERS: &[&str] = &[
    "tls",
    "ssl",
    "cert",
    "certs",
    "certificate",
    "certificates",
    "ca",
    "jks",
    "keystore",
    "truststore",
    "scripts",
    "vars",
    "pull",
];

/// [`KEY_QUALIFIERS`] and the one-word services of
/// [`crate::builtin::VENDOR_NAMES`] (`confluent_key`, `etsy_key`).
fn key_qualifiers() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let vendors = crate::builtin::VENDOR_NAMES
            .iter()
            .filter(|n| !n.contains('_'));
        KEY_QUALIFIERS.iter().chain(vendors).copied().collect()
    })
}

fn placeholder_words() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    set_of(PLACEHOLDER_WORDS, &S)
}

/// The length of the longest [`PLACEHOLDER_WORDS`] entry (a longer value is
/// none of them).
fn placeholder_words_max() -> usize {
    const MAX: usize = {
        let mut m = 0;
        let mut i = 0;
        while i < PLACEHOLDER_WORDS.len() {
            if PLACEHOLDER_WORDS[i].len() > m {
                m = PLACEHOLDER_WORDS[i].len();
            }
            i += 1;
        }
        m
    };
    MAX
}

/// Splits a name into lowercase components at `_ - . : / space` and camelCase humps.
pub(crate) fn components(name: &[u8]) -> Vec<String> {
    component_spans(name)
        .map(|(s, e)| {
            name[s..e]
                .iter()
                .map(|&b| b.to_ascii_lowercase() as char)
                .collect()
        })
        .collect()
}

/// The [`components`] that name what `name` holds: a trailing number is
/// dropped (`API_KEY_2` is a key, `PuTTY-User-Key-File-3` a file), and a
/// number ending a secret word (`password1` is a password).
fn named_components(name: &[u8]) -> Vec<String> {
    let mut comps = components(name);
    while comps.len() > 1
        && comps
            .last()
            .is_some_and(|c| c.bytes().all(|b| b.is_ascii_digit()))
    {
        comps.pop();
    }
    // A numbered secret word is that word (`password1`, `api_token2`,
    // `apikey3`); other numbered words keep their digits (`oauth2`,
    // `sha256`, `base64`).
    if let Some(last) = comps.last_mut() {
        let word = last.trim_end_matches(|c: char| c.is_ascii_digit());
        if word.len() < last.len() && numbered_secret_word(word) {
            last.truncate(word.len());
        }
    }
    comps
}

/// Whether `word`, numbered, is still a secret word: one of
/// [`STRONG_WORDS`] or [`TOKEN_SUFFIXES`], or `key` — not `auth`, which
/// numbered is a protocol's version (`OAuth2` splits as `o`, `auth2`).
fn numbered_secret_word(word: &str) -> bool {
    word == "key"
        || STRONG_WORDS.contains(&word)
        || (word != "auth" && TOKEN_SUFFIXES.contains(&word))
}

/// Where the [`components`] of `name` lie (start, end), without copying them.
fn component_spans(name: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let n = name.len();
    let mut i = 0;
    let mut start: Option<usize> = None;
    std::iter::from_fn(move || {
        while i < n {
            let b = name[i];
            let at = i;
            i += 1;
            if !b.is_ascii_alphanumeric() {
                if let Some(s) = start.take() {
                    return Some((s, at));
                }
                continue;
            }
            match start {
                None => start = Some(at),
                Some(s) if b.is_ascii_uppercase() => {
                    let prev = name[at - 1];
                    let next_lower = at + 1 < n && name[at + 1].is_ascii_lowercase();
                    if prev.is_ascii_lowercase()
                        || prev.is_ascii_digit()
                        || (prev.is_ascii_uppercase() && next_lower)
                    {
                        start = Some(at);
                        return Some((s, at));
                    }
                }
                Some(_) => {}
            }
        }
        start.take().map(|s| (s, n))
    })
}

/// Whether the name of a typed declaration names a secret: as
/// [`classify_name`], or a word `key`, `tok`, `pw` of it (a declaration with a
/// string literal is a value, so a bare `key` counts here).
fn typed_name(name: &[u8]) -> bool {
    if classify_name(name).is_some() {
        return true;
    }
    // A bare `key` / `tok` word, unless the name says what else it is
    // (`PROGRESS_TOKEN_FIELD`, `STOP_REASON_MAX_TOKEN`, `SERVER_INFO_META_KEY`).
    let comps = named_components(name);
    let Some(last) = comps.last() else {
        return false;
    };
    if excluded_last().contains(last.as_str()) || qualified_away(&comps) {
        return false;
    }
    comps.iter().any(|c| {
        matches!(
            c.as_str(),
            "key" | "tok" | "pw" | "apikey" | "token" | "secret"
        )
    })
}

/// Primitive type names of common languages (a value that is one of these
/// after `name:` is a type annotation).
const TYPE_WORDS: &[&str] = &[
    "str", "string", "String", "number", "Number", "boolean", "Boolean", "bool", "int", "Int",
    "integer", "Integer", "i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128",
    "usize", "isize", "f32", "f64", "char", "any", "Any", "unknown", "object", "Object", "bytes",
    "byte", "rune", "float", "Float", "double", "Double", "long", "Long", "void", "Unit", "never",
    "bigint", "symbol", "None", "Self", "dict", "list", "tuple", "Optional", "Text",
];

/// After `name:` (the value starting at `vs`, the name ending at `ne`): true
/// when the colon does not assign — a path (`Token::X`), a grep prefix
/// (`file.txt:12:`), or a type annotation (`token: &str`, `pwd: *mut passwd`,
/// `eq_token: Token![=]`, `refreshToken: string)`, `key: String = "v"`).
pub(crate) fn colon_not_assignment(hay: &[u8], ne: usize, vs: usize) -> bool {
    let Some(c) = hay[ne..vs].iter().position(|&b| b == b':').map(|i| ne + i) else {
        return false;
    };
    if hay[ne..vs].contains(&b'=') {
        return false;
    }
    if hay.get(c + 1) == Some(&b':') || (c > 0 && hay[c - 1] == b':') {
        return true;
    }
    if after_member_modifier(hay, ne) {
        return true;
    }
    // Maven / Gradle coordinates: `io.jsonwebtoken:jjwt-jackson:0.11.2`.
    if hay[ne..c].is_empty()
        && hay[..ne]
            .iter()
            .rev()
            .take_while(|&&b| is_name_byte(b))
            .any(|&b| b == b'.')
        && c + 1 == vs
    {
        let v = &hay[vs..];
        let n = v
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':'))
            .count();
        let v = &v[..n];
        if v.iter().all(|b| !b.is_ascii_uppercase())
            && v.windows(3)
                .any(|w| w[0].is_ascii_digit() && w[1] == b'.' && w[2].is_ascii_digit())
        {
            return true;
        }
    }
    number_or_type_after(hay, vs)
}

/// Whether the line from `vs` (after `name:`) opens with a grep line
/// number (`path:LINE:`) or a type ([`number_or_type`]). Those read a
/// word (name bytes and dots), the blanks after it and at most 11 bytes
/// more: the line is looked at that far (plus 16) and no further, so that
/// a long line of `secret: v secret: v …` is not read to its end for each
/// value (it was half of the 2 MB/s such a line ran at).
fn number_or_type_after(hay: &[u8], vs: usize) -> bool {
    let word = vs
        + hay[vs..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            .count();
    let blanks = hay[word..]
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    let seen = (word + blanks + 16).min(hay.len());
    let line_end = memchr::memchr2(b'\n', b'\r', &hay[vs..seen]).map_or(seen, |i| vs + i);
    number_or_type(&hay[vs..line_end])
}

/// Whether `rest` (the rest of a line after `name:`) opens with a grep line
/// number (`path:LINE:`; context lines `path-LINE-` hold no colon here and
/// `password: 5-ER8TH6Bw` is a value) or a type ([`type_annotation`]).
fn number_or_type(rest: &[u8]) -> bool {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && rest.get(digits) == Some(&b':') {
        return true;
    }
    type_annotation(rest)
}

/// Whether the 40 characters `[s, e)` are a piece of a path or an ARN, not
/// an AWS secret key: a file's name follows (`awscli/customizations/s3/fileinfobuilder.py`,
/// `…/API/RESTBucketPUTacl.html`), or the word they end opens with `arn:`
/// (`arn:aws:servicecatalog:us-west-2:813737243517:/applications/03axw…`).
fn path_or_arn_part(hay: &[u8], (s, e): (usize, usize)) -> bool {
    let rest = &hay[e..];
    let ext = rest.strip_prefix(b".").map_or(0, |r| {
        r.iter().take_while(|b| b.is_ascii_lowercase()).count()
    });
    if (1..=5).contains(&ext) && rest.get(ext + 1).is_none_or(|b| !b.is_ascii_alphanumeric()) {
        return true;
    }
    let start = hay[..s]
        .iter()
        .rposition(|&b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b'(' | b'='))
        .map_or(0, |k| k + 1);
    hay[start..s].len() >= 4 && hay[start..start + 4].eq_ignore_ascii_case(b"arn:")
}

/// Whether the value at `vs` is an id's (`"id": "…"`, `credential_id:
/// …`, `"rawId": "…"`): a WebAuthn credential's id is 64 random bytes in
/// base64, the shape of an Azure storage key, and names no secret.
fn after_id_name(hay: &[u8], vs: usize) -> bool {
    let mut e = vs;
    while e > 0 && matches!(hay[e - 1], b'"' | b'\'' | b' ' | b'\t' | b':' | b'=') {
        e -= 1;
    }
    let name = &hay[name_start(hay, e, 0)..e];
    e < vs
        && (name.eq_ignore_ascii_case(b"id")
            || name.ends_with(b"_id")
            || name.ends_with(b"-id")
            || name.ends_with(b"Id")
            || name.ends_with(b"ID"))
}

/// Whether the name ending at `ne` follows a class member's modifier
/// (TypeScript's `public password: InputLocator`, `private readonly apiKey:
/// ApiKeyService;`, `declare token?: string`): its `:` opens the member's
/// type, whatever the type's form (`public mode: "dark" | "light"`); a
/// value comes after `=`.
fn after_member_modifier(hay: &[u8], ne: usize) -> bool {
    let ns = name_start(hay, ne, 0);
    let mut e = ns;
    while e > 0 && matches!(hay[e - 1], b' ' | b'\t') {
        e -= 1;
    }
    if e == ns {
        return false;
    }
    let mut s = e;
    while s > 0 && hay[s - 1].is_ascii_lowercase() {
        s -= 1;
    }
    (s == 0 || !is_name_byte(hay[s - 1]))
        && matches!(
            &hay[s..e],
            b"public"
                | b"private"
                | b"protected"
                | b"readonly"
                | b"declare"
                | b"override"
                | b"abstract"
        )
}

/// Whether `rest` (the text after `name:`) starts with a type. It reads a
/// word of name bytes and dots, the blanks after it and at most 11 bytes
/// past them (see [`number_or_type_after`]).
fn type_annotation(rest: &[u8]) -> bool {
    let mut i = 0;
    if rest.first() == Some(&b'&') {
        // `&str`, `&'static str`, `&mut T`, `&[u8]`
        return rest
            .get(1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'\'' || b == b'[' || b == b'_');
    }
    if rest.starts_with(b"*mut ") || rest.starts_with(b"*const ") {
        return true;
    }
    while i < rest.len() && (rest[i].is_ascii_alphanumeric() || rest[i] == b'_') {
        i += 1;
    }
    if i == 0 || !rest[0].is_ascii_alphabetic() && rest[0] != b'_' {
        return false;
    }
    // `typing.Optional[bytes]`, `rsa.RSAPrivateKey,`: a type in a module.
    let mut seg = 0;
    while rest.get(i) == Some(&b'.')
        && rest
            .get(i + 1)
            .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
    {
        seg = i + 1;
        i += 1;
        while i < rest.len() && (rest[i].is_ascii_alphanumeric() || rest[i] == b'_') {
            i += 1;
        }
    }
    if seg > 0 {
        let last = &rest[seg..i];
        let class = last[0].is_ascii_uppercase() && last.iter().any(u8::is_ascii_lowercase);
        return match rest.get(i) {
            Some(b'[') => true,
            Some(b',' | b')' | b']' | b'|') => class,
            _ => false,
        };
    }
    let id = &rest[..i];
    // `std::string::String`, `Token![=]`, `Option<String>`, `Vec<u8>`, `[u8; 32]`.
    let next = rest.get(i).copied();
    let after_next = rest.get(i + 1).copied();
    // A macro (`Token![=]`, `vec!(…)`) or a generic (`Option<String>`,
    // `Vec<&'a str>`), not a password holding `!` (`HQx88HQj!9gp`).
    let macro_type = next == Some(b'!') && matches!(after_next, Some(b'[' | b'(' | b'{'));
    let generic_type = next == Some(b'<')
        && after_next.is_some_and(|b| {
            b.is_ascii_alphabetic() || matches!(b, b'_' | b'\'' | b'&' | b'[' | b'(' | b'*')
        });
    if macro_type || generic_type || rest[i..].starts_with(b"::") {
        return true;
    }
    let mut j = i;
    while j < rest.len() && matches!(rest[j], b' ' | b'\t') {
        j += 1;
    }
    let after = rest.get(j).copied();
    let assign_follows = after == Some(b'=') && !matches!(rest.get(j + 1), Some(b'=') | Some(b'>'));
    let is_word = std::str::from_utf8(id).is_ok_and(|w| TYPE_WORDS.contains(&w));
    // A nullable type (`String?,`, `str? = null`, `String?=null`) ends at
    // its `?`; in `Sad?ngMdf3` and `QpX?=fzPf4E` the `?` is part of a value.
    let default_after = |k: usize| {
        let d = rest.get(k..).unwrap_or_default();
        d.first().is_none_or(|b| !b.is_ascii_alphanumeric())
            || [&b"null"[..], b"nil", b"None", b"undefined"]
                .iter()
                .any(|w| d.starts_with(w))
    };
    let nullable = after == Some(b'?')
        && match rest.get(j + 1) {
            Some(b'=') => default_after(j + 2),
            next => matches!(
                next,
                None | Some(b',' | b')' | b' ' | b';' | b'>' | b'\r' | b'\n' | b']' | b'}')
            ),
        };
    let code_punct = nullable
        || matches!(
            after,
            None | Some(b',')
                | Some(b')')
                | Some(b';')
                | Some(b'{')
                | Some(b'>')
                | Some(b'|')
                | Some(b'[')
                | Some(b']')
        );
    // A class name (`TokenizeResult`, `PKCS7PrivateKeyTypes`).
    let camel = id[0].is_ascii_uppercase()
        && id.iter().any(u8::is_ascii_lowercase)
        && id.iter().all(u8::is_ascii_alphanumeric)
        && (identifier_like(id) && id.iter().all(u8::is_ascii_alphabetic) || reads_as_words(id));
    // `key: String = "v"`, `startToken:Token=None` (a Python parameter's
    // default); not `db_pw: rgp3xh8QpHJW=7vahd` (a value holding `=`).
    if assign_follows {
        let default = &rest[j + 1..];
        let code_default = [
            &b"None"[..],
            b"null",
            b"nil",
            b"undefined",
            b"True",
            b"False",
        ]
        .iter()
        .any(|w| {
            default.starts_with(w)
                && default
                    .get(w.len())
                    .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_')
        });
        let typeish = j > i || is_word || (camel && code_default);
        return typeish && id.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
    }
    if is_word && (code_punct || after == Some(b'}') || after == Some(b'/')) {
        return true;
    }
    // C types: `__u32,`, `uid_t;`, `uint8_t)`.
    let c_type = (id.starts_with(b"__") || id.ends_with(b"_t")) && id.len() > 2;
    if c_type && after.is_some() && code_punct {
        return true;
    }
    // `TokenizeResult,` / `PasswdEntry)`: a CamelCase name followed by code punctuation.
    camel && after.is_some() && code_punct
}

/// Whether [`classify_name`] may accept `name`: a quick look at its words
/// (no allocation) rejects the common non-secret names (`token_count`,
/// `key_id`, `secret_name`, `next_page_token`), the rest is classified.
pub(crate) fn name_may_be_secret(name: &[u8]) -> bool {
    // Component boundaries as in `components`.
    let n = name.len();
    let mut comps: [(usize, usize); 12] = [(0, 0); 12];
    let mut k = 0;
    let mut cs: Option<usize> = None;
    for i in 0..=n {
        let b = if i < n { name[i] } else { b'_' };
        let boundary = !b.is_ascii_alphanumeric()
            || (b.is_ascii_uppercase()
                && cs.is_some()
                && i > 0
                && (name[i - 1].is_ascii_lowercase()
                    || name[i - 1].is_ascii_digit()
                    || (name[i - 1].is_ascii_uppercase()
                        && i + 1 < n
                        && name[i + 1].is_ascii_lowercase())));
        if boundary {
            if let Some(s) = cs.take() {
                if k == comps.len() {
                    // Long names: classify the slow way.
                    return classify_name(name).is_some();
                }
                comps[k] = (s, i);
                k += 1;
            }
        }
        if b.is_ascii_alphanumeric() && cs.is_none() {
            cs = Some(i);
        }
    }
    // A trailing number names nothing (as in `named_components`).
    while k > 1
        && name[comps[k - 1].0..comps[k - 1].1]
            .iter()
            .all(u8::is_ascii_digit)
    {
        k -= 1;
    }
    if k == 0 {
        return false;
    }
    let mut buf = [0u8; 40];
    let word = |(s, e): (usize, usize), buf: &mut [u8; 40]| -> Option<usize> {
        if e - s > buf.len() {
            return None;
        }
        for (d, &b) in buf.iter_mut().zip(&name[s..e]) {
            *d = b.to_ascii_lowercase();
        }
        Some(e - s)
    };
    if let Some(l) = word(comps[k - 1], &mut buf) {
        if std::str::from_utf8(&buf[..l]).is_ok_and(|w| excluded_last().contains(w)) {
            return false;
        }
    }
    let mut next = [0u8; 40];
    for j in 0..k - 1 {
        let Some(l) = word(comps[j], &mut buf) else {
            continue;
        };
        let Ok(w) = std::str::from_utf8(&buf[..l]) else {
            continue;
        };
        if excluded_qualifiers().contains(w) {
            return false;
        }
        if kind_qualifiers().contains(w) {
            let l = word(comps[j + 1], &mut next).unwrap_or(0);
            if std::str::from_utf8(&next[..l]).is_ok_and(key_like) {
                return false;
            }
        }
    }
    classify_name(name).is_some()
}

/// Classifies a variable / key / flag / header name (remembered per thread
/// for recent short names: secret-dense text repeats the same few names,
/// and the classification splits and looks up every word of them).
pub(crate) fn classify_name(name: &[u8]) -> Option<Tier> {
    thread_local! {
        static MEMO: std::cell::RefCell<TwoWay<Option<Tier>>> =
            std::cell::RefCell::new(TwoWay::new(256, None));
    }
    if name.is_empty() || name.len() > NAME_MEMO_LEN {
        return classify_name_uncached(name);
    }
    let set = match MEMO.with(|m| m.borrow().get(name)) {
        Ok(t) => return t,
        Err(set) => set,
    };
    let t = classify_name_uncached(name);
    MEMO.with(|m| m.borrow_mut().put(set, name, t));
    t
}

fn classify_name_uncached(name: &[u8]) -> Option<Tier> {
    // `Token.Name.Function`, `_PassArg.eval_context`: an attribute of a
    // class is named by its own last segment.
    if let Some(dot) = name.iter().rposition(|&b| b == b'.') {
        let first = name
            .iter()
            .position(|&b| b != b'_')
            .map_or(&name[..0], |k| &name[k..]);
        if first.len() >= 2
            && first[0].is_ascii_uppercase()
            && first[1].is_ascii_lowercase()
            && dot + 1 < name.len()
        {
            return classify_name_uncached(&name[dot + 1..]);
        }
    }
    // Environment-style names known not to hold secrets (`PWD`, `OLDPWD`,
    // `SSH_AUTH_SOCK`, `XDG_SESSION_*`): the shared secret-name rule decides.
    // Lower-case `pwd` stays a password name (MongoDB's `pwd: "…"`).
    // The last word counts (`bin PWD` in `PATH=/usr/bin PWD=/srv/x`).
    let tail = name
        .rsplit(|&b| b == b' ' || b == b'\t')
        .next()
        .unwrap_or(name);
    if tail
        .iter()
        .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && std::str::from_utf8(tail).is_ok_and(crate::known::is_known_not_secret)
    {
        return None;
    }
    let comps = named_components(name);
    let last = comps.last()?;
    // `PASSWORD_ENCODER_CIPHER_ALGORITHM_DEFAULT`: the default of what the
    // word before it names; `ldapPasswordComplexityCode`,
    // `auth_status_code`: its code — not the code of an action, which
    // grants it (`password_reset_code`, `recovery_code`).
    if comps.len() >= 2 {
        let before = comps[comps.len() - 2].as_str();
        let of_action = matches!(
            before,
            "reset"
                | "recovery"
                | "recover"
                | "verification"
                | "verify"
                | "confirm"
                | "confirmation"
                | "activation"
                | "login"
                | "signin"
                | "invite"
                | "invitation"
                | "backup"
                | "pairing"
                | "access"
                | "auth"
        );
        let code = matches!(last.as_str(), "code" | "codes") && !of_action;
        if (code || matches!(last.as_str(), "default" | "defaults"))
            && excluded_last().contains(before)
        {
            return None;
        }
    }
    if excluded_last().contains(last.as_str()) {
        return None;
    }
    // Two-component exclusions on the joined tail (`primary_key`, `sort_key`).
    if comps.len() >= 2 {
        let joined = format!("{}_{}", comps[comps.len() - 2], last);
        if excluded_qualifiers().contains(joined.as_str()) {
            return None;
        }
    }
    if qualified_away(&comps) {
        return None;
    }
    let mut best: Option<Tier> = None;
    let mut bump = |t: Tier| {
        best = Some(match best {
            Some(b) if b >= t => b,
            _ => t,
        })
    };
    let upper_env = name
        .iter()
        .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && name.contains(&b'_');
    for (i, c) in comps.iter().enumerate() {
        let c = c.as_str();
        if PASS_EXCEPTIONS.contains(&c) {
            continue;
        }
        if STRONG_WORDS.iter().any(|w| {
            c == *w || (c.len() > w.len() + 1 && c.ends_with(w) && *w != "pass" && *w != "pwd")
        }) || c == "pw"
            || (c.len() > 4 && c.ends_with("pass"))
            || (c.len() > 3 && c.ends_with("pwd"))
        {
            bump(Tier::Strong);
            continue;
        }
        if c == "private" && comps.get(i + 1).map(String::as_str) == Some("key") {
            bump(Tier::Strong);
            continue;
        }
        if TOKEN_SUFFIXES.iter().any(|w| {
            c == *w || (c.len() > w.len() && c.ends_with(w) && *w != "auth" && *w != "cred")
        }) {
            bump(Tier::Token);
            continue;
        }
        // `GITHUB_PAT`, `ADO_PAT`: a personal access token, in an
        // environment-style name only (`glob_pat`, `url_pat` are patterns),
        // whose value is one random run (`SHORT_PAT = "some/**/needle.txt"`
        // and `UNRESERVED_PAT = "ABC…xyz0123456789._-~"` are patterns too).
        if c == "pat" && i > 0 && i == comps.len() - 1 && upper_env {
            bump(Tier::Keyed);
            continue;
        }
        if c == "key" && i > 0 {
            let q = comps[i - 1].as_str();
            if key_qualifiers().contains(q) || (upper_env && i == comps.len() - 1) {
                bump(Tier::Token);
            } else if i == comps.len() - 1
                && q.len() >= 2
                && q.bytes().all(|b| b.is_ascii_lowercase())
            {
                bump(Tier::Keyed);
            }
        }
    }
    best
}

/// Whether `name` names a password itself: its last word is a password
/// word (`DB_PASSWORD`, `adminPass`, `mysql_root_pwd`, `passphrase`), not
/// an attribute of one (`password_policy`) and not a secret or a key,
/// whose values are random. Such a name is given words too
/// ([`word_password`]).
fn names_password(name: &[u8]) -> bool {
    let comps = named_components(name);
    let password_word = comps.last().is_some_and(|c| {
        let c = c.as_str();
        !PASS_EXCEPTIONS.contains(&c)
            && (matches!(
                c,
                "password" | "passwd" | "passwort" | "passphrase" | "pass" | "pwd" | "pswd" | "pw"
            ) || (c.len() > 4 && (c.ends_with("pass") || c.ends_with("password")))
                || (c.len() > 3 && c.ends_with("pwd")))
    });
    password_word && classify_name(name) == Some(Tier::Strong)
}

/// Words that are never a password's value: literals, types, states and
/// kinds of a configuration or a program (`password: none`, `pass:
/// string`, `PASSWORD_MODE=plain` is named for its mode and never asks),
/// and the placeholders of examples and tests.
const NOT_PASSWORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "undefined",
    "empty",
    "blank",
    "unset",
    "default",
    "defaults",
    "required",
    "optional",
    "hidden",
    "visible",
    "enabled",
    "disabled",
    "enable",
    "disable",
    "auto",
    "manual",
    "string",
    "bool",
    "boolean",
    "integer",
    "number",
    "float",
    "double",
    "char",
    "text",
    "bytes",
    "byte",
    "object",
    "unknown",
    "never",
    "void",
    "date",
    "time",
    "list",
    "array",
    "dict",
    "value",
    "values",
    "input",
    "field",
    "label",
    "prompt",
    "form",
    "changeme",
    "change",
    "redacted",
    "masked",
    "omitted",
    "example",
    "sample",
    "dummy",
    "test",
    "testing",
    "fake",
    "mock",
    "xxxx",
    "xxxxx",
    "xxxxxx",
    "plain",
    "plaintext",
    "clear",
    "cleartext",
    "basic",
    "bearer",
    "digest",
    "random",
    "generated",
    "strict",
    "weak",
    "strong",
    "stdin",
    "file",
    "inline",
    "static",
    "dynamic",
    "same",
    "self",
    "this",
    "nothing",
    "unused",
    "ignored",
    "ignore",
    "invalid",
    "valid",
    "wrong",
    "correct",
    "incorrect",
    "missing",
    "expired",
    "secure",
    "insecure",
    "encrypted",
    "hashed",
    "hash",
    "login",
    "user",
    "username",
    "email",
    "always",
    "fail",
    "failed",
    "failure",
    "super",
    "confirmed",
    "nullable",
    "sometimes",
    "accepted",
    "present",
    "filled",
    "option",
    "options",
    "flag",
    "flags",
    "argument",
    "arguments",
    "parameter",
    "parameters",
    "green",
    "yellow",
    "blue",
    "black",
    "white",
    "cyan",
    "magenta",
    "gray",
    "grey",
    "orange",
    "purple",
    "bold",
    "function",
    "symbol",
    "bigint",
];

/// A lower-case word a person may choose as a password (`swordfish`,
/// `letmein`, `postgres`), given to a name that [`names_password`]: four
/// to eleven ASCII lower-case letters (longer words pass the value check
/// of every password), none of [`NOT_PASSWORDS`], no password word inside
/// (`mypassword`, `nopass`: placeholders) and no placeholder.
fn word_password(v: &[u8]) -> bool {
    (4..12).contains(&v.len())
        && v.iter().all(u8::is_ascii_lowercase)
        && !contains(v, b"pass")
        && !contains(v, b"pwd")
        && !contains(v, b"secret")
        && std::str::from_utf8(v).is_ok_and(|w| !not_passwords().contains(w))
        && !is_placeholder(v)
}

/// [`NOT_PASSWORDS`] as a set: the list read in order was ~1 100
/// instructions a value (`auth: password policy …` in a log).
fn not_passwords() -> &'static WordSet {
    static S: std::sync::OnceLock<WordSet> = std::sync::OnceLock::new();
    set_of(NOT_PASSWORDS, &S)
}

/// Whether a bare value ending at `ve` ends its line as a configuration's
/// value does: nothing but spaces after it, or a comment (` #`, ` ;`,
/// ` //`). In code a bare word is a variable, and something follows it
/// (`password = input(…)`, `pass = user.pass;`).
fn ends_config_line(hay: &[u8], ve: usize) -> bool {
    let mut i = ve;
    while i < hay.len() && matches!(hay[i], b' ' | b'\t' | b'\r') {
        i += 1;
    }
    match hay.get(i) {
        None | Some(b'\n') => true,
        Some(b'#' | b';') => i > ve,
        Some(b'/') => i > ve && hay.get(i + 1) == Some(&b'/'),
        _ => false,
    }
}

/// A placeholder written inside other quoting: HTML-escaped angle brackets
/// (`&lt;YOUR_PASSWORD&gt;`), or a variable between a shell's double
/// quotes, which close and reopen the string around it (`"'$PASSWORD'"`).
fn escaped_or_spliced(v: &[u8]) -> bool {
    let n = v.len();
    (n > 8 && v[..4].eq_ignore_ascii_case(b"&lt;") && v.ends_with(b"&gt;"))
        || (n > 3
            && matches!(v[0], b'\'' | b'"')
            && v[n - 1] == v[0]
            && v[1] == b'$'
            && is_placeholder(&v[1..n - 1]))
}

/// Whether the name `hay[ns..ne]` and its operator are a string's text
/// (`passwordLabel:"Password:",rememberMeLabel:…`): the quote before the
/// name is the value's opening quote's kind, and none closes the name (as
/// JSON's `"password":"v"` does): that quote closes the string, and what
/// follows is code, not a value — when it reads as code: punctuation or a
/// space first (`,rememberMeLabel:`, `+authKey, `).
fn label_in_string(hay: &[u8], (ns, ne): (usize, usize), vs: usize) -> bool {
    if ns == 0 || vs == 0 || vs <= ne || vs >= hay.len() {
        return false;
    }
    if !matches!(
        hay[vs],
        b',' | b';' | b')' | b']' | b'}' | b'+' | b'.' | b'&' | b'|' | b' ' | b'\t'
    ) {
        return false;
    }
    let q = hay[ns - 1];
    matches!(q, b'"' | b'\'')
        && hay[vs - 1] == q
        && hay[ne..vs - 1]
            .iter()
            .all(|&b| matches!(b, b':' | b'=' | b' ' | b'\t'))
        && hay[ne..vs - 1].iter().any(|&b| b == b':' || b == b'=')
}

/// Whether a bare value's assignment reads as a configuration's, not as
/// code's. `NAME=v` (no spaces) ends where a configuration's value ends:
/// at a space, a line's end, `;` (a connection string), `&` (a URL's
/// query), a closing quote or brace, `|`, or an escaped line break — not at
/// `(`, `)`, `,`, `.` or `[` (a call's keyword argument given a variable:
/// `connect(password=pw)`). `password: v` and `password = v` end their
/// line ([`ends_config_line`]), the spaced `=` only at the start of a line
/// (an INI or TOML file), not indented in a function (`    password =
/// ident`) or after a `,` (`username, password = split`); `export NAME =
/// v` too (a Makefile's). A shell default (`${NAME:-v}`) and a table's cell
/// (`| NAME | v |`) are configuration's. An instance variable's
/// (`@user.password = long`) is code's.
fn config_assignment(hay: &[u8], (ns, ne): (usize, usize), (vs, ve): (usize, usize)) -> bool {
    if hay[ns] == b'@' || (ns > 0 && hay[ns - 1] == b'@') {
        return false;
    }
    let op = &hay[ne..vs];
    let after = &hay[ve..];
    if op == b"=" {
        return !matches!(after.first(), Some(b'(' | b')' | b',' | b'.' | b'['));
    }
    if ns >= 2 && &hay[ns - 2..ns] == b"${" {
        return after.first() == Some(&b'}');
    }
    let cell = trim(op);
    if (cell == b"|" || cell == "│".as_bytes()) && after.starts_with(b" ") {
        return after[1..].starts_with(cell);
    }
    let spaced_eq = op.contains(&b'=') && op.iter().any(|&b| b == b' ' || b == b'\t');
    let line_start = line_start_before(hay, ns);
    ends_config_line(hay, ve)
        && (!spaced_eq || line_start == ns || &hay[line_start..ns] == b"export ")
}

/// Whether `name` holds `pass`, `pw` or `pswd` (any case): every name
/// that [`names_password`] does (its password words spell one of them).
fn spells_password_word(name: &[u8]) -> bool {
    let at = |i: usize, w: &[u8]| {
        name.len() >= i + w.len() && name[i..i + w.len()].eq_ignore_ascii_case(w)
    };
    (0..name.len()).any(|i| {
        matches!(name[i], b'p' | b'P') && (at(i, b"pw") || at(i, b"pass") || at(i, b"pswd"))
    })
}

/// Where the line holding `at` starts.
fn line_start_before(hay: &[u8], at: usize) -> usize {
    memchr::memrchr(b'\n', &hay[..at]).map_or(0, |i| i + 1)
}

/// Whether `hay[vs..ve]` is an XML element's whole text
/// (`<password>v</password>`).
fn xml_text(hay: &[u8], (vs, ve): (usize, usize)) -> bool {
    vs > 0 && hay[vs - 1] == b'>' && hay[ve..].starts_with(b"</")
}

/// A human password (`DB_PASSWORD=swordfish`, `password: "letmein"`): a
/// [`word_password`] given to a name that [`names_password`], quoted, or
/// bare in a configuration's assignment ([`config_assignment`]) or as an
/// element's text ([`xml_text`]).
fn human_password(
    hay: &[u8],
    (ns, ne): (usize, usize),
    (vs, ve): (usize, usize),
    quoted: bool,
) -> bool {
    // `names_password` asks for a password word, which spells `pass`,
    // `pw` or `pswd`: a name without them (`auth_method=oauth`) is told
    // before the value's word is looked up.
    if !spells_password_word(&hay[ns..ne]) {
        return false;
    }
    // Backticks right after `=` are a shell's command (`PASSWORD=`whoami``),
    // after a space a string (Go's, JavaScript's: `password = `v``).
    let quote = vs.checked_sub(1).map(|i| hay[i]);
    let command = quote == Some(b'`') && vs >= 2 && hay[vs - 2] == b'=';
    word_password(trim(&hay[vs..ve]))
        && ((quoted && !command)
            || config_assignment(hay, (ns, ne), (vs, ve))
            || xml_text(hay, (vs, ve)))
        && names_password(&hay[ns..ne])
        && !pass_flag(hay, (ns, ne))
        && !nss_source(&hay[ns..ne], trim(&hay[vs..ve]))
}

/// The name service switch's `passwd` database and a source of it
/// (`/etc/nsswitch.conf`'s `passwd: files systemd`, `passwd: compat`): the
/// words a database's line lists are modules, not a password.
fn nss_source(name: &[u8], v: &[u8]) -> bool {
    const SOURCES: &[&[u8]] = &[
        b"files",
        b"compat",
        b"systemd",
        b"nis",
        b"nisplus",
        b"ldap",
        b"sss",
        b"db",
        b"winbind",
        b"hesiod",
        b"extrausers",
        b"cache",
        b"altfiles",
        b"mymachines",
        b"libvirt",
        b"oslogin",
        b"cloudflare",
    ];
    name.eq_ignore_ascii_case(b"passwd") && SOURCES.iter().any(|w| v.eq_ignore_ascii_case(w))
}

/// A command line's bare `--pass` or `-pass` flag: a compiler's or a
/// tool's pass (`cargo dev new_lint --pass=early`, `--pass late`) as
/// often as a password, so a word given to it is no password (a random
/// value still is, as after every password's name).
fn pass_flag(hay: &[u8], (ns, ne): (usize, usize)) -> bool {
    let name = &hay[ns..ne];
    let dashes = name.iter().take_while(|&&b| b == b'-').count();
    let flag = dashes > 0 || (ns > 0 && hay[ns - 1] == b'-');
    flag && name[dashes..].eq_ignore_ascii_case(b"pass")
}

/// Whether `v` is an acceptable secret value for a name of tier `tier`.
pub(crate) fn value_ok(tier: Tier, v: &[u8], quoted: bool) -> bool {
    !short_word(trim(v)) && value_checks(tier, v, quoted)
}

/// A command-line flag (`--username`, `--password-file=x`): `--` and a
/// lower-case name up to `=` — not a base64url token that happens to open
/// with `--` (`--kq8gfGrhXB92-1KA7…`).
fn command_flag(v: &[u8]) -> bool {
    let Some(rest) = v.strip_prefix(b"--") else {
        return false;
    };
    let name = rest.split(|&b| b == b'=').next().unwrap_or_default();
    !name.is_empty()
        && name[0].is_ascii_lowercase()
        && name
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// An unquoted value that is itself the next `name=value` field of a log
/// line (`auth.session: session_token_ttl=3600`, `vault: lease_id=ab12`):
/// a lower-case name of two or more words joined by `_` or `.` that reads
/// as words, `=`, and a value that is no base64 padding (`Xk_Q9=w7` and
/// `A_Jmwo=jcLE` are random). What follows the colon is that field, not a secret
/// (a secret in the field is found at its own name).
fn next_field(v: &[u8]) -> bool {
    let Some(eq) = memchr::memchr(b'=', v) else {
        return false;
    };
    let (name, rest) = (&v[..eq], &v[eq + 1..]);
    let mut parts = name.split(|&b| b == b'_' || b == b'.');
    !rest.is_empty()
        && rest[0] != b'='
        && name.first().is_some_and(u8::is_ascii_lowercase)
        && name
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'.')
        && parts.clone().count() >= 2
        && parts.all(|p| p.len() >= 2 && p.iter().all(u8::is_ascii_lowercase))
        && reads_as_words(name)
}

/// An e-mail address (`john.doe@mydomain.com`, anonymous FTP's
/// "password"): a local part of two or more name bytes, `@`, a host of two
/// or more labels whose last is two to six lower-case letters. It names
/// someone; it is no secret (`P@ss.word` has a one-letter local part).
fn email_address(v: &[u8]) -> bool {
    let Some(at) = memchr::memchr(b'@', v) else {
        return false;
    };
    let (local, host) = (&v[..at], &v[at + 1..]);
    let labels = host.split(|&b| b == b'.');
    local.len() >= 2
        && local
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"._+-".contains(&b))
        && labels.clone().count() >= 2
        && labels
            .clone()
            .all(|l| !l.is_empty() && l.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-'))
        && host
            .rsplit(|&b| b == b'.')
            .next()
            .is_some_and(|t| (2..=6).contains(&t.len()) && t.iter().all(u8::is_ascii_lowercase))
}

/// An ISO 8601 date and time (`2006-01-02T15:04:05Z`, `2024-05-01
/// 10:00:00.123+02:00`): when something was set or changed
/// (`adminPasswordMtime: "2006-01-02T15:04:05Z"`), no secret. Decision: a
/// date alone (`password: 1985-04-12`) stays a value, as people pick dates.
fn iso_timestamp(v: &[u8]) -> bool {
    fn digits(v: &[u8], at: usize, n: usize) -> bool {
        v.len() >= at + n && v[at..at + n].iter().all(u8::is_ascii_digit)
    }
    if !(digits(v, 0, 4) && v.get(4) == Some(&b'-') && digits(v, 5, 2))
        || v.get(7) != Some(&b'-')
        || !digits(v, 8, 2)
    {
        return false;
    }
    let mut i = 10;
    // The time: `T` or a space, `HH:MM`, then `:SS` and a fraction.
    if !v.get(i).is_some_and(|&b| b == b'T' || b == b' ')
        || !digits(v, i + 1, 2)
        || v.get(i + 3) != Some(&b':')
    {
        return false;
    }
    if !digits(v, i + 4, 2) {
        return false;
    }
    i += 6;
    if v.get(i) == Some(&b':') && digits(v, i + 1, 2) {
        i += 3;
        if v.get(i) == Some(&b'.') && digits(v, i + 1, 1) {
            i += 1;
            while i < v.len() && v[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    // The zone: `Z`, `+HH`, `+HHMM`, `+HH:MM`.
    match v.get(i) {
        None => true,
        Some(b'Z') => i + 1 == v.len(),
        Some(b'+' | b'-') if digits(v, i + 1, 2) => {
            let z = &v[i + 3..];
            z.is_empty()
                || (z.len() == 2 && digits(z, 0, 2))
                || (z.len() == 3 && z[0] == b':' && digits(z, 1, 2))
        }
        _ => false,
    }
}

/// Three or more numbers joined by dots: an OID (`1.2.840.113549.1.9.4`), an
/// IPv4 address or a version (`2.31.0`), not a secret.
fn dotted_number(v: &[u8]) -> bool {
    let mut parts = v.split(|&b| b == b'.');
    parts.clone().count() >= 3 && parts.all(|p| !p.is_empty() && p.iter().all(u8::is_ascii_digit))
}

/// Whether `v` is a list of options, `key=value` pairs joined by `,`
/// (BuildKit's `docker build --secret id=npm_token,src=.npmrc`, mount
/// options `uid=1000,gid=1000`, the AWS CLI's shorthand
/// `--token-validity-units AccessToken=hours,IdToken=minutes` and
/// `--software-token-mfa-configuration Enabled=true`): a flag's settings,
/// not its secret. Keys are words (a camel-case key mostly long words:
/// `AccessToken`, not a random password's `EfTDtHir=7`). Two or more pairs with lower-case keys
/// take any values; a single pair, or capitalised keys (which also name
/// secrets: `AccessToken=…`), only settings: `true`, `false`, numbers and
/// lower-case words.
fn option_list(v: &[u8]) -> bool {
    let setting = |x: &[u8]| {
        x == b"true"
            || x == b"false"
            || (!x.is_empty() && x.iter().all(u8::is_ascii_digit))
            || (x.len() >= 2 && x.iter().all(u8::is_ascii_lowercase) && reads_as_words(x))
    };
    let (mut pairs, mut capital, mut settings) = (0, false, true);
    let keys_ok = v.split(|&b| b == b',').all(|p| {
        pairs += 1;
        let Some(eq) = p.iter().position(|&b| b == b'=') else {
            return false;
        };
        let key = &p[..eq];
        capital |= key.first().is_some_and(u8::is_ascii_uppercase);
        settings &= setting(&p[eq + 1..]);
        key.len() >= 2
            && key
                .iter()
                .all(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'-')
            && reads_as_words(key)
            && (!mixed_case(key) || mostly_long_words(key))
    });
    keys_ok && (settings || (pairs >= 2 && !capital))
}

/// Whether `v` has both capitals and lower-case letters.
fn mixed_case(v: &[u8]) -> bool {
    v.iter().any(u8::is_ascii_uppercase) && v.iter().any(u8::is_ascii_lowercase)
}

/// Whether `v` is only variables a string template fills, joined by
/// separators (Kotlin's and Groovy's `"$username:$password"`, shell's
/// `"$USER:$PASS"`, `"${user}@${host}"`): two or more `$name` (a name that
/// reads as words) or `${…}`, and between them one or more of `:`, `@`,
/// `/`, `-`, `.` and `_`, nothing else.
fn interpolated_only(v: &[u8]) -> bool {
    let mut i = 0;
    let mut vars = 0;
    // A separator between two variables: Authelia's `$plaintext$secret`
    // is a scheme and its secret.
    let mut apart = true;
    while i < v.len() {
        match v[i] {
            b'$' if !apart => return false,
            b'$' if v.get(i + 1) == Some(&b'{') => {
                let Some(k) = v[i..].iter().position(|&b| b == b'}') else {
                    return false;
                };
                vars += 1;
                i += k + 1;
                apart = false;
            }
            b'$' => {
                let n = v[i + 1..]
                    .iter()
                    .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                    .count();
                // Names, not random letters (`$Xk9mP2q:$L7vN4rT8` is a password).
                if n == 0
                    || !(v[i + 1].is_ascii_alphabetic() || v[i + 1] == b'_')
                    || !reads_as_words(&v[i + 1..i + 1 + n])
                {
                    return false;
                }
                vars += 1;
                i += n + 1;
                apart = false;
            }
            b':' | b'@' | b'/' | b'-' | b'.' | b'_' => {
                i += 1;
                apart = true;
            }
            _ => return false,
        }
    }
    vars >= 2
}

/// Whether `v` is a version or a range of versions, as package manifests
/// and lock files write them beside a package's name (`"getpass":
/// "^0.1.1"`, `'@aws-sdk/credential-providers': ^3.188.0`, `~> 2.4`,
/// `>=7.9.0`): an operator, then a dotted number (two or more numbers),
/// then a pre-release or build suffix of letters, digits, `.` and `-`.
/// Without the operator, only [`dotted_number`]'s three numbers: `1.5` may
/// be a short value's whole.
fn version_range(v: &[u8]) -> bool {
    let Some(rest) = [
        &b"~>"[..],
        b">=",
        b"<=",
        b"==",
        b"^",
        b"~",
        b">",
        b"<",
        b"=",
    ]
    .iter()
    .find_map(|op| v.strip_prefix(*op)) else {
        return false;
    };
    let rest = rest.trim_ascii_start();
    let rest = rest.strip_prefix(b"v").unwrap_or(rest);
    let core = rest
        .iter()
        .position(|&b| b == b'-' || b == b'+')
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(core);
    let mut parts = number.split(|&b| b == b'.');
    parts.clone().count() >= 2
        && parts.all(|p| !p.is_empty() && p.len() <= 9 && p.iter().all(u8::is_ascii_digit))
        && suffix
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'))
}

/// Whether `v` is the name of a key, certificate or keystore file
/// (`--file.ca-private-key='ca.rsa.1024.key'`, `ssl_key: server.key`,
/// `private_key: id_rsa.pem`) or of a data file a test or a configuration
/// names (a snapshot listed by `ls` or `git status`:
/// `…Credentials-case=saml-credential=webauthn.json`): pieces joined by
/// `.`, the last a file extension of such files, each other piece a
/// number, a short piece or words joined by `_`, `-` or `=` (not random
/// characters).
fn key_file_name(v: &[u8]) -> bool {
    const EXTENSIONS: &[&[u8]] = &[
        b"key",
        b"pem",
        b"crt",
        b"cer",
        b"der",
        b"p12",
        b"pfx",
        b"jks",
        b"keystore",
        b"pub",
        b"asc",
        b"gpg",
        b"ppk",
        b"csr",
        b"p8",
        b"json",
        b"yaml",
        b"yml",
        b"toml",
        b"xml",
        b"txt",
        b"snap",
        b"golden",
        b"htpasswd",
    ];
    let Some(dot) = v.iter().rposition(|&b| b == b'.') else {
        return false;
    };
    let (stem, ext) = (&v[..dot], &v[dot + 1..]);
    !stem.is_empty()
        && EXTENSIONS.contains(&ext)
        && stem.split(|&b| b == b'.').all(|piece| {
            !piece.is_empty()
                && piece
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='))
                && (piece.len() <= 4
                    || piece.iter().all(u8::is_ascii_digit)
                    || piece
                        .split(|&b| matches!(b, b'_' | b'-' | b'='))
                        .all(|w| w.len() <= 4 || reads_as_words(w)))
        })
}

/// [`value_ok`] without its [`short_word`] shortcut.
fn value_checks(tier: Tier, v: &[u8], quoted: bool) -> bool {
    let v = trim(v);
    // Cheapest first: `is_placeholder` costs more than the others together
    // (~270 ns a value against ~230; a digest, a path, a URL or secret
    // words, `client_secret_basic`, are decided before it).
    if is_public_material(v)
        || is_url(v)
        || dotted_number(v)
        || version_range(v)
        || v.starts_with(b"#/")
        || interpolated_only(v)
        || email_address(v)
        || iso_timestamp(v)
        || object_identity(v)
        || key_file_name(v)
        || option_list(v)
        || resource_name(v)
        || is_path(v)
    {
        return false;
    }
    // Not for known values: an environment value is masked as it is.
    // A flag (`--username=`) or a Rust path (`$serde_json::private::Number`)
    // is no value either.
    // The segments serve the token tier below too.
    // The numbered segments take what the word segments take, and more:
    // most values (random tokens) fail both, judged once.
    let numbered = numbered_segments(v);
    let segs = if numbered.is_some() {
        word_segments(v)
    } else {
        None
    };
    let named = match &segs {
        Some(s) => secret_words_in(Some(s)),
        None => secret_words_in(numbered.as_deref()),
    };
    if named || command_flag(v) || rust_path(v) || is_placeholder(v) {
        return false;
    }
    if !quoted && (looks_like_code(v) || next_field(v) || camel_identifier(v)) {
        return false;
    }
    if unicode_escaped(v) || escaped_prose(v) {
        return false;
    }
    if quoted && (v.starts_with(b"{") || v.starts_with(b"[") || concatenated(v)) {
        return false;
    }
    // A bare value that is a name between Go raw strings (`` `+password+` ``).
    if !quoted && v.starts_with(b"`+") && concatenated(v) {
        return false;
    }
    if sentence_word(v) {
        return false;
    }
    let len = std::str::from_utf8(v).map_or(v.len(), |s| s.chars().count());
    let spaces = v.iter().filter(|&&b| b == b' ').count();
    match tier {
        Tier::Strong => {
            if len < 4 || (spaces > 0 && (!quoted || is_prose(v))) {
                return false;
            }
            if v.iter().all(u8::is_ascii_digit) {
                return len >= 6;
            }
            // A word, also in capitals (`SEQUENCE`, `FAIL`).
            if (word_like(v) || (v.iter().all(u8::is_ascii_uppercase) && v.len() > 1)) && len < 12 {
                return false;
            }
            if spaces > 0 && v.iter().all(|&b| b.is_ascii_alphabetic() || b == b' ') && len < 16 {
                return false;
            }
            if spaces > 0 && spaces + 1 > 6 {
                return false;
            }
            entropy(v) >= 1.5
        }
        Tier::Keyed => keyed_value(v) && value_checks(Tier::Token, v, quoted),
        Tier::Token => {
            if quoted && spaced_random(v, spaces) {
                return true;
            }
            // `Root%20CA%20Certificates`: a token holds no space, encoded or not.
            if len < 8 || spaces > 0 || contains(v, b"%20") {
                return false;
            }
            // Words and identifiers (`progressToken`, `same-csrf`,
            // `StandardTokenResponse`, `io.example/serverInfo`): a token is random.
            // A long one-case value that does not read as words is random
            // letters, not a word (`pexvicsmulnipjkxdofryav`).
            // One one-letter word among three or more (`HTTP_X_FORWARDED_FOR`,
            // `x-amazon-apigateway-authorizer`) still reads as words.
            if (word_like(v) && (v.len() < 16 || reads_as_words(v)))
                || segs.is_some_and(|s| {
                    let singles = s
                        .iter()
                        .filter(|s| s.len() < 2 && !s.iter().all(u8::is_ascii_digit))
                        .count();
                    (singles == 0 || (singles == 1 && s.len() >= 3))
                        && s.iter()
                            .any(|s| s.len() >= 4 && s.iter().all(u8::is_ascii_alphabetic))
                })
                || camel_secret_name(v)
                || dotted_words(v)
            {
                return false;
            }
            let c = classes(v);
            if c < 2 && len < 20 {
                return false;
            }
            if v.iter().all(u8::is_ascii_digit) && len < 24 {
                return false;
            }
            entropy(v) >= 2.5
        }
    }
}

/// A word ending a sentence or a clause (`password combination.`,
/// `authorization: Required.`): prose.
fn sentence_word(v: &[u8]) -> bool {
    let n = v.len()
        - v.iter()
            .rev()
            .take_while(|b| matches!(b, b'.' | b',' | b';' | b'!' | b'?'))
            .count();
    n < v.len() && word_like(&v[..n])
}

/// A UUID in its text form: 8-4-4-4-12 hex digits.
fn is_uuid(v: &[u8]) -> bool {
    v.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| v[i] == b'-')
        && v.split(|&b| b == b'-')
            .all(|s| s.iter().all(u8::is_ascii_hexdigit))
}

/// Entropy 3 bits a byte, or for a value of fewer than 13 bytes, whose
/// entropy cannot reach much more than `log2(len)` (3.32 for 10 bytes),
/// that less 0.7: a random 10-character key repeats a character or two
/// (`5J5qC4jCjY`: 2.72).
fn short_random(v: &[u8]) -> bool {
    let n = v.len() as f64;
    entropy(v) >= 3.0_f64.min(n.log2() - 0.7)
}

/// [`Check::VendorNamed`]: a digit and a letter (or 20 letters or more of
/// both cases with entropy 4: `UWjIscxAjvNyhMbqlAmDQgrTo`, 1 in 80 random
/// 25-character keys has no digit), entropy 3, not a UUID, not a host
/// name or a version, not a name made of words, not a fake.
fn vendor_named_value(v: &[u8]) -> bool {
    // A version: `7.42.0-rc.1`, `v2.1.0`, `sentry-cli-2.1.0` (digits that
    // open the value or follow `-`, `_`, `v`, `+` or `@`, then `.` and a digit).
    let version = (0..v.len()).any(|i| {
        let opens = i == 0 || matches!(v[i - 1], b'-' | b'_' | b'v' | b'V' | b'+' | b'@');
        let run = v[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        opens
            && run > 0
            && v.get(i + run) == Some(&b'.')
            && v.get(i + run + 1).is_some_and(u8::is_ascii_digit)
    });
    !is_uuid(v)
        && !version
        && !host_name(v)
        && v.iter().any(u8::is_ascii_alphabetic)
        && (v.iter().any(u8::is_ascii_digit)
            || (v.len() >= 20
                && v.iter().any(u8::is_ascii_uppercase)
                && v.iter().any(u8::is_ascii_lowercase)
                && entropy(v) >= 4.0))
        && entropy(v) >= 3.0
        && !(reads_as_words(v) && mostly_long_words(v))
        && !looks_fake(v)
}

/// What a [`Tier::Keyed`] value needs beyond a token's checks: 20+
/// characters of one token alphabet (letters, digits, `-_+/=.`) with letters
/// and digits, and entropy 3.5 (hex keys have ~3.7); not a UUID or a
/// SHA-1 / SHA-256 digest in hex (`state_key`, `sha_key`).
fn keyed_value(v: &[u8]) -> bool {
    let v = trim(v);
    let digest = (v.len() == 40 || v.len() == 64) && v.iter().all(u8::is_ascii_hexdigit);
    !is_uuid(v)
        && !digest
        && v.len() >= 20
        && v.iter().all(|&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'+' | b'/' | b'=' | b'.')
        })
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_alphabetic)
        && entropy(v) >= 3.5
}

/// A quoted key generated from the whole printable alphabet, spaces
/// included (WordPress' `define('AUTH_KEY', 'q1}+zK#2L(~y<9PV.w!|R:Vb
/// e@%…')`): 32+ bytes, at most one space per 16, all four character
/// classes and entropy 4.8 (prose has ~4, random printable text ~5.8);
/// not a regular expression (`(?:`, `\d`, `[0-9a-f]`, `{32}`).
fn spaced_random(v: &[u8], spaces: usize) -> bool {
    v.len() >= 32
        && spaces * 16 <= v.len()
        && classes(v) == 4
        && entropy(v) >= 4.8
        && !regex_like(v)
}

/// Whether `v` holds a construct of a regular expression: a group `(?`, an
/// escape class (`\d`, `\w`, `\s`, `\b`), a range right after `[`
/// (`[a-z`, `[A-Z`, `[0-9`) or a counted repetition (`{2}`, `{2,}`, `{0,2}`).
fn regex_like(v: &[u8]) -> bool {
    let range = |w: &[u8]| {
        w[1] == b'-'
            && ((w[0].is_ascii_lowercase() && w[2].is_ascii_lowercase())
                || (w[0].is_ascii_uppercase() && w[2].is_ascii_uppercase())
                || (w[0].is_ascii_digit() && w[2].is_ascii_digit()))
            && w[0] < w[2]
    };
    let counted = |i: usize| {
        let rest = &v[i + 1..];
        let digits = rest
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b',')
            .count();
        digits > 0 && rest.get(digits) == Some(&b'}') && rest[0].is_ascii_digit()
    };
    // `^(abc123|zyx789)$`: anchored at both ends, with a group, a class,
    // an alternation or an escape inside.
    let anchored = v.len() > 4
        && v[0] == b'^'
        && v.ends_with(b"$")
        && v.iter().any(|&b| matches!(b, b'(' | b'[' | b'|' | b'\\'));
    anchored
        || contains(v, b"(?")
        || v.windows(2).any(|w| {
            w[0] == b'\\' && matches!(w[1], b'd' | b'w' | b's' | b'b' | b'D' | b'W' | b'S')
        })
        || v.windows(4).any(|w| w[0] == b'[' && range(&w[1..]))
        || v.iter().enumerate().any(|(i, &b)| b == b'{' && counted(i))
}

/// A short lowercase word (`password`, `Secret`): [`value_ok`] rejects it for
/// either tier (every check before the tier's own only rejects, and both tiers
/// reject a [`word_like`] value under 12 bytes), so it is tested first, before
/// the dearer checks and before the name is classified.
fn short_word(v: &[u8]) -> bool {
    v.len() < 12 && word_like(v)
}

/// Standard or URL-safe base64, padding optional. `None` on bad input.
pub(crate) fn b64_decode(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in s {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The window text just before `at` on the same line (at most `n` bytes).
fn before_on_line(hay: &[u8], at: usize, n: usize) -> &[u8] {
    let from = at.saturating_sub(n);
    let seg = &hay[from..at];
    match memchr::memrchr(b'\n', seg) {
        Some(i) => &seg[i + 1..],
        None => seg,
    }
}

/// Whether the name at `ns` is a part of an ARN (`arn:aws:secretsmanager:
/// …:secret:prod/db`: the resource type `secret`): it follows a `:` in a
/// word that opens with `arn:`, within 128 bytes back (not before `ls`).
/// No assignment starts there (the checks reject such names anyway): AWS
/// output names secrets by ARN on every line.
fn arn_part(hay: &[u8], ls: usize, ns: usize) -> bool {
    if ns <= ls + 4 || hay[ns - 1] != b':' {
        return false;
    }
    let from = ls.max(ns.saturating_sub(128));
    let start = hay[from..ns]
        .iter()
        .rposition(|b| {
            b.is_ascii_whitespace()
                || matches!(b, b'"' | b'\'' | b'`' | b'=' | b',' | b'(' | b'[' | b'{')
        })
        .map_or(from, |k| from + k + 1);
    ns - start > 4 && hay[start..start + 4].eq_ignore_ascii_case(b"arn:")
}

/// Whether `seg` holds `arn:` in any ASCII case.
fn contains_arn(seg: &[u8]) -> bool {
    memchr::memchr2_iter(b'a', b'A', seg)
        .any(|i| seg.len() - i >= 4 && seg[i..i + 4].eq_ignore_ascii_case(b"arn:"))
}

const SESSION_COOKIE_HINTS: &[&str] = &[
    "sess",
    "sid",
    "token",
    "auth",
    "jwt",
    "remember",
    "login",
    "csrf",
    "xsrf",
    "sso",
    "saml",
    "identity",
    "access",
    "refresh",
    "bearer",
    "api",
    "key",
    "secret",
    "pass",
    "credential",
    "user_session",
    "connect.sid",
];

const COOKIE_ATTRIBUTES: &[&str] = &[
    "path",
    "domain",
    "expires",
    "max-age",
    "samesite",
    "secure",
    "httponly",
    "priority",
    "partitioned",
    "version",
    "comment",
];

/// Runs a check. `secret` is the span of the secret group, `name` the span of
/// the `name` group (if any), `group_alt` tells which alternative group matched
/// (0 = primary / double-quoted, 1 = single-quoted, 2+ = bare).
/// Whether the value ending at `ve` is an object whose member is reached
/// (`$parser->get_token`, `Resolver->findImplPass(PI)`): the value stops at
/// the `-` of `->`.
fn member_access(hay: &[u8], ve: usize) -> bool {
    ve > 0 && hay[ve - 1] == b'-' && hay.get(ve) == Some(&b'>')
}

/// Whether the name starting at `ns` is the last segment of a path
/// (`"AWS::SecretsManager::Secret"`, `'Test2::Event::Pass'`): a type or a
/// module, not a variable; or a part of a URN (`urn:k8s:secret:tls:cert`).
fn path_segment(hay: &[u8], ns: usize) -> bool {
    if ns >= 2 && &hay[ns - 2..ns] == b"::" {
        return true;
    }
    // A part of a URN (`"urn:k8s:secret:tls:cert"`).
    if ns == 0 || hay[ns - 1] != b':' {
        return false;
    }
    let from = hay[..ns]
        .iter()
        .rposition(|&b| {
            b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`' | b'(' | b'=' | b',')
        })
        .map_or(0, |k| k + 1);
    hay[from..ns].len() > 4 && hay[from..from + 4].eq_ignore_ascii_case(b"urn:")
}

/// Whether `name => value` is a rename in git's diffstat (`git log
/// --stat`, `git diff --stat`): `man/{readpassphrase.3 =>
/// readpassphrase.3bsd} | 0`, the old and new names of a path in braces.
/// The line goes on to the `| 12 +++--` (or `| Bin …`) of the stat.
fn diffstat_rename(hay: &[u8], (ns, ne): (usize, usize), (vs, ve): (usize, usize)) -> bool {
    if ns == 0
        || hay[ns - 1] != b'{'
        || hay.get(ne..vs) != Some(&b" => "[..])
        || hay.get(ve) != Some(&b'}')
    {
        return false;
    }
    let rest = &hay[ve + 1..];
    let rest = &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())];
    rest.windows(3).position(|w| w == b" | ").is_some_and(|k| {
        let count = rest[k + 3..].trim_ascii_start();
        count.first().is_some_and(u8::is_ascii_digit) || count.starts_with(b"Bin")
    })
}

/// Where the name `[ns, ne)` starts after the escape that opens it: JSON
/// and JavaScript write a URL's `&` as `\u0026` (`…\u0026page_token=…`)
/// and C as `\x26`; the name is what follows (`page_token`), not
/// `u0026page_token`, which the name rule would read as other words.
fn after_escape(hay: &[u8], ns: usize, ne: usize) -> usize {
    if ns == 0 || hay[ns - 1] != b'\\' {
        return ns;
    }
    let digits = match hay.get(ns) {
        Some(b'u') => 4,
        Some(b'x') => 2,
        _ => return ns,
    };
    let end = ns + 1 + digits;
    if end < ne && hay[ns + 1..end].iter().all(u8::is_ascii_hexdigit) {
        end
    } else {
        ns
    }
}

/// Whether `PASS: name` is a test runner's verdict (automake's test driver,
/// DejaGnu, `make check` logs): the capital word `PASS` and `: `.
fn test_status(hay: &[u8], ns: usize, ne: usize, vs: usize) -> bool {
    &hay[ns..ne] == b"PASS" && vs > ne + 1 && hay[ne] == b':' && hay[ne + 1] == b' '
}

/// Whether the name before `: ` is a file (`* src/chpasswd.c: Usage…` in a
/// ChangeLog, `man/passwd.1.xml: …`): a path or a name with a file
/// extension.
fn file_named(hay: &[u8], ns: usize, ne: usize, vs: usize) -> bool {
    const EXTENSIONS: &[&[u8]] = &[
        b"c", b"h", b"cc", b"cpp", b"hpp", b"rs", b"py", b"js", b"ts", b"go", b"rb", b"pl", b"pm",
        b"sh", b"xml", b"html", b"md", b"txt", b"in", b"am", b"ac", b"java", b"1", b"3", b"5",
        b"8",
    ];
    if vs <= ne || hay[ne] != b':' {
        return false;
    }
    // The name as written before the colon, with its directories.
    let mut s = ns;
    while s > 0 && (is_name_byte(hay[s - 1]) || hay[s - 1] == b'/') {
        s -= 1;
    }
    let name = &hay[s..ne];
    name.contains(&b'/')
        || name
            .iter()
            .rposition(|&b| b == b'.')
            .is_some_and(|d| EXTENSIONS.contains(&&name[d + 1..]))
}

/// Whether the value `v` spells its name again, in any case and without
/// its separators (`AWS_IMDSV2_SESSION_TOKEN = "awsimdsv2sessiontoken"`):
/// a test's stand-in.
fn spells_name(name: &[u8], v: &[u8]) -> bool {
    let letters = |s: &[u8]| {
        s.iter()
            .filter(|b| b.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
            .collect::<Vec<u8>>()
    };
    let first = |s: &[u8]| {
        s.iter()
            .find(|b| b.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
    };
    let v = trim(v);
    if v.len() < 8
        || v.len() > 64
        // Most values differ at the first letter: no lists made.
        || first(v) != first(name)
        || !v
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
    {
        return false;
    }
    // A token's name numbered (`IDToken: "IDToken-1234"`); not a
    // password's (`password-2024` may be one).
    let digits = v.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let numbered = (1..=6).contains(&digits)
        && matches!(v[v.len() - digits - 1], b'-' | b'_')
        && classify_name(name).is_some_and(|t| t != Tier::Strong);
    let v = if numbered {
        &v[..v.len() - digits - 1]
    } else {
        v
    };
    letters(v) == letters(name)
}

/// Whether a value the generic rules would mask is code that names no
/// secret: it repeats its name's words ([`echoes_name`]), is bare and a
/// class named after its field ([`names_its_type`]), or is a catalogue
/// number, an API version or a regex ([`code_shaped_value`]). Asked last,
/// only of values that pass [`value_ok`]: masked values are rare.
fn value_is_code(name: &[u8], v: &[u8], quoted: bool) -> bool {
    short_private_key(name, trim(v))
        || constant_name(trim(v))
        || echoes_name(name, v)
        || (!quoted
            && (names_its_type(name, v)
                || code_reference(v)
                || member_chain(v)
                || compared(v)
                || compound_assignment(v)
                || go_error_name(v)
                || ruby_duration(v)
                || field_spec(v)))
        || printf_field(v)
        || code_shaped_value(v)
        || (quoted && title_phrase(v))
        || natural_text(v)
        || query_string(trim(v))
        || option_prefix(trim(v))
        || qualified_class_name(trim(v))
}

/// A relative path under a private key's name (`--private-key=foo/pk`,
/// `PRIVATE_KEY=keys/deploy_ed25519`) shorter than any private key is
/// written: every format holds 32 bytes or more (an Ed25519 seed in hex is
/// 64, WireGuard's base64 44, a PEM block hundreds). A path: a `/`, and no
/// part mixes capitals, lower-case letters and digits as random base64
/// does (`Xk2/mQp9RtVw3LzYa8BcD` is a short secret some API calls its
/// private key).
fn short_private_key(name: &[u8], v: &[u8]) -> bool {
    let mixed = |p: &&[u8]| {
        p.iter().any(u8::is_ascii_uppercase)
            && p.iter().any(u8::is_ascii_lowercase)
            && p.iter().any(u8::is_ascii_digit)
    };
    if v.len() >= 32 || !v.contains(&b'/') || v.split(|&b| b == b'/').any(|p| mixed(&p)) {
        return false;
    }
    let mut tail = [0u8; 10];
    let mut n = 0;
    for &b in name.iter().rev().filter(|b| b.is_ascii_alphanumeric()) {
        if n == tail.len() {
            break;
        }
        tail[n] = b.to_ascii_lowercase();
        n += 1;
    }
    &tail[..n] == b"yeketavirp"
}

/// A URL's query string or a part of one (`&authMechanism=MONGODB-OIDC&…`,
/// `?page=2&per_page=20`): two parameters or more, each a name of letters
/// (and `_`) and its `=`, not one secret (a password may open with `?` and
/// hold a `=`: `?K8bGCY2UoB=Kj99`).
fn query_string(v: &[u8]) -> bool {
    let param = |p: &[u8]| {
        let name = p
            .iter()
            .take_while(|b| b.is_ascii_alphabetic() || **b == b'_')
            .count();
        name >= 2 && p.get(name) == Some(&b'=')
    };
    let Some((&first, rest)) = v.split_first() else {
        return false;
    };
    let mut params = rest.split(|&b| b == b'&');
    matches!(first, b'&' | b'?') && params.clone().count() >= 2 && params.all(param)
}

/// An option's name and its `=`, the value to be joined on (boto's
/// `'Credentials:gs_host=' + ip`): lower-case words joined by `_`.
fn option_prefix(v: &[u8]) -> bool {
    let Some(name) = v.strip_suffix(b"=") else {
        return false;
    };
    let mut words = name.split(|&b| b == b'_');
    name.contains(&b'_')
        && name.first().is_some_and(u8::is_ascii_lowercase)
        && words.all(|w| {
            !w.is_empty()
                && w.iter()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// A class's qualified name (`oauth2client.client.OAuth2Credentials`,
/// `com.example.auth.TokenProvider`): three or more identifiers joined by
/// dots, the packages in lower case, the class in camel case (a
/// passphrase's last word is capitalised once: `correct.horse.Battery`).
fn qualified_class_name(v: &[u8]) -> bool {
    let parts: Vec<&[u8]> = v.split(|&b| b == b'.').collect();
    let Some((class, packages)) = parts.split_last() else {
        return false;
    };
    let ident = |p: &[u8]| {
        (1..=64).contains(&p.len())
            && p.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
            && !p[0].is_ascii_digit()
    };
    parts.len() >= 3
        && packages
            .iter()
            .all(|p| ident(p) && p.iter().all(|b| !b.is_ascii_uppercase()) && p.len() <= 32)
        && ident(class)
        && class[0].is_ascii_uppercase()
        && class.iter().any(u8::is_ascii_lowercase)
        && class.iter().filter(|b| b.is_ascii_uppercase()).count() >= 2
}

/// A constant's name: three or more words of capitals joined by `_`
/// (Ansible's `VALUE_SPECIFIED_IN_NO_LOG_PARAMETER`, `CHANGE_ME_IN_PROD`).
fn constant_name(v: &[u8]) -> bool {
    let mut words = v.split(|&b| b == b'_');
    words.clone().count() >= 3
        && words.all(|w| w.len() >= 2 && w.iter().all(u8::is_ascii_uppercase))
}

/// A container's published ports, as `docker run -p` takes them (`8080:80`,
/// `127.0.0.1:5432:5432`, `53:53/udp`, `8000-8010:8000-8010`): a `-p` that
/// a command rule reads on the line of a container named `mongo`
/// (`docker run --name mongo \` / `  -p 27017:27017`) holds no password.
fn port_mapping(v: &[u8]) -> bool {
    let v = v
        .strip_suffix(b"/tcp")
        .or_else(|| v.strip_suffix(b"/udp"))
        .unwrap_or(v);
    let ports = |p: &[u8]| {
        !p.is_empty()
            && p.len() <= 11
            && p.iter().all(|&b| b.is_ascii_digit() || b == b'-')
            && p[0].is_ascii_digit()
    };
    let ipv4 = |p: &[u8]| {
        let octets: Vec<&[u8]> = p.split(|&b| b == b'.').collect();
        octets.len() == 4
            && octets
                .iter()
                .all(|o| (1..=3).contains(&o.len()) && o.iter().all(u8::is_ascii_digit))
    };
    let parts: Vec<&[u8]> = v.split(|&b| b == b':').collect();
    match parts.as_slice() {
        [host, container] => ports(host) && ports(container),
        [ip, host, container] => ipv4(ip) && (host.is_empty() || ports(host)) && ports(container),
        _ => false,
    }
}

/// Whether the bare value `v` is a parameter's or argument's name in a
/// list (Java's `Password storePassword,` on a line of its own): a camel
/// case identifier that reads as words, then `,`, `;` or `)`.
fn parameter_name(v: &[u8]) -> bool {
    let v = trim(v);
    let Some(id) = v
        .strip_suffix(b",")
        .or_else(|| v.strip_suffix(b";"))
        .or_else(|| v.strip_suffix(b")"))
    else {
        return false;
    };
    id.first().is_some_and(u8::is_ascii_lowercase)
        && id.iter().all(u8::is_ascii_alphanumeric)
        && id.iter().any(u8::is_ascii_uppercase)
        && reads_as_words(id)
}

/// Whether `v` is text in a natural language written in letters beyond
/// ASCII: a translated message bundle's `Password=Пароль`, `Confirm\
/// password=パスワードの確認`, `Change\ Password=Ändra lösenord`. Valid
/// UTF-8 with at least one letter beyond ASCII, and only letters, spaces
/// and punctuation (no digit, no symbol a password mixes in). Invalid
/// UTF-8 stays a value.
fn natural_text(v: &[u8]) -> bool {
    let v = trim(v);
    if v.is_ascii() {
        return false;
    }
    let Ok(t) = std::str::from_utf8(v) else {
        return false;
    };
    t.chars().any(|c| !c.is_ascii() && c.is_alphabetic())
        && t.chars().all(|c| {
            c.is_alphabetic()
                || c == ' '
                || c == '\\'
                || matches!(
                    c,
                    '.' | ',' | ':' | ';' | '!' | '?' | '\'' | '(' | ')' | '-'
                )
                || (!c.is_ascii() && (c.is_whitespace() || is_cjk_punctuation(c)))
        })
}

/// The punctuation of Chinese and Japanese text (`、。，！？：；「」（）`).
fn is_cjk_punctuation(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{303F}' | '\u{FF01}'..='\u{FF0F}' | '\u{FF1A}'..='\u{FF1F}' | '・' | '…' | '«' | '»' | '“' | '”' | '„' | '’')
}

/// Whether the bare value `v` refers to a variable of the code it is
/// written in, or opens a composite literal (`SDConfig{`): a Ruby instance
/// or class variable and its members
/// (`token: @user.token`, `ENV["X_KEY"] = @previous_key`), or a Go
/// template's field path (Helm's `{{- $pw := .Values.auth.password }}`,
/// `$.Values.x`). Lower-case names only after `@` (a password may open with
/// `@`, rarely with a lower-case identifier and dots alone), letters of
/// either case after `.` (templates name `.Values`, `.Release`).
fn code_reference(v: &[u8]) -> bool {
    let v = trim(v);
    let ident = |s: &[u8], lower: bool| {
        s.first().is_some_and(|&b| {
            b == b'_' || b.is_ascii_lowercase() || (!lower && b.is_ascii_alphabetic())
        }) && s.iter().all(|&b| {
            b == b'_'
                || b.is_ascii_digit()
                || b.is_ascii_lowercase()
                || (!lower && b.is_ascii_alphabetic())
        })
    };
    // A composite literal's type and brace (Go's `validAPIKey :=
    // SDConfig{`, `&config.Authorization{`), and its fields when they
    // follow on the line after a package's type
    // (`identity.CredentialsWebAuthn{*credentialWebAuthn`).
    if let Some(k) = v.iter().position(|&b| b == b'{') {
        let t = &v[..k];
        let t = t.strip_prefix(b"&").unwrap_or(t);
        let last = t.rsplit(|&b| b == b'.').next().unwrap_or(t);
        let fields = k + 1 < v.len();
        if !last.is_empty()
            && (!fields || (t.contains(&b'.') && last[0].is_ascii_uppercase()))
            && t.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && t.iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
            && reads_as_words(last)
        {
            return true;
        }
    }
    if let Some(rest) = v.strip_prefix(b"@@").or_else(|| v.strip_prefix(b"@")) {
        let rest = rest
            .strip_suffix(b"?")
            .or_else(|| rest.strip_suffix(b"!"))
            .unwrap_or(rest);
        return rest.split(|&b| b == b'.').all(|p| ident(p, true));
    }
    let path = v.strip_prefix(b"$").unwrap_or(v);
    path.len() > 1 && path[0] == b'.' && path[1..].split(|&b| b == b'.').all(|p| ident(p, false))
}

/// Whether the bare value `v` is the rest of a comparison whose first `=`
/// the generic rules took for an assignment's (minified code's
/// `n.config.secret===void 0`: the value read is `==void`).
fn compared(v: &[u8]) -> bool {
    trim(v).starts_with(b"==")
}

/// Whether the bare value `v` holds a compound assignment to a member
/// (minified code's `e.password+=w:e.username+=w`): `.`, a lower-case
/// name that reads as words, then `+=`, `-=`, `|=` or `&=` and a name. A
/// random password's `K+=n` has no member before it.
fn compound_assignment(v: &[u8]) -> bool {
    v.windows(2).enumerate().any(|(k, w)| {
        if !(matches!(w[0], b'+' | b'-' | b'|' | b'&') && w[1] == b'=') {
            return false;
        }
        let before = &v[..k];
        let name = before
            .iter()
            .rposition(|&b| !b.is_ascii_lowercase())
            .map_or(&before[..0], |d| &before[d..]);
        name.len() >= 3
            && name[0] == b'.'
            && reads_as_words(&name[1..])
            && v.get(k + 2)
                .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
    })
}

/// Whether the bare value `v` is a field's type and options in a
/// generator's field list (Phoenix's `mix phx.gen.schema … password:string:redact
/// secret:uuid:redact`, Rails' `token:string:index`): a type, then `:` and
/// lower-case options.
fn field_spec(v: &[u8]) -> bool {
    const TYPES: &[&[u8]] = &[
        b"string",
        b"text",
        b"uuid",
        b"binary",
        b"binary_id",
        b"integer",
        b"float",
        b"decimal",
        b"boolean",
        b"date",
        b"time",
        b"datetime",
        b"utc_datetime",
        b"naive_datetime",
        b"timestamp",
        b"map",
        b"array",
        b"enum",
        b"references",
        b"bigint",
        b"json",
        b"jsonb",
    ];
    let mut parts = trim(v).split(|&b| b == b':');
    parts.next().is_some_and(|t| TYPES.contains(&t))
        && parts.clone().next().is_some()
        && parts.all(|p| {
            !p.is_empty()
                && p.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
}

/// Whether the bare value `v` is a Ruby duration (Devise's
/// `config.reset_password_within = 6.hours`, `5.days.ago`): a number and a
/// unit of time, then `ago` or `from_now` if any.
fn ruby_duration(v: &[u8]) -> bool {
    let v = trim(v);
    let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
    let Some(rest) = v[digits..].strip_prefix(b".") else {
        return false;
    };
    let rest = rest
        .strip_suffix(b".ago")
        .or_else(|| rest.strip_suffix(b".from_now"))
        .unwrap_or(rest);
    let unit = rest.strip_suffix(b"s").unwrap_or(rest);
    digits > 0
        && matches!(
            unit,
            b"second" | b"minute" | b"hour" | b"day" | b"week" | b"month" | b"year"
        )
}

/// Whether `v` fills fields from a format string (`errcode=%d, errmsg=%s`,
/// Go's `token=%v`): a `=` or `: ` right before a `printf` verb, which no
/// URL's percent-encoding writes (`%d` then a byte that is no hex digit).
fn printf_field(v: &[u8]) -> bool {
    v.windows(3).enumerate().any(|(k, w)| {
        matches!(w[0], b'=' | b' ')
            && w[1] == b'%'
            && matches!(w[2], b's' | b'd' | b'v' | b'q')
            && v.get(k + 3).is_none_or(|b| !b.is_ascii_alphanumeric())
    })
}

/// Whether the bare value `v` is a Go error variable (`ErrNotFound`,
/// `ErrMustBeSystemAndHidden`, `errInvalidPassword`): `Err` or `err`, then
/// a capitalised identifier of words.
fn go_error_name(v: &[u8]) -> bool {
    let v = trim(v);
    let Some(rest) = v.strip_prefix(b"Err").or_else(|| v.strip_prefix(b"err")) else {
        return false;
    };
    rest.len() >= 3
        && rest[0].is_ascii_uppercase()
        && rest.iter().all(u8::is_ascii_alphanumeric)
        && rest.iter().any(u8::is_ascii_lowercase)
        && reads_as_words(rest)
}

/// Whether the quoted value `[vs, ve)` is the first part of a key or a
/// message that code builds (`resendKey := "@limitPasswordResetEmail_" +
/// authRecord.Id`, `"session:" + id`, Elixir's `"&_csrf_token=" <> …`):
/// words ending in a separator (`_`, `:`, `/`, `-`, `.`, `=`, `&`, `?`),
/// and `+`, `<>` or `..` after the closing quote.
fn concatenated_prefix(hay: &[u8], (vs, ve): (usize, usize)) -> bool {
    let v = &hay[vs..ve];
    let Some((&last, words)) = v.split_last() else {
        return false;
    };
    let rest = hay.get(ve + 1..).unwrap_or_default();
    let gap = rest
        .iter()
        .take_while(|&&b| matches!(b, b' ' | b'\t'))
        .count();
    let op = &rest[gap..];
    matches!(last, b'_' | b':' | b'/' | b'-' | b'.' | b'=' | b'&' | b'?')
        && (op.starts_with(b"+") || op.starts_with(b"<>") || op.starts_with(b".."))
        && words.iter().any(u8::is_ascii_alphabetic)
        && reads_as_words(words)
}

/// Whether the bare value `v` reads a member of an object, as code sets
/// one field from another (`f.IDToken = p.IDToken`, `oauthResponse["id_token"]
/// = tokenResponse.IDToken`, TypeScript's `secret: config.secret!,` and
/// `password = this.#auth.loginPassword,`): two or more identifiers joined
/// by `.` (or `?.`), the first opening with a lower-case letter, `_` or
/// `$`, a later one with `#` (a private field) if any, a `!` or `?` after
/// the last, a `,` or `;` after that; all of them words
/// ([`reads_as_words`]), and something only code writes: a camel-case or
/// capitalised member, a `_` inside a member, `this`/`self`, a `#`
/// member, or the `!` assertion. Words joined by dots alone
/// (`correct.horse`) may be a password and stay values.
fn member_chain(v: &[u8]) -> bool {
    let v = trim(v);
    let v = v
        .strip_suffix(b",")
        .or_else(|| v.strip_suffix(b";"))
        .unwrap_or(v);
    // Minified code compares without spaces (`n.credentials=e.crossOrigin===`):
    // the value's regex takes the operator for base64's padding.
    let v = v
        .strip_suffix(b"!==")
        .or_else(|| v.strip_suffix(b"==="))
        .or_else(|| v.strip_suffix(b"!="))
        .or_else(|| v.strip_suffix(b"=="))
        .unwrap_or(v);
    let (v, asserted) = match v.strip_suffix(b"!") {
        Some(r) => (r, true),
        None => (v.strip_suffix(b"?").unwrap_or(v), false),
    };
    if v.len() > 96 || !reads_as_words(v) {
        return false;
    }
    let mut code = asserted;
    let mut n = 0;
    for (i, seg) in v.split(|&b| b == b'.').enumerate() {
        // `a?.b`: the `?` ends the member before the dot.
        let seg = seg.strip_suffix(b"?").unwrap_or(seg);
        let (private, id) = match seg.strip_prefix(b"#") {
            Some(r) if i > 0 => (true, r),
            _ => (false, seg),
        };
        let Some(&first) = id.first() else {
            return false;
        };
        let ident = (first.is_ascii_alphabetic() || matches!(first, b'_' | b'$'))
            && id
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'));
        if !ident || (i == 0 && first.is_ascii_uppercase()) {
            return false;
        }
        let humped = id
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        let capital = first.is_ascii_uppercase() && id.iter().any(u8::is_ascii_lowercase);
        let inner_underscore = id.len() > 2 && id[1..id.len() - 1].contains(&b'_');
        code |= private
            || humped
            || (i > 0 && capital)
            || inner_underscore
            || (i == 0 && matches!(id, b"this" | b"self"));
        n += 1;
    }
    n >= 2 && code
}

/// Whether the quoted value `v` is a phrase of two or more capitalized
/// words (`"Authentication Failed"`, `"Access Denied\n"`): a message, as a
/// realm and its error text passed to a call (`("SuperSecret",
/// "Authentication Failed")`), not a passphrase (those are seldom written
/// in Title Case with single spaces).
fn title_phrase(v: &[u8]) -> bool {
    let v = trim(v);
    let v = v.strip_suffix(b"\\n").unwrap_or(v);
    let v = v
        .strip_suffix(b".")
        .or_else(|| v.strip_suffix(b"!"))
        .unwrap_or(v);
    let mut words = 0;
    let all = v.split(|&b| b == b' ').all(|w| {
        words += 1;
        w.len() >= 2 && w[0].is_ascii_uppercase() && word_like(w) && reads_as_words(w)
    });
    all && words >= 2
}

/// Whether the value `v` repeats words of its name, in their order: each
/// of its words (split as names are, [`crate::known::name_word_spans`]:
/// `TLS1` is `TLS`, `1`) is one or more consecutive words of the name; with three words
/// matched, one other word may be out of place. Constants that name
/// themselves do so (`SSL_TXT_kPSK "kPSK"`, `SN_auth_gost01 "AuthGOST01"`,
/// `TLS1_TXT_PSK_WITH_AES_128_CCM_8 "PSK-AES128-CCM8"`,
/// `TLS_MD_SERVER_WRITE_KEY_CONST "server write key"`, also spelled in C
/// escapes `"\x73\x65…"`); a random value is no run of the name's words.
/// No allocation unless the value is in escapes: every masked generic
/// value passes here.
fn echoes_name(name: &[u8], v: &[u8]) -> bool {
    let v = trim(v);
    let decoded;
    let v = match c_hex_escapes(v) {
        Some(d) => {
            decoded = d;
            &decoded[..]
        }
        None => v,
    };
    if v.len() < 3
        || v.len() > 96
        || !v
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b' '))
    {
        return false;
    }
    let mut names = [(0usize, 0usize); 24];
    let mut n = 0;
    for span in crate::known::name_word_spans(name) {
        if n == names.len() {
            return false;
        }
        names[n] = span;
        n += 1;
    }
    let names = &names[..n];
    let word = |k: usize| &name[names[k].0..names[k].1];
    // Where the name's words go on after `w` matched at or after `from`.
    let matches_at = |w: &[u8], from: usize| -> Option<usize> {
        for j in from..names.len() {
            let mut joined = 0;
            let mut m = j;
            while m < names.len() {
                let n = word(m);
                let rest = &w[joined..];
                if rest.len() < n.len() || !rest[..n.len()].eq_ignore_ascii_case(n) {
                    break;
                }
                joined += n.len();
                m += 1;
                if joined == w.len() {
                    return Some(m);
                }
            }
        }
        None
    };
    let (mut from, mut matched, mut missed) = (0, 0, 0);
    // The end of the last word out of place: its digits (`SHA` `256`) are
    // the same word as written.
    let mut missed_end = None;
    for (s, e) in crate::known::name_word_spans(v) {
        match matches_at(&v[s..e], from) {
            Some(next) => {
                from = next;
                matched += 1;
            }
            None if missed_end == Some(s) && v[s..e].iter().all(u8::is_ascii_digit) => {
                missed_end = Some(e);
            }
            None => {
                missed += 1;
                missed_end = Some(e);
                if missed > 1 {
                    return false;
                }
            }
        }
    }
    matched > 0 && (missed == 0 || matched >= 3)
}

/// Whether the bare value `v` is a class named after its field, as type
/// annotations and factories write them (`private_key:
/// x25519.X25519PrivateKey`, `auth: httpx2.Auth | None = None`, `token:
/// AccessToken`): a CamelCase name, after a lower-case module path if any
/// (`x25519.`, `http.cookies.`), that ends in the name's last two words
/// (`MLDSA44Ed25519PrivateKey`), or in its last word and is that word or
/// reads as words. A random value neither ends in its name's words nor
/// reads as words.
fn names_its_type(name: &[u8], v: &[u8]) -> bool {
    let v = trim(v);
    let (module, class) = match v.iter().rposition(|&b| b == b'.') {
        Some(d) => (&v[..d], &v[d + 1..]),
        None => (&b""[..], v),
    };
    let ident =
        |seg: &[u8]| !seg.is_empty() && seg.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    if v.len() > 96
        || !class.first().is_some_and(u8::is_ascii_uppercase)
        || !class.iter().any(u8::is_ascii_lowercase)
        || !ident(class)
        || (!module.is_empty()
            && module
                .split(|&b| b == b'.')
                .any(|seg| !ident(seg) || seg.iter().any(u8::is_ascii_uppercase)))
    {
        return false;
    }
    let (names, classes) = (last_ident_words(name), last_ident_words(class));
    let same = |a: Option<&[u8]>, b: Option<&[u8]>| {
        a.zip(b)
            .is_some_and(|(a, b)| a.len() >= 3 && a.eq_ignore_ascii_case(b))
    };
    if !same(names[1], classes[1]) {
        return false;
    }
    let two = names[0].is_some_and(|n| n.len() >= 3) && same(names[0], classes[0]);
    let one_word = classes[1].is_some_and(|c| c.len() == class.len());
    two || one_word || class_identifier(class)
}

/// `#` or `.` and lower-case words joined by `-` or `_` (two or more):
/// an id or a class a script selects (`"#add-password"`, `".btn-login"`).
fn css_selector(v: &[u8]) -> bool {
    let Some(rest) = v.strip_prefix(b"#").or_else(|| v.strip_prefix(b".")) else {
        return false;
    };
    let mut words = rest.split(|&b| b == b'-' || b == b'_');
    words.clone().count() >= 2
        && words.all(|w| {
            !w.is_empty()
                && w[0].is_ascii_lowercase()
                && w.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The last two of the words of `s` ([`crate::known::name_word_spans`]):
/// `[second to last, last]`.
fn last_ident_words(s: &[u8]) -> [Option<&[u8]>; 2] {
    crate::known::name_word_spans(s).fold([None, None], |w, (ws, we)| [w[1], Some(&s[ws..we])])
}

/// Whether the value `v` is a number of a catalogue, an API version or a
/// pattern rather than a secret: a letter or two and dotted numbers
/// (MITRE ATT&CK's `T1003.008`), a Kubernetes API group's version
/// (`authentication.gke.io/v1alpha1`), a regular expression
/// (`r':(?P<version_short>.+)'`, see [`regex_like`]), or a CSS selector
/// of an id or a class (`"#add-password"`, `".reset-password"`).
fn code_shaped_value(v: &[u8]) -> bool {
    let v = trim(v);
    if css_selector(v) {
        return true;
    }
    let numbered = {
        let letters = v.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let rest = &v[letters..];
        letters <= 2
            && rest.contains(&b'.')
            && rest
                .split(|&b| b == b'.')
                .all(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))
    };
    let api_version = v.iter().rposition(|&b| b == b'/').is_some_and(|k| {
        let (group, version) = (&v[..k], &v[k + 1..]);
        let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
        let version_ok = version.strip_prefix(b"v").is_some_and(|r| {
            let n = r.iter().take_while(|b| b.is_ascii_digit()).count();
            n > 0
                && (r.len() == n
                    || [&b"alpha"[..], b"beta"]
                        .iter()
                        .any(|t| r[n..].strip_prefix(*t).is_some_and(digits)))
        });
        version_ok
            && group.contains(&b'.')
            && group.split(|&b| b == b'.').all(|l| {
                !l.is_empty()
                    && l.iter()
                        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            })
    });
    // A Rails route's `controller#action` (`"active_storage/disk#update"`,
    // `"api_keys#create"`).
    let action = v.iter().position(|&b| b == b'#').is_some_and(|k| {
        let (controller, action) = (&v[..k], &v[k + 1..]);
        let word = |s: &[u8]| {
            !s.is_empty()
                && s.iter()
                    .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        let action = action
            .strip_suffix(b"!")
            .or_else(|| action.strip_suffix(b"?"))
            .unwrap_or(action);
        controller.split(|&b| b == b'/').all(word)
            && word(action)
            && action[0].is_ascii_lowercase()
            // A single word before `#` may be a URL's value and fragment
            // (`?token=secret#section`).
            && controller.iter().any(|&b| b == b'_' || b == b'/')
    });
    // A member's index (`request.headers["X-API-KEY"]`) and a call being
    // built (`"DelegationTokenImage(" + …`).
    let path = |p: &[u8]| {
        p.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && p.iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'))
    };
    let index = v.ends_with(b"]")
        && v.iter().position(|&b| b == b'[').is_some_and(|k| {
            let key = &v[k + 1..v.len() - 1];
            let key = key.strip_prefix(b"\\").unwrap_or(key);
            path(&v[..k]) && v[..k].contains(&b'.') && matches!(key.first(), Some(b'"' | b'\''))
        });
    let call = v.strip_suffix(b"(").is_some_and(|f| {
        path(f)
            && f.split(|&b| b == b'.')
                .all(|p| !p.is_empty() && reads_as_words(p))
    });
    numbered
        || api_version
        || regex_like(v)
        || action
        || validation_rules(v)
        || model_cast(v)
        || index
        || call
        || jose_algorithm(v)
}

/// Whether `v` names a JOSE algorithm (RFC 7518): what an OpenID client's
/// `id_token_encrypted_response_enc: 'A128CBC-HS256'` or a JWT library's
/// `signing_key_alg = "RS256"` holds.
fn jose_algorithm(v: &[u8]) -> bool {
    // ASCII only: the splits below are at byte offsets.
    if !v.is_ascii() {
        return false;
    }
    let Ok(v) = std::str::from_utf8(v) else {
        return false;
    };
    let bits = |s: &str| matches!(s, "256" | "384" | "512");
    let aes = |s: &str| matches!(s, "128" | "192" | "256");
    let key_wrap = |s: &str| {
        s.strip_prefix('A')
            .and_then(|r| r.strip_suffix("KW"))
            .is_some_and(aes)
    };
    match v {
        "EdDSA" | "RSA1_5" | "RSA-OAEP" | "ECDH-ES" | "dir" => return true,
        _ => {}
    }
    if let Some(r) = v.strip_prefix("RSA-OAEP-") {
        return bits(r);
    }
    if let Some(r) = v.strip_prefix("ECDH-ES+") {
        return key_wrap(r);
    }
    if let Some((hs, kw)) = v.strip_prefix("PBES2-HS").and_then(|r| r.split_once('+')) {
        return bits(hs) && key_wrap(kw);
    }
    if let Some(r) = ["HS", "RS", "ES", "PS"]
        .iter()
        .find_map(|p| v.strip_prefix(p))
    {
        return bits(r);
    }
    let Some(r) = v.strip_prefix('A') else {
        return false;
    };
    let (size, mode) = r.split_at(r.len().min(3));
    aes(size)
        && (matches!(mode, "KW" | "GCM" | "GCMKW") || mode.strip_prefix("CBC-HS").is_some_and(bits))
}

/// Whether `v` is a list of validation rules, as Laravel writes them
/// (`'password' => 'required|string|min:8|confirmed'`): two or more rules
/// joined by `|`, each a lower-case word of three letters or more, with
/// `:` and its arguments or not.
fn validation_rules(v: &[u8]) -> bool {
    let mut n = 0;
    let all = v.split(|&b| b == b'|').all(|rule| {
        n += 1;
        let (word, args) = match rule.iter().position(|&b| b == b':') {
            Some(k) => (&rule[..k], &rule[k + 1..]),
            None => (rule, &rule[rule.len()..]),
        };
        word.len() >= 3
            && word.iter().all(|&b| b.is_ascii_lowercase() || b == b'_')
            && args.iter().all(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b',' | b'.' | b'-' | b'/')
            })
    });
    all && n >= 2
}

/// Whether `v` is an Eloquent model's cast of an encrypted attribute
/// (`'secret_json' => 'encrypted:json'`).
fn model_cast(v: &[u8]) -> bool {
    v.strip_prefix(b"encrypted:")
        .is_some_and(|t| matches!(t, b"array" | b"collection" | b"json" | b"object"))
}

/// The bytes a value written wholly in C hex escapes stands for
/// (`\x73\x65\x72` → `ser`), if it is one.
fn c_hex_escapes(v: &[u8]) -> Option<Vec<u8>> {
    if v.len() < 8 || !v.len().is_multiple_of(4) || !v.starts_with(b"\\x") {
        return None;
    }
    v.chunks(4)
        .map(|c| match c {
            [b'\\', b'x', h, l] => {
                let d = |x: u8| (x as char).to_digit(16);
                u8::try_from(d(*h)? * 16 + d(*l)?).ok()
            }
            _ => None,
        })
        .collect()
}

/// Whether the bare value `[vs, ve)` after `name:` (the name ends at `ne`)
/// opens a sentence that describes the field, as docstrings and generated
/// API references do (`initialPassword: vCenter initial password.`,
/// `privateKey: Hardware-backed private key text in SSH format.`,
/// `crypto_key: Base64-encoded string of a CSEK, or the name of a`): a value
/// of words (joined by `-`, `/` or `.`, a number at a word's end allowed),
/// then three words or more, or two and a full stop ending the line. A
/// secret with a sentence after it on the same line would need that shape
/// as well.
fn described(hay: &[u8], ne: usize, (vs, ve): (usize, usize)) -> bool {
    let sep = &hay[ne..vs];
    if !sep.contains(&b':') || sep.contains(&b'=') {
        return false;
    }
    let v = &hay[vs..ve];
    // Words as prose writes them, a number at a word's end allowed
    // (`Base64-encoded`): `Word`, `word`, `ACRONYM`, `mTLS`, `vCenter`; not
    // a random mix of cases (`AbCdEfGhIjKl`).
    let word = |p: &[u8]| {
        let l = p.iter().take_while(|b| b.is_ascii_alphabetic()).count();
        let w = &p[..l];
        let plain =
            |w: &[u8]| word_like(w) || (!w.is_empty() && w.iter().all(u8::is_ascii_uppercase));
        l >= 1
            && p.len() - l <= 3
            && p[l..].iter().all(u8::is_ascii_digit)
            && (plain(w)
                || (l >= 3
                    && w[0].is_ascii_lowercase()
                    && w[1].is_ascii_uppercase()
                    && plain(&w[1..])))
    };
    if v.is_empty() || !v.split(|&b| matches!(b, b'-' | b'/' | b'.')).all(word) {
        return false;
    }
    // The line's first 512 bytes after the value, not found farther (a long
    // line of such values would be read to its end for each).
    let near = (ve + 512).min(hay.len());
    let end = memchr::memchr(b'\n', &hay[ve..near]).map_or(near, |i| ve + i);
    let rest = trim(&hay[ve..end]);
    // A comment after the value (`# rotate monthly`, `// set by ops`) is
    // no description of the field.
    if !matches!(hay.get(ve), Some(b' ' | b'\t'))
        || rest.starts_with(b"#")
        || rest.starts_with(b"//")
        || rest.starts_with(b";")
        || rest.starts_with(b"--")
        || rest.starts_with(b"/*")
    {
        return false;
    }
    let words = rest
        .split(|&b| b == b' ' || b == b'\t')
        .filter(|w| {
            let w = w.strip_suffix(b".").unwrap_or(w);
            let w = w.strip_suffix(b",").unwrap_or(w);
            w.len() >= 2 && w.iter().all(u8::is_ascii_alphabetic)
        })
        .count();
    words >= 3 || (words >= 2 && rest.ends_with(b"."))
}

/// Whether `@name:` before a space opens a member's description
/// (kernel-doc, `@GNUTLS_KX_RSA_PSK: RSA-PSK key-exchange algorithm.`), not
/// an assignment.
fn doc_tag(hay: &[u8], ns: usize, ne: usize, vs: usize) -> bool {
    ns >= 1
        && vs > ne + 1
        && hay[ns - 1] == b'@'
        && hay[ne] == b':'
        && hay[ne + 1..vs].iter().all(|&b| b == b' ' || b == b'\t')
}

/// Where a value `[s, e)` that closes a Markdown code span ends: at its
/// first backtick, when an odd number of backticks opens the line before
/// it (`` Run `mysql -pV` then … ``). A value of one byte before it is
/// none.
fn code_span_close(hay: &[u8], (s, e): (usize, usize)) -> Option<usize> {
    let k = s + 1 + memchr::memchr(b'`', hay.get(s + 1..e)?)?;
    let ls = line_start_before(hay, s);
    (memchr::memchr_iter(b'`', &hay[ls..s]).count() % 2 == 1).then_some(k)
}

/// Where a bare value `[s, e)` of a URL's query parameter ends at the
/// URL's fragment (`https://x.io/cb?token=v#section`: a raw `#` in a URL
/// opens the fragment): the name follows `?` or `&`, a `/` comes before
/// it in the same word, and a `#` after the value's first byte. A value of
/// one byte before it is none.
fn url_fragment_start(
    hay: &[u8],
    (s, e): (usize, usize),
    name: Option<(usize, usize)>,
) -> Option<usize> {
    let (ns, _) = name?;
    if !url_query_name(hay, ns) {
        return None;
    }
    fragment_at(hay, (s, e))
}

/// Where a `#` opens a fragment in the value `[s, e)`, after its first byte.
fn fragment_at(hay: &[u8], (s, e): (usize, usize)) -> Option<usize> {
    Some(s + 1 + memchr::memchr(b'#', hay.get(s + 1..e)?)?)
}

/// Whether the name starting at `ns` is a parameter of a URL's query: it
/// follows `?` or `&`, and a `/` comes before it in the same word.
fn url_query_name(hay: &[u8], ns: usize) -> bool {
    let Some(sep) = ns.checked_sub(1) else {
        return false;
    };
    if !matches!(hay[sep], b'?' | b'&') {
        return false;
    }
    let word = hay[..sep]
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'('))
        .map_or(0, |i| i + 1);
    memchr::memchr(b'/', &hay[word..sep]).is_some()
}

/// Whether `v` is a Markdown code span of lower-case words, a keyword or
/// an identifier a document names (a table's `` `confidential` ``,
/// `` `client_secret_basic` ``): no digit, no capital.
fn code_span_word(v: &[u8]) -> bool {
    let Some(inner) = trim(v)
        .strip_prefix(b"`")
        .and_then(|r| r.strip_suffix(b"`"))
    else {
        return false;
    };
    !inner.is_empty()
        && inner[0].is_ascii_lowercase()
        && inner
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
        && reads_as_words(inner)
}

/// Whether a bare value ending at `ve` is the operand of a comparison
/// (`x = _ref$accessTokenExpir2 === undefined ? … : …`): `===`, `!==`,
/// `==` or `!=` after spaces. Not `&&` or `||`, which end a shell command
/// (`PASSWORD=v && ./run.sh`), nor `??` or `?`, which end a question in
/// prose (`password=v ??`).
fn expression_follows(hay: &[u8], ve: usize) -> bool {
    let rest = &hay[ve.min(hay.len())..];
    let gap = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    if gap == 0 {
        return false;
    }
    let op = &rest[gap..];
    [&b"==="[..], b"!==", b"== ", b"!= "]
        .iter()
        .any(|o| op.starts_with(o))
}

/// Whether `v` is an e-mail address with its `@` percent-encoded, a URL's
/// user (`https://13957525385%40163.com@p28-contacts.icloud.com/…`).
fn encoded_email(v: &[u8]) -> bool {
    let Some(k) = v.windows(3).position(|w| w.eq_ignore_ascii_case(b"%40")) else {
        return false;
    };
    let decoded = [&v[..k], b"@", &v[k + 3..]].concat();
    email_address(&decoded)
}

/// Whether `v` is an object's identity as Java and Android print it: a
/// class name and its hash code (`android.os.BinderProxy@2bd79ce`,
/// `AppWindowToken{9f4ef63`, `Token{a64f992`), never a secret.
fn object_identity(v: &[u8]) -> bool {
    let Some(k) = v.iter().position(|&b| b == b'@' || b == b'{') else {
        return false;
    };
    let (class, hash) = (&v[..k], &v[k + 1..]);
    let last = class.rsplit(|&b| b == b'.').next().unwrap_or(class);
    // `@` after a package's class (`Summer@2024` is a password); a hash of
    // hex digits and letters after `{`.
    let packaged = class.contains(&b'.') && class[0].is_ascii_lowercase();
    let hex_mix = hash.iter().any(u8::is_ascii_digit) && hash.iter().any(u8::is_ascii_lowercase);
    (if v[k] == b'@' {
        packaged
    } else {
        hex_mix && hash.len() >= 6
    }) && (4..=8).contains(&hash.len())
        && hash
            .iter()
            .all(|&b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && last.first().is_some_and(u8::is_ascii_uppercase)
        && class
            .split(|&b| b == b'.')
            .all(|p| identifier(p) && (p.len() < 16 || reads_as_words(p)))
        && reads_as_words(last)
}

/// Whether `v` is a host name (`www.whitelisteddomain.tld` before the `@`
/// of an open-redirect probe, `https://www.example.com@evil.test`), after
/// percent-escapes that open it (`%5cwww.…`): two or more labels of
/// lower-case letters, digits and `-`, the last of letters only. A token
/// used as a URL's user has capitals or `_`, or no dot.
fn host_name(v: &[u8]) -> bool {
    let mut v = v;
    while v.len() >= 3 && v[0] == b'%' && v[1].is_ascii_hexdigit() && v[2].is_ascii_hexdigit() {
        v = &v[3..];
    }
    let mut labels = v.split(|&b| b == b'.');
    let last = labels.next_back().unwrap_or_default();
    let label = |l: &[u8]| {
        !l.is_empty()
            && l.iter()
                .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    labels.clone().count() >= 1
        && labels.all(label)
        && (2..=24).contains(&last.len())
        && last.iter().all(u8::is_ascii_lowercase)
}

pub(crate) fn run(
    check: Check,
    hay: &[u8],
    secret: (usize, usize),
    name: Option<(usize, usize)>,
    group_alt: usize,
) -> Verdict {
    // A bare value that closes a Markdown code span (`redis-cli -a v` in a
    // README) ends before the span's backtick: the mask keeps the span.
    let cut = match check {
        Check::Value | Check::Command | Check::Generic => code_span_close(hay, secret),
        // A header's value in HTML ends at its cell's or element's closing
        // tag (`<td>Authorization: TOKEN</td>`): no credential holds `</`.
        Check::Bearer | Check::BareBearer => memchr::memmem::find(&hay[secret.0..secret.1], b"</")
            .filter(|&k| k > 0)
            .map(|k| secret.0 + k),
        _ => None,
    };
    // A bare query-parameter value ends at its URL's fragment.
    let cut = match (cut, check, group_alt >= 2) {
        (None, Check::Generic, true) => url_fragment_start(hay, secret, name),
        (cut, ..) => cut,
    };
    let secret = cut.map_or(secret, |k| (secret.0, k));
    let v = &hay[secret.0..secret.1];
    // A template's text before its placeholder: the value runs into a `{`
    // (`Bearer eyJhbGciOi….{}.{}`), or holds the `{` of a `}` right after
    // it (`format!("OPENAI_API_KEY=sk-proj-{}", …)`, `"ghp_{token}"`).
    // The program fills the secret in; the source holds none.
    // (`GenericKv`'s match holds the name too: its value is asked below.)
    match hay.get(secret.1) {
        Some(b'{') => return Verdict::Reject,
        Some(b'}') if check != Check::GenericKv && v.contains(&b'{') => return Verdict::Reject,
        _ => {}
    }
    let ok = |b: bool| match (b, cut) {
        (true, None) => Verdict::Accept,
        (true, Some(_)) => Verdict::Spans(vec![secret]),
        (false, _) => Verdict::Reject,
    };
    match check {
        Check::Token => ok(!looks_fake(v)),
        Check::Mixed => ok(!looks_fake(v) && classes(v) >= 2 && entropy(v) >= 3.0),
        Check::VendorNamed => {
            // Meraki's, SonarQube's and Sendbird's keys are 40 hex digits; under other
            // names that is a commit (`bitbucket: <sha>`).
            let name = name.map_or(&[][..], |(s, e)| &hay[s..e]);
            let keyed_by_hex = [&b"meraki"[..], b"sonar", b"sendbird"].iter().any(|n| {
                name.len() >= n.len() && name[name.len() - n.len()..].eq_ignore_ascii_case(n)
            });
            let sha = v.len() == 40
                && v.iter()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
            ok(vendor_named_value(v) && (keyed_by_hex || !sha))
        }
        Check::ShortPrefix => {
            // Minified code's `Object(s.OAS3ComponentWrapFactory)`: a
            // member of a one-letter variable, whose name reads as words.
            // Words of four letters or more make up most of such a name
            // (`ComponentWrapFactory`); random letters that read as words
            // by chance have few (`aio_hciJDaQhfwDeRBVynkTgyWgyONS6`: `Vynk`).
            ok(!looks_fake(v)
                && v.iter().any(u8::is_ascii_digit)
                && entropy(v) >= 3.5
                && !(reads_as_words(v) && mostly_long_words(v)))
        }
        Check::AwsSecret => ok(!looks_fake(v)
            && classes(v) >= 3
            && entropy(v) >= 4.0
            && !words_between_slashes(v)
            && !pascal_name(v)
            && !path_or_arn_part(hay, secret)),
        Check::Azure88 => {
            let ctx = lower(before_on_line(hay, secret.0, 48));
            let bad = [
                &b"sha"[..],
                b"md5",
                b"hash",
                b"digest",
                b"checksum",
                b"integrity",
                b"signature",
                b"sig",
                b"fingerprint",
                b"nonce",
                b"salt",
            ]
            .iter()
            .any(|m| contains(&ctx, m));
            ok(!bad
                && !after_id_name(hay, secret.0)
                && !looks_fake(v)
                && classes(v) >= 3
                && entropy(v) >= 4.0)
        }
        Check::DockerAuth => {
            if is_placeholder(v) {
                return Verdict::Reject;
            }
            let decoded_ok = b64_decode(v).is_some_and(|d| {
                d.contains(&b':')
                    && d.len() >= 3
                    && d.iter().all(|&b| (0x20..0x7f).contains(&b) || b >= 0x80)
            });
            ok(decoded_ok || (v.len() >= 16 && entropy(v) >= 3.0))
        }
        Check::Generic => {
            let Some((ns, ne)) = name else {
                return Verdict::Reject;
            };
            let ns = after_escape(hay, ns, ne);
            // A short word is a value only as a human password (the rest
            // of the checks reject it).
            let short = short_word(trim(v));
            let human = short && human_password(hay, (ns, ne), secret, group_alt < 2);
            if (short && !human) || code_span_word(v) {
                return Verdict::Reject;
            }
            if group_alt < 2 && label_in_string(hay, (ns, ne), secret.0) {
                return Verdict::Reject;
            }
            // `let token: ResourceToken = …`, `static TOKEN: OnceLock<u64>`.
            if group_alt >= 2 && ne <= secret.0 && colon_not_assignment(hay, ne, secret.0) {
                return Verdict::Reject;
            }
            if member_access(hay, secret.1)
                || path_segment(hay, ns)
                || url_scheme(hay, ne)
                || qualified_apart(hay, ns, ne)
                || diffstat_rename(hay, (ns, ne), secret)
                || random_run_name(hay, (ns, ne))
                || derived_from_literals(hay, ns, secret.1)
            {
                return Verdict::Reject;
            }
            if signing_key_id(&hay[ns..ne], trim(v)) || spells_name(&hay[ns..ne], v) {
                return Verdict::Reject;
            }
            // A name called with the literal: a setter's only argument.
            if hay.get(ne) == Some(&b'(') && !setter_literal(hay, ns, ne, secret) {
                return Verdict::Reject;
            }
            // Last: a value that passes is rare, and this reads both words.
            match classify_name(&hay[ns..ne]) {
                Some(tier) => {
                    let name = &hay[ns..ne];
                    let quoted = group_alt < 2;
                    ok((human || value_ok(tier, v, quoted)) && !value_is_code(name, v, quoted))
                }
                None => Verdict::Reject,
            }
        }
        Check::GenericKv => {
            let Some((ns, ne, vs, ve, quoted)) = split_assignment(hay, secret.0, secret.1) else {
                return Verdict::Reject;
            };
            if hay.get(ve) == Some(&b'}') && hay[vs..ve].contains(&b'{') {
                return Verdict::Reject;
            }
            let ns = after_escape(hay, ns, ne);
            // A bare value of a URL's query parameter ends at the fragment.
            // A word right after `=` is a value, and its `:` no operator
            // (ffmpeg's filter options `overlay=eof_action=pass:repeatlast=0`).
            if ns > 0 && hay[ns - 1] == b'=' && hay[ne..vs].trim_ascii() == b":" {
                return Verdict::Reject;
            }
            let in_query = !quoted && url_query_name(hay, ns);
            let ve = match in_query {
                true => fragment_at(hay, (vs, ve)).unwrap_or(ve),
                false => ve,
            };
            let short = short_word(trim(&hay[vs..ve]));
            let human = short && human_password(hay, (ns, ne), (vs, ve), quoted);
            if (short && !human) || (quoted && label_in_string(hay, (ns, ne), vs)) {
                return Verdict::Reject;
            }
            // A URL's `?key=` is an API key (`/v1/list?key=…`): judged as
            // `<word>_key` is (a cache or object key is no random token).
            let query_key = in_query && hay[ns..ne].eq_ignore_ascii_case(b"key");
            // The cheap rejections first (`token_count=3`): the verdict is the same.
            if !query_key && !NameMemo::with_thread(|m| m.may_be_secret(&hay[ns..ne])) {
                return Verdict::Reject;
            }
            if url_scheme(hay, ne) || qualified_apart(hay, ns, ne) {
                return Verdict::Reject;
            }
            // `${NAME:-default}` is a shell default (its own rule masks the default).
            if ns >= 2 && &hay[ns - 2..ns] == b"${" {
                return Verdict::Reject;
            }
            // `arn:aws:secretsmanager:…:secret:prod/db` names a secret, it is not one.
            if contains_arn(before_on_line(hay, ns, 96)) {
                return Verdict::Reject;
            }
            if member_access(hay, ve)
                || path_segment(hay, ns)
                || doc_tag(hay, ns, ne, vs)
                || test_status(hay, ns, ne, vs)
                || file_named(hay, ns, ne, vs)
                || diffstat_rename(hay, (ns, ne), (vs, ve))
            {
                return Verdict::Reject;
            }
            if !quoted
                && (colon_not_assignment(hay, ne, vs)
                    || described(hay, ne, (vs, ve))
                    || expression_follows(hay, ve))
            {
                return Verdict::Reject;
            }
            // `this.pskIdentity = pskIdentity;`: a field set from a variable
            // of its name; `PrivateKey: sigKey1,`: a struct literal's field.
            let name = &hay[ns..ne];
            let last = name.rsplit(|&b| b == b'.').next().unwrap_or(name);
            if !quoted
                && (trim(&hay[vs..ve]).eq_ignore_ascii_case(last)
                    || field_variable(hay, (vs, ve))
                    || typed_class_value(hay, (ns, ne), (vs, ve)))
            {
                return Verdict::Reject;
            }
            // `= StandardTokenResponse<A, B>`: a generic type, not a value.
            if !quoted
                && hay.get(ve) == Some(&b'<')
                && hay[vs..ve]
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
            {
                return Verdict::Reject;
            }
            if signing_key_id(name, trim(&hay[vs..ve]))
                || spells_name(name, &hay[vs..ve])
                || (quoted && concatenated_prefix(hay, (vs, ve)))
            {
                return Verdict::Reject;
            }
            let ve = match quoted {
                false => app_token_end(hay, (vs, ve)).unwrap_or(ve),
                true => ve,
            };
            let tier = classify_name(&hay[ns..ne]).or(query_key.then_some(Tier::Keyed));
            match tier {
                Some(tier)
                    if (human || value_ok(tier, &hay[vs..ve], quoted))
                        && !value_is_code(name, &hay[vs..ve], quoted) =>
                {
                    Verdict::Spans(vec![(vs, ve)])
                }
                _ => Verdict::Reject,
            }
        }
        Check::Value => {
            ok(value_ok(Tier::Strong, v, group_alt < 2) && !(group_alt >= 2 && parameter_name(v)))
        }
        Check::Command => ok(
            (word_password(trim(v)) || value_ok(Tier::Strong, v, group_alt < 2))
                && !(group_alt >= 2 && parameter_name(v))
                && !port_mapping(trim(v)),
        ),
        Check::Phrase => {
            let Some((ns, ne)) = name else {
                return Verdict::Reject;
            };
            ok(!phrase_about_secret(&hay[ns..ne])
                && !v.ends_with(b".")
                && classes(v) >= 2
                && short_random(v)
                && value_ok(Tier::Strong, v, false))
        }
        Check::Handover => {
            let Some((ns, ne)) = name else {
                return Verdict::Reject;
            };
            let password = contains(&lower(&hay[ns..ne]), b"pass");
            ok(!v.ends_with(b".")
                && classes(v) >= 2
                && short_random(v)
                && value_ok(Tier::Strong, v, false)
                && (password || !reads_as_words(v)))
        }
        Check::Typed => {
            let Some((ns, ne)) = name else {
                return Verdict::Reject;
            };
            // Not a parameter list's (`password: str, method: str = "scrypt"`).
            let short = short_word(trim(v));
            let human = short
                && !hay[ne..secret.0].contains(&b',')
                && human_password(hay, (ns, ne), secret, true);
            if (short && !human) || !typed_name(&hay[ns..ne]) {
                return Verdict::Reject;
            }
            // A token or key name wants a random value (`request_key: str =
            // "werkzeug.request"` names a key); a bare `key`/`tok` too.
            let tier = classify_name(&hay[ns..ne]).unwrap_or(Tier::Token);
            ok((human || value_ok(tier, v, true)) && !value_is_code(&hay[ns..ne], v, true))
        }
        Check::UrlPassword => {
            let l = lower(v);
            ok(!is_placeholder(v)
                && !looks_like_code(v)
                && l != b"password"
                && l != b"pass"
                && l != b"secret"
                && !l.starts_with(b"$"))
        }
        Check::UrlToken => ok(!looks_fake(v)
            && classes(v) >= 2
            && entropy(v) >= 3.0
            && v.len() >= 16
            && !host_name(v)
            && !encoded_email(v)),
        Check::Bearer | Check::BareBearer => {
            // `token_type=bearer latency_ms=12`: the next field's name and
            // its `=`, a name that reads as words (decided before the
            // costlier tests below: every line of such a log asks).
            if let Some(field) = v.strip_suffix(b"=") {
                let value_follows = hay.get(secret.1).is_some_and(|&b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'"' | b'\'' | b'-')
                });
                if check == Check::BareBearer
                    && value_follows
                    && field.first().is_some_and(u8::is_ascii_alphabetic)
                    && field
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
                    && reads_as_words(field)
                {
                    return Verdict::Reject;
                }
            }
            let l = lower(v);
            let scheme_words: &[&[u8]] = &[
                b"bearer",
                b"basic",
                b"digest",
                b"token",
                b"bot",
                b"negotiate",
                b"ntlm",
                b"hmac",
                b"signature",
                b"oauth",
                b"jwt",
                b"apikey",
                b"key",
                b"ssws",
            ];
            // A scheme named for a key or token (`Api-Token`,
            // `DeepL-Auth-Key`: letters and hyphens) is no credential (the
            // window of one whose credential is masked already ends there).
            let scheme_named = (l.ends_with(b"key") || l.ends_with(b"token"))
                && l.iter().all(|&b| b.is_ascii_lowercase() || b == b'-');
            // `TlRMTVNTUAAD` alone is the base64 of NTLM's signature and
            // message type (`strstr(buf, "Authorization: NTLM TlRMTVNTUAAD")`),
            // no message.
            let ntlm_signature = v.len() <= 16 && v.starts_with(b"TlRMTVNTUAA");
            if scheme_words.contains(&l.as_slice())
                || scheme_named
                || ntlm_signature
                || l.starts_with(b"aws4-")
                || l.starts_with(b"[redacted")
            {
                return Verdict::Reject;
            }
            // A scheme the rule does not list (`Authorization: Non-existent
            // testtoken`, `Custom-Scheme v`): words of letters joined by
            // `-`, then a space and the credential, which ends the value
            // (prose goes on: `Authorization: Requires the x permission`)
            // and has no `=` but padding (`algorithm Credential=id/scope`),
            // judged in its place.
            if check == Check::Bearer
                && cut.is_none()
                && hay.get(secret.1) == Some(&b' ')
                && v.len() >= 3
                && v[0].is_ascii_alphabetic()
                && v.iter().all(|&b| b.is_ascii_alphabetic() || b == b'-')
                && reads_as_words(v)
            {
                let next = secret.1 + 1;
                // The text ends at the space: the window stops before the
                // marker of a credential masked already.
                if next == hay.len() {
                    return Verdict::Reject;
                }
                let end = hay[next..]
                    .iter()
                    .position(|&b| {
                        b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'\\' | b',' | b';')
                    })
                    .map_or(hay.len(), |k| next + k);
                let token = &hay[next..end];
                let padding = token.iter().rev().take_while(|&&b| b == b'=').count();
                if end > next
                    && hay.get(end).is_none_or(|&b| b != b' ' && b != b'\t')
                    && !token[..token.len() - padding].contains(&b'=')
                {
                    return match run(check, hay, (next, end), name, group_alt) {
                        Verdict::Accept => Verdict::Spans(vec![(next, end)]),
                        other => other,
                    };
                }
            }
            // `authorization=authorization`, `{'Authorization': auth_token}`,
            // `'Proxy-Authorization' : 'Authorization'`: a word or a variable.
            let bare = v
                .strip_suffix(b"}")
                .or_else(|| v.strip_suffix(b")"))
                .or_else(|| v.strip_suffix(b"]"))
                .unwrap_or(v);
            if v.len() < 8
                || is_placeholder(v)
                || looks_like_code(v)
                || secret_word_phrase(v)
                || word_like(v)
                || sentence_word(v)
                || (bare.len() < v.len() && looks_like_code(bare))
                || member_access(hay, secret.1)
                || class_identifier(v)
                || natural_text(v)
            {
                return Verdict::Reject;
            }
            // `authorization: 'area/authorization'`: a label of lower-case
            // words joined by `/`.
            if v.contains(&b'/')
                && v.split(|&b| b == b'/').all(|w| {
                    !w.is_empty()
                        && w.iter()
                            .all(|&b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
                        && reads_as_words(w)
                })
            {
                return Verdict::Reject;
            }
            // `Authorization::{…}` (a path), `Bearer realm="…"` /
            // `Bearer resource_metadata="…"` (a challenge's auth-param), Go's
            // `Authorization: &config.Authorization{` (a composite literal:
            // no token holds `{`).
            if v[0] == b':' || v[0] == b'&' || v.ends_with(b"{") {
                return Verdict::Reject;
            }
            // An OAuth provider's `authorization: "https://…/authorize"`
            // names its endpoint: no credential is a URL.
            if is_url(v) {
                return Verdict::Reject;
            }
            // `dst.Spec.Tenants.Authorization = dstAuthz`: a variable, in
            // letters and camel case, no longer than names run.
            if check == Check::Bearer
                && v.len() <= 24
                && v[0].is_ascii_lowercase()
                && v.iter().all(u8::is_ascii_alphabetic)
                && v.iter().any(u8::is_ascii_uppercase)
            {
                return Verdict::Reject;
            }
            if let Some(eq) = v.iter().position(|&b| b == b'=') {
                let param = &v[..eq];
                if !param.is_empty()
                    && param
                        .iter()
                        .all(|&b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
                    && (eq + 1 == v.len() || hay.get(secret.0 + eq + 1) == Some(&b'"'))
                {
                    return Verdict::Reject;
                }
                // `token_type=bearer api_key_last4=9f2c`, `bearer
                // auth.provider=github`: a name that reads as words, one `=`
                // and the text going on at once with a letter or digit: an
                // assignment after the word (a credential's padding ends its
                // token; a padded JWT segment goes on with `.`).
                if eq + 1 == v.len()
                    && param.first().is_some_and(u8::is_ascii_alphabetic)
                    && reads_as_words(param)
                    && hay
                        .get(secret.1)
                        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                {
                    return Verdict::Reject;
                }
                // `OAuth realm=movies, oauth_…`, `Digest username=Mufasa`: a
                // list of auth-params (RFC 7235: a token68 credential has `=`
                // only as its padding), led by one that names no secret; the
                // params that hold one are judged by their own names. A
                // query string (`sr=…&sig=…`) is a credential of its own.
                if param.first().is_some_and(u8::is_ascii_alphabetic)
                    && param
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                    && v[eq..].iter().any(|&b| b != b'=')
                    && !v.contains(&b'&')
                    && !name_may_be_secret(param)
                {
                    return Verdict::Reject;
                }
            }
            if check == Check::BareBearer {
                // `jwt-bearer grant-type`: lower-case words, as prose names
                // things after `bearer`; a token has digits or capitals.
                if v.iter()
                    .all(|&b| b.is_ascii_lowercase() || b == b'-' || b == b'_')
                {
                    return Verdict::Reject;
                }
                // `Bearer token123`: a word and a number.
                let letters = v.iter().take_while(|b| b.is_ascii_alphabetic()).count();
                let fixture = letters >= 3
                    && v.len() - letters <= 4
                    && v[letters..].iter().all(u8::is_ascii_digit);
                return ok(!fixture && classes(v) >= 2 && entropy(v) >= 3.0);
            }
            ok(entropy(v) >= 2.0)
        }
        // Base64 is never one character past a multiple of four
        // (`Basic Operators`, `Basic SFNT/TrueType`), nor a word.
        Check::BasicValue => ok(!is_placeholder(v)
            && v.len() % 4 != 1
            && !word_like(v)
            && b64_decode(v).is_some_and(|d| {
                d.len() >= 3
                    && d.contains(&b':')
                    && d.iter().all(|&b| (0x20..0x7f).contains(&b) || b >= 0x80)
            })),
        Check::Cookie => cookie_spans(hay, secret),
        Check::Pem => pem_body(hay, secret),
        Check::PemLines => pem_lines(hay, secret),
        Check::Base64Pem => {
            let head = &v[..v.len().min(120) / 4 * 4];
            ok(b64_decode(head).is_some_and(|d| contains(&d, b"PRIVATE KEY")))
        }
        Check::Base64Jwt => ok(b64_decode(v).is_some_and(|d| decodes_to_jwt(&d))),
    }
}

/// Whether `d` (a decoded base64 value) is a JWT: a header and a payload
/// of at least 8 base64url characters each, both JSON (`eyJ`), then a
/// signature or nothing (and the line break `echo … | base64` adds).
fn decodes_to_jwt(d: &[u8]) -> bool {
    let d = d.strip_suffix(b"\n").unwrap_or(d);
    let url = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
    let mut parts = d.split(|&b| b == b'.');
    let json = |p: Option<&[u8]>| {
        p.is_some_and(|p| p.len() >= 11 && p.starts_with(b"eyJ") && p.iter().all(url))
    };
    json(parts.next())
        && json(parts.next())
        && parts
            .next()
            .is_none_or(|s| s.iter().all(|b| url(b) || *b == b'='))
        && parts.next().is_none()
}

/// The end of a Facebook app access token whose app id is the bare value
/// `hay[vs..ve]`: 15 or 16 digits, then `|` and 27 to 40 token bytes (the
/// app's secret or client token) up to a byte that is none. A bare value
/// ends before `|` (a shell pipe), so the pattern leaves the secret part
/// out, and the app id alone reads as a number.
fn app_token_end(hay: &[u8], (vs, ve): (usize, usize)) -> Option<usize> {
    let token = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-');
    if !(15..=16).contains(&(ve - vs))
        || !hay[vs..ve].iter().all(u8::is_ascii_digit)
        || hay.get(ve) != Some(&b'|')
    {
        return None;
    }
    let rest = &hay[ve + 1..hay.len().min(ve + 42)];
    let n = rest.iter().take_while(|&&b| token(b)).count();
    ((27..=40).contains(&n)).then_some(ve + 1 + n)
}

/// Splits a `name = value` match `[s, e)` into (name start, name end, value
/// start, value end, quoted).
pub(crate) fn split_assignment(
    hay: &[u8],
    s: usize,
    e: usize,
) -> Option<(usize, usize, usize, usize, bool)> {
    let mut i = s;
    while i < e && !is_name_byte(hay[i]) {
        i += 1;
    }
    let ns = i;
    while i < e && is_name_byte(hay[i]) {
        i += 1;
    }
    let ne = i;
    while i < e && matches!(hay[i], b'"' | b'\'' | b'`' | b']' | b' ' | b'\t') {
        i += 1;
    }
    match assign_op_len(hay, i, e) {
        0 => return None,
        n => i += n,
    }
    while i < e && matches!(hay[i], b' ' | b'\t') {
        i += 1;
    }
    // A YAML tag (`!!binary`, `!!str`) with a value after it: the value.
    if hay[i..e].starts_with(b"!!") {
        let mut t = i + 2;
        while t < e && hay[t].is_ascii_alphabetic() {
            t += 1;
        }
        let mut v = t;
        while v < e && matches!(hay[v], b' ' | b'\t') {
            v += 1;
        }
        if t > i + 2 && v > t && v < e {
            i = v;
        }
    }
    if i >= e || ns == ne {
        return None;
    }
    // A string prefix (`b'…'`, `r"…"`, `br'…'`): the value is the literal.
    // A bare value holds no quote, so a prefix before a quote is one.
    if let Some(q) = string_prefix_end(hay, i, e) {
        if e >= q + 2 && hay[e - 1] == hay[q] {
            return Some((ns, ne, q + 1, e - 1, true));
        }
    }
    // A Python triple-quoted string on one line (`PASSWORD = """v"""`).
    let q = hay[i];
    if matches!(q, b'"' | b'\'') && e >= i + 7 && hay[i..i + 3] == [q; 3] && hay[e - 3..e] == [q; 3]
    {
        return Some((ns, ne, i + 3, e - 3, true));
    }
    match hay[i] {
        b'"' | b'\'' | b'`' if e >= i + 2 && hay[e - 1] == hay[i] => {
            Some((ns, ne, i + 1, e - 1, true))
        }
        b'"' | b'\'' | b'`' => None,
        _ => Some((ns, ne, i, e, false)),
    }
}

/// Whether `v` is a call on a path of names that read as words, to its
/// closing parenthesis (Kotlin's `val cookie: Cookie =
/// Cookie.Builder().build()`): code that makes a cookie, not one.
fn call_chain(v: &[u8]) -> bool {
    let Some(k) = v.iter().position(|&b| b == b'(') else {
        return false;
    };
    let path = &v[..k];
    v.ends_with(b")") && path.split(|&b| b == b'.').all(identifier) && reads_as_words(path)
}

fn cookie_spans(hay: &[u8], (s, e): (usize, usize)) -> Verdict {
    // `if cookie == 0`: a comparison.
    if hay.get(s) == Some(&b'=') {
        return Verdict::Reject;
    }
    let mut spans = Vec::new();
    let mut pos = s;
    for part in hay[s..e].split(|&b| b == b';' || b == b',') {
        let start = pos;
        pos += part.len() + 1;
        let Some(eq) = part.iter().position(|&b| b == b'=') else {
            continue;
        };
        let name = lower(trim(&part[..eq]));
        // A cookie's name is a token (RFC 6265): code that assigns
        // (`cookie: BaseCookie[str] = SimpleCookie()`) names no cookie.
        if name.iter().any(|b| b" \t()[]{}<>/?@:\\\"".contains(b)) {
            continue;
        }
        let mut vs = start + eq + 1;
        let mut ve = start + part.len();
        while vs < ve && (hay[vs] == b' ' || hay[vs] == b'"') {
            vs += 1;
        }
        while ve > vs && (hay[ve - 1] == b' ' || hay[ve - 1] == b'"') {
            ve -= 1;
        }
        let v = &hay[vs..ve];
        // No cookie value holds a space (RFC 6265): code does
        // (`let cookie: String = self.cookies.map { (name`).
        if v.len() < 6 || is_placeholder(v) || call_chain(v) || v.contains(&b' ') {
            continue;
        }
        let name_s = String::from_utf8_lossy(&name);
        if COOKIE_ATTRIBUTES.contains(&name_s.as_ref()) {
            continue;
        }
        let sessiony = SESSION_COOKIE_HINTS.iter().any(|h| name_s.contains(h));
        let randomish = v.len() >= 20
            && classes(v) >= 2
            && entropy(v) >= 3.5
            && !v.iter().all(|&b| b.is_ascii_digit() || b == b'.');
        if sessiony || randomish {
            spans.push((vs, ve));
        }
    }
    if spans.is_empty() {
        Verdict::Reject
    } else {
        Verdict::Spans(spans)
    }
}

/// [`Check::PemLines`]: the base64 between each line's quotes.
fn pem_lines(hay: &[u8], (s, e): (usize, usize)) -> Verdict {
    let is_b64 = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=');
    let mut spans = Vec::new();
    let mut total = 0;
    for (ls, line) in hay[s..e].split(|&b| b == b'\n').scan(s, |at, l| {
        let ls = *at;
        *at += l.len() + 1;
        Some((ls, l))
    }) {
        let Some(q) = line.iter().position(|&b| b == b'"' || b == b'\'') else {
            continue;
        };
        let n = line[q + 1..].iter().take_while(|&&b| is_b64(b)).count();
        if n > 0 {
            spans.push((ls + q + 1, ls + q + 1 + n));
            total += n;
        }
    }
    if total < 32 {
        Verdict::Reject
    } else {
        Verdict::Spans(spans)
    }
}

fn pem_body(hay: &[u8], (s, e): (usize, usize)) -> Verdict {
    let body = &hay[s..e];
    let b64 = body
        .iter()
        .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        .count();
    if b64 < 32 {
        return Verdict::Reject;
    }
    // Keep the separators around the body (real or escaped line breaks, spaces)
    // so the armour lines keep their own lines.
    let is_sep_at = |i: usize| -> usize {
        match hay[i] {
            b'\n' | b'\r' | b' ' | b'\t' => 1,
            b'\\' if i + 1 < e && matches!(hay[i + 1], b'n' | b'r') => 2,
            b'\\' if i + 2 < e && hay[i + 1] == b'\\' && matches!(hay[i + 2], b'n' | b'r') => 3,
            _ => 0,
        }
    };
    let mut a = s;
    while a < e {
        let k = is_sep_at(a);
        if k == 0 {
            break;
        }
        a += k;
    }
    let mut b = e;
    'outer: while b > a {
        for k in [1usize, 2, 3] {
            if b >= a + k && is_sep_at(b - k) == k {
                b -= k;
                continue 'outer;
            }
        }
        break;
    }
    if a >= b {
        Verdict::Reject
    } else {
        Verdict::Spans(vec![(a, b)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random letters and digits never pass for names in words: none of
    /// 200 000 tokens of 8–40 characters (fixed seed) reads as a secret's
    /// name in camel case or as a dotted member, and none of 50 000 random
    /// 40-character base64 runs reads as words between slashes or as a
    /// name of capitalised words (shorter random tokens can:
    /// `Ii2XcmePqisT28PazyvQu61Hyes`, so only the 40 characters of an AWS
    /// secret are asked).
    #[test]
    fn random_tokens_never_read_as_names_in_words() {
        let mut x = 0x5eed_c0de_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let b64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for i in 0..200_000 {
            let t: Vec<u8> = (0..8 + i % 33)
                .map(|_| b64[(next() % 62) as usize])
                .collect();
            assert!(!camel_secret_name(&t), "{}", String::from_utf8_lossy(&t));
            assert!(!dotted_words(&t), "{}", String::from_utf8_lossy(&t));
        }
        for _ in 0..50_000 {
            let k: Vec<u8> = (0..40).map(|_| b64[(next() % 64) as usize]).collect();
            assert!(
                !words_between_slashes(&k),
                "{}",
                String::from_utf8_lossy(&k)
            );
            assert!(!pascal_name(&k), "{}", String::from_utf8_lossy(&k));
        }
    }

    #[test]
    fn names_in_words_are_told_from_tokens() {
        for name in [
            &b"AWSAccessKeyId"[..],
            b"SSECustomerKeyMD5",
            b"X509KeyUsageExtension",
            b"Socks5Auth",
            b"X448PrivateKey",
            b"X509BasicConstraintsExtensionKey",
        ] {
            assert!(camel_secret_name(name), "{}", String::from_utf8_lossy(name));
        }
        for token in [
            &b"EhGLJA1cnUyrvGAIY7"[..],
            b"IaOYfzqjXXIcbRXEV9",
            b"AprdL6IN",
            b"TableDescription",
            b"keyQzXw9Lm",
        ] {
            assert!(
                !camel_secret_name(token),
                "{}",
                String::from_utf8_lossy(token)
            );
        }
        assert!(dotted_words(b"exports.X509BasicConstraintsExtension"));
        assert!(!dotted_words(b"hunter2.prod"));
        assert!(words_between_slashes(
            b"com/AmazonS3/latest/dev/UploadingObjects"
        ));
        assert!(words_between_slashes(
            b"AmazonSSMManagedEC2InstanceDefaultPolicy"
        ));
        assert!(!words_between_slashes(
            b"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        ));
        assert!(pascal_name(b"AwsEc2VpcPeeringConnectionVpcInfoDetails"));
        assert!(!pascal_name(b"Ipv6CidrAssociations"));
        assert!(!pascal_name(b"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        assert!(declared_name(b"*auth_procs;"));
        assert!(declared_name(b"my_cred;"));
        assert!(!declared_name(b"hunter2;"));
        assert!(!declared_name(b"my_cred"));
    }

    #[test]
    fn short_words_fail_the_value_check_for_every_tier() {
        let words: &[&[u8]] = &[b"password", b"Secret", b"abc", b"Abcdefghijk", b"x"];
        for &w in words {
            assert!(short_word(w), "{w:?}");
            for quoted in [false, true] {
                for tier in [Tier::Keyed, Tier::Token, Tier::Strong] {
                    // The checks behind the shortcut reject it on their own too.
                    assert!(!value_checks(tier, w, quoted), "{w:?}");
                    assert!(!value_ok(tier, w, quoted));
                }
            }
        }
        for w in [&b"abcdefghijkl"[..], b"abc1", b"ABC", b"hunter2"] {
            assert!(!short_word(w), "{w:?}");
        }
    }

    #[test]
    fn the_first_needed_byte_is_found() {
        assert_eq!(first_needed(b"{", b"a{b{", 0), Some(1));
        assert_eq!(first_needed(b"{", b"a{b{", 2), Some(3));
        assert_eq!(first_needed(b"=:", b"a b: c", 0), Some(3));
        assert_eq!(first_needed(b"=:", b"a b c", 1), Some(5));
        assert_eq!(first_needed(b"abcd", b"abcd", 0), None);
    }

    #[test]
    fn arn_is_found_in_any_case() {
        assert!(contains_arn(b"x ARN:aws:secretsmanager"));
        assert!(contains_arn(b"arn:"));
        assert!(!contains_arn(b"arn"));
        assert!(!contains_arn(b"warning: x"));
        assert_eq!(before_on_line(b"a\nbc d", 6, 96), b"bc d");
        assert_eq!(before_on_line(b"abcdef", 6, 2), b"ef");
    }

    #[test]
    fn needs_look_at_the_whole_window() {
        assert!(needs_ok(Needs::Byte(b"'"), b"by 'x'"));
        assert!(!needs_ok(Needs::Byte(b"'"), b"by \"x\""));
        assert!(needs_ok(Needs::Byte(b"=:"), b"a: b"));
        assert!(needs_ok(Needs::Byte(b"=:"), b"a = b"));
        assert!(!needs_ok(Needs::Byte(b"=:"), b"a b"));
        let d = Needs::DotRun(b"sb", 24);
        assert!(needs_ok(d, b"vault token S.abcdefghijklmnopqrstuvwx"));
        assert!(needs_ok(d, b"x b.ABCDEFGHIJKLMNOPQRSTUVWX"));
        assert!(!needs_ok(d, b"vault.sync s.abcdefghijklmnopqrstuvw"));
        assert!(!needs_ok(d, b"vault.sync x.abcdefghijklmnopqrstuvwxyz"));
        assert!(!needs_ok(d, b"s."));
        let v = Needs::Word(b"value:");
        assert!(needs_ok(v, b"name: x\n  Value: y"));
        assert!(!needs_ok(v, b"\"redacted_value\": \"x\""));
        assert!(!needs_ok(v, b"valu"));
        let q = Needs::ThenQuote(b"(");
        assert!(needs_ok(q, b"k := []byte(\"v\")"));
        assert!(needs_ok(q, b"Some( \t'v')"));
        assert!(needs_ok(q, b"f(x) then str(`v`)"));
        assert!(!needs_ok(q, b"deploy step 7: (ok) (ok)"));
        assert!(!needs_ok(q, b"f(x, \"v\")"));
        assert!(!needs_ok(q, b"ends with ( "));
        assert!(!needs_ok(q, b"\"v\" ("));
        let w = Needs::LineStart(b"password");
        assert!(needs_ok(w, b"PassWord x"));
        assert!(needs_ok(w, b"a\n \t password x"));
        assert!(!needs_ok(w, b"auth: password x"));
        assert!(!needs_ok(w, b"\n passwor"));
        assert!(!needs_ok(w, b""));
    }

    #[test]
    fn closing_guard_finds_an_end_tag() {
        let line = b"<a key=\"k\">v</a>";
        let g = |l: &[u8]| guard_ok(Guard::Closing, l, 1, 2, 0, l.len(), l.len());
        assert!(g(line));
        assert!(!g(b"<a> < / b"));
        assert!(!g(b"a <"));
    }

    #[test]
    fn name_components() {
        assert_eq!(
            components(b"AWS_SECRET_ACCESS_KEY"),
            ["aws", "secret", "access", "key"]
        );
        assert_eq!(components(b"secretAccessKey"), ["secret", "access", "key"]);
        assert_eq!(components(b"APIKey"), ["api", "key"]);
        assert_eq!(components(b"x-api-key"), ["x", "api", "key"]);
    }

    #[test]
    fn name_classes() {
        for n in [
            "password",
            "DB_PASSWORD",
            "PGPASSWORD",
            "client_secret",
            "SecretAccessKey",
            "--password",
            "db.password",
            "MYSQL_PWD",
            "storepass",
            "passwd",
        ] {
            assert_eq!(classify_name(n.as_bytes()), Some(Tier::Strong), "{n}");
        }
        for n in [
            "api_key",
            "X-API-Key",
            "access_token",
            "GITHUB_TOKEN",
            "_authToken",
            "apiKey",
            "STRIPE_KEY",
            "Ocp-Apim-Subscription-Key",
            "X-Auth-Token",
            "auth",
        ] {
            assert_eq!(classify_name(n.as_bytes()), Some(Tier::Token), "{n}");
        }
        for n in [
            "key",
            "max_tokens",
            "token_type",
            "password_min_length",
            "aws_access_key_id",
            "public_key",
            "cache_key",
            "tokenizer",
            "next_page_token",
            "secretName",
            "password-file",
            "primary_key",
            "bypass",
            "password_stdin",
            "secretKeyRef",
            "token_count",
            "passed",
        ] {
            assert_eq!(classify_name(n.as_bytes()), None, "{n}");
        }
    }

    #[test]
    fn kind_qualifiers_exclude_only_right_before_a_key_word() {
        // A word that says what kind of key or token a name holds.
        for n in [
            "cache_key",
            "S3_OBJECT_KEY",
            "page_token",
            "nextPageToken",
            "SYNC_TOKEN",
            "input_tokens",
            "cache_read_input_tokens",
            "messageKey",
            "group_key_id",
        ] {
            assert_eq!(classify_name(n.as_bytes()), None, "{n}");
            assert!(!name_may_be_secret(n.as_bytes()), "{n}");
            assert!(!typed_name(n.as_bytes()), "{n}");
        }
        // The same words elsewhere in a secret name.
        for n in [
            "AWS_S3_SECRET_ACCESS_KEY",
            "S3_SECRET_KEY",
            "REDIS_CACHE_PASSWORD",
            "MESSAGE_BIRD_API_KEY",
            "message_bird_secret",
            "INPUT_GITHUB_TOKEN",
            "FILE_STORAGE_SECRET",
            "eventHubAccessKey",
            "GROUP_API_TOKEN",
        ] {
            assert!(classify_name(n.as_bytes()).is_some(), "{n}");
            assert!(name_may_be_secret(n.as_bytes()), "{n}");
            assert!(typed_name(n.as_bytes()), "{n}");
        }
        // A trailing number names nothing: the word before it decides.
        for n in ["PuTTY-User-Key-File-3", "key_file_1", "secret_name_2"] {
            assert_eq!(classify_name(n.as_bytes()), None, "{n}");
            assert!(!name_may_be_secret(n.as_bytes()), "{n}");
            assert!(!typed_name(n.as_bytes()), "{n}");
        }
        for n in ["API_KEY_2", "TOKEN_1", "db_password_2"] {
            assert!(classify_name(n.as_bytes()).is_some(), "{n}");
            assert!(name_may_be_secret(n.as_bytes()), "{n}");
        }
        // Modifiers exclude wherever they stand.
        for n in [
            "show_api_key",
            "PUBLIC_API_KEY",
            "max_output_tokens",
            "next_sync_token",
        ] {
            assert_eq!(classify_name(n.as_bytes()), None, "{n}");
            assert!(!name_may_be_secret(n.as_bytes()), "{n}");
        }
    }

    #[test]
    fn lower_case_vendor_keys_need_a_token_shaped_value() {
        for n in ["tavily_key", "tursoKey", "neon-key"] {
            assert_eq!(classify_name(n.as_bytes()), Some(Tier::Keyed), "{n}");
        }
        // A known qualifier, an environment name: the token tier.
        for n in ["stripe_key", "kaggle_key", "TAVILY_KEY"] {
            assert_eq!(classify_name(n.as_bytes()), Some(Tier::Token), "{n}");
        }
        for n in ["entry_keys", "x_key", "e2b_key", "key"] {
            assert_eq!(classify_name(n.as_bytes()), None, "{n}");
        }
        for v in [
            "Xk3jR9sLm2QpW7vN4tYb8cZd1",
            "0123456789abcdef0123456789abcdef",
            "tvly-dev-Xk3jR9sLm2QpW7vN4tYb",
        ] {
            assert!(value_ok(Tier::Keyed, v.as_bytes(), true), "{v}");
        }
        for v in [
            "item-42",
            "b3a1f9d2-4c5e-4a7b-9d8c-2f1e0a9b8c7d",
            "3f786850e387550fdab836ed7e6dc881de23001b",
            "lock:user:12345:profile",
            "prod_NZ8xKq3LmT4vWp",
            "Xk3jR9sLm2QpW7vN4tY",
            "aaaaaaaaaaaaaaaaaaaaaaaaaa11",
        ] {
            assert!(!value_ok(Tier::Keyed, v.as_bytes(), true), "{v}");
        }
        // The token tier takes what the keyed one refuses for its length.
        assert!(value_ok(Tier::Token, b"a1b2c3d4e5f6a7b8", true));
        assert!(!value_ok(Tier::Keyed, b"a1b2c3d4e5f6a7b8", true));
    }

    #[test]
    fn placeholders() {
        for p in [
            "${DB_PASSWORD}",
            "$DB_PASSWORD",
            "your-api-key-here",
            "xxxxxxxx",
            "<token>",
            "***",
            "null",
            "true",
            "",
            "changeme",
            "{{ .Values.password }}",
            "%PASSWORD%",
            "••••••",
            "YOUR_TOKEN",
            "[REDACTED:generic-secret]",
            "(sensitive value)",
        ] {
            assert!(is_placeholder(p.as_bytes()), "{p}");
        }
        for p in [
            "hunter2!",
            "s3cr3t-P@ss",
            "AbCdEf123456",
            "wJalrXUtnFEMI/K7MDENG",
        ] {
            assert!(!is_placeholder(p.as_bytes()), "{p}");
        }
    }

    #[test]
    fn values() {
        assert!(value_ok(Tier::Strong, b"hunter22", false));
        assert!(value_ok(Tier::Strong, b"Tr0ub4dor&3", true));
        assert!(!value_ok(Tier::Strong, b"getpass()", false));
        assert!(!value_ok(Tier::Strong, b"self.password", false));
        assert!(!value_ok(Tier::Strong, b"/run/secrets/db", false));
        assert!(!value_ok(Tier::Strong, b"Must", false));
        assert!(value_ok(Tier::Token, b"a1b2c3d4e5f6a7b8", false));
        assert!(!value_ok(Tier::Token, b"expired", false));
        assert!(!value_ok(Tier::Token, b"abcdefgh", false));
    }

    #[test]
    fn base64() {
        assert_eq!(b64_decode(b"dXNlcjpwYXNz").unwrap(), b"user:pass");
        assert_eq!(b64_decode(b"dXNlcjpwYXNzMQ==").unwrap(), b"user:pass1");
        assert!(b64_decode(b"not base64!").is_none());
    }

    #[test]
    fn no_value_words_are_whole_values() {
        let at = |t: &str| no_value_word(t.as_bytes(), 0, t.len());
        for t in [
            "null",
            "NULL x",
            "None,",
            "redacted)",
            "[REDACTED]",
            "[FILTERED] x",
            "default;",
        ] {
            assert!(at(t), "{t}");
        }
        for t in [
            "nullify",
            "null9",
            "nul",
            "[REDACTED:x]",
            "[ab]",
            "[Xq9vR2mK]",
            "Xq9v",
            "defaults",
        ] {
            assert!(!at(t), "{t}");
        }
    }

    #[test]
    fn entropy_bounds() {
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(b"ab") - 1.0).abs() < 1e-9);
    }
}

/// The value checks as they were before they were made cheaper, verbatim
/// but for their names: the oracle of the properties below (the same
/// verdict for every value).
#[cfg(test)]
mod reference {
    #![allow(clippy::all)]
    use super::*;
    use proptest::prelude::*;

    fn old_looks_fake(v: &[u8]) -> bool {
        if has_word(fake_words_ac(), v) {
            return true;
        }
        if dropbox_long_lived(v) {
            return entropy(v) < 2.0;
        }
        if fake_marks_ac().is_match(v) {
            return true;
        }
        let mut run = 1;
        for w in v.windows(2) {
            if w[0] == w[1] && w[0].is_ascii_alphabetic() {
                run += 1;
                if run >= 8 {
                    return true;
                }
            } else {
                run = 1;
            }
        }
        entropy(v) < 2.0
    }

    fn old_contains(hay: &[u8], needle: &[u8]) -> bool {
        memchr::memmem::find(hay, needle).is_some()
    }

    fn old_entropy(s: &[u8]) -> f64 {
        if s.is_empty() {
            return 0.0;
        }
        // H = log2(n) - (1/n) * sum(c * log2(c)), with c*log2(c) from a table.
        static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            (0..1024u32)
                .map(|c| {
                    if c < 2 {
                        0.0
                    } else {
                        f64::from(c) * f64::from(c).log2()
                    }
                })
                .collect()
        });
        let mut counts = [0u32; 256];
        for &b in s {
            counts[b as usize] += 1;
        }
        let n = s.len() as f64;
        let sum: f64 = counts
            .iter()
            .filter(|&&c| c > 1)
            .map(|&c| {
                table
                    .get(c as usize)
                    .copied()
                    .unwrap_or_else(|| f64::from(c) * f64::from(c).log2())
            })
            .sum();
        (n.log2() - sum / n).max(0.0)
    }

    /// [`old_is_placeholder_v1`] and the shapes added in stop 25: a
    /// `{}` template, a trailing `$VAR`, a path under `$name/`.
    fn old_is_placeholder(v: &[u8]) -> bool {
        let t = trim(v);
        // Stop 54: not after random letters and digits (its own tests).
        let var_end = t.iter().rposition(|&b| b == b'$').is_some_and(|d| {
            let var = &t[d + 1..];
            var.len() >= 3
                && var[0].is_ascii_uppercase()
                && var
                    .iter()
                    .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                && var_prefix(&t[..d])
        });
        // Where a leading `$name` ends, if the value opens with one.
        let name_end = (t.len() > 1
            && t[0] == b'$'
            && (t[1].is_ascii_alphabetic() || t[1] == b'_'))
            .then(|| {
                1 + t[1..]
                    .iter()
                    .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                    .count()
            });
        let var_path = name_end.is_some_and(|n| t.get(n) == Some(&b'/'));
        let var_url = name_end.is_some_and(|n| t[n..].starts_with(b"://"));
        // Stop 42: format fields and fake-marked secret words (their own tests).
        old_is_placeholder_v1(v)
            || old_contains(t, b"{}")
            || var_end
            || var_path
            || format_field(t)
            || prefixed_secret_word(t)
            // Stop 47: escaped and spliced placeholders (their own tests).
            || escaped_or_spliced(t)
            // Ruby's and CoffeeScript's `#{…}` inside a value (its own tests;
            // not mirrored here when it was added).
            || old_contains(t, b"#{")
            // Stop 50: Compose's escaped `$$(…)` and `$${…}`, and a URL made
            // from a variable, `$scheme://$host` (their own tests).
            || t.starts_with(b"$$(")
            || t.starts_with(b"$${")
            || var_url
    }

    fn old_is_placeholder_v1(v: &[u8]) -> bool {
        let v = trim(v);
        if v.is_empty() {
            return true;
        }
        if v.starts_with(b"[REDACTED") {
            return true;
        }
        // Templates and variable references.
        for p in [
            &b"${"[..],
            b"$(",
            b"{{",
            b"%(",
            b"#{",
            b"<%",
            b"@{",
            b"%{",
            b"[[",
            b"((",
        ] {
            if v.starts_with(p) {
                return true;
            }
        }
        // `$VAR`, and PHP/Perl expressions on a variable: `$_POST[`, `$cfg->x`, `$ENV{…}`.
        if v[0] == b'$' && v.len() > 1 && (v[1].is_ascii_alphabetic() || v[1] == b'_') {
            let n = 1 + v[1..]
                .iter()
                .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_')
                .count();
            if n == v.len()
                || matches!(v[n], b'[' | b'{' | b'(' | b'.')
                || v[n..].starts_with(b"->")
            {
                return true;
            }
        }
        if v.len() > 2 && v[0] == b'%' && v[v.len() - 1] == b'%' && {
            let inner = &v[1..v.len() - 1];
            let upper = inner
                .iter()
                .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            let lower = inner.iter().all(|&b| b.is_ascii_lowercase() || b == b'_');
            // `%TestSourcePassword%`: CamelCase words, no digits.
            let camel = inner[0].is_ascii_uppercase()
                && inner.iter().any(u8::is_ascii_lowercase)
                && inner.iter().all(|&b| b.is_ascii_alphabetic() || b == b'_');
            upper || lower || camel
        } {
            return true;
        }
        if matches!(v[0], b'<' | b'(' | b'{') {
            return true;
        }
        // YAML tags: `!Ref Name`, `!Sub …`, `!vault |`.
        if v[0] == b'!' {
            let tag = v[1..]
                .iter()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
            if tag >= 2 && v.get(1 + tag).is_none_or(|&b| b == b' ') {
                return true;
            }
        }
        if v[0] == b'[' && v[v.len() - 1] == b']' {
            let inner = &v[1..v.len() - 1];
            if inner.len() < 2
                || word_like(inner)
                || inner
                    .iter()
                    .all(|b| b.is_ascii_alphabetic() || matches!(b, b' ' | b'_' | b'-' | b':'))
                || old_is_placeholder(inner)
            {
                return true;
            }
        }
        if old_contains(v, b"{{") || old_contains(v, b"}}") || old_contains(v, b"${") {
            return true;
        }
        // Masks: ****, xxxxxxxx, ••••, ....
        if v.iter().all(|&b| {
            matches!(
                b,
                b'*' | b'x' | b'X' | b'#' | b'.' | b'-' | b'_' | b' ' | b'?' | b'0'
            )
        }) {
            return true;
        }
        // Invalid UTF-8 is judged as text with replacement characters: a value
        // holding such bytes is a value, not a placeholder.
        let s = String::from_utf8_lossy(v);
        if s.chars()
            .all(|c| matches!(c, '•' | '●' | '*' | '·' | '…' | '░' | '█'))
        {
            return true;
        }
        if placeholder_part(v) || has_word(placeholder_words_ac(), v) {
            return true;
        }
        let l = lower(v);
        // `your-api-key`, `my-secret`, `some_token`: a possessive and a secret word.
        for p in [&b"your"[..], b"my", b"some", b"the"] {
            if let Some(rest) = l.strip_prefix(p) {
                let rest = rest
                    .strip_prefix(b"-")
                    .or_else(|| rest.strip_prefix(b"_"))
                    .unwrap_or(rest);
                if [
                    &b"secret"[..],
                    b"password",
                    b"pass",
                    b"token",
                    b"key",
                    b"api",
                    b"app",
                    b"access",
                    b"client",
                    b"db",
                    b"auth",
                ]
                .iter()
                .any(|w| rest.starts_with(w))
                {
                    return true;
                }
            }
        }
        if let Ok(s) = std::str::from_utf8(&l) {
            if placeholder_words().contains(s) {
                return true;
            }
        }
        // The same character over and over.
        if v.len() >= 4 && v.iter().all(|&b| b == v[0]) {
            return true;
        }
        format_string(v)
    }

    fn old_rust_path(v: &[u8]) -> bool {
        let v = v.strip_prefix(b"$").unwrap_or(v);
        let segs: Vec<&[u8]> = v.split(|&b| b == b':').collect();
        // `a::b` splits into `a`, ``, `b`: every other piece is empty.
        segs.len() >= 3
            && segs.len() % 2 == 1
            && segs.iter().enumerate().all(|(i, s)| {
                if i % 2 == 1 {
                    s.is_empty()
                } else {
                    !s.is_empty()
                        && (s[0].is_ascii_alphabetic() || s[0] == b'_')
                        && s.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
                }
            })
    }

    /// [`old_looks_like_code_v1`] and the shapes added in stops 25, 35, 39
    /// and 40 (pointers and composite literals of a [`code_path`], optional
    /// chaining, non-null assertions and increments: [`chained_code`];
    /// member paths through numbered names: [`numbered_member_path`]).
    /// Stop 42: dotted paths through constants and snake_case names with
    /// numbered words (`config.CLOUDSDK_CLIENT_NOTSOSECRET`,
    /// `oauth2_parameters.credentials`), and such names alone when they have
    /// three words or more, a leading `_` or a secret word.
    fn old_named_code(t: &[u8]) -> bool {
        if t.is_empty() {
            return false;
        }
        let named = |s: &[u8]| upper_constant(s) || snake_words(s);
        let parts: Vec<&[u8]> = t.split(|&b| b == b'.').collect();
        let ident = |s: &[u8]| {
            !s.is_empty()
                && (s[0].is_ascii_alphabetic() || s[0] == b'_' || s[0] == b'$')
                && s.iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                && identifier_like(s)
                && (s.len() < 16 || reads_as_words(s) || named(s))
        };
        let field_like = |s: &[u8]| {
            let l = s.iter().take_while(|b| !b.is_ascii_digit()).count();
            s.contains(&b'_')
                || s[l..].iter().all(u8::is_ascii_digit)
                    && s.windows(2)
                        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        };
        let digit = |s: &[u8]| s.iter().any(u8::is_ascii_digit);
        let dotted = parts.len() >= 2
            && parts.iter().all(|p| ident(p))
            && (!digit(t)
                || parts[1..].iter().any(|p| field_like(p))
                || parts.iter().all(|p| !digit(p) || named(p)));
        let body = t.strip_prefix(b"_").unwrap_or(t);
        let snake = (t[0].is_ascii_lowercase() || t[0] == b'_')
            && snake_words(t)
            && (body.split(|&b| b == b'_').count() >= 3
                || body.len() < t.len()
                || old_secret_word_phrase(t));
        dotted || snake
    }

    fn old_looks_like_code(v: &[u8]) -> bool {
        let t = trim(v);
        if old_named_code(t) {
            return true;
        }
        if old_looks_like_code_v1(v)
            || t.starts_with(b"/^")
            || declared_name(t)
            || powershell_cmdlet(t)
        {
            return true;
        }
        let unpointed = |x: &[u8]| {
            let x = x.strip_prefix(b"&").unwrap_or(x);
            x.strip_prefix(b"*").unwrap_or(x).to_vec()
        };
        if (t.starts_with(b"*") || t.starts_with(b"&")) && code_path(&t[1..]) {
            return true;
        }
        if t.ends_with(b"{") && code_path(&unpointed(&t[..t.len() - 1])) {
            return true;
        }
        if chained_code(t) || numbered_member_path(t) {
            return true;
        }
        if t.len() > 1 && t[0] == b'!' && old_looks_like_code(&t[1..]) {
            return true;
        }
        if let Some(eq) = t.iter().position(|&b| b == b'=') {
            let lhs = &t[..eq];
            if lhs.contains(&b'.')
                && identifier_path(lhs)
                && t.get(eq + 1).is_some_and(|&b| b != b'=' && b != b'>')
            {
                return true;
            }
        }
        let parts: Vec<&[u8]> = t.split(|&b| b == b'.').collect();
        parts.len() >= 3
            && parts.iter().all(|p| {
                !p.is_empty()
                    && (p[0].is_ascii_alphabetic() || p[0] == b'_')
                    && p.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
            })
            && parts[..parts.len() - 1].iter().all(|p| {
                p[0].is_ascii_lowercase()
                    && p.iter()
                        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            })
    }

    fn old_looks_like_code_v1(v: &[u8]) -> bool {
        let v = trim(v);
        if v.is_empty() {
            return true;
        }
        // Calls, subscripts and slices: `getpass()`, `config['password']`,
        // `token[:-1]`, `None):`; reST roles `:class:`.
        if v.iter().any(|&b| matches!(b, b'(' | b')' | b'[' | b']'))
            || v[0] == b':'
            || v[v.len() - 1] == b':'
        {
            return true;
        }
        if numeric_literal(v) || v.starts_with(b"*mut") || v.starts_with(b"*const") {
            return true;
        }
        // A constant (`FG_DEFAULT`, `DEFAULT_PASSWORD`) or a class name of three
        // or more words (`EllipticCurvePrivateKey`, `RSAPrivateKey`).
        if v.contains(&b'_')
            && v[0].is_ascii_uppercase()
            && v.iter()
                .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            && v.split(|&b| b == b'_').filter(|w| w.len() >= 2).count() >= 2
        {
            return true;
        }
        if v[0].is_ascii_uppercase() && v.iter().all(u8::is_ascii_alphabetic) && class_name_words(v)
        {
            return true;
        }
        if old_contains(v, b"||")
            || old_contains(v, b"&&")
            || old_contains(v, b"=>")
            || old_contains(v, b"::")
        {
            return true;
        }
        if matches!(v[0], b'{' | b'[') {
            return true;
        }
        // `!0`, `!vault`, `!Ref`, `@Value`: YAML tags, JS negations, annotations.
        if matches!(v[0], b'!' | b'@')
            && (v.len() <= 2 || v[1..].iter().all(u8::is_ascii_alphabetic))
        {
            return true;
        }
        // Dotted identifier path: self.password, process.env.TOKEN, args.api_key.
        let segs: Vec<&[u8]> = v.split(|&b| b == b'.').collect();
        // Digits are allowed when a later segment reads as a field name
        // (`node.colon2_token`, `cfg.apiKey2`), not in `hunter2.prod`.
        let field_like = |s: &&[u8]| {
            let letters_then_digits = {
                let l = s.iter().take_while(|b| !b.is_ascii_digit()).count();
                s[l..].iter().all(u8::is_ascii_digit)
            };
            s.contains(&b'_')
                || letters_then_digits
                    && s.windows(2)
                        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        };
        if segs.len() >= 2
            && segs.iter().all(|s| {
                !s.is_empty()
                    && (s[0].is_ascii_alphabetic() || s[0] == b'_' || s[0] == b'$')
                    && s.iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
                    && identifier_like(s)
                    && (s.len() < 16 || reads_as_words(s))
            })
            && (!v.iter().any(u8::is_ascii_digit) || segs[1..].iter().any(field_like))
        {
            return true;
        }
        // snake_case identifier made of words: secret_value, api_key_from_env.
        if v.contains(&b'_')
            && v.iter().all(|&b| b.is_ascii_lowercase() || b == b'_')
            && v[0] != b'_'
        {
            return true;
        }
        false
    }

    fn old_word_segments(v: &[u8]) -> Option<Vec<&[u8]>> {
        // Stop 42: `+` joins words too (`some+client+secret`).
        let segs: Vec<&[u8]> = v
            .split(|&b| matches!(b, b'-' | b'_' | b'.' | b':' | b'/' | b' ' | b'+'))
            .filter(|s| !s.is_empty())
            .collect();
        let words = segs
            .iter()
            .filter(|s| s.iter().all(u8::is_ascii_alphabetic))
            .count();
        let ok = segs.iter().all(|s| {
            let alpha = s.iter().all(u8::is_ascii_alphabetic);
            let vowel = s.iter().any(|b| {
                matches!(
                    b.to_ascii_lowercase(),
                    b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
                )
            });
            (alpha
                && (identifier_like(s) || old_components(s).iter().all(|c| c.len() >= 3))
                && (vowel || s.len() <= 4)
                && (s.len() < 16 || reads_as_words(s)))
                || s.iter().all(u8::is_ascii_digit) && s.len() <= 6
                || s.len() <= 3 && s.iter().all(u8::is_ascii_alphanumeric)
        });
        (ok && words >= 1).then_some(segs)
    }

    fn old_secret_word_phrase(v: &[u8]) -> bool {
        // Stop 42: words with a number at their end count among the words.
        let Some(segs) = old_word_segments(v).or_else(|| numbered_segments(v)) else {
            return false;
        };
        // CamelCase words count too: `challengePassword`, `_EllipticCurvePrivateKey`.
        let words: Vec<String> = segs.iter().flat_map(|s| old_components(s)).collect();
        words.len() >= 2
            && words.iter().any(|s| {
                let s = s.as_bytes();
                [
                    &b"token"[..],
                    b"secret",
                    b"key",
                    b"password",
                    b"passwd",
                    b"pass",
                    b"pwd",
                    b"pw",
                    b"auth",
                    b"credential",
                    b"credentials",
                    b"apikey",
                ]
                .iter()
                .any(|w| s.eq_ignore_ascii_case(w))
            })
    }

    fn old_components(name: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let n = name.len();
        for i in 0..n {
            let b = name[i];
            if !b.is_ascii_alphanumeric() {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                continue;
            }
            if b.is_ascii_uppercase() && !cur.is_empty() {
                let prev = name[i - 1];
                let next_lower = i + 1 < n && name[i + 1].is_ascii_lowercase();
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push(std::mem::take(&mut cur));
                }
            }
            cur.push(b.to_ascii_lowercase() as char);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    fn old_contains_arn(seg: &[u8]) -> bool {
        seg.windows(4).any(|w| w.eq_ignore_ascii_case(b"arn:"))
    }

    fn old_is_url(v: &[u8]) -> bool {
        let v = trim(v);
        match memchr::memmem::find(v, b"://") {
            Some(i) if i > 0 => v[..i]
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')),
            _ => false,
        }
    }

    fn old_value_ok(tier: Tier, v: &[u8], quoted: bool) -> bool {
        !short_word(trim(v)) && old_value_checks(tier, v, quoted)
    }

    fn old_value_checks(tier: Tier, v: &[u8], quoted: bool) -> bool {
        let v = trim(v);
        // Stop 42: an e-mail address (its own tests).
        // Stop 48: a version or a range of versions, a JSON pointer.
        // Stop 54: a cloud resource name (its own tests).
        if old_is_placeholder(v)
            || is_path(v)
            || resource_name(v)
            || old_is_url(v)
            || is_public_material(v)
            || email_address(v)
            || version_range(v)
            || v.starts_with(b"#/")
            || interpolated_only(v)
            || option_list(v)
            // Stop 50: an ISO 8601 date or time (its own tests).
            || iso_timestamp(v)
        {
            return false;
        }
        // Not for known values: an environment value is masked as it is.
        // A flag (`--username=`) or a Rust path (`$serde_json::private::Number`)
        // is no value either.
        if old_secret_word_phrase(v) || command_flag(v) || old_rust_path(v) {
            return false;
        }
        if !quoted && (old_looks_like_code(v) || camel_identifier(v)) {
            return false;
        }
        // Stop 39: `\uXXXX` text, and the code between two string literals.
        // Stop 54: words joined by escaped line breaks.
        if unicode_escaped(v) || escaped_prose(v) || (quoted && concatenated(v)) {
            return false;
        }
        if quoted && (v.starts_with(b"{") || v.starts_with(b"[")) {
            return false;
        }
        // A word ending a sentence (`password combination.`): prose.
        let w = {
            let n = v.len()
                - v.iter()
                    .rev()
                    .take_while(|b| matches!(b, b'.' | b',' | b';' | b'!' | b'?'))
                    .count();
            &v[..n]
        };
        if w.len() < v.len() && word_like(w) {
            return false;
        }
        let len = std::str::from_utf8(v).map_or(v.len(), |s| s.chars().count());
        let spaces = v.iter().filter(|&&b| b == b' ').count();
        match tier {
            Tier::Keyed => keyed_value(v) && old_value_ok(Tier::Token, v, quoted),
            Tier::Strong => {
                if len < 4 || (spaces > 0 && (!quoted || is_prose(v))) {
                    return false;
                }
                if v.iter().all(u8::is_ascii_digit) {
                    return len >= 6;
                }
                if (word_like(v) || (v.iter().all(u8::is_ascii_uppercase) && v.len() > 1))
                    && len < 12
                {
                    return false;
                }
                if spaces > 0 && v.iter().all(|&b| b.is_ascii_alphabetic() || b == b' ') && len < 16
                {
                    return false;
                }
                if spaces > 0 && spaces + 1 > 6 {
                    return false;
                }
                old_entropy(v) >= 1.5
            }
            Tier::Token => {
                if quoted && spaced_random(v, spaces) {
                    return true;
                }
                if len < 8 || spaces > 0 || old_contains(v, b"%20") {
                    return false;
                }
                // Words and identifiers (`progressToken`, `same-csrf`,
                // `StandardTokenResponse`, `io.example/serverInfo`): a token is random.
                if (word_like(v) && (v.len() < 16 || reads_as_words(v)))
                    || old_word_segments(v).is_some_and(|s| {
                        let singles = s
                            .iter()
                            .filter(|s| s.len() < 2 && !s.iter().all(u8::is_ascii_digit))
                            .count();
                        (singles == 0 || (singles == 1 && s.len() >= 3))
                            && s.iter()
                                .any(|s| s.len() >= 4 && s.iter().all(u8::is_ascii_alphabetic))
                    })
                    || camel_secret_name(v)
                    || dotted_words(v)
                {
                    return false;
                }
                let c = classes(v);
                if c < 2 && len < 20 {
                    return false;
                }
                if v.iter().all(u8::is_ascii_digit) && len < 24 {
                    return false;
                }
                old_entropy(v) >= 2.5
            }
        }
    }

    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::sample::select(vec![
                "your", "my", "some_", "the-", "key", "token", "Password", "secret", "api", "::",
                "${", "{{", "}}", "||", "&&", "=>", "arn:", "ARN:", "://", "https", ".", "_", "-",
                "/", ":", " ", "$", "%", "[", "]", "(", ")", "<", "!", "@", "*", "x", "X", "0",
                "•", "…", "\u{e9}", "changeme", "example", "EXAMPLE", "xxxxxx", "Foo", "Bar",
                "Baz", "RSA", "abc", "q9", "ssh-rsa ", "sha256:", "=",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            prop::collection::vec(
                prop::sample::select(b"aAzZ09_-.:/ $%*xX\xe9\x80\xffeiouy".to_vec()),
                1..6
            ),
            prop::collection::vec(any::<u8>(), 1..4),
            // Mixed-case letters: camel humps, acronyms, vowel-less words.
            prop::collection::vec(prop::sample::select(b"aAbBeEqQxXoOyZ".to_vec()), 1..9),
        ]
    }

    fn value() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(piece(), 0..12).prop_map(|p| p.concat())
    }

    /// Regression seed of `cheaper_value_checks_give_the_same_verdicts`
    /// (`\x0e#{`: the reference lacked Ruby's `#{…}`), and the values of
    /// stop 50's placeholders.
    #[test]
    fn the_reference_placeholder_check_has_every_template() {
        for v in [
            &b"\x0e#{"[..],
            b"$$(cat /run/secrets/db)",
            b"$${DB_PASS}",
            b"$scheme://$host",
            b"$$x9Kq2LmP7vR4",
        ] {
            assert_eq!(is_placeholder(v), old_is_placeholder(v), "{v:?}");
        }
        assert!(is_placeholder(b"\x0e#{") && !is_placeholder(b"$$x9Kq2LmP7vR4"));
    }

    proptest! {
        /// Every cheaper check gives the verdict of the old one.
        #[test]
        fn cheaper_value_checks_give_the_same_verdicts(v in value(), quoted in any::<bool>()) {
            let v = &v[..];
            prop_assert_eq!(entropy(v).to_bits(), old_entropy(v).to_bits());
            prop_assert_eq!(is_placeholder(v), old_is_placeholder(v));
            prop_assert_eq!(rust_path(v), old_rust_path(v));
            prop_assert_eq!(looks_like_code(v), old_looks_like_code(v));
            prop_assert_eq!(word_segments(v), old_word_segments(v));
            prop_assert_eq!(secret_word_phrase(v), old_secret_word_phrase(v));
            prop_assert_eq!(components(v), old_components(v));
            prop_assert_eq!(contains_arn(v), old_contains_arn(v));
            prop_assert_eq!(is_url(v), old_is_url(v));
            prop_assert_eq!(looks_fake(v), old_looks_fake(v));
            prop_assert_eq!(entropy_below_2(v), entropy(v) < 2.0);
            for n in [&b"${"[..], b"::", b"://", b"x", b"arn:", b""] {
                prop_assert_eq!(find(v, n), memchr::memmem::find(v, n));
            }
            for tier in [Tier::Strong, Tier::Token, Tier::Keyed] {
                prop_assert_eq!(value_ok(tier, v, quoted), old_value_ok(tier, v, quoted));
            }
        }

        /// Fakes: the marks, their near misses and letter runs of any length.
        #[test]
        fn looks_fake_is_the_old_one(v in prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![
                    "1234567890", "123456789", "234567890", "0000000000", "000000000",
                    "xxxxxx", "xxxxx", "Xxxxxx", "Xxxxx", "XXXXXX", "XXXXX", "XxXxXx", "****",
                    "***", "...", "..", "<", ">", "$", "{", "}", "your", "YOUR", "Your", "here",
                    "Example", "EXAMPLE", "example", "fake", "FAKE", "Fake", "test_key",
                    "sample", "notreal", "not-real", "dummy",
                ])
                .prop_map(|s| s.as_bytes().to_vec()),
                (prop::sample::select(b"aAxX0z*./+9".to_vec()), 1usize..12)
                    .prop_map(|(b, n)| vec![b; n]),
                prop::collection::vec(any::<u8>(), 1..6),
            ],
            0..10,
        )) {
            let v = v.concat();
            prop_assert_eq!(looks_fake(&v), old_looks_fake(&v), "{:?}", String::from_utf8_lossy(&v));
        }

        /// The min-entropy shortcut near its bound: few distinct bytes (a
        /// uniform four-byte alphabet is exactly 2 bits), any length, and
        /// values longer than the byte counters hold.
        #[test]
        fn entropy_below_2_is_the_entropy_test(
            v in prop::collection::vec(0u8..6, 0..600),
            skew in 0usize..40,
        ) {
            let mut v = v;
            v.extend(std::iter::repeat_n(0u8, skew));
            prop_assert_eq!(entropy_below_2(&v), entropy(&v) < 2.0);
            let uniform: Vec<u8> = (0..v.len() / 4 * 4).map(|i| (i % 4) as u8).collect();
            prop_assert_eq!(entropy_below_2(&uniform), entropy(&uniform) < 2.0);
        }

        /// Long values too (the needle search hands over to `memmem` past 256 bytes).
        #[test]
        fn find_is_memmem_on_long_text(v in prop::collection::vec(piece(), 40..120)) {
            let v = v.concat();
            for n in [&b"${"[..], b"::", b"://", b"arn:"] {
                prop_assert_eq!(find(&v, n), memchr::memmem::find(&v, n));
            }
            prop_assert_eq!(entropy(&v).to_bits(), old_entropy(&v).to_bits());
        }

        /// The name memos answer what the names' own tests do, for names
        /// up to and past their length bound, asked again and again (so
        /// that slots are hit, missed and overwritten).
        #[test]
        fn the_name_memos_give_the_verdicts_of_the_tests(names in prop::collection::vec(
            prop::collection::vec(prop_oneof![
                prop::sample::select(vec![
                    "token", "TOKEN", "Token", "key", "KEY", "secret", "password", "pwd",
                    "auth", "_", ".", "-", "/", ":", "//registry.npmjs.org/:", "_authToken",
                    "id", "count", "name", "api", "OPENAI", "aws_access", "x", "9",
                ]).prop_map(str::to_string),
                "[A-Za-z0-9_]{1,12}",
            ], 1..10).prop_map(|p| p.concat()),
            1..40,
        )) {
            let mut memo = NameMemo::default();
            for _ in 0..2 {
                for n in &names {
                    let n = n.as_bytes();
                    prop_assert_eq!(memo.may_be_secret(n), name_may_be_secret(n));
                    prop_assert_eq!(classify_name(n), classify_name_uncached(n));
                }
            }
        }
    }

    /// Two names of one set (`GITHUB_TOKEN` and `_authToken` in the name
    /// memo) both stay remembered, asked in turn.
    #[test]
    fn two_names_of_one_set_both_stay() {
        let mut memo = NameMemo::default();
        let (a, b) = (&b"GITHUB_TOKEN"[..], &b"_authToken"[..]);
        assert_eq!(memo.memo.get(a), memo.memo.get(b));
        for _ in 0..3 {
            for n in [a, b] {
                memo.may_be_secret(n);
            }
        }
        assert_eq!(memo.memo.get(a), Ok(name_may_be_secret(a)));
        assert_eq!(memo.memo.get(b), Ok(name_may_be_secret(b)));
        assert!(memo.memo.get(b"OPENAI_API_KEY").is_err());
    }

    #[test]
    fn long_identifiers_read_as_words_random_letters_do_not() {
        for id in [
            "passwordHasherFactory",
            "oauth2AccessToken",
            "sslKeyPEMFileName",
            "maxConcurrentStreamsPerConnection",
            "HTTPServerConfigOptions",
            "getApiKeyFromEnvironment",
            "NEXT_PUBLIC_API_KEY",
            "xAxisLabelFormatter",
            "defaultCredentialsProvider",
            "awsSecretAccessKey",
            "s3BucketNameForLogs",
            "jwtSigningKeySecret",
            "XMLHttpRequestUpload",
            "refreshTokenExpiresIn",
            "googleApplicationCredentials",
            "SECRET_ACCESS_KEY_ID",
            "dockerhubPassword",
            "kmsKeyArnForEncryption",
        ] {
            assert!(reads_as_words(id.as_bytes()), "{id}");
        }
        for v in [
            "fYmrurKapvs6nDwOkxmtOmtfLFw80J",
            "lRpZpcelSmnFfQwXtrbVk",
            "kxqvbnmTrwplzHgfdsa",
            "a1b2c3d4e5f6g7h8i9",
        ] {
            assert!(!reads_as_words(v.as_bytes()), "{v}");
        }
        assert!(looks_like_code(b"self.passwordHasherFactory"));
        assert!(looks_like_code(b"process.env.NEXT_PUBLIC_API_KEY"));
        assert!(looks_like_code(b"ctx.refreshTokenProviderFactory"));
        assert!(!looks_like_code(
            b"fYmrurKapvs6nDwOkxmtOmtfLFw80J.lRpZpcelSmnFf"
        ));
    }

    #[test]
    fn the_oracle_sees_both_verdicts() {
        // The properties above compare something: values of each kind.
        assert!(old_is_placeholder(b"your-api-key") && !old_is_placeholder(b"q9Xz81Lw"));
        assert!(old_looks_like_code(b"config.api_key") && !old_looks_like_code(b"q9Xz81Lw"));
        assert!(old_value_ok(Tier::Token, b"q9Xz81LwPm2Rt7Ka", false));
        assert!(!old_value_ok(Tier::Token, b"progressToken", false));
    }
}

/// The hit context as it was built before its cheaper tests (verbatim but
/// for its name): the oracle of the property below.
#[cfg(test)]
pub(crate) mod hit_reference {
    #![allow(clippy::all)]
    use super::*;
    use proptest::prelude::*;

    fn old_name_start(hay: &[u8], hs: usize, ls: usize) -> usize {
        let mut i = hs;
        while i > ls && is_name_byte(hay[i - 1]) {
            i -= 1;
        }
        i
    }

    fn old_assign_op_at(hay: &[u8], i: usize, end: usize) -> Option<usize> {
        if i >= end {
            return None;
        }
        let rest = &hay[i..end];
        if !matches!(rest[0], b'=' | b':' | b'?' | b'.' | b'+' | b'|') {
            return None;
        }
        let op = ASSIGN_OPS
            .iter()
            .find(|op| op[0] == rest[0] && rest.starts_with(op))?;
        if **op == b":"[..] && (rest.get(1) == Some(&b':') || (i > 0 && hay[i - 1] == b':')) {
            return None;
        }
        Some(op.len())
    }

    fn old_dot_six(line: &[u8]) -> bool {
        let tok = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        memchr::memchr_iter(b'.', line).any(|i| {
            i >= 23
                && line.get(i + 7) == Some(&b'.')
                && line[i + 1..i + 7].iter().all(|&b| tok(b))
                && line[i - 23..i].iter().all(|&b| tok(b))
        })
    }

    fn old_fallback(hay: &[u8], mut i: usize, end: usize) -> bool {
        let from = i;
        while i < end && matches!(hay[i], b'"' | b'\'' | b'`' | b']' | b')' | b' ' | b'\t') {
            i += 1;
        }
        let r = &hay[i..end];
        let skipped: Vec<u8> = hay[from..i]
            .iter()
            .copied()
            .filter(|&b| b != b' ' && b != b'\t')
            .collect();
        let block = r.starts_with(b"{")
            && skipped.len() == 2
            && matches!(skipped[0], b'"' | b'\'' | b'`')
            && skipped[1] == b')';
        r.starts_with(b"||")
            || r.starts_with(b"??")
            || r.starts_with(b"?:")
            || r.starts_with(b"or ")
            || block
    }

    /// The table of bytes a bare value cannot hold is the test it replaced.
    #[test]
    fn the_bare_value_table_is_the_byte_test() {
        for b in 0..=255u8 {
            let old = b.is_ascii_whitespace()
                || matches!(
                    b,
                    b'"' | b'\'' | b'`' | b',' | b';' | b'&' | b'<' | b'>' | b'\\' | b'|'
                );
            assert_eq!(NOT_BARE[b as usize], old, "{b:#x}");
        }
    }

    /// Hits in prose and logs pass [`no_shape`]; each shape stops it.
    #[test]
    fn hits_without_shapes_are_told_apart() {
        let bare = |line: &str, word: &str| {
            let hay = line.as_bytes();
            let hs = line.find(word).unwrap();
            let he = hs + word.len();
            let got = no_shape(hay, hs, he, 0, hay.len());
            if got {
                assert_eq!(HitCtx::new(hay, hs, he, 0, hay.len()).feat, 0, "{line:?}");
            }
            got
        };
        for (line, word) in [
            ("INFO auth.keys rotated key_id=k", "auth"),
            ("INFO auth.keys rotated key_id=k", "key"),
            ("rotated key_id=key_83fefc63f0 owner=team-48", "key_8"),
            ("secret_name=prod/db/password version=25", "password"),
            ("the token was refreshed", "token"),
            ("a token of trust", "token"),
            ("x secret", "secret"),
        ] {
            assert!(bare(line, word), "{line:?} {word:?}");
        }
        for (line, word) in [
            ("key_id=k", "key"),
            ("\"token\":\"abc\"", "token"),
            ("token : x", "token"),
            ("token  x", "token"),
            ("token\tx", "token"),
            ("token || 'x'", "token"),
            ("token or 'x'", "token"),
            ("token?? 'x'", "token"),
            ("getenv(\"TOKEN\") ?: 'x'", "TOKEN"),
            ("<token>x</token>", "token"),
            ("${TOKEN:-x}", "TOKEN"),
            ("run --token x", "token"),
            ("  ENV TOKEN x", "TOKEN"),
            ("ARG\tTOKEN x", "TOKEN"),
            ("var token string = x", "token"),
            ("token| x", "token"),
            ("token\\\"", "token"),
            ("token%22", "token"),
            ("token) x", "token"),
            ("token] x", "token"),
            ("token .= x", "token"),
            ("token += x", "token"),
        ] {
            assert!(!bare(line, word), "{line:?} {word:?}");
        }
    }

    /// The hits `picks` (a place and a length) give in `hay`, each with its
    /// line: `(hs, he, ls, le)`; picks that are empty or hold a newline are
    /// left out.
    pub(super) fn hits_on_lines(
        hay: &[u8],
        picks: &[(prop::sample::Index, usize)],
    ) -> Vec<(usize, usize, usize, usize)> {
        picks
            .iter()
            .filter_map(|&(at, len)| {
                let hs = at.index(hay.len());
                let he = (hs + len).min(hay.len());
                if hs >= he || hay[hs..he].contains(&b'\n') {
                    return None;
                }
                let ls = memchr::memrchr(b'\n', &hay[..hs]).map_or(0, |i| i + 1);
                let le = memchr::memchr(b'\n', &hay[he..]).map_or(hay.len(), |i| he + i);
                Some((hs, he, ls, le))
            })
            .collect()
    }

    pub(super) fn old_build(hay: &[u8], hs: usize, he: usize, ls: usize, le: usize) -> HitCtx {
        let end = le.min(he + 256);
        // A keyword that carries its operator or quote (`pw=`, `pass\"`): the
        // name ends before those bytes.
        let mut i = name_end_of_hit(hay, hs, he);
        while i < end && is_word_byte(hay[i]) {
            i += 1;
        }
        // Where `Guard::Typed` looks: after the word (`[A-Za-z0-9_]`) of the hit.
        let word_end = i;
        while i < end && is_name_byte(hay[i]) {
            i += 1;
        }
        let name_end = i;
        let skip_spaces = |mut i: usize| {
            while i < end && matches!(hay[i], b' ' | b'\t') {
                i += 1;
            }
            i
        };
        let after = skip_spaces(name_end);
        let mut q = name_end;
        while q < end && matches!(hay[q], b'"' | b'\'' | b'`' | b'\\' | b']') {
            q += 1;
        }
        let after_q = if q == name_end { after } else { skip_spaces(q) };
        let ns = old_name_start(hay, hs, ls);
        let at = |i: usize| if i < end { hay[i] } else { b'\n' };
        let mut feat = 0;
        if let Some(op) = old_assign_op_at(hay, after_q, end) {
            feat |= F_ASSIGN_Q;
            // `Guard::AssignName` but the name's verdict.
            let mut v = after_q + op;
            while v < le && matches!(hay[v], b' ' | b'\t') {
                v += 1;
            }
            if value_may_follow(hay, v, le) {
                feat |= F_ASSIGN_VALUE;
            }
        }
        // Usually the same place as `after_q` (no closing quote).
        let assign_after = if after == after_q {
            feat & F_ASSIGN_Q != 0
        } else {
            old_assign_op_at(hay, after, end).is_some()
        };
        if assign_after {
            feat |= F_ASSIGN;
        }
        feat |= match at(after) {
            b'\\' => F_BACKSLASH,
            b'%' => F_PERCENT,
            // `|`, or the first byte of a box-drawing bar (`│`, `┃`).
            b'|' | 0xE2 => F_PIPE,
            _ => 0,
        };
        match at(after_q) {
            b':' => feat |= F_COLON_Q,
            b'=' | b'!' if at(after_q + 1) == b'=' => feat |= F_COMPARE,
            _ => {}
        }
        let before = if ns > ls { hay[ns - 1] } else { b'\n' };
        match before {
            b'<' => feat |= F_LT_BEFORE | F_CONTEXT,
            // `Guard::Spaced` but its word list.
            b' ' | b'\t' if ns > ls + 1 && hay[ns - 2].is_ascii_alphanumeric() && assign_after => {
                feat |= F_SPACE_BEFORE
            }
            // A shell default `${NAME:-v}`.
            b'{' if ns >= ls + 2 && hay[ns - 2] == b'$' => feat |= F_CONTEXT,
            // A call's first argument `("NAME", …` (as `call_arg` reads it:
            // not a JSON value `:"key_…",`).
            q @ (b'"' | b'\'' | b'`') if at(name_end) == q => {
                let mut j = name_end + 1;
                while j < end && matches!(hay[j], b' ' | b'\t') {
                    j += 1;
                }
                let mut k = ns - 1;
                while k > ls && matches!(hay[k - 1], b' ' | b'\t') {
                    k -= 1;
                }
                if at(j) == b',' && k > ls && hay[k - 1] == b'(' {
                    feat |= F_CONTEXT;
                }
            }
            _ => {}
        }
        // An env fallback `NAME || 'v'` (see `fallback`).
        if feat & F_CONTEXT == 0 && old_fallback(hay, name_end, end) {
            feat |= F_CONTEXT;
        }
        if literal_call_or_array(hay, ns, name_end, end) {
            feat |= F_CONTEXT;
        }
        if at(name_end) == b'\t' || (at(name_end) == b' ' && at(name_end + 1) == b' ') {
            feat |= F_COLUMN;
        }
        match at(word_end) {
            b':' if at(word_end + 1) != b':' => feat |= F_TYPED,
            b'?' if at(word_end + 1) == b':' && at(word_end + 2) != b':' => feat |= F_TYPED,
            b' ' | b'\t' if go_declared(hay, hs, ls) => feat |= F_TYPED,
            _ => {}
        }
        let env_arg = || env_or_arg_line(&hay[ls..le]);
        if hay.get(ns) == Some(&b'-') || env_arg() {
            feat |= F_FLAG;
        }
        HitCtx {
            hs,
            he,
            ls,
            le,
            end,
            ns,
            name_end,
            word_end,
            after,
            after_q,
            feat,
        }
    }

    /// Text in the shapes the context looks at: names around keywords,
    /// Go declarations, env lines, fallbacks, quotes, operators, spaces.
    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            4 => prop::sample::select(vec![
                "token", "key", "secret", "pass", "auth", "tok", "key_id", "x.y", "a-b", "_",
                "var ", "const ", "var\t", "ENV ", "ARG\t", "E", "A", " ", "\t", "  ", "=",
                ":", "::", ":=", "||", " || ", "??", "?:", " or ", "o", "\"", "'", "`", "]",
                ")", "(", ",", "\\", "%", "|", "<", "{", "${", "-", "--", "\n", "[", "}",
                "Z9", "string", ".",
            ])
            .prop_map(|s| s.as_bytes().to_vec()),
            1 => prop::collection::vec(any::<u8>(), 1..3),
        ]
    }

    #[test]
    fn dot_six_finds_a_bot_tokens_parts_at_any_place() {
        let token = b"MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs";
        for pre in [&b""[..], b"x ", b"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p token: "] {
            let line = [pre, &token[..]].concat();
            assert!(dot_six(&line) && old_dot_six(&line));
            assert!(!dot_six(&line[..pre.len() + 31]) && !old_dot_six(&line[..pre.len() + 31]));
            assert!(dot_six(&line[..pre.len() + 32]) && old_dot_six(&line[..pre.len() + 32]));
        }
    }

    /// Pieces of text around the parts of a Discord bot token: single
    /// token bytes, dots and spaces, the id's 20 to 25 bytes, the dotted
    /// timestamp, and runs longer than a short line.
    pub(crate) fn dot_six_piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            8 => prop::sample::select(b"aZ09_-. \t".to_vec()).prop_map(|b| vec![b]),
            1 => (20usize..26).prop_map(|n| b"MTk4NjIyNDgzNDcxOTI1MjQ4x"[..n].to_vec()),
            1 => Just(b"Cl2FMQ.".to_vec()),
            1 => Just(vec![b'x'; 300]),
        ]
    }

    /// Pieces of what follows `name:` in code, grep output and values.
    fn after_colon_piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            3 => prop::sample::select(b"aZ9_. \t:=?<>![](),;{}|&*/\n\r'x".to_vec())
                .prop_map(|b| vec![b]),
            1 => Just(vec![b'a'; 40]),
        ]
    }

    /// What follows `name:`: a word (types, values, line numbers), blanks,
    /// an operator or punctuation, a default, then anything.
    fn after_colon() -> impl Strategy<Value = (Vec<u8>, usize)> {
        let word = prop::sample::select(vec![
            &b"str"[..],
            b"String",
            b"None",
            b"Token",
            b"typing.Optional",
            b"rsa.RSAKey",
            b"u32",
            b"uid_t",
            b"__u8",
            b"TokenizeResult",
            b"PasswdEntry",
            b"42",
            b"s3cr3tV4lue",
            b"&str",
            b"*mut ",
            b"*const ",
            b"std",
            b"Vec",
            b"x",
        ]);
        let blanks = prop::sample::select(vec![&b""[..], b" ", b"\t", b"  "]);
        let op = prop::sample::select(vec![
            &b""[..],
            b"=",
            b"?",
            b"?=",
            b"!",
            b"<",
            b"::",
            b",",
            b")",
            b";",
            b"{",
            b">",
            b"|",
            b"[",
            b"]",
            b"}",
            b"/",
            b":",
            b"==",
            b"=>",
            b"\n",
            b"\r",
        ]);
        let default = prop::sample::select(vec![
            &b""[..],
            b"None",
            b"null",
            b"nil",
            b"undefined",
            b"True",
            b"False",
            b"Nonesuch",
            b"x",
            b"_",
            b" ",
            b"String",
            b"&'a str",
        ]);
        (
            prop::collection::vec(after_colon_piece(), 0..4),
            word,
            blanks,
            op,
            default,
            prop::collection::vec(after_colon_piece(), 0..6),
            any::<bool>(),
            any::<prop::sample::Index>(),
        )
            .prop_map(|(pre, w, bl, op, d, tail, at_word, at)| {
                let pre = pre.concat();
                let hay = [&pre[..], w, bl, op, d, &tail.concat()].concat();
                let vs = if at_word {
                    pre.len()
                } else {
                    at.index(hay.len() + 1)
                };
                (hay, vs)
            })
    }

    proptest! {
        /// What follows `name:` is judged from its first bytes exactly as
        /// from the whole rest of its line.
        #[test]
        fn number_or_type_reads_the_line_only_as_far_as_it_needs((hay, vs) in after_colon()) {
            let line_end = memchr::memchr2(b'\n', b'\r', &hay[vs..]).map_or(hay.len(), |i| vs + i);
            prop_assert_eq!(
                number_or_type_after(&hay, vs),
                number_or_type(&hay[vs..line_end]),
                "{:?} from {}", String::from_utf8_lossy(&hay), vs
            );
        }
    }

    proptest! {
        /// `human_password` asks `spells_password_word` first: it holds
        /// for every name that `names_password` accepts.
        #[test]
        fn password_names_spell_a_password_word(
            pre in "[A-Za-z0-9_.-]{0,12}",
            word in prop::sample::select(vec![
                "password", "PASSWD", "Passwort", "passphrase", "pass", "PWD", "pswd", "Pw",
                "dbpass", "adminPassword", "rootpwd", "x", "Key", "pas", "p_w", "token",
            ]),
            post in "[0-9]{0,3}",
        ) {
            let name = format!("{pre}{word}{post}");
            if names_password(name.as_bytes()) {
                prop_assert!(spells_password_word(name.as_bytes()), "{}", name);
            }
        }
    }

    proptest! {
        /// Remembered name starts are the name starts, for hits in order
        /// along sliding windows, and in any order.
        #[test]
        fn remembered_name_starts_are_the_name_starts(
            text in prop::collection::vec(
                prop::sample::select(b"keyK9_.- \t=\"\xe9".to_vec()), 0..300,
            ),
            asks in prop::collection::vec(
                (any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..40,
            ),
            sorted in any::<bool>(),
        ) {
            let hay = &text[..];
            let mut asks: Vec<(usize, usize)> = asks
                .iter()
                .map(|(a, b)| {
                    let (a, b) = (a.index(hay.len() + 1), b.index(hay.len() + 1));
                    (a.min(b), a.max(b))
                })
                .collect();
            if sorted {
                // Hits in order, window starts that never go back (as
                // `spans_with_hits` asks on a long line).
                let mut starts: Vec<usize> = asks.iter().map(|a| a.0).collect();
                let mut ends: Vec<usize> = asks.iter().map(|a| a.1).collect();
                starts.sort_unstable();
                ends.sort_unstable();
                asks = starts.into_iter().zip(ends).map(|(l, h)| (l.min(h), h)).collect();
            }
            let mut names = NameStarts::default();
            for (ls, hs) in asks {
                prop_assert_eq!(names.of(hay, hs, ls), old_name_start(hay, hs, ls));
            }
        }
    }

    proptest! {
        /// A value made of words of its name, in their order, in any case
        /// and joined by any separator, echoes the name; with two words the
        /// name lacks (any case, among its own), it never does.
        #[test]
        fn values_of_the_names_words_echo_it_and_two_foreign_words_never(
            // No `q`: the foreign words below hold one.
            words in prop::collection::vec("[a-pr-z]{3,8}", 1..7),
            picks in prop::collection::vec(any::<bool>(), 7),
            upper in prop::collection::vec(any::<bool>(), 7),
            sep in prop::sample::select(vec!["_", "-", ".", " "]),
            foreign in ("q[a-z]{3,6}x", "z[a-z]{3,6}q"),
        ) {
            let name = words.join("_").to_uppercase();
            let mut kept: Vec<String> = words
                .iter()
                .zip(&picks)
                .zip(&upper)
                .filter(|((_, &p), _)| p)
                .map(|((w, _), &u)| if u { w.to_uppercase() } else { w.clone() })
                .collect();
            if kept.is_empty() {
                kept.push(words[0].clone());
            }
            let v = kept.join(sep);
            prop_assert!(echoes_name(name.as_bytes(), v.as_bytes()), "{} {}", name, v);
            // The name's words hold neither foreign word (`q…x`, `z…q` split
            // no other way and are no prefix of a name word with digits).
            let mut mixed = kept.clone();
            mixed.insert(0, foreign.0.clone());
            mixed.push(foreign.1.clone());
            let v = mixed.join(sep);
            prop_assert!(!echoes_name(name.as_bytes(), v.as_bytes()), "{} {}", name, v);
        }

        /// A Ruby variable's or a template's path of names is a code
        /// reference; one byte that no name or path holds (a password's
        /// symbol, a space) makes it none, and so does a capital after `@`.
        #[test]
        fn paths_of_names_are_code_references_and_symbols_never(
            parts in prop::collection::vec("[a-z_][a-z0-9_]{0,8}", 1..5),
            head in prop::sample::select(vec!["@", "@@", ".", "$."]),
            symbol in prop::sample::select(vec![b'%', b'^', b'*', b'!', b'-', b' ', b'/', b'+', b'=']),
            at in any::<prop::sample::Index>(),
        ) {
            let v = format!("{head}{}", parts.join("."));
            prop_assert!(code_reference(v.as_bytes()), "{}", v);
            let mut broken = v.clone().into_bytes();
            let k = head.len() + at.index(broken.len() - head.len());
            broken.insert(k, symbol);
            let trailing_bang = symbol == b'!' && k == broken.len() - 1 && head.starts_with('@');
            prop_assume!(!trailing_bang && broken.last() != Some(&b' '));
            prop_assert!(!code_reference(&broken), "{}", String::from_utf8_lossy(&broken));
            let capital = format!("@{}", v.trim_start_matches(['@', '.', '$']).to_uppercase());
            prop_assume!(capital.bytes().any(|b| b.is_ascii_uppercase()));
            prop_assert!(!code_reference(capital.as_bytes()), "{}", capital);
        }

        /// Lower-case rule words joined by `|`, with arguments or not, are
        /// validation rules; a capital or a digit in one rule's word, never.
        #[test]
        fn rule_words_joined_by_bars_are_validation_rules(
            rules in prop::collection::vec(("[a-z_]{3,12}", prop::option::of("[a-z0-9,]{1,6}")), 2..6),
            spoil in any::<prop::sample::Index>(),
            with in prop::sample::select(vec!['Q', '7']),
        ) {
            let text = |rules: &[(String, Option<String>)]| {
                rules
                    .iter()
                    .map(|(w, a)| a.as_ref().map_or(w.clone(), |a| format!("{w}:{a}")))
                    .collect::<Vec<_>>()
                    .join("|")
            };
            let v = text(&rules);
            prop_assert!(validation_rules(v.as_bytes()), "{}", v);
            let mut spoiled = rules.clone();
            let k = spoil.index(spoiled.len());
            spoiled[k].0.insert(1, with);
            let v = text(&spoiled);
            prop_assert!(!validation_rules(v.as_bytes()), "{}", v);
        }

        /// The shape tests of values end without a panic on any text, in
        /// any script (a JOSE algorithm test once split a string inside a
        /// character: `Atkārtot jauno paroli`), and only names of the
        /// algorithms' own shape are algorithms.
        #[test]
        fn value_shapes_end_on_any_text(
            v in "(A|RS|HS|PBES2-HS|RSA-OAEP-|ECDH-ES\\+)?[A-Za-z0-9ā€\\-+_.%/`^$|(# ]{0,24}",
            bytes in prop::collection::vec(any::<u8>(), 0..40),
        ) {
            for v in [v.as_bytes(), &bytes[..]] {
                let _ = code_shaped_value(v);
                let _ = host_name(v);
                let _ = key_file_name(v);
                let _ = concatenated(v);
                let _ = format_field(v);
                let _ = regex_like(v);
                let _ = code_span_word(v);
                if jose_algorithm(v) {
                    prop_assert!(v.is_ascii() && v.len() <= 18, "{}", String::from_utf8_lossy(v));
                }
            }
        }

        /// `reads_as_words` ends on any bytes (a byte that is no letter or
        /// digit once never ended a hump: the value checks met such bytes
        /// through new callers), and a separator between two names never
        /// makes them read as words when one of them alone does not.
        #[test]
        fn reads_as_words_ends_on_any_bytes(
            v in prop::collection::vec(any::<u8>(), 0..40),
            a in "[a-z]{2,8}",
            b in "[A-Za-z0-9]{1,12}",
            sep in prop::sample::select(vec![b'.', b'-', b'/', b' ', b'_']),
        ) {
            let _ = reads_as_words(&v);
            let _ = reads_as_words_ending(&v, true);
            let joined = [a.as_bytes(), &[sep], b.as_bytes()].concat();
            if !reads_as_words(b.as_bytes()) || !reads_as_words(a.as_bytes()) {
                prop_assert!(!reads_as_words(&joined), "{}", String::from_utf8_lossy(&joined));
            }
        }

        /// Two or more capitalized words read as a message; a lower-case
        /// word or a digit among them, never.
        #[test]
        fn title_phrases_need_every_word_capitalized(
            words in prop::collection::vec("[A-Z][aeiou][bcdlmnrst][aeiou][a-z]{0,3}", 2..5),
            spoil in any::<prop::sample::Index>(),
            digit in any::<bool>(),
        ) {
            let v = words.join(" ");
            prop_assert!(title_phrase(v.as_bytes()), "{}", v);
            let mut w = words.clone();
            let k = spoil.index(w.len());
            w[k] = if digit { format!("{}7", w[k]) } else { w[k].to_lowercase() };
            let v = w.join(" ");
            prop_assert!(!title_phrase(v.as_bytes()), "{}", v);
        }

        /// `Guard::DotSix` looks at the dots it can use only, and finds
        /// what the old scan of every dot found.
        #[test]
        fn dot_six_is_the_old_one(parts in prop::collection::vec(dot_six_piece(), 0..60)) {
            let line = parts.concat();
            prop_assert_eq!(dot_six(&line), old_dot_six(&line));
        }

        /// `dot_six` of every piece of a text is whether one of the text's
        /// `dot_six_dots` lies in the piece at 23 or more from its start and
        /// more than 7 before its end.
        #[test]
        fn the_texts_dots_judge_every_piece(
            parts in prop::collection::vec(dot_six_piece(), 0..80),
            cuts in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        ) {
            let hay = parts.concat();
            let dots = dot_six_dots(&hay);
            let (a, b) = (cuts.0.index(hay.len() + 1), cuts.1.index(hay.len() + 1));
            let (ls, le) = (a.min(b), a.max(b));
            let from_dots = dots.iter().any(|&i| i >= ls + 23 && i + 7 < le);
            prop_assert_eq!(dot_six(&hay[ls..le]), from_dots);
        }

        /// The operator found at every position of any text made of
        /// operator bytes is the one the old search found.
        #[test]
        fn assign_op_is_the_old_one(
            hay in prop::collection::vec(prop::sample::select(b"=:?.+|>-a \"".to_vec()), 0..24),
        ) {
            for i in 0..=hay.len() {
                for end in i..=hay.len() {
                    prop_assert_eq!(
                        assign_op_at(&hay, i, end),
                        old_assign_op_at(&hay, i, end),
                        "{}..{} of {:?}", i, end, String::from_utf8_lossy(&hay)
                    );
                }
            }
        }

        /// The context built with the cheap pre-tests (fallback, Go
        /// declaration, `ENV`/`ARG` lines) is the one built without them, for
        /// any hit on any line.
        #[test]
        fn cheaper_hit_context_is_the_old_one(
            parts in prop::collection::vec(piece(), 1..40),
            picks in prop::collection::vec((any::<prop::sample::Index>(), 1usize..8), 1..12),
        ) {
            let hay = parts.concat();
            for (hs, he, ls, le) in hits_on_lines(&hay, &picks) {
                prop_assert_eq!(
                    HitCtx::new(&hay, hs, he, ls, le),
                    old_build(&hay, hs, he, ls, le),
                    "{}..{} of {:?}", hs, he, String::from_utf8_lossy(&hay)
                );
            }
        }

        /// A hit [`no_shape`] passes has no context shape: it may be judged
        /// without its context (checked against the old build, which
        /// `cheaper_hit_context_is_the_old_one` ties to `HitCtx::new`).
        #[test]
        fn a_hit_without_shape_has_a_context_without_shapes(
            parts in prop::collection::vec(piece(), 1..40),
            picks in prop::collection::vec((any::<prop::sample::Index>(), 1usize..8), 1..12),
        ) {
            let hay = parts.concat();
            for (hs, he, ls, le) in hits_on_lines(&hay, &picks) {
                if no_shape(&hay, hs, he, ls, le) {
                    prop_assert_eq!(
                        old_build(&hay, hs, he, ls, le).feat,
                        0,
                        "{}..{} of {:?}", hs, he, String::from_utf8_lossy(&hay)
                    );
                }
            }
        }
    }
}
