//! A conservative read-only classifier for shell commands.
//!
//! [`classify`] decides whether a command line for `sh -c` only reads:
//! exec uses it for [`Tool::concurrency_safe`](toolexec_core::Tool::concurrency_safe),
//! and embedders can reuse it for their own shell tools. The answer errs
//! towards "not safe": anything the classifier does not understand is not
//! read-only.
//!
//! ```
//! use toolexec_tools::shell::{classify, is_read_only, NotReadOnly};
//!
//! assert!(is_read_only("ls -la"));
//! assert!(is_read_only("cat a | grep x && git status 2>/dev/null"));
//! assert!(!is_read_only("echo hi > x"));
//! assert!(!is_read_only("sed -i s/a/b/ f"));
//! assert_eq!(
//!     classify("cargo build"),
//!     Err(NotReadOnly::UnknownProgram("cargo".to_string()))
//! );
//! ```
//!
//! # What counts as read-only
//!
//! The command is cut into simple commands at `;`, `&&`, `||`, `|` and
//! newlines. It is read-only when every simple command
//!
//! - starts with the bare name (no `/`, no expansion) of a known reading
//!   program, with arguments that do not make it write or run anything:
//!   - any arguments: `cat`, `ls`, `head`, `tail`, `wc`, `echo`, `printf`,
//!     `sleep`, `pwd`, `cd`, `true`, `false`, `test`, `[`, `:`, `stat`,
//!     `du`, `df`, `basename`, `dirname`, `realpath`, `readlink`, `nl`,
//!     `cut`, `tr`, `rev`, `tac`, `column`, `fold`, `paste`, `join`,
//!     `expand`, `unexpand`, `diff`, `cmp`, `comm`, `md5sum`, `sha1sum`,
//!     `sha256sum`, `sha512sum`, `b2sum`, `cksum`, `od`, `hexdump`,
//!     `strings`, `seq`, `whoami`, `id`, `uname`, `which`, `printenv`,
//!     `nproc`, `grep`, `egrep`, `fgrep`, `jq`;
//!   - `find` without `-delete`, `-exec`, `-execdir`, `-ok`, `-okdir`,
//!     `-fprint`, `-fprint0`, `-fprintf`, `-fls`;
//!   - `fd` without `-x`/`--exec`/`-X`/`--exec-batch`;
//!   - `rg` without `--pre` or `--hostname-bin` (which run programs);
//!   - `sed` without `-i`/`--in-place` or `-f`, whose script has no `w`,
//!     `W` or `e` command and no `s` with the `w` or `e` flag;
//!   - `sort` without `-o`/`--output`, `-T`, `--compress-program`;
//!   - `uniq` with at most one file (a second one is written);
//!   - `tee` with no file other than `/dev/null`;
//!   - `date` without `-s`/`--set`;
//!   - `git` (no global option but `--no-pager`, `-C DIR`, `-P`) with
//!     `status`, `log`, `diff`, `show`, `blame`, `rev-parse`, `ls-files`
//!     (without `--output`, `--ext-diff`), or `branch` only listing
//!     (flags such as `-a`, `-r`, `-v`, `--show-current`; a name only after
//!     `--list`/`-l`);
//!   - `xargs` with known options, running a command that is read-only
//!     with unknown arguments appended;
//! - has no variable assignment prefix (`X=1 ls`; `env X=1 ls` is not
//!   known either);
//! - redirects output only to `/dev/null` (`>`, `>>`, `>|`, `&>`, `<>`)
//!   or to another descriptor (`2>&1`); input (`<`) and here-documents
//!   (`<<EOF`, whose body holds no `$(…)` or backquote unless the
//!   delimiter is quoted) are fine;
//! - has no command or process substitution (`$(…)`, backquotes,
//!   `<(…)`), no subshell or group, no background `&`, no keyword (`if`,
//!   `for`, …).
//!
//! Long options are matched by prefix, as GNU tools and git accept
//! unambiguous abbreviations (`sort --out=f` is `--output`). For the
//! programs whose flags matter, an argument the classifier cannot know
//! (`$VAR`, a glob starting with `*`, `?`, `[` or a word starting with
//! `{`, which may expand into an option) makes the command not read-only.
//!
//! Not covered, by design: a repository's own git configuration (a
//! `core.fsmonitor` or `diff.external` program runs on `git status` and
//! `git diff`), a `PATH` that finds a workspace program before the system
//! one, and reads of devices or FIFOs that block. `git status` refreshes
//! `.git/index`, which the snapshot skips.
//!
//! # Bounds
//!
//! One pass over the text, no recursion except for `xargs` (at most 4
//! deep): linear time, never a panic. Commands longer than
//! [`MAX_COMMAND_LEN`] bytes are not read-only.

