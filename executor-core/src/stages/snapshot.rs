//! The snapshot stage: adapts `toolexec-snapshot` to the chain (SPEC §2
//! steps 4 and 6, §3).

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use toolexec_snapshot::{Bounds, Diff, Snapshot};

use crate::observer::{ChangeObserver, ObservedChange};
use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::types::FileChange;

/// Settings of the snapshot stage.
#[derive(Debug, Clone, Default)]
pub struct SnapshotConfig {
    /// Walk bounds and skip lists (SPEC §3 defaults: 4 levels, 500 files).
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

    #[cfg(feature = "watch")]
    fn begin(&self) -> Option<toolexec_snapshot::CallMark> {
        self.config.watcher.as_ref().map(|w| w.begin())
    }

    #[cfg(not(feature = "watch"))]
    fn begin(&self) -> Option<()> {
        None
    }
}

impl Stage for SnapshotStage {
    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        if inv.read_only() || inv.tool.is_none() {
            return next.run(inv);
        }
        Box::pin(async move {
            let mark = self.begin();
            let before = self.take().await;
            let mut outcome = next.run(inv).await;
            let Some(diff) = self.after(mark, before).await else {
                return outcome;
            };
            outcome.report = diff.report();
            if diff.is_empty() {
                return outcome;
            }
            outcome.changes = diff
                .changes()
                .iter()
                .map(|c| FileChange {
                    path: c.display.clone(),
                    kind: c.kind,
                    old_size: c.old_size,
                    new_size: c.new_size,
                })
                .collect();
            if !self.observers.is_empty() {
                let observed: Vec<ObservedChange> = diff
                    .changes()
                    .iter()
                    .map(|c| ObservedChange {
                        path: c.absolute.clone(),
                        kind: c.kind,
                    })
                    .collect();
                let observers = self.observers.clone();
                let root = self.root.clone();
                // Observers may hash files: keep that off the async threads,
                // and finish before the result is handed back, so that the
                // next call already sees the new baseline.
                let _ = tokio::task::spawn_blocking(move || {
                    for observer in observers.iter() {
                        observer.files_changed(&root, &observed);
                    }
                })
                .await;
            }
            outcome
        })
    }
}
