//! Exit codes and the errors that carry them.
//!
//! The codes are the product's contract: 0 success, 1 differences or
//! findings, 2 usage or input error, 3 cluster error, 4 refused.

use std::fmt;

/// A process exit code of the plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Success = 0,
    Findings = 1,
    Input = 2,
    Cluster = 3,
    Refused = 4,
}

/// An error that decides the exit code and may carry a hint for the user.
#[derive(Debug)]
pub struct Failure {
    pub code: ExitCode,
    pub message: String,
    pub hint: Option<String>,
}

impl Failure {
    /// A usage or input error (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Input,
            message: message.into(),
            hint: None,
        }
    }

    /// A cluster error: unreachable, unauthorized, forbidden, timeout (exit 3).
    pub fn cluster(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Cluster,
            message: message.into(),
            hint: None,
        }
    }

    /// A refusal: a check before a write failed, or it was not confirmed (exit 4).
    pub fn refused(message: impl Into<String>) -> Self {
        Self {
            code: ExitCode::Refused,
            message: message.into(),
            hint: None,
        }
    }

    /// Adds a hint printed after the error.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// An error as the user reads it: its message and each cause that adds
/// something, one a line, then the hint of the outermost [`Failure`], and
/// the exit code it calls for.
#[derive(Debug, Clone)]
pub struct Described {
    /// The message, then the causes.
    pub lines: Vec<String>,
    pub hint: Option<String>,
    pub code: ExitCode,
}

impl Described {
    /// Describes `e` naming commands as the user ran this one (`name`), its
    /// input-borne control characters escaped.
    pub fn of(e: &anyhow::Error, name: &str) -> Self {
        // The outermost `Failure` decides: one added with `anyhow::Context`
        // (`Failure` as the context of a lower error) or one in the chain.
        let failure = e
            .downcast_ref::<Failure>()
            .or_else(|| e.chain().find_map(|c| c.downcast_ref::<Failure>()));
        let safe = |text: &dyn fmt::Display| {
            let text = without_os_error_code(&text.to_string());
            crate::term::escape_controls(&crate::cli::as_said_by(name, &text), false).into_owned()
        };
        let mut lines = vec![safe(e)];
        for cause in e.chain().skip(1) {
            // Many errors end their message with their cause's ("cannot read
            // \"x\": No such file"): that cause is said already.
            let text = safe(cause);
            if lines.last().is_some_and(|said| said.ends_with(&text)) {
                continue;
            }
            lines.push(text);
        }
        Self {
            lines,
            hint: failure.and_then(|f| f.hint.as_deref()).map(|h| safe(&h)),
            code: failure.map_or(ExitCode::Input, |f| f.code),
        }
    }

    /// The message and its causes on one line.
    pub fn one_line(&self) -> String {
        self.lines.join(": ")
    }
}

/// Drops the " (os error 2)" that Rust adds to system errors: the words
/// before it already say what happened.
pub fn without_os_error_code(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(" (os error ") {
        let after = &rest[at + " (os error ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}
