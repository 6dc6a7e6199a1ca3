//! Signature policies: ClusterImagePolicy (cluster-wide) and ImagePolicy
//! (per namespace), config.openshift.io/v1 and the older v1alpha1, which
//! share one shape and load into the same types.
//!
//! Upstream: openshift/api `config/v1/types_cluster_image_policy.go`,
//! `config/v1/types_image_policy.go`; v1alpha1 until openshift/api commit
//! `85c1377d` dropped it.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::validate::{
    decode_base64, identity_prefix_failures, is_dns1123_subdomain, is_email, is_url,
    scope_rule_failures, Errors,
};
use super::{null_default, Condition, FieldError, ObjectMeta};
use crate::origin::Origin;

/// `ClusterImagePolicy`: signature requirements for scopes, cluster-wide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterImagePolicy {
    /// `apiVersion`: `config.openshift.io/v1` or `config.openshift.io/v1alpha1`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec` (required).
    pub spec: ImagePolicySpec,
    /// `status`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "ImagePolicyStatus::is_empty"
    )]
    pub status: ImagePolicyStatus,
}

/// `ImagePolicy`: signature requirements for scopes, for the pods of one
/// namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePolicy {
    /// `apiVersion`: `config.openshift.io/v1` or `config.openshift.io/v1alpha1`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`; `namespace` says which pods the policy applies to.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec` (required).
    pub spec: ImagePolicySpec,
    /// `status` (the MCO sets a `Pending` condition on scope conflicts).
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "ImagePolicyStatus::is_empty"
    )]
    pub status: ImagePolicyStatus,
}

/// The spec both policy kinds share.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePolicySpec {
    /// Image scopes (`host[:port][/path][:tag|@digest]` or `*.domain`), required.
    pub scopes: Vec<String>,
    /// The verification policy, required.
    pub policy: ImageSigstoreVerificationPolicy,
}

/// `status` of both policy kinds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImagePolicyStatus {
    /// Conditions.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<Condition>,
}

impl ImagePolicyStatus {
    fn is_empty(&self) -> bool {
        self.conditions.is_empty()
    }
}

/// `spec.policy`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSigstoreVerificationPolicy {
    /// How signatures are verified, required.
    pub root_of_trust: PolicyRootOfTrust,
    /// What identity signatures must claim; `None` means `MatchRepoDigestOrExact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_identity: Option<PolicyIdentity>,
}

/// `spec.policy.rootOfTrust`: a union selected by `policyType`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyRootOfTrust {
    /// The discriminator, required.
    pub policy_type: PolicyType,
    /// Set for `PublicKey`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<ImagePolicyPublicKeyRootOfTrust>,
    /// Set for `FulcioCAWithRekor`.
    #[serde(
        rename = "fulcioCAWithRekor",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub fulcio_ca_with_rekor: Option<ImagePolicyFulcioCAWithRekorRootOfTrust>,
    /// Set for `PKI`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pki: Option<ImagePolicyPKIRootOfTrust>,
}

/// `rootOfTrust.policyType`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum PolicyType {
    /// A sigstore public key, optionally with Rekor.
    #[default]
    PublicKey,
    /// A Fulcio CA and a Rekor key.
    FulcioCAWithRekor,
    /// Bring-your-own PKI roots.
    PKI,
    /// A value the CRD's enum rejects.
    Unknown(String),
}

/// `signedIdentity.matchPolicy`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum IdentityMatchPolicy {
    /// `matchRepoDigestOrExact`, the default.
    #[default]
    MatchRepoDigestOrExact,
    /// `matchRepository`.
    MatchRepository,
    /// `exactRepository` with [`PolicyIdentity::exact_repository`].
    ExactRepository,
    /// `remapIdentity` with [`PolicyIdentity::remap_identity`].
    RemapIdentity,
    /// A value the CRD's enum rejects.
    Unknown(String),
}

