//! registries.conf as BurntSushi/toml v0.3.1 reads it: the parser of
//! CRI-O 1.21 and earlier (OpenShift 4.8 and earlier), and the few places
//! where v0.4.1 (CRI-O 1.22 and 1.23) departs from the v1.1.0 model
//! (`burntsushi`) it otherwise follows.
//!
//! v0.3.1 reads TOML 0.4: no dotted keys, no hexadecimal, octal or binary
//! integers, no `inf`/`nan`, no local times, no space between a date and
//! its time, homogeneous arrays only. It also accepts texts TOML 1.0
//! refuses (leading zeros, control characters in strings and comments,
//! duplicate keys in inline tables, a bare carriage return as a line
//! break, ...) with readings of its own; so does v0.4.1 with a bare
//! carriage return. Every release from v0.4.1 on refuses fractional seconds
//! of more than nine digits, which TOML 1.0 leaves to the parser.
//!
//! The tool models what v0.3.1 refuses, on a text the `toml` crate reads as
//! TOML 1.0 ([`refusal`]); what it reads differently is not modelled, and
//! [`unmodelled`] finds a construct that makes its reading of such a text,
//! or of one TOML 1.0 refuses, unknown. Sources: the lexers and parsers of
//! BurntSushi/toml v0.3.1 and v0.4.1 (`lex.go`, `parse.go`,
//! `type_check.go`); checked against `toml.DecodeFile` of each tag by
//! tests/it/burntsushi_oracle.rs.

use crate::crio::TomlReader;

/// The release that reads the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Legacy {
    /// v0.3.1 (TOML 0.4), CRI-O 1.21 and earlier.
    V0_3,
}

impl Legacy {
    /// The legacy model of a CRI-O's reader, when it is v0.3.1.
    pub(super) fn of_reader(reader: TomlReader) -> Option<Self> {
        (reader == TomlReader::V0_3_1).then_some(Self::V0_3)
    }

    fn name(self) -> &'static str {
        match self {
            Self::V0_3 => "BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier)",
        }
    }
}

/// A construct where the release departs from TOML 1.0, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Finding {
    /// Byte offset in the text.
    pub offset: usize,
    /// What the release does with it, in words.
    pub message: String,
}

/// What the innermost open bracket is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Open {
    /// `{`: an inline table, with the keys written in it so far and whether
    /// a comma was the last token.
    Table {
        keys: Vec<Vec<u8>>,
        after_comma: bool,
    },
    /// `[` in a value: an array, with the type of its first item once read.
    Array(Option<Kind>),
}

/// A value's type, as v0.3.1's `typeOfArray` compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Integer,
    Float,
    Bool,
    Datetime,
    Array,
    Table,
}

/// The first construct of `text` that `release` refuses, on a text the
/// `toml` crate has read as TOML 1.0 (no TOML 1.1 construct); `None` when
/// it reads the text as TOML 1.0 does.
pub(super) fn refusal(text: &str, release: Legacy) -> Option<Finding> {
    let refuses = |offset: usize, what: &str, said: &str| Finding {
        offset,
        message: format!("{what}, which {} refuses ({said})", release.name()),
    };
    if text.starts_with('\u{feff}') {
        return Some(refuses(
            0,
            "a byte order mark",
            "bare keys cannot contain '\\ufeff'",
        ));
    }
    let mut scan = Scan::new(text);
    let found = scan.run();
    let (offset, construct) = found.into_iter().find(|(_, c)| c.refused_by(release))?;
    Some(refuses(offset, construct.what(), construct.said()))
}

