//! The live cluster: kubeconfig resolution as kubectl does it, and every
//! list a command needs issued at once.
//!
//! Objects come back as the API server's JSON lists and go through the same
//! staging as files ([`super::parse_documents`]), so a command cannot tell a
//! cluster from a must-gather. No discovery round trip is made: the
//! resources are known, and a resource the server does not serve (a 404 on
//! the list) is reported as absent rather than failing the command.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use kube::config::{Kubeconfig, KubeconfigError};
use kube::{Client, Config};
use rustls::pki_types::CertificateDer;
use serde_json::Value;
use tokio::task::JoinSet;

pub use super::kubeconfig::FlagOverrides;
use super::kubeconfig::{self, Authorization, Credential, Overrides, Target, Unusable};
use super::transport::{self, Failure};
use super::{Inputs, SourceError};
use crate::decode::parse_listed;
use crate::kinds;
use crate::tls::Trust;

/// One API resource the tool lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Resource {
    /// API group; empty for the core group.
    pub group: &'static str,
    pub version: &'static str,
    /// The plural resource name used in paths and RBAC rules.
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

impl Resource {
    /// The `version`-th version (0: preferred) of a kind of the kinds table.
    const fn of(kind: &'static kinds::KindSpec, version: usize) -> Self {
        Self {
            group: kind.group,
            version: kind.versions[version],
            plural: kind.plural,
            kind: kind.kind,
            namespaced: kind.namespaced,
        }
    }

    const fn cluster(
        group: &'static str,
        version: &'static str,
        plural: &'static str,
        kind: &'static str,
    ) -> Self {
        Self {
            group,
            version,
            plural,
            kind,
            namespaced: false,
        }
    }

    const fn namespaced(
        group: &'static str,
        version: &'static str,
        plural: &'static str,
        kind: &'static str,
    ) -> Self {
        Self {
            group,
            version,
            plural,
            kind,
            namespaced: true,
        }
    }

    /// `plural.group` as kubectl and RBAC messages print it (`nodes` for core).
    pub fn name(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// `group/version`, or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The collection path, in one namespace or across all of them.
    pub fn list_path(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) if self.namespaced => format!("{base}/namespaces/{ns}/{}", self.plural),
            _ => format!("{base}/{}", self.plural),
        }
    }
}

/// The CustomResourceDefinitions, read by name for their schemas (`lint`).
pub const CUSTOM_RESOURCE_DEFINITIONS: Resource = Resource::cluster(
    "apiextensions.k8s.io",
    "v1",
    "customresourcedefinitions",
    "CustomResourceDefinition",
);
pub const IMAGE_CONTENT_SOURCE_POLICIES: Resource = Resource::of(&kinds::ICSP, 0);
pub const IMAGE_DIGEST_MIRROR_SETS: Resource = Resource::of(&kinds::IDMS, 0);
pub const IMAGE_TAG_MIRROR_SETS: Resource = Resource::of(&kinds::ITMS, 0);
pub const IMAGES: Resource = Resource::of(&kinds::IMAGE, 0);
pub const CLUSTER_VERSIONS: Resource = Resource::of(&kinds::CLUSTER_VERSION, 0);
pub const CLUSTER_IMAGE_POLICIES: Resource = Resource::of(&kinds::CLUSTER_IMAGE_POLICY, 0);
pub const CLUSTER_IMAGE_POLICIES_V1ALPHA1: Resource = Resource::of(&kinds::CLUSTER_IMAGE_POLICY, 1);
pub const IMAGE_POLICIES: Resource = Resource::of(&kinds::IMAGE_POLICY, 0);
pub const IMAGE_POLICIES_V1ALPHA1: Resource = Resource::of(&kinds::IMAGE_POLICY, 1);
pub const MACHINE_CONFIGS: Resource = Resource::of(&kinds::MACHINE_CONFIG, 0);
pub const MACHINE_CONFIG_POOLS: Resource = Resource::of(&kinds::MACHINE_CONFIG_POOL, 0);
pub const NODES: Resource = Resource::of(&kinds::NODE, 0);

/// One thing a command reads: the first of `versions` the server serves.
///
/// Every version is requested at once (no discovery round trip); the
/// preferred one wins when several answer, the same objects being served
/// under each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub versions: &'static [Resource],
}

impl Read {
    pub const fn one(resource: &'static [Resource]) -> Self {
        Self { versions: resource }
    }

    /// The preferred (first) version, which names the read in messages.
    pub fn preferred(&self) -> &Resource {
        &self.versions[0]
    }
}

/// What explain, render, list and lint read: the mirror objects, the
/// Image config, the release payload and the signature policies.
pub const MIRROR_CONFIG: &[Read] = &[
    Read::one(&[IMAGE_CONTENT_SOURCE_POLICIES]),
    Read::one(&[IMAGE_DIGEST_MIRROR_SETS]),
    Read::one(&[IMAGE_TAG_MIRROR_SETS]),
    Read::one(&[IMAGES]),
    Read::one(&[CLUSTER_VERSIONS]),
    Read::one(&[CLUSTER_IMAGE_POLICIES, CLUSTER_IMAGE_POLICIES_V1ALPHA1]),
    Read::one(&[IMAGE_POLICIES, IMAGE_POLICIES_V1ALPHA1]),
];

/// What `diff` reads on top of [`MIRROR_CONFIG`]: the MachineConfigs, the
/// pools and the nodes.
pub const MACHINE_CONFIG_STATE: &[Read] = &[
    Read::one(&[MACHINE_CONFIGS]),
    Read::one(&[MACHINE_CONFIG_POOLS]),
    Read::one(&[NODES]),
];

pub const PODS: Resource = Resource::namespaced("", "v1", "pods", "Pod");
/// Events: the kubelet's pull events stand in for a node log that cannot be read.
pub const EVENTS: Resource = Resource::namespaced("", "v1", "events", "Event");
/// Node files: a command run in a node's machine-config-daemon pod (the
/// `pods/exec` subresource, whose RBAC verb is `create`).
pub const PODS_EXEC: Resource = Resource::namespaced("", "v1", "pods/exec", "Pod");
/// `--probe`: the global pull secret (`openshift-config/pull-secret`).
pub const SECRETS: Resource = Resource::namespaced("", "v1", "secrets", "Secret");
/// `audit --probe`: the service accounts of the pods, for their `imagePullSecrets`.
pub const SERVICE_ACCOUNTS: Resource =
    Resource::namespaced("", "v1", "serviceaccounts", "ServiceAccount");
/// `--hub`: Open Cluster Management's clusters, on the hub.
pub const MANAGED_CLUSTERS: Resource = Resource::cluster(
    "cluster.open-cluster-management.io",
    "v1",
    "managedclusters",
    "ManagedCluster",
);
/// `--hub`: the Route of the cluster-proxy add-on's user server, on the hub.
pub const ROUTES: Resource = Resource::namespaced("route.openshift.io", "v1", "routes", "Route");
/// `--probe`: the `Image.spec.additionalTrustedCA` ConfigMap in `openshift-config`.
pub const CONFIG_MAPS: Resource = Resource::namespaced("", "v1", "configmaps", "ConfigMap");
pub const DEPLOYMENTS: Resource = Resource::namespaced("apps", "v1", "deployments", "Deployment");
pub const STATEFUL_SETS: Resource =
    Resource::namespaced("apps", "v1", "statefulsets", "StatefulSet");
pub const DAEMON_SETS: Resource = Resource::namespaced("apps", "v1", "daemonsets", "DaemonSet");
pub const REPLICA_SETS: Resource = Resource::namespaced("apps", "v1", "replicasets", "ReplicaSet");
pub const REPLICATION_CONTROLLERS: Resource =
    Resource::namespaced("", "v1", "replicationcontrollers", "ReplicationController");
pub const JOBS: Resource = Resource::namespaced("batch", "v1", "jobs", "Job");
pub const CRON_JOBS: Resource = Resource::namespaced("batch", "v1", "cronjobs", "CronJob");
pub const CLUSTER_SERVICE_VERSIONS: Resource = Resource::of(&kinds::CLUSTER_SERVICE_VERSION, 0);
/// `audit`: the CatalogSources, whose index image OLM runs as a pod.
pub const CATALOG_SOURCES: Resource = Resource::of(&kinds::CATALOG_SOURCE, 0);
/// `operator-check`: the Subscriptions, and the InstallPlans they wait on.
pub const SUBSCRIPTIONS: Resource = Resource::of(&kinds::SUBSCRIPTION, 0);
pub const INSTALL_PLANS: Resource = Resource::of(&kinds::INSTALL_PLAN, 0);
/// `operator-check`: a namespace's OperatorGroup, which may leave the global
/// catalog namespace out of its resolution.
pub const OPERATOR_GROUPS: Resource = Resource::of(&kinds::OPERATOR_GROUP, 0);
/// `operator-check`: OLM v1's ClusterExtensions and the ClusterCatalogs they resolve over.
pub const CLUSTER_EXTENSIONS: Resource = Resource::of(&kinds::CLUSTER_EXTENSION, 0);
pub const CLUSTER_CATALOGS: Resource = Resource::of(&kinds::CLUSTER_CATALOG, 0);

