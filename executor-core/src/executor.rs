//! The [`Executor`]: a registry of tools, the chain of stages around them and
//! the batch scheduler.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use futures_util::stream::{self, StreamExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::event::{EventKind, EventSink, Events};
use crate::observer::ChangeObserver;
use crate::stage::{Chain, Invocation, Outcome, Stage};
use crate::stages::deadline::{DeadlineStage, DEFAULT_GRACE};
use crate::stages::hooks::{HooksStage, PreHook};
use crate::tool::{Tool, ToolContext, ToolInfo};
use crate::types::{ErrorKind, ToolCall, ToolResult};

/// The default number of concurrency-safe calls that run at once.
pub const DEFAULT_MAX_CONCURRENCY: usize = 5;

/// Why an executor could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools were registered under one name.
    DuplicateTool {
        /// The name registered twice.
        name: String,
    },
    /// A tool's input schema was refused by the guard (it does not compile,
    /// or refers to a document outside itself).
    ///
    /// The [`GuardError`](toolexec_guard::GuardError) is kept whole in
    /// `source`. The error is transparent, as thiserror's
    /// `#[error(transparent)]`: its message is the guard's (`tool NAME:
    /// invalid input schema: …`, which already names the tool), said once,
    /// and [`Error::source`](std::error::Error::source) is the guard
    /// error's own source, so printing the chain never repeats it.
    #[cfg(feature = "guard")]
    InvalidSchema {
        /// The tool.
        name: String,
        /// The guard's error.
        source: toolexec_guard::GuardError,
    },
    /// `max_concurrency` was zero.
    ZeroConcurrency,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::DuplicateTool { name } => write!(f, "tool {name} is registered twice"),
            // The guard's message already names the tool and says what is
            // wrong; the variant adds nothing to it.
            #[cfg(feature = "guard")]
            BuildError::InvalidSchema { source, .. } => fmt::Display::fmt(source, f),
            BuildError::ZeroConcurrency => f.write_str("max_concurrency must be at least 1"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            #[cfg(feature = "guard")]
            BuildError::InvalidSchema { source, .. } => source.source(),
            _ => None,
        }
    }
}

/// Per-batch options: the cancellation token and the event sink.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    cancel: CancellationToken,
    events: Option<Arc<dyn EventSink>>,
}

impl fmt::Debug for dyn EventSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventSink")
    }
}

impl BatchOptions {
    /// No cancellation, no events.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels the batch when `token` fires: calls not yet started end
    /// `cancelled` without running, running calls are stopped.
    pub fn cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Sends `queued` / `started` / `finished` events to `sink`.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// Sends events to an already shared sink.
    pub fn events_arc(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.events = Some(sink);
        self
    }
}

/// Which tools the model may call this turn.
#[derive(Debug, Clone, Default)]
struct Turn {
    offered: Option<HashSet<String>>,
    disabled: HashSet<String>,
}

/// Runs batches of tool calls through the chain of stages.
///
/// Cheap to clone (an `Arc` inside); clones share tools, turn state and the
/// admission control of [`run_call`](Executor::run_call).
#[derive(Clone)]
pub struct Executor {
    inner: Arc<Inner>,
}

struct Inner {
    workdir: PathBuf,
    shared_workdir: Arc<Path>,
    tools: HashMap<String, Arc<dyn Tool>>,
    order: Vec<String>,
    chain: Chain,
    max_concurrency: usize,
    turn: RwLock<Turn>,
    catalog: RwLock<Arc<[ToolInfo]>>,
    #[cfg(feature = "guard")]
    guard: Option<Arc<RwLock<toolexec_guard::Guard>>>,
    #[cfg(feature = "limit")]
    batch_budget: Option<usize>,
    /// The limiter, for the batch budget.
    #[cfg(feature = "limit")]
    limiter: Option<Arc<toolexec_limiter::Limiter>>,
    /// The tool hints may name this turn (shared with the limit stage).
    #[cfg(feature = "limit")]
    reader: crate::stages::limit::ReaderSlot,
    /// The limiter's reader tool setting (named only when callable).
    #[cfg(feature = "limit")]
    reader_tool: Option<String>,
    /// The redacting output sink offered to tools (with limits on).
    sink: Option<Arc<crate::sink::OutputSinkConfig>>,
    /// Masks the ids and names that results and events echo.
    #[cfg(feature = "redact")]
    redactor: Option<Arc<toolexec_redact::Redactor>>,
    /// The registered tool names as results and events echo them (masked
    /// once at build time: the redactor and the names never change).
    masked_names: HashMap<String, String>,
    /// Numbers calls in arrival (and input) order, for the overlap line.
    order_seq: AtomicU64,
    /// Admission for calls arriving one by one (`run_call`): safe calls
    /// share it, a non-safe call takes it alone.
    admission: tokio::sync::RwLock<()>,
    slots: tokio::sync::Semaphore,
}

