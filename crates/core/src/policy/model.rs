//! The typed policy.json model (containers/image `signature/policy_types.go`):
//! the document, every requirement and identity type, and the checks their
//! upstream constructors make (`newPRSigstoreSigned`, `newPRMExactReference`,
//! …) with upstream's messages. Decoding and encoding live beside it.

use std::collections::BTreeMap;

use crate::quote::go_quote;
use crate::reference::{is_valid_identity_remapping_prefix, Reference};

/// `PolicyTransportScopes`: scope → requirements (ANDed).
pub type Scopes = BTreeMap<String, Vec<Requirement>>;

/// A policy.json document (containers/image `signature.Policy`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `default`: never empty in a decoded document.
    pub default: Vec<Requirement>,
    /// `transports`: transport → scope → requirements (ANDed).
    pub transports: BTreeMap<String, BTreeMap<String, Vec<Requirement>>>,
}

/// One policy requirement (`PolicyRequirement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `insecureAcceptAnything`.
    InsecureAcceptAnything,
    /// `reject`.
    Reject,
    /// `signedBy`.
    SignedBy(SignedBy),
    /// `signedBaseLayer`.
    SignedBaseLayer { base_layer_identity: SignedIdentity },
    /// `sigstoreSigned`, what (Cluster)ImagePolicy objects become.
    SigstoreSigned(Box<SigstoreSigned>),
}

/// `signedBy` (GPG / X.509 keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedBy {
    pub key_type: String,
    pub key_path: String,
    pub key_paths: Option<Vec<String>>,
    pub key_data: Option<Vec<u8>>,
    pub signed_identity: SignedIdentity,
}

/// `sigstoreSigned` (`prSigstoreSigned`). `Option` is Go's nil; an empty but
/// present value counts as "specified" for the constructor's checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigstoreSigned {
    pub key_path: String,
    pub key_paths: Option<Vec<String>>,
    pub key_data: Option<Vec<u8>>,
    pub key_datas: Option<Vec<Vec<u8>>>,
    pub fulcio: Option<Fulcio>,
    pub rekor_public_key_path: String,
    pub rekor_public_key_paths: Option<Vec<String>>,
    pub rekor_public_key_data: Option<Vec<u8>>,
    pub rekor_public_key_datas: Option<Vec<Vec<u8>>>,
    pub pki: Option<Pki>,
    pub signed_identity: SignedIdentity,
}

/// `sigstoreSigned.fulcio`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fulcio {
    pub ca_path: String,
    pub ca_data: Option<Vec<u8>>,
    pub oidc_issuer: String,
    pub subject_email: String,
}

/// `sigstoreSigned.pki`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pki {
    pub ca_roots_path: String,
    pub ca_roots_data: Option<Vec<u8>>,
    pub ca_intermediates_path: String,
    pub ca_intermediates_data: Option<Vec<u8>>,
    pub subject_email: String,
    pub subject_hostname: String,
}

/// `signedIdentity` / `baseLayerIdentity` (`PolicyReferenceMatch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignedIdentity {
    MatchExact,
    MatchRepoDigestOrExact,
    MatchRepository,
    ExactReference {
        docker_reference: String,
    },
    ExactRepository {
        docker_repository: String,
    },
    RemapIdentity {
        prefix: String,
        signed_prefix: String,
    },
}

impl SigstoreSigned {
    /// A `sigstoreSigned` with no key source yet: what the constructors start from.
    pub fn with_identity(signed_identity: SignedIdentity) -> Self {
        Self {
            key_path: String::new(),
            key_paths: None,
            key_data: None,
            key_datas: None,
            fulcio: None,
            rekor_public_key_path: String::new(),
            rekor_public_key_paths: None,
            rekor_public_key_data: None,
            rekor_public_key_datas: None,
            pki: None,
            signed_identity,
        }
    }

