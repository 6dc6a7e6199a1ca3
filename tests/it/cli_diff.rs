//! `diff` through the binary on fixture clusters: the generated
//! MachineConfigs are the tool's own render of the CRs, and each rendered
//! MachineConfig is merged by the MCO's rule (`support::mco`) from
//! `00-<pool>`, `01-<pool>-container-runtime`, `01-<pool>-kubelet`, the
//! generated and a user MachineConfig. Cases: in sync, CRs ahead of the MCO,
//! a pool mid-update, a paused pool, CRs the MCO refuses, a user
//! MachineConfig overriding registries.conf, `--with` impacts, the
//! cluster with mirror sets only (issue 18) and a generated MachineConfig
//! edited by hand (issue 36), offline and live.

use crate::support;

use std::path::Path;

use predicates::prelude::*;
use serde_json::{json, Value};
use tempfile::TempDir;

use support::{bin, mco};

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

/// The generated MachineConfig the tool renders from `objects` for pool worker.
fn generated(objects: &[Value], created: &str) -> Value {
    generated_for("worker", objects, created)
}

/// The generated MachineConfig the tool renders from `objects` for `pool`.
fn generated_for(pool: &str, objects: &[Value], created: &str) -> Value {
    let dir = TempDir::new().unwrap();
    write(dir.path(), "crs.json", objects);
    let out = bin()
        .args(["render", "--pool", pool, "-o", "json", "-f"])
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

/// A user MachineConfig of `pool`: a signature lookaside for the mirrored
/// registry (a managed file the generated MachineConfig does not carry) and
/// chrony's configuration.
fn user(pool: &str) -> Value {
    mco::config(
        &format!("99-{pool}-corp"),
        pool,
        &[
            (
                "/etc/containers/registries.d/corp.yaml",
                "docker:\n  registry.example.com/apps:\n    lookaside: https://sigstore.corp.example.com/apps\n",
            ),
            ("/etc/chrony.conf", "server ntp.corp.example.com iburst\n"),
        ],
    )
}

/// The MachineConfigs of `pool` besides the generated one: the MCO's base
/// configs and a user one.
fn others(pool: &str) -> Vec<Value> {
    let mut all = mco::base_configs(pool);
    all.push(user(pool));
    all
}

/// The rendered config `name` of pool worker: its other MachineConfigs,
/// `generated` and `extra` merged as the MCO merges them.
fn rendered(name: &str, generated: &Value, extra: &[Value]) -> Value {
    rendered_for("worker", name, generated, extra)
}

fn rendered_for(pool: &str, name: &str, generated: &Value, extra: &[Value]) -> Value {
    let mut configs = others(pool);
    configs.push(generated.clone());
    configs.extend(extra.iter().cloned());
    mco::render(name, pool, &configs)
}

fn pool(target: &str, count: i64, updated: i64, paused: bool) -> Value {
    pool_named("worker", target, count, updated, paused)
}

fn pool_named(name: &str, target: &str, count: i64, updated: i64, paused: bool) -> Value {
    let updating = if updated < count { "True" } else { "False" };
    json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
        "metadata": {"name": name, "labels": {"machineconfiguration.openshift.io/mco-built-in": ""}},
        "spec": {"paused": paused, "configuration": {"name": target},
            "machineConfigSelector": {"matchLabels": {mco::ROLE: name}}},
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
    all.extend(others("worker"));
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
    all.extend(others("worker"));
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
    all.extend(others("worker"));
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
            "cause: pool worker is paused (spec.paused): its nodes stay on their config until it is unpaused; fix: `oc patch mcp worker --type merge -p '{\"spec\":{\"paused\":false}}'` when the nodes may update"
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
        out.contains("cause: the machine-config-controller logs it (`Error syncing image config openshift-config: ...`) and keeps the previous generated MachineConfig, so the CRs never reach the nodes; fix: run `kubectl mirrorpolicy lint` on the CRs"),
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
        "spec": {"config": {"ignition": {"version": "3.4.0"}, "storage": {"files": [own]}}}});
    let mut all = crs;
    all.push(gen.clone());
    all.extend(others("worker"));
    all.push(user.clone());
    all.push(rendered("rendered-worker-cccc", &gen, &[user]));
    all.push(pool("rendered-worker-cccc", 1, 1, false));
    all.push(node("worker-0", "rendered-worker-cccc"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("/etc/containers/registries.conf: MachineConfig/99-worker-generated-registries → the pool's target rendered-worker-cccc"), "{out}");
    assert!(out.contains("`registry.example.com/apps` is not blocked in MachineConfig/99-worker-generated-registries and blocked in the pool's target rendered-worker-cccc"), "{out}");
    assert!(out.contains("cause: MachineConfig/99-worker-zz-registries also writes /etc/containers/registries.conf and sorts after 99-worker-generated-registries: it overrides the generated file; fix: remove /etc/containers/registries.conf from MachineConfig/99-worker-zz-registries, so the file the MCO renders from the CRs applies"), "{out}");
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
    // As in kubectl diff: `+` is what the nodes will get.
    assert!(d["diff"]
        .as_str()
        .unwrap()
        .contains(&format!("+location = \"{M2}\"")));
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
    all.extend(others("worker"));
    all.push(rendered("rendered-worker-aaaa", &old_gen, &[]));
    all.push(rendered("rendered-worker-bbbb", &new_gen, &[]));
    all.push(degraded);
    all.push(stuck);
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1);
    assert!(out.contains("pool worker: degraded: Node worker-0 is reporting: \"failed to drain node\", updating 0/1"), "{out}");
    assert!(
        out.contains("cause: node(s) worker-0 are degraded: the daemon failed to apply the config (the pool's NodeDegraded condition says `Node NAME is reporting: ...`)"),
        "{out}"
    );
    // Issue 36: the MCO's words, the cause, then the fix.
    assert!(
        out.contains("; fix: resolve what the node reports (`oc describe mcp worker`, and the machine-config-daemon log on the node), then the daemon retries"),
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

/// The most common cluster shape: ImageDigestMirrorSets only, an Image
/// object without policy fields, no ClusterImagePolicy. The generated
/// MachineConfigs carry registries.conf alone; policy.json comes from
/// `01-<pool>-container-runtime`.
fn mirror_sets_only_crs(mirrors: &[&str], created: &str) -> Vec<Value> {
    vec![
        json!({"apiVersion": "config.openshift.io/v1", "kind": "Image",
            "metadata": {"name": "cluster", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {}}),
        json!({"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet",
            "metadata": {"name": "apps", "creationTimestamp": created},
            "spec": {"imageDigestMirrors": [{"source": "registry.example.com/apps", "mirrors": mirrors}]}}),
    ]
}

fn paths_of(mc: &Value) -> Vec<String> {
    mc["spec"]["config"]["storage"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

/// Pools master and worker, in sync with the CRs (`[M1]`); with `drift`,
/// the CRs have `[M1, M2]`, both pools target configs rendered with them,
/// master-0 and worker-0 run those and worker-1 still runs the old one.
fn mirror_sets_only(drift: bool) -> TempDir {
    let dir = TempDir::new().unwrap();
    let old = mirror_sets_only_crs(&[M1], "2026-05-01T10:00:00Z");
    let new = mirror_sets_only_crs(&[M1, M2], "2026-05-02T10:00:00Z");
    let crs = if drift { &new } else { &old };
    let mut all = crs.clone();
    for (pool, count) in [("master", 1), ("worker", 2)] {
        all.extend(others(pool));
        let old_gen = generated_for(pool, &old, "2026-05-01T10:00:05Z");
        let gen = generated_for(pool, crs, "2026-05-02T10:00:05Z");
        // The shape of the issue: the generated MachineConfig carries
        // registries.conf alone, the rendered one policy.json too.
        assert_eq!(paths_of(&gen), ["/etc/containers/registries.conf"]);
        let old_name = format!("rendered-{pool}-1111");
        let old_rendered = rendered_for(pool, &old_name, &old_gen, &[]);
        assert!(paths_of(&old_rendered).contains(&"/etc/containers/policy.json".to_string()));
        all.push(old_rendered);
        all.push(gen.clone());
        if drift {
            let new_name = format!("rendered-{pool}-2222");
            all.push(rendered_for(pool, &new_name, &gen, &[]));
            all.push(pool_named(pool, &new_name, count, 1, false));
        } else {
            all.push(pool_named(pool, &old_name, count, count, false));
        }
    }
    let now = if drift { "2222" } else { "1111" };
    all.push(node("master-0", &format!("rendered-master-{now}")));
    all.push(node("worker-0", &format!("rendered-worker-{now}")));
    all.push(node("worker-1", "rendered-worker-1111"));
    write(dir.path(), "cluster.json", &all);
    dir
}

fn json_of(dir: &Path, extra: &[&str]) -> Value {
    let out = bin()
        .args(["diff", "-o", "json", "-f"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn issue_18_mirror_sets_only_in_sync_is_exit_0() {
    let dir = mirror_sets_only(false);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out.matches("no drift: the CRs, the MachineConfigs and the nodes agree")
            .count(),
        2,
        "{out}"
    );
    assert!(!out.contains("policy.json"), "{out}");
    for args in [
        &["--pool", "master"][..],
        &["--pool", "worker"],
        &["--node", "worker-1"],
        &["--pool", "worker", "--node", "worker-0"],
        &["--file", "/etc/containers/policy.json"],
        &["--file", "/etc/containers/registries.d/corp.yaml"],
    ] {
        let (code, out) = run(dir.path(), args);
        assert_eq!(code, 0, "{args:?}: {out}");
        assert!(!out.contains("policy.json:"), "{args:?}: {out}");
    }
    let v = json_of(dir.path(), &[]);
    assert_eq!(v["drift"], false, "{v}");
    for pool in v["pools"].as_array().unwrap() {
        assert_eq!(pool["drift"], json!([]), "{pool}");
        assert_eq!(pool["impact"], json!([]), "{pool}");
    }
}

#[test]
fn issue_18_mirror_sets_only_with_drift_is_exit_1_on_registries_conf_alone() {
    let dir = mirror_sets_only(true);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("policy.json"), "{out}");
    assert!(out.contains("/etc/containers/registries.conf: the pool's target rendered-worker-2222 → nodes worker-1 (running rendered-worker-1111)"), "{out}");
    assert!(out.contains(&format!("  - mirror `{M2}` (digest-only) for `registry.example.com/apps` is in the pool's target rendered-worker-2222 but not in nodes worker-1 (running rendered-worker-1111)")), "{out}");
    assert!(
        out.contains("to reach the CRs, nodes worker-1 (running rendered-worker-1111) will: reload CRI-O without draining\n  - /etc/containers/registries.conf: only digest-only mirrors or registries added: reload CRI-O\n"),
        "{out}"
    );
    let v = json_of(dir.path(), &[]);
    let worker = &v["pools"][1];
    assert_eq!(worker["pool"], "worker");
    let files: Vec<&Value> = worker["drift"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["file"])
        .collect();
    assert_eq!(files, [&json!("/etc/containers/registries.conf")]);
    assert_eq!(worker["impact"][0]["nodes"], json!(["worker-1"]));
    assert_eq!(
        worker["impact"][0]["files"],
        json!(["/etc/containers/registries.conf"])
    );
    assert_eq!(worker["impact"][0]["action"], "reload-crio");
    assert_eq!(v["pools"][0]["drift"], json!([]));
    // --pool and --node narrow to what is in sync, or to the drift.
    for (args, want) in [
        (&["--pool", "master"][..], 0),
        (&["--pool", "worker"], 1),
        (&["--node", "worker-0"], 0),
        (&["--node", "worker-1"], 1),
        (&["--pool", "worker", "--node", "worker-1"], 1),
        (&["--file", "/etc/containers/policy.json"], 0),
    ] {
        let (code, out) = run(dir.path(), args);
        assert_eq!(code, want, "{args:?}: {out}");
        assert!(!out.contains("policy.json:"), "{args:?}: {out}");
    }
}

#[test]
fn issue_18_with_a_mirror_change_does_not_touch_policy_json() {
    let dir = mirror_sets_only(false);
    for (case, proposed, action) in [
        (
            "an added digest mirror",
            vec![idms("apps", &[M1, M2], None)],
            "reload-crio",
        ),
        (
            "a flipped blocked",
            vec![idms("apps", &[M1], Some("NeverContactSource"))],
            "drain-reload-crio",
        ),
    ] {
        let file = dir.path().join("proposed.json");
        write(dir.path(), "proposed.json", &proposed);
        let out = bin()
            .args(["diff", "-o", "json", "-f"])
            .arg(dir.path().join("cluster.json"))
            .arg("--with")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{case}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        for pool in v["pools"].as_array().unwrap() {
            assert!(
                !pool["impact"].as_array().unwrap().is_empty(),
                "{case}: {pool}"
            );
            for impact in pool["impact"].as_array().unwrap() {
                assert_eq!(
                    impact["files"],
                    json!(["/etc/containers/registries.conf"]),
                    "{case}: {pool}"
                );
                assert_eq!(impact["action"], action, "{case}: {pool}");
                assert!(
                    !impact["reasons"].to_string().contains("policy.json"),
                    "{case}: {pool}"
                );
            }
        }
        let (_, text) = with(dir.path(), &proposed);
        assert!(!text.contains("policy.json"), "{case}: {text}");
    }
    // A change that does touch policy.json is reported as touching it.
    let (code, text) = with(
        dir.path(),
        &[
            json!({"apiVersion": "config.openshift.io/v1", "kind": "Image",
            "metadata": {"name": "cluster"},
            "spec": {"registrySources": {"allowedRegistries": ["registry.example.com", "mirror.corp.example.com:5000"]}}}),
        ],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("/etc/containers/policy.json: the CRs with"),
        "{text}"
    );
    assert!(
        text.contains("to reach the CRs, nodes worker-0, worker-1 (running rendered-worker-1111) will: reload CRI-O without draining"),
        "{text}"
    );
    assert!(text.contains("  - /etc/containers/policy.json"), "{text}");
}

#[test]
fn issue_18_a_stale_policy_json_in_the_target_is_drift() {
    // An Image policy field was removed: the generated MachineConfig no
    // longer carries policy.json, but the pool still targets a config
    // rendered with it.
    let dir = TempDir::new().unwrap();
    let mut before = mirror_sets_only_crs(&[M1], "2026-05-01T10:00:00Z");
    before[0]["spec"] = json!({"registrySources": {"allowedRegistries": ["registry.example.com", "mirror.corp.example.com:5000"]}});
    let old_gen = generated(&before, "2026-05-01T10:00:05Z");
    assert!(paths_of(&old_gen).contains(&"/etc/containers/policy.json".to_string()));
    let now = mirror_sets_only_crs(&[M1], "2026-05-01T10:00:00Z");
    let gen = generated(&now, "2026-05-03T10:00:05Z");
    let mut all = now;
    all.push(gen);
    all.extend(others("worker"));
    all.push(rendered("rendered-worker-1111", &old_gen, &[]));
    all.push(pool("rendered-worker-1111", 1, 1, false));
    all.push(node("worker-0", "rendered-worker-1111"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("/etc/containers/policy.json: MachineConfig/01-worker-container-runtime → the pool's target rendered-worker-1111"), "{out}");
    assert!(out.contains("cause: MachineConfig/99-worker-generated-registries does not write /etc/containers/policy.json, so the node gets MachineConfig/01-worker-container-runtime's: pool worker has not been rendered with the current MachineConfigs yet (pool updated 1/1)"), "{out}");
    assert!(
        out.contains("to reach the CRs, nodes worker-0 (running rendered-worker-1111) will: reload CRI-O without draining"),
        "{out}"
    );
    assert!(!out.contains("/etc/containers/registries.conf:"), "{out}");
}

#[test]
fn issue_18_live_agrees_with_the_files() {
    for (drift, want) in [(false, 0), (true, 1)] {
        let dir = mirror_sets_only(drift);
        let server = support::apiserver::Builder::openshift()
            .objects_from(dir.path())
            .start();
        let home = TempDir::new().unwrap();
        let kubeconfig = server.write_kubeconfig(home.path());
        for args in [&[][..], &["-o", "json"], &["--node", "worker-1"]] {
            let offline = bin()
                .args(["diff", "-f"])
                .arg(dir.path())
                .args(args)
                .output()
                .unwrap();
            let live = bin()
                .env("KUBECONFIG", &kubeconfig)
                .arg("diff")
                .args(args)
                .output()
                .unwrap();
            assert_eq!(live.status.code(), Some(want), "{args:?}");
            assert_eq!(offline.status.code(), Some(want), "{args:?}");
            assert_eq!(
                String::from_utf8(live.stdout).unwrap(),
                String::from_utf8(offline.stdout).unwrap(),
                "{args:?}"
            );
        }
    }
}

#[test]
fn issue_14_diff_reads_as_kubectl_diff_minus_now_plus_next() {
    let dir = mid_update(false);
    let out = bin().args(["diff", "-f"]).arg(dir.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("    --- nodes worker-2 (running rendered-worker-aaaa)\n    +++ the pool's target rendered-worker-bbbb\n"), "{text}");
    assert!(
        text.contains(&format!("    +location = \"{M2}\"")),
        "{text}"
    );
}

#[test]
fn issue_14_unknown_node_or_file_is_an_error() {
    let dir = mid_update(false);
    bin()
        .args(["diff", "--node", "worker-9", "-f"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --node worker-9: no such Node (found: worker-0, worker-1, worker-2)",
        ));
    bin()
        .args(["diff", "--file", "/etc/containers/registries.con", "-f"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: /etc/containers/registries.con is not a file the mirror configuration manages",
        ));
}

/// Issue 15: a cluster in sync with three workers, and their node files
/// as the rendered config writes them; `edit` changes node files (by node
/// name) and Node objects before they are written.
fn three_workers(
    edit: impl Fn(&str, &mut std::collections::BTreeMap<String, Vec<u8>>, &mut String, &mut Value),
) -> TempDir {
    let dir = TempDir::new().unwrap();
    let crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&crs, "2026-05-01T10:00:05Z");
    let target = rendered("rendered-worker-aaaa", &gen, &[]);
    let mut all = crs.clone();
    all.push(gen.clone());
    all.extend(others("worker"));
    all.push(target.clone());
    all.push(pool("rendered-worker-aaaa", 3, 3, false));
    let ca = format!(
        "{}  /etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt\n",
        "a".repeat(64)
    );
    for name in ["worker-0", "worker-1", "worker-2"] {
        let mut node = node(name, "rendered-worker-aaaa");
        let mut files = support::node_files::files_of(&target);
        let mut certs = ca.clone();
        edit(name, &mut files, &mut certs, &mut node);
        support::node_files::write_node(&dir.path().join("node-files"), name, &files, &certs);
        all.push(node);
    }
    write(dir.path(), "cluster.json", &all);
    dir
}

fn run_on_disk(dir: &Path, extra: &[&str]) -> (i32, String) {
    let files = dir.join("node-files");
    let mut args = vec!["--node-files", files.to_str().unwrap()];
    args.extend(extra);
    run(dir, &args)
}

const REGISTRIES_CONF: &str = "/etc/containers/registries.conf";

#[test]
fn issue_15_on_disk_in_sync_is_exit_0() {
    let dir = three_workers(|_, _, _, _| {});
    let (code, out) = run_on_disk(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("  files on disk: worker-0, worker-1, worker-2 match their config\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "no drift: the CRs, the MachineConfigs, the nodes and their files on disk agree"
        ),
        "{out}"
    );
    // `--on-disk` with the folder says the same.
    let files = dir.path().join("node-files");
    let (code, _) = run(
        dir.path(),
        &["--on-disk", "--node-files", files.to_str().unwrap()],
    );
    assert_eq!(code, 0);
}

/// The hand edit of the issue: a mirror added to registries.conf on one
/// worker, the daemon reporting it in the Node's reason annotation.
fn hand_edited() -> TempDir {
    three_workers(|name, files, _, node| {
        if name != "worker-1" {
            return;
        }
        let conf = files.get_mut(REGISTRIES_CONF).unwrap();
        let mut text = String::from_utf8(conf.clone()).unwrap();
        text.push_str("\n[[registry]]\nlocation = \"quay.io/debug\"\ninsecure = true\n");
        *conf = text.into_bytes();
        let annotations = &mut node["metadata"]["annotations"];
        annotations["machineconfiguration.openshift.io/state"] = json!("Degraded");
        annotations["machineconfiguration.openshift.io/reason"] = json!(
            "unexpected on-disk state validating against rendered-worker-aaaa: content mismatch for file \"/etc/containers/registries.conf\""
        );
    })
}

#[test]
fn issue_15_hand_edited_registries_conf_on_one_of_three_workers() {
    let dir = hand_edited();
    let (code, out) = run_on_disk(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("  files on disk: worker-0, worker-2 match their config; worker-1 differs\n"),
        "{out}"
    );
    assert!(
        out.contains("/etc/containers/registries.conf: the current config rendered-worker-aaaa → the files on worker-1\n"),
        "{out}"
    );
    assert!(
        out.contains("  - registry `quay.io/debug` is in the files on worker-1 but not in the current config rendered-worker-aaaa\n"),
        "{out}"
    );
    assert!(
        out.contains("the machine-config daemon reports it and keeps the node Degraded until the file is as rendered-worker-aaaa writes it again (worker-1: unexpected on-disk state validating against rendered-worker-aaaa: content mismatch for file \"/etc/containers/registries.conf\")"),
        "{out}"
    );
    assert!(
        out.contains(
            "    -[[registry]]\n    -insecure = true\n    -location = \"quay.io/debug\"\n"
        ),
        "{out}"
    );
    // Only one file drifted.
    assert_eq!(out.matches("→ the files on").count(), 1, "{out}");
}

#[test]
fn issue_15_reason_is_a_cause_without_on_disk() {
    let dir = hand_edited();
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("  - the machine-config daemon on worker-1 reports: unexpected on-disk state validating against rendered-worker-aaaa: content mismatch for file \"/etc/containers/registries.conf\"\n"),
        "{out}"
    );
    assert!(
        out.contains("compare the files with `diff --on-disk`"),
        "{out}"
    );
    // Without node files, there is no on-disk stage.
    assert!(!out.contains("files on disk:"), "{out}");
}

#[test]
fn issue_15_formatting_only_is_drift_to_the_daemon() {
    let dir = three_workers(|name, files, _, _| {
        if name == "worker-2" {
            let conf = files.get_mut(REGISTRIES_CONF).unwrap();
            conf.extend_from_slice(b"\n# checked by hand\n");
        }
    });
    let (code, out) = run_on_disk(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("differs from what rendered-worker-aaaa writes in formatting only; the daemon compares bytes"), "{out}");
    assert!(out.contains("    -# checked by hand\n"), "{out}");
}

#[test]
fn issue_15_stray_drop_in_and_policy() {
    let dir = three_workers(|name, files, _, _| {
        if name == "worker-0" {
            files.insert(
                "/etc/containers/registries.conf.d/99-debug.conf".into(),
                b"[[registry]]\nlocation = \"registry.example.com/apps\"\nblocked = true\n"
                    .to_vec(),
            );
            files.insert(
                "/etc/crio/policies/team-a.json".into(),
                b"{\"default\":[{\"type\":\"reject\"}]}".to_vec(),
            );
            // Shipped by the OS: not stray, and the same on every node.
            files.insert(
                "/etc/containers/registries.d/default.yaml".into(),
                b"docker: {}\n".to_vec(),
            );
        } else {
            files.insert(
                "/etc/containers/registries.d/default.yaml".into(),
                b"docker: {}\n".to_vec(),
            );
        }
    });
    let (code, out) = run_on_disk(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("  files on disk: worker-0 differs; worker-1, worker-2 match their config\n"),
        "{out}"
    );
    for file in [
        "/etc/containers/registries.conf.d/99-debug.conf",
        "/etc/crio/policies/team-a.json",
    ] {
        assert!(
            out.contains(&format!(
                "  - {file} is on disk, but no MachineConfig of rendered-worker-aaaa writes it\n"
            )),
            "{file}: {out}"
        );
    }
    assert!(
        out.contains("the daemon neither checks nor removes files no MachineConfig writes"),
        "{out}"
    );
    assert!(!out.contains("default.yaml"), "{out}");
    // --file narrows the comparison.
    let (_, out) = run_on_disk(dir.path(), &["--file", "/etc/crio/policies/team-a.json"]);
    assert!(!out.contains("99-debug.conf"), "{out}");
    assert!(out.contains("team-a.json is on disk"), "{out}");
}

#[test]
fn issue_15_missing_ca_on_one_node() {
    let dir = three_workers(|name, _, certs, _| {
        if name == "worker-2" {
            certs.clear();
        }
    });
    let (code, out) = run_on_disk(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("/etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt: the files on worker-0, worker-1 → the files on worker-2\n"), "{out}");
    assert!(out.contains("  - /etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt is on worker-0, worker-1 but missing on worker-2\n"), "{out}");
    assert!(out.contains("the daemon writes the registry CAs"), "{out}");
}

#[test]
fn issue_15_json_shape() {
    let dir = hand_edited();
    let files = dir.path().join("node-files");
    let out = bin()
        .args(["diff", "-o", "json", "-f"])
        .arg(dir.path())
        .args(["--node-files", files.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pool = &v["pools"][0];
    let on_disk: Vec<&Value> = pool["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["kind"] == "onDisk")
        .collect();
    assert_eq!(on_disk.len(), 2, "{pool}");
    assert_eq!(on_disk[0]["nodes"], json!(["worker-0", "worker-2"]));
    assert_eq!(on_disk[0]["machineConfig"], "rendered-worker-aaaa");
    assert_eq!(on_disk[1]["nodes"], json!(["worker-1"]));
    let drift = pool["drift"].as_array().unwrap();
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_eq!(drift[0]["nodes"], json!(["worker-1"]));
    assert_eq!(drift[0]["file"], REGISTRIES_CONF);
    assert!(drift[0]["diff"].as_str().unwrap().contains("quay.io/debug"));
    assert_eq!(v["drift"], true);
}

#[test]
fn issue_15_unreadable_and_unknown_nodes() {
    let dir = three_workers(|_, _, _, _| {});
    let files = dir.path().join("node-files");
    std::fs::remove_dir_all(files.join("worker-1")).unwrap();
    std::fs::create_dir_all(files.join("worker-9/etc/containers")).unwrap();
    let out = bin()
        .args(["diff", "-f"])
        .arg(dir.path())
        .args(["--node-files", files.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    // No drift on the nodes read, one node not read: undetermined (issue 22).
    assert_eq!(out.status.code(), Some(3), "{stdout}{stderr}");
    assert!(
        stdout.contains("  node worker-1: files not read: not among the node files\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not read: 1 node(s), their files on disk undetermined: worker-1\n  - worker-1: not among the node files\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("node worker-1 not read: not among the node files"),
        "{stderr}"
    );
    assert!(
        stdout.contains("files on disk: worker-0, worker-2 match their config"),
        "{stdout}"
    );
    assert!(
        stderr.contains("no Node worker-9 in the input; its files are not compared"),
        "{stderr}"
    );
    // A folder that is no node-files folder is an input error.
    let out = bin()
        .args(["diff", "-f"])
        .arg(dir.path())
        .args(["--node-files"])
        .arg(dir.path().join("missing"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read \""));
}

#[test]
fn issue_15_on_disk_without_node_files() {
    let dir = three_workers(|_, _, _, _| {});
    let out = bin()
        .args(["diff", "--on-disk", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("diff --on-disk with -f: the nodes' files are read from --node-files DIR"),
        "{stderr}"
    );
    assert!(stderr.contains("--node-files DIR"), "{stderr}");
}

/// A custom pool `infra`: it selects the worker role's MachineConfigs and
/// its own, and has no generated registries MachineConfig of its own.
fn infra_pool(target: &str) -> Value {
    json!({"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
        "metadata": {"name": "infra"},
        "spec": {"configuration": {"name": target},
            "machineConfigSelector": {"matchExpressions": [
                {"key": mco::ROLE, "operator": "In", "values": ["worker", "infra"]}]}},
        "status": {"configuration": {"name": target}, "machineCount": 1,
            "updatedMachineCount": 1,
            "conditions": [{"type": "Updating", "status": "False"}]}})
}

/// The worker configs (with the generated one), `own` configs of pool
/// infra, its rendered config merged as the MCO merges a custom pool, and
/// one node on it.
fn custom_pool(own: &[Value]) -> TempDir {
    let dir = TempDir::new().unwrap();
    let crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&crs, "2026-05-01T10:00:05Z");
    let mut configs = others("worker");
    configs.push(gen);
    configs.push(user("infra"));
    configs.extend(own.iter().cloned());
    let mut all = crs;
    all.extend(configs.iter().cloned());
    all.push(mco::render("rendered-infra-aaaa", "infra", &configs));
    all.push(infra_pool("rendered-infra-aaaa"));
    all.push(node("infra-0", "rendered-infra-aaaa"));
    write(dir.path(), "cluster.json", &all);
    dir
}

/// Issue 25: a custom pool is compared through the worker's generated
/// MachineConfig, with the same stages as worker.
#[test]
fn issue_25_custom_pool_diffs_as_worker() {
    let dir = custom_pool(&[]);
    let (code, out) = run(dir.path(), &["-o", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let pool = &v["pools"][0];
    assert_eq!(pool["pool"], "infra");
    let stages: Vec<(&str, &str)> = pool["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["kind"].as_str().unwrap(),
                s["machineConfig"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        stages,
        [
            ("crs", ""),
            ("generated", "99-worker-generated-registries"),
            ("target", "rendered-infra-aaaa"),
            ("nodes", "rendered-infra-aaaa"),
        ],
        "{out}"
    );
    assert_eq!(pool["drift"], json!([]), "{out}");
    assert_eq!(pool["notes"], json!([]), "{out}");
}

/// Issue 25: the custom pool's own MachineConfig writing registries.conf
/// sorts after every worker config, so it overrides the generated file on
/// its nodes.
#[test]
fn issue_25_custom_pool_own_machine_config_overrides_registries_conf() {
    let own = mco::config(
        "50-infra-registries",
        "infra",
        &[(
            "/etc/containers/registries.conf",
            "[[registry]]\nlocation = \"registry.example.com/apps\"\nblocked = true\n",
        )],
    );
    let dir = custom_pool(&[own]);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("/etc/containers/registries.conf: MachineConfig/99-worker-generated-registries → the pool's target rendered-infra-aaaa"), "{out}");
    assert!(out.contains("`registry.example.com/apps` is not blocked in MachineConfig/99-worker-generated-registries and blocked in the pool's target rendered-infra-aaaa"), "{out}");
    assert!(out.contains("cause: MachineConfig/50-infra-registries also writes /etc/containers/registries.conf and sorts after 99-worker-generated-registries: it overrides the generated file"), "{out}");
}

/// Issue 25: a 4.12 cluster whose generated MachineConfig and nodes carry
/// the 4.12 format (release-4.12 `TestUpdateRegistriesConfig` layout,
/// written here by hand) shows no drift.
#[test]
fn issue_25_release_4_12_nodes_in_their_own_format_show_no_drift() {
    let dir = TempDir::new().unwrap();
    let conf = "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"\"\n\n[[registry]]\n  prefix = \"\"\n  location = \"registry.example.com/apps\"\n  mirror-by-digest-only = true\n\n  [[registry.mirror]]\n    location = \"mirror.corp.example.com:5000/apps\"\n\n[[registry]]\n  prefix = \"\"\n  location = \"insecure.example.com\"\n  insecure = true\n";
    let gen = mco::config(
        "99-worker-generated-registries",
        "worker",
        &[("/etc/containers/registries.conf", conf)],
    );
    let mut all = vec![
        json!({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
            "metadata": {"name": "version"},
            "status": {"desired": {"version": "4.12.30",
                "image": "quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}),
        json!({"apiVersion": "config.openshift.io/v1", "kind": "Image",
            "metadata": {"name": "cluster"},
            "spec": {"registrySources": {"insecureRegistries": ["insecure.example.com"]}}}),
        json!({"apiVersion": "operator.openshift.io/v1alpha1", "kind": "ImageContentSourcePolicy",
            "metadata": {"name": "apps"},
            "spec": {"repositoryDigestMirrors": [
                {"source": "registry.example.com/apps", "mirrors": [M1]}]}}),
    ];
    let mut configs = others("worker");
    configs.push(gen);
    all.extend(configs.iter().cloned());
    all.push(mco::render("rendered-worker-aaaa", "worker", &configs));
    all.push(pool("rendered-worker-aaaa", 1, 1, false));
    all.push(node("worker-0", "rendered-worker-aaaa"));
    write(dir.path(), "cluster.json", &all);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("no drift: the CRs, the MachineConfigs and the nodes agree"),
        "{out}"
    );
}

/// The registries.conf a MachineConfig writes.
fn registries_conf_of(mc: &Value) -> String {
    let file = mc["spec"]["config"]["storage"]["files"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["path"] == REGISTRIES_CONF)
        .expect("registries.conf");
    let source = file["contents"]["source"].as_str().unwrap();
    String::from_utf8(support::node_files::decode_data_url(source)).unwrap()
}

/// A cluster in sync with the CRs, except that the rendered config its two
/// nodes run took registries.conf from a user MachineConfig, since deleted,
/// that wrote the generated text changed by `edit`.
fn nodes_on_edited_registries_conf(edit: impl Fn(&str) -> String) -> TempDir {
    let dir = TempDir::new().unwrap();
    let crs = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let gen = generated(&crs, "2026-05-01T10:00:05Z");
    let text = edit(&registries_conf_of(&gen));
    let own = mco::config(
        "99-worker-zz-registries",
        "worker",
        &[(REGISTRIES_CONF, &text)],
    );
    let mut all = crs;
    all.push(gen.clone());
    all.extend(others("worker"));
    all.push(rendered("rendered-worker-aaaa", &gen, &[own]));
    all.push(pool("rendered-worker-aaaa", 2, 2, false));
    all.push(node("worker-0", "rendered-worker-aaaa"));
    all.push(node("worker-1", "rendered-worker-aaaa"));
    write(dir.path(), "cluster.json", &all);
    dir
}

/// Issue 35: `Location = ` is `location` for the node's BurntSushi/toml,
/// so it is no drift, and adding a digest-only mirror over it is no drain.
#[test]
fn issue_35_a_key_in_another_case_is_no_change_for_the_node_or_the_daemon() {
    let dir = nodes_on_edited_registries_conf(|t| {
        assert!(t.contains("location = "), "{t}");
        t.replace("location", "Location")
            .replace("[[registry]]", "[[Registry]]")
            .replace("[[registry.mirror]]", "[[Registry.Mirror]]")
    });
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("no drift: the CRs, the MachineConfigs and the nodes agree"),
        "{out}"
    );
    let (code, out) = with(dir.path(), &[idms("apps", &[M1, M2], None)]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("to reach the CRs, nodes worker-0, worker-1 (running rendered-worker-aaaa) will: reload CRI-O without draining\n  - /etc/containers/registries.conf: only digest-only mirrors or registries added: reload CRI-O\n"), "{out}");
}

/// Issue 35: a registries.conf the node's reader refuses, or reads
/// undeterminably, is said so, not read by a TOML 1.1 parser; the drain
/// decision says the same.
#[test]
fn issue_35_what_the_node_cannot_read_is_said_so() {
    let target =
        "MachineConfig/99-worker-generated-registries → the pool's target rendered-worker-aaaa";
    let in_target = "/etc/containers/registries.conf in the pool's target rendered-worker-aaaa:";
    for (case, edit, summary, reason) in [
        (
            // `\x61` is `a` in TOML 1.1; TOML 1.0 (CRI-O 1.34 and earlier) refuses it.
            "a TOML 1.1 escape",
            "\"registry.ex\\x61mple.com/apps\"",
            "what the node reads from it is undetermined (whether the node loads this file depends on its CRI-O release",
            "what the daemon reads from the current file is undetermined (",
        ),
        (
            "two cases of one key with different values",
            "\"registry.example.com/apps\"\n  Location = \"registry.example.com/other\"",
            "what the node reads from it is undetermined (line ",
            "what the daemon reads from the current file is undetermined (line ",
        ),
        (
            "a value of the wrong type",
            "\"registry.example.com/apps\"\n  blocked = \"yes\"",
            "the node's containers/image refuses it (line ",
            "the current file does not load (line ",
        ),
    ] {
        let dir = nodes_on_edited_registries_conf(|t| {
            let at = "location = \"registry.example.com/apps\"";
            assert!(t.contains(at), "{t}");
            t.replacen(at, &format!("location = {edit}"), 1)
        });
        let (code, out) = run(dir.path(), &[]);
        assert_eq!(code, 1, "{case}: {out}");
        assert!(out.contains(&format!("/etc/containers/registries.conf: {target}")), "{case}: {out}");
        assert!(out.contains(&format!("  - {in_target} {summary}")), "{case}: {out}");
        let (_, out) = with(dir.path(), &[idms("apps", &[M1, M2], None)]);
        assert!(
            out.contains("(running rendered-worker-aaaa) will: drain the node, then reload CRI-O"),
            "{case}: {out}"
        );
        assert!(
            out.contains(&format!("  - /etc/containers/registries.conf: {reason}")),
            "{case}: {out}"
        );
    }
}

/// A `metadata.managedFields` entry: `manager` wrote `fields` by
/// `operation` at `time`.
fn managed(manager: &str, operation: &str, time: &str, fields: Value) -> Value {
    json!({"manager": manager, "operation": operation, "time": time,
        "apiVersion": "machineconfiguration.openshift.io/v1",
        "fieldsType": "FieldsV1", "fieldsV1": fields})
}

/// What the MCO owns of a generated MachineConfig it created and updates
/// (`machine-config-controller`, with no fieldManager): all of
/// `spec.config` but `storage.files` when `files` is false (a later writer
/// took them).
fn by_the_mco(files: bool) -> Value {
    let mut storage = json!({".": {}});
    if files {
        storage["f:files"] = json!({});
    }
    managed(
        "machine-config-controller",
        "Update",
        "2026-05-01T10:00:05Z",
        json!({
            "f:metadata": {
                "f:annotations": {".": {}, "f:machineconfiguration.openshift.io/generated-by-controller-version": {}},
                "f:labels": {".": {}, "f:machineconfiguration.openshift.io/role": {}},
                "f:ownerReferences": {".": {}, "k:{\"uid\":\"7d5bd6a4-0c9e-4f7c-9d0e-3a8f3c1b2a11\"}": {}}},
            "f:spec": {".": {}, "f:config": {".": {}, "f:ignition": {".": {}, "f:version": {}},
                "f:storage": storage}, "f:extensions": {}, "f:fips": {}, "f:kernelArguments": {},
                "f:kernelType": {}, "f:osImageURL": {}}}),
    )
}

/// `kubectl edit` of the generated MachineConfig's files.
fn by_kubectl_edit() -> Value {
    managed(
        "kubectl-edit",
        "Update",
        "2026-05-04T08:00:00Z",
        json!({"f:spec": {"f:config": {"f:storage": {"f:files": {}}}}}),
    )
}

/// `kubectl apply` (client-side) of a label only: the config is not touched.
fn labels_by_kubectl_apply() -> Value {
    managed(
        "kubectl-client-side-apply",
        "Update",
        "2026-05-05T08:00:00Z",
        json!({"f:metadata": {
            "f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}},
            "f:labels": {"f:team": {}}}}),
    )
}

/// Issue 36: CRs with one mirror, and a generated MachineConfig whose
/// registries.conf has a second one added by hand, with `writers` as its
/// managedFields (none when empty). The pool rendered the edit and both
/// nodes run it.
fn edited_generated(writers: &[Value]) -> TempDir {
    let dir = TempDir::new().unwrap();
    let edit = crs(&[M1, M2], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    let mut gen = generated(&edit, "2026-05-01T10:00:05Z");
    if !writers.is_empty() {
        gen["metadata"]["managedFields"] = json!(writers);
    }
    let mut all = crs(&[M1], "2026-05-01T10:00:00Z", &["registry.example.com"]);
    all.push(gen.clone());
    all.extend(others("worker"));
    all.push(rendered("rendered-worker-bbbb", &gen, &[]));
    all.push(pool("rendered-worker-bbbb", 2, 2, false));
    all.push(node("worker-0", "rendered-worker-bbbb"));
    all.push(node("worker-1", "rendered-worker-bbbb"));
    write(dir.path(), "cluster.json", &all);
    dir
}

const HAND_EDIT_CAUSE: &str = "  cause: MachineConfig/99-worker-generated-registries was edited by hand: its spec.config was last written by kubectl-edit at 2026-05-04T08:00:00Z, not by the MCO (machine-config-controller); the MCO rewrites it from the CRs at its next sync (on any change to them, and every 20 to 40 minutes) and reverts the edit; fix: to change /etc/containers/registries.conf, change the ImageDigestMirrorSets, ImageTagMirrorSets, ImageContentSourcePolicies or the Image config (spec.registrySources) instead\n";

/// Issue 36: a generated MachineConfig edited by hand (`kubectl edit`, as
/// its managedFields say) is named as the cause, with who and when, and
/// the fix is the CRs: not "the MCO has not synced".
#[test]
fn issue_36_a_hand_edit_of_the_generated_machine_config_is_the_cause() {
    let dir = edited_generated(&[by_the_mco(false), by_kubectl_edit()]);
    let (code, out) = run(dir.path(), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!(
            "/etc/containers/registries.conf: the CRs → MachineConfig/99-worker-generated-registries\n\
             \x20 - mirror `{M2}` (digest-only) for `registry.example.com/apps` is in MachineConfig/99-worker-generated-registries but not in the CRs\n\
             {HAND_EDIT_CAUSE}"
        )),
        "{out}"
    );
    assert!(!out.contains("has not synced"), "{out}");
    assert!(!out.contains("has not caught up"), "{out}");
    // The nodes run the edit: what reverting it does to them.
    assert!(
        out.contains(
            "to reach the CRs, nodes worker-0, worker-1 (running rendered-worker-bbbb) will: "
        ),
        "{out}"
    );

    let v = json_of(dir.path(), &[]);
    let drift = v["pools"][0]["drift"].as_array().unwrap();
    assert_eq!(drift.len(), 1, "{v}");
    assert_eq!(
        drift[0]["handEdits"],
        json!([{"manager": "kubectl-edit", "operation": "Update", "time": "2026-05-04T08:00:00Z"}])
    );
    assert_eq!(
        drift[0]["cause"].as_str().unwrap(),
        HAND_EDIT_CAUSE
            .trim_start()
            .trim_start_matches("cause: ")
            .trim_end()
    );
}

/// Issue 36: several writers of the config are named newest first; a
/// server-side apply is said so; a CR changed after the edit that has not
/// made the MCO rewrite it says the MCO is stuck.
#[test]
fn issue_36_several_writers_and_a_later_change_to_the_crs() {
    let apply = managed(
        "kubectl",
        "Apply",
        "2026-05-06T08:00:00Z",
        json!({"f:spec": {"f:config": {"f:storage": {"f:files": {}}}}}),
    );
    let dir = edited_generated(&[by_the_mco(false), by_kubectl_edit(), apply]);
    let v = json_of(dir.path(), &[]);
    let d = &v["pools"][0]["drift"][0];
    assert_eq!(
        d["handEdits"],
        json!([
            {"manager": "kubectl", "operation": "Apply", "time": "2026-05-06T08:00:00Z"},
            {"manager": "kubectl-edit", "operation": "Update", "time": "2026-05-04T08:00:00Z"},
        ])
    );
    let cause = d["cause"].as_str().unwrap();
    assert!(
        cause.contains("last written by kubectl (server-side apply) at 2026-05-06T08:00:00Z and kubectl-edit at 2026-05-04T08:00:00Z, not by the MCO"),
        "{cause}"
    );
    assert!(!cause.contains("after the edit"), "{cause}");

    // The IDMS recreated after the edit: the MCO should have rewritten
    // the MachineConfig at once.
    let later = TempDir::new().unwrap();
    let text = std::fs::read_to_string(dir.path().join("cluster.json")).unwrap();
    std::fs::write(
        later.path().join("cluster.json"),
        text.replacen("\"2026-05-01T10:00:00Z\"", "\"2026-05-07T09:00:00Z\"", 1),
    )
    .unwrap();
    let v = json_of(later.path(), &[]);
    let cause = v["pools"][0]["drift"][0]["cause"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        cause.ends_with("; ImageDigestMirrorSet/apps changed at 2026-05-07T09:00:00Z, after the edit, yet the MCO has not rewritten it: it may refuse the CRs (see the machine-config-controller log)"),
        "{cause}"
    );
}

/// Issue 36: a generated MachineConfig only ever written by the MCO, or
/// one whose labels only were applied by hand, reads as without
/// managedFields: the MCO not synced, no hand edit.
#[test]
fn issue_36_no_foreign_writer_of_the_config_leaves_the_output_unchanged() {
    let bare = edited_generated(&[]);
    let (_, text) = run(bare.path(), &[]);
    assert!(text.contains("cause: the generated MachineConfig does not carry what the CRs render: the MCO has not synced them"), "{text}");
    let json = json_of(bare.path(), &[]);
    for writers in [
        vec![by_the_mco(true)],
        vec![by_the_mco(true), labels_by_kubectl_apply()],
    ] {
        let dir = edited_generated(&writers);
        let (code, out) = run(dir.path(), &[]);
        assert_eq!(code, 1, "{writers:?}");
        assert_eq!(out, text, "{writers:?}");
        assert_eq!(json_of(dir.path(), &[]), json, "{writers:?}");
    }
    assert!(
        json["pools"][0]["drift"][0].get("handEdits").is_none(),
        "{json}"
    );
}

/// Issue 36: read live, the managedFields come through as from a file.
#[test]
fn issue_36_live_names_the_hand_edit() {
    let dir = edited_generated(&[by_the_mco(false), by_kubectl_edit()]);
    let server = support::apiserver::Builder::openshift()
        .objects_from(dir.path())
        .start();
    let home = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(home.path());
    for args in [&[][..], &["-o", "json"]] {
        let offline = bin()
            .args(["diff", "-f"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        let live = bin()
            .env("KUBECONFIG", &kubeconfig)
            .arg("diff")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(live.status.code(), Some(1), "{args:?}");
        let live = String::from_utf8(live.stdout).unwrap();
        assert!(live.contains("was edited by hand: its spec.config was last written by kubectl-edit at 2026-05-04T08:00:00Z"), "{args:?}: {live}");
        assert_eq!(live, String::from_utf8(offline.stdout).unwrap(), "{args:?}");
    }
}
