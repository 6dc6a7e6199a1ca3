//! The objects that reference images — Pods, workload controllers,
//! ClusterServiceVersions and CatalogSources — as the tool reads them:
//! which kinds, where their images live, and every image reference they
//! hold (containers, init and ephemeral containers, `RELATED_IMAGE_*`
//! environment variables, a CSV's `spec.relatedImages` and install
//! deployments, a CatalogSource's index image), what their pods pull with
//! (`imagePullSecrets`, service accounts), and whether a CSV is a copy OLM
//! made (no pod runs it). `audit` classifies them; `source/` reads them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, PodSpec};
use serde_json::Value;

/// Where the images of a workload kind are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImagesAt {
    /// A pod spec, at this JSON pointer.
    PodSpec(&'static str),
    /// A ClusterServiceVersion: `spec.relatedImages` and the pod specs of
    /// `spec.install.spec.deployments`.
    ClusterServiceVersion,
    /// A CatalogSource: the index image of `spec.image`, which OLM runs as
    /// the catalog's registry pod (pulled with `spec.secrets`).
    CatalogSource,
}

/// A workload kind the audit reads, with where its images are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkloadKind {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// The plural resource name (for the API).
    pub plural: &'static str,
    pub images: ImagesAt,
}

/// Every kind whose objects reference images, in the order they are read.
pub const WORKLOAD_KINDS: &[WorkloadKind] = &[
    WorkloadKind {
        api_version: "v1",
        kind: "Pod",
        plural: "pods",
        images: ImagesAt::PodSpec("/spec"),
    },
    WorkloadKind {
        api_version: "apps/v1",
        kind: "Deployment",
        plural: "deployments",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "apps/v1",
        kind: "StatefulSet",
        plural: "statefulsets",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "apps/v1",
        kind: "DaemonSet",
        plural: "daemonsets",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "apps/v1",
        kind: "ReplicaSet",
        plural: "replicasets",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "v1",
        kind: "ReplicationController",
        plural: "replicationcontrollers",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "batch/v1",
        kind: "Job",
        plural: "jobs",
        images: ImagesAt::PodSpec("/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "batch/v1",
        kind: "CronJob",
        plural: "cronjobs",
        images: ImagesAt::PodSpec("/spec/jobTemplate/spec/template/spec"),
    },
    WorkloadKind {
        api_version: "operators.coreos.com/v1alpha1",
        kind: "ClusterServiceVersion",
        plural: "clusterserviceversions",
        images: ImagesAt::ClusterServiceVersion,
    },
    WorkloadKind {
        api_version: "operators.coreos.com/v1alpha1",
        kind: "CatalogSource",
        plural: "catalogsources",
        images: ImagesAt::CatalogSource,
    },
];

/// The workload kind of `apiVersion`/`kind`, if the audit reads it.
pub fn workload_kind(api_version: &str, kind: &str) -> Option<&'static WorkloadKind> {
    WORKLOAD_KINDS
        .iter()
        .find(|k| k.kind == kind && k.api_version == api_version)
}

/// One object that references images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    /// `(reference as written, where: "containers[app]", "env RELATED_IMAGE_X", ...)`.
    pub images: Vec<(String, String)>,
    /// `metadata.labels` (what `audit -l` selects on).
    pub labels: BTreeMap<String, String>,
    /// The names in the pod specs' `imagePullSecrets` (a Pod's include its
    /// service account's: admission adds them).
    pub pull_secrets: Vec<String>,
    /// The pod specs' service accounts (`default` when none is named),
    /// whose `imagePullSecrets` the pods of a controller get.
    pub service_accounts: Vec<String>,
    /// A ClusterServiceVersion OLM copied into a target namespace of its
    /// OperatorGroup: the namespace it was copied from (its `olm.copiedFrom`
    /// label; empty when only `status.reason: Copied` says so). No pod of
    /// its install strategy runs where the copy is.
    pub copied_from: Option<String>,
}

