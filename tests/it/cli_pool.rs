//! `--pool` names a pool the cluster has: offline from the input, live from
//! the cluster's MachineConfigPools (read only for a pool other than
//! master and worker).

use crate::support;

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

/// MachineConfig `50-infra-registries` of pool infra in `dir`: its own
/// registries.conf, blocking the ICSP's source.
fn write_infra_registries(dir: &std::path::Path) {
    let own = support::mco::config(
        "50-infra-registries",
        "infra",
        &[(
            "/etc/containers/registries.conf",
            "[[registry]]\nlocation = \"registry.example.com/apps\"\nblocked = true\n",
        )],
    );
    std::fs::write(dir.join("mc.json"), serde_json::to_string(&own).unwrap()).unwrap();
}

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
    write_infra_registries(dir.path());
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

/// Issue 25: `explain --pool infra` explains what the pool's nodes have: the
/// worker's generated registries.conf, unless a MachineConfig of the pool
/// sorting after it writes its own, which is then explained and named.
#[test]
fn issue_25_explain_custom_pool_uses_its_nodes_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pool.yaml"), INFRA_POOL).unwrap();
    std::fs::write(dir.path().join("icsp.yaml"), ICSP).unwrap();
    let image = "registry.example.com/apps/x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let explain = |pool: &str| {
        let out = bin()
            .args(["explain", image, "-o", "json", "--pool", pool, "-f"])
            .arg(dir.path())
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            out.status.code(),
            json,
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    // Without a MachineConfig of its own: the worker's, mirror first.
    let (code, infra, _) = explain("infra");
    assert_eq!(code, Some(0));
    let sources = &infra["candidates"][0]["sources"];
    assert_eq!(
        sources[0]["reference"],
        image.replace("registry.", "mirror.")
    );
    assert_eq!(sources[0]["origins"][0], "ImageContentSourcePolicy/apps");

    write_infra_registries(dir.path());
    let (code, infra, stderr) = explain("infra");
    assert_eq!(
        code,
        Some(1),
        "the source is blocked and nothing mirrors it"
    );
    let candidate = &infra["candidates"][0];
    assert_eq!(
        candidate["sources"].as_array().unwrap().len(),
        1,
        "{candidate}"
    );
    assert_eq!(candidate["sources"][0]["blocked"], true);
    assert_eq!(
        candidate["sources"][0]["origins"][0],
        "MachineConfig/50-infra-registries:/etc/containers/registries.conf:1"
    );
    assert!(
        stderr.contains("MachineConfig/50-infra-registries of pool infra writes /etc/containers/registries.conf after 99-worker-generated-registries: the pool's nodes use its file, explained here"),
        "{stderr}"
    );
    // The worker pool does not select infra's configs.
    let (code, worker, _) = explain("worker");
    assert_eq!(code, Some(0));
    assert_eq!(
        worker["candidates"][0]["sources"][0]["origins"][0],
        "ImageContentSourcePolicy/apps"
    );
}

/// Issue 25: which generated MachineConfig a custom pool's nodes get comes
/// from its `machineConfigSelector`: a pool selecting the master role gets
/// the master's; one selecting no built-in role gets none, said as such.
#[test]
fn issue_25_custom_pool_generated_config_by_selector() {
    let pool = |name: &str, roles: &str| {
        format!(
            "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: {name}\nspec:\n  machineConfigSelector:\n    matchExpressions:\n    - {{key: machineconfiguration.openshift.io/role, operator: In, values: [{roles}]}}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("icsp.yaml"), ICSP).unwrap();
    std::fs::write(
        dir.path().join("cp.yaml"),
        pool("edge-cp", "master, edge-cp"),
    )
    .unwrap();
    std::fs::write(dir.path().join("gpu.yaml"), pool("gpu", "gpu")).unwrap();
    let (code, out, stderr) = render_in(dir.path(), &["--pool", "edge-cp", "-o", "machineconfig"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        out.contains("name: 99-master-generated-registries"),
        "{out}"
    );
    assert!(
        stderr.contains("its nodes get 99-master-generated-registries, the master role's config"),
        "{stderr}"
    );

    let (code, out, stderr) = render_in(dir.path(), &["--pool", "gpu"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        stderr.contains("MachineConfigPool/gpu selects no generated registries MachineConfig: the MCO generates none for a custom pool, and its spec.machineConfigSelector selects none of the master, worker and arbiter roles'"),
        "{stderr}"
    );
    bin()
        .args(["explain", "quay.io/a/b:1", "--pool", "gpu", "-f"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(contains(
            "MachineConfigPool/gpu selects no generated registries MachineConfig",
        ));
}

/// Issue 35: `audit` reads the worker pool's files as `explain` does (one
/// render-and-read-back step): a worker MachineConfig that sorts after the
/// generated one and writes its own registries.conf is what the workloads'
/// nodes pull through. `audit` used to read the generated file alone and
/// call the image mirrored where `explain` said blocked.
#[test]
fn issue_35_audit_and_explain_read_the_same_worker_files() {
    let dir = tempfile::tempdir().unwrap();
    let worker_pool = INFRA_POOL
        .replace("name: infra", "name: worker")
        .replace("[worker, infra]", "[worker]");
    std::fs::write(dir.path().join("pool.yaml"), worker_pool).unwrap();
    std::fs::write(dir.path().join("icsp.yaml"), ICSP).unwrap();
    let own = support::mco::config(
        "99-worker-zz-registries",
        "worker",
        &[(
            "/etc/containers/registries.conf",
            "[[registry]]\nlocation = \"registry.example.com/apps\"\nblocked = true\n",
        )],
    );
    std::fs::write(dir.path().join("mc.json"), own.to_string()).unwrap();
    let image = "registry.example.com/apps/x@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    std::fs::write(
        dir.path().join("pod.yaml"),
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: shop}}\nspec:\n  containers: [{{name: c, image: '{image}'}}]\n"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = bin().args(args).arg("-f").arg(dir.path()).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        (out.status.code(), json, stderr)
    };
    let (_, explained, stderr) = run(&["explain", image, "-o", "json"]);
    let sources = &explained["candidates"][0]["sources"];
    assert_eq!(sources.as_array().unwrap().len(), 1, "{sources}");
    assert_eq!(sources[0]["blocked"], true);
    assert!(stderr.contains("MachineConfig/99-worker-zz-registries of pool worker writes /etc/containers/registries.conf"), "{stderr}");
    let (_, audited, stderr) = run(&["audit", "-A", "-o", "json"]);
    let images = audited["images"].as_array().unwrap();
    assert_eq!(images.len(), 1, "{audited}");
    assert_eq!(images[0]["reference"], image);
    assert_eq!(images[0]["class"], "sourceBlocked", "{audited}");
    assert_eq!(audited["summary"]["mirrored"], 0, "{audited}");
    assert!(stderr.contains("MachineConfig/99-worker-zz-registries of pool worker writes /etc/containers/registries.conf"), "{stderr}");
}
