//! The `diff` report: per pool, its state and node groups, then each drift
//! between two stages with its summary, cause and unified diff, then what
//! the daemon will do on each group of nodes to reach the CRs.
//!
//! Colour follows `colored`'s global switch, which the command layer sets;
//! the text reads the same without it.

use std::io::{self, Write};

use colored::Colorize;

use mirrorpolicy::diff::{on_disk, Drift, Impact, PoolDiff, Report};

/// Writes every pool, separated by a blank line.
pub fn write_text(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    for (i, pool) in report.pools.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_pool(out, pool)?;
    }
    if !report.not_read.is_empty() {
        let nodes: Vec<&str> = report.not_read.iter().map(|n| n.node.as_str()).collect();
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            format!(
                "not read: {} node(s), their files on disk undetermined: {}",
                nodes.len(),
                nodes.join(", ")
            )
            .yellow()
        )?;
        for n in &report.not_read {
            writeln!(out, "  - {}: {}", n.node, n.reason)?;
        }
    }
    Ok(())
}

/// Writes the report as one JSON object (the `-o json` contract).
pub fn write_json(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    super::write_json(out, std::slice::from_ref(report))
}

fn write_pool(out: &mut dyn Write, pool: &PoolDiff) -> io::Result<()> {
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
    let disks = disk_groups(pool);
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
        write_drift(out, d)?;
    }
    for impact in &pool.impact {
        write_impact(out, impact)?;
    }
    Ok(())
}

/// The on-disk stages: each group of nodes with the same files, and whether
/// they differ from their config.
fn disk_groups(pool: &PoolDiff) -> Vec<String> {
    pool.stages
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
        .collect()
}

fn write_drift(out: &mut dyn Write, d: &Drift) -> io::Result<()> {
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
    Ok(())
}

fn write_impact(out: &mut dyn Write, impact: &Impact) -> io::Result<()> {
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
    Ok(())
}
