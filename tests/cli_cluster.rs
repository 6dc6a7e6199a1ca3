//! `explain -f`, `render` and `list` through the built binary, on the
//! must-gather-shaped fixture in `tests/fixtures/must-gather`.

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

const MUST_GATHER: &str = "tests/fixtures/must-gather";
const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn plugin() -> Command {
    let mut cmd = Command::cargo_bin("kubectl-mirrorpolicy").expect("binary built");
    cmd.env("NO_COLOR", "1").env("COLUMNS", "200");
    cmd
}

fn json(args: &[&str]) -> Value {
    let out = plugin().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn explain_over_objects_names_the_objects() {
    let image = format!("quay.io/openshift-release-dev/ocp-release@{DIGEST}");
    let v = json(&["explain", "-f", MUST_GATHER, &image, "-o", "json"]);
    let c = &v["candidates"][0];
    assert_eq!(
        c["sources"][0]["reference"],
        format!("registry.example.internal:8443/openshift/release-images@{DIGEST}")
    );
    assert_eq!(
        c["sources"][0]["origins"][0],
        "ImageDigestMirrorSet/release-mirrors"
    );
    assert_eq!(
        c["registry"]["origins"][0],
        "ImageDigestMirrorSet/release-mirrors"
    );
    assert_eq!(c["signature"]["origins"][0], "ClusterImagePolicy/openshift");
    assert_eq!(c["signature"]["verifiesSignatures"], true);
}

#[test]
fn explain_over_objects_blocked_registry_from_image_config() {
    let v = json(&[
        "explain",
        "-f",
        MUST_GATHER,
        "docker.io/library/busybox:1",
        "-o",
        "json",
    ]);
    let c = &v["candidates"][0];
    assert_eq!(c["sources"][0]["blocked"], true);
    assert_eq!(c["sources"][0]["origins"][0], "Image/cluster");
    assert_eq!(c["allowed"], false);
    assert_eq!(c["signature"]["origins"][0], "Image/cluster");
}

#[test]
fn explain_icsp_source_warns_deprecated() {
    let v = json(&[
        "explain",
        "-f",
        MUST_GATHER,
        "registry.redhat.io/redhat/redhat-operator-index:v4.16",
        "-o",
        "json",
    ]);
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("ImageContentSourcePolicy/legacy-operators is deprecated"),
        "{warnings}"
    );
    assert!(warnings.contains("digest-only"), "{warnings}");
}

#[test]
fn explain_namespace_uses_its_crio_policy() {
    let v = json(&[
        "explain",
        "-f",
        MUST_GATHER,
        "-n",
        "team-a",
        "registry.example.internal:8443/team-a/app:1",
        "-o",
        "json",
    ]);
    assert_eq!(v["namespace"], "team-a");
    let sig = &v["candidates"][0]["signature"];
    assert_eq!(sig["scope"], "registry.example.internal:8443/team-a");
    assert!(
        sig["origins"]
            .to_string()
            .contains("ImagePolicy/team-a/signed-apps"),
        "{sig}"
    );
    assert!(
        sig["origins"]
            .to_string()
            .contains("/etc/crio/policies/team-a.json"),
        "{sig}"
    );
}

