//! The signature policies a release brings: the ClusterImagePolicy
//! manifests of its `release-manifests/` (openshift/cluster-update-keys
//! ships `0000_90_openshift-cluster-image-policy.yaml`, the `openshift`
//! policy requiring Red Hat's sigstore signatures for
//! `quay.io/openshift-release-dev/ocp-release` and, from 4.22, the
//! `ocp-v4.0-art-dev` and `ocp-v5.0-art-dev` components). They are not yet
//! in the cluster: the cluster-version operator applies them during the
//! update, and the MCO renders them into every node's policy.json. The
//! policy is read from the payload, never from a key built into the tool.

use serde::Serialize;

use super::payload::{policy_manifest as wanted, PayloadError, ReleaseFiles};
use crate::objects::{ClusterImagePolicy, Inputs};

/// The profile of a self-managed cluster (`include.release.openshift.io/…`).
const PROFILE: &str = "include.release.openshift.io/self-managed-high-availability";
const FEATURE_SET: &str = "release.openshift.io/feature-set";
const DELETE: &str = "release.openshift.io/delete";

/// A policy of the release, and whether the CVO applies it to this cluster.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleasePolicy {
    pub name: String,
    /// The payload file it was read from.
    pub file: String,
    pub scopes: Vec<String>,
    /// `rootOfTrust.policyType`.
    pub policy_type: String,
    pub applied: bool,
    pub detail: String,
}

/// Whether the CVO applies a manifest with these annotations to a
/// self-managed cluster on the Default feature set (clusters on the
/// `*NoUpgrade` feature sets cannot take minor updates).
fn applies(annotations: &std::collections::BTreeMap<String, String>) -> Result<(), String> {
    if annotations.get(DELETE).map(String::as_str) == Some("true") {
        return Err(format!("{DELETE}: the release deletes it"));
    }
    if annotations.get(PROFILE).map(String::as_str) != Some("true") {
        return Err(format!(
            "no {PROFILE}: \"true\": not applied to a self-managed cluster"
        ));
    }
    if let Some(sets) = annotations.get(FEATURE_SET) {
        if !sets.split(',').any(|s| s.trim() == "Default") {
            return Err(format!(
                "{FEATURE_SET}: {sets}: applied only on those feature sets, not on Default (the cluster's FeatureGate is not read)"
            ));
        }
    }
    Ok(())
}

/// The ClusterImagePolicy objects of the release's policy manifests: each
/// with whether it applies, and the ones that do.
pub fn read(
    files: &ReleaseFiles,
) -> Result<(Vec<ReleasePolicy>, Vec<ClusterImagePolicy>), PayloadError> {
    let mut listed = Vec::new();
    let mut applied = Vec::new();
    for (path, body) in files.files.iter().filter(|(p, _)| wanted(p)) {
        let text = String::from_utf8_lossy(body);
        let mut inputs = Inputs::default();
        crate::decode::parse_documents(path, &text, &mut inputs).map_err(|e| {
            PayloadError::Manifest {
                file: path.clone(),
                message: e.to_string(),
            }
        })?;
        for cip in inputs.cluster_image_policies {
            let verdict = applies(&cip.metadata.annotations);
            listed.push(ReleasePolicy {
                name: cip.metadata.name.clone(),
                file: path.clone(),
                scopes: cip.spec.scopes.clone(),
                policy_type: cip.spec.policy.root_of_trust.policy_type.to_string(),
                applied: verdict.is_ok(),
                detail: verdict.clone().err().unwrap_or_else(|| {
                    "the cluster-version operator applies it during the update".to_string()
                }),
            });
            if verdict.is_ok() {
                applied.push(cip);
            }
        }
    }
    Ok((listed, applied))
}

/// The cluster's objects as they are once the update is done: the
/// release's policies applied (replacing a cluster policy of the same
/// name, as the CVO does) and the ClusterVersion at the target release,
/// so that the target's MCO renders them.
pub fn after_update(
    inputs: &Inputs,
    policies: &[ClusterImagePolicy],
    version: Option<&str>,
    image: &str,
) -> Inputs {
    let mut after = inputs.clone();
    for p in policies {
        after
            .cluster_image_policies
            .retain(|c| c.metadata.name != p.metadata.name);
        after.cluster_image_policies.push(p.clone());
    }
    if let (Some(cv), Some(v)) = (after.cluster_version.as_mut(), version) {
        cv.status.desired.version = v.to_string();
        cv.status.desired.image = image.to_string();
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(name: &str, text: &str) -> ReleaseFiles {
        let mut f = ReleaseFiles::default();
        f.files.insert(name.to_string(), text.as_bytes().to_vec());
        f
    }

    const CIP: &str = "apiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: openshift\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\n    ANNOTATION\nspec:\n  scopes:\n  - quay.io/openshift-release-dev/ocp-release\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t\n";

    #[test]
    fn the_openshift_policy_is_read_from_the_payload_with_its_annotations() {
        let path = "release-manifests/0000_90_openshift-cluster-image-policy.yaml";
        assert!(wanted(path));
        assert!(!wanted(
            "release-manifests/0000_90_cluster-update-keys_configmap.yaml"
        ));
        assert!(!wanted("release-manifests/sub/x-image-policy.yaml"));
        let cases = [
            ("kubernetes.io/description: x", true),
            (
                "release.openshift.io/feature-set: DevPreviewNoUpgrade",
                false,
            ),
            (
                "release.openshift.io/feature-set: Default,TechPreviewNoUpgrade",
                true,
            ),
            ("release.openshift.io/delete: \"true\"", false),
        ];
        for (annotation, want) in cases {
            let (listed, applied) =
                read(&files(path, &CIP.replace("ANNOTATION", annotation))).unwrap();
            assert_eq!(listed.len(), 1);
            assert_eq!(
                listed[0].applied, want,
                "{annotation}: {}",
                listed[0].detail
            );
            assert_eq!(applied.len(), usize::from(want));
            assert_eq!(
                listed[0].scopes,
                vec!["quay.io/openshift-release-dev/ocp-release"]
            );
        }
        let no_profile = CIP.replace(
            "include.release.openshift.io/self-managed-high-availability: \"true\"",
            "include.release.openshift.io/hypershift: \"true\"",
        );
        let (listed, _) = read(&files(path, &no_profile.replace("ANNOTATION", "a: b"))).unwrap();
        assert!(!listed[0].applied);
        assert!(read(&files(path, "kind: [")).is_err());
    }
}
