//! `lint`: what the API server and the MCO would refuse or silently change,
//! found before anything is applied.
//!
//! Errors are the CRD rules and the API server's checks that depend on
//! other objects (the API server refuses the object), and the
//! MCO's own validation (`validateRegistriesConfScopes` and the policy.json
//! checks: the MCO only logs these and keeps the previous configuration),
//! reported with the MCO's messages and all at once rather than the first
//! one. Warnings are what is legal but probably not meant: mirror orders
//! that contradict each other, `NeverContactSource` the MCO ignores, a
//! source shadowed by a more specific one, deprecated objects, a source
//! without a registry host (it never matches), an `allowedRegistries` that
//! leaves out the registries the platform itself pulls from.

use serde::Serialize;

use crate::admission::{mirror_set_refusals, release_answering_with_check, Refusal};
use crate::objects::image::EDIT_IMAGE_CONFIG;
use crate::objects::{ImageContentSourcePolicy, Inputs};
use crate::origin::Origin;
use crate::policy::{policy_namespaces, scope_covers};
use crate::reference::Reference;
use crate::registries::lookup::{self, hostless_prefix, Role};
use crate::render::findings::RenderError;
use crate::render::findings::{McoFinding, RenderWarning};
use crate::render::node::node_view;
use crate::render::pool::{profile_of, registries_input, render_pool, Rendered};
use crate::render::registries::{
    list_findings_as, order_conflicts, set_findings_as, RegistriesInput, SourcePolicy,
};
use crate::render::scope::scope_is_nested_inside_scope;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub level: Level,
    /// Where the object at fault was read (`file:line`, or
    /// the cluster), when known.
    pub file: Option<Origin>,
    /// The object at fault, when there is one.
    pub object: Option<Origin>,
    pub message: String,
}

fn error(object: Option<&Origin>, message: String) -> Finding {
    Finding {
        level: Level::Error,
        file: None,
        object: object.cloned(),
        message,
    }
}

/// What the MCO does with a configuration its validation refuses, as the
/// user finds it: the machine-config-controller's log line, and the nodes
/// left as they were.
const MCO_REFUSES: &str =
    "the machine-config-controller logs it (`Error syncing image config openshift-config: ...`) \
     and keeps the previous registries.conf and policy.json on every node";

/// An MCO validation finding: the MCO's words, what it does, then the fix.
fn mco(finding: McoFinding) -> Finding {
    Finding {
        level: Level::Error,
        file: None,
        object: Some(finding.object()),
        message: format!(
            "{}: {MCO_REFUSES}; fix: {}",
            finding.message(),
            mco_fix(&finding)
        ),
    }
}

/// How to edit the objects so the MCO accepts them.
fn mco_fix(finding: &McoFinding) -> String {
    let list_entry = |list: &str, entry: &str| {
        format!(
            "correct or remove \"{entry}\" in spec.registrySources.{list} ({EDIT_IMAGE_CONFIG}): a host, host:port, \
             a repository under one, or *.domain"
        )
    };
    let pattern = "a registry host (with an optional port) and an optional repository path, without a tag or digest";
    match finding {
        McoFinding::InvalidInsecure(s) => list_entry("insecureRegistries", s),
        McoFinding::InvalidBlocked(s) => list_entry("blockedRegistries", s),
        McoFinding::InvalidAllowed(s) => list_entry("allowedRegistries", s),
        McoFinding::AllowedAndBlocked => format!(
            "keep only one of spec.registrySources.allowedRegistries and blockedRegistries ({EDIT_IMAGE_CONFIG})"
        ),
        McoFinding::InvalidSource { scope, .. } => format!("write the source \"{scope}\" as {pattern}"),
        McoFinding::InvalidMirror { mirror, .. } => {
            format!("write the mirror \"{mirror}\" as {pattern}")
        }
        McoFinding::ConflictingPolicy { scope, first, .. }
        | McoFinding::ConflictingPolicyInSets { scope, first, .. } => format!(
            "give \"{scope}\" the same mirrorSourcePolicy here and in {first}"
        ),
        McoFinding::NeverContactSourceIsMirror { scope, .. } => format!(
            "remove \"{scope}\" from the entry's mirrors, or drop its mirrorSourcePolicy"
        ),
        McoFinding::EmptySource { .. } | McoFinding::EmptyMirror { .. } => {
            "remove the empty entry".to_string()
        }
        McoFinding::WildcardMirrorConfiguration { entry, .. } => format!(
            "replace \"{entry}\" with one entry per registry (the MCO of this release takes no `*` in a mirror set)"
        ),
    }
}

