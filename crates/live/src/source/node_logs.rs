//! A node's CRI-O journal through the API server's node proxy, as `oc adm
//! node-logs NODE -u crio` reads it: `GET /api/v1/nodes/NODE/proxy/logs/journal`
//! with the kubelet's log-query parameters (served from OpenShift 4.14, where
//! the MCO sets `enableSystemLogQuery: true`), and `/proxy/logs/?query=crio`
//! when the kubelet answers 406. Needs `get nodes/proxy`, which is
//! effectively exec on the node.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::api::{ClusterError, Connection, EVENTS};
use super::journal_text::{Budget, Decoder, LongLines, TextError};
use crate::journal::Timestamp;

/// The messages a pull logs: the query's `pattern`/`grep` (journalctl
/// `--grep`, a PCRE2 pattern), so that the kubelet's 30-second journalctl
/// has less to read.
pub const PATTERN: &str =
    "Pulling image|Trying to access|Pulled image|Falling back to pull|Resolv|Accessing|Error pulling image";

/// How long the kubelet lets journalctl run before it kills it (and the
/// answer ends there, without a word).
pub const KUBELET_LIMIT: Duration = Duration::from_secs(30);

/// The time window of the query, as journalctl takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// `-2h` (relative) or `YYYY-MM-DD HH:MM:SS` (UTC).
    pub since: String,
    pub until: Option<String>,
}

impl Window {
    /// The window as instants: `since` (relative to `now`, or a UTC time)
    /// and `until` when given.
    pub fn bounds(&self, now: Timestamp) -> (Timestamp, Option<Timestamp>) {
        let at = |when: &str| match relative_secs(when) {
            Some(secs) => Timestamp::from_unix_secs(now.unix_secs() - secs),
            None => Timestamp::parse(&format!("{when}Z")).unwrap_or(now),
        };
        // `--until` names a second: every time within it is in the window.
        let end_of = |when: &str| Timestamp(at(when).0 + 999_999_999);
        (at(&self.since), self.until.as_deref().map(end_of))
    }
}

/// Every event of the cluster (`list events` in all namespaces): the pull
/// events are the stand-in for a log that cannot be read.
pub async fn read_events(connection: &Connection) -> Result<Vec<serde_json::Value>, ClusterError> {
    Ok(connection
        .list_objects(&EVENTS, None, None)
        .await?
        .unwrap_or_default())
}

/// Reads `--since`/`--until`: a duration (`90s`, `30m`, `2h`, `1d`, with or
/// without a leading `-`) or `YYYY-MM-DD HH:MM:SS` in UTC.
pub fn parse_when(text: &str) -> Result<String, String> {
    let t = text.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    let unit_ok = digits
        .strip_suffix(['s', 'm', 'h', 'd'])
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if unit_ok {
        return Ok(format!("-{digits}"));
    }
    if t.len() == 19 && t.as_bytes()[10] == b' ' && Timestamp::parse(&format!("{t}Z")).is_some() {
        return Ok(t.to_string());
    }
    Err(format!(
        "\"{text}\" is neither a duration (2h, 30m, 90s, 1d) nor a time YYYY-MM-DD HH:MM:SS (UTC)"
    ))
}

/// The seconds a relative `-Nu` stands for.
fn relative_secs(when: &str) -> Option<i64> {
    let d = when.strip_prefix('-')?;
    let (n, unit) = d.split_at(d.len() - 1);
    let n: i64 = n.parse().ok()?;
    Some(match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => n * 86_400,
    })
}

/// What the node answered.
#[derive(Debug)]
pub struct NodeLog {
    pub text: String,
    /// The lines longer than the line cap, left out of `text`.
    pub long_lines: Option<LongLines>,
    /// The time the answer took (the kubelet stops journalctl at 30s).
    pub elapsed: Duration,
    /// The path that answered.
    pub path: String,
    /// The end of the window the answering query could not carry (the 406
    /// fallback has no end time): the reader applies it to the pulls.
    pub until_unapplied: Option<Timestamp>,
    /// The query mode's answer holds the pull lines only: whether the unit
    /// logged a line after the last of them (its last line in the window is
    /// another), which tells a walk's silence is its end (see
    /// [`Replay::other`](crate::journal::Replay::other)). The fallback's
    /// answer holds every line: false.
    pub logged_after: bool,
}

