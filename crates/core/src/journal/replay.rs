//! Matches a node's pull log to the pulls of one image and judges each
//! against the explanation's expected source order.
//!
//! CRI-O logs `Pulling image: REF` and `Pulled image: …` with the request's
//! `id=`, but containers/image logs `Trying to access "PHYSICAL-REF"` with no
//! id, and pulls run in parallel: each attempt line is given to the open pull
//! of the image whose expected order has that source next (then one that has
//! it at all, then one whose reference it resembles, then the node's only
//! open pull). A pull that CRI-O de-duplicated (an identical pull already
//! under way) logs no attempt of its own: it shares the other's.

use super::line::{source_failures, Event, Line, SourceFailure};
use super::record::{Attempt, Expected, Outcome, PullRecord, Verdict};
use super::time::Timestamp;
use crate::reference::Reference;

/// A pull being read.
struct Open {
    rec: PullRecord,
    ours: bool,
    /// The candidate index of each attempt, parallel to `rec.pulls`.
    cands: Vec<Option<usize>>,
    closed: bool,
    /// The next attempt is the OCI-artifact fallback.
    artifact_next: bool,
}

/// Every pull of `expected.image` in `lines`, in time order across the
/// nodes (each node's lines are read in the order journald gave them, and
/// an admin on an incident reads what happened when, the node named on
/// each pull).
pub fn replay(lines: &[Line], expected: &Expected) -> Vec<PullRecord> {
    let mut nodes: Vec<&str> = Vec::new();
    for l in lines {
        if !nodes.contains(&l.host.as_str()) {
            nodes.push(&l.host);
        }
    }
    let mut out = Vec::new();
    for node in nodes {
        let mine: Vec<&Line> = lines.iter().filter(|l| l.host == node).collect();
        out.extend(replay_node(&mine, expected));
    }
    out.sort_by_key(|r| r.time);
    out
}

fn replay_node(lines: &[&Line], expected: &Expected) -> Vec<PullRecord> {
    let mut pulls: Vec<Open> = Vec::new();
    for line in lines {
        match &line.event {
            Event::Pulling { image } => start(&mut pulls, line, image, expected),
            Event::Pulled { result } => {
                if let Some(p) = by_id(&mut pulls, line.id.as_deref()) {
                    p.rec.outcome = Outcome::Pulled;
                    p.rec.result = Some(result.clone());
                    p.closed = true;
                }
            }
            Event::Trying { reference } => {
                if let Some(i) = owner(&pulls, reference, expected) {
                    add_try(&mut pulls[i], reference, expected);
                }
            }
            Event::AccessFailed { reference, error } => {
                let p = pulls.iter_mut().rev().find(|p| {
                    p.ours
                        && !p.closed
                        && p.rec.pulls.last().and_then(|a| a.tried.last()) == Some(reference)
                });
                if let Some(a) = p.and_then(|p| p.rec.pulls.last_mut()) {
                    add_error(a, reference, error);
                }
            }
            Event::PullError { error, .. } => fail_attempt(&mut pulls, line, error, false),
            Event::ArtifactFallback { error, .. } => fail_attempt(&mut pulls, line, error, true),
            Event::ShortName { input, how } => {
                let p = pulls
                    .iter_mut()
                    .rev()
                    .find(|p| !p.closed && &p.rec.image == input);
                if let Some(p) = p {
                    p.rec.short_name = Some(how.clone());
                }
            }
        }
    }
    finish(pulls, expected)
}

/// A new request: an earlier one of the same image that has tried every
/// source of its candidate and never ended has failed (at `info` CRI-O logs
/// nothing on failure; the kubelet's retry is the sign).
fn start(pulls: &mut Vec<Open>, line: &Line, image: &str, expected: &Expected) {
    let ours = matches_image(expected, image);
    for p in pulls
        .iter_mut()
        .filter(|p| !p.closed && p.rec.image == image)
    {
        if tried_everything(p, expected) {
            p.rec.outcome = Outcome::Failed;
            p.closed = true;
        }
    }
    pulls.push(Open {
        rec: PullRecord {
            time: line.time,
            node: line.host.clone(),
            pool: None,
            image: image.to_string(),
            id: line.id.clone(),
            outcome: Outcome::Unfinished,
            result: None,
            short_name: None,
            shared_with: None,
            pulls: Vec::new(),
        },
        ours,
        cands: Vec::new(),
        closed: false,
        artifact_next: false,
    });
}

