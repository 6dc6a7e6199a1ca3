//! Many clusters at once (`--context a,b`, `--all-contexts`) through the
//! built binary, against several fake API servers: one section per
//! context, one JSON/YAML `List`, and the worst exit code.

use crate::support;

use std::path::{Path, PathBuf};

use base64::Engine;
use serde_json::Value;
use tempfile::TempDir;

use support::apiserver::{Builder, FakeApiServer};
use support::bin;

const EXAMPLE: &str = "examples/disconnected-cluster";
const MUST_GATHER: &str = "tests/fixtures/must-gather";

/// One context of the kubeconfig: a name, and the server it points at (a
/// fake, or a URL where nothing listens).
enum Target<'a> {
    Fake(&'a FakeApiServer),
    Down(String),
}

/// A kubeconfig with one context, cluster and user per target.
fn kubeconfig(dir: &Path, targets: &[(&str, Target<'_>)]) -> PathBuf {
    let (mut clusters, mut users, mut contexts) = (String::new(), String::new(), String::new());
    for (name, target) in targets {
        let (server, ca, token) = match target {
            Target::Fake(s) => (
                s.url(),
                format!(
                    "    certificate-authority-data: {}\n",
                    base64::engine::general_purpose::STANDARD.encode(&s.ca_pem)
                ),
                s.token.clone(),
            ),
            Target::Down(url) => (url.clone(), String::new(), "t".to_string()),
        };
        clusters.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: {server}\n{ca}"
        ));
        users.push_str(&format!("- name: {name}\n  user:\n    token: {token}\n"));
        contexts.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n"
        ));
    }
    let first = targets.first().map_or("", |(n, _)| n);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n{users}contexts:\n{contexts}current-context: {first}\n"
    );
    let path = dir.join("kubeconfig");
    std::fs::write(&path, text).unwrap();
    path
}

/// A URL where nothing listens: a port that was bound, then let go.
fn down_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("https://127.0.0.1:{port}")
}

fn run(kubeconfig: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = bin()
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn issue_17_two_clusters_one_section_each() {
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let b = Builder::openshift().objects_from(MUST_GATHER).start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[("a", Target::Fake(&a)), ("b", Target::Fake(&b))],
    );
    let (code, stdout, stderr) = run(&config, &["list", "--context", "a,b"]);
    assert_eq!(code, Some(0), "{stderr}");
    let header_a = format!("== context a ({})\n", a.url());
    let header_b = format!("== context b ({})\n", b.url());
    assert!(stdout.starts_with(&header_a), "{stdout}");
    let at_b = stdout.find(&header_b).expect("section b");
    // Each section is that cluster's own `list`.
    let (section_a, section_b) = (
        &stdout[header_a.len()..at_b],
        &stdout[at_b + header_b.len()..],
    );
    for (section, dir) in [(section_a, EXAMPLE), (section_b, MUST_GATHER)] {
        let alone = bin().args(["list", "-f", dir]).output().unwrap();
        assert_eq!(
            section.trim_end(),
            String::from_utf8_lossy(&alone.stdout).trim_end(),
            "{dir}"
        );
    }
    assert_ne!(section_a, section_b, "the clusters hold different objects");
    // Messages on stderr name their cluster.
    let (_, _, verbose) = run(&config, &["list", "--context", "a,b", "-v"]);
    for (name, server) in [("a", a.url()), ("b", b.url())] {
        assert!(
            verbose.contains(&format!("[{name}] reading ")) && verbose.contains(&server),
            "{verbose}"
        );
    }
    assert!(
        verbose.lines().all(|l| l.starts_with("[a] ")
            || l.starts_with("[b] ")
            || l.starts_with("warning: [a] ")
            || l.starts_with("warning: [b] ")),
        "{verbose}"
    );
    // The repeated flag is the same as the comma list.
    let (code, repeated, _) = run(&config, &["list", "--context", "a", "--context", "b"]);
    assert_eq!(code, Some(0));
    assert_eq!(repeated, stdout);
}

#[test]
fn issue_17_three_clusters_one_down_one_forbidden() {
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let forbidden = Builder::openshift()
        .objects_from(EXAMPLE)
        .forbid("list", "imagedigestmirrorsets")
        .start();
    let dir = TempDir::new().unwrap();
    let down = down_url();
    let config = kubeconfig(
        dir.path(),
        &[
            ("a", Target::Fake(&a)),
            ("down", Target::Down(down.clone())),
            ("forbidden", Target::Fake(&forbidden)),
        ],
    );
    // JSON: one List, an error in place of the result of each cluster not read.
    let (code, stdout, stderr) = run(&config, &["list", "--all-contexts", "-o", "json"]);
    assert_eq!(code, Some(3), "a cluster could not be read: {stderr}");
    let v: Value = serde_json::from_str(&stdout).expect("stdout is JSON");
    assert_eq!(v["kind"], "List");
    let items = v["items"].as_array().unwrap();
    let contexts: Vec<&str> = items
        .iter()
        .map(|i| i["context"].as_str().unwrap())
        .collect();
    assert_eq!(contexts, ["a", "down", "forbidden"]);
    assert_eq!(items[0]["server"], a.url());
    assert_eq!(items[0]["result"]["kind"], "List");
    assert!(
        !items[0]["result"]["items"].as_array().unwrap().is_empty(),
        "{stdout}"
    );
    assert!(items[0].get("error").is_none());
    assert_eq!(items[1]["server"], down);
    assert!(items[1].get("result").is_none());
    let down_error = items[1]["error"].as_str().unwrap();
    assert!(down_error.contains(&down), "{down_error}");
    let forbidden_error = items[2]["error"].as_str().unwrap();
    assert!(
        forbidden_error.contains("cannot list imagedigestmirrorsets.config.openshift.io"),
        "{forbidden_error}"
    );
    // YAML: the same List.
    let (code, yaml, _) = run(&config, &["list", "--all-contexts", "-o", "yaml"]);
    assert_eq!(code, Some(3));
    let from_yaml: Value = serde_saphyr::from_str(&yaml).expect("stdout is YAML");
    assert_eq!(from_yaml, v);
    // Text: the failures in their sections, the others still shown.
    let (code, text, _) = run(&config, &["list", "--context", "down,a"]);
    assert_eq!(code, Some(3));
    assert!(
        text.starts_with(&format!("== context down ({down})\nerror: ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n\n== context a ({})\nSOURCE", a.url())),
        "{text}"
    );
}

