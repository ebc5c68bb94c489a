//! Tool fields that rmcp does not model, carried from the proxy's child to
//! its client unchanged.
//!
//! rmcp 3.11's [`Tool`](rmcp::model::Tool) has no `execution` field (MCP
//! 2025-11-25: `execution.taskSupport`) and keeps no unknown fields, so a
//! child's `tools/list` loses them when rmcp parses it. The proxy therefore
//! carries them around rmcp's types:
//!
//! 1. **In**: the child's stdout is read through [`Observed`], which looks
//!    at each line before rmcp decodes it. A JSON-RPC response whose
//!    `result.tools` is a list of tools (the line names `"inputSchema"`;
//!    lines of up to [`MAX_OBSERVED_LINE`] bytes) is parsed once more, and
//!    for each tool every top-level field rmcp does not model
//!    ([`MODELLED`]) is recorded by tool name ([`RawFields`]).
//! 2. **Through**: the re-exposed definition holds those fields under
//!    `_meta["toolexec/fields"]` ([`META_FIELDS`]), rmcp's extension
//!    mechanism.
//! 3. **Out**: both of our transports (stdio: [`Lifting`] around rmcp's
//!    stdio transport; Streamable HTTP: [`LiftingSessions`] around rmcp's
//!    local session manager) rewrite each `tools/list` response before it
//!    is serialized: the fields under `_meta["toolexec/fields"]` go back to
//!    the top level of their tool (a field the definition already has
//!    wins) and the key is removed. So a client sees the child's
//!    `execution` (and any field a later protocol version adds) exactly as
//!    the child sent it.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::model::{
    ClientJsonRpcMessage, CustomResult, JsonRpcMessage, JsonRpcResponse, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, ReadBuf};

/// `_meta` key of a proxied tool: the child's fields that rmcp does not
/// model, lifted back to the top level on the wire.
pub const META_FIELDS: &str = "toolexec/fields";

/// The top-level tool fields rmcp's `Tool` models; every other field of a
/// child's tool is carried through.
pub const MODELLED: [&str; 8] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
];

/// Lines longer than this (16 MiB) are not looked at: no tool list is that
/// large, and the line buffer stays bounded.
pub const MAX_OBSERVED_LINE: usize = 16 * 1024 * 1024;

/// The fields rmcp does not model of each tool the child listed, by name.
#[derive(Debug, Default)]
pub struct RawFields {
    by_tool: Mutex<HashMap<String, Map<String, Value>>>,
}

impl RawFields {
    /// The fields of tool `name` that rmcp does not model (none: `None`).
    pub fn of(&self, name: &str) -> Option<Map<String, Value>> {
        self.lock().get(name).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Map<String, Value>>> {
        self.by_tool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the extra fields of the tools in one line of the child's
    /// output, when it is a tool list (a line that is not is ignored).
    pub fn observe_line(&self, line: &[u8]) {
        static FINDER: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
            std::sync::OnceLock::new();
        let finder = FINDER.get_or_init(|| memchr::memmem::Finder::new(b"\"inputSchema\""));
        if finder.find(line).is_none() {
            return;
        }
        let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        if !message.contains_key("id") {
            return;
        }
        let Some(Value::Array(tools)) = message.get("result").and_then(|r| r.get("tools")) else {
            return;
        };
        let mut by_tool = self.lock();
        for tool in tools {
            let Some(tool) = tool.as_object() else {
                continue;
            };
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let extra: Map<String, Value> = tool
                .iter()
                .filter(|(key, _)| !MODELLED.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            if extra.is_empty() {
                by_tool.remove(name);
            } else {
                by_tool.insert(name.to_string(), extra);
            }
        }
    }
}

/// The child's stdout, looked at line by line (see the module docs) on
/// its way to rmcp, unchanged.
#[derive(Debug)]
pub struct Observed<R> {
    inner: R,
    fields: Arc<RawFields>,
    line: Vec<u8>,
    /// The current line outgrew [`MAX_OBSERVED_LINE`]: skip to its end.
    skipping: bool,
}

impl<R> Observed<R> {
    /// Reads `inner`, recording tool fields into `fields`.
    pub fn new(inner: R, fields: Arc<RawFields>) -> Self {
        Observed {
            inner,
            fields,
            line: Vec::new(),
            skipping: false,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, rest, ends) = match memchr::memchr(b'\n', bytes) {
                Some(at) => (&bytes[..at], &bytes[at + 1..], true),
                None => (bytes, &[][..], false),
            };
            if !self.skipping {
                if self.line.len() + part.len() > MAX_OBSERVED_LINE {
                    self.skipping = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            if ends {
                if !self.skipping {
                    self.fields.observe_line(&self.line);
                }
                self.skipping = false;
                self.line.clear();
                if self.line.capacity() > 64 * 1024 {
                    self.line.shrink_to(64 * 1024);
                }
            }
            bytes = rest;
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Observed<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            this.feed(&buf.filled()[before..]);
        }
        polled
    }
}

/// Moves the fields under `_meta["toolexec/fields"]` of each tool of a
/// `tools/list` response back to the tool's top level; other messages pass
/// unchanged.
pub fn lift(message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    let JsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc,
        id,
        result: ServerResult::ListToolsResult(list),
    }) = message
    else {
        return message;
    };
    let carries = list.tools.iter().any(|tool| {
        tool.meta
            .as_ref()
            .is_some_and(|meta| meta.0.contains_key(META_FIELDS))
    });
    let result = if !carries {
        ServerResult::ListToolsResult(list)
    } else {
        match serde_json::to_value(&list) {
            Ok(mut value) => {
                if let Some(Value::Array(tools)) = value.get_mut("tools") {
                    for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
                        lift_tool(tool);
                    }
                }
                ServerResult::CustomResult(CustomResult(value))
            }
            Err(_) => ServerResult::ListToolsResult(list),
        }
    };
    JsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc,
        id,
        result,
    })
}