fn tried_everything(p: &Open, expected: &Expected) -> bool {
    let (Some(a), Some(Some(c))) = (p.rec.pulls.last(), p.cands.last()) else {
        return false;
    };
    let last_candidate = *c + 1 == expected.candidates.len();
    let sources = &expected.candidates[*c].sources;
    last_candidate && !sources.is_empty() && sources.iter().all(|s| a.tried.contains(&s.reference))
}

fn by_id<'a>(pulls: &'a mut [Open], id: Option<&str>) -> Option<&'a mut Open> {
    let id = id?;
    pulls
        .iter_mut()
        .rev()
        .find(|p| !p.closed && p.rec.id.as_deref() == Some(id))
}

/// A candidate's image pull failed (`Error pulling image`, debug; or the
/// OCI-artifact fallback, whose error is the image pull's).
fn fail_attempt(pulls: &mut [Open], line: &Line, error: &str, artifact: bool) {
    let Some(p) = by_id(pulls, line.id.as_deref()) else {
        return;
    };
    p.artifact_next = artifact;
    if let Some(a) = p.rec.pulls.last_mut() {
        a.outcome = Outcome::Failed;
        for f in source_failures(error) {
            add_error(a, &f.reference, &f.error);
        }
        if a.errors.is_empty() {
            if let Some(r) = a.tried.last().cloned() {
                add_error(a, &r, error);
            }
        }
    }
    if !artifact {
        p.rec.outcome = Outcome::Failed;
    }
}

fn add_error(a: &mut Attempt, reference: &str, error: &str) {
    if !a.errors.iter().any(|e| e.reference == reference) {
        a.errors.push(SourceFailure {
            reference: reference.to_string(),
            error: error.to_string(),
        });
    }
}

/// Whether the image CRI-O was asked for is `expected`'s: the same string,
/// or the same reference once normalized as CRI-O normalizes it.
pub(super) fn matches_image(expected: &Expected, image: &str) -> bool {
    if image == expected.image {
        return true;
    }
    let Ok(r) = Reference::parse_normalized_named(image) else {
        return false;
    };
    let normalized = r.tag_name_only().strip_tag_if_digested().to_string();
    expected
        .candidates
        .iter()
        .any(|c| c.reference == normalized)
}

/// Which open pull a `Trying to access` line belongs to.
fn owner(pulls: &[Open], reference: &str, expected: &Expected) -> Option<usize> {
    let open: Vec<usize> = (0..pulls.len()).filter(|&i| !pulls[i].closed).collect();
    let ours: Vec<usize> = open.iter().copied().filter(|&i| pulls[i].ours).collect();
    let has = |i: usize| {
        expected
            .candidates
            .iter()
            .any(|c| c.sources.iter().any(|s| s.reference == reference))
            && !pulls[i].closed
    };
    if let Some(&i) = ours
        .iter()
        .find(|&&i| next_expected(&pulls[i], expected) == Some(reference))
    {
        return Some(i);
    }
    if let Some(&i) = ours.iter().rev().find(|&&i| has(i)) {
        return Some(i);
    }
    let resembles = expected
        .candidates
        .iter()
        .any(|c| resembles(&c.reference, reference));
    if resembles {
        if let Some(&i) = ours.last() {
            return Some(i);
        }
    }
    match open.as_slice() {
        [only] if pulls[*only].ours => Some(*only),
        _ => None,
    }
}

/// The source the pull should try next: the next of its candidate, else
/// the first of the next candidate.
fn next_expected<'a>(p: &Open, expected: &'a Expected) -> Option<&'a str> {
    let (a, c) = match (p.rec.pulls.last(), p.cands.last()) {
        (Some(a), Some(Some(c))) if !p.artifact_next => (a, *c),
        (None, _) => return first_source(expected, 0),
        _ => return None,
    };
    let sources = &expected.candidates[c].sources;
    match sources.get(a.tried.len()) {
        Some(s) if a.tried.iter().zip(sources).all(|(t, s)| *t == s.reference) => {
            Some(&s.reference)
        }
        Some(_) => None,
        None => first_source(expected, c + 1),
    }
}

