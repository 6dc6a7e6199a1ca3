//! registries.conf read as BurntSushi/toml v1.1.0 to v1.6.0 reads it.
//!
//! Those releases track table definitions their own way, and accept some
//! documents TOML 1.0 forbids (their test suites skip the toml-test cases
//! `invalid/table/redefine-2`, `append-with-dotted-keys-*`,
//! `invalid/spec/table-9-1`, `invalid/inline-table/overwrite-*`, …): a
//! table first defined through dotted keys reopened by a `[table]` header,
//! an array of tables extended with dotted keys, an array value set twice.
//! The `toml` crate refuses them; a node loads them. For such a text this
//! module builds the document the node decodes, statement by statement,
//! with the same bookkeeping BurntSushi keeps: the tree of values, which
//! table paths are still implicit (created by a dotted key or a header's
//! parent path, not yet defined), and which paths hold array values.
//!
//! The grammar is checked by `toml_parser` (TOML 1.1; the caller refuses
//! TOML 1.1-only constructs) and each value is read by the `toml` crate, so
//! what this module decides is only which (re)definitions are accepted and
//! what the merged document holds. Spans point into the original text.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::ops::Range;

use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;
use toml_parser::decoder::Encoding;
use toml_parser::parser::EventReceiver;
use toml_parser::{ErrorSink, ParseError, Raw, Source, Span};

use crate::crio::TomlReader;

/// Which BurntSushi/toml release family reads the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Release {
    /// v0.4.1 to v1.3.2 (CRI-O 1.22 to 1.30): an inline table inside an
    /// array keeps only the last part of each dotted key.
    V1_1,
    /// v1.4.0 and v1.5.0 (CRI-O 1.31 to 1.34).
    V1_4,
    /// v1.6.0 (CRI-O 1.35 and later): also refuses an array value set twice.
    V1_6,
}

impl Release {
    /// The family of a CRI-O's reader; `None` before v0.4.1 (CRI-O
    /// 1.21 and earlier, `legacy`). v0.4.1 keeps its tables as v1.1.0 does
    /// (checked against both by tests/it/burntsushi_oracle.rs).
    pub(crate) fn of_reader(reader: TomlReader) -> Option<Self> {
        match reader {
            TomlReader::V0_3_1 => None,
            TomlReader::V0_4_1 | TomlReader::V1_1_0 | TomlReader::V1_2_1 | TomlReader::V1_3_2 => {
                Some(Self::V1_1)
            }
            TomlReader::V1_4_0 | TomlReader::V1_5_0 => Some(Self::V1_4),
            TomlReader::V1_6_0 => Some(Self::V1_6),
        }
    }
}

/// Why the node's parser refuses the text, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Byte offset in the text.
    pub offset: usize,
    /// BurntSushi's reason, in its words where it has some.
    pub message: String,
}

/// A key part, decoded, with its span.
type Key = (String, Range<usize>);

/// A value as written: scalars by their span, arrays and inline tables by
/// their items in order (an inline table's keys dotted as written).
#[derive(Debug)]
enum Val {
    Scalar(Range<usize>),
    Array(Range<usize>, Vec<Val>),
    Inline(Range<usize>, Vec<(Vec<Key>, Val)>),
}

/// One top-level statement of the document.
#[derive(Debug)]
enum Stmt {
    /// `[a.b]` or `[[a.b]]`.
    Header { keys: Vec<Key>, array: bool },
    /// `a.b = value`.
    KeyVal { keys: Vec<Key>, value: Val },
}

