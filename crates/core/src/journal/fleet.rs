//! The fleet view of a pull log (`audit --journal`, `--journal-file`):
//! every pull of every image in the log, replayed against that image's
//! expected order on the node's pool and counted per image: how many pulls
//! went to which source, which mirrors never served, and the divergences,
//! images that diverge first.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::{Expected, Outcome, PullRecord, Summarised, Verdict};
use super::{events, within, Bounds};

/// The whole log, image by image.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fleet {
    /// Every pull request in the log.
    pub pulls: usize,
    /// The host column of each node that pulled, sorted.
    pub nodes: Vec<String>,
    /// Each pool whose configuration pulls were judged against, and the
    /// nodes judged against it.
    pub pools: Vec<PoolNodes>,
    /// The nodes whose pulls cannot all be judged: the log could not be
    /// read, was cut, or the node's pool is unknown.
    pub undetermined_nodes: Vec<NodeNote>,
    /// Images with a diverging pull first, then an undetermined one, then
    /// the rest; by image within each.
    pub images: Vec<ImageView>,
}

impl Fleet {
    /// The counts `-o summary` gives of one cluster's pull log: its images
    /// and pulls, the pulls that diverge (summed over the images), and the
    /// nodes whose pulls cannot all be judged.
    pub fn summary_counts(&self) -> Vec<(&'static str, usize)> {
        let diverging = self.images.iter().map(|i| i.verdicts.diverges).sum();
        vec![
            ("images", self.images.len()),
            ("pulls", self.pulls),
            ("diverging", diverging),
            ("undeterminedNodes", self.undetermined_nodes.len()),
        ]
    }
}

/// A pool and the nodes judged against its configuration.
#[derive(Debug, Clone, Serialize)]
pub struct PoolNodes {
    pub pool: String,
    pub nodes: Vec<String>,
}

/// Why a node's pulls cannot all be judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeReason {
    /// Its log could not be read.
    Unread,
    /// Its log was read, but the kubelet cut the answer: later pulls are not seen.
    Cut,
    /// No MachineConfigPool selects it: its configuration is not known.
    NoPool,
    /// Its log is forbidden: its pulls are read from the kubelet's pull
    /// events, which never name the source that served a success.
    Events,
}

/// A node the answer is undetermined for, and why.
#[derive(Debug, Clone, Serialize)]
pub struct NodeNote {
    pub node: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    pub reason: NodeReason,
    pub message: String,
}

/// One pool's share of the log: its nodes, each image they pulled with its
/// expected order on the pool (and the explanation's error when it has
/// one) and its pulls as the log's replay read them.
#[derive(Debug, Clone)]
pub struct PoolLog {
    pub pool: String,
    /// The nodes judged against the pool (those that pulled nothing too).
    pub nodes: Vec<String>,
    pub images: Vec<PoolImage>,
    /// The nodes whose pulls are read from the pull events instead of a log.
    pub events: Option<EventLog>,
}

/// One image of a pool's log.
#[derive(Debug, Clone)]
pub struct PoolImage {
    pub expected: Expected,
    pub error: Option<String>,
    /// Its pulls read from the log (those of this very image string).
    pub records: Vec<PullRecord>,
    /// Its pulls counted but not kept (see [`Replay::keeping`](super::Replay::keeping)).
    pub summarised: Summarised,
}

/// The kubelet's pull events standing in for the logs of some nodes.
#[derive(Debug, Clone)]
pub struct EventLog {
    pub events: Vec<serde_json::Value>,
    pub nodes: Vec<String>,
    /// The window the logs were read in.
    pub bounds: Bounds,
}

impl EventLog {
    /// Every image the events of its nodes name.
    pub fn images(&self) -> Vec<String> {
        events::images(&self.events, &self.nodes)
    }
}

/// One image as the kubelet asked CRI-O for it, and its pulls.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageView {
    pub image: String,
    pub pulls: usize,
    pub nodes: Vec<String>,
    pub outcomes: OutcomeCounts,
    pub verdicts: VerdictCounts,
    /// Each source that served a pull, with how many, most first.
    pub served_by: Vec<Served>,
    /// The mirrors of the expected order (not blocked) that served no pull.
    pub never_served: Vec<String>,
    /// Why the image cannot be pulled as configured, from its explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Every pull, as `explain --journal-file` shows it, by time; with
    /// `summarised`, only the first and last ones.
    pub journal: Vec<PullRecord>,
    /// The pulls counted above but not listed in `journal` (a long log
    /// keeps the first and last pulls of each image).
    #[serde(skip_serializing_if = "is_zero")]
    pub summarised: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Pull requests by outcome.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OutcomeCounts {
    pub pulled: usize,
    pub failed: usize,
    pub unfinished: usize,
}

