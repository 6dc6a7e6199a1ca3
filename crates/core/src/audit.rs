//! `audit`: every image workloads reference, classified by how CRI-O will
//! pull it on this cluster.
//!
//! The images come from [`crate::objects::workload`]: containers, init and
//! ephemeral containers, `RELATED_IMAGE_*` environment variables (the
//! operator-bundle convention for pinned operand images), a
//! ClusterServiceVersion's `spec.relatedImages` and install deployments,
//! and a CatalogSource's index image. Classification uses the explain
//! engine on the configuration rendered for the namespace of each
//! referencing object (its ImagePolicy applies): the namespace where the
//! pods run, so the copies OLM makes of a ClusterServiceVersion are left
//! out ([`take_olm_copies`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::explain::{self, Config, ExplainError, Explanation};
use crate::objects::image::EDIT_IMAGE_CONFIG;
pub use crate::objects::workload::{
    workload_from, workload_kind, ImagesAt, Workload, WorkloadKind, WORKLOAD_KINDS,
};
use crate::olm::check::{CheckedKind, SubscriptionCheck};
use crate::registries::lookup::Role;
use crate::registries::shortnames::ShortNameError;
use crate::registries::ShortNameMode;
use crate::tag_mirror_fix::TagMirrorFix;
use crate::upgrade::Readiness;

/// How an image will be pulled, worst first.
///
/// Named in camelCase everywhere (JSON, the table, `--fail-on`), as
/// Kubernetes API enum values are and as the probe outcomes (`notFound`,
/// `tlsError`) are; [`Class::parse`] also takes the kebab-case spelling
/// earlier releases printed (`short-name-refused`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Class {
    /// Not a valid image reference: the pod never starts.
    Invalid,
    /// policy.json rejects the image.
    NotAllowed,
    /// Every endpoint is blocked: no mirror can serve it and the source is blocked.
    SourceBlocked,
    /// A short name CRI-O refuses (enforcing mode with several search registries).
    ShortNameRefused,
    /// With `--probe`: no source serves the image (or the one that answers
    /// serves another digest).
    MissingOnMirror,
    /// With `--probe`: served without the sigstore signature the policy requires.
    UnsignedOnMirror,
    /// With `--probe`: a source did not answer in time and CRI-O would keep
    /// waiting on it: whether the pull works cannot be told.
    Undetermined,
    /// By tag while the mirrors are digest-only: the pull goes to the source.
    TagSkipsDigestMirrors,
    /// A short name: resolved through the search registries (or refused).
    ShortName,
    /// No mirror rule applies: pulled from its own registry.
    Direct,
    /// A mirror serves it.
    Mirrored,
}

impl Class {
    /// Every class, worst first.
    pub const ALL: [Class; 8] = [
        Class::Invalid,
        Class::NotAllowed,
        Class::SourceBlocked,
        Class::ShortNameRefused,
        Class::TagSkipsDigestMirrors,
        Class::ShortName,
        Class::Direct,
        Class::Mirrored,
    ];

    /// The classes only `--probe` gives (counted only then).
    pub const PROBED: [Class; 3] = [
        Class::MissingOnMirror,
        Class::UnsignedOnMirror,
        Class::Undetermined,
    ];

    /// The name in the JSON contract and the table.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Invalid => "invalid",
            Class::NotAllowed => "notAllowed",
            Class::SourceBlocked => "sourceBlocked",
            Class::ShortNameRefused => "shortNameRefused",
            Class::MissingOnMirror => "missingOnMirror",
            Class::UnsignedOnMirror => "unsignedOnMirror",
            Class::Undetermined => "undetermined",
            Class::TagSkipsDigestMirrors => "tagSkipsDigestMirrors",
            Class::ShortName => "shortName",
            Class::Direct => "direct",
            Class::Mirrored => "mirrored",
        }
    }

    /// The class named `name`: camelCase (`missingOnMirror`) or kebab-case
    /// (`missing-on-mirror`), in any letter case.
    pub fn parse(name: &str) -> Option<Class> {
        let fold = |s: &str| -> String {
            s.chars()
                .filter(|c| *c != '-' && *c != '_')
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let want = fold(name);
        Class::ALL
            .iter()
            .chain(&Class::PROBED)
            .copied()
            .find(|c| fold(c.as_str()) == want)
    }

    /// `error` for a pull that fails (or may hang: [`Class::Undetermined`],
    /// which `--fail-on error` leaves to exit 3), `warning` for one that
    /// works only while the source is reachable (or resolves by search),
    /// `ok` otherwise.
    pub fn level(self) -> Level {
        match self {
            Class::Invalid
            | Class::NotAllowed
            | Class::SourceBlocked
            | Class::ShortNameRefused
            | Class::MissingOnMirror
            | Class::UnsignedOnMirror
            | Class::Undetermined => Level::Error,
            Class::TagSkipsDigestMirrors | Class::ShortName => Level::Warning,
            Class::Direct | Class::Mirrored => Level::Ok,
        }
    }

    /// [`Class::level`] when every image must be served by a mirror (a
    /// disconnected cluster): an image pulled from its own registry, or by
    /// tag past digest-only mirrors, will not pull, so it is an error.
    pub fn level_requiring_mirror(self) -> Level {
        match self {
            Class::Direct | Class::TagSkipsDigestMirrors => Level::Error,
            other => other.level(),
        }
    }
}

