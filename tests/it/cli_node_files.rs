//! Node files read live (issue 15): `collect-node-files` through the
//! machine-config-daemon pods of the fake API server, whose `pods/exec`
//! runs the command on this machine with each node's fixture folder as the
//! pod's `/rootfs`; and the real `kubectl exec` against the same server.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use mirrorpolicy::node_files::{FileKind, NodeFiles};
use mirrorpolicy::source::node_dir;
use mirrorpolicy::source::node_exec;

use support::apiserver::{Builder, FakeApiServer};
use support::bin;

const REGISTRIES_CONF: &str = "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"\"\n\n[[registry]]\n  prefix = \"\"\n  location = \"quay.io/openshift-release-dev/ocp-release\"\n\n  [[registry.mirror]]\n    location = \"mirror.corp.example.com:5000/ocp/release\"\n    pull-from-mirror = \"digest-only\"\n";
const POLICY_JSON: &str =
    "{\"default\":[{\"type\":\"insecureAcceptAnything\"}],\"transports\":{\"docker-daemon\":{\"\":[{\"type\":\"insecureAcceptAnything\"}]}}}\n";
const CA: &str = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

fn write(root: &Path, host: &str, bytes: &[u8]) {
    let path = root.join(host.trim_start_matches('/'));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// A node's host tree as the MCO leaves it.
fn node_tree(root: &Path, node: &str) {
    write(
        root,
        "/etc/containers/registries.conf",
        REGISTRIES_CONF.as_bytes(),
    );
    write(root, "/etc/containers/policy.json", POLICY_JSON.as_bytes());
    write(
        root,
        "/etc/machine-config-daemon/currentconfig",
        format!("{{\"metadata\":{{\"name\":\"rendered-worker-1\"}},\"node\":\"{node}\"}}")
            .as_bytes(),
    );
    write(
        root,
        "/etc/containers/registries.d/sigstore-registries.yaml",
        b"docker:\n  quay.io:\n    use-sigstore-attachments: true\n",
    );
    write(
        root,
        "/etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt",
        CA.as_bytes(),
    );
    // Host files the read never takes.
    write(root, "/etc/shadow", b"root:*:19000::::::\n");
    write(root, "/etc/containers/storage.conf", b"[storage]\n");
}

fn node_yaml(name: &str, pool: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  annotations:\n    machineconfiguration.openshift.io/currentConfig: rendered-{pool}-1\n    machineconfiguration.openshift.io/desiredConfig: rendered-{pool}-1\n    machineconfiguration.openshift.io/state: Done\n---\n"
    )
}

/// A cluster of nodes, each with a daemon pod and a host tree (unless
/// left out), and the fake API server serving them.
struct Cluster {
    server: FakeApiServer,
    dir: TempDir,
    kubeconfig: PathBuf,
}

impl Cluster {
    /// `nodes`: (name, pool). `edit` changes a node's tree after it is made.
    fn new(
        nodes: &[(&str, &str)],
        configure: impl FnOnce(Builder, &Path) -> Builder,
        edit: impl Fn(&str, &Path),
    ) -> Self {
        let dir = TempDir::new().unwrap();
        let mut yaml = String::new();
        let mut builder = Builder::openshift();
        let names: Vec<&str> = nodes.iter().map(|(n, _)| *n).collect();
        for (name, pool) in nodes {
            yaml.push_str(&node_yaml(name, pool));
            let root = dir.path().join("roots").join(name);
            node_tree(&root, name);
            edit(name, &root);
            builder = builder.node_root(name, &root);
        }
        builder = builder.objects_from_yaml(&yaml).daemon_pods(&names);
        let server = configure(builder, dir.path()).start();
        let kubeconfig = server.write_kubeconfig(dir.path());
        Self {
            server,
            dir,
            kubeconfig,
        }
    }

    fn root(&self, node: &str) -> PathBuf {
        self.dir.path().join("roots").join(node)
    }

    fn dest(&self) -> PathBuf {
        self.dir.path().join("collected")
    }

    fn cmd(&self) -> Command {
        let mut cmd = bin();
        cmd.env("KUBECONFIG", &self.kubeconfig);
        cmd
    }

    fn collect(&self, extra: &[&str]) -> Command {
        let mut cmd = self.cmd();
        cmd.arg("collect-node-files")
            .args(extra)
            .arg("--dest-dir")
            .arg(self.dest());
        cmd
    }

    fn collected(&self) -> Vec<NodeFiles> {
        node_dir::read(&self.dest()).unwrap()
    }

    /// Nothing was written to the cluster: every request was a read or an exec.
    fn assert_read_only(&self) {
        for l in self.server.log() {
            assert_eq!(l.method, "GET", "{l:?}");
        }
    }
}

const WORKERS: &[(&str, &str)] = &[
    ("worker-0", "worker"),
    ("worker-1", "worker"),
    ("worker-2", "worker"),
];

fn unchanged(_: &str, _: &Path) {}

