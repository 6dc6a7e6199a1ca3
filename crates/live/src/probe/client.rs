//! The registry side of a probe: what containers/image's docker client does
//! for one pull source (`docker/docker_client.go`): ping `/v2/` (200 and
//! 401 accepted; an insecure endpoint falls back to `http://`), answer the
//! `WWW-Authenticate` challenge (Basic, or a Bearer token for
//! `repository:<path>:pull`), then `GET /v2/<path>/manifests/<tag|digest>`
//! with the manifest types containers/image accepts.
//!
//! As `makeRequestToResolvedURL` does, the ping and the manifest request are
//! retried on HTTP 429 only (not on 503 or any other status): at most 5
//! attempts, waiting `Retry-After` (seconds or an HTTP date) or else 2s,
//! doubled each time, never more than 60s. A token request is not retried
//! (`getBearerToken` sends it once). A bearer token is reused until it
//! expires: `issued_at` (or the time it was received) plus `expires_in`,
//! which counts as at least 60 seconds (`newBearerTokenFromHTTPResponseBody`).
//!
//! How long each step is waited for is [`super::deadline`]'s: a connection
//! as long as containers/image waits for one, an answer `--probe-timeout`
//! (an answer that does not come is [`Outcome::TimedOut`], not a refusal).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use reqwest::{Client, StatusCode};

use super::auth::{self, AuthFile, AuthSources, Credentials, Found, HelperAnswer};
use super::challenge::{self, Challenge};
use super::deadline::{AnswerLimit, ConnectWatch, CONNECT_LIMIT};
use super::redirect::Chain;
use super::tls::TlsSettings;
use super::Outcome;
use crate::reference::Reference;
use crate::registry_error::{self, BearerError};

/// `manifest.DefaultRequestedManifestMIMETypes`, in containers/image's order.
pub const ACCEPTED_MANIFEST_TYPES: &[&str] = &[
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.v1+prettyjws",
    "application/vnd.docker.distribution.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.oci.image.index.v1+json",
];

/// `iolimits.MaxManifestBodySize`.
const MAX_MANIFEST_BYTES: usize = 4 << 20;
/// `iolimits.MaxAuthTokenBodySize`.
const MAX_TOKEN_BYTES: usize = 1 << 20;
/// `backoffNumIterations`, `backoffInitialDelay`, `backoffMaxDelay`.
const BACKOFF_ATTEMPTS: u32 = 5;
const BACKOFF_INITIAL: Duration = Duration::from_secs(2);
const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// `minimumTokenLifetimeSeconds`.
const MINIMUM_TOKEN_LIFETIME: u64 = 60;

/// What one attempt on one endpoint gave.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub outcome: Outcome,
    pub status: Option<u16>,
    pub detail: String,
    /// The manifest served (on [`Outcome::Served`]).
    pub manifest: Option<Vec<u8>>,
    /// No auth file (nor helper) had credentials for the endpoint: it was asked anonymously.
    pub anonymous: bool,
    /// containers/image's own error for a failed attempt, without the
    /// probe's notes, where the probe words it exactly (see
    /// [`SourceProbe::words`](crate::probe::SourceProbe)).
    pub words: Option<String>,
    /// The endpoint answered the HTTPS request in plain HTTP (see
    /// [`SourceProbe::plain_http`](crate::probe::SourceProbe)).
    pub plain_http: bool,
}

impl Attempt {
    fn failed(outcome: Outcome, status: Option<u16>, detail: String) -> Self {
        Attempt {
            outcome,
            status,
            detail,
            manifest: None,
            anonymous: false,
            words: None,
            plain_http: false,
        }
    }

    /// A failed attempt whose `words` are containers/image's exactly.
    fn failed_in_words(
        outcome: Outcome,
        status: Option<u16>,
        detail: String,
        words: String,
    ) -> Self {
        Attempt {
            words: Some(words),
            ..Attempt::failed(outcome, status, detail)
        }
    }
}

/// The registry client of a probe: HTTP clients per endpoint, the challenges seen, and
/// bearer tokens cached per registry, scope and account.
pub struct Prober {
    tls: TlsSettings,
    auth: Arc<AuthSources>,
    timeout: Duration,
    clients: Mutex<HashMap<(String, bool), Http>>,
    /// Per `host[:port]` and insecure flag: the scheme that answered and its challenges.
    pings: Mutex<HashMap<(String, bool), PingCell>>,
    /// Per realm, service, scope and account: one fetch at a time, the token until it expires.
    tokens: Mutex<HashMap<TokenKey, TokenCell>>,
    /// Credential helper answers per `(helper, registry)`, each helper run once.
    helpers: Arc<Mutex<HashMap<(String, String), HelperAnswer>>>,
}

type PingResult = Result<(String, Vec<Challenge>), Attempt>;

/// The HTTP client of one endpoint and how long it waits for an answer.
#[derive(Clone)]
struct Http {
    client: Client,
    limit: AnswerLimit,
}

/// Why an exchange with a registry gave no answer.
enum Failed {
    Transport(reqwest::Error),
    /// No answer within the limit, once connected.
    NoAnswer,
    /// A redirect not followed, in Go's words ([`super::redirect`]).
    Redirect(String),
}

