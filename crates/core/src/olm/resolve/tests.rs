use super::*;
use crate::olm::catalog::{read_file, Catalog};

fn entry(name: &str, replaces: Option<&str>, skips: &[&str]) -> ChannelEntry {
    ChannelEntry {
        name: name.to_string(),
        replaces: replaces.map(str::to_string),
        skips: skips.iter().map(|s| s.to_string()).collect(),
        skip_range: None,
    }
}

fn names(sorted: &[&ChannelEntry]) -> Vec<String> {
    sorted.iter().map(|e| e.name.clone()).collect()
}

/// A row: name, channel entries, the order or the error.
type SortCase = (
    &'static str,
    Vec<ChannelEntry>,
    Result<Vec<&'static str>, &'static str>,
);

/// operator-lifecycle-manager resolver_test.go `TestSortChannel`, every case.
#[test]
fn olm_test_sort_channel() {
    let cases: Vec<SortCase> = vec![
        (
            "wrinkle-free",
            vec![entry("b", None, &[]), entry("a", Some("b"), &[])],
            Ok(vec!["a", "b"]),
        ),
        ("empty", vec![], Ok(vec![])),
        (
            "replacement cycle",
            vec![entry("a", Some("b"), &[]), entry("b", Some("a"), &[])],
            Err(
                r#"no channel heads (entries not replaced by another entry) found in channel "channel" of package "package""#,
            ),
        ),
        (
            "replacement cycle (three)",
            vec![
                entry("a", Some("b"), &[]),
                entry("b", Some("c"), &[]),
                entry("c", Some("b"), &[]),
            ],
            Err(
                r#"a cycle exists in the chain of replacement beginning with "a" in channel "channel" of package "package""#,
            ),
        ),
        (
            "skipped and replaced entry omitted",
            vec![entry("a", Some("b"), &["b"]), entry("b", None, &[])],
            Ok(vec!["a"]),
        ),
        (
            "skipped entry omitted",
            vec![
                entry("a", Some("b"), &["c"]),
                entry("b", Some("c"), &[]),
                entry("c", None, &[]),
            ],
            Ok(vec!["a", "b"]),
        ),
        (
            "two replaces chains",
            vec![
                entry("a", None, &[]),
                entry("b", Some("c"), &[]),
                entry("c", None, &[]),
            ],
            Err(
                r#"a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "channel" of package "package": a, b...c"#,
            ),
        ),
    ];
    for (name, input, want) in cases {
        let got = sort_channel(&input, "package", "channel").map(|s| names(&s));
        let want = want
            .map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .map_err(str::to_string);
        assert_eq!(got, want, "{name}");
    }
}

/// A catalog of package `etcd`, channel `stable`, written as FBC YAML.
fn catalog(channel: &str, bundles: &[(&str, &str)], extra: &str) -> Catalog {
    let mut text = format!("schema: olm.package\nname: etcd\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: etcd\nname: stable\nentries:\n{channel}");
    for (name, version) in bundles {
        text.push_str(&format!(
            "---\nschema: olm.bundle\nname: {name}\npackage: etcd\nimage: q.io/etcd/bundle:{version}\nproperties:\n- type: olm.package\n  value: {{packageName: etcd, version: {version}}}\n"
        ));
    }
    text.push_str(extra);
    Catalog::assemble([read_file("c.yaml", &text, &|p| p == "etcd").unwrap()])
}

fn req<'a>(installed: Option<(&'a str, &'a str)>) -> Request<'a> {
    Request {
        subscription: "etcd",
        catalog: "olm/ops",
        package: "etcd",
        channel: Some("stable"),
        installed: installed.map(|(n, v)| (n, Some(Version::parse(v).unwrap()))),
        starting_csv: None,
        to: None,
        max_hops: 50,
    }
}

fn hops(path: &UpdatePath) -> Vec<(String, Edge)> {
    path.hops.iter().map(|h| (h.to.clone(), h.edge)).collect()
}