fn files_of(collected: &[NodeFiles], node: &str) -> NodeFiles {
    collected
        .iter()
        .find(|n| n.node == node)
        .unwrap_or_else(|| panic!("{node} not collected"))
        .clone()
}

#[test]
fn issue_15_three_workers_in_sync_are_collected_and_read_back() {
    let cluster = Cluster::new(WORKERS, |b, _| b, unchanged);
    cluster
        .collect(&[])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("collected worker-0 into"))
        .stdout(predicate::str::contains(
            "(4 file(s), 1 certificate digest(s))",
        ));
    let collected = cluster.collected();
    assert_eq!(collected.len(), 3);
    for node in &collected {
        assert_eq!(
            node.files.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "/etc/containers/policy.json",
                "/etc/containers/registries.conf",
                "/etc/containers/registries.d/sigstore-registries.yaml",
                "/etc/machine-config-daemon/currentconfig",
            ]
        );
        assert_eq!(
            node.text("/etc/containers/registries.conf"),
            Some(REGISTRIES_CONF)
        );
        assert_eq!(
            node.certs["/etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt"],
            sha256_hex(CA.as_bytes())
        );
        assert!(!cluster.dest().join(&node.node).join("etc/shadow").exists());
    }
    // Byte for byte what the node holds.
    assert_eq!(
        fs::read(
            cluster
                .dest()
                .join("worker-1/etc/machine-config-daemon/currentconfig")
        )
        .unwrap(),
        fs::read(
            cluster
                .root("worker-1")
                .join("etc/machine-config-daemon/currentconfig")
        )
        .unwrap()
    );
    // One list of the daemon pods by label, one exec per node, nothing written.
    let log = cluster.server.log();
    let pod_lists: Vec<_> = log
        .iter()
        .filter(|l| l.path == "/api/v1/namespaces/openshift-machine-config-operator/pods")
        .collect();
    assert_eq!(pod_lists.len(), 1);
    assert_eq!(
        pod_lists[0].query["labelSelector"],
        "k8s-app=machine-config-daemon"
    );
    let execs: Vec<_> = log.iter().filter(|l| l.path.ends_with("/exec")).collect();
    assert_eq!(execs.len(), 3);
    for e in &execs {
        assert_eq!(e.query["container"], "machine-config-daemon");
        assert_eq!(e.status, 101);
    }
    assert_eq!(cluster.server.exec_sessions(), ["v5.channel.k8s.io"; 3]);
    cluster.assert_read_only();
}

#[test]
fn issue_15_a_hand_edited_registries_conf_on_one_worker_is_collected_as_it_is() {
    let edited = format!("{REGISTRIES_CONF}\n# hand edit\n[[registry]]\n  location = \"quay.io\"\n  insecure = true\n");
    let cluster = Cluster::new(
        WORKERS,
        |b, _| b,
        |node, root| {
            if node == "worker-1" {
                write(root, "/etc/containers/registries.conf", edited.as_bytes());
            }
        },
    );
    cluster.collect(&[]).assert().code(0);
    let collected = cluster.collected();
    assert_eq!(
        files_of(&collected, "worker-1").text("/etc/containers/registries.conf"),
        Some(edited.as_str())
    );
    for node in ["worker-0", "worker-2"] {
        assert_eq!(
            files_of(&collected, node).text("/etc/containers/registries.conf"),
            Some(REGISTRIES_CONF)
        );
    }
}

#[test]
fn issue_15_a_stray_drop_in_is_collected() {
    let cluster = Cluster::new(
        WORKERS,
        |b, _| b,
        |node, root| {
            if node == "worker-2" {
                write(
                    root,
                    "/etc/containers/registries.conf.d/99-stray.conf",
                    b"[[registry]]\nlocation = \"docker.io\"\nblocked = true\n",
                );
                // A sub-folder is not a drop-in.
                write(root, "/etc/containers/registries.conf.d/old/x.conf", b"x");
            }
        },
    );
    cluster.collect(&["--node", "worker-2"]).assert().code(0);
    let collected = cluster.collected();
    assert_eq!(collected.len(), 1);
    let drop_ins: Vec<&str> = collected[0]
        .children("/etc/containers/registries.conf.d")
        .map(|(path, _)| path)
        .collect();
    assert_eq!(
        drop_ins,
        ["/etc/containers/registries.conf.d/99-stray.conf"]
    );
    assert!(cluster
        .dest()
        .join("worker-2/etc/containers/registries.conf.d/99-stray.conf")
        .is_file());
}

