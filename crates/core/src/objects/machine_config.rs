//! MachineConfig and MachineConfigPool (machineconfiguration.openshift.io/v1):
//! what the MCO generated and which rendered config each pool targets.
//!
//! Only the Ignition parts that carry files are typed; everything else in
//! `spec` and `spec.config` is kept as JSON so comparisons can still see it.
//! Decoding file contents (data URLs, gzip) belongs to the diff code.
//!
//! Upstream: openshift/api `machineconfiguration/v1/types.go`; Ignition
//! spec 3.x `storage.files`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    find_condition, null_default, Condition, LabelSelector, ManagedFieldsEntry, ObjectMeta,
    ObjectReference,
};
use crate::origin::Origin;

/// Label that gives a MachineConfig its role (`master`, `worker`, ...).
pub const ROLE_LABEL: &str = "machineconfiguration.openshift.io/role";
/// Label the MCO puts on its built-in pools (`master`, `worker`, `arbiter`).
pub const MCO_BUILT_IN_LABEL: &str = "machineconfiguration.openshift.io/mco-built-in";
/// The pools the MCO creates and generates registries MachineConfigs for.
pub const BUILT_IN_POOLS: [&str; 3] = ["master", "worker", "arbiter"];
/// Annotation with the MCO version that generated a MachineConfig.
pub const GENERATED_BY_CONTROLLER_VERSION_ANNOTATION: &str =
    "machineconfiguration.openshift.io/generated-by-controller-version";
/// The field manager the MCO writes the generated MachineConfigs as. The
/// container-runtime-config controller creates and updates them with no
/// `fieldManager` (`MachineConfigs().Create/Update` in
/// `pkg/controller/container-runtime-config`), so the API server takes its
/// user agent up to the first `/`: the binary's name, as client-go's
/// `rest.AddUserAgent` starts it (`/usr/bin/machine-config-controller`).
pub const MCO_FIELD_MANAGER: &str = "machine-config-controller";
/// Node annotation: the rendered MachineConfig the node runs.
pub const CURRENT_CONFIG_ANNOTATION: &str = "machineconfiguration.openshift.io/currentConfig";
/// Node annotation: the rendered MachineConfig the node is moving to.
pub const DESIRED_CONFIG_ANNOTATION: &str = "machineconfiguration.openshift.io/desiredConfig";
/// Node annotation: `Done`, `Working`, `Degraded`, `Rebooting` or `Unreconcilable`.
pub const STATE_ANNOTATION: &str = "machineconfiguration.openshift.io/state";
/// Node annotation: why the node is degraded.
pub const REASON_ANNOTATION: &str = "machineconfiguration.openshift.io/reason";

