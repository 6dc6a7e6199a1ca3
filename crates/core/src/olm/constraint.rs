//! Version constraints as OLM v1 reads a ClusterExtension's
//! `spec.source.catalog.version`: the grammar of Masterminds/semver v3's
//! `NewConstraint` (operator-controller's `compare.NewVersionRange`), not
//! blang's (which [`crate::olm::range`] reads for `skipRange`).
//!
//! `||` between ORed groups; inside a group, comparisons ANDed, separated by
//! spaces or commas; a hyphen range `1.2 - 1.4.5` is `>= 1.2, <= 1.4.5`.
//! Operators `=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`, `~>`, `^`
//! and none (equal); a version may be partial (`1.2`) or hold wildcards
//! (`1.2.x`, `1.*`, `*`), which widen it to a range as Masterminds does
//! (`=1.2` is `1.2.x`, `>1.2` is `>=1.3.0`, `<=1.2` is `<1.3.0`). A version
//! with a pre-release matches only a comparison whose version has one too.
//! See <https://github.com/Masterminds/semver/blob/master/constraints.go>.

use std::cmp::Ordering;

use semver::Version;

use super::range::precedence;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "" | "=" => Op::Equal,
            "!=" => Op::NotEqual,
            ">" => Op::Greater,
            "<" => Op::Less,
            ">=" | "=>" => Op::GreaterEqual,
            "<=" | "=<" => Op::LessEqual,
            "~" | "~>" => Op::Tilde,
            "^" => Op::Caret,
            _ => return None,
        })
    }
}

/// One comparison: the version with its wildcards filled with zeros, and
/// which parts were wildcards or missing.
#[derive(Debug, Clone, PartialEq)]
struct Comparison {
    op: Op,
    version: Version,
    /// The major part was a wildcard (`*`, `x`): every version.
    major_dirty: bool,
    /// The minor (and so the patch) part was a wildcard or missing.
    minor_dirty: bool,
    /// The patch part was a wildcard or missing.
    patch_dirty: bool,
}

impl Comparison {
    fn dirty(&self) -> bool {
        self.major_dirty || self.minor_dirty || self.patch_dirty
    }

    fn holds(&self, v: &Version) -> bool {
        // Masterminds: a pre-release matches only a comparison naming one.
        if !v.pre.is_empty() && self.version.pre.is_empty() {
            return false;
        }
        let c = &self.version;
        let order = precedence(v, c);
        match self.op {
            Op::Equal if self.dirty() => self.tilde(v),
            Op::Equal => order == Ordering::Equal,
            Op::NotEqual if self.dirty() => !self.tilde(v),
            Op::NotEqual => order != Ordering::Equal,
            Op::Greater if self.major_dirty => false,
            Op::Greater if self.minor_dirty => v.major > c.major,
            Op::Greater if self.patch_dirty => {
                v.major > c.major || (v.major == c.major && v.minor > c.minor)
            }
            Op::Greater => order == Ordering::Greater,
            Op::Less => order == Ordering::Less,
            Op::GreaterEqual => order != Ordering::Less,
            Op::LessEqual if self.major_dirty => true,
            Op::LessEqual if self.minor_dirty => v.major <= c.major,
            Op::LessEqual if self.patch_dirty => {
                v.major < c.major || (v.major == c.major && v.minor <= c.minor)
            }
            Op::LessEqual => order != Ordering::Greater,
            Op::Tilde => self.tilde(v),
            Op::Caret => self.caret(v, order),
        }
    }

    /// `~1.2.3` is `>=1.2.3 <1.3.0`, `~1` is `>=1 <2`, `~0` every version.
    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if precedence(v, c) == Ordering::Less {
            return false;
        }
        // `*`, and Masterminds' special `~0.0.0`: every version.
        let zero = c.major == 0 && c.minor == 0 && c.patch == 0;
        if self.major_dirty || (zero && !self.minor_dirty && !self.patch_dirty) {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        self.minor_dirty || v.minor == c.minor
    }

    /// `^1.2.3` is `>=1.2.3 <2.0.0`, `^0.2.3` is `>=0.2.3 <0.3.0`, `^0.0.3` is `>=0.0.3 <0.0.4`.
    fn caret(&self, v: &Version, order: Ordering) -> bool {
        let c = &self.version;
        if order == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.major == 0 && v.minor == c.minor;
        }
        v.major == 0 && v.minor == 0 && v.patch == c.patch
    }
}

