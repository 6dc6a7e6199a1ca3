//! `lint`: CRD and MCO validation before applying, exit 1 on an error.

use std::path::PathBuf;

use anyhow::Result;

use mirrorpolicy::objects::crd_schema::CrdSchema;
use mirrorpolicy::objects::schema::CHECKED_KINDS;
use mirrorpolicy::source::load_paths_with;

use crate::output;
use mirrorpolicy::lint::{lint, Level};

use crate::cli::{LintArgs, LintFormat};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

/// The CustomResourceDefinitions of `--crd` (files or folders); one that
/// cannot be used, or none of a checked kind, is an input error.
fn given_crds(paths: &[PathBuf]) -> Result<Vec<CrdSchema>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let read = load_paths_with(paths, std::io::empty(), false, true)
        .map_err(|e| Failure::input(format!("--crd: {e}")))?;
    if !read.crd_problems.is_empty() {
        let problems: Vec<String> = read.crd_problems.iter().map(ToString::to_string).collect();
        return Err(Failure::input(format!("--crd: {}", problems.join("; --crd: "))).into());
    }
    if read.crds.is_empty() {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Failure::input(format!(
            "--crd: no CustomResourceDefinition (apiextensions.k8s.io/v1) of {} in {}",
            CHECKED_KINDS.join(", "),
            named.join(", ")
        ))
        .into());
    }
    Ok(read.crds)
}

/// Runs `lint`; objects the API server would refuse are findings here, not a refusal to start.
/// Findings name its commands as the user ran the plugin.
pub fn run(settings: &Settings, args: &LintArgs) -> Result<ExitCode> {
    let given = given_crds(&args.crds)?;
    let mut inputs = inputs::read_inputs(settings, &args.filenames, &given)?;
    // Proposed objects are checked against the cluster's own CRDs: those
    // given, else the live cluster's (when reading it), else a
    // must-gather's.
    let mut crds = given;
    if crds.is_empty() && args.filenames.is_empty() && !args.with.is_empty() {
        crds = inputs::cluster_crds(settings)?;
    }
    crds.extend(inputs.crds.iter().cloned());
    inputs::overlay_checked(settings, &mut inputs, &args.with, false, &crds)?;
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
