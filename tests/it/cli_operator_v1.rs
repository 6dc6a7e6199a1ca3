//! `operator-check` on OLM v1 through the built binary: a ClusterExtension
//! (olm.operatorframework.io/v1) resolved over the ClusterCatalogs its
//! selector picks, on the catalog images, bundles and operator images that
//! `cli_operator` builds on a loopback mirror; from files and live.

use crate::cli_operator::{
    backup_by_digest, bundle_digest, catalog_files, images, json_of, mirror, mirror_with, Setup,
    BUNDLE_SOURCE, CATALOG_REPO,
};
use crate::support::apiserver::Builder as ApiBuilder;

use serde_json::Value;

/// oc-mirror's IDMS for quay.io/etcd (as `cli_operator`'s cluster), the
/// ClusterCatalogs `catalogs` and the ClusterExtension on etcd `installed`
/// with `catalog` (more fields of `spec.source.catalog`, YAML flow pairs).
fn objects(host: &str, catalogs: &str, installed: Option<&str>, catalog: &str) -> String {
    let status = installed
        .map(|v| format!("status:\n  install:\n    bundle: {{name: etcd.v{v}, version: {v}}}\n"))
        .unwrap_or_default();
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/etcd\n    mirrors: [{host}/etcd]\n    mirrorSourcePolicy: NeverContactSource\n{catalogs}---\napiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {{name: etcd}}\nspec:\n  namespace: etcd-operator\n  serviceAccount: {{name: etcd-installer}}\n  source:\n    sourceType: Catalog\n    catalog: {{packageName: etcd{catalog}}}\n{status}"
    )
}

/// A ClusterCatalog of the mirror's catalog tag `tag`, with `spec` fields
/// (YAML flow pairs) besides its source.
fn cluster_catalog(host: &str, name: &str, tag: &str, spec: &str) -> String {
    format!(
        "---\napiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata: {{name: {name}, labels: {{tier: mirror}}}}\nspec:\n  source: {{type: Image, image: {{ref: '{host}/{CATALOG_REPO}:{tag}'}}}}{spec}\nstatus:\n  resolvedSource: {{type: Image, image: {{ref: '{host}/{CATALOG_REPO}@sha256:0000000000000000000000000000000000000000000000000000000000000000'}}}}\n"
    )
}

fn run(s: &Setup, objects: &str, args: &[&str]) -> (i32, String, String) {
    let files = s.write(objects);
    let mut c = s.cmd();
    c.arg("-f").arg(&files).args(args);
    crate::cli_operator::output(c)
}

