//! The last stage of `diff`: the files on the nodes' disks, compared with
//! the rendered MachineConfig each node runs (its `currentConfig`).
//!
//! Nodes with the same files are one stage. A managed file whose content
//! differs from what the node's config writes, one missing, a file in a
//! folder the runtime reads that no MachineConfig writes (a stray
//! drop-in), a registry CA that differs from the config's or between the
//! nodes of a pool: each is drift, with the cause when the machine-config
//! daemon's `reason` annotation names it. The daemon itself compares the
//! exact bytes (`checkFileContentsAndMode` in openshift/machine-config-operator
//! `pkg/daemon/on_disk_validation.go`), so a difference of formatting only
//! is drift too, said as such.

use crate::digest::sha256_hex;
use std::collections::{BTreeMap, BTreeSet};

use crate::node_files::{
    go_mode_words, is_absent, pull_breakers, Breaker, FileKind, FileMeta, NodeFiles, NodeRead,
};
use crate::node_paths::{folder_of, is_cert_path, REGISTRIES_CONF_D};
use crate::objects::machine_config::{
    CURRENT_CONFIG_ANNOTATION, REASON_ANNOTATION, STATE_ANNOTATION,
};
use crate::objects::{Inputs, MachineConfig};
use crate::registries::Undetermined;

use super::{
    file_bytes, is_managed, normalize, summarize, Drift, Files, NotRead, Report, Selection, Stage,
};

/// The kind of the on-disk stages.
pub const KIND: &str = "onDisk";

/// Where the daemon keeps the config it last applied.
const CURRENT_CONFIG_FILE: &str = "/etc/machine-config-daemon/currentconfig";

/// Files RHCOS ships in the folders the runtime reads (containers-common),
/// which no MachineConfig writes: never a stray file, only compared
/// between the nodes of a pool.
pub const OS_FILES: &[&str] = &[
    "/etc/containers/registries.conf.d/000-shortnames.conf",
    "/etc/containers/registries.conf.d/001-rhel-shortnames.conf",
    "/etc/containers/registries.conf.d/002-rhel-shortnames-overrides.conf",
    "/etc/containers/registries.d/default.yaml",
    "/etc/containers/registries.d/registry.access.redhat.com.yaml",
    "/etc/containers/registries.d/registry.redhat.io.yaml",
];

/// What the daemon found wrong with a file, from its `reason` annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// `content mismatch for file "<path>"`.
    Content(String),
    /// `mode mismatch for file: "<path>"; expected: ...; received: ...`.
    Mode(String),
}

impl Mismatch {
    pub fn path(&self) -> &str {
        match self {
            Mismatch::Content(p) | Mismatch::Mode(p) => p,
        }
    }
}

/// Parses the daemon's `reason` annotation for the file it found drifted,
/// as `checkFileContentsAndMode` words it (wrapped in "unexpected on-disk
/// state validating against <config>: ...").
pub fn parse_reason(reason: &str) -> Option<Mismatch> {
    for (marker, mode) in [
        ("content mismatch for file ", false),
        ("mode mismatch for file: ", true),
    ] {
        if let Some(at) = reason.find(marker) {
            let path = go_quoted(&reason[at + marker.len()..])?;
            return Some(if mode {
                Mismatch::Mode(path)
            } else {
                Mismatch::Content(path)
            });
        }
    }
    None
}

/// The leading Go `%q` string of `text`, unquoted.
fn go_quoted(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
}

/// For a cause naming degraded `nodes`: what their daemons say, as
/// `"; worker-1 reports: <reason>"`, empty when none says anything.
pub fn daemon_reasons(inputs: &Inputs, nodes: &[&str]) -> String {
    inputs
        .nodes
        .iter()
        .filter(|n| nodes.contains(&n.metadata.name.as_str()))
        .filter_map(|n| {
            let reason = n.metadata.annotation(REASON_ANNOTATION)?.trim();
            (!reason.is_empty()).then(|| format!("; {} reports: {reason}", n.metadata.name))
        })
        .collect()
}

