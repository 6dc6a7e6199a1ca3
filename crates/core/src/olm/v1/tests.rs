//! Table tests ported from operator-controller: `resolve/catalog_test.go`
//! (its `genPackage` catalog: channel alpha 0.1.0 … 2.0.0 by skipRange,
//! beta 0.1.0 and 1.0.2, gamma 3.0.0; 1.0.0 and 1.0.1 deprecated) and
//! `catalogmetadata/filter/successors_test.go`.

use super::*;
use crate::olm::catalog::{Bundle, CsvSource};

fn bundle(pkg: &str, version: &str) -> Bundle {
    Bundle {
        name: format!("{pkg}.v{version}"),
        package: pkg.to_string(),
        image: format!("quay.io/{pkg}/bundle:{version}"),
        version: Some(version.to_string()),
        related_images: Vec::new(),
        provided_gvks: Vec::new(),
        required_packages: Vec::new(),
        required_gvks: Vec::new(),
        deployment_images: Vec::new(),
        csv_source: CsvSource::None,
    }
}

fn entry(name: &str, replaces: Option<&str>, skip_range: Option<&str>) -> ChannelEntry {
    ChannelEntry {
        name: name.to_string(),
        replaces: replaces.map(str::to_string),
        skips: Vec::new(),
        skip_range: skip_range.map(str::to_string),
    }
}

/// `genPackage`.
fn gen_package(pkg: &str) -> Package {
    let n = |v: &str| format!("{pkg}.v{v}");
    let mut p = Package {
        name: pkg.to_string(),
        ..Package::default()
    };
    p.channels.insert(
        "alpha".into(),
        vec![
            entry(&n("0.1.0"), None, None),
            entry(&n("1.0.0"), None, Some("<1.0.0")),
            entry(&n("1.0.1"), None, Some("<1.0.1")),
            entry(&n("1.0.2"), None, Some("<1.0.2")),
            entry(&n("2.0.0"), None, Some(">=1.0.0 <2.0.0")),
        ],
    );
    p.channels.insert(
        "beta".into(),
        vec![
            entry(&n("0.1.0"), None, None),
            entry(&n("1.0.2"), None, Some("<1.0.2")),
        ],
    );
    p.channels.insert(
        "gamma".into(),
        vec![entry(&n("3.0.0"), None, Some(">=2.0.0 <3.0.0"))],
    );
    for v in ["0.1.0", "1.0.0", "1.0.1", "1.0.2", "2.0.0", "3.0.0"] {
        p.bundles.insert(n(v), bundle(pkg, v));
    }
    p.deprecated_bundles = [n("1.0.0"), n("1.0.1")].into();
    p
}

fn extension(channels: &[&str], version: &str, self_certified: bool) -> ClusterExtension {
    ClusterExtension {
        name: "foo".into(),
        install_namespace: "foo".into(),
        package: "pkg".into(),
        version: (!version.is_empty()).then(|| version.to_string()),
        channels: channels.iter().map(|c| c.to_string()).collect(),
        selector: LabelSelector::default(),
        self_certified,
        installed: None,
    }
}

fn installed(version: &str) -> InstalledBundle {
    InstalledBundle {
        name: format!("pkg.v{version}"),
        version: version.to_string(),
    }
}

/// Catalogs a and b empty, c with `genPackage`, as most upstream tests walk them.
fn resolve_in_c(ext: &ClusterExtension, from: Option<&InstalledBundle>) -> Result<Choice, Stop> {
    let empty = Package::default();
    let p = gen_package("pkg");
    let offers = [
        Offer {
            catalog: "a",
            priority: 0,
            package: Some(&empty),
        },
        Offer {
            catalog: "b",
            priority: 0,
            package: None,
        },
        Offer {
            catalog: "c",
            priority: 0,
            package: Some(&p),
        },
    ];
    resolve(ext, from, &offers)
}

