//! The building blocks of CRD validation: the error type, the patterns the
//! openshift/api CRDs carry, and the few CEL library functions their rules
//! call (`isURL`, `format.dns1123Subdomain()`), written to behave as the
//! API server evaluates them.
//!
//! The kinds' `validate()` methods (in their own modules) decide which rule
//! applies to which field; this module only answers "does this value pass".

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;
use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};
use serde::Serialize;

use crate::origin::Origin;
use crate::reference::{domain_pattern, DIGEST, DOMAIN_COMPONENT, NAME_COMPONENT, TAG};

/// One field of one object that the API server would reject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// The object, `Kind/name`.
    pub object: Origin,
    /// Where the object was read (`file:line`, or the
    /// cluster), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<Origin>,
    /// The field path as the API server prints it, e.g.
    /// `spec.imageDigestMirrors[2].mirrors[0]`.
    pub field: String,
    /// The offending value; empty for rules on a whole object.
    pub value: String,
    /// What is wrong, phrased to follow the quoted value.
    pub message: String,
}

/// Values longer than this are cut in the `Display` form (keys and
/// certificates run to thousands of characters).
const DISPLAY_VALUE_MAX: usize = 80;

impl FieldError {
    /// The error without its object and file: `field: "value" message`.
    pub fn detail(&self) -> String {
        let mut out = format!("{}: ", self.field);
        if !self.value.is_empty() {
            if self.value.chars().count() > DISPLAY_VALUE_MAX {
                let cut: String = self.value.chars().take(DISPLAY_VALUE_MAX).collect();
                out.push_str(&format!("\"{cut}…\" "));
            } else {
                out.push_str(&format!("{:?} ", self.value));
            }
        }
        out.push_str(&self.message);
        out
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}: {}", self.object, self.detail())
    }
}

impl std::error::Error for FieldError {}

/// Collects the errors of one object.
pub(crate) struct Errors {
    object: Origin,
    pub(crate) list: Vec<FieldError>,
}

impl Errors {
    pub(crate) fn new(object: Origin) -> Self {
        Self {
            object,
            list: Vec::new(),
        }
    }

    pub(crate) fn push(
        &mut self,
        field: impl Into<String>,
        value: &str,
        message: impl Into<String>,
    ) {
        self.list.push(FieldError {
            object: self.object.clone(),
            file: None,
            field: field.into(),
            value: value.to_string(),
            message: message.into(),
        });
    }

    /// `x-kubernetes-list-type: set`: every item is unique.
    pub(crate) fn unique(&mut self, field: &str, items: &[String]) {
        for (i, item) in items.iter().enumerate() {
            if let Some(first) = items[..i].iter().position(|x| x == item) {
                self.push(
                    format!("{field}[{i}]"),
                    item,
                    format!("is a duplicate of {field}[{first}]; the list is a set"),
                );
            }
        }
    }

    /// `maxItems`.
    pub(crate) fn max_items(&mut self, field: &str, len: usize, max: usize) {
        if len > max {
            self.push(
                field,
                "",
                format!("has {len} items, at most {max} are allowed"),
            );
        }
    }

    /// `maxLength` (counted in characters, as OpenAPI does).
    pub(crate) fn max_length(&mut self, field: &str, value: &str, max: usize) -> bool {
        let len = value.chars().count();
        if len > max {
            self.push(
                field,
                value,
                format!("has {len} characters, at most {max} are allowed"),
            );
            return false;
        }
        true
    }

    /// `minLength`.
    pub(crate) fn min_length(&mut self, field: &str, value: &str, min: usize) -> bool {
        let len = value.chars().count();
        if len < min {
            let message = if len == 0 {
                "must not be empty".to_string()
            } else {
                format!("has {len} characters, at least {min} are required")
            };
            self.push(field, value, message);
            return false;
        }
        true
    }

    /// A failed CEL rule: its upstream message, verbatim.
    pub(crate) fn rule(&mut self, field: &str, value: &str, upstream: &str) {
        let message = if value.is_empty() {
            upstream.to_string()
        } else {
            format!("is rejected: {upstream}")
        };
        self.push(field, value, message);
    }

    pub(crate) fn into_vec(self) -> Vec<FieldError> {
        self.list
    }
}

fn compile(pattern: &str) -> Regex {
    // The patterns are constants of this module; a failure is a bug every test catches.
    Regex::new(pattern).expect("CRD validation regex compiles")
}

