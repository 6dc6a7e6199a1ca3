//! `upgrade-check` through the built binary: a generated release payload
//! (an image whose last layer is a gzip tar holding
//! `release-manifests/image-references` and `release-metadata`) and its
//! component images on a loopback mirror, with the cluster's objects from
//! files (`-f`) or from the fake API server.

use crate::support;

use std::path::PathBuf;

use serde_json::Value;
use tempfile::TempDir;

use support::apiserver::Builder as ApiBuilder;
use support::layers::tar_gz;
use support::openpgp::Key;
use support::registry::{digest_of, manifest_body, Builder, FakeRegistry, Signer};

const RELEASE_REPO: &str = "openshift/release-images";
const COMPONENT_REPO: &str = "openshift/release";
const SOURCE_RELEASE: &str = "quay.io/openshift-release-dev/ocp-release";
const SOURCE_COMPONENTS: &str = "quay.io/openshift-release-dev/ocp-v4.0-art-dev";
const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";

/// The generated release: the payload's manifest digest and the components' digests.
struct Release {
    payload: String,
    components: Vec<(String, String)>,
}

/// Component `names`, each a small image; the payload (by digest) whose last
/// layer names them by their source pull specs.
fn release(b: &mut Builder, names: &[&str], version: &str) -> (Release, String) {
    release_with(b, names, version, &[])
}

/// [`release`] whose last layer also holds `extra` files.
fn release_with(
    b: &mut Builder,
    names: &[&str],
    version: &str,
    extra: &[(&str, &str)],
) -> (Release, String) {
    release_layered(b, names, version, extra, |layer| layer)
}

/// [`release_with`] whose last layer is `last` made of the gzip tar.
fn release_layered(
    b: &mut Builder,
    names: &[&str],
    version: &str,
    extra: &[(&str, &str)],
    last: impl Fn(Vec<u8>) -> Vec<u8>,
) -> (Release, String) {
    let config = format!(r#"{{"config":{{"Labels":{{"io.openshift.release":"{version}"}}}}}}"#);
    release_configured(b, names, version, extra, last, &config)
}

/// [`release_layered`] with the image configuration `config`.
fn release_configured(
    b: &mut Builder,
    names: &[&str],
    version: &str,
    extra: &[(&str, &str)],
    last: impl Fn(Vec<u8>) -> Vec<u8>,
    config: &str,
) -> (Release, String) {
    let components: Vec<(String, String)> = names
        .iter()
        .map(|n| (n.to_string(), digest_of(&manifest_body(n))))
        .collect();
    let tags: Vec<String> = components
        .iter()
        .map(|(n, d)| {
            format!(r#"{{"name":"{n}","from":{{"kind":"DockerImage","name":"{SOURCE_COMPONENTS}@{d}"}}}}"#)
        })
        .collect();
    let refs = format!(
        r#"{{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","metadata":{{"name":"{version}"}},"spec":{{"tags":[{}]}}}}"#,
        tags.join(",")
    );
    let metadata = format!(r#"{{"kind":"cincinnati-metadata-v0","version":"{version}"}}"#);
    let first = tar_gz(&[("usr/bin/cluster-version-operator", "binary")]);
    let mut files = vec![
        ("release-manifests/0000_00_cvo.yaml", "kind: Namespace"),
        ("release-manifests/image-references", refs.as_str()),
        ("release-manifests/release-metadata", metadata.as_str()),
    ];
    files.extend_from_slice(extra);
    let last = last(tar_gz(&files));
    let config_digest = b.blob(RELEASE_REPO, config.as_bytes());
    let first_digest = b.blob(RELEASE_REPO, &first);
    let last_digest = b.blob(RELEASE_REPO, &last);
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{first_digest}","size":{}}},{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{last_digest}","size":{}}}]}}"#,
        config.len(),
        first.len(),
        last.len()
    );
    let payload = digest_of(&manifest);
    (
        Release {
            payload,
            components,
        },
        manifest,
    )
}

/// A mirror holding the payload and every component but those in `missing`.
fn mirror(names: &[&str], missing: &[&str]) -> (FakeRegistry, Release) {
    let mut b = Builder::new();
    let (release, manifest) = release(&mut b, names, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest);
    for (n, _) in &release.components {
        if !missing.contains(&n.as_str()) {
            b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
        }
    }
    (b.start(), release)
}

/// An IDMS sending both source repositories to the mirror, the sources
/// never contacted (`mirrorSourcePolicy: NeverContactSource`, which an
/// administrator adds: oc-mirror v2 writes none, see [`idms_oc_mirror`]).
fn idms(host: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-release-0}}\nspec:\n  imageDigestMirrors:\n  - source: {SOURCE_RELEASE}\n    mirrors: [{host}/{RELEASE_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n  - source: {SOURCE_COMPONENTS}\n    mirrors: [{host}/{COMPONENT_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n"
    )
}

/// The ImageDigestMirrorSet oc-mirror v2 writes to `cluster-resources/`:
/// each source with its mirrors and nothing else (no `mirrorSourcePolicy`:
/// oc-mirror's `internal/pkg/clusterresources` `generateIDMS`), so CRI-O
/// falls back to the source.
fn idms_oc_mirror(host: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: idms-release-0\n  annotations: {{createdBy: oc-mirror v2}}\nspec:\n  imageDigestMirrors:\n  - source: {SOURCE_RELEASE}\n    mirrors: [{host}/{RELEASE_REPO}]\n  - source: {SOURCE_COMPONENTS}\n    mirrors: [{host}/{COMPONENT_REPO}]\n"
    )
}

/// `cmd` run where no registry but the loopback ones is reachable (quay.io
/// included): every other request goes through a proxy that is not there.
fn disconnected(cmd: &mut assert_cmd::Command) -> &mut assert_cmd::Command {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let proxy = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    for (k, v) in [
        ("HTTPS_PROXY", proxy.as_str()),
        ("https_proxy", proxy.as_str()),
        ("HTTP_PROXY", proxy.as_str()),
        ("http_proxy", proxy.as_str()),
        ("NO_PROXY", "127.0.0.1"),
        ("no_proxy", "127.0.0.1"),
    ] {
        cmd.env(k, v);
    }
    cmd.env_remove("ALL_PROXY").env_remove("all_proxy")
}

fn cluster_version(offers: &str) -> String {
    format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {{name: version}}\nstatus:\n  desired: {{version: 4.20.8, image: '{SOURCE_RELEASE}@sha256:{}'}}\n{offers}",
        "0".repeat(64)
    )
}

struct Setup {
    dir: TempDir,
    certs: PathBuf,
}

impl Setup {
    fn new(r: &FakeRegistry) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).expect("certs");
        r.write_ca(&certs, "mirror");
        Setup { dir, certs }
    }

    fn objects(&self, text: &str) -> PathBuf {
        let p = self.dir.path().join("cluster.yaml");
        std::fs::write(&p, text).expect("write");
        p
    }

    fn cmd(&self) -> assert_cmd::Command {
        assert_cmd::Command::from_std(self.std_cmd())
    }

    fn std_cmd(&self) -> std::process::Command {
        let mut c = support::std_bin();
        c.env("HOME", self.dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("DOCKER_CONFIG")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "200")
            .arg("upgrade-check")
            .arg("--cert-dir")
            .arg(&self.certs);
        c
    }
}

fn run(cmd: &mut assert_cmd::Command) -> (i32, String, String) {
    let out = cmd.output().expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json_of(stdout: &str, stderr: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"))
}

fn image<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["images"]
        .as_array()
        .expect("images")
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("no image {name} in {json}"))
}

const NAMES: &[&str] = &["cli", "etcd", "machine-config-operator"];

fn payload_spec(r: &Release) -> String {
    format!("{SOURCE_RELEASE}@{}", r.payload)
}

