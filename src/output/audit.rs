//! The `audit` table: one row per image, worst first, and the counts.

use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color};

use super::many::ByContext;
use super::table::{Layout, TableParts, TextTable};
use mirrorpolicy::audit::{AuditedImage, Class, Level, Report};

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
    writeln!(out, "{}", counts(report))
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

/// The wide table of several clusters at once: a CONTEXT column first,
/// each cluster's images worst first, then each cluster's counts.
#[cfg(test)]
fn write_table_by_context(
    out: &mut dyn Write,
    clusters: &[(&str, &Report)],
    layout: &Layout,
) -> io::Result<()> {
    let mut table = TableByContext::new(layout);
    for (context, report) in clusters {
        table.cluster(out, context, report)?;
    }
    table.finish(out)
}

/// The wide table of several clusters at once, written as each cluster is done: the rows
/// in parts, each cluster's line of counts (all that is kept of it) at the
/// end.
pub struct TableByContext {
    parts: TableParts,
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
        self.counts.push(format!("{context}: {}", counts(report)));
        self.parts.group(out, rows)
    }

    fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        if self.parts.finish(out)? {
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn report() -> Report {
        let images = vec![
            AuditedImage {
                reference: "docker.io/library/nginx:1.25".to_string(),
                class: Class::Direct,
                objects: vec!["Pod/shop/a".to_string(), "Pod/shop/b".to_string()],
                signature_required: false,
                detail: "no mirror rule".to_string(),
                fix: None,
                probe: None,
                pull_secrets: Vec::new(),
            },
            AuditedImage {
                reference: "quay.io/x@sha256:00".to_string(),
                class: Class::Mirrored,
                objects: vec!["Pod/shop/c".to_string()],
                signature_required: true,
                detail: "first from m".to_string(),
                fix: None,
                probe: None,
                pull_secrets: Vec::new(),
            },
        ];
        let mut summary: BTreeMap<&'static str, usize> = BTreeMap::new();
        summary.insert("direct", 1);
        summary.insert("mirrored", 1);
        Report { images, summary }
    }

    fn render(wide: bool, no_headers: bool) -> String {
        let mut out = Vec::new();
        let layout = Layout {
            no_headers,
            ..Layout::default()
        };
        write_table(&mut out, &report(), wide, &layout).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn table_wide_and_no_headers() {
        let table = render(false, false);
        assert_eq!(
            table
                .lines()
                .map(str::split_whitespace)
                .map(|w| w.collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>(),
            [
                "CLASS IMAGE OBJECTS SIGNATURE DETAIL",
                "direct docker.io/library/nginx:1.25 Pod/shop/a (2 objects) - no mirror rule",
                "mirrored quay.io/x@sha256:00 Pod/shop/c required first from m",
                "",
                "2 images: 1 direct, 1 mirrored",
            ]
        );
        let wide = render(true, false);
        assert!(wide.contains("Pod/shop/a, Pod/shop/b"), "{wide}");
        let bare = render(false, true);
        assert!(!bare.contains("CLASS"), "{bare}");
        assert!(bare.starts_with("direct"), "{bare}");
    }

    #[test]
    fn no_images_is_a_count_line() {
        let mut out = Vec::new();
        let empty = Report {
            images: Vec::new(),
            summary: BTreeMap::new(),
        };
        write_table(&mut out, &empty, false, &Layout::default()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "0 images\n");
    }

    #[test]
    fn issue_17_one_table_with_a_context_column() {
        let (a, empty) = (
            report(),
            Report {
                images: Vec::new(),
                summary: BTreeMap::new(),
            },
        );
        let mut out = Vec::new();
        write_table_by_context(
            &mut out,
            &[("east", &a), ("west", &empty)],
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
                "CONTEXT CLASS IMAGE OBJECTS SIGNATURE DETAIL",
                "east direct docker.io/library/nginx:1.25 Pod/shop/a, Pod/shop/b - no mirror rule",
                "east mirrored quay.io/x@sha256:00 Pod/shop/c required first from m",
                "",
                "east: 2 images: 1 direct, 1 mirrored",
                "west: 0 images",
            ]
        );
    }
}
