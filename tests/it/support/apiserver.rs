//! A fake Kubernetes API server for the live-path tests.
//!
//! It listens on 127.0.0.1 over TLS (a CA and a server certificate made
//! for each server), checks a bearer token, and serves objects loaded from
//! fixture folders: discovery, list (with `limit`/`continue` paging and a
//! `resourceVersion`) and get, server-side apply (`PATCH` with
//! `application/apply-patch+yaml`, `dryRun=All`, `fieldManager`), delete
//! (with `DeleteOptions` preconditions on `uid` and `resourceVersion`, a
//! 409 Conflict when they do not hold; an object with finalizers is only
//! marked, with `deletionTimestamp`, and answered as the object, until its
//! finalizers go), a 404 for resources it does not
//! serve (no CRD), a 403 for resources it is told to forbid, injectable
//! latency and failures (any status, a 429 or 5xx with `Retry-After`, or a
//! connection reset), changes made by "someone else" when a given request
//! arrives (to race a client between its read and its write), and a log of
//! every request, body and credential included, for tests to assert on. It
//! can also serve plain HTTP, and answer requests without a token.
//!
//! It runs on its own thread and stops when dropped. It is test code only.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Map, Value};
use tokio_rustls::rustls;

/// One resource the fake knows: where it lives and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub group: &'static str,
    pub versions: &'static [&'static str],
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

/// Every resource the fake can serve. Objects are stored once per group
/// and served under each version (the real server converts; here the
/// schemas are the same for what the tests use).
pub const KINDS: &[Kind] = &[
    Kind {
        group: "apiextensions.k8s.io",
        versions: &["v1"],
        plural: "customresourcedefinitions",
        kind: "CustomResourceDefinition",
        namespaced: false,
    },
    Kind {
        group: "operator.openshift.io",
        versions: &["v1alpha1"],
        plural: "imagecontentsourcepolicies",
        kind: "ImageContentSourcePolicy",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1"],
        plural: "imagedigestmirrorsets",
        kind: "ImageDigestMirrorSet",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1"],
        plural: "imagetagmirrorsets",
        kind: "ImageTagMirrorSet",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1"],
        plural: "images",
        kind: "Image",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1"],
        plural: "clusterversions",
        kind: "ClusterVersion",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1", "v1alpha1"],
        plural: "clusterimagepolicies",
        kind: "ClusterImagePolicy",
        namespaced: false,
    },
    Kind {
        group: "config.openshift.io",
        versions: &["v1", "v1alpha1"],
        plural: "imagepolicies",
        kind: "ImagePolicy",
        namespaced: true,
    },
    Kind {
        group: "machineconfiguration.openshift.io",
        versions: &["v1"],
        plural: "machineconfigs",
        kind: "MachineConfig",
        namespaced: false,
    },
    Kind {
        group: "machineconfiguration.openshift.io",
        versions: &["v1"],
        plural: "machineconfigpools",
        kind: "MachineConfigPool",
        namespaced: false,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "nodes",
        kind: "Node",
        namespaced: false,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "namespaces",
        kind: "Namespace",
        namespaced: false,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "pods",
        kind: "Pod",
        namespaced: true,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "secrets",
        kind: "Secret",
        namespaced: true,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "configmaps",
        kind: "ConfigMap",
        namespaced: true,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "serviceaccounts",
        kind: "ServiceAccount",
        namespaced: true,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "replicationcontrollers",
        kind: "ReplicationController",
        namespaced: true,
    },
    Kind {
        group: "apps",
        versions: &["v1"],
        plural: "deployments",
        kind: "Deployment",
        namespaced: true,
    },
    Kind {
        group: "apps",
        versions: &["v1"],
        plural: "statefulsets",
        kind: "StatefulSet",
        namespaced: true,
    },
    Kind {
        group: "apps",
        versions: &["v1"],
        plural: "daemonsets",
        kind: "DaemonSet",
        namespaced: true,
    },
    Kind {
        group: "apps",
        versions: &["v1"],
        plural: "replicasets",
        kind: "ReplicaSet",
        namespaced: true,
    },
    Kind {
        group: "batch",
        versions: &["v1"],
        plural: "jobs",
        kind: "Job",
        namespaced: true,
    },
    Kind {
        group: "batch",
        versions: &["v1"],
        plural: "cronjobs",
        kind: "CronJob",
        namespaced: true,
    },
    Kind {
        group: "operators.coreos.com",
        versions: &["v1alpha1"],
        plural: "clusterserviceversions",
        kind: "ClusterServiceVersion",
        namespaced: true,
    },
    Kind {
        group: "operators.coreos.com",
        versions: &["v1alpha1"],
        plural: "catalogsources",
        kind: "CatalogSource",
        namespaced: true,
    },
    Kind {
        group: "operators.coreos.com",
        versions: &["v1alpha1"],
        plural: "subscriptions",
        kind: "Subscription",
        namespaced: true,
    },
    Kind {
        group: "operators.coreos.com",
        versions: &["v1alpha1"],
        plural: "installplans",
        kind: "InstallPlan",
        namespaced: true,
    },
    Kind {
        group: "operators.coreos.com",
        versions: &["v1"],
        plural: "operatorgroups",
        kind: "OperatorGroup",
        namespaced: true,
    },
    Kind {
        group: "cluster.open-cluster-management.io",
        versions: &["v1"],
        plural: "managedclusters",
        kind: "ManagedCluster",
        namespaced: false,
    },
    Kind {
        group: "",
        versions: &["v1"],
        plural: "events",
        kind: "Event",
        namespaced: true,
    },
    Kind {
        group: "route.openshift.io",
        versions: &["v1"],
        plural: "routes",
        kind: "Route",
        namespaced: true,
    },
    Kind {
        group: "olm.operatorframework.io",
        versions: &["v1"],
        plural: "clusterextensions",
        kind: "ClusterExtension",
        namespaced: false,
    },
    Kind {
        group: "olm.operatorframework.io",
        versions: &["v1"],
        plural: "clustercatalogs",
        kind: "ClusterCatalog",
        namespaced: false,
    },
];

/// The groups a plain Kubernetes cluster serves.
const VANILLA_GROUPS: &[&str] = &["", "apps", "batch"];

/// How a matching request fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this status and a `Status` body.
    Status(u16),
    /// Close the connection without answering.
    Reset,
    /// Answer with this status, a `Status` body and `Retry-After: VALUE`.
    RetryAfter(u16, String),
}

/// A failure to inject: requests whose method matches (any when `None`)
/// and whose path contains `path` fail, after `skip` matching requests
/// went through, `times` times (forever when `None`).
#[derive(Debug, Clone)]
pub struct FaultRule {
    pub method: Option<Method>,
    pub path: String,
    pub skip: usize,
    pub times: Option<usize>,
    pub fault: Fault,
    seen: usize,
    fired: usize,
}

impl FaultRule {
    fn new(
        method: Option<Method>,
        path: &str,
        skip: usize,
        times: Option<usize>,
        fault: Fault,
    ) -> Self {
        Self {
            method,
            path: path.to_string(),
            skip,
            times,
            fault,
            seen: 0,
            fired: 0,
        }
    }
}

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    pub method: String,
    pub path: String,
    pub query: BTreeMap<String, String>,
    pub status: u16,
    /// The request body, as text (empty when there was none).
    pub body: String,
    /// The `Authorization` header, if the request carried one.
    pub authorization: Option<String>,
    /// The `Impersonate-User`, `Impersonate-Uid` and `Impersonate-Group`
    /// headers, in order, as `Name: value`.
    pub impersonation: Vec<String>,
    /// The server name the client sent in its TLS ClientHello (SNI).
    pub sni: Option<String>,
    /// Whether the client presented [`FakeApiServer::client_cert_pem`].
    pub client_certificate: bool,
}

impl Logged {
    /// Whether the request asked for a dry run (query or `DeleteOptions` body).
    pub fn dry_run(&self) -> bool {
        self.query.get("dryRun").is_some_and(|v| v == "All") || body_dry_run(&self.body)
    }

    /// The body as JSON (`Null` when empty or not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// Whether the request could change stored state (a write that is not a dry run).
    pub fn writes(&self) -> bool {
        matches!(self.method.as_str(), "PATCH" | "POST" | "PUT" | "DELETE") && !self.dry_run()
    }
}

/// A change to a stored object, made as another client would make it.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A JSON merge patch (RFC 7386) of `plural`/`name` (cluster-scoped):
    /// the resourceVersion moves on, the uid stays.
    MergePatch {
        plural: String,
        name: String,
        patch: Value,
    },
    /// The object deleted and created again with the same content: a new
    /// uid and resourceVersion.
    Recreate { plural: String, name: String },
    /// The object deleted.
    Remove { plural: String, name: String },
}

impl Change {
    /// A merge patch of a cluster-scoped object.
    pub fn merge_patch(plural: &str, name: &str, patch: Value) -> Self {
        Self::MergePatch {
            plural: plural.to_string(),
            name: name.to_string(),
            patch,
        }
    }

    /// The object deleted and created again.
    pub fn recreate(plural: &str, name: &str) -> Self {
        Self::Recreate {
            plural: plural.to_string(),
            name: name.to_string(),
        }
    }
}

/// When a [`Change`] is made: around the `skip + 1`th request whose
/// method matches (any when `None`), whose path contains `path` and whose
/// dry-run flag matches `dry_run` (either when `None`); just before the
/// server handles it, or just after with `after`. It fires once.
#[derive(Debug, Clone)]
pub struct Trigger {
    pub method: Option<Method>,
    pub path: String,
    pub dry_run: Option<bool>,
    pub skip: usize,
    pub after: bool,
}

