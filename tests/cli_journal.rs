//! Issue 24: `explain --journal-file`, CRI-O's pull log replayed against the
//! explanation, through the binary: every verdict class, both `time=`
//! formats, several nodes' merged output, and the exit codes.

mod support;

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
    let out = live(&server, dir.path(), &["--since", "2h"])
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
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
    let out = live(&server, dir.path(), &[])
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
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
        .start();
    let dir = TempDir::new().unwrap();
    live(&server, dir.path(), &[])
        .code(3)
        .stderr(predicate::str::contains("needs `get nodes/proxy`"))
        .stderr(predicate::str::contains("effectively exec on the node"));
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
    let out = audit_journal(&objects, &j, true)
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
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
