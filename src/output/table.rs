//! Borderless tables as kubectl prints them: no leading space, two spaces
//! between columns, fitted to a width when one is known.
//!
//! Identifier columns (a source, an image, a pull spec) keep their whole
//! content so they can be copied; prose and list columns wrap at spaces.

use std::io::{self, Write};

use comfy_table::{presets, Attribute, Cell, ColumnConstraint, ContentArrangement, Table, Width};

/// How a table is laid out for the reader.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Layout {
    /// The width to fit (the terminal's, or `COLUMNS`); `None`: whole lines.
    pub width: Option<u16>,
    /// Whether cells may carry colour.
    pub colour: bool,
    /// Leaves out the header row (`--no-headers`, as kubectl).
    pub no_headers: bool,
}

/// A table being filled.
pub struct TextTable {
    table: Table,
    fixed: Vec<usize>,
    width: Option<u16>,
}

impl TextTable {
    /// A table with `header`; the columns whose indexes are in `fixed` keep
    /// their content width, the others wrap when the table must fit.
    pub fn new(layout: &Layout, header: &[&str], fixed: &[usize]) -> Self {
        let mut table = Table::new();
        table.load_style(presets::NOTHING);
        match layout.width {
            Some(width) => table
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(width),
            None => table.set_content_arrangement(ContentArrangement::Disabled),
        };
        if layout.colour {
            table.enforce_styling();
        } else {
            table.force_no_tty();
        }
        if !layout.no_headers {
            table.set_header(
                header
                    .iter()
                    .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
            );
        }
        Self {
            table,
            fixed: fixed.to_vec(),
            width: layout.width,
        }
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<Cell>) {
        self.table.add_row(cells);
    }

    /// Writes the table, each line without trailing blanks. A wrapping
    /// column is never narrower than its longest word, so an item of a list
    /// (a mirror, an object) is never split; when even that cannot fit the
    /// width, nothing is wrapped (a narrower column would not help).
    pub fn write(mut self, out: &mut dyn Write) -> io::Result<()> {
        let longest_words: Vec<u16> = (0..self.table.column_count())
            .map(|i| {
                self.table
                    .column_cells_with_header_iter(i)
                    .flatten()
                    .flat_map(|cell| {
                        cell.content()
                            .split_whitespace()
                            .map(|w| w.chars().count())
                            .max()
                    })
                    .max()
                    .unwrap_or(0)
                    .try_into()
                    .unwrap_or(u16::MAX)
            })
            .collect();
        let content = self.table.column_max_content_widths();
        let narrowest: u32 = content
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let w = if self.fixed.contains(&i) {
                    *w
                } else {
                    longest_words[i]
                };
                u32::from(w) + 2
            })
            .sum();
        if self.width.is_some_and(|w| narrowest > u32::from(w)) {
            self.table
                .set_content_arrangement(ContentArrangement::Disabled);
        }
        for (i, column) in self.table.column_iter_mut().enumerate() {
            column.set_padding((0, 2));
            let constraint = if self.fixed.contains(&i) {
                ColumnConstraint::ContentWidth
            } else {
                ColumnConstraint::LowerBoundary(Width::Fixed(longest_words[i].saturating_add(2)))
            };
            column.set_constraint(constraint);
        }
        for line in self.table.lines() {
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
