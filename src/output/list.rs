//! The `list` table.

use std::io::{self, Write};

use comfy_table::{presets, Attribute, Cell, ContentArrangement, Table};

use crate::list::Rule;

/// Writes the rules as a table; `wide` adds insecure flags and conflicts in full.
pub fn write_table(out: &mut dyn Write, rules: &[Rule], wide: bool) -> io::Result<()> {
    if rules.is_empty() {
        writeln!(
            out,
            "No mirror rules: the objects do not touch registries.conf."
        )?;
        return Ok(());
    }
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    let mut head = vec!["SOURCE", "MIRRORS", "PULL", "SOURCE POLICY", "OBJECTS"];
    head.push(if wide { "CONFLICTS" } else { "FLAGS" });
    t.set_header(
        head.iter()
            .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
    );
    for r in rules {
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
        let last = if wide {
            r.conflicts.join("; ")
        } else {
            let mut flags = Vec::new();
            if r.insecure {
                flags.push("insecure".to_string());
            }
            if !r.conflicts.is_empty() {
                flags.push("order-conflict".to_string());
            }
            flags.join(",")
        };
        t.add_row(vec![
            Cell::new(&r.source),
            Cell::new(if mirrors.is_empty() {
                "-".to_string()
            } else {
                mirrors.join(if wide { "\n" } else { "," })
            }),
            Cell::new(r.pull),
            Cell::new(r.source_policy),
            Cell::new(if objects.is_empty() {
                "-".to_string()
            } else {
                objects.join(",")
            }),
            Cell::new(if last.is_empty() {
                "-".to_string()
            } else {
                last
            }),
        ]);
    }
    for line in t.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
