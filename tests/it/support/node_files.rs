//! Node-files folders (`DIR/<node>/<host path>`, `DIR/<node>/certs.sha256`)
//! as a node in sync holds them: each file the node's rendered
//! MachineConfig writes into the folders the runtime reads, decoded from
//! its data URL here (independent of the code under test), and the
//! daemon's `currentconfig` (the rendered MachineConfig as JSON).

// Not every test crate uses every helper.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine;
use serde_json::Value;

/// Whether the runtime reads `path` (and a node-files folder holds it).
pub fn is_runtime_file(path: &str) -> bool {
    [
        "/etc/containers/registries.conf",
        "/etc/containers/policy.json",
    ]
    .contains(&path)
        || [
            "/etc/containers/registries.conf.d/",
            "/etc/containers/registries.d/",
            "/etc/crio/policies/",
        ]
        .iter()
        .any(|dir| path.strip_prefix(dir).is_some_and(|n| !n.contains('/')))
}

/// Decodes an Ignition `data:` URL: `;base64` or percent-escaped.
pub fn decode_data_url(source: &str) -> Vec<u8> {
    let rest = source.strip_prefix("data:").expect("a data URL");
    let (meta, data) = rest.split_once(',').expect("data URL comma");
    if meta.ends_with(";base64") {
        return base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("base64");
    }
    let bytes = data.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("escape");
            out.push(u8::from_str_radix(hex, 16).expect("hex escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The files a node on `rendered` holds: host path → content.
pub fn files_of(rendered: &Value) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for f in rendered["spec"]["config"]["storage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = f["path"].as_str().unwrap();
        if is_runtime_file(path) {
            let source = f["contents"]["source"].as_str().unwrap_or("data:,");
            files.insert(path.to_string(), decode_data_url(source));
        }
    }
    files.insert(
        "/etc/machine-config-daemon/currentconfig".to_string(),
        serde_json::to_vec(rendered).unwrap(),
    );
    files
}

/// Writes one node's folder under `root`.
pub fn write_node(root: &Path, node: &str, files: &BTreeMap<String, Vec<u8>>, certs: &str) {
    for (path, bytes) in files {
        let local = root.join(node).join(path.trim_start_matches('/'));
        std::fs::create_dir_all(local.parent().unwrap()).unwrap();
        std::fs::write(local, bytes).unwrap();
    }
    if !certs.is_empty() {
        std::fs::write(root.join(node).join("certs.sha256"), certs).unwrap();
    }
}