/// Without the files on disk: a degraded node whose daemon names a drifted
/// file is drift all the same, with the daemon's words.
pub fn add_daemon_reports(report: &mut Report, inputs: &Inputs, selection: &Selection) {
    for pool in &mut report.pools {
        let stages: Vec<Stage> = pool
            .stages
            .iter()
            .filter(|s| s.kind == "nodes")
            .cloned()
            .collect();
        for stage in &stages {
            let config = stage.machine_config.clone().unwrap_or_default();
            for node in &stage.nodes {
                let Some(mismatch) = node_mismatch(inputs, node) else {
                    continue;
                };
                if !wanted(selection, mismatch.path()) {
                    continue;
                }
                pool.drift.push(reported_entry(
                    inputs,
                    node,
                    &config,
                    &mismatch,
                    "compare the files with `diff --on-disk`",
                ));
            }
        }
    }
    report.drift = Some(report.pools.iter().any(|p| !p.drift.is_empty()));
}

/// The file a degraded node's daemon reports drifted, if any.
fn node_mismatch(inputs: &Inputs, node: &str) -> Option<Mismatch> {
    let n = inputs.nodes.iter().find(|n| n.metadata.name == node)?;
    if n.metadata.annotation(STATE_ANNOTATION) != Some("Degraded") {
        return None;
    }
    parse_reason(n.metadata.annotation(REASON_ANNOTATION)?)
}

fn reason_of<'a>(inputs: &'a Inputs, node: &str) -> &'a str {
    inputs
        .nodes
        .iter()
        .find(|n| n.metadata.name == node)
        .and_then(|n| n.metadata.annotation(REASON_ANNOTATION))
        .unwrap_or_default()
}

fn reported_entry(
    inputs: &Inputs,
    node: &str,
    config: &str,
    mismatch: &Mismatch,
    next: &str,
) -> Drift {
    let what = match mismatch {
        Mismatch::Content(_) => "its content is not what the config writes",
        Mismatch::Mode(_) => "its mode is not the one the config sets",
    };
    Drift {
        nodes: vec![node.to_string()],
        file: mismatch.path().to_string(),
        from: current_name(config),
        to: disk_name(&[node.to_string()]),
        summary: vec![format!(
            "the machine-config daemon on {node} reports: {}",
            reason_of(inputs, node)
        )],
        cause: format!(
            "{} was changed on {node} after the daemon wrote it: {what}; the daemon keeps the node Degraded until the file is as {config} writes it again; {next}; fix: {}",
            mismatch.path(),
            force_fix(node)
        ),
        hand_edits: Vec::new(),
        diff: String::new(),
    }
}

/// How a node gets the files of its config back: restored by hand, or
/// written again by the daemon, which the force file makes skip its
/// on-disk check and apply the config (then reboot the node).
fn force_fix(nodes: &str) -> String {
    format!(
        "restore the file as the config writes it, or make the daemon write the config again \
         (it reboots the node): `oc debug node/NODE -- chroot /host touch /run/machine-config-daemon-force` \
         for {nodes}"
    )
}

fn wanted(selection: &Selection, path: &str) -> bool {
    selection.files.is_empty() || selection.files.iter().any(|f| f == path)
}

fn current_name(config: &str) -> String {
    format!("the current config {config}")
}

fn disk_name(nodes: &[String]) -> String {
    format!("the files on {}", nodes.join(", "))
}

/// The files of a node that take part in the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Disk {
    files: BTreeMap<String, Vec<u8>>,
    certs: BTreeMap<String, String>,
    /// What lstat says of each path; empty when not recorded.
    meta: BTreeMap<String, FileMeta>,
    unreadable: BTreeMap<String, String>,
    /// Files that break every pull, or may: by path.
    breakers: BTreeMap<String, Breaker>,
    /// Files present that the runtime never reads: why.
    ignored: Vec<(String, String)>,
    /// The drop-in folder, when it is a link the runtime does not follow.
    linked_folder: Option<FileMeta>,
}

/// The disk of a node whose CRI-O is `runtime`.
fn disk_of(node: &NodeFiles, runtime: &crate::crio::NodeRuntime) -> Disk {
    Disk {
        files: node
            .files
            .iter()
            .filter(|(p, _)| p.as_str() != CURRENT_CONFIG_FILE)
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect(),
        certs: node.certs.clone(),
        meta: node
            .meta
            .iter()
            .filter(|(p, _)| p.as_str() != CURRENT_CONFIG_FILE)
            .map(|(p, m)| (p.clone(), m.clone()))
            .collect(),
        unreadable: node.unreadable.clone(),
        breakers: pull_breakers(node, runtime)
            .into_iter()
            .map(|b| (b.path.clone(), b))
            .collect(),
        ignored: node
            .ignored()
            .into_iter()
            .map(|(p, why)| (p.to_string(), why))
            .collect(),
        linked_folder: node.linked_folder(REGISTRIES_CONF_D).cloned(),
    }
}

