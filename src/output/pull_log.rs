//! `audit --journal`, `--journal-file`: the pull log's fleet view as text,
//! one block per image, images with a diverging pull first.

use std::io::{self, Write};

use colored::Colorize;

use mirrorpolicy::journal::fleet::{Fleet, ImageView, NodeReason};
use mirrorpolicy::journal::Verdict;

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The summary line, the pools judged against, the nodes that could not
/// all be judged, and one block per image.
pub fn write_text(out: &mut dyn Write, fleet: &Fleet, name: &str) -> io::Result<()> {
    let against = match fleet.pools.as_slice() {
        [one] => format!("pool {}'s configuration", one.pool),
        _ => "each node's own pool's configuration".to_string(),
    };
    writeln!(
        out,
        "{} {} of {} on {} in {name}, judged against {against}",
        "Pull log:".bold(),
        plural(fleet.pulls, "pull"),
        plural(fleet.images.len(), "image"),
        plural(fleet.nodes.len(), "node"),
    )?;
    if fleet.pools.len() > 1 {
        for p in &fleet.pools {
            writeln!(out, "  pool {}: {}", p.pool, p.nodes.join(", "))?;
        }
    }
    for n in &fleet.undetermined_nodes {
        let pool = n
            .pool
            .as_deref()
            .map_or(String::new(), |p| format!(" (pool {p})"));
        let what = match n.reason {
            NodeReason::Unread => "not read",
            NodeReason::Cut => "cut",
            NodeReason::NoPool => "no pool",
            NodeReason::Events => "from events",
        };
        writeln!(
            out,
            "  {} node {}{pool}: {}: {}",
            "?".yellow().bold(),
            n.node,
            what.yellow(),
            n.message
        )?;
    }
    for v in &fleet.images {
        writeln!(out)?;
        write_image(out, v)?;
    }
    Ok(())
}

fn write_image(out: &mut dyn Write, v: &ImageView) -> io::Result<()> {
    let mut status = Vec::new();
    if v.verdicts.diverges > 0 {
        status.push(
            format!("{} diverging", v.verdicts.diverges)
                .red()
                .bold()
                .to_string(),
        );
    }
    if v.verdicts.undetermined > 0 {
        let u = format!("{} undetermined", v.verdicts.undetermined);
        status.push(u.yellow().to_string());
    }
    if status.is_empty() {
        status.push("all as expected".green().to_string());
    }
    writeln!(
        out,
        "{}  {} on {} ({} pulled, {} failed, {} unfinished): {}",
        v.image.bold(),
        plural(v.pulls, "pull"),
        plural(v.nodes.len(), "node"),
        v.outcomes.pulled,
        v.outcomes.failed,
        v.outcomes.unfinished,
        status.join(", ")
    )?;
    if let Some(e) = &v.error {
        writeln!(out, "  explanation: {e}")?;
    }
    for s in &v.served_by {
        writeln!(
            out,
            "  served by    {:>4}  {} ({})",
            s.pulls, s.reference, s.role
        )?;
    }
    if v.served_by.is_empty() {
        writeln!(out, "  served by       -  (no pull served)")?;
    }
    for m in &v.never_served {
        writeln!(out, "  never served       {m} (mirror)")?;
    }
    for r in &v.journal {
        for a in r.pulls.iter().filter(|a| a.verdict != Verdict::AsExpected) {
            let what = match (&a.divergence, &a.note) {
                (Some(d), _) => d.message.clone(),
                (None, Some(note)) => format!("undetermined: {note}"),
                (None, None) => "undetermined: the log ends before the pull does".to_string(),
            };
            writeln!(
                out,
                "  {} {}  {}: {what}",
                "!".yellow().bold(),
                r.time,
                r.node
            )?;
        }
    }
    if v.summarised > 0 {
        writeln!(
            out,
            "  {} counted above but not listed (only the first and last pulls of an image are kept; narrow --since/--until to list them)",
            plural(v.summarised, "pull"),
        )?;
    }
    Ok(())
}
