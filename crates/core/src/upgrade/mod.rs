//! `upgrade-check`: will the update to a release succeed through the
//! cluster's own mirrors? The payload and every component image it names
//! are probed on the pull sources CRI-O on a control-plane node would walk
//! (the probe of `explain --probe`); each image gets one outcome, and the
//! report a verdict: ready, not ready, or undetermined.

pub mod checks;
pub mod openpgp;
pub mod payload;
pub mod release_policy;
pub mod target;

use serde::Serialize;

use crate::explain::Explanation;
use crate::objects::Inputs;
use crate::probe_result::Outcome;
use crate::verdict::{self, Verdict};

pub use crate::probe_result::{ImageSignature, Verification};
use crate::registries::lookup::Role;

pub use target::{find_update, find_update_by_image, NotOffered, Offered, Risk};

/// What became of one image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ImageOutcome {
    /// A source serves it (and its signature, where one is required).
    Served,
    /// Every source answered that it does not have it (or is blocked).
    Missing,
    /// Served without the sigstore signature the cluster's policy requires.
    Unsigned,
    /// Served with sigstore signatures, none of which the policy's key accepts.
    BadSignature,
    /// Every source is blocked: CRI-O contacts none.
    Blocked,
    /// A source refused the credentials.
    Unauthorized,
    /// A source's certificate is not trusted.
    TlsError,
    /// A source serves another manifest under the digest asked for.
    DigestMismatch,
    /// The reference cannot be pulled as written (invalid, or refused by policy.json).
    Refused,
    /// The payload has no image for the control plane's architecture.
    MissingArchitecture,
    /// A source did not answer (unreachable, or timed out: CRI-O would
    /// keep waiting on it): no verdict.
    Undetermined,
}

impl ImageOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            ImageOutcome::Served => "served",
            ImageOutcome::Missing => "missing",
            ImageOutcome::Unsigned => "unsigned",
            ImageOutcome::BadSignature => "badSignature",
            ImageOutcome::Blocked => "blocked",
            ImageOutcome::Unauthorized => "unauthorized",
            ImageOutcome::TlsError => "tlsError",
            ImageOutcome::DigestMismatch => "digestMismatch",
            ImageOutcome::Refused => "refused",
            ImageOutcome::MissingArchitecture => "missingArchitecture",
            ImageOutcome::Undetermined => "undetermined",
        }
    }

    /// Whether the update cannot go on with this image.
    pub fn fails(self) -> bool {
        !matches!(self, ImageOutcome::Served | ImageOutcome::Undetermined)
    }
}

/// One pull source of an image and what it answered.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullSource {
    pub reference: String,
    pub role: Role,
    pub outcome: Outcome,
    /// The digest of the manifest this source served (absent when it
    /// served none): for a tag, the digest the pull resolves to there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    pub detail: String,
}

/// The check of one image.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageCheck {
    /// The component's tag name (`payload` for the release image itself).
    pub name: String,
    /// The reference the release names.
    pub reference: String,
    /// The sources in CRI-O's order.
    pub pull_sources: Vec<PullSource>,
    pub served_by: Option<String>,
    pub outcome: ImageOutcome,
    /// The sigstore signature, when a policy requires one: the attachment
    /// looked up and what its verification gave.
    pub signature: Option<ImageSignature>,
    /// Why, in one line (the deciding source's answer).
    pub detail: String,
}

impl ImageCheck {
    /// Whether the image was served by its own registry, not a mirror:
    /// a pull a disconnected cluster cannot make (`--require-mirror`).
    /// A source under `mirrorSourcePolicy: NeverContactSource` is blocked
    /// in the rendered registries.conf (runtime-utils sets `blocked =
    /// true`), so it never serves and needs no rule of its own here.
    pub fn served_by_source(&self) -> bool {
        let Some(by) = self.served_by.as_deref() else {
            return false;
        };
        self.outcome == ImageOutcome::Served
            && self
                .pull_sources
                .iter()
                .any(|s| s.reference == by && s.role == Role::Source)
    }
}

