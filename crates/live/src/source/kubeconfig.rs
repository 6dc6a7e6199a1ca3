//! kubectl's kubeconfig rules (client-go `tools/clientcmd`, `rest` and
//! `transport`): which context, cluster and user a command uses, what makes
//! a kubeconfig unusable, the server URL, the TLS settings, the proxy and
//! the credentials sent with each request.
//!
//! The kube crate reads the kubeconfig files; the choices are made here, as
//! client-go makes them, so the tool connects wherever kubectl connects and
//! fails where it fails, with kubectl's words.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use http::HeaderValue;
use kube::config::{AuthInfo, Cluster, Context, ExecInteractiveMode, Kubeconfig};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;
use serde_json::{json, Value};

use super::exec::ExecPlugin;

/// The key of the cluster extension handed to exec plugins (`config`).
const EXEC_EXTENSION: &str = "client.authentication.k8s.io/exec";

/// What `--context`, `--cluster` and `--user` ask for, and the flags that
/// override the chosen cluster and user.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overrides<'a> {
    pub context: Option<&'a str>,
    pub cluster: Option<&'a str>,
    pub user: Option<&'a str>,
    pub flags: Option<&'a FlagOverrides>,
}

/// kubectl's flags that override fields of the kubeconfig's cluster and
/// user (client-go's `ConfigOverrides.ClusterInfo` and `.AuthInfo`). An
/// empty value overrides nothing, as in client-go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlagOverrides {
    /// `--server/-s`
    pub server: Option<String>,
    /// `--tls-server-name`
    pub tls_server_name: Option<String>,
    /// `--certificate-authority` (a file)
    pub certificate_authority: Option<String>,
    /// `--insecure-skip-tls-verify`
    pub insecure_skip_tls_verify: bool,
    /// `--token`
    pub token: Option<String>,
    /// `--client-certificate` (a file)
    pub client_certificate: Option<String>,
    /// `--client-key` (a file)
    pub client_key: Option<String>,
    /// `--as`
    pub impersonate: Option<String>,
    /// `--as-uid`
    pub impersonate_uid: Option<String>,
    /// `--as-group`, in order
    pub impersonate_groups: Vec<String>,
}

impl FlagOverrides {
    /// Whether any flag is given.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// client-go's `getCluster` after the kubeconfig's cluster: each flag
    /// given replaces its field; `--insecure-skip-tls-verify` or
    /// `--certificate-authority` replaces the whole server verification
    /// (CA file, CA data and insecure), and `--server` or
    /// `--tls-server-name` the TLS server name.
    fn apply_to_cluster(&self, cluster: &mut Cluster) {
        let ca = non_empty(self.certificate_authority.as_deref());
        if let Some(server) = non_empty(self.server.as_deref()) {
            cluster.server = Some(server.to_string());
        }
        if self.insecure_skip_tls_verify || ca.is_some() {
            cluster.insecure_skip_tls_verify = self.insecure_skip_tls_verify.then_some(true);
            cluster.certificate_authority = ca.map(str::to_string);
            cluster.certificate_authority_data = None;
        }
        let server_name = non_empty(self.tls_server_name.as_deref());
        if server_name.is_some() || non_empty(self.server.as_deref()).is_some() {
            cluster.tls_server_name = server_name.map(str::to_string);
        }
    }

    /// client-go's `getAuthInfo` after the kubeconfig's user: each flag
    /// given replaces its field (client-go 1.32 keeps the kubeconfig's
    /// `client-certificate-data` beside `--client-certificate`, which
    /// validation then refuses).
    fn apply_to_user(&self, user: &mut AuthInfo) {
        let set = |field: &mut Option<String>, value: &Option<String>| {
            if let Some(value) = non_empty(value.as_deref()) {
                *field = Some(value.to_string());
            }
        };
        if let Some(token) = non_empty(self.token.as_deref()) {
            user.token = Some(token.to_string().into());
        }
        set(&mut user.client_certificate, &self.client_certificate);
        set(&mut user.client_key, &self.client_key);
        set(&mut user.impersonate, &self.impersonate);
        set(&mut user.impersonate_uid, &self.impersonate_uid);
        if !self.impersonate_groups.is_empty() {
            user.impersonate_groups = Some(self.impersonate_groups.clone());
        }
    }
}

/// Who the requests act as (client-go's `ImpersonationConfig`): sent as
/// `Impersonate-*` headers on every request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Impersonation {
    pub user: String,
    pub uid: Option<String>,
    pub groups: Vec<String>,
    /// `as-user-extra`, by key.
    pub extra: Vec<(String, Vec<String>)>,
}

impl Impersonation {
    /// The user's impersonation, when it names a user (client-go ignores
    /// the rest without one; validation refuses that).
    fn of(user: &AuthInfo) -> Option<Self> {
        let name = non_empty(user.impersonate.as_deref())?;
        let mut extra: Vec<(String, Vec<String>)> = user
            .impersonate_user_extra
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        extra.sort();
        Some(Self {
            user: name.to_string(),
            uid: non_empty(user.impersonate_uid.as_deref()).map(str::to_string),
            groups: user.impersonate_groups.clone().unwrap_or_default(),
            extra,
        })
    }

