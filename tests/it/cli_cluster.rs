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
    json_exit(args, 0)
}

fn json_exit(args: &[&str], code: i32) -> Value {
    let out = plugin().args(args).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
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
    // Every endpoint blocked and policy.json rejects it: the pull fails (exit 1).
    let v = json_exit(
        &[
            "explain",
            "-f",
            MUST_GATHER,
            "docker.io/library/busybox:1",
            "-o",
            "json",
        ],
        1,
    );
    assert_eq!(
        v["error"],
        "registry docker.io is blocked in /etc/containers/registries.conf or \
         /etc/containers/registries.conf.d: every endpoint for docker.io/library/busybox:1 is \
         blocked and no mirror can serve it"
    );
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
            .stderr(contains(
                "or InstallConfig (install-config.yaml: apiVersion v1, no kind) in -",
            ));
    }
}

#[test]
fn issue_14_explain_without_namespace_lists_namespaces_whose_policy_differs() {
    let image = "registry.example.internal:8443/team-a/app:1";
    let v = json(&["explain", "-f", MUST_GATHER, image, "-o", "json"]);
    let c = &v["candidates"][0];
    assert_eq!(c["signature"]["scope"], Value::Null, "cluster-wide default");
    let ns = &c["namespacePolicies"][0];
    assert_eq!(ns["namespace"], "team-a");
    assert_eq!(
        ns["signature"]["scope"],
        "registry.example.internal:8443/team-a"
    );
    assert_eq!(ns["signature"]["verifiesSignatures"], true);
    assert_eq!(
        ns["signature"]["origins"][0],
        "ImagePolicy/team-a/signed-apps"
    );
    plugin()
        .args(["explain", "-f", MUST_GATHER, image])
        .assert()
        .success()
        .stdout(contains(
            "in namespace team-a: allowed if signed by scope \"registry.example.internal:8443/team-a\" (ImagePolicy/team-a/signed-apps",
        ));
    // An image no namespace policy covers lists none.
    let v = json(&["explain", "-f", MUST_GATHER, "quay.io/x/y:1", "-o", "json"]);
    assert!(v["candidates"][0].get("namespacePolicies").is_none(), "{v}");
}

#[test]
fn issue_14_explain_names_a_namespace_without_image_policy() {
    plugin()
        .args([
            "explain",
            "-f",
            MUST_GATHER,
            "-n",
            "nosuchns",
            "quay.io/x/y:1",
        ])
        .assert()
        .success()
        .stdout(contains(
            "namespace nosuchns has no ImagePolicy: its pods get the cluster-wide policy",
        ));
    plugin()
        .args([
            "explain",
            "-f",
            MUST_GATHER,
            "-n",
            "team-a",
            "quay.io/x/y:1",
        ])
        .assert()
        .success()
        .stdout(contains("has no ImagePolicy").not());
}

#[test]
fn issue_14_an_unknown_pool_is_an_error_listing_the_known_ones() {
    for args in [
        vec!["render", "--pool", "wrker", "-o", "machineconfig"],
        vec!["explain", "--pool", "wrker", "quay.io/x/y:1"],
    ] {
        plugin()
            .args(&args)
            .args(["-f", MUST_GATHER])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(
                "error: no MachineConfigPool \"wrker\" (did you mean \"worker\"?); the pools are",
            ));
    }
    // Without pools in the input, master and worker are known.
    let dir = tempfile::tempdir().unwrap();
    let idms = dir.path().join("idms.yaml");
    std::fs::write(&idms, IDMS_ONLY).unwrap();
    let idms = idms.display().to_string();
    plugin()
        .args(["render", "--pool", "master", "-f", &idms])
        .assert()
        .success();
    plugin()
        .args(["render", "--pool", "infra", "-f", &idms])
        .assert()
        .code(2)
        .stderr(contains("the pools are master, worker"))
        .stderr(contains("the input has no MachineConfigPools"));
}

const IDMS_ONLY: &str = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - mirror.corp.example.com:5000/apps\n";