#[test]
fn issue_15_a_node_without_a_daemon_pod_is_not_read_and_the_others_are_written() {
    let dir = TempDir::new().unwrap();
    let mut yaml = String::new();
    let mut builder = Builder::openshift();
    for (name, _) in WORKERS {
        yaml.push_str(&node_yaml(name, "worker"));
        let root = dir.path().join(name);
        node_tree(&root, name);
        builder = builder.node_root(name, &root);
    }
    let server = builder
        .objects_from_yaml(&yaml)
        .daemon_pods(&["worker-0", "worker-1"])
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let dest = dir.path().join("out");
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["collect-node-files", "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "node worker-2 not read: no running machine-config-daemon pod on the node (namespace openshift-machine-config-operator, label k8s-app=machine-config-daemon)",
        ))
        .stderr(predicate::str::contains("1 of 3 node(s) not read; the others are written"));
    let collected = node_dir::read(&dest).unwrap();
    assert_eq!(
        collected
            .iter()
            .map(|n| n.node.as_str())
            .collect::<Vec<_>>(),
        ["worker-0", "worker-1"]
    );
}

#[test]
fn issue_15_forbidden_pods_exec_exits_3_naming_the_rule() {
    let cluster = Cluster::new(WORKERS, |b, _| b.forbid("create", "pods/exec"), unchanged);
    cluster
        .collect(&[])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot create pods/exec in namespace openshift-machine-config-operator; a Role there with the rule {apiGroups: [\"\"], resources: [\"pods/exec\"], verbs: [\"create\"]} grants it",
        ))
        .stderr(predicate::str::contains("hint: ask a cluster admin"));
    assert!(!cluster.dest().exists(), "nothing is written");
}

#[test]
fn issue_15_forbidden_daemon_pod_list_exits_3_naming_the_rule() {
    let cluster = Cluster::new(WORKERS, |b, _| b.forbid("list", "pods"), unchanged);
    cluster
        .collect(&[])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot list pods in namespace openshift-machine-config-operator",
        ));
}

#[test]
fn issue_15_a_non_zero_exit_is_reported_with_its_code_and_stderr() {
    // worker-1's pod does not mount the host's root: the read exits 2.
    let cluster = Cluster::new(
        WORKERS,
        |b, dir| b.node_root("worker-1", dir.join("no-such-root")),
        unchanged,
    );
    cluster
        .collect(&[])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "node worker-1 not read: exec in pod machine-config-daemon-worker-1: the read exited with code 2: no host file system at",
        ));
    let collected = cluster.collected();
    assert_eq!(
        collected
            .iter()
            .map(|n| n.node.as_str())
            .collect::<Vec<_>>(),
        ["worker-0", "worker-2"]
    );
}

#[test]
fn issue_15_output_over_64_kib_comes_whole_in_many_frames() {
    // 300 KiB of every byte value: many WebSocket messages, base64 lines.
    let big: Vec<u8> = (0..300 * 1024u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let expected = big.clone();
    let cluster = Cluster::new(
        &WORKERS[..1],
        |b, _| b,
        move |_, root| write(root, "/etc/containers/policy.json", &big),
    );
    cluster.collect(&[]).assert().code(0);
    let collected = cluster.collected();
    assert_eq!(collected[0].files["/etc/containers/policy.json"], expected);
}

#[test]
fn issue_15_a_v4_only_server_is_read_the_same() {
    let cluster = Cluster::new(
        WORKERS,
        |b, _| b.exec_protocols(&["v4.channel.k8s.io"]),
        unchanged,
    );
    cluster.collect(&[]).assert().code(0);
    assert_eq!(cluster.collected().len(), 3);
    assert_eq!(cluster.server.exec_sessions(), ["v4.channel.k8s.io"; 3]);
}

#[test]
fn issue_15_a_node_past_the_timeout_is_not_read_and_the_others_are() {
    let cluster = Cluster::new(
        WORKERS,
        |b, _| b.exec_delay("worker-0", Duration::from_secs(60)),
        unchanged,
    );
    let started = std::time::Instant::now();
    cluster
        .collect(&["--node-timeout", "10s"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "node worker-0 not read: no complete answer from pod machine-config-daemon-worker-0 within 10s",
        ));
    // Not a speed limit: the slow node answers after a minute, so a run
    // that waited for it instead of giving up at the timeout would take
    // that long (the margin leaves room for a loaded machine).
    assert!(started.elapsed() < Duration::from_secs(45));
    assert_eq!(cluster.collected().len(), 2);
}

#[test]
fn issue_15_nodes_are_read_a_bounded_number_at_a_time() {
    let names: Vec<String> = (0..12).map(|i| format!("worker-{i}")).collect();
    let nodes: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "worker")).collect();
    let cluster = Cluster::new(
        &nodes,
        |mut b, _| {
            for n in &names {
                b = b.exec_delay(n, Duration::from_millis(150));
            }
            b
        },
        unchanged,
    );
    cluster
        .collect(&["--node-concurrency", "3"])
        .assert()
        .code(0);
    assert_eq!(cluster.collected().len(), 12);
    let max = cluster.server.max_exec_sessions();
    assert!((2..=3).contains(&max), "{max} sessions at once");
}

