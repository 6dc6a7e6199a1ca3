//! Short-name resolution as containers/image `pkg/shortnames` `Resolve`
//! does it: a qualified name gives itself; otherwise an alias gives one
//! candidate in every mode; else every `unqualified-search-registries`
//! entry gives one, and the mode (and whether a user could be prompted)
//! decides whether several are acceptable.
//!
//! The machine-written `short-name-aliases.conf`, which upstream reads
//! before registries.conf, comes in merged into the aliases
//! ([`RegistriesConf::add_short_name_aliases`]); CRI-O never writes it, but
//! reads the one a root podman wrote on the node. Podman's "force Docker
//! Hub" switch is not modelled: CRI-O never sets it.
//!
//! Upstream: containers/image `pkg/shortnames/shortnames.go`,
//! `pkg/sysregistriesv2/shortnames.go`.

use serde::Serialize;

use super::{RegistriesConf, ShortNameMode};
use crate::origin::Origin;
use crate::quote::go_quote;
use crate::reference::{is_qualified_domain, Reference, ReferenceError};

/// How a candidate was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum CandidateVia {
    /// The input was fully qualified.
    Qualified,
    /// A short-name alias.
    Alias {
        /// The alias name (the repository part of the input).
        alias: String,
        /// Where the alias is defined.
        origin: Origin,
    },
    /// An unqualified-search registry.
    SearchRegistry {
        /// The search registry (`host[:port]`).
        registry: String,
        /// Where the search list was set.
        origin: Option<Origin>,
    },
}

/// One fully-qualified reference to try, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Normalized, with `latest` added when there was neither tag nor digest.
    #[serde(serialize_with = "serialize_display")]
    pub reference: Reference,
    /// How it was obtained.
    pub via: CandidateVia,
}

fn serialize_display<T: std::fmt::Display, S: serde::Serializer>(
    v: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Why a name does not resolve; messages as upstream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShortNameError {
    /// The input is not a reference.
    #[error("cannot parse input: {}: {source}", go_quote(input))]
    Parse {
        input: String,
        #[source]
        source: ReferenceError,
    },
    /// A qualified input that does not normalize.
    #[error("cannot normalize input: {}: {source}", go_quote(input))]
    Normalize {
        input: String,
        #[source]
        source: ReferenceError,
    },
    /// A search registry and the input do not make a reference.
    #[error(
        "creating reference with unqualified-search registry {}: {source}",
        go_quote(registry)
    )]
    SearchRegistry {
        registry: String,
        #[source]
        source: ReferenceError,
    },
    /// The user's tag or digest cannot be applied to the alias's value.
    #[error(
        "applying the tag or digest to alias value {}: {source}",
        go_quote(alias)
    )]
    Alias {
        alias: String,
        #[source]
        source: ReferenceError,
    },
    /// No alias, and an empty search list; `file` is where upstream says it was (not) set.
    #[error("short-name {} did not resolve to an alias and no unqualified-search registries are defined in {}", go_quote(input), go_quote(file))]
    NoSearchRegistries { input: String, file: String },
    /// No alias, an empty search list, and no configuration file at all.
    #[error(
        "short-name {} did not resolve to an alias and no containers-registries.conf(5) was found",
        go_quote(input)
    )]
    NoConfiguration { input: String },
    /// The machine-written short-name-aliases.conf cannot be read (upstream's message).
    #[error("{0}")]
    AliasesFile(String),
    /// Enforcing mode, several candidates, and nobody to ask.
    #[error("short-name resolution enforced but cannot prompt without a TTY: {} has {} candidates ({})", go_quote(input), candidates.len(), candidates.join(", "))]
    Ambiguous {
        input: String,
        candidates: Vec<String>,
    },
}

/// Resolves `input` to its candidates, in pull order.
///
/// `mode` is the short-name mode in force (CRI-O sets it itself and ignores
/// registries.conf). `tty` says whether a user could be prompted; this
/// library never prompts, so with `tty` every candidate is returned, as in
/// permissive mode.
pub fn resolve(
    conf: &RegistriesConf,
    input: &str,
    mode: ShortNameMode,
    tty: bool,
) -> Result<Vec<Candidate>, ShortNameError> {
    let named = Reference::parse(input).map_err(|source| ShortNameError::Parse {
        input: input.to_string(),
        source,
    })?;
    if is_qualified_domain(named.domain()) {
        return Ok(vec![qualified(input)?]);
    }
    if let Some(message) = &conf.short_name_aliases_error {
        return Err(ShortNameError::AliasesFile(message.clone()));
    }
    if let Some(candidate) = alias_candidate(conf, &named)? {
        return Ok(vec![candidate]);
    }
    let candidates = search_candidates(conf, input)?;
    if mode == ShortNameMode::Disabled || candidates.len() == 1 || tty {
        return Ok(candidates);
    }
    match mode {
        ShortNameMode::Enforcing => Err(ShortNameError::Ambiguous {
            input: input.to_string(),
            candidates: candidates.iter().map(|c| c.reference.to_string()).collect(),
        }),
        ShortNameMode::Permissive | ShortNameMode::Disabled => Ok(candidates),
    }
}

