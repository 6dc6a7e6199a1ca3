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
//! rules are reproduced in [`crate::go_yaml`].
//!
//! Upstream: openshift/machine-config-operator
//! `pkg/controller/container-runtime-config/helpers.go`
//! (containers-registries.d(5)).

use super::findings::RenderError;
use super::registries::V2RegistriesConf;
use super::scope::scope_is_nested_inside_scope;
use crate::go_yaml;
use crate::reference::Reference;
use crate::registries::lookup::{find_registry, pull_sources};
use crate::registries::{Mirror, PullFromMirror, RegistriesConf, Registry};
use std::collections::{BTreeMap, BTreeSet};

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
    go_yaml::v2_sort(&mut sorted);
    let mut out = String::from("docker:\n");
    for key in sorted {
        let scalar = go_yaml::v2_scalar(key);
        if go_yaml::v2_simple_key(key) {
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

#[cfg(test)]
mod tests;
