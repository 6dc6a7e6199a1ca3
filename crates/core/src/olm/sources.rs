//! The CatalogSources whose bundles OLM v0's resolver offers to a
//! namespace's dependencies, and their order. `ResolveSteps`
//! (operator-lifecycle-manager `pkg/controller/registry/resolver/step_resolver.go`)
//! resolves a namespace over its own CatalogSources and those of the global
//! catalog namespace (`openshift-marketplace` on OpenShift), every one of
//! them (`source_registry.go`: `Sources`); `FindPreferred` hands a
//! dependency's candidates over catalog by catalog in the order of
//! `sortableSnapshots.Less` (`cache/cache.go`): the namespace's installed
//! operators, the catalog of the bundle that declares the dependency, then
//! the higher `spec.priority`, the Subscription's namespace before the
//! global one, and the name.
//!
//! Which catalogs are read, and how, is the caller's; the installed
//! operators and the declaring catalog come first in [`crate::olm::deps`].

use super::objects::{CatalogSource, OperatorGroup, Subscription, EXCLUDE_GLOBAL_ANNOTATION};
use super::resolve::Stop;
use crate::upgrade::NextStep;

/// The namespace whose CatalogSources every namespace resolves over
/// (the catalog operator's `-global-namespace`, `openshift-marketplace` on
/// OpenShift).
pub const GLOBAL_NAMESPACE: &str = "openshift-marketplace";

/// Whether `source` is visible to the resolution of `namespace`: of that
/// namespace, or of the global one.
pub fn visible_to(source: &CatalogSource, namespace: &str) -> bool {
    source.namespace == namespace || source.namespace == GLOBAL_NAMESPACE
}

/// Whether the resolution of `namespace` takes in the global catalog
/// namespace, from the namespace's OperatorGroups (`None`: not read, so
/// OLM's default, yes). `ResolveSteps` resolves over the namespace alone
/// when its OperatorGroup has [`EXCLUDE_GLOBAL_ANNOTATION`] `"true"`; and
/// with no OperatorGroup or several the catalog operator resolves nothing
/// in the namespace: `syncResolvingNamespace` stops at
/// `IsFailForwardEnabled` (`fail_forward.go`: `found %d operatorGroups,
/// expected 1`) before resolving, and sets no condition on the
/// Subscriptions. That is the `Err`: the stop and its fix.
pub fn includes_global(
    namespace: &str,
    groups: Option<&[OperatorGroup]>,
) -> Result<bool, (Stop, NextStep)> {
    let Some(groups) = groups else {
        return Ok(true);
    };
    match groups {
        [one] => Ok(!one.exclude_global),
        _ => {
            let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
            let message = format!(
                "found {} operatorGroups, expected 1: OLM's catalog operator resolves nothing in namespace {namespace}, and says so only in its log",
                groups.len()
            );
            let step = if groups.is_empty() {
                format!("create one OperatorGroup in namespace {namespace}")
            } else {
                format!(
                    "keep one OperatorGroup in namespace {namespace} and delete the others ({})",
                    names.join(", ")
                )
            };
            let step = NextStep {
                outcome: "operatorGroupCount".into(),
                step,
                commands: Vec::new(),
            };
            Err((Stop::OperatorGroupCount(message), step))
        }
    }
}

/// A Subscription whose catalog is in the global namespace, which its
/// namespace's OperatorGroup leaves out of resolution: the resolver finds
/// no operators from that catalog (`getSubscriptionVariables` in
/// resolver.go, with its message).
pub fn excluded_catalog(sub: &Subscription) -> (Stop, NextStep) {
    let message = format!(
        "no operators found from catalog {} in namespace {} referenced by subscription {}",
        sub.source, sub.source_namespace, sub.name
    );
    let step = NextStep {
        outcome: "packageNotFound".into(),
        step: format!("the OperatorGroup of namespace {} has {EXCLUDE_GLOBAL_ANNOTATION}: \"true\", so OLM does not resolve over CatalogSource {}/{}: remove the annotation, or subscribe to a CatalogSource of namespace {}", sub.namespace, sub.source_namespace, sub.source, sub.namespace),
        commands: Vec::new(),
    };
    (Stop::PackageNotFound(message), step)
}

