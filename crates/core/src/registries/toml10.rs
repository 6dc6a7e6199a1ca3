//! TOML 1.0, as the node reads registries.conf: containers/image decodes it
//! with BurntSushi/toml, which up to v1.5.0 (vendored by CRI-O 1.34 and
//! earlier, OpenShift 4.21 and earlier) reads TOML 1.0 only; v1.6.0 made
//! TOML 1.1 its default.
//!
//! The `toml` crate reads TOML 1.1, whose grammar is TOML 1.0's plus four
//! additions (toml-lang CHANGELOG, 1.1.0): newlines, comments and a
//! trailing comma inside inline tables; the `\xHH` and `\e` escapes in
//! basic strings; and times (alone or in a date-time) without seconds.
//! So a text the `toml` crate accepts is TOML 1.0 exactly when it uses none
//! of them, and [`first_toml_1_1_use`] finds the first one it uses.

/// A TOML 1.1 construct that TOML 1.0 refuses, and where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Toml11Use {
    /// Byte offset of the construct in the text.
    pub offset: usize,
    /// What it is, in words.
    pub what: &'static str,
}

/// Whether `b` ends a bare token (a bare key, number, boolean or
/// date-time): white space, or punctuation of the grammar.
pub(super) fn ends_token(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\r'
            | b'\n'
            | b','
            | b'='
            | b'#'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'"'
            | b'\''
    )
}

/// What the innermost open bracket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `{`: an inline table.
    Table,
    /// `[`: an array, or a table header.
    Array,
}

/// The scanner's state over one text.
struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    open: Vec<Open>,
    /// The last token in the innermost inline table was a comma.
    after_comma: bool,
}

/// The first TOML 1.1-only construct of `text`, a text the `toml` crate
/// (TOML 1.1) has accepted; `None` when the text is TOML 1.0. On other text
/// it never panics, but its answer means nothing.
pub(super) fn first_toml_1_1_use(text: &str) -> Option<Toml11Use> {
    let mut scan = Scan {
        bytes: text.as_bytes(),
        at: 0,
        open: Vec::new(),
        after_comma: false,
    };
    scan.run().err()
}

