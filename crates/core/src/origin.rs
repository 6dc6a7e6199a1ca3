//! Where a fact came from: a file and line, or a cluster object.
//!
//! Every rule the engine reports carries the origins that caused it, so
//! `explain` can name `ImageDigestMirrorSet/foo` or `registries.conf:12`.

use std::fmt;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// A label for the origin of a fact: `path:line`, or `Kind/name`.
///
/// Shared, not copied: one object's label is attached to every source,
/// mirror and entry it causes (hundreds of thousands at oc-mirror scale),
/// so a clone is a reference count, not an allocation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin(Arc<str>);

impl Serialize for Origin {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl From<String> for Origin {
    fn from(label: String) -> Self {
        Self(label.into())
    }
}

impl From<&str> for Origin {
    fn from(label: &str) -> Self {
        Self(label.into())
    }
}

impl Origin {
    /// An origin inside a file, at a 1-based line.
    pub fn file_line(file: &str, line: usize) -> Self {
        // Built by hand: this runs once per entry of files with 100,000s of
        // entries, where `format!` is a measurable share of the load.
        let mut digits = [0u8; 20];
        let mut n = line;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let digits = std::str::from_utf8(&digits[i..]).unwrap_or_default();
        // One allocation, the `Arc<str>` itself, for a name of usual length.
        let mut label = [0u8; 256];
        let len = file.len() + 1 + digits.len();
        if let Some(out) = label.get_mut(..len) {
            out[..file.len()].copy_from_slice(file.as_bytes());
            out[file.len()] = b':';
            out[file.len() + 1..].copy_from_slice(digits.as_bytes());
            if let Ok(label) = std::str::from_utf8(out) {
                return Self(label.into());
            }
        }
        Self(format!("{file}:{digits}").into())
    }

    /// An origin that is a whole file.
    pub fn file(file: &str) -> Self {
        Self(file.into())
    }

    /// An origin that is a cluster object, `Kind/name` (`Kind (no name)`
    /// for an object without one).
    pub fn object(kind: &str, name: &str) -> Self {
        if name.is_empty() {
            return Self(format!("{kind} (no name)").into());
        }
        Self(format!("{kind}/{name}").into())
    }

    /// Appends `origin` to `list` unless it is already there (origins keep
    /// first-seen order and never repeat).
    pub fn push_unique(list: &mut Vec<Origin>, origin: &Origin) {
        if !list.contains(origin) {
            list.push(origin.clone());
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_line_labels() {
        for (line, want) in [(0, "f:0"), (7, "f:7"), (10, "f:10"), (123456, "f:123456")] {
            assert_eq!(Origin::file_line("f", line).as_str(), want);
        }
        for name in ["", "/etc/containers/registries.conf", "é/ü.conf"] {
            assert_eq!(Origin::file_line(name, 42).as_str(), format!("{name}:42"));
        }
        let long = "d/".repeat(300) + "x.conf";
        assert_eq!(
            Origin::file_line(&long, usize::MAX).as_str(),
            format!("{long}:{}", usize::MAX)
        );
    }
}
