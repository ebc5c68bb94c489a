//! The glue that `toolexec run`, `toolexec mcp` and `toolexec proxy` share:
//! the default executor with the built-in tools and their read-before-edit
//! tracker, the environment-aware redactor, and the common pipeline options.
//!
//! It lives here rather than in the binary so that an embedder gets the
//! same executor the command line builds, and so that no library depends on
//! the binary.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use toolexec_core::ExecutorBuilder;

use crate::Error;

/// Settings of the built-in tools.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// Secret-looking environment variables exec may pass on.
    pub allow_env: Vec<String>,
    /// Directories outside the workspace that `read` may open by absolute
    /// path: the scratch directory, so that the model can follow a spill
    /// message.
    pub read_roots: Vec<PathBuf>,
    /// The sandbox exec runs commands in (default
    /// `workspace-write`, network denied). The read roots (the session's
    /// scratch dir) are writable in it too.
    pub sandbox: toolexec_tools::Sandbox,
    /// The session's redactor, so that edit and write see files as the model
    /// saw them (secret-preserving edits); `None`: the built-in rules.
    pub redactor: Option<toolexec_redact::Redactor>,
}

/// An executor builder with the built-in tools and their read-before-edit
/// tracker registered as change observer.
pub fn builtin_executor_builder(workdir: &Path, options: &ToolOptions) -> ExecutorBuilder {
    let sandbox = options
        .read_roots
        .iter()
        .fold(options.sandbox.clone(), |sandbox, root| {
            sandbox.writable(root)
        });
    let exec = toolexec_tools::ExecConfig::default()
        .allow_env(options.allow_env.iter().cloned())
        .sandbox(sandbox);
    let mut config = toolexec_tools::BuiltinConfig::default().with_exec(exec);
    for root in &options.read_roots {
        config = config.with_read_root(root);
    }
    if let Some(redactor) = &options.redactor {
        config = config.with_redactor(redactor.clone());
    }
    let builtin = toolexec_tools::builtin_tools(&config);
    toolexec_core::Executor::builder(workdir)
        .tools(builtin.tools)
        .observer(builtin.tracker)
}

/// The redactor: built-in rules, optional user rules (a TOML or JSON file),
/// and (unless `env_values` is false) the values of this process's
/// secret-looking environment variables.
pub fn build_redactor(
    rules: Option<&Path>,
    env_values: bool,
) -> Result<toolexec_redact::Redactor, Error> {
    let mut builder = toolexec_redact::Redactor::builder();
    if let Some(path) = rules {
        let set = toolexec_redact::RuleSet::from_path(path).map_err(|e| Error::Rules {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })?;
        builder = builder.rules(set);
    }
    builder = builder.env_values(env_values);
    builder.build().map_err(|e| Error::Rules {
        path: rules.map(Path::to_path_buf).unwrap_or_default(),
        detail: e.to_string(),
    })
}

/// The directory `dir`, canonicalized; [`Error::Workdir`] when it is not
/// one.
pub fn canonical_workdir(dir: &Path) -> Result<PathBuf, Error> {
    if !dir.is_dir() {
        return Err(Error::Workdir {
            path: dir.to_path_buf(),
            detail: "not a directory".to_string(),
        });
    }
    dir.canonicalize().map_err(|e| Error::Workdir {
        path: dir.to_path_buf(),
        detail: e.to_string(),
    })
}

/// The pipeline options `run`, `mcp` and `proxy` share.
#[derive(Debug, Clone)]
pub struct PipelineOptions {
    /// Per-result budget in characters (default 10 000).
    pub budget: usize,
    /// Lines longer than this many characters are replaced by a note
    /// (default 2 000).
    pub max_line: usize,
    /// How many concurrency-safe calls run at once (default 5).
    pub max_concurrency: usize,
    /// Where oversized results are spilled (default: the limiter's).
    pub scratch: Option<PathBuf>,
    /// Tools offered to the model (default all).
    pub offered: Option<Vec<String>>,
    /// Disabled tools.
    pub disabled: Vec<String>,
    /// Deadline for every call, overriding each tool's own.
    pub timeout: Option<Duration>,
    /// Validate every input against the tool's whole JSON Schema.
    pub full_validation: bool,
    /// Extra redaction rules (a TOML or JSON file).
    pub rules: Option<PathBuf>,
    /// Extra directories watched for changes besides the workdir.
    pub watch_roots: Vec<PathBuf>,
    /// Do not start the snapshot watcher (only the bounded walk is used).
    pub no_watch: bool,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            budget: 10_000,
            max_line: 2_000,
            max_concurrency: 5,
            scratch: None,
            offered: None,
            disabled: Vec::new(),
            timeout: None,
            full_validation: false,
            rules: None,
            watch_roots: Vec::new(),
            no_watch: false,
        }
    }
}

