//! Whole-process `operator-check` of three Subscriptions against a
//! generated file-based catalog of 200 packages and 5,000 bundles, shaped as
//! Red Hat's and the community catalogs are: one file per bundle, YAML and
//! JSON mixed (pretty-printed JSON as `opm render` writes it), each package's
//! `olm.package` and channels as a JSON stream or a YAML multi-document file,
//! a replaces chain with a `skipRange` every fifth entry and on the heads,
//! `skips`, `olm.csv.metadata` with its description and `alm-examples`, every
//! fourth bundle carrying its CSV and CRD as `olm.bundle.object`, four to six
//! relatedImages (by tag in half the community packages), an `.indexignore`,
//! a base layer and opm's `tmp/cache` layer. The catalog and the images of the
//! three packages checked are on the tests' fake registry (TLS on
//! 127.0.0.1); each Subscription starts from its package's oldest bundle, so
//! the path is read and resolved hop by hop and every image of it probed.
//!
//! ```sh
//! cargo bench --bench operator -- [--packages N] [--bundles M] [--runs R]
//! ```
//!
//! Those are the defaults; with other sizes the Subscriptions follow the
//! packages near the start, the middle and the end of that catalog (fewer
//! than three in a catalog of fewer than five packages), and the first line
//! names the catalog and the Subscriptions actually checked.
//!
//! Prints the catalog's size, and per run the wall time and the process's
//! own peak resident memory (`VmHWM` read from /proc while it runs: not
//! `ru_maxrss`, which carries the parent's high-water mark into a child);
//! BENCHMARKS.md records the figures.

#[path = "../tests/it/support/layers.rs"]
mod layers;
#[path = "../tests/it/support/registry.rs"]
mod registry;
#[path = "../tests/it/support/rss.rs"]
mod rss;

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine as _;

const CATALOG_REPO: &str = "redhat/redhat-operator-index";
const CONFIGS_LABEL: &str = "operators.operatorframework.io.index.configs.v1";

struct Options {
    packages: usize,
    bundles: usize,
    runs: usize,
}

impl Options {
    /// The packages the Subscriptions follow: one near the catalog's start,
    /// one in its middle and one near its end (6, 100 and 198 of 200), each
    /// even, so all their images are by digest; fewer when the catalog has
    /// fewer packages.
    fn checked(&self) -> Vec<usize> {
        let p = self.packages;
        let mut out: Vec<usize> = [p * 3 / 100, p / 2, p.saturating_sub(2)]
            .into_iter()
            .map(|i| i & !1)
            .collect();
        out.dedup();
        out
    }
}

fn options() -> Options {
    let mut o = Options {
        packages: 200,
        bundles: 5000,
        runs: 3,
    };
    let mut given = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(arg) = given.next() {
        let mut value = || given.next().expect("a value after the flag");
        match arg.as_str() {
            "--packages" => o.packages = value().parse().expect("--packages N"),
            "--bundles" => o.bundles = value().parse().expect("--bundles M"),
            "--runs" => o.runs = value().parse().expect("--runs R"),
            other => panic!("unknown argument {other}"),
        }
    }
    assert!(
        o.packages > 0 && o.bundles >= o.packages,
        "--bundles M must be at least --packages N, which must be at least 1"
    );
    o
}

/// A package of the generated catalog.
struct Package {
    name: String,
    bundles: usize,
    /// Community content: half its relatedImages by tag.
    by_tag: bool,
}

impl Package {
    fn csv(&self, i: usize) -> String {
        format!("{}.v1.{i}.0", self.name)
    }

    /// An image of bundle `i` (`role` names it), by digest or by tag.
    fn image(&self, role: &str, i: usize, tag: bool) -> String {
        let repo = format!("quay.io/{}/{role}", self.name);
        if tag {
            format!("{repo}:v1.{i}.0")
        } else if role == "bundle" {
            format!("{repo}@{}", registry::digest_of(&bundle_image(self, i).0))
        } else {
            let seed = format!("{}/{role}/{i}", self.name);
            format!(
                "{repo}@{}",
                registry::digest_of(&registry::manifest_body(&seed))
            )
        }
    }

    /// The relatedImages of bundle `i`: the bundle itself (no name, as opm
    /// lists it), the operator, and two to four operands.
    fn related(&self, i: usize) -> Vec<(String, String)> {
        let mut out = vec![
            (String::new(), self.image("bundle", i, false)),
            ("operator".to_string(), self.image("operator", i, false)),
        ];
        for k in 0..(2 + i % 3) {
            let tag = self.by_tag && k % 2 == 1;
            out.push((
                format!("operand-{k}"),
                self.image(&format!("operand-{k}"), i, tag),
            ));
        }
        out
    }

