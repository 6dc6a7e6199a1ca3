//! `diff`: the chain from CRs to nodes, stage by stage, for the files the
//! MCO manages from the mirror CRs.
//!
//! For each pool: (a) what the CRs render to now, (b) the generated
//! MachineConfig `99-<pool>-generated-registries`, (c) the rendered
//! MachineConfig the pool targets, (d) the rendered MachineConfig each node
//! runs (its `currentConfig` annotation), nodes grouped by config. Each
//! stage is compared with the next after normalizing TOML, JSON and YAML,
//! so key order and formatting never count; each difference gets
//! plain-language lines, a likely cause, and for nodes what the Machine
//! Config Daemon will do to reach the CRs' state.

pub mod impact;
pub mod layers;
pub mod on_disk;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use serde::Serialize;
use serde_json::Value;

use crate::objects::machine_config::{
    CURRENT_CONFIG_ANNOTATION, MCO_FIELD_MANAGER, STATE_ANNOTATION,
};
use crate::objects::Inputs;
use crate::objects::{MachineConfig, MachineConfigPool};
use crate::registries::{RegistriesError, RegistriesFile, RegistryTable};
use crate::render::machineconfig::generated_registries_name;
use crate::render::pool::{render_pool, REGISTRIES_CONF, REGISTRIES_TEMPLATE};

use impact::Action;

/// Whether the MCO writes `path` from the mirror CRs.
pub fn is_managed(path: &str) -> bool {
    path == "/etc/containers/registries.conf"
        || path == "/etc/containers/policy.json"
        || path.starts_with("/etc/containers/registries.d/")
        || path.starts_with("/etc/containers/registries.conf.d/")
        || path.starts_with("/etc/crio/policies/")
}

/// Managed files by path.
pub type Files = BTreeMap<String, String>;

/// The managed files a MachineConfig writes (the last entry for a path
/// wins, as Ignition applies them in order), decoded from their data URLs
/// (percent-escaped or base64, gzip when `compression: gzip` or the data
/// starts with the gzip magic).
pub fn machine_config_files(mc: &MachineConfig) -> Result<Files, String> {
    let mut files = Files::new();
    for f in &mc.spec.config.storage.files {
        if !is_managed(&f.path) {
            continue;
        }
        let bytes = file_bytes(mc, f)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            format!(
                "MachineConfig/{} {}: not UTF-8 text",
                mc.metadata.name, f.path
            )
        })?;
        files.insert(f.path.clone(), text);
    }
    Ok(files)
}

/// The bytes a MachineConfig's file entry writes, decoded from its data URL
/// (percent-escaped or base64, gzip when `compression: gzip` or the data
/// starts with the gzip magic).
pub fn file_bytes(mc: &MachineConfig, f: &crate::objects::IgnitionFile) -> Result<Vec<u8>, String> {
    let source = f.contents.source.as_deref().unwrap_or("data:,");
    let bytes = crate::render::machineconfig::decode_data_url_bytes(source)
        .map_err(|e| format!("MachineConfig/{} {}: {e}", mc.metadata.name, f.path))?;
    let gzip =
        f.contents.compression.as_deref() == Some("gzip") || bytes.starts_with(&[0x1f, 0x8b]);
    if !gzip {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_end(&mut out)
        .map_err(|e| format!("MachineConfig/{} {}: gzip: {e}", mc.metadata.name, f.path))?;
    Ok(out)
}

/// A canonical text of a managed file: TOML, JSON and YAML parsed and
/// written back with sorted keys, so formatting and key order never count.
/// registries.conf files are read as the node reads them (keys matched
/// case-insensitively, unknown keys left out). Text that does not parse, or
/// that the node's reader refuses or reads undeterminably, is compared as is.
pub fn normalize(path: &str, text: &str) -> String {
    let canonical = if path.ends_with(".conf") {
        // Every managed `.conf` is registries.conf or a drop-in of it: read
        // as the node reads it, so `Location` is `location`.
        RegistriesFile::read(path, text).ok().map(|f| f.to_toml())
    } else if path.ends_with(".json") {
        serde_json::from_str::<Value>(text)
            .ok()
            .map(|v| pretty_sorted(&v))
    } else if path.ends_with(".yaml") || path.ends_with(".yml") {
        serde_saphyr::from_str::<Value>(text)
            .ok()
            .map(|v| pretty_sorted(&v))
    } else {
        None
    };
    canonical.unwrap_or_else(|| text.to_string())
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn pretty_sorted(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(&sorted(v)).unwrap_or_default();
    s.push('\n');
    s
}

/// One stage of the chain.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stage {
    /// `crs`, `generated`, `target`, `nodes` or `onDisk` (the files on the
    /// disks of `nodes`, which hold the same files).
    pub kind: &'static str,
    /// How the text names it: "the CRs", "MachineConfig/99-worker-generated-registries", ...
    pub name: String,
    /// The MachineConfig, when the stage is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub machine_config: Option<String>,
    /// For `nodes`: the node names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// Why the stage has no files, when it has none (missing object, MCO refusal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    #[serde(skip)]
    pub files: Option<Files>,
}

/// A difference between two consecutive stages for one file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// For the files on disk: the nodes that differ.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    pub file: String,
    pub from: String,
    pub to: String,
    /// Plain-language lines, one per semantic difference.
    pub summary: Vec<String>,
    pub cause: String,
    /// Between the CRs and the generated MachineConfig: the hand edits of
    /// its `spec.config` the MCO has not reverted yet, newest first, when
    /// they are the cause (from `metadata.managedFields`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand_edits: Vec<HandEdit>,
    /// Unified diff of the normalized contents.
    pub diff: String,
}

/// A write of a generated MachineConfig's `spec.config` by a field manager
/// other than the MCO's ([`MCO_FIELD_MANAGER`]) that still owns part of it:
/// `kubectl edit`, `kubectl apply`, `kubectl patch`, `oc`, a GitOps tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandEdit {
    /// The field manager: `kubectl-edit`, `kubectl-client-side-apply`,
    /// `kubectl-patch`, `kubectl` (server-side apply), ...
    pub manager: String,
    /// `Update` (create, edit, patch, replace, client-side apply) or
    /// `Apply` (server-side apply).
    pub operation: String,
    /// When it wrote (the managedFields `time`), when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

