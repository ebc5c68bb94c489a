//! Events: what a UI sees of a batch while it runs.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::types::ToolResult;

/// Which moment of a call an [`Event`] marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// The call's group began; the call is about to wait for a slot.
    Queued,
    /// The call got its concurrency slot and entered the chain.
    Started,
    /// The call ended; the event carries its result.
    Finished,
}

/// One moment of one call.
///
/// The `finished` event carries the result as the chain produced it, with
/// the change report appended; a per-batch budget, applied once the whole
/// batch is done, may cut the content that the batch finally returns
/// further.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// Queued, started or finished.
    pub event: EventKind,
    /// The call id.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The call's position in its batch.
    pub index: usize,
    /// The result, on `finished` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
}

/// Receives the events of a batch. Called from the scheduler's task: keep
/// it quick (send to a channel, print a line).
///
/// Implemented for closures `Fn(Event)` and for tokio's unbounded sender.
pub trait EventSink: Send + Sync + 'static {
    /// Handles one event.
    fn emit(&self, event: Event);
}

impl<F> EventSink for F
where
    F: Fn(Event) + Send + Sync + 'static,
{
    fn emit(&self, event: Event) {
        self(event)
    }
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<Event> {
    fn emit(&self, event: Event) {
        // A receiver that went away just stops listening.
        let _ = self.send(event);
    }
}

/// The batch's event sink, if any (internal: users hand an [`EventSink`] to
/// [`BatchOptions::events`](crate::BatchOptions::events)).
#[derive(Clone)]
pub(crate) struct Events(pub(crate) Option<Arc<dyn EventSink>>);

impl fmt::Debug for Events {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Events(sink)"
        } else {
            "Events(none)"
        })
    }
}

impl Events {
    pub(crate) fn emit(
        &self,
        event: EventKind,
        index: usize,
        id: &str,
        name: &str,
        result: Option<&ToolResult>,
    ) {
        if let Some(sink) = &self.0 {
            sink.emit(Event {
                event,
                id: id.to_string(),
                name: name.to_string(),
                index,
                result: result.cloned(),
            });
        }
    }
}
