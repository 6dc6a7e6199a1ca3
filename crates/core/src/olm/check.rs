//! The verdict of `operator-check` for one Subscription: the catalog as
//! pulled, the update path, and what each hop pulls, with the probe's
//! outcome for every image ([`crate::upgrade::ImageCheck`], as
//! `upgrade-check` gives it). Ready (`atHead`, `pathServed`), not ready
//! (the resolver's reasons, `catalogNotServed`, `imagesNotServed`), or
//! undetermined; and the next steps that fix what is not ready.
//!
//! The probing is the caller's; the classes decided before probing
//! ([`image_class`]) and the verdict are here.

use serde::Serialize;

use super::catalog::CsvSource;
use super::resolve::{Edge, End, Stop};
use super::servable::Refusal;
use crate::explain::Explanation;
use crate::registries::lookup::Role;
use crate::upgrade::{ImageCheck, ImageOutcome, NextStep, Readiness};

/// What an image of a hop is to the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ImageRole {
    /// The bundle image, pulled by the unpack Job.
    Bundle,
    /// An image of the CSV's deployments.
    Operator,
    /// A `relatedImages` entry.
    Related,
    /// An image of a bundle OLM installs with the hop's to satisfy its
    /// `olm.package.required`/`olm.gvk.required` (`name` is the
    /// dependency's CSV, then `/operator` or `/<relatedImage name>`).
    Dependency,
}

/// A bundle OLM installs with the hop's bundle, or an operator installed
/// in the namespace that satisfies a requirement instead
/// ([`crate::olm::deps`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DependencyBundle {
    /// The dependency's CSV.
    pub name: String,
    pub package: String,
    /// `namespace/name` of the CatalogSource it comes from: the
    /// Subscription's, or another the namespace sees; absent for an
    /// installed operator (and for a catalog image checked by itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
    /// Where its deployment images were read (as the hop's `csvSource`);
    /// `none` for an installed operator.
    pub csv_source: CsvSource,
    /// `installed CSV NAME` when an operator installed in the namespace
    /// satisfies the requirement: OLM keeps it, installs no bundle for it,
    /// and nothing of it is probed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub satisfied_by: Option<String>,
}

/// How an image is referenced, decided before probing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ImageClass {
    Digest,
    /// By tag, with mirrors that serve tags (or none at all).
    TagReference,
    /// By tag where every mirror for it is digest-only: CRI-O goes to the
    /// source, which a disconnected cluster cannot reach.
    TagSkipsDigestMirrors,
    /// A relatedImage with an empty `image`.
    EmptyReference,
    /// With `--require-mirror`: served only by its own registry, which a
    /// disconnected cluster cannot reach (decided after probing).
    NotMirrored,
}

/// `--require-mirror`: an image the probe found served by its own
/// registry, not a mirror, becomes [`ImageClass::NotMirrored`].
pub fn require_mirror(image: &mut HopImage) {
    if image.check.as_ref().is_some_and(|c| c.served_by_source()) {
        image.class = ImageClass::NotMirrored;
    }
}

/// The class of a probed or unprobed explanation of a non-empty reference.
pub fn image_class(item: &Explanation) -> ImageClass {
    let Some(c) = item.candidates.first() else {
        return ImageClass::TagReference;
    };
    if c.by_digest {
        return ImageClass::Digest;
    }
    let mirrors_used = c.sources.iter().any(|s| s.role == Role::Mirror);
    if c.registry.is_some() && !c.skipped.is_empty() && !mirrors_used {
        ImageClass::TagSkipsDigestMirrors
    } else {
        ImageClass::TagReference
    }
}

/// One image of a hop.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HopImage {
    pub role: ImageRole,
    /// The relatedImage's or container's name (empty for the bundle).
    pub name: String,
    pub reference: String,
    pub class: ImageClass,
    /// Whether the image decides the verdict: the bundle and operator
    /// images of every hop, the relatedImages of the last hop (of every
    /// hop with `--operands`).
    pub counted: bool,
    /// Whether OLM's bundle unpack Job pulls it, in the catalog's
    /// namespace: the hop's bundle image, and a dependency's own bundle
    /// image (set where the image is added; its role alone does not tell a
    /// dependency's bundle from its other images).
    #[serde(skip)]
    pub unpacked: bool,
    /// The probe's answer (absent for an empty reference).
    pub check: Option<ImageCheck>,
}

impl HopImage {
    /// Whether the image stops the update (counted, and failing or a tag
    /// that skips every digest-only mirror).
    pub fn fails(&self) -> bool {
        self.counted
            && (matches!(
                self.class,
                ImageClass::TagSkipsDigestMirrors | ImageClass::NotMirrored
            ) || self.check.as_ref().is_some_and(|c| c.outcome.fails()))
    }

    fn undetermined(&self) -> bool {
        self.counted
            && self
                .check
                .as_ref()
                .is_some_and(|c| c.outcome == ImageOutcome::Undetermined)
    }
}

/// One hop of the update and what it pulls.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HopCheck {
    pub from: Option<String>,
    pub to: String,
    pub edge: Edge,
    /// `Manual` when the Subscription's installPlanApproval waits for an approval at each hop.
    pub approval: String,
    /// Where the CSV's deployments were read: `bundleObject` (the
    /// catalog), `bundleImage` (the bundle image's manifests folder), or
    /// `csvMetadata`/`none` (not read: `deploymentImagesUnknown` says why).
    pub csv_source: CsvSource,
    /// Why the CSV's deployment images are not known, when they are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment_images_unknown: Option<String>,
    /// The bundles OLM installs with this one, dependencies of dependencies included.
    pub dependencies: Vec<DependencyBundle>,
    pub images: Vec<HopImage>,
}

