//! install-config.yaml as input (issue 36, item 8), through the built
//! binary: its mirrors read as the objects the installer writes from them
//! and traced to its lines, its `additionalTrustBundle` trusted by the
//! probe for every registry, its `pullSecret` used as the probe's
//! credentials and never printed.

use crate::support;

use base64::Engine;
use serde_json::Value;

use support::registry::{digest_of, manifest_body, Builder, FakeRegistry};

const DIR: &str = "tests/fixtures/install-config";
const ICS: &str = "tests/fixtures/install-config/image-content-sources.yaml";
const IDS: &str = "tests/fixtures/install-config/image-digest-sources.yaml";
const BAD: &str = "tests/fixtures/install-config/bad-mirror.yaml";
const RELEASE: &str = "quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
/// The fixtures' pull secret: its `auth`, and what it decodes to.
const SECRET_B64: &str = "cHVsbGVyOnMzY3IzdC1uM3Zlci1wcjFudGVk";
const SECRET: &str = "s3cr3t-n3ver-pr1nted";

fn run(args: &[&str]) -> std::process::Output {
    support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("DOCKER_CONFIG")
        .args(args)
        .output()
        .expect("run")
}

fn text(out: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_no_secret(out: &std::process::Output, what: &str) {
    let (stdout, stderr) = text(out);
    for (name, t) in [("stdout", &stdout), ("stderr", &stderr)] {
        assert!(
            !t.contains(SECRET_B64) && !t.contains(SECRET),
            "{what}: the pull secret is in {name}:\n{t}"
        );
    }
}

// `imageContentSources` (deprecated) is what the installer writes as the
// ImageContentSourcePolicy `image-policy` (openshift/installer
// pkg/asset/manifests/imagesourcepolicy.go): explain traces the mirror to
// its entry's line.
#[test]
fn issue_36_image_content_sources_explain_names_the_entry_line() {
    let out = run(&["explain", RELEASE, "-f", ICS, "-o", "json"]);
    let json = support::json_with_code(&out, 0);
    let c = &json["candidates"][0];
    let origin = format!("{ICS}:9: imageContentSources[0] (ImageContentSourcePolicy/image-policy)");
    assert_eq!(
        c["sources"][0]["reference"],
        RELEASE.replace(
            "quay.io/openshift-release-dev/ocp-release",
            "mirror.example.com:5000/ocp4/openshift4"
        )
    );
    assert_eq!(c["sources"][0]["role"], "mirror");
    assert_eq!(c["sources"][0]["origins"], serde_json::json!([origin]));
    assert_eq!(c["sources"][1]["role"], "source");
    assert_eq!(c["sources"][1]["blocked"], false);
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("imageContentSources is deprecated: the installer writes it as ImageContentSourcePolicy/image-policy"),
        "{stderr}"
    );

    let out = run(&["explain", RELEASE, "-f", ICS]);
    let (stdout, _) = text(&out);
    assert!(stdout.contains(&origin), "{stdout}");
}

// `imageDigestSources` is the ImageDigestMirrorSet `image-digest-mirror`,
// each entry's `sourcePolicy` its `mirrorSourcePolicy`
// (pkg/asset/manifests/imagedigestmirrorset.go): NeverContactSource
// blocks the source.
#[test]
fn issue_36_image_digest_sources_never_contact_source_blocks_the_source() {
    let out = run(&["explain", RELEASE, "-f", IDS, "-o", "json"]);
    let json = support::json_with_code(&out, 0);
    let c = &json["candidates"][0];
    assert_eq!(c["registry"]["blocked"], true, "{c:#}");
    assert_eq!(c["sources"][1]["role"], "source");
    assert_eq!(c["sources"][1]["blocked"], true);
    assert_eq!(
        c["sources"][0]["origins"][0],
        format!("{IDS}:9: imageDigestSources[0] (ImageDigestMirrorSet/image-digest-mirror)")
    );

    let out = run(&["list", "-f", IDS, "-o", "json"]);
    let json = support::json_with_code(&out, 0);
    let policies: Vec<&str> = json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["sourcePolicy"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(policies, ["NeverContactSource", "AllowContactingSource"]);

    // -v says which object the installer writes.
    let out = run(&["list", "-f", IDS, "-v"]);
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains(&format!(
            "{IDS}: imageDigestSources read as ImageDigestMirrorSet/image-digest-mirror, as the installer writes it"
        )),
        "{stderr}"
    );
}

