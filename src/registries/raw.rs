//! The shape of one registries.conf file as TOML gives it, before any
//! validation: every key optional, spans kept for line numbers.
//!
//! containers/image decodes with BurntSushi/toml, which matches a TOML key
//! to a struct field exactly or, failing that, case-insensitively (Go
//! `strings.EqualFold`), and ignores keys it does not know. The
//! `Deserialize` impls here do the same, so `Location = "…"` counts as
//! `location`, as it does on a node. Two keys of one table that select the
//! same field (`location` and `Location`) are both decoded into it, in Go
//! map order, which changes from load to load: each table records them
//! ([`FoldedKeys`]) for the loader to call the file undetermined. Everything
//! else (TOML syntax, types) is left to the `toml` crate.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use toml::Spanned;

/// Whether a TOML key selects the Go field tagged `field`: equal, or equal
/// under Unicode simple case folding. The field names are ASCII, and the
/// only non-ASCII characters that fold onto ASCII letters are U+017F
/// (long s, folds with `s`) and U+212A (Kelvin sign, folds with `k`).
pub(super) fn key_selects(key: &str, field: &str) -> bool {
    if key == field {
        return true;
    }
    let mut chars = key.chars();
    for f in field.bytes() {
        let Some(c) = chars.next() else {
            return false;
        };
        let folded = match c {
            '\u{17f}' => 's',
            '\u{212a}' => 'k',
            c if c.is_ascii() => c.to_ascii_lowercase(),
            _ => return false,
        };
        if folded != char::from(f.to_ascii_lowercase()) {
            return false;
        }
    }
    chars.next().is_none()
}

/// Two keys of one table that select the same field with different
/// values. BurntSushi/toml ranges over the table's keys (a Go map, in
/// random order) and decodes each into the field it selects: the last one
/// wins, and arrays of tables are decoded over each other, so the node
/// reads one or the other from load to load (upstream
/// `MetaData.unifyStruct`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FoldedKeys {
    /// The field's own key (`location`).
    pub(super) field: &'static str,
    /// The two keys as written.
    pub(super) keys: [String; 2],
    /// Their values, as the error shows them.
    pub(super) values: [String; 2],
}

/// How a table shows in a [`FoldedKeys`] message.
const TABLE: &str = "a table";

/// A decoded value that two keys of one table may both set.
pub(super) trait FoldValue {
    /// Whether decoding `other` over `self`, or `self` over `other`, can
    /// give different results.
    fn conflicts(&self, other: &Self) -> bool;
    /// The value, shortly, for a message.
    fn shown(&self) -> String;
    /// Decodes `other` into `self` where Go would add to it (a map),
    /// giving it back where Go replaces the value.
    fn absorb(&mut self, other: Self) -> Option<Self>
    where
        Self: Sized,
    {
        Some(other)
    }
}

impl FoldValue for String {
    fn conflicts(&self, other: &Self) -> bool {
        self != other
    }
    fn shown(&self) -> String {
        crate::quote::go_quote(self)
    }
}

impl FoldValue for bool {
    fn conflicts(&self, other: &Self) -> bool {
        self != other
    }
    fn shown(&self) -> String {
        self.to_string()
    }
}

impl<T: FoldValue> FoldValue for Spanned<T> {
    fn conflicts(&self, other: &Self) -> bool {
        self.get_ref().conflicts(other.get_ref())
    }
    fn shown(&self) -> String {
        self.get_ref().shown()
    }
}

impl<T: FoldValue> FoldValue for Vec<T> {
    fn conflicts(&self, other: &Self) -> bool {
        self.len() != other.len() || self.iter().zip(other).any(|(a, b)| a.conflicts(b))
    }
    fn shown(&self) -> String {
        let items: Vec<String> = self.iter().map(FoldValue::shown).collect();
        match items.first() {
            Some(first) if first == TABLE && items.iter().all(|i| i == first) => {
                let n = items.len();
                format!("{n} table{}", if n == 1 { "" } else { "s" })
            }
            _ => format!("[{}]", items.join(", ")),
        }
    }
}