impl Trigger {
    /// Just before the first real (not dry-run) write of any object.
    pub fn first_write() -> Self {
        Self {
            method: None,
            path: String::new(),
            dry_run: Some(false),
            skip: 0,
            after: false,
        }
    }

    /// Just before the first real `method` request on a path containing `path`.
    pub fn before_write(method: Method, path: &str) -> Self {
        Self {
            method: Some(method),
            path: path.to_string(),
            dry_run: Some(false),
            skip: 0,
            after: false,
        }
    }

    /// Just after the server answered the first dry-run `method` request
    /// on a path containing `path`: once a client's plan is made, while it
    /// asks for confirmation.
    pub fn after_dry_run(method: Method, path: &str) -> Self {
        Self {
            method: Some(method),
            path: path.to_string(),
            dry_run: Some(true),
            skip: 0,
            after: true,
        }
    }
}

#[derive(Debug)]
struct Hook {
    trigger: Trigger,
    change: Change,
    /// Made this long after the trigger matched (a controller acting on
    /// its own time), instead of right away.
    delay: Option<Duration>,
    seen: usize,
    fired: bool,
}

#[derive(Debug, Default)]
struct State {
    /// `(group, plural)` → `(namespace, name)` → object (apiVersion of its first version).
    objects: BTreeMap<(String, String), BTreeMap<(String, String), Value>>,
    /// `group/version/plural` served.
    served: BTreeSet<String>,
    /// `(verb, plural)` that answer 403.
    forbidden: BTreeSet<(String, String)>,
    latency: Duration,
    faults: Vec<FaultRule>,
    hooks: Vec<Hook>,
    log: Vec<Logged>,
    /// Bumped by [`FakeApiServer::clear_log`]; see [`Peer::generation`].
    generation: u64,
    resource_version: u64,
    in_flight: usize,
    max_in_flight: usize,
    /// Serve plain HTTP instead of TLS.
    plain_http: bool,
    /// Answer requests that carry no token (a wrong token is still 401).
    anonymous: bool,
    /// Ask for a client certificate and accept [`FakeApiServer::client_cert_pem`].
    client_auth: bool,
    /// The certificate chain (DER, leaf first) and PKCS#8 key served in
    /// place of the fake's own.
    serving: Option<(Vec<Vec<u8>>, Vec<u8>)>,
    /// `nodes/NODE/proxy/logs`: node name → its CRI-O journal (`oc adm
    /// node-logs` output), and whether the kubelet serves the query mode
    /// (`/logs/journal`; else 406 there, as a kubelet without
    /// `enableSystemLogQuery`).
    node_journals: BTreeMap<String, String>,
    log_query_mode: bool,
    /// `nodes/NODE/proxy/logs`: the nodes whose journalctl the kubelet
    /// kills at its limit: the answer comes this late, cut in the middle.
    node_log_cuts: BTreeMap<String, Duration>,
    /// `nodes/NODE/proxy/logs`: the nodes whose answer never ends: after
    /// the journal, these bytes again and again (gzip-encoded when true).
    node_log_tails: BTreeMap<String, (Vec<u8>, bool)>,
    /// `pods/exec`: node name → the folder served as its daemon pod's `/rootfs`.
    node_roots: BTreeMap<String, PathBuf>,
    /// `pods/exec`: extra time a node's exec takes before its command runs.
    exec_delays: BTreeMap<String, Duration>,
    /// `pods/exec`: the WebSocket subprotocols served, in the server's order
    /// (empty: `v5.channel.k8s.io` and `v4.channel.k8s.io`).
    exec_protocols: Vec<String>,
    /// `pods/exec`: the subprotocol each exec was served with, in order.
    exec_sessions: Vec<String>,
    /// `pods/exec`: sessions running now, and the most at one time.
    exec_running: usize,
    exec_max_running: usize,
    /// As an Open Cluster Management hub's cluster-proxy user server:
    /// requests under `/<cluster>/` go to that cluster's fake (its state),
    /// or fail as a cluster the proxy has no tunnel to (`None`).
    proxied: BTreeMap<String, Option<Arc<Mutex<State>>>>,
}

/// Builds a fake server.
pub struct Builder {
    state: State,
}

impl Default for Builder {
    fn default() -> Self {
        Self::openshift()
    }
}

impl Builder {
    /// An OpenShift cluster: every kind of [`KINDS`] is served.
    pub fn openshift() -> Self {
        let mut state = State {
            resource_version: 1000,
            ..State::default()
        };
        for kind in KINDS {
            for version in kind.versions {
                state.served.insert(gvr(kind.group, version, kind.plural));
            }
        }
        Self { state }
    }

    /// A plain Kubernetes cluster: only the core, apps and batch groups.
    pub fn vanilla() -> Self {
        let mut builder = Self::openshift();
        builder.state.served.retain(|key| {
            let group = key.split('/').next().unwrap_or_default();
            VANILLA_GROUPS.contains(&group)
        });
        builder
    }

    /// Stops serving a resource: `plural.group` (every version) or
    /// `plural.group/version`, as an older cluster without its CRD.
    pub fn without(mut self, resource: &str) -> Self {
        let (name, version) = match resource.split_once('/') {
            Some((n, v)) => (n, Some(v)),
            None => (resource, None),
        };
        let (plural, group) = name.split_once('.').unwrap_or((name, ""));
        self.state.served.retain(|key| {
            let mut parts = key.split('/');
            let (g, v, p) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            !(g == group && p == plural && version.is_none_or(|want| want == v))
        });
        self
    }

    /// Answers 403 to `verb` on `plural` in `namespace` only.
    pub fn forbid_in(mut self, verb: &str, plural: &str, namespace: &str) -> Self {
        self.state
            .forbidden
            .insert((verb.to_string(), format!("{plural}@{namespace}")));
        self
    }

    /// Answers 403 to `verb` (list, get, patch, delete) on `plural`.
    pub fn forbid(mut self, verb: &str, plural: &str) -> Self {
        self.state
            .forbidden
            .insert((verb.to_string(), plural.to_string()));
        self
    }

    /// Serves this certificate chain (DER, leaf first) with this PKCS#8
    /// key instead of the fake's own certificate; `ca_pem` stays the fake's
    /// CA, which then signed nothing the server presents.
    pub fn serving(mut self, chain: Vec<Vec<u8>>, key_pkcs8: Vec<u8>) -> Self {
        self.state.serving = Some((chain, key_pkcs8));
        self
    }

    /// Serves plain HTTP (`http://`) instead of TLS.
    pub fn plain_http(mut self) -> Self {
        self.state.plain_http = true;
        self
    }

    /// Answers requests without an `Authorization` header as an API server
    /// allowing anonymous requests does.
    pub fn anonymous(mut self) -> Self {
        self.state.anonymous = true;
        self
    }

    /// Asks clients for a certificate and authenticates requests that
    /// present [`FakeApiServer::client_cert_pem`], as an API server with a
    /// client CA does.
    pub fn client_certificates(mut self) -> Self {
        self.state.client_auth = true;
        self
    }

    /// A machine-config-daemon pod on each node (namespace
    /// `openshift-machine-config-operator`, label
    /// `k8s-app=machine-config-daemon`, `spec.nodeName`, running), named
    /// `machine-config-daemon-<node>`.
    pub fn daemon_pods(mut self, nodes: &[&str]) -> Self {
        for node in nodes {
            self.add(daemon_pod(node));
        }
        self
    }

    /// Serves `dir` as the `/rootfs` of the daemon pod on `node`: a
    /// `pods/exec` into that pod runs its command on this machine with
    /// `sh`, each `/rootfs` in its arguments replaced by `dir`.
    pub fn node_root(mut self, node: &str, dir: impl AsRef<Path>) -> Self {
        self.state
            .node_roots
            .insert(node.to_string(), dir.as_ref().to_path_buf());
        self
    }

    /// Serves `journal` as `node`'s CRI-O log (`nodes/NODE/proxy/logs`).
    pub fn node_journal(mut self, node: &str, journal: &str) -> Self {
        self.state
            .node_journals
            .insert(node.to_string(), journal.to_string());
        self.state.log_query_mode = true;
        self
    }

    /// `node`'s log answer takes `after` and stops halfway through its
    /// lines, as the kubelet's answer when it kills journalctl at 30 s.
    pub fn node_journal_cut(mut self, node: &str, after: Duration) -> Self {
        self.state.node_log_cuts.insert(node.to_string(), after);
        self
    }

    /// `node`'s log answer never ends, as from a hostile node or API
    /// server: `journal` (not grepped), then `tail` again and again without
    /// end (an endless line when `tail` has no newline), the whole answer
    /// gzip-encoded with `Content-Encoding: gzip` when `gzip`. Served
    /// before any check, and not logged.
    pub fn node_journal_endless(
        mut self,
        node: &str,
        journal: &str,
        tail: &[u8],
        gzip: bool,
    ) -> Self {
        assert!(!tail.is_empty(), "an endless answer needs a tail");
        self.state
            .node_journals
            .insert(node.to_string(), journal.to_string());
        self.state
            .node_log_tails
            .insert(node.to_string(), (tail.to_vec(), gzip));
        self.state.log_query_mode = true;
        self
    }

