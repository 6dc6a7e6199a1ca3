//! `-o summary`: one line per cluster (its name, its verdict, its counts)
//! and a total, for `explain`, `audit`, `diff` and `upgrade-check` over a
//! fleet. Each cluster's command runs with `-o json`; its JSON is summed
//! up here as the cluster is done, and let go.

use anyhow::Result;
use serde_json::Value;

use mirrorpolicy::output::many::{summary_error_line, Tally};

use super::Outcome;
use crate::cli::{AuditFormat, Command, DiffFormat, OutputFormat, UpgradeFormat};
use crate::exit::ExitCode;

/// The command a summary sums up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    Explain,
    Audit,
    Diff,
    UpgradeCheck,
}

/// The summary `command` asks for (`-o summary`), if any.
pub fn summary_of(command: &Command) -> Option<Summary> {
    match command {
        Command::Explain(a) if a.output == OutputFormat::Summary => Some(Summary::Explain),
        Command::Audit(a) if a.output == AuditFormat::Summary => Some(Summary::Audit),
        Command::Diff(a) if a.output == DiffFormat::Summary => Some(Summary::Diff),
        Command::UpgradeCheck(a) if a.output == UpgradeFormat::Summary => {
            Some(Summary::UpgradeCheck)
        }
        _ => None,
    }
}

/// Makes `command` write JSON, which the summary reads.
pub fn as_json(command: &mut Command) {
    match command {
        Command::Explain(a) => a.output = OutputFormat::Json,
        Command::Audit(a) => a.output = AuditFormat::Json,
        Command::Diff(a) => a.output = DiffFormat::Json,
        Command::UpgradeCheck(a) => a.output = UpgradeFormat::Json,
        _ => {}
    }
}

/// `-o summary` sums up clusters: files (`-f`, `--journal-file`) are
/// refused.
pub fn refuse_files(command: &Command) -> Result<()> {
    let files = match command {
        Command::Explain(a) => {
            !a.filenames.is_empty() || a.registries_conf.is_some() || a.node_files.is_some()
        }
        Command::Audit(a) => !a.filenames.is_empty() || a.journal_file.is_some(),
        Command::Diff(a) => !a.filenames.is_empty() || a.node_files.is_some(),
        Command::UpgradeCheck(a) => !a.filenames.is_empty(),
        _ => false,
    };
    if files {
        return Err(crate::exit::Failure::input(
            "-o summary sums up live clusters, one line each: it cannot be used with files (-f, --journal-file, --registries-conf, --node-files)",
        )
        .with_hint("read the files with -o json or the default output")
        .into());
    }
    Ok(())
}

/// One cluster's line; counts it in `tally`.
pub fn summary_line(
    kind: Summary,
    outcome: &Outcome<Vec<u8>>,
    code: ExitCode,
    tally: &mut Tally,
) -> String {
    tally.clusters += 1;
    let bytes = match &outcome.result {
        Ok(bytes) => bytes,
        Err(failed) => {
            tally.errors += 1;
            return summary_error_line(&outcome.context, &failed.one_line());
        }
    };
    let verdict = match code {
        ExitCode::Success => "ok",
        ExitCode::Findings => match kind {
            Summary::Explain | Summary::Audit => "findings",
            Summary::Diff => "drift",
            Summary::UpgradeCheck => "not-ready",
        },
        ExitCode::Input => "input-error",
        ExitCode::Cluster => "undetermined",
        ExitCode::Refused => "refused",
    };
    let value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                tally.errors += 1;
                let why = format!("the output is not JSON: {e}");
                return summary_error_line(&outcome.context, &why);
            }
        }
    };
    match code {
        ExitCode::Success => tally.ok += 1,
        ExitCode::Findings => tally.findings += 1,
        _ => tally.errors += 1,
    }
    mirrorpolicy::output::many::summary_line(&outcome.context, verdict, &counts(kind, &value))
}

