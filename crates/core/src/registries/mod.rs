//! The registries.conf v2 model (containers-registries.conf(5)): reading a
//! file and its `registries.conf.d` drop-ins with the upstream validation
//! and merge rules.
//!
//! This module owns the data; `load` reads and validates TOML text (with a
//! fast reader, `fast`, for the plain subset MCO-written files use, and the
//! raw serde shapes in `raw`, whose read-only view [`RegistriesFile`] is
//! how other modules read one file as the node does). Matching a reference
//! to an entry and ordering pull sources live in `lookup`; short names in
//! `shortnames`.
//! Reading files from disk is left to the command layer: the functions here
//! take the text and the name to report. Nothing here touches the
//! filesystem, the terminal or the network.
//!
//! Upstream: containers/image `pkg/sysregistriesv2`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::origin::Origin;

/// The merged configuration CRI-O would use.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegistriesConf {
    /// `[[registry]]` entries, unique by prefix, sorted by prefix (byte order).
    pub registries: Vec<Registry>,
    /// `unqualified-search-registries`, in order.
    pub unqualified_search_registries: Vec<String>,
    /// Where `unqualified-search-registries` was last set (file and line).
    pub search_registries_origin: Option<Origin>,
    /// The file upstream names in short-name errors: the last file that set
    /// `unqualified-search-registries`, else the main file; `None` when
    /// there was no main file and no drop-in set it.
    pub search_registries_file: Option<String>,
    /// `short-name-mode`, if any file set it (upstream then defaults to
    /// permissive; CRI-O ignores it and sets its own).
    pub short_name_mode: Option<ShortNameMode>,
    /// Where `short-name-mode` was last set (file and line).
    pub short_name_mode_origin: Option<Origin>,
    /// `[aliases]`, merged; a tombstone (`""`) is kept with `value: None`.
    pub aliases: BTreeMap<String, Alias>,
    /// Why the machine-written short-name-aliases.conf cannot be read:
    /// upstream reads it for short names only, so each of them fails with
    /// this message and qualified names are not concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short_name_aliases_error: Option<String>,
    /// `credential-helpers` (default `["containers-auth.json"]`).
    pub credential_helpers: Vec<String>,
    /// The files read, in merge order.
    pub files: Vec<String>,
}

impl RegistriesConf {
    /// Lays the machine-written short-name aliases over the files' own: as
    /// containers/image `ResolveShortNameAlias` looks there first, an entry
    /// there replaces the files' alias of the same name, and its tombstone
    /// (`""`) leaves the name to the search registries.
    pub fn add_short_name_aliases(&mut self, aliases: BTreeMap<String, Alias>) {
        self.aliases.extend(aliases);
    }

    /// Records why the machine-written short-name aliases cannot be read
    /// (upstream's message): every short name then fails with it.
    pub fn refuse_short_names(&mut self, message: String) {
        self.short_name_aliases_error = Some(message);
    }
}

/// One `[[registry]]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registry {
    /// What user references are matched against (`host[:port][/path]` or `*.domain`).
    pub prefix: String,
    /// The physical location that replaces the matched prefix; empty only for `*.` prefixes.
    pub location: String,
    /// Skip TLS verification and allow plain HTTP for the source endpoint.
    pub insecure: bool,
    /// Refuse to contact endpoints whose physical name finds this entry.
    pub blocked: bool,
    /// Use the mirrors only for references by digest.
    pub mirror_by_digest_only: bool,
    /// `[[registry.mirror]]`, in order.
    pub mirrors: Vec<Mirror>,
    /// Where the entry came from.
    pub origins: Vec<Origin>,
}

/// One `[[registry.mirror]]` endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mirror {
    /// The mirror's location, which replaces the matched prefix.
    pub location: String,
    /// Skip TLS verification and allow plain HTTP for this mirror.
    pub insecure: bool,
    /// Which kinds of reference the mirror serves.
    pub pull_from_mirror: PullFromMirror,
    /// Where the mirror came from.
    pub origins: Vec<Origin>,
}

/// A mirror's `pull-from-mirror`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PullFromMirror {
    /// Not set (`""`): used for tag and digest pulls.
    #[default]
    Unset,
    /// `"all"`: used for tag and digest pulls.
    All,
    /// `"digest-only"`: used only for digest pulls.
    DigestOnly,
    /// `"tag-only"`: used only for tag pulls.
    TagOnly,
}

/// `short-name-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShortNameMode {
    /// Several search-registry candidates are an error without a prompt.
    Enforcing,
    /// Several candidates are all tried, in order, without a prompt.
    Permissive,
    /// All candidates are tried, in order; never prompts.
    Disabled,
}

impl ShortNameMode {
    /// The mode as registries.conf spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Enforcing => "enforcing",
            Self::Permissive => "permissive",
            Self::Disabled => "disabled",
        }
    }
}

/// One `[aliases]` entry after merging.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alias {
    /// The normalized target, or `None` for a tombstone (`""`).
    pub value: Option<String>,
    /// Where the alias is (last) defined.
    pub origin: Origin,
}

pub(crate) mod burntsushi;
mod fast;
mod legacy;
mod load;
pub mod lookup;
mod raw;
pub mod shortnames;
#[cfg(test)]
mod testdata;
mod toml10;
mod written;

pub use load::{
    fast_reader_accepts, load, load_full_parser, load_on, load_short_name_aliases, load_written,
    node_reads_toml, parse_short_name_mode, reads_as_toml_1_0, ConfigFile, NodeToml,
    RegistriesError, Undetermined, AUTHENTICATION_FILE_HELPER,
};
pub use raw::{MirrorTable, RegistriesFile, RegistryTable};
pub use written::Written;
