//! A fast reader for the plain subset of TOML that registries.conf files
//! use (and that the MCO writes): `[[registry]]`, `[[registry.mirror]]` and
//! `[aliases]` headers, and `key = value` lines whose values are basic or
//! literal strings without escapes, booleans, or one-line string arrays.
//!
//! Anything outside that subset (escapes, inline tables, dotted keys,
//! multi-line values, v1 tables, numbers, a duplicate key, a type that
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

/// A `[[registry]]` being read: its header offset, its keys, and its mirrors with their header offsets.
type Entry = (usize, RawRegistry, Vec<(usize, RawMirror)>);

/// Which table the following keys belong to.
enum Table {
    Root,
    Registry,
    Mirror,
    Aliases,
}

/// Parses `text` if it stays inside the subset; `None` means "use the full parser".
pub(super) fn parse(text: &str) -> Option<RawConfig> {
    let mut raw = RawConfig::default();
    let mut table = Table::Root;
    let mut registries: Vec<Entry> = Vec::new();
    let mut aliases: Option<BTreeMap<String, Spanned<String>>> = None;
    let mut seen_keys: Vec<&str> = Vec::new();
    let mut offset = 0;
    for raw_line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw_line.len();
        let line = raw_line
            .strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or(raw_line);
        if line.bytes().any(|b| (b < 0x20 && b != b'\t') || b == 0x7f) {
            return None;
        }
        let trimmed = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if trimmed.starts_with('[') {
            let (header, rest) = split_header(trimmed)?;
            if !is_blank_or_comment(rest) {
                return None;
            }
            seen_keys.clear();
            let at = line_start + indent;
            match header {
                "[[registry]]" => {
                    registries.push((at, RawRegistry::default(), Vec::new()));
                    table = Table::Registry;
                }
                "[[registry.mirror]]" => {
                    registries.last_mut()?.2.push((at, RawMirror::default()));
                    table = Table::Mirror;
                }
                "[aliases]" if aliases.is_none() => {
                    aliases = Some(BTreeMap::new());
                    table = Table::Aliases;
                }
                _ => return None,
            }
            continue;
        }
        let (key, after_key) = parse_key(trimmed)?;
        let after_eq = after_key
            .trim_start_matches([' ', '\t'])
            .strip_prefix('=')?;
        let value_text = after_eq.trim_start_matches([' ', '\t']);
        let value_start = line_start + (line.len() - value_text.len());
        let (value, rest) = parse_value(value_text)?;
        if !is_blank_or_comment(rest) {
            return None;
        }
        let value_end = line_start + line.len() - rest.len();
        if seen_keys.contains(&key) {
            return None;
        }
        seen_keys.push(key);
        let span = value_start..value_end;
        match table {
            Table::Root => root_key(&mut raw, key, value, span)?,
            Table::Registry => registry_key(&mut registries.last_mut()?.1, key, value)?,
            Table::Mirror => mirror_key(&mut registries.last_mut()?.2.last_mut()?.1, key, value)?,
            Table::Aliases => match value {
                Value::Str(s) => {
                    aliases
                        .as_mut()?
                        .insert(key.to_string(), Spanned::new(span, s));
                }
                _ => return None,
            },
        }
    }
    if !registries.is_empty() {
        raw.registries = Some(
            registries
                .into_iter()
                .map(|(at, mut r, mirrors)| {
                    if !mirrors.is_empty() {
                        r.mirrors = Some(
                            mirrors
                                .into_iter()
                                .map(|(m_at, m)| Spanned::new(m_at..m_at, m))
                                .collect(),
                        );
                    }
                    Spanned::new(at..at, r)
                })
                .collect(),
        );
    }
    raw.aliases = aliases;
    Some(raw)
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
    let end = if s.starts_with("[[") {
        s.find("]]")? + 2
    } else {
        s.find(']')? + 1
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
    let end = body.bytes().position(|b| b == quote)?;
    let content = &body[..end];
    if quote == b'"' && content.contains('\\') {
        return None;
    }
    Some((content, &body[end + 1..]))
}

