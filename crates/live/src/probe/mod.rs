//! `--probe`: which pull source really serves an image, walked as CRI-O's
//! containers/image docker transport walks them (`newImageSource`): the
//! sources in order, a blocked endpoint refused, any failure up to the
//! manifest falling through to the next source, the first that returns
//! the manifest serving the pull. When the policy requires sigstore
//! signatures and `use-sigstore-attachments` applies to the serving
//! endpoint, the `sha256-<hex>.sig` attachment is looked up on that
//! endpoint.
//!
//! Two answers stop the walk without a verdict of the pull source kind:
//! a by-digest source that serves another manifest fails the pull there
//! (containers/image checks the digest after choosing the source, and does
//! not go back), and a source that does not answer within `--probe-timeout`
//! leaves the pull undetermined (CRI-O would keep waiting on it: see
//! [`deadline`]).
//!
//! Every result is what this machine sees: DNS, proxies and firewalls can
//! differ on a node.

pub mod auth;
pub mod challenge;
pub mod client;
pub mod deadline;
pub mod redirect;
pub mod registries_d;
pub mod signature;
pub mod tls;

use crate::digest::sha256_hex;

use crate::explain::{Candidate, Explanation};
use crate::reference::Reference;

pub use crate::probe_result::{Outcome, SignatureProbe, SourceProbe, Verification, SEEN_FROM};
pub use crate::verdict::{candidate_verdict, verdict, Verdict, NO_ATTACHMENTS};
pub use client::Prober;
pub use registries_d::RegistriesD;

/// What the probe needs besides the explanation.
pub struct ProbeContext {
    pub prober: Prober,
    pub registries_d: RegistriesD,
}

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
/// (CRI-O stops at the first candidate that pulls), nor after one whose
/// source does not answer (CRI-O would still be waiting on it).
pub async fn probe_explanation(ctx: &ProbeContext, item: &mut Explanation) {
    let mut stop: Option<&str> = None;
    for c in &mut item.candidates {
        if let Some(why) = stop {
            for s in &mut c.sources {
                s.probe = Some(SourceProbe::not_contacted(Outcome::NotTried, why));
            }
            c.served_by = Some(None);
            continue;
        }
        probe_candidate(ctx, c).await;
        if matches!(c.served_by, Some(Some(_))) {
            stop = Some("an earlier candidate serves the image");
        } else if c.undetermined.is_some() {
            stop = Some("not contacted: CRI-O would still be waiting on an earlier candidate");
        }
    }
    // A found signature is checked as containers/image checks it: with the
    // policy's inline keys and signed identity.
    if let Some(sig) = signature::check(ctx, item).await {
        if let Some(c) = item
            .candidates
            .iter_mut()
            .find(|c| matches!(c.served_by, Some(Some(_))))
        {
            if let Some(p) = c.signature_probe.as_mut().filter(|p| p.found) {
                if sig.verification == Verification::Undetermined {
                    c.undetermined = Some(sig.detail.clone());
                }
                p.verification = Some(sig.verification);
                p.detail = Some(sig.detail);
            }
        }
    }
    // A pull the probe saw fail (a by-digest source serving another
    // manifest) is the image's error as well as its candidate's.
    if item.error.is_none() {
        item.error = crate::explain::pull_failure(&item.candidates);
    }
}

/// What one probed source decides for its candidate.
enum Decided {
    /// Nothing: the next source is tried.
    Next,
    /// It serves the image; the signature looked up there, and why the
    /// outcome is still undetermined (that lookup got no answer).
    Served {
        signature_probe: Option<SignatureProbe>,
        undetermined: Option<String>,
    },
    /// The pull fails here (another digest): the candidate's error.
    Failed(String),
    /// No answer in time: the candidate's `undetermined`.
    Undetermined(String),
}

