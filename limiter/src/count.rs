//! Fast character and line counting: the hot path of every layer.

/// Number of characters (Unicode scalar values) in `text`.
///
/// Counts the bytes that do not continue a UTF-8 sequence (`0b10xx_xxxx`), which
/// is the number of scalar values of valid UTF-8. The loop is written so the
/// compiler vectorises it; it runs at memory speed on ASCII and on mixed text
/// alike.
///
/// ```
/// assert_eq!(toolexec_limiter::char_len("héllo ✓"), 7);
/// ```
#[must_use]
pub fn char_len(text: &str) -> usize {
    const CHUNK: usize = 64;
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(CHUNK);
    let mut count = 0usize;
    for chunk in &mut chunks {
        // An 8-bit accumulator per chunk keeps the inner loop in wide SIMD lanes.
        let mut starts = 0u8;
        for &b in chunk {
            starts += u8::from((b as i8) >= -0x40);
        }
        count += usize::from(starts);
    }
    count
        + chunks
            .remainder()
            .iter()
            .filter(|&&b| (b as i8) >= -0x40)
            .count()
}

/// Number of lines of `text` as the limiter counts them: the number of
/// `\n` plus one.
///
/// ```
/// assert_eq!(toolexec_limiter::line_count("a\nb\n"), 3);
/// assert_eq!(toolexec_limiter::line_count(""), 1);
/// ```
#[must_use]
pub fn line_count(text: &str) -> usize {
    newlines(text) + 1
}

/// Number of `\n` bytes in `text` (vectorised count).
pub(crate) fn newlines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// Byte index just after the first `n` characters of `text`, and how many
/// characters were actually there (fewer than `n` when `text` is shorter).
pub(crate) fn take_prefix(text: &str, n: usize) -> (usize, usize) {
    if n == 0 {
        return (0, 0);
    }
    match text.char_indices().nth(n) {
        Some((at, _)) => (at, n),
        None => (text.len(), char_len(text)),
    }
}

/// Byte index where the last `n` characters of `text` begin, and how many
/// characters were actually there (fewer than `n` when `text` is shorter).
pub(crate) fn take_suffix(text: &str, n: usize) -> (usize, usize) {
    if n == 0 {
        return (text.len(), 0);
    }
    match text.char_indices().rev().nth(n - 1) {
        Some((at, _)) => (at, n),
        None => (0, char_len(text)),
    }
}

/// Number of decimal digits of `n`.
pub(crate) fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_len_agrees_with_std_on_every_chunk_boundary() {
        let unit = "aé✓😀\u{301}\n";
        for reps in 0..70 {
            let s = unit.repeat(reps);
            for cut in 0..=s.len() {
                if s.is_char_boundary(cut) {
                    assert_eq!(char_len(&s[cut..]), s[cut..].chars().count());
                }
            }
        }
    }

    #[test]
    fn prefix_and_suffix_stop_on_char_boundaries() {
        let s = "é✓😀a";
        assert_eq!(take_prefix(s, 2), ("é✓".len(), 2));
        assert_eq!(take_prefix(s, 9), (s.len(), 4));
        assert_eq!(take_suffix(s, 2), ("é✓".len(), 2));
        assert_eq!(take_suffix(s, 9), (0, 4));
        assert_eq!(take_suffix(s, 0), (s.len(), 0));
    }

    #[test]
    fn digits_counts_decimal_places() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(usize::MAX), usize::MAX.to_string().len());
    }
}