/// The severity of a class, for `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
    Ok,
}

/// One audited image.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditedImage {
    /// As written in the objects.
    pub reference: String,
    pub class: Class,
    /// `Kind/namespace/name`, sorted.
    pub objects: Vec<String>,
    pub signature_required: bool,
    pub detail: String,
    /// Pulled by tag past digest-only mirrors: the ImageTagMirrorSet that
    /// lets the pull use them (as `explain` gives it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<TagMirrorFix>,
    /// With `--probe`: what the registries answered for this image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ImageProbe>,
    /// `Secret/<namespace>/<name>` for every pull secret the objects' pods
    /// name (their `imagePullSecrets`, and live their service accounts').
    #[serde(skip)]
    pub pull_secrets: Vec<String>,
}

/// The probe of one audited image (as seen from this machine).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageProbe {
    /// The candidate that was probed (the reference CRI-O pulls).
    pub reference: String,
    /// The source that served the manifest, or null.
    pub served_by: Option<String>,
    /// Why what the pull gives cannot be told (a source that did not
    /// answer in time), when so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<String>,
    /// Why the pull fails at a source (another digest), when so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error CRI-O returns when every source fails (as `explain --probe`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crio_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_probe: Option<crate::probe_result::SignatureProbe>,
    /// Every source in pull order with what it answered.
    pub sources: Vec<ProbedSource>,
    /// Sources the pods' own pull secrets do not (or may) reach, when the
    /// probe found no credentials for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pull_secret_findings: Vec<PullSecretFinding>,
}

/// The pods' pull secrets and one pull source the probe had no credentials for.
///
/// Upstream, a pod's pull secrets reach CRI-O only as the credentials the
/// kubelet passes in the CRI `PullImage` request, which the kubelet picks
/// for the image's own registry. CRI-O (`server/image_pull.go`) sets them as
/// `SystemContext.DockerAuthConfig`; containers/image
/// (`docker/docker_image_src.go`, `newImageSourceAttempt`) clears
/// `DockerAuthConfig` (and the bearer token) for every pull source whose
/// domain differs from the image's own, so such a mirror gets only the auth
/// files: the global pull secret (`global_auth_file`) or, when an external
/// kubelet credential provider wrote one, CRI-O's namespaced auth file.
/// For a source on the image's own domain the passed credentials are used
/// instead of the auth files (`pkg/docker/config`, `getCredentialsWithHomeDir`
/// returns `DockerAuthConfig` first).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullSecretFinding {
    /// The pull source.
    pub source: String,
    /// `Secret/<namespace>/<name>`, by name only: their contents are not read.
    pub secrets: Vec<String>,
    /// Whether credentials the kubelet passes reach this source (it is on
    /// the image's own domain); false for a mirror on another domain.
    pub reached: bool,
    pub detail: String,
}

/// One source of a probed image.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbedSource {
    pub reference: String,
    pub probe: crate::probe_result::SourceProbe,
}

/// The audit: images worst first, and a count per class.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub images: Vec<AuditedImage>,
    pub summary: BTreeMap<&'static str, usize>,
    /// With `--updates`: each Subscription's next update, in the order
    /// the Subscriptions were read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updates: Option<Vec<OperatorUpdate>>,
}

/// `audit --updates`: whether one installed operator's next update (the
/// first hop OLM takes from its installed CSV) can be pulled, in
/// `operator-check`'s words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorUpdate {
    /// `Subscription`, or an OLM v1 `ClusterExtension` (cluster-scoped: no namespace).
    pub kind: CheckedKind,
    pub namespace: String,
    pub subscription: String,
    pub package: String,
    #[serde(rename = "installedCSV")]
    pub installed_csv: Option<String>,
    /// The CSV of the next hop; `None` when there is none (at the head,
    /// or OLM cannot resolve the Subscription).
    #[serde(rename = "nextCSV")]
    pub next_csv: Option<String>,
    pub readiness: Readiness,
    pub reason: String,
    pub message: String,
}

impl OperatorUpdate {
    /// The next update of `check`, as `operator-check` judged it.
    pub fn of(check: &SubscriptionCheck) -> Self {
        OperatorUpdate {
            kind: check.kind,
            namespace: check.namespace.clone(),
            subscription: check.name.clone(),
            package: check.package.clone(),
            installed_csv: check.installed_csv.clone(),
            next_csv: check.hops.first().map(|h| h.to.clone()),
            readiness: check.readiness,
            reason: check.reason.clone(),
            message: check.message.clone(),
        }
    }
}

impl Report {
    /// The counts `-o summary` gives of one cluster's audit, in order: the
    /// images, then every class of [`Report::summary`] (named as there);
    /// with `--updates`, the updates, the notReady ones and the undetermined ones.
    pub fn summary_counts(&self) -> Vec<(&'static str, usize)> {
        let mut counts = vec![("images", self.images.len())];
        counts.extend(self.summary.iter().map(|(class, n)| (*class, *n)));
        if let Some(updates) = &self.updates {
            let with = |r: Readiness| updates.iter().filter(|u| u.readiness == r).count();
            counts.extend([
                ("updates", updates.len()),
                ("updatesNotReady", with(Readiness::NotReady)),
                ("updatesUndetermined", with(Readiness::Undetermined)),
            ]);
        }
        counts
    }
}