    /// The headers, as client-go's impersonating round tripper sets them.
    pub fn headers(&self) -> Result<Vec<(http::HeaderName, HeaderValue)>, String> {
        let value = |v: &str| {
            HeaderValue::from_str(v).map_err(|_| {
                format!(
                    "the impersonation value {v:?} holds characters not allowed in an HTTP header"
                )
            })
        };
        let mut out = vec![(
            http::HeaderName::from_static("impersonate-user"),
            value(&self.user)?,
        )];
        if let Some(uid) = &self.uid {
            out.push((
                http::HeaderName::from_static("impersonate-uid"),
                value(uid)?,
            ));
        }
        for group in &self.groups {
            out.push((
                http::HeaderName::from_static("impersonate-group"),
                value(group)?,
            ));
        }
        for (key, values) in &self.extra {
            let name = format!("impersonate-extra-{}", header_key_escape(key));
            let name = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("the impersonation extra key {key:?} is not allowed"))?;
            for v in values {
                out.push((name.clone(), value(v)?));
            }
        }
        Ok(out)
    }
}

/// client-go's `headerKeyEscape`: bytes that are not an HTTP token
/// character are percent-encoded.
fn header_key_escape(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Why a kubeconfig gives no connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// Nothing is configured (no context, no cluster): client-go falls back
    /// to the in-cluster configuration, as the tool does.
    Empty,
    /// kubectl's message.
    Invalid(String),
}

/// Where and how to connect, before any request.
pub struct Target {
    /// The URL requests go to, with its scheme, without a trailing `/`.
    pub url: String,
    /// The context's namespace, `default` when it sets none.
    pub namespace: String,
    /// TLS settings (`None` for plain `http://`).
    pub tls: Option<Tls>,
    /// The proxy every connection goes through, if any.
    pub proxy: Option<String>,
    pub credential: Credential,
    /// `--as`, `--as-group`, `--as-uid` or the user's `as` fields.
    pub impersonation: Option<Impersonation>,
}

/// The server identification of a `https://` cluster.
#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// DER certificates of `certificate-authority(-data)`; `None` trusts the
    /// system's roots.
    pub roots: Option<Vec<Vec<u8>>>,
    /// Where `roots` come from, for verification errors.
    pub roots_origin: Option<String>,
    pub insecure: bool,
    pub server_name: Option<String>,
    /// Client certificate and key (base64 of PEM, or file paths), as the
    /// kubeconfig gives them.
    pub client_certificate_data: Option<String>,
    pub client_certificate: Option<String>,
    pub client_key_data: Option<String>,
    pub client_key: Option<String>,
}

/// The credential put on each request (client-go's round trippers).
#[derive(Clone)]
pub enum Credential {
    None,
    /// `Authorization: Bearer`, from `token` or `tokenFile` (the file wins
    /// while it can be read, re-read at most once a minute).
    Bearer {
        token: String,
        file: Option<Arc<TokenFile>>,
    },
    /// `Authorization: Basic`.
    Basic(String),
    /// An exec credential plugin, run once per process and reused until its
    /// credential expires.
    Exec(Arc<ExecPlugin>),
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::None => "None",
            Self::Bearer { .. } => "Bearer",
            Self::Basic(_) => "Basic",
            Self::Exec(_) => "Exec",
        })
    }
}

/// A `tokenFile`, cached for a minute as client-go's
/// `NewCachedFileTokenSource` does.
#[derive(Debug)]
pub struct TokenFile {
    path: PathBuf,
    cached: Mutex<Option<(String, Instant)>>,
}

const TOKEN_FILE_PERIOD: Duration = Duration::from_secs(60);

/// A token file read as client-go reads one.
pub fn token_file(path: PathBuf) -> Arc<TokenFile> {
    Arc::new(TokenFile::new(path))
}

impl TokenFile {
    fn new(path: PathBuf) -> Self {
        Self {
            path,
            cached: Mutex::new(None),
        }
    }

    /// The file's token, trimmed of surrounding white space.
    fn read(&self) -> Result<String, String> {
        let text = std::fs::read_to_string(&self.path)
            .map_err(|e| format!("failed to read token file \"{}\": {e}", self.path.display()))?;
        let token = text.trim();
        if token.is_empty() {
            return Err(format!(
                "read empty token from file \"{}\"",
                self.path.display()
            ));
        }
        Ok(token.to_string())
    }

    /// The token to send: the cached one while fresh, else the file's; the
    /// last one read when the file has become unreadable; `None` when it
    /// never could be read.
    pub fn token(&self) -> Option<String> {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((token, at)) = cached.as_ref() {
            if at.elapsed() < TOKEN_FILE_PERIOD {
                return Some(token.clone());
            }
        }
        match self.read() {
            Ok(token) => {
                *cached = Some((token.clone(), Instant::now()));
                Some(token)
            }
            Err(_) => cached.as_ref().map(|(t, _)| t.clone()),
        }
    }
}

impl Credential {
    /// The `Authorization` header of the next request (`Ok(None)`: none),
    /// and for an exec plugin the client certificate it returned.
    pub fn header(&self) -> Result<Authorization, String> {
        Ok(match self {
            Self::None => Authorization::default(),
            Self::Bearer { token, file } => {
                let token = file
                    .as_ref()
                    .and_then(|f| f.token())
                    .unwrap_or(token.clone());
                Authorization::bearer(&token)?
            }
            Self::Basic(value) => Authorization {
                value: Some(sensitive(value)?),
                ..Authorization::default()
            },
            Self::Exec(plugin) => {
                let credentials = plugin
                    .credentials()
                    .map_err(|e| format!("getting credentials: {e}"))?;
                let mut auth = match &credentials.token {
                    Some(token) => Authorization::bearer(token)?,
                    None => Authorization::default(),
                };
                auth.identity = credentials
                    .client_certificate_data
                    .clone()
                    .zip(credentials.client_key_data.clone());
                auth.exec = Some(credentials);
                auth
            }
        })
    }

