//! `lint` through the binary: what kubectl's default `--validate=strict`
//! refuses (unknown fields, a wrong apiVersion, a misspelt kind, an invalid
//! name) is a counted error naming file, object and field; the reading
//! commands stay lenient; `--with` and `migrate-icsp` stay strict.

use crate::support;

use predicates::prelude::*;
use predicates::str::contains;
use support::bin;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const IDMS: &str = "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: apps
spec:
  imageDigestMirrors:
  - source: registry.example.com/apps
    mirrors:
    - mirror.corp.example.com:5000/apps
";

/// Runs `lint -f file`: (exit code, stdout, stderr).
fn lint(file: &str) -> (Option<i32>, String, String) {
    let out = bin().args(["lint", "-f", file]).output().unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn issue_14_lint_refuses_unknown_fields_with_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}---\n{}",
        IDMS.replace("imageDigestMirrors:", "imageDigestMirror:"),
        IDMS.replace("name: apps", "name: tekton")
            .replace("    mirrors:\n", "    mirror:\n")
            .replace(
                "spec:\n",
                "spec:\n  params:\n  - name: build-source-image\n    value: \"true\"\n"
            )
    );
    let file = write(&dir, "idms.yaml", &text);
    let (code, stdout, stderr) = lint(&file);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    for want in [
        format!("error: {file}:1: ImageDigestMirrorSet/apps: spec.imageDigestMirror: unknown field (did you mean \"imageDigestMirrors\"?) (the API server refuses this object)"),
        format!("error: {file}:11: ImageDigestMirrorSet/tekton: spec.imageDigestMirrors[0].mirror: unknown field (did you mean \"mirrors\"?)"),
        format!("error: {file}:11: ImageDigestMirrorSet/tekton: spec.params: unknown field (the API server refuses this object)"),
    ] {
        assert!(stdout.contains(&want), "{want}\nnot in:\n{stdout}");
    }
    assert!(stdout.ends_with("3 error(s), 1 warning(s)\n"), "{stdout}");
    // Fields every exported object has are known: metadata as the API
    // server writes it, status, a List around the objects.
    let exported = write(
        &dir,
        "exported.yaml",
        &format!(
            "apiVersion: v1\nkind: List\nitems:\n- {}",
            IDMS.replace("metadata:\n", "metadata:\n  uid: 1f0c\n  resourceVersion: \"42\"\n  generation: 1\n  creationTimestamp: \"2024-01-01T00:00:00Z\"\n  labels: {a: b}\n  annotations: {c: d}\n  managedFields:\n  - manager: kubectl\n    operation: Apply\n    apiVersion: config.openshift.io/v1\n    fieldsType: FieldsV1\n    fieldsV1: {\"f:spec\": {}}\n")
                .replace('\n', "\n  ")
                .trim_end()
                .to_string()
                + "\n  status: {}\n"
        ),
    );
    let (code, stdout, _) = lint(&exported);
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "0 error(s), 0 warning(s)\n")
    );
}

#[test]
fn issue_14_lint_refuses_a_wrong_api_version() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}---\napiVersion: config.openshift.io/v2\nkind: Image\nmetadata:\n  name: cluster\nspec: {{}}\n",
        IDMS.replace("config.openshift.io/v1", "operator.openshift.io/v1alpha1")
    );
    let file = write(&dir, "wrong-api.yaml", &text);
    let (code, stdout, stderr) = lint(&file);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "error: {file}:1: ImageDigestMirrorSet/apps: apiVersion: \"operator.openshift.io/v1alpha1\" is not served for ImageDigestMirrorSet, which is served as \"config.openshift.io/v1\"; read as \"config.openshift.io/v1\" (the API server refuses this object); fix: correct apiVersion and apply it again\n\
             error: {file}:11: Image/cluster: apiVersion: \"config.openshift.io/v2\" is not served for Image, which is served as \"config.openshift.io/v1\"; read as \"config.openshift.io/v1\" (the API server refuses this object); fix: correct apiVersion and apply it again\n\
             2 error(s), 0 warning(s)\n"
        )
    );
    // Said once, as a finding, not also as a note on stderr.
    assert!(!stderr.contains("apiVersion"), "{stderr}");
}