async fn probe_candidate(ctx: &ProbeContext, c: &mut Candidate) {
    let sigstore = requires_sigstore(c);
    let digest = c
        .by_digest
        .then(|| Reference::parse(&c.reference).ok())
        .flatten()
        .and_then(|r| r.digest().map(str::to_string));
    let mut stop: Option<&str> = None;
    let mut served_by: Option<String> = None;
    for s in &mut c.sources {
        if let Some(why) = stop {
            s.probe = Some(SourceProbe::not_contacted(Outcome::NotTried, why));
            continue;
        }
        if s.blocked {
            // containers/image's words, then what it means.
            let words = s.blocked_by.as_deref().map(crate::explain::blocked_words);
            let said = words
                .as_deref()
                .map(|w| format!("{w}: "))
                .unwrap_or_default();
            let mut probe = SourceProbe::not_contacted(
                Outcome::Blocked,
                &format!(
                    "{said}not contacted: CRI-O refuses a blocked endpoint and tries the next source"
                ),
            );
            probe.words = words;
            s.probe = Some(probe);
            continue;
        }
        let physical = match Reference::parse(&s.reference) {
            Ok(r) => r,
            Err(e) => {
                let detail = format!("invalid pull spec: {e}");
                s.probe = Some(SourceProbe::not_contacted(Outcome::Unreachable, &detail));
                continue;
            }
        };
        let (probe, decided) = probe_source(
            ctx,
            &s.reference,
            &physical,
            s.insecure,
            digest.as_deref(),
            sigstore,
        )
        .await;
        s.probe = Some(probe);
        match decided {
            Decided::Next => {}
            Decided::Served {
                signature_probe,
                undetermined,
            } => {
                served_by = Some(s.reference.clone());
                c.signature_probe = signature_probe;
                c.undetermined = undetermined;
                stop = Some("an earlier source serves the image");
            }
            Decided::Failed(error) => {
                c.error = Some(error);
                stop = Some("not contacted: the pull already failed at an earlier source");
            }
            Decided::Undetermined(why) => {
                c.undetermined = Some(why);
                stop = Some("not contacted: CRI-O would still be waiting on an earlier source");
            }
        }
    }
    if served_by.is_none() && c.error.is_none() && c.undetermined.is_none() {
        c.crio_error = crate::verdict::crio_pull_error(c);
    }
    c.served_by = Some(served_by);
}

/// Probes one source (`reference`, parsed as `physical`): its probe, and
/// what it decides for the candidate.
async fn probe_source(
    ctx: &ProbeContext,
    reference: &str,
    physical: &Reference,
    insecure: bool,
    digest: Option<&str>,
    sigstore: bool,
) -> (SourceProbe, Decided) {
    let attempt = ctx.prober.attempt(physical, insecure).await;
    let probe = |outcome: Outcome, detail: String| SourceProbe {
        outcome,
        status: attempt.status,
        detail,
        anonymous: attempt.anonymous,
        words: attempt.words.clone(),
        digest: None,
        plain_http: attempt.plain_http,
    };
    let seconds = ctx.prober.answer_timeout().as_secs();
    match attempt.outcome {
        Outcome::Served => {}
        Outcome::TimedOut => {
            let why =
                format!("{reference} did not answer within {seconds}s; CRI-O would keep waiting");
            let detail = format!("{}, {SEEN_FROM}", attempt.detail);
            return (probe(Outcome::TimedOut, detail), Decided::Undetermined(why));
        }
        other => {
            let detail = format!("{}, {SEEN_FROM}", attempt.detail);
            return (probe(other, detail), Decided::Next);
        }
    }
    let body = attempt.manifest.as_deref().unwrap_or_default();
    let got = format!("sha256:{}", sha256_hex(body));
    if let Some(want) = digest.filter(|w| w.starts_with("sha256:") && *w != got) {
        let error = format!(
            "{reference} answers with manifest {got}, which does not match the digest {want}: \
             the pull fails (containers/image does not try the next source)"
        );
        let detail = format!(
            "the manifest served ({got}) does not match the digest {want}: the pull fails here \
             (containers/image does not try the next source), {SEEN_FROM}"
        );
        return (
            probe(Outcome::DigestMismatch, detail),
            Decided::Failed(error),
        );
    }
    let mut detail = format!("{}, {SEEN_FROM}", attempt.detail);
    let attachments = ctx.registries_d.use_sigstore_attachments(physical);
    if sigstore && !attachments {
        detail = format!(
            "{detail}; the policy requires sigstore signatures but {NO_ATTACHMENTS}: \
             containers/image looks for none and the pull fails"
        );
    }
    let (signature_probe, undetermined) = if sigstore && attachments {
        let sig_digest = digest.map_or_else(|| got.clone(), str::to_string);
        signature_lookup(ctx, physical, insecure, &sig_digest, seconds).await
    } else {
        (None, None)
    };
    let decided = Decided::Served {
        signature_probe,
        undetermined,
    };
    let served = SourceProbe {
        digest: Some(got),
        ..probe(Outcome::Served, detail)
    };
    (served, decided)
}

