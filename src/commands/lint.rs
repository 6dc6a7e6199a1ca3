//! `lint`: CRD and MCO validation before applying, exit 1 on an error.

use anyhow::Result;

use mirrorpolicy::lint::{lint, Level};
use mirrorpolicy::output;

use crate::cli::{LintArgs, LintFormat};
use crate::commands::cluster;
use crate::exit::ExitCode;
use crate::settings::Settings;
use crate::term;

/// Runs `lint`; objects the API server would refuse are findings here, not a refusal to start.
/// Findings name its commands as the user ran the plugin.
pub fn run(settings: &Settings, args: &LintArgs) -> Result<ExitCode> {
    let mut inputs = cluster::read_inputs(settings, &args.filenames)?;
    cluster::overlay(settings, &mut inputs, &args.with, false)?;
    let mut findings = lint(&inputs);
    for f in &mut findings {
        f.message = crate::cli::as_said_by(settings.name, &f.message).into_owned();
    }
    let sink = match args.output {
        LintFormat::Table => term::Sink::Text,
        LintFormat::Json => term::Sink::Exact,
    };
    settings.print_to(sink, |out| match args.output {
        LintFormat::Table => output::lint::write_table(out, &findings),
        LintFormat::Json => output::write_json(out, &[&output::List::new(&findings)]),
    })?;
    Ok(if findings.iter().any(|f| f.level == Level::Error) {
        ExitCode::Findings
    } else {
        ExitCode::Success
    })
}
