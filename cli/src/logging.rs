//! The log output of the command: every `tracing` event of toolexec and of
//! the crates it uses (rmcp, notify) goes to stderr, one line each, so a
//! `warn!` is never lost and stdout keeps only results (or, for `mcp` and
//! `proxy`, only the protocol).
//!
//! The filter is read from `RUST_LOG`: a default level (`warn`), a target
//! with a level (`toolexec_snapshot=debug`), or a comma-separated list of
//! both (`info,rmcp=warn`); levels are `off`, `error`, `warn`, `info`,
//! `debug` and `trace`. Unset or empty means `warn`. A value that does not
//! parse is reported once on stderr and `warn` is used, since a typo in an
//! environment variable is no reason to refuse to run. This is the
//! `Targets` syntax of tracing-subscriber, a subset of `EnvFilter`'s
//! without span or field filters (which would need the regex-based
//! `env-filter` feature).

use std::str::FromStr;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The filter when `RUST_LOG` is unset, empty or unusable.
const DEFAULT_LEVEL: LevelFilter = LevelFilter::WARN;

/// Installs the stderr subscriber with the filter of `RUST_LOG`.
pub(crate) fn install() {
    let spec = std::env::var("RUST_LOG").unwrap_or_default();
    let (filter, problem) = filter(&spec);
    if let Some(problem) = problem {
        eprintln!("toolexec: {problem}");
    }
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false);
    // Fails only when a subscriber is already installed (never here).
    let _ = tracing_subscriber::registry()
        .with(layer)
        .with(filter)
        .try_init();
}

/// The filter for a `RUST_LOG` value, and what was wrong with it, if
/// anything.
fn filter(spec: &str) -> (Targets, Option<String>) {
    let spec = spec.trim();
    if spec.is_empty() {
        return (Targets::new().with_default(DEFAULT_LEVEL), None);
    }
    match Targets::from_str(spec) {
        Ok(targets) => (targets, None),
        Err(err) => (
            Targets::new().with_default(DEFAULT_LEVEL),
            Some(format!(
                "RUST_LOG={spec:?} is not a log filter ({err}); logging warnings only"
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::Level;

    #[test]
    fn unset_or_empty_means_warnings() {
        for spec in ["", "  "] {
            let (f, problem) = filter(spec);
            assert!(problem.is_none());
            assert!(f.would_enable("toolexec_core::stages::snapshot", &Level::WARN));
            assert!(f.would_enable("rmcp", &Level::ERROR));
            assert!(!f.would_enable("toolexec_core", &Level::INFO));
        }
    }

    #[test]
    fn levels_and_targets_are_read() {
        let (f, problem) = filter("info,toolexec_snapshot=debug,rmcp=off");
        assert!(problem.is_none());
        assert!(f.would_enable("toolexec_core", &Level::INFO));
        assert!(!f.would_enable("toolexec_core", &Level::DEBUG));
        assert!(f.would_enable("toolexec_snapshot::watch", &Level::DEBUG));
        assert!(!f.would_enable("rmcp::service", &Level::ERROR));
    }

    #[test]
    fn an_unusable_value_falls_back_to_warnings_and_says_so() {
        let (f, problem) = filter("toolexec_core=loud");
        let problem = problem.expect("a problem");
        assert!(
            problem.contains("RUST_LOG=\"toolexec_core=loud\""),
            "{problem}"
        );
        assert!(f.would_enable("toolexec_core", &Level::WARN));
        assert!(!f.would_enable("toolexec_core", &Level::INFO));
    }
}
