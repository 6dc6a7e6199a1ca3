//! `operator-check` with dependencies from the other CatalogSources the
//! Subscription's namespace sees (its own and `openshift-marketplace`), as
//! OLM v0's resolver takes them: read only when the Subscription's catalog
//! lacks one, in the resolver's order, offline and live.

use serde_json::Value;

use crate::cli_operator::{
    catalog_files, cluster, hop_2_dependencies, image_policy, json_of, mirror_with, output,
    tools_catalog, Setup, TOOLS_BUNDLE_SOURCE,
};
use crate::support::apiserver::Builder as ApiBuilder;
use crate::support::registry::FakeRegistry;

/// The mirror with two more catalog tags: `no-tools`, the catalog without
/// package etcd-tools (which etcd.v0.9.4 requires), and `tools`, a catalog
/// of etcd-tools alone.
fn mirror_of_two_catalogs() -> FakeRegistry {
    let backup = crate::cli_operator::backup_by_digest();
    let without: Vec<(String, String)> = catalog_files(&backup)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("configs/etcd-tools/"))
        .collect();
    let tools = vec![(
        "configs/etcd-tools/catalog.json".to_string(),
        tools_catalog(),
    )];
    mirror_with(&[], &backup, &[("no-tools", without), ("tools", tools)])
}

/// A CatalogSource `name` of `namespace` serving the catalog tag `tag`.
fn catalog_source(host: &str, namespace: &str, name: &str, tag: &str, priority: i64) -> String {
    format!(
        "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: {name}, namespace: {namespace}}}\nspec:\n  sourceType: grpc\n  priority: {priority}\n  image: {host}/{}:{tag}\n",
        crate::cli_operator::CATALOG_REPO
    )
}

/// The cluster of [`cluster`] whose Subscription's catalog is the one
/// without etcd-tools, and `more` objects.
fn objects(s: &Setup, more: &str) -> String {
    cluster(&s.host, "etcd.v0.9.0").replace(":v4.21", ":no-tools") + more
}

fn run_offline(s: &Setup, objects: &str) -> (i32, Value, String) {
    let mut c = s.cmd();
    c.arg("-f").arg(s.write(objects)).args(["-o", "json"]);
    let (code, out, err) = output(c);
    (code, json_of(&out, &err), err)
}

/// The message of a verdict that must be `errorPreventedResolution` (exit 1).
fn prevented_message<'j>(code: i32, json: &'j Value, err: &str) -> &'j str {
    assert_eq!(
        (code, json["reason"].as_str()),
        (1, Some("errorPreventedResolution")),
        "{json}\n{err}"
    );
    json["message"].as_str().unwrap_or_default()
}

/// The catalogs of hop 2's dependencies, as the JSON names them.
fn dependency_catalogs(json: &Value) -> Vec<String> {
    json["hops"][1]["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["catalog"].as_str().unwrap_or("-").to_string())
        .collect()
}

/// operator-lifecycle-manager `ResolveSteps` (step_resolver.go) resolves
/// over the CatalogSources of the Subscription's namespace and of the
/// global one: etcd.v0.9.4 requires etcd-tools, which only another
/// CatalogSource provides; its bundle is taken from there, named, and
/// probed. Without that CatalogSource the requirement is unsatisfied.
/// Offline and live alike; a forbidden list of CatalogSources is a warning
/// naming the rule, and the check goes on with the Subscription's catalog.
#[test]
fn a_dependency_only_another_catalog_source_provides() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let (code, json, err) = run_offline(&s, &objects(&s, ""));
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "unsatisfiedDependency", "{json}");
    // An update's candidates that cannot be installed leave the installed
    // CSV where it is, with no error: the message says so, and the fix.
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("so OLM keeps etcd.v0.9.2 (its solver falls back to the installed CSV: no InstallPlan, no error shown)"),
        "{json}"
    );
    let step = &json["nextSteps"][0];
    assert_eq!(step["outcome"], "unsatisfiedDependency", "{json}");
    assert!(
        step["step"]
            .as_str()
            .unwrap()
            .contains("into a catalog namespace operators resolves over"),
        "{step}"
    );
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("requires package etcd-tools"),
        "{json}"
    );

    let with_tools = objects(
        &s,
        &catalog_source(&s.host, "operators", "tools", "tools", 0),
    );
    let (code, json, err) = run_offline(&s, &with_tools);
    assert_eq!(code, 0, "{json}\n{err}");
    assert_eq!(json["reason"], "pathServed", "{json}");
    let probed = vec![
        "etcd-tools.v1.1.0".to_string(),
        "etcd-tools.v1.1.0/operator".to_string(),
    ];
    assert_eq!(
        hop_2_dependencies(&json),
        (
            vec![("etcd-tools.v1.1.0".to_string(), "-".to_string())],
            probed
        )
    );
    assert_eq!(dependency_catalogs(&json), ["operators/tools"]);
    let outcomes: Vec<&str> = json["hops"][1]["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "dependency")
        .map(|i| i["check"]["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["served", "served"], "{json}");

    let server = ApiBuilder::openshift()
        .objects_from_yaml(&with_tools)
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json, "live as offline");
    let paths: Vec<String> = server.log().iter().map(|l| l.path.clone()).collect();
    for want in [
        "/apis/operators.coreos.com/v1alpha1/namespaces/operators/catalogsources",
        "/apis/operators.coreos.com/v1alpha1/namespaces/openshift-marketplace/catalogsources",
    ] {
        assert!(
            paths.iter().any(|p| p == want),
            "{want} not listed: {paths:?}"
        );
    }

    let server = ApiBuilder::openshift()
        .forbid("list", "catalogsources")
        .objects_from_yaml(&with_tools)
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err)["reason"], "unsatisfiedDependency");
    assert!(
        err.contains("cannot list the catalogsources.operators.coreos.com of namespace operators")
            && err.contains(r#"resources: ["catalogsources"], verbs: ["list"]"#),
        "{err}"
    );
}