/// Classifies a probed explanation of `reference` (named `name`).
pub fn check_image(name: &str, item: &Explanation) -> ImageCheck {
    let candidate = item
        .candidates
        .iter()
        .find(|c| matches!(c.served_by, Some(Some(_))))
        .or(item.candidates.first());
    let pull_sources: Vec<PullSource> = candidate
        .map(|c| {
            c.sources
                .iter()
                .filter_map(|s| {
                    let p = s.probe.as_ref()?;
                    Some(PullSource {
                        reference: s.reference.clone(),
                        role: s.role,
                        outcome: p.outcome,
                        digest: p.digest.clone(),
                        detail: p.detail.clone(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let signature = candidate
        .and_then(|c| c.signature_probe.as_ref())
        .map(|p| ImageSignature {
            reference: p.reference.clone(),
            found: p.found,
            verification: p.verification.unwrap_or(if p.found {
                Verification::PresenceOnly
            } else {
                Verification::Missing
            }),
            required_by: Vec::new(),
            detail: String::new(),
        });
    let (outcome, served_by, mut detail) = classify(item, &pull_sources);
    // A pull that fails at every source: the error CRI-O returns for it, so
    // the node's event can be matched. Not when a source did not answer
    // this machine: a node's error for it would be its own.
    let answered = !pull_sources
        .iter()
        .any(|s| matches!(s.outcome, Outcome::Unreachable | Outcome::TimedOut));
    let crio_error = candidate.and_then(|c| c.crio_error.as_deref());
    if let Some(e) = crio_error.filter(|_| served_by.is_none() && answered) {
        detail = format!("{detail}; CRI-O's error: {e}");
    }
    ImageCheck {
        name: name.to_string(),
        reference: item.image.clone(),
        pull_sources,
        served_by,
        outcome,
        signature,
        detail,
    }
}

/// `check` with the verification of its signature: one that no key
/// accepts fails the pull (badSignature); one that could not be read
/// leaves it undetermined.
pub fn with_signature(mut check: ImageCheck, signature: Option<ImageSignature>) -> ImageCheck {
    let Some(sig) = signature else {
        return check;
    };
    if check.outcome == ImageOutcome::Served {
        match sig.verification {
            Verification::Rejected => {
                check.outcome = ImageOutcome::BadSignature;
                check.detail = sig.detail.clone();
            }
            Verification::Undetermined => {
                check.outcome = ImageOutcome::Undetermined;
                check.detail = sig.detail.clone();
            }
            _ => {}
        }
    }
    check.signature = Some(sig);
    check
}

/// The outcome, the serving source and why.
fn classify(item: &Explanation, sources: &[PullSource]) -> (ImageOutcome, Option<String>, String) {
    let served_detail = |by: &str| {
        sources
            .iter()
            .find(|s| s.reference == by)
            .map(|s| s.detail.clone())
            .unwrap_or_default()
    };
    match verdict::verdict(item) {
        // A signature the policy does not accept is the image signature's
        // verdict (`badSignature`), given with it.
        Verdict::Served(by) | Verdict::BadSignature(by) => {
            let d = served_detail(&by);
            return (ImageOutcome::Served, Some(by), d);
        }
        Verdict::Unsigned(by) => {
            return (
                ImageOutcome::Unsigned,
                Some(by.clone()),
                format!("no sigstore signature on {by}, and the policy requires one"),
            )
        }
        Verdict::NoAttachments(by) => {
            let d = served_detail(&by);
            return (ImageOutcome::Unsigned, Some(by), d);
        }
        Verdict::DigestMismatch(by) => {
            let d = served_detail(&by);
            return (ImageOutcome::DigestMismatch, None, format!("{by}: {d}"));
        }
        Verdict::Undetermined(why) => return (ImageOutcome::Undetermined, None, why),
        Verdict::Missing | Verdict::NotProbed => {}
    }
    if let Some(error) = item.error.as_ref().filter(|_| sources.is_empty()) {
        return (ImageOutcome::Refused, None, error.clone());
    }
    (unserved(sources), None, unserved_detail(item, sources))
}

/// The sources that decide an image no source serves, and the source set
/// aside: the image's own registry (not a mirror) when this machine cannot
/// reach it while every mirror that is not blocked answered. The question is
/// whether the cluster's own mirrors serve the update: a mirror that answers
/// "not found" decides, whatever the source would say (a disconnected
/// cluster cannot reach it either). A source that does answer still decides.
fn deciding(sources: &[PullSource]) -> (Vec<&PullSource>, Vec<&PullSource>) {
    let unanswered =
        |s: &&PullSource| matches!(s.outcome, Outcome::Unreachable | Outcome::TimedOut);
    let mirrors: Vec<&PullSource> = sources
        .iter()
        .filter(|s| s.role == Role::Mirror && s.outcome != Outcome::Blocked)
        .collect();
    let set_aside = !mirrors.is_empty()
        && !mirrors.iter().any(unanswered)
        && sources
            .iter()
            .filter(unanswered)
            .all(|s| s.role == Role::Source && s.outcome == Outcome::Unreachable);
    if !set_aside {
        return (sources.iter().collect(), Vec::new());
    }
    sources
        .iter()
        .partition(|s| s.role != Role::Source || s.outcome != Outcome::Unreachable)
}

/// No source serves the image: the worst answer decides. A source that did
/// not answer leaves the image undetermined (it may be there), unless it is
/// the image's own registry and every mirror answered ([`deciding`]).
fn unserved(sources: &[PullSource]) -> ImageOutcome {
    let (sources, _) = deciding(sources);
    let any = |o: Outcome| sources.iter().any(|s| s.outcome == o);
    if any(Outcome::Unreachable) || any(Outcome::TimedOut) {
        ImageOutcome::Undetermined
    } else if any(Outcome::TlsError) {
        ImageOutcome::TlsError
    } else if any(Outcome::Unauthorized) {
        ImageOutcome::Unauthorized
    } else if !sources.is_empty() && sources.iter().all(|s| s.outcome == Outcome::Blocked) {
        ImageOutcome::Blocked
    } else if sources.is_empty() {
        ImageOutcome::Refused
    } else {
        ImageOutcome::Missing
    }
}

fn unserved_detail(item: &Explanation, all: &[PullSource]) -> String {
    let (sources, aside) = deciding(all);
    let decisive = sources.iter().find(|s| {
        matches!(
            s.outcome,
            Outcome::Unreachable | Outcome::TimedOut | Outcome::TlsError | Outcome::Unauthorized
        )
    });
    let detail = match decisive {
        Some(s) => format!("{}: {}", s.reference, s.detail),
        None if sources.iter().all(|s| s.outcome == Outcome::Blocked) => item
            .error
            .clone()
            .unwrap_or_else(|| "every source is blocked".to_string()),
        None if !aside.is_empty() => not_on_mirrors(&sources),
        None => {
            let blocked = sources
                .iter()
                .filter(|s| s.outcome == Outcome::Blocked)
                .count();
            let not_found = sources.len() - blocked;
            match blocked {
                0 => format!("not found on any of the {not_found} source(s)"),
                _ => format!("not found on {not_found} source(s); {blocked} blocked"),
            }
        }
    };
    aside.iter().fold(detail, |d, s| {
        format!(
            "{d}; {}: not reachable from this machine ({})",
            s.reference, s.detail
        )
    })
}

/// The detail of an image every mirror answered for and none serves: each
/// mirror's answer (its "not found" kept as the registry said it).
fn not_on_mirrors(sources: &[&PullSource]) -> String {
    let answers: Vec<String> = sources
        .iter()
        .filter(|s| s.outcome != Outcome::Blocked)
        .map(|s| format!("{}: {}", s.reference, s.detail))
        .collect();
    let blocked = sources.len() - answers.len();
    let blocked = match blocked {
        0 => String::new(),
        n => format!(" ({n} blocked)"),
    };
    format!("not found on any mirror{blocked}: {}", answers.join("; "))
}

/// The counts of the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub images: usize,
    pub served: usize,
    pub missing: usize,
    /// Unsigned, or signed without a signature the policy accepts (badSignature).
    pub unsigned: usize,
    /// Blocked, unauthorized, tlsError, digestMismatch, refused.
    pub failing: usize,
    pub undetermined: usize,
}

/// Counts the outcomes of `images`.
pub fn counts(images: &[ImageCheck]) -> Counts {
    let mut c = Counts {
        images: images.len(),
        ..Counts::default()
    };
    for i in images {
        match i.outcome {
            ImageOutcome::Served => c.served += 1,
            ImageOutcome::Missing => c.missing += 1,
            ImageOutcome::Unsigned | ImageOutcome::BadSignature => c.unsigned += 1,
            ImageOutcome::Undetermined => c.undetermined += 1,
            _ => c.failing += 1,
        }
    }
    c
}

/// The release checked.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// The version: `--to`, else the payload's own.
    pub version: Option<String>,
    /// The payload pull spec asked for.
    pub image: String,
    /// The digest of the manifest served for it (an index's when multi-arch).
    pub digest: Option<String>,
    /// The architecture read from an index, when the payload is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub architecture: Option<String>,
    pub served_by: Option<String>,
    pub outcome: ImageOutcome,
    /// The payload's sigstore signature, when a policy requires one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<ImageSignature>,
    /// Where `--to` found the version: availableUpdates or conditionalUpdates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listed_in: Option<String>,
    /// The conditional update's risks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub risks: Vec<Risk>,
    /// The conditional update's `Recommended` status and reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended: Option<String>,
    /// What `oc adm upgrade --to` answers when it refuses the update without
    /// `--allow-not-recommended` (a conditional update not recommended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oc_refusal: Option<String>,
    /// How `oc adm upgrade` names it: `--to VERSION` or `--to-image IMAGE`.
    #[serde(skip)]
    pub oc_target: Option<String>,
    pub detail: String,
}

/// Whether the update is ready, not ready, or could not be decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Readiness {
    Ready,
    NotReady,
    Undetermined,
}

impl Readiness {
    /// The name JSON gives it (`ready`, `notReady`, `undetermined`).
    pub fn as_str(self) -> &'static str {
        match self {
            Readiness::Ready => "ready",
            Readiness::NotReady => "notReady",
            Readiness::Undetermined => "undetermined",
        }
    }
}

/// What to do about one class of failures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextStep {
    /// The image outcome, or the check (`openpgp`, `gates`).
    pub outcome: String,
    /// What to do, in one sentence.
    pub step: String,
    /// Commands that would fix it, one per image where one applies.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
}

/// The whole answer of `upgrade-check`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub target: Target,
    pub summary: Counts,
    pub images: Vec<ImageCheck>,
    pub next_steps: Vec<NextStep>,
    pub signatures: Signatures,
    /// The administrator gates of the update (`admin-gates`).
    pub gates: Vec<checks::Gate>,
    /// The target's MCO refusing the configuration once the release's
    /// policies are applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mco_refusal: Option<McoRefusal>,
    pub readiness: Readiness,
    pub ready: bool,
}

impl Report {
    /// The counts `-o summary` gives of one cluster's check: every count of
    /// [`Report::summary`], in its order and named as its JSON names them.
    pub fn summary_counts(&self) -> Vec<(&'static str, usize)> {
        // Taken apart whole, so that a count added to `Counts` is a
        // compile error here until the summary shows it too.
        let Counts {
            images,
            served,
            missing,
            unsigned,
            failing,
            undetermined,
        } = self.summary;
        vec![
            ("images", images),
            ("served", served),
            ("missing", missing),
            ("unsigned", unsigned),
            ("failing", failing),
            ("undetermined", undetermined),
        ]
    }
}

/// The signatures the update needs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Signatures {
    /// The release's OpenPGP signature, as the CVO looks for it.
    pub openpgp: Option<checks::OpenPgp>,
    /// The sigstore signatures CRI-O will require once the update is done.
    pub sigstore: Option<Sigstore>,
}

