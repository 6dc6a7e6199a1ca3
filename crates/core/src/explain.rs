//! The explain model: for one image, every decision CRI-O makes, traced.
//!
//! Given the merged registries configuration and (optionally) a signature
//! policy, [`explain`] resolves short names, finds the matching
//! `[[registry]]`, orders the pull sources, marks blocked endpoints the way
//! the docker transport checks them (per physical endpoint), and selects
//! the policy scope for the logical reference. The result serializes to
//! the JSON contract documented in docs/contracts.md. Rendering it as a table is
//! left to `output`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::origin::Origin;
use crate::policy::{PolicyFile, Requirement};
use crate::reference::{Reference, ReferenceError};
use crate::registries::lookup::{self, ref_matching_prefix, PullPlan, Role};
use crate::registries::shortnames::{self, CandidateVia, ShortNameError};
use crate::registries::{RegistriesConf, Registry, ShortNameMode};
use crate::render::node::NodeView;
use crate::tag_mirror_fix::{tag_mirror_fix, TagMirrorFix};

/// The transport CRI-O pulls with; policy scopes are looked up under it.
const DOCKER_TRANSPORT: &str = "docker";

/// What the caller knows about the node (or rendered) configuration.
pub struct Config<'a> {
    pub registries: &'a RegistriesConf,
    pub policy: Option<&'a PolicyFile>,
    /// For a configuration rendered from cluster objects: which objects each
    /// policy.json scope comes from (`"default"` for the global default).
    pub scope_origins: Option<&'a BTreeMap<String, Vec<Origin>>>,
}

impl<'a> From<&'a NodeView> for Config<'a> {
    /// The configuration a node of a rendered pool reads, with the objects
    /// behind each policy scope.
    fn from(view: &'a NodeView) -> Self {
        Config {
            registries: &view.registries,
            policy: Some(&view.policy),
            scope_origins: Some(&view.scope_origins),
        }
    }
}

/// Why an image cannot be explained.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    #[error("invalid image reference \"{image}\": {source}")]
    InvalidReference {
        image: String,
        #[source]
        source: ReferenceError,
    },
    /// The short name does not resolve. An ambiguous name under enforcing
    /// mode opens with the sentence CRI-O returns, so a pasted event finds it.
    #[error("{}", short_name_message(image, source))]
    ShortName {
        image: String,
        #[source]
        source: Box<ShortNameError>,
    },
}

/// The text of [`ExplainError::ShortName`]: CRI-O's own words, then the
/// cause, then the fix.
///
/// CRI-O's `CandidatesForPotentiallyShortImageName` (cri-o
/// `internal/storage/image.go`) replaces containers/image's "cannot prompt
/// without a TTY" error with `short name mode is enforcing, but image name
/// NAME returns ambiguous list`, NAME being the image as the pod spec gives
/// it; that sentence is what the kubelet's event and CRI-O's log show.
fn short_name_message(image: &str, source: &ShortNameError) -> String {
    match source {
        ShortNameError::Ambiguous { candidates, .. } => format!(
            "short name mode is enforcing, but image name {image} returns ambiguous list \
             (containers/image, as podman says it: {source}): {} candidates from \
             unqualified-search-registries and CRI-O cannot prompt to choose one; use a \
             fully-qualified reference, add an alias for \"{}\" to [aliases] in \
             registries.conf, or keep a single unqualified-search registry (on OpenShift: \
             Image cluster spec.registrySources.containerRuntimeSearchRegistries)",
            candidates.len(),
            // Aliases name the repository, without tag or digest.
            Reference::parse(image).map_or_else(|_| image.to_string(), |r| r.name())
        ),
        _ => format!("cannot resolve \"{image}\": {source}"),
    }
}

/// The explanation of one image, as given by the user.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub image: String,
    pub namespace: Option<String>,
    /// The short-name mode that was applied.
    pub short_name_mode: ShortNameMode,
    pub candidates: Vec<Candidate>,
    pub warnings: Vec<String>,
    /// Why CRI-O would refuse or fail this pull: the reference is invalid,
    /// the short name cannot be resolved, or no candidate can be pulled
    /// (every endpoint blocked, a mirror rewrite refused, policy.json
    /// rejects it). Absent when the pull proceeds as configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether `error` says the answer is undetermined (whether the pull
    /// works depends on what the tool cannot know) rather than a failure.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub undetermined: bool,
    /// With `--journal` or `--journal-file`: each pull of the image the
    /// node's CRI-O log shows, judged against this explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal: Option<Vec<crate::journal::PullRecord>>,
}

