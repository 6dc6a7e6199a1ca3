//! `-o summary`: one line per cluster (its name, its verdict, its counts)
//! and a total, for `explain`, `audit`, `diff` and `upgrade-check` over a
//! fleet. Each cluster's command builds its typed report, as for `-o json`,
//! but prints nothing: the report is counted by its own type
//! (`summary_counts`, beside it in the core) as the cluster is done, and
//! let go. Writing the line is left to `output::many`.

use std::sync::Arc;

use anyhow::Result;

use crate::output::many::{summary_error_line, Tally};

use super::{run_each, worse, Ran, Target};
use crate::cli::{AuditFormat, Cli, Command, DiffFormat, OutputFormat, UpgradeFormat};
use crate::commands::{audit, diff, explain, upgrade};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::term;

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

/// One cluster's counts, in their order, and its exit code.
pub type Counted = (Vec<(&'static str, usize)>, ExitCode);

/// Runs `cli`'s command against each of `contexts` (see [`run_each`]) and
/// writes each cluster's line as it is done, in the clusters' order, then
/// the total; returns the worst exit code.
pub fn run(
    settings: &Settings,
    contexts: &[Target],
    cli: Arc<Cli>,
    kind: Summary,
) -> Result<ExitCode> {
    let mut tally = Tally::default();
    let mut worst = ExitCode::Success;
    if !contexts.is_empty() {
        run_each(
            settings,
            contexts,
            move |s| count(s, &cli.command),
            |o: Ran<Counted>| {
                let code = match &o.result {
                    Ok(((_, code), _)) => *code,
                    Err(failed) => failed.code,
                };
                worst = worse(worst, code);
                let line = summary_line(kind, &o, &mut tally);
                Ok(settings.print_to(term::Sink::Text, |out| writeln!(out, "{line}"))?)
            },
        )?;
    }
    let line = tally.line(worst as i32);
    settings.print_to(term::Sink::Text, |out| writeln!(out, "{line}"))?;
    Ok(worst)
}

/// The report of `command` for the cluster of `settings`, counted, with
/// the exit code it calls for. Says on stderr what the command says beside
/// its report (for `diff`, the nodes not read).
fn count(settings: &Settings, command: &Command) -> Result<Counted> {
    Ok(match command {
        Command::Explain(a) => {
            let (items, code) = explain::report(settings, a)?;
            (mirrorpolicy::explain::summary_counts(&items), code)
        }
        Command::Audit(a) => match audit::report(settings, a)? {
            (audit::Audited::Images(report), code) => (report.summary_counts(), code),
            (audit::Audited::PullLog { fleet, .. }, code) => (fleet.summary_counts(), code),
        },
        Command::Diff(a) => {
            let (report, code) = diff::report(settings, a)?;
            diff::warn_not_read(&report);
            (report.summary_counts(), code)
        }
        Command::UpgradeCheck(a) => {
            let (report, code) = upgrade::collect(settings, a)?;
            (report.summary_counts(), code)
        }
        _ => return Err(Failure::input("internal error: no summary of this command").into()),
    })
}

/// The verdict of a cluster whose command exited with `code`.
fn verdict(kind: Summary, code: ExitCode) -> &'static str {
    match code {
        ExitCode::Success => "ok",
        ExitCode::Findings => match kind {
            Summary::Explain | Summary::Audit => "findings",
            Summary::Diff => "drift",
            Summary::UpgradeCheck => "not-ready",
        },
        ExitCode::Input => "input-error",
        ExitCode::Cluster => "undetermined",
        ExitCode::Refused => "refused",
    }
}

/// One cluster's line; counts it in `tally`.
fn summary_line(kind: Summary, outcome: &Ran<Counted>, tally: &mut Tally) -> String {
    tally.clusters += 1;
    let ((counts, code), _) = match &outcome.result {
        Ok(counted) => counted,
        Err(failed) => {
            tally.errors += 1;
            return summary_error_line(&outcome.context, &failed.one_line());
        }
    };
    match code {
        ExitCode::Success => tally.ok += 1,
        ExitCode::Findings => tally.findings += 1,
        _ => tally.errors += 1,
    }
    let verdict = verdict(kind, *code);
    crate::output::many::summary_line(&outcome.context, verdict, counts)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use mirrorpolicy::audit::{AuditedImage, Class};
    use mirrorpolicy::explain::Explanation;
    use mirrorpolicy::journal::fleet::{NodeNote, NodeReason};
    use mirrorpolicy::registries::ShortNameMode;

    use super::*;
    use crate::exit::Described;
    use crate::many::Outcome;

    fn read(context: &str, counts: Vec<(&'static str, usize)>, code: ExitCode) -> Ran<Counted> {
        Outcome {
            context: context.to_string(),
            server: None,
            result: Ok(((counts, code), Vec::new())),
        }
    }

    fn audited(reference: &str, class: Class) -> AuditedImage {
        AuditedImage {
            reference: reference.to_string(),
            class,
            objects: Vec::new(),
            signature_required: false,
            detail: String::new(),
            fix: None,
            probe: None,
            pull_secrets: Vec::new(),
        }
    }

    /// Each report's line: the verdict its exit code gives for its
    /// command, then the counts its type gives, in their order.
    #[test]
    fn issue_26_counts_of_each_report() {
        let audit = mirrorpolicy::audit::Report {
            images: vec![
                audited("quay.io/a/x:1", Class::Direct),
                audited("quay.io/a/y:1", Class::Mirrored),
            ],
            summary: BTreeMap::from([("direct", 1), ("mirrored", 1)]),
        };
        let unresolved = Explanation {
            image: "app".to_string(),
            namespace: None,
            short_name_mode: ShortNameMode::Enforcing,
            candidates: Vec::new(),
            warnings: Vec::new(),
            error: Some("cannot resolve".to_string()),
            undetermined: false,
            journal: None,
        };
        let diff = mirrorpolicy::diff::Report {
            pools: Vec::new(),
            drift: None,
            not_read: vec![mirrorpolicy::diff::NotRead {
                node: "w1".to_string(),
                reason: "forbidden".to_string(),
            }],
        };
        let note = NodeNote {
            node: "w2".to_string(),
            pool: None,
            reason: NodeReason::Cut,
            message: "cut".to_string(),
        };
        let pull_log = mirrorpolicy::journal::fleet::fleet(Vec::new(), vec![note], None);
        let mut tally = Tally::default();
        for (kind, counts, code, want) in [
            (
                Summary::Audit,
                audit.summary_counts(),
                ExitCode::Findings,
                "east findings images=2 direct=1 mirrored=1",
            ),
            (
                Summary::Explain,
                mirrorpolicy::explain::summary_counts(&[unresolved]),
                ExitCode::Findings,
                "east findings images=1 fromMirror=0 fromSource=0",
            ),
            (
                Summary::Diff,
                diff.summary_counts(),
                ExitCode::Cluster,
                "east undetermined pools=0 drifting=0 notRead=1",
            ),
            (
                Summary::Audit,
                pull_log.summary_counts(),
                ExitCode::Success,
                "east ok images=0 pulls=0 diverging=0 undeterminedNodes=1",
            ),
        ] {
            let line = summary_line(kind, &read("east", counts, code), &mut tally);
            assert_eq!(line, want, "{kind:?}");
        }
        let want = Tally {
            clusters: 4,
            ok: 1,
            findings: 2,
            errors: 1,
        };
        assert_eq!(tally, want);
    }

    #[test]
    fn issue_26_verdict_of_each_exit_code() {
        use ExitCode::*;
        for (kind, code, want) in [
            (Summary::Explain, Success, "ok"),
            (Summary::Explain, Findings, "findings"),
            (Summary::Audit, Findings, "findings"),
            (Summary::Diff, Findings, "drift"),
            (Summary::UpgradeCheck, Findings, "not-ready"),
            (Summary::UpgradeCheck, Input, "input-error"),
            (Summary::Diff, Cluster, "undetermined"),
            (Summary::Audit, Refused, "refused"),
        ] {
            assert_eq!(verdict(kind, code), want, "{kind:?} {code:?}");
        }
    }

    /// A cluster not read is an error only: no verdict, no counts; one
    /// read with an input error shows its counts and is counted an error.
    #[test]
    fn issue_26_a_cluster_not_read_counts_as_an_error_only() {
        let outcome = Outcome {
            context: "a".to_string(),
            server: None,
            result: Err(Described {
                lines: vec!["cannot reach the cluster".to_string()],
                hint: None,
                code: ExitCode::Cluster,
            }),
        };
        let mut tally = Tally::default();
        let line = summary_line(Summary::Audit, &outcome, &mut tally);
        assert_eq!(line, "a error: cannot reach the cluster");
        assert_eq!((tally.clusters, tally.ok, tally.errors), (1, 0, 1));
        let counts = vec![("images", 0), ("direct", 0)];
        let line = summary_line(
            Summary::Audit,
            &read("b", counts, ExitCode::Input),
            &mut tally,
        );
        assert_eq!(line, "b input-error images=0 direct=0");
        assert_eq!((tally.clusters, tally.ok, tally.errors), (2, 0, 2));
    }
}
