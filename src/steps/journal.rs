//! `--journal-file`, `--journal`: a node's CRI-O pull log (a file, a
//! must-gather's journal files, or read live, with the pull events as the
//! stand-in when the log is forbidden) replayed against each explanation,
//! and the exit code the verdicts call for.

use std::path::{Path, PathBuf};

use anyhow::Result;

use mirrorpolicy::explain::Explanation;
use mirrorpolicy::journal::{self, Line, PullRecord, Verdict};

use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::inputs;
use mirrorpolicy::source::api as live;
use mirrorpolicy::source::journal_files;
use mirrorpolicy::source::journal_text::{self, Budget};
use mirrorpolicy::source::node_logs::{self, NodeLogError, Window};

/// Which pull log `explain` replays, resolved from its flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct JournalPlan<'a> {
    /// `--journal-file`.
    pub file: Option<&'a Path>,
    /// `--journal`: the must-gather's journal files, or the node's live.
    pub journal: bool,
    /// The `-f` paths (a must-gather with `--journal`).
    pub must_gather: &'a [PathBuf],
    /// `--node`.
    pub node: Option<&'a str>,
    /// `--since`, `--until`.
    pub since: Option<&'a str>,
    pub until: Option<&'a str>,
}

/// Reads `--journal-file`, the `-f` must-gather's journal files with
/// `--journal`, or with `--journal --node` the node's log live, and adds
/// each image's pulls to its explanation. Exit 1 when a pull diverges, else
/// 3 when one cannot be judged (the log ends before it does) or the answer
/// was cut, else the explanation's code.
pub fn attach(
    settings: &Settings,
    plan: &JournalPlan<'_>,
    items: &mut [Explanation],
    code: ExitCode,
) -> Result<ExitCode> {
    let files = match (plan.file, plan.journal) {
        (Some(path), _) => Files::One(path),
        (None, true) if !plan.must_gather.is_empty() => Files::MustGather(plan.must_gather),
        (None, true) => {
            let Some(node) = plan.node else {
                return Err(Failure::input(
                    "--journal needs --node NODE (the node whose log is read live) or -f MUST_GATHER (its journal files)",
                )
                .into());
            };
            return attach_live(settings, plan, node, items, code);
        }
        (None, false) => return Ok(code),
    };
    let bounds = file_window(plan.since, plan.until)?;
    let mut replay = journal::Replay::new();
    for item in items.iter() {
        replay.add(item.expected());
    }
    let is_node = |h: &str| plan.node.is_none_or(|n| journal::pool::host_is(h, n));
    let mut hosts: Vec<String> = Vec::new();
    let (name, skipped) = stream_files(settings, files, &mut |read| match read {
        journal::Read::Pull(line) => {
            if !hosts.contains(&line.host) {
                hosts.push(line.host.clone());
            }
            if is_node(&line.host) {
                replay.push(&line);
            }
        }
        journal::Read::Other(host) if is_node(host) => replay.other(host),
        _ => {}
    })?;
    if let Some(node) = plan.node {
        no_line_of(&name, node, hosts)?;
    }
    for (item, records) in items.iter_mut().zip(replay.finish()) {
        item.journal = Some(journal::within(records, bounds));
        item.warnings.extend(skipped.iter().cloned());
    }
    let records: Vec<&PullRecord> = items
        .iter()
        .flat_map(|i| i.journal.iter().flatten())
        .collect();
    Ok(journal_code(&records, code))
}

/// An input error when the log's pull lines are of other hosts than `node`.
pub fn no_line_of(name: &str, node: &str, mut hosts: Vec<String>) -> Result<()> {
    if hosts.is_empty() || hosts.iter().any(|h| journal::pool::host_is(h, node)) {
        return Ok(());
    }
    hosts.sort();
    Err(Failure::input(format!(
        "journal file \"{name}\" has no line of node {node} (hosts: {})",
        hosts.join(", ")
    ))
    .into())
}

