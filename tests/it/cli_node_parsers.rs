//! The node's own parsers (issue 25): registries.conf read as TOML 1.0, as
//! containers/image's BurntSushi/toml (v1.5.0 and older) reads it, and
//! policy.json read as Go's `encoding/json` reads it inside containers/image's
//! strict decoder. Each case through the binary, on files and on a node's
//! files.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use tempfile::TempDir;

use support::bin;

const EXAMPLE: &str = "examples/disconnected-cluster";
const NODE_REGISTRIES: &str = "examples/node/registries.conf";
const WORKER: &str = "worker-1.corp.example.com";
const TOML_1_1: &str = "TOML 1.1 syntax, which containers/image's TOML 1.0 parser refuses";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// Each TOML 1.1 addition, in a registries.conf that loads with its TOML
/// 1.0 spelling: refused with its line and column, exit 2.
#[test]
fn issue_25_toml_1_1_registries_conf_is_refused_with_its_line() {
    let dir = TempDir::new().unwrap();
    let head = "[[registry]]\nlocation = \"quay.io\"\n";
    for (tail, at, what) in [
        (
            "mirror = [ { location = \"m.example.com\", }, ]\n",
            "line 3, column 42",
            "a trailing comma in an inline table",
        ),
        (
            "mirror = [ { location = \"m.example.com\",\n  insecure = true } ]\n",
            "line 3, column 41",
            "a newline inside an inline table",
        ),
        (
            "note = { a = 1 # why\n}\n",
            "line 3, column 16",
            "a comment inside an inline table",
        ),
        ("note = \"\\e[1m\"\n", "line 3, column 9", "the \\e escape"),
        (
            "[[registry.mirror]]\nlocation = \"m.example.com\\x2fns\"\n",
            "line 4, column 26",
            "a \\xHH escape",
        ),
        (
            "since = 2024-05-27T07:32Z\n",
            "line 3, column 20",
            "a time without seconds",
        ),
    ] {
        let path = write(
            dir.path(),
            "registries.conf",
            format!("{head}{tail}").as_bytes(),
        );
        bin()
            .args(["explain", "quay.io/a/b:1", "--crio-version", "1.34"])
            .arg("--registries-conf")
            .arg(&path)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "loading registries configuration \"{}\": {at}: {what}: {TOML_1_1}",
                path.display()
            )));
        // Whose CRI-O is not known: CRI-O 1.35 would load it.
        bin()
            .args(["explain", "quay.io/a/b:1", "--registries-conf"])
            .arg(&path)
            .assert()
            .code(3)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "error: undetermined: loading registries configuration \"{}\": whether the node loads this file depends on its CRI-O release, which is not known: CRI-O 1.35 and later (BurntSushi/toml v1.6.0) load it; ",
                path.display()
            )))
            .stderr(predicate::str::contains(format!("refuse it ({at}: {what}: {TOML_1_1}")))
            .stderr(predicate::str::contains("hint: give the CRI-O version"));
    }
    // The TOML 1.0 spellings of the same load.
    let path = write(
        dir.path(),
        "registries.conf",
        format!(
            "{head}mirror = [ {{ location = \"m.example.com\" }},\n]\nnote = {{ a = 1 }} # why\n\
             esc = \"\\u001b[1m\"\nsince = 2024-05-27T07:32:00Z\n"
        )
        .as_bytes(),
    );
    bin()
        .args(["explain", "quay.io/a/b:1", "--registries-conf"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("m.example.com/a/b:1"));
}

/// A drop-in is read the same way, and named as one.
#[test]
fn issue_25_toml_1_1_drop_in_is_refused() {
    let dir = TempDir::new().unwrap();
    let d = dir.path().join("registries.conf.d");
    fs::create_dir(&d).unwrap();
    let drop_in = write(
        &d,
        "50-x.conf",
        b"[[registry]]\nlocation = \"quay.io\"\nblocked = true\nsince = 07:32\n",
    );
    bin()
        .args(["explain", "quay.io/a/b:1", "--registries-conf", NODE_REGISTRIES])
        .args(["--crio-version", "1.30"])
        .arg("--registries-conf-d")
        .arg(&d)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "loading drop-in registries configuration \"{}\": line 4, column 9: a time without seconds: {TOML_1_1}",
            drop_in.display()
        )));
}

