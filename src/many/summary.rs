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
pub fn verdict(kind: Summary, code: ExitCode) -> &'static str {
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
pub fn summary_line(kind: Summary, outcome: &Ran<Counted>, tally: &mut Tally) -> String {
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
