//! What a snapshot looks at: depth, file count and the skip lists.

use std::ffi::{OsStr, OsString};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::SnapshotError;

/// Directory names never entered by default: version-control, dependency,
/// virtual-environment, cache and build directories.
pub const DEFAULT_SKIPPED_DIRS: [&str; 11] = [
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".venv",
    "venv",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    "target",
];

/// File name patterns never recorded by default: compiled Python, editor
/// swap and backup files, temporary files and `.DS_Store`.
pub const DEFAULT_SKIPPED_FILES: [&str; 7] = [
    "*.pyc",
    "*.pyo",
    "*.swp",
    "*.swo",
    "*.tmp",
    "*~",
    ".DS_Store",
];

/// Default maximum depth: files directly in the root are level 1.
pub const DEFAULT_MAX_DEPTH: usize = 4;

/// Default maximum number of recorded entries.
pub const DEFAULT_MAX_FILES: usize = 500;

/// The bounds of a snapshot walk, built with chained setters.
///
/// * `max_depth` — files directly in the root are level 1; a directory at
///   level `max_depth` is never opened (its files would be one level too
///   deep). Default 4.
/// * `max_files` — at most this many entries (regular files and symlinks) are
///   recorded; the walk stops at the next one and the snapshot is marked
///   *cut* (see [`Snapshot::cut_at`](crate::Snapshot::cut_at)). Default 500.
/// * skipped directories — exact directory names (any level) that are never
///   entered. Default: `.git .hg .svn node_modules .venv venv __pycache__
///   .tox .mypy_cache .pytest_cache target`. Only real directories are
///   matched: a symlink named `target` is recorded like any other link.
/// * skipped files — glob patterns matched against the *file name* only
///   (`*` does not cross `/`), case-sensitive. Default: `*.pyc *.pyo *.swp
///   *.swo *.tmp *~ .DS_Store`. They apply to files and symlinks.
///
/// The patterns are compiled once, on first use, and the compiled set is
/// kept with the bounds (clones share nothing but are cheap); an invalid
/// pattern is reported by [`Bounds::validate`] and by
/// [`Snapshot::take`](crate::Snapshot::take).
///
/// ```
/// use toolexec_snapshot::Bounds;
/// let bounds = Bounds::default()
///     .max_files(2_000)
///     .skip_dir("dist")
///     .skip_file("*.log");
/// assert!(bounds.is_skipped_dir("dist".as_ref()));
/// assert!(bounds.is_skipped_file("build.log".as_ref()));
/// assert!(bounds.is_skipped_file("x.pyc".as_ref()));
/// ```
#[derive(Debug, Clone)]
pub struct Bounds {
    max_depth: usize,
    max_files: usize,
    skip_dirs: Vec<OsString>,
    skip_files: Vec<String>,
    matcher: OnceLock<Result<GlobSet, (String, String)>>,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_depth: DEFAULT_MAX_DEPTH,
            max_files: DEFAULT_MAX_FILES,
            skip_dirs: DEFAULT_SKIPPED_DIRS.iter().map(OsString::from).collect(),
            skip_files: DEFAULT_SKIPPED_FILES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            matcher: OnceLock::new(),
        }
    }
}

impl Bounds {
    /// The default bounds: at most 4 levels deep (files directly in the root
    /// are level 1), at most 500 files, the default skip lists (same as
    /// [`Bounds::default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the maximum depth (files directly in the root are level 1).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Sets the maximum number of recorded entries.
    #[must_use]
    pub fn max_files(mut self, files: usize) -> Self {
        self.max_files = files;
        self
    }

    /// Adds one skipped directory name.
    #[must_use]
    pub fn skip_dir(mut self, name: impl Into<OsString>) -> Self {
        let name = name.into();
        if !self.skip_dirs.contains(&name) {
            self.skip_dirs.push(name);
        }
        self
    }