/// One pull secret a CatalogSource names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PullSecretNote {
    pub name: String,
    /// Whether it was read: its credentials are looked up before the
    /// global pull secret's, as the kubelet puts a pod's secrets first.
    pub read: bool,
    pub message: String,
}

/// The catalog image as CRI-O on the registry pod's node pulls it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogCheck {
    /// `namespace/name` of the CatalogSource, when one was read.
    pub source: Option<String>,
    /// The MachineConfigPool whose nodes run its registry pod, whose
    /// configuration the image is explained with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Why that pool (its nodeSelector, the nodes it selects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool_reason: Option<String>,
    /// The pull secrets the CatalogSource names (`spec.secrets`), and
    /// whether each was read for the catalog image's probe.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pull_secrets: Vec<PullSecretNote>,
    pub image: String,
    /// The manifest digest of what was read.
    pub digest: Option<String>,
    pub check: Option<ImageCheck>,
    /// Why the catalog could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<String>,
    /// Why the registry pod's `opm serve` cannot serve the catalog that was
    /// read ([`crate::olm::servable`]): OLM v0 lists none of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refusal>,
}

/// The kind of object checked: an OLM v0 `Subscription`, or an OLM v1
/// `ClusterExtension` (cluster-scoped: no namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CheckedKind {
    Subscription,
    ClusterExtension,
}

/// Who pulls an image of `kind`'s operator in `role` (`None`: the catalog
/// image): OLM v0's catalog registry pod, bundle unpack Job and operator
/// pods, and OLM v1's operator pods, are pulled by CRI-O on their node;
/// OLM v1's catalog image by catalogd and its bundle images by
/// operator-controller, each with containers/image on a control-plane
/// node (operator-controller `internal/shared/util/image`).
pub fn puller(kind: CheckedKind, role: Option<ImageRole>) -> &'static str {
    match (kind, role) {
        (CheckedKind::ClusterExtension, None) => "catalogd",
        (CheckedKind::ClusterExtension, Some(ImageRole::Bundle)) => "operator-controller",
        _ => "CRI-O",
    }
}

/// Which component pulls what for an OLM v1 ClusterExtension, as
/// [`puller`] says: `catalog`, the catalog image (catalogd, with
/// containers/image, on a control-plane node); `bundle`, the bundle image
/// (operator-controller, likewise); `images`, the operator's and related
/// images (CRI-O on the workers). It holds nothing: its JSON is written
/// from [`puller`], the one rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct PulledBy;

impl Serialize for PulledBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let v1 = CheckedKind::ClusterExtension;
        let mut fields = s.serialize_struct("PulledBy", 3)?;
        fields.serialize_field("catalog", puller(v1, None))?;
        fields.serialize_field("bundle", puller(v1, Some(ImageRole::Bundle)))?;
        fields.serialize_field("images", puller(v1, Some(ImageRole::Operator)))?;
        fields.end()
    }
}

/// One ClusterCatalog an OLM v1 ClusterExtension resolves over.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionCatalog {
    pub name: String,
    pub priority: i32,
    /// `spec.source.image.ref`: what catalogd pulls.
    pub image: Option<String>,
    /// `status.resolvedSource.image.ref`: the digest catalogd last unpacked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_image: Option<String>,
    /// Whether the catalog holds the package.
    pub has_package: bool,
    pub check: Option<ImageCheck>,
}

/// What an OLM v1 ClusterExtension asks, on top of the common fields.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionCheck {
    /// `spec.namespace`: where the operator runs (and whose image policy its images follow).
    pub install_namespace: String,
    /// `spec.source.catalog.version`: a Masterminds constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub channels: Vec<String>,
    /// `CatalogProvided` or `SelfCertified`.
    pub upgrade_constraint_policy: &'static str,
    /// `status.install.bundle.version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_version: Option<String>,
    /// The ClusterCatalogs the selector picks (not `Unavailable`), in name order.
    pub catalogs: Vec<ExtensionCatalog>,
    pub pulled_by: PulledBy,
}

/// The verdict of one Subscription (or OLM v1 ClusterExtension).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionCheck {
    pub kind: CheckedKind,
    pub namespace: String,
    pub name: String,
    pub package: String,
    pub channel: Option<String>,
    #[serde(rename = "installedCSV")]
    pub installed_csv: Option<String>,
    #[serde(rename = "startingCSV")]
    pub starting_csv: Option<String>,
    /// The pending InstallPlan that decides hop 1, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install_plan: Option<super::plan::PlanCheck>,
    /// An OLM v1 ClusterExtension's own fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extension: Option<ExtensionCheck>,
    pub catalog: CatalogCheck,
    pub head: Option<String>,
    pub end: Option<End>,
    pub hops: Vec<HopCheck>,
    pub readiness: Readiness,
    pub reason: String,
    pub message: String,
    pub next_steps: Vec<NextStep>,
    pub ready: bool,
}

/// The resolver's answer: the head, how the walk ended and the hops; or why OLM stops.
pub type Resolved = Result<(String, End, Vec<HopCheck>), Stop>;

