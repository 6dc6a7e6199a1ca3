//! The parts of a catalog image `operator-check` reads: its manifest (the
//! config and the layers, in order; or an index of platforms) and its
//! config's labels (the configs folder, or a SQLite database).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::upgrade::payload::Descriptor;

/// A catalog image's manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogManifest {
    Image {
        config: Descriptor,
        layers: Vec<Descriptor>,
    },
    Index(Vec<Descriptor>),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Raw {
    #[serde(default)]
    schema_version: i64,
    #[serde(default)]
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
}

/// Parses a manifest: an index, or a schema 2 image with a config.
pub fn parse_manifest(body: &[u8]) -> Result<CatalogManifest, String> {
    let raw: Raw =
        serde_json::from_slice(body).map_err(|e| format!("its manifest is not JSON: {e}"))?;
    if let Some(m) = raw.manifests {
        return Ok(CatalogManifest::Index(m));
    }
    if raw.schema_version != 2 {
        return Err(format!(
            "its manifest is schema version {}, not an image with a config",
            raw.schema_version
        ));
    }
    let config = raw.config.ok_or("its manifest has no config")?;
    Ok(CatalogManifest::Image {
        config,
        layers: raw.layers.unwrap_or_default(),
    })
}

#[derive(Deserialize)]
struct ConfigBlob {
    #[serde(default)]
    config: Option<ConfigPart>,
}

#[derive(Deserialize)]
struct ConfigPart {
    #[serde(default, rename = "Labels")]
    labels: Option<BTreeMap<String, String>>,
}

/// The labels of an image config blob.
pub fn config_labels(body: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let blob: ConfigBlob =
        serde_json::from_slice(body).map_err(|e| format!("its config is not JSON: {e}"))?;
    Ok(blob.config.and_then(|c| c.labels).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_config_and_layers_in_order() {
        let body = br#"{"schemaVersion":2,"config":{"digest":"sha256:c","size":1},"layers":[{"digest":"sha256:1"},{"digest":"sha256:2"}]}"#;
        let CatalogManifest::Image { config, layers } = parse_manifest(body).unwrap() else {
            panic!("an image")
        };
        assert_eq!(config.digest, "sha256:c");
        assert_eq!(
            layers.iter().map(|l| l.digest.as_str()).collect::<Vec<_>>(),
            ["sha256:1", "sha256:2"]
        );
        let labels = config_labels(br#"{"config":{"Labels":{"operators.operatorframework.io.index.configs.v1":"/configs"}}}"#).unwrap();
        assert_eq!(labels[crate::olm::catalog::CONFIGS_LABEL], "/configs");
        assert!(parse_manifest(br#"{"schemaVersion":1}"#).is_err());
    }
}