#[test]
fn issue_15_pool_and_node_selection() {
    let nodes = [
        ("master-0", "master"),
        ("worker-0", "worker"),
        ("infra-0", "infra"),
    ];
    let cluster = Cluster::new(&nodes, |b, _| b, unchanged);
    cluster
        .collect(&["--pool", "worker", "--node", "master-0"])
        .assert()
        .code(0);
    let collected = cluster.collected();
    assert_eq!(
        collected
            .iter()
            .map(|n| n.node.as_str())
            .collect::<Vec<_>>(),
        ["master-0", "worker-0"]
    );
    cluster
        .collect(&["--node", "worker-9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--node worker-9: no such Node (found: infra-0, master-0, worker-0)",
        ));
    cluster
        .collect(&["--pool", "gpu"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--pool gpu: no node runs a config of that pool",
        ));
    cluster
        .collect(&["--node-timeout", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--node-timeout: 0 would wait forever",
        ));
}

#[test]
fn issue_15_an_existing_node_folder_is_never_replaced() {
    let cluster = Cluster::new(WORKERS, |b, _| b, unchanged);
    fs::create_dir_all(cluster.dest().join("worker-1")).unwrap();
    fs::write(cluster.dest().join("worker-1/notes.txt"), "mine").unwrap();
    cluster
        .collect(&[])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("already exist"))
        .stderr(predicate::str::contains("nothing written"));
    let left: Vec<_> = fs::read_dir(cluster.dest())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, ["worker-1"]);
    assert_eq!(
        fs::read_to_string(cluster.dest().join("worker-1/notes.txt")).unwrap(),
        "mine"
    );
}

/// The real `kubectl exec` against the fake server: the same WebSocket
/// exec the plugin speaks, with kubectl's own client (client-go's
/// `v5.channel.k8s.io` executor): stdout, the exit code from the status
/// channel, stdin closed with the v5 close signal, and the plugin's own
/// script parsed back to what the plugin collects.
#[test]
fn issue_15_the_real_kubectl_exec_works_against_the_fake() {
    let Some(kubectl) = find_kubectl() else {
        eprintln!("kubectl not on PATH: skipped");
        return;
    };
    let cluster = Cluster::new(&WORKERS[..1], |b, _| b, unchanged);
    let exec = |args: &[&str], stdin: Option<&str>| {
        let mut cmd = std::process::Command::new(&kubectl);
        cmd.arg("--kubeconfig")
            .arg(&cluster.kubeconfig)
            .args([
                "exec",
                "-n",
                "openshift-machine-config-operator",
                "machine-config-daemon-worker-0",
                "-c",
                "machine-config-daemon",
            ])
            .args(args)
            .env_remove("KUBECONFIG")
            .env("HOME", cluster.dir.path());
        if let Some(input) = stdin {
            cmd.stdin(std::process::Stdio::piped());
            cmd.stdout(std::process::Stdio::piped());
            cmd.stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            child.wait_with_output().unwrap()
        } else {
            cmd.output().unwrap()
        }
    };
    let out = exec(
        &[
            "--",
            "sh",
            "-c",
            "cat /rootfs/etc/containers/registries.conf",
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), REGISTRIES_CONF);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = exec(&["--", "sh", "-c", "echo oops >&2; exit 7"], None);
    assert_eq!(out.status.code(), Some(7));
    assert!(String::from_utf8_lossy(&out.stderr).contains("oops"));

    let out = exec(&["-i", "--", "sh", "-c", "tr a-z A-Z"], Some("hello\n"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "HELLO\n");

    let out = exec(
        &["--", "sh", "-c", node_exec::SCRIPT, "sh", "/rootfs"],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut by_kubectl = node_exec::parse(&out.stdout).unwrap();
    by_kubectl.node = "worker-0".to_string();
    cluster.collect(&[]).assert().code(0);
    assert_eq!(cluster.collected(), [by_kubectl]);
    assert!(cluster
        .server
        .exec_sessions()
        .iter()
        .all(|p| p == "v5.channel.k8s.io"));
}

fn find_kubectl() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("kubectl"))
        .find(|p| p.is_file())
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = crate::support::registry::digest_of_bytes(bytes);
    digest.trim_start_matches("sha256:").to_string()
}

const EXAMPLE: &str = "examples/disconnected-cluster";

/// The example cluster live: its objects, a daemon pod on each node and
/// each node's folder of the example's node files as its `/rootfs`.
fn example_cluster(
    configure: impl FnOnce(Builder) -> Builder,
) -> (FakeApiServer, TempDir, PathBuf) {
    let folder = Path::new(EXAMPLE).join("node-files");
    let mut names: Vec<String> = fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut builder = Builder::openshift()
        .objects_from(EXAMPLE)
        .daemon_pods(&refs);
    for name in &names {
        builder = builder.node_root(name, folder.join(name));
    }
    let server = configure(builder).start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    (server, dir, kubeconfig)
}

