//! The release payload image, read as `oc adm release info` reads it: the
//! manifest (an index picks one architecture), its last layer streamed
//! through [`crate::oci::layer::read_tar`] (gzip, zstd or plain tar, as
//! containers/image and CRI-O unpack it for the cluster-version operator's
//! pod, and oc's `DecompressStream` for `oc adm release extract`) keeping
//! only `release-manifests/image-references`
//! (an `image.openshift.io/v1` ImageStream whose `spec.tags[].from.name`
//! are the components, by digest) and `release-manifests/release-metadata`.

use std::collections::BTreeMap;
use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::oci::layer::{self, Budget, Compression, LayerError, LayerSink};
use crate::oci::manifest::{
    self, ArchError, Descriptor, Manifest, ManifestError, Platform, DOCKER_MANIFEST, OCI_MANIFEST,
};

/// Where the payload keeps its manifests.
pub const RELEASE_MANIFESTS: &str = "release-manifests/";
pub const IMAGE_REFERENCES: &str = "release-manifests/image-references";
pub const RELEASE_METADATA: &str = "release-manifests/release-metadata";
/// A kept file is at most this large.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// Why the payload cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    #[error("the manifest is not JSON: {0}")]
    ManifestJson(String),
    #[error("the manifest has media type {0}, which is not an image manifest or index")]
    MediaType(String),
    #[error("the manifest has no layers")]
    NoLayers,
    /// An index without the architecture wanted, or with none known.
    #[error(transparent)]
    Arch(#[from] ArchError),
    #[error("reading the last layer {digest}: {message}")]
    Layer { digest: String, message: String },
    /// The layer (once decompressed, when compressed) is not a tar archive.
    #[error("the last layer {digest} ({media_type}) is not a tar archive{}: expected {}, found the bytes {found}", inside(*.compression), expected_layer(*.compression))]
    NotTar {
        digest: String,
        media_type: String,
        compression: Compression,
        /// The first bytes of the (decompressed) stream, in hex.
        found: String,
    },
    #[error("the last layer has no {0}: this is not an OpenShift release payload")]
    MissingFile(&'static str),
    #[error("{file}: {message}")]
    File { file: &'static str, message: String },
    #[error("{file}: {message}")]
    Manifest { file: String, message: String },
}

/// Parses a manifest body ([`manifest::parse_manifest`]) as the payload is
/// read from it: an index, or an OCI or Docker schema 2 image with layers.
pub fn parse_manifest(body: &[u8]) -> Result<Manifest, PayloadError> {
    let parsed = manifest::parse_manifest(body).map_err(|e| match e {
        ManifestError::NotJson(e) => PayloadError::ManifestJson(e),
        ManifestError::SchemaVersion(v) => {
            PayloadError::MediaType(format!("schema version {v} (docker v2 schema 1)"))
        }
    })?;
    if let Manifest::Image {
        media_type, layers, ..
    } = &parsed
    {
        if !media_type.is_empty() && media_type != OCI_MANIFEST && media_type != DOCKER_MANIFEST {
            return Err(PayloadError::MediaType(media_type.clone()));
        }
        if layers.is_empty() {
            return Err(PayloadError::NoLayers);
        }
    }
    Ok(parsed)
}

/// The last layer of an image read by [`parse_manifest`] (`None` for an index).
pub fn last_layer(manifest: &Manifest) -> Option<&Descriptor> {
    match manifest {
        Manifest::Image { layers, .. } => layers.last(),
        Manifest::Index(_) => None,
    }
}

/// Why the payload has no image for the control plane's architecture
/// `arch`: an index without a `linux/<arch>` entry (containers/image
/// fails the pull), or a single-architecture image of another platform (which
/// containers/image pulls all the same, and the node cannot run).
pub fn missing_architecture(
    manifest: &Manifest,
    config: Option<&Platform>,
    arch: &str,
) -> Option<String> {
    match manifest {
        Manifest::Index(entries) => match manifest::pick_arch(entries, Some(arch)) {
            Err(ArchError::Missing { have, .. }) => Some(format!(
                "the payload is a multi-architecture index without linux/{arch} (it has {}): CRI-O on the control plane finds no image in it for architecture {arch:?}, OS \"linux\" and fails the pull",
                have.join(", ")
            )),
            _ => None,
        },
        Manifest::Image { .. } => {
            let p = config?;
            let os = if p.os.is_empty() { "linux" } else { p.os.as_str() };
            (p.architecture != arch || os != "linux").then(|| format!(
                "the payload is a single-architecture {os}/{} image and has no image for linux/{arch}: CRI-O on the control plane pulls it, and the cluster-version operator's pod cannot run it there",
                p.architecture
            ))
        }
    }
}

/// The files kept from the last layer, by path inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReleaseFiles {
    pub files: BTreeMap<String, Vec<u8>>,
}

/// Whether the layer entry at `path` is kept: the two release files and
/// the signature policy manifests ([`policy_manifest`]).
pub fn wanted(path: &str) -> bool {
    path == IMAGE_REFERENCES || path == RELEASE_METADATA || policy_manifest(path)
}

/// Whether a payload file may hold a signature policy: a manifest directly
/// in `release-manifests/` named after an image policy
/// (`0000_90_openshift-cluster-image-policy.yaml`).
pub fn policy_manifest(path: &str) -> bool {
    let Some(name) = path.strip_prefix(RELEASE_MANIFESTS) else {
        return false;
    };
    !name.contains('/')
        && name.contains("image-polic")
        && [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
}

/// Where the bytes that are no tar archive were found.
fn inside(compression: Compression) -> &'static str {
    match compression {
        Compression::Gzip => " inside its gzip stream",
        Compression::Zstd => " inside its zstd stream",
        Compression::None => "",
    }
}

/// What a payload's last layer is expected to hold.
fn expected_layer(compression: Compression) -> &'static str {
    match compression {
        Compression::Gzip | Compression::Zstd => {
            "a tar archive (512-byte headers, \"ustar\" at byte 257)"
        }
        Compression::None => {
            "a gzip- or zstd-compressed tar (bytes 1f 8b or 28 b5 2f fd) or a plain tar (512-byte headers, \"ustar\" at byte 257)"
        }
    }
}

