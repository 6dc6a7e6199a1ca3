//! The cluster-wide image configuration, `Image` named `cluster`
//! (config.openshift.io/v1): the registry lists the MCO turns into
//! registries.conf and policy.json.
//!
//! Upstream: openshift/api `config/v1/types_image.go`.

use serde::{Deserialize, Serialize};

use super::validate::{explain_scope_mismatch, is_valid_source, Errors};
use super::{null_default, ConfigMapName, FieldError, ObjectMeta};
use crate::origin::Origin;

/// The command that edits the Image config: every fix that changes its
/// `spec.registrySources` names it in these words.
pub const EDIT_IMAGE_CONFIG: &str = "oc edit image.config.openshift.io cluster";

/// `Image` (config.openshift.io/v1). Only the object named `cluster` is read
/// by the MCO.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// `apiVersion`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec` (required by the CRD).
    pub spec: ImageSpec,
}

/// `Image.spec`: `registrySources`, which the MCO renders into the node
/// configuration, and `additionalTrustedCA`, the ConfigMap of registry CAs
/// it writes to every node's `/etc/docker/certs.d`; the other fields do not
/// reach the nodes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSpec {
    /// `registrySources`.
    #[serde(default, deserialize_with = "null_default")]
    pub registry_sources: RegistrySources,
    /// `additionalTrustedCA`: a ConfigMap of `openshift-config` whose keys
    /// are registry hosts (`..` for `:`), each with the PEM CAs to trust.
    #[serde(
        default,
        rename = "additionalTrustedCA",
        skip_serializing_if = "Option::is_none"
    )]
    pub additional_trusted_ca: Option<ConfigMapName>,
}

/// `Image.spec.registrySources`.
///
/// Each list is `None` when absent and `Some(vec![])` when written as `[]`:
/// the MCO's `nil` checks treat the two differently (an explicit empty list
/// still makes it regenerate registries.conf).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistrySources {
    /// Registries reached over plain HTTP or without TLS verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insecure_registries: Option<Vec<String>>,
    /// Registries that may not be pulled from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_registries: Option<Vec<String>>,
    /// The only registries that may be pulled from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_registries: Option<Vec<String>>,
    /// Registries searched for short names, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_runtime_search_registries: Option<Vec<String>>,
}

/// The CEL message on each registry-list item.
const REGISTRY_ITEM_RULE: &str = "each registry must be a valid hostname[:port][/path] or wildcard *.hostname format without tags or digests";

impl Image {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::IMAGE.kind;
    /// The only Image object the MCO reads.
    pub const CLUSTER: &'static str = "cluster";

    /// An empty `Image/cluster`.
    pub fn cluster() -> Self {
        Self {
            api_version: crate::kinds::IMAGE.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(Self::CLUSTER),
            spec: ImageSpec::default(),
        }
    }

