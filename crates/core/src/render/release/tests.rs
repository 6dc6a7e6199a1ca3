//! Each release family's output, with the cases of the MCO's and
//! runtime-utils' own tests on the release branches. Those tests compare
//! decoded structs; the bytes expected here are those structs written by
//! the branch's vendored BurntSushi/toml and containers/image
//! `V2RegistriesConf` (key order, omitted keys, escapes).

use super::*;
use crate::origin::Origin;
use crate::render::encode::encode_registries_conf;
use crate::render::policy::{update_policy_json_as, POLICY_JSON_TEMPLATE};
use crate::render::pool::template_conf;
use crate::render::registries::{
    edit_registries_config_as, MirrorSet, RegistriesInput, SourcePolicy,
};

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn icsp(sets: &[(&str, &[&str])]) -> Vec<MirrorSet> {
    sets.iter()
        .map(|(source, mirrors)| MirrorSet {
            source: source.to_string(),
            mirrors: strings(mirrors),
            policy: SourcePolicy::AllowContactingSource,
            origin: Origin::from("ImageContentSourcePolicy/test"),
        })
        .collect()
}

/// The MCO's `updateRegistriesConfig` of OpenShift 4.`minor`: the template
/// edited and written back.
fn render(minor: u32, insecure: &[&str], blocked: &[&str], sets: &[(&str, &[&str])]) -> String {
    let profile = McoProfile::for_minor(Some(minor));
    let input = RegistriesInput {
        icsp: icsp(sets),
        insecure: (!insecure.is_empty()).then(|| strings(insecure)),
        blocked: (!blocked.is_empty()).then(|| strings(blocked)),
        ..Default::default()
    };
    let mut conf = template_conf();
    edit_registries_config_as(&mut conf, &input, profile.edit).unwrap();
    encode_registries_conf(&conf, profile.encode)
}

/// The release table in the module docs, row by row, from each release
/// branch's go.mod and vendor tree.
#[test]
fn profile_by_openshift_minor() {
    use EditFamily::*;
    for (minor, ignition, edit, short_names, helper, quoting) in [
        (4, "2.2.0", ExactLocation, false, false, TomlQuoting::V0_3),
        (5, "2.2.0", ExactLocation, false, false, TomlQuoting::V0_3),
        (6, "3.1.0", ExactLocation, false, false, TomlQuoting::V0_3),
        (8, "3.2.0", ExactLocation, false, false, TomlQuoting::V0_3),
        (9, "3.2.0", Wildcards, true, false, TomlQuoting::V0_3),
        (10, "3.2.0", Wildcards, true, false, TomlQuoting::V0_4),
        (11, "3.2.0", NestedMirrors, true, false, TomlQuoting::V0_4),
        (12, "3.2.0", NestedMirrors, true, false, TomlQuoting::V0_4),
        (13, "3.2.0", PullFromMirror, true, false, TomlQuoting::V0_4),
        (14, "3.4.0", PullFromMirror, true, false, TomlQuoting::V0_4),
        (18, "3.4.0", PullFromMirror, true, false, TomlQuoting::V0_4),
        (19, "3.5.0", PullFromMirror, true, true, TomlQuoting::V0_4),
        (22, "3.5.0", PullFromMirror, true, true, TomlQuoting::V0_4),
    ] {
        let p = McoProfile::for_minor(Some(minor));
        assert_eq!(p.ignition_version, ignition, "4.{minor}");
        let layout = match minor {
            ..=5 => IgnitionLayout::V2,
            6..=10 => IgnitionLayout::V3Ascii,
            11..=13 => IgnitionLayout::V3,
            _ => IgnitionLayout::V3KernelArguments,
        };
        assert_eq!(p.ignition_layout, layout, "4.{minor}");
        assert_eq!(p.edit, edit, "4.{minor}");
        assert_eq!(p.encode.short_name_mode, short_names, "4.{minor}");
        assert_eq!(
            p.encode.additional_layer_store_auth_helper, helper,
            "4.{minor}"
        );
        assert_eq!(p.encode.quoting, quoting, "4.{minor}");
        assert_eq!(p.mirror_sets, minor >= 13, "4.{minor}");
        assert_eq!(p.search_registries, minor >= 7, "4.{minor}");
        assert_eq!(p.atomic_filter, minor >= 14, "4.{minor}");
        assert_eq!(p.cluster_image_policies, minor >= 16, "4.{minor}");
        assert_eq!(p.namespaced_policies, minor >= 18, "4.{minor}");
        assert_eq!(p.sigstore_mirrors, minor >= 17, "4.{minor}");
        assert_eq!(p.payload_policy_scopes_skipped, minor == 16, "4.{minor}");
    }
    assert_eq!(McoProfile::for_minor(None), McoProfile::default());
    assert_eq!(McoProfile::for_minor(Some(3)).minor, OLDEST_MODELLED);
    assert_eq!(McoProfile::for_minor(Some(30)).minor, NEWEST_MODELLED);
}

