//! Issue 24: `explain --journal-file`, CRI-O's pull log replayed against the
//! explanation, through the binary: every verdict class, both `time=`
//! formats, several nodes' merged output, and the exit codes.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

use support::bin;

const IMAGE: &str = "quay.io/ns/app:v1";
const M1: &str = "m1.example.com/ns/app:v1";
const M2: &str = "m2.example.com/ns/app:v1";

/// Two mirrors before a blocked source.
const REGISTRIES_CONF: &str = "[[registry]]\nprefix = \"quay.io/ns\"\nlocation = \"quay.io/ns\"\nblocked = true\n\n[[registry.mirror]]\nlocation = \"m1.example.com/ns\"\n\n[[registry.mirror]]\nlocation = \"m2.example.com/ns\"\n";

/// CRI-O's `time=` formats: up to 1.31 (OpenShift 4.18) and from 1.32.
#[derive(Clone, Copy)]
enum Format {
    Old,
    Rfc3339Nano,
}

/// A journal line as `oc adm node-logs` prints it, `n` seconds after 10:00.
fn jline(format: Format, host: &str, n: u32, id: Option<&str>, msg: &str) -> String {
    let time = match format {
        Format::Old => format!("2024-05-01 10:00:{n:02}.250000000Z"),
        Format::Rfc3339Nano => format!("2024-05-01T10:00:{n:02}.25Z"),
    };
    let id = id.map_or(String::new(), |i| {
        format!(" id={i} name=/runtime.v1.ImageService/PullImage")
    });
    let msg = msg.replace('\\', "\\\\").replace('"', "\\\"");
    format!("May 01 10:00:{n:02}.250000 {host} crio[2211]: time=\"{time}\" level=info msg=\"{msg}\"{id}\n")
}

/// A pull on `host`: `Pulling`, one `Trying to access` per source, and
/// `Pulled` when `pulled`.
fn pull(format: Format, host: &str, start: u32, id: &str, tried: &[&str], pulled: bool) -> String {
    pull_of(format, host, (start, id), IMAGE, tried, pulled)
}

/// [`pull`] of any image.
fn pull_of(
    format: Format,
    host: &str,
    (start, id): (u32, &str),
    image: &str,
    tried: &[&str],
    pulled: bool,
) -> String {
    let mut out = jline(
        format,
        host,
        start,
        Some(id),
        &format!("Pulling image: {image}"),
    );
    for (i, t) in tried.iter().enumerate() {
        out += &jline(
            format,
            host,
            start + 1 + i as u32,
            None,
            &format!("Trying to access \"{t}\""),
        );
    }
    if pulled {
        out += &jline(
            format,
            host,
            start + 1 + tried.len() as u32,
            Some(id),
            "Pulled image: quay.io/ns/app@sha256:0b0e",
        );
    }
    out
}

fn setup(journal: &str) -> (TempDir, PathBuf, PathBuf) {
    let dir = TempDir::new().unwrap();
    let conf = dir.path().join("registries.conf");
    fs::write(&conf, REGISTRIES_CONF).unwrap();
    let j = dir.path().join("crio.log");
    fs::write(&j, journal).unwrap();
    (dir, conf, j)
}

/// The JSON on stdout of a run already checked (its exit code).
fn stdout_json(run: assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&run.get_output().stdout).expect("JSON on stdout")
}

fn explain_json(conf: &Path, journal: &Path, code: i32) -> Value {
    let out = bin()
        .args(["explain", IMAGE, "-o", "json", "--registries-conf"])
        .arg(conf)
        .arg("--journal-file")
        .arg(journal)
        .assert()
        .code(code)
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

#[test]
fn issue_24_every_verdict_class_both_time_formats() {
    for format in [Format::Old, Format::Rfc3339Nano] {
        for (name, journal, code, verdict, kind) in [
            (
                "second mirror serves",
                pull(format, "worker-0", 0, "a", &[M1, M2], true),
                0,
                "asExpected",
                Value::Null,
            ),
            // The blocked source gets its own line, listed and refused: no divergence.
            (
                "blocked source listed, pull fails, kubelet retries",
                pull(format, "worker-0", 0, "a", &[M1, M2, IMAGE], false)
                    + &pull(format, "worker-0", 20, "b", &[M1], true),
                0,
                "asExpected",
                Value::Null,
            ),
            (
                "blocked source served",
                pull(format, "worker-0", 0, "a", &[M1, M2, IMAGE], true),
                1,
                "diverges",
                "servedByBlockedSource".into(),
            ),
            (
                "mirror skipped",
                pull(format, "worker-0", 0, "a", &[M2], true),
                1,
                "diverges",
                "mirrorSkipped".into(),
            ),
            (
                "another configuration",
                pull(
                    format,
                    "worker-0",
                    0,
                    "a",
                    &["other.example.com/ns/app:v1"],
                    true,
                ),
                1,
                "diverges",
                "unexpectedSource".into(),
            ),
            (
                "log ends first",
                pull(format, "worker-0", 0, "a", &[M1], false),
                3,
                "undetermined",
                Value::Null,
            ),
        ] {
            let (_dir, conf, j) = setup(&journal);
            let v = explain_json(&conf, &j, code);
            let first = &v["journal"][0];
            assert_eq!(first["node"], "worker-0", "{name}");
            assert_eq!(first["time"], "2024-05-01T10:00:00.25Z", "{name}");
            let attempt = &first["pulls"][0];
            assert_eq!(attempt["verdict"], verdict, "{name}: {attempt}");
            assert_eq!(attempt["divergence"]["kind"], kind, "{name}: {attempt}");
        }
    }
}

#[test]
fn issue_24_served_by_mirror_json_contract() {
    let (_dir, conf, j) = setup(&pull(
        Format::Rfc3339Nano,
        "worker-0",
        0,
        "a",
        &[M1, M2],
        true,
    ));
    let v = explain_json(&conf, &j, 0);
    let r = &v["journal"][0];
    assert_eq!(r["image"], IMAGE);
    assert_eq!(r["outcome"], "pulled");
    assert_eq!(r["result"], "quay.io/ns/app@sha256:0b0e");
    let a = &r["pulls"][0];
    assert_eq!(a["tried"], serde_json::json!([M1, M2]));
    assert_eq!(a["servedBy"], M2);
    assert_eq!(a["outcome"], "pulled");
    assert_eq!(a["divergence"], Value::Null);
}

#[test]
fn issue_24_merged_nodes_text_output() {
    let journal = pull(Format::Old, "worker-0", 0, "a", &[M1], true)
        + &pull(Format::Old, "worker-1", 1, "b", &[M2], true);
    let (_dir, conf, j) = setup(&journal);
    bin()
        .args(["explain", IMAGE, "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(&j)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "Journal:   2 pulls of quay.io/ns/app:v1 in the log",
        ))
        .stdout(predicate::str::contains(
            "worker-0  quay.io/ns/app:v1 pulled quay.io/ns/app@sha256:0b0e",
        ))
        .stdout(predicate::str::contains(format!("1. {M1}  served")))
        .stdout(predicate::str::contains(format!(
            "{M1} was not tried before {M2}"
        )));
}

#[test]
fn issue_24_not_a_journal_and_missing_file() {
    let (dir, conf, j) = setup("this is not\njournal output\n");
    bin()
        .args(["explain", IMAGE, "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(&j)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "crio.log: line 1 is not journal output",
        ));
    bin()
        .args(["explain", IMAGE, "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(dir.path().join("absent.log"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read journal file"));
}

#[test]
fn issue_24_no_pull_in_the_window() {
    let other = jline(
        Format::Old,
        "worker-0",
        0,
        Some("z"),
        "Pulling image: quay.io/other/x:1",
    );
    let (_dir, conf, j) = setup(&other);
    bin()
        .args(["explain", IMAGE, "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(&j)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "Journal:   no pull of quay.io/ns/app:v1 in the log",
        ));
}

/// Against cluster objects: the example cluster blocks registry.redhat.io
/// (NeverContactSource), so the source serving is a divergence.
#[test]
fn issue_24_cluster_objects_blocked_source_served() {
    const RHEL: &str = "registry.redhat.io/rhel9/support-tools:latest";
    const TAG_MIRROR: &str = "mirror.corp.example.com:5000/rhel9-tags/support-tools:latest";
    let journal = jline(
        Format::Rfc3339Nano,
        "worker-1",
        0,
        Some("a"),
        &format!("Pulling image: {RHEL}"),
    ) + &jline(
        Format::Rfc3339Nano,
        "worker-1",
        1,
        None,
        &format!("Trying to access \"{TAG_MIRROR}\""),
    ) + &jline(
        Format::Rfc3339Nano,
        "worker-1",
        2,
        None,
        &format!("Trying to access \"{RHEL}\""),
    ) + &jline(
        Format::Rfc3339Nano,
        "worker-1",
        3,
        Some("a"),
        "Pulled image: registry.redhat.io/rhel9/support-tools@sha256:aa",
    );
    let dir = TempDir::new().unwrap();
    let j = dir.path().join("crio.log");
    fs::write(&j, journal).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/disconnected-cluster");
    bin()
        .args(["explain", RHEL, "-f"])
        .arg(&root)
        .arg("--journal-file")
        .arg(&j)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "which is blocked: CRI-O should have refused it",
        ));
}

