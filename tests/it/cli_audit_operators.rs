//! `audit` and the operators of a cluster through the binary: the probe
//! set-up `--probe` and `--updates` share.

use super::cli_operator::{backup_by_digest, cluster, json_of, mirror, output, Setup};

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