/// The other catalogs are looked at only when the Subscription's own
/// lacks something: its own catalog wins even over a priority of 100
/// (subscription_e2e_test.go "choose the dependent package from the same
/// catsrc as the installing operator"); among the others, the higher
/// priority, then the Subscription's namespace (the e2e contexts "based
/// on priority", "based on namespace").
#[test]
fn the_own_catalog_then_priority_then_namespace() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let own_has_it = cluster(&s.host, "etcd.v0.9.0")
        + &catalog_source(&s.host, "operators", "tools", "tools", 100);
    let (code, json, err) = run_offline(&s, &own_has_it);
    assert_eq!(code, 0, "{json}\n{err}");
    assert_eq!(
        dependency_catalogs(&json),
        ["openshift-marketplace/cs-etcd-index-v4-21"]
    );
    for (more, want) in [
        (
            catalog_source(&s.host, "operators", "a-tools", "tools", 0)
                + &catalog_source(&s.host, "openshift-marketplace", "z-tools", "tools", 100),
            "openshift-marketplace/z-tools",
        ),
        (
            catalog_source(&s.host, "openshift-marketplace", "a-tools", "tools", 0)
                + &catalog_source(&s.host, "operators", "z-tools", "tools", 0),
            "operators/z-tools",
        ),
        (
            // Another namespace's CatalogSource is not seen.
            catalog_source(&s.host, "elsewhere", "a-tools", "tools", 100)
                + &catalog_source(&s.host, "operators", "z-tools", "tools", 0),
            "operators/z-tools",
        ),
    ] {
        let (code, json, err) = run_offline(&s, &objects(&s, &more));
        assert_eq!(code, 0, "{want}: {json}\n{err}");
        assert_eq!(dependency_catalogs(&json), [want]);
    }
}

/// OLM's unpack Job for a dependency's bundle runs in the namespace of the
/// CatalogSource it comes from, whose own image policy applies to it.
#[test]
fn a_dependency_bundle_is_unpacked_in_its_catalog_namespace() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let with_tools = objects(
        &s,
        &catalog_source(&s.host, "operators", "tools", "tools", 0),
    );
    for (namespace, ready) in [("operators", false), ("openshift-marketplace", true)] {
        let all = with_tools.clone() + &image_policy(namespace, TOOLS_BUNDLE_SOURCE);
        let (code, json, err) = run_offline(&s, &all);
        assert_eq!(
            (code, json["ready"].as_bool()),
            (if ready { 0 } else { 1 }, Some(ready)),
            "{namespace}: {}\n{err}",
            json["message"]
        );
        assert_eq!(
            dependency_catalogs(&json),
            ["operators/tools"],
            "{namespace}"
        );
    }
}

/// operator-lifecycle-manager `Resolve` fails when
/// `NamespacedOperatorCache.Error()` reports a CatalogSource of the
/// namespace (or the global one) whose bundles cannot be listed, whether a
/// dependency is looked for or not (resolver.go; e2e
/// catalog_exclusion_test.go): every Subscription of the namespace gets
/// `ResolutionFailed`, reason `ErrorPreventedResolution`. A CatalogSource
/// whose catalog image its registry pod cannot pull is such a one; one of
/// another namespace is not seen. Offline and live alike.
#[test]
fn an_unlisted_catalog_source_fails_the_namespace_resolution() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let broken = |namespace: &str| {
        format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: redhat-operators, namespace: {namespace}}}\nspec:\n  sourceType: grpc\n  image: {}/redhat/redhat-operator-index:v4.21\n",
            s.host
        )
    };
    let elsewhere = cluster(&s.host, "etcd.v0.9.0") + &broken("elsewhere");
    let (code, json, err) = run_offline(&s, &elsewhere);
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "{json}\n{err}"
    );

    let global = cluster(&s.host, "etcd.v0.9.0") + &broken("openshift-marketplace");
    let (code, json, err) = run_offline(&s, &global);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "errorPreventedResolution", "{json}");
    let message = json["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "error using catalogsource openshift-marketplace/redhat-operators: failed to list bundles: its registry pod cannot pull the catalog image"
        ) && message.contains("redhat/redhat-operator-index:v4.21 (missing: "),
        "{message}"
    );
    assert_eq!(json["hops"], serde_json::json!([]), "no path: {json}");
    let step = json["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["outcome"] == "errorPreventedResolution")
        .unwrap_or_else(|| panic!("no step: {json}"));
    assert!(
        step["step"]
            .as_str()
            .unwrap()
            .contains("CatalogSource openshift-marketplace/redhat-operators"),
        "{step}"
    );

    let server = ApiBuilder::openshift().objects_from_yaml(&global).start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json, "live as offline");

    // A catalog pinned by digest, missing on the mirror its source maps to:
    // the copy keeps the digest, as every other copy line does.
    let digest = format!("sha256:{}", "0".repeat(64));
    let pinned = cluster(&s.host, "etcd.v0.9.0")
        + &broken("openshift-marketplace").replace(
            &format!("{}/redhat/redhat-operator-index:v4.21", s.host),
            &format!("quay.io/etcd/redhat-operator-index@{digest}"),
        );
    let (code, json, err) = run_offline(&s, &pinned);
    assert_eq!(code, 1, "{json}\n{err}");
    let step = json["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["outcome"] == "errorPreventedResolution")
        .unwrap_or_else(|| panic!("no step: {json}"));
    let copy = format!(
        "skopeo copy --all --preserve-digests docker://quay.io/etcd/redhat-operator-index@{digest} docker://{}/etcd/redhat-operator-index@{digest}",
        s.host
    );
    assert!(step.to_string().contains(&copy), "{step}");
}

