//! `operator-check` through the built binary: a generated file-based
//! catalog image (config label, a gzip base layer, a plain-tar `/configs`
//! layer with a JSON-stream file, a YAML multi-document file and an
//! `.indexignore`, then a layer whiting out a broken file), bundle and
//! related images on a loopback mirror, and the cluster's Subscription,
//! CatalogSource, CSV and mirror sets from files.

use crate::support;

use std::path::PathBuf;

use base64::Engine;
use serde_json::Value;
use tempfile::TempDir;

use support::apiserver::Builder as ApiBuilder;
use support::layers::{gzip, tar};
use support::registry::{digest_of, manifest_body, Builder, FakeRegistry};

pub(crate) const CATALOG_REPO: &str = "redhat/etcd-index";
pub(crate) const BUNDLE_SOURCE: &str = "quay.io/etcd/etcd-bundle";
const OPERATOR_SOURCE: &str = "quay.io/etcd/etcd-operator";
const OPERAND_SOURCE: &str = "quay.io/etcd/etcd";
const BACKUP_SOURCE: &str = "quay.io/etcd/etcd-backup";

/// The digest of a small image named `seed` (its manifest is [`manifest_body`]).
pub(crate) fn image_digest(seed: &str) -> String {
    digest_of(&manifest_body(seed))
}

fn sha256(body: &[u8]) -> String {
    crate::support::registry::digest_of_bytes(body)
}

/// The init container of etcd.v0.9.2's CSV, only in its bundle image.
const INIT_SOURCE: &str = "quay.io/etcd/etcd-init";

/// A bundle image as operator-sdk builds it: a config with the bundle
/// labels, one gzip layer with `metadata/annotations.yaml` and the CSV in
/// `manifests/` (its deployment runs the operator of its version and, for
/// etcd.v0.9.2, an init container no relatedImage names). Its manifest and
/// blobs (the config first).
pub(crate) fn bundle_image(csv: &str) -> (String, Vec<Vec<u8>>) {
    let version = csv.trim_start_matches("etcd.v");
    let operator = format!(
        "{OPERATOR_SOURCE}@{}",
        image_digest(&format!("operator-{version}"))
    );
    let init = if csv == "etcd.v0.9.2" {
        format!(
            "\n              initContainers:\n              - name: init\n                image: {INIT_SOURCE}@{}",
            image_digest("init-0.9.2")
        )
    } else {
        String::new()
    };
    let manifest_csv = format!(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {csv}\nspec:\n  version: {version}\n  install:\n    strategy: deployment\n    spec:\n      deployments:\n      - name: etcd-operator\n        spec:\n          template:\n            spec:{init}\n              containers:\n              - name: etcd-operator\n                image: {operator}\n"
    );
    let annotations = "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: etcd\n";
    let layer = gzip(&tar(&[
        ("manifests/etcd.clusterserviceversion.yaml", &manifest_csv),
        (
            "manifests/etcdclusters.crd.yaml",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n",
        ),
        ("metadata/annotations.yaml", annotations),
    ]));
    let config = r#"{"architecture":"amd64","os":"linux","config":{"Labels":{"operators.operatorframework.io.bundle.manifests.v1":"manifests/"}}}"#;
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{}","size":{}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{}","size":{}}}]}}"#,
        sha256(config.as_bytes()),
        config.len(),
        sha256(&layer),
        layer.len()
    );
    (manifest, vec![config.as_bytes().to_vec(), layer])
}

pub(crate) fn bundle_digest(csv: &str) -> String {
    digest_of(&bundle_image(csv).0)
}

/// The bundles of package etcd: `(csv, version, seed of its bundle image)`.
pub(crate) const BUNDLES: &[(&str, &str)] = &[
    ("etcd.v0.9.0", "0.9.0"),
    ("etcd.v0.9.2", "0.9.2"),
    ("etcd.v0.9.4", "0.9.4"),
];

/// The catalog files: package and channel as a JSON stream, the bundles as
/// a YAML multi-document stream (one with the CSV as an `olm.bundle.object`),
/// another package, an ignored README and an ignored broken file.
pub(crate) fn catalog_files(backup: &str) -> Vec<(String, String)> {
    let channel = r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}
{"schema":"olm.channel","package":"etcd","name":"stable","entries":[
 {"name":"etcd.v0.9.0"},
 {"name":"etcd.v0.9.2","replaces":"etcd.v0.9.0"},
 {"name":"etcd.v0.9.4","replaces":"etcd.v0.9.2","skipRange":">=0.9.1 <0.9.4"}]}
"#;
    let operator = format!("{OPERATOR_SOURCE}@{}", image_digest("operator-0.9.4"));
    let csv = format!(
        r#"{{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{{"name":"etcd.v0.9.4"}},"spec":{{"install":{{"strategy":"deployment","spec":{{"deployments":[{{"name":"etcd-operator","spec":{{"template":{{"spec":{{"containers":[{{"name":"etcd-operator","image":"{operator}"}}]}}}}}}}}]}}}}}}}}"#
    );
    let object = base64::engine::general_purpose::STANDARD.encode(csv);
    let mut bundles = String::new();
    for (csv, version) in BUNDLES {
        let bundle = format!("{BUNDLE_SOURCE}@{}", digest_of(&bundle_image(csv).0));
        bundles.push_str(&format!(
            "---\nschema: olm.bundle\nname: {csv}\npackage: etcd\nimage: {bundle}\nproperties:\n- type: olm.package\n  value:\n    packageName: etcd\n    version: {version}\n- type: olm.gvk\n  value: {{group: etcd.database.coreos.com, kind: EtcdCluster, version: v1beta2}}\n"
        ));
        if *csv == "etcd.v0.9.4" {
            bundles.push_str(&format!(
                "- type: olm.package.required\n  value: {{packageName: etcd-tools, versionRange: '<2.0.0'}}\n- type: olm.bundle.object\n  value:\n    data: {object}\nrelatedImages:\n- name: operator\n  image: {operator}\n- name: etcd\n  image: {OPERAND_SOURCE}@{}\n- name: backup\n  image: {backup}\n- name: bundle\n  image: {bundle}\n",
                image_digest("etcd-3.5")
            ));
        } else {
            bundles.push_str(&format!(
                "- type: olm.csv.metadata\n  value: {{displayName: etcd}}\nrelatedImages:\n- name: operator\n  image: {OPERATOR_SOURCE}@{}\n",
                image_digest(&format!("operator-{version}"))
            ));
        }
    }
    let other = r#"{"schema":"olm.package","name":"other","defaultChannel":"stable"}
{"schema":"olm.channel","package":"other","name":"stable","entries":[{"name":"other.v1.0.0"}]}
{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/other/bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000","properties":[{"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}}]}
"#;
    vec![
        ("configs/etcd/catalog.json".into(), channel.into()),
        ("configs/etcd-tools/catalog.json".into(), tools_catalog()),
        ("configs/etcd/bundles.yaml".into(), bundles),
        ("configs/other/catalog.json".into(), other.into()),
        ("configs/.indexignore".into(), "*.md\n/scratch\n".into()),
        ("configs/README.md".into(), "# {not a catalog".into()),
        ("configs/scratch/broken.json".into(), "{\"schema\":".into()),
        (
            "configs/old/catalog.json".into(),
            "{\"schema\": oops".into(),
        ),
    ]
}

pub(crate) const TOOLS_BUNDLE_SOURCE: &str = "quay.io/etcd/etcd-tools-bundle";
const TOOLS_SOURCE: &str = "quay.io/etcd/etcd-tools";

/// Package etcd-tools, which etcd.v0.9.4 requires below 2.0.0: three
/// bundles in one channel, each with its CSV as an `olm.bundle.object`.
pub(crate) fn tools_catalog() -> String {
    let mut text = String::from(
        r#"{"schema":"olm.package","name":"etcd-tools","defaultChannel":"stable"}
{"schema":"olm.channel","package":"etcd-tools","name":"stable","entries":[{"name":"etcd-tools.v1.0.0"},{"name":"etcd-tools.v1.1.0","replaces":"etcd-tools.v1.0.0"},{"name":"etcd-tools.v2.0.0","replaces":"etcd-tools.v1.1.0"}]}
"#,
    );
    for version in ["1.0.0", "1.1.0", "2.0.0"] {
        let operator = format!(
            "{TOOLS_SOURCE}@{}",
            image_digest(&format!("tools-{version}"))
        );
        let csv = format!(
            r#"{{"kind":"ClusterServiceVersion","spec":{{"install":{{"spec":{{"deployments":[{{"spec":{{"template":{{"spec":{{"containers":[{{"image":"{operator}"}}]}}}}}}}}]}}}}}}}}"#
        );
        let object = base64::engine::general_purpose::STANDARD.encode(csv);
        text.push_str(&format!(
            r#"{{"schema":"olm.bundle","name":"etcd-tools.v{version}","package":"etcd-tools","image":"{TOOLS_BUNDLE_SOURCE}@{}","properties":[{{"type":"olm.package","value":{{"packageName":"etcd-tools","version":"{version}"}}}},{{"type":"olm.bundle.object","value":{{"data":"{object}"}}}}]}}
"#,
            image_digest(&format!("tools-bundle-{version}"))
        ));
    }
    text
}

