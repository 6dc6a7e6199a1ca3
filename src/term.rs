//! The terminal: whether to colour, and writing data to stdout.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::cli::ColorChoice;

/// Decides colour from `--color`, `NO_COLOR` and whether stdout is a terminal,
/// and sets it for everything that renders.
pub fn init_color(choice: ColorChoice) {
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    };
    colored::control::set_override(on);
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

/// Writes bytes that are already complete to stdout, without a copy.
pub fn print_bytes(bytes: &[u8]) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}

static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Turns on `-v` messages.
pub fn set_verbose(on: bool) {
    VERBOSE.store(on, Ordering::Relaxed);
}

/// Prints a `-v` message to stderr.
pub fn verbose(message: impl FnOnce() -> String) {
    if VERBOSE.load(Ordering::Relaxed) {
        eprintln!("{}", message());
    }
}