const BUNDLES: &[(&str, &str)] = &[
    ("etcd.v1", "1.0.0"),
    ("etcd.v2", "2.0.0"),
    ("etcd.v3", "3.0.0"),
    ("etcd.v4", "4.0.0"),
];

/// The replaces chain is walked one hop at a time (resolver_test.go
/// `TestSolveOperators_FindLatestVersion` resolves one hop; the
/// Subscription controller repeats it until the head).
#[test]
fn replaces_chain_hop_by_hop() {
    let c = catalog("- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n- name: etcd.v3\n  replaces: etcd.v2\n", BUNDLES, "");
    let p = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap();
    assert_eq!(
        hops(&p),
        [
            ("etcd.v2".into(), Edge::Replaces),
            ("etcd.v3".into(), Edge::Replaces)
        ]
    );
    assert_eq!((p.head.as_str(), p.end), ("etcd.v3", End::Head));
    let at_head = update_path(&c, &req(Some(("etcd.v3", "3.0.0")))).unwrap();
    assert!(at_head.hops.is_empty() && at_head.end == End::Head);
}

/// resolver_test.go `TestSolveOperators_WithSkips`: a head that skips the
/// installed CSV is the candidate; the skipped entries are left out of
/// the order; the candidate nearest the head wins.
#[test]
fn olm_test_solve_operators_with_skips() {
    let c = catalog("- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n- name: etcd.v3\n  replaces: etcd.v2\n  skips: [etcd.v1]\n", BUNDLES, "");
    let p = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap();
    assert_eq!(hops(&p), [("etcd.v3".into(), Edge::Skips)]);
}

/// `SkipRangeIncludesPredicate`: a head whose skipRange holds the
/// installed version is one hop; a range OLM cannot parse is none.
#[test]
fn skip_range_contains_the_installed_version() {
    let chain = "- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n- name: etcd.v4\n  replaces: etcd.v2\n  skipRange: '>=1.0.0 <4.0.0'\n";
    let c = catalog(chain, BUNDLES, "");
    let p = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap();
    assert_eq!(hops(&p), [("etcd.v4".into(), Edge::SkipRange)]);
    // Not in the catalog at all (the mirror dropped it): the range still covers it.
    let p = update_path(&c, &req(Some(("etcd.v0", "1.5.0")))).unwrap();
    assert_eq!(hops(&p), [("etcd.v4".into(), Edge::SkipRange)]);
    let broken = chain.replace("'>=1.0.0 <4.0.0'", "'>= x'");
    let e = update_path(
        &catalog(&broken, BUNDLES, ""),
        &req(Some(("etcd.v0", "1.5.0"))),
    )
    .unwrap_err();
    assert_eq!(e.reason(), "noUpdatePath", "{e:?}");
}

/// An installed CSV no edge covers, the head elsewhere: OLM never
/// updates it (oc-mirror's head-only mirroring).
#[test]
fn no_update_path_from_a_csv_the_catalog_dropped() {
    let c = catalog(
        "- name: etcd.v3\n- name: etcd.v4\n  replaces: etcd.v3\n",
        BUNDLES,
        "",
    );
    let e = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap_err();
    assert_eq!(e.reason(), "noUpdatePath");
    assert!(e.message().contains("from etcd.v1"), "{e:?}");
}

#[test]
fn invalid_channels_fail_resolution() {
    for chain in [
        "- name: etcd.v1\n- name: etcd.v2\n",
        "- name: etcd.v1\n  replaces: etcd.v2\n- name: etcd.v2\n  replaces: etcd.v1\n",
    ] {
        let e = update_path(
            &catalog(chain, BUNDLES, ""),
            &req(Some(("etcd.v1", "1.0.0"))),
        )
        .unwrap_err();
        assert_eq!(e.reason(), "invalidChannel", "{chain}");
    }
}

