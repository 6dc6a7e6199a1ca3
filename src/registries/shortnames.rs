//! Short-name resolution as containers/image `pkg/shortnames` `Resolve`
//! does it for a caller without a terminal (CRI-O, podman in a script).
//!
//! A qualified name gives one candidate. Otherwise an alias gives one
//! candidate in every mode; else every `unqualified-search-registries`
//! entry gives one, and the mode decides whether several are acceptable.

use super::{RegistriesConf, ShortNameMode};
use crate::origin::Origin;
use crate::reference::{is_qualified_domain, Reference, ReferenceError};

/// How a candidate was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CandidateVia {
    /// The input was fully qualified.
    Qualified,
    /// A short-name alias.
    Alias { alias: String, origin: Origin },
    /// An unqualified-search registry.
    SearchRegistry {
        registry: String,
        origin: Option<Origin>,
    },
}

/// One fully-qualified reference to try, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Normalized, with `latest` added when there was neither tag nor digest.
    pub reference: Reference,
    pub via: CandidateVia,
}

/// Why a short name does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShortNameError {
    #[error("cannot parse input: \"{input}\": {source}")]
    Parse {
        input: String,
        #[source]
        source: ReferenceError,
    },
    #[error("short-name \"{input}\" did not resolve to an alias and no unqualified-search registries are defined in {files}")]
    NoSearchRegistries { input: String, files: String },
    #[error("short-name resolution enforced but cannot prompt without a TTY: \"{input}\" has {count} candidates ({candidates})")]
    Ambiguous {
        input: String,
        count: usize,
        candidates: String,
    },
}

/// Resolves `input` to its candidates. `tty` says whether a user could be
/// prompted; the tool never prompts, so with a terminal every candidate is
/// listed as in permissive mode.
pub fn resolve(
    conf: &RegistriesConf,
    input: &str,
    mode: ShortNameMode,
    tty: bool,
) -> Result<Vec<Candidate>, ShortNameError> {
    let parse_err = |source| ShortNameError::Parse {
        input: input.to_string(),
        source,
    };
    let named = Reference::parse(input).map_err(parse_err)?;
    if is_qualified_domain(named.domain()) {
        let reference = Reference::parse_normalized_named(input)
            .map_err(parse_err)?
            .tag_name_only();
        return Ok(vec![Candidate {
            reference,
            via: CandidateVia::Qualified,
        }]);
    }
    let repo = named.name();
    if let Some(alias) = conf.aliases.get(&repo) {
        if let Some(value) = &alias.value {
            let mut r = Reference::parse_normalized_named(value).map_err(parse_err)?;
            if let Some(tag) = named.tag() {
                r = r.with_tag(tag).map_err(parse_err)?;
            }
            if let Some(digest) = named.digest() {
                r = r.with_digest(digest).map_err(parse_err)?;
            }
            return Ok(vec![Candidate {
                reference: r.tag_name_only(),
                via: CandidateVia::Alias {
                    alias: repo,
                    origin: alias.origin.clone(),
                },
            }]);
        }
    }
    if conf.unqualified_search_registries.is_empty() {
        let files = if conf.files.is_empty() {
            "any file: no containers-registries.conf(5) was found".to_string()
        } else {
            conf.search_registries_origin
                .as_ref()
                .map_or_else(|| conf.files.join(", "), |o| o.to_string())
        };
        return Err(ShortNameError::NoSearchRegistries {
            input: input.to_string(),
            files: format!("\"{files}\""),
        });
    }
    let mut candidates = Vec::with_capacity(conf.unqualified_search_registries.len());
    for registry in &conf.unqualified_search_registries {
        let reference = Reference::parse_normalized_named(&format!("{registry}/{input}"))
            .map_err(parse_err)?
            .tag_name_only();
        candidates.push(Candidate {
            reference,
            via: CandidateVia::SearchRegistry {
                registry: registry.clone(),
                origin: conf.search_registries_origin.clone(),
            },
        });
    }
    if candidates.len() == 1 || mode == ShortNameMode::Disabled || tty {
        return Ok(candidates);
    }
    match mode {
        ShortNameMode::Enforcing => Err(ShortNameError::Ambiguous {
            input: input.to_string(),
            count: candidates.len(),
            candidates: candidates
                .iter()
                .map(|c| c.reference.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        }),
        _ => Ok(candidates),
    }
}