/// The decoded tree, as BurntSushi's map: tables, arrays of tables made by
/// `[[…]]` headers or inline tables in arrays, and values.
#[derive(Debug, Clone)]
enum Node<'a> {
    Table(Range<usize>, BTreeMap<String, (Range<usize>, Node<'a>)>),
    Tables(Range<usize>, Vec<Node<'a>>),
    Leaf(Spanned<DeValue<'a>>),
}

/// Reads `text` as `release` does: the document it decodes, or why it
/// refuses the text.
pub(crate) fn parse(text: &str, release: Release) -> Result<Spanned<DeTable<'_>>, Refusal> {
    let stmts = statements(text)?;
    let mut state = State {
        text,
        release,
        root: Node::Table(0..0, BTreeMap::new()),
        context: Vec::new(),
        implicit: HashSet::new(),
        arrays: HashSet::new(),
        at: 0,
    };
    for stmt in stmts {
        match stmt {
            Stmt::Header { keys, array } => {
                state.at = keys.first().map_or(0, |k| k.1.start);
                let path: Vec<String> = keys.iter().map(|k| k.0.clone()).collect();
                let span = keys.last().map_or(0..0, |k| k.1.clone());
                state.add_context(&path, span, array)?;
                state.set_type(&state.context.clone(), false);
            }
            Stmt::KeyVal { keys, value } => {
                state.at = keys.first().map_or(0, |k| k.1.start);
                state.key_value(&keys, value)?;
            }
        }
    }
    let mut root = DeTable::new();
    if let Node::Table(_, entries) = state.root {
        for (k, (span, node)) in entries {
            root.insert(Spanned::new(span, Cow::Owned(k)), into_value(node));
        }
    }
    Ok(Spanned::new(0..text.len(), root))
}

/// The `toml` crate's value of a node, for its deserializer.
fn into_value(node: Node<'_>) -> Spanned<DeValue<'_>> {
    match node {
        Node::Leaf(v) => v,
        Node::Table(span, entries) => {
            let mut t = DeTable::new();
            for (k, (kspan, n)) in entries {
                t.insert(Spanned::new(kspan, Cow::Owned(k)), into_value(n));
            }
            Spanned::new(span, DeValue::Table(t))
        }
        Node::Tables(span, items) => {
            let mut a = DeArray::new();
            for n in items {
                a.push(into_value(n));
            }
            Spanned::new(span, DeValue::Array(a))
        }
    }
}

/// A value the map holds as a table when it is one (BurntSushi keeps
/// inline tables as maps, which later headers may descend into).
fn node_of(value: Spanned<DeValue<'_>>) -> Node<'_> {
    let span = value.span();
    match value.into_inner() {
        DeValue::Table(t) => Node::Table(
            span,
            t.into_iter()
                .map(|(k, v)| {
                    let ks = k.span();
                    (k.into_inner().into_owned(), (ks, node_of(v)))
                })
                .collect(),
        ),
        other => Node::Leaf(Spanned::new(span, other)),
    }
}

/// BurntSushi's parser state.
struct State<'a> {
    text: &'a str,
    release: Release,
    root: Node<'a>,
    /// The table in scope (`p.context`).
    context: Vec<String>,
    /// Paths of tables created implicitly and not yet defined.
    implicit: HashSet<Vec<String>>,
    /// Paths whose last value set was an array value.
    arrays: HashSet<Vec<String>>,
    /// Where the statement being read starts, for errors.
    at: usize,
}

fn joined(path: &[String]) -> String {
    path.join(".")
}

impl<'a> State<'a> {
    fn refuse(&self, message: String) -> Refusal {
        Refusal {
            offset: self.at,
            message,
        }
    }

    /// The table at `path`, through the last table of arrays of tables.
    fn table_at(
        &mut self,
        path: &[String],
    ) -> Result<&mut BTreeMap<String, (Range<usize>, Node<'a>)>, Refusal> {
        let at = self.at;
        let mut node = &mut self.root;
        for (i, k) in path.iter().enumerate() {
            let table = match node {
                Node::Table(_, t) => t,
                Node::Tables(_, items) => match items.last_mut() {
                    Some(Node::Table(_, t)) => t,
                    _ => return Err(defined(at, &path[..i])),
                },
                Node::Leaf(_) => return Err(defined(at, &path[..i])),
            };
            node = match table.get_mut(k) {
                Some((_, n)) => n,
                None => return Err(defined(at, &path[..=i])),
            };
        }
        match node {
            Node::Table(_, t) => Ok(t),
            Node::Tables(_, items) => match items.last_mut() {
                Some(Node::Table(_, t)) => Ok(t),
                _ => Err(defined(at, path)),
            },
            Node::Leaf(_) => Err(defined(at, path)),
        }
    }

    /// `setValue`: sets `key` in the table in scope; a key already there
    /// is redefined only when it held an array value or an implicit table.
    fn set_value(&mut self, key: &Key, value: Node<'a>) -> Result<(), Refusal> {
        let mut full = self.context.clone();
        full.push(key.0.clone());
        let was_array = self.arrays.contains(&full);
        let was_implicit = self.implicit.contains(&full);
        let release = self.release;
        let context = self.context.clone();
        let table = self.table_at(&context)?;
        if table.contains_key(&key.0) {
            if was_array {
                if release == Release::V1_6 && !was_implicit {
                    return Err(defined(self.at, &full));
                }
                table.insert(key.0.clone(), (key.1.clone(), value));
                self.implicit.remove(&full);
                return Ok(());
            }
            if was_implicit {
                self.implicit.remove(&full);
                return Ok(());
            }
            return Err(defined(self.at, &full));
        }
        table.insert(key.0.clone(), (key.1.clone(), value));
        Ok(())
    }

    /// `setType`: whether `path` now holds an array value.
    fn set_type(&mut self, path: &[String], array: bool) {
        if array {
            self.arrays.insert(path.to_vec());
        } else {
            self.arrays.remove(path);
        }
    }

    /// `addContext`: makes `path` the table in scope, creating the tables
    /// on its way (implicit), and the table itself (or, for `array`, a new
    /// last table of the array of tables).
    fn add_context(
        &mut self,
        path: &[String],
        span: Range<usize>,
        array: bool,
    ) -> Result<(), Refusal> {
        let Some((last, parents)) = path.split_last() else {
            return Err(self.refuse("empty key".to_string()));
        };
        let at = self.at;
        let mut node = &mut self.root;
        for (i, k) in parents.iter().enumerate() {
            let table = match node {
                Node::Table(_, t) => t,
                Node::Tables(_, items) => match items.last_mut() {
                    Some(Node::Table(_, t)) => t,
                    _ => return Err(hash(at, &path[..i])),
                },
                Node::Leaf(_) => return Err(hash(at, &path[..i])),
            };
            let entry = table.entry(k.clone()).or_insert_with(|| {
                self.implicit.insert(path[..=i].to_vec());
                (span.clone(), Node::Table(span.clone(), BTreeMap::new()))
            });
            node = &mut entry.1;
            if let Node::Leaf(_) = node {
                return Err(hash(at, &path[..=i]));
            }
        }
        self.context = parents.to_vec();
        let key = (last.clone(), span.clone());
        if !array {
            self.set_value(&key, Node::Table(span.clone(), BTreeMap::new()))?;
        } else {
            let context = self.context.clone();
            let table = self.table_at(&context)?;
            let entry = table
                .entry(last.clone())
                .or_insert_with(|| (span.clone(), Node::Tables(span.clone(), Vec::new())));
            match &mut entry.1 {
                Node::Tables(_, items) => items.push(Node::Table(span, BTreeMap::new())),
                _ => {
                    return Err(Refusal {
                        offset: at,
                        message: format!(
                            "Key '{}' was already created and cannot be used as an array.",
                            joined(path)
                        ),
                    })
                }
            }
        }
        self.context.push(last.clone());
        Ok(())
    }

    /// `addImplicitContext` for each dotted part but the last of `keys`,
    /// from the table in scope.
    fn dotted_parts(&mut self, keys: &[Key]) -> Result<(), Refusal> {
        for k in &keys[..keys.len().saturating_sub(1)] {
            let mut path = self.context.clone();
            path.push(k.0.clone());
            self.implicit.insert(path.clone());
            self.add_context(&path, k.1.clone(), false)?;
        }
        Ok(())
    }

    /// A top-level `a.b = value`.
    fn key_value(&mut self, keys: &[Key], value: Val) -> Result<(), Refusal> {
        let outer = self.context.clone();
        self.dotted_parts(keys)?;
        let key = keys.last().cloned().unwrap_or_default();
        let (value, array) = self.value(&key.0, value, false)?;
        self.set_value(&key, node_of(value))?;
        let path = self.type_path(&key.0);
        self.set_type(&path, array);
        self.context = outer;
        Ok(())
    }

    /// The path `setType` records a type under for `key` in the table in
    /// scope: an empty key (`"" = …`) inside a table records it under the
    /// table itself (`if len(key) > 0`), so its own earlier value never
    /// counts as an array there; at the top level, under the key (`Key{""}`).
    fn type_path(&self, key: &str) -> Vec<String> {
        let mut path = self.context.clone();
        if !key.is_empty() || path.is_empty() {
            path.push(key.to_string());
        }
        path
    }

    /// `value`: the value of `key` (in the table in scope), and whether it
    /// is an array.
    fn value(
        &mut self,
        key: &str,
        value: Val,
        in_array: bool,
    ) -> Result<(Spanned<DeValue<'a>>, bool), Refusal> {
        match value {
            Val::Scalar(span) => {
                let parsed = DeValue::parse(&self.text[span.clone()]).map_err(|e| Refusal {
                    offset: span.start + e.span().map_or(0, |s| s.start),
                    message: e.message().trim().to_string(),
                })?;
                Ok((Spanned::new(span, parsed.into_inner()), false))
            }
            Val::Array(span, items) => {
                let path = self.type_path(key);
                self.set_type(&path, true);
                let mut array = DeArray::new();
                for item in items {
                    array.push(self.value(key, item, true)?.0);
                }
                Ok((Spanned::new(span, DeValue::Array(array)), true))
            }
            Val::Inline(span, entries) => {
                let table = self.inline_table(key, span.clone(), entries, in_array)?;
                Ok((Spanned::new(span, DeValue::Table(table)), false))
            }
        }
    }

    /// `valueInlineTable`: each entry set in the map as a key of its own;
    /// the table returned as the value.
    fn inline_table(
        &mut self,
        key: &str,
        span: Range<usize>,
        entries: Vec<(Vec<Key>, Val)>,
        in_array: bool,
    ) -> Result<DeTable<'a>, Refusal> {
        let outer = self.context.clone();
        let mut path = outer.clone();
        path.push(key.to_string());
        self.implicit.insert(path.clone());
        self.add_context(&path, span, in_array)?;
        let scope = self.context.clone();
        let mut hash = DeTable::new();
        for (keys, val) in entries {
            self.dotted_parts(&keys)?;
            let last = keys.last().cloned().unwrap_or_default();
            let (value, array) = self.value(&last.0, val, false)?;
            self.set_value(&last, node_of(value.clone()))?;
            let mut full = self.context.clone();
            full.push(last.0.clone());
            self.set_type(&full, array);
            let parents = if self.release == Release::V1_1 {
                &[][..]
            } else {
                &keys[..keys.len() - 1]
            };
            insert_at(&mut hash, parents, &last, value);
            self.context = scope.clone();
        }
        self.context = outer;
        Ok(hash)
    }
}

/// Sets `key` under the dotted `parents` of `table`, creating tables.
fn insert_at<'a>(table: &mut DeTable<'a>, parents: &[Key], key: &Key, value: Spanned<DeValue<'a>>) {
    let Some((first, rest)) = parents.split_first() else {
        table.insert(
            Spanned::new(key.1.clone(), Cow::Owned(key.0.clone())),
            value,
        );
        return;
    };
    let name = Spanned::new(first.1.clone(), Cow::Owned(first.0.clone()));
    if table.get_mut(&name).is_none() {
        table.insert(
            name.clone(),
            Spanned::new(first.1.clone(), DeValue::Table(DeTable::new())),
        );
    }
    if let Some(DeValue::Table(inner)) = table.get_mut(&name).map(|v| v.get_mut()) {
        insert_at(inner, rest, key, value);
    }
}

fn defined(at: usize, path: &[String]) -> Refusal {
    Refusal {
        offset: at,
        message: format!("Key '{}' has already been defined.", joined(path)),
    }
}

fn hash(at: usize, path: &[String]) -> Refusal {
    Refusal {
        offset: at,
        message: format!("Key '{}' was already created as a hash.", joined(path)),
    }
}

/// A value being read: an array or an inline table not yet closed.
enum Frame {
    Array(usize, Vec<Val>),
    Inline(usize, Vec<(Vec<Key>, Val)>, Vec<Key>),
}

/// Collects the statements from `toml_parser`'s events.
struct Collector<'t> {
    text: &'t str,
    stmts: Vec<Stmt>,
    header: Option<(bool, Vec<Key>)>,
    keys: Vec<Key>,
    stack: Vec<Frame>,
    errors: Vec<ParseError>,
}