#[test]
fn issue_14_render_file_untouched_by_the_mco_prints_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let idms = dir.path().join("idms.yaml");
    std::fs::write(&idms, IDMS_ONLY).unwrap();
    let idms = idms.display().to_string();
    let out = plugin()
        .args([
            "render",
            "-f",
            &idms,
            "--file",
            "/etc/containers/policy.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let policy: Value = serde_json::from_slice(&out.stdout).expect("policy.json");
    assert_eq!(policy["default"][0]["type"], "insecureAcceptAnything");
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "note: the MCO leaves /etc/containers/policy.json untouched for pool worker: the node keeps the 01-worker-container-runtime template"
    ));
    // A file neither the generated MachineConfig nor the template writes is still an error.
    plugin()
        .args([
            "render",
            "-f",
            &idms,
            "--file",
            "/etc/containers/registries.d/sigstore-registries.yaml",
        ])
        .assert()
        .code(2)
        .stderr(contains("it writes: /etc/containers/registries.conf"));
}

/// A ClusterImagePolicy whose key today's CRD refuses (shorter than 68
/// characters), stored before the rule existed, and an ICSP to migrate.
const RATCHETED: &str = "apiVersion: config.openshift.io/v1
kind: ClusterImagePolicy
metadata:
  name: short-key
spec:
  scopes: [\"quay.io/x\"]
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: Zm9v
---
apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: operators
spec:
  repositoryDigestMirrors:
  - source: registry.example.com/ops
    mirrors: [mirror.corp.example.com:5000/ops]
";

#[test]
fn issue_14_reading_commands_follow_the_cluster_leniency() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ratcheted.yaml");
    std::fs::write(&file, RATCHETED).unwrap();
    let file = file.display().to_string();
    // The warning names the file the object was read from.
    let warning = format!("warning: the API server would refuse this object today: {file}:1: ClusterImagePolicy/short-key: spec.policy.rootOfTrust.publicKey.keyData");
    for args in [
        vec!["render", "--file", "/etc/containers/policy.json"],
        vec!["explain", "quay.io/x/y:1"],
        vec!["list"],
        vec!["audit"],
    ] {
        plugin()
            .args(&args)
            .args(["-f", &file])
            .assert()
            .success()
            .stderr(contains(warning.as_str()));
    }
    // What the MCO renders from it: the key as stored.
    plugin()
        .args([
            "render",
            "-f",
            &file,
            "--file",
            "/etc/containers/policy.json",
        ])
        .assert()
        .stdout(contains("\"keyData\": \"Zm9v\""));
    // lint and migrate-icsp, which prepare objects to apply, refuse it.
    plugin()
        .args(["lint", "-f", &file])
        .assert()
        .code(1)
        .stdout(contains(format!(
        "error: {file}:1: ClusterImagePolicy/short-key: spec.policy.rootOfTrust.publicKey.keyData"
    )));
    plugin()
        .args(["migrate-icsp", "-f", &file])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "ClusterImagePolicy/short-key: spec.policy.rootOfTrust.publicKey.keyData",
        ));
}

#[test]
fn issue_14_rendering_says_which_release_it_follows() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, version: Option<&str>| {
        let mut text = IDMS_ONLY.to_string();
        if let Some(v) = version {
            text.push_str(&format!(
                "---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {v}\n"
            ));
        }
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    for (file, want) in [
        (write("none.yaml", None), "warning: no ClusterVersion in the input: rendered as the newest release modelled, OpenShift 4.22"),
        (write("old.yaml", Some("4.3.30")), "warning: ClusterVersion/version is OpenShift 4.3, older than the oldest release modelled (4.4): rendered as 4.4"),
        (write("new.yaml", Some("4.23.1")), "warning: ClusterVersion/version is OpenShift 4.23, newer than the newest release modelled (4.22): rendered as 4.22"),
    ] {
        plugin()
            .args(["render", "-f", &file])
            .assert()
            .success()
            .stderr(contains(want));
    }
    plugin()
        .args(["render", "-f", &write("modelled.yaml", Some("4.16.8"))])
        .assert()
        .success()
        .stderr(contains("release").not());
}