#[test]
fn catalog_test_go() {
    type Row<'a> = (
        &'a str,
        &'a [&'a str],
        &'a str,
        bool,
        Option<&'a str>,
        Result<&'a str, (&'a str, &'a str)>,
    );
    let rows: &[Row] = &[
        ("TestPackageExists", &[], "", false, None, Ok("pkg.v3.0.0")),
        (
            "TestVersionDoesNotExist",
            &[],
            "4.0.0",
            false,
            None,
            Err((
                "versionNotFound",
                r#"no bundles found for package "pkg" matching version "4.0.0""#,
            )),
        ),
        (
            "TestVersionExists",
            &[],
            ">=1.0.0 <2.0.0",
            false,
            None,
            Ok("pkg.v1.0.2"),
        ),
        (
            "TestChannelDoesNotExist",
            &["stable"],
            "",
            false,
            None,
            Err((
                "channelNotFound",
                r#"no bundles found for package "pkg" in channels [stable]"#,
            )),
        ),
        (
            "TestChannelExists",
            &["beta"],
            "",
            false,
            None,
            Ok("pkg.v1.0.2"),
        ),
        (
            "TestChannelExistsButNotVersion",
            &["beta"],
            "3.0.0",
            false,
            None,
            Err((
                "versionNotFound",
                r#"no bundles found for package "pkg" matching version "3.0.0" in channels [beta]"#,
            )),
        ),
        (
            "TestVersionExistsButNotChannel",
            &["stable"],
            "1.0.0",
            false,
            None,
            Err((
                "channelNotFound",
                r#"no bundles found for package "pkg" matching version "1.0.0" in channels [stable]"#,
            )),
        ),
        (
            "TestChannelAndVersionExist",
            &["alpha"],
            "0.1.0",
            false,
            None,
            Ok("pkg.v0.1.0"),
        ),
        (
            "TestPreferNonDeprecated",
            &[],
            ">=0.1.0 <=1.0.0",
            false,
            None,
            Ok("pkg.v0.1.0"),
        ),
        (
            "TestAcceptDeprecated",
            &[],
            ">=1.0.0 <=1.0.1",
            false,
            None,
            Ok("pkg.v1.0.1"),
        ),
        (
            "TestMultipleChannels",
            &["beta", "alpha"],
            "",
            false,
            None,
            Ok("pkg.v2.0.0"),
        ),
        (
            "TestUpgradeFoundLegacy",
            &[],
            "",
            false,
            Some("0.1.0"),
            Ok("pkg.v1.0.2"),
        ),
        (
            "TestUpgradeNotFoundLegacy",
            &[],
            "<1.0.0 >=2.0.0",
            false,
            Some("0.1.0"),
            Err((
                "versionNotFound",
                r#"error upgrading from currently installed version "0.1.0": no bundles found for package "pkg" matching version "<1.0.0 >=2.0.0""#,
            )),
        ),
        (
            "TestDowngradeFound",
            &[],
            "<1.0.2",
            true,
            Some("1.0.2"),
            Ok("pkg.v0.1.0"),
        ),
        (
            "TestDowngradeNotFound",
            &[],
            ">0.1.0 <1.0.0",
            true,
            Some("1.0.2"),
            Err((
                "versionNotFound",
                r#"error upgrading from currently installed version "1.0.2": no bundles found for package "pkg" matching version ">0.1.0 <1.0.0""#,
            )),
        ),
    ];
    for (name, channels, version, self_certified, from, want) in rows {
        let ext = extension(channels, version, *self_certified);
        let from = from.map(installed);
        let got = resolve_in_c(&ext, from.as_ref());
        match (got, want) {
            (Ok(c), Ok(b)) => assert_eq!(c.bundle, *b, "{name}"),
            (Err(stop), Err((reason, message))) => {
                assert_eq!(
                    (stop.reason(), stop.message()),
                    (*reason, *message),
                    "{name}"
                )
            }
            (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn package_does_not_exist() {
    // TestPackageDoesNotExist
    let ext = extension(&[], "", false);
    let err = resolve(
        &ext,
        None,
        &[Offer {
            catalog: "a",
            priority: 0,
            package: None,
        }],
    )
    .unwrap_err();
    assert_eq!(
        (err.reason(), err.message()),
        ("packageNotFound", r#"no bundles found for package "pkg""#)
    );
}

#[test]
fn priorities_between_catalogs() {
    let one = |v: &str| {
        let mut p = Package::default();
        p.channels.insert(
            "alpha".into(),
            vec![entry(&format!("pkg.v{v}"), None, None)],
        );
        p.bundles.insert(format!("pkg.v{v}"), bundle("pkg", v));
        p
    };
    let (a, b) = (one("1.0.0"), one("1.1.0"));
    let ext = extension(&[], "", false);
    // TestUnequalPriority: the higher priority wins over the higher version.
    let offers = [
        Offer {
            catalog: "a",
            priority: 1,
            package: Some(&a),
        },
        Offer {
            catalog: "b",
            priority: 0,
            package: Some(&b),
        },
    ];
    let got = resolve(&ext, None, &offers).unwrap();
    assert_eq!(
        (got.bundle.as_str(), got.catalog.as_str()),
        ("pkg.v1.0.0", "a")
    );
    // TestMultiplePriority: several at the top priority fail, naming every catalog offering.
    let g = gen_package("pkg");
    let offers = [
        Offer {
            catalog: "a",
            priority: 1,
            package: Some(&g),
        },
        Offer {
            catalog: "b",
            priority: 0,
            package: Some(&g),
        },
        Offer {
            catalog: "c",
            priority: 1,
            package: Some(&g),
        },
    ];
    let ext = extension(&[], ">=1.0.0 <=1.0.1", false);
    let err = resolve(&ext, None, &offers).unwrap_err();
    assert_eq!(err.reason(), "catalogsAtSamePriority");
    assert!(
        err.message()
            .ends_with("in multiple catalogs with the same priority [a b c]"),
        "{}",
        err.message()
    );
}

#[test]
fn a_non_deprecated_offer_beats_a_deprecated_one_of_a_higher_priority() {
    // TestPackageVariationsBetweenCatalogs's rule: deprecation before priority.
    let mut dep = gen_package("pkg");
    dep.deprecated_bundles = dep.bundles.keys().cloned().collect();
    let fresh = gen_package("pkg");
    let ext = extension(&[], "", false);
    let offers = [
        Offer {
            catalog: "a",
            priority: 10,
            package: Some(&dep),
        },
        Offer {
            catalog: "b",
            priority: 0,
            package: Some(&fresh),
        },
    ];
    assert_eq!(resolve(&ext, None, &offers).unwrap().catalog, "b");
}

/// `successors_test.go` `TestSuccessorsPredicate` over its channel
/// (1.0.0; 1.0.1 replaces 1.0.0; 1.0.2 skips 1.0.1; 1.0.3 skipRange
/// `>=1.0.0 <1.0.3`; 2.0.0 replaces 1.0.3).
#[test]
fn successors_predicate() {
    let mut p = Package {
        name: "test-package".into(),
        ..Package::default()
    };
    let n = |v: &str| format!("test-package.v{v}");
    let mut skips = entry(&n("1.0.2"), None, None);
    skips.skips = vec![n("1.0.1")];
    p.channels.insert(
        "stable".into(),
        vec![
            entry(&n("1.0.0"), None, None),
            entry(&n("1.0.1"), Some(&n("1.0.0")), None),
            skips,
            entry(&n("1.0.3"), None, Some(">=1.0.0 <1.0.3")),
            entry(&n("2.0.0"), Some(&n("1.0.3")), None),
        ],
    );
    for v in ["1.0.0", "1.0.1", "1.0.2", "1.0.3", "2.0.0"] {
        p.bundles.insert(n(v), bundle("test-package", v));
    }
    let ext = ClusterExtension {
        package: "test-package".into(),
        ..extension(&[], "", false)
    };
    let from = |v: &str| InstalledBundle {
        name: n(v),
        version: v.into(),
    };
    for (name, installed, want) in [
        (
            "respect replaces directive from catalog",
            "1.0.0",
            vec!["1.0.0", "1.0.1", "1.0.3"],
        ),
        (
            "respect skips directive from catalog",
            "1.0.1",
            vec!["1.0.1", "1.0.2", "1.0.3"],
        ),
        (
            "respect skipRange directive from catalog",
            "1.0.2",
            vec!["1.0.2", "1.0.3"],
        ),
        ("installed bundle matcher is exact", "2.0.0", vec!["2.0.0"]),
    ] {
        let b = from(installed);
        let vr = VersionRelease::parse(&b.version).unwrap();
        let got: Vec<String> = candidates(&ext, &p, Some((&b, &vr)), None)
            .into_iter()
            .map(|(name, _)| name.trim_start_matches("test-package.v").to_string())
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn the_path_is_one_jump_per_resolution_until_the_installed_bundle_is_chosen() {
    let p = gen_package("pkg");
    let offers = [Offer {
        catalog: "c",
        priority: 0,
        package: Some(&p),
    }];
    let mut ext = extension(&["alpha"], "", false);
    ext.installed = Some(installed("0.1.0"));
    let (path, catalogs) = update_path(&ext, &offers, None, 10).unwrap();
    let hops: Vec<(&str, Edge)> = path.hops.iter().map(|h| (h.to.as_str(), h.edge)).collect();
    // 0.1.0 → 1.0.2 (skipRange <1.0.2, 1.0.0/1.0.1 deprecated anyway), then 2.0.0.
    assert_eq!(
        hops,
        [
            ("pkg.v1.0.2", Edge::SkipRange),
            ("pkg.v2.0.0", Edge::SkipRange)
        ]
    );
    assert_eq!((path.head.as_str(), path.end), ("pkg.v2.0.0", End::Head));
    assert_eq!(catalogs, ["c", "c"]);
    // Only the listed channels give edges: beta stops at 1.0.2.
    ext.channels = vec!["beta".into()];
    let (path, _) = update_path(&ext, &offers, None, 10).unwrap();
    assert_eq!(path.head, "pkg.v1.0.2");
    // SelfCertified: straight to the highest the constraint allows.
    ext.channels.clear();
    ext.self_certified = true;
    ext.version = Some("<3.0.0".into());
    let (path, _) = update_path(&ext, &offers, None, 10).unwrap();
    let hops: Vec<(&str, Edge)> = path.hops.iter().map(|h| (h.to.as_str(), h.edge)).collect();
    assert_eq!(hops, [("pkg.v2.0.0", Edge::SelfCertified)]);
    // An installed bundle the catalog no longer covers.
    let mut gone = extension(&[], "", false);
    gone.installed = Some(InstalledBundle {
        name: "pkg.v0.0.1".into(),
        version: "0.0.1".into(),
    });
    let mut p2 = gen_package("pkg");
    p2.channels.get_mut("alpha").unwrap()[1].skip_range = None;
    p2.channels.get_mut("alpha").unwrap()[2].skip_range = None;
    p2.channels.get_mut("alpha").unwrap()[3].skip_range = None;
    p2.channels.get_mut("beta").unwrap()[1].skip_range = None;
    let offers = [Offer {
        catalog: "c",
        priority: 0,
        package: Some(&p2),
    }];
    let err = update_path(&gone, &offers, None, 10).unwrap_err();
    assert_eq!(
        (err.reason(), err.message()),
        (
            "noUpdatePath",
            r#"error upgrading from currently installed version "0.0.1": no bundles found for package "pkg""#
        )
    );
}

#[test]
fn legacy_release_in_build_metadata_orders_after_the_version() {
    // bundleutil_test.go ParseLegacyVersionRelease shapes.
    let a = VersionRelease::parse("1.0.0+2").unwrap();
    let b = VersionRelease::parse("1.0.0+10").unwrap();
    let plain = VersionRelease::parse("1.0.0").unwrap();
    assert_eq!(a.compare(&b), Ordering::Less);
    assert_eq!(plain.compare(&a), Ordering::Less);
    // Build metadata that is not a release (a leading zero) is ignored.
    let c = VersionRelease::parse("1.0.0+01").unwrap();
    assert_eq!(c.compare(&plain), Ordering::Equal);
}

#[test]
fn selectors_pick_catalogs_by_label_and_leave_out_unavailable_ones() {
    let cat = |name: &str, labels: &[(&str, &str)], unavailable: bool| ClusterCatalog {
        name: name.into(),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([(METADATA_NAME_LABEL.to_string(), name.to_string())])
            .collect(),
        priority: 0,
        image: None,
        resolved: None,
        unavailable,
    };
    let all = [
        cat("b", &[("tier", "mirror")], false),
        cat("a", &[], false),
        cat("c", &[("tier", "mirror")], true),
    ];
    let mut ext = extension(&[], "", false);
    let names = |ext: &ClusterExtension| -> Vec<String> {
        selected(ext, &all)
            .unwrap()
            .iter()
            .map(|c| c.name.clone())
            .collect()
    };
    // TestCatalogWalker / TestSomeCatalogsDisabled: every available catalog, in name order.
    assert_eq!(names(&ext), ["a", "b"]);
    // TestClusterExtensionMatchLabel
    ext.selector.match_labels = [(METADATA_NAME_LABEL.to_string(), "b".to_string())].into();
    assert_eq!(names(&ext), ["b"]);
    // TestInvalidClusterExtensionCatalogMatchExpressions
    ext.selector.match_labels.clear();
    ext.selector.match_expressions = vec![crate::objects::LabelSelectorRequirement {
        key: "name".into(),
        operator: "bad".into(),
        values: vec!["value".into()],
    }];
    assert_eq!(
        selected(&ext, &all).unwrap_err().message(),
        r#"desired catalog selector is invalid: "bad" is not a valid label selector operator"#
    );
}

#[test]
fn reads_a_cluster_extension_and_a_cluster_catalog() {
    let v = serde_json::json!({"apiVersion":"olm.operatorframework.io/v1","kind":"ClusterExtension",
        "metadata":{"name":"etcd"},
        "spec":{"namespace":"etcd-ns","serviceAccount":{"name":"installer"},
          "source":{"sourceType":"Catalog","catalog":{"packageName":"etcd","version":">=0.9.0",
            "channels":["stable"],"upgradeConstraintPolicy":"SelfCertified",
            "selector":{"matchLabels":{"tier":"mirror"}}}}},
        "status":{"install":{"bundle":{"name":"etcd.v0.9.0","version":"0.9.0"}}}});
    let e = ClusterExtension::from_value("a.yaml", &v).unwrap();
    assert_eq!(
        (
            e.package.as_str(),
            e.install_namespace.as_str(),
            e.version.as_deref(),
            e.self_certified
        ),
        ("etcd", "etcd-ns", Some(">=0.9.0"), true)
    );
    assert_eq!(e.installed.unwrap().name, "etcd.v0.9.0");
    let bad = serde_json::json!({"kind":"ClusterExtension","metadata":{"name":"x"},
        "spec":{"source":{"sourceType":"Catalog","catalog":{}}}});
    assert_eq!(
        ClusterExtension::from_value("a.yaml", &bad).unwrap_err(),
        "a.yaml: ClusterExtension x has no spec.source.catalog.packageName"
    );
    let c = ClusterCatalog::from_value(&serde_json::json!({"metadata":{"name":"mirror"},
        "spec":{"priority":-10,"source":{"type":"Image","image":{"ref":"m.io/cat:v4.21"}}},
        "status":{"resolvedSource":{"type":"Image","image":{"ref":"m.io/cat@sha256:aa"}}}}));
    assert_eq!(
        (
            c.priority,
            c.image.as_deref(),
            c.labels[METADATA_NAME_LABEL].as_str()
        ),
        (-10, Some("m.io/cat:v4.21"), "mirror")
    );
}