#[test]
fn issue_36_render_writes_the_generated_machine_config() {
    let out = run(&[
        "render",
        "-f",
        IDS,
        "--file",
        "/etc/containers/registries.conf",
    ]);
    assert!(out.status.success(), "{}", text(&out).1);
    let (conf, stderr) = text(&out);
    // Day 0: the release creates Image/cluster empty at install, as rendered.
    assert!(!stderr.contains("Image/cluster"), "{stderr}");
    assert!(
        conf.contains("location = \"quay.io/openshift-release-dev/ocp-release\"\n  blocked = true\n\n  [[registry.mirror]]\n    location = \"mirror.example.com:5000/ocp4/openshift4\"\n    pull-from-mirror = \"digest-only\""),
        "{conf}"
    );

    let out = run(&["render", "-f", IDS, "-o", "json"]);
    let json = support::json_with_code(&out, 0);
    let mc = &json["machineConfig"];
    assert_eq!(mc["kind"], "MachineConfig");
    assert_eq!(mc["metadata"]["name"], "99-worker-generated-registries");
    let files = mc["spec"]["config"]["storage"]["files"]
        .as_array()
        .expect("files");
    let source = files
        .iter()
        .find(|f| f["path"] == "/etc/containers/registries.conf")
        .and_then(|f| f["contents"]["source"].as_str())
        .expect("registries.conf in the MachineConfig");
    let b64 = source.rsplit_once(',').expect("data URL").1;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    assert_eq!(String::from_utf8(decoded).expect("UTF-8"), conf);
}

// A mirror with a tag: the ImageDigestMirrorSet CRD refuses it (the
// installer's object would not be created) and so does the MCO; both are
// said of the install-config.yaml field and line.
#[test]
fn issue_36_lint_names_the_install_config_line_and_field() {
    let out = run(&["lint", "-f", BAD]);
    assert_eq!(out.status.code(), Some(1));
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains(&format!(
            "error: {BAD}:11: ImageDigestMirrorSet/image-digest-mirror: imageDigestSources[0].mirrors[1]: \"mirror.example.com:5000/ocp4/openshift4:4.18\" does not match the mirror pattern"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "error: {BAD}:9: ImageDigestMirrorSet/image-digest-mirror: imageDigestSources[0]: invalid format for mirror \"mirror.example.com:5000/ocp4/openshift4:4.18\""
        )),
        "{stdout}"
    );

    let out = run(&["lint", "-f", BAD, "-o", "json"]);
    let json = support::json_with_code(&out, 1);
    let first = &json["items"][0];
    assert_eq!(first["file"], format!("{BAD}:11"));
    assert_eq!(first["object"], "ImageDigestMirrorSet/image-digest-mirror");

    // The deprecated field is a lint warning of its own.
    let out = run(&["lint", "-f", ICS]);
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains(&format!("warning: {ICS}:1: ImageContentSourcePolicy/image-policy: imageContentSources is deprecated")),
        "{stdout}"
    );
}

#[test]
fn issue_36_both_mirror_fields_are_refused_as_the_installer_refuses_them() {
    let yaml = "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: both\nimageContentSources:\n- source: quay.io/a\n  mirrors: [m.io/a]\nimageDigestSources:\n- source: quay.io/b\n  mirrors: [m.io/b]\n";
    let out = support::bin()
        .args(["list", "-f", "-"])
        .write_stdin(yaml)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("<stdin>: document 1 (line 1): InstallConfig/both: imageContentSources: cannot set imageContentSources and imageDigestSources at the same time"),
        "{stderr}"
    );
}

// A folder holding install-config.yaml (it names no kind) is read too.
#[test]
fn issue_36_install_config_in_a_folder_is_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(IDS, dir.path().join("install-config.yaml")).expect("copy");
    std::fs::write(dir.path().join("notes.yaml"), "owner: team-a\n").expect("write");
    let out = support::bin()
        .args(["list", "-o", "name", "-f"])
        .arg(dir.path())
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", text(&out).1);
    assert_eq!(
        text(&out).0,
        "quay.io/openshift-release-dev/ocp-release\nquay.io/openshift-release-dev/ocp-v4.0-art-dev\n"
    );
}

#[test]
fn issue_36_unknown_documents_name_the_kinds_read() {
    let out = support::bin()
        .args(["explain", "quay.io/a/b:1", "-v", "-f", "-"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let (_, stderr) = text(&out);
    assert!(
        stderr.contains("skipped 1 object(s) of kind v1/ConfigMap\nthe kinds read: ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image, ClusterVersion, ClusterImagePolicy, ImagePolicy, MachineConfig, MachineConfigPool, Node and InstallConfig (install-config.yaml: apiVersion v1, no kind)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("error: no ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image, ClusterVersion, ClusterImagePolicy, ImagePolicy, MachineConfig, MachineConfigPool, Node or InstallConfig (install-config.yaml: apiVersion v1, no kind) in -"),
        "{stderr}"
    );

    // One shaped like an install-config.yaml, under another apiVersion.
    let out = support::bin()
        .args(["list", "-f", "-"])
        .write_stdin("apiVersion: v1beta4\nbaseDomain: example.com\n")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).1.contains("this looks like an install-config.yaml, with apiVersion \"v1beta4\"; the installer reads only apiVersion: v1"),
        "{}",
        text(&out).1
    );
}

#[test]
fn issue_36_the_pull_secret_is_never_printed() {
    for args in [
        vec!["explain", RELEASE, "-f", IDS, "-v"],
        vec!["explain", RELEASE, "-f", ICS, "-o", "json", "-v"],
        vec!["explain", RELEASE, "-f", IDS, "-o", "yaml"],
        vec!["list", "-f", IDS, "-o", "wide", "-v"],
        vec!["list", "-f", IDS, "-o", "json"],
        vec!["lint", "-f", BAD, "-v"],
        vec!["lint", "-f", BAD, "-o", "json"],
        vec!["render", "-f", IDS, "-v"],
        vec!["render", "-f", IDS, "-o", "json"],
        vec!["render", "-f", IDS, "-o", "machineconfig"],
        vec!["audit", "-f", DIR, "-v"],
        vec!["migrate-icsp", "-f", ICS],
    ] {
        let out = run(&args);
        assert_no_secret(&out, &args.join(" "));
    }
    // A broken one is refused without being quoted.
    let yaml = std::fs::read_to_string(IDS)
        .expect("fixture")
        .replace("{\"auths\":", "{\"auths\": [")
        .replace("\"}}}'", "\"}}]}'");
    let out = support::bin()
        .args(["explain", RELEASE, "--probe", "-f", "-"])
        .write_stdin(yaml)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out).1);
    assert!(
        text(&out)
            .1
            .contains("<stdin>:7: pullSecret: not a JSON auth file"),
        "{}",
        text(&out).1
    );
    assert_no_secret(&out, "a pull secret that is not an auth file");
}