/// Issue 25: a release before 4.13 is rendered in its own format (the
/// layouts of the release branches' `TestUpdateRegistriesConfig` cases),
/// and the ImageDigestMirrorSet its MCO does not read is a warning, not
/// rendered.
#[test]
fn issue_25_releases_before_4_13_render_in_their_own_format() {
    let dir = tempfile::tempdir().unwrap();
    let icsp = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: release\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/openshift-release-dev/ocp-release\n    mirrors: [mirror.example.com/ocp/release]\n";
    let write = |version: &str| {
        let text = format!(
            "{icsp}---\n{IDMS_ONLY}---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {version}\n"
        );
        let path = dir.path().join(format!("{version}.yaml"));
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let entry = "\n[[registry]]\n  prefix = \"\"\n  location = \"quay.io/openshift-release-dev/ocp-release\"\n  mirror-by-digest-only = true\n\n  [[registry.mirror]]\n    location = \"mirror.example.com/ocp/release\"\n";
    let search =
        "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n";
    for (version, want) in [
        ("4.8.57", format!("{search}{entry}")),
        (
            "4.12.30",
            format!("{search}short-name-mode = \"\"\n{entry}"),
        ),
    ] {
        let minor = &version[..version.rfind('.').unwrap()];
        plugin()
            .args([
                "render",
                "--file",
                "/etc/containers/registries.conf",
                "-f",
                &write(version),
            ])
            .assert()
            .success()
            .stdout(want)
            .stderr(contains(format!(
                "warning: the MCO of OpenShift {minor} does not read ImageDigestMirrorSet/"
            )))
            .stderr(contains("older than the oldest").not());
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
        .find(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(message))
        })
        .unwrap_or_else(|| panic!("no finding with the MCO message: {v}"));
    assert_eq!(conflict["level"], "error");
    assert_eq!(conflict["object"], "ImageContentSourcePolicy/y");
}