/// A time with more than nine fractional digits in `text`, `(finding,
/// refused)`. TOML 1.0 leaves the precision to the parser; BurntSushi/toml
/// from v0.4.1 on parses it with Go's `time.ParseInLocation`, whose layouts
/// for a local date-time or time stop at nine digits ("Invalid TOML
/// Datetime"; "invalid datetime" from v1.4.0): refused. With an offset the
/// layout is `time.RFC3339Nano`, which Go 1.20 and later parse on a fast
/// path that takes any number of digits: whether the node reads it depends
/// on the Go that built its CRI-O, which the tool does not model.
pub(super) fn long_fraction(text: &str) -> Option<(Finding, bool)> {
    let (offset, c) = Scan::new(text)
        .run()
        .into_iter()
        .find(|(_, c)| matches!(c, Construct::LongFraction | Construct::LongFractionOffset))?;
    let refused = c == Construct::LongFraction;
    let message = if refused {
        "a time with more than nine fractional digits, which BurntSushi/toml v0.4.1 and later \
         refuse (invalid datetime)"
    } else {
        "a date-time with an offset and more than nine fractional digits, which BurntSushi/toml \
         v0.4.1 and later read only when CRI-O was built with Go 1.20 or later (Go's RFC 3339 \
         parser), not modelled by this tool"
    };
    Some((
        Finding {
            offset,
            message: message.to_string(),
        },
        refused,
    ))
}

/// The first construct of `text` that v0.3.1 reads in its own way, which
/// the tool does not model: one TOML 1.0 refuses (leading zeros, control
/// characters, a trailing comma or a key written twice in an inline table,
/// a multi-line string as a key), or a multi-line string opening with a
/// carriage return, which it keeps.
pub(super) fn unmodelled(text: &str, release: Legacy) -> Option<Finding> {
    let bytes = text.as_bytes();
    let construct = Scan::new(text)
        .run()
        .into_iter()
        .filter(|(_, c)| c.read_differently(release))
        .min_by_key(|(offset, _)| *offset);
    // A control character outside a string or comment is refused by v0.3.1
    // as by TOML 1.0 (`bare keys cannot contain`, `expected value`): only
    // those in strings and comments (found by the scan) and a bare carriage
    // return, which it takes as a line break anywhere, are its own reading.
    let control = bytes
        .iter()
        .enumerate()
        .position(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        .map(|offset| (offset, Construct::ControlCharacter));
    let (offset, construct) = match (construct, control) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }?;
    Some(Finding {
        offset,
        message: format!(
            "{}, which {} reads in its own way, not modelled by this tool",
            construct.what(),
            release.name()
        ),
    })
}

/// Where `text` has a carriage return not followed by a line feed, which
/// v0.3.1 and v0.4.1 take as a line break (v1.0.0 and later refuse it).
pub(super) fn bare_carriage_return(text: &str) -> Option<Finding> {
    let bytes = text.as_bytes();
    let offset = memchr::memchr_iter(b'\r', bytes).find(|&i| bytes.get(i + 1) != Some(&b'\n'))?;
    Some(Finding {
        offset,
        message: "a carriage return not followed by a line feed, which BurntSushi/toml v0.4.1 \
                  (CRI-O 1.22 and 1.23) takes as a line break, with a reading of its own not \
                  modelled by this tool"
            .to_string(),
    })
}

/// The constructs the scanner reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Construct {
    DottedKey,
    BaseInteger,
    InfNan,
    LocalTime,
    DatetimeSeparator,
    LongFraction,
    LongFractionOffset,
    MixedArray,
    ExtraClosingQuotes,
    BackslashSpace,
    BackslashCrlf,
    MultilineOpensWithCr,
    LeadingZero,
    InlineTrailingComma,
    InlineDuplicateKey,
    MultilineKey,
    DottedKeyAfterPart,
    ControlCharacter,
}

impl Construct {
    fn refused_by(self, release: Legacy) -> bool {
        use Construct::*;
        matches!(
            (self, release),
            (
                DottedKey
                    | DottedKeyAfterPart
                    | BaseInteger
                    | InfNan
                    | LocalTime
                    | DatetimeSeparator
                    | MixedArray
                    | ExtraClosingQuotes
                    | BackslashSpace
                    | BackslashCrlf,
                Legacy::V0_3,
            )
        )
    }

    /// Whether the release may accept, with a reading of its own, a text
    /// TOML 1.0 refuses because of this construct.
    fn read_differently(self, release: Legacy) -> bool {
        use Construct::*;
        matches!(
            (self, release),
            (
                LeadingZero
                    | InlineTrailingComma
                    | InlineDuplicateKey
                    | MultilineKey
                    | ControlCharacter
                    | MultilineOpensWithCr,
                Legacy::V0_3
            )
        )
    }