/// What the daemon will do on a group of nodes to reach what the CRs render.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Impact {
    pub nodes: Vec<String>,
    pub config: String,
    pub files: Vec<String>,
    pub action: Action,
    pub reasons: Vec<String>,
}

/// One pool.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolDiff {
    pub pool: String,
    /// "updating 3/5", "paused", "degraded: ...", "updated".
    pub state: String,
    pub stages: Vec<Stage>,
    pub drift: Vec<Drift>,
    pub impact: Vec<Impact>,
    /// Stages that could not be compared (an object missing from the input).
    pub notes: Vec<String>,
}

/// The whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub pools: Vec<PoolDiff>,
    /// Whether anything differs: `None` (null) when nothing was found to
    /// differ but a node asked for could not be read, so what its files
    /// hold is not known (the run exits 3).
    pub drift: Option<bool>,
    /// With the files on disk: the nodes asked for whose files could not be
    /// read, and why (what is known of them is undetermined).
    #[serde(rename = "notRead", skip_serializing_if = "Vec::is_empty")]
    pub not_read: Vec<NotRead>,
}

impl Report {
    /// The counts `-o summary` gives of one cluster's comparison: the
    /// pools compared, those with drift, and the nodes whose files could
    /// not be read.
    pub fn summary_counts(&self) -> Vec<(&'static str, usize)> {
        let drifting = self.pools.iter().filter(|p| !p.drift.is_empty());
        vec![
            ("pools", self.pools.len()),
            ("drifting", drifting.count()),
            ("notRead", self.not_read.len()),
        ]
    }
}

/// A node whose files could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRead {
    pub node: String,
    pub reason: String,
}

/// Which pools and nodes to compare.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub pools: Vec<String>,
    pub nodes: Vec<String>,
    /// Only these node files (`--file`).
    pub files: Vec<String>,
}