/// [`objects`] without the namespace's OperatorGroup.
fn objects_without_group(s: &Setup, more: &str) -> String {
    without_group(objects(s, more))
}

/// `objects` of [`cluster`] without its OperatorGroup.
fn without_group(objects: String) -> String {
    let og = "---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: operators, namespace: operators}\nspec: {}\n";
    assert!(objects.contains(og));
    objects.replace(og, "")
}

/// An OperatorGroup in `namespace`, with the exclusion annotation's value.
fn operator_group(namespace: &str, name: &str, exclude: Option<&str>) -> String {
    let annotations = exclude.map_or(String::new(), |v| {
        format!("\n  annotations:\n    olm.operatorframework.io/exclude-global-namespace-resolution: \"{v}\"")
    });
    format!(
        "---\napiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata:\n  name: {name}\n  namespace: {namespace}{annotations}\nspec: {{}}\n"
    )
}

/// operator-lifecycle-manager `ResolveSteps` (step_resolver.go): the
/// namespace's OperatorGroup with
/// `olm.operatorframework.io/exclude-global-namespace-resolution: "true"`
/// leaves `openshift-marketplace` out (e2e catalog_exclusion_test.go), so a
/// dependency only a CatalogSource there provides is unsatisfied, and a
/// Subscription to a catalog there finds no operators; with no
/// OperatorGroup or several, `IsFailForwardEnabled` (fail_forward.go)
/// stops the namespace's resolution. Live alike; a forbidden list of
/// OperatorGroups is a warning, and OLM's default holds.
#[test]
fn the_operator_group_can_leave_the_global_catalogs_out() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    // The Subscription's catalog (without etcd-tools) in its own namespace;
    // etcd-tools in openshift-marketplace.
    let base = objects_without_group(
        &s,
        &catalog_source(&s.host, "openshift-marketplace", "tools", "tools", 0),
    )
    .replace(
        "cs-etcd-index-v4-21, namespace: openshift-marketplace",
        "cs-etcd-index-v4-21, namespace: operators",
    )
    .replace(
        "sourceNamespace: openshift-marketplace",
        "sourceNamespace: operators",
    );
    let cases = [
        (operator_group("operators", "og", None), 0, "pathServed"),
        (
            operator_group("operators", "og", Some("true")),
            1,
            "unsatisfiedDependency",
        ),
        (
            operator_group("elsewhere", "og", None),
            1,
            "operatorGroupCount",
        ),
        (
            operator_group("operators", "a", None) + &operator_group("operators", "b", None),
            1,
            "operatorGroupCount",
        ),
    ];
    for (groups, code_wanted, reason) in cases {
        let all = base.clone() + &groups;
        let (code, json, err) = run_offline(&s, &all);
        assert_eq!(
            (code, json["reason"].as_str()),
            (code_wanted, Some(reason)),
            "{groups}: {json}\n{err}"
        );
        if reason == "pathServed" {
            assert_eq!(dependency_catalogs(&json), ["openshift-marketplace/tools"]);
        }
        if reason == "operatorGroupCount" {
            let n = groups.matches("kind: OperatorGroup").count()
                - usize::from(groups.contains("elsewhere"));
            assert!(
                json["message"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("found {n} operatorGroups, expected 1")),
                "{json}"
            );
        }
        let server = ApiBuilder::openshift().objects_from_yaml(&all).start();
        let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
        assert_eq!(code, code_wanted, "{groups} live: {out}\n{err}");
        assert_eq!(json_of(&out, &err), json, "{groups}: live as offline");
    }

    let excluded = base.clone() + &operator_group("operators", "og", Some("true"));
    // Files without any OperatorGroup: not exported, OLM's default.
    let no_group = base.clone();
    let (code, json, err) = run_offline(&s, &no_group);
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "files without OperatorGroups: OLM's default: {json}\n{err}"
    );
    let server = ApiBuilder::openshift()
        .forbid("list", "operatorgroups")
        .objects_from_yaml(&excluded)
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(
        (code, json_of(&out, &err)["reason"].as_str()),
        (0, Some("pathServed")),
        "{err}"
    );
    assert!(
        err.contains("cannot list the operatorgroups.operators.coreos.com of namespace operators"),
        "{err}"
    );

    // The Subscription's own catalog in openshift-marketplace, left out.
    let own_global = without_group(cluster(&s.host, "etcd.v0.9.0"))
        + &operator_group("operators", "og", Some("true"));
    let (code, json, err) = run_offline(&s, &own_global);
    assert_eq!(
        (code, json["reason"].as_str()),
        (1, Some("packageNotFound")),
        "{json}\n{err}"
    );
    assert_eq!(
        json["message"],
        "no operators found from catalog cs-etcd-index-v4-21 in namespace openshift-marketplace referenced by subscription etcd"
    );
    // A CatalogSource of its namespace that cannot be listed fails the
    // resolution before the Subscription's catalog is looked for
    // (resolver.go: `namespacedCache.Error()` before the solver).
    let unlisted = own_global
        + &format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: broken, namespace: operators}}\nspec:\n  sourceType: grpc\n  image: {}/redhat/redhat-operator-index:v4.21\n",
            s.host
        );
    let (code, json, err) = run_offline(&s, &unlisted);
    let message = prevented_message(code, &json, &err);
    assert!(
        message.starts_with("error using catalogsource operators/broken: failed to list bundles"),
        "{json}"
    );
}

