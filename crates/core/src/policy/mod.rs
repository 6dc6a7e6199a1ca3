//! policy.json (containers-policy.json(5)): the one model of the file, used
//! both for a node's file (`explain --policy-json`) and for what the MCO
//! renders.
//!
//! `model` is containers/image's `signature.Policy` with the checks of its
//! constructors; `decode` its strict `UnmarshalJSON` with upstream's
//! messages (and where in the file each error is); `encode` Go's
//! `json.MarshalIndent` byte for byte; `json` the order-keeping,
//! duplicate-refusing JSON reader under the decoder. This module adds
//! reading a whole file and selecting the requirements that apply to a
//! reference (`requirementsForImageRef` with the docker transport's scope
//! identity and namespaces).
//!
//! This module says which requirements apply and whether they reject the
//! image or verify signatures; `sigstore` checks one sigstore signature
//! with a requirement's inline keys and signed identity. Reading the file from disk is left to the command layer;
//! the MCO's edits of the document are left to `render::policy`.
//!
//! Upstream: containers/image `signature/policy_types.go`,
//! `policy_config.go`, `policy_config_sigstore.go`, `policy_eval.go`.

mod decode;
mod encode;
mod json;
mod model;
pub mod sigstore;

use crate::origin::Origin;
use crate::reference::Reference;

pub use self::decode::{decode_go_base64, DecodeError};
pub use self::model::{
    Fulcio, Pki, Policy, Requirement, Scopes, SignedBy, SignedIdentity, SigstoreSigned,
};

/// Why a policy.json file cannot be used; names the file and the place in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("policy \"{file}\": {}{}", at_path(&.error.path), .error.message)]
pub struct PolicyError {
    pub file: String,
    /// Upstream's message and where in the file.
    pub error: DecodeError,
}

fn at_path(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

impl Policy {
    /// Decodes policy.json as the MCO reads its template
    /// (`json.NewDecoder(…).Decode`, then `Policy.UnmarshalJSON`): unknown
    /// and duplicate keys, empty requirement lists and requirements their
    /// constructors refuse are errors; only the first JSON value is read.
    pub fn from_json(text: &str) -> Result<Self, DecodeError> {
        let value = json::parse_first(text).map_err(|message| DecodeError {
            path: String::new(),
            message,
        })?;
        decode::decode_policy(&value)
    }
}

/// A policy.json file as CRI-O reads it (`NewPolicyFromFile`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFile {
    /// The file the policy came from.
    pub file: String,
    pub policy: Policy,
}

/// Parses a policy.json file's bytes as containers/image
/// `NewPolicyFromBytes` does: Go's `encoding/json` takes bytes, not UTF-8
/// text, and replaces each byte of an invalid UTF-8 sequence in a string
/// with U+FFFD (outside strings such a byte is a syntax error, as it still
/// is once replaced); then as [`parse_policy`].
pub fn parse_policy_bytes(name: &str, bytes: &[u8]) -> Result<PolicyFile, PolicyError> {
    parse_policy(name, &go_lossy_utf8(bytes))
}

/// The text Go's `encoding/json` reads from `bytes`: each byte that does
/// not begin a valid UTF-8 sequence is one U+FFFD (`utf8.DecodeRune`
/// gives size 1 on an invalid byte, so a truncated sequence is one U+FFFD
/// per byte).
pub fn go_lossy_utf8(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut text = String::with_capacity(bytes.len() + 16);
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for _ in chunk.invalid() {
            text.push(char::REPLACEMENT_CHARACTER);
        }
    }
    std::borrow::Cow::Owned(text)
}

/// Parses a policy.json file as containers/image `NewPolicyFromBytes`
/// does: strictly, and data after the document is an error. Syntax errors
/// carry line and column.
pub fn parse_policy(name: &str, text: &str) -> Result<PolicyFile, PolicyError> {
    let err = |error: DecodeError| PolicyError {
        file: name.to_string(),
        error,
    };
    let value = json::parse_document(text).map_err(|message| {
        err(DecodeError {
            path: String::new(),
            message,
        })
    })?;
    let policy = decode::decode_policy(&value).map_err(err)?;
    Ok(PolicyFile {
        file: name.to_string(),
        policy,
    })
}

