//! `--with FILE`: proposed objects laid over the cluster's (live or `-f`),
//! for explain, render, list and lint.

use crate::support;

use predicates::prelude::*;
use support::bin;

const CLUSTER: &str = "tests/fixtures/audit-cluster";

fn proposed(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const TAG_MIRRORS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: apps-tags\nspec:\n  imageTagMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - mirror.corp.example.com:5000/apps\n";

#[test]
fn explain_shows_the_pull_as_it_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let itms = proposed(&dir, "itms.yaml", TAG_MIRRORS);
    let image = "registry.example.com/apps/web:2.1";
    bin()
        .args(["explain", image, "-f", CLUSTER])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "to use the mirrors configured by ImageDigestMirrorSet/apps for tags, mirror the tags and add an ImageTagMirrorSet for registry.example.com/apps",
        ));
    bin()
        .args(["explain", image, "-f", CLUSTER, "--with", &itms])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"1\s+mirror\s+mirror\.corp\.example\.com:5000/apps/web:2\.1\s+-\s+ImageTagMirrorSet/apps-tags").unwrap());
    // Live: the same answer, and the proposal is not sent anywhere.
    let server = support::apiserver::Builder::openshift()
        .objects_from(CLUSTER)
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let offline = bin()
        .args([
            "explain", image, "-f", CLUSTER, "--with", &itms, "-o", "json",
        ])
        .output()
        .unwrap();
    let live = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", image, "--with", &itms, "-o", "json"])
        .output()
        .unwrap();
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    assert_eq!(live.stdout, offline.stdout);
    assert!(server.log().iter().all(|l| !l.writes()));
}

#[test]
fn a_proposal_replaces_the_object_of_the_same_name() {
    let dir = tempfile::tempdir().unwrap();
    let replaced = proposed(
        &dir,
        "apps.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - other.example.com/apps\n",
    );
    bin()
        .args(["list", "-f", CLUSTER, "--with", &replaced])
        .assert()
        .success()
        .stdout(predicate::str::contains("other.example.com/apps"))
        .stdout(predicate::str::contains("mirror.corp.example.com:5000/apps ").not());
    bin()
        .args([
            "render",
            "-f",
            CLUSTER,
            "--with",
            &replaced,
            "--file",
            "/etc/containers/registries.conf",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "location = \"other.example.com/apps\"",
        ));
}

#[test]
fn lint_reports_what_the_proposal_breaks() {
    let dir = tempfile::tempdir().unwrap();
    // NeverContactSource next to an ICSP for the same source: the MCO refuses.
    let bad = proposed(
        &dir,
        "bad.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: legacy\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/openshift-release-dev/ocp-release\n    mirrors:\n    - mirror.corp.example.com:5000/ocp/release\n",
    );
    bin()
        .args(["lint", "-f", CLUSTER, "--with", &bad])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("conflicting mirrorSourcePolicy"));
    bin().args(["lint", "-f", CLUSTER]).assert().code(0);
}

#[test]
fn with_needs_mirror_objects() {
    bin()
        .args([
            "list",
            "-f",
            CLUSTER,
            "--with",
            "tests/fixtures/audit-must-gather/namespaces",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--with: no ImageContentSourcePolicy",
        ));
    bin()
        .args([
            "explain",
            "x",
            "--registries-conf",
            "examples/node/registries.conf",
            "--with",
            "y.yaml",
        ])
        .assert()
        .code(2);
}
