//! A fast reader for the plain subset of TOML that registries.conf files
//! use (and that the MCO writes): `[[registry]]`, `[[registry.mirror]]` and
//! `[aliases]` headers, and `key = value` lines whose values are basic or
//! literal strings without escapes, booleans, or string arrays (which may
//! span lines, with comments between items).
//!
//! Anything outside that subset (escapes, inline tables, dotted keys,
//! multi-line strings, v1 tables, numbers, a duplicate key, a type that
//! does not fit the schema, a key that is a case variant of a known one)
//! makes it give up, and the caller parses the
//! text with the full `toml` parser instead, which also reports errors.
//! So this path only ever accepts what `toml` accepts, with the same
//! values: it exists because the full parser is several times slower on
//! oc-mirror-scale files with tens of thousands of entries.

use std::collections::BTreeMap;

use toml::Spanned;

use super::raw::{key_selects, RawConfig, RawMirror, RawRegistry};

/// A value of the subset.
enum Value {
    Str(String),
    Bool(bool),
    Array(Vec<String>),
}

/// Which table the following keys belong to.
enum Table {
    Root,
    Registry,
    Mirror,
    Aliases,
}

/// A string array being read, possibly over several lines.
struct ArrayReader {
    items: Vec<String>,
    /// After `[` or `,`: an item or `]` comes next; else `,` or `]`.
    expect_item: bool,
}

/// How far a line got an array.
enum Step<'a> {
    /// Closed; the rest of the line after `]`.
    Done(&'a str),
    /// Open at the end of the line (whitespace, comments and newlines are
    /// allowed between items in TOML).
    More,
}

impl ArrayReader {
    fn new() -> Self {
        Self {
            items: Vec::new(),
            expect_item: true,
        }
    }

    /// Reads as much of the array as `s` holds; `None` outside the subset.
    fn feed<'a>(&mut self, mut s: &'a str) -> Option<Step<'a>> {
        loop {
            s = s.trim_start_matches([' ', '\t']);
            if s.is_empty() || s.starts_with('#') {
                return Some(Step::More);
            }
            if let Some(after) = s.strip_prefix(']') {
                return Some(Step::Done(after));
            }
            if self.expect_item {
                let (item, after) = parse_string(s)?;
                self.items.push(item.to_string());
                s = after;
            } else {
                s = s.strip_prefix(',')?;
            }
            self.expect_item = !self.expect_item;
        }
    }
}

/// A key whose array value continues on the next lines.
struct OpenArray<'a> {
    key: &'a str,
    value_start: usize,
    reader: ArrayReader,
}

/// What has been read so far.
struct State<'a> {
    raw: RawConfig,
    table: Table,
    /// Each spanning its header; mirrors likewise.
    registries: Vec<Spanned<RawRegistry>>,
    aliases: Option<BTreeMap<String, Spanned<String>>>,
    seen_keys: Vec<&'a str>,
}

impl<'a> State<'a> {
    /// Nothing read yet, with room for the registries of `text`.
    #[inline]
    fn new(text: &str) -> Self {
        State {
            raw: RawConfig::default(),
            table: Table::Root,
            // About one entry per 150 bytes in MCO-written files.
            registries: Vec::with_capacity(text.len() / 150),
            aliases: None,
            seen_keys: Vec::new(),
        }
    }

    /// Opens the table of a header line (`trimmed` starts with `[`, at
    /// offset `at` of the text); `None` for any other header, a second
    /// `[aliases]`, a mirror before any registry, or text after it.
    #[inline]
    fn header(&mut self, trimmed: &str, at: usize) -> Option<()> {
        let (header, rest) = split_header(trimmed)?;
        if !is_blank_or_comment(rest) {
            return None;
        }
        self.seen_keys.clear();
        match header {
            "[[registry]]" => {
                self.registries
                    .push(Spanned::new(at..at, RawRegistry::default()));
                self.table = Table::Registry;
            }
            "[[registry.mirror]]" => {
                self.registries
                    .last_mut()?
                    .get_mut()
                    .mirrors
                    .get_or_insert_with(Vec::new)
                    .push(Spanned::new(at..at, RawMirror::default()));
                self.table = Table::Mirror;
            }
            "[aliases]" if self.aliases.is_none() => {
                self.aliases = Some(BTreeMap::new());
                self.table = Table::Aliases;
            }
            _ => return None,
        }
        Some(())
    }

