//! `grep`: regex search over the files of the workspace.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use regex::bytes::{Regex, RegexBuilder};
use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{blocking, looks_binary, BINARY_PROBE, CHUNK};
use crate::jail::{regular_file, slash_path, Jail};
use crate::walk::{walker, Smallest};

/// Matches shown when `max_results` is not given.
pub const DEFAULT_GREP_RESULTS: u64 = 100;

/// Characters of a matching line that grep shows; the rest is replaced by
/// ` [… N more chars]`, so a match in a minified file still shows where it
/// is.
pub const GREP_MAX_LINE_CHARS: usize = 500;

/// Bytes of one line searched (a longer line is searched in its first
/// 1 MiB only).
const STREAM_LINE_MAX: usize = 1024 * 1024;

/// The longest pattern text compiled (bytes); a longer one is refused
/// before parsing, which alone would cost seconds and gigabytes.
pub const GREP_MAX_PATTERN_BYTES: usize = 64 * 1024;

/// The largest compiled program a pattern may have (the `regex` crate's
/// `size_limit`, in bytes).
pub const GREP_PROGRAM_LIMIT: usize = 8 * 1024 * 1024;

/// Characters of the pattern an error message quotes at most.
const PATTERN_EXCERPT_CHARS: usize = 100;

/// The `grep` tool: searches file contents with a regular expression (the
/// `regex` crate's syntax), line by line.
///
/// Files come from a walk of `path` (default: the whole workspace) with
/// ripgrep's default filters: `.gitignore` / `.ignore` honoured, hidden
/// files skipped, symbolic links not followed, binary files (a NUL byte in
/// the first 8 KiB) skipped. `glob` filters the files: a glob without `/`
/// matches the file name (`*.rs`), one with `/` the path relative to the
/// workspace root (`src/**/*.rs`); `*` never crosses `/`, `**` does.
///
/// A line matches when the pattern matches the line on its own (without
/// its `\n`, and without the `\r` of a CRLF ending), whatever inline flags
/// the pattern holds: `(?-m)^foo` finds the lines starting with `foo`. The
/// whole-chunk prefilter that makes grep fast is used only where it is
/// proven not to change that (no `\A`/`\z`, no inline flag group naming
/// `m`, a chunk without `\r`).
///
/// Bounds: each file is read and searched in chunks of 64 KiB, and
/// cancellation is checked before each, so a call stops within one chunk
/// of its deadline even inside one huge file. A NUL byte in the first
/// 8 KiB marks a file as binary (skipped); a NUL byte later ends the
/// search of that file (ripgrep's rule), so a sparse file is never
/// scanned in full. Patterns longer than [`GREP_MAX_PATTERN_BYTES`] or
/// whose compiled program exceeds [`GREP_PROGRAM_LIMIT`] are refused with
/// a message quoting at most their first 100 characters. Files that could
/// not be opened or read are counted: `(N files could not be read)`.
///
/// Every file is opened beneath the workspace root's handle ([`Jail`]),
/// with `O_NONBLOCK | O_NOFOLLOW`, and checked to be a regular file with
/// `fstat` before it is read, so a symbolic link or FIFO swapped in during
/// the walk is never followed or waited on.
///
/// Output: one `path:line:text` per matching line (path relative to the
/// workspace root with `/` separators, 1-based line), sorted by path (by
/// component) then line, so the result is deterministic although the walk
/// is parallel. At most `max_results` lines (default 100), then
/// `(N more matches not shown; narrow the pattern, path or glob, or raise
/// max_results)`. No match is not an error: `No matches found for pattern
/// "P"`. Memory is bounded by `max_results` whatever the number of
/// matches.
#[derive(Debug)]
pub struct GrepTool {
    schema: Value,
}

impl Default for GrepTool {
    fn default() -> Self {
        GrepTool::new()
    }
}