/// A node-files folder whose worker-0 has the two mirrors and the blocked source.
fn node_files(dir: &Path) -> PathBuf {
    let root = dir.join("nodes");
    let etc = root.join("worker-0/etc/containers");
    fs::create_dir_all(&etc).unwrap();
    fs::write(etc.join("registries.conf"), REGISTRIES_CONF).unwrap();
    root
}

fn live(
    server: &support::apiserver::FakeApiServer,
    dir: &Path,
    extra: &[&str],
) -> assert_cmd::assert::Assert {
    let kubeconfig = server.write_kubeconfig(dir);
    bin()
        .args([
            "explain",
            IMAGE,
            "-o",
            "json",
            "--node",
            "worker-0",
            "--node-files",
        ])
        .arg(node_files(dir))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("--journal")
        .args(extra)
        .assert()
}

#[test]
fn issue_24_live_query_mode_gzip_and_parameters() {
    let journal = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1, M2], true)
        + "May 01 10:00:09.000000 worker-0 crio[2211]: time=\"2024-05-01T10:00:09Z\" level=info msg=\"Created container x\"\n";
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &journal)
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(live(&server, dir.path(), &["--since", "2h"]).code(0));
    assert_eq!(v["journal"][0]["pulls"][0]["servedBy"], M2);
    let logged = server.log();
    let req = logged
        .iter()
        .find(|l| l.path.contains("/proxy/logs"))
        .unwrap();
    assert_eq!(req.path, "/api/v1/nodes/worker-0/proxy/logs/journal");
    for (k, want) in [
        ("unit", "crio"),
        ("query", "crio"),
        ("since", "-2h"),
        ("case-sensitive", "true"),
    ] {
        assert_eq!(
            req.query.get(k).map(String::as_str),
            Some(want),
            "{k}: {:?}",
            req.query
        );
    }
    assert!(
        req.query
            .get("pattern")
            .is_some_and(|p| p.contains("Trying to access")),
        "{:?}",
        req.query
    );
    assert_eq!(req.query.get("grep"), req.query.get("pattern"));
    assert!(!req.query.contains_key("sinceTime") && !req.query.contains_key("untilTime"));
}

