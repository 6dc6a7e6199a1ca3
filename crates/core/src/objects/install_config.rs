//! install-config.yaml, the OpenShift installer's input, read for what it
//! puts on the nodes: its mirrors, as the cluster objects the installer
//! writes from them, its `additionalTrustBundle`, the CAs every node
//! trusts, and its `pullSecret`, the cluster's global pull secret.
//!
//! The file has `apiVersion: v1` and usually no `kind` (the installer's
//! `InstallConfig` type has an optional `TypeMeta`); the file reader
//! ([`crate::decode`]) recognises it by that shape and stages it here.
//! Where each entry was written (its lines) is the reader's; turning the
//! entries into objects is this module's, as the installer does it:
//!
//! - `imageContentSources` (deprecated) becomes the
//!   ImageContentSourcePolicy `image-policy`, its entries as written
//!   (`pkg/asset/manifests/imagesourcepolicy.go`);
//! - `imageDigestSources` becomes the ImageDigestMirrorSet
//!   `image-digest-mirror`, each entry's `sourcePolicy` its
//!   `mirrorSourcePolicy` (`pkg/asset/manifests/imagedigestmirrorset.go`);
//! - both at once is refused (`pkg/types/validation/installconfig.go`).
//!
//! Upstream: openshift/installer `pkg/types/installconfig.go`.

use std::fmt;

use serde::Deserialize;

use super::mirror::{
    ImageContentSourcePolicy, ImageDigestMirrorSet, ImageDigestMirrors, MirrorSourcePolicy,
    RepositoryDigestMirrors,
};
use super::{null_default, ObjectMeta};
use crate::origin::Origin;

/// The name the decoder gives the document's kind.
pub const KIND: &str = "InstallConfig";
/// The only `apiVersion` the installer reads.
pub const API_VERSION: &str = "v1";
/// The ImageContentSourcePolicy the installer writes from `imageContentSources`.
pub const ICSP_NAME: &str = "image-policy";
/// The ImageDigestMirrorSet the installer writes from `imageDigestSources`.
pub const IDMS_NAME: &str = "image-digest-mirror";
/// The top-level keys that make a headerless `apiVersion: v1` document an
/// install-config.yaml.
pub const KEYS: [&str; 8] = [
    "baseDomain",
    "platform",
    "pullSecret",
    "imageContentSources",
    "imageDigestSources",
    "additionalTrustBundle",
    "controlPlane",
    "compute",
];

/// The installer's message when both mirror fields are set.
pub const BOTH_SOURCES: &str =
    "cannot set imageContentSources and imageDigestSources at the same time";

/// The fields of install-config.yaml the tool reads (the rest is ignored).
/// `pullSecret` is not among them: the reader takes it out of the document
/// before decoding, so that no decoding message can quote it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallConfig {
    /// `metadata` (the cluster's name).
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `imageContentSources`: deprecated digest mirrors.
    #[serde(default, deserialize_with = "null_default")]
    pub image_content_sources: Vec<ImageContentSource>,
    /// `imageDigestSources`: digest mirrors and their source policy.
    #[serde(default, deserialize_with = "null_default")]
    pub image_digest_sources: Vec<ImageDigestSource>,
    /// `additionalTrustBundle`: PEM CAs added to every node's trust store.
    #[serde(default, deserialize_with = "null_default")]
    pub additional_trust_bundle: String,
    /// `additionalTrustBundlePolicy`: when the Proxy trusts the bundle too;
    /// the nodes trust it either way.
    #[serde(default, deserialize_with = "null_default")]
    pub additional_trust_bundle_policy: String,
}

/// One `imageContentSources[]` entry (`types.ImageContentSource`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ImageContentSource {
    /// The repository users refer to (required).
    pub source: String,
    /// Mirrors, in the user's preferred order.
    #[serde(default, deserialize_with = "null_default")]
    pub mirrors: Vec<String>,
}

/// One `imageDigestSources[]` entry (`types.ImageDigestSource`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageDigestSource {
    /// The repository users refer to (required).
    pub source: String,
    /// Mirrors, in the user's preferred order.
    #[serde(default, deserialize_with = "null_default")]
    pub mirrors: Vec<String>,
    /// What happens when every mirror fails; empty: unset.
    #[serde(default, deserialize_with = "null_default")]
    pub source_policy: String,
}

/// The mirror objects the installer writes from one install-config.yaml.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MirrorObjects {
    /// From `imageContentSources`.
    pub icsp: Option<ImageContentSourcePolicy>,
    /// From `imageDigestSources`.
    pub idms: Option<ImageDigestMirrorSet>,
}

