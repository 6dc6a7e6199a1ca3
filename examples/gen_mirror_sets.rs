//! Prints oc-mirror-scale ImageDigestMirrorSets (N sources, 100 per object)
//! for whole-process benchmarks of `render` and `explain -f`:
//! `cargo run --release --example gen_mirror_sets -- 20000 > /tmp/idms-20k.yaml`.
//! A second argument sets the sources per object (`-- 20000 1`: 20,000
//! objects of one source each).

#[path = "../benches/support/generate.rs"]
mod generate;

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let per_object = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    print!("{}", generate::mirror_sets_yaml(n, per_object));
}
