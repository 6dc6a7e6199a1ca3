//! The live path: the built binary against the fake API server
//! (tests/it/support/apiserver.rs) over TLS with a generated kubeconfig.
//!
//! Parity: every command gives the same output live as with `-f` on the
//! same objects. Then the cluster errors (absent CRDs, 403, 401, timeouts,
//! unreachable, server failures), paging and kubeconfig resolution.

use crate::support;

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use support::apiserver::{Builder, FakeApiServer, Fault, Logged};

const EXAMPLE: &str = "examples/disconnected-cluster";
const MUST_GATHER: &str = "tests/fixtures/must-gather";

use support::bin;

/// A running server and a kubeconfig for it.
struct Live {
    server: FakeApiServer,
    _dir: TempDir,
    kubeconfig: PathBuf,
}

impl Live {
    fn new(builder: Builder) -> Self {
        let server = builder.start();
        let dir = TempDir::new().expect("temp dir");
        let kubeconfig = server.write_kubeconfig(dir.path());
        Self {
            server,
            _dir: dir,
            kubeconfig,
        }
    }

    fn of(dir: &str) -> Self {
        Self::new(Builder::openshift().objects_from(dir))
    }

    fn cmd(&self) -> Command {
        let mut cmd = bin();
        cmd.env("KUBECONFIG", &self.kubeconfig);
        cmd
    }

