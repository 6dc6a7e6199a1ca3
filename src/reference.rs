//! Image references exactly as containers/image `docker/reference` parses
//! and normalizes them.
//!
//! containers/image carries a fork of docker/distribution's reference
//! package (older than today's: no IPv6 literal hosts). This module owns the
//! grammar, the `docker.io` / `library/` / `latest` defaults, canonical form,
//! the "short name" rule of `pkg/shortnames`, and error messages that keep
//! the upstream wording but also say which part of the input is wrong.
//! Matching references against registries.conf is left to `registries`.
//!
//! Upstream: <https://github.com/containers/image/tree/main/docker/reference>

use std::fmt;
use std::sync::LazyLock;

use regex::Regex;

/// The longest repository name (domain and path) upstream accepts.
pub const NAME_TOTAL_LENGTH_MAX: usize = 255;
/// The longest tag upstream accepts.
pub const TAG_LENGTH_MAX: usize = 128;
/// The registry Docker Hub references are normalized to.
pub const DEFAULT_DOMAIN: &str = "docker.io";
const LEGACY_DEFAULT_DOMAIN: &str = "index.docker.io";
const OFFICIAL_REPO_PREFIX: &str = "library/";
/// The tag added to a reference that has neither tag nor digest.
pub const DEFAULT_TAG: &str = "latest";

// The docker/reference grammar, written once. Every validator of image
// names in this crate (the CRD patterns, the MCO's scope checks,
// policy.json's identity prefixes) builds its pattern from these pieces.

/// docker/reference `domainComponent`: one label of a registry host.
pub const DOMAIN_COMPONENT: &str = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
/// docker/reference `nameComponent` (`alphanumeric (separator alphanumeric)*`):
/// one path component of a repository.
pub const NAME_COMPONENT: &str = "[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*";
/// docker/reference `tag`. Go's `\w` is ASCII-only; Rust's is
/// Unicode-aware, so it is spelled out.
pub const TAG: &str = "[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}";
/// docker/reference `digest`.
pub const DIGEST: &str = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}";

fn name_component() -> String {
    NAME_COMPONENT.to_string()
}

/// docker/reference `DomainRegexp` (unanchored): `host[:port]`.
pub fn domain_pattern() -> String {
    format!("{DOMAIN_COMPONENT}(?:\\.{DOMAIN_COMPONENT})*(?::[0-9]+)?")
}

fn compile(pattern: &str) -> Regex {
    // The patterns are constants of this module; a failure is a bug caught by every test.
    Regex::new(pattern).expect("reference grammar regex compiles")
}

static REFERENCE_RE: LazyLock<Regex> = LazyLock::new(|| {
    let nc = name_component();
    compile(&format!(
        "^((?:{d}/)?{nc}(?:/{nc})*)(?::({TAG}))?(?:@({DIGEST}))?$",
        d = domain_pattern()
    ))
});
static ANCHORED_NAME_RE: LazyLock<Regex> = LazyLock::new(|| {
    let nc = name_component();
    compile(&format!(
        "^(?:({d})/)?({nc}(?:/{nc})*)$",
        d = domain_pattern()
    ))
});
static ANCHORED_DOMAIN_RE: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!("^{d}$", d = domain_pattern())));
static DOMAIN_PREFIX_RE: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!("^{d}/", d = domain_pattern())));
static ANCHORED_REPOSITORY_NAME_RE: LazyLock<Regex> = LazyLock::new(|| {
    let nc = name_component();
    compile(&format!("^(?:{d}/)?{nc}(?:/{nc})*$", d = domain_pattern()))
});
static ANCHORED_NAME_COMPONENT_RE: LazyLock<Regex> =
    LazyLock::new(|| compile(&format!("^{}$", name_component())));
static ANCHORED_TAG_RE: LazyLock<Regex> = LazyLock::new(|| compile(&format!("^{TAG}$")));
static ANCHORED_DIGEST_RE: LazyLock<Regex> = LazyLock::new(|| compile(&format!("^{DIGEST}$")));
static GO_DIGEST_RE: LazyLock<Regex> =
    LazyLock::new(|| compile("^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$"));
static HEX64_RE: LazyLock<Regex> = LazyLock::new(|| compile("^[a-f0-9]{64}$"));

