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

use support::registry::{digest_of, manifest_body, Builder, FakeRegistry};

const CATALOG_REPO: &str = "redhat/etcd-index";
const BUNDLE_SOURCE: &str = "quay.io/etcd/etcd-bundle";
const OPERATOR_SOURCE: &str = "quay.io/etcd/etcd-operator";
const OPERAND_SOURCE: &str = "quay.io/etcd/etcd";
const BACKUP_SOURCE: &str = "quay.io/etcd/etcd-backup";

fn tar(files: &[(&str, &str)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, body) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(body.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, path, body.as_bytes())
            .expect("append");
    }
    b.into_inner().expect("tar")
}

fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut e, raw).expect("gzip");
    e.finish().expect("gzip")
}

/// The digest of a small image named `seed` (its manifest is [`manifest_body`]).
fn image_digest(seed: &str) -> String {
    digest_of(&manifest_body(seed))
}

/// The bundles of package etcd: `(csv, version, seed of its bundle image)`.
const BUNDLES: &[(&str, &str)] = &[
    ("etcd.v0.9.0", "0.9.0"),
    ("etcd.v0.9.2", "0.9.2"),
    ("etcd.v0.9.4", "0.9.4"),
];

/// The catalog files: package and channel as a JSON stream, the bundles as
/// a YAML multi-document stream (one with the CSV as an `olm.bundle.object`),
/// another package, an ignored README and an ignored broken file.
fn catalog_files(backup: &str) -> Vec<(String, String)> {
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
        let bundle = format!("{BUNDLE_SOURCE}@{}", image_digest(csv));
        bundles.push_str(&format!(
            "---\nschema: olm.bundle\nname: {csv}\npackage: etcd\nimage: {bundle}\nproperties:\n- type: olm.package\n  value:\n    packageName: etcd\n    version: {version}\n- type: olm.gvk\n  value: {{group: etcd.database.coreos.com, kind: EtcdCluster, version: v1beta2}}\n"
        ));
        if *csv == "etcd.v0.9.4" {
            bundles.push_str(&format!(
                "- type: olm.bundle.object\n  value:\n    data: {object}\nrelatedImages:\n- name: operator\n  image: {operator}\n- name: etcd\n  image: {OPERAND_SOURCE}@{}\n- name: backup\n  image: {backup}\n- name: bundle\n  image: {bundle}\n",
                image_digest("etcd-3.5")
            ));
        } else {
            bundles.push_str(&format!(
                "- type: olm.csv.metadata\n  value: {{displayName: etcd}}\nrelatedImages:\n- name: operator\n  image: {OPERATOR_SOURCE}@{}\n",
                image_digest(&format!("operator-{version}"))
            ));
        }
    }
    let other = r#"{"schema":"olm.package","name":"other"}
{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/other/bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000","properties":[{"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}}]}
"#;
    vec![
        ("configs/etcd/catalog.json".into(), channel.into()),
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

/// The manifest of a catalog image (its blobs stored) whose configs are `files`: a gzip
/// base layer, the configs as a plain tar, then a gzip layer with the
/// operator's cache and a whiteout of `configs/old/catalog.json`.
fn push_catalog(b: &mut Builder, files: &[(String, String)], label: Option<&str>) -> String {
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

const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";
const DATABASE_LABEL: &str = "operators.operatorframework.io.index.database.v1";

/// A mirror with the catalog (`v4.21`; `broken` with a malformed file;
/// `plain` without the label) and every image but the bundles of `missing`.
fn mirror(missing: &[&str], backup: &str) -> FakeRegistry {
    let mut b = Builder::new();
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
    for (csv, version) in BUNDLES {
        if !missing.contains(csv) {
            b = b.manifest("etcd/etcd-bundle", None, &manifest_body(csv));
        }
        b = b.manifest(
            "etcd/etcd-operator",
            None,
            &manifest_body(&format!("operator-{version}")),
        );
    }
    b.manifest("etcd/etcd", None, &manifest_body("etcd-3.5"))
        .manifest("etcd/etcd-backup", None, &manifest_body("backup-0.9.4"))
        .start()
}

/// The cluster: oc-mirror's IDMS for quay.io/etcd (digest-only, the source
/// never contacted), the CatalogSource it writes (the catalog on the
/// mirror), a Subscription on etcd.v0.9.0 and the CSV of etcd.v0.9.1.
fn cluster(host: &str, installed: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/etcd\n    mirrors: [{host}/etcd]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: cs-etcd-index-v4-21, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {host}/{CATALOG_REPO}:v4.21\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: etcd, namespace: operators}}\nspec:\n  name: etcd\n  channel: stable\n  source: cs-etcd-index-v4-21\n  sourceNamespace: openshift-marketplace\n  installPlanApproval: Manual\nstatus:\n  installedCSV: {installed}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata: {{name: etcd.v0.9.1, namespace: operators}}\nspec:\n  version: 0.9.1\n"
    )
}

struct Setup {
    dir: TempDir,
    certs: PathBuf,
    host: String,
}

impl Setup {
    fn new(r: &FakeRegistry) -> Self {
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
        let p = self.dir.path().join("cluster.yaml");
        std::fs::write(&p, cluster(&self.host, installed)).expect("write");
        p
    }

    fn run(&self, installed: &str, args: &[&str]) -> (i32, String, String) {
        let files = self.objects(installed);
        let mut c = support::bin();
        c.env("HOME", self.dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("DOCKER_CONFIG")
            .arg("operator-check")
            .arg("--cert-dir")
            .arg(&self.certs)
            .arg("-f")
            .arg(&files)
            .args(args);
        let out = c.output().expect("run");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn json_of(stdout: &str, stderr: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"))
}

fn images(hop: &Value) -> Vec<(String, String, String, bool)> {
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

fn backup_by_digest() -> String {
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
    let bundle_2 = format!("{BUNDLE_SOURCE}@{}", image_digest("etcd.v0.9.2"));
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
    assert_eq!(last.len(), 4, "bundle, the CSV's deployment, the operand and the backup (the operator and bundle relatedImages are the same images): {last:?}");
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
        "skopeo copy --all docker://{bundle_2} docker://{}/etcd/etcd-bundle@{}",
        s.host,
        image_digest("etcd.v0.9.2")
    );
    assert_eq!(steps[0]["commands"], serde_json::json!([copy]), "{steps:?}");
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