macro_rules! string_enum {
    ($ty:ident { $($variant:ident),+ }) => {
        impl $ty {
            /// The spelling in the CR.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => stringify!($variant),)+
                    Self::Unknown(s) => s,
                }
            }
        }

        impl From<String> for $ty {
            fn from(s: String) -> Self {
                match s.as_str() {
                    $(stringify!($variant) => Self::$variant,)+
                    _ => Self::Unknown(s),
                }
            }
        }

        impl From<$ty> for String {
            fn from(v: $ty) -> Self {
                v.as_str().to_string()
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(PolicyType {
    PublicKey,
    FulcioCAWithRekor,
    PKI
});
string_enum!(IdentityMatchPolicy {
    MatchRepoDigestOrExact,
    MatchRepository,
    ExactRepository,
    RemapIdentity
});

/// `rootOfTrust.publicKey`. Key data stays base64-encoded, as in the CR and
/// in the policy.json the MCO writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePolicyPublicKeyRootOfTrust {
    /// Base64 of a PEM public key, required.
    pub key_data: String,
    /// Base64 of a PEM Rekor public key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rekor_key_data: Option<String>,
}

/// `rootOfTrust.fulcioCAWithRekor`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePolicyFulcioCAWithRekorRootOfTrust {
    /// Base64 of a PEM Fulcio CA certificate, required.
    #[serde(rename = "fulcioCAData")]
    pub fulcio_ca_data: String,
    /// Base64 of a PEM Rekor public key, required.
    pub rekor_key_data: String,
    /// The expected OIDC issuer and e-mail, required.
    pub fulcio_subject: PolicyFulcioSubject,
}

/// `fulcioCAWithRekor.fulcioSubject`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyFulcioSubject {
    /// The OIDC issuer URL, required.
    pub oidc_issuer: String,
    /// The e-mail the certificate was issued for, required.
    pub signed_email: String,
}

/// `rootOfTrust.pki`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePolicyPKIRootOfTrust {
    /// Base64 of a PEM bundle of CA roots, required.
    pub ca_roots_data: String,
    /// Base64 of a PEM bundle of intermediate certificates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_intermediates_data: Option<String>,
    /// Subject requirements, required.
    pub pki_certificate_subject: PKICertificateSubject,
}

/// `pki.pkiCertificateSubject`: at least one field must be set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PKICertificateSubject {
    /// E-mail in the certificate's SAN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Host name in the certificate's SAN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
}

/// `policy.signedIdentity`: a union selected by `matchPolicy`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyIdentity {
    /// The discriminator, required.
    pub match_policy: IdentityMatchPolicy,
    /// Set for `ExactRepository`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_repository: Option<PolicyMatchExactRepository>,
    /// Set for `RemapIdentity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remap_identity: Option<PolicyMatchRemapIdentity>,
}

/// `signedIdentity.exactRepository`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyMatchExactRepository {
    /// The repository signatures must name, required.
    pub repository: String,
}

/// `signedIdentity.remapIdentity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyMatchRemapIdentity {
    /// The prefix of the image identity to replace, required.
    pub prefix: String,
    /// What the prefix is replaced with in the signature, required.
    pub signed_prefix: String,
}

impl ClusterImagePolicy {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::CLUSTER_IMAGE_POLICY.kind;

    /// A policy with `apiVersion`, `kind`, name and spec set.
    pub fn new(name: &str, spec: ImagePolicySpec) -> Self {
        Self {
            api_version: crate::kinds::CLUSTER_IMAGE_POLICY.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(name),
            spec,
            status: ImagePolicyStatus::default(),
        }
    }

    /// `ClusterImagePolicy/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// CRD validation of the spec (the v1 rules, also for v1alpha1 objects).
    pub fn validate(&self) -> Vec<FieldError> {
        self.spec.validate(self.origin())
    }
}

impl ImagePolicy {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::IMAGE_POLICY.kind;

    /// A policy with `apiVersion`, `kind`, namespace, name and spec set.
    pub fn new(namespace: &str, name: &str, spec: ImagePolicySpec) -> Self {
        let mut metadata = ObjectMeta::named(name);
        metadata.namespace = Some(namespace.to_string());
        Self {
            api_version: crate::kinds::IMAGE_POLICY.api_version(),
            kind: Self::KIND.to_string(),
            metadata,
            spec,
            status: ImagePolicyStatus::default(),
        }
    }

    /// `ImagePolicy/<namespace>/<name>`, or `ImagePolicy/<name>` when the
    /// object names no namespace.
    pub fn origin(&self) -> Origin {
        match self.metadata.namespace.as_deref() {
            Some(ns) if !ns.is_empty() => {
                Origin::object(Self::KIND, &format!("{ns}/{}", self.metadata.name))
            }
            _ => Origin::object(Self::KIND, &self.metadata.name),
        }
    }

    /// CRD validation of the spec, the same rules as ClusterImagePolicy.
    pub fn validate(&self) -> Vec<FieldError> {
        self.spec.validate(self.origin())
    }
}

