//! A bundle image's ClusterServiceVersion, found as OLM's unpack Job finds
//! it, for the deployment images a catalog with only `olm.csv.metadata`
//! does not carry. The Job's `cpb` walks the image's file system for the
//! `annotations.yaml` whose `operators.operatorframework.io.bundle.manifests.v1`
//! annotation names the manifests folder (`/manifests` when none says; the
//! last one met in the walk's lexical order wins) and copies that folder;
//! `opm alpha bundle extract` puts each of its files in a ConfigMap, and
//! OLM's loader decodes each file (sorted by name) as one object, the last
//! `ClusterServiceVersion` being the bundle's CSV. See
//! operator-lifecycle-manager `util/cpb/main.go`, operator-registry
//! `pkg/configmap/configmap_writer.go` (`Populate`) and
//! `pkg/configmap/configmap.go` (`loadBundle`).
//!
//! The layers are walked by [`crate::oci::layer`] (whiteouts, compression);
//! the images of a CSV are [`crate::olm::catalog::deployment_images`].

use serde_json::Value;

use super::catalog;
use crate::oci::layer::{LayerSink, Layered};

/// The annotation (in `metadata/annotations.yaml`) naming the manifests folder.
pub const MANIFESTS_ANNOTATION: &str = "operators.operatorframework.io.bundle.manifests.v1";
/// The file `cpb` looks for.
pub const ANNOTATIONS_FILE: &str = "annotations.yaml";
/// The folder `cpb` copies when no `annotations.yaml` names one.
const DEFAULT_MANIFESTS: &str = "manifests";

/// What a file of the bundle image is to the unpack Job.
enum BundleFile {
    /// An `annotations.yaml`, with its text.
    Annotations(String),
    /// A file whose first object is a CSV: its deployment images, or why
    /// they could not be read.
    Csv(Result<Vec<String>, String>),
    /// Any other file.
    Other,
}

/// The bundle image's files as its layers build them (only what the unpack
/// Job reads is kept: annotations and CSVs).
#[derive(Default)]
pub struct BundleTree {
    files: Layered<BundleFile>,
}

/// The CSV of a bundle image and its deployment images.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleCsv {
    /// The manifests folder (from the root, as the annotation names it).
    pub folder: String,
    /// The file holding the CSV.
    pub file: String,
    pub images: Vec<String>,
}

impl LayerSink for BundleTree {
    fn next_layer(&mut self) {
        self.files.next_layer();
    }

    fn concerns(&self, _: &str) -> bool {
        // The manifests folder is known only once annotations.yaml is read.
        true
    }

    fn whiteout(&mut self, path: &str) {
        self.files.whiteout(path);
    }

    fn add(&mut self, path: &str, body: Vec<u8>) {
        let text = &String::from_utf8_lossy(&body);
        let name = path.rsplit('/').next().unwrap_or_default();
        let file = if name == ANNOTATIONS_FILE {
            BundleFile::Annotations(text.to_string())
        } else if text.contains("ClusterServiceVersion") {
            csv_file(text)
        } else {
            BundleFile::Other
        };
        self.files.insert(path, file);
    }
}

/// A file read as `registry.DecodeUnstructured` reads it: its first object.
fn csv_file(text: &str) -> BundleFile {
    let first = crate::decode::split_yaml_or_json_stream("", text)
        .ok()
        .and_then(|docs| docs.into_iter().next())
        .map(|(_, _, doc)| doc);
    let Some(object) = first else {
        return BundleFile::Other;
    };
    if object.get("kind").and_then(Value::as_str) != Some("ClusterServiceVersion") {
        return BundleFile::Other;
    }
    let images = catalog::deployment_images(&object)
        .ok_or_else(|| "its CSV has no spec.install.spec.deployments".to_string());
    BundleFile::Csv(images)
}

impl BundleTree {
    /// The bundle's CSV as the unpack Job and OLM read it, or why there is none.
    pub fn finish(self) -> Result<BundleCsv, String> {
        let mut files: Vec<(String, BundleFile)> = self.files.into_files().collect();
        // filepath.Walk's order: lexical, one path component at a time.
        files.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
        let mut folder = None;
        for (path, file) in &files {
            if let BundleFile::Annotations(text) = file {
                folder = Some(manifests_folder(path, text)?);
            }
        }
        let Some(folder) = folder else {
            return Err(format!("the bundle image has no {ANNOTATIONS_FILE}: OLM's unpack Job fails copying /metadata/{ANNOTATIONS_FILE}"));
        };
        let in_folder = |p: &str| p.rsplit_once('/').map_or("", |(f, _)| f) == folder;
        // loadBundle keeps the last CSV of the folder, in name order.
        let csv = files
            .into_iter()
            .rev()
            .filter(|(p, _)| in_folder(p))
            .find_map(|(p, f)| match f {
                BundleFile::Csv(images) => Some((p, images)),
                _ => None,
            });
        let Some((file, images)) = csv else {
            return Err(format!(
                "the bundle image's manifests folder /{folder} has no ClusterServiceVersion"
            ));
        };
        let images = images.map_err(|e| format!("/{file}: {e}"))?;
        Ok(BundleCsv {
            folder,
            file,
            images,
        })
    }
}

