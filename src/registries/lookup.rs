//! Matching a reference to a `[[registry]]` entry and ordering the pull
//! sources, as containers/image `FindRegistry`, `rewriteReference` and
//! `PullSourcesFromReference` do.
//!
//! Whether an endpoint is blocked is not decided here: the docker transport
//! looks it up again by each endpoint's physical name, which the caller
//! does with [`find_registry`].

use serde::Serialize;

use super::{Mirror, PullFromMirror, RegistriesConf, Registry};
use crate::origin::Origin;
use crate::reference::{Reference, ReferenceError};

/// Upstream `refMatchingPrefix`: the length of `s` the prefix matched, if
/// it matches at a `/`, `:` or `@` boundary (or `*.` wildcard rules).
pub fn ref_matching_prefix(s: &str, prefix: &str) -> Option<usize> {
    if prefix.starts_with("*.") {
        return ref_matching_subdomain_prefix(s, prefix);
    }
    if s.len() < prefix.len() || !s.starts_with(prefix) {
        return None;
    }
    if s.len() == prefix.len() {
        return Some(prefix.len());
    }
    matches!(s.as_bytes()[prefix.len()], b':' | b'/' | b'@').then_some(prefix.len())
}

/// Upstream `refMatchingSubdomainPrefix` for a `*.domain` prefix: only the
/// first occurrence of `.domain` counts, and it must be in the host part.
fn ref_matching_subdomain_prefix(s: &str, prefix: &str) -> Option<usize> {
    let suffix = &prefix[1..];
    let i = s.find(suffix)?;
    if s[..i].contains('/') {
        return None;
    }
    let end = i + suffix.len();
    if end == s.len() {
        return Some(end);
    }
    matches!(s.as_bytes()[end], b':' | b'/' | b'@').then_some(end)
}

/// Upstream `FindRegistry`: the entry with the longest matching prefix
/// string (a wildcard's `*.` counts), the first in prefix order on a tie.
pub fn find_registry<'a>(conf: &'a RegistriesConf, name: &str) -> Option<&'a Registry> {
    let mut best: Option<&Registry> = None;
    for r in &conf.registries {
        if r.prefix.len() > best.map_or(0, |b| b.prefix.len())
            && ref_matching_prefix(name, &r.prefix).is_some()
        {
            best = Some(r);
        }
    }
    best
}

/// Every entry whose prefix matches `name`, best first (the order
/// [`find_registry`] would prefer them in).
pub fn matching_registries<'a>(conf: &'a RegistriesConf, name: &str) -> Vec<&'a Registry> {
    let mut all: Vec<&Registry> = conf
        .registries
        .iter()
        .filter(|r| !r.prefix.is_empty() && ref_matching_prefix(name, &r.prefix).is_some())
        .collect();
    // Longest first; stable, so ties keep prefix order as upstream does.
    all.sort_by_key(|r| std::cmp::Reverse(r.prefix.len()));
    all
}

/// Why an endpoint's pull spec cannot be built; upstream fails the whole pull.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewriteError {
    #[error("invalid prefix '{prefix}' for reference '{reference}'")]
    InvalidPrefix { prefix: String, reference: String },
    #[error("rewriting reference to \"{rewritten}\" for endpoint \"{location}\": {source}")]
    Rewrite {
        location: String,
        rewritten: String,
        #[source]
        source: ReferenceError,
    },
}

/// Upstream `Endpoint.rewriteReference`.
pub fn rewrite_reference(
    location: &str,
    reference: &Reference,
    prefix: &str,
) -> Result<Reference, RewriteError> {
    let s = reference.to_string();
    let n = ref_matching_prefix(&s, prefix).ok_or_else(|| RewriteError::InvalidPrefix {
        prefix: prefix.to_string(),
        reference: s.clone(),
    })?;
    if location.is_empty() {
        return Ok(reference.clone());
    }
    let rewritten = format!("{location}{}", &s[n..]);
    Reference::parse_named(&rewritten).map_err(|source| RewriteError::Rewrite {
        location: location.to_string(),
        rewritten,
        source,
    })
}

/// Whether an endpoint is a mirror or the source itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Mirror,
    Source,
}