/// `MachineConfig`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineConfig {
    /// `apiVersion`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata` (labels carry the role; ownerReferences name the generator).
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec`.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: MachineConfigSpec,
}

/// `MachineConfig.spec`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineConfigSpec {
    /// `config`: the Ignition config.
    #[serde(default, deserialize_with = "null_default")]
    pub config: IgnitionConfig,
    /// Every other spec field (`osImageURL`, `kernelArguments`, ...), as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// An Ignition config (spec 3.x), typed down to `storage.files`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionConfig {
    /// `ignition`.
    #[serde(default, deserialize_with = "null_default")]
    pub ignition: IgnitionHeader,
    /// `storage`.
    #[serde(default, deserialize_with = "null_default")]
    pub storage: IgnitionStorage,
    /// `passwd`, `systemd`, `kernelArguments`, ... as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `ignition` section of an Ignition config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionHeader {
    /// The spec version, e.g. `3.5.0`.
    #[serde(default, deserialize_with = "null_default")]
    pub version: String,
    /// `config`, `proxy`, `security`, `timeouts`, as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `storage` section of an Ignition config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionStorage {
    /// `files`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub files: Vec<IgnitionFile>,
    /// `directories`, `links`, ... as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One `storage.files[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionFile {
    /// Absolute path on the node.
    #[serde(default, deserialize_with = "null_default")]
    pub path: String,
    /// Permission bits as a decimal number (`420` is `0644`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Whether an existing file is replaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite: Option<bool>,
    /// The file's contents.
    #[serde(default, deserialize_with = "null_default")]
    pub contents: IgnitionFileContents,
    /// `user`, `group`, `append`, ... as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// `contents` of an Ignition file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IgnitionFileContents {
    /// A data URL (`data:,…` or `data:…;base64,…`) or a remote URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `gzip`, or empty / absent for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
    /// `verification`, `httpHeaders`, as written.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl MachineConfig {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::MACHINE_CONFIG.kind;

    /// An empty MachineConfig with `apiVersion`, `kind` and name set.
    pub fn new(name: &str) -> Self {
        Self {
            api_version: crate::kinds::MACHINE_CONFIG.api_version(),
            kind: Self::KIND.to_string(),
            metadata: ObjectMeta::named(name),
            spec: MachineConfigSpec::default(),
        }
    }

    /// `MachineConfig/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// The `machineconfiguration.openshift.io/role` label.
    pub fn role(&self) -> Option<&str> {
        self.metadata.label(ROLE_LABEL)
    }

    /// The `metadata.managedFields` entries by which a manager other than
    /// the MCO ([`MCO_FIELD_MANAGER`]) wrote `spec.config` and still owns
    /// some of it, newest first (those without a time last). Each write
    /// takes the fields it changes from their previous owner, so once the
    /// MCO rewrites the config these entries lose it: what is left is an
    /// edit the MCO has not reverted yet. Empty when the input carries no
    /// managedFields (`kubectl get -o yaml` leaves them out).
    pub fn foreign_config_writers(&self) -> Vec<&ManagedFieldsEntry> {
        let mut writers: Vec<&ManagedFieldsEntry> = self
            .metadata
            .managed_fields
            .iter()
            .filter(|e| e.subresource.is_empty() && e.manager != MCO_FIELD_MANAGER)
            .filter(|e| e.owns(&["spec", "config"]))
            .collect();
        // RFC 3339 times in UTC, as the API server writes them, sort as text.
        writers.sort_by(|a, b| b.time.cmp(&a.time));
        writers
    }

    /// The file the config writes at `path`, if any (the last one wins, as
    /// Ignition applies them in order).
    pub fn file(&self, path: &str) -> Option<&IgnitionFile> {
        self.spec
            .config
            .storage
            .files
            .iter()
            .rev()
            .find(|f| f.path == path)
    }
}

/// `MachineConfigPool`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineConfigPool {
    /// `apiVersion`.
    #[serde(default, deserialize_with = "null_default")]
    pub api_version: String,
    /// `kind`.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// `metadata`.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// `spec`.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: MachineConfigPoolSpec,
    /// `status`.
    #[serde(default, deserialize_with = "null_default")]
    pub status: MachineConfigPoolStatus,
}

/// `MachineConfigPool.spec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineConfigPoolSpec {
    /// The rendered config the pool should move to.
    #[serde(default, deserialize_with = "null_default")]
    pub configuration: MachineConfigPoolStatusConfiguration,
    /// Whether updates are paused.
    #[serde(default, deserialize_with = "null_default")]
    pub paused: bool,
    /// Which MachineConfigs the pool merges; `None` selects none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_config_selector: Option<LabelSelector>,
    /// Which nodes belong to the pool; `None` selects none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<LabelSelector>,
}

/// `MachineConfigPool.status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MachineConfigPoolStatus {
    /// The generation the controller last acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// The rendered config the pool targets and the MachineConfigs it merges.
    #[serde(default, deserialize_with = "null_default")]
    pub configuration: MachineConfigPoolStatusConfiguration,
    /// Nodes in the pool.
    #[serde(default, deserialize_with = "null_default")]
    pub machine_count: i64,
    /// Nodes on the pool's current rendered config.
    #[serde(default, deserialize_with = "null_default")]
    pub updated_machine_count: i64,
    /// Updated nodes that are ready.
    #[serde(default, deserialize_with = "null_default")]
    pub ready_machine_count: i64,
    /// Nodes not available (updating or not ready).
    #[serde(default, deserialize_with = "null_default")]
    pub unavailable_machine_count: i64,
    /// Nodes the daemon reports degraded.
    #[serde(default, deserialize_with = "null_default")]
    pub degraded_machine_count: i64,
    /// `Updated`, `Updating`, `Degraded`, `NodeDegraded`, `RenderDegraded`, ...
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<Condition>,
}

/// `configuration` of a pool's spec and status: a rendered MachineConfig
/// name and the MachineConfigs merged into it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineConfigPoolStatusConfiguration {
    /// `rendered-<pool>-<hash>`.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// The MachineConfigs merged into it, in merge order.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub source: Vec<ObjectReference>,
}

