//! Mirror sets: ImageContentSourcePolicy (operator.openshift.io/v1alpha1),
//! ImageDigestMirrorSet and ImageTagMirrorSet (config.openshift.io/v1).
//!
//! Upstream: openshift/api `operator/v1alpha1/types_image_content_source_policy.go`,
//! `config/v1/types_image_digest_mirror_set.go`, `config/v1/types_image_tag_mirror_set.go`.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::validate::{explain_scope_mismatch, is_valid_mirror, is_valid_source, Errors};
use super::{null_default, FieldError, ObjectMeta};
use crate::origin::Origin;

/// What happens when every mirror fails (`mirrorSourcePolicy`).
///
/// Values other than the two upstream ones are kept as written so that
/// [`ImageDigestMirrorSet::validate`] can report them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum MirrorSourcePolicy {
    /// Never fall back to the source (the source registry entry is `blocked`).
    NeverContactSource,
    /// Fall back to the source; the default when unset.
    AllowContactingSource,
    /// A value the CRD's enum rejects.
    Unknown(String),
}

impl MirrorSourcePolicy {
    /// The spelling in the CR.
    pub fn as_str(&self) -> &str {
        match self {
            Self::NeverContactSource => "NeverContactSource",
            Self::AllowContactingSource => "AllowContactingSource",
            Self::Unknown(s) => s,
        }
    }
}

impl From<String> for MirrorSourcePolicy {
    fn from(s: String) -> Self {
        match s.as_str() {
            "NeverContactSource" => Self::NeverContactSource,
            "AllowContactingSource" => Self::AllowContactingSource,
            _ => Self::Unknown(s),
        }
    }
}

impl From<MirrorSourcePolicy> for String {
    fn from(p: MirrorSourcePolicy) -> Self {
        p.as_str().to_string()
    }
}

impl fmt::Display for MirrorSourcePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `ImageContentSourcePolicy`: deprecated digest mirrors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContentSourcePolicy {
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
    pub spec: ImageContentSourcePolicySpec,
}

/// `ImageContentSourcePolicy.spec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContentSourcePolicySpec {
    /// `repositoryDigestMirrors`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub repository_digest_mirrors: Vec<RepositoryDigestMirrors>,
}

/// One `repositoryDigestMirrors[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositoryDigestMirrors {
    /// The repository users refer to (required).
    pub source: String,
    /// Mirrors, in the user's preferred order.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub mirrors: Vec<String>,
}

impl ImageContentSourcePolicy {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::ICSP.kind;

    /// An empty object with `apiVersion`, `kind` and name set.
    pub fn new(name: &str) -> Self {
        Self {
            api_version: crate::kinds::ICSP.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(name),
            spec: ImageContentSourcePolicySpec::default(),
        }
    }

    /// `ImageContentSourcePolicy/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// CRD validation. The ICSP CRD has no pattern, enum or list-type rule
    /// (required fields are enforced when deserializing), so this is always
    /// empty: bad ICSP sources and mirrors are only caught by the MCO.
    pub fn validate(&self) -> Vec<FieldError> {
        Vec::new()
    }
}

/// One `imageDigestMirrors[]` entry of an ImageDigestMirrorSet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDigestMirrors {
    /// The repository, namespace, registry or `*.domain` users refer to (required).
    pub source: String,
    /// Mirrors, in the user's preferred order (`listType=set`).
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub mirrors: Vec<String>,
    /// Fallback policy; `None` behaves as `AllowContactingSource`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror_source_policy: Option<MirrorSourcePolicy>,
}

/// One `imageTagMirrors[]` entry of an ImageTagMirrorSet; upstream's
/// `ImageTagMirrors` has exactly the shape of [`ImageDigestMirrors`].
pub type ImageTagMirrors = ImageDigestMirrors;

/// `ImageDigestMirrorSet`: mirrors used for pulls by digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDigestMirrorSet {
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
    pub spec: ImageDigestMirrorSetSpec,
}

/// `ImageDigestMirrorSet.spec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDigestMirrorSetSpec {
    /// `imageDigestMirrors`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub image_digest_mirrors: Vec<ImageDigestMirrors>,
}

/// `ImageTagMirrorSet`: mirrors used for pulls by tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageTagMirrorSet {
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
    pub spec: ImageTagMirrorSetSpec,
}

/// `ImageTagMirrorSet.spec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageTagMirrorSetSpec {
    /// `imageTagMirrors`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub image_tag_mirrors: Vec<ImageTagMirrors>,
}