/// The manifest of a catalog image (its blobs stored) whose configs are `files`: a gzip
/// base layer, the configs as a plain tar, then a gzip layer with the
/// operator's cache and a whiteout of `configs/old/catalog.json`.
pub(crate) fn push_catalog(
    b: &mut Builder,
    files: &[(String, String)],
    label: Option<&str>,
) -> String {
    push_catalog_with(b, files, label, |t| t)
}

/// [`push_catalog`] with the configs layer made by `compress` of its tar.
fn push_catalog_with(
    b: &mut Builder,
    files: &[(String, String)],
    label: Option<&str>,
    compress: impl Fn(Vec<u8>) -> Vec<u8>,
) -> String {
    let base = gzip(&tar(&[("bin/opm", "binary")]));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let configs = compress(tar(&borrowed));
    let cache = gzip(&tar(&[
        ("tmp/cache/cache.json", "{}"),
        ("configs/old/.wh.catalog.json", ""),
    ]));
    let labels = match label {
        Some(l) => format!(r#"{{"{l}":"/configs"}}"#),
        None => "{}".to_string(),
    };
    let config =
        format!(r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{labels}}}}}"#);
    let config_digest = b.blob(CATALOG_REPO, config.as_bytes());
    let layers: Vec<String> = [base, configs, cache]
        .iter()
        .map(|l| {
            let d = b.blob(CATALOG_REPO, l);
            format!(r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{d}","size":{}}}"#, l.len())
        })
        .collect();
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{}]}}"#,
        config.len(),
        layers.join(",")
    );
    manifest
}

pub(crate) const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";

/// A mirror with the catalog (`v4.21`; `broken` with a malformed file;
/// `plain` without the label) and every image but the bundles of `missing`.
pub(crate) fn mirror(missing: &[&str], backup: &str) -> FakeRegistry {
    mirror_with(missing, backup, &[])
}

/// [`mirror`] with more catalog tags, each the catalog of its files.
pub(crate) fn mirror_with(
    missing: &[&str],
    backup: &str,
    tags: &[(&str, Vec<(String, String)>)],
) -> FakeRegistry {
    mirror_builder(missing, backup, tags).0.start()
}

/// [`mirror_with`] before it starts, and the manifests of `tags`' catalogs.
fn mirror_builder(
    missing: &[&str],
    backup: &str,
    tags: &[(&str, Vec<(String, String)>)],
) -> (Builder, Vec<String>) {
    let mut b = Builder::new();
    let more: Vec<(&str, String)> = tags
        .iter()
        .map(|(tag, files)| (*tag, push_catalog(&mut b, files, Some(CONFIGS_LABEL))))
        .collect();
    let good = push_catalog(&mut b, &catalog_files(backup), Some(CONFIGS_LABEL));
    let mut broken_files = catalog_files(backup);
    broken_files.push((
        "configs/etcd/zz.yaml".into(),
        "schema: olm.channel\npackage: etcd\nname: fast\nentries: 7\n".into(),
    ));
    let broken = push_catalog(&mut b, &broken_files, Some(CONFIGS_LABEL));
    let plain = push_catalog(&mut b, &catalog_files(backup), None);
    let sqlite = push_catalog(&mut b, &catalog_files(backup), Some(DATABASE_LABEL));
    let zstd = push_catalog_with(&mut b, &catalog_files(backup), Some(CONFIGS_LABEL), |t| {
        ruzstd::encoding::compress_to_vec(&t[..], ruzstd::encoding::CompressionLevel::Fastest)
    });
    let mut b = b
        .manifest(CATALOG_REPO, Some("v4.21"), &good)
        .manifest(CATALOG_REPO, Some("broken"), &broken)
        .manifest(CATALOG_REPO, Some("plain"), &plain)
        .manifest(CATALOG_REPO, Some("sqlite"), &sqlite)
        .manifest(CATALOG_REPO, Some("zstd"), &zstd);
    for (tag, manifest) in &more {
        b = b.manifest(CATALOG_REPO, Some(tag), manifest);
    }
    for (csv, version) in BUNDLES {
        if !missing.contains(csv) {
            let (manifest, blobs) = bundle_image(csv);
            for blob in blobs {
                b.blob("etcd/etcd-bundle", &blob);
            }
            b = b.manifest("etcd/etcd-bundle", None, &manifest);
        }
        b = b.manifest(
            "etcd/etcd-operator",
            None,
            &manifest_body(&format!("operator-{version}")),
        );
    }
    let b = b
        .manifest("etcd/etcd", None, &manifest_body("etcd-3.5"))
        .manifest("etcd/etcd-init", None, &manifest_body("init-0.9.2"))
        .manifest(
            "etcd/etcd-tools-bundle",
            None,
            &manifest_body("tools-bundle-1.1.0"),
        )
        .manifest("etcd/etcd-tools", None, &manifest_body("tools-1.1.0"))
        .manifest("etcd/etcd-backup", None, &manifest_body("backup-0.9.4"));
    (b, more.into_iter().map(|(_, m)| m).collect())
}

/// The cluster: oc-mirror's IDMS for quay.io/etcd (digest-only, the source
/// never contacted), the CatalogSource it writes (the catalog on the
/// mirror), a Subscription on etcd.v0.9.0, the CSV of etcd.v0.9.1 and the
/// namespace's OperatorGroup.
pub(crate) fn cluster(host: &str, installed: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/etcd\n    mirrors: [{host}/etcd]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: cs-etcd-index-v4-21, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {host}/{CATALOG_REPO}:v4.21\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: etcd, namespace: operators}}\nspec:\n  name: etcd\n  channel: stable\n  source: cs-etcd-index-v4-21\n  sourceNamespace: openshift-marketplace\n  installPlanApproval: Manual\nstatus:\n  installedCSV: {installed}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {{name: etcd.v0.9.1, namespace: operators}}\nspec:\n  version: 0.9.1\n---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {{name: operators, namespace: operators}}\nspec: {{}}\n"
    )
}

pub(crate) struct Setup {
    pub(crate) dir: TempDir,
    pub(crate) certs: PathBuf,
    pub(crate) host: String,
}

impl Setup {
    pub(crate) fn new(r: &FakeRegistry) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).expect("certs");
        r.write_ca(&certs, "mirror");
        Setup {
            dir,
            certs,
            host: r.host(),
        }
    }

    fn objects(&self, installed: &str) -> PathBuf {
        self.write(&cluster(&self.host, installed))
    }

    pub(crate) fn write(&self, objects: &str) -> PathBuf {
        let p = self.dir.path().join("cluster.yaml");
        std::fs::write(&p, objects).expect("write");
        p
    }

    fn run(&self, installed: &str, args: &[&str]) -> (i32, String, String) {
        let files = self.objects(installed);
        let mut c = self.cmd();
        c.arg("-f").arg(&files).args(args);
        output(c)
    }

    /// The command without `-f`, against the fake API server `server`.
    pub(crate) fn run_live(
        &self,
        server: &support::apiserver::FakeApiServer,
        args: &[&str],
    ) -> (i32, String, String) {
        let kubeconfig = server.write_kubeconfig(self.dir.path());
        let mut c = self.cmd();
        c.env("KUBECONFIG", &kubeconfig).args(args);
        output(c)
    }

    pub(crate) fn cmd(&self) -> assert_cmd::Command {
        self.cmd_for("operator-check")
    }

    /// The binary running `command` with the mirror's CA.
    pub(crate) fn cmd_for(&self, command: &str) -> assert_cmd::Command {
        let mut c = support::bin();
        c.env("HOME", self.dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("DOCKER_CONFIG")
            .env_remove("KUBECONFIG")
            .arg(command)
            .arg("--cert-dir")
            .arg(&self.certs);
        c
    }
}