impl Requirement {
    /// Whether it always denies the image: `reject`, `signedBaseLayer`
    /// (not implemented upstream, so it denies), and `signedBy` with a key
    /// type other than `GPGKeys` (parsed, but rejected at evaluation).
    pub fn rejects(&self) -> bool {
        match self {
            Self::Reject | Self::SignedBaseLayer { .. } => true,
            Self::SignedBy(s) => s.key_type != "GPGKeys",
            _ => false,
        }
    }

    /// Whether it requires a verified signature (`signedBy`, `sigstoreSigned`).
    pub fn verifies_signatures(&self) -> bool {
        matches!(self, Self::SignedBy(_) | Self::SigstoreSigned(_))
    }

    /// A one-line human summary.
    pub fn summary(&self) -> String {
        match self {
            Self::SignedBy(s) => format!(
                "signedBy ({} {}, identity {})",
                s.key_type,
                if s.key_path.is_empty() {
                    "inline key data"
                } else {
                    &s.key_path
                },
                s.signed_identity.type_name()
            ),
            Self::SigstoreSigned(s) => {
                let trust = if !s.key_path.is_empty() {
                    format!("key {}", s.key_path)
                } else if s.fulcio.is_some() {
                    "Fulcio certificate".to_string()
                } else if s.pki.is_some() {
                    "PKI certificate".to_string()
                } else {
                    "inline key data".to_string()
                };
                format!(
                    "sigstoreSigned ({trust}, identity {})",
                    s.signed_identity.type_name()
                )
            }
            other => other.type_name().to_string(),
        }
    }
}

/// The requirements selected for a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeMatch<'a> {
    /// None: the global `default`; `Some("")`: the transport default; else the winning scope.
    pub scope: Option<String>,
    pub requirements: &'a [Requirement],
    pub origin: Origin,
}

/// The docker transport's `PolicyConfigurationIdentity`: `name:tag` or `name@digest`.
pub fn policy_identity(r: &Reference) -> String {
    r.to_string()
}

/// The docker transport's `PolicyConfigurationNamespaces`: the repository,
/// each parent namespace, the host with its port, then `*.` wildcards of
/// the port-less host, most specific first.
pub fn policy_namespaces(r: &Reference) -> Vec<String> {
    let mut out = Vec::new();
    let mut name = r.name();
    loop {
        out.push(name.clone());
        match name.rfind('/') {
            Some(i) => name.truncate(i),
            None => break,
        }
    }
    let mut host = match name.find(':') {
        Some(i) => name[..i].to_string(),
        None => name,
    };
    while let Some(i) = host.find('.') {
        host = host[i + 1..].to_string();
        out.push(format!("*.{host}"));
    }
    out
}

/// Whether the policy scope `scope` of the docker transport applies to
/// `r`: it is `r`'s identity or one of its namespaces (not the `""` default).
pub fn scope_covers(scope: &str, r: &Reference) -> bool {
    scope == policy_identity(r) || policy_namespaces(r).iter().any(|n| n == scope)
}

impl PolicyFile {
    /// `requirementsForImageRef`: the most specific matching scope of the
    /// transport, its `""` default, or the global default.
    pub fn requirements_for(&self, transport: &str, r: &Reference) -> ScopeMatch<'_> {
        if let Some(scopes) = self.policy.transports.get(transport) {
            let identity = policy_identity(r);
            let candidates = std::iter::once(identity).chain(policy_namespaces(r));
            for scope in candidates.chain(std::iter::once(String::new())) {
                if let Some(reqs) = scopes.get(&scope) {
                    return ScopeMatch {
                        origin: Origin::from(format!(
                            "{}: transports.{transport}.\"{scope}\"",
                            self.file
                        )),
                        scope: Some(scope),
                        requirements: reqs,
                    };
                }
            }
        }
        ScopeMatch {
            scope: None,
            requirements: &self.policy.default,
            origin: Origin::from(format!("{}: default", self.file)),
        }
    }
}

#[cfg(test)]
mod tests;
