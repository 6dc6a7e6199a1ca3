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
use crate::registries::Written;

fn needs_escape(s: &str, quoting: TomlQuoting) -> bool {
    // Without an early exit each check compiles to a few vector
    // instructions per 32 bytes: every string of the file goes through it.
    let quote_or_backslash = |b: u8| (b == b'"') | (b == b'\\');
    match quoting {
        TomlQuoting::V0_3 => s.bytes().fold(false, |bad, b| {
            bad | quote_or_backslash(b) | (b == b'\t') | (b == b'\n') | (b == b'\r')
        }),
        TomlQuoting::V0_4 => s.bytes().fold(false, |bad, b| {
            bad | quote_or_backslash(b) | (b < 0x20) | (b == 0x7f)
        }),
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

/// Where the encoder writes: the text, or only its length, for recording
/// what a text would hold without building it.
trait Out {
    fn put(&mut self, s: &str);
    /// How many bytes were written.
    fn at(&self) -> usize;
}

impl Out for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }

    fn at(&self) -> usize {
        self.len()
    }
}

/// The length of a text that is not built.
struct Length(usize);

impl Out for Length {
    fn put(&mut self, s: &str) {
        self.0 += s.len();
    }

    fn at(&self) -> usize {
        self.0
    }
}

fn key_string(out: &mut impl Out, indent: &str, key: &str, value: &str, quoting: TomlQuoting) {
    out.put(indent);
    out.put(key);
    out.put(" = ");
    if needs_escape(value, quoting) {
        out.put(&quote_as(value, quoting));
    } else {
        out.put("\"");
        out.put(value);
        out.put("\"");
    }
    out.put("\n");
}

fn key_true(out: &mut impl Out, indent: &str, key: &str, value: bool) {
    if value {
        out.put(indent);
        out.put(key);
        out.put(" = true\n");
    }
}

fn key_array(out: &mut impl Out, key: &str, items: &[String], quoting: TomlQuoting) {
    out.put(key);
    out.put(" = ");
    out.put(&array(items, quoting));
    out.put("\n");
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
    let mut out = String::with_capacity(encoded_size_bound(conf));
    encode_into(&mut out, conf, profile, None);
    out
}

/// What [`encode_registries_conf`] writes for `conf`, as the loader takes
/// it from the writer ([`crate::registries::load_written`]), and the length of
/// that text (to check it is the text at hand).
pub fn written_registries_conf(
    conf: &V2RegistriesConf,
    profile: EncodeProfile,
) -> (Written, usize) {
    let mut written = Written::new(conf.registries.len());
    let mut length = Length(0);
    encode_into(&mut length, conf, profile, Some(&mut written));
    (written, length.0)
}

fn encode_into(
    out: &mut impl Out,
    conf: &V2RegistriesConf,
    profile: EncodeProfile,
    mut record: Option<&mut Written>,
) {
    let q = profile.quoting;
    if let Some(usr) = &conf.unqualified_search_registries {
        if let Some(w) = record.as_deref_mut() {
            w.search_registries(out.at(), usr);
        }
        key_array(out, "unqualified-search-registries", usr, q);
    }
    if profile.short_name_mode {
        if let Some(helpers) = &conf.credential_helpers {
            if let Some(w) = record.as_deref_mut() {
                w.credential_helpers(helpers);
            }
            key_array(out, "credential-helpers", helpers, q);
        }
        if let Some(w) = record.as_deref_mut() {
            w.short_name_mode(out.at(), &conf.short_name_mode);
        }
        key_string(out, "", "short-name-mode", &conf.short_name_mode, q);
    }
    if profile.additional_layer_store_auth_helper {
        if let Some(w) = record.as_deref_mut() {
            w.additional_layer_store_auth_helper(&conf.additional_layer_store_auth_helper);
        }
        key_string(
            out,
            "",
            "additional-layer-store-auth-helper",
            &conf.additional_layer_store_auth_helper,
            q,
        );
    }
    for r in &conf.registries {
        out.put("\n");
        if let Some(w) = record.as_deref_mut() {
            let location = Some(r.location.as_str()).filter(|l| !l.is_empty());
            w.registry(out.at(), Some(&r.prefix), location);
            w.registry_flags(r.insecure, r.blocked, r.mirror_by_digest_only);
        }
        out.put("[[registry]]\n");
        key_string(out, "  ", "prefix", &r.prefix, q);
        if !r.location.is_empty() {
            key_string(out, "  ", "location", &r.location, q);
        }
        key_true(out, "  ", "insecure", r.insecure);
        key_true(out, "  ", "blocked", r.blocked);
        key_true(out, "  ", "mirror-by-digest-only", r.mirror_by_digest_only);
        for m in &r.mirrors {
            out.put("\n  ");
            if let Some(w) = record.as_deref_mut() {
                let location = Some(m.location.as_str()).filter(|l| !l.is_empty());
                let pull = Some(m.pull_from_mirror.as_str()).filter(|p| !p.is_empty());
                w.mirror(out.at(), location, m.insecure, pull);
            }
            out.put("[[registry.mirror]]\n");
            if !m.location.is_empty() {
                key_string(out, "    ", "location", &m.location, q);
            }
            key_true(out, "    ", "insecure", m.insecure);
            if !m.pull_from_mirror.is_empty() {
                key_string(out, "    ", "pull-from-mirror", &m.pull_from_mirror, q);
            }
        }
    }
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
