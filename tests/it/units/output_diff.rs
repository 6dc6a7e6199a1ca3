//! The unit tests of `output::diff` in the binary's library.

use serde_json::json;

use kubectl_mirrorpolicy::output::diff::*;
use mirrorpolicy::diff::impact::Action;
use mirrorpolicy::diff::Stage;
use mirrorpolicy::diff::{on_disk, Drift, Impact, PoolDiff, Report};

const REGISTRIES: &str = "/etc/containers/registries.conf";

fn plain() {
    // Unit tests compare plain text, whatever the terminal running them.
    colored::control::set_override(false);
}

fn stage(kind: &'static str, name: &str, mc: Option<&str>, nodes: &[&str]) -> Stage {
    Stage {
        kind,
        name: name.to_string(),
        machine_config: mc.map(str::to_string),
        nodes: nodes.iter().map(|n| n.to_string()).collect(),
        missing: None,
        files: None,
    }
}

/// Pool worker: the CRs, the generated MachineConfig, the target, and
/// one group of nodes on it.
fn pool(drift: Vec<Drift>, impact: Vec<Impact>, notes: &[&str]) -> PoolDiff {
    PoolDiff {
        pool: "worker".to_string(),
        state: "updated 2/2".to_string(),
        stages: vec![
            stage("crs", "the CRs", None, &[]),
            stage(
                "generated",
                "MachineConfig/99-worker-generated-registries",
                Some("99-worker-generated-registries"),
                &[],
            ),
            stage(
                "target",
                "the pool's target rendered-worker-aaaa",
                Some("rendered-worker-aaaa"),
                &[],
            ),
            stage(
                "nodes",
                "nodes worker-0, worker-1 (running rendered-worker-aaaa)",
                Some("rendered-worker-aaaa"),
                &["worker-0", "worker-1"],
            ),
        ],
        drift,
        impact,
        notes: notes.iter().map(|n| n.to_string()).collect(),
    }
}

fn drift(from: &str) -> Drift {
    Drift {
        nodes: Vec::new(),
        file: REGISTRIES.to_string(),
        from: from.to_string(),
        to: "MachineConfig/99-worker-generated-registries".to_string(),
        summary: vec!["mirror `backup.example.com/apps` (digest-only) for `registry.example.com/apps` is in the CRs but not in MachineConfig/99-worker-generated-registries".to_string()],
        cause: "ImageDigestMirrorSet/apps changed at 2026-05-03T09:00:00Z, after the generated MachineConfig was written at 2026-05-01T10:00:05Z".to_string(),
        hand_edits: Vec::new(),
        diff: "--- the CRs\n+++ MachineConfig/99-worker-generated-registries\n@@ -1,2 +1,1 @@\n location = \"mirror.example.com/apps\"\n-location = \"backup.example.com/apps\"\n".to_string(),
    }
}

fn impact() -> Impact {
    Impact {
        nodes: vec!["worker-0".to_string(), "worker-1".to_string()],
        config: "rendered-worker-aaaa".to_string(),
        files: vec![REGISTRIES.to_string()],
        action: Action::ReloadCrio,
        reasons: vec![format!(
            "{REGISTRIES}: only digest-only mirrors or registries added: reload CRI-O"
        )],
    }
}