    fn what(self) -> &'static str {
        use Construct::*;
        match self {
            DottedKey => "a dotted key",
            BaseInteger => "a hexadecimal, octal or binary integer",
            InfNan => "an inf or nan float",
            LocalTime => "a local time",
            DatetimeSeparator => "a date-time whose date and time are not joined by 'T'",
            LongFraction => "a time with more than nine fractional digits",
            LongFractionOffset => "a date-time with an offset and more than nine fractional digits",
            MixedArray => "an array of values of different types",
            ExtraClosingQuotes => "a multi-line string with quotes before its closing delimiter",
            BackslashSpace => "a line-ending backslash followed by white space",
            BackslashCrlf => "a line-ending backslash followed by CRLF",
            MultilineOpensWithCr => "a multi-line string that opens with a carriage return",
            LeadingZero => "a number with a leading zero",
            InlineTrailingComma => "a trailing comma in an inline table",
            InlineDuplicateKey => "a key written twice in an inline table",
            MultilineKey => "a multi-line string as a key",
            DottedKeyAfterPart => "a dotted key",
            ControlCharacter => "a control character or a bare carriage return",
        }
    }

    /// The release's own words, where it has some.
    fn said(self) -> &'static str {
        use Construct::*;
        match self {
            DottedKey => "bare keys cannot contain '.'",
            DottedKeyAfterPart => "expected key separator '=', but got '.' instead",
            MixedArray => "arrays must be homogeneous",
            LongFraction => "Invalid TOML Datetime",
            BackslashSpace => "invalid escape character ' '",
            BackslashCrlf => {
                "it panics: BUG: Expected valid escape code after \\, but got '\\r', and the \
                 process reading the file stops"
            }
            _ => "a lexer error",
        }
    }
}