pub(crate) fn output(mut c: assert_cmd::Command) -> (i32, String, String) {
    let out = c.output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub(crate) fn json_of(stdout: &str, stderr: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"))
}

pub(crate) fn images(hop: &Value) -> Vec<(String, String, String, bool)> {
    hop["images"]
        .as_array()
        .expect("images")
        .iter()
        .map(|i| {
            let outcome = i["check"]["outcome"].as_str().unwrap_or("-").to_string();
            (
                i["reference"].as_str().unwrap().to_string(),
                i["class"].as_str().unwrap().to_string(),
                outcome,
                i["counted"].as_bool().unwrap(),
            )
        })
        .collect()
}

pub(crate) fn backup_by_digest() -> String {
    format!("{BACKUP_SOURCE}@{}", image_digest("backup-0.9.4"))
}

/// Issue 38's scenario: the mirror lacks hop 1's bundle (oc-mirror
/// mirrored the head only), and the head names a relatedImage by tag only,
/// which the digest-only mirrors never serve.
#[test]
fn issue_38_a_missing_hop_bundle_and_a_tag_only_related_image() {
    let reg = mirror(&["etcd.v0.9.2"], &format!("{BACKUP_SOURCE}:v0.9.4"));
    let s = Setup::new(&reg);
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["readiness"], "notReady");
    assert_eq!(json["reason"], "imagesNotServed");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .starts_with("hop 1 (etcd.v0.9.0 -> etcd.v0.9.2)"),
        "{json}"
    );
    assert_eq!(
        json["catalog"]["source"],
        "openshift-marketplace/cs-etcd-index-v4-21"
    );
    assert_eq!(json["catalog"]["check"]["outcome"], "served");
    assert_eq!(json["head"], "etcd.v0.9.4");
    let hops = json["hops"].as_array().unwrap();
    let path: Vec<(&str, &str, &str)> = hops
        .iter()
        .map(|h| {
            (
                h["to"].as_str().unwrap(),
                h["edge"].as_str().unwrap(),
                h["approval"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        path,
        [
            ("etcd.v0.9.2", "replaces", "Manual"),
            ("etcd.v0.9.4", "replaces", "Manual")
        ]
    );
    let bundle_2 = format!("{BUNDLE_SOURCE}@{}", bundle_digest("etcd.v0.9.2"));
    let operator_2 = format!("{OPERATOR_SOURCE}@{}", image_digest("operator-0.9.2"));
    assert_eq!(
        images(&hops[0]),
        [
            (bundle_2.clone(), "digest".into(), "missing".into(), true),
            (operator_2, "digest".into(), "served".into(), false)
        ],
        "hop 1's relatedImages are reported, not counted"
    );
    let last = images(&hops[1]);
    assert_eq!(last.len(), 6, "bundle, the CSV's deployment, the operand and the backup (the operator and bundle relatedImages are the same images), the dependency's bundle and deployment: {last:?}");
    assert_eq!(
        last[1].0,
        format!("{OPERATOR_SOURCE}@{}", image_digest("operator-0.9.4"))
    );
    assert_eq!(
        hops[1]["images"][1]["role"], "operator",
        "from the olm.bundle.object CSV"
    );
    assert_eq!(hops[1]["csvSource"], "bundleObject");
    assert_eq!(hops[0]["csvSource"], "csvMetadata");
    assert_eq!(
        hops[0]["deploymentImagesUnknown"],
        "the bundle image is missing, so its CSV was not read"
    );
    let backup = last
        .iter()
        .find(|i| i.0.starts_with(BACKUP_SOURCE))
        .unwrap();
    assert_eq!(
        (backup.1.as_str(), backup.3),
        ("tagSkipsDigestMirrors", true),
        "{last:?}"
    );
    let steps = json["nextSteps"].as_array().unwrap();
    let copy = format!(
        "skopeo copy --all --preserve-digests docker://{bundle_2} docker://{}/etcd/etcd-bundle@{}",
        s.host,
        bundle_digest("etcd.v0.9.2")
    );
    assert_eq!(steps[0]["commands"], serde_json::json!([copy]), "{steps:?}");
    assert!(
        steps[0]["step"]
            .as_str()
            .unwrap()
            .ends_with("copy each missing image to the mirror CRI-O tries first:"),
        "the unpack Job's bundle image, pulled by CRI-O: {steps:?}"
    );
    assert_eq!(steps[1]["outcome"], "tagSkipsDigestMirrors");
    assert!(steps[1]["step"]
        .as_str()
        .unwrap()
        .contains("--use-image-digests"));
}

#[test]
fn every_hop_served_is_ready_and_the_table_shows_the_path() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(
        (json["readiness"].as_str(), json["reason"].as_str()),
        (Some("ready"), Some("pathServed"))
    );
    // Hop 2 requires etcd-tools <2.0.0: OLM installs etcd-tools.v1.1.0
    // (the head-most bundle of its default channel in range) with it.
    let hop = &json["hops"][1];
    assert_eq!(
        hop["dependencies"],
        serde_json::json!([{"name": "etcd-tools.v1.1.0", "package": "etcd-tools", "catalog": "openshift-marketplace/cs-etcd-index-v4-21", "csvSource": "bundleObject"}])
    );
    let dependency: Vec<(&str, &str, &str)> = hop["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "dependency")
        .map(|i| {
            (
                i["name"].as_str().unwrap(),
                i["reference"].as_str().unwrap(),
                i["check"]["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    let tools_bundle = format!(
        "{TOOLS_BUNDLE_SOURCE}@{}",
        image_digest("tools-bundle-1.1.0")
    );
    let tools = format!("{TOOLS_SOURCE}@{}", image_digest("tools-1.1.0"));
    assert_eq!(
        dependency,
        [
            ("etcd-tools.v1.1.0", tools_bundle.as_str(), "served"),
            ("etcd-tools.v1.1.0/operator", tools.as_str(), "served"),
        ]
    );
    // Hop 1's catalog entry has only olm.csv.metadata: its deployment
    // images come from the bundle image's manifests, and count.
    let hop = &json["hops"][0];
    assert_eq!(hop["csvSource"], "bundleImage", "{hop}");
    assert!(hop.get("deploymentImagesUnknown").is_none(), "{hop}");
    let init = format!("{INIT_SOURCE}@{}", image_digest("init-0.9.2"));
    let operator = format!("{OPERATOR_SOURCE}@{}", image_digest("operator-0.9.2"));
    let roles: Vec<(&str, &str, &str, bool)> = hop["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["role"].as_str().unwrap(),
                i["reference"].as_str().unwrap(),
                i["check"]["outcome"].as_str().unwrap(),
                i["counted"].as_bool().unwrap(),
            )
        })
        .collect();
    let bundle = format!("{BUNDLE_SOURCE}@{}", bundle_digest("etcd.v0.9.2"));
    assert_eq!(
        roles,
        [
            ("bundle", bundle.as_str(), "served", true),
            ("operator", init.as_str(), "served", true),
            ("operator", operator.as_str(), "served", true),
        ],
        "the operator relatedImage is the deployment's image"
    );
    let (code, out, err) = s.run("etcd.v0.9.0", &[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("Verdict:      ready (pathServed): 2 hops to etcd.v0.9.4"),
        "{out}"
    );
    assert!(
        out.contains("etcd.v0.9.0  etcd.v0.9.2  replaces  Manual"),
        "{out}"
    );
    // The installed CSV at the head: nothing to pull.
    let (code, out, err) = s.run("etcd.v0.9.4", &["-o", "yaml"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("reason: atHead"), "{out}");
}

/// `--package`: the skipRange of the head covers a CSV the catalog no
/// longer has (its version from the CSV read); an older one has no path.
/// A CSV installed in the Subscription's namespace whose properties say
/// package `etcd-tools` at `version` (no Subscription: OLM keeps it all the same).
fn installed_tools(version: &str) -> String {
    format!(
        "---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: etcd-tools.v{version}\n  namespace: operators\n  annotations:\n    operatorframework.io/properties: '{{\"properties\":[{{\"type\":\"olm.package\",\"value\":{{\"packageName\":\"etcd-tools\",\"version\":\"{version}\"}}}}]}}'\nspec:\n  version: {version}\n"
    )
}

/// The dependencies of hop 2 as the JSON gives them: `(name, satisfiedBy)`,
/// and the names of the dependency images probed.
pub(crate) fn hop_2_dependencies(json: &Value) -> (Vec<(String, String)>, Vec<String>) {
    let hop = &json["hops"][1];
    let deps = hop["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let by = d["satisfiedBy"].as_str().unwrap_or("-").to_string();
            (d["name"].as_str().unwrap().to_string(), by)
        })
        .collect();
    let images = hop["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "dependency")
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect();
    (deps, images)
}

/// operator-lifecycle-manager's resolver keeps an operator installed in the
/// namespace that satisfies a requirement (`source_csvs.go`,
/// `TestSolveOperators_SubscriptionlessOperatorsSatisfyDependencies`):
/// etcd-tools 1.0.5 installed satisfies etcd.v0.9.4's `<2.0.0`, so no
/// etcd-tools bundle is installed or probed; 2.1.0 does not, and the
/// catalog's etcd-tools.v1.1.0 is. Offline and live alike.
#[test]
fn a_dependency_already_installed_is_kept_and_not_probed() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let kept = vec![(
        "etcd-tools.v1.0.5".to_string(),
        "installed CSV etcd-tools.v1.0.5".to_string(),
    )];
    let from_catalog = vec![("etcd-tools.v1.1.0".to_string(), "-".to_string())];
    let probed = vec![
        "etcd-tools.v1.1.0".to_string(),
        "etcd-tools.v1.1.0/operator".to_string(),
    ];
    for (version, deps, images) in [("1.0.5", kept, Vec::new()), ("2.1.0", from_catalog, probed)] {
        let objects = cluster(&s.host, "etcd.v0.9.0") + &installed_tools(version);
        let files = s.write(&objects);
        let (code, out, err) = output({
            let mut c = s.cmd();
            c.arg("-f").arg(&files).args(["-o", "json"]);
            c
        });
        assert_eq!(code, 0, "{version}: {out}\n{err}");
        let json = json_of(&out, &err);
        assert_eq!(json["reason"], "pathServed", "{version}");
        assert_eq!(
            hop_2_dependencies(&json),
            (deps.clone(), images.clone()),
            "{version}"
        );
        let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
        let (code, live, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
        assert_eq!(code, 0, "{version} live: {live}\n{err}");
        assert_eq!(json_of(&live, &err), json, "{version}: live as offline");
    }
    let objects = cluster(&s.host, "etcd.v0.9.0") + &installed_tools("1.0.5");
    let files = s.write(&objects);
    let (_, table, err) = output({
        let mut c = s.cmd();
        c.arg("-f").arg(&files).args(["-o", "wide"]);
        c
    });
    assert!(
        table.contains("installed CSV etcd-tools.v1.0.5"),
        "{table}\n{err}"
    );
}

#[test]
fn package_mode_skip_range_and_no_update_path() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalog = format!("{}/{CATALOG_REPO}:v4.21", s.host);
    let args = |installed: &'static str| -> Vec<String> {
        [
            "--catalog-image",
            &catalog,
            "--package",
            "etcd",
            "--channel",
            "stable",
            "--installed",
            installed,
            "-o",
            "json",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let run = |installed| {
        let a = args(installed);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        s.run("etcd.v0.9.0", &a)
    };
    let (code, out, err) = run("etcd.v0.9.1");
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["hops"][0]["edge"], "skipRange", "{json}");
    assert_eq!(json["hops"].as_array().unwrap().len(), 1);
    let (code, out, err) = run("etcd.v0.8.0");
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "noUpdatePath");
    assert!(
        json["nextSteps"][0]["step"]
            .as_str()
            .unwrap()
            .contains("minVersion"),
        "{json}"
    );
}

/// Bad input exits 2 with one sentence: a malformed catalog file (named
/// with its line), an image without the configs label, an unknown
/// Subscription.
#[test]
fn bad_input_exits_2() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let image = |tag: &str| format!("{}/{CATALOG_REPO}:{tag}", s.host);
    let (code, out, err) = s.run("etcd.v0.9.0", &["--catalog-image", &image("broken")]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains("catalog file /configs/etcd/zz.yaml line 1: olm.channel: invalid type"),
        "{err}"
    );
    let (code, _, err) = s.run("etcd.v0.9.0", &["--catalog-image", &image("plain")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a catalog image: its config has no label operators.operatorframework.io.index.configs.v1"), "{err}");
    let (code, _, err) = s.run("etcd.v0.9.0", &["nope"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("Subscription \"nope\" was not found"), "{err}");
}

/// A zstd configs layer is read; a SQLite-only index and a CatalogSource
/// serving an address are undetermined (exit 3), saying why.
#[test]
fn zstd_layers_are_read_and_sqlite_or_address_catalogs_are_undetermined() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let image = |tag: &str| format!("{}/{CATALOG_REPO}:{tag}", s.host);
    let (code, out, err) = s.run(
        "etcd.v0.9.0",
        &["--catalog-image", &image("zstd"), "-o", "json"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["reason"], "pathServed");
    let (code, out, err) = s.run(
        "etcd.v0.9.0",
        &["--catalog-image", &image("sqlite"), "-o", "json"],
    );
    assert_eq!(code, 3, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "catalogUndetermined");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("is a SQLite index"),
        "{json}"
    );
    // The CatalogSource serving an address: its catalog is not an image.
    let files = s.objects("etcd.v0.9.0");
    let text = std::fs::read_to_string(&files).unwrap();
    let text = text.replace(
        &format!("  image: {}", image("v4.21")),
        "  address: etcd-catalog.svc:50051",
    );
    let other = s.dir.path().join("address.yaml");
    std::fs::write(&other, text).unwrap();
    let out = support::bin()
        .env("HOME", s.dir.path())
        .args(["operator-check", "-o", "json", "-f"])
        .arg(&other)
        .output()
        .expect("run");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let json = json_of(&stdout, &stderr);
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("serves the address etcd-catalog.svc:50051"),
        "{json}"
    );
}

/// Live: the Subscriptions of `-n` (or the context's namespace, or every
/// namespace with `-A`), the CatalogSource, CSV and mirror sets read from
/// the API server, give the verdict the same objects give from files.
#[test]
fn live_reads_subscriptions_catalog_sources_and_csvs_as_files_do() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let (code, offline, err) = s.run("etcd.v0.9.0", &["-o", "json"]);
    assert_eq!(code, 1, "{offline}\n{err}");
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.0"))
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json_of(&offline, ""), "{err}");
    let paths: Vec<String> = server.log().iter().map(|l| l.path.clone()).collect();
    for want in [
        "/apis/operators.coreos.com/v1alpha1/namespaces/operators/subscriptions",
        "/apis/operators.coreos.com/v1alpha1/namespaces/openshift-marketplace/catalogsources",
        "/apis/operators.coreos.com/v1alpha1/namespaces/operators/clusterserviceversions",
        "/api/v1/namespaces/openshift-config/secrets/pull-secret",
    ] {
        assert!(
            paths.iter().any(|p| p == want),
            "{want} not requested: {paths:?}"
        );
    }
    // The Subscription's CatalogSource was among those listed: not read again by name.
    assert!(
        !paths
            .iter()
            .any(|p| p.ends_with("/catalogsources/cs-etcd-index-v4-21")),
        "{paths:?}"
    );
    let (code, out, err) = s.run_live(&server, &["-A", "-o", "json"]);
    assert_eq!(
        (code, json_of(&out, &err)),
        (1, json_of(&offline, "")),
        "{err}"
    );
    let (code, _, err) = s.run_live(&server, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no Subscription was found in the cluster (namespace default)")
            && err.contains("-A"),
        "{err}"
    );
    let (code, _, err) = s.run_live(&server, &["other", "-n", "operators"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("Subscription \"other\" was not found in the cluster (namespace operators)"),
        "{err}"
    );
}

/// Live: a cluster without OLM's CRDs, or a user who may not list
/// Subscriptions or get the CatalogSource, is one error naming the
/// resource, exit 3.
#[test]
fn live_without_olm_or_forbidden_is_a_cluster_error() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let server = ApiBuilder::openshift()
        .without("subscriptions.operators.coreos.com")
        .objects_from_yaml(&objects)
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators"]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains(
            "does not serve subscriptions.operators.coreos.com (no such CRD): OLM is not installed"
        ),
        "{err}"
    );
    // A package checked by name needs no OLM object: the mirror
    // configuration is still the cluster's.
    let catalog = format!("{}/{CATALOG_REPO}:v4.21", s.host);
    let args = [
        "--package",
        "etcd",
        "--catalog-image",
        &catalog,
        "--installed",
        "etcd.v0.9.0",
        "-o",
        "json",
    ];
    let (code, out, err) = s.run_live(&server, &args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["reason"], "pathServed");
    assert!(
        server
            .log()
            .iter()
            .any(|l| l.path.ends_with("/imagedigestmirrorsets")),
        "the mirror sets are read live"
    );
    // The CatalogSource is read by name when its namespace cannot be listed.
    for (verb, plural) in [("list", "subscriptions"), ("get", "catalogsources")] {
        let server = ApiBuilder::openshift()
            .forbid(verb, plural)
            .forbid_in("list", "catalogsources", "openshift-marketplace")
            .objects_from_yaml(&objects)
            .start();
        let (code, out, err) = s.run_live(&server, &["-n", "operators"]);
        assert_eq!(code, 3, "{verb} {plural}: {out}\n{err}");
        assert!(
            err.contains(&format!("{plural}.operators.coreos.com")) && err.contains(verb),
            "{verb} {plural}: {err}"
        );
    }
}

