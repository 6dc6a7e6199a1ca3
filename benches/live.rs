//! Whole-process `explain` and `list` against the fake API server with
//! injected per-request latency: the reads are concurrent, so a command
//! costs about one round trip, not one per resource.
//!
//! `cargo bench --bench live` (add `-- 50 20` for latency in ms and runs).
//! Prints the mean, min and max wall time per command and the requests
//! each run made; BENCHMARKS.md records the figures.

#[path = "../tests/it/support/apiserver.rs"]
mod apiserver;

use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let latency_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let server = apiserver::Builder::openshift()
        .objects_from("examples/disconnected-cluster")
        .latency(Duration::from_millis(latency_ms))
        .start();
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let bin = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
    println!("fake API server, {latency_ms} ms per request, {runs} runs each");
    for command in [
        &["explain", "registry.redhat.io/rhel9/support-tools:latest"][..],
        &["list"],
        &["render", "--file", "/etc/containers/registries.conf"],
    ] {
        let mut times = Vec::with_capacity(runs);
        let mut requests = 0;
        for _ in 0..runs {
            server.clear_log();
            let started = Instant::now();
            let out = Command::new(bin)
                .args(command)
                .env("KUBECONFIG", &kubeconfig)
                .output()
                .expect("run the binary");
            times.push(started.elapsed());
            assert!(
                out.status.success(),
                "{command:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            requests = server.log().len();
        }
        let total: Duration = times.iter().sum();
        let mean = total / runs as u32;
        let min = times.iter().min().copied().unwrap_or_default();
        let max = times.iter().max().copied().unwrap_or_default();
        println!(
            "{:<60} mean {:>7.1} ms  min {:>7.1} ms  max {:>7.1} ms  {requests} requests ({:.1} round trips if sequential: {:.0} ms)",
            command.join(" "),
            ms(mean),
            ms(min),
            ms(max),
            requests as f64,
            requests as f64 * latency_ms as f64,
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
