//! A whole fleet against the fake API server of the tests: thousands of
//! clusters read through one kubeconfig (one context per cluster, all on
//! one fake server) or through a hub (one ManagedCluster per cluster,
//! reached through the hub's cluster-proxy route), every request held back
//! by a latency. Each run starts the binary once and reports its wall
//! time, its CPU time (user + system, per cluster) and its peak resident
//! memory, read from the kernel for that process alone (`wait4`, in a
//! fresh process of the harness that starts it: see [`measure`]).
//!
//! ```sh
//! cargo bench --bench fleet -- [--hub] [--down-every K] [--clusters N]
//!     [--latency-ms MS] [--runs R] [--bin PATH] [-- ARGS...]
//! ```
//!
//! ARGS are the command and its flags (default `list -o json`); the
//! harness adds `--kubeconfig` and `--all-contexts` (or `--hub hub
//! --hub-ca FILE`). With `--hub`, `--down-every K` makes every K-th
//! ManagedCluster one the cluster-proxy has no tunnel to (each request a
//! 503, as the proxy answers for a cluster whose agent is gone); the run
//! then says how many items of a JSON `List` are errors, and how many
//! clusters the hub proxied a request to (with `--hub-selector` in ARGS,
//! only the selected ones may be). `--bin` runs another build of the tool (a debug one,
//! under `valgrind`, ...: its words are split on spaces). BENCHMARKS.md
//! records the figures.

#[path = "../tests/it/support/apiserver.rs"]
mod apiserver;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;

struct Options {
    hub: bool,
    down_every: Option<usize>,
    clusters: usize,
    latency: Duration,
    runs: usize,
    bin: Vec<String>,
    args: Vec<String>,
}

fn options() -> Options {
    let mut o = Options {
        hub: false,
        down_every: None,
        clusters: 3000,
        latency: Duration::from_millis(100),
        runs: 3,
        bin: vec![env!("CARGO_BIN_EXE_kubectl-mirrorpolicy").to_string()],
        args: Vec::new(),
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        let mut value = || given.next().expect("a value after the flag");
        match arg.as_str() {
            "--hub" => o.hub = true,
            "--down-every" => {
                o.down_every = Some(value().parse().expect("--down-every K"));
            }
            "--clusters" => o.clusters = value().parse().expect("--clusters N"),
            "--latency-ms" => {
                o.latency = Duration::from_millis(value().parse().expect("--latency-ms MS"))
            }
            "--runs" => o.runs = value().parse().expect("--runs R"),
            "--bin" => o.bin = value().split(' ').map(str::to_string).collect(),
            // `cargo bench` passes `--bench` to a harness-less bench.
            "--bench" => {}
            // `cargo bench` puts its `--bench` after them too.
            "--" => o.args = given.by_ref().filter(|a| a != "--bench").collect(),
            other => panic!("unknown argument {other:?}"),
        }
    }
    if o.args.is_empty() {
        o.args = ["list", "-o", "json"].map(str::to_string).to_vec();
    }
    o
}