#[test]
fn issue_17_exit_code_is_the_worst() {
    // lint: 1 on a cluster with an error finding, 0 on a clean one.
    let clean = Builder::openshift().objects_from(EXAMPLE).start();
    let broken = Builder::openshift()
        .objects_from(EXAMPLE)
        .objects_from_yaml(
            "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: no-mirror\nspec:\n  imageDigestMirrors:\n  - source: quay.io/c\n    mirrors: [\"bad mirror\"]\n",
        )
        .start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[
            ("clean", Target::Fake(&clean)),
            ("broken", Target::Fake(&broken)),
        ],
    );
    let (code, alone, _) = run(&config, &["lint", "--context", "clean"]);
    assert_eq!(code, Some(0), "{alone}");
    let (code, _, _) = run(&config, &["lint", "--context", "broken"]);
    let broken_code = code.unwrap();
    assert_ne!(
        broken_code, 0,
        "the test needs a cluster lint finds fault with"
    );
    let (code, stdout, stderr) = run(
        &config,
        &["lint", "--context", "clean,broken", "-o", "json"],
    );
    assert_eq!(code, Some(broken_code), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["items"][0]["context"], "clean");
    assert_eq!(v["items"][1]["context"], "broken");
}

#[test]
fn issue_17_several_contexts_refuse_files_and_migrate() {
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("a", Target::Down(down_url()))]);
    for args in [
        &["list", "--context", "a,b", "-f", EXAMPLE][..],
        &["migrate-icsp", "--all-contexts"][..],
    ] {
        let (code, stdout, stderr) = run(&config, args);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(stdout, "");
        assert!(stderr.starts_with("error: several clusters"), "{stderr}");
    }
}

#[test]
fn issue_17_context_timeout_reports_the_slow_cluster() {
    let fast = Builder::openshift().objects_from(EXAMPLE).start();
    let slow = Builder::openshift()
        .objects_from(EXAMPLE)
        .latency(std::time::Duration::from_secs(60))
        .start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[("fast", Target::Fake(&fast)), ("slow", Target::Fake(&slow))],
    );
    let started = std::time::Instant::now();
    let (code, stdout, _) = run(
        &config,
        &[
            "list",
            "--all-contexts",
            "--context-timeout",
            "10s",
            "-o",
            "json",
        ],
    );
    // Not a speed limit: the slow cluster answers after a minute, so a
    // run that waited for it instead of giving up at the timeout would
    // take that long (the margin leaves room for a loaded machine).
    assert!(started.elapsed() < std::time::Duration::from_secs(45));
    assert_eq!(code, Some(3));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["items"][0]["result"]["kind"], "List");
    assert_eq!(
        v["items"][1]["error"],
        "no answer within 10s (--context-timeout)"
    );
}

#[test]
fn issue_17_exec_plugin_runs_once_per_user_not_per_context() {
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let b = Builder::openshift().objects_from(MUST_GATHER).start();
    assert_eq!(a.token, b.token, "one credential serves both fakes");
    let dir = TempDir::new().unwrap();
    let runs = dir.path().join("runs");
    let script = dir.path().join("plugin.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho run >> \"$RUNS\"\nprintf '%s' '{{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"status\":{{\"token\":\"{}\",\"expirationTimestamp\":\"2099-01-01T00:00:00Z\"}}}}'\n",
            a.token
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let ca = |s: &FakeApiServer| base64::engine::general_purpose::STANDARD.encode(&s.ca_pem);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster:\n    server: {}\n    certificate-authority-data: {}\n- name: b\n  cluster:\n    server: {}\n    certificate-authority-data: {}\nusers:\n- name: shared\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n      env:\n      - name: RUNS\n        value: {}\ncontexts:\n- name: a\n  context:\n    cluster: a\n    user: shared\n- name: b\n  context:\n    cluster: b\n    user: shared\ncurrent-context: a\n",
        a.url(),
        ca(&a),
        b.url(),
        ca(&b),
        script.display(),
        runs.display()
    );
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, text).unwrap();
    let (code, stdout, stderr) = run(&config, &["list", "--all-contexts", "-o", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["items"][0]["result"]["kind"], "List");
    assert_eq!(v["items"][1]["result"]["kind"], "List");
    assert!(!a.log().is_empty() && !b.log().is_empty());
    let ran = std::fs::read_to_string(&runs).unwrap().lines().count();
    assert_eq!(
        ran, 1,
        "the plugin of the one user ran once for both contexts"
    );
}

#[test]
fn issue_17_list_wide_is_one_table_with_a_context_column() {
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let b = Builder::openshift().objects_from(MUST_GATHER).start();
    let dir = TempDir::new().unwrap();
    let down = down_url();
    let config = kubeconfig(
        dir.path(),
        &[
            ("a", Target::Fake(&a)),
            ("b", Target::Fake(&b)),
            ("down", Target::Down(down.clone())),
        ],
    );
    let (code, stdout, stderr) = run(&config, &["list", "--all-contexts", "-o", "wide"]);
    assert_eq!(code, Some(3), "{stderr}");
    let mut lines = stdout.lines();
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        head,
        [
            "CONTEXT",
            "SOURCE",
            "MIRRORS",
            "PULL",
            "SOURCE",
            "POLICY",
            "OBJECTS",
            "FLAGS",
            "CONFLICTS"
        ]
    );
    // Each cluster's rows are its own `list -o wide` rows, behind its name.
    for (context, fixture) in [("a", EXAMPLE), ("b", MUST_GATHER)] {
        let alone = bin()
            .args(["list", "-o", "wide", "-f", fixture])
            .output()
            .unwrap();
        let alone = String::from_utf8_lossy(&alone.stdout);
        let sources: Vec<&str> = alone
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert!(!sources.is_empty());
        for source in sources {
            assert!(
                stdout.lines().any(|l| l.starts_with(&format!("{context} "))
                    && l.split_whitespace().nth(1) == Some(source)),
                "{context} {source}:\n{stdout}"
            );
        }
    }
    assert!(!stdout.contains("down"), "{stdout}");
    assert!(
        stderr.contains(&format!("error: context down ({down}): ")),
        "{stderr}"
    );
}

#[test]
fn issue_17_audit_wide_is_one_table_with_a_context_column() {
    let a = Builder::openshift()
        .objects_from("tests/fixtures/audit-cluster")
        .start();
    let b = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[("a", Target::Fake(&a)), ("b", Target::Fake(&b))],
    );
    let (code, stdout, stderr) = run(&config, &["audit", "-A", "--all-contexts", "-o", "wide"]);
    let (alone_code, alone, _) = run(&config, &["audit", "-A", "--context", "a", "-o", "wide"]);
    assert_eq!(code, Some(alone_code.unwrap()), "{stderr}");
    assert!(stdout.starts_with("CONTEXT  CLASS"), "{stdout}");
    let images = alone.lines().skip(1).take_while(|l| !l.is_empty()).count();
    assert!(images > 0, "{alone}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("a ")).count(),
        images,
        "{stdout}"
    );
    let counts_a = alone.lines().last().unwrap();
    assert!(stdout.contains(&format!("\na: {counts_a}\n")), "{stdout}");
    assert!(stdout.contains("\nb: "), "{stdout}");
}

