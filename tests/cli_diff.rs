//! `diff` through the binary on fixture clusters built from the tool's own
//! render (the generated MachineConfig), rendered MachineConfigs that also
//! carry other files, pools and nodes: in sync, CRs ahead of the MCO, a
//! pool mid-update, a paused pool, CRs the MCO refuses, a user
//! MachineConfig overriding registries.conf; and `--with` impacts.

mod support;

use std::path::Path;

use predicates::prelude::*;
use serde_json::{json, Value};
use tempfile::TempDir;

use support::bin;

const M1: &str = "mirror.corp.example.com:5000/apps";
const M2: &str = "backup.corp.example.com/apps";

/// The mirror CRs: IDMS `apps` with these mirrors, written at `created`.
fn crs(mirrors: &[&str], created: &str, search: &[&str]) -> Vec<Value> {
    vec![
        json!({"apiVersion": "config.openshift.io/v1", "kind": "Image",
            "metadata": {"name": "cluster", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"registrySources": {"containerRuntimeSearchRegistries": search}}}),
        json!({"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet",
            "metadata": {"name": "apps", "creationTimestamp": created},
            "spec": {"imageDigestMirrors": [{"source": "registry.example.com/apps", "mirrors": mirrors}]}}),
    ]
}

fn write(dir: &Path, name: &str, objects: &[Value]) {
    std::fs::write(
        dir.join(name),
        serde_json::to_string_pretty(
            &json!({"apiVersion": "v1", "kind": "List", "items": objects}),
        )
        .unwrap(),
    )
    .unwrap();
}

/// The generated MachineConfig the tool renders from `objects`.
fn generated(objects: &[Value], created: &str) -> Value {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "crs.json", objects);
    let out = bin()
        .args(["render", "-o", "json", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut mc = serde_json::from_slice::<Value>(&out.stdout).unwrap()["machineConfig"].clone();
    mc["metadata"]["creationTimestamp"] = json!(created);
    mc
}

/// A rendered config: a kubelet file, then the generated files, then `extra`.
fn rendered(name: &str, generated: &Value, extra: &[Value]) -> Value {
    let mut files = vec![json!({"path": "/etc/kubernetes/kubelet.conf", "mode": 420,
        "contents": {"source": "data:,kind%3A%20KubeletConfiguration%0A"}})];
    files.extend(
        generated["spec"]["config"]["storage"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .cloned(),
    );
    files.extend(extra.iter().cloned());
    json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
        "metadata": {"name": name},
        "spec": {"config": {"ignition": {"version": "3.4.0"}, "storage": {"files": files}}}})
}

fn pool(target: &str, count: i64, updated: i64, paused: bool) -> Value {
    let updating = if updated < count { "True" } else { "False" };
    json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
        "metadata": {"name": "worker", "labels": {"machineconfiguration.openshift.io/mco-built-in": ""}},
        "spec": {"paused": paused, "configuration": {"name": target}},
        "status": {"configuration": {"name": target}, "machineCount": count,
            "updatedMachineCount": updated,
            "conditions": [{"type": "Updating", "status": updating}]}})
}

fn node(name: &str, current: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "annotations": {
        "machineconfiguration.openshift.io/currentConfig": current,
        "machineconfiguration.openshift.io/desiredConfig": current,
        "machineconfiguration.openshift.io/state": "Done"}}})
}

/// A cluster whose CRs, generated MachineConfig, target and nodes all agree.
fn in_sync() -> (TempDir, Vec<Value>) {
    let dir = TempDir::new().unwrap();
    let crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&crs, "2026-05-01T10:00:05Z");
    let mut all = crs.clone();
    all.push(gen.clone());
    all.push(rendered("rendered-worker-aaaa", &gen, &[]));
    all.push(pool("rendered-worker-aaaa", 2, 2, false));
    all.push(node("worker-0", "rendered-worker-aaaa"));
    all.push(node("worker-1", "rendered-worker-aaaa"));
    write(dir.path(), "cluster.json", &all);
    (dir, all)
}

/// Two mirrors now; the nodes: worker-0 and worker-1 on the new config,
/// worker-2 still on the old one.
fn mid_update(paused: bool) -> TempDir {
    let dir = TempDir::new().unwrap();
    let old_crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let new_crs = crs(&[M1, M2], "2026-05-02T10:00:00Z", &["registry.example.com"]);
    let old_gen = generated(&old_crs, "2026-05-01T10:00:05Z");
    let new_gen = generated(&new_crs, "2026-05-02T10:00:05Z");
    let mut all = new_crs;
    all.push(new_gen.clone());
    all.push(rendered("rendered-worker-aaaa", &old_gen, &[]));
    all.push(rendered("rendered-worker-bbbb", &new_gen, &[]));
    all.push(pool("rendered-worker-bbbb", 3, 2, paused));
    all.push(node("worker-0", "rendered-worker-bbbb"));
    all.push(node("worker-1", "rendered-worker-bbbb"));
    all.push(node("worker-2", "rendered-worker-aaaa"));
    write(dir.path(), "cluster.json", &all);
    dir
}