/// The kubelet's 406 fallback query carries no end time: `--until` is
/// applied to the pulls read, so a pull after it is not judged.
#[test]
fn issue_24_live_406_fallback_keeps_until() {
    let journal = pull(Format::Old, "worker-0", 0, "a", &[M1, M2, IMAGE], true)
        + &pull(Format::Old, "worker-0", 30, "b", &[M1], true);
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &journal)
        .without_log_query()
        .start();
    let dir = TempDir::new().unwrap();
    let all = live(&server, dir.path(), &["--since", "2024-05-01 09:00:00"])
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&all).unwrap();
    assert_eq!(v["journal"].as_array().map(Vec::len), Some(2), "{v}");
    let until = [
        "--since",
        "2024-05-01 09:00:00",
        "--until",
        "2024-05-01 10:00:20",
    ];
    let v = stdout_json(live(&server, dir.path(), &until).code(1));
    assert_eq!(v["journal"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(
        v["journal"][0]["pulls"][0]["divergence"]["kind"],
        "servedByBlockedSource"
    );
}

#[test]
fn issue_24_live_406_falls_back_and_judges() {
    let server = support::apiserver::Builder::openshift()
        .node_journal(
            "worker-0",
            &pull(Format::Old, "worker-0", 0, "a", &[M1, M2, IMAGE], true),
        )
        .without_log_query()
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(live(&server, dir.path(), &[]).code(1));
    assert_eq!(
        v["journal"][0]["pulls"][0]["divergence"]["kind"],
        "servedByBlockedSource"
    );
    let paths: Vec<String> = server
        .log()
        .iter()
        .filter(|l| l.path.contains("/proxy/logs"))
        .map(|l| l.path.clone())
        .collect();
    assert_eq!(
        paths,
        [
            "/api/v1/nodes/worker-0/proxy/logs/journal",
            "/api/v1/nodes/worker-0/proxy/logs/"
        ]
    );
    let fallback = server
        .log()
        .into_iter()
        .find(|l| l.path.ends_with("/proxy/logs/"))
        .unwrap();
    assert_eq!(
        fallback.query.get("query").map(String::as_str),
        Some("crio")
    );
    assert!(
        fallback
            .query
            .get("sinceTime")
            .is_some_and(|t| t.ends_with('Z')),
        "{:?}",
        fallback.query
    );
}

#[test]
fn issue_24_live_forbidden_names_nodes_proxy() {
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", "")
        .forbid("get", "nodes/proxy")
        .forbid("list", "events")
        .start();
    let dir = TempDir::new().unwrap();
    live(&server, dir.path(), &[])
        .code(3)
        .stderr(predicate::str::contains("needs `get nodes/proxy`"))
        .stderr(predicate::str::contains("effectively exec on the node"))
        .stderr(predicate::str::contains("`list events` is forbidden too"));
    live(&server, dir.path(), &["--since", "yesterday"])
        .code(2)
        .stderr(predicate::str::contains(
            "--since: \"yesterday\" is neither a duration",
        ));
}

/// The mirrors of `REGISTRIES_CONF` as cluster objects: tag mirrors before a
/// source never contacted.
const ITMS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: ns\nspec:\n  imageTagMirrors:\n  - source: quay.io/ns\n    mirrors:\n    - m1.example.com/ns\n    - m2.example.com/ns\n    mirrorSourcePolicy: NeverContactSource\n";

fn audit_setup(journal: &str) -> (TempDir, PathBuf, PathBuf) {
    let dir = TempDir::new().unwrap();
    let objects = dir.path().join("itms.yaml");
    fs::write(&objects, ITMS).unwrap();
    let j = dir.path().join("crio.log");
    fs::write(&j, journal).unwrap();
    (dir, objects, j)
}

fn audit_journal(objects: &Path, journal: &Path, json: bool) -> assert_cmd::assert::Assert {
    let mut cmd = bin();
    cmd.arg("audit")
        .arg("-f")
        .arg(objects)
        .arg("--journal-file")
        .arg(journal);
    if json {
        cmd.args(["-o", "json"]);
    }
    cmd.assert()
}

/// Three nodes, two images: the diverging image comes first, with how many
/// pulls each source served and the mirrors that never served.
#[test]
fn issue_24_audit_journal_file_fleet_json() {
    let db = "quay.io/ns/db:v2";
    let journal = pull(Format::Old, "worker-0", 0, "a", &[M1], true)
        + &pull_of(
            Format::Rfc3339Nano,
            "worker-2",
            (4, "c"),
            db,
            &["m1.example.com/ns/db:v2"],
            true,
        )
        + &pull(Format::Rfc3339Nano, "worker-1", 10, "b", &[M2], true)
        + &pull(Format::Old, "worker-0", 20, "d", &[M1], true);
    let (_dir, objects, j) = audit_setup(&journal);
    let v = stdout_json(audit_journal(&objects, &j, true).code(1));
    assert_eq!(v["pulls"], 4);
    assert_eq!(
        v["nodes"],
        serde_json::json!(["worker-0", "worker-1", "worker-2"])
    );
    let app = &v["images"][0];
    assert_eq!(app["image"], IMAGE, "{v}");
    assert_eq!(app["pulls"], 3);
    assert_eq!(app["nodes"], serde_json::json!(["worker-0", "worker-1"]));
    assert_eq!(
        app["outcomes"],
        serde_json::json!({"pulled": 3, "failed": 0, "unfinished": 0})
    );
    assert_eq!(
        app["verdicts"],
        serde_json::json!({"asExpected": 2, "diverges": 1, "undetermined": 0})
    );
    assert_eq!(
        app["servedBy"],
        serde_json::json!([
            {"reference": M1, "role": "mirror", "pulls": 2},
            {"reference": M2, "role": "mirror", "pulls": 1}
        ])
    );
    assert_eq!(app["neverServed"], serde_json::json!([]));
    assert_eq!(
        app["journal"][1]["pulls"][0]["divergence"]["kind"],
        "mirrorSkipped"
    );
    let dbv = &v["images"][1];
    assert_eq!(dbv["image"], db);
    assert_eq!(dbv["verdicts"]["asExpected"], 1);
    assert_eq!(
        dbv["neverServed"],
        serde_json::json!(["m2.example.com/ns/db:v2"])
    );
}

#[test]
fn issue_24_audit_journal_file_exit_codes_and_text() {
    let fine = pull(Format::Old, "worker-0", 0, "a", &[M1], true);
    let (_dir, objects, j) = audit_setup(&fine);
    audit_journal(&objects, &j, false)
        .code(0)
        .stdout(predicate::str::contains(
            "Pull log: 1 pull of 1 image on 1 node in",
        ))
        .stdout(predicate::str::contains("all as expected"))
        .stdout(predicate::str::contains(format!(
            "served by       1  {M1} (mirror)"
        )))
        .stdout(predicate::str::contains(format!(
            "never served       {M2} (mirror)"
        )));
    let unfinished = pull(Format::Old, "worker-0", 0, "a", &[M1], false);
    let (_dir, objects, j) = audit_setup(&unfinished);
    audit_journal(&objects, &j, false)
        .code(3)
        .stdout(predicate::str::contains("1 undetermined"));
    let blocked = pull(Format::Old, "worker-3", 0, "a", &[M1, M2, IMAGE], true);
    let (_dir, objects, j) = audit_setup(&blocked);
    audit_journal(&objects, &j, false)
        .code(1)
        .stdout(predicate::str::contains(format!(
            "served by       1  {IMAGE} (source)"
        )))
        .stdout(predicate::str::contains(
            "! 2024-05-01T10:00:00.25Z  worker-3: served by quay.io/ns/app:v1, which is blocked",
        ));
}

#[test]
fn issue_24_audit_journal_file_bad_input() {
    let (dir, objects, j) = audit_setup("not a journal\n");
    audit_journal(&objects, &j, false)
        .code(2)
        .stderr(predicate::str::contains("line 1 is not journal output"));
    audit_journal(&objects, &dir.path().join("missing.log"), false)
        .code(2)
        .stderr(predicate::str::contains("cannot read journal file"));
    bin()
        .arg("audit")
        .arg("-f")
        .arg(&objects)
        .arg("--journal-file")
        .arg(&j)
        .arg("--probe")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
    let (_dir, objects, j) = audit_setup("");
    audit_journal(&objects, &j, true)
        .code(0)
        .stderr(predicate::str::contains("no pull in"));
}

/// The kubelet's events of a pull on `host` at `time` (`reason` Failed or Pulled).
fn event(name: &str, host: &str, time: &str, reason: &str, message: &str) -> String {
    let message = message
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!(
        "---\napiVersion: v1\nkind: Event\nmetadata: {{name: {name}, namespace: shop}}\ninvolvedObject: {{kind: Pod, name: app-1, namespace: shop}}\nreason: {reason}\ntype: Normal\nmessage: \"{message}\"\nsource: {{component: kubelet, host: {host}}}\nlastTimestamp: \"{time}\"\n"
    )
}

/// `get nodes/proxy` forbidden, `list events` allowed: the failure's full
/// error names each source tried (judged), the success's source is
/// undetermined and said to be; other nodes' and older events are left out.
#[test]
fn issue_24_live_forbidden_falls_back_to_events() {
    let failed = format!("Failed to pull image \"{IMAGE}\": rpc error: code = Unknown desc = (Mirrors also failed: [{M1}: reading manifest v1 in m1.example.com/ns/app: manifest unknown]\n[{M2}: pinging container registry m2.example.com: i/o timeout]): {IMAGE}: registry quay.io/ns is blocked in registries.conf");
    let pulled = format!("Successfully pulled image \"{IMAGE}\" in 1.2s (1.2s including waiting). Image size: 1024 bytes.");
    let events = event("a", "worker-0", "2024-05-01T10:00:00Z", "Failed", &failed)
        + &event("b", "worker-0", "2024-05-01T10:05:00Z", "Pulled", &pulled)
        + &event("c", "worker-1", "2024-05-01T10:06:00Z", "Pulled", &pulled)
        + &event("d", "worker-0", "2024-04-30T10:00:00Z", "Failed", &failed)
        + &event(
            "e",
            "worker-0",
            "2024-05-01T10:07:00Z",
            "Pulled",
            &format!("Container image \"{IMAGE}\" already present on machine"),
        );
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", "")
        .forbid("get", "nodes/proxy")
        .objects_from_yaml(&events)
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(live(&server, dir.path(), &["--since", "2024-05-01 00:00:00"]).code(3));
    assert!(
        v["warnings"]
            .to_string()
            .contains("pull events of node worker-0 are shown instead"),
        "{}",
        v["warnings"]
    );
    let journal = v["journal"].as_array().unwrap();
    assert_eq!(journal.len(), 2, "{v}");
    let f = &journal[0]["pulls"][0];
    assert_eq!(journal[0]["outcome"], "failed");
    assert_eq!(f["tried"], serde_json::json!([M1, M2, IMAGE]));
    assert_eq!(f["verdict"], "asExpected", "{f}");
    assert_eq!(f["errors"][1]["reference"], M2);
    assert_eq!(
        f["errors"][1]["error"],
        "pinging container registry m2.example.com: i/o timeout"
    );
    let p = &journal[1]["pulls"][0];
    assert_eq!(journal[1]["outcome"], "pulled");
    assert_eq!(p["verdict"], "undetermined");
    assert_eq!(p["servedBy"], Value::Null);
    assert!(p["note"]
        .as_str()
        .unwrap()
        .contains("events do not name the source that served"));
}

/// The kubelet cuts an answer that took 30 s: explain says where it ends, exit 3.
#[test]
fn issue_24_live_answer_cut_at_30s() {
    let journal = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1], true)
        + &pull(Format::Rfc3339Nano, "worker-0", 10, "b", &[M1], true);
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &journal)
        .node_journal_cut("worker-0", std::time::Duration::from_secs(30))
        .start();
    let dir = TempDir::new().unwrap();
    let out = live(&server, dir.path(), &[]).code(3).get_output().clone();
    let all =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        all.contains("the kubelet stops journalctl after 30s and cuts the answer without a word; it ends at 2024-05-01T10:00:02.25Z"),
        "{all}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["journal"].as_array().unwrap().len(), 1, "{v}");
}