/// Why a string is not a valid image reference.
///
/// Each message starts with the upstream wording (so it can be searched for
/// in CRI-O logs) and, where upstream is vague, adds which part is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    #[error("repository name must have at least one component")]
    NameEmpty,
    #[error("repository name must be lowercase: {detail}")]
    NameContainsUppercase { detail: String },
    #[error("invalid reference format: {detail}")]
    InvalidFormat { detail: String },
    #[error("repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters: \"{name}\" has {len}")]
    NameTooLong { name: String, len: usize },
    #[error(
        "unsupported digest algorithm \"{algorithm}\" (sha256, sha384 and sha512 are supported)"
    )]
    DigestUnsupported { algorithm: String },
    #[error("invalid checksum digest format: \"{digest}\"")]
    DigestInvalidFormat { digest: String },
    #[error("invalid checksum digest length: {algorithm} needs {want} hex characters, \"{digest}\" has {got}")]
    DigestInvalidLength {
        digest: String,
        algorithm: String,
        want: usize,
        got: usize,
    },
    #[error("invalid repository name ({0}), cannot specify 64-byte hexadecimal strings")]
    HexRepository(String),
    #[error("repository name must be canonical: \"{given}\" normalizes to \"{canonical}\"")]
    NotCanonical { given: String, canonical: String },
    #[error("docker references with both a tag and digest are currently not supported")]
    TagAndDigest,
}

/// A parsed image reference: `[domain/]path[:tag][@digest]`.
///
/// `domain` is empty only for references from [`Reference::parse`] whose
/// first component is not followed by `/`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reference {
    domain: String,
    path: String,
    tag: Option<String>,
    digest: Option<String>,
}

impl Reference {
    /// Parses without normalization, as upstream `reference.Parse`: `foo/bar`
    /// has domain `foo`, and `busybox` has no domain.
    pub fn parse(s: &str) -> Result<Self, ReferenceError> {
        let Some(caps) = REFERENCE_RE.captures(s) else {
            return Err(diagnose(s));
        };
        let name = caps.get(1).map_or("", |m| m.as_str());
        if name.len() > NAME_TOTAL_LENGTH_MAX {
            return Err(ReferenceError::NameTooLong {
                name: name.to_string(),
                len: name.len(),
            });
        }
        let Some(parts) = ANCHORED_NAME_RE.captures(name) else {
            return Err(diagnose(s));
        };
        let digest = match caps.get(3) {
            Some(d) => {
                validate_digest(d.as_str())?;
                Some(d.as_str().to_string())
            }
            None => None,
        };
        Ok(Self {
            domain: parts
                .get(1)
                .map_or(String::new(), |m| m.as_str().to_string()),
            path: parts.get(2).map_or("", |m| m.as_str()).to_string(),
            tag: caps.get(2).map(|m| m.as_str().to_string()),
            digest,
        })
    }

    /// Parses and normalizes, as upstream `reference.ParseNormalizedNamed`:
    /// `busybox` becomes `docker.io/library/busybox`. No tag is added.
    pub fn parse_normalized_named(s: &str) -> Result<Self, ReferenceError> {
        if HEX64_RE.is_match(s) {
            return Err(ReferenceError::HexRepository(s.to_string()));
        }
        let (domain, remainder) = split_docker_domain(s);
        let remote_name = remainder.split(':').next().unwrap_or_default();
        if remote_name.to_lowercase() != remote_name {
            return Err(ReferenceError::NameContainsUppercase {
                detail: uppercase_detail(remote_name),
            });
        }
        Self::parse(&format!("{domain}/{remainder}"))
    }

    /// Parses a reference that must already be in canonical form, as
    /// upstream `reference.ParseNamed` (used when rewriting to a mirror).
    pub fn parse_named(s: &str) -> Result<Self, ReferenceError> {
        let named = Self::parse_normalized_named(s)?;
        let canonical = named.to_string();
        if canonical != s {
            return Err(ReferenceError::NotCanonical {
                given: s.to_string(),
                canonical,
            });
        }
        Ok(named)
    }

    /// Parses as the docker transport does (`docker://…`): normalized,
    /// `latest` added when there is neither tag nor digest, and a reference
    /// with both a tag and a digest refused.
    pub fn parse_docker_transport(s: &str) -> Result<Self, ReferenceError> {
        let named = Self::parse_normalized_named(s)?;
        if named.tag.is_some() && named.digest.is_some() {
            return Err(ReferenceError::TagAndDigest);
        }
        Ok(named.tag_name_only())
    }

