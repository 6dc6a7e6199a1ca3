//! Reading registries.conf text: one file's validation
//! (`loadConfigFile` / `postProcessRegistries`) and merging drop-ins
//! (`updateWithConfigurationFrom`), as containers/image does.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use toml::Spanned;

use super::{Alias, Mirror, PullFromMirror, RegistriesConf, Registry, ShortNameMode};
use crate::origin::Origin;
use crate::reference::{is_qualified_domain, is_valid_domain, Reference};

/// One configuration file's text and the name to report it by.
#[derive(Debug, Clone, Copy)]
pub struct ConfigFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

/// Why a registries configuration cannot be loaded; names the file, and the
/// entry and line where one is at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("loading {kind}registries configuration \"{file}\": {location}{message}")]
pub struct RegistriesError {
    /// `"drop-in "` for drop-ins, empty for the main file.
    kind: &'static str,
    pub file: String,
    /// `line N: ` or `[[registry]] #N (line L): `, possibly empty.
    location: String,
    pub message: String,
}

impl RegistriesError {
    fn new(file: &ConfigFile<'_>, drop_in: bool, location: String, message: String) -> Self {
        Self {
            kind: if drop_in { "drop-in " } else { "" },
            file: file.name.to_string(),
            location,
            message,
        }
    }
}

#[derive(Deserialize, Default)]
pub(super) struct RawConfig {
    #[serde(rename = "unqualified-search-registries")]
    pub(super) unqualified_search_registries: Option<Spanned<Vec<String>>>,
    #[serde(rename = "credential-helpers")]
    pub(super) credential_helpers: Option<Vec<String>>,
    #[serde(rename = "short-name-mode")]
    pub(super) short_name_mode: Option<Spanned<String>>,
    #[serde(rename = "additional-layer-store-auth-helper")]
    pub(super) additional_layer_store_auth_helper: Option<String>,
    pub(super) aliases: Option<Spanned<BTreeMap<String, String>>>,
    #[serde(rename = "registry")]
    pub(super) registries: Option<Vec<Spanned<RawRegistry>>>,
    /// The v1 format: `[registries.search]`, `[registries.insecure]`, `[registries.block]`.
    #[serde(rename = "registries")]
    pub(super) v1: Option<RawV1>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawV1 {
    pub(super) search: Option<RawV1List>,
    pub(super) insecure: Option<RawV1List>,
    pub(super) block: Option<RawV1List>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawV1List {
    pub(super) registries: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawRegistry {
    pub(super) prefix: Option<String>,
    pub(super) location: Option<String>,
    pub(super) insecure: Option<bool>,
    pub(super) blocked: Option<bool>,
    #[serde(rename = "mirror-by-digest-only")]
    pub(super) mirror_by_digest_only: Option<bool>,
    #[serde(rename = "pull-from-mirror")]
    pub(super) pull_from_mirror: Option<String>,
    #[serde(rename = "mirror")]
    pub(super) mirrors: Option<Vec<Spanned<RawMirror>>>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawMirror {
    pub(super) location: Option<String>,
    pub(super) insecure: Option<bool>,
    #[serde(rename = "pull-from-mirror")]
    pub(super) pull_from_mirror: Option<String>,
}

/// Byte offsets of line starts, for turning spans into 1-based lines.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self(starts)
    }

    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&s| s <= offset)
    }

    fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line(offset);
        (line, offset - self.0[line - 1] + 1)
    }
}

/// One file after its own validation (before merging).
struct ParsedFile {
    registries: Vec<Registry>,
    unqualified_search_registries: Option<Vec<String>>,
    search_origin: Origin,
    credential_helpers: Option<Vec<String>>,
    short_name_mode: Option<ShortNameMode>,
    short_name_mode_origin: Origin,
    additional_layer_store_auth_helper: String,
    aliases: BTreeMap<String, Alias>,
}

/// containers/image `parseLocation`: trailing slashes stripped, URI schemes refused.
fn parse_location(mut input: String) -> Result<String, String> {
    if input.starts_with("http://") || input.starts_with("https://") {
        return Err(format!(
            "invalid location '{input}': URI schemes are not supported"
        ));
    }
    let len = input.trim_end_matches('/').len();
    input.truncate(len);
    Ok(input)
}

fn parse_pull_from_mirror(v: &str, location: &str) -> Result<PullFromMirror, String> {
    match v {
        "" => Ok(PullFromMirror::Unset),
        "all" => Ok(PullFromMirror::All),
        "digest-only" => Ok(PullFromMirror::DigestOnly),
        "tag-only" => Ok(PullFromMirror::TagOnly),
        _ => Err(format!(
            "unsupported pull-from-mirror value \"{v}\" for mirror \"{location}\""
        )),
    }
}

