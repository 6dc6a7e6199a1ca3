//! The fleet view of a pull log (`audit --journal-file`): every pull of
//! every image in the log, replayed against that image's expected order
//! and counted per image: how many pulls went to which source, which
//! mirrors never served, and the divergences, images that diverge first.

use serde::Serialize;

use super::line::{Event, Line};
use super::record::{Expected, Outcome, PullRecord, Verdict};
use super::replay::replay;

/// The whole log, image by image.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fleet {
    /// Every pull request in the log.
    pub pulls: usize,
    /// The host column of each node that pulled, sorted.
    pub nodes: Vec<String>,
    /// Images with a diverging pull first, then an undetermined one, then
    /// the rest; by image within each.
    pub images: Vec<ImageView>,
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
    /// Every pull, as `explain --journal-file` shows it, by time.
    pub journal: Vec<PullRecord>,
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

/// Every image the log shows a `Pulling image` of, in the order of its
/// first pull.
pub fn images(lines: &[Line]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        if let Event::Pulling { image } = &l.event {
            if !out.contains(image) {
                out.push(image.clone());
            }
        }
    }
    out
}

/// Replays every image of `expected` (one per image of [`images`], with the
/// explanation's error when it has one) and counts it.
pub fn fleet(lines: &[Line], expected: &[(Expected, Option<String>)]) -> Fleet {
    let mut views: Vec<ImageView> = expected
        .iter()
        .map(|(e, error)| {
            let mut records: Vec<PullRecord> = replay(lines, e)
                .into_iter()
                .filter(|r| r.image == e.image)
                .collect();
            records.sort_by_key(|r| r.time);
            view(e, error.clone(), records)
        })
        .collect();
    views.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.image.cmp(&b.image)));
    let mut nodes: Vec<String> = views.iter().flat_map(|v| v.nodes.clone()).collect();
    nodes.sort();
    nodes.dedup();
    Fleet {
        pulls: views.iter().map(|v| v.pulls).sum(),
        nodes,
        images: views,
    }
}

fn rank(v: &ImageView) -> u8 {
    match (v.verdicts.diverges, v.verdicts.undetermined) {
        (d, _) if d > 0 => 0,
        (_, u) if u > 0 => 1,
        _ => 2,
    }
}

fn view(e: &Expected, error: Option<String>, records: Vec<PullRecord>) -> ImageView {
    let mut outcomes = OutcomeCounts::default();
    let mut verdicts = VerdictCounts::default();
    let mut served_by: Vec<Served> = Vec::new();
    for r in &records {
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
            let Some(s) = &a.served_by else { continue };
            match served_by.iter_mut().find(|x| &x.reference == s) {
                Some(x) => x.pulls += 1,
                None => served_by.push(Served {
                    reference: s.clone(),
                    role: role(e, s),
                    pulls: 1,
                }),
            }
        }
    }
    served_by.sort_by(|a, b| {
        b.pulls
            .cmp(&a.pulls)
            .then_with(|| a.reference.cmp(&b.reference))
    });
    let mut never_served: Vec<String> = Vec::new();
    for s in e.candidates.iter().flat_map(|c| &c.sources) {
        let served = served_by.iter().any(|x| x.reference == s.reference);
        if s.mirror && !s.blocked && !served && !never_served.contains(&s.reference) {
            never_served.push(s.reference.clone());
        }
    }
    let mut nodes: Vec<String> = records.iter().map(|r| r.node.clone()).collect();
    nodes.sort();
    nodes.dedup();
    ImageView {
        image: e.image.clone(),
        pulls: records.len(),
        nodes,
        outcomes,
        verdicts,
        served_by,
        never_served,
        error,
        journal: records,
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
