//! A loopback container registry for the `--probe` tests: the parts of the
//! distribution API a pull touches (`/v2/` ping, manifests by tag and by
//! digest, `sha256-<hex>.sig` attachment tags), Basic or Bearer auth with a
//! token endpoint, TLS from its own CA (or plain HTTP), a fixed error
//! status, throttling (429 with `Retry-After`), tokens issued in the past
//! and slow answers on demand (every answer, or the manifests of one
//! repository), blobs sent in paced pieces (a first piece, then the rest
//! after a pause, or byte by byte), and large layers of zeros sent as they
//! are made, never held. Every request is logged.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio_rustls::rustls;

/// How the registry authenticates.
#[derive(Debug, Clone)]
pub enum Auth {
    None,
    Basic {
        user: String,
        password: String,
    },
    /// Tokens from `/token`, given for these credentials only.
    Bearer {
        user: String,
        password: String,
    },
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub query: String,
    /// The `Authorization` scheme sent (`Basic`, `Bearer`), if any.
    pub auth_scheme: Option<String>,
    /// The `Accept` values, in order.
    pub accept: Vec<String>,
}

#[derive(Default)]
struct Repo {
    tags: BTreeMap<String, String>,
    manifests: BTreeMap<String, (String, String)>,
    blobs: BTreeMap<String, Vec<u8>>,
    /// Blobs of [`Builder::zeros_tar`]: their pieces (the zeros shared).
    pieces: BTreeMap<String, Vec<Bytes>>,
}

struct State {
    auth: Auth,
    repos: BTreeMap<String, Repo>,
    status: Option<u16>,
    /// Sent with the fixed status and the 429s.
    retry_after: Option<String>,
    /// The next this many manifest requests answer 429.
    throttle: usize,
    /// The token answer's `issued_at`, when set.
    token_issued_at: Option<String>,
    /// Bytes of padding in every token answer and every "manifest unknown"
    /// answer (an oversized answer).
    token_padding: usize,
    delay: Option<Duration>,
    /// Manifest requests of these repositories wait this long first.
    slow_repos: BTreeMap<String, Duration>,
    /// Requests of `sha256-<hex>.sig` tags answer this status.
    signature_status: Option<u16>,
    /// How blobs are sent: all at once when `None`.
    blob_pacing: Option<Pacing>,
    /// A blob stored with this body is sent as a tar that never ends.
    endless_body: Option<Vec<u8>>,
    redirect: Option<Redirect>,
    /// The second port ([`Redirect::OtherPort`]).
    second_port: Option<u16>,
    log: Vec<Logged>,
}

/// Where manifest requests sent to `127.0.0.1:PORT` are redirected (307).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect {
    /// To `localhost:PORT`: the same registry under another host name.
    OtherName,
    /// To `127.0.0.1:` a second port of the same registry.
    OtherPort,
    /// To the same URL, every time.
    Itself,
}

/// How a blob's bytes are sent.
#[derive(Debug, Clone, Copy)]
pub enum Pacing {
    /// The first `first` bytes, then after `pause` the rest in one piece:
    /// what a proxy or TLS terminator that splits records does.
    Split { first: usize, pause: Duration },
    /// One byte, then one more every `every`: a layer that never ends in time.
    Trickle { every: Duration },
}

/// Builds a [`FakeRegistry`].
pub struct Builder {
    tls: bool,
    state: State,
}

/// The sha256 digest of a manifest body.
pub fn digest_of(body: &str) -> String {
    sha256_digest([body.as_bytes()])
}

/// The sha256 digest of a blob.
pub fn digest_of_bytes(body: &[u8]) -> String {
    sha256_digest([body])
}

/// `sha256:<hex>` of `pieces` one after another: the one place the fake
/// registry's digests are computed.
fn sha256_digest<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    pieces.into_iter().for_each(|p| hash.update(p));
    let hex: String = hash
        .finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// A small OCI image manifest, distinct per `seed`.
