//! The unit tests of `output::audit` in the binary's library.

use std::collections::BTreeMap;

use kubectl_mirrorpolicy::output::audit::*;
use kubectl_mirrorpolicy::output::many::ByContext;
use kubectl_mirrorpolicy::output::table::Layout;
use mirrorpolicy::audit::{AuditedImage, Class, Report};
use std::io::{self, Write};

/// The wide table of several clusters at once: a CONTEXT column first,
/// each cluster's images worst first, then each cluster's counts.
fn write_table_by_context(
    out: &mut dyn Write,
    clusters: &[(&str, &Report)],
    layout: &Layout,
) -> io::Result<()> {
    let mut table = TableByContext::new(layout);
    for (context, report) in clusters {
        table.cluster(out, context, report)?;
    }
    table.finish(out)
}

fn report() -> Report {
    let images = vec![
        AuditedImage {
            reference: "docker.io/library/nginx:1.25".to_string(),
            class: Class::Direct,
            objects: vec!["Pod/shop/a".to_string(), "Pod/shop/b".to_string()],
            signature_required: false,
            detail: "no mirror rule".to_string(),
            fix: None,
            probe: None,
            pull_secrets: Vec::new(),
        },
        AuditedImage {
            reference: "quay.io/x@sha256:00".to_string(),
            class: Class::Mirrored,
            objects: vec!["Pod/shop/c".to_string()],
            signature_required: true,
            detail: "first from m".to_string(),
            fix: None,
            probe: None,
            pull_secrets: Vec::new(),
        },
    ];
    let mut summary: BTreeMap<&'static str, usize> = BTreeMap::new();
    summary.insert("direct", 1);
    summary.insert("mirrored", 1);
    Report {
        images,
        summary,
        updates: None,
    }
}

fn render(wide: bool, no_headers: bool) -> String {
    let mut out = Vec::new();
    let layout = Layout {
        no_headers,
        ..Layout::default()
    };
    write_table(&mut out, &report(), wide, &layout).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn table_wide_and_no_headers() {
    let table = render(false, false);
    assert_eq!(
        table
            .lines()
            .map(str::split_whitespace)
            .map(|w| w.collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>(),
        [
            "CLASS IMAGE OBJECTS SIGNATURE DETAIL",
            "direct docker.io/library/nginx:1.25 Pod/shop/a (2 objects) - no mirror rule",
            "mirrored quay.io/x@sha256:00 Pod/shop/c required first from m",
            "",
            "2 images: 1 direct, 1 mirrored",
        ]
    );
    let wide = render(true, false);
    assert!(wide.contains("Pod/shop/a, Pod/shop/b"), "{wide}");
    let bare = render(false, true);
    assert!(!bare.contains("CLASS"), "{bare}");
    assert!(bare.starts_with("direct"), "{bare}");
}

#[test]
fn no_images_is_a_count_line() {
    let mut out = Vec::new();
    let empty = Report {
        images: Vec::new(),
        summary: BTreeMap::new(),
        updates: None,
    };
    write_table(&mut out, &empty, false, &Layout::default()).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "0 images\n");
}

#[test]
fn issue_17_one_table_with_a_context_column() {
    let (a, empty) = (
        report(),
        Report {
            images: Vec::new(),
            summary: BTreeMap::new(),
            updates: None,
        },
    );
    let mut out = Vec::new();
    write_table_by_context(
        &mut out,
        &[("east", &a), ("west", &empty)],
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
            "CONTEXT CLASS IMAGE OBJECTS SIGNATURE DETAIL",
            "east direct docker.io/library/nginx:1.25 Pod/shop/a, Pod/shop/b - no mirror rule",
            "east mirrored quay.io/x@sha256:00 Pod/shop/c required first from m",
            "",
            "east: 2 images: 1 direct, 1 mirrored",
            "west: 0 images",
        ]
    );
}
