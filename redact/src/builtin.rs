//! The built-in rule set.
//!
//! Each vendor rule encodes the token's real format (prefix, alphabet, length);
//! context rules (assignments, headers, URLs, command lines) find secrets by
//! what surrounds them and then filter placeholders, code and prose.

use crate::checks::{Check, Guard, Needs};
use crate::rule::{Rule, RuleBuilder};

/// Overlap priorities (lower wins the id when matches of several rules overlap).
pub(crate) const P_PEM: u8 = 0;
pub(crate) const P_VENDOR: u8 = 10;
pub(crate) const P_STRUCT: u8 = 20;
pub(crate) const P_KNOWN: u8 = 30;
pub(crate) const P_GENERIC: u8 = 40;

/// Keywords of the generic assignment rules (a secret-looking name holds one).
const GENERIC_KW: &[&str] = &[
    "passw",
    "passphrase",
    "pass=",
    "pass:",
    "pass\"",
    "pass'",
    "pass\\",
    "pass%",
    "pass>",
    "pass|",
    "pass?",
    "pass(",
    "pass[",
    "pass =",
    "pass ",
    "pass\t",
    "_pass",
    "-pass",
    "pwd",
    "pswd",
    "_pw",
    "-pw",
    ".pw",
    "pw=",
    "pw:",
    "pw\"",
    "pw'",
    "pw ",
    "pw?",
    "pw(",
    "pw[",
    "secret",
    "token",
    "key",
    "auth",
    "cred",
    "psk",
];

/// A name that contains a secret word (classified further by `checks::classify_name`).
const NAME: &str =
    r"[A-Za-z0-9_.\-]*(?i:pass|pwd?|pswd|secret|token|key|auth|cred|psk)[A-Za-z0-9_.\-]*";

/// A name [`Guard::Compare`]'s rule takes: [`NAME`] but for tokens and `auth`.
const COMPARED_NAME: &str =
    r"[A-Za-z0-9_.\-]*(?i:pass|pwd?|pswd|secret|key|cred|psk)[A-Za-z0-9_.\-]*";

/// Value alternatives: double-quoted (`secret`), single-quoted (`s2`), bare (`s3`).
/// A bare value ends before `|` (a shell pipe); the check of the common
/// generic rule ([`VALUE_NC`], `Check::GenericKv`) takes a Facebook app
/// access token's part after it (`checks::app_token_end`).
/// A quoted value may carry a string prefix: Python's `b'…'`, `r"…"`, `u'…'`,
/// `br'…'` (Flask's `app.secret_key = b'…'`), Rust's `b"…"` and `br"…"`. Not
/// an f-string's `f"…"`: with a placeholder it is code (`token =
/// f"share-{org}-{id}"`), and one without is rare.
const VALUE: &str = r#"(?:(?:[bBrRuU]|[bB][rR]|[rR][bB])?"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|(?:[bBrRuU]|[bB][rR]|[rR][bB])?'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'`,;&<>\\|]*[^\s"'`,;&<>\\|)\]}.]))"#;

/// The assignment operators of `checks::ASSIGN_OPS`, longest first.
const ASSIGN_OP: &str = r"(?::::=|::=|\?\?=|\|\|=|:=|\?=|\+=|\.=|=>|=|:)";

/// A quoted string literal (groups `secret`, `s2`, `s4` for `"…"`, `'…'`, `` `…` ``).
const QUOTED: &str =
    r#"(?:"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|'(?P<s2>[^'\r\n]+)'|`(?P<s4>[^`\r\n]+)`)"#;

/// [`VALUE`] without capture groups, and a backtick string without
/// whitespace: a Go raw string or a JS template literal (`` token :=
/// `v` ``, `` const apiKey = `v` ``). With whitespace inside it is a
/// command (`` TOKEN=`cat /run/token` ``) or prose in Markdown, and a
/// command without (`` `whoami` ``) fails the value checks as a word does.
const VALUE_NC: &str = r#"(?:(?:[bBrRuU]|[bB][rR]|[rR][bB])?"(?:"")?(?:[^"\\\r\n]|\\[^\r\n])+"(?:"")?|(?:[bBrRuU]|[bB][rR]|[rR][bB])?'(?:'')?[^'\r\n]+'(?:'')?|`[^`\s]+`|[^\s"'`,;&<>\\|]*[^\s"'`,;&<>\\|)\]}.])"#;

/// A value after a space-separated flag: quoted, or a bare word not starting
/// with `-` (the next flag), unless it is 16+ characters long (`-p -1rhPbyRQ…`:
/// CLI parsers take the next argument as the flag's value).
const FLAG_VALUE: &str = r#"(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'\-][^\s"']*|-[^\s"'\-][^\s"']{14,}))"#;

/// Services whose keys are often assigned to the service's name alone
/// (`DATADOG=v`, `"cloudflare": "v"`): the vendors that public rule sets
/// (gitleaks' semi-generic rules) know by their name, not by a prefix of
/// the key. A `_`, `-` or `.` may part the words of a name of two
/// (`new_relic`, `LINKED-IN`). Left out: names that are common words in
/// code (`linear`, `segment`) and hosts whose name takes commit hashes
/// (`github`, `gitlab`). The one-word names also make a `key` after them
/// an API key's name (`confluent_key`, see `checks::key_qualifiers`).
pub(crate) const VENDOR_NAMES: &[&str] = &[
    "adafruit",
    "adobe",
    "airtable",
    "algolia",
    "alibaba",
    "amplitude",
    "artifactory",
    "asana",
    "atlassian",
    "beamer",
    "bintray",
    "bitbucket",
    "bittrex",
    "bugsnag",
    "circleci",
    "cloudflare",
    "codecov",
    "cohere",
    "coinbase",
    "confluence",
    "confluent",
    "contentful",
    "datadog",
    "discord",
    "droneci",
    "dropbox",
    "etsy",
    "facebook",
    "fastly",
    "finicity",
    "finnhub",
    "flickr",
    "freshbooks",
    "gitter",
    "gocardless",
    "heroku",
    "hubspot",
    "intercom",
    "jfrog",
    "jira",
    "kraken",
    "kucoin",
    "launchdarkly",
    "linked_in",
    "looker",
    "mailchimp",
    "mailgun",
    "mapbox",
    "mattermost",
    "meraki",
    "message_bird",
    "mixpanel",
    "netlify",
    "new_relic",
    "nytimes",
    "pagerduty",
    "plaid",
    "planetscale",
    "postmark",
    "private_ai",
    "pusher",
    "rapidapi",
    "rollbar",
    "sendbird",
    "sendgrid",
    "sentry",
    "sidekiq",
    "snyk",
    "sonar",
    "sourcegraph",
    "squarespace",
    "sumo",
    "sumologic",
    "telegram",
    "travis",
    "twilio",
    "twitter",
    "vercel",
    "yandex",
    "zendesk",
];

/// The keywords of Airtable's personal access tokens: `pat` and the id's
/// first character or two, all but those of the words of code (`paths`,
/// `PathBuf`, `pathAndQuery`, `pathname`, `pathlib`, `pattern`; `path`
/// and `patt` alone hit every 2 KB of source code, each hit a regex search
/// that fails). The ids left out (`hs…`, `hb…`, `ha…`, `hn…`, `hl…`, `te…`
/// in either case: 24 of the 3 844 first two characters) are masked where
/// a secret name or `Bearer` stands before them, not bare.
fn airtable_pat_keywords() -> Vec<String> {
    const ID: &str = "0123456789abcdefghijklmnopqrstuvwxyz";
    let after = |head: &str, skip: &str| {
        ID.chars()
            .filter(|c| !skip.contains(*c))
            .map(|c| format!("{head}{c}"))
            .collect::<Vec<_>>()
    };
    let mut k = after("pat", "ht");
    k.extend(after("path", "sbanl"));
    k.extend(after("patt", "e"));
    k
}

/// The rule of [`VENDOR_NAMES`]: `(prefix_)VENDOR`, an assignment (`=`,
/// `:`, `:=`, `=>`, `::=`, `?=`) and a token of 16 to 128 characters of
/// one token alphabet (dots inside: Airtable's `patX.Y`), ending the value,
/// or a Facebook app access token (`FACEBOOK=<app id>|<app secret>`).
fn vendor_named() -> RuleBuilder {
    let names = VENDOR_NAMES
        .iter()
        .map(|n| n.replace('_', r"[_.\-]?"))
        .collect::<Vec<_>>()
        .join("|");
    // `new_relic` is found as `newrelic`, `new_relic`, `new-relic`,
    // `new.relic`; `sumologic` by its start, `sumo`.
    let keywords: Vec<String> = VENDOR_NAMES
        .iter()
        .flat_map(|n| {
            let parted = n.contains('_');
            let mut k = vec![n.replace('_', "")];
            if parted {
                k.extend(["_", "-", "."].map(|sep| n.replace('_', sep)));
            }
            k
        })
        .collect();
    let keywords = keywords
        .iter()
        .filter(|k| {
            !keywords
                .iter()
                .any(|o| o != *k && k.starts_with(o.as_str()))
        })
        .cloned()
        .collect::<Vec<_>>();
    rb(
        "generic-secret",
        &format!(
            r#"(?im)\b(?P<name>(?:[A-Za-z0-9]+[_.\-])*(?:{names}))["']?[\t ]*(?:=|:|:=|::=|=>|\?=)[\t ]*["'`]?(?P<secret>[0-9]{{15,16}}\|[A-Za-z0-9_\-]{{27,40}}|[A-Za-z0-9_\-+/=](?:[A-Za-z0-9_\-+/=.]{{14,126}})[A-Za-z0-9_\-+/=])(?:[\s"'`,;)\]}}]|$)"#
        ),
    )
    .keywords(keywords)
    .secret_group("secret")
    .priority(P_GENERIC)
    .guard(Guard::Assign)
    .check(Check::VendorNamed)
}

/// A built-in rule: ASCII mode (`(?-u)`) keeps the automata small and fast;
/// non-ASCII bytes still match the negated classes of values byte by byte,
/// and every delimiter is ASCII, so a span never splits a UTF-8 character.
///
/// NUL ends a value as whitespace does: every `\S` and `[^\s…]` of the
/// patterns excludes it too. `/proc/PID/environ` separates its variables
/// with NUL, and `DB_PASSWORD=v\0HOME=/root\0` masked the variables after
/// the password with it.
fn rb(id: &str, pattern: &str) -> RuleBuilder {
    let pattern = pattern
        .replace(r"[^\s", r"[^\x00\s")
        .replace(r"\S", r"[^\x00\s]");
    Rule::builder(id, format!("(?-u){pattern}"))
}

fn r(id: &str, pattern: &str, keywords: &[&str]) -> RuleBuilder {
    rb(id, pattern)
        .keywords(keywords.iter().copied())
        .priority(P_VENDOR)
        .check(Check::Token)
}

fn secret(b: RuleBuilder) -> RuleBuilder {
    b.secret_group("secret")
}

fn generic(pattern: &str) -> RuleBuilder {
    generic_keyed(pattern, GENERIC_KW.iter().copied())
}

/// A generic rule keyed on `keywords` instead of the secret words.
fn generic_keyed<'a>(pattern: &str, keywords: impl IntoIterator<Item = &'a str>) -> RuleBuilder {
    rb("generic-secret", pattern)
        .keywords(keywords)
        .secret_group("secret")
        .priority(P_GENERIC)
        .check(Check::Generic)
}

/// A generic rule whose value is [`VALUE`] or [`FLAG_VALUE`] (groups `secret`, `s2`, `s3`).
fn generic3(pattern: &str) -> RuleBuilder {
    generic(pattern).alt_groups(&["s2", "s3"])
}

/// The arguments between a command and the flag or value a command rule
/// reads, as its pattern writes them: no line break, and not past the end
/// of the command (`|`, `;`, `&`).
const LINE_ARGS: &str = r"[^\r\n|;&]*?";

/// [`LINE_ARGS`] continued over lines that end in `\` (POSIX shells), `^`
/// (cmd) or `` ` `` (PowerShell): `docker login \` / `  -u ci \` / `  -p v`.
const ARGS: &str = r"(?:[^\r\n|;&\\]|\\[^\r\n]|[\\^`]\r?\n)*?";

/// How far past its keyword's line a command rule reads continuation lines
/// ([`Window::Continued`](crate::rule::Window::Continued)).
const CONTINUED: usize = 1024;

/// A password given on a command line (`mysql -pX`, `docker login -p X`):
/// the value in groups `secret`, `s2` or `s3`, judged by the command check
/// (a word is a password there: `sshpass -p swordfish`). The arguments
/// before it ([`LINE_ARGS`] in `pattern`) may go on over continuation
/// lines ([`ARGS`]), read up to [`CONTINUED`] bytes past the keyword's line.
fn command_secret(pattern: &str, keywords: &[&str]) -> RuleBuilder {
    let continued = pattern.contains(LINE_ARGS);
    let rule = rb("generic-secret", &pattern.replace(LINE_ARGS, ARGS))
        .keywords(keywords.iter().copied())
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .priority(P_STRUCT)
        .check(Check::Command);
    if continued {
        rule.continued_lines(CONTINUED)
    } else {
        rule
    }
}

/// [`command_secret`] for a pattern whose value groups are `secret` and `alts`.
fn command_secret_in(pattern: &str, keywords: &[&str], alts: &[&str]) -> RuleBuilder {
    command_secret(pattern, keywords).alt_groups(alts)
}

/// [`command_secret`] where the value ([`FLAG_VALUE`]) follows `flag_head`.
fn command_flag(flag_head: &str, keywords: &[&str]) -> RuleBuilder {
    command_secret(&format!("{flag_head}{FLAG_VALUE}"), keywords)
}

/// A value `echo` or `printf` writes to a pipe (`echo "v" |`, `echo -n 'v'
/// |`, `printf 'v' |`, `printf '%s' "v" |`), in groups `secret`, `s2` and
/// `s3`; not a variable's (`echo $PASS |`).
const ECHOED: &str = r#"\b(?:echo[\t ]+(?:-[ne][\t ]+)?|printf[\t ]+(?:(?:'%s(?:\\n)?'|"%s(?:\\n)?")[\t ]+)?)(?:"(?P<secret>[^"\r\n$]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s|$"'][^\s|]*))[\t ]*\|"#;

/// A command that stores what it reads on its standard input as a secret:
/// Docker's and Podman's `secret create`, the GitHub CLI's `secret set`
/// and `auth login --with-token`, GitLab's `auth login --stdin`, Vercel's
/// `env add`, Wrangler's `secret put`, Google Cloud's `secrets create` and
/// `secrets versions add`, Firebase's `functions:secrets:set`, Doppler's
/// `secrets set`, CircleCI's `context store-secret`, `pass insert`,
/// `secret-tool store`, `keyring set`, `passwd --stdin`, `htpasswd -i`,
/// `cryptsetup open` (a LUKS passphrase), and `kubectl create secret`
/// reading `/dev/stdin`.
const STDIN_SECRET: &str = r"(?:\b(?:docker|podman)[\t ]+secret[\t ]+create|\bgh[\t ]+secret[\t ]+set|\b(?:gh|glab)[\t ]+auth[\t ]+login\b[^\r\n|;&]*?[\t ]--(?:with-token|stdin)|\bvercel[\t ]+env[\t ]+add|\bwrangler[\t ]+(?:pages[\t ]+)?secret[\t ]+put|\bgcloud[\t ]+secrets[\t ]+(?:create|versions[\t ]+add)|\bfirebase[\t ]+functions:secrets:set|\bdoppler[\t ]+secrets[\t ]+set|\bcircleci[\t ]+context[\t ]+store-secret|\bpass[\t ]+(?:insert|add)|\bsecret-tool[\t ]+store|\bkeyring[\t ]+set|\bpasswd[\t ]+--stdin|\bhtpasswd\b[^\r\n|;&]*?[\t ]-[A-Za-z]*i|\bcryptsetup\b[^\r\n|;&]*?[\t ](?:luksOpen|open|luksFormat|luksAddKey)\b|\bkubectl[\t ]+create[\t ]+secret\b[^\r\n|;&]*?/dev/stdin)";

/// The keywords of [`STDIN_SECRET`]'s commands.
const STDIN_SECRET_KW: &[&str] = &[
    "secret create",
    "secret set",
    "with-token",
    "--stdin",
    "env add",
    "secret put",
    "secrets create",
    "versions add",
    "secrets:set",
    "secrets set",
    "store-secret",
    "pass insert",
    "pass add",
    "secret-tool",
    "keyring set",
    "htpasswd",
    "/dev/stdin",
    "cryptsetup",
];

/// A here-string's value (`<<< "v"`), in groups `secret`, `s2` and `s3`.
const HERE_STRING: &str =
    r#"<<<[\t ]*(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'$][^\s"']*))"#;

