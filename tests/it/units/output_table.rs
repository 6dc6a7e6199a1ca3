//! The unit tests of `output::table` in the binary's library.

use comfy_table::Cell;
use kubectl_mirrorpolicy::output::table::*;

fn render(layout: Layout) -> String {
    let mut t = TextTable::new(&layout, &["NAME", "WHAT"], &[0]);
    t.row(vec![
        Cell::new("registry.example.com/apps"),
        Cell::new("one two three four five six seven eight nine ten"),
    ]);
    let mut out = Vec::new();
    t.write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn no_leading_space_two_between_columns() {
    assert_eq!(
        render(Layout::default()),
        "NAME                       WHAT\n\
         registry.example.com/apps  one two three four five six seven eight nine ten\n"
    );
}

#[test]
fn fits_the_width_by_wrapping_prose_not_identifiers() {
    let text = render(Layout {
        width: Some(50),
        ..Layout::default()
    });
    assert!(text.lines().all(|l| l.chars().count() <= 50), "{text}");
    assert!(text.contains("registry.example.com/apps  one"), "{text}");
    assert!(text.lines().count() > 2, "{text}");
}

#[test]
fn list_items_are_never_split() {
    let mut t = TextTable::new(
        &Layout {
            width: Some(30),
            ..Layout::default()
        },
        &["SOURCE", "MIRRORS"],
        &[0],
    );
    t.row(vec![
        Cell::new("quay.io/ns"),
        Cell::new("mirror.corp.example.com:5000/ns, backup.example.com/ns"),
    ]);
    let mut out = Vec::new();
    t.write(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("mirror.corp.example.com:5000/ns,"), "{text}");
    assert!(text.contains("backup.example.com/ns"), "{text}");
}

#[test]
fn a_table_that_cannot_fit_is_not_wrapped() {
    let text = render(Layout {
        width: Some(20),
        ..Layout::default()
    });
    assert_eq!(text, render(Layout::default()));
}

#[test]
fn no_headers() {
    let text = render(Layout {
        no_headers: true,
        ..Layout::default()
    });
    assert!(text.starts_with("registry.example.com/apps  one"), "{text}");
}

fn group(context: &str, words: &str) -> Vec<Vec<Cell>> {
    vec![
        vec![
            Cell::new(context),
            Cell::new("registry.example.com/apps"),
            Cell::new(words),
        ],
        vec![
            Cell::new(context),
            Cell::new("quay.io/x"),
            Cell::new("short"),
        ],
    ]
}

const WORDS: &str = "one two three four five six seven eight nine ten";

fn whole(layout: &Layout, groups: &[Vec<Vec<Cell>>]) -> String {
    let mut t = TextTable::new(layout, &["CONTEXT", "NAME", "WHAT"], &[0, 1]);
    for g in groups {
        for r in g {
            t.row(r.clone());
        }
    }
    let mut out = Vec::new();
    t.write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn parted(layout: &Layout, groups: &[Vec<Vec<Cell>>]) -> String {
    let mut parts = TableParts::new(layout, &["CONTEXT", "NAME", "WHAT"], &[0, 1]);
    let mut out = Vec::new();
    for g in groups {
        parts.group(&mut out, g.clone()).unwrap();
    }
    parts.finish(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn layouts() -> Vec<Layout> {
    let mut all = Vec::new();
    for width in [None, Some(200), Some(60), Some(40), Some(20)] {
        for (colour, no_headers) in [(false, false), (true, false), (false, true)] {
            all.push(Layout {
                width,
                colour,
                no_headers,
            });
        }
    }
    all
}

/// issue 26: a table of one part is the table written at once.
#[test]
fn issue_26_one_part_is_the_whole_table() {
    let groups = vec![group("east", WORDS), group("a-longer-name", "x")];
    for layout in layouts() {
        assert_eq!(
            parted(&layout, &groups),
            whole(&layout, &groups),
            "{layout:?}"
        );
    }
    let mut out = Vec::new();
    let parts = TableParts::new(&Layout::default(), &["A"], &[0]);
    assert!(!parts.finish(&mut out).unwrap(), "no row");
    assert!(out.is_empty());
}

/// issue 26: parts whose cells are no wider than the first part's line
/// up with it: the same bytes as one table, the header once.
#[test]
fn issue_26_parts_line_up() {
    let groups: Vec<_> = (0..PART_GROUPS * 2 + 5)
        .map(|i| group(&format!("c{i:03}"), WORDS))
        .collect();
    for layout in layouts() {
        let text = parted(&layout, &groups);
        assert_eq!(text, whole(&layout, &groups), "{layout:?}");
    }
}

/// issue 26: a part is written as soon as it is full, not at the end.
#[test]
fn issue_26_a_full_part_is_written_at_once() {
    let mut parts = TableParts::new(&Layout::default(), &["CONTEXT", "NAME", "WHAT"], &[0, 1]);
    let mut out = Vec::new();
    for i in 0..PART_GROUPS - 1 {
        parts.group(&mut out, group(&format!("c{i}"), "a")).unwrap();
    }
    assert!(out.is_empty());
    parts.group(&mut out, group("last", "a")).unwrap();
    let first = String::from_utf8(out.clone()).unwrap();
    assert_eq!(first.lines().count(), 1 + 2 * PART_GROUPS, "{first}");
    // Many rows of one group fill a part too.
    let many: Vec<Vec<Cell>> = (0..PART_ROWS).flat_map(|_| group("big", "b")).collect();
    parts.group(&mut out, many).unwrap();
    assert!(out.len() > first.len(), "the big group was written");
    let before = out.len();
    assert!(parts.finish(&mut out).unwrap());
    assert_eq!(out.len(), before, "nothing was left");
}

/// issue 26: a later part with a cell wider than its column starts a
/// new section (a blank line, the header again, its own widths): the
/// rows already written are not misaligned by it.
#[test]
fn issue_26_a_longer_cell_starts_a_new_section() {
    let mut groups: Vec<_> = (0..PART_GROUPS)
        .map(|i| group(&format!("c{i:03}"), "a b"))
        .collect();
    groups.push(group("c-much-longer-context", WORDS));
    for layout in [
        Layout::default(),
        Layout {
            width: Some(60),
            ..Layout::default()
        },
    ] {
        let text = parted(&layout, &groups);
        let lines: Vec<&str> = text.lines().collect();
        let headers: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with("CONTEXT"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(headers.len(), 2, "{text}");
        assert_eq!(lines[headers[1] - 1], "", "a blank line before the section");
        assert_eq!(
            lines[1], "c000     registry.example.com/apps  a b",
            "{text}"
        );
        // The new section is laid out on its own, as a whole table.
        let section = lines[headers[1]..].join("\n") + "\n";
        let last = vec![group("c-much-longer-context", WORDS)];
        assert_eq!(section, whole(&layout, &last), "{layout:?}");
    }
}

/// issue 26: with no header, a new section starts without one (and
/// without the blank line).
#[test]
fn issue_26_new_sections_without_headers() {
    let mut groups: Vec<_> = (0..PART_GROUPS)
        .map(|i| group(&format!("c{i:03}"), "a"))
        .collect();
    groups.push(group("c-much-longer-context", "a"));
    let layout = Layout {
        no_headers: true,
        ..Layout::default()
    };
    let text = parted(&layout, &groups);
    assert!(
        !text.contains("CONTEXT") && !text.contains("\n\n"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("c-much-longer-context  ")),
        "{text}"
    );
}
