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

/// Issue 36: on a release whose API server refuses ImageDigestMirrorSets
/// and ImageTagMirrorSets beside ImageContentSourcePolicies (4.13.0–4.13.26,
/// 4.14.0–4.14.2), `lint --with` refuses the proposal that the API server
/// would, create or update, either way round.
#[test]
fn issue_36_lint_with_refuses_what_the_api_server_would() {
    use crate::cli_lint::admission::{cluster_version, ICSP, IDMS, ITMS};
    let dir = tempfile::tempdir().unwrap();
    let icsp = proposed(&dir, "icsp.yaml", ICSP);
    let idms = proposed(&dir, "idms.yaml", IDMS);
    let itms = proposed(&dir, "itms.yaml", ITMS);
    let changed = proposed(
        &dir,
        "idms-changed.yaml",
        &IDMS.replace(
            "mirror.corp.example.com:5000/apps",
            "other.example.com/apps",
        ),
    );
    let cv = |v: &str| proposed(&dir, &format!("cv-{v}.yaml"), &cluster_version(v));
    let (old, fixed) = (cv("4.14.1"), cv("4.14.3"));
    let lint = |files: &[&str], with: &str| {
        let mut cmd = bin();
        cmd.arg("lint");
        for f in files {
            cmd.args(["-f", f]);
        }
        let out = cmd.args(["--with", with]).output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    for (files, with, want) in [
        (
            vec![&icsp, &old],
            &idms,
            format!("error: {idms}:1: ImageDigestMirrorSet/apps: Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist (the API server of OpenShift 4.14.1 refuses this object while ImageContentSourcePolicy/legacy exists; from 4.14.3 on it does not)"),
        ),
        (
            vec![&icsp, &old],
            &itms,
            format!("error: {itms}:1: ImageTagMirrorSet/tags: Kind.ImageTagMirrorSet: Forbidden: can't create ImageTagMirrorSet when ImageContentSourcePolicy resources exist"),
        ),
        // An object of the same name is there: the API server's update.
        (
            vec![&icsp, &idms, &old],
            &changed,
            format!("error: {changed}:1: ImageDigestMirrorSet/apps: Kind.ImageDigestMirrorSet: Forbidden: can't update ImageDigestMirrorSet when ImageContentSourcePolicy resources exist"),
        ),
        // The other way round: the ImageContentSourcePolicy is refused.
        (
            vec![&idms, &itms, &old],
            &icsp,
            format!("error: {icsp}:1: ImageContentSourcePolicy/legacy: Kind.ImageContentSourcePolicy: Forbidden: can't create ImageContentSourcePolicy when ImageDigestMirrorSet resources exist (the API server of OpenShift 4.14.1 refuses this object while ImageDigestMirrorSet/apps exists; from 4.14.3 on it does not): write it as an ImageDigestMirrorSet instead (kubectl mirrorpolicy migrate-icsp FILE), or update to 4.14.3 or later\n"),
        ),
    ] {
        let files: Vec<&str> = files.iter().map(|s| s.as_str()).collect();
        let (code, stdout) = lint(&files, with);
        assert_eq!(code, Some(1), "{with}: {stdout}");
        assert!(stdout.contains(&want), "{want}\nnot in:\n{stdout}");
        assert_eq!(stdout.matches("Forbidden").count(), 1, "{stdout}");
    }
    // 4.14.3 lifted the check.
    let (code, stdout) = lint(&[&icsp, &fixed], &idms);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(!stdout.contains("Forbidden"), "{stdout}");
    // While the cluster updates from such a release, its API server may
    // still answer.
    let updating = proposed(
        &dir,
        "cv-updating.yaml",
        &(cluster_version("4.14.3")
            + "  history:\n  - state: Partial\n    version: 4.14.3\n  - state: Completed\n    version: 4.14.2\n"),
    );
    let (code, stdout) = lint(&[&icsp, &updating], &idms);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("(the API server of OpenShift 4.14.2 refuses this object while ImageContentSourcePolicy/legacy exists; from 4.14.3 on it does not)"),
        "{stdout}"
    );
}

/// Issue 36: `explain --with` and `render` on such a release say which
/// object the API server refuses (a proposal never takes effect; objects
/// read as the cluster's cannot all have been created), on stderr and in
/// the JSON's warnings; `explain` only for the images those objects
/// concern. Without a ClusterVersion, or on a release without the check,
/// nothing is said.
#[test]
fn issue_36_explain_and_render_say_what_the_api_server_refuses() {
    use crate::cli_lint::admission::{cluster_version, ICSP, IDMS};
    let dir = tempfile::tempdir().unwrap();
    let icsp = proposed(&dir, "icsp.yaml", ICSP);
    let idms = proposed(&dir, "idms.yaml", IDMS);
    let old = proposed(&dir, "cv-old.yaml", &cluster_version("4.13.10"));
    let fixed = proposed(&dir, "cv-fixed.yaml", &cluster_version("4.13.27"));
    let digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let apps = format!("registry.example.com/apps/web{digest}");
    let legacy = format!("registry.example.com/legacy/web{digest}");
    let refused = "the API server of OpenShift 4.13.10 refuses the proposed ImageDigestMirrorSet/apps (\"Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist\"): rendered as if it had been created";
    // Text: the image the proposal gives mirrors to, and stderr.
    let out = bin()
        .args(["explain", &apps, "-f", &icsp, "-f", &old, "--with", &idms])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains(&format!("! {refused}\n")), "{stdout}");
    assert!(
        stderr.contains(&format!("warning: {refused}\n")),
        "{stderr}"
    );
    // JSON: only where the refused object's mirrors are used.
    let out = bin()
        .args(["explain", &apps, &legacy, "-o", "json"])
        .args(["-f", &icsp, "-f", &old, "--with", &idms])
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warned = |i: usize| {
        list["items"][i]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == refused)
    };
    assert!(warned(0), "{list:#}");
    assert!(!warned(1), "{list:#}");
    // render: the objects read cannot all have been created.
    let render = |files: &[&str]| {
        let mut cmd = bin();
        cmd.args(["render", "-o", "json"]);
        for f in files {
            cmd.args(["-f", f]);
        }
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let warnings: Vec<String> = json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap().to_string())
            .filter(|w| w.contains("API server"))
            .collect();
        (warnings, String::from_utf8(out.stderr).unwrap())
    };
    let (warnings, stderr) = render(&[&icsp, &idms, &old]);
    let want = "the API server of OpenShift 4.13.10 refuses ImageDigestMirrorSet/apps beside ImageContentSourcePolicy/legacy (\"Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist\"), and the latter had they come after: these objects cannot all have been created through it; the MCO of that release does not render both kinds together either (\"error: both imagecontentsourcepolicy and imagedigestmirrorset exist\") and keeps its previous configuration: rendered as 4.13.27 and later render them";
    assert_eq!(warnings, [want]);
    assert!(stderr.contains(&format!("warning: {want}\n")), "{stderr}");
    for files in [vec![&icsp, &idms, &fixed], vec![&icsp, &idms]] {
        let files: Vec<&str> = files.iter().map(|s| s.as_str()).collect();
        let (warnings, stderr) = render(&files);
        assert!(warnings.is_empty(), "{files:?}: {warnings:?}");
        assert!(!stderr.contains("API server"), "{files:?}: {stderr}");
    }
}