/// The resolver's messages of `getSubscriptionVariables` for a missing
/// package, channel and startingCSV.
#[test]
fn subscription_not_found_messages() {
    let c = catalog("- name: etcd.v1\n", BUNDLES, "");
    let mut r = req(None);
    r.package = "nope";
    assert_eq!(
        update_path(&c, &r).unwrap_err(),
        Stop::PackageNotFound(
            "no operators found in package nope in the catalog referenced by subscription etcd"
                .into()
        )
    );
    let mut r = req(None);
    r.channel = Some("fast");
    assert_eq!(update_path(&c, &r).unwrap_err(), Stop::ChannelNotFound("no operators found in channel fast of package etcd in the catalog referenced by subscription etcd".into()));
    let mut r = req(None);
    r.starting_csv = Some("etcd.v9");
    assert_eq!(update_path(&c, &r).unwrap_err(), Stop::StartingCsvNotFound("no operators found with name etcd.v9 in channel stable of package etcd in the catalog referenced by subscription etcd".into()));
}

/// resolver_test.go `TestSolveOperators_WithSkipsAndStartingCSV`: the
/// startingCSV is installed, then updated from.
#[test]
fn olm_test_solve_operators_with_skips_and_starting_csv() {
    let c = catalog("- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n- name: etcd.v3\n  replaces: etcd.v2\n", BUNDLES, "");
    let mut r = req(None);
    r.starting_csv = Some("etcd.v2");
    let p = update_path(&c, &r).unwrap();
    assert_eq!(
        hops(&p),
        [
            ("etcd.v2".into(), Edge::Install),
            ("etcd.v3".into(), Edge::Replaces)
        ]
    );
    r.starting_csv = None;
    r.to = None;
    let p = update_path(&c, &r).unwrap();
    assert_eq!(
        hops(&p),
        [("etcd.v3".into(), Edge::Install)],
        "nothing installed: the head"
    );
    let mut r = req(Some(("etcd.v1", "1.0.0")));
    r.to = Some("etcd.v2");
    let p = update_path(&c, &r).unwrap();
    assert_eq!((hops(&p).len(), p.end), (1, End::Target));
}

/// resolver_test.go `TestSolveOperators_WithPackageDependencies` and
/// `TestSolveOperators_WithGVKDependencies`: a candidate whose required
/// package or GVK no other package provides is passed over.
#[test]
fn olm_test_solve_operators_with_dependencies() {
    let chain = "- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n";
    let needs = |props: &str| {
        format!(
        "---\nschema: olm.bundle\nname: etcd.v2\npackage: etcd\nimage: q.io/b:2\nproperties:\n- type: olm.package\n  value: {{packageName: etcd, version: 2.0.0}}\n{props}"
    )
    };
    let provider = "---\nschema: olm.bundle\nname: cert.v1.2.0\npackage: cert\nimage: q.io/c:1\nproperties:\n- type: olm.package\n  value: {packageName: cert, version: 1.2.0}\n- type: olm.gvk\n  value: {group: c.io, version: v1, kind: Cert}\n";
    let bundles = &[("etcd.v1", "1.0.0")];
    for (props, extra, ok) in [
        (
            "- type: olm.package.required\n  value: {packageName: cert, versionRange: '>=1.0.0'}\n",
            provider,
            true,
        ),
        (
            "- type: olm.package.required\n  value: {packageName: cert, versionRange: '>=2.0.0'}\n",
            provider,
            false,
        ),
        (
            "- type: olm.gvk.required\n  value: {group: c.io, version: v1, kind: Cert}\n",
            provider,
            true,
        ),
        (
            "- type: olm.gvk.required\n  value: {group: c.io, version: v1, kind: Cert}\n",
            "",
            false,
        ),
    ] {
        let c = catalog(chain, bundles, &format!("{}{extra}", needs(props)));
        let got = update_path(&c, &req(Some(("etcd.v1", "1.0.0"))));
        match ok {
            true => assert_eq!(got.map(|p| p.hops.len()), Ok(1), "{props}"),
            false => assert_eq!(
                got.unwrap_err().reason(),
                "unsatisfiedDependency",
                "{props}"
            ),
        }
    }
}