/// Nodes of two pools, a Windows node and a node without a log.
const FLEET: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: worker-0, labels: {node-role.kubernetes.io/worker: ''}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: worker-1, labels: {node-role.kubernetes.io/worker: ''}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: worker-2, labels: {node-role.kubernetes.io/worker: ''}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: infra-0, labels: {node-role.kubernetes.io/worker: '', node-role.kubernetes.io/infra: ''}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: win-0, labels: {node-role.kubernetes.io/worker: '', kubernetes.io/os: windows}}\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: worker}\nspec: {nodeSelector: {matchLabels: {node-role.kubernetes.io/worker: ''}}}\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: infra}\nspec: {nodeSelector: {matchLabels: {node-role.kubernetes.io/infra: ''}}}\n";

fn fleet_server() -> support::apiserver::FakeApiServer {
    let other = "other.example.com/ns/app:v1";
    support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal(
            "worker-0",
            &pull(Format::Old, "worker-0", 0, "a", &[M1, M2], true),
        )
        .node_journal(
            "worker-1",
            &(pull(
                Format::Rfc3339Nano,
                "worker-1",
                0,
                "b",
                &[M1, M2, IMAGE],
                true,
            ) + &pull(Format::Rfc3339Nano, "worker-1", 10, "c", &[other], true)),
        )
        .node_journal(
            "infra-0",
            &(pull(Format::Rfc3339Nano, "infra-0", 20, "d", &[M2], true)
                + &pull(Format::Rfc3339Nano, "infra-0", 30, "e", &[M1], false)),
        )
        .start()
}

fn audit_live(
    server: &support::apiserver::FakeApiServer,
    dir: &Path,
    extra: &[&str],
) -> assert_cmd::assert::Assert {
    let kubeconfig = server.write_kubeconfig(dir);
    bin()
        .args(["audit", "--journal", "--kubeconfig"])
        .arg(kubeconfig)
        .args(extra)
        .assert()
}

/// Every Linux node read, each judged against its own pool; every verdict
/// class; the node whose log cannot be read is named and the rest go on.
#[test]
fn issue_24_live_audit_journal_every_verdict_class() {
    let server = fleet_server();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(audit_live(&server, dir.path(), &["-o", "json", "--since", "2h"]).code(1));
    assert_eq!(
        v["pools"],
        serde_json::json!([
            {"pool": "infra", "nodes": ["infra-0"]},
            {"pool": "worker", "nodes": ["worker-0", "worker-1"]}
        ])
    );
    let unread = &v["undeterminedNodes"];
    assert_eq!(unread.as_array().unwrap().len(), 1, "{unread}");
    assert_eq!(unread[0]["node"], "worker-2");
    assert_eq!(unread[0]["reason"], "unread");
    assert_eq!(unread[0]["pool"], "worker");
    let app = &v["images"][0];
    assert_eq!(app["image"], IMAGE);
    assert_eq!(
        app["verdicts"],
        serde_json::json!({"asExpected": 1, "diverges": 3, "undetermined": 1})
    );
    let kinds: Vec<(String, String, Value)> = app["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["node"].as_str().unwrap().to_string(),
                r["pool"].as_str().unwrap().to_string(),
                r["pulls"][0]["divergence"]["kind"].clone(),
            )
        })
        .collect();
    for want in [
        ("worker-0", "worker", Value::Null),
        ("worker-1", "worker", "servedByBlockedSource".into()),
        ("worker-1", "worker", "unexpectedSource".into()),
        ("infra-0", "infra", "mirrorSkipped".into()),
        ("infra-0", "infra", Value::Null),
    ] {
        let want = (want.0.to_string(), want.1.to_string(), want.2);
        assert!(kinds.contains(&want), "{want:?} not in {kinds:?}");
    }
    // The pull-line queries (each node's last line is asked apart).
    let read: Vec<String> = server
        .log()
        .iter()
        .filter(|l| l.path.contains("/proxy/logs") && !l.query.contains_key("tailLines"))
        .map(|l| l.path.clone())
        .collect();
    assert!(!read.iter().any(|p| p.contains("win-0")), "{read:?}");
    assert_eq!(read.len(), 4, "{read:?}");
    audit_live(&server, dir.path(), &[])
        .code(1)
        .stdout(predicate::str::contains(
            "judged against each node's own pool's configuration",
        ))
        .stdout(predicate::str::contains("  pool infra: infra-0"))
        .stdout(predicate::str::contains(
            "? node worker-2 (pool worker): not read: its log could not be read: node worker-2: the CRI-O log answer is HTTP 404",
        ));
}

#[test]
fn issue_24_live_audit_journal_node_and_pool_choice() {
    let server = fleet_server();
    let dir = TempDir::new().unwrap();
    audit_live(&server, dir.path(), &["--node", "worker-0"])
        .code(0)
        .stdout(predicate::str::contains(
            "1 pull of 1 image on 1 node in the nodes' CRI-O logs since 1h, judged against pool worker's configuration",
        ))
        .stdout(predicate::str::contains("all as expected"));
    // infra-0's second pull never ends: undetermined, exit 1 for the skipped mirror first.
    let v =
        stdout_json(audit_live(&server, dir.path(), &["--pool", "infra", "-o", "json"]).code(1));
    assert_eq!(
        v["pools"],
        serde_json::json!([{"pool": "infra", "nodes": ["infra-0"]}])
    );
    audit_live(&server, dir.path(), &["--node", "nosuch"])
        .code(2)
        .stderr(predicate::str::contains("--node nosuch: no such Node"));
    audit_live(&server, dir.path(), &["--pool", "gpu"])
        .code(2)
        .stderr(predicate::str::contains("no MachineConfigPool \"gpu\""));
    audit_live(
        &server,
        dir.path(),
        &["--node", "worker-0", "--pool", "worker"],
    )
    .code(2)
    .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn issue_24_live_audit_journal_unfinished_and_forbidden() {
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal(
            "worker-0",
            &pull(Format::Old, "worker-0", 0, "a", &[M1], false),
        )
        .start();
    let dir = TempDir::new().unwrap();
    audit_live(&server, dir.path(), &["--node", "worker-0"])
        .code(3)
        .stdout(predicate::str::contains("1 undetermined"));
    let forbidden = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal("worker-0", "")
        .forbid("get", "nodes/proxy")
        .forbid("list", "events")
        .start();
    audit_live(&forbidden, dir.path(), &[])
        .code(3)
        .stderr(predicate::str::contains("needs `get nodes/proxy`"))
        .stderr(predicate::str::contains("`list events` is forbidden too"));
}

/// `get nodes/proxy` forbidden, `list events` allowed: each node's pulls
/// come from the kubelet's pull events, as `explain --node N --journal`
/// reads them: a failure judged from its error, a success's source
/// undetermined (exit 3), each node named with what events cannot tell.
#[test]
fn issue_24_live_audit_journal_forbidden_falls_back_to_events() {
    let failed = format!("Failed to pull image \"{IMAGE}\": rpc error: code = Unknown desc = (Mirrors also failed: [{M1}: manifest unknown]\n[{M2}: i/o timeout]): {IMAGE}: registry quay.io/ns is blocked in registries.conf");
    let pulled = format!("Successfully pulled image \"{IMAGE}\" in 1.2s (1.2s including waiting). Image size: 1024 bytes.");
    let events = event("a", "worker-0", "2024-05-01T10:00:00Z", "Failed", &failed)
        + &event("b", "worker-1", "2024-05-01T10:05:00Z", "Pulled", &pulled)
        + &event("c", "infra-0", "2024-04-30T10:00:00Z", "Pulled", &pulled);
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .objects_from_yaml(&events)
        .node_journal("worker-0", "")
        .forbid("get", "nodes/proxy")
        .start();
    let dir = TempDir::new().unwrap();
    let since = [
        "--since",
        "2024-05-01 00:00:00",
        "--until",
        "2024-05-02 00:00:00",
    ];
    let v = stdout_json(
        audit_live(&server, dir.path(), &[&since[..], &["-o", "json"]].concat()).code(3),
    );
    let notes = v["undeterminedNodes"].as_array().unwrap();
    assert_eq!(notes.len(), 4, "{v}");
    assert!(notes.iter().all(|n| n["reason"] == "events"), "{v}");
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("never the source that served a successful pull (undetermined)"));
    let app = &v["images"][0];
    assert_eq!(app["image"], IMAGE);
    assert_eq!(
        app["pulls"], 2,
        "the older event is outside the window: {v}"
    );
    assert_eq!(
        app["verdicts"],
        serde_json::json!({"asExpected": 1, "diverges": 0, "undetermined": 1})
    );
    let first = &app["journal"][0];
    assert_eq!(first["node"], "worker-0");
    assert_eq!(first["pool"], "worker");
    assert_eq!(
        first["pulls"][0]["tried"],
        serde_json::json!([M1, M2, IMAGE])
    );
    assert!(app["journal"][1]["pulls"][0]["note"]
        .as_str()
        .unwrap()
        .contains("events do not name the source that served"));
    audit_live(&server, dir.path(), &since)
        .code(3)
        .stdout(predicate::str::contains(
            "? node worker-1 (pool worker): from events: ",
        ));
}

