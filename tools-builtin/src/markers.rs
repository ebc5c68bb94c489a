//! Secret-preserving edits: `edit` and `write` against the redacted view.
//!
//! The model only ever saw a file through the redactor, so a secret in it
//! showed as `[REDACTED:RULE]`. Edits are therefore matched against that
//! *view* (the file redacted by the session's redactor), and each marker the
//! model keeps is written back as the original value it stands for:
//!
//! * `edit`: `old_string` is looked up in the view (if it does not occur
//!   there, in the raw file, e.g. when the model knows the real value). An
//!   occurrence must not cut through a marker. Inside each occurrence, the
//!   markers of `new_string` pair up in order with those of `old_string`
//!   (per rule id: the first `[REDACTED:github-token]` of `new_string` is
//!   the first one of the replaced text, and so on); each paired marker is
//!   written as the original value. A marker of `new_string` without a
//!   partner is refused, and the file is not touched.
//! * `write`: a marker in `content` is allowed only where the file already
//!   holds it: the k-th marker of a rule in `content` pairs with the k-th
//!   marker of that rule in the view, and the text from the start of its
//!   line up to the marker must be the same in both (`API_TOKEN=` stays
//!   `API_TOKEN=`). It is written back as the original value. Any other
//!   marker is refused.
//!
//! Text that literally holds a marker (an already redacted log) is kept as
//! it is: its markers are their own original values. The refusal message is
//! the one of the contract: `tool NAME: input contains the redaction marker
//! [REDACTED:RULE]; keep it inside the text you replace, or write the real
//! value`.

use toolexec_redact::Redactor;

const OPEN: &[u8] = b"[REDACTED:";

/// A marker of the view: where it stands in the view, what it stands for.
#[derive(Debug, Clone)]
struct Mark {
    /// Byte range of `[REDACTED:RULE]` in the view.
    view: (usize, usize),
    /// Byte range in the file.
    file: (usize, usize),
    rule: String,
}

/// A file as the model saw it, and how the view maps back to the file.
#[derive(Debug)]
pub(crate) struct View {
    pub(crate) text: Vec<u8>,
    marks: Vec<Mark>,
}

/// Why an edit or write was refused (the caller turns it into its error).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A marker of the input has no original to stand for.
    Marker(String),
    /// `old_string` occurs neither in the view nor in the file.
    NotFound,
    /// `old_string` occurs `n` times (and replace_all is off).
    NotUnique(usize),
}

impl Refusal {
    /// The tool error for a refusal of tool `tool` on `path`.
    pub(crate) fn into_error(self, tool: &str, path: &str) -> crate::error::ToolsError {
        use crate::error::ToolsError;
        match self {
            Refusal::Marker(marker) => ToolsError::RedactionMarker {
                tool: tool.to_string(),
                marker,
            },
            Refusal::NotFound => ToolsError::EditNotFound {
                path: path.to_string(),
            },
            Refusal::NotUnique(count) => ToolsError::EditNotUnique {
                path: path.to_string(),
                count,
            },
        }
    }
}

/// What `write` puts on disk for `content`: `content` itself unless it holds
/// a marker; then the markers the existing file (`existing`, read only in
/// that case) holds at the same place become their originals.
pub(crate) fn write_bytes(
    redactor: &Redactor,
    existing: Option<&dyn Fn() -> Result<Vec<u8>, crate::error::ToolsError>>,
    content: &[u8],
    path: &str,
) -> Result<Vec<u8>, crate::error::ToolsError> {
    if memchr::memmem::find(content, OPEN).is_none() {
        return Ok(content.to_vec());
    }
    let file = match existing {
        Some(read) => Some(read()?),
        None => None,
    };
    let view = file.as_deref().map(|f| View::of(redactor, f));
    write(view.as_ref(), file.as_deref().unwrap_or(b""), content)
        .map_err(|r| r.into_error("write", path))
}

