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
//!
//! [`RegistriesFile`] is the public, read-only view of one file read this
//! way, for code that compares two files as a node or the Machine Config
//! Daemon reads them.

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

/// A decoded value written back as TOML, each key spelled as its field.
pub(super) trait ToValue {
    /// The value as a `toml::Value`.
    fn to_value(&self) -> toml::Value;
}

impl ToValue for String {
    fn to_value(&self) -> toml::Value {
        toml::Value::String(self.clone())
    }
}

impl ToValue for bool {
    fn to_value(&self) -> toml::Value {
        toml::Value::Boolean(*self)
    }
}

impl<T: ToValue> ToValue for Spanned<T> {
    fn to_value(&self) -> toml::Value {
        self.get_ref().to_value()
    }
}

impl<T: ToValue> ToValue for Vec<T> {
    fn to_value(&self) -> toml::Value {
        toml::Value::Array(self.iter().map(ToValue::to_value).collect())
    }
}

impl ToValue for BTreeMap<String, Spanned<String>> {
    fn to_value(&self) -> toml::Value {
        toml::Value::Table(
            self.iter()
                .map(|(k, v)| (k.clone(), v.to_value()))
                .collect(),
        )
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

        impl ToValue for $name {
            fn to_value(&self) -> toml::Value {
                let mut table = toml::Table::new();
                $(if let Some(value) = &self.$field {
                    table.insert($key.to_string(), value.to_value());
                })*
                toml::Value::Table(table)
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

/// One registries.conf file (or drop-in) as a node's containers/image
/// decodes it into `V2RegistriesConf`, before any validation: keys matched
/// as BurntSushi/toml matches them, unknown keys ignored. The one reading
/// of a single file for code outside the loader, such as the Machine
/// Config Daemon's drain rule, which decodes the file the same way
/// (openshift/machine-config-operator `isSafeContainerRegistryConfChanges`).
/// It is made by [`RegistriesFile::read`], beside the loader.
#[derive(Debug, PartialEq)]
pub struct RegistriesFile(pub(super) RawConfig);

impl RegistriesFile {
    /// `unqualified-search-registries`, in order (empty when unset).
    pub fn unqualified_search_registries(&self) -> &[String] {
        self.0
            .unqualified_search_registries
            .as_ref()
            .map_or(&[], |l| l.get_ref().as_slice())
    }

    /// The `[[registry]]` tables, in file order.
    pub fn registries(&self) -> impl Iterator<Item = RegistryTable<'_>> {
        self.0
            .registries
            .iter()
            .flatten()
            .map(|r| RegistryTable(r.get_ref()))
    }

    /// The file as TOML text with what the node reads only: each key
    /// spelled as its field, unknown keys left out, tables in key order.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(&self.0.to_value()).unwrap_or_default()
    }
}

/// One `[[registry]]` table of a [`RegistriesFile`]; an absent key reads
/// as Go's zero value. Two tables are equal when Go's `reflect.DeepEqual`
/// finds their decoded `Registry` values equal.
#[derive(Debug, Clone, Copy)]
pub struct RegistryTable<'a>(&'a RawRegistry);

impl<'a> RegistryTable<'a> {
    /// `prefix`.
    pub fn prefix(&self) -> &'a str {
        self.0.prefix.as_deref().unwrap_or_default()
    }
    /// `location`.
    pub fn location(&self) -> &'a str {
        self.0.location.as_deref().unwrap_or_default()
    }
    /// What the entry is keyed by: its `prefix`, or its `location` when it
    /// has none.
    pub fn scope(&self) -> &'a str {
        match self.prefix() {
            "" => self.location(),
            prefix => prefix,
        }
    }
    /// `insecure`.
    pub fn insecure(&self) -> bool {
        self.0.insecure.unwrap_or_default()
    }
    /// `blocked`.
    pub fn blocked(&self) -> bool {
        self.0.blocked.unwrap_or_default()
    }
    /// `mirror-by-digest-only`.
    pub fn mirror_by_digest_only(&self) -> bool {
        self.0.mirror_by_digest_only.unwrap_or_default()
    }
    /// The entry's own `pull-from-mirror`.
    pub fn pull_from_mirror(&self) -> &'a str {
        self.0.pull_from_mirror.as_deref().unwrap_or_default()
    }
    /// The `[[registry.mirror]]` tables, in order.
    pub fn mirrors(&self) -> impl Iterator<Item = MirrorTable<'a>> {
        self.0
            .mirrors
            .iter()
            .flatten()
            .map(|m| MirrorTable(m.get_ref()))
    }
}