fn hops(json: &Value) -> Vec<(String, String)> {
    json["hops"]
        .as_array()
        .expect("hops")
        .iter()
        .map(|h| {
            (
                h["to"].as_str().unwrap().to_string(),
                h["edge"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Issue 38, OLM v1: the same graph as the v0 scenario, v1's choice of
/// successor (one resolution at a time: etcd.v0.9.2 replaces the installed
/// etcd.v0.9.0, then etcd.v0.9.4 replaces it), the catalog pulled by
/// catalogd and the bundles by operator-controller on the control plane;
/// hop 1's bundle is missing from the mirror. No dependency is resolved
/// (etcd.v0.9.4 requires etcd-tools, which OLM v0 installs with it).
#[test]
fn issue_38_olm_v1_a_missing_bundle_on_the_path() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let objects = objects(&s.host, &catalogs, Some("0.9.0"), "");
    let (code, out, err) = run(&s, &objects, &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(
        (&json["kind"], &json["name"], &json["namespace"]),
        (
            &Value::from("ClusterExtension"),
            &Value::from("etcd"),
            &Value::from("")
        )
    );
    assert_eq!(json["reason"], "imagesNotServed", "{json}");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .starts_with("hop 1 (etcd.v0.9.0 -> etcd.v0.9.2) cannot be pulled: bundle"),
        "{json}"
    );
    assert_eq!(
        hops(&json),
        [
            ("etcd.v0.9.2".to_string(), "replaces".to_string()),
            ("etcd.v0.9.4".to_string(), "replaces".to_string())
        ]
    );
    assert_eq!(json["catalog"]["source"], "redhat");
    assert_eq!(json["catalog"]["pool"], "master");
    let ext = &json["extension"];
    assert_eq!(ext["installNamespace"], "etcd-operator");
    assert_eq!(ext["upgradeConstraintPolicy"], "CatalogProvided");
    assert_eq!(ext["pulledBy"]["catalog"], "catalogd");
    assert_eq!(ext["pulledBy"]["bundle"], "operator-controller");
    assert_eq!(ext["catalogs"][0]["hasPackage"], true);
    assert_eq!(ext["catalogs"][0]["check"]["outcome"], "served");
    let bundle = format!("{BUNDLE_SOURCE}@{}", bundle_digest("etcd.v0.9.2"));
    let first = images(&json["hops"][0]);
    assert_eq!(
        first[0],
        (bundle.clone(), "digest".into(), "missing".into(), true)
    );
    assert_eq!(json["hops"][1]["dependencies"], Value::Array(Vec::new()));
    assert!(
        json["nextSteps"][0]["commands"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!(
                "skopeo copy --all --preserve-digests docker://{bundle} docker://{}/etcd/",
                s.host
            )),
        "{json}"
    );
    // operator-controller, not CRI-O, pulls a ClusterExtension's bundle.
    assert!(
        json["nextSteps"][0]["step"]
            .as_str()
            .unwrap()
            .ends_with("copy each missing image to the mirror operator-controller tries first:"),
        "{json}"
    );
    let (code, text, err) = run(&s, &objects, &[]);
    assert_eq!(code, 1, "{err}");
    for want in [
        "ClusterExtension: etcd (package etcd, every channel, CatalogProvided, namespace etcd-operator)",
        "Catalogs:     redhat (priority 0)",
        "(ClusterCatalog redhat, pulled by catalogd)",
        "Pool:         master (catalogd runs on the control-plane nodes",
    ] {
        assert!(text.contains(want), "{want:?} not in\n{text}");
    }
    let (code, summary, _) = run(&s, &objects, &["-o", "summary"]);
    assert_eq!(code, 1);
    assert!(
        summary.starts_with("clusterextension/etcd notReady reason=imagesNotServed"),
        "{summary}"
    );
    assert!(
        summary.ends_with(
            "\ntotal subscriptions=0 clusterextensions=1 ready=0 notReady=1 undetermined=0 exit=1\n"
        ),
        "each kind counted by name: {summary}"
    );
    // Every bundle on the mirror: ready.
    let full = mirror(&[], &backup_by_digest());
    let s = Setup::new(&full);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let (code, out, err) = run(&s, &objects_of(&s, &catalogs, "0.9.0", ""), &["-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["reason"], "pathServed");
}

/// A row: name, installed version, `spec.source.catalog` fields, exit code, reason, hops.
type Row<'a> = (
    &'a str,
    Option<&'a str>,
    &'a str,
    i32,
    &'a str,
    &'a [(&'a str, &'a str)],
);

fn objects_of(s: &Setup, catalogs: &str, installed: &str, catalog: &str) -> String {
    objects(&s.host, catalogs, Some(installed), catalog)
}

/// v1's rules through the binary: the version constraint (Masterminds)
/// filters candidates, SelfCertified lifts the successor rule, only the
/// listed channels give edges, an installed bundle nothing covers has no
/// path, and with nothing installed the highest version is installed.
#[test]
fn version_constraint_self_certified_channels_and_no_path() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let rows: &[Row] = &[
        (
            "constraint stops the path",
            Some("0.9.0"),
            ", version: '<0.9.3'",
            0,
            "pathServed",
            &[("etcd.v0.9.2", "replaces")],
        ),
        (
            "selfCertified jumps",
            Some("0.9.0"),
            ", version: '0.9.4', upgradeConstraintPolicy: SelfCertified",
            0,
            "pathServed",
            &[("etcd.v0.9.4", "selfCertified")],
        ),
        (
            "listed channel",
            Some("0.9.0"),
            ", channels: [stable]",
            0,
            "pathServed",
            &[("etcd.v0.9.2", "replaces"), ("etcd.v0.9.4", "replaces")],
        ),
        (
            "install the highest",
            None,
            "",
            0,
            "pathServed",
            &[("etcd.v0.9.4", "install")],
        ),
        ("at the head", Some("0.9.4"), "", 0, "atHead", &[]),
    ];
    for (name, installed, catalog, code_want, reason, want) in rows {
        let objects = objects(&s.host, &catalogs, *installed, catalog);
        let (code, out, err) = run(&s, &objects, &["-o", "json"]);
        assert_eq!(code, *code_want, "{name}: {out}\n{err}");
        let json = json_of(&out, &err);
        assert_eq!(json["reason"], *reason, "{name}: {json}");
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(hops(&json), want, "{name}");
    }
    let stops: &[(&str, &str, &str, &str)] = &[
        (
            "0.9.0",
            ", version: '>=1.0.0'",
            "versionNotFound",
            r#"error upgrading from currently installed version "0.9.0": no bundles found for package "etcd" matching version ">=1.0.0""#,
        ),
        (
            "0.9.0",
            ", channels: [fast]",
            "channelNotFound",
            r#"error upgrading from currently installed version "0.9.0": no bundles found for package "etcd" in channels [fast]"#,
        ),
        (
            "0.8.0",
            "",
            "noUpdatePath",
            r#"error upgrading from currently installed version "0.8.0": no bundles found for package "etcd""#,
        ),
    ];
    for (installed, catalog, reason, message) in stops {
        let objects = objects_of(&s, &catalogs, installed, catalog);
        let (code, out, err) = run(&s, &objects, &["-o", "json"]);
        assert_eq!(code, 1, "{reason}: {out}\n{err}");
        let json = json_of(&out, &err);
        assert_eq!(
            (&json["reason"], &json["message"]),
            (&Value::from(*reason), &Value::from(*message))
        );
    }
}

/// Several ClusterCatalogs: at the same priority the bundle both offer is
/// a resolution error in operator-controller's words; a higher priority
/// wins; the selector and `availabilityMode: Unavailable` leave catalogs out.
#[test]
fn catalog_selector_priority_and_equal_priority_error() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let two = |a: &str, b: &str| {
        cluster_catalog(&s.host, "a", "v4.21", a) + &cluster_catalog(&s.host, "b", "zstd", b)
    };
    let objects = objects_of(&s, &two("", ""), "0.9.0", "");
    let (code, out, err) = run(&s, &objects, &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "catalogsAtSamePriority");
    assert_eq!(
        json["message"],
        r#"error upgrading from currently installed version "0.9.0": found bundles for package "etcd" in multiple catalogs with the same priority [a b]"#
    );
    for (name, objects, source) in [
        (
            "priority",
            objects_of(&s, &two("", "\n  priority: 5"), "0.9.0", ""),
            "b",
        ),
        (
            "selector",
            objects_of(
                &s,
                &two("", ""),
                "0.9.0",
                ", selector: {matchLabels: {olm.operatorframework.io/metadata.name: a}}",
            ),
            "a",
        ),
        (
            "unavailable",
            objects_of(
                &s,
                &two("\n  availabilityMode: Unavailable", ""),
                "0.9.0",
                "",
            ),
            "b",
        ),
    ] {
        let (code, out, err) = run(&s, &objects, &["-o", "json"]);
        assert_eq!(code, 0, "{name}: {out}\n{err}");
        let json = json_of(&out, &err);
        assert_eq!(json["catalog"]["source"], source, "{name}: {json}");
        assert_eq!(
            json["extension"]["catalogs"].as_array().unwrap().len(),
            if name == "priority" { 2 } else { 1 },
            "{name}"
        );
    }
    // A selector nothing matches: no catalog, no package.
    let objects = objects_of(
        &s,
        &two("", ""),
        "0.9.0",
        ", selector: {matchLabels: {tier: none}}",
    );
    let (code, out, err) = run(&s, &objects, &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["reason"], "packageNotFound");
}

/// `olm.deprecations`: a deprecated bundle is resolved after every other
/// candidate, so the installed etcd.v0.9.2 stays when its only successor
/// etcd.v0.9.4 is deprecated (OLM v0 would update).
#[test]
fn deprecated_bundles_are_resolved_last() {
    let mut files = catalog_files(&backup_by_digest());
    files.push((
        "configs/etcd/deprecations.yaml".into(),
        "schema: olm.deprecations\npackage: etcd\nentries:\n- reference: {schema: olm.bundle, name: etcd.v0.9.4}\n  message: etcd.v0.9.4 is deprecated\n".into(),
    ));
    let reg = mirror_with(&[], &backup_by_digest(), &[("deprecated", files)]);
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "deprecated", "");
    let (code, out, err) = run(&s, &objects_of(&s, &catalogs, "0.9.2", ""), &["-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "atHead", "{json}");
    assert_eq!(
        json["message"],
        "etcd.v0.9.2 is the bundle OLM v1 resolves: no selected catalog offers a successor"
    );
    // The same catalog without the deprecation updates.
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let (code, out, err) = run(&s, &objects_of(&s, &catalogs, "0.9.2", ""), &["-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        hops(&json_of(&out, &err)),
        [("etcd.v0.9.4".to_string(), "replaces".to_string())]
    );
}

/// Live: the ClusterExtensions and ClusterCatalogs listed from the API
/// server give the verdict the same objects give from files; a
/// ClusterExtension is named `clusterextension/NAME`; a Subscription and a
/// ClusterExtension are checked together; a forbidden list names the rule.
#[test]
fn live_reads_cluster_extensions_and_catalogs_as_files_do() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let objects = objects_of(&s, &catalogs, "0.9.0", "");
    let (code, offline, err) = run(&s, &objects, &["-o", "json"]);
    assert_eq!(code, 1, "{offline}\n{err}");
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let (code, out, err) = s.run_live(&server, &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json_of(&offline, ""));
    let paths: Vec<String> = server.log().iter().map(|l| l.path.clone()).collect();
    for want in [
        "/apis/olm.operatorframework.io/v1/clusterextensions",
        "/apis/olm.operatorframework.io/v1/clustercatalogs",
    ] {
        assert!(
            paths.iter().any(|p| p == want),
            "{want} not requested: {paths:?}"
        );
    }
    let (code, out, err) = s.run_live(&server, &["clusterextension/etcd", "-o", "json"]);
    assert_eq!((code, json_of(&out, &err)), (1, json_of(&offline, "")));
    let (code, _, err) = s.run_live(&server, &["clusterextension/other"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("ClusterExtension \"other\" was not found in the cluster"),
        "{err}"
    );
    // With a Subscription of the v0 fixture: both, a List of two.
    let with_v0 = objects.clone()
        + &format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: cs, namespace: openshift-marketplace}}\nspec: {{sourceType: grpc, image: '{}/{CATALOG_REPO}:v4.21'}}\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: etcd, namespace: operators}}\nspec: {{name: etcd, channel: stable, source: cs, sourceNamespace: openshift-marketplace}}\nstatus: {{installedCSV: etcd.v0.9.0}}\n",
            s.host
        );
    let (code, out, err) = run(&s, &with_v0, &["-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    let json = json_of(&out, &err);
    let kinds: Vec<&str> = json["items"]
        .as_array()
        .unwrap_or_else(|| panic!("a List: {json}"))
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["Subscription", "ClusterExtension"]);
    // Without OLM v1's CRD, the Subscriptions alone; without OLM v0's, the
    // ClusterExtensions alone; neither is an error.
    for (missing, want) in [
        ("clusterextensions.olm.operatorframework.io", "Subscription"),
        ("subscriptions.operators.coreos.com", "ClusterExtension"),
    ] {
        let server = ApiBuilder::openshift()
            .without(missing)
            .objects_from_yaml(&with_v0)
            .start();
        let (code, out, err) = s.run_live(&server, &["-A", "-o", "json"]);
        assert_eq!(code, 1, "{missing}: {out}\n{err}");
        assert_eq!(json_of(&out, &err)["kind"], want, "{missing}");
    }
    // Forbidden to list ClusterExtensions: exit 3 naming the rule.
    let server = ApiBuilder::openshift()
        .forbid("list", "clusterextensions")
        .objects_from_yaml(&objects)
        .start();
    let (code, out, err) = s.run_live(&server, &[]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        err.contains("clusterextensions.olm.operatorframework.io") && err.contains("list"),
        "{err}"
    );
}

/// `audit --updates`: a ClusterExtension's next resolution is a row of its
/// own (`clusterextension/NAME`), after the Subscriptions.
#[test]
fn audit_updates_shows_a_cluster_extensions_next_resolution() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let files = s.write(&objects_of(&s, &catalogs, "0.9.0", ""));
    let audit = |args: &[&str]| {
        let mut c = s.cmd_for("audit");
        c.arg("--probe").arg("-f").arg(&files).args(args);
        crate::cli_operator::output(c)
    };
    let (code, out, err) = audit(&["--updates", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let update = &json["updates"][0];
    assert_eq!(
        (
            &update["kind"],
            &update["subscription"],
            &update["nextCSV"],
            &update["reason"]
        ),
        (
            &Value::from("ClusterExtension"),
            &Value::from("etcd"),
            &Value::from("etcd.v0.9.2"),
            &Value::from("imagesNotServed")
        ),
        "{json}"
    );
    let (code, out, err) = audit(&["--updates"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let row = out
        .lines()
        .find(|l| l.starts_with("clusterextension/etcd"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        [
            "clusterextension/etcd",
            "etcd.v0.9.0",
            "etcd.v0.9.2",
            "notReady",
            "imagesNotServed"
        ]
    );
}

/// Issue 38: live, a ClusterExtension named (`clusterextension/NAME`) is
/// read by name, not found in a list of every one; one that does not
/// exist is an input error naming it.
#[test]
fn issue_38_a_named_cluster_extension_is_read_by_name() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let catalogs = cluster_catalog(&s.host, "redhat", "v4.21", "");
    let objects = objects_of(&s, &catalogs, "0.9.0", "");
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let (code, out, err) = s.run_live(&server, &["clusterextension/etcd", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["kind"], "ClusterExtension", "{out}");
    let paths: Vec<String> = server.log().iter().map(|l| l.path.clone()).collect();
    const EXTENSIONS: &str = "/apis/olm.operatorframework.io/v1/clusterextensions";
    assert!(
        paths.iter().any(|p| *p == format!("{EXTENSIONS}/etcd")),
        "{paths:?}"
    );
    assert!(!paths.iter().any(|p| p == EXTENSIONS), "{paths:?}");
    let (code, _, err) = s.run_live(&server, &["clusterextension/other"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("ClusterExtension \"other\" was not found in the cluster"),
        "{err}"
    );
}