impl Explanation {
    /// Whether the source `by` (a pull spec of its candidates' sources) is
    /// reached over plain HTTP or unverified TLS (registries.conf `insecure`).
    pub fn source_is_insecure(&self, by: &str) -> bool {
        self.candidates
            .iter()
            .flat_map(|c| &c.sources)
            .find(|s| s.reference == by)
            .is_some_and(|s| s.insecure)
    }

    /// What a pull log is judged against: each candidate's sources in order.
    pub fn expected(&self) -> crate::journal::Expected {
        use crate::journal::{Expected, ExpectedCandidate, ExpectedSource};
        Expected {
            image: self.image.clone(),
            candidates: self
                .candidates
                .iter()
                .map(|c| ExpectedCandidate {
                    reference: c.reference.clone(),
                    sources: c
                        .sources
                        .iter()
                        .map(|s| ExpectedSource {
                            reference: s.reference.clone(),
                            mirror: s.role == Role::Mirror,
                            blocked: s.blocked,
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// Whether CRI-O first tries a mirror or the source itself for this
    /// image: the role of its first candidate's first source, if any.
    pub fn first_role(&self) -> Option<Role> {
        let candidate = self.candidates.first()?;
        candidate.sources.first().map(|s| s.role)
    }

    /// The result for an image that cannot be explained at all.
    pub fn unresolved(
        image: &str,
        mode: ShortNameMode,
        namespace: Option<&str>,
        error: &ExplainError,
    ) -> Self {
        Explanation {
            image: image.to_string(),
            namespace: namespace.map(str::to_string),
            short_name_mode: mode,
            candidates: Vec::new(),
            warnings: Vec::new(),
            error: Some(error.to_string()),
            undetermined: false,
            journal: None,
        }
    }
}

/// containers/image's refusal of a blocked endpoint (docker/docker_client.go
/// `newDockerClientFromRef`), with the node's paths.
pub fn blocked_words(prefix: &str) -> String {
    format!(
        "registry {prefix} is blocked in /etc/containers/registries.conf \
         or /etc/containers/registries.conf.d"
    )
}

impl Candidate {
    /// Why this candidate cannot be pulled, when CRI-O would refuse or fail it.
    pub fn pull_failure(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(e.clone());
        }
        if !self.sources.is_empty() && self.sources.iter().all(|s| s.blocked) {
            // containers/image (docker/docker_client.go) refuses a blocked
            // endpoint with "registry PREFIX is blocked in CONF or CONF.d";
            // the source is tried last, so its error ends the pull's message.
            let words = self
                .sources
                .last()
                .and_then(|s| s.blocked_by.as_deref())
                .map(|prefix| format!("{}: ", blocked_words(prefix)))
                .unwrap_or_default();
            return Some(format!(
                "{words}every endpoint for {} is blocked and no mirror can serve it",
                self.reference
            ));
        }
        if !self.allowed {
            return Some(format!(
                "{}policy.json rejects {}",
                self.policy_rejection_words(),
                self.reference
            ));
        }
        None
    }

    /// What CRI-O says when a `reject` requirement refuses the image:
    /// copy/single.go's "Source image rejected: " before
    /// signature/policy_eval_simple.go's "Running image docker://NAME is
    /// rejected by policy." (NAME in its familiar form). Empty when the
    /// first refusing requirement is another kind, whose words differ.
    pub fn policy_rejection_words(&self) -> String {
        let first_refusal = self
            .signature
            .as_ref()
            .and_then(|s| s.requirements.iter().find(|r| r.rejects()));
        if !matches!(first_refusal, Some(Requirement::Reject)) {
            return String::new();
        }
        Reference::parse_normalized_named(&self.reference)
            .map(|r| {
                format!(
                    "Source image rejected: Running image docker://{} is rejected by policy. ",
                    r.familiar_string()
                )
            })
            .unwrap_or_default()
    }
}

/// The counts `-o summary` gives of one cluster's explanations: the
/// images, and how many are pulled first from a mirror or from their
/// source (see [`Explanation::first_role`]).
pub fn summary_counts(items: &[Explanation]) -> Vec<(&'static str, usize)> {
    let first = |role: Role| {
        items
            .iter()
            .filter(|i| i.first_role() == Some(role))
            .count()
    };
    vec![
        ("images", items.len()),
        ("fromMirror", first(Role::Mirror)),
        ("fromSource", first(Role::Source)),
    ]
}

/// Why the pull fails when every candidate fails (CRI-O tries them in
/// order and the first that pulls wins).
pub fn pull_failure(candidates: &[Candidate]) -> Option<String> {
    let failures: Vec<String> = candidates
        .iter()
        .map(Candidate::pull_failure)
        .collect::<Option<_>>()?;
    match failures.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("every candidate fails: {}", many.join("; "))),
    }
}

/// One fully-qualified candidate and how it is pulled.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// The normalized reference CRI-O pulls (tag dropped when a digest is present).
    pub reference: String,
    pub by_digest: bool,
    /// How the candidate was obtained from the input.
    pub resolved_by: ResolvedBy,
    /// The `[[registry]]` entry that matched, or null when none did.
    pub registry: Option<RegistryMatch>,
    /// Every endpoint tried, in order.
    pub sources: Vec<Source>,
    /// Mirrors never tried, and why.
    pub skipped: Vec<Skipped>,
    /// For a pull by tag that skips every mirror as digest-only: the
    /// ImageTagMirrorSet that lets it use them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<TagMirrorFix>,
    /// Whether policy.json lets the image run (no requirement rejects it).
    pub allowed: bool,
    /// The signature policy that applies, or null when no policy.json was given.
    pub signature: Option<Signature>,
    /// Set when the pull cannot even start (a mirror rewrite CRI-O refuses),
    /// or, with `--probe`, when it fails at a source (a by-digest source
    /// that serves another manifest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Without `-n`: the namespaces whose ImagePolicies give this reference
    /// another policy than the cluster-wide one (their pods use it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub namespace_policies: Vec<NamespacePolicy>,
    /// With `--probe`: the source that served the manifest, or null.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served_by: Option<Option<String>>,
    /// With `--probe`: why what the pull gives cannot be told (a source
    /// that did not answer in time, on which CRI-O would keep waiting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<String>,
    /// With `--probe`, when every source tried fails: the error CRI-O
    /// returns for this pull (and the kubelet's event carries), in
    /// containers/image's words: `initializing source docker://REF: ` then,
    /// with more than one source tried, `(Mirrors also failed: [SRC:
    /// ERR]\n[SRC: ERR]): LAST: ERR`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crio_error: Option<String>,
    /// With `--probe`, when the policy requires sigstore signatures and the
    /// serving endpoint uses sigstore attachments: the attachment looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_probe: Option<crate::probe_result::SignatureProbe>,
}

/// The policy pods of one namespace get for a candidate, where it differs
/// from the cluster-wide one.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespacePolicy {
    pub namespace: String,
    pub allowed: bool,
    pub signature: Signature,
}

/// Adds, to every candidate of `item` (explained with the cluster-wide
/// policy), the namespaces whose own explanation of the same image gives
/// another signature policy. `by_namespace` holds each namespace's
/// explanation of the same image, made with that namespace's policy.
pub fn add_namespace_policies(item: &mut Explanation, by_namespace: &[(String, Explanation)]) {
    for (i, candidate) in item.candidates.iter_mut().enumerate() {
        for (namespace, other) in by_namespace {
            let Some(theirs) = other.candidates.get(i) else {
                continue;
            };
            let (Some(sig), Some(ours)) = (&theirs.signature, &candidate.signature) else {
                continue;
            };
            if theirs.allowed != candidate.allowed || sig.requirements != ours.requirements {
                candidate.namespace_policies.push(NamespacePolicy {
                    namespace: namespace.clone(),
                    allowed: theirs.allowed,
                    signature: sig.clone(),
                });
            }
        }
    }
}

/// How a candidate came from the user's input.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ResolvedBy {
    /// The input was already fully qualified.
    Qualified,
    /// A short-name alias.
    #[serde(rename_all = "camelCase")]
    Alias { alias: String, origins: Vec<Origin> },
    /// An `unqualified-search-registries` entry.
    #[serde(rename_all = "camelCase")]
    SearchRegistry {
        registry: String,
        origins: Vec<Origin>,
    },
}