/// A hub fake: ManagedClusters `east` (EXAMPLE), `west` (MUST_GATHER, its
/// ImageDigestMirrorSets forbidden), `edge` (reported available, but the
/// proxy has no tunnel to it: every request is a 503), `lab` (reported
/// unavailable: its lease stopped) and `new` (not accepted by the hub),
/// served through its cluster-proxy user server under `/<cluster>/`, and
/// the Route of that server when `with_route`. `east`, `lab` and `new`
/// carry the label `ring: one`.
struct HubFake {
    hub: FakeApiServer,
    _east: FakeApiServer,
    _west: FakeApiServer,
}

/// A ManagedCluster object: `accepted` is `spec.hubAcceptsClient`,
/// `available` the status, reason and message of its Available condition.
fn managed_cluster(
    name: &str,
    labels: &str,
    accepted: bool,
    available: (&str, &str, &str),
) -> String {
    let (status, reason, message) = available;
    format!(
        "---\napiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata:\n  name: {name}\n  labels:\n{labels}spec:\n  hubAcceptsClient: {accepted}\nstatus:\n  conditions:\n  - type: HubAcceptedManagedCluster\n    status: \"{accepted_status}\"\n    reason: HubClusterAdminAccepted\n    message: Accepted by hub cluster admin\n  - type: ManagedClusterConditionAvailable\n    status: \"{status}\"\n    reason: {reason}\n    message: {message}\n",
        accepted_status = if accepted { "True" } else { "False" },
    )
}

fn hub_fake(with_route: bool) -> HubFake {
    let east = Builder::openshift().objects_from(EXAMPLE).start();
    let west = Builder::openshift()
        .objects_from(MUST_GATHER)
        .forbid("list", "imagedigestmirrorsets")
        .start();
    let up = (
        "True",
        "ManagedClusterAvailable",
        "Managed cluster is available",
    );
    let clusters = [
        managed_cluster("east", "    env: prod\n    ring: one\n", true, up),
        managed_cluster("west", "    env: prod\n", true, up),
        managed_cluster("edge", "    env: edge\n", true, up),
        managed_cluster(
            "lab",
            "    env: lab\n    ring: one\n",
            true,
            (
                "Unknown",
                "ManagedClusterLeaseUpdateStopped",
                "Registration agent stopped updating its lease.",
            ),
        ),
        managed_cluster(
            "new",
            "    env: new\n    ring: one\n",
            false,
            (
                "Unknown",
                "ManagedClusterLeaseUpdateStopped",
                "Not joined yet.",
            ),
        ),
    ]
    .concat();
    let hub = Builder::openshift()
        .objects_from_yaml(&clusters)
        .proxy_to("east", &east)
        .proxy_to("west", &west)
        .proxy_down("edge")
        .proxy_down("lab")
        .proxy_down("new")
        .start();
    if with_route {
        hub.add_objects_from_yaml(&format!(
            "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: cluster-proxy-addon-user\n  namespace: multicluster-engine\nspec:\n  host: {}\n",
            hub.addr
        ));
    }
    HubFake {
        hub,
        _east: east,
        _west: west,
    }
}

/// The item of `context` in a multi-cluster List.
fn item<'a>(list: &'a Value, context: &str) -> &'a Value {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["context"] == context)
        .unwrap_or_else(|| panic!("no {context} in {list}"))
}