#[test]
fn every_component_served_by_the_mirror_is_ready() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    let json = json_of(&out, &err);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json["ready"], true);
    assert_eq!(json["target"]["version"], "4.21.0");
    assert_eq!(json["target"]["digest"], rel.payload.as_str());
    assert_eq!(
        json["target"]["servedBy"],
        format!("{}/{RELEASE_REPO}@{}", reg.host(), rel.payload)
    );
    assert_eq!(json["summary"]["images"], 3);
    for (name, digest) in &rel.components {
        let i = image(&json, name);
        assert_eq!(i["outcome"], "served", "{name}");
        assert_eq!(i["reference"], format!("{SOURCE_COMPONENTS}@{digest}"));
        assert_eq!(
            i["servedBy"],
            format!("{}/{COMPONENT_REPO}@{digest}", reg.host())
        );
        assert_eq!(i["pullSources"][1]["outcome"], "notTried", "{name}");
    }
    // Only the last layer is fetched, never the first or the config.
    let blobs: Vec<String> = reg
        .log()
        .iter()
        .filter(|l| l.path.contains("/blobs/"))
        .map(|l| l.path.clone())
        .collect();
    assert_eq!(blobs.len(), 1, "{blobs:?}");
}

#[test]
fn a_component_missing_on_the_mirror_is_not_ready_with_the_copy_line() {
    let (reg, rel) = mirror(NAMES, &["etcd"]);
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["ready"], false);
    assert_eq!(json["summary"]["missing"], 1);
    assert_eq!(json["summary"]["served"], 2);
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["outcome"], "missing");
    assert!(etcd["servedBy"].is_null());
    let digest = &rel.components[1].1;
    // The error CRI-O returns for that pull (issue 36): the mirror's error,
    // then the source's, which NeverContactSource makes a blocked endpoint
    // (containers/image still tries it, and refuses it last).
    let (mirror, source) = (
        format!("{}/{COMPONENT_REPO}@{digest}", reg.host()),
        format!("{SOURCE_COMPONENTS}@{digest}"),
    );
    let crio = format!(
        "; CRI-O's error: initializing source docker://{source}: (Mirrors also failed: \
         [{mirror}: reading manifest {digest} in {}/{COMPONENT_REPO}: manifest unknown]): \
         {source}: registry {SOURCE_COMPONENTS} is blocked in /etc/containers/registries.conf \
         or /etc/containers/registries.conf.d",
        reg.host()
    );
    assert!(
        etcd["detail"].as_str().is_some_and(|d| d.ends_with(&crio)),
        "{etcd:#}"
    );
    let step = &json["nextSteps"][0];
    assert_eq!(step["outcome"], "missing");
    assert_eq!(
        step["commands"][0],
        format!(
            "skopeo copy --all --preserve-digests docker://{SOURCE_COMPONENTS}@{digest} docker://{}/{COMPONENT_REPO}@{digest}",
            reg.host()
        )
    );
    // The table shows only the failing image, then the next step.
    let (code, out, _) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 1);
    assert!(out.contains("Verdict:   NOT READY"), "{out}");
    assert!(out.contains("missing  etcd"), "{out}");
    assert!(!out.contains("served   cli"), "{out}");
    assert!(out.contains("Next steps:\n  missing: "), "{out}");
    let (_, wide, _) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "wide"]));
    assert!(wide.contains("served   cli"), "{wide}");
}

#[test]
fn to_version_resolves_through_cluster_version_and_names_risks() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let offers = format!(
        "  availableUpdates: [{{version: 4.20.9, image: '{SOURCE_RELEASE}@sha256:{}'}}]\n  conditionalUpdates:\n  - release: {{version: 4.21.0, image: '{}'}}\n    risks: [{{name: SigstoreMirrors, message: mirrors need the signatures, url: 'https://example.com/r'}}]\n    conditions: [{{type: Recommended, status: 'False', reason: SigstoreMirrors, message: mirrors need the signatures}}]\n",
        "1".repeat(64),
        payload_spec(&rel)
    );
    let files = s.objects(&(idms(&reg.host()) + &cluster_version(&offers)));
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["image"], payload_spec(&rel));
    assert_eq!(json["target"]["listedIn"], "conditionalUpdates");
    assert_eq!(json["target"]["risks"][0]["name"], "SigstoreMirrors");
    // Issue 37: Recommended=False: oc adm upgrade --to refuses it without
    // --allow-not-recommended, in its words, and the verdict says so.
    assert_eq!(
        json["target"]["ocRefusal"],
        "the update 4.21.0 is not one of the recommended updates, but is available as a conditional update. To accept the Recommended=False risk and to proceed with update use --allow-not-recommended."
    );
    let step = json["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["outcome"] == "notRecommended")
        .unwrap_or_else(|| panic!("{}", json["nextSteps"]));
    assert_eq!(
        step["commands"][0],
        "oc adm upgrade --to 4.21.0 --allow-not-recommended"
    );
    let (code, text, _) = run(s.cmd().arg("-f").arg(&files).args(["--to", "4.21.0"]));
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("Verdict:   ready: every image is served through the cluster's pull sources; and not recommended: `oc adm upgrade --to 4.21.0` refuses it without --allow-not-recommended\n"),
        "{text}"
    );
    assert!(
        text.contains("  notRecommended: `oc adm upgrade --to 4.21.0` refuses it"),
        "{text}"
    );
    // Recommended=True (a conditional update whose risks do not apply): no refusal.
    let recommended = files.with_file_name("recommended.yaml");
    std::fs::write(
        &recommended,
        std::fs::read_to_string(&files)
            .unwrap()
            .replace("status: 'False'", "status: 'True'"),
    )
    .unwrap();
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&recommended)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(json_of(&out, &err)["target"].get("ocRefusal").is_none());
    let (code, _, err) = run(s.cmd().arg("-f").arg(&files).args(["--to", "4.22.0"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("version 4.22.0 is not among the updates ClusterVersion/version offers (offered: 4.20.9, 4.21.0 (conditional))"),
        "{err}"
    );
    assert!(
        err.contains("hint: ") && err.contains("--to-image"),
        "{err}"
    );
}

#[test]
fn to_version_resolves_live_through_the_api_server() {
    let (reg, rel) = mirror(NAMES, &["cli"]);
    let s = Setup::new(&reg);
    let offers = format!(
        "  availableUpdates: [{{version: 4.21.0, image: '{}'}}]\n",
        payload_spec(&rel)
    );
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&(idms(&reg.host()) + &cluster_version(&offers)))
        .start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let (code, out, err) = run(s
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["listedIn"], "availableUpdates");
    assert_eq!(image(&json, "cli")["outcome"], "missing");
    assert_eq!(image(&json, "etcd")["outcome"], "served");
}

#[test]
fn an_unreachable_mirror_is_undetermined() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let host = closed.local_addr().expect("addr").to_string();
    drop(closed);
    let files = s.objects(&idms(&host));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 3, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "undetermined");
    assert_eq!(json["readiness"], "undetermined");
    assert_eq!(json["ready"], false);
}

#[test]
fn a_payload_missing_everywhere_is_not_ready() {
    let (reg, _) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let absent = format!("{SOURCE_RELEASE}@sha256:{}", "2".repeat(64));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &absent, "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "missing");
    assert_eq!(json["images"].as_array().map(Vec::len), Some(0));
}

#[test]
fn unauthorized_components_fail_and_say_so() {
    let mut b = Builder::new().basic("user", "secret");
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "unauthorized");
    // With credentials (--authfile), the same release is ready.
    let auth = s.dir.path().join("auth.json");
    use base64::Engine;
    let token = base64::engine::general_purpose::STANDARD.encode("user:secret");
    std::fs::write(
        &auth,
        format!(
            "{{\"auths\":{{\"{}\":{{\"auth\":\"{token}\"}}}}}}",
            reg.host()
        ),
    )
    .expect("auth");
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .arg("--authfile")
        .arg(&auth)
        .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
}

/// A multi-architecture index over the payload: the architecture comes
/// from --arch or the control-plane Nodes; unknown, it is refused.
#[test]
fn a_multi_arch_index_picks_the_control_plane_architecture() {
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let index = format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_INDEX}","manifests":[{{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"{}","size":{},"platform":{{"architecture":"arm64","os":"linux"}}}}]}}"#,
        rel.payload,
        manifest.len()
    );
    let mut b = b.manifest(RELEASE_REPO, None, &manifest).manifest_typed(
        RELEASE_REPO,
        None,
        &index,
        OCI_INDEX,
    );
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let spec = format!("{SOURCE_RELEASE}@{}", digest_of(&index));
    let files = s.objects(&idms(&reg.host()));
    let (code, _, err) = run(s.cmd().arg("-f").arg(&files).args(["--to-image", &spec]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("multi-architecture index"), "{err}");
    assert!(err.contains("--arch"), "{err}");
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &spec, "--arch", "amd64"]));
    // Issue 37: the payload has no image for the architecture: CRI-O on
    // the control plane would fail the pull, so the update is not ready.
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains("Payload:   missingArchitecture (served by "),
        "{out}"
    );
    assert!(
        out.contains("multi-architecture index without linux/amd64 (it has linux/arm64)"),
        "{out}"
    );
    let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: master-0\n  labels: {node-role.kubernetes.io/master: '', kubernetes.io/arch: arm64}\n";
    let files = s.objects(&(idms(&reg.host()) + node));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &spec, "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["architecture"], "arm64");
    assert_eq!(json["target"]["digest"], digest_of(&index));
}