    /// `Image/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// CRD validation of `spec.registrySources`: `blockedRegistries` and
    /// `allowedRegistries` are exclusive; the three registry lists have at
    /// most 1024 items of 1 to 256 characters, each a registry scope
    /// (`*.host` or `host[:port][/path]`); `containerRuntimeSearchRegistries`
    /// has at least one item and no duplicates.
    ///
    /// Its `format: hostname` sits on the array, where the API server does
    /// not apply string formats, so items are not checked against it.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errors = Errors::new(self.origin());
        let rs = &self.spec.registry_sources;
        let base = "spec.registrySources";
        if rs.blocked_registries.is_some() && rs.allowed_registries.is_some() {
            errors.rule(
                base,
                "",
                "Only one of blockedRegistries or allowedRegistries may be set",
            );
        }
        for (name, list) in [
            ("insecureRegistries", &rs.insecure_registries),
            ("blockedRegistries", &rs.blocked_registries),
            ("allowedRegistries", &rs.allowed_registries),
        ] {
            let Some(list) = list else { continue };
            let field = format!("{base}.{name}");
            errors.max_items(&field, list.len(), 1024);
            for (i, item) in list.iter().enumerate() {
                let at = format!("{field}[{i}]");
                if !errors.min_length(&at, item, 1) || !errors.max_length(&at, item, 256) {
                    continue;
                }
                if !is_valid_source(item) {
                    errors.push(
                        &at,
                        item,
                        format!(
                            "is rejected: {REGISTRY_ITEM_RULE} ({})",
                            explain_scope_mismatch(item, true)
                        ),
                    );
                }
            }
        }
        if let Some(list) = &rs.container_runtime_search_registries {
            let field = format!("{base}.containerRuntimeSearchRegistries");
            if list.is_empty() {
                errors.push(
                    &field,
                    "",
                    "has 0 items, at least 1 is required (omit the field instead)",
                );
            }
            errors.unique(&field, list);
        }
        errors.into_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(registry_sources: serde_json::Value) -> Image {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "config.openshift.io/v1",
            "kind": "Image",
            "metadata": {"name": "cluster"},
            "spec": {"registrySources": registry_sources},
        }))
        .unwrap()
    }

    /// Ported from openshift/api `config/v1/tests/images.config.openshift.io/AAA_ungated.yaml`
    /// (onCreate cases), plus the list-size and search-registry rules.
    #[test]
    fn registry_sources_rules() {
        use serde_json::json;
        let cases: Vec<(serde_json::Value, Vec<&str>)> = vec![
            (json!({}), vec![]),
            (
                json!({"blockedRegistries": ["registry.io/myrepo:latest"]}),
                vec!["spec.registrySources.blockedRegistries[0]"],
            ),
            (
                json!({"allowedRegistries": ["registry.io/myrepo:latest"]}),
                vec!["spec.registrySources.allowedRegistries[0]"],
            ),
            (
                json!({"insecureRegistries": ["registry.io/myrepo:latest"]}),
                vec!["spec.registrySources.insecureRegistries[0]"],
            ),
            (
                json!({"blockedRegistries": ["registry.io/myrepo@sha256:abc123"]}),
                vec!["spec.registrySources.blockedRegistries[0]"],
            ),
            (
                json!({"allowedRegistries": ["registry.io/myrepo@sha256:abc123"]}),
                vec!["spec.registrySources.allowedRegistries[0]"],
            ),
            (
                json!({"insecureRegistries": ["registry.io/myrepo@sha256:abc123"]}),
                vec!["spec.registrySources.insecureRegistries[0]"],
            ),
            (
                json!({"blockedRegistries": [""]}),
                vec!["spec.registrySources.blockedRegistries[0]"],
            ),
            (
                json!({"allowedRegistries": [""]}),
                vec!["spec.registrySources.allowedRegistries[0]"],
            ),
            (
                json!({"insecureRegistries": [""]}),
                vec!["spec.registrySources.insecureRegistries[0]"],
            ),
            (
                json!({
                    "blockedRegistries": ["registry.io", "registry.io/myrepo", "*.example.com", "localhost:5000/repo"],
                    "insecureRegistries": ["insecure.registry.io", "*.insecure.example.com"],
                }),
                vec![],
            ),
            (
                json!({"allowedRegistries": ["registry.io", "registry.io/myrepo", "*.example.com", "localhost:5000/repo"]}),
                vec![],
            ),
            (
                json!({"blockedRegistries": ["test"], "allowedRegistries": ["test"]}),
                vec!["spec.registrySources"],
            ),
            (
                json!({"blockedRegistries": [], "allowedRegistries": []}),
                vec!["spec.registrySources"],
            ),
            (
                json!({"insecureRegistries": ["a".repeat(257)]}),
                vec!["spec.registrySources.insecureRegistries[0]"],
            ),
            (
                json!({"insecureRegistries": vec!["a.io"; 1025]}),
                vec!["spec.registrySources.insecureRegistries"],
            ),
            (
                json!({"containerRuntimeSearchRegistries": ["quay.io", "registry.example.com:5000"]}),
                vec![],
            ),
            (
                json!({"containerRuntimeSearchRegistries": []}),
                vec!["spec.registrySources.containerRuntimeSearchRegistries"],
            ),
            (
                json!({"containerRuntimeSearchRegistries": ["quay.io", "quay.io"]}),
                vec!["spec.registrySources.containerRuntimeSearchRegistries[1]"],
            ),
        ];
        for (sources, want) in cases {
            let got: Vec<String> = image(sources.clone())
                .validate()
                .into_iter()
                .map(|e| e.field)
                .collect();
            assert_eq!(got, want, "{sources}");
        }
    }

    #[test]
    fn registry_item_message_keeps_the_upstream_wording() {
        let errors = image(serde_json::json!({"blockedRegistries": ["registry.io/myrepo:latest"]}))
            .validate();
        assert_eq!(
            errors[0].to_string(),
            "Image/cluster: spec.registrySources.blockedRegistries[0]: \"registry.io/myrepo:latest\" is rejected: each registry must be a valid hostname[:port][/path] or wildcard *.hostname format without tags or digests (a tag (\":latest\") is not allowed)"
        );
    }

    #[test]
    fn absent_and_empty_lists_stay_distinct() {
        let absent = image(serde_json::json!({}));
        assert_eq!(absent.spec.registry_sources.insecure_registries, None);
        let empty = image(serde_json::json!({"insecureRegistries": []}));
        assert_eq!(
            empty.spec.registry_sources.insecure_registries,
            Some(vec![])
        );
        let null = image(serde_json::json!({"insecureRegistries": null}));
        assert_eq!(null.spec.registry_sources.insecure_registries, None);
        let no_sources: Image =
            serde_json::from_str(r#"{"metadata":{"name":"cluster"},"spec":{}}"#).unwrap();
        assert_eq!(no_sources.spec.registry_sources, RegistrySources::default());
    }
}