/// The configurations to explain against: the cluster's, and the one of
/// each namespace that has its own policy.
pub trait Configs {
    fn for_namespace(&self, namespace: &str) -> Config<'_>;
}

/// Takes out of `workloads` the ClusterServiceVersions OLM copied into the
/// target namespaces of their OperatorGroups (AllNamespaces or
/// MultiNamespace) and returns them. No pod of a copy's install strategy
/// runs where the copy is: the operator's pods run in the namespace of the
/// original, whose ImagePolicy applies to them, and that original is
/// audited there.
pub fn take_olm_copies(workloads: &mut Vec<Workload>) -> Vec<Workload> {
    let (copies, kept): (Vec<Workload>, Vec<Workload>) = std::mem::take(workloads)
        .into_iter()
        .partition(|w| w.copied_from.is_some());
    *workloads = kept;
    copies
}

/// Audits the workloads: de-duplicates references (as written), explains
/// each in every namespace that uses it, and keeps the worst outcome.
pub fn audit(workloads: &[Workload], configs: &dyn Configs, mode: ShortNameMode) -> Report {
    // reference → namespace → objects
    let mut uses: BTreeMap<&str, BTreeMap<&str, BTreeSet<String>>> = BTreeMap::new();
    // reference → Secret/<namespace>/<name>
    let mut secrets: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for w in workloads {
        for (image, _) in &w.images {
            uses.entry(image.as_str())
                .or_default()
                .entry(w.namespace.as_str())
                .or_default()
                .insert(w.label());
            secrets.entry(image.as_str()).or_default().extend(
                w.pull_secrets
                    .iter()
                    .map(|s| format!("Secret/{}/{s}", w.namespace)),
            );
        }
    }
    let mut images = Vec::new();
    for (reference, by_namespace) in uses {
        let mut worst: Option<(Class, String, Option<TagMirrorFix>)> = None;
        let mut signature: Option<String> = None;
        let mut objects = BTreeSet::new();
        for (namespace, objs) in &by_namespace {
            objects.extend(objs.iter().cloned());
            let config = configs.for_namespace(namespace);
            let ns = (!namespace.is_empty()).then_some(*namespace);
            let (class, detail, sig, fix) = classify(&config, reference, mode, ns);
            if signature.is_none() {
                signature = sig;
            }
            if worst.as_ref().is_none_or(|(c, _, _)| class < *c) {
                worst = Some((class, detail, fix));
            }
        }
        let (class, mut detail, fix) = worst.unwrap_or((Class::Direct, String::new(), None));
        if let Some(policy) = &signature {
            detail.push_str(&format!("; signature required by {policy}"));
        }
        images.push(AuditedImage {
            reference: reference.to_string(),
            class,
            objects: objects.into_iter().collect(),
            signature_required: signature.is_some(),
            detail,
            fix,
            probe: None,
            pull_secrets: secrets
                .get(reference)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default(),
        });
    }
    images.sort_by(|a, b| a.class.cmp(&b.class).then(a.reference.cmp(&b.reference)));
    let mut summary: BTreeMap<&'static str, usize> =
        Class::ALL.iter().map(|c| (c.as_str(), 0)).collect();
    for i in &images {
        *summary.entry(i.class.as_str()).or_default() += 1;
    }
    Report {
        images,
        summary,
        updates: None,
    }
}

/// While nodes run either of two short-name modes (an update in progress
/// between releases whose CRI-O resolves short names differently): each
/// image whose class differs between `report` (the target's mode) and
/// `older` (the mode of nodes not yet updated) is undetermined, `why`
/// saying so with both outcomes.
pub fn undetermined_between(report: &mut Report, older: &Report, why: &str) {
    let before: BTreeMap<&str, &AuditedImage> = older
        .images
        .iter()
        .map(|i| (i.reference.as_str(), i))
        .collect();
    for image in &mut report.images {
        let Some(was) = before.get(image.reference.as_str()) else {
            continue;
        };
        if was.class == image.class {
            continue;
        }
        image.detail = format!(
            "{why}: a node not yet updated finds it {} ({}); an updated one, {} ({})",
            was.class.as_str(),
            was.detail,
            image.class.as_str(),
            image.detail
        );
        image.class = Class::Undetermined;
    }
    report
        .images
        .sort_by(|a, b| a.class.cmp(&b.class).then(a.reference.cmp(&b.reference)));
    report.summary = class_counts(&report.images);
}

/// With `--probe`: each distinct reference once, explained with the policy
/// of a namespace that uses it (one that requires sigstore signatures, when
/// there is one, so that the signature is checked). References that cannot
/// be explained are left out (they never reach a registry).
pub fn probe_targets(
    workloads: &[Workload],
    configs: &dyn Configs,
    mode: ShortNameMode,
) -> Vec<Explanation> {
    let mut uses: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for w in workloads {
        for (image, _) in &w.images {
            uses.entry(image.as_str())
                .or_default()
                .insert(w.namespace.as_str());
        }
    }
    let mut out = Vec::new();
    for (reference, namespaces) in uses {
        let mut chosen: Option<Explanation> = None;
        for namespace in namespaces {
            let config = configs.for_namespace(namespace);
            let ns = (!namespace.is_empty()).then_some(namespace);
            let Ok(e) = explain::explain(&config, reference, mode, ns) else {
                continue;
            };
            let signed = e.candidates.iter().any(|c| {
                c.signature.as_ref().is_some_and(|s| {
                    s.requirements
                        .iter()
                        .any(|r| matches!(r, crate::policy::Requirement::SigstoreSigned(_)))
                })
            });
            if signed {
                chosen = Some(e);
                break;
            }
            if chosen.is_none() {
                chosen = Some(e);
            }
        }
        out.extend(chosen);
    }
    out
}

