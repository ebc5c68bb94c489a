//! The [`Tool`] trait and the context a tool runs with.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::sink::{OutputSink, OutputSinkConfig, SpilledOutput};

/// The deadline a tool gets when it declares none: 120 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// What a tool call returns: the text for the model, or an error whose
/// message becomes the content of an `execution` error.
pub type ToolOutput = Result<String, ToolError>;

/// The future a tool returns.
pub type ToolFuture<'a> = BoxFuture<'a, ToolOutput>;

/// A tool the model can call.
///
/// Implementations must not block the async runtime: heavy file-system or
/// CPU work belongs in `tokio::task::spawn_blocking`. A tool is expected to
/// watch [`ToolContext::cancelled`] and, once it fires, return promptly with
/// whatever output it has: the executor waits a short grace period (200 ms
/// by default) and shows that partial output after the timeout message.
///
/// # Example
///
/// ```
/// use toolexec_core::{Tool, ToolContext, ToolFuture};
/// use serde_json::{json, Value};
///
/// struct Echo { schema: Value }
///
/// impl Tool for Echo {
///     fn name(&self) -> &str { "echo" }
///     fn description(&self) -> &str { "Returns its `text` argument." }
///     fn input_schema(&self) -> &Value { &self.schema }
///     fn read_only(&self, _input: &Value) -> bool { true }
///     fn concurrency_safe(&self, _input: &Value) -> bool { true }
///     fn call(&self, input: Value, _ctx: ToolContext) -> ToolFuture<'_> {
///         Box::pin(async move {
///             Ok(input["text"].as_str().unwrap_or_default().to_string())
///         })
///     }
/// }
/// let echo = Echo { schema: json!({"type": "object", "required": ["text"]}) };
/// assert_eq!(echo.name(), "echo");
/// ```
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// One paragraph for the model and for `tool_search`.
    fn description(&self) -> &str;
    /// The JSON Schema of the input object.
    fn input_schema(&self) -> &Value;
    /// A call with this input never changes files (no snapshot is taken
    /// around it, and a successful result gets three times the budget).
    ///
    /// `input` is the call's parsed input; it is [`Value::Null`] when the
    /// tool is described without a call (catalogues, tool listings). A
    /// call whose input is not JSON is never asked: it counts as neither
    /// read-only nor concurrency-safe. Tools whose flags do not depend on
    /// the input ignore it.
    fn read_only(&self, input: &Value) -> bool {
        let _ = input;
        false
    }
    /// A call with this input may run at the same time as other
    /// concurrency-safe calls (see [`Tool::read_only`] for `input`).
    fn concurrency_safe(&self, input: &Value) -> bool {
        let _ = input;
        false
    }
    /// The deadline for a call with this input. The default is
    /// [`DEFAULT_TIMEOUT`]; a tool that takes a timeout argument (exec's
    /// `timeout_ms`) returns it here so that the executor enforces it.
    fn timeout(&self, input: &Value) -> Duration {
        let _ = input;
        DEFAULT_TIMEOUT
    }
    /// Runs the call. `input` is the parsed JSON the guard accepted (types
    /// are the tool's to check).
    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_>;
}

impl fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("read_only", &self.read_only(&Value::Null))
            .field("concurrency_safe", &self.concurrency_safe(&Value::Null))
            .finish()
    }
}