/// containers/image `validateShortName`.
fn validate_short_name(name: &str) -> Result<(), String> {
    let r =
        Reference::parse(name).map_err(|e| format!("cannot parse short name: \"{name}\": {e}"))?;
    if r.digest().is_some() {
        return Err(format!(
            "invalid short name \"{name}\": must not contain digest"
        ));
    }
    if r.tag().is_some() {
        return Err(format!(
            "invalid short name \"{name}\": must not contain tag"
        ));
    }
    if is_qualified_domain(r.domain()) {
        return Err(format!(
            "invalid short name \"{name}\": must not contain registry"
        ));
    }
    Ok(())
}

/// containers/image `parseShortNameValue`, then normalized.
fn parse_alias_value(alias: &str) -> Result<String, String> {
    let r = Reference::parse(alias).map_err(|e| format!("parsing alias \"{alias}\": {e}"))?;
    if r.digest().is_some() {
        return Err(format!(
            "invalid alias \"{alias}\": must not contain digest"
        ));
    }
    if r.tag().is_some() {
        return Err(format!("invalid alias \"{alias}\": must not contain tag"));
    }
    if !is_qualified_domain(r.domain()) {
        return Err(format!(
            "invalid alias \"{alias}\": must contain registry and repository"
        ));
    }
    Reference::parse_normalized_named(&r.to_string())
        .map(|n| n.name())
        .map_err(|e| format!("parsing alias \"{alias}\": {e}"))
}

