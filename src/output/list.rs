//! The `list` table.

use std::io::{self, Write};

use comfy_table::{Cell, Color};

use super::many::ByContext;
use super::table::{Layout, TableParts, TextTable};

use mirrorpolicy::list::Rule;

/// One source scope a line (`-o name`), for scripts.
pub fn write_names(out: &mut dyn Write, rules: &[Rule]) -> io::Result<()> {
    for r in rules {
        writeln!(out, "{}", r.source)?;
    }
    Ok(())
}

/// Writes the rules as a table; `wide` adds each mirror's pull-from-mirror
/// and insecure flag, and the conflicts in full.
pub fn write_table(
    out: &mut dyn Write,
    rules: &[Rule],
    wide: bool,
    layout: &Layout,
) -> io::Result<()> {
    if rules.is_empty() {
        writeln!(
            out,
            "No mirror rules: the objects do not touch registries.conf."
        )?;
        return Ok(());
    }
    let head = if wide {
        &HEAD[..]
    } else {
        &HEAD[..HEAD.len() - 1]
    };
    // The source, pull and policy are identifiers: never wrapped.
    let mut t = TextTable::new(layout, head, &[0, 2, 3, 5]);
    for r in rules {
        t.row(row(r, wide));
    }
    t.write(out)
}

/// The cells of one rule.
fn row(r: &Rule, wide: bool) -> Vec<Cell> {
    let mirrors: Vec<String> = r
        .mirrors
        .iter()
        .map(|m| {
            let mut s = m.location.clone();
            if wide && !m.pull_from_mirror.is_empty() {
                s.push_str(&format!(" ({})", m.pull_from_mirror));
            }
            if wide && m.insecure {
                s.push_str(" [insecure]");
            }
            s
        })
        .collect();
    let objects: Vec<&str> = r.objects.iter().map(|o| o.as_str()).collect();
    let mut flags = Vec::new();
    if r.insecure {
        flags.push("insecure");
    }
    if !r.conflicts.is_empty() {
        flags.push("order-conflict");
    }
    let dash = |text: String| {
        if text.is_empty() {
            "-".to_string()
        } else {
            text
        }
    };
    let policy = Cell::new(r.source_policy);
    let policy = match r.source_policy {
        "blocked" => policy.fg(Color::Red),
        "NeverContactSource" => policy.fg(Color::Yellow),
        _ => policy,
    };
    let flags = Cell::new(dash(flags.join(",")));
    let flags = if r.insecure || !r.conflicts.is_empty() {
        flags.fg(Color::Yellow)
    } else {
        flags
    };
    let mut row = vec![
        Cell::new(&r.source),
        Cell::new(dash(mirrors.join(if wide { "\n" } else { ", " }))),
        Cell::new(r.pull),
        policy,
        Cell::new(dash(objects.join(", "))),
        flags,
    ];
    if wide {
        row.push(Cell::new(dash(r.conflicts.join("; "))));
    }
    row
}

/// The columns of the table; the last (CONFLICTS) only with `-o wide`.
const HEAD: [&str; 7] = [
    "SOURCE",
    "MIRRORS",
    "PULL",
    "SOURCE POLICY",
    "OBJECTS",
    "FLAGS",
    "CONFLICTS",
];

/// The wide table of several clusters at once, written as each cluster is done.
pub struct TableByContext {
    parts: TableParts,
}

impl TableByContext {
    pub fn new(layout: &Layout) -> Self {
        let head: Vec<&str> = std::iter::once("CONTEXT").chain(HEAD).collect();
        Self {
            parts: TableParts::new(layout, &head, &[0, 1, 3, 4, 6]),
        }
    }

    /// Adds one cluster's rules.
    pub fn rules(&mut self, out: &mut dyn Write, context: &str, rules: &[Rule]) -> io::Result<()> {
        let rows = rules
            .iter()
            .map(|r| {
                let mut cells = vec![Cell::new(context)];
                cells.extend(row(r, true));
                cells
            })
            .collect();
        self.parts.group(out, rows)
    }
}

impl ByContext<Vec<Rule>> for TableByContext {
    fn cluster(&mut self, out: &mut dyn Write, context: &str, rules: &Vec<Rule>) -> io::Result<()> {
        self.rules(out, context, rules)
    }

    /// Says so when no cluster had a rule.
    fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        if !self.parts.finish(out)? {
            writeln!(
                out,
                "No mirror rules: no cluster's objects touch registries.conf."
            )?;
        }
        Ok(())
    }
}