/// The sigstore signatures the policies require, counted over the payload
/// and the components.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sigstore {
    /// The signature policies the target release brings.
    pub release_policies: Vec<release_policy::ReleasePolicy>,
    /// Images a policy requires a signature for.
    pub required: usize,
    pub verified: usize,
    /// Present; the policy's trust is not a key this tool verifies with.
    pub presence_only: usize,
    pub missing: usize,
    pub rejected: usize,
    pub undetermined: usize,
}

/// Counts the signatures of the payload and the components.
pub fn sigstore_summary(
    release_policies: Vec<release_policy::ReleasePolicy>,
    target: &Target,
    images: &[ImageCheck],
) -> Sigstore {
    let mut s = Sigstore {
        release_policies,
        ..Sigstore::default()
    };
    let all = target
        .signature
        .iter()
        .chain(images.iter().filter_map(|i| i.signature.as_ref()));
    for sig in all {
        s.required += 1;
        match sig.verification {
            Verification::Verified => s.verified += 1,
            Verification::PresenceOnly => s.presence_only += 1,
            Verification::Missing => s.missing += 1,
            Verification::Rejected => s.rejected += 1,
            Verification::Undetermined => s.undetermined += 1,
        }
    }
    s
}

/// `report` with the CVO's own checks: the OpenPGP signature and the
/// gates; a missing signature or an unacknowledged gate makes it not ready.
pub fn with_checks(
    mut report: Report,
    openpgp: checks::OpenPgp,
    gates: Vec<checks::Gate>,
) -> Report {
    if openpgp.outcome.fails() {
        report.next_steps.push(NextStep {
            outcome: "openpgp".to_string(),
            step: openpgp_step(openpgp.outcome),
            commands: Vec::new(),
        });
    }
    let failing: Vec<&checks::Gate> = gates.iter().filter(|g| g.outcome.fails()).collect();
    if !failing.is_empty() {
        report.next_steps.push(NextStep {
            outcome: "gates".to_string(),
            step: "once the gate's conditions are met (read its message), acknowledge it in openshift-config/admin-acks:".to_string(),
            commands: failing
                .iter()
                .filter(|g| g.outcome == checks::CheckOutcome::NotAcked)
                .map(|g| format!("oc -n openshift-config patch cm admin-acks --patch '{{\"data\":{{\"{}\":\"true\"}}}}' --type=merge", g.name))
                .collect(),
        });
    }
    if (openpgp.outcome.fails() || !failing.is_empty()) && report.readiness != Readiness::NotReady {
        report.readiness = Readiness::NotReady;
        report.ready = false;
    }
    report.signatures.openpgp = Some(openpgp);
    report.gates = gates;
    report
}