/// `objects` (of [`cluster`]) with the Subscription pointing at InstallPlan
/// `install-etcd` (`status.installPlanRef`, `currentCSV`, `UpgradePending`)
/// that installs `csv`, in `phase`, Manual and not approved.
fn with_install_plan(objects: &str, installed: &str, csv: &str, phase: &str) -> String {
    let status = format!("status:\n  installedCSV: {installed}\n");
    assert!(objects.contains(&status));
    let pending = format!(
        "status:\n  installedCSV: {installed}\n  currentCSV: {csv}\n  state: UpgradePending\n  installPlanRef: {{apiVersion: operators.coreos.com/v1alpha1, kind: InstallPlan, name: install-etcd, namespace: operators}}\n"
    );
    objects.replace(&status, &pending)
        + &format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: InstallPlan\nmetadata: {{name: install-etcd, namespace: operators}}\nspec:\n  clusterServiceVersionNames: [{csv}]\n  approval: Manual\n  approved: false\nstatus:\n  phase: {phase}\n"
        )
}

/// A pending InstallPlan decides hop 1 (OLM does not resolve again while it
/// waits): one made to the head skips the hop whose bundle the mirror
/// lacks, and says that the catalog would have gone to etcd.v0.9.2 first;
/// one that agrees says so; a Complete one is history. Offline and live.
#[test]
fn a_pending_install_plan_is_authoritative_for_hop_one() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let to_head = with_install_plan(&objects, "etcd.v0.9.0", "etcd.v0.9.4", "RequiresApproval")
        // The Subscription switched to Automatic after OLM made the Manual plan.
        .replace(
            "installPlanApproval: Manual",
            "installPlanApproval: Automatic",
        );
    let files = s.write(&to_head);
    let mut c = s.cmd();
    c.arg("-f").arg(&files).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let hops: Vec<(&str, &str)> = json["hops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["to"].as_str().unwrap(), h["edge"].as_str().unwrap()))
        .collect();
    assert_eq!(hops, [("etcd.v0.9.4", "installPlan")]);
    assert_eq!(json["hops"][0]["approval"], "Manual");
    let plan = &json["installPlan"];
    assert_eq!(
        (
            plan["name"].as_str(),
            plan["phase"].as_str(),
            plan["approved"].as_bool()
        ),
        (Some("install-etcd"), Some("RequiresApproval"), Some(false)),
        "{plan}"
    );
    assert_eq!(
        (plan["csv"].as_str(), plan["agrees"].as_bool()),
        (Some("etcd.v0.9.4"), Some(false))
    );
    assert_eq!(plan["computed"], "etcd.v0.9.2");
    let server = ApiBuilder::openshift().objects_from_yaml(&to_head).start();
    let (code, live, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!((code, json_of(&live, &err)), (0, json.clone()), "{err}");
    let (_, table, _) = s.run_live(&server, &["-n", "operators"]);
    assert!(
        table.contains("Pending:      InstallPlan install-etcd (RequiresApproval, Manual, not approved) installs etcd.v0.9.4, while the catalog's update path from etcd.v0.9.0 goes to etcd.v0.9.2 first: OLM follows the InstallPlan"),
        "{table}"
    );

    let agreeing = with_install_plan(&objects, "etcd.v0.9.0", "etcd.v0.9.2", "RequiresApproval");
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&agreeing)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["installPlan"]["agrees"], true, "{json}");
    assert!(json["installPlan"].get("computed").is_none());
    assert_eq!(json["hops"][0]["edge"], "installPlan");
    assert_eq!(json["hops"][1]["to"], "etcd.v0.9.4");
    assert_eq!(json["reason"], "imagesNotServed");

    let complete = with_install_plan(&objects, "etcd.v0.9.0", "etcd.v0.9.4", "Complete");
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&complete)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert!(json.get("installPlan").is_none(), "{json}");
    assert_eq!(json["hops"][0]["to"], "etcd.v0.9.2");
}

