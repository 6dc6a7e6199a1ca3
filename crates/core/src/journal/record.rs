//! What a replay of the pull log gives: the explanation's expected source
//! order for an image, each pull found and its attempts, and the verdict on
//! each attempt. The replay ([`super::replay`]) fills these in and the
//! verdict ([`super::verdict`]) judges them, both from here.

use serde::Serialize;

use super::line::SourceFailure;
use super::time::Timestamp;

/// What the explanation expects for an image on a node.
#[derive(Debug, Clone)]
pub struct Expected {
    /// The image as the user gave it.
    pub image: String,
    pub candidates: Vec<ExpectedCandidate>,
}

/// One candidate's pull sources, in order.
#[derive(Debug, Clone)]
pub struct ExpectedCandidate {
    pub reference: String,
    pub sources: Vec<ExpectedSource>,
}

/// One pull source of a candidate.
#[derive(Debug, Clone)]
pub struct ExpectedSource {
    pub reference: String,
    pub mirror: bool,
    pub blocked: bool,
}

/// One `Pulling image` request of the image found in the log.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullRecord {
    pub time: Timestamp,
    pub node: String,
    /// The MachineConfigPool whose configuration the pull was judged
    /// against, when the fleet view judges nodes of several pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// The image as the kubelet asked CRI-O for it.
    pub image: String,
    /// CRI-O's request id.
    pub id: Option<String>,
    /// Where the pull was read: the node's CRI-O log, or the kubelet's pull
    /// events standing in for it (coarser: a success never names its source).
    pub read_from: ReadFrom,
    /// The outcome of the whole request.
    pub outcome: Outcome,
    /// What `Pulled image:` named (`name@digest`, or an image ID from CRI-O 1.35).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// How a short name was resolved, as containers/image logged it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_name: Option<String>,
    /// For a pull CRI-O de-duplicated: the time of the identical pull it waited for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_with: Option<Timestamp>,
    /// Each candidate tried, in order (a short name can have several; an
    /// OCI-artifact fallback is an attempt of its own).
    pub pulls: Vec<Attempt>,
}

/// Where a pull was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ReadFrom {
    /// The node's CRI-O log (a file, a must-gather's, or read live).
    Journal,
    /// The kubelet's pull events, when the node's log is forbidden.
    Events,
}

/// How a pull request or one of its attempts ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Pulled,
    Failed,
    /// The log ends before the pull does (or, at CRI-O's default `info`
    /// level, it logs nothing when a pull fails and no retry followed).
    Unfinished,
}

/// One candidate's sources as the log shows them tried.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub candidate: String,
    /// Every `Trying to access` line of the attempt, in order.
    pub tried: Vec<String>,
    pub served_by: Option<String>,
    pub outcome: Outcome,
    pub verdict: Verdict,
    pub divergence: Option<Divergence>,
    /// Why sources failed, where the log says (debug lines, or CRI-O 1.35's
    /// OCI-artifact fallback line).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SourceFailure>,
    /// The attempt CRI-O 1.35+ makes to pull the reference as an OCI artifact.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub oci_artifact: bool,
    /// What the record cannot tell (a pull read from an event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An attempt judged against the expected order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    AsExpected,
    Diverges,
    /// The log ends before the attempt does and nothing so far diverges.
    Undetermined,
}

/// What differs from the explanation.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    pub kind: DivergenceKind,
    pub message: String,
}

/// The named divergences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DivergenceKind {
    /// A source tried that the expected order does not have: the node pulls
    /// with another configuration.
    UnexpectedSource,
    /// A source of the expected order not tried before a later one.
    MirrorSkipped,
    /// Served by a source CRI-O should refuse (blocked, `NeverContactSource`).
    ServedByBlockedSource,
    /// Served by the source although a mirror comes first: the mirrors failed.
    ServedBySource,
}

/// The pulls of one expectation judged and counted but not kept, when the
/// replay keeps only the first and last pulls of each (`audit`): what the
/// counts of the answer need, so memory follows the images, not the pulls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summarised {
    pub pulls: usize,
    pub pulled: usize,
    pub failed: usize,
    pub unfinished: usize,
    pub as_expected: usize,
    pub diverges: usize,
    pub undetermined: usize,
    /// Each source that served one of them, and how many.
    pub served: std::collections::BTreeMap<String, usize>,
    /// The nodes (host column) that pulled them.
    pub nodes: std::collections::BTreeSet<String>,
}

impl Summarised {
    /// Counts a judged pull.
    pub fn add(&mut self, r: &PullRecord) {
        self.pulls += 1;
        match r.outcome {
            Outcome::Pulled => self.pulled += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Unfinished => self.unfinished += 1,
        }
        for a in &r.pulls {
            match a.verdict {
                Verdict::AsExpected => self.as_expected += 1,
                Verdict::Diverges => self.diverges += 1,
                Verdict::Undetermined => self.undetermined += 1,
            }
            if let Some(s) = &a.served_by {
                *self.served.entry(s.clone()).or_default() += 1;
            }
        }
        if !self.nodes.contains(&r.node) {
            self.nodes.insert(r.node.clone());
        }
    }
}