use std::fmt;

/// Commands longer than this (in bytes) are not classified: not read-only.
pub const MAX_COMMAND_LEN: usize = 64 * 1024;

/// How deeply `xargs` may wrap another `xargs`.
const MAX_XARGS_DEPTH: usize = 4;

/// Why a command is not read-only.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotReadOnly {
    /// The command is empty or only a comment.
    Empty,
    /// The command is longer than [`MAX_COMMAND_LEN`] bytes.
    TooLong(usize),
    /// Shell syntax the classifier does not read (unbalanced quotes,
    /// subshells, keywords' syntax, background jobs, …).
    Unsupported(&'static str),
    /// `$(…)`, a backquote or `<(…)`/`>(…)`.
    Substitution,
    /// A variable assignment before the command (`X=1 ls`).
    Assignment(String),
    /// Output redirected to this target other than `/dev/null`.
    Redirect(String),
    /// The program is not a known reading program (or not a bare name).
    UnknownProgram(String),
    /// The program is known but this argument makes it write or run
    /// something, or cannot be known before the shell expands it.
    WritingArgument {
        /// The program.
        program: String,
        /// The argument at fault, as the shell would pass it.
        argument: String,
    },
}

impl fmt::Display for NotReadOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotReadOnly::Empty => f.write_str("empty command"),
            NotReadOnly::TooLong(len) => {
                write!(f, "command of {len} bytes is longer than {MAX_COMMAND_LEN}")
            }
            NotReadOnly::Unsupported(what) => write!(f, "unsupported shell syntax: {what}"),
            NotReadOnly::Substitution => f.write_str("command or process substitution"),
            NotReadOnly::Assignment(word) => write!(f, "variable assignment {word}"),
            NotReadOnly::Redirect(target) => write!(f, "output redirected to {target}"),
            NotReadOnly::UnknownProgram(name) => write!(f, "{name} is not a known reading program"),
            NotReadOnly::WritingArgument { program, argument } => {
                write!(f, "{program} with argument {argument} may write")
            }
        }
    }
}

impl std::error::Error for NotReadOnly {}

/// Whether `command` is recognised as read-only (see the [module docs](self)).
pub fn is_read_only(command: &str) -> bool {
    classify(command).is_ok()
}

/// `Ok(())` when `command` is recognised as read-only, else the first
/// reason it is not (see the [module docs](self)).
pub fn classify(command: &str) -> Result<(), NotReadOnly> {
    if command.len() > MAX_COMMAND_LEN {
        return Err(NotReadOnly::TooLong(command.len()));
    }
    let mut lexer = Lexer::new(command.as_bytes());
    let mut words: Vec<Word> = Vec::new();
    let mut commands = 0usize;
    // Whether the last separator needs a command after it (`&&`, `||`, `|`).
    let mut need_more = false;
    loop {
        let token = lexer.next()?;
        match token {
            Token::Word(word) => words.push(word),
            Token::Redirect(op) => {
                let Token::Word(target) = lexer.next()? else {
                    return Err(NotReadOnly::Unsupported("redirection without a target"));
                };
                redirect(op, target, &mut lexer)?;
            }
            Token::Sep(sep) => {
                if words.is_empty() {
                    if sep == Sep::Newline {
                        // A newline may follow `&&`, `||` and `|`.
                        continue;
                    }
                    return Err(NotReadOnly::Unsupported("empty command"));
                } else {
                    simple_command(&words, 0)?;
                    commands += 1;
                    words.clear();
                }
                need_more = matches!(sep, Sep::And | Sep::Or | Sep::Pipe);
            }
            Token::End => {
                if words.is_empty() {
                    if need_more {
                        return Err(NotReadOnly::Unsupported("missing command after operator"));
                    }
                } else {
                    simple_command(&words, 0)?;
                    commands += 1;
                }
                return if commands == 0 {
                    Err(NotReadOnly::Empty)
                } else {
                    Ok(())
                };
            }
        }
    }
}