#[test]
fn issue_14_lint_refuses_a_misspelt_kind() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}---\n{}---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicys\nmetadata:\n  name: old\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n",
        IDMS,
        IDMS.replace("kind: ImageDigestMirrorSet", "kind: ImageDigestMirrorset")
            .replace("name: apps", "name: other")
    );
    let file = write(&dir, "kinds.yaml", &text);
    let (code, stdout, stderr) = lint(&file);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "error: {file}:11: ImageDigestMirrorset/other: kind: \"ImageDigestMirrorset\" is not a kind the API server serves (did you mean \"ImageDigestMirrorSet\"?); the object was not read (the API server refuses this object); fix: correct kind and apply it again\n\
             error: {file}:21: ImageContentSourcePolicys/old: kind: \"ImageContentSourcePolicys\" is not a kind the API server serves (did you mean \"ImageContentSourcePolicy\"?); the object was not read (the API server refuses this object); fix: correct kind and apply it again\n\
             2 error(s), 0 warning(s)\n"
        )
    );
    // Alone in its file, a misspelt kind is still reported, not "nothing read".
    let alone = write(
        &dir,
        "alone.yaml",
        &IDMS.replace("kind: ImageDigestMirrorSet", "kind: ImageDigestMirrorset"),
    );
    let (code, stdout, _) = lint(&alone);
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains("did you mean \"ImageDigestMirrorSet\"?"),
        "{stdout}"
    );
}

#[test]
fn issue_14_lint_refuses_an_invalid_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "name.yaml",
        &IDMS.replace("name: apps", "name: My_IDMS"),
    );
    let (code, stdout, stderr) = lint(&file);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "error: {file}:1: ImageDigestMirrorSet/My_IDMS: metadata.name: Invalid value: \"My_IDMS\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"
        )),
        "{stdout}"
    );
}

/// `--with` and `migrate-icsp` prepare objects to apply: an unknown field
/// in them is refused, as kubectl would refuse it.
#[test]
fn issue_14_with_and_migrate_refuse_unknown_fields() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = write(&dir, "cluster.yaml", IDMS);
    let proposed = write(
        &dir,
        "proposed.yaml",
        &IDMS
            .replace("name: apps", "name: next")
            .replace("mirrors:", "mirror:"),
    );
    for args in [
        vec!["render"],
        vec!["list"],
        vec!["explain", "registry.example.com/apps/web@sha256:0000000000000000000000000000000000000000000000000000000000000000"],
        vec!["diff"],
    ] {
        bin()
            .args(&args)
            .args(["-f", &cluster, "--with", &proposed])
            .assert()
            .code(2)
            .stdout("")
            .stderr(contains(format!(
                "error: --with: {proposed}:1: ImageDigestMirrorSet/next: spec.imageDigestMirrors[0].mirror: unknown field (did you mean \"mirrors\"?)"
            )));
    }
    // lint counts it.
    bin()
        .args(["lint", "-f", &cluster, "--with", &proposed])
        .assert()
        .code(1)
        .stdout(contains(format!(
            "error: {proposed}:1: ImageDigestMirrorSet/next: spec.imageDigestMirrors[0].mirror: unknown field"
        )));
    let icsp = write(
        &dir,
        "icsp.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: ops\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/ops\n    mirror: [mirror.corp.example.com:5000/ops]\n",
    );
    let out_dir = dir.path().join("out");
    bin()
        .args(["migrate-icsp", "-f", &icsp, "--dest-dir"])
        .arg(&out_dir)
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(format!(
            "error: {icsp}:1: ImageContentSourcePolicy/ops: spec.repositoryDigestMirrors[0].mirror: unknown field (did you mean \"mirrors\"?); nothing written"
        )));
    assert!(!out_dir.exists());
}

/// The reading commands render what the cluster stores: an unknown field
/// changes nothing; a wrong apiVersion is a warning naming file and object.
#[test]
fn issue_14_reading_commands_stay_lenient() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(&dir, "clean.yaml", IDMS);
    let sloppy = write(
        &dir,
        "sloppy.yaml",
        &IDMS
            .replace("config.openshift.io/v1", "operator.openshift.io/v1alpha1")
            .replace("spec:\n", "spec:\n  params: [{name: x}]\n"),
    );
    for args in [
        vec!["render"],
        vec!["list"],
        vec!["explain", "registry.example.com/apps/web@sha256:0000000000000000000000000000000000000000000000000000000000000000"],
        vec!["audit"],
    ] {
        let want = bin().args(&args).args(["-f", &clean]).output().unwrap();
        let got = bin().args(&args).args(["-f", &sloppy]).output().unwrap();
        assert_eq!(got.status.code(), want.status.code(), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want.stdout),
            "{args:?}"
        );
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert!(
            stderr.contains(&format!(
                "warning: the API server would refuse this object today: {sloppy}:1: ImageDigestMirrorSet/apps: apiVersion: \"operator.openshift.io/v1alpha1\" is not served for ImageDigestMirrorSet"
            )),
            "{args:?}: {stderr}"
        );
    }
}