/// With no channel, every channel is a source: the default first
/// (`getSubscriptionVariables`'s sort), then by name.
#[test]
fn no_channel_reads_every_channel_default_first() {
    let mut c = catalog(
        "- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n",
        BUNDLES,
        "",
    );
    let p = c.packages.get_mut("etcd").unwrap();
    p.channels
        .insert("alpha".into(), vec![entry("etcd.v4", Some("etcd.v1"), &[])]);
    let mut r = req(Some(("etcd.v1", "1.0.0")));
    r.channel = None;
    assert_eq!(
        hops(&update_path(&c, &r).unwrap()),
        [("etcd.v2".into(), Edge::Replaces)]
    );
}

/// resolver.go `newPackageRequiredPredicate`: blang's `ParseRange` of an
/// `olm.package.required` versionRange, and an error (not "any version",
/// not "unsatisfied") when it fails, empty range included;
/// `getBundleVariables` returns it for every candidate, so even a
/// candidate behind a satisfiable one fails the namespace's resolution
/// (`ErrorPreventedResolution` in `syncResolvingNamespace`).
#[test]
fn olm_new_package_required_predicate() {
    let chain = "- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n  skips: [etcd.v1]\n";
    let provider = "---\nschema: olm.bundle\nname: cert.v1.2.0\npackage: cert\nimage: q.io/c:1\nproperties:\n- type: olm.package\n  value: {packageName: cert, version: 1.2.0}\n";
    let v2 = |range: &str| {
        format!(
            "---\nschema: olm.bundle\nname: etcd.v2\npackage: etcd\nimage: q.io/b:2\nproperties:\n- type: olm.package\n  value: {{packageName: etcd, version: 2.0.0}}\n- type: olm.package.required\n  value: {{packageName: cert, versionRange: '{range}'}}\n"
        )
    };
    let bundles = &[("etcd.v1", "1.0.0")];
    for (range, want) in [
        (">=1.0.0", Ok(())),
        ("1.2.0", Ok(())),
        (">=1.0.0 <1.2.0", Err(("unsatisfiedDependency", ""))),
        (
            "",
            Err(("errorPreventedResolution", "Last element in range is '||' (bundle etcd.v2: olm.package.required cert versionRange \"\")")),
        ),
        (
            "latest",
            Err(("errorPreventedResolution", "Could not get version from string: \"latest\" (bundle etcd.v2: olm.package.required cert versionRange \"latest\")")),
        ),
        (
            ">=1.0",
            Err(("errorPreventedResolution", "Could not parse Range \">=1.0\": Could not parse version \"1.0\" in \">=1.0\": * (bundle etcd.v2: olm.package.required cert versionRange \">=1.0\")")),
        ),
    ] {
        let c = catalog(chain, bundles, &format!("{}{provider}", v2(range)));
        let got = update_path(&c, &req(Some(("etcd.v1", "1.0.0"))));
        // With nothing installed every bundle of the channel's order is a
        // candidate: etcd.v2 alone (it skips etcd.v1), so the install
        // fails as the update does.
        let fresh = update_path(&c, &req(None));
        assert_eq!(
            fresh.as_ref().err().map(Stop::reason),
            got.as_ref().err().map(Stop::reason),
            "{range}: a first install"
        );
        if let Err(Stop::UnsatisfiedDependency(m)) = &fresh {
            assert!(m.starts_with("no candidate to install has"), "{m}");
        }
        match want {
            Ok(()) => assert_eq!(got.map(|p| p.hops.len()), Ok(1), "{range}"),
            Err((reason, message)) => {
                let stop = got.unwrap_err();
                assert_eq!(stop.reason(), reason, "{range}: {}", stop.message());
                // `*`: the version parser's own words.
                let (head, tail) = message.split_once('*').unwrap_or((message, ""));
                let m = stop.message();
                assert!(m.starts_with(head) && m.ends_with(tail), "{range}: {m}");
            }
        }
    }
}