/// The example's node files, with `edit` applied to worker-1's root.
fn node_files(edit: impl FnOnce(&Path)) -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let copy = dir.path().join("node-files");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(Path::new(EXAMPLE).join("node-files"))
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    edit(&copy.join(WORKER));
    (dir, copy)
}

/// A node whose registries.conf is TOML 1.1: every pull on it fails
/// (`explain --node`, exit 1), and `diff` says CRI-O cannot load it.
#[test]
fn issue_25_a_toml_1_1_node_file_breaks_every_pull() {
    let (_dir, folder) = node_files(|root| {
        let path = root.join("etc/containers/registries.conf");
        let mut text = fs::read_to_string(&path).unwrap();
        let line = text.lines().count() + 4;
        text.push_str("\n[[registry]]\nlocation = \"x.example.com\"\nmirror = [ { location = \"m.example.com\", }, ]\n");
        fs::write(&path, text).unwrap();
        fs::write(root.join("line"), line.to_string()).unwrap();
    });
    let line = fs::read_to_string(folder.join(WORKER).join("line")).unwrap();
    let why = format!(
        "loading registries configuration \"/etc/containers/registries.conf\": line {line}, column 42: a trailing comma in an inline table: {TOML_1_1}"
    );
    bin()
        .args([
            "explain",
            "registry.redhat.io/rhel9/support-tools:latest",
            "--node",
            WORKER,
            "-f",
            EXAMPLE,
        ])
        .arg("--node-files")
        .arg(&folder)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "every pull on node {WORKER} fails: {why}"
        )));
    bin()
        .args(["diff", "-f", EXAMPLE, "--node-files"])
        .arg(&folder)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "containers/image cannot load it ({why} (BurntSushi/toml v1.5.0 and older, in CRI-O 1.34 and earlier: OpenShift 4.21 and earlier); ClusterVersion/version is 4.21.2, whose nodes run CRI-O 1.34, whose registries.conf parser is BurntSushi/toml v1.5.0): every pull on these nodes fails"
        )));
}

/// The example's node files with a TOML 1.1-only registry appended to the
/// worker's registries.conf.
fn toml_1_1_node_files() -> (TempDir, PathBuf) {
    node_files(|root| {
        let path = root.join("etc/containers/registries.conf");
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("\n[[registry]]\nlocation = \"x.example.com\"\nmirror = [ { location = \"m.example.com\", }, ]\n");
        fs::write(&path, text).unwrap();
    })
}

/// The example cluster's objects in `dir`, the worker's Node reporting
/// `runtime` as its containerRuntimeVersion (none when empty), the
/// ClusterVersion at `release`.
fn cluster_objects(dir: &Path, runtime: &str, release: &str) -> PathBuf {
    let copy = dir.join("cluster");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(EXAMPLE)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let resources = copy.join("cluster-scoped-resources");
    let node = resources.join("core/nodes/worker-1.yaml");
    let mut text = fs::read_to_string(&node).unwrap();
    if !runtime.is_empty() {
        text.push_str(&format!(
            "status:\n  nodeInfo:\n    containerRuntimeVersion: {runtime}\n"
        ));
    }
    fs::write(&node, text).unwrap();
    let cv = resources.join("config.openshift.io/clusterversions/version.yaml");
    let text = fs::read_to_string(&cv)
        .unwrap()
        .replace("version: 4.21.2", &format!("version: {release}"));
    fs::write(&cv, text).unwrap();
    copy
}

fn explain_node(folder: &Path, objects: Option<&Path>) -> assert_cmd::assert::Assert {
    let mut cmd = bin();
    cmd.args([
        "explain",
        "registry.redhat.io/rhel9/support-tools:latest",
        "--node",
        WORKER,
    ])
    .arg("--node-files")
    .arg(folder);
    if let Some(objects) = objects {
        cmd.arg("-f").arg(objects);
    }
    cmd.assert()
}