/// Records the probe of each image in the report, classes an image no
/// source serves `missingOnMirror` and one served without its required
/// signature `unsignedOnMirror` (unless already classed worse), and
/// counts the probe classes.
pub fn apply_probes(report: &mut Report, probed: &[Explanation]) {
    for image in &mut report.images {
        let Some(e) = probed.iter().find(|e| e.image == image.reference) else {
            continue;
        };
        let Some(c) = probed_candidate(e) else {
            continue;
        };
        if c.served_by.is_none() {
            continue;
        }
        image.probe = Some(image_probe(c, &image.pull_secrets));
        let (class, note) = probe_verdict(e, c);
        if let Some(class) = class {
            if class < image.class {
                image.class = class;
            }
        }
        let fix_notes = record_fix_probes(image, c);
        prepend_probe_notes(image, note, fix_notes);
    }
    report
        .images
        .sort_by(|a, b| a.class.cmp(&b.class).then(a.reference.cmp(&b.reference)));
    report.summary = class_counts(&report.images);
}

/// The candidate whose probe speaks for the image: the first one a source
/// served or that is undetermined (CRI-O stops there), else the first one
/// whose pull fails at a source, else the first one.
fn probed_candidate(e: &Explanation) -> Option<&crate::explain::Candidate> {
    e.candidates
        .iter()
        .find(|c| matches!(c.served_by, Some(Some(_))) || c.undetermined.is_some())
        .or_else(|| {
            e.candidates
                .iter()
                .find(|c| c.served_by.is_some() && c.error.is_some())
        })
        .or_else(|| e.candidates.first())
}

/// The probe of one candidate as the report records it: who served it,
/// its signature probe, each probed source, and the pull-secret findings
/// for the pods' `secrets`.
fn image_probe(c: &crate::explain::Candidate, secrets: &[String]) -> ImageProbe {
    let findings = pull_secret_findings(c, secrets);
    ImageProbe {
        reference: c.reference.clone(),
        served_by: c.served_by.clone().flatten(),
        undetermined: c.undetermined.clone(),
        error: c.error.clone(),
        crio_error: c.crio_error.clone(),
        signature_probe: c.signature_probe.clone(),
        sources: c
            .sources
            .iter()
            .filter_map(|s| {
                s.probe.clone().map(|probe| ProbedSource {
                    reference: s.reference.clone(),
                    probe,
                })
            })
            .collect(),
        pull_secret_findings: findings,
    }
}

/// The class the probe of `e` gives the image (none when it changes
/// nothing) and the note that says why (empty when not probed); `c` is the
/// candidate whose signature probe the note names.
fn probe_verdict(e: &Explanation, c: &crate::explain::Candidate) -> (Option<Class>, String) {
    use crate::verdict::{verdict, Verdict};
    let v = verdict(e);
    // The candidate the verdict is about: the one whose error CRI-O returns,
    // or the one probed for its signature.
    let failing = e
        .candidates
        .iter()
        .find(|c| c.crio_error.is_some())
        .unwrap_or(c);
    let words = match (&v, crate::verdict::crio_words(&v, c)) {
        (_, Some(w)) => format!("CRI-O's error: `{w}`: "),
        (Verdict::Missing, None) => failing
            .crio_error
            .as_deref()
            .map(|w| format!("CRI-O's error: `{w}`: "))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let fix = crate::verdict::fix(&v, failing)
        .map(|f| format!("; fix: {f}"))
        .unwrap_or_default();
    let sig = c
        .signature_probe
        .as_ref()
        .map(|s| s.reference.as_str())
        .unwrap_or("");
    let (class, cause) = match &v {
        Verdict::Served(by) => return (None, format!("probe: served by {by}")),
        Verdict::NotProbed => return (None, String::new()),
        Verdict::Missing => (Class::MissingOnMirror, "no source serves it, the pull fails".to_string()),
        Verdict::DigestMismatch(by) => (
            Class::MissingOnMirror,
            format!("{by} serves a manifest that does not match the digest, the pull fails"),
        ),
        Verdict::Unsigned(by) => (
            Class::UnsignedOnMirror,
            format!("served by {by} without the sigstore signature {sig} the policy requires, the pull fails"),
        ),
        Verdict::BadSignature(by) => (
            Class::UnsignedOnMirror,
            format!(
                "served by {by}, whose sigstore signatures the policy does not accept ({}), the pull fails",
                c.signature_probe
                    .as_ref()
                    .and_then(|s| s.detail.as_deref())
                    .unwrap_or("")
            ),
        ),
        Verdict::NoAttachments(by) => (
            Class::UnsignedOnMirror,
            format!(
                "served by {by}, where use-sigstore-attachments does not apply: no signature is looked up, the pull fails"
            ),
        ),
        Verdict::Undetermined(why) => (Class::Undetermined, format!("undetermined, {why}")),
    };
    (Some(class), format!("probe: {words}{cause}{fix}"))
}

/// Puts the probe's `note` (when not empty), the `fix_notes` and one note
/// per pull-secret finding in front of the image's detail.
fn prepend_probe_notes(image: &mut AuditedImage, note: String, fix_notes: Vec<String>) {
    let mut notes: Vec<String> = Vec::new();
    if !note.is_empty() {
        notes.push(note);
    }
    notes.extend(fix_notes);
    for f in image
        .probe
        .iter()
        .flat_map(|p| p.pull_secret_findings.iter())
    {
        notes.push(format!("probe: {}", f.detail));
    }
    if !notes.is_empty() {
        image.detail = format!("{}; {}", notes.join("; "), image.detail);
    }
}

/// Puts the probed candidate's fix (what each mirror answered for the tag)
/// in place of the image's, and returns a note per mirror probed ("the
/// mirror does not hold this tag: mirror it first").
fn record_fix_probes(image: &mut AuditedImage, c: &crate::explain::Candidate) -> Vec<String> {
    let (Some(_), Some(probed)) = (&image.fix, &c.fix) else {
        return Vec::new();
    };
    image.fix = Some(probed.clone());
    probed
        .mirrors
        .iter()
        .filter_map(|m| {
            m.probe_summary()
                .map(|s| format!("probe: {}: {s}", m.reference))
        })
        .collect()
}

/// How many images fall in each class, every class (the probe ones too)
/// listed, with zero when none does.
fn class_counts(images: &[AuditedImage]) -> BTreeMap<&'static str, usize> {
    let mut summary: BTreeMap<&'static str, usize> = Class::ALL
        .iter()
        .chain(&Class::PROBED)
        .map(|c| (c.as_str(), 0))
        .collect();
    for i in images {
        *summary.entry(i.class.as_str()).or_default() += 1;
    }
    summary
}