/// What `audit` reads on top of [`MIRROR_CONFIG`]: every object that
/// references images (the kinds of [`crate::objects::workload::WORKLOAD_KINDS`]).
pub const WORKLOADS: &[Read] = &[
    Read::one(&[PODS]),
    Read::one(&[DEPLOYMENTS]),
    Read::one(&[STATEFUL_SETS]),
    Read::one(&[DAEMON_SETS]),
    Read::one(&[REPLICA_SETS]),
    Read::one(&[REPLICATION_CONTROLLERS]),
    Read::one(&[JOBS]),
    Read::one(&[CRON_JOBS]),
    Read::one(&[CLUSTER_SERVICE_VERSIONS]),
    Read::one(&[CATALOG_SOURCES]),
];

/// Whether `reads` include objects that reference images.
pub fn reads_workloads(reads: &[Read]) -> bool {
    reads.iter().any(|r| WORKLOADS.contains(r))
}

/// How to reach the cluster: kubectl's flags.
#[derive(Debug, Clone, Default)]
pub struct ClusterOptions {
    /// `--kubeconfig`: this file only, ignoring `KUBECONFIG`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`
    pub context: Option<String>,
    /// `--cluster`
    pub cluster: Option<String>,
    /// `--user`
    pub user: Option<String>,
    /// `--request-timeout`: the limit on each request; `None` waits as long
    /// as the server takes (kubectl's `0`).
    pub request_timeout: Option<Duration>,
    /// Items per page of a list (`limit`); 0 asks for everything at once.
    pub page_size: u32,
    /// `--server`, `--token`, `--as`, ...: fields of the kubeconfig's
    /// cluster and user they replace.
    pub flags: FlagOverrides,
    /// Roots trusted besides the cluster's own (a hub's ingress CA for its
    /// cluster-proxy route, `--hub-ca`).
    pub extra_trust: Trust,
}

/// The default page size: large lists come in pages of this many items.
pub const DEFAULT_PAGE_SIZE: u32 = 500;

/// Why the cluster could not be read. Every variant is exit code 3 in the
/// binary, except [`ClusterError::Decode`] (the server's objects do not
/// decode: an input error).
#[derive(Debug)]
pub enum ClusterError {
    /// No kubeconfig found and not running in a pod.
    NoConfig(String),
    /// The kubeconfig is unreadable, names a missing context, cluster or
    /// user, or is one kubectl refuses (kubectl's message).
    Config(String),
    /// The user's credential could not be obtained (an exec plugin failed,
    /// a token file is unreadable).
    Credentials(String),
    /// Connection refused, DNS, TLS: the server was not reached.
    Unreachable { server: String, detail: String },
    /// 401: the credentials were refused.
    Unauthorized { server: String, detail: String },
    /// 403 on one or more reads.
    Forbidden(Vec<Forbidden>),
    /// A request took longer than `--request-timeout`.
    Timeout {
        server: String,
        method: String,
        path: String,
        after: Duration,
    },
    /// Any other failed request (5xx, a 410 during paging, a reset connection).
    Request {
        server: String,
        path: String,
        detail: String,
    },
    /// A write (server-side apply or delete) failed other than by an
    /// answer the caller handles (5xx, a reset connection).
    Write {
        server: String,
        /// What was being written: `applying ImageDigestMirrorSet/x`,
        /// `deleting ImageContentSourcePolicy/y`, with `(dry run)` for one.
        action: String,
        /// Method and path of the request.
        request: String,
        detail: String,
    },
    /// An object the server returned does not decode into the tool's model.
    Decode(SourceError),
}

/// A forbidden read and the RBAC rule that would grant it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forbidden {
    pub verb: String,
    pub resource: Resource,
    pub namespace: Option<String>,
    /// The server's own message (it names the user).
    pub message: String,
}

impl Forbidden {
    /// The rule, as YAML a cluster admin can paste into a (Cluster)Role.
    pub fn rule(&self) -> String {
        format!(
            "{{apiGroups: [\"{}\"], resources: [\"{}\"], verbs: [\"{}\"]}}",
            self.resource.group, self.resource.plural, self.verb
        )
    }
}

impl fmt::Display for Forbidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scope = match &self.namespace {
            Some(ns) => format!("in namespace {ns}; a Role there"),
            None => "at the cluster scope; a ClusterRole".to_string(),
        };
        write!(
            f,
            "cannot {} {} {scope} with the rule {} grants it",
            self.verb,
            self.resource.name(),
            self.rule()
        )
    }
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoConfig(m) | Self::Config(m) | Self::Credentials(m) => f.write_str(m),
            Self::Unreachable { server, detail } => {
                write!(f, "cannot reach the cluster at {server}: {detail}")
            }
            Self::Unauthorized { server, detail } => {
                write!(
                    f,
                    "the cluster at {server} refused the credentials (401 Unauthorized): {detail}"
                )
            }
            Self::Forbidden(list) => {
                write!(f, "forbidden: ")?;
                for (i, item) in list.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{item}")?;
                }
                Ok(())
            }
            Self::Timeout {
                server,
                method,
                path,
                after,
            } => write!(
                f,
                "the cluster at {server} did not answer {method} {path} within {}",
                crate::duration::text(*after)
            ),
            Self::Request {
                server,
                path,
                detail,
            } => write!(f, "reading {path} from {server} failed: {detail}"),
            Self::Write {
                server,
                action,
                request,
                detail,
            } => write!(f, "{action} on {server} failed ({request}): {detail}"),
            Self::Decode(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClusterError {}

/// Parses kubectl's `--request-timeout`: `0` (no limit), a bare number of
/// seconds, or a number with `ms`, `s`, `m` or `h` (also combined: `1m30s`).
pub fn parse_request_timeout(text: &str) -> Result<Option<Duration>, String> {
    let text = text.trim();
    let bad = || {
        format!(
            "invalid request timeout \"{text}\": use a number of seconds or a duration such as 500ms, 30s, 2m or 1m30s (0 waits forever)"
        )
    };
    if text.is_empty() {
        return Err(bad());
    }
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok((seconds > 0).then(|| Duration::from_secs(seconds)));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(bad)?;
        if digits == 0 {
            return Err(bad());
        }
        let number: f64 = rest[..digits].parse().map_err(|_| bad())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(bad()),
        };
        rest = &rest[unit_len..];
        total += Duration::from_secs_f64(number * scale);
    }
    Ok((!total.is_zero()).then_some(total))
}

/// A client for one cluster, with what kubectl would tell about it.
#[derive(Clone)]
pub struct Connection {
    transport: Arc<Transport>,
    /// The API server URL.
    pub server: String,
    /// The context's namespace (`default` when it sets none), or the pod's
    /// namespace in-cluster.
    pub default_namespace: String,
    timeout: Option<Duration>,
    page_size: u32,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("default_namespace", &self.default_namespace)
            .finish_non_exhaustive()
    }
}

/// Reads the kubeconfig files kubectl would: `--kubeconfig` alone, else
/// every existing file listed in `KUBECONFIG` (merged, first wins), else
/// `~/.kube/config`. `Ok(None)` when there is none.
///
/// The files read are kept for the process, with each file's size and
/// modification time: the clusters of one run (`--all-contexts` over a
/// kubeconfig of thousands of contexts) resolve their contexts from one
/// parse, and a file changed since is read again.
fn read_kubeconfig(options: &ClusterOptions) -> Result<Option<Arc<Kubeconfig>>, ClusterError> {
    let Some(paths) = kubeconfig_files(options)? else {
        return Ok(None);
    };
    let stamps: Vec<FileStamp> = paths.iter().map(|p| FileStamp::of(p)).collect();
    static READ: Mutex<Vec<(Vec<FileStamp>, Arc<Kubeconfig>)>> = Mutex::new(Vec::new());
    let cached = READ
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|(s, _)| *s == stamps)
        .map(|(_, config)| Arc::clone(config));
    if let Some(config) = cached {
        return Ok(Some(config));
    }
    let config = Arc::new(merge_kubeconfigs(&paths)?);
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    // A few sets of files at most in one process (a hub and its clusters).
    if read.len() >= 8 {
        read.remove(0);
    }
    read.push((stamps, Arc::clone(&config)));
    Ok(Some(config))
}

