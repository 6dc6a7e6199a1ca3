//! `collect-node-files`: the files each node really holds, read through its
//! machine-config-daemon pod ([`mirrorpolicy::source::node_exec`]) and
//! written as the folder [`mirrorpolicy::source::node_dir`] reads back.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use mirrorpolicy::node_files::{format_cert_digests, NodeFiles, NodeRead};
use mirrorpolicy::objects::machine_config::CURRENT_CONFIG_ANNOTATION;
use mirrorpolicy::source::node_dir::{format_manifest, host_path, CERT_DIGESTS, MANIFEST};
use mirrorpolicy::source::node_exec::ReadOptions;
use mirrorpolicy::source::node_live;

use crate::cli::CollectNodeFilesArgs;
use crate::exit::{ExitCode, Failure};
use crate::settings::{node_read_options, Settings};
use crate::steps::inputs::{cluster_failure, runtime};
use crate::term;

/// Reads the files of `nodes` live, in that order, through each node's
/// machine-config-daemon pod ([`node_live::read_live`]). A failure that
/// concerns every node is a cluster error (exit 3) naming the missing RBAC rule.
fn read_live(
    settings: &Settings,
    nodes: &[String],
    options: &ReadOptions,
) -> Result<Vec<NodeRead>> {
    let cluster = settings.cluster_options()?;
    node_live::read_live(&runtime()?, &cluster, nodes, options, |m| {
        settings.verbose(|| m)
    })
    .map_err(cluster_failure)
}

/// The nodes `--node` and `--pool` select (every node when neither is
/// given), in name order; an unknown node or a pool without nodes is an
/// input error.
fn select_nodes(settings: &Settings, args: &CollectNodeFilesArgs) -> Result<Vec<String>> {
    let nodes = read_nodes(settings)?;
    let known: Vec<&str> = nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    check_known(&args.nodes, &known)?;
    let mut selected: BTreeSet<String> = args.nodes.iter().cloned().collect();
    for pool in &args.pools {
        let prefix = format!("rendered-{pool}-");
        let members: Vec<&str> = nodes
            .iter()
            .filter(|n| {
                n.metadata
                    .annotation(CURRENT_CONFIG_ANNOTATION)
                    .is_some_and(|c| c.starts_with(&prefix))
            })
            .map(|n| n.metadata.name.as_str())
            .collect();
        if members.is_empty() {
            return Err(Failure::input(format!(
                "--pool {pool}: no node runs a config of that pool (a {CURRENT_CONFIG_ANNOTATION} annotation starting with {prefix})"
            ))
            .with_hint("kubectl get machineconfigpools lists the pools")
            .into());
        }
        selected.extend(members.into_iter().map(str::to_string));
    }
    if args.nodes.is_empty() && args.pools.is_empty() {
        selected.extend(known.iter().map(|n| n.to_string()));
    }
    if selected.is_empty() {
        return Err(Failure::cluster("the cluster has no Node to read").into());
    }
    Ok(selected.into_iter().collect())
}

/// The cluster's Nodes.
fn read_nodes(settings: &Settings) -> Result<Vec<mirrorpolicy::objects::Node>> {
    let cluster = settings.cluster_options()?;
    node_live::list_nodes(&runtime()?, &cluster).map_err(cluster_failure)
}

fn check_known(wanted: &[String], known: &[&str]) -> Result<()> {
    match node_live::unknown_node(wanted, known) {
        Some(message) => Err(Failure::input(message).into()),
        None => Ok(()),
    }
}

/// `collect-node-files`: exit 0 when every node was read and written, 3
/// when some (or all) could not be read (the others are written), 4 when a
/// node folder already exists (nothing written).
pub fn run(settings: &Settings, args: &CollectNodeFilesArgs) -> Result<ExitCode> {
    let dir = &args.dest_dir;
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::input(format!(
            "--dest-dir {}: exists and is not a folder",
            dir.display()
        ))
        .into());
    }
    // Input errors before the cluster is contacted.
    let options = node_read_options(&args.read)?;
    let nodes = select_nodes(settings, args)?;
    for node in &nodes {
        check_node_name(node)?;
    }
    let reads = read_live(settings, &nodes, &options)?;
    let read: Vec<&NodeFiles> = reads
        .iter()
        .filter_map(|r| match r {
            NodeRead::Read(files) => Some(files),
            NodeRead::NotRead { .. } => None,
        })
        .collect();
    if !read.is_empty() {
        write_nodes(dir, &read)?;
    }
    settings.print_to(term::Sink::Text, |out| {
        crate::output::collect::write_collected(out, dir, &read)
    })?;
    let mut not_read = 0;
    for r in &reads {
        if let NodeRead::NotRead { node, why } = r {
            not_read += 1;
            term::warn(format_args!("node {node} not read: {why}"));
        }
    }
    if not_read > 0 {
        eprintln!(
            "{not_read} of {} node(s) not read{}",
            reads.len(),
            if read.is_empty() {
                ""
            } else {
                "; the others are written"
            }
        );
        return Ok(ExitCode::Cluster);
    }
    Ok(ExitCode::Success)
}