/// `--since`/`--until` on journal files keep the pulls whose `Pulling
/// image` line is in the window, with all their lines.
#[test]
fn issue_24_window_on_journal_files() {
    // Pulls at 10:00:00, :10 and :30; the first tries its mirror at :01;
    // the second skips a mirror (exit 1).
    let journal = pull(Format::Old, "worker-0", 0, "a", &[M1], true)
        + &pull(Format::Rfc3339Nano, "worker-0", 10, "b", &[M2, M1], true)
        + &pull(Format::Old, "worker-1", 30, "c", &[M1], true);
    let (dir, conf, j) = setup(&journal);
    let window = [
        "--since",
        "2024-05-01 10:00:01",
        "--until",
        "2024-05-01 10:00:29",
    ];
    let out = bin()
        .args(["explain", IMAGE, "-o", "json", "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(&j)
        .args(window)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let ids: Vec<&str> = v["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["b"], "{v}");
    assert_eq!(
        v["journal"][0]["pulls"][0]["tried"],
        serde_json::json!([M2, M1])
    );
    // --until alone: from the file's start.
    let v = {
        let out = bin()
            .args(["explain", IMAGE, "-o", "json", "--registries-conf"])
            .arg(&conf)
            .arg("--journal-file")
            .arg(&j)
            .args(["--until", "2024-05-01 10:00:11"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice::<Value>(&out).unwrap()
    };
    assert_eq!(v["journal"].as_array().unwrap().len(), 2, "{v}");
    // audit: the same window; a duration counts back from now.
    let objects = dir.path().join("itms.yaml");
    fs::write(&objects, ITMS).unwrap();
    let audit = |extra: &[&str]| {
        bin()
            .args(["audit", "-f"])
            .arg(&objects)
            .arg("--journal-file")
            .arg(&j)
            .args(extra)
            .assert()
    };
    let v = stdout_json(audit(&[&window[..], &["-o", "json"]].concat()).code(1));
    assert_eq!(v["pulls"], 1, "{v}");
    assert_eq!(v["nodes"], serde_json::json!(["worker-0"]));
    audit(&window).code(1).stdout(predicate::str::contains(
        "crio.log since 2024-05-01 10:00:01 until 2024-05-01 10:00:29",
    ));
    audit(&["--since", "1h"])
        .code(0)
        .stderr(predicate::str::contains("no pull in "))
        .stderr(predicate::str::contains("crio.log since 1h:"));
    audit(&["--since", "tomorrow"])
        .code(2)
        .stderr(predicate::str::contains("--since: \"tomorrow\" is neither"));
    // A must-gather's journal files too.
    // (stray-9, of no pool, stays undetermined: exit 3.)
    let mg_dir = TempDir::new().unwrap();
    let mg = must_gather(mg_dir.path());
    let v = stdout_json(
        bin()
            .arg("audit")
            .arg("-f")
            .arg(&mg)
            .args(["--journal", "-o", "json", "--since", "2024-05-01 10:00:25"])
            .assert()
            .code(3),
    );
    assert_eq!(v["nodes"], serde_json::json!(["master-0"]), "{v}");
    // Without --journal or --journal-file, --since has nothing to bound.
    bin()
        .args(["audit", "-f"])
        .arg(&objects)
        .args(["--since", "1h"])
        .assert()
        .code(2);
}

/// A node cut by the kubelet is named, exit 3, the other nodes judged.
#[test]
fn issue_24_live_audit_journal_cut_node() {
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal(
            "worker-0",
            &(pull(Format::Old, "worker-0", 0, "a", &[M1], true)
                + &pull(Format::Old, "worker-0", 10, "b", &[M1], true)),
        )
        .node_journal(
            "worker-1",
            &pull(Format::Old, "worker-1", 0, "c", &[M1], true),
        )
        .node_journal_cut("worker-0", std::time::Duration::from_secs(30))
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(
        audit_live(
            &server,
            dir.path(),
            &["--node", "worker-0,worker-1", "-o", "json"],
        )
        .code(3),
    );
    let notes = &v["undeterminedNodes"];
    assert_eq!(notes[0]["node"], "worker-0", "{v}");
    assert_eq!(notes[0]["reason"], "cut");
    assert!(notes[0]["message"]
        .as_str()
        .unwrap()
        .contains("it ends at 2024-05-01T10:00:02.25Z"));
    assert_eq!(v["images"][0]["pulls"], 2, "{v}");
}

/// A must-gather: Nodes, pools and mirror objects, the masters' journal
/// plain and the workers' gzip.
fn must_gather(dir: &Path) -> PathBuf {
    let root = dir.join("must-gather.local.1/quay-io-openshift-must-gather");
    let res = root.join("cluster-scoped-resources");
    let write = |rel: &str, text: &str| {
        let p = res.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    write("config.openshift.io/imagetagmirrorsets/ns.yaml", ITMS);
    write("core/nodes/nodes.yaml", &(FLEET.to_string() + "---\napiVersion: v1\nkind: Node\nmetadata: {name: master-0.example.com, labels: {node-role.kubernetes.io/master: ''}}\n"));
    let logs = root.join("host_service_logs");
    fs::create_dir_all(logs.join("masters")).unwrap();
    fs::create_dir_all(logs.join("workers")).unwrap();
    fs::write(
        logs.join("masters/crio_service.log"),
        pull(Format::Rfc3339Nano, "master-0", 30, "m", &[M1], true),
    )
    .unwrap();
    let workers = pull(Format::Old, "worker-0", 0, "a", &[M1], true)
        + &pull(Format::Old, "infra-0", 10, "b", &[M1, M2, IMAGE], true)
        + &pull(Format::Old, "stray-9", 20, "s", &[M1], true);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, workers.as_bytes()).unwrap();
    fs::write(
        logs.join("workers/crio_service.log.gz"),
        gz.finish().unwrap(),
    )
    .unwrap();
    dir.to_path_buf()
}

#[test]
fn issue_24_must_gather_journal_files() {
    let dir = TempDir::new().unwrap();
    let mg = must_gather(dir.path());
    let v = stdout_json(
        bin()
            .arg("audit")
            .arg("-f")
            .arg(&mg)
            .args(["--journal", "-o", "json"])
            .assert()
            .code(1),
    );
    assert_eq!(
        v["pools"],
        serde_json::json!([
            {"pool": "infra", "nodes": ["infra-0"]},
            {"pool": "master", "nodes": ["master-0"]},
            {"pool": "worker", "nodes": ["worker-0"]}
        ]),
        "{v}"
    );
    assert_eq!(v["undeterminedNodes"][0]["node"], "stray-9");
    assert_eq!(v["undeterminedNodes"][0]["reason"], "noPool");
    assert_eq!(v["images"][0]["pulls"], 3);
    // --pool judges every node against one pool; --journal-file takes the folder.
    let v = stdout_json(
        bin()
            .arg("audit")
            .arg("-f")
            .arg(&mg)
            .arg("--journal-file")
            .arg(&mg)
            .args(["--pool", "master", "-o", "json"])
            .assert()
            .code(1),
    );
    assert_eq!(v["pools"][0]["pool"], "master");
    assert_eq!(v["undeterminedNodes"], serde_json::json!([]));
    assert_eq!(v["images"][0]["pulls"], 4);
    // explain: the pulls of both files in time order across the nodes.
    let v = stdout_json(
        bin()
            .args(["explain", IMAGE, "-o", "json", "-f"])
            .arg(&mg)
            .arg("--journal")
            .assert()
            .code(1),
    );
    let nodes: Vec<&str> = v["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["node"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["worker-0", "infra-0", "stray-9", "master-0"]);
    // A folder without journal files.
    let empty = TempDir::new().unwrap();
    fs::write(empty.path().join("itms.yaml"), ITMS).unwrap();
    for cmd in [
        vec!["audit", "--journal"],
        vec!["explain", IMAGE, "--journal"],
    ] {
        bin()
            .args(&cmd)
            .arg("-f")
            .arg(empty.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no CRI-O journal in"))
            .stderr(predicate::str::contains("gather_service_logs"));
    }
    let (_conf_dir, conf, _) = setup("");
    bin()
        .args(["explain", IMAGE, "--journal", "--registries-conf"])
        .arg(&conf)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--journal needs --node NODE"));
}

/// `explain --journal-file` over several nodes: in time order, not node by node.
#[test]
fn issue_24_explain_journal_in_time_order_across_nodes() {
    let journal = pull(Format::Old, "worker-0", 0, "a", &[M1], true)
        + &pull(Format::Old, "worker-0", 20, "c", &[M1], true)
        + &pull(Format::Old, "worker-1", 10, "b", &[M1], true);
    let (_dir, conf, j) = setup(&journal);
    let v = explain_json(&conf, &j, 0);
    let order: Vec<(&str, &str)> = v["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["node"].as_str().unwrap(), r["id"].as_str().unwrap()))
        .collect();
    assert_eq!(
        order,
        [("worker-0", "a"), ("worker-1", "b"), ("worker-0", "c")]
    );
}

/// A journal line of `worker-0` whose message is `len` bytes of `x` after
/// `Pulling image: ` (the live query's pattern keeps it).
fn long_line(n: u32, len: usize) -> String {
    jline(
        Format::Rfc3339Nano,
        "worker-0",
        n,
        Some("z"),
        &format!("Pulling image: {}", "x".repeat(len)),
    )
}

/// Two pulls around a 2 MiB line (line 5): the replay goes on without it,
/// and the warning names the file and the line, on stderr and in the JSON.
#[test]
fn issue_39_journal_file_long_line_is_skipped_and_named() {
    let journal = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1, M2], true)
        + &long_line(5, 2 << 20)
        + &pull(Format::Rfc3339Nano, "worker-0", 10, "b", &[M1], true);
    let (_dir, conf, j) = setup(&journal);
    let out = bin()
        .args(["explain", IMAGE, "-o", "json", "--registries-conf"])
        .arg(&conf)
        .arg("--journal-file")
        .arg(&j)
        .assert()
        .code(0)
        .stderr(predicate::str::contains(format!(
            "warning: journal file \"{}\": line 5 is longer than 1 MiB and skipped",
            j.display()
        )))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let served: Vec<&str> = v["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pulls"][0]["servedBy"].as_str().unwrap())
        .collect();
    assert_eq!(served, [M2, M1]);
    assert!(
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("line 5 is longer than 1 MiB")),
        "{v}"
    );
}

/// Issue 37 (was issue 39's cap): a journal file is streamed, so no cap of
/// size applies, only the line cap. A file of 200 MiB (sparse: one endless
/// line of NUL, then a pull) and a must-gather's gzip bomb (200 MiB of one
/// byte in a few hundred KiB, then a pull) are read to their end: the
/// endless line is skipped and named, the pull after it judged.
#[test]
fn issue_37_journal_file_streams_past_any_size() {
    let (dir, conf, _) = setup("");
    let tail = format!(
        "\n{}",
        pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1], true)
    );
    let sparse = dir.path().join("sparse.log");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = fs::File::create(&sparse).unwrap();
        f.seek(SeekFrom::Start(200 << 20)).unwrap();
        f.write_all(tail.as_bytes()).unwrap();
    }
    let workers = dir.path().join("mg/host_service_logs/workers");
    fs::create_dir_all(&workers).unwrap();
    let bomb = workers.join("crio_service.log.gz");
    let member = |data: &[u8]| {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let mut bytes = member(&vec![b'a'; 1 << 20]).repeat(200);
    bytes.extend(member(tail.as_bytes()));
    fs::write(&bomb, bytes).unwrap();
    for (input, name) in [(&sparse, &sparse), (&dir.path().join("mg"), &bomb)] {
        let out = bin()
            .args(["explain", IMAGE, "-o", "json", "--registries-conf"])
            .arg(&conf)
            .arg("--journal-file")
            .arg(input)
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(0)
            .stderr(predicate::str::contains(format!(
                "journal file \"{}\": line 1 is longer than 1 MiB and skipped",
                name.display()
            )))
            .get_output()
            .stdout
            .clone();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["journal"][0]["pulls"][0]["servedBy"], M1, "{v}");
    }
}

/// A live answer with a 2 MiB line: skipped, named with the node and the
/// line, the pulls around it judged.
#[test]
fn issue_39_live_long_line_is_skipped_and_named() {
    let journal = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1, M2], true)
        + &long_line(5, 2 << 20)
        + &pull(Format::Rfc3339Nano, "worker-0", 10, "b", &[M1], true);
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &journal)
        .start();
    let dir = TempDir::new().unwrap();
    let out = live(&server, dir.path(), &[])
        .code(0)
        .stderr(predicate::str::contains(
            "warning: node worker-0's CRI-O log: line 5 is longer than 1 MiB and skipped",
        ))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["journal"].as_array().unwrap().len(), 2, "{v}");
}