impl ImagePolicySpec {
    /// The rules both CRDs carry: scope patterns, the `rootOfTrust` and
    /// `signedIdentity` unions, key and certificate data, subject formats.
    pub fn validate(&self, object: Origin) -> Vec<FieldError> {
        let mut errors = Errors::new(object);
        errors.max_items("spec.scopes", self.scopes.len(), 256);
        errors.unique("spec.scopes", &self.scopes);
        for (i, scope) in self.scopes.iter().enumerate() {
            let at = format!("spec.scopes[{i}]");
            if !errors.max_length(&at, scope, 512) {
                continue;
            }
            for message in scope_rule_failures(scope) {
                errors.rule(&at, scope, message);
            }
        }
        validate_root_of_trust(&mut errors, &self.policy.root_of_trust);
        if let Some(identity) = &self.policy.signed_identity {
            validate_identity(&mut errors, identity);
        }
        errors.into_vec()
    }
}

const PUBLIC_KEY_BEGIN: &str = "-----BEGIN PUBLIC KEY-----";
const PUBLIC_KEY_END: &str = "-----END PUBLIC KEY-----";
const CERTIFICATE_BEGIN: &str = "-----BEGIN CERTIFICATE-----";
const CERTIFICATE_END: &str = "-----END CERTIFICATE-----";

fn validate_root_of_trust(errors: &mut Errors, rot: &PolicyRootOfTrust) {
    let at = "spec.policy.rootOfTrust";
    if let PolicyType::Unknown(value) = &rot.policy_type {
        errors.push(
            format!("{at}.policyType"),
            value,
            "is not a supported value: supported values are \"PublicKey\", \"FulcioCAWithRekor\" and \"PKI\"",
        );
    }
    // The CRD lists the union rules in this order (PKI first, as merged from its feature gate).
    for (member, is_set, wanted) in [
        ("pki", rot.pki.is_some(), PolicyType::PKI),
        ("publicKey", rot.public_key.is_some(), PolicyType::PublicKey),
        (
            "fulcioCAWithRekor",
            rot.fulcio_ca_with_rekor.is_some(),
            PolicyType::FulcioCAWithRekor,
        ),
    ] {
        if (rot.policy_type == wanted) != is_set {
            errors.rule(
                at,
                "",
                &format!(
                    "{member} is required when policyType is {}, and forbidden otherwise",
                    wanted.as_str()
                ),
            );
        }
    }
    if let Some(pk) = &rot.public_key {
        validate_public_key(errors, &format!("{at}.publicKey"), pk);
    }
    if let Some(f) = &rot.fulcio_ca_with_rekor {
        validate_fulcio(errors, &format!("{at}.fulcioCAWithRekor"), f);
    }
    if let Some(pki) = &rot.pki {
        validate_pki(errors, &format!("{at}.pki"), pki);
    }
}

fn validate_public_key(errors: &mut Errors, at: &str, pk: &ImagePolicyPublicKeyRootOfTrust) {
    pem_field(
        errors,
        &format!("{at}.keyData"),
        "keyData",
        &pk.key_data,
        Pem::PublicKey,
        Some(68),
    );
    if let Some(rekor) = &pk.rekor_key_data {
        pem_field(
            errors,
            &format!("{at}.rekorKeyData"),
            "rekorKeyData",
            rekor,
            Pem::PublicKey,
            None,
        );
    }
}

fn validate_fulcio(errors: &mut Errors, at: &str, f: &ImagePolicyFulcioCAWithRekorRootOfTrust) {
    pem_field(
        errors,
        &format!("{at}.fulcioCAData"),
        "fulcioCAData",
        &f.fulcio_ca_data,
        Pem::Certificate,
        None,
    );
    pem_field(
        errors,
        &format!("{at}.rekorKeyData"),
        "rekorKeyData",
        &f.rekor_key_data,
        Pem::PublicKey,
        None,
    );
    let subject = &f.fulcio_subject;
    let field = format!("{at}.fulcioSubject.oidcIssuer");
    if errors.max_length(&field, &subject.oidc_issuer, 2048) && !is_url(&subject.oidc_issuer) {
        errors.rule(
            &field,
            &subject.oidc_issuer,
            "oidcIssuer must be a valid URL",
        );
    }
    let field = format!("{at}.fulcioSubject.signedEmail");
    if errors.max_length(&field, &subject.signed_email, 320) && !is_email(&subject.signed_email) {
        errors.rule(&field, &subject.signed_email, "invalid email address");
    }
}

