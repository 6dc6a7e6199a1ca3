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
pub use record::{Expected, ExpectedCandidate, ExpectedSource, PullRecord, ReadFrom, Verdict};
pub use replay::{replay, Replay};
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
    let mut reader = Reader::new(name);
    let mut out = Vec::new();
    for l in text.lines() {
        if let Read::Pull(line) = reader.line(l) {
            out.push(line);
        }
    }
    reader.finish()?;
    Ok(out)
}

/// Reads a journal line by line as it streams, keeping nothing but whether
/// it is a journal at all (see [`read`]).
#[derive(Debug)]
pub struct Reader {
    name: String,
    line: usize,
    any_journal: bool,
    first_other: Option<(usize, String)>,
}

/// What one line of a journal is.
#[derive(Debug)]
pub enum Read<'a> {
    /// A CRI-O pull message.
    Pull(Line),
    /// Another line of a node's journal (its host column).
    Other(&'a str),
    /// Not a journal line (journald's `-- Boot …`, a blank line, or text
    /// without journald's prefix).
    Skip,
}

impl Reader {
    /// A reader of the journal called `name` in messages.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            line: 0,
            any_journal: false,
            first_other: None,
        }
    }

    /// Reads the next line. Only until the first journal line is found is
    /// every line matched against journald's prefix (to tell a text that is
    /// no journal); after it, a line that is no pull message is only split
    /// for its host column.
    pub fn line<'a>(&mut self, l: &'a str) -> Read<'a> {
        self.line += 1;
        if l.trim().is_empty() || l.starts_with("-- ") {
            return Read::Skip;
        }
        if let Some(pull) = parse_line(l) {
            self.any_journal = true;
            return Read::Pull(pull);
        }
        if self.any_journal {
            return line::host_of(l).map_or(Read::Skip, Read::Other);
        }
        if line::is_journal_line(l) {
            self.any_journal = true;
            return line::host_of(l).map_or(Read::Skip, Read::Other);
        }
        if self.first_other.is_none() {
            self.first_other = Some((self.line, l.chars().take(120).collect()));
        }
        Read::Skip
    }

    /// Ends the read: an error when lines were read and none was a journal's.
    pub fn finish(self) -> Result<(), JournalError> {
        match self.first_other {
            Some((line, text)) if !self.any_journal => Err(JournalError::NotJournal {
                name: self.name,
                line,
                text,
            }),
            _ => Ok(()),
        }
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