/// A kubeconfig file as last seen: its path, size and modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileStamp {
    path: PathBuf,
    len: Option<u64>,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    fn of(path: &Path) -> Self {
        let meta = std::fs::metadata(path).ok();
        Self {
            path: path.to_path_buf(),
            len: meta.as_ref().map(std::fs::Metadata::len),
            modified: meta.and_then(|m| m.modified().ok()),
        }
    }
}

/// The kubeconfig files kubectl would read, in order; `Ok(None)` when
/// there is none.
fn kubeconfig_files(options: &ClusterOptions) -> Result<Option<Vec<PathBuf>>, ClusterError> {
    if let Some(path) = &options.kubeconfig {
        if !path.exists() {
            return Err(ClusterError::Config(format!(
                "kubeconfig {} (from --kubeconfig) does not exist",
                path.display()
            )));
        }
        return Ok(Some(vec![path.clone()]));
    }
    if let Some(value) = std::env::var_os("KUBECONFIG") {
        // kubectl ignores empty entries and files that do not exist.
        let paths: Vec<PathBuf> = std::env::split_paths(&value)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect();
        if !value.is_empty() {
            if paths.is_empty() {
                return Err(ClusterError::NoConfig(format!(
                    "KUBECONFIG ({}) names no existing file",
                    value.to_string_lossy()
                )));
            }
            return Ok(Some(paths));
        }
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    match home.map(|h| PathBuf::from(h).join(".kube").join("config")) {
        Some(path) if path.exists() => Ok(Some(vec![path])),
        _ => Ok(None),
    }
}

/// Reads `paths` and merges them, the first file winning.
fn merge_kubeconfigs(paths: &[PathBuf]) -> Result<Kubeconfig, ClusterError> {
    let read = |path: &Path| {
        Kubeconfig::read_from(path).map_err(|e| ClusterError::Config(kubeconfig_error(path, &e)))
    };
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        let next = read(path)?;
        merged = Some(match merged {
            None => next,
            Some(m) => m.merge(next).map_err(|e| {
                ClusterError::Config(format!("cannot merge kubeconfig {}: {e}", path.display()))
            })?,
        });
    }
    Ok(merged.unwrap_or_default())
}

/// Why a kubeconfig file cannot be read, on one line: a YAML error names
/// the file, line and column and says what is wrong, without the
/// parser's code excerpt.
fn kubeconfig_error(path: &Path, e: &KubeconfigError) -> String {
    match e {
        KubeconfigError::Parse(yaml) => {
            let options = serde_saphyr::render_options! {
                snippets: serde_saphyr::SnippetMode::Off,
            };
            let message = yaml.render_with_options(options);
            let message = message.lines().next().unwrap_or_default().trim();
            // The plain rendering ends with the location; say it first.
            let message = yaml.location().map_or(message, |at| {
                let suffix = format!(" at line {}, column {}", at.line(), at.column());
                message.strip_suffix(&suffix).unwrap_or(message)
            });
            match yaml.location() {
                Some(at) if at.line() > 0 => format!(
                    "cannot read kubeconfig {}:{}:{}: {message}",
                    path.display(),
                    at.line(),
                    at.column()
                ),
                _ => format!("cannot read kubeconfig {}: {message}", path.display()),
            }
        }
        KubeconfigError::ReadConfig(io, _) => {
            format!("cannot read kubeconfig {}: {io}", path.display())
        }
        other => format!("cannot read kubeconfig {}: {other}", path.display()),
    }
}

/// The names of the kubeconfig's `context`s, `cluster`s or `user`s.
pub fn kubeconfig_names(options: &ClusterOptions, what: &str) -> Result<Vec<String>, ClusterError> {
    let Some(config) = read_kubeconfig(options)? else {
        return Ok(Vec::new());
    };
    Ok(match what {
        "context" => config.contexts.iter().map(|c| c.name.clone()).collect(),
        "cluster" => config.clusters.iter().map(|c| c.name.clone()).collect(),
        "user" => config.auth_infos.iter().map(|c| c.name.clone()).collect(),
        _ => Vec::new(),
    })
}

/// The kubeconfig's `current-context`, if it names one.
pub fn current_context(options: &ClusterOptions) -> Result<Option<String>, ClusterError> {
    Ok(read_kubeconfig(options)?
        .and_then(|c| c.current_context.clone())
        .filter(|c| !c.is_empty()))
}

/// Builds a client as kubectl would pick its cluster, user and namespace
/// (client-go's clientcmd rules, in [`super::kubeconfig`]).
///
/// Nothing is sent to the server here, and no exec plugin is run.
pub async fn connect(options: &ClusterOptions) -> Result<Connection, ClusterError> {
    let overrides = Overrides {
        context: options.context.as_deref(),
        cluster: options.cluster.as_deref(),
        user: options.user.as_deref(),
        flags: Some(&options.flags),
    };
    // No kubeconfig is an empty one: flags such as --server may be enough.
    let kubeconfig = read_kubeconfig(options)?.unwrap_or_default();
    let target = match kubeconfig::resolve(&kubeconfig, overrides) {
        Ok(target) => Some(target),
        Err(Unusable::Invalid(message)) => return Err(ClusterError::Config(message)),
        Err(Unusable::Empty) => None,
    };
    let target = match target {
        Some(target) => target,
        None if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() => {
            in_cluster(&options.flags)?
        }
        None => {
            return Err(ClusterError::NoConfig(
                "no cluster configured: no KUBECONFIG, no ~/.kube/config (or one naming no context) and not running in a pod"
                    .to_string(),
            ))
        }
    };
    let server = target.url.clone();
    let default_namespace = target.namespace.clone();
    let config = client_config(&target, options)?;
    let trust = trust_of(&target, &options.extra_trust);
    let impersonation = match &target.impersonation {
        Some(i) => i.headers().map_err(ClusterError::Config)?,
        None => Vec::new(),
    };
    let transport = Transport {
        client: Mutex::new((build_client(&config, trust.as_ref(), None, &server)?, None)),
        config,
        trust,
        credential: target.credential,
        impersonation,
    };
    Ok(Connection {
        transport: Arc::new(transport),
        server,
        default_namespace,
        timeout: options.request_timeout,
        page_size: options.page_size,
    })
}

/// The service account's configuration in a pod, its token file read as
/// any token file. Only `--server`, `--token` and
/// `--certificate-authority` apply there, as in client-go.
fn in_cluster(flags: &FlagOverrides) -> Result<Target, ClusterError> {
    let mut config = Config::incluster()
        .map_err(|e| ClusterError::Config(format!("in-cluster configuration: {e}")))?;
    let file = config.auth_info.token_file.take().map(PathBuf::from);
    let token = flags.token.as_deref().filter(|t| !t.is_empty());
    let credential = match (token, file) {
        (Some(token), _) => Credential::Bearer {
            token: token.to_string(),
            file: None,
        },
        (None, file) => in_cluster_token(file)?,
    };
    let roots = match flags
        .certificate_authority
        .as_deref()
        .filter(|f| !f.is_empty())
    {
        Some(file) => Some(kubeconfig::read_roots(file).map_err(ClusterError::Config)?),
        None => config.root_cert.clone(),
    };
    let url = match flags.server.as_deref().filter(|s| !s.is_empty()) {
        Some(server) => {
            kubeconfig::server_url(server)
                .map_err(ClusterError::Config)?
                .0
        }
        None => config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string(),
    };
    Ok(Target {
        url,
        namespace: config.default_namespace.clone(),
        tls: Some(kubeconfig::Tls {
            roots_origin: Some(
                match flags
                    .certificate_authority
                    .as_deref()
                    .filter(|f| !f.is_empty())
                {
                    Some(file) => format!("certificate-authority {file}"),
                    None => "the service account's CA (in-cluster configuration)".to_string(),
                },
            ),
            roots,
            ..kubeconfig::Tls::default()
        }),
        proxy: None,
        credential,
        impersonation: None,
    })
}

/// The service account token of a pod, read as any token file.
fn in_cluster_token(file: Option<PathBuf>) -> Result<Credential, ClusterError> {
    Ok(match file {
        Some(path) => {
            let file = kubeconfig::token_file(path.clone());
            let token = file.token().ok_or_else(|| {
                ClusterError::Config(format!(
                    "in-cluster configuration: cannot read the service account token {}",
                    path.display()
                ))
            })?;
            Credential::Bearer {
                token,
                file: Some(file),
            }
        }
        None => Credential::None,
    })
}