    /// A 401 came back: an exec plugin is run again for the next request
    /// unless its credential was already replaced (client-go's
    /// `maybeRefreshCreds`).
    pub fn unauthorized(&self, auth: &Authorization) {
        if let (Self::Exec(plugin), Some(used)) = (self, &auth.exec) {
            plugin.forget(used);
        }
    }
}

/// What one request carries.
#[derive(Debug, Default, Clone)]
pub struct Authorization {
    pub value: Option<HeaderValue>,
    /// PEM certificate and key an exec plugin returned.
    pub identity: Option<(String, String)>,
    exec: Option<Arc<super::exec::Credentials>>,
}

impl Authorization {
    fn bearer(token: &str) -> Result<Self, String> {
        Ok(Self {
            value: Some(sensitive(&format!("Bearer {token}"))?),
            ..Self::default()
        })
    }
}

fn sensitive(value: &str) -> Result<HeaderValue, String> {
    let mut header = HeaderValue::from_str(value)
        .map_err(|_| "the credential holds characters not allowed in an HTTP header".to_string())?;
    header.set_sensitive(true);
    Ok(header)
}

fn find<'a, T>(items: &'a [T], name: &str, key: impl Fn(&T) -> &str) -> Option<&'a T> {
    items.iter().find(|item| key(item) == name)
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !v.is_empty())
}

/// Picks the context, cluster and user as client-go's `DirectClientConfig`
/// does, refuses what `ConfirmUsable` and the transport refuse, and works
/// out the URL, TLS, proxy and credential.
pub fn resolve(config: &Kubeconfig, overrides: Overrides<'_>) -> Result<Target, Unusable> {
    let selected = select(config, overrides)?;
    confirm_usable(&selected)?;
    target(selected)
}

/// The context, user and cluster a kubeconfig and its overrides pick,
/// with the flags applied; each empty when not found.
struct Selected {
    context_name: String,
    context: Option<Context>,
    user_name: String,
    user: AuthInfo,
    cluster_name: String,
    cluster: Cluster,
}

/// client-go's `getContext`, `getAuthInfo` and `getCluster`: the names the
/// overrides give, else the current context's; a name given on the
/// command line must exist.
fn select(config: &Kubeconfig, overrides: Overrides<'_>) -> Result<Selected, Unusable> {
    let context_override = non_empty(overrides.context);
    let context_name = context_override
        .or(non_empty(config.current_context.as_deref()))
        .unwrap_or_default();
    let context: Option<Context> = find(&config.contexts, context_name, |c| &c.name)
        .map(|c| c.context.clone().unwrap_or_default());

    // getAuthInfo, getContext, getCluster: a name given on the command
    // line must exist.
    let user_override = non_empty(overrides.user);
    let user_name = user_override
        .or(context.as_ref().and_then(|c| c.user.as_deref()))
        .unwrap_or_default()
        .to_string();
    let user = find(&config.auth_infos, &user_name, |u| &u.name)
        .map(|u| u.auth_info.clone().unwrap_or_default());
    if let (None, Some(name)) = (&user, user_override) {
        return Err(Unusable::Invalid(format!(
            "auth info \"{name}\" does not exist"
        )));
    }
    if let (None, Some(name)) = (&context, context_override) {
        return Err(Unusable::Invalid(format!(
            "context \"{name}\" does not exist"
        )));
    }
    let cluster_override = non_empty(overrides.cluster);
    let cluster_name = cluster_override
        .or(context.as_ref().map(|c| c.cluster.as_str()))
        .unwrap_or_default()
        .to_string();
    let cluster = find(&config.clusters, &cluster_name, |c| &c.name)
        .map(|c| c.cluster.clone().unwrap_or_default());
    if let (None, Some(name)) = (&cluster, cluster_override) {
        return Err(Unusable::Invalid(format!(
            "cluster \"{name}\" does not exist"
        )));
    }
    let mut user = user.unwrap_or_default();
    let mut cluster = cluster.unwrap_or_default();
    if let Some(flags) = overrides.flags {
        flags.apply_to_cluster(&mut cluster);
        flags.apply_to_user(&mut user);
    }
    Ok(Selected {
        context_name: context_name.to_string(),
        context,
        user_name,
        user,
        cluster_name,
        cluster,
    })
}

/// clientcmd's `ConfirmUsable`: every problem of the selection in one
/// error, or [`Unusable::Empty`] when there is no configuration at all.
fn confirm_usable(selected: &Selected) -> Result<(), Unusable> {
    let mut errors = Vec::new();
    if !selected.context_name.is_empty() && selected.context.is_none() {
        errors.push(format!(
            "context was not found for specified context: {}",
            selected.context_name
        ));
    }
    errors.extend(validate_auth_info(&selected.user_name, &selected.user));
    match validate_cluster(&selected.cluster_name, &selected.cluster) {
        Some(cluster_errors) => errors.extend(cluster_errors),
        // ErrEmptyCluster alone is client-go's "no configuration".
        None if errors.is_empty() => return Err(Unusable::Empty),
        None => errors.push("cluster has no server defined".to_string()),
    }
    if !errors.is_empty() {
        return Err(Unusable::Invalid(format!(
            "invalid configuration: {}",
            aggregate(&errors)
        )));
    }
    Ok(())
}