/// The MCO of the target release refusing to render the cluster's
/// configuration once the release's signature policies are applied: its
/// container-runtime-config controller fails the sync and keeps the previous
/// MachineConfig, so the nodes keep today's registries.conf and policy.json
/// and the release's policy never reaches them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McoRefusal {
    /// The objects the refusal names (the release's policy).
    pub objects: Vec<String>,
    /// The policy scope refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The Image config entries at fault: the `blockedRegistries` entries
    /// the scope is nested inside, or the `allowedRegistries` it is outside.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
    /// The MCO's words.
    pub message: String,
    /// What it means for the update.
    pub detail: String,
    /// What to change before the update.
    pub fix: String,
}

/// The [`McoRefusal`] of `error`, the target's render of `after` (the
/// cluster's objects with the release's policies applied).
pub fn mco_refusal(error: &crate::render::findings::RenderError, after: &Inputs) -> McoRefusal {
    use crate::render::findings::RenderError;
    use crate::render::scope::scope_is_nested_inside_scope;
    let sources = after.image.as_ref().map(|i| &i.spec.registry_sources);
    let list = |l: Option<&Vec<String>>| l.cloned().unwrap_or_default();
    let objects: Vec<String> = error.objects().iter().map(|o| o.to_string()).collect();
    let names = if objects.is_empty() {
        "the release's policies".to_string()
    } else {
        objects.join(", ")
    };
    let (scope, entries, fix) = match error {
        RenderError::NestedInBlocked { scope, .. } => {
            let blocked = list(sources.and_then(|s| s.blocked_registries.as_ref()));
            let entries: Vec<String> = blocked
                .into_iter()
                .filter(|b| scope_is_nested_inside_scope(scope, b))
                .collect();
            let fix = format!(
                "before the update, remove {} from Image/cluster spec.registrySources.blockedRegistries (or block only narrower scopes that do not hold {scope}); to keep the nodes off the source registry, give the ImageDigestMirrorSet entries of the release's repositories `mirrorSourcePolicy: NeverContactSource` instead",
                quoted(&entries)
            );
            (Some(scope.clone()), entries, fix)
        }
        RenderError::NotNestedInAllowed { scope, .. } => {
            let allowed = list(sources.and_then(|s| s.allowed_registries.as_ref()));
            let fix = format!(
                "before the update, add {scope} (or a registry that holds it) to Image/cluster spec.registrySources.allowedRegistries"
            );
            (Some(scope.clone()), allowed, fix)
        }
        _ => (
            None,
            Vec::new(),
            "before the update, change the objects the message names so that the target's MCO renders them".to_string(),
        ),
    };
    McoRefusal {
        objects,
        scope,
        entries,
        message: error.to_string(),
        detail: format!("the MCO of the target release refuses to render the configuration once {names} (applied by the cluster-version operator during the update) is in the cluster: it keeps the previous MachineConfig, so the nodes keep today's registries.conf and policy.json (the images are checked against them) and the release's signature policy never reaches them"),
        fix,
    }
}

