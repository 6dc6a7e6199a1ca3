//! The real `kubectl` finds the binary as a plugin and runs it as
//! `kubectl mirrorpolicy`: offline on node files, and against the fake API
//! server through KUBECONFIG and kubectl's own global flags.

mod support;

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
