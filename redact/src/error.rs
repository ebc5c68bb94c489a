//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong while building rules or a [`Redactor`](crate::Redactor).
///
/// Redacting itself never fails (streaming can only fail with the reader's or
/// writer's own `io::Error`).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A rule id is empty or not lowercase-kebab (`[a-z0-9]+(-[a-z0-9]+)*`).
    InvalidRuleId {
        /// The offending id.
        id: String,
    },
    /// A rule's pattern (or one of its allow patterns) does not compile.
    InvalidPattern {
        /// The rule the pattern belongs to.
        rule: String,
        /// The pattern text.
        pattern: String,
        /// The regex compiler's message.
        message: String,
    },
    /// The rule's secret group names a capture group the pattern does not have.
    UnknownSecretGroup {
        /// The rule.
        rule: String,
        /// The group as written (index or name).
        group: String,
    },
    /// A keyword is empty, contains a line break, or is longer than 64 bytes.
    InvalidKeyword {
        /// The rule.
        rule: String,
        /// The keyword.
        keyword: String,
    },
    /// `min_entropy` is negative or not a finite number.
    InvalidEntropy {
        /// The rule.
        rule: String,
        /// The value given.
        value: f64,
    },
    /// A rule file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A rule file (or string) is not valid TOML / JSON of the expected shape.
    Parse {
        /// `"toml"` or `"json"`.
        format: &'static str,
        /// The file, when the rules came from one.
        path: Option<PathBuf>,
        /// The parser's message.
        message: String,
    },
    /// A rule file has an extension other than `.toml` or `.json`.
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The keyword automaton could not be built (for example too many known values).
    Automaton {
        /// The builder's message.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidRuleId { id } => {
                write!(f, "invalid rule id {id:?}: expected lowercase-kebab like \"acme-token\"")
            }
            Error::InvalidPattern {
                rule,
                pattern,
                message,
            } => write!(f, "rule {rule}: invalid pattern {pattern:?}: {message}"),
            Error::UnknownSecretGroup { rule, group } => {
                write!(f, "rule {rule}: the pattern has no capture group {group}")
            }
            Error::InvalidKeyword { rule, keyword } => write!(
                f,
                "rule {rule}: invalid keyword {keyword:?} (must be 1..=64 bytes without line breaks)"
            ),
            Error::InvalidEntropy { rule, value } => {
                write!(f, "rule {rule}: min_entropy must be a finite number >= 0, got {value}")
            }
            Error::Io { path, source } => {
                write!(f, "cannot read rule file {}: {source}", path.display())
            }
            Error::Parse {
                format,
                path,
                message,
            } => match path {
                Some(p) => write!(f, "invalid {format} rule file {}: {message}", p.display()),
                None => write!(f, "invalid {format} rules: {message}"),
            },
            Error::UnknownFormat { path } => write!(
                f,
                "rule file {}: unknown format (expected a .toml or .json extension)",
                path.display()
            ),
            Error::Automaton { message } => {
                write!(f, "cannot build the keyword automaton: {message}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
