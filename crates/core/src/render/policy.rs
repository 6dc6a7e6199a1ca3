//! `/etc/containers/policy.json` and `/etc/crio/policies/<namespace>.json`
//! as the MCO renders them from the Image config's allowed and blocked
//! registries and from ClusterImagePolicy / ImagePolicy objects.
//!
//! The policy.json model itself (decoding, Go-ordered encoding) is
//! [`crate::policy`]; this module owns the MCO's logic on top of it:
//! `policyItemFromSpec`, `getValidScopePolicies`, `updatePolicyJSON`
//! and `updateNamespacedPolicyJSONs`, and [`render_policies`], which ties
//! them together as `registriesConfigIgnition` does. The `registries.d`
//! sigstore file lives in [`super::sigstore`]; [`super::pool`] composes
//! the two.
//!
//! Upstream: openshift/machine-config-operator
//! `pkg/controller/container-runtime-config/helpers.go`.

use std::collections::BTreeMap;

use super::findings::{McoFinding, PolicyKind, RenderError, RenderWarning};
use super::registries::list_findings_as;
use super::release::McoProfile;
use super::scope::scope_is_nested_inside_scope;
use crate::objects::{
    ClusterImagePolicy, IdentityMatchPolicy, ImagePolicy, ImageSigstoreVerificationPolicy,
    PolicyIdentity, PolicyType,
};
use crate::origin::Origin;
use crate::policy::{
    decode_go_base64, Fulcio, Pki, Policy, Requirement, Scopes, SignedIdentity, SigstoreSigned,
};
use crate::quote::go_quote;
use crate::reference::Reference;

pub use crate::node_paths::{CRIO_POLICIES as CRIO_POLICIES_DIR, POLICY_JSON};

/// The policy.json a node keeps when nothing touches it: the MCO template
/// `templates/<role>/01-<role>-container-runtime/_base/files/policy.yaml`,
/// four-space indented, without a trailing newline.
pub const POLICY_JSON_TEMPLATE: &str = r#"{
    "default": [
        {
            "type": "insecureAcceptAnything"
        }
    ],
    "transports":
        {
            "docker-daemon":
                {
                    "": [{"type":"insecureAcceptAnything"}]
                }
        }
}"#;

/// The `type` of the ImagePolicy status condition the MCO sets on scope conflicts.
pub const CONFLICT_CONDITION_TYPE: &str = "Pending";
/// The `reason` of that condition (`reasonConflictScopes`); its status is `False`.
pub const CONFLICT_CONDITION_REASON: &str = "ConflictScopes";

/// The path of a namespace's policy file.
pub fn namespaced_policy_path(namespace: &str) -> String {
    crate::node_paths::crio_policy_path(namespace)
}

// ---------------------------------------------------------------------------
// policyItemFromSpec

fn cr_bytes(field: &str, value: &str) -> Result<Vec<u8>, String> {
    decode_go_base64(value).map_err(|e| format!("{field}: {e}"))
}