const INSECURE: &[&str] = &["registry.access.redhat.com", "insecure.com", "common.com"];
const BLOCKED: &[&str] = &["blocked.com", "common.com", "docker.io"];

/// release-4.4 (and 4.5–4.8, same runtime-utils edit) helpers_test.go
/// `TestUpdateRegistriesConfig` "insecure+blocked": insecure entries are
/// created before blocked ones; no `short-name-mode` key.
#[test]
fn release_4_4_update_registries_config_insecure_blocked() {
    let want = "\
unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]

[[registry]]
  prefix = \"\"
  location = \"registry.access.redhat.com\"
  insecure = true

[[registry]]
  prefix = \"\"
  location = \"insecure.com\"
  insecure = true

[[registry]]
  prefix = \"\"
  location = \"common.com\"
  insecure = true
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"blocked.com\"
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"docker.io\"
  blocked = true
";
    for minor in [4, 5, 6, 7, 8] {
        assert_eq!(render(minor, INSECURE, BLOCKED, &[]), want, "4.{minor}");
    }
}

/// release-4.9 (and 4.10–4.12) helpers_test.go `TestUpdateRegistriesConfig`
/// "insecure+blocked": blocked entries now come first.
#[test]
fn release_4_9_update_registries_config_insecure_blocked() {
    let want = "\
unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]
short-name-mode = \"\"

[[registry]]
  prefix = \"\"
  location = \"blocked.com\"
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"common.com\"
  insecure = true
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"docker.io\"
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"registry.access.redhat.com\"
  insecure = true

[[registry]]
  prefix = \"\"
  location = \"insecure.com\"
  insecure = true
";
    for minor in [9, 10, 11, 12] {
        assert_eq!(render(minor, INSECURE, BLOCKED, &[]), want, "4.{minor}");
    }
}

const PREFIX_SETS: &[(&str, &[&str])] = &[
    (
        "insecure.com/ns-i1",
        &["blocked.com/ns-b1", "other.com/ns-o1"],
    ),
    (
        "blocked.com/ns-b/ns2-b",
        &["other.com/ns-o2", "insecure.com/ns-i2"],
    ),
    (
        "other.com/ns-o3",
        &["insecure.com/ns-i2", "blocked.com/ns-b/ns3-b"],
    ),
];

/// The three mirrored entries both branches' "insecure+blocked prefixes"
/// cases expect, `mirror-by-digest-only` on each entry, no `pull-from-mirror`.
const PREFIX_ENTRIES: &str = "
[[registry]]
  prefix = \"\"
  location = \"blocked.com/ns-b/ns2-b\"
  blocked = true
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"other.com/ns-o2\"

  [[registry.mirror]]
    location = \"insecure.com/ns-i2\"
    insecure = true

[[registry]]
  prefix = \"\"
  location = \"insecure.com/ns-i1\"
  insecure = true
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"blocked.com/ns-b1\"

  [[registry.mirror]]
    location = \"other.com/ns-o1\"

[[registry]]
  prefix = \"\"
  location = \"other.com/ns-o3\"
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"insecure.com/ns-i2\"
    insecure = true

  [[registry.mirror]]
    location = \"blocked.com/ns-b/ns3-b\"
";

/// release-4.4 helpers_test.go `TestUpdateRegistriesConfig` "insecure+blocked prefixes".
#[test]
fn release_4_4_update_registries_config_prefixes() {
    let want = format!(
        "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n{PREFIX_ENTRIES}
[[registry]]
  prefix = \"\"
  location = \"insecure.com\"
  insecure = true

[[registry]]
  prefix = \"\"
  location = \"blocked.com\"
  blocked = true
"
    );
    let got = render(4, &["insecure.com"], &["blocked.com"], PREFIX_SETS);
    assert_eq!(got, want);
}

