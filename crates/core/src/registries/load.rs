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

use std::collections::BTreeMap;
use std::fmt;

use foldhash::{HashMap, HashMapExt};
use serde::de::DeserializeOwned;
use toml::Spanned;

use super::raw::{RawConfig, RawMirror, RawRegistry, RawV1};
use super::written::Written;
use super::{Alias, Mirror, PullFromMirror, RegistriesConf, Registry, ShortNameMode};
use crate::crio::{NodeRuntime, TomlReader};
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
    /// Set when the node may load the file after all: which CRI-O reads
    /// it, or how that release reads it, is not known
    /// ([`RegistriesError::message`] says what is not).
    pub undetermined: Option<Undetermined>,
}

/// Why the tool cannot tell whether the node loads a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undetermined {
    /// The node's CRI-O release is not known, and the releases it may be
    /// read the file differently.
    ReleaseUnknown,
    /// The release is known, but how it reads this file is not modelled.
    NotModelled,
    /// Two keys of one table set the same field differently (`location`
    /// and `Location`): the node reads either, in Go map order, from load
    /// to load.
    MapOrder,
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
    /// The CRI-O that reads the file: which TOML it reads, and why.
    runtime: &'a NodeRuntime,
}

impl Reporter<'_> {
    fn error(&self, line: Option<usize>, context: String, message: String) -> RegistriesError {
        RegistriesError {
            file: self.file.name.to_string(),
            drop_in: self.drop_in,
            line,
            context,
            message,
            undetermined: None,
        }
    }

    /// An error at byte `offset`: `line L, column C` as the context.
    fn at_offset(&self, lines: &Lines, offset: usize, message: String) -> RegistriesError {
        let (l, c) = lines.line_col(offset);
        self.error(Some(l), format!("line {l}, column {c}"), message)
    }

    /// `; <why the node's CRI-O is the one it is>`, or nothing when no
    /// reason is given.
    fn basis(&self) -> String {
        match self.runtime.basis.as_str() {
            "" => String::new(),
            basis => format!("; {basis}"),
        }
    }

    /// The same reporter for a node that runs `runtime`.
    fn on<'r>(&'r self, runtime: &'r NodeRuntime) -> Reporter<'r> {
        Reporter {
            file: self.file,
            drop_in: self.drop_in,
            runtime,
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
    // Its subset (plain strings, booleans, string arrays, the three
    // tables) is read alike by every BurntSushi/toml release; a control
    // character, which it would skip in a comment, goes to the full reader.
    if reader == Reader::Fast && control_character(file.text).is_none() {
        if let Some(raw) = super::fast::parse(file.text) {
            return Ok(raw);
        }
    }
    match rep.runtime.crio_minor {
        Some(minor) => parse_on(file.text, lines, rep, minor),
        None => parse_on_any(file.text, lines, rep),
    }
}

/// The offset of the first control character other than tab and the line
/// breaks (U+0000 to U+001F, U+007F), which TOML 1.0 allows nowhere.
fn control_character(text: &str) -> Option<usize> {
    text.bytes()
        .position(|b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
}

/// A control character, which the tool's BurntSushi model would skip in a
/// comment: BurntSushi/toml v0.4.1 refuses it there, and from v1.0.0 its
/// lexer refuses one anywhere, TOML 1.1 (v1.6.0) included. `None` when the
/// text has none, or when the `toml` crate stops before it (then its error
/// is the first).
fn control_in_comment(
    text: &str,
    lines: &Lines,
    rep: &Reporter<'_>,
    minor: u32,
) -> Option<RegistriesError> {
    let offset = control_character(text)?;
    let earlier = toml::from_str::<toml::Table>(text)
        .err()
        .and_then(|e| e.span())
        .is_some_and(|s| s.start < offset);
    if earlier {
        return None;
    }
    let byte = text.as_bytes()[offset];
    let reader = TomlReader::of_crio(minor);
    let release = reader.release();
    let said = if reader == TomlReader::V0_4_1 {
        format!("control characters are not allowed inside comments: '0x{byte:02x}'")
    } else {
        format!("TOML files cannot contain control characters: '0x{byte:02x}'")
    };
    Some(rep.at_offset(
        lines,
        offset,
        format!(
            "a control character in a comment, which BurntSushi/toml {release} refuses ({said}){}",
            rep.basis()
        ),
    ))
}

/// Reads the text as CRI-O 1.`minor` (the reporter's runtime) does.
fn parse_on<T: DeserializeOwned>(
    text: &str,
    lines: &Lines,
    rep: &Reporter<'_>,
    minor: u32,
) -> Result<T, RegistriesError> {
    let reader = TomlReader::of_crio(minor);
    if let Some(legacy) = super::legacy::Legacy::of_reader(reader) {
        return parse_legacy(text, lines, rep, legacy);
    }
    if reader == TomlReader::V0_4_1 {
        if let Some(f) = super::legacy::bare_carriage_return(text) {
            let mut e = rep.at_offset(
                lines,
                f.offset,
                format!(
                    "{}: whether the node loads this file is undetermined{}",
                    f.message,
                    rep.basis()
                ),
            );
            e.undetermined = Some(Undetermined::NotModelled);
            return Err(e);
        }
    }
    if !reader.skips_byte_order_mark() && text.starts_with('\u{feff}') {
        return Err(rep.at_offset(
            lines,
            0,
            format!(
                "a byte order mark, which BurntSushi/toml {} refuses (expected '.' or '=', but got \
                 '\\ufeff' instead; v1.3.0 and later skip it){}",
                reader.release(),
                rep.basis()
            ),
        ));
    }
    if let Some(e) = control_in_comment(text, lines, rep, minor) {
        return Err(e);
    }
    let long_fraction = super::legacy::long_fraction(text).filter(|(f, _)| {
        // BurntSushi stops at the first error in the text: one the `toml`
        // crate finds before, unless the release's own model reads past it.
        let earlier = toml::from_str::<toml::Table>(text)
            .err()
            .and_then(|e| e.span())
            .is_some_and(|s| s.start < f.offset);
        let model_reads = super::burntsushi::Release::of_reader(reader)
            .is_some_and(|r| super::burntsushi::parse(text, r).is_ok());
        !earlier || model_reads
    });
    if let Some((f, refused)) = long_fraction {
        let mut e = rep.at_offset(lines, f.offset, format!("{}{}", f.message, rep.basis()));
        if !refused {
            e.undetermined = Some(Undetermined::NotModelled);
        }
        return Err(e);
    }
    // BurntSushi v1.1.0 to v1.3.2 decode dotted keys of inline tables in
    // arrays their own way: every text is read as they read it.
    if super::burntsushi::Release::of_reader(reader) == Some(super::burntsushi::Release::V1_1) {
        if let Some(read) = as_burntsushi_reads(text, lines, rep) {
            return read;
        }
    }
    match toml::from_str(text) {
        Ok(raw) if rep.runtime.reads_toml_1_1() => Ok(raw),
        Ok(raw) => match super::toml10::first_toml_1_1_use(text) {
            None => Ok(raw),
            Some(found) => Err(toml_1_1_error(found, lines, rep)),
        },
        Err(e) => match as_burntsushi_reads(text, lines, rep) {
            Some(read) => read,
            None => Err(toml_error(text, &e, lines, rep)),
        },
    }
}

/// Reads the text as BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier) does,
/// as far as the tool models it. It parses in text order and stops at its
/// first error, so what comes first decides: a construct it refuses (an
/// error with its line), the `toml` crate's first error or TOML 1.1
/// construct (refused alike), or a construct it reads its own way, or a
/// redefinition the v0.4.1+ model accepts (undetermined).
fn parse_legacy<T: DeserializeOwned>(
    text: &str,
    lines: &Lines,
    rep: &Reporter<'_>,
    legacy: super::legacy::Legacy,
) -> Result<T, RegistriesError> {
    use super::legacy;
    let basis = rep.basis();
    let undetermined = |offset: usize, what: &str| {
        let mut e = rep.at_offset(
            lines,
            offset,
            format!("{what}: whether the node loads this file is undetermined{basis}"),
        );
        e.undetermined = Some(Undetermined::NotModelled);
        e
    };
    let refused = legacy::refusal(text, legacy);
    if let Some(f) = refused.as_ref().filter(|f| f.offset == 0) {
        // A byte order mark: nothing is read past it.
        return Err(rep.at_offset(lines, f.offset, format!("{}{basis}", f.message)));
    }
    let own_way = legacy::unmodelled(text, legacy);
    let syntax = toml::from_str::<toml::Table>(text);
    // Where the `toml` crate's grammar stops: its error, or a TOML 1.1
    // construct it read.
    let stop = match &syntax {
        Ok(_) => super::toml10::first_toml_1_1_use(text).map(|f| f.offset),
        Err(e) => Some(e.span().map_or(text.len(), |s| s.start)),
    };
    // A redefinition v0.4.1 and later accept: v0.3.1's own bookkeeping.
    let redefinition =
        syntax.is_err() && super::burntsushi::parse(text, super::burntsushi::Release::V1_1).is_ok();
    let first = [
        refused.as_ref().map(|f| f.offset),
        own_way.as_ref().map(|f| f.offset),
        stop,
    ]
    .into_iter()
    .flatten()
    .min();
    match (first, refused, own_way) {
        (Some(at), Some(f), _) if f.offset == at => {
            Err(rep.at_offset(lines, f.offset, format!("{}{basis}", f.message)))
        }
        (Some(at), _, Some(f)) if f.offset == at => Err(undetermined(f.offset, &f.message)),
        (Some(at), _, _) if redefinition => Err(undetermined(
            at,
            &format!(
                "a table or key defined again, which BurntSushi/toml v0.4.1 and later accept \
                 and {} reads in its own way, not modelled by this tool",
                "BurntSushi/toml v0.3.1 (CRI-O 1.21 and earlier)"
            ),
        )),
        _ => match toml::from_str::<T>(text) {
            Ok(raw) => match super::toml10::first_toml_1_1_use(text) {
                None => Ok(raw),
                Some(found) => Err(toml_1_1_error(found, lines, rep)),
            },
            Err(e) => Err(toml_error(text, &e, lines, rep)),
        },
    }
}

/// A run of CRI-O minors whose registries.conf parsers the tool models
/// alike: the same BurntSushi/toml behaviour, byte order mark and TOML 1.1
/// handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ParserFamily {
    /// The first minor; 0 for "and earlier".
    first: u32,
    /// The last minor; `u32::MAX` for "and later".
    last: u32,
}

/// The oldest CRI-O whose parser is modelled: 1.17, in OpenShift 4.4.
const OLDEST_CRIO: u32 = 17;

/// The first CRI-O minor with the newest reader: no family starts later.
const NEWEST_READER_FROM: u32 = TomlReader::ALL[TomlReader::ALL.len() - 1].first_crio();

impl ParserFamily {
    /// A minor of the family, to read as.
    fn minor(self) -> u32 {
        if self.first == 0 {
            self.last
        } else {
            self.first
        }
    }

    /// `CRI-O 1.24 to 1.27 (BurntSushi/toml v1.1.0 to v1.2.1)`: the CRI-O
    /// releases from `oldest` to `newest` and the parsers they vendor.
    fn describe(oldest: Self, newest: Self) -> String {
        let (a, b) = (
            TomlReader::of_crio(oldest.first.max(OLDEST_CRIO)).release(),
            TomlReader::of_crio(newest.last.min(NEWEST_READER_FROM)).release(),
        );
        let toml = if a == b {
            format!("BurntSushi/toml {a}")
        } else {
            format!("BurntSushi/toml {a} to {b}")
        };
        format!("{} ({toml})", Self::span(oldest, newest))
    }

    /// `CRI-O 1.24 to 1.34`, `CRI-O 1.35 and later`, `CRI-O 1.21 and earlier`.
    fn span(oldest: Self, newest: Self) -> String {
        match (oldest.first, newest.last) {
            (0, u32::MAX) => "every CRI-O release".to_string(),
            (0, to) => format!("CRI-O 1.{to} and earlier"),
            (from, u32::MAX) => format!("CRI-O 1.{from} and later"),
            (from, to) if from == to => format!("CRI-O 1.{from}"),
            (from, to) => format!("CRI-O 1.{from} to 1.{to}"),
        }
    }
}

/// The parser families, oldest first: cut wherever the model of
/// [`parse_on`] changes (BurntSushi/toml release family, the byte order
/// mark, TOML 1.1).
fn parser_families() -> Vec<ParserFamily> {
    let model = |minor: u32| {
        let reader = TomlReader::of_crio(minor);
        (
            super::legacy::Legacy::of_reader(reader),
            super::burntsushi::Release::of_reader(reader),
            // v0.4.1's bare carriage return.
            reader == TomlReader::V0_4_1,
            reader.skips_byte_order_mark(),
            reader.reads_toml_1_1(),
        )
    };
    let mut out: Vec<ParserFamily> = Vec::new();
    for minor in OLDEST_CRIO..=NEWEST_READER_FROM {
        match out.last_mut() {
            Some(f) if model(f.first.max(OLDEST_CRIO)) == model(minor) => f.last = minor,
            _ => out.push(ParserFamily {
                first: minor,
                last: minor,
            }),
        }
    }
    if let Some(f) = out.first_mut() {
        f.first = 0;
    }
    if let Some(f) = out.last_mut() {
        f.last = u32::MAX;
    }
    out
}

/// Reads the text for a node whose CRI-O is unknown, as every parser
/// family reads it ([`parser_families`]). When they all read the same
/// configuration, that is it; when they all refuse the text, the newest
/// one's reason; else whether the node loads the file depends on its
/// CRI-O: undetermined, with what each family does.
fn parse_on_any(
    text: &str,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Result<RawConfig, RegistriesError> {
    let mut outcomes: Vec<(ParserFamily, Read)> = possible_families(&rep.runtime.possible)
        .into_iter()
        .map(|family| {
            // Said once for the group, not in each message.
            let runtime = NodeRuntime {
                crio_minor: Some(family.minor()),
                basis: String::new(),
                possible: Vec::new(),
            };
            (
                family,
                parse_on(text, lines, &rep.on(&runtime), family.minor()),
            )
        })
        .collect();
    let newest = outcomes.len() - 1;
    if outcomes.iter().all(|(_, r)| same(r, &outcomes[newest].1)) {
        return outcomes.swap_remove(newest).1;
    }
    let mut e = rep.error(
        None,
        String::new(),
        format!(
            "whether the node loads this file depends on its CRI-O release, which is not known: {}{}",
            disagreement(&outcomes),
            rep.basis()
        ),
    );
    e.line = outcomes
        .iter()
        .rev()
        .find_map(|(_, r)| r.as_ref().err())
        .and_then(|e| e.line);
    e.undetermined = Some(Undetermined::ReleaseUnknown);
    Err(e)
}

/// One reading by a parser family.
type Read = Result<RawConfig, RegistriesError>;

/// Whether two families read a text alike: the same configuration, or
/// both refuse it.
fn same(a: &Read, b: &Read) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => a.undetermined.is_none() && b.undetermined.is_none(),
        _ => false,
    }
}

