//! Reading registries.conf text: one file's validation, exactly as
//! containers/image `loadConfigFile` and `postProcessRegistries` do it and
//! in the same order, and the merge of drop-ins
//! (`parsedConfig.updateWithConfigurationFrom`).
//!
//! Every error keeps the upstream message and adds where it is: the file,
//! the `[[registry]]` entry (its 1-based index in the file) and its line.
//!
//! Upstream: containers/image `pkg/sysregistriesv2/system_registries_v2.go`,
//! `shortnames.go`; containers-registries.conf(5).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use toml::Spanned;

use super::raw::{RawConfig, RawRegistry, RawV1};
use super::{Alias, Mirror, PullFromMirror, RegistriesConf, Registry, ShortNameMode};
use crate::origin::Origin;
use crate::reference::{is_qualified_domain, is_valid_domain, Reference};

/// The credential helper used when no file sets `credential-helpers`.
pub const AUTHENTICATION_FILE_HELPER: &str = "containers-auth.json";

/// One configuration file's text and the name to report it by (the path as
/// the user gave it).
#[derive(Debug, Clone, Copy)]
pub struct ConfigFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// Why a registries configuration cannot be loaded: the upstream message,
/// with the file and, where known, the entry and line at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RegistriesError {
    /// The file, as named in its [`ConfigFile`].
    pub file: String,
    /// Whether the file was read as a drop-in (upstream words the error differently).
    pub drop_in: bool,
    /// The 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// Where in the file, e.g. `[[registry]] #3 (line 14, prefix "quay.io")`; may be empty.
    pub context: String,
    /// The containers/image message.
    pub message: String,
}

impl fmt::Display for RegistriesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.drop_in { "drop-in " } else { "" };
        write!(
            f,
            "loading {kind}registries configuration {}: ",
            crate::quote::go_quote(&self.file)
        )?;
        if !self.context.is_empty() {
            write!(f, "{}: ", self.context)?;
        }
        f.write_str(&self.message)
    }
}

/// Byte offsets of line starts, computed once, for turning spans into
/// 1-based lines by binary search.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self(starts)
    }

    /// The 1-based line holding byte `offset`.
    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&s| s <= offset)
    }

    /// The 1-based line and column (in bytes) of `offset`.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        (line, offset - self.0[line - 1] + 1)
    }
}

/// The error upstream `parseLocation` gives for `input`, if any: a URI
/// scheme (after trailing slashes are stripped) is refused.
fn location_error(input: &str) -> Option<String> {
    let trimmed = input.trim_end_matches('/');
    (trimmed.starts_with("http://") || trimmed.starts_with("https://"))
        .then(|| format!("invalid location '{input}': URI schemes are not supported"))
}

/// Upstream `parseLocation` on an owned string, reusing it.
fn take_location(mut input: String) -> Result<String, String> {
    if let Some(e) = location_error(&input) {
        return Err(e);
    }
    let len = input.trim_end_matches('/').len();
    input.truncate(len);
    Ok(input)
}

/// Upstream `parseLocation`: trailing slashes stripped, URI schemes refused.
/// The message quotes the raw input.
pub(super) fn parse_location(input: &str) -> Result<String, String> {
    take_location(input.to_string())
}

/// Parses `short-name-mode` as upstream `parseShortNameMode`; empty means unset.
pub fn parse_short_name_mode(s: &str) -> Result<Option<ShortNameMode>, String> {
    match s {
        "" => Ok(None),
        "enforcing" => Ok(Some(ShortNameMode::Enforcing)),
        "permissive" => Ok(Some(ShortNameMode::Permissive)),
        "disabled" => Ok(Some(ShortNameMode::Disabled)),
        _ => Err(format!(
            "invalid short-name mode: {}",
            crate::quote::go_quote(s)
        )),
    }
}

/// Upstream `validateShortName`: the left-hand side of an alias.
pub(super) fn validate_short_name(name: &str) -> Result<(), String> {
    let q = crate::quote::go_quote(name);
    let r = Reference::parse(name).map_err(|e| format!("cannot parse short name: {q}: {e}"))?;
    if r.digest().is_some() {
        return Err(format!("invalid short name {q}: must not contain digest"));
    }
    if r.tag().is_some() {
        return Err(format!("invalid short name {q}: must not contain tag"));
    }
    if is_qualified_domain(r.domain()) {
        return Err(format!("invalid short name {q}: must not contain registry"));
    }
    Ok(())
}

/// Upstream `parseShortNameValue`: the right-hand side of an alias,
/// returned normalized (`docker.io/fedora` is `docker.io/library/fedora`).
pub(super) fn parse_short_name_value(alias: &str) -> Result<String, String> {
    let q = crate::quote::go_quote(alias);
    let r = Reference::parse(alias).map_err(|e| format!("parsing alias {q}: {e}"))?;
    if r.digest().is_some() {
        return Err(format!("invalid alias {q}: must not contain digest"));
    }
    if r.tag().is_some() {
        return Err(format!("invalid alias {q}: must not contain tag"));
    }
    if !is_qualified_domain(r.domain()) {
        return Err(format!(
            "invalid alias {q}: must contain registry and repository"
        ));
    }
    Reference::parse_normalized_named(alias)
        .map(|n| n.name())
        .map_err(|e| e.to_string())
}

/// Where a registry entry was written, for messages.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// The n-th (1-based) `[[registry]]` of the file.
    Table { index: usize },
    /// A host in a v1 `[registries.block]` or `[registries.insecure]` list.
    V1 { table: &'static str },
}

/// Where an entry is, kept beside it for messages.
#[derive(Debug, Clone, Copy)]
struct Meta {
    place: Place,
    /// The line of its `[[registry]]` header (or v1 list).
    line: usize,
    /// Whether the file set `prefix` (else the context names the location).
    prefix_set: bool,
}

impl Meta {
    /// `[[registry]] #3 (line 14, prefix "quay.io")`.
    fn context(&self, prefix: &str, location: &str) -> String {
        match self.place {
            Place::Table { index } => {
                let key = if self.prefix_set {
                    format!(", prefix {}", crate::quote::go_quote(prefix))
                } else if !location.is_empty() {
                    format!(", location {}", crate::quote::go_quote(location))
                } else {
                    String::new()
                };
                format!("[[registry]] #{index} (line {}{key})", self.line)
            }
            Place::V1 { table } => {
                format!(
                    "[registries.{table}] (line {}, {})",
                    self.line,
                    crate::quote::go_quote(location)
                )
            }
        }
    }
}

/// A registry entry as read, before `postProcessRegistries`.
struct Pending {
    meta: Meta,
    raw: RawRegistry,
    origins: Vec<Origin>,
}

/// One file after its own validation, before merging.
struct FileConfig {
    /// Sorted by prefix, unique.
    registries: Vec<Registry>,
    search: Option<Vec<String>>,
    search_origin: Option<Origin>,
    credential_helpers: Option<Vec<String>>,
    short_name_mode: Option<(ShortNameMode, Origin)>,
    aliases: BTreeMap<String, Alias>,
}

/// Builds errors for one file.
struct Reporter<'a> {
    file: &'a ConfigFile<'a>,
    drop_in: bool,
}

impl Reporter<'_> {
    fn error(&self, line: Option<usize>, context: String, message: String) -> RegistriesError {
        RegistriesError {
            file: self.file.name.to_string(),
            drop_in: self.drop_in,
            line,
            context,
            message,
        }
    }

    /// An error about an entry, named by its (possibly processed) prefix and location.
    fn at_entry(
        &self,
        meta: &Meta,
        prefix: &str,
        location: &str,
        message: String,
    ) -> RegistriesError {
        self.error(Some(meta.line), meta.context(prefix, location), message)
    }

    fn at_registry(&self, meta: &Meta, r: &Registry, message: String) -> RegistriesError {
        self.at_entry(meta, &r.prefix, &r.location, message)
    }
}

/// Which TOML reader a load uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    /// The fast reader for the plain subset, else the `toml` crate.
    Fast,
    /// The `toml` crate only.
    Full,
}

/// Parses the TOML with `reader`.
fn parse_raw(
    file: &ConfigFile<'_>,
    lines: &Lines,
    rep: &Reporter<'_>,
    reader: Reader,
) -> Result<RawConfig, RegistriesError> {
    if reader == Reader::Fast {
        if let Some(raw) = super::fast::parse(file.text) {
            return Ok(raw);
        }
    }
    toml::from_str(file.text).map_err(|e| {
        let (line, context) = match e.span() {
            Some(span) => {
                let (l, c) = lines.line_col(span.start);
                (Some(l), format!("line {l}, column {c}"))
            }
            None => (None, String::new()),
        };
        // One line, whatever the parser says.
        let message = e.message().trim().lines().collect::<Vec<_>>().join("; ");
        rep.error(line, context, message)
    })
}

