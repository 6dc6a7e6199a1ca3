//! The unit tests of `output::list` in the binary's library.

use kubectl_mirrorpolicy::output::list::*;
use kubectl_mirrorpolicy::output::many::ByContext;
use kubectl_mirrorpolicy::output::table::Layout;
use mirrorpolicy::list::Rule;
use mirrorpolicy::list::RuleMirror;
use mirrorpolicy::origin::Origin;
use std::io::{self, Write};

/// The wide table of several clusters at once: a CONTEXT column first,
/// then each cluster's rules as `write_table` shows them wide.
fn write_table_by_context(
    out: &mut dyn Write,
    clusters: &[(&str, &[Rule])],
    layout: &Layout,
) -> io::Result<()> {
    let mut table = TableByContext::new(layout);
    for (context, rules) in clusters {
        table.rules(out, context, rules)?;
    }
    table.finish(out)
}

fn rules() -> Vec<Rule> {
    vec![Rule {
        source: "registry.redhat.io/rhel9".to_string(),
        mirrors: vec![
            RuleMirror {
                location: "m.example.com/rhel9".to_string(),
                pull_from_mirror: "digest-only".to_string(),
                insecure: true,
            },
            RuleMirror {
                location: "b.example.com/rhel9".to_string(),
                pull_from_mirror: String::new(),
                insecure: false,
            },
        ],
        pull: "both",
        blocked: false,
        insecure: false,
        source_policy: "AllowContactingSource",
        objects: vec![Origin::from("ImageDigestMirrorSet/rhel")],
        conflicts: vec!["order differs".to_string()],
    }]
}

fn render(wide: bool, no_headers: bool) -> Vec<String> {
    let mut out = Vec::new();
    let layout = Layout {
        no_headers,
        ..Layout::default()
    };
    write_table(&mut out, &rules(), wide, &layout).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn table_wide_name_and_no_headers() {
    assert_eq!(
        render(false, false),
        [
            "SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS",
            "registry.redhat.io/rhel9 m.example.com/rhel9, b.example.com/rhel9 both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict",
        ]
    );
    assert_eq!(
        render(true, true),
        [
            "registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
            "b.example.com/rhel9",
        ]
    );
    let mut out = Vec::new();
    write_names(&mut out, &rules()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "registry.redhat.io/rhel9\n"
    );
}

#[test]
fn no_rules_says_so() {
    let mut out = Vec::new();
    write_table(&mut out, &[], false, &Layout::default()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "No mirror rules: the objects do not touch registries.conf.\n"
    );
}

#[test]
fn issue_17_one_table_with_a_context_column() {
    let rules = rules();
    let mut out = Vec::new();
    write_table_by_context(
        &mut out,
        &[("east", &rules[..]), ("west", &[]), ("lab", &rules[..])],
        &Layout::default(),
    )
    .unwrap();
    let lines: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        lines,
        [
            "CONTEXT SOURCE MIRRORS PULL SOURCE POLICY OBJECTS FLAGS CONFLICTS",
            "east registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
            "b.example.com/rhel9",
            "lab registry.redhat.io/rhel9 m.example.com/rhel9 (digest-only) [insecure] both AllowContactingSource ImageDigestMirrorSet/rhel order-conflict order differs",
            "b.example.com/rhel9",
        ]
    );
    let mut out = Vec::new();
    write_table_by_context(&mut out, &[("west", &[])], &Layout::default()).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "No mirror rules: no cluster's objects touch registries.conf.\n"
    );
}
