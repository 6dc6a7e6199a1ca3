//! A fast reader for the plain block-YAML subset that `oc get -o yaml`,
//! must-gathers and most hand-written manifests use: `---` separated
//! documents, block mappings and sequences (including sequences at their
//! key's indentation), plain scalars, one-line quoted scalars without
//! escapes, `true`/`false`, `null`/`~`, decimal integers, `[]` and `{}`.
//!
//! Anything else (flow collections with content, block scalars, anchors,
//! tags, escapes, multi-line scalars, numbers other than plain decimal
//! integers, duplicate keys, tabs in indentation, ...) makes it give up, and
//! the caller uses the full YAML parser, which also reports errors. The
//! reader only ever accepts what the full parser accepts, with the same
//! values; it exists because the full parser reads oc-mirror-scale files at
//! a few tens of MB/s.

use serde_json::{Map, Number, Value};

/// One source line, stripped of its end-of-line comment.
struct Line<'a> {
    /// 1-based line number.
    number: usize,
    indent: usize,
    /// The content after the indentation, without a trailing comment.
    text: &'a str,
}

/// Parses `text` as documents of the subset: `(document start line, value)`
/// for each non-empty document, or `None` to use the full parser.
#[cfg(test)]
pub(super) fn parse(text: &str) -> Option<Vec<(usize, Value)>> {
    let mut docs = Vec::new();
    parse_each(text, |line, value| {
        docs.push((line, value));
        Some(())
    })?;
    Some(docs)
}

/// Parses `text` document by document, handing each non-empty one to
/// `each` as soon as it is read, so that only one document's tree is alive
/// at a time. `None` (from the reader or from `each`) stops at once: the
/// caller discards what it got and uses the full parser.
pub(super) fn parse_each(
    text: &str,
    mut each: impl FnMut(usize, Value) -> Option<()>,
) -> Option<()> {
    let mut current: Vec<Line> = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.starts_with("---") && raw[3..].trim().is_empty() {
            flush(&mut current, &mut each)?;
            continue;
        }
        if raw.starts_with("...") || raw.starts_with('%') {
            return None;
        }
        let body = raw.trim_start_matches(' ');
        if body.starts_with('\t') || raw.contains('\t') {
            return None;
        }
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let content = strip_comment(body)?;
        current.push(Line {
            number: i + 1,
            indent: raw.len() - body.len(),
            text: content,
        });
    }
    flush(&mut current, &mut each)
}

fn flush(lines: &mut Vec<Line>, each: &mut impl FnMut(usize, Value) -> Option<()>) -> Option<()> {
    if lines.is_empty() {
        return Some(());
    }
    let first = lines[0].number;
    if lines[0].indent != 0 {
        return None;
    }
    let mut pos = 0;
    let value = node(lines, &mut pos, 0)?;
    if pos != lines.len() {
        return None;
    }
    lines.clear();
    if !value.is_null() {
        each(first, value)?;
    }
    Some(())
}

/// Removes a ` #` comment outside quotes; gives up on anything ambiguous.
fn strip_comment(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => {
                // Quotes only open a scalar at its start.
                let before = s[..i].trim_end();
                if before.is_empty() || before.ends_with(':') || before.ends_with('-') {
                    quote = Some(b);
                }
            }
            None if b == b'#' && i > 0 && bytes[i - 1] == b' ' => {
                return Some(s[..i].trim_end());
            }
            None => {}
        }
    }
    if quote.is_some() {
        return None;
    }
    Some(s.trim_end())
}

/// A block node whose lines start at `lines[*pos]` with indentation `indent`.
fn node(lines: &[Line], pos: &mut usize, indent: usize) -> Option<Value> {
    let line = lines.get(*pos)?;
    if line.indent != indent {
        return None;
    }
    if is_sequence_item(line.text) {
        sequence(lines, pos, indent)
    } else {
        mapping(lines, pos, indent)
    }
}

fn is_sequence_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

fn sequence(lines: &[Line], pos: &mut usize, indent: usize) -> Option<Value> {
    let mut items = Vec::new();
    while let Some(line) = lines.get(*pos) {
        if line.indent != indent || !is_sequence_item(line.text) {
            break;
        }
        let rest = line.text[1..].trim_start_matches(' ');
        if rest.is_empty() {
            *pos += 1;
            let next = lines.get(*pos)?;
            if next.indent <= indent {
                items.push(Value::Null);
                continue;
            }
            items.push(node(lines, pos, next.indent)?);
            continue;
        }
        let item_indent = indent + (line.text.len() - rest.len());
        if is_sequence_item(rest) || split_key(rest).is_some() {
            // The item's first line continues as a nested node at the item's column.
            let virtual_lines = [Line {
                number: line.number,
                indent: item_indent,
                text: rest,
            }];
            let mut merged: Vec<Line> = virtual_lines.into_iter().collect();
            *pos += 1;
            while let Some(l) = lines.get(*pos) {
                if l.indent < item_indent {
                    break;
                }
                merged.push(Line {
                    number: l.number,
                    indent: l.indent,
                    text: l.text,
                });
                *pos += 1;
            }
            let mut p = 0;
            let v = node(&merged, &mut p, item_indent)?;
            if p != merged.len() {
                return None;
            }
            items.push(v);
        } else {
            items.push(scalar(rest)?);
            *pos += 1;
        }
    }
    Some(Value::Array(items))
}