fn quoted(entries: &[String]) -> String {
    let q: Vec<String> = entries.iter().map(|e| format!("\"{e}\"")).collect();
    q.join(", ")
}

/// `report` with the target's MCO refusing the configuration after the
/// update: not ready, with the fix as a next step.
pub fn with_mco_refusal(mut report: Report, refusal: McoRefusal) -> Report {
    report.next_steps.insert(
        0,
        NextStep {
            outcome: "mcoRefusal".to_string(),
            step: refusal.fix.clone(),
            commands: Vec::new(),
        },
    );
    report.readiness = Readiness::NotReady;
    report.ready = false;
    report.mco_refusal = Some(refusal);
    report
}

/// What to do about the OpenPGP signature, by what became of it.
fn openpgp_step(outcome: checks::CheckOutcome) -> String {
    const APPLY: &str = "apply the signature ConfigMap oc-mirror writes (cluster-resources/signature-configmap.json; oc-mirror v1: release-signatures/), or one from `oc adm release mirror --release-image-signature-to-dir`";
    match outcome {
        checks::CheckOutcome::Rejected => format!("the signatures in the cluster are not the release's signature by the cluster's keys (see signatures.openpgp.signatures): {APPLY}, for this release digest, from the release's own signature store"),
        checks::CheckOutcome::Invalid => format!("the CVO cannot verify any release with ConfigMap {}/{}: restore its verifier-public-key-* keys as the running release ships them", checks::CONFIG_MANAGED, checks::VERIFICATION),
        _ => format!("give the cluster the release's OpenPGP signature: {APPLY}"),
    }
}