impl PipelineOptions {
    /// The size limits these options ask for. A relative `scratch` is made
    /// absolute, so that the spill message names a path the model can read
    /// whatever its working directory.
    pub fn limits(&self) -> Result<toolexec_limiter::Limits, Error> {
        let mut limits = toolexec_limiter::Limits::default()
            .budget(self.budget)
            .max_line(self.max_line);
        if let Some(scratch) = &self.scratch {
            let scratch = std::path::absolute(scratch).map_err(|e| Error::Scratch {
                path: scratch.clone(),
                detail: e.to_string(),
            })?;
            limits = limits.scratch_dir(scratch);
        }
        Ok(limits)
    }

    /// The redactor of these options: the built-in rules, `rules`, and the
    /// values of this process's secret-looking environment variables.
    pub fn redactor(&self) -> Result<toolexec_redact::Redactor, Error> {
        build_redactor(self.rules.as_deref(), true)
    }

    /// Applies the limits, scheduling, turn, deadline, validation and
    /// redaction options to `builder`.
    pub fn apply(
        &self,
        builder: ExecutorBuilder,
        redactor: Arc<toolexec_redact::Redactor>,
    ) -> Result<ExecutorBuilder, Error> {
        Ok(builder
            .max_concurrency(self.max_concurrency)
            .limits(Some(self.limits()?))
            .offered(self.offered.clone())
            .disabled(self.disabled.clone())
            .timeout_override(self.timeout)
            .full_validation(self.full_validation)
            .redactor(Some(redactor)))
    }

    /// The snapshot settings for a workspace diff of `workdir`: the default
    /// bounds and, unless `no_watch`, a watcher of `workdir` and the
    /// `watch_roots` directories (each shown under its directory name,
    /// `NAME:path`). The watcher's start-up walk runs on the blocking pool.
    pub async fn snapshot_config(
        &self,
        workdir: &Path,
    ) -> Result<toolexec_core::SnapshotConfig, Error> {
        let config = toolexec_core::SnapshotConfig::new();
        if self.no_watch {
            if let Some(root) = self.watch_roots.first() {
                return Err(Error::WatchRoot {
                    path: root.clone(),
                    detail: "cannot be used with --no-watch".to_string(),
                });
            }
            return Ok(config);
        }
        let mut extra = Vec::with_capacity(self.watch_roots.len());
        for root in &self.watch_roots {
            if !root.is_dir() {
                return Err(Error::WatchRoot {
                    path: root.clone(),
                    detail: "not a directory".to_string(),
                });
            }
            let canonical = root.canonicalize().map_err(|e| Error::WatchRoot {
                path: root.clone(),
                detail: e.to_string(),
            })?;
            let name = canonical
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "root".to_string());
            extra.push(toolexec_snapshot::WatchRoot::new(name, canonical));
        }
        let workdir = workdir.to_path_buf();
        let bounds = config.bounds.clone();
        let started = tokio::task::spawn_blocking(move || {
            toolexec_snapshot::Watcher::start(
                &workdir,
                extra,
                &bounds,
                toolexec_snapshot::WatchOptions::default(),
            )
        })
        .await
        .map_err(|e| Error::Watcher(e.to_string()))?;
        let watcher = started.map_err(|e| Error::Watcher(e.to_string()))?;
        Ok(config.watcher(Some(Arc::new(watcher))))
    }

    /// The default executor of `toolexec run` and `toolexec mcp`: the
    /// built-in tools (read may also open the scratch directory's spill
    /// files), these options, and the workspace diff of `workdir` with
    /// `snapshot`.
    pub fn builtin_executor(
        &self,
        workdir: &Path,
        tools: &ToolOptions,
        redactor: Arc<toolexec_redact::Redactor>,
        snapshot: toolexec_core::SnapshotConfig,
    ) -> Result<ExecutorBuilder, Error> {
        let mut tools = tools.clone();
        let scratch = self.limits()?.scratch_dir;
        if !tools.read_roots.contains(&scratch) {
            tools.read_roots.push(scratch);
        }
        Ok(self
            .apply(builtin_executor_builder(workdir, &tools), redactor)?
            .snapshot(Some(snapshot)))
    }
}
