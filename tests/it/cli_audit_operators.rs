//! `audit` and the operators of a cluster through the binary: the probe
//! set-up `--probe` and `--updates` share, and `--updates` over several
//! contexts.

use crate::support;

use super::cli_operator::{
    backup_by_digest, cluster, image_policy, json_of, mirror, output, Setup,
};
use support::apiserver::Builder as ApiBuilder;

/// `audit --probe --updates`: the images audited and the update check are
/// probed with one prober, so its caches serve both: the mirror, which
/// serves the catalog image (audited as its CatalogSource's, then read for
/// the update) and every image of the next hop, is pinged once. Each
/// prober of its own pinged it again.
#[test]
fn probe_and_updates_share_one_probe_set_up() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let files = s.write(&cluster(&s.host, "etcd.v0.9.0"));
    let mut c = s.cmd_for("audit");
    c.arg("--probe")
        .arg("-f")
        .arg(&files)
        .args(["--updates", "-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let catalog = format!("{}/redhat/etcd-index:v4.21", s.host);
    let audited = json["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["reference"] == catalog.as_str())
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(audited["class"], "direct", "{audited}");
    assert!(audited["probe"]["servedBy"].is_string(), "{audited}");
    assert_eq!(json["updates"][0]["readiness"], "ready", "{out}");
    let pings = reg.log().iter().filter(|l| l.path == "/v2/").count();
    assert_eq!(pings, 1, "{:#?}", reg.log());
}

/// `audit --updates -o wide` over several contexts: every cluster's
/// updates as rows behind a CONTEXT column (the rows one cluster's wide
/// table has), then each cluster's line of counts; `-o json` is a `List`
/// with each cluster's report (`result`) and its `updates`.
#[test]
fn updates_of_several_contexts_are_rows_with_their_context() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let east = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.0"))
        .start();
    let west = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.4"))
        .start();
    let kubeconfig = support::kubeconfig::contexts(
        s.dir.path(),
        "contexts.yaml",
        &[("east", &east), ("west", &west)],
        "operators",
    );
    let audit = |format: &str| {
        let mut c = s.cmd_for("audit");
        c.env("KUBECONFIG", &kubeconfig).args([
            "--probe",
            "--updates",
            "--context",
            "east,west",
            "-o",
            format,
        ]);
        output(c)
    };
    let (code, out, err) = audit("json");
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    let items = json["items"].as_array().unwrap_or_else(|| panic!("{out}"));
    let updates: Vec<(&str, &str, &str)> = items
        .iter()
        .map(|i| {
            let u = &i["result"]["updates"][0];
            (
                i["context"].as_str().unwrap_or_default(),
                u["installedCSV"].as_str().unwrap_or_default(),
                u["readiness"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        updates,
        [
            ("east", "etcd.v0.9.0", "notReady"),
            ("west", "etcd.v0.9.4", "ready")
        ],
        "{out}"
    );
    let message = items[0]["result"]["updates"][0]["message"]
        .as_str()
        .unwrap();

    let (code, out, err) = audit("wide");
    assert_eq!(code, 0, "{out}\n{err}");
    let mut lines = out
        .lines()
        .skip_while(|l| !l.starts_with("CONTEXT  SUBSCRIPTION"));
    let head: Vec<&str> = lines
        .next()
        .unwrap_or_else(|| panic!("no table of updates: {out}"))
        .split_whitespace()
        .collect();
    assert_eq!(
        head,
        [
            "CONTEXT",
            "SUBSCRIPTION",
            "INSTALLED",
            "NEXT",
            "READINESS",
            "REASON",
            "MESSAGE"
        ],
        "{out}"
    );
    let updates: Vec<&str> = lines.collect();
    let rows: Vec<Vec<&str>> = updates
        .iter()
        .filter(|l| l.starts_with("east ") || l.starts_with("west "))
        .map(|l| l.split_whitespace().take(6).collect())
        .collect();
    assert_eq!(
        rows,
        [
            vec![
                "east",
                "operators/etcd",
                "etcd.v0.9.0",
                "etcd.v0.9.2",
                "notReady",
                "imagesNotServed"
            ],
            vec![
                "west",
                "operators/etcd",
                "etcd.v0.9.4",
                "-",
                "ready",
                "atHead"
            ],
        ],
        "{out}"
    );
    let east_row = updates.iter().find(|l| l.starts_with("east ")).unwrap();
    assert!(east_row.contains(&message[..40]), "the message: {out}");
    // The counts stay last, one line per cluster.
    assert!(
        out.ends_with(
            "east: 1 image: 1 direct; 1 operator update: 1 notReady\nwest: 1 image: 1 direct; 1 operator update: 1 ready\n"
        ),
        "{out}"
    );
}

/// `audit -n operators`: the CatalogSource in `openshift-marketplace` that
/// the namespace's Subscription uses is audited with it (its registry pod
/// runs the index image the operators depend on), named as that
/// CatalogSource and judged with the policy of its own namespace, the same
/// as `-A` judges it; a CatalogSource no Subscription of the namespace uses
/// is not. From files and live alike.
#[test]
fn a_namespace_audit_includes_the_catalog_sources_its_subscriptions_use() {
    const HOST: &str = "mirror.example.com:5000";
    let catalog = format!("{HOST}/redhat/etcd-index:v4.21");
    let unused = "---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: community, namespace: openshift-marketplace}\nspec:\n  sourceType: grpc\n  image: registry.example.com/community-index:v4.21\n";
    let signed = image_policy(
        "openshift-marketplace",
        &format!("{HOST}/redhat/etcd-index"),
    );
    let objects = cluster(HOST, "etcd.v0.9.0") + unused + &signed;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, &objects).unwrap();
    let audit = |env: Option<&std::path::Path>, args: &[&str]| {
        let mut c = support::bin();
        c.env_remove("KUBECONFIG").arg("audit").args(args);
        match env {
            Some(kubeconfig) => c.env("KUBECONFIG", kubeconfig),
            None => c.arg("-f").arg(&file),
        };
        c.args(["-o", "json"]);
        let (code, out, err) = output(c);
        assert_eq!(code, 0, "{args:?}: {out}\n{err}");
        json_of(&out, &err)["images"].clone()
    };
    let every = audit(None, &["-A"]);
    let expected = every
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["reference"] == catalog.as_str())
        .unwrap_or_else(|| panic!("{every}"))
        .clone();
    assert_eq!(
        (&expected["objects"], &expected["signatureRequired"]),
        (
            &serde_json::json!(["CatalogSource/openshift-marketplace/cs-etcd-index-v4-21"]),
            &serde_json::json!(true)
        ),
        "{expected}"
    );
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    for (how, images) in [
        ("files", audit(None, &["-n", "operators"])),
        ("live", audit(Some(&kubeconfig), &["-n", "operators"])),
    ] {
        assert_eq!(images, serde_json::json!([expected]), "{how}");
    }
    // Another namespace's Subscriptions are not this one's.
    let none = audit(None, &["-n", "elsewhere"]);
    assert_eq!(none, serde_json::json!([]), "{none}");
    // Subscriptions the user may not list: a warning, and no catalog.
    let server = ApiBuilder::openshift()
        .forbid_in("list", "subscriptions", "operators")
        .objects_from_yaml(&objects)
        .start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let mut c = support::bin();
    c.env("KUBECONFIG", &kubeconfig)
        .args(["audit", "-n", "operators", "-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(
        json_of(&out, &err)["images"],
        serde_json::json!([]),
        "{out}"
    );
    assert!(
        err.contains("cannot list subscriptions")
            && err.contains(
                "the CatalogSources the Subscriptions of namespace operators use are not audited"
            ),
        "{err}"
    );
}

/// A Subscription of the namespace that cannot be read names no
/// CatalogSource: said on stderr with the object and field, not dropped
/// without a word.
#[test]
fn a_namespace_audit_says_which_subscription_it_cannot_read() {
    let objects = cluster("mirror.example.com:5000", "etcd.v0.9.0")
        + "---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: broken, namespace: operators}\nspec:\n  name: etcd\n";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, &objects).unwrap();
    let mut c = support::bin();
    c.env_remove("KUBECONFIG")
        .args(["audit", "-n", "operators", "-o", "json", "-f"])
        .arg(&file);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains(
            "Subscription broken has no spec.source: the CatalogSource it uses is not audited"
        ),
        "{err}"
    );
}

/// Issue 38: `audit -n NS --updates` live reads each of OLM's objects once
/// for the CatalogSources audited and the update check alike: the
/// Subscriptions, the namespace's CSVs and CatalogSources and the global
/// namespace's CatalogSources are each listed once, and the CatalogSource
/// a Subscription uses is not read again by name.
#[test]
fn issue_38_audit_updates_reads_each_olm_object_once() {
    let reg = mirror(&[], &backup_by_digest());
    let s = Setup::new(&reg);
    let server = ApiBuilder::openshift()
        .objects_from_yaml(&cluster(&s.host, "etcd.v0.9.0"))
        .start();
    let kubeconfig = server.write_kubeconfig(s.dir.path());
    let mut c = s.cmd_for("audit");
    c.env("KUBECONFIG", &kubeconfig).args([
        "--probe",
        "--updates",
        "-n",
        "operators",
        "-o",
        "json",
    ]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["updates"][0]["readiness"], "ready", "{out}");
    let catalog = format!("{}/redhat/etcd-index:v4.21", s.host);
    assert!(
        json["images"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["reference"] == catalog.as_str()),
        "the CatalogSource used is audited: {out}"
    );
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for l in server.log() {
        *counts
            .entry(format!("{} {}", l.method, l.path))
            .or_default() += 1;
    }
    const OLM: &str = "/apis/operators.coreos.com/v1alpha1/namespaces";
    for path in [
        format!("{OLM}/operators/subscriptions"),
        format!("{OLM}/operators/clusterserviceversions"),
        format!("{OLM}/operators/catalogsources"),
        format!("{OLM}/openshift-marketplace/catalogsources"),
    ] {
        assert_eq!(
            counts.get(&format!("GET {path}")),
            Some(&1),
            "{path}: {counts:#?}"
        );
    }
    let olm_reads: Vec<(&String, &usize)> = counts
        .iter()
        .filter(|(p, _)| p.contains("operators.coreos.com"))
        .collect();
    assert!(olm_reads.iter().all(|(_, n)| **n == 1), "{olm_reads:#?}");
    assert!(
        !counts
            .keys()
            .any(|p| p.ends_with("/catalogsources/cs-etcd-index-v4-21")),
        "{counts:#?}"
    );
}

/// Issue 38: `audit -n NS --updates -f -` reads the objects on standard
/// input once, for the workloads, the CatalogSources its Subscriptions use
/// and the update check: the same answer as from a file.
#[test]
fn issue_38_audit_updates_reads_objects_from_stdin_as_from_a_file() {
    let reg = mirror(&["etcd.v0.9.2"], &backup_by_digest());
    let s = Setup::new(&reg);
    let objects = cluster(&s.host, "etcd.v0.9.0");
    let file = s.write(&objects);
    let args = [
        "--probe",
        "--updates",
        "-n",
        "operators",
        "-o",
        "json",
        "-f",
    ];
    let mut c = s.cmd_for("audit");
    c.args(args).arg(&file);
    let (code, from_file, err) = output(c);
    assert_eq!(code, 0, "{from_file}\n{err}");
    let from_file = json_of(&from_file, &err);
    assert_eq!(
        from_file["updates"][0]["readiness"], "notReady",
        "{from_file}"
    );
    let mut c = s.cmd_for("audit");
    c.args(args).arg("-").write_stdin(objects.clone());
    let (code, from_stdin, err) = output(c);
    assert_eq!(code, 0, "{from_stdin}\n{err}");
    let from_stdin = json_of(&from_stdin, &err);
    assert_eq!(from_stdin["updates"], from_file["updates"], "{err}");
    let references = |json: &serde_json::Value| -> Vec<String> {
        let images = json["images"].as_array().unwrap();
        images.iter().map(|i| i["reference"].to_string()).collect()
    };
    assert_eq!(references(&from_stdin), references(&from_file), "{err}");
    let catalog = format!("\"{}/redhat/etcd-index:v4.21\"", s.host);
    assert!(references(&from_stdin).contains(&catalog), "{from_stdin}");
    // Without --updates, the catalogs its Subscriptions use are found there too.
    let mut c = s.cmd_for("audit");
    c.args(["--probe", "-n", "operators", "-o", "json", "-f", "-"])
        .write_stdin(objects.clone());
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(references(&json_of(&out, &err)).contains(&catalog), "{out}");
    // operator-check reads its Subscriptions from standard input as well.
    let check = |stdin: bool| {
        let mut c = s.cmd();
        c.args(["-n", "operators", "-o", "json", "-f"]);
        match stdin {
            true => c.arg("-").write_stdin(objects.clone()),
            false => c.arg(&file),
        };
        let (code, out, err) = output(c);
        assert_eq!(code, 1, "stdin {stdin}: {out}\n{err}");
        json_of(&out, &err)
    };
    assert_eq!(check(true), check(false));
}

/// Issue 38: a Subscription read live that cannot be read is named as the
/// update check names it: the server, the kind, its namespace and name,
/// and the field.
#[test]
fn issue_38_a_live_subscription_that_cannot_be_read_is_named_with_its_field() {
    let objects = cluster("mirror.example.com:5000", "etcd.v0.9.0")
        + "---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: broken, namespace: operators}\nspec:\n  name: etcd\n";
    let dir = tempfile::tempdir().unwrap();
    let server = ApiBuilder::openshift().objects_from_yaml(&objects).start();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let mut c = support::bin();
    c.env("KUBECONFIG", &kubeconfig)
        .args(["audit", "-n", "operators", "-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 0, "{out}\n{err}");
    let want = format!(
        "{}: Subscription operators/broken: Subscription broken has no spec.source: the CatalogSource it uses is not audited",
        server.url()
    );
    assert!(err.contains(&want), "{want}\n{err}");
}
