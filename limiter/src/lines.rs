//! Layer 2, long lines: each line over the max line length replaced whole
//! by `[line truncated: N chars]`.
//!
//! The limiter never materialises the line-truncated text of a large result:
//! [`View`] describes it (total characters, lines) and yields its head and
//! tail directly from the original, so a 100 MB log costs one copy of the
//! input at most.

use std::borrow::Cow;

use crate::count::{char_len, digits, newlines, take_prefix, take_suffix};

/// The marker that replaces a line of `n` characters.
pub(crate) fn line_marker(n: usize) -> String {
    format!("[line truncated: {n} chars]")
}

/// Characters in [`line_marker`]`(n)`.
fn marker_len(n: usize) -> usize {
    "[line truncated:  chars]".len() + digits(n)
}

/// A line without its `\n`, split into body and an optional trailing `\r`
/// (the `\r` of a CRLF ending is not part of the line's length and survives
/// replacement).
fn split_cr(line: &str) -> (&str, &str) {
    match line.strip_suffix('\r') {
        Some(body) => (body, "\r"),
        None => (line, ""),
    }
}

/// What a line becomes after layer 2.
pub(crate) enum Piece<'a> {
    /// Short enough: kept as it is.
    Kept(&'a str),
    /// Replaced: the marker (with the kept `\r`, if any).
    Replaced(String),
}

impl Piece<'_> {
    fn as_str(&self) -> &str {
        match self {
            Piece::Kept(s) => s,
            Piece::Replaced(s) => s,
        }
    }
}

/// `Some(chars)` when `line` (without its `\n`) is longer than `max_line`.
fn overlong(line: &str, max_line: usize) -> Option<usize> {
    // A line of at most `max_line` bytes has at most `max_line` chars: only
    // longer byte runs are counted.
    if line.len() <= max_line {
        return None;
    }
    let n = char_len(split_cr(line).0);
    (n > max_line).then_some(n)
}

fn piece(line: &str, max_line: usize) -> Piece<'_> {
    match overlong(line, max_line) {
        None => Piece::Kept(line),
        Some(n) => Piece::Replaced(line_marker(n) + split_cr(line).1),
    }
}

/// Replaces each line longer than `max_line` characters whole by
/// `[line truncated: N chars]` (N = its length in characters).
///
/// Lines are split on `\n`; the number of lines never changes. A `\r` just
/// before a `\n` (or at the very end) belongs to the line ending: it does not
/// count toward the line's length and is kept after the marker, so CRLF text
/// stays CRLF. Any other `\r` (progress bars) is an ordinary character.
/// Returns the input borrowed when no line is too long.
///
/// ```
/// use toolexec_limiter::truncate_long_lines;
/// let text = format!("short\n{}\nend", "x".repeat(3000));
/// assert_eq!(truncate_long_lines(&text, 2000), "short\n[line truncated: 3000 chars]\nend");
/// ```
#[must_use]
pub fn truncate_long_lines(text: &str, max_line: usize) -> Cow<'_, str> {
    truncate_long_lines_counted(text, max_line).0
}

/// [`truncate_long_lines`], also returning how many lines were replaced.
pub(crate) fn truncate_long_lines_counted(text: &str, max_line: usize) -> (Cow<'_, str>, usize) {
    if text.len() <= max_line {
        return (Cow::Borrowed(text), 0);
    }
    let mut out: Option<String> = None;
    let mut replaced = 0;
    let mut copied_to = 0; // bytes of `text` already in `out`
    for (start, end) in line_spans(text) {
        let line = &text[start..end];
        if let Some(n) = overlong(line, max_line) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied_to..start]);
            out.push_str(&line_marker(n));
            out.push_str(split_cr(line).1);
            copied_to = end;
            replaced += 1;
        }
    }
    match out {
        None => (Cow::Borrowed(text), 0),
        Some(mut out) => {
            out.push_str(&text[copied_to..]);
            (Cow::Owned(out), replaced)
        }
    }
}

/// Byte spans `(start, end)` of each line of `text`, without the `\n`.
fn line_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .chain(std::iter::once(text.len()))
        .map(move |end| {
            let span = (start, end);
            start = end + 1;
            span
        })
}

/// The line-truncated text of an input, described without building it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    text: &'a str,
    max_line: usize,
    /// Characters of the line-truncated text.
    pub(crate) chars: usize,
    /// Lines (`\n` + 1): the same before and after layer 2.
    pub(crate) lines: usize,
    /// Lines replaced by a marker.
    pub(crate) replaced: usize,
}

