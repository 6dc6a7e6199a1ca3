//! Where a fact came from: a file and line, or a cluster object.
//!
//! Every rule the engine reports carries the origins that caused it, so
//! `explain` can name `ImageDigestMirrorSet/foo` or `registries.conf:12`.

use std::fmt;

use serde::Serialize;

/// A label for the origin of a fact: `path:line`, or `Kind/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Origin(pub String);

impl Origin {
    /// An origin inside a file, at a 1-based line.
    pub fn file_line(file: &str, line: usize) -> Self {
        Self(format!("{file}:{line}"))
    }

    /// An origin that is a whole file.
    pub fn file(file: &str) -> Self {
        Self(file.to_string())
    }

    /// An origin that is a cluster object, `Kind/name`.
    pub fn object(kind: &str, name: &str) -> Self {
        Self(format!("{kind}/{name}"))
    }

    /// The label as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
