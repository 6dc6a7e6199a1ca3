//! A whole fleet against the fake API server of the tests: thousands of
//! clusters read through one kubeconfig (one context per cluster, all on
//! one fake server) or through a hub (one ManagedCluster per cluster,
//! reached through the hub's cluster-proxy route), every request held back
//! by a latency. Each run starts the binary once and reports its wall
//! time, its CPU time (user + system, per cluster) and its peak resident
//! memory, read from the kernel for that process alone (`wait4`).
//!
//! ```sh
//! cargo bench --bench fleet -- [--hub] [--clusters N] [--latency-ms MS]
//!     [--runs R] [--bin PATH] [-- ARGS...]
//! ```
//!
//! ARGS are the command and its flags (default `list -o json`); the
//! harness adds `--kubeconfig` and `--all-contexts` (or `--hub hub
//! --hub-ca FILE`). `--bin` runs another build of the tool (a debug one,
//! under `valgrind`, ...: its words are split on spaces). BENCHMARKS.md
//! records the figures.

#[path = "../tests/support/apiserver.rs"]
mod apiserver;

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;

struct Options {
    hub: bool,
    clusters: usize,
    latency: Duration,
    runs: usize,
    bin: Vec<String>,
    args: Vec<String>,
}

fn options() -> Options {
    let mut o = Options {
        hub: false,
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
            "--clusters" => o.clusters = value().parse().expect("--clusters N"),
            "--latency-ms" => {
                o.latency = Duration::from_millis(value().parse().expect("--latency-ms MS"))
            }
            "--runs" => o.runs = value().parse().expect("--runs R"),
            "--bin" => o.bin = value().split(' ').map(str::to_string).collect(),
            // `cargo bench` passes `--bench` to a harness-less bench.
            "--bench" => {}
            "--" => o.args = given.by_ref().collect(),
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

/// Runs `command` and waits for it with `wait4`, so that the CPU time and
/// the peak memory are its own.
// wait4 reaps the child, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn measure(mut command: Command) -> Cost {
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = command.spawn().expect("start the binary");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).expect("read stdout");
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        err.read_to_end(&mut bytes).expect("read stderr");
        bytes
    });
    let pid = i32::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet waited for; the pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let wall = start.elapsed();
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.unsigned_abs())
            + Duration::from_micros(t.tv_usec.unsigned_abs())
    };
    Cost {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        peak_kib: usage.ru_maxrss,
        status: libc::WEXITSTATUS(status),
        stdout: reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
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

/// A hub with `n` available ManagedClusters `m0000`, ... each served
/// through its cluster-proxy route by `backend`.
fn hub(
    backend: &apiserver::FakeApiServer,
    n: usize,
    latency: Duration,
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
        builder = builder.proxy_to(&format!("m{i:04}"), backend);
    }
    let hub = builder.start();
    hub.add_objects_from_yaml(&format!(
        "apiVersion: route.openshift.io/v1\nkind: Route\nmetadata:\n  name: cluster-proxy-addon-user\n  namespace: multicluster-engine\nspec:\n  host: {}\n",
        hub.addr
    ));
    hub
}

fn main() {
    let o = options();
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = apiserver::Builder::openshift()
        .objects_from("examples/disconnected-cluster")
        .latency(o.latency)
        .start();
    let hub = o.hub.then(|| hub(&backend, o.clusters, o.latency));
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
        let mut command = Command::new(&o.bin[0]);
        command
            .args(&o.bin[1..])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .args(&reach)
            .args(&o.args)
            .env("NO_COLOR", "1")
            .env_remove("KUBECONFIG");
        let cost = measure(command);
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
    }
    let requests = backend.log().len() + hub.as_ref().map_or(0, |h| h.log().len());
    println!("{requests} requests answered in all");
}
