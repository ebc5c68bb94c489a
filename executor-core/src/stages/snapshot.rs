//! The snapshot stage: adapts `toolexec-snapshot` to the chain (a snapshot
//! before and after every call of a tool that is not read-only, their diff
//! and the change report).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use toolexec_snapshot::{Bounds, Diff, Snapshot};

use crate::observer::ChangeObserver;
use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::FileChange;

/// Settings of the snapshot stage.
#[derive(Debug, Clone, Default)]
pub struct SnapshotConfig {
    /// Walk bounds and skip lists (defaults: 4 levels, 500 files).
    pub bounds: Bounds,
    /// A watcher shared by all calls of the session, reporting changes
    /// beyond the walk's bounds and under extra roots.
    #[cfg(feature = "watch")]
    pub watcher: Option<Arc<toolexec_snapshot::Watcher>>,
}

impl SnapshotConfig {
    /// The default bounds, no watcher.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses these walk bounds.
    pub fn bounds(mut self, bounds: Bounds) -> Self {
        self.bounds = bounds;
        self
    }

    /// Adds the union with `watcher`'s touched paths to every diff.
    #[cfg(feature = "watch")]
    pub fn watcher(mut self, watcher: Option<Arc<toolexec_snapshot::Watcher>>) -> Self {
        self.watcher = watcher;
        self
    }
}

/// Photographs the workspace before and after each call of a tool that is
/// not read-only, and records the difference.
///
/// - The after-snapshot is taken whatever happened inside (error, panic,
///   timeout, cancellation): the stages inside never cancel this one, since
///   the deadline stage turns cancellation into an outcome.
/// - The report goes into [`Outcome::report`], which the executor appends
///   after the limited content; the structured list into
///   [`Outcome::changes`]; the changed files to every [`ChangeObserver`].
/// - Walks and observers run on tokio's blocking pool.
/// - When a snapshot cannot be taken (the workdir vanished), the call keeps
///   its result and gets no report; a warning is logged.
#[derive(Clone)]
pub(crate) struct SnapshotStage {
    root: PathBuf,
    config: SnapshotConfig,
    observers: Arc<[Arc<dyn ChangeObserver>]>,
    windows: Arc<Windows>,
}

/// The snapshot windows open right now, to tell which calls overlapped
/// (their reports end with `(calls ID1, ID2 ran at the same time; some
/// changes may be theirs)`): two windows overlap exactly when one opens while the
/// other is open, so each opening records itself in every open window and
/// every open window in itself.
#[derive(Debug, Default)]
struct Windows {
    open: Mutex<Vec<Window>>,
}

#[derive(Debug)]
struct Window {
    key: u64,
    /// (arrival order, call id) of this call.
    me: (u64, String),
    /// The calls whose windows overlapped this one.
    overlapped: Vec<(u64, String)>,
}

impl Windows {
    fn open(&self, order: u64, id: &str) -> u64 {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let key = open.iter().map(|w| w.key + 1).max().unwrap_or(0);
        let me = (order, id.to_string());
        let mut overlapped = Vec::with_capacity(open.len());
        for window in open.iter_mut() {
            window.overlapped.push(me.clone());
            overlapped.push(window.me.clone());
        }
        open.push(Window {
            key,
            me,
            overlapped,
        });
        key
    }

    /// Closes the window and returns the ids that overlapped it, in
    /// arrival (input) order.
    fn close(&self, key: u64) -> Vec<String> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let Some(at) = open.iter().position(|w| w.key == key) else {
            return Vec::new();
        };
        let mut overlapped = open.swap_remove(at).overlapped;
        drop(open);
        overlapped.sort();
        overlapped.dedup();
        overlapped.into_iter().map(|(_, id)| id).collect()
    }
}

/// Closes a window when the call ends, however it ends (also when its
/// future is dropped).
struct WindowGuard<'a> {
    windows: &'a Windows,
    key: Option<u64>,
}

impl WindowGuard<'_> {
    fn close(mut self) -> Vec<String> {
        self.key
            .take()
            .map(|key| self.windows.close(key))
            .unwrap_or_default()
    }
}

impl Drop for WindowGuard<'_> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.windows.close(key);
        }
    }
}

/// The line that ends the report of a call whose window overlapped others.
pub(crate) fn overlap_line(ids: &[String]) -> String {
    format!(
        "(calls {} ran at the same time; some changes may be theirs)",
        ids.join(", ")
    )
}

