//! kubectl's client flags (`--server`, `--token`, `--as`, `--as-group`,
//! `--as-uid`, `--insecure-skip-tls-verify`, `--certificate-authority`,
//! `--client-certificate`, `--client-key`, `--tls-server-name`) override
//! the kubeconfig as client-go's clientcmd overrides do; `audit -l`
//! selects workloads by label; errors are one line and, run as
//! `oc-mirrorpolicy`, name `oc` commands. Through the built binary against
//! the fake API server.

use crate::support;

use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

use support::apiserver::{Builder, FakeApiServer, Logged};
use support::bin;
use support::kubeconfig::{ca_line, kubeconfig, write};

const EXAMPLE: &str = "examples/disconnected-cluster";
const AUDIT_CLUSTER: &str = "tests/fixtures/audit-cluster";

/// `list` with this kubeconfig (none when `None`) and these flags: exit
/// code and stderr.
fn list(config: Option<&Path>, flags: &[&str]) -> (Option<i32>, String) {
    let mut cmd = bin();
    if let Some(config) = config {
        cmd.env("KUBECONFIG", config);
    }
    let out = cmd.arg("list").args(flags).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// An address nothing listens on.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("https://{addr}")
}

fn bearer(server: &FakeApiServer) -> Option<String> {
    Some(format!("Bearer {}", server.token))
}

fn all(log: &[Logged], check: impl Fn(&Logged) -> bool) -> bool {
    !log.is_empty() && log.iter().all(check)
}

#[test]
fn issue_14_server_and_token_need_no_kubeconfig() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let ca = write(dir.path(), "ca.crt", &server.ca_pem);
    let url = server.url();
    let (code, stderr) = list(
        None,
        &[
            "-s",
            &url,
            "--token",
            &server.token,
            "--certificate-authority",
            ca.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(all(&server.log(), |l| l.authorization == bearer(&server)));
}

#[test]
fn issue_14_server_keeps_the_ca_and_drops_the_tls_server_name() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    // The kubeconfig's cluster is down and names a server name the
    // certificate does not carry; --server replaces both, the CA stays.
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &dead_url(),
            &format!(
                "{}    tls-server-name: elsewhere.example\n",
                ca_line(&server)
            ),
            &format!("    token: {}\n", server.token),
        ),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(3), "{stderr}");
    let url = server.url();
    let (code, stderr) = list(Some(&config), &["--server", &url]);
    assert_eq!(code, Some(0), "{stderr}");
    // With --server, --tls-server-name given is used: a name the
    // certificate does not carry fails verification.
    let (code, stderr) = list(
        Some(&config),
        &["--server", &url, "--tls-server-name", "elsewhere.example"],
    );
    assert_eq!(code, Some(3), "{stderr}");
}

#[test]
fn issue_14_tls_server_name_is_sent_and_verified() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &ca_line(&server),
            &format!("    token: {}\n", server.token),
        ),
    );
    // An IP address in the URL: no SNI.
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        all(&server.log(), |l| l.sni.is_none()),
        "{:?}",
        server.log()
    );
    server.clear_log();
    let (code, stderr) = list(Some(&config), &["--tls-server-name", "localhost"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        all(&server.log(), |l| l.sni.as_deref() == Some("localhost")),
        "{:?}",
        server.log()
    );
    let (code, stderr) = list(Some(&config), &["--tls-server-name", "nowhere.example"]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("cannot reach the cluster"), "{stderr}");
}

#[test]
fn issue_14_insecure_skip_tls_verify_drops_the_kubeconfig_ca() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let other = Builder::openshift().start();
    let dir = TempDir::new().unwrap();
    // The CA of another server: verification fails.
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &ca_line(&other),
            &format!("    token: {}\n", server.token),
        ),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(3), "{stderr}");
    // client-go clears the CA the flag would conflict with ("specifying a
    // root certificates file with the insecure flag is not allowed").
    for flag in [
        "--insecure-skip-tls-verify",
        "--insecure-skip-tls-verify=true",
    ] {
        let (code, stderr) = list(Some(&config), &[flag]);
        assert_eq!(code, Some(0), "{flag}: {stderr}");
    }
    let (code, stderr) = list(Some(&config), &["--insecure-skip-tls-verify=false"]);
    assert_eq!(code, Some(3), "{stderr}");
}

