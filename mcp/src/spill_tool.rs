//! `toolexec_read_spill`: the proxy's read-only tool that reads its own
//! spill files, so that the hints of a spilled or middle-cut result can be
//! followed whatever tools the child server has.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

/// The tool's name.
pub const READ_SPILL: &str = "toolexec_read_spill";

/// Default and largest number of lines one call returns.
const MAX_LINES: usize = 2_000;

/// Reads the spill files of one scratch directory (see the module docs).
///
/// Only regular files named `tool_result_*.txt` directly in the scratch
/// directory are opened (the path is resolved first, so neither `..` nor a
/// symlink leads elsewhere). Output: `{n:>6}\t{line}` per line, at most
/// `limit` lines (default and cap 2 000) and at most `max_chars`
/// characters, so the answer itself is never cut by the limiter; when lines
/// are left, a last line says which offset shows the next ones.
#[derive(Debug, Clone)]
pub struct ReadSpill {
    scratch: PathBuf,
    max_chars: usize,
    schema: Value,
}

impl ReadSpill {
    /// A reader of the spill files in `scratch`, answering at most
    /// `max_chars` characters a call.
    pub fn new(scratch: impl Into<PathBuf>, max_chars: usize) -> Self {
        ReadSpill {
            scratch: scratch.into(),
            max_chars: max_chars.max(200),
            schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The spill file a result named."},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to show (1-based, default 1)."},
                    "limit": {"type": "integer", "minimum": 1, "description": "How many lines (default and at most 2000)."}
                },
                "required": ["path"]
            }),
        }
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let refuse = |why: &str| {
            ToolError::new(format!(
                "{READ_SPILL}: {path}: {why}; only this server's spill files (named in its results) can be read"
            ))
        };
        let given = Path::new(path);
        let resolved = given
            .canonicalize()
            .map_err(|e| refuse(&format!("cannot open it ({e})")))?;
        let scratch = self
            .scratch
            .canonicalize()
            .map_err(|_| refuse("no result has been spilled yet"))?;
        let name = resolved
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let spill_name = name.starts_with("tool_result_") && name.ends_with(".txt");
        if resolved.parent() != Some(scratch.as_path()) || !spill_name {
            return Err(refuse("not a spill file of this server"));
        }
        let meta = std::fs::metadata(&resolved).map_err(|e| refuse(&e.to_string()))?;
        if !meta.is_file() {
            return Err(refuse("not a regular file"));
        }
        Ok(resolved)
    }

    fn read(&self, input: &Value, ctx: &ToolContext) -> Result<String, ToolError> {
        let Some(path) = input.get("path").and_then(Value::as_str) else {
            return Err(ToolError::new(format!(
                "tool {READ_SPILL}: invalid input: \"path\" must be a string"
            )));
        };
        let number = |field: &str, default: usize| -> Result<usize, ToolError> {
            match input.get(field) {
                None | Some(Value::Null) => Ok(default),
                Some(v) => v
                    .as_u64()
                    .filter(|n| *n >= 1)
                    .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
                    .ok_or_else(|| {
                        ToolError::new(format!(
                            "tool {READ_SPILL}: invalid input: \"{field}\" must be a positive integer"
                        ))
                    }),
            }
        };
        let offset = number("offset", 1)?;
        let limit = number("limit", MAX_LINES)?.min(MAX_LINES);
        let file = std::fs::File::open(self.resolve(path)?)
            .map_err(|e| ToolError::new(format!("{READ_SPILL}: {path}: {e}")))?;
        let mut reader = BufReader::new(file);
        let mut out = String::new();
        let mut chars = 0usize;
        let mut line = Vec::new();
        let mut n = 0usize;
        let mut last_shown = 0usize;
        let mut more = false;
        loop {
            line.clear();
            let read = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| ToolError::new(format!("{READ_SPILL}: {path}: {e}")))?;
            if read == 0 {
                break;
            }
            n += 1;
            if n.is_multiple_of(1024) && ctx.is_cancelled() {
                return Err(ToolError::new(format!("{READ_SPILL}: cancelled")));
            }
            if n < offset {
                continue;
            }
            if n >= offset + limit {
                more = true;
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            let text = text.strip_suffix('\r').unwrap_or(text);
            let entry = format!("{n:>6}\t{text}\n");
            let len = entry.chars().count();
            if chars + len > self.max_chars.saturating_sub(120) && last_shown > 0 {
                more = true;
                break;
            }
            chars += len;
            out.push_str(&entry);
            last_shown = n;
        }
        if last_shown == 0 {
            return Ok(format!(
                "({path} has {n} lines; offset {offset} is past its end)"
            ));
        }
        if more {
            out.push_str(&format!(
                "[showing lines {offset}-{last_shown}; use {READ_SPILL} with offset={} to see more]",
                last_shown + 1
            ));
        } else if out.ends_with('\n') {
            out.pop();
        }
        Ok(out)
    }
}

