//! Test support shared by the integration tests.

pub mod apiserver;
pub mod certs;
pub mod kubeconfig;
pub mod mco;
pub mod node_files;
pub mod proxy;
pub mod registry;

/// The built binary, isolated from the machine's kubeconfig and terminal:
/// no colour, a fixed width, no KUBECONFIG, a HOME without `.kube`.
#[allow(dead_code)]
pub fn bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("kubectl-mirrorpolicy").expect("binary");
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", "/nonexistent-home-for-tests");
    cmd
}
