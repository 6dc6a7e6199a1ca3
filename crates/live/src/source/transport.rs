//! The HTTP client of an API server: kube's own layers (base URI, auth,
//! extra headers) over hyper-util and hyper-rustls, as kube's
//! `Client::try_from` stacks them (an `http`, `https` or `socks5` proxy,
//! the connect/read/write timeouts, `tls-server-name`, a client
//! certificate), but with the TLS configuration of [`crate::tls`]: servers
//! verified as Go's crypto/x509 verifies them, so the tool trusts what
//! kubectl trusts.
//!
//! What can be shared is shared by every cluster of the process: the
//! connections run on one network runtime, and the TLS configuration and
//! the connection pool are kept for each server, roots, client identity,
//! `tls-server-name`, proxy and timeouts while a client uses them. Many
//! contexts on one server (a hub's cluster-proxy route reaches every
//! managed cluster at one host) build one TLS configuration and reuse
//! their connections; credentials and impersonation are headers of each
//! request, never part of a connection.
//!
//! [`failure`] tells what a failed exchange on such a client says of its
//! request, from the types of the errors this stack raises.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine;
use hyper::body::Incoming;
use hyper_rustls::{FixedServerNameResolver, HttpsConnector};
use hyper_timeout::TimeoutConnector;
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use hyper_util::client::legacy::connect::{Connection, HttpConnector};
use hyper_util::rt::TokioExecutor;
use kube::client::{Body, ConfigExt};
use kube::{Client, Config};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::ClientConfig;
use tower::{BoxError, ServiceBuilder};

use crate::tls::{Identity, Trust};

/// A client for `config`'s server, verifying it against `trust` (`None`:
/// `insecure-skip-tls-verify`). Its connections are those of every client
/// built for the same server, roots, identity, server name, proxy and
/// timeouts while one of them lives.
pub fn build(config: &Config, trust: Option<&Trust>) -> Result<Client, String> {
    let identity = identity_pem(config)?;
    let key = PoolKey {
        origin: format!(
            "{}://{}",
            config.cluster_url.scheme_str().unwrap_or("https"),
            config.cluster_url.authority().map_or("", |a| a.as_str())
        ),
        proxy: config.proxy_url.as_ref().map(ToString::to_string),
        server_name: config.tls_server_name.clone(),
        trust: trust.cloned(),
        identity,
        timeouts: (
            config.connect_timeout,
            config.read_timeout,
            config.write_timeout,
            config.reset_reader_on_write,
        ),
    };
    let pooled = pooled(key, config)?;
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer().map_err(|e| e.to_string())?)
        .layer(config.extra_headers_layer().map_err(|e| e.to_string())?)
        .map_err(BoxError::from)
        .service(Detached(pooled));
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// A client certificate and its key, PEM.
type PemIdentity = (Vec<u8>, Vec<u8>);

/// What makes two clients' connections interchangeable.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    /// `scheme://host:port` of the server.
    origin: String,
    proxy: Option<String>,
    server_name: Option<String>,
    /// `None`: the server is not verified.
    trust: Option<Trust>,
    identity: Option<PemIdentity>,
    timeouts: (Option<Duration>, Option<Duration>, Option<Duration>, bool),
}

/// Sends one request on a pool's connections.
type Send = Arc<
    dyn Fn(http::Request<Body>) -> Pin<Box<dyn Future<Output = Reply> + std::marker::Send>>
        + std::marker::Send
        + Sync,
>;
type Reply = Result<http::Response<Incoming>, BoxError>;

/// A connection pool and the TLS configuration it connects with.
struct Pooled {
    send: Send,
}

/// The pools in use, by key; a pool goes with its last client.
fn pools() -> &'static Mutex<HashMap<PoolKey, Weak<Pooled>>> {
    static POOLS: OnceLock<Mutex<HashMap<PoolKey, Weak<Pooled>>>> = OnceLock::new();
    POOLS.get_or_init(Mutex::default)
}

/// The pool of `key`, built from `config` when none is in use.
fn pooled(key: PoolKey, config: &Config) -> Result<Arc<Pooled>, String> {
    let mut pools = pools().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(live) = pools.get(&key).and_then(Weak::upgrade) {
        return Ok(live);
    }
    let identity = match &key.identity {
        Some((cert, key)) => Some(parse_identity(cert, key)?),
        None => None,
    };
    let tls = crate::tls::client_config(key.trust.as_ref(), identity).map_err(|e| e.to_string())?;
    let pooled = Arc::new(Pooled {
        send: connector(config, tls)?,
    });
    pools.retain(|_, p| p.strong_count() > 0);
    pools.insert(key, Arc::downgrade(&pooled));
    Ok(pooled)
}

