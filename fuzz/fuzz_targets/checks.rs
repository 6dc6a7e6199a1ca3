//! The properties the fuzz targets check, shared with the seed-corpus test
//! and the property tests that run in `cargo test`.

use mirrorpolicy::migrate::{self, Replacement};
use mirrorpolicy::objects::ImageContentSourcePolicy;
use mirrorpolicy::reference::{is_short_name, Reference};
use mirrorpolicy::registries::{self, lookup, ConfigFile};
use mirrorpolicy::source::{self, Inputs};

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

/// What [`registries_readers_agree`] saw, for coverage counts.
pub struct Agreed {
    /// The fast reader read the text itself (else it left it to `toml`).
    pub fast_reader: bool,
    /// The text loads as a main file.
    pub loaded: bool,
}

/// The fast registries.conf reader agrees with the full TOML parser: the
/// loader gives exactly what it gives with the `toml` crate alone (the
/// same configuration with the same origins, or the same error), for the
/// text as the main file and as a drop-in.
pub fn registries_readers_agree(text: &str) -> Result<Agreed, String> {
    let file = ConfigFile {
        name: "differential.conf",
        text,
    };
    let as_main = (Some(&file), &[][..]);
    let as_drop_in = (None, std::slice::from_ref(&file));
    let mut loaded = false;
    for (main, drop_ins) in [as_main, as_drop_in] {
        let fast = registries::load(main, drop_ins);
        let full = registries::load_full_parser(main, drop_ins);
        if fast != full {
            let role = if main.is_some() {
                "main file"
            } else {
                "drop-in"
            };
            return Err(format!(
                "the fast reader and the toml crate disagree on {text:?} as a {role}:\n  load: {fast:?}\n  toml: {full:?}"
            ));
        }
        if main.is_some() {
            loaded = fast.is_ok();
        }
    }
    Ok(Agreed {
        fast_reader: registries::fast_reader_accepts(text),
        loaded,
    })
}

/// Reading `-f` input never panics, and what it reads passes through the
/// CRD validation without panicking either.
pub fn yaml_documents(text: &str) {
    let mut inputs = Inputs::default();
    if source::parse_documents("fuzz.yaml", text, &mut inputs).is_ok() {
        let _ = inputs.validate();
    }
}

/// What `migrate-icsp` writes for an ICSP (its IDMS and ITMS, as one YAML
/// stream) reads back, with the tool's own YAML loader, as exactly the
/// objects it wrote.
pub fn migrate_round_trip(icsp: &ImageContentSourcePolicy) -> Result<(), String> {
    let options = migrate::Options {
        tag_mirrors: true,
        keep_gitops_markers: true,
    };
    let replacements = migrate::convert(icsp, options);
    let yaml = replacements
        .iter()
        .map(Replacement::to_yaml)
        .collect::<Vec<_>>()
        .join("---\n");
    let mut inputs = Inputs::default();
    if let Err(e) = source::parse_documents("migrated.yaml", &yaml, &mut inputs) {
        return Err(format!(
            "what migrate wrote does not read back ({e}):\n{yaml}"
        ));
    }
    let mut idmss = Vec::new();
    let mut itmss = Vec::new();
    for r in replacements {
        match r {
            Replacement::Idms(o) => idmss.push(o),
            Replacement::Itms(o) => itmss.push(o),
        }
    }
    if inputs.idmss != idmss || inputs.itmss != itmss || inputs.object_count() != 2 {
        return Err(format!(
            "what migrate wrote reads back as other objects:\n{yaml}\nwrote: {idmss:?} {itmss:?}\nread:  {:?} {:?} ({} objects)",
            inputs.idmss,
            inputs.itmss,
            inputs.object_count()
        ));
    }
    Ok(())
}

/// [`migrate_round_trip`] for an ICSP given as JSON (the fuzz target's
/// input); text that is not an ICSP in JSON is skipped.
pub fn migrate_round_trip_json(text: &str) -> Result<(), String> {
    match serde_json::from_str::<ImageContentSourcePolicy>(text) {
        Ok(icsp) => migrate_round_trip(&icsp),
        Err(_) => Ok(()),
    }
}