/// operator-lifecycle-manager `nothingToUpdate` and
/// `ensureSubscriptionCSVState` (catalog/operator.go): an InstallPlan that
/// failed before creating its CSV leaves the Subscription `UpgradePending`
/// on it, and OLM never resolves it again, though the catalog has a served
/// path: `installPlanFailed` (not ready), with the commands that show why
/// and delete the plan. Once its CSV exists, or with the OperatorGroup's
/// `TechPreviewUnsafeFailForward`, OLM resolves again. Offline and live.
#[test]
fn a_failed_install_plan_stops_the_subscription() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let failed = with_install_plan(&objects, "etcd.v0.9.0", "etcd.v0.9.2", "Failed");
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&failed)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "installPlanFailed", "{json}");
    assert_eq!(
        json["message"],
        "InstallPlan operators/install-etcd failed before it created CSV etcd.v0.9.2: OLM does not resolve Subscription etcd again while it points at that plan, whatever the catalog offers"
    );
    let step = &json["nextSteps"][0];
    assert_eq!(step["outcome"], "installPlanFailed", "{json}");
    assert_eq!(
        step["commands"][1],
        "oc delete installplan install-etcd -n operators"
    );
    let server = ApiBuilder::openshift().objects_from_yaml(&failed).start();
    let (code, live, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!((code, json_of(&live, &err)), (1, json), "{err}");

    let created = failed.clone()
        + "---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {name: etcd.v0.9.2, namespace: operators}\nspec:\n  version: 0.9.2\n";
    let fail_forward = failed.replace(
        "kind: OperatorGroup\nmetadata: {name: operators, namespace: operators}\nspec: {}\n",
        "kind: OperatorGroup\nmetadata: {name: operators, namespace: operators}\nspec:\n  upgradeStrategy: {name: TechPreviewUnsafeFailForward}\n",
    );
    assert_ne!(fail_forward, failed);
    for (case, objects) in [("its CSV created", created), ("fail forward", fail_forward)] {
        let mut c = s.cmd();
        c.arg("-f").arg(s.write(&objects)).args(["-o", "json"]);
        let (code, out, err) = output(c);
        let json = json_of(&out, &err);
        assert_eq!(
            (code, json["reason"].as_str()),
            (0, Some("pathServed")),
            "{case}: {json}\n{err}"
        );
    }
}

/// Several clusters: each context's Subscriptions checked against its own
/// cluster, one `List` item per context; a cluster without OLM is that
/// context's error, and the exit code is the worst (3).
#[test]
fn several_contexts_each_check_their_own_cluster() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let east = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let west = ApiBuilder::openshift()
        .without("subscriptions.operators.coreos.com")
        .objects_from_yaml(&objects)
        .start();
    let kubeconfig = support::kubeconfig::contexts(
        s.dir.path(),
        "contexts.yaml",
        &[("east", &east), ("west", &west)],
        "operators",
    );
    let (code, single, err) = s.run_live(&east, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let mut c = s.cmd();
    c.env("KUBECONFIG", &kubeconfig)
        .args(["--context", "east,west", "-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 3, "{out}\n{err}");
    let list = json_of(&out, &err);
    let items = list["items"].as_array().expect("items");
    assert_eq!(items.len(), 2, "{list}");
    assert_eq!(items[0]["context"], "east");
    assert_eq!(items[0]["result"], json_of(&single, ""), "{}", items[0]);
    assert_eq!(items[1]["context"], "west");
    assert!(
        items[1]["error"]
            .to_string()
            .contains("does not serve subscriptions.operators.coreos.com"),
        "{}",
        items[1]
    );
    let mut c = s.cmd();
    c.env("KUBECONFIG", &kubeconfig)
        .args(["--context", "east,west"]);
    let (code, out, _) = output(c);
    assert_eq!(code, 3);
    assert!(
        out.contains("== context east") && out.contains("Subscription: operators/etcd"),
        "{out}"
    );
}

/// `--require-mirror`: an operator image served only by its own registry
/// (no mirror set covers it) is `notMirrored`, not ready; without the
/// flag it is served. The bundle, covered by an ImageDigestMirrorSet, is
/// served by the mirror either way.
#[test]
fn require_mirror_makes_a_source_only_image_not_mirrored() {
    let source = Builder::new()
        .manifest("op/bundle", None, &manifest_body("x-bundle"))
        .manifest("op/operator", None, &manifest_body("x-operator"))
        .start();
    let a = source.host();
    let bundle = format!("{a}/op/bundle@{}", image_digest("x-bundle"));
    let operator = format!("{a}/op/operator@{}", image_digest("x-operator"));
    let csv = format!(
        r#"{{"kind":"ClusterServiceVersion","spec":{{"install":{{"spec":{{"deployments":[{{"spec":{{"template":{{"spec":{{"containers":[{{"image":"{operator}"}}]}}}}}}}}]}}}}}}}}"#
    );
    let object = base64::engine::general_purpose::STANDARD.encode(csv);
    let files = vec![(
        "configs/x/catalog.json".to_string(),
        format!(
            r#"{{"schema":"olm.package","name":"x","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"x","name":"stable","entries":[{{"name":"x.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"x.v1.0.0","package":"x","image":"{bundle}","properties":[{{"type":"olm.package","value":{{"packageName":"x","version":"1.0.0"}}}},{{"type":"olm.bundle.object","value":{{"data":"{object}"}}}}]}}
"#
        ),
    )];
    let mut b = Builder::new();
    let catalog = push_catalog(&mut b, &files, Some(CONFIGS_LABEL));
    let mirror = b
        .manifest(CATALOG_REPO, Some("x"), &catalog)
        .manifest("op/bundle", None, &manifest_body("x-bundle"))
        .start();
    let m = mirror.host();
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    std::fs::create_dir(&certs).unwrap();
    source.write_ca(&certs, "source");
    mirror.write_ca(&certs, "mirror");
    let cluster = dir.path().join("cluster.yaml");
    std::fs::write(
        &cluster,
        format!("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: {a}/op/bundle\n    mirrors: [{m}/op/bundle]\n"),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let out = support::bin()
            .env("HOME", dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("DOCKER_CONFIG")
            .args(["operator-check", "-o", "json", "--cert-dir"])
            .arg(&certs)
            .arg("-f")
            .arg(&cluster)
            .args(["--catalog-image", &format!("{m}/{CATALOG_REPO}:x")])
            .args(["--package", "x"])
            .args(extra)
            .output()
            .expect("run");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        (out.status.code(), json_of(&stdout, &stderr))
    };
    let (code, json) = run(&[]);
    assert_eq!(
        (code, &json["reason"]),
        (Some(0), &"pathServed".into()),
        "{json}"
    );
    let (code, json) = run(&["--require-mirror"]);
    assert_eq!(code, Some(1), "{json}");
    assert_eq!(json["reason"], "imagesNotServed");
    let images = images(&json["hops"][0]);
    assert_eq!(
        images,
        [
            (bundle.clone(), "digest".into(), "served".into(), true),
            (
                operator.clone(),
                "notMirrored".into(),
                "served".into(),
                true
            ),
        ]
    );
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains(&format!("notMirrored (served only by {operator})")),
        "{json}"
    );
    assert_eq!(json["nextSteps"][0]["outcome"], "notMirrored");
}

/// `-o wide` adds where each hop's CSV was read, its dependencies, and
/// each image's sources tried, signature and detail; `-o summary` is one
/// line per Subscription and a total with the exit code.
#[test]
fn wide_and_summary_outputs() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "wide"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("CSV SOURCE"), "{out}");
    assert!(out.contains("DEPENDENCIES"), "{out}");
    assert!(
        out.contains("csvMetadata") && out.contains("bundleObject"),
        "{out}"
    );
    assert!(out.contains("etcd-tools.v1.1.0"), "{out}");
    let missing = format!(
        "{}/etcd/etcd-bundle@{} (notFound)",
        s.host,
        bundle_digest("etcd.v0.9.2")
    );
    assert!(out.contains("TRIED"), "{out}");
    assert!(
        out.contains(&missing),
        "the mirror tried, and its answer: {out}"
    );
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "summary"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(
        out,
        "operators/etcd notReady reason=imagesNotServed package=etcd installed=etcd.v0.9.0 head=etcd.v0.9.4 hops=2 failing=1\ntotal subscriptions=1 clusterextensions=0 ready=0 notReady=1 undetermined=0 exit=1\n"
    );
    let (code, out, err) = s.run("etcd.v0.9.4", &["-o", "summary"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.starts_with("operators/etcd ready reason=atHead "),
        "{out}"
    );
}

/// `--cache-dir`: the second run finds the catalog's digest in the cache
/// and fetches none of its blobs; a corrupt cache file is ignored with a
/// warning, and the catalog read again (and cached anew).
#[test]
fn cache_dir_skips_the_catalog_layers_of_a_known_digest() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let cache = s.dir.path().join("cache");
    let cache_arg = cache.to_str().unwrap().to_string();
    let blobs = || reg.requests_to(&format!("/v2/{CATALOG_REPO}/blobs/"));
    let (code, first, err) = s.run("etcd.v0.9.0", &["-o", "json", "--cache-dir", &cache_arg]);
    assert_eq!(code, 1, "{first}\n{err}");
    let read = blobs();
    assert_eq!(
        read, 6,
        "the config once, the three layers for etcd, then for the etcd-tools a dependency \
         needs only the two holding anything of /configs (the files, the whiteout)"
    );
    let files: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let (code, second, err) = s.run("etcd.v0.9.0", &["-o", "json", "--cache-dir", &cache_arg]);
    assert_eq!(code, 1, "{second}\n{err}");
    assert_eq!(blobs(), read, "no catalog blob fetched again");
    assert_eq!(first, second);
    assert!(!err.contains("cache"), "{err}");
    std::fs::write(&files[0], "{\"format\": 1, \"digest\": ").unwrap();
    let (code, third, err) = s.run("etcd.v0.9.0", &["-o", "json", "--cache-dir", &cache_arg]);
    assert_eq!(code, 1, "{third}\n{err}");
    assert_eq!(first, third);
    assert!(
        err.contains("is not a usable catalog cache") && err.contains("the catalog is read again"),
        "{err}"
    );
    assert!(blobs() > read, "read again");
    let (_, _, err) = s.run("etcd.v0.9.0", &["-o", "json", "--cache-dir", &cache_arg]);
    assert!(!err.contains("cache"), "cached anew: {err}");
}