/// operator-lifecycle-manager `csvSource.Snapshot` (source_csvs.go): an
/// installed CSV of the namespace whose `operatorframework.io/properties`
/// annotation OLM cannot unmarshal fails the namespace's virtual catalog
/// (`NAMESPACE/@existing`), and so the resolution of every Subscription of
/// the namespace (`ErrorPreventedResolution`); a readable one does not.
/// Offline and live alike.
#[test]
fn an_installed_csv_with_unreadable_properties_fails_the_namespace_resolution() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let installed = |annotation: &str| {
        format!(
            "---\napiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: other.v1\n  namespace: operators\n  annotations:\n    operatorframework.io/properties: '{annotation}'\nspec:\n  version: 1.0.0\n"
        )
    };
    let readable = cluster(&s.host, "etcd.v0.9.0") + &installed(r#"{"properties":[]}"#);
    let (code, json, err) = run_offline(&s, &readable);
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "{json}\n{err}"
    );

    let broken = cluster(&s.host, "etcd.v0.9.0") + &installed(r#"{"properties":{}}"#);
    let (code, json, err) = run_offline(&s, &broken);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "errorPreventedResolution", "{json}");
    assert!(
        json["message"].as_str().unwrap().starts_with(
            "error using catalogsource operators/@existing: failed to retrieve properties of csv \"other.v1\": failed to unmarshal properties annotation: "
        ),
        "{json}"
    );
    let server = ApiBuilder::openshift().objects_from_yaml(&broken).start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json, "live as offline");

    // resolver.go `Resolve`: the installed CSVs are the first variables; a
    // package requirement of one whose range blang cannot parse stops the
    // resolution of the namespace with blang's words.
    let bad_range = cluster(&s.host, "etcd.v0.9.0")
        + &installed(
            r#"{"properties":[{"type":"olm.package.required","value":{"packageName":"x","versionRange":"latest"}}]}"#,
        );
    let (code, json, err) = run_offline(&s, &bad_range);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "errorPreventedResolution", "{json}");
    assert_eq!(
        json["message"],
        "Could not get version from string: \"latest\" (installed CSV other.v1: olm.package.required x versionRange \"latest\")",
        "{json}"
    );
}

/// Another CatalogSource's `spec.secrets` are its registry pod's: live, each
/// is read and its catalog image pulled with it first (a dependency taken
/// from a private catalog); with `-f` (Secrets not read), or a secret that
/// cannot be read, refused credentials tell nothing of whether its pod can
/// pull, so it does not fail the namespace; without `spec.secrets` it does.
#[test]
fn another_catalog_source_is_pulled_with_its_own_pull_secrets() {
    use crate::cli_operator::{push_catalog, CONFIGS_LABEL};
    use crate::support::registry::Builder;
    use base64::Engine;
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let mut b = Builder::new().basic("catalog", "s3cret");
    let tools = vec![(
        "configs/etcd-tools/catalog.json".to_string(),
        tools_catalog(),
    )];
    let manifest = push_catalog(&mut b, &tools, Some(CONFIGS_LABEL));
    let private = b
        .manifest(crate::cli_operator::CATALOG_REPO, Some("tools"), &manifest)
        .start();
    private.write_ca(&s.certs, "private");
    let source = catalog_source(
        &private.host(),
        "openshift-marketplace",
        "private",
        "tools",
        0,
    );
    let with_secret = objects(
        &s,
        &source.replace(
            "  sourceType: grpc\n",
            "  sourceType: grpc\n  secrets: [private-pull]\n",
        ),
    );
    let auth = base64::engine::general_purpose::STANDARD.encode("catalog:s3cret");
    let config = base64::engine::general_purpose::STANDARD.encode(format!(
        r#"{{"auths":{{"{}":{{"auth":"{auth}"}}}}}}"#,
        private.host()
    ));
    let secret = format!("---\napiVersion: v1\nkind: Secret\nmetadata: {{name: private-pull, namespace: openshift-marketplace}}\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {config}\n");

    let server = ApiBuilder::openshift()
        .objects_from_yaml(&(with_secret.clone() + &secret))
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "pathServed", "{json}");
    assert_eq!(
        dependency_catalogs(&json),
        ["openshift-marketplace/private"]
    );

    let (code, json, err) = run_offline(&s, &with_secret);
    assert_eq!(
        (code, json["reason"].as_str()),
        (1, Some("unsatisfiedDependency")),
        "{json}\n{err}"
    );
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&with_secret)
        .start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(
        (code, json_of(&out, &err)["reason"].as_str()),
        (1, Some("unsatisfiedDependency")),
        "{err}"
    );

    let (code, json, err) = run_offline(&s, &objects(&s, &source));
    let message = prevented_message(code, &json, &err);
    assert!(message.contains("(unauthorized: "), "{json}");
}

/// operator-lifecycle-manager `newPackageRequiredPredicate` (resolver.go):
/// an `olm.package.required` versionRange blang cannot parse is an error of
/// `getBundleVariables` when the resolver meets the bundle as a candidate,
/// and it fails the namespace's resolution (`ErrorPreventedResolution`),
/// with blang's words; neither "any version" nor `unsatisfiedDependency`.
/// Offline and live alike.
#[test]
fn an_unparsable_required_version_range_fails_the_namespace_resolution() {
    let backup = crate::cli_operator::backup_by_digest();
    let bad: Vec<(String, String)> = catalog_files(&backup)
        .into_iter()
        .map(|(path, text)| {
            let text = text.replace("versionRange: '<2.0.0'", "versionRange: 'latest'");
            (path, text)
        })
        .collect();
    let reg = mirror_with(&[], &backup, &[("bad-range", bad)]);
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0").replace(":v4.21", ":bad-range");
    let (code, json, err) = run_offline(&s, &objects);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "errorPreventedResolution", "{json}");
    assert_eq!(
        json["message"],
        "Could not get version from string: \"latest\" (bundle etcd.v0.9.4: olm.package.required etcd-tools versionRange \"latest\")",
        "{json}"
    );
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(json_of(&out, &err), json, "live as offline");
}

