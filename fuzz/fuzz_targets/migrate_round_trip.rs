//! Fuzzes the migrate writer: an ICSP (given as JSON, read with serde_json)
//! is converted, written as `migrate-icsp` writes it, and read back with the
//! tool's YAML loader; it must read back as exactly the objects written.
#![no_main]

#[path = "checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        if let Err(e) = checks::migrate_round_trip_json(s) {
            panic!("{e}");
        }
    }
});