/// The one candidate of a fully qualified `input`: itself, normalized.
fn qualified(input: &str) -> Result<Candidate, ShortNameError> {
    let reference =
        Reference::parse_normalized_named(input).map_err(|source| ShortNameError::Normalize {
            input: input.to_string(),
            source,
        })?;
    Ok(Candidate {
        reference: reference.tag_name_only(),
        via: CandidateVia::Qualified,
    })
}

/// The alias's candidate for the short name `named`, with the input's tag
/// or digest applied; `None` when there is no alias or it is a tombstone.
///
/// The alias is looked up by the repository as typed (`library/fedora`
/// stays as it is).
fn alias_candidate(
    conf: &RegistriesConf,
    named: &Reference,
) -> Result<Option<Candidate>, ShortNameError> {
    let repo = named.name();
    let Some(alias) = conf.aliases.get(&repo) else {
        return Ok(None);
    };
    let Some(value) = &alias.value else {
        return Ok(None);
    };
    let alias_err = |source| ShortNameError::Alias {
        alias: value.clone(),
        source,
    };
    let mut r = Reference::parse_normalized_named(value).map_err(alias_err)?;
    if let Some(tag) = named.tag() {
        r = r.with_tag(tag).map_err(alias_err)?;
    }
    if let Some(digest) = named.digest() {
        r = r.with_digest(digest).map_err(alias_err)?;
    }
    Ok(Some(Candidate {
        reference: r.tag_name_only(),
        via: CandidateVia::Alias {
            alias: repo,
            origin: alias.origin.clone(),
        },
    }))
}