/// What the MCO refuses names the file its object came from.
#[test]
fn issue_14_mco_refusals_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "wildcard.yaml",
        &IDMS.replace("registry.example.com/apps", "\"*.example.com/apps\""),
    );
    for args in [vec!["list"], vec!["render"]] {
        bin()
            .args(&args)
            .args(["-f", &file])
            .assert()
            .code(2)
            .stderr(contains(format!(
                "error: the MCO refuses to render this configuration: ImageDigestMirrorSet/apps: invalid format for source \"*.example.com/apps\" (ImageDigestMirrorSet/apps from {file}:1)"
            )));
    }
    bin()
        .args(["lint", "-f", &file])
        .assert()
        .code(1)
        .stdout(contains(format!(
            "error: {file}:1: ImageDigestMirrorSet/apps: invalid format for source \"*.example.com/apps\""
        )));
}

#[test]
fn issue_14_a_headerless_image_patch_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "patch.yaml",
        "spec:\n  registrySources:\n    allowedRegistries:\n    - quay.io\n",
    );
    for command in ["render", "lint"] {
        bin()
            .args([command, "-f", &file])
            .assert()
            .code(2)
            .stderr(contains(format!(
                "warning: {file}: document 1: read no cluster object: this is a headerless patch of Image/cluster (spec.registrySources)"
            )))
            .stderr(contains("add `apiVersion: config.openshift.io/v1`, `kind: Image` and `metadata: {name: cluster}`"));
    }
}

/// The note about a namespace-less ImagePolicy names no client: the plugin
/// runs as `oc` as well as `kubectl`.
#[test]
fn issue_14_namespace_note_names_no_client() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "ip.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ImagePolicy\nmetadata:\n  name: p\nspec:\n  scopes: [example.com]\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFCi0tLS0tRU5EIFBVQkxJQyBLRVktLS0tLQo=\n",
    );
    bin()
        .args(["list", "-f", &file])
        .assert()
        .stderr(contains(
            "ImagePolicy/p has no metadata.namespace; applied, it would be created in the namespace of the current kubeconfig context",
        ))
        .stderr(contains("kubectl would").not());
}

/// issue 28: allowed and blocked registries both set, and no ClusterVersion:
/// the fault is that both lists are set (as `lint` says), not a release
/// image reference that does not parse.
#[test]
fn issue_28_allowed_and_blocked_without_cluster_version() {
    let dir = tempfile::tempdir().unwrap();
    let image = "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    allowedRegistries:\n    - quay.io\n    blockedRegistries:\n    - docker.io\n";
    let file = write(&dir, "image.yaml", image);
    const BOTH: &str = "only one of AllowedRegistries or BlockedRegistries may be specified";
    for args in [
        vec!["render"],
        vec!["list"],
        vec!["explain", "quay.io/a/b:1"],
    ] {
        bin()
            .args(&args)
            .args(["-f", &file])
            .assert()
            .code(2)
            .stderr(contains(format!(
                "error: the MCO refuses to render this configuration: invalid images config: {BOTH} (Image/cluster from {file}:1)"
            )))
            .stderr(contains("release image").not());
    }
    let (code, out, _) = lint(&file);
    assert_eq!(code, Some(1));
    assert!(out.contains(BOTH), "{out}");
    // With a ClusterVersion (a release image) the MCO says the same.
    let cv = write(
        &dir,
        "cv.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nspec:\n  clusterID: 0b1b5bd8-8c2c-4b5a-9f0e-7d3a5e1f2c4d\nstatus:\n  desired:\n    image: quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n    version: 4.21.0\n",
    );
    bin()
        .args(["render", "-f", &file, "-f", &cv])
        .assert()
        .code(2)
        .stderr(contains(BOTH));
}