impl MachineConfigPool {
    /// The kind's name.
    pub const KIND: &'static str = crate::kinds::MACHINE_CONFIG_POOL.kind;

    /// `MachineConfigPool/<name>`.
    pub fn origin(&self) -> Origin {
        Origin::object(Self::KIND, &self.metadata.name)
    }

    /// Whether the MCO treats the pool as one of its own (it generates a
    /// registries MachineConfig only for those).
    pub fn is_built_in(&self) -> bool {
        self.metadata.labels.contains_key(MCO_BUILT_IN_LABEL)
    }

    /// The pool whose generated registries MachineConfig reaches this
    /// pool's nodes, `None` when none does. The MCO's `syncImageConfig`
    /// lists only the pools with the built-in label (`master`, `worker`,
    /// `arbiter`) and generates one `99-<pool>-generated-registries` each,
    /// labelled with that role; a custom pool (`infra`, `gpu`, ...) gets
    /// none of its own, and its nodes get the generated config of each role
    /// its `machineConfigSelector` selects (usually `worker`). Should it
    /// select several, the one that sorts last in the MCO's merge (worker
    /// configs first, then the others by name) writes the files; `arbiter`
    /// only where `pools` has that pool. A pool object without a selector
    /// (written by hand) gets the worker's.
    pub fn generating_pool(&self, pools: &[MachineConfigPool]) -> Option<&str> {
        let name = self.metadata.name.as_str();
        let built_in = self.is_built_in()
            || BUILT_IN_POOLS.contains(&name)
            // A pool implied by a generated MachineConfig is that config's pool.
            || self.api_version.is_empty();
        if built_in {
            return Some(name);
        }
        // A pool object without a selector (written by hand) is taken as
        // a custom pool is documented: the worker role's configs and its own.
        let Some(selector) = self.spec.machine_config_selector.as_ref() else {
            return Some("worker");
        };
        // In merge order: worker, then the others by name; the last wins.
        let arbiter = pools.iter().any(|p| p.metadata.name == "arbiter");
        ["worker", "arbiter", "master"]
            .into_iter()
            .filter(|role| *role != "arbiter" || arbiter)
            .rfind(|role| {
                let labels = BTreeMap::from([(ROLE_LABEL.to_string(), role.to_string())]);
                selector.matches(&labels)
            })
    }