/// What the resolver and the probes gave, before the verdict (no path
/// when the catalog was not read).
pub struct Found {
    pub catalog: CatalogCheck,
    pub path: Option<Resolved>,
    /// The pending InstallPlan that decided hop 1.
    pub plan: Option<super::plan::PlanCheck>,
    /// An OLM v1 ClusterExtension's own fields.
    pub extension: Option<ExtensionCheck>,
}

/// The verdict of `sub` from what was found: `notReady` > `undetermined` > `ready`.
pub fn verdict(mut sub: SubscriptionCheck, found: Found) -> SubscriptionCheck {
    sub.catalog = found.catalog;
    sub.install_plan = found.plan;
    sub.extension = found.extension;
    let (readiness, reason, message) = decide(&mut sub, found.path);
    sub.next_steps = next_steps(&sub, &reason);
    sub.ready = readiness == Readiness::Ready;
    sub.readiness = readiness;
    sub.reason = reason;
    sub.message = message;
    sub
}

/// `catalogNotServed`: the catalog image is not pulled, or (OLM v0) the
/// registry pod's opm cannot serve the catalog read.
fn catalog_not_served(sub: &SubscriptionCheck) -> Option<(Readiness, String, String)> {
    let catalog = &sub.catalog;
    let why = if let Some(c) = catalog.check.as_ref().filter(|c| c.outcome.fails()) {
        format!(
            "the catalog image {} is not served: {}",
            catalog.image, c.detail
        )
    } else {
        let r = catalog
            .refused
            .as_ref()
            .filter(|_| sub.kind == CheckedKind::Subscription)?;
        format!(
            "the registry pod's opm cannot serve the catalog: {}",
            refusal_words(r)
        )
    };
    Some((Readiness::NotReady, "catalogNotServed".into(), why))
}

fn decide(sub: &mut SubscriptionCheck, path: Option<Resolved>) -> (Readiness, String, String) {
    if let Some(not_served) = catalog_not_served(sub) {
        return not_served;
    }
    let catalog = &sub.catalog;
    let path = match path {
        None => {
            let why = catalog.undetermined.clone().unwrap_or_default();
            return (Readiness::Undetermined, "catalogUndetermined".into(), why);
        }
        Some(Err(stop)) => {
            return (
                Readiness::NotReady,
                stop.reason().into(),
                stop.message().into(),
            )
        }
        Some(Ok(p)) => p,
    };
    let (head, end, hops) = path;
    sub.head = Some(head);
    sub.end = Some(end);
    sub.hops = hops;
    for (i, hop) in sub.hops.iter().enumerate() {
        let failing: Vec<&HopImage> = hop.images.iter().filter(|m| m.fails()).collect();
        if !failing.is_empty() {
            let named: Vec<String> = failing.iter().map(|m| describe(m)).collect();
            let why = format!(
                "hop {} ({} -> {}) cannot be pulled: {}",
                i + 1,
                hop.from.as_deref().unwrap_or("install"),
                hop.to,
                named.join("; ")
            );
            return (Readiness::NotReady, "imagesNotServed".into(), why);
        }
    }
    let unread = unread_deployments(&sub.hops);
    if let Some(why) = unread {
        return (
            Readiness::Undetermined,
            "deploymentImagesUnknown".into(),
            why,
        );
    }
    let unknown: Vec<String> = sub
        .hops
        .iter()
        .flat_map(|h| &h.images)
        .filter(|m| m.undetermined())
        .map(|m| m.reference.clone())
        .collect();
    if !unknown.is_empty() {
        let why = format!("no registry answered for {}", unknown.join(", "));
        return (Readiness::Undetermined, "imagesUndetermined".into(), why);
    }
    if sub.hops.is_empty() {
        let at = sub.installed_csv.clone().unwrap_or_default();
        let why = match sub.kind {
            CheckedKind::Subscription => format!("{at} is the channel head"),
            CheckedKind::ClusterExtension => {
                format!(
                    "{at} is the bundle OLM v1 resolves: no selected catalog offers a successor"
                )
            }
        };
        return (Readiness::Ready, "atHead".into(), why);
    }
    let last = &sub.hops[sub.hops.len() - 1].to;
    let why = format!("{} hops to {last}, every image served", sub.hops.len());
    (Readiness::Ready, "pathServed".into(), why)
}

/// The first hop whose bundle was served and whose CSV could not be read:
/// its operator images may be missing, so the path is not known to be served.
fn unread_deployments(hops: &[HopCheck]) -> Option<String> {
    hops.iter().enumerate().find_map(|(i, h)| {
        let bundle_served = h.images.iter().any(|m| {
            m.role == ImageRole::Bundle
                && m.check
                    .as_ref()
                    .is_some_and(|c| c.outcome == ImageOutcome::Served)
        });
        let why = h.deployment_images_unknown.as_ref()?;
        bundle_served.then(|| {
            format!(
                "the deployment images of hop {} ({}) are unknown: {why}",
                i + 1,
                h.to
            )
        })
    })
}

