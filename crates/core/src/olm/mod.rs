//! `operator-check`: will an operator's install or update succeed through
//! the cluster's own mirrors? The catalog's file-based configs
//! ([`catalog`], walked out of the image's layers by [`fs`] over [`crate::oci`];
//! whether `opm serve` can serve them: [`servable`]), OLM's update
//! path over them ([`resolve`], with blang/semver ranges from [`range`]),
//! a pending InstallPlan's first hop ([`plan`]), and the verdict over the
//! images each hop pulls ([`check`]). OLM v1's ClusterExtensions over
//! ClusterCatalogs are resolved by [`v1`] (version constraints: [`constraint`]).
//! Dependencies come from the Subscription's catalog, then from the other
//! CatalogSources the namespace sees ([`sources`], [`deps`]); what a bundle
//! requires and whether it can be met: [`requirement`].

pub mod bundle;
pub mod cache;
pub mod catalog;
pub mod check;
pub mod constraint;
pub mod deps;
pub mod fs;
pub mod objects;
pub mod placement;
pub mod plan;
pub mod range;
pub mod requirement;
pub mod resolve;
pub mod servable;
pub mod sources;
pub mod v1;

/// The string at JSON pointer `pointer` of an object, when there is one.
pub fn text(value: &serde_json::Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// The string at JSON pointer `pointer` of an object, or empty.
pub fn text_or_empty(value: &serde_json::Value, pointer: &str) -> String {
    text(value, pointer).unwrap_or_default()
}

/// The string at JSON pointer `pointer` of an object when it is not empty
/// (OLM treats an empty name as none).
pub fn non_empty(value: &serde_json::Value, pointer: &str) -> Option<String> {
    text(value, pointer).filter(|s| !s.is_empty())
}

/// Where an object was read, for messages: `<place>: <Kind> <ns>/<name>`,
/// or `<place>: <Kind> <name>` for a cluster-scoped one.
pub fn located(place: &str, kind: &str, value: &serde_json::Value) -> String {
    let name = text_or_empty(value, "/metadata/name");
    match text(value, "/metadata/namespace").filter(|ns| !ns.is_empty()) {
        Some(ns) => format!("{place}: {kind} {ns}/{name}"),
        None => format!("{place}: {kind} {name}"),
    }
}

/// The object with its `kind` (the items of a list may leave it out).
pub fn with_kind(kind: &str, mut value: serde_json::Value) -> serde_json::Value {
    if let Some(map) = value.as_object_mut() {
        map.entry("kind")
            .or_insert_with(|| serde_json::Value::String(kind.to_string()));
    }
    value
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn located_names_the_place_kind_namespace_and_name() {
        for (value, want) in [
            (
                json!({"metadata": {"namespace": "operators", "name": "etcd"}}),
                "https://api:6443: Subscription operators/etcd",
            ),
            (
                json!({"metadata": {"name": "etcd"}}),
                "https://api:6443: Subscription etcd",
            ),
            (
                json!({"metadata": {"namespace": "", "name": "etcd"}}),
                "https://api:6443: Subscription etcd",
            ),
        ] {
            assert_eq!(
                super::located("https://api:6443", "Subscription", &value),
                want,
                "{value}"
            );
        }
    }

    #[test]
    fn with_kind_keeps_a_kind_written() {
        let given = super::with_kind("CatalogSource", json!({"kind": "Other"}));
        assert_eq!(given["kind"], "Other");
        let added = super::with_kind("CatalogSource", json!({"metadata": {}}));
        assert_eq!(added["kind"], "CatalogSource");
    }

    #[test]
    fn non_empty_drops_an_empty_string() {
        let v = json!({"spec": {"source": "", "name": "etcd"}});
        assert_eq!(super::non_empty(&v, "/spec/source"), None);
        assert_eq!(super::non_empty(&v, "/spec/name").as_deref(), Some("etcd"));
        assert_eq!(super::non_empty(&v, "/spec/missing"), None);
    }
}
