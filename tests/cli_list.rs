//! `list` output options, as kubectl users expect them.

mod support;

use support::bin;

const CLUSTER: &str = "examples/disconnected-cluster";

fn stdout(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn issue_14_wide_shows_everything_the_table_shows_and_more() {
    let table = stdout(&["list", "-f", CLUSTER]);
    let wide = stdout(&["list", "-f", CLUSTER, "-o", "wide"]);
    let header = |text: &str| {
        text.lines()
            .next()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(
        header(&table),
        "SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS"
    );
    assert_eq!(
        header(&wide),
        "SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS CONFLICTS"
    );
    let insecure = |text: &str| {
        text.lines()
            .find(|l| l.contains("registry.lab.example.com:5000"))
            .map(|l| l.contains("insecure"))
    };
    assert_eq!(insecure(&table), Some(true));
    assert_eq!(insecure(&wide), Some(true), "wide keeps FLAGS:\n{wide}");
}

#[test]
fn issue_14_no_headers_and_name() {
    let table = stdout(&["list", "-f", CLUSTER]);
    let bare = stdout(&["list", "-f", CLUSTER, "--no-headers"]);
    assert!(!bare.contains("SOURCE POLICY"), "{bare}");
    assert_eq!(bare.lines().count() + 1, table.lines().count());
    let names = stdout(&["list", "-f", CLUSTER, "-o", "name"]);
    let first: Vec<&str> = names.lines().take(2).collect();
    assert_eq!(
        first,
        [
            "quay.io/openshift-release-dev/ocp-release",
            "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
        ]
    );
    assert_eq!(
        names.lines().count(),
        bare.lines().filter(|l| !l.starts_with("  ")).count()
    );
}