/// Why the log was not read.
#[derive(Debug, thiserror::Error)]
pub enum NodeLogError {
    #[error("reading node {node}'s CRI-O log is forbidden: it needs `get nodes/proxy` (rule {{apiGroups: [\"\"], resources: [\"nodes/proxy\"], verbs: [\"get\"]}}), which is effectively exec on the node (server: {message})")]
    Forbidden { node: String, message: String },
    #[error("node {node}: the kubelet serves no log query ({detail})")]
    NoLogQuery { node: String, detail: String },
    #[error("node {node}: the CRI-O log answer is not gzip ({detail})")]
    Gzip { node: String, detail: String },
    #[error("{0}; narrow --since/--until")]
    TooLarge(TextError),
    #[error("node {node}: the CRI-O log answer is HTTP {status}: {detail}")]
    Status {
        node: String,
        status: u16,
        detail: String,
    },
    #[error(transparent)]
    Cluster(#[from] ClusterError),
}

/// What a query value or path segment keeps as is (RFC 3986 unreserved).
const KEEP: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

fn encode(v: &str) -> String {
    utf8_percent_encode(v, KEEP).to_string()
}

/// The query-mode path, with the parameters `oc adm node-logs` sends.
pub fn journal_path(node: &str, window: &Window) -> String {
    let mut q = format!(
        "unit=crio&query=crio&since={}&pattern={p}&grep={p}&case-sensitive=true",
        encode(&window.since),
        p = encode(PATTERN)
    );
    if let Some(until) = &window.until {
        q += &format!("&until={}", encode(until));
    }
    format!("/api/v1/nodes/{}/proxy/logs/journal?{q}", encode(node))
}

/// The query for the last line of the CRI-O unit in the window, whatever it
/// says (no `pattern`): `tailLines=1` (journalctl `-n 1`; `tail` too, as
/// `oc adm node-logs --tail` sends both). The pull lines alone cannot tell
/// whether the node logged anything after a pull's last line, which decides
/// a walk that ended at a blocked source (see [`read_crio`]).
pub fn last_line_path(node: &str, window: &Window) -> String {
    let mut q = format!(
        "unit=crio&query=crio&since={}&tail=1&tailLines=1",
        encode(&window.since)
    );
    if let Some(until) = &window.until {
        q += &format!("&until={}", encode(until));
    }
    format!("/api/v1/nodes/{}/proxy/logs/journal?{q}", encode(node))
}

/// The path for a kubelet that answers 406 to the query mode: `sinceTime`
/// as RFC3339, computed from `now` for a relative window.
pub fn fallback_path(node: &str, window: &Window, now: Timestamp) -> String {
    let (since, _) = window.bounds(now);
    format!(
        "/api/v1/nodes/{}/proxy/logs/?query=crio&sinceTime={}",
        encode(node),
        encode(&since.to_string())
    )
}

/// The most of an answer other than the log (an error's body) that is read.
const ERROR_BODY_CAP: usize = 64 << 10;

/// What one request answered: the log's text through the bounded reader
/// on a 2xx, else the start of the error's body.
enum Answer {
    Log(Result<super::journal_text::Text, TextError>),
    Error(Vec<u8>),
}

/// Sends the query at `path` and reads its answer as it comes: a 2xx's body
/// (gunzipped as `Content-Encoding` says) into the bounded reader charged
/// to `budget`, which ends the read at its caps.
async fn fetch(
    connection: &Connection,
    path: &str,
    name: &str,
    budget: &Budget,
) -> Result<(http::StatusCode, Answer), ClusterError> {
    let mut decoder: Option<Decoder> = None;
    let mut failed: Option<TextError> = None;
    let mut error_body = Vec::new();
    let mut sink = |status: http::StatusCode, headers: &http::HeaderMap, data: &[u8]| {
        if !status.is_success() {
            let room = ERROR_BODY_CAP - error_body.len();
            error_body.extend_from_slice(&data[..data.len().min(room)]);
            return match error_body.len() < ERROR_BODY_CAP {
                true => ControlFlow::Continue(()),
                false => ControlFlow::Break(()),
            };
        }
        let d = decoder.get_or_insert_with(|| Decoder::new(name, budget, is_gzip(headers)));
        match d.push(data) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                failed = Some(e);
                ControlFlow::Break(())
            }
        }
    };
    let (status, headers) = connection.send_streamed(get(path), &mut sink).await?;
    if !status.is_success() {
        return Ok((status, Answer::Error(error_body)));
    }
    let text = match failed {
        Some(e) => Err(e),
        None => decoder
            .unwrap_or_else(|| Decoder::new(name, budget, is_gzip(&headers)))
            .finish(),
    };
    Ok((status, Answer::Log(text)))
}

