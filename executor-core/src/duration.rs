//! Durations printed as Go's `time.Duration` prints them (`5m0s`, `1.5s`,
//! `100ms`, `1.5µs`, `0s`), the format of the timeout message.

use std::fmt::Write as _;
use std::time::Duration;

/// Formats `d` exactly as Go's `time.Duration.String()` does.
///
/// ```
/// use std::time::Duration;
/// use toolexec_core::format_go_duration;
///
/// assert_eq!(format_go_duration(Duration::from_secs(300)), "5m0s");
/// assert_eq!(format_go_duration(Duration::from_millis(1500)), "1.5s");
/// assert_eq!(format_go_duration(Duration::from_nanos(1500)), "1.5µs");
/// assert_eq!(format_go_duration(Duration::ZERO), "0s");
/// ```
pub fn format_go_duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    let mut out = String::new();
    if nanos == 0 {
        return "0s".to_string();
    }
    if nanos < 1_000_000_000 {
        // Below one second Go picks the largest unit that keeps the integer
        // part non-zero, with the remainder as a trimmed fraction.
        let (unit, digits, suffix) = if nanos < 1_000 {
            (1, 0, "ns")
        } else if nanos < 1_000_000 {
            (1_000, 3, "µs")
        } else {
            (1_000_000, 6, "ms")
        };
        write_with_fraction(&mut out, nanos / unit, nanos % unit, digits);
        out.push_str(suffix);
        return out;
    }
    let total_secs = nanos / 1_000_000_000;
    let frac = nanos % 1_000_000_000;
    let hours = total_secs / 3600;
    let minutes = (total_secs / 60) % 60;
    let secs = total_secs % 60;
    if hours > 0 {
        let _ = write!(out, "{hours}h");
    }
    if hours > 0 || minutes > 0 {
        let _ = write!(out, "{minutes}m");
    }
    write_with_fraction(&mut out, secs, frac, 9);
    out.push('s');
    out
}

/// Writes `int` followed by `.frac` with `digits` digits, trailing zeros
/// trimmed and no dot when the fraction is zero.
fn write_with_fraction(out: &mut String, int: u128, frac: u128, digits: usize) {
    let _ = write!(out, "{int}");
    if digits == 0 || frac == 0 {
        return;
    }
    let text = format!("{frac:0digits$}");
    out.push('.');
    out.push_str(text.trim_end_matches('0'));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reference_table() {
        let table: &[(Duration, &str)] = &[
            (Duration::ZERO, "0s"),
            (Duration::from_nanos(1), "1ns"),
            (Duration::from_nanos(999), "999ns"),
            (Duration::from_nanos(1_500), "1.5µs"),
            (Duration::from_micros(1), "1µs"),
            (Duration::from_millis(100), "100ms"),
            (Duration::from_nanos(1_000_001), "1.000001ms"),
            (Duration::from_millis(1_500), "1.5s"),
            (Duration::from_secs(1), "1s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(300), "5m0s"),
            (Duration::from_secs(3600), "1h0m0s"),
            (Duration::from_secs(2 * 3600 + 45 * 60), "2h45m0s"),
            (
                Duration::from_millis((26 * 3600 + 3 * 60 + 4) * 1000 + 500),
                "26h3m4.5s",
            ),
            (Duration::from_nanos(61_000_000_001), "1m1.000000001s"),
            (Duration::from_secs(120), "2m0s"),
        ];
        for (d, want) in table {
            assert_eq!(format_go_duration(*d), *want, "{d:?}");
        }
    }

    /// Parses what `format_go_duration` prints (a reference reader of Go's
    /// grammar: a sequence of decimal numbers with unit suffixes).
    fn parse(text: &str) -> Option<u128> {
        const UNITS: [(&str, u128); 6] = [
            ("ns", 1),
            ("µs", 1_000),
            ("ms", 1_000_000),
            ("s", 1_000_000_000),
            ("m", 60_000_000_000),
            ("h", 3_600_000_000_000),
        ];
        let mut rest = text;
        let mut total = 0u128;
        while !rest.is_empty() {
            let num_len = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
            let (num, tail) = rest.split_at(num_len);
            let (unit, scale) = UNITS
                .iter()
                .filter(|(u, _)| tail.starts_with(u))
                .max_by_key(|(u, _)| u.len())?;
            let (int, frac) = num.split_once('.').unwrap_or((num, ""));
            let mut value = int.parse::<u128>().ok()? * scale;
            let mut place = *scale;
            for digit in frac.chars() {
                place /= 10;
                value += u128::from(digit.to_digit(10)?) * place;
            }
            total += value;
            rest = &tail[unit.len()..];
        }
        Some(total)
    }

    proptest::proptest! {
        #[test]
        fn round_trips_through_a_reference_parser(nanos in proptest::prelude::any::<u64>()) {
            let text = format_go_duration(Duration::from_nanos(nanos));
            proptest::prop_assert_eq!(parse(&text), Some(u128::from(nanos)), "{}", text);
        }

        #[test]
        fn never_panics_on_any_duration(secs in proptest::prelude::any::<u64>(), nanos in 0u32..1_000_000_000) {
            let text = format_go_duration(Duration::new(secs, nanos));
            proptest::prop_assert!(text.ends_with('s'));
        }
    }

    #[test]
    fn reference_parser_reads_the_table() {
        assert_eq!(parse("26h3m4.5s"), Some(93_784_500_000_000));
        assert_eq!(parse("1.5µs"), Some(1_500));
    }
}
