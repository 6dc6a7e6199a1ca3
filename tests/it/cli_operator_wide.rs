//! `operator-check -o wide`'s DIGEST column through the binary: the digest
//! each image of the path resolves to, the same as the JSON's.

use crate::support;

use serde_json::Value;

use super::cli_operator::{bundle_digest, cluster, image_digest, json_of, mirror, output, Setup};
use support::registry::{manifest_body, Builder};

const BACKUP: &str = "quay.io/etcd/etcd-backup:v0.9.4";

/// The served source's digest of the image `reference` of the JSON's last
/// hop (`pullSources[].digest` of the source that served it).
fn served_digest(json: &Value, reference: &str) -> Option<String> {
    let hops = json["hops"].as_array().expect("hops");
    let image = hops
        .iter()
        .flat_map(|h| h["images"].as_array().expect("images"))
        .find(|i| i["reference"] == reference)
        .unwrap_or_else(|| panic!("{reference} in {json}"));
    let check = &image["check"];
    check["pullSources"]
        .as_array()?
        .iter()
        .find(|s| s["reference"] == check["servedBy"])
        .and_then(|s| s["digest"].as_str())
        .map(str::to_string)
}

/// The wide table's row of `reference`: its class, then the cells after
/// the reference (SERVED BY, DIGEST, ...).
fn row<'a>(out: &'a str, reference: &str) -> (&'a str, Vec<&'a str>) {
    let line = out
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .find(|l| l.contains(&format!(" {reference} ")))
        .unwrap_or_else(|| panic!("no row of {reference}: {out}"));
    let (before, after) = line.split_once(&format!(" {reference} ")).unwrap();
    let class = before.split_whitespace().last().unwrap_or_default();
    (class, after.split_whitespace().collect())
}

/// A bundle pins its digest; a relatedImage by tag resolves to the digest
/// its ImageTagMirrorSet's mirror answers with; without that mirror set
/// the tag is not served anywhere: `-`.
#[test]
fn wide_images_show_the_digest_each_resolves_to() {
    let reg = mirror(&[], BACKUP);
    let tags = Builder::new()
        .manifest(
            "etcd/etcd-backup",
            Some("v0.9.4"),
            &manifest_body("backup-0.9.4"),
        )
        .start();
    let s = Setup::new(&reg);
    tags.write_ca(&s.certs, "tags");
    let itms = format!(
        "---\napiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata: {{name: itms-operator-0}}\nspec:\n  imageTagMirrors:\n  - source: quay.io/etcd/etcd-backup\n    mirrors: [{}/etcd/etcd-backup]\n",
        tags.host()
    );
    let base = cluster(&s.host, "etcd.v0.9.0");
    let run = |objects: &str, format: &str| {
        let mut c = s.cmd();
        c.arg("-f").arg(s.write(objects)).args(["-o", format]);
        output(c)
    };

    let with_itms = base.clone() + &itms;
    let (code, out, err) = run(&with_itms, "wide");
    assert_eq!(code, 0, "{out}\n{err}");
    let head = out
        .lines()
        .find(|l| l.starts_with("HOP  OUTCOME"))
        .unwrap_or_else(|| panic!("{out}"));
    let head: Vec<&str> = head
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(head[5..8], ["SERVED BY", "DIGEST", "TRIED"], "{out}");
    let bundle = format!("quay.io/etcd/etcd-bundle@{}", bundle_digest("etcd.v0.9.4"));
    let backup_digest = image_digest("backup-0.9.4");
    assert_eq!(
        row(&out, &bundle).1[1],
        bundle_digest("etcd.v0.9.4"),
        "{out}"
    );
    let (class, cells) = row(&out, BACKUP);
    assert_eq!(
        (class, cells[1]),
        ("tagReference", backup_digest.as_str()),
        "{out}"
    );
    // The JSON carries the same digest, on the source that served the tag.
    let (code, json, err) = run(&with_itms, "json");
    assert_eq!(code, 0, "{json}\n{err}");
    let json = json_of(&json, &err);
    assert_eq!(served_digest(&json, BACKUP), Some(backup_digest), "{json}");

    // Without the ImageTagMirrorSet: no source serves the tag.
    let (code, out, err) = run(&base, "wide");
    assert_eq!(code, 1, "{out}\n{err}");
    let (class, cells) = row(&out, BACKUP);
    assert_eq!(
        (class, cells.get(..2)),
        ("tagSkipsDigestMirrors", Some(&["-", "-"][..])),
        "{out}"
    );
    let (_, json, err) = run(&base, "json");
    assert_eq!(served_digest(&json_of(&json, &err), BACKUP), None);
}
