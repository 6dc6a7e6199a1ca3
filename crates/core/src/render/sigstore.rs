//! `/etc/containers/registries.d/sigstore-registries.yaml`: the file that
//! makes containers/image fetch sigstore signatures (attachments) for every
//! ClusterImagePolicy / ImagePolicy scope, and for the mirrors those scopes
//! are pulled from (the MCO's `generateSigstoreRegistriesdConfig`).
//!
//! Expanding a scope to its mirrors goes through the registries.conf
//! rendered in the same sync, with containers/image's `FindRegistry` and
//! `PullSourcesFromReference` (see [`crate::registries::lookup`]). The YAML
//! is written byte for byte as ghodss/yaml writes it: JSON, re-read and
//! emitted by gopkg.in/yaml.v2, whose map-key order and scalar quoting
//! rules are reproduced here.
//!
//! Upstream: openshift/machine-config-operator
//! `pkg/controller/container-runtime-config/helpers.go`; gopkg.in/yaml.v2
//! `sorter.go`, `resolve.go`, `encode.go`, `emitterc.go`
//! (containers-registries.d(5)).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;

use super::findings::RenderError;
use super::registries::V2RegistriesConf;
use super::scope::scope_is_nested_inside_scope;
use crate::reference::Reference;
use crate::registries::lookup::{find_registry, pull_sources};
use crate::registries::{Mirror, PullFromMirror, RegistriesConf, Registry};

pub use crate::node_paths::SIGSTORE_REGISTRIES_D;

const DUMMY_DIGEST: &str =
    "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const DUMMY_TAG: &str = "aaa";
const DUMMY_PATH: &str = "/a";
const DUMMY_PREFIX: &str = "matched";

/// The MCO's `generateSigstoreRegistriesdConfig`: `None` when there is no
/// policy scope. Every scope gets `use-sigstore-attachments: true`; when
/// `registries` (the registries.conf rendered in the same sync) is given,
/// so does the repository of every pull source with a location, for the
/// scope itself and for every registries.conf entry nested inside it.
pub fn generate_sigstore_registries_d<'a>(
    policy_scopes: impl IntoIterator<Item = &'a str>,
    registries: Option<&V2RegistriesConf>,
) -> Result<Option<String>, RenderError> {
    let scopes: Vec<&str> = policy_scopes.into_iter().collect();
    if scopes.is_empty() {
        return Ok(None);
    }
    let loaded = match registries {
        Some(conf) => Some((conf, lookup_conf(conf)?)),
        None => None,
    };
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for scope in scopes {
        keys.insert(scope.to_string());
        let Some((raw, conf)) = &loaded else {
            continue;
        };
        let wrap = |message: String| RenderError::SigstoreScope {
            scope: scope.to_string(),
            message,
        };
        if let Some(reg) = find_registry(conf, scope) {
            add_scope_mirrors(&mut keys, scope, reg).map_err(wrap)?;
        }
        for entry in &raw.registries {
            let nested = entry.scope();
            if nested != scope && scope_is_nested_inside_scope(nested, scope) {
                if let Some(reg) = find_registry(conf, nested) {
                    add_scope_mirrors(&mut keys, nested, reg).map_err(wrap)?;
                }
            }
        }
    }
    Ok(Some(encode_registries_d(&keys)))
}

/// The rendered registries.conf as containers/image loads it for lookups
/// (`postProcessRegistries`, then entries unique by prefix in prefix order).
fn lookup_conf(conf: &V2RegistriesConf) -> Result<RegistriesConf, RenderError> {
    let err = |s: String| RenderError::RegistriesConf(s);
    let mut by_prefix: BTreeMap<String, Registry> = BTreeMap::new();
    for entry in &conf.registries {
        let location = entry.location.trim_end_matches('/').to_string();
        let prefix = if entry.prefix.is_empty() {
            if location.is_empty() {
                return Err(err(
                    "invalid condition: both location and prefix are unset".into()
                ));
            }
            location.clone()
        } else {
            let prefix = entry.prefix.trim_end_matches('/').to_string();
            if !prefix.starts_with("*.") && location.is_empty() {
                return Err(err("invalid condition: location is unset and prefix is not in the format: *.example.com".into()));
            }
            prefix
        };
        let mut mirrors = Vec::with_capacity(entry.mirrors.len());
        for m in &entry.mirrors {
            let location = m.location.trim_end_matches('/').to_string();
            if location.is_empty() {
                return Err(err("invalid condition: mirror location is unset".into()));
            }
            if entry.mirror_by_digest_only && !m.pull_from_mirror.is_empty() {
                return Err(err(format!("cannot set mirror usage mirror-by-digest-only for the registry (\"{prefix}\") and pull-from-mirror for per-mirror (\"{location}\") at the same time")));
            }
            let pull_from_mirror = match m.pull_from_mirror.as_str() {
                "" => PullFromMirror::Unset,
                "all" => PullFromMirror::All,
                "digest-only" => PullFromMirror::DigestOnly,
                "tag-only" => PullFromMirror::TagOnly,
                other => {
                    return Err(err(format!(
                        "unsupported pull-from-mirror value \"{other}\" for mirror \"{location}\""
                    )))
                }
            };
            mirrors.push(Mirror {
                location,
                insecure: m.insecure,
                pull_from_mirror,
                origins: m.origins.clone(),
            });
        }
        by_prefix.insert(
            prefix.clone(),
            Registry {
                prefix,
                location,
                insecure: entry.insecure,
                blocked: entry.blocked,
                mirror_by_digest_only: entry.mirror_by_digest_only,
                mirrors,
                origins: entry.origins.clone(),
            },
        );
    }
    Ok(RegistriesConf {
        registries: by_prefix.into_values().collect(),
        ..RegistriesConf::default()
    })
}