/// The journal files a command reads: `--journal-file` (a file, or a
/// must-gather folder), or the must-gather folders of `-f` with `--journal`.
#[derive(Debug, Clone, Copy)]
pub enum Files<'a> {
    One(&'a Path),
    MustGather(&'a [PathBuf]),
}

/// Streams every line of the journal files through the journal reader
/// into `each`, one file after the other, keeping no text: returns what
/// the files are called together, and the warnings about lines too long to
/// keep (each said on stderr as it is read). A file none of whose lines is
/// a journal's is an input error naming it.
pub fn stream_files(
    settings: &Settings,
    files: Files<'_>,
    each: &mut (dyn FnMut(journal::Read<'_>) + Send),
) -> Result<(String, Vec<String>)> {
    let (name, paths) = match files {
        Files::One(path) if path.is_dir() => {
            must_gather_files(std::slice::from_ref(&path.to_path_buf()))?
        }
        Files::One(path) => (path.display().to_string(), vec![path.to_path_buf()]),
        Files::MustGather(paths) => must_gather_files(paths)?,
    };
    let mut warnings = Vec::new();
    for path in &paths {
        warnings.extend(stream_file(settings, path, each)?);
    }
    Ok((name, warnings))
}

/// One journal file through the line-capped stream: a long line is skipped
/// with a warning (returned and said on stderr).
fn stream_file(
    settings: &Settings,
    path: &Path,
    each: &mut (dyn FnMut(journal::Read<'_>) + Send),
) -> Result<Option<String>> {
    let name = format!("journal file \"{}\"", path.display());
    let mut reader = journal::Reader::new(&path.display().to_string());
    let long = journal_files::stream(path, &name, |l| each(reader.line(l)))
        .map_err(|e| Failure::input(e.to_string()))?;
    reader.finish().map_err(|e| Failure::input(e.to_string()))?;
    let warning = long.map(|long| long.warning(&name, journal_text::LINE_CAP));
    if let Some(w) = &warning {
        settings.warn(w);
    }
    Ok(warning)
}

/// Every CRI-O journal file of the must-gather folders among `paths`, and
/// what they are called together; an input error when there is none.
fn must_gather_files(paths: &[PathBuf]) -> Result<(String, Vec<PathBuf>)> {
    let found: Vec<(&PathBuf, Vec<PathBuf>)> = paths
        .iter()
        .map(|p| (p, journal_files::must_gather_journals(p)))
        .filter(|(_, files)| !files.is_empty())
        .collect();
    let files: Vec<PathBuf> = found.iter().flat_map(|(_, f)| f.clone()).collect();
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    if files.is_empty() {
        return Err(Failure::input(format!(
            "no CRI-O journal in {}: a must-gather keeps them in host_service_logs/masters/crio_service.log and host_service_logs/workers/crio_service.log",
            names.join(", ")
        ))
        .with_hint("the default must-gather gathers the control plane's only; `oc adm must-gather -- /usr/bin/gather_service_logs master,worker` gathers the workers' too, or save `oc adm node-logs NODE -u crio` and pass it with --journal-file")
        .into());
    }
    let name = found
        .iter()
        .map(|(root, files)| {
            let rel: Vec<String> = files
                .iter()
                .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
                .collect();
            format!("{} ({})", root.display(), rel.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ");
    Ok((name, files))
}

/// The start of a live read's window when `--since` is not given.
pub const LIVE_SINCE: &str = "1h";

/// `--since`/`--until` as the query's window (an input error names the
/// flag); `--since` defaults to [`LIVE_SINCE`].
pub fn window(since: Option<&str>, until: Option<&str>) -> Result<Window> {
    let when = |flag: &str, v: &str| {
        node_logs::parse_when(v).map_err(|e| Failure::input(format!("--{flag}: {e}")))
    };
    Ok(Window {
        since: when("since", since.unwrap_or(LIVE_SINCE))?,
        until: until.map(|u| when("until", u)).transpose()?,
    })
}

/// `--since`/`--until` on journal files: the instants a pull's `Pulling
/// image` line must be between (a duration counts back from now, as for a
/// live read); `None` when neither is given (the whole file).
pub fn file_window(since: Option<&str>, until: Option<&str>) -> Result<Option<journal::Bounds>> {
    if since.is_none() && until.is_none() {
        return Ok(None);
    }
    // Without --since, from the file's start: no journal line is older than 1970.
    let w = window(Some(since.unwrap_or("0s")), until)?;
    let (from, to) = w.bounds(now());
    let from = since.map_or(journal::Timestamp::from_unix_secs(0), |_| from);
    Ok(Some((from, to)))
}

/// The window of `--since`/`--until` on files, as said after the file's
/// name (empty without either).
pub fn window_words(since: Option<&str>, until: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(s) = since {
        out += &format!(" since {s}");
    }
    if let Some(u) = until {
        out += &format!(" until {u}");
    }
    out
}

/// Now, to the second.
pub fn now() -> journal::Timestamp {
    journal::Timestamp::from_unix_secs(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    )
}

/// Replays `lines` for every item (only the pulls that began in `bounds`
/// when given) and returns the exit code. `after`: the host that logged
/// another line after them.
pub fn judge(
    items: &mut [Explanation],
    lines: &[Line],
    code: ExitCode,
    bounds: Option<journal::Bounds>,
    after: Option<&str>,
) -> ExitCode {
    let mut replay = journal::Replay::new();
    for item in items.iter() {
        replay.add(item.expected());
    }
    for l in lines {
        replay.push(l);
    }
    if let Some(host) = after {
        let host = lines
            .iter()
            .map(|l| l.host.as_str())
            .find(|h| journal::pool::host_is(h, host))
            .unwrap_or(host);
        replay.other(host);
    }
    for (item, records) in items.iter_mut().zip(replay.finish()) {
        item.journal = Some(journal::within(records, bounds));
    }
    let records: Vec<&PullRecord> = items
        .iter()
        .flat_map(|i| i.journal.iter().flatten())
        .collect();
    journal_code(&records, code)
}

/// 1 when a pull diverges, else 3 when one is undetermined, else `code`.
pub fn journal_code(records: &[&PullRecord], code: ExitCode) -> ExitCode {
    let verdicts = || {
        records
            .iter()
            .flat_map(|r| r.pulls.iter().map(|a| a.verdict))
    };
    let diverges = verdicts().any(|v| v == Verdict::Diverges);
    let undetermined = verdicts().any(|v| v == Verdict::Undetermined);
    match code {
        ExitCode::Success if diverges => ExitCode::Findings,
        ExitCode::Success if undetermined => ExitCode::Cluster,
        other => other,
    }
}

/// With `--node`, that node's lines (the host column is the node's name or
/// its first label); an error naming the hosts when the log has none of it.
fn for_node(lines: Vec<Line>, node: Option<&str>, name: &str) -> Result<Vec<Line>> {
    let Some(node) = node else {
        return Ok(lines);
    };
    let is_node = |h: &str| journal::pool::host_is(h, node);
    if lines.is_empty() || lines.iter().any(|l| is_node(&l.host)) {
        return Ok(lines.into_iter().filter(|l| is_node(&l.host)).collect());
    }
    let mut hosts: Vec<&str> = lines.iter().map(|l| l.host.as_str()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    Err(Failure::input(format!(
        "journal file \"{name}\" has no line of node {node} (hosts: {})",
        hosts.join(", ")
    ))
    .into())
}

/// The warning of a node log answer the kubelet cut.
pub fn cut_message(node: &str, elapsed: std::time::Duration, lines: &[Line]) -> String {
    let end = journal::last_time(lines).map_or("its start".to_string(), |t| t.to_string());
    format!(
        "node {node}'s log answer took {:.0}s: the kubelet stops journalctl after 30s and cuts the answer without a word; it ends at {end}, and pulls after that are not seen (narrow --since/--until)",
        elapsed.as_secs_f64()
    )
}

/// The hint of a forbidden node log.
pub const FORBIDDEN_HINT: &str = "ask a cluster admin for `get nodes/proxy`, or save `oc adm node-logs NODE -u crio` output and pass it with --journal-file";

/// `--journal`: the node's CRI-O log through the API server's node proxy;
/// when that is forbidden, the image's pull events.
fn attach_live(
    settings: &Settings,
    plan: &JournalPlan<'_>,
    node: &str,
    items: &mut [Explanation],
    code: ExitCode,
) -> Result<ExitCode> {
    let window = window(plan.since, plan.until)?;
    let options = settings.cluster_options()?;
    let now = now();
    let runtime = inputs::runtime()?;
    let read = runtime.block_on(async {
        let connection = live::connect(&options).await?;
        node_logs::read_crio(&connection, node, &window, now, &Budget::default()).await
    });
    let log = match read {
        Ok(log) => log,
        Err(NodeLogError::Cluster(e)) => return Err(inputs::cluster_failure(e)),
        Err(e @ NodeLogError::Forbidden { .. }) => {
            return from_events(settings, node, &window, now, items, code, e);
        }
        Err(e) => return Err(Failure::cluster(e.to_string()).into()),
    };
    settings.verbose(|| format!("read {} in {:.1}s", log.path, log.elapsed.as_secs_f64()));
    let name = format!("node {node}'s CRI-O log");
    let lines = journal::read(&name, &log.text).map_err(|e| Failure::cluster(e.to_string()))?;
    let lines = for_node(lines, Some(node), &name)?;
    // The kubelet's 406 fallback query has no end time: `--until` is applied
    // to the pulls read, as for files.
    let bounds = log
        .until_unapplied
        .map(|u| (journal::Timestamp(i128::MIN), Some(u)));
    // The query's answer holds the pull lines only: a line the node logged
    // after them (read apart) tells that a pull's silence is its end.
    let after = log.logged_after.then_some(node);
    let code = judge(items, &lines, code, bounds, after);
    if let Some(long) = log.long_lines {
        let message = long.warning(&format!("node {node}'s CRI-O log"), journal_text::LINE_CAP);
        settings.warn(&message);
        for item in items.iter_mut() {
            item.warnings.push(message.clone());
        }
    }
    if node_logs::was_cut(log.elapsed) {
        let message = cut_message(node, log.elapsed, &lines);
        for item in items.iter_mut() {
            item.warnings.push(message.clone());
        }
        return Ok(match code {
            ExitCode::Success => ExitCode::Cluster,
            other => other,
        });
    }
    Ok(code)
}

/// What is said when a node's pull events stand in for its forbidden log:
/// where the answer comes from, and why it is coarser.
pub fn events_message(forbidden: &dyn std::fmt::Display, node: &str) -> String {
    format!(
        "{forbidden}: the kubelet's pull events of node {node} are shown instead (each pull's readFrom is \"events\"); they carry a failed pull's full error, but never the source that served a successful pull (undetermined)"
    )
}

/// The low-privilege stand-in: the pull events of each image on the node
/// (`list events`), when its log is forbidden. A failure's error names the
/// sources tried; a success's source is undetermined. Events forbidden too:
/// the log's 403, exit 3.
fn from_events(
    settings: &Settings,
    node: &str,
    window: &Window,
    now: journal::Timestamp,
    items: &mut [Explanation],
    code: ExitCode,
    forbidden: NodeLogError,
) -> Result<ExitCode> {
    let options = settings.cluster_options()?;
    let read = inputs::runtime()?.block_on(async {
        let connection = live::connect(&options).await?;
        node_logs::read_events(&connection).await
    });
    let events = match read {
        Ok(events) => events,
        Err(live::ClusterError::Forbidden(_)) => {
            return Err(Failure::cluster(format!(
            "{forbidden}; the pull events are no stand-in either: `list events` is forbidden too"
        ))
            .with_hint(FORBIDDEN_HINT)
            .into())
        }
        Err(e) => return Err(inputs::cluster_failure(e)),
    };
    let bounds = window.bounds(now);
    let message = events_message(&forbidden, node);
    settings.warn(&message);
    for item in items.iter_mut() {
        let records = journal::events::pulls_from_events(&events, node, &item.expected(), bounds);
        item.warnings.push(message.clone());
        item.journal = Some(records);
    }
    let records: Vec<&PullRecord> = items
        .iter()
        .flat_map(|i| i.journal.iter().flatten())
        .collect();
    Ok(journal_code(&records, code))
}