/// The modes a MachineConfig sets, by path (the last entry for a path wins,
/// as the daemon checks them; 0644 when unset, the daemon's default).
fn config_modes(mc: &MachineConfig) -> BTreeMap<String, u32> {
    mc.spec
        .config
        .storage
        .files
        .iter()
        .map(|f| (f.path.clone(), f.mode.unwrap_or(DEFAULT_FILE_MODE)))
        .collect()
}

/// The daemon's `defaultFilePermissions`.
const DEFAULT_FILE_MODE: u32 = 0o644;

/// Adds the on-disk stage to every pool of `report`: `reads` are the
/// selected nodes' files (or why they could not be read). A node of a stage
/// that was not read is in the report's `not_read`.
pub fn add_on_disk(
    report: &mut Report,
    inputs: &Inputs,
    selection: &Selection,
    reads: &[NodeRead],
) -> Result<(), String> {
    let mut not_read: Vec<NotRead> = Vec::new();
    for pool in &mut report.pools {
        let node_stages: Vec<Stage> = pool
            .stages
            .iter()
            .filter(|s| s.kind == "nodes")
            .cloned()
            .collect();
        // Every read node of the pool, for the comparisons between nodes.
        let mut pool_nodes: Vec<(&NodeFiles, Disk)> = Vec::new();
        let mut mc_certs: BTreeSet<String> = BTreeSet::new();
        for stage in &node_stages {
            let config = stage.machine_config.clone().unwrap_or_default();
            let machine_config = super::mc(inputs, &config);
            let groups = group_nodes(
                inputs,
                &stage.nodes,
                reads,
                &config,
                &mut pool.notes,
                &mut pool_nodes,
                &mut not_read,
            );
            let (certs, modes) = match machine_config {
                Some(m) => (config_certs(m)?, config_modes(m)),
                None => (BTreeMap::new(), BTreeMap::new()),
            };
            mc_certs.extend(certs.keys().cloned());
            for (disk, nodes) in &groups {
                pool.stages.push(disk_stage(stage, &config, disk, nodes));
                let Some(config_files) = &stage.files else {
                    continue;
                };
                let group = Group {
                    inputs,
                    selection,
                    config: &config,
                    nodes,
                    disk,
                    modes: &modes,
                };
                pool.notes.extend(group.notes());
                let found = group.compare(config_files, &certs);
                pool.drift.extend(found);
            }
        }
        pool.drift
            .extend(between_nodes(&pool_nodes, &mc_certs, selection));
    }
    not_read.sort_by(|a, b| a.node.cmp(&b.node));
    not_read.dedup();
    let found = report.pools.iter().any(|p| !p.drift.is_empty());
    // Nothing found while a node was not read is no answer for that node.
    report.drift = (found || not_read.is_empty()).then_some(found);
    report.not_read = not_read;
    Ok(())
}

/// Groups the read nodes of one stage by identical disk contents (in node
/// order); a node not read gets a note and a `not_read` entry. Every read
/// node is also added to `pool_nodes`, for the comparisons between nodes.
fn group_nodes<'a>(
    inputs: &Inputs,
    nodes: &[String],
    reads: &'a [NodeRead],
    config: &str,
    notes: &mut Vec<String>,
    pool_nodes: &mut Vec<(&'a NodeFiles, Disk)>,
    not_read: &mut Vec<NotRead>,
) -> Vec<(Disk, Vec<String>)> {
    let mut groups: Vec<(Disk, Vec<String>)> = Vec::new();
    for node in nodes {
        let why = match reads.iter().find(|r| r.node() == node) {
            Some(NodeRead::Read(files)) => {
                if let Some(note) = current_config_note(files, config) {
                    notes.push(note);
                }
                let runtime = crate::crio::of_node(
                    node,
                    &inputs.nodes,
                    inputs.cluster_version.as_ref(),
                    &inputs.pools,
                );
                let disk = disk_of(files, &runtime);
                match groups.iter_mut().find(|(d, _)| *d == disk) {
                    Some((_, nodes)) => nodes.push(node.clone()),
                    None => groups.push((disk.clone(), vec![node.clone()])),
                }
                pool_nodes.push((files, disk));
                continue;
            }
            Some(NodeRead::NotRead { why, .. }) => why.clone(),
            None => "not among the node files".to_string(),
        };
        notes.push(format!("node {node}: files not read: {why}"));
        not_read.push(NotRead {
            node: node.clone(),
            reason: why,
        });
    }
    groups
}