fn run(dir: &Path, extra: &[&str]) -> (i32, String) {
    let out = bin()
        .args(["diff", "-f"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(code <= 1, "{}", String::from_utf8_lossy(&out.stderr));
    (code, String::from_utf8(out.stdout).unwrap())
}

#[test]
fn in_sync_is_exit_0() {
    let (dir, _) = in_sync();
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("pool worker: updated 2/2 (target rendered-worker-aaaa)"),
        "{out}"
    );
    assert!(
        out.contains("no drift: the CRs, the MachineConfigs and the nodes agree"),
        "{out}"
    );
}

#[test]
fn crs_ahead_of_the_mco() {
    let dir = TempDir::new().unwrap();
    let old = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&old, "2026-05-01T10:00:05Z");
    let mut all = crs(&[M1, M2], "2026-05-03T09:00:00Z", &["registry.example.com"]);
    all.push(gen.clone());
    all.push(rendered("rendered-worker-aaaa", &gen, &[]));
    all.push(pool("rendered-worker-aaaa", 1, 1, false));
    all.push(node("worker-0", "rendered-worker-aaaa"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("/etc/containers/registries.conf: the CRs → MachineConfig/99-worker-generated-registries"), "{out}");
    assert!(out.contains(&format!("  - mirror `{M2}` (digest-only) for `registry.example.com/apps` is in the CRs but not in MachineConfig/99-worker-generated-registries")), "{out}");
    assert!(out.contains("cause: ImageDigestMirrorSet/apps changed at 2026-05-03T09:00:00Z, after the generated MachineConfig was written at 2026-05-01T10:00:05Z"), "{out}");
    assert!(out.contains("to reach the CRs, nodes worker-0 (running rendered-worker-aaaa) will: reload CRI-O without draining"), "{out}");
}

#[test]
fn pool_mid_update_groups_nodes_by_config() {
    let dir = mid_update(false);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    golden("diff-mid-update.txt", &out);
    assert!(
        out.contains("pool worker: updating 2/3 (target rendered-worker-bbbb)"),
        "{out}"
    );
    assert!(
        out.contains(
            "nodes on rendered-worker-aaaa: worker-2; rendered-worker-bbbb: worker-0, worker-1"
        ),
        "{out}"
    );
    assert!(out.contains(&format!("  - mirror `{M2}` (digest-only) for `registry.example.com/apps` is in the pool's target rendered-worker-bbbb but not in nodes worker-2 (running rendered-worker-aaaa)")), "{out}");
    assert!(
        out.contains(
            "cause: pool worker is updating 2/3: these nodes are not on the target config yet"
        ),
        "{out}"
    );
    // One block per distinct config, not per node.
    assert_eq!(
        out.matches("(running rendered-worker-bbbb)").count(),
        0,
        "{out}"
    );
    // --node narrows to one node.
    let (_, one) = run(dir.path(), &["--node", "worker-0"]);
    assert!(!one.contains("worker-2"), "{one}");
}

#[test]
fn paused_pool() {
    let dir = mid_update(true);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("pool worker: paused, updating 2/3"), "{out}");
    assert!(
        out.contains(
            "cause: pool worker is paused: its nodes stay on their config until it is unpaused"
        ),
        "{out}"
    );
}

#[test]
fn crs_the_mco_refuses() {
    let (dir, mut all) = in_sync();
    all.push(
        json!({"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet",
        "metadata": {"name": "strict"},
        "spec": {"imageDigestMirrors": [{"source": "registry.example.com/apps",
            "mirrorSourcePolicy": "NeverContactSource", "mirrors": [M2]}]}}),
    );
    all.push(json!({"apiVersion": "operator.openshift.io/v1alpha1", "kind": "ImageContentSourcePolicy",
        "metadata": {"name": "legacy"},
        "spec": {"repositoryDigestMirrors": [{"source": "registry.example.com/apps", "mirrors": [M1]}]}}));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the CRs are not rendered: the MCO refuses to render them"),
        "{out}"
    );
    assert!(out.contains("conflicting mirrorSourcePolicy"), "{out}");
    assert!(
        out.contains("the CRs never reach the nodes until fixed"),
        "{out}"
    );
}