impl fmt::Debug for Executor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Executor")
            .field("workdir", &self.inner.workdir)
            .field("tools", &self.inner.order)
            .field("stages", &self.inner.chain.len())
            .field("max_concurrency", &self.inner.max_concurrency)
            .finish()
    }
}

impl Executor {
    /// Starts building an executor for the workspace at `workdir`.
    pub fn builder(workdir: impl Into<PathBuf>) -> ExecutorBuilder {
        ExecutorBuilder::new(workdir)
    }

    /// The workspace root.
    pub fn workdir(&self) -> &Path {
        &self.inner.workdir
    }

    /// The registered tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.inner.tools.get(name)
    }

    /// Every registered tool, in registration order, with its turn flags.
    pub fn catalog(&self) -> Arc<[ToolInfo]> {
        self.inner
            .catalog
            .read()
            .map(|c| c.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// Sets the tools offered to the model this turn (`None`: all). A
    /// registered tool that is not offered is refused with the message that
    /// points the model to `tool_search`.
    pub fn set_offered<I, S>(&self, offered: Option<I>)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let offered: Option<HashSet<String>> =
            offered.map(|o| o.into_iter().map(Into::into).collect());
        self.update_turn(|turn| turn.offered = offered);
    }

    /// Sets the disabled tools (refused with `tool NAME is disabled`).
    pub fn set_disabled<I, S>(&self, disabled: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let disabled: HashSet<String> = disabled.into_iter().map(Into::into).collect();
        self.update_turn(|turn| turn.disabled = disabled);
    }

    fn update_turn(&self, change: impl FnOnce(&mut Turn)) {
        let inner = &self.inner;
        let mut turn = inner.turn.write().unwrap_or_else(|p| p.into_inner());
        change(&mut turn);
        #[cfg(feature = "guard")]
        if let Some(guard) = &inner.guard {
            let mut guard = guard.write().unwrap_or_else(|p| p.into_inner());
            guard.set_disabled(turn.disabled.iter().cloned());
            guard.set_offered(turn.offered.clone());
        }
        let catalog = build_catalog(&inner.tools, &inner.order, &turn);
        *inner.catalog.write().unwrap_or_else(|p| p.into_inner()) = catalog;
        #[cfg(feature = "limit")]
        {
            let reader = callable_reader(inner.reader_tool.as_deref(), &inner.tools, &turn);
            *inner.reader.write().unwrap_or_else(|p| p.into_inner()) = reader;
        }
    }

    /// The id and name of a call as results and events echo them: masked
    /// by the redactor, the input left out.
    fn head_of(&self, call: &ToolCall) -> ToolCall {
        ToolCall {
            id: self.mask(&call.id),
            name: match self.inner.masked_names.get(&call.name) {
                Some(masked) => masked.clone(),
                None => self.mask(&call.name),
            },
            input: String::new(),
        }
    }

    fn mask(&self, text: &str) -> String {
        #[cfg(feature = "redact")]
        if let Some(redactor) = &self.inner.redactor {
            return redactor.redact(text).into_owned();
        }
        text.to_string()
    }

    /// Runs a batch: schedules the calls, runs each
    /// through the chain and returns one result per call, in input order.
    ///
    /// Consecutive concurrency-safe calls form a group that runs
    /// concurrently, at most `max_concurrency` at a time; every other call
    /// is a group of its own; groups run one after another.
    pub async fn run_batch(&self, calls: Vec<ToolCall>, options: &BatchOptions) -> Vec<ToolResult> {
        let events = Events(options.events.clone());
        let cancel = &options.cancel;
        let n = calls.len();
        let mut flags: Vec<CallFlags> = calls.iter().map(|c| self.flags(c)).collect();
        let safe: Vec<bool> = flags.iter().map(|f| f.concurrency_safe).collect();
        let first_order = self.inner.order_seq.fetch_add(n as u64, Ordering::Relaxed);
        let mut calls: Vec<Option<ToolCall>> = calls.into_iter().map(Some).collect();
        let mut outcomes: Vec<Option<(ToolCall, Outcome)>> = (0..n).map(|_| None).collect();

        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            if safe[start] {
                while end < n && safe[end] {
                    end += 1;
                }
            }
            let group: Vec<(usize, ToolCall, ToolCall, CallFlags)> = (start..end)
                .filter_map(|i| {
                    calls[i].take().map(|c| {
                        let head = self.head_of(&c);
                        (i, c, head, std::mem::take(&mut flags[i]))
                    })
                })
                .collect();
            for (index, _, head, _) in &group {
                events.emit(EventKind::Queued, *index, &head.id, &head.name, None);
            }
            let mut running = stream::iter(group)
                .map(|(index, call, head, flags)| {
                    let events = &events;
                    async move {
                        let order = first_order + index as u64;
                        let (call, outcome) = self
                            .run_started(index, order, call, head, flags, cancel, events)
                            .await;
                        (index, call, outcome)
                    }
                })
                .buffer_unordered(self.inner.max_concurrency);
            while let Some((index, call, outcome)) = running.next().await {
                outcomes[index] = Some((call, outcome));
            }
            start = end;
        }

        let outcomes: Vec<(ToolCall, Outcome)> = outcomes.into_iter().flatten().collect();
        let outcomes = self.apply_batch_budget(outcomes).await;
        outcomes
            .into_iter()
            .map(|(call, outcome)| assemble(call, outcome))
            .collect()
    }

    /// Runs one call that arrived on its own (an MCP `tools/call`), under
    /// the same rules as a batch: concurrency-safe calls run together, at
    /// most `max_concurrency` at a time, and a non-safe call waits until it
    /// can run alone (and holds back calls that arrive after it).
    pub async fn run_call(&self, call: ToolCall, options: &BatchOptions) -> ToolResult {
        let events = Events(options.events.clone());
        let cancel = &options.cancel;
        let head = self.head_of(&call);
        events.emit(EventKind::Queued, 0, &head.id, &head.name, None);
        let flags = self.flags(&call);
        let safe = flags.concurrency_safe;
        let order = self.inner.order_seq.fetch_add(1, Ordering::Relaxed);
        let inner = &self.inner;
        let admitted = async {
            if safe {
                let shared = inner.admission.read().await;
                let permit = inner.slots.acquire().await;
                (Some(shared), None, permit.ok())
            } else {
                (None, Some(inner.admission.write().await), None)
            }
        };
        let guards = tokio::select! {
            biased;
            g = admitted => Some(g),
            _ = cancel.cancelled() => None,
        };
        let (call, outcome) = match guards {
            Some(_guards) => {
                self.run_started(0, order, call, head, flags, cancel, &events)
                    .await
            }
            None => {
                let outcome = self.finish_unstarted(&call.name);
                events.emit(
                    EventKind::Finished,
                    0,
                    &head.id,
                    &head.name,
                    Some(&assemble(head.clone(), outcome.clone())),
                );
                (head, outcome)
            }
        };
        assemble(call, outcome)
    }

    /// The scheduling flags of a call, asked of its tool with the parsed
    /// input. A call of an unknown tool, or whose input is not JSON, is
    /// neither concurrency-safe nor read-only.
    ///
    /// The parsed input is kept and handed on to the chain (the guard does
    /// not parse it again).
    fn flags(&self, call: &ToolCall) -> CallFlags {
        let Some(tool) = self.inner.tools.get(&call.name) else {
            return CallFlags::default();
        };
        match serde_json::from_str::<Value>(&call.input) {
            Ok(input) => CallFlags {
                concurrency_safe: tool.concurrency_safe(&input),
                read_only: tool.read_only(&input),
                input: Some(input),
            },
            Err(_) => CallFlags::default(),
        }
    }

    /// The outcome of a call cancelled before it started, its message
    /// masked like every text that leaves the executor.
    fn finish_unstarted(&self, name: &str) -> Outcome {
        let mut outcome = cancelled_before_start(name);
        outcome.content = self.mask(&outcome.content);
        outcome
    }

    /// Runs one call that got its slot: `started`, the chain, `finished`.
    /// Hands back the call's masked id and name (its input moved into the
    /// chain, so that a large `write` is never copied) with the outcome.
    #[allow(clippy::too_many_arguments)]
    async fn run_started(
        &self,
        index: usize,
        order: u64,
        call: ToolCall,
        head: ToolCall,
        flags: CallFlags,
        cancel: &CancellationToken,
        events: &Events,
    ) -> (ToolCall, Outcome) {
        let outcome = if cancel.is_cancelled() {
            self.finish_unstarted(&call.name)
        } else {
            events.emit(EventKind::Started, index, &head.id, &head.name, None);
            let ctx = ToolContext::with_shared_workdir(
                self.inner.shared_workdir.clone(),
                call.id.clone(),
            )
            .with_cancel(cancel.clone())
            .with_catalog(self.catalog())
            .with_shared_output_sink(self.inner.sink.clone())
            .with_order(order);
            let inv = Invocation {
                tool: self.inner.tools.get(&call.name).cloned(),
                call,
                input: flags.input,
                read_only: flags.read_only,
                ctx,
            };
            self.inner.chain.run(inv).await
        };
        if events.0.is_some() {
            let result = assemble(head.clone(), outcome.clone());
            events.emit(
                EventKind::Finished,
                index,
                &head.id,
                &head.name,
                Some(&result),
            );
        }
        (head, outcome)
    }

    /// The per-batch budget, cut on tokio's blocking pool (it may read
    /// and write spill files). A panic there leaves the results as the
    /// per-result limits made them.
    #[cfg(feature = "limit")]
    async fn apply_batch_budget(
        &self,
        mut outcomes: Vec<(ToolCall, Outcome)>,
    ) -> Vec<(ToolCall, Outcome)> {
        let (Some(total), Some(limiter)) = (self.inner.batch_budget, self.inner.limiter.clone())
        else {
            return outcomes;
        };
        let fits = outcomes
            .iter()
            .map(|(_, o)| o.content.len())
            .fold(0usize, usize::saturating_add)
            <= total;
        if !fits {
            let reader = crate::stages::limit::current_reader(&self.inner.reader);
            let job = tokio::task::spawn_blocking(move || {
                let fitted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::stages::limit::fit_batch(
                        &limiter,
                        reader.as_deref(),
                        total,
                        &mut outcomes,
                    )
                }));
                if fitted.is_err() {
                    tracing::warn!("the batch budget panicked; results keep their own limits");
                }
                outcomes
            });
            match job.await {
                Ok(done) => outcomes = done,
                Err(err) => {
                    tracing::warn!(%err, "the batch budget did not complete");
                    return Vec::new();
                }
            }
        }
        for (_, outcome) in &mut outcomes {
            outcome.complete = None;
        }
        outcomes
    }

    #[cfg(not(feature = "limit"))]
    async fn apply_batch_budget(
        &self,
        outcomes: Vec<(ToolCall, Outcome)>,
    ) -> Vec<(ToolCall, Outcome)> {
        outcomes
    }
}