/// One word after quote removal.
#[derive(Debug, Default)]
struct Word {
    /// The text the program would get (expansions left as written).
    text: String,
    /// Holds a parameter expansion, or may expand (glob, brace) into a
    /// word starting with `-`.
    opaque: bool,
    /// Any part was quoted or escaped.
    quoted: bool,
    /// Starts with an unquoted `NAME=`.
    assignment: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    Semi,
    Newline,
    And,
    Or,
    Pipe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redir {
    /// `<`
    In,
    /// `<&`
    InDup,
    /// `<<` (true: `<<-`)
    HereDoc(bool),
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`
    Out,
    /// `>&`
    OutDup,
}

#[derive(Debug)]
enum Token {
    Word(Word),
    Redirect(Redir),
    Sep(Sep),
    End,
}

struct HereDoc {
    delimiter: Vec<u8>,
    quoted: bool,
    strip_tabs: bool,
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    pending: Vec<HereDoc>,
}

fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'
    )
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Lexer<'a> {
    fn new(s: &'a [u8]) -> Self {
        Lexer {
            s,
            pos: 0,
            pending: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.pos + ahead).copied()
    }

    fn next(&mut self) -> Result<Token, NotReadOnly> {
        // Blanks, line continuations and comments.
        loop {
            match self.peek(0) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    while let Some(b) = self.peek(0) {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(b) = self.peek(0) else {
            if !self.pending.is_empty() {
                return Err(NotReadOnly::Unsupported("here-document without a body"));
            }
            return Ok(Token::End);
        };
        let two = self.peek(1);
        let three = self.peek(2);
        let (token, len) = match b {
            b'\n' => {
                self.pos += 1;
                self.here_doc_bodies()?;
                return Ok(Token::Sep(Sep::Newline));
            }
            b';' if two == Some(b';') => return Err(NotReadOnly::Unsupported("`;;`")),
            b';' => (Token::Sep(Sep::Semi), 1),
            b'&' if two == Some(b'&') => (Token::Sep(Sep::And), 2),
            b'&' if two == Some(b'>') && three == Some(b'>') => (Token::Redirect(Redir::Out), 3),
            b'&' if two == Some(b'>') => (Token::Redirect(Redir::Out), 2),
            b'&' => return Err(NotReadOnly::Unsupported("background `&`")),
            b'|' if two == Some(b'|') => (Token::Sep(Sep::Or), 2),
            b'|' if two == Some(b'&') => return Err(NotReadOnly::Unsupported("`|&`")),
            b'|' => (Token::Sep(Sep::Pipe), 1),
            b'<' | b'>' if two == Some(b'(') => return Err(NotReadOnly::Substitution),
            b'<' if two == Some(b'<') && three == Some(b'<') => {
                return Err(NotReadOnly::Unsupported("here-string `<<<`"))
            }
            b'<' if two == Some(b'<') && three == Some(b'-') => {
                (Token::Redirect(Redir::HereDoc(true)), 3)
            }
            b'<' if two == Some(b'<') => (Token::Redirect(Redir::HereDoc(false)), 2),
            b'<' if two == Some(b'&') => (Token::Redirect(Redir::InDup), 2),
            b'<' if two == Some(b'>') => (Token::Redirect(Redir::Out), 2),
            b'<' => (Token::Redirect(Redir::In), 1),
            b'>' if two == Some(b'>') || two == Some(b'|') => (Token::Redirect(Redir::Out), 2),
            b'>' if two == Some(b'&') => (Token::Redirect(Redir::OutDup), 2),
            b'>' => (Token::Redirect(Redir::Out), 1),
            b'(' | b')' => return Err(NotReadOnly::Unsupported("subshell")),
            _ => return self.word(),
        };
        self.pos += len;
        Ok(token)
    }

    /// Reads one word; `pos` is at its first byte, which is not a blank or
    /// an operator.
    fn word(&mut self) -> Result<Token, NotReadOnly> {
        let start = self.pos;
        let mut text: Vec<u8> = Vec::new();
        let mut word = Word::default();
        // Whether everything so far is an unquoted name (for `NAME=`).
        let mut name_so_far = true;
        while let Some(b) = self.peek(0) {
            if is_meta(b) {
                break;
            }
            let at_start = self.pos == start;
            match b {
                b'\\' => {
                    name_so_far = false;
                    word.quoted = true;
                    match self.peek(1) {
                        Some(b'\n') => {}
                        Some(next) => text.push(next),
                        None => return Err(NotReadOnly::Unsupported("trailing backslash")),
                    }
                    self.pos += 2;
                }
                b'\'' => {
                    name_so_far = false;
                    word.quoted = true;
                    self.pos += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err(NotReadOnly::Unsupported("unbalanced quote")),
                            Some(b'\'') => break,
                            Some(c) => text.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                b'"' => {
                    name_so_far = false;
                    word.quoted = true;
                    self.pos += 1;
                    loop {
                        match self.peek(0) {
                            None => return Err(NotReadOnly::Unsupported("unbalanced quote")),
                            Some(b'"') => break,
                            Some(b'`') => return Err(NotReadOnly::Substitution),
                            Some(b'\\') => match self.peek(1) {
                                Some(b'\n') => self.pos += 1,
                                Some(c @ (b'$' | b'`' | b'"' | b'\\')) => {
                                    text.push(c);
                                    self.pos += 1;
                                }
                                _ => text.push(b'\\'),
                            },
                            Some(b'$') => {
                                if self.dollar(&mut text)? {
                                    word.opaque = true;
                                }
                                continue;
                            }
                            Some(c) => text.push(c),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                b'`' => return Err(NotReadOnly::Substitution),
                b'$' => {
                    name_so_far = false;
                    if self.dollar(&mut text)? {
                        word.opaque = true;
                    }
                }
                b'=' if name_so_far && !text.is_empty() => {
                    word.assignment = true;
                    name_so_far = false;
                    text.push(b);
                    self.pos += 1;
                }
                _ => {
                    if at_start && matches!(b, b'*' | b'?' | b'[' | b'{') {
                        word.opaque = true;
                    }
                    if name_so_far
                        && !(if text.is_empty() {
                            is_name_start(b)
                        } else {
                            is_name_char(b)
                        })
                    {
                        name_so_far = false;
                    }
                    text.push(b);
                    self.pos += 1;
                }
            }
        }
        // An IO number (`2>…`) belongs to the redirection that follows.
        if !word.quoted
            && !text.is_empty()
            && text.iter().all(|b| b.is_ascii_digit())
            && matches!(self.peek(0), Some(b'<' | b'>'))
        {
            return self.next();
        }
        word.text = String::from_utf8_lossy(&text).into_owned();
        Ok(Token::Word(word))
    }

    /// `pos` is at a `$`. Pushes a literal `$` and returns false, or skips
    /// a parameter expansion (keeping its text) and returns true.
    fn dollar(&mut self, text: &mut Vec<u8>) -> Result<bool, NotReadOnly> {
        match self.peek(1) {
            Some(b'(') => Err(NotReadOnly::Substitution),
            Some(b'{') => {
                // Only `${NAME}`: anything else inside braces may hide
                // quotes, operators or substitutions.
                let mut end = self.pos + 2;
                while self.s.get(end).is_some_and(|&c| is_name_char(c)) {
                    end += 1;
                }
                if end == self.pos + 2 || self.s.get(end) != Some(&b'}') {
                    return Err(NotReadOnly::Unsupported("parameter expansion `${…}`"));
                }
                text.extend_from_slice(&self.s[self.pos..=end]);
                self.pos = end + 1;
                Ok(true)
            }
            Some(c) if is_name_start(c) => {
                let mut end = self.pos + 1;
                while self.s.get(end).is_some_and(|&c| is_name_char(c)) {
                    end += 1;
                }
                text.extend_from_slice(&self.s[self.pos..end]);
                self.pos = end;
                Ok(true)
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => {
                text.extend_from_slice(&self.s[self.pos..self.pos + 2]);
                self.pos += 2;
                Ok(true)
            }
            // bash's `$'…'` and `$"…"` decode escapes the classifier
            // does not follow.
            Some(b'\'' | b'"') => {
                text.push(b'$');
                self.pos += 1;
                Ok(true)
            }
            _ => {
                text.push(b'$');
                self.pos += 1;
                Ok(false)
            }
        }
    }

    /// After a newline: skips the bodies of the here-documents opened on
    /// the line just ended.
    fn here_doc_bodies(&mut self) -> Result<(), NotReadOnly> {
        for doc in std::mem::take(&mut self.pending) {
            loop {
                if self.pos >= self.s.len() {
                    return Err(NotReadOnly::Unsupported("unterminated here-document"));
                }
                let rest = &self.s[self.pos..];
                let line_len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                let mut line = &rest[..line_len];
                self.pos += (line_len + 1).min(rest.len());
                if doc.strip_tabs {
                    while let [b'\t', tail @ ..] = line {
                        line = tail;
                    }
                }
                if line == doc.delimiter.as_slice() {
                    break;
                }
                if !doc.quoted && line.contains(&b'`') {
                    return Err(NotReadOnly::Substitution);
                }
                if !doc.quoted && line.windows(2).any(|w| w == b"$(") {
                    return Err(NotReadOnly::Substitution);
                }
            }
        }
        Ok(())
    }
}