/// An ImagePolicy in `namespace` requiring signatures for `scope` (a key
/// nothing here is signed with).
pub(crate) fn image_policy(namespace: &str, scope: &str) -> String {
    format!("---\napiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata: {{name: signed, namespace: {namespace}}}\nspec:\n  scopes: [{scope}]\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t\n    signedIdentity:\n      matchPolicy: MatchRepository\n")
}

/// The registry pod runs where `spec.grpcPodConfig.nodeSelector` puts it:
/// the pool of the Nodes it selects (`infra`), else worker.
#[test]
fn the_catalog_is_explained_for_the_pool_its_node_selector_selects() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["catalog"]["pool"], "worker");
    assert_eq!(
        json["catalog"]["poolReason"],
        "no grpcPodConfig.nodeSelector: a worker"
    );
    let infra = objects.replace(
        "spec:\n  sourceType: grpc\n",
        "spec:\n  sourceType: grpc\n  grpcPodConfig:\n    nodeSelector: {node-role.kubernetes.io/infra: ''}\n",
    ) + "---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: infra}\nspec:\n  nodeSelector: {matchLabels: {node-role.kubernetes.io/infra: ''}}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: infra-0\n  labels: {node-role.kubernetes.io/worker: '', node-role.kubernetes.io/infra: '', kubernetes.io/arch: amd64}\n";
    assert_ne!(infra, objects);
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&infra)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["catalog"]["pool"], "infra", "{}", json["catalog"]);
    assert_eq!(
        json["catalog"]["poolReason"],
        "its nodeSelector node-role.kubernetes.io/infra= selects nodes in infra (1) (the pool of the most)"
    );
    let server = ApiBuilder::openshift().objects_from_yaml(&infra).start();
    let (code, live, err) = s.run_live(&server, &["-n", "operators"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        live.contains("Pool:         infra (its nodeSelector node-role.kubernetes.io/infra= selects nodes in infra (1) (the pool of the most))"),
        "{live}"
    );
}

/// CRI-O applies a namespace's own policy (its ImagePolicies) to the pods
/// of that namespace: the bundle unpack Job runs in the CatalogSource's,
/// the operator in the Subscription's. A policy elsewhere changes nothing.
#[test]
fn bundle_and_operator_images_follow_their_namespace_image_policy() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let verdict = |extra: &str| {
        let mut c = s.cmd();
        c.arg("-f")
            .arg(s.write(&(objects.clone() + extra)))
            .args(["-o", "json"]);
        let (code, out, err) = output(c);
        (code, json_of(&out, &err))
    };
    let (code, json) = verdict("");
    assert_eq!(code, 0, "{json}");
    for (namespace, scope, ready) in [
        ("openshift-marketplace", BUNDLE_SOURCE, false),
        ("operators", BUNDLE_SOURCE, true),
        ("operators", OPERATOR_SOURCE, false),
        ("openshift-marketplace", OPERATOR_SOURCE, true),
    ] {
        let (code, json) = verdict(&image_policy(namespace, scope));
        assert_eq!(
            json["ready"], ready,
            "{namespace} {scope}: {}",
            json["message"]
        );
        assert_eq!(code, if ready { 0 } else { 1 }, "{namespace} {scope}");
        if !ready {
            let failing = json["hops"][0]["images"]
                .as_array()
                .unwrap()
                .iter()
                .find(|i| i["reference"].as_str().unwrap().starts_with(scope))
                .expect("the image")
                .clone();
            assert_ne!(failing["check"]["outcome"], "served", "{failing}");
        }
    }
    // The registry pod runs in the CatalogSource's namespace too.
    let catalog = format!("{}/{CATALOG_REPO}", s.host);
    let (code, json) = verdict(&image_policy("openshift-marketplace", &catalog));
    assert_eq!(
        (code, json["reason"].as_str()),
        (1, Some("catalogNotServed")),
        "{json}"
    );
    assert_eq!(
        json["catalog"]["check"]["outcome"], "unsigned",
        "{}",
        json["catalog"]
    );
    let (code, _) = verdict(&image_policy("operators", &catalog));
    assert_eq!(code, 0);
}

/// A dependency's bundle is unpacked by OLM's Job in the CatalogSource's
/// namespace too, so that namespace's policy applies to it; its operator
/// image runs in the Subscription's namespace.
#[test]
fn a_dependency_bundle_follows_the_catalog_namespace_image_policy() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0") + &installed_tools("2.1.0");
    let verdict = |extra: &str| {
        let mut c = s.cmd();
        c.arg("-f")
            .arg(s.write(&(objects.clone() + extra)))
            .args(["-o", "json"]);
        let (code, out, err) = output(c);
        (code, json_of(&out, &err))
    };
    for (namespace, scope, ready) in [
        ("openshift-marketplace", TOOLS_BUNDLE_SOURCE, false),
        ("operators", TOOLS_BUNDLE_SOURCE, true),
        ("operators", TOOLS_SOURCE, false),
        ("openshift-marketplace", TOOLS_SOURCE, true),
    ] {
        let (code, json) = verdict(&image_policy(namespace, scope));
        assert_eq!(
            (code, json["ready"].as_bool()),
            (if ready { 0 } else { 1 }, Some(ready)),
            "{namespace} {scope}: {}",
            json["message"]
        );
        let (deps, _) = hop_2_dependencies(&json);
        assert_eq!(deps[0].0, "etcd-tools.v1.1.0", "{namespace} {scope}");
    }
}

