//! `list`: the effective source rules after the MCO's merge, one per
//! `[[registry]]` entry it writes, with the objects behind each and the
//! conflicts worth knowing (mirror orders that contradict each other, so
//! the merged order is decided by name, not by the user).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::origin::Origin;
use crate::render::registries::{V2RegistriesConf, DIGEST_ONLY, TAG_ONLY};

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

/// The rules of a rendered registries.conf, in the file's order, with the
/// mirror-order conflicts found while rendering (source → messages).
pub fn rules(conf: &V2RegistriesConf, conflicts: &BTreeMap<String, Vec<String>>) -> Vec<Rule> {
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
                    Origin::push_unique(&mut objects, o);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::registries::{
        edit_registries_config, order_conflicts, MirrorSet, RegistriesInput, SourcePolicy,
    };

    fn set(source: &str, mirrors: &[&str], origin: &str) -> MirrorSet {
        MirrorSet {
            source: source.into(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            policy: SourcePolicy::AllowContactingSource,
            origin: Origin::from(origin),
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
        let rules = rules(&conf, &order_conflicts(&input));
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].source, "quay.io/a");
        assert_eq!(rules[0].pull, "both");
        assert_eq!(rules[0].mirrors.len(), 3);
        assert_eq!(
            rules[0].objects,
            vec![
                Origin::from("ImageDigestMirrorSet/x"),
                Origin::from("ImageContentSourcePolicy/y"),
                Origin::from("ImageTagMirrorSet/t")
            ]
        );
        assert_eq!(rules[0].conflicts.len(), 1, "{:?}", rules[0].conflicts);
        assert!(rules[0].conflicts[0].contains("m1.io/a before m2.io/a"));
        assert_eq!(rules[1].source, "bad.io");
        assert!(rules[1].blocked);
        assert_eq!(rules[1].pull, "none");
    }
}