/// Where and how to connect for a usable selection: the URL, namespace
/// and proxy, and for a https:// server the TLS settings and credential.
fn target(selected: Selected) -> Result<Target, Unusable> {
    let Selected {
        context,
        user,
        cluster,
        ..
    } = selected;
    let server = cluster.server.clone().unwrap_or_default();
    let (url, scheme) = server_url(&server).map_err(Unusable::Invalid)?;
    let namespace = context
        .as_ref()
        .and_then(|c| non_empty(c.namespace.as_deref()))
        .unwrap_or("default")
        .to_string();
    let proxy = match non_empty(cluster.proxy_url.as_deref()) {
        Some(proxy) => Some(proxy.to_string()),
        None => environment_proxy(&url, &scheme),
    };
    // Only a https:// server gets the user's credentials and the TLS
    // settings: client-go reads "the auth information" only "if we are
    // secure" (IsConfigTransportTLS), so a token never crosses plain http.
    // Impersonation is set before that check: it is sent over http too.
    let impersonation = Impersonation::of(&user);
    if scheme != "https" {
        return Ok(Target {
            url,
            namespace,
            tls: None,
            proxy,
            credential: Credential::None,
            impersonation,
        });
    }
    let tls = tls(&cluster, &user).map_err(Unusable::Invalid)?;
    let has_cert = tls.client_certificate_data.is_some() || tls.client_certificate.is_some();
    let credential = credential(&user, &cluster, &server, has_cert).map_err(Unusable::Invalid)?;
    Ok(Target {
        url,
        namespace,
        tls: Some(tls),
        proxy,
        credential,
        impersonation,
    })
}

/// `utilerrors.NewAggregate(errs).Error()`: one message alone, several in
/// brackets, each once.
fn aggregate(errors: &[String]) -> String {
    if errors.len() == 1 {
        return errors[0].clone();
    }
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    if seen.len() == 1 {
        return seen[0].to_string();
    }
    format!("[{}]", seen.join(", "))
}

/// clientcmd's `validateClusterInfo`; `None` for an empty cluster
/// (`ErrEmptyCluster`).
fn validate_cluster(name: &str, cluster: &Cluster) -> Option<Vec<String>> {
    let empty = cluster.server.is_none()
        && cluster.certificate_authority.is_none()
        && cluster.certificate_authority_data.is_none()
        && cluster.insecure_skip_tls_verify.is_none()
        && cluster.proxy_url.is_none()
        && cluster.tls_server_name.is_none()
        && cluster.disable_compression.is_none()
        && cluster.extensions.is_none();
    if empty {
        return None;
    }
    let mut errors = Vec::new();
    if non_empty(cluster.server.as_deref()).is_none() {
        errors.push(if name.is_empty() {
            "default cluster has no server defined".to_string()
        } else {
            format!("no server found for cluster \"{name}\"")
        });
    }
    if let Some(proxy) = non_empty(cluster.proxy_url.as_deref()) {
        if let Err(e) = proxy_scheme(proxy) {
            errors.push(format!(
                "invalid 'proxy-url' \"{proxy}\" for cluster \"{name}\": {e}"
            ));
        }
    }
    let ca_file = non_empty(cluster.certificate_authority.as_deref());
    if ca_file.is_some() && non_empty(cluster.certificate_authority_data.as_deref()).is_some() {
        errors.push(format!("certificate-authority-data and certificate-authority are both specified for {name}. certificate-authority-data will override."));
    }
    if let Some(file) = ca_file {
        if let Err(e) = std::fs::File::open(file) {
            errors.push(format!(
                "unable to read certificate-authority {file} for {name} due to {}",
                go_open_error(file, &e)
            ));
        }
    }
    Some(errors)
}

/// Go's `*PathError` text: `open PATH: no such file or directory`.
fn go_open_error(path: &str, e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text
        .split(" (os error")
        .next()
        .unwrap_or(&text)
        .to_lowercase();
    format!("open {path}: {text}")
}

/// The `interactiveMode` client-go uses: v1beta1 defaults to `IfAvailable`,
/// v1 must say.
fn interactive_mode(user: &AuthInfo) -> Option<ExecInteractiveMode> {
    let exec = user.exec.as_ref()?;
    exec.interactive_mode.clone().or_else(|| {
        matches!(
            exec.api_version.as_deref(),
            Some("client.authentication.k8s.io/v1beta1" | "client.authentication.k8s.io/v1alpha1")
        )
        .then_some(ExecInteractiveMode::IfAvailable)
    })
}

/// clientcmd's `validateAuthInfo`.
fn validate_auth_info(name: &str, user: &AuthInfo) -> Vec<String> {
    let mut errors = validate_client_cert(name, user);
    if let Some(exec) = &user.exec {
        errors.extend(validate_exec(name, user, exec));
    }
    let mut methods = Vec::new();
    if user.token.is_some() {
        methods.push("token");
    }
    if non_empty(user.username.as_deref()).is_some() || user.password.is_some() {
        methods.push("basicAuth");
    }
    if methods.len() > 1 {
        errors.push(format!(
            "more than one authentication method found for {name}; found [{}], only one is allowed",
            methods.join(" ")
        ));
    }
    let asks_more = non_empty(user.impersonate_uid.as_deref()).is_some()
        || user
            .impersonate_groups
            .as_ref()
            .is_some_and(|g| !g.is_empty())
        || user
            .impersonate_user_extra
            .as_ref()
            .is_some_and(|e| !e.is_empty());
    if asks_more && non_empty(user.impersonate.as_deref()).is_none() {
        errors.push(format!(
            "requesting uid, groups or user-extra for {name} without impersonating a user"
        ));
    }
    errors
}