/// The markers `[REDACTED:rule]` of `text`: (start, end, rule).
fn find_markers(text: &[u8]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for p in memchr::memmem::find_iter(text, OPEN) {
        let rest = &text[p + OPEN.len()..];
        let n = rest
            .iter()
            .take(64)
            .take_while(|&&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            .count();
        if n > 0 && rest.get(n) == Some(&b']') {
            let rule = String::from_utf8_lossy(&rest[..n]).into_owned();
            out.push((p, p + OPEN.len() + n + 1, rule));
        }
    }
    out
}

impl View {
    /// The view of `file` through `redactor`, with literal markers of the file
    /// counted as markers that stand for themselves.
    pub(crate) fn of(redactor: &Redactor, file: &[u8]) -> View {
        let (text, masked) = redactor.redact_bytes_masked(file);
        let mut marks: Vec<Mark> = masked
            .iter()
            .map(|m| Mark {
                view: (m.marker_start, m.marker_end),
                file: (m.start, m.end),
                rule: m.rule_id.clone(),
            })
            .collect();
        // Literal markers: the view and the file agree outside the masks, so
        // the offset between them is known from the masks before.
        for (s, e, rule) in find_markers(&text) {
            if marks.iter().any(|m| m.view.0 == s) {
                continue;
            }
            let before = masked.iter().take_while(|m| m.marker_end <= s);
            let shift: isize = before
                .map(|m| (m.end - m.start) as isize - (m.marker_end - m.marker_start) as isize)
                .sum();
            let fs = (s as isize + shift) as usize;
            marks.push(Mark {
                view: (s, e),
                file: (fs, fs + (e - s)),
                rule,
            });
        }
        marks.sort_by_key(|m| m.view.0);
        View { text, marks }
    }

    /// The file bytes of the view range `[a, b)`, whose ends are not inside a marker.
    fn file_of(&self, file: &[u8], a: usize, b: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(b - a);
        let mut pos = a;
        for m in self.marks.iter().filter(|m| m.view.0 >= a && m.view.1 <= b) {
            out.extend_from_slice(&self.text[pos..m.view.0]);
            out.extend_from_slice(&file[m.file.0..m.file.1]);
            pos = m.view.1;
        }
        out.extend_from_slice(&self.text[pos..b]);
        out
    }

    /// Whether `[a, b)` cuts through a marker.
    fn cuts_marker(&self, a: usize, b: usize) -> bool {
        self.marks
            .iter()
            .any(|m| (m.view.0 < a && a < m.view.1) || (m.view.0 < b && b < m.view.1))
    }
}

/// `text` with each of its markers replaced by the original it pairs with in
/// `pool` (per rule, in order); the first marker without a partner refuses.
fn restore(text: &[u8], pool: &[(&str, &[u8])]) -> Result<Vec<u8>, Refusal> {
    let mut used = vec![false; pool.len()];
    let mut out = Vec::with_capacity(text.len());
    let mut pos = 0;
    for (s, e, rule) in find_markers(text) {
        let k = pool
            .iter()
            .enumerate()
            .position(|(i, (r, _))| !used[i] && *r == rule)
            .ok_or_else(|| Refusal::Marker(format!("[REDACTED:{rule}]")))?;
        used[k] = true;
        out.extend_from_slice(&text[pos..s]);
        out.extend_from_slice(pool[k].1);
        pos = e;
    }
    out.extend_from_slice(&text[pos..]);
    Ok(out)
}

/// The edited file: `old` replaced by `new` (once, or every time with
/// `all`), matched against the view; and the number of occurrences.
pub(crate) fn edit(
    view: &View,
    file: &[u8],
    old: &[u8],
    new: &[u8],
    all: bool,
) -> Result<(Vec<u8>, usize), Refusal> {
    let occ: Vec<usize> = memchr::memmem::find_iter(&view.text, old)
        .scan(0usize, |next, s| {
            // Non-overlapping, left to right.
            if s < *next {
                return Some(None);
            }
            *next = s + old.len();
            Some(Some(s))
        })
        .flatten()
        .filter(|&s| !view.cuts_marker(s, s + old.len()))
        .collect();
    if occ.is_empty() {
        // The model may know the real text (it wrote it): match the file, but
        // a marker in `new` then stands for nothing.
        let count = memchr::memmem::find_iter(file, old).count();
        if count == 0 {
            return Err(Refusal::NotFound);
        }
        if count > 1 && !all {
            return Err(Refusal::NotUnique(count));
        }
        let new = restore(new, &[])?;
        return Ok((crate::edit::replace_bytes(file, old, &new, all), count));
    }
    if occ.len() > 1 && !all {
        return Err(Refusal::NotUnique(occ.len()));
    }
    let mut out = Vec::with_capacity(file.len() + new.len());
    let mut pos = 0;
    for &s in &occ {
        let e = s + old.len();
        let pool: Vec<(&str, &[u8])> = view
            .marks
            .iter()
            .filter(|m| m.view.0 >= s && m.view.1 <= e)
            .map(|m| (m.rule.as_str(), &file[m.file.0..m.file.1]))
            .collect();
        let replacement = restore(new, &pool)?;
        out.extend(view.file_of(file, pos, s));
        out.extend(replacement);
        pos = e;
    }
    out.extend(view.file_of(file, pos, view.text.len()));
    Ok((out, occ.len()))
}

/// The bytes `write` puts in place of an existing file seen as `view`
/// (`None` for a new file): markers the file holds at the same place become
/// their originals; any other marker refuses.
pub(crate) fn write(view: Option<&View>, file: &[u8], content: &[u8]) -> Result<Vec<u8>, Refusal> {
    let markers = find_markers(content);
    if markers.is_empty() {
        return Ok(content.to_vec());
    }
    let Some(view) = view else {
        return Err(Refusal::Marker(format!("[REDACTED:{}]", markers[0].2)));
    };
    let line_prefix = |text: &[u8], at: usize| -> Vec<u8> {
        let ls = memchr::memrchr(b'\n', &text[..at]).map_or(0, |i| i + 1);
        text[ls..at].to_vec()
    };
    let mut used = vec![false; view.marks.len()];
    let mut out = Vec::with_capacity(content.len());
    let mut pos = 0;
    for (s, e, rule) in markers {
        let prefix = line_prefix(content, s);
        let k = view
            .marks
            .iter()
            .enumerate()
            .position(|(i, m)| {
                !used[i] && m.rule == rule && line_prefix(&view.text, m.view.0) == prefix
            })
            .ok_or_else(|| Refusal::Marker(format!("[REDACTED:{rule}]")))?;
        used[k] = true;
        let m = &view.marks[k];
        out.extend_from_slice(&content[pos..s]);
        out.extend_from_slice(&file[m.file.0..m.file.1]);
        pos = e;
    }
    out.extend_from_slice(&content[pos..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "ghp_R4nd0mT0k3nV4lu3Zx9Lm2Qp7Ws8Ev3Tk6Yb1";

    fn redactor() -> Redactor {
        Redactor::builtin()
    }

    fn config() -> String {
        format!("[github]\nuser = \"octo\"\ntoken = \"{TOKEN}\" # ci\nretries = 3\n")
    }

    #[test]
    fn a_kept_marker_writes_the_original_back() {
        let file = config();
        let view = View::of(&redactor(), file.as_bytes());
        let seen = String::from_utf8(view.text.clone()).unwrap();
        assert!(
            seen.contains("token = \"[REDACTED:github-token]\" # ci"),
            "{seen}"
        );
        let (out, n) = edit(
            &view,
            file.as_bytes(),
            b"token = \"[REDACTED:github-token]\" # ci",
            b"token = \"[REDACTED:github-token]\" # deploy",
            false,
        )
        .unwrap();
        assert_eq!(n, 1);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            file.replace("# ci", "# deploy")
        );
    }

    #[test]
    fn a_dropped_marker_takes_what_the_model_wrote() {
        let file = config();
        let view = View::of(&redactor(), file.as_bytes());
        let (out, _) = edit(
            &view,
            file.as_bytes(),
            b"token = \"[REDACTED:github-token]\" # ci",
            b"token = \"${GITHUB_TOKEN}\"",
            false,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains(TOKEN));
        assert!(out.contains("token = \"${GITHUB_TOKEN}\"\nretries = 3"));
    }

    #[test]
    fn a_marker_without_partner_is_refused() {
        let file = config();
        let view = View::of(&redactor(), file.as_bytes());
        assert_eq!(
            edit(
                &view,
                file.as_bytes(),
                b"retries = 3",
                b"retries = [REDACTED:github-token]",
                false
            ),
            Err(Refusal::Marker("[REDACTED:github-token]".into()))
        );
        // Two markers where the replaced text holds one.
        assert_eq!(
            edit(
                &view,
                file.as_bytes(),
                b"\"[REDACTED:github-token]\"",
                b"\"[REDACTED:github-token]\" \"[REDACTED:github-token]\"",
                false
            ),
            Err(Refusal::Marker("[REDACTED:github-token]".into()))
        );
    }

    #[test]
    fn write_keeps_markers_only_where_the_file_has_them() {
        let file = config();
        let view = View::of(&redactor(), file.as_bytes());
        let seen = String::from_utf8(view.text.clone()).unwrap();
        let content = seen.replace("retries = 3", "retries = 5");
        let out = write(Some(&view), file.as_bytes(), content.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            file.replace("retries = 3", "retries = 5")
        );
        let moved = seen.replace("user = \"octo\"", "user = \"[REDACTED:github-token]\"");
        assert_eq!(
            write(Some(&view), file.as_bytes(), moved.as_bytes()),
            Err(Refusal::Marker("[REDACTED:github-token]".into()))
        );
        assert_eq!(
            write(None, b"", b"key = [REDACTED:generic-secret]\n"),
            Err(Refusal::Marker("[REDACTED:generic-secret]".into()))
        );
    }

    #[test]
    fn literal_markers_of_the_file_stand_for_themselves() {
        let file = format!("old log: password=[REDACTED:generic-secret]\ntoken = \"{TOKEN}\"\n");
        let view = View::of(&redactor(), file.as_bytes());
        let (out, _) = edit(
            &view,
            file.as_bytes(),
            b"old log: password=[REDACTED:generic-secret]",
            b"log: password=[REDACTED:generic-secret]",
            false,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            file.replacen("old log", "log", 1)
        );
    }

    #[test]
    fn an_occurrence_must_not_cut_a_marker() {
        let file = config();
        let view = View::of(&redactor(), file.as_bytes());
        assert_eq!(
            edit(&view, file.as_bytes(), b"github-token]", b"x]", false),
            Err(Refusal::NotFound)
        );
    }
}
