//! `--probe`: which pull source really serves an image, walked as CRI-O's
//! containers/image docker transport walks them (`newImageSource`): the
//! sources in order, a blocked endpoint refused, any failure up to the
//! manifest falling through to the next source, the first that returns
//! the manifest serving the pull. When the policy requires sigstore
//! signatures and `use-sigstore-attachments` applies to the serving
//! endpoint, the `sha256-<hex>.sig` attachment is looked up on that
//! endpoint.
//!
//! Every result is what this machine sees: DNS, proxies and firewalls can
//! differ on a node.

pub mod auth;
pub mod challenge;
pub mod client;
pub mod registries_d;
pub mod tls;

use crate::digest::sha256_hex;
use std::sync::Arc;

use serde::Serialize;

use crate::explain::{Candidate, Explanation};
use crate::reference::Reference;

pub use client::Prober;
pub use registries_d::RegistriesD;

/// What one pull source did when probed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Served,
    NotFound,
    Unauthorized,
    TlsError,
    Unreachable,
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
}

impl SourceProbe {
    /// A source the probe did not contact.
    fn not_contacted(outcome: Outcome, detail: &str) -> Self {
        SourceProbe {
            outcome,
            status: None,
            detail: detail.to_string(),
            anonymous: false,
        }
    }
}

/// The sigstore attachment looked up on the serving endpoint.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignatureProbe {
    /// `<serving repository>:sha256-<hex>.sig`.
    pub reference: String,
    pub found: bool,
}

/// The label every probe result carries.
pub const SEEN_FROM: &str =
    "as seen from this machine (DNS, proxy and firewall can differ on a node)";

/// What the probe needs besides the explanation.
pub struct ProbeContext {
    pub prober: Prober,
    pub registries_d: RegistriesD,
}

/// The verdict of a probed image, for the text output and the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Served by this source; the pull goes on.
    Served(String),
    /// Served by this source, but the manifest does not match the digest asked for.
    DigestMismatch(String),
    /// Served by this source without the sigstore signature the policy requires.
    Unsigned(String),
    /// Served by this source, but the policy requires sigstore signatures and
    /// `use-sigstore-attachments` does not apply to it: none is looked up.
    NoAttachments(String),
    /// No source serves it.
    Missing,
    /// Nothing was probed (the pull fails before any endpoint is tried).
    NotProbed,
}

/// The verdict of a probed explanation: the first candidate served decides.
pub fn verdict(item: &Explanation) -> Verdict {
    let mut probed = false;
    for c in &item.candidates {
        if let Some(v) = candidate_verdict(c) {
            probed = true;
            if v != Verdict::Missing {
                return v;
            }
        }
    }
    if probed {
        Verdict::Missing
    } else {
        Verdict::NotProbed
    }
}

/// The verdict of one probed candidate, `None` when it was not probed.
pub fn candidate_verdict(c: &Candidate) -> Option<Verdict> {
    let served_by = c.served_by.as_ref()?;
    let Some(by) = served_by else {
        return Some(Verdict::Missing);
    };
    let source = c.sources.iter().find(|s| &s.reference == by);
    if source
        .and_then(|s| s.probe.as_ref())
        .is_some_and(|p| p.detail.contains(DIGEST_MISMATCH))
    {
        return Some(Verdict::DigestMismatch(by.clone()));
    }
    if source
        .and_then(|s| s.probe.as_ref())
        .is_some_and(|p| p.detail.contains(NO_ATTACHMENTS))
    {
        return Some(Verdict::NoAttachments(by.clone()));
    }
    if c.signature_probe.as_ref().is_some_and(|s| !s.found) {
        return Some(Verdict::Unsigned(by.clone()));
    }
    Some(Verdict::Served(by.clone()))
}

const DIGEST_MISMATCH: &str = "does not match the digest";
const NO_ATTACHMENTS: &str = "use-sigstore-attachments does not apply to this endpoint";

/// Whether the policy of a candidate requires sigstore signatures.
fn requires_sigstore(c: &Candidate) -> bool {
    c.signature.as_ref().is_some_and(|s| {
        s.requirements
            .iter()
            .any(|r| matches!(r, crate::policy::Requirement::SigstoreSigned(_)))
    })
}

