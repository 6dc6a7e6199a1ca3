//! The properties the fuzz targets check, shared with the seed-corpus test
//! that runs in `cargo test`.

use mirrorpolicy::reference::{is_short_name, Reference};
use mirrorpolicy::registries::{self, lookup, ConfigFile};

/// The reference parsers never panic, and what they accept round-trips.
pub fn reference(s: &str) {
    if let Ok(r) = Reference::parse(s) {
        assert_eq!(r.to_string(), s, "parse is not normalizing");
    }
    if let Ok(r) = Reference::parse_normalized_named(s) {
        let canonical = r.to_string();
        let again = Reference::parse_named(&canonical).expect("canonical form parses");
        assert_eq!(again, r);
        let _ = r.familiar_string();
        let _ = r.clone().tag_name_only();
    }
    let _ = Reference::parse_docker_transport(s);
    let _ = is_short_name(s);
}

/// The registries.conf reader never panics, and what it loads can be queried.
pub fn registries_conf(text: &str) {
    let file = ConfigFile {
        name: "fuzz.conf",
        text,
    };
    let Ok(conf) = registries::load(Some(&file), &[]) else {
        return;
    };
    for r in &conf.registries {
        let probe = format!("{}/fuzz/image:tag", r.prefix.trim_start_matches("*."));
        if let Ok(reference) = Reference::parse_normalized_named(&probe) {
            if let Some(reg) = lookup::find_registry(&conf, &reference.name()) {
                let _ = lookup::pull_sources(reg, &reference);
            }
        }
    }
}