#[test]
fn issue_14_certificate_authority_replaces_insecure_and_the_ca_data() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let other = Builder::openshift().start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            "    insecure-skip-tls-verify: true\n",
            &format!("    token: {}\n", server.token),
        ),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // With --certificate-authority, the server is verified again (no
    // "insecure flag with a CA" refusal): the wrong CA fails, the right one works.
    let wrong = write(dir.path(), "wrong.crt", &other.ca_pem);
    let (code, stderr) = list(
        Some(&config),
        &["--certificate-authority", wrong.to_str().unwrap()],
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(!stderr.contains("insecure flag"), "{stderr}");
    let right = write(dir.path(), "right.crt", &server.ca_pem);
    let (code, stderr) = list(
        Some(&config),
        &["--certificate-authority", right.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    // A file that does not exist: kubectl's validation message.
    let (code, stderr) = list(
        Some(&config),
        &["--certificate-authority", "/nonexistent/ca.crt"],
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("unable to read certificate-authority /nonexistent/ca.crt for fake due to open /nonexistent/ca.crt: no such file or directory"),
        "{stderr}"
    );
}

#[test]
fn issue_14_token_replaces_the_kubeconfig_credential() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let marker = dir.path().join("plugin-ran");
    // An exec plugin that would fail (and leaves a mark when run).
    let plugin = write(
        dir.path(),
        "plugin.sh",
        &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    );
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &ca_line(&server),
            &format!(
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: sh\n      args: [{}]\n",
                plugin.display()
            ),
        ),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();
    server.clear_log();
    let (code, stderr) = list(Some(&config), &["--token", &server.token]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!marker.exists(), "the exec plugin ran despite --token");
    assert!(all(&server.log(), |l| l.authorization == bearer(&server)));

    // A wrong token in the kubeconfig is replaced.
    let config = write(
        dir.path(),
        "wrong-token",
        &kubeconfig(&server.url(), &ca_line(&server), "    token: stale\n"),
    );
    assert_eq!(list(Some(&config), &[]).0, Some(3));
    let (code, stderr) = list(Some(&config), &["--token", &server.token]);
    assert_eq!(code, Some(0), "{stderr}");

    // Basic auth stays beside it, which kubectl refuses.
    let config = write(
        dir.path(),
        "basic",
        &kubeconfig(
            &server.url(),
            &ca_line(&server),
            "    username: admin\n    password: secret\n",
        ),
    );
    server.clear_log();
    let (code, stderr) = list(Some(&config), &["--token", &server.token]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("error: invalid configuration: more than one authentication method found for tester; found [token basicAuth], only one is allowed"),
        "{stderr}"
    );
    assert!(server.log().is_empty());
}

#[test]
fn issue_14_impersonation_headers_on_every_request() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    let (code, stderr) = list(
        Some(&config),
        &[
            "--as",
            "alice",
            "--as-group",
            "devs",
            "--as-group",
            "system:authenticated",
            "--as-uid",
            "1234",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let want = vec![
        "Impersonate-User: alice".to_string(),
        "Impersonate-Uid: 1234".to_string(),
        "Impersonate-Group: devs".to_string(),
        "Impersonate-Group: system:authenticated".to_string(),
    ];
    let log = server.log();
    assert!(all(&log, |l| l.impersonation == want), "{log:?}");
    assert!(all(&log, |l| l.authorization == bearer(&server)));

    // Without --as, nothing of the kind is sent.
    server.clear_log();
    assert_eq!(list(Some(&config), &[]).0, Some(0));
    assert!(all(&server.log(), |l| l.impersonation.is_empty()));

    // Groups without a user: kubectl's validation error, nothing sent.
    server.clear_log();
    let (code, stderr) = list(Some(&config), &["--as-group", "devs"]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "requesting uid, groups or user-extra for tester without impersonating a user"
        ),
        "{stderr}"
    );
    assert!(server.log().is_empty());
}