/// Probes every candidate of one explanation, in order, and records the
/// results in it. After a candidate is served, later ones are not tried
/// (CRI-O stops at the first candidate that pulls).
pub async fn probe_explanation(ctx: &ProbeContext, item: &mut Explanation) {
    let mut done = false;
    for c in &mut item.candidates {
        if done {
            for s in &mut c.sources {
                s.probe = Some(SourceProbe {
                    outcome: Outcome::NotTried,
                    status: None,
                    detail: "an earlier candidate serves the image".to_string(),
                    anonymous: false,
                });
            }
            c.served_by = Some(None);
            continue;
        }
        probe_candidate(ctx, c).await;
        done = matches!(c.served_by, Some(Some(_)));
    }
}

async fn probe_candidate(ctx: &ProbeContext, c: &mut Candidate) {
    let sigstore = requires_sigstore(c);
    let digest = c
        .by_digest
        .then(|| Reference::parse(&c.reference).ok())
        .flatten()
        .and_then(|r| r.digest().map(str::to_string));
    let mut served_by: Option<String> = None;
    let mut signature_probe = None;
    for s in &mut c.sources {
        if served_by.is_some() {
            s.probe = Some(SourceProbe::not_contacted(
                Outcome::NotTried,
                "an earlier source serves the image",
            ));
            continue;
        }
        if s.blocked {
            s.probe = Some(SourceProbe::not_contacted(
                Outcome::Blocked,
                "not contacted: CRI-O refuses a blocked endpoint and tries the next source",
            ));
            continue;
        }
        let physical = match Reference::parse(&s.reference) {
            Ok(r) => r,
            Err(e) => {
                s.probe = Some(SourceProbe {
                    outcome: Outcome::Unreachable,
                    status: None,
                    detail: format!("invalid pull spec: {e}"),
                    anonymous: false,
                });
                continue;
            }
        };
        let attempt = ctx.prober.attempt(&physical, s.insecure).await;
        let mut detail = format!("{}, {SEEN_FROM}", attempt.detail);
        if attempt.outcome == Outcome::Served {
            let body = attempt.manifest.as_deref().unwrap_or_default();
            let got = format!("sha256:{}", sha256_hex(body));
            if let Some(want) = &digest {
                if want.starts_with("sha256:") && *want != got {
                    detail = format!(
                        "the manifest served ({got}) {DIGEST_MISMATCH} {want}: the pull fails here \
                         (containers/image does not try the next source), {SEEN_FROM}"
                    );
                }
            }
            if sigstore && !ctx.registries_d.use_sigstore_attachments(&physical) {
                detail = format!(
                    "{detail}; the policy requires sigstore signatures but {NO_ATTACHMENTS}: \
                     containers/image looks for none and the pull fails"
                );
            }
            if sigstore && ctx.registries_d.use_sigstore_attachments(&physical) {
                let sig_digest = digest.clone().unwrap_or(got);
                let tag = sig_digest.replacen(':', "-", 1) + ".sig";
                let sig = ctx.prober.fetch_manifest(&physical, s.insecure, &tag).await;
                signature_probe = Some(SignatureProbe {
                    reference: format!("{}:{tag}", physical.name()),
                    found: sig.outcome == Outcome::Served,
                });
            }
            served_by = Some(s.reference.clone());
        }
        s.probe = Some(SourceProbe {
            outcome: attempt.outcome,
            status: attempt.status,
            detail,
            anonymous: attempt.anonymous,
        });
    }
    c.served_by = Some(served_by);
    c.signature_probe = signature_probe;
}

/// Probes explanations with at most `concurrency` in flight, on a runtime
/// of its own; returns them in the same order.
pub fn probe_all(
    ctx: ProbeContext,
    items: Vec<Explanation>,
    concurrency: usize,
) -> std::io::Result<Vec<Explanation>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ctx = Arc::new(ctx);
    let limit = Arc::new(tokio::sync::Semaphore::new(concurrency.max(1)));
    runtime.block_on(async move {
        let mut set = tokio::task::JoinSet::new();
        let n = items.len();
        for (i, mut item) in items.into_iter().enumerate() {
            let ctx = Arc::clone(&ctx);
            let limit = Arc::clone(&limit);
            set.spawn(async move {
                let _permit = limit.acquire_owned().await;
                probe_explanation(&ctx, &mut item).await;
                (i, item)
            });
        }
        let mut out: Vec<Option<Explanation>> = (0..n).map(|_| None).collect();
        while let Some(done) = set.join_next().await {
            if let Ok((i, item)) = done {
                out[i] = Some(item);
            }
        }
        Ok(out.into_iter().flatten().collect())
    })
}
