//! ICSP → IDMS (and ITMS) migration, and the proof that nodes see no change.
//!
//! The conversion is `oc adm migrate icsp`'s (openshift/oc,
//! pkg/cli/admin/migrate/icsp): one ImageDigestMirrorSet per
//! ImageContentSourcePolicy, same name, same sources and mirrors in the
//! same order, no `mirrorSourcePolicy`; the YAML is written as oc's
//! yaml.v3 writes it (four-space indentation, keys in order). Deliberate
//! differences: server-owned metadata is dropped (oc copies uid,
//! resourceVersion, managedFields and the rest, which the API server then
//! refuses or ignores), and file names carry no random suffix.
//!
//! The proof renders the node files from the objects before, in between
//! (the replacements applied, the ICSPs not yet deleted) and after, and
//! compares them: pure, no I/O.

use std::collections::{BTreeMap, BTreeSet};

use crate::objects::Inputs;
use crate::objects::{
    FieldError, ImageContentSourcePolicy, ImageDigestMirrorSet, ImageDigestMirrors,
    ImageTagMirrorSet, ObjectMeta,
};
use crate::registries::lookup::hostless_prefix;
use crate::render::pool::{render_pool, RenderError, Rendered};

/// The annotation kubectl keeps the last applied object in: stale on a new
/// object, so it is not carried over.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A replacement object and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replacement {
    Idms(ImageDigestMirrorSet),
    Itms(ImageTagMirrorSet),
}

impl Replacement {
    /// `ImageDigestMirrorSet` or `ImageTagMirrorSet`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Idms(_) => ImageDigestMirrorSet::KIND,
            Self::Itms(_) => ImageTagMirrorSet::KIND,
        }
    }

    /// The object name (the ICSP's).
    pub fn name(&self) -> &str {
        match self {
            Self::Idms(o) => &o.metadata.name,
            Self::Itms(o) => &o.metadata.name,
        }
    }

    /// `Kind/name`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.kind(), self.name())
    }

    /// The file name in `--dest-dir`: oc's `imagedigestmirrorset_<name>`,
    /// without its random suffix.
    pub fn file_name(&self) -> String {
        format!("{}_{}.yaml", self.kind().to_ascii_lowercase(), self.name())
    }

    /// The object as JSON, in the field order of the YAML.
    pub fn to_json(&self) -> serde_json::Value {
        let (api_version, kind, metadata, list_key, entries) = match self {
            Self::Idms(o) => (
                &o.api_version,
                ImageDigestMirrorSet::KIND,
                &o.metadata,
                "imageDigestMirrors",
                &o.spec.image_digest_mirrors,
            ),
            Self::Itms(o) => (
                &o.api_version,
                ImageTagMirrorSet::KIND,
                &o.metadata,
                "imageTagMirrors",
                &o.spec.image_tag_mirrors,
            ),
        };
        let mut meta = serde_json::Map::new();
        if !metadata.annotations.is_empty() {
            meta.insert(
                "annotations".into(),
                serde_json::json!(metadata.annotations),
            );
        }
        if !metadata.labels.is_empty() {
            meta.insert("labels".into(), serde_json::json!(metadata.labels));
        }
        meta.insert("name".into(), serde_json::json!(metadata.name));
        let entries: Vec<serde_json::Value> = entries
            .iter()
            .map(|e| serde_json::json!({"mirrors": e.mirrors, "source": e.source}))
            .collect();
        serde_json::json!({
            "apiVersion": api_version,
            "kind": kind,
            "metadata": meta,
            "spec": {list_key: entries},
        })
    }

    /// The object's YAML, as `oc adm migrate icsp` writes it.
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        emit(&self.to_json(), 0, &mut out);
        out
    }

    /// The spec's entries.
    pub fn entries(&self) -> &[ImageDigestMirrors] {
        match self {
            Self::Idms(o) => &o.spec.image_digest_mirrors,
            Self::Itms(o) => &o.spec.image_tag_mirrors,
        }
    }

    /// CRD validation of the replacement.
    pub fn validate(&self) -> Vec<FieldError> {
        match self {
            Self::Idms(o) => o.validate(),
            Self::Itms(o) => o.validate(),
        }
    }
}

/// The longest file name most file systems take, in bytes (`NAME_MAX`).
pub const FILE_NAME_MAX: usize = 255;

pub use crate::objects::schema::{name_problem, NAME_MAX};

/// The labels GitOps tools track the objects they manage with, and the
/// tool: Argo CD's label tracking (its default, `app.kubernetes.io/instance`),
/// Flux's kustomize-controller and helm-controller.
const GITOPS_LABELS: &[(&str, &str)] = &[
    ("app.kubernetes.io/instance", "Argo CD"),
    ("kustomize.toolkit.fluxcd.io/name", "Flux"),
    ("kustomize.toolkit.fluxcd.io/namespace", "Flux"),
    ("helm.toolkit.fluxcd.io/name", "Flux"),
    ("helm.toolkit.fluxcd.io/namespace", "Flux"),
];