/// Looks up the sigstore attachment of `digest` on the serving endpoint:
/// whether it is there, or (no answer in time) why that is undetermined.
async fn signature_lookup(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    digest: &str,
    seconds: u64,
) -> (Option<SignatureProbe>, Option<String>) {
    let tag = digest.replacen(':', "-", 1) + ".sig";
    let reference = format!("{}:{tag}", physical.name());
    let sig = ctx.prober.fetch_manifest(physical, insecure, &tag).await;
    let found = match sig.outcome {
        Outcome::Served => true,
        // Only "not found" means the image has no signatures.
        Outcome::NotFound => false,
        Outcome::TimedOut => {
            let why = format!(
                "the sigstore attachment {reference} did not answer within {seconds}s; CRI-O would keep waiting"
            );
            return (None, Some(why));
        }
        // containers/image fails the pull on any other answer; from here,
        // whether the node gets another (its own credentials, trust, route)
        // cannot be told.
        other => {
            let why = format!(
                "the sigstore attachment {reference} could not be looked up ({}: {}); whether it exists is undetermined",
                other.as_str(),
                sig.detail
            );
            return (None, Some(why));
        }
    };
    let probe = SignatureProbe {
        reference,
        found,
        verification: None,
        detail: None,
    };
    (Some(probe), None)
}

/// Asks each mirror of a candidate's tag-mirror fix for the tag, as a
/// pull through the ImageTagMirrorSet would (the same request as for a
/// pull source): whether the mirror holds the tag before tag pulls are
/// sent to it. Only the candidates CRI-O gets to are asked about: those up
/// to the first that is served or undetermined.
pub async fn probe_tag_fixes(ctx: &ProbeContext, item: &mut Explanation) {
    for c in &mut item.candidates {
        let last = matches!(c.served_by, Some(Some(_))) || c.undetermined.is_some();
        if let Some(fix) = c.fix.as_mut() {
            for m in &mut fix.mirrors {
                let probe = match Reference::parse(&m.reference) {
                    Ok(physical) => {
                        let a = ctx.prober.attempt(&physical, m.insecure).await;
                        SourceProbe {
                            outcome: a.outcome,
                            status: a.status,
                            detail: format!("{}, {SEEN_FROM}", a.detail),
                            anonymous: a.anonymous,
                            words: a.words,
                            digest: None,
                            plain_http: a.plain_http,
                        }
                    }
                    Err(e) => SourceProbe::not_contacted(
                        Outcome::Unreachable,
                        &format!("invalid pull spec: {e}"),
                    ),
                };
                m.record_probe(probe);
            }
        }
        if last {
            break;
        }
    }
}

/// Probes explanations with at most `concurrency` in flight, on a runtime
/// of its own; returns them in the same order (with the mirrors of each
/// tag-mirror fix asked for the tag: [`probe_tag_fixes`]). `ctx` is only
/// borrowed: a caller that probes more with it afterwards (`audit
/// --updates`) reuses its credentials, trust and caches (endpoints pinged,
/// tokens).
pub fn probe_all(
    ctx: &ProbeContext,
    items: Vec<Explanation>,
    concurrency: usize,
) -> std::io::Result<Vec<Explanation>> {
    use futures_util::StreamExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let probed = futures_util::stream::iter(items.into_iter().map(|mut item| async move {
        probe_explanation(ctx, &mut item).await;
        probe_tag_fixes(ctx, &mut item).await;
        item
    }))
    .buffered(concurrency.max(1))
    .collect::<Vec<_>>();
    Ok(runtime.block_on(probed))
}