    /// The kubelets answer 406 to `/proxy/logs/journal` (no system log
    /// query), and serve `/proxy/logs/?query=crio`.
    pub fn without_log_query(mut self) -> Self {
        self.state.log_query_mode = false;
        self
    }

    /// Makes every `pods/exec` on `node` take `delay` more before its command runs.
    pub fn exec_delay(mut self, node: &str, delay: Duration) -> Self {
        self.state.exec_delays.insert(node.to_string(), delay);
        self
    }

    /// Serves only these `pods/exec` subprotocols (e.g. `v4.channel.k8s.io`
    /// alone, as an API server before Kubernetes 1.30).
    pub fn exec_protocols(mut self, protocols: &[&str]) -> Self {
        self.state.exec_protocols = protocols.iter().map(|p| p.to_string()).collect();
        self
    }

    /// Delays every answer.
    pub fn latency(mut self, latency: Duration) -> Self {
        self.state.latency = latency;
        self
    }

    /// Injects a failure (see [`FaultRule`]).
    pub fn fault(
        mut self,
        method: Option<Method>,
        path: &str,
        skip: usize,
        times: Option<usize>,
        fault: Fault,
    ) -> Self {
        self.state
            .faults
            .push(FaultRule::new(method, path, skip, times, fault));
        self
    }

    /// Makes `change` when `trigger` matches a request (see [`Trigger`]).
    pub fn change_on(mut self, trigger: Trigger, change: Change) -> Self {
        self.state.hooks.push(Hook {
            trigger,
            change,
            delay: None,
            seen: 0,
            fired: false,
        });
        self
    }

    /// Makes `change` `delay` after `trigger` matches a request, as a
    /// controller would on its own time (a finalizer removed a while after
    /// the delete).
    pub fn change_after(mut self, trigger: Trigger, delay: Duration, change: Change) -> Self {
        self.state.hooks.push(Hook {
            trigger,
            change,
            delay: Some(delay),
            seen: 0,
            fired: false,
        });
        self
    }

    /// Loads a file, or every `.yaml`, `.yml` and `.json` file under a
    /// folder (objects and `List`s), as stored objects.
    pub fn objects_from(mut self, path: impl AsRef<Path>) -> Self {
        let mut files = Vec::new();
        if path.as_ref().is_file() {
            files.push(path.as_ref().to_path_buf());
        } else {
            collect(path.as_ref(), &mut files);
        }
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("fixture {}: {e}", file.display()));
            self = self.objects_from_yaml(&text);
        }
        self
    }

    /// Serves `server`'s API under `/<cluster>/`, as the cluster-proxy
    /// user server of a hub reaches a managed cluster (the hub's token is
    /// the one checked).
    pub fn proxy_to(mut self, cluster: &str, server: &FakeApiServer) -> Self {
        self.state
            .proxied
            .insert(cluster.to_string(), Some(Arc::clone(&server.state)));
        self
    }

    /// Answers 503 under `/<cluster>/`: a managed cluster the proxy cannot
    /// reach.
    pub fn proxy_down(mut self, cluster: &str) -> Self {
        self.state.proxied.insert(cluster.to_string(), None);
        self
    }

    /// Loads the objects of a YAML (or JSON) text.
    pub fn objects_from_yaml(mut self, text: &str) -> Self {
        // A fleet's worth of objects is more documents than the default
        // budget allows: the tool's own budget, bound by the text's length.
        let mut options = serde_saphyr::Options::default();
        options.budget = Some(mirrorpolicy::decode::yaml_budget(text));
        let documents: Vec<Value> = serde_saphyr::from_multiple_with_options(text, options)
            .unwrap_or_else(|e| panic!("fixture YAML does not parse: {e}"));
        for document in documents {
            self.add(document);
        }
        self
    }

    fn add(&mut self, value: Value) {
        self.state.add(value);
    }
}

impl State {
    fn add(&mut self, mut value: Value) {
        let kind = value
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind.ends_with("List") {
            if let Some(Value::Array(items)) = value.get_mut("items").map(Value::take) {
                for item in items {
                    self.add(item);
                }
            }
            return;
        }
        let Some(known) = KINDS.iter().find(|k| k.kind == kind) else {
            return;
        };
        let state = self;
        state.resource_version += 1;
        let rv = state.resource_version;
        let meta = value
            .as_object_mut()
            .expect("object")
            .entry("metadata")
            .or_insert_with(|| json!({}));
        let name = meta
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let namespace = meta
            .get("namespace")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let meta = meta.as_object_mut().expect("metadata is a mapping");
        meta.entry("resourceVersion")
            .or_insert_with(|| json!(rv.to_string()));
        meta.entry("uid")
            .or_insert_with(|| json!(format!("00000000-0000-4000-8000-{rv:012}")));
        meta.entry("creationTimestamp")
            .or_insert_with(|| json!("2026-01-01T00:00:00Z"));
        state
            .objects
            .entry((known.group.to_string(), known.plural.to_string()))
            .or_default()
            .insert((namespace, name), value);
    }
}

impl Builder {
    /// Starts the server on 127.0.0.1 on a free port.
    pub fn start(self) -> FakeApiServer {
        FakeApiServer::start(self.state)
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            out.push(path);
        }
    }
}

fn gvr(group: &str, version: &str, plural: &str) -> String {
    format!("{group}/{version}/{plural}")
}

