//! `explain --probe` through the built binary, against loopback registries:
//! which pull source serves the image, walked as containers/image does.

use crate::support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use serde_json::Value;

use support::registry::{digest_of, manifest_body, Builder, FakeRegistry, Signer};

const REPO: &str = "ns/app";

struct Setup {
    dir: tempfile::TempDir,
    certs: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).expect("certs dir");
        Setup { dir, certs }
    }

    fn trust(&self, r: &FakeRegistry, name: &str) {
        r.write_ca(&self.certs, name);
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// registries.conf: `source/ns/app` mirrored to each mirror's `ns/app`, plus `extra`.
fn registries_conf(source: &str, mirrors: &[&str], mirror_opts: &str, extra: &str) -> String {
    let mut s =
        format!("[[registry]]\nprefix = \"{source}/{REPO}\"\nlocation = \"{source}/{REPO}\"\n");
    for m in mirrors {
        s.push_str(&format!(
            "[[registry.mirror]]\nlocation = \"{m}/{REPO}\"\n{mirror_opts}"
        ));
    }
    s.push_str(extra);
    s
}

fn probe(setup: &Setup, conf: &str, image: &str, extra: &[&str]) -> (i32, Value) {
    probe_env(setup, conf, image, extra, &[])
}

/// [`probe`] with more environment variables.
fn probe_env(
    setup: &Setup,
    conf: &str,
    image: &str,
    extra: &[&str],
    env: &[(&str, std::ffi::OsString)],
) -> (i32, Value) {
    let conf_path = setup.write("registries.conf", conf);
    let out = support::bin()
        .envs(env.iter().map(|(k, v)| (*k, v.clone())))
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("DOCKER_CONFIG")
        .args(["explain", image, "--registries-conf"])
        .arg(&conf_path)
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .args(["-o", "json"])
        .args(extra)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), json)
}

/// One image gives one object, several an array.
fn candidate(json: &Value) -> &Value {
    let item = if json.is_array() { &json[0] } else { json };
    &item["candidates"][0]
}

fn outcomes(json: &Value) -> Vec<String> {
    candidate(json)["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| s["probe"]["outcome"].as_str().unwrap_or("?").to_string())
        .collect()
}

fn served_by(json: &Value) -> Value {
    candidate(json)["servedBy"].clone()
}

fn auth_json(entries: &[(&str, &str, &str)]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|(key, user, pass)| {
            let a = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
            format!("\"{key}\": {{\"auth\": \"{a}\"}}")
        })
        .collect();
    format!("{{\"auths\": {{{}}}}}", items.join(", "))
}

fn image_registries() -> (FakeRegistry, FakeRegistry, FakeRegistry) {
    let body = manifest_body("app v1");
    let a = Builder::new().manifest(REPO, Some("v1"), &body).start();
    let b = Builder::new().manifest(REPO, Some("v1"), &body).start();
    let s = Builder::new().manifest(REPO, Some("v1"), &body).start();
    (a, b, s)
}

#[test]
fn issue_16_mirror_without_credentials_falls_through() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .basic("alice", "secret")
        .manifest(REPO, Some("v1"), &body)
        .start();
    let b = Builder::new().manifest(REPO, Some("v1"), &body).start();
    let s = Builder::new().manifest(REPO, Some("v1"), &body).start();
    for (r, n) in [(&a, "a"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let (code, json) = probe(&setup, &conf, &image, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unauthorized", "served", "notTried"]);
    let sources = &candidate(&json)["sources"];
    assert_eq!(sources[0]["probe"]["status"], 401);
    assert_eq!(sources[1]["probe"]["status"], 200);
    assert_eq!(sources[2]["probe"]["status"], Value::Null);
    assert!(sources[1]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .contains("as seen from this machine"));
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", b.host()));
    assert_eq!(s.requests_to("/v2"), 0, "the source is not contacted");
    // The Basic challenge was answered (with empty credentials), as containers/image does.
    assert!(a
        .log()
        .iter()
        .any(|l| l.auth_scheme.as_deref() == Some("Basic")));
    // containers/image's Accept list, in order.
    let accept = &b
        .log()
        .into_iter()
        .find(|l| l.path.contains("/manifests/"))
        .expect("manifest request")
        .accept;
    assert_eq!(
        accept,
        &[
            "application/vnd.oci.image.manifest.v1+json",
            "application/vnd.docker.distribution.manifest.v2+json",
            "application/vnd.docker.distribution.manifest.v1+prettyjws",
            "application/vnd.docker.distribution.manifest.v1+json",
            "application/vnd.docker.distribution.manifest.list.v2+json",
            "application/vnd.oci.image.index.v1+json",
        ]
    );
}

#[test]
fn issue_16_image_missing_on_first_mirror() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new().start();
    let b = Builder::new().manifest(REPO, Some("v1"), &body).start();
    let s = Builder::new().manifest(REPO, Some("v1"), &body).start();
    for (r, n) in [(&a, "a"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", "");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0);
    assert_eq!(outcomes(&json), ["notFound", "served", "notTried"]);
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail");
    // Issue 36: the words CRI-O logs (containers/image fetchManifest and
    // registryHTTPResponseToError) first.
    assert!(
        detail.starts_with(&format!(
            "reading manifest {digest} in {}/{REPO}: manifest unknown (",
            a.host()
        )),
        "{detail}"
    );
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", b.host()));
}

#[test]
fn issue_16_missing_everywhere_fails_the_pull() {
    let setup = Setup::new();
    let a = Builder::new().start();
    let s = Builder::new().start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let digest = digest_of("nothing");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 1);
    assert_eq!(outcomes(&json), ["notFound", "notFound"]);
    assert_eq!(served_by(&json), Value::Null);
    assert!(
        candidate(&json).get("servedBy").is_some(),
        "servedBy is null, not absent"
    );
}

#[test]
fn issue_16_tag_pull_skips_digest_only_mirrors() {
    let setup = Setup::new();
    let (a, b, s) = image_registries();
    for (r, n) in [(&a, "a"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(
        &s.host(),
        &[&a.host(), &b.host()],
        "pull-from-mirror = \"digest-only\"\n",
        "",
    );
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}:v1", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["served"]);
    assert_eq!(served_by(&json), format!("{}/{REPO}:v1", s.host()));
    // The pull never tries the mirrors; only the fix asks them for the tag.
    for (r, i) in [(&a, 0), (&b, 1)] {
        let manifests: Vec<String> = r
            .log()
            .into_iter()
            .filter(|l| l.path.contains("/manifests/"))
            .map(|l| l.path)
            .collect();
        assert_eq!(manifests, [format!("/v2/{REPO}/manifests/v1")]);
        assert_eq!(candidate(&json)["fix"]["mirrors"][i]["holdsTag"], true);
    }
}

#[test]
fn issue_16_blocked_source_not_tried() {
    let setup = Setup::new();
    let (a, b, s) = image_registries();
    for (r, n) in [(&a, "a"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let blocked = format!(
        "[[registry]]\nlocation = \"{}\"\nblocked = true\n",
        a.host()
    );
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", &blocked);
    let digest = digest_of(&manifest_body("app v1"));
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0);
    assert_eq!(outcomes(&json), ["blocked", "served", "notTried"]);
    assert_eq!(a.log().len(), 0, "a blocked endpoint is never contacted");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", b.host()));
}

#[test]
fn issue_16_unknown_ca_is_a_tls_error() {
    let setup = Setup::new();
    let (a, b, s) = image_registries();
    // a's CA is not trusted.
    setup.trust(&b, "b");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", "");
    let digest = digest_of(&manifest_body("app v1"));
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0);
    assert_eq!(outcomes(&json), ["tlsError", "served", "notTried"]);
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    // Go's words (crypto/tls since Go 1.20), as containers/image prints them.
    assert!(
        detail.contains(&format!(
            "pinging container registry {host}: Get \"https://{host}/v2/\": tls: failed to verify certificate: x509: certificate signed by unknown authority",
            host = a.host()
        )),
        "{detail}"
    );
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", b.host()));
}

/// A password no temporary path or host name holds by chance (`pw` was
/// found in a random folder name once).
const SECRET: &str = "Secret-Passw0rd";

#[test]
fn issue_16_most_specific_credentials_win() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let a = Builder::new()
        .bearer("right", SECRET)
        .manifest(REPO, Some("v1"), &body)
        .start();
    let s = Builder::new().manifest(REPO, Some("v1"), &body).start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let digest = digest_of(&body);
    let image = format!("{}/{REPO}@{digest}", s.host());
    let host = a.host();
    let ns_key = format!("{host}/ns");
    let auth = setup.write(
        "auth.json",
        &auth_json(&[(&host, "wrong", SECRET), (&ns_key, "right", SECRET)]),
    );
    let (code, json) = probe(
        &setup,
        &conf,
        &image,
        &["--authfile", auth.to_str().expect("utf-8")],
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["served", "notTried"]);
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    assert!(
        detail.contains(&format!("credentials for \"{ns_key}\"")),
        "{detail}"
    );
    assert!(
        !detail.contains(SECRET),
        "no secret in the output: {detail}"
    );
    // The token was asked for with the account and the pull scope.
    let token = a
        .log()
        .into_iter()
        .find(|l| l.path == "/token")
        .expect("token request");
    assert!(token.query.contains("account=right"), "{}", token.query);
    assert!(
        token.query.contains("scope=repository%3Ans%2Fapp%3Apull"),
        "{}",
        token.query
    );

    // Only the host-wide (wrong) entry: the mirror refuses, the source serves.
    let auth = setup.write("auth2.json", &auth_json(&[(&host, "wrong", SECRET)]));
    let (code, json) = probe(
        &setup,
        &conf,
        &image,
        &["--authfile", auth.to_str().expect("utf-8")],
    );
    assert_eq!(code, 0);
    assert_eq!(outcomes(&json), ["unauthorized", "served"]);
}

#[test]
fn issue_16_registry_auth_file_is_read_without_authfile() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let a = Builder::new()
        .basic("u", "p")
        .manifest(REPO, Some("v1"), &body)
        .start();
    setup.trust(&a, "a");
    let conf = registries_conf(&a.host(), &[], "", "");
    let auth = setup.write("auth.json", &auth_json(&[(&a.host(), "u", "p")]));
    let out = support::bin()
        .env("REGISTRY_AUTH_FILE", &auth)
        .args([
            "explain",
            &format!("{}/{REPO}:v1", a.host()),
            "--registries-conf",
        ])
        .arg(setup.write("registries.conf", &conf))
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .args(["-o", "json"])
        .output()
        .expect("run");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(outcomes(&json), ["served"]);
}

#[test]
fn issue_16_digest_mismatch_fails_on_the_serving_mirror() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .manifest_at(REPO, &digest, &manifest_body("tampered"))
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 1, "{json:#}");
    // issue 22: not "served", no servedBy, the candidate's error set.
    assert_eq!(outcomes(&json), ["digestMismatch", "notTried"]);
    assert_eq!(served_by(&json), Value::Null, "{json:#}");
    assert_eq!(candidate(&json)["sources"][0]["probe"]["status"], 200);
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    assert!(detail.contains("does not match the digest"), "{detail}");
    let error = candidate(&json)["error"]
        .as_str()
        .expect("error")
        .to_string();
    assert!(
        error.starts_with(&format!(
            "{}/{REPO}@{digest} answers with manifest",
            a.host()
        )) && error.contains("does not match the digest"),
        "{error}"
    );
    // The image fails as its only candidate does (the contract in docs/contracts.md).
    assert_eq!(json["error"], Value::String(error), "{json:#}");
    assert_eq!(s.log().len(), 0);
}

