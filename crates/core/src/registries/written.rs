//! A registries.conf file as the code that wrote it knows it: the values
//! it put in, each at the offset of its table or key line, so that the
//! loader can take them as they are instead of reading the text back.
//!
//! The writer ([`crate::render::encode`]) records a value exactly when it
//! writes its key. Only strings that go into the text as they are (no
//! escapes, no control characters) are recorded: a file with any other
//! string is read back from its text, where TOML decides what it holds.
//! `tests/it/properties.rs` checks over generated configurations that loading
//! a file this way gives what loading its text gives (values, lines,
//! origins and errors alike).

use toml::Spanned;

use super::raw::{RawConfig, RawMirror, RawRegistry};

/// What a writer put into one registries.conf file.
#[derive(Debug, Default)]
pub struct Written {
    raw: RawConfig,
    registries: Vec<Spanned<RawRegistry>>,
    /// False once a string that is not written as it is was recorded.
    plain: bool,
}

/// Whether a TOML basic string holds `s` between its quotes unchanged,
/// which every TOML release reads as `s`.
fn is_plain(s: &str) -> bool {
    // Without an early exit the check compiles to a few vector
    // instructions per 32 bytes.
    !s.bytes().fold(false, |bad, b| {
        bad | (b < 0x20) | (b == 0x7f) | (b == b'"') | (b == b'\\')
    })
}

impl Written {
    /// Nothing written yet, with room for `registries` `[[registry]]` tables.
    pub fn new(registries: usize) -> Self {
        Self {
            registries: Vec::with_capacity(registries),
            plain: true,
            ..Self::default()
        }
    }

    fn text(&mut self, s: &str) -> String {
        self.plain &= is_plain(s);
        s.to_string()
    }

    fn list(&mut self, items: &[String]) -> Vec<String> {
        items.iter().map(|s| self.text(s)).collect()
    }

    /// `unqualified-search-registries = [...]` on the line at `at`.
    pub fn search_registries(&mut self, at: usize, items: &[String]) {
        let list = self.list(items);
        self.raw.unqualified_search_registries = Some(Spanned::new(at..at, list));
    }

    /// `credential-helpers = [...]`.
    pub fn credential_helpers(&mut self, items: &[String]) {
        self.raw.credential_helpers = Some(self.list(items));
    }

    /// `short-name-mode = "..."` on the line at `at`.
    pub fn short_name_mode(&mut self, at: usize, value: &str) {
        let value = self.text(value);
        self.raw.short_name_mode = Some(Spanned::new(at..at, value));
    }

    /// `additional-layer-store-auth-helper = "..."`.
    pub fn additional_layer_store_auth_helper(&mut self, value: &str) {
        self.raw.additional_layer_store_auth_helper = Some(self.text(value));
    }

    /// A `[[registry]]` header at `at`; `None` and `false` are keys not written.
    pub fn registry(&mut self, at: usize, prefix: Option<&str>, location: Option<&str>) {
        let registry = RawRegistry {
            prefix: prefix.map(|p| self.text(p)),
            location: location.map(|l| self.text(l)),
            ..RawRegistry::default()
        };
        self.registries.push(Spanned::new(at..at, registry));
    }

    /// The flags written (`= true`) for the last `[[registry]]`.
    pub fn registry_flags(&mut self, insecure: bool, blocked: bool, mirror_by_digest_only: bool) {
        if let Some(r) = self.registries.last_mut() {
            let r = r.get_mut();
            r.insecure = insecure.then_some(true);
            r.blocked = blocked.then_some(true);
            r.mirror_by_digest_only = mirror_by_digest_only.then_some(true);
        }
    }

    /// A `[[registry.mirror]]` header at `at`, under the last `[[registry]]`.
    pub fn mirror(
        &mut self,
        at: usize,
        location: Option<&str>,
        insecure: bool,
        pull_from_mirror: Option<&str>,
    ) {
        let mirror = RawMirror {
            location: location.map(|l| self.text(l)),
            insecure: insecure.then_some(true),
            pull_from_mirror: pull_from_mirror.map(|p| self.text(p)),
            ..RawMirror::default()
        };
        if let Some(r) = self.registries.last_mut() {
            r.get_mut()
                .mirrors
                .get_or_insert_with(Vec::new)
                .push(Spanned::new(at..at, mirror));
        }
    }

    /// Whether every string was written as it is, so that the loader
    /// takes these tables rather than reading the text.
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// The file's tables and keys as the TOML reader would give them;
    /// `None` when a string was not written as it is.
    pub(super) fn into_raw(self) -> Option<RawConfig> {
        if !self.plain {
            return None;
        }
        let mut raw = self.raw;
        if !self.registries.is_empty() {
            raw.registries = Some(self.registries);
        }
        Some(raw)
    }
}