impl GrepTool {
    /// The grep tool.
    pub fn new() -> Self {
        GrepTool {
            schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Regular expression (Rust regex syntax) searched line by line."
                    },
                    "path": {
                        "type": "string",
                        "description": "File or directory to search, relative to the workspace root (default: the whole workspace)."
                    },
                    "glob": {
                        "type": "string",
                        "description": "Only search files matching this glob: without '/' it matches file names (\"*.rs\"), with '/' paths relative to the workspace root (\"src/**/*.rs\")."
                    },
                    "case_insensitive": {
                        "type": "boolean",
                        "description": "Match case-insensitively (default false)."
                    },
                    "max_results": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Maximum number of matching lines to show (default 100)."
                    }
                },
                "required": ["pattern"]
            }),
        }
    }
}

/// How files are filtered by the `glob` argument.
struct FileFilter {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl FileFilter {
    fn matches(&self, rel: &Path) -> bool {
        if self.whole_path {
            self.matcher.is_match(rel)
        } else {
            rel.file_name()
                .is_some_and(|name| self.matcher.is_match(name))
        }
    }
}

struct Search {
    line: Regex,
    prefilter: Option<Regex>,
    filter: Option<FileFilter>,
    jail: Jail,
    root: PathBuf,
    max: usize,
}

/// At most the first 100 characters of a pattern, `…` marking a cut.
fn excerpt(pattern: &str) -> String {
    match pattern.char_indices().nth(PATTERN_EXCERPT_CHARS) {
        None => pattern.to_string(),
        Some((cut, _)) => format!("{}…", &pattern[..cut]),
    }
}

/// Whether the multi-line whole-chunk prefilter finds every chunk that has
/// a matching line (for chunks without `\r`): true unless the pattern uses
/// text anchors (`\A`, `\z`) or an inline flag group naming `m` (which
/// could turn multi-line mode off in the prefilter, e.g. `(?-m)^foo`).
fn prefilter_safe(pattern: &str) -> bool {
    if pattern.contains("\\A") || pattern.contains("\\z") {
        return false;
    }
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while let Some(pos) = memchr::memmem::find(&bytes[i..], b"(?") {
        let flags = bytes[i + pos + 2..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic() || **b == b'-');
        if flags.clone().any(|b| *b == b'm') {
            return false;
        }
        i += pos + 2;
    }
    true
}

/// Compiles a pattern with the size limits, turning errors into short
/// messages (a syntax error of a long pattern keeps only its last line,
/// the regex crate's own message repeating the whole pattern).
fn compile(pattern: &str, case_insensitive: bool, multi_line: bool) -> Result<Regex, ToolsError> {
    RegexBuilder::new(pattern)
        .case_insensitive(case_insensitive)
        .multi_line(multi_line)
        .crlf(multi_line)
        .size_limit(GREP_PROGRAM_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(limit) => ToolsError::PatternTooLarge {
                excerpt: excerpt(pattern),
                message: format!("its compiled program exceeds {limit} bytes"),
            },
            other => {
                let message = other.to_string();
                let message = if pattern.chars().count() > PATTERN_EXCERPT_CHARS {
                    message
                        .lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("")
                        .trim()
                        .to_string()
                } else {
                    message
                };
                ToolsError::InvalidRegex {
                    pattern: excerpt(pattern),
                    message,
                }
            }
        })
}

type Hit = (PathBuf, u64, String);

