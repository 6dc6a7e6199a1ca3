//! `list --all-contexts` over 50 clusters, each a fake API server holding
//! every answer back 100 ms: the clusters are read 8 at a time (the default
//! `--context-concurrency`), each in about one round trip, so the whole
//! run costs about seven rounds of 100 ms, not 50 × 9 requests × 100 ms.
//!
//! `cargo bench --bench many` (criterion, 10 samples of the whole process).
//! BENCHMARKS.md records the figures.

#[path = "../tests/it/support/apiserver.rs"]
mod apiserver;

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use base64::Engine;
use criterion::{criterion_group, criterion_main, Criterion};

const CLUSTERS: usize = 50;
const LATENCY: Duration = Duration::from_millis(100);

fn bench(c: &mut Criterion) {
    let servers: Vec<apiserver::FakeApiServer> = (0..CLUSTERS)
        .map(|_| {
            apiserver::Builder::openshift()
                .objects_from("examples/disconnected-cluster")
                .latency(LATENCY)
                .start()
        })
        .collect();
    let (mut clusters, mut users, mut contexts) = (String::new(), String::new(), String::new());
    for (i, s) in servers.iter().enumerate() {
        let ca = base64::engine::general_purpose::STANDARD.encode(&s.ca_pem);
        let _ = write!(
            clusters,
            "- name: c{i:02}\n  cluster:\n    server: {}\n    certificate-authority-data: {ca}\n",
            s.url()
        );
        let _ = write!(users, "- name: c{i:02}\n  user:\n    token: {}\n", s.token);
        let _ = write!(
            contexts,
            "- name: c{i:02}\n  context:\n    cluster: c{i:02}\n    user: c{i:02}\n"
        );
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n{users}contexts:\n{contexts}current-context: c00\n"
        ),
    )
    .expect("write kubeconfig");
    let bin = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
    let run = || {
        let out = Command::new(bin)
            .args(["list", "--all-contexts", "-o", "json"])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .output()
            .expect("run the binary");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout.len()
    };
    run();
    let requests: usize = servers.iter().map(|s| s.log().len()).sum();
    println!("{CLUSTERS} clusters, {LATENCY:?} per request, {requests} requests per run");
    let mut group = c.benchmark_group("many");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function(
        "list --all-contexts (50 clusters, 100 ms per request)",
        |b| b.iter(run),
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