/// The on-disk stage of one group of nodes with identical files.
fn disk_stage(nodes_stage: &Stage, config: &str, disk: &Disk, nodes: &[String]) -> Stage {
    Stage {
        kind: KIND,
        name: disk_name(nodes),
        machine_config: Some(config.to_string()),
        nodes: nodes.to_vec(),
        missing: nodes_stage.missing.clone(),
        files: Some(
            disk.files
                .iter()
                .filter(|(p, _)| is_managed(p))
                .map(|(p, b)| (p.clone(), String::from_utf8_lossy(b).into_owned()))
                .collect(),
        ),
    }
}

/// A note when the daemon's own record of the config it applied is not the
/// one the Node's annotation names.
fn current_config_note(files: &NodeFiles, config: &str) -> Option<String> {
    let text = files.text(CURRENT_CONFIG_FILE)?;
    let name = serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .pointer("/metadata/name")?
        .as_str()?
        .to_string();
    (name != config).then(|| {
        format!(
            "node {}: {CURRENT_CONFIG_FILE} is {name}, but its {CURRENT_CONFIG_ANNOTATION} annotation is {config}",
            files.node
        )
    })
}

/// The certificates a MachineConfig writes, by path, as SHA-256.
fn config_certs(mc: &MachineConfig) -> Result<BTreeMap<String, String>, String> {
    let mut certs = BTreeMap::new();
    for f in &mc.spec.config.storage.files {
        if is_cert_path(&f.path) {
            certs.insert(f.path.clone(), sha256_hex(&file_bytes(mc, f)?));
        }
    }
    Ok(certs)
}

/// Nodes of one config with the same files.
struct Group<'a> {
    inputs: &'a Inputs,
    selection: &'a Selection,
    config: &'a str,
    nodes: &'a [String],
    disk: &'a Disk,
    /// The modes the config sets, by path.
    modes: &'a BTreeMap<String, u32>,
}

