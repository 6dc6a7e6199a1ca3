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

use super::objects::CatalogSource;

/// The namespace whose CatalogSources every namespace resolves over
/// (the catalog operator's `-global-namespace`, `openshift-marketplace` on
/// OpenShift).
pub const GLOBAL_NAMESPACE: &str = "openshift-marketplace";

/// Whether `source` is visible to the resolution of `namespace`: of that
/// namespace, or of the global one.
pub fn visible_to(source: &CatalogSource, namespace: &str) -> bool {
    source.namespace == namespace || source.namespace == GLOBAL_NAMESPACE
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
}
