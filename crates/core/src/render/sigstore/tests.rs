//! Tests of `sigstore`, beside it rather than inside it.

use super::*;
use crate::render::registries::{edit_registries_config, MirrorSet, RegistriesInput, SourcePolicy};

#[test]
fn yaml_layout_and_long_keys() {
    let long = format!("registry.example.com/{}", "n".repeat(110));
    let keys: BTreeSet<String> = [
        "*.example.com".to_string(),
        "a.com".to_string(),
        long.clone(),
    ]
    .into_iter()
    .collect();
    assert_eq!(
            encode_registries_d(&keys),
            format!(
                "docker:\n  '*.example.com':\n    use-sigstore-attachments: true\n  a.com:\n    use-sigstore-attachments: true\n  ? {long}\n  : use-sigstore-attachments: true\n"
            )
        );
}

fn idms(source: &str, mirrors: &[&str]) -> MirrorSet {
    MirrorSet {
        source: source.to_string(),
        mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
        policy: SourcePolicy::AllowContactingSource,
        origin: crate::origin::Origin::from("ImageDigestMirrorSet/test"),
    }
}

fn itms(source: &str, mirrors: &[&str]) -> MirrorSet {
    MirrorSet {
        origin: crate::origin::Origin::from("ImageTagMirrorSet/test"),
        ..idms(source, mirrors)
    }
}

/// The registries.conf the MCO renders from these sets (template + edit).
fn rendered(
    idms_sets: Vec<MirrorSet>,
    icsp: Vec<MirrorSet>,
    itms_sets: Vec<MirrorSet>,
) -> V2RegistriesConf {
    let mut conf = V2RegistriesConf {
        unqualified_search_registries: Some(vec![
            "registry.access.redhat.com".into(),
            "docker.io".into(),
        ]),
        ..Default::default()
    };
    let input = RegistriesInput {
        idms: idms_sets,
        icsp,
        itms: itms_sets,
        ..Default::default()
    };
    edit_registries_config(&mut conf, &input).unwrap();
    conf
}

const CR2_SCOPES: &[&str] = &[
    "a.com/a1/a2",
    "a.com/a1/a2@sha256:0000000000000000000000000000000000000000000000000000000000000000",
    "*.example.com",
    "policy.scope",
    "foo.example.com/ns/repo",
];

fn keys_of(yaml: &str) -> BTreeSet<String> {
    yaml.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .map(|l| {
            let k = l.trim_start().trim_end_matches(':');
            k.trim_matches('\'').to_string()
        })
        .collect()
}

/// Ported from MCO helpers_test.go `TestGenerateSigstoreRegistriesConfig`
/// (the ClusterImagePolicy `test-cr2` scopes; the expected key sets are
/// upstream's).
#[test]
fn upstream_generate_sigstore_registries_config_cases() {
    let cases: Vec<(&str, Option<V2RegistriesConf>, Vec<&str>)> = vec![
        ("cip objects exist, icsp/idms/itms are empty", None, vec![]),
        (
            "cip has no revelant registries mirrors",
            Some(rendered(
                vec![idms("y.com/y1/y2", &["y-y1-y2.mirror/y1/y2"])],
                vec![idms("x.com/x1/x2", &["x-x1-x2.mirror/x1/x2"])],
                vec![itms("z.com/z1/z2", &["z-z1-z2.mirror/z1/z2"])],
            )),
            vec![],
        ),
        (
            "cip scope a.com/a1/a2 is super scope of registries sources",
            Some(rendered(
                vec![
                    idms("a.com/a1/a2", &["a-a1-a2.mirror/a1/a2"]),
                    idms("a.com/a1/a2/a3", &["a-a1-a2-a3.mirror/m1/m2/m3"]),
                    idms("a.com/a1/a2/a3-1", &["a-a1-a2-a3-1.mirror/m1/m2/m3"]),
                    idms("x.com/x1/x2", &["x-x1-x2.mirror/m1/m2"]),
                ],
                vec![],
                vec![],
            )),
            vec![
                "a-a1-a2-a3-1.mirror/m1/m2/m3",
                "a-a1-a2-a3.mirror/m1/m2/m3",
                "a-a1-a2.mirror/a1/a2",
                "a.com/a1/a2/a3",
                "a.com/a1/a2/a3-1",
            ],
        ),
        (
            "cip scope a.com/a1/a2 nested in registries sources",
            Some(rendered(
                vec![
                    idms("a.com", &["a.mirror"]),
                    idms("a.com/a1", &["a-a1.mirror/a1"]),
                    idms("x.com/x1/x2", &["x-x1-x2.mirror/x1/x2"]),
                ],
                vec![],
                vec![],
            )),
            vec!["a-a1.mirror/a1/a2"],
        ),
        (
            "cip wildcard scope *.example.com is the mirror source",
            Some(rendered(
                vec![idms("*.example.com", &["our.mirror/example"])],
                vec![],
                vec![],
            )),
            vec!["our.mirror/example/ns/repo", "our.mirror/example"],
        ),
        (
            "cip scope *.example.com and mirror source have wildcard matching",
            Some(rendered(
                vec![
                    idms("a.example.com", &["a-example.mirror"]),
                    idms(
                        "*.x.example.com",
                        &["matched.example.mirror", "star-x.example.mirror"],
                    ),
                    idms("*.scope", &["start-scope.mirror"]),
                    idms("x/x1/x2", &["x-x1-x2.mirror/x1/x2"]),
                ],
                vec![],
                vec![],
            )),
            vec![
                "a-example.mirror",
                "a.example.com",
                "star-x.example.mirror",
                "matched.example.mirror",
                "start-scope.mirror",
            ],
        ),
    ];
    for (name, registries, extra) in cases {
        let got = generate_sigstore_registries_d(CR2_SCOPES.iter().copied(), registries.as_ref())
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap();
        let want: BTreeSet<String> = CR2_SCOPES
            .iter()
            .chain(&extra)
            .map(|s| s.to_string())
            .collect();
        assert_eq!(keys_of(&got), want, "{name}\n{got}");
    }
}

#[test]
fn no_scope_no_file() {
    assert_eq!(generate_sigstore_registries_d([], None).unwrap(), None);
}

/// The exact bytes for the first upstream case.
#[test]
fn byte_exact_without_registries() {
    let got = generate_sigstore_registries_d(CR2_SCOPES.iter().copied(), None)
        .unwrap()
        .unwrap();
    assert_eq!(
            got,
            "docker:\n  '*.example.com':\n    use-sigstore-attachments: true\n  a.com/a1/a2:\n    use-sigstore-attachments: true\n  a.com/a1/a2@sha256:0000000000000000000000000000000000000000000000000000000000000000:\n    use-sigstore-attachments: true\n  foo.example.com/ns/repo:\n    use-sigstore-attachments: true\n  policy.scope:\n    use-sigstore-attachments: true\n"
        );
}

/// Tag-only mirrors and the source of a digest-only set both count.
#[test]
fn digest_and_tag_mirrors_and_source() {
    let conf = rendered(
        vec![idms("quay.io/ns", &["digest.mirror/ns"])],
        vec![],
        vec![itms("quay.io/ns", &["tag.mirror/ns"])],
    );
    let got = generate_sigstore_registries_d(["quay.io/ns/app"], Some(&conf))
        .unwrap()
        .unwrap();
    assert_eq!(
            got,
            "docker:\n  digest.mirror/ns/app:\n    use-sigstore-attachments: true\n  quay.io/ns/app:\n    use-sigstore-attachments: true\n  tag.mirror/ns/app:\n    use-sigstore-attachments: true\n"
        );
}