/// Lifts one tool's carried fields (see [`lift`]).
fn lift_tool(tool: &mut Map<String, Value>) {
    let Some(Value::Object(meta)) = tool.get_mut("_meta") else {
        return;
    };
    let Some(carried) = meta.remove(META_FIELDS) else {
        return;
    };
    if meta.is_empty() {
        tool.remove("_meta");
    }
    let Value::Object(carried) = carried else {
        return;
    };
    for (key, value) in carried {
        if !MODELLED.contains(&key.as_str()) {
            tool.entry(key).or_insert(value);
        }
    }
}

/// A server transport whose `tools/list` responses are [`lift`]ed.
#[derive(Debug)]
pub struct Lifting<T>(pub T);

impl<T: Transport<RoleServer>> Transport<RoleServer> for Lifting<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.0.send(lift(item))
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.0.receive()
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.0.close()
    }
}

/// rmcp's local session manager whose session transports are
/// [`Lifting`].
#[derive(Debug, Default)]
pub struct LiftingSessions(pub LocalSessionManager);

impl SessionManager for LiftingSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = Lifting<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let (id, transport) = self.0.create_session().await?;
        Ok((id, Lifting(transport)))
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        self.0.initialize_session(id, message)
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl std::future::Future<Output = Result<bool, Self::Error>> + Send {
        self.0.has_session(id)
    }

    fn close_session(
        &self,
        id: &SessionId,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.0.close_session(id)
    }

    fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl std::future::Future<
        Output = Result<
            impl futures_util::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
            Self::Error,
        >,
    > + Send {
        self.0.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.0.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl std::future::Future<
        Output = Result<
            impl futures_util::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
            Self::Error,
        >,
    > + Send {
        self.0.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl std::future::Future<
        Output = Result<
            impl futures_util::Stream<Item = ServerSseMessage> + Send + Sync + 'static,
            Self::Error,
        >,
    > + Send {
        self.0.resume(id, last_event_id)
    }

    fn event_store(
        &self,
    ) -> Option<Arc<dyn rmcp::transport::streamable_http_server::session::EventStore>> {
        self.0.event_store()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ListToolsResult, RequestId, Tool};
    use serde_json::json;

    fn list_line(tools: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": tools}})).unwrap()
    }

    #[test]
    fn unmodelled_fields_are_recorded_by_tool() {
        let fields = RawFields::default();
        fields.observe_line(&list_line(json!([
            {"name": "a", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
            {"name": "b", "inputSchema": {"type": "object"}, "title": "B"},
        ])));
        assert_eq!(
            fields.of("a"),
            Some(
                json!({"execution": {"taskSupport": "required"}})
                    .as_object()
                    .unwrap()
                    .clone()
            )
        );
        assert_eq!(fields.of("b"), None);
        // A later list without the field forgets it.
        fields.observe_line(&list_line(
            json!([{"name": "a", "inputSchema": {"type": "object"}}]),
        ));
        assert_eq!(fields.of("a"), None);
    }

    #[test]
    fn lines_split_across_reads_are_observed_whole() {
        let fields = Arc::new(RawFields::default());
        let mut observed = Observed::new(tokio::io::empty(), fields.clone());
        let mut bytes = list_line(json!([
            {"name": "t", "inputSchema": {}, "execution": {"taskSupport": "optional"}}
        ]));
        bytes.push(b'\n');
        let mut stream = b"{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n".to_vec();
        stream.extend_from_slice(&bytes);
        for chunk in stream.chunks(5) {
            observed.feed(chunk);
        }
        assert_eq!(
            fields.of("t").unwrap()["execution"],
            json!({"taskSupport": "optional"})
        );
    }

    #[test]
    fn lift_moves_carried_fields_to_the_top_level() {
        let mut tool = Tool::new("a", "A", Arc::new(Map::new()));
        let mut meta = rmcp::model::MetaObject::default();
        meta.0.insert(
            META_FIELDS.to_string(),
            json!({"execution": {"taskSupport": "required"}, "name": "evil"}),
        );
        meta.0.insert("toolexec/readOnly".to_string(), json!(false));
        tool.meta = Some(meta);
        let plain = Tool::new("b", "B", Arc::new(Map::new()));
        let message = ServerJsonRpcMessage::response(
            ServerResult::ListToolsResult(ListToolsResult::with_all_items(vec![tool, plain])),
            RequestId::Number(3),
        );
        let wire = serde_json::to_value(lift(message)).unwrap();
        let tools = &wire["result"]["tools"];
        assert_eq!(tools[0]["execution"], json!({"taskSupport": "required"}));
        assert_eq!(tools[0]["name"], json!("a"));
        assert_eq!(tools[0]["_meta"], json!({"toolexec/readOnly": false}));
        assert!(tools[1].get("execution").is_none());
        assert_eq!(wire["id"], json!(3));
    }

    proptest::proptest! {
        /// Whatever the chunking of the child's output, the observer
        /// records the same fields as observing each line whole, and a
        /// tool list's extra fields survive the way out unchanged.
        #[test]
        fn chunking_does_not_change_what_is_recorded(
            support in proptest::sample::select(vec!["required", "optional", "forbidden"]),
            extra in "[a-z]{1,10}",
            cuts in proptest::collection::vec(1usize..64, 1..20),
        ) {
            proptest::prop_assume!(!MODELLED.contains(&extra.as_str()));
            let mut line = list_line(json!([{
                "name": "tool", "inputSchema": {"type": "object"},
                "execution": {"taskSupport": support}, extra.clone(): [1, "two"],
            }]));
            line.push(b'\n');
            let fields = Arc::new(RawFields::default());
            let mut observed = Observed::new(tokio::io::empty(), fields.clone());
            let mut rest = &line[..];
            for cut in cuts.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let at = (*cut).min(rest.len());
                observed.feed(&rest[..at]);
                rest = &rest[at..];
            }
            let recorded = fields.of("tool").unwrap();
            proptest::prop_assert_eq!(&recorded["execution"], &json!({"taskSupport": support}));
            proptest::prop_assert_eq!(&recorded[&extra], &json!([1, "two"]));
            let mut tool = Tool::new("tool", "", Arc::new(Map::new()));
            let mut meta = rmcp::model::MetaObject::default();
            meta.0.insert(META_FIELDS.to_string(), Value::Object(recorded.clone()));
            tool.meta = Some(meta);
            let message = ServerJsonRpcMessage::response(
                ServerResult::ListToolsResult(ListToolsResult::with_all_items(vec![tool])),
                RequestId::Number(1),
            );
            let wire = serde_json::to_value(lift(message)).unwrap();
            let out = &wire["result"]["tools"][0];
            proptest::prop_assert_eq!(&out["execution"], &json!({"taskSupport": support}));
            proptest::prop_assert_eq!(&out[&extra], &json!([1, "two"]));
            proptest::prop_assert!(out.get("_meta").is_none());
        }
    }
}