/// Compares every selected pool. `crs_name` names stage (a) ("the CRs", or
/// "the CRs with new-idms.yaml" for `--with`, where `proposed` is set).
pub fn diff(
    inputs: &Inputs,
    selection: &Selection,
    crs_name: &str,
    proposed: bool,
) -> Result<Report, String> {
    check_selection(inputs, selection)?;
    // Without pools (a few objects exported by hand), the pools the
    // generated MachineConfigs name are compared as far as they go.
    let implied: Vec<MachineConfigPool> = if inputs.pools.is_empty() {
        inputs
            .machine_configs
            .iter()
            .filter_map(|m| {
                m.metadata
                    .name
                    .strip_prefix("99-")
                    .and_then(|n| n.strip_suffix("-generated-registries"))
            })
            .map(|pool| MachineConfigPool {
                api_version: String::new(),
                kind: MachineConfigPool::KIND.to_string(),
                metadata: crate::objects::ObjectMeta::named(pool),
                spec: Default::default(),
                status: Default::default(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut pools: Vec<&MachineConfigPool> = inputs.pools.iter().chain(&implied).collect();
    pools.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    if !selection.pools.is_empty() {
        for want in &selection.pools {
            if !pools.iter().any(|p| &p.metadata.name == want) {
                let known: Vec<&str> = pools.iter().map(|p| p.metadata.name.as_str()).collect();
                return Err(format!(
                    "no MachineConfigPool {want} (found: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            }
        }
        pools.retain(|p| selection.pools.contains(&p.metadata.name));
    }
    if pools.is_empty() {
        return Err("no MachineConfigPool and no generated MachineConfig to compare: read them from the cluster, or a must-gather with cluster-scoped-resources/machineconfiguration.openshift.io".to_string());
    }
    let mut out = Vec::new();
    for pool in pools {
        out.push(pool_diff(inputs, pool, selection, crs_name, proposed)?);
    }
    let drift = out.iter().any(|p| !p.drift.is_empty());
    Ok(Report {
        pools: out,
        drift: Some(drift),
        not_read: Vec::new(),
    })
}

/// Refuses a `--node` the input has no Node for and a `--file` the mirror
/// CRs never manage: silently comparing nothing would read as "no drift".
fn check_selection(inputs: &Inputs, selection: &Selection) -> Result<(), String> {
    for want in &selection.nodes {
        if !inputs.nodes.iter().any(|n| &n.metadata.name == want) {
            let known: Vec<&str> = inputs
                .nodes
                .iter()
                .map(|n| n.metadata.name.as_str())
                .collect();
            return Err(format!(
                "--node {want}: no such Node (found: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    for want in &selection.files {
        if !is_managed(want) {
            return Err(format!(
                "{want} is not a file the mirror configuration manages: /etc/containers/registries.conf, \
                 /etc/containers/policy.json, /etc/containers/registries.conf.d/*, \
                 /etc/containers/registries.d/*, /etc/crio/policies/*"
            ));
        }
    }
    Ok(())
}

fn mc<'a>(inputs: &'a Inputs, name: &str) -> Option<&'a MachineConfig> {
    inputs
        .machine_configs
        .iter()
        .find(|m| m.metadata.name == name)
}

fn pool_state(pool: &MachineConfigPool) -> String {
    if pool.api_version.is_empty() {
        return "no MachineConfigPool in the input: only the CRs and the generated MachineConfig are compared".to_string();
    }
    let s = &pool.status;
    let cond = |t: &str| pool.condition(t).is_some_and(|c| c.status == "True");
    let mut parts = Vec::new();
    if pool.spec.paused {
        parts.push("paused".to_string());
    }
    if cond("Degraded") || cond("RenderDegraded") || cond("NodeDegraded") {
        let message = ["RenderDegraded", "NodeDegraded", "Degraded"]
            .iter()
            .filter_map(|t| pool.condition(t))
            .filter(|c| c.status == "True")
            .find_map(|c| c.message.clone())
            .unwrap_or_default();
        parts.push(
            format!("degraded: {message}")
                .trim_end_matches(": ")
                .to_string(),
        );
    }
    // A degraded node is not updated, but the pool is not updating for it.
    if cond("Updating") || s.updated_machine_count + s.degraded_machine_count < s.machine_count {
        parts.push(format!(
            "updating {}/{}",
            s.updated_machine_count, s.machine_count
        ));
    }
    if parts.is_empty() {
        parts.push(format!(
            "updated {}/{}",
            s.updated_machine_count, s.machine_count
        ));
    }
    parts.join(", ")
}

/// One pool being compared: its inputs, the MachineConfigs it merges, the
/// name of its generated MachineConfig, and its state.
struct PoolContext<'a> {
    inputs: &'a Inputs,
    pool: &'a MachineConfigPool,
    selection: &'a Selection,
    configs: Vec<&'a MachineConfig>,
    generated: String,
    state: String,
}

/// The pool whose generated registries MachineConfig reaches `pool`'s
/// nodes ([`MachineConfigPool::generating_pool`]); `Err` says why none does.
fn generating_pool<'a>(inputs: &'a Inputs, pool: &'a MachineConfigPool) -> Result<&'a str, String> {
    pool.generating_pool(&inputs.pools)
        .ok_or_else(|| crate::render::pool::no_generated_config(pool))
}

fn pool_diff(
    inputs: &Inputs,
    pool: &MachineConfigPool,
    selection: &Selection,
    crs_name: &str,
    proposed: bool,
) -> Result<PoolDiff, String> {
    let name = &pool.metadata.name;
    let cx = PoolContext {
        inputs,
        pool,
        selection,
        // The pool's other MachineConfigs, in the MCO's merge order: they
        // write what the generated MachineConfig does not carry.
        configs: layers::pool_configs(&inputs.machine_configs, pool),
        generated: generated_registries_name(generating_pool(inputs, pool)?),
        state: pool_state(pool),
    };
    let mut stages = vec![crs_stage(inputs, generating_pool(inputs, pool)?, crs_name)];
    stages.push(mc_stage(
        inputs,
        "generated",
        &cx.generated,
        format!("MachineConfig/{}", cx.generated),
        Vec::new(),
    )?);
    if let Some(target) = target_stage(inputs, pool)? {
        stages.push(target);
    }
    stages.extend(node_stages(inputs, pool, selection)?);
    let mut drift = stage_drift(&cx, &stages, proposed)?;
    let impact = impact(&cx, &stages)?;
    let notes = refusals_and_notes(&stages, &cx.generated, &mut drift);
    Ok(PoolDiff {
        pool: name.clone(),
        state: cx.state,
        stages,
        drift,
        impact,
        notes,
    })
}

/// Stage (a): what the CRs render for the pool, or why the MCO refuses them.
fn crs_stage(inputs: &Inputs, pool: &str, crs_name: &str) -> Stage {
    let render = render_pool(inputs, pool);
    Stage {
        kind: "crs",
        name: crs_name.to_string(),
        machine_config: None,
        nodes: Vec::new(),
        missing: render
            .as_ref()
            .err()
            .map(|e| format!("the MCO refuses to render them: {e}")),
        files: render.as_ref().ok().map(|r| {
            r.files
                .iter()
                .map(|f| (f.path.clone(), f.contents.clone()))
                .collect()
        }),
    }
}

/// Stage (c): the pool's target rendered config; none for a pool implied
/// by its generated MachineConfig.
fn target_stage(inputs: &Inputs, pool: &MachineConfigPool) -> Result<Option<Stage>, String> {
    let name = &pool.metadata.name;
    let target = if pool.spec.configuration.name.is_empty() {
        pool.status.configuration.name.clone()
    } else {
        pool.spec.configuration.name.clone()
    };
    if pool.api_version.is_empty() {
        return Ok(None);
    }
    if target.is_empty() {
        return Ok(Some(Stage {
            kind: "target",
            name: format!("the target of pool {name}"),
            machine_config: None,
            nodes: Vec::new(),
            missing: Some("the pool names no rendered MachineConfig".into()),
            files: None,
        }));
    }
    mc_stage(
        inputs,
        "target",
        &target,
        format!("the pool's target {target}"),
        Vec::new(),
    )
    .map(Some)
}

/// Stages (d): the selected nodes of the pool, one stage per distinct
/// current config.
fn node_stages(
    inputs: &Inputs,
    pool: &MachineConfigPool,
    selection: &Selection,
) -> Result<Vec<Stage>, String> {
    let prefix = format!("rendered-{}-", pool.metadata.name);
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for node in &inputs.nodes {
        let current = node
            .metadata
            .annotation(CURRENT_CONFIG_ANNOTATION)
            .unwrap_or_default();
        if !current.starts_with(&prefix) {
            continue;
        }
        if !selection.nodes.is_empty() && !selection.nodes.contains(&node.metadata.name) {
            continue;
        }
        groups
            .entry(current.to_string())
            .or_default()
            .push(node.metadata.name.clone());
    }
    groups
        .into_iter()
        .map(|(config, nodes)| {
            let label = format!("nodes {} (running {config})", nodes.join(", "));
            mc_stage(inputs, "nodes", &config, label, nodes)
        })
        .collect()
}

/// The indexes of the node stages.
fn node_indexes(stages: &[Stage]) -> Vec<usize> {
    (0..stages.len())
        .filter(|&i| stages[i].kind == "nodes")
        .collect()
}

/// The differences between consecutive stages: the CRs with the generated
/// MachineConfig; the generated MachineConfig with the pool's target (or,
/// for a pool implied by it, with the nodes); nodes with the pool's target.
fn stage_drift(cx: &PoolContext, stages: &[Stage], proposed: bool) -> Result<Vec<Drift>, String> {
    let node_stages = node_indexes(stages);
    let mut pairs = vec![(0, 1)];
    match stages.iter().position(|s| s.kind == "target") {
        Some(t) => {
            pairs.push((1, t));
            pairs.extend(node_stages.iter().map(|&n| (t, n)));
        }
        None => pairs.extend(node_stages.iter().map(|&n| (1, n))),
    }
    let mut drift = Vec::new();
    for (from, to) in pairs {
        let (a, b) = (&stages[from], &stages[to]);
        let (Some(fa), Some(fb)) = (&a.files, &b.files) else {
            continue;
        };
        if from == 1 {
            drift.extend(generated_drift(cx, stages, to, fa, fb)?);
            continue;
        }
        // What the CRs render is what the MCO writes into the generated
        // MachineConfig: another writer of its config is a hand edit.
        let edits = if from == 0 && !proposed {
            hand_edits(cx.inputs, b)
        } else {
            Vec::new()
        };
        for file in changed_files(fa, fb, &cx.selection.files) {
            let cause = if from == 0 && proposed {
                "the proposed objects are not applied yet: this is what applying them changes"
                    .to_string()
            } else if !edits.is_empty() {
                hand_edit_cause(cx.inputs, b, &edits, &file)
            } else {
                cause(cx.inputs, cx.pool, stages, to, &cx.state)
            };
            let mut entry = drift_entry(&file, &a.name, &b.name, fa, fb, cause);
            entry.hand_edits = edits.clone();
            drift.push(entry);
        }
    }
    Ok(drift)
}

/// The generated MachineConfig against a rendered config (`to`). A
/// rendered config holds every file of the pool: a file the generated
/// MachineConfig does not carry is compared with what the node gets
/// without it, and one no MachineConfig writes is not the mirror CRs'
/// doing.
fn generated_drift(
    cx: &PoolContext,
    stages: &[Stage],
    to: usize,
    fa: &Files,
    fb: &Files,
) -> Result<Vec<Drift>, String> {
    let (a, b) = (&stages[1], &stages[to]);
    let role = generating_pool(cx.inputs, cx.pool)?;
    let base = layers::layered(&cx.configs, role, &cx.generated, fa, false)?;
    let mut drift = Vec::new();
    for file in changed_files(&base.files, fb, &cx.selection.files) {
        if !base.manages(&file) {
            continue;
        }
        let source = &base.sources[&file];
        let from_name = match source {
            layers::Source::Config(n) => format!("MachineConfig/{n}"),
            _ => a.name.clone(),
        };
        let cause = match (b.kind, source) {
            ("target", _) => target_cause(
                &cx.configs,
                cx.pool,
                role,
                &cx.generated,
                &file,
                source,
                &cx.state,
            ),
            _ => cause(cx.inputs, cx.pool, stages, to, &cx.state),
        };
        drift.push(drift_entry(
            &file,
            &from_name,
            &b.name,
            &base.files,
            fb,
            cause,
        ));
    }
    Ok(drift)
}

/// What each node group will go through to reach the CRs' files: the
/// pool's MachineConfigs merged with what the CRs render in the generated
/// MachineConfig's place, as the next rendered config will be.
fn impact(cx: &PoolContext, stages: &[Stage]) -> Result<Vec<Impact>, String> {
    let mut impact = Vec::new();
    let Some(crs) = &stages[0].files else {
        return Ok(impact);
    };
    let role = generating_pool(cx.inputs, cx.pool)?;
    let next = layers::layered(&cx.configs, role, &cx.generated, crs, true)?;
    for n in node_indexes(stages) {
        let stage = &stages[n];
        let Some(files) = &stage.files else { continue };
        let changed: Vec<String> = changed_files(files, &next.files, &cx.selection.files)
            .into_iter()
            .filter(|f| next.manages(f))
            .collect();
        if changed.is_empty() {
            continue;
        }
        let registries = changed.iter().any(|f| f == REGISTRIES_CONF).then(|| {
            (
                files
                    .get(REGISTRIES_CONF)
                    .map_or(REGISTRIES_TEMPLATE, String::as_str),
                next.files
                    .get(REGISTRIES_CONF)
                    .map_or(REGISTRIES_TEMPLATE, String::as_str),
            )
        });
        let (action, reasons) = impact::action_for(&changed, registries);
        impact.push(Impact {
            nodes: stage.nodes.clone(),
            config: stage.machine_config.clone().unwrap_or_default(),
            files: changed,
            action,
            reasons,
        });
    }
    Ok(impact)
}

/// The MCO refusing the CRs is drift: nodes keep the old files. A
/// MachineConfig missing from the input only limits the comparison: the
/// notes returned.
fn refusals_and_notes(stages: &[Stage], generated: &str, drift: &mut Vec<Drift>) -> Vec<String> {
    let mut notes = Vec::new();
    for s in stages {
        if let (None, Some(why)) = (&s.files, &s.missing) {
            if s.kind == "crs" {
                drift.push(Drift {
                    nodes: Vec::new(),
                    file: String::new(),
                    from: s.name.clone(),
                    to: format!("MachineConfig/{generated}"),
                    summary: vec![format!("{} are not rendered: {why}", s.name)],
                    cause: format!("the machine-config-controller logs it (`Error syncing image config openshift-config: ...`) and keeps the previous generated MachineConfig, so the CRs never reach the nodes; fix: {LINT_FIX}"),
                    hand_edits: Vec::new(),
                    diff: String::new(),
                });
            } else {
                let note = format!("not compared: {why}");
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
        }
    }
    notes
}

fn mc_stage(
    inputs: &Inputs,
    kind: &'static str,
    mc_name: &str,
    name: String,
    nodes: Vec<String>,
) -> Result<Stage, String> {
    let (files, missing) = match mc(inputs, mc_name) {
        Some(m) => (Some(machine_config_files(m)?), None),
        None => (
            None,
            Some(format!(
                "MachineConfig/{mc_name} is not in the input (a must-gather may lack rendered MachineConfigs)"
            )),
        ),
    };
    Ok(Stage {
        kind,
        name,
        machine_config: Some(mc_name.to_string()),
        nodes,
        missing,
        files,
    })
}

/// Managed paths whose normalized contents differ (absent counts as empty;
/// registries.conf and policy.json absent are the MCO's templates).
fn changed_files(a: &Files, b: &Files, only: &[String]) -> Vec<String> {
    let paths: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    paths
        .into_iter()
        .filter(|p| only.is_empty() || only.contains(p))
        .filter(|p| content(a, p) != content(b, p))
        .cloned()
        .collect()
}

fn content(files: &Files, path: &str) -> String {
    match files.get(path) {
        Some(text) => normalize(path, text),
        None => layers::default_file(path)
            .map(|text| normalize(path, text))
            .unwrap_or_default(),
    }
}

/// One drifted file between stage `a` (nearer the CRs) and `b` (nearer the
/// node). As in `kubectl diff`, `-` lines are what is there now (`b`) and
/// `+` lines what it becomes once the MCO catches up (`a`).
fn drift_entry(file: &str, a: &str, b: &str, fa: &Files, fb: &Files, cause: String) -> Drift {
    let (now, next) = (content(fb, file), content(fa, file));
    let diff = similar::TextDiff::from_lines(&now, &next)
        .unified_diff()
        .context_radius(2)
        .header(b, a)
        .to_string();
    Drift {
        nodes: Vec::new(),
        file: file.to_string(),
        from: a.to_string(),
        to: b.to_string(),
        summary: summarize(file, fa.get(file), fb.get(file), a, b),
        cause,
        hand_edits: Vec::new(),
        diff,
    }
}

/// Plain-language differences of one file between two stages.
pub fn summarize(
    path: &str,
    a: Option<&String>,
    b: Option<&String>,
    a_name: &str,
    b_name: &str,
) -> Vec<String> {
    // registries.conf and policy.json absent are the MCO's templates.
    let default = layers::default_file(path);
    match (a, b) {
        (Some(_), None) if default.is_none() => {
            return vec![format!("{path} is written by {a_name} but not by {b_name}")]
        }
        (None, Some(_)) if default.is_none() => {
            return vec![format!("{path} is written by {b_name} but not by {a_name}")]
        }
        _ => {}
    }
    let template = default.unwrap_or_default().to_string();
    let a = a.unwrap_or(&template);
    let b = b.unwrap_or(&template);
    if path.ends_with("registries.conf") || path.starts_with("/etc/containers/registries.conf.d/") {
        return match (RegistriesFile::read(path, a), RegistriesFile::read(path, b)) {
            (Ok(x), Ok(y)) => registries_summary(&x, &y, a_name, b_name),
            (x, y) => [(x.err(), a_name), (y.err(), b_name)]
                .into_iter()
                .filter_map(|(e, name)| Some(unreadable(path, &e?, name)))
                .collect(),
        };
    }
    let parse = |t: &str| -> Option<Value> {
        if path.ends_with(".json") {
            serde_json::from_str(t).ok()
        } else {
            serde_saphyr::from_str(t).ok()
        }
    };
    if let (Some(x), Some(y)) = (parse(a), parse(b)) {
        let mut out = Vec::new();
        json_paths(&x, &y, "", 0, &mut out);
        return out
            .into_iter()
            .map(|(p, kind)| match kind {
                'a' => format!("{path}: {p} is in {a_name} but not in {b_name}"),
                'b' => format!("{path}: {p} is in {b_name} but not in {a_name}"),
                _ => format!("{path}: {p} differs between {a_name} and {b_name}"),
            })
            .collect();
    }
    vec![format!("{path} differs between {a_name} and {b_name}")]
}

fn json_paths(a: &Value, b: &Value, at: &str, depth: usize, out: &mut Vec<(String, char)>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) if depth < 4 => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.\"{k}\"")
                };
                match (x.get(k), y.get(k)) {
                    (Some(_), None) => out.push((p, 'a')),
                    (None, Some(_)) => out.push((p, 'b')),
                    (Some(v), Some(w)) if v != w => json_paths(v, w, &p, depth + 1, out),
                    _ => {}
                }
            }
        }
        _ if a != b => out.push((
            if at.is_empty() {
                "the document".into()
            } else {
                at.to_string()
            },
            'd',
        )),
        _ => {}
    }
}

/// A registries.conf text the node's reader refuses, or reads
/// undeterminably, in the diff's words.
fn unreadable(path: &str, e: &RegistriesError, name: &str) -> String {
    let at = match e.context.as_str() {
        "" => e.message.clone(),
        context => format!("{context}: {}", e.message),
    };
    match e.undetermined {
        Some(_) => format!("{path} in {name}: what the node reads from it is undetermined ({at})"),
        None => format!("{path} in {name}: the node's containers/image refuses it ({at})"),
    }
}

fn registries_summary(
    a: &RegistriesFile,
    b: &RegistriesFile,
    a_name: &str,
    b_name: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let (sa, sb) = (
        a.unqualified_search_registries(),
        b.unqualified_search_registries(),
    );
    if sa != sb {
        out.push(format!(
            "search registries are [{}] in {a_name} and [{}] in {b_name}",
            sa.join(", "),
            sb.join(", ")
        ));
    }
    let (ea, eb) = (registry_entries(a), registry_entries(b));
    let scopes: BTreeSet<&str> = ea.keys().chain(eb.keys()).copied().collect();
    for scope in scopes {
        match (ea.get(scope), eb.get(scope)) {
            (Some(_), None) => out.push(format!(
                "registry `{scope}` is in {a_name} but not in {b_name}"
            )),
            (None, Some(_)) => out.push(format!(
                "registry `{scope}` is in {b_name} but not in {a_name}"
            )),
            (Some(x), Some(y)) if x != y => {
                out.extend(registry_entry_summary(scope, x, y, a_name, b_name));
            }
            _ => {}
        }
    }
    if out.is_empty() {
        out.push(format!(
            "registries.conf differs between {a_name} and {b_name}"
        ));
    }
    out
}

/// The `[[registry]]` tables of a registries.conf, by scope (`prefix`, or
/// `location` when it has none).
fn registry_entries(f: &RegistriesFile) -> BTreeMap<&str, RegistryTable<'_>> {
    f.registries().map(|r| (r.scope(), r)).collect()
}

/// The mirrors of a `[[registry]]` table: `(location, pull-from-mirror)`.
fn mirror_entries<'a>(r: &RegistryTable<'a>) -> Vec<(&'a str, &'a str)> {
    r.mirrors()
        .map(|m| (m.location(), m.pull_from_mirror()))
        .collect()
}