/// The annotations GitOps tools track their objects with: Argo CD's
/// annotation tracking.
const GITOPS_ANNOTATIONS: &[(&str, &str)] = &[("argocd.argoproj.io/tracking-id", "Argo CD")];

/// A label or annotation by which a GitOps tool (Argo CD, Flux) tracks an
/// object as its own: the tool recreates such an object deleted behind its
/// back, and prunes (or claims) an object that carries it but is not in
/// its Git source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitOpsMarker {
    /// `Argo CD` or `Flux`.
    pub tool: &'static str,
    /// `label` or `annotation`.
    pub place: &'static str,
    pub key: String,
    pub value: String,
}

/// The GitOps markers of an object, labels first, keys in order.
pub fn gitops_markers(meta: &ObjectMeta) -> Vec<GitOpsMarker> {
    let found = |map: &BTreeMap<String, String>, known: &[(&str, &'static str)], place| {
        known
            .iter()
            .filter_map(|(key, tool)| {
                map.get(*key).map(|value| GitOpsMarker {
                    tool,
                    place,
                    key: key.to_string(),
                    value: value.clone(),
                })
            })
            .collect::<Vec<_>>()
    };
    let mut markers = found(&meta.labels, GITOPS_LABELS, "label");
    markers.extend(found(&meta.annotations, GITOPS_ANNOTATIONS, "annotation"));
    markers
}

/// What may keep an ICSP from going when it is deleted, or bring it back:
/// its finalizers, its owners, the GitOps tools that track it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holders {
    /// The ICSP's name.
    pub name: String,
    /// `metadata.finalizers`: the delete only marks it until they are removed.
    pub finalizers: Vec<String>,
    /// `metadata.deletionTimestamp`: already marked for deletion.
    pub deletion_timestamp: Option<String>,
    /// Each owner, `Kind/name`, with ` (controller)` for the managing one.
    pub owners: Vec<String>,
    pub markers: Vec<GitOpsMarker>,
}

impl Holders {
    /// The holders of an ICSP; `None` when it has none.
    pub fn of(icsp: &ImageContentSourcePolicy) -> Option<Self> {
        let meta = &icsp.metadata;
        let owners: Vec<String> = meta
            .owner_references
            .iter()
            .map(|o| {
                let controller = if o.controller == Some(true) {
                    " (controller)"
                } else {
                    ""
                };
                format!("{}/{}{controller}", o.kind, o.name)
            })
            .collect();
        let holders = Self {
            name: meta.name.clone(),
            finalizers: meta.finalizers.clone(),
            deletion_timestamp: meta.deletion_timestamp.clone(),
            owners,
            markers: gitops_markers(meta),
        };
        let none = holders.finalizers.is_empty()
            && holders.deletion_timestamp.is_none()
            && holders.owners.is_empty()
            && holders.markers.is_empty();
        (!none).then_some(holders)
    }

    /// The GitOps tools that track the ICSP, each once.
    pub fn tools(&self) -> Vec<&'static str> {
        let mut tools: Vec<&'static str> = Vec::new();
        for m in &self.markers {
            if !tools.contains(&m.tool) {
                tools.push(m.tool);
            }
        }
        tools
    }
}

/// How ICSPs are converted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Also an ImageTagMirrorSet per ICSP.
    pub tag_mirrors: bool,
    /// Keep the GitOps markers on the replacements (dropped by default).
    pub keep_gitops_markers: bool,
}