/// The MCO's `addScopeMirrorsSigstoreRegistriesdConfig`: the repositories a
/// dummy digest pull and a dummy tag pull under `scope` go to.
fn add_scope_mirrors(
    keys: &mut BTreeSet<String>,
    scope: &str,
    reg: &Registry,
) -> Result<(), String> {
    let mut scope = scope.to_string();
    if scope.starts_with("*.") {
        scope = scope.replacen('*', DUMMY_PREFIX, 1);
    }
    let added_dummy = !scope.contains('/');
    if added_dummy {
        scope.push_str(DUMMY_PATH);
    }
    let parsed =
        Reference::parse(&scope).map_err(|e| format!("error parsing scope {scope}: {e}"))?;
    let repo = parsed.name_only();
    let digest_ref = repo
        .with_digest(DUMMY_DIGEST)
        .map_err(|e| format!("error parsing digest name for scope {scope}: {e}"))?;
    let tag_ref = repo
        .with_tag(DUMMY_TAG)
        .map_err(|e| format!("error parsing tag name for scope {scope}: {e}"))?;
    let digest_sources = pull_sources(reg, &digest_ref)
        .map_err(|e| format!("error getting digest sources for scope {scope}: {e}"))?;
    let tag_sources = pull_sources(reg, &tag_ref)
        .map_err(|e| format!("error getting tag sources for scope {scope}: {e}"))?;
    for source in digest_sources.sources.iter().chain(&tag_sources.sources) {
        // A wildcard entry's own endpoint has no location: only its mirrors count.
        if source.location.is_empty() {
            continue;
        }
        let name = source.reference.name();
        let endpoint = match name.strip_suffix(DUMMY_PATH) {
            Some(trimmed) if added_dummy => trimmed.to_string(),
            _ => name,
        };
        keys.insert(endpoint);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// ghodss/yaml → gopkg.in/yaml.v2 output

/// The YAML of `{"docker": {key: {"use-sigstore-attachments": true}}}`.
fn encode_registries_d(keys: &BTreeSet<String>) -> String {
    let mut sorted: Vec<&str> = keys.iter().map(String::as_str).collect();
    yaml_v2_sort(&mut sorted);
    let mut out = String::from("docker:\n");
    for key in sorted {
        let scalar = yaml_scalar(key);
        if is_simple_key(key) {
            out.push_str(&format!(
                "  {scalar}:\n    use-sigstore-attachments: true\n"
            ));
        } else {
            // yaml.v2 writes keys over 128 bytes (or multi-line) as complex keys.
            out.push_str(&format!(
                "  ? {scalar}\n  : use-sigstore-attachments: true\n"
            ));
        }
    }
    out
}

/// yaml.v2 `yaml_emitter_check_simple_key` for a scalar.
fn is_simple_key(s: &str) -> bool {
    s.len() <= 128 && !s.chars().any(is_break)
}

/// Sorts with yaml.v2's `keyList.Less`. Go sorts with pdqsort; for distinct
/// keys and a consistent order any sort gives the same result, and an
/// insertion sort cannot fail on an inconsistent one.
fn yaml_v2_sort(keys: &mut [&str]) {
    for i in 1..keys.len() {
        let mut j = i;
        while j > 0 && yaml_v2_less(keys[j], keys[j - 1]) {
            keys.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// yaml.v2 `keyList.Less` for two strings: letters sort after every
/// non-letter, digit runs compare by numeric value, otherwise code points.
pub fn yaml_v2_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let digit = |c: char| c.is_ascii_digit();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && digit(ar[j - 1]) {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// A string scalar as yaml.v2 writes it in block context: plain when it
/// would read back as the same string and the emitter allows it, else
/// single-quoted, else double-quoted.
pub fn yaml_scalar(s: &str) -> String {
    let plain_requested = !s.contains('\n') && !resolves_to_non_string(s) && !is_base60_float(s);
    let analysis = analyze_scalar(s);
    if plain_requested && analysis.block_plain_allowed {
        s.to_string()
    } else if plain_requested && analysis.single_quoted_allowed {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        // Multi-line strings would be literal blocks; scopes never have line breaks.
        double_quoted(s)
    }
}

struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// yaml.v2 `is_printable` (four-byte UTF-8 sequences are not printable there).
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

/// yaml.v2 `yaml_emitter_analyze_scalar`, the parts that matter for a
/// block-context key.
fn analyze_scalar(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: true,
            single_quoted_allowed: true,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let mut line_breaks = false;
    let mut special_characters = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i + 1 >= chars.len() || is_blank(chars[i + 1]);
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special_characters = true;
        }
        let last = i + 1 == chars.len();
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c) || c == '\0';
    }
    let mut block_plain_allowed = true;
    let mut single_quoted_allowed = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        block_plain_allowed = false;
    }
    if break_space || space_break || special_characters {
        block_plain_allowed = false;
        single_quoted_allowed = false;
    }
    if line_breaks || block_indicators {
        block_plain_allowed = false;
    }
    Analysis {
        block_plain_allowed,
        single_quoted_allowed,
    }
}

/// yaml.v2 `yaml_emitter_write_double_quoted_scalar` (without line folding).
fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        let escape = !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\';
        if !escape {
            out.push(c);
            continue;
        }
        out.push('\\');
        match c {
            '\0' => out.push('0'),
            '\u{7}' => out.push('a'),
            '\u{8}' => out.push('b'),
            '\t' => out.push('t'),
            '\n' => out.push('n'),
            '\u{b}' => out.push('v'),
            '\u{c}' => out.push('f'),
            '\r' => out.push('r'),
            '\u{1b}' => out.push('e'),
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '\u{85}' => out.push('N'),
            '\u{a0}' => out.push('_'),
            '\u{2028}' => out.push('L'),
            '\u{2029}' => out.push('P'),
            c if (c as u32) <= 0xFF => out.push_str(&format!("x{:02X}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("u{:04X}", c as u32)),
            c => out.push_str(&format!("U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

static BASE60_FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$").expect("regex compiles")
});
static YAML_STYLE_FLOAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").expect("regex compiles")
});
static DOT_FLOAT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\.[0-9]+(?:[eE][-+]?[0-9]+)?$").expect("regex compiles"));
static TIMESTAMP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})",
        r"(?:(?:[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2}))",
        r"|(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?))?$"
    ))
    .expect("regex compiles")
});