/// How the `[[registry]]` table of `scope` differs: its flags, the mirrors
/// only one side has, and the order of the mirrors both have.
fn registry_entry_summary(
    scope: &str,
    x: &RegistryTable<'_>,
    y: &RegistryTable<'_>,
    a_name: &str,
    b_name: &str,
) -> Vec<String> {
    let mut out = Vec::new();
    let flags = [
        ("blocked", x.blocked(), y.blocked()),
        ("insecure", x.insecure(), y.insecure()),
        (
            "mirror-by-digest-only",
            x.mirror_by_digest_only(),
            y.mirror_by_digest_only(),
        ),
    ];
    for (flag, fx, fy) in flags {
        if fx != fy {
            out.push(format!(
                "`{scope}` is {}{flag} in {a_name} and {}{flag} in {b_name}",
                if fx { "" } else { "not " },
                if fy { "" } else { "not " }
            ));
        }
    }
    let (mx, my) = (mirror_entries(x), mirror_entries(y));
    let label = |(loc, pull): &(&str, &str)| {
        if pull.is_empty() {
            format!("`{loc}`")
        } else {
            format!("`{loc}` ({pull})")
        }
    };
    for m in &mx {
        if !my.contains(m) {
            out.push(format!(
                "mirror {} for `{scope}` is in {a_name} but not in {b_name}",
                label(m)
            ));
        }
    }
    for m in &my {
        if !mx.contains(m) {
            out.push(format!(
                "mirror {} for `{scope}` is in {b_name} but not in {a_name}",
                label(m)
            ));
        }
    }
    let common = |m: &[(&str, &str)], other: &[(&str, &str)]| -> Vec<(String, String)> {
        m.iter()
            .filter(|e| other.contains(e))
            .map(|(l, p)| (l.to_string(), p.to_string()))
            .collect()
    };
    if common(&mx, &my) != common(&my, &mx) {
        out.push(format!(
            "the mirrors of `{scope}` are in another order in {b_name} than in {a_name}"
        ));
    }
    out
}

