//! Matches a node's pull log to the pulls of images and judges each against
//! the explanation's expected source order, in one pass as the log streams.
//!
//! CRI-O logs `Pulling image: REF` and `Pulled image: …` with the request's
//! `id=`, but containers/image logs `Trying to access "PHYSICAL-REF"` with no
//! id, and pulls run in parallel: each attempt line is given to the open pull
//! of the image whose expected order has that source next (then one that has
//! it at all; only when no open pull's order has it, one whose reference it
//! resembles, or the node's only open pull). A pull that CRI-O de-duplicated (an identical pull already
//! under way) logs no attempt of its own: it shares the other's.
//!
//! Each expectation is matched on its own (as if the log were replayed once
//! per image), but in the same pass: the open pulls are indexed by node,
//! expectation and request id, and a pull leaves the working set when it
//! ends, so time is linear in the log and memory follows the pulls in
//! flight (and the records kept for the answer).

use std::collections::{BTreeSet, HashMap};

use super::line::{source_failures, Event, Line, SourceFailure};
use super::record::{Attempt, Expected, Outcome, PullRecord, ReadFrom, Summarised, Verdict};
use super::time::Timestamp;
use super::{in_bounds, Bounds};
use crate::reference::Reference;

/// A pull being read, of an image the expectation it is filed under matches.
struct Open {
    rec: PullRecord,
    /// The candidate index of each attempt, parallel to `rec.pulls`.
    cands: Vec<Option<usize>>,
    /// The next attempt is the OCI-artifact fallback.
    artifact_next: bool,
    /// Its place in the order the node's pulls began.
    seq: u64,
    /// The node's line count at the pull's last line.
    last_line: u64,
}

/// One expectation's pulls on one node.
#[derive(Default)]
struct Mine {
    /// Its pulls not ended, in the order they began.
    open: Vec<Open>,
    /// Its pulls not ended by `Pulled image` (ended otherwise or not).
    unpulled: usize,
}

/// One node's state.
struct Node {
    /// Lines of the node read so far, of any kind.
    lines: u64,
    /// Pulls begun and not ended by `Pulled image`, of any image.
    unpulled: usize,
    /// For each such pull with an id, the expectations it is filed under
    /// (a stack: the latest request of an id first).
    by_id: HashMap<String, Vec<Vec<usize>>>,
    mine: HashMap<usize, Mine>,
    /// The expectations with an open pull on the node.
    active: BTreeSet<usize>,
}

/// A pull settled: where it was read, for the answer's order.
struct Done {
    node: usize,
    open: Open,
}

/// The streaming replay of a pull log against expectations.
#[derive(Default)]
pub struct Replay {
    expected: Vec<Expected>,
    /// What [`resembles`] compares of each expectation's candidates.
    shapes: Vec<Vec<Shape>>,
    /// Each expectation by its image as given, and by its candidates.
    exact: HashMap<String, Vec<usize>>,
    by_candidate: HashMap<String, Vec<usize>>,
    nodes: Vec<Node>,
    node_at: HashMap<String, usize>,
    done: Vec<Vec<Done>>,
    seq: u64,
    /// With [`Replay::keeping`]: the pulls kept of each expectation (its
    /// first and last `keep`), the window pulls must begin in, and the
    /// others counted.
    keep: Option<usize>,
    window: Option<Bounds>,
    summarised: Vec<Summarised>,
}

impl Replay {
    /// A replay with no expectation yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A replay that keeps, of each expectation, only the first `keep` and
    /// the last `keep` pulls of its very image string that began in
    /// `window` (in the order they ended): the others are judged as they
    /// end and counted
    /// ([`Replay::finish_summarised`]), so memory follows the expectations
    /// and the pulls in flight, not the pulls in the log. Pulls outside the
    /// window are dropped.
    pub fn keeping(keep: usize, window: Option<Bounds>) -> Self {
        Self {
            keep: Some(keep),
            window,
            ..Self::default()
        }
    }

    /// Files a pull that ended under expectation `k`; with a cap, the
    /// oldest of the last ones beyond it is judged and counted instead.
    fn file(&mut self, k: usize, d: Done) {
        let Some(keep) = self.keep else {
            self.done[k].push(d);
            return;
        };
        // Only this very image string's pulls, in the window, are the
        // answer's (`audit` files each image string under its own).
        if d.open.rec.image != self.expected[k].image
            || self.window.is_some_and(|w| !in_bounds(d.open.rec.time, w))
        {
            return;
        }
        self.done[k].push(d);
        if self.done[k].len() > 2 * keep {
            let mut d = self.done[k].remove(keep);
            let later = self.nodes[d.node].lines > d.open.last_line;
            judge_pull(&mut d.open, &self.expected[k], later);
            self.summarised[k].add(&d.open.rec);
        }
    }

