//! TOML exactly as the MCO writes registries.conf: BurntSushi/toml's
//! encoder applied to containers/image's `V2RegistriesConf`.
//!
//! Only this schema is encoded: plain keys first in struct field order,
//! then `[[registry]]` and `[[registry.mirror]]` tables, two-space
//! indentation per level, a blank line before every table header, basic
//! strings with Go's escapes, and omitempty fields skipped.

use std::fmt::Write;

use super::registries::V2RegistriesConf;
pub use super::release::{EncodeProfile, TomlQuoting};

fn needs_escape(s: &str, quoting: TomlQuoting) -> bool {
    match quoting {
        TomlQuoting::V0_3 => s
            .bytes()
            .any(|b| matches!(b, b'\t' | b'\n' | b'\r' | b'"' | b'\\')),
        TomlQuoting::V0_4 => s
            .bytes()
            .any(|b| b < 0x20 || b == 0x7f || b == b'"' || b == b'\\'),
    }
}

/// A TOML basic string as the newest BurntSushi/toml quotes it.
pub fn quote(s: &str) -> String {
    quote_as(s, TomlQuoting::V0_4)
}

/// A TOML basic string as the given BurntSushi/toml writer quotes it.
pub fn quote_as(s: &str, quoting: TomlQuoting) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    if !needs_escape(s, quoting) {
        out.push_str(s);
        out.push('"');
        return out;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if quoting == TomlQuoting::V0_3 => out.push(c),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn array(items: &[String], quoting: TomlQuoting) -> String {
    let quoted: Vec<String> = items.iter().map(|s| quote_as(s, quoting)).collect();
    format!("[{}]", quoted.join(", "))
}

fn key_string(out: &mut String, indent: &str, key: &str, value: &str, quoting: TomlQuoting) {
    out.push_str(indent);
    out.push_str(key);
    out.push_str(" = ");
    if needs_escape(value, quoting) {
        out.push_str(&quote_as(value, quoting));
    } else {
        out.push('"');
        out.push_str(value);
        out.push('"');
    }
    out.push('\n');
}

fn key_true(out: &mut String, indent: &str, key: &str, value: bool) {
    if value {
        out.push_str(indent);
        out.push_str(key);
        out.push_str(" = true\n");
    }
}

/// An upper bound of the encoded size, so that the output is written into
/// one allocation: growing a multi-megabyte string by doubling would copy
/// it and briefly hold both copies. Pages of the bound never written are
/// never touched, so an overestimate costs address space, not memory.
fn encoded_size_bound(conf: &V2RegistriesConf) -> usize {
    // Quoting can at most double a string; each key line adds its indent,
    // key, ` = `, quotes and newline (under 64 bytes).
    let text = |s: &str| 2 * s.len() + 64;
    let list = |l: &Option<Vec<String>>| l.iter().flatten().map(|s| text(s)).sum::<usize>() + 64;
    let mut size = 256
        + list(&conf.unqualified_search_registries)
        + list(&conf.credential_helpers)
        + text(&conf.short_name_mode)
        + text(&conf.additional_layer_store_auth_helper);
    for r in &conf.registries {
        size += 24 + text(&r.prefix) + text(&r.location) + 3 * 64;
        for m in &r.mirrors {
            size += 32 + text(&m.location) + 64 + text(&m.pull_from_mirror);
        }
    }
    size
}

/// Encodes `conf` byte for byte as the MCO's registries.conf.
pub fn encode_registries_conf(conf: &V2RegistriesConf, profile: EncodeProfile) -> String {
    let q = profile.quoting;
    let mut out = String::with_capacity(encoded_size_bound(conf));
    if let Some(usr) = &conf.unqualified_search_registries {
        let _ = writeln!(out, "unqualified-search-registries = {}", array(usr, q));
    }
    if profile.short_name_mode {
        if let Some(helpers) = &conf.credential_helpers {
            let _ = writeln!(out, "credential-helpers = {}", array(helpers, q));
        }
        key_string(&mut out, "", "short-name-mode", &conf.short_name_mode, q);
    }
    if profile.additional_layer_store_auth_helper {
        key_string(
            &mut out,
            "",
            "additional-layer-store-auth-helper",
            &conf.additional_layer_store_auth_helper,
            q,
        );
    }
    for r in &conf.registries {
        out.push_str("\n[[registry]]\n");
        key_string(&mut out, "  ", "prefix", &r.prefix, q);
        if !r.location.is_empty() {
            key_string(&mut out, "  ", "location", &r.location, q);
        }
        key_true(&mut out, "  ", "insecure", r.insecure);
        key_true(&mut out, "  ", "blocked", r.blocked);
        key_true(
            &mut out,
            "  ",
            "mirror-by-digest-only",
            r.mirror_by_digest_only,
        );
        for m in &r.mirrors {
            out.push_str("\n  [[registry.mirror]]\n");
            if !m.location.is_empty() {
                key_string(&mut out, "    ", "location", &m.location, q);
            }
            key_true(&mut out, "    ", "insecure", m.insecure);
            if !m.pull_from_mirror.is_empty() {
                key_string(&mut out, "    ", "pull-from-mirror", &m.pull_from_mirror, q);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::registries::{Endpoint, RegistryEntry};

    /// The search-registries drop-in the MCO e2e test
    /// (test/extended-priv/mco_registry.go) expects byte for byte.
    #[test]
    fn search_registries_drop_in_matches_mco_e2e() {
        let conf = V2RegistriesConf {
            unqualified_search_registries: Some(vec!["quay.io".into()]),
            ..Default::default()
        };
        assert_eq!(
            encode_registries_conf(&conf, EncodeProfile::default()),
            "unqualified-search-registries = [\"quay.io\"]\nshort-name-mode = \"\"\nadditional-layer-store-auth-helper = \"\"\n"
        );
        let old = EncodeProfile {
            additional_layer_store_auth_helper: false,
            ..EncodeProfile::default()
        };
        assert_eq!(
            encode_registries_conf(&conf, old),
            "unqualified-search-registries = [\"quay.io\"]\nshort-name-mode = \"\"\n"
        );
    }

    #[test]
    fn layout_of_entries_and_mirrors() {
        let conf = V2RegistriesConf {
            unqualified_search_registries: Some(vec![
                "registry.access.redhat.com".into(),
                "docker.io".into(),
            ]),
            registries: vec![
                RegistryEntry {
                    location: "blocked.com/ns-b/ns2-b".into(),
                    insecure: true,
                    blocked: true,
                    mirrors: vec![Endpoint {
                        location: "other.com/ns-o2".into(),
                        insecure: true,
                        pull_from_mirror: "digest-only".into(),
                        origins: vec![],
                    }],
                    ..Default::default()
                },
                RegistryEntry {
                    prefix: "*.example.com".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let want = "\
unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]
short-name-mode = \"\"
additional-layer-store-auth-helper = \"\"

[[registry]]
  prefix = \"\"
  location = \"blocked.com/ns-b/ns2-b\"
  insecure = true
  blocked = true

  [[registry.mirror]]
    location = \"other.com/ns-o2\"
    insecure = true
    pull-from-mirror = \"digest-only\"

[[registry]]
  prefix = \"*.example.com\"
";
        assert_eq!(
            encode_registries_conf(&conf, EncodeProfile::default()),
            want
        );
    }

    #[test]
    fn empty_search_list_is_written_and_strings_are_escaped() {
        let conf = V2RegistriesConf {
            unqualified_search_registries: Some(vec![]),
            short_name_mode: "a\"b\\c\u{1}".into(),
            ..Default::default()
        };
        assert_eq!(
            encode_registries_conf(&conf, EncodeProfile::default()),
            "unqualified-search-registries = []\nshort-name-mode = \"a\\\"b\\\\c\\u0001\"\nadditional-layer-store-auth-helper = \"\"\n"
        );
    }
}
