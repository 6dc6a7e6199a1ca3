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
//! Only what the Job reads is read: the `annotations.yaml` files and the
//! files of the manifests folder (`manifests/`, and every folder an
//! `annotations.yaml` read so far names; when the one that decides names a
//! folder whose files had passed by, the image is read again for it), each
//! file at most [`fs::MAX_FILE_BYTES`] and all of them at most
//! [`MAX_TOTAL_BYTES`].
//!
//! The layers are walked by [`crate::oci::layer`] (whiteouts, compression);
//! the images of a CSV are [`crate::olm::catalog::deployment_images`].

use std::collections::BTreeSet;

use serde_json::Value;

use super::{catalog, fs};
use crate::oci::layer::{normalize, parent, Budget, LayerSink, Layered};

/// The annotation (in `metadata/annotations.yaml`) naming the manifests folder.
pub const MANIFESTS_ANNOTATION: &str = "operators.operatorframework.io.bundle.manifests.v1";
/// The file `cpb` looks for.
pub const ANNOTATIONS_FILE: &str = "annotations.yaml";
/// The folder `cpb` copies when no `annotations.yaml` names one.
const DEFAULT_MANIFESTS: &str = "manifests";
/// The most of a bundle image's files read in all (the `annotations.yaml`
/// files and the manifests folder's). OLM's unpack Job puts the manifests
/// in a ConfigMap of at most 1 MiB of gzip-compressed, base64-encoded data
/// (`opm alpha bundle extract --datalimit`, operator-registry
/// `pkg/configmap/configmap_writer.go`), which 1 GiB of files never fits
/// (gzip compresses at most about 1,032 to 1): past this cap the bundle is
/// left unread.
pub const MAX_TOTAL_BYTES: u64 = 1 << 30;

/// What a file of the bundle image is to the unpack Job.
enum BundleFile {
    /// An `annotations.yaml`: the manifests folder it names, or why the
    /// unpack Job fails on it (read once, as it streams by).
    Annotations(Result<String, String>),
    /// A file whose first object is a CSV: its deployment images, or why
    /// they could not be read.
    Csv(Result<Vec<String>, String>),
    /// Any other file.
    Other,
}

/// The bundle image's files as its layers build them (only what the unpack
/// Job reads is read, and of it only annotations and CSVs kept).
pub struct BundleTree {
    files: Layered<BundleFile>,
    /// The folders whose files are read.
    folders: BTreeSet<String>,
    /// The folders of regular files passed over (not named yet when they passed).
    passed: BTreeSet<String>,
}

impl Default for BundleTree {
    fn default() -> Self {
        BundleTree::for_folder(DEFAULT_MANIFESTS)
    }
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

    fn concerns(&mut self, path: &str) -> bool {
        let p = normalize(path);
        if p.rsplit('/').next() == Some(ANNOTATIONS_FILE) {
            return true;
        }
        let folder = parent(&p);
        if self.folders.contains(folder) {
            return true;
        }
        self.passed.insert(folder.to_string());
        false
    }

    fn whiteout(&mut self, path: &str) {
        self.files.whiteout(path);
    }

    fn add(&mut self, path: &str, body: Vec<u8>) {
        let text = &String::from_utf8_lossy(&body);
        let name = path.rsplit('/').next().unwrap_or_default();
        let file = if name == ANNOTATIONS_FILE {
            let folder = manifests_folder(&normalize(path), text);
            if let Ok(f) = &folder {
                self.folders.insert(f.clone());
            }
            BundleFile::Annotations(folder)
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
    /// A tree that reads the files of `folder` from the first layer (and
    /// those of the folders the `annotations.yaml` files name, from when
    /// they are read).
    pub fn for_folder(folder: &str) -> BundleTree {
        BundleTree {
            files: Layered::default(),
            folders: BTreeSet::from([normalize(folder)]),
            passed: BTreeSet::new(),
        }
    }

    /// What a bundle image's files are read within: [`fs::MAX_FILE_BYTES`]
    /// each, [`MAX_TOTAL_BYTES`] in all.
    pub fn budget() -> Budget {
        Budget::per_file(fs::MAX_FILE_BYTES).with_total(MAX_TOTAL_BYTES)
    }

    /// The manifests folder the unpack Job copies, when files of it passed
    /// by before an `annotations.yaml` named it: the image is to be read
    /// again with [`BundleTree::for_folder`].
    pub fn folder_missed(&self) -> Option<String> {
        let folder = self.deciding_folder().ok().flatten()?;
        self.passed.contains(&folder).then_some(folder)
    }

    /// The manifests folder the last `annotations.yaml` of the walk names
    /// (`cpb` stops at the first it cannot read).
    fn deciding_folder(&self) -> Result<Option<String>, String> {
        let mut annotations: Vec<(&str, &Result<String, String>)> = Vec::new();
        for (path, file) in self.files.files() {
            if let BundleFile::Annotations(folder) = file {
                annotations.push((path, folder));
            }
        }
        walk_order(&mut annotations);
        let mut folder = None;
        for (_, named) in annotations {
            folder = Some(named.clone()?);
        }
        Ok(folder)
    }

    /// The bundle's CSV as the unpack Job and OLM read it, or why there is none.
    pub fn finish(self) -> Result<BundleCsv, String> {
        let folder = self.deciding_folder();
        let mut files: Vec<(String, BundleFile)> = self.files.into_files().collect();
        walk_order(&mut files);
        let folder = folder?;
        let Some(folder) = folder else {
            return Err(format!("the bundle image has no {ANNOTATIONS_FILE}: OLM's unpack Job fails copying /metadata/{ANNOTATIONS_FILE}"));
        };
        let in_folder = |p: &str| parent(p) == folder;
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

/// filepath.Walk's order: lexical, one path component at a time.
fn walk_order<K: AsRef<str>, V>(files: &mut [(K, V)]) {
    files.sort_by(|a, b| a.0.as_ref().split('/').cmp(b.0.as_ref().split('/')));
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

    /// The files through the tree as the layer walk hands them over.
    fn read(mut t: BundleTree, files: &[(&str, &str)]) -> BundleTree {
        for (p, text) in files {
            if t.concerns(p) {
                t.add(p, text.as_bytes().to_vec());
            }
        }
        t
    }

    fn tree(files: &[(&str, &str)]) -> BundleTree {
        read(BundleTree::default(), files)
    }

    /// Only the annotations and the manifests folder are read; a folder
    /// named after its files passed by is read again for.
    #[test]
    fn only_what_the_unpack_job_reads_is_read() {
        let deploy = ANNOTATIONS.replace("manifests/", "deploy/");
        let files = [
            ("deploy/a.yaml", csv("q.io/op:1")),
            ("other/big.bin", "x".repeat(64)),
            ("metadata/annotations.yaml", deploy),
        ];
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let first = tree(&files);
        assert_eq!(first.folder_missed().as_deref(), Some("deploy"));
        let again = read(BundleTree::for_folder("deploy"), &files);
        assert_eq!(again.folder_missed(), None);
        assert_eq!(again.finish().unwrap().images, ["q.io/op:1"]);
        let mut t = BundleTree::default();
        assert!(!t.concerns("other/big.bin") && !t.concerns("manifests/sub/x.yaml"));
        assert!(t.concerns("./manifests/a.yaml") && t.concerns("x/y/annotations.yaml"));
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
