//! `lint`: CRD and MCO validation before applying, exit 1 on an error.

use anyhow::Result;

use mirrorpolicy::lint::{lint, Level};
use mirrorpolicy::output;
use mirrorpolicy::source::load_paths;

use crate::cli::{LintArgs, LintFormat};
use crate::exit::{ExitCode, Failure};
use crate::term;

/// Runs `lint`; invalid objects are findings here, not a refusal to start.
pub fn run(args: &LintArgs) -> Result<ExitCode> {
    let inputs = load_paths(&args.filenames, std::io::stdin().lock())
        .map_err(|e| Failure::input(e.to_string()))?;
    crate::commands::cluster::report_read(&inputs);
    if inputs.is_empty() {
        return Err(Failure::input(
            "no ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image or other known object in the given files",
        )
        .into());
    }
    let findings = lint(&inputs);
    term::print(|out| match args.output {
        LintFormat::Table => output::lint::write_table(out, &findings),
        LintFormat::Json => output::write_json(out, &[&output::List::new(&findings)]),
    })?;
    Ok(if findings.iter().any(|f| f.level == Level::Error) {
        ExitCode::Findings
    } else {
        ExitCode::Success
    })
}