fn is_gzip(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"))
}

/// The server's message in an error's body: its `Status` message, else the
/// body itself.
fn message_of(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("message")?.as_str().map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string())
}

/// Reads the node's CRI-O log in the window, its text charged to `budget`
/// (see [`super::journal_text`]): an answer over the caps is an error
/// naming the node, a line over the line cap is left out and counted.
pub async fn read_crio(
    connection: &Connection,
    node: &str,
    window: &Window,
    now: Timestamp,
    budget: &Budget,
) -> Result<NodeLog, NodeLogError> {
    let started = Instant::now();
    let name = format!("node {node}'s CRI-O log answer");
    let path = journal_path(node, window);
    let (status, answer) = fetch(connection, &path, &name, budget).await?;
    // The kubelet's log query answers only when it takes the query's
    // parameters; its 406 sends us to the plain journal file read instead.
    let query_mode = status != http::StatusCode::NOT_ACCEPTABLE;
    let (status, answer, path, until_unapplied) = if query_mode {
        (status, answer, path, None)
    } else {
        let path = fallback_path(node, window, now);
        let (status, answer) = fetch(connection, &path, &name, budget).await?;
        (status, answer, path, window.bounds(now).1)
    };
    let elapsed = started.elapsed();
    let body = match answer {
        Answer::Log(Ok(text)) => {
            let logged_after = query_mode
                && !was_cut(elapsed)
                && last_line(connection, node, window, budget)
                    .await
                    .is_some_and(|last| logged_after(&text.text, &last));
            return Ok(NodeLog {
                text: text.text,
                long_lines: text.long_lines,
                elapsed,
                path,
                until_unapplied,
                logged_after,
            });
        }
        Answer::Log(Err(TextError::Gzip { detail, .. })) => {
            return Err(NodeLogError::Gzip {
                node: node.to_string(),
                detail,
            })
        }
        Answer::Log(Err(e)) => return Err(NodeLogError::TooLarge(e)),
        Answer::Error(body) => body,
    };
    if status == http::StatusCode::FORBIDDEN {
        return Err(NodeLogError::Forbidden {
            node: node.to_string(),
            message: message_of(&body),
        });
    }
    if status == http::StatusCode::NOT_ACCEPTABLE {
        return Err(NodeLogError::NoLogQuery {
            node: node.to_string(),
            detail: String::from_utf8_lossy(&body).trim().to_string(),
        });
    }
    connection.reply(status, &body, &path)?;
    Err(NodeLogError::Status {
        node: node.to_string(),
        status: status.as_u16(),
        detail: message_of(&body),
    })
}

/// The last line of the node's CRI-O unit in the window ([`last_line_path`]),
/// or `None` when it could not be read (then a silence after a pull stays
/// undetermined, as before).
async fn last_line(
    connection: &Connection,
    node: &str,
    window: &Window,
    budget: &Budget,
) -> Option<String> {
    let name = format!("node {node}'s last CRI-O log line");
    let path = last_line_path(node, window);
    match fetch(connection, &path, &name, budget).await {
        Ok((status, Answer::Log(Ok(text)))) if status.is_success() => text
            .text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(str::to_string),
        _ => None,
    }
}

/// Whether `last` (the unit's last line) comes after the pull lines in
/// `text`: it is not their last line.
fn logged_after(text: &str, last: &str) -> bool {
    text.lines().rev().find(|l| !l.trim().is_empty()) != Some(last)
}