fn describe(m: &HopImage) -> String {
    let role = match m.role {
        ImageRole::Bundle => "bundle",
        ImageRole::Operator => "operator image",
        ImageRole::Related => "related image",
        ImageRole::Dependency => "dependency image",
    };
    let what = match (&m.check, m.class) {
        (_, ImageClass::TagSkipsDigestMirrors) => "tagSkipsDigestMirrors".to_string(),
        (Some(c), ImageClass::NotMirrored) => format!(
            "notMirrored (served only by {})",
            c.served_by.as_deref().unwrap_or_default()
        ),
        (Some(c), _) => c.outcome.as_str().to_string(),
        (None, _) => "unprobed".to_string(),
    };
    format!("{role} {} {what}", m.reference)
}

/// opm's words and the file they are about.
fn refusal_words(r: &Refusal) -> String {
    format!("{} ({})", r.message, r.file)
}

/// The fix of a catalog opm cannot serve.
fn rebuild_step(image: &str) -> String {
    format!("rebuild the catalog image {image} from configs that `opm validate <configs folder>` passes (the check opm serve runs when the registry pod starts), push it and point the CatalogSource at it; with oc-mirror, mirror the catalog again rather than editing its configs")
}

fn next_steps(sub: &SubscriptionCheck, reason: &str) -> Vec<NextStep> {
    let mut steps = Vec::new();
    if reason == "catalogNotServed" && sub.catalog.refused.is_some() {
        steps.push(NextStep {
            outcome: "catalogNotServed".into(),
            step: rebuild_step(&sub.catalog.image),
            commands: Vec::new(),
        });
    }
    if reason == "noUpdatePath" {
        let installed = sub.installed_csv.as_deref().unwrap_or_default();
        steps.push(NextStep {
            outcome: "noUpdatePath".into(),
            step: format!("mirror the package with the bundles from {installed} on: in the ImageSetConfiguration, under mirror.operators[].packages, give {} a minVersion at or below {installed}'s version (or full: true for the channel), run oc-mirror again and apply the catalog it writes", sub.package),
            commands: Vec::new(),
        });
    }
    if reason == "unsatisfiedDependency" {
        let into = match sub.namespace.as_str() {
            "" => "into the catalog checked".to_string(),
            ns => format!("into a catalog namespace {ns} resolves over: the Subscription's, another CatalogSource of the namespace, or one of openshift-marketplace"),
        };
        steps.push(NextStep {
            outcome: "unsatisfiedDependency".into(),
            step: format!("mirror what the message names as required (a package in the range given, or the package that provides the API) {into}; with oc-mirror, add the package under mirror.operators[].packages in the ImageSetConfiguration (with a minVersion in the range) and apply the catalog it writes"),
            commands: Vec::new(),
        });
    }
    let failing: Vec<&HopImage> = sub
        .hops
        .iter()
        .flat_map(|h| &h.images)
        .filter(|m| m.fails())
        .collect();
    steps.extend(missing_step(sub.kind, &failing));
    let tags: Vec<&str> = failing
        .iter()
        .filter(|m| m.class == ImageClass::TagSkipsDigestMirrors)
        .map(|m| m.reference.as_str())
        .collect();
    if !tags.is_empty() {
        steps.push(NextStep {
            outcome: "tagSkipsDigestMirrors".into(),
            step: format!("{} pulled by tag, and every mirror for them is digest-only: apply the ImageTagMirrorSet oc-mirror writes (itms-oc-mirror.yaml) after mirroring the tags, or have the bundle pin its images by digest (operator-sdk generate bundle --use-image-digests)", tags.join(", ")),
            commands: Vec::new(),
        });
    }
    steps.extend(not_mirrored_step(&failing));
    steps.extend(failing_step(sub.kind, &failing));
    steps
}

/// The images that fail otherwise than missing (credentials, TLS, a
/// signature...), each with its detail; with the copy of each that a mirror
/// refused before a later one answered "not found"
/// ([`crate::upgrade::copy_fix`]): its puller goes past the refusal to it.
fn failing_step(kind: CheckedKind, failing: &[&HopImage]) -> Option<NextStep> {
    let other: Vec<(ImageRole, &ImageCheck)> = failing
        .iter()
        .filter(|m| {
            !matches!(
                m.class,
                ImageClass::TagSkipsDigestMirrors | ImageClass::NotMirrored
            )
        })
        .filter_map(|m| Some((m.role, m.check.as_ref()?)))
        .filter(|(_, c)| !matches!(c.outcome, ImageOutcome::Missing | ImageOutcome::Served))
        .collect();
    if other.is_empty() {
        return None;
    }
    let said: Vec<String> = other
        .iter()
        .map(|(_, c)| match c.detail.as_str() {
            "" => format!("{} {}", c.outcome.as_str(), c.reference),
            detail => format!("{} {}: {detail}", c.outcome.as_str(), c.reference),
        })
        .collect();
    let copies = other
        .iter()
        .map(|(role, c)| (puller(kind, Some(*role)), *c));
    let (step, commands) = match crate::upgrade::copy_lines(copies) {
        Some((to, commands)) => (
            format!(
                "{}; or copy each image a mirror refused to {to}:",
                said.join("; ")
            ),
            commands,
        ),
        None => (said.join("; "), Vec::new()),
    };
    Some(NextStep {
        outcome: "failing".into(),
        step,
        commands,
    })
}

/// A CatalogSource a Subscription's namespace resolves over (its own
/// namespace's or the global one's) whose registry pod cannot serve its
/// catalog: its `namespace/name`, the probe of its image as CRI-O on the
/// pod's node pulls it, and, when the image was pulled, why its `opm
/// serve` refuses the catalog.
#[derive(Debug, Clone)]
pub struct UnlistedCatalog {
    pub source: String,
    pub check: ImageCheck,
    pub refused: Option<Refusal>,
}