    /// The checks of containers/image `newPRSigstoreSigned`.
    pub fn check(&self) -> Result<(), String> {
        let key_sources = [
            !self.key_path.is_empty(),
            self.key_paths.is_some(),
            self.key_data.is_some(),
            self.key_datas.is_some(),
            self.fulcio.is_some(),
            self.pki.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        if key_sources != 1 {
            return Err("exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified".into());
        }
        let rekor_sources = [
            !self.rekor_public_key_path.is_empty(),
            self.rekor_public_key_paths.is_some(),
            self.rekor_public_key_data.is_some(),
            self.rekor_public_key_datas.is_some(),
        ]
        .iter()
        .filter(|&&b| b)
        .count();
        if rekor_sources > 1 {
            return Err("at most one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas can be used simultaneously".into());
        }
        if self.fulcio.is_some() && rekor_sources == 0 {
            return Err("At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used".into());
        }
        if self.pki.is_some() && rekor_sources > 0 {
            return Err("rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas are not supported for pki".into());
        }
        Ok(())
    }
}

impl Fulcio {
    /// The checks of containers/image `newPRSigstoreSignedFulcio`.
    pub fn check(&self) -> Result<(), String> {
        if !self.ca_path.is_empty() && self.ca_data.is_some() {
            return Err("caPath and caData cannot be used simultaneously".into());
        }
        if self.ca_path.is_empty() && self.ca_data.is_none() {
            return Err("At least one of caPath and caData must be specified".into());
        }
        if self.oidc_issuer.is_empty() {
            return Err("oidcIssuer not specified".into());
        }
        if self.subject_email.is_empty() {
            return Err("subjectEmail not specified".into());
        }
        Ok(())
    }
}

impl Pki {
    /// The checks of containers/image `newPRSigstoreSignedPKI`.
    pub fn check(&self) -> Result<(), String> {
        if !self.ca_roots_path.is_empty() && self.ca_roots_data.is_some() {
            return Err("caRootsPath and caRootsData cannot be used simultaneously".into());
        }
        if self.ca_roots_path.is_empty() && self.ca_roots_data.is_none() {
            return Err("At least one of caRootsPath and caRootsData must be specified".into());
        }
        if !self.ca_intermediates_path.is_empty() && self.ca_intermediates_data.is_some() {
            return Err(
                "caIntermediatesPath and caIntermediatesData cannot be used simultaneously".into(),
            );
        }
        if self.subject_email.is_empty() && self.subject_hostname.is_empty() {
            return Err("At least one of subjectEmail, subjectHostname must be specified".into());
        }
        Ok(())
    }
}

impl SignedIdentity {
    /// `newPRMRemapIdentity`.
    pub fn remap_identity(prefix: &str, signed_prefix: &str) -> Result<Self, String> {
        for p in [prefix, signed_prefix] {
            if !is_valid_identity_remapping_prefix(p) {
                return Err(format!("prefix {} is not valid", go_quote(p)));
            }
        }
        Ok(Self::RemapIdentity {
            prefix: prefix.to_string(),
            signed_prefix: signed_prefix.to_string(),
        })
    }

    /// `newPRMExactRepository`.
    pub fn exact_repository(repository: &str) -> Result<Self, String> {
        Reference::parse_normalized_named(repository).map_err(|e| {
            format!(
                "Invalid format of dockerRepository {}: {e}",
                go_quote(repository)
            )
        })?;
        Ok(Self::ExactRepository {
            docker_repository: repository.to_string(),
        })
    }

    /// `newPRMExactReference`.
    pub fn exact_reference(reference: &str) -> Result<Self, String> {
        let parsed = Reference::parse_normalized_named(reference).map_err(|e| {
            format!(
                "Invalid format of dockerReference {}: {e}",
                go_quote(reference)
            )
        })?;
        if parsed.is_name_only() {
            return Err(format!(
                "dockerReference {} contains neither a tag nor digest",
                go_quote(reference)
            ));
        }
        Ok(Self::ExactReference {
            docker_reference: reference.to_string(),
        })
    }
}