/// An answer that never ends ends at a cap, with the default
/// `--request-timeout 0` (`explain`, exit 3): an endless line at the 128
/// MiB read from one node, endless lines gzip-encoded at the 64 MiB of text
/// one command keeps.
#[test]
fn issue_39_live_endless_answer_ends_at_the_cap() {
    let start = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1, M2], true);
    let line = jline(
        Format::Rfc3339Nano,
        "worker-0",
        9,
        None,
        "Trying to access \"x\"",
    );
    for (tail, gzip, want) in [
        (b"x".as_slice(), false, "node worker-0's CRI-O log answer is larger than 128 MiB of journal text (lines longer than 1 MiB count too); narrow --since/--until"),
        (line.as_bytes(), true, "node worker-0's CRI-O log answer: the journal text read goes over 64 MiB, the most one command keeps (its files, or all the nodes read, together); narrow --since/--until"),
    ] {
        let server = support::apiserver::Builder::openshift()
            .node_journal_endless("worker-0", &start, tail, gzip)
            .start();
        let dir = TempDir::new().unwrap();
        let kubeconfig = server.write_kubeconfig(dir.path());
        bin()
            .args(["explain", IMAGE, "--node", "worker-0", "--node-files"])
            .arg(node_files(dir.path()))
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .arg("--journal")
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(3)
            .stderr(predicate::str::contains(want));
    }
}