/// CRI-O 1.35 (OpenShift 4.22) reads registries.conf as TOML 1.1: a node
/// that runs it loads the file, one that runs CRI-O 1.34 does not; the
/// Node's containerRuntimeVersion wins over the ClusterVersion, which
/// decides when the Node names no CRI-O; with neither, the file is read as
/// every release reads it, and the answer is undetermined (exit 3).
#[test]
fn issue_25_toml_1_1_node_file_by_the_nodes_crio_version() {
    let (dir, folder) = toml_1_1_node_files();
    let every_pull = format!("every pull on node {WORKER} fails");
    let cases = [
        ("cri-o://1.35.1-3.rhaos4.22.el9", "4.21.2", None),
        ("", "4.22.0", None),
        (
            "cri-o://1.34.2-2.rhaos4.21.el9",
            "4.22.0",
            Some("the node runs CRI-O 1.34.2 (its Node's status.nodeInfo.containerRuntimeVersion)"),
        ),
        (
            "",
            "4.21.2",
            Some("ClusterVersion/version is 4.21.2, whose nodes run CRI-O 1.34"),
        ),
    ];
    for (i, (runtime, release, refused)) in cases.into_iter().enumerate() {
        let case = dir.path().join(i.to_string());
        fs::create_dir(&case).unwrap();
        let objects = cluster_objects(&case, runtime, release);
        let assert = explain_node(&folder, Some(&objects));
        match refused {
            None => {
                assert
                    .code(0)
                    .stdout(predicate::str::contains(every_pull.as_str()).not())
                    .stdout(
                        predicate::str::contains("Pull sources")
                            .or(predicate::str::contains("PULL SPEC")),
                    );
            }
            Some(basis) => {
                assert.code(1).stdout(predicate::str::contains(format!(
                    "{TOML_1_1} (BurntSushi/toml v1.5.0 and older, in CRI-O 1.34 and earlier: OpenShift 4.21 and earlier); {basis}"
                )));
            }
        }
    }
    // Neither the Node nor a ClusterVersion: undetermined, exit 3.
    explain_node(&folder, None)
        .code(3)
        .stdout(predicate::str::contains(format!(
            "undetermined: every pull on node {WORKER} fails unless its CRI-O loads these files"
        )))
        .stdout(predicate::str::contains(
            "depends on its CRI-O release, which is not known: CRI-O 1.35 and later (BurntSushi/toml v1.6.0) load it; CRI-O 1.22 to 1.34 (BurntSushi/toml v0.4.1 to v1.5.0) refuse it",
        ));
}

/// While the cluster updates from 4.21 to 4.22 (the newest history entry
/// `Partial`), a node runs CRI-O 1.34 or 1.35 until its pool is updated:
/// without the Node's own version, its TOML 1.1 registries.conf is
/// undetermined (exit 3), and the Node's version settles it.
#[test]
fn issue_25_a_node_during_an_update_runs_either_crio() {
    let (dir, folder) = toml_1_1_node_files();
    let history = "  history:\n  - state: Partial\n    version: 4.22.0\n  - state: Completed\n    version: 4.21.2\n";
    for (i, (runtime, code)) in [("", 3), ("cri-o://1.35.0", 0), ("cri-o://1.34.2", 1)]
        .into_iter()
        .enumerate()
    {
        let case = dir.path().join(i.to_string());
        fs::create_dir(&case).unwrap();
        let objects = cluster_objects(&case, runtime, "4.22.0");
        let cv = objects
            .join("cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml");
        let mut text = fs::read_to_string(&cv).unwrap();
        text.push_str(history);
        fs::write(&cv, text).unwrap();
        let assert = explain_node(&folder, Some(&objects)).code(code);
        if code == 3 {
            assert.stdout(predicate::str::contains(
                "ClusterVersion/version is updating from 4.21.2 (CRI-O 1.34) to 4.22.0 (CRI-O 1.35)",
            ));
        }
    }
}