/// `diff --on-disk` live reads the nodes through their daemon pods and
/// reports what the same files in a folder give: the example's drifted
/// worker included.
#[test]
fn issue_15_diff_on_disk_live_matches_the_node_files_folder() {
    let (server, _dir, kubeconfig) = example_cluster(|b| b);
    let live = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk"])
        .output()
        .unwrap();
    let offline = bin()
        .args(["diff", "-f", EXAMPLE, "--node-files"])
        .arg(Path::new(EXAMPLE).join("node-files"))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert_eq!(live.status.code(), Some(1), "{}", text(&live.stderr));
    assert_eq!(offline.status.code(), Some(1), "{}", text(&offline.stderr));
    assert_eq!(text(&live.stdout), text(&offline.stdout));
    assert!(
        text(&live.stdout).contains("worker-1.corp.example.com"),
        "{}",
        text(&live.stdout)
    );
    assert!(server.log().iter().any(|l| l.path.ends_with("/exec")));
    assert!(server.log().iter().all(|l| l.method == "GET"));
    // JSON too: the on-disk stage names its nodes.
    let json = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        text(&json.stdout).contains("\"onDisk\""),
        "{}",
        text(&json.stdout)
    );
}

#[test]
fn issue_15_diff_on_disk_live_forbidden_exec_exits_3() {
    let (_server, _dir, kubeconfig) = example_cluster(|b| b.forbid("create", "pods/exec"));
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "cannot create pods/exec in namespace openshift-machine-config-operator",
        ));
}

/// `explain --node` live explains against the node's own files, as with
/// the folder of the same files.
#[test]
fn issue_15_explain_node_live_matches_the_node_files_folder() {
    let (_server, _dir, kubeconfig) = example_cluster(|b| b);
    let image = "quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000000";
    let node = "worker-1.corp.example.com";
    let live = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", image, "--node", node])
        .output()
        .unwrap();
    let offline = bin()
        .args(["explain", image, "--node", node, "--node-files"])
        .arg(Path::new(EXAMPLE).join("node-files"))
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert_eq!(
        live.status.code(),
        offline.status.code(),
        "{}",
        text(&live.stderr)
    );
    assert_eq!(text(&live.stdout), text(&offline.stdout));
    assert!(
        text(&live.stdout).contains(&format!("{node}:/etc/containers/registries.conf")),
        "{}",
        text(&live.stdout)
    );
    // A node the cluster does not have: exit 2 naming the known ones
    // (issue 22), as diff --on-disk and collect-node-files.
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", image, "--node", "worker-9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--node worker-9: no such Node (found: master-0.corp.example.com, worker-0.corp.example.com, worker-1.corp.example.com, worker-2.corp.example.com)",
        ));
}

