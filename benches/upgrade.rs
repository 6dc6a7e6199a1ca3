//! Whole-process `upgrade-check --to-image` of a release of 200 components
//! on a loopback mirror whose every answer (ping, token-less manifests,
//! blobs) is held back by a latency, as a mirror registry across a network.
//! Two releases: one whose components need no signature, and one that
//! brings the `openshift` ClusterImagePolicy (its release key) for the
//! payload and every component, each signed on the mirror: the `.sig` checks
//! cost two more requests per image (the attachment manifest, its
//! simple-signing layer) and one ECDSA verification.
//!
//! ```sh
//! cargo bench --bench upgrade -- [--components N] [--latency-ms MS] [--runs R]
//! ```
//!
//! Prints the wall time per `--probe-concurrency` and the requests each run
//! made; BENCHMARKS.md records the figures.

#[path = "../tests/it/support/layers.rs"]
mod layers;
#[path = "../tests/it/support/registry.rs"]
mod registry;

use std::process::Command;
use std::time::{Duration, Instant};

use layers::tar_gz;
use registry::Signer;

const RELEASE_REPO: &str = "openshift/release-images";
const COMPONENT_REPO: &str = "openshift/release";
const SOURCE_RELEASE: &str = "quay.io/openshift-release-dev/ocp-release";
const SOURCE_COMPONENTS: &str = "quay.io/openshift-release-dev/ocp-v4.0-art-dev";

struct Options {
    components: usize,
    latency: Duration,
    runs: usize,
}

fn options() -> Options {
    let mut o = Options {
        components: 200,
        latency: Duration::from_millis(50),
        runs: 3,
    };
    let mut given = std::env::args().skip(1).filter(|a| a != "--bench");
    while let Some(arg) = given.next() {
        let mut value = || given.next().expect("a value after the flag");
        match arg.as_str() {
            "--components" => o.components = value().parse().expect("--components N"),
            "--latency-ms" => {
                o.latency = Duration::from_millis(value().parse().expect("--latency-ms MS"))
            }
            "--runs" => o.runs = value().parse().expect("--runs R"),
            other => panic!("unknown argument {other}"),
        }
    }
    o
}

/// The `openshift` ClusterImagePolicy a release brings, for the payload
/// and the components.
fn release_policy(s: &Signer) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ClusterImagePolicy\nmetadata:\n  name: openshift\n  annotations:\n    include.release.openshift.io/self-managed-high-availability: \"true\"\nspec:\n  scopes:\n  - {SOURCE_RELEASE}\n  - {SOURCE_COMPONENTS}\n  policy:\n    rootOfTrust:\n      policyType: PublicKey\n      publicKey:\n        keyData: {}\n",
        s.key_data
    )
}

/// A mirror with the payload and `n` components (each signed when `signer`
/// is given, the payload bringing the policy); the payload's digest.
fn mirror(
    n: usize,
    latency: Duration,
    signer: Option<&Signer>,
) -> (registry::FakeRegistry, String) {
    let mut b = registry::Builder::new().delay(latency);
    let bodies: Vec<String> = (0..n)
        .map(|i| registry::manifest_body(&format!("component {i}")))
        .collect();
    let tags: Vec<String> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            format!(
                r#"{{"name":"component-{i}","from":{{"kind":"DockerImage","name":"{SOURCE_COMPONENTS}@{}"}}}}"#,
                registry::digest_of(body)
            )
        })
        .collect();
    let refs = format!(
        r#"{{"kind":"ImageStream","apiVersion":"image.openshift.io/v1","metadata":{{"name":"4.21.0"}},"spec":{{"tags":[{}]}}}}"#,
        tags.join(",")
    );
    let metadata = r#"{"kind":"cincinnati-metadata-v0","version":"4.21.0"}"#;
    let policy = signer.map(release_policy).unwrap_or_default();
    let mut files = vec![
        ("release-manifests/image-references", refs.as_str()),
        ("release-manifests/release-metadata", metadata),
    ];
    if signer.is_some() {
        files.push((
            "release-manifests/0000_90_openshift-cluster-image-policy.yaml",
            &policy,
        ));
    }
    let last = tar_gz(&files);
    let config = r#"{"config":{"Labels":{"io.openshift.release":"4.21.0"}}}"#;
    let config_digest = b.blob(RELEASE_REPO, config.as_bytes());
    let last_digest = b.blob(RELEASE_REPO, &last);
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{last_digest}","size":{}}}]}}"#,
        config.len(),
        last.len()
    );
    let payload = registry::digest_of(&manifest);
    b = b.manifest(RELEASE_REPO, None, &manifest);
    if let Some(s) = signer {
        let identity = format!("{SOURCE_RELEASE}:4.21.0-x86_64");
        b = b.signed(s, RELEASE_REPO, &payload, &identity);
    }
    for body in &bodies {
        b = b.manifest(COMPONENT_REPO, None, body);
        if let Some(s) = signer {
            let d = registry::digest_of(body);
            b = b.signed(s, COMPONENT_REPO, &d, &format!("{SOURCE_COMPONENTS}@{d}"));
        }
    }
    (b.start(), payload)
}