/// The parsers of older CRI-O releases, each on the file it decides: a
/// byte order mark (skipped from BurntSushi/toml v1.3.0, CRI-O 1.28), a
/// dotted key (refused by v0.3.1, CRI-O 1.21 and earlier), a hexadecimal
/// integer (likewise); with the version unknown, undetermined.
#[test]
fn issue_25_older_crio_parsers() {
    let dir = TempDir::new().unwrap();
    // (--crio-version, exit code, what stderr says)
    type Run<'a> = (&'a str, i32, &'a str);
    let cases: [(&str, &[u8], &[Run]); 5] = [
        (
            "bom.conf",
            b"\xef\xbb\xbf[[registry]]\nlocation = \"quay.io\"\n",
            &[
                ("1.27", 2, "line 1, column 1: a byte order mark, which BurntSushi/toml v1.2.1 refuses (expected '.' or '=', but got '\\ufeff' instead; v1.3.0 and later skip it); --crio-version 1.27"),
                ("1.28", 0, ""),
                ("1.24", 2, "BurntSushi/toml v1.1.0 refuses"),
                ("1.22", 2, "a byte order mark, which BurntSushi/toml v0.4.1 refuses"),
                ("1.21", 2, "a byte order mark, which BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier) refuses (bare keys cannot contain '\\ufeff')"),
                ("", 3, "CRI-O 1.28 and later (BurntSushi/toml v1.3.2 to v1.6.0) load it; CRI-O 1.27 and earlier (BurntSushi/toml v0.3.1 to v1.2.1) refuse it (line 1, column 1: a byte order mark"),
            ],
        ),
        (
            "dotted.conf",
            b"[[registry]]\nlocation = \"quay.io\"\nnote.by = \"admin\"\n",
            &[
                ("1.21", 2, "line 3, column 5: a dotted key, which BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier) refuses (bare keys cannot contain '.'); --crio-version 1.21"),
                ("1.22", 0, ""),
                ("", 3, "CRI-O 1.22 and later (BurntSushi/toml v0.4.1 to v1.6.0) load it; CRI-O 1.21 and earlier (BurntSushi/toml v0.3.1) refuse it"),
            ],
        ),
        (
            "hex.conf",
            b"[[registry]]\nlocation = \"quay.io\"\n[other]\nretries = 0x10\n",
            &[
                ("1.19", 2, "line 4, column 11: a hexadecimal, octal or binary integer, which BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier) refuses"),
                ("1.23", 0, ""),
                ("", 3, "CRI-O 1.21 and earlier (BurntSushi/toml v0.3.1) refuse it"),
            ],
        ),
        // BurntSushi/toml v0.3.1 lexBareKey refuses a control character where
        // a key starts, as every later release does: refused, not undetermined.
        (
            "controls.conf",
            b"\x01\x02\x03",
            &[
                ("1.21", 2, "line 1, column"),
                ("1.27", 2, "line 1, column"),
                ("", 2, "line 1, column"),
            ],
        ),
        // A control character in a comment: v0.4.1 refuses it there and
        // v1.0.0 on refuse one anywhere (the `toml` crate lets it through, as
        // TOML 1.1 does); only v0.3.1 keeps it, with a reading of its own.
        (
            "comment.conf",
            b"# by admin\x01\n[[registry]]\nlocation = \"quay.io\"\n",
            &[
                ("1.22", 2, "line 1, column 11: a control character in a comment, which BurntSushi/toml v0.4.1 refuses (control characters are not allowed inside comments: '0x01'); --crio-version 1.22"),
                ("1.27", 2, "BurntSushi/toml v1.2.1 refuses (TOML files cannot contain control characters: '0x01')"),
                ("1.35", 2, "BurntSushi/toml v1.6.0 refuses"),
                ("1.21", 3, "reads in its own way"),
                ("", 3, "CRI-O 1.22 and later (BurntSushi/toml v0.4.1 to v1.6.0) refuse it"),
            ],
        ),
    ];
    for (name, bytes, runs) in cases {
        let conf = write(dir.path(), name, bytes);
        for (version, code, want) in runs {
            let mut cmd = bin();
            cmd.args(["explain", "quay.io/a/b:1", "--registries-conf"])
                .arg(&conf);
            if !version.is_empty() {
                cmd.args(["--crio-version", version]);
            }
            let assert = cmd.assert().code(*code);
            if !want.is_empty() {
                assert.stderr(predicate::str::contains(*want));
            }
        }
    }
}