/// collect-node-files on the example writes what the example's folder holds.
#[test]
fn issue_15_collect_round_trip_of_the_example() {
    let (_server, dir, kubeconfig) = example_cluster(|b| b);
    let dest = dir.path().join("out");
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["collect-node-files", "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(0);
    let mut expected = node_dir::read(&Path::new(EXAMPLE).join("node-files")).unwrap();
    // The example's folders hold the digest lists only, not the certificates.
    for node in &mut expected {
        node.certs.clear();
    }
    let mut collected = node_dir::read(&dest).unwrap();
    // The collected folders record each path's type and mode
    // (node-files.json); the example's folders, of the older layout, do not.
    for node in &mut collected {
        assert!(!node.meta.is_empty(), "{}", node.node);
        for (path, meta) in &node.meta {
            let kind = meta.kind();
            assert!(
                kind == FileKind::Regular || kind == FileKind::Folder,
                "{path}: {kind:?}"
            );
        }
        node.meta.clear();
    }
    assert_eq!(collected, expected);
}

/// The example cluster live with each node's host tree a copy of the
/// example's node files, changed by `edit` (node, root).
fn example_copies(
    configure: impl FnOnce(Builder) -> Builder,
    edit: impl Fn(&str, &Path),
) -> (FakeApiServer, TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let roots = dir.path().join("roots");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(Path::new(EXAMPLE).join("node-files"))
        .arg(&roots)
        .status()
        .unwrap();
    assert!(status.success());
    let mut names: Vec<String> = fs::read_dir(&roots)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut builder = Builder::openshift()
        .objects_from(EXAMPLE)
        .daemon_pods(&refs);
    for name in &names {
        edit(name, &roots.join(name));
        builder = builder.node_root(name, roots.join(name));
    }
    let server = configure(builder).start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    (server, dir, kubeconfig)
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// The daemon's own rule (checkFileContentsAndMode): a 0600 registries.conf
/// and a registries.conf that is a link with the same content are drift in
/// its words; a `.bak` drop-in is ignored, never drift; a binary drop-in
/// breaks every pull; a CRLF-only change says so.
#[test]
fn issue_22_diff_on_disk_judges_files_as_the_daemon() {
    let conf = "etc/containers/registries.conf";
    let (_server, _dir, kubeconfig) = example_copies(
        |b| b,
        |node, root| match node {
            "worker-0.corp.example.com" => {
                chmod(&root.join(conf), 0o600);
                let policy = fs::read_to_string(root.join("etc/containers/policy.json")).unwrap();
                fs::write(
                    root.join("etc/containers/policy.json"),
                    policy.replace('\n', "\r\n"),
                )
                .unwrap();
            }
            "worker-2.corp.example.com" => {
                let bytes = fs::read(root.join(conf)).unwrap();
                write(root, "/usr/share/containers/registries.conf", &bytes);
                fs::remove_file(root.join(conf)).unwrap();
                std::os::unix::fs::symlink(
                    "/usr/share/containers/registries.conf",
                    root.join(conf),
                )
                .unwrap();
                write(
                    root,
                    "/etc/containers/registries.conf.d/99-old.conf.bak",
                    b"[[registry]]\nlocation = \"old.example.com\"\nblocked = true\n",
                );
            }
            "master-0.corp.example.com" => write(
                root,
                "/etc/containers/registries.conf.d/50-binary.conf",
                &[0x7f, b'E', b'L', b'F', 0, 0xff, 0xfe],
            ),
            _ => {}
        },
    );
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for want in [
        "/etc/containers/registries.conf: the current config rendered-worker-7c1e5a9d2f4b6c8e → the files on worker-0.corp.example.com\n  - mode mismatch for file: \"/etc/containers/registries.conf\"; expected: -rw-r--r--/420/0644; received: -rw-------/384/0600\n  - /etc/containers/registries.conf on disk is a regular file, mode 0600, owned by uid 0 gid 0\n",
        "  - mode mismatch for file: \"/etc/containers/registries.conf\"; expected: -rw-r--r--/420/0644; received: Lrwxrwxrwx/134218239/01000000777\n  - /etc/containers/registries.conf on disk is a link to /usr/share/containers/registries.conf, owned by uid 0 gid 0\n",
        "  - line endings differ (CRLF): /etc/containers/policy.json on disk ends its lines with CRLF (\\r\\n) where rendered-worker-7c1e5a9d2f4b6c8e writes LF (\\n)",
        "worker-2.corp.example.com: /etc/containers/registries.conf.d/99-old.conf.bak is ignored by CRI-O, not drift: containers/image reads only *.conf files in /etc/containers/registries.conf.d",
        "/etc/containers/registries.conf.d/50-binary.conf: the current config rendered-master-7c1e5a9d2f4b6c8e → the files on master-0.corp.example.com",
        "containers/image cannot load it (/etc/containers/registries.conf.d/50-binary.conf is not UTF-8 text (a binary file)): every pull on these nodes fails",
    ] {
        assert!(stdout.contains(want), "{want}\n--- in ---\n{stdout}");
    }
    assert!(
        !stdout.contains("99-old.conf.bak: the current config"),
        "{stdout}"
    );
    // The node whose link has the same content has no content drift.
    assert!(
        !stdout.contains("/etc/containers/registries.conf differs from what rendered-worker-7c1e5a9d2f4b6c8e writes in formatting only"),
        "{stdout}"
    );
    // explain --node on the binary drop-in's node: every image fails, exit 1.
    let image = "registry.redhat.io/rhel9/support-tools:latest";
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", image, "--node", "master-0.corp.example.com", "--node-timeout", "20s"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "every pull on node master-0.corp.example.com fails: /etc/containers/registries.conf.d/50-binary.conf is not UTF-8 text (a binary file)",
        ));
    // explain --node on the node whose .bak drop-in is ignored: its
    // `blocked = true` for old.example.com is not applied.
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args([
            "explain",
            "old.example.com/app:1",
            "--node",
            "worker-2.corp.example.com",
            "-o",
            "json",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("99-old.conf.bak is ignored"))
        .stdout(predicate::str::contains("\"blocked\": true").not());
}

/// A drop-in folder that is a link: CRI-O reads nothing behind it, diff says
/// so, explain --node does not use its drop-ins.
#[test]
fn issue_22_a_linked_drop_in_folder_is_ignored_by_design() {
    let (_server, _dir, kubeconfig) = example_copies(
        |b| b,
        |node, root| {
            if node == "worker-0.corp.example.com" {
                let d = root.join("etc/containers/registries.conf.d");
                fs::rename(&d, root.join("srv-dropins")).unwrap();
                std::os::unix::fs::symlink("/srv-dropins", &d).unwrap();
            }
        },
    );
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk", "--pool", "worker"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    for want in [
        "/etc/containers/registries.conf.d: the current config rendered-worker-7c1e5a9d2f4b6c8e → the files on worker-0.corp.example.com\n  - /etc/containers/registries.conf.d is a link to /srv-dropins\n  - CRI-O ignores the drop-ins behind it: 01-image-searchRegistries.conf\n",
        "likely an admin's mistake",
    ] {
        assert!(stdout.contains(want), "{want}\n--- in ---\n{stdout}");
    }
    bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["explain", "busybox", "--node", "worker-0.corp.example.com", "--short-name-mode", "disabled"])
        .assert()
        .stdout(predicate::str::contains(
            "worker-0.corp.example.com:/etc/containers/registries.conf.d is a link to /srv-dropins: containers/image lists the folder without following a link, so CRI-O reads none of the drop-ins behind it",
        ));
}