/// An error returned by a tool: what went wrong ([`ToolErrorKind`]), the
/// message the model reads, and the underlying error, if any.
///
/// Its message becomes the content of the call's `execution` error, word
/// for word; the kind and the source are for the embedding program (logs,
/// metrics, retries), the model never sees them.
///
/// Any `std::error::Error + Send + Sync + 'static` converts into it with
/// `?`: the message is the error's `Display` text, the error is kept as the
/// [`source`](ToolError::source), and the kind is read from the first
/// [`std::io::Error`] in its source chain ([`NotFound`](ToolErrorKind::NotFound),
/// [`PermissionDenied`](ToolErrorKind::PermissionDenied), else
/// [`Io`](ToolErrorKind::Io)), [`Other`](ToolErrorKind::Other) when there is none.
///
/// `ToolError` does not implement `std::error::Error` itself (as
/// `anyhow::Error` does not): that blanket conversion would otherwise
/// overlap with `From<T> for T`. Equality compares kind and message.
///
/// # Example
///
/// ```
/// use toolexec_core::{ToolError, ToolErrorKind};
///
/// let err = ToolError::new("disk on fire");
/// assert_eq!(err.kind(), ToolErrorKind::Other);
/// assert_eq!(err.to_string(), "disk on fire");
///
/// let err = ToolError::invalid_input(r#"field "n" must be a number"#);
/// assert!(err.is_invalid_input());
///
/// fn open() -> Result<String, ToolError> {
///     Ok(std::fs::read_to_string("/no/such/file")?)
/// }
/// let err = open().unwrap_err();
/// assert!(err.is_not_found());
/// assert!(err.source().is_some());
/// ```
#[derive(Clone)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

/// What kind of failure a [`ToolError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The call's input cannot be used: a field has the wrong type or an
    /// unusable value (the guard checks only JSON and required fields).
    InvalidInput,
    /// A file, directory or other resource the call names does not exist.
    NotFound,
    /// The call was refused: outside the workspace, blocked by a sandbox or
    /// a policy such as read-before-edit, or denied by the OS.
    PermissionDenied,
    /// An I/O operation failed for another reason.
    Io,
    /// A service the tool forwards to (an MCP server, a remote API) failed
    /// or did not answer.
    Upstream,
    /// Anything else (the kind of [`ToolError::new`]).
    Other,
}

impl ToolErrorKind {
    /// The kind an I/O error of this kind maps to.
    pub fn from_io(kind: std::io::ErrorKind) -> Self {
        match kind {
            std::io::ErrorKind::NotFound => ToolErrorKind::NotFound,
            std::io::ErrorKind::PermissionDenied => ToolErrorKind::PermissionDenied,
            _ => ToolErrorKind::Io,
        }
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ToolErrorKind::InvalidInput => "invalid input",
            ToolErrorKind::NotFound => "not found",
            ToolErrorKind::PermissionDenied => "permission denied",
            ToolErrorKind::Io => "I/O error",
            ToolErrorKind::Upstream => "upstream failure",
            ToolErrorKind::Other => "other",
        })
    }
}