/// `diff --node-files`: the worker running CRI-O 1.35 loads its TOML 1.1
/// registries.conf (drift, not a broken node); running CRI-O 1.34 it
/// cannot.
#[test]
fn issue_25_diff_on_disk_by_the_nodes_crio_version() {
    let (dir, folder) = toml_1_1_node_files();
    for (i, (runtime, broken)) in [("cri-o://1.35.0", false), ("cri-o://1.34.2", true)]
        .into_iter()
        .enumerate()
    {
        let case = dir.path().join(i.to_string());
        fs::create_dir(&case).unwrap();
        let objects = cluster_objects(&case, runtime, "4.21.2");
        let out = bin()
            .args(["diff", "--node-files"])
            .arg(&folder)
            .arg("-f")
            .arg(&objects)
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out.contains("containers/image cannot load it"),
            broken,
            "{runtime}: {out}"
        );
        assert!(out.contains("/etc/containers/registries.conf"), "{out}");
    }
}

/// `--registries-conf` reads TOML 1.0 unless `--crio-version` names a
/// CRI-O that reads TOML 1.1; the flag is checked and is for node files
/// only; `-f` beside `--node` needs `--node-files`.
#[test]
fn issue_25_crio_version_flag() {
    let dir = TempDir::new().unwrap();
    let conf = write(
        dir.path(),
        "registries.conf",
        b"[[registry]]\nlocation = \"quay.io\"\nmirror = [ { location = \"m.example.com\", }, ]\n",
    );
    let explain = |extra: &[&str]| {
        bin()
            .args(["explain", "quay.io/a/b:1", "--registries-conf"])
            .arg(&conf)
            .args(extra)
            .assert()
    };
    explain(&[])
        .code(3)
        .stderr(predicate::str::contains(TOML_1_1))
        .stderr(predicate::str::contains(
            "CRI-O 1.35 and later (BurntSushi/toml v1.6.0) load it",
        ));
    explain(&["--crio-version", "1.34.2"])
        .code(2)
        .stderr(predicate::str::contains("; --crio-version 1.34.2"));
    explain(&["--crio-version", "1.35"])
        .code(0)
        .stdout(predicate::str::contains("m.example.com/a/b:1"));
    explain(&["--crio-version", "4.22"])
        .code(2)
        .stderr(predicate::str::contains(
            "--crio-version \"4.22\": expected a CRI-O version",
        ));
    bin()
        .args([
            "explain",
            "quay.io/a/b:1",
            "-f",
            EXAMPLE,
            "--crio-version",
            "1.35",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--crio-version is for node files"));
    bin()
        .args(["explain", "quay.io/a/b:1", "-f", EXAMPLE, "--node", WORKER])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("beside --node-files DIR"));
}

fn explain_with_policy(policy: &Path) -> assert_cmd::assert::Assert {
    bin()
        .args([
            "explain",
            "quay.io/a/b:1",
            "--registries-conf",
            NODE_REGISTRIES,
        ])
        .arg("--policy-json")
        .arg(policy)
        .assert()
}

/// Go's encoding/json reads bytes: invalid UTF-8 inside a string is
/// replaced by U+FFFD per byte (the file loads), outside one it is a
/// syntax error.
#[test]
fn issue_25_policy_json_invalid_utf8_as_go_reads_it() {
    let dir = TempDir::new().unwrap();
    let policy = write(
        dir.path(),
        "policy.json",
        b"{\"default\":[{\"type\":\"insecureAcceptAnything\"}],\"transports\":{\"docker\":{\"quay.io/a\":[{\"type\":\"signedBy\",\"keyType\":\"GPGKeys\",\"keyPath\":\"/etc/pki/cl\xe9\xe2\x82.gpg\"}]}}}",
    );
    explain_with_policy(&policy).code(0).stdout(predicate::str::contains(
        "signedBy (GPGKeys /etc/pki/cl\u{fffd}\u{fffd}\u{fffd}.gpg, identity matchRepoDigestOrExact)",
    ));
    let outside = write(
        dir.path(),
        "outside.json",
        b"{\"default\":[{\"type\":\"insecureAcceptAnything\"}]\xff}",
    );
    explain_with_policy(&outside)
        .code(2)
        .stderr(predicate::str::contains(format!(
            "policy \"{}\"",
            outside.display()
        )));
}

/// A byte order mark is a syntax error for Go's encoding/json.
#[test]
fn issue_25_policy_json_with_a_bom_is_refused() {
    let dir = TempDir::new().unwrap();
    let policy = write(
        dir.path(),
        "policy.json",
        "\u{feff}{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}".as_bytes(),
    );
    explain_with_policy(&policy)
        .code(2)
        .stderr(predicate::str::contains(format!(
            "policy \"{}\": invalid character 'ï' looking for beginning of value (the file begins with a UTF-8 byte order mark",
            policy.display()
        )));
}

/// containers/image's decoder refuses a duplicate key at every level
/// (`ParanoidUnmarshalJSONObject`), where plain encoding/json keeps the last.
#[test]
fn issue_25_policy_json_duplicate_keys_are_refused() {
    let dir = TempDir::new().unwrap();
    for (name, text, want) in [
        (
            "top.json",
            "{\"default\":[{\"type\":\"reject\"}],\"default\":[{\"type\":\"insecureAcceptAnything\"}]}",
            "Duplicate key \"default\"",
        ),
        (
            "scope.json",
            "{\"default\":[{\"type\":\"reject\"}],\"transports\":{\"docker\":{\"quay.io\":[{\"type\":\"reject\"}],\"quay.io\":[{\"type\":\"reject\"}]}}}",
            "Duplicate key \"quay.io\"",
        ),
        (
            "requirement.json",
            "{\"default\":[{\"type\":\"reject\",\"type\":\"reject\"}]}",
            "Duplicate key \"type\"",
        ),
    ] {
        let policy = write(dir.path(), name, text.as_bytes());
        explain_with_policy(&policy)
            .code(2)
            .stderr(predicate::str::contains(want));
    }
}

/// On a node, a policy.json with invalid UTF-8 in a string loads (no
/// pull is broken); one with a BOM breaks every pull.
#[test]
fn issue_25_node_policy_json_as_go_reads_it() {
    let image = "registry.redhat.io/rhel9/support-tools:latest";
    let (_dir, folder) = node_files(|root| {
        let path = root.join("etc/containers/policy.json");
        let text = fs::read_to_string(&path).unwrap();
        // A scope no reference can name: "caf\xe9.example.com".
        let at = text.find("\"docker\": {").unwrap() + "\"docker\": {".len();
        let mut bytes = text.into_bytes();
        let scope = b"\n      \"caf\xe9.example.com\": [{\"type\": \"reject\"}],";
        bytes.splice(at..at, scope.iter().copied());
        fs::write(&path, bytes).unwrap();
    });
    bin()
        .args(["explain", image, "--node", WORKER])
        .arg("--node-files")
        .arg(&folder)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("every pull").not());
    let policy = folder.join(WORKER).join("etc/containers/policy.json");
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(fs::read(&policy).unwrap());
    fs::write(&policy, bytes).unwrap();
    bin()
        .args(["explain", image, "--node", WORKER])
        .arg("--node-files")
        .arg(&folder)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "every pull on node {WORKER} fails: policy \"/etc/containers/policy.json\": invalid character 'ï'"
        )));
}