/// release-4.9 helpers_test.go `TestUpdateRegistriesConfig` "insecure+blocked
/// prefixes with wildcard entries" (the same case on release-4.10 to 4.12):
/// wildcard scopes become prefixes without a location.
#[test]
fn release_4_9_update_registries_config_wildcard_prefixes() {
    let mut sets = PREFIX_SETS.to_vec();
    sets[2].1 = &[
        "insecure.com/ns-i2",
        "blocked.com/ns-b/ns3-b",
        "foo.insecure-example.com/bar",
    ];
    let insecure = [
        "insecure.com",
        "*.insecure-example.com",
        "*.insecure.blocked-example.com",
    ];
    let blocked = [
        "blocked.com",
        "*.blocked.insecure-example.com",
        "*.blocked-example.com",
    ];
    let want = format!(
        "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]
short-name-mode = \"\"
{PREFIX_ENTRIES}
  [[registry.mirror]]
    location = \"foo.insecure-example.com/bar\"
    insecure = true

[[registry]]
  prefix = \"\"
  location = \"blocked.com\"
  blocked = true

[[registry]]
  prefix = \"*.blocked.insecure-example.com\"
  insecure = true
  blocked = true

[[registry]]
  prefix = \"*.blocked-example.com\"
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"insecure.com\"
  insecure = true

[[registry]]
  prefix = \"*.insecure-example.com\"
  insecure = true

[[registry]]
  prefix = \"*.insecure.blocked-example.com\"
  insecure = true
  blocked = true
"
    );
    for minor in [9, 10, 11, 12] {
        assert_eq!(render(minor, &insecure, &blocked, &sets), want, "4.{minor}");
    }
}

const NESTED_SETS: &[(&str, &[&str])] = &[
    ("primary.com/top", &["mirror.com/primary"]),
    (
        "primary.com/top/insecure/more-specific",
        &["mirror.com/more-specific"],
    ),
];

/// runtime-utils c736ec4e (vendored by release-4.11; 3beb0b58 of
/// release-4.12 has the same edit) registries_test.go
/// `TestEditRegistriesConfig` "insecure+blocked scopes inside a configured
/// mirror": nested entries get the source's mirrors and
/// `mirror-by-digest-only`.
#[test]
fn release_4_11_edit_registries_config_nested_scopes() {
    let head = "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]
short-name-mode = \"\"

[[registry]]
  prefix = \"\"
  location = \"primary.com/top\"
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"mirror.com/primary\"

[[registry]]
  prefix = \"\"
  location = \"primary.com/top/insecure/more-specific\"
  insecure = true
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"mirror.com/more-specific\"
";
    let want = format!(
        "{head}
[[registry]]
  prefix = \"\"
  location = \"primary.com/top/blocked\"
  blocked = true
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"mirror.com/primary/blocked\"

[[registry]]
  prefix = \"\"
  location = \"primary.com/top/insecure\"
  insecure = true
  mirror-by-digest-only = true

  [[registry.mirror]]
    location = \"mirror.com/primary/insecure\"
"
    );
    let insecure = ["primary.com/top/insecure"];
    let blocked = ["primary.com/top/blocked"];
    for minor in [11, 12] {
        assert_eq!(
            render(minor, &insecure, &blocked, NESTED_SETS),
            want,
            "4.{minor}"
        );
    }
    // runtime-utils 8b8348d8 (4.9, 4.10) had no propagation: the nested
    // entries keep no mirrors, so CRI-O pulls them from the source.
    let want = format!(
        "{head}
[[registry]]
  prefix = \"\"
  location = \"primary.com/top/blocked\"
  blocked = true

[[registry]]
  prefix = \"\"
  location = \"primary.com/top/insecure\"
  insecure = true
"
    );
    assert_eq!(render(10, &insecure, &blocked, NESTED_SETS), want);
}

/// An ICSP source on each side of the 4.13 line: `mirror-by-digest-only`
/// on the entry up to 4.12, `pull-from-mirror = "digest-only"` per mirror
/// from 4.13 (runtime-utils bb750888, "Add support ImageDigest,TagMirrorSet CRDs").
#[test]
fn icsp_source_before_and_after_4_13() {
    let sets: &[(&str, &[&str])] = &[("quay.io/ocp", &["mirror.example.com/ocp"])];
    let entry = |by_digest: &str, pull: &str| {
        format!(
            "\n[[registry]]\n  prefix = \"\"\n  location = \"quay.io/ocp\"\n{by_digest}\n  [[registry.mirror]]\n    location = \"mirror.example.com/ocp\"\n{pull}"
        )
    };
    let search =
        "unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\n";
    let old = entry("  mirror-by-digest-only = true\n", "");
    let new = entry("", "    pull-from-mirror = \"digest-only\"\n");
    for (minor, want) in [
        (8, format!("{search}{old}")),
        (9, format!("{search}short-name-mode = \"\"\n{old}")),
        (12, format!("{search}short-name-mode = \"\"\n{old}")),
        (13, format!("{search}short-name-mode = \"\"\n{new}")),
        (
            19,
            format!(
                "{search}short-name-mode = \"\"\nadditional-layer-store-auth-helper = \"\"\n{new}"
            ),
        ),
    ] {
        assert_eq!(render(minor, &[], &[], sets), want, "4.{minor}");
    }
}

