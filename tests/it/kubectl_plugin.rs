//! The real `kubectl` finds the binary as a plugin and runs it as
//! `kubectl mirrorpolicy`: offline on node files, and against the fake API
//! server through KUBECONFIG and kubectl's own global flags.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

fn path_with_plugin() -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-mirrorpolicy"));
    let dir = bin.parent().expect("binary folder").display().to_string();
    format!("{dir}:{}", std::env::var("PATH").unwrap_or_default())
}

fn kubectl(args: &[&str]) -> std::process::Output {
    Command::new("kubectl")
        .args(args)
        .env("PATH", path_with_plugin())
        .env("NO_COLOR", "1")
        // No cluster is contacted; keep kubectl away from any real config.
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("kubectl is installed")
}

#[test]
fn kubectl_lists_the_plugin() {
    let out = kubectl(&["plugin", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.ends_with("/kubectl-mirrorpolicy")),
        "stdout: {text}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn kubectl_runs_the_plugin() {
    let out = kubectl(&[
        "mirrorpolicy",
        "explain",
        "registry.redhat.io/rhel9/support-tools:latest",
        "--registries-conf",
        "examples/node/registries.conf",
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["candidates"][0]["sources"][0]["reference"],
        "mirror.corp.example.com:5000/rhel9-tags/support-tools:latest"
    );
    let help = kubectl(&["mirrorpolicy", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: kubectl mirrorpolicy"));
}

/// kubectl passes its environment (KUBECONFIG) and the plugin's arguments
/// through; the plugin reads the cluster itself.
#[test]
fn kubectl_runs_the_plugin_against_a_cluster() {
    let server = support::apiserver::Builder::openshift()
        .objects_from("examples/disconnected-cluster")
        .start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let out = Command::new("kubectl")
        .args([
            "mirrorpolicy",
            "explain",
            "registry.redhat.io/rhel9/support-tools:latest",
            "--context",
            "fake",
            "-o",
            "json",
        ])
        .env("PATH", path_with_plugin())
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .expect("kubectl is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        v["candidates"][0]["sources"][0]["reference"],
        "mirror.corp.example.com:5000/rhel9-tags/support-tools:latest"
    );
    let lists = server.log().iter().filter(|l| l.method == "GET").count();
    assert_eq!(lists, 9, "{:?}", server.log());

    // A forbidden read comes back through kubectl with exit code 3.
    let denied = support::apiserver::Builder::openshift()
        .forbid("list", "imagecontentsourcepolicies")
        .start();
    let kubeconfig = denied.write_kubeconfig(dir.path());
    let out = Command::new("kubectl")
        .args(["mirrorpolicy", "list"])
        .env("PATH", path_with_plugin())
        .env("NO_COLOR", "1")
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .expect("kubectl is installed");
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("cannot list imagecontentsourcepolicies.operator.openshift.io"));
}

/// A kubeconfig for `server` trusting `roots_pem` as its
/// `certificate-authority-data`.
fn kubeconfig_trusting(
    server: &support::apiserver::FakeApiServer,
    roots_pem: &str,
    path: &std::path::Path,
) {
    use base64::Engine;
    let ca = base64::engine::general_purpose::STANDARD.encode(roots_pem);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\nusers:\n- name: tester\n  user:\n    token: {}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\ncurrent-context: fake\n",
        server.url(),
        server.token
    );
    std::fs::write(path, text).unwrap();
}

/// issue 22: the tool trusts an API server exactly when the real kubectl
/// (Go's crypto/x509) does, over generated certificate shapes: a leaf
/// pinned as its own CA, a self-signed `CA:TRUE` leaf, intermediates,
/// wrong names, expired leaves, unrelated CAs.
#[test]
fn issue_22_api_server_trust_agrees_with_kubectl() {
    use support::certs::{shapes, verdict_of, Verdict};
    let dir = tempfile::tempdir().unwrap();
    for shape in shapes() {
        let server = support::apiserver::Builder::openshift()
            .serving(shape.chain.clone(), shape.key_pkcs8.clone())
            .start();
        let kubeconfig = dir.path().join("kubeconfig");
        kubeconfig_trusting(&server, &shape.roots_pem, &kubeconfig);
        let theirs = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args([
                "get",
                "--raw",
                "/apis/config.openshift.io/v1/imagedigestmirrorsets",
            ])
            .env("HOME", dir.path())
            .env_remove("KUBERNETES_SERVICE_HOST")
            .output()
            .expect("kubectl is installed");
        let theirs_text = String::from_utf8_lossy(&theirs.stderr).into_owned();
        let kubectl = if theirs.status.success() {
            Some(Verdict::Accepted)
        } else {
            verdict_of(&theirs_text)
        };
        let ours = support::bin()
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(["list", "-o", "json"])
            .output()
            .unwrap();
        let ours_text = String::from_utf8_lossy(&ours.stderr).into_owned();
        let tool = match ours.status.code() {
            Some(0) => Some(Verdict::Accepted),
            Some(3) => verdict_of(&ours_text),
            _ => None,
        };
        assert_eq!(
            kubectl,
            Some(shape.go),
            "{}: kubectl said {theirs_text}",
            shape.name
        );
        assert_eq!(tool, kubectl, "{}: the tool said {ours_text}", shape.name);
        if shape.go == Verdict::UnknownAuthority {
            assert!(
                ours_text.contains("roots tried: the kubeconfig's certificate-authority-data (CN="),
                "{}: {ours_text}",
                shape.name
            );
        }
    }
}