/// Reads the CRI-O log of each node of `nodes`, `concurrency` at a time;
/// the answers in the order of `nodes`.
pub async fn read_many(
    connection: &Connection,
    nodes: &[String],
    window: &Window,
    now: Timestamp,
    concurrency: usize,
) -> Vec<Result<NodeLog, NodeLogError>> {
    use futures_util::stream::{self, StreamExt};
    // One budget for every node: their answers are all held until judged.
    let budget = Budget::default();
    let budget = &budget;
    stream::iter(
        nodes
            .iter()
            .map(|n| read_crio(connection, n, window, now, budget)),
    )
    .buffered(concurrency.max(1))
    .collect()
    .await
}

fn get(path: &str) -> http::Request<Vec<u8>> {
    let mut request = http::Request::new(Vec::new());
    *request.uri_mut() = path.parse().unwrap_or_default();
    request.headers_mut().insert(
        http::header::ACCEPT_ENCODING,
        http::HeaderValue::from_static("gzip"),
    );
    request
}

/// Whether the answer was cut by the kubelet's 30-second limit: it took
/// that long (journalctl was killed and the output ends where it was).
pub fn was_cut(elapsed: Duration) -> bool {
    elapsed + Duration::from_millis(500) >= KUBELET_LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_24_until_takes_in_its_whole_second() {
        let w = Window {
            since: "2024-05-02 10:00:00".to_string(),
            until: Some("2024-05-02 10:00:29".to_string()),
        };
        let (since, until) = w.bounds(Timestamp::from_unix_secs(2_000_000_000));
        let at = |s: &str| Timestamp::parse(s).unwrap();
        let in_window = |t: Timestamp| t >= since && until.is_none_or(|u| t <= u);
        assert!(in_window(at("2024-05-02T10:00:29.250000000Z")));
        assert!(in_window(at("2024-05-02T10:00:00Z")));
        assert!(!in_window(at("2024-05-02T10:00:30Z")));
        assert!(!in_window(at("2024-05-02T09:59:59.999999999Z")));
    }

    #[test]
    fn when_forms() {
        for (input, want) in [
            ("2h", Ok("-2h")),
            ("-1h", Ok("-1h")),
            ("90s", Ok("-90s")),
            ("2024-05-01 10:00:00", Ok("2024-05-01 10:00:00")),
            ("2h30m", Err(())),
            ("yesterday", Err(())),
            ("2024-05-01T10:00:00", Err(())),
            ("h", Err(())),
        ] {
            assert_eq!(
                parse_when(input).map_err(|_| ()),
                want.map(str::to_string),
                "{input}"
            );
        }
    }

    #[test]
    fn query_parameters_as_oc_sends_them() {
        let w = Window {
            since: "-2h".into(),
            until: Some("2024-05-01 10:00:00".into()),
        };
        let p = journal_path("worker-0", &w);
        assert!(
            p.starts_with(
                "/api/v1/nodes/worker-0/proxy/logs/journal?unit=crio&query=crio&since=-2h&pattern="
            ),
            "{p}"
        );
        assert!(
            p.contains("&case-sensitive=true&until=2024-05-01%2010%3A00%3A00"),
            "{p}"
        );
        assert!(!p.contains("sinceTime") && !p.contains("untilTime"), "{p}");
        let now = Timestamp::parse("2024-05-01T12:00:00Z").unwrap();
        let f = fallback_path("worker-0", &w, now);
        assert_eq!(
            f,
            "/api/v1/nodes/worker-0/proxy/logs/?query=crio&sinceTime=2024-05-01T10%3A00%3A00Z"
        );
    }

    #[test]
    fn a_last_line_other_than_the_last_pull_line_is_logged_after() {
        let pulls = "a Pulling image\nb Trying to access\n";
        assert!(!logged_after(pulls, "b Trying to access"));
        assert!(logged_after(pulls, "c Checking image status"));
        assert!(logged_after("", "c Created container"));
        let p = last_line_path(
            "worker-0",
            &Window {
                since: "-2h".into(),
                until: None,
            },
        );
        assert_eq!(
            p,
            "/api/v1/nodes/worker-0/proxy/logs/journal?unit=crio&query=crio&since=-2h&tail=1&tailLines=1"
        );
    }

    #[test]
    fn cut_at_the_kubelet_limit() {
        assert!(!was_cut(Duration::from_secs(3)));
        assert!(was_cut(Duration::from_millis(29_600)));
        assert!(was_cut(Duration::from_secs(31)));
    }
}