#[test]
fn issue_22_digest_mismatch_text_keeps_the_table() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .manifest_at(REPO, &digest, &manifest_body("tampered"))
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .args(["explain", &format!("{}/{REPO}@{digest}", s.host())])
        .arg("--registries-conf")
        .arg(setup.write("registries.conf", &conf))
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("digestMismatch (200)"), "{text}");
    assert!(
        text.contains("answers with a manifest that does not match the digest: the pull fails"),
        "{text}"
    );
}

fn sigstore_files(setup: &Setup, source: &str, mirror: &str) -> (PathBuf, PathBuf) {
    let trust = format!(r#""keyData": "{}""#, Signer::new().key_data);
    sigstore_policy(setup, source, mirror, &trust, "matchRepository")
}

/// A policy.json requiring sigstore signatures (`trust`: the key fields)
/// for `source/REPO`, and a registries.d using attachments on both hosts.
fn sigstore_policy(
    setup: &Setup,
    source: &str,
    mirror: &str,
    trust: &str,
    identity: &str,
) -> (PathBuf, PathBuf) {
    let policy = setup.write(
        "policy.json",
        &format!(
            r#"{{"default": [{{"type": "insecureAcceptAnything"}}],
                "transports": {{"docker": {{"{source}/{REPO}": [{{"type": "sigstoreSigned", {trust}, "signedIdentity": {{"type": "{identity}"}}}}]}}}}}}"#
        ),
    );
    let d = setup.path("registries.d");
    std::fs::create_dir_all(&d).expect("registries.d");
    std::fs::write(
        d.join("sigstore.yaml"),
        format!("docker:\n  {mirror}:\n    use-sigstore-attachments: true\n  {source}:\n    use-sigstore-attachments: true\n"),
    )
    .expect("write");
    (policy, d)
}

#[test]
fn issue_16_signature_missing_on_the_serving_mirror() {
    let setup = Setup::new();
    let body = manifest_body("release");
    let digest = digest_of(&body);
    let a = Builder::new().manifest(REPO, None, &body).start();
    let s = Builder::new()
        .manifest(REPO, None, &body)
        .signature(REPO, &digest)
        .start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let (policy, regd) = sigstore_files(&setup, &s.host(), &a.host());
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let args = [
        "--policy-json",
        policy.to_str().expect("utf-8"),
        "--registries-d",
        regd.to_str().expect("utf-8"),
    ];
    let (code, json) = probe(&setup, &conf, &image, &args);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", a.host()));
    let sig = &candidate(&json)["signatureProbe"];
    let tag = format!("{}.sig", digest.replacen(':', "-", 1));
    assert_eq!(sig["reference"], format!("{}/{REPO}:{tag}", a.host()));
    assert_eq!(sig["found"], false);
    assert_eq!(
        s.log().len(),
        0,
        "the signature is looked up on the serving mirror only"
    );

    // With the signature on the mirror, the pull goes on.
    let signer = Signer::new();
    let a2 = Builder::new()
        .manifest(REPO, None, &body)
        .signed(&signer, REPO, &digest, &image)
        .start();
    setup.trust(&a2, "a2");
    let trust = format!(r#""keyData": "{}""#, signer.key_data);
    let (policy, regd) = sigstore_policy(&setup, &s.host(), &a2.host(), &trust, "matchRepository");
    let conf = registries_conf(&s.host(), &[&a2.host()], "", "");
    let args = [
        "--policy-json",
        policy.to_str().expect("utf-8"),
        "--registries-d",
        regd.to_str().expect("utf-8"),
    ];
    let (code, json) = probe(&setup, &conf, &image, &args);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(candidate(&json)["signatureProbe"]["found"], true);
    assert_eq!(
        candidate(&json)["signatureProbe"]["verification"],
        "verified"
    );
}

/// A mirror registries.d does not give `use-sigstore-attachments`: no
/// signature is looked up there and the pull fails (containers/image reads
/// none). The MCO renders the setting for every policy scope's mirrors, so
/// the fix names it and the check of the node's files.
#[test]
fn issue_36_mirror_without_sigstore_attachments_names_the_fix() {
    let setup = Setup::new();
    let body = manifest_body("release");
    let digest = digest_of(&body);
    let a = Builder::new().manifest(REPO, None, &body).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let (policy, regd) = sigstore_files(&setup, &s.host(), &a.host());
    std::fs::write(
        regd.join("sigstore.yaml"),
        format!(
            "docker:\n  {}:\n    use-sigstore-attachments: true\n",
            s.host()
        ),
    )
    .expect("write");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .args(["explain", &format!("{}/{REPO}@{digest}", s.host())])
        .arg("--registries-conf")
        .arg(setup.write("registries.conf", &conf))
        .arg("--policy-json")
        .arg(&policy)
        .arg("--registries-d")
        .arg(&regd)
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "fix: give {} `use-sigstore-attachments: true` in registries.d",
            a.host()
        )),
        "{text}"
    );
    assert!(
        text.contains("compare them with `kubectl mirrorpolicy diff --on-disk`"),
        "{text}"
    );
}

/// A signature that is there is not enough: containers/image (skopeo 1.18)
/// refuses one whose signed identity the policy does not accept, here a
/// bare repository name under `matchRepoDigestOrExact` ("Signature for
/// identity ... is not accepted"), and one by another key. A key file on
/// the node (keyPath) is not read: presence only, never "verified".
#[test]
fn issue_34_probe_verifies_the_signature_it_finds() {
    let setup = Setup::new();
    let body = manifest_body("signed");
    let digest = digest_of(&body);
    let signer = Signer::new();
    let s = Builder::new().start();
    let name = format!("{}/{REPO}", s.host());
    let image = format!("{name}@{digest}");
    let a = Builder::new()
        .manifest(REPO, None, &body)
        .signed(&signer, REPO, &digest, &name)
        .start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let key_data = format!(r#""keyData": "{}""#, signer.key_data);
    let other = format!(r#""keyData": "{}""#, Signer::new().key_data);
    for (trust, identity, want_code, want) in [
        (&key_data, "matchRepoDigestOrExact", 1, "rejected"),
        (&key_data, "matchRepository", 0, "verified"),
        (&other, "matchRepository", 1, "rejected"),
        (
            &r#""keyPath": "/etc/pki/sig.pub""#.to_string(),
            "matchRepoDigestOrExact",
            0,
            "presenceOnly",
        ),
    ] {
        let (policy, regd) = sigstore_policy(&setup, &s.host(), &a.host(), trust, identity);
        let args = [
            "--policy-json",
            policy.to_str().expect("utf-8"),
            "--registries-d",
            regd.to_str().expect("utf-8"),
        ];
        let (code, json) = probe(&setup, &conf, &image, &args);
        let sig = &candidate(&json)["signatureProbe"];
        assert_eq!(
            (code, sig["verification"].as_str()),
            (want_code, Some(want)),
            "{trust} {identity}: {json:#}"
        );
        assert_eq!(
            served_by(&json),
            format!("{}/{REPO}@{digest}", a.host()),
            "{trust} {identity}"
        );
    }
    let (policy, regd) = sigstore_policy(
        &setup,
        &s.host(),
        &a.host(),
        &key_data,
        "matchRepoDigestOrExact",
    );
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .args(["explain", &image, "--probe", "--registries-conf"])
        .arg(setup.write("registries.conf", &conf))
        .arg("--cert-dir")
        .arg(&setup.certs)
        .arg("--policy-json")
        .arg(&policy)
        .arg("--registries-d")
        .arg(&regd)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("but the policy accepts none of its sigstore signatures: the pull fails"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "Signature for identity \"{name}\" is not accepted"
        )),
        "{text}"
    );
}