/// A CatalogSource's `spec.secrets`: live, each is read and tried before
/// the global pull secret for its catalog image (on a registry that wants
/// credentials); one that cannot be read is named, and the catalog probed
/// without it. With `-f`, Secrets are not read.
#[test]
fn catalog_source_pull_secrets_are_read_live_and_named_when_not() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let mut b = Builder::new().basic("catalog", "s3cret");
    let manifest = push_catalog(
        &mut b,
        &catalog_files(&backup_by_digest()),
        Some(CONFIGS_LABEL),
    );
    let private = b.manifest(CATALOG_REPO, Some("v4.21"), &manifest).start();
    private.write_ca(&s.certs, "private");
    let objects = cluster(&s.host, "etcd.v0.9.0").replace(
        &format!("  image: {}/{CATALOG_REPO}:v4.21\n", s.host),
        &format!(
            "  image: {}/{CATALOG_REPO}:v4.21\n  secrets: [catalog-pull]\n",
            private.host()
        ),
    );
    let auth = base64::engine::general_purpose::STANDARD.encode("catalog:s3cret");
    let config = base64::engine::general_purpose::STANDARD.encode(format!(
        r#"{{"auths":{{"{}":{{"auth":"{auth}"}}}}}}"#,
        private.host()
    ));
    let secret = format!("---\napiVersion: v1\nkind: Secret\nmetadata: {{name: catalog-pull, namespace: openshift-marketplace}}\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {config}\n");
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&(objects.clone() + &secret))
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let note = &json["catalog"]["pullSecrets"][0];
    assert_eq!(
        (note["name"].as_str(), note["read"].as_bool()),
        (Some("catalog-pull"), Some(true)),
        "{note}"
    );
    assert!(
        json["catalog"]["check"]["detail"]
            .as_str()
            .unwrap()
            .contains("Secret/openshift-marketplace/catalog-pull"),
        "{}",
        json["catalog"]["check"]
    );

    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("Secrets:      CatalogSource openshift-marketplace/cs-etcd-index-v4-21 names pull secret catalog-pull, which could not be read: it does not exist; the catalog is probed without it"),
        "{out}"
    );
    assert!(out.contains("NOT READY (catalogNotServed)"), "{out}");
    let server = ApiBuilder::openshift()
        .forbid_in("get", "secrets", "openshift-marketplace")
        .objects_from_yaml(&(objects.clone() + &secret))
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let note = &json_of(&out, &err)["catalog"]["pullSecrets"][0];
    let message = note["message"].as_str().unwrap();
    assert!(
        message
            .contains("names pull secret catalog-pull, which could not be read: forbidden (needs ")
            && message.contains("secrets")
            && note["read"] == false,
        "{note}"
    );

    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&objects)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(
        json["catalog"]["pullSecrets"][0]["message"],
        "CatalogSource openshift-marketplace/cs-etcd-index-v4-21 names pull secret catalog-pull, which could not be read: Secrets are not read from the files of -f; the catalog is probed without it"
    );
}

/// `audit --updates`: each Subscription's next hop, judged as
/// `operator-check --max-hops 1` judges it, next to the images audited;
/// a notReady update is an error for `--fail-on`.
#[test]
fn audit_updates_shows_each_subscriptions_next_hop() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let files = s.objects("etcd.v0.9.0");
    let audit = |args: &[&str]| {
        // --cert-dir needs --probe, which probes the workloads' images too.
        let mut c = s.cmd_for("audit");
        c.arg("--probe").arg("-f").arg(&files).args(args);
        output(c)
    };
    let (code, out, err) = audit(&["--updates", "-o", "json"]);
    assert_eq!(code, 0, "no --fail-on: reported only\n{out}\n{err}");
    let json = json_of(&out, &err);
    let (_, check, _) = s.run("etcd.v0.9.0", &["--max-hops", "1", "-o", "json"]);
    let check = json_of(&check, "");
    assert_eq!(
        json["updates"],
        serde_json::json!([{
            "kind": "Subscription",
            "namespace": "operators",
            "subscription": "etcd",
            "package": "etcd",
            "installedCSV": "etcd.v0.9.0",
            "nextCSV": "etcd.v0.9.2",
            "readiness": "notReady",
            "reason": check["reason"],
            "message": check["message"],
        }]),
        "{out}"
    );
    assert_eq!(check["readiness"], "notReady", "{check}");
    for fail_on in ["error", "warning"] {
        let (code, out, err) = audit(&["--updates", "--fail-on", fail_on]);
        assert_eq!(code, 1, "{fail_on}: {out}\n{err}");
    }
    let (code, out, err) = audit(&["--updates"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let reason = check["reason"].as_str().unwrap();
    assert!(
        out.contains("SUBSCRIPTION") && out.contains("operators/etcd"),
        "{out}"
    );
    let row = out
        .lines()
        .find(|l| l.starts_with("operators/etcd"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "operators/etcd",
            "etcd.v0.9.0",
            "etcd.v0.9.2",
            "notReady",
            reason
        ],
        "{out}"
    );
    assert!(out.contains("1 operator update: 1 notReady"), "{out}");
    let (_, wide, _) = audit(&["--updates", "-o", "wide"]);
    let message = check["message"].as_str().unwrap();
    assert!(wide.contains(&message[..20]), "{wide}");
    // Without --updates: no key, no table.
    let (_, out, err) = audit(&["-o", "json"]);
    assert!(json_of(&out, &err).get("updates").is_none(), "{out}");
    // Another namespace: no Subscription, an empty list.
    let (code, out, err) = audit(&["--updates", "-n", "elsewhere", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["updates"], serde_json::json!([]));
    // Served: ready; at the head, no next CSV.
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    for (installed, next, reason) in [
        ("etcd.v0.9.0", Some("etcd.v0.9.2"), "pathServed"),
        ("etcd.v0.9.4", None, "atHead"),
    ] {
        let files = s.objects(installed);
        let mut c = s.cmd_for("audit");
        c.arg("-f")
            .arg(&files)
            .args(["--probe", "--updates", "--fail-on", "error", "-o", "json"]);
        let (code, out, err) = output(c);
        assert_eq!(code, 0, "{installed}: {out}\n{err}");
        let update = &json_of(&out, &err)["updates"][0];
        assert_eq!(
            (
                update["nextCSV"].as_str(),
                update["readiness"].as_str(),
                update["reason"].as_str()
            ),
            (next, Some("ready"), Some(reason)),
            "{installed}: {update}"
        );
    }
}

/// `audit --updates` live: the Subscriptions of the namespace audited (the
/// context's, `-n`, or every one with `-A`), each judged as from files.
#[test]
fn audit_updates_live_reads_the_namespaces_audited() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let files = s.objects("etcd.v0.9.0");
    let mut c = s.cmd_for("audit");
    c.arg("--probe")
        .arg("-f")
        .arg(&files)
        .args(["--updates", "-o", "json"]);
    let (code, offline, err) = output(c);
    assert_eq!(code, 0, "{offline}\n{err}");
    let offline = json_of(&offline, &err)["updates"].clone();
    assert_eq!(offline[0]["readiness"], "notReady", "{offline}");
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.0"))
        .start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let live = |args: &[&str]| {
        let mut c = s.cmd_for("audit");
        c.env("KUBECONFIG", &kubeconfig)
            .args(["--probe", "--updates", "-o", "json"])
            .args(args);
        output(c)
    };
    for scope in [&["-n", "operators"][..], &["-A"]] {
        let (code, out, err) = live(scope);
        assert_eq!(code, 0, "{scope:?}: {out}\n{err}");
        assert_eq!(json_of(&out, &err)["updates"], offline, "{scope:?}: {err}");
    }
    let (code, out, err) = live(&["-n", "operators", "--fail-on", "error"]);
    assert_eq!(code, 1, "{out}\n{err}");
    // -o summary (live only): the updates counted after the images.
    let mut c = s.cmd_for("audit");
    c.env("KUBECONFIG", &kubeconfig).args([
        "--probe",
        "--updates",
        "-n",
        "operators",
        "--fail-on",
        "error",
        "-o",
        "summary",
    ]);
    let (code, summary, err) = output(c);
    assert_eq!(code, 1, "{summary}\n{err}");
    assert!(
        summary.contains(" updates=1 updatesNotReady=1 updatesUndetermined=0\n"),
        "{summary}"
    );
    // The context's namespace (default) has no Subscription.
    let (code, out, err) = live(&[]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["updates"], serde_json::json!([]));
}

/// `audit --updates -o wide` of several clusters (their namespace operators,
/// whose only image is the catalog in openshift-marketplace its
/// Subscription uses): one table of images, and each cluster's line of
/// counts with its updates counted.
#[test]
fn audit_updates_of_several_contexts_counts_each_clusters_updates() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let east = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.0"))
        .start();
    let west = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.4"))
        .start();
    let kubeconfig = support::kubeconfig::contexts(
        s.dir.path(),
        "contexts.yaml",
        &[("east", &east), ("west", &west)],
        "operators",
    );
    let mut c = s.cmd_for("audit");
    c.env("KUBECONFIG", &kubeconfig).args([
        "--probe",
        "--updates",
        "--context",
        "east,west",
        "--fail-on",
        "error",
        "-o",
        "wide",
    ]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "east's next hop is not ready\n{out}\n{err}");
    assert!(
        out.contains("east: 1 image: 1 direct; 1 operator update: 1 notReady\n"),
        "{out}"
    );
    assert!(
        out.contains("west: 1 image: 1 direct; 1 operator update: 1 ready\n"),
        "{out}"
    );
}