fn parse_file(file: &ConfigFile<'_>, drop_in: bool) -> Result<ParsedFile, RegistriesError> {
    let lines = Lines::new(file.text);
    let err =
        |location: String, message: String| RegistriesError::new(file, drop_in, location, message);
    let parsed = match super::fast::parse(file.text) {
        Some(raw) => Ok(raw),
        None => toml::from_str(file.text),
    };
    let raw: RawConfig = parsed.map_err(|e| {
        let location = e
            .span()
            .map(|s| {
                let (l, c) = lines.line_col(s.start);
                format!("line {l}, column {c}: ")
            })
            .unwrap_or_default();
        err(location, e.message().trim().to_string())
    })?;
    let origin_at = |offset: usize| Origin::file_line(file.name, lines.line(offset));

    let v1 = raw.v1.unwrap_or_default();
    let v1_lists = [&v1.search, &v1.insecure, &v1.block];
    let has_v1 = v1_lists
        .iter()
        .any(|l| l.as_ref().is_some_and(|l| l.registries.is_some()));
    let has_v2 = raw.registries.is_some()
        || raw.unqualified_search_registries.is_some()
        || raw.credential_helpers.is_some()
        || raw
            .short_name_mode
            .as_ref()
            .is_some_and(|m| !m.get_ref().is_empty())
        || raw
            .additional_layer_store_auth_helper
            .as_ref()
            .is_some_and(|s| !s.is_empty())
        || raw.aliases.is_some();
    if has_v1 && has_v2 {
        return Err(err(
            String::new(),
            "mixing sysregistry v1/v2 is not supported".to_string(),
        ));
    }
    if has_v1 && drop_in {
        return Err(err(
            String::new(),
            "registry must be in v2 format but is in v1".to_string(),
        ));
    }

    let mut registries: Vec<Registry> = Vec::new();
    let mut search = raw
        .unqualified_search_registries
        .as_ref()
        .map(|s| s.get_ref().clone());
    let search_origin = raw
        .unqualified_search_registries
        .as_ref()
        .map_or_else(|| Origin::file(file.name), |s| origin_at(s.span().start));

    if has_v1 {
        let whole = Origin::file(file.name);
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut get = |host: &str,
                       registries: &mut Vec<Registry>|
         -> Result<usize, RegistriesError> {
            let location = parse_location(host.to_string()).map_err(|m| err(String::new(), m))?;
            Ok(*index.entry(location.clone()).or_insert_with(|| {
                registries.push(Registry {
                    prefix: location.clone(),
                    location,
                    origins: vec![whole.clone()],
                    ..Default::default()
                });
                registries.len() - 1
            }))
        };
        for host in v1.block.and_then(|l| l.registries).unwrap_or_default() {
            let i = get(&host, &mut registries)?;
            registries[i].blocked = true;
        }
        for host in v1.insecure.and_then(|l| l.registries).unwrap_or_default() {
            let i = get(&host, &mut registries)?;
            registries[i].insecure = true;
        }
        search = v1.search.and_then(|l| l.registries);
    }

    for (n, spanned) in raw.registries.into_iter().flatten().enumerate() {
        let line = lines.line(spanned.span().start);
        let r = spanned.into_inner();
        let at = |prefix: &str| {
            if prefix.is_empty() {
                format!("[[registry]] #{} (line {line}): ", n + 1)
            } else {
                format!(
                    "[[registry]] #{} (line {line}, prefix \"{prefix}\"): ",
                    n + 1
                )
            }
        };
        let raw_prefix = r.prefix.unwrap_or_default();
        let location =
            parse_location(r.location.unwrap_or_default()).map_err(|m| err(at(&raw_prefix), m))?;
        let prefix = if raw_prefix.is_empty() {
            if location.is_empty() {
                return Err(err(
                    at(""),
                    "invalid condition: both location and prefix are unset".to_string(),
                ));
            }
            location.clone()
        } else {
            let p = parse_location(raw_prefix.clone()).map_err(|m| err(at(&raw_prefix), m))?;
            if !p.starts_with("*.") && location.is_empty() {
                return Err(err(
                    at(&raw_prefix),
                    "invalid condition: location is unset and prefix is not in the format: *.example.com"
                        .to_string(),
                ));
            }
            p
        };
        if r.pull_from_mirror.as_deref().is_some_and(|v| !v.is_empty()) {
            return Err(err(
                at(&prefix),
                format!("pull-from-mirror must not be set for a non-mirror registry \"{prefix}\""),
            ));
        }
        let mirror_by_digest_only = r.mirror_by_digest_only.unwrap_or(false);
        let mut mirrors = Vec::new();
        for m in r.mirrors.into_iter().flatten() {
            let mline = lines.line(m.span().start);
            let raw_m = m.into_inner();
            let at_m = || {
                format!(
                    "[[registry]] #{} (line {line}, prefix \"{prefix}\"): [[registry.mirror]] (line {mline}): ",
                    n + 1
                )
            };
            let mloc = parse_location(raw_m.location.unwrap_or_default())
                .map_err(|msg| err(at_m(), msg))?;
            if mloc.is_empty() {
                return Err(err(
                    at_m(),
                    "invalid condition: mirror location is unset".to_string(),
                ));
            }
            let pfm = raw_m.pull_from_mirror.as_deref().unwrap_or_default();
            if mirror_by_digest_only && !pfm.is_empty() {
                return Err(err(
                    at_m(),
                    format!(
                        "cannot set mirror usage mirror-by-digest-only for the registry (\"{prefix}\") and pull-from-mirror for per-mirror (\"{mloc}\") at the same time"
                    ),
                ));
            }
            let pull_from_mirror =
                parse_pull_from_mirror(pfm, &mloc).map_err(|msg| err(at_m(), msg))?;
            mirrors.push(Mirror {
                location: mloc,
                insecure: raw_m.insecure.unwrap_or(false),
                pull_from_mirror,
                origins: vec![Origin::file_line(file.name, mline)],
            });
        }
        registries.push(Registry {
            prefix,
            location,
            insecure: r.insecure.unwrap_or(false),
            blocked: r.blocked.unwrap_or(false),
            mirror_by_digest_only,
            mirrors,
            origins: vec![Origin::file_line(file.name, line)],
        });
    }

    // All entries sharing a location (or, without one, a prefix) must agree.
    let mut seen: HashMap<&str, (bool, bool)> = HashMap::new();
    for r in &registries {
        let key = if r.location.is_empty() {
            &r.prefix
        } else {
            &r.location
        };
        if let Some(&(insecure, blocked)) = seen.get(key.as_str()) {
            if insecure != r.insecure {
                return Err(err(
                    String::new(),
                    format!("registry '{key}' is defined multiple times with conflicting 'insecure' setting"),
                ));
            }
            if blocked != r.blocked {
                return Err(err(
                    String::new(),
                    format!("registry '{key}' is defined multiple times with conflicting 'blocked' setting"),
                ));
            }
        } else {
            seen.insert(key, (r.insecure, r.blocked));
        }
    }

    if let Some(list) = &mut search {
        for entry in list.iter_mut() {
            let loc = parse_location(entry.clone()).map_err(|m| err(String::new(), m))?;
            if !is_valid_domain(&loc) {
                return Err(err(
                    String::new(),
                    format!("Invalid unqualified-search-registries entry \"{loc}\""),
                ));
            }
            *entry = loc;
        }
    }

    // Duplicate prefixes: the first wins, silently; then byte-wise order.
    // A stable sort keeps file order among equal prefixes, so the first of
    // each run is the one upstream keeps.
    registries.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    registries.dedup_by(|later, earlier| later.prefix == earlier.prefix);

    let (short_name_mode, short_name_mode_origin) = match &raw.short_name_mode {
        Some(m) => {
            let mode = parse_short_name_mode(m.get_ref())
                .map_err(|msg| err(format!("line {}: ", lines.line(m.span().start)), msg))?;
            (mode, origin_at(m.span().start))
        }
        None => (None, Origin::file(file.name)),
    };

    for r in &registries {
        if r.prefix.starts_with("*.") && r.prefix.contains(['/', '@', ':']) {
            return Err(err(
                String::new(),
                format!(
                    "Wildcarded prefix should be in the format: *.example.com. Current prefix \"{}\" is incorrectly formatted",
                    r.prefix
                ),
            ));
        }
    }

    let mut aliases = BTreeMap::new();
    if let Some(spanned) = &raw.aliases {
        let origin = origin_at(spanned.span().start);
        let mut problems = Vec::new();
        for (name, value) in spanned.get_ref() {
            if let Err(e) = validate_short_name(name) {
                problems.push(e);
                continue;
            }
            if value.is_empty() {
                aliases.insert(
                    name.clone(),
                    Alias {
                        value: None,
                        origin: origin.clone(),
                    },
                );
                continue;
            }
            match parse_alias_value(value) {
                Ok(v) => {
                    aliases.insert(
                        name.clone(),
                        Alias {
                            value: Some(v),
                            origin: origin.clone(),
                        },
                    );
                }
                Err(e) => problems.push(e),
            }
        }
        if !problems.is_empty() {
            return Err(err(
                String::new(),
                format!("validating short-name aliases: {}", problems.join("; ")),
            ));
        }
    }

    Ok(ParsedFile {
        registries,
        unqualified_search_registries: search,
        search_origin,
        credential_helpers: raw.credential_helpers,
        short_name_mode,
        short_name_mode_origin,
        additional_layer_store_auth_helper: raw
            .additional_layer_store_auth_helper
            .unwrap_or_default(),
        aliases,
    })
}

