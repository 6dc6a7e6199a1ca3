//! Fuzzes the fast registries.conf reader against the full TOML parser:
//! the loader must give the same configuration, or the same error, with
//! either, and never panic.
#![no_main]

#[path = "checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Err(e) = checks::registries_readers_agree(s) {
            panic!("{e}");
        }
    }
});