impl Tool for GrepTool {
    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search file contents with a regular expression. Returns `path:line:text` lines \
         sorted by path and line, at most max_results (default 100). Honours .gitignore, \
         skips hidden and binary files. Optional path (file or directory) and glob \
         (e.g. \"*.rs\") narrow the search."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn read_only(&self, _input: &Value) -> bool {
        true
    }

    fn concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let args = Args::new(&input)?;
            let pattern = args.string("pattern")?.to_string();
            let path_arg = args.opt_string("path")?.map(str::to_string);
            let glob = args.opt_string("glob")?;
            let case_insensitive = args.opt_bool("case_insensitive")?.unwrap_or(false);
            let max = match args.opt_u64("max_results")? {
                Some(0) => {
                    return Err(ToolsError::field("max_results", "must be at least 1").into())
                }
                Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
                None => DEFAULT_GREP_RESULTS as usize,
            };

            if pattern.len() > GREP_MAX_PATTERN_BYTES {
                return Err(ToolsError::PatternTooLarge {
                    excerpt: excerpt(&pattern),
                    message: format!(
                        "{} bytes; the limit is {GREP_MAX_PATTERN_BYTES} bytes",
                        pattern.len()
                    ),
                }
                .into());
            }
            let line = compile(&pattern, case_insensitive, false)?;
            // A whole-chunk pass finds every chunk with a line match (`^`/`$`
            // become line anchors), where that is proven (see
            // `prefilter_safe`).
            let prefilter = if prefilter_safe(&pattern) {
                compile(&pattern, case_insensitive, true).ok()
            } else {
                None
            };
            let filter = match glob {
                None => None,
                Some(glob) => {
                    let glob = glob.strip_prefix("./").unwrap_or(glob);
                    let matcher = GlobBuilder::new(glob)
                        .literal_separator(true)
                        .build()
                        .map_err(|e| ToolsError::InvalidGlob {
                            pattern: glob.to_string(),
                            message: e.kind().to_string(),
                        })?
                        .compile_matcher();
                    Some(FileFilter {
                        matcher,
                        whole_path: glob.contains('/'),
                    })
                }
            };

            let jail = Jail::new(ctx.workdir())?;
            let start = jail.resolve(path_arg.as_deref().unwrap_or(""))?;
            let shown_path = path_arg.clone().unwrap_or_else(|| ".".to_string());
            if jail.stat(&start, &shown_path)?.is_none() {
                return Err(ToolsError::NotFound { path: shown_path }.into());
            }
            let search = Search {
                line,
                prefilter,
                filter,
                root: jail.root().to_path_buf(),
                jail,
                max,
            };
            let cancel = ctx.clone();
            let text = blocking(move || {
                let outcome = run_search(&search, &start, &|| cancel.is_cancelled());
                Ok(format_hits(&outcome, &pattern, path_arg.as_deref()))
            })
            .await?;
            Ok::<_, ToolError>(text)
        })
    }
}

/// What a search found.
struct Outcome {
    hits: Vec<Hit>,
    total: u64,
    unreadable: u64,
    cancelled: bool,
}

fn run_search(search: &Search, start: &Path, cancelled: &(dyn Fn() -> bool + Sync)) -> Outcome {
    let collected: Mutex<Smallest<Hit>> = Mutex::new(Smallest::new(search.max));
    let unreadable = AtomicU64::new(0);
    walker(start).build_parallel().run(|| {
        let (collected, unreadable) = (&collected, &unreadable);
        let mut found: Vec<(u64, String)> = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        Box::new(move |entry| {
            if cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            };
            let Some(kind) = entry.file_type() else {
                return WalkState::Continue;
            };
            if kind.is_dir() && entry.depth() > 0 {
                // Do not descend into a directory that is no longer a real
                // directory beneath the root (swapped for a symbolic link).
                return match search.jail.stat(entry.path(), "") {
                    Ok(Some(meta)) if meta.is_dir() => WalkState::Continue,
                    _ => WalkState::Skip,
                };
            }
            if !kind.is_file() {
                return WalkState::Continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&search.root)
                .unwrap_or(entry.path())
                .to_path_buf();
            if let Some(filter) = &search.filter {
                if !filter.matches(&rel) {
                    return WalkState::Continue;
                }
            }
            found.clear();
            let count = match search_file(entry.path(), search, &mut buf, &mut found, cancelled) {
                Ok(count) => count,
                Err(FileError::Cancelled) => return WalkState::Quit,
                Err(FileError::Unreadable) => {
                    unreadable.fetch_add(1, Ordering::Relaxed);
                    return WalkState::Continue;
                }
            };
            if count > 0 {
                let mut kept = collected
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner());
                let listed = found.len() as u64;
                for (number, text) in found.drain(..) {
                    kept.push((rel.clone(), number, text));
                }
                kept.count_more(count - listed);
            }
            WalkState::Continue
        })
    });
    let (hits, total) = collected
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
        .finish();
    Outcome {
        hits,
        total,
        unreadable: unreadable.into_inner(),
        cancelled: cancelled(),
    }
}