/// Why a body could not be read.
enum BodyError {
    /// The rest of the body did not come within the limit.
    NoAnswer,
    Failed(String),
}
type PingCell = Arc<tokio::sync::OnceCell<PingResult>>;
type TokenKey = (String, String, String, String);
type TokenCell = Arc<tokio::sync::Mutex<Option<BearerToken>>>;

/// A bearer token and when it stops being reused.
#[derive(Clone)]
struct BearerToken {
    token: String,
    expires: std::time::SystemTime,
}

/// The endpoint containers/image contacts for a reference's domain.
fn endpoint_host(domain: &str) -> &str {
    if domain == "docker.io" {
        "registry-1.docker.io"
    } else {
        domain
    }
}

impl Prober {
    pub fn new(tls: TlsSettings, auth: AuthSources, timeout: Duration) -> Self {
        Prober {
            tls,
            auth: Arc::new(auth),
            timeout,
            clients: Mutex::new(HashMap::new()),
            pings: Mutex::new(HashMap::new()),
            tokens: Mutex::new(HashMap::new()),
            helpers: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// A prober with the same trust and timeout that looks `first` up
    /// before its own auth files: a pod's pull secrets before the node's
    /// (the kubelet's keyring puts the pod's secrets first). Its caches
    /// (connections, tokens) are its own: tokens depend on the credential.
    pub fn with_auth_first(&self, first: Vec<AuthFile>) -> Prober {
        let mut files = first;
        files.extend(self.auth.files.iter().cloned());
        Prober::new(self.tls.clone(), AuthSources { files }, self.timeout)
    }

    /// The `--probe-timeout`: how long an answer is waited for once connected.
    pub fn answer_timeout(&self) -> Duration {
        self.timeout
    }

    /// The HTTP client of an endpoint: connections given up after
    /// [`CONNECT_LIMIT`] as containers/image gives them up, and no limit
    /// of its own on answers ([`AnswerLimit`] sets it per exchange).
    fn client(&self, domain: &str, insecure: bool) -> Result<Http, String> {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = clients.get(&(domain.to_string(), insecure)) {
            return Ok(c.clone());
        }
        let config = self.tls.client_config(domain, insecure);
        let watch = ConnectWatch::default();
        let client = Client::builder()
            .tls_backend_preconfigured(config)
            .connect_timeout(CONNECT_LIMIT)
            .connector_layer(watch.clone())
            // Followed in send_once, as Go's client follows them.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("kubectl-mirrorpolicy/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {}", chain(&e)))?;
        let http = Http {
            client,
            limit: AnswerLimit {
                watch,
                limit: self.timeout,
            },
        };
        clients.insert((domain.to_string(), insecure), http.clone());
        Ok(http)
    }

    /// The credentials for `name` and where they come from (for the probe's
    /// detail); `Err` when a credential helper fails, which fails the source.
    pub async fn credentials(&self, name: &str) -> Result<(Credentials, String), String> {
        let auth = Arc::clone(&self.auth);
        let helpers = Arc::clone(&self.helpers);
        let timeout = self.timeout;
        let name_owned = name.to_string();
        let lookup = move || {
            auth.lookup(&name_owned, &mut |helper, registry| {
                let mut cache = helpers.lock().unwrap_or_else(|e| e.into_inner());
                cache
                    .entry((helper.to_string(), registry.to_string()))
                    .or_insert_with(|| auth::run_helper(helper, registry, timeout))
                    .clone()
            })
        };
        // A helper is a process: it runs off the network tasks' thread.
        let found = if self.auth.has_helpers() {
            tokio::task::spawn_blocking(lookup)
                .await
                .map_err(|e| format!("looking up credentials: {e}"))?
        } else {
            lookup()
        };
        let mut ignored = String::new();
        for (file, helper) in self.auth.ignored_helpers(name) {
            ignored.push_str(&format!(
                "; credential helper \"{helper}\" (credHelpers in {file}) ignored: a program named by the cluster is never run (the kubelet passes only the auths entries)"
            ));
        }
        match found {
            Found::Credentials {
                credentials,
                file,
                key,
            } => Ok((
                credentials,
                format!("credentials for \"{key}\" from {file}{ignored}"),
            )),
            Found::Invalid { file, key, message } => Err(format!(
                "looking up credentials: {file}: the \"auth\" value of \"{key}\": {message}; containers/image fails this source without contacting it"
            )),
            Found::HelperFailed {
                file,
                helper,
                message,
            } => Err(format!(
                "getting username and password: {message} (credential helper \"{helper}\", credHelpers in {file}); containers/image fails this source without contacting it"
            )),
            Found::None => {
                let mut note = format!("no credentials: anonymous{ignored}");
                for (file, store) in self.auth.ignored_creds_stores() {
                    note.push_str(&format!(
                        "; {file} sets credsStore \"{store}\", which containers/image does not read"
                    ));
                }
                Ok((Credentials::default(), note))
            }
        }
    }

    /// `detectProperties`, once per endpoint.
    /// An `https` ping that gets no answer is waited on by containers/image:
    /// it never falls back to `http` then.
    async fn ping(&self, http: &Http, host: &str, insecure: bool) -> PingResult {
        let cell = {
            let mut pings = self.pings.lock().unwrap_or_else(|e| e.into_inner());
            std::sync::Arc::clone(pings.entry((host.to_string(), insecure)).or_default())
        };
        cell.get_or_init(|| async {
            let result = ping_once(http, "https", host).await;
            match &result {
                Err(a) if insecure && a.outcome != Outcome::TimedOut => {
                    ping_once(http, "http", host).await
                }
                _ => result,
            }
        })
        .await
        .clone()
    }

    /// One pull source: ping, authenticate, fetch the manifest.
    pub async fn attempt(&self, physical: &Reference, insecure: bool) -> Attempt {
        let tag_or_digest = physical
            .digest()
            .or(physical.tag())
            .unwrap_or("latest")
            .to_string();
        self.fetch_manifest(physical, insecure, &tag_or_digest)
            .await
    }

    /// `fetchManifest` for `tag_or_digest` in the repository of `physical`.
    pub async fn fetch_manifest(
        &self,
        physical: &Reference,
        insecure: bool,
        tag_or_digest: &str,
    ) -> Attempt {
        let domain = physical.domain();
        let http = match self.client(domain, insecure) {
            Ok(c) => c,
            Err(e) => return Attempt::failed(Outcome::Unreachable, None, e),
        };
        let (creds, creds_note) = match self.credentials(&physical.name()).await {
            Ok(c) => c,
            Err(detail) => return Attempt::failed(Outcome::Unauthorized, None, detail),
        };
        let mut attempt = self
            .fetch_with(
                &http,
                physical,
                insecure,
                tag_or_digest,
                &creds,
                &creds_note,
            )
            .await;
        attempt.anonymous = creds == Credentials::default();
        attempt
    }

    /// `GET /v2/<path>/blobs/<digest>` on the endpoint of `physical`, with
    /// the same ping, credentials and tokens as a manifest (the source that
    /// served a manifest serves its blobs); the answer's body is read by
    /// the caller, chunk by chunk.
    pub async fn open_blob(
        &self,
        physical: &Reference,
        insecure: bool,
        digest: &str,
    ) -> Result<Blob, Attempt> {
        let http = self
            .client(physical.domain(), insecure)
            .map_err(|e| Attempt::failed(Outcome::Unreachable, None, e))?;
        let (creds, creds_note) = self
            .credentials(&physical.name())
            .await
            .map_err(|detail| Attempt::failed(Outcome::Unauthorized, None, detail))?;
        let host = endpoint_host(physical.domain());
        let (scheme, challenges) = self.ping(&http, host, insecure).await?;
        let path = physical.path();
        let authorization = self.authorization(&http, &challenges, &creds, path).await?;
        let url = format!("{scheme}://{host}/v2/{path}/blobs/{digest}");
        let request = || {
            let mut req = http.client.get(&url);
            if let Some(a) = &authorization {
                req = req.header(AUTHORIZATION, a);
            }
            req
        };
        let (res, attempts) = send_retrying(&http, request).await.map_err(|e| {
            let (outcome, detail) = failure(&e, self.timeout);
            Attempt::failed(outcome, None, format!("GET blob {digest}: {detail}"))
        })?;
        let status = res.status();
        if status != StatusCode::OK {
            let headers = res.headers().clone();
            let body = read_error_body(&http, res).await.unwrap_or_default();
            let (outcome, what) = status_outcome(status, &body, &headers);
            // containers/image's words (docker/docker_client.go getBlob).
            return Err(Attempt::failed(
                outcome,
                Some(status.as_u16()),
                format!(
                    "fetching blob: {what}{} (blob {digest}, {creds_note})",
                    throttled(status, attempts)
                ),
            ));
        }
        Ok(Blob {
            res,
            limit: http.limit.clone(),
            started: tokio::time::Instant::now(),
            received: 0,
        })
    }

    /// [`Prober::fetch_manifest`] once the credentials are known.
    async fn fetch_with(
        &self,
        http: &Http,
        physical: &Reference,
        insecure: bool,
        tag_or_digest: &str,
        creds: &Credentials,
        creds_note: &str,
    ) -> Attempt {
        let host = endpoint_host(physical.domain());
        let (scheme, challenges) = match self.ping(http, host, insecure).await {
            Ok(p) => p,
            Err(a) => return a,
        };
        let path = physical.path();
        let authorization = match self.authorization(http, &challenges, creds, path).await {
            Ok(a) => a,
            Err(mut a) => {
                a.detail = format!("{} ({creds_note})", a.detail);
                return a;
            }
        };
        let url = format!("{scheme}://{host}/v2/{path}/manifests/{tag_or_digest}");
        let request = || {
            let mut req = http.client.get(&url);
            for t in ACCEPTED_MANIFEST_TYPES {
                req = req.header(ACCEPT, *t);
            }
            if let Some(a) = &authorization {
                req = req.header(AUTHORIZATION, a);
            }
            req
        };
        let (res, attempts) = match send_retrying(http, request).await {
            Ok(r) => r,
            Err(e) => {
                let (outcome, detail) = failure(&e, self.timeout);
                return Attempt::failed(outcome, None, format!("GET manifest: {detail}"));
            }
        };
        let repo = physical.name();
        manifest_answer(http, res, attempts, tag_or_digest, &repo, creds_note).await
    }

    /// `setupRequestAuth`: the first challenge the client handles.
    async fn authorization(
        &self,
        http: &Http,
        challenges: &[Challenge],
        creds: &Credentials,
        path: &str,
    ) -> Result<Option<String>, Attempt> {
        for c in challenges {
            match c.scheme.as_str() {
                "basic" => {
                    use base64::Engine;
                    let pair = format!("{}:{}", creds.username, creds.password);
                    return Ok(Some(format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD.encode(pair)
                    )));
                }
                "bearer" => {
                    let token = self.bearer_token(http, c, creds, path).await?;
                    return Ok(Some(format!("Bearer {token}")));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// `getBearerToken` / `getBearerTokenOAuth2`, cached per realm, service,
    /// scope and account.
    async fn bearer_token(
        &self,
        http: &Http,
        challenge: &Challenge,
        creds: &Credentials,
        path: &str,
    ) -> Result<String, Attempt> {
        let Some(realm) = challenge.parameters.get("realm") else {
            return Err(Attempt::failed(
                Outcome::Unauthorized,
                Some(401),
                "missing realm in bearer auth challenge".to_string(),
            ));
        };
        let service = challenge
            .parameters
            .get("service")
            .cloned()
            .unwrap_or_default();
        let scope = format!("repository:{path}:pull");
        let key = (
            realm.clone(),
            service.clone(),
            scope.clone(),
            creds.username.clone(),
        );
        let cell = {
            let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(tokens.entry(key).or_default())
        };
        // Held while fetching: probes that need the same token wait for this one.
        let mut slot = cell.lock().await;
        if let Some(t) = slot.as_ref() {
            if std::time::SystemTime::now() <= t.expires {
                return Ok(t.token.clone());
            }
        }
        let fresh = self
            .fetch_bearer_token(http, realm, &service, &scope, creds)
            .await?;
        let token = fresh.token.clone();
        *slot = Some(fresh);
        Ok(token)
    }

    /// One token request (`getBearerToken` / `getBearerTokenOAuth2`).
    async fn fetch_bearer_token(
        &self,
        http: &Http,
        realm: &str,
        service: &str,
        scope: &str,
        creds: &Credentials,
    ) -> Result<BearerToken, Attempt> {
        let mut params: Vec<(&str, &str)> = Vec::new();
        let req = if !creds.identity_token.is_empty() {
            if !service.is_empty() {
                params.push(("service", service));
            }
            params.push(("scope", scope));
            params.push(("grant_type", "refresh_token"));
            params.push(("refresh_token", &creds.identity_token));
            params.push(("client_id", "containers/image"));
            let body = form_encode(&params);
            http.client
                .post(realm)
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(body)
        } else {
            if !creds.username.is_empty() {
                params.push(("account", &creds.username));
            }
            if !service.is_empty() {
                params.push(("service", service));
            }
            params.push(("scope", scope));
            let sep = if realm.contains('?') { '&' } else { '?' };
            let url = format!("{realm}{sep}{}", form_encode(&params));
            let mut req = http.client.get(url);
            if !creds.username.is_empty() && !creds.password.is_empty() {
                req = req.basic_auth(&creds.username, Some(&creds.password));
            }
            req
        };
        let res = send_once(http, req).await.map_err(|e| {
            let (outcome, detail) = failure(&e, self.timeout);
            Attempt::failed(
                outcome,
                None,
                format!("requesting a bearer token: {detail}"),
            )
        })?;
        let status = res.status();
        if status != StatusCode::OK {
            let context = match creds.identity_token.is_empty() {
                true => "Requesting bearer token",
                false => "Trying to obtain access token",
            };
            let headers = res.headers().clone();
            let body = read_error_body(http, res).await.unwrap_or_default();
            let (outcome, what) = token_outcome(status, &body, &headers, context);
            return Err(Attempt::failed(outcome, Some(status.as_u16()), what));
        }
        let body = read_limited(http, res, MAX_TOKEN_BYTES)
            .await
            .map_err(|e| match e {
                BodyError::NoAnswer => Attempt::failed(
                    Outcome::TimedOut,
                    Some(status.as_u16()),
                    format!("reading the bearer token: {}", no_answer(self.timeout)),
                ),
                BodyError::Failed(e) => Attempt::failed(
                    Outcome::Unauthorized,
                    Some(status.as_u16()),
                    format!("reading the bearer token: {e}"),
                ),
            })?;
        let parsed: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
            Attempt::failed(
                Outcome::Unauthorized,
                Some(status.as_u16()),
                format!("decoding the bearer token: {e}"),
            )
        })?;
        Ok(bearer_token(&parsed, std::time::SystemTime::now()))
    }
}

/// A blob being received ([`Prober::open_blob`]).
pub struct Blob {
    res: reqwest::Response,
    limit: AnswerLimit,
    /// When the answer's headers came.
    started: tokio::time::Instant,
    received: u64,
}

/// The slowest a blob may keep coming once the probe's limit has passed:
/// the whole body must arrive within the limit plus one second per this
/// many bytes received (a layer sent a byte at a time never ends otherwise).
pub const BLOB_MIN_RATE: u64 = 64 << 10;
/// The most of a blob that is read (a release payload's last layer is tens
/// of megabytes).
pub const BLOB_MAX_BYTES: u64 = 1 << 30;

impl Blob {
    /// The next piece of the body, `None` at its end; each piece must come
    /// within the probe's limit, and the whole body at [`BLOB_MIN_RATE`]
    /// past it, up to [`BLOB_MAX_BYTES`].
    pub async fn chunk(&mut self) -> Result<Option<Vec<u8>>, String> {
        let limit = self.limit.limit;
        let allowed = limit + Duration::from_secs_f64(self.received as f64 / BLOB_MIN_RATE as f64);
        let piece =
            tokio::time::timeout_at(self.started + allowed, self.limit.wait(self.res.chunk()));
        match piece.await {
            Err(_) => Err(format!(
                "{} bytes in {}s: slower than {} KiB/s once --probe-timeout ({}s) had passed, \
                 so the read was given up",
                self.received,
                allowed.as_secs(),
                BLOB_MIN_RATE >> 10,
                limit.as_secs()
            )),
            Ok(Some(Ok(Some(c)))) => {
                self.received += c.len() as u64;
                if self.received > BLOB_MAX_BYTES {
                    return Err(format!(
                        "larger than {} MiB, which this tool does not read",
                        BLOB_MAX_BYTES >> 20
                    ));
                }
                Ok(Some(c.to_vec()))
            }
            Ok(Some(Ok(None))) => Ok(None),
            Ok(Some(Err(e))) => Err(chain(&e)),
            Ok(None) => Err(no_answer(limit)),
        }
    }
}

/// What a manifest answer (after `attempts` requests) makes of the source.
async fn manifest_answer(
    http: &Http,
    res: reqwest::Response,
    attempts: u32,
    tag_or_digest: &str,
    repo: &str,
    creds_note: &str,
) -> Attempt {
    let status = res.status();
    if status != StatusCode::OK {
        let headers = res.headers().clone();
        let body = match read_error_body(http, res).await {
            Err(BodyError::NoAnswer) => {
                return body_timed_out(http, status, &format!("manifest {tag_or_digest}"))
            }
            r => r.unwrap_or_default(),
        };
        let (outcome, what) = status_outcome(status, &body, &headers);
        // containers/image's words (docker/docker_client.go fetchManifest),
        // then the answer as the probe saw it.
        let words = format!("reading manifest {tag_or_digest} in {repo}: {what}");
        return Attempt::failed_in_words(
            outcome,
            Some(status.as_u16()),
            format!("{words}{} ({creds_note})", throttled(status, attempts)),
            words,
        );
    }
    let content_type = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    match read_limited(http, res, MAX_MANIFEST_BYTES).await {
        Ok(body) => Attempt {
            outcome: Outcome::Served,
            status: Some(200),
            detail: format!(
                "manifest {tag_or_digest} served{} ({}, {creds_note})",
                retried(attempts),
                if content_type.is_empty() {
                    "no Content-Type"
                } else {
                    &content_type
                }
            ),
            manifest: Some(body),
            anonymous: false,
            words: None,
            plain_http: false,
        },
        Err(BodyError::NoAnswer) => {
            body_timed_out(http, status, &format!("reading manifest {tag_or_digest}"))
        }
        Err(BodyError::Failed(e)) => Attempt::failed(
            Outcome::Unreachable,
            Some(200),
            format!("reading manifest {tag_or_digest}: {e}"),
        ),
    }
}

/// The attempt when the body of an answer (`what`) did not come in time.
fn body_timed_out(http: &Http, status: StatusCode, what: &str) -> Attempt {
    Attempt::failed(
        Outcome::TimedOut,
        Some(status.as_u16()),
        format!("{what}: the body: {}", no_answer(http.limit.limit)),
    )
}

/// The token of a token endpoint's answer and when it expires
/// (`newBearerTokenFromHTTPResponseBody`).
fn bearer_token(parsed: &serde_json::Value, now: std::time::SystemTime) -> BearerToken {
    let token = parsed
        .get("token")
        .and_then(|v| v.as_str())
        .filter(|t| !t.is_empty())
        .or_else(|| parsed.get("access_token").and_then(|v| v.as_str()))
        .unwrap_or("")
        .to_string();
    let expires_in = parsed
        .get("expires_in")
        .and_then(|v| v.as_i64())
        .unwrap_or(0)
        .max(MINIMUM_TOKEN_LIFETIME as i64) as u64;
    let issued = parsed
        .get("issued_at")
        .and_then(|v| v.as_str())
        .and_then(|t| t.parse::<k8s_openapi::jiff::Timestamp>().ok())
        .map(std::time::SystemTime::from)
        .unwrap_or(now);
    BearerToken {
        token,
        expires: issued + Duration::from_secs(expires_in),
    }
}

/// `makeRequestToResolvedURL`: sends the request built by `make`, again
/// after a 429 (at most [`BACKOFF_ATTEMPTS`] in all); the answer and how
/// many attempts it took.
async fn send_retrying(
    http: &Http,
    make: impl Fn() -> reqwest::RequestBuilder,
) -> Result<(reqwest::Response, u32), Failed> {
    let mut delay = BACKOFF_INITIAL;
    let mut attempts = 0;
    loop {
        let res = send_once(http, make()).await?;
        attempts += 1;
        if res.status() != StatusCode::TOO_MANY_REQUESTS || attempts == BACKOFF_ATTEMPTS {
            return Ok((res, attempts));
        }
        let retry_after = res
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        drop(res);
        delay = retry_delay(retry_after.as_deref(), delay, std::time::SystemTime::now())
            .min(BACKOFF_MAX);
        tokio::time::sleep(delay).await;
        delay *= 2;
    }
}

/// Sends one request and waits for its answer within the endpoint's
/// limit (each hop's), following redirects as Go's client does
/// ([`super::redirect`]).
async fn send_once(http: &Http, req: reqwest::RequestBuilder) -> Result<reqwest::Response, Failed> {
    let req = req.build().map_err(Failed::Transport)?;
    let body = req.body().and_then(|b| b.as_bytes()).map(<[u8]>::to_vec);
    let mut chain = Chain::new(
        req.method().clone(),
        req.url().clone(),
        req.headers().clone(),
        body,
    );
    let mut req = req;
    loop {
        let url = req.url().clone();
        let res = match http.limit.wait(http.client.execute(req)).await {
            Some(Ok(res)) => res,
            Some(Err(e)) => return Err(Failed::Transport(e)),
            None => return Err(Failed::NoAnswer),
        };
        let Some(hop) = chain
            .next(&url, res.status(), res.headers())
            .map_err(Failed::Redirect)?
        else {
            return Ok(res);
        };
        drop(res);
        let mut next = reqwest::Request::new(hop.method, hop.url);
        *next.headers_mut() = hop.headers;
        *next.body_mut() = hop.body.map(reqwest::Body::from);
        req = next;
    }
}

/// `parseRetryAfter`: seconds, or an HTTP date still to come; else `fallback`.
fn retry_delay(header: Option<&str>, fallback: Duration, now: std::time::SystemTime) -> Duration {
    let Some(value) = header.map(str::trim).filter(|v| !v.is_empty()) else {
        return fallback;
    };
    if let Ok(seconds) = value.parse::<i64>() {
        return Duration::from_secs(seconds.max(0) as u64);
    }
    match httpdate::parse_http_date(value) {
        Ok(at) => at
            .duration_since(now)
            .ok()
            .filter(|d| !d.is_zero())
            .unwrap_or(fallback),
        Err(_) => fallback,
    }
}

/// For the detail of a failed answer: a 429 that stayed one after every retry.
fn throttled(status: StatusCode, attempts: u32) -> String {
    if status == StatusCode::TOO_MANY_REQUESTS {
        format!(" after {attempts} attempts (containers/image gives up there)")
    } else {
        retried(attempts)
    }
}

/// For the detail of an answer: the 429s before it.
fn retried(attempts: u32) -> String {
    match attempts {
        0 | 1 => String::new(),
        n => format!(" after {} HTTP 429 answer(s)", n - 1),
    }
}

async fn ping_once(
    http: &Http,
    scheme: &str,
    host: &str,
) -> Result<(String, Vec<Challenge>), Attempt> {
    let url = format!("{scheme}://{host}/v2/");
    let (res, attempts) = match send_retrying(http, || http.client.get(&url)).await {
        Ok(sent) => sent,
        Err(e) => {
            let (outcome, mut detail) = failure(&e, http.limit.limit);
            let not_tls = matches!(&e, Failed::Transport(t) if answer_is_not_tls(t));
            let plain_http = scheme == "https" && not_tls && answers_plain_http(http, host).await;
            if plain_http {
                detail = plain_http_detail(host);
            }
            // containers/image's words (docker/docker_client.go
            // detectPropertiesHelper) around Go's `Get "URL": ...` for a
            // request that got no answer.
            let step = match &e {
                Failed::Transport(_) => format!("Get \"{url}\": "),
                Failed::NoAnswer => format!("{url}: "),
                // Go's words already name the request.
                Failed::Redirect(_) => String::new(),
            };
            let said = format!("pinging container registry {host}: {step}");
            let detail = format!("{said}{detail}");
            return Err(if plain_http {
                let words = format!("{said}{GO_PLAIN_HTTP}");
                Attempt {
                    plain_http: true,
                    ..Attempt::failed_in_words(outcome, None, detail, words)
                }
            } else {
                Attempt::failed(outcome, None, detail)
            });
        }
    };
    let status = res.status();
    if status != StatusCode::OK && status != StatusCode::UNAUTHORIZED {
        let headers = res.headers().clone();
        let body = match read_error_body(http, res).await {
            Err(BodyError::NoAnswer) => {
                return Err(body_timed_out(
                    http,
                    status,
                    &format!("pinging container registry {host}: {url}"),
                ))
            }
            r => r.unwrap_or_default(),
        };
        let (outcome, what) = endpoint_outcome(status, &body, &headers);
        // containers/image's words (docker/docker_client.go detectPropertiesHelper).
        let words = format!("pinging container registry {host}: {what}");
        return Err(Attempt::failed_in_words(
            outcome,
            Some(status.as_u16()),
            format!("{words}{}", throttled(status, attempts)),
            words,
        ));
    }
    let challenges = res
        .headers()
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(challenge::parse)
        .collect();
    Ok((scheme.to_string(), challenges))
}

/// The outcome of a non-200 answer to a manifest or blob request, and
/// what containers/image says of it ([`registry_error::words`]).
fn status_outcome(status: StatusCode, body: &[u8], headers: &HeaderMap) -> (Outcome, String) {
    let challenges: Vec<Challenge> = headers
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(challenge::parse)
        .collect();
    let bearer: Vec<BearerError<'_>> = challenges
        .iter()
        .filter(|c| c.scheme == "bearer")
        .map(|c| BearerError {
            error: c.parameters.get("error").map_or("", String::as_str),
            description: c
                .parameters
                .get("error_description")
                .map_or("", String::as_str),
        })
        .collect();
    let reason = status.canonical_reason().unwrap_or_default();
    let what = registry_error::words(status.as_u16(), reason, body, &bearer);
    let outcome = match status.as_u16() {
        401 | 403 => Outcome::Unauthorized,
        404 => Outcome::NotFound,
        _ => Outcome::Unreachable,
    };
    (outcome, what)
}

/// [`status_outcome`] for the registry endpoint itself (`/v2/`, the token
/// realm) rather than an image: a 404 there means no registry answers at
/// that address, so the source is unreachable, not missing the image.
fn endpoint_outcome(status: StatusCode, body: &[u8], headers: &HeaderMap) -> (Outcome, String) {
    let (outcome, what) = status_outcome(status, body, headers);
    if status == StatusCode::NOT_FOUND {
        (Outcome::Unreachable, what)
    } else {
        (outcome, what)
    }
}

/// A token answer other than 200, in containers/image's words
/// (`httpResponseToError` with `context`).
fn token_outcome(
    status: StatusCode,
    body: &[u8],
    headers: &HeaderMap,
    context: &str,
) -> (Outcome, String) {
    let (outcome, what) = endpoint_outcome(status, body, headers);
    let said = match status.as_u16() {
        429 => "too many requests to registry".to_string(),
        401 => format!("unable to retrieve auth token: invalid username/password: {what}"),
        code => format!(
            "{context}: received unexpected HTTP status: {code} {}",
            status.canonical_reason().unwrap_or_default()
        ),
    };
    (outcome, said)
}

/// Reads a body of at most `limit` bytes, within the endpoint's wait.
async fn read_limited(
    http: &Http,
    res: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    match read_up_to(http, res, limit).await? {
        (body, false) => Ok(body),
        // containers/image's words (`iolimits.ReadAtMost`).
        (_, true) => Err(BodyError::Failed(format!(
            "exceeded maximum allowed size of {limit} bytes"
        ))),
    }
}

/// The most of an error answer's body that is read.
const ERROR_BODY_LIMIT: usize = 64 << 10;

/// The first [`ERROR_BODY_LIMIT`] bytes of an error answer's body, the
/// rest left unread.
async fn read_error_body(http: &Http, res: reqwest::Response) -> Result<Vec<u8>, BodyError> {
    Ok(read_up_to(http, res, ERROR_BODY_LIMIT).await?.0)
}

/// The first `limit` bytes of a body, and whether there was more (not
/// read), within the endpoint's wait.
async fn read_up_to(
    http: &Http,
    mut res: reqwest::Response,
    limit: usize,
) -> Result<(Vec<u8>, bool), BodyError> {
    let read = async {
        let mut out = Vec::new();
        while let Some(chunk) = res
            .chunk()
            .await
            .map_err(|e| BodyError::Failed(chain(&e)))?
        {
            let room = limit - out.len();
            out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if chunk.len() > room {
                return Ok((out, true));
            }
        }
        Ok((out, false))
    };
    http.limit
        .wait(read)
        .await
        .unwrap_or(Err(BodyError::NoAnswer))
}

/// What is said of an answer that did not come within `limit`.
fn no_answer(limit: Duration) -> String {
    format!(
        "no answer within {}s (containers/image sets no response timeout: CRI-O would keep waiting)",
        limit.as_secs()
    )
}

/// The outcome of an exchange that gave no answer: [`Outcome::TimedOut`]
/// when none came in time; else [`classify`].
fn failure(f: &Failed, limit: Duration) -> (Outcome, String) {
    match f {
        Failed::NoAnswer => (Outcome::TimedOut, no_answer(limit)),
        Failed::Transport(e) => classify(e),
        Failed::Redirect(e) => (Outcome::Unreachable, e.clone()),
    }
}

/// A transport error: every one falls through to the next source, as
/// `newImageSource` goes on after any error; TLS failures are told apart.
fn classify(e: &reqwest::Error) -> (Outcome, String) {
    if let Some(t) = rustls_error(e) {
        return (Outcome::TlsError, crate::tls::describe(t));
    }
    if e.is_connect() && e.is_timeout() {
        return (
            Outcome::Unreachable,
            format!(
                "no connection within {}s: containers/image gives up a connection then and tries the next source",
                CONNECT_LIMIT.as_secs()
            ),
        );
    }
    (Outcome::Unreachable, chain(e))
}

/// The TLS error in `e`'s causes, if any.
fn rustls_error(e: &reqwest::Error) -> Option<&rustls::Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(t) = s.downcast_ref::<rustls::Error>() {
            return Some(t);
        }
        // An io::Error hides the error it wraps from source(): go through get_ref().
        source = match s
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => s.source(),
        };
    }
    None
}

