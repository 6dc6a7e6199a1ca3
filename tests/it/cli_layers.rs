//! Image layers read through the built binary as a hostile registry may
//! serve them: a catalog layer whose entry would unpack past the layers'
//! cap, and a bundle layer's alike (`operator-check`).

use crate::cli_operator::{
    bundle_digest, cluster, json_of, output, push_catalog, Setup, BUNDLE_SOURCE, CATALOG_REPO,
    CONFIGS_LABEL,
};
use crate::support::layers::{gzip, tar};
use crate::support::registry::{digest_of, Builder};

/// A catalog image on the mirror (tag `bomb`): a base layer whose entry
/// `usr/share/bomb` says it is 9 GiB long (64 KiB of it follow), then the
/// configs. Its manifest.
fn bomb_catalog(b: &mut Builder) -> String {
    let mut header = tar::Header::new_gnu();
    header.set_path("usr/share/bomb").expect("path");
    header.set_size(9 << 30);
    header.set_mode(0o644);
    header.set_cksum();
    let mut base = header.as_bytes().to_vec();
    base.extend(std::iter::repeat_n(0u8, 64 << 10));
    let base = gzip(&base);
    let configs = tar(&[(
        "configs/etcd/catalog.json",
        r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}"#,
    )]);
    let config = format!(
        r#"{{"architecture":"amd64","os":"linux","config":{{"Labels":{{"{CONFIGS_LABEL}":"/configs"}}}}}}"#
    );
    let config_digest = b.blob(CATALOG_REPO, config.as_bytes());
    let layers: Vec<String> = [base, configs]
        .iter()
        .map(|l| {
            let d = b.blob(CATALOG_REPO, l);
            format!(r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{d}","size":{}}}"#, l.len())
        })
        .collect();
    format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{}]}}"#,
        config.len(),
        layers.join(",")
    )
}

/// The cluster: a mirror set, a CatalogSource for the catalog on the
/// mirror, a Subscription to its package etcd.
fn subscribed(host: &str) -> String {
    format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: idms-operator-0}}\nspec:\n  imageDigestMirrors:\n  - source: quay.io/etcd\n    mirrors: [{host}/etcd]\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {{name: cs-etcd, namespace: openshift-marketplace}}\nspec:\n  sourceType: grpc\n  image: {host}/{CATALOG_REPO}:bomb\n---\napiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {{name: etcd, namespace: operators}}\nspec:\n  name: etcd\n  channel: stable\n  source: cs-etcd\n  sourceNamespace: openshift-marketplace\nstatus:\n  installedCSV: etcd.v0.9.0\n"
    )
}