    /// The registry host, with its port if any (`quay.io`, `localhost:5000`).
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The repository path below the domain (`library/busybox`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The repository name without tag or digest (upstream `Name()`).
    pub fn name(&self) -> String {
        if self.domain.is_empty() {
            self.path.clone()
        } else {
            format!("{}/{}", self.domain, self.path)
        }
    }

    /// The tag, if the reference has one.
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The digest (`sha256:…`), if the reference has one.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_deref()
    }

    /// Whether the reference pins a digest (upstream `reference.Canonical`).
    pub fn is_digested(&self) -> bool {
        self.digest.is_some()
    }

    /// Whether the reference has neither tag nor digest.
    pub fn is_name_only(&self) -> bool {
        self.tag.is_none() && self.digest.is_none()
    }

    /// Adds the `latest` tag when there is neither tag nor digest
    /// (upstream `TagNameOnly`).
    pub fn tag_name_only(mut self) -> Self {
        if self.is_name_only() {
            self.tag = Some(DEFAULT_TAG.to_string());
        }
        self
    }

    /// Drops the tag of a reference that also has a digest, as CRI-O does
    /// before pulling (`RegistryImageReferenceFromRaw`).
    pub fn strip_tag_if_digested(mut self) -> Self {
        if self.digest.is_some() {
            self.tag = None;
        }
        self
    }

    /// The same repository with another tag (upstream `WithTag`).
    pub fn with_tag(&self, tag: &str) -> Result<Self, ReferenceError> {
        if !ANCHORED_TAG_RE.is_match(tag) {
            return Err(ReferenceError::InvalidFormat {
                detail: tag_detail(tag),
            });
        }
        Ok(Self {
            tag: Some(tag.to_string()),
            ..self.clone()
        })
    }

    /// The same repository and tag with a digest (upstream `WithDigest`).
    pub fn with_digest(&self, digest: &str) -> Result<Self, ReferenceError> {
        if !ANCHORED_DIGEST_RE.is_match(digest) {
            return Err(ReferenceError::InvalidFormat {
                detail: format!("digest \"{digest}\" is not of the form algorithm:hex"),
            });
        }
        validate_digest(digest)?;
        Ok(Self {
            digest: Some(digest.to_string()),
            ..self.clone()
        })
    }

    /// The same repository with neither tag nor digest.
    pub fn name_only(&self) -> Self {
        Self {
            domain: self.domain.clone(),
            path: self.path.clone(),
            tag: None,
            digest: None,
        }
    }

    /// The short form Docker prints (`busybox:latest` for
    /// `docker.io/library/busybox:latest`; upstream `FamiliarString`).
    pub fn familiar_string(&self) -> String {
        let mut name = if self.domain == DEFAULT_DOMAIN {
            match self.path.strip_prefix(OFFICIAL_REPO_PREFIX) {
                Some(rest) if !rest.contains('/') => rest.to_string(),
                _ => self.path.clone(),
            }
        } else {
            self.name()
        };
        self.push_suffix(&mut name);
        name
    }

    fn push_suffix(&self, out: &mut String) {
        if let Some(tag) = &self.tag {
            out.push(':');
            out.push_str(tag);
        }
        if let Some(digest) = &self.digest {
            out.push('@');
            out.push_str(digest);
        }
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = self.name();
        self.push_suffix(&mut s);
        f.write_str(&s)
    }
}

/// Whether a registry host counts as a registry in a user's input:
/// it contains `.` or `:`, or is `localhost`.
pub fn is_qualified_domain(domain: &str) -> bool {
    domain.contains(['.', ':']) || domain == "localhost"
}

/// Whether `input` is a short name, as `pkg/shortnames` decides: the
/// non-normalizing parse has no domain that contains `.` or `:` and is not
/// `localhost`. `library/fedora` and `foo@sha256:…` are short names.
pub fn is_short_name(input: &str) -> Result<bool, ReferenceError> {
    Ok(!is_qualified_domain(Reference::parse(input)?.domain()))
}

/// Whether `s` is a valid registry host (`host[:port]`, no path), the rule
/// for `unqualified-search-registries` entries.
pub fn is_valid_domain(s: &str) -> bool {
    ANCHORED_DOMAIN_RE.is_match(s)
}