/// Whether a TLS connection failed because the answer was not TLS at all
/// (rustls: a record of unknown content type), as a plain-HTTP server's is.
fn answer_is_not_tls(e: &reqwest::Error) -> bool {
    matches!(
        rustls_error(e),
        Some(rustls::Error::InvalidMessage(
            rustls::InvalidMessage::InvalidContentType
        ))
    )
}

/// Whether `host` answers a plain-HTTP `GET /v2/` (without credentials):
/// Go's HTTP client tells this case apart by the answer's first bytes
/// (`HTTP/`); rustls only says the record was not TLS, so it is asked.
async fn answers_plain_http(http: &Http, host: &str) -> bool {
    let url = format!("http://{host}/v2/");
    matches!(
        http.limit.wait(http.client.get(&url).send()).await,
        Some(Ok(_))
    )
}

/// Go's `net/http` error for a plain-HTTP answer to an HTTPS request.
const GO_PLAIN_HTTP: &str = "http: server gave HTTP response to HTTPS client";

/// What containers/image (Go's `net/http`) says of a plain-HTTP answer to an
/// HTTPS request, then the cause and the fix.
fn plain_http_detail(host: &str) -> String {
    format!(
        "{GO_PLAIN_HTTP}: {host} serves plain HTTP, and CRI-O \
         uses HTTP only for a registry marked insecure; fix: on a cluster, add {host} to the Image \
         config's spec.registrySources.insecureRegistries (the MCO writes `insecure = true` for it \
         in registries.conf), or serve TLS there"
    )
}