impl InstallConfig {
    /// `InstallConfig/<cluster name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(KIND, &self.metadata.name)
    }

    /// Whether a document with this `apiVersion`, `kind` and content is an
    /// install-config.yaml: `kind: InstallConfig`, or no kind and one of
    /// [`KEYS`] at the top; `apiVersion` is checked apart
    /// ([`API_VERSION`]).
    pub fn is_shaped(kind: Option<&str>, value: &serde_json::Value) -> bool {
        match kind {
            Some(k) => k == KIND,
            None => value
                .as_object()
                .is_some_and(|o| KEYS.iter().any(|k| o.contains_key(*k))),
        }
    }

    /// The ImageContentSourcePolicy and ImageDigestMirrorSet the installer
    /// writes, each only when its field has entries; both fields at once
    /// is the installer's [`BOTH_SOURCES`] error.
    pub fn mirror_objects(&self) -> Result<MirrorObjects, &'static str> {
        if !self.image_content_sources.is_empty() && !self.image_digest_sources.is_empty() {
            return Err(BOTH_SOURCES);
        }
        let icsp = (!self.image_content_sources.is_empty()).then(|| {
            let mut o = ImageContentSourcePolicy::new(ICSP_NAME);
            o.spec.repository_digest_mirrors = self
                .image_content_sources
                .iter()
                .map(|s| RepositoryDigestMirrors {
                    source: s.source.clone(),
                    mirrors: s.mirrors.clone(),
                })
                .collect();
            o
        });
        let idms = (!self.image_digest_sources.is_empty()).then(|| {
            let mut o = ImageDigestMirrorSet::new(IDMS_NAME);
            o.spec.image_digest_mirrors = self
                .image_digest_sources
                .iter()
                .map(|s| ImageDigestMirrors {
                    source: s.source.clone(),
                    mirrors: s.mirrors.clone(),
                    // An unset policy is omitted from the object.
                    mirror_source_policy: (!s.source_policy.is_empty())
                        .then(|| MirrorSourcePolicy::from(s.source_policy.clone())),
                })
                .collect();
            o
        });
        Ok(MirrorObjects { icsp, idms })
    }
}

/// An object the installer writes from install-config.yaml, and where each
/// of its entries was written there: its facts are traced to those lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The object, `Kind/name`.
    pub object: Origin,
    /// The install-config.yaml it comes from, as named.
    pub file: String,
    /// Its field there (`imageDigestSources`).
    pub field: &'static str,
    /// The object's list its entries become (`spec.imageDigestMirrors`).
    pub spec_field: &'static str,
    /// One per entry, in order.
    pub entries: Vec<GeneratedEntry>,
}

/// Where one entry of a [`Generated`] object was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedEntry {
    /// The label of the facts it causes:
    /// `<file>:<line>: <field>[<i>] (<Kind>/<name>)`.
    pub origin: Origin,
    /// The line of the entry.
    pub line: usize,
    /// The line of its `source`.
    pub source_line: usize,
    /// The line of each of its mirrors.
    pub mirror_lines: Vec<usize>,
}

impl Generated {
    /// The field path in install-config.yaml and its line, for a field of
    /// the object (`spec.imageDigestMirrors[1].mirrors[0]` gives
    /// `imageDigestSources[1].mirrors[0]` at that mirror's line); `None` for
    /// a field outside its entries.
    pub fn locate(&self, object_field: &str) -> Option<(String, usize)> {
        let rest = object_field
            .strip_prefix(self.spec_field)?
            .strip_prefix('[')?;
        let (index, rest) = rest.split_once(']')?;
        let entry = self.entries.get(index.parse::<usize>().ok()?)?;
        let line = if rest.starts_with(".source") {
            entry.source_line
        } else if let Some(m) = rest.strip_prefix(".mirrors[") {
            m.split_once(']')
                .and_then(|(j, _)| j.parse::<usize>().ok())
                .and_then(|j| entry.mirror_lines.get(j).copied())
                .unwrap_or(entry.line)
        } else {
            entry.line
        };
        let field = format!("{}[{index}]{rest}", self.field);
        let field = field.replace(".mirrorSourcePolicy", ".sourcePolicy");
        Some((field, line))
    }

    /// The label of entry `i` (the object's own label past the last).
    pub fn entry_origin(&self, i: usize) -> &Origin {
        self.entries.get(i).map_or(&self.object, |e| &e.origin)
    }
}

/// A bundle of CAs every node trusts: `additionalTrustBundle`, which the
/// installer writes to the ConfigMap `openshift-config/user-ca-bundle` and
/// the MCO to each node's system trust store, whatever
/// `additionalTrustBundlePolicy` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedBundle {
    /// `<file>:<line>: additionalTrustBundle`.
    pub origin: Origin,
    /// The PEM text.
    pub pem: String,
}

/// The `pullSecret` of an install-config.yaml: the cluster's global pull
/// secret, the registries' credentials on every node. Never printed: its
/// `Debug` says only where it was read.
#[derive(Clone, PartialEq, Eq)]
pub struct PullSecret {
    /// `<file>:<line>: pullSecret`.
    pub origin: Origin,
    text: String,
}

impl PullSecret {
    /// A pull secret read at `origin`.
    pub fn new(origin: Origin, text: String) -> Self {
        Self { origin, text }
    }

