//! The sigstore signature of a served image, read where CRI-O reads it:
//! the attachment manifest `sha256-<hex>.sig` on the repository that
//! served the pull (the probe found it), each simple-signing layer fetched
//! from there, and verified with the keys of the policy's `sigstoreSigned`
//! requirement ([`super::sigstore`]). A requirement whose trust is not an
//! inline key (a key file on the node, Fulcio, PKI) is reported as
//! presence only. The probe checks it once the serving source is found
//! (`explain --probe`, `audit --probe`, `upgrade-check`), and keeps the
//! verdict on the candidate's [`SignatureProbe`](crate::probe::SignatureProbe).

use super::ProbeContext;
use crate::explain::{Candidate, Explanation};
use crate::policy::sigstore::{self, Expected, PublicKey, MAX_SIGNATURE_BYTES, SIGNATURE_MIME};
use crate::policy::{Requirement, SigstoreSigned};
pub use crate::probe_result::{ImageSignature, Verification};
use crate::reference::Reference;

/// The candidate that was served.
fn served(item: &Explanation) -> Option<&Candidate> {
    item.candidates
        .iter()
        .find(|c| matches!(c.served_by, Some(Some(_))))
}

/// The `sigstoreSigned` requirements of a candidate.
fn requirements(c: &Candidate) -> Vec<&SigstoreSigned> {
    c.signature
        .iter()
        .flat_map(|s| &s.requirements)
        .filter_map(|r| match r {
            Requirement::SigstoreSigned(s) => Some(s.as_ref()),
            _ => None,
        })
        .collect()
}

/// Why a requirement's keys are not used here.
enum NoKeys {
    /// Its trust is not an inline key: only presence is checked.
    PresenceOnly(String),
    /// An inline key that does not parse: the requirement rejects.
    Invalid(String),
}

/// The keys of a requirement, or why they are not used here.
fn keys_of(req: &SigstoreSigned) -> Result<Vec<PublicKey>, NoKeys> {
    let datas: Vec<&Vec<u8>> = match (&req.key_data, &req.key_datas) {
        (Some(one), _) => vec![one],
        (None, Some(many)) => many.iter().collect(),
        (None, None) => {
            let why = if req.fulcio.is_some() {
                "its trust is a Fulcio CA with Rekor"
            } else if req.pki.is_some() {
                "its trust is a PKI"
            } else {
                "its key is a file on the node (keyPath)"
            };
            return Err(NoKeys::PresenceOnly(format!(
                "presence only: the policy is not verified here, {why}"
            )));
        }
    };
    datas
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            sigstore::parse_public_key(d)
                .map_err(|e| NoKeys::Invalid(format!("parsing public key {}: {e}", i + 1)))
        })
        .collect()
}

/// Checks the signature the probe found for `item`; `None` when the
/// policy requires none or the probe did not look one up.
pub async fn check(ctx: &ProbeContext, item: &Explanation) -> Option<ImageSignature> {
    let c = served(item)?;
    let probe = c.signature_probe.as_ref()?;
    let required_by = c
        .signature
        .iter()
        .flat_map(|s| &s.origins)
        .map(|o| o.to_string())
        .collect();
    let mut out = ImageSignature {
        reference: probe.reference.clone(),
        found: probe.found,
        verification: Verification::Missing,
        required_by,
        detail: format!(
            "no {} on the repository that serves the image",
            probe.reference
        ),
    };
    if !probe.found {
        return Some(out);
    }
    if let (Some(verification), Some(detail)) = (probe.verification, &probe.detail) {
        out.verification = verification;
        out.detail = detail.clone();
        return Some(out);
    }
    let (verification, detail) = verify(ctx, item, c, &probe.reference).await;
    out.verification = verification;
    out.detail = detail;
    Some(out)
}

/// Verifies every `sigstoreSigned` requirement (they are ANDed): each one
/// with inline keys is verified, whatever the others are; the result is
/// presence only when every keyed one verifies and some other cannot be
/// checked here.
async fn verify(
    ctx: &ProbeContext,
    item: &Explanation,
    c: &Candidate,
    attachment: &str,
) -> (Verification, String) {
    let reqs = requirements(c);
    let mut keyed = Vec::new();
    let mut presence_only = Vec::new();
    for r in &reqs {
        match keys_of(r) {
            Ok(keys) => keyed.push((keys, &r.signed_identity)),
            Err(NoKeys::PresenceOnly(why)) => presence_only.push(why),
            Err(NoKeys::Invalid(why)) => return (Verification::Rejected, why),
        }
    }
    let (verification, detail) = verify_keyed(ctx, item, c, attachment, &keyed).await;
    match presence_only.first() {
        Some(why) if verification == Verification::Verified && keyed.is_empty() => (
            Verification::PresenceOnly,
            format!("{attachment} is there; {why}"),
        ),
        Some(why) if verification == Verification::Verified => (
            Verification::PresenceOnly,
            format!("{detail}; another requirement: {why}"),
        ),
        _ => (verification, detail),
    }
}

