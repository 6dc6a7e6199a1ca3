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

/// A custom pool `infra` (no built-in label) selecting the worker role's
/// configs and its own.
const INFRA_POOL: &str = r#"apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: infra
spec:
  machineConfigSelector:
    matchExpressions:
    - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, infra]}
"#;

/// An ICSP mirroring one repository.
const ICSP: &str = r#"apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: apps
spec:
  repositoryDigestMirrors:
  - source: registry.example.com/apps
    mirrors: [mirror.example.com/apps]
"#;

fn render_in(dir: &std::path::Path, extra: &[&str]) -> (i32, String, String) {
    let out = bin()
        .args(["render", "-f", dir.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Issue 25: the MCO lists only the built-in pools (`syncImageConfig`,
/// every release from 4.4 on), so `render --pool infra` prints the worker's
/// generated MachineConfig, named as such, and never a
/// `99-infra-generated-registries` the cluster cannot have.
#[test]
fn issue_25_custom_pool_renders_the_workers_generated_machine_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pool.yaml"), INFRA_POOL).unwrap();
    std::fs::write(dir.path().join("icsp.yaml"), ICSP).unwrap();
    let (code, infra, stderr) = render_in(dir.path(), &["--pool", "infra", "-o", "machineconfig"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        infra.contains("name: 99-worker-generated-registries"),
        "{infra}"
    );
    assert!(!infra.contains("99-infra-"), "{infra}");
    assert!(
        stderr.contains("note: the MCO generates no registries MachineConfig for custom pool infra: its nodes get 99-worker-generated-registries, the worker role's config the pool selects, printed here"),
        "{stderr}"
    );
    let (_, worker, worker_err) =
        render_in(dir.path(), &["--pool", "worker", "-o", "machineconfig"]);
    assert_eq!(infra, worker, "the same object as worker's");
    assert!(!worker_err.contains("custom pool"), "{worker_err}");

    let (code, json, _) = render_in(dir.path(), &["--pool", "infra", "-o", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["pool"], "infra");
    assert_eq!(v["generatedPool"], "worker");
    assert_eq!(
        v["machineConfig"]["metadata"]["labels"]["machineconfiguration.openshift.io/role"],
        "worker"
    );
}

/// Issue 25: a MachineConfig of the custom pool writing registries.conf
/// sorts after the worker's generated one: render says the nodes get that
/// file instead.
#[test]
fn issue_25_custom_pool_own_machine_config_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pool.yaml"), INFRA_POOL).unwrap();
    std::fs::write(dir.path().join("icsp.yaml"), ICSP).unwrap();
    let own = support::mco::config(
        "50-infra-registries",
        "infra",
        &[(
            "/etc/containers/registries.conf",
            "[[registry]]\nlocation = \"registry.example.com/apps\"\nblocked = true\n",
        )],
    );
    std::fs::write(
        dir.path().join("mc.json"),
        serde_json::to_string(&own).unwrap(),
    )
    .unwrap();
    let (code, out, stderr) = render_in(
        dir.path(),
        &[
            "--pool",
            "infra",
            "--file",
            "/etc/containers/registries.conf",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(out.contains("mirror.example.com/apps"), "{out}");
    assert!(
        stderr.contains("note: MachineConfig/50-infra-registries of pool infra also writes /etc/containers/registries.conf and sorts after 99-worker-generated-registries: the pool's nodes get its file instead"),
        "{stderr}"
    );
    // The built-in worker pool does not select infra's configs.
    let (_, _, worker_err) = render_in(
        dir.path(),
        &[
            "--pool",
            "worker",
            "--file",
            "/etc/containers/registries.conf",
        ],
    );
    assert!(!worker_err.contains("50-infra-registries"), "{worker_err}");
}

/// Issue 25: live, a custom pool read from the cluster renders as worker.
#[test]
fn issue_25_live_custom_pool_renders_as_worker() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::apiserver::Builder::openshift()
        .objects_from(MUST_GATHER)
        .objects_from_yaml(INFRA_POOL)
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    bin()
        .args(["render", "--pool", "infra", "-o", "machineconfig"])
        .args(["--kubeconfig", kubeconfig.to_str().unwrap()])
        .assert()
        .success()
        .stdout(contains("name: 99-worker-generated-registries"))
        .stderr(contains("custom pool infra"));
}