#[test]
fn issue_17_hub_reaches_managed_clusters_through_the_cluster_proxy() {
    let fake = hub_fake(true);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let (code, stdout, stderr) = run(&config, &["list", "--hub", "hub", "-o", "json"]);
    assert_eq!(
        code,
        Some(3),
        "edge has no tunnel, west is forbidden: {stderr}"
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["context"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["east", "edge", "lab", "new", "west"]);
    let url = fake.hub.url();
    let east = item(&v, "east");
    assert_eq!(east["server"], format!("{url}/east"));
    assert_eq!(east["result"]["kind"], "List");
    // east's rules are the ones its own objects give.
    let alone = bin()
        .args(["list", "-o", "json", "-f", EXAMPLE])
        .output()
        .unwrap();
    let alone: Value = serde_json::from_slice(&alone.stdout).unwrap();
    assert_eq!(east["result"], alone);
    let edge = item(&v, "edge")["error"].as_str().unwrap();
    assert!(edge.contains("503") && edge.contains("no tunnel"), "{edge}");
    assert!(
        item(&v, "west")["error"]
            .as_str()
            .unwrap()
            .contains("cannot list imagedigestmirrorsets.config.openshift.io"),
        "{stdout}"
    );
    // Every request went through the hub, with the hub user's token.
    let log = fake.hub.log();
    assert!(
        log.iter().any(|l| l.path.starts_with("/east/apis/")),
        "{log:?}"
    );
    assert!(log
        .iter()
        .all(|l| l.authorization.as_deref() == Some(&format!("Bearer {}", fake.hub.token))));
    // Text: one section per ManagedCluster.
    let (_, text, _) = run(&config, &["list", "--hub", "hub"]);
    assert!(
        text.starts_with(&format!("== context east ({url}/east)\nSOURCE")),
        "{text}"
    );
}

#[test]
fn issue_17_hub_selector_filters_managed_clusters() {
    let fake = hub_fake(true);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let (code, stdout, stderr) = run(
        &config,
        &[
            "list",
            "--hub",
            "hub",
            "--hub-selector",
            "env=prod",
            "-o",
            "json",
        ],
    );
    assert_eq!(code, Some(3), "west is forbidden: {stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["context"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["east", "west"]);
    // The selector goes with the hub's list: no request reaches another
    // cluster, and the list asked for the selected ones only.
    let log = fake.hub.log();
    for other in ["/edge/", "/lab/", "/new/"] {
        assert!(!log.iter().any(|l| l.path.starts_with(other)), "{log:?}");
    }
    assert!(
        log.iter().any(|l| l.path.ends_with("/managedclusters")
            && l.query.get("labelSelector").map(String::as_str) == Some("env=prod")),
        "{log:?}"
    );
    // The same with --hub before the command and --hub-selector after it.
    fake.hub.clear_log();
    let (split_code, split, stderr) = run(
        &config,
        &[
            "--hub",
            "hub",
            "list",
            "--hub-selector",
            "env=prod",
            "-o",
            "json",
        ],
    );
    assert_eq!(split_code, Some(3), "{stderr}");
    assert_eq!(split, stdout);
}

/// The many-cluster flags' rules hold whichever side of the command name
/// each flag is given on (clap checks one side only).
#[test]
fn issue_26_cluster_flag_rules_across_the_command_name() {
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("a", Target::Down(down_url()))]);
    for (args, want) in [
        (
            &["--hub-selector", "env=prod", "list"][..],
            "--hub-selector <SELECTOR> is used with --hub",
        ),
        (
            &["--hub-ca", "ca.pem", "list"][..],
            "--hub-ca <FILE> is used with --hub",
        ),
        (&["list", "--skip-unavailable"][..], "--hub <CONTEXT>"),
        (
            &["--hub", "a", "list", "--context", "a"][..],
            "the argument '--hub <CONTEXT>' cannot be used with '--context <NAME>'",
        ),
        (
            &["--all-contexts", "list", "--server", "https://x"][..],
            "the argument '--all-contexts' cannot be used with '--server <URL>'",
        ),
        (
            &["--all-contexts", "list", "--hub", "a"][..],
            "cannot be used with",
        ),
    ] {
        let (code, stdout, stderr) = run(&config, args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}

/// A cluster the hub reports unavailable, or has not accepted, is reported
/// from its ManagedCluster without a request; `--skip-unavailable` keeps
/// the exit code for the clusters read.
#[test]
fn issue_28_unavailable_managed_clusters_are_reported_without_a_request() {
    let fake = hub_fake(true);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let lab = "managed cluster lab is unavailable (condition ManagedClusterConditionAvailable is Unknown: ManagedClusterLeaseUpdateStopped, Registration agent stopped updating its lease.)";
    let new = "managed cluster new is not accepted by the hub (spec.hubAcceptsClient is false)";
    let one = ["--hub", "hub", "--hub-selector", "ring=one"];
    let (code, stdout, stderr) = run(&config, &[&["list", "-o", "json"][..], &one].concat());
    assert_eq!(code, Some(3), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(item(&v, "east")["result"]["kind"], "List");
    assert_eq!(item(&v, "lab")["error"], lab);
    assert_eq!(item(&v, "lab")["server"], format!("{}/lab", fake.hub.url()));
    assert_eq!(item(&v, "new")["error"], new);
    let log = fake.hub.log();
    assert!(
        log.iter()
            .all(|l| !l.path.starts_with("/lab/") && !l.path.starts_with("/new/")),
        "{log:?}"
    );
    // Reported the same, but the exit code is east's.
    let skip = [&["list", "-o", "json", "--skip-unavailable"][..], &one].concat();
    let (code, skipped, stderr) = run(&config, &skip);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(skipped, stdout);
    let (code, text, _) = run(
        &config,
        &[&["list", "--skip-unavailable"][..], &one].concat(),
    );
    assert_eq!(code, Some(0));
    assert!(
        text.contains(&format!(
            "== context lab ({}/lab)\nerror: {lab}\n",
            fake.hub.url()
        )),
        "{text}"
    );
    // One table: the clusters not read are said on stderr.
    let (code, _, stderr) = run(
        &config,
        &[
            &["audit", "-A", "-o", "wide", "--skip-unavailable"][..],
            &one,
        ]
        .concat(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(&format!(": {new}\n")), "{stderr}");
    // Only where a cluster answered: skipping does not hide a cluster
    // that failed (edge is reported available but answers 503).
    let (code, _, _) = run(
        &config,
        &[
            "list",
            "--hub",
            "hub",
            "--hub-selector",
            "env!=prod,env!=new",
            "--skip-unavailable",
        ],
    );
    assert_eq!(code, Some(3));
    // The flag is a --hub flag.
    let (code, _, stderr) = run(&config, &["list", "--skip-unavailable"]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// A selector that selects no ManagedCluster finds nothing to read, as
/// `kubectl get -l` finds no resources: said on stderr, exit 0, an empty
/// List for JSON and YAML.
#[test]
fn issue_28_hub_selector_matching_nothing_is_an_empty_list() {
    let fake = hub_fake(true);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let none = ["list", "--hub", "hub", "--hub-selector", "env=none"];
    let said =
        "the hub has no ManagedCluster matching --hub-selector \"env=none\": no cluster to read\n";
    let (code, stdout, stderr) = run(&config, &[&none[..], &["-o", "json"]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stderr, said);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    // The fields and their order of what `kubectl get -l ... -o json` prints
    // for no match (kubectl indents by four).
    assert_eq!(
        stdout,
        "{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\",\n  \"metadata\": {\n    \"resourceVersion\": \"\"\n  }\n}\n"
    );
    let (code, yaml, _) = run(&config, &[&none[..], &["-o", "yaml"]].concat());
    assert_eq!(code, Some(0));
    let from_yaml: Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(from_yaml, v);
    for text in [&none[..], &[&none[..], &["-o", "wide"]].concat()] {
        let (code, stdout, stderr) = run(&config, text);
        assert_eq!((code, stdout.as_str()), (Some(0), ""), "{text:?}");
        assert_eq!(stderr, said);
    }
}

/// The same failing fleet gives the same bytes on every run: the error of
/// a cluster whose every list fails is the first list's in read order,
/// not the first to come back.
#[test]
fn issue_28_error_items_are_byte_stable() {
    let fake = hub_fake(true);
    let down = down_url();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[
            ("hub", Target::Fake(&fake.hub)),
            ("down", Target::Down(down)),
        ],
    );
    for args in [
        &["list", "--hub", "hub", "-o", "json"][..],
        &["audit", "-A", "--hub", "hub", "-o", "yaml"][..],
        &["list", "--context", "down,hub", "-o", "json"][..],
    ] {
        let (code, first, _) = run(&config, args);
        assert_eq!(code, Some(3), "{args:?}");
        assert!(first.contains("error"), "{first}");
        for _ in 0..5 {
            let (_, again, _) = run(&config, args);
            assert_eq!(again, first, "{args:?}");
        }
    }
}

#[test]
fn issue_17_hub_without_cluster_proxy_says_so() {
    let fake = hub_fake(false);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let (code, stdout, stderr) = run(&config, &["list", "--hub", "hub"]);
    assert_eq!(code, Some(3));
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with(&format!(
            "error: the cluster-proxy add-on is not installed on the hub at {}: there is no Route cluster-proxy-addon-user",
            fake.hub.url()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: enable the cluster-proxy add-on"),
        "{stderr}"
    );
    // A cluster that is not a hub at all.
    let plain = Builder::openshift()
        .without("managedclusters.cluster.open-cluster-management.io")
        .start();
    let config = kubeconfig(dir.path(), &[("plain", Target::Fake(&plain))]);
    let (code, _, stderr) = run(&config, &["list", "--hub", "plain"]);
    assert_eq!(code, Some(3));
    assert!(
        stderr.contains("it is not an Open Cluster Management hub"),
        "{stderr}"
    );
}

/// The example of several clusters in docs/many-clusters.md is this run, with the fakes'
/// addresses written as the clusters' names.
#[test]
fn issue_17_docs_example_of_several_clusters_is_real() {
    let east = Builder::openshift().objects_from(EXAMPLE).start();
    let west = Builder::openshift().objects_from(MUST_GATHER).start();
    let dir = TempDir::new().unwrap();
    let down = down_url();
    let config = kubeconfig(
        dir.path(),
        &[
            ("prod-east", Target::Fake(&east)),
            ("prod-west", Target::Fake(&west)),
            ("lab", Target::Down(down.clone())),
        ],
    );
    const COMMAND: &str = "list --context prod-east,prod-west,lab";
    let out = bin()
        .env("COLUMNS", "100")
        .arg("--kubeconfig")
        .arg(&config)
        .args(COMMAND.split_whitespace())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let shown = String::from_utf8_lossy(&out.stdout)
        .replace(&east.url(), "https://api.prod-east.example.com:6443")
        .replace(&west.url(), "https://api.prod-west.example.com:6443")
        .replace(&down, "https://api.lab.example.com:6443")
        .replace(&down["https://".len()..], "api.lab.example.com:6443");
    let (command, block) = support::docs_example(
        "docs/many-clusters.md",
        &format!("kubectl mirrorpolicy {COMMAND}"),
    );
    assert_eq!(command, format!("kubectl mirrorpolicy {COMMAND}"));
    assert_eq!(block, shown);
}

/// The commands that read one cluster do not offer the flags of several in
/// their help (nor their man pages and completions), and still refuse them
/// with a message; the others offer them.
#[test]
fn issue_28_one_cluster_commands_do_not_offer_many_cluster_flags() {
    const MANY: [&str; 7] = [
        "--all-contexts",
        "--hub ",
        "--hub-selector",
        "--hub-ca",
        "--skip-unavailable",
        "--context-concurrency",
        "--context-timeout",
    ];
    for command in ["migrate-icsp", "collect-node-files"] {
        for help in ["--help", "-h"] {
            let out = bin().args([command, help]).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            for flag in MANY {
                assert!(
                    !text.contains(flag),
                    "{command} {help} offers {flag}:\n{text}"
                );
            }
            assert!(text.contains("--context <NAME>"), "{text}");
            assert!(!text.contains("comma list"), "{text}");
            let man =
                std::fs::read_to_string(format!("man/kubectl-mirrorpolicy-{command}.1")).unwrap();
            assert!(
                !man.contains("all\\-contexts") && !man.contains("\\-\\-hub"),
                "{command}"
            );
        }
    }
    for command in ["explain", "render", "list", "lint", "diff", "audit"] {
        let out = bin().args([command, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for flag in MANY {
            assert!(text.contains(flag), "{command} does not offer {flag}");
        }
    }
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("a", Target::Down(down_url()))]);
    for args in [
        &["migrate-icsp", "--hub", "a"][..],
        &["migrate-icsp", "--context", "a,b"][..],
        &["collect-node-files", "--dest-dir", "out", "--all-contexts"][..],
        &["--hub", "a", "collect-node-files", "--dest-dir", "out"][..],
    ] {
        let (code, _, stderr) = run(&config, args);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(stderr.starts_with("error: several clusters"), "{stderr}");
    }
}

/// A hub whose cluster-proxy Route is served by its router, with a
/// certificate the hub's ingress CA signed (not the API server's CA):
/// ManagedCluster `east` behind it, and the ingress CA published in
/// `openshift-config-managed/default-ingress-cert` when `publish_ca`.
struct RoutedHub {
    hub: FakeApiServer,
    router: FakeApiServer,
    ingress_ca_pem: String,
    _east: FakeApiServer,
}

fn routed_hub(publish_ca: bool) -> RoutedHub {
    use support::certs::{ca, pem, server};
    let east = Builder::openshift().objects_from(EXAMPLE).start();
    let ingress = ca("ingress-operator@1700000000", None);
    let (leaf, key) = server(Some(&ingress), |_| {});
    let router = Builder::openshift()
        .serving(vec![leaf, ingress.der().to_vec()], key)
        .proxy_to("east", &east)
        .start();
    let hub = Builder::openshift()
        .objects_from_yaml("apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata:\n  name: east\nspec:\n  hubAcceptsClient: true\nstatus:\n  conditions:\n  - type: ManagedClusterConditionAvailable\n    status: \"True\"\n    reason: ManagedClusterAvailable\n    message: Managed cluster is available\n")
        .start();
    hub.add_objects_from_yaml(&format!(
        "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: cluster-proxy-addon-user\n  namespace: multicluster-engine\nspec:\n  host: {}\n",
        router.addr
    ));
    let ingress_ca_pem = pem(ingress.der());
    if publish_ca {
        let config_map = serde_json::json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "default-ingress-cert", "namespace": "openshift-config-managed"},
            "data": {"ca-bundle.crt": ingress_ca_pem},
        });
        hub.add_objects_from_yaml(&config_map.to_string());
    }
    RoutedHub {
        hub,
        router,
        ingress_ca_pem,
        _east: east,
    }
}

/// issue 28: the cluster-proxy Route is verified against the hub's ingress
/// CA, read from the hub.
#[test]
fn issue_28_hub_route_is_trusted_through_the_ingress_ca() {
    let fake = routed_hub(true);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let (code, stdout, stderr) = run(&config, &["list", "--hub", "hub", "-o", "json"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["items"][0]["server"],
        format!("{}/east", fake.router.url())
    );
    assert_eq!(v["items"][0]["result"]["kind"], "List");
    assert!(fake
        .router
        .log()
        .iter()
        .any(|l| l.path.starts_with("/east/apis/")));
}

/// issue 28: without the ingress CA the Route is refused, and the error
/// says which roots were tried and how to give the right one; `--hub-ca`
/// gives it.
#[test]
fn issue_28_hub_route_refused_names_the_cas_then_hub_ca_gives_it() {
    let fake = routed_hub(false);
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(dir.path(), &[("hub", Target::Fake(&fake.hub))]);
    let (code, stdout, stderr) = run(&config, &["list", "--hub", "hub", "-o", "json"]);
    assert_eq!(code, Some(3), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let error = v["items"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("tls: failed to verify certificate: x509: certificate signed by unknown authority (roots tried: the kubeconfig's certificate-authority-data (CN=fake-apiserver-ca); the hub's ingress CA was not read (ConfigMap openshift-config-managed/default-ingress-cert: not found; give it with --hub-ca FILE))"),
        "{error}"
    );
    // --hub-ca: the ingress CA given by hand.
    let ca_file = dir.path().join("ingress-ca.crt");
    std::fs::write(&ca_file, &fake.ingress_ca_pem).unwrap();
    let ca_arg = ca_file.display().to_string();
    let (code, stdout, stderr) = run(
        &config,
        &["list", "--hub", "hub", "--hub-ca", &ca_arg, "-o", "json"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    // A wrong --hub-ca is named in the refusal.
    let wrong = dir.path().join("wrong.crt");
    std::fs::write(&wrong, &fake.hub.ca_pem).unwrap();
    let wrong_arg = wrong.display().to_string();
    let (code, stdout, _) = run(
        &config,
        &["list", "--hub", "hub", "--hub-ca", &wrong_arg, "-o", "json"],
    );
    assert_eq!(code, Some(3));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let error = v["items"][0]["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("; --hub-ca {wrong_arg} (CN=fake-apiserver-ca))")),
        "{error}"
    );
    // An unreadable or empty --hub-ca is an input error, before any request.
    let empty = dir.path().join("empty.crt");
    std::fs::write(&empty, "").unwrap();
    for (file, says) in [
        (dir.path().join("missing.crt"), "cannot read --hub-ca"),
        (empty, "no PEM certificate"),
    ] {
        fake.hub.clear_log();
        let arg = file.display().to_string();
        let (code, _, stderr) = run(&config, &["list", "--hub", "hub", "--hub-ca", &arg]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(says) && stderr.contains(&arg), "{stderr}");
        assert!(fake.hub.log().is_empty());
    }
    // --hub-ca belongs to --hub.
    let (code, _, stderr) = run(&config, &["list", "--hub-ca", &ca_arg]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// issue 26: `-o summary`, one line per cluster and a total that tells the
/// clusters with findings from the clusters not read.
#[test]
fn issue_26_summary_is_one_line_per_cluster_and_a_total() {
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let b = Builder::openshift().objects_from(MUST_GATHER).start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[
            ("a", Target::Fake(&a)),
            ("b", Target::Fake(&b)),
            ("down", Target::Down(down_url())),
        ],
    );
    let image = "registry.redhat.io/rhel9/support-tools:latest";
    let (code, stdout, stderr) = run(
        &config,
        &["explain", image, "--context", "a,b,down", "-o", "summary"],
    );
    assert_eq!(code, Some(3), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("a ok images=1 fromMirror="),
        "{stdout}"
    );
    assert!(lines[1].starts_with("b ok images=1 "), "{stdout}");
    assert!(lines[2].starts_with("down error: "), "{stdout}");
    assert_eq!(lines[3], "total clusters=3 ok=2 findings=0 errors=1 exit=3");
    // What the line counts is what the cluster's JSON says.
    let (_, json, _) = run(&config, &["explain", image, "--context", "a", "-o", "json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let role = v["candidates"][0]["sources"][0]["role"].as_str().unwrap();
    let want = if role == "mirror" {
        "fromMirror=1 fromSource=0"
    } else {
        "fromMirror=0 fromSource=1"
    };
    assert_eq!(lines[0], format!("a ok images=1 {want}"));

    // audit: its own counts; with one cluster, the current context.
    let (code, stdout, stderr) = run(&config, &["audit", "-A", "-o", "summary"]);
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("a ok images=0 direct=0 "), "{stdout}");
    assert_eq!(lines[1], "total clusters=1 ok=1 findings=0 errors=0 exit=0");

    for args in [
        &["diff", "--context", "a,down", "-o", "summary"][..],
        &[
            "upgrade-check",
            "--to",
            "4.99.0",
            "--context",
            "a,down",
            "-o",
            "summary",
        ][..],
    ] {
        let (code, stdout, stderr) = run(&config, args);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{args:?}: {stdout}{stderr}");
        assert!(lines[0].starts_with("a "), "{args:?}: {stdout}");
        assert!(lines[1].starts_with("down error: "), "{args:?}: {stdout}");
        assert!(
            lines[2].starts_with("total clusters=2 "),
            "{args:?}: {stdout}"
        );
        assert_eq!(code, Some(3), "{args:?}: {stdout}{stderr}");
    }

    // Files are not clusters.
    let (code, _, stderr) = run(&config, &["audit", "-f", EXAMPLE, "-o", "summary"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("-o summary sums up live clusters"),
        "{stderr}"
    );
}

/// The peak resident memory (KiB) and stdout of a run that succeeds.
fn peak_rss(kubeconfig: &Path, args: &[&str]) -> (i64, Vec<u8>) {
    let mut cmd = support::std_bin();
    cmd.arg("--kubeconfig").arg(kubeconfig).args(args);
    let run = support::peak_rss(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    (run.peak_kib, run.stdout.into_bytes())
}

/// A kubeconfig of `n` contexts, all on `server`.
fn fleet(dir: &Path, server: &FakeApiServer, n: usize) -> PathBuf {
    let named: Vec<String> = (0..n).map(|i| format!("c{i:03}")).collect();
    let targets: Vec<(&str, Target<'_>)> = named
        .iter()
        .map(|n| (n.as_str(), Target::Fake(server)))
        .collect();
    kubeconfig(dir, &targets)
}

/// issue 26: 500 clusters take no more memory than 50: the outcomes are
/// written as they come, at most `--context-concurrency` clusters are in
/// flight, and the kubeconfig is read once.
#[test]
fn issue_26_five_hundred_contexts_run_in_bounded_memory() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let small_dir = TempDir::new().unwrap();
    let small = fleet(small_dir.path(), &server, 50);
    let big_dir = TempDir::new().unwrap();
    let big = fleet(big_dir.path(), &server, 500);
    let args = [
        "list",
        "--all-contexts",
        "-o",
        "json",
        "--context-concurrency",
        "16",
    ];
    let (small_peak, _) = peak_rss(&small, &args);
    server.clear_log();
    let (big_peak, stdout) = peak_rss(&big, &args);
    let v: Value = serde_json::from_slice(&stdout).unwrap();
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 500);
    assert!(items.iter().all(|i| i["result"].is_object()));
    assert_eq!(items[499]["context"], "c499", "in the contexts' order");
    // Nine lists per cluster, at most 16 clusters at a time.
    assert!(
        server.max_in_flight() <= 9 * 16,
        "{}",
        server.max_in_flight()
    );
    assert_eq!(server.log().len(), 500 * 9);
    assert!(
        big_peak <= small_peak + 24 * 1024,
        "peak {big_peak} KiB for 500 clusters, {small_peak} KiB for 50"
    );
}

/// issue 26: on a terminal, stderr shows how many clusters are done and
/// how many failed, and the line is taken away at the end; in a pipe,
/// nothing.
#[test]
fn issue_26_progress_line_only_on_a_terminal() {
    use std::io::Read;
    use std::os::fd::{FromRawFd, OwnedFd};
    let a = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[
            ("a", Target::Fake(&a)),
            ("down", Target::Down(down_url())),
            ("z", Target::Fake(&a)),
        ],
    );
    let args = [
        "list",
        "--all-contexts",
        "-o",
        "json",
        "--context-concurrency",
        "1",
    ];
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills two descriptors; no name, default settings.
    let opened = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"))
        .arg("--kubeconfig")
        .arg(&config)
        .args(args)
        .env_remove("KUBECONFIG")
        .stderr(std::process::Stdio::from(slave))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let mut terminal = std::fs::File::from(master);
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    // The child is gone: read what it left until the terminal has no writer.
    while let Ok(n) = terminal.read(&mut chunk) {
        if n == 0 {
            break;
        }
        seen.extend_from_slice(&chunk[..n]);
    }
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.contains("1/3 clusters, 0 failed"), "{seen:?}");
    assert!(seen.contains("2/3 clusters, 1 failed"), "{seen:?}");
    assert!(seen.ends_with("\r\u{1b}[K"), "cleared at the end: {seen:?}");
    // JSON on stdout is untouched.
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 3);
    let (_, _, stderr) = run(&config, &args);
    assert!(!stderr.contains("clusters,"), "{stderr}");
}

/// docs/many-clusters.md's example of `-o summary` is this run, with the
/// fakes' addresses written as the clusters' names.
#[test]
fn issue_26_docs_summary_example_is_real() {
    let east = Builder::openshift().objects_from(EXAMPLE).start();
    let west = Builder::openshift().objects_from(MUST_GATHER).start();
    let dir = TempDir::new().unwrap();
    let down = down_url();
    let config = kubeconfig(
        dir.path(),
        &[
            ("prod-east", Target::Fake(&east)),
            ("prod-west", Target::Fake(&west)),
            ("lab", Target::Down(down.clone())),
        ],
    );
    const COMMAND: &str = "audit -A --context prod-east,prod-west,lab -o summary";
    let (code, stdout, _) = run(&config, &COMMAND.split_whitespace().collect::<Vec<_>>());
    assert_eq!(code, Some(3));
    let shown = stdout
        .replace(&down, "https://api.lab.example.com:6443")
        .replace(&down["https://".len()..], "api.lab.example.com:6443");
    let (command, block) = support::docs_example(
        "docs/many-clusters.md",
        &format!("kubectl mirrorpolicy {COMMAND}"),
    );
    assert_eq!(command, format!("kubectl mirrorpolicy {COMMAND}"));
    assert_eq!(block, shown);
}

/// Tag mirrors before a source never contacted, one worker node and its pool.
const JOURNAL_CLUSTER: &str = "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {name: ns}\nspec:\n  imageTagMirrors:\n  - source: quay.io/ns\n    mirrors: [m1.example.com/ns, m2.example.com/ns]\n    mirrorSourcePolicy: NeverContactSource\n---\napiVersion: v1\nkind: Node\nmetadata: {name: worker-0, labels: {node-role.kubernetes.io/worker: ''}}\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: worker}\nspec: {nodeSelector: {matchLabels: {node-role.kubernetes.io/worker: ''}}}\n";

/// A pull of quay.io/ns/app:v1 on worker-0 as CRI-O logs it, trying `tried`.
fn crio_pull(tried: &[&str]) -> String {
    let line = |n: usize, msg: &str, id: &str| {
        format!("May 01 10:00:{n:02}.250000 worker-0 crio[2211]: time=\"2024-05-01 10:00:{n:02}.250000000Z\" level=info msg=\"{msg}\"{id}\n")
    };
    let id = " id=a name=/runtime.v1.ImageService/PullImage";
    let mut out = line(0, "Pulling image: quay.io/ns/app:v1", id);
    for (i, t) in tried.iter().enumerate() {
        out += &line(i + 1, &format!("Trying to access \\\"{t}\\\""), "");
    }
    out + &line(
        tried.len() + 1,
        "Pulled image: quay.io/ns/app@sha256:0b0e",
        id,
    )
}

/// `audit --journal` over two clusters, the second's node skipping a
/// mirror: one section per cluster, one List item per cluster, one summary
/// line per cluster, exit 1; `-o wide` is each cluster's text.
#[test]
fn issue_24_audit_journal_over_several_clusters() {
    let fine = Builder::openshift()
        .objects_from_yaml(JOURNAL_CLUSTER)
        .node_journal("worker-0", &crio_pull(&["m1.example.com/ns/app:v1"]))
        .start();
    let skips = Builder::openshift()
        .objects_from_yaml(JOURNAL_CLUSTER)
        .node_journal("worker-0", &crio_pull(&["m2.example.com/ns/app:v1"]))
        .start();
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[("a", Target::Fake(&fine)), ("b", Target::Fake(&skips))],
    );
    let base = [
        "audit",
        "--journal",
        "--since",
        "2024-05-01 00:00:00",
        "--context",
        "a,b",
    ];
    let (code, stdout, stderr) = run(&config, &base);
    assert_eq!(code, Some(1), "{stderr}");
    let at_b = stdout.find("== context b (").expect("section b");
    let (a, b) = stdout.split_at(at_b);
    assert!(a.starts_with("== context a ("), "{stdout}");
    assert!(a.contains("all as expected"), "{a}");
    assert!(b.contains("m1.example.com/ns/app:v1"), "{b}");
    assert!(!b.contains("all as expected"), "{b}");

    let (code, json, stderr) = run(&config, &[&base[..], &["-o", "json"]].concat());
    assert_eq!(code, Some(1), "{stderr}");
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 2);
    let verdicts = |c: &str| item(&v, c)["result"]["images"][0]["verdicts"].clone();
    assert_eq!(verdicts("a")["asExpected"], 1, "{v}");
    assert_eq!(verdicts("b")["diverges"], 1, "{v}");
    assert_eq!(
        item(&v, "b")["result"]["images"][0]["journal"][0]["pulls"][0]["divergence"]["kind"],
        "mirrorSkipped"
    );

    let (code, summary, stderr) = run(&config, &[&base[..], &["-o", "summary"]].concat());
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(
        summary.lines().collect::<Vec<_>>(),
        [
            "a ok images=1 pulls=1 diverging=0 undeterminedNodes=0",
            "b findings images=1 pulls=1 diverging=1 undeterminedNodes=0",
            "total clusters=2 ok=1 findings=1 errors=0 exit=1",
        ],
        "{summary}"
    );

    let (code, wide, stderr) = run(&config, &[&base[..], &["-o", "wide"]].concat());
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(wide, stdout, "-o wide of the pull log is its text");
}

/// The contexts `c000` ... of a fleet of `n` on `server`, but for `silent`
/// (by index), which points at `silent_url`.
fn fleet_with(
    dir: &Path,
    server: &FakeApiServer,
    n: usize,
    silent: Option<(usize, &str)>,
) -> PathBuf {
    let named: Vec<String> = (0..n).map(|i| format!("c{i:03}")).collect();
    let targets: Vec<(&str, Target<'_>)> = named
        .iter()
        .enumerate()
        .map(|(i, name)| match silent {
            Some((at, url)) if at == i => (name.as_str(), Target::Down(url.to_string())),
            _ => (name.as_str(), Target::Fake(server)),
        })
        .collect();
    kubeconfig(dir, &targets)
}

/// The rows of the table of clusters `names` whose rows are those of
/// `c000` in `reference` (a table of clusters as wide as these names, all
/// with the same objects): `c000`'s lines with its name changed, under the
/// header.
fn same_rows(reference: &str, names: &[String]) -> String {
    let mut lines = reference.lines();
    let mut want = format!("{}\n", lines.next().unwrap());
    let mut of_c000 = Vec::new();
    let mut current = "";
    for line in lines {
        if !line.starts_with(' ') {
            current = line.split(' ').next().unwrap();
        }
        if current == "c000" {
            of_c000.push(line);
        }
    }
    assert!(!of_c000.is_empty(), "{reference}");
    for name in names {
        for line in &of_c000 {
            want.push_str(&line.replacen("c000", name, 1));
            want.push('\n');
        }
    }
    want
}

/// issue 26: `list -o wide` over a fleet is written as its clusters are
/// done, in parts of 64 clusters: the first 64 clusters' rows are on
/// stdout while the 65th has not answered. Each cluster's rows, their
/// order, the one header and the alignment are those of the one table of
/// a few clusters; the cluster not read is said on stderr.
#[test]
fn issue_26_list_wide_streams_over_a_fleet() {
    use std::io::{BufRead, BufReader};
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    // Takes connections (the kernel's backlog) and never answers, until
    // it is closed.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("https://{}", silent.local_addr().unwrap());
    let dir = TempDir::new().unwrap();
    let config = fleet_with(dir.path(), &server, 70, Some((64, &silent_url)));
    let (code, reference, stderr) = run(&config, &["list", "--context", "c000,c001", "-o", "wide"]);
    assert_eq!(code, Some(0), "{stderr}");
    let stderr_file = dir.path().join("stderr");
    // c064 gets no answer and cannot time out while the test runs.
    let mut child =
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"))
            .arg("--kubeconfig")
            .arg(&config)
            .args([
                "list",
                "--all-contexts",
                "-o",
                "wide",
                "--context-concurrency",
                "8",
            ])
            .args(["--request-timeout", "30m", "--context-timeout", "30m"])
            .env("NO_COLOR", "1")
            .env("COLUMNS", "200")
            .env_remove("KUBECONFIG")
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&stderr_file).unwrap())
            .spawn()
            .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    let names: Vec<String> = (0..70).map(|i| format!("c{i:03}")).collect();
    let first = same_rows(&reference, &names[..64]);
    let mut seen = String::new();
    while seen.len() < first.len() {
        // Not a speed limit: without the first part written as c064
        // waits, nothing would come until c064's 30 minutes are over.
        match lines.recv_timeout(std::time::Duration::from_secs(300)) {
            Ok(line) => seen.push_str(&format!("{line}\n")),
            Err(e) => {
                let _ = child.kill();
                panic!("no first part while c064 is unanswered ({e}); so far:\n{seen}");
            }
        }
    }
    assert_eq!(seen, first);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the first part came before c064 was read"
    );
    drop(silent);
    let rest: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(&stderr_file).unwrap();
    assert_eq!(status.code(), Some(3), "{stderr}");
    let after: Vec<String> = names[65..].to_vec();
    let want_rest = same_rows(&reference, &after);
    let want_rest = want_rest.split_once('\n').unwrap().1;
    assert_eq!(rest, want_rest, "the rows of c065 to c069, no header");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: context c064 ({silent_url}): ")),
        "{stderr}"
    );
}

/// issue 26: `audit -o wide` over more clusters than a part holds: each
/// cluster's rows in the clusters' order under one header, the blank line,
/// then each cluster's counts, as in the table of a few clusters.
#[test]
fn issue_26_audit_wide_over_two_parts() {
    let server = Builder::openshift()
        .objects_from("tests/fixtures/audit-cluster")
        .start();
    let dir = TempDir::new().unwrap();
    let config = fleet_with(dir.path(), &server, 66, None);
    let (code, reference, stderr) = run(
        &config,
        &["audit", "-A", "--context", "c000,c001", "-o", "wide"],
    );
    let (table, counts) = reference.split_once("\n\n").unwrap();
    let (all_code, all, all_stderr) =
        run(&config, &["audit", "-A", "--all-contexts", "-o", "wide"]);
    assert_eq!(all_code, code, "{stderr}{all_stderr}");
    let names: Vec<String> = (0..66).map(|i| format!("c{i:03}")).collect();
    let count_line = counts
        .lines()
        .next()
        .unwrap()
        .strip_prefix("c000: ")
        .unwrap();
    let mut want = same_rows(&format!("{table}\n"), &names);
    want.push('\n');
    for name in &names {
        want.push_str(&format!("{name}: {count_line}\n"));
    }
    assert_eq!(all, want);
}

/// issue 26: the process runs without transparent huge pages, a fleet
/// (with them, a fleet read 32 clusters at a time held 1.9 times the
/// memory) and a single run alike (with them, a render of 20,000 sources
/// held 17 MiB more). The kernel's status of the running process says
/// which.
#[cfg(target_os = "linux")]
#[test]
fn issue_26_no_transparent_huge_pages() {
    let thp = |pid: u32| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("THP_enabled:"))
            .map(|v| v.trim().to_string())
    };
    // A child inherits the setting: it shows only where this process has
    // huge pages on.
    if thp(std::process::id()).as_deref() != Some("1") {
        eprintln!("this process does not have THP_enabled 1: nothing to check");
        return;
    }
    // Both clusters take the connection and never answer, until closed.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", silent.local_addr().unwrap());
    let dir = TempDir::new().unwrap();
    let config = kubeconfig(
        dir.path(),
        &[("a", Target::Down(url.clone())), ("b", Target::Down(url))],
    );
    // A fleet, waiting for its clusters; one run, waiting for its stdin.
    for (args, want, polls) in [
        (
            &["list", "--all-contexts", "--request-timeout", "30m"][..],
            "0",
            300,
        ),
        (&["list", "-f", "-"][..], "0", 300),
    ] {
        let mut child =
            std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"))
                .arg("--kubeconfig")
                .arg(&config)
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
        let mut seen = None;
        // Not a speed limit: the setting comes before any request or
        // read, and is kept.
        for _ in 0..polls {
            std::thread::sleep(std::time::Duration::from_millis(100));
            seen = thp(child.id());
            if seen.as_deref() == Some("0") {
                break;
            }
        }
        drop(child.stdin.take());
        let _ = child.kill();
        child.wait().unwrap();
        assert_eq!(seen.as_deref(), Some(want), "{args:?}");
    }
}
