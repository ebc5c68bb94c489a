//! The watcher (feature `watch`): what it adds to the walk, and that it
//! adds nothing false.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use proptest::prelude::*;
use toolexec_snapshot::{
    diff, Bounds, ChangeKind, Diff, Snapshot, SnapshotError, WatchOptions, WatchRoot, Watcher,
};

use crate::model;

fn write(root: &Path, rel: &str, bytes: usize) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
    fs::write(&path, vec![b'x'; bytes]).expect("write");
}

/// A generous catch-up bound: machines running the tests are shared and
/// busy; `settle` returns as soon as it has caught up anyway.
fn opts() -> WatchOptions {
    WatchOptions::default().settle_timeout(Duration::from_secs(5))
}

const DEEP: &str = "a/b/c/d/e/f/deep.txt";

/// One call: begin, before-walk, the tool (`f`), after-walk, finish.
fn call(watcher: &Watcher, root: &Path, bounds: &Bounds, f: impl FnOnce()) -> Diff {
    let mark = watcher.begin();
    let before = Snapshot::take(root, bounds).expect("before");
    f();
    let after = Snapshot::take(root, bounds).expect("after");
    watcher.finish(mark, &before, &after)
}

/// The same call with the walk alone.
fn walk_only(root: &Path, bounds: &Bounds, f: impl FnOnce()) -> Diff {
    let before = Snapshot::take(root, bounds).expect("before");
    f();
    let after = Snapshot::take(root, bounds).expect("after");
    diff(&before, &after)
}

#[test]
fn seven_levels_deep_is_reported_only_with_the_watcher() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, DEEP, 3);
    let bounds = Bounds::default();

    let without = walk_only(root, &bounds, || {
        write(root, DEEP, 30);
        write(root, "a/b/c/d/e/f/g/new.txt", 1);
    });
    assert!(without.is_empty(), "{}", without.report());

    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    assert_eq!(watcher.degraded(), None);
    let with = call(&watcher, root, &bounds, || {
        write(root, DEEP, 300);
        write(root, "a/b/c/d/e/f/g/h/newer.txt", 2);
    });
    assert_eq!(
        with.report(),
        "[Workspace Changes]\n\
         + a/b/c/d/e/f/g/h/newer.txt (created, 2 B)\n\
         ~ a/b/c/d/e/f/deep.txt (modified, 30 B \u{2192} 300 B)"
    );
    assert_eq!(with.untracked(), None);
}

#[test]
fn a_change_beyond_the_cut_is_reported_only_with_the_watcher() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    for d in 0..20 {
        for f in 0..105 {
            write(root, &format!("d{d:02}/f{f:03}"), 1);
        }
    }
    let bounds = Bounds::default();
    assert!(Snapshot::take(root, &bounds).expect("walk").is_cut());

    let without = walk_only(root, &bounds, || write(root, "d19/f104", 5));
    assert!(without.is_empty(), "{}", without.report());

    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    assert_eq!(watcher.tracked_files(), 2100);
    assert_eq!(watcher.watch_count(), 21);
    let with = call(&watcher, root, &bounds, || {
        write(root, "d19/f104", 7);
        write(root, "d00/f000", 2); // before the cut: the walk's
    });
    assert_eq!(
        with.report(),
        "[Workspace Changes]\n\
         ~ d00/f000 (modified, 1 B \u{2192} 2 B)\n\
         ~ d19/f104 (modified, 5 B \u{2192} 7 B)"
    );
}

