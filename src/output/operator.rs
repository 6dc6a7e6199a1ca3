//! The `operator-check` report as text: per Subscription its catalog, its
//! verdict, the update path hop by hop, every image of the path (the
//! failing ones stand out), and the next steps.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color};

use super::table::{Layout, TextTable};
use mirrorpolicy::olm::check::{HopImage, ImageClass, ImageRole, SubscriptionCheck};
use mirrorpolicy::upgrade::{ImageOutcome, Readiness};

/// Writes every Subscription's check, a blank line between them.
pub fn write_text(
    out: &mut dyn Write,
    checks: &[SubscriptionCheck],
    layout: &Layout,
) -> io::Result<()> {
    for (i, c) in checks.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_one(out, c, layout)?;
    }
    Ok(())
}

fn write_one(out: &mut dyn Write, c: &SubscriptionCheck, layout: &Layout) -> io::Result<()> {
    write_header(out, c)?;
    if !c.hops.is_empty() {
        writeln!(out)?;
        write_hops(out, c, layout)?;
    }
    if !c.next_steps.is_empty() {
        writeln!(out, "\nNext steps:")?;
        for s in &c.next_steps {
            writeln!(out, "  {}: {}", s.outcome, s.step)?;
            for command in &s.commands {
                writeln!(out, "    {command}")?;
            }
        }
    }
    Ok(())
}

/// The Subscription, its catalog, what is installed, the head and the verdict.
fn write_header(out: &mut dyn Write, c: &SubscriptionCheck) -> io::Result<()> {
    let name = if c.namespace.is_empty() {
        c.name.clone()
    } else {
        format!("{}/{}", c.namespace, c.name)
    };
    let channel = c
        .channel
        .as_deref()
        .unwrap_or("(every channel, default first)");
    writeln!(
        out,
        "Subscription: {name} (package {}, channel {channel})",
        c.package
    )?;
    let source = c
        .catalog
        .source
        .as_deref()
        .map(|s| format!(" (CatalogSource {s})"))
        .unwrap_or_default();
    if !c.catalog.image.is_empty() {
        writeln!(out, "Catalog:      {}{source}", c.catalog.image)?;
    }
    if let Some(p) = &c.catalog.check {
        let by = p
            .served_by
            .as_deref()
            .map(|b| format!(" by {b}"))
            .unwrap_or_default();
        let digest = c
            .catalog
            .digest
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        writeln!(out, "              {}{by}{digest}", p.outcome.as_str())?;
    }
    if let Some(pool) = &c.catalog.pool {
        let why = c.catalog.pool_reason.as_deref().unwrap_or_default();
        writeln!(out, "Pool:         {pool} ({why})")?;
    }
    for (i, secret) in c.catalog.pull_secrets.iter().enumerate() {
        let label = if i == 0 { "Secrets:" } else { "" };
        writeln!(out, "{label:<14}{}", secret.message)?;
    }
    let installed = c
        .installed_csv
        .as_deref()
        .or(c.starting_csv.as_deref().map(|_| "nothing (startingCSV)"))
        .unwrap_or("nothing");
    writeln!(out, "Installed:    {installed}")?;
    if let Some(plan) = &c.install_plan {
        writeln!(out, "Pending:      {}", plan.message)?;
    }
    if let Some(head) = &c.head {
        writeln!(out, "Head:         {head}")?;
    }
    let verdict = match c.readiness {
        Readiness::Ready => "ready",
        Readiness::NotReady => "NOT READY",
        Readiness::Undetermined => "undetermined",
    };
    writeln!(out, "Verdict:      {verdict} ({}): {}", c.reason, c.message)
}

/// The hops, then every image of every hop.
fn write_hops(out: &mut dyn Write, c: &SubscriptionCheck, layout: &Layout) -> io::Result<()> {
    let head = ["HOP", "FROM", "TO", "EDGE", "APPROVAL", "IMAGES", "FAILING"];
    let mut t = TextTable::new(layout, &head, &[0, 1, 2, 3, 4, 5, 6]);
    for (i, h) in c.hops.iter().enumerate() {
        let failing = h.images.iter().filter(|m| m.fails()).count();
        t.row(vec![
            Cell::new(i + 1),
            Cell::new(h.from.as_deref().unwrap_or("-")),
            Cell::new(&h.to),
            Cell::new(camel(h.edge)),
            Cell::new(&h.approval),
            Cell::new(h.images.len()),
            Cell::new(failing),
        ]);
    }
    t.write(out)?;
    writeln!(out)?;
    let head = ["HOP", "OUTCOME", "ROLE", "CLASS", "REFERENCE", "SERVED BY"];
    let mut t = TextTable::new(layout, &head, &[0, 1, 2, 3]);
    for (i, h) in c.hops.iter().enumerate() {
        for m in &h.images {
            t.row(image_row(i + 1, m));
        }
    }
    t.write(out)
}

/// A value's JSON spelling (`skipRange`, `tagSkipsDigestMirrors`).
fn camel(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn image_row(hop: usize, m: &HopImage) -> Vec<Cell> {
    let outcome = match (&m.check, m.class) {
        (_, ImageClass::EmptyReference) => "empty".to_string(),
        (Some(c), _) => c.outcome.as_str().to_string(),
        (None, _) => "-".to_string(),
    };
    let mut outcome = Cell::new(if m.counted {
        outcome
    } else {
        format!("{outcome} (not counted)")
    });
    outcome = if m.fails() {
        outcome.fg(Color::Red).add_attribute(Attribute::Bold)
    } else if m
        .check
        .as_ref()
        .is_some_and(|c| c.outcome == ImageOutcome::Served)
    {
        outcome.fg(Color::Green)
    } else {
        outcome.fg(Color::Yellow)
    };
    let role = match m.role {
        ImageRole::Bundle => "bundle".to_string(),
        ImageRole::Operator => "operator".to_string(),
        ImageRole::Related if m.name.is_empty() => "related".to_string(),
        ImageRole::Related => format!("related ({})", m.name),
    };
    let class = camel(m.class);
    let by = m
        .check
        .as_ref()
        .and_then(|c| c.served_by.as_deref())
        .unwrap_or("-");
    vec![
        Cell::new(hop),
        outcome,
        Cell::new(role),
        Cell::new(class),
        Cell::new(&m.reference),
        Cell::new(by),
    ]
}