    /// The channel entry of bundle `i`: replaces the one before, or every
    /// seventh entry skips it and replaces the one before that (as a
    /// withdrawn release is skipped); a skipRange every fifth entry and on
    /// the head.
    fn entry(&self, i: usize) -> serde_json::Value {
        let mut e = serde_json::json!({ "name": self.csv(i) });
        if i % 7 == 3 {
            e["replaces"] = self.csv(i - 2).into();
            e["skips"] = serde_json::json!([self.csv(i - 1)]);
        } else if i > 0 {
            e["replaces"] = self.csv(i - 1).into();
        }
        if i >= 4 && (i % 5 == 4 || i + 1 == self.bundles) {
            e["skipRange"] = format!(">=1.{}.0 <1.{i}.0", i - 4).into();
        }
        e
    }
}

/// The CSV of bundle `i` (its deployment runs the operator image), padded
/// to the size of a real one with its description and `alm-examples`.
fn csv_object(p: &Package, i: usize, description: &str) -> String {
    serde_json::json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": p.csv(i), "annotations": {"alm-examples": alm_examples(p)}},
        "spec": {
            "version": format!("1.{i}.0"),
            "description": description,
            "install": {"strategy": "deployment", "spec": {"deployments": [{
                "name": format!("{}-controller-manager", p.name),
                "spec": {"template": {"spec": {"containers": [
                    {"name": "manager", "image": p.image("operator", i, false)},
                    {"name": "kube-rbac-proxy", "image": p.image("operand-0", i, false)},
                ]}}},
            }]}},
        },
    })
    .to_string()
}

fn alm_examples(p: &Package) -> String {
    let spec: String = (0..24)
        .map(|k| format!("\"field{k}\":\"value {k}\","))
        .collect();
    format!(
        "[{{\"apiVersion\":\"{}.example.com/v1\",\"kind\":\"Cluster\",\"metadata\":{{\"name\":\"example\"}},\"spec\":{{{spec}\"size\":3}}}}]",
        p.name
    )
}

/// The bundle image of bundle `i` as operator-sdk builds it: a config with
/// the bundle label, one gzip layer with `metadata/annotations.yaml` and the
/// CSV in `manifests/` (what OLM's unpack Job copies, and all the tool reads
/// of it when the catalog does not carry the CSV). Its manifest and blobs
/// (the config first).
fn bundle_image(p: &Package, i: usize) -> (String, [Vec<u8>; 2]) {
    let annotations = format!(
        "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: {}\n",
        p.name
    );
    let csv = csv_object(p, i, "");
    let layer = tar_gz(&[
        (
            format!("manifests/{}.clusterserviceversion.yaml", p.name),
            csv.into_bytes(),
        ),
        (
            "metadata/annotations.yaml".to_string(),
            annotations.into_bytes(),
        ),
    ]);
    let config = r#"{"architecture":"amd64","os":"linux","config":{"Labels":{"operators.operatorframework.io.bundle.manifests.v1":"manifests/"}}}"#;
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{}","size":{}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{}","size":{}}}]}}"#,
        registry::digest_of_bytes(config.as_bytes()),
        config.len(),
        registry::digest_of_bytes(&layer),
        layer.len()
    );
    (manifest, [config.as_bytes().to_vec(), layer])
}

/// The `olm.bundle` of bundle `i` as a JSON value.
fn bundle_doc(p: &Package, i: usize, description: &str) -> serde_json::Value {
    let version = format!("1.{i}.0");
    let mut props = vec![
        serde_json::json!({"type": "olm.package", "value": {"packageName": p.name, "version": version}}),
        serde_json::json!({"type": "olm.gvk", "value": {"group": format!("{}.example.com", p.name), "kind": "Cluster", "version": "v1"}}),
        serde_json::json!({"type": "olm.gvk", "value": {"group": format!("{}.example.com", p.name), "kind": "Backup", "version": "v1beta1"}}),
    ];
    if i.is_multiple_of(4) {
        let b64 = base64::engine::general_purpose::STANDARD;
        let csv = b64.encode(csv_object(p, i, description));
        let crd = b64.encode(format!("{{\"kind\":\"CustomResourceDefinition\",\"spec\":{{\"group\":\"{}.example.com\",\"description\":\"{description}\"}}}}", p.name));
        props.push(serde_json::json!({"type": "olm.bundle.object", "value": {"data": csv}}));
        props.push(serde_json::json!({"type": "olm.bundle.object", "value": {"data": crd}}));
    }
    props.push(serde_json::json!({"type": "olm.csv.metadata", "value": {
        "annotations": {"alm-examples": alm_examples(p), "capabilities": "Seamless Upgrades"},
        "description": description,
        "displayName": p.name,
        "keywords": ["database", "backup", "operator"],
        "maintainers": [{"email": "team@example.com", "name": "Team"}],
        "provider": {"name": "Example"},
    }}));
    let related: Vec<serde_json::Value> = p
        .related(i)
        .into_iter()
        .map(|(name, image)| serde_json::json!({"name": name, "image": image}))
        .collect();
    serde_json::json!({
        "schema": "olm.bundle", "name": p.csv(i), "package": p.name,
        "image": p.image("bundle", i, false), "properties": props, "relatedImages": related,
    })
}

