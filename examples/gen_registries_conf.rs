//! Prints a generated registries.conf with N `[[registry]]` entries, for
//! whole-process benchmarks: `cargo run --release --example gen_registries_conf -- 20000`.

#[path = "../benches/support/generate.rs"]
mod generate;

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    print!("{}", generate::registries_conf(n));
    eprintln!("matching reference: {}", generate::last_reference(n));
}