/// Issue 37: a single-architecture amd64 payload checked for arm64
/// (`--arch`, or the control-plane Nodes' label) is not ready: CRI-O pulls
/// it, and the control plane cannot run it.
#[test]
fn issue_37_a_single_arch_payload_of_another_architecture_is_not_ready() {
    let mut b = Builder::new();
    let config = r#"{"architecture":"amd64","os":"linux","config":{"Labels":{"io.openshift.release":"4.21.0"}}}"#;
    let (rel, manifest) = release_configured(&mut b, NAMES, "4.21.0", &[], |l| l, config);
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let spec = payload_spec(&rel);
    let check = |arch: &str| {
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &spec, "--arch", arch, "-o", "json"]))
    };
    let (code, out, err) = check("amd64");
    assert_eq!(code, 0, "{out}\n{err}");
    let (code, out, err) = check("arm64");
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "missingArchitecture", "{json}");
    let detail = json["target"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("single-architecture linux/amd64 image and has no image for linux/arm64"),
        "{detail}"
    );
    assert_eq!(json["nextSteps"][0]["outcome"], "missingArchitecture");
    assert_eq!(json["ready"], false);
    // The control-plane Nodes' architecture decides without --arch.
    let node = "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: master-0\n  labels: {node-role.kubernetes.io/master: '', kubernetes.io/arch: arm64}\n";
    let files = s.objects(&(idms(&reg.host()) + node));
    let (code, out, err) = run(s.cmd().arg("-f").arg(&files).args(["--to-image", &spec]));
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(
        out.contains(
            "Verdict:   NOT READY: the payload has no image for the control plane's architecture"
        ),
        "{out}"
    );
    assert!(out.contains("--to-multi-arch"), "{out}");
}

#[test]
fn bad_input_is_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = dir.path().join("c.yaml");
    std::fs::write(&files, idms("127.0.0.1:1")).expect("write");
    let out = support::bin()
        .args(["upgrade-check", "--to-image", "Not A Reference", "-f"])
        .arg(&files)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = support::bin()
        .args(["upgrade-check", "-f"])
        .arg(&files)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "--to or --to-image is required");
}

/// The ClusterImagePolicy `keyless`: the components' signatures trusted
/// through a Fulcio CA with Rekor (`rekor_key`), which the tool checks for
/// presence only.
fn keyless_cip(rekor_key: &str) -> String {
    let ca = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
    format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: keyless\nspec:\n  scopes:\n  - {SOURCE_COMPONENTS}\n  policy:\n    rootOfTrust:\n      policyType: FulcioCAWithRekor\n      fulcioCAWithRekor:\n        fulcioCAData: {ca}\n        rekorKeyData: {}\n        fulcioSubject:\n          oidcIssuer: https://oidc.example.com\n          signedEmail: release@example.com\n",
        rekor_key
    )
}

/// A mirror holding the payload and every component, component `i`
/// signed by `signers[i]` when there is one.
fn signed_mirror(signers: &[Option<&Signer>]) -> (FakeRegistry, Release) {
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    for (i, signer) in signers.iter().enumerate() {
        if let Some(signer) = signer {
            let digest = &rel.components[i].1;
            let identity = format!("{SOURCE_COMPONENTS}@{digest}");
            b = b.signed(signer, COMPONENT_REPO, digest, &identity);
        }
    }
    (b.start(), rel)
}

/// A ClusterImagePolicy `name` requiring signatures by `key_data` for `scopes`.
fn cip(name: &str, scopes: &[&str], key_data: &str, annotations: &str) -> String {
    let scopes: String = scopes.iter().map(|s| format!("  - {s}\n")).collect();
    format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: {name}\n  annotations: {{{annotations}}}\nspec:\n  scopes:\n{scopes}  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: {key_data}\n"
    )
}

/// A payload served without the signature the cluster already requires
/// (4.21 -> 4.21.z) is unsigned, and its components are still checked: the
/// missing one is named in the same run.
#[test]
fn unsigned_payload_does_not_hide_the_components() {
    let key = Signer::new();
    let (reg, rel) = mirror(NAMES, &["etcd"]);
    let s = Setup::new(&reg);
    let policy = cip("release-signed", &[SOURCE_RELEASE], &key.key_data, "");
    let files = s.objects(&(idms(&reg.host()) + &policy));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "unsigned", "{json}");
    assert_eq!(image(&json, "etcd")["outcome"], "missing", "{json}");
    assert_eq!(image(&json, "cli")["outcome"], "served", "{json}");
}

/// A `.sig` lookup answered with an error other than "not found" is not an
/// unsigned image: containers/image fails the pull on it, and whether the
/// node gets another answer cannot be told here (undetermined, exit 3).
#[test]
fn signature_lookup_errors_are_undetermined_not_unsigned() {
    let good = Signer::new();
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.signature_status(500).start();
    let s = Setup::new(&reg);
    let policy = cip("art-signed", &[SOURCE_COMPONENTS], &good.key_data, "");
    let files = s.objects(&(idms(&reg.host()) + &policy));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 3, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["summary"]["unsigned"], 0, "{json}");
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["outcome"], "undetermined", "{etcd}");
    assert!(
        etcd["detail"]
            .as_str()
            .unwrap()
            .contains("could not be looked up"),
        "{etcd}"
    );
}

