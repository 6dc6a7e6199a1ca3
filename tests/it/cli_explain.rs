//! `explain` through the built binary, on the node files shipped in `examples/node`.

use crate::support;

use assert_cmd::Command;
use serde_json::Value;

const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn plugin() -> Command {
    let mut cmd = Command::cargo_bin("kubectl-mirrorpolicy").expect("binary built");
    cmd.env("NO_COLOR", "1").env("COLUMNS", "200");
    cmd
}

fn explain_json(images: &[&str], extra: &[&str]) -> Value {
    let out = plugin()
        .arg("explain")
        .args(images)
        .args([
            "--registries-conf",
            "examples/node/registries.conf",
            "--policy-json",
            "examples/node/policy.json",
            "-o",
            "json",
        ])
        .args(extra)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn refs(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("array")
        .iter()
        .map(|s| s["reference"].as_str().expect("reference").to_string())
        .collect()
}

#[test]
fn tag_pull_skips_digest_only_mirror_uses_tag_mirror_and_blocked_source_stays_last() {
    let v = explain_json(&["registry.redhat.io/rhel9/support-tools:latest"], &[]);
    assert_eq!(v["image"], "registry.redhat.io/rhel9/support-tools:latest");
    let c = &v["candidates"][0];
    assert_eq!(
        c["reference"],
        "registry.redhat.io/rhel9/support-tools:latest"
    );
    assert_eq!(c["byDigest"], false);
    assert_eq!(c["registry"]["prefix"], "registry.redhat.io/rhel9");
    assert_eq!(c["registry"]["blocked"], true);
    assert_eq!(
        refs(&c["sources"]),
        [
            "mirror.corp.example.com:5000/rhel9-tags/support-tools:latest",
            "registry.redhat.io/rhel9/support-tools:latest"
        ]
    );
    assert_eq!(c["sources"][0]["role"], "mirror");
    assert_eq!(c["sources"][0]["blocked"], false);
    assert_eq!(c["sources"][1]["role"], "source");
    assert_eq!(c["sources"][1]["blocked"], true);
    assert_eq!(
        refs(&c["skipped"]),
        ["mirror.corp.example.com:5000/rhel9/support-tools:latest"]
    );
    assert!(c["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("digest-only"));
    assert!(c["sources"][0]["origins"][0]
        .as_str()
        .unwrap()
        .starts_with("examples/node/registries.conf:"));
    // The winning scope is the host, signed with GPG keys.
    assert_eq!(c["signature"]["scope"], "registry.redhat.io");
    assert_eq!(c["signature"]["requirements"][0]["type"], "signedBy");
    assert_eq!(c["allowed"], true);
}

#[test]
fn digest_pull_uses_digest_mirror_and_not_tag_mirror() {
    let image = format!("registry.redhat.io/rhel9/support-tools@{DIGEST}");
    let v = explain_json(&[&image], &[]);
    let c = &v["candidates"][0];
    assert_eq!(c["byDigest"], true);
    assert_eq!(
        refs(&c["sources"]),
        [
            format!("mirror.corp.example.com:5000/rhel9/support-tools@{DIGEST}"),
            image.clone()
        ]
    );
    assert_eq!(
        refs(&c["skipped"]),
        [format!(
            "mirror.corp.example.com:5000/rhel9-tags/support-tools@{DIGEST}"
        )]
    );
}

#[test]
fn release_tag_pull_goes_to_source_with_a_warning() {
    let v = explain_json(
        &["quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"],
        &[],
    );
    let c = &v["candidates"][0];
    assert_eq!(
        refs(&c["sources"]),
        ["quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"]
    );
    assert_eq!(c["skipped"].as_array().unwrap().len(), 1);
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("digest-only"), "{warnings}");
    assert_eq!(
        c["signature"]["scope"],
        "quay.io/openshift-release-dev/ocp-release"
    );
    assert_eq!(c["signature"]["verifiesSignatures"], true);
}

#[test]
fn blocked_registry_without_mirrors_is_rejected_and_warned() {
    let (code, stdout, _) = explain_exit(&["untrusted.example.com/team/app:v1"], &["-o", "json"]);
    assert_eq!(code, Some(1), "the pull fails");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let c = &v["candidates"][0];
    assert_eq!(c["sources"][0]["blocked"], true);
    assert_eq!(c["allowed"], false);
    assert!(v["warnings"].to_string().contains("every endpoint"));
}

#[test]
fn unmatched_reference_has_no_registry_and_global_default() {
    let v = explain_json(&["ghcr.io/org/tool:1.0"], &[]);
    let c = &v["candidates"][0];
    assert_eq!(c["registry"], Value::Null);
    assert_eq!(refs(&c["sources"]), ["ghcr.io/org/tool:1.0"]);
    assert_eq!(c["signature"]["scope"], Value::Null);
    assert_eq!(
        c["signature"]["requirements"][0]["type"],
        "insecureAcceptAnything"
    );
}

#[test]
fn several_images_make_a_list() {
    let v = explain_json(&["ghcr.io/org/tool:1.0", "quay.io/x/y:1"], &[]);
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 2);
}

#[test]
fn short_name_permissive_lists_every_search_registry() {
    let v = explain_json(&["busybox"], &[]);
    let candidates: Vec<&str> = v["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["reference"].as_str().unwrap())
        .collect();
    assert_eq!(
        candidates,
        [
            "registry.access.redhat.com/busybox:latest",
            "docker.io/library/busybox:latest"
        ]
    );
    assert_eq!(v["candidates"][1]["resolvedBy"]["kind"], "searchRegistry");
    assert_eq!(v["candidates"][1]["resolvedBy"]["registry"], "docker.io");
}

#[test]
fn short_name_enforcing_fails_the_pull_exit_1() {
    plugin()
        .args([
            "explain",
            "busybox",
            "--registries-conf",
            "examples/node/registries.conf",
        ])
        .args(["--short-name-mode", "enforcing"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "short name mode is enforcing, but image name busybox returns ambiguous list",
        ));
}

/// Issue 36: the pull error of an ambiguous short name opens with the
/// sentence CRI-O returns (cri-o internal/storage/image.go), as a kubelet
/// event shows it, then names the candidates and the fixes.
#[test]
fn issue_36_ambiguous_short_name_says_what_crio_says() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("registries.conf");
    std::fs::write(
        &conf,
        "short-name-mode = \"enforcing\"\nunqualified-search-registries = [\"quay.io\", \"docker.io\"]\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let out = plugin()
            .args(["explain", "busybox", "--registries-conf"])
            .arg(&conf)
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (stdout, _) = run(&["-o", "json"]);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["shortNameMode"], "enforcing", "{v}");
    let error = v["error"].as_str().unwrap();
    for part in [
        "short name mode is enforcing, but image name busybox returns ambiguous list (",
        "short-name resolution enforced but cannot prompt without a TTY: \"busybox\" has 2 candidates (quay.io/busybox:latest, docker.io/library/busybox:latest)",
        "2 candidates from unqualified-search-registries and CRI-O cannot prompt",
        "use a fully-qualified reference",
        "add an alias for \"busybox\" to [aliases] in registries.conf",
        "keep a single unqualified-search registry",
    ] {
        assert!(error.contains(part), "{part}: {error}");
    }
    assert!(error.starts_with("short name mode is enforcing"), "{error}");
    let (stdout, stderr) = run(&[]);
    assert!(
        stdout.contains(
            "the pull fails: short name mode is enforcing, but image name busybox returns ambiguous list"
        ),
        "{stdout}"
    );
    assert!(
        stderr.contains("hint: use a fully-qualified reference"),
        "{stderr}"
    );
}

#[test]
fn invalid_reference_is_exit_2_naming_the_part() {
    plugin()
        .args([
            "explain",
            "quay.io/ns/App:v1",
            "--registries-conf",
            "examples/node/registries.conf",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "error: invalid image reference \"quay.io/ns/App:v1\"",
        ))
        .stderr(predicates::str::contains("\"App\""));
}

#[test]
fn malformed_registries_conf_is_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("registries.conf");
    std::fs::write(
        &path,
        "[[registry]]\nlocation = \"quay.io\"\ninsecure = \"yes\"\n",
    )
    .unwrap();
    plugin()
        .args(["explain", "quay.io/a/b:1", "--registries-conf"])
        .arg(&path)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("registries.conf"))
        .stderr(predicates::str::contains("line 3"));
}