/// A port on 127.0.0.1 nothing listens on (bound, then closed).
fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr");
    drop(l);
    addr.to_string()
}

// containers/image falls through on every error (`newImageSource` goes on
// after any failed attempt): a 500, a refused connection.
#[test]
fn issue_16_server_errors_and_refused_connections_fall_through() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .status(500)
        .manifest(REPO, None, &body)
        .start();
    let refused = closed_port();
    let s = Builder::new().manifest(REPO, None, &body).start();
    for (r, n) in [(&a, "a"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&a.host(), &refused], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let (code, json) = probe(&setup, &conf, &image, &["--probe-timeout", "1"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unreachable", "unreachable", "served"]);
    let sources = &candidate(&json)["sources"];
    assert_eq!(sources[0]["probe"]["status"], 500);
    assert_eq!(sources[1]["probe"]["status"], Value::Null);
    // Issue 36: the words CRI-O logs (containers/image docker_client.go
    // around Go's net/http error), then what the probe saw.
    let detail = sources[1]["probe"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "pinging container registry {refused}: Get \"https://{refused}/v2/\": "
        )),
        "{detail}"
    );
    assert!(candidate(&json).get("undetermined").is_none(), "{json:#}");
}

// issue 22: containers/image sets no response timeout, so a source that is
// connected but slow is waited for and serves the pull. A timeout is not a
// refusal: the probe says it cannot tell (exit 3), never the next source.
#[test]
fn issue_22_slow_mirror_is_undetermined_not_skipped() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let slow = Builder::new()
        .slow_manifests(REPO, Duration::from_secs(4))
        .manifest(REPO, None, &body)
        .start();
    let b = Builder::new().manifest(REPO, None, &body).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    for (r, n) in [(&slow, "slow"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&slow.host(), &b.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let (code, json) = probe(&setup, &conf, &image, &["--probe-timeout", "1"]);
    assert_eq!(code, 3, "{json:#}");
    assert_eq!(outcomes(&json), ["timedOut", "notTried", "notTried"]);
    assert_eq!(served_by(&json), Value::Null);
    assert_eq!(
        candidate(&json)["undetermined"],
        format!(
            "{}/{REPO}@{digest} did not answer within 1s; CRI-O would keep waiting",
            slow.host()
        )
    );
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    assert!(detail.contains("no answer within 1s"), "{detail}");
    assert_eq!(
        b.log().len() + s.log().len(),
        0,
        "nothing after it is contacted"
    );

    // Within the limit, the slow mirror serves.
    let (code, json) = probe(&setup, &conf, &image, &["--probe-timeout", "8"]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", slow.host()));
}

// A ping that does not answer is waited on as well (and an insecure
// endpoint does not fall back to http then): undetermined, in text too.
#[test]
fn issue_22_silent_registry_text_says_undetermined() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let slow = Builder::new()
        .delay(Duration::from_secs(4))
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&slow, "slow");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&slow.host()], "insecure = true\n", "");
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .env("NO_COLOR", "1")
        .args(["explain", &format!("{}/{REPO}@{digest}", s.host())])
        .arg("--registries-conf")
        .arg(setup.write("registries.conf", &conf))
        .args(["--probe", "--probe-timeout", "1", "--cert-dir"])
        .arg(&setup.certs)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("timedOut"), "{text}");
    assert!(
        text.contains(&format!(
            "Probe:     undetermined: {}/{REPO}@{digest} did not answer within 1s; CRI-O would keep waiting",
            slow.host()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "pinging container registry {host}: https://{host}/v2/: ",
            host = slow.host()
        )),
        "{text}"
    );
    assert!(!text.contains(&format!("http://{}", slow.host())), "{text}");
    // Issue 36: the verdict's fix follows it.
    assert!(
        text.contains("\n           fix: run again from a machine that reaches the registry, or with a longer --probe-timeout\n"),
        "{text}"
    );
    assert_eq!(s.log().len(), 0);
}

#[test]
fn issue_16_insecure_mirror_is_reached_over_http() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .plain_http()
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&s, "s");
    let conf = format!(
        "[[registry]]\nprefix = \"{s}/{REPO}\"\nlocation = \"{s}/{REPO}\"\n[[registry.mirror]]\nlocation = \"{a}/{REPO}\"\ninsecure = true\n",
        s = s.host(),
        a = a.host()
    );
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["served", "notTried"]);
}

// A plain-HTTP mirror not marked insecure: containers/image fails its
// ping with Go's words ("http: server gave HTTP response to HTTPS client",
// as skopeo and CRI-O log it), not rustls's; the detail names the fix.
#[test]
fn issue_36_plain_http_mirror_not_insecure_says_what_crio_says() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new()
        .plain_http()
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["tlsError", "served"]);
    let d = detail(&json, 0);
    assert!(
        d.contains("http: server gave HTTP response to HTTPS client")
            && d.contains("spec.registrySources.insecureRegistries")
            && !d.contains("InvalidContentType"),
        "{d}"
    );
    // The question over HTTP carries no credentials.
    assert!(
        a.log().iter().all(|l| l.auth_scheme.is_none()),
        "no credentials over HTTP"
    );
}

#[test]
fn issue_16_text_output_has_a_probe_column_and_a_verdict() {
    let setup = Setup::new();
    let (a, b, s) = image_registries();
    setup.trust(&b, "b");
    setup.trust(&s, "s");
    let _ = &a;
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", "");
    let digest = digest_of(&manifest_body("app v1"));
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .args([
            "explain",
            &format!("{}/{REPO}@{digest}", s.host()),
            "--registries-conf",
        ])
        .arg(setup.write("registries.conf", &conf))
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("PROBE"), "{text}");
    assert!(text.contains("tlsError"), "{text}");
    assert!(text.contains("served (200)"), "{text}");
    assert!(
        text.contains(&format!(
            "Probe:     served by {}/{REPO}@{digest}",
            b.host()
        )),
        "{text}"
    );
    assert!(text.contains("as seen from this machine"), "{text}");
}

#[test]
fn issue_16_without_probe_nothing_is_added_or_contacted() {
    let setup = Setup::new();
    let (a, b, s) = image_registries();
    let conf = registries_conf(&s.host(), &[&a.host(), &b.host()], "", "");
    let out = support::bin()
        .args([
            "explain",
            &format!("{}/{REPO}:v1", s.host()),
            "--registries-conf",
        ])
        .arg(setup.write("registries.conf", &conf))
        .args(["-o", "json"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("probe") && !text.contains("servedBy"),
        "{text}"
    );
    assert_eq!(a.log().len() + b.log().len() + s.log().len(), 0);
}

#[test]
fn issue_16_bad_authfile_and_cert_dir_are_input_errors() {
    let setup = Setup::new();
    let conf = setup.write("registries.conf", "");
    let bad = setup.write("auth.json", "{not json");
    let out = support::bin()
        .args(["explain", "quay.io/a/b:1", "--registries-conf"])
        .arg(&conf)
        .arg("--probe")
        .arg("--authfile")
        .arg(&bad)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("auth.json"), "{err}");
    let certs = setup.path("certs2");
    std::fs::create_dir(&certs).expect("dir");
    std::fs::write(certs.join("client.key"), "x").expect("write");
    let out = support::bin()
        .args(["explain", "quay.io/a/b:1", "--registries-conf"])
        .arg(&conf)
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&certs)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("client.key"));
    let _ = Path::new("");
}