fn parse_value(s: &str) -> Option<(Value, &str)> {
    if let Some(rest) = s.strip_prefix("true") {
        return ends_value(rest).then_some((Value::Bool(true), rest));
    }
    if let Some(rest) = s.strip_prefix("false") {
        return ends_value(rest).then_some((Value::Bool(false), rest));
    }
    if let Some(mut rest) = s.strip_prefix('[') {
        let mut items = Vec::new();
        loop {
            rest = rest.trim_start_matches([' ', '\t']);
            if let Some(after) = rest.strip_prefix(']') {
                return Some((Value::Array(items), after));
            }
            let (item, after) = parse_string(rest)?;
            items.push(item.to_string());
            rest = after.trim_start_matches([' ', '\t']);
            if let Some(after) = rest.strip_prefix(',') {
                rest = after;
            } else if !rest.starts_with(']') {
                return None;
            }
        }
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

    /// What both parsers must agree on: values, and the line of every span.
    fn summary(text: &str, raw: &RawConfig) -> String {
        let line = |o: usize| text[..o].matches('\n').count() + 1;
        let mut out = format!(
            "usr={:?}@{:?} ch={:?} snm={:?}@{:?} alsah={:?} aliases={:?}@{:?}\n",
            raw.unqualified_search_registries
                .as_ref()
                .map(|s| s.get_ref()),
            raw.unqualified_search_registries
                .as_ref()
                .map(|s| line(s.span().start)),
            raw.credential_helpers,
            raw.short_name_mode.as_ref().map(|s| s.get_ref()),
            raw.short_name_mode.as_ref().map(|s| line(s.span().start)),
            raw.additional_layer_store_auth_helper,
            raw.aliases.as_ref().map(|a| a
                .iter()
                .map(|(k, v)| (k.clone(), v.get_ref().clone()))
                .collect::<Vec<_>>()),
            raw.aliases
                .as_ref()
                .map(|a| a.values().map(|v| line(v.span().start)).collect::<Vec<_>>()),
        );
        for r in raw.registries.iter().flatten() {
            let g = r.get_ref();
            out.push_str(&format!(
                "registry@{} {:?} {:?} {:?} {:?} {:?} {:?}\n",
                line(r.span().start),
                g.prefix,
                g.location,
                g.insecure,
                g.blocked,
                g.mirror_by_digest_only,
                g.pull_from_mirror
            ));
            for m in g.mirrors.iter().flatten() {
                let mm = m.get_ref();
                out.push_str(&format!(
                    "  mirror@{} {:?} {:?} {:?}\n",
                    line(m.span().start),
                    mm.location,
                    mm.insecure,
                    mm.pull_from_mirror
                ));
            }
        }
        out
    }

    const SAMPLES: &[&str] = &[
        include_str!("../../examples/node/registries.conf"),
        "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n",
        "unqualified-search-registries = [\"a.io\", \"b.io\",]  # trailing comma\nshort-name-mode = \"enforcing\"\ncredential-helpers = []\n\n[aliases]\n\"fedora\" = \"registry.fedoraproject.org/fedora\"\nubi = 'registry.access.redhat.com/ubi9'\n",
        "[[registry]]\r\nprefix = \"*.example.com\"\r\n\tinsecure = true # x\r\n[[registry.mirror]]\r\nlocation = \"m.io/x\"\r\nunknown-key = \"ignored\"\r\n",
        "[[registry]]\nlocation=\"a.io\"\nblocked=false\n",
        "# empty tables\n\n[[registry]]\n\n[[registry.mirror]]\n[[registry]]\n[aliases]\n",
        "[[registry]]\nprefix = '*.a.io'\nunknown = \"x\"\nother = true\n[aliases]\n'' = \"\"\n\"quoted key\" = 'v'\n",
    ];

    #[test]
    fn agrees_with_the_full_parser() {
        for text in SAMPLES {
            let fast = parse(text).unwrap_or_else(|| panic!("fast path gave up on:\n{text}"));
            let full: RawConfig = toml::from_str(text).expect("valid TOML");
            assert_eq!(summary(text, &fast), summary(text, &full), "{text}");
        }
    }

    /// Over containers/image's own test files: wherever the fast path
    /// accepts a file, the full parser reads the same; and it accepts
    /// every file that is plain v2 TOML.
    #[test]
    fn agrees_with_the_full_parser_on_upstream_files() {
        let mut accepted = 0;
        for text in crate::registries::testdata::ALL {
            let Some(fast) = parse(text) else {
                continue;
            };
            accepted += 1;
            let full: RawConfig = toml::from_str(text).expect("valid TOML");
            assert_eq!(summary(text, &fast), summary(text, &full), "{text}");
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
            "unqualified-search-registries = [\n  \"a.io\",\n]\n",
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
