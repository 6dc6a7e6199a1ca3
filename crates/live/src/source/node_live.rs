//! The live node read every node-file command uses: the cluster's Nodes,
//! and the files of the nodes asked for, read through each node's
//! machine-config-daemon pod ([`super::node_exec`]), blocking on the
//! caller's runtime.

use tokio::runtime::Runtime;

use super::api::{self as live, ClusterError, ClusterOptions, Read, NODES};
use super::node_exec::{self, ReadOptions};
use crate::node_files::NodeRead;
use crate::objects::Node;

/// Reads the files of `nodes` live, in that order, through each node's
/// machine-config-daemon pod. A node that cannot be read is
/// [`NodeRead::NotRead`]; a failure that concerns every node (the cluster
/// is unreachable, listing the daemon pods or `pods/exec` is forbidden) is
/// the error. `verbose` is given what is read before the read starts.
pub fn read_live(
    runtime: &Runtime,
    cluster: &ClusterOptions,
    nodes: &[String],
    options: &ReadOptions,
    verbose: impl FnOnce(String),
) -> Result<Vec<NodeRead>, ClusterError> {
    runtime.block_on(async {
        let connection = live::connect(cluster).await?;
        verbose(format!(
            "reading the files of {} node(s) through their machine-config-daemon pods in {}, {} at a time",
            nodes.len(),
            node_exec::NAMESPACE,
            options.concurrency
        ));
        node_exec::read_nodes(&connection, nodes, options).await
    })
}

/// The cluster's Nodes.
pub fn list_nodes(runtime: &Runtime, cluster: &ClusterOptions) -> Result<Vec<Node>, ClusterError> {
    const READS: &[Read] = &[Read::one(&[NODES])];
    let read = runtime.block_on(async {
        let connection = live::connect(cluster).await?;
        live::read_selected(&connection, READS, None, None).await
    })?;
    Ok(read.inputs.nodes)
}

/// The first of `wanted` that is not a Node of `known`, as kubectl's "not
/// found" says it: `--node NAME: no such Node (found: …)`.
pub fn unknown_node(wanted: &[String], known: &[&str]) -> Option<String> {
    let want = wanted.iter().find(|w| !known.contains(&w.as_str()))?;
    let found = if known.is_empty() {
        "none".to_string()
    } else {
        known.join(", ")
    };
    Some(format!("--node {want}: no such Node (found: {found})"))
}

#[cfg(test)]
mod tests {
    use super::unknown_node;

    #[test]
    fn an_unknown_node_is_named_with_the_known_ones() {
        let wanted = ["a".to_string(), "c".to_string()];
        assert_eq!(
            unknown_node(&wanted, &["a", "b"]).as_deref(),
            Some("--node c: no such Node (found: a, b)")
        );
        assert_eq!(
            unknown_node(&wanted, &[]).as_deref(),
            Some("--node a: no such Node (found: none)")
        );
        assert_eq!(unknown_node(&wanted, &["c", "a"]), None);
        assert_eq!(unknown_node(&[], &[]), None);
    }
}