#[test]
fn missing_file_is_exit_2() {
    plugin()
        .args([
            "explain",
            "quay.io/a/b:1",
            "--registries-conf",
            "does/not/exist.conf",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("does/not/exist.conf"));
}

#[test]
fn without_files_explain_reads_the_cluster() {
    // No -f and no node files: the live cluster, and here there is none.
    plugin()
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", "/nonexistent-home-for-tests")
        .args(["explain", "quay.io/a/b:1"])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("no cluster configured"));
}

#[test]
fn policy_json_alone_is_a_usage_error() {
    plugin()
        .args([
            "explain",
            "quay.io/a/b:1",
            "--policy-json",
            "examples/node/policy.json",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--policy-json needs the node's registries configuration",
        ));
}

#[test]
fn drop_in_replaces_an_entry_with_the_same_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("registries.conf.d");
    std::fs::create_dir(&d).unwrap();
    std::fs::write(
        d.join("50-ubi.conf"),
        "[[registry]]\nlocation = \"registry.redhat.io/ubi9\"\n[[registry.mirror]]\nlocation = \"other.example.com/ubi9\"\n",
    )
    .unwrap();
    std::fs::write(d.join("ignored.txt"), "not toml [").unwrap();
    let out = plugin()
        .args(["explain", "registry.redhat.io/ubi9/ubi:9.4", "-o", "json"])
        .args([
            "--registries-conf",
            "examples/node/registries.conf",
            "--registries-conf-d",
        ])
        .arg(&d)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        refs(&v["candidates"][0]["sources"]),
        [
            "other.example.com/ubi9/ubi:9.4",
            "registry.redhat.io/ubi9/ubi:9.4"
        ]
    );
}