#[test]
fn extra_roots_are_reported_with_their_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(project.path(), "src/lib.rs", 4);
    write(project.path(), "old.txt", 4);
    let bounds = Bounds::default();

    let without = walk_only(root, &bounds, || write(project.path(), "src/lib.rs", 8));
    assert!(without.is_empty());

    let roots = vec![WatchRoot::new("project", project.path())];
    let watcher = Watcher::start(root, roots, &bounds, opts()).expect("start");
    let with = call(&watcher, root, &bounds, || {
        write(project.path(), "src/main.rs", 13);
        write(project.path(), "src/lib.rs", 1500);
        fs::remove_file(project.path().join("old.txt")).expect("rm");
        write(root, "local.txt", 1);
        write(project.path(), "node_modules/x/index.js", 1);
        write(project.path(), "src/x.pyc", 1);
    });
    assert_eq!(
        with.report(),
        "[Workspace Changes]\n\
         + local.txt (created, 1 B)\n\
         + project:src/main.rs (created, 13 B)\n\
         ~ project:src/lib.rs (modified, 8 B \u{2192} 1.5 KB)\n\
         - project:old.txt (deleted)"
    );
    let c = &with.changes()[1];
    assert_eq!(c.root.as_deref(), Some("project"));
    assert_eq!(c.path, Path::new("src/main.rs"));
    assert_eq!(
        c.absolute,
        fs::canonicalize(project.path())
            .expect("canonical")
            .join("src/main.rs")
    );
}

#[test]
fn created_then_deleted_leaves_no_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let bounds = Bounds::default();
    let roots = vec![WatchRoot::new("project", project.path())];
    let watcher = Watcher::start(root, roots, &bounds, opts()).expect("start");
    let d = call(&watcher, root, &bounds, || {
        for base in [root, project.path()] {
            write(base, "shallow.txt", 1);
            write(base, DEEP, 1);
            write(base, "tmpdir/x/y/z/w/v/file", 1);
            fs::remove_file(base.join("shallow.txt")).expect("rm");
            fs::remove_file(base.join(DEEP)).expect("rm");
            fs::remove_dir_all(base.join("tmpdir")).expect("rm");
        }
    });
    assert!(d.is_empty(), "{}", d.report());
    assert_eq!(d.report(), "");
}

#[test]
fn a_touch_is_reported_as_the_walk_reports_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "top.txt", 3);
    write(root, DEEP, 3);
    let bounds = Bounds::default();
    let touch = |rel: &str, secs: u64| {
        let file = fs::File::options()
            .write(true)
            .open(root.join(rel))
            .expect("open");
        file.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
            .expect("touch");
    };
    let walked = walk_only(root, &bounds, || touch("top.txt", 1_000_000));
    assert_eq!(
        walked.report(),
        "[Workspace Changes]\n~ top.txt (modified, 3 B \u{2192} 3 B)"
    );
    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    let d = call(&watcher, root, &bounds, || {
        touch("top.txt", 1_000_001);
        touch(DEEP, 1_000_001);
    });
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n\
         ~ a/b/c/d/e/f/deep.txt (modified, 3 B \u{2192} 3 B)\n\
         ~ top.txt (modified, 3 B \u{2192} 3 B)"
    );
    // Setting the same mtime again changes nothing: no entry.
    let d = call(&watcher, root, &bounds, || touch(DEEP, 1_000_001));
    assert!(d.is_empty(), "{}", d.report());
}

#[test]
fn changes_between_calls_are_not_attributed_to_the_next_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, DEEP, 3);
    let bounds = Bounds::default();
    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    // The user edits outside any call.
    write(root, DEEP, 4);
    write(root, "a/b/c/d/e/f/user.txt", 4);
    let d = call(&watcher, root, &bounds, || {
        write(root, "a/b/c/d/e/f/tool.txt", 1)
    });
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n+ a/b/c/d/e/f/tool.txt (created, 1 B)"
    );
    // Edited between calls, then by the tool: judged from the user's state.
    write(root, DEEP, 5);
    let d = call(&watcher, root, &bounds, || write(root, DEEP, 6));
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n~ a/b/c/d/e/f/deep.txt (modified, 5 B \u{2192} 6 B)"
    );
}

#[test]
fn without_walks_the_watcher_judges_everything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "top.txt", 1);
    let bounds = Bounds::default();
    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    let mark = watcher.begin();
    write(root, "top.txt", 2);
    write(root, DEEP, 3);
    let d = watcher.finish_without_walk(mark);
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n+ a/b/c/d/e/f/deep.txt (created, 3 B)\n~ top.txt (modified, 1 B \u{2192} 2 B)"
    );
}

