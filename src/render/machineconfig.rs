//! The `99-<pool>-generated-registries` MachineConfig the MCO writes, and
//! reading file contents back out of any MachineConfig.
//!
//! The Ignition JSON is produced byte for byte as Go's `json.Marshal` of the
//! MCO's `ign3types.Config` with `storage.files` (fields in struct order,
//! empty structs kept as `{}`); file contents are `data:` URLs with the
//! sniffed MIME type and padded standard base64. Decoding accepts both the
//! base64 form and the percent-escaped form of transpiled templates.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};

use crate::quote::go_json_string;

/// The label that assigns a MachineConfig to a pool role.
pub const ROLE_LABEL: &str = "machineconfiguration.openshift.io/role";

/// One node file the MCO writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFile {
    pub path: String,
    pub contents: String,
}

/// The name of the generated registries MachineConfig of a pool.
pub fn generated_registries_name(pool: &str) -> String {
    format!("99-{pool}-generated-registries")
}

/// The MIME type Go's `http.DetectContentType` gives these text files, with
/// `"; "` folded to `";"` as the dataurl package writes it.
fn mime_type(data: &[u8]) -> &'static str {
    let binary = data.iter().any(|&b| {
        b <= 0x08 || b == 0x0B || (0x0E..=0x1A).contains(&b) || (0x1C..=0x1F).contains(&b)
    });
    if binary {
        "application/octet-stream"
    } else {
        "text/plain;charset=utf-8"
    }
}

/// `dataurl.EncodeBytes`: `data:<mime>;base64,<padded base64>`.
pub fn data_url(data: &[u8]) -> String {
    format!("data:{};base64,{}", mime_type(data), STANDARD.encode(data))
}

/// The Ignition config JSON of the generated MachineConfig, byte for byte.
pub fn ignition_json(files: &[NodeFile], ignition_version: &str) -> String {
    let mut out = String::new();
    out.push_str("{\"ignition\":{\"config\":{\"replace\":{\"verification\":{}}},\"proxy\":{},\"security\":{\"tls\":{}},\"timeouts\":{},\"version\":");
    out.push_str(&go_json_string(ignition_version));
    out.push_str("},\"kernelArguments\":{},\"passwd\":{},\"storage\":{");
    if !files.is_empty() {
        out.push_str("\"files\":[");
        for (i, f) in files.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"group\":{},\"overwrite\":true,\"path\":");
            out.push_str(&go_json_string(&f.path));
            out.push_str(",\"user\":{},\"contents\":{\"compression\":\"\",\"source\":");
            out.push_str(&go_json_string(&data_url(f.contents.as_bytes())));
            out.push_str(",\"verification\":{}},\"mode\":420}");
        }
        out.push(']');
    }
    out.push_str("},\"systemd\":{}}");
    out
}

/// The generated MachineConfig object for a pool, as the API would return it
/// (without server-set metadata).
pub fn generated_machine_config(pool: &str, files: &[NodeFile], ignition_version: &str) -> Value {
    let config: Value =
        serde_json::from_str(&ignition_json(files, ignition_version)).unwrap_or(Value::Null);
    json!({
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "kind": "MachineConfig",
        "metadata": {
            "name": generated_registries_name(pool),
            "labels": { ROLE_LABEL: pool },
            "ownerReferences": [{
                "apiVersion": "config.openshift.io/v1",
                "kind": "Image",
                "name": "cluster",
            }],
        },
        "spec": {
            "config": config,
        },
    })
}

/// Why an Ignition file source cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    #[error("not a data URL: \"{0}\"")]
    NotDataUrl(String),
    #[error("invalid base64 in data URL: {0}")]
    Base64(String),
    #[error("invalid percent escape in data URL at byte {0}")]
    Percent(usize),
    #[error("data URL content is not UTF-8 text")]
    NotUtf8,
}

/// A base64 data URL, as Ignition configs from other tools carry them.
pub fn data_url_base64(data: &[u8]) -> String {
    format!("data:;base64,{}", STANDARD.encode(data))
}

/// Decodes an Ignition `contents.source` data URL (base64 or percent-escaped).
pub fn decode_data_url(source: &str) -> Result<String, DataUrlError> {
    String::from_utf8(decode_data_url_bytes(source)?).map_err(|_| DataUrlError::NotUtf8)
}

/// Decodes an Ignition `contents.source` data URL into bytes (which may be
/// gzip-compressed).
pub fn decode_data_url_bytes(source: &str) -> Result<Vec<u8>, DataUrlError> {
    let rest = source
        .strip_prefix("data:")
        .ok_or_else(|| DataUrlError::NotDataUrl(source.chars().take(40).collect()))?;
    let (meta, data) = rest
        .split_once(',')
        .ok_or_else(|| DataUrlError::NotDataUrl(source.chars().take(40).collect()))?;
    let bytes = if meta.ends_with(";base64") {
        STANDARD
            .decode(data.trim())
            .map_err(|e| DataUrlError::Base64(e.to_string()))?
    } else {
        percent_decode(data)?
    };
    Ok(bytes)
}

fn percent_decode(s: &str) -> Result<Vec<u8>, DataUrlError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or(DataUrlError::Percent(i))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The serialization in the MCO notes (section 6.1), with one file.
    #[test]
    fn ignition_json_shape() {
        let files = vec![NodeFile {
            path: "/etc/containers/registries.conf".into(),
            contents: "a = 1\n".into(),
        }];
        assert_eq!(
            ignition_json(&files, "3.5.0"),
            "{\"ignition\":{\"config\":{\"replace\":{\"verification\":{}}},\"proxy\":{},\"security\":{\"tls\":{}},\"timeouts\":{},\"version\":\"3.5.0\"},\"kernelArguments\":{},\"passwd\":{},\"storage\":{\"files\":[{\"group\":{},\"overwrite\":true,\"path\":\"/etc/containers/registries.conf\",\"user\":{},\"contents\":{\"compression\":\"\",\"source\":\"data:text/plain;charset=utf-8;base64,YSA9IDEK\",\"verification\":{}},\"mode\":420}]},\"systemd\":{}}"
        );
        assert!(ignition_json(&[], "3.5.0").contains("\"storage\":{},"));
    }

    #[test]
    fn data_urls_round_trip_and_percent_form_decodes() {
        let text = "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n";
        assert_eq!(decode_data_url(&data_url(text.as_bytes())).unwrap(), text);
        let transpiled = "data:,unqualified-search-registries%20%3D%20%5B'registry.access.redhat.com'%2C%20'docker.io'%5D%0A";
        assert_eq!(decode_data_url(transpiled).unwrap(), text);
        assert!(decode_data_url("https://x").is_err());
        assert!(decode_data_url("data:,%G1").is_err());
    }

    #[test]
    fn go_json_escapes_html() {
        assert_eq!(
            go_json_string("a<b>&\"\\\n"),
            "\"a\\u003cb\\u003e\\u0026\\\"\\\\\\n\""
        );
    }

    #[test]
    fn machine_config_object() {
        let mc = generated_machine_config("worker", &[], "3.5.0");
        assert_eq!(mc["metadata"]["name"], "99-worker-generated-registries");
        assert_eq!(mc["metadata"]["labels"][ROLE_LABEL], "worker");
        assert_eq!(mc["spec"]["config"]["ignition"]["version"], "3.5.0");
    }
}