/// The report of `target` and its component `images`.
pub fn report(target: Target, images: Vec<ImageCheck>) -> Report {
    let summary = counts(&images);
    let all = std::iter::once(target.outcome).chain(images.iter().map(|i| i.outcome));
    let outcomes: Vec<ImageOutcome> = all.collect();
    let readiness = if outcomes.iter().any(|o| o.fails()) {
        Readiness::NotReady
    } else if outcomes.contains(&ImageOutcome::Undetermined) {
        Readiness::Undetermined
    } else {
        Readiness::Ready
    };
    let mut next_steps = next_steps(&target, &images);
    if let (Some(refusal), Some(to)) = (&target.oc_refusal, &target.oc_target) {
        next_steps.push(NextStep {
            outcome: "notRecommended".to_string(),
            step: format!("`oc adm upgrade {to}` refuses it: \"{refusal}\" Read the risks above, and accept them only if they do not apply to this cluster:"),
            commands: vec![format!("oc adm upgrade {to} --allow-not-recommended")],
        });
    }
    Report {
        target,
        summary,
        images,
        next_steps,
        signatures: Signatures {
            openpgp: None,
            sigstore: None,
        },
        gates: Vec::new(),
        mco_refusal: None,
        ready: readiness == Readiness::Ready,
        readiness,
    }
}

/// Where a copy of an image no source served belongs
/// ([`crate::verdict::copy_target`]): the first mirror that answered "not
/// found".
pub fn copy_target(i: &ImageCheck) -> Option<crate::verdict::CopyTarget<'_>> {
    crate::verdict::copy_target(
        i.pull_sources
            .iter()
            .map(|s| (s.reference.as_str(), s.role, s.outcome)),
    )
}

/// Where a copy of `i` makes its pull work ([`copy_target`]): for an image
/// no source served (`missing`), and for one a mirror refused
/// (`unauthorized`, `tlsError`) before a later one answered "not found",
/// as containers/image goes past the refusal to that mirror.
pub fn copy_fix(i: &ImageCheck) -> Option<crate::verdict::CopyTarget<'_>> {
    let fixes = matches!(
        i.outcome,
        ImageOutcome::Missing | ImageOutcome::Unauthorized | ImageOutcome::TlsError
    );
    copy_target(i).filter(|_| fixes)
}

/// The words and `skopeo copy` lines of the copies that fix `images`
/// ([`copy_fix`]), each pulled by its `puller`: where they go
/// ([`crate::verdict::copies_go_to`]) and one line per image; `None` when
/// no copy fixes any of them.
pub fn copy_lines<'a>(
    images: impl IntoIterator<Item = (&'a str, &'a ImageCheck)>,
) -> Option<(String, Vec<String>)> {
    let mut targets = Vec::new();
    let mut commands = Vec::new();
    for (puller, i) in images {
        let Some(t) = copy_fix(i) else { continue };
        commands.push(crate::verdict::skopeo_copy(&i.reference, t.mirror));
        targets.push((puller, t));
    }
    (!commands.is_empty()).then(|| (crate::verdict::copies_go_to(&targets), commands))
}

/// How the copies past a refusing mirror follow the refusal's own fix.
const REFUSED_OR: &str = "; or copy each image";

/// `step`, and when copies fix some of `images` ([`copy_lines`]), `or`
/// ("; or copy each image") to where they go, with their lines.
fn or_copy(step: &str, or: &str, images: &[&ImageCheck]) -> (String, Vec<String>) {
    match copy_lines(images.iter().map(|i| ("CRI-O", *i))) {
        Some((to, copies)) => (format!("{step}{or} to {to}:"), copies),
        None => (step.to_string(), Vec::new()),
    }
}