/// A bundle of package `name` at 1.0.0 requiring `requires` (package,
/// versionRange), as FBC YAML to append to [`catalog`].
fn requiring(name: &str, requires: &str) -> String {
    let (package, range) = requires.split_once(' ').unwrap();
    format!(
        "---\nschema: olm.bundle\nname: {name}.v1\npackage: {name}\nimage: q.io/{name}:1\nproperties:\n- type: olm.package\n  value: {{packageName: {name}, version: 1.0.0}}\n- type: olm.package.required\n  value: {{packageName: {package}, versionRange: '{range}'}}\n"
    )
}

/// `TestSolveOperators_IgnoreUnsatisfiableDependencies` and
/// `TestSolveOperators_FindLatestVersionWithNestedDependencies` from the
/// candidate's side: the solver installs a candidate only when the
/// dependencies of its dependencies are met too. etcd.v2 requires cert;
/// cert.v1 requires tools, which no catalog has: no candidate, and the
/// verdict names the chain. A second provider of cert that needs nothing
/// makes etcd.v2 installable. With nothing installed, the install takes
/// the first candidate of the channel's order the solver can install.
#[test]
fn a_dependency_whose_own_dependency_is_missing() {
    let chain = "- name: etcd.v1\n- name: etcd.v2\n  replaces: etcd.v1\n";
    let v2 = "---\nschema: olm.bundle\nname: etcd.v2\npackage: etcd\nimage: q.io/b:2\nproperties:\n- type: olm.package\n  value: {packageName: etcd, version: 2.0.0}\n- type: olm.package.required\n  value: {packageName: cert, versionRange: '>=1.0.0'}\n";
    let bundles = &[("etcd.v1", "1.0.0")];
    let broken = format!("{v2}{}", requiring("cert", "tools >=1.0.0"));
    let c = catalog(chain, bundles, &broken);
    let stop = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap_err();
    assert_eq!(
        stop,
        Stop::UnsatisfiedDependency("no candidate to replace etcd.v1 has its dependencies in the catalogs, so OLM keeps etcd.v1 (its solver falls back to the installed CSV: no InstallPlan, no error shown): etcd.v2: requires package cert >=1.0.0 (cert.v1: requires package tools >=1.0.0)".into())
    );
    let fresh = update_path(&c, &req(None)).unwrap_err();
    assert_eq!(fresh.reason(), "unsatisfiedDependency");
    let mut to_v1 = req(None);
    to_v1.to = Some("etcd.v1");
    let p = update_path(&c, &to_v1).unwrap();
    assert_eq!(
        hops(&p),
        [("etcd.v1".into(), Edge::Install)],
        "the older candidate"
    );
    let tools = "---\nschema: olm.bundle\nname: tools.v1\npackage: tools\nimage: q.io/t:1\nproperties:\n- type: olm.package\n  value: {packageName: tools, version: 1.0.0}\n";
    let c = catalog(chain, bundles, &format!("{broken}{tools}"));
    let p = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap();
    assert_eq!(hops(&p), [("etcd.v2".into(), Edge::Replaces)]);
    // A range of a dependency's dependency blang cannot parse fails the
    // resolution (getBundleVariables visits it).
    let bad = format!("{v2}{}", requiring("cert", "tools latest"));
    let c = catalog(chain, bundles, &bad);
    let stop = update_path(&c, &req(Some(("etcd.v1", "1.0.0")))).unwrap_err();
    assert_eq!(stop.reason(), "errorPreventedResolution", "{stop:?}");
    assert!(
        stop.message()
            .contains("(bundle cert.v1: olm.package.required tools versionRange \"latest\")"),
        "{stop:?}"
    );
}
