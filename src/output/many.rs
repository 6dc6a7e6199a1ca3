//! Several clusters at once: one section per context in text.

use std::fmt;
use std::io::{self, Write};

use serde::Serialize;

/// A table of several clusters (the `-o wide` tables of `list` and
/// `audit`), written as each cluster is done, in the clusters' order: its
/// rows are held only until a part of the table is full (see
/// [`super::table::TableParts`]).
pub trait ByContext<T: ?Sized> {
    /// Adds one cluster's rows, named `context`.
    fn cluster(&mut self, out: &mut dyn Write, context: &str, data: &T) -> io::Result<()>;

    /// Writes what is left, after the last cluster.
    fn finish(self, out: &mut dyn Write) -> io::Result<()>;
}

/// One cluster's section: its captured output, or the lines of its error
/// (the message, then each cause).
#[derive(Debug, Clone, Copy)]
pub struct Section<'a> {
    pub context: &'a str,
    pub server: Option<&'a str>,
    pub result: Result<&'a [u8], &'a [String]>,
}

/// `NAME (SERVER)`.
pub fn header_name(context: &str, server: Option<&str>) -> String {
    format!(
        "{context} ({})",
        server.unwrap_or("no server in the kubeconfig")
    )
}

/// `== context NAME (SERVER)`.
pub fn header(context: &str, server: Option<&str>) -> String {
    format!("== context {}", header_name(context, server))
}

/// Text: a header line per context, then its output or its error, the
/// sections separated by a blank line.
pub fn write_sections(out: &mut dyn Write, sections: &[Section]) -> io::Result<()> {
    for (i, s) in sections.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{}", header(s.context, s.server))?;
        match s.result {
            Ok(bytes) => {
                out.write_all(bytes)?;
                if !bytes.is_empty() && !bytes.ends_with(b"\n") {
                    writeln!(out)?;
                }
            }
            Err(lines) => {
                let mut lines = lines.iter();
                if let Some(first) = lines.next() {
                    writeln!(out, "error: {first}")?;
                }
                for cause in lines {
                    writeln!(out, "  caused by: {cause}")?;
                }
            }
        }
    }
    Ok(())
}

/// Writes a `List` item by item, as each cluster is done, to the bytes
/// [`super::write_json`] and [`super::write_yaml`] write for the whole
/// `List` at once: the clusters' items need not be held together.
#[derive(Debug)]
pub struct ListStream {
    yaml: bool,
    written: usize,
    /// The text after the items (`]`... in JSON, `kind: List`... in YAML).
    tail: String,
}

impl ListStream {
    /// A JSON (or, with `yaml`, a YAML) `List`.
    pub fn new(yaml: bool) -> Self {
        Self {
            yaml,
            written: 0,
            tail: String::new(),
        }
    }

    /// Writes one item (the `List`'s beginning before the first).
    pub fn item<T: Serialize>(&mut self, out: &mut dyn Write, item: &T) -> io::Result<()> {
        let first = self.written == 0;
        self.written += 1;
        if self.yaml {
            return self.yaml_item(out, item, first);
        }
        let empty = json_list::<T>(&[])?;
        let open = empty.find("[]").map_or(empty.len(), |at| at + 1);
        if first {
            out.write_all(&empty.as_bytes()[..open])?;
            // What follows the last item: its newline, the bracket indented.
            self.tail = format!("\n  {}", &empty[open..]);
        }
        out.write_all(if first { b"\n" } else { b",\n" })?;
        let text = serde_json::to_string_pretty(item).map_err(io::Error::other)?;
        for (i, line) in text.lines().enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            out.write_all(b"    ")?;
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    fn yaml_item<T: Serialize>(
        &mut self,
        out: &mut dyn Write,
        item: &T,
        first: bool,
    ) -> io::Result<()> {
        let one = serde_saphyr::to_string(&super::List::new(std::slice::from_ref(item)))
            .map_err(|e| io::Error::other(e.to_string()))?;
        let (Some(start), Some(end)) = (one.find("\nitems:\n"), one.rfind("\nkind: List\n")) else {
            return Err(io::Error::other("a List's YAML has no items"));
        };
        let start = start + "\nitems:\n".len();
        if first {
            out.write_all(&one.as_bytes()[..start])?;
            self.tail = one[end + 1..].to_string();
        }
        out.write_all(&one.as_bytes()[start..=end])
    }

    /// Ends the `List` (an empty one when no item was written).
    pub fn finish(self, out: &mut dyn Write) -> io::Result<()> {
        if self.written == 0 {
            let none: [serde_json::Value; 0] = [];
            return if self.yaml {
                super::write_yaml(out, &[&super::List::new(&none)])
            } else {
                super::write_json(out, &[&super::List::new(&none)])
            };
        }
        out.write_all(self.tail.as_bytes())?;
        if !self.yaml {
            writeln!(out)?;
        }
        Ok(())
    }
}

/// An empty JSON `List`, as [`super::write_json`] writes it without its
/// last newline.
fn json_list<T: Serialize>(items: &[T]) -> io::Result<String> {
    serde_json::to_string_pretty(&super::List::new(items)).map_err(io::Error::other)
}

/// One cluster's line of `-o summary`: its name, its verdict, then its
/// counts as `key=value` (or, for a cluster not read, `error: ` and why).
/// A name holding a space or a quote is written as a JSON string.
pub fn summary_line<K: fmt::Display, N: fmt::Display>(
    name: &str,
    verdict: &str,
    counts: &[(K, N)],
) -> String {
    let mut line = format!("{} {verdict}", summary_name(name));
    for (key, n) in counts {
        line.push_str(&format!(" {key}={n}"));
    }
    line
}

/// The line of a cluster that was not read.
pub fn summary_error_line(name: &str, why: &str) -> String {
    format!("{} error: {why}", summary_name(name))
}

fn summary_name(name: &str) -> String {
    if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '"') {
        serde_json::Value::from(name).to_string()
    } else {
        name.to_string()
    }
}

/// How many clusters gave each verdict, for the total line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    pub clusters: u64,
    pub ok: u64,
    /// Read, with findings (drift, images not ready, ...).
    pub findings: u64,
    /// Not read, or read with an input error or a refusal.
    pub errors: u64,
}

impl Tally {
    /// `total clusters=N ok=A findings=F errors=E exit=X`.
    pub fn line(&self, exit: i32) -> String {
        format!(
            "total clusters={} ok={} findings={} errors={} exit={exit}",
            self.clusters, self.ok, self.findings, self.errors
        )
    }
}
