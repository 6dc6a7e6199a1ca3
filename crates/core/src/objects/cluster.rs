//! The cluster's release (`ClusterVersion` named `version`) and its nodes,
//! as far as the MCO's state annotations go.
//!
//! Upstream: openshift/api `config/v1/types_cluster_version.go`;
//! machine-config-operator `pkg/daemon/constants/constants.go`.

use serde::{Deserialize, Serialize};

use super::machine_config::{
    CURRENT_CONFIG_ANNOTATION, DESIRED_CONFIG_ANNOTATION, REASON_ANNOTATION, STATE_ANNOTATION,
};
use super::{null_default, ObjectMeta};
use crate::origin::Origin;

/// `ClusterVersion` (config.openshift.io/v1). Only `version` matters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterVersion {
    /// `apiVersion`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec`.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: ClusterVersionSpec,
    /// `status`.
    #[serde(default, deserialize_with = "null_default")]
    pub status: ClusterVersionStatus,
}

/// `ClusterVersion.spec`, the parts that identify the cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterVersionSpec {
    /// `clusterID`.
    #[serde(rename = "clusterID", default, skip_serializing_if = "Option::is_none")]
    pub cluster_id: Option<String>,
    /// `channel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// `signatureStores`: when set, the stores the CVO asks for release
    /// signatures in place of the default ones (`None`: not set; an empty
    /// list is set, and the CVO refuses it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature_stores: Option<Vec<SignatureStore>>,
}

/// One of `ClusterVersion.spec.signatureStores`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureStore {
    /// `url`.
    #[serde(default)]
    pub url: String,
    /// `ca.name`: a ConfigMap of `openshift-config` with the store's CA bundle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<ConfigMapName>,
}

/// A `ConfigMapNameReference`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigMapName {
    /// `name`.
    #[serde(default)]
    pub name: String,
}

/// `ClusterVersion.status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterVersionStatus {
    /// The release the cluster is moving to (or runs).
    #[serde(default, deserialize_with = "null_default")]
    pub desired: Release,
    /// Past and current updates, newest first.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub history: Vec<UpdateHistory>,
    /// `availableUpdates`: the updates the update service recommends.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub available_updates: Vec<Release>,
    /// `conditionalUpdates`: updates recommended or not depending on risks.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditional_updates: Vec<ConditionalUpdate>,
}

/// One `status.conditionalUpdates[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionalUpdate {
    /// The release.
    #[serde(default, deserialize_with = "null_default")]
    pub release: Release,
    /// The risks that may apply to this cluster.
    #[serde(default, deserialize_with = "null_default")]
    pub risks: Vec<ConditionalUpdateRisk>,
    /// `Recommended` (True, False or Unknown) and its reason.
    #[serde(default, deserialize_with = "null_default")]
    pub conditions: Vec<Condition>,
}

/// One risk of a conditional update.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionalUpdateRisk {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
    #[serde(default, deserialize_with = "null_default")]
    pub url: String,
}

/// A status condition.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub type_: String,
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    #[serde(default, deserialize_with = "null_default")]
    pub reason: String,
    #[serde(default, deserialize_with = "null_default")]
    pub message: String,
}

/// A release: payload image and version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Release {
    /// The release payload pull spec (by digest).
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub image: String,
    /// The semantic version, e.g. `4.19.3`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub version: String,
}

/// One `status.history[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateHistory {
    /// `Completed` or `Partial`.
    #[serde(default, deserialize_with = "null_default")]
    pub state: String,
    /// The release version.
    #[serde(default, deserialize_with = "null_default")]
    pub version: String,
    /// The release image.
    #[serde(default, deserialize_with = "null_default")]
    pub image: String,
}

impl ClusterVersion {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::CLUSTER_VERSION.kind;
    /// The only ClusterVersion object.
    pub const VERSION: &'static str = "version";

    /// `ClusterVersion/version` with a desired release.
    pub fn new(image: &str, version: &str) -> Self {
        Self {
            api_version: crate::kinds::CLUSTER_VERSION.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(Self::VERSION),
            spec: ClusterVersionSpec::default(),
            status: ClusterVersionStatus {
                desired: Release {
                    image: image.to_string(),
                    version: version.to_string(),
                },
                history: Vec::new(),
                available_updates: Vec::new(),
                conditional_updates: Vec::new(),
            },
        }
    }

    /// `ClusterVersion/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// The release payload the MCO protects from being blocked
    /// (`status.desired.image`), if known.
    pub fn release_image(&self) -> Option<&str> {
        Some(self.status.desired.image.as_str()).filter(|s| !s.is_empty())
    }

    /// The desired version (`status.desired.version`), if known.
    pub fn version(&self) -> Option<&str> {
        Some(self.status.desired.version.as_str()).filter(|s| !s.is_empty())
    }

    /// The OpenShift 4.x minor version of `status.desired.version` (`21` for 4.21.2).
    pub fn openshift_minor(&self) -> Option<u32> {
        openshift_minor_of(self.version()?)
    }
}

