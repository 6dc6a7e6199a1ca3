//! Tests of `load`, beside it rather than inside it.

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
    let reg = crate::registries::lookup::find_registry(&conf, "registry.com/image:tag").unwrap();
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
    let e = load_one("[registries.insecure]\nregistries = [\"*.example.com:5000\"]\n").unwrap_err();
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
    let text =
        "short-name-mode = \"prompt\"\n[[registry]]\nprefix = \"*.a.io:1\"\nlocation = \"b.io\"\n";
    assert_eq!(
        load_one(text).unwrap_err().message,
        "invalid short-name mode: \"prompt\""
    );
    // Wildcard prefixes before aliases.
    let text =
        "[[registry]]\nprefix = \"*.a.io:1\"\nlocation = \"b.io\"\n[aliases]\n\"a.io/x\" = \"y\"\n";
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
    let e = load_one("[Registries.Search]\nRegistries = []\nunqualified-search-registries = []\n")
        .unwrap();
    assert!(
        e.unqualified_search_registries.is_empty(),
        "the key is inside the v1 table"
    );
    let e = load_one("unqualified-search-registries = []\n[Registries.Search]\nRegistries = []\n")
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
    let drop_in = "[[registry]]\nlocation = \"a.io\"\n[[registry.mirror]]\nlocation = \"m2.io\"\n\
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

/// Upstream `postProcessRegistries` trims a mirror's location on a copy
/// (its loop variable): the checks see `m.io/m`, the entry keeps
/// `m.io/m/`, and every rewrite through the mirror gives `m.io/m//app:1`,
/// which `PullSourcesFromReference` refuses before any endpoint is tried.
#[test]
fn issue_34_mirror_location_keeps_its_trailing_slash() {
    let conf = load_one(
        "[[registry]]\nprefix = \"quay.io/ns\"\nlocation = \"quay.io/ns/\"\n\
         [[registry.mirror]]\nlocation = \"m.io/m/\"\n",
    )
    .unwrap();
    let r = &conf.registries[0];
    assert_eq!(
        r.location, "quay.io/ns",
        "the entry's own location is trimmed"
    );
    assert_eq!(r.mirrors[0].location, "m.io/m/", "the mirror's is not");
    let reference = crate::reference::Reference::parse_named("quay.io/ns/app:1").unwrap();
    let e = crate::registries::lookup::pull_sources(r, &reference).unwrap_err();
    assert!(e.to_string().starts_with("rewriting reference: "), "{e}");
    assert!(e.to_string().contains("m.io/m//app:1"), "{e}");
    // The checks still see the trimmed location, and say so.
    for (mirror, want) in [
        ("/", "invalid condition: mirror location is unset"),
        (
            "https://m.io/",
            "invalid location 'https://m.io/': URI schemes are not supported",
        ),
        (
            "m.io/m/\"\npull-from-mirror = \"bogus",
            "unsupported pull-from-mirror value \"bogus\" for mirror \"m.io/m\"",
        ),
    ] {
        let text = format!(
            "[[registry]]\nlocation = \"quay.io\"\n[[registry.mirror]]\nlocation = \"{mirror}\"\n"
        );
        assert!(
            err_of(&text).ends_with(want),
            "{mirror:?}: {}",
            err_of(&text)
        );
    }
}

/// BurntSushi/toml decodes every key of a table into the field it selects
/// (exactly or case-insensitively), in Go map order (`unifyStruct`): two
/// spellings with different values leave the node reading either one, so
/// the file is undetermined, naming both; with equal values, or aliases
/// tables that set different names, the order does not matter.
#[test]
fn issue_34_keys_differing_only_in_case() {
    for (text, both) in [
        (
            "[[registry]]\nlocation = \"b.io\"\nLocation = \"c.io\"\n",
            Some("both set location (\"c.io\" and \"b.io\")"),
        ),
        (
            "[[registry]]\nlocation = \"b.io\"\nINSECURE = true\ninsecure = false\n",
            Some("both set insecure"),
        ),
        (
            "[[registry]]\nlocation = \"b.io\"\n[[registry.mirror]]\nlocation = \"m.io\"\n\
             [[registry.Mirror]]\nlocation = \"n.io\"\n",
            Some("both set mirror (1 table and 1 table)"),
        ),
        (
            "[[registry]]\nlocation = \"b.io\"\n[[registry.mirror]]\nlocation = \"m.io\"\nLocation = \"n.io\"\n",
            Some("both set location"),
        ),
        (
            "[aliases]\n\"a\" = \"q.io/a\"\n[Aliases]\n\"a\" = \"q.io/b\"\n",
            Some("both set aliases"),
        ),
        ("[[registry]]\nlocation = \"b.io\"\nLocation = \"b.io\"\n", None),
        ("[aliases]\n\"a\" = \"q.io/a\"\n[Aliases]\n\"b\" = \"q.io/b\"\n", None),
    ] {
        if text.contains("\"b\" = ") {
            // Both tables' aliases, as Go adds both to one map.
            let conf = load_one(text).unwrap();
            assert_eq!(conf.aliases.keys().collect::<Vec<_>>(), ["a", "b"], "{text:?}");
        }
        match (load_one(text), both) {
            (Err(e), Some(want)) => {
                assert_eq!(e.undetermined, Some(Undetermined::MapOrder), "{text:?}");
                assert!(e.message.contains(want), "{text:?}: {e}");
            }
            (Ok(_), None) => {}
            (got, _) => panic!("{text:?}: {got:?}"),
        }
    }
}