/// yaml.v2 `isBase60Float`: quoted on output for YAML 1.1 readers.
fn is_base60_float(s: &str) -> bool {
    s.starts_with(|c: char| c == '+' || c == '-' || c.is_ascii_digit())
        && s.contains(':')
        && BASE60_FLOAT.is_match(s)
}

/// The formats yaml.v2 tries with `time.Parse` (a date, or a date and time).
fn is_timestamp(s: &str) -> bool {
    let Some(c) = TIMESTAMP.captures(s) else {
        return false;
    };
    let num = |i: usize| {
        c.get(i)
            .map(|m| m.as_str().parse::<u32>().unwrap_or(u32::MAX))
    };
    let (year, month, day) = (
        num(1).unwrap_or(0),
        num(2).unwrap_or(0),
        num(3).unwrap_or(0),
    );
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > days {
        return false;
    }
    let time = [(4, 5, 6), (7, 8, 9)]
        .into_iter()
        .find_map(|(h, m, s)| Some((num(h)?, num(m)?, num(s)?)));
    time.is_none_or(|(h, m, s)| h < 24 && m < 60 && s < 60)
}

/// Go `strconv.ParseInt(s, 0, 64)` or `ParseUint(s, 0, 64)` succeeds.
fn is_go_int(s: &str) -> bool {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = unsigned.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return false;
    }
    let Ok(v) = u128::from_str_radix(digits, radix) else {
        return false;
    };
    if negative {
        v <= 1u128 << 63
    } else {
        v <= u128::from(u64::MAX)
    }
}

/// Whether yaml.v2 `resolve` gives a plain scalar `s` a tag other than `!!str`.
fn resolves_to_non_string(s: &str) -> bool {
    const SPECIAL: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "n", "N", "no",
        "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF", "", "~", "null", "Null",
        "NULL", ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF",
    ];
    let Some(first) = s.bytes().next() else {
        return true;
    };
    let hint = match first {
        b'+' | b'-' => 'S',
        b'0'..=b'9' => 'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => 'M',
        b'.' => '.',
        _ => return false,
    };
    if SPECIAL.contains(&s) {
        return true;
    }
    match hint {
        'M' => false,
        '.' => DOT_FLOAT.is_match(s),
        _ => {
            if is_timestamp(s) {
                return true;
            }
            let plain = s.replace('_', "");
            is_go_int(&plain)
                || (YAML_STYLE_FLOAT.is_match(&plain)
                    && plain.parse::<f64>().is_ok_and(f64::is_finite))
        }
    }
}

#[cfg(test)]
mod tests;