impl Group<'_> {
    fn compare(&self, config_files: &Files, certs: &BTreeMap<String, String>) -> Vec<Drift> {
        let mut out = Vec::new();
        if let Some(link) = &self.disk.linked_folder {
            if wanted(self.selection, REGISTRIES_CONF_D) {
                out.push(self.linked_folder(link));
            }
        }
        let paths: BTreeSet<&String> = config_files
            .keys()
            .chain(self.disk.files.keys().filter(|p| is_managed(p)))
            .chain(self.disk.unreadable.keys().filter(|p| is_managed(p)))
            .collect();
        for path in paths {
            if !wanted(self.selection, path) {
                continue;
            }
            if config_files.contains_key(path.as_str()) {
                out.extend(self.mode_mismatch(path));
            }
            out.extend(self.file_drift(path, config_files));
        }
        for (path, want) in certs {
            if !wanted(self.selection, path) {
                continue;
            }
            let summary = match self.disk.certs.get(path) {
                Some(have) if have == want => continue,
                Some(have) => format!(
                    "{path} on disk (sha256 {}) is not what {} writes (sha256 {})",
                    short(have),
                    self.config,
                    short(want)
                ),
                None => format!("{path} is written by {} but missing on disk", self.config),
            };
            out.push(self.entry(path, vec![summary], self.edited_cause(path), String::new()));
        }
        // What the daemons report and the files do not show (a mode, or a
        // file put back since).
        for node in self.nodes {
            let Some(mismatch) = node_mismatch(self.inputs, node) else {
                continue;
            };
            let path = mismatch.path();
            if !wanted(self.selection, path) || out.iter().any(|d| d.file == path) {
                continue;
            }
            let next = match mismatch {
                Mismatch::Content(_) => "its content on disk matches the config now: the daemon validates it again when it restarts",
                Mismatch::Mode(_) if self.disk.meta.contains_key(path) => "its type and mode on disk match the config now: the daemon validates it again when it restarts",
                Mismatch::Mode(_) => "these node files hold no types or modes (collected before they were recorded): see `stat` on the node",
            };
            out.push(reported_entry(
                self.inputs,
                node,
                self.config,
                &mismatch,
                next,
            ));
        }
        out
    }

    /// The content drift of one managed path: changed, missing, cannot be
    /// resolved, or on disk while no MachineConfig writes it.
    fn file_drift(&self, path: &str, config_files: &Files) -> Option<Drift> {
        let disk = self.disk.files.get(path);
        let unreadable = self.disk.unreadable.get(path);
        match (config_files.get(path), disk, unreadable) {
            (Some(want), Some(have), _) if want.as_bytes() == have.as_slice() => None,
            (Some(want), Some(have), _) => Some(self.changed(path, want, have)),
            (Some(want), None, Some(why)) => Some(self.unresolved(path, why, Some(want))),
            (Some(want), None, None) => Some(self.missing(path, want)),
            // The OS ships these; the MCO's templates write the first two.
            (None, Some(_), _)
                if OS_FILES.contains(&path)
                    || path == "/etc/containers/registries.conf"
                    || path == "/etc/containers/policy.json" =>
            {
                None
            }
            // Never drift "that CRI-O reads": listed in the notes.
            (None, _, _) if self.ignores(path) => None,
            (None, Some(have), _) => Some(self.stray(path, have)),
            (None, None, Some(why)) if self.disk.breakers.contains_key(path) => {
                Some(self.unresolved(path, why, None))
            }
            (None, None, _) => None,
        }
    }

    /// Whether the runtime never reads `path` on these nodes.
    fn ignores(&self, path: &str) -> bool {
        self.disk.ignored.iter().any(|(p, _)| p == path)
    }

    /// Notes on these nodes: the files the runtime never reads (those behind
    /// a linked drop-in folder are in that folder's drift), and links that
    /// dangle, which containers/image takes as absent.
    fn notes(&self) -> Vec<String> {
        let nodes = self.nodes.join(", ");
        let mut out = Vec::new();
        for (path, why) in &self.disk.ignored {
            let behind_link =
                self.disk.linked_folder.is_some() && folder_of(path) == Some(REGISTRIES_CONF_D);
            if !behind_link && wanted(self.selection, path) {
                out.push(format!(
                    "{nodes}: {path} is ignored by CRI-O, not drift: {why}"
                ));
            }
        }
        for (path, why) in &self.disk.unreadable {
            let counted = self.disk.breakers.contains_key(path) || self.modes.contains_key(path);
            if !counted && is_absent(why) && wanted(self.selection, path) {
                out.push(format!(
                    "{nodes}: {path} cannot be resolved ({why}): containers/image takes it as absent"
                ));
            }
        }
        out
    }

    /// The daemon's own check of a file its config writes: `lstat` of the
    /// path, its Go `os.FileMode` against the config's mode (a link, or
    /// another type, never matches a regular file's mode).
    fn mode_mismatch(&self, path: &str) -> Option<Drift> {
        let meta = self.disk.meta.get(path)?;
        let want = self.modes.get(path).copied().unwrap_or(DEFAULT_FILE_MODE);
        let have = meta.go_mode();
        if have == want {
            return None;
        }
        let mut summary = vec![format!(
            "mode mismatch for file: \"{path}\"; expected: {}; received: {}",
            go_mode_words(want),
            go_mode_words(have)
        )];
        let what = match meta.kind() {
            FileKind::Link => format!(
                "a link to {}",
                meta.target
                    .as_deref()
                    .unwrap_or("a path that cannot be resolved")
            ),
            kind => format!("a {} file, mode {:04o}", kind.word(), meta.mode & 0o7777),
        };
        summary.push(format!(
            "{path} on disk is {what}, owned by uid {} gid {}",
            meta.uid, meta.gid
        ));
        let cause = format!(
            "the machine-config daemon checks every file its config writes with lstat (checkFileContentsAndMode): a link, or a mode other than the config's, fails its on-disk validation whatever the content, and it degrades the node when it validates (at its start, before its next update); {}",
            self.edited_cause(path)
        );
        Some(self.entry(path, summary, cause, String::new()))
    }

    /// A path whose links cannot be resolved on the node.
    fn unresolved(&self, path: &str, why: &str, want: Option<&String>) -> Drift {
        let mut summary = vec![format!("{path} cannot be resolved on the node: {why}")];
        if want.is_some() {
            summary.push(format!(
                "{} writes it, but the daemon finds no file it can read there",
                self.config
            ));
        }
        let runtime = match self.disk.breakers.get(path).map(|b| b.undetermined) {
            Some(Some(Undetermined::ReleaseUnknown)) => {
                "whether containers/image reads it depends on the nodes' CRI-O release, which is not known"
            }
            Some(Some(Undetermined::NotModelled)) => {
                "whether containers/image reads it is undetermined: the tool does not model how the nodes' CRI-O release reads it"
            }
            Some(Some(Undetermined::MapOrder)) => {
                "whether containers/image reads it is undetermined: two keys of one table set the same field differently, and the node reads either one"
            }
            Some(None) => "containers/image fails to read it: every pull on these nodes fails",
            None => "containers/image takes it as absent",
        };
        let cause = match want {
            Some(_) => format!("{}; {runtime}", self.edited_cause(path)),
            None => format!("placed on the node outside the MCO; {runtime}"),
        };
        let diff = want.map_or_else(String::new, |w| self.unified("", &normalize(path, w)));
        self.entry(path, summary, cause, diff)
    }

    /// The drop-in folder is a link: containers/image reads nothing behind it.
    fn linked_folder(&self, link: &FileMeta) -> Drift {
        let behind: Vec<&str> = self
            .disk
            .files
            .keys()
            .chain(self.disk.unreadable.keys())
            .filter(|p| folder_of(p) == Some(REGISTRIES_CONF_D))
            .filter_map(|p| p.rsplit('/').next())
            .collect();
        let mut summary = vec![format!(
            "{REGISTRIES_CONF_D} is a link to {}",
            link.target
                .as_deref()
                .unwrap_or("a path that cannot be resolved")
        )];
        summary.push(if behind.is_empty() {
            "no drop-in is behind it".to_string()
        } else {
            format!(
                "CRI-O ignores the drop-ins behind it: {}",
                behind.join(", ")
            )
        });
        let cause = "containers/image lists the drop-in folder with Go's filepath.WalkDir, which does not follow a link to a folder: CRI-O reads none of the drop-ins behind it, while the machine-config daemon still finds the files it writes through the link; likely an admin's mistake (a folder replaced by a link): make it a real folder again".to_string();
        Drift {
            nodes: self.nodes.to_vec(),
            file: REGISTRIES_CONF_D.to_string(),
            from: current_name(self.config),
            to: disk_name(self.nodes),
            summary,
            cause,
            hand_edits: Vec::new(),
            diff: String::new(),
        }
    }

    /// `cause` with what a file that breaks every pull does.
    fn with_breaker(&self, path: &str, cause: String) -> String {
        match self.disk.breakers.get(path) {
            Some(b) if b.undetermined.is_some() => format!(
                "{cause}; whether containers/image loads it is undetermined ({}): if it does not, every pull on these nodes fails",
                b.why
            ),
            Some(b) => format!(
                "{cause}; containers/image cannot load it ({}): every pull on these nodes fails",
                b.why
            ),
            None => cause,
        }
    }

    fn entry(&self, path: &str, summary: Vec<String>, cause: String, diff: String) -> Drift {
        let fix = if path.starts_with("/etc/docker/certs.d/") {
            "restore it from the CA the Image config's spec.additionalTrustedCA ConfigMap holds for that registry".to_string()
        } else if self.modes.contains_key(path) {
            force_fix(&self.nodes.join(", "))
        } else {
            format!(
                "remove it from {}, or write it through a MachineConfig",
                self.nodes.join(", ")
            )
        };
        Drift {
            nodes: self.nodes.to_vec(),
            file: path.to_string(),
            from: current_name(self.config),
            to: disk_name(self.nodes),
            summary,
            cause: format!("{cause}; fix: {fix}"),
            hand_edits: Vec::new(),
            diff,
        }
    }

    /// A unified diff read as the other stages' are: `-` what the disk has
    /// now, `+` what the config writes.
    fn unified(&self, now: &str, next: &str) -> String {
        similar::TextDiff::from_lines(now, next)
            .unified_diff()
            .context_radius(2)
            .header(&disk_name(self.nodes), &current_name(self.config))
            .to_string()
    }

    fn changed(&self, path: &str, want: &str, have: &[u8]) -> Drift {
        let have = String::from_utf8_lossy(have).into_owned();
        let cause = self.with_breaker(path, self.edited_cause(path));
        if have.replace("\r\n", "\n") == want.replace("\r\n", "\n") {
            let (disk, config) = if have.contains("\r\n") {
                ("CRLF (\\r\\n)", "LF (\\n)")
            } else {
                ("LF (\\n)", "CRLF (\\r\\n)")
            };
            let summary = vec![format!(
                "line endings differ (CRLF): {path} on disk ends its lines with {disk} where {} writes {config}; the daemon compares bytes, so it is drift to it as well",
                self.config
            )];
            return self.entry(path, summary, cause, String::new());
        }
        let (now, next) = (normalize(path, &have), normalize(path, want));
        if now == next {
            let summary = vec![format!(
                "{path} differs from what {} writes in formatting only; the daemon compares bytes, so it is drift to it as well",
                self.config
            )];
            return self.entry(path, summary, cause, self.unified(&have, want));
        }
        let summary = summarize(
            path,
            Some(&want.to_string()),
            Some(&have),
            &current_name(self.config),
            &disk_name(self.nodes),
        );
        self.entry(path, summary, cause, self.unified(&now, &next))
    }

    fn missing(&self, path: &str, want: &str) -> Drift {
        let summary = vec![format!(
            "{path} is written by {} but missing on disk",
            self.config
        )];
        let next = normalize(path, want);
        self.entry(
            path,
            summary,
            self.edited_cause(path),
            self.unified("", &next),
        )
    }

    fn stray(&self, path: &str, have: &[u8]) -> Drift {
        let have = String::from_utf8_lossy(have).into_owned();
        let summary = vec![format!(
            "{path} is on disk, but no MachineConfig of {} writes it",
            self.config
        )];
        let cause = self.with_breaker(
            path,
            format!(
                "placed on the node by hand or by a tool outside the MCO: the daemon neither checks nor removes files no MachineConfig writes, and {} reads it",
                reader(path)
            ),
        );
        self.entry(
            path,
            summary,
            cause,
            self.unified(&normalize(path, &have), ""),
        )
    }

    /// Why a file the config writes is not as written: what the daemons of
    /// these nodes report, else the general case.
    fn edited_cause(&self, path: &str) -> String {
        let reporting: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| node_mismatch(self.inputs, n).is_some_and(|m| m.path() == path))
            .map(String::as_str)
            .collect();
        if reporting.is_empty() {
            return format!(
                "changed on the node after the daemon wrote it (by hand, or by a tool outside the MCO); no daemon of these nodes reports it in its {REASON_ANNOTATION} annotation"
            );
        }
        let words: Vec<String> = reporting
            .iter()
            .map(|n| format!("{n}: {}", reason_of(self.inputs, n)))
            .collect();
        format!(
            "changed on the node after the daemon wrote it; the machine-config daemon reports it and keeps the node Degraded until the file is as {} writes it again ({})",
            self.config,
            words.join("; ")
        )
    }
}