/// The payload files of a layer, as a [`LayerSink`].
struct Kept<'a> {
    keep: &'a dyn Fn(&str) -> bool,
    files: ReleaseFiles,
}

impl LayerSink for Kept<'_> {
    fn next_layer(&mut self) {}
    fn concerns(&mut self, path: &str) -> bool {
        (self.keep)(&layer::normalize(path))
    }
    fn whiteout(&mut self, _: &str) {}
    fn add(&mut self, path: &str, body: Vec<u8>) {
        self.files.files.insert(layer::normalize(path), body);
    }
}

/// Streams the layer `layer` (gzip- or zstd-compressed or plain tar,
/// within the walk's caps: [`MAX_FILE_BYTES`] a kept file, the layer
/// unpacked to at most [`layer::MAX_STREAM_BYTES`]) and keeps the entries
/// `keep` selects. A layer that is not a tar archive is said as such, with
/// its digest and first bytes, never with what the tar reader made of
/// them (raw bytes).
pub fn read_layer(
    reader: impl Read,
    layer: &Descriptor,
    keep: &dyn Fn(&str) -> bool,
) -> Result<ReleaseFiles, PayloadError> {
    let mut kept = Kept {
        keep,
        files: ReleaseFiles::default(),
    };
    let mut budget = Budget::per_file(MAX_FILE_BYTES);
    match layer::read_tar(reader, &mut kept, &mut budget) {
        Ok(()) => Ok(kept.files),
        Err(LayerError::NotTar {
            compression, found, ..
        }) => Err(PayloadError::NotTar {
            digest: layer.digest.clone(),
            media_type: layer.media_type.clone(),
            compression,
            found,
        }),
        Err(e) => Err(PayloadError::Layer {
            digest: layer.digest.clone(),
            message: e.to_string(),
        }),
    }
}

/// One component of the release: an `image-references` tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Component {
    /// The tag's name (`machine-config-operator`).
    pub name: String,
    /// `from.name`, a pull spec by digest.
    pub reference: String,
}

#[derive(Deserialize)]
struct ImageStream {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: Option<NameOnly>,
    #[serde(default)]
    spec: Option<StreamSpec>,
}

#[derive(Deserialize)]
struct NameOnly {
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
struct StreamSpec {
    #[serde(default)]
    tags: Vec<StreamTag>,
}

#[derive(Deserialize)]
struct StreamTag {
    #[serde(default)]
    name: String,
    #[serde(default)]
    from: Option<ObjectReference>,
}

#[derive(Deserialize)]
struct ObjectReference {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    name: String,
}

/// What the payload says of itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The ImageStream's name: the release version.
    pub version: String,
    pub components: Vec<Component>,
}