/// A running fake API server.
pub struct FakeApiServer {
    pub addr: SocketAddr,
    /// The CA certificate (PEM) that signed the server's certificate.
    pub ca_pem: String,
    /// The bearer token the server accepts.
    pub token: String,
    /// A client certificate (PEM) the server accepts with
    /// [`Builder::client_certificates`], and its key.
    pub client_cert_pem: String,
    pub client_key_pem: String,
    state: Arc<Mutex<State>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeApiServer {
    fn start(state: State) -> Self {
        let certs = certificates(state.client_auth, state.serving.clone());
        let (ca_pem, tls) = (certs.ca_pem, certs.config);
        let client_der = certs.client_der;
        let plain_http = state.plain_http;
        let state = Arc::new(Mutex::new(state));
        let token = "fake-token-for-tests".to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("local address");
        let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
        let served_state = Arc::clone(&state);
        let served_token = token.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls));
                loop {
                    let (stream, _) = tokio::select! {
                        accepted = listener.accept() => match accepted {
                            Ok(a) => a,
                            Err(_) => continue,
                        },
                        _ = &mut rx => break,
                    };
                    let acceptor = acceptor.clone();
                    let state = Arc::clone(&served_state);
                    let token = served_token.clone();
                    let client_der = client_der.clone();
                    let generation = state.lock().expect("state").generation;
                    tokio::spawn(async move {
                        let service = move |peer: Peer| {
                            hyper::service::service_fn(move |req| {
                                let state = Arc::clone(&state);
                                let token = token.clone();
                                let peer = peer.clone();
                                async move {
                                    if let Some(endless) = endless_node_log(&req, &state) {
                                        return Ok(endless);
                                    }
                                    let response = handle(req, state, token, peer).await?;
                                    Ok::<_, std::io::Error>(response.map(|body| {
                                        body.map_err(|never| match never {}).boxed_unsync()
                                    }))
                                }
                            })
                        };
                        let builder =
                            hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                        if plain_http {
                            let _ = builder
                                .serve_connection_with_upgrades(
                                    TokioIo::new(stream),
                                    service(Peer {
                                        generation,
                                        ..Peer::default()
                                    }),
                                )
                                .await;
                            return;
                        }
                        let Ok(tls) = acceptor.accept(stream).await else {
                            return;
                        };
                        let (_, session) = tls.get_ref();
                        let peer = Peer {
                            sni: session.server_name().map(str::to_string),
                            client_certificate: session
                                .peer_certificates()
                                .and_then(|c| c.first())
                                .is_some_and(|c| c.as_ref() == client_der.as_slice()),
                            generation,
                        };
                        let _ = builder
                            .serve_connection_with_upgrades(TokioIo::new(tls), service(peer))
                            .await;
                    });
                }
            });
        });
        Self {
            addr,
            ca_pem,
            token,
            client_cert_pem: certs.client_cert_pem,
            client_key_pem: certs.client_key_pem,
            state,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    /// `https://127.0.0.1:PORT` (`http://` when serving plain HTTP).
    pub fn url(&self) -> String {
        let scheme = if self.state.lock().expect("state").plain_http {
            "http"
        } else {
            "https"
        };
        format!("{scheme}://{}", self.addr)
    }

    /// A kubeconfig for this server: context `fake`, namespace `default`,
    /// the CA inline and the token. `token` overrides the user's token.
    pub fn kubeconfig_with(&self, token: &str, namespace: &str) -> String {
        let ca = base64::engine::general_purpose::STANDARD.encode(&self.ca_pem);
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\nusers:\n- name: tester\n  user:\n    token: {token}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\n    namespace: {namespace}\ncurrent-context: fake\n",
            self.url()
        )
    }

    /// A kubeconfig that works.
    pub fn kubeconfig(&self) -> String {
        self.kubeconfig_with(&self.token, "default")
    }

    /// Writes [`Self::kubeconfig`] to `dir/kubeconfig` and returns its path.
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        std::fs::write(&path, self.kubeconfig()).expect("write kubeconfig");
        path
    }

    /// Adds an object (YAML or JSON text) while the server runs.
    pub fn add_objects_from_yaml(&self, text: &str) {
        // A fleet's worth of objects is more documents than the default
        // budget allows: the tool's own budget, bound by the text's length.
        let mut options = serde_saphyr::Options::default();
        options.budget = Some(mirrorpolicy::decode::yaml_budget(text));
        let documents: Vec<Value> = serde_saphyr::from_multiple_with_options(text, options)
            .unwrap_or_else(|e| panic!("fixture YAML does not parse: {e}"));
        let mut state = self.state.lock().expect("state");
        for document in documents {
            state.add(document);
        }
    }

    /// Every request so far.
    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().expect("state").log.clone()
    }

    /// The most requests the server was answering at one time.
    pub fn max_in_flight(&self) -> usize {
        self.state.lock().expect("state").max_in_flight
    }

    /// The subprotocol of each `pods/exec` session served, in order.
    pub fn exec_sessions(&self) -> Vec<String> {
        self.state.lock().expect("state").exec_sessions.clone()
    }

    /// The most `pods/exec` sessions that ran at one time.
    pub fn max_exec_sessions(&self) -> usize {
        self.state.lock().expect("state").exec_max_running
    }

    /// Forgets the requests logged so far.
    pub fn clear_log(&self) {
        let mut state = self.state.lock().expect("state");
        state.generation += 1;
        state.log.clear();
    }

    /// A stored object, as the server would return it.
    pub fn object(&self, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        let state = self.state.lock().expect("state");
        let kind = KINDS.iter().find(|k| k.plural == plural)?;
        state
            .objects
            .get(&(kind.group.to_string(), plural.to_string()))?
            .get(&(namespace.to_string(), name.to_string()))
            .cloned()
    }

    /// The names of the stored objects of a resource.
    pub fn names(&self, plural: &str) -> Vec<String> {
        let state = self.state.lock().expect("state");
        let Some(kind) = KINDS.iter().find(|k| k.plural == plural) else {
            return Vec::new();
        };
        state
            .objects
            .get(&(kind.group.to_string(), plural.to_string()))
            .map(|m| m.keys().map(|(_, n)| n.clone()).collect())
            .unwrap_or_default()
    }

    /// Makes `change` when `trigger` matches a request (see [`Trigger`]).
    pub fn add_change(&self, trigger: Trigger, change: Change) {
        self.state.lock().expect("state").hooks.push(Hook {
            trigger,
            change,
            delay: None,
            seen: 0,
            fired: false,
        });
    }

    /// Makes `change` now.
    pub fn change(&self, change: &Change) {
        self.state.lock().expect("state").make(change);
    }

    /// Whether every change registered with a trigger was made.
    pub fn changes_made(&self) -> bool {
        self.state
            .lock()
            .expect("state")
            .hooks
            .iter()
            .all(|h| h.fired)
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        self.state.lock().expect("state").faults.clear();
    }

    /// Injects a fault on the running server.
    pub fn add_fault(
        &self,
        method: Option<Method>,
        path: &str,
        skip: usize,
        times: Option<usize>,
        fault: Fault,
    ) {
        self.state
            .lock()
            .expect("state")
            .faults
            .push(FaultRule::new(method, path, skip, times, fault));
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What a TLS connection told about the client.
#[derive(Debug, Clone, Default)]
struct Peer {
    sni: Option<String>,
    client_certificate: bool,
    /// The [`State::generation`] when the connection was accepted: a
    /// request still in flight from a client that has exited is not logged
    /// after [`FakeApiServer::clear_log`].
    generation: u64,
}

/// The server's TLS configuration, its CA and a client certificate.
struct Certificates {
    ca_pem: String,
    config: rustls::ServerConfig,
    client_cert_pem: String,
    client_key_pem: String,
    client_der: Vec<u8>,
}

/// A fresh CA, a server certificate for 127.0.0.1 and localhost, and a
/// client certificate (asked for with `client_auth`).
fn certificates(client_auth: bool, serving: Option<(Vec<Vec<u8>>, Vec<u8>)>) -> Certificates {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "fake-apiserver-ca");
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
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "fake-apiserver");
    let cert = params.signed_by(&key, &ca).expect("server certificate");
    let client_key = rcgen::KeyPair::generate().expect("client key");
    let mut client_params =
        rcgen::CertificateParams::new(Vec::<String>::new()).expect("client params");
    client_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "system:admin");
    client_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let client = client_params
        .signed_by(&client_key, &ca)
        .expect("client certificate");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .expect("TLS versions");
    let builder = if client_auth {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca.der().clone()).expect("CA as a root");
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .expect("client verifier");
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let mut config = builder
        .with_single_cert(
            match &serving {
                Some((chain, _)) => chain.iter().map(|c| c.clone().into()).collect(),
                None => vec![cert.der().clone(), ca.der().clone()],
            },
            rustls::pki_types::PrivateKeyDer::Pkcs8(match serving {
                Some((_, key)) => key.into(),
                None => key.serialize_der().into(),
            }),
        )
        .expect("server TLS config");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Certificates {
        ca_pem: ca.pem(),
        config,
        client_cert_pem: client.pem(),
        client_key_pem: client_key.serialize_pem(),
        client_der: client.der().to_vec(),
    }
}

type Reply = Result<Response<Full<Bytes>>, std::io::Error>;

/// A body that may never end.
type Streamed = http_body_util::combinators::UnsyncBoxBody<Bytes, std::io::Error>;

/// The answer of a node whose log never ends ([`FakeApiServer::node_journal_endless`]):
/// its journal, then its tail forever, in frames of at least 64 KiB (gzip:
/// one gzip member per frame, each of 1 MiB of text, as a multi-member
/// stream decodes); `None` for any other request.
fn endless_node_log(
    req: &Request<Incoming>,
    state: &Arc<Mutex<State>>,
) -> Option<Response<Streamed>> {
    use futures_util::StreamExt;
    let (node, _) = node_log_target(req.uri().path())?;
    let state = state.lock().expect("state");
    let (tail, gzip) = state.node_log_tails.get(node)?.clone();
    let journal = state.node_journals.get(node).cloned().unwrap_or_default();
    let mut chunk = Vec::new();
    while chunk.len() < if gzip { 1 << 20 } else { 64 << 10 } {
        chunk.extend_from_slice(&tail);
    }
    let member = |data: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).expect("gzip");
        e.finish().expect("gzip")
    };
    let (head, chunk) = match gzip {
        true => (member(journal.as_bytes()), member(&chunk)),
        false => (journal.into_bytes(), chunk),
    };
    let frames = std::iter::once(Bytes::from(head)).chain(std::iter::repeat(Bytes::from(chunk)));
    let stream = futures_util::stream::iter(frames)
        .map(|b| Ok::<_, std::io::Error>(hyper::body::Frame::data(b)));
    let mut response = Response::builder()
        .status(200)
        .header("Content-Type", "text/plain");
    if gzip {
        response = response.header("Content-Encoding", "gzip");
    }
    Some(
        response
            .body(http_body_util::StreamBody::new(stream).boxed_unsync())
            .expect("response"),
    )
}