#[test]
fn render_file_prints_exact_registries_conf() {
    let out = plugin()
        .args([
            "render",
            "-f",
            MUST_GATHER,
            "--file",
            "/etc/containers/registries.conf",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(
        "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"\"\nadditional-layer-store-auth-helper = \"\"\n\n[[registry]]\n  prefix = \"\"\n"
    ), "{text}");
    assert!(text.contains("  [[registry.mirror]]\n    location = \"registry.example.internal:8443/openshift/release-images\"\n    pull-from-mirror = \"digest-only\"\n"), "{text}");
    assert!(
        text.ends_with("  location = \"docker.io\"\n  blocked = true\n"),
        "{text}"
    );
}

#[test]
fn render_machineconfig_and_json() {
    let out = plugin()
        .args(["render", "-f", MUST_GATHER, "-o", "machineconfig"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("name: 99-worker-generated-registries"),
        "{text}"
    );
    assert!(
        text.contains("machineconfiguration.openshift.io/role: worker"),
        "{text}"
    );
    let v = json(&[
        "render",
        "-f",
        MUST_GATHER,
        "--pool",
        "master",
        "-o",
        "json",
    ]);
    assert_eq!(v["pool"], "master");
    assert_eq!(
        v["machineConfig"]["metadata"]["name"],
        "99-master-generated-registries"
    );
    let paths: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "/etc/containers/registries.conf",
            "/etc/containers/policy.json",
            "/etc/containers/registries.d/sigstore-registries.yaml",
            "/etc/crio/policies/team-a.json",
            "/etc/containers/registries.conf.d/01-image-searchRegistries.conf",
        ]
    );
}

#[test]
fn render_unknown_file_is_exit_2_listing_what_is_written() {
    plugin()
        .args(["render", "-f", MUST_GATHER, "--file", "/etc/nope"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("it writes: /etc/containers/registries.conf"));
}

#[test]
fn list_shows_merged_rules_and_objects() {
    let v = json(&["list", "-f", MUST_GATHER, "-o", "json"]);
    assert_eq!(v["kind"], "List");
    let rules = v["items"].as_array().unwrap();
    let sources: Vec<&str> = rules
        .iter()
        .map(|r| r["source"].as_str().unwrap())
        .collect();
    assert_eq!(
        sources,
        [
            "quay.io/openshift-release-dev/ocp-release",
            "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
            "registry.redhat.io/redhat",
            "docker.io"
        ]
    );
    assert_eq!(
        rules[2]["objects"][0],
        "ImageContentSourcePolicy/legacy-operators"
    );
    assert_eq!(rules[3]["sourcePolicy"], "blocked");
    let out = plugin().args(["list", "-f", MUST_GATHER]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("SOURCE") && text.contains("SOURCE POLICY"),
        "{text}"
    );
}

#[test]
fn objects_from_stdin() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m.example.com/a]\n    mirrorSourcePolicy: NeverContactSource\n";
    let out = plugin()
        .args([
            "render",
            "-f",
            "-",
            "--file",
            "/etc/containers/registries.conf",
        ])
        .write_stdin(yaml)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("  location = \"quay.io/a\"\n  blocked = true\n"),
        "{text}"
    );
}

#[test]
fn conflicting_source_policy_is_refused_with_the_mco_reason() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m.example.com/a]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: y\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m2.example.com/a]\n";
    plugin()
        .args(["render", "-f", "-"])
        .write_stdin(yaml)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "conflicting mirrorSourcePolicy is set for the same source \"quay.io/a\"",
        ));
}

#[test]
fn invalid_object_names_object_and_field() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: bad\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [Mirror.example.com/A]\n";
    plugin()
        .args(["list", "-f", "-"])
        .write_stdin(yaml)
        .assert()
        .code(2)
        .stderr(contains(
            "ImageDigestMirrorSet/bad: spec.imageDigestMirrors[0].mirrors[0]",
        ));
}

#[test]
fn malformed_yaml_names_file_and_document() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.yaml");
    std::fs::write(&path, "kind: ImageDigestMirrorSet\n---\nkind: [unclosed\n").unwrap();
    plugin()
        .args(["list", "-f"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(contains("broken.yaml"))
        .stderr(contains("document 2"));
}

#[test]
fn lint_reports_every_mco_error_and_exits_1() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m.example.com/a, n.example.com/a]\n    mirrorSourcePolicy: NeverContactSource\n  - source: quay.io/b\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: y\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/a\n    mirrors: [n.example.com/a, m.example.com/a]\n  - source: quay.io/c\n    mirrors: [\"bad mirror\"]\n";
    let out = plugin()
        .args(["lint", "-f", "-", "-o", "json"])
        .write_stdin(yaml)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = v["items"].to_string();
    for want in [
        "conflicting mirrorSourcePolicy is set for the same source \\\"quay.io/a\\\"",
        "invalid format for mirror \\\"bad mirror\\\"",
        "the MCO ignores it",
        "the merged order is unspecified",
        "ImageContentSourcePolicy is deprecated",
    ] {
        assert!(findings.contains(want), "missing {want}: {findings}");
    }
    assert_eq!(v["items"][0]["level"], "error");
}