#[test]
fn moved_directories_are_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "a/b/c/d/e/old/x.txt", 2);
    let bounds = Bounds::default();
    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    let d = call(&watcher, root, &bounds, || {
        fs::rename(root.join("a/b/c/d/e/old"), root.join("a/b/c/d/e/new")).expect("mv");
    });
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n+ a/b/c/d/e/new/x.txt (created, 2 B)\n- a/b/c/d/e/old/x.txt (deleted)"
    );
    // The moved directory is watched under its new name.
    let d = call(&watcher, root, &bounds, || {
        write(root, "a/b/c/d/e/new/x.txt", 9)
    });
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n~ a/b/c/d/e/new/x.txt (modified, 2 B \u{2192} 9 B)"
    );
}

/// A directory moved away and a file written at its name at once (before
/// the watcher reads the move): the files that were under it are reported
/// deleted, whichever of the two the watcher sees first.
#[test]
fn a_directory_replaced_by_a_file_reports_what_was_under_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let away = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let bounds = Bounds::default();
    for round in 0..5 {
        let name = format!("a/b/c/d/e/old{round}");
        write(root, &format!("{name}/x.txt"), 2);
        let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
        let d = call(&watcher, root, &bounds, || {
            fs::rename(root.join(&name), away.path().join(format!("moved{round}"))).expect("mv");
            write(root, &name, 3);
        });
        assert_eq!(
            d.report(),
            format!("[Workspace Changes]\n+ {name} (created, 3 B)\n- {name}/x.txt (deleted)"),
            "round {round}"
        );
    }
}

#[test]
fn overlapping_calls_each_see_their_own_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, DEEP, 1);
    let bounds = Bounds::default();
    let watcher = Arc::new(Watcher::start(root, vec![], &bounds, opts()).expect("start"));
    let a = watcher.begin();
    let a_before = Snapshot::take(root, &bounds).expect("walk");
    write(root, DEEP, 2); // during A only
    let b = watcher.begin();
    let b_before = Snapshot::take(root, &bounds).expect("walk");
    write(root, "a/b/c/d/e/f/both.txt", 3); // during A and B
    let b_after = Snapshot::take(root, &bounds).expect("walk");
    let b_diff = watcher.finish(b, &b_before, &b_after);
    let a_after = Snapshot::take(root, &bounds).expect("walk");
    let a_diff = watcher.finish(a, &a_before, &a_after);
    assert_eq!(
        b_diff.report(),
        "[Workspace Changes]\n+ a/b/c/d/e/f/both.txt (created, 3 B)"
    );
    assert_eq!(
        a_diff.report(),
        "[Workspace Changes]\n+ a/b/c/d/e/f/both.txt (created, 3 B)\n~ a/b/c/d/e/f/deep.txt (modified, 1 B \u{2192} 2 B)"
    );
}

#[test]
fn sync_markers_never_show() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // Bounds that would not hide `*.tmp` files.
    let bounds = Bounds::default().skip_files(Vec::<String>::new());
    let watcher = Watcher::start(root, vec![], &bounds, opts()).expect("start");
    for _ in 0..3 {
        let d = call(&watcher, root, &bounds, || write(root, "x.tmp", 1));
        assert!(!d.report().contains("toolexec-sync"), "{}", d.report());
    }
    assert!(watcher.settle());
    let leftovers: Vec<_> = fs::read_dir(root)
        .expect("ls")
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".toolexec-sync-")
        })
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn a_watcher_that_cannot_watch_degrades() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, DEEP, 1);
    write(root, "top.txt", 1);
    let bounds = Bounds::default();
    let options = opts().max_watches(0);
    let watcher = Watcher::start(root, vec![], &bounds, options).expect("start degraded");
    let reason = "the watch limit of 0 directories was reached";
    assert_eq!(watcher.degraded().as_deref(), Some(reason));
    assert_eq!(watcher.watch_count(), 0);
    let d = call(&watcher, root, &bounds, || {
        write(root, DEEP, 2);
        write(root, "top.txt", 2);
    });
    // The walk goes on; what lies beyond it is not tracked, and said so.
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n\
         ~ top.txt (modified, 1 B \u{2192} 2 B)\n\
         (changes beyond the snapshot bounds are not tracked: the watch limit of 0 directories was reached)"
    );
    assert_eq!(d.untracked(), Some(reason));

    // A limit reached part-way keeps the watches it has.
    let options = opts().max_watches(3);
    let watcher = Watcher::start(root, vec![], &bounds, options).expect("start degraded");
    assert_eq!(watcher.watch_count(), 3);
    assert!(watcher.degraded().is_some());
}