    fn lists(&self) -> Vec<Logged> {
        self.server
            .log()
            .into_iter()
            .filter(|l| l.method == "GET")
            .collect()
    }
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// The same command, live and with `-f DIR`: same stdout.
/// Only where objects were read differs: a line `"file": ...` (lint's
/// findings name the file, or the resource and server listed).
fn assert_parity(live: &Live, dir: &str, args: &[&str]) {
    let without_file = |text: String| {
        text.lines()
            .filter(|l| !l.trim_start().starts_with("\"file\": "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let offline = without_file(stdout_of(bin().args(args).args(["-f", dir])));
    let online = without_file(stdout_of(live.cmd().args(args)));
    assert_eq!(online, offline, "live and -f {dir} differ for {args:?}");
    assert!(!online.is_empty(), "{args:?} printed nothing");
}

#[test]
fn explain_list_render_match_the_files() {
    for dir in [EXAMPLE, MUST_GATHER] {
        let live = Live::of(dir);
        for args in [
            &["explain", "registry.redhat.io/rhel9/support-tools:latest"][..],
            &[
                "explain",
                "quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                "-o",
                "json",
            ],
            &["explain", "ubi9/ubi", "--short-name-mode", "disabled", "-o", "yaml"],
            &["list"],
            &["list", "-o", "json"],
            &["render"],
            &["render", "--pool", "master", "-o", "machineconfig"],
            &["render", "-o", "json"],
            &["lint", "-o", "json"],
        ] {
            assert_parity(&live, dir, args);
        }
    }
}

/// `diff` live and with `-f`: same stdout and exit code. The example's
/// MachineConfigs are in sync (its rendered configs merge the base
/// MachineConfigs, whose policy.json the generated ones do not all carry),
/// but the daemon of one worker reports its registries.conf changed on
/// disk (issue 15), so only the policy.json comparison is clean; the
/// must-gather's generated MachineConfig is behind its CRs.
#[test]
fn diff_matches_the_files() {
    for (dir, drift) in [(EXAMPLE, 1), (MUST_GATHER, 1)] {
        let live = Live::of(dir);
        for args in [
            &["diff"][..],
            &["diff", "-o", "json"],
            &["diff", "--pool", "worker"],
            &["diff", "--file", "/etc/containers/policy.json"],
        ] {
            let code = if dir == EXAMPLE && args.contains(&"--file") {
                0
            } else {
                drift
            };
            let offline = bin().args(args).args(["-f", dir]).output().unwrap();
            let online = live.cmd().args(args).output().unwrap();
            assert_eq!(offline.status.code(), Some(code), "{dir} {args:?}");
            assert_eq!(online.status.code(), Some(code), "{dir} {args:?}");
            assert_eq!(
                String::from_utf8(online.stdout).unwrap(),
                String::from_utf8(offline.stdout).unwrap(),
                "live and -f {dir} differ for {args:?}"
            );
        }
    }
}

#[test]
fn explain_with_namespace_matches_the_files_and_lists_one_namespace() {
    let live = Live::of(EXAMPLE);
    assert_parity(
        &live,
        EXAMPLE,
        &[
            "explain",
            "mirror.corp.example.com:5000/payments/api:v2",
            "-n",
            "payments",
        ],
    );
    let paths: Vec<String> = live.lists().into_iter().map(|l| l.path).collect();
    assert!(
        paths.contains(
            &"/apis/config.openshift.io/v1/namespaces/payments/imagepolicies".to_string()
        ),
        "{paths:?}"
    );
    assert!(
        !paths.contains(&"/apis/config.openshift.io/v1/imagepolicies".to_string()),
        "{paths:?}"
    );
}

#[test]
fn one_list_per_resource_and_no_discovery() {
    let live = Live::of(EXAMPLE);
    stdout_of(
        live.cmd()
            .args(["explain", "registry.redhat.io/ubi9/ubi:latest"]),
    );
    let mut paths: Vec<String> = live.lists().into_iter().map(|l| l.path).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "/apis/config.openshift.io/v1/clusterimagepolicies",
            "/apis/config.openshift.io/v1/clusterversions",
            "/apis/config.openshift.io/v1/imagedigestmirrorsets",
            "/apis/config.openshift.io/v1/imagepolicies",
            "/apis/config.openshift.io/v1/images",
            "/apis/config.openshift.io/v1/imagetagmirrorsets",
            "/apis/config.openshift.io/v1alpha1/clusterimagepolicies",
            "/apis/config.openshift.io/v1alpha1/imagepolicies",
            "/apis/operator.openshift.io/v1alpha1/imagecontentsourcepolicies",
        ]
    );
    assert!(live.server.log().iter().all(|l| !l.writes()));
}

#[test]
fn reads_are_concurrent() {
    // Each answer is held back 300 ms: a client that waits for one list
    // before sending the next never has two requests at the server.
    let live = Live::new(
        Builder::openshift()
            .objects_from(EXAMPLE)
            .latency(Duration::from_millis(300)),
    );
    stdout_of(live.cmd().args(["list"]));
    assert_eq!(live.lists().len(), 9);
    assert!(
        live.server.max_in_flight() > 1,
        "requests were sent one after another"
    );
}

#[test]
fn paging_reads_every_page() {
    let live = Live::of(EXAMPLE);
    let paged = stdout_of(live.cmd().args(["list", "-o", "json", "--chunk-size", "1"]));
    let continued = live
        .lists()
        .iter()
        .filter(|l| l.query.contains_key("continue"))
        .count();
    assert!(continued >= 1, "no continue request: {:?}", live.lists());
    assert!(live
        .lists()
        .iter()
        .all(|l| l.query.get("limit").map(String::as_str) == Some("1")));
    let whole = stdout_of(live.cmd().args(["list", "-o", "json", "--chunk-size", "0"]));
    assert_eq!(paged, whole);
}

#[test]
fn a_resource_without_crd_is_absent_not_fatal() {
    let live = Live::new(
        Builder::openshift()
            .objects_from(EXAMPLE)
            .without("imagetagmirrorsets.config.openshift.io")
            .without("clusterimagepolicies.config.openshift.io/v1"),
    );
    live.cmd()
        .args(["-v", "list"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "imagetagmirrorsets.config.openshift.io is not served by the cluster (no such CRD): read as none",
        ))
        .stdout(predicate::str::contains("rhel-tags").not());
    // ClusterImagePolicy falls back to v1alpha1: the policy is still there.
    let offline = stdout_of(bin().args([
        "render",
        "--file",
        "/etc/containers/policy.json",
        "-f",
        EXAMPLE,
    ]));
    let online = stdout_of(
        live.cmd()
            .args(["render", "--file", "/etc/containers/policy.json"]),
    );
    assert_eq!(online, offline);
}

#[test]
fn plain_kubernetes_has_no_mirror_configuration() {
    let live = Live::new(Builder::vanilla());
    live.cmd()
        .args(["explain", "nginx"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "no OpenShift mirror configuration",
        ))
        .stderr(predicate::str::contains(
            "imagecontentsourcepolicies.operator.openshift.io",
        ));
}

#[test]
fn forbidden_reads_name_the_rbac_rule() {
    let live = Live::new(
        Builder::openshift()
            .objects_from(EXAMPLE)
            .forbid("list", "imagedigestmirrorsets")
            .forbid("list", "imagepolicies"),
    );
    live.cmd()
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot list imagedigestmirrorsets.config.openshift.io at the cluster scope; a ClusterRole with the rule {apiGroups: [\"config.openshift.io\"], resources: [\"imagedigestmirrorsets\"], verbs: [\"list\"]} grants it",
        ))
        .stderr(predicate::str::contains("cannot list imagepolicies.config.openshift.io"))
        .stderr(predicate::str::contains("system:serviceaccount:ci:reader"))
        .stdout("");
    live.cmd()
        .args(["explain", "nginx", "-n", "payments"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot list imagepolicies.config.openshift.io in namespace payments; a Role there",
        ));
}

#[test]
fn wrong_token_is_unauthorized() {
    let live = Live::of(EXAMPLE);
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("config");
    std::fs::write(&path, live.server.kubeconfig_with("wrong", "default")).unwrap();
    bin()
        .env("KUBECONFIG", &path)
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "refused the credentials (401 Unauthorized)",
        ))
        .stderr(predicate::str::contains("hint: log in again"));
}

