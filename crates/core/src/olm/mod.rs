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
pub(crate) fn text(value: &serde_json::Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}

/// The string at JSON pointer `pointer` of an object, or empty.
pub(crate) fn text_or_empty(value: &serde_json::Value, pointer: &str) -> String {
    text(value, pointer).unwrap_or_default()
}
