//! An image's manifest, as containers/image reads it: an index (manifest
//! list) of one image per platform, or an image (its config and its layers
//! in order), in the OCI or the Docker schema 2 form; and the parts of the
//! image configuration the tool reads (its labels, its platform). See the
//! OCI image spec (`manifest.md`, `image-index.md`, `config.md`).

use std::collections::BTreeMap;

use serde::Deserialize;

/// The media types of an image manifest (OCI, Docker schema 2).
pub const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// One entry of a manifest: a blob or a child manifest.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    #[serde(default)]
    pub media_type: String,
    pub digest: String,
    #[serde(default)]
    pub size: i64,
    #[serde(default)]
    pub platform: Option<Platform>,
}

/// `platform` of an index entry, or of an image configuration.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Platform {
    #[serde(default)]
    pub architecture: String,
    #[serde(default)]
    pub os: String,
}

/// A manifest as served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Manifest {
    /// An image: its configuration and its layers, base first.
    Image {
        /// `mediaType`, empty when the manifest does not say.
        media_type: String,
        config: Option<Descriptor>,
        layers: Vec<Descriptor>,
    },
    /// An index (manifest list): one image per platform.
    Index(Vec<Descriptor>),
}

/// Why a manifest cannot be read as an index or a schema 2 image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("the manifest is not JSON: {0}")]
    NotJson(String),
    /// Neither an index nor schema version 2 (docker v2 schema 1, or none).
    #[error("the manifest is schema version {0}")]
    SchemaVersion(i64),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawManifest {
    #[serde(default)]
    schema_version: i64,
    #[serde(default)]
    media_type: String,
    #[serde(default)]
    config: Option<Descriptor>,
    #[serde(default)]
    layers: Option<Vec<Descriptor>>,
    #[serde(default)]
    manifests: Option<Vec<Descriptor>>,
}

/// Parses a manifest body: an index (it has `manifests`), else a schema 2
/// image. What a caller needs of the image (a config, a layer, a media
/// type it reads) is the caller's to check.
pub fn parse_manifest(body: &[u8]) -> Result<Manifest, ManifestError> {
    let raw: RawManifest =
        serde_json::from_slice(body).map_err(|e| ManifestError::NotJson(e.to_string()))?;
    if let Some(manifests) = raw.manifests {
        return Ok(Manifest::Index(manifests));
    }
    if raw.schema_version != 2 {
        return Err(ManifestError::SchemaVersion(raw.schema_version));
    }
    Ok(Manifest::Image {
        media_type: raw.media_type,
        config: raw.config,
        layers: raw.layers.unwrap_or_default(),
    })
}

/// Why an index has no image to read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchError {
    #[error("the index has no manifest for linux/{arch} (it has {})", .have.join(", "))]
    Missing { arch: String, have: Vec<String> },
    #[error("the image is a multi-architecture index ({}): the architecture is not known, pass --arch", .have.join(", "))]
    Unknown { have: Vec<String> },
}

/// The digest of the index entry for `linux/<arch>`; `arch` `None` when
/// the nodes' architecture is not known (then an index is refused).
pub fn pick_arch(entries: &[Descriptor], arch: Option<&str>) -> Result<String, ArchError> {
    let have: Vec<String> = entries
        .iter()
        .filter_map(|d| d.platform.as_ref())
        .map(|p| format!("{}/{}", p.os, p.architecture))
        .collect();
    let Some(arch) = arch else {
        return Err(ArchError::Unknown { have });
    };
    entries
        .iter()
        .find(|d| {
            d.platform
                .as_ref()
                .is_some_and(|p| p.os == "linux" && p.architecture == arch)
        })
        .map(|d| d.digest.clone())
        .ok_or(ArchError::Missing {
            arch: arch.to_string(),
            have,
        })
}

/// The platform an image configuration names (`os`, `architecture`), as
/// containers/image reads it; `None` when it is not JSON or names no
/// architecture.
pub fn config_platform(config: &[u8]) -> Option<Platform> {
    let platform: Platform = serde_json::from_slice(config).ok()?;
    (!platform.architecture.is_empty()).then_some(platform)
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

/// The labels of an image configuration blob (`config.Labels`).
pub fn config_labels(body: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let blob: ConfigBlob =
        serde_json::from_slice(body).map_err(|e| format!("its config is not JSON: {e}"))?;
    Ok(blob.config.and_then(|c| c.labels).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_and_indexes() {
        let image = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"digest":"sha256:c","size":1},"layers":[{"digest":"sha256:l1","size":1},{"digest":"sha256:l2","size":2}]}"#;
        let Manifest::Image {
            media_type,
            config,
            layers,
        } = parse_manifest(image).unwrap()
        else {
            panic!("an image")
        };
        assert_eq!(media_type, OCI_MANIFEST);
        assert_eq!(config.map(|c| c.digest).as_deref(), Some("sha256:c"));
        let digests: Vec<&str> = layers.iter().map(|l| l.digest.as_str()).collect();
        assert_eq!(digests, ["sha256:l1", "sha256:l2"], "base first");
        let index = br#"{"schemaVersion":2,"manifests":[{"digest":"sha256:a","platform":{"architecture":"amd64","os":"linux"}},{"digest":"sha256:b","platform":{"architecture":"arm64","os":"linux"}}]}"#;
        let Manifest::Index(entries) = parse_manifest(index).unwrap() else {
            panic!("index")
        };
        assert_eq!(pick_arch(&entries, Some("arm64")).unwrap(), "sha256:b");
        assert_eq!(
            pick_arch(&entries, Some("s390x")).unwrap_err().to_string(),
            "the index has no manifest for linux/s390x (it has linux/amd64, linux/arm64)"
        );
        assert_eq!(
            pick_arch(&entries, None).unwrap_err().to_string(),
            "the image is a multi-architecture index (linux/amd64, linux/arm64): the architecture is not known, pass --arch",
            "said of any image: catalogs and bundles are read through it too"
        );
        assert_eq!(
            parse_manifest(br#"{"schemaVersion":1}"#),
            Err(ManifestError::SchemaVersion(1))
        );
        assert!(matches!(
            parse_manifest(b"{"),
            Err(ManifestError::NotJson(_))
        ));
    }

    #[test]
    fn config_labels_and_platform() {
        let labels = config_labels(
            br#"{"architecture":"amd64","config":{"Labels":{"operators.operatorframework.io.index.configs.v1":"/configs"}}}"#,
        )
        .unwrap();
        assert_eq!(
            labels["operators.operatorframework.io.index.configs.v1"],
            "/configs"
        );
        assert!(config_labels(br#"{"config":{}}"#).unwrap().is_empty());
        assert!(config_labels(b"not json").is_err());
        let p = config_platform(br#"{"architecture":"amd64","os":"linux","config":{}}"#);
        assert_eq!(p.map(|p| p.architecture).as_deref(), Some("amd64"));
        assert_eq!(config_platform(br#"{"config":{}}"#), None);
        assert_eq!(config_platform(b"not json"), None);
    }
}
