//! Golden files: everything `render` produces for the example cluster, byte
//! for byte. Regenerate with `UPDATE_GOLDEN=1 cargo test --test it golden::`
//! after an intended change, and review the diff.

use std::path::Path;

use assert_cmd::Command;

fn render(args: &[&str]) -> String {
    let out = Command::cargo_bin("kubectl-mirrorpolicy")
        .expect("binary built")
        .env("NO_COLOR", "1")
        .args(["render", "-f", "examples/disconnected-cluster"])
        .args(args)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn check(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/disconnected-cluster")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert_eq!(actual, expected, "{name} differs from its golden file");
}

#[test]
fn node_files_match_golden() {
    for (name, path) in [
        ("registries.conf", "/etc/containers/registries.conf"),
        ("policy.json", "/etc/containers/policy.json"),
        (
            "sigstore-registries.yaml",
            "/etc/containers/registries.d/sigstore-registries.yaml",
        ),
        (
            "crio-policy-payments.json",
            "/etc/crio/policies/payments.json",
        ),
        (
            "01-image-searchRegistries.conf",
            "/etc/containers/registries.conf.d/01-image-searchRegistries.conf",
        ),
    ] {
        check(name, &render(&["--file", path]));
    }
}

#[test]
fn machine_configs_match_golden() {
    check(
        "99-worker-generated-registries.yaml",
        &render(&["-o", "machineconfig"]),
    );
    check(
        "99-master-generated-registries.yaml",
        &render(&["--pool", "master", "-o", "machineconfig"]),
    );
}