/// The parser families a node may run (`possible` CRI-O minors; every
/// family when empty or when none of them is modelled).
fn possible_families(possible: &[u32]) -> Vec<ParserFamily> {
    let mut families = parser_families();
    let may_run = |f: &ParserFamily| possible.iter().any(|m| (f.first..=f.last).contains(m));
    if families.iter().any(may_run) {
        families.retain(may_run);
    }
    families
}

/// What the families do with a text they disagree on, newest first,
/// consecutive families alike merged: `CRI-O 1.35 and later (…) load it;
/// CRI-O 1.22 to 1.34 (…) refuse it (line 3, column 42: …)`.
fn disagreement(outcomes: &[(ParserFamily, Read)]) -> String {
    // Consecutive families with the same outcome, newest first; the
    // families whose reading is unknown together.
    let alike = |a: &Read, b: &Read| {
        same(a, b)
            || matches!((a, b), (Err(a), Err(b)) if a.undetermined.is_some() && b.undetermined.is_some())
    };
    let mut groups: Vec<(ParserFamily, ParserFamily, usize)> = Vec::new();
    for (i, (family, read)) in outcomes.iter().enumerate().rev() {
        match groups.last_mut() {
            Some((oldest, _, j)) if alike(read, &outcomes[*j].1) => *oldest = *family,
            _ => groups.push((*family, *family, i)),
        }
    }
    // Whether the families that load it read different configurations.
    let read: Vec<&RawConfig> = outcomes
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .collect();
    let loads = read
        .iter()
        .filter(|a| !read.iter().all(|b| b == *a))
        .count()
        + 1;
    groups
        .iter()
        .map(|(oldest, newest, i)| {
            let who = ParserFamily::describe(*oldest, *newest);
            match &outcomes[*i].1 {
                Ok(_) if loads > 1 => format!("{who} load it, each its own way"),
                Ok(_) => format!("{who} load it"),
                Err(e) if e.undetermined.is_some() => {
                    format!("{who}: not known ({}: {})", e.context, e.message)
                }
                Err(e) => format!("{who} refuse it ({}: {})", e.context, e.message),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A text the `toml` crate refuses, read as the node's BurntSushi/toml
/// (v0.4.1 and later) reads it, when that is known: it accepts some table
/// redefinitions TOML 1.0 forbids, and merges them. `None` when the node's
/// release is v0.3.1, or when BurntSushi refuses the text too
/// (the `toml` crate's error then says why).
fn as_burntsushi_reads<T: DeserializeOwned>(
    text: &str,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Option<Result<T, RegistriesError>> {
    let release = super::burntsushi::Release::of_reader(rep.runtime.toml_reader()?)?;
    let doc = super::burntsushi::parse(text, release).ok()?;
    if !rep.runtime.reads_toml_1_1() {
        if let Some(found) = super::toml10::first_toml_1_1_use(text) {
            return Some(Err(toml_1_1_error(found, lines, rep)));
        }
    }
    Some(
        T::deserialize(toml::de::Deserializer::from(doc))
            .map_err(|e| toml_error(text, &e, lines, rep)),
    )
}

/// The error for a file the `toml` crate refuses. BurntSushi/toml parses
/// the whole text before it decodes any value, and stops at its first
/// syntax error: a TOML 1.1 construct it meets first is the error, as is
/// one anywhere in a file whose only fault is a value's type. A node whose
/// parser reads TOML 1.1 has no such construct to stop at.
fn toml_error(
    text: &str,
    e: &toml::de::Error,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> RegistriesError {
    let syntax_ok = toml::from_str::<toml::Table>(text).is_ok();
    let error_at = e.span().map_or(text.len(), |s| s.start);
    let first_1_1 = super::toml10::first_toml_1_1_use(text)
        .filter(|_| !rep.runtime.reads_toml_1_1())
        .filter(|found| syntax_ok || found.offset < error_at);
    if let Some(found) = first_1_1 {
        return toml_1_1_error(found, lines, rep);
    }
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
}

/// A TOML 1.1-only construct, where it is.
fn toml_1_1_error(
    found: super::toml10::Toml11Use,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> RegistriesError {
    let (l, c) = lines.line_col(found.offset);
    rep.error(
        Some(l),
        format!("line {l}, column {c}"),
        format!(
            "{}: {TOML_1_1_ONLY}{}",
            found.what,
            match rep.runtime.basis.as_str() {
                "" => String::new(),
                _ => format!("; {}", rep.runtime.toml_1_0_basis()),
            }
        ),
    )
}

/// Why a TOML 1.1-only construct fails on a node.
const TOML_1_1_ONLY: &str = "TOML 1.1 syntax, which containers/image's TOML 1.0 parser refuses \
     (BurntSushi/toml v1.5.0 and older, in CRI-O 1.34 and earlier: OpenShift 4.21 and earlier)";

/// Upstream `loadConfigFile` for one file (`forceV2` for drop-ins).
fn load_file(
    file: &ConfigFile<'_>,
    drop_in: bool,
    reader: Reader,
    runtime: &NodeRuntime,
    written: Option<RawConfig>,
) -> Result<FileConfig, RegistriesError> {
    let lines = Lines::new(file.text);
    let rep = Reporter {
        file,
        drop_in,
        runtime,
    };
    let mut raw = match written {
        Some(raw) => raw,
        None => parse_raw(file, &lines, &rep, reader)?,
    };

    folded_keys(&raw, &lines, &rep)?;
    // Entries are streamed into post-processing, not collected first.
    let (pending, search) = entries(&mut raw, file, &lines, &rep)?;
    let search_origin = search
        .as_ref()
        .map(|(line, _, _)| Origin::file_line(file.name, *line));

    let (registries, metas, search) = post_process(pending, search, &lines, &rep)?;

    // Still `loadConfigFile`: the mode, then wildcard prefixes, then aliases.
    let short_name_mode = short_name_mode(&raw, file, &lines, &rep)?;
    check_wildcard_prefixes(&registries, &metas, &rep)?;
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

/// The first pair of keys of one table that set the same field
/// differently, as an undetermined error naming both: BurntSushi/toml
/// decodes a table's keys in Go map order, each over the field it selects
/// (upstream `MetaData.unifyStruct`), so which value the node reads
/// changes from load to load.
fn folded_keys(raw: &RawConfig, lines: &Lines, rep: &Reporter<'_>) -> Result<(), RegistriesError> {
    use super::raw::FoldedKeys;
    let in_v1 = raw.v1.iter().flat_map(|v1| {
        let lists = [&v1.search, &v1.insecure, &v1.block];
        v1.folded
            .iter()
            .chain(lists.into_iter().flatten().flat_map(|l| l.folded.iter()))
            .map(|f| (None, f))
    });
    let in_registries = raw.registries.iter().flatten().flat_map(|r| {
        let line = lines.line(r.span().start);
        let mirrors = r.get_ref().mirrors.iter().flatten().flat_map(|m| {
            let line = lines.line(m.span().start);
            m.get_ref().folded.iter().map(move |f| (Some(line), f))
        });
        r.get_ref()
            .folded
            .iter()
            .map(move |f| (Some(line), f))
            .chain(mirrors)
    });
    let first = raw
        .folded
        .iter()
        .map(|f| (None, f))
        .chain(in_v1)
        .chain(in_registries)
        .next();
    let Some((
        line,
        FoldedKeys {
            field,
            keys,
            values,
        },
    )) = first
    else {
        return Ok(());
    };
    let q = crate::quote::go_quote;
    let mut e = rep.error(
        line,
        line.map_or_else(String::new, |l| format!("line {l}")),
        format!(
            "keys {} and {} of one table both set {field} ({} and {}): containers/image's \
             BurntSushi/toml decodes them in Go map order, so the node reads either one, from \
             load to load",
            q(&keys[0]),
            q(&keys[1]),
            values[0],
            values[1]
        ),
    );
    e.undetermined = Some(Undetermined::MapOrder);
    Err(e)
}

/// The file's entries and search list, from the v1 tables (converted) or
/// the v2 keys; a drop-in must be v2, and a file cannot mix both.
#[allow(clippy::type_complexity)]
fn entries<'a>(
    raw: &mut RawConfig,
    file: &'a ConfigFile<'_>,
    lines: &'a Lines,
    rep: &Reporter<'_>,
) -> Result<(Box<dyn Iterator<Item = Pending> + 'a>, Search), RegistriesError> {
    if let Some(v1) = raw.v1.take().filter(RawV1::is_set) {
        let line = v1_line(&v1, lines);
        let context = line.map_or_else(String::new, |l| format!("line {l}"));
        if rep.drop_in {
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
        let pending = convert_v1(&v1, file, lines, rep)?;
        let search = v1.search.and_then(|l| l.registries).map(|s| {
            (
                lines.line(s.span().start),
                s.into_inner(),
                "[registries.search]",
            )
        });
        return Ok((Box::new(pending.into_iter()), search));
    }
    let name = file.name;
    let pending = raw
        .registries
        .take()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(move |(i, spanned)| {
            let line = lines.line(spanned.span().start);
            let raw = spanned.into_inner();
            Pending {
                meta: Meta {
                    place: Place::Table { index: i + 1 },
                    line,
                    prefix_set: raw.prefix.as_ref().is_some_and(|p| !p.is_empty()),
                },
                raw,
                origins: vec![Origin::file_line(name, line)],
            }
        });
    let search = raw.unqualified_search_registries.take().map(|s| {
        (
            lines.line(s.span().start),
            s.into_inner(),
            "unqualified-search-registries",
        )
    });
    Ok((Box::new(pending), search))
}

/// `short-name-mode`, when set, with where it was set.
fn short_name_mode(
    raw: &RawConfig,
    file: &ConfigFile<'_>,
    lines: &Lines,
    rep: &Reporter<'_>,
) -> Result<Option<(ShortNameMode, Origin)>, RegistriesError> {
    let Some(m) = raw
        .short_name_mode
        .as_ref()
        .filter(|m| !m.get_ref().is_empty())
    else {
        return Ok(None);
    };
    let line = lines.line(m.span().start);
    let mode = parse_short_name_mode(m.get_ref())
        .map_err(|msg| rep.error(Some(line), format!("short-name-mode (line {line})"), msg))?;
    Ok(mode.map(|mode| (mode, Origin::file_line(file.name, line))))
}

/// A wildcard prefix names a domain only. Upstream checks the sorted,
/// de-duplicated list, so the error names the smallest offending prefix,
/// and of equal prefixes the first.
fn check_wildcard_prefixes(
    registries: &[Registry],
    metas: &[Meta],
    rep: &Reporter<'_>,
) -> Result<(), RegistriesError> {
    let bad_wildcard = registries
        .iter()
        .zip(metas)
        .filter(|(r, _)| r.prefix.starts_with("*.") && r.prefix.contains(['/', '@', ':']))
        .min_by(|a, b| a.0.prefix.cmp(&b.0.prefix));
    match bad_wildcard {
        Some((r, meta)) => Err(rep.at_registry(
            meta,
            r,
            format!(
                "Wildcarded prefix should be in the format: *.example.com. Current prefix {} is incorrectly formatted",
                crate::quote::go_quote(&r.prefix)
            ),
        )),
        None => Ok(()),
    }
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
        let (prefix, location) = entry_scope(&meta, raw.prefix, raw.location, rep)?;
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
            let entry = MirrorEntry {
                meta: &meta,
                prefix: &prefix,
                location: &location,
                number: n + 1,
                line,
                mirror_by_digest_only,
            };
            mirrors.push(entry.mirror(spanned.into_inner(), rep)?);
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
        Some((line, list, key)) => Some(search_list(line, list, key, rep)?),
        None => None,
    };
    Ok((registries, metas, search))
}

/// An entry's `prefix` and `location`, checked and normalized: the prefix
/// defaults to the location, and only a wildcard prefix may go without one.
fn entry_scope(
    meta: &Meta,
    raw_prefix: Option<String>,
    raw_location: Option<String>,
    rep: &Reporter<'_>,
) -> Result<(String, String), RegistriesError> {
    let raw_prefix = raw_prefix.unwrap_or_default();
    let raw_location = raw_location.unwrap_or_default();
    if let Some(e) = location_error(&raw_location) {
        return Err(rep.at_entry(meta, &raw_prefix, &raw_location, e));
    }
    let location = take_location(raw_location).unwrap_or_default();
    if raw_prefix.is_empty() {
        if location.is_empty() {
            return Err(rep.at_entry(
                meta,
                "",
                "",
                "invalid condition: both location and prefix are unset".to_string(),
            ));
        }
        return Ok((location.clone(), location));
    }
    if let Some(e) = location_error(&raw_prefix) {
        return Err(rep.at_entry(meta, &raw_prefix, &location, e));
    }
    let prefix = take_location(raw_prefix).unwrap_or_default();
    if !prefix.starts_with("*.") && location.is_empty() {
        return Err(rep.at_entry(
            meta,
            &prefix,
            "",
            "invalid condition: location is unset and prefix is not in the format: *.example.com"
                .to_string(),
        ));
    }
    Ok((prefix, location))
}

/// One `[[registry.mirror]]` of an entry, with what its messages name.
struct MirrorEntry<'a> {
    meta: &'a Meta,
    prefix: &'a str,
    location: &'a str,
    /// 1-based, in file order.
    number: usize,
    line: usize,
    /// The entry's `mirror-by-digest-only`.
    mirror_by_digest_only: bool,
}

impl MirrorEntry<'_> {
    fn error(&self, rep: &Reporter<'_>, message: String) -> RegistriesError {
        let line = self.line;
        rep.error(
            Some(line),
            format!(
                "{}: [[registry.mirror]] #{} (line {line})",
                self.meta.context(self.prefix, self.location),
                self.number
            ),
            message,
        )
    }

    /// The mirror, checked as upstream `postProcessRegistries` does.
    fn mirror(&self, m: RawMirror, rep: &Reporter<'_>) -> Result<Mirror, RegistriesError> {
        // Upstream trims a copy (the loop variable of
        // `postProcessRegistries`): the checks see the trimmed location, the
        // entry keeps it as written, and a trailing slash makes every
        // rewrite through this mirror fail (`host/m//app:1`).
        let written = m.location.unwrap_or_default();
        let location = parse_location(&written).map_err(|e| self.error(rep, e))?;
        if location.is_empty() {
            return Err(self.error(
                rep,
                "invalid condition: mirror location is unset".to_string(),
            ));
        }
        let pfm = m.pull_from_mirror.as_deref().unwrap_or_default();
        if self.mirror_by_digest_only && !pfm.is_empty() {
            return Err(self.error(rep, format!(
                "cannot set mirror usage mirror-by-digest-only for the registry ({}) and pull-from-mirror for per-mirror ({}) at the same time",
                crate::quote::go_quote(self.prefix),
                crate::quote::go_quote(&location)
            )));
        }
        let pull_from_mirror = match pfm {
            "" => PullFromMirror::Unset,
            "all" => PullFromMirror::All,
            "digest-only" => PullFromMirror::DigestOnly,
            "tag-only" => PullFromMirror::TagOnly,
            _ => {
                return Err(self.error(
                    rep,
                    format!(
                        "unsupported pull-from-mirror value {} for mirror {}",
                        crate::quote::go_quote(pfm),
                        crate::quote::go_quote(&location)
                    ),
                ))
            }
        };
        Ok(Mirror {
            location: written,
            insecure: m.insecure.unwrap_or(false),
            pull_from_mirror,
            origins: vec![Origin::file_line(rep.file.name, self.line)],
        })
    }
}

/// The search registries, each a valid domain.
fn search_list(
    line: usize,
    list: Vec<String>,
    key: &str,
    rep: &Reporter<'_>,
) -> Result<Vec<String>, RegistriesError> {
    let context = format!("{key} (line {line})");
    let mut parsed = Vec::with_capacity(list.len());
    for entry in list {
        let loc = take_location(entry).map_err(|m| rep.error(Some(line), context.clone(), m))?;
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
    Ok(parsed)
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

/// Loads the machine-written `short-name-aliases.conf` (rootful:
/// `/var/cache/containers/short-name-aliases.conf`, which CRI-O reads too)
/// as containers/image `loadShortNameAliasConf` does: only `[aliases]`
/// counts, each alias validated as in registries.conf, `""` a tombstone.
/// Merge the result with [`RegistriesConf::add_short_name_aliases`].
pub fn load_short_name_aliases(
    file: &ConfigFile<'_>,
    runtime: &NodeRuntime,
) -> Result<BTreeMap<String, Alias>, RegistriesError> {
    let lines = Lines::new(file.text);
    let rep = Reporter {
        file,
        drop_in: false,
        runtime,
    };
    let raw = parse_raw(file, &lines, &rep, Reader::Fast)?;
    match &raw.aliases {
        Some(table) => validate_aliases(table, file, &lines, &rep),
        None => Ok(BTreeMap::new()),
    }
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
    load_with(main, drop_ins, Reader::Fast, &NodeRuntime::unknown(), None)
}

/// [`load_on`] for a main file whose writer also gave what it wrote
/// ([`Written`]): its tables are taken from there instead of being read
/// back from the text, which still gives the line numbers. A file with a
/// string the writer did not write as it is is read from its text.
pub fn load_written(
    main: &ConfigFile<'_>,
    written: Written,
    drop_ins: &[ConfigFile<'_>],
    runtime: &NodeRuntime,
) -> Result<RegistriesConf, RegistriesError> {
    load_with(
        Some(main),
        drop_ins,
        Reader::Fast,
        runtime,
        written.into_raw(),
    )
}

/// [`load`] as the CRI-O `runtime` reads the files (TOML 1.1 from CRI-O
/// 1.35, TOML 1.0 from 1.22, TOML 0.4 before); when its version is
/// unknown, as every release reads them, undetermined where they disagree.
pub fn load_on(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
    runtime: &NodeRuntime,
) -> Result<RegistriesConf, RegistriesError> {
    load_with(main, drop_ins, Reader::Fast, runtime, None)
}

/// [`load`] with the `toml` crate reading every file, never the fast
/// reader: what `load` must give whichever reader it picks. For the
/// differential tests and the fuzz target, not for the commands.
#[doc(hidden)]
pub fn load_full_parser(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
) -> Result<RegistriesConf, RegistriesError> {
    load_with(main, drop_ins, Reader::Full, &NodeRuntime::unknown(), None)
}

/// One file's text as a node whose CRI-O is unknown decodes it, before
/// any validation: refused where the loader refuses the text, and
/// undetermined where it is (the parser families disagree, or two keys of
/// one table select one field with different values).
fn read_raw(name: &str, text: &str) -> Result<RawConfig, RegistriesError> {
    let file = ConfigFile { name, text };
    let lines = Lines::new(text);
    let runtime = NodeRuntime::unknown();
    let rep = Reporter {
        file: &file,
        drop_in: false,
        runtime: &runtime,
    };
    let raw = parse_raw(&file, &lines, &rep, Reader::Fast)?;
    folded_keys(&raw, &lines, &rep)?;
    Ok(raw)
}

impl super::raw::RegistriesFile {
    /// Reads `text` as a node whose CRI-O release is not known does; `name`
    /// is the file to report. The error says why the node refuses the text,
    /// or, with [`RegistriesError::undetermined`] set, why the tool cannot
    /// tell what the node reads (its release, or two keys of one table
    /// setting one field differently, which Go map order decides).
    pub fn read(name: &str, text: &str) -> Result<Self, RegistriesError> {
        read_raw(name, text).map(Self)
    }
}

/// Whether `text` is a TOML 1.0 document, as a node's containers/image
/// reads it (syntax only, not the registries.conf schema): what the loader
/// refuses as TOML. For the oracle tests against a TOML 1.0 parser.
#[doc(hidden)]
pub fn reads_as_toml_1_0(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok() && super::toml10::first_toml_1_1_use(text).is_none()
}

/// What a node's registries.conf parser does with a text: the document it
/// decodes (syntax only, not the registries.conf schema) as JSON, or why it
/// refuses the text, or why the tool cannot tell.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
pub enum NodeToml {
    Read(serde_json::Value),
    Refused(String),
    Undetermined(String),
}

/// What a node running CRI-O 1.`crio_minor` does with `text`: the loader's
/// own reading ([`parse_on`]) into a plain table. For the oracle tests
/// against BurntSushi/toml.
#[doc(hidden)]
pub fn node_reads_toml(text: &str, crio_minor: u32) -> NodeToml {
    let runtime = NodeRuntime {
        crio_minor: Some(crio_minor),
        basis: format!("CRI-O 1.{crio_minor}"),
        possible: Vec::new(),
    };
    let file = ConfigFile { name: "", text };
    let rep = Reporter {
        file: &file,
        drop_in: false,
        runtime: &runtime,
    };
    match parse_on::<toml::Table>(text, &Lines::new(text), &rep, crio_minor) {
        Ok(table) => match serde_json::to_value(table) {
            Ok(value) => NodeToml::Read(value),
            Err(e) => NodeToml::Refused(e.to_string()),
        },
        Err(e) if e.undetermined.is_some() => NodeToml::Undetermined(e.message),
        Err(e) => NodeToml::Refused(e.message),
    }
}

/// Whether the fast reader reads `text` itself rather than leaving it to
/// the `toml` crate; for the differential tests' coverage counts.
#[doc(hidden)]
pub fn fast_reader_accepts(text: &str) -> bool {
    super::fast::parse(text).is_some()
}

/// Loads `main` (its tables from `written` when given) and `drop_ins`.
fn load_with(
    main: Option<&ConfigFile<'_>>,
    drop_ins: &[ConfigFile<'_>],
    reader: Reader,
    runtime: &NodeRuntime,
    mut written: Option<RawConfig>,
) -> Result<RegistriesConf, RegistriesError> {
    let mut conf = RegistriesConf::default();
    let mut merged: Option<Vec<Registry>> = None;
    let files = main
        .map(|m| (m, false))
        .into_iter()
        .chain(drop_ins.iter().map(|d| (d, true)));
    for (file, drop_in) in files {
        let pre = if drop_in { None } else { written.take() };
        let parsed = load_file(file, drop_in, reader, runtime, pre)?;
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
mod tests;
