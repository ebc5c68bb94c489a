//! Streamable HTTP: rmcp's streamable-HTTP server (the `/mcp` endpoint)
//! behind hyper's HTTP/1.1 server, with a bearer token and an `Origin`
//! check in front of it.
//!
//! Decisions:
//! - **Endpoint**: `/mcp` only; any other path is 404.
//! - **Origin** (DNS-rebinding protection, checked first, token or not): a
//!   request without `Origin` (not from a browser) passes. A present
//!   `Origin` must be `http://HOST:PORT` or `https://HOST:PORT` with the
//!   bound port and, for a loopback bind, a loopback host (`localhost`,
//!   `127.0.0.1`, `[::1]`); for a bind to one address, that address; for a
//!   bind to every address (`0.0.0.0`, `[::]`, which needs a token), the
//!   request's own `Host`. Anything else (`null` included) is 403.
//!   rmcp's own `Host` check is kept (loopback names for a loopback bind,
//!   the address for one address, off for every address).
//! - **Token**: with a token, every request needs `Authorization: Bearer
//!   TOKEN` (compared in constant time); anything else is 401 with
//!   `WWW-Authenticate: Bearer`. A bind to a non-loopback address without
//!   a token is refused ([`Error::TokenRequired`]).
//! - **Bounds**: request bodies are capped (default 4 MiB, 413 beyond,
//!   enforced while streaming); a session idle for 5 minutes, or not
//!   initialized within 60 s, is closed (rmcp's session worker), so
//!   abandoned sessions do not pile up.
//! - **Sessions**: each MCP session gets the executor the server's factory
//!   makes (see [`crate::Server::per_session`]) and its own call lifecycle.
//! - **Shutdown**: when the shutdown token fires, every session's calls in
//!   flight are cancelled, the sessions end and the listener closes.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{header, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServerHandler;
use tokio_util::sync::CancellationToken;

use crate::{Error, Outcome};

/// The environment variable holding the bearer token when no token file is
/// given.
pub const TOKEN_ENV: &str = "TOOLEXEC_MCP_TOKEN";

/// Called with the bound address once the server listens.
pub type OnListening = Arc<dyn Fn(SocketAddr) + Send + Sync>;

/// Settings of the Streamable HTTP transport.
#[derive(Clone)]
pub struct HttpOptions {
    /// Where to listen (port 0: any free port, see
    /// [`HttpOptions::on_listening`]).
    pub addr: SocketAddr,
    /// The bearer token every request must carry (none: no check, loopback
    /// binds only).
    pub token: Option<String>,
    /// Largest request body in bytes (default 4 MiB).
    pub max_body_bytes: usize,
    /// A session idle this long is closed (default 5 minutes).
    pub session_idle: Duration,
    on_listening: Option<OnListening>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("addr", &self.addr)
            .field("token", &self.token.as_ref().map(|_| "…"))
            .field("max_body_bytes", &self.max_body_bytes)
            .field("session_idle", &self.session_idle)
            .finish_non_exhaustive()
    }
}

impl HttpOptions {
    /// Listen on `addr`, no token, default bounds.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            token: None,
            max_body_bytes: 4 * 1024 * 1024,
            session_idle: Duration::from_secs(300),
            on_listening: None,
        }
    }

    /// Requires `Authorization: Bearer TOKEN` on every request.
    pub fn token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }

    /// Calls `f` with the bound address once the server listens.
    pub fn on_listening(mut self, f: impl Fn(SocketAddr) + Send + Sync + 'static) -> Self {
        self.on_listening = Some(Arc::new(f));
        self
    }

    /// Refuses a non-loopback address without a token.
    pub fn check(&self) -> Result<(), Error> {
        if self.token.is_none() && !self.addr.ip().is_loopback() {
            return Err(Error::TokenRequired { addr: self.addr });
        }
        if self.token.as_deref() == Some("") {
            return Err(Error::Token("the token is empty".to_string()));
        }
        Ok(())
    }
}

/// The bearer token: the first line of `file` (surrounding white space
/// removed) when given, else the environment variable [`TOKEN_ENV`] when
/// set and not empty, else none.
pub fn read_token(file: Option<&std::path::Path>) -> Result<Option<String>, Error> {
    if let Some(path) = file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Token(format!("--token-file {}: {e}", path.display())))?;
        let token = text.lines().next().unwrap_or("").trim().to_string();
        if token.is_empty() {
            return Err(Error::Token(format!(
                "--token-file {}: the file holds no token",
                path.display()
            )));
        }
        return Ok(Some(token));
    }
    Ok(std::env::var(TOKEN_ENV)
        .ok()
        .filter(|t| !t.trim().is_empty()))
}

