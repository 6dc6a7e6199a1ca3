//! Version ranges as OLM reads a bundle's `olm.skipRange` and an
//! `olm.package.required` `versionRange`: the grammar of blang/semver v4's
//! `ParseRange` (space-separated comparisons ANDed, `||` between ORed
//! groups, `x` wildcards), over semantic versions compared by precedence
//! (build metadata ignored, as blang's `Compare` ignores it).
//!
//! blang's quirks are kept, because a range OLM cannot parse is a bundle
//! with no skipRange at all: a space after an operator joins the version
//! (`>= 1.2.3`), `!` is `!=`, and any part containing an `x` is expanded as
//! a wildcard (`1.2.3-x` therefore fails, as it does in blang).
//! See <https://github.com/blang/semver/blob/master/v4/range.go>.

use std::cmp::Ordering;

use semver::Version;

/// A comparison operator of a range part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn parse(s: &str) -> Option<Op> {
        match s {
            "" | "=" | "==" => Some(Op::Eq),
            "!" | "!=" => Some(Op::Ne),
            ">" => Some(Op::Gt),
            ">=" => Some(Op::Ge),
            "<" => Some(Op::Lt),
            "<=" => Some(Op::Le),
            _ => None,
        }
    }

    fn holds(self, order: Ordering) -> bool {
        match self {
            Op::Eq => order == Ordering::Equal,
            Op::Ne => order != Ordering::Equal,
            Op::Gt => order == Ordering::Greater,
            Op::Ge => order != Ordering::Less,
            Op::Lt => order == Ordering::Less,
            Op::Le => order != Ordering::Greater,
        }
    }
}

/// A parsed range: OR of ANDs of comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Range {
    any: Vec<Vec<(Op, Version)>>,
}

/// Why a range could not be parsed, in blang's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RangeError(String);

impl Range {
    /// Parses `s` as blang/semver v4's `ParseRange` does.
    pub fn parse(s: &str) -> Result<Range, RangeError> {
        let parts = split_and_trim(s);
        let groups = split_or_parts(&parts)?;
        let mut any = Vec::with_capacity(groups.len());
        for group in expand_wildcards(groups)? {
            let mut all = Vec::with_capacity(group.len());
            for part in group {
                let (op, version) = split_comparator_version(&part)?;
                all.push(
                    build(op, version).map_err(|e| {
                        RangeError(format!("Could not parse Range {part:?}: {}", e.0))
                    })?,
                );
            }
            any.push(all);
        }
        Ok(Range { any })
    }

    /// Whether `v` is in the range.
    pub fn contains(&self, v: &Version) -> bool {
        self.any
            .iter()
            .any(|all| all.iter().all(|(op, bound)| op.holds(precedence(v, bound))))
    }
}

/// blang's `Compare`: major, minor, patch, then pre-release; build metadata ignored.
pub fn precedence(a: &Version, b: &Version) -> Ordering {
    (a.major, a.minor, a.patch)
        .cmp(&(b.major, b.minor, b.patch))
        .then_with(|| a.pre.cmp(&b.pre))
}

fn build(op: &str, version: &str) -> Result<(Op, Version), RangeError> {
    let joined = format!("{op}{version}");
    let op = Op::parse(op)
        .ok_or_else(|| RangeError(format!("Could not parse comparator {op:?} in {joined:?}")))?;
    let v = Version::parse(version).map_err(|e| {
        RangeError(format!(
            "Could not parse version {version:?} in {joined:?}: {e}"
        ))
    })?;
    Ok((op, v))
}

/// Splits on spaces, except a space after `>`, `<` or `=`, and removes the spaces left.
fn split_and_trim(s: &str) -> Vec<String> {
    let bytes = s.as_bytes();
    let mut result = Vec::new();
    let mut last = 0usize;
    let mut last_char = 0u8;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if last + 1 < i {
                result.push(&s[last..i]);
            }
            last = i + 1;
        } else if b != b' ' {
            last_char = b;
        }
    }
    if last + 1 < s.len() {
        result.push(&s[last..]);
    }
    result.into_iter().map(|p| p.replace(' ', "")).collect()
}

