//! YAML scalars as Go's YAML libraries write them, in one place.
//!
//! gopkg.in/yaml.v2 (through ghodss/yaml) writes the MCO's
//! `registries.d` file byte for byte: its key order ([`v2_sort`]) and
//! scalar style ([`v2_scalar`]) are reproduced here. The files
//! `migrate-icsp` writes use [`portable_scalar`]: plain only where every
//! YAML 1.1 and 1.2 reader (yaml.v2, yaml.v3, kubectl's) reads the same
//! string back, double-quoted otherwise. Both share yaml.v2/v3's printable
//! set and line breaks.
//!
//! Upstream: gopkg.in/yaml.v2 `sorter.go`, `resolve.go`, `encode.go`,
//! `emitterc.go`; gopkg.in/yaml.v3 `emitterc.go`, `yamlprivateh.go`.

use std::sync::LazyLock;

use regex::Regex;

/// yaml.v2 `yaml_emitter_check_simple_key` for a scalar.
pub fn v2_simple_key(s: &str) -> bool {
    s.len() <= 128 && !s.chars().any(is_break)
}

/// Sorts with yaml.v2's `keyList.Less`. Go sorts with pdqsort; for distinct
/// keys and a consistent order any sort gives the same result, and an
/// insertion sort cannot fail on an inconsistent one.
pub fn v2_sort(keys: &mut [&str]) {
    for i in 1..keys.len() {
        let mut j = i;
        while j > 0 && v2_less(keys[j], keys[j - 1]) {
            keys.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// yaml.v2 `keyList.Less` for two strings: letters sort after every
/// non-letter, digit runs compare by numeric value, otherwise code points.
pub fn v2_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let digit = |c: char| c.is_ascii_digit();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// A string scalar as yaml.v2 writes it in block context: plain when it
/// would read back as the same string and the emitter allows it, else
/// single-quoted, else double-quoted.
pub fn v2_scalar(s: &str) -> String {
    let plain_requested = !s.contains('\n') && !resolves_to_non_string(s) && !is_base60_float(s);
    let analysis = analyze_scalar(s);
    if plain_requested && analysis.block_plain_allowed {
        s.to_string()
    } else if plain_requested && analysis.single_quoted_allowed {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        // Multi-line strings would be literal blocks; scopes never have line breaks.
        double_quoted(s)
    }
}

struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// yaml.v2 `is_printable` (four-byte UTF-8 sequences are not printable there).
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

/// yaml.v2 `yaml_emitter_analyze_scalar`, the parts that matter for a
/// block-context key.
fn analyze_scalar(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i + 1 >= chars.len() || is_blank(chars[i + 1]);
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special_characters = true;
        }
        let last = i + 1 == chars.len();
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c) || c == '\0';
    }
    let mut block_plain_allowed = true;
    let mut single_quoted_allowed = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        block_plain_allowed = false;
    }
    if break_space || space_break || special_characters {
        block_plain_allowed = false;
        single_quoted_allowed = false;
    }
    if line_breaks || block_indicators {
        block_plain_allowed = false;
    }
    Analysis {
        block_plain_allowed,
        single_quoted_allowed,
    }
}

/// yaml.v2 `yaml_emitter_write_double_quoted_scalar` (without line folding).
fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        let escape = !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\';
        if !escape {
            out.push(c);
            continue;
        }
        out.push('\\');
        match c {
            '\0' => out.push('0'),
            '\u{7}' => out.push('a'),
            '\u{8}' => out.push('b'),
            '\t' => out.push('t'),
            '\n' => out.push('n'),
            '\u{b}' => out.push('v'),
            '\u{c}' => out.push('f'),
            '\r' => out.push('r'),
            '\u{1b}' => out.push('e'),
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '\u{85}' => out.push('N'),
            '\u{a0}' => out.push('_'),
            '\u{2028}' => out.push('L'),
            '\u{2029}' => out.push('P'),
            c if (c as u32) <= 0xFF => out.push_str(&format!("x{:02X}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("u{:04X}", c as u32)),
            c => out.push_str(&format!("U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

static BASE60_FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").expect("regex compiles")
});
static YAML_STYLE_FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").expect("regex compiles")
});
static DOT_FLOAT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$").expect("regex compiles"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})",
        r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))",
        r"|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?))?$"
    ))
    .expect("regex compiles")
});