/// A parsed constraint: OR of ANDs of comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    any: Vec<Vec<Comparison>>,
}

/// Why a constraint could not be parsed, in Masterminds' words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConstraintError(String);

impl Constraint {
    /// Parses a constraint as Masterminds/semver v3's `NewConstraint`.
    pub fn parse(s: &str) -> Result<Constraint, ConstraintError> {
        let mut any = Vec::new();
        for group in s.split("||") {
            let rewritten = rewrite_hyphen_ranges(group);
            let tokens = tokens(&rewritten)
                .ok_or_else(|| ConstraintError(format!("improper constraint: {group}")))?;
            let mut all = Vec::new();
            for (op, version) in tokens {
                all.push(comparison(op, version)?);
            }
            if all.is_empty() {
                // An empty group is Masterminds' `*`.
                all.push(comparison("", "*")?);
            }
            any.push(all);
        }
        Ok(Constraint { any })
    }

    /// Whether `v` satisfies the constraint.
    pub fn contains(&self, v: &Version) -> bool {
        self.any.iter().any(|all| all.iter().all(|c| c.holds(v)))
    }
}

/// `A - B` (spaces around the hyphen) as `>= A, <= B`.
fn rewrite_hyphen_ranges(group: &str) -> String {
    let words: Vec<&str> = group.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if i + 2 < words.len() && words[i + 1] == "-" {
            out.push(format!(">={},", words[i]));
            out.push(format!("<={}", words[i + 2]));
            i += 3;
        } else {
            out.push(words[i].to_string());
            i += 1;
        }
    }
    out.join(" ")
}

/// The `(operator, version)` pairs of a group, separated by spaces or one
/// comma; `None` when the group is not a list of comparisons.
fn tokens(group: &str) -> Option<Vec<(&str, &str)>> {
    let is_op = |c: char| matches!(c, '=' | '!' | '<' | '>' | '~' | '^');
    let is_version = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '*');
    let mut rest = group.trim();
    let mut found = Vec::new();
    while !rest.is_empty() {
        let op_end = rest.find(|c: char| !is_op(c)).unwrap_or(rest.len());
        let op = &rest[..op_end];
        rest = rest[op_end..].trim_start();
        let v_end = rest.find(|c: char| !is_version(c)).unwrap_or(rest.len());
        if v_end == 0 {
            return None;
        }
        found.push((op, &rest[..v_end]));
        rest = rest[v_end..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
            if rest.is_empty() {
                return None;
            }
        }
    }
    Some(found)
}