#[test]
fn slow_server_times_out() {
    let live = Live::new(
        Builder::openshift()
            .objects_from(EXAMPLE)
            .latency(Duration::from_secs(3)),
    );
    live.cmd()
        .args(["list", "--request-timeout", "300ms"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("did not answer GET"))
        .stderr(predicate::str::contains("within 300ms"))
        .stderr(predicate::str::contains("--request-timeout"));
}

/// Issue 35: one duration formatter. A timeout with a fraction of a
/// second is said as `migrate-icsp` says its `--timeout` (`1.5s`), where
/// the API client's copy printed `1500ms`.
#[test]
fn issue_35_a_fractional_timeout_is_said_as_everywhere_else() {
    let live = Live::new(
        Builder::openshift()
            .objects_from(EXAMPLE)
            .latency(Duration::from_secs(4)),
    );
    live.cmd()
        .args(["list", "--request-timeout", "1500ms"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("within 1.5s"));
}

#[test]
fn bad_request_timeout_is_a_usage_error() {
    let live = Live::of(EXAMPLE);
    live.cmd()
        .args(["list", "--request-timeout", "soon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid request timeout \"soon\""));
    assert!(live.server.log().is_empty());
}

#[test]
fn unreachable_server() {
    let live = Live::of(EXAMPLE);
    let kubeconfig = std::fs::read_to_string(&live.kubeconfig).unwrap();
    let addr = live.server.addr;
    drop(live.server);
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("config");
    std::fs::write(&path, kubeconfig).unwrap();
    bin()
        .env("KUBECONFIG", &path)
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(format!(
            "cannot reach the cluster at https://{addr}"
        )))
        .stderr(predicate::str::contains("refused"));
}

#[test]
fn untrusted_certificate_is_unreachable() {
    let live = Live::of(EXAMPLE);
    let other = Builder::openshift().start();
    // The right server, with another server's CA.
    let config = live
        .server
        .kubeconfig()
        .replace(&b64(&live.server.ca_pem), &b64(&other.ca_pem));
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("config");
    std::fs::write(&path, config).unwrap();
    bin()
        .env("KUBECONFIG", &path)
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("cannot reach the cluster"))
        .stderr(predicate::str::contains("certificate"));
}

fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