pub fn manifest_body(seed: &str) -> String {
    format!(
        "{{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":{{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\"{}\",\"size\":2}},\"layers\":[]}}",
        digest_of(seed)
    )
}

const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// A TLS registry without authentication and without images.
    pub fn new() -> Self {
        Builder {
            tls: true,
            state: State {
                auth: Auth::None,
                repos: BTreeMap::new(),
                status: None,
                signature_status: None,
                retry_after: None,
                throttle: 0,
                token_issued_at: None,
                token_padding: 0,
                delay: None,
                slow_repos: BTreeMap::new(),
                blob_pacing: None,
                endless_body: None,
                redirect: None,
                second_port: None,
                log: Vec::new(),
            },
        }
    }

    pub fn plain_http(mut self) -> Self {
        self.tls = false;
        self
    }

    pub fn basic(mut self, user: &str, password: &str) -> Self {
        self.state.auth = Auth::Basic {
            user: user.into(),
            password: password.into(),
        };
        self
    }

    pub fn bearer(mut self, user: &str, password: &str) -> Self {
        self.state.auth = Auth::Bearer {
            user: user.into(),
            password: password.into(),
        };
        self
    }

    /// Stores `body` under its digest, tagged `tag` when given.
    pub fn manifest(mut self, repo: &str, tag: Option<&str>, body: &str) -> Self {
        let digest = digest_of(body);
        self.put(repo, tag, &digest, body, OCI_MANIFEST);
        self
    }

    /// Stores `body` under `digest` even though it does not match it.
    pub fn manifest_at(mut self, repo: &str, digest: &str, body: &str) -> Self {
        self.put(repo, None, digest, body, OCI_MANIFEST);
        self
    }

    /// Stores a sigstore attachment manifest for the image `digest`.
    pub fn signature(mut self, repo: &str, digest: &str) -> Self {
        let tag = format!("{}.sig", digest.replacen(':', "-", 1));
        let body = manifest_body(&format!("signature of {digest}"));
        let d = digest_of(&body);
        self.put(repo, Some(&tag), &d, &body, OCI_MANIFEST);
        self
    }

    /// Stores a blob under its digest; returns the digest.
    pub fn blob(&mut self, repo: &str, body: &[u8]) -> String {
        let digest = digest_of_bytes(body);
        let r = self.state.repos.entry(repo.to_string()).or_default();
        r.blobs.insert(digest.clone(), body.to_vec());
        digest
    }

    /// Stores under its digest a plain tar layer of `files` (path, size),
    /// each of that many zeros, ended by the header alone of `last` (path,
    /// declared size): a layer whose files pass a total without the blob
    /// passing the client's cap. Made piece by piece, never held whole.
    /// Returns its digest and size.
    pub fn zeros_tar(
        &mut self,
        repo: &str,
        files: &[(&str, u64)],
        last: (&str, u64),
    ) -> (String, u64) {
        let zeros = Bytes::from(vec![0u8; 1 << 20]);
        let header = |path: &str, size: u64| {
            let mut h = tar::Header::new_gnu();
            h.set_path(path).expect("path");
            h.set_size(size);
            h.set_mode(0o644);
            h.set_cksum();
            Bytes::copy_from_slice(h.as_bytes())
        };
        let mut pieces = Vec::new();
        for (path, size) in files {
            pieces.push(header(path, *size));
            let mut left = *size as usize;
            while left > 0 {
                let n = left.min(zeros.len());
                pieces.push(zeros.slice(..n));
                left -= n;
            }
            let pad = (512 - (*size as usize % 512)) % 512;
            pieces.push(zeros.slice(..pad));
        }
        pieces.push(header(last.0, last.1));
        let digest = sha256_digest(pieces.iter().map(|p| &p[..]));
        let size = pieces.iter().map(|p| p.len() as u64).sum();
        let r = self.state.repos.entry(repo.to_string()).or_default();
        r.pieces.insert(digest.clone(), pieces);
        (digest, size)
    }

    /// Stores `body` with media type `mt` under its digest, tagged `tag` when given.
    pub fn manifest_typed(mut self, repo: &str, tag: Option<&str>, body: &str, mt: &str) -> Self {
        let digest = digest_of(body);
        self.put(repo, tag, &digest, body, mt);
        self
    }

    fn put(&mut self, repo: &str, tag: Option<&str>, digest: &str, body: &str, mt: &str) {
        let r = self.state.repos.entry(repo.to_string()).or_default();
        r.manifests
            .insert(digest.to_string(), (body.to_string(), mt.to_string()));
        if let Some(t) = tag {
            r.tags.insert(t.to_string(), digest.to_string());
        }
    }

    /// Every manifest request (not the ping) answers this status.
    pub fn status(mut self, code: u16) -> Self {
        self.state.status = Some(code);
        self
    }

    /// Requests of sigstore attachment tags (`sha256-<hex>.sig`) answer
    /// this status; the images themselves are served.
    pub fn signature_status(mut self, code: u16) -> Self {
        self.state.signature_status = Some(code);
        self
    }

    /// The next `n` manifest requests answer 429 Too Many Requests.
    pub fn throttle(mut self, n: usize) -> Self {
        self.state.throttle = n;
        self
    }

    /// `Retry-After` on the 429s and on the fixed status.
    pub fn retry_after(mut self, value: &str) -> Self {
        self.state.retry_after = Some(value.into());
        self
    }

    /// Tokens say they were issued at this time (RFC 3339).
    /// Pads every token answer with `bytes` of JSON whitespace.
    pub fn token_padding(mut self, bytes: usize) -> Self {
        self.state.token_padding = bytes;
        self
    }

    pub fn token_issued_at(mut self, at: &str) -> Self {
        self.state.token_issued_at = Some(at.into());
        self
    }

    /// Every answer waits this long.
    pub fn delay(mut self, d: Duration) -> Self {
        self.state.delay = Some(d);
        self
    }

    /// Blobs are sent as `pacing` says.
    pub fn blob_pacing(mut self, pacing: Pacing) -> Self {
        self.state.blob_pacing = Some(pacing);
        self
    }

    /// A blob stored with `body` is sent, without a Content-Length, as a
    /// plain tar whose first entry declares 8 GiB and whose bytes never
    /// end: a layer past any cap.
    pub fn endless_blob(mut self, body: &[u8]) -> Self {
        self.state.endless_body = Some(body.to_vec());
        self
    }

    /// Manifest requests sent to `127.0.0.1:PORT` answer 307 to `to`.
    pub fn redirect_manifests(mut self, to: Redirect) -> Self {
        self.state.redirect = Some(to);
        self
    }

    /// Manifest requests of `repo` (only) wait this long: the ping and
    /// the token answer at once.
    pub fn slow_manifests(mut self, repo: &str, d: Duration) -> Self {
        self.state.slow_repos.insert(repo.to_string(), d);
        self
    }

    pub fn start(self) -> FakeRegistry {
        FakeRegistry::start(self)
    }
}

/// A running registry on 127.0.0.1; stopped when dropped.
pub struct FakeRegistry {
    pub addr: SocketAddr,
    /// The CA (PEM) that signed its certificate (unused over plain HTTP).
    pub ca_pem: String,
    state: Arc<Mutex<State>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeRegistry {
    fn start(b: Builder) -> Self {
        let (ca_pem, tls) = certificates();
        let bind = || {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
            l.set_nonblocking(true).expect("nonblocking");
            l
        };
        let listener = bind();
        let addr = listener.local_addr().expect("local address");
        // A second port of the same registry, for a redirect to it.
        let second = matches!(b.state.redirect, Some(Redirect::OtherPort)).then(bind);
        let mut state = b.state;
        state.second_port = second
            .as_ref()
            .map(|l| l.local_addr().expect("local address").port());
        let state = Arc::new(Mutex::new(state));
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let served = Arc::clone(&state);
        let use_tls = b.tls;
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
                let first = serve(
                    listener,
                    acceptor.clone(),
                    Arc::clone(&served),
                    addr,
                    use_tls,
                );
                let second = async move {
                    match second {
                        Some(l) => serve(l, acceptor, served, addr, use_tls).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    _ = first => {}
                    _ = second => {}
                    _ = &mut rx => {}
                }
            });
        });
        FakeRegistry {
            addr,
            ca_pem,
            state,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    /// `127.0.0.1:PORT`, the registry's host in image references.
    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().expect("state").log.clone()
    }

    /// Requests whose path starts with `prefix`.
    pub fn requests_to(&self, prefix: &str) -> usize {
        self.log()
            .iter()
            .filter(|l| l.path.starts_with(prefix))
            .count()
    }

    /// Writes the CA to `dir/NAME.crt` (a `--cert-dir` folder).
    pub fn write_ca(&self, dir: &std::path::Path, name: &str) {
        std::fs::write(dir.join(format!("{name}.crt")), &self.ca_pem).expect("write CA");
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Accepts connections on `listener` and answers them as the registry at
/// `addr`.
async fn serve(
    listener: std::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    use_tls: bool,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let acceptor = acceptor.clone();
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let scheme = if use_tls { "https" } else { "http" };
            let service = hyper::service::service_fn(move |req| {
                let state = Arc::clone(&state);
                async move { handle(req, state, addr, scheme).await }
            });
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            if !use_tls {
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                return;
            }
            let Ok(tls) = acceptor.accept(stream).await else {
                return;
            };
            let _ = builder.serve_connection(TokioIo::new(tls), service).await;
        });
    }
}

