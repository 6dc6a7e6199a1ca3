//! Sigstore signatures, checked as containers/image checks them for a
//! `sigstoreSigned` requirement with public keys
//! (`signature/policy_eval_sigstore.go`,
//! `signature/internal/sigstore_payload.go`): the attachment manifest
//! (`sha256-<hex>.sig` on the repository that served the image), each of
//! its layers of the simple-signing media type, the layer's
//! `dev.cosignproject.cosign/signature` annotation verified over the layer
//! (the payload) with one of the policy's keys, then the payload's
//! `critical.image.docker-manifest-digest` against the image's digest and
//! its `critical.identity.docker-reference` against the policy's
//! `signedIdentity`. One accepted layer accepts the image.

use std::collections::BTreeMap;

use base64::Engine;
use ring::signature::{self as sig, UnparsedPublicKey, VerificationAlgorithm};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::policy::SignedIdentity;
use crate::reference::Reference;

/// `signature.SigstoreSignatureMIMEType`.
pub const SIGNATURE_MIME: &str = "application/vnd.dev.cosign.simplesigning.v1+json";
/// `signature.SigstoreSignatureAnnotationKey`.
pub const SIGNATURE_ANNOTATION: &str = "dev.cosignproject.cosign/signature";
/// `sigstoreSignatureType`.
const SIGNATURE_TYPE: &str = "cosign container image signature";
const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// `iolimits.MaxSignatureBodySize`.
pub const MAX_SIGNATURE_BYTES: usize = 4 << 20;

/// One layer of an attachment manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentLayer {
    #[serde(default)]
    pub media_type: String,
    pub digest: String,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AttachmentManifest {
    #[serde(default)]
    media_type: String,
    #[serde(default)]
    layers: Vec<AttachmentLayer>,
}

/// The layers of an attachment manifest (an OCI image manifest).
pub fn attachment_layers(body: &[u8]) -> Result<Vec<AttachmentLayer>, String> {
    let m: AttachmentManifest = serde_json::from_slice(body)
        .map_err(|e| format!("the attachment manifest is not an OCI manifest: {e}"))?;
    if !m.media_type.is_empty() && m.media_type != OCI_MANIFEST {
        return Err(format!(
            "unexpected MIME type for sigstore attachment manifest: {:?}",
            m.media_type
        ));
    }
    Ok(m.layers)
}

/// A public key of a policy, ready to verify.
pub struct PublicKey {
    algorithm: &'static dyn VerificationAlgorithm,
    key: Vec<u8>,
    /// `ECDSA P-256`, `RSA`, …
    pub kind: &'static str,
}

const OID_RSA: &[u8] = &[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
];
const OID_EC: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_P384: &[u8] = &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
const OID_ED25519: &[u8] = &[0x06, 0x03, 0x2b, 0x65, 0x70];

/// Parses a PEM `PUBLIC KEY` (what `keyData` holds), as sigstore's
/// `cryptoutils.UnmarshalPEMToPublicKey` reads it; the verifier is the one
/// `LoadVerifier(key, SHA256)` gives: ECDSA over SHA-256 (ASN.1
/// signatures), RSA PKCS#1 v1.5 with SHA-256, or Ed25519.
pub fn parse_public_key(pem: &[u8]) -> Result<PublicKey, String> {
    let section =
        rustls_pki_types::pem::from_buf(&mut &pem[..]).map_err(|e| format!("PEM: {e}"))?;
    let der = match section {
        Some((rustls_pki_types::pem::SectionKind::PublicKey, der)) => der,
        Some((kind, _)) => return Err(format!("the PEM block is a {kind:?}, not a PUBLIC KEY")),
        None => return Err("no PEM PUBLIC KEY block".to_string()),
    };
    let (algorithm, bits) = crate::x509::public_key_info(&der)?;
    let (algorithm, kind): (&'static dyn VerificationAlgorithm, _) = if algorithm
        .starts_with(OID_RSA)
    {
        (&sig::RSA_PKCS1_2048_8192_SHA256, "RSA")
    } else if algorithm == [OID_EC, OID_P256].concat() {
        (&sig::ECDSA_P256_SHA256_ASN1, "ECDSA P-256")
    } else if algorithm == [OID_EC, OID_P384].concat() {
        (&sig::ECDSA_P384_SHA256_ASN1, "ECDSA P-384")
    } else if algorithm == OID_ED25519 {
        (&sig::ED25519, "Ed25519")
    } else {
        return Err("unsupported public key algorithm (this tool verifies RSA of 2048 to 8192 bits, ECDSA P-256 and P-384, and Ed25519)".to_string());
    };
    Ok(PublicKey {
        algorithm,
        key: bits.to_vec(),
        kind,
    })
}

/// What the signature is checked against.
pub struct Expected<'a> {
    /// The image as the pull names it (the policy's "intended" reference).
    pub image: &'a Reference,
    /// The digest of the manifest pulled.
    pub digest: &'a str,
    pub identity: &'a SignedIdentity,
}