impl UnlistedCatalog {
    /// Why the registry pod serves nothing.
    fn why(&self) -> String {
        match &self.refused {
            Some(r) => format!(
                "its registry pod's opm cannot serve the catalog {}: {}",
                self.check.reference,
                refusal_words(r)
            ),
            None => format!(
                "its registry pod cannot pull the catalog image {} ({}: {})",
                self.check.reference,
                self.check.outcome.as_str(),
                self.check.detail
            ),
        }
    }
}

/// Why OLM v0 resolves nothing in the namespace, and the fix: the
/// resolver lists every visible CatalogSource's bundles and fails the
/// namespace's resolution when one cannot be listed
/// (operator-lifecycle-manager `resolver.go`: `namespacedCache.Error()`;
/// `cache.go`: `error using catalogsource %s/%s: %w`, aggregated; the
/// registry source's `failed to list bundles: %w`), and the catalog
/// operator sets `ResolutionFailed` with reason `ErrorPreventedResolution`
/// on the namespace's Subscriptions (`syncResolvingNamespace`). `None`
/// when every CatalogSource can be listed.
///
/// `existing` are the errors of the namespace's virtual catalog of
/// installed operators (`NAMESPACE/@existing`: the CSVs whose properties
/// OLM cannot read, [`crate::olm::deps::unreadable_properties`]).
pub fn resolution_prevented(
    namespace: &str,
    existing: &[String],
    unlisted: &[UnlistedCatalog],
) -> Option<(Stop, NextStep)> {
    if unlisted.is_empty() && existing.is_empty() {
        return None;
    }
    let existing_errors = existing
        .iter()
        .map(|e| format!("error using catalogsource {namespace}/@existing: {e}"));
    let errors: Vec<String> = existing_errors
        .chain(unlisted.iter().map(|u| {
            format!(
                "error using catalogsource {}: failed to list bundles: {}",
                u.source,
                u.why()
            )
        }))
        .collect();
    let message = match errors.as_slice() {
        [one] => one.clone(),
        several => format!("[{}]", several.join(", ")),
    };
    let (refused, unpulled): (Vec<&UnlistedCatalog>, Vec<&UnlistedCatalog>) =
        unlisted.iter().partition(|u| u.refused.is_some());
    let sources: Vec<&str> = unpulled.iter().map(|u| u.source.as_str()).collect();
    let copies = crate::upgrade::copy_lines(unpulled.iter().map(|u| ("CRI-O", &u.check)));
    let (to, commands) =
        copies.unwrap_or_else(|| ("the mirror CRI-O tries first".into(), Vec::new()));
    let mut said = Vec::new();
    if !existing.is_empty() {
        said.push(format!("OLM reads the operatorframework.io/properties annotation of every CSV of namespace {namespace} (it writes it from the bundle's properties): correct or remove the annotation it cannot read, so that OLM writes it again"));
    }
    for u in &refused {
        said.push(format!(
            "OLM resolves every Subscription of the namespace over CatalogSource {}, whose registry pod's opm cannot serve its catalog: {}, or delete the CatalogSource if nothing needs it",
            u.source,
            rebuild_step(&u.check.reference)
        ));
    }
    if !sources.is_empty() {
        said.push(format!("OLM resolves every Subscription of the namespace over CatalogSource {}, whose catalog cannot be pulled: mirror its catalog image (oc-mirror, or copy it to {to}), or delete the CatalogSource if nothing needs it (the default ones: oc patch operatorhub cluster --type merge -p '{{\"spec\":{{\"disableAllDefaultSources\":true}}}}')", sources.join(", ")));
    }
    let step = NextStep {
        outcome: "errorPreventedResolution".into(),
        step: said.join("; "),
        commands,
    };
    Some((Stop::ErrorPreventedResolution(message), step))
}

/// The namespace's resolution failed by an installed operator: OLM's
/// resolver makes variables of the installed CSVs first, and an
/// `olm.package.required` range of one that blang cannot parse stops it
/// ([`crate::olm::deps::unparsable_installed`]), for every Subscription
/// of the namespace.
pub fn installed_prevented(namespace: &str, error: &str) -> (Stop, NextStep) {
    let step = NextStep {
        outcome: "errorPreventedResolution".into(),
        step: format!("OLM resolves every Subscription of namespace {namespace} with its installed CSVs' requirements, from their operatorframework.io/properties annotation: correct the versionRange named (a blang range, e.g. >=1.0.0), or remove the annotation so that OLM writes it again from the CSV"),
        commands: Vec::new(),
    };
    (Stop::ErrorPreventedResolution(error.to_string()), step)
}

/// The `skopeo copy --all` line of each missing image (but tags that skip
/// digest-only mirrors), to where [`crate::upgrade::copy_lines`] says for
/// its puller ([`puller`]).
fn missing_step(kind: CheckedKind, failing: &[&HopImage]) -> Option<NextStep> {
    let missing = failing
        .iter()
        .filter(|m| m.class != ImageClass::TagSkipsDigestMirrors)
        .filter_map(|m| Some((puller(kind, Some(m.role)), m.check.as_ref()?)))
        .filter(|(_, c)| c.outcome == ImageOutcome::Missing);
    let (to, commands) = crate::upgrade::copy_lines(missing)?;
    Some(NextStep {
            outcome: "missing".into(),
            step: format!("mirror the operator again with oc-mirror (the package's bundles between the installed CSV and the head: minVersion in the ImageSetConfiguration), or copy each missing image to {to}:"),
            commands,
        })
}