#[test]
fn issue_14_impersonation_from_the_kubeconfig_user() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &ca_line(&server),
            &format!(
                "    token: {}\n    as: bob\n    as-groups: [ops]\n",
                server.token
            ),
        ),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let want = vec![
        "Impersonate-User: bob".to_string(),
        "Impersonate-Group: ops".to_string(),
    ];
    assert!(all(&server.log(), |l| l.impersonation == want));
    // The flags win.
    server.clear_log();
    let (code, _) = list(Some(&config), &["--as", "carol"]);
    assert_eq!(code, Some(0));
    let want = vec![
        "Impersonate-User: carol".to_string(),
        "Impersonate-Group: ops".to_string(),
    ];
    assert!(all(&server.log(), |l| l.impersonation == want));
}

#[test]
fn issue_14_client_certificate_and_key_flags() {
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .client_certificates()
        .start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(&server.url(), &ca_line(&server), "    {}\n"),
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    server.clear_log();
    let cert = write(dir.path(), "client.crt", &server.client_cert_pem);
    let key = write(dir.path(), "client.key", &server.client_key_pem);
    let (code, stderr) = list(
        Some(&config),
        &[
            "--client-certificate",
            cert.to_str().unwrap(),
            "--client-key",
            key.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let log = server.log();
    assert!(
        all(&log, |l| l.client_certificate && l.authorization.is_none()),
        "{log:?}"
    );
    // A certificate without its key: kubectl's validation message.
    let (code, stderr) = list(
        Some(&config),
        &["--client-certificate", cert.to_str().unwrap()],
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("client-key-data or client-key must be specified for tester to use the clientCert authentication method."),
        "{stderr}"
    );
}

#[test]
fn issue_14_broken_kubeconfig_is_one_line() {
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: https://127.0.0.1:6443\n    insecure-skip-tls-verify: maybe\n",
    );
    let (code, stderr) = list(Some(&config), &[]);
    assert_eq!(code, Some(3), "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(
        lines[0],
        format!(
            "error: cannot read kubeconfig {}:7:31: invalid boolean",
            config.display()
        )
    );
    assert!(lines[1].starts_with("hint: "), "{stderr}");
    assert!(!stderr.contains("-->"), "{stderr}");
}

/// The binary under the name `oc-mirrorpolicy` (a link to it).
fn oc() -> (TempDir, assert_cmd::Command) {
    let dir = TempDir::new().unwrap();
    let link = dir.path().join("oc-mirrorpolicy");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"), &link)
        .unwrap();
    let mut cmd = assert_cmd::Command::new(&link);
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", "/nonexistent-home-for-tests");
    (dir, cmd)
}

#[test]
fn issue_14_run_as_oc_hints_name_oc_commands() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    let (_link, mut cmd) = oc();
    let out = cmd
        .env("KUBECONFIG", &config)
        .args(["list", "--context", "nope"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("(oc config get-contexts lists them)"),
        "{stderr}"
    );
    assert!(!stderr.contains("kubectl"), "{stderr}");
    // Run as kubectl-mirrorpolicy, the same hint names kubectl.
    let out = bin()
        .env("KUBECONFIG", &config)
        .args(["list", "--context", "nope"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("(kubectl config get-contexts lists them)")
    );
}

#[test]
fn issue_14_run_as_oc_findings_and_warnings_name_oc_commands() {
    let icsp = "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: legacy\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/team\n    mirrors:\n    - mirror.example.com/team\n";
    let dir = TempDir::new().unwrap();
    let file = write(dir.path(), "icsp.yaml", icsp);
    let file = file.to_str().unwrap();
    for (args, stream) in [
        (vec!["lint", "-f", file], "stdout"),
        (
            vec!["explain", "quay.io/team/app@sha256:0e2f4a6b8c0d2e5d2c7e9a1b3f4c6d8e0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d", "-f", file],
            "stdout",
        ),
    ] {
        let (_link, mut cmd) = oc();
        let out = cmd.args(&args).output().unwrap();
        let text = String::from_utf8_lossy(if stream == "stdout" {
            &out.stdout
        } else {
            &out.stderr
        })
        .into_owned();
        assert!(text.contains("(oc mirrorpolicy migrate-icsp)"), "{args:?}: {text}");
        assert!(!text.contains("kubectl mirrorpolicy"), "{args:?}: {text}");
        let out = bin().args(&args).output().unwrap();
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("(kubectl mirrorpolicy migrate-icsp)"),
            "{args:?}"
        );
    }
}

/// Workloads with labels, for `audit -l`.
const LABELLED: &str = "apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    labels: {app: web, tier: frontend}
  spec:
    template:
      spec:
        containers:
        - name: app
          image: registry.example.com/apps/web:2.1
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: db
    namespace: shop
    labels: {app: db, tier: backend}
  spec:
    template:
      spec:
        containers:
        - name: db
          image: registry.example.com/apps/db:15
- apiVersion: v1
  kind: Pod
  metadata:
    name: debug
    namespace: shop
  spec:
    containers:
    - name: shell
      image: registry.example.com/tools/shell:1
";

fn audited_objects(out: &std::process::Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut objects: Vec<String> = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["objects"].as_array().unwrap().clone())
        .map(|o| o.as_str().unwrap().to_string())
        .collect();
    objects.sort();
    objects.dedup();
    objects
}