/// A ClusterImagePolicy requiring sigstore signatures for the components:
/// one signed by the policy's key is served (verified), one without a
/// `sha256-<hex>.sig` tag on the mirror is unsigned, one signed by another
/// key is badSignature; the next steps copy their `.sig` tags.
#[test]
fn components_are_checked_against_the_policy_key() {
    let (good, other) = (Signer::new(), Signer::new());
    let (reg, rel) = signed_mirror(&[Some(&good), None, Some(&other)]);
    let d = |i: usize| rel.components[i].1.clone();
    let s = Setup::new(&reg);
    let policy = cip("art-signed", &[SOURCE_COMPONENTS], &good.key_data, "");
    let files = s.objects(&(idms(&reg.host()) + &policy));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(
        json["target"]["outcome"], "served",
        "the payload is out of scope"
    );
    let cli = image(&json, "cli");
    assert_eq!(cli["outcome"], "served", "{cli}");
    assert_eq!(cli["signature"]["verification"], "verified", "{cli}");
    assert_eq!(
        cli["signature"]["requiredBy"][0],
        "ClusterImagePolicy/art-signed"
    );
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["outcome"], "unsigned");
    assert_eq!(etcd["signature"]["verification"], "missing");
    let mco = image(&json, "machine-config-operator");
    assert_eq!(mco["outcome"], "badSignature", "{mco}");
    assert!(
        mco["detail"]
            .as_str()
            .unwrap()
            .contains("cryptographic signature verification failed"),
        "{mco}"
    );
    assert_eq!(json["summary"]["unsigned"], 2);
    let sig = &json["signatures"]["sigstore"];
    assert_eq!(
        (sig["required"].as_u64(), sig["verified"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(
        (sig["missing"].as_u64(), sig["rejected"].as_u64()),
        (Some(1), Some(1))
    );
    let tag = format!("{}.sig", d(1).replacen(':', "-", 1));
    let step = &json["nextSteps"][0];
    assert_eq!(step["outcome"], "unsigned");
    assert_eq!(
        step["commands"][0],
        format!(
            "skopeo copy --all docker://{SOURCE_COMPONENTS}:{tag} docker://{}/{COMPONENT_REPO}:{tag}",
            reg.host()
        )
    );
    assert_eq!(json["nextSteps"][1]["outcome"], "badSignature");
}

/// The `openshift` ClusterImagePolicy the target release brings in its
/// `release-manifests/` (not yet in the cluster) is applied to the check:
/// the payload's own signature is verified with the key it names, the
/// components in its scopes need theirs.
#[test]
fn the_policy_the_release_brings_is_checked() {
    let key = Signer::new();
    let policy = cip(
        "openshift",
        &[SOURCE_RELEASE, SOURCE_COMPONENTS],
        &key.key_data,
        "include.release.openshift.io/self-managed-high-availability: 'true'",
    );
    let dev_only = cip(
        "preview",
        &["quay.io/other"],
        &key.key_data,
        "include.release.openshift.io/self-managed-high-availability: 'true', release.openshift.io/feature-set: DevPreviewNoUpgrade",
    );
    let manifest_file = policy.clone() + &dev_only;
    let mut b = Builder::new();
    let (rel, manifest) = release_with(
        &mut b,
        NAMES,
        "4.21.0",
        &[(
            "release-manifests/0000_90_openshift-cluster-image-policy.yaml",
            &manifest_file,
        )],
    );
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let identity = format!("{SOURCE_RELEASE}:4.21.0-x86_64");
    let b = b.signed(&key, RELEASE_REPO, &rel.payload, &identity);
    let signed = |i: usize| format!("{SOURCE_COMPONENTS}@{}", rel.components[i].1);
    let b = b.signed(&key, COMPONENT_REPO, &rel.components[0].1, &signed(0));
    let reg = b
        .signed(&key, COMPONENT_REPO, &rel.components[2].1, &signed(2))
        .start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "served", "{}", json["target"]);
    assert_eq!(json["target"]["signature"]["verification"], "verified");
    let policies = &json["signatures"]["sigstore"]["releasePolicies"];
    assert_eq!(policies[0]["name"], "openshift");
    assert_eq!(policies[0]["applied"], true);
    assert_eq!(policies[1]["applied"], false, "{policies}");
    assert_eq!(image(&json, "etcd")["outcome"], "unsigned");
    assert_eq!(json["summary"]["unsigned"], 1);
    let (_, text, _) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert!(
        text.contains("Sigstore:  4 image(s) need a signature: verified 3, present (not verified) 0, missing 1, rejected 0, undetermined 0"),
        "{text}"
    );
}

/// A FulcioCAWithRekor policy is not verified here: the signature's
/// presence is reported, and says so.
#[test]
fn keyless_policies_are_checked_for_presence_only() {
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b
            .manifest(COMPONENT_REPO, None, &manifest_body(n))
            .signature(COMPONENT_REPO, &digest_of(&manifest_body(n)));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let policy = keyless_cip(&Signer::new().key_data);
    let files = s.objects(&(idms(&reg.host()) + &policy));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let cli = image(&json, "cli");
    assert_eq!(cli["signature"]["verification"], "presenceOnly", "{cli}");
    assert!(
        cli["signature"]["detail"]
            .as_str()
            .unwrap()
            .contains("Fulcio"),
        "{cli}"
    );
    assert_eq!(json["signatures"]["sigstore"]["presenceOnly"], 3);
}

/// The key the tests' releases are signed with, and the cluster trusts.
fn signer() -> Key {
    Key::new(37)
}

/// The ConfigMaps of `openshift-config-managed` as a must-gather lists
/// them: the signature ConfigMap of `digest` (when given, signed by
/// [`signer`]), the verification ConfigMap with its stores and the
/// signer's key, and `admin-gates`.
fn managed_config_maps(signed: Option<&str>) -> String {
    let signer = signer();
    let signature = signed.map(|d| (d, signer.sign_release(d)));
    signed_config_maps(signature.as_ref().map(|(d, b)| (*d, b.as_slice())), &signer)
}

/// [`managed_config_maps`] with the signature value `bytes` under the key
/// of `digest`, and `verifier`'s public key as `verifier-public-key-redhat`.
fn signed_config_maps(signature: Option<(&str, &[u8])>, verifier: &Key) -> String {
    let signature = signature.map_or(String::new(), |(digest, bytes)| {
        let key = digest.replace(':', "-");
        let value = support::openpgp::base64(bytes);
        format!("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {key}\n    namespace: openshift-config-managed\n    labels: {{release.openshift.io/verification-signatures: ''}}\n  binaryData:\n    {key}-1: '{value}'\n")
    });
    let public: String = verifier
        .armored_public()
        .lines()
        .map(|l| format!("      {l}\n"))
        .collect();
    format!(
        "apiVersion: v1\nkind: ConfigMapList\nitems:\n{signature}- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: release-verification\n    namespace: openshift-config-managed\n    annotations: {{release.openshift.io/verification-config-map: ''}}\n  data:\n    store-openshift-official-release: https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release\n    verifier-public-key-redhat: |\n{public}- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: admin-gates, namespace: openshift-config-managed}}\n  data:\n    ack-4.20-sigstore-in-4.21: Ensure that any registries configured as mirrors contain the Sigstore signature images.\n    ack-4.19-old-gate: an older gate\n"
    )
}

fn admin_acks(acked: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: admin-acks, namespace: openshift-config}}\ndata:\n  ack-4.20-sigstore-in-4.21: '{acked}'\n")
}

/// A must-gather-shaped folder: the cluster's objects and the ConfigMaps
/// of both namespaces.
fn must_gather(s: &Setup, host: &str, signed: Option<&str>, acked: &str) -> PathBuf {
    let root = s.dir.path().join("must-gather");
    let managed = root.join("namespaces/openshift-config-managed/core");
    let config = root.join("namespaces/openshift-config/core");
    std::fs::create_dir_all(&managed).expect("mkdir");
    std::fs::create_dir_all(&config).expect("mkdir");
    std::fs::write(root.join("cluster.yaml"), idms(host) + &cluster_version("")).expect("write");
    std::fs::write(managed.join("configmaps.yaml"), managed_config_maps(signed)).expect("write");
    std::fs::write(config.join("configmaps.yaml"), admin_acks(acked)).expect("write");
    root
}

fn gate<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .find(|g| g["name"] == name)
        .unwrap_or_else(|| panic!("no gate {name} in {json}"))
}

#[test]
fn a_must_gather_with_the_signature_and_the_ack_is_ready() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let mg = must_gather(&s, &reg.host(), Some(&rel.payload), "true");
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&mg)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let pgp = &json["signatures"]["openpgp"];
    assert_eq!(pgp["outcome"], "verified", "{pgp}");
    let key = rel.payload.replace(':', "-");
    assert_eq!(pgp["configMap"], format!("openshift-config-managed/{key}"));
    assert_eq!(pgp["key"], format!("{key}-1"));
    let sig = &pgp["signatures"][0];
    assert_eq!(sig["verification"], "verified", "{pgp}");
    assert_eq!(sig["verifiedBy"], "verifier-public-key-redhat");
    assert_eq!(sig["fingerprint"], signer().fingerprint());
    assert_eq!(
        pgp["verifiers"][0]["fingerprints"][0],
        signer().fingerprint()
    );
    assert_eq!(pgp["verifiers"][0]["verified"], true);
    assert_eq!(gate(&json, "ack-4.20-sigstore-in-4.21")["outcome"], "acked");
    assert_eq!(gate(&json, "ack-4.19-old-gate")["outcome"], "notApplicable");
}

