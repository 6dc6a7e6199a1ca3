//! The terminal: whether to colour, and writing data to stdout.

use std::io::{self, IsTerminal, Write};

use crate::output::table::Layout;

/// Sets the colour decision of the settings (`Settings::colour`) in the two
/// crates that style text: `colored` and crossterm read only a process-wide
/// switch, so `main` calls this once; the program itself passes the
/// decision as a value.
pub fn apply_colour(on: bool) {
    colored::control::set_override(on);
    // Table cells are styled by crossterm, which would drop their colour
    // under NO_COLOR even when `--color always` asked for it.
    crossterm::style::force_color_output(on);
}

/// Renders into a buffer, then writes it to stdout in one go: a renderer
/// error leaves nothing half-printed.
pub fn print(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut buf = Vec::new();
    render(&mut buf)?;
    let mut stdout = io::stdout().lock();
    stdout.write_all(&buf)?;
    stdout.flush()
}

/// How a renderer's output reaches the terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Exact bytes: JSON, YAML and file contents, which a program reads back.
    Exact,
    /// Text for a person: control characters that came from the input are
    /// escaped, so a name or source cannot move the cursor, clear the screen
    /// or fake a line (the colour this program adds is kept).
    Text,
}

/// Escapes the characters that a terminal acts on rather than shows: C0
/// controls but newline and tab, DEL, C1 controls, the line and paragraph
/// separators and the bidirectional overrides, as Go's `\x1b` / `\u2028`.
/// With `keep_sgr` (colour on), a colour sequence (`ESC [ digits ; ... m`)
/// is kept whole: the colours this program adds are such sequences, and
/// one that came from the input changes nothing but colour.
pub fn escape_controls(text: &str, keep_sgr: bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(acts_on_terminal) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c == '\u{1b}' && keep_sgr {
            if let Some(len) = sgr_len(rest) {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if acts_on_terminal(c) {
            match c {
                '\r' => out.push_str("\\r"),
                c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
                c => out.push_str(&format!("\\u{:04x}", c as u32)),
            }
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

fn acts_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The length of a Select Graphic Rendition sequence at the start of `s`.
fn sgr_len(s: &str) -> Option<usize> {
    let body = s.strip_prefix("\u{1b}[")?;
    let digits = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (body.as_bytes().get(digits) == Some(&b'm')).then_some(2 + digits + 1)
}

/// How tables are laid out on stdout: fitted to the terminal when stdout is
/// one, else to `COLUMNS` when it is set (as GNU tools do), else whole
/// lines; coloured when `colour` is on.
pub fn layout(colour: bool, no_headers: bool) -> Layout {
    let width = if io::stdout().is_terminal() {
        terminal_size::terminal_size().map(|(w, _)| w.0)
    } else {
        None
    }
    .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse().ok())
    .filter(|w| *w > 0);
    Layout {
        width,
        colour,
        no_headers,
    }
}

/// Prints a warning to stderr, its input-borne control characters escaped.
pub fn warn(message: impl std::fmt::Display) {
    eprintln!("warning: {}", escape_controls(&message.to_string(), false));
}

/// Writes bytes that are already complete to stdout, without a copy.
pub fn print_bytes(bytes: &[u8]) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}