#[test]
fn bad_roots_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "inner/x", 1);
    let bounds = Bounds::default();
    let start = |roots: Vec<WatchRoot>| Watcher::start(root, roots, &bounds, opts());
    for roots in [
        vec![WatchRoot::new("inner", root.join("inner"))],
        vec![WatchRoot::new("missing", root.join("missing"))],
        vec![WatchRoot::new("file", root.join("inner/x"))],
    ] {
        let err = start(roots).expect_err("refused");
        assert!(
            matches!(err, SnapshotError::InvalidWatchRoot { .. }),
            "{err:?}"
        );
    }
    // A root that contains the workspace: a directory of its own around a
    // nested workspace (never the shared temp dir itself).
    let outer = tempfile::tempdir().expect("tempdir");
    let nested = outer.path().join("ws");
    std::fs::create_dir(&nested).expect("mkdir");
    let err = Watcher::start(
        &nested,
        vec![WatchRoot::new("outer", outer.path())],
        &bounds,
        opts(),
    )
    .expect_err("refused");
    assert!(
        matches!(err, SnapshotError::InvalidWatchRoot { .. }),
        "{err:?}"
    );
    let other = tempfile::tempdir().expect("tempdir");
    let err = start(vec![
        WatchRoot::new("p", other.path()),
        WatchRoot::new("p", dir.path().join("inner")),
    ])
    .expect_err("refused");
    assert!(err.to_string().starts_with("watch root "), "{err}");
    let err = Watcher::start(&root.join("nope"), vec![], &bounds, opts()).expect_err("refused");
    assert!(matches!(err, SnapshotError::RootNotFound { .. }), "{err:?}");
}

fn run_call(
    watcher: &Watcher,
    m: &mut model::Model,
    bounds: &Bounds,
    ops: &[model::Op],
) -> (Diff, Vec<model::Row>) {
    let before_state = m.files.clone();
    let root = m.root.clone();
    let d = call(watcher, &root, bounds, || {
        for op in ops {
            m.apply(op).expect("operation");
        }
    });
    let want = model::expected_changes(&before_state, &m.files, usize::MAX, usize::MAX);
    (d, want)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Over 200 random operations, in calls and between them, each call's
    /// report is exactly the real changes of that call outside the skip
    /// rules, at any depth and beyond the walk's cut: no phantom entry, no
    /// missing one.
    #[test]
    fn watcher_reports_exactly_the_changes_of_each_call(
        initial in prop::collection::vec((model::path_spec(7), 0usize..2000), 0..40),
        calls in prop::collection::vec(
            (prop::collection::vec(model::op(7), 1..4), prop::collection::vec(model::op(7), 9..12)),
            20..=20,
        ),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut m = model::Model::new(dir.path());
        for (spec, len) in &initial {
            m.apply(&model::Op::Create(spec.clone(), *len)).expect("initial tree");
        }
        // A small walk, so most of the work is the watcher's.
        let bounds = Bounds::default().max_files(5).max_depth(2);
        let watcher = Watcher::start(dir.path(), vec![], &bounds, opts()).expect("start");
        let mut total = 0;
        for (between, during) in &calls {
            for op in between {
                m.apply(op).expect("operation between calls");
            }
            let (d, want) = run_call(&watcher, &mut m, &bounds, during);
            total += between.len() + during.len();
            prop_assert_eq!(d.untracked(), None);
            let mut got: Vec<model::Row> = d
                .changes()
                .iter()
                .map(|c| (c.display.clone(), c.kind.as_str(), c.old_size, c.new_size))
                .collect();
            got.sort();
            prop_assert_eq!(got, want);
            prop_assert!(d.changes().iter().all(|c| c.kind != ChangeKind::Modified || c.old_size.is_some()));
        }
        prop_assert!(total >= 200);
    }
}

