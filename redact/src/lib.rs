//! toolexec-redact: masks secrets in tool output before it reaches a model, a UI or a disk.
//!
//! A [`Redactor`] replaces each secret it finds with `[REDACTED:RULE-ID]` and
//! keeps everything around it, so `Authorization: Bearer X` becomes
//! `Authorization: Bearer [REDACTED:bearer-token]` and
//! `postgres://app:PASS@db/prod` becomes `postgres://app:[REDACTED:url-password]@db/prod`.
//! It is a plain synchronous library (no async runtime): one-shot on `&str` /
//! `&[u8]`, or streaming from any `Read` to any `Write` with bounded memory.
//!
//! # Example
//!
//! ```
//! use std::borrow::Cow;
//! use toolexec_redact::{Redactor, Rule};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let redactor = Redactor::builder()
//!     .env_values(false) // keep the example independent of the environment
//!     .known_value("hunter2-prod-db")
//!     .rule(
//!         Rule::builder("acme-token", r"\bacme_[a-z0-9]{32}\b")
//!             .keyword("acme_")
//!             .build()?,
//!     )
//!     .build()?;
//!
//! let out = redactor.redact(
//!     "curl -H 'Authorization: Bearer 9f8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d' \
//!      https://ci:hunter2-prod-db@api.example.com token=acme_0123456789abcdefghijklmnopqrstuv",
//! );
//! assert_eq!(
//!     out,
//!     "curl -H 'Authorization: Bearer [REDACTED:bearer-token]' \
//!      https://ci:[REDACTED:url-password]@api.example.com token=[REDACTED:acme-token]",
//! );
//! // Redacting twice changes nothing.
//! assert_eq!(redactor.redact(&out), out);
//! // Text without secrets comes back borrowed: no allocation.
//! assert!(matches!(redactor.redact("build finished in 41s"), Cow::Borrowed(_)));
//!
//! // Streaming: any reader to any writer.
//! let mut sink = Vec::new();
//! let stats = redactor.redact_stream("GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n".as_bytes(), &mut sink)?;
//! assert_eq!(sink, b"GITHUB_TOKEN=[REDACTED:github-token]\n");
//! assert_eq!(stats.by_rule["github-token"], 1);
//! # Ok(())
//! # }
//! ```
//!
//! # API
//!
//! * [`Redactor::builtin()`] — built-in rules only (no environment values); a
//!   shared instance, cheap to call. [`Redactor::builder()`] — built-in rules
//!   **and** the process's secret-looking environment values by default, plus
//!   user rules ([`RedactorBuilder::rule`], [`RedactorBuilder::rules`]) and
//!   known values ([`RedactorBuilder::known_value`]).
//! * [`Redactor::redact`] `(&str) -> Cow<str>` (borrowed when nothing matched),
//!   [`Redactor::redact_bytes`] for non-UTF-8 input, [`Redactor::redact_with_stats`]
//!   (markers per rule id), [`Redactor::find`] (the spans), and
//!   [`Redactor::redact_stream`] / [`Redactor::redact_stream_with`], and
//!   [`Redactor::redact_slice_to`] (a text in memory to a writer).
//! * [`ReadAhead`] — a reader that reads a pipe or socket on a thread of its
//!   own, so that a stream keeps judging while its input comes (`toolexec
//!   redact` reads a pipe through it, into a 1 MiB pipe buffer; through
//!   Python's `subprocess` pipes, 100 MB inputs, 2 threads, medians of 5
//!   alternated runs: keyword-free log 434 → 829 MB/s, Rust sources 376 →
//!   680, structured log 273 → 339, JSON 206 → 263).
//! * `Redactor` is `Send + Sync`, an `Arc` inside: clone it freely.
//! * Rules are data: [`Rule::builder`] (id, pattern, secret group, keywords,
//!   minimum entropy, allow patterns, multi-line), and [`RuleSet::from_toml_str`],
//!   [`RuleSet::from_json_str`], [`RuleSet::from_path`] for rule files (feature
//!   `rule-files`, on by default):
//!
//!   ```toml
//!   [[rules]]
//!   id = "acme-token"                  # lowercase-kebab, shown in the marker
//!   pattern = '''\bacme_[a-z0-9]{32}\b'''
//!   keywords = ["acme_"]               # prefilter, ASCII case-insensitive
//!   secret_group = 0                   # index or name; 0 = whole match
//!   min_entropy = 3.0                  # bits per byte, optional
//!   allow = ['''^acme_0+$''']          # placeholders to leave alone
//!   multiline = false
//!   ```
//!
//! # How it works (and why it is fast)
//!
//! 1. **Keyword prefilter.** All rule keywords and the anchors of the known
//!    values are built into one Aho-Corasick DFA (ASCII case-insensitive,
//!    overlapping matches) directly as a compact table (a trie on byte
//!    classes with breadth-first failure links, ~0.5 ms for the built-in set;
//!    very large sets of known values fall back to `aho-corasick`'s own
//!    automata) and walked over four segments of the text in lock step.
//!    Secret-free text costs about one table walk (≈1–2 GB/s on one core);
//!    nothing else runs where no keyword is.
//! 2. **Guards.** Most keyword hits in logs and JSON are not assignments of
//!    a secret (`token refreshed`, `"max_tokens":4096`, `key_id=…`). Built-in
//!    rules carry a cheap guard checked at the hit before any regex runs. The
//!    context of a hit is read once — the whole name around the keyword, its
//!    closing quotes, the operator after it (one table of operators: `=` `:`
//!    `:=` `=>` `?=` `.=` `+=` `||` `::=` …), the byte before the name — and
//!    each guard first tests that its shape is there (one bit), so a hit costs
//!    a few comparisons; the generic assignment guard also asks that the name
//!    may name a secret (its last word is not `count`, `id`, `name`, …;
//!    remembered per name) and that a value of 4+ bytes follows (not `[`, `{`,
//!    `""`). Guards that look at the whole line (`value` nearby, a closing tag,
//!    a JSON `"name"` field) find their words in the keyword scan itself.
//!    **Dismissal:** before any window, a hit at which none of its pattern's
//!    rules can run is dropped in one test: the shapes of all its guards
//!    that look at the hit in one bit test, then those guards themselves, the
//!    line-level guards (one bit each per line), and for rules without a
//!    guard their own cheap condition — an anchored vendor rule cannot start
//!    where its pattern's leading `\b`, minimum length or byte set rule it
//!    out (`secret_name=…` is no `secret_…` token, `"sk-...ab"` no `sk-…`
//!    key), a rule with a line condition (`needs`) does not run on a line
//!    that fails it (this part only on a whole line without markers, where
//!    every hit's window is the line). A hit covered by another at its start
//!    (`tok` inside `token`, whose rules include its rules) is skipped. Only
//!    what a guard group would have added is skipped: every hit's line is
//!    still blocked for round cuts, so rounds, windows, matches and spans
//!    are those of running every hit through its groups (tested both ways).
//!    A hit whose guards do not look at it (`vault`, `secret_`, `sk-`) reads
//!    no context; the context's longer tests (an env fallback, a Go
//!    declaration, an `ENV`/`ARG` line) run only where the byte that starts
//!    them is there (each shortcut tested against the old reading); the
//!    per-round buffers and the name verdicts are kept from round to round.
//!    A hit whose name guards all fail is remembered by a key of the bytes
//!    around its name (the name as it is, the bytes around it with letters
//!    and digits read alike, two facts of its line) when every byte those
//!    guards and its context read lies in the key: a later hit with the same
//!    key (JSON and logs repeat their fields: `"prompt_tokens":123`) fails
//!    them without its context being built (the tests judge each such hit
//!    again).
//! 3. **Windows.** A rule's regex runs only on the line of a keyword hit (at
//!    most 4 KiB either side on long lines), or the hit line plus the next line
//!    (two-line forms such as Kubernetes `name:`/`value:`), or up to 64 KiB after
//!    it (private-key blocks). A rule whose matches all start with one of its
//!    keywords (its regex's literal prefixes each begin with a keyword: `ghp_`,
//!    `sk-`, `xoxb-`, … and user rules alike) does not search the window: its
//!    regex runs anchored at each keyword hit, and the search resumes where the
//!    window search would (the same matches; a property test compares both).
//!    The line breaks around the hits of a long line are found once, not per
//!    hit, and so are the line-level facts its windows ask for (the dots of
//!    a Discord bot token) and the keyword starts each anchored rule runs
//!    from: on minified JSON, where every hit has its own window of up to
//!    8 KiB, reading them again per hit or per rule cost 3× (100 MB of it on
//!    one line through `toolexec redact`, 2 threads: 16 MB/s before, 47
//!    after). Such a line offers rounds no safe cut, so every round is
//!    forced (see "Streaming equals one-shot" below); the round after a forced one is
//!    guessed forced too, which the text alone tells, and a guess that turns
//!    out wrong (a span across the cut) is dropped and judged again: threads
//!    judge those rounds side by side (47 -> 90 MB/s). Its hits still cost
//!    ~1.7× the instructions of the same JSON one object per line. Hit
//!    windows that overlap are searched as one, but each rule only over the
//!    part its own hits' windows span: on a long line the windows of all
//!    hits chain into one as long as a round, and a rule that one keyword
//!    asked for used to search all of it (50 MB of base64 on one line:
//!    97 -> 140 MB/s); a match more than 4 KiB from every keyword of its
//!    rule is no longer found there, as on another line it never was.
//! 4. **Filters.** Each match goes through its rule's allow patterns, entropy
//!    bound and (for built-ins) a validator: placeholder, code, path, prose and
//!    fake-token tests, character-class and entropy minimums. A validator
//!    whose only possible outcome is a mask inside one already found with a
//!    better priority (the value of `GITHUB_TOKEN=ghp_…` after the GitHub rule
//!    took the token) is put off: the mask would change nothing, and the
//!    verdict is only asked for if the second look finds something in that
//!    window (secret-dense text then validates most values once, not twice).
//!    After a match that is not masked from end to end the search goes on
//!    one byte after its start; for a rule whose every match holds one of
//!    its needed bytes past its first byte (the generic assignments: `=` or
//!    `:` after the name), read from its pattern, it goes on only where a
//!    match can still open before the window's last such byte, and stops
//!    when there is none (the same next match; a property compares both).
//!    The capture groups of a match are read by the pattern's pieces when
//!    the groups it needs are items of its top-level sequence (`Authorization:
//!    Bearer (?P<secret>…)`): each piece runs anchored where the one before
//!    ended, the way the capture engines choose; a capture engine is asked
//!    only when a piece does not match there (a property compares both).
//! 5. **Second look.** Rules whose matches were rejected on a line where
//!    something else got masked run again on the pieces between the masks.
//! 6. **Resolution.** Overlapping matches are merged into one span; its id is
//!    the most specific rule's (vendor token > user rule > structure such as
//!    `url-password` / `bearer-token` > known value > `generic-secret`); between
//!    rules of the same priority, the one listed first (built-ins in their
//!    order, then user rules in theirs).
//! 7. **Start-up.** Building a redactor compiles no built-in regex: each
//!    built-in rule compiles its regex (and resolves its capture groups, and
//!    finds whether its matches start with a keyword) on first use, once per
//!    redactor and shared by its clones, so text that never reaches a rule
//!    never pays for it (`toolexec redact < /dev/null` starts in a few ms).
//!    User rules ([`RuleBuilder::build`]) are compiled when built, so a bad
//!    pattern, a missing capture group or a pattern over the 32 MiB compiled
//!    size limit is an [`Error`] at build time, with the regex crate's message.
//!    The built-in patterns are constants: a test compiles every one of them.
//!    Each rule's pattern is parsed once, and its engine is built for how it
//!    is searched (no prefilter for rules run anchored at their keywords,
//!    one engine for both their searches; a prefix-literal prefilter but no
//!    reverse strategies for the others): see the `rule` module's docs.
//! 8. **I/O.** The stream reads into one buffer that never grows (one round
//!    plus two windows), writes long unmasked runs straight from it and
//!    gathers the rest (markers and the short text between them) into large
//!    writes, so a writer sees a few calls per round, not one per line.
//!
//! # What is masked (built-in rule ids)
//!
//! Vendor tokens, by their real format (prefix, alphabet, length):
//! `aws-access-key-id` (`AKIA`/`ASIA`/`ABIA`/`ACCA` + 16), `aws-secret-access-key`
//! (40 base64 characters after an AWS key id or on a line naming AWS),
//! `aws-session-token` (`IQoJb3JpZ2luX2Vj…`, `FwoGZXIvYXdz…`), `gcp-api-key`
//! (`AIza` + 35), `gcp-oauth-client-secret`, `gcp-access-token` (`ya29.`),
//! `gcp-refresh-token` (`1//0…`), `azure-storage-key` (`AccountKey=`, or a bare
//! 88-character base64 key ending `==` that is not a checksum or signature),
//! `azure-shared-access-key`, `azure-sas-token` (`sig=`), `azure-client-secret`
//! (`…8Q~…`), `github-token` (`ghp_ gho_ ghu_ ghs_ ghr_` + 36), `github-fine-grained-token`
//! (`github_pat_` 22 `_` 59), `gitlab-token` (`glpat-` and the other `gl…-` prefixes,
//! `GR1348941`), `npm-token`, `pypi-token` (`pypi-AgE…`), `docker-token`
//! (`dckr_pat_`), `docker-auth` (`"auth": base64(user:pass)`), `slack-token`
//! (`xoxb- xoxp- xoxa- xoxr- xoxs- xoxe.`, `xapp-`), `slack-webhook`,
//! `stripe-key` (`sk_live_ sk_test_ rk_live_ rk_test_`), `stripe-webhook-secret`,
//! `twilio-api-key` (`SK` + 32 hex), `twilio-auth-token` (32 hex after an `AC` SID),
//! `sendgrid-api-key` (`SG.` 22 `.` 43), `discord-bot-token` (the documented
//! three parts: the bot's user id in base64 `M…`/`N…`/`O…`, a 6-character
//! timestamp, an HMAC; found without a keyword nearby when the first part has
//! the exact shape of the base64 of a 17-20 digit id, so JWTs and dotted text
//! never match), `discord-webhook`, `telegram-bot-token` (`id:AA…`, also in a
//! Bot API URL's path, `/bot<token>/getMe`), `openai-api-key` (`sk-…`,
//! `sk-proj-`, `sk-svcacct-`, `sk-admin-`), `anthropic-api-key` (`sk-ant-api03-`,
//! `sk-ant-admin01-`…), `huggingface-token` (`hf_`), `jwt` (`eyJ….eyJ….sig`),
//! `private-key` (PEM `-----BEGIN … PRIVATE KEY-----` blocks, RSA/EC/DSA/OPENSSH/
//! ENCRYPTED/PGP, also JSON-escaped or on one line; PuTTY private lines;
//! base64-encoded PEM as in Kubernetes secrets), `openvpn-static-key` (the
//! hex lines of `-----BEGIN OpenVPN Static key V1-----`), `age-secret-key`, and about
//! thirty more prefixed formats (Vault, DigitalOcean, Databricks, Grafana,
//! Sentry `sntrys_`/`sntryu_`, Shopify, Atlassian, Terraform Cloud, Groq, xAI,
//! NVIDIA `nvapi-`, Tavily `tvly-`, Cerebras `csk-`, Jina `jina_`, Fireworks
//! `fw_`, Tailscale `tskey-`, Square `EAAA`, Replicate, …), and, each by its
//! documented format: Grafana legacy keys
//! (`eyJrIjoi…`), Okta (`00…` near `okta`), Lob (`live_`/`test_` + 35 hex,
//! `live_pub_`/`test_pub_` + 31, near `lob`), Beamer (`b_` + 44 near
//! `beamer`), Twitch (30 letters and digits given to a `twitch…` name),
//! Heroku legacy keys (a UUID after
//! `heroku … key`), Mailgun `pubkey-`, Vault legacy `s.`/`b.` (near `vault`;
//! `s.` + 24 also alone, as a whole word with a digit and entropy 3.5),
//! Clojars, Duffel, EasyPost, Flutterwave secret, encryption and public keys,
//! Frame.io, Prefect
//! `pnu_`, ReadMe `rdme_`, Brevo `xkeysib-`, Shippo, Defined Networking,
//! Dynatrace `dt0c01.`, OpenShift `sha256~`, Sourcegraph `sgp_`, Alibaba
//! `LTAI`, 1Password secret keys `A3-`, New Relic `NRJS-`/`NRII-`/`NRAA-`/
//! `NRRA-`, Dropbox `sl.`, Facebook `EAA…`, Twitter bearer tokens, Typeform
//! `tfp_`, SettleMint, Intra42, Infracost `ico-`, Harness `pat.`/`sat.`,
//! Cloudflare origin CA `v1.0-`, AWS AppSync `da2-`, Razorpay, Mailchimp
//! `…-usNN` and Microsoft Teams webhooks; also ClickHouse `4b1d…`, MaxMind
//! `…_mmk`, Amazon Bedrock `ABSK…`/`bedrock-api-key-…`, Authress, GitLab
//! session cookies, Artifactory reference tokens `cmVmd…` and Adobe `p8e-`;
//! NuGet `oy2…`, Plaid `access-{sandbox,development,production}-<uuid>`,
//! SonarQube `sqp_`/`squ_`/`sqa_`, Scalingo `tk-us-`, Yandex Cloud API keys
//! `AQVN…`, Stripe `sk_prod_`/`rk_prod_`, Contentful `CFPAT-`, Buildkite
//! `bkua_`, CircleCI `CCIPAT_`, Honeycomb `hcaik_`/`hcxik_`/`hcamk_`/`hcxmk_`,
//! Pinecone `pcsk_`, Neon `napi_`, Mapbox secret tokens `sk.eyJ…`, crates.io
//! `cio…`, Akamai EdgeGrid `akab-`, Tencent Cloud `AKID…`, ngrok's `add-authtoken T`, and Bundler's gem-host credentials
//! (`BUNDLE_GEMS__CONTRIBSYS__COM=user:pass`, `bundler-credentials`);
//! ClickUp `pk_<user id>_…`, ElevenLabs `sk_` + 48 hex, LaunchDarkly
//! server-side SDK keys `sdk-<uuid>` (not its `mob-` keys, which ship in
//! apps) and Yandex Cloud IAM tokens `t1.…` (`t1.` is rare: 0 hits in the
//! 5 MB logs and JSON of the benchmarks, 5 per MB of Rust sources).
//! Airtable's personal access tokens (`pat` + 14 + `.` + 64 hex) are keyed
//! on `pat` and the id's first one or two characters, all but those of
//! words (`paths`, `PathBuf`, `pathname`, `pattern`: keyed on `pat` alone,
//! +1.9 % instructions on Rust sources; so, +0.7 %). Ids that open like
//! those words (`pathb…`, `paths…`, `patte…`, …: 24 of the 3 844 first two
//! characters) are masked under a secret name or after `Bearer`, not bare. Facebook app access tokens (`<app id>|<app
//! secret>`) are masked under a secret name or `facebook`: a bare value
//! otherwise ends at `|` (a shell pipe), and `|` is no literal to key a
//! bare token on. Left out on purpose: Octopus `API-…` and LaunchDarkly's
//! `api-<uuid>` (`api-` is in `api-key` of log text); their names still
//! mask them in assignments (`OCTOPUS_API_KEY=…`).
//! Each format accepts what public rule sets (gitleaks) accept for it where
//! that is wider than the vendor's examples (letter case, separators).
//!
//! Structure: `url-password` (`scheme://user:PASS@host`, and a long token used
//! as the user of a git/http URL), `bearer-token` (`Authorization: Bearer|token|Bot|… X`,
//! a scheme named for a key or token such as `Api-Token X` or `DeepL-Auth-Key X`,
//! a bare `Bearer X`), `basic-auth` (`Authorization: Basic X`, `Basic X` decoding to
//! `user:pass`, `curl -u user:PASS` with the password quoted or not, HTTPie's `http -a user:PASS`), `cookie` (session-like values of
//! `Cookie:`/`Set-Cookie:`/`curl -b`; a pair whose name is no RFC 6265
//! token, as in `cookie: BaseCookie[str] = SimpleCookie()`, is code), `signed-url` (the signature of a
//! presigned URL: S3's `X-Amz-Signature=`, Cloud Storage's
//! `X-Goog-Signature=`, CloudFront's `Signature=` beside its `Key-Pair-Id=`:
//! the URL grants its access to whoever holds it).
//!
//! `password-hash`: the digest of a password hash in the formats `crypt(3)`,
//! `/etc/shadow`, htpasswd, LDAP, Django and Werkzeug write — bcrypt
//! `$2a$`/`$2b$`/`$2y$`, SHA-crypt `$5$`/`$6$` (with `rounds=`), MD5-crypt
//! `$1$`/`$apr1$`, yescrypt `$y$`, Argon2 `$argon2id$…`, `pbkdf2_sha256$…`,
//! `pbkdf2:sha256:…$`, `scrypt:N:r:p$`, LDAP `{SSHA}`/`{SSHA512}`/`{SMD5}`.
//! Decision: a hash is cracked offline, so it is masked as the password it
//! stands for, also in test fixtures; the scheme, parameters and salt stay
//! readable (`root:$6$JgQ6D6ry$[REDACTED:password-hash]:19000:…`). Each
//! shape is exact (alphabets and lengths), so `"$1$2"` in a replacement,
//! `{sha}` in a template or a `$6$` with a short digest never match;
//! unsalted LDAP `{SHA}`/`{MD5}` need a secret name (`userPassword:`).
//!
//! Typed declarations: `const API_TOKEN: &str = "v"`, `let key: String =
//! "v"`, `val apiKey: String = "v"`, a nullable type (`let token: String? =
//! "v"`), a TypeScript optional property with a default (`apiKey?: string =
//! "v"`), `var tok string = "v"` (Go, also the lines of a `var (` / `const (`
//! block and raw strings in backticks): the string literal is masked, the
//! type never is. A bare value that is a class named after its field is a
//! type or a factory (`private_key: x25519.X25519PrivateKey`, `auth:
//! httpx2.Auth | None = None`, `token: AccessToken`): a CamelCase name, after
//! a lower-case module path if any, that ends in the name's last two words,
//! or in its last word and reads as words; decision: quoted, such a value
//! stays a value (`password_bytes=b'IAmSensitiveBytes'` is masked). Nor is
//! a catalogue number (`…_PASSWORD_AND_ETC_SHADOW: T1003.008`, MITRE
//! ATT&CK), a Kubernetes API group's version (`AUTH_VERSION =
//! 'authentication.gke.io/v1alpha1'`) or a regular expression under a
//! secret name (`SECRET_VERSION = r':(?P<v>.+)'`) a secret.
//! Untyped, a backtick string without whitespace is the value of any
//! generic assignment below (Go `` token := `v` ``, `` Secret: `v` ``,
//! JS/TS `` const apiKey = `v` ``); with whitespace inside (`` TOKEN=`cat
//! /run/token` ``, `` `Bearer ${t}` ``) it is a command or a template and
//! stays, and so does a word or a template without spaces (`` `whoami` ``,
//! `` `${prefix}_${id}` ``), which the value checks reject. A quoted value
//! may carry a string prefix, and its literal is the value: Python's
//! `b'v'`, `r"v"`, `u'v'`, `br'v'` (Flask's `app.secret_key = b'v'`),
//! Rust's `b"v"` (`const SECRET: &[u8] = b"v";`); the prefix and quotes
//! stay. Decision: not an f-string's `f"…"`, which with a placeholder is
//! code (`token = f"share-{org}-{id}"`).
//!
//! `generic-secret`: assignments whose **name** looks secret — `password passwd
//! passphrase pwd pw pass psk secret token api_key apikey access_key private_key
//! client_secret auth credentials` and `…_KEY` with a qualifier (`signing_key`,
//! `STRIPE_KEY`; `DB_PW`, `MYSQL_PWD`), numbered or not (`password1`,
//! `api_token2`, `DB_PASSWORD_2`; a numbered `auth` is a protocol's version:
//! `OAuth2`); a lower- or camel-case `<word>_key` (and a URL query's
//! `?key=`/`&key=`, an API key: `/v1/list?key=…`)
//! whose word is no known qualifier (`tavily_key`, `tursoKey`; decision: a
//! data store's too, `redis_key`, `dbKey`, as in code they key into the
//! store, while `REDIS_KEY` stays a secret name) when its value
//! is a 20+ character token (one token alphabet, letters and digits,
//! entropy 3.5, not a UUID or a hex SHA-1/SHA-256: `item_key: "item-42"`,
//! `sha_key: "3f78…"` stay); a quoted key of the whole printable alphabet
//! with a space or two (WordPress' `define('AUTH_KEY', 'q1}+zK#2L(~y<9PV.w!|R:Vb
//! e@%…')`: 32+ bytes, all four character classes, entropy 4.8, not a
//! regular expression) — with any assignment operator of
//! one table (`=`, `:`, `:=`, `=>`, PHP `.=`, Make `?=` `+=` `::=` `:::=`, JS
//! `??=` `||=`; a string literal alone on the line below `NAME =` or `NAME =
//! (`, as Prettier and Black wrap long ones), in env dumps, `.env`, URL query strings (a bare value ends
//! at the URL's fragment: `?token=v#section` keeps `#section`), JSON (also escaped and URL-encoded),
//! YAML (also block scalars and `name:`/`value:` or `key:`/`value:` pairs), TOML, INI, XML,
//! HCL, Python/Ruby/PHP/Go/Rust/Java literals, `{"Name": …, "Value": …}` pairs
//! (SSM, Key Vault, HAR, Postman, ECS), an SSM SecureString's `Value:` below
//! its `Type: SecureString` in YAML (any name; a word counts), `terraform output -json`, column
//! layouts (`vault kv get`), HTTP headers (`X-API-Key`, `api-key`,
//! `X-Auth-Token`, …), command lines (`--password=X`, `--token X`,
//! `mysql -pX` (in a Markdown code span, `` `mysql -pX` ``, the span's
//! closing backtick stays outside the mask), `mysqladmin … password X`, `docker login -p X`, `echo X | … --password-stdin`,
//! `sshpass -p`, `redis-cli -a`, `sqlcmd -P`, `openssl -k`, `zip -P`,
//! `htpasswd -b`, `gh secret set X --body v`, `PGPASSWORD=`, `echo v | sudo
//! -S`, `sudo -S … <<< v`, MySQL's `SET PASSWORD … = 'v'` (also
//! `PASSWORD('v')`), `aws configure set aws_secret_access_key v`, `nmcli …
//! password v`, Windows `cmdkey /pass:v` and `net use … /user:NAME v`,
//! FreeRDP `/p:v`, rdesktop `-p v`, 7-Zip `-pV`, PsExec `-p v`,
//! `lftp -u user,v`, `cargo login v`, GitHub Actions' `::add-mask::v`, Redis
//! `AUTH` as `MONITOR` prints it (`"AUTH" "v"`), an `expect` script's `send
//! "v\r"` after a password prompt; a package
//! manager's or git's setting given on the command line when its name names
//! a secret: `npm config set //registry.npmjs.org/:_authToken v`, `git
//! config --global github.token v`, `yarn config set npmAuthToken v`,
//! `poetry`/`composer config http-basic.X user v`, `bundle config HOST
//! user:pass`; `ssh-keygen -N`/`-P`, `mongosh … -p`, `rabbitmqctl add_user
//! USER v`, Windows `net user USER v`, `echo 'USER:v' | chpasswd`, MinIO's
//! `mc alias set NAME URL KEY v`, Oracle's `sqlplus USER/v@DB`, `-storepass v`),
//! secrets stored from the command line (a value `echo`ed or `printf`ed
//! into, or given in a here-string to, a command that stores its standard
//! input: `docker`/`podman secret create`, `gh secret set`, `gh auth login
//! --with-token`, `vercel env add`, `wrangler secret put`, `gcloud secrets
//! create`, `pass insert`, `secret-tool store`, `passwd --stdin`,
//! `htpasswd -i`, …; `az keyvault secret set --value v`, `security
//! add-generic-password -w v`, `aws ssm put-parameter --value v` of a
//! `SecureString`, `dotnet user-secrets set KEY v`, `netlify env:set NAME v`
//! and `glab variable set NAME v` when the name names a secret, `rclone
//! config create … pass v`), `snyk auth v`, the publishers' `-p v` (`twine
//! upload`, `poetry publish`, `dotnet nuget add source`), RAR's `-pV`, WMI's
//! `/password:v`, `mc admin user add ALIAS USER v`, `schtasks … /rp v`,
//! `mosquitto_pub … -P v`, `smbclient //srv/share v`, `vault operator
//! unseal KEY`, SQLCipher's `PRAGMA key = 'v'` and `ATTACH … KEY 'v'`, a
//! passphrase given to `cryptsetup open` (each of these commands
//! also when continued over lines ending in `\`, `^` or `` ` ``: `docker
//! login \` / `  -u ci \` / `  -p v`, read up to 1 KiB past the command's
//! line),
//! basic credentials passed as two literals (`auth=("user", "v")`,
//! `HTTPBasicAuth("user", "v")`, `SetBasicAuth("user", "v")`,
//! `.basic_auth("user", Some("v"))`, `new PasswordAuthentication("user",
//! "v".toCharArray())`, Go's `smtp.PlainAuth("", "user", "v", host)`), a value after
//! a YAML tag (`password: !!binary <base64>`, `api_key: !!str v`), space-separated
//! setters (Dockerfile `ENV`/`ARG`, csh `setenv`, Windows `setx`, fish
//! `set -x`/`set -gx`/`set --export`, also after a shell prompt `$ `,
//! `% ` or `> ` in a transcript), PowerShell `ConvertTo-SecureString "…" -AsPlainText`
//! (or `-AsPlainText "…"`)
//! (a cmdlet after `=` is no value), .NET/ADO connection strings
//! (`Password=…;`), `.netrc` (bare or in double quotes; a quote inside a bare
//! password is part of it), `.pgpass` lines on the default port
//! (`host:5432:db:user:v`; other ports and `*` have no literal to find them
//! by), SQL `IDENTIFIED BY '…'` / `"…"` (in capitals, opening
//! a line, or after `user`/`role`/`login`/`grant`: not prose's `identified by`);
//! and the literal of an env fallback (`process.env.API_TOKEN || 'v'`,
//! `getenv('API_KEY') ?: 'v'`, `os.environ.get("TOKEN") or "v"`), of a setter
//! call whose first argument names a secret (`System.setProperty("X_TOKEN",
//! "v")`, `os.Setenv(…)`, `env::set_var(…)`, `define('DB_PASSWORD', 'v')`;
//! after a section, configparser's `config.set("db", "password", "v")`;
//! decision: only a `.set(` call's second argument, as in other calls a
//! secret word there is as often a user's password, `new User("joe",
//! "password", "ROLE_A")`), a
//! shell default (`${DB_PASSWORD:-v}`) or a Spring property default
//! (`${db.password:v}`), a literal wrapped in a conversion
//! (`jwtKey := []byte("v")`, `String::from("v")`, `str("v")`,
//! `SecretString::new("v".into())`, `Buffer.from('v')`, `Some("v")`,
//! `std::string("v")`), Rust's
//! `Debug` of an option (`Config { password: Some("v") }`), an XML element
//! whose value is on the next line (`<password>` / `v` / `</password>`),
//! the value ending a line whose phrase names a secret, as installers and
//! CLIs print it (`A temporary password is generated for root@localhost: v`,
//! `Please use the following password to proceed to installation: v`,
//! `Temporary password for bob is v`, `Token (will not be shown again): v`;
//! decision: a phrase of two words or more whose secret word is followed by
//! `is`, `for`, `to`, `(`, `was` or `has`, a value that reads as random, and
//! not when the phrase's next or last word says the value is about the
//! secret — `Token expires at: …`, `API key id: …`), a
//! secret-named setter or builder given one literal (`client.setPassword("v")`,
//! `set_api_key('v')`, `.withClientSecret("v")`, Go's `SetToken("v")`;
//! decision: `set`/`with` must open the method's name before `_` or a
//! capital, so `settingsToken("v")`, a getter and a builder's bare
//! `.password("v")` stay, as do `setBasicAuth("user", "v")` and other calls of
//! several literals, whose first is not the secret), a C or C++ array
//! (`char secret[] = "v";`, `API_TOKEN[33] = "v"`) and a C macro's string
//! literal (`#define WIFI_PASSWORD "v"`; decision: a macro's bare value is C
//! — a number, a name, `OBJ_X509,35L` — and stays). A value that repeats
//! words of its own name, in order, names itself and stays: OpenSSL's
//! `SSL_TXT_kPSK "kPSK"`, `SN_auth_gost01 "AuthGOST01"`,
//! `TLS1_TXT_PSK_WITH_AES_128_CCM_8 "PSK-AES128-CCM8"`, a label in C hex
//! escapes (`TLS_MD_MASTER_SECRET_CONST "\x6d\x61…"`, "master secret"); each
//! word of the value (split as [`env_name_words`] splits names) is a run of
//! the name's words, one word may be out of place once three match.
//! Names whose last word is `charset`, `encoding` or `encoder` name no secret
//! (`credentialsCharset = "ISO-8859-1"`), and a signing key's name given 8
//! or 16 hex digits holds a GPG key id, which is public (git's
//! `signingkey = 3AA5C34371567BD2`; decision: 40 hex digits stay masked, as
//! they may be an HMAC key as well as a fingerprint); a GPG key's name
//! (`GPG_KEY`, `pgp_key`) given 8, 16 or 40 hex digits holds its id or
//! fingerprint, public too (`GPG_KEY=A035C8C1…` in the Python images'
//! environment).
//!
//! Words as passwords: a person's password is often a lower-case word
//! (`swordfish`, `letmein`, `postgres`). Decision: a word of 4 to 11
//! lower-case letters is a value only where its name is a password's own
//! (the name's last word is `password`, `passwd`, `pass`, `pwd`, …: not
//! `password_policy`, not a secret's or a token's name, whose values are
//! random), quoted (`password: "letmein"`, not in a shell's backticks), or
//! bare where a configuration's value ends (`DB_PASSWORD=swordfish`, `;` of
//! a connection string, `&` of a query, `PGPASSWORD=v psql`, a table's
//! cell, `${X:-v}`, `<password>v</password>`, `password = v` opening an INI
//! line), and on a command line's password flag (`sshpass -p v`, `psexec …
//! -p v`, `mysql -pv`, `http -a user:v`; not `curl -u user:v`, which `docker
//! -u app:app` shares, nor `htpasswd -b`, whose positions prose fills). A
//! literal, a type or a state stays (`none`, `required`, `string`,
//! `always`, `function`), so do placeholders, a capitalised label
//! (`"Passwort"`), and code's variables (`    password = ident`,
//! `username, password = split`, `connect(password=pw)`, `@user.password =
//! long`). A constant's name (`VALUE_SPECIFIED_IN_NO_LOG_PARAMETER`) is no
//! value. A literal compared with a secret-named name (`if password ==
//! "v":`, `apiKey !== 'v'`) is the secret a program checks; decision: not a
//! token's, as lexers compare tokens (`token == "#define"`). A private
//! key's body written as string literals, one a line (`"MIIE…\n" +`), is
//! masked line by line, its quotes and operators kept.
//! More formats by their documented shapes: Azure DevOps PATs of 2024
//! (84 characters, `AZDO` at 77-80), Dependency-Track `odt_`, Twitch stream
//! keys `live_<id>_…`, New Relic license keys `…NRAL` and Insights query
//! keys `NRIQ-`, Teams webhooks on `outlook.office.com`, SonarQube's
//! `sonar.login`, Vault unseal keys (`Unseal Key 1: …`, `vault operator
//! unseal …`), Cisco type 8/9 hashes and roasted Kerberos tickets
//! (`$krb5tgs$23$…`, `$krb5asrep$23$…`: the encrypted part).
//! Password hashes with every `$` doubled, as Docker Compose files and
//! Traefik's documented basic-auth labels escape them
//! (`user:$$apr1$$salt$$hash`, `$$2y$$05$$…`): the hash part.
//! Bare, as gitleaks, trufflehog and Nosey Parker find them: Octopus
//! Deploy `API-` keys (a digit required), JWTs in standard base64 (`ZXlK…`,
//! when they decode to one), Langfuse `sk-lf-`, Mercado Pago `APP_USR-`,
//! Databricks `dose`/`doau`, Salesforce `00D…!…`, Vault `s.CAES…`,
//! SpectralOps `spu-`, Adafruit IO `aio_`, Alchemy `alcht_`, Bannerbear,
//! Bitbucket Data Center `BBDC-`, Ubidots `BBFF-`, Cloudflare
//! `cfut_`/`cfat_`/`cfk_`, Deno Deploy `ddp_`/`ddw_` (a digit required),
//! Figma `figp_`, Rootly, Ramp, Flexport, Sourcegraph Cody `slk_`, Apify
//! `apify_api_`, PhotoRoom `sk_pr_`, pganalyze `pgar_`, Pagar.me `ak_live_`,
//! SonarCloud `sqco_`, SaladCloud, Robinhood Crypto and Zapier catch hooks.
//! Jenkins' encrypted credentials (`{AQAAABAAAA…}` in its XML files):
//! decision: masked, as anyone holding the controller's `secrets/` can
//! decrypt them. A secret handed over in a sentence (`Your new API key is
//! v`, `The access token is v`; a determiner, at most one of a few
//! qualifiers, the secret's name, `is`, a value ending the line that reads
//! as random and, unless it is a password, not as words); decision: a bare
//! `key` and other qualifiers are not taken (`the cache key is …`, `the
//! page token is …`).
//!
//! Known values: `env-secret` ([`ENV_SECRET_ID`]) for the values of this
//! process's environment variables whose names look secret (a secret word
//! such as `KEY`, `TOKEN`, `PWD` or `AUTH` among their words; the one rule
//! that exec's environment filter uses too, see [`is_secret_env_name`])
//! and whose value has at least 8 characters; `known-value`
//! ([`KNOWN_VALUE_ID`]) for values the embedder registers. Values are masked
//! **as given** (exact, case-sensitive, no trimming), plus their JSON-escaped
//! forms (`\"`, `\\`, `\/`, `\n`, `\uXXXX`, JSON inside JSON), their
//! percent-encoded forms, CRLF line endings, and an occurrence split by one
//! line break (terminal wrapping).
//!
//! # What is deliberately left alone
//!
//! Names known not to hold secrets, as exec's environment filter knows them
//! ([`NOT_SECRET_NAMES`]): `PWD`, `OLDPWD`, `SSH_AUTH_SOCK`,
//! `XDG_SESSION_*`… written as environment names (upper case), so `ps axeww`
//! and `env` output keep their working directories. Decision: lower-case
//! `pwd` stays a password name (MongoDB's `createUser({pwd: "…"})`).
//! A value that begins with `==` right after a name and `=`
//! (`password===2KCzjHf!43`) reads as a comparison (`===`), not an
//! assignment, and is left.
//! A dict's value wrapped onto the next line in code (`'token_scope_override':`
//! / `'oauthToken.scope',`): a quoted value below its name is YAML's only
//! when it ends its line (or a comment does), and is then masked inside its
//! quotes.
//! Values that only stand for a secret: words one of which is a secret word
//! (`secret-error-sentinel`, `refresh-token`, `alice-pw`), and for token-like
//! names words and identifiers (`progressToken`, `same-csrf`,
//! `io.example/serverInfo`) — a token is random; a password of plain words
//! without a secret word (`correct-horse-battery-staple`) is still masked.
//! Placeholders and references (`${DB_PASSWORD}`, `$TOKEN`, `%KEY%`,
//! `{{ .Values.x }}`, `${{ secrets.X }}`, `<token>`, `your-api-key-here`,
//! `xxxxxxxx`, `***`, `changeme`, `null`, `true`, empty values, `(sensitive value)`,
//! `!vault`, `process.env.X`, `os.environ[…]`, `%Var%`, Compose's escaped
//! `$$(cat /run/secrets/db)` and `$${DB_PASS}`), ISO 8601 dates with a time
//! (`adminPasswordMtime: "2006-01-02T15:04:05Z"`; decision: a date alone
//! stays a value, as people pick dates), code (`password =
//! getpass()`, `token = config.token`; Go and C pointers and dereferences,
//! `privKey *ecdsa.PrivateKey`, `pwd = *u.EncryptedPassword`; a composite
//! literal's type, `Credential: protocol.Credential{`; a variable given to
//! a struct literal's field, `PrivateKey: sigKey1,` at the line's end; a
//! field set from the variable of its name, `this.pskIdentity =
//! pskIdentity;`; a camel-case variable or declared field made of words,
//! `secret = isValidation ?`; numbers with a C or Java suffix,
//! `= 0xCE536358L;`; text written with `\uXXXX` escapes; a class as the
//! value of a declaration with a type, `OAuth2Authorization authorization =
//! TestOAuth2Authorizations`, and as an `Authorization` value; the code
//! between two string literals that a quoted value's pattern spans,
//! `'--password='.$connection['password']`, `"password=" ~ pw ~ ";"`,
//! Java's `toString()` chains, `"CredentialsNonExpired=").append(x).append("`;
//! a member path through a name with a number between words,
//! `Token token = p11Key.token;`, `KEY = CertificateX509Key.NAME`;
//! optional chaining and non-null assertions, `options?.captchaToken`,
//! `createData!.client_secret`), type annotations (`password: str`,
//! `pwd: *mut passwd`, `eq_token: Token![=]`, `refreshToken: string)`,
//! `key: Option<T>`: after `name:` a reference, pointer, generic, macro,
//! primitive type, a C type (`__u32`, `uid_t`), a nullable type (`String?,`,
//! `String?=null`; not `QpX?=fzPf4E`, a value holding `?=`)
//! or a CamelCase name followed by code punctuation is a type; so is
//! `NAME: T = …` when a space comes before the `=`, not `pw: rgp3xh8Q=7v`),
//! `Authorization::{…}` paths, challenge parameters (`Bearer realm="…"`,
//! `Bearer resource_metadata="…"`), credentials that are lists of
//! auth-params led by one naming no secret (`OAuth realm=photos, …`,
//! `Digest username=Mufasa, …`: RFC 7235's token68 has `=` only as padding;
//! the params that name a secret, `oauth_token=…`, are masked by their
//! names), names ending in what the value is not
//! (`…_FIELD`, `…_TYPE`, `…_HEADER`, `…_INFO`, `META_KEY`, `progress_token`),
//! paths (`Token::Semi`), grep-style `path:LINE:` / `path-LINE-`
//! prefixes (kept, so grep output keeps its line numbers), names whose last
//! word says what the value is not (`token_count`, `key_id`, `secret_name`,
//! `authDomain`, `next_page_token`: their keyword hits are dropped before
//! any regex runs), names where a word before the last says it is no
//! secret (`max_output_tokens`, `show_api_key`, `public_api_key`) or says
//! what kind of key or token it is, right before that word (`cache_key`,
//! `page_token`, `s3_object_key`, `input_tokens`; decision: only right
//! before it, so `S3_SECRET_KEY`, `REDIS_CACHE_PASSWORD` and
//! `MESSAGE_BIRD_API_KEY` are secret names), file paths
//! and URLs as values, prose (`the token expired`, schema descriptions), git
//! SHAs, UUIDs (unless a secret-looking name holds them), dotted numbers
//! (OIDs `1.2.840.113549.1.9.4`, IPv4 addresses, versions), lockfile checksums
//! (`checksum = "…"`, `"integrity": "sha512-…"`, `h1:…`), image digests,
//! base64 images, minified JS, public keys, certificates, `ssh-rsa AAAA…`,
//! JWT headers alone, masked displays (`sk-proj-****abcd`), the AWS
//! documentation example keys (`…EXAMPLE`), Twilio account SIDs (`AC…`),
//! Stripe publishable keys (`pk_…`), AWS unique ids (`AIDA…`, `AROA…`), ARNs
//! (`arn:aws:secretsmanager:…:secret:name`) and names ending in
//! `_id/_url/_file/_path/_type/_length/…` (`token_type`, `max_tokens`,
//! `password_min_length`, `aws_access_key_id` is covered by the key-id rule).
//! A log line's next field after a colon (`auth.session:
//! session_token_ttl=3600`: a lower-case name of two or more words, `=`, a
//! value) is that field, not the value of a secret name before the colon;
//! decision: a random password holding `=` (`A_Jmwo=jcLE…`) is still one.
//! `Authorization: Digest …` and `AWS4-HMAC-SHA256 … Signature=` are left
//! (request-bound); the access key id inside is masked.
//!
//! Code of other languages (found by redacting Python site packages, npm's
//! JavaScript, C headers and Perl modules): a typed declaration is judged by
//! its name's own tier (`request_key: str = "werkzeug.request"` names a key,
//! whose value must look random), a Python parameter `stopToken:Token=None`
//! is a type with a default, values for token and key names that are
//! constants or header names (`'HTTP_X_REAL_IP'`), names in words with a
//! secret word (`'AWSAccessKeyId'`, `SSECustomerKeyMD5`) or members
//! (`exports.X509Extension`), declared names (`gss_cred_id_t my_cred;`),
//! `->` member access (`$parser->get_token`), chained assignments
//! (`P.a=P.b=void`), negations and regex literals (`!res.headers`,
//! `/^Unexpected/`), format templates (`'//{}{}:_authToken'`), a trailing
//! `$VAR`, type paths as names (`"AWS::IAM::AccessKey": …`,
//! `'Test2::Event::Pass' => …`), kernel-doc tags (`@NAME: text`), an
//! attribute of a class (`Token.Name.Function: '#ansigreen'`: its last
//! segment names it), words after `Authorization:`/`Basic` and 40-character
//! runs near an AWS word that read as words between their slashes (URL
//! paths, ARNs, policy names). Tool output likewise: a test runner's
//! `PASS: name` verdict, a file named before a colon (`* src/chpasswd.c:
//! …` in a ChangeLog), a rename in git's diffstat (`man/{readpassphrase.3 =>
//! readpassphrase.3bsd} | 0`), encoded spaces in a token (`Root%20CA`), settings
//! about passwords (`password_encryption = scram-sha-256`) and paths under a
//! variable (`$dir/private/ca.pem`). Decision: password names keep taking words
//! and camel-case words (`password=CorrectHorse` is masked), since people
//! choose such passwords; only names that want a random value reject them.
//! Found in identity providers' sources (authelia, oauth2-proxy): JOSE
//! algorithm names (`id_token_encrypted_response_enc: 'A128CBC-HS256'`), a
//! Markdown link's target with its anchor (`[Password Hash]:
//! ../guides/values.md#password-hash`), a table cell's code span of words
//! (`` `confidential` ``), a message template with `%s` between words, an
//! anchored regex (`'^(abc123|zyx789)$'`), key and certificate file names
//! (`--file.ca-private-key='ca.rsa.1024.key'`, `ssl_key: server.key`; a
//! file name of random characters is still a value), a label path
//! (`authorization: 'area/authorization'`), a concatenation that opens a
//! call (`"X=" + os.Getenv("X")`) or joins Go raw strings (`` `echo
//! `+password+` | …` ``), struct fields set from variables with acronyms
//! (`IssuerPrivateKey: keyRSA2048,`, `SecretKey: svcSK,`), a token's name
//! numbered as its value (`IDToken: "IDToken-1234"`; decision: not a
//! password's, `password: "password-2024"` may be one), a code named by
//! a property word (`ldapPasswordComplexityCode`; decision: an action's
//! code grants it, `password_reset_code` is masked) and host names before
//! a URL's `@` (`https://www.whitelisteddomain.tld@evil.test`, an
//! open-redirect probe). In dex and IdentityServer4: pointer types with
//! acronyms in gofmt's columns (`signing_key  *jose.JSONWebKey`), an operand
//! of a comparison (Babel's `x = _ref$x === undefined ? … :
//! …`; not before `&&`/`||`, which end a shell command: `PASSWORD=v &&
//! ./run.sh` is masked) and names of algorithm lists
//! (`AllowedAccessTokenSigningAlgorithms`). In loghub's system logs:
//! Java and Android object identities (`Token{a64f992`,
//! `android.os.BinderProxy@2bd79ce`; decision: `@` only after a package's
//! class, so `Summer@2024` stays a password), names ending in a failure
//! (`reason = AuthFail:sts:5_rsn:0`) and a percent-encoded e-mail address
//! as a URL's user (`https://13957525385%40163.com@host/`).
//! In auth servers' sources and listings (Ory Kratos, NextAuth.js, Supabase
//! Auth, PocketBase, Casdoor, Devise, Traefik, FastAPI, okhttp, Jellyfin,
//! Phoenix, curl): members read from objects (`f.IDToken = p.IDToken`,
//! `secret: config.secret!`, `password = this.#auth.loginPassword`;
//! decision: only with something code writes, a camel hump, an inner `_`,
//! `this`/`self`, a `#` member or `!`, so `password = correct.horse` is
//! still masked), a composite literal with its fields after a package's
//! type, TypeScript members' types after `public`, `private`, `readonly`…
//! (`public password: InputLocator`; an initializer's value is masked),
//! package versions and ranges (`"getpass": "^0.1.1"`), data files named
//! in listings (`…Credentials-case=saml-credential=webauthn.json`), JSON
//! pointers (`"#/components/schemas/…"`), a name after JSON's `\u0026`
//! (`page_token` is a page's), `credentials_identifier`, strings spliced
//! around an expression (`` `{"hashed_password":"` + string(p) + `"}` ``,
//! `` `+sess.Token+` ``), key prefixes being concatenated
//! (`"@limitPasswordResetEmail_" + id`, Elixir's `"&_csrf_token=" <> …`),
//! string templates of variables alone (`"$username:$password"`; not
//! Authelia's `$plaintext$secret`, a scheme and its secret), an OAuth
//! provider's `authorization: "https://…"`, a header in an HTML cell
//! (`<td>Authorization: TOKEN</td>`), NTLM's signature alone
//! (`"Authorization: NTLM TlRMTVNTUAAD"`), an unlisted scheme before a
//! word (`Authorization: Non-existent testtoken`; decision: the word after
//! such a scheme is judged as the credential when it ends the value, so
//! `Custom-Scheme <token>` masks the token), minified code's comparisons
//! and compound assignments (`n.config.secret===void 0`, `e.password+=w`),
//! a one-letter variable's member that reads as words
//! (`Object(s.OAS3ComponentWrapFactory)`, not a legacy Vault token), Go
//! error variables (`ErrMustBeSystemAndHidden`), Ruby durations
//! (`reset_password_within = 6.hours`), `printf` fields (`errcode=%d`),
//! generator field specs (`password:string:redact`), a call or a closure
//! under a cookie's name (`Cookie.Builder().build()`; no cookie value holds
//! a space), a WebAuthn credential's id (64 bytes in base64 after an id's
//! name, the shape of an Azure storage key), ffmpeg's filter options
//! (`eof_action=pass:repeatlast=0`: a word right after `=` is no name),
//! render passes (`hwScaleFilterFirstPass`), nginx's `fastcgi_pass`,
//! `uwsgi_pass`, `scgi_pass`, `grpc_pass` and `memcached_pass` (an address;
//! decision: not `proxy_pass`, which as `PROXY_PASS` is a proxy's password,
//! while nginx's values are URLs, `$scheme://$host` included) and runs of `A`s padding test
//! data where a Twitter bearer token's 20 `A`s would open. In the AWS
//! CLI's examples: 40 characters of a path or an ARN (a file's extension
//! after them, or `arn:` opening their word) are no secret access key;
//! a flag's option list (`--secret id=npm_token,src=.npmrc`,
//! `--token-validity-units AccessToken=hours,IdToken=minutes`; decision:
//! with capitalised keys, which also name secrets, only when every value is
//! a setting: `true`, `false`, a number or a word); lock, change, starting
//! and sequence tokens (concurrency, pagination and ordering). Names whose
//! last word is `basename`, `filename` or `dirname` name a file
//! (`testHtpasswdFileBasename = "authtest.htpasswd"`).
//! Found in JavaScript bundles and `gcloud`'s help (174 MB and 8 MB on a
//! build machine): cloud resource names (`--kms-key=projects/*/locations/*/
//! keyRings/*/cryptoKeys/*`, `projects/p/secrets/s/versions/3`: collections
//! of words and short ids in turn), a compiler's pass (`--pass=early`:
//! decision, a word given to a bare `--pass`/`-pass` flag is no password, a
//! random value still is), `cargo login command` (a registry token is never
//! a word), words joined by escaped line breaks inside a JSON string
//! (`--token option\nor`), a shell's required-variable message and
//! alternative (`${DB_PASSWORD:?missing}`, `${TOKEN:+--token}`), and
//! vendor prefixes inside base64 blobs (fonts, search indexes): Square's
//! `EAAA`, Twitter's `AAAA…`, JFrog, Alibaba `LTAI` and ClickHouse `4b1d`
//! take `/`, `+` (and `=` after) as token bytes, as Facebook's `EAA` did,
//! and a generic name that is a piece of a random run with a digit (a `PwD`
//! inside a blob, before `==`) is no name. Decision: a trailing `$VAR`
//! stays a reference only after nothing, a separator or a word
//! (`anonymous:$FROM_EMAIL`), not after random characters
//! (`'WxYLwx72$TVDPH'` is a password), and a `#` inside a URL's password
//! belongs to it (`mongodb+srv://admin:pa#ss@…`). Found in `/etc`'s
//! configuration: the `passwd` database's modules in `/etc/nsswitch.conf`
//! (`passwd: files systemd`) are no password.
//!
//! Environment values that are placeholders, plain numbers or absolute paths
//! (e.g. `GNOME_KEYRING_CONTROL=/run/user/1000/keyring`) are not registered,
//! since masking them everywhere would only hide ordinary text.
//!
//! # Guarantees and limits
//!
//! * **Idempotent**: a marker never matches a rule; keyword hits inside
//!   markers are ignored, markers bound rule windows like line breaks, and a
//!   match that overlaps or touches a marker is dropped. A match that was
//!   rejected on a line where something else got masked is looked at again
//!   the way a second pass would see it (the masked spans as markers), and a
//!   rejected match is searched again from just after its start, so that
//!   redacting the output again finds nothing new.
//! * **Streaming equals one-shot, always.** Text is judged in canonical
//!   *rounds* of about [`RedactorBuilder::block_size`] bytes (1 MiB): a round
//!   cuts at the last position of its block that no rule window, known value
//!   or marker spans (text on either side of such a cut is judged exactly as
//!   it would be together). Where a chain of windows is longer than a block
//!   (a 200 MB keyword-dense line), the round cuts at a fixed place (the last
//!   line start in the block's second half, else the block's end) and looks
//!   past it and the next round looks back before it by the widest window
//!   (~80 KiB with the built-in rules), so every window around the cut is
//!   seen whole; a span that crosses the cut is masked whole. One-shot
//!   redaction of a long text makes the very same rounds, so
//!   [`Redactor::redact_stream`] gives byte for byte what
//!   [`Redactor::redact_bytes`] gives, whatever the reads return, and holds
//!   about one round plus two windows in memory (a few MiB). The stream reads
//!   each byte once and looks at the bytes past a safe cut again in the next
//!   round only.
//! * **Several threads, same output.** With [`RedactorBuilder::threads`] (or
//!   [`Redactor::with_threads`]) above 1, a long text is judged in batches
//!   of that many rounds at once: each round after a batch's first starts
//!   where the round before it is *predicted* to cut — the cut found on the
//!   text near that round's end only (its last 16 KiB plus the windows
//!   that can reach them: the 64 KiB of the PEM rules only where their
//!   keywords are), which is where a safe cut nearly always lies.
//!   When the round before it is done, a round whose start was mispredicted
//!   is dropped and judged again from the real cut, so every thread count
//!   gives the rounds one thread makes. Text whose cuts cannot be predicted
//!   (keyword-dense stretches without a safe cut) goes back to one round at
//!   a time for a few batches. The threads start at the first batch that
//!   needs them and last for the whole text. The default is 1 thread: a library does not
//!   start threads unasked; `toolexec redact` uses the CPUs it may use, at
//!   most 4. Memory grows by about one round per thread.
//! * **Memory of keyword-dense text.** A round's memory grows with its
//!   keyword hits: a 1 MiB round of a line without a break that names a
//!   keyword every few bytes holds 150 000 to 1 000 000 hits (a structured
//!   log or JSON responses hold 30 000 to 70 000). Each hit takes 12 bytes
//!   (a 32-bit offset in the round), the scanner's lanes hold one 128 KiB
//!   piece's hits at a time, not a quarter round's, the windows that block
//!   cuts are merged as they come (one interval for such a line, not one
//!   per hit) and a window with many rejected matches is recorded once. The
//!   keyword starts of prefixed rules are kept as 32-bit offsets in the
//!   round, grouped by rule (4 bytes a start and rule, not a 16-byte pair
//!   and a sort buffer: a line of `AKIA AKIA …` held 8 + 8 MB of them per
//!   round), and so are the windows that follow a hit's line (12 bytes, not
//!   24), the guard words (8, not 16) and the pieces the second look
//!   remembers (12); the second look remembers only the pieces that a
//!   later window of the same rule may hold again (a long line has one
//!   window per rule: none, where it kept hundreds of thousands, 5 MB per
//!   round of `token=Ab3dEf9hJk …`). Hence [`RedactorBuilder::block_size`]
//!   is at most 1 GiB. Peak RSS of `toolexec redact < file` on 40 MB lines,
//!   1 / 2 / 4 threads: `token_count=3 key_id=k7 secret_name=db ` (a
//!   `password=` every 64 KiB) 20 / 27 / 41 MB (was 42 / 73 / 135 with a
//!   window per hit, then 25 / 37 / 57 with 16-byte hits); `token …` 22 / 31 / 51,
//!   `key=value …` 21 / 31 / 48, `password=hunter2 …` 26 / 36 / 50, `AKIA
//!   …` 23 / 32 / 51, `token=Ab3dEf9hJk …` 24 / 33 / 44, `lftp …` 21 / 28 /
//!   42, `pw=Ab3dEf9hJk …` 24 / 32 / 39, `"token":"Ab3dEf9hJk",…` 22 / 29 /
//!   43 (those were 24–35, 37–55 and 49–78 MB). Decision:
//!   threads are not held back on such text (judging dense rounds one at a
//!   time across threads, tried, halved their speed on 2 threads and did
//!   not lower the peak of the structured line). The words that line-level
//!   guards look for (`value`, `</`, `"name"`) are kept by guard, so asking
//!   a window for one guard's word never walks the others': on a line of
//!   `key=value …` every hit walked the window's `value` words looking for
//!   `</` (2 177 → 833 M instructions per MB). A line of secrets
//!   (`password=hunter2 …`, one per 17 bytes) still costs ~31 000
//!   instructions per secret (~4 MB/s), the value checks of each.
//! * **No keyword makes a line quadratic.** Every built-in keyword repeated
//!   on a 1 MB line (`K `, `K=Ab3dEf9hJk `) runs at 3.7 MB/s or more (test
//!   sweep, one thread). Three things were quadratic there, each reading the
//!   rest of a long line's window (up to 8 KiB, or the whole round) once per
//!   hit: the `Run` guard of the AWS secret rule (`AKIA AKIA …`, 0.5 MB/s)
//!   now reads the round's runs of token bytes, found once, for windows
//!   longer than 512 bytes; a prefixed rule that reads across words
//!   (`lftp[^\n|;&]*?-u …`, `nmcli`, `sshpass`, `sqlplus`, … 18 command
//!   rules, 0.01–0.1 MB/s) with more than 16 starts in a window is searched
//!   for over the window once instead of run at each start (the search is
//!   what the anchored runs stand for: same matches, same order; a property
//!   test compares both); and the searches restarted after a rejected match
//!   stop after 1 MiB of rejected matches as well as after 256 restarts
//!   (`::add-mask:: ::add-mask:: …`, each a match to the end of the round:
//!   0.09 → 10 MB/s). A line of name bytes only (`passwordpassword…`,
//!   `keykeykey…`: 0.8–1.7 MB/s) walked back from every hit to its window's
//!   start for the name's start; the walk now starts where the previous
//!   hit's ended (hits come in order and window starts never go back):
//!   10–20 MB/s. A value after `name:` (`secret: v secret: v …`) was
//!   judged a type or a grep line number from the rest of its line, found
//!   anew for each value (half the instructions of such a line: 2 MB/s);
//!   what that judgement reads is a word, its blanks and 11 bytes, and
//!   only that much of the line is looked at now (8 MB/s; 12 keywords ×
//!   14 shapes of `name: value` on 1 MB lines: 4.4 MB/s or more, linear).
//! * **Reading ahead** ([`RedactorBuilder::read_ahead`], off by default): a
//!   stream on several threads reads the next batch's input while a batch
//!   is judged (about one more round per thread in memory): where a CPU is
//!   left beside its threads, workers judge every round of the batch
//!   meanwhile; elsewhere the calling thread judges the first round and
//!   reads while it waits for the workers' rounds. Only for readers that
//!   never wait long for data: a pipe's judged output would wait for its
//!   next input. `toolexec redact` turns it on when its standard input is a
//!   regular file it cannot map.
//! * **Text already in memory** ([`Redactor::redact_slice_to`], and
//!   one-shot redaction of a long text): the same rounds judged straight
//!   from the slice, without batches: each worker given a round first
//!   predicts where it cuts and says so, so that an idle worker starts the
//!   next round at once, and the calling thread writes the rounds in order,
//!   each only if it starts where the one before really cut (otherwise it
//!   and the rounds after it are judged again, and the next few one at a
//!   time). No worker waits for a batch's slowest round or for its writes
//!   (100 MB inputs, 2 threads, `toolexec redact < file`, 10 alternated
//!   runs, median: keyword-free log 694 → 731 MB/s, Rust sources 485 →
//!   532, structured log 263 → 299, JSON 173 → 187). A callback tells how
//!   much of the slice will not be read again. Nothing is copied into a stream buffer and no batch
//!   waits for a read: `toolexec redact` maps a regular file on its standard
//!   input and drops the pages of written rounds as it goes (100 MB inputs,
//!   2 threads, alternated runs: 1–11 % faster than reading ahead, the same
//!   peak memory within 2 MB).
//! * A round reads past its highest cut only as far as a window starting
//!   before that cut can reach: one context (the widest window plus line
//!   reach) where a keyword of a rule with a window wider than 8 KiB is
//!   near, the short context (~25 KiB) elsewhere; the rounds, and so the
//!   output, are those of the whole context (test).
//! * **Secret-preserving edits**: [`Redactor::redact_bytes_masked`] returns
//!   every masked span ([`Masked`]: its place in the input, the place of its
//!   marker in the output, the rule id and the original bytes), so that a
//!   tool can map the view a model saw back to the file (toolexec-tools'
//!   `edit` and `write` do).
//! * Spans never split a UTF-8 character; [`Redactor::redact_bytes`] passes
//!   invalid UTF-8 through untouched.
//! * A user rule without keywords runs on every line (slower): give keywords.
//! * Secrets with no distinctive format and no telling name or context (a bare
//!   random password in prose) are not found; neither is a secret broken by
//!   more than one line break.
//! * Under token/key names, a value of letters only must look random: one
//!   that reads as words (16 letters or more: each piece between capitals
//!   with a vowel and no run of four consonants) passes for an identifier.
//!   Random letters read so by chance: of random 16–40-letter values, ~4 %
//!   with one capital in four, ~0.5 % with capitals as often as not and
//!   ~17 % in one case are left (test); a one-case value of fewer than 20
//!   letters always is. After a short vendor prefix (`aio_`, …), a body
//!   passes for an identifier only when it also reads as long words (words
//!   of four letters or more make up 60 % of it: `createConnection2PoolManager`),
//!   so a random key whose letters read as words by chance
//!   (`aio_hciJDaQhfwDeRBVynkTgyWgyONS6`) is still masked.
//!
//! # Features
//!
//! * `rule-files` (default): TOML and JSON rule files (`serde`, `serde_json`, `toml`).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builtin;
mod checks;
mod error;
#[cfg(feature = "rule-files")]
mod file;
mod known;
mod quick;
mod read_ahead;
mod redactor;
mod resume;
mod rule;
mod scan;

pub use error::Error;
pub use known::{env_name_words, is_secret_env_name, NOT_SECRET_NAMES, SECRET_NAME_WORDS};
pub use read_ahead::ReadAhead;
pub use redactor::{
    Finding, Masked, RedactStats, Redactor, RedactorBuilder, StreamOptions, ENV_SECRET_ID,
    KNOWN_VALUE_ID,
};
pub use rule::{Rule, RuleBuilder, RuleSet, SecretGroup};
