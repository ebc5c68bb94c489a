//! `glob`: list files matching a glob pattern.

use std::path::PathBuf;
use std::sync::Mutex;

use globset::GlobBuilder;
use ignore::WalkState;
use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture};

use crate::args::Args;
use crate::error::ToolsError;
use crate::fsutil::blocking;
use crate::jail::{slash_path, Jail};
use crate::walk::{walker, Smallest};

/// Paths listed at most; the rest is counted.
pub const GLOB_MAX_RESULTS: usize = 1000;

/// The `glob` tool: lists the files under `path` (default: the workspace
/// root) whose path relative to `path` matches `pattern`.
///
/// Pattern syntax is `globset`'s: `*` and `?` never cross `/`, `**`
/// matches any number of directories, `{a,b}` alternatives, `[ab]`
/// classes. So `*.rs` lists the Rust files directly in `path` and
/// `**/*.rs` all of them. A leading `./` is ignored. The walk is the one of
/// grep (`.gitignore` honoured, hidden entries skipped, symbolic links
/// listed but not followed); directories are not listed. Each listed path
/// is checked beneath the workspace root's handle ([`Jail`]) before it is
/// printed, and the walk does not descend into a directory that is no
/// longer a real directory beneath the root, so a directory swapped for a
/// symbolic link during the walk never shows names from outside.
///
/// Names are printed with [`escape_name`](crate::escape_name): a name
/// that is not valid UTF-8, or holds a newline or another control
/// character, shows those bytes as `\xNN`, so each entry is one line and
/// can be passed back to read as printed.
///
/// Output: one path a line, relative to the workspace root (so it can be
/// passed to read as is), `/` separators, sorted by path; at most
/// [`GLOB_MAX_RESULTS`], then `(N more files not shown; narrow the
/// pattern or path)`. No match: `No files match "PATTERN"`.
#[derive(Debug)]
pub struct GlobTool {
    schema: Value,
}

impl Default for GlobTool {
    fn default() -> Self {
        GlobTool::new()
    }
}

impl GlobTool {
    /// The glob tool.
    pub fn new() -> Self {
        GlobTool {
            schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Glob matched against paths relative to `path`: \"*.rs\" (this directory only), \"**/*.rs\" (any depth), \"src/{a,b}/*.toml\"."
                    },
                    "path": {
                        "type": "string",
                        "description": "Directory to search in, relative to the workspace root (default: the root)."
                    }
                },
                "required": ["pattern"]
            }),
        }
    }
}

impl Tool for GlobTool {
    fn name(&self) -> &str {
        "glob"
    }

    fn description(&self) -> &str {
        "List files whose path matches a glob pattern, e.g. \"**/*.rs\" or \"src/*.toml\". \
         Paths are relative to the workspace root, sorted, at most 1000. Honours \
         .gitignore and skips hidden files."
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
            if pattern.starts_with('/') {
                return Err(ToolsError::field(
                    "pattern",
                    "must be relative (put the directory in the `path` field)",
                )
                .into());
            }
            let glob = pattern.strip_prefix("./").unwrap_or(&pattern);
            let matcher = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| ToolsError::InvalidGlob {
                    pattern: pattern.clone(),
                    message: e.kind().to_string(),
                })?
                .compile_matcher();

            let jail = Jail::new(ctx.workdir())?;
            let start = jail.resolve(path_arg.as_deref().unwrap_or(""))?;
            let shown_path = path_arg.clone().unwrap_or_else(|| ".".to_string());
            match jail.stat(&start, &shown_path)? {
                None => return Err(ToolsError::NotFound { path: shown_path }.into()),
                Some(meta) if !meta.is_dir() => {
                    return Err(ToolsError::NotDirectory { path: shown_path }.into())
                }
                Some(_) => {}
            }
            let root = jail.root().to_path_buf();
            let cancel = ctx.clone();
            let text = blocking(move || {
                let collected: Mutex<Smallest<PathBuf>> =
                    Mutex::new(Smallest::new(GLOB_MAX_RESULTS));
                walker(&start).build_parallel().run(|| {
                    let collected = &collected;
                    let (start, root, matcher, cancel) = (&start, &root, &matcher, &cancel);
                    let jail = &jail;
                    Box::new(move |entry| {
                        if cancel.is_cancelled() {
                            return WalkState::Quit;
                        }
                        let Ok(entry) = entry else {
                            return WalkState::Continue;
                        };
                        if entry.depth() > 0 && entry.file_type().is_some_and(|t| t.is_dir()) {
                            // Never descend into what is no longer a real
                            // directory beneath the root.
                            return match jail.stat(entry.path(), "") {
                                Ok(Some(meta)) if meta.is_dir() => WalkState::Continue,
                                _ => WalkState::Skip,
                            };
                        }
                        let listed = entry.depth() > 0
                            && entry
                                .file_type()
                                .is_some_and(|t| t.is_file() || t.is_symlink());
                        if !listed {
                            return WalkState::Continue;
                        }
                        let path = entry.path();
                        let within = path.strip_prefix(start).unwrap_or(path);
                        // Listed only if it exists beneath the root now, with
                        // no symbolic link on the way (the walk went by path).
                        let verified = || {
                            jail.stat(path, "")
                                .ok()
                                .flatten()
                                .is_some_and(|meta| meta.is_file() || meta.file_type().is_symlink())
                        };
                        if matcher.is_match(within) && verified() {
                            let rel = path.strip_prefix(root).unwrap_or(path).to_path_buf();
                            collected
                                .lock()
                                .unwrap_or_else(|poison| poison.into_inner())
                                .push(rel);
                        }
                        WalkState::Continue
                    })
                });
                let (paths, total) = collected
                    .into_inner()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .finish();
                let mut out = String::new();
                if paths.is_empty() {
                    out.push_str(&format!("No files match \"{pattern}\""));
                    if let Some(path) = &path_arg {
                        out.push_str(&format!(" in \"{path}\""));
                    }
                }
                for path in &paths {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&slash_path(path));
                }
                let more = total.saturating_sub(paths.len() as u64);
                if more > 0 {
                    out.push_str(&format!(
                        "\n({more} more files not shown; narrow the pattern or path)"
                    ));
                }
                if cancel.is_cancelled() {
                    out.push_str("\n(listing cancelled before it finished)");
                }
                Ok(out)
            })
            .await?;
            Ok::<_, ToolError>(text)
        })
    }
}
