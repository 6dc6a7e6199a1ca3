//! What a node gets for each managed file: the pool's MachineConfigs merged
//! as the MCO merges them into the rendered config.
//!
//! The MCO's render controller merges every MachineConfig the pool's
//! `machineConfigSelector` selects (`MergeMachineConfigs`,
//! openshift/machine-config-operator `pkg/controller/common/helpers.go`):
//! the configs with role `worker` first, then the others, each group sorted
//! by name; each config's Ignition is merged over the ones before it, and
//! Ignition's merge (coreos/ignition `config/merge`) replaces a file already
//! written at the same path. So for each path the node gets the file of the
//! last config in that order that writes it.
//!
//! The generated MachineConfig `99-<pool>-generated-registries` carries only
//! what the mirror CRs change (registries.conf when there are mirror sets,
//! policy.json when there are policy fields or ClusterImagePolicies, ...):
//! a file it does not carry comes from another config, normally the
//! `01-<pool>-container-runtime` template.

use std::collections::BTreeMap;

use crate::objects::{MachineConfig, MachineConfigPool};
use crate::render::policy::{POLICY_JSON, POLICY_JSON_TEMPLATE};
use crate::render::pool::{REGISTRIES_CONF, REGISTRIES_TEMPLATE};

use super::{machine_config_files, Files};

/// The role whose configs the MCO merges first (custom pools select the
/// worker configs and their own, and their own override).
const WORKER: &str = "worker";

/// What a node has at `path` when no MachineConfig of the input writes it:
/// the MCO's `01-<pool>-container-runtime` template always writes
/// registries.conf and policy.json.
pub fn default_file(path: &str) -> Option<&'static str> {
    match path {
        REGISTRIES_CONF => Some(REGISTRIES_TEMPLATE),
        POLICY_JSON => Some(POLICY_JSON_TEMPLATE),
        _ => None,
    }
}

/// The position of a config in the MCO's merge order.
fn rank<'a>(role: Option<&str>, name: &'a str) -> (bool, &'a str) {
    (role != Some(WORKER), name)
}

/// The MachineConfigs `pool` merges, other than rendered ones, in the MCO's
/// merge order. A pool without a `machineConfigSelector` (an object written
/// by hand, or a pool implied by a generated MachineConfig) is taken to
/// select the configs with its name as role.
pub fn pool_configs<'a>(
    configs: &'a [MachineConfig],
    pool: &MachineConfigPool,
) -> Vec<&'a MachineConfig> {
    let mut out: Vec<&MachineConfig> = configs
        .iter()
        .filter(|m| !m.metadata.name.starts_with("rendered-"))
        .filter(|m| match &pool.spec.machine_config_selector {
            Some(_) => pool.selects_config(m),
            None => m.role() == Some(pool.metadata.name.as_str()),
        })
        .collect();
    out.sort_by(|a, b| rank(a.role(), &a.metadata.name).cmp(&rank(b.role(), &b.metadata.name)));
    out
}

/// One file of a merged view and the config it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The generated MachineConfig's slot (its files, or what the CRs render).
    Generated,
    /// Another MachineConfig of the pool, by name.
    Config(String),
    /// No config of the input writes it: the MCO's template ([`default_file`]).
    Default,
}

/// Managed files by path, each with where it comes from.
#[derive(Debug, Clone, Default)]
pub struct Layered {
    pub files: Files,
    pub sources: BTreeMap<String, Source>,
}

impl Layered {
    /// Whether some config (or the MCO's template) writes `path`.
    pub fn manages(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }
}

/// The pool's configs merged with `generated` in the generated
/// MachineConfig's place (`generated_name`, role `pool`).
///
/// With `overrides`, configs sorting after the generated one replace its
/// files, as on the node; without, the generated files are kept and only the
/// files it does not carry come from the other configs (the view the
/// generated MachineConfig is compared with the rendered config in, so that
/// an override shows as a difference with its cause). Paths no config
/// writes get the MCO's template where it has one.
pub fn layered(
    configs: &[&MachineConfig],
    pool: &str,
    generated_name: &str,
    generated: &Files,
    overrides: bool,
) -> Result<Layered, String> {
    let mut slots: Vec<((bool, &str), Option<&MachineConfig>)> = configs
        .iter()
        .filter(|m| m.metadata.name != generated_name)
        .map(|m| (rank(m.role(), &m.metadata.name), Some(*m)))
        .collect();
    let role = configs
        .iter()
        .find(|m| m.metadata.name == generated_name)
        .map_or(Some(pool), |m| m.role());
    slots.push((rank(role, generated_name), None));
    slots.sort_by(|a, b| a.0.cmp(&b.0));

    let mut out = Layered::default();
    for (_, config) in slots {
        match config {
            Some(m) => {
                for (path, text) in machine_config_files(m)? {
                    let keep = !overrides && generated.contains_key(&path);
                    if !keep {
                        out.sources
                            .insert(path.clone(), Source::Config(m.metadata.name.clone()));
                        out.files.insert(path, text);
                    }
                }
            }
            None => {
                for (path, text) in generated {
                    out.sources.insert(path.clone(), Source::Generated);
                    out.files.insert(path.clone(), text.clone());
                }
            }
        }
    }
    for path in [REGISTRIES_CONF, POLICY_JSON] {
        if !out.files.contains_key(path) {
            if let Some(text) = default_file(path) {
                out.sources.insert(path.to_string(), Source::Default);
                out.files.insert(path.to_string(), text.to_string());
            }
        }
    }
    Ok(out)
}