/// A fresh CA and a server certificate for 127.0.0.1 and localhost.
fn certificates() -> (String, rustls::ServerConfig) {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "fake-registry-ca");
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).expect("CA certificate");
    let key = rcgen::KeyPair::generate().expect("server key");
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_string()]).expect("server params");
    params
        .subject_alt_names
        .push(rcgen::SanType::IpAddress("127.0.0.1".parse().expect("ip")));
    let cert = params.signed_by(&key, &ca).expect("server certificate");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone(), ca.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .expect("server TLS config");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    (ca.pem(), config)
}

type Body = BoxBody<Bytes, std::io::Error>;
type Reply = Result<Response<Body>, std::io::Error>;

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).map_err(|e| match e {}).boxed()
}

/// Where a manifest request to `authority` is redirected, if it is.
fn redirect_of(
    state: &Mutex<State>,
    authority: &str,
    addr: SocketAddr,
    scheme: &str,
    path: &str,
) -> Option<String> {
    let s = state.lock().expect("state");
    let primary = authority == addr.to_string();
    match s.redirect? {
        Redirect::Itself => Some(path.to_string()),
        Redirect::OtherName if primary => {
            Some(format!("{scheme}://localhost:{}{path}", addr.port()))
        }
        Redirect::OtherPort if primary => Some(format!(
            "{scheme}://127.0.0.1:{}{path}",
            s.second_port.expect("second port")
        )),
        _ => None,
    }
}