/// Who reads a file of the runtime's folders.
fn reader(path: &str) -> &'static str {
    if path.starts_with("/etc/crio/policies/") {
        "CRI-O"
    } else {
        "CRI-O (containers/image)"
    }
}

fn short(digest: &str) -> &str {
    &digest[..digest.len().min(12)]
}

/// Certificates no MachineConfig writes (the daemon writes the registry CAs
/// from the ControllerConfig to `/etc/docker/certs.d/<host>/ca.crt` on
/// every node) and the OS's files: a node of the pool without one the
/// others have, or with another content, is drift.
fn between_nodes(
    nodes: &[(&NodeFiles, Disk)],
    mc_certs: &BTreeSet<String>,
    selection: &Selection,
) -> Vec<Drift> {
    if nodes.len() < 2 {
        return Vec::new();
    }
    let seen = unmanaged_fingerprints(nodes, mc_certs);
    let all: Vec<String> = nodes.iter().map(|(f, _)| f.node.clone()).collect();
    let mut out = Vec::new();
    for (path, holders) in seen {
        if !wanted(selection, &path) {
            continue;
        }
        // The content most nodes hold is the reference (the smallest on a tie).
        let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
        for digest in holders.values() {
            *counts.entry(digest).or_default() += 1;
        }
        let Some((reference, most)) = counts
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(d, n)| ((*d).clone(), *n))
        else {
            continue;
        };
        let digests: Vec<String> = holders
            .iter()
            .map(|(node, digest)| format!("sha256 {} on {node}", short(digest)))
            .collect();
        if is_cert_path(&path) && counts.values().filter(|n| **n == most).count() > 1 {
            out.push(no_majority(&path, &all, &digests));
            continue;
        }
        let like: Vec<String> = holders
            .iter()
            .filter(|(_, d)| **d == reference)
            .map(|(n, _)| n.clone())
            .collect();
        let lacking: Vec<String> = all
            .iter()
            .filter(|n| !holders.contains_key(*n))
            .cloned()
            .collect();
        let other: Vec<String> = holders
            .iter()
            .filter(|(_, d)| **d != reference)
            .map(|(n, _)| n.clone())
            .collect();
        out.extend(drifts_between(
            &path, &reference, &like, lacking, other, &digests,
        ));
    }
    out
}

