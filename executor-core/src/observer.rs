//! The change observer: how the executor tells the embedding program which
//! files a call changed.

use std::path::Path;

use crate::types::FileChange;

/// Receives the files a call changed, after the after-snapshot of every
/// non-read-only call with a non-empty diff (also when the call failed,
/// panicked, timed out or was cancelled), before the call's result is
/// handed back, on tokio's blocking pool.
///
/// The changes are the same [`FileChange`]s as the result's `changes`,
/// with the real paths: the observer runs before the redactor masks a
/// secret in a file name. [`FileChange::absolute`] names the file on disk.
/// A panic in an observer ends that call with `stage observer panic:
/// MESSAGE` (the change report is kept).
///
/// The built-in read-before-edit tracker implements this to take those files
/// as read in their new state.
pub trait ChangeObserver: Send + Sync + 'static {
    /// Called with the workspace root and the changed files.
    fn files_changed(&self, root: &Path, changes: &[FileChange]);
}

impl<F> ChangeObserver for F
where
    F: Fn(&Path, &[FileChange]) + Send + Sync + 'static,
{
    fn files_changed(&self, root: &Path, changes: &[FileChange]) {
        self(root, changes)
    }
}