fn cancelled_before_start(name: &str) -> Outcome {
    Outcome::error(
        ErrorKind::Cancelled,
        format!("tool {name} was cancelled before it started"),
    )
}

/// Builds the model-facing result: the limited content, then the change
/// report after one blank line.
fn assemble(call: ToolCall, outcome: Outcome) -> ToolResult {
    let Outcome {
        is_error,
        error_kind,
        mut content,
        changes,
        report,
        spill_path,
        ..
    } = outcome;
    if !report.is_empty() {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(&report);
    }
    ToolResult {
        id: call.id,
        name: call.name,
        is_error,
        error_kind,
        content,
        changes,
        spill_path,
    }
}

fn build_catalog(
    tools: &HashMap<String, Arc<dyn Tool>>,
    order: &[String],
    turn: &Turn,
) -> Arc<[ToolInfo]> {
    order
        .iter()
        .filter_map(|name| tools.get(name))
        .map(|tool| {
            let mut info = ToolInfo::of(tool.as_ref());
            info.offered = turn.offered.as_ref().is_none_or(|o| o.contains(&info.name));
            info.disabled = turn.disabled.contains(&info.name);
            info
        })
        .collect()
}

/// Builds an [`Executor`].
///
/// The chain it builds, outermost first (each stage sees the call before the
/// ones below it and the outcome after them):
///
/// ```text
///   limit    ── spill / long lines / middle truncation      (on the way out)
///   redact   ── masks secrets in content and report         (on the way out)
///   guard    ── unknown, disabled, not offered, JSON, required fields
///   hooks    ── the embedder's pre-hooks, in order
///   [stages] ── stages added with `stage()`, in order
///   snapshot ── before / after photographs and the change report
///   deadline ── timeout + grace, panic capture, cancellation
///   tool
/// ```
///
/// Limiting and redaction sit outside everything, so that refusals, hook
/// results, panic messages and partial output of timed-out tools are masked
/// and bounded as well. Redaction is inside limiting: on the way out it
/// sees the full content first, so that neither the model nor a spill file
/// ever gets an unmasked secret, and a secret is never cut in half before
/// it could be recognised. The change report is kept apart from the content
/// and appended last, after the per-batch budget, so no truncation can hide
/// it.
pub struct ExecutorBuilder {
    workdir: PathBuf,
    tools: Vec<Arc<dyn Tool>>,
    max_concurrency: usize,
    grace: Duration,
    timeout_override: Option<Duration>,
    offered: Option<HashSet<String>>,
    disabled: HashSet<String>,
    hooks: Vec<Arc<dyn PreHook>>,
    stages: Vec<Arc<dyn Stage>>,
    observers: Vec<Arc<dyn ChangeObserver>>,
    #[cfg(feature = "guard")]
    full_validation: bool,
    #[cfg(feature = "limit")]
    limits: Option<toolexec_limiter::Limits>,
    #[cfg(feature = "limit")]
    batch_budget: Option<usize>,
    /// `None`: the default redactor, built in `build()` only when no other
    /// was set (reading the environment and compiling the rules is not
    /// free); `Some(None)`: redaction off.
    #[cfg(feature = "redact")]
    redactor: Option<Option<Arc<toolexec_redact::Redactor>>>,
    #[cfg(feature = "snapshot")]
    snapshot: Option<crate::stages::snapshot::SnapshotConfig>,
}