/// Why one file gave no count.
#[derive(Debug, PartialEq, Eq)]
enum FileError {
    /// The call was cancelled while searching it.
    Cancelled,
    /// It could not be opened or read (also: it is no longer a regular
    /// file beneath the root).
    Unreadable,
}

/// Searches one file (opened beneath the root) chunk by chunk; pushes at
/// most `search.max` matching lines into `found` and returns the number of
/// matching lines in the file. Binary files count as no match.
fn search_file(
    path: &Path,
    search: &Search,
    buf: &mut Vec<u8>,
    found: &mut Vec<(u64, String)>,
    cancelled: &dyn Fn() -> bool,
) -> Result<u64, FileError> {
    let fd = search
        .jail
        .open_beneath(
            path,
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::NONBLOCK
                | rustix::fs::OFlags::NOFOLLOW,
        )
        .map_err(|_| FileError::Unreadable)?;
    let (file, _) = regular_file(fd, "").map_err(|_| FileError::Unreadable)?;
    search_reader(file, search, buf, found, cancelled).map(|(count, _)| count)
}

/// The chunked search of one reader; returns the count of matching lines
/// and the bytes read.
fn search_reader(
    mut file: impl Read,
    search: &Search,
    buf: &mut Vec<u8>,
    found: &mut Vec<(u64, String)>,
    cancelled: &dyn Fn() -> bool,
) -> Result<(u64, u64), FileError> {
    let mut count = 0u64;
    let mut on_line = |number: u64, line: &[u8]| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if search.line.is_match(line) {
            count += 1;
            if found.len() < search.max {
                found.push((number, clip(&String::from_utf8_lossy(line))));
            }
        }
    };
    buf.clear();
    let mut read_total = 0u64;
    let mut number = 0u64; // lines completed before buf[0]
    let mut skipping = false; // inside the unsearched rest of a too-long line
    let mut eof = false;
    while !eof {
        if cancelled() {
            return Err(FileError::Cancelled);
        }
        let before = buf.len();
        let n = loop {
            match (&mut file).take(CHUNK as u64).read_to_end(buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(FileError::Unreadable),
            }
        };
        eof = n == 0;
        let fresh = &buf[before..];
        if read_total < BINARY_PROBE as u64 && looks_binary(&fresh[..fresh.len().min(BINARY_PROBE)])
        {
            // Binary: skipped (matches of text before the NUL stay only
            // when the NUL comes after the first 8 KiB).
            return Ok((0, read_total + n as u64));
        }
        let nul = memchr::memchr(0, fresh).map(|at| before + at);
        read_total += n as u64;
        if let Some(at) = nul {
            // A NUL past the probe ends the search of this file: only the
            // complete lines before it are searched.
            buf.truncate(at);
            eof = true;
            match memchr::memrchr(b'\n', buf) {
                Some(last) => buf.truncate(last + 1),
                None => buf.clear(),
            }
        }
        if skipping {
            match memchr::memchr(b'\n', buf) {
                Some(end) => {
                    buf.drain(..=end);
                    skipping = false;
                }
                None => {
                    buf.clear();
                    continue;
                }
            }
        }
        // The part of the buffer made of whole lines (all of it at the end).
        let end = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', buf) {
                Some(last) => last + 1,
                None if buf.len() >= STREAM_LINE_MAX => {
                    // One line longer than the bound: search its start, skip
                    // the rest.
                    number += 1;
                    on_line(number, &buf[..STREAM_LINE_MAX]);
                    buf.clear();
                    skipping = true;
                    continue;
                }
                None => continue,
            }
        };
        let region = &buf[..end];
        let skip_region = match &search.prefilter {
            Some(prefilter) if memchr::memchr(b'\r', region).is_none() => {
                !prefilter.is_match(region)
            }
            _ => false,
        };
        if skip_region {
            number += memchr::memchr_iter(b'\n', region).count() as u64;
            if eof && !region.is_empty() && region.last() != Some(&b'\n') {
                number += 1;
            }
        } else {
            let mut start = 0usize;
            for nl in memchr::memchr_iter(b'\n', region) {
                number += 1;
                on_line(number, &region[start..nl]);
                start = nl + 1;
            }
            if start < region.len() {
                number += 1;
                on_line(number, &region[start..]);
            }
        }
        buf.drain(..end);
    }
    Ok((count, read_total))
}