/// `key: rest` with a plain or simply quoted key.
fn split_key(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(q @ (b'"' | b'\'')) = text.as_bytes().first().copied() {
        let end = text[1..].find(q as char)? + 1;
        let key = &text[1..end];
        if key.contains('\\') && q == b'"' {
            return None;
        }
        let rest = text[end + 1..].strip_prefix(':')?;
        (key.to_string(), rest)
    } else {
        let i = memchr::memchr(b':', text.as_bytes())?;
        let after = &text[i + 1..];
        if !(after.is_empty() || after.starts_with(' ')) {
            return None;
        }
        let key = &text[..i];
        if key.is_empty() || !plain_ok(key) {
            return None;
        }
        (key.to_string(), after)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_start_matches(' ')))
}

fn mapping(lines: &[Line], pos: &mut usize, indent: usize) -> Option<Value> {
    let mut map = Map::new();
    while let Some(line) = lines.get(*pos) {
        if line.indent != indent {
            if line.indent < indent {
                break;
            }
            return None;
        }
        if is_sequence_item(line.text) {
            break;
        }
        let (key, rest) = split_key(line.text)?;
        if map.contains_key(&key) {
            return None;
        }
        *pos += 1;
        let value = if rest.is_empty() {
            match lines.get(*pos) {
                // A nested block, or a sequence at the key's own indentation.
                Some(next) if next.indent > indent => node(lines, pos, next.indent)?,
                Some(next) if next.indent == indent && is_sequence_item(next.text) => {
                    sequence(lines, pos, indent)?
                }
                _ => Value::Null,
            }
        } else {
            scalar(rest)?
        };
        map.insert(key, value);
    }
    Some(Value::Object(map))
}

/// Characters a plain scalar of the subset may hold without giving up.
pub(crate) fn plain_ok(s: &str) -> bool {
    let first = s.as_bytes()[0];
    if matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    ) {
        return false;
    }
    // One pass for `: ` and ` #` (a substring search per pattern costs more
    // on these short scalars than the whole scan).
    let bytes = s.as_bytes();
    let pair = bytes
        .windows(2)
        .any(|w| (w[0] == b':' && w[1] == b' ') || (w[0] == b' ' && w[1] == b'#'));
    !pair && !s.ends_with(':')
}

fn scalar(s: &str) -> Option<Value> {
    match s {
        "" | "~" | "null" => return Some(Value::Null),
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "[]" => return Some(Value::Array(Vec::new())),
        "{}" => return Some(Value::Object(Map::new())),
        _ => {}
    }
    let b = s.as_bytes();
    if b[0] == b'"' || b[0] == b'\'' {
        let q = b[0];
        if b.len() < 2 || b[b.len() - 1] != q {
            return None;
        }
        let inner = &s[1..s.len() - 1];
        if inner.contains(q as char) || (q == b'"' && inner.contains('\\')) {
            return None;
        }
        return Some(Value::String(inner.to_string()));
    }
    if !plain_ok(s) {
        // `-1` starts with '-': let the integer check below decide.
        if !(b[0] == b'-' && b.len() > 1 && b[1..].iter().all(u8::is_ascii_digit)) {
            return None;
        }
    }
    // Anything a YAML 1.1/1.2 resolver could read as other than a string is left
    // to the full parser, except plain decimal integers.
    let digits = s.strip_prefix('-').unwrap_or(s);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        if digits.len() > 1 && digits.starts_with('0') {
            return None;
        }
        return s
            .parse::<i64>()
            .ok()
            .map(|n| Value::Number(Number::from(n)));
    }
    let lower = s.to_ascii_lowercase();
    let special = matches!(
        lower.as_str(),
        "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | "true"
            | "false"
            | "null"
            | ".nan"
            | ".inf"
            | "-.inf"
            | "+.inf"
    );
    let numeric_start = b[0].is_ascii_digit() || matches!(b[0], b'+' | b'.');
    if special || numeric_start {
        return None;
    }
    Some(Value::String(s.to_string()))
}
