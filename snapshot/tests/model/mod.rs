//! An in-memory model of a file tree, mirrored on a real directory, for the
//! property tests: every operation is checked against the model, applied to
//! both, and the model says which changes are real.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use proptest::prelude::*;

/// Directory names (one of them skipped by default).
pub const DIR_NAMES: [&str; 4] = ["a", "b", "c.d", "node_modules"];
/// File names (two of them skipped by default, two shared with directories).
pub const FILE_NAMES: [&str; 6] = ["f", "g.txt", "h.pyc", "i~", "a", "b"];

/// A path as a list of name indices: every component but the last is a
/// directory name, the last is a file name (for files) or a directory name.
#[derive(Debug, Clone)]
pub struct PathSpec(pub Vec<u8>);

impl PathSpec {
    pub fn file(&self) -> Vec<String> {
        self.components(true)
    }

    pub fn dir(&self) -> Vec<String> {
        self.components(false)
    }

    fn components(&self, last_is_file: bool) -> Vec<String> {
        let n = self.0.len();
        self.0
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                if i + 1 == n && last_is_file {
                    FILE_NAMES[k as usize % FILE_NAMES.len()].to_string()
                } else {
                    DIR_NAMES[k as usize % DIR_NAMES.len()].to_string()
                }
            })
            .collect()
    }
}

pub fn path_spec(max_len: usize) -> impl Strategy<Value = PathSpec> {
    prop::collection::vec(any::<u8>(), 1..=max_len).prop_map(PathSpec)
}

/// One operation of a "tool call".
#[derive(Debug, Clone)]
pub enum Op {
    Create(PathSpec, usize),
    Modify(usize, usize),
    SameSizeRewrite(usize),
    Delete(usize),
    Mkdir(PathSpec),
    Rename(usize, PathSpec),
    RenameDir(usize, PathSpec),
    DeleteDir(usize),
}

pub fn op(max_len: usize) -> impl Strategy<Value = Op> {
    let idx = any::<usize>();
    prop_oneof![
        3 => (path_spec(max_len), 0usize..3000).prop_map(|(p, n)| Op::Create(p, n)),
        3 => (idx, 0usize..3000).prop_map(|(i, n)| Op::Modify(i, n)),
        1 => idx.prop_map(Op::SameSizeRewrite),
        2 => idx.prop_map(Op::Delete),
        1 => path_spec(max_len).prop_map(Op::Mkdir),
        2 => (idx, path_spec(max_len)).prop_map(|(i, p)| Op::Rename(i, p)),
        1 => (idx, path_spec(max_len)).prop_map(|(i, p)| Op::RenameDir(i, p)),
        1 => idx.prop_map(Op::DeleteDir),
    ]
}

/// One file of the model: its size and a version that changes on every
/// write (each write also sets a unique mtime, so versions map one-to-one
/// onto mtimes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileState {
    pub size: u64,
    pub version: u64,
}

/// Key = components as bytes: ordered component-wise, which is the walk
/// order, computed independently of `Path`'s `Ord`.
pub type Key = Vec<Vec<u8>>;

#[derive(Debug)]
pub struct Model {
    pub root: PathBuf,
    pub files: BTreeMap<Key, FileState>,
    pub dirs: BTreeSet<Key>,
    next_version: u64,
}

fn key(components: &[String]) -> Key {
    components.iter().map(|c| c.as_bytes().to_vec()).collect()
}

fn key_path(root: &Path, key: &Key) -> PathBuf {
    let mut p = root.to_path_buf();
    for c in key {
        p.push(String::from_utf8_lossy(c).as_ref());
    }
    p
}

