//! `grep`: regex search over the files of the workspace.

use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use regex::bytes::{Regex, RegexBuilder};
use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::{blocking, looks_binary, read_line_capped, BINARY_PROBE};
use crate::jail::{slash_path, Jail};
use crate::walk::{walker, Smallest};

/// Matches shown when `max_results` is not given.
pub const DEFAULT_GREP_RESULTS: u64 = 100;

/// Characters of a matching line that grep shows; the rest is replaced by
/// ` [… N more chars]`, so a match in a minified file still shows where it
/// is.
pub const GREP_MAX_LINE_CHARS: usize = 500;

/// Files up to this size are searched in memory (one regex pass over the
/// whole file first, then line by line only when it matched); larger ones
/// are streamed line by line.
const IN_MEMORY_MAX: u64 = 8 * 1024 * 1024;

/// Bytes of one line searched in a streamed file (a longer line is
/// searched in its first 1 MiB only).
const STREAM_LINE_MAX: usize = 1024 * 1024;

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
    root: PathBuf,
    max: usize,
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

            let compile = |multi_line: bool| {
                RegexBuilder::new(&pattern)
                    .case_insensitive(case_insensitive)
                    .multi_line(multi_line)
                    .crlf(multi_line)
                    .build()
                    .map_err(|e| ToolsError::InvalidRegex {
                        pattern: pattern.clone(),
                        message: e.to_string(),
                    })
            };
            let line = compile(false)?;
            // A whole-file pass finds every file with a line match (`^`/`$`
            // become line anchors), except for patterns with text anchors.
            let prefilter = if pattern.contains("\\A") || pattern.contains("\\z") {
                None
            } else {
                Some(compile(true)?)
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
            std::fs::metadata(&start).map_err(|e| ToolsError::io("search", &shown_path, e))?;
            let search = Search {
                line,
                prefilter,
                filter,
                root: jail.root().to_path_buf(),
                max,
            };
            let cancel = ctx.clone();
            let text = blocking(move || {
                let (hits, total, cancelled) = run_search(&search, &start, &cancel);
                Ok(format_hits(
                    &hits,
                    total,
                    cancelled,
                    &pattern,
                    path_arg.as_deref(),
                ))
            })
            .await?;
            Ok::<_, ToolError>(text)
        })
    }
}

fn run_search(search: &Search, start: &Path, ctx: &ToolContext) -> (Vec<Hit>, u64, bool) {
    let collected: Mutex<Smallest<Hit>> = Mutex::new(Smallest::new(search.max));
    walker(start).build_parallel().run(|| {
        let collected = &collected;
        let mut found: Vec<(u64, String)> = Vec::new();
        let mut buf: Vec<u8> = Vec::new();
        Box::new(move |entry| {
            if ctx.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
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
            let Ok(count) = search_file(entry.path(), search, &mut buf, &mut found) else {
                return WalkState::Continue;
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
    (hits, total, ctx.is_cancelled())
}

/// Searches one file; pushes at most `search.max` matching lines into
/// `found` and returns the number of matching lines in the file. Binary
/// files count as no match.
fn search_file(
    path: &Path,
    search: &Search,
    buf: &mut Vec<u8>,
    found: &mut Vec<(u64, String)>,
) -> io::Result<u64> {
    let mut file = File::open(path)?;
    // One read into a buffer reused across files (no stat, no seek).
    buf.clear();
    (&mut file).take(IN_MEMORY_MAX + 1).read_to_end(buf)?;
    if looks_binary(&buf[..buf.len().min(BINARY_PROBE)]) {
        return Ok(0);
    }
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
    if buf.len() as u64 <= IN_MEMORY_MAX {
        if let Some(prefilter) = &search.prefilter {
            if !prefilter.is_match(buf) {
                return Ok(0);
            }
        }
        let mut number = 0u64;
        let mut start = 0usize;
        for end in memchr::memchr_iter(b'\n', buf) {
            number += 1;
            on_line(number, &buf[start..end]);
            start = end + 1;
        }
        if start < buf.len() {
            on_line(number + 1, &buf[start..]);
        }
    } else {
        // A large file: go on from what was read, line by line.
        let mut reader = BufReader::with_capacity(64 * 1024, Cursor::new(&buf[..]).chain(file));
        let mut line = Vec::new();
        let mut number = 0u64;
        while read_line_capped(&mut reader, &mut line, STREAM_LINE_MAX)?.is_some() {
            number += 1;
            on_line(number, &line);
        }
    }
    Ok(count)
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

fn format_hits(
    hits: &[Hit],
    total: u64,
    cancelled: bool,
    pattern: &str,
    path: Option<&str>,
) -> String {
    let mut out = String::new();
    if hits.is_empty() {
        out.push_str(&format!("No matches found for pattern \"{pattern}\""));
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
    if cancelled {
        out.push_str("\n(search cancelled before it finished)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(format_hits(&hits, 5, false, "x", None), "a/b.rs:3:x\n(4 more matches not shown; narrow the pattern, path or glob, or raise max_results)");
    }
}