    /// Adds an expectation; its index in [`Replay::finish`]'s answer. Pulls
    /// that began before it was added are not its.
    pub fn add(&mut self, expected: Expected) -> usize {
        let k = self.expected.len();
        self.exact
            .entry(expected.image.clone())
            .or_default()
            .push(k);
        for c in &expected.candidates {
            let ks = self.by_candidate.entry(c.reference.clone()).or_default();
            if !ks.contains(&k) {
                ks.push(k);
            }
        }
        let shapes = expected
            .candidates
            .iter()
            .filter_map(|c| shape(&c.reference));
        self.shapes.push(shapes.collect());
        self.expected.push(expected);
        self.done.push(Vec::new());
        self.summarised.push(Summarised::default());
        k
    }

    /// The expectations `image` (as the kubelet asked CRI-O for it) is a
    /// pull of: see [`matches_image`].
    pub fn matching(&self, image: &str) -> Vec<usize> {
        let mut out = self.exact.get(image).cloned().unwrap_or_default();
        if let Some(n) = normalized(image) {
            for &k in self.by_candidate.get(&n).into_iter().flatten() {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
        out
    }

    fn node(&mut self, host: &str) -> usize {
        if let Some(&i) = self.node_at.get(host) {
            return i;
        }
        self.nodes.push(Node {
            lines: 0,
            unpulled: 0,
            by_id: HashMap::new(),
            mine: HashMap::new(),
            active: BTreeSet::new(),
        });
        self.node_at.insert(host.to_string(), self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// Counts a line of `host` that is no pull message (a later line tells
    /// that a pull's silence is an end, see [`Replay::finish`]).
    pub fn other(&mut self, host: &str) {
        let n = self.node(host);
        self.nodes[n].lines += 1;
    }

    /// Reads the next pull line, its pull filed under every expectation
    /// that matches its image.
    pub fn push(&mut self, line: &Line) {
        self.push_for(line, |_| true);
    }

    /// Reads the next pull line, its pull filed only under the matching
    /// expectations `keep` keeps (a pool's, for a node of that pool).
    pub fn push_for(&mut self, line: &Line, keep: impl Fn(usize) -> bool) {
        let n = self.node(&line.host);
        self.nodes[n].lines += 1;
        match &line.event {
            Event::Pulling { image } => {
                let mut ours = self.matching(image);
                ours.retain(|&k| keep(k));
                self.start(n, line, image, ours);
            }
            Event::Pulled { result } => self.pulled(n, line.id.as_deref(), result),
            Event::Trying { reference } => self.trying(n, reference),
            Event::AccessFailed { reference, error } => {
                self.each_active(n, |p, _| {
                    let last = p.rec.pulls.last().and_then(|a| a.tried.last());
                    (last == Some(reference)).then(|| {
                        if let Some(a) = p.rec.pulls.last_mut() {
                            add_error(a, reference, error);
                        }
                    })
                });
            }
            Event::PullError { error, .. } => self.failed(n, line.id.as_deref(), error, false),
            Event::ArtifactFallback { error, .. } => {
                self.failed(n, line.id.as_deref(), error, true)
            }
            Event::ShortName { input, how } => {
                self.each_active(n, |p, _| {
                    (&p.rec.image == input).then(|| p.rec.short_name = Some(how.clone()))
                });
            }
        }
    }

    /// Gives the line to the latest open pull of each active expectation
    /// for which `f` answers `Some` (and marks that pull's last line).
    fn each_active(&mut self, n: usize, mut f: impl FnMut(&mut Open, &Expected) -> Option<()>) {
        let node = &mut self.nodes[n];
        let lines = node.lines;
        for k in node.active.iter().copied() {
            let Some(mine) = node.mine.get_mut(&k) else {
                continue;
            };
            for p in mine.open.iter_mut().rev() {
                if f(p, &self.expected[k]).is_some() {
                    p.last_line = lines;
                    break;
                }
            }
        }
    }

    /// A new request: an earlier one of the same image that has tried every
    /// source of its candidate and never ended has failed (at `info` CRI-O
    /// logs nothing on failure; the kubelet's retry is the sign).
    fn start(&mut self, n: usize, line: &Line, image: &str, ours: Vec<usize>) {
        self.seq += 1;
        let seq = self.seq;
        let mut failed = Vec::new();
        let node = &mut self.nodes[n];
        node.unpulled += 1;
        if let Some(id) = &line.id {
            node.by_id.entry(id.clone()).or_default().push(ours.clone());
        }
        for k in ours {
            let expected = &self.expected[k];
            let mine = node.mine.entry(k).or_default();
            let mut i = 0;
            while i < mine.open.len() {
                let p = &mine.open[i];
                if p.rec.image == image && tried_everything(p, expected) {
                    let mut p = mine.open.remove(i);
                    p.rec.outcome = Outcome::Failed;
                    failed.push((k, Done { node: n, open: p }));
                } else {
                    i += 1;
                }
            }
            mine.unpulled += 1;
            mine.open.push(Open {
                rec: PullRecord {
                    time: line.time,
                    node: line.host.clone(),
                    pool: None,
                    image: image.to_string(),
                    id: line.id.clone(),
                    read_from: ReadFrom::Journal,
                    outcome: Outcome::Unfinished,
                    result: None,
                    short_name: None,
                    shared_with: None,
                    pulls: Vec::new(),
                },
                cands: Vec::new(),
                artifact_next: false,
                seq,
                last_line: node.lines,
            });
            node.active.insert(k);
        }
        for (k, d) in failed {
            self.file(k, d);
        }
    }

    /// `Pulled image` ends the latest request of its id.
    fn pulled(&mut self, n: usize, id: Option<&str>, result: &str) {
        let Some(id) = id else {
            return;
        };
        let node = &mut self.nodes[n];
        let Some(stack) = node.by_id.get_mut(id) else {
            return;
        };
        let ours = stack.pop().unwrap_or_default();
        if stack.is_empty() {
            node.by_id.remove(id);
        }
        node.unpulled -= 1;
        let mut ended = Vec::new();
        for k in ours {
            let Some(mine) = node.mine.get_mut(&k) else {
                continue;
            };
            mine.unpulled -= 1;
            if let Some(i) = mine
                .open
                .iter()
                .rposition(|p| p.rec.id.as_deref() == Some(id))
            {
                let mut p = mine.open.remove(i);
                p.rec.outcome = Outcome::Pulled;
                p.rec.result = Some(result.to_string());
                p.last_line = node.lines;
                ended.push((k, Done { node: n, open: p }));
            }
            if mine.open.is_empty() {
                node.active.remove(&k);
            }
        }
        for (k, d) in ended {
            self.file(k, d);
        }
    }

    /// A `Trying to access` line: given, in each expectation that has the
    /// source in its order, to the pull that has it next (else its latest
    /// open pull); only when none has it, to a pull whose reference it
    /// resembles or the node's only open pull.
    fn trying(&mut self, n: usize, reference: &str) {
        let node = &mut self.nodes[n];
        let mut owners: Vec<(usize, usize)> = Vec::new();
        for &k in &node.active {
            let Some(mine) = node.mine.get(&k) else {
                continue;
            };
            owners.extend(owner(&mine.open, reference, &self.expected[k]).map(|i| (k, i)));
        }
        if owners.is_empty() {
            // Parsed once for every expectation (only when one needs it).
            let physical = shape(reference);
            for &k in &node.active {
                let Some(mine) = node.mine.get(&k) else {
                    continue;
                };
                // The pulls open in this expectation's view: its own, and
                // every other image's not ended by `Pulled image`.
                let open = node.unpulled - mine.unpulled + mine.open.len();
                let resembles = physical
                    .as_ref()
                    .is_some_and(|p| self.shapes[k].iter().any(|c| resembles(c, p)));
                let last = mine.open.len().checked_sub(1);
                let only = open == 1 && mine.open.len() == 1;
                owners.extend(last.filter(|_| resembles || only).map(|i| (k, i)));
            }
        }
        for (k, i) in owners {
            if let Some(p) = node.mine.get_mut(&k).and_then(|m| m.open.get_mut(i)) {
                add_try(p, reference, &self.expected[k]);
                p.last_line = node.lines;
            }
        }
    }

    /// A candidate's image pull failed (`Error pulling image`, debug; or the
    /// OCI-artifact fallback, whose error is the image pull's).
    fn failed(&mut self, n: usize, id: Option<&str>, error: &str, artifact: bool) {
        let Some(id) = id else {
            return;
        };
        let node = &mut self.nodes[n];
        let Some(ours) = node.by_id.get(id).and_then(|s| s.last()) else {
            return;
        };
        for k in ours {
            let Some(mine) = node.mine.get_mut(k) else {
                continue;
            };
            let Some(p) = mine
                .open
                .iter_mut()
                .rev()
                .find(|p| p.rec.id.as_deref() == Some(id))
            else {
                continue;
            };
            p.last_line = node.lines;
            fail_attempt(p, error, artifact);
        }
    }

    /// Settles outcomes and verdicts once the whole log is read: each
    /// expectation's pulls, in the order [`Replay::add`] gave, by time
    /// across the nodes (each node's in the order they began).
    ///
    /// A pull that never ended has failed, not stopped short, when its
    /// node logged more after its last line and what it last did cannot go
    /// on in silence: its walk ended at a blocked source (containers/image
    /// logs `Trying to access` for it and refuses it, and at CRI-O's `info`
    /// level nothing follows), or CRI-O logged the image pull's error with
    /// the OCI-artifact fallback and no artifact walk followed.
    pub fn finish(self) -> Vec<Vec<PullRecord>> {
        self.finish_summarised()
            .into_iter()
            .map(|(records, _)| records)
            .collect()
    }

    /// [`Replay::finish`], with what [`Replay::keeping`] counted and did not
    /// keep of each expectation. The pulls that never ended are filed last,
    /// under the same cap.
    pub fn finish_summarised(mut self) -> Vec<(Vec<PullRecord>, Summarised)> {
        let mut open = Vec::new();
        for (n, node) in self.nodes.iter_mut().enumerate() {
            for (k, mine) in node.mine.drain() {
                open.extend(
                    mine.open
                        .into_iter()
                        .map(|o| (k, Done { node: n, open: o })),
                );
            }
        }
        open.sort_by_key(|(k, d)| (*k, d.open.seq));
        for (k, d) in open {
            self.file(k, d);
        }
        let Self {
            expected,
            nodes,
            done,
            summarised,
            ..
        } = self;
        done.into_iter()
            .zip(&expected)
            .map(|(pulls, e)| settle(pulls, e, &nodes))
            .zip(summarised)
            .collect()
    }
}

/// One expectation's pulls as the answer gives them.
fn settle(mut pulls: Vec<Done>, expected: &Expected, nodes: &[Node]) -> Vec<PullRecord> {
    pulls.sort_by_key(|d| (d.node, d.open.seq));
    let mut last_walk: HashMap<(usize, String), Timestamp> = HashMap::new();
    for d in &mut pulls {
        let key = (d.node, d.open.rec.image.clone());
        if d.open.rec.pulls.is_empty() {
            d.open.rec.shared_with = last_walk.get(&key).copied();
        } else {
            last_walk.insert(key, d.open.rec.time);
        }
        let later = nodes[d.node].lines > d.open.last_line;
        judge_pull(&mut d.open, expected, later);
    }
    pulls.sort_by_key(|d| (d.open.rec.time, d.node, d.open.seq));
    pulls.into_iter().map(|d| d.open.rec).collect()
}

fn judge_pull(p: &mut Open, expected: &Expected, later: bool) {
    if p.rec.outcome == Outcome::Unfinished && later && ended_in_silence(p, expected) {
        p.rec.outcome = Outcome::Failed;
    }
    let n = p.rec.pulls.len();
    for (k, (a, c)) in p.rec.pulls.iter_mut().zip(&p.cands).enumerate() {
        // The last attempt ends as the request does, unless an error line
        // already said it failed.
        if k + 1 == n && a.outcome != Outcome::Failed {
            a.outcome = p.rec.outcome;
        }
        if a.outcome == Outcome::Pulled {
            a.served_by = a.tried.last().cloned();
        }
        let sources = c.map(|c| expected.candidates[c].sources.as_slice());
        super::verdict::judge(a, sources.unwrap_or(&[]));
    }
}

/// Whether a pull that never ended cannot be going on: its last attempt
/// ended at a blocked source of the last candidate (or of the OCI-artifact
/// attempt), or its image pull failed with the fallback and no artifact
/// walk followed.
fn ended_in_silence(p: &Open, expected: &Expected) -> bool {
    let (Some(a), Some(c)) = (p.rec.pulls.last(), p.cands.last()) else {
        return false;
    };
    if p.artifact_next {
        return a.outcome == Outcome::Failed;
    }
    let Some(c) = *c else {
        return false;
    };
    let last_candidate = c + 1 == expected.candidates.len() || a.oci_artifact;
    let sources = &expected.candidates[c].sources;
    let walked = a.tried.len() <= sources.len()
        && a.tried.iter().zip(sources).all(|(t, s)| *t == s.reference);
    let at_blocked = a
        .tried
        .len()
        .checked_sub(1)
        .and_then(|i| sources.get(i))
        .is_some_and(|s| s.blocked);
    last_candidate && walked && at_blocked
}

fn tried_everything(p: &Open, expected: &Expected) -> bool {
    let (Some(a), Some(Some(c))) = (p.rec.pulls.last(), p.cands.last()) else {
        return false;
    };
    let last_candidate = *c + 1 == expected.candidates.len();
    let sources = &expected.candidates[*c].sources;
    last_candidate && !sources.is_empty() && sources.iter().all(|s| a.tried.contains(&s.reference))
}

fn fail_attempt(p: &mut Open, error: &str, artifact: bool) {
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

/// `image` normalized as CRI-O normalizes what the kubelet asks for.
fn normalized(image: &str) -> Option<String> {
    let r = Reference::parse_normalized_named(image).ok()?;
    Some(r.tag_name_only().strip_tag_if_digested().to_string())
}

/// Whether the image CRI-O was asked for is `expected`'s: the same string,
/// or the same reference once normalized as CRI-O normalizes it.
pub(super) fn matches_image(expected: &Expected, image: &str) -> bool {
    if image == expected.image {
        return true;
    }
    let Some(n) = normalized(image) else {
        return false;
    };
    expected.candidates.iter().any(|c| c.reference == n)
}

/// Which of an expectation's open pulls a `Trying to access` line of a
/// source of its order belongs to: the one that has it next, else the
/// latest.
fn owner(ours: &[Open], reference: &str, expected: &Expected) -> Option<usize> {
    if let Some(i) = ours
        .iter()
        .position(|p| next_expected(p, expected) == Some(reference))
    {
        return Some(i);
    }
    let has = expected
        .candidates
        .iter()
        .any(|c| c.sources.iter().any(|s| s.reference == reference));
    has.then(|| ours.len().checked_sub(1)).flatten()
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

/// What [`resembles`] compares of a reference: its digest, else its tag
/// and the last component of its path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shape {
    digest: Option<String>,
    tag: Option<String>,
    last: Option<String>,
}

fn shape(reference: &str) -> Option<Shape> {
    let r = Reference::parse(reference).ok()?;
    Some(Shape {
        digest: r.digest().map(str::to_string),
        tag: r.tag().map(str::to_string),
        last: r.path().rsplit('/').next().map(str::to_string),
    })
}

/// Whether the physical reference looks like a pull spec of the candidate
/// (same digest; or same tag and same last path component): a source of
/// another configuration for the same image.
fn resembles(candidate: &Shape, physical: &Shape) -> bool {
    if let Some(d) = &candidate.digest {
        return physical.digest.as_ref() == Some(d);
    }
    candidate.tag.is_some() && candidate.tag == physical.tag && candidate.last == physical.last
}

/// Adds a `Trying to access` line to the pull: to its current attempt, or
/// to a new one when it starts another candidate or the OCI-artifact
/// attempt. The same source twice in a row is one access (CRI-O can
/// initialise access to an image twice, and the log then names the source
/// twice); a walk that comes back to a source it already tried is the
/// OCI-artifact attempt (CRI-O 1.33 to 1.35.0 make it on any image pull
/// error, repeating the walk with no line between; from 1.35.1 CRI-O logs
/// `Falling back to pull … as an OCI artifact` first).
fn add_try(p: &mut Open, reference: &str, expected: &Expected) {
    let in_candidate = |c: usize| {
        expected.candidates[c]
            .sources
            .iter()
            .any(|s| s.reference == reference)
    };
    let current = p.cands.last().copied().flatten();
    let later = |from: usize| (from..expected.candidates.len()).find(|&c| in_candidate(c));
    let last = p.rec.pulls.last();
    if !p.artifact_next && last.and_then(|a| a.tried.last()).map(String::as_str) == Some(reference)
    {
        return;
    }
    let repeat = last.is_some_and(|a| a.tried.iter().any(|t| t == reference));
    let new_attempt = match (last, current) {
        _ if p.artifact_next => Some(current.or_else(|| later(0))),
        (None, _) => Some(later(0)),
        _ if repeat => Some(current),
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
            oci_artifact: p.artifact_next || repeat,
            note: None,
        });
        p.cands.push(cand);
        p.artifact_next = false;
    }
    if let Some(a) = p.rec.pulls.last_mut() {
        a.tried.push(reference.to_string());
    }
}

/// Every pull of `expected.image` in `lines`, in time order across the
/// nodes (each node's lines are read in the order journald gave them, and
/// an admin on an incident reads what happened when, the node named on
/// each pull).
pub fn replay(lines: &[Line], expected: &Expected) -> Vec<PullRecord> {
    let mut r = Replay::new();
    r.add(expected.clone());
    for l in lines {
        r.push(l);
    }
    r.finish().pop().unwrap_or_default()
}