/// Parses `short-name-mode`; empty means unset.
pub fn parse_short_name_mode(s: &str) -> Result<Option<ShortNameMode>, String> {
    match s {
        "" => Ok(None),
        "enforcing" => Ok(Some(ShortNameMode::Enforcing)),
        "permissive" => Ok(Some(ShortNameMode::Permissive)),
        "disabled" => Ok(Some(ShortNameMode::Disabled)),
        _ => Err(format!("invalid short-name mode: \"{s}\"")),
    }
}

/// Loads the main file (if any) and the drop-ins, in order, with the
/// upstream merge rules: a drop-in's `[[registry]]` replaces the entry with
/// the same prefix as a whole; lists and modes are replaced when set;
/// aliases merge, later files winning, `""` erasing.
pub fn load(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
) -> Result<RegistriesConf, RegistriesError> {
    let mut conf = RegistriesConf::default();
    let mut merged: Vec<Registry> = Vec::new();
    let files = main
        .map(|m| (m, false))
        .into_iter()
        .chain(drop_ins.iter().map(|d| (d, true)));
    for (file, drop_in) in files {
        let parsed = parse_file(file, drop_in)?;
        conf.files.push(file.name.to_string());
        merged = if merged.is_empty() {
            parsed.registries
        } else {
            merge_registries(merged, parsed.registries)
        };
        if let Some(usr) = parsed.unqualified_search_registries {
            conf.unqualified_search_registries = usr;
            conf.search_registries_origin = Some(parsed.search_origin);
        }
        if let Some(helpers) = parsed.credential_helpers {
            conf.credential_helpers = helpers;
        }
        if let Some(mode) = parsed.short_name_mode {
            conf.short_name_mode = Some(mode);
            conf.short_name_mode_origin = Some(parsed.short_name_mode_origin);
        }
        let _ = parsed.additional_layer_store_auth_helper;
        conf.aliases.extend(parsed.aliases);
    }
    conf.registries = merged;
    if conf.credential_helpers.is_empty() {
        conf.credential_helpers = vec!["containers-auth.json".to_string()];
    }
    Ok(conf)
}

/// Merges a later file's entries (sorted, unique) into the current ones
/// (sorted, unique): an entry with the same prefix is replaced as a whole.
fn merge_registries(current: Vec<Registry>, later: Vec<Registry>) -> Vec<Registry> {
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
