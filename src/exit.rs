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