#[test]
fn lint_clean_example_exits_0() {
    plugin()
        .args(["lint", "-f", "examples/disconnected-cluster"])
        .assert()
        .code(0)
        .stdout(contains("0 error(s)"));
}

#[test]
fn explain_warns_about_contradicting_mirror_orders() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: a\nspec:\n  imageDigestMirrors:\n  - source: quay.io/team\n    mirrors: [m1.example.com/team, m2.example.com/team]\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: b\nspec:\n  imageDigestMirrors:\n  - source: quay.io/team\n    mirrors: [m2.example.com/team, m1.example.com/team]\n";
    let out = plugin()
        .args(["explain", "-f", "-", "-o", "json"])
        .arg(format!("quay.io/team/app@{DIGEST}"))
        .write_stdin(yaml)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sources: Vec<&str> = v["candidates"][0]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reference"].as_str().unwrap())
        .collect();
    // A cycle: broken at the byte-wise smallest mirror, as the MCO does.
    assert_eq!(
        sources,
        [
            format!("m1.example.com/team/app@{DIGEST}"),
            format!("m2.example.com/team/app@{DIGEST}"),
            format!("quay.io/team/app@{DIGEST}"),
        ]
    );
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("the merged order is unspecified"),
        "{warnings}"
    );
}

#[test]
fn verbose_counts_what_was_read_and_skipped() {
    plugin()
        .args(["list", "-v", "-f", MUST_GATHER])
        .assert()
        .success()
        .stderr(contains(
            "read 1 ImageContentSourcePolicy, 1 ImageDigestMirrorSet",
        ))
        .stderr(contains("skipped 1 object(s) of kind v1/Event"));
    plugin()
        .args(["list", "-f", MUST_GATHER])
        .assert()
        .success()
        .stderr(predicates::str::contains("skipped").not());
}

#[test]
fn no_known_object_names_the_input() {
    for cmd in ["list", "lint", "render"] {
        plugin()
            .args([cmd, "-f", "-"])
            .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
            .assert()
            .code(2)
            .stderr(contains("no ImageContentSourcePolicy"))
            .stderr(contains("known object in -"));
    }
}

/// Issue 13: `lint` lists every MCO finding with the MCO's own message (the
/// one `render` stops at), and names the object beside it.
#[test]
fn issue_13_lint_lists_mco_findings_with_the_render_message() {
    let yaml = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m.example.com/a]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: y\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/a\n    mirrors: [m2.example.com/a]\n";
    let render = plugin()
        .args(["render", "-f", "-"])
        .write_stdin(yaml)
        .output()
        .unwrap();
    assert_eq!(render.status.code(), Some(2));
    let message = "conflicting mirrorSourcePolicy is set for the same source \"quay.io/a\" in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies (first set by ImageDigestMirrorSet/x)";
    let stderr = String::from_utf8(render.stderr).unwrap();
    assert!(
        stderr.contains(&format!("ImageContentSourcePolicy/y: {message}")),
        "{stderr}"
    );
    let out = plugin()
        .args(["lint", "-f", "-", "-o", "json"])
        .write_stdin(yaml)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let conflict = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["message"] == message)
        .unwrap_or_else(|| panic!("no finding with the MCO message: {v}"));
    assert_eq!(conflict["level"], "error");
    assert_eq!(conflict["object"], "ImageContentSourcePolicy/y");
}
