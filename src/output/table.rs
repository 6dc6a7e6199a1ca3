//! Borderless tables as kubectl prints them: no leading space, two spaces
//! between columns, fitted to a width when one is known.
//!
//! Identifier columns (a source, an image, a pull spec) keep their whole
//! content so they can be copied; prose and list columns wrap at spaces.

use std::io::{self, Write};

use comfy_table::{
    presets, Attribute, Cell, CellAlignment, ColumnConstraint, ContentArrangement, Table, Width,
};

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
        self.arrange();
        for line in self.table.lines() {
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    /// The widest content of each column (header included), and its
    /// longest word.
    fn content_widths(&mut self) -> (Vec<u16>, Vec<u16>) {
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
        (self.table.column_max_content_widths(), longest_words)
    }

    /// Lays the columns out as [`TextTable::write`] says.
    fn arrange(&mut self) {
        let (content, longest_words) = self.content_widths();
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
    }

    /// Gives each column the width it had in `before` (its content width,
    /// without the padding), wider only where a cell needs it: an
    /// identifier longer than that, a word of a wrapping column, or with no
    /// width to fit, any cell.
    fn keep_widths(&mut self, before: &[u16]) {
        let (content, longest_words) = self.content_widths();
        let fixed = self.fixed.clone();
        let wraps = self.width.is_some();
        for (i, column) in self.table.column_iter_mut().enumerate() {
            let needed = if fixed.contains(&i) || !wraps {
                content[i]
            } else {
                longest_words[i]
            };
            let width = needed.max(before.get(i).copied().unwrap_or(0)).max(1);
            column.set_padding((0, 2));
            column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(
                width.saturating_add(2),
            )));
        }
    }

    /// The lines of the table, and the content width each column was given.
    ///
    /// A last row holding an `x` at the right of each column shows where
    /// each column ends; it is taken away. It cannot change the layout: it
    /// is one line (one character never wraps), and no column is narrower
    /// than one character.
    fn lines_and_widths(mut self) -> (Vec<String>, Vec<u16>) {
        let columns = self.table.column_count();
        self.table.add_row(
            (0..columns)
                .map(|_| Cell::new("x").set_alignment(CellAlignment::Right))
                .collect::<Vec<_>>(),
        );
        let mut lines: Vec<String> = self.table.lines().collect();
        let marker = lines.pop().unwrap_or_default();
        let mut widths = Vec::with_capacity(columns);
        let mut start = 0;
        for (end, _) in marker.chars().enumerate().filter(|(_, c)| *c == 'x') {
            widths.push(u16::try_from(end + 1 - start).unwrap_or(u16::MAX));
            // The two blanks of padding, then the next column.
            start = end + 3;
        }
        (lines, widths)
    }
}

/// How many groups of rows (clusters) a part of a [`TableParts`] holds.
pub const PART_GROUPS: usize = 64;

/// How many rows make a part of a [`TableParts`] be written at the end of
/// the group that reaches them, before [`PART_GROUPS`] groups.
pub const PART_ROWS: usize = 1_000;

/// A table whose rows come in groups (the rows of one cluster of a fleet)
/// and are written in parts, so that they are never all held: a part is
/// written once it holds [`PART_GROUPS`] groups or [`PART_ROWS`] rows. The
/// first part is written as [`TextTable::write`] writes a table, with the
/// header; each later one without it, every column as wide as in the parts
/// before, so the parts line up. A part with a cell wider than its column
/// starts a new section instead (a blank line, the header, its own
/// widths), since the rows already written cannot move. A table of one
/// part is the table written at once.
pub struct TableParts {
    layout: Layout,
    header: Vec<String>,
    fixed: Vec<usize>,
    rows: Vec<Vec<Cell>>,
    groups: usize,
    /// The content width of each column, once a part is written.
    widths: Option<Vec<u16>>,
}

impl TableParts {
    /// A table with `header`, its `fixed` columns as [`TextTable::new`].
    pub fn new(layout: &Layout, header: &[&str], fixed: &[usize]) -> Self {
        Self {
            layout: *layout,
            header: header.iter().map(|h| h.to_string()).collect(),
            fixed: fixed.to_vec(),
            rows: Vec::new(),
            groups: 0,
            widths: None,
        }
    }

    /// Adds one group's rows, and writes a part when it is full.
    pub fn group(&mut self, out: &mut dyn Write, rows: Vec<Vec<Cell>>) -> io::Result<()> {
        self.groups += 1;
        self.rows.extend(rows);
        if self.groups >= PART_GROUPS || self.rows.len() >= PART_ROWS {
            self.write_part(out)?;
        }
        Ok(())
    }

    /// Writes the rows left; whether the table had any row.
    pub fn finish(mut self, out: &mut dyn Write) -> io::Result<bool> {
        self.write_part(out)?;
        Ok(self.widths.is_some())
    }

    fn write_part(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.groups = 0;
        if self.rows.is_empty() {
            return Ok(());
        }
        let layout = Layout {
            no_headers: self.layout.no_headers || self.widths.is_some(),
            ..self.layout
        };
        let rows = std::mem::take(&mut self.rows);
        let mut lines = None;
        if let Some(before) = &self.widths {
            // The part in the columns of the parts before, when it fits them.
            let mut t = self.table(&layout, rows.clone());
            t.keep_widths(before);
            let (kept, widths) = t.lines_and_widths();
            if widths == *before {
                lines = Some(kept);
            }
        }
        let lines = match lines {
            Some(lines) => lines,
            None => {
                // A cell wider than its column: the rows already written
                // cannot move, so a new section starts, with its header.
                if self.widths.is_some() && !self.layout.no_headers {
                    writeln!(out)?;
                }
                let mut t = self.table(&self.layout, rows);
                t.arrange();
                let (lines, widths) = t.lines_and_widths();
                self.widths = Some(widths);
                lines
            }
        };
        for line in lines {
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    /// A table of this header and `rows`.
    fn table(&self, layout: &Layout, rows: Vec<Vec<Cell>>) -> TextTable {
        let header: Vec<&str> = self.header.iter().map(String::as_str).collect();
        let mut t = TextTable::new(layout, &header, &self.fixed);
        for row in rows {
            t.row(row);
        }
        t
    }
}
