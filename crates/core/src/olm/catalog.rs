//! File-based catalogs (FBC) as operator-registry's `declcfg` reads them:
//! every file of the configs folder a stream of documents (JSON when it
//! opens with `{`, else YAML), each a "meta" with a `schema`. Of the
//! packages asked for, `olm.package`, `olm.channel` (entries with
//! `replaces`, `skips`, `skipRange`) and `olm.bundle` (image,
//! relatedImages, properties) are kept; of every other bundle only what a
//! dependency can be satisfied by (package, version, provided GVKs), so a
//! large catalog is never held whole. Unknown schemas are skipped, as the
//! resolver never sees them. Of every package, the names opm's checks need
//! are noted as the files pass ([`servable::Facts`]), and the catalog
//! assembled says whether the registry pod's `opm serve` would refuse it.
//!
//! The folder walk (layers, whiteouts, `.indexignore`) is [`crate::olm::fs`]'s
//! (over [`crate::oci::layer`]); the update path over what is read here is [`crate::olm::resolve`]'s.
//! See operator-registry `alpha/declcfg` (`declcfg.go`, `load.go`).

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine;
use serde::Deserialize;
use serde_json::Value;

use super::servable::{self, Facts, Refusal};

/// The image config label naming the folder of a catalog's configs.
pub const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
/// The label of an index image with a SQLite database (no file-based configs).
pub const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";

/// A malformed catalog file, named with the line of the document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("catalog file {file} line {line}: {message}")]
pub struct CatalogError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// An API group/version/kind, as in `olm.gvk` and `olm.gvk.required`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
pub struct Gvk {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
}

/// An `olm.package.required` property.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequiredPackage {
    pub package_name: String,
    #[serde(default)]
    pub version_range: String,
}

/// One `relatedImages` entry of a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct RelatedImage {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub image: String,
}

/// Where a bundle's CSV was read from in the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CsvSource {
    /// An `olm.bundle.object` property holding the CSV: its deployments are known.
    BundleObject,
    /// Only `olm.csv.metadata`: the deployments are in the bundle image's
    /// manifests, which could not be read (the hop says why).
    CsvMetadata,
    /// The CSV read from the bundle image's manifests folder, as OLM's
    /// unpack Job reads it (the catalog had only `olm.csv.metadata`, or nothing).
    BundleImage,
    /// Neither.
    None,
}

/// An `olm.bundle` of a wanted package.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Bundle {
    pub name: String,
    pub package: String,
    pub image: String,
    /// The `olm.package` property's version, as written.
    pub version: Option<String>,
    pub related_images: Vec<RelatedImage>,
    pub provided_gvks: Vec<Gvk>,
    pub required_packages: Vec<RequiredPackage>,
    pub required_gvks: Vec<Gvk>,
    /// The images of the CSV's deployments (containers and init containers).
    pub deployment_images: Vec<String>,
    pub csv_source: CsvSource,
}

/// What any bundle of the catalog offers to a dependency.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Provider {
    pub package: String,
    pub name: String,
    pub version: Option<String>,
    pub gvks: Vec<Gvk>,
    /// The bundle's own requirements: what reading its package in full
    /// would ask for next ([`crate::olm::deps::packages_to_read`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_packages: Vec<RequiredPackage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required_gvks: Vec<Gvk>,
}

/// One entry of an `olm.channel`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelEntry {
    pub name: String,
    #[serde(default)]
    pub replaces: Option<String>,
    #[serde(default)]
    pub skips: Vec<String>,
    #[serde(default)]
    pub skip_range: Option<String>,
}

/// A wanted package: its default channel, channels and bundles.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub default_channel: Option<String>,
    pub channels: BTreeMap<String, Vec<ChannelEntry>>,
    pub bundles: BTreeMap<String, Bundle>,
    /// The bundles its `olm.deprecations` entries name (schema `olm.bundle`):
    /// OLM v1 resolves them last.
    #[serde(default)]
    pub deprecated_bundles: BTreeSet<String>,
}

/// What one file contributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileContent {
    /// The file's name, as given to [`read_file`].
    file: String,
    /// What of every package opm's checks need ([`servable`]).
    facts: Facts,
    packages: Vec<(String, Option<String>)>,
    channels: Vec<(String, String, Vec<ChannelEntry>)>,
    bundles: Vec<Bundle>,
    providers: Vec<Provider>,
    deprecations: Vec<(String, Vec<String>)>,
}