fn split_or_parts(parts: &[String]) -> Result<Vec<Vec<String>>, RangeError> {
    let mut groups = Vec::new();
    let mut last = 0;
    for (i, p) in parts.iter().enumerate() {
        if p == "||" {
            if i == 0 {
                return Err(RangeError("First element in range is '||'".into()));
            }
            groups.push(parts[last..i].to_vec());
            last = i + 1;
        }
    }
    if last == parts.len() {
        return Err(RangeError("Last element in range is '||'".into()));
    }
    groups.push(parts[last..].to_vec());
    Ok(groups)
}

fn split_comparator_version(s: &str) -> Result<(&str, &str), RangeError> {
    let i = s
        .find(|c: char| c.is_ascii_digit())
        .ok_or_else(|| RangeError(format!("Could not get version from string: {s:?}")))?;
    Ok((s[..i].trim(), &s[i..]))
}

/// How many components a wildcard version has (`1.x`: 2, `1.2.x`: 3), 0 when it is none.
fn wildcard_type(v: &str) -> usize {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.last() == Some(&"x") && parts.len() <= 3 {
        parts.len()
    } else {
        0
    }
}

fn version_from_wildcard(v: &str) -> String {
    let flat = v.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    if flat.split('.').count() == 2 {
        format!("{flat}.0")
    } else {
        flat
    }
}

/// Adds one to component `at` of a dotted version; empty when it is not a number.
fn increment(v: &str, at: usize) -> String {
    let mut parts: Vec<String> = v.split('.').map(str::to_string).collect();
    match parts.get(at).and_then(|p| p.parse::<i64>().ok()) {
        Some(n) => {
            parts[at] = (n + 1).to_string();
            parts.join(".")
        }
        None => String::new(),
    }
}