/// diff --on-disk when an asked-for node cannot be read and no drift is
/// found on the others: exit 3 with notRead, never "no drift" exit 0.
#[test]
fn issue_22_diff_on_disk_with_a_node_not_read_is_undetermined() {
    let (_server, _dir, kubeconfig) = example_copies(
        |b| b.node_root("master-0.corp.example.com", "/nonexistent-root"),
        |_, _| {},
    );
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk", "--pool", "master", "-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 3);
    // Issue 36: nothing found while a node was not read is no answer: a
    // script reading `.drift` must not conclude "in sync".
    assert_eq!(v["drift"], serde_json::Value::Null, "{v}");
    assert_eq!(v["notRead"][0]["node"], "master-0.corp.example.com");
    let reason = v["notRead"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("no host file system"), "{reason}");
    // With drift found on another node, drift wins: exit 1, notRead still said.
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk", "-o", "json"])
        .output()
        .unwrap();
    let v = support::json_with_code(&out, 1);
    assert_eq!(v["drift"], true, "{v}");
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["diff", "--on-disk"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(
            "not read: 1 node(s), their files on disk undetermined: master-0.corp.example.com"
        ),
        "{stdout}"
    );
}

/// An exec the API server refuses prints its message, not the request URL.
#[test]
fn issue_22_an_exec_refusal_prints_the_api_servers_message() {
    let (server, _dir, kubeconfig) = example_copies(|b| b, |_, _| {});
    // The daemon pod of worker-0 without the daemon's container.
    let mut pod = server
        .object(
            "pods",
            "openshift-machine-config-operator",
            "machine-config-daemon-worker-0.corp.example.com",
        )
        .unwrap();
    pod["spec"]["containers"] = serde_json::json!([{"name": "kube-rbac-proxy"}]);
    server.add_objects_from_yaml(&serde_json::to_string(&pod).unwrap());
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args([
            "collect-node-files",
            "--node",
            "worker-0.corp.example.com",
            "--dest-dir",
        ])
        .arg(_dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("exec in pod machine-config-daemon-worker-0.corp.example.com refused: 400 BadRequest: container machine-config-daemon is not valid for pod machine-config-daemon-worker-0.corp.example.com"),
        "{stderr}"
    );
    assert!(!stderr.contains("command="), "{stderr}");
}

/// Offline, a node folder with certs.d files but no certs.sha256 gets its
/// digests computed; certificate drift between nodes shows each node's
/// digest against the majority's.
#[test]
fn issue_22_offline_certificates_are_digested_and_each_node_shown() {
    let dir = TempDir::new().unwrap();
    let folder = dir.path().join("node-files");
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(Path::new(EXAMPLE).join("node-files"))
        .arg(&folder)
        .status()
        .unwrap();
    assert!(status.success());
    let node = folder.join("worker-2.corp.example.com");
    let listed = fs::read_to_string(node.join("certs.sha256")).unwrap();
    fs::remove_file(node.join("certs.sha256")).unwrap();
    for line in listed.lines() {
        let (_, path) = line.split_once("  ").unwrap();
        write(&node, path, b"a certificate changed by hand\n");
    }
    let changed = sha256_hex(b"a certificate changed by hand\n");
    let out = bin()
        .args(["diff", "-f", EXAMPLE, "--pool", "worker", "--node-files"])
        .arg(&folder)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "  - sha256 {} on worker-2.corp.example.com",
            &changed[..12]
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("the baseline is what most nodes of the pool hold: sha256 "),
        "{stdout}"
    );
    assert!(
        stdout.contains(" on worker-0.corp.example.com\n"),
        "{stdout}"
    );
}

/// The example of docs/collect-node-files.md is this run: three workers,
/// a stray drop-in on worker-1, no daemon pod on worker-2; stdout, then
/// stderr, then the drop-ins collected.
#[test]
fn docs_example_is_real() {
    let dir = TempDir::new().unwrap();
    let mut yaml = String::new();
    let mut builder = Builder::openshift();
    for (name, _) in WORKERS {
        yaml.push_str(&node_yaml(name, "worker"));
        let root = dir.path().join("roots").join(name);
        node_tree(&root, name);
        if *name == "worker-1" {
            write(
                &root,
                "/etc/containers/registries.conf.d/99-stray.conf",
                b"[[registry]]\nlocation = \"docker.io\"\nblocked = true\n",
            );
        }
        builder = builder.node_root(name, &root);
    }
    let server = builder
        .objects_from_yaml(&yaml)
        .daemon_pods(&["worker-0", "worker-1"])
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let (command, shown) = support::docs_example(
        "docs/collect-node-files.md",
        "kubectl mirrorpolicy collect-node-files",
    );
    let (output, listing) = shown.split_once("$ ls ").expect("the listing");
    let (folder, files) = listing.split_once('\n').expect("ls's output");
    let out = bin()
        .current_dir(dir.path())
        .env("KUBECONFIG", &kubeconfig)
        .args(command.split_whitespace().skip(2))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(printed, output);
    let mut names: Vec<String> = fs::read_dir(dir.path().join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned() + "\n")
        .collect();
    names.sort();
    assert_eq!(names.concat(), files);
}

