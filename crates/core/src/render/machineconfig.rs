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

use super::release::IgnitionLayout;

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

/// `dataurl.New(data, "text/plain")` with `EncodingASCII`, as the MCO of
/// 4.4–4.10 writes file contents: every byte but `A-Z a-z 0-9 - _ . ! ~ * ' ( )`
/// as `%XX` (upper-case hex).
pub fn data_url_ascii(data: &[u8]) -> String {
    let mut out = String::from("data:text/plain,");
    for &b in data {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The Ignition config JSON of the generated MachineConfig, byte for byte,
/// in the layout of the release's Ignition types.
pub fn ignition_json(files: &[NodeFile], ignition_version: &str, layout: IgnitionLayout) -> String {
    let mut out = String::from("{\"ignition\":{\"config\":");
    out.push_str(match layout {
        IgnitionLayout::V2 => "{},",
        _ => "{\"replace\":{\"verification\":{}}},\"proxy\":{},",
    });
    out.push_str("\"security\":{\"tls\":{}},\"timeouts\":{},\"version\":");
    out.push_str(&go_json_string(ignition_version));
    out.push_str(match layout {
        IgnitionLayout::V2 => "},\"networkd\":{},\"passwd\":{},\"storage\":{",
        IgnitionLayout::V3Ascii | IgnitionLayout::V3 => "},\"passwd\":{},\"storage\":{",
        IgnitionLayout::V3KernelArguments => "},\"kernelArguments\":{},\"passwd\":{},\"storage\":{",
    });
    if !files.is_empty() {
        out.push_str("\"files\":[");
        for (i, f) in files.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_file(&mut out, f, layout);
        }
        out.push(']');
    }
    out.push_str("},\"systemd\":{}}");
    out
}

/// One `storage.files` entry: the types' fields in struct order, `nil`
/// pointers and empty slices left out, structs kept as `{}`.
fn push_file(out: &mut String, f: &NodeFile, layout: IgnitionLayout) {
    let path = go_json_string(&f.path);
    match layout {
        IgnitionLayout::V2 => {
            out.push_str("{\"filesystem\":\"root\",\"path\":");
            out.push_str(&path);
            out.push_str(",\"contents\":{\"source\":");
        }
        IgnitionLayout::V3Ascii => {
            out.push_str("{\"group\":{},\"overwrite\":true,\"path\":");
            out.push_str(&path);
            out.push_str(",\"user\":{},\"contents\":{\"source\":");
        }
        IgnitionLayout::V3 | IgnitionLayout::V3KernelArguments => {
            out.push_str("{\"group\":{},\"overwrite\":true,\"path\":");
            out.push_str(&path);
            out.push_str(",\"user\":{},\"contents\":{\"compression\":\"\",\"source\":");
        }
    }
    let source = match layout {
        IgnitionLayout::V2 | IgnitionLayout::V3Ascii => data_url_ascii(f.contents.as_bytes()),
        IgnitionLayout::V3 | IgnitionLayout::V3KernelArguments => data_url(f.contents.as_bytes()),
    };
    out.push_str(&go_json_string(&source));
    out.push_str(",\"verification\":{}},\"mode\":420}");
}

/// The generated MachineConfig object for a pool, as the API would return it
/// (without server-set metadata).
pub fn generated_machine_config(
    pool: &str,
    files: &[NodeFile],
    ignition_version: &str,
    layout: IgnitionLayout,
) -> Value {
    let config: Value = serde_json::from_str(&ignition_json(files, ignition_version, layout))
        .unwrap_or(Value::Null);
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
            ignition_json(&files, "3.5.0", IgnitionLayout::V3KernelArguments),
            "{\"ignition\":{\"config\":{\"replace\":{\"verification\":{}}},\"proxy\":{},\"security\":{\"tls\":{}},\"timeouts\":{},\"version\":\"3.5.0\"},\"kernelArguments\":{},\"passwd\":{},\"storage\":{\"files\":[{\"group\":{},\"overwrite\":true,\"path\":\"/etc/containers/registries.conf\",\"user\":{},\"contents\":{\"compression\":\"\",\"source\":\"data:text/plain;charset=utf-8;base64,YSA9IDEK\",\"verification\":{}},\"mode\":420}]},\"systemd\":{}}"
        );
        assert!(
            ignition_json(&[], "3.5.0", IgnitionLayout::V3KernelArguments)
                .contains("\"storage\":{},")
        );
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
        let mc =
            generated_machine_config("worker", &[], "3.5.0", IgnitionLayout::V3KernelArguments);
        assert_eq!(mc["metadata"]["name"], "99-worker-generated-registries");
        assert_eq!(mc["metadata"]["labels"][ROLE_LABEL], "worker");
        assert_eq!(mc["spec"]["config"]["ignition"]["version"], "3.5.0");
    }
}