fn redirect(op: Redir, target: Word, lexer: &mut Lexer<'_>) -> Result<(), NotReadOnly> {
    match op {
        Redir::In => Ok(()),
        Redir::InDup | Redir::OutDup
            if !target.opaque
                && (target.text == "-"
                    || (!target.text.is_empty()
                        && target.text.bytes().all(|b| b.is_ascii_digit()))) =>
        {
            Ok(())
        }
        Redir::InDup => Err(NotReadOnly::Unsupported("`<&` to a file")),
        Redir::Out | Redir::OutDup => {
            if !target.opaque && target.text == "/dev/null" {
                Ok(())
            } else {
                Err(NotReadOnly::Redirect(target.text))
            }
        }
        Redir::HereDoc(strip_tabs) => {
            if target.opaque || target.text.is_empty() {
                return Err(NotReadOnly::Unsupported("here-document delimiter"));
            }
            lexer.pending.push(HereDoc {
                delimiter: target.text.into_bytes(),
                quoted: target.quoted,
                strip_tabs,
            });
            Ok(())
        }
    }
}

/// Programs whose arguments never make them write or run anything.
const PURE: &[&str] = &[
    ":",
    "[",
    "b2sum",
    "basename",
    "cat",
    "cd",
    "cksum",
    "cmp",
    "column",
    "comm",
    "cut",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "expand",
    "false",
    "fgrep",
    "fold",
    "grep",
    "head",
    "hexdump",
    "id",
    "join",
    "jq",
    "ls",
    "md5sum",
    "nl",
    "nproc",
    "od",
    "paste",
    "printenv",
    "printf",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "seq",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "sleep",
    "stat",
    "strings",
    "tac",
    "tail",
    "test",
    "tr",
    "true",
    "uname",
    "unexpand",
    "wc",
    "which",
    "whoami",
];

