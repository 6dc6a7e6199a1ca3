//! Which MachineConfigPool's nodes run a CatalogSource's registry pod, so
//! that its catalog image is explained with that pool's registries.conf
//! and policy.
//!
//! OLM gives the registry pod the nodeSelector `kubernetes.io/os: linux`,
//! replaced by `spec.grpcPodConfig.nodeSelector` when the CatalogSource
//! sets one (operator-lifecycle-manager `pkg/controller/registry/reconciler`
//! `Pod`), and the scheduler places it on a node whose labels hold every
//! pair. The pool is that of the nodes it selects (each
//! node's pool as [`crate::journal::pool::node_pool`] finds it); without
//! Nodes to read, the pool whose own `nodeSelector` selects those labels (a
//! custom pool before `worker`, as the MCO gives a node in both to the
//! custom pool), else the role a `node-role.kubernetes.io/<role>` key
//! names; a registry pod without a nodeSelector runs on a worker.

use std::collections::BTreeMap;

use crate::journal::pool::node_pool;
use crate::objects::{MachineConfigPool, Node};

/// The pool the registry pod runs in, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub pool: String,
    pub why: String,
}

/// The pool of a registry pod with `selector` (its nodeSelector).
pub fn registry_pool(
    selector: &BTreeMap<String, String>,
    nodes: &[Node],
    pools: &[MachineConfigPool],
) -> Placement {
    let place = |pool: &str, why: String| Placement {
        pool: pool.to_string(),
        why,
    };
    if selector.is_empty() {
        return place("worker", "no grpcPodConfig.nodeSelector: a worker".into());
    }
    let shown = selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for node in nodes.iter().filter(|n| {
        selector
            .iter()
            .all(|(k, v)| n.metadata.labels.get(k) == Some(v))
    }) {
        if let Some((pool, _)) = node_pool(node, pools) {
            *counts.entry(pool).or_default() += 1;
        }
    }
    if let Some((pool, _)) = counts.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) {
        let of: Vec<String> = counts.iter().map(|(p, n)| format!("{p} ({n})")).collect();
        return place(
            pool,
            format!(
                "its nodeSelector {shown} selects nodes in {} (the pool of the most)",
                of.join(", ")
            ),
        );
    }
    if let Some(pool) = selecting_pool(selector, pools) {
        return place(
            pool,
            format!("pool {pool}'s nodeSelector selects its nodeSelector {shown}"),
        );
    }
    if let Some(role) = role_of(selector, pools) {
        return place(&role, format!("its nodeSelector {shown} names role {role}"));
    }
    let read = if nodes.is_empty() {
        ""
    } else {
        " (no Node read has those labels)"
    };
    place(
        "worker",
        format!("no pool matches its nodeSelector {shown}{read}: a worker"),
    )
}

/// The pool whose nodeSelector selects `labels`: a custom pool before `worker`.
fn selecting_pool<'p>(
    labels: &BTreeMap<String, String>,
    pools: &'p [MachineConfigPool],
) -> Option<&'p str> {
    let selecting: Vec<&str> = pools
        .iter()
        .filter(|p| {
            p.spec
                .node_selector
                .as_ref()
                .is_some_and(|s| s.matches(labels))
        })
        .map(|p| p.metadata.name.as_str())
        .collect();
    let custom = selecting.iter().find(|p| **p != "worker");
    custom.or(selecting.first()).copied()
}

/// The pool a `node-role.kubernetes.io/<role>` key names: `master` for
/// `master` and `control-plane`, else a pool of that name (`worker`, or one read).
fn role_of(selector: &BTreeMap<String, String>, pools: &[MachineConfigPool]) -> Option<String> {
    selector.keys().find_map(|k| {
        let role = k.strip_prefix("node-role.kubernetes.io/")?;
        match role {
            "master" | "control-plane" => Some("master".to_string()),
            "worker" => Some("worker".to_string()),
            r if pools.iter().any(|p| p.metadata.name == r) => Some(r.to_string()),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(yaml: &str) -> Node {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn pool(name: &str, label: &str) -> MachineConfigPool {
        serde_saphyr::from_str(&format!(
            "metadata: {{name: {name}}}\nspec: {{nodeSelector: {{matchLabels: {{\"{label}\": \"\"}}}}}}\n"
        ))
        .unwrap()
    }

    fn selector(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// A row: the nodeSelector, the Nodes read, the pool.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a [Node], &'a str);

    #[test]
    fn the_pool_of_the_nodes_the_selector_selects_else_the_pools_or_the_role() {
        let pools = [
            pool("master", "node-role.kubernetes.io/master"),
            pool("worker", "node-role.kubernetes.io/worker"),
            pool("infra", "node-role.kubernetes.io/infra"),
        ];
        let nodes = [
            node("metadata: {name: m0, labels: {node-role.kubernetes.io/master: '', node-role.kubernetes.io/control-plane: ''}}"),
            node("metadata: {name: w0, labels: {node-role.kubernetes.io/worker: '', zone: a}}"),
            node("metadata: {name: i0, labels: {node-role.kubernetes.io/worker: '', node-role.kubernetes.io/infra: '', zone: a}}"),
            node("metadata: {name: i1, labels: {node-role.kubernetes.io/worker: '', node-role.kubernetes.io/infra: '', zone: b}}"),
        ];
        let cases: [Case; 8] = [
            (&[], &nodes, "worker"),
            (&[("node-role.kubernetes.io/master", "")], &nodes, "master"),
            (
                &[("node-role.kubernetes.io/control-plane", "")],
                &nodes,
                "master",
            ),
            (&[("node-role.kubernetes.io/infra", "")], &nodes, "infra"),
            // Nodes of two pools: the pool of most of them.
            (&[("node-role.kubernetes.io/worker", "")], &nodes, "infra"),
            // No Node read: the pool that selects the labels, else the role.
            (&[("node-role.kubernetes.io/infra", "")], &[], "infra"),
            (
                &[("node-role.kubernetes.io/control-plane", "")],
                &[],
                "master",
            ),
            (&[("disk", "ssd")], &nodes, "worker"),
        ];
        for (pairs, nodes, want) in cases {
            let got = registry_pool(&selector(pairs), nodes, &pools);
            assert_eq!(got.pool, want, "{pairs:?}: {}", got.why);
        }
        let why = registry_pool(&selector(&[("disk", "ssd")]), &nodes, &pools).why;
        assert_eq!(
            why,
            "no pool matches its nodeSelector disk=ssd (no Node read has those labels): a worker"
        );
        let why = registry_pool(&selector(&[("zone", "a")]), &nodes, &pools).why;
        assert_eq!(
            why,
            "its nodeSelector zone=a selects nodes in infra (1), worker (1) (the pool of the most)"
        );
    }
}
