//! `lint`: what the API server and the MCO would refuse or silently change,
//! found before anything is applied.
//!
//! Errors are the CRD rules (the API server refuses the object) and the
//! MCO's own validation (`validateRegistriesConfScopes` and the policy.json
//! checks: the MCO only logs these and keeps the previous configuration),
//! reported with the MCO's messages and all at once rather than the first
//! one. Warnings are what is legal but probably not meant: mirror orders
//! that contradict each other, `NeverContactSource` the MCO ignores, a
//! source shadowed by a more specific one, deprecated objects.

use serde::Serialize;

use crate::crd::Inputs;
use crate::origin::Origin;
use crate::render::cluster::{profile_of, registries_input, render_pool};
use crate::render::findings::{McoFinding, RenderWarning};
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

/// An MCO validation finding, as the MCO words it.
fn mco(finding: McoFinding) -> Finding {
    Finding {
        level: Level::Error,
        file: None,
        object: Some(finding.object()),
        message: finding.message(),
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
    let mut out = crd_findings(inputs);
    out.extend(mco_findings(inputs, &input));
    out.extend(set_warnings(&input));
    for icsp in &inputs.icsps {
        let origin = icsp.origin();
        let message = match inputs.generated(&origin) {
            Some(_) => "imageContentSources is deprecated: the installer writes it as this ImageContentSourcePolicy; write its entries as imageDigestSources to get an ImageDigestMirrorSet".to_string(),
            None => "ImageContentSourcePolicy is deprecated: migrate it to an ImageDigestMirrorSet (kubectl mirrorpolicy migrate-icsp)".to_string(),
        };
        out.push(warning(Some(&origin), message));
    }
    out.extend(shadowing_warnings(&input));
    for (source, conflicts) in order_conflicts(&input) {
        for c in conflicts {
            out.push(warning(None, format!("{source}: {c}")));
        }
    }
    let found_errors = out.iter().any(|f| f.level == Level::Error);
    out.extend(render_findings(inputs, found_errors));
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
                format!("{} (the API server refuses this object)", e.detail()),
            )
        })
        .chain(inputs.field_warnings.iter().map(|w| Finding {
            file: w.file.clone(),
            ..warning(Some(&w.object), w.detail())
        }))
        .collect()
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
                "NeverContactSource for \"{}\" has no mirror other than the source: the MCO ignores it and the source stays reachable",
                set.source
            )));
        }
        if set.mirrors.is_empty() {
            out.push(warning(
                o,
                format!("\"{}\" has no mirrors: the entry has no effect", set.source),
            ));
        }
        let mut seen = Vec::new();
        for m in &set.mirrors {
            if seen.contains(&m) {
                out.push(warning(
                    o,
                    format!("mirror \"{m}\" is listed twice for \"{}\"", set.source),
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
                    "source \"{narrow}\" is more specific than \"{broad}\" ({b_origin}): images under {narrow} use only its own mirrors, never those of {broad}"
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
fn render_findings(inputs: &Inputs, found_errors: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    match render_pool(inputs, "worker") {
        Ok(r) => {
            for w in r
                .warnings
                .iter()
                // What the tool assumed, not a problem of the objects linted.
                .filter(|w| {
                    !matches!(
                        w,
                        RenderWarning::NoImageConfig | RenderWarning::ReleaseAssumed { .. }
                    )
                })
            {
                let level = if w.drops_configuration() {
                    Level::Error
                } else {
                    Level::Warning
                };
                out.push(Finding {
                    level,
                    file: None,
                    object: None,
                    message: w.to_string(),
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