/// The metadata a replacement keeps: name, labels and annotations other
/// than kubectl's last-applied copy and, unless `keep_markers`, the GitOps
/// markers (the replacement is in no GitOps tool's source: marked, the
/// tool would prune it, or count it as its own). Finalizers and owner
/// references stay with the ICSP.
fn carried_metadata(meta: &ObjectMeta, keep_markers: bool) -> ObjectMeta {
    let markers = gitops_markers(meta);
    let dropped = |place: &str, key: &str| {
        !keep_markers && markers.iter().any(|m| m.place == place && m.key == key)
    };
    let mut kept = ObjectMeta::named(&meta.name);
    kept.labels = meta
        .labels
        .iter()
        .filter(|(k, _)| !dropped("label", k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    kept.annotations = meta
        .annotations
        .iter()
        .filter(|(k, _)| k.as_str() != LAST_APPLIED && !dropped("annotation", k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    kept
}

/// The replacements of one ICSP: its IDMS, and its ITMS with
/// `options.tag_mirrors`.
pub fn convert(icsp: &ImageContentSourcePolicy, options: Options) -> Vec<Replacement> {
    let tags = options.tag_mirrors;
    let metadata = carried_metadata(&icsp.metadata, options.keep_gitops_markers);
    let entries: Vec<ImageDigestMirrors> = icsp
        .spec
        .repository_digest_mirrors
        .iter()
        .map(|r| ImageDigestMirrors {
            source: r.source.clone(),
            mirrors: r.mirrors.clone(),
            mirror_source_policy: None,
        })
        .collect();
    let mut idms = ImageDigestMirrorSet::new(&icsp.metadata.name);
    idms.metadata = metadata.clone();
    idms.spec.image_digest_mirrors = entries.clone();
    let mut out = vec![Replacement::Idms(idms)];
    if tags {
        let mut itms = ImageTagMirrorSet::new(&icsp.metadata.name);
        itms.metadata = metadata;
        itms.spec.image_tag_mirrors = entries;
        out.push(Replacement::Itms(itms));
    }
    out
}

/// Writes a JSON value as gopkg.in/yaml.v3 does for the objects above:
/// four-space indentation, sequences indented under their key, and
/// double quotes only where a plain scalar would read as something else.
fn emit(value: &serde_json::Value, indent: usize, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => emit_map(map, indent, indent, out),
        serde_json::Value::Array(items) => emit_seq(items, indent, out),
        other => {
            out.push_str(&" ".repeat(indent));
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

/// A mapping whose keys start at column `key_col`; its nested blocks are
/// indented from `base` (yaml.v3 counts a mapping inside a sequence item
/// from the dash, not from its first key).
fn emit_map(
    map: &serde_json::Map<String, serde_json::Value>,
    key_col: usize,
    base: usize,
    out: &mut String,
) {
    use serde_json::Value;
    for (i, (key, v)) in map.iter().enumerate() {
        if i > 0 || key_col == base {
            out.push_str(&" ".repeat(key_col));
        }
        out.push_str(&crate::go_yaml::portable_scalar(key));
        out.push(':');
        match v {
            Value::Object(m) if !m.is_empty() => {
                out.push('\n');
                emit_map(m, base + 4, base + 4, out);
            }
            Value::Array(a) if !a.is_empty() => {
                out.push('\n');
                emit_seq(a, base + 4, out);
            }
            other => {
                out.push(' ');
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

/// A sequence whose dashes are at column `dash`.
fn emit_seq(items: &[serde_json::Value], dash: usize, out: &mut String) {
    use serde_json::Value;
    for item in items {
        out.push_str(&" ".repeat(dash));
        out.push_str("- ");
        match item {
            // The first key follows the dash; the others align with it.
            Value::Object(m) if !m.is_empty() => emit_map(m, dash + 2, dash, out),
            other => {
                out.push_str(&inline(other));
                out.push('\n');
            }
        }
    }
}

fn inline(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => crate::go_yaml::portable_scalar(s),
        Value::Object(_) => "{}".to_string(),
        Value::Array(_) => "[]".to_string(),
        Value::Null => "null".to_string(),
        other => other.to_string(),
    }
}

/// What the checks found, before anything is written.
#[derive(Debug, Default)]
pub struct Checks {
    /// Replacements that fail the CRD rules (refused).
    pub invalid: Vec<String>,
    /// An existing object with a replacement's name and a different spec (refused).
    pub name_conflicts: Vec<String>,
    /// Replacements already on the cluster (or in the inputs) as they would be written.
    pub unchanged: BTreeSet<String>,
    /// Things the user should know.
    pub warnings: Vec<String>,
}

impl Checks {
    /// Whether anything refuses the migration.
    pub fn refused(&self) -> bool {
        !self.invalid.is_empty() || !self.name_conflicts.is_empty()
    }
}

/// CRD rules, name clashes with existing objects, empty and covered entries.
pub fn check(inputs: &Inputs, replacements: &[Replacement]) -> Checks {
    let mut checks = Checks::default();
    for r in replacements {
        check_replacement(inputs, r, &mut checks);
    }
    warn_about_entries(inputs, &mut checks);
    checks
}

/// A replacement's CRD rules, and the object of its name already there.
fn check_replacement(inputs: &Inputs, r: &Replacement, checks: &mut Checks) {
    for e in r.validate() {
        // `spec.imageDigestMirrors[2].mirrors[0]` names the ICSP's entry 2.
        let entry = e
            .field
            .split_once('[')
            .and_then(|(_, rest)| rest.split_once(']'))
            .map_or_else(String::new, |(i, _)| format!(" entry {i}"));
        checks.invalid.push(format!(
            "ImageContentSourcePolicy/{}{entry}: {e} (the {} CRD refuses it; fix the ICSP first)",
            r.name(),
            r.kind()
        ));
    }
    let existing = match r {
        Replacement::Idms(new) => inputs
            .idmss
            .iter()
            .find(|o| o.metadata.name == new.metadata.name)
            .map(|o| o.spec == new.spec),
        Replacement::Itms(new) => inputs
            .itmss
            .iter()
            .find(|o| o.metadata.name == new.metadata.name)
            .map(|o| o.spec == new.spec),
    };
    match existing {
        Some(true) => {
            checks.unchanged.insert(r.label());
        }
        Some(false) => checks.name_conflicts.push(format!(
            "{} already exists with other mirrors than ImageContentSourcePolicy/{} (rename or remove one of them)",
            r.label(),
            r.name()
        )),
        None => {}
    }
}

/// ICSP entries without mirrors or whose source has no registry host (it
/// does not apply to the images meant, before or after), and ICSPs whose
/// every mirror an existing IDMS already gives.
fn warn_about_entries(inputs: &Inputs, checks: &mut Checks) {
    // Mirrors the existing IDMSs already give each source.
    let mut covered: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for idms in &inputs.idmss {
        for e in &idms.spec.image_digest_mirrors {
            covered
                .entry(e.source.as_str())
                .or_default()
                .extend(e.mirrors.iter().map(String::as_str));
        }
    }
    for icsp in &inputs.icsps {
        let name = &icsp.metadata.name;
        // Entries without mirrors say nothing either way: an ICSP of only
        // such entries is not "covered", it is empty.
        let mut all_covered = icsp
            .spec
            .repository_digest_mirrors
            .iter()
            .any(|e| !e.mirrors.is_empty());
        for (i, entry) in icsp.spec.repository_digest_mirrors.iter().enumerate() {
            if entry.mirrors.is_empty() {
                checks.warnings.push(format!(
                    "ImageContentSourcePolicy/{name} entry {i} ({}) has no mirrors: it changes nothing on the nodes, and neither does its replacement",
                    entry.source
                ));
            }
            let mirrors: Vec<&str> = entry.mirrors.iter().map(String::as_str).collect();
            if let Some(h) = hostless_prefix(&entry.source, &mirrors) {
                checks.warnings.push(format!(
                    "ImageContentSourcePolicy/{name} entry {i} ({}) does not apply to the images meant: {}; its replacement is carried over as is and does not either (the nodes' files stay the same, and those images use these mirrors neither before nor after); in the replacement, {}",
                    entry.source,
                    h.reason(),
                    h.fix()
                ));
            }
            let has = covered.get(entry.source.as_str());
            if !entry
                .mirrors
                .iter()
                .all(|m| has.is_some_and(|set| set.contains(m.as_str())))
            {
                all_covered = false;
            }
        }
        if all_covered
            && !checks
                .unchanged
                .contains(&format!("ImageDigestMirrorSet/{name}"))
        {
            checks.warnings.push(format!(
                "every mirror of ImageContentSourcePolicy/{name} is already in an existing ImageDigestMirrorSet: the ICSP can be deleted without a replacement"
            ));
        }
    }
}

/// What the MCO renders from one set of objects, or its refusal. The
/// registries and policy files are the same for every pool.
pub type Render = Result<Rendered, RenderError>;

fn render_files(inputs: &Inputs) -> Render {
    render_pool(inputs, "worker")
}

/// The rendered node files as `(path, contents)`.
pub fn files(rendered: &Rendered) -> Vec<(String, String)> {
    rendered
        .files
        .iter()
        .map(|f| (f.path.clone(), f.contents.clone()))
        .collect()
}

/// With tag mirrors added, digest pulls must still see exactly the mirrors
/// of the digest-only render, in the same order, with the same blocked and
/// insecure flags: a tag-only mirror is skipped by digest pulls, every
/// other mirror is used by them. Returns the entries where that fails.
pub fn digest_pulls_unchanged(digest_only: &Rendered, tagged: &Rendered) -> Vec<String> {
    let empty = Vec::new();
    let entries = |r: &Rendered| {
        r.registries
            .as_ref()
            .map_or(&empty, |c| &c.registries)
            .iter()
            .map(|e| ((e.prefix.clone(), e.location.clone()), e.clone()))
            .collect::<BTreeMap<_, _>>()
    };
    let (before, after) = (entries(digest_only), entries(tagged));
    let mut problems = Vec::new();
    for (key, entry) in &before {
        let Some(other) = after.get(key) else {
            problems.push(format!("{}: entry missing", key.1));
            continue;
        };
        let digest = |e: &crate::render::registries::RegistryEntry| {
            e.mirrors
                .iter()
                .filter(|m| m.pull_from_mirror != "tag-only")
                .map(|m| (m.location.clone(), m.insecure))
                .collect::<Vec<_>>()
        };
        if digest(entry) != digest(other)
            || entry.blocked != other.blocked
            || entry.insecure != other.insecure
        {
            problems.push(format!("{}: digest pulls would use other mirrors", key.1));
        }
    }
    problems
}

/// The objects before, in between and after the migration, rendered.
#[derive(Debug)]
pub struct Proof {
    /// Today: the ICSPs.
    pub before: Render,
    /// The replacements applied, the ICSPs still there.
    pub between: Render,
    /// The ICSPs deleted: the digest replacements only.
    pub after: Render,
    /// With the tag replacements too (`--with-tag-mirrors`).
    pub with_tags: Option<Render>,
}

/// Renders the three (or four) states. `replacements` may hold ITMSs; the
/// `after` state uses only the IDMSs, `with_tags` all of them.
pub fn prove(inputs: &Inputs, replacements: &[Replacement]) -> Proof {
    let mut between = inputs.clone();
    let mut after = inputs.clone();
    after.icsps.clear();
    let mut with_tags = None;
    for r in replacements {
        if let Replacement::Idms(o) = r {
            upsert_idms(&mut between.idmss, o);
            upsert_idms(&mut after.idmss, o);
        }
    }
    if replacements
        .iter()
        .any(|r| matches!(r, Replacement::Itms(_)))
    {
        let mut tagged = after.clone();
        for r in replacements {
            if let Replacement::Itms(o) = r {
                match tagged
                    .itmss
                    .iter_mut()
                    .find(|x| x.metadata.name == o.metadata.name)
                {
                    Some(x) => *x = o.clone(),
                    None => tagged.itmss.push(o.clone()),
                }
            }
        }
        with_tags = Some(render_files(&tagged));
    }
    Proof {
        before: render_files(inputs),
        between: render_files(&between),
        after: render_files(&after),
        with_tags,
    }
}

fn upsert_idms(list: &mut Vec<ImageDigestMirrorSet>, object: &ImageDigestMirrorSet) {
    match list
        .iter_mut()
        .find(|x| x.metadata.name == object.metadata.name)
    {
        Some(x) => *x = object.clone(),
        None => list.push(object.clone()),
    }
}

/// The first file that differs between two renders: `(path, before, after)`,
/// with an absent file as empty text.
pub fn first_difference(a: &Rendered, b: &Rendered) -> Option<(String, String, String)> {
    let get = |r: &Rendered, path: &str| r.file(path).unwrap_or_default().to_string();
    let paths: BTreeSet<&str> = a
        .files
        .iter()
        .chain(&b.files)
        .map(|f| f.path.as_str())
        .collect();
    paths.into_iter().find_map(|p| {
        let (x, y) = (get(a, p), get(b, p));
        (x != y).then(|| (p.to_string(), x, y))
    })
}

/// A row of the `--apply` plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// No object of that name: created.
    Create,
    /// The object exists with the same spec: nothing to do.
    Unchanged,
    /// The object exists with another spec (or the server's dry run
    /// refused it): the migration stops.
    Conflict(String),
}

/// Compares a desired object with what the server holds (`None`: absent).
pub fn plan(desired: &serde_json::Value, existing: Option<&serde_json::Value>) -> Action {
    match existing {
        None => Action::Create,
        Some(current) if current.get("spec") == desired.get("spec") => Action::Unchanged,
        Some(_) => Action::Conflict("exists with another spec".to_string()),
    }
}

/// What the proof found, counted for its one-line summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Equivalence {
    /// The ImageContentSourcePolicies replaced.
    pub icsps: usize,
    /// The ImageDigestMirrorSets replacing them.
    pub idms: usize,
    /// The distinct sources of the ICSPs.
    pub sources: usize,
    /// The files rendered after the migration.
    pub files: usize,
    /// The distinct sources without a registry host: equivalent only in
    /// that they do not apply to the images meant, before or after.
    pub hostless: usize,
}

impl Equivalence {
    /// Counts the objects, their sources, and the files `after` renders.
    pub fn of(inputs: &Inputs, replacements: &[Replacement], after: &Rendered) -> Self {
        let sources: BTreeSet<&str> = inputs
            .icsps
            .iter()
            .flat_map(|i| &i.spec.repository_digest_mirrors)
            .map(|e| e.source.as_str())
            .collect();
        Self {
            icsps: inputs.icsps.len(),
            idms: replacements
                .iter()
                .filter(|r| matches!(r, Replacement::Idms(_)))
                .count(),
            hostless: sources
                .iter()
                .filter(|s| hostless_prefix(s, &[]).is_some())
                .count(),
            sources: sources.len(),
            files: after.files.len(),
        }
    }
}

/// What `--apply` does with one object, as the server's dry run answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The replacement is on the server with the planned spec.
    Unchanged,
    /// The replacement is created (the dry run passed).
    Create,
    /// An object of the replacement's name holds another spec.
    Clash(String),
    /// The server's dry run of the create refused it.
    DryRunRefused(String),
    /// The server does not serve the replacement's resource.
    NoCrd {
        /// `imagedigestmirrorsets.config.openshift.io`.
        resource: String,
        /// `ImageDigestMirrorSet`.
        kind: String,
    },
    /// The server refused the dry run (forbidden).
    Refused(String),
    /// The ICSP's delete dry run conflicted: it changed since it was read.
    Changed(String),
    /// The ICSP was read without `uid` and `resourceVersion`.
    NoPreconditions,
    /// The ICSP is deleted at this version once its replacement is read back.
    Delete {
        resource_version: String,
        name: String,
    },
    /// The ICSP is gone already.
    AlreadyDeleted,
}

/// Why a step of the plan stops the migration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// An object of the replacement's name holds another spec.
    Clash,
    /// The server does not serve the replacement's resource.
    NoCrd(String),
    /// The server refused the dry run.
    Server,
    /// The ICSP changed since it was read.
    Changed,
}

impl Step {
    /// The problem that stops the migration at this step, if any.
    pub fn problem(&self) -> Option<Problem> {
        match self {
            Self::Unchanged | Self::Create | Self::Delete { .. } | Self::AlreadyDeleted => None,
            Self::Clash(_) => Some(Problem::Clash),
            Self::NoCrd { resource, .. } => Some(Problem::NoCrd(resource.clone())),
            Self::DryRunRefused(_) | Self::Refused(_) | Self::NoPreconditions => {
                Some(Problem::Server)
            }
            Self::Changed(_) => Some(Problem::Changed),
        }
    }
}

/// One row of the `--apply` plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanRow {
    /// `Kind/name`.
    pub object: String,
    pub step: Step,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::RepositoryDigestMirrors;

    fn icsp(name: &str, entries: &[(&str, &[&str])]) -> ImageContentSourcePolicy {
        let mut o = ImageContentSourcePolicy::new(name);
        o.spec.repository_digest_mirrors = entries
            .iter()
            .map(|(s, m)| RepositoryDigestMirrors {
                source: s.to_string(),
                mirrors: m.iter().map(|x| x.to_string()).collect(),
            })
            .collect();
        o
    }

    /// openshift/oc pkg/cli/admin/migrate/icsp/icsp_test.go TestGenerateIDMS
    /// ("convert icsp to idms"): the same bytes.
    #[test]
    fn generate_idms_matches_oc() {
        let mut o = icsp(
            "convert",
            &[
                (
                    "source.example.com",
                    &["z1.example.com", "y2.example.com", "x3.example.com"],
                ),
                (
                    "source.example.net",
                    &["z1.example.net", "y2.example.net", "x3.example.net"],
                ),
            ],
        );
        o.metadata.labels.insert("icspIdx".into(), "1".into());
        o.metadata
            .annotations
            .insert("icspCon".into(), "idms".into());
        let out = convert(&o, Options::default());
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].to_yaml(),
            "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
    annotations:
        icspCon: idms
    labels:
        icspIdx: \"1\"
    name: convert
spec:
    imageDigestMirrors:
        - mirrors:
            - z1.example.com
            - y2.example.com
            - x3.example.com
          source: source.example.com
        - mirrors:
            - z1.example.net
            - y2.example.net
            - x3.example.net
          source: source.example.net
"
        );
        assert_eq!(out[0].file_name(), "imagedigestmirrorset_convert.yaml");
    }

    #[test]
    fn server_metadata_is_dropped_and_tags_optional() {
        let mut o = icsp("release", &[("quay.io/x", &["m.example.com/x"])]);
        o.metadata.uid = Some("abc".into());
        o.metadata.resource_version = Some("42".into());
        o.metadata
            .annotations
            .insert(LAST_APPLIED.into(), "{...}".into());
        o.metadata
            .annotations
            .insert("team".into(), "platform".into());
        let out = convert(
            &o,
            Options {
                tag_mirrors: true,
                ..Options::default()
            },
        );
        assert_eq!(out.len(), 2);
        let yaml = out[0].to_yaml();
        assert!(
            !yaml.contains("uid") && !yaml.contains("resourceVersion"),
            "{yaml}"
        );
        assert!(!yaml.contains(LAST_APPLIED), "{yaml}");
        assert!(yaml.contains("team: platform"), "{yaml}");
        assert_eq!(out[1].kind(), "ImageTagMirrorSet");
        assert!(out[1].to_yaml().contains("imageTagMirrors:"));
        assert_eq!(out[1].file_name(), "imagetagmirrorset_release.yaml");
    }

    #[test]
    fn scalars_quote_what_would_read_as_another_type() {
        for (s, want) in [
            ("1", "\"1\""),
            ("true", "\"true\""),
            ("Yes", "\"Yes\""),
            ("", "\"\""),
            ("1.5", "\"1.5\""),
            ("-1", "\"-1\""),
            ("quay.io/x", "quay.io/x"),
            ("registry:5000/x", "registry:5000/x"),
            ("a: b", "\"a: b\""),
            ("*.example.com", "\"*.example.com\""),
            ("line\nbreak", "\"line\\nbreak\""),
            ("app.kubernetes.io/name", "app.kubernetes.io/name"),
        ] {
            assert_eq!(crate::go_yaml::portable_scalar(s), want, "{s:?}");
        }
    }

    /// Found by the round-trip property (tests/it/properties.rs): a merge key
    /// and characters yaml.v3 never writes plain came out plain, and the
    /// YAML did not read back (or read back as other text).
    #[test]
    fn issue_12_writer_quotes_merge_keys_and_unprintable_characters() {
        for s in [
            "<<",
            "\u{feff}x",
            "a\u{feff}",
            "😀",
            "a\u{2028}b",
            "a\u{2029}b",
            "a\u{85}b",
            "\u{9f}",
            "\u{fffe}",
            "a\tb",
        ] {
            let quoted = crate::go_yaml::portable_scalar(s);
            assert!(quoted.starts_with('"'), "{s:?} written plain: {quoted}");
            let back: String = serde_saphyr::from_str(&quoted).unwrap();
            assert_eq!(back, s);
        }
        // Printable non-ASCII text stays plain, as yaml.v3 writes it.
        assert_eq!(
            crate::go_yaml::portable_scalar("é.example.com"),
            "é.example.com"
        );
        assert_eq!(crate::go_yaml::portable_scalar("a\u{a0}b"), "a\u{a0}b");
    }

    #[test]
    fn yaml_reads_back_as_the_object() {
        let o = icsp(
            "x",
            &[
                ("*.example.com", &["m.example.com:5000/a"]),
                ("quay.io/b", &[]),
            ],
        );
        let tags = Options {
            tag_mirrors: true,
            ..Options::default()
        };
        for r in convert(&o, tags) {
            let back: serde_json::Value = serde_saphyr::from_str(&r.to_yaml()).unwrap();
            let mut want = r.to_json();
            // An empty mirror list is written as `[]`.
            assert_eq!(back, std::mem::take(&mut want), "{}", r.to_yaml());
        }
    }

    #[test]
    fn checks_find_invalid_conflicting_empty_and_covered() {
        let mut inputs = Inputs::default();
        inputs.icsps.push(icsp(
            "bad",
            &[
                ("quay.io/x", &["m.example.com/x"]),
                ("quay.io/y", &["not a mirror"]),
            ],
        ));
        inputs
            .icsps
            .push(icsp("covered", &[("quay.io/c", &["m.example.com/c"])]));
        inputs.icsps.push(icsp("empty", &[("quay.io/e", &[])]));
        let mut existing = ImageDigestMirrorSet::new("other");
        existing.spec.image_digest_mirrors.push(ImageDigestMirrors {
            source: "quay.io/c".into(),
            mirrors: vec!["m.example.com/c".into()],
            mirror_source_policy: None,
        });
        inputs.idmss.push(existing);
        let mut clash = ImageDigestMirrorSet::new("empty");
        clash.spec.image_digest_mirrors.push(ImageDigestMirrors {
            source: "quay.io/zzz".into(),
            mirrors: vec!["m.example.com/zzz".into()],
            mirror_source_policy: None,
        });
        inputs.idmss.push(clash);
        let replacements: Vec<Replacement> = inputs
            .icsps
            .iter()
            .flat_map(|i| convert(i, Options::default()))
            .collect();
        let checks = check(&inputs, &replacements);
        assert!(checks.refused());
        assert_eq!(checks.invalid.len(), 1, "{:?}", checks.invalid);
        assert!(
            checks.invalid[0].starts_with("ImageContentSourcePolicy/bad entry 1: ImageDigestMirrorSet/bad: spec.imageDigestMirrors[1].mirrors[0]: \"not a mirror\""),
            "{}",
            checks.invalid[0]
        );
        assert_eq!(checks.name_conflicts.len(), 1);
        assert!(checks.name_conflicts[0].starts_with("ImageDigestMirrorSet/empty already exists"));
        let w = checks.warnings.join("\n");
        assert!(
            w.contains("ImageContentSourcePolicy/empty entry 0 (quay.io/e) has no mirrors"),
            "{w}"
        );
        assert!(w.contains("every mirror of ImageContentSourcePolicy/covered is already in an existing ImageDigestMirrorSet"), "{w}");
    }

    /// apimachinery validation_test.go TestIsDNS1123Subdomain (good and
    /// bad values), plus the names of the path-escape reports.
    #[test]
    fn names_the_api_server_refuses() {
        for good in [
            "a",
            "ab",
            "abc",
            "a1",
            "a-1",
            "a--1--2--b",
            "0",
            "01",
            "012",
            "1a",
            "1-a",
            "1--a--b--2",
            "a.a",
            "ab.a",
            "abc.a",
            "a1.a",
            "a-1.a",
            "a--1--2--b.a",
            "a.1",
            "ab.1",
            "0.a",
            "01.a",
            "a.b.c.d.e",
            "aa.bb.cc.dd.ee",
            "1.2.3.4.5",
            "11.22.33.44.55",
            &"a".repeat(253),
        ] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "A",
            "ABC",
            "aBc",
            "A1",
            "A-1",
            "1-A",
            "-",
            "a-",
            "-a",
            "1-",
            "-1",
            "_",
            "a_",
            "_a",
            "a_b",
            "1_",
            "_1",
            "1_2",
            ".",
            "a.",
            ".a",
            "a..b",
            "1.",
            ".1",
            "1..2",
            " ",
            "a ",
            " a",
            "a b",
            "1 ",
            " 1",
            "1 2",
            "A.a",
            "aB.a",
            "ab.A",
            "A1.a",
            "a1.A",
            "A.1",
            "aB.1",
            "A1.1",
            "1A.1",
            "0.A",
            "01.A",
            "012.A",
            "1A.a",
            "1a.A",
            "A.B.C.D.E",
            "AA.BB.CC.DD.EE",
            "a.B.c.d.e",
            "aa.bB.cc.dd.ee",
            "a@b",
            "a,b",
            "a_b",
            "a;b",
            "a:b",
            "a%b",
            "a?b",
            "a$b",
            "..",
            "UPPER",
            "a/../../escaped",
            "../../outside/pwned",
            "x\n",
            &"a".repeat(254),
        ] {
            assert!(name_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(
            name_problem(""),
            Some("Required value: name or generateName is required".into())
        );
        let long = name_problem(&"a".repeat(254)).unwrap();
        assert!(
            long.ends_with(": must be no more than 253 characters"),
            "{long}"
        );
        let slash = name_problem("a/../../escaped").unwrap();
        assert!(
            slash.starts_with("Invalid value: \"a/../../escaped\": a lowercase RFC 1123 subdomain"),
            "{slash}"
        );
    }

    #[test]
    fn gitops_markers_stay_with_the_icsp_unless_kept() {
        let mut o = icsp("apps", &[("quay.io/x", &["m.example.com/x"])]);
        let meta = &mut o.metadata;
        for (k, v) in [
            ("app.kubernetes.io/instance", "platform"),
            ("kustomize.toolkit.fluxcd.io/name", "mirrors"),
            ("kustomize.toolkit.fluxcd.io/namespace", "flux-system"),
            ("helm.toolkit.fluxcd.io/name", "release"),
            ("team", "platform"),
        ] {
            meta.labels.insert(k.into(), v.into());
        }
        meta.annotations.insert(
            "argocd.argoproj.io/tracking-id".into(),
            "platform:operator.openshift.io/ImageContentSourcePolicy:/apps".into(),
        );
        meta.annotations.insert("owner".into(), "team-a".into());
        meta.finalizers.push("example.com/hold".into());
        meta.owner_references.push(crate::objects::OwnerReference {
            kind: "Application".into(),
            name: "platform".into(),
            controller: Some(true),
            ..Default::default()
        });
        let markers: Vec<String> = gitops_markers(&o.metadata)
            .iter()
            .map(|m| format!("{} {} {}", m.tool, m.place, m.key))
            .collect();
        assert_eq!(
            markers,
            [
                "Argo CD label app.kubernetes.io/instance",
                "Flux label kustomize.toolkit.fluxcd.io/name",
                "Flux label kustomize.toolkit.fluxcd.io/namespace",
                "Flux label helm.toolkit.fluxcd.io/name",
                "Argo CD annotation argocd.argoproj.io/tracking-id",
            ]
        );
        let dropped = convert(&o, Options::default());
        let meta = &dropped[0].to_json()["metadata"];
        assert_eq!(
            meta,
            &serde_json::json!({"annotations": {"owner": "team-a"}, "labels": {"team": "platform"}, "name": "apps"})
        );
        let kept = convert(
            &o,
            Options {
                keep_gitops_markers: true,
                ..Options::default()
            },
        );
        let meta = &kept[0].to_json()["metadata"];
        assert_eq!(meta["labels"].as_object().unwrap().len(), 5, "{meta}");
        assert_eq!(meta["annotations"].as_object().unwrap().len(), 2, "{meta}");
        // Finalizers and owners never move to the replacement.
        assert!(meta.get("finalizers").is_none() && meta.get("ownerReferences").is_none());
        let holders = Holders::of(&o).unwrap();
        assert_eq!(holders.finalizers, ["example.com/hold"]);
        assert_eq!(holders.owners, ["Application/platform (controller)"]);
        assert_eq!(holders.tools(), ["Argo CD", "Flux"]);
        assert_eq!(Holders::of(&icsp("plain", &[])), None);
    }

    /// An ICSP whose entries all lack mirrors is not "already in an
    /// existing IDMS": there is nothing to be in one.
    #[test]
    fn issue_28_no_vacuous_covered_warning() {
        let mut inputs = Inputs::default();
        inputs.icsps.push(icsp("empty", &[("quay.io/e", &[])]));
        let mut existing = ImageDigestMirrorSet::new("other");
        existing.spec.image_digest_mirrors.push(ImageDigestMirrors {
            source: "quay.io/e".into(),
            mirrors: vec!["m.example.com/e".into()],
            mirror_source_policy: None,
        });
        inputs.idmss.push(existing);
        let replacements = convert(&inputs.icsps[0], Options::default());
        let checks = check(&inputs, &replacements);
        assert_eq!(
            checks.warnings,
            ["ImageContentSourcePolicy/empty entry 0 (quay.io/e) has no mirrors: it changes nothing on the nodes, and neither does its replacement"]
        );
    }

    #[test]
    fn plan_rows() {
        let desired = serde_json::json!({"spec": {"imageDigestMirrors": [{"source": "a", "mirrors": ["b"]}]}});
        assert_eq!(plan(&desired, None), Action::Create);
        assert_eq!(plan(&desired, Some(&desired)), Action::Unchanged);
        let other = serde_json::json!({"spec": {"imageDigestMirrors": []}});
        assert!(matches!(plan(&desired, Some(&other)), Action::Conflict(_)));
    }
}