/// The wanted packages of a catalog, and every bundle's offer.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Catalog {
    pub packages: BTreeMap<String, Package>,
    pub providers: Vec<Provider>,
    /// Why the registry pod's `opm serve` cannot serve the catalog, when it
    /// cannot ([`servable::check`]): OLM then lists none of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Refusal>,
}

impl Catalog {
    /// The catalog of the files' contents, in walk order.
    pub fn assemble(files: impl IntoIterator<Item = FileContent>) -> Catalog {
        let mut catalog = Catalog::default();
        let mut facts = Vec::new();
        for file in files {
            facts.push((file.file, file.facts));
            for (name, default_channel) in file.packages {
                let p = catalog.package_mut(&name);
                p.default_channel = default_channel;
            }
            for (package, channel, entries) in file.channels {
                let p = catalog.package_mut(&package);
                p.channels.entry(channel).or_default().extend(entries);
            }
            for b in file.bundles {
                let p = catalog.package_mut(&b.package);
                p.bundles.insert(b.name.clone(), b);
            }
            catalog.providers.extend(file.providers);
            for (package, bundles) in file.deprecations {
                let p = catalog.package_mut(&package);
                p.deprecated_bundles.extend(bundles);
            }
        }
        let named: Vec<(&str, &Facts)> = facts.iter().map(|(f, x)| (f.as_str(), x)).collect();
        catalog.refused = servable::check(&named);
        catalog
    }