fn warning(object: Option<&Origin>, message: String) -> Finding {
    Finding {
        level: Level::Warning,
        file: None,
        object: object.cloned(),
        message,
    }
}

/// Lints the inputs: errors first, then warnings, each group in input order.
pub fn lint(inputs: &Inputs) -> Vec<Finding> {
    let input = registries_input(inputs);
    let rendered = render_pool(inputs, "worker");
    let mut out = crd_findings(inputs);
    out.extend(admission_findings(inputs));
    out.extend(mco_findings(inputs, &input));
    out.extend(set_warnings(&input));
    for icsp in &inputs.icsps {
        let origin = icsp.origin();
        let message = match inputs.generated(&origin) {
            Some(_) => "imageContentSources is deprecated: the installer writes it as this ImageContentSourcePolicy, a kind OpenShift deprecated in 4.13; fix: write its entries as imageDigestSources to get an ImageDigestMirrorSet".to_string(),
            None => "ImageContentSourcePolicy is deprecated: OpenShift deprecated the kind in 4.13 for ImageDigestMirrorSet, which the MCO renders the same way; fix: migrate it to an ImageDigestMirrorSet (kubectl mirrorpolicy migrate-icsp), on the cluster with --apply --delete-icsp".to_string(),
        };
        out.push(warning(Some(&origin), message));
    }
    out.extend(shadowing_warnings(&input));
    out.extend(hostless_source_warnings(inputs));
    out.extend(allowed_registries_warnings(inputs, rendered.as_ref().ok()));
    for (source, conflicts) in order_conflicts(&input) {
        for c in conflicts {
            out.push(warning(None, format!(
                "{source}: {c}; fix: list the mirrors in one order in every object for {source}, or keep them in one entry"
            )));
        }
    }
    let found_errors = out.iter().any(|f| f.level == Level::Error);
    out.extend(render_findings(&rendered, found_errors));
    for f in &mut out {
        entry_of_install_config(inputs, f);
        if f.file.is_none() {
            f.file = f.object.as_ref().and_then(|o| inputs.read_from(o)).cloned();
        }
    }
    out.sort_by_key(|f| f.level);
    out
}

/// A finding about one entry of an object the installer writes from
/// install-config.yaml is said of that entry: its line, the object, the
/// field (`imageDigestSources[1]: ...`).
fn entry_of_install_config(inputs: &Inputs, f: &mut Finding) {
    let Some(label) = &f.object else { return };
    let found = inputs.generated.iter().find_map(|g| {
        let i = g.entries.iter().position(|e| e.origin == *label)?;
        Some((g, i))
    });
    if let Some((g, i)) = found {
        f.file = Some(Origin::file_line(&g.file, g.entries[i].line));
        f.message = format!("{}[{i}]: {}", g.field, f.message);
        f.object = Some(g.object.clone());
    }
}

/// What the API server refuses: the CRD rules, and what reading found
/// (unknown fields, a wrong apiVersion, a misspelt kind); then, as
/// warnings, the fields a CRD given declares that the tool does not model.
fn crd_findings(inputs: &Inputs) -> Vec<Finding> {
    inputs
        .validate()
        .into_iter()
        .map(|e| Finding {
            file: e.file.clone(),
            ..error(
                Some(&e.object),
                format!(
                    "{} (the API server refuses this object); fix: correct {} and apply it again",
                    e.detail(),
                    e.field
                ),
            )
        })
        .chain(inputs.field_warnings.iter().map(|w| Finding {
            file: w.file.clone(),
            ..warning(Some(&w.object), w.detail())
        }))
        .collect()
}

/// What the API server of the release answering writes (ClusterVersion:
/// the desired release, or the one an update in progress leaves) refuses
/// because of other objects, in its words, with the way out: an
/// ImageDigestMirrorSet or ImageTagMirrorSet beside an
/// ImageContentSourcePolicy on OpenShift 4.13.0–4.13.26 and 4.14.0–4.14.2
/// ([`crate::admission`]).
fn admission_findings(inputs: &Inputs) -> Vec<Finding> {
    let Some(release) = inputs
        .cluster_version
        .as_ref()
        .and_then(release_answering_with_check)
    else {
        return Vec::new();
    };
    mirror_set_refusals(inputs, release)
        .iter()
        .map(|r| error(Some(&r.object), admission_message(r)))
        .collect()
}