/// A JSON value as a YAML block document (flow values, as `opm render -o yaml` spells the rest).
fn yaml_doc(v: &serde_json::Value) -> String {
    let mut out = String::from("---\n");
    for (k, v) in v.as_object().expect("an object") {
        match v {
            serde_json::Value::Array(items) => {
                let _ = writeln!(out, "{k}:");
                for item in items {
                    let _ = writeln!(out, "- {item}");
                }
            }
            other => {
                let _ = writeln!(out, "{k}: {other}");
            }
        }
    }
    out
}

/// Every file of package `p`: its package and channels, and one per bundle.
fn package_files(p: &Package, index: usize) -> Vec<(String, Vec<u8>)> {
    let description = format!("{} manages clusters. ", p.name).repeat(40);
    let entries: Vec<serde_json::Value> = (0..p.bundles).map(|i| p.entry(i)).collect();
    let fast: Vec<serde_json::Value> = entries.iter().skip(p.bundles / 2).cloned().collect();
    let docs = [
        serde_json::json!({"schema": "olm.package", "name": p.name, "defaultChannel": "stable", "description": description}),
        serde_json::json!({"schema": "olm.channel", "package": p.name, "name": "stable", "entries": entries}),
        serde_json::json!({"schema": "olm.channel", "package": p.name, "name": "fast", "entries": fast}),
    ];
    let dir = format!("configs/{}", p.name);
    let mut files = Vec::with_capacity(p.bundles + 1);
    if index.is_multiple_of(2) {
        let text: String = docs.iter().map(|d| format!("{d:#}\n")).collect();
        files.push((format!("{dir}/catalog.json"), text.into_bytes()));
    } else {
        let text: String = docs.iter().map(yaml_doc).collect();
        files.push((format!("{dir}/catalog.yaml"), text.into_bytes()));
    }
    for i in 0..p.bundles {
        let doc = bundle_doc(p, i, &description);
        let (name, text) = if (index + i).is_multiple_of(2) {
            (format!("{}.json", p.csv(i)), format!("{doc:#}\n"))
        } else {
            (format!("{}.yaml", p.csv(i)), yaml_doc(&doc))
        };
        files.push((format!("{dir}/bundles/{name}"), text.into_bytes()));
    }
    files
}

fn tar_gz(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let raw = layers::tar_of(files.iter().map(|(p, body)| (p.as_str(), &body[..])));
    layers::gzip_with(&raw, flate2::Compression::default())
}

/// The generated catalog (and the images of the checked packages) on a
/// fake registry; the configs' size in bytes (as files, and compressed).
fn serve(o: &Options) -> (registry::FakeRegistry, usize, usize) {
    let per = o.bundles / o.packages;
    let checked = o.checked();
    let mut b = registry::Builder::new();
    let mut configs = vec![("configs/.indexignore".to_string(), b"*.md\n".to_vec())];
    configs.push((
        "configs/README.md".to_string(),
        b"# not a catalog {".to_vec(),
    ));
    for index in 0..o.packages {
        let p = Package {
            name: format!("operator-{index:03}"),
            bundles: per,
            by_tag: index % 2 == 1,
        };
        configs.extend(package_files(&p, index));
        if checked.contains(&index) {
            b = images(b, &p);
        }
    }
    let size: usize = configs.iter().map(|(_, t)| t.len()).sum();
    let layers = [
        tar_gz(&[("bin/opm".to_string(), vec![0x7f; 4 << 20])]),
        tar_gz(&configs),
        tar_gz(&[("tmp/cache/cache.json".to_string(), vec![b'{'; 1 << 20])]),
    ];
    let compressed = layers[1].len();
    let config = format!(
        r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{{"{CONFIGS_LABEL}":"/configs"}}}}}}"#
    );
    let config_digest = b.blob(CATALOG_REPO, config.as_bytes());
    let descs: Vec<String> = layers
        .iter()
        .map(|l| {
            let d = b.blob(CATALOG_REPO, l);
            format!(r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{d}","size":{}}}"#, l.len())
        })
        .collect();
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{}]}}"#,
        config.len(),
        descs.join(",")
    );
    let reg = b.manifest(CATALOG_REPO, Some("v4.21"), &manifest).start();
    (reg, size, compressed)
}

