//! Typed models of the cluster objects the tool reads, and the validation
//! the API server applies to them.
//!
//! Each kind mirrors its upstream Go type field by field (same JSON names),
//! keeps only what the rendering and explaining code needs, and ignores
//! unknown fields so that objects from newer clusters still load. A field
//! the CRD marks as required is required here too: a document without it
//! does not deserialize. Optional lists that the MCO checks for `nil` (the
//! Image registry lists) are `Option<Vec<_>>`, so an explicitly empty list
//! stays distinct from an absent one.
//!
//! `validate()` on each CRD kind applies the OpenAPI patterns, enums,
//! lengths, set semantics and CEL rules of the CRD as openshift/api ships
//! it; the MCO's own checks belong to the rendering modules.
//!
//! Upstream: <https://github.com/openshift/api> (`config/v1`,
//! `operator/v1alpha1`, `machineconfiguration/v1`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

pub mod cluster;
pub mod crd_schema;
pub mod image;
pub mod image_policy;
pub mod inputs;
pub mod install_config;
pub mod machine_config;
pub mod mirror;
pub mod schema;
mod validate;
pub mod workload;

pub use inputs::Inputs;

pub use cluster::{
    ClusterVersion, ClusterVersionSpec, ClusterVersionStatus, ConfigMapName, Node, NodeInfo,
    NodeSpec, NodeStatus, Release, SignatureStore, UpdateHistory,
};
pub use image::{Image, ImageSpec, RegistrySources};
pub use image_policy::{
    ClusterImagePolicy, IdentityMatchPolicy, ImagePolicy, ImagePolicyFulcioCAWithRekorRootOfTrust,
    ImagePolicyPKIRootOfTrust, ImagePolicyPublicKeyRootOfTrust, ImagePolicySpec, ImagePolicyStatus,
    ImageSigstoreVerificationPolicy, PKICertificateSubject, PolicyFulcioSubject, PolicyIdentity,
    PolicyMatchExactRepository, PolicyMatchRemapIdentity, PolicyRootOfTrust, PolicyType,
};
pub use machine_config::{
    IgnitionConfig, IgnitionFile, IgnitionFileContents, IgnitionHeader, IgnitionStorage,
    MachineConfig, MachineConfigPool, MachineConfigPoolSpec, MachineConfigPoolStatus,
    MachineConfigPoolStatusConfiguration, MachineConfigSpec,
};
pub use mirror::{
    ImageContentSourcePolicy, ImageContentSourcePolicySpec, ImageDigestMirrorSet,
    ImageDigestMirrorSetSpec, ImageDigestMirrors, ImageTagMirrorSet, ImageTagMirrorSetSpec,
    ImageTagMirrors, MirrorSourcePolicy, RepositoryDigestMirrors,
};
pub use validate::{is_valid_mirror, is_valid_source, FieldError};

/// Standard object metadata: the subset of `metav1.ObjectMeta` the tool uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// `metadata.name`; empty when the document has none.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// `metadata.namespace`, for namespaced kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `metadata.labels`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub labels: BTreeMap<String, String>,
    /// `metadata.annotations`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub annotations: BTreeMap<String, String>,
    /// `metadata.uid`, set by the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// `metadata.resourceVersion`, set by the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// `metadata.creationTimestamp` as written (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    /// `metadata.generation`, set by the API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// `metadata.ownerReferences`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<OwnerReference>,
    /// `metadata.finalizers`: what must be done (by whoever put each
    /// there) before a deleted object goes.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub finalizers: Vec<String>,
    /// `metadata.deletionTimestamp`: set once the object was deleted while
    /// finalizers hold it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    /// `metadata.managedFields`: which field manager last wrote which
    /// fields. Read only: the API server owns them and refuses them in an
    /// apply, so they are never written back out.
    #[serde(default, deserialize_with = "null_default", skip_serializing)]
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

impl ObjectMeta {
    /// Metadata with only a name.
    pub fn named(name: &str) -> Self {
        Self {
            name: name.to_string(),
            ..Self::default()
        }
    }

    /// The value of a label, if set.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }

    /// The value of an annotation, if set.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).map(String::as_str)
    }
}

/// One `metav1.ManagedFieldsEntry`: the fields one manager (`kubectl-edit`,
/// `machine-config-controller`, ...) set by one kind of operation.
///
/// Upstream: <https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management>.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// The field manager: `fieldManager` of the request, else the client's
    /// user agent up to its first `/` (the binary's name).
    #[serde(default, deserialize_with = "null_default")]
    pub manager: String,
    /// `Apply` (server-side apply) or `Update` (create, update, patch).
    #[serde(default, deserialize_with = "null_default")]
    pub operation: String,
    /// When the manager last wrote (RFC 3339), as the server records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    /// The subresource written (`status`, `scale`), empty for the object.
    #[serde(default, deserialize_with = "null_default")]
    pub subresource: String,
    /// The fields owned, as a trie of `f:<name>` (and `k:`/`v:`/`i:`) keys.
    #[serde(rename = "fieldsV1", default)]
    pub fields_v1: serde_json::Value,
}