/// An install-config.yaml mirroring `source.invalid/ns` to `mirror`'s
/// `ns`, never contacting the source, with `mirror`'s credentials and,
/// when `trust`, its CA as the additionalTrustBundle.
fn probed_install_config(mirror: &FakeRegistry, trust: bool) -> String {
    let auth = base64::engine::general_purpose::STANDARD.encode("puller:pw");
    let mut yaml = format!(
        "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: probe\nplatform:\n  none: {{}}\npullSecret: '{{\"auths\":{{\"{host}\":{{\"auth\":\"{auth}\"}}}}}}'\nimageDigestSources:\n- source: source.invalid/ns\n  mirrors:\n  - {host}/ns\n  sourcePolicy: NeverContactSource\n",
        host = mirror.host()
    );
    if trust {
        yaml.push_str("additionalTrustBundle: |\n");
        for line in mirror.ca_pem.lines() {
            yaml.push_str(&format!("  {line}\n"));
        }
    }
    yaml
}

// The additionalTrustBundle lands in every node's trust store (the
// installer's openshift-config/user-ca-bundle, which the MCO writes to
// each node): the probe trusts it for every registry, with no --cert-dir.
// The pullSecret is the nodes' credentials: the probe uses it, unless
// --authfile is given.
#[test]
fn issue_36_probe_trusts_the_additional_trust_bundle_and_uses_the_pull_secret() {
    let body = manifest_body("release");
    let digest = digest_of(&body);
    let m = Builder::new()
        .basic("puller", "pw")
        .manifest("ns/app", None, &body)
        .start();
    let dir = tempfile::tempdir().expect("tempdir");
    let image = format!("source.invalid/ns/app@{digest}");
    let probe = |trust: bool, extra: &[&str]| {
        let file = dir.path().join("install-config.yaml");
        std::fs::write(&file, probed_install_config(&m, trust)).expect("write");
        let out = support::bin()
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DOCKER_CONFIG")
            .args([
                "explain",
                &image,
                "--probe",
                "--probe-timeout",
                "5",
                "-o",
                "json",
                "-v",
                "-f",
            ])
            .arg(&file)
            .args(extra)
            .output()
            .expect("run");
        let (stdout, stderr) = text(&out);
        let json: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
        let mirror = json["candidates"][0]["sources"][0]["probe"].clone();
        (out, mirror, stderr)
    };

    let (out, mirror, stderr) = probe(true, &[]);
    assert_eq!(mirror["outcome"], "served", "{mirror:#}\n{stderr}");
    assert!(
        mirror["detail"]
            .as_str()
            .is_some_and(|d| d.contains("install-config.yaml:7: pullSecret")),
        "{mirror:#}"
    );
    assert!(
        stderr.contains("install-config.yaml:7: pullSecret, the global pull secret of the cluster to be installed"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_no_secret(&out, "--probe");

    let (_, mirror, stderr) = probe(false, &[]);
    assert_eq!(mirror["outcome"], "tlsError", "{mirror:#}\n{stderr}");

    let empty = dir.path().join("auth.json");
    std::fs::write(&empty, "{\"auths\": {}}").expect("write");
    let (_, mirror, stderr) = probe(true, &["--authfile", empty.to_str().expect("UTF-8")]);
    assert_eq!(mirror["outcome"], "unauthorized", "{mirror:#}\n{stderr}");
}

// The docs page's install-config.yaml example.
#[test]
fn issue_36_docs_install_config_is_the_example() {
    let page = std::fs::read_to_string("docs/install-config.md").expect("docs/install-config.md");
    let example = std::fs::read_to_string("examples/install-config/install-config.yaml")
        .expect("the example");
    let shown: String = example
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take_while(|l| !l.starts_with("additionalTrustBundle:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        page.contains(&shown),
        "docs/install-config.md does not show:\n{shown}"
    );
}