/// A catalog layer whose entry (outside the configs folder, so passed
/// over) would take the layers past 8 GiB unpacked is refused at its
/// header, naming the image, the layer and the entry: the catalog is
/// undetermined (exit 3), not read on for gigabytes.
#[test]
fn a_catalog_entry_past_the_layers_unpacked_cap_is_refused_at_its_header() {
    let mut b = Builder::new();
    let manifest = bomb_catalog(&mut b);
    let base_digest = manifest
        .split(r#""digest":""#)
        .nth(2)
        .and_then(|s| s.split('"').next())
        .expect("the base layer's digest")
        .to_string();
    let reg = b.manifest(CATALOG_REPO, Some("bomb"), &manifest).start();
    let s = Setup::new(&reg);
    let files = s.write(&subscribed(&s.host));
    let mut c = s.cmd();
    c.arg("-f").arg(&files).args(["-o", "json"]);
    let (code, out, err) = output(c);
    assert_eq!(code, 3, "{out}\n{err}");
    let json = json_of(&out, &err);
    assert_eq!(json["reason"], "catalogUndetermined", "{json}");
    let message = json["message"].as_str().expect("message");
    let want = format!(
        "the catalog image {}/{CATALOG_REPO}:bomb: layer {base_digest}: usr/share/bomb: the layers unpack past 8589934592 bytes in all (files passed over counted)",
        s.host
    );
    assert!(message.contains(&want), "{message}\nwant {want}");
}

/// A bundle image (of hop 1) whose layer has an entry outside the folders
/// OLM's unpack Job copies, `usr/share/bomb`, that says it is 9 GiB long:
/// the bundle's layers are held to the same 8 GiB unpacked as a catalog's,
/// refused at the header, and the hop's deployment images are unknown
/// (exit 3), in the words of the files-read cap: the image, the layer,
/// the entry and the cap.
#[test]
fn a_bundle_entry_past_the_layers_unpacked_cap_leaves_its_deployment_images_unknown() {
    const BUNDLE_REPO: &str = "etcd/etcd-bundle";
    let mut b = Builder::new();
    let mut header = tar::Header::new_gnu();
    header.set_path("usr/share/bomb").expect("path");
    header.set_size(9 << 30);
    header.set_mode(0o644);
    header.set_cksum();
    let mut bomb = header.as_bytes().to_vec();
    bomb.extend(std::iter::repeat_n(0u8, 64 << 10));
    let bomb = gzip(&bomb);
    let annotations = gzip(&tar(&[(
        "metadata/annotations.yaml",
        "annotations:\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
    )]));
    let config = br#"{"architecture":"amd64","os":"linux","config":{}}"#;
    let config_digest = b.blob(BUNDLE_REPO, config);
    let layers: Vec<(String, String)> = [annotations, bomb]
        .iter()
        .map(|l| {
            let d = b.blob(BUNDLE_REPO, l);
            let entry = format!(r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{d}","size":{}}}"#, l.len());
            (d, entry)
        })
        .collect();
    let manifest = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{}}},"layers":[{}]}}"#,
        config.len(),
        layers
            .iter()
            .map(|(_, e)| e.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    let bomb_digest = &layers[1].0;
    let bundle = |csv: &str, version: &str, image: &str| {
        format!(
            r#"{{"schema":"olm.bundle","name":"{csv}","package":"etcd","image":"{image}","properties":[{{"type":"olm.package","value":{{"packageName":"etcd","version":"{version}"}}}},{{"type":"olm.csv.metadata","value":{{"displayName":"etcd"}}}}]}}"#
        )
    };
    let catalog = [
        r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}"#.to_string(),
        r#"{"schema":"olm.channel","package":"etcd","name":"stable","entries":[{"name":"etcd.v0.9.0"},{"name":"etcd.v0.9.2","replaces":"etcd.v0.9.0"}]}"#.to_string(),
        bundle("etcd.v0.9.0", "0.9.0", &format!("{BUNDLE_SOURCE}@{}", bundle_digest("etcd.v0.9.0"))),
        bundle("etcd.v0.9.2", "0.9.2", &format!("{BUNDLE_SOURCE}@{}", digest_of(&manifest))),
    ];
    let files = vec![("configs/etcd/catalog.json".to_string(), catalog.join("\n"))];
    let catalog = push_catalog(&mut b, &files, Some(CONFIGS_LABEL));
    let reg = b
        .manifest(CATALOG_REPO, Some("v4.21"), &catalog)
        .manifest(BUNDLE_REPO, None, &manifest)
        .start();
    let s = Setup::new(&reg);
    let mut c = s.cmd();
    c.arg("-f")
        .arg(s.write(&cluster(&s.host, "etcd.v0.9.0")))
        .args(["-o", "json"]);
    let (code, out, err) = output(c);
    let json = json_of(&out, &err);
    assert_eq!(
        (code, json["reason"].as_str()),
        (3, Some("deploymentImagesUnknown")),
        "{json}\n{err}"
    );
    let why = json["hops"][0]["deploymentImagesUnknown"].as_str().unwrap();
    let want = format!(
        "layer {bomb_digest}: at /usr/share/bomb, its layers unpack past 8 GiB in all (every entry counted, those OLM's unpack Job does not copy too), which this tool does not read"
    );
    assert!(why.contains(&want), "{why}\nwant {want}");
}