/// The MCO's `policyItemFromSpec`: one `sigstoreSigned` requirement from a
/// (Cluster)ImagePolicy `spec.policy`, with every check containers/image's
/// constructors make. The error is the upstream message (the MCO fails the
/// whole sync with it). Where the MCO would dereference a missing union
/// member and panic, this returns an error instead.
pub fn policy_item_from_spec(
    policy: &ImageSigstoreVerificationPolicy,
) -> Result<Requirement, String> {
    let rot = &policy.root_of_trust;
    let mut s = SigstoreSigned::with_identity(SignedIdentity::MatchRepoDigestOrExact);
    match &rot.policy_type {
        PolicyType::PublicKey => {
            let pk = rot.public_key.as_ref().ok_or(
                "rootOfTrust.publicKey is not set but policyType is PublicKey (the MCO would crash)",
            )?;
            s.key_data = Some(cr_bytes("publicKey.keyData", &pk.key_data)?);
            if let Some(rekor) = &pk.rekor_key_data {
                let data = cr_bytes("publicKey.rekorKeyData", rekor)?;
                if !data.is_empty() {
                    s.rekor_public_key_data = Some(data);
                }
            }
        }
        PolicyType::FulcioCAWithRekor => {
            let f = rot.fulcio_ca_with_rekor.as_ref().ok_or(
                "rootOfTrust.fulcioCAWithRekor is not set but policyType is FulcioCAWithRekor (the MCO would crash)",
            )?;
            let fulcio = Fulcio {
                ca_data: Some(cr_bytes(
                    "fulcioCAWithRekor.fulcioCAData",
                    &f.fulcio_ca_data,
                )?),
                oidc_issuer: f.fulcio_subject.oidc_issuer.clone(),
                subject_email: f.fulcio_subject.signed_email.clone(),
                ..Fulcio::default()
            };
            fulcio.check()?;
            s.fulcio = Some(fulcio);
            s.rekor_public_key_data = Some(cr_bytes(
                "fulcioCAWithRekor.rekorKeyData",
                &f.rekor_key_data,
            )?);
        }
        PolicyType::PKI => {
            let p = rot
                .pki
                .as_ref()
                .ok_or("rootOfTrust.pki is not set but policyType is PKI (the MCO would crash)")?;
            let mut pki = Pki {
                ca_roots_data: Some(cr_bytes("pki.caRootsData", &p.ca_roots_data)?),
                ..Pki::default()
            };
            if let Some(intermediates) = &p.ca_intermediates_data {
                let data = cr_bytes("pki.caIntermediatesData", intermediates)?;
                if !data.is_empty() {
                    pki.ca_intermediates_data = Some(data);
                }
            }
            pki.subject_email = p.pki_certificate_subject.email.clone().unwrap_or_default();
            pki.subject_hostname = p
                .pki_certificate_subject
                .hostname
                .clone()
                .unwrap_or_default();
            pki.check()?;
            s.pki = Some(pki);
        }
        // No key source: the constructor below refuses it.
        PolicyType::Unknown(_) => {}
    }
    if let Some(identity) = &policy.signed_identity {
        s.signed_identity = signed_identity(identity)?;
    }
    s.check()?;
    Ok(Requirement::SigstoreSigned(Box::new(s)))
}

/// The `signedIdentity` of a requirement, from the CR's `signedIdentity`.
fn signed_identity(identity: &PolicyIdentity) -> Result<SignedIdentity, String> {
    Ok(match &identity.match_policy {
        IdentityMatchPolicy::RemapIdentity => {
            let remap = identity.remap_identity.as_ref().ok_or(
                "signedIdentity.remapIdentity is not set but matchPolicy is RemapIdentity (the MCO would crash)",
            )?;
            SignedIdentity::remap_identity(&remap.prefix, &remap.signed_prefix)
                .map_err(|e| format!("error getting signedIdentity for RemapIdentity: {e}"))?
        }
        IdentityMatchPolicy::ExactRepository => {
            let exact = identity.exact_repository.as_ref().ok_or(
                "signedIdentity.exactRepository is not set but matchPolicy is ExactRepository (the MCO would crash)",
            )?;
            SignedIdentity::exact_repository(&exact.repository)
                .map_err(|e| format!("error getting signedIdentity for ExactRepository: {e}"))?
        }
        IdentityMatchPolicy::MatchRepository => SignedIdentity::MatchRepository,
        IdentityMatchPolicy::MatchRepoDigestOrExact => SignedIdentity::MatchRepoDigestOrExact,
        IdentityMatchPolicy::Unknown(other) => {
            return Err(format!("unknown signedIdentity match policy: {other}"))
        }
    })
}

// ---------------------------------------------------------------------------
// getValidScopePolicies

/// A requirement and the object it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedRequirement {
    /// The `sigstoreSigned` requirement.
    pub requirement: Requirement,
    /// `ClusterImagePolicy/<name>` or `ImagePolicy/<namespace>/<name>`.
    pub origin: Origin,
}

/// An ImagePolicy whose scopes were (partly) dropped because a
/// ClusterImagePolicy covers them. The MCO records it as the ImagePolicy's
/// status condition [`CONFLICT_CONDITION_TYPE`]`=False`,
/// reason [`CONFLICT_CONDITION_REASON`], with [`ScopeConflict::message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeConflict {
    /// `ImagePolicy/<namespace>/<name>`.
    pub origin: Origin,
    pub namespace: String,
    pub name: String,
    /// The dropped scopes, in spec order.
    pub scopes: Vec<String>,
    /// The condition message, exactly as the MCO writes it.
    pub message: String,
}