/// A Go map field: both tables' entries are added to one map, so only an
/// alias both set, differently, depends on the order.
impl FoldValue for BTreeMap<String, Spanned<String>> {
    fn conflicts(&self, other: &Self) -> bool {
        self.iter()
            .any(|(k, v)| other.get(k).is_some_and(|o| o.get_ref() != v.get_ref()))
    }
    fn shown(&self) -> String {
        let items: Vec<String> = self
            .iter()
            .map(|(k, v)| format!("{} = {}", crate::quote::go_quote(k), v.shown()))
            .collect();
        format!("{{{}}}", items.join(", "))
    }
    fn absorb(&mut self, other: Self) -> Option<Self> {
        // A conflicting entry makes the file undetermined: which value
        // stays does not matter.
        self.extend(other);
        None
    }
}

/// Declares a raw table type whose fields are all optional and whose keys
/// are matched as BurntSushi/toml matches them. An exactly spelled key wins
/// over a case variant of it; upstream picks between the two at random, so
/// two that differ are recorded in `folded`.
macro_rules! raw_table {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty = $key:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Default, PartialEq)]
        pub(super) struct $name {
            $($(#[$fmeta])* pub(super) $field: Option<$ty>,)*
            /// Keys that select one field with different values.
            pub(super) folded: Vec<FoldedKeys>,
        }

        impl FoldValue for $name {
            fn conflicts(&self, other: &Self) -> bool {
                false $(|| match (&self.$field, &other.$field) {
                    (Some(a), Some(b)) => a.conflicts(b),
                    (a, b) => a.is_some() != b.is_some(),
                })*
            }
            fn shown(&self) -> String {
                TABLE.to_string()
            }
        }

        impl $name {
            /// The TOML keys this table knows, in declaration order.
            #[allow(dead_code)]
            pub(super) const KEYS: &'static [&'static str] = &[$($key),*];
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct TableVisitor;
                impl<'de> Visitor<'de> for TableVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str("a table")
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut out = $name::default();
                        let mut exact: Vec<&'static str> = Vec::new();
                        let mut spelled: Vec<(&'static str, String)> = Vec::new();
                        while let Some(key) = map.next_key::<String>()? {
                            $(
                                if key_selects(&key, $key) {
                                    let value: $ty = map.next_value()?;
                                    if let (Some(prev), Some((_, first))) =
                                        (&out.$field, spelled.iter().find(|(f, _)| *f == $key))
                                    {
                                        if prev.conflicts(&value) {
                                            out.folded.push(FoldedKeys {
                                                field: $key,
                                                keys: [first.clone(), key.clone()],
                                                values: [prev.shown(), value.shown()],
                                            });
                                        }
                                    } else {
                                        spelled.push(($key, key.clone()));
                                    }
                                    let value = match out.$field.as_mut() {
                                        Some(prev) => match prev.absorb(value) {
                                            Some(value) => value,
                                            None => continue,
                                        },
                                        None => value,
                                    };
                                    if key == $key {
                                        exact.push($key);
                                        out.$field = Some(value);
                                    } else if !exact.contains(&$key) {
                                        out.$field = Some(value);
                                    }
                                    continue;
                                }
                            )*
                            map.next_value::<IgnoredAny>()?;
                        }
                        Ok(out)
                    }
                }
                deserializer.deserialize_map(TableVisitor)
            }
        }
    };
}

raw_table! {
    /// A whole file: the v2 keys and the v1 `[registries.*]` tables.
    RawConfig {
        registries: Vec<Spanned<RawRegistry>> = "registry",
        unqualified_search_registries: Spanned<Vec<String>> = "unqualified-search-registries",
        credential_helpers: Vec<String> = "credential-helpers",
        short_name_mode: Spanned<String> = "short-name-mode",
        additional_layer_store_auth_helper: String = "additional-layer-store-auth-helper",
        /// Alias values keep their spans, for the line of each alias.
        aliases: BTreeMap<String, Spanned<String>> = "aliases",
        /// The v1 format.
        v1: RawV1 = "registries",
    }
}

