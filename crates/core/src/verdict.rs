//! The verdict of a probed image, read from what the probe recorded on its
//! explanation: which candidate and source serve the pull, or why it fails
//! or cannot be told. The text output, the audit and `upgrade-check` judge
//! by it.

use crate::explain::{Candidate, Explanation};
use crate::probe_result::{Outcome, SourceProbe, Verification};
use crate::reference::Reference;

/// The verdict of a probed image, for the text output and the audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Served by this source; the pull goes on.
    Served(String),
    /// This source answers with a manifest that does not match the digest
    /// asked for: the pull fails there.
    DigestMismatch(String),
    /// Served by this source without the sigstore signature the policy requires.
    Unsigned(String),
    /// Served by this source, but the policy requires sigstore signatures and
    /// `use-sigstore-attachments` does not apply to it: none is looked up.
    NoAttachments(String),
    /// Served by this source with sigstore signatures of which the policy
    /// accepts none (key, digest or signed identity): the pull fails.
    BadSignature(String),
    /// A source did not answer in time and CRI-O would keep waiting on it:
    /// what the pull gives cannot be told (the candidate's `undetermined`).
    Undetermined(String),
    /// No source serves it.
    Missing,
    /// Nothing was probed (the pull fails before any endpoint is tried).
    NotProbed,
}

impl Verdict {
    /// A failure CRI-O goes past to the next candidate (short names).
    fn passes_on(&self) -> bool {
        matches!(self, Verdict::Missing | Verdict::DigestMismatch(_))
    }
}

/// The verdict of a probed explanation. CRI-O tries the candidates in
/// order: one whose pull fails passes on to the next; the first served (or
/// whose source does not answer) decides. When every one fails, the first
/// failure that says more than "not found" is the verdict.
pub fn verdict(item: &Explanation) -> Verdict {
    let mut failed: Option<Verdict> = None;
    for v in item.candidates.iter().filter_map(candidate_verdict) {
        if !v.passes_on() {
            return v;
        }
        if failed.as_ref().is_none_or(|f| *f == Verdict::Missing) {
            failed = Some(v);
        }
    }
    failed.unwrap_or(Verdict::NotProbed)
}

/// The verdict of one probed candidate, `None` when it was not probed.
pub fn candidate_verdict(c: &Candidate) -> Option<Verdict> {
    let served_by = c.served_by.as_ref()?;
    if let Some(why) = &c.undetermined {
        return Some(Verdict::Undetermined(why.clone()));
    }
    let Some(by) = served_by else {
        let mismatch = c.sources.iter().find(|s| {
            s.probe
                .as_ref()
                .is_some_and(|p| p.outcome == Outcome::DigestMismatch)
        });
        return Some(match mismatch {
            Some(s) => Verdict::DigestMismatch(s.reference.clone()),
            None => Verdict::Missing,
        });
    };
    let source = c.sources.iter().find(|s| &s.reference == by);
    if source
        .and_then(|s| s.probe.as_ref())
        .is_some_and(|p| p.detail.contains(NO_ATTACHMENTS))
    {
        return Some(Verdict::NoAttachments(by.clone()));
    }
    if c.signature_probe.as_ref().is_some_and(|s| !s.found) {
        return Some(Verdict::Unsigned(by.clone()));
    }
    if c.signature_probe.as_ref().and_then(|s| s.verification) == Some(Verification::Rejected) {
        return Some(Verdict::BadSignature(by.clone()));
    }
    Some(Verdict::Served(by.clone()))
}

/// The detail of a served source whose signatures are not looked up.
pub const NO_ATTACHMENTS: &str = "use-sigstore-attachments does not apply to this endpoint";

/// The error CRI-O returns when every source of candidate `c` failed, as
/// containers/image builds it: `copy.Image` says `initializing source
/// docker://FAMILIAR: `, then `newImageSource` (docker/docker_image_src.go)
/// gives the one source's error alone, or, with more tried, the last one's
/// after the others' (`(Mirrors also failed: [REF: ERR]` joined by a
/// newline`): REF: ERR`). A blocked endpoint is one of the attempts; a
/// source not tried is not. Each source's error is its `words` where the
/// probe has containers/image's own, else its detail (the probe's wording
/// of a transport error). `None` when no source was tried.
pub fn crio_pull_error(c: &Candidate) -> Option<String> {
    let tried: Vec<(&str, &SourceProbe)> = c
        .sources
        .iter()
        .filter_map(|s| s.probe.as_ref().map(|p| (s.reference.as_str(), p)))
        .filter(|(_, p)| p.outcome != Outcome::NotTried)
        .collect();
    let said = |p: &SourceProbe| {
        let seen = format!(", {}", crate::probe_result::SEEN_FROM);
        p.words.clone().unwrap_or_else(|| {
            p.detail
                .strip_suffix(&seen)
                .unwrap_or(&p.detail)
                .to_string()
        })
    };
    let ((last_ref, last), others) = tried.split_last()?;
    let why = if others.is_empty() {
        said(last)
    } else {
        let extras: Vec<String> = others
            .iter()
            .map(|(r, p)| format!("[{r}: {}]", said(p)))
            .collect();
        format!(
            "(Mirrors also failed: {}): {last_ref}: {}",
            extras.join("\n"),
            said(last)
        )
    };
    let name = Reference::parse(&c.reference)
        .map(|r| r.familiar_string())
        .unwrap_or_else(|_| c.reference.clone());
    Some(format!("initializing source docker://{name}: {why}"))
}