/// The IDMS oc-mirror v2 writes, the sources never contacted.
fn idms(host: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-release-0}}\nspec:\n  imageDigestMirrors:\n  - source: {SOURCE_RELEASE}\n    mirrors: [{host}/{RELEASE_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n  - source: {SOURCE_COMPONENTS}\n    mirrors: [{host}/{COMPONENT_REPO}]\n    mirrorSourcePolicy: NeverContactSource\n"
    )
}

/// `runs` runs of upgrade-check at `concurrency`: mean, min, max, requests.
fn measure(
    reg: &registry::FakeRegistry,
    payload: &str,
    dir: &std::path::Path,
    concurrency: &str,
    runs: usize,
) -> (Duration, Duration, Duration, usize) {
    let bin = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
    let mut times = Vec::with_capacity(runs);
    let mut requests = 0;
    for _ in 0..runs {
        let before = reg.log().len();
        let started = Instant::now();
        let out = Command::new(bin)
            .env("HOME", dir)
            .env_remove("REGISTRY_AUTH_FILE")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DOCKER_CONFIG")
            .args(["upgrade-check", "-f"])
            .arg(dir.join("cluster.yaml"))
            .arg("--to-image")
            .arg(format!("{SOURCE_RELEASE}@{payload}"))
            .args(["--probe-concurrency", concurrency, "--cert-dir"])
            .arg(dir.join("certs"))
            .args(["-o", "json"])
            .output()
            .expect("run");
        times.push(started.elapsed());
        assert!(
            out.status.success(),
            "not ready: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        requests = reg.log().len() - before;
    }
    let mean = times.iter().sum::<Duration>() / runs as u32;
    let min = times.iter().min().copied().unwrap_or_default();
    let max = times.iter().max().copied().unwrap_or_default();
    (mean, min, max, requests)
}

fn main() {
    let o = options();
    let key = Signer::new();
    println!(
        "{} components, {} ms per answer, {} runs each",
        o.components,
        o.latency.as_millis(),
        o.runs
    );
    for (label, signer) in [("unsigned", None), ("signed", Some(&key))] {
        let (reg, payload) = mirror(o.components, o.latency, signer);
        let dir = tempfile::tempdir().expect("temp dir");
        let certs = dir.path().join("certs");
        std::fs::create_dir(&certs).expect("certs");
        reg.write_ca(&certs, "mirror");
        std::fs::write(dir.path().join("cluster.yaml"), idms(&reg.host())).expect("objects");
        for concurrency in ["8", "32", "64"] {
            let (mean, min, max, requests) =
                measure(&reg, &payload, dir.path(), concurrency, o.runs);
            println!(
                "{label:>8}, --probe-concurrency {concurrency:>2}: mean {:>7.1} ms, min {:>7.1} ms, max {:>7.1} ms, {requests} requests",
                mean.as_secs_f64() * 1e3,
                min.as_secs_f64() * 1e3,
                max.as_secs_f64() * 1e3
            );
        }
    }
}