/// BurntSushi/toml v0.3.1 (4.4–4.9) escapes only `\t \n \r " \`; v0.4.1
/// and later escape every control character, in lower-case hex.
#[test]
fn string_escapes_by_toml_writer() {
    let location = "a\u{b}b\u{1f}c\td\"e";
    for (minor, want) in [
        (9, "a\u{b}b\u{1f}c\\td\\\"e"),
        (10, "a\\u000bb\\u001fc\\td\\\"e"),
        (22, "a\\u000bb\\u001fc\\td\\\"e"),
    ] {
        let got = render(minor, &[location], &[], &[]);
        assert!(
            got.contains(&format!("  location = \"{want}\"\n")),
            "4.{minor}: {got}"
        );
    }
}

/// release-4.10 helpers_test.go `TestUpdatePolicyJSON` "blocked": `atomic`
/// is the `docker` scopes' copy (4.14 dropped scopes of three or more
/// slashes from `atomic`); and release-4.12's "block payload image" case
/// (an allowed list holding only the payload repository next to a blocked
/// list) is an error before 4.11.
#[test]
fn release_4_10_update_policy_json() {
    let blocked = strings(&["block.com", "*.blocked-example.com", "a.com/b/c/d"]);
    let none = Default::default();
    let policy = |minor: u32, allowed: Option<&[String]>| {
        update_policy_json_as(
            POLICY_JSON_TEMPLATE,
            Some(&blocked),
            allowed,
            Some("release-reg.io/image/release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            &none,
            &McoProfile::for_minor(Some(minor)),
        )
    };
    let scopes = r#"{"*.blocked-example.com":[{"type":"reject"}],"a.com/b/c/d":[{"type":"reject"}],"block.com":[{"type":"reject"}]}"#;
    let want = format!(
        r#"{{"default":[{{"type":"insecureAcceptAnything"}}],"transports":{{"atomic":{scopes},"docker":{scopes},"docker-daemon":{{"":[{{"type":"insecureAcceptAnything"}}]}}}}}}"#
    );
    for minor in [4, 10, 13] {
        assert_eq!(policy(minor, None).unwrap(), want, "4.{minor}");
    }
    assert!(!policy(14, None)
        .unwrap()
        .contains(r#""atomic":{"*.blocked-example.com":[{"type":"reject"}],"a.com"#));
    let payload = strings(&["release-reg.io/image/release"]);
    assert!(policy(10, Some(&payload)).is_err());
    assert!(policy(12, Some(&payload)).is_ok());
}

/// The signature policy objects each release reads, through one whole
/// sync: release-4.16's controller lists ClusterImagePolicies only (no
/// ImagePolicy lister until release-4.18) and its
/// `generateSigstoreRegistriesdConfig(clusterScopePolicies)` names the
/// policy scopes only; release-4.17 adds the scopes' mirrors from the
/// registries.conf of the same sync (`TestGenerateSigstoreRegistriesConfig`
/// of each branch).
#[test]
fn image_policies_by_release() {
    use crate::objects::Inputs;
    use crate::render::pool::render_pool;
    use crate::render::sigstore::SIGSTORE_REGISTRIES_D;
    let key = serde_json::json!({"rootOfTrust": {"policyType": "PublicKey",
        "publicKey": {"keyData": "dGVzdC1rZXktZGF0YQ=="}}});
    let inputs = |minor: u32| -> Inputs {
        let cv = serde_json::json!({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
            "metadata": {"name": "version"},
            "status": {"desired": {"version": format!("4.{minor}.3"),
                "image": "release-reg.io/image/release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}});
        let icsp = serde_json::json!({"apiVersion": "operator.openshift.io/v1alpha1",
            "kind": "ImageContentSourcePolicy", "metadata": {"name": "test"},
            "spec": {"repositoryDigestMirrors": [{"source": "test0.com/ns", "mirrors": ["mirror.com/ns"]}]}});
        let cip = serde_json::json!({"apiVersion": "config.openshift.io/v1alpha1",
            "kind": "ClusterImagePolicy", "metadata": {"name": "test-cr0"},
            "spec": {"scopes": ["test0.com/ns"], "policy": key}});
        let ip = serde_json::json!({"apiVersion": "config.openshift.io/v1alpha1",
            "kind": "ImagePolicy", "metadata": {"name": "test-cr1", "namespace": "testnamespace"},
            "spec": {"scopes": ["test1.com"], "policy": key}});
        Inputs {
            cluster_version: Some(serde_json::from_value(cv).unwrap()),
            icsps: vec![serde_json::from_value(icsp).unwrap()],
            cluster_image_policies: vec![serde_json::from_value(cip).unwrap()],
            image_policies: vec![serde_json::from_value(ip).unwrap()],
            ..Default::default()
        }
    };
    let namespaced = "/etc/crio/policies/testnamespace.json";
    for minor in [15, 16, 17, 18, 22] {
        let rendered = render_pool(&inputs(minor), "worker").unwrap();
        let sigstore = rendered.file(SIGSTORE_REGISTRIES_D);
        let ignored: Vec<String> = rendered.warnings.iter().map(|w| w.to_string()).collect();
        let want = match minor {
            ..=15 => None,
            16 => Some("docker:\n  test0.com/ns:\n    use-sigstore-attachments: true\n"),
            17 => Some("docker:\n  mirror.com/ns:\n    use-sigstore-attachments: true\n  test0.com/ns:\n    use-sigstore-attachments: true\n"),
            // release-4.18 `generateSigstoreRegistriesdConfig(clusterScopePolicies, scopeNamespacePolicies, registriesTOML)`.
            _ => Some("docker:\n  mirror.com/ns:\n    use-sigstore-attachments: true\n  test0.com/ns:\n    use-sigstore-attachments: true\n  test1.com:\n    use-sigstore-attachments: true\n"),
        };
        assert_eq!(sigstore, want, "4.{minor}");
        assert_eq!(
            rendered.file(namespaced).is_some(),
            minor >= 18,
            "4.{minor}: {ignored:?}"
        );
        let ip_ignored = ignored.iter().any(|w| {
            w.contains("ImagePolicy/testnamespace/test-cr1") && w.contains("(read from 4.18 on)")
        });
        assert_eq!(ip_ignored, minor < 18, "4.{minor}: {ignored:?}");
        let cip_ignored = ignored.iter().any(|w| {
            w.contains("ClusterImagePolicy/test-cr0") && w.contains("(read from 4.16 on)")
        });
        assert_eq!(cip_ignored, minor < 16, "4.{minor}: {ignored:?}");
    }
}

fn icsp_sets(sets: &[(&str, &[&str])]) -> RegistriesInput {
    RegistriesInput {
        icsp: icsp(sets),
        ..Default::default()
    }
}

/// The insecure, blocked and allowed lists of an Image config.
type Lists<'a> = [&'a [&'a str]; 3];

/// The first finding of each release's `validateRegistriesConfScopes`.
fn validation(minor: u32, lists: [&[&str]; 3], input: &RegistriesInput) -> Result<(), String> {
    let family = McoProfile::for_minor(Some(minor)).validation;
    let [insecure, blocked, allowed] = lists.map(strings);
    crate::render::registries::validate_scopes_as(&insecure, &blocked, &allowed, input, family)
        .map_err(|f| f.message())
}

/// release-4.11 and release-4.12 helpers_test.go
/// `TestValidateRegistriesConfScopes`, every row; release-4.9 and
/// release-4.10 have no such test, and their runtime-utils
/// `IsValidRegistriesConfScope` has no `scope == ""` check and their
/// `validateRegistriesConfScopes` no empty-entry checks: the same rows
/// pass there.
#[test]
fn release_4_9_to_4_12_validate_registries_conf_scopes() {
    let sets: &[(&str, &[&str])] = &[
        (
            "insecure.com/ns-i1",
            &["blocked.com/ns-b1", "other.com/ns-o1"],
        ),
        (
            "blocked.com/ns-b/ns2-b",
            &["other.com/ns-o2", "insecure.com/ns-i2"],
        ),
        (
            "other.com/ns-o3",
            &[
                "insecure.com/ns-i2",
                "blocked.com/ns-b/ns3-b",
                "foo.insecure-example.com/bar",
            ],
        ),
    ];
    let good: [&[&str]; 3] = [&["*.insecure.com"], &["*.block.com"], &["*.allowed.com"]];
    let rows: Vec<(Lists, RegistriesInput, Option<&str>)> = vec![
        (
            [&[""], &["*.block.com"], &["*.allowed.com"]],
            icsp_sets(sets),
            Some(r#"invalid entry for insecure registries """#),
        ),
        (
            [&["*.insecure.com"], &[""], &["*.allowed.com"]],
            icsp_sets(sets),
            Some(r#"invalid entry for blocked registries """#),
        ),
        (
            [&["*.insecure.com"], &["*.block.com"], &[""]],
            icsp_sets(sets),
            Some(r#"invalid entry for allowed registries """#),
        ),
        (
            good,
            icsp_sets(&[("", &["blocked.com/ns-b1", "other.com/ns-o1"])]),
            Some("invalid empty entry for source configuration"),
        ),
        (
            good,
            icsp_sets(&[("insecure.com/ns-i1", &["", "other.com/ns-o1"])]),
            Some("invalid empty entry for mirror configuration"),
        ),
        (
            good,
            icsp_sets(&[("insecure.com/ns-i1", &["other.com/ns-o1"])]),
            None,
        ),
    ];
    for (lists, input, want) in &rows {
        for minor in [11, 12] {
            let want = match want {
                Some(msg) => Err(msg.to_string()),
                None => Ok(()),
            };
            assert_eq!(
                validation(minor, *lists, input),
                want,
                "4.{minor}: {lists:?}"
            );
        }
        for minor in [9, 10] {
            assert_eq!(
                validation(minor, *lists, input),
                Ok(()),
                "4.{minor}: {lists:?}"
            );
        }
        assert_eq!(
            validation(8, *lists, input),
            Ok(()),
            "4.8 does not validate"
        );
    }
    // The `*` check of release-4.9 to release-4.15, on sources then mirrors.
    for (sets, entry) in [
        (
            &[("*.example.com", &["mirror.com/a"][..])][..],
            "*.example.com",
        ),
        (
            &[("example.com/a", &["mirror.com/a", "*.mirror.com"][..])][..],
            "*.mirror.com",
        ),
    ] {
        for minor in [9, 10, 11, 12, 13, 15] {
            assert_eq!(
                validation(minor, good, &icsp_sets(sets)),
                Err(format!(
                    "wildcard entries are not supported with mirror configuration \"{entry}\""
                )),
                "4.{minor}"
            );
        }
        // From 4.16 `sourceRegex` allows a `*.domain` source; `mirrorRegex` no `*`.
        let patterns = validation(16, good, &icsp_sets(sets));
        match entry {
            "*.example.com" => assert_eq!(patterns, Ok(())),
            _ => assert_eq!(
                patterns,
                Err(format!("invalid format for mirror \"{entry}\""))
            ),
        }
    }
}

/// release-4.13 to release-4.15 `validateRegistriesConfScopes`: the
/// conflicting `mirrorSourcePolicy` message (release-4.15 helpers_test.go
/// `TestValidateRegistriesConfScopes` "conflicting mirrorSourcePolicy" row
/// names imagecontentsourcepolicies; 4.13 and 4.14 do not), and an ICSP set
/// is not checked against IDMS policies before 4.13 (no IDMS is read).
#[test]
fn release_4_13_to_4_15_conflicting_source_policy() {
    let mut input = icsp_sets(&[("insecure.com/ns-i1", &["other.com/ns-o1"])]);
    input.idms = vec![MirrorSet {
        source: "insecure.com/ns-i1".into(),
        mirrors: strings(&["other.com/ns-o2"]),
        policy: SourcePolicy::NeverContactSource,
        origin: Origin::from("ImageDigestMirrorSet/test"),
    }];
    let good: [&[&str]; 3] = [&[], &[], &[]];
    let conflict = |tail: &str| {
        format!(
            "conflicting mirrorSourcePolicy is set for the same source \"insecure.com/ns-i1\" in {tail} (first set by ImageDigestMirrorSet/test)"
        )
    };
    for minor in [13, 14] {
        assert_eq!(
            validation(minor, good, &input),
            Err(conflict("imagedigestmirrorsets and/or imagetagmirrorsets")),
            "4.{minor}"
        );
    }
    for minor in [15, 16, 22] {
        assert_eq!(
            validation(minor, good, &input),
            Err(conflict(
                "imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies"
            )),
            "4.{minor}"
        );
    }
    assert_eq!(validation(12, good, &input), Ok(()));
}