/// The `[[registry]]` entry a candidate matched.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistryMatch {
    pub prefix: String,
    pub location: String,
    pub blocked: bool,
    pub insecure: bool,
    pub mirror_by_digest_only: bool,
    pub origins: Vec<Origin>,
    /// Other prefixes that also match the name and lost to this one (less specific).
    pub also_matched: Vec<String>,
}

/// One endpoint in pull order.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The rewritten pull spec.
    pub reference: String,
    pub role: Role,
    pub insecure: bool,
    /// CRI-O refuses to contact this endpoint: its physical name matches a blocked entry.
    pub blocked: bool,
    /// The prefix of the blocked entry, as containers/image names it in its error.
    #[serde(skip)]
    pub blocked_by: Option<String>,
    /// Where the endpoint came from, then (when blocked) the entry that blocks it.
    pub origins: Vec<Origin>,
    /// With `--probe`: what the endpoint answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<crate::probe_result::SourceProbe>,
}

/// A mirror that is never tried for this reference.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub reference: String,
    pub reason: String,
    pub origins: Vec<Origin>,
}

/// The signature policy selected for the logical reference.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Signature {
    /// The winning `transports.docker` key; null when the global `default` applies.
    pub scope: Option<String>,
    /// The requirements, as containers/image reads them (Go field order).
    pub requirements: Vec<Requirement>,
    /// Whether a requirement verifies signatures (signedBy, sigstoreSigned).
    pub verifies_signatures: bool,
    pub origins: Vec<Origin>,
}

