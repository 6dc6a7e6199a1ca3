//! `list` output options, as kubectl users expect them.

use crate::support;

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

#[test]
fn issue_14_tables_fit_the_width_without_splitting_identifiers() {
    let out = bin()
        .env("COLUMNS", "180")
        .args(["list", "-f", CLUSTER])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().all(|l| l.chars().count() <= 180), "{text}");
    assert!(text.starts_with("SOURCE "), "no leading space:\n{text}");
    // The two mirrors of one rule wrap between them, never inside one.
    assert!(
        text.contains("mirror.corp.example.com:5000/openshift4,  "),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.trim_start() == "backup.corp.example.com/openshift4"),
        "{text}"
    );
    // Without a width (a pipe, no COLUMNS), whole lines.
    let out = bin()
        .env_remove("COLUMNS")
        .args(["list", "-f", CLUSTER])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "mirror.corp.example.com:5000/openshift4, backup.corp.example.com/openshift4"
        ),
        "{text}"
    );
}

#[test]
fn issue_14_list_and_audit_are_coloured_as_explain() {
    for args in [
        vec!["list", "-f", CLUSTER],
        vec!["audit", "-f", "tests/fixtures/audit-cluster"],
    ] {
        let out = bin()
            .args(["--color", "always"])
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("\x1b[1m"), "{args:?} bold header:\n{text}");
        assert!(
            text.contains("\x1b[38;5;9m") || text.contains("\x1b[31m"),
            "{args:?} red:\n{text}"
        );
    }
}