// The openshift/api patterns are built from the docker/reference grammar:
// a host is `domainComponent`s, a path is `/nameComponent`s.
const HOST_COMPONENT: &str = DOMAIN_COMPONENT;

fn path_components() -> String {
    format!("(?:/{NAME_COMPONENT})*")
}

fn wildcard_pattern() -> String {
    format!(r"^\*(?:\.{HOST_COMPONENT})+$")
}

fn mirror_pattern() -> String {
    format!(
        r"^({HOST_COMPONENT}(?:(?:\.{HOST_COMPONENT})+)?(?::[0-9]+)?){}$",
        path_components()
    )
}

fn source_pattern() -> String {
    format!("{}|{}", wildcard_pattern(), mirror_pattern())
}

/// A pattern compiled to a dense DFA. The two mirror-set patterns are
/// checked on every source and mirror, twice (the CRD's check and the
/// MCO's), hundreds of thousands of times at oc-mirror scale, where the
/// per-call work of `regex`'s lazy DFA was a measurable share of a render;
/// a dense DFA walks the bytes with one table lookup each. The patterns
/// are ASCII classes only, so reading bytes matches what `regex` matches
/// in the string (a unit test compares the two over generated strings).
struct Dense(dense::DFA<Vec<u32>>);

impl Dense {
    fn new(pattern: &str) -> Self {
        let dfa = dense::Builder::new()
            .configure(dense::DFA::config().start_kind(StartKind::Anchored))
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .build(pattern)
            // A constant pattern of this module; a failure is a bug every test catches.
            .expect("CRD validation DFA builds");
        Self(dfa)
    }

    fn is_match(&self, s: &str) -> bool {
        let input = Input::new(s).anchored(Anchored::Yes);
        // A dense DFA without look-around or a size limit cannot give up.
        matches!(self.0.try_search_fwd(&input), Ok(Some(_)))
    }
}

/// The IDMS/ITMS `source` pattern, also the Image registry-list CEL rule:
/// `*.host` or `host[:port][/path]`.
static SOURCE_RE: LazyLock<Dense> = LazyLock::new(|| Dense::new(&source_pattern()));
/// The IDMS/ITMS `mirrors[]` pattern: `host[:port][/path]`, no wildcard.
static MIRROR_RE: LazyLock<Dense> = LazyLock::new(|| Dense::new(&mirror_pattern()));
/// The wildcard alternative alone (ClusterImagePolicy scope rule 2).
static WILDCARD_RE: LazyLock<Regex> = LazyLock::new(|| compile(&wildcard_pattern()));
/// ClusterImagePolicy scope rule 3: a host with at least one dot or
/// `localhost`, optional path, tag and digest.
static SCOPE_RE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"^(((({HOST_COMPONENT})(?:\.{HOST_COMPONENT})+(?::[0-9]+)?)|(localhost(?::[0-9]+)?)){})(?::({TAG}))?(?:@({DIGEST}))?$",
        path_components()
    ))
});
/// signedIdentity rule 1, left side: ends with something that looks like a tag.
static TAG_SUFFIX_RE: LazyLock<Regex> = LazyLock::new(|| compile(&format!(r".*:({TAG})$")));
static LOCALHOST_PORT_RE: LazyLock<Regex> = LazyLock::new(|| compile(r"^(localhost:[0-9]+)$"));
/// signedIdentity rule 2: a repository or prefix without tag or digest.
static IDENTITY_PREFIX_RE: LazyLock<Regex> = LazyLock::new(|| {
    compile(&format!(
        r"^((({HOST_COMPONENT})(?:\.{HOST_COMPONENT})+(?::[0-9]+)?)|(localhost(?::[0-9]+)?)){}$",
        path_components()
    ))
});
/// `^\S+@\S+$` with RE2's ASCII `\s` (`[\t\n\f\r ]`).
static EMAIL_RE: LazyLock<Regex> = LazyLock::new(|| compile(r"^[^\t\n\x0C\r ]+@[^\t\n\x0C\r ]+$"));
static DNS1123_SUBDOMAIN_RE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
static HOST_RE: LazyLock<Regex> = LazyLock::new(|| compile(&format!("^{}$", domain_pattern())));
static PATH_COMPONENT_RE: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!("^{NAME_COMPONENT}$")));

/// Whether `s` matches the IDMS/ITMS `source` pattern (the MCO applies
/// it to every mirror-set source, ICSP included).
pub fn is_valid_source(s: &str) -> bool {
    SOURCE_RE.is_match(s)
}