/// The connector through the proxy `config` names, if any.
fn connector(config: &Config, tls: ClientConfig) -> Result<Send, String> {
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let Some(proxy) = config.proxy_url.clone() else {
        return finish(config, tls, http);
    };
    match proxy.scheme_str() {
        Some("socks5") => finish(config, tls, SocksV5::new(proxy, http)),
        Some("http") => {
            let tunnel = with_proxy_auth(&proxy, Tunnel::new(proxy.clone(), http));
            finish(config, tls, tunnel)
        }
        Some("https") => {
            // Go dials an https proxy with the same roots, verified for the
            // proxy's own name.
            let to_proxy = hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(tls.clone())
                .https_or_http()
                .enable_http1()
                .wrap_connector(http);
            let tunnel = with_proxy_auth(&proxy, Tunnel::new(proxy.clone(), to_proxy));
            finish(config, tls, tunnel)
        }
        _ => Err(format!(
            "proxy URL \"{proxy}\": only http, https and socks5 proxies are supported"
        )),
    }
}

/// The runtime every connection of the process runs on: a pooled
/// connection outlives the request (and the cluster) that opened it, so it
/// cannot live on the runtime of one command.
fn network() -> Result<&'static tokio::runtime::Handle, String> {
    static NETWORK: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    NETWORK
        .get_or_init(|| {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(threads)
                .thread_name("network")
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the network runtime: {e}"))
        })
        .as_ref()
        .map(tokio::runtime::Runtime::handle)
        .map_err(Clone::clone)
}

/// The bottom of a client's stack: each request sent on the shared
/// network runtime, through the pool.
#[derive(Clone)]
struct Detached(Arc<Pooled>);

impl tower::Service<http::Request<Body>> for Detached {
    type Response = http::Response<Incoming>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Reply> + std::marker::Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let sent = (self.0.send)(request);
        let pooled = Arc::clone(&self.0);
        Box::pin(async move {
            let task = AbortOnDrop(network()?.spawn(sent));
            let reply = task.await;
            drop(pooled);
            reply
        })
    }
}

/// A request in flight on the network runtime, cancelled when its caller
/// gives up on it (a request timeout, a failed read cancelling the rest).
struct AbortOnDrop(tokio::task::JoinHandle<Reply>);

impl Future for AbortOnDrop {
    type Output = Reply;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Reply> {
        Pin::new(&mut self.0)
            .poll(cx)
            .map(|joined| joined.map_err(BoxError::from).and_then(|r| r))
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `Proxy-Authorization: Basic` from the proxy URL's user information,
/// percent-decoded first.
fn with_proxy_auth<C>(proxy: &http::Uri, tunnel: Tunnel<C>) -> Tunnel<C> {
    let Some((userinfo, _)) = proxy.authority().and_then(|a| a.as_str().split_once('@')) else {
        return tunnel;
    };
    let decoded: Vec<u8> = percent_encoding::percent_decode_str(userinfo).collect();
    let value = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(decoded)
    );
    match http::HeaderValue::from_str(&value) {
        Ok(header) => tunnel.with_auth(header),
        Err(_) => tunnel,
    }
}

/// The TLS connector over `connector`, the timeouts and the HTTP client.
fn finish<C>(config: &Config, tls: ClientConfig, connector: C) -> Result<Send, String>
where
    C: tower::Service<http::Uri> + Clone + std::marker::Send + Sync + 'static,
    C::Response:
        Connection + hyper::rt::Read + hyper::rt::Write + std::marker::Send + Unpin + 'static,
    C::Future: std::marker::Send + 'static,
    C::Error: Into<BoxError>,
{
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    let builder = match &config.tls_server_name {
        Some(name) => {
            let name = ServerName::try_from(name.clone())
                .map_err(|e| format!("invalid tls-server-name \"{name}\": {e}"))?;
            builder.with_server_name_resolver(FixedServerNameResolver::new(name))
        }
        None => builder,
    };
    let https: HttpsConnector<C> = builder.enable_http1().wrap_connector(connector);
    let mut timed = TimeoutConnector::new(https);
    timed.set_connect_timeout(config.connect_timeout);
    timed.set_read_timeout(config.read_timeout);
    timed.set_write_timeout(config.write_timeout);
    timed.set_reset_reader_on_write(config.reset_reader_on_write);
    let client: hyper_util::client::legacy::Client<_, Body> =
        hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(timed);
    Ok(Arc::new(move |request| {
        let client = client.clone();
        Box::pin(async move { client.request(request).await.map_err(BoxError::from) })
    }))
}

/// What a failed exchange with the API server says of its request, told
/// from the types of the error's causes, never from their text ("connect"
/// is in "disconnected"). A TLS error is the caller's to find first
/// ([`crate::tls::find_error`]): it says why the server was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// A timeout of the connector ran out (hyper-timeout's connect, read or
    /// write timeout: `--request-timeout` when given, else kube's default
    /// connect and write timeouts); `connecting` when no connection was
    /// made yet.
    TimedOut { connecting: bool },
    /// No connection was made (TCP, DNS, the TLS handshake, a proxy): the
    /// request was never sent.
    NotReached,
    /// The connection was reset or closed once the request was handed to
    /// it, before the whole answer came: the server may have carried it out.
    Dropped,
    /// Anything else: a malformed answer, a failure of a layer of the client
    /// (an error known only by its text is one).
    Other,
}