/// The findings for the sources of a probed candidate that were asked
/// without credentials while the pods name pull secrets (see
/// [`PullSecretFinding`]): a mirror on another domain that refused (or did
/// not find) the image never gets the pods' credentials; a source on the
/// image's own domain that refused anonymous access may accept them (the
/// probe does not read them). A source that served, or failed for another
/// reason (TLS, network), gives none.
fn pull_secret_findings(
    c: &crate::explain::Candidate,
    secrets: &[String],
) -> Vec<PullSecretFinding> {
    use crate::probe_result::Outcome;
    if secrets.is_empty() {
        return Vec::new();
    }
    let domain_of = |r: &str| {
        crate::reference::Reference::parse(r)
            .ok()
            .map(|r| r.domain().to_string())
    };
    let Some(image_domain) = domain_of(&c.reference) else {
        return Vec::new();
    };
    let named = secrets.join(", ");
    let mut out = Vec::new();
    for s in &c.sources {
        let Some(p) = &s.probe else { continue };
        if !p.anonymous || matches!(p.outcome, Outcome::Blocked | Outcome::NotTried) {
            continue;
        }
        let Some(domain) = domain_of(&s.reference) else {
            continue;
        };
        let refused = p.outcome == Outcome::Unauthorized;
        // Only where credentials could have changed the answer: a refusal, or a
        // "not found" (registries answer so for private repositories too).
        if domain != image_domain && (refused || p.outcome == Outcome::NotFound) {
            out.push(PullSecretFinding {
                source: s.reference.clone(),
                secrets: secrets.to_vec(),
                reached: false,
                detail: format!(
                    "the pods' pull secrets ({named}) are not used for {domain}: the kubelet passes them \
                     for {image_domain}, and containers/image does not send them to a mirror on another \
                     domain; the probe's credentials (the global pull secret, or --authfile) have none for {domain}{}",
                    if refused {
                        " (it refused anonymous access)"
                    } else {
                        " (it answered not found without credentials, as registries do for private repositories too)"
                    }
                ),
            });
        } else if refused {
            out.push(PullSecretFinding {
                source: s.reference.clone(),
                secrets: secrets.to_vec(),
                reached: true,
                detail: format!(
                    "{domain} refused anonymous access here, but the pods' pull secrets ({named}) \
                     reach it when one has credentials for {domain} (the kubelet passes them for \
                     the image's own domain); the probe reads their names only, not their contents"
                ),
            });
        }
    }
    out
}