/// The hand edits of the MachineConfig of `stage` the MCO has not reverted
/// yet ([`MachineConfig::foreign_config_writers`]).
fn hand_edits(inputs: &Inputs, stage: &Stage) -> Vec<HandEdit> {
    let Some(m) = stage.machine_config.as_deref().and_then(|n| mc(inputs, n)) else {
        return Vec::new();
    };
    m.foreign_config_writers()
        .into_iter()
        .map(|e| HandEdit {
            manager: e.manager.clone(),
            operation: e.operation.clone(),
            time: e.time.clone(),
        })
        .collect()
}

/// What to do when the MCO does not render the CRs: find what it refuses.
const LINT_FIX: &str =
    "run `kubectl mirrorpolicy lint` on the CRs (it lists what the MCO refuses), \
     and read `oc logs -n openshift-machine-config-operator deployment/machine-config-controller`";

/// The objects the MCO renders `file` of the generated MachineConfig from:
/// where a change to it has to be made to stay.
fn rendered_from(file: &str) -> &'static str {
    use crate::node_paths::{CRIO_POLICIES, POLICY_JSON, REGISTRIES_D, SEARCH_REGISTRIES_CONF};
    let under = |dir: &str| file.strip_prefix(dir).is_some_and(|r| r.starts_with('/'));
    if file == REGISTRIES_CONF {
        "the ImageDigestMirrorSets, ImageTagMirrorSets, ImageContentSourcePolicies or the Image config (spec.registrySources)"
    } else if file == SEARCH_REGISTRIES_CONF {
        "the Image config (spec.registrySources.containerRuntimeSearchRegistries)"
    } else if file == POLICY_JSON {
        "the Image config (spec.registrySources) or the ClusterImagePolicies"
    } else if under(REGISTRIES_D) {
        "the ClusterImagePolicies or ImagePolicies"
    } else if under(CRIO_POLICIES) {
        "the ImagePolicies or ClusterImagePolicies"
    } else {
        "the mirror CRs"
    }
}