/// Issue 37: the signature in the ConfigMap is verified as the CVO
/// verifies it, with the keys of `release-verification`: a signature by
/// another key, over another digest, an empty value or bytes that are not
/// OpenPGP are rejected (not ready), each saying why.
#[test]
fn issue_37_openpgp_signatures_are_verified_not_just_found() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let mg = must_gather(&s, &reg.host(), None, "true");
    let managed = mg.join("namespaces/openshift-config-managed/core/configmaps.yaml");
    let (trusted, other) = (signer(), Key::new(38));
    let other_digest = format!("sha256:{}", "2".repeat(64));
    let names_other = format!("signature digest does not match: it names {other_digest}");
    // Name, signature value, the key the cluster trusts, exit code,
    // outcome, and what the signature's detail says.
    type Case<'a> = (&'a str, Vec<u8>, &'a Key, i32, &'a str, &'a str);
    let cases: Vec<Case> = vec![
        (
            "good",
            trusted.sign_release(&rel.payload),
            &trusted,
            0,
            "verified",
            "verified by verifier-public-key-redhat",
        ),
        (
            "another key",
            other.sign_release(&rel.payload),
            &trusted,
            1,
            "rejected",
            "invalid signature: no key of verifier-public-key-redhat made it",
        ),
        (
            "trusted another key",
            trusted.sign_release(&rel.payload),
            &other,
            1,
            "rejected",
            "invalid signature",
        ),
        (
            "another digest",
            trusted.sign_release(&other_digest),
            &trusted,
            1,
            "rejected",
            &names_other,
        ),
        (
            "empty",
            Vec::new(),
            &trusted,
            1,
            "rejected",
            "the signature is empty",
        ),
        (
            "garbage",
            b"this is not an OpenPGP signature".to_vec(),
            &trusted,
            1,
            "rejected",
            "could not read the message",
        ),
    ];
    for (name, bytes, verifier, want_code, want, why) in cases {
        let maps = signed_config_maps(Some((&rel.payload, &bytes)), verifier);
        std::fs::write(&managed, maps).expect("write");
        let (code, out, err) =
            run(s
                .cmd()
                .arg("-f")
                .arg(&mg)
                .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
        assert_eq!(code, want_code, "{name}: {out}\n{err}");
        let json = json_of(&out, &err);
        let pgp = &json["signatures"]["openpgp"];
        assert_eq!(pgp["outcome"], want, "{name}: {pgp}");
        let detail = pgp["signatures"][0]["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(why), "{name}: {pgp}");
        if want == "rejected" {
            assert_eq!(json["ready"], false, "{name}");
            assert_eq!(json["nextSteps"][0]["outcome"], "openpgp", "{name}");
            assert_eq!(pgp["verifiers"][0]["verified"], false, "{name}");
        }
    }
    // The text names the rejected signature and why.
    let maps = signed_config_maps(Some((&rel.payload, b"garbage")), &trusted);
    std::fs::write(&managed, maps).expect("write");
    let (code, out, _) = run(s
        .cmd()
        .arg("-f")
        .arg(&mg)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 1);
    let key = rel.payload.replace(':', "-");
    assert!(out.contains(&format!("OpenPGP:   rejected: unable to verify {} against keyrings: verifier-public-key-redhat (ConfigMap openshift-config-managed/{key} binaryData key {key}-1: could not read the message", rel.payload)), "{out}");
    assert!(out.contains("NOT READY"), "{out}");
}

/// Issue 37, live: the signature ConfigMaps listed by label and the keys
/// of `release-verification` read from the API server verify the release.
#[test]
fn issue_37_live_signature_is_verified_with_the_cluster_keys() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let offers = format!(
        "  availableUpdates: [{{version: 4.21.0, image: '{}'}}]\n",
        payload_spec(&rel)
    );
    let objects = |maps: String| {
        idms(&reg.host())
            + &cluster_version(&offers)
            + "---\n"
            + &maps
            + "---\n"
            + &admin_acks("true")
    };
    let good = managed_config_maps(Some(&rel.payload));
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&objects(good))
        .start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let (code, out, err) = run(s
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let pgp = &json_of(&out, &err)["signatures"]["openpgp"];
    assert_eq!(pgp["outcome"], "verified", "{pgp}");
    assert_eq!(pgp["signatures"][0]["fingerprint"], signer().fingerprint());
    let wrong = signed_config_maps(
        Some((&rel.payload, &Key::new(39).sign_release(&rel.payload))),
        &signer(),
    );
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&objects(wrong))
        .start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let (code, out, err) = run(s
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let pgp = &json_of(&out, &err)["signatures"]["openpgp"];
    assert_eq!(pgp["outcome"], "rejected", "{pgp}");
    assert_eq!(
        pgp["stores"][0],
        "https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release"
    );
}

#[test]
fn a_gate_not_acknowledged_is_not_ready_with_the_ack_command() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let mg = must_gather(&s, &reg.host(), Some(&rel.payload), "false");
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&mg)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("Gate:      ack-4.20-sigstore-in-4.21 notAcked: openshift-config/admin-acks has ack-4.20-sigstore-in-4.21: \"false\", not \"true\" (Ensure that any registries"), "{out}");
    assert!(
        out.contains("NOT READY: the cluster-version operator would not start the update"),
        "{out}"
    );
    assert!(out.contains(r#"oc -n openshift-config patch cm admin-acks --patch '{"data":{"ack-4.20-sigstore-in-4.21":"true"}}' --type=merge"#), "{out}");
    assert!(
        out.contains("OpenPGP:   verified: ConfigMap openshift-config-managed/sha256-"),
        "{out}"
    );
}

#[test]
fn files_without_the_config_maps_say_the_checks_were_not_made() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let files = s.objects(&(idms(&reg.host()) + &cluster_version("")));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["signatures"]["openpgp"]["outcome"], "notRead");
    assert_eq!(gate(&json, "admin-gates")["outcome"], "notRead");
    // The lines of the example in docs/upgrade-check.md.
    let (_, text, _) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    let not_read = "no ConfigMap of openshift-config-managed was read (give the must-gather, or run against the cluster)";
    assert!(text.contains(&format!("OpenPGP:   notRead: {not_read}\nGate:      admin-gates notRead: {not_read}\nVerdict:   ready")), "{text}");
}

#[test]
fn live_without_the_signature_the_cvo_falls_back_to_its_stores() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let offers = format!(
        "  availableUpdates: [{{version: 4.21.0, image: '{}'}}]\n",
        payload_spec(&rel)
    );
    // A signature for another digest, and the gate acknowledged.
    let other = format!("sha256:{}", "1".repeat(64));
    let objects = idms(&reg.host())
        + &cluster_version(&offers)
        + "---\n"
        + &managed_config_maps(Some(&other))
        + "---\n"
        + &admin_acks("true");
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let (code, out, err) = run(s
        .cmd()
        .env("KUBECONFIG", &kubeconfig)
        .args(["--to", "4.21.0", "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    let pgp = &json["signatures"]["openpgp"];
    assert_eq!(pgp["outcome"], "missing", "{pgp}");
    assert_eq!(
        pgp["stores"][0],
        "https://mirror.openshift.com/pub/openshift-v4/signatures/openshift/release"
    );
    assert!(
        pgp["detail"]
            .as_str()
            .unwrap()
            .contains("The update cannot be verified"),
        "{pgp}"
    );
    assert_eq!(gate(&json, "ack-4.20-sigstore-in-4.21")["outcome"], "acked");
    assert_eq!(json["nextSteps"][0]["outcome"], "openpgp");
    // The signature ConfigMaps are listed by their label, as the CVO lists them.
    let listed = server.log().into_iter().any(|l| {
        l.path == "/api/v1/namespaces/openshift-config-managed/configmaps"
            && l.query.get("labelSelector").map(String::as_str)
                == Some("release.openshift.io/verification-signatures")
    });
    assert!(listed, "{:?}", server.log());
}

/// The example of docs/upgrade-check.md is this run: the ImageDigestMirrorSet
/// oc-mirror v2 writes (in `cluster.yaml`), a mirror that lacks one
/// component, quay.io not reachable from this machine, the mirror's
/// loopback address written as `mirror.example.com:5000`.
#[test]
fn docs_example_is_real() {
    let (reg, rel) = mirror(NAMES, &["etcd"]);
    let s = Setup::new(&reg);
    s.objects(&idms_oc_mirror(&reg.host()));
    let (command, shown) = support::docs_example(
        "docs/upgrade-check.md",
        "kubectl mirrorpolicy upgrade-check -f cluster.yaml",
    );
    let command = command.replace(&payload_spec(&rel), "PAYLOAD");
    assert_eq!(
        command,
        "kubectl mirrorpolicy upgrade-check -f cluster.yaml --cert-dir certs/ --to-image PAYLOAD",
        "the page's payload is not the generated one ({})",
        payload_spec(&rel)
    );
    let args: Vec<String> = command
        .split_whitespace()
        .skip(2)
        .map(|a| a.replace("PAYLOAD", &payload_spec(&rel)))
        .collect();
    let mut cmd = support::bin();
    let out = disconnected(&mut cmd)
        .current_dir(s.dir.path())
        .env("HOME", s.dir.path())
        .env("COLUMNS", "100")
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("DOCKER_CONFIG")
        .args(&args)
        .output()
        .expect("run");
    let (output, code) = shown.rsplit_once("$ echo $?\n").expect("an exit code");
    assert_eq!(
        out.status.code().map(|c| c.to_string()),
        Some(code.trim().to_string())
    );
    let stdout =
        String::from_utf8_lossy(&out.stdout).replace(&reg.host(), "mirror.example.com:5000");
    assert_eq!(
        without_unreachable_reason(&stdout),
        without_unreachable_reason(output)
    );
}

/// `text` without the words of why this machine could not reach a source
/// (`not reachable from this machine (WORDS, as seen from this machine ...`):
/// they are the HTTP client's and the operating system's (the proxy's
/// refusal, `Connection refused (os error 111)` on Linux), so the page's run
/// is compared with this one's on any machine up to them.
fn without_unreachable_reason(text: &str) -> String {
    const OPEN: &str = "not reachable from this machine (";
    const CLOSE: &str = ", as seen from this machine";
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        while let Some(at) = rest.find(OPEN) {
            let (head, tail) = rest.split_at(at + OPEN.len());
            out.push_str(head);
            let Some(end) = tail.find(CLOSE) else {
                rest = tail;
                continue;
            };
            out.push_str("REASON");
            rest = &tail[end..];
        }
        out.push_str(rest);
    }
    out
}

#[test]
fn an_unreachable_source_is_compared_without_its_words() {
    let run = |why: &str| {
        format!("missing  etcd  q.io/a@sha256:1  -  not found on any mirror: m/a: manifest unknown; q.io/a@sha256:1: not reachable from this machine ({why}, as seen from this machine (DNS, proxy and firewall can differ on a node))\n")
    };
    let linux = run("tcp connect error: Connection refused (os error 111)");
    let macos = run("tcp connect error: Connection refused (os error 61)");
    assert_ne!(linux, macos);
    assert_eq!(
        without_unreachable_reason(&linux),
        without_unreachable_reason(&macos)
    );
    assert_eq!(
        without_unreachable_reason(&linux),
        run("REASON"),
        "only the reason is left out"
    );
    let other = linux.replace("manifest unknown", "unauthorized");
    assert_ne!(
        without_unreachable_reason(&linux),
        without_unreachable_reason(&other),
        "the rest of the line is still compared"
    );
}

/// `ClusterVersion.spec.signatureStores` replaces the CVO's default stores:
/// without a signature ConfigMap, those are the stores it will try.
#[test]
fn signature_stores_of_the_cluster_version_replace_the_defaults() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let mg = must_gather(&s, &reg.host(), None, "true");
    let cv = cluster_version("").replace(
        "metadata: {name: version}\n",
        "metadata: {name: version}\nspec:\n  signatureStores:\n  - url: https://sigs.mirror.example/store\n    ca: {name: sigs-ca}\n",
    );
    std::fs::write(mg.join("cluster.yaml"), idms(&reg.host()) + &cv).expect("write");
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&mg)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let pgp = &json_of(&out, &err)["signatures"]["openpgp"];
    assert_eq!(pgp["outcome"], "missing");
    assert_eq!(pgp["storesFrom"], "ClusterVersion.spec.signatureStores");
    assert_eq!(pgp["stores"][0], "https://sigs.mirror.example/store");
}

