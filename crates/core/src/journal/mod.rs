//! What CRI-O did: a node's pull log (`oc adm node-logs NODE -u crio`)
//! replayed against the explanation of an image.
//!
//! `line` reads the journal's lines (journald's prefix, logrus' fields, the
//! pull messages of CRI-O and containers/image), `time` logrus' two time
//! formats, `replay` matches the lines to the image's pulls, `verdict`
//! judges each against the expected source order. Reading the log from a
//! file or a node is the caller's.

pub mod events;
pub mod fleet;
pub mod line;
pub mod pool;
pub mod record;
pub mod replay;
pub mod time;
pub mod verdict;

#[cfg(test)]
mod tests;

pub use line::{parse_line, Line};
pub use record::{Expected, ExpectedCandidate, ExpectedSource, PullRecord, Verdict};
pub use replay::replay;
pub use time::Timestamp;

/// Why a journal cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{name}: line {line} is not journal output (`oc adm node-logs NODE -u crio`, journalctl's short-precise format): {text:?}")]
    NotJournal {
        name: String,
        line: usize,
        text: String,
    },
}

/// The pull lines of a journal's text. Lines of other messages and
/// programs are left out; a text none of whose lines has journald's prefix
/// is not a journal (the first line is named).
pub fn read(name: &str, text: &str) -> Result<Vec<Line>, JournalError> {
    let mut any_journal = false;
    let mut first_other: Option<(usize, &str)> = None;
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() || l.starts_with("-- ") {
            continue;
        }
        if line::is_journal_line(l) {
            any_journal = true;
            out.extend(parse_line(l));
        } else if first_other.is_none() {
            first_other = Some((i + 1, l));
        }
    }
    match first_other {
        Some((line, text)) if !any_journal => Err(JournalError::NotJournal {
            name: name.to_string(),
            line,
            text: text.chars().take(120).collect(),
        }),
        _ => Ok(out),
    }
}

/// The time of the journal's last line of any kind that has logrus' `time=`
/// field (to tell whether an answer was cut short).
pub fn last_time(lines: &[Line]) -> Option<Timestamp> {
    lines.iter().map(|l| l.time).max()
}

/// A window of time: from, and up to when given (both included).
pub type Bounds = (Timestamp, Option<Timestamp>);

/// Whether `time` is in `bounds`.
pub fn in_bounds(time: Timestamp, (since, until): Bounds) -> bool {
    time >= since && until.is_none_or(|u| time <= u)
}

/// The pulls whose `Pulling image` line is in `bounds` (all without one).
/// A pull that began in the window keeps its lines after it; one that
/// began before it is left out whole.
pub fn within(records: Vec<PullRecord>, bounds: Option<Bounds>) -> Vec<PullRecord> {
    match bounds {
        Some(b) => records
            .into_iter()
            .filter(|r| in_bounds(r.time, b))
            .collect(),
        None => records,
    }
}