impl Scan<'_> {
    fn in_inline_table(&self) -> bool {
        self.open.last() == Some(&Open::Table)
    }

    fn found(&self, offset: usize, what: &'static str) -> Result<(), Toml11Use> {
        Err(Toml11Use { offset, what })
    }

    fn run(&mut self) -> Result<(), Toml11Use> {
        while let Some(&c) = self.bytes.get(self.at) {
            match c {
                b' ' | b'\t' | b'\r' | b'=' => self.at += 1,
                b'\n' if self.in_inline_table() => {
                    return self.found(self.at, "a newline inside an inline table");
                }
                b'\n' => self.at += 1,
                b'#' if self.in_inline_table() => {
                    return self.found(self.at, "a comment inside an inline table");
                }
                b'#' => {
                    self.at = memchr::memchr(b'\n', &self.bytes[self.at..])
                        .map_or(self.bytes.len(), |n| self.at + n);
                }
                b'{' | b'[' => {
                    self.open
                        .push(if c == b'{' { Open::Table } else { Open::Array });
                    self.after_comma = false;
                    self.at += 1;
                }
                b'}' if self.after_comma => {
                    return self.found(self.at, "a trailing comma in an inline table");
                }
                b'}' | b']' => {
                    self.open.pop();
                    self.after_comma = false;
                    self.at += 1;
                }
                b',' => {
                    self.after_comma = self.in_inline_table();
                    self.at += 1;
                }
                b'"' | b'\'' => {
                    self.string()?;
                    self.after_comma = false;
                }
                _ => {
                    self.bare()?;
                    self.after_comma = false;
                }
            }
        }
        Ok(())
    }

    /// A string of any of the four kinds, from its opening quote to past
    /// its closing one; escapes checked in basic strings.
    fn string(&mut self) -> Result<(), Toml11Use> {
        let quote = self.bytes[self.at];
        let rest = &self.bytes[self.at..];
        let multi = rest.len() >= 3 && rest[1] == quote && rest[2] == quote;
        self.at += if multi { 3 } else { 1 };
        while let Some(&c) = self.bytes.get(self.at) {
            if c == b'\\' && quote == b'"' {
                match self.bytes.get(self.at + 1) {
                    Some(b'e') => return self.found(self.at, "the \\e escape"),
                    Some(b'x') => return self.found(self.at, "a \\xHH escape"),
                    // The escaped byte, when the text does not end here.
                    _ => self.at = (self.at + 2).min(self.bytes.len()),
                }
                continue;
            }
            self.at += 1;
            if c != quote {
                continue;
            }
            if !multi {
                return Ok(());
            }
            let closing = self.bytes[self.at..]
                .iter()
                .take_while(|&&b| b == quote)
                .count();
            if closing >= 2 {
                // `"""` closes; up to two more quotes before it belong to the content.
                self.at += closing.min(4);
                return Ok(());
            }
            self.at += closing;
        }
        Ok(())
    }

    /// A bare key or value: any token with a colon is a time or a
    /// date-time (bare keys hold none), whose time must have seconds.
    fn bare(&mut self) -> Result<(), Toml11Use> {
        let start = self.at;
        let len = self.bytes[start..]
            .iter()
            .position(|&b| ends_token(b))
            .unwrap_or(self.bytes.len() - start);
        self.at = start + len.max(1);
        let token = &self.bytes[start..start + len];
        if let Some(colon) = token.iter().position(|&b| b == b':') {
            // `HH:MM` then `:SS`, else the seconds are missing.
            if token.get(colon + 3) != Some(&b':') {
                let hour = start + colon.saturating_sub(2);
                return self.found(hour, "a time without seconds");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text cut at every byte, inside escapes, strings and inline
    /// tables: the scanner answers without reading past the end.
    #[test]
    fn texts_cut_anywhere_are_scanned_without_panic() {
        let text = "t = { \"k\\\"ey\" = \"v\\u00e9\", 'l' = \"\"\"a\\\n b\"\"\" }\ns = \"\\\\\"\n";
        for end in 0..=text.len() {
            let _ = first_toml_1_1_use(&text[..end]);
        }
    }

    /// toml-test's TOML 1.1 cases (valid/inline-table/newline,
    /// valid/string/escape-esc, valid/string/hex-escape,
    /// valid/datetime/no-seconds), which BurntSushi/toml v1.5.0 refuses
    /// unless BURNTSUSHI_TOML_110 is set, and TOML 1.0 spellings of the
    /// same, which it reads.
    #[test]
    fn finds_each_toml_1_1_addition() {
        for (text, want) in [
            (
                "t = {\n  a = 1 }\n",
                Some((5, "a newline inside an inline table")),
            ),
            (
                "t = { a = 1\n}\n",
                Some((11, "a newline inside an inline table")),
            ),
            (
                "t = { a = 1, }\n",
                Some((13, "a trailing comma in an inline table")),
            ),
            (
                "t = { a = { b = 1 }, }\n",
                Some((21, "a trailing comma in an inline table")),
            ),
            (
                "t = { # c\n a = 1 }\n",
                Some((6, "a comment inside an inline table")),
            ),
            ("s = \"\\e[\"\n", Some((5, "the \\e escape"))),
            ("s = \"a\\x61\"\n", Some((6, "a \\xHH escape"))),
            ("s = \"\"\"\n\\x00\"\"\"\n", Some((8, "a \\xHH escape"))),
            ("\"k\\e\" = 1\n", Some((2, "the \\e escape"))),
            ("t = 14:15\n", Some((4, "a time without seconds"))),
            (
                "dt = 2010-02-03 14:15\n",
                Some((16, "a time without seconds")),
            ),
            (
                "dt = 2010-02-03T14:15Z\n",
                Some((16, "a time without seconds")),
            ),
            (
                "dt = 2010-02-03T14:15+01:00\n",
                Some((16, "a time without seconds")),
            ),
            (
                "a = [1, {b = 2,}]\n",
                Some((15, "a trailing comma in an inline table")),
            ),
        ] {
            let got = first_toml_1_1_use(text).map(|u| (u.offset, u.what));
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn toml_1_0_is_left_alone() {
        for text in [
            "t = { a = 1, b = [\n 1,\n 2,\n] }\n",
            "a = [1, 2,]\n",
            "a = [\n  { b = 1 }, # c\n  { c = 2 },\n]\n",
            "s = \"\\\\e \\\\x41 \\u0041 \\t\"\n",
            "s = 'C:\\e\\x'\n",
            "s = '''\\e'''\n",
            "s = \"\"\"a\"\"\"\"\"\nb = \"\\\\\"\n",
            "s = \"\"\"\\\n  \\\\x\"\"\"\n",
            "dt = 2010-02-03T14:15:00+01:00\nt = 14:15:00.5\nd = 2010-02-03\n",
            "dt = 2010-02-03 14:15:00Z\n",
            "[a.\"b:c\"]\n'x{y' = \"#{,}\" # {\n[[t]]\n",
            "k = \"x\" # a comment with \\e and 14:15 and { ,}\n",
            "",
        ] {
            assert_eq!(first_toml_1_1_use(text), None, "{text:?}");
        }
    }
}
