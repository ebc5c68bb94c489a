//! The limit stage: adapts [`toolexec_limiter::Limiter`] to the chain
//! (after redaction, before the change report is appended), and the
//! per-batch budget.

use std::sync::{Arc, RwLock};

use futures_util::future::{BoxFuture, FutureExt};
use toolexec_limiter::{BatchItem, Context, Limiter};

use crate::stage::{Invocation, Next, Outcome, Stage};
use crate::stages::panic_outcome;
use crate::types::ToolCall;

/// The tool that hints may name this turn: the limiter's
/// [`reader_tool`](toolexec_limiter::Limits::reader_tool) when the model
/// can call it (registered, offered, not disabled), else `None`. Shared
/// with the executor, which updates it when the turn changes.
pub(crate) type ReaderSlot = Arc<RwLock<Option<Arc<str>>>>;

/// Turns the redacted content into what the model sees: spill, long-line
/// and middle truncation, with hints that hold when followed. A successful
/// result of a read-only tool gets three times the budget. The change
/// report is not part of the content at this point and is never cut.
///
/// - A result of the reader tool itself (`read`) is its own view of a
///   file: its note says `use read with offset=N`, N counting the call's
///   first line ([`ToolContext::set_first_line`](crate::ToolContext::set_first_line)).
/// - Any other cut result first has its complete content saved to a spill
///   file, which the note names.
/// - A result whose complete output a tool wrote through the output sink
///   ([`Outcome::full_output`]) is limited from that file.
/// - Work that may cut or write files runs on tokio's blocking pool.
#[derive(Debug, Clone)]
pub(crate) struct LimitStage {
    limiter: Arc<Limiter>,
    reader: ReaderSlot,
    keep_complete: bool,
}

impl LimitStage {
    /// A stage limiting with `limiter`, assuming its reader tool can
    /// always be called.
    pub(crate) fn new(limiter: Arc<Limiter>) -> Self {
        let reader = limiter.limits().reader_tool.as_deref().map(Arc::from);
        LimitStage {
            limiter,
            reader: Arc::new(RwLock::new(reader)),
            keep_complete: false,
        }
    }

    /// Uses a shared reader slot (the executor's, updated per turn).
    pub(crate) fn reader_slot(mut self, slot: ReaderSlot) -> Self {
        self.reader = slot;
        self
    }

    /// Keeps the complete content of cut results in
    /// [`Outcome::complete`] (for a batch budget).
    pub(crate) fn keep_complete(mut self, keep: bool) -> Self {
        self.keep_complete = keep;
        self
    }
}

/// The reader tool callable now, if any.
pub(crate) fn current_reader(slot: &ReaderSlot) -> Option<Arc<str>> {
    slot.read()
        .map(|r| r.clone())
        .unwrap_or_else(|p| p.into_inner().clone())
}

fn apply(
    limiter: &Limiter,
    outcome: &mut Outcome,
    read_only: bool,
    reader: Option<&str>,
    view: Option<u64>,
    keep_complete: bool,
) {
    let ctx = Context::new(read_only && !outcome.is_error)
        .reader(reader)
        .reader_view(view);
    if let Some(full) = outcome.full_output.take() {
        let spilled = toolexec_limiter::SpilledOutput::new(
            full.path.clone(),
            full.chars,
            full.lines,
            full.bytes,
        );
        let body = match limiter.limit_spilled(&spilled, &ctx) {
            Ok(limited) => {
                outcome.spill_path = limited.spill_path.clone();
                limited.into_content()
            }
            Err(err) => {
                outcome.spill_path = Some(full.path.clone());
                format!(
                    "[the complete output was saved to {} but could not be read back: {err}]",
                    full.path.display()
                )
            }
        };
        let header = std::mem::take(&mut outcome.content);
        outcome.content = if header.is_empty() {
            body
        } else {
            format!("{header}\n\n{body}")
        };
        return;
    }
    let limited = limiter.limit_with(&outcome.content, &ctx);
    if limited.is_unchanged() {
        return;
    }
    let cut = limited.middle.is_some();
    let spill_path = limited.spill_path.clone();
    let content = limited.into_content();
    let original = std::mem::replace(&mut outcome.content, content);
    if spill_path.is_some() {
        outcome.spill_path = spill_path;
    }
    if cut && keep_complete {
        outcome.complete = Some(original);
    }
}

impl Stage for LimitStage {
    fn name(&self) -> &str {
        "limit"
    }

    fn call<'a>(&'a self, inv: Invocation, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        let read_only = inv.read_only();
        let reader = current_reader(&self.reader);
        let own = reader.as_deref() == Some(inv.call.name.as_str());
        let state = own.then(|| inv.ctx.clone());
        next.run(inv)
            .then(move |mut outcome| async move {
                let view = state.map(|s| s.first_line() - 1);
                outcome.reader_view = view.filter(|_| reader.is_some());
                let budget = self
                    .limiter
                    .limits()
                    .effective_budget(read_only && !outcome.is_error);
                // Bytes >= chars: within the budget in bytes nothing is cut
                // and nothing written, so it stays on this task.
                if outcome.full_output.is_none() && outcome.content.len() <= budget {
                    return outcome;
                }
                let limiter = self.limiter.clone();
                let keep = self.keep_complete;
                tokio::task::spawn_blocking(move || {
                    apply(
                        &limiter,
                        &mut outcome,
                        read_only,
                        reader.as_deref(),
                        view,
                        keep,
                    );
                    outcome
                })
                .await
                .unwrap_or_else(|err| panic_outcome("limit", err))
            })
            .boxed()
    }
}

/// Cuts the largest contents of a batch until their total fits `total`,
/// after the whole batch ran.
///
/// Water-filling: results below their fair share stay whole; error results
/// are never cut below their first line. Only the content is counted; each
/// cut is made from the result's complete redacted content and its note
/// names a spill file holding it (or, for the reader's own view of a file,
/// that file with the call's offset). Spill messages are never cut. The
/// change reports are appended afterwards, uncounted.
pub(crate) fn fit_batch(
    limiter: &Limiter,
    reader: Option<&str>,
    total: usize,
    outcomes: &mut [(ToolCall, Outcome)],
) {
    let mut items: Vec<BatchItem<'_>> = outcomes
        .iter_mut()
        .map(|(_, o)| {
            let fixed = o.spill_path.is_some() && o.complete.is_none();
            let context = Context::new(false)
                .reader(reader)
                .reader_view(o.reader_view);
            BatchItem::new(&mut o.content, o.is_error)
                .complete(o.complete.as_deref())
                .context(context)
                .spill_path(&mut o.spill_path)
                .fixed(fixed)
        })
        .collect();
    limiter.fit_batch(&mut items, total);
}
