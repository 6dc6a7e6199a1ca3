//! Fuzzes reading `-f` input: any bytes given as a file never panic.
#![no_main]

#[path = "checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = std::str::from_utf8(data) {
        checks::yaml_documents(s);
    }
});
