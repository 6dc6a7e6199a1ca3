//! Rendered MachineConfigs for fixtures, built from a pool's MachineConfigs
//! by the Machine Config Operator's merge rule — never written by hand, and
//! independent of the code under test.
//!
//! The rule (openshift/machine-config-operator: the render controller's
//! `generateRenderedMachineConfig` calls `MergeMachineConfigs` in
//! `pkg/controller/common/helpers.go`):
//!
//! 1. the configs with role `worker` come first, then all others, each group
//!    sorted by name (a custom pool's own configs override the worker ones);
//! 2. the first config's Ignition is the base, and each next one is merged
//!    into it with Ignition's merge (coreos/ignition `config/merge`):
//!    objects merge key by key, the later value winning; lists keyed by
//!    `path` (`storage.files`, `storage.directories`, `storage.links`) or
//!    `name` (`systemd.units`, `passwd.users`, `passwd.groups`) merge an
//!    entry with the earlier one of the same key in that one's place and
//!    append the others; a file's `append` list is concatenated; other
//!    lists are replaced; a `null` (a nil pointer) keeps the earlier value.
//!    The MCO gives every file without `compression` an
//!    empty one before merging, so a later file's contents never keep an
//!    earlier compression;
//! 3. every file without `overwrite` gets `overwrite: true`;
//! 4. the Ignition version is the MCO's newest (here: the highest of the
//!    configs', which it cannot be below).
//!
//! The rendered config is named by the caller (the MCO hashes its contents)
//! and owned by the pool.

// Not every test crate uses every helper.
#![allow(dead_code)]

use serde_json::{json, Value};

/// The role label.
pub const ROLE: &str = "machineconfiguration.openshift.io/role";