fn comparison(op: &str, version: &str) -> Result<Comparison, ConstraintError> {
    let op = Op::parse(op)
        .ok_or_else(|| ConstraintError(format!("improper constraint: {op}{version}")))?;
    let invalid = || ConstraintError(format!("invalid semantic version: {version}"));
    let bare = version.strip_prefix('v').unwrap_or(version);
    let (core, suffix) = match bare.find(['-', '+']) {
        Some(i) => bare.split_at(i),
        None => (bare, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(invalid());
    }
    let wild = |p: &str| matches!(p, "x" | "X" | "*");
    let number = |p: Option<&&str>| -> Result<Option<u64>, ConstraintError> {
        match p {
            None => Ok(None),
            Some(p) if wild(p) => Ok(None),
            Some(p) => p.parse().map(Some).map_err(|_| invalid()),
        }
    };
    let (major, minor, patch) = if wild(parts[0]) {
        (None, None, None)
    } else {
        (
            number(parts.first())?,
            number(parts.get(1))?,
            number(parts.get(2))?,
        )
    };
    let major_dirty = major.is_none();
    let minor_dirty = major_dirty || minor.is_none();
    let patch_dirty = minor_dirty || patch.is_none();
    let filled = format!(
        "{}.{}.{}{suffix}",
        major.unwrap_or(0),
        if minor_dirty { 0 } else { minor.unwrap_or(0) },
        if patch_dirty { 0 } else { patch.unwrap_or(0) }
    );
    let version = Version::parse(&filled).map_err(|_| invalid())?;
    Ok(Comparison {
        op,
        version,
        major_dirty,
        minor_dirty,
        patch_dirty,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masterminds/semver v3 `constraints_test.go` (`TestConstraintCheck`,
    /// `TestParseConstraint` shapes), and operator-controller's
    /// `compare_test.go` `TestNewVersionRange`.
    #[test]
    fn masterminds_constraint_check() {
        let rows: &[(&str, &str, bool)] = &[
            ("=2.0.0", "1.2.3", false),
            ("=2.0.0", "2.0.0", true),
            ("4.1", "4.1.0", true),
            ("4.1.x", "4.1.3", true),
            ("1.x", "1.4.0", true),
            ("!=4.1", "4.1.0", false),
            ("!=4.1", "5.1.0", true),
            ("!=4.x", "5.1.0", true),
            ("!=4.x", "4.1.0", false),
            ("!=4.1.x", "4.2.0", true),
            ("!=4.2.x", "4.2.3", false),
            (">1.1", "4.1.0", true),
            (">1.1", "1.1.0", false),
            (">1.1", "1.1.5", false),
            (">1.1", "1.2.0", true),
            ("<1.1", "1.1.0", false),
            ("<1.1", "1.0.9", true),
            ("<1.1", "1.1.1", false),
            (">=1.1", "4.1.0", true),
            (">=1.1", "1.1.0", true),
            (">=1.1", "0.0.9", false),
            ("<=1.1", "1.1.0", true),
            ("<=1.1", "1.1.1", true),
            ("<=1.1", "1.2.0", false),
            ("<=1.1.x", "1.1.9", true),
            ("~1.2.3", "1.2.4", true),
            ("~1.2.3", "1.3.4", false),
            ("~1.2", "1.2.4", true),
            ("~1.2", "1.3.4", false),
            ("~1", "1.2.4", true),
            ("~1", "2.3.4", false),
            ("~0.2.3", "0.2.5", true),
            ("~0.2.3", "0.3.5", false),
            ("~1.2.3-beta.2", "1.2.3-beta.4", true),
            ("~1.2.3-beta.2", "1.3.4-beta.2", false),
            ("^1.2.3", "1.8.9", true),
            ("^1.2.3", "2.8.9", false),
            ("^1.2.3", "1.2.1", false),
            ("^1.1.0", "2.1.0", false),
            ("^1.2.0", "2.2.1", false),
            ("^1.2.0", "1.2.1-alpha.1", false),
            ("^1.2.0-alpha.0", "1.2.1-alpha.1", true),
            ("^1.2", "1.8.9", true),
            ("^1.2", "2.8.9", false),
            ("^1", "1.8.9", true),
            ("^1", "2.8.9", false),
            ("^0.2.3", "0.2.5", true),
            ("^0.2.3", "0.5.6", false),
            ("^0.2", "0.2.5", true),
            ("^0.2", "0.5.6", false),
            ("^0.0.3", "0.0.3", true),
            ("^0.0.3", "0.0.4", false),
            ("^0.0", "0.0.3", true),
            ("^0.0", "0.1.4", false),
            ("^0", "0.2.3", true),
            ("^0", "1.1.4", false),
            ("~0", "0.9.0", true),
            ("~0", "1.0.0", false),
            ("=0", "1.0.0", false),
            ("*", "1.2.3", true),
            ("*", "1.2.3-alpha", false),
            ("1.2 - 1.4.5", "1.3.0", true),
            ("1.2 - 1.4.5", "1.4.6", false),
            (">=1.0.0 <2.0.0", "1.5.0", true),
            (">=1.0.0, <2.0.0", "2.0.0", false),
            ("<1.0.0 >=2.0.0", "0.1.0", false),
            (">1.0.0 || <0.5.0", "0.4.0", true),
            (">= 1.0.0", "1.0.0", true),
            ("v1.2.3", "1.2.3", true),
            ("1.2.3", "1.2.3+build.5", true),
        ];
        for (constraint, version, want) in rows {
            let c = Constraint::parse(constraint).unwrap_or_else(|e| panic!("{constraint}: {e}"));
            let v = Version::parse(version).unwrap();
            assert_eq!(c.contains(&v), *want, "{constraint} on {version}");
        }
    }

    #[test]
    fn improper_constraints_are_refused() {
        for bad in ["foo", ">=1.0.0,", "1.2.3.4", "=>=1.0", ">=a.b"] {
            assert!(Constraint::parse(bad).is_err(), "{bad}");
        }
    }
}