/// The cause of a difference between the CRs and a generated MachineConfig
/// edited by hand: who wrote it and when, that the MCO reverts it, and
/// where to make the change instead. The MCO rewrites the MachineConfig at
/// each sync whose render differs from it: at once on a change to the CRs,
/// and at its informers' resync, every 20 to 40 minutes
/// (`syncImageConfig`, `syncIgnitionConfig`).
fn hand_edit_cause(inputs: &Inputs, stage: &Stage, edits: &[HandEdit], file: &str) -> String {
    let writers: Vec<String> = edits
        .iter()
        .map(|e| {
            let how = if e.operation == "Apply" {
                " (server-side apply)"
            } else {
                ""
            };
            match &e.time {
                Some(t) => format!("{}{how} at {t}", e.manager),
                None => format!("{}{how}", e.manager),
            }
        })
        .collect();
    let mut cause = format!(
        "{} was edited by hand: its spec.config was last written by {}, not by the MCO ({MCO_FIELD_MANAGER}); the MCO rewrites it from the CRs at its next sync (on any change to them, and every 20 to 40 minutes) and reverts the edit; fix: to change {file}, change {} instead",
        stage.name,
        writers.join(" and "),
        rendered_from(file)
    );
    // A change to the CRs makes the MCO rewrite the MachineConfig at once:
    // one after the edit that has not reverted it says the MCO is stuck.
    let edited = edits.iter().filter_map(|e| e.time.clone()).max();
    if let (Some(edited), Some((t, object))) = (edited, newest_cr(inputs)) {
        if t > edited {
            cause.push_str(&format!(
                "; {object} changed at {t}, after the edit, yet the MCO has not rewritten it: it may refuse the CRs (see the machine-config-controller log)"
            ));
        }
    }
    cause
}

