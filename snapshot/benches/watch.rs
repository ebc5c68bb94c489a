//! Per-call cost of the watcher on a 100 000-file tree against the walk
//! alone, and the memory its watches take.
//!
//! The tree (1 000 directories of 100 files, 3 levels) is generated once
//! per run in a temporary directory (a minute or two on a slow disk) and
//! removed at the end. The memory figures are printed on stderr when the
//! watcher starts: watches, tracked files, the process's VmRSS delta and
//! the kernel's `inotify_inode_mark` slab delta (when /proc/slabinfo is
//! readable). Run with `cargo bench -p toolexec-snapshot --bench watch`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use toolexec_snapshot::{diff, Bounds, Snapshot, WatchOptions, Watcher};

fn main() {
    divan::main();
    if let Some(dir) = TREE.get() {
        let _ = fs::remove_dir_all(dir);
    }
}

static TREE: OnceLock<PathBuf> = OnceLock::new();

fn tree() -> &'static Path {
    TREE.get_or_init(|| {
        let root = tempfile::Builder::new()
            .prefix("toolexec-watch-bench-")
            .tempdir()
            .expect("temp dir")
            .keep();
        for a in 0..10 {
            for b in 0..10 {
                for c in 0..10 {
                    let dir = root.join(format!("p{a}/m{b}/s{c}"));
                    fs::create_dir_all(&dir).expect("mkdir");
                    for f in 0..100 {
                        fs::write(dir.join(format!("f{f:02}.rs")), b"fn x() {}\n").expect("write");
                    }
                }
            }
        }
        root
    })
}

fn vm_rss_kib() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// (active objects, object size) of the inotify mark slab.
fn inotify_marks() -> Option<(u64, u64)> {
    let slab = fs::read_to_string("/proc/slabinfo").ok()?;
    let line = slab
        .lines()
        .find(|l| l.starts_with("inotify_inode_mark "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(3)
        .filter_map(|f| f.parse().ok())
        .collect();
    Some((*fields.first()?, *fields.get(2)?))
}

fn watcher() -> &'static Watcher {
    static W: OnceLock<Watcher> = OnceLock::new();
    W.get_or_init(|| {
        let root = tree();
        let rss = vm_rss_kib();
        let marks = inotify_marks();
        let started = std::time::Instant::now();
        let w = Watcher::start(root, vec![], &Bounds::default(), WatchOptions::default())
            .expect("watcher starts");
        let took = started.elapsed();
        let rss_after = vm_rss_kib();
        let marks_after = inotify_marks();
        eprintln!(
            "\nwatcher on 100 000 files: started in {:.0} ms, {} watches, {} files tracked, degraded: {:?}",
            took.as_secs_f64() * 1000.0,
            w.watch_count(),
            w.tracked_files(),
            w.degraded()
        );
        if let (Some(a), Some(b)) = (rss, rss_after) {
            eprintln!("  VmRSS delta: {} KiB ({:.0} B per tracked file)", b.saturating_sub(a), (b.saturating_sub(a) * 1024) as f64 / w.tracked_files().max(1) as f64);
        }
        if let (Some((a, size)), Some((b, _))) = (marks, marks_after) {
            eprintln!(
                "  inotify_inode_mark slab: +{} objects x {size} B = {} KiB (plus the inodes they pin)",
                b.saturating_sub(a),
                b.saturating_sub(a) * size / 1024
            );
        }
        w
    })
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// What a call does: rewrite one file deep in the tree.
fn tool(root: &Path) {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    fs::write(
        root.join(format!("p9/m9/s{}/f{:02}.rs", n % 10, n % 100)),
        n.to_string(),
    )
    .expect("write");
}

/// One call with the walk alone: before, tool, after, diff, report.
#[divan::bench]
fn call_walk_only_100k(bencher: divan::Bencher<'_, '_>) {
    let root = tree();
    let bounds = Bounds::default();
    bencher.bench(|| {
        let before = Snapshot::take(root, &bounds).expect("walk");
        tool(root);
        let after = Snapshot::take(root, &bounds).expect("walk");
        diff(&before, &after).report()
    });
}

/// The same call with the watcher: begin, before, tool, after, finish.
#[divan::bench]
fn call_with_watcher_100k(bencher: divan::Bencher<'_, '_>) {
    let root = tree();
    let bounds = Bounds::default();
    let w = watcher();
    bencher.bench(|| {
        let mark = w.begin();
        let before = Snapshot::take(root, &bounds).expect("walk");
        tool(root);
        let after = Snapshot::take(root, &bounds).expect("walk");
        let d = w.finish(mark, &before, &after);
        assert_eq!(d.len(), 1, "the watcher sees the deep write");
        d.report()
    });
}

/// The after-step alone, walk only: after-walk, diff, report.
#[divan::bench(sample_size = 1, sample_count = 200)]
fn after_step_walk_only_100k(bencher: divan::Bencher<'_, '_>) {
    let root = tree();
    let bounds = Bounds::default();
    bencher
        .with_inputs(|| {
            let before = Snapshot::take(root, &bounds).expect("walk");
            tool(root);
            before
        })
        .bench_local_refs(|before| {
            let after = Snapshot::take(root, &bounds).expect("walk");
            diff(before, &after).report()
        });
}

/// The after-step alone with the watcher: after-walk, finish (settle,
/// re-check, merge), report. One iteration per sample, so calls never
/// overlap.
#[divan::bench(sample_size = 1, sample_count = 200)]
fn after_step_with_watcher_100k(bencher: divan::Bencher<'_, '_>) {
    let root = tree();
    let bounds = Bounds::default();
    let w = watcher();
    bencher
        .with_inputs(|| {
            let mark = w.begin();
            let before = Snapshot::take(root, &bounds).expect("walk");
            tool(root);
            Some((mark, before))
        })
        .bench_local_refs(|input| {
            let (mark, before) = input.take().expect("one use per input");
            let after = Snapshot::take(root, &bounds).expect("walk");
            w.finish(mark, &before, &after).report()
        });
}
