//! `diff`: CRs → generated MachineConfig → the pool's rendered config →
//! nodes, per pool and managed file, with causes and the daemon's action.

use std::path::PathBuf;

use anyhow::Result;

use mirrorpolicy::diff::{self, Selection};
use mirrorpolicy::output;
use mirrorpolicy::source::cluster::{Read, MACHINE_CONFIG_STATE, MIRROR_CONFIG};

use crate::cli::{DiffArgs, DiffFormat};
use crate::commands::cluster;
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::term;

/// Runs `diff`.
pub fn run(settings: &Settings, args: &DiffArgs) -> Result<ExitCode> {
    let reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(MACHINE_CONFIG_STATE)
        .copied()
        .collect();
    let mut inputs = cluster::load_objects(settings, &args.filenames, &reads, None)?;
    let mut crs = "the CRs".to_string();
    if !args.with.is_empty() {
        cluster::overlay(&mut inputs, &args.with, true)?;
        crs = format!("the CRs with {}", names(&args.with));
    }
    let selection = Selection {
        pools: args.pools.clone(),
        nodes: args.nodes.clone(),
        files: args.files.clone(),
    };
    let report =
        diff::diff(&inputs, &selection, &crs, !args.with.is_empty()).map_err(Failure::input)?;
    let sink = match args.output {
        DiffFormat::Text => term::Sink::Text,
        DiffFormat::Json => term::Sink::Exact,
    };
    term::print_to(settings.colour, sink, |out| match args.output {
        DiffFormat::Text => output::diff::write_text(out, &report),
        DiffFormat::Json => output::diff::write_json(out, &report),
    })?;
    Ok(if report.drift {
        ExitCode::Findings
    } else {
        ExitCode::Success
    })
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