/// A tar entry header declaring a file of 8 GiB - 1, then zeros forever.
fn endless_tar() -> Body {
    let mut header = tar::Header::new_gnu();
    header.set_path("filler").expect("path");
    header.set_size((8 << 30) - 1);
    header.set_mode(0o644);
    header.set_cksum();
    let zeros = Bytes::from(vec![0u8; 1 << 20]);
    let first = Bytes::copy_from_slice(header.as_bytes());
    let stream = futures_util::stream::unfold(Some(first), move |next| {
        let piece = next.unwrap_or_else(|| zeros.clone());
        async move { Some((Ok(hyper::body::Frame::data(piece)), None)) }
    });
    BodyExt::boxed(StreamBody::new(stream))
}

/// `body` sent in pieces, each after its pause.
fn paced(body: Vec<u8>, pacing: Pacing) -> Body {
    let pieces: Vec<(Duration, Bytes)> = match pacing {
        Pacing::Split { first, pause } => {
            let first = first.min(body.len());
            vec![
                (Duration::ZERO, Bytes::copy_from_slice(&body[..first])),
                (pause, Bytes::copy_from_slice(&body[first..])),
            ]
        }
        Pacing::Trickle { every } => body
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let wait = if i == 0 { Duration::ZERO } else { every };
                (wait, Bytes::copy_from_slice(&[*b]))
            })
            .collect(),
    };
    let stream = futures_util::stream::unfold(pieces.into_iter(), |mut rest| async move {
        let (wait, piece) = rest.next()?;
        tokio::time::sleep(wait).await;
        Some((Ok(hyper::body::Frame::data(piece)), rest))
    });
    BodyExt::boxed(StreamBody::new(stream))
}