/// A registries.conf TOML 1.0 forbids but BurntSushi/toml v1.1.0 to v1.5.0
/// reads (an array value set twice: the last wins; v1.6.0 refuses it): read
/// as the node's CRI-O reads it.
#[test]
fn issue_25_burntsushi_redefinitions_by_crio_version() {
    let dir = TempDir::new().unwrap();
    let conf = write(
        dir.path(),
        "registries.conf",
        b"unqualified-search-registries = [\"m.example.com\"]\nunqualified-search-registries = [\"n.example.com\"]\n",
    );
    let explain = |extra: &[&str]| {
        bin()
            .args(["explain", "app:1", "--registries-conf"])
            .arg(&conf)
            .args(extra)
            .assert()
    };
    explain(&["--crio-version", "1.27"])
        .code(0)
        .stdout(predicate::str::contains("n.example.com"))
        .stdout(predicate::str::contains("m.example.com").not());
    explain(&["--crio-version", "1.34"])
        .code(0)
        .stdout(predicate::str::contains("n.example.com"));
    explain(&["--crio-version", "1.35"]).code(2);
    explain(&[])
        .code(3)
        .stderr(predicate::str::contains(
            "CRI-O 1.35 and later (BurntSushi/toml v1.6.0) refuse it (line 2, column 1: ",
        ))
        .stderr(predicate::str::contains(
            "CRI-O 1.22 to 1.34 (BurntSushi/toml v0.4.1 to v1.5.0) load it; CRI-O 1.21 and earlier (BurntSushi/toml v0.3.1): not known (line 2, column 1: a table or key defined again",
        ));
}