/// Explains one image against a configuration.
pub fn explain(
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
    namespace: Option<&str>,
) -> Result<Explanation, ExplainError> {
    Reference::parse_normalized_named(image).map_err(|source| ExplainError::InvalidReference {
        image: image.to_string(),
        source,
    })?;
    let resolved =
        shortnames::resolve(config.registries, image, mode, false).map_err(|source| {
            ExplainError::ShortName {
                image: image.to_string(),
                source: Box::new(source),
            }
        })?;
    let mut warnings = hostless_prefix_warnings(config.registries, image);
    if resolved.len() > 1 {
        warnings.push(format!(
            "short name \"{image}\" has {} candidates from unqualified-search-registries; \
             they are tried in order and the first that pulls wins (CRI-O in enforcing mode \
             refuses such a name: use a fully-qualified reference or an alias)",
            resolved.len()
        ));
    }
    let candidates: Vec<Candidate> = resolved
        .into_iter()
        .map(|c| explain_candidate(config, c.reference, c.via, &mut warnings))
        .collect();
    Ok(Explanation {
        image: image.to_string(),
        namespace: namespace.map(str::to_string),
        short_name_mode: mode,
        error: pull_failure(&candidates),
        undetermined: false,
        candidates,
        warnings,
        journal: None,
    })
}