    /// A status condition by type.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        find_condition(&self.status.conditions, type_)
    }

    /// Whether the pool selects this MachineConfig (`machineConfigSelector`).
    pub fn selects_config(&self, mc: &MachineConfig) -> bool {
        self.spec
            .machine_config_selector
            .as_ref()
            .is_some_and(|s| s.matches(&mc.metadata.labels))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_config_keeps_untyped_parts() {
        let mc: MachineConfig = serde_json::from_str(
            r#"{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig",
            "metadata":{"name":"99-worker-generated-registries","labels":{"machineconfiguration.openshift.io/role":"worker"},
              "ownerReferences":[{"apiVersion":"config.openshift.io/v1","kind":"Image","name":"cluster","uid":"u"}]},
            "spec":{"config":{"ignition":{"config":{"replace":{"verification":{}}},"version":"3.5.0"},
              "storage":{"files":[{"group":{},"overwrite":true,"path":"/etc/containers/registries.conf","user":{},
                "contents":{"compression":"","source":"data:text/plain;charset=utf-8;base64,eA==","verification":{}},"mode":420}]},
              "systemd":{}},
              "extensions":null,"fips":false,"kernelArguments":null,"osImageURL":""}}"#,
        )
        .unwrap();
        assert_eq!(mc.role(), Some("worker"));
        assert_eq!(mc.spec.config.ignition.version, "3.5.0");
        let file = mc.file("/etc/containers/registries.conf").unwrap();
        assert_eq!(file.mode, Some(420));
        assert_eq!(file.contents.compression.as_deref(), Some(""));
        assert!(file.other.contains_key("user"));
        assert!(mc.spec.config.other.contains_key("systemd"));
        assert_eq!(mc.spec.other.get("fips"), Some(&Value::Bool(false)));
        assert_eq!(mc.metadata.owner_references[0].kind, "Image");
        assert_eq!(
            mc.origin().as_str(),
            "MachineConfig/99-worker-generated-registries"
        );
        let round = serde_json::to_value(&mc).unwrap();
        assert_eq!(round["spec"]["config"]["storage"]["files"][0]["mode"], 420);
        assert_eq!(round["spec"]["osImageURL"], "");
    }

    /// Issue 36: a hand edit of a generated MachineConfig is a manager
    /// other than the MCO's still owning part of `spec.config`.
    #[test]
    fn issue_36_foreign_config_writers() {
        let mco = r#"{"manager":"machine-config-controller","operation":"Update","time":"2026-05-01T10:00:05Z",
            "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{}},"f:spec":{"f:config":{"f:ignition":{}}}}}"#;
        let edit = r#"{"manager":"kubectl-edit","operation":"Update","time":"2026-05-04T08:00:00Z",
            "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:config":{"f:storage":{"f:files":{}}}}}}"#;
        let labels = r#"{"manager":"kubectl-client-side-apply","operation":"Update","time":"2026-05-05T08:00:00Z",
            "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{"f:team":{}}}}}"#;
        let patch = r#"{"manager":"kubectl-patch","operation":"Update","time":"2026-05-03T08:00:00Z",
            "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:config":{"f:storage":{"f:files":{}}}}}}"#;
        let apply =
            r#"{"manager":"kubectl","operation":"Apply","fieldsV1":{"f:spec":{"f:config":{}}}}"#;
        let status = r#"{"manager":"oc","operation":"Update","subresource":"status","fieldsV1":{"f:spec":{"f:config":{}}}}"#;
        let spec_only =
            r#"{"manager":"oc","operation":"Update","fieldsV1":{"f:spec":{"f:fips":{}}}}"#;
        for (entries, want) in [
            (vec![], vec![]),
            (vec![mco], vec![]),
            (vec![mco, edit], vec!["kubectl-edit"]),
            (vec![mco, labels], vec![]),
            (vec![status, spec_only], vec![]),
            (
                vec![apply, edit, mco, patch, labels],
                vec!["kubectl-edit", "kubectl-patch", "kubectl"],
            ),
        ] {
            let text = format!(
                r#"{{"metadata":{{"name":"99-worker-generated-registries","managedFields":[{}]}}}}"#,
                entries.join(",")
            );
            let mc: MachineConfig = serde_json::from_str(&text).unwrap();
            let got: Vec<&str> = mc
                .foreign_config_writers()
                .iter()
                .map(|e| e.manager.as_str())
                .collect();
            assert_eq!(got, want, "{text}");
        }
        // Read only: never written back out.
        let mc: MachineConfig = serde_json::from_str(&format!(
            r#"{{"metadata":{{"name":"x","managedFields":[{edit}]}}}}"#
        ))
        .unwrap();
        assert_eq!(
            mc.metadata.managed_fields[0].time.as_deref(),
            Some("2026-05-04T08:00:00Z")
        );
        let round = serde_json::to_value(&mc).unwrap();
        assert_eq!(round["metadata"].get("managedFields"), None, "{round}");
    }

    #[test]
    fn pool_status_and_selector() {
        let pool: MachineConfigPool = serde_json::from_str(
            r#"{"metadata":{"name":"worker","labels":{"machineconfiguration.openshift.io/mco-built-in":""}},
            "spec":{"configuration":{"name":"rendered-worker-1"},"paused":false,
              "machineConfigSelector":{"matchLabels":{"machineconfiguration.openshift.io/role":"worker"}},
              "nodeSelector":{"matchLabels":{"node-role.kubernetes.io/worker":""}}},
            "status":{"configuration":{"name":"rendered-worker-1","source":[{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","name":"00-worker"}]},
              "machineCount":3,"updatedMachineCount":2,"readyMachineCount":2,"degradedMachineCount":0,
              "conditions":[{"type":"Updating","status":"True"},{"type":"Degraded","status":"False"}]}}"#,
        )
        .unwrap();
        assert!(pool.is_built_in());
        assert!(pool.condition("Updating").unwrap().is_true());
        assert!(!pool.condition("Degraded").unwrap().is_true());
        assert_eq!(pool.status.configuration.source[0].name, "00-worker");
        let mut mc = MachineConfig::new("99-worker-x");
        assert!(!pool.selects_config(&mc));
        mc.metadata
            .labels
            .insert(ROLE_LABEL.into(), "worker".into());
        assert!(pool.selects_config(&mc));
    }
}