async fn handle(
    mut req: Request<Incoming>,
    state: Arc<Mutex<State>>,
    token: String,
    peer: Peer,
) -> Reply {
    let websocket = WebSocketRequest::of(&mut req);
    let raw_query = req.uri().query().unwrap_or_default().to_string();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let query = parse_query(req.uri().query().unwrap_or_default());
    let authorization = req
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let impersonation: Vec<String> = ["Impersonate-User", "Impersonate-Uid", "Impersonate-Group"]
        .iter()
        .flat_map(|name| {
            req.headers()
                .get_all(*name)
                .iter()
                .map(move |v| format!("{name}: {}", v.to_str().unwrap_or("(not text)")))
        })
        .collect();
    let anonymous = state.lock().expect("state").anonymous;
    // As the API server's authenticators: a client certificate signed by
    // the CA, else the bearer token, else anonymous when allowed.
    let authorized = peer.client_certificate
        || match &authorization {
            Some(v) => *v == format!("Bearer {token}"),
            None => anonymous,
        };
    let content_type = req
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let accept_encoding = req
        .headers()
        .get(hyper::header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return Err(std::io::Error::other(e)),
    };
    let (latency, fault) = {
        let mut state = state.lock().expect("state");
        let fault = state.faults.iter_mut().find_map(|rule| {
            let matches =
                rule.method.as_ref().is_none_or(|m| *m == method) && path.contains(&rule.path);
            if !matches {
                return None;
            }
            rule.seen += 1;
            if rule.seen <= rule.skip || rule.times.is_some_and(|t| rule.fired >= t) {
                return None;
            }
            rule.fired += 1;
            Some(rule.fault.clone())
        });
        (state.latency, fault)
    };
    {
        let mut state = state.lock().expect("state");
        state.in_flight += 1;
        state.max_in_flight = state.max_in_flight.max(state.in_flight);
    }
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    state.lock().expect("state").in_flight -= 1;
    let log = |status: u16| {
        let mut state = state.lock().expect("state");
        if state.generation != peer.generation {
            return;
        }
        state.log.push(Logged {
            method: method.to_string(),
            path: path.clone(),
            query: query.clone(),
            status,
            body: String::from_utf8_lossy(&body).into_owned(),
            authorization: authorization.clone(),
            impersonation: impersonation.clone(),
            sni: peer.sni.clone(),
            client_certificate: peer.client_certificate,
        });
    };
    match fault {
        Some(Fault::Reset) => {
            log(0);
            return Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "injected connection reset",
            ));
        }
        Some(Fault::Status(code)) => {
            log(code);
            return Ok(status_response(code, "InternalError", "injected failure"));
        }
        Some(Fault::RetryAfter(code, value)) => {
            log(code);
            let mut response =
                status_response(code, "TooManyRequests", "injected failure, retry later");
            response.headers_mut().insert(
                hyper::header::RETRY_AFTER,
                hyper::header::HeaderValue::from_str(&value).expect("Retry-After value"),
            );
            return Ok(response);
        }
        None => {}
    }
    let proxied = {
        let first = path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default();
        let state = state.lock().expect("state");
        state
            .proxied
            .get(first)
            .map(|backend| (format!("/{first}"), backend.clone()))
    };
    if let (true, Some((prefix, backend))) = (authorized, proxied) {
        let inner = path.strip_prefix(&prefix).unwrap_or_default().to_string();
        let Some(backend) = backend else {
            log(503);
            return Ok(status_response(
                503,
                "ServiceUnavailable",
                "cluster-proxy: no tunnel to the managed cluster",
            ));
        };
        let response = {
            let mut backend = backend.lock().expect("backend state");
            let response = route(&mut backend, &method, &inner, &query, &content_type, &body);
            backend.log.push(Logged {
                method: method.to_string(),
                path: inner.clone(),
                query: query.clone(),
                status: response.status().as_u16(),
                body: String::from_utf8_lossy(&body).into_owned(),
                authorization: authorization.clone(),
                impersonation: impersonation.clone(),
                sni: None,
                client_certificate: false,
            });
            response
        };
        log(response.status().as_u16());
        return Ok(response);
    }
    let watching =
        method == Method::GET && query.get("watch").is_some_and(|w| w == "true" || w == "1");
    if authorized && watching {
        let response = watch(&state, &path, &query).await;
        log(response.status().as_u16());
        return Ok(response);
    }
    let cut = node_log_target(&path).and_then(|(node, _)| {
        state
            .lock()
            .expect("state")
            .node_log_cuts
            .get(node)
            .copied()
    });
    if let Some(after) = cut.filter(|_| authorized) {
        tokio::time::sleep(after).await;
    }
    let response = if authorized {
        let shared = Arc::clone(&state);
        let mut state = state.lock().expect("state");
        let mut later = state.fire_hooks(&method, &path, &query, &body, false);
        let response = match (exec_target(&path), node_log_target(&path)) {
            (Some((namespace, pod)), _) => {
                exec(&shared, &mut state, namespace, pod, &raw_query, websocket)
            }
            (None, Some((node, query_mode))) => {
                node_logs(&state, node, query_mode, &query, &accept_encoding)
            }
            (None, None) => route(&mut state, &method, &path, &query, &content_type, &body),
        };
        later.extend(state.fire_hooks(&method, &path, &query, &body, true));
        for (delay, change) in later {
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                shared.lock().expect("state").make(&change);
            });
        }
        response
    } else {
        status_response(401, "Unauthorized", "Unauthorized")
    };
    log(response.status().as_u16());
    Ok(response)
}

/// A watch, as far as `kubectl wait --for=delete` (and `kubectl delete`'s
/// wait) uses one: with a `metadata.name` field selector, the answer is a
/// `DELETED` event once that object is gone, sent when it goes; without
/// one (or when it stays for five seconds), the watch ends with no event
/// and the client watches again.
async fn watch(
    state: &Arc<Mutex<State>>,
    path: &str,
    query: &BTreeMap<String, String>,
) -> Response<Full<Bytes>> {
    let mut list_query = query.clone();
    list_query.remove("watch");
    let name = query
        .get("fieldSelector")
        .and_then(|f| f.strip_prefix("metadata.name="))
        .map(str::to_string);
    let started = std::time::Instant::now();
    let mut last: Option<Value> = None;
    while let Some(name) = &name {
        let listed = {
            let mut state = state.lock().expect("state");
            route(&mut state, &Method::GET, path, &list_query, "", &[])
        };
        let Ok(body) = listed.into_body().collect().await;
        let list: Value = serde_json::from_slice(&body.to_bytes()).unwrap_or(Value::Null);
        let Some(items) = list.get("items").and_then(Value::as_array) else {
            break;
        };
        if let Some(object) = items.first() {
            last = Some(object.clone());
        } else {
            let object = last.take().unwrap_or_else(|| {
                let kind = list["kind"].as_str().unwrap_or_default();
                json!({"apiVersion": list["apiVersion"], "kind": kind.strip_suffix("List"),
                       "metadata": {"name": name}})
            });
            let event = json!({"type": "DELETED", "object": object});
            return json_response(200, &event);
        }
        if started.elapsed() > Duration::from_secs(5) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Response::builder()
        .status(StatusCode::OK)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::new()))
        .expect("response")
}

fn parse_query(query: &str) -> BTreeMap<String, String> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k.to_string(), percent_decode(v))
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn json_response(code: u16, value: &Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(StatusCode::from_u16(code).expect("status"))
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(value.to_string())))
        .expect("response")
}

fn status_response(code: u16, reason: &str, message: &str) -> Response<Full<Bytes>> {
    json_response(
        code,
        &json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        }),
    )
}

/// A parsed resource path.
struct Target<'a> {
    kind: &'a Kind,
    version: String,
    namespace: Option<String>,
    name: Option<String>,
}

fn route(
    state: &mut State,
    method: &Method,
    path: &str,
    query: &BTreeMap<String, String>,
    content_type: &str,
    body: &[u8],
) -> Response<Full<Bytes>> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api"] => return json_response(200, &json!({"kind": "APIVersions", "versions": ["v1"]})),
        ["apis"] => return json_response(200, &group_list(state)),
        ["api", version] => return resource_list(state, "", version),
        ["apis", group, version] => return resource_list(state, group, version),
        // kubectl's client-side validation (`--validate=strict`, its
        // default) reads the OpenAPI documents: an empty v3 index (no
        // group served: the `fieldValidation` parameter counts as
        // unsupported) and an empty v2 document (protobuf, zero bytes: no
        // schema, so only the object's own shape is checked, as its
        // `apiVersion` and `kind`).
        ["openapi", "v3"] => return json_response(200, &json!({"paths": {}})),
        ["openapi", "v2"] => {
            return Response::builder()
                .status(StatusCode::OK)
                .header(
                    hyper::header::CONTENT_TYPE,
                    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                )
                .body(Full::new(Bytes::new()))
                .expect("response")
        }
        _ => {}
    }
    let (group, version, rest) = match segments.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => {
            return status_response(
                404,
                "NotFound",
                "the server could not find the requested resource",
            )
        }
    };
    let (namespace, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (Some(ns.to_string()), rest),
        _ => (None, rest),
    };
    let (plural, name) = match rest {
        [plural] => (*plural, None),
        [plural, name] => (*plural, Some(name.to_string())),
        _ => {
            return status_response(
                404,
                "NotFound",
                "the server could not find the requested resource",
            )
        }
    };
    let Some(kind) = KINDS
        .iter()
        .find(|k| k.group == group && k.plural == plural && k.versions.contains(&version))
    else {
        return status_response(
            404,
            "NotFound",
            "the server could not find the requested resource",
        );
    };
    if !state.served.contains(&gvr(group, version, plural))
        || (namespace.is_some() && !kind.namespaced)
    {
        return status_response(
            404,
            "NotFound",
            "the server could not find the requested resource",
        );
    }
    let target = Target {
        kind,
        version: version.to_string(),
        namespace,
        name,
    };
    let verb = match (method, target.name.is_some()) {
        (&Method::GET, false) => "list",
        (&Method::GET, true) => "get",
        (&Method::PATCH, true) => "patch",
        (&Method::DELETE, true) => "delete",
        _ => return status_response(405, "MethodNotAllowed", "method not allowed"),
    };
    let in_namespace = target
        .namespace
        .as_ref()
        .map(|ns| (verb.to_string(), format!("{plural}@{ns}")));
    if state
        .forbidden
        .contains(&(verb.to_string(), plural.to_string()))
        || in_namespace.is_some_and(|k| state.forbidden.contains(&k))
    {
        return forbidden(verb, &target);
    }
    match verb {
        "list" => list(state, &target, query),
        "get" => get(state, &target),
        "patch" => apply(state, &target, query, content_type, body),
        _ => delete(state, &target, query, body),
    }
}

fn forbidden(verb: &str, target: &Target<'_>) -> Response<Full<Bytes>> {
    let kind = target.kind;
    let resource = if kind.group.is_empty() {
        kind.plural.to_string()
    } else {
        format!("{}.{}", kind.plural, kind.group)
    };
    let scope = match &target.namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_string(),
    };
    let message = format!(
        "{resource} is forbidden: User \"system:serviceaccount:ci:reader\" cannot {verb} resource \"{}\" in API group \"{}\" {scope}",
        kind.plural, kind.group
    );
    let mut response = status_response(403, "Forbidden", &message);
    let body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": "Forbidden",
        "details": {"group": kind.group, "kind": kind.plural},
        "code": 403,
    });
    *response.body_mut() = Full::new(Bytes::from(body.to_string()));
    response
}

