//! The workspace jail: every path argument of every tool goes through
//! [`Jail::resolve`] before anything is read or written.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::ToolsError;

/// Resolves path arguments inside one workspace root.
///
/// Rules, checked before the tool touches anything:
///
/// - A relative path is relative to the root. `.` components are dropped
///   and `..` components are applied lexically; a `..` that would climb
///   above the root (`../x`, `a/../../x`) is refused.
/// - An absolute path is accepted only when it lies inside the root (as
///   given or canonical).
/// - The longest existing prefix of the result is canonicalized (symbolic
///   links resolved); if that leads outside the root the path is refused.
///   A dangling symbolic link anywhere on the way is refused too, since
///   where it would lead cannot be checked.
///
/// The resolved path is absolute and starts with the canonical root; the
/// tools use it (not the original text) for every file operation, so a
/// `link/..` in the argument can never be reinterpreted by the kernel.
/// What remains is the usual race of any path check: a symbolic link
/// planted between the check and the use by another process.
///
/// # Example
///
/// ```
/// use toolexec_tools::Jail;
///
/// let dir = tempfile::tempdir().unwrap();
/// let jail = Jail::new(dir.path()).unwrap();
/// let inside = jail.resolve("src/../notes.md").unwrap();
/// assert_eq!(jail.display(&inside), "notes.md");
/// assert!(jail.resolve("../etc/passwd").unwrap_err().is_outside_workspace());
/// assert!(jail.resolve("/etc/passwd").unwrap_err().is_outside_workspace());
/// ```
#[derive(Debug, Clone)]
pub struct Jail {
    /// The root as given (for lexical checks of absolute paths).
    given: PathBuf,
    /// The canonical root: every resolved path starts with it.
    root: PathBuf,
}

impl Jail {
    /// A jail rooted at `workdir`, which must exist.
    pub fn new(workdir: &Path) -> Result<Self, ToolsError> {
        let display = workdir.display().to_string();
        let root = fs::canonicalize(workdir).map_err(|source| ToolsError::Io {
            op: "resolve the workspace root",
            path: display,
            source,
        })?;
        Ok(Jail {
            given: lexical_absolute(workdir),
            root,
        })
    }

    /// The canonical workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path argument to an absolute path inside the root, or
    /// refuses it with an error naming `arg`. An empty argument means the
    /// root itself.
    pub fn resolve(&self, arg: &str) -> Result<PathBuf, ToolsError> {
        let path = Path::new(arg);
        let normalized = if path.is_absolute() {
            lexical_absolute(path)
        } else {
            let mut rel = PathBuf::new();
            for component in path.components() {
                match component {
                    Component::CurDir => {}
                    Component::ParentDir => {
                        if !rel.pop() {
                            return Err(ToolsError::OutsideWorkspace {
                                path: arg.to_string(),
                                reason: "`..` leads above the workspace root".to_string(),
                            });
                        }
                    }
                    Component::Normal(name) => rel.push(name),
                    // Not produced for a relative path on Unix.
                    Component::RootDir | Component::Prefix(_) => {}
                }
            }
            self.root.join(rel)
        };
        let lexically_inside =
            normalized.starts_with(&self.root) || normalized.starts_with(&self.given);

        let resolved = physical(&normalized).map_err(|source| ToolsError::Unresolvable {
            path: arg.to_string(),
            source,
        })?;
        if resolved.starts_with(&self.root) {
            return Ok(resolved);
        }
        let reason = if lexically_inside {
            format!("it leads through a symbolic link to {}", resolved.display())
        } else {
            "an absolute path elsewhere".to_string()
        };
        Err(ToolsError::OutsideWorkspace {
            path: arg.to_string(),
            reason,
        })
    }

    /// A resolved path as the tools print it: relative to the root, with
    /// `/` separators (lossy for non-UTF-8 names); `.` for the root.
    pub fn display(&self, resolved: &Path) -> String {
        let rel = resolved.strip_prefix(&self.root).unwrap_or(resolved);
        slash_path(rel)
    }
}

/// `a/b/c` for any relative path; `.` when empty.
pub(crate) fn slash_path(rel: &Path) -> String {
    let mut out = String::new();
    for component in rel.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&name.to_string_lossy());
        }
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// Lexical normalization of a path made absolute against the current
/// directory: `.` dropped, `..` applied (never above `/`).
fn lexical_absolute(path: &Path) -> PathBuf {
    let joined;
    let path = if path.is_absolute() {
        path
    } else {
        joined = std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path);
        &joined
    };
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Canonicalizes the longest existing prefix of a lexically normalized
/// absolute path and appends the rest.
fn physical(normalized: &Path) -> io::Result<PathBuf> {
    let mut current = normalized.to_path_buf();
    let mut rest: Vec<OsString> = Vec::new();
    loop {
        match fs::canonicalize(&current) {
            Ok(mut base) => {
                for name in rest.iter().rev() {
                    base.push(name);
                }
                return Ok(base);
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&current).is_ok() {
                    return Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!(
                            "{} is a dangling symbolic link",
                            current.file_name().map_or_else(
                                || current.display().to_string(),
                                |n| n.to_string_lossy().into_owned()
                            )
                        ),
                    ));
                }
                match current.file_name() {
                    Some(name) => {
                        rest.push(name.to_os_string());
                        current.pop();
                    }
                    None => return Err(err),
                }
            }
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_resolve_inside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let jail = Jail::new(dir.path()).expect("jail");
        let root = jail.root().to_path_buf();
        assert_eq!(jail.resolve("").expect("root"), root);
        assert_eq!(jail.resolve(".").expect("root"), root);
        assert_eq!(jail.resolve("a/./b/../c").expect("c"), root.join("a/c"));
        assert_eq!(jail.display(&root.join("a/c")), "a/c");
        assert_eq!(jail.display(&root), ".");
    }

    #[test]
    fn parent_escapes_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let jail = Jail::new(dir.path()).expect("jail");
        for p in ["..", "../x", "a/../../x", "./../x", "a/b/../../../x"] {
            let err = jail.resolve(p).expect_err(p);
            assert!(err.is_outside_workspace(), "{p}: {err}");
            assert!(err.to_string().contains(&format!("\"{p}\"")), "{err}");
        }
    }

    #[test]
    fn dangling_links_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::os::unix::fs::symlink("/nonexistent/elsewhere", dir.path().join("dangling"))
            .expect("symlink");
        let jail = Jail::new(dir.path()).expect("jail");
        for p in ["dangling", "dangling/x"] {
            let err = jail.resolve(p).expect_err(p);
            assert!(matches!(err, ToolsError::Unresolvable { .. }), "{p}: {err}");
        }
    }
}