/// containers/image `validateIdentityRemappingPrefix` (signature/policy_config.go):
/// a `host[:port]`, or a repository name (docker/reference `NameRegexp`)
/// that starts with `host[:port]/`.
pub fn is_valid_identity_remapping_prefix(s: &str) -> bool {
    ANCHORED_DOMAIN_RE.is_match(s)
        || (ANCHORED_REPOSITORY_NAME_RE.is_match(s) && DOMAIN_PREFIX_RE.is_match(s))
}

/// Upstream `splitDockerDomain`: decides the registry of a user's input.
fn split_docker_domain(s: &str) -> (String, String) {
    let (mut domain, mut remainder) = match s.find('/') {
        Some(i) if s[..i].contains(['.', ':']) || &s[..i] == "localhost" => {
            (s[..i].to_string(), s[i + 1..].to_string())
        }
        _ => (DEFAULT_DOMAIN.to_string(), s.to_string()),
    };
    if domain == LEGACY_DEFAULT_DOMAIN {
        domain = DEFAULT_DOMAIN.to_string();
    }
    if domain == DEFAULT_DOMAIN && !remainder.contains('/') {
        remainder = format!("{OFFICIAL_REPO_PREFIX}{remainder}");
    }
    (domain, remainder)
}

/// go-digest `Digest.Validate` with the algorithms containers/image registers.
fn validate_digest(digest: &str) -> Result<(), ReferenceError> {
    let invalid_format = || ReferenceError::DigestInvalidFormat {
        digest: digest.to_string(),
    };
    let Some((algorithm, encoded)) = digest.split_once(':') else {
        return Err(invalid_format());
    };
    if algorithm.is_empty() || encoded.is_empty() {
        return Err(invalid_format());
    }
    let want = match algorithm {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ if GO_DIGEST_RE.is_match(digest) => {
            return Err(ReferenceError::DigestUnsupported {
                algorithm: algorithm.to_string(),
            })
        }
        _ => return Err(invalid_format()),
    };
    if encoded.len() != want {
        return Err(ReferenceError::DigestInvalidLength {
            digest: digest.to_string(),
            algorithm: algorithm.to_string(),
            want,
            got: encoded.len(),
        });
    }
    if !encoded
        .bytes()
        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(invalid_format());
    }
    Ok(())
}

/// Upstream says only "invalid reference format"; find the part that is wrong.
fn diagnose(s: &str) -> ReferenceError {
    if s.is_empty() {
        return ReferenceError::NameEmpty;
    }
    if REFERENCE_RE.is_match(&s.to_lowercase()) {
        return ReferenceError::NameContainsUppercase {
            detail: uppercase_detail(s.split(['@']).next().unwrap_or(s)),
        };
    }
    ReferenceError::InvalidFormat {
        detail: format_detail(s),
    }
}

fn uppercase_detail(name: &str) -> String {
    let name = name.split('@').next().unwrap_or(name);
    let (repo, _) = split_tag(name);
    match repo
        .split('/')
        .find(|c| c.chars().any(|ch| ch.is_ascii_uppercase()))
    {
        Some(c) => format!("path component \"{c}\" has upper-case letters"),
        None => format!("\"{name}\" has upper-case letters"),
    }
}

/// Splits `name[:tag]` at the last `:` after the last `/`.
fn split_tag(s: &str) -> (&str, Option<&str>) {
    let slash = s.rfind('/').map_or(0, |i| i + 1);
    match s[slash..].rfind(':') {
        Some(i) => (&s[..slash + i], Some(&s[slash + i + 1..])),
        None => (s, None),
    }
}

fn tag_detail(tag: &str) -> String {
    if tag.is_empty() {
        "the tag after ':' is empty".to_string()
    } else if tag.len() > TAG_LENGTH_MAX {
        format!(
            "tag \"{tag}\" has {} characters, at most {TAG_LENGTH_MAX} are allowed",
            tag.len()
        )
    } else {
        format!(
            "tag \"{tag}\" may only contain letters, digits, '_', '.' and '-', and must not start with '.' or '-'"
        )
    }
}