/// Issue 36: with `--probe`, the fix asks each digest-only mirror the tag
/// pull skips for the tag (as a pull through the ImageTagMirrorSet would):
/// one holds it, the other does not yet.
#[test]
fn issue_36_probe_says_whether_each_skipped_mirror_holds_the_tag() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let a = Builder::new().manifest(REPO, Some("v1"), &body).start();
    let b = Builder::new().start();
    let s = Builder::new().manifest(REPO, Some("v1"), &body).start();
    for (r, n) in [(&a, "a"), (&b, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(
        &s.host(),
        &[&a.host(), &b.host()],
        "pull-from-mirror = \"digest-only\"\n",
        "",
    );
    let image = format!("{}/{REPO}:v1", s.host());
    let (code, json) = probe(&setup, &conf, &image, &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(served_by(&json), image.as_str());
    let mirrors = &candidate(&json)["fix"]["mirrors"];
    assert_eq!(mirrors[0]["reference"], format!("{}/{REPO}:v1", a.host()));
    assert_eq!(mirrors[0]["holdsTag"], true);
    assert_eq!(mirrors[0]["probe"]["outcome"], "served");
    assert_eq!(mirrors[1]["holdsTag"], false);
    assert_eq!(mirrors[1]["probe"]["outcome"], "notFound");
    assert_eq!(mirrors[1]["probe"]["status"], 404);

    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .args(["explain", &image, "--registries-conf"])
        .arg(setup.path("registries.conf"))
        .arg("--probe")
        .arg("--cert-dir")
        .arg(&setup.certs)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        format!("probe: {}/{REPO}:v1: the mirror holds this tag\n", a.host()),
        format!(
            "probe: {}/{REPO}:v1: the mirror does not hold this tag: mirror it first\n",
            b.host()
        ),
    ] {
        assert!(text.contains(&line), "{line:?} in:\n{text}");
    }
    // Without --probe the mirrors are not asked.
    let before = a.log().len() + b.log().len();
    let out = support::bin()
        .args(["explain", &image, "--registries-conf"])
        .arg(setup.path("registries.conf"))
        .args(["-o", "json"])
        .output()
        .expect("run");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(candidate(&json)["fix"]["mirrors"][0].get("holdsTag"), None);
    assert_eq!(a.log().len() + b.log().len(), before);
}

/// Issue 36: `audit --probe` says the same in the detail of each image
/// pulled by tag past digest-only mirrors, and records it in its `fix`.
#[test]
fn issue_36_audit_probe_says_whether_the_mirror_holds_the_tag() {
    let setup = Setup::new();
    let app = manifest_body("app");
    let m = Builder::new().manifest("ns/app", Some("v1"), &app).start();
    let s = Builder::new()
        .manifest("ns/app", Some("v1"), &app)
        .manifest("ns/other", Some("v2"), &manifest_body("other"))
        .start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let (src, mir) = (s.host(), m.host());
    let held = format!("{src}/ns/app:v1");
    let missing = format!("{src}/ns/other:v2");
    let objects = audit_objects(&src, &mir, &[&held, &missing]);
    let file = setup.write("cluster.yaml", &objects);
    let run = |extra: &[&str]| {
        support::bin()
            .args(["audit", "-f"])
            .arg(&file)
            .args(["--probe", "--cert-dir"])
            .arg(&setup.certs)
            .args(extra)
            .output()
            .expect("run")
    };
    let out = run(&["-o", "json"]);
    let report = support::json_with_code(&out, 0);
    let image = |r: &str| {
        report["images"]
            .as_array()
            .expect("images")
            .iter()
            .find(|i| i["reference"] == r)
            .unwrap_or_else(|| panic!("{r} in {report:#}"))
            .clone()
    };
    for (reference, holds, note) in [
        (&held, true, "the mirror holds this tag"),
        (
            &missing,
            false,
            "the mirror does not hold this tag: mirror it first",
        ),
    ] {
        let i = image(reference);
        assert_eq!(i["class"], "tagSkipsDigestMirrors", "{i:#}");
        assert_eq!(i["probe"]["servedBy"], reference.as_str(), "{i:#}");
        assert_eq!(i["fix"]["mirrors"][0]["holdsTag"], holds, "{i:#}");
        let on_mirror = reference.replace(&src, &mir);
        let detail = i["detail"].as_str().unwrap();
        assert!(
            detail.starts_with(&format!(
                "probe: served by {reference}; probe: {on_mirror}: {note}; pulled by tag: "
            )),
            "{detail}"
        );
    }
    // The table, unwrapped.
    let out = support::bin()
        .env_remove("COLUMNS")
        .args(["audit", "-f"])
        .arg(&file)
        .args(["--probe", "--cert-dir"])
        .arg(&setup.certs)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "probe: {mir}/ns/other:v2: the mirror does not hold this tag: mirror it first"
        )),
        "{text}"
    );
}

fn audit_objects(source: &str, mirror: &str, images: &[&str]) -> String {
    let mut y = format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: {source}/ns\n    mirrors:\n    - {mirror}/ns\n---\napiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: signed\nspec:\n  scopes:\n  - {source}/ns/signed\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t\n    signedIdentity:\n      matchPolicy: MatchRepoDigestOrExact\n"
    );
    for (i, image) in images.iter().enumerate() {
        y.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: shop\nspec:\n  containers:\n  - name: c\n    image: {image}\n"
        ));
    }
    y
}

