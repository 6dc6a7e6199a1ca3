//! Runs the fuzz targets' checks over their seed corpora, so `cargo test`
//! proves the seeds pass without a fuzzer installed.

#[path = "../fuzz/fuzz_targets/checks.rs"]
mod checks;

use std::fs;

fn seeds(target: &str) -> Vec<(String, String)> {
    let dir = format!("{}/fuzz/corpus/{target}", env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, String)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter_map(|p| {
            let bytes = fs::read(&p).expect("readable seed");
            String::from_utf8(bytes)
                .ok()
                .map(|s| (p.display().to_string(), s))
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {dir}");
    out
}

#[test]
fn reference_parse_seeds() {
    for (_, s) in seeds("reference_parse") {
        checks::reference(&s);
    }
}

#[test]
fn registries_load_seeds() {
    for (_, s) in seeds("registries_load") {
        checks::registries_conf(&s);
    }
}