type Body = BoxBody<Bytes, Infallible>;

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// What the gate in front of rmcp checks.
#[derive(Debug)]
struct Gate {
    token: Option<Vec<u8>>,
    bound: SocketAddr,
}

fn is_loopback_name(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl Gate {
    fn authorized(&self, request: &Request<hyper::body::Incoming>) -> bool {
        use subtle::ConstantTimeEq;
        let Some(token) = &self.token else {
            return true;
        };
        let Some(value) = request.headers().get(header::AUTHORIZATION) else {
            return false;
        };
        let value = value.as_bytes();
        let Some(given) = value
            .get(..7)
            .filter(|p| p.eq_ignore_ascii_case(b"bearer "))
            .map(|_| &value[7..])
        else {
            return false;
        };
        bool::from(given.ct_eq(token.as_slice()))
    }

    /// Whether the request's `Origin` (if any) is ours (module docs).
    fn origin_allowed(&self, request: &Request<hyper::body::Incoming>) -> bool {
        let Some(origin) = request.headers().get(header::ORIGIN) else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let Some(authority) = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
        else {
            return false;
        };
        if authority.contains('/') {
            return false;
        }
        let Some((host, port)) = authority.rsplit_once(':') else {
            return false;
        };
        if port.parse::<u16>().ok() != Some(self.bound.port()) {
            return false;
        }
        let ip = self.bound.ip();
        if ip.is_unspecified() {
            let own_host = request
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok());
            return own_host.is_some_and(|h| h.eq_ignore_ascii_case(authority));
        }
        if ip.is_loopback() {
            return is_loopback_name(host);
        }
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|h| h == ip)
    }
}

/// Serves the handlers `factory` makes (one a session) on `options.addr`
/// until `shutdown` fires.
pub(crate) async fn serve_http<H, F>(
    factory: F,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> Result<Outcome, Error>
where
    H: ServerHandler + Send + 'static,
    F: Fn() -> Result<H, std::io::Error> + Send + Sync + 'static,
{
    options.check()?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|source| Error::Bind {
            addr: options.addr,
            source,
        })?;
    let bound = listener.local_addr().map_err(|source| Error::Bind {
        addr: options.addr,
        source,
    })?;
    let ip = bound.ip();
    let mut config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown.child_token())
        .with_max_request_body_bytes(options.max_body_bytes)
        .disable_allowed_origins();
    if ip.is_unspecified() {
        config = config.disable_allowed_hosts();
    } else if !ip.is_loopback() {
        config = config.with_allowed_hosts([ip.to_string()]);
    }
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(options.session_idle);
    // The proxy's tool lists carry fields rmcp does not model
    // (crate::passthrough); for `mcp` the lift changes nothing.
    let manager = crate::passthrough::LiftingSessions(manager);
    let service = StreamableHttpService::new(factory, Arc::new(manager), config);
    let gate = Arc::new(Gate {
        token: options.token.as_ref().map(|t| t.as_bytes().to_vec()),
        bound,
    });
    if let Some(f) = &options.on_listening {
        f(bound);
    }
    let connections = tokio_util::task::TaskTracker::new();
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: wait a moment.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        // Replies are small SSE frames: without TCP_NODELAY each one waits
        // for the client's delayed ACK (~40 ms a request).
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let gate = gate.clone();
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let mut service = service.clone();
                let gate = gate.clone();
                async move {
                    if request.uri().path() != "/mcp" {
                        return Ok::<_, Infallible>(plain(
                            StatusCode::NOT_FOUND,
                            "Not Found: the MCP endpoint is /mcp\n",
                        ));
                    }
                    if !gate.origin_allowed(&request) {
                        return Ok(plain(
                            StatusCode::FORBIDDEN,
                            "Forbidden: the Origin is not this server's\n",
                        ));
                    }
                    if !gate.authorized(&request) {
                        let mut response = plain(
                            StatusCode::UNAUTHORIZED,
                            "Unauthorized: a bearer token is required\n",
                        );
                        response.headers_mut().insert(
                            header::WWW_AUTHENTICATE,
                            header::HeaderValue::from_static("Bearer"),
                        );
                        return Ok(response);
                    }
                    let response = tower_service::Service::call(&mut service, request).await?;
                    Ok(response)
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .serve_connection(io, handler);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                () = shutdown.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(2), conn).await;
                }
            }
        });
    }
    connections.close();
    let _ = tokio::time::timeout(Duration::from_secs(3), connections.wait()).await;
    Ok(Outcome::Shutdown)
}