/// A certificate the nodes of a pool hold with contents none of which most
/// of them share: no baseline, every node's digest.
fn no_majority(path: &str, nodes: &[String], digests: &[String]) -> Drift {
    let mut summary = vec![format!(
        "{path} differs between the nodes of the pool, and no content is held by most of them: no baseline"
    )];
    summary.extend(digests.iter().cloned());
    Drift {
        nodes: nodes.to_vec(),
        file: path.to_string(),
        from: "the files of the pool's nodes".to_string(),
        to: disk_name(nodes),
        summary,
        cause: "the daemon writes the registry CAs (the Image config's additionalTrustedCA and the cluster's own) to /etc/docker/certs.d/<host>/ca.crt on every node from the ControllerConfig: nodes that differ were changed by hand, or their daemons have not synced yet (see their machine-config-daemon logs)".to_string(),
        hand_edits: Vec::new(),
        diff: String::new(),
    }
}

/// path -> node -> fingerprint of the certificates no MachineConfig writes
/// and of the OS's own files, on every read node of a pool.
fn unmanaged_fingerprints(
    nodes: &[(&NodeFiles, Disk)],
    mc_certs: &BTreeSet<String>,
) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut seen: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (files, disk) in nodes {
        for (path, digest) in &disk.certs {
            if !mc_certs.contains(path) {
                seen.entry(path.clone())
                    .or_default()
                    .insert(files.node.clone(), digest.clone());
            }
        }
        for (path, bytes) in &disk.files {
            if OS_FILES.contains(&path.as_str()) {
                seen.entry(path.clone())
                    .or_default()
                    .insert(files.node.clone(), sha256_hex(bytes));
            }
        }
    }
    seen
}