/// A matching line as shown: at most [`GREP_MAX_LINE_CHARS`] characters.
fn clip(line: &str) -> String {
    match line.char_indices().nth(GREP_MAX_LINE_CHARS) {
        None => line.to_string(),
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            format!("{} [… {rest} more chars]", &line[..cut])
        }
    }
}

fn format_hits(outcome: &Outcome, pattern: &str, path: Option<&str>) -> String {
    let Outcome {
        hits,
        total,
        unreadable,
        cancelled,
    } = outcome;
    let mut out = String::new();
    if hits.is_empty() {
        out.push_str(&format!(
            "No matches found for pattern \"{}\"",
            excerpt(pattern)
        ));
        if let Some(path) = path {
            out.push_str(&format!(" in \"{path}\""));
        }
    }
    for (rel, number, text) in hits {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("{}:{number}:{text}", slash_path(rel)));
    }
    let more = total.saturating_sub(hits.len() as u64);
    if more > 0 {
        out.push_str(&format!(
            "\n({more} more matches not shown; narrow the pattern, path or glob, or raise max_results)"
        ));
    }
    if *unreadable > 0 {
        out.push_str(&format!("\n({unreadable} files could not be read)"));
    }
    if *cancelled {
        out.push_str("\n(search cancelled before it finished)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn search_for(pattern: &str, dir: &Path) -> Search {
        let line = compile(pattern, false, false).expect("compiles");
        let prefilter = if prefilter_safe(pattern) {
            compile(pattern, false, true).ok()
        } else {
            None
        };
        let jail = Jail::new(dir).expect("jail");
        Search {
            line,
            prefilter,
            filter: None,
            root: jail.root().to_path_buf(),
            jail,
            max: usize::MAX,
        }
    }

    /// The lines the regex crate itself matches, one line at a time.
    fn reference(pattern: &str, text: &str) -> Vec<u64> {
        let re = regex::bytes::Regex::new(pattern).expect("compiles");
        let mut lines: Vec<&[u8]> = text.as_bytes().split(|b| *b == b'\n').collect();
        // An empty file has no line; a final `\n` ends the last line.
        if text.is_empty() || text.ends_with('\n') {
            lines.pop();
        }
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| re.is_match(l.strip_suffix(b"\r").unwrap_or(l)))
            .map(|(i, _)| i as u64 + 1)
            .collect()
    }

    fn ours(search: &Search, text: &str) -> Vec<u64> {
        let mut buf = Vec::new();
        let mut found = Vec::new();
        search_reader(text.as_bytes(), search, &mut buf, &mut found, &|| false).expect("searched");
        found.into_iter().map(|(n, _)| n).collect()
    }

    const PATTERNS: &[&str] = &[
        "(?-m)^foo",
        "(?-m)foo$",
        "(?i-m)^FOO",
        "(?-m:^foo)",
        "^foo",
        "foo$",
        "^$",
        "(?m)^foo$",
        "\\Afoo",
        "foo\\z",
        "(?s)f.o",
        "f.o",
        "(?-R)o$",
        "(?R)o$",
        "\\bfoo\\b",
        "[^x]oo",
        "o\\s",
        "(?x) f o o # comment",
        "x*",
    ];

    #[test]
    fn inline_flags_match_as_the_regex_crate_matches_each_line() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = "bar\nfoo one\nxfoo\r\nfoo\n\nfoo two\r\nf\ro\nafoo b\nfoo";
        for pattern in PATTERNS {
            let search = search_for(pattern, dir.path());
            assert_eq!(ours(&search, text), reference(pattern, text), "{pattern}");
        }
    }

    proptest! {
        #[test]
        fn grep_matches_exactly_the_lines_the_regex_matches(
            pattern in proptest::sample::select(PATTERNS),
            text in "(foo|bar|xfoo| |\r|\n|f|o|x){0,40}",
        ) {
            let dir = tempfile::tempdir().expect("tempdir");
            let search = search_for(pattern, dir.path());
            prop_assert_eq!(ours(&search, &text), reference(pattern, &text));
        }
    }

    #[test]
    fn lines_across_chunk_boundaries_are_whole() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text: String = (1..=40_000)
            .map(|i| format!("line {i} foo{}\n", i % 7))
            .collect();
        for pattern in ["foo3$", "^line 3", "(?-m)^line 39999 "] {
            let search = search_for(pattern, dir.path());
            assert_eq!(ours(&search, &text), reference(pattern, &text), "{pattern}");
        }
    }

    /// An endless stream of text without a newline or a NUL.
    struct Endless;

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(b'a');
            Ok(buf.len())
        }
    }

    #[test]
    fn cancellation_is_checked_every_chunk_inside_one_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let search = search_for("b", dir.path());
        let checks = std::cell::Cell::new(0u64);
        let cancelled = || {
            checks.set(checks.get() + 1);
            checks.get() > 100
        };
        let mut counted = crate::fsutil::CancellableReader {
            inner: Endless,
            cancel: &|| false,
            consumed: 0,
        };
        let (mut buf, mut found) = (Vec::new(), Vec::new());
        let err = search_reader(&mut counted, &search, &mut buf, &mut found, &cancelled)
            .expect_err("cancelled");
        assert_eq!(err, FileError::Cancelled);
        // 100 chunks of at most 64 KiB were read before the 101st check.
        assert!(
            counted.consumed <= 100 * CHUNK as u64,
            "{}",
            counted.consumed
        );
        assert!(
            counted.consumed >= 99 * CHUNK as u64,
            "{}",
            counted.consumed
        );
        assert!(
            buf.capacity() <= STREAM_LINE_MAX + 2 * CHUNK,
            "memory bounded"
        );
    }

    #[test]
    fn a_nul_past_the_probe_ends_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let search = search_for("foo", dir.path());
        let mut text = "foo\n".repeat(5_000).into_bytes();
        text.extend_from_slice(b"foo then nul\0");
        let reader = (&text[..]).chain(Endless);
        let (mut buf, mut found) = (Vec::new(), Vec::new());
        let (count, read) =
            search_reader(reader, &search, &mut buf, &mut found, &|| false).expect("ends");
        assert_eq!(count, 5_000);
        assert!(read < 4 * CHUNK as u64, "{read}");
    }

    #[test]
    fn the_prefilter_is_off_for_text_anchors_and_the_m_flag() {
        for p in ["\\Afoo", "foo\\z", "(?-m)^x", "(?m-i)x", "(?sm:x)"] {
            assert!(!prefilter_safe(p), "{p}");
        }
        for p in ["foo", "(?i)foo", "(?:ab)+", "(?P<name>x)", "(?s-i:x)"] {
            assert!(prefilter_safe(p), "{p}");
        }
    }

    #[test]
    fn excerpts_are_at_most_100_chars() {
        assert_eq!(excerpt("short"), "short");
        let long = "é".repeat(150);
        assert_eq!(excerpt(&long), format!("{}…", "é".repeat(100)));
    }

    #[test]
    fn long_lines_are_clipped_by_characters() {
        let line = "é".repeat(GREP_MAX_LINE_CHARS + 7);
        let clipped = clip(&line);
        assert!(clipped.starts_with(&"é".repeat(GREP_MAX_LINE_CHARS)));
        assert!(clipped.ends_with(" [… 7 more chars]"));
        assert_eq!(clip("short"), "short");
    }

    #[test]
    fn root_files_display_with_their_name() {
        let hits = vec![(PathBuf::from("a/b.rs"), 3, "x".to_string())];
        let outcome = Outcome {
            hits,
            total: 5,
            unreadable: 0,
            cancelled: false,
        };
        assert_eq!(format_hits(&outcome, "x", None), "a/b.rs:3:x\n(4 more matches not shown; narrow the pattern, path or glob, or raise max_results)");
    }
}