fn first_source(expected: &Expected, from: usize) -> Option<&str> {
    expected.candidates[from.min(expected.candidates.len())..]
        .iter()
        .find_map(|c| c.sources.first().map(|s| s.reference.as_str()))
}

/// Whether `physical` looks like a pull spec of `candidate` (same digest;
/// or same tag and same last path component): a source of another
/// configuration for the same image.
fn resembles(candidate: &str, physical: &str) -> bool {
    let (Ok(c), Ok(p)) = (Reference::parse(candidate), Reference::parse(physical)) else {
        return false;
    };
    if let Some(d) = c.digest() {
        return p.digest() == Some(d);
    }
    let last = |r: &Reference| r.path().rsplit('/').next().map(str::to_string);
    c.tag().is_some() && c.tag() == p.tag() && last(&c) == last(&p)
}

/// Adds a `Trying to access` line to the pull: to its current attempt, or
/// to a new one when it starts another candidate, a retry or the
/// OCI-artifact fallback.
fn add_try(p: &mut Open, reference: &str, expected: &Expected) {
    let in_candidate = |c: usize| {
        expected.candidates[c]
            .sources
            .iter()
            .any(|s| s.reference == reference)
    };
    let current = p.cands.last().copied().flatten();
    let later = |from: usize| (from..expected.candidates.len()).find(|&c| in_candidate(c));
    let new_attempt = match (p.rec.pulls.last(), current) {
        _ if p.artifact_next => Some(current.or_else(|| later(0))),
        (None, _) => Some(later(0)),
        (Some(a), _) if a.tried.iter().any(|t| t == reference) => Some(current),
        (Some(_), Some(c)) if !in_candidate(c) => later(c + 1).map(Some),
        _ => None,
    };
    if let Some(cand) = new_attempt {
        if let Some(a) = p.rec.pulls.last_mut() {
            a.outcome = Outcome::Failed;
        }
        let name = cand.map_or_else(
            || p.rec.image.clone(),
            |c| expected.candidates[c].reference.clone(),
        );
        p.rec.pulls.push(Attempt {
            candidate: name,
            tried: Vec::new(),
            served_by: None,
            outcome: Outcome::Unfinished,
            verdict: Verdict::Undetermined,
            divergence: None,
            errors: Vec::new(),
            oci_artifact: p.artifact_next,
            note: None,
        });
        p.cands.push(cand);
        p.artifact_next = false;
    }
    if let Some(a) = p.rec.pulls.last_mut() {
        a.tried.push(reference.to_string());
    }
}

/// Settles outcomes and verdicts once the whole log is read.
fn finish(pulls: Vec<Open>, expected: &Expected) -> Vec<PullRecord> {
    let shared: Vec<Option<Timestamp>> = (0..pulls.len())
        .map(|i| {
            let p = &pulls[i];
            if !p.rec.pulls.is_empty() {
                return None;
            }
            pulls[..i]
                .iter()
                .rev()
                .find(|q| q.rec.image == p.rec.image && !q.rec.pulls.is_empty())
                .map(|q| q.rec.time)
        })
        .collect();
    pulls
        .into_iter()
        .zip(shared)
        .filter(|(p, _)| p.ours)
        .map(|(mut p, shared)| {
            p.rec.shared_with = shared;
            let n = p.rec.pulls.len();
            for (k, (a, c)) in p.rec.pulls.iter_mut().zip(&p.cands).enumerate() {
                if k + 1 == n {
                    a.outcome = p.rec.outcome;
                }
                if a.outcome == Outcome::Pulled {
                    a.served_by = a.tried.last().cloned();
                }
                let sources = c.map(|c| expected.candidates[c].sources.as_slice());
                super::verdict::judge(a, sources.unwrap_or(&[]));
            }
            p.rec
        })
        .collect()
}