/// Issue 25: `lint` validates as the MCO of the cluster's release does
/// (ClusterVersion): a wildcard mirror in an ImageContentSourcePolicy is
/// refused by pattern from 4.16, as "wildcard entries are not supported"
/// on 4.9–4.15, and not checked before 4.9; an ImageDigestMirrorSet whose
/// NeverContactSource source is its own mirror is refused from 4.13, and
/// ignored by 4.12 (which does not read ImageDigestMirrorSets at all).
#[test]
fn issue_25_lint_validates_as_the_clusters_release() {
    let dir = tempfile::tempdir().unwrap();
    let icsp = write(
        &dir,
        "icsp.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: wild\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - '*.mirror.example.com/apps'\n",
    );
    let idms = write(
        &dir,
        "idms.yaml",
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: never\nspec:\n  imageDigestMirrors:\n  - source: quay.io/team\n    mirrorSourcePolicy: NeverContactSource\n    mirrors:\n    - quay.io/team\n",
    );
    let cv = |version: &str| {
        write(
            &dir,
            &format!("cv-{version}.yaml"),
            &format!("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    image: quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n    version: {version}\n"),
        )
    };
    let run = |files: &[&str]| {
        let mut cmd = bin();
        cmd.args(["lint", "-o", "json"]);
        for f in files {
            cmd.args(["-f", f]);
        }
        let out = cmd.output().unwrap();
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        let errors: Vec<String> = findings["items"]
            .as_array()
            .unwrap_or_else(|| panic!("{findings}"))
            .iter()
            .filter(|f| f["level"] == "error")
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect();
        (out.status.code(), errors)
    };
    let wildcard = "wildcard entries are not supported with mirror configuration \"*.mirror.example.com/apps\"";
    let pattern = "invalid format for mirror \"*.mirror.example.com/apps\"";
    let never = "cannot set mirrorSourcePolicy: NeverContactSource if the source \"quay.io/team\" is one of the mirrors";
    for (version, want_wildcard, want_pattern, want_never) in [
        ("4.22.0", false, true, true),
        ("4.16.3", false, true, true),
        ("4.15.9", true, false, true),
        ("4.13.0", true, false, true),
        ("4.12.40", true, false, false),
        ("4.9.0", true, false, false),
        ("4.8.5", false, false, false),
    ] {
        let cv = cv(version);
        let (_, errors) = run(&[&icsp, &idms, &cv]);
        let has = |m: &str| errors.iter().any(|e| e.contains(m));
        assert_eq!(has(wildcard), want_wildcard, "{version}: {errors:?}");
        assert_eq!(has(pattern), want_pattern, "{version}: {errors:?}");
        assert_eq!(has(never), want_never, "{version}: {errors:?}");
    }
    // Without a ClusterVersion: the newest release's validation.
    let (code, errors) = run(&[&icsp, &idms]);
    assert_eq!(code, Some(1));
    assert!(errors.iter().any(|e| e.contains(pattern)), "{errors:?}");
}

/// The mirror objects of issue 36's admission tests: an
/// ImageContentSourcePolicy, an ImageDigestMirrorSet and an
/// ImageTagMirrorSet for three sources, and `ClusterVersion/version` at
/// `version`.
pub(crate) mod admission {
    pub const ICSP: &str = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: legacy\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/legacy\n    mirrors:\n    - mirror.corp.example.com:5000/legacy\n";
    pub const IDMS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: registry.example.com/apps\n    mirrors:\n    - mirror.corp.example.com:5000/apps\n";
    pub const ITMS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: tags\nspec:\n  imageTagMirrors:\n  - source: registry.example.com/tags\n    mirrors:\n    - mirror.corp.example.com:5000/tags\n";

    pub fn cluster_version(version: &str) -> String {
        format!("apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    image: quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n    version: {version}\n")
    }
}