/// What one run of the binary cost.
struct Cost {
    wall: Duration,
    cpu: Duration,
    peak_kib: i64,
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// The argument that makes this harness the measuring helper: `HELPER FILE
/// -- PROGRAM ARGS...` runs PROGRAM and writes its cost to FILE.
const HELPER: &str = "--measure-into";

/// Runs `command` (a program, its arguments and environment) and reads its
/// cost. It is started by a fresh process of this harness (see
/// [`helper`]), not by this one: the kernel counts in a process's peak
/// memory that of the process it was forked from, until its exec, and this
/// one holds the fake servers and their logs, which grow run after run.
fn measure(program: &[String], args: &[std::ffi::OsString], env: &[(&str, &str)]) -> Cost {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("cost");
    let mut command = Command::new(std::env::current_exe().expect("this harness"));
    command
        .arg(HELPER)
        .arg(&file)
        .arg("--")
        .args(program)
        .args(args)
        .env_remove("KUBECONFIG");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command.output().expect("start the measuring helper");
    assert!(out.status.success(), "the measuring helper failed");
    let text = std::fs::read_to_string(&file).expect("the helper's figures");
    let figures: Vec<i64> = text
        .split_whitespace()
        .map(|f| f.parse().expect("a figure"))
        .collect();
    let micros = |us: i64| Duration::from_micros(us.unsigned_abs());
    Cost {
        wall: micros(figures[0]),
        cpu: micros(figures[1]),
        peak_kib: figures[2],
        status: i32::try_from(figures[3]).expect("exit status"),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// The measuring helper: runs PROGRAM with this process's stdin, stdout
/// and stderr, waits for it with `wait4` (its CPU time and peak memory,
/// its own), and writes `wall_us cpu_us peak_kib status` to FILE.
// wait4 reaps the child, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn helper(mut given: impl Iterator<Item = std::ffi::OsString>) {
    let file = PathBuf::from(given.next().expect("FILE"));
    assert_eq!(given.next().as_deref(), Some(std::ffi::OsStr::new("--")));
    let program = given.next().expect("PROGRAM");
    let start = Instant::now();
    let child = Command::new(program)
        .args(given)
        .spawn()
        .expect("start the binary");
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet waited for; the pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let wall = start.elapsed();
    let micros = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    std::fs::write(
        file,
        format!(
            "{} {} {} {}\n",
            wall.as_micros(),
            micros(usage.ru_utime) + micros(usage.ru_stime),
            usage.ru_maxrss,
            libc::WEXITSTATUS(status)
        ),
    )
    .expect("write the figures");
}

/// A kubeconfig with one context (and cluster and user) per cluster, all
/// on `server`, named `c0000`, `c0001`, ...
fn fleet_kubeconfig(dir: &Path, server: &apiserver::FakeApiServer, n: usize) -> PathBuf {
    let ca = base64::engine::general_purpose::STANDARD.encode(&server.ca_pem);
    let (mut clusters, mut users, mut contexts) = (String::new(), String::new(), String::new());
    for i in 0..n {
        let _ = write!(
            clusters,
            "- name: c{i:04}\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\n",
            server.url()
        );
        let _ = write!(
            users,
            "- name: c{i:04}\n  user:\n    token: {}\n",
            server.token
        );
        let _ = write!(
            contexts,
            "- name: c{i:04}\n  context:\n    cluster: c{i:04}\n    user: c{i:04}\n"
        );
    }
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!("apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n{users}contexts:\n{contexts}current-context: c0000\n"),
    )
    .expect("write kubeconfig");
    path
}

/// Whether ManagedCluster `i` has no tunnel (`--down-every K`: every K-th).
fn is_down(i: usize, down_every: Option<usize>) -> bool {
    down_every.is_some_and(|k| k > 0 && i % k == k - 1)
}

/// A hub with `n` available ManagedClusters `m0000`, ... each served
/// through its cluster-proxy route by `backend`, but those [`is_down`].
fn hub(
    backend: &apiserver::FakeApiServer,
    n: usize,
    latency: Duration,
    down_every: Option<usize>,
) -> apiserver::FakeApiServer {
    let mut objects = String::new();
    for i in 0..n {
        let _ = write!(
            objects,
            "---\napiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\nmetadata:\n  name: m{i:04}\n  labels:\n    ring: r{}\nspec:\n  hubAcceptsClient: true\nstatus:\n  conditions:\n  - type: ManagedClusterConditionAvailable\n    status: \"True\"\n    reason: ManagedClusterAvailable\n",
            i % 10
        );
    }
    let mut builder = apiserver::Builder::openshift()
        .objects_from_yaml(&objects)
        .latency(latency);
    for i in 0..n {
        builder = if is_down(i, down_every) {
            builder.proxy_down(&format!("m{i:04}"))
        } else {
            builder.proxy_to(&format!("m{i:04}"), backend)
        };
    }
    let hub = builder.start();
    hub.add_objects_from_yaml(&format!(
        "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: cluster-proxy-addon-user\n  namespace: multicluster-engine\nspec:\n  host: {}\n",
        hub.addr
    ));
    hub
}

fn main() {
    let mut given = std::env::args_os().skip(1);
    if given.next().as_deref() == Some(std::ffi::OsStr::new(HELPER)) {
        return helper(given);
    }
    let o = options();
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = apiserver::Builder::openshift()
        .objects_from("examples/disconnected-cluster")
        .latency(o.latency)
        .start();
    let hub = o
        .hub
        .then(|| hub(&backend, o.clusters, o.latency, o.down_every));
    let (kubeconfig, reach): (PathBuf, Vec<String>) = match &hub {
        Some(hub) => {
            let ca = dir.path().join("hub-ca.pem");
            std::fs::write(&ca, &hub.ca_pem).expect("write the hub CA");
            let args = vec![
                "--hub".to_string(),
                "fake".to_string(),
                "--hub-ca".to_string(),
                ca.display().to_string(),
            ];
            (hub.write_kubeconfig(dir.path()), args)
        }
        None => (
            fleet_kubeconfig(dir.path(), &backend, o.clusters),
            vec!["--all-contexts".to_string()],
        ),
    };
    let through = if o.hub { "a hub" } else { "one kubeconfig" };
    println!(
        "{} clusters through {through}, {:?} per request: {} {}",
        o.clusters,
        o.latency,
        o.bin.join(" "),
        o.args.join(" ")
    );
    for run in 1..=o.runs {
        let mut args: Vec<std::ffi::OsString> =
            vec!["--kubeconfig".into(), kubeconfig.clone().into()];
        args.extend(reach.iter().chain(&o.args).map(Into::into));
        let cost = measure(&o.bin, &args, &[("NO_COLOR", "1")]);
        let stderr = String::from_utf8_lossy(&cost.stderr);
        let errors = stderr.lines().filter(|l| l.contains("error")).count();
        println!(
            "run {run}: exit {}, wall {:.2} s, CPU {:.2} s ({:.2} ms per cluster), peak {} MiB, stdout {} KiB, {errors} error lines on stderr",
            cost.status,
            cost.wall.as_secs_f64(),
            cost.cpu.as_secs_f64(),
            cost.cpu.as_secs_f64() * 1000.0 / o.clusters as f64,
            cost.peak_kib / 1024,
            cost.stdout.len() / 1024,
        );
        if cost.status != 0 {
            println!("{}", stderr.lines().take(5).collect::<Vec<_>>().join("\n"));
        }
        if let Ok(list) = serde_json::from_slice::<serde_json::Value>(&cost.stdout) {
            let items = list["items"].as_array().map_or(&[][..], Vec::as_slice);
            let failed = items.iter().filter(|i| i.get("error").is_some()).count();
            println!("  {} items, {failed} of them errors", items.len());
        }
        if let Some(hub) = &hub {
            let reached: std::collections::BTreeSet<String> = hub
                .log()
                .iter()
                .filter_map(|l| l.path.strip_prefix("/m"))
                .filter_map(|p| p.split('/').next())
                .map(str::to_string)
                .collect();
            println!("  the hub proxied requests to {} clusters", reached.len());
            hub.clear_log();
        }
    }
    println!("{} requests answered by the clusters", backend.log().len());
}