raw_table! {
    /// One `[[registry]]`.
    RawRegistry {
        prefix: String = "prefix",
        location: String = "location",
        insecure: bool = "insecure",
        pull_from_mirror: String = "pull-from-mirror",
        mirrors: Vec<Spanned<RawMirror>> = "mirror",
        blocked: bool = "blocked",
        mirror_by_digest_only: bool = "mirror-by-digest-only",
    }
}

raw_table! {
    /// One `[[registry.mirror]]`.
    RawMirror {
        location: String = "location",
        insecure: bool = "insecure",
        pull_from_mirror: String = "pull-from-mirror",
    }
}

raw_table! {
    /// `[registries]` of the v1 format.
    RawV1 {
        search: RawV1List = "search",
        insecure: RawV1List = "insecure",
        block: RawV1List = "block",
    }
}

raw_table! {
    /// `[registries.search]`, `[registries.insecure]` or `[registries.block]`.
    RawV1List {
        registries: Spanned<Vec<String>> = "registries",
    }
}

impl RawV1 {
    /// Upstream `V1RegistriesConf.hasSetField`: any list present, even empty.
    pub(super) fn is_set(&self) -> bool {
        [&self.search, &self.insecure, &self.block]
            .iter()
            .any(|l| l.as_ref().is_some_and(|l| l.registries.is_some()))
    }
}

impl RawConfig {
    /// Upstream `V2RegistriesConf.hasSetField`: a list or table present
    /// (even empty), or a non-empty string.
    pub(super) fn has_v2(&self) -> bool {
        self.registries.is_some()
            || self.unqualified_search_registries.is_some()
            || self.credential_helpers.is_some()
            || self
                .short_name_mode
                .as_ref()
                .is_some_and(|m| !m.get_ref().is_empty())
            || self
                .additional_layer_store_auth_helper
                .as_ref()
                .is_some_and(|s| !s.is_empty())
            || self.aliases.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_like_go_equal_fold() {
        for (key, field, want) in [
            ("location", "location", true),
            ("Location", "location", true),
            ("LOCATION", "location", true),
            ("Mirror-By-Digest-Only", "mirror-by-digest-only", true),
            ("in\u{17f}ecure", "insecure", true),
            ("bloc\u{212a}ed", "blocked", true),
            ("locatio", "location", false),
            ("locationx", "location", false),
            ("mirror_by_digest_only", "mirror-by-digest-only", false),
            ("locat\u{130}on", "location", false),
            ("", "location", false),
        ] {
            assert_eq!(key_selects(key, field), want, "{key:?} vs {field:?}");
        }
    }

    #[test]
    fn decodes_case_variants_and_prefers_the_exact_key() {
        let raw: RawConfig = toml::from_str(
            "[[Registry]]\nLOCATION = \"a.io\"\nMirror-By-Digest-Only = true\n[[Registry.MIRROR]]\nLocation = \"m.io\"\n\
             [[registry]]\nlocation = \"b.io\"\nLocation = \"c.io\"\n",
        )
        .unwrap();
        // `Registry` and `registry` are different TOML keys for the same Go
        // field; upstream decodes both into it in random map order. Here
        // the exact spelling wins.
        let regs = raw.registries.unwrap();
        assert_eq!(regs.len(), 1);
        let r = regs[0].get_ref();
        assert_eq!(r.location.as_deref(), Some("b.io"), "exact key wins");
    }

    #[test]
    fn unknown_keys_are_ignored_and_types_are_checked() {
        let raw: RawConfig =
            toml::from_str("foo = 1\n[[registry]]\nlocation = \"a.io\"\nbar = [1, 2]\n").unwrap();
        assert_eq!(raw.registries.unwrap().len(), 1);
        assert!(toml::from_str::<RawConfig>("[[registry]]\ninsecure = \"yes\"\n").is_err());
        assert!(toml::from_str::<RawConfig>("unqualified-search-registries = \"a\"\n").is_err());
    }
}
