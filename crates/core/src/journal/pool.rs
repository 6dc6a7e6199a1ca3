//! Which node a journal's host column names, and which MachineConfigPool's
//! configuration that node pulls with: the pool of the rendered
//! MachineConfig it runs (its `currentConfig` annotation, as `diff` groups
//! nodes), else the pool whose `nodeSelector` selects its labels (a custom
//! pool before `worker`, as the MCO gives a node in both to the custom
//! pool), else its role label.

use crate::objects::{MachineConfigPool, Node};

/// Whether the journald host column `host` is node `name` (the host name
/// is the node's name, or its first DNS label).
pub fn host_is(host: &str, name: &str) -> bool {
    let first = |s: &str| s.split('.').next().unwrap_or(s).to_string();
    host == name || host == first(name) || first(host) == name
}

/// The Node whose name the host column gives.
pub fn node_of<'a>(host: &str, nodes: &'a [Node]) -> Option<&'a Node> {
    nodes
        .iter()
        .find(|n| n.metadata.name == host)
        .or_else(|| nodes.iter().find(|n| host_is(host, &n.metadata.name)))
}

/// The pool `node` belongs to, and how that was found; `None` when no pool
/// selects it and it has no role label.
pub fn node_pool(node: &Node, pools: &[MachineConfigPool]) -> Option<(String, &'static str)> {
    if let Some(pool) = node
        .current_config()
        .and_then(|c| c.strip_prefix("rendered-"))
        .and_then(|c| c.rsplit_once('-'))
        .map(|(pool, _hash)| pool)
        .filter(|p| !p.is_empty())
    {
        return Some((pool.to_string(), "the rendered config it runs"));
    }
    let selecting: Vec<&str> = pools
        .iter()
        .filter(|p| {
            p.spec
                .node_selector
                .as_ref()
                .is_some_and(|s| s.matches(&node.metadata.labels))
        })
        .map(|p| p.metadata.name.as_str())
        .collect();
    let custom = selecting.iter().find(|p| **p != "worker");
    if let Some(p) = custom.or(selecting.first()) {
        return Some((p.to_string(), "its pool's nodeSelector"));
    }
    let has = |role: &str| {
        node.metadata
            .labels
            .contains_key(&format!("node-role.kubernetes.io/{role}"))
    };
    let role = if has("master") || has("control-plane") {
        "master"
    } else if has("worker") {
        "worker"
    } else {
        return None;
    };
    Some((role.to_string(), "its role label"))
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

    #[test]
    fn pool_from_config_selector_and_role() {
        let pools = [
            pool("worker", "node-role.kubernetes.io/worker"),
            pool("infra", "node-role.kubernetes.io/infra"),
        ];
        for (yaml, want) in [
            (
                "metadata: {name: a, annotations: {machineconfiguration.openshift.io/currentConfig: rendered-worker-gpu-0a1b}}",
                Some("worker-gpu"),
            ),
            (
                "metadata: {name: b, labels: {node-role.kubernetes.io/worker: '', node-role.kubernetes.io/infra: ''}}",
                Some("infra"),
            ),
            (
                "metadata: {name: c, labels: {node-role.kubernetes.io/worker: ''}}",
                Some("worker"),
            ),
            (
                "metadata: {name: d, labels: {node-role.kubernetes.io/control-plane: ''}}",
                Some("master"),
            ),
            ("metadata: {name: e}", None),
        ] {
            let got = node_pool(&node(yaml), &pools).map(|(p, _)| p);
            assert_eq!(got.as_deref(), want, "{yaml}");
        }
    }

    #[test]
    fn host_column_names_the_node() {
        assert!(host_is("worker-0", "worker-0.example.com"));
        assert!(host_is("worker-0.example.com", "worker-0"));
        assert!(host_is("worker-0", "worker-0"));
        assert!(!host_is("worker-01", "worker-0.example.com"));
    }
}