/// The table names the CatalogSource a dependency comes from when it is not
/// the Subscription's own, as the JSON's `catalog` does: in the image rows
/// (`dependency (NAME, from NAMESPACE/NAME)`) and in `-o wide`'s
/// DEPENDENCIES; a dependency of the Subscription's own catalog is shown
/// as before.
#[test]
fn the_table_names_the_catalog_source_of_a_dependency() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let run = |objects: &str, format: &str| {
        let mut c = s.cmd();
        c.arg("-f").arg(s.write(objects)).args(["-o", format]);
        let (code, out, err) = output(c);
        assert_eq!(code, 0, "{out}\n{err}");
        out
    };
    let with_tools = objects(
        &s,
        &catalog_source(&s.host, "operators", "tools", "tools", 0),
    );
    let table = run(&with_tools, "table");
    assert!(
        table.contains("dependency (etcd-tools.v1.1.0, from operators/tools)")
            && table.contains("dependency (etcd-tools.v1.1.0/operator, from operators/tools)"),
        "{table}"
    );
    let wide = run(&with_tools, "wide");
    assert!(
        wide.contains("etcd-tools.v1.1.0 (from operators/tools)"),
        "{wide}"
    );

    let own = cluster(&s.host, "etcd.v0.9.0");
    for format in ["table", "wide"] {
        let out = run(&own, format);
        assert!(
            out.contains("dependency (etcd-tools.v1.1.0)")
                && !out.contains(", from ")
                && !out.contains("(from "),
            "{out}"
        );
    }
}

/// operator-lifecycle-manager `resolver.go` (`FindPreferred` with the
/// declaring bundle's catalog first, then every other catalog in order):
/// etcd.v0.9.4 requires etcd-tools, which only another CatalogSource
/// provides, and package other, which its own catalog provides; both are
/// found, also when the Subscription's catalog is given by
/// `--catalog-image` and its CatalogSource is not among the objects read.
#[test]
fn the_subscription_catalog_is_searched_first_without_its_catalog_source() {
    let backup = crate::cli_operator::backup_by_digest();
    let required = "- type: olm.package.required\n  value: {packageName: etcd-tools, versionRange: '<2.0.0'}\n";
    let without: Vec<(String, String)> = catalog_files(&backup)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("configs/etcd-tools/"))
        .map(|(path, text)| {
            let also = format!("{required}- type: olm.package.required\n  value: {{packageName: other, versionRange: '>=1.0.0'}}\n");
            // A package is offered through its channels: give other one.
            let channel = r#"{"schema":"olm.package","name":"other","defaultChannel":"stable"}
{"schema":"olm.channel","package":"other","name":"stable","entries":[{"name":"other.v1.0.0"}]}"#;
            let text = text
                .replace(required, &also)
                .replace(r#"{"schema":"olm.package","name":"other"}"#, channel);
            (path, text)
        })
        .collect();
    assert!(
        without
            .iter()
            .any(|(_, t)| t.contains("packageName: other")),
        "fixture: {without:?}"
    );
    let tools = vec![(
        "configs/etcd-tools/catalog.json".to_string(),
        tools_catalog(),
    )];
    let reg =
        crate::cli_operator::mirror_with(&[], &backup, &[("no-tools", without), ("tools", tools)]);
    let s = Setup::new(&reg);
    let repo = crate::cli_operator::CATALOG_REPO;
    let own = format!(
        "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: cs-etcd-index-v4-21, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {}/{repo}:v4.21\n",
        s.host
    );
    let cluster = cluster(&s.host, "etcd.v0.9.0");
    assert!(cluster.contains(&own), "{cluster}");
    let objects = cluster.replace(&own, "")
        + &catalog_source(&s.host, "operators", "tools", "tools", 0)
        + &other_mirror(&s.host);
    let mut c = s.cmd();
    c.arg("-f")
        .arg(s.write(&objects))
        .args(["--catalog-image", &format!("{}/{repo}:no-tools", s.host)])
        .args(["-o", "json"]);
    let (_, out, err) = output(c);
    let json = json_of(&out, &err);
    let found = dependencies_by_catalog(&json, &err);
    assert_eq!(
        found,
        [
            (
                "etcd-tools.v1.1.0".to_string(),
                "operators/tools".to_string()
            ),
            (
                "other.v1.0.0".to_string(),
                "openshift-marketplace/cs-etcd-index-v4-21".to_string()
            ),
        ],
        "{json}\n{err}"
    );
}

/// A dependency found in a later catalog can need a package only an earlier
/// one offers (operator-lifecycle-manager `resolver.go` searches every
/// catalog for each requirement): etcd-tools, from the second catalog in
/// the resolver's order, requires package other, which only the first
/// (priority 100) offers. Both are found, each from its own catalog.
#[test]
fn a_dependency_of_a_dependency_from_an_earlier_catalog() {
    let backup = crate::cli_operator::backup_by_digest();
    let reg = three_catalogs(&backup, without_tools_and_other(&backup));
    let s = Setup::new(&reg);
    let (_, json, err) = with_a_other_at(&s, Some(100));
    assert_tools_and_other_from(&json, &err, "operators/a-other");
    // Without the catalog that offers other, etcd-tools cannot be
    // installed, and so neither can the hop that needs it: OLM's solver
    // finds no solution.
    let (code, json, err) = with_a_other_at(&s, None);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "unsatisfiedDependency", "{json}");
    let message = json["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("requires package etcd-tools")
            && message.contains(": requires package other >=1.0.0)"),
        "{message}"
    );
}