    /// Reads a `key = value` line (`trimmed` is `line` without its
    /// indent) into the current table; returns the array it leaves open
    /// when its value continues on the next lines.
    #[inline]
    fn key_line(
        &mut self,
        line: &'a str,
        trimmed: &'a str,
        line_start: usize,
    ) -> Option<Option<OpenArray<'a>>> {
        let (key, after_key) = parse_key(trimmed)?;
        if self.seen_keys.contains(&key) {
            return None;
        }
        self.seen_keys.push(key);
        let after_eq = after_key
            .trim_start_matches([' ', '\t'])
            .strip_prefix('=')?;
        let value_text = after_eq.trim_start_matches([' ', '\t']);
        let value_start = line_start + (line.len() - value_text.len());
        if let Some(items) = value_text.strip_prefix('[') {
            let mut reader = ArrayReader::new();
            return match reader.feed(items)? {
                Step::More => Some(Some(OpenArray {
                    key,
                    value_start,
                    reader,
                })),
                Step::Done(rest) => {
                    let end = value_end(line, rest, line_start)?;
                    self.assign(key, Value::Array(reader.items), value_start..end)?;
                    Some(None)
                }
            };
        }
        let (value, rest) = parse_value(value_text)?;
        let end = value_end(line, rest, line_start)?;
        self.assign(key, value, value_start..end)?;
        Some(None)
    }

    /// Feeds the next line to an array left open; stores the array once
    /// it closes, else returns it still open.
    #[inline]
    fn continue_array(
        &mut self,
        mut array: OpenArray<'a>,
        line: &'a str,
        line_start: usize,
    ) -> Option<Option<OpenArray<'a>>> {
        match array.reader.feed(line)? {
            Step::More => Some(Some(array)),
            Step::Done(rest) => {
                let end = value_end(line, rest, line_start)?;
                let value = Value::Array(array.reader.items);
                self.assign(array.key, value, array.value_start..end)?;
                Some(None)
            }
        }
    }

    /// The configuration read, once the text has ended.
    fn finish(self) -> RawConfig {
        let mut raw = self.raw;
        if !self.registries.is_empty() {
            raw.registries = Some(self.registries);
        }
        raw.aliases = self.aliases;
        raw
    }

    /// The `[[registry.mirror]]` being read.
    fn current_mirror(&mut self) -> Option<&mut RawMirror> {
        let registry = self.registries.last_mut()?.get_mut();
        Some(registry.mirrors.as_mut()?.last_mut()?.get_mut())
    }

    /// Stores one `key = value` of the current table.
    fn assign(&mut self, key: &str, value: Value, span: std::ops::Range<usize>) -> Option<()> {
        match self.table {
            Table::Root => root_key(&mut self.raw, key, value, span),
            Table::Registry => registry_key(self.registries.last_mut()?.get_mut(), key, value),
            Table::Mirror => mirror_key(self.current_mirror()?, key, value),
            Table::Aliases => match value {
                Value::Str(s) => {
                    self.aliases
                        .as_mut()?
                        .insert(key.to_string(), Spanned::new(span, s));
                    Some(())
                }
                _ => None,
            },
        }
    }
}

/// Parses `text` if it stays inside the subset; `None` means "use the full parser".
pub(super) fn parse(text: &str) -> Option<RawConfig> {
    let mut st = State::new(text);
    let mut open: Option<OpenArray<'_>> = None;
    let mut offset = 0;
    let mut line_ends = memchr::memchr_iter(b'\n', text.as_bytes());
    while offset < text.len() {
        let end = line_ends.next().map_or(text.len(), |i| i + 1);
        let line_start = offset;
        let line = line_content(&text[offset..end])?;
        offset = end;
        if let Some(array) = open.take() {
            open = st.continue_array(array, line, line_start)?;
            continue;
        }
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.starts_with('[') {
            st.header(trimmed, line_start + (line.len() - trimmed.len()))?;
        } else {
            open = st.key_line(line, trimmed, line_start)?;
        }
    }
    if open.is_some() {
        return None;
    }
    Some(st.finish())
}

/// A line without its `\n` or `\r\n`; `None` when it holds a control
/// character other than a tab (which TOML forbids outside comments too).
#[inline]
fn line_content(raw_line: &str) -> Option<&str> {
    let line = raw_line
        .strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(raw_line);
    // Without an early exit the check compiles to a few vector
    // instructions per 32 bytes: every line of the file goes through it.
    let forbidden = line.bytes().fold(false, |bad, b| {
        bad | ((b < 0x20) & (b != b'\t')) | (b == 0x7f)
    });
    (!forbidden).then_some(line)
}

/// Where a value that ends before `rest` ends in the text, given that
/// `line` starts at `line_start`; `None` when more than whitespace or a
/// comment follows it.
#[inline]
fn value_end(line: &str, rest: &str, line_start: usize) -> Option<usize> {
    if !is_blank_or_comment(rest) {
        return None;
    }
    Some(line_start + line.len() - rest.len())
}