/// `sudo` reading the password from its standard input (`-S`, `-kS`, `--stdin`).
const SUDO_STDIN: &str = r"\bsudo[\t ]+(?:-[A-Za-z]*S[A-Za-z]*|--stdin)\b";

/// SQL's `IDENTIFIED [WITH plugin] BY` of an account statement: written in
/// capitals, opening a (continuation) line, or after `user`, `role`, `login`
/// or `grant` on its line — not prose (`the columns identified by "aOrderBy"`).
const IDENTIFIED_BY: &str = r"(?:\b(?-i:IDENTIFIED)|(?m:^)[\t ]*identified|\b(?:user|role|login|grant)\b[^\r\n]*?\bidentified)[\t ]+(?:with[\t ]+[A-Za-z0-9_]+[\t ]+)?by";

/// A Discord bot token, as documented: the bot's user id (a 17-20 digit
/// snowflake) in unpadded base64, a dot, a 6-character timestamp, a dot, and
/// an HMAC of 27 or more characters. Base64 of ASCII digits has a fixed shape:
/// each 3 digits become `[MNO][DTjz][AEIMQUYcgk][w-z0-5]`, a trailing digit
/// `[MNO][AQgw]`, two trailing digits `[MNO][DTjz][AEIMQUYcgk]` — so 17, 18,
/// 19 or 20 digits give 23, 24, 26 or 27 characters. A JWT (`eyJ…`) or random
/// dotted text does not have that shape.
const DISCORD_BOT_TOKEN: &str = r"(?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){5}(?:[MNO][DTjz][AEIMQUYcgk]|[MNO][DTjz][AEIMQUYcgk][w-z0-5](?:[MNO][AQgw]|[MNO][DTjz][AEIMQUYcgk])?)\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}";

/// Keywords of [`DISCORD_BOT_TOKEN`]: the seams between two 4-character
/// groups of the id's base64 — a group's last character (`[w-z0-5]`) and the
/// next group's first two (`M`/`N` + `[DTjz]`, `O` + `[DT]`): 100 three-byte
/// words. Every id of 17+ digits has four or more seams, each of them one of
/// these words, so every token has a keyword; in text they are rare (`syntax`
/// holds `ynt`) and cost one look at the line. A small set keeps the keyword
/// automaton small (all keywords share one table walked over every byte).
fn discord_id_keywords() -> Vec<String> {
    let mut out = Vec::new();
    for last in "wxyz012345".chars() {
        for (a, bs) in [("M", "DTjz"), ("N", "DTjz"), ("O", "DT")] {
            for b in bs.chars() {
                out.push(format!("{last}{a}{b}"));
            }
        }
    }
    out
}

/// Keywords of the typed declarations' names that hold `tok` but not
/// `token` (`var tok string = "v"`, `authTok: string = "v"`): `tok` and
/// `toke`, each followed by a byte that may follow it in such a name or
/// after it (`[A-Za-z0-9_]`, a space, a tab, `:`, `?`), but the one that
/// spells `token` (`e`, then `n`); `token` is a keyword of its own. A bare
/// `tok` hit every `token` a second time (29 % of the hits of JSON API
/// responses), each hit a step of the scanner out of its loop and then
/// judged and dropped as covered: 80 four- and five-byte keywords find the
/// same names.
fn tok_keywords() -> Vec<String> {
    let after = ('a'..='z')
        .chain('0'..='9')
        .chain(['_', ' ', '\t', ':', '?']);
    let mut out = followed_by("tok", after.clone().filter(|&c| c != 'e'));
    out.extend(followed_by("toke", after.filter(|&c| c != 'n')));
    out
}

/// `prefix` followed by each of `chars`, one keyword each.
fn followed_by(prefix: &str, chars: impl Iterator<Item = char>) -> Vec<String> {
    chars.map(|c| format!("{prefix}{c}")).collect()
}

pub(crate) fn rules() -> Vec<Rule> {
    rules_with(false)
}

/// The built-in rules compiled at build, as user rules are (tests compare
/// them with the lazily compiled ones).
#[cfg(test)]
pub(crate) fn rules_eager() -> Vec<Rule> {
    rules_with(true)
}