/// The client-certificate part of `validateAuthInfo`: when a certificate
/// is given, a key must be too, each once, and the files must open.
fn validate_client_cert(name: &str, user: &AuthInfo) -> Vec<String> {
    let mut errors = Vec::new();
    let cert_file = non_empty(user.client_certificate.as_deref());
    let cert_data = non_empty(user.client_certificate_data.as_deref());
    let key_file = non_empty(user.client_key.as_deref());
    let key_data = user.client_key_data.is_some();
    if cert_file.is_none() && cert_data.is_none() {
        return errors;
    }
    if cert_file.is_some() && cert_data.is_some() {
        errors.push(format!("client-cert-data and client-cert are both specified for {name}. client-cert-data will override."));
    }
    if key_file.is_some() && key_data {
        errors.push(format!("client-key-data and client-key are both specified for {name}; client-key-data will override"));
    }
    if key_file.is_none() && !key_data {
        errors.push(format!("client-key-data or client-key must be specified for {name} to use the clientCert authentication method."));
    }
    for (what, file) in [("client-cert", cert_file), ("client-key", key_file)] {
        if let Some(file) = file {
            if let Err(e) = std::fs::File::open(file) {
                errors.push(format!(
                    "unable to read {what} {file} for {name} due to {}",
                    go_open_error(file, &e)
                ));
            }
        }
    }
    errors
}

/// The exec-plugin part of `validateAuthInfo` (`validateExecConfig` with
/// the auth-provider check).
fn validate_exec(name: &str, user: &AuthInfo, exec: &kube::config::ExecConfig) -> Vec<String> {
    let mut errors = Vec::new();
    if user.auth_provider.is_some() {
        errors.push(format!(
            "authProvider cannot be provided in combination with an exec plugin for {name}"
        ));
    }
    if non_empty(exec.command.as_deref()).is_none() {
        errors.push(format!(
            "command must be specified for {name} to use exec authentication plugin"
        ));
    }
    if non_empty(exec.api_version.as_deref()).is_none() {
        errors.push(format!(
            "apiVersion must be specified for {name} to use exec authentication plugin"
        ));
    }
    for env in exec.env.iter().flatten() {
        if env.get("name").is_none_or(|n| n.is_empty()) {
            errors.push(format!(
                "env variable name must be specified for {name} to use exec authentication plugin"
            ));
        }
    }
    if interactive_mode(user).is_none() {
        errors.push(format!(
            "interactiveMode must be specified for {name} to use exec authentication plugin"
        ));
    }
    errors
}

/// client-go's `DefaultServerURL` as `IsConfigTransportTLS` calls it (no
/// TLS settings merged yet): a host without a scheme is `http://`. Returns
/// the URL without a trailing `/`, and its scheme.
pub fn server_url(host: &str) -> Result<(String, String), String> {
    let host = if host.is_empty() { "localhost" } else { host };
    if let Some((scheme, authority, _)) = split_url(host) {
        if !authority.is_empty() {
            let scheme = scheme.to_ascii_lowercase();
            return Ok((host.trim_end_matches('/').to_string(), scheme));
        }
    }
    let url = format!("http://{host}");
    let path = split_url(&url)
        .map(|(_, _, p)| p.to_string())
        .unwrap_or_default();
    if !path.is_empty() && path != "/" {
        return Err(format!(
            "host must be a URL or a host:port pair: \"{host}\""
        ));
    }
    Ok((url.trim_end_matches('/').to_string(), "http".to_string()))
}

/// `scheme://authority/rest` (authority without user information), as
/// Go's `url.Parse` splits it; `None` without `scheme://`.
fn split_url(url: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    let mut chars = scheme.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let path_end = rest[end..].find(['?', '#']).map_or(rest.len(), |i| end + i);
    Some((scheme, host, &rest[end..path_end]))
}

/// clientcmd's `parseProxyURL`.
fn proxy_scheme(proxy: &str) -> Result<(), String> {
    let scheme = split_url(proxy).map(|(s, _, _)| s.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("http" | "https" | "socks5") => Ok(()),
        other => Err(format!(
            "unsupported scheme \"{}\", must be http, https, or socks5",
            other.unwrap_or_default()
        )),
    }
}

/// Go's `http.ProxyFromEnvironment`: `HTTPS_PROXY` for https, `HTTP_PROXY`
/// for http (upper case first), never for localhost or a loopback address,
/// nor for a host `NO_PROXY` names. A proxy without a scheme is http.
fn environment_proxy(url: &str, scheme: &str) -> Option<String> {
    let var = |name: &str| {
        std::env::var(name.to_ascii_uppercase())
            .ok()
            .filter(|v| !v.is_empty())
            .or_else(|| std::env::var(name).ok().filter(|v| !v.is_empty()))
    };
    let proxy = match scheme {
        "https" => var("https_proxy"),
        "http" => var("http_proxy"),
        _ => None,
    }?;
    let (_, authority, _) = split_url(url)?;
    let (host, port) = split_host_port(authority, scheme);
    if host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()) {
        return None;
    }
    if no_proxy_matches(&var("no_proxy").unwrap_or_default(), &host, port) {
        return None;
    }
    Some(if proxy.contains("://") {
        proxy
    } else {
        format!("http://{proxy}")
    })
}