/// Every image of package `p` on the mirror (`quay.io/<package>/<role>` as
/// `<package>/<role>`): the bundles as bundle images, the others small images.
fn images(mut b: registry::Builder, p: &Package) -> registry::Builder {
    for i in 0..p.bundles {
        for (_, image) in p.related(i) {
            let (repo, _) = image
                .split_once('@')
                .expect("by digest in a checked package");
            let role = repo.rsplit('/').next().expect("a role");
            let repo = repo.trim_start_matches("quay.io/");
            let manifest = if role == "bundle" {
                let (manifest, blobs) = bundle_image(p, i);
                for blob in &blobs {
                    b.blob(repo, blob);
                }
                manifest
            } else {
                registry::manifest_body(&format!("{}/{role}/{i}", p.name))
            };
            b = b.manifest(repo, None, &manifest);
        }
    }
    b
}

/// The cluster: quay.io mirrored by digest, the CatalogSource on the
/// mirror, and a Subscription from the oldest bundle of each checked package.
fn cluster(host: &str, checked: &[usize]) -> String {
    let mut out = format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io\n    mirrors: [{host}]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: redhat-operators, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {host}/{CATALOG_REPO}:v4.21\n"
    );
    for index in checked {
        let _ = write!(
            out,
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: operator-{index:03}, namespace: operators}}\nspec:\n  name: operator-{index:03}\n  channel: stable\n  source: redhat-operators\n  sourceNamespace: openshift-marketplace\nstatus:\n  installedCSV: operator-{index:03}.v1.0.0\n"
        );
    }
    out
}

/// One run: wall time, peak resident memory in KiB, exit code, stdout.
fn run(dir: &std::path::Path) -> (Duration, i64, i32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-mirrorpolicy"));
    cmd.env("HOME", dir)
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("DOCKER_CONFIG")
        .args(["operator-check", "-f"])
        .arg(dir.join("cluster.yaml"))
        .arg("--cert-dir")
        .arg(dir.join("certs"))
        .args(["-o", "json"]);
    let started = Instant::now();
    let run = rss::peak_rss(cmd);
    let elapsed = started.elapsed();
    eprint!("{}", run.stderr);
    (elapsed, run.peak_kib, run.code, run.stdout)
}

fn main() {
    let o = options();
    let (reg, size, compressed) = serve(&o);
    println!(
        "{} packages, {} bundles; configs {:.1} MiB ({:.1} MiB compressed); {} Subscription(s)",
        o.packages,
        o.bundles / o.packages * o.packages,
        size as f64 / 1048576.0,
        compressed as f64 / 1048576.0,
        o.checked().len()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let certs = dir.path().join("certs");
    std::fs::create_dir(&certs).expect("certs");
    reg.write_ca(&certs, "mirror");
    let cluster_yaml = cluster(&reg.host(), &o.checked());
    std::fs::write(dir.path().join("cluster.yaml"), cluster_yaml).expect("objects");
    for r in 1..=o.runs {
        let before = reg.log().len();
        let (wall, peak_kib, code, out) = run(dir.path());
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
        // One Subscription is one object; several are a list of them.
        let items = match v.get("items").and_then(|i| i.as_array()) {
            Some(items) => items.clone(),
            None => vec![v.clone()],
        };
        let hops: usize = items
            .iter()
            .map(|s| s["hops"].as_array().map_or(0, Vec::len))
            .sum();
        let verdicts: Vec<&str> = items.iter().filter_map(|s| s["reason"].as_str()).collect();
        let messages: Vec<&str> = items.iter().filter_map(|s| s["message"].as_str()).collect();
        assert_eq!(code, 0, "not ready: {verdicts:?}: {messages:?}");
        println!(
            "run {r}: wall {:.2} s, peak {:.1} MiB, {hops} hops, {} requests, {verdicts:?}",
            wall.as_secs_f64(),
            peak_kib as f64 / 1024.0,
            reg.log().len() - before
        );
    }
}