fn format_detail(s: &str) -> String {
    let (rest, digest) = match s.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (s, None),
    };
    if let Some(d) = digest {
        if !ANCHORED_DIGEST_RE.is_match(d) {
            return format!(
                "digest \"{d}\" is not of the form algorithm:hex with at least 32 hex characters"
            );
        }
    }
    let (name, tag) = split_tag(rest);
    if let Some(tag) = tag {
        if !ANCHORED_TAG_RE.is_match(tag) {
            return tag_detail(tag);
        }
    }
    if name.is_empty() {
        return "the repository name is empty".to_string();
    }
    if name.starts_with('[') {
        return format!("\"{name}\": IPv6 address hosts are not supported");
    }
    if name.contains("://") {
        return format!("\"{name}\": a reference has no URL scheme");
    }
    let components: Vec<&str> = name.split('/').collect();
    for (i, c) in components.iter().enumerate() {
        if c.is_empty() {
            return format!("\"{name}\" has an empty path component");
        }
        let is_domain = i == 0 && components.len() > 1 && ANCHORED_DOMAIN_RE.is_match(c);
        if i == 0 && components.len() > 1 && is_qualified_domain(c) && !is_domain {
            return format!("registry host \"{c}\" is not a valid host[:port]");
        }
        if !is_domain && !ANCHORED_NAME_COMPONENT_RE.is_match(c) {
            return format!(
                "path component \"{c}\" must be lower-case letters and digits separated by '.', '_', '__' or dashes"
            );
        }
    }
    format!("\"{s}\" does not match [domain/]path[:tag][@digest]")
}

#[cfg(test)]
mod tests {
    use super::*;

    const F64: &str = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