/// A refusal of [`admission_findings`], and what to do about it.
fn admission_message(r: &Refusal) -> String {
    let existing: Vec<String> = r.existing.iter().map(ToString::to_string).collect();
    let verb = if existing.len() == 1 {
        "exists"
    } else {
        "exist"
    };
    let first = r.first_without_check();
    let way_out = if r.kind == ImageContentSourcePolicy::KIND {
        format!(
            "write it as an ImageDigestMirrorSet instead (kubectl mirrorpolicy migrate-icsp FILE), \
             or update to {first} or later"
        )
    } else {
        // `migrate-icsp --apply` creates the replacements before deleting
        // the ImageContentSourcePolicies, which this API server refuses.
        format!(
            "update to {first} or later first, then replace the ImageContentSourcePolicies \
             (kubectl mirrorpolicy migrate-icsp --apply --delete-icsp); or delete them before \
             creating it (kubectl mirrorpolicy migrate-icsp --dest-dir DIR writes their \
             replacements; the nodes go without their mirrors in between)"
        )
    };
    format!(
        "{} (the API server of OpenShift {} refuses this object while {} {verb}; from {first} \
         on it does not): {way_out}",
        r.api_server_message(),
        r.release,
        existing.join(", "),
    )
}

/// Every finding of the MCO's own validation, on the Image config as
/// written (before payload protection) and the mirror sets, as the MCO of
/// the inputs' release (ClusterVersion) validates them: none before 4.9,
/// ImageContentSourcePolicy wildcards from 4.9, every mirror set from 4.13,
/// the source and mirror patterns from 4.16 (the newest when the release
/// is not known).
fn mco_findings(inputs: &Inputs, input: &RegistriesInput) -> Vec<Finding> {
    let family = profile_of(inputs).validation;
    let sources = inputs
        .image
        .as_ref()
        .map(|i| i.spec.registry_sources.clone())
        .unwrap_or_default();
    let insecure = sources.insecure_registries.unwrap_or_default();
    let blocked = sources.blocked_registries.unwrap_or_default();
    let allowed = sources.allowed_registries.unwrap_or_default();
    let mut findings = list_findings_as(&insecure, &blocked, &allowed, family);
    if !allowed.is_empty() && !blocked.is_empty() {
        findings.push(McoFinding::AllowedAndBlocked);
    }
    findings.extend(set_findings_as(input, family));
    findings.into_iter().map(mco).collect()
}

/// What is legal in a mirror set but probably not meant.
fn set_warnings(input: &RegistriesInput) -> Vec<Finding> {
    let mut out = Vec::new();
    for set in input.idms.iter().chain(&input.icsp).chain(&input.itms) {
        let o = Some(&set.origin);
        let real = set.mirrors.iter().any(|m| *m != set.source);
        if set.policy == SourcePolicy::NeverContactSource && !real {
            out.push(warning(o, format!(
                "NeverContactSource for \"{}\" has no mirror other than the source: the MCO ignores it and the source stays reachable; fix: add a mirror other than the source to this entry, or drop its mirrorSourcePolicy",
                set.source
            )));
        }
        if set.mirrors.is_empty() {
            out.push(warning(
                o,
                format!(
                    "\"{}\" has no mirrors: the entry has no effect; fix: list its mirrors under `mirrors`, or delete the entry",
                    set.source
                ),
            ));
        }
        let mut seen = Vec::new();
        for m in &set.mirrors {
            if seen.contains(&m) {
                out.push(warning(
                    o,
                    format!(
                        "mirror \"{m}\" is listed twice for \"{}\": the second adds nothing; fix: remove it",
                        set.source
                    ),
                ));
            }
            seen.push(m);
        }
    }
    out
}

/// Shadowing: a more specific mirrored source takes every image under it,
/// so the broader source's mirrors are never used there.
fn shadowing_warnings(input: &RegistriesInput) -> Vec<Finding> {
    let mut out = Vec::new();
    let mirrored: Vec<(&str, &Origin)> = input
        .idms
        .iter()
        .chain(&input.icsp)
        .chain(&input.itms)
        .filter(|s| s.mirrors.iter().any(|m| *m != s.source))
        .map(|s| (s.source.as_str(), &s.origin))
        .collect();
    let mut reported = Vec::new();
    for (narrow, n_origin) in &mirrored {
        for (broad, b_origin) in &mirrored {
            if narrow != broad
                && scope_is_nested_inside_scope(narrow, broad)
                && !reported.contains(&(*narrow, *broad))
            {
                reported.push((*narrow, *broad));
                out.push(warning(Some(n_origin), format!(
                    "source \"{narrow}\" is more specific than \"{broad}\" ({b_origin}): images under {narrow} use only its own mirrors, never those of {broad}; fix: if {broad}'s mirrors should serve them too, add those mirrors (with the path under {broad}) to the entry for {narrow}"
                )));
            }
        }
    }
    out
}