/// The `.sig` tag of an image at its source, and where it belongs.
fn signature_copy(i: &ImageCheck) -> Option<(String, String)> {
    let sig = i.signature.as_ref()?;
    let tag = sig.reference.rsplit_once(':')?.1;
    let (repo, _) = i.reference.split_once('@')?;
    Some((format!("{repo}:{tag}"), sig.reference.clone()))
}

/// One next step per failure class, in outcome order.
fn next_steps(target: &Target, images: &[ImageCheck]) -> Vec<NextStep> {
    let mut classes: Vec<ImageOutcome> = images
        .iter()
        .map(|i| i.outcome)
        .chain([target.outcome])
        .filter(|o| *o != ImageOutcome::Served)
        .collect();
    classes.sort();
    classes.dedup();
    classes
        .into_iter()
        .map(|outcome| {
            let of_class: Vec<&ImageCheck> =
                images.iter().filter(|i| i.outcome == outcome).collect();
            step_for(outcome, &of_class)
        })
        .collect()
}

fn step_for(outcome: ImageOutcome, images: &[&ImageCheck]) -> NextStep {
    let copy = |suffix: &dyn Fn(&ImageCheck) -> Option<(String, String)>| -> Vec<String> {
        images
            .iter()
            .filter_map(|i| suffix(i))
            .map(|(from, to)| crate::verdict::skopeo_copy(&from, &to))
            .collect()
    };
    let (step, commands) = match outcome {
        ImageOutcome::Missing => or_copy("mirror the release again with oc-mirror (the target version in the ImageSetConfiguration's mirror.platform.channels)", ", or copy each missing image", images),
        ImageOutcome::Unsigned => (
            "mirror the `.sig` tags (sigstore signatures) next to the images on the registry that serves them:".to_string(),
            copy(&signature_copy),
        ),
        ImageOutcome::BadSignature => (
            "the `.sig` tags on the registry that serves these images hold no signature the policy's key accepts: copy them again from the source (and check the policy's key):".to_string(),
            copy(&signature_copy),
        ),
        ImageOutcome::Blocked => ("every source of these images is blocked: add a mirror for their repositories (ImageDigestMirrorSet) or unblock one (Image config registrySources.blockedRegistries)".to_string(), Vec::new()),
        ImageOutcome::Unauthorized => or_copy("give the cluster's pull secret (openshift-config/pull-secret) credentials that the registry accepts for these repositories", REFUSED_OR, images),
        ImageOutcome::TlsError => or_copy("trust the registry's CA: a ConfigMap in openshift-config with a key host..port, named by Image config spec.additionalTrustedCA (with -f, give that ConfigMap among the files, or pass --cert-dir)", REFUSED_OR, images),
        ImageOutcome::DigestMismatch => ("the registry serves another manifest under the digest the release names: copy the image again preserving digests (skopeo copy --all --preserve-digests)".to_string(), Vec::new()),
        ImageOutcome::Refused => ("the release names a reference the cluster cannot pull as written: see the detail".to_string(), Vec::new()),
        ImageOutcome::MissingArchitecture => ("use the payload built for the control plane's architecture: each release is published per architecture (ocp-release:<version>-x86_64, -aarch64, -ppc64le, -s390x) and as a multi-architecture payload (<version>-multi); `oc adm upgrade --to-multi-arch` moves a cluster to the multi payload of its version".to_string(), Vec::new()),
        ImageOutcome::Undetermined => ("a registry did not answer from this machine: run again where the mirror registry is reachable, or with a longer --probe-timeout".to_string(), Vec::new()),
        ImageOutcome::Served => (String::new(), Vec::new()),
    };
    NextStep {
        outcome: outcome.as_str().to_string(),
        step,
        commands,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, outcome: ImageOutcome) -> ImageCheck {
        ImageCheck {
            name: name.to_string(),
            reference: format!("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:{name}"),
            pull_sources: Vec::new(),
            served_by: None,
            outcome,
            signature: None,
            detail: String::new(),
        }
    }

    fn source(reference: &str, role: Role, outcome: Outcome, detail: &str) -> PullSource {
        PullSource {
            reference: reference.to_string(),
            role,
            outcome,
            digest: None,
            detail: detail.to_string(),
        }
    }

    /// `Readiness::as_str` says what the JSON says.
    #[test]
    fn readiness_as_str_is_its_json_name() {
        for r in [
            Readiness::Ready,
            Readiness::NotReady,
            Readiness::Undetermined,
        ] {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }

    /// Issue 37: an image every mirror answered "not found" for is missing
    /// even when its own registry is not reachable from here (oc-mirror v2's
    /// ImageDigestMirrorSet leaves the source contacted); a mirror that did
    /// not answer, or a source that timed out, leaves it undetermined.
    #[test]
    fn issue_37_missing_on_every_mirror_with_the_source_unreachable() {
        use Outcome::*;
        let item = Explanation {
            image: "quay.io/r/etcd@sha256:aa".to_string(),
            namespace: None,
            short_name_mode: crate::registries::ShortNameMode::Enforcing,
            candidates: Vec::new(),
            warnings: Vec::new(),
            error: None,
            undetermined: false,
            journal: None,
        };
        let m = |o, d| source("m.example/r/etcd@sha256:aa", Role::Mirror, o, d);
        let m2 = |o| source("m2.example/r/etcd@sha256:aa", Role::Mirror, o, "");
        let s = |o, d| source("quay.io/r/etcd@sha256:aa", Role::Source, o, d);
        let unknown = "manifest unknown";
        let dns = "no such host";
        let cases = [
            (
                vec![m(NotFound, unknown), s(Unreachable, dns)],
                ImageOutcome::Missing,
            ),
            (
                vec![m(NotFound, unknown), m2(Blocked), s(Unreachable, dns)],
                ImageOutcome::Missing,
            ),
            (
                vec![m(TlsError, "x509"), s(Unreachable, dns)],
                ImageOutcome::TlsError,
            ),
            (
                vec![m(NotFound, unknown), m2(Unreachable), s(Unreachable, dns)],
                ImageOutcome::Undetermined,
            ),
            (
                vec![m(NotFound, unknown), s(TimedOut, "")],
                ImageOutcome::Undetermined,
            ),
            (
                vec![m(Blocked, ""), s(Unreachable, dns)],
                ImageOutcome::Undetermined,
            ),
            (vec![s(Unreachable, dns)], ImageOutcome::Undetermined),
            (
                vec![m(NotFound, unknown), s(NotFound, unknown)],
                ImageOutcome::Missing,
            ),
        ];
        for (sources, want) in cases {
            let outcomes: Vec<Outcome> = sources.iter().map(|s| s.outcome).collect();
            assert_eq!(unserved(&sources), want, "{outcomes:?}");
        }
        assert_eq!(
            unserved_detail(&item, &[m(NotFound, unknown), m2(Blocked), s(Unreachable, dns)]),
            "not found on any mirror (1 blocked): m.example/r/etcd@sha256:aa: manifest unknown; quay.io/r/etcd@sha256:aa: not reachable from this machine (no such host)"
        );
        assert_eq!(
            unserved_detail(&item, &[m(NotFound, unknown), s(NotFound, unknown)]),
            "not found on any of the 2 source(s)"
        );
    }

    /// Issue 26: `-o summary` counts the typed report: each count of its
    /// `summary`, named and ordered as the JSON has them.
    #[test]
    fn issue_26_summary_counts_are_the_reports_summary() {
        use ImageOutcome::*;
        let target = Target {
            version: Some("4.99.0".to_string()),
            image: "quay.io/openshift-release-dev/ocp-release:4.99.0".to_string(),
            digest: None,
            architecture: None,
            served_by: None,
            outcome: Served,
            signature: None,
            listed_in: None,
            risks: Vec::new(),
            recommended: None,
            oc_refusal: None,
            oc_target: None,
            detail: String::new(),
        };
        let images = [
            Served,
            Served,
            Served,
            Missing,
            Unsigned,
            BadSignature,
            Blocked,
            TlsError,
            Undetermined,
        ];
        let images = images
            .iter()
            .enumerate()
            .map(|(i, o)| check(&format!("c{i}"), *o))
            .collect();
        let report = report(target, images);
        assert_eq!(
            report.summary_counts(),
            [
                ("images", 9),
                ("served", 3),
                ("missing", 1),
                ("unsigned", 2),
                ("failing", 2),
                ("undetermined", 1),
            ]
        );
        let json = serde_json::to_value(&report).unwrap();
        let summary: Vec<(&str, usize)> = json["summary"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_u64().unwrap() as usize))
            .collect();
        assert_eq!(report.summary_counts(), summary, "the JSON's summary");
    }
}