/// Each failure class of the components, through the binary.
#[test]
fn blocked_digest_mismatch_and_timed_out_components() {
    // blocked: the mirror's repository of the components is blocked (Image
    // config), and the source is never contacted.
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let image_config = format!(
        "---\napiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {{name: cluster}}\nspec:\n  registrySources:\n    blockedRegistries: ['{}/{COMPONENT_REPO}']\n",
        reg.host()
    );
    let files = s.objects(&(idms(&reg.host()) + &image_config));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(
        image(&json, "cli")["outcome"],
        "blocked",
        "{}",
        image(&json, "cli")
    );
    assert_eq!(json["nextSteps"][0]["outcome"], "blocked");

    // digestMismatch: the mirror serves another manifest under etcd's digest.
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in ["cli", "machine-config-operator"] {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b
        .manifest_at(
            COMPONENT_REPO,
            &rel.components[1].1,
            &manifest_body("other"),
        )
        .start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(image(&json, "etcd")["outcome"], "digestMismatch");

    // timedOut: the components' repository does not answer in time; CRI-O
    // would keep waiting, so the verdict is undetermined (exit 3).
    let mut b = Builder::new();
    let (rel, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b
        .slow_manifests(COMPONENT_REPO, std::time::Duration::from_secs(4))
        .start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) = run(s.cmd().arg("-f").arg(&files).args([
        "--to-image",
        &payload_spec(&rel),
        "--probe-timeout",
        "1",
        "-o",
        "json",
    ]));
    assert_eq!(code, 3, "{out}\n{err}");
    let json = json_of(&out, &err);
    let cli = image(&json, "cli");
    assert_eq!(cli["outcome"], "undetermined");
    assert_eq!(cli["pullSources"][0]["outcome"], "timedOut", "{cli}");
    assert_eq!(json["readiness"], "undetermined");
}

/// A mirror whose certificate is not trusted (no --cert-dir): tlsError.
#[test]
fn an_untrusted_mirror_certificate_is_a_tls_error() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let mut cmd = support::bin();
    cmd.env("HOME", s.dir.path())
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR")
        .env("NO_COLOR", "1")
        .arg("upgrade-check")
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel), "-o", "json"]);
    let (code, out, err) = run(&mut cmd);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["outcome"], "tlsError", "{}", json["target"]);
    assert!(json["nextSteps"][0]["step"]
        .as_str()
        .unwrap()
        .contains("additionalTrustedCA"));
}

/// `--to-image` by tag: the tag is resolved on the source that serves it
/// (an ImageTagMirrorSet's mirror) and the digest reported.
#[test]
fn to_image_by_tag_is_resolved_and_reported() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let itms = format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {{name: release-tags}}\nspec:\n  imageTagMirrors:\n  - source: {SOURCE_RELEASE}\n    mirrors: [{}/{RELEASE_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n",
        reg.host()
    );
    let files = s.objects(&(idms(&reg.host()) + &itms));
    let tagged = format!("{SOURCE_RELEASE}:4.21.0-x86_64");
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &tagged, "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["image"], tagged);
    assert_eq!(json["target"]["digest"], rel.payload.as_str());
    assert_eq!(
        json["target"]["servedBy"],
        format!("{}/{RELEASE_REPO}:4.21.0-x86_64", reg.host())
    );
}

/// A last layer served as it was pushed but that the tool cannot read
/// (zstd's magic number, then bytes that are no zstd frame): its digest
/// checks, and the error says why it cannot be read, naming the layer, not
/// that it was served with other content.
#[test]
fn an_unreadable_payload_layer_is_named_not_a_digest_mismatch() {
    let mut b = Builder::new();
    // zstd's magic number, then enough bytes for several chunks.
    let mut layer = vec![0x28, 0xb5, 0x2f, 0xfd];
    layer.extend((0..4_000_000u32).map(|i| (i % 251) as u8));
    let layer_digest = crate::support::registry::digest_of_bytes(&layer);
    let (rel, manifest) = release_layered(&mut b, NAMES, "4.21.0", &[], |_| layer.clone());
    let mut b = b.manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest);
    for (n, _) in &rel.components {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_ne!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(&format!("the last layer {layer_digest}")),
        "{out}\n{err}"
    );
    assert!(!err.contains("was served with content"), "{err}");
}

/// A zstd-compressed last layer, in several frames with a skippable one
/// between as zstd:chunked writes them, is read: CRI-O unpacks it for the
/// cluster-version operator's pod (containers/image picks the decompressor
/// by the magic numbers) and `oc adm release extract` reads it too
/// (`DecompressStream`).
#[test]
fn a_zstd_payload_layer_is_read() {
    let mut b = Builder::new();
    let (rel, manifest) = release_layered(&mut b, NAMES, "4.21.0", &[], |gz| {
        let mut tar = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut tar)
            .expect("gunzip");
        let (one, two) = tar.split_at(tar.len() / 2);
        let level = ruzstd::encoding::CompressionLevel::Fastest;
        let mut zstd = ruzstd::encoding::compress_to_vec(one, level);
        zstd.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]);
        zstd.extend(ruzstd::encoding::compress_to_vec(two, level));
        assert_eq!(zstd[..4], [0x28, 0xb5, 0x2f, 0xfd]);
        zstd
    });
    let mut b = b.manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest);
    for (n, _) in &rel.components {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["ready"], true, "{json}");
    assert_eq!(json["target"]["version"], "4.21.0");
    assert_eq!(json["summary"]["images"], 3);
    for (name, digest) in &rel.components {
        let i = image(&json, name);
        assert_eq!(i["outcome"], "served", "{name}");
        assert_eq!(i["reference"], format!("{SOURCE_COMPONENTS}@{digest}"));
    }
}