fn root_key(
    raw: &mut RawConfig,
    key: &str,
    value: Value,
    span: std::ops::Range<usize>,
) -> Option<()> {
    match (key, value) {
        ("unqualified-search-registries", Value::Array(a)) => {
            raw.unqualified_search_registries = Some(Spanned::new(span, a));
        }
        ("credential-helpers", Value::Array(a)) => raw.credential_helpers = Some(a),
        ("short-name-mode", Value::Str(s)) => raw.short_name_mode = Some(Spanned::new(span, s)),
        ("additional-layer-store-auth-helper", Value::Str(s)) => {
            raw.additional_layer_store_auth_helper = Some(s);
        }
        // A known key with another type, a table written as a key, the v1
        // `registries` table, or a case variant of a key: full parser.
        _ if RawConfig::KEYS.iter().any(|k| key_selects(key, k)) => return None,
        _ => {}
    }
    Some(())
}

fn registry_key(r: &mut RawRegistry, key: &str, value: Value) -> Option<()> {
    match (key, value) {
        ("prefix", Value::Str(s)) => r.prefix = Some(s),
        ("location", Value::Str(s)) => r.location = Some(s),
        ("pull-from-mirror", Value::Str(s)) => r.pull_from_mirror = Some(s),
        ("insecure", Value::Bool(b)) => r.insecure = Some(b),
        ("blocked", Value::Bool(b)) => r.blocked = Some(b),
        ("mirror-by-digest-only", Value::Bool(b)) => r.mirror_by_digest_only = Some(b),
        _ if RawRegistry::KEYS.iter().any(|k| key_selects(key, k)) => return None,
        _ => {}
    }
    Some(())
}

fn mirror_key(m: &mut RawMirror, key: &str, value: Value) -> Option<()> {
    match (key, value) {
        ("location", Value::Str(s)) => m.location = Some(s),
        ("pull-from-mirror", Value::Str(s)) => m.pull_from_mirror = Some(s),
        ("insecure", Value::Bool(b)) => m.insecure = Some(b),
        _ if RawMirror::KEYS.iter().any(|k| key_selects(key, k)) => return None,
        _ => {}
    }
    Some(())
}

/// `[[a.b]]` or `[a]` with no inner whitespace or quoting; returns it and the rest of the line.
fn split_header(s: &str) -> Option<(&str, &str)> {
    let bytes = s.as_bytes();
    // The first `]`, then (for `[[`) the one right after it: a header
    // with a `]` inside is not one the subset reads anyway.
    let close = memchr::memchr(b']', bytes)?;
    let end = if bytes.get(1) == Some(&b'[') {
        if bytes.get(close + 1) != Some(&b']') {
            return None;
        }
        close + 2
    } else {
        close + 1
    };
    Some((&s[..end], &s[end..]))
}