impl PartialEq for RegistryTable<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.prefix() == other.prefix()
            && self.location() == other.location()
            && self.insecure() == other.insecure()
            && self.pull_from_mirror() == other.pull_from_mirror()
            && self.blocked() == other.blocked()
            && self.mirror_by_digest_only() == other.mirror_by_digest_only()
            && self.mirrors().eq(other.mirrors())
    }
}

/// One `[[registry.mirror]]` table; an absent key reads as Go's zero value.
#[derive(Debug, Clone, Copy)]
pub struct MirrorTable<'a>(&'a RawMirror);

impl<'a> MirrorTable<'a> {
    /// `location`.
    pub fn location(&self) -> &'a str {
        self.0.location.as_deref().unwrap_or_default()
    }
    /// `insecure`.
    pub fn insecure(&self) -> bool {
        self.0.insecure.unwrap_or_default()
    }
    /// `pull-from-mirror`.
    pub fn pull_from_mirror(&self) -> &'a str {
        self.0.pull_from_mirror.as_deref().unwrap_or_default()
    }
}

impl PartialEq for MirrorTable<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.location() == other.location()
            && self.insecure() == other.insecure()
            && self.pull_from_mirror() == other.pull_from_mirror()
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
    fn registries_file_is_what_the_node_reads() {
        let f = RegistriesFile::read(
            "r.conf",
            "Unqualified-Search-Registries = [\"a.io\"]\nfoo = 1\n[[REGISTRY]]\nPrefix = \"p.io\"\n\
             Location = \"l.io\"\nBlocked = true\n[[REGISTRY.Mirror]]\nLocation = \"m.io\"\n\
             Pull-From-Mirror = \"digest-only\"\n",
        )
        .unwrap();
        assert_eq!(f.unqualified_search_registries(), ["a.io"]);
        let r: Vec<RegistryTable<'_>> = f.registries().collect();
        assert_eq!(r.len(), 1);
        let r = r[0];
        assert_eq!(
            (r.prefix(), r.location(), r.scope()),
            ("p.io", "l.io", "p.io")
        );
        assert!(r.blocked() && !r.insecure() && !r.mirror_by_digest_only());
        let m: Vec<(&str, &str)> = r
            .mirrors()
            .map(|m| (m.location(), m.pull_from_mirror()))
            .collect();
        assert_eq!(m, [("m.io", "digest-only")]);
        assert_eq!(
            f.to_toml(),
            "unqualified-search-registries = [\"a.io\"]\n\n[[registry]]\nblocked = true\n\
             location = \"l.io\"\nprefix = \"p.io\"\n\n[[registry.mirror]]\nlocation = \"m.io\"\n\
             pull-from-mirror = \"digest-only\"\n"
        );
        // An absent key and its zero value are one Go value.
        let a = RegistriesFile::read("a", "[[registry]]\nlocation = \"x\"\n").unwrap();
        let b = RegistriesFile::read(
            "b",
            "[[registry]]\nprefix = \"\"\nlocation = \"x\"\ninsecure = false\n",
        )
        .unwrap();
        assert!(a.registries().eq(b.registries()));
        for (text, undetermined) in [
            ("[[registry]]\nlocation = \"x\"\nLocation = \"y\"\n", true),
            ("[[registry]]\nlocation = true\n", false),
        ] {
            let e = RegistriesFile::read("r.conf", text).unwrap_err();
            assert_eq!(e.undetermined.is_some(), undetermined, "{text}: {e}");
        }
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