/// The manifests folder an `annotations.yaml` names (normalized, from the root).
fn manifests_folder(path: &str, text: &str) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct File {
        annotations: Option<std::collections::BTreeMap<String, String>>,
    }
    let parsed: File = serde_saphyr::from_str(text)
        .map_err(|e| format!("/{path}: {e}: OLM's unpack Job fails"))?;
    let annotations = parsed
        .annotations
        .ok_or_else(|| format!("/{path} has no annotations: OLM's unpack Job fails"))?;
    let folder = annotations
        .get(MANIFESTS_ANNOTATION)
        .map_or(DEFAULT_MANIFESTS, String::as_str);
    Ok(folder
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANNOTATIONS: &str = "annotations:\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n";

    fn csv(image: &str) -> String {
        format!("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: etcd.v1\nspec:\n  install:\n    strategy: deployment\n    spec:\n      deployments:\n      - name: op\n        spec:\n          template:\n            spec:\n              containers:\n              - name: op\n                image: {image}\n")
    }

    fn tree(files: &[(&str, &str)]) -> BundleTree {
        let mut t = BundleTree::default();
        for (p, text) in files {
            t.add(p, text.as_bytes().to_vec());
        }
        t
    }

    #[test]
    fn the_csv_of_the_folder_the_annotations_name() {
        let t = tree(&[
            ("metadata/annotations.yaml", ANNOTATIONS),
            (
                "manifests/etcd.clusterserviceversion.yaml",
                &csv("q.io/op@sha256:1"),
            ),
            (
                "manifests/etcd.crd.yaml",
                "kind: CustomResourceDefinition\n",
            ),
            ("other/x.clusterserviceversion.yaml", &csv("q.io/wrong:1")),
        ]);
        let got = t.finish().unwrap();
        assert_eq!(got.images, ["q.io/op@sha256:1"]);
        assert_eq!(got.file, "manifests/etcd.clusterserviceversion.yaml");
        let renamed = ANNOTATIONS.replace("manifests/", "/deploy/");
        let t = tree(&[
            ("metadata/annotations.yaml", &renamed),
            ("manifests/a.yaml", &csv("q.io/wrong:1")),
            ("deploy/a.json", &csv("q.io/op:2")),
        ]);
        assert_eq!(t.finish().unwrap().images, ["q.io/op:2"]);
    }

    /// cpb: the last annotations.yaml of the walk wins; none at all fails
    /// the Job; the default folder is /manifests; loadBundle: the last CSV
    /// in name order wins, and a file's first object is what counts.
    #[test]
    fn cpb_and_load_bundle_rules() {
        let other = ANNOTATIONS.replace("manifests/", "z/");
        let t = tree(&[
            ("metadata/annotations.yaml", ANNOTATIONS),
            ("x/annotations.yaml", &other),
            ("z/b.yaml", &csv("q.io/z:1")),
            ("manifests/a.yaml", &csv("q.io/m:1")),
        ]);
        assert_eq!(t.finish().unwrap().images, ["q.io/z:1"]);
        let t = tree(&[("manifests/a.yaml", &csv("q.io/m:1"))]);
        assert!(t.finish().unwrap_err().contains("no annotations.yaml"));
        let t = tree(&[
            ("metadata/annotations.yaml", "annotations: {}\n"),
            ("manifests/a.yaml", &csv("q.io/a:1")),
            ("manifests/b.yaml", &csv("q.io/b:1")),
            (
                "manifests/c.yaml",
                &format!("kind: Service\n---\n{}", csv("q.io/c:1")),
            ),
        ]);
        assert_eq!(t.finish().unwrap().images, ["q.io/b:1"]);
        let t = tree(&[("metadata/annotations.yaml", ANNOTATIONS)]);
        assert!(t
            .finish()
            .unwrap_err()
            .contains("has no ClusterServiceVersion"));
    }

    #[test]
    fn a_whiteout_removes_the_csv() {
        let mut t = tree(&[
            ("metadata/annotations.yaml", ANNOTATIONS),
            ("manifests/a.yaml", &csv("q.io/a:1")),
        ]);
        t.next_layer();
        t.whiteout("manifests/.wh.a.yaml");
        assert!(t.finish().is_err());
    }
}