/// One endpoint to try, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullSource {
    /// The rewritten (physical) pull spec.
    pub reference: Reference,
    pub role: Role,
    /// The endpoint's location (empty for a wildcard entry's own source).
    pub location: String,
    /// The endpoint's own `insecure` flag, which the pull uses.
    pub insecure: bool,
    /// The mirror's origins, or the entry's for the source.
    pub origins: Vec<Origin>,
}

/// Why a mirror is not tried for a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SkipReason {
    /// The entry has `mirror-by-digest-only = true` and the reference is by tag.
    DigestOnlyRegistry,
    /// The mirror has `pull-from-mirror = "digest-only"` and the reference is by tag.
    DigestOnlyMirror,
    /// The mirror has `pull-from-mirror = "tag-only"` and the reference is by digest.
    TagOnlyMirror,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::DigestOnlyRegistry => {
                "mirror-by-digest-only = true and the pull is by tag: digest-only mirrors are never used for a tag"
            }
            Self::DigestOnlyMirror => {
                "pull-from-mirror = \"digest-only\" and the pull is by tag: digest-only mirrors are never used for a tag"
            }
            Self::TagOnlyMirror => {
                "pull-from-mirror = \"tag-only\" and the pull is by digest: tag-only mirrors are never used for a digest"
            }
        })
    }
}

/// A mirror that is not tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedMirror {
    /// The pull spec the mirror would have been given (best effort).
    pub reference: String,
    pub location: String,
    pub reason: SkipReason,
    pub origins: Vec<Origin>,
}

/// The ordered endpoints for a reference, and the mirrors left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullPlan {
    pub sources: Vec<PullSource>,
    pub skipped: Vec<SkippedMirror>,
}

fn skip_reason(registry: &Registry, mirror: &Mirror, digested: bool) -> Option<SkipReason> {
    if registry.mirror_by_digest_only {
        return (!digested).then_some(SkipReason::DigestOnlyRegistry);
    }
    match mirror.pull_from_mirror {
        PullFromMirror::DigestOnly if !digested => Some(SkipReason::DigestOnlyMirror),
        PullFromMirror::TagOnly if digested => Some(SkipReason::TagOnlyMirror),
        _ => None,
    }
}

/// Upstream `PullSourcesFromReference`: eligible mirrors in order, then the
/// source, always last. Any rewrite error fails the whole plan.
pub fn pull_sources(registry: &Registry, reference: &Reference) -> Result<PullPlan, RewriteError> {
    let digested = reference.is_digested();
    let mut sources = Vec::with_capacity(registry.mirrors.len() + 1);
    let mut skipped = Vec::new();
    for m in &registry.mirrors {
        if let Some(reason) = skip_reason(registry, m, digested) {
            let would_be = rewrite_reference(&m.location, reference, &registry.prefix)
                .map(|r| r.to_string())
                .unwrap_or_else(|_| {
                    let s = reference.to_string();
                    let n = ref_matching_prefix(&s, &registry.prefix).unwrap_or(0);
                    format!("{}{}", m.location, &s[n..])
                });
            skipped.push(SkippedMirror {
                reference: would_be,
                location: m.location.clone(),
                reason,
                origins: m.origins.clone(),
            });
            continue;
        }
        sources.push(PullSource {
            reference: rewrite_reference(&m.location, reference, &registry.prefix)?,
            role: Role::Mirror,
            location: m.location.clone(),
            insecure: m.insecure,
            origins: m.origins.clone(),
        });
    }
    sources.push(PullSource {
        reference: rewrite_reference(&registry.location, reference, &registry.prefix)?,
        role: Role::Source,
        location: registry.location.clone(),
        insecure: registry.insecure,
        origins: registry.origins.clone(),
    });
    Ok(PullPlan { sources, skipped })
}

/// The plan when no entry matches: the reference itself, nothing else.
pub fn unmatched_pull_plan(reference: &Reference) -> PullPlan {
    PullPlan {
        sources: vec![PullSource {
            reference: reference.clone(),
            role: Role::Source,
            location: reference.name(),
            insecure: false,
            origins: Vec::new(),
        }],
        skipped: Vec::new(),
    }
}
