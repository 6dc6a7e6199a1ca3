//! The krew manifest: its structure follows krew-index's rules, `bin`
//! matches the built binary, and `scripts/release.py` fills in `uri` and
//! `sha256` from archives that hold what `files` names (LICENSE included).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const TEMPLATE: &str = "krew/mirrorpolicy.yaml";

fn binary_name() -> String {
    Path::new(env!("CARGO_BIN_EXE_kubectl-mirrorpolicy"))
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn release(args: &[&str]) -> std::process::Output {
    Command::new("python3")
        .arg("scripts/release.py")
        .args(args)
        .output()
        .expect("python3 is installed")
}

/// Packages a stand-in binary for every platform and renders the manifest.
fn rendered(dir: &Path) -> Value {
    let bin = dir.join("stand-in");
    std::fs::write(&bin, b"#!/bin/sh\necho stand-in\n").unwrap();
    for os in ["linux", "darwin", "windows"] {
        for arch in ["amd64", "arm64"] {
            let out = release(&[
                "package",
                "--bin",
                bin.to_str().unwrap(),
                "--os",
                os,
                "--arch",
                arch,
                "--version",
                "v9.9.9",
                "--out",
                dir.to_str().unwrap(),
            ]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let out = release(&[
        "manifest",
        "--version",
        "v9.9.9",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("{{"), "template left: {text}");
    serde_saphyr::from_str(&text).expect("rendered manifest is YAML")
}

fn sha256_hex(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

fn archive_members(path: &Path) -> BTreeSet<String> {
    let out = if path.extension().is_some_and(|e| e == "zip") {
        Command::new("python3")
            .args([
                "-c",
                "import sys,zipfile;print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
            ])
            .arg(path)
            .output()
            .unwrap()
    } else {
        Command::new("tar").arg("tzf").arg(path).output().unwrap()
    };
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn manifest_follows_krew_index_rules() {
    let dir = tempfile::tempdir().unwrap();
    let m = rendered(dir.path());
    assert_eq!(
        m["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(m["kind"], "Plugin");
    // krew-index: the plugin name is the binary name without `kubectl-`.
    let name = m["metadata"]["name"].as_str().unwrap();
    assert_eq!(format!("kubectl-{name}"), binary_name());
    let spec = &m["spec"];
    assert_eq!(spec["version"], "v9.9.9");
    assert!(spec["homepage"].as_str().unwrap().starts_with("https://"));
    let short = spec["shortDescription"].as_str().unwrap();
    assert!(short.len() <= 50 && !short.ends_with('.'), "{short}");
    assert!(spec["description"].as_str().unwrap().len() > 200);
    let caveats = spec["caveats"].as_str().unwrap();
    assert!(
        caveats.contains("imagedigestmirrorsets") && caveats.contains("list"),
        "RBAC: {caveats}"
    );

    let platforms = spec["platforms"].as_array().unwrap();
    let mut seen = BTreeSet::new();
    for p in platforms {
        let labels = &p["selector"]["matchLabels"];
        let (os, arch) = (
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap(),
        );
        assert!(
            seen.insert((os.to_string(), arch.to_string())),
            "{os}/{arch} twice"
        );
        let exe = if os == "windows" { ".exe" } else { "" };
        let bin = p["bin"].as_str().unwrap();
        assert_eq!(bin, format!("{}{exe}", binary_name()), "{os}/{arch}");
        let uri = p["uri"].as_str().unwrap();
        let ext = if os == "windows" { ".zip" } else { ".tar.gz" };
        assert!(uri.starts_with("https://") && uri.ends_with(ext), "{uri}");
        let archive = dir.path().join(uri.rsplit('/').next().unwrap());
        assert_eq!(p["sha256"].as_str().unwrap(), sha256_hex(&archive), "{uri}");
        let inside = archive_members(&archive);
        let files = p["files"].as_array().unwrap();
        let from: BTreeSet<&str> = files.iter().map(|f| f["from"].as_str().unwrap()).collect();
        assert!(
            from.contains("LICENSE"),
            "{os}/{arch}: LICENSE not installed"
        );
        assert!(from.contains(bin), "{os}/{arch}: bin not installed");
        for f in &from {
            assert!(inside.contains(*f), "{os}/{arch}: {f} not in {inside:?}");
        }
    }
    let want: BTreeSet<(String, String)> = ["linux", "darwin", "windows"]
        .iter()
        .flat_map(|o| ["amd64", "arm64"].map(|a| (o.to_string(), a.to_string())))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn archives_are_reproducible_and_manifest_needs_them_all() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let bin = a.path().join("stand-in");
    std::fs::write(&bin, b"binary").unwrap();
    for dir in [a.path(), b.path()] {
        let out = release(&[
            "package",
            "--bin",
            bin.to_str().unwrap(),
            "--os",
            "linux",
            "--arch",
            "amd64",
            "--version",
            "v1.0.0",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success());
    }
    // One uri/sha256 pair per platform, left to the release.
    let template = std::fs::read_to_string(TEMPLATE).unwrap();
    assert_eq!(template.matches("{{addURIAndSha").count(), 6);
    let name = "kubectl-mirrorpolicy_v1.0.0_linux_amd64.tar.gz";
    assert_eq!(
        sha256_hex(&a.path().join(name)),
        sha256_hex(&b.path().join(name))
    );
    let out = release(&[
        "manifest",
        "--version",
        "v1.0.0",
        "--dir",
        a.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("linux_arm64.tar.gz is missing"));
}