impl Collector<'_> {
    fn emit(&mut self, val: Val) {
        match self.stack.last_mut() {
            Some(Frame::Array(_, items)) => items.push(val),
            Some(Frame::Inline(_, entries, keys)) => entries.push((std::mem::take(keys), val)),
            None => self.stmts.push(Stmt::KeyVal {
                keys: std::mem::take(&mut self.keys),
                value: val,
            }),
        }
    }

    fn close(&mut self, span: Span) {
        let val = match self.stack.pop() {
            Some(Frame::Array(start, items)) => Val::Array(start..span.end(), items),
            Some(Frame::Inline(start, entries, _)) => Val::Inline(start..span.end(), entries),
            None => return,
        };
        self.emit(val);
    }

    fn finish_header(&mut self) {
        if let Some((array, keys)) = self.header.take() {
            self.stmts.push(Stmt::Header { keys, array });
        }
    }
}

impl EventReceiver for Collector<'_> {
    fn std_table_open(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.header = Some((false, Vec::new()));
    }
    fn std_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.finish_header();
    }
    fn array_table_open(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.header = Some((true, Vec::new()));
    }
    fn array_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.finish_header();
    }
    fn inline_table_open(&mut self, span: Span, _error: &mut dyn ErrorSink) -> bool {
        self.stack
            .push(Frame::Inline(span.start(), Vec::new(), Vec::new()));
        true
    }
    fn inline_table_close(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        self.close(span);
    }
    fn array_open(&mut self, span: Span, _error: &mut dyn ErrorSink) -> bool {
        self.stack.push(Frame::Array(span.start(), Vec::new()));
        true
    }
    fn array_close(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        self.close(span);
    }
    fn simple_key(&mut self, span: Span, kind: Option<Encoding>, _error: &mut dyn ErrorSink) {
        let raw = Raw::new_unchecked(&self.text[span.start()..span.end()], kind, span);
        let mut name = String::new();
        raw.decode_key(&mut name, &mut self.errors);
        let key = (name, span.start()..span.end());
        match (&mut self.header, self.stack.last_mut()) {
            (Some((_, keys)), _) => keys.push(key),
            (None, Some(Frame::Inline(_, _, keys))) => keys.push(key),
            _ => self.keys.push(key),
        }
    }
    fn scalar(&mut self, span: Span, _kind: Option<Encoding>, _error: &mut dyn ErrorSink) {
        self.emit(Val::Scalar(span.start()..span.end()));
    }
    fn error(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        self.errors
            .push(ParseError::new("invalid TOML").with_unexpected(span));
    }
}

/// The statements of `text`, or its first grammar error.
fn statements(text: &str) -> Result<Vec<Stmt>, Refusal> {
    let source = Source::new(text);
    let tokens: Vec<_> = source.lex().collect();
    let mut collector = Collector {
        text,
        stmts: Vec::new(),
        header: None,
        keys: Vec::new(),
        stack: Vec::new(),
        errors: Vec::new(),
    };
    let mut errors: Vec<ParseError> = Vec::new();
    toml_parser::parser::parse_document(&tokens, &mut collector, &mut errors);
    errors.append(&mut collector.errors);
    if let Some(e) = errors
        .iter()
        .min_by_key(|e| e.unexpected().map_or(text.len(), |s| s.start()))
    {
        return Err(Refusal {
            offset: e.unexpected().map_or(text.len(), |s| s.start()),
            message: e.description().to_string(),
        });
    }
    Ok(collector.stmts)
}