/// `host` (lower case, brackets removed) and port (the scheme's default
/// when absent).
fn split_host_port(authority: &str, scheme: &str) -> (String, u16) {
    let default = if scheme == "https" { 443 } else { 80 };
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        match rest.split_once(']') {
            Some((h, p)) => (h, p.strip_prefix(':')),
            None => (rest, None),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h, Some(p)),
            _ => (authority, None),
        }
    };
    (
        host.to_ascii_lowercase(),
        port.and_then(|p| p.parse().ok()).unwrap_or(default),
    )
}

/// golang.org/x/net/http/httpproxy's `NO_PROXY` matching: `*`, IP
/// addresses, CIDR ranges, and domain names (which match their sub
/// domains; a leading `.` matches sub domains only), each optionally with
/// a port.
fn no_proxy_matches(no_proxy: &str, host: &str, port: u16) -> bool {
    let ip = host.parse::<IpAddr>().ok();
    for entry in no_proxy.split(',') {
        let entry = entry.trim().to_ascii_lowercase();
        if entry.is_empty() {
            continue;
        }
        if entry == "*" {
            return true;
        }
        if let Some((net, bits)) = entry.split_once('/') {
            if let (Some(ip), Ok(net), Ok(bits)) = (ip, net.parse::<IpAddr>(), bits.parse::<u32>())
            {
                if in_cidr(ip, net, bits) {
                    return true;
                }
            }
            continue;
        }
        if let Ok(entry_ip) = entry.parse::<IpAddr>() {
            if ip == Some(entry_ip) {
                return true;
            }
            continue;
        }
        let (name, entry_port) = split_host_port(&entry, "");
        if entry.contains(':') && entry_port != port {
            continue;
        }
        if let Ok(entry_ip) = name.parse::<IpAddr>() {
            if ip == Some(entry_ip) {
                return true;
            }
            continue;
        }
        let name = name.strip_prefix('*').unwrap_or(&name);
        if let Some(suffix) = name.strip_prefix('.') {
            if host.ends_with(&format!(".{suffix}")) {
                return true;
            }
        } else if host == name || host.ends_with(&format!(".{name}")) {
            return true;
        }
    }
    false
}

fn in_cidr(ip: IpAddr, net: IpAddr, bits: u32) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) if bits <= 32 => {
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) if bits <= 128 => {
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

/// The server identification, refusing what client-go's `TLSConfigFor`
/// refuses.
fn tls(cluster: &Cluster, user: &AuthInfo) -> Result<Tls, String> {
    let ca_data = non_empty(cluster.certificate_authority_data.as_deref());
    let ca_file = non_empty(cluster.certificate_authority.as_deref());
    let insecure = cluster.insecure_skip_tls_verify.unwrap_or(false);
    if insecure && (ca_data.is_some() || ca_file.is_some()) {
        return Err(
            "specifying a root certificates file with the insecure flag is not allowed".to_string(),
        );
    }
    let roots = match (ca_data, ca_file) {
        (Some(data), _) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| format!("certificate-authority-data is not base64: {e}"))?,
        ),
        (None, Some(file)) => Some(
            std::fs::read(file)
                .map_err(|e| format!("unable to read certificate-authority {file}: {e}"))?,
        ),
        (None, None) => None,
    };
    let roots = roots.map(|pem| pem_roots(&pem)).transpose()?;
    let roots_origin = match (ca_data, ca_file) {
        (Some(_), _) => Some("the kubeconfig's certificate-authority-data".to_string()),
        (None, Some(file)) => Some(format!("certificate-authority {file}")),
        (None, None) => None,
    };
    Ok(Tls {
        roots,
        roots_origin,
        insecure,
        server_name: non_empty(cluster.tls_server_name.as_deref()).map(str::to_string),
        client_certificate_data: non_empty(user.client_certificate_data.as_deref())
            .map(str::to_string),
        client_certificate: non_empty(user.client_certificate.as_deref()).map(str::to_string),
        client_key_data: user
            .client_key_data
            .as_ref()
            .map(|k| secrecy_text(k).to_string()),
        client_key: non_empty(user.client_key.as_deref()).map(str::to_string),
    })
}

/// The DER certificates of a PEM bundle, refused as client-go refuses
/// one without a certificate.
fn pem_roots(pem: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let certs: Vec<Vec<u8>> = CertificateDer::pem_slice_iter(pem)
        .filter_map(Result::ok)
        .map(|c| c.as_ref().to_vec())
        .collect();
    if certs.is_empty() {
        return Err(
            "unable to load root certificates: unable to parse bytes as PEM block".to_string(),
        );
    }
    Ok(certs)
}

/// The certificates of a `certificate-authority` file.
pub fn read_roots(file: &str) -> Result<Vec<Vec<u8>>, String> {
    let pem = std::fs::read(file)
        .map_err(|e| format!("unable to read certificate-authority {file}: {e}"))?;
    pem_roots(&pem)
}

fn secrecy_text(secret: &secrecy::SecretString) -> &str {
    use secrecy::ExposeSecret;
    secret.expose_secret()
}

