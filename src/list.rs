//! `list`: the effective source rules after the MCO's merge, one per
//! `[[registry]]` entry it writes, with the objects behind each and the
//! conflicts worth knowing (mirror orders that contradict each other, so
//! the merged order is decided by name, not by the user).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::origin::Origin;
use crate::render::registries::{RegistriesInput, V2RegistriesConf, DIGEST_ONLY, TAG_ONLY};

/// One effective rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// The source scope (`host[/path]` or `*.domain`).
    pub source: String,
    /// Mirrors in merged order.
    pub mirrors: Vec<RuleMirror>,
    /// Which pulls use mirrors: `digest`, `tag`, `both` or `none`.
    pub pull: &'static str,
    /// Whether the source itself is never contacted (blocked).
    pub blocked: bool,
    pub insecure: bool,
    /// `NeverContactSource` (mirrors only), `blocked` (no mirrors either) or `AllowContactingSource`.
    pub source_policy: &'static str,
    /// The objects the rule comes from.
    pub objects: Vec<Origin>,
    /// Problems: contradicting mirror orders and the like.
    pub conflicts: Vec<String>,
}

/// One mirror of a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleMirror {
    pub location: String,
    /// `digest-only`, `tag-only`, or empty (both).
    pub pull_from_mirror: String,
    pub insecure: bool,
}

/// The rules of a rendered registries.conf, in the file's order.
pub fn rules(conf: &V2RegistriesConf, input: &RegistriesInput) -> Vec<Rule> {
    let conflicts = order_conflicts(input);
    conf.registries
        .iter()
        .map(|r| {
            let digest = r.mirrors.iter().any(|m| m.pull_from_mirror != TAG_ONLY);
            let tag = r.mirrors.iter().any(|m| m.pull_from_mirror != DIGEST_ONLY);
            let pull = match (digest, tag) {
                (true, true) => "both",
                (true, false) => "digest",
                (false, true) => "tag",
                (false, false) => "none",
            };
            let mut objects = r.origins.clone();
            for m in &r.mirrors {
                for o in &m.origins {
                    if !objects.contains(o) {
                        objects.push(o.clone());
                    }
                }
            }
            Rule {
                source: r.scope().to_string(),
                mirrors: r
                    .mirrors
                    .iter()
                    .map(|m| RuleMirror {
                        location: m.location.clone(),
                        pull_from_mirror: m.pull_from_mirror.clone(),
                        insecure: m.insecure,
                    })
                    .collect(),
                pull,
                blocked: r.blocked,
                insecure: r.insecure,
                source_policy: match (r.blocked, r.mirrors.is_empty()) {
                    (true, false) => "NeverContactSource",
                    (true, true) => "blocked",
                    (false, _) => "AllowContactingSource",
                },
                objects,
                conflicts: conflicts.get(r.scope()).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// For each source, the pairs of mirrors that two sets order oppositely.
pub fn order_conflicts(input: &RegistriesInput) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let kinds = [
        input.idms.iter().chain(&input.icsp).collect::<Vec<_>>(),
        input.itms.iter().collect(),
    ];
    for sets in kinds {
        let mut by_source: BTreeMap<&str, Vec<_>> = BTreeMap::new();
        for s in sets {
            by_source.entry(s.source.as_str()).or_default().push(s);
        }
        for (source, sets) in by_source {
            for (i, a) in sets.iter().enumerate() {
                for b in &sets[i + 1..] {
                    for (x, m1) in a.mirrors.iter().enumerate() {
                        for m2 in &a.mirrors[x + 1..] {
                            let p1 = b.mirrors.iter().position(|m| m == m1);
                            let p2 = b.mirrors.iter().position(|m| m == m2);
                            if let (Some(p1), Some(p2)) = (p1, p2) {
                                if p2 < p1 {
                                    out.entry(source.to_string()).or_default().push(format!(
                                        "{} lists {m1} before {m2}, {} the other way round: the merged order is unspecified",
                                        a.origin, b.origin
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::registries::{edit_registries_config, MirrorSet, SourcePolicy};

    fn set(source: &str, mirrors: &[&str], origin: &str) -> MirrorSet {
        MirrorSet {
            source: source.into(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            policy: SourcePolicy::AllowContactingSource,
            origin: Origin(origin.into()),
        }
    }

    #[test]
    fn rules_show_pull_kind_objects_and_order_conflicts() {
        let input = RegistriesInput {
            idms: vec![set(
                "quay.io/a",
                &["m1.io/a", "m2.io/a"],
                "ImageDigestMirrorSet/x",
            )],
            icsp: vec![set(
                "quay.io/a",
                &["m2.io/a", "m1.io/a"],
                "ImageContentSourcePolicy/y",
            )],
            itms: vec![set("quay.io/a", &["t.io/a"], "ImageTagMirrorSet/t")],
            blocked: Some(vec!["bad.io".into()]),
            ..Default::default()
        };
        let mut conf = V2RegistriesConf::default();
        edit_registries_config(&mut conf, &input).unwrap();
        let rules = rules(&conf, &input);
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].source, "quay.io/a");
        assert_eq!(rules[0].pull, "both");
        assert_eq!(rules[0].mirrors.len(), 3);
        assert_eq!(
            rules[0].objects,
            vec![
                Origin("ImageDigestMirrorSet/x".into()),
                Origin("ImageContentSourcePolicy/y".into()),
                Origin("ImageTagMirrorSet/t".into())
            ]
        );
        assert_eq!(rules[0].conflicts.len(), 1, "{:?}", rules[0].conflicts);
        assert!(rules[0].conflicts[0].contains("m1.io/a before m2.io/a"));
        assert_eq!(rules[1].source, "bad.io");
        assert!(rules[1].blocked);
        assert_eq!(rules[1].pull, "none");
    }
}