/// `configs` in the MCO's merge order.
pub fn merge_order(configs: &[Value]) -> Vec<Value> {
    let mut sorted: Vec<Value> = configs.to_vec();
    sorted.sort_by_key(|c| {
        (
            c["metadata"]["labels"][ROLE].as_str() != Some("worker"),
            c["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    });
    sorted
}

/// The rendered MachineConfig `name` of `pool`, merged from `configs`.
pub fn render(name: &str, pool: &str, configs: &[Value]) -> Value {
    let ordered = merge_order(configs);
    let mut merged: Option<Value> = None;
    for config in &ordered {
        let mut ign = config["spec"]["config"].clone();
        if ign.is_null() {
            continue;
        }
        for file in ign["storage"]["files"].as_array_mut().into_iter().flatten() {
            if file["contents"].get("compression").is_none() {
                file["contents"]["compression"] = json!("");
            }
        }
        merged = Some(match merged {
            None => ign,
            Some(parent) => merge(parent, ign, ""),
        });
    }
    let mut ign = merged.unwrap_or_else(|| json!({"ignition": {}}));
    for file in ign["storage"]["files"].as_array_mut().into_iter().flatten() {
        if file["contents"]["compression"] == json!("") {
            file["contents"]
                .as_object_mut()
                .unwrap()
                .remove("compression");
        }
        if file.get("overwrite").is_none() {
            file["overwrite"] = json!(true);
        }
    }
    let version = ordered
        .iter()
        .filter_map(|c| c["spec"]["config"]["ignition"]["version"].as_str())
        .max_by_key(|v| {
            v.split('.')
                .map(|n| n.parse::<u32>().unwrap_or(0))
                .collect::<Vec<_>>()
        })
        .unwrap_or("3.5.0")
        .to_string();
    ign["ignition"]["version"] = json!(version);
    let kernel_arguments: Vec<Value> = ordered
        .iter()
        .flat_map(|c| {
            c["spec"]["kernelArguments"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    let extensions: Vec<Value> = ordered
        .iter()
        .flat_map(|c| {
            c["spec"]["extensions"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    json!({
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfig",
        "metadata": {
            "name": name,
            "annotations": {
                "machineconfiguration.openshift.io/generated-by-controller-version": "4f9f1ba1d1e2c2ab23a4e7d36b0bb5a7e1c4b3d2"
            },
            "ownerReferences": [{
                "apiVersion": "machineconfiguration.openshift.io/v1",
                "kind": "MachineConfigPool",
                "name": pool,
                "controller": true,
                "blockOwnerDeletion": true
            }]
        },
        "spec": {
            "config": ign,
            "extensions": extensions,
            "fips": ordered.iter().any(|c| c["spec"]["fips"] == json!(true)),
            "kernelArguments": kernel_arguments,
            "kernelType": "default",
            "osImageURL": ""
        }
    })
}

/// The key of an entry of a keyed Ignition list at `at`, if that list is one.
fn key_of(at: &str) -> Option<&'static str> {
    match at {
        "storage.files" | "storage.directories" | "storage.links" => Some("path"),
        "systemd.units" | "passwd.users" | "passwd.groups" => Some("name"),
        _ => None,
    }
}

/// Ignition's merge of `child` into `parent` (see the module doc).
fn merge(parent: Value, child: Value, at: &str) -> Value {
    match (parent, child) {
        (Value::Object(mut p), Value::Object(c)) => {
            for (k, v) in c {
                if v.is_null() {
                    // A nil pointer in the later config keeps the earlier value.
                    continue;
                }
                let path = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                let merged = match p.remove(&k) {
                    Some(old) => merge(old, v, &path),
                    None => v,
                };
                p.insert(k, merged);
            }
            Value::Object(p)
        }
        (Value::Array(p), Value::Array(c)) => match key_of(at) {
            Some(key) => {
                let mut out: Vec<Value> = Vec::new();
                let mut rest: Vec<Value> = c;
                for item in p {
                    let id = item[key].clone();
                    match rest.iter().position(|x| x[key] == id) {
                        Some(i) => {
                            let child = rest.remove(i);
                            out.push(merge_entry(item, child));
                        }
                        None => out.push(item),
                    }
                }
                out.extend(rest);
                Value::Array(out)
            }
            None if at.ends_with(".append") => Value::Array(p.into_iter().chain(c).collect()),
            None => Value::Array(c),
        },
        (_, child) => child,
    }
}

/// Two entries of a keyed list with the same key: the later one's fields
/// win, `contents` and other objects merge key by key, `append` concatenates.
fn merge_entry(parent: Value, child: Value) -> Value {
    let (Value::Object(mut p), Value::Object(c)) = (parent, child) else {
        unreachable!("keyed Ignition list entries are objects")
    };
    for (k, v) in c {
        let merged = match (p.remove(&k), v) {
            (Some(Value::Array(old)), Value::Array(new)) if k == "append" => {
                Value::Array(old.into_iter().chain(new).collect())
            }
            (Some(old @ Value::Object(_)), new @ Value::Object(_)) => merge(old, new, &k),
            (_, new) => new,
        };
        p.insert(k, merged);
    }
    Value::Object(p)
}

/// A MachineConfig of `role` writing `files` (path, contents) as the MCO's
/// templates do: percent-escaped `data:,` URLs, mode 0644.
pub fn config(name: &str, role: &str, files: &[(&str, &str)]) -> Value {
    let files: Vec<Value> = files
        .iter()
        .map(|(path, text)| {
            json!({"path": path, "mode": 420, "overwrite": true,
                "contents": {"source": format!("data:,{}", escape(text))}})
        })
        .collect();
    json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
        "metadata": {"name": name, "labels": {ROLE: role}},
        "spec": {"config": {"ignition": {"version": "3.5.0"}, "storage": {"files": files}}}})
}

/// Percent-escapes everything but unreserved characters, as the `data:,`
/// URLs of the MCO's template configs are.
fn escape(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The MachineConfigs every pool has besides the generated ones: `00-<pool>`,
/// `01-<pool>-container-runtime` (the MCO's registries.conf and policy.json
/// templates, CRI-O's drop-in) and `01-<pool>-kubelet`; contents shortened.
pub fn base_configs(pool: &str) -> Vec<Value> {
    vec![
        config(
            &format!("00-{pool}"),
            pool,
            &[
                (
                    "/etc/containers/storage.conf",
                    "[storage]\ndriver = \"overlay\"\nrunroot = \"/run/containers/storage\"\ngraphroot = \"/var/lib/containers/storage\"\n",
                ),
                (
                    "/etc/sysctl.d/inotify.conf",
                    "fs.inotify.max_user_watches = 65536\nfs.inotify.max_user_instances = 8192\n",
                ),
            ],
        ),
        config(
            &format!("01-{pool}-container-runtime"),
            pool,
            &[
                (
                    "/etc/containers/registries.conf",
                    "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n",
                ),
                (
                    "/etc/containers/policy.json",
                    "{\n    \"default\": [\n        {\n            \"type\": \"insecureAcceptAnything\"\n        }\n    ],\n    \"transports\":\n        {\n            \"docker-daemon\":\n                {\n                    \"\": [{\"type\":\"insecureAcceptAnything\"}]\n                }\n        }\n}",
                ),
                (
                    "/etc/crio/crio.conf.d/00-default",
                    "[crio.runtime]\nselinux = true\ndefault_runtime = \"crun\"\n",
                ),
            ],
        ),
        config(
            &format!("01-{pool}-kubelet"),
            pool,
            &[(
                "/etc/kubernetes/kubelet.conf",
                "kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n",
            )],
        ),
    ]
}