/// The credential of a `https://` server, by client-go's precedence: a
/// token (or token file), else basic auth, else (without a client
/// certificate) an exec plugin.
fn credential(
    user: &AuthInfo,
    cluster: &Cluster,
    server: &str,
    has_cert: bool,
) -> Result<Credential, String> {
    let token = user
        .token
        .as_ref()
        .map(|t| secrecy_text(t).to_string())
        .filter(|t| !t.is_empty());
    let token_file = non_empty(user.token_file.as_deref()).map(PathBuf::from);
    let username = non_empty(user.username.as_deref());
    if token.is_some() || token_file.is_some() {
        if username.is_some() {
            return Err("username/password or bearer token may be set, but not both".to_string());
        }
        let file = token_file.map(|p| Arc::new(TokenFile::new(p)));
        let token = match (token, &file) {
            (Some(token), _) => token,
            (None, Some(file)) => file.read()?,
            (None, None) => String::new(),
        };
        return Ok(Credential::Bearer { token, file });
    }
    if let Some(username) = username {
        let password = user
            .password
            .as_ref()
            .map(|p| secrecy_text(p).to_string())
            .unwrap_or_default();
        let encoded =
            base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"));
        return Ok(Credential::Basic(format!("Basic {encoded}")));
    }
    if let (Some(exec), false) = (&user.exec, has_cert) {
        let mode = interactive_mode(user).unwrap_or(ExecInteractiveMode::IfAvailable);
        let cluster_info = exec
            .provide_cluster_info
            .then(|| exec_cluster(cluster, server))
            .transpose()?;
        return super::exec::plugin(exec, mode, cluster_info).map(Credential::Exec);
    }
    Ok(Credential::None)
}