/// A file of `len` bytes (sparse: no disk is used) in a node's tree.
fn sparse(root: &Path, host: &str, len: u64) {
    let path = root.join(host.trim_start_matches('/'));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::File::create(&path).unwrap().set_len(len).unwrap();
}

// What a node returns is never held whole: past 64 MiB the answer is given
// up (a hostile or broken daemon pod can send without end), and one file
// over 16 MiB is refused; either way that node is not read, exit 3, and the
// others are.
#[test]
fn issue_39_node_answers_and_files_are_capped() {
    let cluster = Cluster::new(
        WORKERS,
        |b, _| b,
        |name, root| match name {
            "worker-1" => sparse(
                root,
                "/etc/containers/registries.conf.d/endless.conf",
                1 << 30,
            ),
            "worker-2" => sparse(root, "/etc/containers/registries.conf.d/big.conf", 20 << 20),
            _ => {}
        },
    );
    cluster
        .collect(&[])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "node worker-1 not read: exec in pod machine-config-daemon-worker-1: answer larger than 64 MiB",
        ))
        .stderr(predicate::str::contains(
            "node worker-2 not read: exec in pod machine-config-daemon-worker-2: /etc/containers/registries.conf.d/big.conf is larger than 16 MiB",
        ));
    let collected = cluster.collected();
    assert_eq!(
        collected
            .iter()
            .map(|n| n.node.as_str())
            .collect::<Vec<_>>(),
        ["worker-0"]
    );
}

/// Issue 35: one short-name mode for a node, whichever path reads its
/// files: its CRI-O's (1.33: `disabled`; 1.34: `enforcing`, two search
/// registries refusing a short name), never the file's own
/// `short-name-mode`, read live (the Node's containerRuntimeVersion), from
/// a node-files folder with `--crio-version` or with the Node among `-f`,
/// and with `--registries-conf --crio-version`. The file alone, no CRI-O
/// named, is read as containers/image alone (podman) reads it.
#[test]
fn issue_35_one_short_name_mode_for_a_node_on_every_path() {
    let conf_text = "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"permissive\"\n";
    for (crio, minor, mode, code) in [
        ("1.34.2", "1.34", "enforcing", 1),
        ("1.33.5", "1.33", "disabled", 0),
    ] {
        let dir = TempDir::new().unwrap();
        let roots = dir.path().join("roots");
        let root = roots.join("worker-0");
        node_tree(&root, "worker-0");
        write(
            &root,
            "/etc/containers/registries.conf",
            conf_text.as_bytes(),
        );
        let node = format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: worker-0\nstatus:\n  nodeInfo:\n    containerRuntimeVersion: cri-o://{crio}-3.rhaos4.21.el9\n"
        );
        let node_file = dir.path().join("node.yaml");
        fs::write(&node_file, &node).unwrap();
        let server = Builder::openshift()
            .objects_from_yaml(&node)
            .daemon_pods(&["worker-0"])
            .node_root("worker-0", &root)
            .start();
        let kubeconfig = server.write_kubeconfig(dir.path());
        let explain = || {
            let mut cmd = bin();
            cmd.args(["explain", "busybox", "-o", "json"]);
            cmd
        };
        let mut live = explain();
        live.env("KUBECONFIG", &kubeconfig)
            .args(["--node", "worker-0"]);
        let mut folder = explain();
        folder
            .args([
                "--node",
                "worker-0",
                "--crio-version",
                minor,
                "--node-files",
            ])
            .arg(&roots);
        let mut objects = explain();
        objects
            .args(["--node", "worker-0", "--node-files"])
            .arg(&roots)
            .arg("-f")
            .arg(&node_file);
        let conf = root.join("etc/containers/registries.conf");
        let mut file = explain();
        file.args(["--crio-version", minor, "--registries-conf"])
            .arg(&conf);
        for (path, mut cmd) in [
            ("live", live),
            ("--node-files --crio-version", folder),
            ("--node-files -f", objects),
            ("--registries-conf --crio-version", file),
        ] {
            let out = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(code), "{crio} {path}: {stderr}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["shortNameMode"], mode, "{crio} {path}: {v:#}");
        }
        let out = explain()
            .arg("--registries-conf")
            .arg(&conf)
            .output()
            .unwrap();
        let v = support::json_with_code(&out, 0);
        assert_eq!(v["shortNameMode"], "permissive", "{v:#}");
    }
}