fn text(report: &Report) -> String {
    plain();
    let mut out = Vec::new();
    write_text(&mut out, report).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn in_sync_pool_names_its_target_and_node_groups() {
    let report = Report {
        pools: vec![pool(Vec::new(), Vec::new(), &[])],
        drift: Some(false),
        not_read: Vec::new(),
    };
    assert_eq!(
        text(&report),
        "pool worker: updated 2/2 (target rendered-worker-aaaa)\n\
         \x20 nodes on rendered-worker-aaaa: worker-0, worker-1\n\
         \x20 no drift: the CRs, the MachineConfigs and the nodes agree\n"
    );
}

#[test]
fn notes_qualify_the_no_drift_line() {
    let mut p = pool(
        Vec::new(),
        Vec::new(),
        &["no MachineConfigPool in the input: only the CRs and the generated MachineConfig are compared"],
    );
    p.stages.retain(|s| s.kind != "target" && s.kind != "nodes");
    let report = Report {
        pools: vec![p],
        drift: Some(false),
        not_read: Vec::new(),
    };
    assert_eq!(
        text(&report),
        "pool worker: updated 2/2\n\
         \x20 no MachineConfigPool in the input: only the CRs and the generated MachineConfig are compared\n\
         \x20 no drift: the CRs, the MachineConfigs and the nodes agree where they could be compared\n"
    );
}

#[test]
fn drift_and_impact_with_the_drain_prediction() {
    let report = Report {
        pools: vec![pool(vec![drift("the CRs")], vec![impact()], &[])],
        drift: Some(true),
        not_read: Vec::new(),
    };
    assert_eq!(
        text(&report),
        "pool worker: updated 2/2 (target rendered-worker-aaaa)\n\
         \x20 nodes on rendered-worker-aaaa: worker-0, worker-1\n\
         \n\
         /etc/containers/registries.conf: the CRs → MachineConfig/99-worker-generated-registries\n\
         \x20 - mirror `backup.example.com/apps` (digest-only) for `registry.example.com/apps` is in the CRs but not in MachineConfig/99-worker-generated-registries\n\
         \x20 cause: ImageDigestMirrorSet/apps changed at 2026-05-03T09:00:00Z, after the generated MachineConfig was written at 2026-05-01T10:00:05Z\n\
         \x20   --- the CRs\n\
         \x20   +++ MachineConfig/99-worker-generated-registries\n\
         \x20   @@ -1,2 +1,1 @@\n\
         \x20    location = \"mirror.example.com/apps\"\n\
         \x20   -location = \"backup.example.com/apps\"\n\
         \n\
         to reach the CRs, nodes worker-0, worker-1 (running rendered-worker-aaaa) will: reload CRI-O without draining\n\
         \x20 - /etc/containers/registries.conf: only digest-only mirrors or registries added: reload CRI-O\n"
    );
}

#[test]
fn every_daemon_action_is_described() {
    for (action, want) in [
        (Action::None, "will: nothing\n"),
        (Action::ReloadCrio, "will: reload CRI-O without draining\n"),
        (
            Action::DrainReloadCrio,
            "will: drain the node, then reload CRI-O\n",
        ),
        (Action::DrainReboot, "will: drain and reboot the node\n"),
    ] {
        let mut i = impact();
        i.action = action;
        i.reasons.clear();
        let report = Report {
            pools: vec![pool(Vec::new(), vec![i], &[])],
            drift: Some(false),
            not_read: Vec::new(),
        };
        let out = text(&report);
        assert!(out.ends_with(want), "{action:?}: {out}");
    }
}

#[test]
fn with_names_the_proposed_files_and_a_drift_without_a_file() {
    let mut whole = drift("the CRs with new-idms.yaml");
    whole.file = String::new();
    whole.summary.clear();
    whole.diff = String::new();
    whole.cause = "the proposed objects are not applied yet".to_string();
    let report = Report {
        pools: vec![pool(vec![whole], Vec::new(), &[])],
        drift: Some(true),
        not_read: Vec::new(),
    };
    let out = text(&report);
    assert!(
        out.contains(
            "\nthe CRs with new-idms.yaml → MachineConfig/99-worker-generated-registries\n\
             \x20 cause: the proposed objects are not applied yet\n"
        ),
        "{out}"
    );
    assert!(!out.contains("no drift"), "{out}");
}

#[test]
fn on_disk_groups_say_which_nodes_differ() {
    let mut edited = drift("the current config rendered-worker-aaaa");
    edited.nodes = vec!["worker-1".to_string()];
    edited.to = "the files on worker-1".to_string();
    for (drift, want) in [
        (
            Vec::new(),
            "  files on disk: worker-0, worker-1 match their config\n  no drift: the CRs, the MachineConfigs, the nodes and their files on disk agree\n",
        ),
        (vec![edited], "  files on disk: worker-0 matches its config; worker-1 differs\n"),
    ] {
        let split = drift.is_empty();
        let mut p = pool(drift, Vec::new(), &[]);
        let groups: &[&[&str]] = if split {
            &[&["worker-0", "worker-1"]]
        } else {
            &[&["worker-0"], &["worker-1"]]
        };
        for nodes in groups {
            p.stages.push(stage(
                on_disk::KIND,
                &format!("the files on {}", nodes.join(", ")),
                Some("rendered-worker-aaaa"),
                nodes,
            ));
        }
        let out = text(&Report {
            pools: vec![p],
            drift: Some(!split),
            not_read: Vec::new(),
        });
        assert!(out.contains(want), "{out}");
    }
}

#[test]
fn pools_are_separated_by_a_blank_line() {
    let mut master = pool(Vec::new(), Vec::new(), &[]);
    master.pool = "master".to_string();
    master.stages.truncate(1);
    let report = Report {
        pools: vec![master, pool(Vec::new(), Vec::new(), &[])],
        drift: Some(false),
        not_read: Vec::new(),
    };
    let out = text(&report);
    assert!(
        out.starts_with(
            "pool master: updated 2/2\n\
             \x20 no drift: the CRs, the MachineConfigs and the nodes agree\n\
             \n\
             pool worker: updated 2/2 (target rendered-worker-aaaa)\n"
        ),
        "{out}"
    );
}

#[test]
fn json_is_the_report_object() {
    let report = Report {
        pools: vec![pool(vec![drift("the CRs")], vec![impact()], &[])],
        drift: Some(true),
        not_read: Vec::new(),
    };
    let mut out = Vec::new();
    write_json(&mut out, &report).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.ends_with("}\n"), "{text}");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["drift"], json!(true));
    let pool = &value["pools"][0];
    assert_eq!(pool["pool"], json!("worker"));
    assert_eq!(
        pool["stages"][3],
        json!({"kind": "nodes", "name": "nodes worker-0, worker-1 (running rendered-worker-aaaa)",
               "machineConfig": "rendered-worker-aaaa", "nodes": ["worker-0", "worker-1"]})
    );
    assert_eq!(pool["stages"][0], json!({"kind": "crs", "name": "the CRs"}));
    assert_eq!(pool["drift"][0]["from"], json!("the CRs"));
    // No hand edit: no `handEdits`.
    assert_eq!(pool["drift"][0].get("handEdits"), None);
    assert_eq!(pool["impact"][0]["action"], json!("reload-crio"));
    assert_eq!(pool["impact"][0]["files"], json!([REGISTRIES]));
    assert_eq!(pool["notes"], json!([]));
}
