//! `operator-check` on a catalog the registry pod's `opm serve` refuses
//! (operator-registry `declcfg.ConvertToModel` and `model.Validate`, run
//! package by package as opm builds its cache): the Subscription's own
//! catalog is not served; another CatalogSource's fails the resolution of
//! the namespace; `audit --updates` says the same; the catalog cache keeps
//! the refusal.

use serde_json::Value;

use crate::cli_operator::{
    backup_by_digest, catalog_files, cluster, json_of, mirror_with, output, Setup, CATALOG_REPO,
};

/// The catalog with one more package, `stray`, whose second bundle is in
/// no channel entry: opm serve exits with
/// `package "stray", bundle "stray.v1.0.1" not found in any channel entries`.
fn unserved_files() -> Vec<(String, String)> {
    let stray = r#"{"schema":"olm.package","name":"stray","defaultChannel":"stable"}
{"schema":"olm.channel","package":"stray","name":"stable","entries":[{"name":"stray.v1.0.0"}]}
{"schema":"olm.bundle","name":"stray.v1.0.0","package":"stray","image":"quay.io/stray/bundle@sha256:1111111111111111111111111111111111111111111111111111111111111111","properties":[{"type":"olm.package","value":{"packageName":"stray","version":"1.0.0"}}]}
{"schema":"olm.bundle","name":"stray.v1.0.1","package":"stray","image":"quay.io/stray/bundle@sha256:2222222222222222222222222222222222222222222222222222222222222222","properties":[{"type":"olm.package","value":{"packageName":"stray","version":"1.0.1"}}]}
"#;
    let mut files = catalog_files(&backup_by_digest());
    files.push(("configs/stray/catalog.json".into(), stray.into()));
    files
}

const REFUSAL: &str = r#"package "stray", bundle "stray.v1.0.1" not found in any channel entries (/configs/stray/catalog.json)"#;

fn run(s: &Setup, objects: &str, args: &[&str]) -> (i32, Value, String) {
    let mut c = s.cmd();
    c.arg("-f")
        .arg(s.write(objects))
        .args(["-o", "json"])
        .args(args);
    let (code, out, err) = output(c);
    (code, json_of(&out, &err), err)
}

fn step<'a>(json: &'a Value, outcome: &str) -> &'a str {
    json["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["outcome"] == outcome)
        .and_then(|n| n["step"].as_str())
        .unwrap_or_else(|| panic!("no {outcome} step: {json}"))
}

/// The Subscription's own catalog has a bundle in no channel: not ready,
/// `catalogNotServed` in opm's words naming the file, the catalog's
/// `refused`, no path; the same from the catalog cache; `audit --updates`
/// shows the same verdict.
#[test]
fn a_bundle_in_no_channel_is_a_catalog_opm_cannot_serve() {
    let reg = mirror_with(&[], &backup_by_digest(), &[("unserved", unserved_files())]);
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0").replace(":v4.21", ":unserved");
    let cache = s.dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    let (code, json, err) = run(&s, &objects, &["--cache-dir", cache]);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "catalogNotServed", "{json}");
    assert_eq!(
        json["message"],
        format!("the registry pod's opm cannot serve the catalog: {REFUSAL}"),
        "{json}"
    );
    assert_eq!(
        json["catalog"]["refused"]["file"], "/configs/stray/catalog.json",
        "{json}"
    );
    assert_eq!(json["hops"], serde_json::json!([]), "no path: {json}");
    assert!(
        step(&json, "catalogNotServed").contains("opm validate"),
        "{json}"
    );
    let blobs = || reg.requests_to(&format!("/v2/{CATALOG_REPO}/blobs/"));
    let read = blobs();
    let (code, again, err) = run(&s, &objects, &["--cache-dir", cache]);
    assert_eq!((code, &again), (1, &json), "from the cache\n{err}");
    assert_eq!(blobs(), read, "the refusal is cached with the catalog");

    let mut c = s.cmd_for("audit");
    c.arg("--probe")
        .arg("-f")
        .arg(s.write(&objects))
        .args(["--updates", "-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let update = &json_of(&out, &err)["updates"][0];
    assert_eq!(
        (update["readiness"].as_str(), update["reason"].as_str()),
        (Some("notReady"), Some("catalogNotServed")),
        "{update}"
    );
    assert_eq!(update["message"], json["message"], "{update}");

    // The catalog opm serves (the fixture's `other` has its channel) is ready.
    let (code, json, err) = run(&s, &cluster(&s.host, "etcd.v0.9.0"), &[]);
    assert_eq!(
        (code, json["reason"].as_str()),
        (0, Some("pathServed")),
        "{json}\n{err}"
    );
    assert!(json["catalog"].get("refused").is_none(), "{json}");
}

/// Another CatalogSource of the global namespace whose image is pulled but
/// whose catalog opm refuses: its registry pod serves nothing, so OLM
/// cannot list it and fails the namespace's resolution
/// (`ErrorPreventedResolution`), as for a catalog image it cannot pull.
#[test]
fn another_catalog_opm_cannot_serve_fails_the_namespace_resolution() {
    let reg = mirror_with(&[], &backup_by_digest(), &[("unserved", unserved_files())]);
    let s = Setup::new(&reg);
    let other = format!(
        "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: broken, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {}/{CATALOG_REPO}:unserved\n",
        s.host
    );
    let (code, json, err) = run(&s, &(cluster(&s.host, "etcd.v0.9.0") + &other), &[]);
    assert_eq!(code, 1, "{json}\n{err}");
    assert_eq!(json["reason"], "errorPreventedResolution", "{json}");
    assert_eq!(
        json["message"],
        format!(
            "error using catalogsource openshift-marketplace/broken: failed to list bundles: its registry pod's opm cannot serve the catalog {}/{CATALOG_REPO}:unserved: {REFUSAL}",
            s.host
        ),
        "{json}"
    );
    let step = step(&json, "errorPreventedResolution");
    assert!(
        step.contains("CatalogSource openshift-marketplace/broken")
            && step.contains("opm validate"),
        "{step}"
    );
}