/// A pool not updated (paused for an EUS-to-EUS update, still rolling, or
/// degraded) may hold nodes on an earlier completed release's CRI-O: with
/// the ClusterVersion at 4.22 after 4.21 and the example's worker pool not
/// updated, a TOML 1.1 registries.conf is undetermined (exit 3), read only
/// as CRI-O 1.34 and 1.35 read it; once every pool is updated, 4.22's CRI-O
/// 1.35 loads it.
#[test]
fn issue_25_a_pool_not_updated_may_run_an_earlier_crio() {
    let (dir, folder) = toml_1_1_node_files();
    let history = "  history:\n  - state: Completed\n    version: 4.22.0\n  - state: Completed\n    version: 4.21.2\n";
    let objects = cluster_objects(dir.path(), "", "4.22.0");
    let resources = objects.join("cluster-scoped-resources");
    let cv = resources.join("config.openshift.io/clusterversions/version.yaml");
    let mut text = fs::read_to_string(&cv).unwrap();
    text.push_str(history);
    fs::write(&cv, text).unwrap();
    explain_node(&folder, Some(&objects))
        .code(3)
        .stdout(predicate::str::contains(
            "MachineConfigPool/worker not updated: its nodes may still run the CRI-O of an earlier release",
        ))
        .stdout(predicate::str::contains(
            "CRI-O 1.35 and later (BurntSushi/toml v1.6.0) load it; CRI-O 1.31 to 1.34 (BurntSushi/toml v1.4.0 to v1.5.0) refuse it",
        ))
        .stdout(predicate::str::contains("1.21 and earlier").not());
    let pool = resources.join("machineconfiguration.openshift.io/machineconfigpools/worker.yaml");
    let text = fs::read_to_string(&pool)
        .unwrap()
        .replace("updatedMachineCount: 2", "updatedMachineCount: 3")
        .replace(
            "  - type: Updated\n    status: \"False\"",
            "  - type: Updated\n    status: \"True\"",
        );
    fs::write(&pool, text).unwrap();
    explain_node(&folder, Some(&objects)).code(0);
}

/// A mirror location ending in `/` is kept as written by containers/image
/// (only a copy is trimmed): the rewrite `m.example.com/m//b:1` is not a
/// reference and the pull fails before any endpoint (exit 1); two keys of
/// one table that differ only in case, with different values, are read in
/// Go map order: undetermined (exit 3), naming both values.
#[test]
fn issue_34_node_files_as_containers_image_reads_them() {
    let dir = TempDir::new().unwrap();
    let slash = write(
        dir.path(),
        "slash.conf",
        b"[[registry]]\nlocation = \"quay.io/a\"\n[[registry.mirror]]\nlocation = \"m.example.com/m/\"\n",
    );
    let out = bin()
        .args([
            "explain",
            "quay.io/a/b:1",
            "-o",
            "json",
            "--registries-conf",
        ])
        .arg(&slash)
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let candidate = &v["candidates"][0];
    assert_eq!(candidate["sources"], serde_json::json!([]), "{v}");
    let error = candidate["error"].as_str().unwrap();
    assert!(
        error.contains("rewriting reference: ") && error.contains("m.example.com/m//b:1"),
        "{error}"
    );
    let case = write(
        dir.path(),
        "case.conf",
        b"[[registry]]\nprefix = \"quay.io/a\"\nlocation = \"m.example.com\"\nLocation = \"n.example.com\"\n",
    );
    bin()
        .args(["explain", "quay.io/a/b:1", "--crio-version", "1.33", "--registries-conf"])
        .arg(&case)
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "keys \"Location\" and \"location\" of one table both set location (\"n.example.com\" and \"m.example.com\")",
        ));
}
