//! What a `--probe` found, as the explanation and the audit carry it: the
//! outcome of each pull source and the sigstore attachment looked up. The
//! probe (the live crate's) fills these in; the explanation only holds them,
//! so the explanation's types sit below the probe and these below both.

use serde::Serialize;

/// The label every probe result carries.
pub const SEEN_FROM: &str =
    "as seen from this machine (DNS, proxy and firewall can differ on a node)";

/// What one pull source did when probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Served,
    NotFound,
    Unauthorized,
    TlsError,
    Unreachable,
    /// Connected, but no answer within `--probe-timeout`: CRI-O would keep
    /// waiting on this source, so what it pulls cannot be told.
    TimedOut,
    /// By digest, a manifest with another digest: the pull fails here.
    DigestMismatch,
    Blocked,
    NotTried,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Served => "served",
            Outcome::NotFound => "notFound",
            Outcome::Unauthorized => "unauthorized",
            Outcome::TlsError => "tlsError",
            Outcome::Unreachable => "unreachable",
            Outcome::TimedOut => "timedOut",
            Outcome::DigestMismatch => "digestMismatch",
            Outcome::Blocked => "blocked",
            Outcome::NotTried => "notTried",
        }
    }
}

/// The probe of one source (`sources[].probe`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceProbe {
    pub outcome: Outcome,
    /// The HTTP status of the answer that decided, or null.
    pub status: Option<u16>,
    pub detail: String,
    /// No credentials were found for the endpoint (not in the JSON contract).
    #[serde(skip)]
    pub anonymous: bool,
    /// containers/image's own error for this source, without the probe's
    /// notes (credentials used, the cause, the fix), where the probe words
    /// it exactly: the part of CRI-O's error this source contributes (not
    /// in the JSON contract; see [`crate::verdict::crio_pull_error`]).
    #[serde(skip)]
    pub words: Option<String>,
    /// The digest of the manifest the source served (`sha256:<hex>` of its
    /// bytes, as containers/image computes it): for a tag, the digest the
    /// pull resolves to (not in `explain`'s JSON contract).
    #[serde(skip)]
    pub digest: Option<String>,
    /// The endpoint answered the HTTPS request in plain HTTP (Go's `http:
    /// server gave HTTP response to HTTPS client`, a `tlsError`): a registry
    /// CRI-O reaches only when it is marked insecure (not in the JSON
    /// contract; see [`crate::verdict::fix`]).
    #[serde(skip)]
    pub plain_http: bool,
}

impl SourceProbe {
    /// A source the probe did not contact.
    pub fn not_contacted(outcome: Outcome, detail: &str) -> Self {
        SourceProbe {
            outcome,
            status: None,
            detail: detail.to_string(),
            anonymous: false,
            words: None,
            digest: None,
            plain_http: false,
        }
    }
}

/// What the check of the signature found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verification {
    /// A signature verifies with the policy's key, for this digest and identity.
    Verified,
    /// Signatures are there, and none is accepted.
    Rejected,
    /// The attachment is there; the policy's trust is not an inline key,
    /// so only its presence is checked.
    PresenceOnly,
    /// No attachment on the serving repository.
    Missing,
    /// The attachment could not be read: no verdict.
    Undetermined,
}

/// The sigstore attachment looked up on the serving endpoint.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureProbe {
    /// `<serving repository>:sha256-<hex>.sig`.
    pub reference: String,
    pub found: bool,
    /// The check of a found attachment against the policy's requirements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    /// What the check found, as containers/image would say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// The signature of one image, as the report gives it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSignature {
    /// `<serving repository>:sha256-<hex>.sig`.
    pub reference: String,
    pub found: bool,
    pub verification: Verification,
    /// The objects whose policy requires the signature.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required_by: Vec<String>,
    pub detail: String,
}