#[test]
fn a_user_machine_config_overrides_registries_conf() {
    let dir = TempDir::new().unwrap();
    let crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&crs, "2026-05-01T10:00:05Z");
    let own = json!({"path": "/etc/containers/registries.conf", "mode": 420, "overwrite": true,
        "contents": {"source": "data:,%5B%5Bregistry%5D%5D%0Alocation%20%3D%20%22registry.example.com%2Fapps%22%0Ablocked%20%3D%20true%0A"}});
    let user = json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
        "metadata": {"name": "99-worker-zz-registries", "labels": {"machineconfiguration.openshift.io/role": "worker"}},
        "spec": {"config": {"ignition": {"version": "3.4.0"}, "storage": {"files": [own.clone()]}}}});
    let mut all = crs;
    all.push(gen.clone());
    all.push(user);
    all.push(rendered("rendered-worker-cccc", &gen, &[own]));
    all.push(pool("rendered-worker-cccc", 1, 1, false));
    all.push(node("worker-0", "rendered-worker-cccc"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("/etc/containers/registries.conf: MachineConfig/99-worker-generated-registries → the pool's target rendered-worker-cccc"), "{out}");
    assert!(out.contains("`registry.example.com/apps` is not blocked in MachineConfig/99-worker-generated-registries and blocked in the pool's target rendered-worker-cccc"), "{out}");
    assert!(out.contains("cause: MachineConfig/99-worker-zz-registries also writes /etc/containers/registries.conf and sorts after 99-worker-generated-registries: it overrides the generated file"), "{out}");
}