/// Issue 25: release-4.17's controller has no ImagePolicy lister (it comes
/// in release-4.18): on a 4.17 cluster an ImagePolicy is a warning and no
/// `/etc/crio/policies/<namespace>.json` is rendered; on 4.18 it is.
#[test]
fn issue_25_image_policy_is_read_from_4_18() {
    let dir = tempfile::tempdir().unwrap();
    let ip = "apiVersion: config.openshift.io/v1alpha1\nkind: ImagePolicy\nmetadata:\n  name: signed\n  namespace: apps\nspec:\n  scopes: [registry.example.com/apps]\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: dGVzdC1rZXktZGF0YQ==\n";
    let write = |version: &str| {
        let text = format!(
            "{ip}---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {version}\n    image: quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
        );
        let path = dir.path().join(format!("{version}.yaml"));
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    plugin()
        .args(["render", "-f", &write("4.17.9")])
        .assert()
        .success()
        .stdout(contains("/etc/crio/policies/apps.json").not())
        .stderr(contains(
            "warning: the MCO of OpenShift 4.17 does not read ImagePolicy/apps/signed (read from 4.18 on)",
        ));
    plugin()
        .args(["render", "-f", &write("4.18.2")])
        .assert()
        .success()
        .stdout(contains("==> /etc/crio/policies/apps.json <=="))
        .stderr(contains("does not read").not());
}

/// Issue 25: the generated MachineConfig in each release family's Ignition
/// layout: 2.2.0 with `filesystem: root` and percent-escaped `text/plain`
/// contents on 4.4–4.5, 3.x with escaped contents to 4.10, base64 from 4.11,
/// `kernelArguments` from 4.14 (the config types each release branch vendors).
#[test]
fn issue_25_generated_machine_config_in_each_release_layout() {
    let dir = tempfile::tempdir().unwrap();
    let icsp = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: apps\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors: [mirror.example.com/apps]\n";
    for (version, ignition, filesystem, ascii, kernel_arguments) in [
        ("4.4.30", "2.2.0", true, true, false),
        ("4.6.1", "3.1.0", false, true, false),
        ("4.10.3", "3.2.0", false, true, false),
        ("4.11.3", "3.2.0", false, false, false),
        ("4.14.3", "3.4.0", false, false, true),
    ] {
        let path = dir.path().join(format!("{version}.yaml"));
        std::fs::write(
            &path,
            format!("{icsp}---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {version}\n"),
        )
        .unwrap();
        let out = plugin()
            .args(["render", "-o", "json", "-f", path.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(out.status.success(), "{version}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let config = &v["machineConfig"]["spec"]["config"];
        assert_eq!(config["ignition"]["version"], ignition, "{version}");
        let file = &config["storage"]["files"][0];
        assert_eq!(file.get("filesystem").is_some(), filesystem, "{version}");
        assert_eq!(config.get("networkd").is_some(), filesystem, "{version}");
        assert_eq!(file.get("user").is_none(), filesystem, "{version}");
        let source = file["contents"]["source"].as_str().unwrap();
        assert_eq!(
            source.starts_with("data:text/plain,unqualified-search-registries%20%3D%20%5B%22"),
            ascii,
            "{version}: {source}"
        );
        assert_eq!(
            file["contents"].get("compression").is_some(),
            !ascii,
            "{version}"
        );
        assert_eq!(
            config.get("kernelArguments").is_some(),
            kernel_arguments,
            "{version}"
        );
    }
}

/// Issue 25: each release refuses mirror sets with its own
/// `validateRegistriesConfScopes` message: a `*` in an ICSP mirror is
/// "wildcard entries are not supported" on 4.9–4.15, "invalid format" from
/// 4.16, and not checked before 4.9.
#[test]
fn issue_25_validation_messages_by_release() {
    let dir = tempfile::tempdir().unwrap();
    let icsp = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: apps\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors: ['*.mirror.example.com']\n";
    for (version, want) in [
        ("4.8.57", None),
        ("4.10.3", Some("ImageContentSourcePolicy/apps: wildcard entries are not supported with mirror configuration \"*.mirror.example.com\"")),
        ("4.15.3", Some("ImageContentSourcePolicy/apps: wildcard entries are not supported with mirror configuration \"*.mirror.example.com\"")),
        ("4.16.3", Some("ImageContentSourcePolicy/apps: invalid format for mirror \"*.mirror.example.com\"")),
    ] {
        let path = dir.path().join(format!("{version}.yaml"));
        std::fs::write(
            &path,
            format!("{icsp}---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {version}\n"),
        )
        .unwrap();
        let assert = plugin()
            .args(["render", "-f", path.to_str().unwrap()])
            .assert();
        match want {
            None => {
                assert.success();
            }
            Some(want) => {
                assert.code(2).stderr(contains(want));
            }
        }
    }
}

/// Issue 25: the MCO of 4.16 skips a ClusterImagePolicy scope holding the
/// payload repository (release-4.16 `getValidScopePolicies`) and says so in
/// the object's status; from 4.17 the scope is applied.
#[test]
fn issue_25_release_4_16_skips_payload_policy_scopes() {
    let dir = tempfile::tempdir().unwrap();
    let cip = "apiVersion: config.openshift.io/v1alpha1\nkind: ClusterImagePolicy\nmetadata:\n  name: release-signed\nspec:\n  scopes: [quay.io/openshift-release-dev, registry.example.com/apps]\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: dGVzdC1rZXktZGF0YQ==\n";
    let write = |version: &str| {
        let path = dir.path().join(format!("{version}.yaml"));
        std::fs::write(
            &path,
            format!("{cip}---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: {version}\n    image: quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"),
        )
        .unwrap();
        path.display().to_string()
    };
    let policy = ["--file", "/etc/containers/policy.json"];
    plugin()
        .args(["render", "-f", &write("4.16.8")])
        .args(policy)
        .assert()
        .success()
        .stdout(contains("registry.example.com/apps"))
        .stdout(contains("quay.io/openshift-release-dev\"").not())
        .stderr(contains("warning: ClusterImagePolicy/release-signed: has conflict scope(s) [\"quay.io/openshift-release-dev\"] of Openshift payload repository quay.io/openshift-release-dev/ocp-release, skip the scope(s)"));
    plugin()
        .args(["render", "-f", &write("4.17.8")])
        .args(policy)
        .assert()
        .success()
        .stdout(contains("\"quay.io/openshift-release-dev\""))
        .stderr(contains("conflict scope").not());
}