/// The generated Ignition JSON of each release family, from the config
/// types each release branch vendors (`config/v2_2/types` on release-4.4
/// and release-4.5, `v2/config/v3_1` on release-4.6, `v3_2` on
/// release-4.7 to release-4.13, `v3_4`/`v3_5` after) and its
/// `createNewIgnition`: `dataurl.New(data, "text/plain")` with
/// `EncodingASCII` up to release-4.10, `NewIgnFileBytesOverwriting` after.
#[cfg(test)]
mod layout_tests {
    use super::*;

    fn files() -> Vec<NodeFile> {
        vec![NodeFile {
            path: "/etc/containers/registries.conf".into(),
            contents: "a = ['x.io/*']\n".into(),
        }]
    }

    #[test]
    fn ignition_json_by_release_family() {
        for (layout, version, want) in [
            (
                IgnitionLayout::V2,
                "2.2.0",
                r#"{"ignition":{"config":{},"security":{"tls":{}},"timeouts":{},"version":"2.2.0"},"networkd":{},"passwd":{},"storage":{"files":[{"filesystem":"root","path":"/etc/containers/registries.conf","contents":{"source":"data:text/plain,a%20%3D%20%5B'x.io%2F*'%5D%0A","verification":{}},"mode":420}]},"systemd":{}}"#,
            ),
            (
                IgnitionLayout::V3Ascii,
                "3.1.0",
                r#"{"ignition":{"config":{"replace":{"verification":{}}},"proxy":{},"security":{"tls":{}},"timeouts":{},"version":"3.1.0"},"passwd":{},"storage":{"files":[{"group":{},"overwrite":true,"path":"/etc/containers/registries.conf","user":{},"contents":{"source":"data:text/plain,a%20%3D%20%5B'x.io%2F*'%5D%0A","verification":{}},"mode":420}]},"systemd":{}}"#,
            ),
            (
                IgnitionLayout::V3,
                "3.2.0",
                r#"{"ignition":{"config":{"replace":{"verification":{}}},"proxy":{},"security":{"tls":{}},"timeouts":{},"version":"3.2.0"},"passwd":{},"storage":{"files":[{"group":{},"overwrite":true,"path":"/etc/containers/registries.conf","user":{},"contents":{"compression":"","source":"data:text/plain;charset=utf-8;base64,YSA9IFsneC5pby8qJ10K","verification":{}},"mode":420}]},"systemd":{}}"#,
            ),
        ] {
            assert_eq!(ignition_json(&files(), version, layout), want, "{layout:?}");
            let empty = ignition_json(&[], version, layout);
            assert!(empty.contains(r#""storage":{},"#), "{layout:?}: {empty}");
        }
    }

    #[test]
    fn ascii_data_urls_escape_as_the_dataurl_package_and_decode() {
        let text = "a\tb ~*'()!-_.é\n";
        let url = data_url_ascii(text.as_bytes());
        assert_eq!(url, "data:text/plain,a%09b%20~*'()!-_.%C3%A9%0A");
        assert_eq!(decode_data_url(&url).unwrap(), text);
    }
}