/// An error and its causes on one line, without the URL's query.
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut s = e.source();
    while let Some(c) = s {
        let t = c.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        s = c.source();
    }
    parts.join(": ")
}

/// `application/x-www-form-urlencoded`, as Go's `url.Values.Encode` (keys in order given).
fn form_encode(params: &[(&str, &str)]) -> String {
    params
        .iter()
        .map(|(k, v)| format!("{}={}", escape(k), escape(v)))
        .collect::<Vec<_>>()
        .join("&")
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_matches_go() {
        assert_eq!(
            form_encode(&[("scope", "repository:ns/app:pull"), ("service", "a b")]),
            "scope=repository%3Ans%2Fapp%3Apull&service=a+b"
        );
    }

    #[test]
    fn docker_io_is_contacted_at_registry_1() {
        assert_eq!(endpoint_host("docker.io"), "registry-1.docker.io");
        assert_eq!(endpoint_host("quay.io:443"), "quay.io:443");
    }

    // docker_client.go parseRetryAfter / TestParseRetryAfter: seconds, an
    // HTTP date in the future, anything else falls back.
    #[test]
    fn retry_after_as_containers_image_reads_it() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").expect("date");
        let fallback = Duration::from_secs(2);
        assert_eq!(retry_delay(None, fallback, now), fallback);
        assert_eq!(
            retry_delay(Some("3"), fallback, now),
            Duration::from_secs(3)
        );
        assert_eq!(retry_delay(Some("0"), fallback, now), Duration::ZERO);
        assert_eq!(
            retry_delay(Some("Sun, 06 Nov 1994 08:49:47 GMT"), fallback, now),
            Duration::from_secs(10)
        );
        assert_eq!(
            retry_delay(Some("Sun, 06 Nov 1994 08:49:30 GMT"), fallback, now),
            fallback,
            "a date in the past is ignored"
        );
        assert_eq!(retry_delay(Some("soon"), fallback, now), fallback);
    }

    // newBearerTokenFromHTTPResponseBody: expires_in at least 60s, from
    // issued_at when given, else from now; access_token when token is empty.
    #[test]
    fn bearer_token_lifetime() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let t = bearer_token(&serde_json::json!({"token": "a", "expires_in": 300}), now);
        assert_eq!(t.token, "a");
        assert_eq!(t.expires, now + Duration::from_secs(300));
        let t = bearer_token(
            &serde_json::json!({"access_token": "b", "expires_in": 5}),
            now,
        );
        assert_eq!(t.token, "b");
        assert_eq!(t.expires, now + Duration::from_secs(60));
        let t = bearer_token(
            &serde_json::json!({"token": "c", "expires_in": 300, "issued_at": "2001-09-09T01:46:40Z"}),
            now + Duration::from_secs(3600),
        );
        assert_eq!(t.expires, now + Duration::from_secs(300));
    }

    #[test]
    fn statuses_map_to_outcomes() {
        let none = HeaderMap::new();
        let body = br#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"x"}]}"#;
        let (o, d) = status_outcome(StatusCode::NOT_FOUND, body, &none);
        assert_eq!(o, Outcome::NotFound);
        assert_eq!(d, "manifest unknown: x");
        assert_eq!(
            status_outcome(StatusCode::FORBIDDEN, b"", &none).0,
            Outcome::Unauthorized
        );
        let (o, d) = status_outcome(StatusCode::INTERNAL_SERVER_ERROR, b"", &none);
        assert_eq!(o, Outcome::Unreachable);
        assert_eq!(
            d,
            "received unexpected HTTP status: 500 Internal Server Error"
        );
        let mut scope = HeaderMap::new();
        scope.insert(
            WWW_AUTHENTICATE,
            "Bearer realm=\"r\",error=\"insufficient_scope\""
                .parse()
                .unwrap(),
        );
        let (o, d) = status_outcome(StatusCode::UNAUTHORIZED, b"", &scope);
        assert_eq!(o, Outcome::Unauthorized);
        assert_eq!(d, "requested access to the resource is denied");
    }
}
