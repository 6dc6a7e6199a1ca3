//! Image layers read through the built binary as a hostile registry may
//! serve them: a catalog layer whose entry would unpack past the layers'
//! cap (`operator-check`).

use crate::cli_operator::{json_of, output, Setup, CATALOG_REPO, CONFIGS_LABEL};
use crate::support::layers::{gzip, tar};
use crate::support::registry::Builder;

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