/// Package other's catalog, its one bundle's digest all `digit`.
fn other_catalog(digit: char) -> String {
    let digest = std::iter::repeat_n(digit, 64).collect::<String>();
    format!(
        r#"{{"schema":"olm.package","name":"other","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"other","name":"stable","entries":[{{"name":"other.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/other/bundle@sha256:{digest}","properties":[{{"type":"olm.package","value":{{"packageName":"other","version":"1.0.0"}}}}]}}
"#
    )
}

/// The mirror of the Subscription's catalog `own` (tag `no-tools`), of
/// `other-only` (package other, its bundle's digest all 0) and of
/// `tools-other` (etcd-tools needing other).
fn three_catalogs(backup: &str, own: Vec<(String, String)>) -> FakeRegistry {
    crate::cli_operator::mirror_with(
        &[],
        backup,
        &[
            ("no-tools", own),
            (
                "other-only",
                vec![("configs/other/catalog.json".to_string(), other_catalog('0'))],
            ),
            (
                "tools-other",
                vec![(
                    "configs/etcd-tools/catalog.json".to_string(),
                    tools_needing_other(),
                )],
            ),
        ],
    )
}

/// The check offline with CatalogSource `b-tools` (priority 0) and, when
/// given its priority, `a-other`, both in namespace operators.
fn with_a_other_at(s: &Setup, priority: Option<i64>) -> (i32, Value, String) {
    let a_other = priority.map_or(String::new(), |p| {
        catalog_source(&s.host, "operators", "a-other", "other-only", p)
    });
    let more = a_other
        + &catalog_source(&s.host, "operators", "b-tools", "tools-other", 0)
        + &other_mirror(&s.host);
    run_offline(s, &objects(s, &more))
}

/// Hop 2's dependencies: etcd-tools from b-tools, other from `catalog`.
fn assert_tools_and_other_from(json: &Value, err: &str, catalog: &str) {
    assert_eq!(
        dependencies_by_catalog(json, err),
        [
            (
                "etcd-tools.v1.1.0".to_string(),
                "operators/b-tools".to_string()
            ),
            ("other.v1.0.0".to_string(), catalog.to_string()),
        ],
        "{json}\n{err}"
    );
}

/// `FindPreferred` offers a requirement from the declaring bundle's catalog
/// first, then from every other catalog in order, the Subscription's own
/// among them: etcd-tools (from `b-tools`) requires package other, which
/// the Subscription's catalog offers too; `a-other` (priority 100) comes
/// before it (priority 0, `openshift-marketplace`), so its bundle is the
/// one installed, though nothing is missing once the own catalog is read.
#[test]
fn a_requirement_the_own_catalog_meets_comes_from_a_catalog_ordered_before_it() {
    let backup = crate::cli_operator::backup_by_digest();
    let mut own = without_tools_and_other(&backup);
    own.push(("configs/other/catalog.json".to_string(), other_catalog('1')));
    let reg = three_catalogs(&backup, own);
    let s = Setup::new(&reg);
    let (_, json, err) = with_a_other_at(&s, Some(100));
    assert_tools_and_other_from(&json, &err, "operators/a-other");
    // At a lower priority than the own catalog, a-other comes after it:
    // the own catalog's bundle of other is installed, read for it though
    // no bundle of its own needs it.
    let (_, json, err) = with_a_other_at(&s, Some(-1));
    assert_tools_and_other_from(&json, &err, "openshift-marketplace/cs-etcd-index-v4-21");
    let images: Vec<&str> = json["hops"][1]["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["reference"].as_str())
        .filter(|r| r.starts_with("quay.io/other/"))
        .collect();
    assert_eq!(
        images,
        [format!("quay.io/other/bundle@sha256:{}", "1".repeat(64))],
        "{json}\n{err}"
    );
}

/// operator-lifecycle-manager `TestSolveOperators_IgnoreUnsatisfiableDependencies`
/// through the binary: the Subscription's catalog offers etcd-tools, but
/// only bundles that require package other, which no catalog has; the
/// solver takes etcd-tools from `b-tools`, whose bundle needs nothing,
/// though the declaring catalog comes first.
#[test]
fn an_uninstallable_provider_of_the_own_catalog_gives_way_to_another_catalog() {
    let backup = crate::cli_operator::backup_by_digest();
    let needs_other = tools_needing_other();
    let own: Vec<(String, String)> = catalog_files(&backup)
        .into_iter()
        .filter(|(path, _)| !path.starts_with("configs/other/"))
        .map(|(path, text)| {
            let text = if path.starts_with("configs/etcd-tools/") {
                needs_other.clone()
            } else {
                text
            };
            (path, text)
        })
        .collect();
    let reg = crate::cli_operator::mirror_with(
        &[],
        &backup,
        &[
            ("no-tools", own),
            (
                "tools-plain",
                vec![(
                    "configs/etcd-tools/catalog.json".to_string(),
                    tools_catalog(),
                )],
            ),
        ],
    );
    let s = Setup::new(&reg);
    let more = catalog_source(&s.host, "operators", "b-tools", "tools-plain", 0);
    let (code, json, err) = run_offline(&s, &objects(&s, &more));
    assert_eq!(code, 0, "{json}\n{err}");
    assert_eq!(
        dependencies_by_catalog(&json, &err),
        [(
            "etcd-tools.v1.1.0".to_string(),
            "operators/b-tools".to_string()
        )],
        "{json}\n{err}"
    );
}

/// The etcd-tools catalog whose bundles require package other (>=1.0.0).
fn tools_needing_other() -> String {
    tools_catalog().replace(
        r#""properties":["#,
        r#""properties":[{"type":"olm.package.required","value":{"packageName":"other","versionRange":">=1.0.0"}},"#,
    )
}

/// The catalog files of [`catalog_files`] without packages etcd-tools and other.
fn without_tools_and_other(backup: &str) -> Vec<(String, String)> {
    catalog_files(backup)
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with("configs/etcd-tools/") && !path.starts_with("configs/other/")
        })
        .collect()
}