/// `(class, detail, signature policy that requires a signature, the fix
/// for a pull by tag past digest-only mirrors)`.
fn classify(
    config: &Config<'_>,
    reference: &str,
    mode: ShortNameMode,
    namespace: Option<&str>,
) -> (Class, String, Option<String>, Option<TagMirrorFix>) {
    let short = crate::reference::is_short_name(reference).unwrap_or(false);
    let explanation = match explain::explain(config, reference, mode, namespace) {
        Ok(e) => e,
        Err(ExplainError::InvalidReference { source, .. }) => {
            let detail = format!(
                "the kubelet's event `Failed to apply default image tag \"{reference}\": ...` (the container waits in InvalidImageName): {source}; fix: correct the image reference in the workload"
            );
            return (Class::Invalid, detail, None, None);
        }
        Err(e @ ExplainError::ShortName { .. }) => {
            // An ambiguous name already opens with CRI-O's own sentence.
            let detail = match &e {
                ExplainError::ShortName { source, .. }
                    if !matches!(**source, ShortNameError::Ambiguous { .. }) =>
                {
                    format!("a short name CRI-O cannot resolve: {source}; fix: write the image fully qualified (registry/repository:tag)")
                }
                _ => e.to_string(),
            };
            return (Class::ShortNameRefused, detail, None, None);
        }
    };
    let (class, detail) = judge(&explanation);
    let signature = explanation
        .candidates
        .iter()
        .filter_map(|c| c.signature.as_ref())
        .find(|s| s.verifies_signatures)
        .map(|s| {
            // The objects (ClusterImagePolicy/x, ImagePolicy/ns/x), not the file lines.
            let names: Vec<String> = s
                .origins
                .iter()
                .map(|o| o.to_string())
                .filter(|o| !o.starts_with('/'))
                .collect();
            if names.is_empty() {
                s.scope.clone().unwrap_or_else(|| "default".to_string())
            } else {
                names.join(", ")
            }
        });
    if short && class != Class::Invalid && class != Class::NotAllowed {
        let candidates: Vec<&str> = explanation
            .candidates
            .iter()
            .map(|c| c.reference.as_str())
            .collect();
        let how = format!(
            "a short name, resolved by the search registries to {}",
            candidates.join(", then ")
        );
        let detail = if class == Class::SourceBlocked {
            format!("{how}; {detail}")
        } else {
            format!(
                "{how}; fix: write it fully qualified ({}) so the pull does not depend on the search registries",
                candidates.first().copied().unwrap_or_default()
            )
        };
        let class = class.min(Class::ShortName);
        return (class, detail, signature, fix_of(&explanation, class));
    }
    let fix = fix_of(&explanation, class);
    (class, detail, signature, fix)
}

/// The fix of the explanation's first candidate, for the classes whose
/// detail names it.
fn fix_of(e: &Explanation, class: Class) -> Option<TagMirrorFix> {
    if !matches!(class, Class::TagSkipsDigestMirrors | Class::SourceBlocked) {
        return None;
    }
    e.candidates.first().and_then(|c| c.fix.clone())
}

/// What lets a pull whose every endpoint is blocked use the mirrors it
/// skipped: the candidate's fix, or a digest.
fn blocked_fix(c: &crate::explain::Candidate) -> String {
    match &c.fix {
        Some(f) => format!("to use the mirrors, {}, or pin a digest", f.summary()),
        None if !c.by_digest && !c.skipped.is_empty() => {
            "pin a digest to use the mirrors".to_string()
        }
        None => format!(
            "mirror it and add an ImageDigestMirrorSet (an ImageTagMirrorSet for a tag) for its repository, \
             or unblock its registry in spec.registrySources.blockedRegistries ({EDIT_IMAGE_CONFIG})"
        ),
    }
}

/// What lets a pull by tag use the digest-only mirrors it skips: the
/// candidate's fix, or a digest.
fn tag_fix(c: &crate::explain::Candidate) -> String {
    match &c.fix {
        Some(f) => format!("{}, or pin a digest", f.summary()),
        None => "pin a digest (or add an ImageTagMirrorSet)".to_string(),
    }
}

/// The detail of a pull policy.json rejects: CRI-O's words (for a
/// `reject` requirement), the scope, and the list to change.
fn not_allowed(c: &crate::explain::Candidate) -> String {
    let scope = c
        .signature
        .as_ref()
        .and_then(|s| s.scope.clone())
        .unwrap_or_else(|| "default".to_string());
    let fix = match scope.as_str() {
        "default" => "add its registry to spec.registrySources.allowedRegistries".to_string(),
        _ => format!("remove {scope} from spec.registrySources.blockedRegistries"),
    };
    // containers/image opens the source before it asks the policy: a
    // registry blockedRegistries also blocks in registries.conf fails there.
    let words = match c.sources.iter().all(|s| s.blocked) {
        true => blocked_words(c),
        false => c.policy_rejection_words(),
    };
    format!(
        "{words}policy.json rejects it (scope {scope}), as the MCO writes it from the Image config's allowed/blocked registries; fix: {fix} ({EDIT_IMAGE_CONFIG})"
    )
}

/// containers/image's error for a pull whose every endpoint is blocked:
/// the source's, tried last (empty when not known).
fn blocked_words(c: &crate::explain::Candidate) -> String {
    c.sources
        .last()
        .and_then(|s| s.blocked_by.as_deref())
        .map(|prefix| format!("{}: ", crate::explain::blocked_words(prefix)))
        .unwrap_or_default()
}

/// The detail of a pull whose every endpoint is blocked (by the objects
/// `by`): containers/image's words for the source, tried last, the mirrors
/// skipped, and the fix.
fn all_blocked(c: &crate::explain::Candidate, by: &str) -> String {
    let skipped = if c.skipped.is_empty() {
        String::new()
    } else {
        format!(
            "; {} mirror(s) skipped for this pull ({})",
            c.skipped.len(),
            c.skipped[0].reason
        )
    };
    let words = blocked_words(c);
    format!(
        "{words}every endpoint is blocked (by {by}){skipped}, so the pull fails; fix: {}",
        blocked_fix(c)
    )
}