impl std::fmt::Debug for SnapshotStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnapshotStage")
            .field("root", &self.root)
            .field("config", &self.config)
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl SnapshotStage {
    /// A stage photographing `root`, telling `observers` what changed.
    pub(crate) fn new(
        root: PathBuf,
        config: SnapshotConfig,
        observers: Vec<Arc<dyn ChangeObserver>>,
    ) -> Self {
        SnapshotStage {
            root,
            config,
            observers: observers.into(),
            windows: Arc::default(),
        }
    }

    async fn take(&self) -> Option<Snapshot> {
        let root = self.root.clone();
        let bounds = self.config.bounds.clone();
        match tokio::task::spawn_blocking(move || Snapshot::take(&root, &bounds)).await {
            Ok(Ok(snapshot)) => Some(snapshot),
            Ok(Err(err)) => {
                tracing::warn!(%err, "workspace snapshot failed; no change report for this call");
                None
            }
            Err(err) => {
                tracing::warn!(%err, "workspace snapshot task failed; no change report for this call");
                None
            }
        }
    }

    #[cfg(feature = "watch")]
    async fn after(
        &self,
        mark: Option<toolexec_snapshot::CallMark>,
        before: Option<Snapshot>,
    ) -> Option<Diff> {
        let after = self.take().await;
        let watcher = self.config.watcher.clone();
        let job = move || match (watcher, mark, before, after) {
            (Some(w), Some(mark), Some(b), Some(a)) => Some(w.finish(mark, &b, &a)),
            (Some(w), Some(mark), _, _) => Some(w.finish_without_walk(mark)),
            (_, _, Some(b), Some(a)) => Some(toolexec_snapshot::diff(&b, &a)),
            _ => None,
        };
        tokio::task::spawn_blocking(job).await.ok().flatten()
    }

    #[cfg(not(feature = "watch"))]
    async fn after(&self, _mark: Option<()>, before: Option<Snapshot>) -> Option<Diff> {
        let after = self.take().await;
        Some(toolexec_snapshot::diff(&before?, &after?))
    }

    /// The watcher's mark and the before-snapshot, both on the blocking
    /// pool (the watcher's `begin` waits for its event thread).
    #[cfg(feature = "watch")]
    async fn begin(&self) -> (Option<toolexec_snapshot::CallMark>, Option<Snapshot>) {
        let mark = match self.config.watcher.clone() {
            Some(watcher) => tokio::task::spawn_blocking(move || watcher.begin())
                .await
                .ok(),
            None => None,
        };
        (mark, self.take().await)
    }

    #[cfg(not(feature = "watch"))]
    async fn begin(&self) -> (Option<()>, Option<Snapshot>) {
        (None, self.take().await)
    }
}

impl Stage for SnapshotStage {
    fn name(&self) -> &str {
        "snapshot"
    }

    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        if inv.read_only() || inv.tool.is_none() {
            return next.run(inv);
        }
        Box::pin(async move {
            let window = WindowGuard {
                key: Some(self.windows.open(inv.ctx.order(), &inv.call.id)),
                windows: &self.windows,
            };
            let (mark, before) = self.begin().await;
            let mut outcome = next.run(inv).await;
            let diff = self.after(mark, before).await;
            let overlapped = window.close();
            let Some(diff) = diff else {
                return outcome;
            };
            outcome.report = diff.report();
            if diff.is_empty() {
                return outcome;
            }
            if !overlapped.is_empty() {
                outcome.report.push('\n');
                outcome.report.push_str(&overlap_line(&overlapped));
            }
            outcome.changes = diff
                .changes()
                .iter()
                .map(|c| FileChange {
                    path: c.display.clone(),
                    absolute: c.absolute.clone(),
                    kind: c.kind,
                    old_size: c.old_size,
                    new_size: c.new_size,
                })
                .collect();
            if !self.observers.is_empty() {
                let observed = outcome.changes.clone();
                let observers = self.observers.clone();
                let root = self.root.clone();
                // Observers may hash files: keep that off the async threads,
                // and finish before the result is handed back, so that the
                // next call already sees the new baseline.
                let observed = tokio::task::spawn_blocking(move || {
                    for observer in observers.iter() {
                        observer.files_changed(&root, &observed);
                    }
                })
                .await;
                if let Err(err) = observed {
                    if err.is_panic() {
                        let mut failed = crate::stages::panic_outcome("observer", err);
                        failed.changes = outcome.changes;
                        failed.report = outcome.report;
                        return failed;
                    }
                }
            }
            outcome
        })
    }
}