/// Peak resident memory of this process so far, in bytes.
fn peak_rss() -> u64 {
    let status = fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

#[test]
fn a_rename_storm_degrades_the_call_with_bounded_memory_and_a_quick_shutdown() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().to_path_buf();
    for i in 0..50 {
        write(&root, &format!("storm/f{i}.txt"), 1);
    }
    write(&root, "report.txt", 1);
    let bounds = Bounds::default();
    let watcher =
        Arc::new(Watcher::start(&root, vec![], &bounds, opts().queue_capacity(64)).expect("start"));
    let base_rss = peak_rss();
    let mark = watcher.begin();
    let before = Snapshot::take(&root, &bounds).expect("before");
    // The storm: four threads renaming back and forth as fast as they can,
    // until the queue has overflowed (and a while longer).
    let stop = Arc::new(AtomicBool::new(false));
    let renames = Arc::new(AtomicU64::new(0));
    let storm: Vec<_> = (0..4)
        .map(|t| {
            let (root, stop, renames) = (root.clone(), Arc::clone(&stop), Arc::clone(&renames));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    for i in (t..50).step_by(4) {
                        let a = root.join(format!("storm/f{i}.txt"));
                        let b = root.join(format!("storm/g{i}.txt"));
                        if fs::rename(&a, &b).is_ok() && fs::rename(&b, &a).is_ok() {
                            renames.fetch_add(2, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    while watcher.dropped_events() == 0 || renames.load(Ordering::Relaxed) < 20_000 {
        std::thread::yield_now();
    }
    write(&root, "report.txt", 2);
    stop.store(true, Ordering::Relaxed);
    for t in storm {
        t.join().expect("storm thread");
    }
    let after = Snapshot::take(&root, &bounds).expect("after");
    let d = watcher.finish(mark, &before, &after);
    let report = d.report();
    assert!(
        report.starts_with("[Workspace Changes]\n~ report.txt (modified, 1 B \u{2192} 2 B)"),
        "{report}"
    );
    assert!(
        report.ends_with(
            "\n(changes beyond the snapshot bounds are not tracked: the watcher's event queue overflowed during the call)"
        ),
        "{report}"
    );
    let grown = peak_rss().saturating_sub(base_rss);
    assert!(
        grown < 100 * 1024 * 1024,
        "peak memory grew by {grown} bytes"
    );

    // The next call, after the storm, is exact again (the rescan caught up).
    let d = call(&watcher, &root, &bounds, || write(&root, "storm/f0.txt", 3));
    assert_eq!(
        d.report(),
        "[Workspace Changes]\n~ storm/f0.txt (modified, 1 B \u{2192} 3 B)"
    );

    // Shutdown does not work off a backlog: a storm going on while the
    // watcher is dropped does not keep the drop waiting.
    let stop = Arc::new(AtomicBool::new(false));
    let storm = {
        let (root, stop) = (root.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = fs::rename(root.join("storm/f1.txt"), root.join("storm/g1.txt"));
                let _ = fs::rename(root.join("storm/g1.txt"), root.join("storm/f1.txt"));
            }
        })
    };
    let watcher = Arc::into_inner(watcher).expect("sole owner");
    let started = std::time::Instant::now();
    drop(watcher);
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    storm.join().expect("storm thread");
    // Generous: a backlog of the old unbounded queue took many seconds.
    assert!(took < Duration::from_secs(5), "drop took {took:?}");
}