/// `sources` in the order the resolver offers their bundles to a
/// dependency of a Subscription of `namespace` (after the installed
/// operators and the declaring catalog): the higher `spec.priority` first,
/// then `namespace`'s own, then by name.
pub fn order<'s>(sources: &[&'s CatalogSource], namespace: &str) -> Vec<&'s CatalogSource> {
    let mut sorted = sources.to_vec();
    sorted.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then_with(|| (a.namespace != namespace).cmp(&(b.namespace != namespace)))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.namespace.cmp(&b.namespace))
    });
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::olm::objects::CatalogOrigin;

    fn source(namespace: &str, name: &str, priority: i64) -> CatalogSource {
        CatalogSource {
            namespace: namespace.into(),
            name: name.into(),
            origin: CatalogOrigin::Image(format!("q.io/{name}:1")),
            node_selector: Default::default(),
            secrets: Vec::new(),
            priority,
        }
    }

    fn names(sorted: &[&CatalogSource]) -> Vec<String> {
        sorted
            .iter()
            .map(|s| format!("{}/{}", s.namespace, s.name))
            .collect()
    }

    /// operator-lifecycle-manager `TestSolveOperators_CatsrcPrioritySorting`
    /// (resolver_test.go) and the e2e contexts of subscription_e2e_test.go
    /// ("choose the dependency from the right CatalogSource based on
    /// lexicographical name ordering of catalogs", "... based on
    /// priority", "... based on namespace"): the catalogs other than the
    /// declaring one, in the order their bundles are offered.
    #[test]
    fn olm_test_solve_operators_catsrc_priority_sorting() {
        let cases: Vec<(&str, Vec<CatalogSource>, Vec<&str>)> = vec![
            (
                "higher priority first",
                vec![
                    source("olm", "community-operator", 0),
                    source("olm", "high-priority-operator", 100),
                ],
                vec!["olm/high-priority-operator", "olm/community-operator"],
            ),
            (
                "equal priority: by name",
                vec![
                    source("olm", "high-priority-operator", 100),
                    source("olm", "community-operator", 100),
                ],
                vec!["olm/community-operator", "olm/high-priority-operator"],
            ),
            (
                "equal priority: the Subscription's namespace before the global one",
                vec![
                    source(GLOBAL_NAMESPACE, "a-global", 0),
                    source("olm", "z-own", 0),
                ],
                vec!["olm/z-own", "openshift-marketplace/a-global"],
            ),
            (
                "priority before namespace",
                vec![
                    source("olm", "own", 0),
                    source(GLOBAL_NAMESPACE, "global", 10),
                ],
                vec!["openshift-marketplace/global", "olm/own"],
            ),
        ];
        for (case, sources, want) in cases {
            let refs: Vec<&CatalogSource> = sources.iter().collect();
            assert_eq!(names(&order(&refs, "olm")), want, "{case}");
        }
    }

    #[test]
    fn the_namespace_and_the_global_one_are_visible() {
        assert!(visible_to(&source("olm", "a", 0), "olm"));
        assert!(visible_to(&source(GLOBAL_NAMESPACE, "a", 0), "olm"));
        assert!(!visible_to(&source("other", "a", 0), "olm"));
    }

    fn group(name: &str, exclude: Option<&str>) -> OperatorGroup {
        let mut v = serde_json::json!({"metadata": {"name": name, "namespace": "olm"}});
        if let Some(e) = exclude {
            v["metadata"]["annotations"] = serde_json::json!({EXCLUDE_GLOBAL_ANNOTATION: e});
        }
        OperatorGroup::from_value(&v)
    }

    /// step_resolver.go `ResolveSteps` and fail_forward.go
    /// `IsFailForwardEnabled`: the annotation `"true"` (no other value)
    /// leaves the global namespace out; no OperatorGroup or several stop
    /// the namespace's resolution; OperatorGroups not read change nothing.
    #[test]
    fn the_operator_group_decides_the_global_namespace() {
        assert_eq!(includes_global("olm", None).ok(), Some(true));
        let cases = [
            (vec![group("og", None)], Some(true)),
            (vec![group("og", Some("true"))], Some(false)),
            (vec![group("og", Some("yes"))], Some(true)),
            (vec![], None),
            (vec![group("a", None), group("b", Some("true"))], None),
        ];
        for (groups, want) in cases {
            let got = includes_global("olm", Some(&groups));
            assert_eq!(got.as_ref().ok().copied(), want, "{groups:?}");
            if let Err((stop, _)) = got {
                assert_eq!(stop.reason(), "operatorGroupCount");
                assert!(stop.message().starts_with(&format!(
                    "found {} operatorGroups, expected 1",
                    groups.len()
                )));
            }
        }
    }
}