/// What the render reports: the configuration the MCO silently drops
/// (errors) and what it only logs. When the checks before found no error,
/// the MCO's refusal to render (an edit error such as a wildcard nesting);
/// the MCO stops at its first error.
fn render_findings(rendered: &Result<Rendered, RenderError>, found_errors: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    match rendered {
        Ok(r) => {
            for w in r
                .warnings
                .iter()
                // What the tool assumed, not a problem of the objects linted.
                .filter(|w| {
                    !matches!(
                        w,
                        RenderWarning::NoImageConfig
                            | RenderWarning::ReleaseAssumed { .. }
                            // Reported as the API server's refusal.
                            | RenderWarning::RefusedByApiServer { .. }
                    )
                })
            {
                let level = if w.drops_configuration() {
                    Level::Error
                } else {
                    Level::Warning
                };
                let message = match render_fix(w) {
                    Some(fix) => format!("{w}; fix: {fix}"),
                    None => w.to_string(),
                };
                out.push(Finding {
                    level,
                    file: None,
                    object: None,
                    message,
                });
            }
        }
        // The MCO stops at its first error; report it only when the checks
        // above found none (an edit error such as a wildcard nesting).
        Err(e) if !found_errors => {
            out.push(error(None, format!("the MCO refuses to render: {e}")));
        }
        Err(_) => {}
    }
    out
}

/// What to change so the render no longer drops or leaves out part of the
/// configuration (none for the refusals reported with their own fix).
fn render_fix(w: &RenderWarning) -> Option<String> {
    Some(match w {
        RenderWarning::PayloadBlocked { .. } => format!(
            "remove them from spec.registrySources.blockedRegistries ({EDIT_IMAGE_CONFIG}), or block \
             narrower repositories that leave the release payload's out"
        ),
        RenderWarning::PayloadCheckFailed { .. } => format!(
            "correct the spec.registrySources entry the reason names ({EDIT_IMAGE_CONFIG})"
        ),
        RenderWarning::NotReadByRelease { since, .. } => {
            format!("remove them, or update the cluster to OpenShift 4.{since} or later first")
        }
        RenderWarning::NoReleaseImage => {
            "add ClusterVersion/version (oc get clusterversion version -o yaml) to the input".to_string()
        }
        RenderWarning::ScopeConflict { origin, .. } => format!(
            "remove the scopes the ClusterImagePolicies already cover from {origin}, or change the ClusterImagePolicy"
        ),
        RenderWarning::PayloadScopesSkipped { origin, .. } => format!(
            "remove the release payload's repositories from the scopes of {origin}: the MCO of this release never applies them"
        ),
        RenderWarning::NoImageConfig
        | RenderWarning::ReleaseAssumed { .. }
        | RenderWarning::RefusedByApiServer { .. } => return None,
    })
}

/// Mirror-set sources without a registry host (`source: operator-framework`
/// for `quay.io/operator-framework`, as oc-mirror once wrote): the MCO
/// renders them, but they never match the images meant (see
/// [`lookup::HostlessPrefix`]).
fn hostless_source_warnings(inputs: &Inputs) -> Vec<Finding> {
    let mut sets: Vec<(Origin, String, &str, &[String])> = Vec::new();
    for o in &inputs.idmss {
        for (i, e) in o.spec.image_digest_mirrors.iter().enumerate() {
            let field = format!("spec.imageDigestMirrors[{i}].source");
            sets.push((o.origin(), field, e.source.as_str(), &e.mirrors));
        }
    }
    for o in &inputs.itmss {
        for (i, e) in o.spec.image_tag_mirrors.iter().enumerate() {
            let field = format!("spec.imageTagMirrors[{i}].source");
            sets.push((o.origin(), field, e.source.as_str(), &e.mirrors));
        }
    }
    for o in &inputs.icsps {
        for (i, e) in o.spec.repository_digest_mirrors.iter().enumerate() {
            let field = format!("spec.repositoryDigestMirrors[{i}].source");
            sets.push((o.origin(), field, e.source.as_str(), &e.mirrors));
        }
    }
    sets.into_iter()
        .filter_map(|(origin, field, source, mirrors)| {
            let mirrors: Vec<&str> = mirrors.iter().map(String::as_str).collect();
            let h = hostless_prefix(source, &mirrors)?;
            Some(warning(
                Some(&origin),
                format!(
                    "{field}: the mirrors of \"{source}\" are not used for the images meant, though the MCO renders the entry: {}; {}",
                    h.reason(),
                    h.fix()
                ),
            ))
        })
        .collect()
}

