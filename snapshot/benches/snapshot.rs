//! Snapshot cost on a 500-file tree, the same tree with 200 000 files under
//! `node_modules/` and `target/`, and a 10-level-deep tree, each against
//! `find -maxdepth 4 … -prune …` run as a process in the same run.
//!
//! The trees are generated once per bench run in a temporary directory
//! (the 200 000-file one takes tens of seconds on first use) and removed at
//! the end. Run with `cargo bench -p toolexec-snapshot`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use toolexec_snapshot::{diff, Bounds, Snapshot, DEFAULT_SKIPPED_DIRS};

fn main() {
    divan::main();
    let dirs = CREATED.lock().map(|d| d.clone()).unwrap_or_default();
    for dir in dirs {
        let _ = fs::remove_dir_all(dir);
    }
}

static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn new_dir(tag: &str) -> PathBuf {
    let dir = tempfile::Builder::new()
        .prefix(&format!("toolexec-snapshot-bench-{tag}-"))
        .tempdir()
        .expect("temp dir")
        .keep();
    CREATED.lock().expect("not poisoned").push(dir.clone());
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

/// 10 dirs × 5 subdirs × 10 files = 500 files, 3 levels.
fn plain_tree(root: &Path) {
    for a in 0..10 {
        for b in 0..5 {
            for f in 0..10 {
                write(
                    &root.join(format!("src{a}/mod{b}/file{f}.rs")),
                    b"fn main() {}\n",
                );
            }
        }
    }
}

fn plain() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let root = new_dir("plain");
        plain_tree(&root);
        root
    })
}

/// The plain tree plus 100 000 files in node_modules (1 000 packages of
/// 100 files) and 100 000 in target (20 000 flat in debug/deps, 80 000 in
/// 800 build dirs).
fn pruned() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let root = new_dir("pruned");
        plain_tree(&root);
        for p in 0..1000 {
            let dir = root.join(format!("node_modules/pkg{p:04}/lib"));
            fs::create_dir_all(&dir).expect("mkdir");
            for f in 0..100 {
                fs::write(dir.join(format!("f{f:02}.js")), b"x").expect("write");
            }
        }
        let deps = root.join("target/debug/deps");
        fs::create_dir_all(&deps).expect("mkdir");
        for f in 0..20_000 {
            fs::write(deps.join(format!("lib{f:05}.rlib")), b"x").expect("write");
        }
        for c in 0..800 {
            let dir = root.join(format!("target/debug/build/crate{c:03}/out"));
            fs::create_dir_all(&dir).expect("mkdir");
            for f in 0..100 {
                fs::write(dir.join(format!("g{f:02}.o")), b"x").expect("write");
            }
        }
        root
    })
}

/// The plain tree plus 200 000 files directly in `node_modules/` (the
/// worst case for a walker that lists a directory before pruning it).
fn flat() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let root = new_dir("flat");
        plain_tree(&root);
        let dir = root.join("node_modules");
        fs::create_dir_all(&dir).expect("mkdir");
        for f in 0..200_000 {
            fs::write(dir.join(format!("m{f:06}.js")), b"x").expect("write");
        }
        root
    })
}

/// 10 levels: every directory holds 5 files and 2 subdirectories
/// (5 115 files; 75 of them within 4 levels).
fn deep() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        fn fill(dir: &Path, level: usize) {
            fs::create_dir_all(dir).expect("mkdir");
            for f in 0..5 {
                fs::write(dir.join(format!("f{f}.txt")), b"x").expect("write");
            }
            if level < 10 {
                for d in 0..2 {
                    fill(&dir.join(format!("d{d}")), level + 1);
                }
            }
        }
        let root = new_dir("deep");
        fill(&root, 1);
        root
    })
}

fn take(root: &Path) -> Snapshot {
    Snapshot::take(root, &Bounds::default()).expect("snapshot")
}

/// `find ROOT -maxdepth 4 \( -name node_modules -o -name .git … \) -prune
/// -o -type f -printf '%s %T@ %i\n'`.
fn find(root: &Path) -> Vec<u8> {
    let mut cmd = Command::new("find");
    cmd.arg(root).args(["-maxdepth", "4", "("]);
    for (i, name) in DEFAULT_SKIPPED_DIRS.iter().enumerate() {
        if i > 0 {
            cmd.arg("-o");
        }
        cmd.args(["-name", name]);
    }
    cmd.args([")", "-prune", "-o", "-type", "f", "-printf", "%s %T@ %i\\n"]);
    let out = cmd.output().expect("find runs");
    assert!(out.status.success(), "find failed");
    out.stdout
}

#[divan::bench]
fn snapshot_500(bencher: divan::Bencher<'_, '_>) {
    let root = plain();
    assert_eq!(take(root).len(), 500);
    bencher.bench(|| take(root));
}

#[divan::bench]
fn find_500(bencher: divan::Bencher<'_, '_>) {
    let root = plain();
    bencher.bench(|| find(root));
}

#[divan::bench]
fn snapshot_500_plus_200k_pruned(bencher: divan::Bencher<'_, '_>) {
    let root = pruned();
    assert_eq!(take(root).len(), 500);
    bencher.bench(|| take(root));
}

#[divan::bench]
fn find_500_plus_200k_pruned(bencher: divan::Bencher<'_, '_>) {
    let root = pruned();
    bencher.bench(|| find(root));
}

#[divan::bench]
fn snapshot_500_plus_200k_flat_pruned(bencher: divan::Bencher<'_, '_>) {
    let root = flat();
    assert_eq!(take(root).len(), 500);
    bencher.bench(|| take(root));
}

#[divan::bench]
fn find_500_plus_200k_flat_pruned(bencher: divan::Bencher<'_, '_>) {
    let root = flat();
    bencher.bench(|| find(root));
}

#[divan::bench]
fn snapshot_deep_10(bencher: divan::Bencher<'_, '_>) {
    let root = deep();
    assert_eq!(take(root).len(), 75);
    bencher.bench(|| take(root));
}

#[divan::bench]
fn find_deep_10(bencher: divan::Bencher<'_, '_>) {
    let root = deep();
    bencher.bench(|| find(root));
}

/// The whole after-step on the 500-file tree: walk, diff, report.
#[divan::bench]
fn after_step_500(bencher: divan::Bencher<'_, '_>) {
    let root = plain();
    let before = take(root);
    bencher.bench(|| diff(&before, &take(root)).report());
}
