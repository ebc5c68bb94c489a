//! The workspace jail: every path argument of every tool goes through
//! [`Jail::resolve`] before anything is read or written, and every file
//! operation then goes through the jail's open handle of the root with
//! kernel-enforced beneath-resolution (`openat2`).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use crate::error::ToolsError;

/// Resolves path arguments inside one workspace root, and opens what they
/// name beneath an open handle of that root.
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
/// - A path that does not exist as written but holds `\xNN` escapes is
///   looked up with those bytes instead: this is how glob and grep list a
///   name that is not valid UTF-8 or holds a control character (see
///   [`escape_name`]), so a listed name can always be read back.
///
/// The resolved path is absolute, starts with the canonical root and holds
/// no symbolic link (at the time of the check). **The race**: a process
/// that swaps a directory or file for a symbolic link between that check
/// and the use cannot make a tool touch anything outside, because the tools
/// never use the path as such: they open its part below the root with
/// `openat2(root_fd, rel, …, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS)` on the handle opened by [`Jail::new`]. The
/// kernel refuses any symbolic link met on the way (there was none at the
/// check, so one now is a swap) and any escape from the root; the call then
/// fails with `path "P" is outside the workspace (it changed into a
/// symbolic link while the call ran)` and nothing is touched. Where the
/// kernel has no `openat2` (Linux before 5.6, other systems), every file
/// operation fails closed with [`ToolsError::JailUnavailable`].
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
    /// An `O_PATH` handle of the root every operation resolves beneath.
    fd: Arc<OwnedFd>,
}

/// The flags of every beneath-resolution: no symbolic link at all (the
/// checked path had none), no magic link, never above the root.
fn resolve_flags() -> ResolveFlags {
    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS
}

/// `openat2` beneath `dir`, retrying the `EAGAIN` the kernel returns when a
/// concurrent rename disturbed the lookup.
fn openat2_beneath(dir: impl AsFd, rel: &Path, flags: OFlags) -> Result<OwnedFd, Errno> {
    let rel: &Path = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    // openat2 refuses (EINVAL) any flag O_PATH ignores.
    let flags = if flags.contains(OFlags::PATH) {
        flags | OFlags::CLOEXEC
    } else {
        flags | OFlags::CLOEXEC | OFlags::NOCTTY
    };
    let mut tries = 0;
    loop {
        match rustix::fs::openat2(dir.as_fd(), rel, flags, Mode::empty(), resolve_flags()) {
            Err(Errno::AGAIN | Errno::INTR) if tries < 16 => tries += 1,
            other => return other,
        }
    }
}

impl Jail {
    /// A jail rooted at `workdir`, which must exist.
    pub fn new(workdir: &Path) -> Result<Self, ToolsError> {
        let display = workdir.display().to_string();
        let root = fs::canonicalize(workdir).map_err(|source| ToolsError::Io {
            op: "resolve the workspace root",
            path: display.clone(),
            source,
        })?;
        let fd = rustix::fs::open(
            &root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| ToolsError::Io {
            op: "open the workspace root",
            path: display.clone(),
            source: errno.into(),
        })?;
        Ok(Jail {
            given: lexical_absolute(workdir),
            root,
            fd: Arc::new(fd),
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
        if arg.contains('\0') {
            return Err(ToolsError::field("path", "must not contain a NUL byte"));
        }
        let literal = self.resolve_bytes(arg, Path::new(arg));
        match &literal {
            Err(ToolsError::NotFound { .. }) | Ok(_) if arg.contains("\\x") => {
                let missing = match &literal {
                    Ok(path) => fs::symlink_metadata(path).is_err(),
                    Err(_) => true,
                };
                if missing {
                    if let Some(bytes) = unescape_name(arg) {
                        let decoded = PathBuf::from(OsString::from_vec(bytes));
                        if let Ok(path) = self.resolve_bytes(arg, &decoded) {
                            if fs::symlink_metadata(&path).is_ok() {
                                return Ok(path);
                            }
                        }
                    }
                }
                literal
            }
            _ => literal,
        }
    }

    fn resolve_bytes(&self, arg: &str, path: &Path) -> Result<PathBuf, ToolsError> {
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
        slash_path(self.relative(resolved))
    }

    /// The part of a resolved path below the root (empty for the root).
    pub(crate) fn relative<'a>(&self, resolved: &'a Path) -> &'a Path {
        resolved.strip_prefix(&self.root).unwrap_or(resolved)
    }

    /// The error for a failed beneath-open of `display`.
    pub(crate) fn open_error(op: &'static str, display: &str, errno: Errno) -> ToolsError {
        match errno {
            Errno::LOOP | Errno::XDEV => ToolsError::OutsideWorkspace {
                path: display.to_string(),
                reason: "it changed into a symbolic link while the call ran".to_string(),
            },
            Errno::NOSYS => ToolsError::JailUnavailable {
                reason: "the kernel has no openat2 (Linux 5.6 or later is needed)".to_string(),
            },
            Errno::NOTDIR => ToolsError::NotDirectory {
                path: display.to_string(),
            },
            // Opening a socket (or a device without a driver) fails so.
            Errno::NXIO | Errno::NODEV => ToolsError::NotRegularFile {
                path: display.to_string(),
            },
            other => ToolsError::io(op, display, other.into()),
        }
    }

    /// Opens a resolved path beneath the root with `flags`.
    pub(crate) fn open_beneath(&self, resolved: &Path, flags: OFlags) -> Result<OwnedFd, Errno> {
        if !resolved.starts_with(&self.root) {
            // Never happens for a path from `resolve`; refuse rather than
            // open an absolute path.
            return Err(Errno::XDEV);
        }
        openat2_beneath(&*self.fd, self.relative(resolved), flags)
    }