impl ToolError {
    /// An error of kind [`Other`](ToolErrorKind::Other) with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::with_kind(ToolErrorKind::Other, message)
    }

    /// An error of this kind with this message.
    pub fn with_kind(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// An [`InvalidInput`](ToolErrorKind::InvalidInput) error.
    pub fn invalid_input(message: impl Into<String>) -> Self {
        ToolError::with_kind(ToolErrorKind::InvalidInput, message)
    }

    /// A [`NotFound`](ToolErrorKind::NotFound) error.
    pub fn not_found(message: impl Into<String>) -> Self {
        ToolError::with_kind(ToolErrorKind::NotFound, message)
    }

    /// A [`PermissionDenied`](ToolErrorKind::PermissionDenied) error.
    pub fn permission_denied(message: impl Into<String>) -> Self {
        ToolError::with_kind(ToolErrorKind::PermissionDenied, message)
    }

    /// An [`Upstream`](ToolErrorKind::Upstream) error.
    pub fn upstream(message: impl Into<String>) -> Self {
        ToolError::with_kind(ToolErrorKind::Upstream, message)
    }

    /// Keeps `source` as the underlying error (the message is unchanged).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message shown to the model.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The underlying error, when the error was converted from one or
    /// given one with [`with_source`](ToolError::with_source).
    pub fn source(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.source.as_deref()
    }

    /// Whether the kind is [`InvalidInput`](ToolErrorKind::InvalidInput).
    pub fn is_invalid_input(&self) -> bool {
        self.kind == ToolErrorKind::InvalidInput
    }

    /// Whether the kind is [`NotFound`](ToolErrorKind::NotFound).
    pub fn is_not_found(&self) -> bool {
        self.kind == ToolErrorKind::NotFound
    }

    /// Whether the kind is [`PermissionDenied`](ToolErrorKind::PermissionDenied).
    pub fn is_permission_denied(&self) -> bool {
        self.kind == ToolErrorKind::PermissionDenied
    }

    /// Whether the failure is an I/O error (kinds `NotFound`,
    /// `PermissionDenied` and `Io` from an I/O error count).
    pub fn is_io(&self) -> bool {
        self.kind == ToolErrorKind::Io || self.io_error().is_some()
    }

    /// Whether the kind is [`Upstream`](ToolErrorKind::Upstream).
    pub fn is_upstream(&self) -> bool {
        self.kind == ToolErrorKind::Upstream
    }

    /// The first [`std::io::Error`] in the source chain, if any.
    pub fn io_error(&self) -> Option<&std::io::Error> {
        let mut next: Option<&(dyn std::error::Error + 'static)> = self.source().map(|e| e as _);
        while let Some(err) = next {
            if let Some(io) = err.downcast_ref::<std::io::Error>() {
                return Some(io);
            }
            next = err.source();
        }
        None
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("ToolError");
        d.field("kind", &self.kind).field("message", &self.message);
        if let Some(source) = &self.source {
            d.field("source", source);
        }
        d.finish()
    }
}

impl PartialEq for ToolError {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for ToolError {}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(err: E) -> Self {
        let mut error = ToolError::new(err.to_string()).with_source(err);
        if let Some(io) = error.io_error() {
            error.kind = ToolErrorKind::from_io(io.kind());
        }
        error
    }
}

/// Name, description, schema and flags of a registered tool, as
/// `tool_search` and `toolexec tools` show them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolInfo {
    /// Tool name.
    pub name: String,
    /// Tool description.
    pub description: String,
    /// Input JSON Schema.
    pub input_schema: Value,
    /// [`Tool::read_only`] asked without a call (input `null`).
    pub read_only: bool,
    /// [`Tool::concurrency_safe`] asked without a call (input `null`).
    pub concurrency_safe: bool,
    /// Whether the tool is offered to the model in the current turn.
    pub offered: bool,
    /// Whether the tool is disabled.
    pub disabled: bool,
}

impl ToolInfo {
    /// The info of a tool (offered, not disabled).
    pub fn of(tool: &dyn Tool) -> Self {
        ToolInfo {
            name: tool.name().to_string(),
            description: tool.description().to_string(),
            input_schema: tool.input_schema().clone(),
            read_only: tool.read_only(&Value::Null),
            concurrency_safe: tool.concurrency_safe(&Value::Null),
            offered: true,
            disabled: false,
        }
    }
}

/// What one call leaves for the executor besides its returned text
/// (shared by the clones of its context).
#[derive(Debug, Default)]
pub(crate) struct CallState {
    pub(crate) partial: Mutex<Option<String>>,
    pub(crate) spilled: Mutex<Option<SpilledOutput>>,
    sink_taken: AtomicBool,
    /// Lines of the read file before the output's first line, plus one
    /// (0: not set).
    line_offset: AtomicU64,
}

/// What a tool gets besides its input: the workspace root, the call id, a
/// cancellation token, a slot for partial output, the catalogue of
/// registered tools and (from an executor with limits) a redacting output
/// sink for output that does not fit in memory.
#[derive(Debug, Clone)]
pub struct ToolContext {
    workdir: Arc<Path>,
    call_id: Arc<str>,
    cancel: CancellationToken,
    state: Arc<CallState>,
    catalog: Arc<[ToolInfo]>,
    sink: Option<Arc<OutputSinkConfig>>,
    /// The call's place in arrival (and input) order.
    order: u64,
}

impl ToolContext {
    /// A context for a call with this id in `workdir`.
    pub fn new(workdir: impl Into<PathBuf>, call_id: impl Into<String>) -> Self {
        ToolContext {
            workdir: Arc::from(workdir.into().into_boxed_path()),
            call_id: Arc::from(call_id.into()),
            cancel: CancellationToken::new(),
            state: Arc::default(),
            catalog: Arc::from(Vec::new()),
            sink: None,
            order: 0,
        }
    }