    /// Replaces the skipped directory names (an empty list enters every
    /// directory).
    #[must_use]
    pub fn skip_dirs<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.skip_dirs = names.into_iter().map(Into::into).collect();
        self
    }

    /// Adds one skipped file-name glob pattern.
    #[must_use]
    pub fn skip_file(mut self, pattern: impl Into<String>) -> Self {
        let pattern = pattern.into();
        if !self.skip_files.contains(&pattern) {
            self.skip_files.push(pattern);
            self.matcher = OnceLock::new();
        }
        self
    }

    /// Replaces the skipped file-name glob patterns.
    #[must_use]
    pub fn skip_files<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skip_files = patterns.into_iter().map(Into::into).collect();
        self.matcher = OnceLock::new();
        self
    }

    /// The maximum depth.
    pub fn depth_limit(&self) -> usize {
        self.max_depth
    }

    /// The maximum number of recorded entries.
    pub fn file_limit(&self) -> usize {
        self.max_files
    }

    /// The skipped directory names.
    pub fn skipped_dirs(&self) -> &[OsString] {
        &self.skip_dirs
    }

    /// The skipped file-name patterns.
    pub fn skipped_file_patterns(&self) -> &[String] {
        &self.skip_files
    }

    /// Checks that every skipped-file pattern is a valid glob.
    pub fn validate(&self) -> Result<(), SnapshotError> {
        self.matcher().map(|_| ())
    }

    /// Whether a directory of this name is never entered.
    pub fn is_skipped_dir(&self, name: &OsStr) -> bool {
        self.skip_dirs.iter().any(|d| d == name)
    }

    /// Whether a file of this name is never recorded (an invalid pattern set
    /// skips nothing; [`Bounds::validate`] reports it).
    pub fn is_skipped_file(&self, name: &OsStr) -> bool {
        match self.matcher() {
            Ok(set) => set.is_match(name),
            Err(_) => false,
        }
    }

    /// Whether a path relative to the root lies inside the depth and skip
    /// bounds: at most `max_depth` components, no directory component
    /// skipped, and a file name not skipped. The file count is not
    /// considered here.
    pub fn contains(&self, relative: &std::path::Path) -> bool {
        let mut components = relative.components().peekable();
        let mut depth = 0usize;
        while let Some(component) = components.next() {
            let std::path::Component::Normal(name) = component else {
                return false;
            };
            depth += 1;
            if depth > self.max_depth {
                return false;
            }
            let is_last = components.peek().is_none();
            if is_last {
                if self.is_skipped_file(name) {
                    return false;
                }
            } else if self.is_skipped_dir(name) {
                return false;
            }
        }
        depth > 0
    }

    pub(crate) fn matcher(&self) -> Result<&GlobSet, SnapshotError> {
        self.matcher
            .get_or_init(|| compile(&self.skip_files))
            .as_ref()
            .map_err(|(pattern, message)| SnapshotError::InvalidPattern {
                pattern: pattern.clone(),
                message: message.clone(),
            })
    }
}

fn compile(patterns: &[String]) -> Result<GlobSet, (String, String)> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| (pattern.clone(), e.kind().to_string()))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| (String::new(), e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn defaults_match_the_spec() {
        let b = Bounds::default();
        assert_eq!(b.depth_limit(), 4);
        assert_eq!(b.file_limit(), 500);
        for d in DEFAULT_SKIPPED_DIRS {
            assert!(b.is_skipped_dir(OsStr::new(d)), "{d}");
        }
        for f in [
            "a.pyc",
            "a.pyo",
            ".x.swp",
            "a.swo",
            "a.tmp",
            "notes~",
            ".DS_Store",
        ] {
            assert!(b.is_skipped_file(OsStr::new(f)), "{f}");
        }
        for f in ["a.py", "tmp", "a.tmpx", "DS_Store", "~a", "a.pyc.bak"] {
            assert!(!b.is_skipped_file(OsStr::new(f)), "{f}");
        }
        assert!(!b.is_skipped_dir(OsStr::new("src")));
    }

    #[test]
    fn setters_add_and_replace() {
        let b = Bounds::default().skip_dir("dist").skip_file("*.log");
        assert!(b.is_skipped_dir(OsStr::new("dist")));
        assert!(b.is_skipped_dir(OsStr::new(".git")));
        assert!(b.is_skipped_file(OsStr::new("x.log")));
        assert!(b.is_skipped_file(OsStr::new("x.pyc")));
        let b = b.skip_dirs(["only"]).skip_files(["*.o"]);
        assert!(!b.is_skipped_dir(OsStr::new(".git")));
        assert!(b.is_skipped_dir(OsStr::new("only")));
        assert!(!b.is_skipped_file(OsStr::new("x.pyc")));
        assert!(b.is_skipped_file(OsStr::new("x.o")));
        let b = b
            .skip_dirs(Vec::<String>::new())
            .skip_files(Vec::<String>::new());
        assert!(!b.is_skipped_dir(OsStr::new("only")));
        assert!(!b.is_skipped_file(OsStr::new("x.o")));
    }

    #[test]
    fn invalid_pattern_is_reported() {
        let b = Bounds::default().skip_file("[oops");
        match b.validate() {
            Err(SnapshotError::InvalidPattern { pattern, .. }) => assert_eq!(pattern, "[oops"),
            other => panic!("expected InvalidPattern, got {other:?}"),
        }
        assert!(!b.is_skipped_file(OsStr::new("x.pyc")));
    }

    #[test]
    fn contains_checks_depth_and_skips() {
        let b = Bounds::default();
        assert!(b.contains(Path::new("a")));
        assert!(b.contains(Path::new("a/b/c/d")));
        assert!(!b.contains(Path::new("a/b/c/d/e")));
        assert!(!b.contains(Path::new("node_modules/x")));
        assert!(!b.contains(Path::new("src/target/x")));
        assert!(
            b.contains(Path::new("src/target")),
            "a file named target is recorded"
        );
        assert!(!b.contains(Path::new("src/x.pyc")));
        assert!(!b.contains(Path::new("")));
        assert!(!b.contains(Path::new("../x")));
    }
}