/// `audit --journal`: the node whose answer never ends is named as not
/// read; the other nodes are judged.
#[test]
fn issue_39_live_audit_endless_node_is_named_the_others_judged() {
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal_endless(
            "worker-0",
            &pull(Format::Old, "worker-0", 0, "a", &[M1, M2], true),
            b"x",
            false,
        )
        .node_journal(
            "worker-1",
            &pull(Format::Rfc3339Nano, "worker-1", 0, "b", &[M1, M2], true),
        )
        .node_journal(
            "infra-0",
            &pull(Format::Rfc3339Nano, "infra-0", 20, "d", &[M2], true),
        )
        .start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let v = stdout_json(
        bin()
            .args(["audit", "--journal", "-o", "json", "--kubeconfig"])
            .arg(kubeconfig)
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            // A pull of the others diverges from the fleet's configuration: 1
            // wins over the unread node's 3.
            .code(1),
    );
    let unread = &v["undeterminedNodes"][0];
    assert_eq!(unread["node"], "worker-0", "{v}");
    assert_eq!(unread["reason"], "unread", "{v}");
    assert!(
        unread["message"]
            .as_str()
            .unwrap()
            .contains("larger than 128 MiB of journal text"),
        "{v}"
    );
    assert_eq!(v["pulls"], 2, "{v}");
}

/// Issue 37: the source named twice in a row (CRI-O can initialise access
/// to an image twice) is one access, not a failed attempt and a second.
#[test]
fn issue_37_double_access_is_one_attempt() {
    let journal = pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1, M1], true);
    let (_dir, conf, j) = setup(&journal);
    let v = explain_json(&conf, &j, 0);
    let pulls = v["journal"][0]["pulls"].as_array().unwrap();
    assert_eq!(pulls.len(), 1, "{v}");
    assert_eq!(pulls[0]["tried"], serde_json::json!([M1]));
    assert_eq!(pulls[0]["servedBy"], M1);
    assert_eq!(pulls[0]["verdict"], "asExpected");
}

/// A walk that ends at the blocked source (containers/image logs `Trying
/// to access` for it, then refuses it; at `info` nothing follows), and a
/// later line of the node's log about another image.
fn blocked_walk_then_later_line() -> (String, String) {
    let walk = pull(
        Format::Rfc3339Nano,
        "worker-0",
        0,
        "a",
        &[M1, M2, IMAGE],
        false,
    );
    let later = jline(
        Format::Rfc3339Nano,
        "worker-0",
        30,
        Some("q"),
        "Checking image status: quay.io/other/x:1",
    );
    (walk, later)
}

/// Issue 37: a walk that ends at the blocked source (containers/image logs
/// `Trying to access` for it, then refuses it; at `info` nothing follows),
/// the node's log going on with other lines: failed as configured. The
/// same walk at the very end of the log is undetermined.
#[test]
fn issue_37_blocked_source_last_failed_as_configured() {
    let (walk, later) = blocked_walk_then_later_line();
    let (_dir, conf, j) = setup(&(walk.clone() + &later));
    let v = explain_json(&conf, &j, 0);
    let record = &v["journal"][0];
    assert_eq!(record["outcome"], "failed", "{v}");
    let a = &record["pulls"][0];
    assert_eq!(a["verdict"], "asExpected", "{a}");
    assert_eq!(a["outcome"], "failed");
    assert_eq!(a["servedBy"], Value::Null);
    let (_dir, conf, j) = setup(&walk);
    let v = explain_json(&conf, &j, 3);
    assert_eq!(v["journal"][0]["pulls"][0]["verdict"], "undetermined");
}

/// The fallback line CRI-O 1.35.1+ logs at `info` when an image pull fails:
/// the only info line that carries the pull's error (its newline written
/// `\n` inside the quoted message, as logrus quotes it).
fn fallback_line(n: u32, id: &str) -> String {
    let line = jline(
        Format::Rfc3339Nano,
        "worker-0",
        n,
        Some(id),
        &format!("Falling back to pull {IMAGE} as an OCI artifact: initializing source docker://{IMAGE}: (Mirrors also failed: [{M1}: reading manifest v1 in m1.example.com/ns/app: manifest unknown]\n[{M2}: pinging container registry m2.example.com: Get \"https://m2.example.com/v2/\": dial tcp: i/o timeout]): {IMAGE}: registry quay.io/ns is blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d"),
    );
    line.replace("]\n[", "]\\n[")
}

/// Issue 37: CRI-O 1.35.1+'s `Falling back to pull … as an OCI artifact`
/// line (its `\n` escaped inside the quoted message) is read: the image
/// pull failed, each mirror's reason named; the artifact attempt that
/// repeats the walk is the same pull. CRI-O 1.33/1.34 repeat the walk with
/// no line between: one pull too.
#[test]
fn issue_37_artifact_fallback_and_repeated_walk() {
    let walk = |n: u32| {
        [M1, M2, IMAGE]
            .iter()
            .enumerate()
            .map(|(i, t)| {
                jline(
                    Format::Rfc3339Nano,
                    "worker-0",
                    n + i as u32,
                    None,
                    &format!("Trying to access \"{t}\""),
                )
            })
            .collect::<String>()
    };
    let start = jline(
        Format::Rfc3339Nano,
        "worker-0",
        0,
        Some("a"),
        &format!("Pulling image: {IMAGE}"),
    );
    let later = jline(
        Format::Rfc3339Nano,
        "worker-0",
        40,
        Some("q"),
        "Checking image status: quay.io/other/x:1",
    );
    for (name, journal) in [
        (
            "1.35 fallback then the artifact walk",
            start.clone() + &walk(1) + &fallback_line(4, "a") + &walk(5) + &later,
        ),
        (
            "1.35 fallback alone",
            start.clone() + &walk(1) + &fallback_line(4, "a") + &later,
        ),
        (
            "1.33 repeated walk",
            start.clone() + &walk(1) + &walk(5) + &later,
        ),
    ] {
        let (_dir, conf, j) = setup(&journal);
        let v = explain_json(&conf, &j, 0);
        let journal = v["journal"].as_array().unwrap();
        assert_eq!(journal.len(), 1, "{name}: {v}");
        let record = &journal[0];
        assert_eq!(record["outcome"], "failed", "{name}: {record}");
        let attempts = record["pulls"].as_array().unwrap();
        let image = &attempts[0];
        assert_eq!(image["tried"], serde_json::json!([M1, M2, IMAGE]), "{name}");
        assert_eq!(image["verdict"], "asExpected", "{name}: {image}");
        assert_eq!(image["outcome"], "failed", "{name}");
        if name.starts_with("1.35") {
            let errors = &image["errors"];
            assert_eq!(errors[0]["reference"], M1, "{name}: {errors}");
            assert_eq!(
                errors[0]["error"],
                "reading manifest v1 in m1.example.com/ns/app: manifest unknown"
            );
            assert_eq!(errors[1]["reference"], M2);
            assert!(errors[1]["error"].as_str().unwrap().contains("i/o timeout"));
            assert_eq!(errors[2]["reference"], IMAGE);
        }
        if name != "1.35 fallback alone" {
            assert_eq!(attempts.len(), 2, "{name}: {record}");
            assert_eq!(attempts[1]["ociArtifact"], true, "{name}");
            assert_eq!(attempts[1]["verdict"], "asExpected", "{name}");
        } else {
            assert_eq!(attempts.len(), 1, "{name}: {record}");
        }
    }
}