/// Reads `image-references`: every tag whose `from` is a `DockerImage`.
pub fn components(files: &ReleaseFiles) -> Result<Release, PayloadError> {
    let text = files
        .files
        .get(IMAGE_REFERENCES)
        .ok_or(PayloadError::MissingFile(IMAGE_REFERENCES))?;
    let err = |message: String| PayloadError::File {
        file: IMAGE_REFERENCES,
        message,
    };
    let stream: ImageStream = serde_json::from_slice(text).map_err(|e| err(e.to_string()))?;
    if stream.kind != "ImageStream" {
        return Err(err(format!("kind is {:?}, not ImageStream", stream.kind)));
    }
    let mut out = Vec::new();
    for tag in stream.spec.map(|s| s.tags).unwrap_or_default() {
        let Some(from) = tag.from else {
            return Err(err(format!("tag {:?} has no from", tag.name)));
        };
        if from.kind != "DockerImage" {
            return Err(err(format!(
                "tag {:?}: from.kind is {:?}, not DockerImage",
                tag.name, from.kind
            )));
        }
        out.push(Component {
            name: tag.name,
            reference: from.name,
        });
    }
    Ok(Release {
        version: stream.metadata.map(|m| m.name).unwrap_or_default(),
        components: out,
    })
}

/// `release-metadata`'s `version`, when the file is there.
pub fn metadata_version(files: &ReleaseFiles) -> Result<Option<String>, PayloadError> {
    let Some(text) = files.files.get(RELEASE_METADATA) else {
        return Ok(None);
    };
    let v: serde_json::Value = serde_json::from_slice(text).map_err(|e| PayloadError::File {
        file: RELEASE_METADATA,
        message: e.to_string(),
    })?;
    Ok(v.get("version")
        .and_then(|v| v.as_str())
        .map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oci::layer::testing;

    fn tar_of(files: &[(&str, &str)], compression: Compression) -> Vec<u8> {
        let raw = testing::tar_of(files);
        match compression {
            Compression::Gzip => testing::gzip(&raw),
            Compression::Zstd => testing::zstd(&raw),
            Compression::None => raw,
        }
    }

    const EVERY: [Compression; 3] = [Compression::Gzip, Compression::Zstd, Compression::None];

    const REFS: &str = r#"{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","metadata":{"name":"4.21.0"},"spec":{"tags":[{"name":"cli","from":{"kind":"DockerImage","name":"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:aa"}}]}}"#;

    /// A reader that hands out one byte per read, as a registry or proxy
    /// that splits its records may.
    struct OneByte(std::io::Cursor<Vec<u8>>);

    impl Read for OneByte {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn issue_39_gzip_known_when_bytes_come_one_at_a_time() {
        for compression in EVERY {
            let layer = tar_of(&[(IMAGE_REFERENCES, REFS)], compression);
            let files = read_layer(OneByte(std::io::Cursor::new(layer)), &layer_of(), &wanted)
                .unwrap_or_else(|e| panic!("{compression:?}: {e}"));
            assert_eq!(
                files.files[IMAGE_REFERENCES],
                REFS.as_bytes(),
                "{compression:?}"
            );
        }
        // Shorter than a magic number: read as it is (an empty tar).
        assert!(read_layer(
            OneByte(std::io::Cursor::new(vec![0x1f])),
            &layer_of(),
            &wanted
        )
        .is_err());
        let empty = read_layer(
            OneByte(std::io::Cursor::new(Vec::new())),
            &layer_of(),
            &wanted,
        )
        .expect("empty");
        assert!(empty.files.is_empty());
    }

    #[test]
    fn keeps_only_the_release_files_gzip_zstd_or_plain() {
        for compression in EVERY {
            let layer = tar_of(
                &[
                    ("./release-manifests/image-references", REFS),
                    ("release-manifests/0000_00_x.yaml", "kind: X"),
                    (
                        "release-manifests/release-metadata",
                        "{\"version\":\"4.21.0\"}",
                    ),
                ],
                compression,
            );
            let files = read_layer(&layer[..], &layer_of(), &wanted).expect("layer");
            assert_eq!(files.files.len(), 2, "{compression:?}");
            let release = components(&files).expect("components");
            assert_eq!(release.version, "4.21.0");
            assert_eq!(release.components[0].name, "cli");
            assert_eq!(metadata_version(&files).unwrap().as_deref(), Some("4.21.0"));
        }
    }

    #[test]
    fn a_layer_without_image_references_is_not_a_payload() {
        let layer = tar_of(&[("etc/hosts", "x")], Compression::Gzip);
        let files = read_layer(&layer[..], &layer_of(), &wanted).expect("layer");
        assert_eq!(
            components(&files).unwrap_err(),
            PayloadError::MissingFile(IMAGE_REFERENCES)
        );
        assert!(read_layer(&b"\x1f\x8bnot gzip"[..], &layer_of(), &wanted).is_err());
    }

    fn layer_of() -> Descriptor {
        Descriptor {
            media_type: "application/vnd.oci.image.layer.v1.tar+gzip".to_string(),
            digest: "sha256:ab".to_string(),
            size: 0,
            platform: None,
        }
    }

    /// Issue 37: bytes that are no tar archive, plain or gunzipped, are said
    /// as such: what was expected, the layer's digest and its first bytes in
    /// hex, not the tar reader's complaint quoting them.
    #[test]
    fn issue_37_a_garbled_layer_names_its_digest_and_what_was_expected() {
        let garbage: Vec<u8> = (0..2048u32).map(|i| (i * 7 % 256) as u8).collect();
        let e = read_layer(&garbage[..], &layer_of(), &wanted).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the last layer sha256:ab (application/vnd.oci.image.layer.v1.tar+gzip) is not a tar archive: expected a gzip- or zstd-compressed tar (bytes 1f 8b or 28 b5 2f fd) or a plain tar (512-byte headers, \"ustar\" at byte 257), found the bytes 00 07 0e 15 1c 23 2a 31 38 3f 46 4d 54 5b 62 69"
        );
        for (compressed, inside) in [
            (testing::gzip(&garbage), "gzip"),
            (testing::zstd(&garbage), "zstd"),
        ] {
            let e = read_layer(&compressed[..], &layer_of(), &wanted).unwrap_err();
            let text = e.to_string();
            let want = format!("the last layer sha256:ab (application/vnd.oci.image.layer.v1.tar+gzip) is not a tar archive inside its {inside} stream: expected a tar archive");
            assert!(text.starts_with(&want), "{text}");
            assert!(
                text.ends_with("found the bytes 00 07 0e 15 1c 23 2a 31 38 3f 46 4d 54 5b 62 69"),
                "{text}"
            );
        }
    }

    /// Issue 37: a payload without an image for the control plane's
    /// architecture, as an index or as a single-architecture image.
    #[test]
    fn issue_37_an_architecture_the_payload_does_not_have() {
        let index = br#"{"schemaVersion":2,"manifests":[{"digest":"sha256:a","platform":{"architecture":"amd64","os":"linux"}}]}"#;
        let index = parse_manifest(index).unwrap();
        assert_eq!(missing_architecture(&index, None, "amd64"), None);
        let why = missing_architecture(&index, None, "arm64").unwrap();
        assert!(
            why.contains("without linux/arm64 (it has linux/amd64)"),
            "{why}"
        );
        let image = br#"{"schemaVersion":2,"config":{"digest":"sha256:c","size":1},"layers":[{"digest":"sha256:l","size":1}]}"#;
        let image = parse_manifest(image).unwrap();
        let amd64 =
            manifest::config_platform(br#"{"architecture":"amd64","os":"linux","config":{}}"#);
        assert_eq!(missing_architecture(&image, amd64.as_ref(), "amd64"), None);
        let why = missing_architecture(&image, amd64.as_ref(), "arm64").unwrap();
        assert!(
            why.contains("single-architecture linux/amd64 image and has no image for linux/arm64"),
            "{why}"
        );
        // A configuration that names no platform decides nothing.
        assert_eq!(missing_architecture(&image, None, "arm64"), None);
    }

    /// The payload's own rules over [`manifest::parse_manifest`]: the last
    /// layer, a schema 2 image's media type, at least one layer.
    #[test]
    fn the_last_layer_of_a_schema_2_image() {
        let image = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"digest":"sha256:c","size":1},"layers":[{"digest":"sha256:l1","size":1},{"digest":"sha256:l2","size":2}]}"#;
        let parsed = parse_manifest(image).unwrap();
        assert_eq!(last_layer(&parsed).unwrap().digest, "sha256:l2");
        let index = br#"{"schemaVersion":2,"manifests":[{"digest":"sha256:a","platform":{"architecture":"amd64","os":"linux"}}]}"#;
        assert_eq!(last_layer(&parse_manifest(index).unwrap()), None);
        for (body, want) in [
            (&br#"{"schemaVersion":1}"#[..], "the manifest has media type schema version 1 (docker v2 schema 1), which is not an image manifest or index"),
            (br#"{"schemaVersion":2,"mediaType":"text/plain","layers":[{"digest":"sha256:l"}]}"#, "the manifest has media type text/plain, which is not an image manifest or index"),
            (br#"{"schemaVersion":2,"layers":[]}"#, "the manifest has no layers"),
        ] {
            let got = parse_manifest(body).unwrap_err().to_string();
            assert_eq!(got, want, "{}", String::from_utf8_lossy(body));
        }
    }
}
