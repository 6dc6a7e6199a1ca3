//! Runs the fuzz targets' checks over their seed corpora, so `cargo test`
//! proves the seeds pass without a fuzzer installed.

use crate::checks;

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

#[test]
fn registries_differential_seeds() {
    let (mut fast, mut loaded) = (0, 0);
    let seeds = seeds("registries_differential");
    for (name, s) in &seeds {
        let seen = checks::registries_readers_agree(s).unwrap_or_else(|e| panic!("{name}: {e}"));
        fast += usize::from(seen.fast_reader);
        loaded += usize::from(seen.loaded);
    }
    assert!(
        fast > 0 && fast < seeds.len(),
        "the seeds should cover both readers"
    );
    assert!(
        loaded > 0 && loaded < seeds.len(),
        "the seeds should load and fail"
    );
}

#[test]
fn yaml_load_seeds() {
    for (_, s) in seeds("yaml_load") {
        checks::yaml_documents(&s);
    }
}

#[test]
fn migrate_round_trip_seeds() {
    for (name, s) in seeds("migrate_round_trip") {
        serde_json::from_str::<mirrorpolicy::objects::ImageContentSourcePolicy>(&s)
            .unwrap_or_else(|e| panic!("{name} is not an ICSP in JSON: {e}"));
        checks::migrate_round_trip_json(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