/// What `error`, raised by a client [`build`] made (through
/// [`kube::Client::send`] or the read of an answer's body), says of the
/// request.
///
/// The types it may hold, from the top: kube's `Error::Service` (a boxed
/// error of this stack) or `Error::HyperError`; hyper-util's legacy client
/// error, whose `is_connect` marks every failure of the connector (TCP,
/// DNS, TLS handshake, proxy tunnel or SOCKS handshake) and which wraps
/// hyper's error for the rest; hyper's error of a connection or a body,
/// with the `io::Error` of the socket beneath; hyper-timeout's timeouts,
/// an `io::Error` of kind `TimedOut` (holding tokio's `Elapsed` for the
/// connect timeout). Tower's own timeout layer is not in the stack.
///
/// hyper-util's SOCKS errors keep their cause to themselves (no `source`,
/// a type it does not export): behind a SOCKS proxy a failed connection
/// is known only as a connector failure, which is all that is needed.
pub fn failure(error: &(dyn StdError + 'static)) -> Failure {
    let mut signs = Signs::default();
    let mut next = Some(error);
    while let Some(cause) = next {
        signs.note(cause);
        next = cause_of(cause);
    }
    if signs.timed_out {
        Failure::TimedOut {
            connecting: signs.connecting,
        }
    } else if signs.connecting {
        Failure::NotReached
    } else if signs.dropped {
        Failure::Dropped
    } else {
        Failure::Other
    }
}

/// What the causes of an error showed, one cause at a time.
#[derive(Debug, Default)]
struct Signs {
    timed_out: bool,
    /// The failure came before a connection was made.
    connecting: bool,
    /// The connection went away under the request.
    dropped: bool,
}

impl Signs {
    fn note(&mut self, cause: &(dyn StdError + 'static)) {
        if let Some(e) = cause.downcast_ref::<io::Error>() {
            match e.kind() {
                io::ErrorKind::TimedOut => self.timed_out = true,
                io::ErrorKind::ConnectionRefused
                | io::ErrorKind::HostUnreachable
                | io::ErrorKind::NetworkUnreachable
                | io::ErrorKind::NetworkDown
                | io::ErrorKind::AddrNotAvailable => self.connecting = true,
                io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof
                | io::ErrorKind::NotConnected => self.dropped = true,
                _ => {}
            }
        } else if let Some(e) = cause.downcast_ref::<hyper::Error>() {
            self.timed_out |= e.is_timeout();
            // Canceled: the connection closed with the request queued on
            // it; hyper-util sends it again when it can, and gives up when
            // it cannot tell whether it went out.
            self.dropped |= e.is_incomplete_message() || e.is_closed() || e.is_canceled();
        } else if let Some(e) = cause.downcast_ref::<hyper_util::client::legacy::Error>() {
            self.connecting |= e.is_connect();
        } else if cause.is::<tokio::time::error::Elapsed>() {
            self.timed_out = true;
        }
    }
}

/// The next cause of `error`: an `io::Error` hides the error it wraps from
/// `source()` (it answers that error's own source), so it is opened with
/// `get_ref()`.
fn cause_of<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a (dyn StdError + 'static)> {
    match error
        .downcast_ref::<io::Error>()
        .and_then(io::Error::get_ref)
    {
        Some(inner) => Some(inner),
        None => error.source(),
    }
}

/// The client certificate and key of the kubeconfig user, PEM (data
/// before files, as kube and client-go read them).
fn identity_pem(config: &Config) -> Result<Option<PemIdentity>, String> {
    let auth = &config.auth_info;
    let cert = read_pem(
        auth.client_certificate_data.as_deref(),
        auth.client_certificate.as_deref(),
        "client certificate",
    )?;
    let key_data = auth.client_key_data.as_ref().map(|k| {
        use secrecy::ExposeSecret;
        k.expose_secret().to_string()
    });
    let key = read_pem(
        key_data.as_deref(),
        auth.client_key.as_deref(),
        "client key",
    )?;
    Ok(cert.zip(key))
}

/// The identity of a PEM certificate chain and key.
fn parse_identity(cert: &[u8], key: &[u8]) -> Result<Identity, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the client certificate is not PEM: {e}"))?;
    if chain.is_empty() {
        return Err("the client certificate holds no PEM certificate".to_string());
    }
    let key = PrivateKeyDer::from_pem_slice(key)
        .map_err(|e| format!("the client key is not a PEM private key: {e}"))?;
    Ok((chain, key))
}

/// Base64 data, else the file's bytes.
fn read_pem(data: Option<&str>, file: Option<&str>, what: &str) -> Result<Option<Vec<u8>>, String> {
    if let Some(data) = data.filter(|d| !d.is_empty()) {
        return base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map(Some)
            .map_err(|e| format!("the {what} data is not base64: {e}"));
    }
    match file.filter(|f| !f.is_empty()) {
        Some(path) => std::fs::read(path)
            .map(Some)
            .map_err(|e| format!("cannot read the {what} {path}: {e}")),
        None => Ok(None),
    }
}

/// A client over the stack [`build`] makes whose connections play a
/// script instead of reaching a server, for the errors this stack raises.
#[cfg(test)]
pub(super) mod scripted {
    use std::io;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::task::{Context, Poll, Waker};

    use hyper_util::client::legacy::connect::{Connected, Connection};
    use kube::client::{Body, ConfigExt};
    use kube::Config;
    use tower::{BoxError, ServiceBuilder};

    /// What a connection does.
    #[derive(Debug, Clone, Copy)]
    pub enum Script {
        /// Connecting fails with an error of this kind and message.
        ConnectFails(io::ErrorKind, &'static str),
        /// Connecting never ends.
        ConnectHangs,
        /// Writing the request fails so.
        WriteFails(io::ErrorKind, &'static str),
        /// Once the request is written, reading fails so.
        ReadFails(io::ErrorKind, &'static str),
        /// Once the request is written, these bytes come, then the end.
        Answers(&'static [u8]),
        /// Once the request is written, nothing ever comes.
        Silent,
    }

    /// The error of a `GET /` (and of the read of its answer) sent by a
    /// kube client over the stack [`super::build`] makes, with `config`'s
    /// timeouts, on connections that play `script`.
    pub fn error(script: Script, config: &Config) -> kube::Error {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a test runtime");
        runtime.block_on(async {
            let connector = tower::service_fn(move |_: http::Uri| async move {
                match script {
                    Script::ConnectFails(kind, message) => Err(io::Error::new(kind, message)),
                    Script::ConnectHangs => std::future::pending().await,
                    _ => Ok(Scripted {
                        script,
                        written: false,
                        read: 0,
                        reader: None,
                    }),
                }
            });
            let tls = crate::tls::client_config(None, None).expect("a TLS configuration");
            let send = super::finish(config, tls, connector).expect("a client");
            let service = ServiceBuilder::new()
                .layer(config.base_uri_layer())
                .map_err(BoxError::from)
                .service(super::Detached(Arc::new(super::Pooled { send })));
            let client = kube::Client::new(service, "default");
            let request = http::Request::get("/")
                .body(Body::empty())
                .expect("a request");
            match client.send(request).await {
                Err(e) => e,
                Ok(answer) => match answer.into_body().collect_bytes().await {
                    Err(e) => e,
                    Ok(body) => panic!("{script:?} was answered: {body:?}"),
                },
            }
        })
    }

    /// A connection playing a [`Script`].
    struct Scripted {
        script: Script,
        written: bool,
        /// How much of an answer was read.
        read: usize,
        /// Who waits for the request to be written.
        reader: Option<Waker>,
    }

    impl Connection for Scripted {
        fn connected(&self) -> Connected {
            Connected::new()
        }
    }

    impl hyper::rt::Read for Scripted {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            mut buf: hyper::rt::ReadBufCursor<'_>,
        ) -> Poll<io::Result<()>> {
            if !self.written {
                self.reader = Some(cx.waker().clone());
                return Poll::Pending;
            }
            match self.script {
                Script::ReadFails(kind, message) => Poll::Ready(Err(io::Error::new(kind, message))),
                Script::Answers(bytes) => {
                    let rest = &bytes[self.read..];
                    let n = rest.len().min(buf.remaining());
                    buf.put_slice(&rest[..n]);
                    self.read += n;
                    Poll::Ready(Ok(()))
                }
                _ => Poll::Pending,
            }
        }
    }

    impl hyper::rt::Write for Scripted {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            if let Script::WriteFails(kind, message) = self.script {
                return Poll::Ready(Err(io::Error::new(kind, message)));
            }
            self.written = true;
            if let Some(reader) = self.reader.take() {
                reader.wake();
            }
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;
    use std::time::Duration;

    use super::scripted::{error, Script};
    use super::*;

    /// A config for a plain-HTTP server, with kube's default timeouts
    /// except the read timeout.
    fn config(read_timeout: Option<Duration>) -> Config {
        let mut config = Config::new("http://server.example:6443".parse().expect("a URL"));
        config.connect_timeout = Some(Duration::from_millis(200));
        config.read_timeout = read_timeout;
        config
    }

    // Every row but the last two is a failure the transport raises; the
    // texts say nothing of the kind on purpose (the old text match filed
    // "peer disconnected" as "cannot reach", "connection reset by peer"
    // while connecting as a dropped request, a malformed body as "cannot
    // reach").
    #[test]
    fn failures_are_told_by_type() {
        let timeout = Some(Duration::from_millis(100));
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n";
        let cut_body = b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc";
        for (script, read_timeout, want) in [
            (
                Script::ConnectFails(ErrorKind::ConnectionRefused, "no"),
                None,
                Failure::NotReached,
            ),
            (
                Script::ConnectFails(ErrorKind::ConnectionReset, "connection reset by peer"),
                None,
                Failure::NotReached,
            ),
            (
                Script::ConnectHangs,
                None,
                Failure::TimedOut { connecting: true },
            ),
            (
                Script::ReadFails(ErrorKind::ConnectionReset, "peer disconnected"),
                None,
                Failure::Dropped,
            ),
            (
                Script::ReadFails(ErrorKind::ConnectionAborted, "connect"),
                None,
                Failure::Dropped,
            ),
            (
                Script::WriteFails(ErrorKind::BrokenPipe, "disconnected"),
                None,
                Failure::Dropped,
            ),
            (
                Script::Answers(b"HTTP/1.1 200 OK\r\ncontent-le"),
                None,
                Failure::Dropped,
            ),
            (Script::Answers(cut_body), None, Failure::Dropped),
            (
                Script::Silent,
                timeout,
                Failure::TimedOut { connecting: false },
            ),
            (Script::Answers(chunked), None, Failure::Other),
            (
                Script::ReadFails(ErrorKind::Other, "tls: disconnected, connection refused"),
                None,
                Failure::Other,
            ),
        ] {
            let e = error(script, &config(read_timeout));
            assert_eq!(failure(&e), want, "{script:?}: {e}");
        }
    }

    #[test]
    fn errors_known_only_by_text_are_other() {
        for text in ["connection timed out", "disconnected", "connection reset"] {
            let e = kube::Error::Service(text.into());
            assert_eq!(failure(&e), Failure::Other, "{text}");
        }
    }

    #[test]
    fn elapsed_and_io_timeouts_are_timeouts() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a test runtime");
        let elapsed = || {
            runtime
                .block_on(async {
                    tokio::time::timeout(Duration::ZERO, std::future::pending::<()>()).await
                })
                .expect_err("pending never ends")
        };
        for e in [
            kube::Error::Service(Box::new(elapsed())),
            kube::Error::Service(Box::new(io::Error::from(ErrorKind::TimedOut))),
            kube::Error::ReadEvents(io::Error::new(ErrorKind::TimedOut, elapsed())),
        ] {
            assert_eq!(failure(&e), Failure::TimedOut { connecting: false }, "{e}");
        }
    }
}