#[test]
fn issue_14_audit_selector_offline() {
    let dir = TempDir::new().unwrap();
    let workloads = write(dir.path(), "workloads.yaml", LABELLED);
    let workloads = workloads.to_str().unwrap();
    for (selector, want) in [
        ("app=web", vec!["Deployment/shop/web"]),
        ("app==web", vec!["Deployment/shop/web"]),
        (
            "tier!=frontend",
            vec!["Deployment/shop/db", "Pod/shop/debug"],
        ),
        (
            "app in (web,db)",
            vec!["Deployment/shop/db", "Deployment/shop/web"],
        ),
        (
            "app notin (web)",
            vec!["Deployment/shop/db", "Pod/shop/debug"],
        ),
        ("app", vec!["Deployment/shop/db", "Deployment/shop/web"]),
        ("!app", vec!["Pod/shop/debug"]),
        ("app,tier=backend", vec!["Deployment/shop/db"]),
    ] {
        let out = bin()
            .args([
                "audit", "-f", EXAMPLE, "-f", workloads, "-o", "json", "-l", selector,
            ])
            .output()
            .unwrap();
        assert_eq!(audited_objects(&out), want, "{selector}");
    }
    let out = bin()
        .args([
            "audit",
            "-f",
            EXAMPLE,
            "-f",
            workloads,
            "--selector",
            "app=none",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("matching -l \"app=none\""));
}

#[test]
fn issue_14_audit_malformed_selector_is_exit_2() {
    for (selector, message) in [
        (
            "app in",
            "unable to parse requirement: found '' expected: '('",
        ),
        ("app=web,", "found '', expected: identifier after ','"),
        (
            "a b",
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
        ),
    ] {
        let out = bin()
            .args(["audit", "-f", AUDIT_CLUSTER, "-l", selector])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{selector}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "error: invalid label selector {selector:?} (-l): {message}\n"
            )),
            "{selector}: {stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn issue_14_audit_selector_live_is_sent_as_label_selector() {
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .objects_from_yaml(LABELLED)
        .start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    let out = bin()
        .env("KUBECONFIG", &config)
        .args(["audit", "-A", "-o", "json", "-l", "tier in (backend)"])
        .output()
        .unwrap();
    assert_eq!(audited_objects(&out), vec!["Deployment/shop/db"]);
    let log = server.log();
    let selected: Vec<&Logged> = log
        .iter()
        .filter(|l| l.query.contains_key("labelSelector"))
        .collect();
    // Every workload list and only those carry it.
    for path in [
        "/api/v1/pods",
        "/apis/apps/v1/deployments",
        "/apis/operators.coreos.com/v1alpha1/clusterserviceversions",
    ] {
        assert!(
            selected
                .iter()
                .any(|l| l.path == path && l.query["labelSelector"] == "tier in (backend)"),
            "{path}: {log:?}"
        );
    }
    assert!(selected
        .iter()
        .all(|l| !l.path.contains("openshift.io/v1/")));
    // A malformed selector is refused before anything is sent.
    server.clear_log();
    let out = bin()
        .env("KUBECONFIG", &config)
        .args(["audit", "-A", "-l", "tier in"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(server.log().is_empty());
}
