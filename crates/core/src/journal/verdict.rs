//! Judges one attempt of a pull against the expected source order.
//!
//! A blocked source is listed by containers/image and refused without being
//! contacted, with its own `Trying to access` line: that line is expected,
//! not a divergence. What diverges is a source the order does not have, a
//! source of the order not tried before a later one, a blocked source that
//! served, and the source serving although a mirror comes before it.

use super::record::{Attempt, Divergence, DivergenceKind, ExpectedSource, Outcome, Verdict};

/// Sets the attempt's verdict and divergence.
pub fn judge(a: &mut Attempt, sources: &[ExpectedSource]) {
    a.divergence = divergence(a, sources);
    a.verdict = match (&a.divergence, a.outcome) {
        (Some(_), _) => Verdict::Diverges,
        (None, Outcome::Unfinished) => Verdict::Undetermined,
        (None, _) => Verdict::AsExpected,
    };
}

fn divergence(a: &Attempt, sources: &[ExpectedSource]) -> Option<Divergence> {
    let position = |r: &str| sources.iter().position(|s| s.reference == r);
    if let Some(t) = a.tried.iter().find(|t| position(t).is_none()) {
        return Some(Divergence {
            kind: DivergenceKind::UnexpectedSource,
            message: format!(
                "tried {t}, which the expected order does not have: the node pulled with another configuration (compare the node's files with `diff --on-disk`)"
            ),
        });
    }
    for (s, t) in sources.iter().zip(&a.tried) {
        if s.reference != *t {
            return Some(Divergence {
                kind: DivergenceKind::MirrorSkipped,
                message: format!(
                    "{} was not tried before {t}: the node pulled with another configuration (compare the node's files with `diff --on-disk`)",
                    s.reference
                ),
            });
        }
    }
    let served = a.served_by.as_deref()?;
    let at = position(served)?;
    if sources[at].blocked {
        return Some(Divergence {
            kind: DivergenceKind::ServedByBlockedSource,
            message: format!(
                "served by {served}, which is blocked: CRI-O should have refused it (the node's registries.conf does not block it; compare with `diff --on-disk`)"
            ),
        });
    }
    let mirrors: Vec<&ExpectedSource> = sources[..at]
        .iter()
        .filter(|s| s.mirror && !s.blocked)
        .collect();
    if sources[at].mirror || mirrors.is_empty() {
        return None;
    }
    let reasons: Vec<String> = mirrors
        .iter()
        .map(
            |m| match a.errors.iter().find(|e| e.reference == m.reference) {
                Some(e) => format!("{}: {}", m.reference, e.error),
                None => format!(
                    "{}: the log does not say why (CRI-O logs source errors at debug level only)",
                    m.reference
                ),
            },
        )
        .collect();
    Some(Divergence {
        kind: DivergenceKind::ServedBySource,
        message: format!(
            "served by the source {served} although a mirror comes first; the mirrors failed: {}",
            reasons.join("; ")
        ),
    })
}