/// A node name becomes a folder name: one plain path component.
pub fn check_node_name(node: &str) -> Result<()> {
    let plain = !node.is_empty()
        && !node.starts_with('.')
        && !node.contains(['/', '\\', '\0'])
        && node != CERT_DIGESTS;
    if plain {
        Ok(())
    } else {
        Err(Failure::input(format!(
            "node name {node:?} cannot be a folder name; nothing written"
        ))
        .into())
    }
}

/// Writes each node's folder. Nothing is replaced: a node folder that
/// exists (a file, a folder or a symbolic link) refuses the whole write
/// before anything is written. The files are first written into a
/// staging folder created exclusively (random name) inside `dir`; each node
/// folder is then created exclusively and its content moved in. A failure
/// removes the node folders this run created: every node is written whole
/// or not at all.
pub fn write_nodes(dir: &Path, nodes: &[&NodeFiles]) -> Result<()> {
    let clashes: Vec<String> = nodes
        .iter()
        .map(|n| dir.join(&n.node))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .map(|p| p.display().to_string())
        .collect();
    if !clashes.is_empty() {
        return Err(Failure::refused(format!(
            "refused: {}: {}; nothing written",
            if clashes.len() == 1 {
                "a node folder already exists"
            } else {
                "node folders already exist"
            },
            clashes.join(", ")
        ))
        .with_hint("move them away or pick another --dest-dir")
        .into());
    }
    let io = |what: &str, path: &Path, e: std::io::Error| {
        Failure::input(format!(
            "cannot {what} {}: {e}; nothing written",
            path.display()
        ))
    };
    std::fs::create_dir_all(dir).map_err(|e| io("create", dir, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".mirrorpolicy-")
        .suffix(".tmp")
        .tempdir_in(dir)
        .map_err(|e| io("create a staging folder in", dir, e))?;
    for node in nodes {
        stage_node(staging.path(), node)?;
    }
    let mut created: Vec<PathBuf> = Vec::new();
    for node in nodes {
        let target = dir.join(&node.node);
        let result = std::fs::create_dir(&target).and_then(|()| {
            created.push(target.clone());
            for entry in std::fs::read_dir(staging.path().join(&node.node))? {
                let entry = entry?;
                std::fs::rename(entry.path(), target.join(entry.file_name()))?;
            }
            Ok(())
        });
        if let Err(e) = result {
            for done in &created {
                let _ = std::fs::remove_dir_all(done);
            }
            let why = if e.kind() == std::io::ErrorKind::AlreadyExists {
                "it appeared meanwhile and is never replaced".to_string()
            } else {
                e.to_string()
            };
            return Err(Failure::input(format!(
                "cannot write {}: {why}; nothing written",
                target.display()
            ))
            .into());
        }
    }
    Ok(())
}

/// Writes one node's files under `staging/<node>/`, each file created
/// exclusively.
fn stage_node(staging: &Path, node: &NodeFiles) -> Result<()> {
    let root = staging.join(&node.node);
    let write = |path: &Path, bytes: &[u8]| -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    };
    let fail = |path: &Path, e: std::io::Error| {
        Failure::input(format!(
            "cannot write {}: {e}; nothing written",
            path.display()
        ))
    };
    std::fs::create_dir(&root).map_err(|e| fail(&root, e))?;
    for (host, bytes) in &node.files {
        let path = host_path(&root, host);
        write(&path, bytes).map_err(|e| fail(&path, e))?;
    }
    let digests = root.join(CERT_DIGESTS);
    write(&digests, format_cert_digests(&node.certs).as_bytes()).map_err(|e| fail(&digests, e))?;
    let manifest = root.join(MANIFEST);
    write(&manifest, format_manifest(node).as_bytes()).map_err(|e| fail(&manifest, e))?;
    Ok(())
}