    /// (input, domain, path, tag, digest)
    type ParseCase<'a> = (String, &'a str, &'a str, Option<&'a str>, Option<String>);

    /// Ported from containers/image docker/reference/reference_test.go
    /// `TestReferenceParse`: input → (name, tag, digest), or an error kind.
    #[test]
    fn reference_parse_upstream_cases() {
        let sha = format!("sha256:{F64}");
        let sha512 = format!("sha512:{F64}{F64}");
        let ok: Vec<ParseCase> = vec![
            ("test_com".into(), "", "test_com", None, None),
            ("test.com:tag".into(), "", "test.com", Some("tag"), None),
            ("test.com:5000".into(), "", "test.com", Some("5000"), None),
            (
                "test.com/repo:tag".into(),
                "test.com",
                "repo",
                Some("tag"),
                None,
            ),
            ("test:5000/repo".into(), "test:5000", "repo", None, None),
            (
                "test:5000/repo:tag".into(),
                "test:5000",
                "repo",
                Some("tag"),
                None,
            ),
            (
                format!("test:5000/repo@{sha}"),
                "test:5000",
                "repo",
                None,
                Some(sha.clone()),
            ),
            (
                format!("test:5000/repo:tag@{sha}"),
                "test:5000",
                "repo",
                Some("tag"),
                Some(sha.clone()),
            ),
            (
                "lowercase:Uppercase".into(),
                "",
                "lowercase",
                Some("Uppercase"),
                None,
            ),
            (
                format!("{}a:tag-puts-this-over-max", "a/".repeat(127)),
                "a",
                "",
                Some("tag-puts-this-over-max"),
                None,
            ),
            (
                "sub-dom1.foo.com/bar/baz/quux".into(),
                "sub-dom1.foo.com",
                "bar/baz/quux",
                None,
                None,
            ),
            (
                "sub-dom1.foo.com/bar/baz/quux:some-long-tag".into(),
                "sub-dom1.foo.com",
                "bar/baz/quux",
                Some("some-long-tag"),
                None,
            ),
            (
                "b.gcr.io/test.example.com/my-app:test.example.com".into(),
                "b.gcr.io",
                "test.example.com/my-app",
                Some("test.example.com"),
                None,
            ),
            (
                "xn--n3h.com/myimage:xn--n3h.com".into(),
                "xn--n3h.com",
                "myimage",
                Some("xn--n3h.com"),
                None,
            ),
            (
                format!("xn--7o8h.com/myimage:xn--7o8h.com@{sha512}"),
                "xn--7o8h.com",
                "myimage",
                Some("xn--7o8h.com"),
                Some(sha512.clone()),
            ),
            (
                "foo_bar.com:8080".into(),
                "",
                "foo_bar.com",
                Some("8080"),
                None,
            ),
            (
                "foo/foo_bar.com:8080".into(),
                "foo",
                "foo_bar.com",
                Some("8080"),
                None,
            ),
            ("192.168.1.1".into(), "", "192.168.1.1", None, None),
            (
                "192.168.1.1:tag".into(),
                "",
                "192.168.1.1",
                Some("tag"),
                None,
            ),
            (
                "192.168.1.1:5000".into(),
                "",
                "192.168.1.1",
                Some("5000"),
                None,
            ),
            ("192.168.1.1/repo".into(), "192.168.1.1", "repo", None, None),
            (
                "192.168.1.1:5000/repo".into(),
                "192.168.1.1:5000",
                "repo",
                None,
                None,
            ),
            (
                "Uppercase/lowercase:tag".into(),
                "Uppercase",
                "lowercase",
                Some("tag"),
                None,
            ),
        ];
        for (input, domain, path, tag, digest) in ok {
            let r = Reference::parse(&input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(r.domain(), domain, "{input}");
            if !path.is_empty() {
                assert_eq!(r.path(), path, "{input}");
            }
            assert_eq!(r.tag(), tag, "{input}");
            assert_eq!(r.digest(), digest.as_deref(), "{input}");
            assert_eq!(r.to_string(), input, "{input} round-trips");
        }
    }

    fn kind(e: &ReferenceError) -> &'static str {
        match e {
            ReferenceError::NameEmpty => "empty",
            ReferenceError::NameContainsUppercase { .. } => "uppercase",
            ReferenceError::InvalidFormat { .. } => "format",
            ReferenceError::NameTooLong { .. } => "too-long",
            ReferenceError::DigestUnsupported { .. } => "digest-unsupported",
            ReferenceError::DigestInvalidFormat { .. } => "digest-format",
            ReferenceError::DigestInvalidLength { .. } => "digest-length",
            ReferenceError::HexRepository(_) => "hex",
            ReferenceError::NotCanonical { .. } => "not-canonical",
            ReferenceError::TagAndDigest => "tag-and-digest",
        }
    }

    /// Rejections from reference_test.go `TestReferenceParse`.
    #[test]
    fn reference_parse_upstream_rejections() {
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "empty"),
            (":justtag".into(), "format"),
            (format!("@sha256:{F64}"), "format"),
            (
                "repo@sha256:ffffffffffffffffffffffffffffffffff".into(),
                "digest-length",
            ),
            (
                format!("validname@invaliddigest:{F64}"),
                "digest-unsupported",
            ),
            ("Uppercase:tag".into(), "uppercase"),
            ("test:5000/Uppercase/lowercase:tag".into(), "uppercase"),
            (format!("{}a:tag", "a/".repeat(128)), "too-long"),
            ("aa/asdf$$^/aa".into(), "format"),
            ("[2001:db8::1]".into(), "format"),
            ("[2001:db8::1]:5000/repo".into(), "format"),
            (format!("foo:{}", "a".repeat(129)), "format"),
            (
                format!("repo@sha256:{}", F64.to_uppercase()),
                "digest-format",
            ),
            (format!("repo@SHA256:{F64}"), "digest-format"),
        ];
        for (input, want) in cases {
            let err = Reference::parse(&input).expect_err(&input);
            assert_eq!(kind(&err), want, "{input}: {err}");
        }
    }

    /// normalize_test.go `TestValidateReferenceName`, through `ParseNormalizedNamed`.
    #[test]
    fn validate_reference_name_upstream_cases() {
        for valid in [
            "docker/docker",
            "library/debian",
            "debian",
            "docker.io/docker/docker",
            "docker.io/library/debian",
            "docker.io/debian",
            "index.docker.io/docker/docker",
            "index.docker.io/library/debian",
            "index.docker.io/debian",
            "127.0.0.1:5000/docker/docker",
            "127.0.0.1:5000/library/debian",
            "127.0.0.1:5000/debian",
            "192.168.0.1",
            "192.168.0.1:80",
            "192.168.0.1:8/debian",
            "192.168.0.2:25000/debian",
            "thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev",
            "docker-rules/docker",
            "docker---rules/docker",
            "dock__er/docker",
            "localhost:5000/foo/bar",
        ] {
            assert!(
                Reference::parse_normalized_named(valid).is_ok(),
                "{valid} should be valid"
            );
        }
        for invalid in [
            "https://github.com/docker/docker",
            "docker/Docker",
            "-docker",
            "-docker/docker",
            "-docker.io/docker/docker",
            "docker///docker",
            "docker.io/docker/Docker",
            "docker.io/docker///docker",
            "1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
            "docker/-docker",
            "docker/docker-",
            "dock_-er/docker",
            "do..cker/docker",
            "docker/",
        ] {
            assert!(
                Reference::parse_normalized_named(invalid).is_err(),
                "{invalid} should be invalid"
            );
        }
    }

    /// normalize_test.go `TestParseRepositoryInfo` and the normalization
    /// table of the semantics notes: input → (name, familiar name).
    #[test]
    fn parse_repository_info_upstream_cases() {
        for (input, name, familiar) in [
            ("fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
            ("library/ubuntu", "docker.io/library/ubuntu", "ubuntu"),
            (
                "nonlibrary/ubuntu",
                "docker.io/nonlibrary/ubuntu",
                "nonlibrary/ubuntu",
            ),
            ("ubuntu", "docker.io/library/ubuntu", "ubuntu"),
            ("other/library", "docker.io/other/library", "other/library"),
            (
                "127.0.0.1:8000/private/moonbase",
                "127.0.0.1:8000/private/moonbase",
                "127.0.0.1:8000/private/moonbase",
            ),
            (
                "127.0.0.1:8000/privatebase",
                "127.0.0.1:8000/privatebase",
                "127.0.0.1:8000/privatebase",
            ),
            (
                "localhost:8000/private/moonbase",
                "localhost:8000/private/moonbase",
                "localhost:8000/private/moonbase",
            ),
            (
                "localhost/privatebase",
                "localhost/privatebase",
                "localhost/privatebase",
            ),
            (
                "example.com/private/moonbase",
                "example.com/private/moonbase",
                "example.com/private/moonbase",
            ),
            (
                "example.com:8000/privatebase",
                "example.com:8000/privatebase",
                "example.com:8000/privatebase",
            ),
            ("docker.io/fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
            ("index.docker.io/fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
            (
                "index.docker.io/library/ubuntu",
                "docker.io/library/ubuntu",
                "ubuntu",
            ),
            (
                "ubuntu-12.04-base",
                "docker.io/library/ubuntu-12.04-base",
                "ubuntu-12.04-base",
            ),
            (
                "docker.io/ubuntu-12.04-base",
                "docker.io/library/ubuntu-12.04-base",
                "ubuntu-12.04-base",
            ),
            // The semantics notes' normalization table.
            ("busybox", "docker.io/library/busybox", "busybox"),
            ("docker.io/busybox", "docker.io/library/busybox", "busybox"),
            (
                "notlocalhost/repo",
                "docker.io/notlocalhost/repo",
                "notlocalhost/repo",
            ),
            ("localhost", "docker.io/library/localhost", "localhost"),
            ("docker.io", "docker.io/library/docker.io", "docker.io"),
            ("Foo.com/bar", "Foo.com/bar", "Foo.com/bar"),
        ] {
            let r =
                Reference::parse_normalized_named(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(r.name(), name, "{input}");
            assert_eq!(r.familiar_string(), familiar, "{input}");
        }
    }

    #[test]
    fn normalization_edge_cases() {
        let r = Reference::parse_normalized_named("example.com:5000").unwrap();
        assert_eq!(r.name(), "docker.io/library/example.com");
        assert_eq!(r.tag(), Some("5000"));
        let r = Reference::parse_normalized_named(&format!("sha256:{F64}")).unwrap();
        assert_eq!(r.name(), "docker.io/library/sha256");
        assert_eq!(r.tag(), Some(F64));
        assert!(Reference::parse_normalized_named(&"a".repeat(237)).is_ok());
        let err = Reference::parse_normalized_named(&"a".repeat(238)).unwrap_err();
        assert_eq!(kind(&err), "too-long");
        assert!(Reference::parse_normalized_named(&format!("foo:{}", "t".repeat(128))).is_ok());
        let err = Reference::parse_normalized_named("Uppercase/lowercase:tag").unwrap_err();
        assert_eq!(kind(&err), "uppercase");
        let err = Reference::parse_normalized_named(F64).unwrap_err();
        assert_eq!(kind(&err), "hex");
    }

    #[test]
    fn tag_name_only_and_docker_transport() {
        let r = Reference::parse_docker_transport("busybox").unwrap();
        assert_eq!(r.to_string(), "docker.io/library/busybox:latest");
        let d = format!("quay.io/ns/app@sha256:{F64}");
        assert_eq!(
            Reference::parse_docker_transport(&d).unwrap().to_string(),
            d
        );
        let both = format!("quay.io/ns/app:v1@sha256:{F64}");
        assert_eq!(
            kind(&Reference::parse_docker_transport(&both).unwrap_err()),
            "tag-and-digest"
        );
        let r = Reference::parse_normalized_named(&both)
            .unwrap()
            .strip_tag_if_digested();
        assert_eq!(r.to_string(), d);
    }

    /// reference_test.go `TestParseNamed` / the canonical check of `ParseNamed`.
    #[test]
    fn parse_named_requires_canonical() {
        assert!(Reference::parse_named("docker.io/library/busybox:latest").is_ok());
        assert!(Reference::parse_named("quay.io/x/y").is_ok());
        for not_canonical in ["busybox", "docker.io/busybox", "index.docker.io/library/x"] {
            let err = Reference::parse_named(not_canonical).unwrap_err();
            assert_eq!(kind(&err), "not-canonical", "{not_canonical}");
        }
    }

    /// pkg/shortnames shortnames_test.go `TestIsShortName`.
    #[test]
    fn is_short_name_upstream_cases() {
        for (input, short) in [
            ("busybox", true),
            ("busybox:latest", true),
            ("library/busybox", true),
            ("docker.io/busybox", false),
            ("localhost/busybox", false),
            ("localhost:5000/busybox", false),
            ("quay.io/repo/busybox", false),
            (&format!("busybox@sha256:{F64}"), true),
            (&format!("busybox:tag@sha256:{F64}"), true),
        ] {
            assert_eq!(is_short_name(input).unwrap(), short, "{input}");
        }
        assert!(
            is_short_name("Foo/bar").is_ok(),
            "upper-case domain is a domain"
        );
        assert!(is_short_name("foo//bar").is_err());
    }

    #[test]
    fn errors_say_which_part_is_wrong() {
        for (input, want) in [
            ("quay.io/ns/app:", "the tag after ':' is empty"),
            ("quay.io/ns/app:-v1", "tag \"-v1\""),
            ("quay.io//app", "empty path component"),
            (
                "quay.io/ns/App",
                "path component \"App\" has upper-case letters",
            ),
            ("quay.io/ns/app@sha256:abc", "digest \"sha256:abc\""),
            ("quay.io/ns/app_/x", "path component \"app_\""),
            ("https://quay.io/ns/app", "no URL scheme"),
            ("[::1]:5000/foo", "IPv6"),
            ("bad_host.com:5000/x", "\"bad_host.com:5000\""),
        ] {
            let err = Reference::parse_normalized_named(input)
                .unwrap_err()
                .to_string();
            assert!(err.contains(want), "{input}: {err}");
        }
        let long = format!("foo:{}", "a".repeat(129));
        let err = Reference::parse(&long).unwrap_err().to_string();
        assert!(err.contains("129 characters"), "{err}");
    }

    #[test]
    fn with_tag_and_digest() {
        let r = Reference::parse_normalized_named("quay.io/a/b").unwrap();
        assert_eq!(r.with_tag("v1").unwrap().to_string(), "quay.io/a/b:v1");
        let d = format!("sha256:{F64}");
        assert_eq!(
            r.with_digest(&d).unwrap().to_string(),
            format!("quay.io/a/b@{d}")
        );
        assert!(r.with_tag(".bad").is_err());
        assert!(r.with_digest("sha256:abc").is_err());
    }

    /// containers/image signature/policy_config_test.go `TestValidateIdentityRemappingPrefix`.
    #[test]
    fn identity_remapping_prefix_upstream_cases() {
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        for s in [
            "localhost",
            "example.com",
            "example.com:80",
            "example.com/repo",
            "example.com/ns1/ns2/ns3/repo.with.dots-dashes_underscores",
            "example.com:80/ns1/ns2/ns3/repo.with.dots-dashes_underscores",
            "shortname",
            "ns/shortname",
        ] {
            assert!(is_valid_identity_remapping_prefix(s), "{s}");
        }
        for s in [
            String::new(),
            "repo_with_underscores".to_string(),
            "example.com/".to_string(),
            "example.com/UPPERCASEISINVALID".to_string(),
            "example.com/repo/".to_string(),
            "example.com/repo:tag".to_string(),
            format!("example.com/repo@{digest}"),
            format!("example.com/repo:tag@{digest}"),
        ] {
            assert!(!is_valid_identity_remapping_prefix(&s), "{s}");
        }
    }

    #[test]
    fn valid_domain() {
        for (d, ok) in [
            ("quay.io", true),
            ("localhost:5000", true),
            ("registry", true),
            ("quay.io/ns", false),
            ("-bad.io", false),
            ("", false),
        ] {
            assert_eq!(is_valid_domain(d), ok, "{d}");
        }
    }
}