fn rules_with(eager: bool) -> Vec<Rule> {
    let hex = "0123456789abcdef";
    let mut twilio_kw = followed_by("sk", hex.chars());
    twilio_kw.push("twilio".to_string());
    let ac_kw = followed_by("ac", hex.chars());
    let discord_kw = discord_id_keywords();
    let tok_kw = tok_keywords();
    // `sk-` and a letter or digit, as both OpenAI rules go on: not the
    // masked `sk-...abcd` of a key listing.
    let sk_kw = followed_by("sk-", ('a'..='z').chain('0'..='9'));
    let [twilio_kw, ac_kw, discord_kw, tok_kw, sk_kw] =
        [&twilio_kw, &ac_kw, &discord_kw, &tok_kw, &sk_kw]
            .map(|kw| kw.iter().map(String::as_str).collect::<Vec<&str>>());

    let mut defs: Vec<RuleBuilder> = vec![
        // ---------------------------------------------------------------- PEM
        rb(
            "private-key",
            r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?P<secret>(?:(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):[^\r\n\\]*|[A-Za-z0-9+/=]+|[\t ]+|\r|\n|\\\\?[rn])+)",
        )
        .keywords(["private key"])
        .secret_group("secret")
        .priority(P_PEM)
        .window_bytes(64 * 1024)
        .check(Check::Pem),
        // A PuTTY key's (`.ppk`) private lines: whole lines of base64 (not
        // the `Private` of the `Private-MAC:` line after them).
        rb(
            "private-key",
            r"Private-Lines:[\t ]*[0-9]+\r?\n(?P<secret>[A-Za-z0-9+/=]+(?:\r?\n[A-Za-z0-9+/=]+)*)(?:\r?\n|$)",
        )
        .keywords(["private-lines"])
        .secret_group("secret")
        .priority(P_PEM)
        .window_bytes(16 * 1024)
        .check(Check::Pem),
        // An OpenVPN shared key (`--secret`, `<tls-auth>`, `<tls-crypt>`):
        // 256 bytes in hex lines, the block's armour kept.
        rb(
            "openvpn-static-key",
            r"-----BEGIN OpenVPN Static key V1-----(?P<secret>(?:[0-9a-fA-F]+|[\t ]+|\r|\n|\\\\?[rn])+)",
        )
        .keywords(["openvpn static key"])
        .secret_group("secret")
        .priority(P_PEM)
        // A block is ~700 bytes. Not wider than 8 KiB: the keywords of wider
        // windows are searched over every round's context (`Inner::wide`),
        // and this one's `o` made that search 7x slower on logs.
        .window_bytes(4 * 1024)
        .check(Check::Pem),
        r("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", &["age-secret-key-1"]),
        // ---------------------------------------------------------------- AWS
        r(
            "aws-access-key-id",
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
            &["a3t", "akia", "asia", "abia", "acca"],
        )
        .allow("EXAMPLE"),
        secret(r(
            "aws-secret-access-key",
            r#"\b(?:AKIA|ASIA)[A-Z0-9]{16}[\s,:;|'"=/]{1,10}(?:[A-Za-z_]{1,40}[\s:=,'"|]{1,5})?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            &["akia", "asia"],
        ))
        .check(Check::AwsSecret)
        .allow("EXAMPLE"),
        r(
            "aws-secret-access-key",
            r"[A-Za-z0-9/+]{40}",
            &["aws", "amazon", "akia", "asia"],
        )
        .bounds(Some(b"/+"), Some(b"/+="))
        .guard(Guard::Run(40))
        .check(Check::AwsSecret)
        .allow("EXAMPLE"),
        r(
            "aws-session-token",
            r"(?:[A-Za-z0-9+/]{2}oJb3JpZ2luX2Vj|[A-Za-z0-9+/]{2}oGZXIvYXdz|AQoDYXdzE)[A-Za-z0-9+/=%]{40,}",
            &["b3jpz2lux2vj", "zxivyxdz", "aqodyxdz"],
        )
        .bounds(Some(b"+/=%"), None),
        // ---------------------------------------------------------------- Google
        r(
            "gcp-api-key",
            r"\bAIza[0-9A-Za-z_\-]{35}",
            &["aiza"],
        )
        .bounds(None, Some(b"_-")),
        r(
            "gcp-oauth-client-secret",
            r"\bGOCSPX-[A-Za-z0-9_\-]{28}",
            &["gocspx-"],
        )
        .bounds(None, Some(b"_-")),
        r("gcp-access-token", r"\bya29\.[A-Za-z0-9_\-]{30,}", &["ya29."]),
        r(
            "gcp-refresh-token",
            r"1//0[A-Za-z0-9_\-]{30,}",
            &["1//0"],
        )
        .bounds(Some(b"_-/"), None),
        r(
            "firebase-fcm-key",
            r"\bAAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}",
            &["apa91b"],
        ),
        // ---------------------------------------------------------------- Azure
        secret(r(
            "azure-storage-key",
            r"(?i)\baccount_?key\\?[\t ]*[=:][\t ]*\\?['\x22]?(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            &["accountkey", "account_key"],
        ))
        .check(Check::Mixed)
        .priority(P_STRUCT),
        r(
            "azure-storage-key",
            r"[A-Za-z0-9+/]{86}==",
            &["=="],
        )
        .bounds(Some(b"+/_-"), Some(b"+/="))
        .guard(Guard::B64Before(86))
        .check(Check::Azure88),
        secret(r(
            "azure-shared-access-key",
            r"(?i)\bshared_?access_?key\\?[\t ]*[=:][\t ]*\\?['\x22]?(?P<secret>[A-Za-z0-9+/]{20,}={0,2})",
            &["sharedaccesskey", "shared_access_key"],
        ))
        .check(Check::Mixed)
        .priority(P_STRUCT),
        secret(r(
            "azure-sas-token",
            r"(?i)(?:^|[?&;\s'\x22])sig=(?P<secret>[A-Za-z0-9%+/=]{20,})",
            &["sig="],
        ))
        .check(Check::Value)
        .priority(P_STRUCT),
        r(
            "azure-client-secret",
            r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
            &["q~"],
        )
        .bounds(Some(b"_~.-"), Some(b"_~.-"))
        .check(Check::Mixed),
        // ---------------------------------------------------------------- GitHub / GitLab
        r(
            "github-token",
            r"\bgh[pousr]_[A-Za-z0-9]{36,}",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        )
        .bounds(None, Some(b"_")),
        r(
            "github-fine-grained-token",
            r"\bgithub_pat_[A-Za-z0-9_]{70,100}",
            &["github_pat_"],
        )
        .bounds(None, Some(b"_")),
        r(
            "gitlab-token",
            r"\b(?:glpat|gldt|glrt|glrtr|glptt|glft|glimt|glcbt|glsoat|gloas|glagent|glffct|glwt)-[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]+)*",
            &[
                "glpat-", "gldt-", "glrt-", "glrtr-", "glptt-", "glft-", "glimt-", "glcbt-",
                "glsoat-", "gloas-", "glagent-", "glffct-", "glwt-",
            ],
        ),
        r("gitlab-token", r"\bGR1348941[A-Za-z0-9_\-]{20,}", &["gr1348941"]),
        // ---------------------------------------------------------------- registries
        r(
            "npm-token",
            r"\bnpm_[A-Za-z0-9]{36}",
            &["npm_"],
        )
        .bounds(None, Some(b"_")),
        r("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", &["pypi-age"]),
        r("rubygems-token", r"\brubygems_[a-f0-9]{48}\b", &["rubygems_"]),
        r("docker-token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", &["dckr_"]),
        // From the keyword on, so that it runs anchored at its hits (a JSON
        // log's every `"auth":"ok"` searched its line): the quote before
        // the name is the guard's, and no name byte may precede it.
        secret(r(
            "docker-auth",
            r#"(?i)auth\\*"[\t ]*:[\t ]*\\*"(?P<secret>[A-Za-z0-9+/=_\-]{8,})\\*""#,
            &["auth"],
        ))
        .bounds(Some(b"_-."), None)
        .check(Check::DockerAuth)
        .guard(Guard::QuotedWord)
        .needs(Needs::Byte(b"\""))
        .priority(P_STRUCT),
        r("jfrog-token", r"\bAKCp[A-Za-z0-9]{69}\b", &["akcp"]).bounds(Some(b"/+"), Some(b"/+=")),
        // Artifactory reference tokens: base64 of `ref…` (`cmVmd…`), 64 characters.
        r("jfrog-token", r"\bcmVmd[A-Za-z0-9]{59}\b", &["cmvmd"]).bounds(Some(b"/+"), Some(b"/+=")),
        // ---------------------------------------------------------------- chat / payment / mail
        r(
            "slack-token",
            r"\bxox(?:[abeoprs]|e\.xox[bp])-[0-9]+-[0-9A-Za-z\-]{8,}",
            &["xox"],
        ),
        // Legacy workspace tokens: `xoxa-` / `xoxr-`, the number optional.
        r("slack-token", r"\bxox[ar]-(?:[0-9]-)?[0-9A-Za-z]{8,48}\b", &["xox"]),
        r("slack-token", r"\bxapp-[0-9]+-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+", &["xapp-"]),
        secret(r(
            "slack-webhook",
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/\-]{20,})",
            &["hooks.slack.com"],
        )),
        r(
            "stripe-key",
            r"\b(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{10,}",
            &["sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"],
        )
        .bounds(None, Some(b"_")),
        secret(r(
            "twilio-auth-token",
            r#"\bAC[0-9a-f]{32}\b(?:["'\s,:;]|\\"){1,8}(?P<secret>[0-9a-f]{32})\b"#,
            &ac_kw,
        ))
        .guard(Guard::TwilioSid),
        r("stripe-webhook-secret", r"\bwhsec_[A-Za-z0-9+/=]{24,}", &["whsec_"]),
        r(
            "twilio-api-key",
            r"\bSK[0-9a-fA-F]{32}",
            &twilio_kw,
        )
        .bounds(None, Some(b"_")),
        r(
            "sendgrid-api-key",
            r"\bSG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,50}|\bSG\.[A-Za-z0-9_\-=.]{66}\b",
            &["sg."],
        )
        .bounds(None, Some(b"_-")),
        secret(r(
            "discord-webhook",
            r"(?i)discord(?:app)?\.com/api/(?:v[0-9]+/)?webhooks/[0-9]{15,21}/(?P<secret>[A-Za-z0-9_\-]{60,80})",
            &["discord"],
        )),
        r(
            "discord-bot-token",
            r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",
            &["discord", "token", "authorization", "secret", "key", "bot"],
        )
        .bounds(Some(b"_-."), Some(b"_-."))
        .guard(Guard::DotSix)
        .check(Check::Mixed),
        // Without a keyword nearby: the first part must be exactly the unpadded
        // base64 of a 17-20 digit user id (see `discord_id_keywords`).
        r("discord-bot-token", DISCORD_BOT_TOKEN, &discord_kw)
            .bounds(Some(b"_-."), Some(b"_-."))
            .guard(Guard::DotSix)
            .check(Check::Mixed),
        r(
            "telegram-bot-token",
            r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{32,33}",
            &[":aa"],
        )
        .bounds(Some(b""), Some(b"_-")),
        r("mailgun-api-key", r"\bkey-[0-9a-f]{32}\b", &["key-"]),
        r("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", &["shpat_", "shpca_", "shppa_", "shpss_"]),
        r("square-token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}", &["sq0"]),
        // PayPal Braintree: `access_token$production$ID$KEY` (also
        // `$sandbox$`); the merchant id stays, and the `$`s are no fake's.
        secret(r(
            "braintree-token",
            r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$(?P<secret>[0-9a-f]{32})\b",
            &["access_token$"],
        )),
        // ---------------------------------------------------------------- model providers
        r(
            "anthropic-api-key",
            r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_\-]{20,}",
            &["sk-ant-"],
        ),
        r(
            "openai-api-key",
            r"\bsk-(?:proj|svcacct|admin|None|service)-[A-Za-z0-9_\-]{20,}",
            &sk_kw,
        ),
        r("openrouter-api-key", r"\bsk-or-v1-[a-f0-9]{64}\b", &["sk-or-"]),
        r(
            "openai-api-key",
            r"\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}",
            &["t3blbkfj"],
        )
        .bounds(None, Some(b"")),
        r(
            "openai-api-key",
            r"\bsk-[A-Za-z0-9]{32,}",
            &sk_kw,
        )
        .bounds(None, Some(b"_-"))
        .check(Check::Mixed),
        r(
            "huggingface-token",
            r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,40}",
            &["hf_", "api_org_"],
        )
        .bounds(None, Some(b"_")),
        r("groq-api-key", r"\bgsk_[A-Za-z0-9]{48,56}\b", &["gsk_"]),
        r("xai-api-key", r"\bxai-[A-Za-z0-9]{70,}\b", &["xai-"]),
        r("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", &["r8_"]),
        r("perplexity-api-key", r"\bpplx-[A-Za-z0-9]{48}\b", &["pplx-"]),
        r("langsmith-api-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", &["lsv2_"]),
        r("nvidia-api-key", r"\bnvapi-[A-Za-z0-9_\-]{64}\b", &["nvapi-"]),
        r("tavily-api-key", r"\btvly-(?:dev-|prod-)?[A-Za-z0-9]{32}\b", &["tvly-"]),
        r("cerebras-api-key", r"\bcsk-[A-Za-z0-9]{48}\b", &["csk-"]),
        r("jina-api-key", r"\bjina_[A-Za-z0-9_\-]{50,80}\b", &["jina_"]),
        r("fireworks-api-key", r"\bfw_[A-Za-z0-9]{24}\b", &["fw_"]),
        // ---------------------------------------------------------------- infra / SaaS
        r("vault-token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{24,}", &["hvs.", "hvb.", "hvr."]),
        r("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", &["_v1_"]),
        r("linear-api-key", r"\blin_api_[A-Za-z0-9]{40}\b", &["lin_api_"]),
        r("databricks-token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b", &["dapi"]),
        r(
            "tailscale-key",
            r"\btskey-(?:auth|client|api|webhook|scim)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,40}\b",
            &["tskey-"],
        ),
        // `/`, `+` and `=` around: inside a base64 blob (`…AAAA/EAAA…==`).
        r("square-token", r"\bEAAA[A-Za-z0-9_\-]{22,60}\b", &["eaaa"]).bounds(Some(b"/+"), Some(b"/+=")),
        r("postman-api-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", &["pmak-"]),
        r(
            "terraform-cloud-token",
            r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}",
            &["atlasv1"],
        ),
        r("atlassian-api-token", r"\bATATT3[A-Za-z0-9_\-=]{150,}", &["atatt3"]),
        r("bitbucket-app-password", r"\bATBB[A-Za-z0-9_=.\-]{28,}", &["atbb"]),
        r("grafana-token", r"\bglc_[A-Za-z0-9+/]{32,}={0,2}", &["glc_"]),
        r("grafana-token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b", &["glsa_"]),
        r("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", &["nrak-"]),
        // Sentry: organization tokens `sntrys_eyJ…`, user tokens `sntryu_` + 64 hex.
        r("sentry-token", r"\bsntrys_[A-Za-z0-9+/=_\-]{40,}", &["sntrys_"]),
        r("sentry-token", r"\bsntryu_[a-f0-9]{64}\b", &["sntryu_"]),
        // ------------------------------------------------ more vendor families (by documented format)
        r("grafana-token", r"\beyJrIjoi[A-Za-z0-9+/]{50,400}={0,2}", &["eyjrijoi"]),
        secret(r(
            "okta-token",
            r"(?i)(?:\b|_)okta[A-Za-z0-9_.\-]{0,30}[^\r\n]{0,30}?\b(?P<secret>00[A-Za-z0-9_\-]{40})(?:[^A-Za-z0-9_\-]|$)",
            &["okta"],
        ))
        .guard(Guard::Run(42)),
        secret(r(
            "heroku-api-key",
            r"(?i)\bheroku[A-Za-z0-9_. \-]{0,20}(?:key|token|auth|secret|password)[^\r\n]{0,20}?\b(?P<secret>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b",
            &["heroku"],
        ))
        .guard(Guard::Run(36)),
        r("mailgun-api-key", r"\bpubkey-[0-9a-f]{32}\b", &["pubkey-"]),
        // The regex scans the whole line after `vault`: lines that name vault
        // (`vault.sync`, `vault_addr`) without such a token are ruled out first.
        secret(r(
            "vault-token",
            r"(?i)\b(?:vault|x-vault-token)[A-Za-z0-9_.\-]{0,30}[^\r\n]{0,30}?\b(?P<secret>[sb]\.[A-Za-z0-9]{24})\b",
            &["vault"],
        ))
        .needs(Needs::DotRun(b"sb", 24)),
        // Legacy Vault service tokens without `vault` nearby: `s.` and 24
        // letters and digits, ending the word (`s.x(` is a call).
        r("vault-token", r"\bs\.[A-Za-z0-9]{24}\b", &["s."])
            .bounds(Some(b"."), Some(b"(._-"))
            .check(Check::ShortPrefix),
        r("adobe-client-secret", r"\bp8e-[A-Za-z0-9]{32}\b", &["p8e-"]),
        r("clickhouse-api-secret", r"\b4b1d[A-Za-z0-9]{38}\b", &["4b1d"]).bounds(Some(b"/+"), Some(b"/+=")),
        r("maxmind-license-key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", &["_mmk"]),
        r(
            "aws-bedrock-api-key",
            r"\bABSK[A-Za-z0-9+/]{109,269}={0,2}|\bbedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]*",
            &["absk", "bedrock-api-key-"],
        )
        .bounds(None, Some(b"/+")),
        r(
            "authress-access-key",
            r"(?i)\b(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}",
            &[".acc_", ".acc-"],
        ),
        secret(r(
            "gitlab-session-cookie",
            r"\b_gitlab_session=(?P<secret>[0-9a-z]{32})\b",
            &["_gitlab_session="],
        )),
        r("clojars-token", r"\bCLOJARS_[A-Za-z0-9]{60}\b", &["clojars_"]),
        r("duffel-token", r"\bduffel_(?:test|live)_[A-Za-z0-9_\-=]{43}", &["duffel_"]),
        r("easypost-token", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", &["ezak", "eztk"]),
        r(
            "flutterwave-key",
            r"\bFLW(?:SEC|PUB)K(?:_TEST)?-[a-hA-H0-9]{32}-X\b|\bFLWSECK_TEST-?[a-hA-H0-9]{12}\b",
            &["flwseck", "flwpubk"],
        ),
        r("frameio-token", r"\bfio-u-[A-Za-z0-9_\-=]{64}", &["fio-u-"]),
        r("prefect-token", r"\bpnu_[A-Za-z0-9]{36}\b", &["pnu_"]),
        r("readme-api-key", r"\brdme_[A-Za-z0-9]{70}\b", &["rdme_"]),
        r("brevo-api-key", r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", &["xkeysib-", "xsmtpsib-"]),
        r("shippo-token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b", &["shippo_"]),
        r("defined-networking-token", r"\bdnkey-[A-Za-z0-9=_\-]{26}-[A-Za-z0-9=_\-]{52}\b", &["dnkey-"]),
        r("dynatrace-token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b", &["dt0c01."]),
        r("openshift-token", r"\bsha256~[A-Za-z0-9_\-]{43}", &["sha256~"]).bounds(None, Some(b"_-")),
        r("sourcegraph-token", r"\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b", &["sgp_"]),
        r("alibaba-access-key-id", r"\bLTAI[A-Za-z0-9]{20}\b", &["ltai"]).bounds(Some(b"/+"), Some(b"/+=")),
        r(
            "onepassword-secret-key",
            r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
            &["a3-"],
        ),
        r(
            "newrelic-key",
            r"\bNRJS-[a-f0-9]{19}\b|\bNRII-[A-Za-z0-9_\-]{32}|\bNRAA-[a-f0-9]{27}\b|\bNRRA-[a-f0-9]{42}\b",
            &["nrjs-", "nrii-", "nraa-", "nrra-"],
        ),
        r("dropbox-token", r"\bsl\.[A-Za-z0-9_.\-=]{130,}", &["sl."]),
        // Inside a base64 blob (`…AAB/EAAB…`) `EAA` is no token's start; `=`
        // before it is an assignment (`FB_TOKEN=EAA…`: base64 pads only at its end).
        r("facebook-token", r"\bEAA[A-Za-z0-9]{100,}", &["eaa"]).bounds(Some(b"/+"), Some(b"/+=")),
        // Twitter app-only bearer tokens open with a run of about 21 `A` (a zero id).
        // Twenty `A`s, then a byte that is no `A` or `a` somewhere (runs of
        // `A`s and `a`s alone are filler: curl's and MinIO's test data).
        // Zero bytes in base64 read `AAAA…`: a blob's run (`/`, `+` or padding
        // around it, or more letters than a token has) is none.
        rb("twitter-bearer-token", r"\bA{20}[Aa]*[B-Zb-z0-9%][A-Za-z0-9%]{79,139}")
            .keywords(["aaaaaaaaaaaaaaaaaaaa"])
            .bounds(Some(b"/+"), Some(b"/+="))
            .priority(P_VENDOR),
        r("typeform-token", r"\btfp_[A-Za-z0-9_\-.=]{59}", &["tfp_"]),
        r("settlemint-token", r"\bsm_(?:pat|aat|sat)_[A-Za-z0-9]{16}\b", &["sm_pat_", "sm_aat_", "sm_sat_"]),
        r("intra42-secret", r"\b[su]-s4t2(?:ud|af)-[a-fA-F0-9]{64}\b", &["s-s4t2", "u-s4t2"]),
        // Not a file's fingerprint (`video_box.ico-7a38….png`): no `.` around.
        r("infracost-api-key", r"\bico-[A-Za-z0-9]{32}\b", &["ico-"]).bounds(Some(b"."), Some(b".")),
        r(
            "harness-token",
            r"\b(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
            &["pat.", "sat."],
        ),
        r("cloudflare-origin-ca-key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", &["v1.0-"]),
        r("aws-appsync-api-key", r"\bda2-[a-z0-9]{26}\b", &["da2-"]),
        r("razorpay-key", r"\brzp_(?:live|test)_[A-Za-z0-9]{14}\b", &["rzp_"]),
        r("mailchimp-api-key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", &["-us"]),
        secret(r(
            "teams-webhook",
            r"(?i)\.webhook\.office\.com/webhookb2/(?P<secret>[a-z0-9\-]{36}@[a-z0-9\-]{36}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9\-]{36}(?:/[A-Za-z0-9_\-]+)?)",
            &["webhook.office.com"],
        )),
        r("supabase-token", r"\bsbp_[a-f0-9]{40}\b", &["sbp_"]),
        r("figma-token", r"\bfigd_[A-Za-z0-9_\-]{40,}", &["figd_"]),
        // Keyed on `secret`, the generic rules' keyword, not on `secret_`: a
        // second hit at the start of every `secret_name` (the rule runs
        // anchored there and is dismissed where no token can start).
        r("notion-token", r"\b(?:ntn|secret)_[A-Za-z0-9]{43,46}\b", &["ntn_", "secret"]),
        r("heroku-api-key", r"\bHRKU-[A-Za-z0-9_\-]{60}", &["hrku-"]),
        r("pulumi-token", r"\bpul-[a-f0-9]{40}\b", &["pul-"]),
        r("planetscale-token", r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{32,64}", &["pscale_"]),
        r(
            "doppler-token",
            // A service token names its config: `dp.st.prd.<40>`.
            r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_\-]{1,40}\.)?[A-Za-z0-9]{40,44}\b",
            &["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
        ),
        r("netlify-token", r"\bnfp_[A-Za-z0-9]{36}\b", &["nfp_"]),
        r("render-api-key", r"\brnd_[A-Za-z0-9]{32}\b", &["rnd_"]),
        r(
            "flyio-token",
            r"\bf[om][12][ar]?_[A-Za-z0-9_\-+/=]{40,}",
            &["fo1_", "fm1_", "fm2_", "fo2_", "fm1a_", "fm1r_", "fm2a_", "fm2r_"],
        ),
        // Families public rule sets (gitleaks) know beyond the list of issue 15.
        r("nuget-api-key", r"\boy2[a-z0-9]{43}\b", &["oy2"]),
        r(
            "plaid-access-token",
            r"\baccess-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            &["access-sandbox-", "access-development-", "access-production-"],
        ),
        r("sonarqube-token", r"\bsq[pua]_[a-f0-9]{40}\b", &["sqp_", "squ_", "sqa_"]),
        r("scalingo-token", r"\btk-us-[A-Za-z0-9_\-]{48}", &["tk-us-"]).bounds(None, Some(b"_-")),
        r("contentful-token", r"\bCFPAT-[A-Za-z0-9_\-]{43}", &["cfpat-"]).bounds(None, Some(b"_-")),
        r("buildkite-token", r"\bbkua_[a-f0-9]{40}\b", &["bkua_"]),
        r("circleci-token", r"\bCCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}\b", &["ccipat_"]),
        r("honeycomb-key", r"\bhc[ax][im]k_[A-Za-z0-9]{40,80}\b", &["hcaik_", "hcxik_", "hcamk_", "hcxmk_"]),
        r("pinecone-api-key", r"\bpcsk_[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,80}\b", &["pcsk_"]),
        r("yandex-api-key", r"\bAQVN[A-Za-z0-9_\-]{35,38}", &["aqvn"]).bounds(None, Some(b"_-")),
        // Bundler's credentials for a gem host, from the environment or
        // `.bundle/config`: `BUNDLE_GEMS__CONTRIBSYS__COM=user:pass` (the
        // host's dots are `__`; `BUNDLE_PATH=vendor` names no host).
        secret(rb(
            "bundler-credentials",
            r#"\bBUNDLE_(?:[A-Z0-9\-]+__)+[A-Z0-9\-]+["']?[\t ]*[:=][\t ]*["']?(?P<secret>[^\s"'$]+)"#,
        ))
        .keywords(["bundle_"])
        .priority(P_STRUCT)
        .check(Check::Value),
        // The same credentials set by `bundle config [set] [--global] HOST USER:PASS`.
        secret(rb(
            "bundler-credentials",
            r"\bbundle[\t ]+config(?:[\t ]+(?:set|--global|--local))*[\t ]+(?:https?://)?[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+/?[\t ]+(?P<secret>[^\s:\x22']+:[^\s\x22']+)",
        ))
        .keywords(["bundle config"])
        .priority(P_STRUCT)
        .check(Check::Value),
        r("mapbox-token", r"\bsk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,}", &["sk.eyj"]),
        r("onepassword-token", r"\bops_eyJ[A-Za-z0-9+/=_\-]{100,}", &["ops_eyj"]),
        // ---------------------------------------------------------------- JWT
        rb(
            "jwt",
            r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}(?:\.[A-Za-z0-9_\-]*)?",
        )
        .keywords(["eyj"])
        .priority(P_VENDOR),
        // ---------------------------------------------------------------- URLs
        rb(
            "url-password",
            r#"(?i)\b[a-z][a-z0-9+.\-]{1,30}:(?://|\\/\\/)(?P<user>[^\s:/?#@'"<>\[\]{}\\]*):(?P<secret>[^\s/?#'"<>@\\][^\s/?'"<>\\]*)@[^\s@'"<>]"#,
        )
        .keywords(["://", r":\/\/"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .guard(Guard::AtAfter)
        .check(Check::UrlPassword),
        rb(
            "url-password",
            r#"(?i)\b(?:https?|git|ssh|git\+https|git\+ssh):(?://|\\/\\/)(?P<secret>[A-Za-z0-9_\-.~%]{16,})@[A-Za-z0-9]"#,
        )
        .keywords(["://", r":\/\/"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .guard(Guard::AtAfter)
        .check(Check::UrlToken),
        // ---------------------------------------------------------------- HTTP
        rb(
            "bearer-token",
            r#"(?i)(?:\b|\\[nrt])(?:proxy-)?authorization\\*["']?[\t ]*[:=][\t ]*\\*["']?[\t ]*(?:(?:bearer|token|bot|jwt|dpop|apikey|api-key|sso-key|oauth|oauth2|splunk|gitlab|key|ssws|negotiate|ntlm|pat|[a-z][a-z0-9]*(?:-[a-z0-9]+)*-?(?:key|token))[\t ]+)?(?P<secret>[^\s"'\\,;]+)"#,
        )
        .keywords(["authorization"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Bearer),
        rb(
            "bearer-token",
            r"(?i)\bbearer[\t ]+(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)",
        )
        .keywords(["bearer ", "bearer\t"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::BareBearer),
        // Keyed on `basic` and its blank, which every match holds, not on
        // `authorization`: a `Bearer` header does not search for it.
        rb(
            "basic-auth",
            r#"(?i)(?:\b|\\[nrt])(?:proxy-)?authorization\\*["']?[\t ]*[:=][\t ]*\\*["']?[\t ]*basic[\t ]+(?P<secret>[A-Za-z0-9+/=_\-]{4,})"#,
        )
        .keywords(["basic ", "basic\t"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Value),
        // `basic` and its blank (as `bearer `): not `client_secret_basic`,
        // `basic_auth`, `basic-auth` (a hit each in OAuth metadata).
        rb("basic-auth", r"(?i)\bbasic[\t ]+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})")
            .keywords(["basic ", "basic\t"])
            .secret_group("secret")
            .priority(P_STRUCT)
            .check(Check::BasicValue),
        rb(
            "basic-auth",
            r#"(?:^|[\s"'])(?:-u|--user|--proxy-user|--http-user)[\t ]*(?:"[^":\r\n]*:(?P<secret>[^"\r\n]+)"|'[^':\r\n]*:(?P<s2>[^'\r\n]+)'|[^\s:"'<>]*:(?P<s3>[^\s"'<>]+)|(?:"[^"\r\n]*"|[^\s:"'<>]*):"(?P<s4>[^"\r\n]+)"|(?:'[^'\r\n]*'|[^\s:"'<>]*):'(?P<s5>[^'\r\n]+)')"#,
        )
        .keywords(["curl", "wget", "httpie", "--user", "--proxy-user", "-u "])
        .secret_group("secret")
        .alt_groups(&["s2", "s3", "s4", "s5"])
        .priority(P_STRUCT)
        .check(Check::Value),
        rb(
            "cookie",
            r#"(?i)(?:^|[^A-Za-z0-9\-_])(?:set-)?cookie\\*["']?[\t ]*[:=][\t ]*\\*["']?(?P<secret>[^\r\n"'\\]+)"#,
        )
        .keywords(["cookie"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Cookie),
        rb(
            "cookie",
            r#"\bcurl\b[^\r\n]*?[\t ](?:-b|--cookie)[\t ]+["']?(?P<secret>[^\r\n"']+)"#,
        )
        .keywords(["curl"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Cookie),
        // ---------------------------------------------------------------- command lines
        command_flag(
            r"(?i)\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\r\n|;&]*?[\t ]-p",
            &["mysql", "mariadb"],
        ),
        command_flag(
            r"(?i)\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|regctl|cosign|finch|az|oc|cf)\b[^\r\n|;&]*?\blogin\b[^\r\n|;&]*?[\t ]-p(?:[\t ]+|=)",
            &["docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "cosign", "finch", "az login", "oc login", "cf login"],
        ),
        command_secret(
            &format!(r"{ECHOED}[^\r\n]*--password-stdin"),
            &["password-stdin"],
        ),
        rb("vault-token", r"\bvault[\t ]+login[\t ]+(?:-[A-Za-z=_-]+[\t ]+)*(?:token=)?(?P<secret>[A-Za-z0-9._\-]{20,})")
            .keywords(["vault login"])
            .secret_group("secret")
            .priority(P_STRUCT)
            .check(Check::Value),
        rb("private-key", r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{20,}={0,2}")
            .keywords(["ls0tls1crudjti"])
            .priority(P_PEM)
            .check(Check::Base64Pem),
        command_flag(
            r"\bsshpass\b[^\r\n|;&]*?[\t ]-p[\t ]*",
            &["sshpass"],
        ),
        command_flag(
            r"\bredis-cli\b[^\r\n|;&]*?[\t ]-a[\t ]+",
            &["redis-cli"],
        ),
        command_flag(
            r"(?i)\b(?:sqlcmd|bcp|osql|isql)\b[^\r\n|;&]*?[\t ]-P[\t ]*",
            &["sqlcmd", "bcp", "osql", "isql"],
        ),
        command_flag(
            r"\bldap[a-z]*\b[^\r\n|;&]*?[\t ]-w[\t ]+",
            &["ldap"],
        ),
        // `openssl enc -k PASS`; `zip -P PASS`, `unzip -P PASS`; `htpasswd -b
        // [-c] [FILE] USER PASS` (`-nb` prints and takes no file). Not 7-Zip's
        // `-pPASS`: a keyword that opens with a digit (`7z `) costs 16 % more
        // instructions on logs full of digits.
        command_flag(r"\bopenssl\b[^\r\n|;&]*?[\t ]-k[\t ]+", &["openssl"]),
        // GitHub CLI: `gh secret set NAME --body "v"` (`-b v`, `-bv`, `--body=v`).
        command_flag(
            r"\bgh[\t ]+secret[\t ]+set\b[^\r\n|;&]*?[\t ](?:--body(?:=|[\t ]+)|-b[\t ]*)",
            &["secret set"],
        ),
        command_flag(r"\b(?:un)?zip\b[^\r\n|;&]*?[\t ]-P[\t ]+", &["zip "]),
        // ngrok's agent token: `ngrok config add-authtoken T`, `ngrok authtoken T`.
        command_flag(r"\bngrok\b[^\r\n|;&]*?[\t ](?:add-)?authtoken[\t ]+", &["authtoken "]),
        // `ssh-keygen -N NEW -P OLD`: the key's passphrases.
        command_flag(r"\bssh-keygen\b[^\r\n|;&]*?[\t ]-[NP][\t ]*", &["ssh-keygen"]),
        // MongoDB's shells and tools take `-p PASS` as `--password`. The
        // command is a word of its own: `some-mongo -p 8081:8081` and
        // `mongo-express` publish ports in a `docker run`.
        command_flag(
            r#"(?:^|[\s/(`'"])(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop)[\t ][^\r\n|;&]*?[\t ]-p[\t ]+"#,
            &["mongo"],
        ),
        // `rabbitmqctl add_user USER PASS`, `rabbitmqctl change_password USER PASS`.
        command_flag(
            r"\brabbitmqctl\b[^\r\n|;&]*?[\t ](?:add_user|change_password)[\t ]+[^\s\-][^\s]*[\t ]+",
            &["rabbitmqctl"],
        ),
        // Windows `net user NAME PASS [/add]` (not `net user NAME /delete`, not `*`).
        command_secret_in(
            r#"(?i)\bnet[\t ]+user[\t ]+[^\s/"']+[\t ]+(?:"(?P<secret>[^"\r\n]+)"|(?P<s3>[^\s/*"'][^\s"']*))"#,
            &["net user"],
            &["s3"],
        ),
        // `echo 'USER:PASS' | chpasswd`.
        command_secret_in(
            r#"\becho[\t ]+(?:-[ne][\t ]+)?["']?[^\s:"']+:(?P<secret>[^\s"']+)["']?[\t ]*\|[\t ]*(?:sudo[\t ]+)?chpasswd"#,
            &["chpasswd"],
            &[],
        ),
        // MinIO's client: `mc alias set NAME URL ACCESS_KEY SECRET_KEY` (also
        // the older `mc config host add`).
        command_flag(
            r"\bmc[\t ]+(?:alias[\t ]+set|config[\t ]+host[\t ]+add)[\t ]+[^\s]+[\t ]+[^\s]+[\t ]+[^\s\-][^\s]*[\t ]+",
            &["alias set", "host add"],
        ),
        // Oracle's `sqlplus USER/PASS@DB` (also `expdp`, `impdp`, `rman target`).
        command_secret_in(
            r#"\b(?:sqlplus|expdp|impdp|rman|sqlldr)\b[^\r\n|;&]*?[\t =](?:[A-Za-z0-9_$#]+|"[^"\r\n]+")/(?P<secret>[^\s@/"']+)(?:@|[\t ]|$)"#,
            &["sqlplus", "expdp", "impdp", "rman", "sqlldr"],
            &[],
        ),
        // Basic credentials passed as a pair of literals: `requests.get(url,
        // auth=("user", "v"))`, `HTTPBasicAuth("user", "v")`, `aiohttp.BasicAuth(…)`,
        // Go's `req.SetBasicAuth("user", "v")`, reqwest's `.basic_auth("user", Some("v"))`.
        // The same pair given to the calls that take a user and a password:
        // .NET's `new NetworkCredential("user", "v")`, `smtp.login("u", "v")`,
        // JDBC's `DriverManager.getConnection(url, "user", "v")`, PHP's `new
        // PDO($dsn, 'user', 'v')` and `mysqli_connect($host, 'user', 'v')`
        // (the user may be a variable there), Java's `new
        // PasswordAuthentication("user", "v".toCharArray())` and Go's
        // `smtp.PlainAuth("", "user", "v", host)` (after its identity).
        command_secret_in(
            r#"(?i)(?:\bauth[\t ]*=[\t ]*\(|basic_?auth[\t ]*\(|networkcredential[\t ]*\(|passwordauthentication[\t ]*\(|\.login[\t ]*\(|(?:getconnection|\bpdo|\bmysqli(?:_connect)?)[\t ]*\([^,()\r\n]+,|\bplainauth[\t ]*\([^,()\r\n]*,)[\t ]*(?:"[^"\r\n]*"|'[^'\r\n]*'|[A-Za-z_$][A-Za-z0-9_.$]*)[\t ]*,[\t ]*(?:Some\([\t ]*)?(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)')"#,
            &[
                "auth=(", "auth = (", "basicauth(", "basic_auth(", "networkcredential(", ".login(",
                "getconnection(", "pdo(", "mysqli(", "mysqli_connect(", "passwordauthentication(",
                "plainauth(",
            ],
            &["s2"],
        ),
        // Go's MySQL DSN: `user:v@tcp(host:3306)/db`, `user:v@unix(/tmp/sock)/db`.
        command_secret_in(
            r#"[A-Za-z0-9_.\-]+:(?P<secret>[^\s@"'/:]+)@(?:tcp|unix)\("#,
            &["@tcp(", "@unix("],
            &[],
        ),
        // A literal key given to a signing or encryption call: `jwt.encode(payload,
        // "v")`, `jwt.sign(payload, 'v')`, `hmac.new(b"v", …)`, `Fernet(b'v')`,
        // `AES.new(b'v', …)`.
        command_secret_in(
            r#"(?:\bjwt\.(?:encode|decode|sign|verify)[\t ]*\([^,()\r\n]+,|\bhmac\.new[\t ]*\(|\bFernet[\t ]*\(|\bAES\.new[\t ]*\()[\t ]*[bB]?(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)')"#,
            &["jwt.encode", "jwt.decode", "jwt.sign", "jwt.verify", "hmac.new", "fernet(", "aes.new"],
            &["s2"],
        ),
        // A password given to `--password-stdin` in a here-string: `docker
        // login --username u --password-stdin <<< "v"`.
        command_secret_in(
            &format!(r"--password-stdin\b[^\r\n|;&]*?{HERE_STRING}"),
            &["password-stdin"],
            &["s2", "s3"],
        ),
        // A package manager's or git's configuration set from the command
        // line, name then value: `npm config set //registry.npmjs.org/:_authToken v`,
        // `git config --global github.token v`, `yarn config set npmAuthToken v`.
        // The name must name a secret (`credential.helper store` stays).
        rb(
            "generic-secret",
            &format!(
                r#"\b(?:git|npm|yarn|pnpm|bun|pip3?|poetry|bundle|composer|conda)[\t ]+config(?:[\t ]+(?:set|--[A-Za-z][A-Za-z-]*(?:=[^\s"']+)?|-g))*[\t ]+(?:[^\s"'=]*[/:])?(?P<name>{NAME})[\t ]+{FLAG_VALUE}"#
            ),
        )
        .keywords([
            "git config", "npm config", "yarn config", "pnpm config", "bun config", "pip config",
            "pip3 config", "poetry config", "bundle config", "composer config", "conda config",
        ])
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .priority(P_STRUCT)
        .check(Check::Generic),
        // HTTP basic credentials for a package repository: `poetry config
        // http-basic.pypi USER PASS`, `composer config [--global] http-basic.HOST USER PASS`.
        command_flag(
            r"\b(?:poetry|composer)\b[^\r\n|;&]*?[\t ]http-basic\.[^\s]+[\t ]+[^\s\-][^\s]*[\t ]+",
            &["http-basic."],
        ),
        // Its file is optional: the third word after `-b` may be prose's
        // (`htpasswd -b on a command line`), so a word is no password here.
        command_flag(
            r"\bhtpasswd\b[^\r\n|;&]*?[\t ]-[A-Za-z]*b[A-Za-z]*(?:[\t ]+-[A-Za-z]+)*[\t ]+(?:[^\s\-]\S*[\t ]+)?[^\s\-]\S*[\t ]+",
            &["htpasswd"],
        )
        .check(Check::Value),
        rb(
            "generic-secret",
            r"(?i)-pass(?:in|out|word)?[\t ]+pass:(?P<secret>[^\s'\x22]+)",
        )
        .keywords(["pass:"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Value),
        rb(
            "generic-secret",
            r"(?im)^[\t ]*(?:requirepass|masterauth|masterpass)[\t ]+(?:\x22(?P<secret>[^\x22\r\n]+)\x22|(?P<s3>[^\s\x22]+))",
        )
        .keywords(["requirepass", "masterauth", "masterpass"])
        .secret_group("secret")
        .alt_groups(&["s3"])
        .priority(P_STRUCT)
        .check(Check::Value),
        rb(
            "generic-secret",
            r#"(?i)\bmachine[\t ]+\S+(?:[\t ]+login[\t ]+\S+)?[\t ]+password[\t ]+(?:"(?P<secret>[^"\s]+)"|(?P<s3>[^\s"](?:\S*[^\s"])?))"#,
        )
        .keywords(["machine"])
        .secret_group("secret")
        .alt_groups(&["s3"])
        .priority(P_STRUCT)
        .check(Check::Value),
        rb(
            "generic-secret",
            r"(?im)^[\t ]*password[\t ]+(?P<s3>[^\s\x22']+)[\t ]*$",
        )
        // `passw` (the generic rules' keyword) finds `password` and `passwd`
        // on the same lines: no second hit at the start of every `password`.
        .keywords(["passw"])
        .secret_group("s3")
        .priority(P_GENERIC)
        .check(Check::Value)
        .needs(Needs::LineStart(b"password")),
        rb(
            "generic-secret",
            &format!(r"(?i)(?:{IDENTIFIED_BY}|\bpassword)(?:[\t ]*=[\t ]*|[\t ]+)(?:password[\t ]*\([\t ]*)?'(?P<secret>[^'\r\n]+)'"),
        )
        .keywords(["identified", "passw"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Value)
        .needs(Needs::Byte(b"'")),
        // PowerShell: `ConvertTo-SecureString "v" -AsPlainText -Force`.
        rb(
            "generic-secret",
            r#"(?i)\bConvertTo-SecureString[\t ]+(?:-String[\t ]+)?(?:"(?P<secret>[^"\r\n$]+)"|'(?P<s2>[^'\r\n]+)')[^\r\n]*?-AsPlainText"#,
        )
        .keywords(["convertto-securestring"])
        .secret_group("secret")
        .alt_groups(&["s2"])
        .priority(P_STRUCT)
        .check(Check::Value),
        // MySQL takes a double-quoted password too (`IDENTIFIED BY "v"`).
        rb(
            "generic-secret",
            &format!(r#"(?i){IDENTIFIED_BY}[\t ]+"(?P<secret>[^"\r\n]+)""#),
        )
        .keywords(["identified"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Value)
        .needs(Needs::Byte(b"\"")),
        rb(
            "generic-secret",
            r"(?i)\b(?:smbclient|smbmap|rpcclient|crackmapexec|netexec|nxc|smbget)\b[^\r\n]*?-U[\t ]+[^\s%]+%(?P<secret>\S+)",
        )
        .keywords(["smb", "rpcclient", "crackmapexec", "netexec"])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Value),
        // ---------------------------------------------------------------- generic assignments
        // The most common form runs without capture groups: `checks` splits the
        // match into name and value by hand (much cheaper than captures). A YAML
        // tag before the value (`password: !!binary <base64>`) is skipped.
        rb(
            "generic-secret",
            &format!(
                r#"(?:^|[^A-Za-z0-9_.\-$])[$@:]?["'`]?{NAME}["'`]?\]?[\t ]*{ASSIGN_OP}[\t ]*(?:!![A-Za-z]+[\t ]+)?{VALUE_NC}"#
            ),
        )
        .keywords(GENERIC_KW.iter().copied())
        .priority(P_GENERIC)
        .check(Check::GenericKv)
        .guard(Guard::AssignName)
        .needs(Needs::Byte(b"=:")),
        // An assignment in JSON-escaped code, a notebook cell's source line:
        // `"openai.api_key = \"v\"\n",`, `"client = OpenAI(api_key=\"v\")\n"`.
        generic(&format!(
            r#"(?:^|[^A-Za-z0-9_.\-$])(?P<name>{NAME})[\t ]*(?:=|:)[\t ]*\\+"(?P<secret>[^"\\\r\n]+)\\+""#
        ))
        .guard(Guard::AssignName)
        // An escaped quote: `\"`.
        .needs(Needs::ThenQuote(b"\\")),
        // Typed declarations: `const API_TOKEN: &str = "v"`, `let key: String = "v"`,
        // `val apiKey: String = "v"` (Rust, TypeScript, Kotlin, Swift), a nullable
        // type (`String? = "v"`), a union (`string | undefined = "v"`, Python's
        // `str | None = "v"`), a qualified type (`typing.Optional[str] = "v"`) or an
        // optional property (`apiKey?: string = "v"`),
        // the literal wrapped in pydantic's `Field(default="v")` or `SecretStr("v")`
        // or not: the type is never masked, the string literal is.
        rb(
            "generic-secret",
            r#"(?:^|[^A-Za-z0-9_.$])(?P<name>[A-Za-z_$][A-Za-z0-9_]*)\??[\t ]*:[\t ]*(?:&(?:'[A-Za-z_]+[\t ]+)?(?:mut[\t ]+)?|\*(?:mut|const)[\t ]+)?[A-Za-z_\[][A-Za-z0-9_:<>\[\];!?, |.]{0,60}?[\t ]*=[\t ]*(?:(?:SecretStr|Field)\((?:default=)?)?(?:(?:[bBrRuU]|[bB][rR]|[rR][bB])?"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|(?:[bBrRuU]|[bB][rR]|[rR][bB])?'(?P<s2>[^'\r\n]+)'|`(?P<s4>[^`\r\n]+)`)"#,
        )
        .keywords(GENERIC_KW.iter().chain(&tok_kw).copied())
        .secret_group("secret")
        .alt_groups(&["s2", "s4"])
        .priority(P_GENERIC)
        .guard(Guard::Typed)
        .check(Check::Typed)
        // The literal's quote: a log line's `logger: name=42` is no declaration.
        .needs(Needs::Byte(b"\"'`")),
        // Env fallbacks: `process.env.API_TOKEN || 'v'`, `getenv("API_KEY") ?: "v"`,
        // `os.environ.get("TOKEN") or "v"`, `ENV["API_KEY"] ?? "v"`, Ruby's block
        // `ENV.fetch("API_KEY") { "v" }`: the literal is a hard-coded secret. In the same regex (one rule less for every hit
        // to pass: its guard is the same): a secret-named setter or builder
        // given one literal (`client.setPassword("v")`, `set_api_key('v')`,
        // `.withClientSecret("v")`, Go's `SetToken("v")`, a builder's
        // `.password("v")`, reqwest's `.bearer_auth("v")`; not
        // `setBasicAuth("user", "v")`, whose first literal is the user), and a C
        // array (`char secret[] = "v";`, `const char API_TOKEN[33] = "v";`).
        // The check tells a setter from other calls (`literal_call_or_array`).
        generic(&format!(
            r#"(?P<name>{NAME})(?:(?:(?:["'`][\t ]*[\])]|[\t ]*[\])])*[\t ]*(?:\|\||\?\?|\?:|or[\t ])|["'`][\t ]*\)[\t ]*\{{)[\t ]*|\([\t ]*|\[[0-9]*\][\t ]*=[\t ]*){QUOTED}"#
        ))
        .alt_groups(&["s2", "s4"])
        .guard(Guard::Context),
        // A call whose first argument names a secret and whose second is a literal:
        // `System.setProperty("API_TOKEN", "v")`, `os.environ.setdefault("API_KEY", "v")`,
        // `env::set_var(…)`, `os.Setenv(…)`, `getenv("X", "default")`, `define('DB_PASSWORD', 'v')`.
        generic(&format!(
            r#"\([\t ]*["'`](?P<name>{NAME})["'`][\t ]*,[\t ]*{QUOTED}"#
        ))
        .alt_groups(&["s2", "s4"])
        .guard(Guard::Context),
        // A call whose first argument names a secret and whose `default=`
        // (`fallback=`) argument is a literal, after other arguments or not:
        // django-environ's `env("SECRET_KEY", default="v")`,
        // `settings.get("DB_PASSWORD", default="v")`, configparser's `fallback=`,
        // argparse's `add_argument("--api-key", type=str, default="v")`, click's
        // `@click.option("--password", default="v")`. Keyed on the argument's
        // name (the secret word's hits do not run it).
        rb(
            "generic-secret",
            &format!(
                r#"\([\t ]*["'`](?P<name>{NAME})["'`][\t ]*,(?:[^()"'`\r\n]|"[^"\r\n]*"|'[^'\r\n]*')*?\b(?:default|fallback)[\t ]*=[\t ]*{QUOTED}"#
            ),
        )
        .keywords(["default=", "fallback="])
        .secret_group("secret")
        .alt_groups(&["s2", "s4"])
        .priority(P_GENERIC)
        .check(Check::Generic),
        // A literal wrapped in a conversion: `jwtKey := []byte("v")`, `let
        // password: String = String::from("v")`, `token = str("v")`, C++'s
        // `auto secret = std::string("v")`, pydantic's `api_key: SecretStr =
        // SecretStr("v")` and `api_key: str = Field(default="v")`.
        generic(&format!(
            r#"(?P<name>{NAME})["'`]?\]?[\t ]*(?::[\t ]*[A-Za-z_&\[][A-Za-z0-9_:<>\[\]&' ]{{0,40}}?[\t ]*)?(?::=|=)[\t ]*(?:String::from|str|\[\]byte|bytes|Buffer\.from|SecretString::(?:new|from)|Secret::new|Some|std::string|SecretStr|Field)\([\t ]*(?:default[\t ]*=[\t ]*)?{QUOTED}(?:\.(?:into|to_string|to_owned)\(\))?[\t ]*[,)]"#
        ))
        .alt_groups(&["s2", "s4"])
        .guard(Guard::AssignName)
        .needs(Needs::ThenQuote(b"(=")),
        // Rust's `Debug` of an `Option<String>`: `Config { password: Some("v") }`.
        generic(&format!(
            r#"(?P<name>{NAME})[\t ]*:[\t ]*Some\([\t ]*"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"[\t ]*\)"#
        ))
        .guard(Guard::AssignName)
        .needs(Needs::ThenQuote(b"(")),
        // The value ending a line's phrase that names a secret: what
        // installers and CLIs print (`A temporary password is generated for
        // root@localhost: v`, `Please use the following password to proceed
        // to installation: v`, `Temporary password for bob is v`, `Token
        // (will not be shown again): v`, a prompt's `AWS Secret Access Key
        // [None]: v`). A phrase of two words or more, or a word and a bracket (a
        // key's `token: v` is the generic rules' own), a value without quotes
        // that reads as random (code and prose end lines with words,
        // `"test1",`, `'false'`).
        rb(
            "generic-secret",
            r#"(?im)\b(?P<name>(?:passw(?:or)?d|passphrase|secret|token|api[ _-]?key|access[ _-]key)\b[^\r\n:=]*?[\t ][A-Za-z(\[][^\r\n:=]*?)(?:[\t ]+is[\t ]*:?|[\t ]*:)[\t ]+(?P<secret>[^\s"'`]{8,})[\t ]*\r?$"#,
        )
        // Keywords of their own, the secret word and the phrase's next word:
        // on the secret words alone the rule's line test cost 4 % more
        // instructions on keyword-dense logs and JSON.
        .keywords([
            "password is", "password for", "password to", "password (", "password was",
            "password has", "passphrase is", "passphrase for", "token is", "token (",
            "token for", "token was", "key is", "key (", "key for", "key was", "secret is",
            "secret for", "secret (", "secret was",
            // A prompt's current value in brackets: `aws configure`'s `AWS
            // Secret Access Key [None]: v`.
            "key [", "secret [", "token [", "password [",
        ])
        .secret_group("secret")
        .priority(P_GENERIC)
        .guard(Guard::Phrase)
        .check(Check::Phrase),
        // Shell defaults: `${DB_PASSWORD:-v}`, `${API_TOKEN:=v}` (docker-compose
        // files), and Spring's property defaults `${db.password:v}`; not
        // the message of `${DB_PASSWORD:?missing}` nor the alternative of
        // `${TOKEN:+--token}`.
        generic(r#"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)(?::?[-=]|:)(?P<s3>[^}\s"'$`?+][^}\s"'$`]*)\}"#)
            .secret_group("s3")
            .guard(Guard::Context),
        // An XML element whose value is on the next line:
        // `<password>` / `  v` / `</password>`.
        generic(&format!(
            r#"<(?P<name>{NAME})(?:[\t ][^>\r\n]*)?>[\t ]*\r?\n[\t ]*(?P<s3>[^<\s][^<\r\n]*?)[\t ]*\r?\n[\t ]*</"#
        ))
        .secret_group("s3")
        .window_bytes(8 * 1024)
        .guard(Guard::Tag),
        // Go: `var tok string = "v"`, `const apiKey string = `v``, and the
        // lines of a `var (` / `const (` block (`\tapiSecret string = "v"`).
        rb(
            "generic-secret",
            r#"(?:\b(?:var|const)[\t ]+|(?m:^)[\t ]+)(?P<name>[A-Za-z_][A-Za-z0-9_]*)[\t ]+\*?[A-Za-z_\[][A-Za-z0-9_.\[\]]*[\t ]*=[\t ]*(?:"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|`(?P<s4>[^`\r\n]+)`)"#,
        )
        .keywords(GENERIC_KW.iter().chain(&tok_kw).copied())
        .secret_group("secret")
        .alt_groups(&["s4"])
        .priority(P_GENERIC)
        .guard(Guard::Typed)
        .check(Check::Typed)
        .needs(Needs::Byte(b"\"`")),
        generic(&format!(
            r#"\\+"(?P<name>{NAME})\\+"[\t ]*:[\t ]*\\+"(?P<secret>[^"\\\r\n]+)\\+""#
        ))
        .guard(Guard::Esc),
        generic(&format!(
            r#"(?i)%22(?P<name>{NAME})%22(?:%20)*(?:%3A|%3D)(?:%20)*%22(?P<secret>(?:[A-Za-z0-9._~!*+\-]|%[013-9A-Fa-f][0-9A-Fa-f]|%2[013-9A-Fa-f])+)%22"#
        ))
        .guard(Guard::UrlEnc),
        generic3(&format!(
            r#"(?:^|[\s"'])(?P<name>--?{NAME})[\t ]+{FLAG_VALUE}"#
        ))
        .guard(Guard::Flag),
        generic3(&format!(
            r#"(?m)^[\t ]*(?:[$%>][\t ]+)?(?:ENV|ARG|setenv|setx|set(?:[\t ]+--?[A-Za-z]+)+)[\t ]+(?P<name>{NAME})[\t ]+{FLAG_VALUE}"#
        ))
        .guard(Guard::Flag),
        generic3(&format!(
            r#"(?i)(?:^|[^A-Za-z0-9_.\-])(?P<name>(?:[A-Za-z][A-Za-z0-9]*[\t ]){{1,2}}(?:key|token|secret|password|passphrase|pwd|pass|credentials?))[\t ]*[:=][\t ]*{VALUE}"#
        ))
        .guard(Guard::Spaced),
        generic(&format!(
            r#"(?:\||\xE2\x94[\x82\x83])[\t ]*(?P<name>{NAME})[\t ]*(?:\||\xE2\x94[\x82\x83])[\t ]*(?P<s3>[^\s|]+?)[\t ]*(?:\||\xE2\x94[\x82\x83])"#
        ))
        .secret_group("s3")
        .guard(Guard::Pipe),
        generic(&format!(
            r#"<(?P<name>{NAME})(?:\s[^>]*)?>(?P<s3>[^<\r\n]+)</"#
        ))
        .secret_group("s3")
        .guard(Guard::Tag),
        generic(
            r#"(?i)\b(?:key|name)[\t ]*=[\t ]*"(?P<name>[^"\r\n]{1,100})"[\t ]+value[\t ]*=[\t ]*"(?P<secret>[^"\r\n]+)""#,
        )
        .guard(Guard::ValueNearby)
        .needs(Needs::Byte(b"=")),
        generic(
            r#"(?i)<[A-Za-z0-9_:.\-]+[^>\r\n]*?\b(?:key|name)[\t ]*=[\t ]*"(?P<name>[^"\r\n]{1,100})"[^>\r\n]*>(?P<s3>[^<\r\n]+)</"#,
        )
        .secret_group("s3")
        .guard(Guard::Closing),
        // {"Name": "/prod/db/password", "Type": "SecureString", "Value": "…"} (SSM,
        // Key Vault, ECS, HAR, Postman): other fields may sit between, on other lines,
        // objects without objects inside too (`az keyvault secret show`'s `"tags": {…}`).
        generic(
            r#"(?i)"(?:name|key|parameterkey)"[\t ]*:[\t ]*"(?P<name>[^"\r\n]{1,100})"(?:[^{}"]|"(?:[^"\\\r\n]|\\.)*"|\{(?:[^{}"]|"(?:[^"\\\r\n]|\\.)*")*\})*?"(?:value|parametervalue)"[\t ]*:[\t ]*"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)""#,
        )
        .window_bytes(1024)
        .guard(Guard::JsonName),
        // A Terraform variable's default, lines below its name: `variable
        // "db_password" {` / `  type = string` / `  default = "v"` / `}`. Its own
        // keyword (rare outside HCL), so no secret-word hit runs it.
        rb(
            "generic-secret",
            &format!(
                r#"(?m)^[\t ]*variable[\t ]+"(?P<name>{NAME})"[\t ]*\{{(?:[^{{}}"]|"[^"\r\n]*"|\{{[^{{}}]*\}})*?\bdefault[\t ]*=[\t ]*{QUOTED}"#
            ),
        )
        .keywords(["variable \""])
        .secret_group("secret")
        .alt_groups(&["s2", "s4"])
        .priority(P_GENERIC)
        .check(Check::Generic)
        .window_bytes(1024)
        .needs(Needs::Word(b"default")),
        // terraform output -json: {"db_password": {"sensitive": true, "value": "…"}}
        generic(&format!(
            r#"(?i)"(?P<name>{NAME})"[\t ]*:[\t ]*\{{(?:[^{{}}"]|"(?:[^"\\\r\n]|\\.)*")*?"value"[\t ]*:[\t ]*"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)""#
        ))
        .window_bytes(1024)
        .guard(Guard::AssignObject)
        .needs(Needs::Word(b"\"value\"")),
        // `vault kv get`, `kubectl describe`-like columns: `password    hunter2`.
        generic(&format!(
            r#"(?m)^[\t ]*(?P<name>{NAME})(?:[\t ]{{2,}}|\t)(?P<s3>[^\s"']+)[\t ]*$"#
        ))
        .secret_group("s3")
        .guard(Guard::Column),
        // A name/value pair: Kubernetes `- name: DB_PASSWORD` / `value: v`,
        // Ansible's and Helm's `- key: API_TOKEN` / `value: v`.
        generic3(&format!(
            r#"(?m)\b(?:name|key):[\t ]*["']?(?P<name>[A-Za-z0-9_.\-]+)["']?[\t ]*\r?\n[\t ]*(?:-[\t ]+)?value:[\t ]*{VALUE}"#
        ))
        .next_line()
        .guard(Guard::ValueNearby)
        .needs(Needs::Word(b"value:")),
        // A YAML value on the line below its name (plain, quoted or a block
        // scalar's). A quoted one ends its line (or a comment does): `'v',`
        // is a dict's value in code (`'token_scope':` / `'oauthToken.scope',`).
        generic3(&format!(
            r#"(?m)(?P<name>{NAME})["']?:[\t ]*(?:[|>][\-+0-9]*)?[\t ]*\r?\n[\t ]+(?:(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)')[\t ]*(?:#[^\r\n]*)?\r?$|(?P<s3>[^\s#"'][^\r\n]*))"#
        ))
        .next_line()
        .guard(Guard::Block),
        // Keys of developer platforms agents call, each by its own prefix
        // (last, with the rule below: see there).
        r("firecrawl-api-key", r"\bfc-[a-f0-9]{32}\b", &["fc-"]),
        r("supabase-secret-key", r"\bsb_secret_[A-Za-z0-9_\-]{20,64}", &["sb_secret_"]),
        r(
            "hubspot-token",
            r"\bpat-(?:na|eu|ap)[0-9]-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
            &["pat-na", "pat-eu", "pat-ap"],
        ),
        // Deno Deploy's personal (`ddp_`) and organisation (`ddw_`) tokens:
        // a digit is needed (`ddp_handleIncomingSubscriptionMessagesAb` is
        // a method's name).
        r("deno-deploy-token", r"\bdd[pw]_[A-Za-z0-9]{36}\b", &["ddp_", "ddw_"])
            .check(Check::ShortPrefix),
        r("inngest-signing-key", r"\bsignkey-(?:prod|test|branch)-[a-f0-9]{64}\b", &["signkey-"]),
        r(
            "trigger-dev-key",
            r"\btr_(?:prod|dev|stg|pat)_[A-Za-z0-9]{20,40}\b",
            &["tr_prod_", "tr_dev_", "tr_stg_", "tr_pat_"],
        ),
        r("posthog-personal-key", r"\bphx_[A-Za-z0-9]{43}\b", &["phx_"]),
        r("stytch-secret", r"\bsecret-(?:live|test)-[A-Za-z0-9_\-=]{36}", &["secret-live-", "secret-test-"]),
        r("langsmith-legacy-key", r"\bls__[a-f0-9]{32}\b", &["ls__"]),
        r("mongodb-atlas-key", r"\bmdb_sa_sk_[A-Za-z0-9]{40}\b", &["mdb_sa_sk_"]),
        r("anyscale-key", r"\besecret_[A-Za-z0-9]{40}\b", &["esecret_"]),
        // A Docker config in base64, as a Kubernetes Secret of type
        // dockerconfigjson holds it (`kubectl get secret regcred -o yaml`):
        // `{"auths":` encodes as `eyJhdXRocyI6`, the registry passwords
        // follow. Last: a rule's place numbers its keywords, and the verdict
        // memo's slots (a hash of those numbers) stay as they were.
        r("docker-config", r"\beyJhdXRocyI6[A-Za-z0-9+/]{16,}={0,2}", &["eyjhdxrocyi6"]),
        // Password hashes in the formats `crypt(3)`, htpasswd, `/etc/shadow`,
        // LDAP, Django and Werkzeug write: a hash is cracked offline, so its
        // digest is masked as the password it stands for (the scheme and the
        // salt before it stay readable: `$6$salt$[REDACTED:password-hash]`).
        // The shapes are exact (alphabets and lengths), so `$1$2` in a
        // replacement string or `{sha}` in a template never match.
        r(
            "password-hash",
            r"\$2[aby]\$[0-9]{2}\$(?P<secret>[./A-Za-z0-9]{53})",
            &["$2a$", "$2b$", "$2y$"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        r(
            "password-hash",
            r"\$(?:[56]\$(?:rounds=[0-9]{1,9}\$)?[./A-Za-z0-9]{1,16}\$(?P<secret>[./A-Za-z0-9]{43}(?:[./A-Za-z0-9]{43})?)|(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$(?P<s2>[./A-Za-z0-9]{22})|y\$[./A-Za-z0-9]{1,32}\$[./A-Za-z0-9]{1,86}\$(?P<s3>[./A-Za-z0-9]{43}))(?:[^./A-Za-z0-9$]|$)",
            &["$5$", "$6$", "$1$", "$apr1$", "$y$"],
        )
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .check(Check::Mixed),
        r(
            "password-hash",
            r"\$argon2(?:id|i|d)\$(?:v=[0-9]{1,3}\$)?m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,3}\$[A-Za-z0-9+/]{8,}\$(?P<secret>[A-Za-z0-9+/]{16,})",
            &["$argon2"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        r(
            "password-hash",
            r"\b(?:pbkdf2_sha(?:1|256)\$[0-9]{1,9}|pbkdf2:sha(?:1|256|512)(?::[0-9]{1,9})?|scrypt:[0-9]{1,9}:[0-9]{1,3}:[0-9]{1,3})\$[A-Za-z0-9./+]{4,}\$(?P<secret>[A-Za-z0-9./+]{20,}={0,2})",
            &["pbkdf2", "scrypt:"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        r(
            "password-hash",
            r"\{(?:SSHA|SSHA256|SSHA384|SSHA512|SMD5)\}(?P<secret>[A-Za-z0-9+/]{16,}={0,2})",
            &["ssha", "smd5"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        // The signature of a presigned URL (S3's `X-Amz-Signature`, Cloud
        // Storage's `X-Goog-Signature`, CloudFront's `Signature` beside its
        // `Key-Pair-Id`): whoever holds the URL holds the access it grants.
        rb(
            "signed-url",
            r"(?i)\bx-(?:amz|goog)-signature=(?P<secret>[A-Fa-f0-9]{32,})",
        )
        .keywords(["-signature="])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Token),
        rb(
            "signed-url",
            r"[?&]Signature=(?P<secret>[A-Za-z0-9~_\-]{40,})(?:&[A-Za-z0-9_\-]+=[^&\s]*)*?&Key-Pair-Id=",
        )
        .keywords(["key-pair-id="])
        .secret_group("secret")
        .priority(P_STRUCT)
        .check(Check::Token),
        // The AWS CLI's `aws configure set aws_secret_access_key V` (also a
        // profile's `profile.p.aws_session_token V`): the name, a space, the value.
        command_flag(
            r"\baws[\t ]+configure[\t ]+set[\t ]+(?:[^\s]*\.)?(?:aws_secret_access_key|aws_session_token)[\t ]+",
            &["configure set"],
        ),
        // A password given to `sudo -S` on its standard input: `echo "v" |
        // sudo -S cmd`, `sudo -S cmd <<< "v"`.
        command_secret_in(
            &format!(r"{ECHOED}[\t ]*{SUDO_STDIN}"),
            &["sudo -s", "sudo --stdin"],
            &["s2", "s3"],
        ),
        command_secret_in(
            &format!(r"{SUDO_STDIN}[^\r\n|;&]*?{HERE_STRING}"),
            &["sudo -s", "sudo --stdin"],
            &["s2", "s3"],
        ),
        // A setter whose second argument names a secret, after a section:
        // configparser's `config.set("auth", "password", "v")`. Its own
        // keyword: the secret words' guards take a name as a call's first
        // argument only (`new User("joe", "password", "ROLE_A")` holds a
        // user's password, not a name).
        rb(
            "generic-secret",
            &format!(
                r#"(?i:\.set)\([\t ]*(?:"[^"\r\n]*"|'[^'\r\n]*')[\t ]*,[\t ]*["'](?P<name>{NAME})["'][\t ]*,[\t ]*{QUOTED}"#
            ),
        )
        .keywords([".set("])
        .secret_group("secret")
        .alt_groups(&["s2", "s4"])
        .priority(P_GENERIC)
        .check(Check::Generic),
        // MySQL's `SET PASSWORD [FOR user] = 'v'` and `= PASSWORD('v')`.
        command_secret_in(
            r#"(?i)\bset[\t ]+password\b[^\r\n=;]*=[\t ]*(?:(?:old_)?password[\t ]*\([\t ]*)?(?:'(?P<secret>[^'\r\n]+)'|"(?P<s2>[^"\r\n]+)")"#,
            &["set password"],
            &["s2"],
        ),
        // A value a GitHub Actions step masks in its log: `::add-mask::v`.
        command_secret_in(
            r#"::add-mask::[\t ]*(?:"(?P<secret>[^"\r\n]+)"|(?P<s3>[^\s"'$][^\r\n"']*))"#,
            &["::add-mask::"],
            &["s3"],
        ),
        // Redis: `AUTH [user] v` as `MONITOR` prints it (`"AUTH" "v"`).
        command_secret_in(
            r#"(?i)"auth"(?:[\t ]+"[^"\r\n]*")?[\t ]+"(?P<secret>[^"\r\n]+)"[\t ]*(?:\r|\n|$)"#,
            &["\"auth\" \""],
            &[],
        ),
        // Passwords on the command lines of network and remote-access tools:
        // `nmcli dev wifi connect SSID password v`, Windows `cmdkey /pass:v`,
        // FreeRDP's `/p:v`, PsExec's `-p v`, `lftp -u user,v`, `cargo login v`.
        command_flag(
            r"\bnmcli\b[^\r\n|;&]*?[\t ](?:password|wifi-sec\.psk|802-11-wireless-security\.psk)[\t ]+",
            &["nmcli"],
        ),
        command_flag(r"(?i)\bcmdkey\b[^\r\n|;&]*?[\t ]/pass:", &["cmdkey"]),
        command_flag(
            r"\b(?:[xw]freerdp3?|wlfreerdp|sdl-freerdp3?)\b[^\r\n|;&]*?[\t ][/-]p:",
            &["freerdp"],
        ),
        command_flag(r"(?i)\bpsexec(?:64)?(?:\.exe)?\b[^\r\n|;&]*?[\t ]-p[\t ]+", &["psexec"]),
        command_flag(r"\blftp\b[^\r\n|;&]*?[\t ]-u[\t ]+[^\s,]+,", &["lftp"]),
        // A registry token, never a word (`run the cargo login command`).
        command_flag(r"\bcargo[\t ]+login[\t ]+(?:--registry[\t =][^\s]+[\t ]+)?", &["cargo login"])
            .check(Check::Value),
        // HTTPie's `http -a user:v` (`https`, `--auth user:v`).
        rb(
            "basic-auth",
            r#"\b(?:https?|httpie)(?:[\t ][^\r\n|;&]*?)?[\t ](?:-a|--auth)(?:[\t ]+|=)(?:"[^":\r\n]*:(?P<secret>[^"\r\n]+)"|'[^':\r\n]*:(?P<s2>[^'\r\n]+)'|[^\s:"'<>]*:(?P<s3>[^\s"'<>]+))"#,
        )
        .keywords(["http ", "https ", "httpie "])
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .priority(P_STRUCT)
        .check(Check::Command),
        // An `expect` script's answer to a password prompt: `expect
        // "Password:"` / `send "v\r"`.
        command_secret_in(
            r#"(?i)\bexpect[\t ]+(?:-[a-z]+[\t ]+)*"[^"\r\n]*(?:assword|passphrase)[^"\r\n]*"[^\r\n]*\r?\n[\t ]*send[\t ]+(?:--[\t ]+)?"(?P<secret>[^"\r\n\\$]+)(?:\\[rn])?""#,
            &["expect \"", "expect -"],
            &[],
        )
        .next_line(),
        // Keys of cloud and developer platforms, by their documented prefixes:
        // Neon `napi_`, Mapbox secret tokens `sk.eyJ…`, crates.io `cio`,
        // Akamai EdgeGrid `akab-`, Tencent Cloud `AKID` secret ids.
        r("neon-api-key", r"\bnapi_[a-z0-9]{64}\b", &["napi_"]),
        r(
            "mapbox-secret-token",
            r"\bsk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}",
            &["sk.eyj"],
        ),
        r("crates-io-token", r"\bcio[A-Za-z0-9]{32}\b", &["cio"]),
        r("akamai-edgegrid-token", r"\bakab-[a-z0-9]{16}-[a-z0-9]{16}\b", &["akab-"]),
        r("tencent-secret-id", r"\bAKID[A-Za-z0-9]{32}\b", &["akid"]),
        // A Telegram bot token in the path of a Bot API URL
        // (`https://api.telegram.org/bot<token>/getMe`), where `bot` sits
        // right before it.
        r(
            "telegram-bot-token",
            r"/bot(?P<secret>[0-9]{8,10}:AA[A-Za-z0-9_\-]{32,33})(?:[^A-Za-z0-9_\-]|$)",
            &[":aa"],
        )
        .secret_group("secret"),
        // `mysqladmin [options] password NEW`: the new password.
        command_flag(
            r"(?i)\bmysqladmin\b[^\r\n|;&]*?[\t ]password[\t ]+",
            &["mysql"],
        ),
        // A `.pgpass` line, `host:5432:database:user:password` (the default
        // port; other ports and `*` have no literal to find them by).
        command_secret_in(
            r"(?m)^[\t ]*[^:\s#][^:\s]*:5432:[^:\s]+:[^:\s]+:(?P<secret>\S+)[\t ]*$",
            &[":5432:"],
            &[],
        ),
        // A C macro's value is a string literal (`#define WIFI_PASSWORD "v"`):
        // a bare one is C (a number, a name, an expression such as
        // `OBJ_X509,35L`), never masked.
        generic(&format!(
            r#"(?m)^[\t ]*#[\t ]*define[\t ]+(?P<name>{NAME})[\t ]+(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)')"#
        ))
        .alt_groups(&["s2"])
        .guard(Guard::Flag),
        // Key and value elements side by side: a property list's
        // `<key>API_KEY</key>` then `<string>v</string>`, Hadoop's
        // `<name>fs.s3a.secret.key</name>` then `<value>v</value>`, on one
        // line or the next. Found by the closing tag of the key (its bytes
        // are the scanner's already).
        rb(
            "generic-secret",
            &format!(
                r#"<(?:key|name)>[\t ]*(?P<name>{NAME})[\t ]*</(?:key|name)>[\t ]*(?:\r?\n[\t ]*)?<(?:string|value)>[\t ]*(?P<s3>[^<\s](?:[^<\r\n]*[^<\s])?)[\t ]*</(?:string|value)>"#
            ),
        )
        .keywords(["/key>", "/name>"])
        .secret_group("s3")
        .priority(P_GENERIC)
        .check(Check::Generic)
        .next_line(),
        // More keys by their documented prefixes: ClickUp personal tokens
        // (`pk_` + the user id + `_` + 32 capitals and digits), ElevenLabs
        // (`sk_` + 48 hex), LaunchDarkly server-side SDK keys (`sdk-` + a
        // UUID; its `mob-` keys ship in apps and are no secret), Yandex Cloud
        // IAM tokens (`t1.` + a part, `.`, and 86 base64url characters).
        r("clickup-token", r"\bpk_[0-9]{6,10}_[0-9A-Z]{32}\b", &["pk_"]),
        r("elevenlabs-api-key", r"\bsk_[0-9a-f]{48}\b", &["sk_"]),
        r(
            "launchdarkly-key",
            r"\bsdk-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            &["sdk-"],
        ),
        r(
            "yandex-iam-token",
            r"\bt1\.[A-Za-z0-9_\-]+={0,2}\.[A-Za-z0-9_\-]{86}={0,2}",
            &["t1."],
        )
        .bounds(None, Some(b"_-")),
        // Passwords of other command lines: 7-Zip's `-pPASS` (`7z`, `7za`,
        // `7zr`, `7zz`), rdesktop's `-p PASS` (`-p -` reads it from the
        // standard input), and Windows' `net use \\srv\share /user:NAME
        // PASS` (`*` prompts for it; a `/switch` is no password).
        // (Keyed on the command and its one-letter subcommand: a bare `7z`
        // is in every timestamp ending in `…7Z`.)
        command_flag(
            r"(?i)\b7z[arz]?(?:\.exe)?\b[^\r\n|;&]*?[\t ]-p",
            &["7z a ", "7z x ", "7z e ", "7z t ", "7z u ", "7z d ", "7za ", "7zr ", "7zz ", "7z.exe "],
        ),
        command_flag(r"\brdesktop\b[^\r\n|;&]*?[\t ]-p[\t ]+", &["rdesktop"]),
        command_secret(
            r#"(?i)\bnet[\t ]+use\b[^\r\n|;&]*?[\t ]/user:[^\s/]+[\t ]+(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'/*\-][^\s"']*))"#,
            &["net use"],
        ),
        // A string literal on the line below its name, alone there (with `;`,
        // `,`, `)` or a comment after it): Prettier's `const apiKey =` /
        // `  "v";`, Black's `API_KEY = (` / `    "v"` / `)`.
        generic(&format!(
            r#"(?m)(?P<name>{NAME})[\t ]*=[\t ]*\(?[\t ]*\r?\n[\t ]*(?:"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|'(?P<s2>[^'\r\n]+)'|`(?P<s4>[^`\r\n]+)`)[\t ]*\)?[\t ]*[;,]?[\t ]*(?:(?://|#)[^\r\n]*)?\r?$"#
        ))
        .alt_groups(&["s2", "s4"])
        .next_line()
        .guard(Guard::Block),
        // (Short keywords: the scanner's table stays in its narrow form,
        // at most 2^18 entries; each keyword byte is a state.)
        // More families by their documented shapes (Azure DevOps personal
        // access tokens of the 2024 format are below, by their `AZDO`
        // signature), Dependency-Track API keys
        // (`odt_`), Twitch stream keys (`live_`, the user id, `_`, 30
        // characters), New Relic license keys (40 characters ending `NRAL`)
        // and Insights query keys (`NRIQ-`), and the Teams webhooks of
        // `outlook.office.com` (before `webhook.office.com`).
        r("dependency-track-key", r"\bodt_[A-Za-z0-9]{32,255}\b", &["odt_"]),
        r("twitch-stream-key", r"\blive_[0-9]{6,12}_[A-Za-z0-9]{30}\b", &["live_"]),
        r(
            "newrelic-key",
            r"\b[a-z0-9]{6}[a-f0-9]{30}NRAL\b|\bNRIQ-[A-Za-z0-9_\-]{32}\b",
            &["nral", "nriq-"],
        ),
        secret(r(
            "teams-webhook",
            r"(?i)\boutlook\.office(?:365)?\.com/webhook/(?P<secret>[a-f0-9\-]{36}@[a-f0-9\-]{36}/IncomingWebhook/[a-f0-9]{32}/[a-f0-9\-]{36})",
            &["outlook.o"],
        )),
        // SonarQube's analysis token given as `sonar.login` (before
        // `sonar.token`, and before the `sqp_` prefixes): 40 hex digits.
        secret(r(
            "sonarqube-token",
            r#"(?i)sonar[._\-]?(?:login|token)\b["']?[\t ]*[=:,]?[\t ]*["']?(?P<secret>[0-9a-f]{40})\b"#,
            &["sonar"],
        )),
        // A Vault unseal key share, as `vault operator init` prints it
        // (`Unseal Key 1: …`) and `vault operator unseal` takes it.
        secret(r(
            "vault-unseal-key",
            r"(?i)\bunseal[\t ]key(?:[\t ][0-9]{1,2})?:[\t ]*(?P<secret>[A-Za-z0-9+/]{43,44}={0,2})(?:[^A-Za-z0-9+/=]|$)",
            &["unseal"],
        )),
        secret(r(
            "vault-unseal-key",
            r"\bvault[\t ]+operator[\t ]+unseal[\t ]+(?:-[A-Za-z=_\-]+[\t ]+)*(?P<secret>[A-Za-z0-9+/]{43,44}={0,2})(?:[^A-Za-z0-9+/=]|$)",
            &["unseal"],
        )),
        // Password hashes of Cisco IOS (type 8: PBKDF2, type 9: scrypt; a
        // 14-character salt) and Kerberos tickets roasted for cracking
        // (`$krb5asrep$23$`, `$krb5tgs$23$`): the encrypted part is masked
        // (it is what a cracker needs), the account and checksum stay readable.
        r(
            "password-hash",
            r"\$[89]\$[./A-Za-z0-9]{14}\$(?P<secret>[./A-Za-z0-9]{43})(?:[^./A-Za-z0-9$]|$)",
            &["$8$", "$9$"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        // A secret compared with a literal (`if password == "v":`, `if
        // (apiKey !== 'v')`): the literal a program checks is the secret.
        // Not a token's: a lexer compares its tokens (`token == "#define"`).
        generic(&format!(
            r#"(?P<name>{COMPARED_NAME})["'\]]*[\t ]*(?:===?|!==?)[\t ]*(?:"(?P<secret>(?:[^"\\\r\n]|\\[^\r\n])+)"|'(?P<s2>[^'\r\n]+)')"#
        ))
        .alt_groups(&["s2"])
        .guard(Guard::Compare),
        r(
            "password-hash",
            r"\$krb5(?:asrep|tgs)\$23\$(?:\*[^*\r\n]*\*\$|[^$:\s]*[:$])?[0-9a-f]{32}\$(?P<secret>[0-9a-f]{64,})",
            &["$krb5"],
        )
        .secret_group("secret")
        .check(Check::Mixed),
        // A password told in prose, quoted: `The password is 'v'`, `ensure
        // the password is "v"`, `the password for user 'postgres' is 'v'`.
        // Judged as the value of a `password` name (a word is a password
        // here too; `"required"`, a placeholder stay).
        rb(
            "generic-secret",
            r#"(?i)\b(?P<name>passw(?:or)?d|passphrase)(?:[\t ]+(?:for|of)[\t ]+(?:[^\r\n"'=:]|"[^"\r\n]{1,40}"|'[^'\r\n]{1,40}'){1,60}?)?[\t ]+is[\t ]+(?:(?:set[\t ]+)?to[\t ]+)?(?:"(?P<secret>[^"\r\n]{4,64})"|'(?P<s2>[^'\r\n]{4,64})')"#,
        )
        .keywords(["password is", "password for", "passphrase is"])
        .secret_group("secret")
        .alt_groups(&["s2"])
        .priority(P_GENERIC)
        .check(Check::Generic),
        // An AWS SSM SecureString parameter as `aws ssm get-parameter(s)
        // --output yaml` prints it: `Type: SecureString`, then the decrypted
        // `Value: v` on the next line (the keys come in alphabetical order).
        // The type says the value is a secret, whatever its name; a word
        // counts. (Keyed on `secur`: a longer keyword would push the
        // scanner's table out of its narrow form.)
        rb(
            "generic-secret",
            r#"(?im)\bType:[\t ]*["']?SecureString["']?[\t ]*\r?\n[\t ]*Value:[\t ]*(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'][^\r\n]*?))[\t ]*\r?$"#,
        )
        .keywords(["secur"])
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .priority(P_STRUCT)
        .next_line()
        .check(Check::Command),
        // A PEM private key's body written as string literals, one a line, as Java,
        // C#, Go and JavaScript sources hold test keys (`"-----BEGIN …-----\n"
        // +` / `"MIIE…\n" +` / …) and Python (without the `+`).
        rb(
            "private-key",
            r#"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:\\?[rn])*["'][\t ]*\+?[\t ]*\r?\n(?P<secret>(?:[\t ]*["'][A-Za-z0-9+/=]+(?:\\?[rn])*["'][\t ]*\+?[\t ]*\r?\n)+)"#,
        )
        .keywords(["private key"])
        .secret_group("secret")
        .priority(P_PEM)
        .window_bytes(64 * 1024)
        .check(Check::PemLines),
        // Password hashes with every `$` doubled, as Docker Compose files
        // and labels escape them (`traefik.http.middlewares.auth.basicauth.users=
        // user:$$apr1$$H6uskkkW$$IgXLP6ewTrSuBkTrqE8wj/`, what Traefik's
        // documentation has `htpasswd | sed -e s/\\$/\\$\\$/g` print):
        // bcrypt, MD5-crypt and SHA-crypt, the hash part masked. (Keyed on
        // `$$` alone, from when the scanner's narrow table was full.)
        r(
            "password-hash",
            r"\$\$(?:2[aby]\$\$[0-9]{2}\$\$(?P<secret>[./A-Za-z0-9]{53})|(?:1|apr1)\$\$[./A-Za-z0-9]{1,8}\$\$(?P<s2>[./A-Za-z0-9]{22})|[56]\$\$(?:rounds=[0-9]{1,9}\$\$)?[./A-Za-z0-9]{1,16}\$\$(?P<s3>[./A-Za-z0-9]{43}(?:[./A-Za-z0-9]{43})?))(?:[^./A-Za-z0-9$]|$)",
            &["$$"],
        )
        .secret_group("secret")
        .alt_groups(&["s2", "s3"])
        .check(Check::Mixed),
        // Octopus Deploy API keys (`API-` and 26 upper-case letters and
        // digits, as gitleaks and Octopus's documentation have them), bare.
        // Keyed on `api-` (`x-api-key`, `api-version` are hits too, dismissed
        // by the case-sensitive regex): the match needs a digit and entropy
        // (`API-SPECIFICATIONDOCUMENTS` is a word).
        r("octopus-deploy-api-key", r"\bAPI-[A-Z0-9]{26}\b", &["api-"])
            .check(Check::ShortPrefix),
        // A JWT in standard base64 (what a Kubernetes secret or an
        // `echo $TOKEN | base64` holds): `ZXlK` is the base64 of `eyJ`.
        // Masked when it decodes to a JWT's header and payload.
        rb("jwt", r"\bZXlK[A-Za-z0-9+/]{56,}={0,2}")
            .keywords(["zxlk"])
            .priority(P_VENDOR)
            .check(Check::Base64Jwt),
        // Langfuse secret keys (`sk-lf-` and a UUID; the `pk-lf-` public
        // key beside it is not a secret).
        r(
            "langfuse-secret-key",
            r"\bsk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            &["sk-lf-"],
        ),
        // Mercado Pago production access tokens: `APP_USR-`, the app's
        // number, six digits, 32 hex digits, the user's number.
        r(
            "mercadopago-access-token",
            r"\bAPP_USR-[0-9]{6,20}-[0-9]{6}-[0-9a-f]{32}-[0-9]{6,12}\b",
            &["app_usr-"],
        ),
        // Databricks OAuth secrets (`dose`) and refresh tokens (`doau`)
        // beside the `dapi` personal access tokens.
        r("databricks-token", r"\bdo(?:se|au)[a-f0-9]{32}\b", &["dose", "doau"]).check(Check::Mixed),
        // Prefixed tokens trufflehog's detectors know (formats from their
        // vendors' documentation): each prefix is distinctive, the body's
        // length and alphabet fixed.
        r("adafruit-io-key", r"\baio_[A-Za-z0-9]{28}\b", &["aio_"]).check(Check::ShortPrefix),
        r("alchemy-api-key", r"\balcht_[A-Za-z0-9]{30}\b", &["alcht_"]),
        r("bannerbear-api-key", r"\bbb_(?:pr|ma)_[a-f0-9]{30}\b", &["bb_pr_", "bb_ma_"]),
        secret(rb(
            "bitbucket-data-center-token",
            r"\b(?P<secret>BBDC-[A-Za-z0-9+/@_\-]{40,50})(?:[^A-Za-z0-9+/@_\-]|$)",
        ))
        .keywords(["bbdc-"])
        .priority(P_VENDOR)
        .check(Check::Mixed),
        r("ubidots-token", r"\bBBFF-[A-Za-z0-9]{30}\b", &["bbff-"]),
        r(
            "cloudflare-api-token",
            r"\bcf[ua]t_[A-Za-z0-9]{40}[a-f0-9]{8}\b",
            &["cfut_", "cfat_"],
        ),
        r("cloudflare-global-api-key", r"\bcfk_[A-Za-z0-9]{40}[a-f0-9]{8}\b", &["cfk_"]),
        r("figma-token", r"\bfigp_[A-Za-z0-9_=\-]{40,54}", &["figp_"]),
        r("rootly-api-key", r"\brootly_[a-f0-9]{64}\b", &["rootly_"]),
        r("ramp-secret", r"\bramp_sec_[A-Za-z0-9]{48}\b", &["ramp_sec_"]),
        r("flexport-api-key", r"\bshltm_[A-Za-z0-9_\-]{40}", &["shltm_"]),
        r("sourcegraph-cody-token", r"\bslk_[a-f0-9]{64}\b", &["slk_"]),
        r("apify-token", r"\bapify_api_[A-Za-z0-9\-]{36}\b", &["apify_api_"]),
        r(
            "photoroom-api-key",
            r"\b(?:sandbox_)?sk_pr_[A-Za-z0-9]{1,64}_[A-Fa-f0-9]{40}\b",
            &["sk_pr_"],
        ),
        r("pganalyze-key", r"\bpgar_[A-Za-z0-9]{27}\b", &["pgar_"]).check(Check::Mixed),
        r("pagarme-api-key", r"\bak_live_[A-Za-z0-9]{30}\b", &["ak_live_"]),
        r("sonarcloud-token", r"\bsqco_[A-Za-z0-9]{59}\b", &["sqco_"]),
        r(
            "saladcloud-api-key",
            r"\bsalad_cloud_[A-Za-z0-9]{1,7}_[A-Za-z0-9]{7,235}\b",
            &["salad_cloud_"],
        ),
        r(
            "robinhood-crypto-api-key",
            r"\brh-api-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
            &["rh-api-"],
        ),
        secret(rb(
            "zapier-webhook",
            r"(?i)\bhooks\.zapier\.com/hooks/catch/(?P<secret>[0-9]{3,12}/[A-Za-z0-9]{5,12})\b",
        ))
        .keywords(["hooks.zapier.com"])
        .priority(P_VENDOR)
        .check(Check::Token),
        // Azure DevOps personal access tokens since 2024: 84 characters
        // with Microsoft's `AZDO` signature at 77-80 (the keyword is inside
        // the token: the rule searches the hit's line). Microsoft's tokens
        // also hold `JQQJ9` at 53-57; the rule does not ask for it (Nosey
        // Parker's examples lack it), so it replaces the rule that did.
        r(
            "azure-devops-pat",
            r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b",
            &["azdo"],
        )
        .check(Check::Mixed),
        // Salesforce access and session tokens: the org id (`00D` and 12
        // characters), `!`, 96 opaque characters.
        secret(rb(
            "salesforce-access-token",
            r"\b(?P<secret>00D[A-Za-z0-9]{12}![A-Za-z0-9._]{96})(?:[^A-Za-z0-9._]|$)",
        ))
        .keywords(["00d"])
        .priority(P_VENDOR)
        .check(Check::Mixed),
        // Vault service tokens of the 1.x protobuf format before the `hvs.`
        // prefix (`s.CAES…`, ~90 characters): no name needed nearby, unlike
        // the 24-character legacy `s.` tokens.
        r("vault-token", r"\bs\.CAES[A-Za-z0-9_\-]{40,}", &["s.caes"]),
        // SpectralOps personal tokens (`spu-` and 32 hex digits).
        r("spectralops-token", r"\bspu-[a-f0-9]{32}\b", &["spu-"]).check(Check::Mixed),
        // Jenkins credentials as its XML files store them, encrypted with the
        // controller's key (`{AQAAABAAAA…}` in `credentials.xml`,
        // `config.xml`): readable by anyone who also has its `secrets/`.
        secret(rb(
            "jenkins-secret",
            r"\{(?P<secret>AQAAABAAAA[A-Za-z0-9+/]{20,}={0,2})\}",
        ))
        .keywords(["{aqaaabaaaa"])
        .priority(P_VENDOR)
        .check(Check::Token),
        // The phrases in which a tool or a message hands a secret over:
        // `Your new API key is v`, `The access token is v`, `My password is
        // v` (a determiner, at most one of a few qualifiers, the secret's
        // name, `is`, then a value that ends the line, the sentence's final
        // `.` left out). The phrase rule above wants two words or more
        // after the secret word; a bare `key` (`the cache key is …`) and
        // other qualifiers (`the page token is …`) are not taken.
        rb(
            "generic-secret",
            r#"(?im)\b(?:your|the|my|our|this)[\t ]+(?P<name>(?:(?:new|personal|api|access|secret|auth|bot|admin|master|root|private|service|deploy|app)[\t ]+)?(?:api[ _-]?key|access[ _-]key|secret[ _-]key|private[ _-]key|access[ _-]token|auth[ _-]token|api[ _-]token|passw(?:or)?d|passphrase|token|secret))[\t ]+is[\t ]*:?[\t ]+(?P<secret>[^\s"'`]{8,}?)[\t ]*\.?\r?$"#,
        )
        .keywords([
            "password is", "passphrase is", "token is", "key is", "secret is",
        ])
        .secret_group("secret")
        .priority(P_GENERIC)
        .guard(Guard::Phrase)
        .check(Check::Handover),
        // Vendor formats with no prefix of their own, near the vendor's name
        // on their line (as Okta's): Lob's secret keys (`live_`/`test_` + 35
        // hex) and publishable keys (`live_pub_`/`test_pub_` + 31 hex),
        // Beamer's `b_` + 44, and Twitch's 30-character tokens. The name
        // opens a word or follows a `_` (`ci_lob`; `blob`, `global` hold
        // `lob` and take no key); so does Okta's. A line that names the
        // vendor without a run of token bytes as long as the key
        // (`Guard::Run`) is ruled out before the regex reads it (`auth_provider=okta`
        // in a log); not Beamer's, whose keys may hold `=`.
        secret(r(
            "lob-api-key",
            r"(?i)(?:\b|_)lob[A-Za-z0-9_.\-]{0,30}[^\r\n]{0,30}?\b(?P<secret>(?:live|test)_(?:[a-f0-9]{35}|pub_[a-f0-9]{31}))\b",
            &["lob"],
        ))
        .guard(Guard::Run(40)),
        secret(r(
            "beamer-api-token",
            r"(?i)(?:\b|_)beamer[A-Za-z0-9_.\-]{0,30}[^\r\n]{0,30}?\b(?P<secret>b_[A-Za-z0-9=_\-]{44})(?:[^A-Za-z0-9=_\-]|$)",
            &["beamer"],
        )),
        secret(r(
            "twitch-api-token",
            r#"(?i)(?:\b|_)twitch[A-Za-z0-9_.\-]{0,30}["']?[\t ]*(?:[:=]|:=|=>)[\t "']{0,5}(?P<secret>[a-z0-9]{30})(?:[^A-Za-z0-9_\-]|$)"#,
            &["twitch"],
        ))
        .guard(Guard::Run(30))
        .check(Check::Mixed),
        // Secrets stored from the command line. A value piped or given in a
        // here-string to a command that stores its standard input
        // ([`STDIN_SECRET`]): `echo "v" | docker secret create db -`,
        // `printf 'v' | gh secret set API_TOKEN`, `wrangler secret put X <<< v`.
        command_secret_in(&format!(r"{ECHOED}[^\r\n|;&]*?{STDIN_SECRET}"), STDIN_SECRET_KW, &["s2", "s3"]),
        command_secret_in(
            &format!(r"{STDIN_SECRET}[^\r\n|;&]*?{HERE_STRING}"),
            STDIN_SECRET_KW,
            &["s2", "s3"],
        ),
        // A secret store's value flag: `az keyvault secret set --value v`,
        // `security add-generic-password -w v` (the macOS keychain), and an
        // SSM parameter's `--value` when its type is `SecureString` (a
        // `String` parameter is configuration).
        command_flag(
            r"\baz[\t ]+keyvault[\t ]+secret[\t ]+set\b[^\r\n|;&]*?[\t ]--value(?:=|[\t ]+)",
            &["keyvault"],
        ),
        command_flag(
            r"\bsecurity[\t ]+add-(?:generic|internet)-password\b[^\r\n|;&]*?[\t ]-w[\t ]+",
            &["add-generic-", "add-internet-"],
        ),
        command_flag(
            r"\baws[\t ]+ssm[\t ]+put-parameter\b[^\r\n|;&]*?SecureString[^\r\n|;&]*?[\t ]--value(?:=|[\t ]+)",
            &["put-parameter"],
        ),
        command_secret(
            &format!(r"\baws[\t ]+ssm[\t ]+put-parameter\b[^\r\n|;&]*?[\t ]--value(?:=|[\t ]+){FLAG_VALUE}[^\r\n|;&]*?SecureString"),
            &["put-parameter"],
        ),
        // A name then its value: `dotnet user-secrets set KEY v` (any key:
        // the store holds secrets), `netlify env:set NAME v` and `glab
        // variable set NAME v` (or `--value v`) when the name names a
        // secret, `rclone config create REMOTE TYPE … secret_access_key v`.
        command_flag(
            r#"\buser-secrets[\t ]+set[\t ]+(?:"[^"\r\n]+"|'[^'\r\n]+'|[^\s"'\-][^\s"']*)[\t ]+"#,
            &["user-secrets"],
        ),
        command_flag(
            &format!(r#"\bnetlify[\t ]+env:set[\t ]+["']?{NAME}["']?[\t ]+"#),
            &["env:set"],
        ),
        command_flag(
            &format!(r#"\bglab[\t ]+variable[\t ]+(?:set|create|update)[\t ]+["']?{NAME}["']?(?:[\t ]+|[^\r\n|;&]*?[\t ]--value(?:=|[\t ]+))"#),
            &["glab"],
        ),
        command_flag(
            r"\brclone[\t ]+config[\t ]+(?:create|update)\b[^\r\n|;&]*?[\t ](?:secret_access_key|pass|password|client_secret|token|key|account_key|sas_url|session_token|bearer_token)[\t ]+",
            &["rclone"],
        ),
        // Command lines' own passwords and tokens: `snyk auth T`; the package
        // publishers' `-p` (`twine upload`, `poetry publish`, `dotnet nuget
        // add source`, NuGet's `-Password`); RAR's `-pPASS` (`-p-` asks for
        // none); WMI's `/password:PASS`; MinIO's `mc admin user add ALIAS
        // USER PASS`.
        command_flag(r"\bsnyk[\t ]+auth[\t ]+", &["snyk auth"]),
        command_flag(
            r"\b(?:twine[\t ]+upload|poetry[\t ]+publish|(?:dotnet[\t ]+)?nuget[\t ]+(?:add|update)[\t ]+source|nuget[\t ]+sources[\t ]+(?:add|update))\b[^\r\n|;&]*?[\t ](?:-p|-Password)(?:[\t ]+|=)",
            &["twine", "poetry publish", "nuget"],
        ),
        command_flag(r"\b(?:un)?rar[\t ]+[a-z]\b[^\r\n|;&]*?[\t ]-p", &["unrar", "rar a "]),
        command_flag(r"(?i)\bwmic\b[^\r\n|;&]*?[\t ]/password:", &["wmic"]),
        command_flag(
            r"\bmc[\t ]+admin[\t ]+user[\t ]+add[\t ]+[^\s\-][^\s]*[\t ]+[^\s\-][^\s]*[\t ]+",
            &["user add"],
        ),
        // More command lines' passwords: Windows' `schtasks … /rp PASS` (the
        // task's run-as password; `*` prompts), MQTT clients' `-P PASS`
        // (`mosquitto_pub`, `mosquitto_sub`, `mosquitto_rr`), Samba's
        // `smbclient //srv/share PASS` (the password after the service),
        // Vault's `vault operator unseal KEY`, SQLCipher's `PRAGMA key =
        // 'v'` (also `rekey`) and `ATTACH DATABASE … KEY 'v'`, and
        // PowerShell's `ConvertTo-SecureString -AsPlainText "v"` (the flag
        // before the string).
        command_secret(
            r#"(?i)\bschtasks\b[^\r\n|;&]*?[\t ]/rp[\t ]+(?:"(?P<secret>[^"\r\n]+)"|'(?P<s2>[^'\r\n]+)'|(?P<s3>[^\s"'/*\-][^\s"']*))"#,
            &["schtasks"],
        ),
        command_flag(r"\bmosquitto_(?:pub|sub|rr)\b[^\r\n|;&]*?[\t ]-P[\t ]+", &["mosquitto_"]),
        command_flag(r"\bsmbclient[\t ]+(?://|\\\\)[^\s]+[\t ]+", &["smbclient"]),
        command_flag(
            r"\bvault[\t ]+operator[\t ]+unseal(?:[\t ]+-[A-Za-z][A-Za-z-]*(?:=[^\s]*)?)*[\t ]+",
            &["unseal"],
        ),
        command_secret_in(
            &format!(r"(?i)\b(?:pragma[\t ]+(?:[A-Za-z_][A-Za-z0-9_]*\.)?(?:re)?key[\t ]*=|attach[\t ]+database\b[^\r\n;]*?[\t ]key)[\t ]*{QUOTED}"),
            &["pragma", "attach database"],
            &["s2", "s4"],
        ),
        rb(
            "generic-secret",
            r#"(?i)\bConvertTo-SecureString(?:[\t ]+-Force)*[\t ]+-AsPlainText(?:[\t ]+-Force)*[\t ]+(?:-String[\t ]+)?(?:"(?P<secret>[^"\r\n$]+)"|'(?P<s2>[^'\r\n]+)')"#,
        )
        .keywords(["convertto-securestring"])
        .secret_group("secret")
        .alt_groups(&["s2"])
        .priority(P_STRUCT)
        .check(Check::Value),
        // A token assigned to a service's name alone (`DATADOG=v`,
        // `"cloudflare": "v"`, `ci_bitbucket: v`): the name's last word is
        // one of [`VENDOR_NAMES`] and the value reads as a token
        // ([`Check::VendorNamed`]). With a secret word the generic rules
        // take it (`DATADOG_API_KEY=v`).
        vendor_named(),
        // Heroku's and HubSpot's legacy API keys are UUIDs: under the
        // name alone too.
        secret(r(
            "heroku-api-key",
            r#"(?im)\b(?:[A-Za-z0-9]+[_.\-])*heroku["']?[\t ]*(?:=|:=|=>|:)[\t ]*["'`]?(?P<secret>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:[\s"'`,;)\]}]|$)"#,
            &["heroku"],
        ))
        .guard(Guard::Run(36)),
        secret(r(
            "hubspot-api-key",
            r#"(?im)\b(?:[A-Za-z0-9]+[_.\-])*hubspot["']?[\t ]*(?:=|:=|=>|:)[\t ]*["'`]?(?P<secret>[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?:[\s"'`,;)\]}]|$)"#,
            &["hubspot"],
        ))
        .guard(Guard::Run(36)),
        // Resend's API keys (`re_` and two parts of 8 and 24 characters)
        // and E2B's sandbox API keys (`e2b_` and hex).
        r("resend-api-key", r"\bre_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}\b", &["re_"]),
        r("e2b-api-key", r"\be2b_[a-f0-9]{32,64}\b", &["e2b_"]),
        // Airtable's personal access tokens: `pat`, a 14-character id, a dot
        // and 64 hex digits, keyed without the words of code that open like
        // one (see `airtable_pat_keywords`).
        r("airtable-pat", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", &[])
            .keywords(airtable_pat_keywords()),
        // A value on the line after its name's `=`: the first line of a
        // heredoc (Terraform's and the shell's `password = <<EOT` / `v` /
        // `EOT`, `<<-EOT`, `<<"EOF"`), its whole line judged as a quoted
        // literal is; and a shell line continuation (`export API_TOKEN=\`
        // / `  v`). Keyed on the `=` and what follows it, not on the name's
        // words: every `token_count=` of a log would search two lines.
        generic_keyed(
            &format!(
                r#"(?P<name>{NAME})[\t ]*=[\t ]*<<[\-~]?[\t ]*["']?[A-Za-z_][A-Za-z0-9_]*["']?[\t ]*\r?\n[\t ]*(?P<secret>[^\s](?:[^\r\n]*[^\s])?)[\t ]*(?m:\r?$)"#
            ),
            ["= <<", "=<<"],
        )
        .guard(Guard::ValueBelow)
        .next_line(),
        generic_keyed(&format!(r#"(?P<name>{NAME})=\\\r?\n[\t ]*{VALUE}"#), ["=\\"])
            .alt_groups(&["s2", "s3"])
            .guard(Guard::ValueBelow)
            .next_line(),
        // A personal access token under an environment-style name
        // (`GITHUB_PAT=v`, `"AZURE_DEVOPS_EXT_PAT": "v"`): `checks::classify_name`
        // takes `PAT` as the last word of an upper-case name only, and
        // its value must be one random run. Its own rule, not a word of
        // [`NAME`]: that would cost every generic rule's search.
        generic_keyed(
            &format!(r#"\b(?P<name>[A-Z0-9]+(?:_[A-Z0-9]+)*_PAT)["']?[\t ]*(?:=|:)[\t ]*{VALUE}"#),
            ["_pat=", "_pat:", "_pat\"", "_pat'", "_pat ", "_pat\t"],
        )
        .alt_groups(&["s2", "s3"]),
    ];
    // Twilio auth tokens are 32 hex digits: caught by the generic rules when the
    // name says so (TWILIO_AUTH_TOKEN=…), and as the password of `-u AC…:TOKEN`.
    let mut out = Vec::with_capacity(defs.len());
    for d in defs.drain(..) {
        // The built-in patterns are constants covered by the unit tests below.
        let rule = if eager { d.build() } else { d.build_lazy() };
        out.push(rule.expect("built-in rules compile"));
    }
    out
}

#[cfg(test)]
mod tests {
    /// The operators of the generic rule's regex are the prefilter's table
    /// (`checks::ASSIGN_OPS`): an assignment with each of them is masked
    /// (`||` is an env fallback, its own rule, with a quoted literal).
    #[test]
    fn every_assignment_operator_of_the_table_is_masked() {
        let r = crate::Redactor::builtin();
        for op in crate::checks::ASSIGN_OPS {
            let op = std::str::from_utf8(op).unwrap();
            for text in [
                format!("API_TOKEN {op} 'Zq9vK2mL7pXw4Rt8'"),
                format!("db_password{op}\"Zq9vK2mL7pXw4Rt8\""),
            ] {
                let out = r.redact(&text);
                assert!(!out.contains("Zq9vK2mL7pXw4Rt8"), "{op}: {out}");
            }
            if op != "||" {
                let text = format!("API_TOKEN {op} Zq9vK2mL7pXw4Rt8");
                assert_eq!(
                    r.redact(&text),
                    text.replace("Zq9vK2mL7pXw4Rt8", "[REDACTED:generic-secret]"),
                    "{op}"
                );
            }
        }
    }

    #[test]
    fn all_builtin_rules_compile() {
        let rules = super::rules();
        assert!(rules.len() > 60);
    }

    /// A rule's `needs` is only a shortcut: every window its regex matches in
    /// meets it (here on samples of each such rule, matching and not).
    #[test]
    fn needs_hold_wherever_the_regex_matches() {
        use crate::checks::needs_ok;
        let samples: &[&str] = &[
            "INFO  auth: password policy check passed for user alice",
            "DEBUG cache: lookup key users:12345 hit ratio 0.42",
            "db_password = hunter2-Secret",
            "API_TOKEN: abcd1234efgh5678",
            "x\n  PASSWORD   s3cr3t-Value\n",
            "\tpassword hunter2",
            "password hunter2",
            "mysql> CREATE USER 'bob' IDENTIFIED BY 'Tr0ub4dor&3';",
            "SET PASSWORD = PASSWORD('n3w-S3cret');",
            "{\"auths\": {\"r.io\": {\"auth\": \"dXNlcjpwYXNzd29yZA==\"}}}",
            "{\"db_password\": {\"sensitive\": true, \"value\": \"hunter2-x\"}}",
            "jwtKey := []byte(\"s3cr3t-v4lue-9\")",
            "let db_password: String = String::from( \t'hunter2-Secret' );",
            "Config { password: Some(\"hunter2-Secret\") }",
            "password = str(`Zq9vK2mL7pXw`)",
            "deploy step 7: password = hunter2 (ok) (ok)",
            "no keyword here at all",
        ];
        let rules = super::rules();
        let mut checked = 0;
        for rule in rules.iter() {
            let Some(n) = rule.needs else { continue };
            for s in samples {
                if rule.regex().is_match(s.as_bytes()) {
                    checked += 1;
                    assert!(needs_ok(n, s.as_bytes()), "{}: {s:?}", rule.pattern);
                }
            }
        }
        assert!(checked >= 8, "only {checked} matching samples");
    }

    /// Pieces of assignments, calls, literals and log padding: the texts
    /// on which `needs` must hold wherever a rule's regex matches.
    /// The calls that wrap a literal in the call-literal rules (`[]byte("v")`,
    /// `Some("v")`): both generators below draw from them.
    const WRAPPERS: [&str; 6] = [
        "Some",
        "String::from",
        "str",
        "[]byte",
        "bytes",
        "Buffer.from",
    ];

    fn needs_piece() -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(
            vec![
                "password",
                "db_password",
                "apiKey",
                "TOKEN",
                "jwtKey",
                "secret",
                " ",
                "\t",
                "\n",
                "=",
                ":=",
                ": ",
                ":",
                "(",
                ")",
                "( ",
                "\"",
                "'",
                "`",
                "v4lue-Zq9",
                "hunter2",
                "SecretString::new",
                ".into()",
                ",",
                " (ok)",
                "value:",
                "\"value\"",
                "{",
                "}",
                "identified by",
                "-p",
                "vault",
                "s.",
                "name: x",
            ]
            .into_iter()
            .chain(WRAPPERS)
            .collect::<Vec<_>>(),
        )
    }

    /// An assignment of a literal, wrapped in a call or not, in the forms
    /// the rules with `needs` match: name, operator, wrapper, spaces, quote.
    fn needs_assignment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::sample::select;
        use proptest::strategy::Strategy;
        (
            select(vec![
                "password",
                "db_password",
                "apiKey",
                "jwtKey",
                "TOKEN",
                "x",
            ]),
            select(vec![" = ", ":=", ": ", " := ", ":", "="]),
            select([&["", "f"][..], &WRAPPERS].concat()),
            select(vec!["(", "( ", "(\t ", " ", ""]),
            select(vec!["\"", "'", "`", ""]),
            select(vec!["v4lue-Zq9", "hunter2", "x"]),
            select(vec!["\"", "'", "`", ""]),
            select(vec![")", " )", ".into())", "", ","]),
        )
            .prop_map(|(n, op, w, open, q1, v, q2, close)| {
                format!("{n}{op}{w}{open}{q1}{v}{q2}{close}")
            })
    }

    proptest::proptest! {
        /// [`needs_hold_wherever_the_regex_matches`] on generated texts:
        /// an assignment between random pieces.
        #[test]
        fn needs_hold_on_generated_texts(
            before in proptest::collection::vec(needs_piece(), 0..8),
            assignment in needs_assignment(),
            after in proptest::collection::vec(needs_piece(), 0..8),
        ) {
            use crate::checks::needs_ok;
            let text = format!("{}{assignment}{}", before.concat(), after.concat());
            for rule in needs_rules() {
                let Some(n) = rule.needs else { continue };
                if rule.regex().is_match(text.as_bytes()) {
                    proptest::prop_assert!(needs_ok(n, text.as_bytes()), "{}: {:?}", rule.pattern, text);
                }
            }
        }
    }

    /// The built-in rules with a `needs` test (compiled once for the property).
    fn needs_rules() -> &'static [crate::Rule] {
        static RULES: std::sync::OnceLock<Vec<crate::Rule>> = std::sync::OnceLock::new();
        RULES.get_or_init(|| {
            super::rules()
                .into_iter()
                .filter(|r| r.needs.is_some())
                .collect()
        })
    }
}
