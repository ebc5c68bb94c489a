//! The change observer: how the executor tells the embedding program which
//! files a call changed.

use std::path::Path;

use crate::types::FileChange;

/// Receives the files a call changed, after the
/// after-snapshot of every non-read-only call with a non-empty diff.
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
