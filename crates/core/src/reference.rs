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
mod tests;