/// Whether `s` matches the IDMS/ITMS `mirrors[]` pattern.
pub fn is_valid_mirror(s: &str) -> bool {
    MIRROR_RE.is_match(s)
}

/// The three ClusterImagePolicy/ImagePolicy scope rules, in CRD order;
/// returns the upstream messages of those that fail.
pub(crate) fn scope_rule_failures(scope: &str) -> Vec<&'static str> {
    let mut failed = Vec::new();
    // size(self.split('/')[0].split('.')) == 1 ? host-before-port == 'localhost' : true
    let host = scope.split('/').next().unwrap_or_default();
    if !host.contains('.') && host.split(':').next().unwrap_or_default() != "localhost" {
        failed.push(
            "invalid image scope format, scope must contain a fully qualified domain name or 'localhost'",
        );
    }
    if scope.contains('*') && !WILDCARD_RE.is_match(scope) {
        failed.push("invalid image scope with wildcard, a wildcard can only be at the start of the domain and is only supported for subdomain matching, not path matching");
    }
    if !scope.contains('*') && !SCOPE_RE.is_match(scope) {
        failed.push("invalid repository namespace or image specification in the image scope");
    }
    failed
}

/// The two signedIdentity repository/prefix rules; returns the upstream
/// messages of those that fail.
pub(crate) fn identity_prefix_failures(s: &str) -> Vec<&'static str> {
    let mut failed = Vec::new();
    if TAG_SUFFIX_RE.is_match(s) && !LOCALHOST_PORT_RE.is_match(s) {
        failed.push(
            "invalid repository or prefix in the signedIdentity, should not include the tag or digest",
        );
    }
    if !IDENTITY_PREFIX_RE.is_match(s) {
        failed.push("invalid repository or prefix in the signedIdentity. The repository or prefix must starts with 'localhost' or a valid '.' separated domain. If contains registry paths, the path component names must start with at least one letter or number, with following parts able to be separated by one period, one or two underscore and multiple dashes.");
    }
    failed
}

/// `self.matches('^\\S+@\\S+$')`.
pub(crate) fn is_email(s: &str) -> bool {
    EMAIL_RE.is_match(s)
}

/// The CEL `format.dns1123Subdomain()` check (k8s `IsDNS1123Subdomain`).
pub(crate) fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && DNS1123_SUBDOMAIN_RE.is_match(s)
}

/// The Kubernetes CEL `isURL()`: Go's `url.ParseRequestURI` succeeds.
///
/// This follows the parts of `ParseRequestURI` that can fail: control
/// characters, a missing scheme on a relative reference, the authority's
/// port and host characters, and `%` escapes.
pub(crate) fn is_url(s: &str) -> bool {
    if s.is_empty() || s.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    if s == "*" {
        return true;
    }
    if !valid_percent_escapes(s) {
        return false;
    }
    let rest = match split_scheme(s) {
        Some(Ok((_, rest))) => rest,
        Some(Err(())) => return false,
        None => return s.starts_with('/'),
    };
    let rest = rest.split_once('?').map_or(rest, |(r, _)| r);
    let Some(after) = rest.strip_prefix("//") else {
        return true;
    };
    let authority = after.split('/').next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    valid_url_host(host)
}

/// Go `getScheme`: `Some(Ok)` with a scheme, `None` when the string has no
/// scheme, `Some(Err)` for "missing protocol scheme".
fn split_scheme(s: &str) -> Option<Result<(&str, &str), ()>> {
    for (i, c) in s.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Some(Err(())),
            ':' => return Some(Ok((&s[..i], &s[i + 1..]))),
            _ => return None,
        }
    }
    None
}

fn valid_percent_escapes(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    true
}

fn valid_url_host(host: &str) -> bool {
    let (name, port) = if host.starts_with('[') {
        match host.find(']') {
            Some(end) => (&host[..=end], &host[end + 1..]),
            None => return false,
        }
    } else {
        match host.rfind(':') {
            Some(i) => (&host[..i], &host[i..]),
            None => (host, ""),
        }
    };
    let port_ok =
        port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()));
    if !port_ok {
        return false;
    }
    // Go's shouldEscape(encodeHost): these ASCII bytes may appear unescaped in a host.
    name.bytes()
        .all(|b| b >= 0x80 || b.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"%".contains(&b))
}