/// Why a `[[registry]]` entry whose prefix has no registry host (a
/// mirror-set `source: operator-framework` meant for
/// `quay.io/operator-framework`) does not apply to `image`, whose path holds
/// the prefix's components: one warning per such entry. Empty for an image
/// that does not parse.
pub fn hostless_prefix_warnings(conf: &RegistriesConf, image: &str) -> Vec<String> {
    let Ok(reference) = Reference::parse_normalized_named(image) else {
        return Vec::new();
    };
    let path: Vec<&str> = reference.path().split('/').collect();
    let mut out = Vec::new();
    for r in &conf.registries {
        let mirrors: Vec<&str> = r.mirrors.iter().map(|m| m.location.as_str()).collect();
        let Some(hostless) = lookup::hostless_prefix(&r.prefix, &mirrors) else {
            continue;
        };
        if ref_matching_prefix(&reference.name(), &r.prefix).is_some() {
            // A registry of that name with a port: the entry does apply.
            continue;
        }
        let wanted: Vec<&str> = r.prefix.split('/').collect();
        let Some(at) = path
            .windows(wanted.len())
            .position(|w| w == wanted.as_slice())
        else {
            continue;
        };
        let meant = format!(
            "{}/{}",
            reference.domain(),
            path[..at + wanted.len()].join("/")
        );
        let meant = match crate::reference::is_short_name(image).unwrap_or(false) {
            true => format!("name the registry the short name resolves to, such as {meant}"),
            false => format!("be {meant}"),
        };
        let by: Vec<String> = r.origins.iter().map(ToString::to_string).collect();
        let by = match by.is_empty() {
            true => String::new(),
            false => format!(" ({})", by.join(", ")),
        };
        out.push(format!(
            "the mirrors of \"{}\"{by} do not apply to {image}: {}; for this image the source must {meant}",
            r.prefix,
            hostless.reason()
        ));
    }
    out
}

fn explain_candidate(
    config: &Config<'_>,
    reference: Reference,
    via: CandidateVia,
    warnings: &mut Vec<String>,
) -> Candidate {
    let conf = config.registries;
    let reference = reference.strip_tag_if_digested();
    let name = reference.name();
    let registry = lookup::find_registry(conf, &name);
    let plan = match registry {
        Some(r) => lookup::pull_sources(r, &reference),
        None => Ok(lookup::unmatched_pull_plan(&reference)),
    };
    let (sources, skipped, error) = match plan {
        Ok(PullPlan { sources, skipped }) => (sources, skipped, None),
        Err(e) => {
            let msg = format!(
                "the pull of {reference} fails before any endpoint is tried: {e} \
                 (CRI-O aborts the whole pull when a mirror rewrite fails)"
            );
            warnings.push(msg.clone());
            (Vec::new(), Vec::new(), Some(msg))
        }
    };
    let sources: Vec<Source> = sources.into_iter().map(|s| source_of(conf, s)).collect();
    let fix = registry.and_then(|r| {
        let mirrors_used = sources.iter().any(|s| s.role == Role::Mirror && !s.blocked);
        tag_mirror_fix(r, &reference, &skipped, mirrors_used)
    });
    let skipped: Vec<Skipped> = skipped
        .into_iter()
        .map(|s| Skipped {
            reference: s.reference,
            reason: s.reason.to_string(),
            origins: s.origins,
        })
        .collect();

    if error.is_none() {
        warn_about_sources(
            &reference,
            registry.is_some(),
            &sources,
            &skipped,
            fix.as_ref(),
            warnings,
        );
    }
    if let Some(r) = registry {
        warn_about_icsps(r, warnings);
    }
    let (allowed, signature) = match config.policy {
        Some(policy) => signature_of(config, policy, &reference, warnings),
        None => (true, None),
    };
    Candidate {
        reference: reference.to_string(),
        by_digest: reference.is_digested(),
        resolved_by: resolved_by(via),
        registry: registry.map(|r| registry_match(conf, r, &name)),
        sources,
        skipped,
        fix,
        allowed,
        signature,
        error,
        namespace_policies: Vec::new(),
        served_by: None,
        undetermined: None,
        crio_error: None,
        signature_probe: None,
    }
}

/// A pull source, blocked when the registry entry it falls under blocks it
/// (whose origins it then also names).
fn source_of(conf: &RegistriesConf, s: lookup::PullSource) -> Source {
    let blocker = lookup::find_registry(conf, &s.reference.name()).filter(|r| r.blocked);
    let mut origins = s.origins.clone();
    if let Some(b) = blocker {
        for o in &b.origins {
            Origin::push_unique(&mut origins, o);
        }
    }
    Source {
        reference: s.reference.to_string(),
        role: s.role,
        insecure: s.insecure,
        blocked: blocker.is_some(),
        blocked_by: blocker.map(|b| b.prefix.clone()),
        origins,
        probe: None,
    }
}