fn expand_wildcards(groups: Vec<Vec<String>>) -> Result<Vec<Vec<String>>, RangeError> {
    let mut expanded = Vec::with_capacity(groups.len());
    for group in groups {
        let mut parts = Vec::with_capacity(group.len());
        for part in group {
            if !part.contains('x') {
                parts.push(part);
                continue;
            }
            let (op, v) = split_comparator_version(&part)?;
            let kind = wildcard_type(v);
            let flat = version_from_wildcard(v);
            let (op, bump) = match op {
                ">" => (">=", true),
                ">=" => (">=", false),
                "<" => ("<", false),
                "<=" => ("<", true),
                "" | "=" | "==" => {
                    parts.push(format!(">={flat}"));
                    ("<", true)
                }
                "!=" | "!" => {
                    parts.push(format!("<{flat}"));
                    (">=", true)
                }
                // blang drops an operator it does not know here: `>>1.x` is `1.0.0`.
                _ => ("", false),
            };
            let version = match (bump, kind) {
                (false, _) => flat,
                (true, 3) => increment(&flat, 1),
                (true, 2) => increment(&flat, 0),
                (true, _) => String::new(),
            };
            parts.push(format!("{op}{version}"));
        }
        expanded.push(parts);
    }
    Ok(expanded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    /// blang/semver v4 range_test.go `TestParseRange`: every row that
    /// parses, with its versions. (`!1.2.3` is listed there among the
    /// errors too, but parses: it is `!=`.)
    #[test]
    fn blang_test_parse_range() {
        let rows: &[(&str, &[(&str, bool)])] = &[
            (
                ">1.2.3",
                &[("1.2.2", false), ("1.2.3", false), ("1.2.4", true)],
            ),
            (
                ">=1.2.3",
                &[("1.2.3", true), ("1.2.4", true), ("1.2.2", false)],
            ),
            (
                "<1.2.3",
                &[("1.2.2", true), ("1.2.3", false), ("1.2.4", false)],
            ),
            (
                "<=1.2.3",
                &[("1.2.2", true), ("1.2.3", true), ("1.2.4", false)],
            ),
            (
                "1.2.3",
                &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
            ),
            (
                "=1.2.3",
                &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
            ),
            (
                "==1.2.3",
                &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
            ),
            (
                "!=1.2.3",
                &[("1.2.2", true), ("1.2.3", false), ("1.2.4", true)],
            ),
            (
                "!1.2.3",
                &[("1.2.2", true), ("1.2.3", false), ("1.2.4", true)],
            ),
            (
                ">1.2.2 <1.2.4",
                &[("1.2.2", false), ("1.2.3", true), ("1.2.4", false)],
            ),
            (
                "<1.2.2 <1.2.4",
                &[
                    ("1.2.1", true),
                    ("1.2.2", false),
                    ("1.2.3", false),
                    ("1.2.4", false),
                ],
            ),
            (
                ">1.2.2 <1.2.5 !=1.2.4",
                &[
                    ("1.2.2", false),
                    ("1.2.3", true),
                    ("1.2.4", false),
                    ("1.2.5", false),
                ],
            ),
            (
                ">1.2.2 <1.2.5 !1.2.4",
                &[
                    ("1.2.2", false),
                    ("1.2.3", true),
                    ("1.2.4", false),
                    ("1.2.5", false),
                ],
            ),
            (
                ">1.2.2 || <1.2.4",
                &[("1.2.2", true), ("1.2.3", true), ("1.2.4", true)],
            ),
            (
                "<1.2.2 || >1.2.4",
                &[("1.2.2", false), ("1.2.3", false), ("1.2.4", false)],
            ),
            (
                ">1.x",
                &[
                    ("0.1.9", false),
                    ("1.2.6", false),
                    ("1.9.0", false),
                    ("2.0.0", true),
                ],
            ),
            (
                ">1.2.x",
                &[("1.1.9", false), ("1.2.6", false), ("1.3.0", true)],
            ),
            (
                ">1.2.2 <1.2.4 || >=2.0.0",
                &[
                    ("1.2.2", false),
                    ("1.2.3", true),
                    ("1.2.4", false),
                    ("2.0.0", true),
                    ("2.0.1", true),
                ],
            ),
            (
                "1.x || >=2.0.x <2.2.x",
                &[
                    ("0.9.2", false),
                    ("1.2.2", true),
                    ("2.0.0", true),
                    ("2.1.8", true),
                    ("2.2.0", false),
                ],
            ),
            (
                ">1.2.2 <1.2.4 || >=2.0.0 <3.0.0",
                &[
                    ("1.2.2", false),
                    ("1.2.3", true),
                    ("1.2.4", false),
                    ("2.0.0", true),
                    ("2.0.1", true),
                    ("2.9.9", true),
                    ("3.0.0", false),
                ],
            ),
        ];
        for (range, cases) in rows {
            let r = Range::parse(range).unwrap_or_else(|e| panic!("{range}: {e}"));
            for (version, want) in *cases {
                assert_eq!(r.contains(&v(version)), *want, "{range} contains {version}");
            }
        }
    }

    /// blang `TestParseRange`'s error rows (those that fail there) and
    /// `TestMustParseRange_panic`.
    #[test]
    fn blang_test_parse_range_errors() {
        for range in [
            ">>1.2.3",
            "1.0",
            "string",
            "",
            "fo.ob.ar.x",
            "invalid version",
            "1.2.3 ||",
            "|| 1.2.3",
        ] {
            assert!(Range::parse(range).is_err(), "{range:?}");
        }
    }

    /// blang `TestSplitAndTrim`.
    #[test]
    fn blang_test_split_and_trim() {
        for (input, want) in [
            ("1.2.3 1.2.3", vec!["1.2.3", "1.2.3"]),
            ("     1.2.3     1.2.3     ", vec!["1.2.3", "1.2.3"]),
            ("  >=   1.2.3   <=  1.2.3   ", vec![">=1.2.3", "<=1.2.3"]),
            (
                "1.2.3 || >=1.2.3 <1.2.3",
                vec!["1.2.3", "||", ">=1.2.3", "<1.2.3"],
            ),
            (
                "      1.2.3      ||     >=1.2.3     <1.2.3    ",
                vec!["1.2.3", "||", ">=1.2.3", "<1.2.3"],
            ),
        ] {
            assert_eq!(split_and_trim(input), want, "{input:?}");
        }
    }

    /// blang `TestParseComparator` and `TestBuildVersionRange`.
    #[test]
    fn blang_test_parse_comparator() {
        for (op, want) in [
            (">", Some(Op::Gt)),
            (">=", Some(Op::Ge)),
            ("<", Some(Op::Lt)),
            ("<=", Some(Op::Le)),
            ("", Some(Op::Eq)),
            ("=", Some(Op::Eq)),
            ("==", Some(Op::Eq)),
            ("!=", Some(Op::Ne)),
            ("!", Some(Op::Ne)),
            ("-", None),
            ("<==", None),
            ("<<", None),
            (">>", None),
        ] {
            assert_eq!(Op::parse(op), want, "{op:?}");
        }
        assert!(build("=", "invalid").is_err());
    }

    /// blang `TestSplitComparatorVersion`, `TestGetWildcardType`,
    /// `TestCreateVersionFromWildcard`, `TestIncrementMajorVersion`,
    /// `TestIncrementMinorVersion`.
    #[test]
    fn blang_test_wildcard_helpers() {
        assert_eq!(
            split_comparator_version(">=1.2.3").unwrap(),
            (">=", "1.2.3")
        );
        assert_eq!(split_comparator_version("1.2.3").unwrap(), ("", "1.2.3"));
        assert_eq!(split_comparator_version("!1.2.3").unwrap(), ("!", "1.2.3"));
        assert!(split_comparator_version("error").is_err());
        assert_eq!(wildcard_type("x"), 1);
        assert_eq!(wildcard_type("1.x"), 2);
        assert_eq!(wildcard_type("1.2.x"), 3);
        assert_eq!(wildcard_type("fo.o.b.ar"), 0);
        assert_eq!(version_from_wildcard("1.2.x"), "1.2.0");
        assert_eq!(version_from_wildcard("1.x"), "1.0.0");
        assert_eq!(increment("1.2.3", 0), "2.2.3");
        assert_eq!(increment("1.2", 0), "2.2");
        assert_eq!(increment("foo.bar", 0), "");
        assert_eq!(increment("1.2.3", 1), "1.3.3");
        assert_eq!(increment("1.2", 1), "1.3");
        assert_eq!(increment("foo.bar", 1), "");
    }

    /// blang `TestExpandWildcardVersion`.
    #[test]
    fn blang_test_expand_wildcard_version() {
        let g = |parts: &[&str]| vec![parts.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        assert!(expand_wildcards(g(&["foox"])).is_err());
        assert_eq!(
            Range::parse(">>1.x").unwrap(),
            Range::parse("1.0.0").unwrap()
        );
        for (input, want) in [
            (">=1.2.x", vec![">=1.2.0"]),
            ("<=1.2.x", vec!["<1.3.0"]),
            (">1.2.x", vec![">=1.3.0"]),
            ("<1.2.x", vec!["<1.2.0"]),
            ("!=1.2.x", vec!["<1.2.0", ">=1.3.0"]),
            (">=1.x", vec![">=1.0.0"]),
            ("<=1.x", vec!["<2.0.0"]),
            (">1.x", vec![">=2.0.0"]),
            ("<1.x", vec!["<1.0.0"]),
            ("!=1.x", vec!["<1.0.0", ">=2.0.0"]),
            ("1.2.x", vec![">=1.2.0", "<1.3.0"]),
            ("1.x", vec![">=1.0.0", "<2.0.0"]),
        ] {
            assert_eq!(expand_wildcards(g(&[input])).unwrap(), g(&want), "{input}");
        }
    }

    /// Build metadata does not order versions (blang `Compare`), and a
    /// pre-release sorts before its release.
    #[test]
    fn precedence_ignores_build_metadata() {
        let r = Range::parse(">=1.2.3 <1.2.4").unwrap();
        assert!(r.contains(&v("1.2.3+build.7")));
        assert!(!r.contains(&v("1.2.3-rc.1")));
        assert!(r.contains(&v("1.2.4-rc.1")));
    }
}
