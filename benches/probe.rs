//! Whole-process `audit --probe` over 500 distinct images on 3 loopback
//! registries (a source and two mirrors, one with Bearer auth), each
//! answer delayed to stand for a network round trip.
//!
//! `cargo bench --bench probe` (add `-- 20 3` for the delay in ms and the
//! runs). Prints the wall time per concurrency and the requests each run
//! made; BENCHMARKS.md records the figures.

#[path = "../tests/it/support/registry.rs"]
mod registry;

use std::fmt::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine;

const IMAGES: usize = 500;

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let delay_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    let delay = Duration::from_millis(delay_ms);
    let bodies: Vec<String> = (0..IMAGES)
        .map(|i| registry::manifest_body(&format!("image {i}")))
        .collect();
    // The first mirror has half the images, the second all but every tenth,
    // the source everything: each image walks one, two or three sources.
    let mut m1 = registry::Builder::new().bearer("bench", "pw").delay(delay);
    let mut m2 = registry::Builder::new().delay(delay);
    let mut s = registry::Builder::new().delay(delay);
    for (i, body) in bodies.iter().enumerate() {
        let repo = format!("ns/app{i}");
        if i % 2 == 0 {
            m1 = m1.manifest(&repo, None, body);
        }
        if i % 10 != 0 {
            m2 = m2.manifest(&repo, None, body);
        }
        s = s.manifest(&repo, None, body);
    }
    let (m1, m2, s) = (m1.start(), m2.start(), s.start());
    let dir = tempfile::tempdir().expect("temp dir");
    let certs = dir.path().join("certs");
    std::fs::create_dir(&certs).expect("certs");
    for (r, n) in [(&m1, "m1"), (&m2, "m2"), (&s, "s")] {
        r.write_ca(&certs, n);
    }
    let auth = base64::engine::general_purpose::STANDARD.encode("bench:pw");
    let authfile = dir.path().join("auth.json");
    std::fs::write(
        &authfile,
        format!(
            "{{\"auths\": {{\"{}\": {{\"auth\": \"{auth}\"}}}}}}",
            m1.host()
        ),
    )
    .expect("auth.json");
    let mut yaml = format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: apps\nspec:\n  imageDigestMirrors:\n  - source: {}/ns\n    mirrors:\n    - {}/ns\n    - {}/ns\n",
        s.host(),
        m1.host(),
        m2.host()
    );
    for (i, body) in bodies.iter().enumerate() {
        let _ = write!(
            yaml,
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: bench\nspec:\n  containers:\n  - name: c\n    image: {}/ns/app{i}@{}\n",
            s.host(),
            registry::digest_of(body)
        );
    }
    let objects = dir.path().join("cluster.yaml");
    std::fs::write(&objects, yaml).expect("objects");
    let bin = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
    println!("{IMAGES} images, 3 registries, {delay_ms} ms per answer, {runs} runs each");
    for concurrency in ["1", "8", "32"] {
        let mut times = Vec::with_capacity(runs);
        let mut requests = 0;
        for _ in 0..runs {
            let before = m1.log().len() + m2.log().len() + s.log().len();
            let started = Instant::now();
            let out = Command::new(bin)
                .args(["audit", "-f"])
                .arg(&objects)
                .args(["--probe", "--probe-concurrency", concurrency, "--cert-dir"])
                .arg(&certs)
                .arg("--authfile")
                .arg(&authfile)
                .args(["-o", "json"])
                .output()
                .expect("run");
            times.push(started.elapsed());
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            requests = m1.log().len() + m2.log().len() + s.log().len() - before;
        }
        let mean = times.iter().sum::<Duration>() / runs as u32;
        let min = times.iter().min().copied().unwrap_or_default();
        let max = times.iter().max().copied().unwrap_or_default();
        println!(
            "--probe-concurrency {concurrency:>2}: mean {:>7.1} ms, min {:>7.1} ms, max {:>7.1} ms, {requests} requests",
            mean.as_secs_f64() * 1e3,
            min.as_secs_f64() * 1e3,
            max.as_secs_f64() * 1e3
        );
    }
}