/// CRI-O's error for an image policy.json's `reject` refuses
/// (containers/image copy/single.go and signature/policy_eval_simple.go).
fn rejected_words(image: &str) -> String {
    format!("Source image rejected: Running image docker://{image} is rejected by policy.")
}

/// The internal registry's host as pods pull from it (the Image status's
/// `internalRegistryHostname`), port included.
const INTERNAL_REGISTRY: &str = "image-registry.openshift-image-registry.svc:5000";
/// Where Red Hat's operators and their catalogs are pulled from.
const RED_HAT_REGISTRY: &str = "registry.redhat.io";
/// The release repository as published, assumed without a ClusterVersion.
const PUBLISHED_RELEASE: &str = "quay.io/openshift-release-dev/ocp-release";
/// The namespace of the published release and its component images
/// (`ocp-v4.0-art-dev`).
const PUBLISHED_NAMESPACE: &str = "quay.io/openshift-release-dev";

/// `allowedRegistries` without the registries the platform pulls from.
/// With the list set, the MCO writes a policy.json whose default rejects,
/// and adds nothing to the list (it adds the payload repository only when
/// it keeps a blocked payload reachable through a mirror). Checked as
/// policy.json is: against the reference as written, never the mirror it
/// is served from. Set together with `blockedRegistries`, the MCO refuses
/// the list (an error above), so nothing is said here.
fn allowed_registries_warnings(inputs: &Inputs, rendered: Option<&Rendered>) -> Vec<Finding> {
    let Some(image) = &inputs.image else {
        return Vec::new();
    };
    let sources = &image.spec.registry_sources;
    let allowed = sources.allowed_registries.clone().unwrap_or_default();
    if allowed.is_empty()
        || sources
            .blocked_registries
            .as_ref()
            .is_some_and(|b| !b.is_empty())
    {
        return Vec::new();
    }
    let origin = Some(image.origin());
    let mut out: Vec<Finding> = payload_warning(inputs, rendered, &allowed)
        .into_iter()
        .map(|m| warning(origin.as_ref(), m))
        .collect();
    let left_out: Vec<String> = [
        (
            INTERNAL_REGISTRY,
            "the internal registry, port included: image streams and builds",
        ),
        (RED_HAT_REGISTRY, "Red Hat's operators and their catalogs"),
    ]
    .into_iter()
    .filter(|(host, _)| !host_allowed(&allowed, host))
    .map(|(host, what)| format!("{host} ({what})"))
    .collect();
    let left_out_hosts: Vec<&str> = [INTERNAL_REGISTRY, RED_HAT_REGISTRY]
        .into_iter()
        .filter(|host| !host_allowed(&allowed, host))
        .collect();
    if !left_out.is_empty() {
        let mirrored = match host_allowed(&allowed, RED_HAT_REGISTRY) {
            true => "",
            false => ", even one a mirror serves (policy.json judges the reference as written, not the mirror that serves it)",
        };
        out.push(warning(origin.as_ref(), format!(
            "spec.registrySources.allowedRegistries leaves out {}, which the platform pulls from and the MCO does not add: policy.json rejects every image there{mirrored}, and CRI-O fails each pull with `{}`; fix: add {} to spec.registrySources.allowedRegistries ({EDIT_IMAGE_CONFIG})",
            left_out.join(" and "),
            rejected_words("HOST/REPOSITORY:TAG"),
            left_out_hosts.join(" and ")
        )));
    }
    out
}

/// Whether some allowed scope admits images of `host`: the host itself, a
/// wildcard over it, or a namespace under it (a list that allows part of a
/// registry says what it means).
fn host_allowed(allowed: &[String], host: &str) -> bool {
    let Ok(probe) = Reference::parse_normalized_named(&format!("{host}/namespace/image")) else {
        return false;
    };
    let whole: Vec<String> = policy_namespaces(&probe)
        .into_iter()
        .filter(|n| !n.contains('/'))
        .collect();
    allowed
        .iter()
        .any(|s| whole.contains(s) || scope_is_nested_inside_scope(s, host))
}