/// Upstream `loadConfigFile` for one file (`forceV2` for drop-ins).
fn load_file(
    file: &ConfigFile<'_>,
    drop_in: bool,
    reader: Reader,
) -> Result<FileConfig, RegistriesError> {
    let lines = Lines::new(file.text);
    let rep = Reporter { file, drop_in };
    let mut raw = parse_raw(file, &lines, &rep, reader)?;
    let origin_at = |offset: usize| Origin::file_line(file.name, lines.line(offset));

    // Entries are streamed into post-processing, not collected first.
    let (pending, search): (Box<dyn Iterator<Item = Pending>>, Search) =
        match raw.v1.take().filter(RawV1::is_set) {
            Some(v1) => {
                let line = v1_line(&v1, &lines);
                let context = line.map_or_else(String::new, |l| format!("line {l}"));
                if drop_in {
                    return Err(rep.error(
                        line,
                        context,
                        "registry must be in v2 format but is in v1".to_string(),
                    ));
                }
                if raw.has_v2() {
                    return Err(rep.error(
                        line,
                        context,
                        "mixing sysregistry v1/v2 is not supported".to_string(),
                    ));
                }
                let pending = convert_v1(&v1, file, &lines, &rep)?;
                let search = v1.search.and_then(|l| l.registries).map(|s| {
                    (
                        lines.line(s.span().start),
                        s.into_inner(),
                        "[registries.search]",
                    )
                });
                (Box::new(pending.into_iter()), search)
            }
            None => {
                let lines = &lines;
                let pending = raw.registries.take().into_iter().flatten().enumerate().map(
                    move |(i, spanned)| {
                        let line = lines.line(spanned.span().start);
                        let raw = spanned.into_inner();
                        Pending {
                            meta: Meta {
                                place: Place::Table { index: i + 1 },
                                line,
                                prefix_set: raw.prefix.as_ref().is_some_and(|p| !p.is_empty()),
                            },
                            raw,
                            origins: vec![Origin::file_line(file.name, line)],
                        }
                    },
                );
                let search = raw.unqualified_search_registries.take().map(|s| {
                    (
                        lines.line(s.span().start),
                        s.into_inner(),
                        "unqualified-search-registries",
                    )
                });
                (Box::new(pending), search)
            }
        };
    let search_origin = search
        .as_ref()
        .map(|(line, _, _)| Origin::file_line(file.name, *line));

    let (registries, metas, search) = post_process(pending, search, &lines, &rep)?;

    // Still `loadConfigFile`: the mode, then wildcard prefixes, then aliases.
    let short_name_mode = match &raw.short_name_mode {
        Some(m) if !m.get_ref().is_empty() => {
            let line = lines.line(m.span().start);
            let mode = parse_short_name_mode(m.get_ref()).map_err(|msg| {
                rep.error(Some(line), format!("short-name-mode (line {line})"), msg)
            })?;
            mode.map(|mode| (mode, origin_at(m.span().start)))
        }
        _ => None,
    };

    // Upstream checks the sorted, de-duplicated list, so the error names
    // the smallest offending prefix, and of equal prefixes the first.
    let bad_wildcard = registries
        .iter()
        .zip(&metas)
        .filter(|(r, _)| r.prefix.starts_with("*.") && r.prefix.contains(['/', '@', ':']))
        .min_by(|a, b| a.0.prefix.cmp(&b.0.prefix));
    if let Some((r, meta)) = bad_wildcard {
        return Err(rep.at_registry(
            meta,
            r,
            format!(
                "Wildcarded prefix should be in the format: *.example.com. Current prefix {} is incorrectly formatted",
                crate::quote::go_quote(&r.prefix)
            ),
        ));
    }

    let aliases = match &raw.aliases {
        Some(table) => validate_aliases(table, file, &lines, &rep)?,
        None => BTreeMap::new(),
    };

    Ok(FileConfig {
        registries: sort_unique(registries),
        search,
        search_origin,
        credential_helpers: raw.credential_helpers,
        short_name_mode,
        aliases,
    })
}

/// The first line of a set v1 list, for messages.
fn v1_line(v1: &RawV1, lines: &Lines) -> Option<usize> {
    [&v1.search, &v1.insecure, &v1.block]
        .iter()
        .filter_map(|l| l.as_ref()?.registries.as_ref())
        .map(|s| lines.line(s.span().start))
        .min()
}

/// Upstream `V1RegistriesConf.ConvertToV2`: each `block`, then each
/// `insecure` host becomes (or updates) a `[[registry]]` whose prefix and
/// location are the host, in order of first appearance.
fn convert_v1(
    v1: &RawV1,
    file: &ConfigFile<'_>,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Result<Vec<Pending>, RegistriesError> {
    let mut pending: Vec<Pending> = Vec::new();
    let mut by_location: HashMap<String, usize> = HashMap::new();
    for (table, list) in [("block", &v1.block), ("insecure", &v1.insecure)] {
        let Some(list) = list.as_ref().and_then(|l| l.registries.as_ref()) else {
            continue;
        };
        let line = lines.line(list.span().start);
        let origin = Origin::file_line(file.name, line);
        for host in list.get_ref() {
            let location = parse_location(host).map_err(|msg| {
                rep.error(
                    Some(line),
                    format!("[registries.{table}] (line {line})"),
                    msg,
                )
            })?;
            let i = *by_location.entry(location.clone()).or_insert_with(|| {
                pending.push(Pending {
                    meta: Meta {
                        place: Place::V1 { table },
                        line,
                        prefix_set: true,
                    },
                    raw: RawRegistry {
                        prefix: Some(location.clone()),
                        location: Some(location),
                        ..RawRegistry::default()
                    },
                    origins: Vec::new(),
                });
                pending.len() - 1
            });
            let p = &mut pending[i];
            if table == "block" {
                p.raw.blocked = Some(true);
            } else {
                p.raw.insecure = Some(true);
            }
            if !p.origins.contains(&origin) {
                p.origins.push(origin.clone());
            }
        }
    }
    Ok(pending)
}