    /// The auth file text (`{"auths": {...}}`), for the one use that needs it.
    pub fn expose(&self) -> &str {
        &self.text
    }
}

impl fmt::Debug for PullSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PullSecret({}, redacted)", self.origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> InstallConfig {
        serde_saphyr::from_str(yaml).unwrap()
    }

    /// openshift/installer `imagesourcepolicy.go` and
    /// `imagedigestmirrorset.go`: one object per field, its entries as
    /// written, the source policy carried over when set.
    #[test]
    fn mirror_objects_as_the_installer_writes_them() {
        let c = config("imageContentSources:\n- source: q.io/a\n  mirrors: [m.io/a, m.io/a]\n- source: q.io/a\n  mirrors: [n.io/a]\n");
        let o = c.mirror_objects().unwrap();
        let icsp = o.icsp.unwrap();
        assert_eq!(
            icsp.origin().as_str(),
            "ImageContentSourcePolicy/image-policy"
        );
        assert_eq!(icsp.spec.repository_digest_mirrors.len(), 2, "not merged");
        assert_eq!(
            icsp.spec.repository_digest_mirrors[0].mirrors,
            ["m.io/a", "m.io/a"]
        );
        assert!(o.idms.is_none());

        let c = config("imageDigestSources:\n- source: q.io/a\n  mirrors: [m.io/a]\n  sourcePolicy: NeverContactSource\n- source: q.io/b\n  mirrors: [m.io/b]\n  sourcePolicy: \"\"\n");
        let idms = c.mirror_objects().unwrap().idms.unwrap();
        assert_eq!(
            idms.origin().as_str(),
            "ImageDigestMirrorSet/image-digest-mirror"
        );
        let entries = &idms.spec.image_digest_mirrors;
        assert_eq!(
            entries[0].mirror_source_policy,
            Some(MirrorSourcePolicy::NeverContactSource)
        );
        assert_eq!(entries[1].mirror_source_policy, None);

        let c = config(
            "imageContentSources: [{source: a.io/x}]\nimageDigestSources: [{source: b.io/x}]\n",
        );
        assert_eq!(c.mirror_objects(), Err(BOTH_SOURCES));
        assert_eq!(
            config("baseDomain: x\n").mirror_objects(),
            Ok(MirrorObjects::default())
        );
    }

    #[test]
    fn shape_is_kind_or_a_top_level_key() {
        let v = |s: &str| -> serde_json::Value { serde_saphyr::from_str(s).unwrap() };
        for (kind, text, want) in [
            (None, "baseDomain: example.com\n", true),
            (None, "imageDigestSources: []\n", true),
            (None, "metadata: {name: x}\n", false),
            (None, "- a\n", false),
            (Some("InstallConfig"), "metadata: {name: x}\n", true),
            (Some("ConfigMap"), "baseDomain: x\n", false),
        ] {
            assert_eq!(
                InstallConfig::is_shaped(kind, &v(text)),
                want,
                "{kind:?} {text}"
            );
        }
    }

    #[test]
    fn entry_fields_map_back_to_the_install_config() {
        let g = Generated {
            object: Origin::from("ImageDigestMirrorSet/image-digest-mirror"),
            file: "ic.yaml".to_string(),
            field: "imageDigestSources",
            spec_field: "spec.imageDigestMirrors",
            entries: vec![GeneratedEntry {
                origin: Origin::from(
                    "ic.yaml:8: imageDigestSources[0] (ImageDigestMirrorSet/image-digest-mirror)",
                ),
                line: 8,
                source_line: 8,
                mirror_lines: vec![10, 11],
            }],
        };
        for (field, want) in [
            (
                "spec.imageDigestMirrors[0].mirrors[1]",
                Some(("imageDigestSources[0].mirrors[1]", 11)),
            ),
            (
                "spec.imageDigestMirrors[0].mirrors[7]",
                Some(("imageDigestSources[0].mirrors[7]", 8)),
            ),
            (
                "spec.imageDigestMirrors[0].source",
                Some(("imageDigestSources[0].source", 8)),
            ),
            (
                "spec.imageDigestMirrors[0].mirrorSourcePolicy",
                Some(("imageDigestSources[0].sourcePolicy", 8)),
            ),
            ("spec.imageDigestMirrors[3].source", None),
            ("metadata.name", None),
        ] {
            let got = g.locate(field);
            assert_eq!(got.as_ref().map(|(f, l)| (f.as_str(), *l)), want, "{field}");
        }
    }

    #[test]
    fn pull_secret_debug_is_redacted() {
        let s = PullSecret::new(
            Origin::from("ic.yaml:5: pullSecret"),
            "{\"auths\":{\"x\":{\"auth\":\"c2VjcmV0\"}}}".to_string(),
        );
        let shown = format!("{s:?}");
        assert!(!shown.contains("c2VjcmV0"), "{shown}");
        assert!(shown.contains("ic.yaml:5"), "{shown}");
    }
}