    /// A context sharing an already allocated workdir (the executor's, one
    /// allocation fewer per call).
    pub fn with_shared_workdir(workdir: Arc<Path>, call_id: impl Into<String>) -> Self {
        ToolContext {
            workdir,
            call_id: Arc::from(call_id.into()),
            cancel: CancellationToken::new(),
            state: Arc::default(),
            catalog: Arc::from(Vec::new()),
            sink: None,
            order: 0,
        }
    }

    /// Replaces the cancellation token.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Offers a redacting output sink with these settings
    /// ([`output_sink`](Self::output_sink); `None`: none).
    pub fn with_output_sink(self, config: Option<OutputSinkConfig>) -> Self {
        self.with_shared_output_sink(config.map(Arc::new))
    }

    /// [`with_output_sink`](Self::with_output_sink) with already shared
    /// settings (the executor's, one allocation fewer per call).
    pub fn with_shared_output_sink(mut self, config: Option<Arc<OutputSinkConfig>>) -> Self {
        self.sink = config;
        self
    }

    /// Replaces the tool catalogue.
    pub fn with_catalog(mut self, catalog: Arc<[ToolInfo]>) -> Self {
        self.catalog = catalog;
        self
    }

    /// The workspace root every path argument is relative to.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// The id of the call being run.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The token that fires when the deadline passed or the batch was
    /// cancelled. After it fires the tool has a short grace period to
    /// return what it has.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Completes when the call should stop.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// Whether the call should stop.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Records output produced so far. If the tool is dropped at its
    /// deadline without returning, the last recorded text is shown after
    /// the timeout message. A tool that returns during the grace period
    /// hands back its output directly instead.
    pub fn set_partial_output(&self, text: impl Into<String>) {
        if let Ok(mut slot) = self.state.partial.lock() {
            *slot = Some(text.into());
        }
    }

    /// Takes the text recorded with [`set_partial_output`](Self::set_partial_output).
    pub fn take_partial_output(&self) -> Option<String> {
        self.state
            .partial
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
    }

    /// A redacting file sink for this call's complete output, when the
    /// executor offers one (it does when results are limited: the sink
    /// writes into the scratch directory) and none was taken yet for this
    /// call. See [`OutputSink`](crate::OutputSink): write every byte of the output, in order,
    /// then [`OutputSink::finish`]; the executor then uses the file as the
    /// call's output (the text the tool returns is not used).
    ///
    /// Must be called inside a tokio runtime (the sink's writer runs on
    /// the blocking pool).
    pub fn output_sink(&self) -> Option<OutputSink> {
        let config = self.sink.as_ref()?;
        if self.state.sink_taken.swap(true, Ordering::AcqRel) {
            return None;
        }
        Some(OutputSink::start(config, self.state.clone()))
    }

    /// Takes the output a finished sink registered for this call (the
    /// executor does this when the tool returns).
    pub fn take_spilled_output(&self) -> Option<SpilledOutput> {
        self.state
            .spilled
            .lock()
            .ok()
            .and_then(|mut slot| slot.take())
    }

    /// Says that the output's first line is line `first_line` (1-based) of
    /// the file the call read, so that a middle-truncation note of the
    /// reader tool's result counts it (`read` with `offset=500` calls
    /// `set_first_line(500)`).
    pub fn set_first_line(&self, first_line: u64) {
        self.state
            .line_offset
            .store(first_line.max(1), Ordering::Release);
    }

    /// The line set with [`set_first_line`](Self::set_first_line) (1 when
    /// not set).
    pub fn first_line(&self) -> u64 {
        self.state.line_offset.load(Ordering::Acquire).max(1)
    }

    pub(crate) fn with_order(mut self, order: u64) -> Self {
        self.order = order;
        self
    }

    /// The call's place in arrival order (input order within a batch); read
    /// by the snapshot stage only.
    #[cfg(feature = "snapshot")]
    pub(crate) fn order(&self) -> u64 {
        self.order
    }