impl fmt::Debug for ExecutorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecutorBuilder")
            .field("workdir", &self.workdir)
            .field("tools", &self.tools.len())
            .field("max_concurrency", &self.max_concurrency)
            .finish_non_exhaustive()
    }
}

impl ExecutorBuilder {
    fn new(workdir: impl Into<PathBuf>) -> Self {
        ExecutorBuilder {
            workdir: workdir.into(),
            tools: Vec::new(),
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            grace: DEFAULT_GRACE,
            timeout_override: None,
            offered: None,
            disabled: HashSet::new(),
            hooks: Vec::new(),
            stages: Vec::new(),
            observers: Vec::new(),
            #[cfg(feature = "guard")]
            full_validation: false,
            #[cfg(feature = "limit")]
            limits: Some(toolexec_limiter::Limits::default()),
            #[cfg(feature = "limit")]
            batch_budget: None,
            #[cfg(feature = "redact")]
            redactor: None,
            #[cfg(feature = "snapshot")]
            snapshot: Some(crate::stages::snapshot::SnapshotConfig::default()),
        }
    }

    /// Registers a tool.
    pub fn tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Registers shared tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// How many concurrency-safe calls run at once (default 5).
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n;
        self
    }

    /// The grace a timed-out tool gets to hand back partial output
    /// (default 200 ms).
    pub fn grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Uses this deadline for every tool instead of its declared one.
    pub fn timeout_override(mut self, timeout: Option<Duration>) -> Self {
        self.timeout_override = timeout;
        self
    }

    /// The tools offered to the model this turn (default: all).
    pub fn offered<I, S>(mut self, offered: Option<I>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.offered = offered.map(|o| o.into_iter().map(Into::into).collect());
        self
    }

    /// Tools that are registered but disabled.
    pub fn disabled<I, S>(mut self, disabled: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.disabled = disabled.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a pre-hook after the ones already added.
    pub fn pre_hook(mut self, hook: impl PreHook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds a stage of your own, between the hooks and the snapshot (after
    /// the ones already added).
    pub fn stage(mut self, stage: impl Stage) -> Self {
        self.stages.push(Arc::new(stage));
        self
    }

    /// Tells `observer` which files each call changed.
    pub fn observer(mut self, observer: Arc<dyn ChangeObserver>) -> Self {
        self.observers.push(observer);
        self
    }

    /// Validates every input against the tool's whole JSON Schema, not
    /// only its required fields.
    #[cfg(feature = "guard")]
    pub fn full_validation(mut self, on: bool) -> Self {
        self.full_validation = on;
        self
    }

    /// Result size limits (`None` turns limiting off).
    #[cfg(feature = "limit")]
    pub fn limits(mut self, limits: Option<toolexec_limiter::Limits>) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the per-result budget in characters (default 10 000).
    #[cfg(feature = "limit")]
    pub fn budget(mut self, budget: usize) -> Self {
        let limits = self.limits.take().unwrap_or_default();
        self.limits = Some(limits.budget(budget));
        self
    }

    /// Caps the model-facing contents of a whole batch: after the batch
    /// ran, the largest results are cut further (middle truncation) until
    /// the total fits; change reports are not counted and never cut.
    #[cfg(feature = "limit")]
    pub fn batch_budget(mut self, total: Option<usize>) -> Self {
        self.batch_budget = total;
        self
    }

    /// The redactor (default: built-in rules plus the secret-looking
    /// environment values of this process; `None` turns redaction off).
    #[cfg(feature = "redact")]
    pub fn redactor(mut self, redactor: Option<Arc<toolexec_redact::Redactor>>) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Snapshot settings (`None` turns the workspace diff off).
    #[cfg(feature = "snapshot")]
    pub fn snapshot(mut self, config: Option<crate::stages::snapshot::SnapshotConfig>) -> Self {
        self.snapshot = config;
        self
    }

    /// Builds the executor.
    pub fn build(self) -> Result<Executor, BuildError> {
        if self.max_concurrency == 0 {
            return Err(BuildError::ZeroConcurrency);
        }
        let mut tools = HashMap::new();
        let mut order = Vec::new();
        for tool in self.tools {
            let name = tool.name().to_string();
            if tools.contains_key(&name) {
                return Err(BuildError::DuplicateTool { name });
            }
            order.push(name.clone());
            tools.insert(name, tool);
        }
        let turn = Turn {
            offered: self.offered,
            disabled: self.disabled,
        };

        let mut chain = Chain::new();
        #[cfg(feature = "redact")]
        let redactor = self
            .redactor
            .unwrap_or_else(|| Some(Arc::new(crate::stages::redact::default_redactor())));
        #[cfg(feature = "limit")]
        let reader_tool = self.limits.as_ref().and_then(|l| l.reader_tool.clone());
        #[cfg(feature = "limit")]
        let reader: crate::stages::limit::ReaderSlot = Arc::new(RwLock::new(callable_reader(
            reader_tool.as_deref(),
            &tools,
            &turn,
        )));
        #[allow(unused_mut)]
        let mut sink = None;
        #[cfg(feature = "limit")]
        let limiter = self.limits.map(|limits| {
            let mut config = crate::sink::OutputSinkConfig::new(limits.scratch_dir.clone());
            #[cfg(feature = "redact")]
            {
                config = config.redactor(redactor.clone());
            }
            sink = Some(Arc::new(config));
            Arc::new(toolexec_limiter::Limiter::new(limits))
        });
        #[cfg(feature = "limit")]
        if let Some(limiter) = &limiter {
            chain.push(
                crate::stages::limit::LimitStage::new(limiter.clone())
                    .reader_slot(reader.clone())
                    .keep_complete(self.batch_budget.is_some()),
            );
        }
        #[cfg(feature = "redact")]
        if let Some(redactor) = &redactor {
            chain.push(crate::stages::redact::RedactStage::new(redactor.clone()));
        }
        #[cfg(feature = "guard")]
        let guard = {
            let mut guard = toolexec_guard::Guard::new();
            guard.set_full_validation(self.full_validation);
            for name in &order {
                guard
                    .register(name, tools[name].input_schema())
                    .map_err(|source| BuildError::InvalidSchema {
                        name: name.clone(),
                        source,
                    })?;
            }
            guard.set_disabled(turn.disabled.iter().cloned());
            guard.set_offered(turn.offered.clone());
            let guard = Arc::new(RwLock::new(guard));
            chain.push(crate::stages::guard::GuardStage::new(guard.clone()));
            guard
        };
        if !self.hooks.is_empty() {
            chain.push(HooksStage::new(self.hooks));
        }
        for stage in self.stages {
            chain.push_arc(stage);
        }
        #[cfg(feature = "snapshot")]
        if let Some(config) = self.snapshot {
            chain.push(crate::stages::snapshot::SnapshotStage::new(
                self.workdir.clone(),
                config,
                self.observers.clone(),
            ));
        }
        chain.push(
            DeadlineStage::new()
                .grace(self.grace)
                .timeout_override(self.timeout_override),
        );

        let catalog = build_catalog(&tools, &order, &turn);
        let masked_names = tools
            .keys()
            .map(|name| {
                #[cfg(feature = "redact")]
                if let Some(redactor) = &redactor {
                    return (name.clone(), redactor.redact(name).into_owned());
                }
                (name.clone(), name.clone())
            })
            .collect();
        Ok(Executor {
            inner: Arc::new(Inner {
                shared_workdir: Arc::from(self.workdir.as_path()),
                workdir: self.workdir,
                tools,
                order,
                chain,
                max_concurrency: self.max_concurrency,
                turn: RwLock::new(turn),
                catalog: RwLock::new(catalog),
                #[cfg(feature = "guard")]
                guard: Some(guard),
                #[cfg(feature = "limit")]
                batch_budget: self.batch_budget,
                #[cfg(feature = "limit")]
                limiter,
                #[cfg(feature = "limit")]
                reader,
                #[cfg(feature = "limit")]
                reader_tool,
                sink,
                #[cfg(feature = "redact")]
                redactor,
                masked_names,
                order_seq: AtomicU64::new(0),
                admission: tokio::sync::RwLock::new(()),
                slots: tokio::sync::Semaphore::new(self.max_concurrency),
            }),
        })
    }
}

/// What the scheduler asked of a call's tool (read-only, concurrency-safe),
/// and the
/// input it parsed to ask.
#[derive(Debug, Clone, Default)]
struct CallFlags {
    concurrency_safe: bool,
    read_only: bool,
    input: Option<Value>,
}

/// The reader tool when the model can call it: registered, offered and not
/// disabled this turn.
#[cfg(feature = "limit")]
fn callable_reader(
    reader: Option<&str>,
    tools: &HashMap<String, Arc<dyn Tool>>,
    turn: &Turn,
) -> Option<Arc<str>> {
    let name = reader?;
    let callable = tools.contains_key(name)
        && turn.offered.as_ref().is_none_or(|o| o.contains(name))
        && !turn.disabled.contains(name);
    callable.then(|| Arc::from(name))
}