/// A zstd payload layer whose frame asks for a 1 GiB window (past the
/// 512 MiB containers/image's decoder accepts) is refused at the frame's
/// header, naming the layer and the window: the payload is not readable.
#[test]
fn a_zstd_payload_frame_past_containers_image_window_is_refused() {
    let mut b = Builder::new();
    let layer_digest = std::cell::RefCell::new(String::new());
    let (rel, manifest) = release_layered(&mut b, NAMES, "4.21.0", &[], |gz| {
        let mut tar = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut tar)
            .expect("gunzip");
        // One frame of raw blocks, its window descriptor 0xa0: 1 << 30.
        let mut zstd = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa0];
        let blocks: Vec<&[u8]> = tar.chunks(128 << 10).collect();
        for (i, block) in blocks.iter().enumerate() {
            let header = u32::from(i + 1 == blocks.len()) | (block.len() as u32) << 3;
            zstd.extend_from_slice(&header.to_le_bytes()[..3]);
            zstd.extend_from_slice(block);
        }
        *layer_digest.borrow_mut() = crate::support::registry::digest_of_bytes(&zstd);
        zstd
    });
    let mut b = b.manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest);
    for (n, _) in &rel.components {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 2, "{out}\n{err}");
    let want = format!(
        "reading the last layer {}: a zstd frame asks for a window of 1073741824 bytes, past the 536870912 bytes containers/image's zstd decoder (klauspost/compress) accepts",
        layer_digest.borrow()
    );
    assert!(err.contains(&want), "{out}\n{err}\nwant {want}");
}

/// Two ClusterImagePolicies on the same scope are both required: a keyless
/// one (presence only here) no longer hides the keyed one, which is
/// verified and rejects a signature by another key; when the keyed one
/// verifies, the verdict is presence only for the keyless one.
#[test]
fn a_keyless_policy_does_not_hide_a_keyed_one() {
    let (good, other) = (Signer::new(), Signer::new());
    let (reg, rel) = signed_mirror(&[Some(&good), Some(&other), Some(&good)]);
    let s = Setup::new(&reg);
    let keyless = keyless_cip(&good.key_data);
    let keyed = cip("art-signed", &[SOURCE_COMPONENTS], &good.key_data, "");
    let files = s.objects(&(idms(&reg.host()) + &keyless + &keyed));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    let cli = image(&json, "cli");
    assert_eq!(cli["signature"]["verification"], "presenceOnly", "{cli}");
    let detail = cli["signature"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("verifies with the policy's key") && detail.contains("Fulcio"),
        "{detail}"
    );
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["signature"]["verification"], "rejected", "{etcd}");
    assert_eq!(etcd["outcome"], "badSignature", "{etcd}");
}

/// [`mirror`] whose blobs are sent as `pacing` says.
fn paced_mirror(pacing: support::registry::Pacing) -> (FakeRegistry, Release) {
    let mut b = Builder::new().blob_pacing(pacing);
    let (release, manifest) = release(&mut b, NAMES, "4.21.0");
    let mut b = b.manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest);
    for (n, _) in &release.components {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    (b.start(), release)
}

// A registry, proxy or TLS terminator that hands the layer's first byte
// alone: the gzip magic is read whole before choosing gzip or tar.
#[test]
fn issue_39_layer_whose_first_read_is_one_byte_is_read() {
    let (reg, rel) = paced_mirror(support::registry::Pacing::Split {
        first: 1,
        pause: std::time::Duration::from_millis(200),
    });
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["target"]["version"], "4.21.0");
}

// A layer sent a byte every 0.3 s (hundreds of bytes: minutes, and a real
// layer never) ends at --probe-timeout, as a manifest does: undetermined, exit 3.
// A layer past the 1 GiB cap (a tar entry declaring 8 GiB, zeros that never
// end) is given up at the cap, undetermined, exit 3, and never held: the
// process stays under 256 MiB.
#[test]
fn issue_39_endless_layer_stops_at_the_cap_in_bounded_memory() {
    const ENDLESS: &[u8] = b"served as an endless tar";
    let mut b = Builder::new().endless_blob(ENDLESS);
    let (release, manifest) = release_layered(&mut b, NAMES, "4.21.0", &[], |_| ENDLESS.to_vec());
    let reg = b
        .manifest(RELEASE_REPO, Some("4.21.0-x86_64"), &manifest)
        .start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let mut cmd = s.std_cmd();
    cmd.arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&release), "-o", "json"]);
    let run = support::peak_rss(cmd);
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("larger than 1024 MiB, which this tool does not read"),
        "{}",
        run.stderr
    );
    assert!(run.peak_kib < 256 << 10, "peak {} KiB", run.peak_kib);
}

#[test]
fn issue_39_trickling_layer_ends_at_the_probe_timeout() {
    let (reg, rel) = paced_mirror(support::registry::Pacing::Trickle {
        every: std::time::Duration::from_millis(300),
    });
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) = run(s.cmd().arg("-f").arg(&files).args([
        "--to-image",
        &payload_spec(&rel),
        "--probe-timeout",
        "2",
        "-o",
        "json",
    ]));
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains("slower than 64 KiB/s once --probe-timeout (2s) had passed")
            && err.contains("undetermined"),
        "{err}"
    );
}

/// Issue 37: oc-mirror v2's ImageDigestMirrorSet has no `mirrorSourcePolicy`,
/// so a component missing on the mirror falls back to quay.io, which this
/// machine cannot reach. The mirror answered "not found": not ready (exit 1),
/// the mirror's answer and the source's failure in the detail, the copy line.
#[test]
fn issue_37_oc_mirror_idms_missing_on_the_mirror_with_the_source_unreachable() {
    let (reg, rel) = mirror(NAMES, &["etcd"]);
    let s = Setup::new(&reg);
    let files = s.objects(&idms_oc_mirror(&reg.host()));
    let (code, out, err) = run(disconnected(s.cmd().arg("-f").arg(&files).args([
        "--to-image",
        &payload_spec(&rel),
        "-o",
        "json",
    ])));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["readiness"], "notReady");
    assert_eq!(image(&json, "cli")["outcome"], "served");
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["outcome"], "missing", "{etcd}");
    let digest = &rel.components[1].1;
    let on_mirror = format!("{}/{COMPONENT_REPO}@{digest}", reg.host());
    let source = format!("{SOURCE_COMPONENTS}@{digest}");
    assert_eq!(etcd["pullSources"][0]["outcome"], "notFound", "{etcd}");
    assert_eq!(etcd["pullSources"][1]["outcome"], "unreachable", "{etcd}");
    let detail = etcd["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "not found on any mirror: {on_mirror}: {}",
            etcd["pullSources"][0]["detail"].as_str().unwrap()
        )),
        "{detail}"
    );
    assert!(
        detail.contains(&format!("; {source}: not reachable from this machine (")),
        "{detail}"
    );
    let step = &json["nextSteps"][0];
    assert_eq!(step["outcome"], "missing");
    assert_eq!(
        step["commands"][0],
        format!("skopeo copy --all --preserve-digests docker://{source} docker://{on_mirror}")
    );
}