/// The step for the images served only by their own registry (`--require-mirror`).
fn not_mirrored_step(failing: &[&HopImage]) -> Option<NextStep> {
    let unmirrored: Vec<&str> = failing
        .iter()
        .filter(|m| m.class == ImageClass::NotMirrored)
        .map(|m| m.reference.as_str())
        .collect();
    (!unmirrored.is_empty()).then(|| NextStep {
        outcome: "notMirrored".into(),
        step: format!("{} pulled from their own registry, which a disconnected cluster cannot reach: mirror them with oc-mirror (add the package, or the images under additionalImages, to the ImageSetConfiguration) and apply the ImageDigestMirrorSet it writes (idms-oc-mirror.yaml)", unmirrored.join(", ")),
        commands: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe_result::Outcome;

    fn sub() -> SubscriptionCheck {
        SubscriptionCheck {
            kind: CheckedKind::Subscription,
            extension: None,
            namespace: "ops".into(),
            name: "etcd".into(),
            package: "etcd".into(),
            channel: Some("stable".into()),
            installed_csv: Some("etcd.v1".into()),
            starting_csv: None,
            install_plan: None,
            catalog: catalog(None),
            head: None,
            end: None,
            hops: Vec::new(),
            readiness: Readiness::Undetermined,
            reason: String::new(),
            message: String::new(),
            next_steps: Vec::new(),
            ready: false,
        }
    }

    fn catalog(check: Option<ImageCheck>) -> CatalogCheck {
        CatalogCheck {
            pool: None,
            pool_reason: None,
            pull_secrets: Vec::new(),
            source: None,
            image: "m.io/cat:v1".into(),
            digest: None,
            check,
            undetermined: None,
            refused: None,
        }
    }

    fn probed(reference: &str, outcome: ImageOutcome) -> ImageCheck {
        ImageCheck {
            name: String::new(),
            reference: reference.into(),
            pull_sources: Vec::new(),
            served_by: None,
            outcome,
            signature: None,
            detail: String::new(),
        }
    }

    fn hop(to: &str, images: Vec<HopImage>) -> HopCheck {
        HopCheck {
            from: Some("etcd.v1".into()),
            to: to.into(),
            edge: Edge::Replaces,
            approval: "Automatic".into(),
            csv_source: CsvSource::None,
            deployment_images_unknown: None,
            dependencies: Vec::new(),
            images,
        }
    }

    fn image(class: ImageClass, outcome: ImageOutcome, counted: bool) -> HopImage {
        HopImage {
            role: ImageRole::Related,
            name: "x".into(),
            reference: "q.io/x:1".into(),
            class,
            counted,
            unpacked: false,
            check: Some(probed("q.io/x:1", outcome)),
        }
    }

    fn run(catalog_check: Option<ImageCheck>, path: Option<Resolved>) -> (Readiness, String) {
        let s = verdict(
            sub(),
            Found {
                catalog: catalog(catalog_check),
                path,
                plan: None,
                extension: None,
            },
        );
        (s.readiness, s.reason)
    }

    /// A row: name, the catalog's probe, the resolver's answer, the verdict.
    type Row = (
        &'static str,
        Option<ImageCheck>,
        Option<Resolved>,
        Readiness,
        &'static str,
    );

    #[test]
    fn verdicts_in_order_of_precedence() {
        use ImageOutcome::*;
        let ok = |hops| Some(Ok(("etcd.v2".to_string(), End::Head, hops)));
        let rows: Vec<Row> = vec![
            (
                "catalog missing",
                Some(probed("m.io/cat:v1", Missing)),
                None,
                Readiness::NotReady,
                "catalogNotServed",
            ),
            (
                "catalog unread",
                None,
                None,
                Readiness::Undetermined,
                "catalogUndetermined",
            ),
            (
                "resolver",
                None,
                Some(Err(Stop::NoUpdatePath("x".into()))),
                Readiness::NotReady,
                "noUpdatePath",
            ),
            ("at head", None, ok(vec![]), Readiness::Ready, "atHead"),
            (
                "served",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::Digest, Served, true)],
                )]),
                Readiness::Ready,
                "pathServed",
            ),
            (
                "missing",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::Digest, Missing, true)],
                )]),
                Readiness::NotReady,
                "imagesNotServed",
            ),
            (
                "not counted",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::Digest, Missing, false)],
                )]),
                Readiness::Ready,
                "pathServed",
            ),
            (
                "tag past digest mirrors, served by the source",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::TagSkipsDigestMirrors, Served, true)],
                )]),
                Readiness::NotReady,
                "imagesNotServed",
            ),
            (
                "no answer",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::Digest, Undetermined, true)],
                )]),
                Readiness::Undetermined,
                "imagesUndetermined",
            ),
            (
                "not ready wins",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![
                        image(ImageClass::Digest, Undetermined, true),
                        image(ImageClass::Digest, Missing, true),
                    ],
                )]),
                Readiness::NotReady,
                "imagesNotServed",
            ),
            (
                "a served bundle whose CSV was not read",
                None,
                ok(vec![HopCheck {
                    deployment_images_unknown: Some("no CSV".into()),
                    ..hop(
                        "etcd.v2",
                        vec![HopImage {
                            role: ImageRole::Bundle,
                            ..image(ImageClass::Digest, Served, true)
                        }],
                    )
                }]),
                Readiness::Undetermined,
                "deploymentImagesUnknown",
            ),
            (
                "a missing bundle whose CSV was not read",
                None,
                ok(vec![HopCheck {
                    deployment_images_unknown: Some("missing".into()),
                    ..hop(
                        "etcd.v2",
                        vec![HopImage {
                            role: ImageRole::Bundle,
                            ..image(ImageClass::Digest, Missing, true)
                        }],
                    )
                }]),
                Readiness::NotReady,
                "imagesNotServed",
            ),
            (
                "not mirrored",
                None,
                ok(vec![hop(
                    "etcd.v2",
                    vec![image(ImageClass::NotMirrored, Served, true)],
                )]),
                Readiness::NotReady,
                "imagesNotServed",
            ),
        ];
        for (name, c, path, readiness, reason) in rows {
            assert_eq!(run(c, path), (readiness, reason.to_string()), "{name}");
        }
    }

    /// An image whose pull sources answered `answers` (the source's last).
    fn answered(reference: &str, outcome: ImageOutcome, answers: &[(&str, Outcome)]) -> ImageCheck {
        let pull_sources = answers
            .iter()
            .map(|(host, o)| crate::upgrade::PullSource {
                reference: reference.replacen("q.io", host, 1),
                role: if *host == "q.io" {
                    Role::Source
                } else {
                    Role::Mirror
                },
                outcome: *o,
                digest: None,
                detail: String::new(),
            })
            .collect();
        ImageCheck {
            pull_sources,
            ..probed(reference, outcome)
        }
    }

    /// Issue 38: every copy line goes to the first mirror that answered
    /// "not found" (`verdict::copy_target`), and the step says where in the
    /// words of one image's fix, naming a mirror passed over; an image the
    /// first mirror refused gets its copy line too.
    #[test]
    fn issue_38_copy_lines_go_past_a_refusing_mirror() {
        use Outcome::{NotFound, Unauthorized};
        let d1 = format!("sha256:{}", "1".repeat(64));
        let d2 = format!("sha256:{}", "2".repeat(64));
        let (bundle, related) = (&format!("q.io/b@{d1}"), &format!("q.io/r@{d2}"));
        let missing = HopImage {
            role: ImageRole::Bundle,
            reference: bundle.clone(),
            check: Some(answered(
                bundle,
                ImageOutcome::Missing,
                &[("m1.io", NotFound), ("q.io", NotFound)],
            )),
            ..image(ImageClass::Digest, ImageOutcome::Missing, true)
        };
        let refused = HopImage {
            reference: related.clone(),
            check: Some(answered(
                related,
                ImageOutcome::Unauthorized,
                &[("m1.io", Unauthorized), ("m2.io", NotFound)],
            )),
            ..image(ImageClass::Digest, ImageOutcome::Unauthorized, true)
        };
        let steps = next_steps(
            &SubscriptionCheck {
                hops: vec![hop("etcd.v2", vec![missing, refused])],
                ..sub()
            },
            "imagesNotServed",
        );
        let step = |o: &str| {
            steps
                .iter()
                .find(|s| s.outcome == o)
                .unwrap_or_else(|| panic!("{o}: {steps:?}"))
        };
        assert!(
            step("missing")
                .step
                .ends_with("or copy each missing image to the mirror CRI-O tries first:"),
            "{}",
            step("missing").step
        );
        assert_eq!(
            step("missing").commands,
            [format!(
                "skopeo copy --all --preserve-digests docker://{bundle} docker://m1.io/b@{d1}"
            )]
        );
        assert_eq!(
            step("failing").step,
            format!("unauthorized {related}; or copy each image a mirror refused to the first mirror that answered not found; CRI-O goes past m1.io (refused the credentials) to m2.io: a copy there would not be pulled before that is fixed:")
        );
        assert_eq!(
            step("failing").commands,
            [format!(
                "skopeo copy --all --preserve-digests docker://{related} docker://m2.io/r@{d2}"
            )]
        );
        let catalog = UnlistedCatalog {
            source: "openshift-marketplace/redhat-operators".into(),
            check: answered(
                "q.io/index:v4.21",
                ImageOutcome::TlsError,
                &[("m1.io", Outcome::TlsError), ("m2.io", NotFound)],
            ),
            refused: None,
        };
        let (_, step) = resolution_prevented("olm", &[], &[catalog]).unwrap();
        assert!(
            step.step.contains("(oc-mirror, or copy it to the first mirror that answered not found; CRI-O goes past m1.io (TLS failed) to m2.io: "),
            "{}",
            step.step
        );
        assert_eq!(
            step.commands,
            ["skopeo copy --all docker://q.io/index:v4.21 docker://m2.io/index:v4.21"]
        );
    }

    /// One rule names who pulls each image: CRI-O for OLM v0 (the catalog's
    /// registry pod, the bundle unpack Job, the operator's pods) and for
    /// OLM v1's operator and related images; catalogd and
    /// operator-controller for OLM v1's catalog and bundle images.
    #[test]
    fn the_puller_of_each_image() {
        use CheckedKind::{ClusterExtension as V1, Subscription as V0};
        let cases = [
            (V0, None, "CRI-O"),
            (V0, Some(ImageRole::Bundle), "CRI-O"),
            (V0, Some(ImageRole::Operator), "CRI-O"),
            (V0, Some(ImageRole::Dependency), "CRI-O"),
            (V1, None, "catalogd"),
            (V1, Some(ImageRole::Bundle), "operator-controller"),
            (V1, Some(ImageRole::Operator), "CRI-O"),
            (V1, Some(ImageRole::Related), "CRI-O"),
        ];
        for (kind, role, want) in cases {
            assert_eq!(puller(kind, role), want, "{kind:?} {role:?}");
        }
    }

    /// `extension.pulledBy` is [`puller`]'s answer for each of OLM v1's images.
    #[test]
    fn pulled_by_is_written_from_the_puller_rule() {
        assert_eq!(
            serde_json::to_value(PulledBy).unwrap(),
            serde_json::json!({"catalog": "catalogd", "bundle": "operator-controller", "images": "CRI-O"})
        );
    }

    /// The Subscription's own catalog that the registry pod's opm refuses
    /// is not served, in opm's words with the file, and the fix is a catalog
    /// `opm validate` passes; a ClusterExtension's catalog is not opm's to
    /// serve (catalogd serves its configs as they are).
    #[test]
    fn a_catalog_opm_refuses_is_not_served() {
        let refused = Refusal {
            message: "package \"other\", bundle \"other.v1.0.0\" not found in any channel entries"
                .into(),
            file: "/configs/other.json".into(),
        };
        let ok = Some(Ok(("etcd.v2".to_string(), End::Head, Vec::new())));
        let found = |path: Option<Resolved>| Found {
            catalog: CatalogCheck {
                refused: Some(refused.clone()),
                ..catalog(Some(probed("m.io/cat:v1", ImageOutcome::Served)))
            },
            path,
            plan: None,
            extension: None,
        };
        let s = verdict(sub(), found(None));
        assert_eq!(
            (s.readiness, s.reason.as_str()),
            (Readiness::NotReady, "catalogNotServed")
        );
        assert_eq!(
            s.message,
            "the registry pod's opm cannot serve the catalog: package \"other\", bundle \"other.v1.0.0\" not found in any channel entries (/configs/other.json)"
        );
        assert!(
            s.next_steps[0].step.contains("opm validate"),
            "{:?}",
            s.next_steps
        );
        let v1 = SubscriptionCheck {
            kind: CheckedKind::ClusterExtension,
            ..sub()
        };
        let s = verdict(v1, found(ok));
        assert_eq!(s.reason, "atHead", "{}", s.message);
        let other = UnlistedCatalog {
            source: "openshift-marketplace/broken".into(),
            check: probed("r.io/broken-index:v1", ImageOutcome::Served),
            refused: Some(refused.clone()),
        };
        let (stop, step) = resolution_prevented("olm", &[], &[other]).unwrap();
        assert_eq!(
            stop.message(),
            "error using catalogsource openshift-marketplace/broken: failed to list bundles: its registry pod's opm cannot serve the catalog r.io/broken-index:v1: package \"other\", bundle \"other.v1.0.0\" not found in any channel entries (/configs/other.json)"
        );
        assert!(step.step.contains("opm validate"), "{}", step.step);
        assert!(step.commands.is_empty(), "nothing to copy");
    }

    /// operator-lifecycle-manager `NamespacedOperatorCache.Error`
    /// (cache.go) as `syncResolvingNamespace` sets it: each unlisted
    /// catalog's error, aggregated (`[a, b]` when several), and none when
    /// every catalog can be listed.
    #[test]
    fn an_unlisted_catalog_prevents_resolution() {
        assert!(resolution_prevented("olm", &[], &[]).is_none());
        let one = UnlistedCatalog {
            source: "openshift-marketplace/redhat-operators".into(),
            check: probed("r.io/redhat-operator-index:v4.21", ImageOutcome::Missing),
            refused: None,
        };
        let (stop, step) = resolution_prevented("olm", &[], std::slice::from_ref(&one)).unwrap();
        assert_eq!(stop.reason(), "errorPreventedResolution");
        assert!(
            stop.message().starts_with(
                "error using catalogsource openshift-marketplace/redhat-operators: failed to list bundles: "
            ),
            "{}",
            stop.message()
        );
        assert!(step.step.contains("openshift-marketplace/redhat-operators"));
        let two = UnlistedCatalog {
            source: "ops/other".into(),
            ..one.clone()
        };
        let existing = ["failed to retrieve properties of csv \"a.v1\": x".to_string()];
        let (stop, step) = resolution_prevented("olm", &existing, &[]).unwrap();
        assert_eq!(
            stop.message(),
            "error using catalogsource olm/@existing: failed to retrieve properties of csv \"a.v1\": x"
        );
        assert!(
            step.step.contains("operatorframework.io/properties"),
            "{}",
            step.step
        );
        let (stop, _) = resolution_prevented("olm", &[], &[one, two]).unwrap();
        assert!(
            stop.message()
                .starts_with("[error using catalogsource openshift-marketplace/redhat-operators: ")
                && stop
                    .message()
                    .contains(", error using catalogsource ops/other: ")
                && stop.message().ends_with(']'),
            "{}",
            stop.message()
        );
    }
}