/// An ImageDigestMirrorSet of quay.io/other (package other's bundle) to the
/// fake registry, never the source.
fn other_mirror(host: &str) -> String {
    format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-other}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/other\n    mirrors: [{host}/other]\n    mirrorSourcePolicy: NeverContactSource\n"
    )
}

/// Hop 2's dependencies and the catalog each comes from, sorted.
fn dependencies_by_catalog(json: &Value, err: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = json["hops"][1]["dependencies"]
        .as_array()
        .unwrap_or_else(|| panic!("{json}\n{err}"))
        .iter()
        .map(|d| {
            let name = d["name"].as_str().unwrap_or("-").to_string();
            (name, d["catalog"].as_str().unwrap_or("-").to_string())
        })
        .collect();
    found.sort();
    found
}

/// The catalog of etcd-tools alone (tag `tools`), on a registry of its own
/// whose CA is in `s`'s cert dir, with `creds` (user, password) when given:
/// every request it gets is for that catalog.
fn tools_registry(s: &Setup, creds: Option<(&str, &str)>) -> FakeRegistry {
    let tools = vec![(
        "configs/etcd-tools/catalog.json".to_string(),
        tools_catalog(),
    )];
    catalog_registry(s, &tools, creds)
}

/// The catalog of `files` (tag `tools`), as [`tools_registry`].
fn catalog_registry(
    s: &Setup,
    files: &[(String, String)],
    creds: Option<(&str, &str)>,
) -> FakeRegistry {
    use crate::cli_operator::{push_catalog, CONFIGS_LABEL};
    let mut b = crate::support::registry::Builder::new();
    if let Some((user, password)) = creds {
        b = b.basic(user, password);
    }
    let manifest = push_catalog(&mut b, files, Some(CONFIGS_LABEL));
    let reg = b
        .manifest(crate::cli_operator::CATALOG_REPO, Some("tools"), &manifest)
        .start();
    reg.write_ca(&s.certs, "tools");
    reg
}

/// Each CatalogSource's registry pod pulls its catalog image with its own
/// `spec.secrets` (then the global pull secret): two CatalogSources of one
/// private image are two pulls, and the answer of one is not the other's.
/// The one without a pull secret cannot pull, which fails the namespace's
/// resolution (resolver.go `namespacedCache.Error()`), though the other,
/// listed first, pulls with its secret. One whose secret does not exist is
/// not known to fail (its pull is not told), but its catalog is not read
/// with the other's secret: a warning says so, and the dependency comes
/// from the one that pulls.
#[test]
fn two_catalog_sources_of_one_image_pull_with_their_own_secrets() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let private = tools_registry(&s, Some(("catalog", "s3cret")));
    let source = |name: &str, secrets: &str| {
        catalog_source(&private.host(), "openshift-marketplace", name, "tools", 0).replace(
            "  sourceType: grpc\n",
            &format!("  sourceType: grpc\n{secrets}"),
        )
    };
    let secret = private_pull(&private.host());
    let with_secret = source("a-private", "  secrets: [private-pull]\n");
    let run = |more: &str| {
        let all = objects(&s, &(with_secret.clone() + more)) + &secret;
        let server = ApiBuilder::openshift().objects_from_yaml(&all).start();
        let (code, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
        (code, json_of(&out, &err), err)
    };

    let (code, json, err) = run(&source("b-private", ""));
    let message = prevented_message(code, &json, &err);
    assert!(
        message.starts_with(
            "error using catalogsource openshift-marketplace/b-private: failed to list bundles: its registry pod cannot pull the catalog image"
        ) && message.contains("(unauthorized: ")
            && !message.contains("a-private"),
        "{message}"
    );

    let (code, json, err) = run(&source("b-private", "  secrets: [private-pull]\n"));
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "{json}\n{err}"
    );
    assert_eq!(
        dependency_catalogs(&json),
        ["openshift-marketplace/a-private"]
    );

    let (code, json, err) = run(&source("b-private", "  secrets: [absent-pull]\n"));
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "{json}\n{err}"
    );
    assert_eq!(
        dependency_catalogs(&json),
        ["openshift-marketplace/a-private"]
    );
    assert!(
        err.contains("the catalog of CatalogSource openshift-marketplace/b-private (")
            && !err.contains("CatalogSource openshift-marketplace/a-private ("),
        "{err}"
    );
}

