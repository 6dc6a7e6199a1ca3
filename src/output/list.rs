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

/// The wide table of several clusters at once: a CONTEXT column first,
/// then each cluster's rules as [`write_table`] shows them wide.
#[cfg(test)]
fn write_table_by_context(
    out: &mut dyn Write,
    clusters: &[(&str, &[Rule])],
    layout: &Layout,
) -> io::Result<()> {
    let mut table = TableByContext::new(layout);
    for (context, rules) in clusters {
        table.rules(out, context, rules)?;
    }
    table.finish(out)
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

#[cfg(test)]
mod tests {
    use super::*;
    use mirrorpolicy::list::RuleMirror;
    use mirrorpolicy::origin::Origin;

    fn rules() -> Vec<Rule> {
        vec![Rule {
            source: "registry.redhat.io/rhel9".to_string(),
            mirrors: vec![
                RuleMirror {
                    location: "m.example.com/rhel9".to_string(),
                    pull_from_mirror: "digest-only".to_string(),
                    insecure: true,
                },
                RuleMirror {
                    location: "b.example.com/rhel9".to_string(),
                    pull_from_mirror: String::new(),
                    insecure: false,
                },
            ],
            pull: "both",
            blocked: false,
            insecure: false,
            source_policy: "AllowContactingSource",
            objects: vec![Origin::from("ImageDigestMirrorSet/rhel")],
            conflicts: vec!["order differs".to_string()],
        }]
    }

    fn render(wide: bool, no_headers: bool) -> Vec<String> {
        let mut out = Vec::new();
        let layout = Layout {
            no_headers,
            ..Layout::default()
        };
        write_table(&mut out, &rules(), wide, &layout).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn table_wide_name_and_no_headers() {
        assert_eq!(
            render(false, false),
            [
                "SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS",
                "registry.redhat.io/rhel9 m.example.com/rhel9, b.example.com/rhel9 both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict",
            ]
        );
        assert_eq!(
            render(true, true),
            [
                "registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
                "b.example.com/rhel9",
            ]
        );
        let mut out = Vec::new();
        write_names(&mut out, &rules()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "registry.redhat.io/rhel9\n"
        );
    }

    #[test]
    fn no_rules_says_so() {
        let mut out = Vec::new();
        write_table(&mut out, &[], false, &Layout::default()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "No mirror rules: the objects do not touch registries.conf.\n"
        );
    }

    #[test]
    fn issue_17_one_table_with_a_context_column() {
        let rules = rules();
        let mut out = Vec::new();
        write_table_by_context(
            &mut out,
            &[("east", &rules[..]), ("west", &[]), ("lab", &rules[..])],
            &Layout::default(),
        )
        .unwrap();
        let lines: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(
            lines,
            [
                "CONTEXT SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS CONFLICTS",
                "east registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
                "b.example.com/rhel9",
                "lab registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
                "b.example.com/rhel9",
            ]
        );
        let mut out = Vec::new();
        write_table_by_context(&mut out, &[("west", &[])], &Layout::default()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "No mirror rules: no cluster's objects touch registries.conf.\n"
        );
    }
}