/// yaml.v2 `isBase60Float`: quoted on output for YAML 1.1 readers.
fn is_base60_float(s: &str) -> bool {
    s.starts_with(|c: char| c == '+' || c == '-' || c.is_ascii_digit())
        && s.contains(':')
        && BASE60_FLOAT.is_match(s)
}

/// The formats yaml.v2 tries with `time.Parse` (a date, or a date and time).
fn is_timestamp(s: &str) -> bool {
    let Some(c) = TIMESTAMP.captures(s) else {
        return false;
    };
    let num = |i: usize| {
        c.get(i)
            .map(|m| m.as_str().parse::<u32>().unwrap_or(u32::MAX))
    };
    let (year, month, day) = (
        num(1).unwrap_or(0),
        num(2).unwrap_or(0),
        num(3).unwrap_or(0),
    );
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > days {
        return false;
    }
    let time = [(4, 5, 6), (7, 8, 9)]
        .into_iter()
        .find_map(|(h, m, s)| Some((num(h)?, num(m)?, num(s)?)));
    time.is_none_or(|(h, m, s)| h < 24 && m < 60 && s < 60)
}

/// Go `strconv.ParseInt(s, 0, 64)` or `ParseUint(s, 0, 64)` succeeds.
fn is_go_int(s: &str) -> bool {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return false;
    }
    let Ok(v) = u128::from_str_radix(digits, radix) else {
        return false;
    };
    if negative {
        v <= 1u128 << 63
    } else {
        v <= u128::from(u64::MAX)
    }
}

/// Whether yaml.v2 `resolve` gives a plain scalar `s` a tag other than `!!str`.
fn resolves_to_non_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF",
    ];
    let Some(first) = s.bytes().next() else {
        return true;
    };
    let hint = match first {
        b'+' | b'-' => 'S',
        b'0'..=b'9' => 'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => 'M',
        b'.' => '.',
        _ => return false,
    };
    if SPECIAL.contains(&s) {
        return true;
    }
    match hint {
        'M' => false,
        '.' => DOT_FLOAT.is_match(s),
        _ => {
            if is_timestamp(s) {
                return true;
            }
            let plain = s.replace('_', "");
            is_go_int(&plain)
                || (YAML_STYLE_FLOAT.is_match(&plain)
                    && plain.parse::<f64>().is_ok_and(f64::is_finite))
        }
    }
}

/// A string as a YAML scalar: plain when it reads back as the same string
/// (YAML 1.1 and 1.2 alike), double-quoted otherwise (Go's quoting uses
/// only escapes YAML's double-quoted style also reads).
pub fn portable_scalar(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        crate::quote::go_quote(s)
    }
}

/// Whether yaml.v3 writes `c` only inside double quotes: outside its
/// printable set (`is_printable`: LF, U+0020–U+007E, U+00A0–U+D7FF,
/// U+E000–U+FFFD except the BOM; so no tab, C1 control or character
/// beyond the BMP), or a line break (`is_break`: NEL, LS, PS).
fn needs_quotes(c: char) -> bool {
    !is_printable(c) || is_break(c)
}