impl Tool for ReadSpill {
    fn name(&self) -> &str {
        READ_SPILL
    }

    fn description(&self) -> &str {
        "Reads a spill file that toolexec named in an oversized result (numbered lines from `offset`, at most `limit`)."
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
        Box::pin(async move { self.read(&input, &ctx) })
    }
}

/// Points the hints of a result that the proxy spilled or cut at
/// [`READ_SPILL`] instead of `read` (which the child server may not have,
/// or may not allow on the scratch directory). Only the notes the limiter
/// wrote are touched: they name the result's own spill file.
pub fn retarget_hints(content: &str, spill_path: &Path) -> Option<String> {
    let path = spill_path.display().to_string();
    let spilled = format!(
        "Full output was spilled to scratch file: {path}\nUse read tool on this path if you need full content."
    );
    if content.starts_with("Result too large (") && content.ends_with(&spilled) {
        let head = &content[..content.len() - spilled.len()];
        return Some(format!(
            "{head}Full output was spilled to scratch file: {path}\nUse {READ_SPILL} on this path if you need full content."
        ));
    }
    let cut = format!("; use read on {path} with offset=");
    content.find(&cut).map(|at| {
        format!(
            "{}; use {READ_SPILL} on {path} with offset={}",
            &content[..at],
            &content[at + cut.len()..]
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_are_pointed_at_the_spill_reader() {
        let p = Path::new("/s/tool_result_1.txt");
        let spilled = "Result too large (60000 chars). Full output was spilled to scratch file: /s/tool_result_1.txt\nUse read tool on this path if you need full content.";
        assert_eq!(
            retarget_hints(spilled, p).unwrap(),
            "Result too large (60000 chars). Full output was spilled to scratch file: /s/tool_result_1.txt\nUse toolexec_read_spill on this path if you need full content."
        );
        let cut = "a\n...[truncated 5 chars; showing lines 1-1 and 3-3 of 3 total; use read on /s/tool_result_1.txt with offset=2 to see middle]...\nc";
        assert_eq!(
            retarget_hints(cut, p).unwrap(),
            "a\n...[truncated 5 chars; showing lines 1-1 and 3-3 of 3 total; use toolexec_read_spill on /s/tool_result_1.txt with offset=2 to see middle]...\nc"
        );
        assert_eq!(retarget_hints("use read tool on this path", p), None);
    }

    proptest::proptest! {
        /// Whatever offset and limit, the lines shown are exactly the
        /// file's lines from `offset`, numbered, and a "more" note names the
        /// next line.
        #[test]
        fn shows_exactly_the_requested_lines(
            lines in proptest::collection::vec("[a-z][a-z ]{0,29}", 1..60),
            offset in 1usize..70,
            limit in 1usize..70,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("tool_result_7.txt");
            std::fs::write(&file, lines.join("\n")).unwrap();
            let tool = ReadSpill::new(dir.path(), 100_000);
            let ctx = ToolContext::new(dir.path(), "1");
            let input = json!({"path": file.to_str().unwrap(), "offset": offset, "limit": limit});
            let out = tool.read(&input, &ctx).unwrap();
            if offset > lines.len() {
                proptest::prop_assert!(out.contains("is past its end"), "{}", out);
            } else {
                let end = (offset + limit - 1).min(lines.len());
                let mut want: Vec<String> = (offset..=end)
                    .map(|n| format!("{n:>6}\t{}", lines[n - 1]))
                    .collect();
                if end < lines.len() {
                    want.push(format!("[showing lines {offset}-{end}; use {READ_SPILL} with offset={} to see more]", end + 1));
                }
                proptest::prop_assert_eq!(out, want.join("\n"));
            }
        }
    }

    #[test]
    fn only_spill_files_of_the_scratch_directory_are_read() {
        let scratch = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let secret = other.path().join("tool_result_1.txt");
        std::fs::write(&secret, "elsewhere").unwrap();
        std::fs::write(scratch.path().join("notes.txt"), "x").unwrap();
        let link = scratch.path().join("tool_result_2.txt");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let tool = ReadSpill::new(scratch.path(), 10_000);
        let ctx = ToolContext::new(scratch.path(), "1");
        for path in [
            secret.clone(),
            scratch.path().join("notes.txt"),
            link,
            scratch.path().join("../x/tool_result_1.txt"),
        ] {
            let err = tool
                .read(&json!({"path": path.to_str().unwrap()}), &ctx)
                .unwrap_err();
            assert!(err.message().starts_with(READ_SPILL), "{}", err.message());
        }
    }
}