    pub(crate) fn state(&self) -> &Arc<CallState> {
        &self.state
    }

    /// Every registered tool, offered this turn or not (for `tool_search`).
    pub fn catalog(&self) -> &[ToolInfo] {
        &self.catalog
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An error whose cause is an I/O error, two levels down.
    #[derive(Debug)]
    struct Wrapped(std::io::Error);

    impl fmt::Display for Wrapped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "cannot open notes.md: {}", self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    fn question(err: impl std::error::Error + Send + Sync + 'static) -> Result<(), ToolError> {
        Err(err)?
    }

    #[test]
    fn constructors_set_the_kind_and_keep_the_message() {
        let cases = [
            (ToolError::new("a"), ToolErrorKind::Other),
            (ToolError::invalid_input("b"), ToolErrorKind::InvalidInput),
            (ToolError::not_found("c"), ToolErrorKind::NotFound),
            (
                ToolError::permission_denied("d"),
                ToolErrorKind::PermissionDenied,
            ),
            (ToolError::upstream("e"), ToolErrorKind::Upstream),
            (
                ToolError::with_kind(ToolErrorKind::Io, "f"),
                ToolErrorKind::Io,
            ),
        ];
        for (err, kind) in cases {
            assert_eq!(err.kind(), kind);
            assert_eq!(err.to_string(), err.message());
            assert!(err.source().is_none());
        }
        assert!(ToolError::invalid_input("x").is_invalid_input());
        assert!(ToolError::upstream("x").is_upstream());
        assert!(!ToolError::new("x").is_io());
    }

    #[test]
    fn question_mark_reads_the_kind_from_the_io_error_in_the_chain() {
        let err = question(Wrapped(std::io::Error::from(
            std::io::ErrorKind::PermissionDenied,
        )))
        .unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::PermissionDenied);
        assert!(err.is_permission_denied() && err.is_io());
        assert!(err.message().starts_with("cannot open notes.md: "));
        assert_eq!(
            err.io_error().map(std::io::Error::kind),
            Some(std::io::ErrorKind::PermissionDenied)
        );
        assert!(err.source().unwrap().downcast_ref::<Wrapped>().is_some());

        let err = question(std::fmt::Error).unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::Other);
        assert!(err.io_error().is_none());
    }

    #[test]
    fn with_source_keeps_kind_and_message() {
        let err = ToolError::upstream("the MCP server did not answer")
            .with_source(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert_eq!(err.kind(), ToolErrorKind::Upstream);
        assert_eq!(err.to_string(), "the MCP server did not answer");
        assert!(err.is_io());
        // Equality ignores the source.
        assert_eq!(err, ToolError::upstream("the MCP server did not answer"));
        assert!(format!("{err:?}").contains("BrokenPipe"));
    }

    const IO_KINDS: [std::io::ErrorKind; 8] = [
        std::io::ErrorKind::NotFound,
        std::io::ErrorKind::PermissionDenied,
        std::io::ErrorKind::AlreadyExists,
        std::io::ErrorKind::BrokenPipe,
        std::io::ErrorKind::InvalidData,
        std::io::ErrorKind::TimedOut,
        std::io::ErrorKind::UnexpectedEof,
        std::io::ErrorKind::Other,
    ];

    proptest! {
        /// `?` on any I/O error keeps its text as the message, the error
        /// as the source, and maps its kind.
        #[test]
        fn io_errors_convert_with_their_text_and_kind(
            which in 0..IO_KINDS.len(),
            text in "\\PC{0,40}",
        ) {
            let io_kind = IO_KINDS[which];
            let io = std::io::Error::new(io_kind, text.clone());
            let err = question(io).unwrap_err();
            prop_assert_eq!(err.message(), text.as_str());
            prop_assert_eq!(err.kind(), ToolErrorKind::from_io(io_kind));
            prop_assert_eq!(err.io_error().map(std::io::Error::kind), Some(io_kind));
            prop_assert!(err.is_io());
        }
    }
}
