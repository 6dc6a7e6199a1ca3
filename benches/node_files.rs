//! `collect-node-files` against the fake API server: 100 nodes, each with a
//! machine-config-daemon pod and a host tree, every request held back by
//! the given latency (the pod list and each `pods/exec` upgrade), the
//! nodes read `--node-concurrency` at a time (10 by default).
//!
//! `cargo bench --bench node_files` (add `-- 50 5 100` for latency in ms,
//! runs and nodes). Prints the mean, min and max wall time per run;
//! BENCHMARKS.md records the figures. The target is 100 nodes in 3 s at
//! 50 ms per request.

#[path = "../tests/it/support/apiserver.rs"]
mod apiserver;

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let latency_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let count: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().expect("temp dir");
    let names: Vec<String> = (0..count).map(|i| format!("worker-{i}")).collect();
    let mut yaml = String::new();
    let mut builder = apiserver::Builder::openshift();
    let registries =
        std::fs::read("examples/node/registries.conf").expect("example registries.conf");
    let policy = std::fs::read("examples/node/policy.json").expect("example policy.json");
    for name in &names {
        let _ = write!(
            yaml,
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  annotations:\n    machineconfiguration.openshift.io/currentConfig: rendered-worker-1\n---\n"
        );
        let root = dir.path().join("roots").join(name);
        let etc = root.join("etc/containers");
        std::fs::create_dir_all(etc.join("registries.conf.d")).expect("tree");
        std::fs::write(etc.join("registries.conf"), &registries).expect("write");
        std::fs::write(etc.join("policy.json"), &policy).expect("write");
        std::fs::create_dir_all(root.join("etc/docker/certs.d/mirror:5000")).expect("tree");
        std::fs::write(root.join("etc/docker/certs.d/mirror:5000/ca.crt"), "ca").expect("write");
        builder = builder.node_root(name, &root);
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let server = builder
        .objects_from_yaml(&yaml)
        .daemon_pods(&refs)
        .latency(Duration::from_millis(latency_ms))
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let bin = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
    println!("fake API server, {latency_ms} ms per request, {count} nodes, {runs} runs");
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        let dest = dir.path().join(format!("out-{run}"));
        let started = Instant::now();
        let out = Command::new(bin)
            .args(["collect-node-files", "--dest-dir"])
            .arg(&dest)
            .env("KUBECONFIG", &kubeconfig)
            .output()
            .expect("run the binary");
        times.push(started.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let total: Duration = times.iter().sum();
    let mean = total / runs as u32;
    let min = times.iter().min().copied().unwrap_or_default();
    let max = times.iter().max().copied().unwrap_or_default();
    println!(
        "collect-node-files ({count} nodes)   mean {:>7.1} ms  min {:>7.1} ms  max {:>7.1} ms  at most {} exec sessions at once",
        ms(mean),
        ms(min),
        ms(max),
        server.max_exec_sessions()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