/// Issue 36: the API server of OpenShift 4.13.0–4.13.26 and 4.14.0–4.14.2
/// refuses an ImageDigestMirrorSet or ImageTagMirrorSet while an
/// ImageContentSourcePolicy exists (lifted in 4.13.27 and 4.14.3): `lint`
/// says so in its words, naming the object and the way out; other
/// releases, and inputs without a ClusterVersion, are not checked.
#[test]
fn issue_36_lint_refuses_mirror_sets_beside_icsps_on_the_releases_that_do() {
    let dir = tempfile::tempdir().unwrap();
    let icsp = write(&dir, "icsp.yaml", admission::ICSP);
    let idms = write(&dir, "idms.yaml", admission::IDMS);
    let itms = write(&dir, "itms.yaml", admission::ITMS);
    let idms_refused = "Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist";
    let itms_refused = "Kind.ImageTagMirrorSet: Forbidden: can't create ImageTagMirrorSet when ImageContentSourcePolicy resources exist";
    for (version, set, want) in [
        (
            Some("4.13.10"),
            &idms,
            Some(("ImageDigestMirrorSet/apps", idms_refused)),
        ),
        (
            Some("4.13.0"),
            &itms,
            Some(("ImageTagMirrorSet/tags", itms_refused)),
        ),
        (
            Some("4.14.2"),
            &itms,
            Some(("ImageTagMirrorSet/tags", itms_refused)),
        ),
        (
            Some("4.14.0-rc.3"),
            &idms,
            Some(("ImageDigestMirrorSet/apps", idms_refused)),
        ),
        (Some("4.13.27"), &idms, None),
        (Some("4.14.3"), &itms, None),
        (Some("4.15.0"), &idms, None),
        (Some("4.12.40"), &idms, None),
        (None, &idms, None),
    ] {
        let mut cmd = bin();
        cmd.args(["lint", "-o", "json", "-f", &icsp, "-f", set]);
        if let Some(v) = version {
            let cv = write(
                &dir,
                &format!("cv-{v}.yaml"),
                &admission::cluster_version(v),
            );
            cmd.args(["-f", &cv]);
        }
        let out = cmd.output().unwrap();
        let findings: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        let refused: Vec<&serde_json::Value> = findings["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["message"].as_str().unwrap().contains("Forbidden"))
            .collect();
        let Some((object, message)) = want else {
            assert!(refused.is_empty(), "{version:?}: {refused:?}");
            assert_eq!(out.status.code(), Some(0), "{version:?}: {findings}");
            continue;
        };
        assert_eq!(out.status.code(), Some(1), "{version:?}: {findings}");
        assert_eq!(refused.len(), 1, "{version:?}: {refused:?}");
        let f = refused[0];
        assert_eq!(f["level"], "error", "{f}");
        assert_eq!(f["object"], object, "{f}");
        assert_eq!(f["file"], format!("{set}:1"), "{f}");
        let text = f["message"].as_str().unwrap();
        let v = version.unwrap();
        assert!(
            text.starts_with(&format!("{message} (the API server of OpenShift {v} refuses this object while ImageContentSourcePolicy/legacy exists;")),
            "{text}"
        );
    }
    // The table, with the way out: the ImageContentSourcePolicies must go
    // first on such a release (migrate-icsp --apply creates the
    // replacements before deleting them).
    let cv = write(&dir, "cv.yaml", &admission::cluster_version("4.13.10"));
    let out = bin()
        .args(["lint", "-f", &icsp, "-f", &idms, "-f", &cv])
        .output()
        .unwrap();
    let (code, stdout) = (out.status.code(), String::from_utf8(out.stdout).unwrap());
    assert_eq!(code, Some(1), "{stdout}");
    let want = format!(
        "error: {idms}:1: ImageDigestMirrorSet/apps: {idms_refused} (the API server of OpenShift 4.13.10 refuses this object while ImageContentSourcePolicy/legacy exists; from 4.13.27 on it does not): update to 4.13.27 or later first, then replace the ImageContentSourcePolicies (kubectl mirrorpolicy migrate-icsp --apply --delete-icsp); or delete them before creating it (kubectl mirrorpolicy migrate-icsp --dest-dir DIR writes their replacements; the nodes go without their mirrors in between)\n"
    );
    assert!(stdout.contains(&want), "{want}\nnot in:\n{stdout}");
    assert!(stdout.ends_with("1 error(s), 1 warning(s)\n"), "{stdout}");
}

const ISSUE_36: &str = "tests/fixtures/issue-36";

/// Runs `lint` over several files: (exit code, warnings, summary line).
fn lint_warnings(files: &[&str]) -> (Option<i32>, Vec<String>, String) {
    let mut cmd = bin();
    cmd.arg("lint");
    for f in files {
        cmd.args(["-f", f]);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let warnings = stdout
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .map(str::to_string)
        .collect();
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    (out.status.code(), warnings, summary)
}

/// Issue 36: a mirror-set source whose first component is no registry host
/// (no "." or ":", not "localhost") is a warning naming the object and
/// field, the Docker Hub reading and the source meant; sources with a host
/// (a dot, localhost, a port, a wildcard) are not.
#[test]
fn issue_36_a_source_without_a_registry_host_is_a_warning() {
    let file = format!("{ISSUE_36}/mirror-sets.yaml");
    let (code, warnings, summary) = lint_warnings(&[&file]);
    assert_eq!(code, Some(0), "{warnings:?}");
    assert_eq!(summary, "0 error(s), 3 warning(s)", "{warnings:?}");
    let want = [
        format!("warning: {file}:3: ImageDigestMirrorSet/operators: spec.imageDigestMirrors[0].source: the mirrors of \"operator-framework\" are not used for the images meant, though the MCO renders the entry: \"operator-framework\" is no registry host (no \".\" or \":\", not \"localhost\"): an image written operator-framework/... is the Docker Hub name docker.io/operator-framework/..., so the rule matches no image but those of a registry operator-framework:PORT (containers/image's port rule); write the source with its registry host: quay.io/operator-framework, as the mirrors' paths suggest"),
        format!("warning: {file}:3: ImageDigestMirrorSet/operators: spec.imageDigestMirrors[1].source: the mirrors of \"openshift4/ose-cli\" are not used for the images meant, though the MCO renders the entry: \"openshift4\" is no registry host (no \".\" or \":\", not \"localhost\"): an image written openshift4/ose-cli/... is the Docker Hub name docker.io/openshift4/ose-cli/..., so the rule matches no image; write the source with its registry host (for example quay.io/openshift4/ose-cli, or docker.io/openshift4/ose-cli for Docker Hub)"),
        format!("warning: {file}:28: ImageTagMirrorSet/tags: spec.imageTagMirrors[0].source: the mirrors of \"ubi9\" are not used"),
    ];
    for (got, want) in warnings.iter().zip(&want) {
        assert!(got.starts_with(want.as_str()), "{want}\nnot in:\n{got}");
    }
    // An ImageContentSourcePolicy's entry too, next to its deprecation.
    let icsp = format!("{ISSUE_36}/icsp.yaml");
    let (code, warnings, _) = lint_warnings(&[&icsp]);
    assert_eq!(code, Some(0));
    assert!(
        warnings.iter().any(|w| w.starts_with(&format!("warning: {icsp}:3: ImageContentSourcePolicy/operators: spec.repositoryDigestMirrors[0].source: the mirrors of \"operator-framework\""))
            && w.ends_with("(for example quay.io/operator-framework, or docker.io/operator-framework for Docker Hub)")),
        "{warnings:?}"
    );
}

/// An Image whose `allowedRegistries` is `allowed`, in `dir`.
fn allowed_image(dir: &tempfile::TempDir, allowed: &[&str]) -> String {
    let items: String = allowed.iter().map(|a| format!("    - \"{a}\"\n")).collect();
    write(
        dir,
        "image.yaml",
        &format!("apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    allowedRegistries:\n{items}"),
    )
}

/// Issue 36: `allowedRegistries` without the release payload's registry is
/// a warning naming the ClusterVersion's payload, what its mirrors change
/// (nothing: policy.json judges the reference as written), and the other
/// registries the platform pulls from that the list leaves out.
#[test]
fn issue_36_allowed_registries_without_the_payload_registry() {
    let dir = tempfile::tempdir().unwrap();
    let cv = format!("{ISSUE_36}/clusterversion.yaml");
    let mirrors = format!("{ISSUE_36}/release-mirrors.yaml");
    // Only the mirror registry: the payload is pulled from it by digest,
    // but judged as quay.io's.
    let image = allowed_image(&dir, &["mirror.example.com:5000"]);
    let (code, warnings, summary) = lint_warnings(&[&image, &cv, &mirrors]);
    assert_eq!(
        (code, summary.as_str()),
        (Some(0), "0 error(s), 2 warning(s)"),
        "{warnings:?}"
    );
    assert_eq!(warnings[0], format!("warning: {image}:1: Image/cluster: spec.registrySources.allowedRegistries does not admit the release payload quay.io/openshift-release-dev/ocp-release (ClusterVersion status.desired.image): CRI-O fails every later pull of a payload image (a new node, an update, an image pruned from a node) with `Source image rejected: Running image docker://quay.io/openshift-release-dev/ocp-release@sha256:5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e is rejected by policy.`, as policy.json rejects every registry the list leaves out and the MCO adds nothing for the payload. Its pulls by digest go to its mirrors first (mirror.example.com:5000/ocp4/release, from ImageDigestMirrorSet/release), but policy.json judges the reference as written, quay.io/openshift-release-dev/ocp-release, not the mirror that serves it: allowing the mirror does not admit the payload; fix: add quay.io/openshift-release-dev to spec.registrySources.allowedRegistries (oc edit image.config.openshift.io cluster)"));
    assert_eq!(warnings[1], format!("warning: {image}:1: Image/cluster: spec.registrySources.allowedRegistries leaves out image-registry.openshift-image-registry.svc:5000 (the internal registry, port included: image streams and builds) and registry.redhat.io (Red Hat's operators and their catalogs), which the platform pulls from and the MCO does not add: policy.json rejects every image there, even one a mirror serves (policy.json judges the reference as written, not the mirror that serves it), and CRI-O fails each pull with `Source image rejected: Running image docker://HOST/REPOSITORY:TAG is rejected by policy.`; fix: add image-registry.openshift-image-registry.svc:5000 and registry.redhat.io to spec.registrySources.allowedRegistries (oc edit image.config.openshift.io cluster)"));
    // Without mirrors of the payload, nothing is said about them.
    let (_, warnings, _) = lint_warnings(&[&image, &cv]);
    assert!(
        warnings[0].ends_with("the MCO adds nothing for the payload; fix: add quay.io/openshift-release-dev to spec.registrySources.allowedRegistries (oc edit image.config.openshift.io cluster)"),
        "{warnings:?}"
    );
    // The release image's repository alone leaves out its component images.
    let image = allowed_image(
        &dir,
        &[
            "quay.io/openshift-release-dev/ocp-release",
            "registry.redhat.io",
            "*.svc",
        ],
    );
    let (_, warnings, _) = lint_warnings(&[&image, &cv]);
    assert_eq!(warnings, [format!("warning: {image}:1: Image/cluster: spec.registrySources.allowedRegistries admits the release image's repository quay.io/openshift-release-dev/ocp-release (ClusterVersion status.desired.image) but not its component images, quay.io/openshift-release-dev/ocp-v4.0-art-dev and the rest of quay.io/openshift-release-dev: CRI-O fails every later pull of one (a new node, an update, an image pruned from a node) with `Source image rejected: Running image docker://quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:... is rejected by policy.`, as policy.json rejects them; fix: add quay.io/openshift-release-dev to spec.registrySources.allowedRegistries (oc edit image.config.openshift.io cluster)")]);
}

/// Issue 36, what `allowedRegistries` warnings do not fire on: a list with
/// the payload's registry and the platform's; a namespace of a registry
/// (a choice the list makes); without a ClusterVersion, the release
/// repository as published is checked, and said to be assumed.
#[test]
fn issue_36_allowed_registries_that_admit_the_platform() {
    let dir = tempfile::tempdir().unwrap();
    let cv = format!("{ISSUE_36}/clusterversion.yaml");
    for allowed in [
        &[
            "quay.io",
            "registry.redhat.io",
            "image-registry.openshift-image-registry.svc:5000",
        ][..],
        &[
            "quay.io/openshift-release-dev",
            "registry.redhat.io/redhat",
            "*.openshift-image-registry.svc",
        ],
        &[
            "*.io",
            "image-registry.openshift-image-registry.svc:5000/team",
        ],
    ] {
        let image = allowed_image(&dir, allowed);
        let (code, warnings, summary) = lint_warnings(&[&image, &cv]);
        assert_eq!(
            (code, summary.as_str()),
            (Some(0), "0 error(s), 0 warning(s)"),
            "{allowed:?}: {warnings:?}"
        );
        let (_, warnings, _) = lint_warnings(&[&image]);
        assert!(warnings.is_empty(), "{allowed:?}: {warnings:?}");
    }
    // The internal registry without its port is not the registry pods pull from.
    let image = allowed_image(
        &dir,
        &[
            "quay.io",
            "registry.redhat.io",
            "image-registry.openshift-image-registry.svc",
        ],
    );
    let (_, warnings, _) = lint_warnings(&[&image, &cv]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("leaves out image-registry.openshift-image-registry.svc:5000 (the internal registry, port included: image streams and builds), which"), "{warnings:?}");
    assert!(!warnings[0].contains("mirror serves"), "{warnings:?}");
    // No ClusterVersion: the release repository as published.
    let image = allowed_image(
        &dir,
        &[
            "mirror.example.com:5000",
            "registry.redhat.io",
            "image-registry.openshift-image-registry.svc:5000",
        ],
    );
    let (_, warnings, _) = lint_warnings(&[&image]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("does not admit the release payload quay.io/openshift-release-dev/ocp-release (as published; no ClusterVersion in the input to read the cluster's own)"), "{warnings:?}");
    // Set with blockedRegistries, the MCO refuses the list: errors only.
    let text =
        std::fs::read_to_string(&image).unwrap() + "    blockedRegistries:\n    - docker.io\n";
    let image = write(&dir, "image.yaml", &text);
    let (code, warnings, summary) = lint_warnings(&[&image, &cv]);
    assert_eq!(
        (code, summary.as_str()),
        (Some(1), "2 error(s), 0 warning(s)"),
        "{warnings:?}"
    );
    // An empty list is no list: policy.json keeps accepting everything.
    let image = write(&dir, "image.yaml", "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    allowedRegistries: []\n");
    let (_, warnings, _) = lint_warnings(&[&image, &cv]);
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// Issue 36: a lint warning says what is wrong, why, then the fix a user
/// can apply: a mirror-less entry, a mirror listed twice, NeverContactSource
/// with no mirror but the source, and a narrower source shadowing a broader
/// one's mirrors.
#[test]
fn issue_36_lint_warnings_name_their_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        &dir,
        "sets.yaml",
        "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: apps
spec:
  imageDigestMirrors:
  - source: registry.example.com/apps
    mirrors:
    - mirror.corp.example.com:5000/apps
    - mirror.corp.example.com:5000/apps
  - source: registry.example.com/apps/web
    mirrors:
    - mirror.corp.example.com:5000/web
  - source: registry.example.com/empty
  - source: registry.example.com/self
    mirrors:
    - registry.example.com/self
    mirrorSourcePolicy: NeverContactSource
",
    );
    let (_, out, err) = lint(&file);
    let all = format!("{out}{err}");
    for want in [
        "\"registry.example.com/empty\" has no mirrors: the entry has no effect; fix: list its mirrors under `mirrors`, or delete the entry",
        "mirror \"mirror.corp.example.com:5000/apps\" is listed twice for \"registry.example.com/apps\": the second adds nothing; fix: remove it",
        "has no mirror other than the source: the MCO ignores it and the source stays reachable; fix: add a mirror other than the source to this entry, or drop its mirrorSourcePolicy",
        "never those of registry.example.com/apps; fix: if registry.example.com/apps's mirrors should serve them too, add those mirrors (with the path under registry.example.com/apps) to the entry for registry.example.com/apps/web",
    ] {
        assert!(all.contains(want), "{want}\n---\n{all}");
    }
}

/// Issue 36: a lint error or warning opens with the words the user meets
/// elsewhere (the API server's, the MCO's), then the cause, then the fix:
/// a field the API server refuses, the MCO's refusal of a mirror set, two
/// objects ordering one source's mirrors differently, and the blocked
/// registry the MCO drops to keep the payload reachable.
#[test]
fn issue_36_lint_errors_say_the_upstream_words_the_cause_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let sets = write(
        &dir,
        "sets.yaml",
        "apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    insecureRegistries:
    - https://registry.example.com
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: apps
spec:
  imageDigestMirrors:
  - source: registry.example.com/apps
    mirrors:
    - registry.example.com/apps
    - mirror.corp.example.com:5000/apps
    mirrorSourcePolicy: NeverContactSource
  - source: registry.example.com/db
    mirrors:
    - a.example.com/db
    - b.example.com/db
---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: db
spec:
  imageDigestMirrors:
  - source: registry.example.com/db
    mirrors:
    - b.example.com/db
    - a.example.com/db
",
    );
    let (code, out, _) = lint(&sets);
    assert_eq!(code, Some(1), "{out}");
    for want in [
        "ImageDigestMirrorSet/apps: cannot set mirrorSourcePolicy: NeverContactSource if the source \"registry.example.com/apps\" is one of the mirrors: the machine-config-controller logs it (`Error syncing image config openshift-config: ...`) and keeps the previous registries.conf and policy.json on every node; fix: remove \"registry.example.com/apps\" from the entry's mirrors, or drop its mirrorSourcePolicy\n",
        "(the API server refuses this object); fix: correct spec.registrySources.insecureRegistries[0] and apply it again\n",
        "warning: registry.example.com/db: ImageDigestMirrorSet/apps lists a.example.com/db before b.example.com/db, ImageDigestMirrorSet/db the other way round: the merged order is unspecified; fix: list the mirrors in one order in every object for registry.example.com/db, or keep them in one entry\n",
    ] {
        assert!(out.contains(want), "{want}\n---\n{out}");
    }
    let payload = write(
        &dir,
        "payload.yaml",
        "apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    blockedRegistries:
    - quay.io
---
apiVersion: config.openshift.io/v1
kind: ClusterVersion
metadata:
  name: version
spec:
  clusterID: 00000000-0000-0000-0000-000000000000
status:
  desired:
    version: 4.16.8
    image: quay.io/openshift-release-dev/ocp-release@sha256:5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e
",
    );
    let (code, out, _) = lint(&payload);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("error: error adding [\"quay.io\"] to blocked registries, cannot block the repository being used by the payload (the MCO logs this and renders without these entries); fix: remove them from spec.registrySources.blockedRegistries (oc edit image.config.openshift.io cluster), or block narrower repositories that leave the release payload's out\n"), "{out}");
}