#[test]
fn issue_16_audit_probe_classes_missing_and_unsigned_on_mirror() {
    let setup = Setup::new();
    let app = manifest_body("app");
    let signed = manifest_body("signed");
    let gone = digest_of(&manifest_body("gone"));
    let m = Builder::new()
        .bearer("puller", "pw")
        .manifest("ns/app", None, &app)
        .manifest("ns/signed", None, &signed)
        .start();
    let s = Builder::new().start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let (src, mir) = (s.host(), m.host());
    let app_ref = format!("{src}/ns/app@{}", digest_of(&app));
    let signed_ref = format!("{src}/ns/signed@{}", digest_of(&signed));
    let gone_ref = format!("{src}/ns/gone@{gone}");
    // The app image is used by two pods: it is probed once.
    let objects = audit_objects(&src, &mir, &[&app_ref, &app_ref, &signed_ref, &gone_ref]);
    let file = setup.write("cluster.yaml", &objects);
    let auth = setup.write("auth.json", &auth_json(&[(&mir, "puller", "pw")]));
    let run = |extra: &[&str]| {
        support::bin()
            .args(["audit", "-f"])
            .arg(&file)
            .args(["--probe", "--authfile"])
            .arg(&auth)
            .arg("--cert-dir")
            .arg(&setup.certs)
            .args(extra)
            .output()
            .expect("run")
    };
    let out = run(&["-o", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let class_of = |r: &str| {
        report["images"]
            .as_array()
            .expect("images")
            .iter()
            .find(|i| i["reference"] == r)
            .map(|i| i["class"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(class_of(&app_ref).as_deref(), Some("mirrored"));
    assert_eq!(class_of(&gone_ref).as_deref(), Some("missingOnMirror"));
    assert_eq!(class_of(&signed_ref).as_deref(), Some("unsignedOnMirror"));
    assert_eq!(report["summary"]["missingOnMirror"], 1);
    assert_eq!(report["summary"]["unsignedOnMirror"], 1);
    let app = report["images"]
        .as_array()
        .expect("images")
        .iter()
        .find(|i| i["reference"] == app_ref.as_str())
        .expect("app");
    assert_eq!(
        app["probe"]["servedBy"],
        format!("{mir}/ns/app@{}", digest_of(&manifest_body("app")))
    );
    let app_manifest_gets = m
        .log()
        .iter()
        .filter(|l| l.path.starts_with("/v2/ns/app/manifests/"))
        .count();
    assert_eq!(app_manifest_gets, 1, "every distinct image is probed once");
    // One ping and one token per repository scope, shared by the probes.
    assert_eq!(m.requests_to("/v2/"), 1 + 3 + 1, "{:?}", m.log());
    let tokens = m.log().iter().filter(|l| l.path == "/token").count();
    assert_eq!(tokens, 3, "one token per scope");
    // Both are errors for --fail-on.
    let out = run(&["--fail-on", "error", "--probe-concurrency", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("missingOnMirror"), "{text}");
    // Issue 36: CRI-O's words, the cause, then the fix.
    for want in [
        "probe: CRI-O's error: `initializing source docker://",
        "manifest unknown`: no source serves it, the pull fails; fix: copy the image to the mirror CRI-O tries first (oc-mirror, or `skopeo copy --all --preserve-digests docker://",
        "probe: CRI-O's error: `Source image rejected: A signature was required, but no signature exists`: served by ",
        "the policy requires, the pull fails; fix: copy its sigstore signature to ",
    ] {
        assert!(text.contains(want), "{want}\n---\n{text}");
    }

    // Without --probe the report is unchanged: no probe fields, no probe classes.
    let out = support::bin()
        .args(["audit", "-f"])
        .arg(&file)
        .args(["-o", "json"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("probe") && !text.contains("OnMirror"),
        "{text}"
    );
}

// issue 22: an image whose source does not answer in time is its own
// class, `undetermined`: exit 3 unless something worse (a --fail-on match)
// is found; naming the class in --fail-on makes it a finding.
#[test]
fn issue_22_audit_probe_timed_out_image_is_undetermined() {
    let setup = Setup::new();
    let app = manifest_body("app");
    let slow = manifest_body("slow");
    let m = Builder::new()
        .manifest("ns/app", None, &app)
        .manifest("ns/slow", None, &slow)
        .slow_manifests("ns/slow", Duration::from_secs(4))
        .start();
    let s = Builder::new().start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let (src, mir) = (s.host(), m.host());
    let app_ref = format!("{src}/ns/app@{}", digest_of(&app));
    let slow_ref = format!("{src}/ns/slow@{}", digest_of(&slow));
    let gone_ref = format!("{src}/ns/gone@{}", digest_of(&manifest_body("gone")));
    let run = |images: &[&str], extra: &[&str]| {
        let file = setup.write("cluster.yaml", &audit_objects(&src, &mir, images));
        support::bin()
            .env_remove("REGISTRY_AUTH_FILE")
            .args(["audit", "-f"])
            .arg(&file)
            .args(["--probe", "--probe-timeout", "1", "--cert-dir"])
            .arg(&setup.certs)
            .args(extra)
            .output()
            .expect("run")
    };
    let out = run(&[&app_ref, &slow_ref], &["-o", "json"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    let image = |r: &str| {
        report["images"]
            .as_array()
            .expect("images")
            .iter()
            .find(|i| i["reference"] == r)
            .cloned()
            .expect("image")
    };
    let slow_image = image(&slow_ref);
    assert_eq!(slow_image["class"], "undetermined");
    assert_eq!(slow_image["probe"]["servedBy"], Value::Null);
    assert_eq!(
        slow_image["probe"]["undetermined"],
        format!(
            "{mir}/ns/slow@{} did not answer within 1s; CRI-O would keep waiting",
            digest_of(&slow)
        )
    );
    assert_eq!(
        slow_image["probe"]["sources"][0]["probe"]["outcome"],
        "timedOut"
    );
    assert_eq!(image(&app_ref)["class"], "mirrored");
    assert_eq!(report["summary"]["undetermined"], 1);
    assert_eq!(s.requests_to("/v2/ns/slow"), 0, "the source is not tried");

    // --fail-on error: nothing else is an error, the result stays undetermined.
    let out = run(&[&app_ref, &slow_ref], &["--fail-on", "error"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("undetermined"), "{text}");
    // A missing image is worse: exit 1.
    let out = run(&[&app_ref, &slow_ref, &gone_ref], &["--fail-on", "error"]);
    assert_eq!(out.status.code(), Some(1));
    // Named, the class is a finding.
    let out = run(&[&app_ref, &slow_ref], &["--fail-on", "undetermined"]);
    assert_eq!(out.status.code(), Some(1));
}

/// The live cluster: the global pull secret and the additionalTrustedCA
/// ConfigMap are what the probe uses, through the fake API server.
fn live_objects(source: &str, mirror: &FakeRegistry, auth: &str, ca_key: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(auth);
    let ca = mirror
        .ca_pem
        .lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>();
    format!(
        "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  additionalTrustedCA:\n    name: registry-cas\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: {source}/ns\n    mirrors:\n    - {m}/ns\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: registry-cas\n  namespace: openshift-config\ndata:\n  {ca_key}: |\n{ca}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: pull-secret\n  namespace: openshift-config\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {b64}\n",
        m = mirror.host()
    )
}

#[test]
fn issue_16_live_pull_secret_and_additional_trusted_ca() {
    let body = manifest_body("live");
    let digest = digest_of(&body);
    let m = Builder::new()
        .bearer("cluster", "s3cret-value")
        .manifest(REPO, None, &body)
        .start();
    let source = "quay.io";
    let auth = auth_json(&[(&m.host(), "cluster", "s3cret-value")]);
    let ca_key = m.host().replace(':', "..");
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(&live_objects(source, &m, &auth, &ca_key))
        .start();
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let image = format!("{source}/{REPO}@{digest}");
    let out = support::bin()
        .env("KUBECONFIG", &kubeconfig)
        .args([
            "explain",
            &image,
            "--probe",
            "--probe-timeout",
            "3",
            "-o",
            "json",
        ])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert_eq!(
        served_by(&json),
        format!("{}/{REPO}@{digest}", m.host()),
        "{json:#}"
    );
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    assert!(
        detail.contains("Secret/openshift-config/pull-secret"),
        "{detail}"
    );
    let b64 = base64::engine::general_purpose::STANDARD.encode(&auth);
    for text in [&stdout, &stderr] {
        assert!(!text.contains("s3cret-value") && !text.contains(&b64));
    }
}

#[test]
fn issue_16_live_pull_secret_forbidden_names_the_rbac_rule() {
    let body = manifest_body("live");
    let m = Builder::new().manifest(REPO, None, &body).start();
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(&live_objects("quay.io", &m, "{}", "x"))
        .forbid("get", "secrets")
        .start();
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let out = support::bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", &format!("quay.io/{REPO}:1"), "--probe"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("resources: [\"secrets\"], verbs: [\"get\"]")
            && err.contains("openshift-config"),
        "{err}"
    );
    assert_eq!(
        m.log().len(),
        0,
        "nothing is probed without the credentials"
    );
}

/// The detail of source `i` of the first candidate.
fn detail(json: &Value, i: usize) -> String {
    candidate(json)["sources"][i]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string()
}

fn manifest_gets(r: &FakeRegistry) -> usize {
    r.log()
        .iter()
        .filter(|l| l.path.contains("/manifests/"))
        .count()
}

// containers/image docker_client.go makeRequestToResolvedURL: a 429 is
// retried after Retry-After; the answer after it decides.
#[test]
fn issue_16_throttled_registry_is_retried_after_retry_after() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new()
        .manifest(REPO, None, &body)
        .throttle(1)
        .retry_after("1")
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let started = std::time::Instant::now();
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 is waited for"
    );
    assert_eq!(outcomes(&json), ["served", "notTried"]);
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", m.host()));
    assert_eq!(manifest_gets(&m), 2, "{:?}", m.log());
    assert!(detail(&json, 0).contains("after 1 HTTP 429"), "{json:#}");
    assert_eq!(s.requests_to("/v2"), 0);
}

// Bounded: containers/image gives up after 5 attempts (backoffNumIterations),
// and the source fails like any other HTTP error: the next one is tried.
// 503 is not retried at all, Retry-After or not.
#[test]
fn issue_16_retries_are_bounded_and_only_for_429() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let busy = Builder::new()
        .manifest(REPO, None, &body)
        .throttle(1000)
        .retry_after("0")
        .start();
    let down = Builder::new()
        .manifest(REPO, None, &body)
        .status(503)
        .retry_after("0")
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    for (r, n) in [(&busy, "busy"), (&down, "down"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&busy.host(), &down.host()], "", "");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unreachable", "unreachable", "served"]);
    let sources = &candidate(&json)["sources"];
    assert_eq!(sources[0]["probe"]["status"], 429);
    assert_eq!(sources[1]["probe"]["status"], 503);
    assert_eq!(manifest_gets(&busy), 5, "five attempts in all");
    assert!(detail(&json, 0).contains("after 5 attempts"), "{json:#}");
    assert_eq!(manifest_gets(&down), 1, "503 is not retried");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", s.host()));
}

// docker_client.go setupRequestAuth: the token for a scope is reused until
// it expires (issued_at + expires_in); an expired one is fetched again.
#[test]
fn issue_16_bearer_token_reused_until_it_expires() {
    let count_tokens = |issued_at: Option<&str>| {
        let setup = Setup::new();
        let (v1, v2) = (manifest_body("v1"), manifest_body("v2"));
        let mut b = Builder::new()
            .bearer("puller", "pw")
            .manifest(REPO, None, &v1)
            .manifest(REPO, None, &v2);
        if let Some(at) = issued_at {
            b = b.token_issued_at(at);
        }
        let m = b.start();
        let s = Builder::new().start();
        setup.trust(&m, "m");
        setup.trust(&s, "s");
        let auth = setup.write("auth.json", &auth_json(&[(&m.host(), "puller", "pw")]));
        let conf = registries_conf(&s.host(), &[&m.host()], "", "");
        let first = format!("{}/{REPO}@{}", s.host(), digest_of(&v1));
        let second = format!("{}/{REPO}@{}", s.host(), digest_of(&v2));
        let auth = auth.to_str().expect("utf-8").to_string();
        let (code, json) = probe(
            &setup,
            &conf,
            &first,
            &[&second, "--authfile", &auth, "--probe-concurrency", "1"],
        );
        assert_eq!(code, 0, "{json:#}");
        let items = json["items"].as_array().expect("a List of two images");
        assert_eq!(items.len(), 2);
        for item in items {
            assert!(item["candidates"][0]["servedBy"].is_string(), "{item:#}");
        }
        m.log().iter().filter(|l| l.path == "/token").count()
    };
    assert_eq!(count_tokens(None), 1, "one token for both images");
    assert_eq!(
        count_tokens(Some("2001-01-01T00:00:00Z")),
        2,
        "a token issued long ago has expired: a new one per use"
    );
}

/// Writes an executable `docker-credential-NAME` into `dir` that logs what it
/// is asked and answers `answer` for `registry`, "not found" otherwise.
fn credential_helper(dir: &Path, name: &str, registry: &str, answer: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let log = dir.join(format!("{name}.log"));
    let script = format!(
        "#!/bin/sh\nserver=\"$(cat)\"\necho \"$1 $server\" >> '{}'\nif [ \"$1\" = get ] && [ \"$server\" = '{registry}' ]; then\n  echo '{answer}'\nelse\n  echo 'credentials not found in native keychain'\n  exit 1\nfi\n",
        log.display()
    );
    let path = dir.join(format!("docker-credential-{name}"));
    std::fs::write(&path, script).expect("helper");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    log
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH")
}

// pkg/docker/config findCredentialsInFile / getCredsFromCredHelper:
// credHelpers send the registry to `docker-credential-<name> get`.
#[test]
fn issue_16_credential_helper_from_the_auth_file() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new()
        .bearer("helped", "from-helper")
        .manifest(REPO, None, &body)
        .start();
    let other = Builder::new()
        .basic("x", "y")
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    for (r, n) in [(&m, "m"), (&other, "other"), (&s, "s")] {
        setup.trust(r, n);
    }
    let bin = setup.path("bin");
    std::fs::create_dir(&bin).expect("bin");
    let log = credential_helper(
        &bin,
        "fake",
        &m.host(),
        r#"{"ServerURL":"x","Username":"helped","Secret":"from-helper"}"#,
    );
    // `other` is sent to the helper too, which has nothing for it: anonymous.
    let auth = setup.write(
        "auth.json",
        &format!(
            r#"{{"credHelpers": {{"{}": "fake", "{}": "fake"}}, "credsStore": "desktop"}}"#,
            other.host(),
            m.host()
        ),
    );
    let conf = registries_conf(&s.host(), &[&other.host(), &m.host()], "", "");
    let (code, json) = probe_env(
        &setup,
        &conf,
        &format!("{}/{REPO}@{digest}", s.host()),
        &["--authfile", auth.to_str().expect("utf-8")],
        &[("PATH", path_with(&bin))],
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unauthorized", "served", "notTried"]);
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", m.host()));
    assert!(
        detail(&json, 1).contains("from credential helper \"fake\""),
        "{json:#}"
    );
    assert!(
        detail(&json, 0).contains("credsStore \"desktop\", which containers/image does not read"),
        "{json:#}"
    );
    let asked = std::fs::read_to_string(&log).expect("helper log");
    assert_eq!(
        asked,
        format!("get {}\nget {}\n", other.host(), m.host()),
        "each registry asked once, with `get` and the registry on stdin"
    );
    assert!(
        !json.to_string().contains("from-helper"),
        "no secret printed"
    );
}

// A helper that is not on PATH fails that source (containers/image does not
// contact it) and the next source is tried: a per-source error, no crash.
#[test]
fn issue_16_missing_credential_helper_fails_only_its_source() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new().manifest(REPO, None, &body).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let auth = setup.write(
        "auth.json",
        &format!(r#"{{"credHelpers": {{"{}": "absent-helper"}}}}"#, m.host()),
    );
    let empty = setup.path("empty-bin");
    std::fs::create_dir(&empty).expect("bin");
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let (code, json) = probe_env(
        &setup,
        &conf,
        &format!("{}/{REPO}@{digest}", s.host()),
        &["--authfile", auth.to_str().expect("utf-8")],
        &[("PATH", path_with(&empty))],
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unauthorized", "served"]);
    let sources = &candidate(&json)["sources"];
    assert_eq!(sources[0]["probe"]["status"], Value::Null);
    let d = detail(&json, 0);
    assert!(
        d.contains("getting username and password: error getting credentials - err: exec: \"docker-credential-absent-helper\": executable file not found in $PATH, out: ``")
            && d.contains("without contacting it"),
        "{d}"
    );
    assert_eq!(m.log().len(), 0, "the mirror is not contacted");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", s.host()));
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| format!("{by}{l}\n")).collect()
}

/// A live cluster: `source/ns` mirrored to `mirror/ns` (another domain)
/// and to `source/mirror/ns` (the image's own domain), an empty global pull
/// secret, both CAs trusted through additionalTrustedCA, and a Deployment
/// whose pods name a pull secret and run as a service account that names
/// another.
fn pull_secret_cluster(source: &FakeRegistry, mirror: &FakeRegistry, image: &str) -> String {
    let (s, m) = (source.host(), mirror.host());
    let b64 = base64::engine::general_purpose::STANDARD.encode(r#"{"auths": {}}"#);
    format!(
        "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  additionalTrustedCA:\n    name: registry-cas\n---\n\
apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: {s}/ns\n    mirrors:\n    - {m}/ns\n    - {s}/mirror/ns\n---\n\
apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: registry-cas\n  namespace: openshift-config\ndata:\n  {sk}: |\n{sca}  {mk}: |\n{mca}---\n\
apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull-secret\n  namespace: openshift-config\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {b64}\n---\n\
apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: builder\n  namespace: shop\nimagePullSecrets:\n- name: sa-secret\n---\n\
apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      serviceAccountName: builder\n      imagePullSecrets:\n      - name: regcred\n      containers:\n      - name: app\n        image: {image}\n",
        sk = s.replace(':', ".."),
        mk = m.replace(':', ".."),
        sca = indent(&source.ca_pem, "    "),
        mca = indent(&mirror.ca_pem, "    "),
    )
}

fn findings(report: &Value, image: &str) -> Vec<Value> {
    report["images"]
        .as_array()
        .expect("images")
        .iter()
        .find(|i| i["reference"] == image)
        .and_then(|i| i["probe"]["pullSecretFindings"].as_array().cloned())
        .unwrap_or_default()
}

// CRI-O server/image_pull.go sets the kubelet's credentials as
// SystemContext.DockerAuthConfig; containers/image newImageSourceAttempt
// clears it for a pull source on another domain. The audit says so when a
// mirror has no credentials of its own and the pods name pull secrets.
#[test]
fn issue_16_live_pod_pull_secrets_never_reach_a_mirror_on_another_domain() {
    let body = manifest_body("private");
    let digest = digest_of(&body);
    let s = Builder::new()
        .basic("pod", "pod-pw")
        .manifest(REPO, None, &body)
        .manifest("mirror/ns/app", None, &body)
        .start();
    let m = Builder::new()
        .bearer("mirror", "mirror-pw")
        .manifest(REPO, None, &body)
        .start();
    let image = format!("{}/{REPO}@{digest}", s.host());
    let objects = pull_secret_cluster(&s, &m, &image);
    let run = |server: &support::apiserver::FakeApiServer, extra: &[&str]| {
        let dir = tempfile::tempdir().expect("tempdir");
        let kubeconfig = server.write_kubeconfig(dir.path());
        support::bin()
            .env("KUBECONFIG", &kubeconfig)
            .args(["audit", "-A", "--probe", "--probe-timeout", "5"])
            .args(extra)
            .output()
            .expect("run")
    };
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(&objects)
        .start();
    let out = run(&server, &["-o", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    let found = findings(&report, &image);
    let secrets = serde_json::json!(["Secret/shop/regcred", "Secret/shop/sa-secret"]);
    assert_eq!(found.len(), 3, "{report:#}");
    assert_eq!(found[0]["source"], format!("{}/{REPO}@{digest}", m.host()));
    assert_eq!(found[0]["reached"], false);
    assert_eq!(found[0]["secrets"], secrets);
    let d = found[0]["detail"].as_str().expect("detail");
    assert!(
        d.contains("are not used for") && d.contains("another domain"),
        "{d}"
    );
    // The mirror on the image's own domain, and the source, do get them.
    assert_eq!(
        found[1]["source"],
        format!("{}/mirror/ns/app@{digest}", s.host())
    );
    assert_eq!(found[1]["reached"], true);
    assert_eq!(found[2]["source"], image);
    assert_eq!(found[2]["reached"], true);
    assert!(found[2]["detail"]
        .as_str()
        .expect("detail")
        .contains("names only"));
    assert!(server
        .log()
        .iter()
        .any(|l| l.path.ends_with("/namespaces/shop/serviceaccounts/builder")));
    // The text says it too.
    let out = run(&server, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("are not used for {}", m.host())),
        "{text}"
    );

    // Without `get serviceaccounts`: a warning naming the rule, the pod spec's secret only.
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(&objects)
        .forbid("get", "serviceaccounts")
        .start();
    let out = run(&server, &["-o", "json"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot get serviceaccounts in namespace shop")
            && stderr.contains("resources: [\"serviceaccounts\"], verbs: [\"get\"]"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        findings(&report, &image)[0]["secrets"],
        serde_json::json!(["Secret/shop/regcred"])
    );
}

// Offline, the pod specs' imagePullSecrets; a mirror with credentials of its
// own, or pods without pull secrets, give no finding.
#[test]
fn issue_16_audit_pull_secret_findings_offline() {
    let setup = Setup::new();
    let body = manifest_body("app");
    let digest = digest_of(&body);
    let locked = Builder::new()
        .bearer("puller", "pw")
        .manifest("ns/app", None, &body)
        .start();
    let s = Builder::new().manifest("ns/app", None, &body).start();
    setup.trust(&locked, "locked");
    setup.trust(&s, "s");
    let image = format!("{}/ns/app@{digest}", s.host());
    let mut objects = audit_objects(&s.host(), &locked.host(), &[]);
    objects.push_str(&format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: with-secret\n  namespace: shop\nspec:\n  imagePullSecrets:\n  - name: regcred\n  containers:\n  - name: c\n    image: {image}\n"
    ));
    let file = setup.write("cluster.yaml", &objects);
    let run = |auth: &str| {
        let auth = setup.write("auth.json", auth);
        let out = support::bin()
            .env_remove("REGISTRY_AUTH_FILE")
            .args(["audit", "-f"])
            .arg(&file)
            .args(["--probe", "-o", "json", "--authfile"])
            .arg(&auth)
            .arg("--cert-dir")
            .arg(&setup.certs)
            .output()
            .expect("run");
        serde_json::from_slice::<Value>(&out.stdout).expect("json")
    };
    let report = run(r#"{"auths": {}}"#);
    let found = findings(&report, &image);
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(
        found[0]["secrets"],
        serde_json::json!(["Secret/shop/regcred"])
    );
    assert!(found[0]["detail"]
        .as_str()
        .expect("detail")
        .contains("(it refused anonymous access)"));
    // With credentials for the mirror there is nothing to say.
    let report = run(&auth_json(&[(&locked.host(), "puller", "pw")]));
    assert!(findings(&report, &image).is_empty(), "{report:#}");

    // Nor when a mirror serves the image without credentials.
    let open = Builder::new().manifest("ns/app", None, &body).start();
    setup.trust(&open, "open");
    let mut objects = audit_objects(&s.host(), &open.host(), &[]);
    objects.push_str(&format!(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: with-secret\n  namespace: shop\nspec:\n  imagePullSecrets:\n  - name: regcred\n  containers:\n  - name: c\n    image: {image}\n"
    ));
    std::fs::write(&file, objects).expect("write");
    let report = run(r#"{"auths": {}}"#);
    let served = report["images"][0]["probe"]["servedBy"].clone();
    assert_eq!(
        served,
        format!("{}/ns/app@{digest}", open.host()),
        "{report:#}"
    );
    assert!(findings(&report, &image).is_empty(), "{report:#}");
}

// A credential helper named by the cluster's pull secret is never run: a
// Secret must not choose a program on the admin's machine, nor where its
// answer goes. The secret's auths entries still count; the detail says the
// helper was ignored. Local auth files keep their helpers (tested above).
#[test]
fn issue_39_cluster_named_credential_helper_never_runs() {
    let body = manifest_body("live");
    let digest = digest_of(&body);
    let m = Builder::new()
        .bearer("cluster", "s3cret-value")
        .manifest(REPO, None, &body)
        .start();
    let bin = tempfile::tempdir().expect("bin");
    // It would answer for every registry, and log that it ran.
    let log = credential_helper(
        bin.path(),
        "evil",
        &m.host(),
        r#"{"ServerURL":"x","Username":"stolen","Secret":"from-admin-keychain"}"#,
    );
    let b64 =
        base64::engine::general_purpose::STANDARD.encode(format!("cluster:{}", "s3cret-value"));
    let pull_secret = format!(
        r#"{{"credHelpers": {{"{m}": "evil", "quay.io": "evil"}}, "credsStore": "evil", "auths": {{"{m}": {{"auth": "{b64}"}}}}}}"#,
        m = m.host()
    );
    let ca_key = m.host().replace(':', "..");
    let objects = format!(
        "{}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\nspec:\n  containers:\n  - name: c\n    image: quay.io/{REPO}@{digest}\n",
        live_objects("quay.io", &m, &pull_secret, &ca_key)
    );
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(&objects)
        .start();
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let image = format!("quay.io/{REPO}@{digest}");
    let run = |args: &[&str]| {
        let out = support::bin()
            .env("KUBECONFIG", &kubeconfig)
            .env("PATH", path_with(bin.path()))
            .args(args)
            .args(["--probe", "--probe-timeout", "3", "-o", "json"])
            .output()
            .expect("run");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            !stdout.contains("from-admin-keychain") && !stdout.contains("s3cret-value"),
            "{stdout}"
        );
        let json: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
        json
    };
    let json = run(&["explain", &image]);
    assert_eq!(
        served_by(&json),
        format!("{}/{REPO}@{digest}", m.host()),
        "the secret's own auths entry is used: {json:#}"
    );
    let mirror = detail(&json, 0);
    assert!(
        mirror.contains("credentials for")
            && mirror.contains("from Secret/openshift-config/pull-secret")
            && mirror.contains("credential helper \"evil\"")
            && mirror.contains("ignored: a program named by the cluster is never run"),
        "{mirror}"
    );
    let report = run(&["audit", "-A"]);
    assert!(
        report
            .to_string()
            .contains("ignored: a program named by the cluster is never run"),
        "{report:#}"
    );
    assert!(
        !log.exists(),
        "the helper ran: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // The secret's credentials went only to the mirror they are for.
    assert!(!m.log().is_empty());
}

// containers/image decodeDockerAuth: an `auth` that is not base64 fails the
// lookup, and the pull source fails without being contacted; the next
// source is tried.
#[test]
fn issue_39_invalid_base64_auth_fails_its_source() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new().manifest(REPO, None, &body).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let auth = setup.write(
        "auth.json",
        &format!(
            r#"{{"auths": {{"{}": {{"auth": "dXNlcjpw*XNz"}}}}}}"#,
            m.host()
        ),
    );
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let (code, json) = probe(
        &setup,
        &conf,
        &format!("{}/{REPO}@{digest}", s.host()),
        &["--authfile", auth.to_str().expect("utf-8")],
    );
    assert_eq!(code, 0, "{json:#}");
    let d = detail(&json, 0);
    assert!(
        d.contains(&format!(
            "the \"auth\" value of \"{}\": illegal base64 data at input byte 8",
            m.host()
        )) && d.contains("auth.json")
            && d.contains("without contacting it"),
        "{d}"
    );
    assert_eq!(m.log().len(), 0, "the mirror is not contacted");
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", s.host()));
}

/// Issue 39 item 7: a manifest over containers/image's 4 MiB
/// (`iolimits.MaxManifestBodySize`) fails its source in containers/image's
/// words, and the pull goes on to the next one; the answer is read no
/// further than the cap.
#[test]
fn issue_39_a_manifest_over_4_mib_fails_its_source() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let huge = format!("{body}{}", " ".repeat(5 << 20));
    let m = Builder::new().manifest_at(REPO, &digest, &huge).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let (code, json) = probe(&setup, &conf, &image, &[]);
    assert_eq!(code, 0, "{json:#}");
    let d = detail(&json, 0);
    assert!(
        d.contains("exceeded maximum allowed size of 4194304 bytes"),
        "{d}"
    );
    assert_eq!(served_by(&json), image);
}

/// Issue 39 item 7: a token answer over containers/image's 1 MiB
/// (`iolimits.MaxAuthTokenBodySize`) fails that source; the next serves.
#[test]
fn issue_39_a_token_answer_over_1_mib_fails_its_source() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new()
        .bearer("user", SECRET)
        .token_padding(2 << 20)
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let auth = setup.write("auth.json", &auth_json(&[(&m.host(), "user", SECRET)]));
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let (code, json) = probe(
        &setup,
        &conf,
        &image,
        &["--authfile", auth.to_str().expect("utf-8")],
    );
    assert_eq!(code, 0, "{json:#}");
    let d = detail(&json, 0);
    assert!(
        d.contains("exceeded maximum allowed size of 1048576 bytes"),
        "{d}"
    );
    assert_eq!(served_by(&json), image);
}

/// Issue 39 item 7: a sigstore signature layer over containers/image's 4
/// MiB (`iolimits.MaxSignatureBodySize`) fails the signature check, and
/// the pull with it (containers/image returns the error from
/// `GetSignatures`), however valid the signature inside.
#[test]
fn issue_39_a_signature_layer_over_4_mib_is_not_accepted() {
    let setup = Setup::new();
    let body = manifest_body("signed");
    let digest = digest_of(&body);
    let signer = Signer::new();
    let s = Builder::new().start();
    let name = format!("{}/{REPO}", s.host());
    let image = format!("{name}@{digest}");
    let a = Builder::new()
        .manifest(REPO, None, &body)
        .signed_padded(&signer, REPO, &digest, &name, 5 << 20)
        .start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let key_data = format!(r#""keyData": "{}""#, signer.key_data);
    let (policy, regd) =
        sigstore_policy(&setup, &s.host(), &a.host(), &key_data, "matchRepository");
    let args = [
        "--policy-json",
        policy.to_str().expect("utf-8"),
        "--registries-d",
        regd.to_str().expect("utf-8"),
    ];
    let (code, json) = probe(&setup, &conf, &image, &args);
    let sig = &candidate(&json)["signatureProbe"];
    assert_eq!(
        (code, sig["verification"].as_str()),
        (1, Some("rejected")),
        "{json:#}"
    );
    assert!(
        sig["detail"]
            .as_str()
            .is_some_and(|d| d.contains("exceeded maximum allowed size of 4194304 bytes")),
        "{sig:#}"
    );
}

/// issue 39: a registry's redirect carries the credentials as Go's client
/// (containers/image's) carries them: kept to another port of the same
/// host, dropped for another host name (here `localhost` for
/// `127.0.0.1`: the same server, which then refuses), and at most 10
/// requests, in Go's words.
#[test]
fn issue_39_redirects_carry_credentials_as_go_does() {
    use support::registry::Redirect;
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let run = |to: Redirect| {
        let a = Builder::new()
            .basic("u", "p")
            .manifest(REPO, Some("v1"), &body)
            .redirect_manifests(to)
            .start();
        setup.trust(&a, "a");
        let conf = registries_conf(&a.host(), &[], "", "");
        let auth = setup.write("auth.json", &auth_json(&[(&a.host(), "u", "p")]));
        let image = format!("{}/{REPO}:v1", a.host());
        let (code, json) = probe(
            &setup,
            &conf,
            &image,
            &["--authfile", auth.to_str().expect("utf-8")],
        );
        let manifests: Vec<Option<String>> = a
            .log()
            .into_iter()
            .filter(|l| l.path.contains("/manifests/"))
            .map(|l| l.auth_scheme)
            .collect();
        (code, json, manifests)
    };
    let (code, json, sent) = run(Redirect::OtherPort);
    assert_eq!(outcomes(&json), ["served"], "{json:#}");
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(sent, [Some("Basic".to_string()), Some("Basic".to_string())]);

    let (code, json, sent) = run(Redirect::OtherName);
    assert_eq!(outcomes(&json), ["unauthorized"], "{json:#}");
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(sent, [Some("Basic".to_string()), None]);

    let (_, json, sent) = run(Redirect::Itself);
    assert_eq!(sent.len(), 10, "{sent:?}");
    let detail = candidate(&json)["sources"][0]["probe"]["detail"]
        .as_str()
        .expect("detail")
        .to_string();
    assert!(
        detail.contains(&format!(
            "Get \"/v2/{REPO}/manifests/v1\": stopped after 10 redirects"
        )),
        "{detail}"
    );
}

/// issue 39: a credential helper (of a local auth file) that answers
/// without end is read up to 1 MiB and no further: its source fails,
/// the next one is tried.
#[test]
fn issue_39_an_endless_credential_helper_fails_its_source() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let m = Builder::new()
        .basic("u", "p")
        .manifest(REPO, None, &body)
        .start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    setup.trust(&s, "s");
    let bin = setup.path("bin");
    std::fs::create_dir(&bin).expect("bin");
    let helper = bin.join("docker-credential-endless");
    std::fs::write(
        &helper,
        "#!/bin/sh\ncat >/dev/null\nexec yes '{\"Username\":\"u\"'\n",
    )
    .expect("helper");
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let auth = setup.write(
        "auth.json",
        &format!(r#"{{"credHelpers": {{"{}": "endless"}}}}"#, m.host()),
    );
    let conf = registries_conf(&s.host(), &[&m.host()], "", "");
    let (code, json) = probe_env(
        &setup,
        &conf,
        &format!("{}/{REPO}@{digest}", s.host()),
        &[
            "--authfile",
            auth.to_str().expect("utf-8"),
            "--probe-timeout",
            "2",
        ],
        &[("PATH", path_with(&bin))],
    );
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["unauthorized", "served"], "{json:#}");
    assert!(
        detail(&json, 0).contains(
            "docker-credential-endless get: an answer of 1 MiB or more, which this tool does not read"
        ),
        "{json:#}"
    );
    assert_eq!(served_by(&json), format!("{}/{REPO}@{digest}", s.host()));
}

/// Issue 37: offline (`-f`), the ConfigMap `Image.spec.additionalTrustedCA`
/// names is trusted as live: `explain --probe` and `audit --probe` verify a
/// mirror whose CA is only there.
#[test]
fn issue_37_offline_additional_trusted_ca_from_the_files() {
    let body = manifest_body("offline");
    let digest = digest_of(&body);
    let m = Builder::new().manifest(REPO, None, &body).start();
    let ca_key = m.host().replace(':', "..");
    let objects = live_objects("quay.io", &m, "{}", &ca_key);
    let dir = tempfile::tempdir().expect("tempdir");
    let files = dir.path().join("cluster.yaml");
    let pod = format!("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: shop\nspec:\n  containers:\n  - name: c\n    image: quay.io/{REPO}@{digest}\n");
    std::fs::write(&files, objects + &pod).expect("write");
    let image = format!("quay.io/{REPO}@{digest}");
    let run = |args: &[&str]| {
        support::bin()
            .env("HOME", dir.path())
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR")
            .args(args)
            .arg("-f")
            .arg(&files)
            .args(["--probe", "--probe-timeout", "3", "-o", "json"])
            .output()
            .expect("run")
    };
    let out = run(&["explain", &image]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        served_by(&json),
        format!("{}/{REPO}@{digest}", m.host()),
        "{json:#}"
    );
    let out = run(&["audit"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{}/{REPO}@{digest}", m.host())) && !stdout.contains("tlsError"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Issue 39 item 7: an error answer's body is read up to 64 KiB, no more: a
/// "manifest unknown" padded to 8 MiB is still that, and the next source
/// is tried.
#[test]
fn issue_39_an_error_body_over_64_kib_is_cut() {
    let setup = Setup::new();
    let body = manifest_body("app v1");
    let digest = digest_of(&body);
    let a = Builder::new().token_padding(8 << 20).start();
    let s = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&a, "a");
    setup.trust(&s, "s");
    let conf = registries_conf(&s.host(), &[&a.host()], "", "");
    let (code, json) = probe(&setup, &conf, &format!("{}/{REPO}@{digest}", s.host()), &[]);
    assert_eq!(code, 0, "{json:#}");
    assert_eq!(outcomes(&json), ["notFound", "served"], "{json:#}");
    assert!(
        detail(&json, 0).contains(": manifest unknown ("),
        "{json:#}"
    );
}

// A pull that fails at every source: CRI-O returns containers/image's
// error, `copy.Image`'s `initializing source docker://REF: ` around
// `newImageSource`'s: the last source's error after the others', each
// `[REF: ERR]`, joined by a newline (docker/docker_image_src.go); one source
// tried alone gives its error unwrapped. The blocked endpoint is an attempt.
#[test]
fn issue_36_a_pull_failing_everywhere_says_crio_s_mirrors_also_failed_error() {
    let setup = Setup::new();
    let digest = digest_of(&manifest_body("app v1"));
    let a = Builder::new().plain_http().start();
    let s = Builder::new().start();
    setup.trust(&s, "s");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let blocked = format!(
        "[[registry]]\nlocation = \"{}\"\nblocked = true\n",
        "blocked.example.com"
    );
    let conf = registries_conf(&s.host(), &[&a.host(), "blocked.example.com"], "", &blocked);
    let (code, json) = probe(&setup, &conf, &image, &[]);
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(outcomes(&json), ["tlsError", "blocked", "notFound"]);
    let want = format!(
        "initializing source docker://{image}: (Mirrors also failed: \
         [{a}/{REPO}@{digest}: pinging container registry {a}: Get \"https://{a}/v2/\": \
         http: server gave HTTP response to HTTPS client]\n\
         [blocked.example.com/{REPO}@{digest}: registry blocked.example.com is blocked in \
         /etc/containers/registries.conf or /etc/containers/registries.conf.d]): \
         {image}: reading manifest {digest} in {s}/{REPO}: manifest unknown",
        a = a.host(),
        s = s.host()
    );
    assert_eq!(candidate(&json)["crioError"], want.as_str(), "{json:#}");
    // The source alone: its error, not wrapped.
    let (code, json) = probe(
        &setup,
        &registries_conf(&s.host(), &[], "", ""),
        &image,
        &[],
    );
    assert_eq!(code, 1, "{json:#}");
    assert_eq!(
        candidate(&json)["crioError"],
        format!(
            "initializing source docker://{image}: reading manifest {digest} in {s}/{REPO}: manifest unknown",
            s = s.host()
        )
        .as_str()
    );
    // A served pull has none.
    let body = manifest_body("app v1");
    let m = Builder::new().manifest(REPO, None, &body).start();
    setup.trust(&m, "m");
    let (code, json) = probe(
        &setup,
        &registries_conf(&s.host(), &[&m.host()], "", ""),
        &image,
        &[],
    );
    assert_eq!(code, 0, "{json:#}");
    assert!(candidate(&json).get("crioError").is_none(), "{json:#}");
}

/// The one rule for the copy destination (docs/messages.md): past a mirror
/// that refuses the credentials, to the first that answered "not found",
/// and the fix says why the first was passed over (containers/image goes
/// on past any error of a pull source: docker/docker_image_src.go
/// `newImageSource`).
#[test]
fn the_fix_copies_past_a_refusing_mirror_and_says_why() {
    let setup = Setup::new();
    let digest = digest_of(&manifest_body("app v1"));
    let refusing = Builder::new().basic("alice", "secret").start();
    let empty = Builder::new().start();
    let s = Builder::new().start();
    for (r, n) in [(&refusing, "a"), (&empty, "b"), (&s, "s")] {
        setup.trust(r, n);
    }
    let conf = registries_conf(&s.host(), &[&refusing.host(), &empty.host()], "", "");
    let image = format!("{}/{REPO}@{digest}", s.host());
    let out = support::bin()
        .env_remove("REGISTRY_AUTH_FILE")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("DOCKER_CONFIG")
        .env("NO_COLOR", "1")
        .args(["explain", &image, "--registries-conf"])
        .arg(setup.write("registries.conf", &conf))
        .args(["--probe", "--cert-dir"])
        .arg(&setup.certs)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let want = format!(
        "fix: copy the image to the first mirror that answered not found (oc-mirror, or `skopeo copy --all --preserve-digests docker://{image} docker://{}/{REPO}@{digest}`); CRI-O goes past {} (refused the credentials) to this mirror: a copy there would not be pulled before that is fixed\n",
        empty.host(),
        refusing.host()
    );
    assert!(text.contains(&want), "{want}\n---\n{text}");
}
