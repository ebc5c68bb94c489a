//! Keeps tool results within the model's budget while saying exactly what is missing: spill, line and middle truncation, and the per-batch budget.
//!
//! This is the *limit* stage of toolexec (the last step before a result goes
//! to the model): a plain synchronous
//! library with no dependency on the executor, usable on its own.
//!
//! # Example
//!
//! ```
//! use toolexec_limiter::{Context, Limiter, Limits};
//!
//! let scratch = tempfile::tempdir()?;
//! let limiter = Limiter::new(Limits::default().budget(400).scratch_dir(scratch.path()));
//! let line = |i: usize| format!("line {i:04} of a long build log\n");
//!
//! // 200 lines (6 000 chars) from a read-only tool: E = 1200, middle truncation.
//! // The complete output is saved first, and the note names the file.
//! let log: String = (1..=200).map(line).collect();
//! let limited = limiter.limit(&log, true);
//! let path = limited.spill_path.clone().expect("saved for the note");
//! let note = format!(
//!     "...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; \
//!      use read on {} with offset=15 to see middle]...",
//!     path.display()
//! );
//! assert_eq!(limited.content, format!("{}\n{note}\n{}", &log[..400], &log[log.len() - 400..]));
//! assert_eq!(std::fs::read_to_string(&path)?, log);
//!
//! // The same text as `read`'s own view of a file (from line 1): no file
//! // is written, the model re-reads the file it read.
//! let ctx = Context::new(true).reader(Some("read")).reader_view(Some(0));
//! let out = limiter.limit_with(&log, &ctx).into_content();
//! let note = "...[truncated 5200 chars; showing lines 1-14 and 187-201 of 201 total; \
//!             use read with offset=15 to see middle]...";
//! assert_eq!(out, format!("{}\n{note}\n{}", &log[..400], &log[log.len() - 400..]));
//!
//! // 2 000 lines (60 000 chars) > max(20 000, 3 × 1200): spilled whole to a 0600 file.
//! let log: String = (1..=2000).map(line).collect();
//! let limited = limiter.limit(&log, true);
//! let path = limited.spill_path.clone().expect("spilled");
//! assert_eq!(
//!     limited.content,
//!     format!(
//!         "Result too large (60000 chars). Full output was spilled to scratch file: {}\n\
//!          Use read tool on this path if you need full content.",
//!         path.display()
//!     )
//! );
//! assert_eq!(std::fs::read_to_string(&path)?, log);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # Features
//!
//! - [`Limiter::limit`]: the three layers below, in order, with the effective
//!   budget E (budget × 3 for a successful result of a read-only tool).
//!   1. **Spill** when the content has more than max(spill floor, 3 × E)
//!      characters: the whole content goes to a new
//!      `SCRATCH/tool_result_<unix-nanos>.txt` and the model gets the
//!      two-line message `Result too large (N chars). Full output was spilled
//!      to scratch file: PATH` / `Use read tool on this path if you need full content.`
//!   2. **Long lines**: each line over the max line length is replaced whole
//!      by `[line truncated: N chars]` ([`truncate_long_lines`]).
//!   3. **Middle**: over E characters, the first and last ⌊E/3⌋ characters
//!      are kept with the note
//!      `...[truncated N chars; showing lines A-B and C-D of T total; use read with offset=B+1 to see middle]...`
//!      between them ([`middle_truncate`], numbers in [`MiddleCut`]).
//! - [`fit_batch`]: the per-batch total budget by water-filling.
//! - [`char_len`], [`line_count`]: the vectorised counters everything uses.
//!
//! Sizes are characters (Unicode scalar values) everywhere and no cut ever
//! splits a character. Large inputs are never copied to be measured: layers 2
//! and 3 run on a description of the line-truncated text and only build the
//! kept head and tail, so peak memory stays near the size of the input.
//!
//! # Decisions where the spec is silent
//!
//! - **Joining the note.** The note is one line of its own: a `\n` is put
//!   before it unless the head is empty or already ends with `\n`, and after
//!   it unless the tail is empty or already starts with `\n`. So the output
//!   is `head`, at most one `\n`, the note, at most one `\n`, `tail`: never
//!   more than E' + note + 2 characters (E' = 2⌊E/3⌋), and no empty line is
//!   invented. The 200-line example (head ends inside line 14, tail starts inside
//!   line 187) gives `head\nNOTE\ntail`.
//! - **Degenerate budgets.** With E < 3 head and tail are empty: B is 0 (the
//!   range `1-0` shows nothing, `offset=1` re-reads from the start) and C is
//!   T + 1 (the empty range `T+1-T`).
//! - **`\r`.** Lines split on `\n` only. A `\r` right before a `\n` (or at the
//!   very end) is part of the line ending: not counted in a line's length and
//!   kept after the marker, so CRLF text stays CRLF. Other `\r`s are
//!   ordinary characters (a progress bar redrawn with `\r` is one long line).
//! - **What is spilled** is the content exactly as given (redacted, not
//!   line-truncated). The message uses `scratch_dir.join(name)` as given
//!   (a relative scratch directory gives a relative path).
//! - **Scratch directory** is created with mode 0700 (with any missing
//!   parents, also 0700) when absent; an existing directory must be private
//!   to this user (a directory, not a symbolic link, owned by the effective
//!   uid, not group- or world-writable), else the spill fails with
//!   [`LimitError::Scratch`] (checked before every spill: one `lstat`).
//! - **Sessions** ([`ScratchRoot`] / [`ScratchSession`]):
//!   the per-user root defaults to `$TMPDIR/toolexec-<uid>` (checked as
//!   above; `--scratch DIR` is the root and is checked the same way). A
//!   workspace session (`toolexec run`) is `ROOT/ws-<16 hex digits of the
//!   FNV-1a hash of the canonical workspace path>`, the same for every run
//!   on that workspace and kept; an ephemeral session (an MCP server
//!   process, one HTTP session) is a fresh `ROOT/session-<pid>-<n>-<nanos>`
//!   removed with its files when the [`ScratchSession`] is dropped (a
//!   process killed with SIGKILL leaves it to the next sweep). Starting
//!   either sweeps: spill files older than 24 h ([`SPILL_MAX_AGE`], by
//!   mtime) in the root and in every session directory are removed, then
//!   session directories left empty and older than 24 h; other files,
//!   symbolic links and other owners' entries are left alone. Only the
//!   root itself is checked, not its parents (the system temp dir is
//!   sticky). [`open_spill_file`] is what `read` uses: the path must name
//!   `tool_result_<digits>.txt` directly in the session directory (after
//!   lexical `..` normalization), opened with `O_NOFOLLOW | O_NONBLOCK` and
//!   checked with `fstat` (regular file, own uid). Files are created with `O_CREAT|O_EXCL` and mode 0600 (never
//!   overwriting, never following a planted symlink). The name's number is
//!   the wall clock in nanoseconds, kept strictly increasing within the
//!   process; a name taken by another process is skipped for the next
//!   number (up to 1000 tries). A file whose write fails is removed.
//! - **Spill failure.** The model gets layers 2 and 3 as if no spill were
//!   due, then (after a `\n` unless the text ends with one) exactly one line
//!   `[spill failed: REASON; output truncated instead]`, REASON being the
//!   [`LimitError`] display, e.g. `cannot create spill file
//!   /scratch/tool_result_1791784113234832000.txt: Permission denied (os
//!   error 13)`. The error is also returned in [`Limited::spill_error`].
//! - **Hints that hold.** Every instruction a result gives works when
//!   followed in the same session. Hints name [`Limits::reader_tool`]
//!   (default `read`) only when the caller says it can be called
//!   ([`Context::reader`]; [`Limiter::limit`] assumes it can). Without
//!   one, the spill message is its first line only and a middle note ends
//!   `; the full output is in PATH]...`. A middle cut of anything but the
//!   reader's own view of a file ([`Context::reader_view`]) first saves the
//!   complete content to a spill file, which the note names (`use read on
//!   PATH with offset=B+1 to see middle`); the reader's own note says `use
//!   read with offset=N`, N counting the lines before its view. If that
//!   spill fails, the note has no hint and the failure line follows.
//! - **Spilled outputs** ([`Limiter::limit_spilled`]): a file written by
//!   a caller's redacting sink is used as the complete output; under the
//!   threshold it is read back and cut, the note naming that file; a file
//!   whose content fits whole is removed.
//! - **Settings are literal**: a budget of 0 keeps only the note;
//!   `usize::MAX` switches a layer off (`spill_floor(usize::MAX)` never
//!   spills, `max_line(usize::MAX)` never truncates lines). Products
//!   saturate.
//! - **Batch budget**: see [`fit_batch`] for the fair share, the cost of
//!   notes and the first-line floor of error results.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod batch;
mod count;
mod error;
mod hint;
mod limiter;
mod lines;
mod middle;
mod scratch;
mod spill;

pub use batch::{fit_batch, BatchFit, BatchItem};
pub use count::{char_len, line_count};
pub use error::LimitError;
pub use hint::Context;
pub use limiter::{spill_failure_line, Limited, Limiter, Limits, SpilledOutput};
pub use lines::truncate_long_lines;
pub use middle::{middle_truncate, middle_truncate_with_cut, MiddleCut};
pub use scratch::{
    ensure_private_dir, is_spill_file_name, open_spill_file, ScratchError, ScratchRoot,
    ScratchSession, SPILL_MAX_AGE,
};
pub use spill::create_spill_file;

/// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