/// Issue 37: `nodes/proxy` forbidden, the answer read from the pull events
/// is said to be on stderr, and each pull says where it was read
/// (`readFrom`), for `explain` and `audit`; a pull read from the log says
/// `journal`.
#[test]
fn issue_37_events_stand_in_is_said() {
    let failed = format!("Failed to pull image \"{IMAGE}\": rpc error: code = Unknown desc = (Mirrors also failed: [{M1}: manifest unknown]\n[{M2}: i/o timeout]): {IMAGE}: registry quay.io/ns is blocked in registries.conf");
    let events = event("a", "worker-0", "2024-05-01T10:00:00Z", "Failed", &failed);
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .objects_from_yaml(&events)
        .node_journal("worker-0", "")
        .forbid("get", "nodes/proxy")
        .start();
    let dir = TempDir::new().unwrap();
    let since = ["--since", "2024-05-01 00:00:00"];
    let said =
        "pull events of node worker-0 are shown instead (each pull's readFrom is \"events\")";
    let out = live(&server, dir.path(), &since)
        .stderr(predicate::str::contains("warning: ").and(predicate::str::contains(said)))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["journal"][0]["readFrom"], "events", "{v}");
    let out = audit_live(&server, dir.path(), &[&since[..], &["-o", "json"]].concat())
        .code(3)
        .stderr(predicate::str::contains(said))
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let journal = &v["images"][0]["journal"];
    assert_eq!(journal[0]["node"], "worker-0", "{v}");
    assert_eq!(journal[0]["readFrom"], "events", "{v}");
    let (_dir, conf, j) = setup(&pull(Format::Rfc3339Nano, "worker-0", 0, "a", &[M1], true));
    let v = explain_json(&conf, &j, 0);
    assert_eq!(v["journal"][0]["readFrom"], "journal", "{v}");
}

/// Issue 37, live: the pull lines alone (the query's `pattern`) cannot show
/// that the node logged more after a walk that ended at the blocked source;
/// a second query for the unit's last line (`tailLines=1`, no pattern) does.
/// The live answer equals the journal file's on the same log: failed as
/// configured when a later line exists, undetermined when the walk is the
/// log's end.
#[test]
fn issue_37_live_blocked_source_last_sees_later_lines() {
    let (walk, later) = blocked_walk_then_later_line();
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &(walk.clone() + &later))
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(live(&server, dir.path(), &["--since", "2h"]).code(0));
    let a = &v["journal"][0]["pulls"][0];
    assert_eq!(v["journal"][0]["outcome"], "failed", "{v}");
    assert_eq!(a["verdict"], "asExpected", "{a}");
    assert_eq!(a["servedBy"], Value::Null);
    let (_files, conf, j) = setup(&(walk.clone() + &later));
    let from_file = explain_json(&conf, &j, 0);
    assert_eq!(from_file["journal"][0]["pulls"], v["journal"][0]["pulls"]);
    let queries: Vec<_> = server
        .log()
        .into_iter()
        .filter(|l| l.path.contains("/proxy/logs"))
        .collect();
    assert_eq!(queries.len(), 2, "{queries:?}");
    let tail = &queries[1].query;
    assert_eq!(
        tail.get("tailLines").map(String::as_str),
        Some("1"),
        "{tail:?}"
    );
    assert!(!tail.contains_key("pattern"), "{tail:?}");
    // The walk is the log's end: nothing tells it ended, undetermined.
    let server = support::apiserver::Builder::openshift()
        .node_journal("worker-0", &walk)
        .start();
    let dir = TempDir::new().unwrap();
    let v = stdout_json(live(&server, dir.path(), &["--since", "2h"]).code(3));
    assert_eq!(
        v["journal"][0]["pulls"][0]["verdict"], "undetermined",
        "{v}"
    );
    // audit --journal reads each node the same way (the ITMS's
    // NeverContactSource makes the source the blocked endpoint).
    let server = support::apiserver::Builder::openshift()
        .objects_from_yaml(ITMS)
        .objects_from_yaml(FLEET)
        .node_journal("worker-0", &(walk.clone() + &later))
        .start();
    let v =
        stdout_json(audit_live(&server, dir.path(), &["--node", "worker-0", "-o", "json"]).code(0));
    let image = &v["images"][0];
    assert_eq!(image["verdicts"]["asExpected"], 1, "{v}");
    assert_eq!(image["verdicts"]["undetermined"], 0, "{v}");
}

/// `audit --journal-file` keeps, of each image, the first and last five
/// pulls for `journal` and counts the rest as they end (memory bounded by
/// images, not pulls): the counts are those of every pull, `summarised`
/// says how many are not listed, and the text says so.
#[test]
fn issue_37_audit_journal_file_keeps_first_and_last_pulls_counts_all() {
    let journal: String = (0..14u32)
        .map(|i| {
            let tried: &[&str] = match i {
                7 => &[M1, M2, IMAGE],
                _ if i % 2 == 0 => &[M1],
                _ => &[M1, M2],
            };
            pull(
                Format::Rfc3339Nano,
                "worker-0",
                i * 4,
                &format!("p{i}"),
                tried,
                true,
            )
        })
        .collect();
    let (_dir, objects, j) = audit_setup(&journal);
    let v = stdout_json(audit_journal(&objects, &j, true).code(1));
    let image = &v["images"][0];
    assert_eq!(v["pulls"], 14, "{v}");
    assert_eq!(image["pulls"], 14, "{image}");
    assert_eq!(image["summarised"], 4, "{image}");
    assert_eq!(image["journal"].as_array().map(Vec::len), Some(10));
    assert_eq!(image["outcomes"]["pulled"], 14);
    assert_eq!(image["verdicts"]["diverges"], 1, "{image}");
    assert_eq!(image["verdicts"]["asExpected"], 13, "{image}");
    let served: Vec<(String, u64)> = image["servedBy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["reference"].as_str().unwrap().to_string(),
                s["pulls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        served,
        [
            (M1.to_string(), 7),
            (M2.to_string(), 6),
            (IMAGE.to_string(), 1)
        ]
    );
    let times: Vec<&str> = image["journal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["time"].as_str().unwrap())
        .collect();
    assert_eq!(times.first(), Some(&"2024-05-01T10:00:00.25Z"));
    assert_eq!(times.last(), Some(&"2024-05-01T10:00:52.25Z"));
    audit_journal(&objects, &j, false)
        .code(1)
        .stdout(predicate::str::contains("14 pulls on 1 node"))
        .stdout(predicate::str::contains(
            "4 pulls counted above but not listed",
        ));
    // Few pulls: every one listed, no `summarised`.
    let (_dir, objects, j) = audit_setup(&pull(Format::Old, "worker-0", 0, "a", &[M1], true));
    let out = audit_journal(&objects, &j, true)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v["images"][0].get("summarised").is_none(), "{v}");
}