fn plain_is_safe(s: &str) -> bool {
    if s.is_empty() || s != s.trim() || s.chars().any(needs_quotes) {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    let reserved = [
        "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", ".nan", ".inf", "-.inf",
        "+.inf", "<<",
    ];
    if reserved.contains(&lower.as_str()) {
        return false;
    }
    // Anything that starts like a number (ints, floats, octal, hex, 1e3,
    // 1_000, sexagesimal) is quoted.
    let first = s.as_bytes()[0];
    if first.is_ascii_digit()
        || ((first == b'-' || first == b'+' || first == b'.')
            && s.as_bytes().get(1).is_some_and(|b| b.is_ascii_digit()))
    {
        return false;
    }
    plain_indicators_ok(s)
}

/// No indicator first, no `: ` or ` #` inside and no `:` last: the
/// characters YAML 1.2 lets a plain scalar hold without quoting (the
/// reserved words and number-like spellings are checked by the caller).
fn plain_indicators_ok(s: &str) -> bool {
    let Some(first) = s.bytes().next() else {
        return false;
    };
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
    let pair = s
        .as_bytes()
        .windows(2)
        .any(|w| (w[0] == b':' && w[1] == b' ') || (w[0] == b' ' && w[1] == b'#'));
    !pair && !s.ends_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_v2_scalar_quoting() {
        for (input, want) in [
            ("a.com/a1/a2", "a.com/a1/a2"),
            ("*.example.com", "'*.example.com'"),
            (
                "a.com/a1/a2@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                "a.com/a1/a2@sha256:0000000000000000000000000000000000000000000000000000000000000000",
            ),
            ("localhost:5000/ns", "localhost:5000/ns"),
            ("10.0.0.1:5000/ns", "10.0.0.1:5000/ns"),
            ("@scope", "'@scope'"),
            ("it's", "it's"),
            ("'quoted", "'''quoted'"),
            ("a: b", "'a: b'"),
            ("a #b", "'a #b'"),
            ("a#b", "a#b"),
            ("- x", "'- x'"),
            ("-x", "-x"),
            ("true", "\"true\""),
            ("on", "\"on\""),
            ("yes", "\"yes\""),
            ("null", "\"null\""),
            ("~", "\"~\""),
            ("", "\"\""),
            ("1.5", "\"1.5\""),
            ("123", "\"123\""),
            ("0x1F", "\"0x1F\""),
            ("1_000", "\"1_000\""),
            ("1:20", "\"1:20\""),
            ("2024-01-31", "\"2024-01-31\""),
            ("2024-02-30", "2024-02-30"),
            (".5", "\".5\""),
            ("tab\there", "\"tab\\there\""),
            // Cross-checked against libyaml's emitter (same analysis as yaml.v2).
            ("?x", "?x"),
            ("? x", "'? x'"),
            (":x", ":x"),
            ("x:", "'x:'"),
            ("%x", "'%x'"),
            ("a,b", "a,b"),
            ("a[b]", "a[b]"),
            ("{a}", "'{a}'"),
            ("!x", "'!x'"),
            ("|x", "'|x'"),
            (">x", "'>x'"),
            ("`x", "'`x'"),
            ("---x", "'---x'"),
            ("...x", "'...x'"),
            ("[a", "'[a'"),
            (" lead", "' lead'"),
            ("trail ", "'trail '"),
            ("é.example.com", "é.example.com"),
            ("😀.example.com", "\"\\U0001F600.example.com\""),
        ] {
            assert_eq!(v2_scalar(input), want, "{input:?}");
        }
    }

    #[test]
    fn yaml_v2_key_order() {
        let mut keys = vec![
            "registry10.example.com",
            "registry9.example.com",
            "a.com",
            "*.example.com",
            "a-a1.mirror/a1/a2",
            "A.com",
            "_x.com",
            "a.com/a1/a2@sha256:00",
            "a.com/a1/a2",
            "host:5000/x",
            "host1.example.com",
        ];
        v2_sort(&mut keys);
        assert_eq!(
            keys,
            vec![
                "*.example.com",
                "_x.com",
                "A.com",
                "a-a1.mirror/a1/a2",
                "a.com",
                "a.com/a1/a2",
                "a.com/a1/a2@sha256:00",
                "host:5000/x",
                "host1.example.com",
                "registry9.example.com",
                "registry10.example.com",
            ]
        );
    }
}