fn group_list(state: &State) -> Value {
    let mut groups: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for kind in KINDS.iter().filter(|k| !k.group.is_empty()) {
        for version in kind.versions {
            if state
                .served
                .contains(&gvr(kind.group, version, kind.plural))
            {
                groups.entry(kind.group).or_default().insert(version);
            }
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(name, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
                .collect();
            json!({"name": name, "preferredVersion": versions[0].clone(), "versions": versions})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

fn resource_list(state: &State, group: &str, version: &str) -> Response<Full<Bytes>> {
    let resources: Vec<Value> = KINDS
        .iter()
        .filter(|k| k.group == group && state.served.contains(&gvr(group, version, k.plural)))
        .map(|k| {
            json!({
                "name": k.plural, "singularName": k.kind.to_lowercase(), "namespaced": k.namespaced,
                "kind": k.kind, "verbs": ["delete", "get", "list", "patch", "create", "update", "watch"],
            })
        })
        .collect();
    if resources.is_empty() {
        return status_response(
            404,
            "NotFound",
            "the server could not find the requested resource",
        );
    }
    let group_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    json_response(
        200,
        &json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}),
    )
}

fn api_version(kind: &Kind, version: &str) -> String {
    if kind.group.is_empty() {
        version.to_string()
    } else {
        format!("{}/{version}", kind.group)
    }
}

/// The object as served under `version`.
fn served(kind: &Kind, version: &str, object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.insert("apiVersion".into(), json!(api_version(kind, version)));
        map.insert("kind".into(), json!(kind.kind));
    }
    object
}

fn list(
    state: &State,
    target: &Target<'_>,
    query: &BTreeMap<String, String>,
) -> Response<Full<Bytes>> {
    let kind = target.kind;
    let empty = BTreeMap::new();
    let stored = state
        .objects
        .get(&(kind.group.to_string(), kind.plural.to_string()))
        .unwrap_or(&empty);
    let all: Vec<&Value> = stored
        .iter()
        .filter(|((ns, _), _)| target.namespace.as_ref().is_none_or(|want| want == ns))
        .map(|(_, v)| v)
        .filter(|v| selects(query.get("labelSelector").map(String::as_str), v))
        .filter(|v| selects_field(query.get("fieldSelector").map(String::as_str), v))
        .collect();
    let start: usize = match query.get("continue") {
        Some(token) => match token.strip_prefix("offset-").and_then(|n| n.parse().ok()) {
            Some(n) => n,
            None => return status_response(400, "BadRequest", "invalid continue token"),
        },
        None => 0,
    };
    let limit: usize = query
        .get("limit")
        .and_then(|l| l.parse().ok())
        .filter(|&l| l > 0)
        .unwrap_or(usize::MAX);
    let end = start.saturating_add(limit).min(all.len());
    let items: Vec<Value> = all[start.min(all.len())..end]
        .iter()
        .map(|o| served(kind, &target.version, o))
        .collect();
    let mut metadata = Map::new();
    metadata.insert(
        "resourceVersion".into(),
        json!(state.resource_version.to_string()),
    );
    if end < all.len() {
        metadata.insert("continue".into(), json!(format!("offset-{end}")));
        metadata.insert("remainingItemCount".into(), json!(all.len() - end));
    }
    json_response(
        200,
        &json!({
            "kind": format!("{}List", kind.kind),
            "apiVersion": api_version(kind, &target.version),
            "metadata": metadata,
            "items": items,
        }),
    )
}

/// Whether a label selector (`k=v`, `k==v`, `k!=v`, `k`, `!k`, joined by
/// commas) selects the object.
fn selects(selector: Option<&str>, object: &Value) -> bool {
    let Some(selector) = selector else {
        return true;
    };
    let label = |key: &str| {
        object
            .pointer("/metadata/labels")
            .and_then(|l| l.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    selector
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .all(|requirement| {
            // Set-based requirements are not evaluated: everything is served.
            if requirement.contains('(') {
                true
            } else if let Some((k, v)) = requirement.split_once("!=") {
                label(k.trim()).as_deref() != Some(v.trim())
            } else if let Some((k, v)) = requirement
                .split_once("==")
                .or_else(|| requirement.split_once('='))
            {
                label(k.trim()).as_deref() == Some(v.trim())
            } else if let Some(k) = requirement.strip_prefix('!') {
                label(k.trim()).is_none()
            } else {
                label(requirement).is_some()
            }
        })
}

/// Whether a field selector selects the object: only `metadata.name=NAME`
/// (as `kubectl wait` and `kubectl delete` send it) is evaluated.
fn selects_field(selector: Option<&str>, object: &Value) -> bool {
    let Some(selector) = selector else {
        return true;
    };
    selector
        .split(',')
        .all(|requirement| match requirement.split_once('=') {
            Some(("metadata.name", want)) => {
                object.pointer("/metadata/name").and_then(Value::as_str) == Some(want)
            }
            _ => true,
        })
}

fn key(target: &Target<'_>) -> ((String, String), (String, String)) {
    (
        (
            target.kind.group.to_string(),
            target.kind.plural.to_string(),
        ),
        (
            target.namespace.clone().unwrap_or_default(),
            target.name.clone().unwrap_or_default(),
        ),
    )
}

fn not_found(target: &Target<'_>) -> Response<Full<Bytes>> {
    let kind = target.kind;
    let resource = if kind.group.is_empty() {
        kind.plural.to_string()
    } else {
        format!("{}.{}", kind.plural, kind.group)
    };
    status_response(
        404,
        "NotFound",
        &format!(
            "{resource} \"{}\" not found",
            target.name.as_deref().unwrap_or_default()
        ),
    )
}

fn get(state: &State, target: &Target<'_>) -> Response<Full<Bytes>> {
    let (collection, id) = key(target);
    match state.objects.get(&collection).and_then(|m| m.get(&id)) {
        Some(object) => json_response(200, &served(target.kind, &target.version, object)),
        None => not_found(target),
    }
}

/// Server-side apply, simplified: the applied configuration replaces the
/// object's top-level fields (metadata is merged: labels and annotations
/// are replaced, identity and server fields kept). A change bumps the
/// resourceVersion; a dry run computes the answer and stores nothing.
fn apply(
    state: &mut State,
    target: &Target<'_>,
    query: &BTreeMap<String, String>,
    content_type: &str,
    body: &[u8],
) -> Response<Full<Bytes>> {
    if !content_type.starts_with("application/apply-patch+yaml") {
        return status_response(
            415,
            "UnsupportedMediaType",
            &format!("the body of the request was in an unknown format - accepted media types include: application/apply-patch+yaml (got {content_type})"),
        );
    }
    let Some(manager) = query.get("fieldManager").filter(|m| !m.is_empty()) else {
        return status_response(400, "BadRequest", "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch");
    };
    let text = String::from_utf8_lossy(body);
    let applied: Value = match serde_saphyr::from_str(&text) {
        Ok(v) => v,
        Err(e) => return status_response(400, "BadRequest", &format!("error decoding YAML: {e}")),
    };
    let applied_name = applied.pointer("/metadata/name").and_then(Value::as_str);
    if applied_name != target.name.as_deref() {
        return status_response(
            400,
            "BadRequest",
            "the name of the object does not match the name on the URL",
        );
    }
    if applied.get("kind").and_then(Value::as_str) != Some(target.kind.kind) {
        return status_response(
            400,
            "BadRequest",
            "the kind of the object does not match the resource",
        );
    }
    let dry_run = query.get("dryRun").is_some_and(|v| v == "All");
    let (collection, id) = key(target);
    let existing = state
        .objects
        .get(&collection)
        .and_then(|m| m.get(&id))
        .cloned();
    let mut next = existing.clone().unwrap_or_else(|| json!({"metadata": {}}));
    let next_map = next.as_object_mut().expect("object");
    for (field, value) in applied.as_object().into_iter().flatten() {
        if field == "metadata" {
            let meta = next_map
                .entry("metadata")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("metadata");
            for part in ["name", "namespace", "labels", "annotations"] {
                if let Some(v) = value.get(part) {
                    meta.insert(part.into(), v.clone());
                }
            }
        } else if field != "status" {
            next_map.insert(field.clone(), value.clone());
        }
    }
    let changed = existing.as_ref() != Some(&next);
    let created = existing.is_none();
    if changed {
        let rv = state.resource_version + 1;
        let meta = next
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
            .expect("metadata");
        meta.insert("resourceVersion".into(), json!(rv.to_string()));
        meta.entry("uid")
            .or_insert_with(|| json!(format!("00000000-0000-4000-8000-{rv:012}")));
        meta.entry("creationTimestamp")
            .or_insert_with(|| json!("2026-01-01T00:00:00Z"));
        meta.insert(
            "managedFields".into(),
            json!([{"manager": manager, "operation": "Apply", "apiVersion": api_version(target.kind, &target.version)}]),
        );
        if !dry_run {
            state.resource_version = rv;
            state
                .objects
                .entry(collection)
                .or_default()
                .insert(id, next.clone());
        }
    }
    json_response(
        if created { 201 } else { 200 },
        &served(target.kind, &target.version, &next),
    )
}

/// Whether a `DeleteOptions` body asks for a dry run.
fn body_dry_run(body: &str) -> bool {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("dryRun").cloned())
        .and_then(|v| v.as_array().cloned())
        .is_some_and(|a| a.iter().any(|x| x == "All"))
}

/// A delete, with the `DeleteOptions` preconditions the generic registry
/// checks (k8s.io/apiserver storage `Preconditions.Check`: uid first, then
/// resourceVersion), answered as the real server answers a failed one: a
/// 409 `Conflict` Status whose message carries the storage error.
fn delete(
    state: &mut State,
    target: &Target<'_>,
    query: &BTreeMap<String, String>,
    body: &[u8],
) -> Response<Full<Bytes>> {
    let text = String::from_utf8_lossy(body);
    let options: Value = if text.trim().is_empty() {
        json!({})
    } else {
        match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                return status_response(
                    400,
                    "BadRequest",
                    &format!("error decoding DeleteOptions: {e}"),
                )
            }
        }
    };
    let dry_run = query.get("dryRun").is_some_and(|v| v == "All") || body_dry_run(&text);
    let (collection, id) = key(target);
    let Some(objects) = state.objects.get_mut(&collection) else {
        return not_found(target);
    };
    let Some(current) = objects.get(&id) else {
        return not_found(target);
    };
    let meta = |field: &str| {
        current
            .pointer(&format!("/metadata/{field}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    for (field, label) in [("uid", "UID"), ("resourceVersion", "ResourceVersion")] {
        let Some(wanted) = options
            .pointer(&format!("/preconditions/{field}"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let actual = meta(field);
        if wanted != actual {
            let kind = target.kind;
            let name = target.name.as_deref().unwrap_or_default();
            let message = format!(
                "Operation cannot be fulfilled on {}.{} \"{name}\": StorageError: invalid object, Code: 4, Key: /kubernetes.io/{}/{}/{name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: {label} in precondition: {wanted}, {label} in object meta: {actual}",
                kind.plural, kind.group, kind.group, kind.plural
            );
            return json_response(
                409,
                &json!({
                    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                    "message": message, "reason": "Conflict",
                    "details": {"name": name, "group": kind.group, "kind": kind.plural},
                    "code": 409,
                }),
            );
        }
    }
    if !finalizers(current).is_empty() {
        return mark_deleted(state, target, dry_run);
    }
    if !dry_run {
        objects.remove(&id);
    }
    json_response(
        200,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                "details": {"name": target.name, "group": target.kind.group, "kind": target.kind.plural}}),
    )
}

/// The finalizers of a stored object.
fn finalizers(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The delete of an object that finalizers hold, as the generic registry
/// does it (`BeforeDelete` graceful path, `deletionTimestamp` set once):
/// the object stays, marked, and the answer is the object itself (200),
/// not a `Status`; it goes when its last finalizer is removed.
fn mark_deleted(state: &mut State, target: &Target<'_>, dry_run: bool) -> Response<Full<Bytes>> {
    let (collection, id) = key(target);
    let rv = state.resource_version + 1;
    let object = state
        .objects
        .get_mut(&collection)
        .and_then(|m| m.get_mut(&id))
        .expect("object checked by the caller");
    let mut marked = object.clone();
    if marked.pointer("/metadata/deletionTimestamp").is_none() {
        marked["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:01Z");
        marked["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        marked["metadata"]["resourceVersion"] = json!(rv.to_string());
        if !dry_run {
            *object = marked.clone();
            state.resource_version = rv;
        }
    }
    json_response(200, &served(target.kind, &target.version, &marked))
}

impl State {
    /// Makes the changes whose trigger matches this request; returns those
    /// to make later, each with its delay.
    fn fire_hooks(
        &mut self,
        method: &Method,
        path: &str,
        query: &BTreeMap<String, String>,
        body: &[u8],
        after: bool,
    ) -> Vec<(Duration, Change)> {
        let dry_run = query.get("dryRun").is_some_and(|v| v == "All")
            || body_dry_run(&String::from_utf8_lossy(body));
        let write = matches!(
            *method,
            Method::PATCH | Method::POST | Method::PUT | Method::DELETE
        );
        let mut due = Vec::new();
        let mut later = Vec::new();
        for hook in self.hooks.iter_mut().filter(|h| !h.fired) {
            let t = &hook.trigger;
            if t.after != after
                || t.method.as_ref().is_some_and(|m| m != method)
                || !path.contains(&t.path)
                || t.dry_run.is_some_and(|want| !write || want != dry_run)
            {
                continue;
            }
            hook.seen += 1;
            if hook.seen > t.skip {
                hook.fired = true;
                match hook.delay {
                    Some(delay) => later.push((delay, hook.change.clone())),
                    None => due.push(hook.change.clone()),
                }
            }
        }
        for change in &due {
            self.make(change);
        }
        later
    }

    /// Makes one change to the stored objects.
    fn make(&mut self, change: &Change) {
        let (plural, name) = match change {
            Change::MergePatch { plural, name, .. }
            | Change::Recreate { plural, name }
            | Change::Remove { plural, name } => (plural, name),
        };
        let kind = KINDS
            .iter()
            .find(|k| k.plural == plural)
            .unwrap_or_else(|| panic!("unknown resource {plural}"));
        let collection = (kind.group.to_string(), plural.clone());
        let id = (String::new(), name.clone());
        self.resource_version += 1;
        let rv = self.resource_version;
        let objects = self.objects.entry(collection).or_default();
        match change {
            Change::Remove { .. } => {
                objects.remove(&id);
            }
            Change::MergePatch { patch, .. } => {
                let object = objects
                    .get_mut(&id)
                    .unwrap_or_else(|| panic!("no {plural}/{name} to patch"));
                merge_patch(object, patch);
                object["metadata"]["resourceVersion"] = json!(rv.to_string());
                // As the API server: an object marked for deletion goes
                // once its last finalizer is removed.
                if object.pointer("/metadata/deletionTimestamp").is_some()
                    && finalizers(object).is_empty()
                {
                    objects.remove(&id);
                }
            }
            Change::Recreate { .. } => {
                let object = objects
                    .get_mut(&id)
                    .unwrap_or_else(|| panic!("no {plural}/{name} to recreate"));
                object["metadata"]["resourceVersion"] = json!(rv.to_string());
                object["metadata"]["uid"] = json!(format!("00000000-0000-4000-8000-{rv:012}"));
            }
        }
    }
}

/// RFC 7386 JSON merge patch.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let map = target.as_object_mut().expect("object");
    for (key, value) in patch {
        if value.is_null() {
            map.remove(key);
        } else {
            merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// A daemon pod object on `node`.
fn daemon_pod(node: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": format!("machine-config-daemon-{node}"),
            "namespace": "openshift-machine-config-operator",
            "labels": {"k8s-app": "machine-config-daemon"},
        },
        "spec": {
            "nodeName": node,
            "containers": [
                {"name": "machine-config-daemon", "image": "quay.io/openshift/mcd@sha256:0000000000000000000000000000000000000000000000000000000000000000"},
                {"name": "kube-rbac-proxy", "image": "quay.io/openshift/proxy@sha256:0000000000000000000000000000000000000000000000000000000000000000"},
            ],
        },
        "status": {"phase": "Running"},
    })
}

/// A WebSocket upgrade request: its key, the subprotocols offered, and the
/// connection once upgraded.
struct WebSocketRequest {
    key: String,
    protocols: Vec<String>,
    upgrade: hyper::upgrade::OnUpgrade,
}

impl WebSocketRequest {
    fn of(req: &mut Request<Incoming>) -> Option<Self> {
        let header = |name: &str| {
            req.headers()
                .get_all(name)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect::<Vec<_>>()
                .join(",")
        };
        if !header("upgrade").eq_ignore_ascii_case("websocket") {
            return None;
        }
        let key = header("sec-websocket-key");
        let protocols = header("sec-websocket-protocol")
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        Some(Self {
            key,
            protocols,
            upgrade: hyper::upgrade::on(req),
        })
    }
}

/// `/api/v1/nodes/NODE/proxy/logs/journal` → `(NODE, true)`,
/// `/api/v1/nodes/NODE/proxy/logs/` → `(NODE, false)`.
fn node_log_target(path: &str) -> Option<(&str, bool)> {
    let rest = path.strip_prefix("/api/v1/nodes/")?;
    let (node, tail) = rest.split_once('/')?;
    match tail {
        "proxy/logs/journal" => Some((node, true)),
        "proxy/logs/" => Some((node, false)),
        _ => None,
    }
}

/// The kubelet's log query as the API server proxies it: RBAC (`get
/// nodes/proxy`), 406 on `/logs/journal` without the query mode, journalctl's
/// `--grep` of `pattern` (case-sensitive only with `case-sensitive=true`) and
/// `-n` of `tailLines`,
/// gzip when asked with exactly `Accept-Encoding: gzip`.
fn node_logs(
    state: &State,
    node: &str,
    query_mode: bool,
    query: &BTreeMap<String, String>,
    accept_encoding: &str,
) -> Response<Full<Bytes>> {
    if state
        .forbidden
        .contains(&("get".to_string(), "nodes/proxy".to_string()))
    {
        return status_response(
            403,
            "Forbidden",
            &format!("nodes \"{node}\" is forbidden: User \"system:serviceaccount:ci:reader\" cannot get resource \"nodes/proxy\" in API group \"\" at the cluster scope"),
        );
    }
    if query_mode && !state.log_query_mode {
        return Response::builder()
            .status(406)
            .body(Full::new(Bytes::from("path not allowed in query mode")))
            .expect("response");
    }
    let Some(journal) = state.node_journals.get(node) else {
        return status_response(404, "NotFound", &format!("nodes \"{node}\" not found"));
    };
    let pattern = query.get("pattern").cloned().unwrap_or_default();
    let sensitive = query.get("case-sensitive").is_some_and(|v| v == "true");
    let alternatives: Vec<String> = pattern
        .split('|')
        .filter(|p| !p.is_empty())
        .map(|p| {
            if sensitive {
                p.to_string()
            } else {
                p.to_lowercase()
            }
        })
        .collect();
    let text: String = journal
        .lines()
        .filter(|l| {
            let l = if sensitive {
                l.to_string()
            } else {
                l.to_lowercase()
            };
            alternatives.is_empty() || alternatives.iter().any(|p| l.contains(p.as_str()))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    // `tailLines=N`: journalctl's `-n N`, the last N lines of those kept.
    let text = match query.get("tailLines").and_then(|n| n.parse::<usize>().ok()) {
        Some(n) => {
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect()
        }
        None => text,
    };
    let text = if state.node_log_cuts.contains_key(node) {
        let lines: Vec<&str> = text.lines().collect();
        lines[..lines.len() / 2]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        text
    };
    let mut response = Response::builder().status(200);
    let body = if accept_encoding == "gzip" {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(text.as_bytes()).expect("gzip");
        response = response.header("Content-Encoding", "gzip");
        enc.finish().expect("gzip")
    } else {
        text.into_bytes()
    };
    response
        .header("Content-Type", "text/plain")
        .body(Full::new(Bytes::from(body)))
        .expect("response")
}

/// `/api/v1/namespaces/NS/pods/POD/exec` → `(NS, POD)`.
fn exec_target(path: &str) -> Option<(&str, &str)> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api", "v1", "namespaces", ns, "pods", pod, "exec"] => Some((ns, pod)),
        _ => None,
    }
}

/// Form decoding of one query value (`+` is a space, as Go's url.Values encodes it).
fn form_decode(value: &str) -> String {
    percent_decode(&value.replace('+', " "))
}

/// `pods/exec` as the API server proxies it to the kubelet: RBAC (`create
/// pods/exec`), the pod and container, the WebSocket handshake with the
/// first subprotocol the client offers that is served, then the command
/// run in a session (see [`exec_session`]).
fn exec(
    shared: &Arc<Mutex<State>>,
    state: &mut State,
    namespace: &str,
    pod: &str,
    raw_query: &str,
    websocket: Option<WebSocketRequest>,
) -> Response<Full<Bytes>> {
    if state
        .forbidden
        .contains(&("create".to_string(), "pods/exec".to_string()))
    {
        let message = format!(
            "pods \"{pod}\" is forbidden: User \"system:serviceaccount:ci:reader\" cannot create resource \"pods/exec\" in API group \"\" in the namespace \"{namespace}\""
        );
        return json_response(
            403,
            &json!({
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": message, "reason": "Forbidden",
                "details": {"name": pod, "kind": "pods"}, "code": 403,
            }),
        );
    }
    let Some(object) = state
        .objects
        .get(&(String::new(), "pods".to_string()))
        .and_then(|pods| pods.get(&(namespace.to_string(), pod.to_string())))
    else {
        return status_response(404, "NotFound", &format!("pods \"{pod}\" not found"));
    };
    let mut command = Vec::new();
    let mut container = None;
    let mut stdin = false;
    for pair in raw_query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "command" => command.push(form_decode(v)),
            "container" => container = Some(form_decode(v)),
            "stdin" => stdin = v == "true" || v == "1",
            _ => {}
        }
    }
    let containers: Vec<&str> = object
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .collect();
    let container = match container {
        Some(c) => c,
        None if containers.len() == 1 => containers[0].to_string(),
        None => {
            return status_response(
                400,
                "BadRequest",
                &format!(
                    "a container name must be specified for pod {pod}, choose one of: [{}]",
                    containers.join(" ")
                ),
            )
        }
    };
    if !containers.contains(&container.as_str()) {
        return status_response(
            400,
            "BadRequest",
            &format!("container {container} is not valid for pod {pod}"),
        );
    }
    if command.is_empty() {
        return status_response(400, "BadRequest", "you must specify at least 1 command");
    }
    let Some(websocket) = websocket else {
        return status_response(
            400,
            "BadRequest",
            "Upgrade request required (this server speaks only WebSocket exec)",
        );
    };
    let served: Vec<String> = if state.exec_protocols.is_empty() {
        vec![
            "v5.channel.k8s.io".to_string(),
            "v4.channel.k8s.io".to_string(),
        ]
    } else {
        state.exec_protocols.clone()
    };
    let Some(protocol) = websocket
        .protocols
        .iter()
        .find(|p| served.contains(p))
        .cloned()
    else {
        return status_response(
            400,
            "BadRequest",
            &format!(
                "requested protocol(s) are not supported: {:?}; supports {served:?}",
                websocket.protocols
            ),
        );
    };
    let node = object
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if let Some(root) = state.node_roots.get(&node) {
        let root = root.display().to_string();
        for arg in &mut command {
            *arg = arg.replace("/rootfs", &root);
        }
    }
    let delay = state.exec_delays.get(&node).copied().unwrap_or_default();
    state.exec_sessions.push(protocol.clone());
    let accept =
        tokio_tungstenite::tungstenite::handshake::derive_accept_key(websocket.key.as_bytes());
    tokio::spawn(exec_session(
        Arc::clone(shared),
        websocket.upgrade,
        protocol.clone(),
        command,
        stdin,
        delay,
    ));
    Response::builder()
        .status(StatusCode::SWITCHING_PROTOCOLS)
        .header(hyper::header::CONNECTION, "Upgrade")
        .header(hyper::header::UPGRADE, "websocket")
        .header(hyper::header::SEC_WEBSOCKET_ACCEPT, accept)
        .header(hyper::header::SEC_WEBSOCKET_PROTOCOL, protocol)
        .body(Full::new(Bytes::new()))
        .expect("response")
}

/// The size of the stdout and stderr messages: output is sent in several.
const EXEC_CHUNK: usize = 16 * 1024;

/// One exec over the upgraded connection, as the kubelet streams it through
/// the API server: stdin (channel 0) read until the client's close signal
/// (`[255, 0]`, `v5.channel.k8s.io` only) or the end of the connection,
/// the command run, its stdout (channel 1) and stderr (channel 2) in
/// messages of [`EXEC_CHUNK`] bytes, then a `metav1.Status` on channel 3
/// (`Success`, or `Failure` with the `ExitCode` cause), then a close frame.
async fn exec_session(
    state: Arc<Mutex<State>>,
    upgrade: hyper::upgrade::OnUpgrade,
    protocol: String,
    command: Vec<String>,
    stdin: bool,
    delay: Duration,
) {
    let Ok(upgraded) = upgrade.await else {
        return;
    };
    {
        let mut state = state.lock().expect("state");
        state.exec_running += 1;
        state.exec_max_running = state.exec_max_running.max(state.exec_running);
    }
    // The session counts as ended once its output is complete, before the
    // status is sent: the client cannot start another on its strength
    // while this one is still counted.
    let mut ended = false;
    let mut end = || {
        if !std::mem::replace(&mut ended, true) {
            state.lock().expect("state").exec_running -= 1;
        }
    };
    run_session(upgraded, protocol, command, stdin, delay, &mut end).await;
    end();
}

async fn run_session(
    upgraded: hyper::upgrade::Upgraded,
    protocol: String,
    command: Vec<String>,
    stdin: bool,
    delay: Duration,
    end: &mut (dyn FnMut() + Send),
) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::Message;
    let mut ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
        TokioIo::new(upgraded),
        Role::Server,
        None,
    )
    .await;
    let v5 = protocol == "v5.channel.k8s.io";
    let mut input = Vec::new();
    if stdin {
        while let Some(Ok(message)) = ws.next().await {
            match message {
                Message::Binary(data) => match data.split_first() {
                    Some((0, payload)) => input.extend_from_slice(payload),
                    Some((255, [0])) if v5 => break,
                    _ => {}
                },
                Message::Close(_) => break,
                _ => {}
            }
        }
    }
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let output = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = std::process::Command::new(&command[0])
            .args(&command[1..])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()?;
        if let Some(mut pipe) = child.stdin.take() {
            let _ = pipe.write_all(&input);
        }
        child.wait_with_output()
    })
    .await;
    let (stdout, stderr, code) = match output {
        Ok(Ok(out)) => (out.stdout, out.stderr, out.status.code().unwrap_or(128)),
        Ok(Err(e)) => (Vec::new(), format!("exec: {e}\n").into_bytes(), 127),
        Err(_) => return,
    };
    for (channel, bytes) in [(1u8, &stdout), (2u8, &stderr)] {
        for chunk in bytes.chunks(EXEC_CHUNK) {
            let mut frame = Vec::with_capacity(chunk.len() + 1);
            frame.push(channel);
            frame.extend_from_slice(chunk);
            if ws.send(Message::Binary(frame.into())).await.is_err() {
                return;
            }
        }
    }
    let status = if code == 0 {
        json!({"metadata": {}, "status": "Success"})
    } else {
        json!({
            "metadata": {}, "status": "Failure",
            "message": format!("command terminated with non-zero exit code: error executing command, exit code {code}"),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": code.to_string()}]},
        })
    };
    let mut frame = vec![3u8];
    frame.extend_from_slice(status.to_string().as_bytes());
    end();
    let _ = ws.send(Message::Binary(frame.into())).await;
    // A normal closure (1000), as the API server closes: client-go's
    // reader takes a close frame without a code (1005) as an error.
    let _ = ws
        .close(Some(tokio_tungstenite::tungstenite::protocol::CloseFrame {
            code: tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode::Normal,
            reason: "".into(),
        }))
        .await;
    while let Some(Ok(_)) = ws.next().await {}
}