fn respond(code: u16, headers: &[(&str, String)], body: String) -> Response<Body> {
    let mut b = Response::builder().status(code);
    for (k, v) in headers {
        b = b.header(*k, v.as_str());
    }
    b.body(full(body)).expect("response")
}

/// An error body as docker/distribution writes it: the code with its
/// default message (a code it does not define: the code as the message).
fn error_body(code: &str) -> String {
    let message = match code {
        "BLOB_UNKNOWN" => "blob unknown to registry",
        "MANIFEST_UNKNOWN" => "manifest unknown",
        "TOOMANYREQUESTS" => "too many requests",
        "UNAUTHORIZED" => "authentication required",
        "UNKNOWN" => "unknown error",
        other => other,
    };
    format!("{{\"errors\":[{{\"code\":\"{code}\",\"message\":\"{message}\"}}]}}")
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    scheme: &str,
) -> Reply {
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let authority = req
        .uri()
        .authority()
        .map(ToString::to_string)
        .or_else(|| {
            req.headers()
                .get("host")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        })
        .unwrap_or_default();
    let authorization = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let accept: Vec<String> = req
        .headers()
        .get_all("accept")
        .iter()
        .filter_map(|v| v.to_str().ok().map(str::to_string))
        .collect();
    let (auth, delay, status, retry_after, issued_at, token_padding) = {
        let mut s = state.lock().expect("state");
        s.log.push(Logged {
            method: req.method().to_string(),
            path: path.clone(),
            query: query.clone(),
            auth_scheme: authorization
                .as_deref()
                .and_then(|a| a.split(' ').next())
                .map(str::to_string),
            accept,
        });
        (
            s.auth.clone(),
            s.delay,
            s.status,
            s.retry_after.clone(),
            s.token_issued_at.clone(),
            s.token_padding,
        )
    };
    let retry_headers: Vec<(&str, String)> = retry_after
        .map(|v| vec![("Retry-After", v)])
        .unwrap_or_default();
    if let Some(d) = delay {
        tokio::time::sleep(d).await;
    }
    let challenge = match &auth {
        Auth::None => None,
        Auth::Basic { .. } => Some("Basic realm=\"fake-registry\"".to_string()),
        Auth::Bearer { .. } => Some(format!(
            "Bearer realm=\"{scheme}://{addr}/token\",service=\"fake-registry\""
        )),
    };
    let unauthorized = || {
        let headers: Vec<(&str, String)> = challenge
            .clone()
            .map(|c| vec![("WWW-Authenticate", c)])
            .unwrap_or_default();
        Ok(respond(401, &headers, error_body("UNAUTHORIZED")))
    };
    let basic_ok = |user: &str, password: &str| {
        let want = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        );
        authorization.as_deref() == Some(want.as_str())
    };
    if path == "/token" {
        let Auth::Bearer { user, password } = &auth else {
            return Ok(respond(404, &[], error_body("NOT_FOUND")));
        };
        if !basic_ok(user, password) {
            return Ok(respond(401, &[], "{}".to_string()));
        }
        let scope = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("scope="))
            .unwrap_or("")
            .replace("%3A", ":")
            .replace("%2F", "/");
        return Ok(respond(
            200,
            &[("Content-Type", "application/json".to_string())],
            match &issued_at {
                Some(at) => format!(
                    "{{\"token\":\"tok/{scope}\",\"expires_in\":300,\"issued_at\":\"{at}\"}}"
                ),
                None => format!("{{\"token\":\"tok/{scope}\",\"expires_in\":300}}"),
            } + &" ".repeat(token_padding),
        ));
    }
    if path == "/v2/" {
        return match &auth {
            Auth::None => Ok(respond(200, &[], "{}".to_string())),
            _ => unauthorized(),
        };
    }
    let Some(rest) = path.strip_prefix("/v2/") else {
        return Ok(respond(404, &[], error_body("NOT_FOUND")));
    };
    if let Some((repo, digest)) = rest.rsplit_once("/blobs/") {
        return Ok(blob_answer(&state, repo, digest, &authorization, &auth));
    }
    let Some((repo, reference)) = rest.rsplit_once("/manifests/") else {
        return Ok(respond(404, &[], error_body("NOT_FOUND")));
    };
    if let Some(location) = redirect_of(&state, &authority, addr, scheme, &path) {
        return Ok(respond(307, &[("Location", location)], String::new()));
    }
    let allowed = match &auth {
        Auth::None => true,
        Auth::Basic { user, password } => basic_ok(user, password),
        Auth::Bearer { .. } => {
            authorization.as_deref() == Some(&format!("Bearer tok/repository:{repo}:pull"))
        }
    };
    if !allowed {
        return unauthorized();
    }
    let slow = state.lock().expect("state").slow_repos.get(repo).copied();
    if let Some(d) = slow {
        tokio::time::sleep(d).await;
    }
    if let Some(code) = status {
        return Ok(respond(code, &retry_headers, error_body("UNKNOWN")));
    }
    let mut s = state.lock().expect("state");
    if let Some(code) = s.signature_status.filter(|_| reference.ends_with(".sig")) {
        return Ok(respond(code, &retry_headers, error_body("UNKNOWN")));
    }
    if s.throttle > 0 {
        s.throttle -= 1;
        return Ok(respond(429, &retry_headers, error_body("TOOMANYREQUESTS")));
    }
    let found = s.repos.get(repo).and_then(|r| {
        let digest = if reference.starts_with("sha256:") {
            reference.to_string()
        } else {
            r.tags.get(reference)?.clone()
        };
        r.manifests.get(&digest).map(|m| (digest, m.clone()))
    });
    match found {
        Some((digest, (body, mt))) => Ok(respond(
            200,
            &[("Content-Type", mt), ("Docker-Content-Digest", digest)],
            body,
        )),
        None => Ok(respond(
            404,
            &[],
            error_body("MANIFEST_UNKNOWN") + &" ".repeat(token_padding),
        )),
    }
}

