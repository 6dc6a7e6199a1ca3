//! One line of CRI-O's journal, as `oc adm node-logs NODE -u crio` prints it:
//! journald's `short-precise` prefix (`Mon DD HH:MM:SS.uuuuuu host crio[pid]: `,
//! UTC, no year), then logrus' text format (`time="…" level=info msg="…"
//! id=… name=…`, a value bare when it is made of `[a-zA-Z0-9-._/@^+]`, else
//! Go `%q`-quoted). The messages that tell a pull are read into [`Event`]s;
//! every other line is left out. Matching events to pulls is `replay`'s.

use std::sync::LazyLock;

use regex::Regex;

use super::time::Timestamp;

/// One CRI-O log line that tells something about a pull.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The journald host column: the node's host name.
    pub host: String,
    /// logrus' `time=` field.
    pub time: Timestamp,
    /// logrus' `level=` field (`info`, `debug`, ...).
    pub level: String,
    /// CRI-O's request id (`id=`), absent on lines containers/image logs.
    pub id: Option<String>,
    pub event: Event,
}

/// What a line says, from the exact messages CRI-O and containers/image log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// CRI-O `PullImage`: `Pulling image: %s` (the image as the kubelet asked for it).
    Pulling { image: String },
    /// containers/image, once per pull source in order: `Trying to access %q`.
    Trying { reference: String },
    /// containers/image (debug): `Accessing %q failed: %v`.
    AccessFailed { reference: String, error: String },
    /// CRI-O `PullImage` on success: `Pulled image: %s` (`name@digest` up to
    /// CRI-O 1.34, an image ID from 1.35).
    Pulled { result: String },
    /// CRI-O (debug), for one candidate: `Error pulling image %s: %v`.
    PullError { candidate: String, error: String },
    /// CRI-O 1.35.1+, at info: `Falling back to pull %s as an OCI artifact: %v`,
    /// with the image pull's full error.
    ArtifactFallback { candidate: String, error: String },
    /// containers/image short names: `Resolved %q as an alias (%s)`,
    /// `Resolving %q using unqualified-search registries (%s)`, `Resolving
    /// %q to docker.io (%s)`.
    ShortName { input: String, how: String },
}

/// The journald `short-precise` prefix: month, day, time, host, identifier, pid.
static JOURNALD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d(?:\.\d+)? (\S+) [^\s\[:]+(?:\[\d+\])?: (.*)$",
    )
    .expect("journald prefix pattern")
});

/// Reads the rest of a message, after its opening words, into an event.
type ReadMessage = fn(&str) -> Option<Event>;

/// The messages [`parse_message`] reads: the words each opens with (as they
/// open logrus' quoted `msg=`, which [`may_be_pull`] looks for) and how the
/// rest is read. No message opens with two of them.
const MESSAGES: [(&str, ReadMessage); 8] = [
    ("Pulling image: ", |image| {
        Some(Event::Pulling {
            image: image.to_string(),
        })
    }),
    ("Pulled image: ", |result| {
        Some(Event::Pulled {
            result: result.to_string(),
        })
    }),
    ("Trying to access ", |rest| {
        let (reference, tail) = go_unquote_prefix(rest)?;
        tail.is_empty().then_some(Event::Trying { reference })
    }),
    ("Accessing ", |rest| {
        let (reference, tail) = go_unquote_prefix(rest)?;
        let error = tail.strip_prefix(" failed: ")?.to_string();
        Some(Event::AccessFailed { reference, error })
    }),
    ("Error pulling image ", |rest| {
        let (candidate, error) = rest.split_once(": ")?;
        Some(Event::PullError {
            candidate: candidate.to_string(),
            error: error.to_string(),
        })
    }),
    ("Falling back to pull ", |rest| {
        let (candidate, error) = rest.split_once(" as an OCI artifact: ")?;
        Some(Event::ArtifactFallback {
            candidate: candidate.to_string(),
            error: error.to_string(),
        })
    }),
    ("Resolved ", |rest| {
        short_name(rest, "Resolved", &[" as an alias ("])
    }),
    ("Resolving ", |rest| {
        short_name(
            rest,
            "Resolving",
            &[" using unqualified-search registries (", " to docker.io ("],
        )
    }),
];

/// Whether the line may be a pull message: its `msg="` opens with one of
/// them. A cheap test that leaves most of a journal's lines (other
/// messages, other programs) before any pattern runs.
pub fn may_be_pull(text: &str) -> bool {
    let finder = MSG.get_or_init(|| memchr::memmem::Finder::new(b" msg=\"").into_owned());
    let bytes = text.as_bytes();
    finder.find_iter(bytes).any(|at| {
        let rest = &bytes[at + 6..];
        MESSAGES
            .iter()
            .any(|(words, _)| rest.starts_with(words.as_bytes()))
    })
}

static MSG: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();

/// The host column of a line with journald's `short-precise` prefix
/// (`Mon DD HH:MM:SS.uuuuuu host …`), without running the full pattern.
pub fn host_of(text: &str) -> Option<&str> {
    // The day may be padded (`May  1`): skip the month, then fields.
    let rest = text.get(4..)?.trim_start_matches(' ');
    let mut fields = rest.splitn(3, ' ');
    let (_day, _time) = (fields.next()?, fields.next()?);
    fields.next()?.split(' ').next().filter(|h| !h.is_empty())
}