/// A search list: the line it is on, its entries, and the key that set it.
type Search = Option<(usize, Vec<String>, &'static str)>;

/// Upstream `V2RegistriesConf.postProcessRegistries`, up to (not including)
/// dropping duplicate prefixes and sorting: per-entry checks in file order,
/// the insecure/blocked conflict check, then search registries. Returns
/// the entries in file order with where each was written.
#[allow(clippy::type_complexity)]
fn post_process(
    pending: impl Iterator<Item = Pending>,
    search: Search,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Result<(Vec<Registry>, Vec<Meta>, Option<Vec<String>>), RegistriesError> {
    let mut registries: Vec<Registry> = Vec::with_capacity(pending.size_hint().0);
    let mut metas: Vec<Meta> = Vec::with_capacity(pending.size_hint().0);
    for Pending { meta, raw, origins } in pending {
        let raw_prefix = raw.prefix.unwrap_or_default();
        let raw_location = raw.location.unwrap_or_default();
        if let Some(e) = location_error(&raw_location) {
            return Err(rep.at_entry(&meta, &raw_prefix, &raw_location, e));
        }
        let location = take_location(raw_location).unwrap_or_default();
        let prefix = if raw_prefix.is_empty() {
            if location.is_empty() {
                return Err(rep.at_entry(
                    &meta,
                    "",
                    "",
                    "invalid condition: both location and prefix are unset".to_string(),
                ));
            }
            location.clone()
        } else {
            if let Some(e) = location_error(&raw_prefix) {
                return Err(rep.at_entry(&meta, &raw_prefix, &location, e));
            }
            let p = take_location(raw_prefix).unwrap_or_default();
            if !p.starts_with("*.") && location.is_empty() {
                return Err(rep.at_entry(
                    &meta,
                    &p,
                    "",
                    "invalid condition: location is unset and prefix is not in the format: *.example.com"
                        .to_string(),
                ));
            }
            p
        };
        if raw
            .pull_from_mirror
            .as_deref()
            .is_some_and(|v| !v.is_empty())
        {
            return Err(rep.at_entry(
                &meta,
                &prefix,
                &location,
                format!(
                    "pull-from-mirror must not be set for a non-mirror registry {}",
                    crate::quote::go_quote(&prefix)
                ),
            ));
        }
        let mirror_by_digest_only = raw.mirror_by_digest_only.unwrap_or(false);
        let raw_mirrors = raw.mirrors.unwrap_or_default();
        let mut mirrors = Vec::with_capacity(raw_mirrors.len());
        for (n, spanned) in raw_mirrors.into_iter().enumerate() {
            let line = lines.line(spanned.span().start);
            let m = spanned.into_inner();
            let at_mirror = |message: String| {
                rep.error(
                    Some(line),
                    format!(
                        "{}: [[registry.mirror]] #{} (line {line})",
                        meta.context(&prefix, &location),
                        n + 1
                    ),
                    message,
                )
            };
            let mloc = take_location(m.location.unwrap_or_default()).map_err(at_mirror)?;
            if mloc.is_empty() {
                return Err(at_mirror(
                    "invalid condition: mirror location is unset".to_string(),
                ));
            }
            let pfm = m.pull_from_mirror.as_deref().unwrap_or_default();
            if mirror_by_digest_only && !pfm.is_empty() {
                return Err(at_mirror(format!(
                    "cannot set mirror usage mirror-by-digest-only for the registry ({}) and pull-from-mirror for per-mirror ({}) at the same time",
                    crate::quote::go_quote(&prefix),
                    crate::quote::go_quote(&mloc)
                )));
            }
            let pull_from_mirror = match pfm {
                "" => PullFromMirror::Unset,
                "all" => PullFromMirror::All,
                "digest-only" => PullFromMirror::DigestOnly,
                "tag-only" => PullFromMirror::TagOnly,
                _ => {
                    return Err(at_mirror(format!(
                        "unsupported pull-from-mirror value {} for mirror {}",
                        crate::quote::go_quote(pfm),
                        crate::quote::go_quote(&mloc)
                    )))
                }
            };
            mirrors.push(Mirror {
                location: mloc,
                insecure: m.insecure.unwrap_or(false),
                pull_from_mirror,
                origins: vec![Origin::file_line(rep.file.name, line)],
            });
        }
        registries.push(Registry {
            prefix,
            location,
            insecure: raw.insecure.unwrap_or(false),
            blocked: raw.blocked.unwrap_or(false),
            mirror_by_digest_only,
            mirrors,
            origins,
        });
        metas.push(meta);
    }

    check_conflicts(&registries, &metas, rep)?;

    let search = match search {
        Some((line, list, key)) => {
            let context = format!("{key} (line {line})");
            let mut parsed = Vec::with_capacity(list.len());
            for entry in list {
                let loc =
                    take_location(entry).map_err(|m| rep.error(Some(line), context.clone(), m))?;
                if !is_valid_domain(&loc) {
                    return Err(rep.error(
                        Some(line),
                        context,
                        format!(
                            "Invalid unqualified-search-registries entry {}",
                            crate::quote::go_quote(&loc)
                        ),
                    ));
                }
                parsed.push(loc);
            }
            Some(parsed)
        }
        None => None,
    };
    Ok((registries, metas, search))
}

/// Upstream's last step of `postProcessRegistries`: the first entry with a
/// prefix (in file order) is kept, later ones dropped silently, and the
/// result sorted by prefix, byte-wise. Moves each entry once.
fn sort_unique(registries: Vec<Registry>) -> Vec<Registry> {
    if registries.windows(2).all(|w| w[0].prefix < w[1].prefix) {
        return registries;
    }
    let mut order: Vec<usize> = (0..registries.len()).collect();
    // Stable, so equal prefixes stay in file order and the first is kept.
    order.sort_by(|&a, &b| registries[a].prefix.cmp(&registries[b].prefix));
    let mut slots: Vec<Option<Registry>> = registries.into_iter().map(Some).collect();
    let mut out: Vec<Registry> = Vec::with_capacity(slots.len());
    for i in order {
        let Some(r) = slots[i].take() else { continue };
        if out.last().is_some_and(|last| last.prefix == r.prefix) {
            continue;
        }
        out.push(r);
    }
    out
}

/// All entries sharing a location (or, without one, a prefix) must agree on
/// `insecure` and `blocked`. Upstream compares each entry, in file order,
/// with every member of its group in file order and reports the first
/// difference. One pass finds whether any group disagrees (usually none
/// does); only then a second pass finds the pair upstream reports.
fn check_conflicts(
    regs: &[Registry],
    metas: &[Meta],
    rep: &Reporter<'_>,
) -> Result<(), RegistriesError> {
    fn key(r: &Registry) -> &str {
        if r.location.is_empty() {
            &r.prefix
        } else {
            &r.location
        }
    }
    fn combo(r: &Registry) -> u8 {
        u8::from(r.insecure) | (u8::from(r.blocked) << 1)
    }
    let mut first_combo: HashMap<&str, u8> = HashMap::with_capacity(regs.len());
    let any_conflict = regs
        .iter()
        .any(|r| *first_combo.entry(key(r)).or_insert(combo(r)) != combo(r));
    if !any_conflict {
        return Ok(());
    }
    // Per group: the first index with each (insecure, blocked) combination.
    let mut groups: HashMap<&str, [Option<usize>; 4]> = HashMap::new();
    for (i, r) in regs.iter().enumerate() {
        groups.entry(key(r)).or_insert([None; 4])[usize::from(combo(r))].get_or_insert(i);
    }
    for (i, r) in regs.iter().enumerate() {
        let firsts = &groups[key(r)];
        let mine = usize::from(combo(r));
        let Some(j) = (0..4)
            .filter(|&c| c != mine)
            .filter_map(|c| firsts[c])
            .min()
        else {
            continue;
        };
        let o = &regs[j];
        let (setting, mine_v, other_v) = if o.insecure != r.insecure {
            ("insecure", r.insecure, o.insecure)
        } else {
            ("blocked", r.blocked, o.blocked)
        };
        return Err(rep.at_registry(
            &metas[i],
            r,
            format!(
                "registry '{}' is defined multiple times with conflicting '{setting}' setting ({setting} = {mine_v} here, {other_v} in {})",
                r.location,
                metas[j].context(&o.prefix, &o.location)
            ),
        ));
    }
    Ok(())
}

/// Upstream `newShortNameAliasCache`: every alias checked, all problems
/// reported together; `""` is a tombstone.
fn validate_aliases(
    table: &BTreeMap<String, Spanned<String>>,
    file: &ConfigFile<'_>,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Result<BTreeMap<String, Alias>, RegistriesError> {
    let mut aliases = BTreeMap::new();
    let mut problems = Vec::new();
    let mut first_line: Option<usize> = None;
    for (name, value) in table {
        let line = lines.line(value.span().start);
        let origin = Origin::file_line(file.name, line);
        let mut note = |e: String| {
            first_line = Some(first_line.map_or(line, |f| f.min(line)));
            problems.push(e);
        };
        if let Err(e) = validate_short_name(name) {
            note(e);
        }
        if value.get_ref().is_empty() {
            aliases.insert(
                name.clone(),
                Alias {
                    value: None,
                    origin,
                },
            );
            continue;
        }
        match parse_short_name_value(value.get_ref()) {
            Ok(v) => {
                aliases.insert(
                    name.clone(),
                    Alias {
                        value: Some(v),
                        origin,
                    },
                );
            }
            Err(e) => note(e),
        }
    }
    if problems.is_empty() {
        return Ok(aliases);
    }
    Err(rep.error(
        first_line,
        first_line.map_or_else(
            || "[aliases]".to_string(),
            |l| format!("[aliases] (line {l})"),
        ),
        format!("validating short-name aliases: {}", problems.join("; ")),
    ))
}

/// Loads the main file (if any) and the drop-ins, in the given order, as
/// containers/image `tryUpdatingCache` does: each file is validated on its
/// own, then merged. A drop-in's `[[registry]]` replaces the entry with the
/// same prefix as a whole; lists and the mode are replaced when a file sets
/// them; aliases merge, later files winning, `""` erasing. Drop-ins must be
/// v2. `credential-helpers` defaults to `["containers-auth.json"]`.
pub fn load(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
) -> Result<RegistriesConf, RegistriesError> {
    load_with(main, drop_ins, Reader::Fast)
}

/// [`load`] with the `toml` crate reading every file, never the fast
/// reader: what `load` must give whichever reader it picks. For the
/// differential tests and the fuzz target, not for the commands.
#[doc(hidden)]
pub fn load_full_parser(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
) -> Result<RegistriesConf, RegistriesError> {
    load_with(main, drop_ins, Reader::Full)
}

/// Whether the fast reader reads `text` itself rather than leaving it to
/// the `toml` crate; for the differential tests' coverage counts.
#[doc(hidden)]
pub fn fast_reader_accepts(text: &str) -> bool {
    super::fast::parse(text).is_some()
}

fn load_with(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
    reader: Reader,
) -> Result<RegistriesConf, RegistriesError> {
    let mut conf = RegistriesConf::default();
    let mut merged: Option<Vec<Registry>> = None;
    let files = main
        .map(|m| (m, false))
        .into_iter()
        .chain(drop_ins.iter().map(|d| (d, true)));
    for (file, drop_in) in files {
        let parsed = load_file(file, drop_in, reader)?;
        conf.files.push(file.name.to_string());
        merged = Some(match merged {
            None => parsed.registries,
            Some(current) => merge_registries(current, parsed.registries),
        });
        // Upstream records the main file as the origin of the search list
        // even when it does not set one; a drop-in only when it does.
        if !drop_in {
            conf.search_registries_file = Some(file.name.to_string());
        }
        if let Some(list) = parsed.search {
            conf.unqualified_search_registries = list;
            conf.search_registries_origin = parsed.search_origin;
            conf.search_registries_file = Some(file.name.to_string());
        }
        if let Some(helpers) = parsed.credential_helpers {
            conf.credential_helpers = helpers;
        }
        if let Some((mode, origin)) = parsed.short_name_mode {
            conf.short_name_mode = Some(mode);
            conf.short_name_mode_origin = Some(origin);
        }
        conf.aliases.extend(parsed.aliases);
    }
    conf.registries = merged.unwrap_or_default();
    if conf.credential_helpers.is_empty() {
        conf.credential_helpers = vec![AUTHENTICATION_FILE_HELPER.to_string()];
    }
    Ok(conf)
}

/// Merges a later file's entries (sorted, unique) into the current ones
/// (sorted, unique) in one pass: an entry with the same prefix is replaced
/// as a whole, and the result stays sorted.
fn merge_registries(current: Vec<Registry>, later: Vec<Registry>) -> Vec<Registry> {
    if later.is_empty() {
        return current;
    }
    let mut out = Vec::with_capacity(current.len() + later.len());
    let mut a = current.into_iter().peekable();
    let mut b = later.into_iter().peekable();
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.prefix.cmp(&y.prefix) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registries::testdata::{self as td, load_files};

    fn load_one(text: &str) -> Result<RegistriesConf, RegistriesError> {
        load_files(("test.conf", text), &[])
    }

    fn err_of(text: &str) -> String {
        match load_one(text) {
            Ok(_) => panic!("should fail:\n{text}"),
            Err(e) => e.to_string(),
        }
    }

    fn prefixes(conf: &RegistriesConf) -> Vec<&str> {
        conf.registries.iter().map(|r| r.prefix.as_str()).collect()
    }

    fn locations(conf: &RegistriesConf) -> Vec<&str> {
        conf.registries
            .iter()
            .map(|r| r.location.as_str())
            .collect()
    }

    /// Ported from TestParseLocation.
    #[test]
    fn parse_location_upstream_cases() {
        for (input, want) in [
            (
                "https://example.com",
                Err("invalid location 'https://example.com': URI schemes are not supported"),
            ),
            (
                "http://example.com",
                Err("invalid location 'http://example.com': URI schemes are not supported"),
            ),
            (
                "https://example.com//",
                Err("invalid location 'https://example.com//': URI schemes are not supported"),
            ),
            ("john.doe@example.com", Ok("john.doe@example.com")),
            ("example.com", Ok("example.com")),
            ("example.com/", Ok("example.com")),
            ("example.com//////", Ok("example.com")),
            (
                "example.com:5000/with/path",
                Ok("example.com:5000/with/path"),
            ),
            ("", Ok("")),
            ("/", Ok("")),
        ] {
            let got = parse_location(input);
            assert_eq!(got.as_deref().map_err(String::as_str), want, "{input:?}");
        }
    }

    /// Ported from TestEmptyConfig (an empty file, and no file at all).
    #[test]
    fn empty_config() {
        let conf = load_one("").unwrap();
        assert!(conf.registries.is_empty());
        assert_eq!(conf.credential_helpers, ["containers-auth.json"]);
        assert_eq!(conf.search_registries_file.as_deref(), Some("test.conf"));
        let conf = load(None, &[]).unwrap();
        assert!(conf.registries.is_empty());
        assert!(conf.files.is_empty());
        assert_eq!(conf.search_registries_file, None);
        assert_eq!(conf.short_name_mode, None);
    }

    /// Ported from TestMirrors.
    #[test]
    fn mirrors_conf() {
        let conf = load_one(td::MIRRORS).unwrap();
        assert_eq!(conf.registries.len(), 2);
        let reg =
            crate::registries::lookup::find_registry(&conf, "registry.com/image:tag").unwrap();
        let mirrors: Vec<(&str, bool)> = reg
            .mirrors
            .iter()
            .map(|m| (m.location.as_str(), m.insecure))
            .collect();
        assert_eq!(
            mirrors,
            [
                ("mirror-1.registry.com", false),
                ("mirror-2.registry.com", true)
            ]
        );
    }

    /// Ported from TestFindUnqualifiedSearchRegistries.
    #[test]
    fn unqualified_search_registries() {
        let conf = load_files(
            ("testdata/unqualified-search.conf", td::UNQUALIFIED_SEARCH),
            &[],
        )
        .unwrap();
        assert_eq!(conf.registries.len(), 4);
        assert_eq!(
            conf.unqualified_search_registries,
            ["registry-a.com", "registry-c.com", "registry-d.com"]
        );
        assert_eq!(
            conf.search_registries_file.as_deref(),
            Some("testdata/unqualified-search.conf")
        );
        assert_eq!(
            conf.search_registries_origin,
            Some(Origin::file_line("testdata/unqualified-search.conf", 1))
        );
        assert_eq!(
            err_of(td::INVALID_SEARCH),
            "loading registries configuration \"test.conf\": unqualified-search-registries (line 1): \
             Invalid unqualified-search-registries entry \"registry-a.com/namespace-is-forbidden\""
        );
    }

    /// Section 3.3 step 7: each entry is `parseLocation`'d, then must be a bare `host[:port]`.
    #[test]
    fn unqualified_search_registry_entries() {
        for (list, want) in [
            (
                r#"["quay.io/", "localhost:5000//"]"#,
                Ok(vec!["quay.io", "localhost:5000"]),
            ),
            (r#"["Quay.IO"]"#, Ok(vec!["Quay.IO"])),
            (r#"[]"#, Ok(vec![])),
            (
                r#"["quay.io", ""]"#,
                Err("Invalid unqualified-search-registries entry \"\""),
            ),
            (
                r#"["https://quay.io"]"#,
                Err("invalid location 'https://quay.io': URI schemes are not supported"),
            ),
            (
                r#"["quay.io/ns"]"#,
                Err("Invalid unqualified-search-registries entry \"quay.io/ns\""),
            ),
            (
                r#"["quay.io:port"]"#,
                Err("Invalid unqualified-search-registries entry \"quay.io:port\""),
            ),
            (
                r#"["[::1]:5000"]"#,
                Err("Invalid unqualified-search-registries entry \"[::1]:5000\""),
            ),
        ] {
            let text = format!("unqualified-search-registries = {list}\n");
            match (load_one(&text), want) {
                (Ok(conf), Ok(want)) => {
                    assert_eq!(conf.unqualified_search_registries, want, "{list}")
                }
                (Err(e), Err(want)) => {
                    assert_eq!(e.message, want, "{list}");
                    assert_eq!(e.line, Some(1), "{list}");
                }
                (got, want) => panic!("{list}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// Ported from TestInvalidV2Configs, with the full messages.
    #[test]
    fn invalid_v2_configs() {
        for (text, want) in [
            (
                td::INSECURE_CONFLICTS,
                "loading registries configuration \"test.conf\": [[registry]] #1 (line 1, location \"registry.com\"): \
                 registry 'registry.com' is defined multiple times with conflicting 'insecure' setting \
                 (insecure = false here, true in [[registry]] #2 (line 11, location \"registry.com\"))",
            ),
            (
                td::BLOCKED_CONFLICTS,
                "loading registries configuration \"test.conf\": [[registry]] #1 (line 1, location \"registry.com\"): \
                 registry 'registry.com' is defined multiple times with conflicting 'blocked' setting \
                 (blocked = false here, true in [[registry]] #2 (line 11, location \"registry.com\"))",
            ),
            (
                td::MISSING_MIRROR_LOCATION,
                "loading registries configuration \"test.conf\": [[registry]] #2 (line 6, location \"registry-b.com\"): \
                 [[registry.mirror]] #2 (line 10): invalid condition: mirror location is unset",
            ),
            (
                td::INVALID_PREFIX,
                "loading registries configuration \"test.conf\": [[registry]] #1 (line 1, prefix \"http://schema-is-invalid.com\"): \
                 invalid location 'http://schema-is-invalid.com': URI schemes are not supported",
            ),
        ] {
            assert_eq!(err_of(text), want);
        }
    }

    /// Ported from TestUnmarshalConfig and TestInvalidateCache: four
    /// entries, sorted by prefix.
    #[test]
    fn unmarshal_and_sorted_order() {
        let conf = load_one(td::INVALIDATE_CACHE).unwrap();
        assert_eq!(
            locations(&conf),
            [
                "blocked.registry.com",
                "insecure.registry.com",
                "registry.com",
                "untrusted.registry.com"
            ]
        );
        let flags: Vec<(bool, bool)> = conf
            .registries
            .iter()
            .map(|r| (r.insecure, r.blocked))
            .collect();
        assert_eq!(
            flags,
            [(false, true), (true, false), (false, false), (true, false)]
        );
        assert_eq!(conf.registries[2].mirrors.len(), 2);
    }

    /// Ported from TestV1BackwardsCompatibility.
    #[test]
    fn v1_backwards_compatibility() {
        let conf = load_files(("v1.conf", td::V1_COMPATIBILITY), &[]).unwrap();
        assert_eq!(
            prefixes(&conf),
            [
                "registry-a.com",
                "registry-b.com",
                "registry-d.com",
                "registry-e.com"
            ]
        );
        assert_eq!(
            conf.unqualified_search_registries,
            ["registry-a.com", "registry-c.com", "registry-d.com"]
        );
        let b = &conf.registries[1];
        assert!(
            b.insecure && b.blocked,
            "block and insecure merge into one entry"
        );
        assert_eq!(b.location, "registry-b.com");
        assert_eq!(
            b.origins,
            [
                Origin::file_line("v1.conf", 5),
                Origin::file_line("v1.conf", 8)
            ]
        );
        assert!(!conf.registries[0].blocked && conf.registries[0].insecure);
        assert_eq!(
            conf.search_registries_origin,
            Some(Origin::file_line("v1.conf", 2))
        );

        for (text, want) in [
            (td::V1_INVALID_BLOCK, "[registries.block] (line 5): invalid location 'http://schema-is-invalid.com': URI schemes are not supported"),
            (td::V1_INVALID_INSECURE, "[registries.insecure] (line 8): invalid location 'http://schema-is-invalid.com': URI schemes are not supported"),
            (td::V1_INVALID_SEARCH, "[registries.search] (line 2): invalid location 'http://schema-is-invalid.com': URI schemes are not supported"),
        ] {
            let e = load_one(text).unwrap_err();
            assert_eq!(format!("{}: {}", e.context, e.message), want);
        }
    }

    /// Section 3.5: v1 hosts go through the same post-processing as v2 entries.
    #[test]
    fn v1_hosts_are_post_processed() {
        let e = load_one("[registries.block]\nregistries = [\"/\"]\n").unwrap_err();
        assert_eq!(
            e.message,
            "invalid condition: both location and prefix are unset"
        );
        let e =
            load_one("[registries.insecure]\nregistries = [\"*.example.com:5000\"]\n").unwrap_err();
        assert!(
            e.message
                .starts_with("Wildcarded prefix should be in the format"),
            "{e}"
        );
        // An empty v1 table with no list is not v1 at all.
        let conf = load_one("[registries.search]\n[[registry]]\nlocation = \"a.io\"\n").unwrap();
        assert_eq!(prefixes(&conf), ["a.io"]);
    }

    /// Ported from TestMixingV1andV2, and from TestV1RegistriesConfHasSetField
    /// / TestV2RegistriesConfHasSetField: an empty list counts as set, an
    /// empty string does not.
    #[test]
    fn mixing_v1_and_v2() {
        for text in [td::MIXING_V1_V2, td::MIXING_V1_V2_EMPTY] {
            assert_eq!(
                load_one(text).unwrap_err().message,
                "mixing sysregistry v1/v2 is not supported"
            );
        }
        for (v1, set) in [
            ("[registries.search]\nregistries = []\n", true),
            ("[registries.insecure]\nregistries = []\n", true),
            ("[registries.block]\nregistries = []\n", true),
            ("[registries.block]\nregistries = [\"example.com\"]\n", true),
            ("[registries.block]\n", false),
            ("", false),
        ] {
            for (v2, v2_set) in [
                ("registry = []\n", true),
                ("unqualified-search-registries = []\n", true),
                ("credential-helpers = []\n", true),
                ("short-name-mode = \"enforcing\"\n", true),
                ("additional-layer-store-auth-helper = \"example\"\n", true),
                ("aliases = {}\n", true),
                ("short-name-mode = \"\"\n", false),
                ("additional-layer-store-auth-helper = \"\"\n", false),
            ] {
                let text = format!("{v2}{v1}");
                let mixing = load_one(&text)
                    .err()
                    .is_some_and(|e| e.message == "mixing sysregistry v1/v2 is not supported");
                assert_eq!(mixing, set && v2_set, "{text}");
            }
        }
    }

    /// Section 3.1 step 3: drop-ins must be v2, checked before mixing.
    #[test]
    fn drop_ins_must_be_v2() {
        for (drop_in, line) in [(td::V1_COMPATIBILITY, 2), (td::MIXING_V1_V2, 4)] {
            let e = load_files(("main.conf", ""), &[("d/v1.conf", drop_in)]).unwrap_err();
            assert!(e.drop_in);
            assert_eq!(e.file, "d/v1.conf");
            assert_eq!(
                e.to_string(),
                format!("loading drop-in registries configuration \"d/v1.conf\": line {line}: registry must be in v2 format but is in v1")
            );
        }
    }

    /// Ported from TestInvalidMirrorConfig.
    #[test]
    fn invalid_mirror_config() {
        for (text, want) in [
            (td::INVALID_CONFIG_LEVEL_MIRROR, "pull-from-mirror must not be set for a non-mirror registry \"registry-a.com/foo\""),
            (td::INVALID_CONFLICT_MIRROR, "cannot set mirror usage mirror-by-digest-only for the registry (\"registry-a.com/foo\") and pull-from-mirror for per-mirror (\"mirror-1.registry-a.com\") at the same time"),
            (td::INVALID_VALUE_MIRROR, "unsupported pull-from-mirror value \"notvalid\" for mirror \"mirror-1.registry-a.com\""),
        ] {
            assert_eq!(load_one(text).unwrap_err().message, want);
        }
    }

    /// Section 3.3 steps 1-4, one rule per row, in the order upstream checks them.
    #[test]
    fn per_entry_validation() {
        for (text, want) in [
            ("[[registry]]\n", Err("invalid condition: both location and prefix are unset")),
            ("[[registry]]\nprefix = \"\"\nlocation = \"///\"\n", Err("invalid condition: both location and prefix are unset")),
            ("[[registry]]\nprefix = \"a.io\"\n", Err("invalid condition: location is unset and prefix is not in the format: *.example.com")),
            ("[[registry]]\nprefix = \"**.a.io\"\n", Err("invalid condition: location is unset and prefix is not in the format: *.example.com")),
            ("[[registry]]\nprefix = \"*.a.io\"\n", Ok(("*.a.io", ""))),
            ("[[registry]]\nprefix = \"*.a.io/\"\n", Ok(("*.a.io", ""))),
            ("[[registry]]\nprefix = \"*\"\nlocation = \"b.io\"\n", Ok(("*", "b.io"))),
            ("[[registry]]\nprefix = \"https://a.io\"\nlocation = \"b.io\"\n", Err("invalid location 'https://a.io': URI schemes are not supported")),
            ("[[registry]]\nprefix = \"a.io\"\nlocation = \"http://b.io\"\n", Err("invalid location 'http://b.io': URI schemes are not supported")),
            ("[[registry]]\nprefix = \"a.io//\"\nlocation = \"b.io/x/\"\n", Ok(("a.io", "b.io/x"))),
            ("[[registry]]\nlocation = \"b.io/x/\"\n", Ok(("b.io/x", "b.io/x"))),
            ("[[registry]]\nlocation = \"a.io\"\npull-from-mirror = \"all\"\n", Err("pull-from-mirror must not be set for a non-mirror registry \"a.io\"")),
            ("[[registry]]\nlocation = \"a.io\"\npull-from-mirror = \"\"\n", Ok(("a.io", "a.io"))),
            ("[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"https://m.io\"\n", Err("invalid location 'https://m.io': URI schemes are not supported")),
            ("[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"/\"\npull-from-mirror = \"bad\"\n", Err("invalid condition: mirror location is unset")),
            ("[[registry]]\nlocation = \"a.io\"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = \"m.io\"\npull-from-mirror = \"all\"\n", Err("cannot set mirror usage mirror-by-digest-only for the registry (\"a.io\") and pull-from-mirror for per-mirror (\"m.io\") at the same time")),
            ("[[registry]]\nlocation = \"a.io\"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = \"m.io\"\npull-from-mirror = \"bad\"\n", Err("cannot set mirror usage mirror-by-digest-only for the registry (\"a.io\") and pull-from-mirror for per-mirror (\"m.io\") at the same time")),
            ("[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"m.io\"\npull-from-mirror = \"Digest-Only\"\n", Err("unsupported pull-from-mirror value \"Digest-Only\" for mirror \"m.io\"")),
            ("[[registry]]\nprefix = \"*.a.io:5000\"\nlocation = \"b.io\"\n", Err("Wildcarded prefix should be in the format: *.example.com. Current prefix \"*.a.io:5000\" is incorrectly formatted")),
            ("[[registry]]\nprefix = \"*.a.io/ns\"\nlocation = \"b.io\"\n", Err("Wildcarded prefix should be in the format: *.example.com. Current prefix \"*.a.io/ns\" is incorrectly formatted")),
            ("[[registry]]\nprefix = \"*.a.io@x\"\n", Err("Wildcarded prefix should be in the format: *.example.com. Current prefix \"*.a.io@x\" is incorrectly formatted")),
        ] {
            match (load_one(text), want) {
                (Ok(conf), Ok((prefix, location))) => {
                    assert_eq!(conf.registries.len(), 1, "{text}");
                    assert_eq!((conf.registries[0].prefix.as_str(), conf.registries[0].location.as_str()), (prefix, location), "{text}");
                }
                (Err(e), Err(want)) => assert_eq!(e.message, want, "{text}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// Section 3.3: the checks run in upstream's order across the file, so
    /// an earlier rule wins over an earlier entry.
    #[test]
    fn validation_order_across_entries() {
        // Entry checks (all entries) before the conflict check.
        let text = "[[registry]]\nlocation = \"a.io\"\n[[registry]]\nlocation = \"a.io\"\ninsecure = true\n[[registry]]\nlocation = \"https://b.io\"\n";
        assert!(
            err_of(text)
                .contains("[[registry]] #3 (line 6, location \"https://b.io\"): invalid location"),
            "{}",
            err_of(text)
        );
        // The conflict check before search registries.
        let text = "unqualified-search-registries = [\"x/y\"]\n[[registry]]\nlocation = \"a.io\"\n[[registry]]\nlocation = \"a.io\"\ninsecure = true\n";
        assert!(
            err_of(text).contains("conflicting 'insecure'"),
            "{}",
            err_of(text)
        );
        // Search registries before short-name-mode.
        let text = "unqualified-search-registries = [\"x/y\"]\nshort-name-mode = \"prompt\"\n";
        assert!(
            err_of(text).contains("Invalid unqualified-search-registries entry"),
            "{}",
            err_of(text)
        );
        // short-name-mode before wildcard prefixes.
        let text = "short-name-mode = \"prompt\"\n[[registry]]\nprefix = \"*.a.io:1\"\nlocation = \"b.io\"\n";
        assert_eq!(
            load_one(text).unwrap_err().message,
            "invalid short-name mode: \"prompt\""
        );
        // Wildcard prefixes before aliases.
        let text = "[[registry]]\nprefix = \"*.a.io:1\"\nlocation = \"b.io\"\n[aliases]\n\"a.io/x\" = \"y\"\n";
        assert!(load_one(text)
            .unwrap_err()
            .message
            .starts_with("Wildcarded prefix"));
        // Wildcard errors are found in prefix order, after duplicates are dropped.
        let text = "[[registry]]\nprefix = \"*.b.io/x\"\nlocation = \"b.io\"\n[[registry]]\nprefix = \"*.a.io/x\"\nlocation = \"a.io\"\n";
        assert_eq!(
            err_of(text),
            "loading registries configuration \"test.conf\": [[registry]] #2 (line 4, prefix \"*.a.io/x\"): \
             Wildcarded prefix should be in the format: *.example.com. Current prefix \"*.a.io/x\" is incorrectly formatted"
        );
    }

    /// Section 3.3 step 6: entries are grouped by location (or prefix when
    /// there is none), across different prefixes.
    #[test]
    fn insecure_and_blocked_conflicts() {
        for (text, want) in [
            ("[[registry]]\nprefix = \"a.io\"\nlocation = \"m.io\"\n[[registry]]\nprefix = \"b.io\"\nlocation = \"m.io/\"\nblocked = true\n", Some("registry 'm.io' is defined multiple times with conflicting 'blocked' setting")),
            ("[[registry]]\nprefix = \"*.a.io\"\n[[registry]]\nprefix = \"*.a.io\"\ninsecure = true\n", Some("registry '' is defined multiple times with conflicting 'insecure' setting")),
            ("[[registry]]\nprefix = \"*.a.io\"\n[[registry]]\nprefix = \"*.b.io\"\ninsecure = true\n", None),
            ("[[registry]]\nprefix = \"a.io\"\nlocation = \"m.io\"\n[[registry]]\nlocation = \"a.io\"\ninsecure = true\n", None),
            ("[[registry]]\nlocation = \"a.io\"\ninsecure = true\nblocked = true\n[[registry]]\nlocation = \"a.io\"\n", Some("registry 'a.io' is defined multiple times with conflicting 'insecure' setting")),
            ("[[registry]]\nlocation = \"a.io\"\ninsecure = true\n[[registry]]\nlocation = \"a.io\"\ninsecure = true\nblocked = true\n", Some("registry 'a.io' is defined multiple times with conflicting 'blocked' setting")),
            ("[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"m.io\"\ninsecure = true\n[[registry]]\nlocation = \"m.io\"\n", None),
        ] {
            let got = load_one(text).err().map(|e| e.message);
            match want {
                Some(want) => assert!(got.as_deref().is_some_and(|g| g.starts_with(want)), "{text}: {got:?}"),
                None => assert_eq!(got, None, "{text}"),
            }
        }
    }

    /// The linear conflict check reports what upstream's pairwise loop
    /// reports, on many generated files.
    #[test]
    fn conflict_check_matches_the_pairwise_loop() {
        fn pairwise(regs: &[Registry]) -> Option<String> {
            for r in regs {
                let key = |x: &Registry| {
                    if x.location.is_empty() {
                        x.prefix.clone()
                    } else {
                        x.location.clone()
                    }
                };
                for o in regs.iter().filter(|o| key(o) == key(r)) {
                    if r.insecure != o.insecure {
                        return Some(format!("registry '{}' is defined multiple times with conflicting 'insecure' setting", r.location));
                    }
                    if r.blocked != o.blocked {
                        return Some(format!("registry '{}' is defined multiple times with conflicting 'blocked' setting", r.location));
                    }
                }
            }
            None
        }
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..2000 {
            let count = 1 + next(6);
            let mut text = String::new();
            let mut regs = Vec::new();
            for i in 0..count {
                let location = ["a.io", "b.io", ""][next(3) as usize];
                let prefix = if location.is_empty() {
                    format!("*.w{}.io", next(2))
                } else {
                    format!("p{i}.io")
                };
                let (insecure, blocked) = (next(4) == 0, next(4) == 0);
                text.push_str(&format!("[[registry]]\nprefix = \"{prefix}\"\nlocation = \"{location}\"\ninsecure = {insecure}\nblocked = {blocked}\n"));
                regs.push(Registry {
                    prefix,
                    location: location.to_string(),
                    insecure,
                    blocked,
                    ..Default::default()
                });
            }
            let got = load_one(&text).err().map(|e| e.message);
            let want = pairwise(&regs);
            assert_eq!(
                got.as_deref().map(|g| g.split(" (").next().unwrap()),
                want.as_deref(),
                "{text}"
            );
        }
    }

    /// Section 3.3 step 8: the first entry with a prefix wins, silently;
    /// the rest are sorted byte-wise.
    #[test]
    fn duplicate_prefixes_keep_the_first() {
        let text = "[[registry]]\nprefix = \"b.io\"\nlocation = \"first.io\"\n\
                    [[registry]]\nprefix = \"a.io\"\nlocation = \"x.io\"\n\
                    [[registry]]\nprefix = \"b.io/\"\nlocation = \"second.io\"\n\
                    [[registry]]\nprefix = \"*.b.io\"\nlocation = \"w.io\"\n\
                    [[registry]]\nprefix = \"B.io\"\nlocation = \"upper.io\"\n";
        let conf = load_one(text).unwrap();
        assert_eq!(prefixes(&conf), ["*.b.io", "B.io", "a.io", "b.io"]);
        assert_eq!(conf.registries[3].location, "first.io");
        assert_eq!(
            conf.registries[3].origins,
            [Origin::file_line("test.conf", 1)]
        );
    }

    /// Ported from TestParseShortNameMode; upstream also rejects "" there,
    /// but `loadConfigFile` never parses an empty mode, which is what `None` says.
    #[test]
    fn short_name_modes() {
        for (input, want) in [
            ("disabled", Ok(Some(ShortNameMode::Disabled))),
            ("enforcing", Ok(Some(ShortNameMode::Enforcing))),
            ("permissive", Ok(Some(ShortNameMode::Permissive))),
            ("", Ok(None)),
            ("xxx", Err("invalid short-name mode: \"xxx\"".to_string())),
            (
                "prompt",
                Err("invalid short-name mode: \"prompt\"".to_string()),
            ),
            (
                "Enforcing",
                Err("invalid short-name mode: \"Enforcing\"".to_string()),
            ),
        ] {
            assert_eq!(parse_short_name_mode(input), want, "{input}");
        }
    }

    /// Ported from TestGetShortNameMode (`None` means the permissive default).
    #[test]
    fn short_name_mode_from_files() {
        for (text, want) in [
            (td::ALIASES, Some(ShortNameMode::Enforcing)),
            (td::DROP_IN_CONFIG_2, Some(ShortNameMode::Permissive)),
            (td::DROP_IN_CONFIG_3, None),
        ] {
            assert_eq!(load_one(text).unwrap().short_name_mode, want);
        }
        let e = load_one(td::INVALID_SHORT_NAME_MODE).unwrap_err();
        assert_eq!(
            e.to_string(),
            "loading registries configuration \"test.conf\": short-name-mode (line 1): invalid short-name mode: \"invalid\""
        );
        let conf = load_files(
            ("aliases.conf", td::ALIASES),
            &[
                ("d/2.conf", td::DROP_IN_CONFIG_2),
                ("d/3.conf", "short-name-mode = \"\"\n"),
            ],
        )
        .unwrap();
        assert_eq!(conf.short_name_mode, Some(ShortNameMode::Permissive));
        assert_eq!(
            conf.short_name_mode_origin,
            Some(Origin::file_line("d/2.conf", 1))
        );
    }

    /// Ported from TestCredentialHelpers.
    #[test]
    fn credential_helpers() {
        for (main, drop_ins, want) in [
            (td::CRED_HELPER, vec![], vec!["helper-1", "helper-2"]),
            ("", vec![], vec!["containers-auth.json"]),
            (
                td::CRED_HELPER,
                vec![("d/empty.conf", td::EMPTY_HELPERS_DROP_IN)],
                vec!["containers-auth.json"],
            ),
            (
                td::CRED_HELPER,
                td::REGISTRIES_CONF_D.to_vec(),
                vec!["dropin-1", "dropin-2"],
            ),
            (
                td::CRED_HELPER,
                vec![("d/none.conf", td::NO_USR_DROP_IN)],
                vec!["helper-1", "helper-2"],
            ),
        ] {
            let conf = load_files(("main.conf", main), &drop_ins).unwrap();
            assert_eq!(conf.credential_helpers, want, "{drop_ins:?}");
        }
    }

    /// Ported from TestTryUpdatingCache: a valid file, and one that is not TOML.
    #[test]
    fn try_updating_cache() {
        assert_eq!(
            load_one(td::TRY_UPDATE_CACHE_VALID)
                .unwrap()
                .registries
                .len(),
            1
        );
        let e = load_files(
            (
                "testdata/try-update-cache-invalid.conf",
                td::TRY_UPDATE_CACHE_INVALID,
            ),
            &[],
        )
        .unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(
            e.to_string().starts_with("loading registries configuration \"testdata/try-update-cache-invalid.conf\": line 1, column 8: "),
            "{e}"
        );
    }

    /// A malformed file names the file and the line; a type error fails the file.
    #[test]
    fn toml_errors_name_file_and_line() {
        for (text, line) in [
            ("[[registry]]\nlocation = \"a.io\"\n\n[[registry]\n", 4),
            (
                "unqualified-search-registries = [\"a.io\",\n  \"b.io\"\n",
                2,
            ),
            ("[[registry]]\nlocation = \"a.io\"\ninsecure = \"yes\"\n", 3),
            (
                "[[registry]]\nlocation = \"a.io\"\nlocation = \"b.io\"\n",
                3,
            ),
            ("[[registry]]\nlocation = 5\n", 2),
            ("unqualified-search-registries = \"a.io\"\n", 1),
            ("[aliases]\nfoo = 1\n", 2),
            ("[[registry.mirror]]\nlocation = \"m.io\"\n", 1),
        ] {
            let e = load_files(("dir/bad.conf", text), &[]).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}\n{e}");
            let want =
                format!("loading registries configuration \"dir/bad.conf\": line {line}, column ");
            assert!(e.to_string().starts_with(&want), "{e}");
            let e = load_files(("main.conf", ""), &[("d/bad.conf", text)]).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("loading drop-in registries configuration \"d/bad.conf\": line "),
                "{e}"
            );
        }
    }

    /// Section 3.1: unknown keys are ignored (so a typo silently does
    /// nothing), and keys match case-insensitively as BurntSushi/toml does.
    #[test]
    fn unknown_keys_ignored_and_case_folded() {
        let conf = load_one(
            "[[registry]]\nlocation = \"a.io\"\nmirror-by-digest-onyl = true\nweird = { x = 1 }\n",
        )
        .unwrap();
        assert!(!conf.registries[0].mirror_by_digest_only);
        let conf = load_one(
            "Unqualified-Search-Registries = [\"q.io\"]\n[[REGISTRY]]\nPrefix = \"a.io\"\nLOCATION = \"b.io\"\nBlocked = true\n\
             [[REGISTRY.Mirror]]\nlocation = \"m.io\"\nInsecure = true\nPull-From-Mirror = \"tag-only\"\n",
        )
        .unwrap();
        assert_eq!(conf.unqualified_search_registries, ["q.io"]);
        let r = &conf.registries[0];
        assert_eq!(
            (r.prefix.as_str(), r.location.as_str(), r.blocked),
            ("a.io", "b.io", true)
        );
        assert_eq!(r.mirrors[0].pull_from_mirror, PullFromMirror::TagOnly);
        assert!(r.mirrors[0].insecure);
        let e =
            load_one("[Registries.Search]\nRegistries = []\nunqualified-search-registries = []\n")
                .unwrap();
        assert!(
            e.unqualified_search_registries.is_empty(),
            "the key is inside the v1 table"
        );
        let e =
            load_one("unqualified-search-registries = []\n[Registries.Search]\nRegistries = []\n")
                .unwrap_err();
        assert_eq!(e.message, "mixing sysregistry v1/v2 is not supported");
    }

    /// Origins: each entry and mirror at its table header, aliases and the
    /// search list and mode at their lines.
    #[test]
    fn origins_point_at_lines() {
        let text = "# comment\nunqualified-search-registries = [\"q.io\"]\nshort-name-mode = \"enforcing\"\n\n\
                    [[registry]]\nprefix = \"b.io\"\nlocation = \"b.io\"\n\n  [[registry.mirror]]\n  location = \"m1.io\"\n\n  [[registry.mirror]]\n  location = \"m2.io\"\n\
                    [[registry]]\nlocation = \"a.io\"\n[aliases]\nfoo = \"q.io/foo\"\n\n\"ns/bar\" = \"\"\n";
        for drop_in in [false, true] {
            let conf = if drop_in {
                load_files(("main.conf", ""), &[("f.conf", text)]).unwrap()
            } else {
                load_files(("f.conf", text), &[]).unwrap()
            };
            let o = |l| Origin::file_line("f.conf", l);
            assert_eq!(conf.registries[0].origins, [o(14)]);
            assert_eq!(conf.registries[1].origins, [o(5)]);
            let m: Vec<_> = conf.registries[1]
                .mirrors
                .iter()
                .map(|m| m.origins.clone())
                .collect();
            assert_eq!(m, [vec![o(9)], vec![o(12)]]);
            assert_eq!(conf.search_registries_origin, Some(o(2)));
            assert_eq!(conf.short_name_mode_origin, Some(o(3)));
            assert_eq!(
                conf.aliases["foo"],
                Alias {
                    value: Some("q.io/foo".to_string()),
                    origin: o(17)
                }
            );
            assert_eq!(
                conf.aliases["ns/bar"],
                Alias {
                    value: None,
                    origin: o(19)
                }
            );
        }
    }

    /// Ported from TestParseShortNameValue.
    #[test]
    fn short_name_values() {
        for (input, want) in [
            ("docker.io/library/fedora", Ok("docker.io/library/fedora")),
            ("localhost/fedora", Ok("localhost/fedora")),
            ("localhost:5000/fedora", Ok("localhost:5000/fedora")),
            ("localhost:5000/namespace/fedora", Ok("localhost:5000/namespace/fedora")),
            ("docker.io/fedora", Ok("docker.io/library/fedora")),
            ("docker.io/library/fedora:latest", Err("invalid alias \"docker.io/library/fedora:latest\": must not contain tag")),
            ("docker.io/library/fedora@sha256:b87dd5f837112a9e1e9882963a6406387597698268c0ad371b187151a5dfe6bf", Err("invalid alias \"docker.io/library/fedora@sha256:b87dd5f837112a9e1e9882963a6406387597698268c0ad371b187151a5dfe6bf\": must not contain digest")),
            ("fedora", Err("invalid alias \"fedora\": must contain registry and repository")),
            ("fedora:latest", Err("invalid alias \"fedora:latest\": must not contain tag")),
            ("library/fedora", Err("invalid alias \"library/fedora\": must contain registry and repository")),
            ("library/fedora:latest", Err("invalid alias \"library/fedora:latest\": must not contain tag")),
            ("$$4455%%", Err("parsing alias \"$$4455%%\": invalid reference format")),
            ("docker://foo", Err("parsing alias \"docker://foo\": invalid reference format")),
            ("docker-archive://foo", Err("parsing alias \"docker-archive://foo\": invalid reference format")),
            ("", Err("parsing alias \"\": repository name must have at least one component")),
            // From TestInvalidAliases (values `AddShortNameAlias` refuses).
            ("aliases", Err("invalid alias \"aliases\": must contain registry and repository")),
            ("aliases.conf", Err("invalid alias \"aliases.conf\": must contain registry and repository")),
            (" ", Err("parsing alias \" \": invalid reference format")),
            ("$$$", Err("parsing alias \"$$$\": invalid reference format")),
        ] {
            match (parse_short_name_value(input), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{input}"),
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{input}: {got}"),
                (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// Ported from TestValidateShortName.
    #[test]
    fn short_name_keys() {
        for (input, want) in [
            ("library/fedora", Ok(())),
            ("fedora", Ok(())),
            ("1234567489", Ok(())),
            ("docker.io/library/fedora:latest", Err("invalid short name \"docker.io/library/fedora:latest\": must not contain tag")),
            ("docker.io/library/fedora@sha256:b87dd5f837112a9e1e9882963a6406387597698268c0ad371b187151a5dfe6bf", Err("invalid short name \"docker.io/library/fedora@sha256:b87dd5f837112a9e1e9882963a6406387597698268c0ad371b187151a5dfe6bf\": must not contain digest")),
            ("fedora:latest", Err("invalid short name \"fedora:latest\": must not contain tag")),
            ("library/fedora:latest", Err("invalid short name \"library/fedora:latest\": must not contain tag")),
            ("docker.io/library/fedora", Err("invalid short name \"docker.io/library/fedora\": must not contain registry")),
            ("localhost/fedora", Err("invalid short name \"localhost/fedora\": must not contain registry")),
            ("$$4455%%", Err("cannot parse short name: \"$$4455%%\": invalid reference format")),
            ("docker://foo", Err("cannot parse short name: \"docker://foo\": invalid reference format")),
            ("docker-archive://foo", Err("cannot parse short name: \"docker-archive://foo\": invalid reference format")),
            ("", Err("cannot parse short name: \"\": repository name must have at least one component")),
        ] {
            match (validate_short_name(input), want) {
                (Ok(()), Ok(())) => {}
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{input}: {got}"),
                (got, want) => panic!("{input}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// Ported from TestResolveShortNameAlias: values normalized, the
    /// tombstone kept with its file.
    #[test]
    fn aliases_conf() {
        let conf = load_files(("testdata/aliases.conf", td::ALIASES), &[]).unwrap();
        assert_eq!(conf.aliases.len(), 4);
        for (name, value, line) in [
            ("docker", Some("docker.io/library/foo"), 4),
            ("quay/foo", Some("quay.io/library/foo"), 5),
            ("example", Some("example.com/library/foo"), 6),
            ("empty", None, 7),
        ] {
            assert_eq!(
                conf.aliases[name],
                Alias {
                    value: value.map(str::to_string),
                    origin: Origin::file_line("testdata/aliases.conf", line)
                },
                "{name}"
            );
        }
        assert!(!conf.aliases.contains_key("idonotexist"));
    }

    /// Ported from TestAliasesWithDropInConfigs (the registries.conf part;
    /// the machine-written short-name-aliases.conf is not modelled).
    #[test]
    fn aliases_with_drop_ins() {
        let conf = load_files(
            ("testdata/aliases.conf", td::ALIASES),
            td::REGISTRIES_CONF_D,
        )
        .unwrap();
        assert_eq!(conf.aliases.len(), 8);
        for (name, value, file) in [
            (
                "docker",
                Some("docker.io/library/config1"),
                "registries.conf.d/config-1.conf",
            ),
            (
                "quay/foo",
                Some("quay.io/library/foo"),
                "testdata/aliases.conf",
            ),
            (
                "config1",
                Some("config1.com/image"),
                "registries.conf.d/config-1.conf",
            ),
            (
                "barz",
                Some("barz.com/config2"),
                "registries.conf.d/config-2.conf",
            ),
            (
                "config2",
                Some("config2.com/image"),
                "registries.conf.d/config-2.conf",
            ),
            (
                "added3",
                Some("xxx.com/image"),
                "registries.conf.d/config-2.conf",
            ),
            ("example", None, "registries.conf.d/config-2.conf"),
            ("empty", None, "testdata/aliases.conf"),
        ] {
            let a = &conf.aliases[name];
            assert_eq!(a.value.as_deref(), value, "{name}");
            assert!(
                a.origin.as_str().starts_with(&format!("{file}:")),
                "{name}: {}",
                a.origin
            );
        }
        assert_eq!(conf.short_name_mode, Some(ShortNameMode::Permissive));
    }

    /// Ported from TestInvalidAliases: every bad alias is reported, and the file fails.
    #[test]
    fn invalid_aliases() {
        let e = load_one(td::INVALID_ALIASES).unwrap_err();
        assert_eq!(
            e.to_string(),
            "loading registries configuration \"test.conf\": [aliases] (line 2): validating short-name aliases: \
             invalid alias \"quay.io/repo/image:1\": must not contain tag; \
             invalid alias \"image:1\": must not contain tag"
        );
        // A bad name and a bad value on the same line are both reported.
        let e = load_one("[aliases]\n\"a.io/x\" = \"y\"\n").unwrap_err();
        assert_eq!(
            e.message,
            "validating short-name aliases: invalid short name \"a.io/x\": must not contain registry; \
             invalid alias \"y\": must contain registry and repository"
        );
        // A bad name fails the file even with a tombstone value.
        assert!(load_one("[aliases]\n\"x:1\" = \"\"\n").is_err());
    }

    /// Ported from TestRegistriesConfDirectory: drop-ins replace entries as
    /// a whole, set the search list and its origin, and the cross-file
    /// insecure/blocked conflict is not checked.
    #[test]
    fn registries_conf_directory() {
        let conf = load_files(
            (
                "testdata/base-for-registries.d.conf",
                td::BASE_FOR_REGISTRIES_D,
            ),
            td::REGISTRIES_CONF_D,
        )
        .unwrap();
        assert_eq!(
            conf.unqualified_search_registries,
            ["example-overwrite.com"]
        );
        assert_eq!(
            locations(&conf),
            [
                "subdomain-prefix-3-overridden-by-dropin-location.com",
                "subdomain-prefix-2-overridden-by-dropin-location.com",
                "subdomain-prefix-1-overridden-by-dropin-location.com",
                "1.com",
                "2.com",
                "base.com"
            ]
        );
        let base = conf
            .registries
            .iter()
            .find(|r| r.prefix == "base.com")
            .unwrap();
        assert!(
            base.blocked && !base.insecure,
            "replaced as a whole by config-2"
        );
        assert_eq!(
            base.origins,
            [Origin::file_line("registries.conf.d/config-2.conf", 11)]
        );
        assert_eq!(
            conf.search_registries_file.as_deref(),
            Some("registries.conf.d/config-1.conf")
        );
        assert_eq!(
            conf.search_registries_origin,
            Some(Origin::file_line("registries.conf.d/config-1.conf", 1))
        );
        assert_eq!(conf.files.len(), 7);

        let conf = load_files(
            ("testdata/unqualified-search.conf", td::UNQUALIFIED_SEARCH),
            &[("usr1/no-usr.conf", td::NO_USR_DROP_IN)],
        )
        .unwrap();
        assert_eq!(
            conf.unqualified_search_registries,
            ["registry-a.com", "registry-c.com", "registry-d.com"]
        );
        assert_eq!(
            conf.search_registries_file.as_deref(),
            Some("testdata/unqualified-search.conf")
        );

        let conf = load_files(
            ("testdata/unqualified-search.conf", td::UNQUALIFIED_SEARCH),
            &[("usr2/empty-usr.conf", td::EMPTY_USR_DROP_IN)],
        )
        .unwrap();
        assert!(conf.unqualified_search_registries.is_empty());
        assert_eq!(
            conf.search_registries_file.as_deref(),
            Some("usr2/empty-usr.conf")
        );
    }

    /// Section 3.4: whole-entry replacement (mirrors are not merged), new
    /// prefixes added in order, aliases merged with tombstones, and files
    /// without a main file.
    #[test]
    fn drop_in_merge_rules() {
        let main = "[[registry]]\nlocation = \"a.io\"\nmirror-by-digest-only = true\n[[registry.mirror]]\nlocation = \"m1.io\"\n\
                    [[registry]]\nlocation = \"c.io\"\n[aliases]\nfoo = \"a.io/foo\"\nbar = \"a.io/bar\"\n";
        let drop_in =
            "[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"m2.io\"\n\
                       [[registry]]\nlocation = \"b.io\"\n[aliases]\nfoo = \"\"\n";
        let conf = load_files(("main.conf", main), &[("d.conf", drop_in)]).unwrap();
        assert_eq!(prefixes(&conf), ["a.io", "b.io", "c.io"]);
        let a = &conf.registries[0];
        assert!(!a.mirror_by_digest_only);
        assert_eq!(
            a.mirrors
                .iter()
                .map(|m| m.location.as_str())
                .collect::<Vec<_>>(),
            ["m2.io"]
        );
        assert_eq!(conf.aliases["foo"].value, None);
        assert_eq!(conf.aliases["bar"].value.as_deref(), Some("a.io/bar"));
        // A drop-in may flip `insecure` for a location another file uses.
        let conf = load_files(
            (
                "main.conf",
                "[[registry]]\nprefix = \"x.io\"\nlocation = \"a.io\"\n",
            ),
            &[(
                "d.conf",
                "[[registry]]\nprefix = \"y.io\"\nlocation = \"a.io\"\ninsecure = true\n",
            )],
        )
        .unwrap();
        assert_eq!(prefixes(&conf), ["x.io", "y.io"]);
        // Without a main file.
        let d = [ConfigFile {
            name: "d.conf",
            text: "[[registry]]\nlocation = \"a.io\"\n",
        }];
        let conf = load(None, &d).unwrap();
        assert_eq!(prefixes(&conf), ["a.io"]);
        assert_eq!(conf.files, ["d.conf"]);
        assert_eq!(conf.search_registries_file, None);
        // A later drop-in's error names that file.
        let e = load_files(
            ("main.conf", main),
            &[("d.conf", drop_in), ("e.conf", "[[registry]]\n")],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "loading drop-in registries configuration \"e.conf\": [[registry]] #1 (line 1): invalid condition: both location and prefix are unset"
        );
    }

    #[test]
    fn go_quote_escapes_like_strconv_quote() {
        for (input, want) in [
            ("plain/path.conf", r#""plain/path.conf""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("tab\there\n", r#""tab\there\n""#),
            ("\u{1}\u{7f}", r#""\x01\x7f""#),
            ("héllo", "\"héllo\""),
            ("zero\u{200b}width\u{a0}", r#""zero\u200bwidth\u00a0""#),
            // Noncharacters (strconv.IsPrint is false for them).
            (
                "\u{fffe}\u{ffff}\u{fdd0}\u{1fffe}",
                r#""\ufffe\uffff\ufdd0\U0001fffe""#,
            ),
        ] {
            assert_eq!(crate::quote::go_quote(input), want, "{input:?}");
        }
    }
}