    /// Opens a resolved path for reading without blocking and without
    /// following a symbolic link, and refuses anything but a regular file:
    /// a directory ([`ToolsError::IsDirectory`]), a FIFO, socket or device
    /// ([`ToolsError::NotRegularFile`]). `O_NONBLOCK` makes opening a FIFO
    /// return at once; the type is then taken from `fstat` of the open
    /// descriptor, so what is checked is what is read. The returned file is
    /// in blocking mode again.
    pub(crate) fn open_read(
        &self,
        resolved: &Path,
        display: &str,
    ) -> Result<(File, Metadata), ToolsError> {
        let fd = self
            .open_beneath(
                resolved,
                OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW,
            )
            .map_err(|e| Self::open_error("read", display, e))?;
        regular_file(fd, display)
    }

    /// `lstat` of a resolved path beneath the root (`None` when it does not
    /// exist). A symbolic link as the last component is described, not
    /// followed.
    pub(crate) fn stat(
        &self,
        resolved: &Path,
        display: &str,
    ) -> Result<Option<Metadata>, ToolsError> {
        match self.open_beneath(resolved, OFlags::PATH | OFlags::NOFOLLOW) {
            Ok(fd) => File::from(fd)
                .metadata()
                .map(Some)
                .map_err(|e| ToolsError::io("inspect", display, e)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(Self::open_error("inspect", display, e)),
        }
    }

    /// Opens the parent directory of a resolved path beneath the root,
    /// creating missing directories one component at a time (each created
    /// with `mkdirat` in the handle of its parent and opened with
    /// beneath-resolution, so a swap on the way can never lead outside).
    /// Returns the directory handle and the last component's name.
    pub(crate) fn open_parent(
        &self,
        resolved: &Path,
        display: &str,
        create: bool,
    ) -> Result<(OwnedFd, OsString), ToolsError> {
        let rel = self.relative(resolved);
        let (Some(name), parent) = (rel.file_name(), rel.parent()) else {
            return Err(ToolsError::IsDirectory {
                path: display.to_string(),
            });
        };
        let parent = parent.unwrap_or(Path::new(""));
        let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW;
        match openat2_beneath(&*self.fd, parent, dir_flags) {
            Ok(fd) => return Ok((fd, name.to_os_string())),
            Err(Errno::NOENT) if create => {}
            Err(e) => return Err(Self::open_error("open the directory of", display, e)),
        }
        let mut dir = openat2_beneath(&*self.fd, Path::new(""), dir_flags)
            .map_err(|e| Self::open_error("open the directory of", display, e))?;
        for component in parent.components() {
            let Component::Normal(part) = component else {
                continue;
            };
            let part = Path::new(part);
            dir = match openat2_beneath(&dir, part, dir_flags) {
                Ok(fd) => fd,
                Err(Errno::NOENT) => {
                    match rustix::fs::mkdirat(&dir, part, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => {
                            return Err(Self::open_error(
                                "create the parent directories of",
                                display,
                                e,
                            ))
                        }
                    }
                    openat2_beneath(&dir, part, dir_flags)
                        .map_err(|e| Self::open_error("open the directory of", display, e))?
                }
                Err(e) => return Err(Self::open_error("open the directory of", display, e)),
            };
        }
        Ok((dir, name.to_os_string()))
    }
}

/// Checks an opened descriptor: a regular file, else the precise refusal.
/// Clears `O_NONBLOCK` on it.
pub(crate) fn regular_file(fd: OwnedFd, display: &str) -> Result<(File, Metadata), ToolsError> {
    let file = File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| ToolsError::io("inspect", display, e))?;
    if meta.is_dir() {
        return Err(ToolsError::IsDirectory {
            path: display.to_string(),
        });
    }
    if !meta.is_file() {
        return Err(ToolsError::NotRegularFile {
            path: display.to_string(),
        });
    }
    if let Ok(flags) = rustix::fs::fcntl_getfl(&file) {
        let _ = rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK);
    }
    Ok((file, meta))
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)` as std metadata is not
/// available for a directory handle: the mode bits, or `None` when absent.
pub(crate) fn mode_at(dir: &OwnedFd, name: &OsStr) -> Option<u32> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .ok()
        .map(|st| st.st_mode)
}

/// A file name as glob and grep print it: valid UTF-8 without control
/// characters is printed as is; otherwise each byte that is not part of a
/// valid UTF-8 character, and each control character (`\n`, `\t`, …,
/// U+007F), is printed as `\xNN` (two lowercase hex digits). A name with
/// a newline is so one line, and [`Jail::resolve`] turns the escapes back
/// into the bytes when the path does not exist as written, so the printed
/// name can be passed to read as is.
pub fn escape_name(name: &OsStr) -> String {
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && (c as u32) < 0x80 {
                out.push_str(&format!("\\x{:02x}", c as u32));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

/// The bytes of an escaped name ([`escape_name`]), or `None` when it holds
/// no `\xNN` escape.
fn unescape_name(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut any = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') && i + 3 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 2..i + 4]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                any = true;
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    any.then_some(out)
}

/// `a/b/c` for any relative path; `.` when empty.
pub(crate) fn slash_path(rel: &Path) -> String {
    let mut out = String::new();
    for component in rel.components() {
        if let Component::Normal(name) = component {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&escape_name(name));
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