/// Parses one line of `oc adm node-logs` output. `None` for a line that is
/// not a CRI-O pull message (other messages, journald's `-- Boot …` lines,
/// lines of other programs).
pub fn parse_line(text: &str) -> Option<Line> {
    if !may_be_pull(text) {
        return None;
    }
    let caps = JOURNALD.captures(text.trim_end_matches('\r'))?;
    let host = caps.get(1)?.as_str().to_string();
    let fields = parse_logfmt(caps.get(2)?.as_str())?;
    let field = |k: &str| fields.iter().find(|(key, _)| key == k).map(|(_, v)| v);
    let time = Timestamp::parse(field("time")?)?;
    let level = field("level")?.clone();
    let event = parse_message(field("msg")?)?;
    Some(Line {
        host,
        time,
        level,
        id: field("id").cloned(),
        event,
    })
}

/// Whether the line has journald's prefix (a CRI-O line or any other).
pub fn is_journal_line(text: &str) -> bool {
    JOURNALD.is_match(text.trim_end_matches('\r'))
}

/// Reads the message of a line into an event.
pub fn parse_message(msg: &str) -> Option<Event> {
    MESSAGES
        .iter()
        .find_map(|(words, read)| read(msg.strip_prefix(words)?))
}

/// A short-name message of `verb`: the quoted name, then one of `tails`
/// (`how` is the verb and that tail on).
fn short_name(rest: &str, verb: &str, tails: &[&str]) -> Option<Event> {
    let (input, tail) = go_unquote_prefix(rest)?;
    if !tails.iter().any(|t| tail.starts_with(t)) {
        return None;
    }
    Some(Event::ShortName {
        input,
        how: format!("{verb} {}", tail.trim_start()),
    })
}

/// A mirror's failure inside an image pull's error, as containers/image
/// joins them when every source failed:
/// `(Mirrors also failed: [REF: ERR]\n[REF: ERR]): SOURCE-REF: ERR`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourceFailure {
    pub reference: String,
    pub error: String,
}

/// Splits a pull error into each source's failure: the mirrors' (from the
/// `(Mirrors also failed: …)` part) then the last source's. An error without
/// that part names no source and gives nothing.
pub fn source_failures(error: &str) -> Vec<SourceFailure> {
    const OPEN: &str = "(Mirrors also failed: ";
    let Some(start) = error.find(OPEN) else {
        return Vec::new();
    };
    let inner = &error[start + OPEN.len()..];
    let Some(end) = inner.rfind("]): ") else {
        return Vec::new();
    };
    let mut out: Vec<SourceFailure> = inner[..end + 1]
        .split("]\n[")
        .filter_map(|item| {
            let item = item.strip_prefix('[').unwrap_or(item);
            let item = item.strip_suffix(']').unwrap_or(item);
            let (reference, error) = item.split_once(": ")?;
            Some(SourceFailure {
                reference: reference.to_string(),
                error: error.to_string(),
            })
        })
        .collect();
    if let Some((reference, error)) = inner[end + 4..].split_once(": ") {
        out.push(SourceFailure {
            reference: reference.to_string(),
            error: error.to_string(),
        });
    }
    out
}

/// Splits logrus' text format into its fields, each value unquoted. `None`
/// when the text is not logfmt (a value quoted but never closed).
pub fn parse_logfmt(text: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let eq = rest.find('=')?;
        let key = &rest[..eq];
        if key.is_empty() || key.contains(' ') {
            return None;
        }
        let after = &rest[eq + 1..];
        let (value, tail) = if after.starts_with('"') {
            go_unquote_prefix(after)?
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        out.push((key.to_string(), value));
        rest = tail.trim_start();
    }
    Some(out)
}

/// Reads a Go `%q` string at the start of `text` (a double-quoted string
/// with Go's escapes), returning it unquoted and the text after it.
pub fn go_unquote_prefix(text: &str) -> Option<(String, &str)> {
    let body = text.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'a' => out.push('\x07'),
                    'b' => out.push('\x08'),
                    'f' => out.push('\x0c'),
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    'v' => out.push('\x0b'),
                    '\\' | '"' | '\'' => out.push(e),
                    'x' | 'u' | 'U' => {
                        let n = match e {
                            'x' => 2,
                            'u' => 4,
                            _ => 8,
                        };
                        let hex: String =
                            (0..n).filter_map(|_| chars.next().map(|p| p.1)).collect();
                        let v = u32::from_str_radix(&hex, 16).ok()?;
                        // Go's %q writes a byte that is not UTF-8 as \xHH: kept as U+FFFD.
                        out.push(
                            char::from_u32(v)
                                .filter(|_| e != 'x' || v < 0x80)
                                .unwrap_or('\u{fffd}'),
                        );
                    }
                    '0'..='7' => {
                        let oct: String = std::iter::once(e)
                            .chain((0..2).filter_map(|_| chars.next().map(|p| p.1)))
                            .collect();
                        let v = u32::from_str_radix(&oct, 8).ok()?;
                        out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                    }
                    _ => return None,
                }
            }
            c => out.push(c),
        }
    }
    None
}