/// The MCO's `getValidScopePolicies` result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopePolicies {
    /// `clusterScopePolicies`: scope → requirements of every ClusterImagePolicy listing it.
    pub cluster: ClusterScopes,
    /// `scopeNamespacePolicies`: scope → namespace → requirements.
    pub namespaced: NamespacedScopes,
    /// ImagePolicy scopes dropped for overlapping a cluster scope.
    pub conflicts: Vec<ScopeConflict>,
}

impl ScopePolicies {
    /// Every policy scope: cluster scopes, then namespace scopes, each sorted.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.cluster
            .keys()
            .chain(self.namespaced.keys())
            .map(String::as_str)
    }
}

/// The MCO's `getValidScopePolicies`.
///
/// The MCO walks informer lists, whose order is random; the order decides
/// how several requirements on one scope are listed and which invalid
/// object is reported. Here ClusterImagePolicies are taken in name order
/// and ImagePolicies in (namespace, name) order, so the output is stable.
pub fn get_valid_scope_policies(
    cips: &[&ClusterImagePolicy],
    ips: &[&ImagePolicy],
) -> Result<ScopePolicies, RenderError> {
    let mut cips: Vec<&ClusterImagePolicy> = cips.to_vec();
    cips.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let mut ips: Vec<&ImagePolicy> = ips.to_vec();
    ips.sort_by(|a, b| {
        (a.metadata.namespace.as_deref(), &a.metadata.name)
            .cmp(&(b.metadata.namespace.as_deref(), &b.metadata.name))
    });

    let mut out = ScopePolicies::default();
    for cip in cips {
        let origin = cip.origin();
        let requirement = policy_item_from_spec(&cip.spec.policy).map_err(|message| {
            RenderError::InvalidPolicy {
                origin: origin.clone(),
                message,
            }
        })?;
        for scope in &cip.spec.scopes {
            out.cluster
                .entry(scope.clone())
                .or_default()
                .push(ScopedRequirement {
                    requirement: requirement.clone(),
                    origin: origin.clone(),
                });
        }
    }
    for ip in ips {
        let origin = ip.origin();
        let namespace = ip.metadata.namespace.clone().unwrap_or_default();
        let requirement = policy_item_from_spec(&ip.spec.policy).map_err(|message| {
            RenderError::InvalidPolicy {
                origin: origin.clone(),
                message,
            }
        })?;
        let mut conflicting = Vec::new();
        for scope in &ip.spec.scopes {
            if out
                .cluster
                .keys()
                .any(|cluster_scope| scope_is_nested_inside_scope(scope, cluster_scope))
            {
                conflicting.push(scope.clone());
                continue;
            }
            out.namespaced
                .entry(scope.clone())
                .or_default()
                .entry(namespace.clone())
                .or_default()
                .push(ScopedRequirement {
                    requirement: requirement.clone(),
                    origin: origin.clone(),
                });
        }
        if !conflicting.is_empty() {
            let quoted: Vec<String> = conflicting.iter().map(|s| go_quote(s)).collect();
            out.conflicts.push(ScopeConflict {
                origin,
                namespace,
                name: ip.metadata.name.clone(),
                message: format!(
                    "has conflicting scope(s) [{}] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied",
                    quoted.join(" ")
                ),
                scopes: conflicting,
            });
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// updatePolicyJSON / updateNamespacedPolicyJSONs

/// `clusterScopePolicies`: scope → requirements.
pub type ClusterScopes = BTreeMap<String, Vec<ScopedRequirement>>;
/// `scopeNamespacePolicies`: scope → namespace → requirements.
pub type NamespacedScopes = BTreeMap<String, BTreeMap<String, Vec<ScopedRequirement>>>;

fn scope_origins<'a>(reqs: impl IntoIterator<Item = &'a ScopedRequirement>) -> Vec<Origin> {
    let mut origins: Vec<Origin> = Vec::new();
    for r in reqs {
        Origin::push_unique(&mut origins, &r.origin);
    }
    origins
}

/// The MCO's `validateImagePolicyWithAllowedBlockedRegistries`. Upstream
/// walks Go maps, so which violation it names first is random; here scopes
/// are checked in sorted order, in upstream's four passes (cluster scopes
/// against allowed, against blocked, then namespace scopes likewise).
pub fn validate_image_policy_with_allowed_blocked(
    cluster: Option<&ClusterScopes>,
    namespaced: Option<&NamespacedScopes>,
    allowed: &[String],
    policy_blocked: &[String],
) -> Result<(), RenderError> {
    if allowed.is_empty() && policy_blocked.is_empty() {
        return Ok(());
    }
    let cluster: Vec<(&String, Vec<Origin>)> = cluster
        .into_iter()
        .flatten()
        .map(|(s, reqs)| (s, scope_origins(reqs)))
        .collect();
    let namespaced: Vec<(&String, Vec<Origin>)> = namespaced
        .into_iter()
        .flatten()
        .map(|(s, by_ns)| (s, scope_origins(by_ns.values().flatten())))
        .collect();
    for (kind, scopes) in [
        (PolicyKind::ClusterImagePolicy, &cluster),
        (PolicyKind::ImagePolicy, &namespaced),
    ] {
        for (scope, origins) in scopes {
            if !allowed.is_empty()
                && !allowed
                    .iter()
                    .any(|a| scope_is_nested_inside_scope(scope, a))
            {
                return Err(RenderError::NotNestedInAllowed {
                    kind,
                    scope: (*scope).clone(),
                    origins: origins.clone(),
                });
            }
        }
        for (scope, origins) in scopes {
            if policy_blocked
                .iter()
                .any(|b| scope_is_nested_inside_scope(scope, b))
            {
                return Err(RenderError::NestedInBlocked {
                    kind,
                    scope: (*scope).clone(),
                    origins: origins.clone(),
                });
            }
        }
    }
    Ok(())
}

fn atomic_allows(scope: &str) -> bool {
    // "atomic" does not support three or more scope segments.
    scope.matches('/').count() < 3
}

/// The MCO's `updatePolicyJSON`: the cluster policy.json from the template,
/// the payload-filtered blocked and allowed registries (`None` is Go's nil)
/// and the cluster scope policies. Returns the template text unchanged when
/// neither list is set and there is no cluster scope.
pub fn update_policy_json(
    template: &str,
    policy_blocked: Option<&[String]>,
    allowed: Option<&[String]>,
    release_image: Option<&str>,
    cluster: &ClusterScopes,
) -> Result<String, RenderError> {
    update_policy_json_as(
        template,
        policy_blocked,
        allowed,
        release_image,
        cluster,
        &McoProfile::default(),
    )
}

/// [`update_policy_json`] as the release of `profile` runs it: before 4.11
/// both lists set is an error even for the payload repository, before 4.9
/// the scopes are not validated, and before 4.14 the `atomic` transport is
/// the `docker` transport's copy, written even when empty.
pub fn update_policy_json_as(
    template: &str,
    policy_blocked: Option<&[String]>,
    allowed: Option<&[String]>,
    release_image: Option<&str>,
    cluster: &ClusterScopes,
    profile: &McoProfile,
) -> Result<String, RenderError> {
    let blocked_list = policy_blocked.unwrap_or_default();
    let allowed_list = allowed.unwrap_or_default();
    if !allowed_list.is_empty() && !blocked_list.is_empty() && !profile.payload_allowed_exemption {
        return Err(McoFinding::AllowedAndBlocked.into());
    }
    if !allowed_list.is_empty() && !blocked_list.is_empty() {
        // Without a release image (no ClusterVersion) the MCO does not get
        // here; the payload exemption cannot apply, and the fault is that
        // both lists are set (as `lint` says), not a reference to parse.
        let Some(image) = release_image else {
            return Err(McoFinding::AllowedAndBlocked.into());
        };
        let payload =
            Reference::parse_named(image).map_err(|_| RenderError::ParsingReleaseImage)?;
        if !(allowed_list.len() == 1 && allowed_list[0] == payload.name()) {
            return Err(McoFinding::AllowedAndBlocked.into());
        }
    }
    validate_image_policy_with_allowed_blocked(Some(cluster), None, allowed_list, blocked_list)?;
    if allowed.is_none() && policy_blocked.is_none() && cluster.is_empty() {
        return Ok(template.to_string());
    }
    if let Some(first) = list_findings_as(&[], blocked_list, allowed_list, profile.validation)
        .into_iter()
        .next()
    {
        return Err(first.into());
    }
    let mut policy = Policy::from_json(template).map_err(RenderError::DecodePolicy)?;

    let mut scopes: Scopes = BTreeMap::new();
    if !allowed_list.is_empty() {
        policy.default = vec![Requirement::Reject];
        for reg in allowed_list {
            // A cluster policy on exactly this scope replaces insecureAcceptAnything.
            if cluster.get(reg).is_some_and(|reqs| !reqs.is_empty()) {
                continue;
            }
            scopes.insert(reg.clone(), vec![Requirement::InsecureAcceptAnything]);
        }
    }
    if !blocked_list.is_empty() {
        policy.default = vec![Requirement::InsecureAcceptAnything];
        for reg in blocked_list {
            scopes.insert(reg.clone(), vec![Requirement::Reject]);
        }
    }
    for (scope, reqs) in cluster {
        scopes
            .entry(scope.clone())
            .or_default()
            .extend(reqs.iter().map(|r| r.requirement.clone()));
    }
    if !profile.atomic_filter {
        policy
            .transports
            .insert("atomic".to_string(), scopes.clone());
        policy.transports.insert("docker".to_string(), scopes);
    } else if !scopes.is_empty() {
        let atomic: Scopes = scopes
            .iter()
            .filter(|(scope, _)| atomic_allows(scope))
            .map(|(scope, reqs)| (scope.clone(), reqs.clone()))
            .collect();
        policy.transports.insert("docker".to_string(), scopes);
        policy.transports.insert("atomic".to_string(), atomic);
    }
    Ok(policy_text(&policy, profile))
}

/// policy.json as the release writes it: indented from 4.17, else Go's
/// compact `json.Marshal`.
fn policy_text(policy: &Policy, profile: &McoProfile) -> String {
    if profile.policy_indent {
        policy.to_json()
    } else {
        policy.to_json_compact()
    }
}

/// The MCO's `updateNamespacedPolicyJSONs`: for each namespace, the cluster
/// policy (as [`update_policy_json`] returned it) with the namespace's
/// requirements appended to `docker` and (short scopes) `atomic`.
pub fn update_namespaced_policy_jsons(
    cluster_policy_json: &str,
    policy_blocked: Option<&[String]>,
    allowed: Option<&[String]>,
    namespaced: &NamespacedScopes,
) -> Result<BTreeMap<String, String>, RenderError> {
    if cluster_policy_json.is_empty() {
        return Err(RenderError::EmptyClusterPolicy);
    }
    validate_image_policy_with_allowed_blocked(
        None,
        Some(namespaced),
        allowed.unwrap_or_default(),
        policy_blocked.unwrap_or_default(),
    )?;
    let mut by_namespace: BTreeMap<&str, BTreeMap<&str, Vec<Requirement>>> = BTreeMap::new();
    for (scope, by_ns) in namespaced {
        for (namespace, reqs) in by_ns {
            by_namespace
                .entry(namespace)
                .or_default()
                .entry(scope)
                .or_default()
                .extend(reqs.iter().map(|r| r.requirement.clone()));
        }
    }
    let mut out = BTreeMap::new();
    for (namespace, scopes) in by_namespace {
        let mut policy =
            Policy::from_json(cluster_policy_json).map_err(RenderError::DecodeNamespacedPolicy)?;
        let docker = policy.transports.entry("docker".to_string()).or_default();
        for (scope, reqs) in &scopes {
            docker
                .entry(scope.to_string())
                .or_default()
                .extend(reqs.iter().cloned());
        }
        let atomic = policy.transports.entry("atomic".to_string()).or_default();
        for (scope, reqs) in &scopes {
            if atomic_allows(scope) {
                atomic
                    .entry(scope.to_string())
                    .or_default()
                    .extend(reqs.iter().cloned());
            }
        }
        out.insert(namespace.to_string(), policy.to_json());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// The orchestrator's entry point

/// What the policy half of `registriesConfigIgnition` produces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyRender {
    /// `/etc/containers/policy.json`, when the MCO writes it.
    pub policy_json: Option<String>,
    /// `/etc/crio/policies/<namespace>.json`, by namespace.
    pub namespaced: BTreeMap<String, String>,
    /// The scope policies the files were built from.
    pub scope_policies: ScopePolicies,
    /// What the MCO reports elsewhere: ImagePolicy scope conflicts (a status
    /// condition).
    pub warnings: Vec<RenderWarning>,
}

/// Renders policy.json and the namespaced policies as
/// `registriesConfigIgnition` does: nothing unless `policy_blocked` or
/// `allowed` is set (Go non-nil, even if empty) or a policy scope exists.
/// `policy_blocked` and `allowed` are the lists after payload protection;
/// `cips`/`ips` are empty when the sigstore feature gate is off. The
/// sigstore `registries.d` file written alongside is composed by
/// [`super::pool`].
pub fn render_policies(
    template: &str,
    policy_blocked: Option<&[String]>,
    allowed: Option<&[String]>,
    release_image: Option<&str>,
    cips: &[&ClusterImagePolicy],
    ips: &[&ImagePolicy],
) -> Result<PolicyRender, RenderError> {
    let lists = PolicyLists {
        blocked: policy_blocked,
        allowed,
        release_image,
    };
    render_policies_as(template, lists, cips, ips, &McoProfile::default())
}

/// OpenShift 4.16's `getValidScopePolicies`: a ClusterImagePolicy scope
/// that holds the payload repository (the release image's, or a wider
/// scope) is left out of every file, and the object's status says so
/// (`Pending`, `ConflictScopes`). The warnings are those status messages,
/// one per object, its scopes in spec order. From 4.17 every scope is kept.
fn skip_payload_scopes(
    scopes: &mut ScopePolicies,
    cips: &[&ClusterImagePolicy],
    release_image: &str,
) -> Result<Vec<RenderWarning>, RenderError> {
    let payload = Reference::parse_named(release_image)
        .map_err(|_| RenderError::ParsingReleaseImage)?
        .name();
    let mut cips: Vec<&ClusterImagePolicy> = cips.to_vec();
    cips.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let mut warnings = Vec::new();
    for cip in cips {
        let skipped: Vec<&String> = cip
            .spec
            .scopes
            .iter()
            .filter(|scope| scope_is_nested_inside_scope(&payload, scope))
            .collect();
        if skipped.is_empty() {
            continue;
        }
        for scope in &skipped {
            scopes.cluster.remove(scope.as_str());
        }
        let quoted: Vec<String> = skipped.iter().map(|s| go_quote(s)).collect();
        warnings.push(RenderWarning::PayloadScopesSkipped {
            origin: cip.origin(),
            scopes: skipped.into_iter().cloned().collect(),
            message: format!(
                "has conflict scope(s) [{}] of Openshift payload repository {payload}, skip the scope(s)",
                quoted.join(" ")
            ),
        });
    }
    Ok(warnings)
}

/// The payload-filtered lists policy.json is edited with (`None` is Go's nil).
#[derive(Debug, Clone, Copy, Default)]
pub struct PolicyLists<'a> {
    pub blocked: Option<&'a [String]>,
    pub allowed: Option<&'a [String]>,
    /// `ClusterVersion/version` `status.desired.image`.
    pub release_image: Option<&'a str>,
}

/// [`render_policies`] as the release of `profile` runs it.
pub fn render_policies_as(
    template: &str,
    lists: PolicyLists<'_>,
    cips: &[&ClusterImagePolicy],
    ips: &[&ImagePolicy],
    profile: &McoProfile,
) -> Result<PolicyRender, RenderError> {
    let PolicyLists {
        blocked: policy_blocked,
        allowed,
        release_image,
    } = lists;
    let mut scope_policies = get_valid_scope_policies(cips, ips)?;
    let skipped = match release_image {
        Some(image) if profile.payload_policy_scopes_skipped => {
            skip_payload_scopes(&mut scope_policies, cips, image)?
        }
        _ => Vec::new(),
    };
    let mut out = PolicyRender {
        warnings: scope_policies
            .conflicts
            .iter()
            .map(|c| RenderWarning::ScopeConflict {
                origin: c.origin.clone(),
                namespace: c.namespace.clone(),
                scopes: c.scopes.clone(),
                message: c.message.clone(),
            })
            .chain(skipped)
            .collect(),
        ..PolicyRender::default()
    };
    if policy_blocked.is_some()
        || allowed.is_some()
        || !scope_policies.cluster.is_empty()
        || !scope_policies.namespaced.is_empty()
    {
        let policy = update_policy_json_as(
            template,
            policy_blocked,
            allowed,
            release_image,
            &scope_policies.cluster,
            profile,
        )?;
        out.namespaced = update_namespaced_policy_jsons(
            &policy,
            policy_blocked,
            allowed,
            &scope_policies.namespaced,
        )?;
        out.policy_json = Some(policy);
    }
    out.scope_policies = scope_policies;
    Ok(out)
}

#[cfg(test)]
mod tests;
