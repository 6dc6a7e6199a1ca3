//! `--journal-file`: a node's CRI-O pull log replayed against each
//! explanation, and the exit code the verdicts call for.

use std::fs;

use anyhow::{Context, Result};

use mirrorpolicy::explain::Explanation;
use mirrorpolicy::journal::{self, Line, PullRecord, Verdict};

use crate::cli::ExplainArgs;
use crate::exit::{ExitCode, Failure};

/// Reads `--journal-file` when given and adds each image's pulls to its
/// explanation. Exit 1 when a pull diverges, else 3 when one cannot be
/// judged (the log ends before it does), else the explanation's code.
pub fn attach(args: &ExplainArgs, items: &mut [Explanation], code: ExitCode) -> Result<ExitCode> {
    let Some(path) = &args.journal_file else {
        return Ok(code);
    };
    let name = path.display().to_string();
    let bytes = fs::read(path)
        .with_context(|| Failure::input(format!("cannot read journal file \"{name}\"")))?;
    let text = String::from_utf8_lossy(&bytes);
    let lines = journal::read(&name, &text).map_err(|e| Failure::input(e.to_string()))?;
    let lines = for_node(lines, args.node.as_deref(), &name)?;
    Ok(judge(items, &lines, code))
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