/// The drift of one unmanaged file: the nodes that lack it and the nodes
/// whose copy differs from the one most nodes (`like`) hold.
fn drifts_between(
    path: &str,
    reference: &str,
    like: &[String],
    lacking: Vec<String>,
    other: Vec<String>,
    digests: &[String],
) -> Vec<Drift> {
    let mut out = Vec::new();
    let cert = is_cert_path(path);
    let cause = if cert {
        "the daemon writes the registry CAs (the Image config's additionalTrustedCA and the cluster's own) to /etc/docker/certs.d/<host>/ca.crt on every node from the ControllerConfig, and removes the folders it no longer lists: a node that differs was changed by hand, or its daemon has not synced yet (see its machine-config-daemon log)".to_string()
    } else {
        "shipped with the OS and written by no MachineConfig: a node that differs was changed by hand".to_string()
    };
    for (nodes, summary) in [
        (
            lacking,
            format!("{path} is on {} but missing on", like.join(", ")),
        ),
        (other, format!("{path} on {} differs from", like.join(", "))),
    ] {
        if nodes.is_empty() {
            continue;
        }
        let mut lines = vec![format!("{summary} {}", nodes.join(", "))];
        if cert {
            // The baseline is the content most nodes hold; every node's digest.
            lines.push(format!(
                "the baseline is what most nodes of the pool hold: sha256 {}",
                short(reference)
            ));
            lines.extend(digests.iter().cloned());
        }
        out.push(Drift {
            nodes: nodes.clone(),
            file: path.to_string(),
            from: format!("the files on {}", like.join(", ")),
            to: disk_name(&nodes),
            summary: lines,
            cause: cause.clone(),
            hand_edits: Vec::new(),
            diff: String::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_name_the_file() {
        for (reason, want) in [
            (
                "unexpected on-disk state validating against rendered-worker-1a2b: content mismatch for file \"/etc/containers/registries.conf\"",
                Some(Mismatch::Content("/etc/containers/registries.conf".into())),
            ),
            (
                "unexpected on-disk state validating against rendered-worker-1a2b: mode mismatch for file: \"/etc/containers/policy.json\"; expected: -rw-r--r--/420/0644; received: -rw-------/384/0600",
                Some(Mismatch::Mode("/etc/containers/policy.json".into())),
            ),
            (
                "content mismatch for file \"/etc/a \\\"b\\\"\"",
                Some(Mismatch::Content("/etc/a \"b\"".into())),
            ),
            ("unexpected on-disk state validating against rendered-worker-1a2b: expected target osImageURL x", None),
            ("content mismatch for file \"/etc/unterminated", None),
            ("", None),
        ] {
            assert_eq!(parse_reason(reason), want, "{reason}");
        }
    }
}