/// A blob request: the blob when the credentials are good and it exists.
fn blob_answer(
    state: &Arc<Mutex<State>>,
    repo: &str,
    digest: &str,
    authorization: &Option<String>,
    auth: &Auth,
) -> Response<Body> {
    let allowed = match auth {
        Auth::None => true,
        Auth::Basic { user, password } => {
            let want = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            );
            authorization.as_deref() == Some(want.as_str())
        }
        Auth::Bearer { .. } => {
            authorization.as_deref() == Some(&format!("Bearer tok/repository:{repo}:pull"))
        }
    };
    if !allowed {
        return respond(401, &[], error_body("UNAUTHORIZED"));
    }
    let s = state.lock().expect("state");
    if let Some(pieces) = s.repos.get(repo).and_then(|r| r.pieces.get(digest)) {
        let size: usize = pieces.iter().map(Bytes::len).sum();
        let frames = pieces
            .clone()
            .into_iter()
            .map(|p| Ok(hyper::body::Frame::data(p)));
        return Response::builder()
            .status(200)
            .header("Content-Type", "application/octet-stream")
            .header("Content-Length", size.to_string())
            .body(BodyExt::boxed(StreamBody::new(futures_util::stream::iter(
                frames,
            ))))
            .expect("response");
    }
    match s.repos.get(repo).and_then(|r| r.blobs.get(digest)) {
        Some(body) if s.endless_body.as_ref() == Some(body) => Response::builder()
            .status(200)
            .header("Content-Type", "application/octet-stream")
            .body(endless_tar())
            .expect("response"),
        Some(body) => Response::builder()
            .status(200)
            .header("Content-Type", "application/octet-stream")
            .header("Content-Length", body.len().to_string())
            .body(match s.blob_pacing {
                Some(pacing) => paced(body.clone(), pacing),
                None => full(body.clone()),
            })
            .expect("response"),
        None => respond(404, &[], error_body("BLOB_UNKNOWN")),
    }
}

