//! The low-privilege stand-in for the pull log: the kubelet's pull events
//! (`list events`, no `get nodes/proxy`). A `Failed` event carries CRI-O's
//! whole error (`Failed to pull image "X": …`), whose `(Mirrors also
//! failed: [REF: ERR]…): SOURCE: ERR` part names every source tried, in
//! order: that attempt is judged like a logged one. A `Pulled` event
//! (`Successfully pulled image "X" in …`) never names the source that
//! served: its verdict is undetermined, and says so. `Pulling` events add
//! nothing the others do not, and `Container image "X" already present on
//! machine` is no pull.

use serde_json::Value;

use super::line::{source_failures, SourceFailure};
use super::record::{Attempt, Expected, Outcome, PullRecord, ReadFrom, Verdict};
use super::time::Timestamp;
use super::verdict::judge;

/// Why a success read from an event has no verdict.
pub const NO_SOURCE: &str = "events do not name the source that served a successful pull: which one did is undetermined (the node's CRI-O log says, with `get nodes/proxy`)";

/// The pulls of `expected.image` on `node` the events tell, from `since`
/// (and up to `until`), by time.
pub fn pulls_from_events(
    events: &[Value],
    node: &str,
    expected: &Expected,
    (since, until): (Timestamp, Option<Timestamp>),
) -> Vec<PullRecord> {
    let mut out: Vec<PullRecord> = events
        .iter()
        .filter(|e| on_node(e, node))
        .filter_map(|e| record(e, expected))
        .filter(|r| super::in_bounds(r.time, (since, until)))
        .collect();
    out.sort_by_key(|r| r.time);
    out
}

/// Every image a `Failed` or `Pulled` pull event of one of `nodes` names,
/// in the events' order.
pub fn images(events: &[Value], nodes: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        if !nodes.iter().any(|n| on_node(e, n)) {
            continue;
        }
        let Some(message) = text(e, "/message").or_else(|| text(e, "/note")) else {
            continue;
        };
        let image = match text(e, "/reason") {
            Some("Failed") => quoted_after(message, "Failed to pull image "),
            Some("Pulled") => quoted_after(message, "Successfully pulled image "),
            _ => None,
        };
        if let Some((image, _)) = image.filter(|(i, _)| !out.iter().any(|o| o == i)) {
            out.push(image.to_string());
        }
    }
    out
}

fn text<'a>(e: &'a Value, pointer: &str) -> Option<&'a str> {
    e.pointer(pointer).and_then(Value::as_str)
}

/// Whether the kubelet of `node` reported the event (`source.host` of
/// core/v1 events, `reportingInstance` of events.k8s.io).
fn on_node(e: &Value, node: &str) -> bool {
    [text(e, "/source/host"), text(e, "/reportingInstance")]
        .into_iter()
        .flatten()
        .any(|h| super::pool::host_is(h, node))
}

/// The event's time: when it last happened.
fn time_of(e: &Value) -> Option<Timestamp> {
    [
        "/lastTimestamp",
        "/eventTime",
        "/series/lastObservedTime",
        "/firstTimestamp",
    ]
    .iter()
    .filter_map(|p| text(e, p))
    .find_map(Timestamp::parse)
    .or_else(|| text(e, "/metadata/creationTimestamp").and_then(Timestamp::parse))
}

/// `PREFIX "IMAGE"REST` → (IMAGE, REST).
fn quoted_after<'a>(message: &'a str, prefix: &str) -> Option<(&'a str, &'a str)> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('"')?;
    rest.split_once('"')
}

fn ours(expected: &Expected, image: &str) -> bool {
    super::replay::matches_image(expected, image)
}

fn record(e: &Value, expected: &Expected) -> Option<PullRecord> {
    let message = text(e, "/message").or_else(|| text(e, "/note"))?;
    let (image, outcome, error) = match text(e, "/reason")? {
        "Failed" => {
            let (image, rest) = quoted_after(message, "Failed to pull image ")?;
            (
                image,
                Outcome::Failed,
                rest.strip_prefix(": ").unwrap_or(rest),
            )
        }
        "Pulled" => {
            let (image, _) = quoted_after(message, "Successfully pulled image ")?;
            (image, Outcome::Pulled, "")
        }
        _ => return None,
    };
    if !ours(expected, image) {
        return None;
    }
    let candidate = expected
        .candidates
        .iter()
        .find(|c| c.reference == image)
        .or(expected.candidates.first());
    let mut attempt = Attempt {
        candidate: candidate.map_or(image, |c| &c.reference).to_string(),
        tried: Vec::new(),
        served_by: None,
        outcome,
        verdict: Verdict::Undetermined,
        divergence: None,
        errors: source_failures(error),
        oci_artifact: false,
        note: None,
    };
    if let (Outcome::Failed, Some(c), true) = (outcome, candidate, attempt.errors.is_empty()) {
        // Without mirrors the error is the only source's.
        if let [only] = c.sources.as_slice() {
            attempt.errors.push(SourceFailure {
                reference: only.reference.clone(),
                error: error.to_string(),
            });
        }
    }
    match (outcome, candidate) {
        (Outcome::Failed, Some(c)) if !attempt.errors.is_empty() => {
            attempt.tried = attempt.errors.iter().map(|f| f.reference.clone()).collect();
            judge(&mut attempt, &c.sources);
        }
        (Outcome::Failed, _) => {
            attempt.note = Some(format!(
                "the error names no source (no `(Mirrors also failed: …)` part): {error}"
            ));
        }
        _ => attempt.note = Some(NO_SOURCE.to_string()),
    }
    Some(PullRecord {
        time: time_of(e)?,
        node: text(e, "/source/host")
            .or_else(|| text(e, "/reportingInstance"))
            .unwrap_or_default()
            .to_string(),
        pool: None,
        image: image.to_string(),
        id: None,
        read_from: ReadFrom::Events,
        outcome,
        result: None,
        short_name: None,
        shared_with: None,
        pulls: vec![attempt],
    })
}