/// kube's connection settings for a target: no credentials (they are put
/// on each request), no retries of its own (see [`Connection::send`]).
fn client_config(target: &Target, options: &ClusterOptions) -> Result<Config, ClusterError> {
    let bad = |detail: String| ClusterError::Config(detail);
    let url: http::Uri = target
        .url
        .parse()
        .map_err(|e| bad(format!("invalid server URL \"{}\": {e}", target.url)))?;
    let mut config = Config::new(url);
    config.default_namespace = target.namespace.clone();
    if let Some(tls) = &target.tls {
        config.accept_invalid_certs = tls.insecure;
        config.tls_server_name = tls.server_name.clone();
        config.auth_info.client_certificate_data = tls.client_certificate_data.clone();
        config.auth_info.client_certificate = tls.client_certificate.clone();
        config.auth_info.client_key_data = tls.client_key_data.clone().map(Into::into);
        config.auth_info.client_key = tls.client_key.clone();
    }
    if let Some(proxy) = &target.proxy {
        config.proxy_url = Some(
            proxy
                .parse()
                .map_err(|e| bad(format!("invalid proxy URL \"{proxy}\": {e}")))?,
        );
    }
    config.default_retry = false;
    if let Some(timeout) = options.request_timeout {
        config.connect_timeout = Some(timeout);
        config.read_timeout = Some(timeout);
    }
    Ok(config)
}

/// The roots the server is verified against: the cluster's CA, else the
/// system's, plus `extra`; `None` for `insecure-skip-tls-verify`.
fn trust_of(target: &Target, extra: &Trust) -> Option<Trust> {
    let tls = target.tls.as_ref();
    if tls.is_some_and(|t| t.insecure) {
        return None;
    }
    let mut trust = match tls.and_then(|t| t.roots.as_ref().map(|r| (t, r))) {
        Some((tls, roots)) => {
            let mut trust = Trust::default();
            trust.add(
                tls.roots_origin
                    .clone()
                    .unwrap_or_else(|| "the cluster's certificate authority".to_string()),
                roots
                    .iter()
                    .map(|r| CertificateDer::from(r.clone()))
                    .collect(),
            );
            trust
        }
        None => Trust::system(),
    };
    trust.extend(extra);
    Some(trust)
}

/// A kube client for `config` verifying the server against `trust`, with
/// the client certificate an exec plugin returned (PEM certificate and
/// key) when there is one.
fn build_client(
    config: &Config,
    trust: Option<&Trust>,
    identity: Option<&(String, String)>,
    server: &str,
) -> Result<Client, ClusterError> {
    let mut config = config.clone();
    if let Some((cert, key)) = identity {
        let encode = |pem: &str| base64::engine::general_purpose::STANDARD.encode(pem);
        config.auth_info.client_certificate_data = Some(encode(cert));
        config.auth_info.client_key_data = Some(encode(key).into());
        config.auth_info.client_certificate = None;
        config.auth_info.client_key = None;
    }
    super::transport::build(&config, trust).map_err(|detail| ClusterError::Unreachable {
        server: server.to_string(),
        detail,
    })
}

/// The client and the credential of a connection.
struct Transport {
    config: Config,
    /// The roots the server is verified against (`None`: not verified).
    trust: Option<Trust>,
    credential: Credential,
    /// The `Impersonate-*` headers sent with every request.
    impersonation: Vec<(http::HeaderName, http::HeaderValue)>,
    /// The client, and the exec plugin's client certificate it was built with.
    client: Mutex<(Client, Option<(String, String)>)>,
}

impl Transport {
    /// The client and the credential for the next request; runs an exec
    /// plugin when its credential is missing or expired.
    fn prepare(&self, server: &str) -> Result<(Client, Authorization), ClusterError> {
        let auth = self
            .credential
            .header()
            .map_err(ClusterError::Credentials)?;
        let mut client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        if client.1 != auth.identity {
            *client = (
                build_client(
                    &self.config,
                    self.trust.as_ref(),
                    auth.identity.as_ref(),
                    server,
                )?,
                auth.identity.clone(),
            );
        }
        Ok((client.0.clone(), auth))
    }
}

/// client-go's default `maxRetries`: a request answered 429 or 5xx with a
/// `Retry-After` is sent again up to this many times.
const MAX_RETRIES: u32 = 10;

/// `Retry-After` in seconds, when the answer is one client-go retries
/// (`checkWait`: 429 or any 5xx, with an integer `Retry-After`).
fn retry_after(status: http::StatusCode, headers: &http::HeaderMap) -> Option<Duration> {
    if status != http::StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
        return None;
    }
    let seconds: i64 = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds.max(0).unsigned_abs()))
}

/// What one request came back with.
#[derive(Debug)]
pub enum Reply {
    /// 2xx, with the body.
    Ok(String),
    /// 404: the resource (or the object) does not exist.
    NotFound,
    /// 403, with the server's message.
    Forbidden(String),
    /// 409, with the server's message.
    Conflict(String),
}

/// Where a deleted object is once [`Connection::wait_deleted`] returns.
#[derive(Debug, Clone, PartialEq)]
pub enum Deletion {
    /// The server no longer has it (404).
    Gone,
    /// It went, and an object of the same name (this `uid`) is there:
    /// something created it again.
    Recreated { uid: String },
    /// Still there at the deadline, as last read (marked for deletion and
    /// held by finalizers).
    Stays(Value),
}

/// `metav1.Preconditions`: the identity and version a delete must find.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preconditions {
    pub uid: String,
    pub resource_version: String,
}

impl Preconditions {
    /// The preconditions of an object as read (`metadata.uid` and
    /// `metadata.resourceVersion`); `None` when either is missing, as on an
    /// object that never came from a server.
    pub fn of(meta: &crate::objects::ObjectMeta) -> Option<Self> {
        Some(Self {
            uid: meta.uid.clone()?,
            resource_version: meta.resource_version.clone()?,
        })
    }
}

fn dry_note(dry_run: bool) -> &'static str {
    if dry_run {
        " (dry run)"
    } else {
        ""
    }
}

/// What [`Connection::send_streamed`] hands each chunk of a body to, with
/// the answer's status and headers; `Break` ends the read.
pub type BodySink<'a> =
    dyn FnMut(http::StatusCode, &http::HeaderMap, &[u8]) -> ControlFlow<()> + Send + 'a;

impl Connection {
    /// Sends one request under the request timeout, with the credential,
    /// retrying as client-go does (429 and 5xx with `Retry-After`, up to
    /// [`MAX_RETRIES`] times, waiting what the server asks); 404, 403 and
    /// 409 are answers, every other failure is an error.
    pub async fn send(&self, request: http::Request<Vec<u8>>) -> Result<Reply, ClusterError> {
        let path = request
            .uri()
            .path_and_query()
            .map_or_else(String::new, |p| p.as_str().to_string());
        let method = request.method().to_string();
        let call = self.send_with_retries(request, &method, &path);
        match self.timeout {
            Some(after) => match tokio::time::timeout(after, call).await {
                Ok(result) => result,
                Err(_) => Err(ClusterError::Timeout {
                    server: self.server.clone(),
                    method,
                    path,
                    after,
                }),
            },
            None => call.await,
        }
    }

    async fn send_with_retries(
        &self,
        request: http::Request<Vec<u8>>,
        method: &str,
        path: &str,
    ) -> Result<Reply, ClusterError> {
        let (status, _, bytes) = self.send_raw_with_retries(request, method, path).await?;
        self.reply(status, &bytes, path)
    }