/// The class of a qualified reference from its explanation.
fn judge(e: &Explanation) -> (Class, String) {
    let Some(c) = e.candidates.first() else {
        return (Class::Invalid, "no candidate".to_string());
    };
    if !c.allowed {
        return (Class::NotAllowed, not_allowed(c));
    }
    if let Some(error) = &c.error {
        return (Class::SourceBlocked, error.clone());
    }
    let usable: Vec<_> = c.sources.iter().filter(|s| !s.blocked).collect();
    let mirrors_used = usable.iter().any(|s| s.role == Role::Mirror);
    let origins = |o: &[crate::origin::Origin]| {
        o.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if usable.is_empty() {
        let by = c
            .registry
            .as_ref()
            .map(|r| origins(&r.origins))
            .unwrap_or_default();
        return (Class::SourceBlocked, all_blocked(c, &by));
    }
    if !c.by_digest && !c.skipped.is_empty() && !mirrors_used {
        let by = origins(&c.skipped[0].origins);
        return (
            Class::TagSkipsDigestMirrors,
            format!(
                "pulled by tag: the mirrors of {by} serve digests only (pull-from-mirror = \"digest-only\"), so CRI-O never tries them for a tag and the pull goes to {}, which must be reachable; fix: {}",
                usable[0].reference,
                tag_fix(c)
            ),
        );
    }
    if mirrors_used {
        let first = usable
            .iter()
            .find(|s| s.role == Role::Mirror)
            .map(|s| s.reference.as_str())
            .unwrap_or_default();
        let by = c
            .registry
            .as_ref()
            .map(|r| origins(&r.origins))
            .unwrap_or_default();
        return (Class::Mirrored, format!("first from {first} ({by})"));
    }
    (
        Class::Direct,
        format!("no mirror rule: pulled from {}", usable[0].reference),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kind(k: &str) -> &'static WorkloadKind {
        WORKLOAD_KINDS.iter().find(|w| w.kind == k).unwrap()
    }

    #[test]
    fn images_from_every_place() {
        let deployment = json!({
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"template": {"spec": {
                "initContainers": [{"name": "init", "image": "quay.io/a/init:1"}],
                "containers": [{"name": "app", "image": "quay.io/a/app:2",
                    "env": [{"name": "RELATED_IMAGE_DB", "value": "quay.io/a/db@sha256:aa"},
                            {"name": "OTHER", "value": "quay.io/not/an-image:1"},
                            {"name": "RELATED_IMAGE_EMPTY", "value": ""}]}]
            }}}
        });
        let w = workload_from(kind("Deployment"), &deployment)
            .unwrap()
            .unwrap();
        assert_eq!(w.label(), "Deployment/shop/web");
        assert_eq!(
            w.images,
            vec![
                ("quay.io/a/init:1".into(), "initContainers[init]".into()),
                ("quay.io/a/app:2".into(), "containers[app]".into()),
                (
                    "quay.io/a/db@sha256:aa".into(),
                    "containers[app] env RELATED_IMAGE_DB".into()
                ),
            ]
        );
        let cron = json!({"metadata": {"name": "c", "namespace": "n"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "x", "image": "busybox"}]}}}}}});
        assert_eq!(
            workload_from(kind("CronJob"), &cron)
                .unwrap()
                .unwrap()
                .images[0]
                .0,
            "busybox"
        );
        let owned = json!({"metadata": {"name": "web-1", "namespace": "shop",
            "ownerReferences": [{"kind": "Deployment", "name": "web"}]},
            "spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}});
        assert!(workload_from(kind("ReplicaSet"), &owned).unwrap().is_none());
        let csv = json!({"metadata": {"name": "op.v1", "namespace": "operators"},
            "spec": {"relatedImages": [{"name": "operand", "image": "registry.redhat.io/x/operand@sha256:bb"}],
                "install": {"spec": {"deployments": [{"name": "op", "spec": {"template": {"spec": {
                    "containers": [{"name": "manager", "image": "registry.redhat.io/x/op:v1"}]}}}}]}}}});
        let w = workload_from(kind("ClusterServiceVersion"), &csv)
            .unwrap()
            .unwrap();
        assert_eq!(
            w.images,
            vec![
                (
                    "registry.redhat.io/x/operand@sha256:bb".into(),
                    "relatedImages[operand]".into()
                ),
                (
                    "registry.redhat.io/x/op:v1".into(),
                    "deployment op containers[manager]".into()
                ),
            ]
        );
    }

    #[test]
    fn issue_28_olm_copies_are_known_by_label_or_status() {
        let spec = json!({"relatedImages": [{"name": "op", "image": "quay.io/op/x@sha256:aa"}]});
        for (label, status, want) in [
            (Some("operators"), None, Some("operators")),
            (Some("operators"), Some("Copied"), Some("operators")),
            (None, Some("Copied"), Some("")),
            (None, Some("InstallSucceeded"), None),
            (None, None, None),
        ] {
            let mut csv = json!({"metadata": {"name": "op.v1", "namespace": "team"}, "spec": spec});
            if let Some(from) = label {
                csv["metadata"]["labels"] = json!({"olm.copiedFrom": from});
            }
            if let Some(reason) = status {
                csv["status"] = json!({"reason": reason});
            }
            let w = workload_from(kind("ClusterServiceVersion"), &csv)
                .unwrap()
                .unwrap();
            assert_eq!(w.copied_from.as_deref(), want, "{label:?} {status:?}");
        }
        // Only a CSV is a copy: a Deployment with the label is read as any other.
        let deployment = json!({"metadata": {"name": "d", "namespace": "n",
            "labels": {"olm.copiedFrom": "x"}},
            "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
        let w = workload_from(kind("Deployment"), &deployment)
            .unwrap()
            .unwrap();
        assert_eq!(w.copied_from, None);
        let mut workloads = vec![w.clone()];
        let copy = json!({"metadata": {"name": "op.v1", "namespace": "team",
            "labels": {"olm.copiedFrom": "operators"}}, "spec": spec});
        workloads.push(
            workload_from(kind("ClusterServiceVersion"), &copy)
                .unwrap()
                .unwrap(),
        );
        let taken = take_olm_copies(&mut workloads);
        assert_eq!(workloads, vec![w]);
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].label(), "ClusterServiceVersion/team/op.v1");
    }

    #[test]
    fn issue_28_catalog_source_index_image_and_its_pull_secrets() {
        for (spec, images, secrets, accounts) in [
            (
                json!({"sourceType": "grpc", "image": "quay.io/idx:v1", "secrets": ["pull", "", "pull"]}),
                vec![("quay.io/idx:v1", "spec.image")],
                vec!["pull"],
                vec!["redhat-operators"],
            ),
            (
                json!({"sourceType": "grpc", "address": "catalog.svc:50051"}),
                vec![],
                vec![],
                vec![],
            ),
            (json!({"image": ""}), vec![], vec![], vec![]),
        ] {
            let cs = json!({"metadata": {"name": "redhat-operators", "namespace": "openshift-marketplace"},
                "spec": spec});
            let w = workload_from(kind("CatalogSource"), &cs).unwrap().unwrap();
            let got: Vec<(&str, &str)> = w
                .images
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            assert_eq!(got, images, "{spec}");
            assert_eq!(w.pull_secrets, secrets, "{spec}");
            assert_eq!(w.service_accounts, accounts, "{spec}");
            assert_eq!(
                w.label(),
                "CatalogSource/openshift-marketplace/redhat-operators"
            );
            assert_eq!(w.copied_from, None);
        }
    }

    #[test]
    fn classes_are_ordered_worst_first() {
        let mut sorted = Class::ALL.to_vec();
        sorted.sort();
        assert_eq!(sorted, Class::ALL);
        assert_eq!(
            Class::TagSkipsDigestMirrors.as_str(),
            "tagSkipsDigestMirrors"
        );
        assert_eq!(
            serde_json::to_value(Class::SourceBlocked).unwrap(),
            json!("sourceBlocked")
        );
    }

    #[test]
    fn issue_16_classes_parse_in_both_spellings() {
        for c in Class::ALL.iter().chain(&Class::PROBED) {
            assert_eq!(Class::parse(c.as_str()), Some(*c));
            assert_eq!(
                serde_json::to_value(c).unwrap(),
                json!(c.as_str()),
                "JSON and text agree"
            );
        }
        assert_eq!(
            Class::parse("missing-on-mirror"),
            Some(Class::MissingOnMirror)
        );
        assert_eq!(
            Class::parse("unsignedOnMirror"),
            Some(Class::UnsignedOnMirror)
        );
        assert_eq!(Class::parse("SHORT-NAME"), Some(Class::ShortName));
        assert_eq!(Class::parse("missing"), None);
    }

    fn audited(reference: &str, class: Class) -> AuditedImage {
        AuditedImage {
            reference: reference.to_string(),
            class,
            objects: Vec::new(),
            signature_required: false,
            detail: String::new(),
            fix: None,
            probe: None,
            pull_secrets: Vec::new(),
        }
    }

    /// Issue 26: `-o summary` counts the typed report: the images, then each
    /// class as the JSON's `summary` names and orders it.
    #[test]
    fn issue_26_summary_counts_are_the_images_then_each_class() {
        let images = vec![
            audited("quay.io/a/x:1", Class::Mirrored),
            audited("quay.io/a/y:1", Class::Mirrored),
            audited("docker.io/b/z:1", Class::Direct),
            audited("q/x:1", Class::MissingOnMirror),
        ];
        let report = Report {
            summary: class_counts(&images),
            images,
            updates: None,
        };
        let counts = report.summary_counts();
        assert_eq!(counts[0], ("images", 4));
        for (class, want) in [
            ("mirrored", 2),
            ("direct", 1),
            ("missingOnMirror", 1),
            ("invalid", 0),
        ] {
            assert!(counts.contains(&(class, want)), "{class}: {counts:?}");
        }
        let json = serde_json::to_value(&report).unwrap();
        let summary: Vec<(&str, usize)> = json["summary"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_u64().unwrap() as usize))
            .collect();
        assert_eq!(counts[1..], summary[..], "the JSON's summary, in its order");
        let empty = Report {
            images: Vec::new(),
            summary: BTreeMap::new(),
            updates: None,
        };
        assert_eq!(empty.summary_counts(), [("images", 0)]);
    }
}