fn is_blank_or_comment(s: &str) -> bool {
    let t = s.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

fn is_bare_key_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A bare key, or a basic/literal quoted key without escapes; no dotted keys.
fn parse_key(s: &str) -> Option<(&str, &str)> {
    match s.as_bytes().first()? {
        b'"' | b'\'' => parse_string(s),
        _ => {
            let end = s
                .bytes()
                .position(|b| !is_bare_key_char(b))
                .unwrap_or(s.len());
            if end == 0 {
                return None;
            }
            let rest = &s[end..];
            if rest.trim_start_matches([' ', '\t']).starts_with('.') {
                return None;
            }
            Some((&s[..end], rest))
        }
    }
}

/// A one-line basic string without escapes, or a literal string.
fn parse_string(s: &str) -> Option<(&str, &str)> {
    let quote = *s.as_bytes().first()?;
    if quote != b'"' && quote != b'\'' {
        return None;
    }
    let body = &s[1..];
    // Multi-line strings (`"""`, `'''`) are left to the full parser.
    if body.as_bytes().first() == Some(&quote) && body.as_bytes().get(1) == Some(&quote) {
        return None;
    }
    let end = if quote == b'"' {
        // An escape is left to the full parser.
        let at = memchr::memchr2(quote, b'\\', body.as_bytes())?;
        if body.as_bytes()[at] != quote {
            return None;
        }
        at
    } else {
        memchr::memchr(quote, body.as_bytes())?
    };
    Some((&body[..end], &body[end + 1..]))
}

/// A boolean or a one-line string (arrays are read by [`ArrayReader`]).
fn parse_value(s: &str) -> Option<(Value, &str)> {
    if let Some(rest) = s.strip_prefix("true") {
        return ends_value(rest).then_some((Value::Bool(true), rest));
    }
    if let Some(rest) = s.strip_prefix("false") {
        return ends_value(rest).then_some((Value::Bool(false), rest));
    }
    let (st, rest) = parse_string(s)?;
    Some((Value::Str(st.to_string()), rest))
}

/// A bare value must be followed by whitespace, a comment or the end of the line.
fn ends_value(rest: &str) -> bool {
    rest.is_empty() || rest.starts_with([' ', '\t', '#'])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loader gives the same result with this reader as with the
    /// `toml` crate alone (the property test in tests/it/properties.rs checks
    /// this over generated files).
    fn assert_same_load(text: &str) {
        use crate::registries::{load, load_full_parser, ConfigFile};
        let file = ConfigFile {
            name: "t.conf",
            text,
        };
        assert_eq!(
            load(Some(&file), &[]),
            load_full_parser(Some(&file), &[]),
            "{text}"
        );
    }

    const SAMPLES: &[&str] = &[
        include_str!("../../../../examples/node/registries.conf"),
        "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n",
        "unqualified-search-registries = [\"a.io\", \"b.io\",]  # trailing comma\nshort-name-mode = \"enforcing\"\ncredential-helpers = []\n\n[aliases]\n\"fedora\" = \"registry.fedoraproject.org/fedora\"\nubi = 'registry.access.redhat.com/ubi9'\n",
        "[[registry]]\r\nprefix = \"*.example.com\"\r\n\tinsecure = true # x\r\n[[registry.mirror]]\r\nlocation = \"m.io/x\"\r\nunknown-key = \"ignored\"\r\n",
        "[[registry]]\nlocation=\"a.io\"\nblocked=false\n",
        "unqualified-search-registries = [\n  \"a.io\",\n]\n",
        "unqualified-search-registries = [ # the list\n\n  'a.io', # first\n  # a comment line\n  \"b.io\"\n  ,\"c.io\"\n  ]  # done\ncredential-helpers = [\n]\n[[registry]]\nlocation = \"x.io\"\n",
        "# empty tables\n\n[[registry]]\n\n[[registry.mirror]]\n[[registry]]\n[aliases]\n",
        "[[registry]]\nprefix = '*.a.io'\nunknown = \"x\"\nother = true\n[aliases]\n'' = \"\"\n\"quoted key\" = 'v'\n",
    ];

    #[test]
    fn agrees_with_the_full_parser() {
        for text in SAMPLES {
            assert!(parse(text).is_some(), "fast path gave up on:\n{text}");
            assert_same_load(text);
        }
    }

    /// Over containers/image's own test files: wherever the fast path
    /// accepts a file, the full parser reads the same; and it accepts
    /// every file that is plain v2 TOML.
    #[test]
    fn agrees_with_the_full_parser_on_upstream_files() {
        let mut accepted = 0;
        for text in crate::registries::testdata::ALL {
            assert_same_load(text);
            accepted += usize::from(parse(text).is_some());
        }
        // All but the six v1 files (two of them mixed with v2) and the one that is not TOML.
        assert_eq!(accepted, crate::registries::testdata::ALL.len() - 6 - 1);
    }

    #[test]
    fn gives_up_outside_the_subset() {
        for text in [
            "[registries.search]\nregistries = ['quay.io']\n",
            "[[registry]]\nlocation = \"a\\u0041.io\"\n",
            "[[registry]]\nlocation = \"a.io\"\nlocation = \"b.io\"\n",
            "[[registry]]\ninsecure = \"yes\"\n",
            "[[registry]]\nlocation = \"a.io\"\nmirror = [{location = \"m.io\"}]\n",
            "registry.location = \"a.io\"\n",
            "[[registry.mirror]]\nlocation = \"m.io\"\n",
            "unqualified-search-registries = [\n  \"a.io\",\n  \"b.io\"\n",
            "unqualified-search-registries = [,]\n",
            "unqualified-search-registries = [\n  1,\n]\n",
            "unqualified-search-registries = [\n  \"a\\u0041\",\n]\n",
            "unqualified-search-registries = [\n  \"a.io\"\n] x\n",
            "unqualified-search-registries = [\n  \"a.io\"\n  \"b.io\"\n]\n",
            "unqualified-search-registries = [\n[\"a.io\"]]\n",
            "unqualified-search-registries = [\"a.io\",,]\n",
            "[[registry]]\nlocation = \"\"\"a.io\"\"\"\n",
            "[[registry]]\nlocation = \"a.io\" x\n",
            "[[registry]]\nblocked = truex\n",
            "[[registry]]\nsomething = 1\n",
            "[aliases]\n[aliases]\n",
            "[other]\n",
            "[[registry]]\nLocation = \"a.io\"\n",
            "[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nINSECURE = true\n",
            "Unqualified-Search-Registries = []\n",
            "registries = \"x\"\n",
            "[Aliases]\n",
            "[[Registry]]\n",
            "\u{feff}[[registry]]\n",
            "[[registry]]\nlocation = \"a.io\"\r",
        ] {
            assert!(parse(text).is_none(), "should give up on:\n{text}");
        }
    }
}
