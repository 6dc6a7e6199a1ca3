//! `--pool` names a pool the cluster has: offline from the input, live from
//! the cluster's MachineConfigPools (read only for a pool other than
//! master and worker).

mod support;

use predicates::str::contains;
use support::bin;

const MUST_GATHER: &str = "tests/fixtures/must-gather";

#[test]
fn issue_14_live_custom_pool_is_checked_against_the_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::apiserver::Builder::openshift()
        .objects_from(MUST_GATHER)
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let kubeconfig = kubeconfig.to_str().unwrap();
    bin()
        .args(["render", "--pool", "infra", "--kubeconfig", kubeconfig])
        .assert()
        .code(2)
        .stderr(contains(
            "error: no MachineConfigPool \"infra\"; the pools are master, worker",
        ));
    assert!(
        server
            .log()
            .iter()
            .any(|r| r.path.contains("machineconfigpools")),
        "the pools were read"
    );
    // master and worker need no read of the pools.
    server.clear_log();
    bin()
        .args(["render", "--pool", "master", "--kubeconfig", kubeconfig])
        .assert()
        .success();
    assert!(
        !server
            .log()
            .iter()
            .any(|r| r.path.contains("machineconfigpools")),
        "no pool read for master"
    );
}
