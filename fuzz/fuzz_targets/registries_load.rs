//! Fuzzes the registries.conf reader and the lookups on what it loads.
#![no_main]

#[path = "checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        checks::registries_conf(s);
    }
});