fn with(base: &Path, objects: &[Value]) -> (i32, String) {
    let file = base.join("proposed.json");
    write(base, "proposed.json", objects);
    let out = bin()
        .args(["diff", "-f"])
        .arg(base.join("cluster.json"))
        .arg("--with")
        .arg(&file)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn idms(name: &str, mirrors: &[&str], policy: Option<&str>) -> Value {
    let mut entry = json!({"source": "registry.example.com/apps", "mirrors": mirrors});
    if let Some(p) = policy {
        entry["mirrorSourcePolicy"] = json!(p);
    }
    json!({"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet",
        "metadata": {"name": name}, "spec": {"imageDigestMirrors": [entry]}})
}

#[test]
fn with_predicts_what_the_daemon_does() {
    let (dir, _) = in_sync();
    let will = "to reach the CRs, nodes worker-0, worker-1 (running rendered-worker-aaaa) will: ";
    for (case, proposed, action) in [
        (
            "an added digest mirror",
            vec![idms("apps", &[M1, M2], None)],
            "reload CRI-O without draining",
        ),
        (
            "a removed mirror",
            vec![
                idms("apps", &[], None),
                idms("other", &["m.example.com/x"], None),
            ],
            "drain the node, then reload CRI-O",
        ),
        (
            "an added ImageTagMirrorSet",
            vec![
                json!({"apiVersion": "config.openshift.io/v1", "kind": "ImageTagMirrorSet",
                "metadata": {"name": "tags"},
                "spec": {"imageTagMirrors": [{"source": "registry.example.com/apps", "mirrors": [M2]}]}}),
            ],
            "drain the node, then reload CRI-O",
        ),
        (
            "a reordered search list",
            vec![
                json!({"apiVersion": "config.openshift.io/v1", "kind": "Image",
                "metadata": {"name": "cluster"},
                "spec": {"registrySources": {"containerRuntimeSearchRegistries": ["quay.io", "registry.example.com"]}}}),
            ],
            "drain and reboot the node",
        ),
        (
            "a flipped blocked",
            vec![idms("apps", &[M1], Some("NeverContactSource"))],
            "drain the node, then reload CRI-O",
        ),
    ] {
        let (code, out) = with(dir.path(), &proposed);
        assert_eq!(code, 1, "{case}: {out}");
        assert!(out.contains(&format!("{will}{action}")), "{case}: {out}");
        assert!(
            out.contains("cause: the proposed objects are not applied yet"),
            "{case}: {out}"
        );
    }
    // The reasons name the daemon's rule.
    let (_, out) = with(
        dir.path(),
        &[idms("apps", &[M1], Some("NeverContactSource"))],
    );
    assert!(
        out.contains("blocked of registry registry.example.com/apps changed: drain first"),
        "{out}"
    );
}

#[test]
fn json_contract() {
    let dir = mid_update(false);
    let out = bin()
        .args(["diff", "-o", "json", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["drift"], true);
    let pool = &v["pools"][0];
    assert_eq!(pool["pool"], "worker");
    assert_eq!(pool["state"], "updating 2/3");
    let kinds: Vec<&str> = pool["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["crs", "generated", "target", "nodes", "nodes"]);
    let d = &pool["drift"][0];
    assert_eq!(d["file"], "/etc/containers/registries.conf");
    assert_eq!(d["to"], "nodes worker-2 (running rendered-worker-aaaa)");
    assert!(d["diff"]
        .as_str()
        .unwrap()
        .contains(&format!("-location = \"{M2}\"")));
    assert_eq!(pool["impact"][0]["action"], "reload-crio");
    assert_eq!(pool["impact"][0]["nodes"], json!(["worker-2"]));
}

#[test]
fn errors() {
    let (dir, _) = in_sync();
    bin()
        .args(["diff", "--pool", "infra", "-f"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no MachineConfigPool infra (found: worker)",
        ));
    bin()
        .args(["diff", "-f", "tests/fixtures/audit-cluster"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no MachineConfigPool and no generated MachineConfig to compare",
        ));
}

#[test]
fn live_matches_files() {
    let dir = mid_update(false);
    let server = support::apiserver::Builder::openshift()
        .objects_from(dir.path())
        .start();
    let home = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(home.path());
    let offline = bin().args(["diff", "-f"]).arg(dir.path()).output().unwrap();
    let live = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff"])
        .output()
        .unwrap();
    assert_eq!(live.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(live.stdout).unwrap(),
        String::from_utf8(offline.stdout).unwrap()
    );
    let paths: Vec<String> = server.log().into_iter().map(|l| l.path).collect();
    for p in [
        "/apis/machineconfiguration.openshift.io/v1/machineconfigs",
        "/apis/machineconfiguration.openshift.io/v1/machineconfigpools",
        "/api/v1/nodes",
    ] {
        assert!(paths.contains(&p.to_string()), "{paths:?}");
    }
}

fn golden(name: &str, actual: &str) {
    let path = Path::new("tests/golden/diff").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        actual,
        want,
        "{} differs (UPDATE_GOLDEN=1 to accept)",
        path.display()
    );
}

#[test]
fn without_pools_the_generated_machine_config_is_still_compared() {
    let dir = TempDir::new().unwrap();
    let old = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let mut all = crs(&[M1, M2], "2026-05-02T10:00:00Z", &["registry.example.com"]);
    all.push(generated(&old, "2026-05-01T10:00:05Z"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("pool worker: no MachineConfigPool in the input: only the CRs and the generated MachineConfig are compared\n"), "{out}");
    assert!(out.contains(&format!("mirror `{M2}` (digest-only) for `registry.example.com/apps` is in the CRs but not in MachineConfig/99-worker-generated-registries")), "{out}");
}

#[test]
fn a_degraded_pool_is_named_as_the_cause() {
    let dir = TempDir::new().unwrap();
    let old = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let new = crs(&[M1, M2], "2026-05-02T10:00:00Z", &["registry.example.com"]);
    let (old_gen, new_gen) = (
        generated(&old, "2026-05-01T10:00:05Z"),
        generated(&new, "2026-05-02T10:00:05Z"),
    );
    let mut degraded = pool("rendered-worker-bbbb", 1, 0, false);
    degraded["status"]["conditions"] = json!([
        {"type": "Updating", "status": "True"},
        {"type": "NodeDegraded", "status": "True", "message": "Node worker-0 is reporting: \"failed to drain node\""}
    ]);
    let mut stuck = node("worker-0", "rendered-worker-aaaa");
    stuck["metadata"]["annotations"]["machineconfiguration.openshift.io/state"] = json!("Degraded");
    let mut all = new;
    all.push(new_gen.clone());
    all.push(rendered("rendered-worker-aaaa", &old_gen, &[]));
    all.push(rendered("rendered-worker-bbbb", &new_gen, &[]));
    all.push(degraded);
    all.push(stuck);
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("pool worker: degraded: Node worker-0 is reporting: \"failed to drain node\", updating 0/1"), "{out}");
    assert!(
        out.contains("cause: node(s) worker-0 are degraded: the daemon failed to apply the config"),
        "{out}"
    );
}

#[test]
fn a_node_kubernetes_would_refuse_names_object_and_field() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("node.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: w0\nspec:\n  unschedulable: maybe\n",
    )
    .unwrap();
    bin()
        .args(["diff", "-f"])
        .arg(dir.path().join("node.yaml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "Node/w0: spec.unschedulable: invalid type: string \"maybe\", expected a boolean",
        ));
}
