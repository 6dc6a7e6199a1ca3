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

use std::collections::BTreeMap;

use serde::Serialize;

use crate::origin::Origin;
use crate::render::cluster::{registries_input, render_pool};
use crate::render::findings::RenderWarning;
use crate::render::registries::{order_conflicts, SourcePolicy};
use crate::render::scope::{
    is_valid_mirror, is_valid_registries_conf_scope, is_valid_source, scope_is_nested_inside_scope,
};
use crate::source::Inputs;

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
    /// The object at fault, when there is one.
    pub object: Option<Origin>,
    pub message: String,
}

fn error(object: Option<&Origin>, message: String) -> Finding {
    Finding {
        level: Level::Error,
        object: object.cloned(),
        message,
    }
}

fn warning(object: Option<&Origin>, message: String) -> Finding {
    Finding {
        level: Level::Warning,
        object: object.cloned(),
        message,
    }
}

/// Lints the inputs: errors first, then warnings, each group in input order.
pub fn lint(inputs: &Inputs) -> Vec<Finding> {
    let mut out = Vec::new();
    for e in inputs.validate() {
        out.push(error(
            Some(&e.object),
            format!(
                "{}: {} (the API server refuses this object)",
                e.field, e.message
            ),
        ));
    }
    let input = registries_input(inputs);
    let image = Origin::object("Image", "cluster");
    let sources = inputs
        .image
        .as_ref()
        .map(|i| i.spec.registry_sources.clone())
        .unwrap_or_default();
    for (list, what) in [
        (&sources.insecure_registries, "insecure"),
        (&sources.blocked_registries, "blocked"),
        (&sources.allowed_registries, "allowed"),
    ] {
        for s in list.iter().flatten() {
            if !is_valid_registries_conf_scope(s) {
                out.push(error(
                    Some(&image),
                    format!("invalid entry for {what} registries \"{s}\""),
                ));
            }
        }
    }
    if sources
        .allowed_registries
        .as_ref()
        .is_some_and(|a| !a.is_empty())
        && sources
            .blocked_registries
            .as_ref()
            .is_some_and(|b| !b.is_empty())
    {
        out.push(error(
            Some(&image),
            "invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified"
                .to_string(),
        ));
    }

    let mut policies: BTreeMap<&str, (SourcePolicy, &Origin)> = BTreeMap::new();
    for set in input.idms.iter().chain(&input.icsp).chain(&input.itms) {
        let o = Some(&set.origin);
        if !is_valid_source(&set.source) {
            out.push(error(
                o,
                format!("invalid format for source \"{}\"", set.source),
            ));
        }
        match policies.get(set.source.as_str()) {
            Some((p, first)) if *p != set.policy => out.push(error(
                o,
                format!(
                    "conflicting mirrorSourcePolicy is set for the same source \"{}\" in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies ({first} sets {})",
                    set.source,
                    p.as_str()
                ),
            )),
            Some(_) => {}
            None => {
                policies.insert(&set.source, (set.policy, &set.origin));
            }
        }
        for m in &set.mirrors {
            if !is_valid_mirror(m) {
                out.push(error(o, format!("invalid format for mirror \"{m}\"")));
            }
            if set.policy == SourcePolicy::NeverContactSource && *m == set.source {
                out.push(error(o, format!(
                    "cannot set mirrorSourcePolicy: NeverContactSource if the source \"{}\" is one of the mirrors",
                    set.source
                )));
            }
        }
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
    for icsp in &inputs.icsps {
        out.push(warning(
            Some(&icsp.origin()),
            "ImageContentSourcePolicy is deprecated: migrate it to an ImageDigestMirrorSet (kubectl mirrorpolicy migrate-icsp)".to_string(),
        ));
    }

    // Shadowing: a more specific mirrored source takes every image under it,
    // so the broader source's mirrors are never used there.
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

    for (source, conflicts) in order_conflicts(&input) {
        for c in conflicts {
            out.push(warning(None, format!("{source}: {c}")));
        }
    }

    match render_pool(inputs, "worker") {
        Ok(r) => {
            // Rendering without an Image/cluster is this tool's assumption,
            // not a problem of the objects being linted.
            for w in r
                .warnings
                .iter()
                .filter(|w| **w != RenderWarning::NoImageConfig)
            {
                let level = if w.drops_configuration() {
                    Level::Error
                } else {
                    Level::Warning
                };
                out.push(Finding {
                    level,
                    object: None,
                    message: w.to_string(),
                });
            }
        }
        // The MCO stops at its first error; report it only when the checks
        // above found none (an edit error such as a wildcard nesting).
        Err(e) if !out.iter().any(|f| f.level == Level::Error) => {
            out.push(error(None, format!("the MCO refuses to render: {e}")));
        }
        Err(_) => {}
    }
    out.sort_by_key(|f| f.level);
    out
}