#[test]
fn server_failures_are_cluster_errors() {
    let live = Live::new(Builder::openshift().objects_from(EXAMPLE).fault(
        None,
        "/imagedigestmirrorsets",
        0,
        None,
        Fault::Status(500),
    ));
    live.cmd()
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "reading /apis/config.openshift.io/v1/imagedigestmirrorsets?limit=500 from",
        ))
        .stderr(predicate::str::contains("500"));
    let live = Live::new(Builder::openshift().objects_from(EXAMPLE).fault(
        None,
        "/images",
        0,
        None,
        Fault::Reset,
    ));
    live.cmd().args(["list"]).assert().code(3);
}

#[test]
fn kubeconfig_resolution_like_kubectl() {
    let live = Live::of(EXAMPLE);
    let dir = TempDir::new().unwrap();
    // KUBECONFIG lists a missing file (ignored) and a file whose current
    // context points elsewhere; --context picks the fake.
    let broken = dir.path().join("first");
    std::fs::write(
        &broken,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: nowhere\n  cluster:\n    server: https://127.0.0.1:1\nusers:\n- name: nobody\n  user:\n    token: x\ncontexts:\n- name: nowhere\n  context:\n    cluster: nowhere\n    user: nobody\ncurrent-context: nowhere\n",
    )
    .unwrap();
    let missing = dir.path().join("missing");
    let joined = std::env::join_paths([&missing, &broken, &live.kubeconfig]).unwrap();
    bin()
        .env("KUBECONFIG", &joined)
        .args(["list"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("https://127.0.0.1:1"));
    let offline = stdout_of(bin().args(["list", "-f", EXAMPLE]));
    assert_eq!(
        stdout_of(
            bin()
                .env("KUBECONFIG", &joined)
                .args(["list", "--context", "fake"])
        ),
        offline
    );
    // --kubeconfig wins over KUBECONFIG.
    assert_eq!(
        stdout_of(
            bin()
                .env("KUBECONFIG", &broken)
                .args(["list", "--kubeconfig"])
                .arg(&live.kubeconfig)
        ),
        offline
    );
    bin()
        .env("KUBECONFIG", &live.kubeconfig)
        .args(["list", "--context", "nope"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("nope"));
    bin()
        .args(["list", "--kubeconfig", "/nonexistent/kubeconfig"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("does not exist"));
}

#[test]
fn no_cluster_configured() {
    bin()
        .args(["explain", "nginx"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("no cluster configured"))
        .stderr(predicate::str::contains("-f FILE|FOLDER"));
}

#[test]
fn files_never_contact_the_cluster() {
    let live = Live::of(EXAMPLE);
    stdout_of(live.cmd().args(["list", "-f", EXAMPLE]));
    stdout_of(live.cmd().args([
        "explain",
        "quay.io/x/y:1",
        "--registries-conf",
        "examples/node/registries.conf",
    ]));
    assert!(live.server.log().is_empty(), "{:?}", live.server.log());
}

#[test]
fn discovery_documents_are_served() {
    // The plugin makes no discovery request, but the fake serves them so
    // other clients (kubectl itself) see a coherent server.
    let live = Live::new(Builder::openshift().without("imagetagmirrorsets.config.openshift.io"));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let body = runtime.block_on(async {
        let config = kube::Config::from_custom_kubeconfig(
            kube::config::Kubeconfig::from_yaml(&live.server.kubeconfig()).unwrap(),
            &kube::config::KubeConfigOptions::default(),
        )
        .await
        .unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let groups = client
            .request_text(http::Request::get("/apis").body(Vec::new()).unwrap())
            .await
            .unwrap();
        let config_v1 = client
            .request_text(
                http::Request::get("/apis/config.openshift.io/v1")
                    .body(Vec::new())
                    .unwrap(),
            )
            .await
            .unwrap();
        (groups, config_v1)
    });
    assert!(
        body.0.contains("\"name\":\"config.openshift.io\""),
        "{}",
        body.0
    );
    assert!(body.1.contains("imagedigestmirrorsets"), "{}", body.1);
    assert!(!body.1.contains("imagetagmirrorsets"), "{}", body.1);
}