impl Workload {
    /// `Kind/namespace/name`.
    pub fn label(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

/// The label OLM puts on the copies of a ClusterServiceVersion, naming the
/// namespace of the original.
pub const OLM_COPIED_FROM: &str = "olm.copiedFrom";

/// Reads the images of one object; `None` for an object the audit leaves
/// out (a ReplicaSet a Deployment owns: the Deployment is read instead).
/// A pod spec that is not a Kubernetes `PodSpec` is an error: `(field, message)`.
pub fn workload_from(
    kind: &'static WorkloadKind,
    value: &Value,
) -> Result<Option<Workload>, (String, String)> {
    let meta = value.get("metadata");
    let text = |p: &str| {
        meta.and_then(|m| m.get(p))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    if kind.kind == "ReplicaSet" && owned_by(value, "Deployment") {
        return Ok(None);
    }
    let mut images = Vec::new();
    let mut access = PodAccess::default();
    match kind.images {
        ImagesAt::ClusterServiceVersion => csv_images(value, &mut images, &mut access)?,
        ImagesAt::CatalogSource => catalog_images(value, &text("name"), &mut images, &mut access),
        ImagesAt::PodSpec(pointer) => {
            if let Some(spec) = value.pointer(pointer) {
                let at = pointer.trim_start_matches('/').replace('/', ".");
                pod_images(spec, &at, "", &mut images, &mut access)?;
            }
        }
    }
    let labels: BTreeMap<String, String> = meta
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    let copied_from = (kind.images == ImagesAt::ClusterServiceVersion)
        .then(|| olm_copy_of(value, &labels))
        .flatten();
    Ok(Some(Workload {
        kind: kind.kind,
        namespace: text("namespace"),
        name: text("name"),
        labels,
        images,
        pull_secrets: access.pull_secrets,
        service_accounts: access.service_accounts,
        copied_from,
    }))
}

/// Whether a ClusterServiceVersion is a copy OLM made, as OLM and the
/// OpenShift console tell one: the `olm.copiedFrom` label (the namespace of
/// the original) or `status.reason: Copied`.
fn olm_copy_of(value: &Value, labels: &BTreeMap<String, String>) -> Option<String> {
    if let Some(from) = labels.get(OLM_COPIED_FROM) {
        return Some(from.clone());
    }
    copied_status(value).then(String::new)
}

/// Whether a ClusterServiceVersion's object is a copy OLM made (as
/// [`olm_copy_of`] tells one, its labels not parsed).
pub fn is_olm_copy(value: &Value) -> bool {
    value
        .pointer("/metadata/labels")
        .and_then(|l| l.get(OLM_COPIED_FROM))
        .is_some()
        || copied_status(value)
}

/// `status.reason: Copied`, which OLM writes on the copies it makes.
fn copied_status(value: &Value) -> bool {
    value.pointer("/status/reason").and_then(Value::as_str) == Some("Copied")
}

/// A ClusterServiceVersion's images: `spec.relatedImages`, then the pod
/// specs of its install deployments.
fn csv_images(
    value: &Value,
    images: &mut Vec<(String, String)>,
    access: &mut PodAccess,
) -> Result<(), (String, String)> {
    for (i, related) in value
        .pointer("/spec/relatedImages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(image) = related.get("image").and_then(Value::as_str) {
            let name = related
                .get("name")
                .and_then(Value::as_str)
                .map_or_else(|| i.to_string(), str::to_string);
            images.push((image.to_string(), format!("relatedImages[{name}]")));
        }
    }
    for (i, deployment) in value
        .pointer("/spec/install/spec/deployments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = deployment
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(spec) = deployment.pointer("/spec/template/spec") {
            pod_images(
                spec,
                &format!("spec.install.spec.deployments[{i}].spec.template.spec"),
                &format!("deployment {name} "),
                images,
                access,
            )?;
        }
    }
    Ok(())
}

/// A CatalogSource's index image (`spec.image`; a catalog served at
/// `spec.address` has none). OLM runs it in a pod whose service account is
/// named after the CatalogSource and carries `spec.secrets` as its
/// `imagePullSecrets` (operator-lifecycle-manager,
/// `pkg/controller/registry/reconciler/grpc.go`).
fn catalog_images(
    value: &Value,
    name: &str,
    images: &mut Vec<(String, String)>,
    access: &mut PodAccess,
) {
    let Some(image) = value
        .pointer("/spec/image")
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty())
    else {
        return;
    };
    images.push((image.to_string(), "spec.image".to_string()));
    for secret in value
        .pointer("/spec/secrets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        push_unique(&mut access.pull_secrets, secret);
    }
    push_unique(&mut access.service_accounts, name);
}

/// What the pods of a workload pull with: their `imagePullSecrets` and service accounts.
#[derive(Default)]
struct PodAccess {
    pull_secrets: Vec<String>,
    service_accounts: Vec<String>,
}

fn push_unique(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

fn owned_by(value: &Value, kind: &str) -> bool {
    value
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
}

/// The images of a pod spec, read as Kubernetes' own `PodSpec`
/// (k8s-openapi): containers, init and ephemeral containers, and their
/// `RELATED_IMAGE_*` variables. `at` is the spec's field path, for errors.
fn pod_images(
    spec: &Value,
    at: &str,
    prefix: &str,
    out: &mut Vec<(String, String)>,
    access: &mut PodAccess,
) -> Result<(), (String, String)> {
    let spec: PodSpec =
        serde_json::from_value(spec.clone()).map_err(|e| (at.to_string(), e.to_string()))?;
    for secret in spec.image_pull_secrets.iter().flatten() {
        push_unique(&mut access.pull_secrets, &secret.name);
    }
    // serviceAccountName, or the deprecated serviceAccount; "default" when neither.
    let account = spec
        .service_account_name
        .as_deref()
        .or(spec.service_account.as_deref())
        .filter(|a| !a.is_empty())
        .unwrap_or("default");
    push_unique(&mut access.service_accounts, account);
    let related = |env: Option<&Vec<EnvVar>>| -> Vec<(String, String)> {
        env.into_iter()
            .flatten()
            .filter(|e| e.name.starts_with("RELATED_IMAGE_"))
            .filter_map(|e| {
                e.value
                    .clone()
                    .filter(|v| !v.is_empty())
                    .map(|v| (e.name.clone(), v))
            })
            .collect()
    };
    let mut add = |list: &str, name: &str, image: Option<&String>, env: Option<&Vec<EnvVar>>| {
        if let Some(image) = image {
            out.push((image.clone(), format!("{prefix}{list}[{name}]")));
        }
        for (var, image) in related(env) {
            out.push((image, format!("{prefix}{list}[{name}] env {var}")));
        }
    };
    for c in spec.init_containers.iter().flatten() {
        add("initContainers", &c.name, c.image.as_ref(), c.env.as_ref());
    }
    for c in &spec.containers {
        add("containers", &c.name, c.image.as_ref(), c.env.as_ref());
    }
    for c in spec.ephemeral_containers.iter().flatten() {
        add(
            "ephemeralContainers",
            &c.name,
            c.image.as_ref(),
            c.env.as_ref(),
        );
    }
    Ok(())
}