/// One candidate per unqualified-search registry, in the list's order; an
/// error when the list is empty, naming where it was (not) set.
fn search_candidates(conf: &RegistriesConf, input: &str) -> Result<Vec<Candidate>, ShortNameError> {
    if conf.unqualified_search_registries.is_empty() {
        return Err(match &conf.search_registries_file {
            Some(file) => ShortNameError::NoSearchRegistries {
                input: input.to_string(),
                file: file.clone(),
            },
            None => ShortNameError::NoConfiguration {
                input: input.to_string(),
            },
        });
    }
    let mut candidates = Vec::with_capacity(conf.unqualified_search_registries.len());
    for registry in &conf.unqualified_search_registries {
        let reference = Reference::parse_normalized_named(&format!("{registry}/{input}")).map_err(
            |source| ShortNameError::SearchRegistry {
                registry: registry.clone(),
                source,
            },
        )?;
        candidates.push(Candidate {
            reference: reference.tag_name_only(),
            via: CandidateVia::SearchRegistry {
                registry: registry.clone(),
                origin: conf.search_registries_origin.clone(),
            },
        });
    }
    Ok(candidates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registries::testdata::{self as td, load_files};
    use ShortNameMode::{Disabled, Enforcing, Permissive};

    const DIGEST: &str = "@sha256:d366a4665ab44f0648d7a00ae3fae139d55e32f9712c67accd604bb55df9d05a";

    fn refs(c: &[Candidate]) -> Vec<String> {
        c.iter().map(|c| c.reference.to_string()).collect()
    }

    fn one(conf: &RegistriesConf, input: &str) -> String {
        let c = resolve(conf, input, Enforcing, false).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(c.len(), 1, "{input}");
        c[0].reference.to_string()
    }

    /// Ported from TestResolve (without Podman's force-Docker-Hub switch).
    #[test]
    fn resolve_upstream_cases() {
        let conf = load_files(("testdata/aliases.conf", td::ALIASES), &[]).unwrap();
        for (input, want) in [
            (
                "docker".to_string(),
                "docker.io/library/foo:latest".to_string(),
            ),
            (
                "docker:tag".to_string(),
                "docker.io/library/foo:tag".to_string(),
            ),
            (
                format!("docker{DIGEST}"),
                format!("docker.io/library/foo{DIGEST}"),
            ),
            (
                "quay/foo".to_string(),
                "quay.io/library/foo:latest".to_string(),
            ),
            (
                "quay/foo:tag".to_string(),
                "quay.io/library/foo:tag".to_string(),
            ),
            (
                format!("quay/foo{DIGEST}"),
                format!("quay.io/library/foo{DIGEST}"),
            ),
            (
                "example".to_string(),
                "example.com/library/foo:latest".to_string(),
            ),
            (
                "example:tag".to_string(),
                "example.com/library/foo:tag".to_string(),
            ),
            (
                format!("example{DIGEST}"),
                format!("example.com/library/foo{DIGEST}"),
            ),
            (
                "registry.com/repo/image".to_string(),
                "registry.com/repo/image:latest".to_string(),
            ),
            (
                "registry.com/repo/image:tag".to_string(),
                "registry.com/repo/image:tag".to_string(),
            ),
            (
                format!("registry.com/repo/image{DIGEST}"),
                format!("registry.com/repo/image{DIGEST}"),
            ),
        ] {
            assert_eq!(one(&conf, &input), want, "{input}");
        }
        for (input, want) in [
            ("doesnotexist", "short-name \"doesnotexist\" did not resolve to an alias and no unqualified-search registries are defined in \"testdata/aliases.conf\""),
            ("", "cannot parse input: \"\": repository name must have at least one component"),
            ("Invalid#$", "cannot parse input: \"Invalid#$\": invalid reference format"),
        ] {
            let e = resolve(&conf, input, Permissive, false).unwrap_err().to_string();
            assert!(e.starts_with(want), "{input}: {e}");
        }
        // The tombstone `empty` is no alias: the search list is consulted.
        assert!(matches!(
            resolve(&conf, "empty", Disabled, false),
            Err(ShortNameError::NoSearchRegistries { .. })
        ));
    }

    /// Ported from TestResolveWithDropInConfigs (the machine-written
    /// aliases `added1`..`added3` are not modelled).
    #[test]
    fn resolve_with_drop_ins() {
        let conf = load_files(
            ("testdata/aliases.conf", td::ALIASES),
            td::SHORTNAMES_CONF_D,
        )
        .unwrap();
        for (input, want) in [
            (
                "docker".to_string(),
                "docker.io/library/config1:latest".to_string(),
            ),
            (
                "docker:tag".to_string(),
                "docker.io/library/config1:tag".to_string(),
            ),
            (
                format!("docker{DIGEST}"),
                format!("docker.io/library/config1{DIGEST}"),
            ),
            (
                "quay/foo".to_string(),
                "quay.io/library/foo:latest".to_string(),
            ),
            (
                "quay/foo:tag".to_string(),
                "quay.io/library/foo:tag".to_string(),
            ),
            (
                format!("quay/foo{DIGEST}"),
                format!("quay.io/library/foo{DIGEST}"),
            ),
            (
                "config1".to_string(),
                "config1.com/image:latest".to_string(),
            ),
            (
                "config1:tag".to_string(),
                "config1.com/image:tag".to_string(),
            ),
            (
                format!("config1{DIGEST}"),
                format!("config1.com/image{DIGEST}"),
            ),
            ("barz".to_string(), "barz.com/config2:latest".to_string()),
            ("barz:tag".to_string(), "barz.com/config2:tag".to_string()),
            (format!("barz{DIGEST}"), format!("barz.com/config2{DIGEST}")),
            ("added3".to_string(), "xxx.com/image:latest".to_string()),
            (
                "doesnotexist".to_string(),
                "example-overwrite.com/doesnotexist:latest".to_string(),
            ),
            (
                "quay.io/repo/fedora".to_string(),
                "quay.io/repo/fedora:latest".to_string(),
            ),
            (
                "localhost/repo/fedora:sometag".to_string(),
                "localhost/repo/fedora:sometag".to_string(),
            ),
            // `example` is erased by config-2, so the search registry applies.
            (
                "example".to_string(),
                "example-overwrite.com/example:latest".to_string(),
            ),
        ] {
            assert_eq!(one(&conf, &input), want, "{input}");
        }
        assert!(resolve(&conf, "", Enforcing, false).is_err());
        assert!(resolve(&conf, "Invalid#$", Enforcing, false).is_err());
        let c = resolve(&conf, "barz", Enforcing, false).unwrap();
        assert_eq!(
            c[0].via,
            CandidateVia::Alias {
                alias: "barz".to_string(),
                origin: Origin::file_line("registries.conf.d/config-2.conf", 12),
            }
        );
    }

    /// Ported from TestResolveWithVaryingShortNameModes (the rows with an
    /// invalid mode cannot be written: `ShortNameMode` has no such value).
    #[test]
    fn resolve_with_varying_modes() {
        for (file, text) in [
            ("no-reg.conf", td::NO_REG),
            ("one-reg.conf", td::ONE_REG),
            ("two-reg.conf", td::TWO_REG),
        ] {
            let conf = load_files((file, text), &[]).unwrap();
            for (mode, name, want) in [
                (Permissive, "repo/image", Some(1)),
                (Disabled, "repo/image", Some(1)),
                (Enforcing, "repo/image", Some(1)),
                (
                    Permissive,
                    "doesnotexist",
                    [None, Some(1), Some(2)][conf.unqualified_search_registries.len()],
                ),
                (
                    Disabled,
                    "doesnotexist",
                    [None, Some(1), Some(2)][conf.unqualified_search_registries.len()],
                ),
                (
                    Enforcing,
                    "doesnotexist",
                    [None, Some(1), None][conf.unqualified_search_registries.len()],
                ),
            ] {
                let got = resolve(&conf, name, mode, false).ok().map(|c| c.len());
                assert_eq!(got, want, "{file} {mode:?} {name}");
            }
        }
    }

    /// Ported from TestResolveAndRecord (the candidates; recording is not modelled).
    #[test]
    fn resolve_candidates_in_order() {
        let conf = load_files(("two-reg.conf", td::TWO_REG), &[]).unwrap();
        for (input, want) in [
            (
                "foo".to_string(),
                vec![
                    "quay.io/foo:latest".to_string(),
                    "registry.com/foo:latest".to_string(),
                ],
            ),
            (
                "foo:tag".to_string(),
                vec![
                    "quay.io/foo:tag".to_string(),
                    "registry.com/foo:tag".to_string(),
                ],
            ),
            (
                format!("foo{DIGEST}"),
                vec![
                    format!("quay.io/foo{DIGEST}"),
                    format!("registry.com/foo{DIGEST}"),
                ],
            ),
            (
                "repo/foo".to_string(),
                vec![
                    "quay.io/repo/foo:latest".to_string(),
                    "registry.com/repo/foo:latest".to_string(),
                ],
            ),
            (
                "repo/foo:tag".to_string(),
                vec![
                    "quay.io/repo/foo:tag".to_string(),
                    "registry.com/repo/foo:tag".to_string(),
                ],
            ),
            (
                format!("repo/foo{DIGEST}"),
                vec![
                    format!("quay.io/repo/foo{DIGEST}"),
                    format!("registry.com/repo/foo{DIGEST}"),
                ],
            ),
            (
                "repo/image".to_string(),
                vec!["quay.io/repo/image:latest".to_string()],
            ),
            (
                "repo/image:tag".to_string(),
                vec!["quay.io/repo/image:tag".to_string()],
            ),
            (
                format!("repo/image{DIGEST}"),
                vec![format!("quay.io/repo/image{DIGEST}")],
            ),
        ] {
            let got = resolve(&conf, &input, Permissive, false).unwrap();
            assert_eq!(refs(&got), want, "{input}");
        }
        let got = resolve(&conf, "foo", Permissive, false).unwrap();
        assert_eq!(
            got[1].via,
            CandidateVia::SearchRegistry {
                registry: "registry.com".to_string(),
                origin: Some(Origin::file_line("two-reg.conf", 1)),
            }
        );
    }

    /// Ported from TestIsShortName: which inputs are qualified (one
    /// candidate, as given) and which are short; unparsable input fails.
    #[test]
    fn qualified_or_short() {
        let conf = load_files(
            (
                "one.conf",
                "unqualified-search-registries = [\"search.io\"]\n",
            ),
            &[],
        )
        .unwrap();
        let d = &DIGEST[1..];
        for (input, short) in [
            ("fedora".to_string(), true),
            ("fedora:latest".to_string(), true),
            ("library/fedora".to_string(), true),
            ("library/fedora:latest".to_string(), true),
            (format!("busybox@{d}"), true),
            (format!("busybox:latest@{d}"), true),
            ("quay.io/fedora".to_string(), false),
            ("docker.io/fedora".to_string(), false),
            ("docker.io/library/fedora:latest".to_string(), false),
            ("localhost/fedora".to_string(), false),
            ("localhost:5000/fedora:latest".to_string(), false),
            (
                "example.foo.this.may.be.garbage.but.maybe.not:1234/fedora:latest".to_string(),
                false,
            ),
            (format!("docker.io/library/busybox@{d}"), false),
            (format!("docker.io/library/busybox:latest@{d}"), false),
            (format!("docker.io/fedora@{d}"), false),
        ] {
            let c = resolve(&conf, &input, Enforcing, false).unwrap();
            let via_search = matches!(c[0].via, CandidateVia::SearchRegistry { .. });
            assert_eq!(via_search, short, "{input}");
            assert_eq!(c[0].via == CandidateVia::Qualified, !short, "{input}");
        }
        for input in ["", "$$$", "::", "docker://quay.io/library/foo:bar", " "] {
            assert!(
                matches!(
                    resolve(&conf, input, Enforcing, false),
                    Err(ShortNameError::Parse { .. })
                ),
                "{input:?}"
            );
        }
        assert_eq!(
            one(&conf, "docker.io/fedora"),
            "docker.io/library/fedora:latest"
        );
        assert_eq!(
            one(&conf, &format!("busybox:latest@{d}")),
            format!("search.io/busybox:latest@{d}")
        );
    }

    /// Section 4.1 step 6: `docker.io/library/` is added for Docker Hub only.
    #[test]
    fn docker_hub_library_insertion() {
        let conf = load_files(
            (
                "s.conf",
                "unqualified-search-registries = [\"docker.io\", \"quay.io\"]\n",
            ),
            &[],
        )
        .unwrap();
        for (input, want) in [
            (
                "alpine:3",
                ["docker.io/library/alpine:3", "quay.io/alpine:3"],
            ),
            (
                "myorg/app",
                ["docker.io/myorg/app:latest", "quay.io/myorg/app:latest"],
            ),
            (
                "library/alpine",
                [
                    "docker.io/library/alpine:latest",
                    "quay.io/library/alpine:latest",
                ],
            ),
        ] {
            assert_eq!(
                refs(&resolve(&conf, input, Disabled, false).unwrap()),
                want,
                "{input}"
            );
        }
    }

    /// Section 4.1 steps 6-8: errors and modes with several candidates.
    #[test]
    fn modes_errors_and_tty() {
        let conf = load_files(("two.conf", td::TWO_REG), &[]).unwrap();
        let e = resolve(&conf, "foo", Enforcing, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short-name resolution enforced but cannot prompt without a TTY: \"foo\" has 2 candidates (quay.io/foo:latest, registry.com/foo:latest)"
        );
        assert_eq!(resolve(&conf, "foo", Enforcing, true).unwrap().len(), 2);
        assert_eq!(resolve(&conf, "foo", Permissive, true).unwrap().len(), 2);
        let e = resolve(&RegistriesConf::default(), "foo", Permissive, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short-name \"foo\" did not resolve to an alias and no containers-registries.conf(5) was found"
        );
        // A qualified name that does not normalize.
        let long = format!("docker.io/{}", "a".repeat(240));
        let e = resolve(&conf, &long, Enforcing, false).unwrap_err();
        assert!(e.to_string().starts_with(&format!("cannot normalize input: \"{long}\": repository name must not be more than 255 characters")), "{e}");
        // A search registry that makes the name too long fails even in disabled mode.
        let e = resolve(&conf, &"a".repeat(245), Disabled, false).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "creating reference with unqualified-search registry \"registry.com\": "
            ),
            "{e}"
        );
        // The origin named is the drop-in that emptied the list.
        let conf = load_files(
            ("two.conf", td::TWO_REG),
            &[("d/empty-usr.conf", td::EMPTY_USR_DROP_IN)],
        )
        .unwrap();
        let e = resolve(&conf, "foo", Disabled, false).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("are defined in \"d/empty-usr.conf\""),
            "{e}"
        );
    }

    #[test]
    fn candidates_serialize() {
        let conf = load_files(("testdata/aliases.conf", td::ALIASES), &[]).unwrap();
        let c = resolve(&conf, "docker:1", Enforcing, false).unwrap();
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v[0]["reference"], "docker.io/library/foo:1");
        assert_eq!(v[0]["via"]["kind"], "alias");
        assert_eq!(v[0]["via"]["alias"], "docker");
        assert_eq!(v[0]["via"]["origin"], "testdata/aliases.conf:4");
    }
}