/// The scanner's state over one text.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    open: Vec<Open>,
    /// A key is expected next (line start, after `{` or `,` in an inline table).
    expect_key: bool,
    found: Vec<(usize, Construct)>,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            bytes: text.as_bytes(),
            at: 0,
            open: Vec::new(),
            expect_key: true,
            found: Vec::new(),
        }
    }

    fn note(&mut self, offset: usize, c: Construct) {
        self.found.push((offset, c));
    }

    /// Every construct found, in text order.
    fn run(&mut self) -> Vec<(usize, Construct)> {
        while let Some(&c) = self.bytes.get(self.at) {
            if !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b'#' | b',' | b'}') {
                if let Some(Open::Table { after_comma, .. }) = self.open.last_mut() {
                    *after_comma = false;
                }
            }
            match c {
                b' ' | b'\t' | b'\r' => self.at += 1,
                b'\n' => {
                    self.at += 1;
                    if self.open.is_empty() {
                        self.expect_key = true;
                    }
                }
                b'#' => {
                    let start = self.at;
                    self.at = memchr::memchr(b'\n', &self.bytes[self.at..])
                        .map_or(self.bytes.len(), |n| self.at + n);
                    self.note_controls(start);
                }
                b'=' => {
                    self.expect_key = false;
                    self.at += 1;
                }
                b'[' if self.open.is_empty() && self.expect_key => self.header(),
                b'[' | b'{' => self.open_bracket(c),
                b'}' | b']' => self.close_bracket(),
                b',' => self.comma(),
                b'"' | b'\'' if self.expect_key => {
                    let start = self.at;
                    let rest = &self.bytes[start..];
                    if rest.len() >= 3 && rest[1] == c && rest[2] == c {
                        self.note(start, Construct::MultilineKey);
                    }
                    self.string();
                    self.inline_key(start);
                    self.after_key_part();
                }
                b'"' | b'\'' => {
                    self.item(Kind::String);
                    self.string();
                }
                _ if self.expect_key => {
                    let start = self.at;
                    self.bare();
                    self.inline_key(start);
                    self.after_key_part();
                }
                _ => self.value(),
            }
        }
        std::mem::take(&mut self.found)
    }

    /// `[` opening an array, or `{` an inline table, as a value.
    fn open_bracket(&mut self, c: u8) {
        if c == b'{' {
            self.item(Kind::Table);
            self.open.push(Open::Table {
                keys: Vec::new(),
                after_comma: false,
            });
            self.expect_key = true;
        } else {
            self.item(Kind::Array);
            self.open.push(Open::Array(None));
        }
        self.at += 1;
    }

    /// `}` or `]`: right after a comma in an inline table, a trailing comma.
    fn close_bracket(&mut self) {
        if let Some(Open::Table {
            after_comma: true, ..
        }) = self.open.last()
        {
            self.note(self.at, Construct::InlineTrailingComma);
        }
        self.open.pop();
        self.at += 1;
    }

    /// `,`: in an inline table a key comes next.
    fn comma(&mut self) {
        let in_table = match self.open.last_mut() {
            Some(Open::Table { after_comma, .. }) => {
                *after_comma = true;
                true
            }
            _ => false,
        };
        self.expect_key = in_table;
        self.at += 1;
    }

    /// A table header `[a.b]` or `[[a.b]]`: dots belong there; skipped to
    /// its end, strings in it read as strings.
    fn header(&mut self) {
        while let Some(&c) = self.bytes.get(self.at) {
            match c {
                b'"' | b'\'' => self.string(),
                b'\n' => return,
                b']' => {
                    self.at += 1;
                    if self.bytes.get(self.at) == Some(&b']') {
                        self.at += 1;
                    }
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    /// After one part of a key: a dot (after white space or not) makes it
    /// a dotted key.
    fn after_key_part(&mut self) {
        let mut at = self.at;
        while matches!(self.bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        if self.bytes.get(at) == Some(&b'.') {
            self.note(at, Construct::DottedKeyAfterPart);
            self.at = at + 1;
        }
    }

    /// A key (from `start` to here) written directly in an inline table:
    /// noted when the table has it already.
    fn inline_key(&mut self, start: usize) {
        let key = self.bytes[start..self.at].to_vec();
        let twice = match self.open.last_mut() {
            Some(Open::Table { keys, .. }) => {
                let twice = keys.contains(&key);
                keys.push(key);
                twice
            }
            _ => false,
        };
        if twice {
            self.note(start, Construct::InlineDuplicateKey);
        }
    }

    /// An item of the innermost array: its type against the first item's.
    fn item(&mut self, kind: Kind) {
        self.item_at(self.at, kind);
    }

    /// [`Self::item`] for an item that starts at `at`.
    fn item_at(&mut self, at: usize, kind: Kind) {
        let mixed = match self.open.last_mut() {
            Some(Open::Array(first @ None)) => {
                *first = Some(kind);
                false
            }
            // An item of another type than the last one noted: noted.
            Some(Open::Array(Some(k))) if *k != kind => {
                *k = kind;
                true
            }
            _ => false,
        };
        if mixed {
            self.note(at, Construct::MixedArray);
        }
    }

    /// The end of a bare token.
    fn token_end(&self, from: usize) -> usize {
        self.bytes[from..]
            .iter()
            .position(|&b| super::toml10::ends_token(b))
            .map_or(self.bytes.len(), |n| from + n)
    }

    /// A bare key part; a dot inside it makes a dotted key.
    fn bare(&mut self) {
        let start = self.at;
        let end = self.token_end(start).max(start + 1);
        if let Some(dot) = self.bytes[start..end].iter().position(|&b| b == b'.') {
            self.note(start + dot, Construct::DottedKey);
        }
        self.at = end;
    }

    /// A bare value: a number, a boolean or a date-time.
    fn value(&mut self) {
        let start = self.at;
        let mut end = self.token_end(start).max(start + 1);
        // A date, a space, and a time are one date-time.
        let token = &self.bytes[start..end];
        let is_date = token.len() == 10 && token[4] == b'-' && token[7] == b'-';
        if is_date
            && self.bytes.get(end) == Some(&b' ')
            && self.bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
        {
            self.note(end, Construct::DatetimeSeparator);
            end = self.token_end(end + 1);
        }
        self.at = end;
        let token = &self.bytes[start..end];
        let kind = self.classify(start, token);
        self.item_at(start, kind);
    }

    /// The type of a bare value, noting what the releases refuse in it.
    fn classify(&mut self, start: usize, token: &[u8]) -> Kind {
        if token == b"true" || token == b"false" {
            return Kind::Bool;
        }
        let unsigned = token.strip_prefix(b"+").or(token.strip_prefix(b"-"));
        let digits = unsigned.unwrap_or(token);
        if matches!(digits, b"inf" | b"nan") {
            self.note(start, Construct::InfNan);
            return Kind::Float;
        }
        let is_datetime = token.len() >= 8
            && (token.get(4) == Some(&b'-') || token.get(2) == Some(&b':'))
            && token[0].is_ascii_digit();
        if is_datetime {
            if token.get(2) == Some(&b':') {
                self.note(start, Construct::LocalTime);
            }
            if let Some(i) = token.iter().position(|&b| b == b't' || b == b'z') {
                self.note(start + i, Construct::DatetimeSeparator);
            }
            if let Some(dot) = token.iter().position(|&b| b == b'.') {
                let fraction = token[dot + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                if fraction > 9 {
                    let offset = matches!(
                        token.get(dot + 1 + fraction),
                        Some(b'Z' | b'z' | b'+' | b'-')
                    );
                    let c = if offset {
                        Construct::LongFractionOffset
                    } else {
                        Construct::LongFraction
                    };
                    self.note(start + dot, c);
                }
            }
            return Kind::Datetime;
        }
        if digits.len() > 1 && digits[0] == b'0' {
            match digits[1] {
                b'x' | b'o' | b'b' => {
                    self.note(start, Construct::BaseInteger);
                    return Kind::Integer;
                }
                b'0'..=b'9' | b'_' => self.note(start, Construct::LeadingZero),
                _ => {}
            }
        }
        if digits.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
            Kind::Float
        } else {
            Kind::Integer
        }
    }

    /// A string of any of the four kinds, from its opening quote to past
    /// its closing one.
    /// A control character (other than tab and line breaks) from `start`
    /// to where the scan is, inside a string or comment: v0.3.1 keeps it,
    /// TOML 1.0 refuses it.
    fn note_controls(&mut self, start: usize) {
        let span = &self.bytes[start..self.at];
        if let Some(i) = span
            .iter()
            .position(|&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
        {
            self.note(start + i, Construct::ControlCharacter);
        }
    }

    fn string(&mut self) {
        let start = self.at;
        self.string_body();
        self.note_controls(start);
    }

    fn string_body(&mut self) {
        let start = self.at;
        let quote = self.bytes[start];
        let rest = &self.bytes[start..];
        let multi = rest.len() >= 3 && rest[1] == quote && rest[2] == quote;
        self.at += if multi { 3 } else { 1 };
        if multi && self.bytes.get(self.at) == Some(&b'\r') {
            self.note(self.at, Construct::MultilineOpensWithCr);
        }
        while let Some(&c) = self.bytes.get(self.at) {
            if c == b'\\' && quote == b'"' {
                if multi {
                    self.line_ending_backslash();
                }
                // The escaped byte, when the text does not end here.
                self.at = (self.at + 2).min(self.bytes.len());
                continue;
            }
            if c == b'\n' && !multi {
                return;
            }
            self.at += 1;
            if c != quote {
                continue;
            }
            if !multi {
                return;
            }
            let closing = self.bytes[self.at..]
                .iter()
                .take_while(|&&b| b == quote)
                .count();
            if closing >= 2 {
                if closing > 2 {
                    self.note(self.at - 1, Construct::ExtraClosingQuotes);
                }
                self.at += closing.min(4);
                return;
            }
            self.at += closing;
        }
    }

    /// A backslash in a multi-line basic string: before white space and a
    /// line break, v0.3.1 refuses the escape (spaces) or panics (CRLF).
    fn line_ending_backslash(&mut self) {
        let next = &self.bytes[self.at + 1..];
        if next.starts_with(b"\r\n") {
            self.note(self.at, Construct::BackslashCrlf);
            return;
        }
        let blanks = next
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if blanks > 0 && matches!(next.get(blanks), Some(b'\n' | b'\r')) {
            self.note(self.at, Construct::BackslashSpace);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: a TOML 1.0 text, and what v0.3.1 says of it, as its
    /// `toml.DecodeFile` answers (the messages' own words).
    #[test]
    fn refusals_by_release() {
        let v03 = Legacy::V0_3;
        for (text, release, want) in [
            ("a.b = 1\n", v03, Some((1, "a dotted key"))),
            ("a . b = 1\n", v03, Some((2, "a dotted key"))),
            ("\"a\".b = 1\n", v03, Some((3, "a dotted key"))),
            ("t = { a.b = 1 }\n", v03, Some((7, "a dotted key"))),
            ("[a.b]\nc = 1\n", v03, None),
            ("[ a . \"b.c\" ]\n[[d.e]]\n", v03, None),
            (
                "x = 0x1F\n",
                v03,
                Some((4, "a hexadecimal, octal or binary integer")),
            ),
            (
                "x = 0o17\n",
                v03,
                Some((4, "a hexadecimal, octal or binary integer")),
            ),
            ("x = inf\n", v03, Some((4, "an inf or nan float"))),
            ("x = -nan\n", v03, Some((4, "an inf or nan float"))),
            ("x = 07:32:00\n", v03, Some((4, "a local time"))),
            ("x = 1979-05-27\n", v03, None),
            ("x = 1979-05-27T07:32:00\n", v03, None),
            ("x = 1979-05-27T07:32:00Z\n", v03, None),
            (
                "x = 1979-05-27 07:32:00Z\n",
                v03,
                Some((14, "a date-time whose date and time are not joined by 'T'")),
            ),
            (
                "x = 1979-05-27t07:32:00z\n",
                v03,
                Some((14, "a date-time whose date and time are not joined by 'T'")),
            ),
            ("x = 1979-05-27T07:32:00.1234567891Z\n", v03, None),
            (
                "x = [1, \"a\"]\n",
                v03,
                Some((8, "an array of values of different types")),
            ),
            (
                "x = [1, 2.0]\n",
                v03,
                Some((8, "an array of values of different types")),
            ),
            ("x = [[1], [\"a\"]]\n", v03, None),
            ("x = [ { a = 1 }, { b = \"c\" } ]\n", v03, None),
            (
                "s = \"\"\"x\"\"\"\"\n",
                v03,
                Some((
                    8,
                    "a multi-line string with quotes before its closing delimiter",
                )),
            ),
            (
                "s = \"\"\"x\\  \n  y\"\"\"\n",
                v03,
                Some((8, "a line-ending backslash followed by white space")),
            ),
            (
                "s = \"\"\"x\\\r\n  y\"\"\"\n",
                v03,
                Some((8, "a line-ending backslash followed by CRLF")),
            ),
            ("s = \"\"\"x\\\n  y\"\"\"\n", v03, None),
            ("\u{feff}a = 1\n", v03, Some((0, "a byte order mark"))),
            (
                "s = \"a.b 0x1 inf 07:32:00\" # x.y = 0x1\nt = 'a.b'\n",
                v03,
                None,
            ),
            ("'a b' = 1\n\"\" = 2\nx = +1\ny = 1_000\n", v03, None),
        ] {
            let got = refusal(text, release);
            let got = got.as_ref().map(|f| (f.offset, f.message.as_str()));
            match (got, want) {
                (None, None) => {}
                (Some((offset, message)), Some((want_offset, what))) => {
                    assert_eq!(offset, want_offset, "{text:?} {release:?}: {message}");
                    assert!(message.starts_with(what), "{text:?} {release:?}: {message}");
                }
                (got, want) => panic!("{text:?} {release:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// A text that ends inside an escape, a string or a table, at every
    /// byte: the scanners answer, they never read past the end (a text
    /// ending in `"\\` once did, found by `tests/it/properties.rs`).
    #[test]
    fn texts_cut_anywhere_are_scanned_without_panic() {
        let text = "t = { \"k\\\"ey\" = \"v\\u00e9\", 'l' = \"\"\"a\\\n b\"\"\" }\ns = \"\\\\\"\n";
        for end in 0..=text.len() {
            let cut = &text[..end];
            let _ = refusal(cut, Legacy::V0_3);
            let _ = unmodelled(cut, Legacy::V0_3);
            let _ = long_fraction(cut);
            let _ = bare_carriage_return(cut);
        }
    }

    #[test]
    fn refusal_messages_quote_the_release() {
        let f = refusal("a.b = 1\n", Legacy::V0_3).expect("refused");
        assert_eq!(
            f.message,
            "a dotted key, which BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier) refuses \
             (bare keys cannot contain '.')"
        );
    }

    /// What these releases accept although TOML 1.0 refuses it, read their
    /// own way: unknown to the tool.
    #[test]
    fn unmodelled_readings() {
        for (text, want) in [
            ("x = 0123\n", Some((4, "a number with a leading zero"))),
            (
                "a = 1\rb = 2\n",
                Some((5, "a control character or a bare carriage return")),
            ),
            // BurntSushi/toml v0.3.1 lex.go: lexComment and lexString keep a
            // control character; lexBareKey, lexValue and lexTopEnd refuse one
            // (as TOML 1.0 does), so only those in strings and comments count.
            (
                "# a\u{1}b\nx = 1\n",
                Some((3, "a control character or a bare carriage return")),
            ),
            (
                "x = \"a\u{7f}\"\n",
                Some((6, "a control character or a bare carriage return")),
            ),
            (
                "x = '''\n\u{2}'''\n",
                Some((8, "a control character or a bare carriage return")),
            ),
            ("\u{1}\u{2}\u{3}", None),
            ("x = 1 \u{1}\n", None),
            ("x = \u{1}\n", None),
            ("[a\u{1}]\n", None),
            ("[a]\nb.c = 1\n[a.b]\n", None),
            ("[a]\n[a]\n", None),
            (
                "s = \"\"\"\r\nx\"\"\"\n",
                Some((7, "a multi-line string that opens with a carriage return")),
            ),
            ("t = { a = 1 }\nm = [{ a = 1, b = [1, 2] }]\n", None),
            (
                "t = { a = 1, }\n",
                Some((13, "a trailing comma in an inline table")),
            ),
            (
                "t = { a = [1, 2], }\n",
                Some((18, "a trailing comma in an inline table")),
            ),
            (
                "t = { a = 1, b = 2, a = 3 }\n",
                Some((20, "a key written twice in an inline table")),
            ),
            ("t = { a = { a = 1 } }\n", None),
            (
                "\"\"\"k\"\"\" = 1\n",
                Some((0, "a multi-line string as a key")),
            ),
        ] {
            let got = unmodelled(text, Legacy::V0_3);
            let got = got.as_ref().map(|f| (f.offset, f.message.as_str()));
            match (got, want) {
                (None, None) => {}
                (Some((offset, message)), Some((want_offset, what))) => {
                    assert_eq!(offset, want_offset, "{text:?}: {message}");
                    assert!(message.starts_with(what), "{text:?}: {message}");
                }
                (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// From v0.4.1 on, a local time's fraction of ten digits is refused; an
    /// offset date-time's depends on the Go that built CRI-O.
    #[test]
    fn long_fractions_and_bare_carriage_returns() {
        let (f, refused) = long_fraction("x = 1979-05-27T07:32:00.1234567891Z\n").expect("found");
        assert_eq!((f.offset, refused), (23, false));
        let (f, refused) = long_fraction("x = 1979-05-27T07:32:00.1234567891\n").expect("found");
        assert_eq!((f.offset, refused), (23, true));
        assert!(long_fraction("x = 1979-05-27T07:32:00.123456789Z\nt = 07:32:00.5\n").is_none());
        assert_eq!(
            long_fraction("t = 07:32:00.1234567891\n").map(|(f, r)| (f.offset, r)),
            Some((12, true))
        );
        assert_eq!(
            long_fraction("x = 1979-05-27 07:32:00.1234567891+01:00\n").map(|(f, r)| (f.offset, r)),
            Some((23, false))
        );
        assert_eq!(
            bare_carriage_return("a = 1\rb = 2\r\n").map(|f| f.offset),
            Some(5)
        );
        assert!(bare_carriage_return("a = 1\r\nb = 2\r\n").is_none());
    }

    #[test]
    fn releases_by_crio() {
        let of = |minor| Legacy::of_reader(TomlReader::of_crio(minor));
        assert_eq!(of(17), Some(Legacy::V0_3));
        assert_eq!(of(21), Some(Legacy::V0_3));
        assert_eq!(of(22), None);
        assert_eq!(of(24), None);
    }
}