/// Candidate attempts by verdict.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictCounts {
    pub as_expected: usize,
    pub diverges: usize,
    pub undetermined: usize,
}

/// A source that served pulls.
#[derive(Debug, Clone, Serialize)]
pub struct Served {
    pub reference: String,
    /// `mirror` or `source` in the expected order; `unexpected` when the
    /// order does not have it.
    pub role: &'static str,
    pub pulls: usize,
}

/// Counts the pulls of each pool's log (replayed against that pool's
/// expected order), image by image across the pools, with the pull events
/// standing in for the nodes whose logs are forbidden.
/// With `window`, only the pulls whose `Pulling image` line is in it, and
/// only the images of those.
pub fn fleet(
    logs: Vec<PoolLog>,
    undetermined_nodes: Vec<NodeNote>,
    window: Option<Bounds>,
) -> Fleet {
    let mut parts: BTreeMap<String, Vec<Part>> = BTreeMap::new();
    let mut pools = Vec::new();
    for log in logs {
        for PoolImage {
            expected: e,
            error,
            records,
            summarised,
        } in log.images
        {
            let mut records = within(records, window);
            if let Some(ev) = &log.events {
                for node in &ev.nodes {
                    let told = events::pulls_from_events(&ev.events, node, &e, ev.bounds);
                    records.extend(told.into_iter().filter(|r| r.image == e.image));
                }
            }
            if records.is_empty() && summarised.pulls == 0 && window.is_some() {
                continue;
            }
            for r in &mut records {
                r.pool = Some(log.pool.clone());
            }
            parts.entry(e.image.clone()).or_default().push(Part {
                expected: e,
                error,
                records,
                summarised,
            });
        }
        let mut nodes = log.nodes;
        nodes.sort();
        nodes.dedup();
        pools.push(PoolNodes {
            pool: log.pool,
            nodes,
        });
    }
    let mut views: Vec<ImageView> = parts
        .into_iter()
        .map(|(image, parts)| view(&image, parts))
        .collect();
    views.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.image.cmp(&b.image)));
    let mut nodes: Vec<String> = views.iter().flat_map(|v| v.nodes.clone()).collect();
    nodes.sort();
    nodes.dedup();
    Fleet {
        pulls: views.iter().map(|v| v.pulls).sum(),
        nodes,
        pools,
        undetermined_nodes,
        images: views,
    }
}

/// One pool's pulls of an image.
struct Part {
    expected: Expected,
    error: Option<String>,
    records: Vec<PullRecord>,
    summarised: Summarised,
}

fn rank(v: &ImageView) -> u8 {
    match (v.verdicts.diverges, v.verdicts.undetermined) {
        (d, _) if d > 0 => 0,
        (_, u) if u > 0 => 1,
        _ => 2,
    }
}

fn view(image: &str, parts: Vec<Part>) -> ImageView {
    let mut outcomes = OutcomeCounts::default();
    let mut verdicts = VerdictCounts::default();
    let mut served_by: Vec<Served> = Vec::new();
    let mut never_served: Vec<String> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut records: Vec<PullRecord> = Vec::new();
    let mut summarised = 0;
    let mut other_nodes: Vec<String> = Vec::new();
    for part in parts {
        let mut serve = |s: &str, n: usize| {
            let role = role(&part.expected, s);
            match served_by
                .iter_mut()
                .find(|x| x.reference == s && x.role == role)
            {
                Some(x) => x.pulls += n,
                None => served_by.push(Served {
                    reference: s.to_string(),
                    role,
                    pulls: n,
                }),
            }
        };
        for r in &part.records {
            count(r, &mut outcomes, &mut verdicts);
            for s in r.pulls.iter().filter_map(|a| a.served_by.as_ref()) {
                serve(s, 1);
            }
        }
        let more = &part.summarised;
        for (s, n) in &more.served {
            serve(s, *n);
        }
        add_summarised(more, &mut outcomes, &mut verdicts);
        summarised += more.pulls;
        other_nodes.extend(more.nodes.iter().cloned());
        add_never_served(&part, &mut never_served);
        if let Some(e) = part.error.filter(|e| !errors.contains(e)) {
            errors.push(e);
        }
        records.extend(part.records);
    }
    records.sort_by_key(|r| r.time);
    served_by.sort_by(|a, b| {
        b.pulls
            .cmp(&a.pulls)
            .then_with(|| a.reference.cmp(&b.reference))
    });
    let mut nodes: Vec<String> = records.iter().map(|r| r.node.clone()).collect();
    nodes.extend(other_nodes);
    nodes.sort();
    nodes.dedup();
    ImageView {
        image: image.to_string(),
        pulls: records.len() + summarised,
        summarised,
        nodes,
        outcomes,
        verdicts,
        served_by,
        never_served,
        error: (!errors.is_empty()).then(|| errors.join("; ")),
        journal: records,
    }
}