/// The counts of a command's JSON report.
fn counts(kind: Summary, report: &Value) -> Vec<(String, u64)> {
    let len = |v: Option<&Value>| v.and_then(Value::as_array).map_or(0, |a| a.len() as u64);
    match kind {
        Summary::Explain => explain_counts(report),
        Summary::Audit if report.get("pulls").is_some() => journal_counts(report),
        Summary::Audit => {
            let mut counts = vec![("images".to_string(), len(report.get("images")))];
            counts.extend(numbers(report.get("summary")));
            counts
        }
        Summary::Diff => {
            let pools = report.get("pools").and_then(Value::as_array);
            let drifting = pools
                .into_iter()
                .flatten()
                .filter(|p| len(p.get("drift")) > 0);
            vec![
                ("pools".to_string(), len(report.get("pools"))),
                ("drifting".to_string(), drifting.count() as u64),
                ("notRead".to_string(), len(report.get("notRead"))),
            ]
        }
        Summary::UpgradeCheck => numbers(report.get("summary")),
    }
}

/// `explain`: the images, and how many are pulled first from a mirror or
/// from their source (the first place CRI-O tries).
fn explain_counts(report: &Value) -> Vec<(String, u64)> {
    let images: Vec<&Value> = match report.get("items").and_then(Value::as_array) {
        Some(items) if report.get("kind").and_then(Value::as_str) == Some("List") => {
            items.iter().collect()
        }
        _ if report.is_object() => vec![report],
        _ => Vec::new(),
    };
    let first_role = |image: &&Value| {
        image
            .pointer("/candidates/0/sources/0/role")
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let roles: Vec<Option<String>> = images.iter().map(first_role).collect();
    let count = |role: &str| roles.iter().filter(|r| r.as_deref() == Some(role)).count() as u64;
    vec![
        ("images".to_string(), images.len() as u64),
        ("fromMirror".to_string(), count("mirror")),
        ("fromSource".to_string(), count("source")),
    ]
}

/// `audit --journal`: the images and pulls of the pull log, the pulls that
/// diverge, and the nodes not all judged.
fn journal_counts(fleet: &Value) -> Vec<(String, u64)> {
    let len = |k: &str| {
        fleet
            .get(k)
            .and_then(Value::as_array)
            .map_or(0, |a| a.len() as u64)
    };
    let diverging = fleet
        .get("images")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i.pointer("/verdicts/diverges").and_then(Value::as_u64))
        .sum();
    vec![
        ("images".to_string(), len("images")),
        (
            "pulls".to_string(),
            fleet.get("pulls").and_then(Value::as_u64).unwrap_or(0),
        ),
        ("diverging".to_string(), diverging),
        ("undeterminedNodes".to_string(), len("undeterminedNodes")),
    ]
}

/// The numbers of a `summary` object, in its order.
fn numbers(object: Option<&Value>) -> Vec<(String, u64)> {
    object
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_u64().map(|n| (k.clone(), n)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn issue_26_counts_of_each_report() {
        let explain = json!({"image": "a", "candidates": [{"sources": [{"role": "mirror"}]}]});
        assert_eq!(
            counts(Summary::Explain, &explain),
            [
                ("images".to_string(), 1),
                ("fromMirror".to_string(), 1),
                ("fromSource".to_string(), 0)
            ]
        );
        let list = json!({"kind": "List", "items": [explain, {"candidates": [{"sources": [{"role": "source"}]}]}]});
        assert_eq!(
            counts(Summary::Explain, &list)[2],
            ("fromSource".to_string(), 1)
        );
        let audit = json!({"images": [1, 2], "summary": {"direct": 1, "mirrored": 0}});
        assert_eq!(
            counts(Summary::Audit, &audit),
            [
                ("images".to_string(), 2),
                ("direct".to_string(), 1),
                ("mirrored".to_string(), 0)
            ]
        );
        let diff = json!({"pools": [{"drift": [1]}, {"drift": []}], "drift": true});
        assert_eq!(
            counts(Summary::Diff, &diff),
            [
                ("pools".to_string(), 2),
                ("drifting".to_string(), 1),
                ("notRead".to_string(), 0)
            ]
        );
    }

    #[test]
    fn issue_26_output_that_is_not_json_counts_as_an_error_only() {
        let outcome = Outcome {
            context: "a".to_string(),
            server: None,
            result: Ok(b"not json".to_vec()),
        };
        let mut tally = Tally::default();
        let line = summary_line(Summary::Audit, &outcome, ExitCode::Success, &mut tally);
        assert!(line.contains("not JSON"), "{line}");
        assert_eq!((tally.clusters, tally.ok, tally.errors), (1, 0, 1));
    }
}