impl ImageDigestMirrorSet {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::IDMS.kind;

    /// An empty object with `apiVersion`, `kind` and name set.
    pub fn new(name: &str) -> Self {
        Self {
            api_version: crate::kinds::IDMS.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(name),
            spec: ImageDigestMirrorSetSpec::default(),
        }
    }

    /// `ImageDigestMirrorSet/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// CRD validation: the `source` and `mirrors[]` patterns, `mirrors`
    /// as a set, and the `mirrorSourcePolicy` enum.
    pub fn validate(&self) -> Vec<FieldError> {
        validate_entries(
            self.origin(),
            "spec.imageDigestMirrors",
            &self.spec.image_digest_mirrors,
        )
    }
}

impl ImageTagMirrorSet {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::ITMS.kind;

    /// An empty object with `apiVersion`, `kind` and name set.
    pub fn new(name: &str) -> Self {
        Self {
            api_version: crate::kinds::ITMS.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(name),
            spec: ImageTagMirrorSetSpec::default(),
        }
    }

    /// `ImageTagMirrorSet/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// CRD validation, the same rules as [`ImageDigestMirrorSet::validate`].
    pub fn validate(&self) -> Vec<FieldError> {
        validate_entries(
            self.origin(),
            "spec.imageTagMirrors",
            &self.spec.image_tag_mirrors,
        )
    }
}

/// The IDMS and ITMS CRDs carry the same rules: `source` pattern (wildcard
/// allowed), `mirrors[]` pattern (no wildcard), `mirrors` `listType=set`,
/// `mirrorSourcePolicy` enum. `imageDigestMirrors` itself is
/// `listType=atomic`, so repeated entries are allowed.
fn has_duplicates(items: &[String]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, item)| items[..i].contains(item))
}