/// Adds the mirrors of `part`'s expected order (not blocked) that served
/// none of its pulls, kept or counted.
fn add_never_served(part: &Part, never_served: &mut Vec<String>) {
    let served = |m: &str| {
        part.summarised.served.contains_key(m)
            || part
                .records
                .iter()
                .flat_map(|r| &r.pulls)
                .any(|a| a.served_by.as_deref() == Some(m))
    };
    for s in part.expected.candidates.iter().flat_map(|c| &c.sources) {
        if s.mirror && !s.blocked && !served(&s.reference) && !never_served.contains(&s.reference) {
            never_served.push(s.reference.clone());
        }
    }
}

/// Adds the counts of pulls not kept.
fn add_summarised(s: &Summarised, outcomes: &mut OutcomeCounts, verdicts: &mut VerdictCounts) {
    outcomes.pulled += s.pulled;
    outcomes.failed += s.failed;
    outcomes.unfinished += s.unfinished;
    verdicts.as_expected += s.as_expected;
    verdicts.diverges += s.diverges;
    verdicts.undetermined += s.undetermined;
}

fn count(r: &PullRecord, outcomes: &mut OutcomeCounts, verdicts: &mut VerdictCounts) {
    match r.outcome {
        Outcome::Pulled => outcomes.pulled += 1,
        Outcome::Failed => outcomes.failed += 1,
        Outcome::Unfinished => outcomes.unfinished += 1,
    }
    for a in &r.pulls {
        match a.verdict {
            Verdict::AsExpected => verdicts.as_expected += 1,
            Verdict::Diverges => verdicts.diverges += 1,
            Verdict::Undetermined => verdicts.undetermined += 1,
        }
    }
}

fn role(e: &Expected, reference: &str) -> &'static str {
    let found = e
        .candidates
        .iter()
        .flat_map(|c| &c.sources)
        .find(|s| s.reference == reference);
    match found {
        Some(s) if s.mirror => "mirror",
        Some(_) => "source",
        None => "unexpected",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(name: &str, pulls: usize, diverges: usize) -> ImageView {
        ImageView {
            image: name.to_string(),
            pulls,
            nodes: vec!["worker-0".to_string()],
            outcomes: OutcomeCounts::default(),
            verdicts: VerdictCounts {
                as_expected: pulls - diverges,
                diverges,
                undetermined: 0,
            },
            served_by: Vec::new(),
            never_served: Vec::new(),
            error: None,
            journal: Vec::new(),
            summarised: 0,
        }
    }

    /// Issue 26: `-o summary` counts the typed pull log: `diverging` sums
    /// the images' diverging pulls, `pulls` is the log's own count.
    #[test]
    fn issue_26_summary_counts_of_a_pull_log() {
        let note = NodeNote {
            node: "worker-1".to_string(),
            pool: None,
            reason: NodeReason::Unread,
            message: "its log could not be read".to_string(),
        };
        let fleet = Fleet {
            pulls: 7,
            nodes: vec!["worker-0".to_string()],
            pools: Vec::new(),
            undetermined_nodes: vec![note],
            images: vec![image("a", 3, 2), image("b", 3, 1), image("c", 1, 0)],
        };
        assert_eq!(
            fleet.summary_counts(),
            [
                ("images", 3),
                ("pulls", 7),
                ("diverging", 3),
                ("undeterminedNodes", 1)
            ]
        );
        let empty = super::fleet(Vec::new(), Vec::new(), None);
        assert_eq!(
            empty.summary_counts(),
            [
                ("images", 0),
                ("pulls", 0),
                ("diverging", 0),
                ("undeterminedNodes", 0)
            ]
        );
    }
}