/// `isSignatureAccepted` for one attachment layer and its `payload`.
pub fn accept(
    keys: &[PublicKey],
    layer: &AttachmentLayer,
    payload: &[u8],
    expected: &Expected<'_>,
) -> Result<(), String> {
    let Some(b64) = layer.annotations.get(SIGNATURE_ANNOTATION) else {
        return Err(format!("missing {SIGNATURE_ANNOTATION} annotation"));
    };
    let signature = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|e| format!("base64 decoding: {e}"))?;
    if keys.is_empty() {
        return Err(
            "Need at least one public key to verify the sigstore payload, but got 0".to_string(),
        );
    }
    let verified = keys.iter().any(|k| {
        UnparsedPublicKey::new(k.algorithm, &k.key)
            .verify(payload, &signature)
            .is_ok()
    });
    if !verified {
        let kinds: Vec<&str> = keys.iter().map(|k| k.kind).collect();
        return Err(format!(
            "cryptographic signature verification failed (key {})",
            kinds.join(", ")
        ));
    }
    let (digest, identity) = parse_payload(payload)?;
    if digest != expected.digest {
        return Err(format!("Signature for digest {digest} does not match"));
    }
    if !matches_identity(expected.identity, expected.image, &identity) {
        return Err(format!(
            "Signature for identity {identity:?} is not accepted"
        ));
    }
    Ok(())
}

/// An object with exactly `fields` (containers/image's
/// `ParanoidUnmarshalJSONObjectExactFields`).
fn exact<'a>(v: &'a Value, fields: &[&str], what: &str) -> Result<&'a Map<String, Value>, String> {
    let o = v
        .as_object()
        .ok_or_else(|| format!("{what} is not a JSON object"))?;
    for k in o.keys() {
        if !fields.contains(&k.as_str()) {
            return Err(format!("Unexpected field name {k:?} in {what}"));
        }
    }
    for f in fields {
        if !o.contains_key(*f) {
            return Err(format!("Key {f:?} missing in {what}"));
        }
    }
    Ok(o)
}

fn string<'a>(o: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    o[key]
        .as_str()
        .ok_or_else(|| format!("{key} is not a JSON string"))
}

/// The payload's manifest digest and docker reference
/// (`UntrustedSigstorePayload.strictUnmarshalJSON`).
pub fn parse_payload(payload: &[u8]) -> Result<(String, String), String> {
    let v: Value = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    let top = exact(&v, &["critical", "optional"], "the signature")?;
    if let Some(optional) = top["optional"].as_object() {
        if let Some(t) = optional.get("timestamp") {
            let n = t
                .as_f64()
                .ok_or("Field optional.timestamp is not a number")?;
            if n.fract() != 0.0 {
                return Err("Field optional.timestamp is not an integer".to_string());
            }
        }
    }
    let critical = exact(&top["critical"], &["type", "image", "identity"], "critical")?;
    let t = string(critical, "type")?;
    if t != SIGNATURE_TYPE {
        return Err(format!("Unrecognized signature type {t}"));
    }
    let image = exact(
        &critical["image"],
        &["docker-manifest-digest"],
        "critical.image",
    )?;
    let digest = string(image, "docker-manifest-digest")?;
    let valid = digest
        .split_once(':')
        .is_some_and(|(a, h)| !a.is_empty() && !h.is_empty());
    if !valid {
        return Err(format!("invalid docker-manifest-digest value {digest:?}"));
    }
    let identity = exact(
        &critical["identity"],
        &["docker-reference"],
        "critical.identity",
    )?;
    let reference = string(identity, "docker-reference")?;
    Ok((digest.to_string(), reference.to_string()))
}

/// `matchRepoDigestOrExactReferenceValues`.
fn repo_digest_or_exact(intended: &Reference, signature: &Reference) -> bool {
    if signature.is_name_only() {
        return false;
    }
    if intended.tag().is_some() {
        signature.to_string() == intended.to_string()
    } else if intended.digest().is_some() {
        signature.name() == intended.name()
    } else {
        false
    }
}

/// `matchesDockerReference` of the policy's `signedIdentity`.
pub fn matches_identity(identity: &SignedIdentity, image: &Reference, signed: &str) -> bool {
    let Ok(signature) = Reference::parse_normalized_named(signed) else {
        return false;
    };
    let exact = |intended: &Reference| {
        !intended.is_name_only()
            && !signature.is_name_only()
            && signature.to_string() == intended.to_string()
    };
    match identity {
        SignedIdentity::MatchExact => exact(image),
        SignedIdentity::MatchRepoDigestOrExact => repo_digest_or_exact(image, &signature),
        SignedIdentity::MatchRepository => signature.name() == image.name(),
        SignedIdentity::ExactReference { docker_reference } => {
            Reference::parse_normalized_named(docker_reference).is_ok_and(|r| exact(&r))
        }
        SignedIdentity::ExactRepository { docker_repository } => {
            Reference::parse_normalized_named(docker_repository)
                .is_ok_and(|r| signature.name() == r.name())
        }
        SignedIdentity::RemapIdentity {
            prefix,
            signed_prefix,
        } => {
            let name = image.name();
            let matches = name == *prefix
                || (name.starts_with(prefix.as_str())
                    && name.as_bytes().get(prefix.len()) == Some(&b'/'));
            let intended = if matches {
                let text = image
                    .to_string()
                    .replacen(prefix.as_str(), signed_prefix, 1);
                match Reference::parse_named(&text) {
                    Ok(r) => r,
                    Err(_) => return false,
                }
            } else {
                image.clone()
            };
            repo_digest_or_exact(&intended, &signature)
        }
    }
}

#[cfg(test)]
mod tests;