fn validate_entries(object: Origin, list: &str, entries: &[ImageDigestMirrors]) -> Vec<FieldError> {
    let mut errors = Errors::new(object);
    for (i, entry) in entries.iter().enumerate() {
        // Field paths are built only for an error: this loop runs once per
        // source, 100,000s of times at oc-mirror scale.
        let at = || format!("{list}[{i}]");
        if !is_valid_source(&entry.source) {
            errors.push(
                format!("{}.source", at()),
                &entry.source,
                format!(
                    "does not match the source pattern [*.]host[:port][/namespace...][/repo]: {}",
                    explain_scope_mismatch(&entry.source, true)
                ),
            );
        }
        for (j, mirror) in entry.mirrors.iter().enumerate() {
            if !is_valid_mirror(mirror) {
                errors.push(
                    format!("{}.mirrors[{j}]", at()),
                    mirror,
                    format!(
                        "does not match the mirror pattern host[:port][/namespace...][/repo]: {}",
                        explain_scope_mismatch(mirror, false)
                    ),
                );
            }
        }
        if has_duplicates(&entry.mirrors) {
            errors.unique(&format!("{}.mirrors", at()), &entry.mirrors);
        }
        if let Some(MirrorSourcePolicy::Unknown(value)) = &entry.mirror_source_policy {
            errors.push(
                format!("{}.mirrorSourcePolicy", at()),
                value,
                "is not a supported value: supported values are \"NeverContactSource\" and \"AllowContactingSource\"",
            );
        }
    }
    errors.into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idms(entries: serde_json::Value) -> ImageDigestMirrorSet {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "config.openshift.io/v1",
            "kind": "ImageDigestMirrorSet",
            "metadata": {"name": "foo"},
            "spec": {"imageDigestMirrors": entries},
        }))
        .unwrap()
    }

    /// One row per CRD rule: the entries, then the expected `field: message`
    /// prefixes (empty when valid).
    #[test]
    fn idms_and_itms_rules() {
        use serde_json::json;
        let cases: Vec<(serde_json::Value, Vec<(&str, &str)>)> = vec![
            (json!([{"source": "quay.io/ns/repo", "mirrors": ["mirror.local:5000/ns/repo"]}]), vec![]),
            (json!([{"source": "*.redhat.io", "mirrors": ["mirror.local/redhat"]}]), vec![]),
            (json!([{"source": "registry.io", "mirrorSourcePolicy": "NeverContactSource", "mirrors": ["m.io"]}]), vec![]),
            (json!([{"source": "registry.io", "mirrorSourcePolicy": "AllowContactingSource"}]), vec![]),
            // A policy with no mirrors is documented as meaningless but no CRD rule rejects it.
            (json!([{"source": "registry.io", "mirrorSourcePolicy": "NeverContactSource"}]), vec![]),
            (json!([{"source": "Quay.io/ns", "mirrors": ["Mirror.io/ns"]}]), vec![]),
            (json!([{"source": "quay.io/NS"}]), vec![("spec.imageDigestMirrors[0].source", "does not match the source pattern")]),
            (json!([{"source": "quay.io/x:latest"}]), vec![("spec.imageDigestMirrors[0].source", "does not match the source pattern [*.]host[:port][/namespace...][/repo]: a tag")]),
            (json!([{"source": "*.example.com/x"}]), vec![("spec.imageDigestMirrors[0].source", "does not match the source pattern [*.]host[:port][/namespace...][/repo]: a wildcard source cannot have a path")]),
            (json!([{"source": ""}]), vec![("spec.imageDigestMirrors[0].source", "does not match the source pattern [*.]host[:port][/namespace...][/repo]: the value is empty")]),
            (
                json!([{"source": "a.io"}, {"source": "b.io", "mirrors": ["ok.io", "*.wild.io", "m.io/X"]}]),
                vec![
                    ("spec.imageDigestMirrors[1].mirrors[1]", "does not match the mirror pattern host[:port][/namespace...][/repo]: a mirror cannot be a wildcard"),
                    ("spec.imageDigestMirrors[1].mirrors[2]", "does not match the mirror pattern host[:port][/namespace...][/repo]: path component \"X\" has upper-case letters"),
                ],
            ),
            (
                json!([{"source": "a.io", "mirrors": ["m.io", "n.io", "m.io"]}]),
                vec![("spec.imageDigestMirrors[0].mirrors[2]", "is a duplicate of spec.imageDigestMirrors[0].mirrors[0]")],
            ),
            // imageDigestMirrors is listType=atomic: the same entry twice is allowed.
            (json!([{"source": "a.io", "mirrors": ["m.io"]}, {"source": "a.io", "mirrors": ["m.io"]}]), vec![]),
            (
                json!([{"source": "a.io", "mirrors": ["m.io"], "mirrorSourcePolicy": "Never"}]),
                vec![("spec.imageDigestMirrors[0].mirrorSourcePolicy", "is not a supported value")],
            ),
            (
                json!([{"source": "a.io", "mirrors": ["m.io"], "mirrorSourcePolicy": ""}]),
                vec![("spec.imageDigestMirrors[0].mirrorSourcePolicy", "is not a supported value")],
            ),
        ];
        for (entries, want) in cases {
            let obj = idms(entries.clone());
            let got = obj.validate();
            assert_eq!(got.len(), want.len(), "{entries}: {got:#?}");
            for (g, (field, message)) in got.iter().zip(&want) {
                assert_eq!(g.field, *field, "{entries}");
                assert!(g.message.starts_with(message), "{entries}: {}", g.message);
                assert_eq!(g.object.as_str(), "ImageDigestMirrorSet/foo");
            }
            // ITMS carries the same rules under its own field name.
            let itms: ImageTagMirrorSet = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "foo"},
                "spec": {"imageTagMirrors": entries},
            }))
            .unwrap();
            let got = itms.validate();
            assert_eq!(got.len(), want.len(), "itms {entries}");
            for (g, (field, _)) in got.iter().zip(&want) {
                assert_eq!(
                    g.field,
                    field.replace("imageDigestMirrors", "imageTagMirrors"),
                    "itms {entries}"
                );
            }
        }
    }

    #[test]
    fn icsp_has_no_crd_rules() {
        let icsp: ImageContentSourcePolicy = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "bad"},
            "spec": {"repositoryDigestMirrors": [{"source": "<not a host>", "mirrors": ["*", "*"]}]},
        }))
        .unwrap();
        assert!(icsp.validate().is_empty());
        assert_eq!(icsp.origin().as_str(), "ImageContentSourcePolicy/bad");
    }

    #[test]
    fn mirror_source_policy_round_trips() {
        for value in ["NeverContactSource", "AllowContactingSource", "Sometimes"] {
            let p: MirrorSourcePolicy = serde_json::from_value(value.into()).unwrap();
            assert_eq!(serde_json::to_value(&p).unwrap(), value);
        }
        let entry: ImageDigestMirrors =
            serde_json::from_str(r#"{"source":"a.io","mirrors":null}"#).unwrap();
        assert!(entry.mirrors.is_empty());
        assert_eq!(entry.mirror_source_policy, None);
        assert_eq!(
            serde_json::to_string(&entry).unwrap(),
            r#"{"source":"a.io"}"#
        );
    }
}