/// Issue 37: `blockedRegistries: [quay.io]` with the `openshift`
/// ClusterImagePolicy the release brings: the target's MCO refuses it (its
/// scope is nested inside a blocked registry, `updatePolicyJSON`). Not ready
/// (exit 1), naming the policy, the blocked entry and the fix; the images
/// are still probed, against the configuration the nodes keep.
#[test]
fn issue_37_release_policy_nested_in_a_blocked_registry_is_a_finding() {
    let key = Signer::new();
    let policy = cip(
        "openshift",
        &[SOURCE_RELEASE],
        &key.key_data,
        "include.release.openshift.io/self-managed-high-availability: 'true'",
    );
    let mut b = Builder::new();
    let (rel, manifest) = release_with(
        &mut b,
        NAMES,
        "4.21.0",
        &[(
            "release-manifests/0000_90_openshift-cluster-image-policy.yaml",
            &policy,
        )],
    );
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for n in NAMES {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let hardened = "---\napiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec:\n  registrySources:\n    blockedRegistries: [quay.io]\n";
    let files = s.objects(&(idms_oc_mirror(&reg.host()) + &cluster_version("") + hardened));
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    let refusal = &json["mcoRefusal"];
    assert_eq!(
        refusal["objects"][0], "ClusterImagePolicy/openshift",
        "{refusal}"
    );
    assert_eq!(refusal["scope"], SOURCE_RELEASE);
    assert_eq!(refusal["entries"][0], "quay.io");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .ends_with(&format!("clusterimagePolicy configured for the scope {SOURCE_RELEASE} is nested inside blockedRegistries")),
        "{refusal}"
    );
    assert_eq!(json["nextSteps"][0]["outcome"], "mcoRefusal");
    assert!(
        json["nextSteps"][0]["step"].as_str().unwrap().contains(
            "remove \"quay.io\" from Image/cluster spec.registrySources.blockedRegistries"
        ),
        "{}",
        json["nextSteps"][0]
    );
    // Probed all the same, as the nodes keep pulling: through the mirror.
    assert_eq!(json["target"]["outcome"], "served");
    assert_eq!(json["summary"]["served"], 3, "{}", json["summary"]);
    let (code, text, _) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("\nMCO:       refuses: "), "{text}");
    assert!(
        text.contains("Verdict:   NOT READY: the target's MCO would refuse the release's signature policy (see above)"),
        "{text}"
    );
}

/// Issue 37: the ConfigMap `Image.spec.additionalTrustedCA` names, among the
/// files of `-f`, is trusted as the live cluster's is (one key per registry,
/// `..` for `:`): the mirror whose CA is only there verifies.
#[test]
fn issue_37_additional_trusted_ca_from_the_files() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let ca = std::fs::read_to_string(s.certs.join("mirror.crt")).expect("ca");
    let ca: String = ca.lines().map(|l| format!("    {l}\n")).collect();
    let image_config = "---\napiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec:\n  additionalTrustedCA: {name: registry-cas}\n";
    let config_map = format!(
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: registry-cas\n  namespace: openshift-config\ndata:\n  {}: |\n{ca}",
        reg.host().replace(':', "..")
    );
    let run_with = |objects: &str| {
        let files = s.objects(objects);
        let mut cmd = support::bin();
        cmd.env("HOME", s.dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR")
            .env("NO_COLOR", "1")
            .arg("upgrade-check")
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]);
        run(&mut cmd)
    };
    let (code, out, err) = run_with(&(idms(&reg.host()) + image_config + &config_map));
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["ready"], true);
    // The ConfigMap not among the files: untrusted, and said on stderr.
    let (code, out, err) = run_with(&(idms(&reg.host()) + image_config));
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["target"]["outcome"], "tlsError");
    assert!(
        err.contains("Image/cluster spec.additionalTrustedCA names ConfigMap/openshift-config/registry-cas, which is not among the files"),
        "{err}"
    );
}

/// Issue 37: a last layer that is no tar archive: the error names the
/// layer's digest and what was expected, and shows its first bytes in hex,
/// never the raw bytes.
#[test]
fn issue_37_a_garbled_payload_layer_names_its_digest() {
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 13 % 256) as u8).collect();
    let layer_digest = crate::support::registry::digest_of_bytes(&garbage);
    let mut b = Builder::new();
    let (rel, manifest) = release_layered(&mut b, NAMES, "4.21.0", &[], |_| garbage.clone());
    let mut b = b.manifest(RELEASE_REPO, None, &manifest);
    for (n, _) in &rel.components {
        b = b.manifest(COMPONENT_REPO, None, &manifest_body(n));
    }
    let reg = b.start();
    let s = Setup::new(&reg);
    let files = s.objects(&idms(&reg.host()));
    let (code, out, err) = run(s
        .cmd()
        .arg("-f")
        .arg(&files)
        .args(["--to-image", &payload_spec(&rel)]));
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(
        err.contains(&format!("the last layer {layer_digest} (application/vnd.oci.image.layer.v1.tar+gzip) is not a tar archive: expected a gzip- or zstd-compressed tar (bytes 1f 8b or 28 b5 2f fd) or a plain tar (512-byte headers, \"ustar\" at byte 257), found the bytes 00 0d 1a 27")),
        "{err}"
    );
    assert!(err.is_ascii(), "{err}");
}

/// Issue 37 item 6 with `--to-image`: the payload the cluster offers as a
/// conditional update (matched as oc's `targetMatch` does: the same image
/// or its digest, here by the mirror's pull spec) gets the same refusal,
/// worded for `oc adm upgrade --to-image`.
#[test]
fn issue_37_to_image_of_a_not_recommended_update_says_oc_refuses_it() {
    let (reg, rel) = mirror(NAMES, &[]);
    let s = Setup::new(&reg);
    let offers = format!(
        "  conditionalUpdates:\n  - release: {{version: 4.21.0, image: '{}'}}\n    conditions: [{{type: Recommended, status: 'False', reason: SigstoreMirrors, message: mirrors need the signatures}}]\n",
        payload_spec(&rel)
    );
    let files = s.objects(&(idms(&reg.host()) + &cluster_version(&offers)));
    let digest = payload_spec(&rel)
        .rsplit_once('@')
        .expect("by digest")
        .1
        .to_string();
    let image = format!("{}/{RELEASE_REPO}@{digest}", reg.host());
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &image, "-o", "json"]));
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["target"]["version"], "4.21.0", "{json:#}");
    assert_eq!(json["target"]["listedIn"], "conditionalUpdates");
    assert!(json["target"]["ocRefusal"].is_string(), "{json:#}");
    let steps = json["nextSteps"].to_string();
    assert!(
        steps.contains(&format!(
            "oc adm upgrade --to-image {image} --allow-not-recommended"
        )),
        "{steps}"
    );
}

/// The one rule for the copy destination (docs/messages.md): a component
/// the first mirror refuses (credentials) and the second does not have is
/// `unauthorized`, and its step copies it to the second mirror, the first
/// that answered "not found": containers/image goes past the refusal to it
/// (docker/docker_image_src.go `newImageSource`), so the copy is what the
/// next pull gets. A copy to the refusing mirror would not be pulled.
#[test]
fn the_copy_goes_past_a_refusing_mirror_to_the_first_that_answered_not_found() {
    let refusing = Builder::new().basic("user", "secret").start();
    let (reg, rel) = mirror(NAMES, &["etcd"]);
    let s = Setup::new(&reg);
    refusing.write_ca(&s.certs, "refusing");
    let idms = format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: two-mirrors}}\nspec:\n  imageDigestMirrors:\n  - source: {SOURCE_RELEASE}\n    mirrors: [{r}/{RELEASE_REPO}, {m}/{RELEASE_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n  - source: {SOURCE_COMPONENTS}\n    mirrors: [{r}/{COMPONENT_REPO}, {m}/{COMPONENT_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n",
        r = refusing.host(),
        m = reg.host()
    );
    let files = s.objects(&idms);
    let (code, out, err) =
        run(s
            .cmd()
            .arg("-f")
            .arg(&files)
            .args(["--to-image", &payload_spec(&rel), "-o", "json"]));
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(image(&json, "cli")["outcome"], "served", "{json:#}");
    let etcd = image(&json, "etcd");
    assert_eq!(etcd["outcome"], "unauthorized", "{etcd:#}");
    assert_eq!(
        etcd["pullSources"][0]["outcome"], "unauthorized",
        "{etcd:#}"
    );
    assert_eq!(etcd["pullSources"][1]["outcome"], "notFound", "{etcd:#}");
    let digest = &rel.components[1].1;
    let step = json["nextSteps"]
        .as_array()
        .expect("nextSteps")
        .iter()
        .find(|s| s["outcome"] == "unauthorized")
        .unwrap_or_else(|| panic!("no unauthorized step: {json:#}"));
    assert!(
        step["step"].as_str().is_some_and(|t| t.ends_with(&format!(
            "; or copy each image to the first mirror that answered not found; CRI-O goes past {} (refused the credentials) to {}: a copy there would not be pulled before that is fixed:",
            refusing.host(),
            reg.host()
        ))),
        "{step:#}"
    );
    assert_eq!(
        step["commands"],
        serde_json::json!([format!(
            "skopeo copy --all --preserve-digests docker://{SOURCE_COMPONENTS}@{digest} docker://{}/{COMPONENT_REPO}@{digest}",
            reg.host()
        )]),
        "{step:#}"
    );
}