/// The 4.x minor of an OpenShift version (`21` for `4.21.2`).
pub fn openshift_minor_of(version: &str) -> Option<u32> {
    let mut parts = version.split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    (major == 4).then_some(minor)
}

/// `Node` (v1): metadata, where the machine-config-daemon records its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// `apiVersion`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec`.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: NodeSpec,
    /// `status`, the part that names the node's container runtime.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "NodeStatus::is_empty"
    )]
    pub status: NodeStatus,
}

/// `Node.status`: what the kubelet reports of the node's software.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    /// `nodeInfo`.
    #[serde(default, deserialize_with = "null_default")]
    pub node_info: NodeInfo,
}

impl NodeStatus {
    fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

/// `Node.status.nodeInfo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeInfo {
    /// `containerRuntimeVersion` (`cri-o://1.35.1-3.rhaos4.22.el9`).
    #[serde(default, deserialize_with = "null_default")]
    pub container_runtime_version: String,
}

/// `Node.spec`, the part that matters while the MCO drains.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSpec {
    /// Whether the node is cordoned.
    #[serde(default, deserialize_with = "null_default")]
    pub unschedulable: bool,
}

/// A Node read as Kubernetes' own type (k8s-openapi), which checks every
/// field as the API server would, kept as the few fields the tool uses.
impl From<k8s_openapi::api::core::v1::Node> for Node {
    fn from(node: k8s_openapi::api::core::v1::Node) -> Self {
        let meta = node.metadata;
        Self {
            api_version: crate::kinds::NODE.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta {
                name: meta.name.unwrap_or_default(),
                namespace: meta.namespace,
                labels: meta.labels.unwrap_or_default(),
                annotations: meta.annotations.unwrap_or_default(),
                uid: meta.uid,
                resource_version: meta.resource_version,
                creation_timestamp: meta.creation_timestamp.map(|t| t.0.to_string()),
                generation: meta.generation,
                owner_references: Vec::new(),
                finalizers: meta.finalizers.unwrap_or_default(),
                deletion_timestamp: meta.deletion_timestamp.map(|t| t.0.to_string()),
                // Nodes are read for their annotations only.
                managed_fields: Vec::new(),
            },
            spec: NodeSpec {
                unschedulable: node.spec.and_then(|s| s.unschedulable).unwrap_or(false),
            },
            status: NodeStatus {
                node_info: NodeInfo {
                    container_runtime_version: node
                        .status
                        .and_then(|s| s.node_info)
                        .map(|i| i.container_runtime_version)
                        .unwrap_or_default(),
                },
            },
        }
    }
}

impl Node {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::NODE.kind;

    /// `Node/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// The rendered MachineConfig the node runs.
    pub fn current_config(&self) -> Option<&str> {
        self.metadata.annotation(CURRENT_CONFIG_ANNOTATION)
    }

    /// The rendered MachineConfig the node is moving to.
    pub fn desired_config(&self) -> Option<&str> {
        self.metadata.annotation(DESIRED_CONFIG_ANNOTATION)
    }

    /// The daemon's state: `Done`, `Working`, `Degraded`, ...
    pub fn state(&self) -> Option<&str> {
        self.metadata.annotation(STATE_ANNOTATION)
    }

    /// Why the daemon is degraded, if it says.
    pub fn reason(&self) -> Option<&str> {
        self.metadata
            .annotation(REASON_ANNOTATION)
            .filter(|s| !s.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_version_release() {
        let cv: ClusterVersion = serde_json::from_str(
            r#"{"metadata":{"name":"version"},"spec":{"clusterID":"abc","channel":"stable-4.19"},
            "status":{"desired":{"image":"quay.io/openshift-release-dev/ocp-release@sha256:aa","version":"4.19.3","url":"x"},
              "history":[{"state":"Completed","version":"4.19.3","image":"i","startedTime":"t"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            cv.release_image(),
            Some("quay.io/openshift-release-dev/ocp-release@sha256:aa")
        );
        assert_eq!(cv.version(), Some("4.19.3"));
        assert_eq!(cv.spec.cluster_id.as_deref(), Some("abc"));
        let empty: ClusterVersion =
            serde_json::from_str(r#"{"metadata":{"name":"version"}}"#).unwrap();
        assert_eq!(empty.release_image(), None);
    }

    #[test]
    fn node_annotations() {
        let node: Node = serde_json::from_str(
            r#"{"metadata":{"name":"worker-1","annotations":{
              "machineconfiguration.openshift.io/currentConfig":"rendered-worker-a",
              "machineconfiguration.openshift.io/desiredConfig":"rendered-worker-b",
              "machineconfiguration.openshift.io/state":"Working",
              "machineconfiguration.openshift.io/reason":""}},
             "spec":{"unschedulable":true},"status":{"nodeInfo":{}}}"#,
        )
        .unwrap();
        assert_eq!(node.current_config(), Some("rendered-worker-a"));
        assert_eq!(node.desired_config(), Some("rendered-worker-b"));
        assert_eq!(node.state(), Some("Working"));
        assert_eq!(node.reason(), None);
        assert!(node.spec.unschedulable);
        assert_eq!(node.origin().as_str(), "Node/worker-1");
    }
}
