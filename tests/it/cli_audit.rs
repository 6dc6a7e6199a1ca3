//! `audit` through the binary: every class on a fixture cluster, the JSON
//! contract, `--fail-on` exit codes and namespace scoping, offline and
//! against the fake API server.

use crate::support;

use std::collections::BTreeMap;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const CLUSTER: &str = "tests/fixtures/audit-cluster";

use support::bin;

fn json(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn classes(report: &Value) -> BTreeMap<String, String> {
    report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["reference"].as_str().unwrap().to_string(),
                i["class"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_class_with_its_objects() {
    let report = json(bin().args(["audit", "-f", CLUSTER, "-o", "json"]));
    let want: BTreeMap<String, String> = [
        ("registry.example.com/Apps/Report:1", "invalid"),
        ("untrusted.example.com/agent:1", "notAllowed"),
        ("quay.io/openshift-release-dev/ocp-release:4.16.8-x86_64", "sourceBlocked"),
        ("registry.example.com/apps/web:2.1", "tagSkipsDigestMirrors"),
        ("busybox", "shortName"),
        ("docker.io/library/nginx:1.25", "direct"),
        ("quay.io/openshift-release-dev/ocp-release@sha256:5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e", "mirrored"),
        ("quay.io/tools/cli:1.2", "mirrored"),
        ("registry.example.com/apps/db@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e", "mirrored"),
        ("registry.example.com/apps/tools-operator@sha256:0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d", "mirrored"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(classes(&report), want);
    assert_eq!(
        report["summary"],
        serde_json::json!({"invalid": 1, "notAllowed": 1, "sourceBlocked": 1,
            "shortNameRefused": 0, "tagSkipsDigestMirrors": 1, "shortName": 1,
            "direct": 1, "mirrored": 4})
    );
    // Worst first; the objects behind each image; the signature policy.
    let images = report["images"].as_array().unwrap();
    assert_eq!(images[0]["class"], "invalid");
    let web = images
        .iter()
        .find(|i| i["reference"] == "registry.example.com/apps/web:2.1")
        .unwrap();
    // The ReplicaSet the Deployment owns is not counted again.
    assert_eq!(web["objects"], serde_json::json!(["Deployment/shop/web"]));
    assert!(web["detail"].as_str().unwrap().contains("pin a digest"));
    let release = images
        .iter()
        .find(|i| i["class"] == "sourceBlocked")
        .unwrap();
    assert_eq!(release["signatureRequired"], true);
    assert!(release["detail"]
        .as_str()
        .unwrap()
        .contains("signature required by ClusterImagePolicy/release-signed"));
    let operator = images
        .iter()
        .find(|i| i["reference"] == "quay.io/tools/cli:1.2")
        .unwrap();
    assert_eq!(
        operator["objects"],
        serde_json::json!(["ClusterServiceVersion/operators/tools-operator.v1.2.0"])
    );
    // A pull by tag past digest-only mirrors (the blocked release too)
    // carries its fix.
    for image in images {
        let keys: Vec<&str> = image
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = vec![
            "reference",
            "class",
            "objects",
            "signatureRequired",
            "detail",
        ];
        let by_tag = [
            "registry.example.com/apps/web:2.1",
            "quay.io/openshift-release-dev/ocp-release:4.16.8-x86_64",
        ];
        if by_tag.contains(&image["reference"].as_str().unwrap()) {
            want.push("fix");
        }
        assert_eq!(keys, want, "{image}");
    }
}

#[test]
fn table_groups_and_summarises() {
    bin()
        .args(["audit", "-f", CLUSTER])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^tagSkipsDigestMirrors\s+registry\.example\.com/apps/web:2\.1\s+Deployment/shop/web\s+-\s+pulled by tag").unwrap())
        .stdout(predicate::str::ends_with(
            "10 images: 1 invalid, 1 notAllowed, 1 sourceBlocked, 1 tagSkipsDigestMirrors, 1 shortName, 1 direct, 4 mirrored\n",
        ));
}

#[test]
fn fail_on_levels() {
    bin().args(["audit", "-f", CLUSTER]).assert().code(0);
    bin()
        .args(["audit", "-f", CLUSTER, "--fail-on", "error"])
        .assert()
        .code(1);
    // shop has a tag pull and a short name (warnings) but nothing that fails.
    bin()
        .args(["audit", "-f", CLUSTER, "-n", "shop", "--fail-on", "error"])
        .assert()
        .code(0);
    bin()
        .args(["audit", "-f", CLUSTER, "-n", "shop", "--fail-on", "warning"])
        .assert()
        .code(1);
    bin()
        .args([
            "audit",
            "-f",
            CLUSTER,
            "-n",
            "operators",
            "--fail-on",
            "warning",
        ])
        .assert()
        .code(0);
}

// The issue names classes in camelCase (`missingOnMirror`); JSON, the table
// and --fail-on use that spelling, and --fail-on also takes the kebab-case
// one earlier releases printed.
#[test]
fn issue_16_fail_on_classes_in_either_spelling() {
    // shop: tagSkipsDigestMirrors, shortName, direct, mirrored; no sourceBlocked.
    for spelling in [
        "tagSkipsDigestMirrors",
        "tag-skips-digest-mirrors",
        "TAG-SKIPS-digest-mirrors",
    ] {
        bin()
            .args(["audit", "-f", CLUSTER, "-n", "shop", "--fail-on", spelling])
            .assert()
            .code(1);
    }
    for spelling in ["sourceBlocked", "source-blocked"] {
        bin()
            .args(["audit", "-f", CLUSTER, "-n", "shop", "--fail-on", spelling])
            .assert()
            .code(0);
        bin()
            .args(["audit", "-f", CLUSTER, "--fail-on", spelling])
            .assert()
            .code(1);
    }
    // A list, and a level with a class.
    bin()
        .args([
            "audit",
            "-f",
            CLUSTER,
            "-n",
            "shop",
            "--fail-on",
            "missing-on-mirror,unsignedOnMirror",
        ])
        .assert()
        .code(0);
    bin()
        .args([
            "audit",
            "-f",
            CLUSTER,
            "-n",
            "shop",
            "--fail-on",
            "error,shortName",
        ])
        .assert()
        .code(1);
    bin()
        .args(["audit", "-f", CLUSTER, "--fail-on", "missingOnMirrors"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missingOnMirror"));
    // The JSON value is the name --fail-on takes.
    let report = json(bin().args(["audit", "-f", CLUSTER, "-n", "shop", "-o", "json"]));
    assert!(report["images"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["class"] == "tagSkipsDigestMirrors"));
    assert_eq!(report["summary"]["shortName"], 1);
}

#[test]
fn namespace_filter_and_wide() {
    let report = json(bin().args(["audit", "-f", CLUSTER, "-n", "ops", "-o", "json"]));
    assert_eq!(report["images"].as_array().unwrap().len(), 3);
    bin()
        .args(["audit", "-f", CLUSTER, "-o", "wide", "-n", "operators"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ClusterServiceVersion/operators/tools-operator.v1.2.0",
        ));
    bin()
        .args(["audit", "-f", CLUSTER, "-n", "empty"])
        .assert()
        .success()
        .stderr(predicate::str::contains("no image references"))
        .stdout("0 images\n");
}

#[test]
fn yaml_output_reads_back() {
    let out = bin()
        .args(["audit", "-f", CLUSTER, "-o", "yaml"])
        .output()
        .unwrap();
    let v: Value = serde_saphyr::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(v["summary"]["mirrored"], 4);
}

#[test]
fn live_matches_files_and_scopes_to_the_context_namespace() {
    let server = support::apiserver::Builder::openshift()
        .objects_from(CLUSTER)
        .start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let offline = json(bin().args(["audit", "-f", CLUSTER, "-o", "json"]));
    let live = json(
        bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-A", "-o", "json"]),
    );
    assert_eq!(live, offline);
    // All workload lists went out at once, cluster-wide, with the mirror reads.
    let paths: Vec<String> = server.log().into_iter().map(|l| l.path).collect();
    assert!(paths.contains(&"/api/v1/pods".to_string()), "{paths:?}");
    assert!(
        paths.contains(&"/apis/operators.coreos.com/v1alpha1/clusterserviceversions".to_string()),
        "{paths:?}"
    );
    server.clear_log();
    // The kubeconfig's namespace is `default`: nothing there.
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["audit"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "in namespace default (-A for all)",
        ));
    assert!(server
        .log()
        .iter()
        .any(|l| l.path == "/api/v1/namespaces/default/pods"));
    let shop = json(
        bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-n", "shop", "-o", "json"]),
    );
    assert_eq!(shop["images"].as_array().unwrap().len(), 4);
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["audit", "-n", "ops", "--fail-on", "error"])
        .assert()
        .code(1);
}

#[test]
fn live_without_csv_crd_still_audits() {
    let server = support::apiserver::Builder::openshift()
        .objects_from(CLUSTER)
        .without("clusterserviceversions.operators.coreos.com")
        .start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let report = json(
        bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-A", "-o", "json"]),
    );
    assert_eq!(report["images"].as_array().unwrap().len(), 8);
}

#[test]
fn a_must_gather_folder_as_is() {
    let dir = "tests/fixtures/audit-must-gather";
    let report = json(bin().args(["audit", "-f", dir, "-o", "json"]));
    let web = &report["images"][0];
    assert_eq!(web["reference"], "registry.example.com/apps/web:2.1");
    assert_eq!(web["class"], "tagSkipsDigestMirrors");
    assert_eq!(
        web["objects"],
        serde_json::json!(["Deployment/shop/web", "Pod/shop/web-5d8f7-abcde"])
    );
    assert_eq!(report["summary"]["mirrored"], 1);
    // Other commands do not parse the workload files.
    bin()
        .args(["-v", "list", "-f", dir])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "skipped 2 file(s) naming no known kind",
        ));
}

#[test]
fn a_pod_spec_kubernetes_would_refuse_names_object_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pod.yaml");
    std::fs::write(
        &path,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: broken\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: quay.io/x/app:1\n        ports:\n        - containerPort: http\n",
    )
    .unwrap();
    bin()
        .args(["audit", "-f"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "Deployment/broken: spec.template.spec: invalid type: string \"http\", expected i32",
        ));
}

/// An OpenShift 4.21 cluster (CRI-O enforcing short names) with two search
/// registries, one digest mirror, and a pod of each kind of pull.
const ENFORCING_CLUSTER: &str = "apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    containerRuntimeSearchRegistries:
    - registry.access.redhat.com
    - docker.io
---
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata:
  name: version
status:
  desired:
    image: quay.io/openshift-release-dev/ocp-release@sha256:5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e
    version: 4.21.2
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: apps
spec:
  imageDigestMirrors:
  - source: registry.example.com/apps
    mirrors:
    - mirror.corp.example.com:5000/apps
---
apiVersion: v1
kind: Pod
metadata:
  name: shell
  namespace: ops
spec:
  containers:
  - name: shell
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: ops
spec:
  containers:
  - name: web
    image: docker.io/library/nginx:1.25
  - name: app
    image: registry.example.com/apps/app@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e
";

fn enforcing_cluster(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("cluster.yaml");
    std::fs::write(&path, ENFORCING_CLUSTER).unwrap();
    path.display().to_string()
}

#[test]
fn issue_14_a_short_name_crio_refuses_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = enforcing_cluster(&dir);
    let out = bin()
        .args(["audit", "-f", &file, "-o", "json", "--fail-on", "error"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(classes(&report)["busybox"], "shortNameRefused");
}

// OpenShift 4.22: the MCO's crio.conf sets short_name_mode = "disabled"
// (machine-config-operator templates, release-4.22), so the same short name
// is tried on every search registry in order, not refused; explain says so.
#[test]
fn issue_35_openshift_4_22_nodes_do_not_enforce_short_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cluster.yaml");
    std::fs::write(
        &path,
        ENFORCING_CLUSTER.replace("version: 4.21.2", "version: 4.22.1"),
    )
    .unwrap();
    let file = path.display().to_string();
    let out = bin()
        .args(["audit", "-f", &file, "-o", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(classes(&report)["busybox"], "shortName");
    let out = bin()
        .args(["explain", "busybox", "-f", &file, "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["shortNameMode"], "disabled", "{json:#}");
}

#[test]
fn issue_14_require_mirror_makes_direct_pulls_errors() {
    let dir = tempfile::tempdir().unwrap();
    let only_mirrored = dir.path().join("mirrored.yaml");
    // Without the short name: the direct image passes --fail-on warning ...
    let text = ENFORCING_CLUSTER.replace("image: busybox", "image: registry.example.com/apps/app@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e");
    std::fs::write(&only_mirrored, &text).unwrap();
    let only_mirrored = only_mirrored.display().to_string();
    bin()
        .args(["audit", "-f", &only_mirrored, "--fail-on", "warning"])
        .assert()
        .code(0);
    // ... and fails once every image must come from a mirror (alone it implies --fail-on error).
    bin()
        .args(["audit", "-f", &only_mirrored, "--require-mirror"])
        .assert()
        .code(1);
    bin()
        .args([
            "audit",
            "-f",
            &only_mirrored,
            "--require-mirror",
            "--fail-on",
            "warning",
        ])
        .assert()
        .code(1);
    // The mirrored image alone passes.
    let mirrored_only = text.replace("image: docker.io/library/nginx:1.25", "image: registry.example.com/apps/app@sha256:1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e");
    std::fs::write(dir.path().join("mirrored.yaml"), mirrored_only).unwrap();
    bin()
        .args(["audit", "-f", &only_mirrored, "--require-mirror"])
        .assert()
        .code(0);
}

#[test]
fn issue_14_audit_no_headers() {
    let out = bin()
        .args(["audit", "-f", CLUSTER, "--no-headers"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("CLASS"), "{text}");
    assert!(text.trim_start().starts_with("invalid"), "{text}");
}

/// A must-gather of an OLM cluster: an AllNamespaces operator installed in
/// openshift-operators, the copies OLM made of its CSV in payments (label
/// `olm.copiedFrom`) and billing (`status.reason: Copied` only), an
/// ImagePolicy in payments that requires signatures for the operator's
/// registry, and three CatalogSources (by tag, by digest on the mirror, by
/// address).
const OPERATORS: &str = "tests/fixtures/audit-operators";

const TOOLS: &str = "registry.example.com/operators/tools@sha256:5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e";
const TOOLS_OPERATOR: &str = "registry.example.com/operators/tools-operator@sha256:8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c";
const INDEX_BY_TAG: &str = "registry.redhat.io/redhat/redhat-operator-index:v4.16";
const INDEX_ON_MIRROR: &str = "mirror.corp.example.com:5000/redhat/redhat-operator-index@sha256:3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a";

fn image<'a>(report: &'a Value, reference: &str) -> &'a Value {
    report["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["reference"] == reference)
        .unwrap_or_else(|| panic!("{reference} not in {report}"))
}

#[test]
fn issue_28_olm_copies_are_skipped_and_images_stay_with_the_original() {
    let out = bin()
        .args(["-v", "audit", "-f", OPERATORS, "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for reference in [TOOLS, TOOLS_OPERATOR] {
        let i = image(&report, reference);
        // Only the original: the pods run in its namespace, whose policy
        // (none) applies; payments' ImagePolicy does not.
        assert_eq!(
            i["objects"],
            serde_json::json!(["ClusterServiceVersion/openshift-operators/tools-operator.v1.0.0"]),
            "{reference}"
        );
        assert_eq!(i["signatureRequired"], false, "{reference}");
        assert_eq!(i["class"], "mirrored", "{reference}");
        assert!(!i["detail"].as_str().unwrap().contains("signature"));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skipped ClusterServiceVersion/payments/tools-operator.v1.0.0: a copy OLM made from namespace openshift-operators (label olm.copiedFrom) for its OperatorGroup; no pod of it runs in payments"),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipped ClusterServiceVersion/billing/tools-operator.v1.0.0: a copy OLM made (status.reason: Copied)"),
        "{stderr}"
    );
    // Without -v, nothing is said; in the copy's namespace alone, nothing
    // is audited, and the message says why.
    let quiet = bin().args(["audit", "-f", OPERATORS]).output().unwrap();
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("skipped"));
    bin()
        .args(["audit", "-f", OPERATORS, "-n", "payments", "--fail-on", "error"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "no image references: no Pod, workload controller, ClusterServiceVersion or CatalogSource in namespace payments (-A for all) (1 ClusterServiceVersion(s) OLM copied there skipped: their pods run in the original's namespace)",
        ));
}

#[test]
fn issue_28_catalog_sources_offline_from_a_must_gather() {
    let report = json(bin().args(["audit", "-f", OPERATORS, "-o", "json"]));
    let by_tag = image(&report, INDEX_BY_TAG);
    assert_eq!(by_tag["class"], "tagSkipsDigestMirrors");
    assert_eq!(
        by_tag["objects"],
        serde_json::json!(["CatalogSource/openshift-marketplace/redhat-operators"])
    );
    let on_mirror = image(&report, INDEX_ON_MIRROR);
    assert_eq!(on_mirror["class"], "direct");
    assert_eq!(
        on_mirror["objects"],
        serde_json::json!(["CatalogSource/openshift-marketplace/cs-redhat-operator-index"])
    );
    // The catalog served at spec.address has no image; the two indexes and
    // the operator's two images are all there is.
    assert_eq!(report["images"].as_array().unwrap().len(), 4, "{report}");
    // Attributed to the CatalogSource's namespace: -n selects it.
    let marketplace = json(bin().args([
        "audit",
        "-f",
        OPERATORS,
        "-n",
        "openshift-marketplace",
        "-o",
        "json",
    ]));
    assert_eq!(classes(&marketplace).len(), 2, "{marketplace}");
    // An index pulled by tag past digest-only mirrors is a warning.
    bin()
        .args([
            "audit",
            "-f",
            OPERATORS,
            "-n",
            "openshift-marketplace",
            "--fail-on",
            "tagSkipsDigestMirrors",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "CatalogSource/openshift-marketplace/redhat-operators",
        ));
    // A CatalogSource list (as `oc get catalogsource -o yaml` prints it) on stdin.
    let list = format!(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: operators.coreos.com/v1alpha1\n  kind: CatalogSource\n  metadata:\n    name: c\n    namespace: olm\n  spec:\n    sourceType: grpc\n    image: {INDEX_BY_TAG}\n"
    );
    let stdin = json(
        bin()
            .args(["audit", "-f", "-", "-o", "json"])
            .write_stdin(list),
    );
    assert_eq!(
        image(&stdin, INDEX_BY_TAG)["objects"],
        serde_json::json!(["CatalogSource/olm/c"])
    );
}

#[test]
fn issue_28_catalog_sources_live() {
    let server = support::apiserver::Builder::openshift()
        .objects_from(OPERATORS)
        .start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let offline = json(bin().args(["audit", "-f", OPERATORS, "-o", "json"]));
    let live = json(
        bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-A", "-o", "json"]),
    );
    assert_eq!(live, offline);
    let paths: Vec<String> = server.log().into_iter().map(|l| l.path).collect();
    assert!(
        paths.contains(&"/apis/operators.coreos.com/v1alpha1/catalogsources".to_string()),
        "{paths:?}"
    );
    server.clear_log();
    let marketplace = json(bin().env("KUBECONFIG", &kubeconfig).args([
        "audit",
        "-n",
        "openshift-marketplace",
        "-o",
        "json",
    ]));
    assert_eq!(classes(&marketplace).len(), 2, "{marketplace}");
    assert!(server.log().iter().any(|l| l.path
        == "/apis/operators.coreos.com/v1alpha1/namespaces/openshift-marketplace/catalogsources"));
    // A cluster without OLM (no CatalogSource CRD) is still audited.
    let without = support::apiserver::Builder::openshift()
        .objects_from(OPERATORS)
        .without("catalogsources.operators.coreos.com")
        .start();
    let kubeconfig = without.write_kubeconfig(dir.path());
    let report = json(
        bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-A", "-o", "json"]),
    );
    assert_eq!(report["images"].as_array().unwrap().len(), 2, "{report}");
    // Listing them is forbidden: the rule that grants it is named.
    let forbidden = support::apiserver::Builder::openshift()
        .objects_from(OPERATORS)
        .forbid("list", "catalogsources")
        .start();
    let kubeconfig = forbidden.write_kubeconfig(dir.path());
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["audit", "-A"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot list catalogsources.operators.coreos.com",
        ));
}

/// The objects of an operator installed in `operators` from `source` (mirrored
/// to `mirror`), a CSV in `payments` (a copy OLM made when `copied`), and
/// an ImagePolicy in payments that requires signatures for `source/ns`.
fn operator_with_copy(source: &str, mirror: &str, image: &str, copied: bool) -> String {
    let csv = |namespace: &str, labels: &str| {
        format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: op.v1\n  namespace: {namespace}\n{labels}spec:\n  relatedImages:\n  - name: op\n    image: {image}\n"
        )
    };
    let copy_label = if copied {
        "  labels:\n    olm.copiedFrom: operators\n"
    } else {
        ""
    };
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: ops\nspec:\n  imageDigestMirrors:\n  - source: {source}/ns\n    mirrors:\n    - {mirror}/ns\n---\napiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata:\n  name: signed\n  namespace: payments\nspec:\n  scopes:\n  - {source}/ns\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t\n    signedIdentity:\n      matchPolicy: MatchRepository\n{}{}",
        csv("operators", ""),
        csv("payments", copy_label)
    )
}

#[test]
fn issue_28_probe_does_not_apply_a_copys_namespace_policy() {
    use support::registry::{digest_of, manifest_body, Builder};
    let body = manifest_body("operator");
    let mirror = Builder::new().manifest("ns/op", None, &body).start();
    let source = Builder::new().start();
    let dir = tempfile::tempdir().unwrap();
    let certs = dir.path().join("certs");
    std::fs::create_dir(&certs).unwrap();
    mirror.write_ca(&certs, "mirror");
    source.write_ca(&certs, "source");
    let reference = format!("{}/ns/op@{}", source.host(), digest_of(&body));
    let class_with = |copied: bool| {
        let file = dir.path().join("objects.yaml");
        std::fs::write(
            &file,
            operator_with_copy(&source.host(), &mirror.host(), &reference, copied),
        )
        .unwrap();
        let report = json(
            bin()
                .args(["audit", "-f"])
                .arg(&file)
                .args(["--probe", "--cert-dir"])
                .arg(&certs)
                .args(["-o", "json"]),
        );
        let i = image(&report, &reference);
        (i["class"].clone(), i["objects"].clone())
    };
    // Served by the mirror without a signature: fine for the operator's own
    // namespace, which requires none.
    let (class, objects) = class_with(true);
    assert_eq!(class, "mirrored");
    assert_eq!(
        objects,
        serde_json::json!(["ClusterServiceVersion/operators/op.v1"])
    );
    // Had a pod of it run in payments, the missing signature would fail the pull.
    let (class, _) = class_with(false);
    assert_eq!(class, "unsignedOnMirror");
}

/// Issue 25: while the cluster updates from 4.20 (short names disabled) to
/// 4.21 (enforcing), a short name the two modes class differently is
/// undetermined (exit 3) with both outcomes; a qualified reference is
/// audited as usual; once the update has completed, the target's mode.
#[test]
fn issue_25_short_names_during_an_update_are_undetermined() {
    let dir = tempfile::tempdir().unwrap();
    let (copy, cv) = support::example_updating_from(dir.path(), "4.20.9");
    let pods = copy.join("namespaces/apps/core");
    std::fs::create_dir_all(&pods).unwrap();
    std::fs::write(
        pods.join("pods.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: tools\n  namespace: apps\nspec:\n  containers:\n  - name: t\n    image: support-tools:latest\n  - name: u\n    image: registry.redhat.io/rhel9/support-tools@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
    )
    .unwrap();
    let out = bin()
        .args(["audit", "-A", "-o", "json", "-f"])
        .arg(&copy)
        .output()
        .unwrap();
    let report = support::json_with_code(&out, 3);
    let class = |image: &str| {
        report["items"]
            .as_array()
            .or(report["images"].as_array())
            .unwrap_or_else(|| panic!("{report}"))
            .iter()
            .find(|i| i["reference"] == image)
            .map(|i| {
                (
                    i["class"].clone(),
                    i["detail"].as_str().unwrap_or_default().to_string(),
                )
            })
            .unwrap_or_else(|| panic!("{image} in {report}"))
    };
    let (short, detail) = class("support-tools:latest");
    assert_eq!(short, "undetermined");
    assert!(
        detail.starts_with("ClusterVersion/version is updating from 4.20.9 (short-name-mode disabled) to 4.21.2 (enforcing)")
            && detail.contains("a node not yet updated finds it shortName")
            && detail.contains("an updated one, shortNameRefused"),
        "{detail}"
    );
    let (qualified, _) = class("registry.redhat.io/rhel9/support-tools@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    assert_eq!(qualified, "mirrored");
    let text = std::fs::read_to_string(&cv)
        .unwrap()
        .replace("state: Partial", "state: Completed");
    std::fs::write(&cv, text).unwrap();
    bin()
        .args(["audit", "-A", "-f"])
        .arg(&copy)
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains("shortNameRefused")
                .or(predicate::str::contains("short-name-refused")),
        );
}

/// Issue 36: images pulled by tag past digest-only mirrors carry the fix
/// `explain` gives (JSON `fix`), and their detail names it: the
/// ImageTagMirrorSet with the same mirrors in the same order, `migrate-icsp
/// --with-tag-mirrors` for an ICSP's, `NeverContactSource` where the IDMS
/// never contacts the source.
#[test]
fn issue_36_tag_pulls_past_digest_only_mirrors_carry_their_fix() {
    const TAG_FIX: &str = "tests/fixtures/tag-mirror-fix";
    let report = json(bin().args(["audit", "-f", TAG_FIX, "-o", "json"]));
    let image = |r: &str| {
        report["images"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["reference"] == r)
            .unwrap_or_else(|| panic!("{r} in {report:#}"))
            .clone()
    };
    let legacy = image("quay.io/legacy/app:1.0");
    assert_eq!(legacy["class"], "tagSkipsDigestMirrors");
    assert_eq!(legacy["fix"]["source"], "quay.io/legacy");
    assert_eq!(
        legacy["fix"]["migrateIcsp"]["command"],
        "kubectl mirrorpolicy migrate-icsp --with-tag-mirrors"
    );
    let detail = legacy["detail"].as_str().unwrap();
    assert!(
        detail.ends_with("mirror the tags, then add an ImageTagMirrorSet for quay.io/legacy with the same mirrors (mirror.corp.example.com:5000/legacy) (for ImageContentSourcePolicy/legacy: kubectl mirrorpolicy migrate-icsp --with-tag-mirrors), or pin a digest"),
        "{detail}"
    );
    let web = image("registry.example.com/apps/web:2.1");
    assert_eq!(web["class"], "tagSkipsDigestMirrors");
    let locations: Vec<&str> = web["fix"]["mirrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["location"].as_str().unwrap())
        .collect();
    assert_eq!(
        locations,
        [
            "mirror-b.corp.example.com/apps",
            "mirror-a.corp.example.com/apps"
        ]
    );
    assert!(web["fix"]["imageTagMirrorSet"]
        .as_str()
        .unwrap()
        .contains("kind: ImageTagMirrorSet\n"));
    assert_eq!(web["fix"].get("migrateIcsp"), None);
    let locked = image("registry.example.com/locked/db:3");
    assert_eq!(locked["class"], "sourceBlocked");
    assert_eq!(locked["fix"]["mirrorSourcePolicy"], "NeverContactSource");
    assert!(locked["detail"]
        .as_str()
        .unwrap()
        .contains("and mirrorSourcePolicy: NeverContactSource, or pin a digest"));
    let pinned = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["class"] == "mirrored")
        .unwrap();
    assert_eq!(pinned.get("fix"), None, "a digest needs no fix");

    bin()
        .args(["audit", "-f", TAG_FIX])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^tagSkipsDigestMirrors\s+registry\.example\.com/apps/web:2\.1\s+Deployment/shop/web\s+-\s+pulled by tag: .*; fix: mirror the tags, then add an ImageTagMirrorSet for registry\.example\.com/apps with the same mirrors \(mirror-b\.corp\.example\.com/apps, mirror-a\.corp\.example\.com/apps\), or pin a digest$").unwrap());
}

/// Issue 36: each audit class that fails or depends on something opens
/// with the words a user meets on the node (the kubelet's event,
/// containers/image's error in CRI-O's log), then the cause, then the fix.
#[test]
fn issue_36_audit_details_say_the_upstream_words_the_cause_and_the_fix() {
    let report = json(bin().args(["audit", "-f", CLUSTER, "-o", "json"]));
    let detail = |reference: &str| {
        image(&report, reference)["detail"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (reference, want) in [
        (
            "registry.example.com/Apps/Report:1",
            "the kubelet's event `Failed to apply default image tag \"registry.example.com/Apps/Report:1\": ...` (the container waits in InvalidImageName): repository name must be lowercase: path component \"Apps\" has upper-case letters; fix: correct the image reference in the workload",
        ),
        (
            "untrusted.example.com/agent:1",
            "registry untrusted.example.com is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d: policy.json rejects it (scope untrusted.example.com), as the MCO writes it from the Image config's allowed/blocked registries; fix: remove untrusted.example.com from spec.registrySources.blockedRegistries (oc edit image.config.openshift.io cluster)",
        ),
        (
            "quay.io/openshift-release-dev/ocp-release:4.16.8-x86_64",
            "registry quay.io/openshift-release-dev/ocp-release is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d: every endpoint is blocked (by ImageDigestMirrorSet/release); 1 mirror(s) skipped for this pull (pull-from-mirror is \"digest-only\" and the reference is by tag; tag pulls never use digest-only mirrors), so the pull fails; fix: to use the mirrors, mirror the tags, then add an ImageTagMirrorSet for quay.io/openshift-release-dev/ocp-release",
        ),
        (
            "busybox",
            "a short name, resolved by the search registries to mirror.corp.example.com:5000/busybox:latest; fix: write it fully qualified (mirror.corp.example.com:5000/busybox:latest) so the pull does not depend on the search registries",
        ),
        (
            "registry.example.com/apps/web:2.1",
            "pulled by tag: the mirrors of ImageDigestMirrorSet/apps serve digests only (pull-from-mirror = \"digest-only\"), so CRI-O never tries them for a tag and the pull goes to registry.example.com/apps/web:2.1, which must be reachable; fix: mirror the tags, then add an ImageTagMirrorSet",
        ),
    ] {
        let got = detail(reference);
        assert!(got.starts_with(want), "{reference}: {want}\n---\n{got}");
    }
}