/// The warning about the release payload, if its images are rejected: the
/// release image of the ClusterVersion (`status.desired.image`; without
/// one, the release repository as published), then, for a Red Hat release,
/// its component images beside it.
fn payload_warning(
    inputs: &Inputs,
    rendered: Option<&Rendered>,
    allowed: &[String],
) -> Option<String> {
    let given = inputs
        .cluster_version
        .as_ref()
        .and_then(|cv| cv.release_image());
    let (image, whence) = match given {
        Some(i) => (i, "ClusterVersion status.desired.image"),
        None => (
            PUBLISHED_RELEASE,
            "as published; no ClusterVersion in the input to read the cluster's own",
        ),
    };
    let release = Reference::parse_normalized_named(image).ok()?;
    let repo = release.name();
    let namespaces = policy_namespaces(&release);
    let admitted = |r: &Reference| allowed.iter().any(|s| scope_covers(s, r));
    let parent = namespaces
        .get(1)
        .cloned()
        .unwrap_or_else(|| release.domain().to_string());
    let pulled = match release.is_digested() {
        true => release.familiar_string(),
        false => format!("{}@sha256:...", release.name()),
    };
    let fix = format!(
        "; fix: add {parent} to spec.registrySources.allowedRegistries ({EDIT_IMAGE_CONFIG})"
    );
    if !admitted(&release) {
        return Some(format!(
            "spec.registrySources.allowedRegistries does not admit the release payload {repo} ({whence}): CRI-O fails every later pull of a payload image (a new node, an update, an image pruned from a node) with `{}`, as policy.json rejects every registry the list leaves out and the MCO adds nothing for the payload{}{fix}",
            rejected_words(&pulled),
            payload_mirrors(rendered, &release, allowed)
        ));
    }
    let component =
        Reference::parse_normalized_named(&format!("{PUBLISHED_NAMESPACE}/ocp-v4.0-art-dev"))
            .ok()?;
    (parent == PUBLISHED_NAMESPACE && !admitted(&component)).then(|| format!(
        "spec.registrySources.allowedRegistries admits the release image's repository {repo} ({whence}) but not its component images, {} and the rest of {PUBLISHED_NAMESPACE}: CRI-O fails every later pull of one (a new node, an update, an image pruned from a node) with `{}`, as policy.json rejects them{fix}",
        component.name(),
        rejected_words(&format!("{}@sha256:...", component.name()))
    ))
}

/// What the release image's mirrors change: nothing for the policy. Its
/// pulls go to the mirrors first, but policy.json judges the reference as
/// written. Empty when it has no mirror (or the inputs do not render).
fn payload_mirrors(rendered: Option<&Rendered>, release: &Reference, allowed: &[String]) -> String {
    let Some(rendered) = rendered else {
        return String::new();
    };
    let Ok(view) = node_view(rendered, None) else {
        return String::new();
    };
    // Payload images are pulled by digest (digest-only mirrors serve them).
    let pulled = match release.is_digested() {
        true => release.clone(),
        false => release
            .with_digest(ANY_DIGEST)
            .unwrap_or_else(|_| release.clone()),
    };
    let Some(plan) = lookup::find_registry(&view.registries, &pulled.name())
        .and_then(|r| lookup::pull_sources(r, &pulled).ok())
    else {
        return String::new();
    };
    let mirrors: Vec<&lookup::PullSource> = plan
        .sources
        .iter()
        .filter(|s| s.role == Role::Mirror)
        .collect();
    let mut by: Vec<Origin> = Vec::new();
    for o in mirrors.iter().flat_map(|m| &m.origins) {
        Origin::push_unique(&mut by, o);
    }
    let names: Vec<String> = mirrors.iter().map(|m| m.reference.name()).collect();
    let by: Vec<String> = by.iter().map(ToString::to_string).collect();
    let which = match mirrors
        .iter()
        .any(|m| allowed.iter().any(|s| scope_covers(s, &m.reference)))
    {
        true => "allowing the mirror does not admit the payload",
        false => "allowing the mirror would not admit it either",
    };
    if names.is_empty() {
        return String::new();
    }
    format!(
        ". Its pulls by digest go to its mirrors first ({}, from {}), but policy.json judges the reference as written, {}, not the mirror that serves it: {which}",
        names.join(", "),
        by.join(", "),
        release.name()
    )
}

/// A digest for a release reference given without one.
const ANY_DIGEST: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