fn simple_command(words: &[Word], depth: usize) -> Result<(), NotReadOnly> {
    let Some((name, args)) = words.split_first() else {
        return Ok(());
    };
    if name.assignment {
        return Err(NotReadOnly::Assignment(name.text.clone()));
    }
    let program = name.text.as_str();
    if name.opaque || program.is_empty() || program.contains('/') {
        return Err(NotReadOnly::UnknownProgram(name.text.clone()));
    }
    if PURE.contains(&program) {
        return Ok(());
    }
    let check: fn(&[Word]) -> Result<(), Fault> = match program {
        "find" => find,
        "fd" => fd,
        "rg" => rg,
        "sed" => sed,
        "sort" => sort,
        "uniq" => uniq,
        "tee" => tee,
        "date" => date,
        "git" => git,
        "xargs" => {
            return xargs(args, depth);
        }
        _ => return Err(NotReadOnly::UnknownProgram(name.text.clone())),
    };
    check(args).map_err(|fault| NotReadOnly::WritingArgument {
        program: program.to_string(),
        argument: fault.0,
    })
}

/// The argument that makes a command write.
struct Fault(String);

fn fault(word: &Word) -> Fault {
    Fault(word.text.clone())
}

/// Fails on the first argument the shell may expand into anything.
fn known(args: &[Word]) -> Result<(), Fault> {
    match args.iter().find(|w| w.opaque) {
        Some(w) => Err(fault(w)),
        None => Ok(()),
    }
}

/// Whether `arg` is `--NAME` or `--NAME=…` where NAME is an abbreviation
/// of one of `long` (GNU tools and git accept unambiguous prefixes).
fn long_matches(arg: &str, long: &[&str]) -> bool {
    let Some(name) = arg.strip_prefix("--") else {
        return false;
    };
    let name = name.split('=').next().unwrap_or(name);
    !name.is_empty() && long.iter().any(|l| l.starts_with(name))
}

/// The letters of a short-option cluster (`-nE` → `nE`).
fn short_cluster(arg: &str) -> Option<&str> {
    arg.strip_prefix('-')
        .filter(|rest| !rest.is_empty() && !rest.starts_with('-'))
}

fn find(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    const WRITING: &[&str] = &[
        "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    match args.iter().find(|w| WRITING.contains(&w.text.as_str())) {
        Some(w) => Err(fault(w)),
        None => Ok(()),
    }
}

