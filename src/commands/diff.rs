//! `diff`: CRs → generated MachineConfig → the pool's rendered config →
//! nodes, per pool and managed file, with causes and the daemon's action.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use colored::Colorize;

use mirrorpolicy::crd::Inputs;
use mirrorpolicy::diff::{self, on_disk, Report, Selection};
use mirrorpolicy::node_files::NodeRead;
use mirrorpolicy::output;
use mirrorpolicy::source::cluster::{Read, MACHINE_CONFIG_STATE, MIRROR_CONFIG};
use mirrorpolicy::source::node_dir;

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
    let mut report =
        diff::diff(&inputs, &selection, &crs, !args.with.is_empty()).map_err(Failure::input)?;
    if args.on_disk || args.node_files.is_some() {
        let reads = read_node_files(args, &inputs)?;
        on_disk::add_on_disk(&mut report, &inputs, &selection, &reads).map_err(Failure::input)?;
    } else {
        on_disk::add_daemon_reports(&mut report, &inputs, &selection);
    }
    let sink = match args.output {
        DiffFormat::Text => term::Sink::Text,
        DiffFormat::Json => term::Sink::Exact,
    };
    term::print_to(settings.colour, sink, |out| match args.output {
        DiffFormat::Text => write_text(out, &report),
        DiffFormat::Json => output::write_json(out, std::slice::from_ref(&report)),
    })?;
    Ok(if report.drift {
        ExitCode::Findings
    } else {
        ExitCode::Success
    })
}

/// The nodes' files: from `--node-files DIR`, else from the nodes.
fn read_node_files(args: &DiffArgs, inputs: &Inputs) -> Result<Vec<NodeRead>> {
    let Some(dir) = &args.node_files else {
        return Err(Failure::input(
            "diff --on-disk cannot read the nodes' files from the cluster yet",
        )
        .with_hint(
            "collect them into a folder (DIR/<node>/etc/containers/...) and pass --node-files DIR",
        )
        .into());
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

fn write_text(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    for (i, pool) in report.pools.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let target = pool
            .stages
            .iter()
            .find(|s| s.kind == "target")
            .and_then(|s| s.machine_config.clone())
            .map_or_else(String::new, |t| format!(" (target {t})"));
        writeln!(
            out,
            "{}",
            format!("pool {}: {}{target}", pool.pool, pool.state).bold()
        )?;
        let groups: Vec<String> = pool
            .stages
            .iter()
            .filter(|s| s.kind == "nodes")
            .map(|s| {
                format!(
                    "{}: {}",
                    s.machine_config.as_deref().unwrap_or_default(),
                    s.nodes.join(", ")
                )
            })
            .collect();
        if !groups.is_empty() {
            writeln!(out, "  nodes on {}", groups.join("; "))?;
        }
        let disks: Vec<String> = pool
            .stages
            .iter()
            .filter(|s| s.kind == on_disk::KIND)
            .map(|s| {
                let differs = pool
                    .drift
                    .iter()
                    .any(|d| d.nodes.iter().any(|n| s.nodes.contains(n)));
                let verb = match (differs, s.nodes.len()) {
                    (false, 1) => "matches its config",
                    (false, _) => "match their config",
                    (true, 1) => "differs",
                    (true, _) => "differ",
                };
                format!("{} {verb}", s.nodes.join(", "))
            })
            .collect();
        if !disks.is_empty() {
            writeln!(out, "  files on disk: {}", disks.join("; "))?;
        }
        for note in &pool.notes {
            writeln!(out, "  {note}")?;
        }
        if pool.drift.is_empty() {
            writeln!(
                out,
                "  no drift: {} agree{}",
                if disks.is_empty() {
                    "the CRs, the MachineConfigs and the nodes"
                } else {
                    "the CRs, the MachineConfigs, the nodes and their files on disk"
                },
                if pool.notes.is_empty() {
                    ""
                } else {
                    " where they could be compared"
                }
            )?;
        }
        for d in &pool.drift {
            writeln!(out)?;
            if d.file.is_empty() {
                writeln!(out, "{}", format!("{} → {}", d.from, d.to).yellow())?;
            } else {
                writeln!(
                    out,
                    "{}",
                    format!("{}: {} → {}", d.file, d.from, d.to).yellow()
                )?;
            }
            for line in &d.summary {
                writeln!(out, "  - {line}")?;
            }
            writeln!(out, "  cause: {}", d.cause)?;
            for line in d.diff.lines() {
                let coloured = if line.starts_with('+') && !line.starts_with("+++") {
                    line.green().to_string()
                } else if line.starts_with('-') && !line.starts_with("---") {
                    line.red().to_string()
                } else {
                    line.to_string()
                };
                writeln!(out, "    {coloured}")?;
            }
        }
        for impact in &pool.impact {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                format!(
                    "to reach the CRs, nodes {} (running {}) will: {}",
                    impact.nodes.join(", "),
                    impact.config,
                    impact.action.describe()
                )
                .bold()
            )?;
            for r in &impact.reasons {
                writeln!(out, "  - {r}")?;
            }
        }
    }
    Ok(())
}