/// A sigstore signing key: ECDSA P-256, its public key as the base64 of a
/// PEM `PUBLIC KEY` (what a ClusterImagePolicy's `keyData` holds).
pub struct Signer {
    key: ring::signature::EcdsaKeyPair,
    pub key_data: String,
}

impl Signer {
    pub fn new() -> Signer {
        use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).expect("key");
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng)
            .expect("key");
        // The SubjectPublicKeyInfo of an uncompressed P-256 point.
        let prefix: &[u8] = &[
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06,
            0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ];
        let b64 = base64::engine::general_purpose::STANDARD;
        let spki = [prefix, key.public_key().as_ref()].concat();
        let pem = format!(
            "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
            b64.encode(spki)
        );
        Signer {
            key,
            key_data: b64.encode(pem),
        }
    }
}

impl Builder {
    /// Stores in `repo` the sigstore attachment `sha256-<hex>.sig` of the
    /// image `digest`, signed by `s` for the identity `identity`, as cosign
    /// and `skopeo copy --sign-by-sigstore` write it.
    pub fn signed(self, s: &Signer, repo: &str, digest: &str, identity: &str) -> Self {
        self.signed_padded(s, repo, digest, identity, 0)
    }

    /// [`Builder::signed`], its simple-signing payload padded with
    /// `padding` bytes of JSON whitespace (still a valid signature).
    pub fn signed_padded(
        mut self,
        s: &Signer,
        repo: &str,
        digest: &str,
        identity: &str,
        padding: usize,
    ) -> Self {
        let payload = format!(
            r#"{{"critical":{{"identity":{{"docker-reference":"{identity}"}},"image":{{"docker-manifest-digest":"{digest}"}},"type":"cosign container image signature"}},"optional":null}}{}"#,
            " ".repeat(padding)
        );
        let rng = ring::rand::SystemRandom::new();
        let sig = s.key.sign(&rng, payload.as_bytes()).expect("sign");
        let sig = base64::engine::general_purpose::STANDARD.encode(sig.as_ref());
        let layer = self.blob(repo, payload.as_bytes());
        let config = self.blob(repo, b"{}");
        let body = format!(
            r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config}","size":2}},"layers":[{{"mediaType":"application/vnd.dev.cosign.simplesigning.v1+json","digest":"{layer}","size":{},"annotations":{{"dev.cosignproject.cosign/signature":"{sig}"}}}}]}}"#,
            payload.len()
        );
        let tag = format!("{}.sig", digest.replacen(':', "-", 1));
        self.manifest(repo, Some(&tag), &body)
    }
}
