//! Hints that are true (each works when followed, in the same session):
//! what a note or a spill message tells the
//! model to do, and which tool it may name.

use std::fmt::Write as _;
use std::path::Path;

/// What the limiter knows about one result besides its text: the effective
/// budget, the tool the hints may name, and whether the result is that
/// tool's own view of a file.
///
/// ```
/// use toolexec_limiter::Context;
/// // A successful read-only result; `read` can be called this turn.
/// let ctx = Context::new(true).reader(Some("read"));
/// // The same, but the model has no reading tool: hints name the path only.
/// let bare = Context::new(true).reader(None);
/// // A `read` call that started at `offset=500`: 499 lines come before its output.
/// let view = Context::new(true).reader(Some("read")).reader_view(Some(499));
/// assert_ne!(ctx, bare);
/// assert_ne!(ctx, view);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Context<'a> {
    /// A successful result of a `read_only` tool (effective budget × 3).
    pub read_only_success: bool,
    /// The tool a hint may name (`read`, or a proxy's `toolexec_read_spill`),
    /// when the model can call it this turn; `None`: hints name the path
    /// alone (`the full output is in PATH`).
    pub reader: Option<&'a str>,
    /// `Some(lines_before)`: this result *is* the reader tool's own view of
    /// a file, starting after `lines_before` lines of it. Its middle note
    /// then says `use READER with offset=lines_before+B+1` (the file it read
    /// holds the middle) and nothing is spilled for it.
    pub reader_view: Option<u64>,
}

impl<'a> Context<'a> {
    /// A result with no reader tool and no file of its own.
    #[must_use]
    pub fn new(read_only_success: bool) -> Self {
        Context {
            read_only_success,
            reader: None,
            reader_view: None,
        }
    }

    /// Sets the tool hints may name (`None`: none can be called).
    #[must_use]
    pub fn reader(mut self, reader: Option<&'a str>) -> Self {
        self.reader = reader;
        self
    }

    /// Marks the result as the reader tool's own view of a file that starts
    /// after `lines_before` lines (ignored when no reader is set).
    #[must_use]
    pub fn reader_view(mut self, lines_before: Option<u64>) -> Self {
        self.reader_view = lines_before;
        self
    }

    /// The reader and the line offset when this result is the reader's own
    /// view of a file.
    pub(crate) fn own_view(&self) -> Option<(&'a str, u64)> {
        match (self.reader, self.reader_view) {
            (Some(reader), Some(before)) => Some((reader, before)),
            _ => None,
        }
    }
}

/// The end of a middle-truncation note: how to see the middle.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NoteHint<'a> {
    /// `use READER with offset=N to see middle` (the reader's own view).
    Reread { reader: &'a str, offset: u64 },
    /// `use READER on PATH with offset=N to see middle`.
    ReadFile {
        reader: &'a str,
        path: &'a Path,
        offset: u64,
    },
    /// `the full output is in PATH` (no tool can be named).
    Path(&'a Path),
    /// No file holds the middle (the spill failed): nothing to follow.
    Gone,
}

impl NoteHint<'_> {
    /// Appends `; HINT` (nothing for [`NoteHint::Gone`]).
    pub(crate) fn write_to(&self, out: &mut String) {
        let _ = match self {
            NoteHint::Reread { reader, offset } => {
                write!(out, "; use {reader} with offset={offset} to see middle")
            }
            NoteHint::ReadFile {
                reader,
                path,
                offset,
            } => write!(
                out,
                "; use {reader} on {} with offset={offset} to see middle",
                path.display()
            ),
            NoteHint::Path(path) => write!(out, "; the full output is in {}", path.display()),
            NoteHint::Gone => Ok(()),
        };
    }
}

/// The message the model gets instead of a spilled result:
///
/// ```text
/// Result too large (N chars). Full output was spilled to scratch file: PATH
/// Use READER tool on this path if you need full content.
/// ```
///
/// With a reader tool it is exactly these two lines; without one the
/// second line (which names a tool) is left out, since the first already
/// names the path.
pub(crate) fn spill_message(chars: usize, path: &Path, reader: Option<&str>) -> String {
    let mut out = format!(
        "Result too large ({chars} chars). Full output was spilled to scratch file: {}",
        path.display()
    );
    if let Some(reader) = reader {
        let _ = write!(
            out,
            "\nUse {reader} tool on this path if you need full content."
        );
    }
    out
}