/// The configs after the generated MachineConfig in the merge order that
/// write `path`: they override the generated file on the node.
pub fn overriding<'a>(
    configs: &[&'a MachineConfig],
    pool: &str,
    generated_name: &str,
    path: &str,
) -> Vec<&'a MachineConfig> {
    let role = configs
        .iter()
        .find(|m| m.metadata.name == generated_name)
        .map_or(Some(pool), |m| m.role());
    let at = rank(role, generated_name);
    configs
        .iter()
        .filter(|m| rank(m.role(), &m.metadata.name) > at)
        .filter(|m| m.file(path).is_some())
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::machine_config::ROLE_LABEL;
    use crate::objects::{IgnitionFile, IgnitionFileContents, LabelSelector};

    fn config(name: &str, role: &str, files: &[(&str, &str)]) -> MachineConfig {
        let mut m = MachineConfig::new(name);
        m.metadata.labels.insert(ROLE_LABEL.into(), role.into());
        for (path, text) in files {
            m.spec.config.storage.files.push(IgnitionFile {
                path: path.to_string(),
                contents: IgnitionFileContents {
                    source: Some(crate::render::machineconfig::data_url_base64(
                        text.as_bytes(),
                    )),
                    ..Default::default()
                },
                ..Default::default()
            });
        }
        m
    }

    fn pool(name: &str, roles: &[&str]) -> MachineConfigPool {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "spec": {"machineConfigSelector": {"matchExpressions": [
                {"key": ROLE_LABEL, "operator": "In", "values": roles}]}}
        }))
        .unwrap()
    }

    /// Ported from openshift/machine-config-operator
    /// `pkg/controller/common/helpers_test.go` `TestMergeMachineConfigs`,
    /// "custom pool configuration can overwrite base pool configuration":
    /// worker configs aaa (file 1 old), bbb (file 1 new), ddd (file 2 old)
    /// and infra config ccc (file 2 new) merge to file 1 new (bbb after aaa
    /// by name) and file 2 new (ccc after ddd: worker configs come first).
    /// The paths are managed ones here, as only those are read.
    #[test]
    fn merge_order_puts_worker_configs_first() {
        let (one, two) = (
            "/etc/containers/registries.d/test1.yaml",
            "/etc/containers/registries.d/test2.yaml",
        );
        let all = vec![
            config("ccc", "infra", &[(two, "new")]),
            config("aaa", "worker", &[(one, "old")]),
            config("bbb", "worker", &[(one, "new")]),
            config("ddd", "worker", &[(two, "old")]),
            config("rendered-infra-1", "infra", &[(two, "rendered")]),
            config("00-master", "master", &[]),
        ];
        let infra = pool("infra", &["worker", "infra"]);
        let configs = pool_configs(&all, &infra);
        let order: Vec<&str> = configs.iter().map(|m| m.metadata.name.as_str()).collect();
        assert_eq!(order, ["aaa", "bbb", "ddd", "ccc"]);
        let view = layered(&configs, "infra", "99-infra-x", &Files::new(), true).unwrap();
        assert_eq!(view.files[one], "new");
        assert_eq!(view.files[two], "new");
        assert_eq!(view.sources[one], Source::Config("bbb".into()));
        assert_eq!(view.sources[two], Source::Config("ccc".into()));
        // No selector: the configs with the pool's name as role.
        let mut bare = infra.clone();
        bare.spec.machine_config_selector = None;
        assert_eq!(pool_configs(&all, &bare).len(), 1);
        // An empty selector selects every config but the rendered ones.
        bare.spec.machine_config_selector = Some(LabelSelector::default());
        assert_eq!(pool_configs(&all, &bare).len(), 5);
    }

    #[test]
    fn the_generated_slot_sits_at_its_name() {
        let reg = "/etc/containers/registries.conf";
        let all = vec![
            config(
                "01-worker-container-runtime",
                "worker",
                &[(reg, "template"), ("/etc/containers/policy.json", "{}")],
            ),
            config("99-worker-generated-registries", "worker", &[(reg, "old")]),
            config("99-worker-zz", "worker", &[(reg, "user")]),
        ];
        let configs = pool_configs(&all, &pool("worker", &["worker"]));
        let generated: Files = [(reg.to_string(), "crs".to_string())].into();
        let node = layered(
            &configs,
            "worker",
            "99-worker-generated-registries",
            &generated,
            true,
        )
        .unwrap();
        assert_eq!(node.files[reg], "user");
        assert_eq!(node.files["/etc/containers/policy.json"], "{}");
        let kept = layered(
            &configs,
            "worker",
            "99-worker-generated-registries",
            &generated,
            false,
        )
        .unwrap();
        assert_eq!(kept.files[reg], "crs");
        assert_eq!(kept.sources[reg], Source::Generated);
        assert_eq!(
            overriding(&configs, "worker", "99-worker-generated-registries", reg)
                .iter()
                .map(|m| m.metadata.name.as_str())
                .collect::<Vec<_>>(),
            ["99-worker-zz"]
        );
        // Nothing in the input writes policy.json: the MCO's template.
        let alone = layered(
            &[],
            "worker",
            "99-worker-generated-registries",
            &Files::new(),
            true,
        )
        .unwrap();
        assert_eq!(
            alone.sources["/etc/containers/policy.json"],
            Source::Default
        );
        assert_eq!(alone.files[reg], REGISTRIES_TEMPLATE);
        assert!(!alone.manages("/etc/containers/registries.d/x.yaml"));
    }
}