/// Verifies the requirements with inline keys (`Verified` when there is
/// none).
async fn verify_keyed(
    ctx: &ProbeContext,
    item: &Explanation,
    c: &Candidate,
    attachment: &str,
    keyed: &[(Vec<PublicKey>, &crate::policy::SignedIdentity)],
) -> (Verification, String) {
    if keyed.is_empty() {
        return (Verification::Verified, String::new());
    }
    let layers = match read_layers(ctx, c, attachment).await {
        Ok(l) => l,
        Err(e) => return e,
    };
    let Ok(image) = Reference::parse_normalized_named(&item.image) else {
        return (
            Verification::Undetermined,
            format!("{} is not a pull spec", item.image),
        );
    };
    // The digest the attachment is named after: the reference's, or the
    // one of the manifest served for a tag.
    let tag = attachment
        .rsplit_once(':')
        .map(|(_, t)| t)
        .unwrap_or_default();
    let digest = tag.trim_end_matches(".sig").replacen('-', ":", 1);
    for (keys, identity) in keyed {
        let expected = Expected {
            image: &image,
            digest: &digest,
            identity,
        };
        let mut reasons = Vec::new();
        let accepted = layers.iter().any(|(layer, payload)| {
            match sigstore::accept(keys, layer, payload, &expected) {
                Ok(()) => true,
                Err(e) => {
                    reasons.push(e);
                    false
                }
            }
        });
        if !accepted {
            let why = if reasons.is_empty() {
                "A signature was required, but no signature exists".to_string()
            } else {
                reasons.join("; ")
            };
            return (Verification::Rejected, format!("{attachment}: {why}"));
        }
    }
    let kinds: Vec<&str> = keyed
        .iter()
        .flat_map(|(k, _)| k.iter().map(|k| k.kind))
        .collect();
    (
        Verification::Verified,
        format!(
            "{attachment} verifies with the policy's key ({})",
            kinds.join(", ")
        ),
    )
}

type Layers = Vec<(sigstore::AttachmentLayer, Vec<u8>)>;

/// The simple-signing layers of the attachment, with their contents.
async fn read_layers(
    ctx: &ProbeContext,
    c: &Candidate,
    attachment: &str,
) -> Result<Layers, (Verification, String)> {
    let undetermined = |why: String| (Verification::Undetermined, why);
    let by = c.served_by.clone().flatten().unwrap_or_default();
    let insecure = c
        .sources
        .iter()
        .find(|s| s.reference == by)
        .is_some_and(|s| s.insecure);
    let physical = Reference::parse(&by).map_err(|e| undetermined(format!("{by}: {e}")))?;
    let tag = attachment
        .rsplit_once(':')
        .map(|(_, t)| t)
        .unwrap_or_default();
    let answer = ctx.prober.fetch_manifest(&physical, insecure, tag).await;
    let body = answer
        .manifest
        .ok_or_else(|| undetermined(format!("{attachment}: {}", answer.detail)))?;
    let layers = sigstore::attachment_layers(&body)
        .map_err(|e| (Verification::Rejected, format!("{attachment}: {e}")))?;
    let mut out = Vec::new();
    for layer in layers
        .into_iter()
        .filter(|l| l.media_type == SIGNATURE_MIME)
    {
        let payload = read_blob(ctx, &physical, insecure, &layer.digest)
            .await
            .map_err(|(verification, e)| (verification, format!("{attachment}: {e}")))?;
        out.push((layer, payload));
    }
    Ok(out)
}

/// A small blob, its digest checked (`getOCIDescriptorContents`). What
/// this machine could not read leaves the verification undetermined; a
/// blob over containers/image's 4 MiB (`iolimits.MaxSignatureBodySize`)
/// or with other contents than its digest fails the signature check, and
/// the pull with it, wherever it is read.
async fn read_blob(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    digest: &str,
) -> Result<Vec<u8>, (Verification, String)> {
    let undetermined = |why: String| (Verification::Undetermined, why);
    let mut blob = ctx
        .prober
        .open_blob(physical, insecure, digest)
        .await
        .map_err(|a| undetermined(a.detail))?;
    let mut body = Vec::new();
    while let Some(chunk) = blob.chunk().await.map_err(undetermined)? {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_SIGNATURE_BYTES {
            return Err((
                Verification::Rejected,
                format!(
                    "blob {digest}: exceeded maximum allowed size of {MAX_SIGNATURE_BYTES} bytes"
                ),
            ));
        }
    }
    let got = format!("sha256:{}", crate::digest::sha256_hex(&body));
    if digest.starts_with("sha256:") && got != digest {
        return Err((
            Verification::Rejected,
            format!("blob {digest} was served with content {got}"),
        ));
    }
    Ok(body)
}