/// `spec.cluster` for a plugin with `provideClusterInfo` (client-go's
/// `ConfigToExecCluster`), in the field order of clientauthentication's
/// `Cluster`.
fn exec_cluster(cluster: &Cluster, server: &str) -> Result<Value, String> {
    let mut out = serde_json::Map::new();
    out.insert("server".into(), json!(server));
    if let Some(name) = non_empty(cluster.tls_server_name.as_deref()) {
        out.insert("tls-server-name".into(), json!(name));
    }
    if cluster.insecure_skip_tls_verify == Some(true) {
        out.insert("insecure-skip-tls-verify".into(), json!(true));
    }
    let ca = match (
        non_empty(cluster.certificate_authority_data.as_deref()),
        non_empty(cluster.certificate_authority.as_deref()),
    ) {
        (Some(data), _) => Some(data.trim().to_string()),
        (None, Some(file)) => Some(
            base64::engine::general_purpose::STANDARD.encode(
                std::fs::read(file)
                    .map_err(|e| format!("unable to read certificate-authority {file}: {e}"))?,
            ),
        ),
        (None, None) => None,
    };
    if let Some(ca) = ca {
        out.insert("certificate-authority-data".into(), json!(ca));
    }
    if let Some(proxy) = non_empty(cluster.proxy_url.as_deref()) {
        out.insert("proxy-url".into(), json!(proxy));
    }
    if cluster.disable_compression == Some(true) {
        out.insert("disable-compression".into(), json!(true));
    }
    if let Some(config) = cluster
        .extensions
        .iter()
        .flatten()
        .find(|e| e.name == EXEC_EXTENSION)
    {
        out.insert("config".into(), config.extension.clone());
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig(text: &str) -> Kubeconfig {
        Kubeconfig::from_yaml(text).expect("kubeconfig parses")
    }

    const BASE: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:6443\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n";

    fn invalid(config: &Kubeconfig, overrides: Overrides<'_>) -> String {
        match resolve(config, overrides) {
            Err(Unusable::Invalid(m)) => m,
            Err(Unusable::Empty) => "empty".to_string(),
            Ok(t) => panic!("resolved to {}", t.url),
        }
    }

    // client-go rest/url_utils_test.go TestValidatesHostParameter, with
    // defaultTLS false as IsConfigTransportTLS calls it.
    #[test]
    fn server_urls_as_client_go_defaults_them() {
        for (host, want) in [
            ("127.0.0.1", Some("http://127.0.0.1")),
            ("127.0.0.1:8080", Some("http://127.0.0.1:8080")),
            ("127.0.0.1:6443", Some("http://127.0.0.1:6443")),
            ("localhost:6443", Some("http://localhost:6443")),
            ("foo.bar.com", Some("http://foo.bar.com")),
            ("http://host/prefix", Some("http://host/prefix")),
            ("http://host", Some("http://host")),
            ("https://host:6443/", Some("https://host:6443")),
            ("HTTPS://host:6443", Some("HTTPS://host:6443")),
            ("", Some("http://localhost")),
            ("host/server", None),
        ] {
            let got = server_url(host).ok().map(|(u, _)| u);
            assert_eq!(got.as_deref(), want, "{host}");
        }
        assert_eq!(server_url("HTTPS://h").unwrap().1, "https");
    }

    #[test]
    fn named_entries_must_exist() {
        let config = kubeconfig(BASE);
        for (overrides, want) in [
            (
                Overrides {
                    user: Some("nope"),
                    ..Overrides::default()
                },
                "auth info \"nope\" does not exist",
            ),
            (
                Overrides {
                    context: Some("nope"),
                    ..Overrides::default()
                },
                "context \"nope\" does not exist",
            ),
            (
                Overrides {
                    cluster: Some("nope"),
                    ..Overrides::default()
                },
                "cluster \"nope\" does not exist",
            ),
            // getAuthInfo is checked first.
            (
                Overrides {
                    context: Some("nope"),
                    user: Some("nobody"),
                    ..Overrides::default()
                },
                "auth info \"nobody\" does not exist",
            ),
        ] {
            assert_eq!(invalid(&config, overrides), want, "{overrides:?}");
        }
        let dangling = kubeconfig(&BASE.replace("current-context: x", "current-context: gone"));
        assert_eq!(
            invalid(&dangling, Overrides::default()),
            "invalid configuration: [context was not found for specified context: gone, cluster has no server defined]"
        );
        let no_context = kubeconfig(&BASE.replace("current-context: x", ""));
        assert_eq!(
            resolve(&no_context, Overrides::default()).err(),
            Some(Unusable::Empty)
        );
    }

    // clientcmd validation_test.go: TestValidateCleanWithCAClusterInfo and
    // friends, as messages.
    #[test]
    fn validation_messages() {
        let both = kubeconfig(&BASE.replace(
            "    server: https://127.0.0.1:6443\n",
            "    server: https://127.0.0.1:6443\n    certificate-authority: /nonexistent/ca.crt\n    certificate-authority-data: eA==\n",
        ));
        assert_eq!(
            invalid(&both, Overrides::default()),
            "invalid configuration: [certificate-authority-data and certificate-authority are both specified for c. certificate-authority-data will override., unable to read certificate-authority /nonexistent/ca.crt for c due to open /nonexistent/ca.crt: no such file or directory]"
        );
        let no_server = kubeconfig(&BASE.replace(
            "    server: https://127.0.0.1:6443\n",
            "    insecure-skip-tls-verify: true\n",
        ));
        assert_eq!(
            invalid(&no_server, Overrides::default()),
            "invalid configuration: no server found for cluster \"c\""
        );
        let two_methods = kubeconfig(&BASE.replace(
            "    token: t\n",
            "    token: t\n    username: a\n    password: b\n",
        ));
        assert_eq!(
            invalid(&two_methods, Overrides::default()),
            "invalid configuration: more than one authentication method found for u; found [token basicAuth], only one is allowed"
        );
        let exec_v1 = kubeconfig(&BASE.replace(
            "    token: t\n",
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: plugin\n",
        ));
        assert_eq!(
            invalid(&exec_v1, Overrides::default()),
            "invalid configuration: interactiveMode must be specified for u to use exec authentication plugin"
        );
        let bad_proxy = kubeconfig(&BASE.replace(
            "    server: https://127.0.0.1:6443\n",
            "    server: https://127.0.0.1:6443\n    proxy-url: ftp://proxy:21\n",
        ));
        assert_eq!(
            invalid(&bad_proxy, Overrides::default()),
            "invalid configuration: invalid 'proxy-url' \"ftp://proxy:21\" for cluster \"c\": unsupported scheme \"ftp\", must be http, https, or socks5"
        );
    }

    // client-go transport/transport_test.go TestNew "ca with insecure".
    #[test]
    fn insecure_with_a_ca_is_refused() {
        let config = kubeconfig(&BASE.replace(
            "    server: https://127.0.0.1:6443\n",
            "    server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: true\n    certificate-authority-data: eA==\n",
        ));
        assert_eq!(
            invalid(&config, Overrides::default()),
            "specifying a root certificates file with the insecure flag is not allowed"
        );
    }

    #[test]
    fn plain_http_sends_no_credentials() {
        for server in ["http://127.0.0.1:8080", "127.0.0.1:8080"] {
            let config = kubeconfig(&BASE.replace("https://127.0.0.1:6443", server));
            let target = resolve(&config, Overrides::default()).expect("resolves");
            assert_eq!(target.url, "http://127.0.0.1:8080", "{server}");
            assert!(target.tls.is_none(), "{server}");
            assert!(matches!(target.credential, Credential::None), "{server}");
        }
        let target = resolve(&kubeconfig(BASE), Overrides::default()).unwrap();
        assert!(matches!(target.credential, Credential::Bearer { .. }));
        assert_eq!(target.namespace, "default");
    }

    #[test]
    fn token_files_are_trimmed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "abc\n").unwrap();
        let file = TokenFile::new(path.clone());
        assert_eq!(file.read().unwrap(), "abc");
        std::fs::write(&path, " \n").unwrap();
        assert_eq!(
            file.read().unwrap_err(),
            format!("read empty token from file \"{}\"", path.display())
        );
    }

    // golang.org/x/net/http/httpproxy proxy_test.go, the NO_PROXY rows.
    #[test]
    fn no_proxy_entries() {
        for (no_proxy, host, port, want) in [
            ("*", "example.com", 443, true),
            ("example.com", "example.com", 443, true),
            ("example.com", "api.example.com", 443, true),
            (".example.com", "example.com", 443, false),
            (".example.com", "api.example.com", 443, true),
            ("*.example.com", "api.example.com", 443, true),
            ("example.com:6443", "example.com", 6443, true),
            ("example.com:6443", "example.com", 443, false),
            ("10.0.0.0/8", "10.1.2.3", 6443, true),
            ("10.0.0.0/8", "11.1.2.3", 6443, false),
            ("10.1.2.3", "10.1.2.3", 6443, true),
            ("other.com, example.com", "example.com", 443, true),
            ("", "example.com", 443, false),
        ] {
            assert_eq!(
                no_proxy_matches(no_proxy, host, port),
                want,
                "{no_proxy} {host}:{port}"
            );
        }
    }
}