impl ManagedFieldsEntry {
    /// Whether the entry owns the field at `path` (`["spec", "config"]`
    /// for `f:spec` → `f:config`) or anything under it.
    pub fn owns(&self, path: &[&str]) -> bool {
        let mut at = &self.fields_v1;
        for name in path {
            match at.get(format!("f:{name}")) {
                Some(next) => at = next,
                None => return false,
            }
        }
        true
    }
}

/// `metav1.OwnerReference`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// API version of the owner.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// Kind of the owner.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// Name of the owner.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// UID of the owner.
    #[serde(default, deserialize_with = "null_default")]
    pub uid: String,
    /// Whether the owner is the managing controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// Whether deletion of the owner waits for this object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

/// A reference to another object by kind and name (`corev1.ObjectReference`
/// as MachineConfigPool `configuration.source[]` uses it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    /// API version of the referent.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// Kind of the referent.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// Name of the referent.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
}

/// `metav1.Condition` (and the older operator condition shape, which has
/// the same fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// Condition type, e.g. `Updated`, `Degraded`, `Pending`.
    #[serde(rename = "type", default, deserialize_with = "null_default")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    /// Machine-readable reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human-readable message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the status last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

impl Condition {
    /// Whether `status` is `True`.
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// Finds a condition by type.
pub fn find_condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// Labels that must be present with these exact values.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub match_labels: BTreeMap<String, String>,
    /// Set-based requirements; all must hold.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One set-based requirement of a [`LabelSelector`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelSelectorRequirement {
    /// The label key.
    #[serde(default, deserialize_with = "null_default")]
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    #[serde(default, deserialize_with = "null_default")]
    pub operator: String,
    /// The values for `In` and `NotIn`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub values: Vec<String>,
}

impl LabelSelector {
    /// Whether the labels satisfy the selector, as
    /// `metav1.LabelSelectorAsSelector` evaluates it: an empty selector
    /// matches everything, and an unknown operator matches nothing.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }
}

/// Deserializes `null` as the type's default, as Go's JSON decoding leaves
/// a nil slice or zero value for `null`.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn label_selector_matches() {
        let worker = labels(&[("machineconfiguration.openshift.io/role", "worker")]);
        let infra = labels(&[("machineconfiguration.openshift.io/role", "infra")]);
        let sel = |json: &str| serde_json::from_str::<LabelSelector>(json).unwrap();
        for (selector, labels, want) in [
            ("{}", &worker, true),
            (
                r#"{"matchLabels":{"machineconfiguration.openshift.io/role":"worker"}}"#,
                &worker,
                true,
            ),
            (
                r#"{"matchLabels":{"machineconfiguration.openshift.io/role":"worker"}}"#,
                &infra,
                false,
            ),
            (
                r#"{"matchExpressions":[{"key":"machineconfiguration.openshift.io/role","operator":"In","values":["worker","infra"]}]}"#,
                &infra,
                true,
            ),
            (
                r#"{"matchExpressions":[{"key":"machineconfiguration.openshift.io/role","operator":"NotIn","values":["worker"]}]}"#,
                &worker,
                false,
            ),
            (
                r#"{"matchExpressions":[{"key":"x","operator":"DoesNotExist"}]}"#,
                &worker,
                true,
            ),
            (
                r#"{"matchExpressions":[{"key":"x","operator":"Exists"}]}"#,
                &worker,
                false,
            ),
            (
                r#"{"matchExpressions":[{"key":"x","operator":"Bogus"}]}"#,
                &worker,
                false,
            ),
        ] {
            assert_eq!(sel(selector).matches(labels), want, "{selector}");
        }
    }

    #[test]
    fn metadata_tolerates_nulls_and_unknown_fields() {
        let meta: ObjectMeta = serde_json::from_str(
            r#"{"name":"a","labels":null,"annotations":{"x":"y"},"managedFields":[{"k:{\"a\"}":{}}],"creationTimestamp":null}"#,
        )
        .unwrap();
        assert_eq!(meta.name, "a");
        assert!(meta.labels.is_empty());
        assert_eq!(meta.annotation("x"), Some("y"));
        assert_eq!(meta.creation_timestamp, None);
    }
}
