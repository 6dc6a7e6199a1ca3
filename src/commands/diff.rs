//! `diff`: CRs → generated MachineConfig → the pool's rendered config →
//! nodes, per pool and managed file, with causes and the daemon's action.

use std::path::PathBuf;

use anyhow::Result;

use crate::output;
use mirrorpolicy::diff::{self, on_disk, Selection};
use mirrorpolicy::node_files::NodeRead;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::source::api::{Read, MACHINE_CONFIG_STATE, MIRROR_CONFIG};
use mirrorpolicy::source::{node_dir, node_live};

use crate::cli::{DiffArgs, DiffOutput};
use crate::exit::{ExitCode, Failure};
use crate::settings::{node_read_options, Settings};
use crate::steps::inputs;
use crate::term;

/// Runs `diff`, printing the comparison in `format`, then the nodes not
/// read.
pub fn run(settings: &Settings, args: &DiffArgs, format: DiffOutput) -> Result<ExitCode> {
    let (report, code) = report(settings, args)?;
    let sink = match format {
        DiffOutput::Text => term::Sink::Text,
        DiffOutput::Json => term::Sink::Exact,
    };
    settings.print_to(sink, |out| match format {
        DiffOutput::Text => output::diff::write_text(out, &report),
        DiffOutput::Json => output::diff::write_json(out, &report),
    })?;
    warn_not_read(&report);
    Ok(code)
}

/// The comparison and the exit code it calls for, without printing it nor
/// warning of the nodes not read: what [`run`] prints and `-o summary`
/// counts.
pub fn report(settings: &Settings, args: &DiffArgs) -> Result<(diff::Report, ExitCode)> {
    // A bad --node-timeout is a usage error before anything is read.
    node_read_options(&args.read)?;
    let reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(MACHINE_CONFIG_STATE)
        .copied()
        .collect();
    let mut inputs = inputs::load_objects(settings, &args.filenames, &reads, None)?;
    let mut crs = "the CRs".to_string();
    if !args.with.is_empty() {
        inputs::overlay(settings, &mut inputs, &args.with, true)?;
        crs = format!("the CRs with {}", names(&args.with));
    }
    let selection = Selection {
        pools: args.pools.clone(),
        nodes: args.nodes.clone(),
        files: args.files.clone(),
    };
    let mut report =
        diff::diff(&inputs, &selection, &crs, !args.with.is_empty()).map_err(Failure::input)?;
    if args.on_disk || args.node_files.is_some() {
        let reads = read_node_files(settings, args, &inputs, &report)?;
        on_disk::add_on_disk(&mut report, &inputs, &selection, &reads).map_err(Failure::input)?;
    } else {
        on_disk::add_daemon_reports(&mut report, &inputs, &selection);
    }
    // Drift found is an answer; no drift while a node was not read is not.
    let code = if report.drift == Some(true) {
        ExitCode::Findings
    } else if !report.not_read.is_empty() {
        ExitCode::Cluster
    } else {
        ExitCode::Success
    };
    Ok((report, code))
}

/// Says on stderr which nodes' files could not be read, and why.
pub fn warn_not_read(report: &diff::Report) {
    for n in &report.not_read {
        term::warn(format_args!("node {} not read: {}", n.node, n.reason));
    }
}

/// The nodes' files: from `--node-files DIR`, else read live from the
/// nodes the report compares (those of its node stages), through their
/// machine-config-daemon pods.
fn read_node_files(
    settings: &Settings,
    args: &DiffArgs,
    inputs: &Inputs,
    report: &diff::Report,
) -> Result<Vec<NodeRead>> {
    let Some(dir) = &args.node_files else {
        if !args.filenames.is_empty() {
            return Err(Failure::input(
                "diff --on-disk with -f: the nodes' files are read from --node-files DIR, not from a live cluster the files may not come from",
            )
            .with_hint(
                "collect them with collect-node-files --dest-dir DIR and pass --node-files DIR, or drop -f to read the cluster and its nodes",
            )
            .into());
        }
        let mut nodes: Vec<String> = report
            .pools
            .iter()
            .flat_map(|p| p.stages.iter())
            .filter(|s| s.kind == "nodes")
            .flat_map(|s| s.nodes.iter().cloned())
            .collect();
        nodes.sort();
        nodes.dedup();
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        let options = node_read_options(&args.read)?;
        let cluster_options = settings.cluster_options()?;
        return node_live::read_live(
            &inputs::runtime()?,
            &cluster_options,
            &nodes,
            &options,
            |m| settings.verbose(|| m),
        )
        .map_err(inputs::cluster_failure);
    };
    let nodes = node_dir::read(dir).map_err(|e| Failure::input(e.to_string()))?;
    for files in &nodes {
        if !inputs.nodes.iter().any(|n| n.metadata.name == files.node) {
            eprintln!(
                "warning: \"{}\": no Node {} in the input; its files are not compared",
                dir.join(&files.node).display(),
                files.node
            );
        }
    }
    Ok(nodes.into_iter().map(NodeRead::Read).collect())
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