/// The registry requests for another CatalogSource's catalog: probed once
/// (its listability probe is the probe its read uses: one manifest GET),
/// its manifest fetched once more from the source that serves it and its
/// config once, its three layers streamed once for the index of providers,
/// then only the two that hold anything of the configs folder (the configs
/// layer, and the one with a whiteout in it; not the base) once more for
/// the packages the dependency needs (with those their bundles need,
/// known from the index, in the same stream). It was 5
/// manifest GETs and 8 blob GETs: a probe and a fetch per read, and every
/// layer per read.
#[test]
fn another_catalog_is_probed_once_and_its_configs_streamed_twice() {
    let reg = mirror_of_two_catalogs();
    let s = Setup::new(&reg);
    let tools = tools_registry(&s, None);
    let more = catalog_source(&tools.host(), "operators", "tools", "tools", 0);
    let (code, json, err) = run_offline(&s, &objects(&s, &more));
    assert_eq!(code, 0, "{json}\n{err}");
    assert_eq!(dependency_catalogs(&json), ["operators/tools"]);
    let gets = |kind: &str| {
        tools
            .log()
            .iter()
            .filter(|l| l.method == "GET" && l.path.contains(kind))
            .map(|l| l.path.rsplit('/').next().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
    };
    let (manifests, blobs) = (gets("/manifests/"), gets("/blobs/"));
    assert_eq!(
        (manifests.len(), blobs.len()),
        (2, 6),
        "manifests {manifests:?}, blobs {blobs:?}"
    );

    // etcd-tools requires package other, which the same catalog offers: the
    // index says so, and both are read in the one stream of the packages.
    let other = r#"{"schema":"olm.package","name":"other","defaultChannel":"stable"}
{"schema":"olm.channel","package":"other","name":"stable","entries":[{"name":"other.v1.0.0"}]}
{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/other/bundle@sha256:0000000000000000000000000000000000000000000000000000000000000000","properties":[{"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}}]}
"#;
    let needs_other = tools_needing_other();
    let files = [
        ("configs/etcd-tools/catalog.json".to_string(), needs_other),
        ("configs/other/catalog.json".to_string(), other.to_string()),
    ];
    let both = catalog_registry(&s, &files, None);
    let more =
        catalog_source(&both.host(), "operators", "tools", "tools", 0) + &other_mirror(&s.host);
    let (_, json, err) = run_offline(&s, &objects(&s, &more));
    assert_eq!(
        dependencies_by_catalog(&json, &err),
        [
            (
                "etcd-tools.v1.1.0".to_string(),
                "operators/tools".to_string()
            ),
            ("other.v1.0.0".to_string(), "operators/tools".to_string()),
        ],
        "{json}\n{err}"
    );
    let blobs = both
        .log()
        .iter()
        .filter(|l| l.method == "GET" && l.path.contains("/blobs/"))
        .count();
    assert_eq!(blobs, 6, "{:?}", both.log());
}

/// Secret `private-pull` of `openshift-marketplace`: a pull secret with
/// the fake registry's credentials (`catalog`, `s3cret`) for `host`.
fn private_pull(host: &str) -> String {
    use base64::Engine;
    let auth = base64::engine::general_purpose::STANDARD.encode("catalog:s3cret");
    let config = base64::engine::general_purpose::STANDARD
        .encode(format!(r#"{{"auths":{{"{host}":{{"auth":"{auth}"}}}}}}"#));
    format!("---\napiVersion: v1\nkind: Secret\nmetadata: {{name: private-pull, namespace: openshift-marketplace}}\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {config}\n")
}

/// The Subscription's own CatalogSource, read anew for a package another
/// catalog's bundle needs (etcd-tools, from `b-tools`, requires package
/// other, which only the own catalog offers), is pulled with its own
/// `spec.secrets`, as its first read is: live, its private catalog gives
/// other (it was read anew with the global pull secret alone, refused,
/// and other was missing); and it is opened once for both reads.
#[test]
fn the_own_catalog_read_anew_is_pulled_with_its_own_secrets() {
    let backup = crate::cli_operator::backup_by_digest();
    let other = r#"{"schema":"olm.package","name":"other","defaultChannel":"stable"}
{"schema":"olm.channel","package":"other","name":"stable","entries":[{"name":"other.v1.0.0"}]}
{"schema":"olm.bundle","name":"other.v1.0.0","package":"other","image":"quay.io/other/bundle@sha256:1111111111111111111111111111111111111111111111111111111111111111","properties":[{"type":"olm.package","value":{"packageName":"other","version":"1.0.0"}}]}
"#;
    let mut own: Vec<(String, String)> = without_tools_and_other(&backup);
    own.push(("configs/other/catalog.json".to_string(), other.to_string()));
    let needs_other = tools_needing_other();
    let tools = vec![("configs/etcd-tools/catalog.json".to_string(), needs_other)];
    let reg = crate::cli_operator::mirror_with(&[], &backup, &[("tools-other", tools)]);
    let s = Setup::new(&reg);
    let private = catalog_registry(&s, &own, Some(("catalog", "s3cret")));
    let repo = crate::cli_operator::CATALOG_REPO;
    let objects = cluster(&s.host, "etcd.v0.9.0").replace(
        &format!("  image: {}/{repo}:v4.21\n", s.host),
        &format!(
            "  image: {}/{repo}:tools\n  secrets: [private-pull]\n",
            private.host()
        ),
    ) + &catalog_source(&s.host, "operators", "b-tools", "tools-other", 0)
        + &other_mirror(&s.host)
        + &private_pull(&private.host());
    assert!(objects.contains("secrets: [private-pull]"), "{objects}");
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let (_, out, err) = s.run_live(&server, &["-n", "operators", "-o", "json"]);
    let json = json_of(&out, &err);
    assert_eq!(
        dependencies_by_catalog(&json, &err),
        [
            (
                "etcd-tools.v1.1.0".to_string(),
                "operators/b-tools".to_string()
            ),
            (
                "other.v1.0.0".to_string(),
                "openshift-marketplace/cs-etcd-index-v4-21".to_string()
            ),
        ],
        "{json}\n{err}"
    );
    assert!(!err.contains("was not read"), "{err}");
    // Its first read opened it: read anew, it is neither probed nor
    // fetched again, and only the layers holding configs are streamed (it
    // was 4 manifest GETs and 8 blob GETs).
    let gets = |kind: &str| {
        private
            .log()
            .iter()
            .filter(|l| l.method == "GET" && l.path.contains(kind))
            .count()
    };
    assert_eq!(
        (gets("/manifests/"), gets("/blobs/")),
        (2, 6),
        "{:?}",
        private.log()
    );
}