#[test]
fn table_output_shows_order_skips_and_blocks() {
    let out = plugin()
        .args(["explain", "registry.redhat.io/rhel9/support-tools:latest"])
        .args(["--registries-conf", "examples/node/registries.conf"])
        .args(["--policy-json", "examples/node/policy.json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "Image:",
        "registry.redhat.io/rhel9/support-tools:latest (by tag)",
        "[[registry]] prefix \"registry.redhat.io/rhel9\" [blocked]",
        "mirror.corp.example.com:5000/rhel9-tags/support-tools:latest",
        "Skipped mirrors:",
        "blocked",
        "scope \"registry.redhat.io\"",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(!text.contains('\u{1b}'), "no colour with NO_COLOR:\n{text}");
}

#[test]
fn yaml_output_parses() {
    let out = plugin()
        .args(["explain", "quay.io/x/y:1", "-o", "yaml"])
        .args(["--registries-conf", "examples/node/registries.conf"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("image: quay.io/x/y:1"), "{text}");
}

#[test]
fn help_has_examples_and_version_prints() {
    plugin()
        .args(["explain", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Examples:"))
        .stdout(predicates::str::contains("kubectl mirrorpolicy explain"));
    plugin()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicates::str::contains(env!("CARGO_PKG_VERSION")));
}

fn explain_exit(images: &[&str], extra: &[&str]) -> (Option<i32>, String, String) {
    let out = plugin()
        .arg("explain")
        .args(images)
        .args([
            "--registries-conf",
            "examples/node/registries.conf",
            "--policy-json",
            "examples/node/policy.json",
        ])
        .args(extra)
        .output()
        .expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn issue_14_each_image_has_its_own_result() {
    // Two search registries: enforcing mode refuses the short name, the
    // qualified image is still explained.
    let (code, stdout, stderr) = explain_exit(
        &["busybox", "quay.io/ns/app:1"],
        &["--short-name-mode", "enforcing", "-o", "json"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["image"], "busybox");
    assert!(items[0]["candidates"].as_array().unwrap().is_empty());
    assert!(
        items[0]["error"].as_str().unwrap().starts_with(
            "short name mode is enforcing, but image name busybox returns ambiguous list"
        ),
        "{}",
        items[0]
    );
    assert_eq!(items[1]["candidates"][0]["reference"], "quay.io/ns/app:1");
    assert!(items[1].get("error").is_none(), "{}", items[1]);
    assert!(
        stderr.contains("hint: use a fully-qualified reference"),
        "{stderr}"
    );

    // The text view says the pull fails, and still shows the other image.
    let (code, stdout, _) = explain_exit(
        &["busybox", "quay.io/ns/app:1"],
        &["--short-name-mode", "enforcing"],
    );
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains(
            "Result:    the pull fails: short name mode is enforcing, but image name busybox"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Image:     quay.io/ns/app:1"), "{stdout}");
}

#[test]
fn issue_14_exit_codes_say_whether_every_image_pulls() {
    // Every image pulls as configured.
    let (code, _, stderr) = explain_exit(&["quay.io/ns/app:1"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // Blocked (and rejected by policy.json): exit 1, with the reason in its result.
    let (code, stdout, _) = explain_exit(
        &["quay.io/ns/app:1", "untrusted.example.com/x:1"],
        &["-o", "json"],
    );
    assert_eq!(code, Some(1));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    // containers/image's words first (docker/docker_client.go), then the cause.
    assert_eq!(
        v["items"][1]["error"],
        "registry untrusted.example.com is blocked in /etc/containers/registries.conf or \
         /etc/containers/registries.conf.d: every endpoint for untrusted.example.com/x:1 is \
         blocked and no mirror can serve it"
    );
    // An invalid reference is invalid input (exit 2), the others still explained.
    let (code, stdout, _) = explain_exit(&["quay.io/ns/app:1", "Bad//Ref"], &["-o", "json"]);
    assert_eq!(code, Some(2));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert!(v["items"][1]["error"]
        .as_str()
        .unwrap()
        .starts_with("invalid image reference \"Bad//Ref\""));
    assert_eq!(
        v["items"][0]["candidates"][0]["reference"],
        "quay.io/ns/app:1"
    );
}

#[test]
fn issue_14_a_scope_that_requires_signatures_is_allowed_if_signed() {
    let (code, stdout, _) = explain_exit(&["registry.redhat.io/ubi9/ubi:latest"], &[]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("Policy:    allowed if signed by scope \"registry.redhat.io\""),
        "{stdout}"
    );
    let (_, stdout, _) = explain_exit(&["quay.io/ns/app:1"], &[]);
    assert!(
        stdout.contains("Policy:    allowed by the global default"),
        "{stdout}"
    );
}

/// Issue 13: a node's policy.json and the MCO's read of policy.json share
/// one model, so `keyType: PGP` gets containers/image's message (not a
/// message of this tool's own), with the place in the file.
#[test]
fn issue_13_policy_json_errors_use_upstream_messages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.json");
    std::fs::write(
        &path,
        r#"{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"quay.io":[{"type":"signedBy","keyType":"PGP","keyPath":"/k"}]}}}"#,
    )
    .unwrap();
    let out = plugin()
        .args(["explain", "quay.io/a/b:1"])
        .args(["--registries-conf", "examples/node/registries.conf"])
        .arg("--policy-json")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("transports.docker.\"quay.io\"[0]: Unrecognized keyType value \"PGP\""),
        "{stderr}"
    );
}

const NODE_FILES: &str = "examples/disconnected-cluster/node-files";

/// Issue 15: `--node` explains against that node's own files, each fact
/// named `<node>:<host path>:<line>`: worker-1's hand-edited registries.conf
/// no longer blocks registry.redhat.io/rhel9, its stray drop-in makes the
/// lab registry insecure; worker-0's files are the rendered ones.
#[test]
fn issue_15_explain_node_origins() {
    let node = |name: &str, image: &str| -> Value {
        let out = plugin()
            .args([
                "explain",
                image,
                "-o",
                "json",
                "--node",
                name,
                "--node-files",
                NODE_FILES,
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let w1 = node(
        "worker-1.corp.example.com",
        "registry.redhat.io/rhel9/support-tools:latest",
    );
    let registry = &w1["candidates"][0]["registry"];
    assert_eq!(registry["blocked"], false, "{registry}");
    assert_eq!(
        registry["origins"],
        serde_json::json!(["worker-1.corp.example.com:/etc/containers/registries.conf:41"])
    );
    let w0 = node(
        "worker-0.corp.example.com",
        "registry.redhat.io/rhel9/support-tools:latest",
    );
    let registry = &w0["candidates"][0]["registry"];
    assert_eq!(registry["blocked"], true, "{registry}");
    assert_eq!(
        registry["origins"][0].as_str().unwrap(),
        "worker-0.corp.example.com:/etc/containers/registries.conf:41"
    );
    let lab = node(
        "worker-1.corp.example.com",
        "registry.lab.example.com:5001/tools/debug:1",
    );
    let registry = &lab["candidates"][0]["registry"];
    assert_eq!(registry["insecure"], true);
    assert_eq!(
        registry["origins"],
        serde_json::json!([
            "worker-1.corp.example.com:/etc/containers/registries.conf.d/99-lab-registry.conf:2"
        ])
    );
    // The node's policy.json decides, named by node too.
    let text = plugin()
        .args(["explain", "registry.redhat.io/rhel9/support-tools:latest"])
        .args([
            "--node",
            "worker-1.corp.example.com",
            "--node-files",
            NODE_FILES,
        ])
        .output()
        .unwrap();
    assert_eq!(text.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&text.stdout)
        .contains("(worker-1.corp.example.com:/etc/containers/policy.json: default)"));
}

#[test]
fn issue_15_explain_unknown_node_lists_the_known_ones() {
    let out = plugin()
        .args([
            "explain",
            "busybox",
            "--node",
            "worker-9",
            "--node-files",
            NODE_FILES,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no node worker-9 in \"examples/disconnected-cluster/node-files\" (found: master-0.corp.example.com, worker-0.corp.example.com, worker-1.corp.example.com, worker-2.corp.example.com)"),
        "{stderr}"
    );
    // The folder needs a node.
    let out = plugin()
        .args(["explain", "busybox", "--node-files", NODE_FILES])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Without the folder the node is read live: no cluster here is exit 3.
    let out = plugin()
        .args(["explain", "busybox", "--node", "worker-0"])
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", "/nonexistent-home-for-tests")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

const KEY_DATA: &str = "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t";

/// A ClusterImagePolicy on `quay.io`, and an ImagePolicy in `shop` whose
/// scope `quay.io/team` the MCO drops for it (`other.io/app` stays).
fn conflicting_policies(dir: &std::path::Path) -> std::path::PathBuf {
    let policy = format!(
        "  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: {KEY_DATA}\n    signedIdentity:\n      matchPolicy: MatchRepoDigestOrExact\n"
    );
    let yaml = format!(
        "apiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: quay\nspec:\n  scopes:\n  - quay.io\n{policy}---\napiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata:\n  name: team\n  namespace: shop\nspec:\n  scopes:\n  - quay.io/team\n  - other.io/app\n{policy}"
    );
    let path = dir.join("policies.yaml");
    std::fs::write(&path, yaml).expect("write");
    path
}

// issue 28: `explain -n NS` gives the ImagePolicy conflict warning only for
// the images a dropped scope applies to.
#[test]
fn issue_28_scope_conflict_warning_only_where_the_scope_covers_the_image() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = conflicting_policies(dir.path());
    let out = plugin()
        .args([
            "explain",
            "quay.io/team/app:1",
            "quay.io/other/app:1",
            "other.io/app:1",
            "docker.io/library/busybox:1",
            "-n",
            "shop",
            "-o",
            "json",
            "-f",
        ])
        .arg(&file)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("json");
    let json = &list["items"];
    let conflict = |i: usize| {
        json[i]["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter(|w| w.as_str().unwrap_or("").contains("conflicting scope"))
            .count()
    };
    assert_eq!(conflict(0), 1, "{:#}", json[0]["warnings"]);
    let warning = json[0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .find_map(|w| w.as_str().filter(|w| w.contains("conflicting scope")))
        .expect("warning")
        .to_string();
    assert!(
        warning.starts_with("ImagePolicy/shop/team: has conflicting scope(s) [\"quay.io/team\"]"),
        "{warning}"
    );
    // Under the ClusterImagePolicy but not the dropped scope; the scope
    // that stays; no policy at all: no conflict warning.
    for i in 1..4 {
        assert_eq!(
            conflict(i),
            0,
            "{}: {:#}",
            json[i]["image"],
            json[i]["warnings"]
        );
    }
    // Another namespace: none either.
    let out = plugin()
        .args([
            "explain",
            "quay.io/team/app:1",
            "-n",
            "other",
            "-o",
            "json",
            "-f",
        ])
        .arg(&file)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("conflicting scope"), "{text}");
}

/// Issue 25: while the cluster updates from 4.20 (CRI-O 1.33, short names
/// disabled) to 4.21 (enforcing), a node resolves short names the older
/// way until its pool is updated: a short name the two modes resolve
/// differently is undetermined (exit 3), saying both; a qualified reference
/// is explained as usual, and `--short-name-mode` decides.
#[test]
fn issue_25_short_names_during_an_update_are_undetermined() {
    let dir = tempfile::tempdir().unwrap();
    let (copy, cv) = support::example_updating_from(dir.path(), "4.20.9");
    let out = plugin()
        .args(["explain", "support-tools:latest", "-o", "json", "-f"])
        .arg(&copy)
        .output()
        .unwrap();
    let json = support::json_with_code(&out, 3);
    assert_eq!(json["undetermined"], true);
    let error = json["error"].as_str().unwrap();
    assert!(
        error.starts_with("ClusterVersion/version is updating from 4.20.9 to 4.21.2: a node not yet updated resolves short names with short-name-mode disabled and tries mirror.corp.example.com:5000/support-tools:latest, registry.access.redhat.com/support-tools:latest; an updated one, with enforcing, fails (short name mode is enforcing, but image name support-tools:latest returns ambiguous list ("),
        "{error}"
    );
    plugin()
        .args([
            "explain",
            &format!("registry.redhat.io/rhel9/support-tools@{DIGEST}"),
            "-f",
        ])
        .arg(&copy)
        .assert()
        .code(0);
    plugin()
        .args([
            "explain",
            "support-tools:latest",
            "--short-name-mode",
            "disabled",
            "-f",
        ])
        .arg(&copy)
        .assert()
        .code(0);
    // Once the update has completed, the target's mode alone.
    let text = std::fs::read_to_string(&cv)
        .unwrap()
        .replace("state: Partial", "state: Completed");
    std::fs::write(&cv, text).unwrap();
    plugin()
        .args(["explain", "support-tools:latest", "-f"])
        .arg(&copy)
        .assert()
        .code(1)
        .stdout(predicates::str::contains(
            "short name mode is enforcing, but image name support-tools:latest returns ambiguous list",
        ));
}

/// The machine-written short-name-aliases.conf (CRI-O and root podman read
/// /var/cache/containers/short-name-aliases.conf) is looked up before the
/// registries.conf aliases: its alias wins, and its `""` sends the name back
/// to the search registries, as podman 5.4 does.
#[test]
fn issue_34_short_name_aliases_file_wins_over_registries_conf() {
    let dir = tempfile::tempdir().unwrap();
    let drop_ins = dir.path().join("registries.conf.d");
    std::fs::create_dir(&drop_ins).unwrap();
    std::fs::write(
        drop_ins.join("50-aliases.conf"),
        "[aliases]\n\"busybox\" = \"quay.io/files/busybox\"\n\"tools\" = \"quay.io/files/tools\"\n",
    )
    .unwrap();
    let cache = dir.path().join("short-name-aliases.conf");
    std::fs::write(
        &cache,
        "[aliases]\n\"busybox\" = \"quay.io/cached/busybox\"\n\"tools\" = \"\"\n",
    )
    .unwrap();
    let v = explain_json(
        &["busybox:1.36", "tools"],
        &[
            "--registries-conf-d",
            drop_ins.to_str().unwrap(),
            "--short-name-aliases",
            cache.to_str().unwrap(),
        ],
    );
    let busybox = &v["items"][0]["candidates"];
    assert_eq!(refs(busybox), ["quay.io/cached/busybox:1.36"]);
    assert_eq!(busybox[0]["resolvedBy"]["kind"], "alias");
    assert_eq!(
        busybox[0]["resolvedBy"]["origins"][0],
        format!("{}:2", cache.display())
    );
    assert_eq!(
        refs(&v["items"][1]["candidates"]),
        [
            "registry.access.redhat.com/tools:latest",
            "docker.io/library/tools:latest"
        ]
    );
}

/// A short-name-aliases.conf podman cannot load fails every short name with
/// its message, and only them: qualified names never read it.
#[test]
fn issue_34_invalid_short_name_aliases_file_fails_short_names_only() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("short-name-aliases.conf");
    std::fs::write(&cache, "[aliases]\n\"x\" = \"quay.io/ns/x:1\"\n").unwrap();
    let (code, stdout, stderr) = explain_exit(
        &["busybox", "quay.io/ns/app:1"],
        &[
            "--short-name-aliases",
            cache.to_str().unwrap(),
            "-o",
            "json",
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    let error = v["items"][0]["error"].as_str().expect("busybox fails");
    let want = format!(
        "loading short-name aliases config file \"{}\": invalid alias \"quay.io/ns/x:1\": must not contain tag",
        cache.display()
    );
    assert!(error.ends_with(&want), "{error}");
    assert_eq!(refs(&v["items"][1]["candidates"]), ["quay.io/ns/app:1"]);

    plugin()
        .args(["explain", "busybox", "--short-name-aliases"])
        .arg(&cache)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--short-name-aliases is for node files",
        ));
}

/// Issue 35: `--registries-conf-d` is listed as containers/image lists a
/// node's registries.conf.d (sysregistriesv2 `dropInConfigs`): a drop-in
/// named `.conf` and one that is a link are read; a sub-folder, a dangling
/// link and `*.conf.bak` are not. `--node-files` reads the same drop-in the
/// same way.
#[test]
fn issue_35_drop_ins_are_listed_as_containers_image_lists_them() {
    let dir = tempfile::tempdir().unwrap();
    let block = |prefix: &str| {
        format!("[[registry]]\nprefix = \"{prefix}\"\nlocation = \"{prefix}\"\nblocked = true\n")
    };
    let d = dir.path().join("registries.conf.d");
    std::fs::create_dir_all(d.join("sub.conf")).unwrap();
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    std::fs::write(d.join(".conf"), block("quay.io/dot")).unwrap();
    std::fs::write(
        dir.path().join("elsewhere/real.conf"),
        block("quay.io/linked"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../elsewhere/real.conf", d.join("link.conf")).unwrap();
    std::os::unix::fs::symlink("../elsewhere/gone.conf", d.join("dangling.conf")).unwrap();
    std::fs::write(d.join("sub.conf/x.conf"), block("quay.io/sub")).unwrap();
    std::fs::write(d.join("x.conf.bak"), block("quay.io/bak")).unwrap();
    let images = [
        "quay.io/dot/a:1",
        "quay.io/linked/a:1",
        "quay.io/sub/a:1",
        "quay.io/bak/a:1",
    ];
    let out = plugin()
        .arg("explain")
        .args(images)
        .arg("--registries-conf-d")
        .arg(&d)
        .args(["-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 1);
    let blocked: Vec<bool> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["candidates"][0]["registry"]["blocked"] == true)
        .collect();
    assert_eq!(blocked, [true, true, false, false], "{v:#}");

    // The node reads the drop-in named .conf too.
    let node = dir
        .path()
        .join("node-files/worker-0/etc/containers/registries.conf.d");
    std::fs::create_dir_all(&node).unwrap();
    std::fs::write(node.join(".conf"), block("quay.io/dot")).unwrap();
    let out = plugin()
        .args([
            "explain",
            "quay.io/dot/a:1",
            "--node",
            "worker-0",
            "--node-files",
        ])
        .arg(dir.path().join("node-files"))
        .args(["--crio-version", "1.34", "-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 1);
    assert_eq!(v["candidates"][0]["registry"]["blocked"], true, "{v:#}");
}

/// Issue 35: a `--registries-conf-d` that is itself a link is not listed
/// (`filepath.WalkDir` does not follow it): nothing behind it is read, and
/// the explanation says so, as `--node` does for a node's linked folder.
#[test]
fn issue_35_a_linked_registries_conf_d_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::write(
        real.join("50-block.conf"),
        "[[registry]]\nprefix = \"quay.io/x\"\nlocation = \"quay.io/x\"\nblocked = true\n",
    )
    .unwrap();
    let link = dir.path().join("registries.conf.d");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = plugin()
        .args(["explain", "quay.io/x/a:1", "--registries-conf-d"])
        .arg(&link)
        .args(["-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 0);
    assert_eq!(v["candidates"][0]["registry"], Value::Null, "{v:#}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("registries.conf.d is a link to")
            && warnings.contains("CRI-O reads none of the drop-ins behind it"),
        "{warnings}"
    );
}

/// Issue 35: `--registries-d` is read as docker `loadAndMergeConfig` reads
/// registries.d: every name ending in `.yaml`, `.yaml` itself included, so
/// two files giving `default-docker` conflict (exit 2); `x.yml` is not
/// read, so beside `x.yaml` nothing conflicts.
#[test]
fn issue_35_registries_d_reads_yaml_names_as_containers_image() {
    let image = format!("127.0.0.1:1/ns/app@{DIGEST}");
    let sigstore = "default-docker:\n  use-sigstore-attachments: true\n";
    for (names, conflict) in [([".yaml", "x.yaml"], true), (["x.yml", "x.yaml"], false)] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("registries.d");
        std::fs::create_dir_all(&d).unwrap();
        for name in names {
            std::fs::write(d.join(name), sigstore).unwrap();
        }
        let out = plugin()
            .env("HOME", dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .args([
                "explain",
                &image,
                "--registries-conf",
                "examples/node/registries.conf",
            ])
            .args(["--probe", "--probe-timeout", "1", "--registries-d"])
            .arg(&d)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code() == Some(2),
            conflict,
            "{names:?}: {stderr}"
        );
        assert_eq!(
            stderr.contains("\"default-docker\" is also defined in"),
            conflict,
            "{names:?}: {stderr}"
        );
    }
}

/// Issue 36: sources whose only mirrors are digest-only (an ICSP, an IDMS,
/// an IDMS that never contacts its source), pulled by tag.
const TAG_FIX: &str = "tests/fixtures/tag-mirror-fix";

/// `explain IMAGE -f TAG_FIX -o json` and `extra`, with `cmd` (the binary,
/// under one name or another).
fn explain_tag_fix(cmd: &mut Command, image: &str, extra: &[&str]) -> Value {
    let out = cmd
        .args(["explain", image, "-f", TAG_FIX, "-o", "json"])
        .args(extra)
        .output()
        .unwrap();
    support::json_with_code(&out, 0)
}

/// The fix's ImageTagMirrorSet for `image`, saved in `dir`.
fn saved_itms(dir: &std::path::Path, image: &str) -> std::path::PathBuf {
    let v = explain_tag_fix(&mut plugin(), image, &[]);
    let fix = &v["candidates"][0]["fix"];
    let path = dir.join("itms.yaml");
    std::fs::write(&path, fix["imageTagMirrorSet"].as_str().expect("yaml")).unwrap();
    path
}

/// Issue 36: a tag pull past an ICSP's digest-only mirror names both ways
/// to let tag pulls use it: the ImageTagMirrorSet, and `migrate-icsp
/// --with-tag-mirrors` for the ICSP; with the tag-drift caveat and the
/// digest as the other way out.
#[test]
fn issue_36_tag_pull_past_icsp_mirrors_names_migrate_icsp_and_an_itms() {
    let image = "quay.io/legacy/app:1.0";
    let v = explain_tag_fix(&mut plugin(), image, &[]);
    let c = &v["candidates"][0];
    assert_eq!(refs(&c["sources"]), [image]);
    let fix = &c["fix"];
    assert_eq!(fix["kind"], "imageTagMirrorSet");
    assert_eq!(fix["source"], "quay.io/legacy");
    assert_eq!(
        fix["mirrors"],
        serde_json::json!([{
            "location": "mirror.corp.example.com:5000/legacy",
            "reference": "mirror.corp.example.com:5000/legacy/app:1.0",
            "insecure": false,
            "origins": ["ImageContentSourcePolicy/legacy"],
        }])
    );
    assert_eq!(
        fix["imageTagMirrorSet"],
        "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: quay-io-legacy-tag-mirrors\nspec:\n  imageTagMirrors:\n  - source: quay.io/legacy\n    mirrors:\n    - mirror.corp.example.com:5000/legacy\n"
    );
    assert_eq!(
        fix["migrateIcsp"],
        serde_json::json!({
            "command": "kubectl mirrorpolicy migrate-icsp --with-tag-mirrors",
            "objects": ["ImageContentSourcePolicy/legacy"],
        })
    );
    assert_eq!(
        fix["check"],
        "kubectl mirrorpolicy explain quay.io/legacy/app:1.0 --with quay-io-legacy-tag-mirrors.yaml"
    );
    let caveat = fix["caveat"].as_str().unwrap();
    assert!(
        caveat.starts_with("tags are mutable")
            && caveat.contains("oc-mirror")
            && caveat.contains("skopeo copy"),
        "{caveat}"
    );
    assert!(fix["alternative"]
        .as_str()
        .unwrap()
        .contains("pin a digest"));
    assert_eq!(fix.get("mirrorSourcePolicy"), None, "{fix:#}");
    assert_eq!(fix.get("registriesConf"), None, "{fix:#}");
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("add an ImageTagMirrorSet for quay.io/legacy with the same mirrors"),
        "{warnings}"
    );

    // The table says the same.
    let out = plugin()
        .args(["explain", image, "-f", TAG_FIX])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "Fix:       tag pulls use these mirrors (mirror.corp.example.com:5000/legacy) once an ImageTagMirrorSet lists them for quay.io/legacy\n",
        "             kind: ImageTagMirrorSet\n",
        "               - source: quay.io/legacy\n",
        "           or, for ImageContentSourcePolicy/legacy: kubectl mirrorpolicy migrate-icsp --with-tag-mirrors",
        "           tags are mutable: ",
        "           or pin a digest (quay.io/legacy/app@sha256:...)",
    ] {
        assert!(text.contains(line), "{line:?} in:\n{text}");
    }

    // Run as `oc mirrorpolicy`, the commands are oc's.
    let dir = tempfile::tempdir().unwrap();
    let oc = dir.path().join("oc-mirrorpolicy");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"), &oc).unwrap();
    let v = explain_tag_fix(&mut Command::new(&oc), image, &[]);
    let fix = &v["candidates"][0]["fix"];
    assert_eq!(
        fix["migrateIcsp"]["command"],
        "oc mirrorpolicy migrate-icsp --with-tag-mirrors"
    );
    assert!(fix["check"]
        .as_str()
        .unwrap()
        .starts_with("oc mirrorpolicy explain "));

    // What the migration writes makes tag pulls use the mirror.
    let out = plugin()
        .args(["migrate-icsp", "--with-tag-mirrors", "-f", TAG_FIX])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let migrated = dir.path().join("migrated.yaml");
    std::fs::write(&migrated, &out.stdout).unwrap();
    let with = explain_tag_fix(
        &mut plugin(),
        image,
        &["--with", migrated.to_str().unwrap()],
    );
    assert_eq!(
        refs(&with["candidates"][0]["sources"]),
        ["mirror.corp.example.com:5000/legacy/app:1.0", image]
    );
}

/// Issue 36: the ImageTagMirrorSet of an IDMS's two mirrors keeps their
/// order, and applied (`--with`) it makes the tag pull use them in that
/// order: the fix is gone, and so is the warning.
#[test]
fn issue_36_itms_of_an_idms_keeps_the_mirror_order_and_works() {
    let image = "registry.example.com/apps/web:2.1";
    let v = explain_tag_fix(&mut plugin(), image, &[]);
    let fix = &v["candidates"][0]["fix"];
    assert_eq!(
        fix["imageTagMirrorSet"],
        "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: registry-example-com-apps-tag-mirrors\nspec:\n  imageTagMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - mirror-b.corp.example.com/apps\n    - mirror-a.corp.example.com/apps\n"
    );
    assert_eq!(fix.get("migrateIcsp"), None, "{fix:#}");
    let dir = tempfile::tempdir().unwrap();
    let itms = saved_itms(dir.path(), image);
    let with = explain_tag_fix(&mut plugin(), image, &["--with", itms.to_str().unwrap()]);
    let c = &with["candidates"][0];
    assert_eq!(
        refs(&c["sources"]),
        [
            "mirror-b.corp.example.com/apps/web:2.1",
            "mirror-a.corp.example.com/apps/web:2.1",
            image
        ]
    );
    assert_eq!(c.get("fix"), None, "{c:#}");
    assert!(
        !with["warnings"].to_string().contains("digest-only"),
        "{with:#}"
    );
    // A pull by digest has no fix: it uses the mirrors as they are.
    let pinned = format!("registry.example.com/apps/web@{DIGEST}");
    let v = explain_tag_fix(&mut plugin(), &pinned, &[]);
    assert_eq!(v["candidates"][0].get("fix"), None, "{v:#}");
}

/// Issue 36: a source an IDMS never contacts: its tag pull has no endpoint
/// left, and the ImageTagMirrorSet says `NeverContactSource` too (the MCO
/// refuses a source whose mirror sets disagree), which lint accepts.
#[test]
fn issue_36_never_contact_source_is_carried_into_the_itms() {
    let image = "registry.example.com/locked/db:3";
    let out = plugin()
        .args(["explain", image, "-f", TAG_FIX, "-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 1);
    let fix = &v["candidates"][0]["fix"];
    assert_eq!(fix["mirrorSourcePolicy"], "NeverContactSource");
    assert!(fix["imageTagMirrorSet"].as_str().unwrap().ends_with(
        "    - mirror-a.corp.example.com/locked\n    mirrorSourcePolicy: NeverContactSource\n"
    ));
    assert!(fix["caveat"]
        .as_str()
        .unwrap()
        .contains("with mirrorSourcePolicy: NeverContactSource the source is never checked"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("itms.yaml"),
        fix["imageTagMirrorSet"].as_str().unwrap(),
    )
    .unwrap();
    let itms = dir.path().join("itms.yaml");
    plugin()
        .args(["lint", "-f", TAG_FIX, "-f"])
        .arg(&itms)
        .assert()
        .success();
    let with = explain_tag_fix(&mut plugin(), image, &["--with", itms.to_str().unwrap()]);
    let sources = &with["candidates"][0]["sources"];
    assert_eq!(
        refs(sources),
        ["mirror-a.corp.example.com/locked/db:3", image]
    );
    assert_eq!(sources[1]["blocked"], true);
}

/// Issue 36: from a registries.conf (no cluster objects), the fix also
/// says how to edit the file where the MCO does not write it, and has no
/// `--with` check.
#[test]
fn issue_36_registries_conf_gets_its_own_edit() {
    let v = explain_json(
        &["quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"],
        &[],
    );
    let fix = &v["candidates"][0]["fix"];
    assert_eq!(fix["source"], "quay.io/openshift-release-dev/ocp-release");
    let edit = fix["registriesConf"].as_str().expect("registriesConf");
    assert!(
        edit.contains("where registries.conf is not written by the MCO")
            && edit.contains("remove mirror-by-digest-only = true"),
        "{edit}"
    );
    assert_eq!(fix.get("check"), None, "{fix:#}");
    assert!(fix["imageTagMirrorSet"].is_string(), "{fix:#}");
}

/// `explain -f FILE IMAGE... -o json`, every exit code taken: the
/// explanations (one image gives one object, several a List).
fn explain_objects(file: &str, images: &[&str], extra: &[&str]) -> Vec<Value> {
    let out = plugin()
        .args(["explain", "-f", file, "-o", "json"])
        .args(images)
        .args(extra)
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    match v.get("items") {
        Some(Value::Array(items)) => items.clone(),
        _ => vec![v],
    }
}

fn hostless_warnings(item: &Value) -> Vec<String> {
    item["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .filter(|w| w.contains("is no registry host"))
        .collect()
}

/// Issue 36: an image whose path holds a source without a registry host
/// (`operator-framework`, meant as quay.io's) is told why that source's
/// mirrors do not apply to it, and which source would; images of the
/// sources with a host, and one the entry does match (its name with a
/// port), are not.
#[test]
fn issue_36_a_rule_without_a_registry_host_says_why_it_does_not_apply() {
    let file = "tests/fixtures/issue-36/mirror-sets.yaml";
    let olm = format!("quay.io/operator-framework/olm@{DIGEST}");
    let items = explain_objects(file, &[&olm], &[]);
    assert_eq!(items[0]["candidates"][0]["registry"], Value::Null);
    assert_eq!(
        hostless_warnings(&items[0]),
        [format!("the mirrors of \"operator-framework\" (ImageDigestMirrorSet/operators) do not apply to {olm}: \"operator-framework\" is no registry host (no \".\" or \":\", not \"localhost\"): an image written operator-framework/... is the Docker Hub name docker.io/operator-framework/..., so the rule matches no image but those of a registry operator-framework:PORT (containers/image's port rule); for this image the source must be quay.io/operator-framework")]
    );
    // A repository source, matched deeper in the path.
    let cli = "registry.example.com/ocp/openshift4/ose-cli:v4.18";
    let items = explain_objects(file, &[cli], &[]);
    let w = hostless_warnings(&items[0]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "the mirrors of \"openshift4/ose-cli\" (ImageDigestMirrorSet/operators) do not apply"
        ),
        "{w:?}"
    );
    assert!(w[0].ends_with("so the rule matches no image; for this image the source must be registry.example.com/ocp/openshift4/ose-cli"), "{w:?}");
    // A short name: no candidate resolves (enforcing), the warning stays.
    let short = format!("operator-framework/olm@{DIGEST}");
    let items = explain_objects(file, &[&short], &[]);
    assert!(items[0]["error"].as_str().unwrap().starts_with(&format!(
        "short name mode is enforcing, but image name {short} returns ambiguous list ("
    )));
    let w = hostless_warnings(&items[0]);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].ends_with("for this image the source must name the registry the short name resolves to, such as docker.io/operator-framework"), "{w:?}");
    // Sources with a host, and the entry's own name with a port.
    let others = [
        format!("registry.redhat.io/rhel9/support-tools@{DIGEST}"),
        format!("localhost/team/app@{DIGEST}"),
        format!("registry:5000/tools/app@{DIGEST}"),
        format!("console.apps.example.com/ns/app@{DIGEST}"),
        format!("quay.io/openshift-release-dev/ocp-release@{DIGEST}"),
        format!("operator-framework:5000/olm@{DIGEST}"),
    ];
    let images: Vec<&str> = others.iter().map(String::as_str).collect();
    for item in explain_objects(file, &images, &[]) {
        assert_eq!(
            hostless_warnings(&item),
            Vec::<String>::new(),
            "{}",
            item["image"]
        );
    }
}

/// Issue 36: a pull policy.json refuses with `reject` opens with the words
/// CRI-O returns (containers/image copy/single.go and
/// signature/policy_eval_simple.go), the image in its familiar form.
#[test]
fn issue_36_policy_rejection_says_what_crio_says() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy.json");
    std::fs::write(&policy, r#"{"default":[{"type":"reject"}]}"#).unwrap();
    let out = plugin()
        .args(["explain", "quay.io/ns/app:1", "docker.io/library/busybox:1"])
        .args(["--registries-conf", "examples/node/registries.conf"])
        .arg("--policy-json")
        .arg(&policy)
        .args(["-o", "json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["items"][0]["error"],
        "Source image rejected: Running image docker://quay.io/ns/app:1 is rejected by policy. \
         policy.json rejects quay.io/ns/app:1"
    );
    assert_eq!(
        v["items"][1]["error"],
        "Source image rejected: Running image docker://busybox:1 is rejected by policy. \
         policy.json rejects docker.io/library/busybox:1"
    );
}