fn fd(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    for w in args {
        if w.text == "--" {
            break;
        }
        let bad = long_matches(&w.text, &["exec", "exec-batch"])
            || short_cluster(&w.text).is_some_and(|c| c.contains(['x', 'X']));
        if bad {
            return Err(fault(w));
        }
    }
    Ok(())
}

fn rg(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    for w in args {
        if w.text == "--" {
            break;
        }
        // ripgrep takes no abbreviations, but `--pre` and its prefixes
        // are refused all the same.
        if long_matches(&w.text, &["pre", "hostname-bin"]) || w.text.starts_with("--pre") {
            return Err(fault(w));
        }
    }
    Ok(())
}

fn sort(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    for w in args {
        if w.text == "--" {
            break;
        }
        let bad = long_matches(
            &w.text,
            &["output", "compress-program", "temporary-directory"],
        ) || short_cluster(&w.text).is_some_and(|c| c.contains(['o', 'T']));
        if bad {
            return Err(fault(w));
        }
    }
    Ok(())
}

fn uniq(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    let mut files = 0;
    let mut iter = args.iter();
    let mut options = true;
    while let Some(w) = iter.next() {
        let t = w.text.as_str();
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with('-') && t.len() > 1 {
            // -f N, -s N, -w N take a value, attached or next.
            if let Some(c) = short_cluster(t) {
                if let Some(i) = c.find(['f', 's', 'w']) {
                    if i + 1 == c.len() {
                        iter.next();
                    }
                }
            } else if long_matches(t, &["skip-fields", "skip-chars", "check-chars"])
                && !t.contains('=')
            {
                iter.next();
            }
        } else {
            files += 1;
            if files > 1 {
                return Err(fault(w));
            }
        }
    }
    Ok(())
}

fn tee(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    let mut options = true;
    for w in args {
        let t = w.text.as_str();
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with('-') && t.len() > 1 {
            // -a, -i, -p and their long forms only change how it writes.
        } else if t != "/dev/null" {
            return Err(fault(w));
        }
    }
    Ok(())
}

fn date(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    for w in args {
        let bad = long_matches(&w.text, &["set"])
            || short_cluster(&w.text).is_some_and(|c| c.contains('s'));
        if bad {
            return Err(fault(w));
        }
    }
    Ok(())
}

fn sed(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    let mut script_given = false;
    let mut options = true;
    let mut iter = args.iter();
    while let Some(w) = iter.next() {
        let t = w.text.as_str();
        if options && t == "--" {
            options = false;
            continue;
        }
        if options && t.starts_with("--") {
            let name = t[2..].split('=').next().unwrap_or("");
            let value = t.split_once('=').map(|(_, v)| v);
            if long_matches(t, &["in-place", "file"]) {
                return Err(fault(w));
            }
            if long_matches(t, &["expression"]) {
                let script = match value {
                    Some(v) => v,
                    None => iter
                        .next()
                        .map(|w| w.text.as_str())
                        .ok_or_else(|| fault(w))?,
                };
                if !sed_script_reads(script.as_bytes()) {
                    return Err(fault(w));
                }
                script_given = true;
            } else if long_matches(t, &["line-length"]) {
                if value.is_none() {
                    iter.next();
                }
            } else if ![
                "quiet",
                "silent",
                "debug",
                "posix",
                "regexp-extended",
                "separate",
                "sandbox",
                "unbuffered",
                "null-data",
                "zero-terminated",
                "follow-symlinks",
                "binary",
                "help",
                "version",
            ]
            .iter()
            .any(|l| !name.is_empty() && l.starts_with(name))
            {
                return Err(fault(w));
            }
            continue;
        }
        if let Some(cluster) = short_cluster(t).filter(|_| options) {
            for (i, c) in cluster.char_indices() {
                match c {
                    'n' | 'r' | 'E' | 's' | 'u' | 'z' => {}
                    'e' => {
                        let rest = &cluster[i + 1..];
                        let script = if rest.is_empty() {
                            iter.next()
                                .map(|w| w.text.as_str())
                                .ok_or_else(|| fault(w))?
                        } else {
                            rest
                        };
                        if !sed_script_reads(script.as_bytes()) {
                            return Err(fault(w));
                        }
                        script_given = true;
                        break;
                    }
                    'l' => {
                        if i + 1 == cluster.len() {
                            iter.next();
                        }
                        break;
                    }
                    // -i (in place), -f (script file) and anything unknown.
                    _ => return Err(fault(w)),
                }
            }
            continue;
        }
        if !script_given {
            if !sed_script_reads(t.as_bytes()) {
                return Err(fault(w));
            }
            script_given = true;
        }
        // Otherwise an input file.
    }
    Ok(())
}

