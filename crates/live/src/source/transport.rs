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

use std::collections::HashMap;
use std::future::Future;
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
