//! `diff`: CRs → generated MachineConfig → the pool's rendered config →
//! nodes, per pool and managed file, with causes and the daemon's action.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use colored::Colorize;

use mirrorpolicy::diff::{self, Report, Selection};
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
        cluster::overlay(settings, &mut inputs, &args.with, true)?;
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
    settings.print_to(sink, |out| match args.output {
        DiffFormat::Text => write_text(out, &report),
        DiffFormat::Json => output::write_json(out, std::slice::from_ref(&report)),
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
        for note in &pool.notes {
            writeln!(out, "  {note}")?;
        }
        if pool.drift.is_empty() {
            writeln!(
                out,
                "  no drift: the CRs, the MachineConfigs and the nodes agree{}",
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