fn validate_pki(errors: &mut Errors, at: &str, pki: &ImagePolicyPKIRootOfTrust) {
    pem_field(
        errors,
        &format!("{at}.caRootsData"),
        "caRootsData",
        &pki.ca_roots_data,
        Pem::Bundle,
        Some(72),
    );
    if let Some(intermediates) = &pki.ca_intermediates_data {
        pem_field(
            errors,
            &format!("{at}.caIntermediatesData"),
            "caIntermediatesData",
            intermediates,
            Pem::Bundle,
            Some(72),
        );
    }
    let subject = &pki.pki_certificate_subject;
    let at = format!("{at}.pkiCertificateSubject");
    if subject.email.is_none() && subject.hostname.is_none() {
        errors.rule(
            &at,
            "",
            "at least one of email or hostname must be set in pkiCertificateSubject",
        );
    }
    if let Some(email) = &subject.email {
        let field = format!("{at}.email");
        if errors.max_length(&field, email, 320) && !is_email(email) {
            errors.rule(&field, email, "invalid email address");
        }
    }
    if let Some(hostname) = &subject.hostname {
        let field = format!("{at}.hostname");
        let name = hostname.strip_prefix("*.").unwrap_or(hostname);
        if errors.max_length(&field, hostname, 253) && !is_dns1123_subdomain(name) {
            errors.rule(&field, hostname, "hostname must be a valid dns 1123 subdomain name, optionally prefixed by '*.'. It must consist only of lowercase alphanumeric characters, hyphens, periods and the optional preceding asterisk.");
        }
    }
}

#[derive(Clone, Copy)]
enum Pem {
    PublicKey,
    Certificate,
    /// Certificates, with as many BEGIN as END markers.
    Bundle,
}

/// A `format: byte` field whose decoded text must be PEM of one kind.
fn pem_field(
    errors: &mut Errors,
    field: &str,
    name: &str,
    value: &str,
    pem: Pem,
    min: Option<usize>,
) {
    if !errors.max_length(field, value, 8192) {
        return;
    }
    if let Some(min) = min {
        if !errors.min_length(field, value, min) {
            return;
        }
    }
    let Some(bytes) = decode_base64(value) else {
        errors.push(field, value, "is not valid base64 (format: byte)");
        return;
    };
    let Ok(text) = String::from_utf8(bytes) else {
        errors.push(field, value, "does not decode to UTF-8 text");
        return;
    };
    let (begin, end) = match pem {
        Pem::PublicKey => (PUBLIC_KEY_BEGIN, PUBLIC_KEY_END),
        Pem::Certificate | Pem::Bundle => (CERTIFICATE_BEGIN, CERTIFICATE_END),
    };
    if !text.starts_with(begin) {
        errors.rule(
            field,
            value,
            &format!("the {name} must start with base64 encoding of '{begin}'."),
        );
    }
    if !(text.ends_with(&format!("{end}\n")) || text.ends_with(end)) {
        errors.rule(
            field,
            value,
            &format!("the {name} must end with base64 encoding of '{end}'."),
        );
    }
    if matches!(pem, Pem::Bundle) && text.matches(begin).count() != text.matches(end).count() {
        errors.rule(field, value, &format!("{name} must be base64 encoding of valid PEM format data contain the same number of '{begin}' and '{end}' markers."));
    }
}

fn validate_identity(errors: &mut Errors, identity: &PolicyIdentity) {
    let at = "spec.policy.signedIdentity";
    if let IdentityMatchPolicy::Unknown(value) = &identity.match_policy {
        errors.push(
            format!("{at}.matchPolicy"),
            value,
            "is not a supported value: supported values are \"MatchRepoDigestOrExact\", \"MatchRepository\", \"ExactRepository\" and \"RemapIdentity\"",
        );
    }
    for (member, is_set, wanted) in [
        (
            "exactRepository",
            identity.exact_repository.is_some(),
            IdentityMatchPolicy::ExactRepository,
        ),
        (
            "remapIdentity",
            identity.remap_identity.is_some(),
            IdentityMatchPolicy::RemapIdentity,
        ),
    ] {
        if (identity.match_policy == wanted) != is_set {
            errors.rule(
                at,
                "",
                &format!(
                    "{member} is required when matchPolicy is {}, and forbidden otherwise",
                    wanted.as_str()
                ),
            );
        }
    }
    let mut prefix = |field: String, value: &str| {
        if errors.max_length(&field, value, 512) {
            for message in identity_prefix_failures(value) {
                errors.rule(&field, value, message);
            }
        }
    };
    if let Some(exact) = &identity.exact_repository {
        prefix(
            format!("{at}.exactRepository.repository"),
            &exact.repository,
        );
    }
    if let Some(remap) = &identity.remap_identity {
        prefix(format!("{at}.remapIdentity.prefix"), &remap.prefix);
        prefix(
            format!("{at}.remapIdentity.signedPrefix"),
            &remap.signed_prefix,
        );
    }
}

#[cfg(test)]
mod tests;