/// One warning per ImageContentSourcePolicy behind the registry entry: the
/// kind is deprecated.
fn warn_about_icsps(r: &Registry, warnings: &mut Vec<String>) {
    for o in r
        .origins
        .iter()
        .chain(r.mirrors.iter().flat_map(|m| &m.origins))
    {
        if o.as_str().starts_with("ImageContentSourcePolicy/") {
            let w = format!(
                "{o} is deprecated: migrate it to an ImageDigestMirrorSet (kubectl mirrorpolicy migrate-icsp)"
            );
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
}

/// Whether policy.json admits the reference, and the requirements that
/// apply to it.
fn signature_of(
    config: &Config<'_>,
    policy: &PolicyFile,
    reference: &Reference,
    warnings: &mut Vec<String>,
) -> (bool, Option<Signature>) {
    let m = policy.requirements_for(DOCKER_TRANSPORT, reference);
    let allowed = !m.requirements.iter().any(|r| r.rejects());
    if !allowed {
        warnings.push(format!("policy.json rejects {reference} ({})", m.origin));
    }
    let signature = Signature {
        scope: m.scope.clone(),
        requirements: m.requirements.to_vec(),
        verifies_signatures: m.requirements.iter().any(|r| r.verifies_signatures()),
        origins: signature_origins(config, m.scope.as_deref(), &m.origin),
    };
    (allowed, Some(signature))
}

fn resolved_by(via: CandidateVia) -> ResolvedBy {
    match via {
        CandidateVia::Qualified => ResolvedBy::Qualified,
        CandidateVia::Alias { alias, origin } => ResolvedBy::Alias {
            alias,
            origins: vec![origin],
        },
        CandidateVia::SearchRegistry { registry, origin } => ResolvedBy::SearchRegistry {
            registry,
            origins: origin.into_iter().collect(),
        },
    }
}

/// The registry entry that won, and the other prefixes that matched `name`.
fn registry_match(conf: &RegistriesConf, winner: &Registry, name: &str) -> RegistryMatch {
    let also_matched = lookup::matching_registries(conf, name)
        .into_iter()
        .filter(|r| r.prefix != winner.prefix)
        .map(|r| r.prefix.clone())
        .collect();
    RegistryMatch {
        prefix: winner.prefix.clone(),
        location: winner.location.clone(),
        blocked: winner.blocked,
        insecure: winner.insecure,
        mirror_by_digest_only: winner.mirror_by_digest_only,
        origins: winner.origins.clone(),
        also_matched,
    }
}

fn warn_about_sources(
    reference: &Reference,
    matched: bool,
    sources: &[Source],
    skipped: &[Skipped],
    fix: Option<&TagMirrorFix>,
    warnings: &mut Vec<String>,
) {
    let mirrors_used = sources.iter().any(|s| s.role == Role::Mirror);
    let source = sources.iter().find(|s| s.role == Role::Source);
    if matched && !reference.is_digested() && !skipped.is_empty() && !mirrors_used {
        let to = match source {
            Some(s) if !s.blocked => format!("goes to the source {}", s.reference),
            _ => "has no endpoint left".to_string(),
        };
        let mut by: Vec<String> = Vec::new();
        for o in skipped.iter().flat_map(|s| &s.origins) {
            if !by.contains(&o.to_string()) {
                by.push(o.to_string());
            }
        }
        let way = match fix {
            Some(f) => format!(
                "to use the mirrors configured by {} for tags, mirror the tags and add an \
                 ImageTagMirrorSet for {} with the same mirrors (see the fix), or pin a digest (@sha256:...)",
                by.join(", "),
                f.source
            ),
            None => format!(
                "add a digest (@sha256:...) to use the mirrors configured by {}",
                by.join(", ")
            ),
        };
        warnings.push(format!(
            "{reference} is pulled by tag and every mirror for it is digest-only, so the pull {to}; {way}"
        ));
    }
    if !sources.is_empty() && sources.iter().all(|s| s.blocked) {
        warnings.push(format!(
            "every endpoint for {reference} is blocked: the source is blocked and no mirror can serve this reference, the pull will fail"
        ));
    }
}

/// The objects a policy scope comes from, then the file entry itself.
fn signature_origins(
    config: &Config<'_>,
    scope: Option<&str>,
    file_origin: &Origin,
) -> Vec<Origin> {
    let mut origins: Vec<Origin> = config
        .scope_origins
        .and_then(|map| map.get(scope.unwrap_or("default")))
        .cloned()
        .unwrap_or_default();
    origins.push(file_origin.clone());
    origins
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registries::{load, ConfigFile};

    /// Issue 26: `-o summary` counts the typed explanations by the role of
    /// the first source CRI-O tries; an image without a candidate counts
    /// as neither.
    #[test]
    fn issue_26_summary_counts_the_first_source_tried() {
        let text = "[[registry]]\nlocation = \"quay.io/ns\"\n[[registry.mirror]]\nlocation = \"mirror.example.com/ns\"\n";
        let conf = load(
            Some(&ConfigFile {
                name: "registries.conf",
                text,
            }),
            &[],
        )
        .unwrap();
        let config = Config {
            registries: &conf,
            policy: None,
            scope_origins: None,
        };
        let mode = ShortNameMode::Enforcing;
        let explained = |image: &str| explain(&config, image, mode, None).unwrap();
        let mirrored = explained("quay.io/ns/app:v1");
        let direct = explained("docker.io/library/busybox:latest");
        assert_eq!(mirrored.first_role(), Some(Role::Mirror));
        assert_eq!(direct.first_role(), Some(Role::Source));
        let invalid = explain(&config, "Not/Valid", mode, None).unwrap_err();
        let unresolved = Explanation::unresolved("Not/Valid", mode, None, &invalid);
        assert_eq!(unresolved.first_role(), None);
        let counts = |items: &[&Explanation]| {
            let items: Vec<Explanation> = items.iter().map(|&e| e.clone()).collect();
            summary_counts(&items)
        };
        for (items, want) in [
            (vec![], [0, 0, 0]),
            (vec![&mirrored], [1, 1, 0]),
            (vec![&direct], [1, 0, 1]),
            (vec![&mirrored, &direct, &mirrored, &unresolved], [4, 2, 1]),
        ] {
            let want: Vec<(&str, usize)> = ["images", "fromMirror", "fromSource"]
                .into_iter()
                .zip(want)
                .collect();
            assert_eq!(counts(&items), want, "{} items", items.len());
        }
    }

    /// Issue 36: an ambiguous short name under enforcing mode opens with the
    /// sentence CRI-O returns (cri-o internal/storage/image.go), then says
    /// why and what to change; other short-name errors keep their words.
    #[test]
    fn issue_36_ambiguous_short_name_opens_with_crio_words() {
        let text = "unqualified-search-registries = [\"quay.io\", \"docker.io\"]\n";
        let conf = load(
            Some(&ConfigFile {
                name: "registries.conf",
                text,
            }),
            &[],
        )
        .unwrap();
        let config = Config {
            registries: &conf,
            policy: None,
            scope_origins: None,
        };
        let e = explain(&config, "busybox", ShortNameMode::Enforcing, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short name mode is enforcing, but image name busybox returns ambiguous list \
             (containers/image, as podman says it: short-name resolution enforced but cannot \
             prompt without a TTY: \"busybox\" has 2 candidates (quay.io/busybox:latest, \
             docker.io/library/busybox:latest)): 2 candidates from \
             unqualified-search-registries and CRI-O cannot prompt to choose one; use a \
             fully-qualified reference, add an alias for \"busybox\" to [aliases] in \
             registries.conf, or keep a single unqualified-search registry (on OpenShift: \
             Image cluster spec.registrySources.containerRuntimeSearchRegistries)"
        );
        // An alias names the repository, without tag or digest.
        let e = explain(&config, "busybox:1.36", ShortNameMode::Enforcing, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("add an alias for \"busybox\" to [aliases]"),
            "{e}"
        );
        let empty = RegistriesConf::default();
        let config = Config {
            registries: &empty,
            ..config
        };
        let e = explain(&config, "busybox", ShortNameMode::Enforcing, None).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot resolve \"busybox\": short-name \"busybox\""),
            "{e}"
        );
    }
}