/// The likely cause of a difference with stage `to` (the generated
/// MachineConfig or a node group; the target has [`target_cause`]).
fn cause(
    inputs: &Inputs,
    pool: &MachineConfigPool,
    stages: &[Stage],
    to: usize,
    state: &str,
) -> String {
    let name = &pool.metadata.name;
    match stages[to].kind {
        "generated" => {
            let generated = stages[to]
                .machine_config
                .as_deref()
                .and_then(|n| mc(inputs, n))
                .and_then(|m| m.metadata.creation_timestamp.clone());
            let newest = newest_cr(inputs);
            match (generated, newest) {
                (Some(g), Some((t, object))) if t > g => format!(
                    "{object} changed at {t}, after the generated MachineConfig was written at {g}: the MCO has not caught up yet, or it refuses the CRs; fix: if it stays so, {LINT_FIX}"
                ),
                _ => format!("the generated MachineConfig does not carry what the CRs render: the MCO has not synced them, or it runs another version; fix: if it stays so, {LINT_FIX}"),
            }
        }
        _ => {
            let nodes = &stages[to].nodes;
            let degraded: Vec<&str> = inputs
                .nodes
                .iter()
                .filter(|n| nodes.contains(&n.metadata.name))
                .filter(|n| n.metadata.annotation(STATE_ANNOTATION) == Some("Degraded"))
                .map(|n| n.metadata.name.as_str())
                .collect();
            if pool.spec.paused {
                format!(
                    "pool {name} is paused (spec.paused): its nodes stay on their config until it is unpaused; fix: `oc patch mcp {name} --type merge -p '{{\"spec\":{{\"paused\":false}}}}'` when the nodes may update"
                )
            } else if !degraded.is_empty() {
                let reasons = on_disk::daemon_reasons(inputs, &degraded);
                format!("node(s) {} are degraded: the daemon failed to apply the config (the pool's NodeDegraded condition says `Node NAME is reporting: ...`){reasons}; fix: resolve what the node reports (`oc describe mcp {name}`, and the machine-config-daemon log on the node), then the daemon retries", degraded.join(", "))
            } else {
                format!("pool {name} is {state}: these nodes are not on the target config yet; fix: none while the pool updates (`oc wait mcp/{name} --for=condition=Updated`); if it stays so, `oc describe mcp {name}` names what holds it")
            }
        }
    }
}

/// The likely cause of a difference between the generated MachineConfig
/// (with what the pool's other MachineConfigs write for the files it does
/// not carry) and the pool's target, for one file coming from `source`.
fn target_cause(
    configs: &[&MachineConfig],
    pool: &MachineConfigPool,
    role: &str,
    generated: &str,
    file: &str,
    source: &layers::Source,
    state: &str,
) -> String {
    let name = &pool.metadata.name;
    let stale = format!(
        "pool {name} has not been rendered with the current MachineConfigs yet (pool {state}); fix: none while the MCO renders it; if it stays so, the pool's RenderDegraded condition names why (`oc describe mcp {name}`)"
    );
    match source {
        layers::Source::Generated => {
            let overriding: Vec<String> = layers::overriding(configs, role, generated, file)
                .iter()
                .map(|m| format!("MachineConfig/{}", m.metadata.name))
                .collect();
            if overriding.is_empty() {
                format!("pool {name} has not been rendered with the current generated MachineConfig yet (pool {state}); fix: none while the MCO renders it; if it stays so, the pool's RenderDegraded condition names why (`oc describe mcp {name}`)")
            } else {
                format!(
                    "{} also writes {file} and sorts after {generated}: it overrides the generated file; fix: remove {file} from {}, so the file the MCO renders from the CRs applies",
                    overriding.join(", "),
                    overriding.join(" and ")
                )
            }
        }
        layers::Source::Config(other) => format!(
            "MachineConfig/{generated} does not write {file}, so the node gets MachineConfig/{other}'s: {stale}"
        ),
        layers::Source::Default => format!(
            "MachineConfig/{generated} does not write {file} and no other MachineConfig of the input does, so the node gets the MCO's template (01-{name}-container-runtime): {stale}"
        ),
    }
}