pub fn key_display(key: &Key) -> String {
    key.iter()
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

impl Model {
    pub fn new(root: &Path) -> Model {
        Model {
            root: root.to_path_buf(),
            files: BTreeMap::new(),
            dirs: BTreeSet::new(),
            next_version: 0,
        }
    }

    fn free_for_file(&self, k: &Key) -> bool {
        !self.dirs.contains(k) && (1..k.len()).all(|i| !self.files.contains_key(&k[..i]))
    }

    fn add_parents(&mut self, k: &Key) -> std::io::Result<()> {
        for i in 1..k.len() {
            self.dirs.insert(k[..i].to_vec());
        }
        if let Some(parent) = key_path(&self.root, k).parent() {
            fs::create_dir_all(parent)?;
        }
        Ok(())
    }

    fn write(&mut self, k: &Key, len: usize) -> std::io::Result<()> {
        self.next_version += 1;
        let version = self.next_version;
        let path = key_path(&self.root, k);
        fs::write(&path, vec![b'x'; len])?;
        let file = fs::File::options().write(true).open(&path)?;
        file.set_modified(UNIX_EPOCH + Duration::from_secs(1_000_000 + version))?;
        self.files.insert(
            k.clone(),
            FileState {
                size: len as u64,
                version,
            },
        );
        Ok(())
    }

    fn nth_file(&self, i: usize) -> Option<Key> {
        if self.files.is_empty() {
            return None;
        }
        self.files.keys().nth(i % self.files.len()).cloned()
    }

    fn nth_dir(&self, i: usize) -> Option<Key> {
        if self.dirs.is_empty() {
            return None;
        }
        self.dirs.iter().nth(i % self.dirs.len()).cloned()
    }

    /// Applies one operation to the model and the disk; operations that
    /// make no sense in the current state (a file where a directory is
    /// needed, nothing to delete…) are skipped.
    pub fn apply(&mut self, op: &Op) -> std::io::Result<()> {
        match op {
            Op::Create(spec, len) => {
                let k = key(&spec.file());
                if self.free_for_file(&k) {
                    self.add_parents(&k)?;
                    self.write(&k, *len)?;
                }
            }
            Op::Modify(i, len) => {
                if let Some(k) = self.nth_file(*i) {
                    self.write(&k, *len)?;
                }
            }
            Op::SameSizeRewrite(i) => {
                if let Some(k) = self.nth_file(*i) {
                    let len = self.files[&k].size as usize;
                    self.write(&k, len)?;
                }
            }
            Op::Delete(i) => {
                if let Some(k) = self.nth_file(*i) {
                    fs::remove_file(key_path(&self.root, &k))?;
                    self.files.remove(&k);
                }
            }
            Op::Mkdir(spec) => {
                let k = key(&spec.dir());
                if self.free_for_file(&k) && !self.files.contains_key(&k) {
                    self.add_parents(&k)?;
                    fs::create_dir_all(key_path(&self.root, &k))?;
                    self.dirs.insert(k);
                }
            }
            Op::Rename(i, spec) => {
                let to = key(&spec.file());
                if let Some(from) = self.nth_file(*i) {
                    if from != to && self.free_for_file(&to) && !to.starts_with(&from) {
                        self.add_parents(&to)?;
                        fs::rename(key_path(&self.root, &from), key_path(&self.root, &to))?;
                        let state = self.files.remove(&from).expect("picked from the model");
                        self.files.insert(to, state);
                    }
                }
            }
            Op::RenameDir(i, spec) => {
                let to = key(&spec.dir());
                if let Some(from) = self.nth_dir(*i) {
                    let exists = self.dirs.contains(&to) || self.files.contains_key(&to);
                    if !exists && self.free_for_file(&to) && !to.starts_with(&from) {
                        self.add_parents(&to)?;
                        fs::rename(key_path(&self.root, &from), key_path(&self.root, &to))?;
                        let moved = |k: &Key| -> Option<Key> {
                            k.starts_with(&from).then(|| {
                                let mut n = to.clone();
                                n.extend_from_slice(&k[from.len()..]);
                                n
                            })
                        };
                        self.files = std::mem::take(&mut self.files)
                            .into_iter()
                            .map(|(k, v)| (moved(&k).unwrap_or(k), v))
                            .collect();
                        self.dirs = std::mem::take(&mut self.dirs)
                            .into_iter()
                            .map(|k| moved(&k).unwrap_or(k))
                            .collect();
                    }
                }
            }
            Op::DeleteDir(i) => {
                if let Some(d) = self.nth_dir(*i) {
                    fs::remove_dir_all(key_path(&self.root, &d))?;
                    self.files.retain(|k, _| !k.starts_with(&d));
                    self.dirs.retain(|k| !k.starts_with(&d));
                }
            }
        }
        Ok(())
    }
}

/// Whether the default skip rules and a depth limit keep a key in bounds,
/// written independently of `Bounds::contains`.
pub fn in_bounds(k: &Key, max_depth: usize) -> bool {
    if k.len() > max_depth {
        return false;
    }
    let (name, dirs) = k.split_last().expect("keys are never empty");
    if dirs.iter().any(|d| d.as_slice() == b"node_modules") {
        return false;
    }
    !(name.ends_with(b".pyc") || name.ends_with(b"~"))
}

/// The last key a walk limited to `max_files` records, when it is cut:
/// `None` = not cut, `Some(None)` = cut before recording anything.
pub fn cut_point(
    files: &BTreeMap<Key, FileState>,
    max_depth: usize,
    max_files: usize,
) -> Option<Option<Key>> {
    let inside: Vec<&Key> = files.keys().filter(|k| in_bounds(k, max_depth)).collect();
    if inside.len() > max_files {
        Some(max_files.checked_sub(1).map(|i| inside[i].clone()))
    } else {
        None
    }
}

fn known(k: &Key, cut: &Option<Option<Key>>) -> bool {
    match cut {
        None => true,
        Some(None) => false,
        Some(Some(last)) => k <= last,
    }
}

/// One change as the tests compare them: (display, kind, old size, new size).
pub type Row = (String, &'static str, Option<u64>, Option<u64>);

/// The real changes inside the bounds, sorted.
pub fn expected_changes(
    before: &BTreeMap<Key, FileState>,
    after: &BTreeMap<Key, FileState>,
    max_depth: usize,
    max_files: usize,
) -> Vec<Row> {
    let cut_before = cut_point(before, max_depth, max_files);
    let cut_after = cut_point(after, max_depth, max_files);
    let keys: BTreeSet<&Key> = before.keys().chain(after.keys()).collect();
    let mut out = Vec::new();
    for k in keys {
        if !in_bounds(k, max_depth) || !known(k, &cut_before) || !known(k, &cut_after) {
            continue;
        }
        let change = match (before.get(k), after.get(k)) {
            (None, Some(a)) => ("created", None, Some(a.size)),
            (Some(b), None) => ("deleted", Some(b.size), None),
            (Some(b), Some(a)) if b != a => ("modified", Some(b.size), Some(a.size)),
            _ => continue,
        };
        out.push((key_display(k), change.0, change.1, change.2));
    }
    out.sort();
    out
}