/// `audit --updates --registries-d DIR`: the update check probes with the
/// user's registries.d, as the images audited are (before, it always used
/// the rendered one). A policy requiring signatures of the operator images
/// in the Subscription's namespace: with the rendered registries.d their
/// sigstore attachments are looked up on the mirror; with an empty
/// registries.d (no `use-sigstore-attachments`), none is.
#[test]
fn audit_updates_probe_with_the_registries_d_given() {
    let sig_lookups = |registries_d: Option<&std::path::Path>| {
        let reg = mirror(&[], &backup_by_digest());
        let s = Setup::new(&reg);
        let objects = cluster(&s.host, "etcd.v0.9.0") + &image_policy("operators", OPERATOR_SOURCE);
        let mut c = s.cmd_for("audit");
        c.arg("--probe")
            .arg("-f")
            .arg(s.write(&objects))
            .args(["--updates", "-o", "json"]);
        if let Some(dir) = registries_d {
            c.arg("--registries-d").arg(dir);
        }
        let (code, out, err) = output(c);
        let update = json_of(&out, &err)["updates"][0].clone();
        assert_eq!(update["readiness"], "notReady", "{code}: {update}\n{err}");
        reg.log()
            .iter()
            .filter(|l| l.path.contains("/etcd-operator/") && l.path.ends_with(".sig"))
            .count()
    };
    assert!(sig_lookups(None) > 0, "the rendered registries.d");
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(sig_lookups(Some(empty.path())), 0, "--registries-d");
}

/// A bundle image is read as OLM's unpack Job reads it, within a total:
/// its files past 1 GiB in all (three 256 MiB manifests, a small one,
/// then a layer entry declaring 256 MiB more) leave the hop's deployment
/// images unknown, saying why, without the blob passing the client's cap.
#[test]
fn a_bundle_image_past_the_total_cap_leaves_its_deployment_images_unknown() {
    const BUNDLE_REPO: &str = "etcd/etcd-bundle";
    let mut b = Builder::new();
    let annotations = gzip(&tar(&[(
        "metadata/annotations.yaml",
        "annotations:\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
    )]));
    let annotations = (b.blob(BUNDLE_REPO, &annotations), annotations.len());
    let mib = 1u64 << 20;
    let files = [
        ("manifests/a.yaml", 256 * mib),
        ("manifests/b.yaml", 256 * mib),
        ("manifests/c.yaml", 256 * mib),
        ("manifests/d.yaml", 1024),
    ];
    let big = b.zeros_tar(BUNDLE_REPO, &files, ("manifests/e.yaml", 256 * mib));
    let config = br#"{"architecture":"amd64","os":"linux","config":{}}"#;
    let config_digest = b.blob(BUNDLE_REPO, config);
    let layer = |(digest, size): (&str, u64), mt: &str| {
        format!(
            r#"{{"mediaType":"application/vnd.oci.image.layer.v1.{mt}","digest":"{digest}","size":{size}}}"#
        )
    };
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{},{}]}}"#,
        config.len(),
        layer((&annotations.0, annotations.1 as u64), "tar+gzip"),
        layer((&big.0, big.1), "tar"),
    );
    let bundle = |csv: &str, version: &str, image: &str| {
        format!(
            r#"{{"schema":"olm.bundle","name":"{csv}","package":"etcd","image":"{image}","properties":[{{"type":"olm.package","value":{{"packageName":"etcd","version":"{version}"}}}},{{"type":"olm.csv.metadata","value":{{"displayName":"etcd"}}}}]}}"#
        )
    };
    let catalog = [
        r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}"#.to_string(),
        r#"{"schema":"olm.channel","package":"etcd","name":"stable","entries":[{"name":"etcd.v0.9.0"},{"name":"etcd.v0.9.2","replaces":"etcd.v0.9.0"}]}"#.to_string(),
        bundle("etcd.v0.9.0", "0.9.0", &format!("{BUNDLE_SOURCE}@{}", bundle_digest("etcd.v0.9.0"))),
        bundle("etcd.v0.9.2", "0.9.2", &format!("{BUNDLE_SOURCE}@{}", digest_of(&manifest))),
    ];
    let files = vec![("configs/etcd/catalog.json".to_string(), catalog.join("\n"))];
    let catalog = push_catalog(&mut b, &files, Some(CONFIGS_LABEL));
    let reg = b
        .manifest(CATALOG_REPO, Some("v4.21"), &catalog)
        .manifest(BUNDLE_REPO, None, &manifest)
        .start();
    let s = Setup::new(&reg);
    let (code, out, err) = s.run("etcd.v0.9.0", &["-o", "json"]);
    let json = json_of(&out, &err);
    assert_eq!(
        (code, json["reason"].as_str()),
        (3, Some("deploymentImagesUnknown")),
        "{json}\n{err}"
    );
    let why = json["hops"][0]["deploymentImagesUnknown"].as_str().unwrap();
    assert!(
        why.contains(&format!(
            "layer {}: at /manifests/e.yaml, the files OLM's unpack Job reads",
            big.0
        )) && why.contains("pass 1024 MiB, which this tool does not read"),
        "{why}"
    );
}

/// Issue 38: a bundle image the first mirror refuses (credentials) and the
/// second lacks is `unauthorized`, and its copy line goes to the second
/// mirror, the first that answered "not found" (containers/image goes past
/// the refusal to it, docker/docker_image_src.go `newImageSource`); the
/// step names the mirror passed over, as `explain --probe`'s fix does.
#[test]
fn issue_38_the_copy_line_goes_past_a_mirror_that_refuses() {
    let refusing = Builder::new().basic("user", "secret").start();
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    refusing.write_ca(&s.certs, "refusing");
    let objects = cluster(&s.host, "etcd.v0.9.0").replace(
        &format!("mirrors: [{}/etcd]", s.host),
        &format!("mirrors: [{}/etcd, {}/etcd]", refusing.host(), s.host),
    );
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(&objects)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "imagesNotServed", "{json:#}");
    let steps = json["nextSteps"].as_array().expect("nextSteps");
    let failing = steps
        .iter()
        .find(|s| s["outcome"] == "failing")
        .unwrap_or_else(|| panic!("no failing step: {steps:#?}"));
    let digest = bundle_digest("etcd.v0.9.2");
    assert_eq!(
        failing["commands"],
        serde_json::json!([format!(
            "skopeo copy --all --preserve-digests docker://{BUNDLE_SOURCE}@{digest} docker://{}/etcd/etcd-bundle@{digest}",
            s.host
        )]),
        "{failing:#}"
    );
    let step = failing["step"].as_str().unwrap();
    assert!(
        step.starts_with(&format!("unauthorized {BUNDLE_SOURCE}@{digest}: "))
            && step.ends_with(&format!(
                "; or copy each image a mirror refused to the first mirror that answered not found; CRI-O goes past {} (refused the credentials) to {}: a copy there would not be pulled before that is fixed:",
                refusing.host(),
                s.host
            )),
        "{step}"
    );
}

/// Issue 38: `--cache-dir` keys a catalog whose manifest is an index by the
/// architecture read, as the index's instances may hold other catalogs
/// (here arm64's etcd.v0.9.4 also skips etcd.v0.9.0: one hop, not two): a
/// run for arm64 after one for amd64 reads arm64's catalog, not amd64's
/// from the cache.
#[test]
fn issue_38_cache_dir_keeps_the_architectures_of_an_index_apart() {
    const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
    let backup = backup_by_digest();
    let amd = catalog_files(&backup);
    let arm: Vec<(String, String)> = amd
        .iter()
        .map(|(p, t)| {
            let t = t.replace(
                r#""skipRange":">=0.9.1 <0.9.4"}"#,
                r#""skipRange":">=0.9.1 <0.9.4","skips":["etcd.v0.9.0"]}"#,
            );
            (p.clone(), t)
        })
        .collect();
    assert_ne!(arm, amd);
    let (b, manifests) = mirror_builder(&[], &backup, &[("amd64", amd), ("arm64", arm)]);
    let entry = |m: &str, arch: &str| {
        format!(
            r#"{{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"{}","size":{},"platform":{{"architecture":"{arch}","os":"linux"}}}}"#,
            digest_of(m),
            m.len()
        )
    };
    let index = format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_INDEX}","manifests":[{},{}]}}"#,
        entry(&manifests[0], "amd64"),
        entry(&manifests[1], "arm64")
    );
    let reg = b
        .manifest_typed(CATALOG_REPO, Some("v4.21"), &index, OCI_INDEX)
        .start();
    let s = Setup::new(&reg);
    let cache = s.dir.path().join("cache");
    let cache_arg = cache.to_str().unwrap().to_string();
    let hops = |arch: &str| {
        let args = ["-o", "json", "--arch", arch, "--cache-dir", &cache_arg];
        let (code, out, err) = s.run("etcd.v0.9.0", &args);
        assert_eq!(code, 0, "{arch}: {out}\n{err}");
        let json = json_of(&out, &err);
        let to: Vec<String> = json["hops"]
            .as_array()
            .unwrap_or_else(|| panic!("{arch}: {json:#}"))
            .iter()
            .map(|h| h["to"].as_str().unwrap_or_default().to_string())
            .collect();
        to
    };
    assert_eq!(hops("amd64"), ["etcd.v0.9.2", "etcd.v0.9.4"]);
    assert_eq!(
        hops("arm64"),
        ["etcd.v0.9.4"],
        "arm64's catalog, not amd64's from the cache"
    );
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        2,
        "one file each"
    );
    let blobs = reg.requests_to(&format!("/v2/{CATALOG_REPO}/blobs/"));
    assert_eq!(hops("amd64"), ["etcd.v0.9.2", "etcd.v0.9.4"]);
    assert_eq!(
        reg.requests_to(&format!("/v2/{CATALOG_REPO}/blobs/")),
        blobs,
        "amd64's catalog again from its cache"
    );
}