    /// Sends one request as [`Connection::send`] does, and returns the
    /// answer as it came: status, headers and body bytes (a body the server
    /// compressed stays compressed).
    pub async fn send_raw(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<(http::StatusCode, http::HeaderMap, Vec<u8>), ClusterError> {
        let path = request
            .uri()
            .path_and_query()
            .map_or_else(String::new, |p| p.as_str().to_string());
        let method = request.method().to_string();
        let call = self.send_raw_with_retries(request, &method, &path);
        match self.timeout {
            Some(after) => {
                tokio::time::timeout(after, call)
                    .await
                    .unwrap_or(Err(ClusterError::Timeout {
                        server: self.server.clone(),
                        method,
                        path,
                        after,
                    }))
            }
            None => call.await,
        }
    }

    /// Sends one request as [`Connection::send_raw`] does (the same
    /// retries, and the request timeout over the whole read), but hands the
    /// body to `sink` as it comes, chunk by chunk with the status and
    /// headers, instead of collecting it: what is kept is the sink's to
    /// bound. `sink` returning `Break` ends the read there.
    pub async fn send_streamed(
        &self,
        request: http::Request<Vec<u8>>,
        sink: &mut BodySink<'_>,
    ) -> Result<(http::StatusCode, http::HeaderMap), ClusterError> {
        let path = request
            .uri()
            .path_and_query()
            .map_or_else(String::new, |p| p.as_str().to_string());
        let method = request.method().to_string();
        let call = async {
            let response = self.respond_with_retries(request, &method, &path).await?;
            let status = response.status();
            let headers = response.headers().clone();
            let mut body = response.into_body();
            loop {
                let frame = std::future::poll_fn(|cx| {
                    hyper::body::Body::poll_frame(std::pin::Pin::new(&mut body), cx)
                })
                .await;
                let Some(frame) = frame else { break };
                let frame =
                    frame.map_err(|e| self.transport_error(&e, method.clone(), path.clone()))?;
                if let Some(data) = frame.data_ref() {
                    if sink(status, &headers, data).is_break() {
                        break;
                    }
                }
            }
            Ok((status, headers))
        };
        match self.timeout {
            Some(after) => {
                tokio::time::timeout(after, call)
                    .await
                    .unwrap_or(Err(ClusterError::Timeout {
                        server: self.server.clone(),
                        method: method.clone(),
                        path: path.clone(),
                        after,
                    }))
            }
            None => call.await,
        }
    }

    async fn send_raw_with_retries(
        &self,
        request: http::Request<Vec<u8>>,
        method: &str,
        path: &str,
    ) -> Result<(http::StatusCode, http::HeaderMap, Vec<u8>), ClusterError> {
        let response = self.respond_with_retries(request, method, path).await?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect_bytes()
            .await
            .map_err(|e| self.transport_error(&e, method.to_string(), path.to_string()))?;
        Ok((status, headers, bytes.to_vec()))
    }

    /// Sends one request with the credential and client-go's retries, and
    /// returns the answer whose body is still to be read.
    async fn respond_with_retries(
        &self,
        request: http::Request<Vec<u8>>,
        method: &str,
        path: &str,
    ) -> Result<http::Response<kube::client::Body>, ClusterError> {
        let (parts, body) = request.into_parts();
        let mut retries = 0;
        loop {
            let mut attempt = http::Request::new(kube::client::Body::from(body.clone()));
            *attempt.method_mut() = parts.method.clone();
            *attempt.uri_mut() = parts.uri.clone();
            *attempt.headers_mut() = parts.headers.clone();
            let (client, auth) = self.transport.prepare(&self.server)?;
            if let Some(value) = &auth.value {
                attempt
                    .headers_mut()
                    .insert(http::header::AUTHORIZATION, value.clone());
            }
            for (name, value) in &self.transport.impersonation {
                attempt.headers_mut().append(name.clone(), value.clone());
            }
            let response = client
                .send(attempt)
                .await
                .map_err(|e| self.transport_error(&e, method.to_string(), path.to_string()))?;
            let status = response.status();
            if retries < MAX_RETRIES {
                if let Some(wait) = retry_after(status, response.headers()) {
                    retries += 1;
                    drop(response);
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            if status == http::StatusCode::UNAUTHORIZED {
                self.transport.credential.unauthorized(&auth);
            }
            return Ok(response);
        }
    }

    /// An answer as [`Reply`]: 2xx with its body, 404, 403 and 409 as
    /// answers, 401 and the rest as errors with the server's `Status`.
    pub fn reply(
        &self,
        status: http::StatusCode,
        body: &[u8],
        path: &str,
    ) -> Result<Reply, ClusterError> {
        let text = String::from_utf8_lossy(body).into_owned();
        if status.is_success() {
            return Ok(Reply::Ok(text));
        }
        let parsed: Option<Value> = serde_json::from_str(&text)
            .ok()
            .filter(|v: &Value| v.get("kind").and_then(Value::as_str) == Some("Status"));
        let field = |name: &str| {
            parsed
                .as_ref()
                .and_then(|v| v.get(name))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let message = field("message").unwrap_or_else(|| text.trim().to_string());
        let reason = field("reason")
            .or_else(|| status.canonical_reason().map(str::to_string))
            .unwrap_or_default();
        match status.as_u16() {
            404 => Ok(Reply::NotFound),
            403 => Ok(Reply::Forbidden(message)),
            409 => Ok(Reply::Conflict(message)),
            401 => Err(ClusterError::Unauthorized {
                server: self.server.clone(),
                detail: non_empty(
                    &message,
                    "log in again (oc login) or check the kubeconfig user",
                ),
            }),
            code => Err(ClusterError::Request {
                server: self.server.clone(),
                path: path.to_string(),
                detail: format!(
                    "{code} {reason}{}",
                    if message.is_empty() {
                        String::new()
                    } else {
                        format!(": {message}")
                    }
                ),
            }),
        }
    }

    /// A request that got no answer, as [`transport_error`] tells it.
    fn transport_error(&self, e: &kube::Error, method: String, path: String) -> ClusterError {
        transport_error(&self.server, self.timeout, e, method, path)
    }

    /// Reads one cluster-scoped object: `Ok(None)` when it does not exist.
    pub async fn get(
        &self,
        resource: &Resource,
        name: &str,
    ) -> Result<Option<Value>, ClusterError> {
        self.get_object(resource, None, name).await
    }

    /// Reads one object of a namespace: `Ok(None)` when it does not exist.
    pub async fn get_in(
        &self,
        resource: &Resource,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Value>, ClusterError> {
        self.get_object(resource, Some(namespace), name).await
    }

    /// Reads one object, cluster-scoped or in `namespace`; a 403 names the
    /// `get` rule it needs.
    async fn get_object(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Value>, ClusterError> {
        let path = format!("{}/{name}", resource.list_path(namespace));
        let request = self.request(http::Method::GET, &path, None, Vec::new())?;
        match self.send(request).await? {
            Reply::Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| self.bad_answer(&path, &e.to_string())),
            Reply::NotFound => Ok(None),
            Reply::Forbidden(message) => Err(ClusterError::Forbidden(vec![Forbidden {
                verb: "get".to_string(),
                resource: *resource,
                namespace: namespace.map(str::to_string),
                message,
            }])),
            Reply::Conflict(message) => Err(self.bad_answer(&path, &message)),
        }
    }

    /// Server-side apply of one cluster-scoped object (`PATCH` with
    /// `application/apply-patch+yaml`) under `field_manager`; with
    /// `dry_run` the server validates and answers but stores nothing.
    /// A 409 (another manager owns a field) is [`Reply::Conflict`].
    pub async fn apply(
        &self,
        resource: &Resource,
        object: &Value,
        field_manager: &str,
        dry_run: bool,
    ) -> Result<Reply, ClusterError> {
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut path = format!(
            "{}/{name}?fieldManager={}",
            resource.list_path(None),
            encode_query(field_manager)
        );
        if dry_run {
            path.push_str("&dryRun=All");
        }
        let body =
            serde_json::to_vec(object).map_err(|e| self.bad_answer(&path, &e.to_string()))?;
        let request = self.request(
            http::Method::PATCH,
            &path,
            Some("application/apply-patch+yaml"),
            body,
        )?;
        let action = format!("applying {}/{name}{}", resource.kind, dry_note(dry_run));
        self.write_reply(request, resource, "patch", action).await
    }

    /// Deletes one cluster-scoped object; with `dry_run` nothing is deleted.
    ///
    /// With `preconditions` the server deletes only the object of that
    /// `uid` at that `resourceVersion` (a `DeleteOptions` body, as
    /// `kubectl delete` sends it); another version is a 409
    /// ([`Reply::Conflict`]) and nothing is deleted.
    pub async fn delete(
        &self,
        resource: &Resource,
        name: &str,
        preconditions: Option<&Preconditions>,
        dry_run: bool,
    ) -> Result<Reply, ClusterError> {
        let mut path = format!("{}/{name}", resource.list_path(None));
        if dry_run {
            path.push_str("?dryRun=All");
        }
        let (content_type, body) = match preconditions {
            Some(p) => {
                let mut options = serde_json::json!({
                    "kind": "DeleteOptions",
                    "apiVersion": "v1",
                    "preconditions": {"uid": p.uid, "resourceVersion": p.resource_version},
                });
                if dry_run {
                    options["dryRun"] = serde_json::json!(["All"]);
                }
                let body = serde_json::to_vec(&options)
                    .map_err(|e| self.bad_answer(&path, &e.to_string()))?;
                (Some("application/json"), body)
            }
            None => (None, Vec::new()),
        };
        let request = self.request(http::Method::DELETE, &path, content_type, body)?;
        let action = format!("deleting {}/{name}{}", resource.kind, dry_note(dry_run));
        self.write_reply(request, resource, "delete", action).await
    }

    /// Waits, as `kubectl delete` does (its `--wait`, on by default), for a
    /// deleted object to go: reads it until the server answers 404, or
    /// holds another object of that name (another `uid`: created again),
    /// at growing intervals (100 ms, doubling up to 1 s), until `deadline`.
    /// An object that finalizers hold is only marked (`deletionTimestamp`)
    /// and stays until they are removed.
    pub async fn wait_deleted(
        &self,
        resource: &Resource,
        name: &str,
        uid: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Deletion, ClusterError> {
        let mut pause = Duration::from_millis(100);
        loop {
            let Some(object) = self.get(resource, name).await? else {
                return Ok(Deletion::Gone);
            };
            let now_uid = object
                .pointer("/metadata/uid")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if now_uid != uid {
                return Ok(Deletion::Recreated {
                    uid: now_uid.to_string(),
                });
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(Deletion::Stays(object));
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// Sends a write; a failure that is no answer names what was being
    /// written, not read.
    async fn write_reply(
        &self,
        request: http::Request<Vec<u8>>,
        resource: &Resource,
        verb: &str,
        action: String,
    ) -> Result<Reply, ClusterError> {
        let method = request.method().to_string();
        match self.send(request).await {
            Ok(Reply::Forbidden(message)) => Err(ClusterError::Forbidden(vec![Forbidden {
                verb: verb.to_string(),
                resource: *resource,
                namespace: None,
                message,
            }])),
            Ok(other) => Ok(other),
            Err(ClusterError::Request {
                server,
                path,
                detail,
            }) => Err(ClusterError::Write {
                server,
                action,
                request: format!("{method} {path}"),
                detail,
            }),
            Err(e) => Err(e),
        }
    }

    fn request(
        &self,
        method: http::Method,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<http::Request<Vec<u8>>, ClusterError> {
        let mut builder = http::Request::builder()
            .method(method)
            .uri(path)
            .header(http::header::ACCEPT, "application/json");
        if let Some(content_type) = content_type {
            builder = builder.header(http::header::CONTENT_TYPE, content_type);
        }
        builder
            .body(body)
            .map_err(|e| self.bad_answer(path, &e.to_string()))
    }

    fn bad_answer(&self, path: &str, detail: &str) -> ClusterError {
        ClusterError::Request {
            server: self.server.clone(),
            path: path.to_string(),
            detail: detail.to_string(),
        }
    }

    /// The names of every object of a cluster-scoped resource (one request,
    /// no paging): for shell completion.
    pub async fn names(&self, resource: &Resource) -> Result<Vec<String>, ClusterError> {
        let path = resource.list_path(None);
        let request = self.request(http::Method::GET, &path, None, Vec::new())?;
        let Reply::Ok(text) = self.send(request).await? else {
            return Ok(Vec::new());
        };
        let value: Value =
            serde_json::from_str(&text).map_err(|e| self.bad_answer(&path, &e.to_string()))?;
        Ok(value
            .get("items")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|item| item.pointer("/metadata/name").and_then(Value::as_str))
            .map(str::to_string)
            .collect())
    }

    /// Every object of `resource` (in `namespace`, else in all), only
    /// those `label_selector` selects when one is given; `Ok(None)` when the
    /// server does not serve the resource (no CRD).
    pub async fn list_objects(
        &self,
        resource: &Resource,
        namespace: Option<&str>,
        label_selector: Option<&str>,
    ) -> Result<Option<Vec<Value>>, ClusterError> {
        let listed = self
            .list(
                *resource,
                namespace.map(str::to_string),
                label_selector.map(str::to_string),
            )
            .await?;
        let pages = match listed.outcome {
            ListOutcome::Pages(pages) => pages,
            ListOutcome::Absent => return Ok(None),
            ListOutcome::Forbidden(f) => return Err(ClusterError::Forbidden(vec![f])),
        };
        let path = resource.list_path(namespace);
        let mut items = Vec::new();
        for page in pages {
            let mut value: Value =
                serde_json::from_str(&page).map_err(|e| self.bad_answer(&path, &e.to_string()))?;
            if let Some(Value::Array(page_items)) = value.get_mut("items").map(Value::take) {
                items.extend(page_items);
            }
        }
        Ok(Some(items))
    }

    /// Lists one resource, page by page.
    async fn list(
        &self,
        resource: Resource,
        namespace: Option<String>,
        label_selector: Option<String>,
    ) -> Result<Listed, ClusterError> {
        let base = resource.list_path(namespace.as_deref());
        let mut pages = Vec::new();
        let mut token: Option<String> = None;
        let mut requests = 0;
        loop {
            let mut query = Vec::new();
            if let Some(selector) = &label_selector {
                query.push(format!("labelSelector={}", encode_query(selector)));
            }
            if self.page_size > 0 {
                query.push(format!("limit={}", self.page_size));
            }
            if let Some(t) = &token {
                query.push(format!("continue={}", encode_query(t)));
            }
            let path = if query.is_empty() {
                base.clone()
            } else {
                format!("{base}?{}", query.join("&"))
            };
            let request = self.request(http::Method::GET, &path, None, Vec::new())?;
            requests += 1;
            let text = match self.send(request).await? {
                Reply::Ok(text) => text,
                Reply::NotFound if pages.is_empty() => {
                    return Ok(Listed {
                        outcome: ListOutcome::Absent,
                        requests,
                    })
                }
                Reply::Forbidden(message) if pages.is_empty() => {
                    return Ok(Listed {
                        outcome: ListOutcome::Forbidden(Forbidden {
                            verb: "list".to_string(),
                            resource,
                            namespace,
                            message,
                        }),
                        requests,
                    })
                }
                other => {
                    return Err(self
                        .bad_answer(&path, &format!("unexpected answer while paging: {other:?}")))
                }
            };
            token = continue_token(&text);
            pages.push(text);
            if token.is_none() {
                break;
            }
        }
        Ok(Listed {
            outcome: ListOutcome::Pages(pages),
            requests,
        })
    }
}

/// What an upgrade to a WebSocket (`pods/exec`) came back with.
pub enum Upgrade {
    /// 101: the stream, and whether its protocol (`v5.channel.k8s.io`)
    /// carries stream-close signals.
    Stream(Box<kube::client::Connection>),
    /// 403, with the server's message.
    Forbidden(String),
    /// 404, with the server's message: the pod (or the container) is gone.
    NotFound(String),
}

impl Connection {
    /// Opens a WebSocket on `path` (a `GET` with the credential and the
    /// impersonation headers, as [`Connection::send`] sends them), offering
    /// the `v5.channel.k8s.io` and `v4.channel.k8s.io` subprotocols as kube
    /// and kubectl do. The request timeout covers the handshake only.
    pub async fn upgrade(&self, path: &str) -> Result<Upgrade, ClusterError> {
        let mut request = http::Request::builder()
            .method(http::Method::GET)
            .uri(path)
            .body(Vec::new())
            .map_err(|e| self.bad_answer(path, &e.to_string()))?;
        let (client, auth) = self.transport.prepare(&self.server)?;
        if let Some(value) = &auth.value {
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value.clone());
        }
        for (name, value) in &self.transport.impersonation {
            request.headers_mut().append(name.clone(), value.clone());
        }
        let call = client.connect(request);
        let result = match self.timeout {
            Some(after) => {
                tokio::time::timeout(after, call)
                    .await
                    .map_err(|_| ClusterError::Timeout {
                        server: self.server.clone(),
                        method: "GET".to_string(),
                        path: path.to_string(),
                        after,
                    })?
            }
            None => call.await,
        };
        match result {
            Ok(stream) => Ok(Upgrade::Stream(Box::new(stream))),
            Err(kube::Error::Api(status)) => match status.code {
                403 => Ok(Upgrade::Forbidden(status.message.clone())),
                404 => Ok(Upgrade::NotFound(status.message.clone())),
                401 => {
                    self.transport.credential.unauthorized(&auth);
                    Err(ClusterError::Unauthorized {
                        server: self.server.clone(),
                        detail: non_empty(
                            &status.message,
                            "log in again (oc login) or check the kubeconfig user",
                        ),
                    })
                }
                code => Err(self.bad_answer(
                    path,
                    &format!("{code} {}: {}", status.reason, status.message),
                )),
            },
            Err(e) => Err(self.transport_error(&e, "GET".to_string(), path.to_string())),
        }
    }

    /// Every object of a namespaced resource in `namespace` whose labels
    /// `label_selector` selects, page by page; `Ok(None)` when the server
    /// does not serve the resource. A 403 is [`ClusterError::Forbidden`].
    pub async fn list_items(
        &self,
        resource: &Resource,
        namespace: &str,
        label_selector: &str,
    ) -> Result<Option<Vec<Value>>, ClusterError> {
        let listed = self
            .list(
                *resource,
                Some(namespace.to_string()),
                Some(label_selector.to_string()),
            )
            .await?;
        let pages = match listed.outcome {
            ListOutcome::Pages(pages) => pages,
            ListOutcome::Absent => return Ok(None),
            ListOutcome::Forbidden(forbidden) => {
                return Err(ClusterError::Forbidden(vec![forbidden]))
            }
        };
        let path = resource.list_path(Some(namespace));
        let mut items = Vec::new();
        for page in pages {
            let mut value: Value =
                serde_json::from_str(&page).map_err(|e| self.bad_answer(&path, &e.to_string()))?;
            if let Some(Value::Array(list)) = value.get_mut("items").map(Value::take) {
                items.extend(list);
            }
        }
        Ok(Some(items))
    }
}

/// A request to `server` that got no answer, by what the types of the
/// error's causes say ([`Failure`]): a TLS refusal or no connection made
/// is [`ClusterError::Unreachable`]; a timeout of the connector is
/// [`ClusterError::Timeout`] when `--request-timeout` set it (`timeout`);
/// a connection dropped under the request says the request may have been
/// carried out; anything else is [`ClusterError::Request`] with the chain.
fn transport_error(
    server: &str,
    timeout: Option<Duration>,
    e: &kube::Error,
    method: String,
    path: String,
) -> ClusterError {
    let server = server.to_string();
    if let Some(tls) = crate::tls::find_error(e) {
        return ClusterError::Unreachable {
            server,
            detail: crate::tls::describe(tls),
        };
    }
    match (transport::failure(e), timeout) {
        (Failure::TimedOut { .. }, Some(after)) => ClusterError::Timeout {
            server,
            method,
            path,
            after,
        },
        (Failure::TimedOut { connecting: true } | Failure::NotReached, _) => {
            ClusterError::Unreachable {
                server,
                detail: root_cause(e),
            }
        }
        (Failure::Dropped, _) => ClusterError::Request {
            server,
            path,
            detail: format!(
                "the connection was dropped before an answer ({}); the request may or may not have been carried out",
                root_cause(e)
            ),
        },
        (Failure::TimedOut { connecting: false }, None) | (Failure::Other, _) => {
            ClusterError::Request {
                server,
                path,
                detail: error_chain(e),
            }
        }
    }
}

fn non_empty(message: &str, fallback: &str) -> String {
    if message.is_empty() {
        fallback.to_string()
    } else {
        message.to_string()
    }
}

/// The error and its causes on one line, without repeating a cause that
/// its parent already printed.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.last().is_some_and(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// The innermost cause: "Connection refused (os error 111)" rather than
/// the layers of client wrappers around it.
fn root_cause(e: &dyn std::error::Error) -> String {
    let mut last = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        last = cause.to_string();
        source = cause.source();
    }
    last
}

/// Percent-encodes a continue token for a query string.
pub(crate) fn encode_query(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `metadata.continue` of a list page, when another page follows.
fn continue_token(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    value
        .pointer("/metadata/continue")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

#[derive(Debug)]
enum ListOutcome {
    Pages(Vec<String>),
    Absent,
    Forbidden(Forbidden),
}

#[derive(Debug)]
struct Listed {
    outcome: ListOutcome,
    requests: usize,
}

/// What [`read`] brought back.
#[derive(Debug, Default)]
pub struct LiveRead {
    pub inputs: Inputs,
    /// Reads whose resource the server does not serve (no CRD), by the
    /// preferred version's `plural.group`.
    pub absent: Vec<Resource>,
    /// Requests sent, pages included.
    pub requests: usize,
}

impl LiveRead {
    /// Whether none of the OpenShift mirror-configuration kinds is served:
    /// a plain Kubernetes cluster.
    pub fn is_openshift_missing(&self) -> bool {
        [
            IMAGE_CONTENT_SOURCE_POLICIES,
            IMAGE_DIGEST_MIRROR_SETS,
            IMAGES,
        ]
        .iter()
        .all(|r| self.absent.contains(r))
    }
}

/// Issues every read at once and gathers the objects into [`Inputs`].
///
/// `namespace` limits namespaced reads to one namespace; `None` reads all.
/// Forbidden reads are collected and reported together; a resource the
/// server does not serve is recorded in [`LiveRead::absent`].
pub async fn read(
    connection: &Connection,
    reads: &[Read],
    namespace: Option<&str>,
) -> Result<LiveRead, ClusterError> {
    read_selected(connection, reads, namespace, None).await
}

/// [`read`], with the objects that reference images ([`WORKLOADS`])
/// listed with `labelSelector` (kubectl's `-l`) when one is given.
pub async fn read_selected(
    connection: &Connection,
    reads: &[Read],
    namespace: Option<&str>,
    label_selector: Option<&str>,
) -> Result<LiveRead, ClusterError> {
    let tasks = spawn_reads(connection, reads, namespace, label_selector);
    let results = join_reads(connection, reads, tasks).await?;
    gather(connection, reads, results)
}

/// The lists in flight, each `(place, read index, version index, result)`,
/// and the handle of each by its place: the order of the reads and their
/// versions, in which a failure is reported.
struct ReadTasks {
    set: JoinSet<(usize, usize, usize, Result<Listed, ClusterError>)>,
    handles: Vec<tokio::task::AbortHandle>,
}

/// Starts a list of every version of every read at once: namespaced
/// resources in `namespace` (all when `None`), workloads with
/// `label_selector` when it is not blank.
fn spawn_reads(
    connection: &Connection,
    reads: &[Read],
    namespace: Option<&str>,
    label_selector: Option<&str>,
) -> ReadTasks {
    let mut tasks = ReadTasks {
        set: JoinSet::new(),
        handles: Vec::new(),
    };
    for (index, read) in reads.iter().enumerate() {
        for (version, resource) in read.versions.iter().enumerate() {
            let connection = connection.clone();
            let resource = *resource;
            let namespace = namespace
                .filter(|_| resource.namespaced)
                .map(str::to_string);
            let selector = label_selector
                .filter(|s| !s.trim().is_empty() && WORKLOADS.contains(read))
                .map(str::to_string);
            let place = tasks.handles.len();
            let handle = tasks.set.spawn(async move {
                let listed = connection.list(resource, namespace, selector).await;
                (place, index, version, listed)
            });
            tasks.handles.push(handle);
        }
    }
    tasks
}

/// Waits for the lists, each in its read's and version's place. When lists
/// fail, the one reported is the first in the reads' order, whatever order
/// the answers come in (the same failure gives the same message on every
/// run): after a failure, the lists placed after it are cancelled and the
/// ones before it awaited.
async fn join_reads(
    connection: &Connection,
    reads: &[Read],
    mut tasks: ReadTasks,
) -> Result<Vec<Vec<Option<Listed>>>, ClusterError> {
    let mut results: Vec<Vec<Option<Listed>>> = reads
        .iter()
        .map(|r| r.versions.iter().map(|_| None).collect())
        .collect();
    let mut failed: Option<(usize, ClusterError)> = None;
    while let Some(joined) = tasks.set.join_next().await {
        let (place, index, version, listed) = match joined {
            Ok(done) => done,
            Err(e) if e.is_cancelled() => continue,
            Err(e) => {
                // A task that panicked: reported only when no list failed.
                let error = ClusterError::Request {
                    server: connection.server.clone(),
                    path: String::new(),
                    detail: format!("a read task failed: {e}"),
                };
                (usize::MAX, 0, 0, Err(error))
            }
        };
        match listed {
            Ok(listed) => results[index][version] = Some(listed),
            Err(e) if failed.as_ref().is_none_or(|(first, _)| place < *first) => {
                for later in tasks.handles.iter().skip(place.saturating_add(1)) {
                    later.abort();
                }
                failed = Some((place, e));
            }
            Err(_) => {}
        }
    }
    match failed {
        Some((_, e)) => Err(e),
        None => Ok(results),
    }
}

/// Parses the lists into a [`LiveRead`]: per read, the first version
/// served; a read only refused is forbidden (all of them reported
/// together), one not served at all is absent.
fn gather(
    connection: &Connection,
    reads: &[Read],
    results: Vec<Vec<Option<Listed>>>,
) -> Result<LiveRead, ClusterError> {
    let mut live = LiveRead::default();
    let mut forbidden = Vec::new();
    let workloads = reads_workloads(reads);
    for (read, versions) in reads.iter().zip(results) {
        let mut chosen = None;
        let mut denied = None;
        for listed in versions.into_iter().flatten() {
            live.requests += listed.requests;
            match listed.outcome {
                ListOutcome::Pages(pages) if chosen.is_none() => chosen = Some(pages),
                ListOutcome::Forbidden(f) if denied.is_none() => denied = Some(f),
                _ => {}
            }
        }
        match (chosen, denied) {
            (Some(pages), _) => {
                let name = format!("{} ({})", read.preferred().name(), connection.server);
                for page in pages {
                    parse_listed(&name, &page, &mut live.inputs, workloads)
                        .map_err(ClusterError::Decode)?;
                }
            }
            (None, Some(f)) => forbidden.push(f),
            (None, None) => live.absent.push(*read.preferred()),
        }
    }
    if !forbidden.is_empty() {
        return Err(ClusterError::Forbidden(forbidden));
    }
    Ok(live)
}

/// The names of the reads, for `-v`.
pub fn describe(reads: &[Read]) -> String {
    let names: BTreeSet<String> = reads.iter().map(|r| r.preferred().name()).collect();
    names.into_iter().collect::<Vec<_>>().join(", ")
}

/// The cluster's own CustomResourceDefinitions of the checked `kinds`
/// (see [`crate::objects::schema::crd_name`]), read by name, and a warning for
/// each kind whose CRD could not be read or used (404, 403, a schema the
/// tool cannot read): that kind is checked against the tool's own tree.
/// After a 403 no other CRD is asked for.
pub async fn read_crds(
    connection: &Connection,
    kinds: &[&str],
) -> (Vec<crate::objects::crd_schema::CrdSchema>, Vec<String>) {
    let mut crds = Vec::new();
    let mut warnings = Vec::new();
    let builtin = "its kind is checked against the tool's built-in field tree";
    for kind in kinds {
        let Some(name) = crate::objects::schema::crd_name(kind) else {
            continue;
        };
        match connection.get(&CUSTOM_RESOURCE_DEFINITIONS, &name).await {
            Ok(Some(value)) => {
                let from = format!("{}/{name}", connection.server);
                match crate::objects::crd_schema::parse_crd(&value, &from) {
                    Ok(crd) => crds.push(crd),
                    Err(e) => warnings.push(format!("{e}; {builtin}")),
                }
            }
            Ok(None) => warnings.push(format!(
                "customresourcedefinition {name} not found on {}; {builtin}",
                connection.server
            )),
            Err(ClusterError::Forbidden(_)) => {
                warnings.push(format!(
                    "cannot get customresourcedefinitions on {} (forbidden; lint needs get on customresourcedefinitions.apiextensions.k8s.io); every kind is checked against the tool's built-in field trees",
                    connection.server
                ));
                break;
            }
            Err(e) => warnings.push(format!(
                "cannot read customresourcedefinition {name}: {e}; {builtin}"
            )),
        }
    }
    (crds, warnings)
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;

    use super::transport::scripted::{self, Script};
    use super::*;

    #[test]
    fn request_timeout_forms() {
        for (text, want) in [
            ("0", None),
            ("0s", None),
            ("5", Some(Duration::from_secs(5))),
            ("30s", Some(Duration::from_secs(30))),
            ("500ms", Some(Duration::from_millis(500))),
            ("2m", Some(Duration::from_secs(120))),
            ("1h", Some(Duration::from_secs(3600))),
            ("1m30s", Some(Duration::from_secs(90))),
            ("1.5s", Some(Duration::from_millis(1500))),
        ] {
            assert_eq!(parse_request_timeout(text), Ok(want), "{text}");
        }
        for text in ["", "s", "5x", "-1", "1s5", "abc", "5 s"] {
            let err = parse_request_timeout(text).unwrap_err();
            assert!(err.contains("invalid request timeout"), "{text}: {err}");
        }
    }

    #[test]
    fn paths_and_names() {
        assert_eq!(NODES.list_path(None), "/api/v1/nodes");
        assert_eq!(NODES.name(), "nodes");
        assert_eq!(
            IMAGE_POLICIES.list_path(Some("payments")),
            "/apis/config.openshift.io/v1/namespaces/payments/imagepolicies"
        );
        assert_eq!(
            IMAGE_POLICIES.list_path(None),
            "/apis/config.openshift.io/v1/imagepolicies"
        );
        assert_eq!(
            IMAGE_DIGEST_MIRROR_SETS.list_path(Some("ignored")),
            "/apis/config.openshift.io/v1/imagedigestmirrorsets"
        );
        assert_eq!(
            IMAGE_CONTENT_SOURCE_POLICIES.name(),
            "imagecontentsourcepolicies.operator.openshift.io"
        );
    }

    #[test]
    fn forbidden_names_the_rule() {
        let f = Forbidden {
            verb: "list".into(),
            resource: IMAGE_DIGEST_MIRROR_SETS,
            namespace: None,
            message: String::new(),
        };
        assert_eq!(
            f.to_string(),
            "cannot list imagedigestmirrorsets.config.openshift.io at the cluster scope; a ClusterRole with the rule {apiGroups: [\"config.openshift.io\"], resources: [\"imagedigestmirrorsets\"], verbs: [\"list\"]} grants it"
        );
        let f = Forbidden {
            namespace: Some("payments".into()),
            resource: IMAGE_POLICIES,
            ..f
        };
        assert!(f
            .to_string()
            .contains("in namespace payments; a Role there"));
    }

    /// What `transport_error` makes of the error of a request on a
    /// connection playing `script`, with `--request-timeout` as `timeout`.
    fn unanswered(script: Script, timeout: Option<Duration>) -> ClusterError {
        let mut config = Config::new("http://server.example:6443".parse().expect("a URL"));
        config.connect_timeout = Some(Duration::from_millis(200));
        config.read_timeout = Some(Duration::from_millis(200));
        let e = scripted::error(script, &config);
        transport_error(
            "https://api.example:6443",
            timeout,
            &e,
            "GET".to_string(),
            "/api/v1/nodes".to_string(),
        )
    }

    // The old text match filed this one as "cannot reach": "connect" is in
    // "disconnected" and in hyper's "connection error".
    #[test]
    fn transport_errors_dropped_connection() {
        let e = unanswered(
            Script::ReadFails(ErrorKind::ConnectionReset, "peer disconnected"),
            None,
        );
        assert!(matches!(e, ClusterError::Request { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "reading /api/v1/nodes from https://api.example:6443 failed: the connection was dropped before an answer (peer disconnected); the request may or may not have been carried out"
        );
        let e = unanswered(Script::Answers(b"HTTP/1.1 200 OK\r\ncontent-le"), None);
        assert!(
            e.to_string().contains("the connection was dropped before an answer (connection closed before message completed)"),
            "{e}"
        );
    }

    // The old text match filed this one as a dropped request ("reset"),
    // though no request was sent.
    #[test]
    fn transport_errors_before_a_connection() {
        for (script, want) in [
            (
                Script::ConnectFails(ErrorKind::ConnectionReset, "connection reset by peer"),
                "cannot reach the cluster at https://api.example:6443: connection reset by peer",
            ),
            (
                Script::ConnectFails(ErrorKind::ConnectionRefused, "connection refused"),
                "cannot reach the cluster at https://api.example:6443: connection refused",
            ),
            (
                Script::ConnectHangs,
                "cannot reach the cluster at https://api.example:6443: deadline has elapsed",
            ),
        ] {
            let e = unanswered(script, None);
            assert!(
                matches!(e, ClusterError::Unreachable { .. }),
                "{script:?}: {e:?}"
            );
            assert_eq!(e.to_string(), want, "{script:?}");
        }
    }

    #[test]
    fn transport_errors_timeouts() {
        let after = Duration::from_secs(5);
        for script in [Script::ConnectHangs, Script::Silent] {
            let e = unanswered(script, Some(after));
            assert_eq!(
                e.to_string(),
                "the cluster at https://api.example:6443 did not answer GET /api/v1/nodes within 5s",
                "{script:?}"
            );
        }
        // kube's own timeouts, without --request-timeout: once connected,
        // the request failed.
        let e = unanswered(Script::Silent, None);
        assert!(matches!(e, ClusterError::Request { .. }), "{e:?}");
    }

    // The old text match filed a malformed body as "cannot reach" (hyper's
    // "error reading a body from connection").
    #[test]
    fn transport_errors_other() {
        let e = unanswered(
            Script::Answers(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"),
            None,
        );
        match &e {
            ClusterError::Request { detail, .. } => {
                assert!(
                    detail.contains("error reading a body from connection"),
                    "{detail}"
                );
                assert!(!detail.contains("dropped"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
        let e = transport_error(
            "https://api.example:6443",
            Some(Duration::from_secs(5)),
            &kube::Error::Service("disconnected: connection timed out".into()),
            "GET".to_string(),
            "/api/v1/nodes".to_string(),
        );
        assert_eq!(
            e.to_string(),
            "reading /api/v1/nodes from https://api.example:6443 failed: ServiceError: disconnected: connection timed out"
        );
    }

    #[test]
    fn continue_tokens_are_encoded() {
        assert_eq!(encode_query("a+b/c=="), "a%2Bb%2Fc%3D%3D");
        assert_eq!(
            continue_token(r#"{"metadata":{"continue":"abc"},"items":[]}"#),
            Some("abc".into())
        );
        assert_eq!(
            continue_token(r#"{"metadata":{"continue":""},"items":[]}"#),
            None
        );
        assert_eq!(continue_token(r#"{"items":[]}"#), None);
    }
}