/// The most recent creationTimestamp among the mirror CRs, and the object.
fn newest_cr(inputs: &Inputs) -> Option<(String, String)> {
    let mut all: Vec<(String, String)> = Vec::new();
    let mut add = |t: &Option<String>, o: String| {
        if let Some(t) = t {
            all.push((t.clone(), o));
        }
    };
    for o in &inputs.icsps {
        add(&o.metadata.creation_timestamp, o.origin().to_string());
    }
    for o in &inputs.idmss {
        add(&o.metadata.creation_timestamp, o.origin().to_string());
    }
    for o in &inputs.itmss {
        add(&o.metadata.creation_timestamp, o.origin().to_string());
    }
    for o in &inputs.cluster_image_policies {
        add(&o.metadata.creation_timestamp, o.origin().to_string());
    }
    all.into_iter().max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_ignores_order_and_format() {
        let a = "[[registry]]\nlocation = \"a\"\nblocked = true\n";
        let b = "[[registry]]\n  blocked=true\n  location='a'\n";
        assert_eq!(
            normalize("/etc/containers/registries.conf", a),
            normalize("/etc/containers/registries.conf", b)
        );
        assert_eq!(
            normalize("/etc/containers/policy.json", "{\"b\":1,\"a\":[2]}"),
            normalize("/etc/containers/policy.json", "{ \"a\": [2],\n \"b\": 1 }")
        );
        assert_ne!(
            normalize("/etc/containers/policy.json", "{\"a\":[1,2]}"),
            normalize("/etc/containers/policy.json", "{\"a\":[2,1]}")
        );
    }

    #[test]
    fn registries_summary_names_mirrors_and_flags() {
        let a = "[[registry]]\nlocation = \"quay.io/x\"\nblocked = true\n[[registry.mirror]]\nlocation = \"m1/x\"\n[[registry.mirror]]\nlocation = \"m2/x\"\n";
        let b =
            "[[registry]]\nlocation = \"quay.io/x\"\n[[registry.mirror]]\nlocation = \"m1/x\"\n";
        let lines = summarize(
            "/etc/containers/registries.conf",
            Some(&a.to_string()),
            Some(&b.to_string()),
            "the CRs",
            "nodes w1 (running rendered-worker-1)",
        );
        assert_eq!(
            lines,
            [
                "`quay.io/x` is blocked in the CRs and not blocked in nodes w1 (running rendered-worker-1)",
                "mirror `m2/x` for `quay.io/x` is in the CRs but not in nodes w1 (running rendered-worker-1)",
            ]
        );
    }

    /// Issue 35: registries.conf is normalized as the node reads it, not
    /// as a TOML 1.1 parser does.
    #[test]
    fn issue_35_registries_conf_is_normalized_as_the_node_reads_it() {
        let conf = "/etc/containers/registries.conf";
        let base = "[[registry]]\nprefix = \"\"\nlocation = \"quay.io/x\"\n[[registry.mirror]]\nlocation = \"m1/x\"\n";
        for (text, same) in [
            (base.replace("location", "Location"), true),
            (base.replace("registry", "REGISTRY"), true),
            (format!("{base}mirror_by_digest_only = true\n"), true),
            (base.replace("m1/x", "m2/x"), false),
            // TOML 1.1 (`\x78` is `x`): the node may refuse it.
            (base.replace("quay.io/x", "quay.io/\\x78"), false),
        ] {
            assert_eq!(
                normalize(conf, base) == normalize(conf, &text),
                same,
                "{text}"
            );
        }
        // What the node cannot read is compared as is.
        let bad = "[[registry]]\nlocation = 1\n";
        assert_eq!(normalize(conf, bad), bad);
        let drop_in = "/etc/containers/registries.conf.d/99-x.conf";
        assert_eq!(
            normalize(drop_in, "Unqualified-Search-Registries = [\"a.io\"]\n"),
            "unqualified-search-registries = [\"a.io\"]\n"
        );
    }

    #[test]
    fn issue_35_registries_summary_reads_as_the_node() {
        let conf = "/etc/containers/registries.conf";
        let base =
            "[[registry]]\nlocation = \"quay.io/x\"\n[[registry.mirror]]\nlocation = \"m1/x\"\n";
        let summary = |a: &str, b: &str| {
            summarize(conf, Some(&a.to_string()), Some(&b.to_string()), "A", "B")
        };
        for (b, want) in [
            (
                base.replace("[[registry.mirror]]", "Blocked = true\n[[registry.mirror]]").replace("location", "Location"),
                "`quay.io/x` is not blocked in A and blocked in B",
            ),
            (
                "[[registry]]\nlocation = \"quay.io/x\"\nblocked = \"yes\"\n".to_string(),
                "/etc/containers/registries.conf in B: the node's containers/image refuses it (",
            ),
            (
                base.replace("quay.io/x", "quay.io/\\x78"),
                "/etc/containers/registries.conf in B: what the node reads from it is undetermined (",
            ),
            (
                base.replace("\"quay.io/x\"\n", "\"quay.io/x\"\nLocation = \"quay.io/y\"\n"),
                "/etc/containers/registries.conf in B: what the node reads from it is undetermined (line 1: keys ",
            ),
        ] {
            let got = summary(base, &b);
            assert_eq!(got.len(), 1, "{b}: {got:?}");
            assert!(got[0].starts_with(want), "{b}: {got:?}");
        }
    }

    #[test]
    fn gzip_and_base64_files_decode() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"{\"default\":[]}").unwrap();
        let data = crate::render::machineconfig::data_url_base64(&gz.finish().unwrap());
        let mut m = MachineConfig::new("x");
        m.spec
            .config
            .storage
            .files
            .push(crate::objects::IgnitionFile {
                path: "/etc/containers/policy.json".into(),
                contents: crate::objects::IgnitionFileContents {
                    source: Some(data),
                    compression: Some("gzip".into()),
                    ..Default::default()
                },
                ..Default::default()
            });
        m.spec
            .config
            .storage
            .files
            .push(crate::objects::IgnitionFile {
                path: "/etc/kubernetes/kubelet.conf".into(),
                ..Default::default()
            });
        let files = machine_config_files(&m).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files["/etc/containers/policy.json"], "{\"default\":[]}");
    }

    /// Issue 36: a hand edit's cause names the objects the MCO renders the
    /// file from.
    #[test]
    fn issue_36_each_file_names_the_objects_it_is_rendered_from() {
        for (file, want) in [
            ("/etc/containers/registries.conf", "the ImageDigestMirrorSets, ImageTagMirrorSets, ImageContentSourcePolicies or the Image config (spec.registrySources)"),
            ("/etc/containers/registries.conf.d/01-image-searchRegistries.conf", "the Image config (spec.registrySources.containerRuntimeSearchRegistries)"),
            ("/etc/containers/policy.json", "the Image config (spec.registrySources) or the ClusterImagePolicies"),
            ("/etc/containers/registries.d/sigstore-registries.yaml", "the ClusterImagePolicies or ImagePolicies"),
            ("/etc/crio/policies/team-a.json", "the ImagePolicies or ClusterImagePolicies"),
            ("/etc/containers/registries.conf.d/99-other.conf", "the mirror CRs"),
            ("/etc/crio/policiesx/a.json", "the mirror CRs"),
        ] {
            assert_eq!(rendered_from(file), want, "{file}");
        }
    }

    fn pool(name: &str, drift: usize) -> PoolDiff {
        let one = Drift {
            nodes: Vec::new(),
            file: "/etc/containers/registries.conf".to_string(),
            from: "the CRs".to_string(),
            to: "nodes w1".to_string(),
            summary: Vec::new(),
            cause: String::new(),
            hand_edits: Vec::new(),
            diff: String::new(),
        };
        PoolDiff {
            pool: name.to_string(),
            state: "updated".to_string(),
            stages: Vec::new(),
            drift: vec![one; drift],
            impact: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Issue 26: `-o summary` counts the typed report: a pool with two
    /// drifts is one drifting pool.
    #[test]
    fn issue_26_summary_counts_pools_drifting_and_not_read() {
        let not_read = |node: &str| NotRead {
            node: node.to_string(),
            reason: "forbidden".to_string(),
        };
        for (pools, not_read, want) in [
            (vec![], vec![], [0, 0, 0]),
            (
                vec![pool("master", 0), pool("worker", 0)],
                vec![],
                [2, 0, 0],
            ),
            (
                vec![pool("master", 2), pool("worker", 0), pool("infra", 1)],
                vec![not_read("w1")],
                [3, 2, 1],
            ),
            (
                vec![pool("worker", 0)],
                vec![not_read("w1"), not_read("w2")],
                [1, 0, 2],
            ),
        ] {
            let report = Report {
                drift: None,
                pools,
                not_read,
            };
            let want: Vec<(&str, usize)> = ["pools", "drifting", "notRead"]
                .into_iter()
                .zip(want)
                .collect();
            assert_eq!(report.summary_counts(), want, "{report:?}");
        }
    }
}
