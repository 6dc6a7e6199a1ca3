//! The `audit` table: one row per image, worst first, and the counts.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color};

use super::many::ByContext;
use super::table::{Layout, TableParts, TextTable};
use mirrorpolicy::audit::{AuditedImage, Class, Level, OperatorUpdate, Report};
use mirrorpolicy::upgrade::Readiness;

/// Writes the images worst first, then a line of counts per class; `wide`
/// lists every object behind an image.
pub fn write_table(
    out: &mut dyn Write,
    report: &Report,
    wide: bool,
    layout: &Layout,
) -> io::Result<()> {
    if !report.images.is_empty() {
        let head = ["CLASS", "IMAGE", "OBJECTS", "SIGNATURE", "DETAIL"];
        // Identifiers are never wrapped: the class, image, signature, and the
        // object (the wide list of objects wraps between them).
        let fixed: &[usize] = if wide { &[0, 1, 3] } else { &[0, 1, 2, 3] };
        let mut t = TextTable::new(layout, &head, fixed);
        for i in &report.images {
            t.row(row(i, wide));
        }
        t.write(out)?;
        writeln!(out)?;
    }
    writeln!(out, "{}", counts(report))?;
    if let Some(updates) = &report.updates {
        write_updates(out, updates, wide, layout)?;
    }
    Ok(())
}

/// `--updates`: one row per Subscription (its namespace and name), the
/// installed and next CSV, the readiness and its reason (wide: and the
/// message); then the counts.
fn write_updates(
    out: &mut dyn Write,
    updates: &[OperatorUpdate],
    wide: bool,
    layout: &Layout,
) -> io::Result<()> {
    writeln!(out)?;
    if !updates.is_empty() {
        let mut head = vec!["SUBSCRIPTION", "INSTALLED", "NEXT", "READINESS", "REASON"];
        if wide {
            head.push("MESSAGE");
        }
        let mut t = TextTable::new(layout, &head, &[0, 1, 2, 3, 4]);
        for u in updates {
            t.row(update_row(u, wide));
        }
        t.write(out)?;
        writeln!(out)?;
    }
    writeln!(out, "{}", update_counts(updates))
}

fn update_row(u: &OperatorUpdate, wide: bool) -> Vec<Cell> {
    let readiness = Cell::new(u.readiness.as_str());
    let readiness = match u.readiness {
        Readiness::NotReady => readiness.fg(Color::Red).add_attribute(Attribute::Bold),
        Readiness::Undetermined => readiness.fg(Color::Yellow),
        Readiness::Ready => readiness.fg(Color::Green),
    };
    let mut cells = vec![
        Cell::new(super::operator_name(u.kind, &u.namespace, &u.subscription)),
        Cell::new(u.installed_csv.as_deref().unwrap_or("-")),
        Cell::new(u.next_csv.as_deref().unwrap_or("-")),
        readiness,
        Cell::new(&u.reason),
    ];
    if wide {
        cells.push(Cell::new(&u.message));
    }
    cells
}

/// `N operator updates: n ready, n notReady, n undetermined`.
fn update_counts(updates: &[OperatorUpdate]) -> String {
    let counts: Vec<String> = [
        Readiness::Ready,
        Readiness::NotReady,
        Readiness::Undetermined,
    ]
    .into_iter()
    .filter_map(|r| {
        let n = updates.iter().filter(|u| u.readiness == r).count();
        (n > 0).then(|| format!("{n} {}", r.as_str()))
    })
    .collect();
    let total = updates.len();
    format!(
        "{total} operator update{}{}{}",
        if total == 1 { "" } else { "s" },
        if counts.is_empty() { "" } else { ": " },
        counts.join(", ")
    )
}

/// The cells of one image.
fn row(i: &AuditedImage, wide: bool) -> Vec<Cell> {
    let class = Cell::new(i.class.as_str());
    let class = match i.class.level() {
        Level::Error => class.fg(Color::Red).add_attribute(Attribute::Bold),
        Level::Warning => class.fg(Color::Yellow),
        Level::Ok => class.fg(Color::Green),
    };
    vec![
        class,
        Cell::new(&i.reference),
        Cell::new(objects(i, wide)),
        Cell::new(if i.signature_required {
            "required"
        } else {
            "-"
        }),
        Cell::new(&i.detail),
    ]
}

/// The wide table of several clusters at once, written as each cluster is
/// done: the image rows in parts; then, with `--updates`, one table of every
/// cluster's operator updates (a row each, as one cluster's wide table
/// has them, behind the CONTEXT column: a few per cluster, kept until the
/// end); then each cluster's line of counts.
pub struct TableByContext {
    parts: TableParts,
    layout: Layout,
    /// The update rows of every cluster read so far; `None` without `--updates`.
    updates: Option<Vec<Vec<Cell>>>,
    counts: Vec<String>,
}

impl TableByContext {
    pub fn new(layout: &Layout) -> Self {
        let head = [
            "CONTEXT",
            "CLASS",
            "IMAGE",
            "OBJECTS",
            "SIGNATURE",
            "DETAIL",
        ];
        Self {
            parts: TableParts::new(layout, &head, &[0, 1, 2, 4]),
            layout: *layout,
            updates: None,
            counts: Vec::new(),
        }
    }
}

impl ByContext<Report> for TableByContext {
    fn cluster(&mut self, out: &mut dyn Write, context: &str, report: &Report) -> io::Result<()> {
        let rows = report
            .images
            .iter()
            .map(|i| {
                let mut cells = vec![Cell::new(context)];
                cells.extend(row(i, true));
                cells
            })
            .collect();
        if let Some(updates) = &report.updates {
            let rows = self.updates.get_or_insert_with(Vec::new);
            rows.extend(updates.iter().map(|u| {
                let mut cells = vec![Cell::new(context)];
                cells.extend(update_row(u, true));
                cells
            }));
        }
        let updates = report
            .updates
            .as_deref()
            .map_or_else(String::new, |u| format!("; {}", update_counts(u)));
        self.counts
            .push(format!("{context}: {}{updates}", counts(report)));
        self.parts.group(out, rows)
    }

    fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        if self.parts.finish(out)? {
            writeln!(out)?;
        }
        if let Some(rows) = self.updates.filter(|r| !r.is_empty()) {
            let head = [
                "CONTEXT",
                "SUBSCRIPTION",
                "INSTALLED",
                "NEXT",
                "READINESS",
                "REASON",
                "MESSAGE",
            ];
            let mut t = TextTable::new(&self.layout, &head, &[0, 1, 2, 3, 4, 5]);
            for r in rows {
                t.row(r);
            }
            t.write(out)?;
            writeln!(out)?;
        }
        for line in &self.counts {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

/// `N images: n class, ...`.
fn counts(report: &Report) -> String {
    let counts: Vec<String> = Class::ALL
        .iter()
        .chain(&Class::PROBED)
        .filter_map(|c| {
            let n = report.summary.get(c.as_str()).copied().unwrap_or(0);
            (n > 0).then(|| format!("{n} {}", c.as_str()))
        })
        .collect();
    let total = report.images.len();
    format!(
        "{total} image{}{}{}",
        if total == 1 { "" } else { "s" },
        if counts.is_empty() { "" } else { ": " },
        counts.join(", ")
    )
}

fn objects(image: &AuditedImage, wide: bool) -> String {
    if wide {
        image.objects.join(", ")
    } else if image.objects.len() == 1 {
        image.objects[0].clone()
    } else {
        format!("{} ({} objects)", image.objects[0], image.objects.len())
    }
}