    fn package_mut(&mut self, name: &str) -> &mut Package {
        self.packages
            .entry(name.to_string())
            .or_insert_with(|| Package {
                name: name.to_string(),
                ..Package::default()
            })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PackageMeta {
    name: String,
    #[serde(default)]
    default_channel: Option<String>,
}

#[derive(Deserialize)]
struct ChannelMeta {
    package: String,
    name: String,
    #[serde(default)]
    entries: Vec<ChannelEntry>,
}

#[derive(Deserialize)]
struct DeprecationsMeta {
    package: String,
    #[serde(default)]
    entries: Vec<DeprecationEntry>,
}

#[derive(Deserialize)]
struct DeprecationEntry {
    #[serde(default)]
    reference: DeprecationReference,
}

#[derive(Default, Deserialize)]
struct DeprecationReference {
    #[serde(default)]
    schema: String,
    #[serde(default)]
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BundleMeta {
    name: String,
    package: String,
    #[serde(default)]
    image: String,
    #[serde(default)]
    related_images: Vec<RelatedImage>,
    #[serde(default)]
    properties: Vec<Property>,
}

#[derive(Deserialize)]
struct Property {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    value: Value,
}

/// Reads one catalog file (`name` for messages), keeping the packages
/// `wanted` accepts.
pub fn read_file(
    name: &str,
    text: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<FileContent, CatalogError> {
    let docs = crate::decode::split_yaml_or_json_stream(name, text).map_err(|e| {
        let line = match &e {
            crate::decode::SourceError::Json { line, .. }
            | crate::decode::SourceError::Yaml { line, .. } => *line,
            _ => 0,
        };
        CatalogError {
            file: name.to_string(),
            line,
            message: e.to_string(),
        }
    })?;
    let mut content = FileContent {
        file: name.to_string(),
        ..FileContent::default()
    };
    for (_, line, doc) in docs {
        let fail = |message: String| CatalogError {
            file: name.to_string(),
            line,
            message,
        };
        read_meta(doc, wanted, &mut content).map_err(fail)?;
    }
    Ok(content)
}

fn read_meta(
    doc: Value,
    wanted: &dyn Fn(&str) -> bool,
    content: &mut FileContent,
) -> Result<(), String> {
    let of = |key: &str| {
        doc.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let schema = of("schema");
    let schema = schema.as_str();
    match schema {
        "olm.package" => content.facts.package(&doc),
        "olm.channel" => content.facts.channel(&doc),
        _ => {}
    }
    match schema {
        "olm.package" if wanted(&of("name")) => {
            let m: PackageMeta = typed(doc, schema)?;
            content.packages.push((m.name, m.default_channel));
        }
        "olm.channel" if wanted(&of("package")) => {
            let m: ChannelMeta = typed(doc, schema)?;
            content.channels.push((m.package, m.name, m.entries));
        }
        "olm.deprecations" if wanted(&of("package")) => {
            let m: DeprecationsMeta = typed(doc, schema)?;
            let bundles = m
                .entries
                .into_iter()
                .filter(|e| e.reference.schema == "olm.bundle")
                .map(|e| e.reference.name)
                .collect();
            content.deprecations.push((m.package, bundles));
        }
        "olm.bundle" => {
            let keep = wanted(&of("package"));
            let m: BundleMeta = typed(doc, schema)?;
            content.facts.bundle(
                &m.name,
                &m.package,
                &m.image,
                m.related_images.iter().map(|r| r.image.as_str()),
                m.properties.iter().map(|p| (p.kind.as_str(), &p.value)),
            );
            let b = bundle_of(m)?;
            content.providers.push(Provider {
                package: b.package.clone(),
                name: b.name.clone(),
                version: b.version.clone(),
                gvks: b.provided_gvks.clone(),
                required_packages: b.required_packages.clone(),
                required_gvks: b.required_gvks.clone(),
            });
            if keep {
                content.bundles.push(b);
            }
        }
        _ => {}
    }
    Ok(())
}

fn typed<T: serde::de::DeserializeOwned>(doc: Value, schema: &str) -> Result<T, String> {
    serde_json::from_value(doc).map_err(|e| format!("{schema}: {e}"))
}

fn bundle_of(m: BundleMeta) -> Result<Bundle, String> {
    let mut b = Bundle {
        name: m.name,
        package: m.package,
        image: m.image,
        version: None,
        related_images: m.related_images,
        provided_gvks: Vec::new(),
        required_packages: Vec::new(),
        required_gvks: Vec::new(),
        deployment_images: Vec::new(),
        csv_source: CsvSource::None,
    };
    for p in m.properties {
        let at = |e: serde_json::Error| format!("bundle {:?} property {}: {e}", b.name, p.kind);
        match p.kind.as_str() {
            "olm.package" => {
                let v: PackageProperty = serde_json::from_value(p.value.clone()).map_err(at)?;
                b.version = Some(v.version);
            }
            "olm.gvk" => b
                .provided_gvks
                .push(serde_json::from_value(p.value.clone()).map_err(at)?),
            "olm.gvk.required" => b
                .required_gvks
                .push(serde_json::from_value(p.value.clone()).map_err(at)?),
            "olm.package.required" => b
                .required_packages
                .push(serde_json::from_value(p.value.clone()).map_err(at)?),
            "olm.bundle.object" => {
                if let Some(images) = csv_images(&p.value) {
                    b.deployment_images.extend(images);
                    b.csv_source = CsvSource::BundleObject;
                }
            }
            "olm.csv.metadata" if b.csv_source == CsvSource::None => {
                b.csv_source = CsvSource::CsvMetadata;
            }
            _ => {}
        }
    }
    Ok(b)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PackageProperty {
    #[serde(default)]
    version: String,
}

/// The deployment images of a CSV held in an `olm.bundle.object`
/// (`{"data": base64 of the object}`); `None` when the object is not a CSV.
fn csv_images(value: &Value) -> Option<Vec<String>> {
    let data = value.get("data")?.as_str()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    let object: Value = serde_json::from_slice(&bytes)
        .ok()
        .or_else(|| serde_saphyr::from_slice(&bytes).ok())?;
    deployment_images(&object)
}

/// The images of a ClusterServiceVersion's deployments
/// (`spec.install.spec.deployments[].spec.template.spec`, init containers
/// first); `None` when `object` is not a CSV.
pub fn deployment_images(object: &Value) -> Option<Vec<String>> {
    if object.get("kind")?.as_str()? != "ClusterServiceVersion" {
        return None;
    }
    let deployments = object
        .pointer("/spec/install/spec/deployments")?
        .as_array()?;
    let mut images = Vec::new();
    for d in deployments {
        let pod = d.pointer("/spec/template/spec");
        for key in ["initContainers", "containers"] {
            let containers = pod.and_then(|p| p.get(key)).and_then(Value::as_array);
            for c in containers.into_iter().flatten() {
                if let Some(image) = c.get("image").and_then(Value::as_str) {
                    images.push(image.to_string());
                }
            }
        }
    }
    Some(images)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON_STREAM: &str = r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}
{"schema":"olm.channel","package":"etcd","name":"stable","entries":[
  {"name":"etcd.v0.9.2"},
  {"name":"etcd.v0.9.4","replaces":"etcd.v0.9.2","skips":["etcd.v0.9.3"],"skipRange":">=0.9.0 <0.9.4"}]}
{"schema":"olm.bundle","name":"etcd.v0.9.4","package":"etcd","image":"quay.io/etcd/bundle@sha256:aa",
 "relatedImages":[{"name":"operator","image":"quay.io/etcd/op:v0.9.4"}],
 "properties":[{"type":"olm.package","value":{"packageName":"etcd","version":"0.9.4"}},
  {"type":"olm.gvk","value":{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}},
  {"type":"olm.package.required","value":{"packageName":"cert","versionRange":">=1.0.0"}},
  {"type":"olm.csv.metadata","value":{"displayName":"etcd"}}]}
{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/o/b:1",
 "properties":[{"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}},
  {"type":"olm.gvk","value":{"group":"o.io","kind":"O","version":"v1"}}]}
{"schema":"olm.deprecations","package":"etcd","entries":[{"reference":{"schema":"olm.bundle","name":"etcd.v0.9.2"},"message":"use 0.9.4"},{"reference":{"schema":"olm.channel","name":"alpha"}}]}
"#;

    #[test]
    fn reads_a_json_stream_keeping_the_wanted_package() {
        let c = read_file("etcd.json", JSON_STREAM, &|p| p == "etcd").unwrap();
        let catalog = Catalog::assemble([c]);
        let etcd = &catalog.packages["etcd"];
        assert_eq!(etcd.default_channel.as_deref(), Some("stable"));
        assert_eq!(etcd.channels["stable"].len(), 2);
        let e = &etcd.channels["stable"][1];
        assert_eq!(e.replaces.as_deref(), Some("etcd.v0.9.2"));
        assert_eq!(e.skips, ["etcd.v0.9.3"]);
        assert_eq!(e.skip_range.as_deref(), Some(">=0.9.0 <0.9.4"));
        let b = &etcd.bundles["etcd.v0.9.4"];
        assert_eq!(b.version.as_deref(), Some("0.9.4"));
        assert_eq!(b.related_images[0].image, "quay.io/etcd/op:v0.9.4");
        assert_eq!(b.required_packages[0].package_name, "cert");
        assert_eq!(b.csv_source, CsvSource::CsvMetadata);
        assert_eq!(
            etcd.deprecated_bundles,
            BTreeSet::from(["etcd.v0.9.2".to_string()])
        );
        assert!(
            !catalog.packages.contains_key("other"),
            "unwanted package kept"
        );
        assert_eq!(catalog.providers.len(), 2, "every bundle offers its GVKs");
    }

    #[test]
    fn reads_a_yaml_multi_document_stream_with_a_bundle_object() {
        let csv = r#"{"kind":"ClusterServiceVersion","spec":{"install":{"spec":{"deployments":[{"spec":{"template":{"spec":{"initContainers":[{"image":"q.io/init@sha256:11"}],"containers":[{"image":"q.io/op@sha256:22"}]}}}}]}}}}"#;
        let data = base64::engine::general_purpose::STANDARD.encode(csv);
        let text = format!(
            "---\nschema: olm.package\nname: etcd\n---\nschema: olm.bundle\nname: etcd.v1.0.0\npackage: etcd\nimage: q.io/b:1\nproperties:\n- type: olm.bundle.object\n  value:\n    data: {data}\n- type: olm.gvk.required\n  value: {{group: a.io, version: v1, kind: A}}\n"
        );
        let c = read_file("etcd.yaml", &text, &|p| p == "etcd").unwrap();
        let b = &Catalog::assemble([c]).packages["etcd"].bundles["etcd.v1.0.0"];
        assert_eq!(
            b.deployment_images,
            ["q.io/init@sha256:11", "q.io/op@sha256:22"]
        );
        assert_eq!(b.csv_source, CsvSource::BundleObject);
        assert_eq!(b.required_gvks[0].kind, "A");
    }

    #[test]
    fn a_malformed_file_is_named_with_its_line() {
        for (name, text, line) in [
            ("a.json", "{\"schema\":\"olm.package\",\"name\":\"etcd\"}\n{\"schema\": oops}\n", 2),
            ("b.yaml", "schema: olm.package\nname: etcd\n---\nschema: olm.channel\npackage: etcd\nname: s\nentries: 7\n", 4),
            ("c.yaml", "schema: olm.bundle\nname: [\n", 2),
        ] {
            let e = read_file(name, text, &|p| p == "etcd").unwrap_err();
            assert_eq!((e.file.as_str(), e.line), (name, line), "{name}: {e}");
        }
    }
}
