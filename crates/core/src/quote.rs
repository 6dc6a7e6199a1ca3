//! Go's string quoting, which upstream uses in the messages and files the
//! tool reproduces byte for byte.

/// Go's `%q` for a string: double quotes, with `"`, `\` and non-printable
/// characters escaped. Upstream quotes file names and values this way.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x80 && c.is_ascii_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control()
                || (c.is_whitespace() && c != ' ')
                || is_format_char(c)
                || is_noncharacter(c) =>
            {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Common invisible format characters (Unicode category Cf), which Go
/// does not consider printable.
fn is_format_char(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// Unicode noncharacters (U+FDD0–U+FDEF and the last two code points of
/// every plane), which Go does not consider printable either.
fn is_noncharacter(c: char) -> bool {
    ('\u{fdd0}'..='\u{fdef}').contains(&c) || (c as u32) & 0xfffe == 0xfffe
}

/// Go's `json.Marshal` string quoting (with HTML escaping, as encoding/json does).
pub fn go_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    // Most strings (paths, base64) need no escaping at all.
    let plain = |b: u8| b >= 0x20 && !matches!(b, b'"' | b'\\' | b'<' | b'>' | b'&') && b < 0x80;
    if s.bytes().all(plain) {
        out.push_str(s);
        out.push('"');
        return out;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quote_matches_strconv_quote() {
        for (input, want) in [
            ("a.com", "\"a.com\""),
            ("a\"b\\c", "\"a\\\"b\\\\c\""),
            ("tab\t\u{1}", "\"tab\\t\\x01\""),
            ("é", "\"é\""),
            ("non\u{fffe}char", "\"non\\ufffechar\""),
        ] {
            assert_eq!(go_quote(input), want, "{input}");
        }
    }
}