/// Whether a sed script has no command that writes a file or runs one
/// (`w`, `W`, `e`, `s///w`, `s///e`); unknown syntax counts as writing.
fn sed_script_reads(s: &[u8]) -> bool {
    let mut i = 0;
    let at = |i: usize| s.get(i).copied();
    // Skips a `DELIM…DELIM` part starting after the opening delimiter;
    // returns the index after the closing one.
    let skip_part = |mut i: usize, delim: u8| -> Option<usize> {
        loop {
            match s.get(i).copied()? {
                b'\\' => i += 2,
                c if c == delim => return Some(i + 1),
                _ => i += 1,
            }
        }
    };
    let to_line_end = |mut i: usize| -> usize {
        while let Some(c) = s.get(i).copied() {
            match c {
                b'\\' => i += 2,
                b'\n' => break,
                _ => i += 1,
            }
        }
        i
    };
    loop {
        while matches!(at(i), Some(b' ' | b'\t' | b'\n' | b';')) {
            i += 1;
        }
        if i >= s.len() {
            return true;
        }
        // Up to two addresses, then `!`.
        for n in 0..2 {
            match at(i) {
                Some(c) if c.is_ascii_digit() || c == b'$' || c == b'+' || c == b'~' => {
                    i += 1;
                    while at(i).is_some_and(|c| c.is_ascii_digit() || c == b'~') {
                        i += 1;
                    }
                }
                Some(b'/') => match skip_part(i + 1, b'/') {
                    Some(end) => i = end,
                    None => return false,
                },
                Some(b'\\') => match at(i + 1) {
                    Some(d) if d != b'\n' && d != b'\\' => match skip_part(i + 2, d) {
                        Some(end) => i = end,
                        None => return false,
                    },
                    _ => return false,
                },
                _ if n == 0 => break,
                _ => return false,
            }
            while matches!(at(i), Some(b'I' | b'M')) {
                i += 1;
            }
            if at(i) == Some(b',') {
                i += 1;
            } else {
                break;
            }
        }
        while matches!(at(i), Some(b' ' | b'!')) {
            i += 1;
        }
        let Some(cmd) = at(i) else {
            return false;
        };
        i += 1;
        match cmd {
            // A block opens a new command list.
            b'{' => continue,
            b'}' | b'=' | b'd' | b'D' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P'
            | b'x' | b'z' | b'F' => {}
            b'q' | b'Q' | b'l' | b'L' => {
                while matches!(at(i), Some(b' ')) {
                    i += 1;
                }
                while at(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            b':' | b'b' | b't' | b'T' => {
                while at(i).is_some_and(|c| c != b';' && c != b'\n') {
                    i += 1;
                }
            }
            // Text commands and reads run to the end of the line.
            b'a' | b'i' | b'c' | b'r' | b'R' | b'#' => i = to_line_end(i),
            b's' | b'y' => {
                let Some(delim) = at(i).filter(|&d| d != b'\\' && d != b'\n') else {
                    return false;
                };
                let Some(mid) = skip_part(i + 1, delim) else {
                    return false;
                };
                let Some(end) = skip_part(mid, delim) else {
                    return false;
                };
                i = end;
                if cmd == b's' {
                    while let Some(c) = at(i) {
                        match c {
                            b'g' | b'p' | b'i' | b'I' | b'm' | b'M' => i += 1,
                            c if c.is_ascii_digit() => i += 1,
                            b'w' | b'e' => return false,
                            _ => break,
                        }
                    }
                }
            }
            _ => return false,
        }
        while matches!(at(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        match at(i) {
            None | Some(b';' | b'\n' | b'}' | b'#') => {}
            _ => return false,
        }
    }
}

fn git(args: &[Word]) -> Result<(), Fault> {
    known(args)?;
    let mut iter = args.iter();
    // Global options: only those that change neither configuration nor
    // what runs.
    let sub = loop {
        let Some(w) = iter.next() else {
            return Ok(()); // `git` alone prints its help.
        };
        match w.text.as_str() {
            "--no-pager" | "-P" => {}
            "-C" => {
                iter.next().ok_or_else(|| fault(w))?;
            }
            t if t.starts_with('-') => return Err(fault(w)),
            _ => break w,
        }
    };
    let rest: Vec<&Word> = iter.collect();
    match sub.text.as_str() {
        "status" | "log" | "diff" | "show" | "blame" | "rev-parse" | "ls-files" => {
            for w in &rest {
                if long_matches(&w.text, &["output", "ext-diff"]) {
                    return Err(fault(w));
                }
            }
            Ok(())
        }
        "branch" => {
            let listing = rest.iter().any(|w| w.text == "--list" || w.text == "-l");
            let mut rest = rest.into_iter().peekable();
            while let Some(w) = rest.next() {
                let t = w.text.as_str();
                let name = t.split('=').next().unwrap_or(t);
                match name {
                    "-a" | "--all" | "-r" | "--remotes" | "-v" | "-vv" | "--verbose" | "-l"
                    | "--list" | "--show-current" | "--color" | "--no-color" | "--column"
                    | "--no-column" | "-i" | "--ignore-case" | "--sort" | "--format"
                    | "--abbrev" | "--no-abbrev" | "-q" | "--quiet" => {}
                    "--contains" | "--no-contains" | "--merged" | "--no-merged" | "--points-at" => {
                        // The commit is optional: git reads a next word
                        // starting with `-` as an option, and so does this.
                        if !t.contains('=') {
                            rest.next_if(|w| !w.text.starts_with('-'));
                        }
                    }
                    _ if !t.starts_with('-') && listing => {}
                    _ => return Err(fault(w)),
                }
            }
            Ok(())
        }
        _ => Err(fault(sub)),
    }
}

fn xargs(args: &[Word], depth: usize) -> Result<(), NotReadOnly> {
    let bad = |w: &Word| NotReadOnly::WritingArgument {
        program: "xargs".to_string(),
        argument: w.text.clone(),
    };
    if depth >= MAX_XARGS_DEPTH {
        return Err(NotReadOnly::Unsupported("xargs nested too deeply"));
    }
    let mut replace = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.opaque {
            return Err(bad(w));
        }
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let with_value = [
                "arg-file",
                "delimiter",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ];
            let flags = [
                "null",
                "eof",
                "replace",
                "interactive",
                "no-run-if-empty",
                "verbose",
                "exit",
                "open-tty",
                "show-limits",
            ];
            if name.is_empty() {
                return Err(bad(w));
            }
            if with_value.iter().any(|l| l.starts_with(name)) {
                if !long.contains('=') {
                    i += 1;
                }
            } else if flags.iter().any(|l| l.starts_with(name)) {
                replace |= "replace".starts_with(name);
            } else {
                return Err(bad(w));
            }
            i += 1;
            continue;
        }
        let Some(cluster) = short_cluster(t) else {
            break;
        };
        for (k, c) in cluster.char_indices() {
            match c {
                '0' | 'o' | 'p' | 'r' | 't' | 'x' => {}
                // Optional value, attached only.
                'e' | 'l' => break,
                'i' => {
                    replace = true;
                    break;
                }
                'a' | 'd' | 'E' | 'I' | 'L' | 'n' | 'P' | 's' => {
                    replace |= c == 'I';
                    if k + 1 == cluster.len() {
                        i += 1;
                    }
                    break;
                }
                _ => return Err(bad(w)),
            }
        }
        i += 1;
    }
    let inner = args.get(i..).unwrap_or(&[]);
    if inner.is_empty() {
        return Ok(()); // `echo`
    }
    // The input becomes arguments the classifier cannot know.
    let mut words: Vec<Word> = inner
        .iter()
        .enumerate()
        .map(|(k, w)| Word {
            text: w.text.clone(),
            opaque: w.opaque || (replace && k > 0),
            quoted: w.quoted,
            assignment: false,
        })
        .collect();
    words.push(Word {
        text: "ARGS…".to_string(),
        opaque: true,
        quoted: false,
        assignment: false,
    });
    simple_command(&words, depth + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_scripts() {
        for script in [
            "p",
            "s/hello/world/",
            "s/a/b/g;s|c|d|2p",
            "/x/{p;d}",
            "1,5p",
            "$!N",
            "y/abc/xyz/",
            ":a;N;ba",
            "/^#/d",
            "a\\\nfoo",
            "10q",
            "\\,x,p",
        ] {
            assert!(sed_script_reads(script.as_bytes()), "{script}");
        }
        for script in [
            "w out",
            "s/a/b/w out",
            "s/a/b/e",
            "1e date",
            "W f",
            "s/a/b",
            "k",
            "/x/",
        ] {
            assert!(!sed_script_reads(script.as_bytes()), "{script}");
        }
    }
}