/// Decodes standard, padded base64 as Go's `base64.StdEncoding` does for
/// `format: byte` (line breaks are ignored). `None` when invalid.
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes: Vec<u8> = s.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (n, chunk) in bytes.chunks(4).enumerate() {
        let last = n + 1 == bytes.len() / 4;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut acc = 0u32;
        for &c in &chunk[..4 - pad] {
            acc = (acc << 6) | value(c)?;
        }
        acc <<= 6 * pad as u32;
        let decoded = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        // Go rejects non-zero bits in the padding only in strict mode; StdEncoding is not strict.
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}

/// Explains why a string fails the source or mirror pattern, naming the
/// part that is wrong.
pub(crate) fn explain_scope_mismatch(s: &str, allow_wildcard: bool) -> String {
    if s.is_empty() {
        return "the value is empty".to_string();
    }
    if s.contains("://") {
        return "a registry location has no URL scheme".to_string();
    }
    if s.starts_with('*') {
        if !allow_wildcard {
            return "a mirror cannot be a wildcard".to_string();
        }
        if s.contains('/') {
            return "a wildcard source cannot have a path".to_string();
        }
        return "a wildcard must be \"*.\" followed by a host name".to_string();
    }
    if s.contains('*') {
        return "\"*\" is only allowed as a leading \"*.\"".to_string();
    }
    if let Some((_, digest)) = s.split_once('@') {
        return format!("a digest (\"@{digest}\") is not allowed");
    }
    let (host, path) = s.split_once('/').map_or((s, ""), |(h, p)| (h, p));
    if !HOST_RE.is_match(host) {
        if let Some((_, port)) = host.rsplit_once(':') {
            if !port.bytes().all(|b| b.is_ascii_digit()) || port.is_empty() {
                return format!("port \"{port}\" of host \"{host}\" is not a number");
            }
        }
        return format!(
            "host \"{host}\" is not a valid host name: labels are letters, digits and '-', separated by '.'"
        );
    }
    if path.is_empty() && s.ends_with('/') {
        return "a trailing \"/\" is not allowed".to_string();
    }
    for component in path.split('/') {
        if component.is_empty() {
            return format!("\"{s}\" has an empty path component");
        }
        if let Some((_, tag)) = component.split_once(':') {
            return format!("a tag (\":{tag}\") is not allowed");
        }
        if component.chars().any(|c| c.is_ascii_uppercase()) {
            return format!("path component \"{component}\" has upper-case letters");
        }
        if !PATH_COMPONENT_RE.is_match(component) {
            return format!(
                "path component \"{component}\" must be lower-case letters and digits separated by '.', '_', '__' or dashes"
            );
        }
    }
    "it does not match the pattern".to_string()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    use super::*;

    /// The dense DFAs of the two mirror-set patterns against `regex` with
    /// the same patterns, over 20,000 generated strings: scopes built from
    /// the grammar's pieces (hosts, ports, paths, wildcards, separators),
    /// mutated by a byte or two, and any strings, non-ASCII included.
    #[test]
    fn dense_dfas_match_as_regex_does() {
        let pieces = prop::sample::select(vec![
            "a",
            "quay",
            "io",
            "-",
            "--",
            ".",
            "..",
            "_",
            "__",
            "/",
            "//",
            ":",
            ":5000",
            "*",
            "*.",
            "A",
            "Z9",
            "0",
            "@sha256:ab",
            ":tag",
            " ",
            "\n",
            "é",
            "\u{0}",
            "x-y",
            "a.b-c",
            "$",
        ]);
        let valid = prop_oneof![
            "[a-zA-Z0-9]{1,8}(\\.[a-z0-9-]{1,6}){0,2}(:[0-9]{1,5})?(/[a-z0-9]{1,6}([._-]{1,2}[a-z0-9]{1,4})?){0,3}",
            "\\*(\\.[a-zA-Z0-9-]{1,6}){1,3}",
        ];
        let built = prop_oneof![
            prop::collection::vec(pieces, 0..12).prop_map(|p| p.concat()),
            valid
        ];
        let mutated = (built.clone(), any::<usize>(), any::<u8>()).prop_map(|(s, at, b)| {
            let mut bytes = s.into_bytes();
            if !bytes.is_empty() {
                let at = at % bytes.len();
                bytes[at] = b;
            }
            String::from_utf8_lossy(&bytes).into_owned()
        });
        let strings = prop_oneof![4 => built, 2 => mutated, 1 => any::<String>()];
        let source = compile(&source_pattern());
        let mirror = compile(&mirror_pattern());
        let mut runner = TestRunner::new(Config {
            cases: 20_000,
            failure_persistence: None,
            ..Config::default()
        });
        let matched = std::cell::Cell::new(0u32);
        runner
            .run(&strings, |s| {
                prop_assert_eq!(
                    SOURCE_RE.is_match(&s),
                    source.is_match(&s),
                    "source {:?}",
                    s
                );
                prop_assert_eq!(
                    MIRROR_RE.is_match(&s),
                    mirror.is_match(&s),
                    "mirror {:?}",
                    s
                );
                matched.set(matched.get() + u32::from(source.is_match(&s)));
                Ok(())
            })
            .unwrap();
        assert!(matched.get() >= 2_000, "only {} matched", matched.get());
    }

    /// Source and mirror patterns: the CRD examples and openshift/api
    /// `images.config.openshift.io/AAA_ungated.yaml` registry entries.
    #[test]
    fn source_and_mirror_patterns() {
        for (input, source, mirror) in [
            ("registry.io", true, true),
            ("registry.io/myrepo", true, true),
            ("*.example.com", true, false),
            ("localhost:5000/repo", true, true),
            ("insecure.registry.io", true, true),
            ("*.insecure.example.com", true, false),
            ("registry", true, true),
            ("Quay.io/x", true, true),
            ("quay.io/X", false, false),
            ("registry.io/myrepo:latest", false, false),
            ("registry.io/myrepo@sha256:abc123", false, false),
            ("", false, false),
            ("test", true, true),
            ("*.example.com/test", false, false),
            ("*", false, false),
            ("foo.*.com", false, false),
            ("https://quay.io/x", false, false),
            ("quay.io/", false, false),
            ("quay.io//x", false, false),
            ("quay.io:443/ns/repo", true, true),
            ("quay.io:port/x", false, false),
            ("-bad.io/x", false, false),
            ("a_b.io/x", false, false),
            ("q.io/a__b/c-d/e.f", true, true),
            ("q.io/a___b", false, false),
            ("<MIRROR_HOST>:<MIRROR_PORT>/x", false, false),
            ("TEMPLATESOURCE", true, true),
        ] {
            assert_eq!(is_valid_source(input), source, "source {input:?}");
            assert_eq!(is_valid_mirror(input), mirror, "mirror {input:?}");
        }
    }

    #[test]
    fn explain_scope_mismatch_names_the_part() {
        for (input, wildcard, want) in [
            ("", true, "empty"),
            ("https://quay.io/x", true, "URL scheme"),
            ("*.example.com", false, "cannot be a wildcard"),
            ("*.example.com/x", true, "cannot have a path"),
            ("*example.com", true, "followed by a host name"),
            ("foo.*.com", true, "leading \"*.\""),
            ("q.io/x@sha256:abc", true, "digest (\"@sha256:abc\")"),
            ("q.io:port/x", true, "port \"port\""),
            (
                "<MIRROR_HOST>:<MIRROR_PORT>/x",
                true,
                "port \"<MIRROR_PORT>\"",
            ),
            ("a_b.io/x", true, "host \"a_b.io\""),
            ("q.io/", true, "trailing \"/\""),
            ("q.io//x", true, "empty path component"),
            ("q.io/x:latest", true, "tag (\":latest\")"),
            ("q.io/X", true, "\"X\" has upper-case"),
            ("q.io/a___b", true, "\"a___b\" must be lower-case"),
        ] {
            let got = explain_scope_mismatch(input, wildcard);
            assert!(got.contains(want), "{input:?}: {got}");
        }
    }

    /// Scope cases from openshift/api
    /// `clusterimagepolicies.config.openshift.io/SigstoreImageVerification.yaml`.
    #[test]
    fn scope_rules() {
        let digest = "sha256:b7e686e30346e9ace664fa09c0275262f8b9a443ed56d22165a0e201f6488c13";
        for (input, want) in [
            ("example.com".to_string(), vec![]),
            ("localhost:1234/namespace/namespace".to_string(), vec![]),
            ("localhost/foo/bar".to_string(), vec![]),
            ("example.com/foo/bar".to_string(), vec![]),
            ("example.com/foo/bar:latest".to_string(), vec![]),
            (format!("example.com/namespace/namespace@{digest}"), vec![]),
            ("*.example.com".to_string(), vec![]),
            (
                "busybox".to_string(),
                vec![
                    "fully qualified domain name",
                    "invalid repository namespace or image specification",
                ],
            ),
            (
                "*.example.com/test".to_string(),
                vec!["a wildcard can only be at the start"],
            ),
            (
                "example.com/namespace/namespace@sha256:12dsdf".to_string(),
                vec!["invalid repository namespace or image specification"],
            ),
            ("localhost:5000".to_string(), vec![]),
        ] {
            let got = scope_rule_failures(&input);
            assert_eq!(got.len(), want.len(), "{input}: {got:?}");
            for (g, w) in got.iter().zip(&want) {
                assert!(g.contains(w), "{input}: {g}");
            }
        }
    }

    /// signedIdentity cases from the same upstream test file.
    #[test]
    fn identity_prefix_rules() {
        let digest = "sha256:b7e686e30346e9ace664fa09c0275262f8b9a443ed56d22165a0e201f6488c13";
        for (input, failures) in [
            ("example.com".to_string(), 0),
            ("mirror.com".to_string(), 0),
            ("example.com/namespace".to_string(), 0),
            ("localhost:5000".to_string(), 0),
            ("example.com/namespace/namespace:latest".to_string(), 2),
            ("localhost:1234/namespace/namespace:latest".to_string(), 2),
            (format!("localhost:1234/namespace/namespace@{digest}"), 2),
            ("example.com/namespace:latest".to_string(), 2),
            ("busybox".to_string(), 1),
        ] {
            assert_eq!(identity_prefix_failures(&input).len(), failures, "{input}");
        }
    }

    #[test]
    fn cel_library_functions() {
        for (input, want) in [
            ("https://oidc.localhost", true),
            ("https://expected.OIDC.issuer/", true),
            ("https://token.actions.githubusercontent.com", true),
            ("/just/a/path", true),
            ("mailto:someone", true),
            ("oidc.localhost", false),
            ("", false),
            ("://x", false),
            ("https://ho st/", false),
            ("https://host:port/", false),
            ("https://host/%zz", false),
            ("https://host\n/", false),
        ] {
            assert_eq!(is_url(input), want, "isURL({input:?})");
        }
        for (input, want) in [
            ("test-user@example.com", true),
            ("invalid-email", false),
            ("a b@c", false),
            ("@c", false),
        ] {
            assert_eq!(is_email(input), want, "email {input:?}");
        }
        for (input, want) in [
            ("example.com", true),
            ("invaild-.com", false),
            ("Example.com", false),
            ("a", true),
        ] {
            assert_eq!(is_dns1123_subdomain(input), want, "dns1123 {input:?}");
        }
    }

    #[test]
    fn base64_like_go_std_encoding() {
        for (input, want) in [
            ("Zm9vIGJhcg==", Some("foo bar")),
            ("Zm9v", Some("foo")),
            ("Zm9vYg==", Some("foob")),
            ("Zm9vYmE=", Some("fooba")),
            ("Zm9v\nYmE=", Some("fooba")),
            ("", Some("")),
            ("Zm9vYmE", None),
            ("Zm9v YmE=", None),
            ("Zg==Zm9v", None),
            ("Z===", None),
            ("Zm9v-_==", None),
        ] {
            let got = decode_base64(input).map(|b| String::from_utf8(b).unwrap());
            assert_eq!(got.as_deref(), want, "{input:?}");
        }
    }

    #[test]
    fn field_error_display() {
        let e = FieldError {
            object: Origin::object("ImageDigestMirrorSet", "foo"),
            file: None,
            field: "spec.imageDigestMirrors[2].mirrors[0]".into(),
            value: "quay.io/X".into(),
            message: "does not match the mirror pattern".into(),
        };
        assert_eq!(
            e.to_string(),
            r#"ImageDigestMirrorSet/foo: spec.imageDigestMirrors[2].mirrors[0]: "quay.io/X" does not match the mirror pattern"#
        );
        let long = FieldError {
            value: "x".repeat(200),
            ..e.clone()
        };
        assert!(long
            .to_string()
            .contains(&format!("\"{}…\"", "x".repeat(80))));
        let object_rule = FieldError {
            value: String::new(),
            field: "spec.registrySources".into(),
            message: "Only one of blockedRegistries or allowedRegistries may be set".into(),
            ..e
        };
        assert_eq!(
            object_rule.to_string(),
            "ImageDigestMirrorSet/foo: spec.registrySources: Only one of blockedRegistries or allowedRegistries may be set"
        );
        let located = FieldError {
            file: Some(Origin::from("idms.yaml:9")),
            ..object_rule
        };
        assert_eq!(
            located.to_string(),
            "idms.yaml:9: ImageDigestMirrorSet/foo: spec.registrySources: Only one of blockedRegistries or allowedRegistries may be set"
        );
    }
}