impl<'a> View<'a> {
    /// Scans `text` (whose char count `chars` the caller already has).
    pub(crate) fn new(text: &'a str, max_line: usize, chars: usize) -> Self {
        if text.len() <= max_line {
            // No line can be longer than the whole text: one vectorised count.
            return View {
                text,
                max_line,
                chars,
                lines: newlines(text) + 1,
                replaced: 0,
            };
        }
        let mut view = View {
            text,
            max_line,
            chars,
            lines: 0,
            replaced: 0,
        };
        for (start, end) in line_spans(text) {
            view.lines += 1;
            if let Some(n) = overlong(&text[start..end], max_line) {
                view.replaced += 1;
                view.chars = view.chars - n + marker_len(n);
            }
        }
        view
    }

    /// The whole line-truncated text.
    pub(crate) fn materialize(&self) -> Cow<'a, str> {
        if self.replaced == 0 {
            Cow::Borrowed(self.text)
        } else {
            truncate_long_lines_counted(self.text, self.max_line).0
        }
    }

    /// The first `n` characters (`n` < `self.chars`) and the 1-based line
    /// holding the last of them (0 when `n` is 0).
    pub(crate) fn head(&self, n: usize) -> (String, usize) {
        let mut out = String::new();
        let mut need = n;
        let mut line_no = 0;
        let mut rest = self.text;
        while need > 0 {
            line_no += 1;
            let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(at) => (&rest[..at], Some(&rest[at + 1..])),
                None => (rest, None),
            };
            let piece = piece(line, self.max_line);
            let (end, took) = take_prefix(piece.as_str(), need);
            out.push_str(&piece.as_str()[..end]);
            need -= took;
            match next {
                Some(next) if need > 0 => {
                    out.push('\n');
                    need -= 1;
                    rest = next;
                }
                _ => break,
            }
        }
        (out, line_no)
    }

    /// The last `n` characters (`n` < `self.chars`) and the 1-based line
    /// holding the first of them (`lines + 1` when `n` is 0).
    pub(crate) fn tail(&self, n: usize) -> (String, usize) {
        let mut parts: Vec<Cow<'a, str>> = Vec::new();
        let mut need = n;
        let mut line_no = self.lines + 1;
        let mut rest = self.text;
        let mut has_newline_after = false;
        while need > 0 {
            line_no -= 1;
            let (prev, line) = match memchr::memrchr(b'\n', rest.as_bytes()) {
                Some(at) => (Some(&rest[..at]), &rest[at + 1..]),
                None => (None, rest),
            };
            if has_newline_after {
                parts.push(Cow::Borrowed("\n"));
                need -= 1;
                if need == 0 {
                    break;
                }
            }
            let took = match piece(line, self.max_line) {
                Piece::Kept(s) => {
                    let (start, took) = take_suffix(s, need);
                    parts.push(Cow::Borrowed(&s[start..]));
                    took
                }
                Piece::Replaced(s) => {
                    let (start, took) = take_suffix(&s, need);
                    parts.push(Cow::Owned(s[start..].to_owned()));
                    took
                }
            };
            need -= took;
            match prev {
                Some(prev) if need > 0 => {
                    rest = prev;
                    has_newline_after = true;
                }
                _ => break,
            }
        }
        let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        for part in parts.iter().rev() {
            out.push_str(part);
        }
        (out, line_no)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_line_keeps_its_carriage_return_after_the_marker() {
        let text = format!("{}\r\nok\r\n", "y".repeat(5));
        assert_eq!(
            truncate_long_lines(&text, 4),
            "[line truncated: 5 chars]\r\nok\r\n"
        );
    }

    #[test]
    fn carriage_return_is_not_counted_in_the_line_length() {
        let text = "abcd\r\n";
        assert_eq!(truncate_long_lines(text, 4), text);
    }

    #[test]
    fn view_counts_match_the_materialised_text() {
        let text = "aaaaa\nbb\n\nccccccc\r\n😀😀😀😀😀";
        let view = View::new(text, 4, char_len(text));
        let full = view.materialize();
        assert_eq!(view.chars, char_len(&full));
        assert_eq!(view.lines, 5);
        assert_eq!(view.replaced, 3);
    }

    #[test]
    fn head_and_tail_of_the_view_match_the_materialised_text() {
        let text = "aaaaa\nbb\n\nccccccc\r\n😀😀😀😀😀\nend";
        let view = View::new(text, 4, char_len(text));
        let full = view.materialize().into_owned();
        let chars: Vec<char> = full.chars().collect();
        for n in 0..view.chars {
            let (head, b) = view.head(n);
            assert_eq!(head, chars[..n].iter().collect::<String>());
            let expect_b = if n == 0 {
                0
            } else {
                1 + chars[..n - 1].iter().filter(|&&c| c == '\n').count()
            };
            assert_eq!(b, expect_b, "head {n}");
            let (tail, c) = view.tail(n);
            assert_eq!(tail, chars[chars.len() - n..].iter().collect::<String>());
            let expect_c = 1 + chars[..chars.len() - n]
                .iter()
                .filter(|&&c| c == '\n')
                .count();
            let expect_c = if n == 0 { view.lines + 1 } else { expect_c };
            assert_eq!(c, expect_c, "tail {n}");
        }
    }
}
