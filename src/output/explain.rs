//! The human view of `explain`: one block per image, one pull-order table
//! per candidate.
//!
//! Colour follows `colored`'s global switch, which the command layer sets
//! from `--color`, `NO_COLOR` and the terminal; the text reads the same
//! without it (blocked endpoints say "blocked", not just red).

use std::io::{self, Write};

use colored::Colorize;
use comfy_table::{presets, Attribute, Cell, Color, ContentArrangement, Table};

use crate::explain::{Candidate, Explanation, ResolvedBy};
use crate::registries::lookup::Role;

/// Writes the explanations as text blocks separated by a blank line.
pub fn write_table(out: &mut dyn Write, items: &[Explanation]) -> io::Result<()> {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write_one(out, e)?;
    }
    Ok(())
}

fn colorize() -> bool {
    colored::control::SHOULD_COLORIZE.should_colorize()
}

fn label(text: &str) -> String {
    format!("{:<11}", format!("{text}:")).bold().to_string()
}

fn write_one(out: &mut dyn Write, e: &Explanation) -> io::Result<()> {
    writeln!(out, "{}{}", label("Image"), e.image.bold())?;
    if let Some(ns) = &e.namespace {
        writeln!(out, "{}{ns}", label("Namespace"))?;
    }
    let n = e.candidates.len();
    for (i, c) in e.candidates.iter().enumerate() {
        if n > 1 {
            writeln!(out)?;
            writeln!(
                out,
                "{}",
                format!("Candidate {} of {n} (short-name mode {})", i + 1, mode(e)).bold()
            )?;
        }
        write_candidate(out, c)?;
    }
    if !e.warnings.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", "Warnings:".bold())?;
        for w in &e.warnings {
            writeln!(out, "  {} {w}", "!".yellow().bold())?;
        }
    }
    Ok(())
}

fn mode(e: &Explanation) -> &'static str {
    match e.short_name_mode {
        crate::registries::ShortNameMode::Enforcing => "enforcing",
        crate::registries::ShortNameMode::Permissive => "permissive",
        crate::registries::ShortNameMode::Disabled => "disabled",
    }
}

fn origins(list: &[crate::origin::Origin]) -> String {
    list.iter()
        .map(|o| o.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_candidate(out: &mut dyn Write, c: &Candidate) -> io::Result<()> {
    let how = if c.by_digest { "by digest" } else { "by tag" };
    writeln!(out, "{}{} ({how})", label("Reference"), c.reference)?;
    match &c.resolved_by {
        ResolvedBy::Qualified => {}
        ResolvedBy::Alias { alias, origins: o } => writeln!(
            out,
            "{}short-name alias \"{alias}\" ({})",
            label("Resolved"),
            origins(o)
        )?,
        ResolvedBy::SearchRegistry {
            registry,
            origins: o,
        } => writeln!(
            out,
            "{}unqualified-search-registries entry \"{registry}\"{}",
            label("Resolved"),
            if o.is_empty() {
                String::new()
            } else {
                format!(" ({})", origins(o))
            }
        )?,
    }
    match &c.registry {
        Some(r) => {
            let kind = if r.prefix.starts_with("*.") {
                "wildcard prefix"
            } else {
                "prefix"
            };
            let mut flags = Vec::new();
            if r.mirror_by_digest_only {
                flags.push("mirror-by-digest-only");
            }
            if r.blocked {
                flags.push("blocked");
            }
            if r.insecure {
                flags.push("insecure");
            }
            let flags = if flags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", flags.join(", "))
            };
            writeln!(
                out,
                "{}[[registry]] {kind} \"{}\"{flags} ({})",
                label("Registry"),
                r.prefix,
                origins(&r.origins)
            )?;
            if !r.also_matched.is_empty() {
                let lost: Vec<String> = r.also_matched.iter().map(|p| format!("\"{p}\"")).collect();
                writeln!(
                    out,
                    "{:11}won as the most specific prefix; also matched: {}",
                    "",
                    lost.join(", ")
                )?;
            }
        }
        None => writeln!(
            out,
            "{}no [[registry]] entry matches: pulled from its own registry, no mirrors",
            label("Registry")
        )?,
    }
    if let Some(err) = &c.error {
        writeln!(out, "{}{}", label("Pull"), err.red().bold())?;
    } else {
        writeln!(out)?;
        for line in sources_table(c).lines() {
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    if !c.skipped.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", "Skipped mirrors:".bold())?;
        for s in &c.skipped {
            writeln!(
                out,
                "  - {}: {} ({})",
                s.reference,
                s.reason,
                origins(&s.origins)
            )?;
        }
    }
    writeln!(out)?;
    match &c.signature {
        Some(sig) => {
            let verdict = if c.allowed {
                "allowed".green().to_string()
            } else {
                "rejected".red().bold().to_string()
            };
            let scope = match &sig.scope {
                None => "the global default".to_string(),
                Some(s) if s.is_empty() => "the docker transport default".to_string(),
                Some(s) => format!("scope \"{s}\""),
            };
            writeln!(
                out,
                "{}{verdict} by {scope} ({})",
                label("Policy"),
                origins(&sig.origins)
            )?;
            for r in &sig.requirements {
                writeln!(out, "{:11}- {}", "", r.summary())?;
            }
        }
        None => writeln!(
            out,
            "{}not evaluated (pass --policy-json to see the signature policy)",
            label("Policy")
        )?,
    }
    Ok(())
}

fn sources_table(c: &Candidate) -> Table {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled);
    if colorize() {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    let head = ["#", "ROLE", "PULL SPEC", "FLAGS", "ORIGIN"];
    t.set_header(
        head.iter()
            .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
    );
    for (i, s) in c.sources.iter().enumerate() {
        let mut flags = Vec::new();
        if s.blocked {
            flags.push("blocked");
        }
        if s.insecure {
            flags.push("insecure");
        }
        let role = match s.role {
            Role::Mirror => "mirror",
            Role::Source => "source",
        };
        let mut spec = Cell::new(&s.reference);
        if s.blocked {
            spec = spec.fg(Color::Red);
        } else if i
            == c.sources
                .iter()
                .position(|s| !s.blocked)
                .unwrap_or(usize::MAX)
        {
            spec = spec.fg(Color::Green);
        }
        t.add_row(vec![
            Cell::new(i + 1),
            Cell::new(role),
            spec,
            Cell::new(if flags.is_empty() {
                "-".to_string()
            } else {
                flags.join(",")
            }),
            Cell::new(origins(&s.origins)),
        ]);
    }
    t
}
