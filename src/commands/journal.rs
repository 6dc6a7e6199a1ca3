//! `--journal-file`: a node's CRI-O pull log replayed against each
//! explanation, and the exit code the verdicts call for.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use mirrorpolicy::explain::Explanation;
use mirrorpolicy::journal::{self, Line, PullRecord, Verdict};

use crate::cli::ExplainArgs;
use crate::commands::cluster;
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use mirrorpolicy::source::cluster as live;
use mirrorpolicy::source::node_logs::{self, NodeLogError, Window};

/// Reads `--journal-file` or, with `--journal`, the node's log live, and
/// adds each image's pulls to its explanation. Exit 1 when a pull diverges,
/// else 3 when one cannot be judged (the log ends before it does) or the
/// answer was cut, else the explanation's code.
pub fn attach(
    settings: &Settings,
    args: &ExplainArgs,
    items: &mut [Explanation],
    code: ExitCode,
) -> Result<ExitCode> {
    if args.journal.journal {
        let node = args.node.as_deref().unwrap_or_default();
        return attach_live(settings, args, node, items, code);
    }
    let Some(path) = &args.journal.journal_file else {
        return Ok(code);
    };
    let (name, lines) = read_file(path)?;
    let lines = for_node(lines, args.node.as_deref(), &name)?;
    Ok(judge(items, &lines, code))
}

/// The pull lines of a `--journal-file`, and the name it is called by.
pub fn read_file(path: &Path) -> Result<(String, Vec<Line>)> {
    let name = path.display().to_string();
    let bytes = fs::read(path)
        .with_context(|| Failure::input(format!("cannot read journal file \"{name}\"")))?;
    let text = String::from_utf8_lossy(&bytes);
    let lines = journal::read(&name, &text).map_err(|e| Failure::input(e.to_string()))?;
    Ok((name, lines))
}

/// Replays `lines` for every item and returns the exit code.
pub fn judge(items: &mut [Explanation], lines: &[Line], code: ExitCode) -> ExitCode {
    for item in items.iter_mut() {
        item.journal = Some(journal::replay(lines, &item.expected()));
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
    let short = node.split('.').next().unwrap_or(node);
    let is_node = |h: &str| h == node || h == short;
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

/// `--journal`: the node's CRI-O log through the API server's node proxy.
fn attach_live(
    settings: &Settings,
    args: &ExplainArgs,
    node: &str,
    items: &mut [Explanation],
    code: ExitCode,
) -> Result<ExitCode> {
    let when = |flag: &str, v: &str| {
        node_logs::parse_when(v).map_err(|e| Failure::input(format!("--{flag}: {e}")))
    };
    let window = Window {
        since: when("since", &args.journal.since)?,
        until: args
            .journal
            .until
            .as_deref()
            .map(|u| when("until", u))
            .transpose()?,
    };
    let options = settings.cluster_options()?;
    let now = journal::Timestamp::from_unix_secs(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    );
    let read = cluster::runtime()?.block_on(async {
        let connection = live::connect(&options).await?;
        node_logs::read_crio(&connection, node, &window, now).await
    });
    let log = match read {
        Ok(log) => log,
        Err(NodeLogError::Cluster(e)) => return Err(cluster::cluster_failure(e)),
        Err(e @ NodeLogError::Forbidden { .. }) => {
            return Err(Failure::cluster(e.to_string())
                .with_hint("ask a cluster admin for `get nodes/proxy`, or save `oc adm node-logs NODE -u crio` output and pass it with --journal-file")
                .into())
        }
        Err(e) => return Err(Failure::cluster(e.to_string()).into()),
    };
    settings.verbose(|| format!("read {} in {:.1}s", log.path, log.elapsed.as_secs_f64()));
    let name = format!("node {node}'s CRI-O log");
    let lines = journal::read(&name, &log.text).map_err(|e| Failure::cluster(e.to_string()))?;
    let lines = for_node(lines, Some(node), &name)?;
    let code = judge(items, &lines, code);
    if node_logs::was_cut(log.elapsed) {
        let end = journal::last_time(&lines).map_or("its start".to_string(), |t| t.to_string());
        for item in items.iter_mut() {
            item.warnings.push(format!(
                "node {node}'s log answer took {:.0}s: the kubelet stops journalctl after 30s and cuts the answer without a word; it ends at {end}, and pulls after that are not seen (narrow --since/--until)",
                log.elapsed.as_secs_f64()
            ));
        }
        return Ok(match code {
            ExitCode::Success => ExitCode::Cluster,
            other => other,
        });
    }
    Ok(code)
}
