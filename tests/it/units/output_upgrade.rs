//! The unit tests of `output::upgrade` in the binary's library.

use kubectl_mirrorpolicy::output::table::Layout;
use kubectl_mirrorpolicy::output::upgrade::*;
use mirrorpolicy::upgrade::{report, Target};
use mirrorpolicy::upgrade::{ImageCheck, ImageOutcome};

fn image(name: &str, outcome: ImageOutcome) -> ImageCheck {
    ImageCheck {
        name: name.to_string(),
        reference: format!("quay.io/r/{name}@sha256:aa"),
        pull_sources: Vec::new(),
        served_by: (outcome == ImageOutcome::Served).then(|| "m/r@sha256:aa".to_string()),
        outcome,
        signature: None,
        detail: "d".to_string(),
    }
}

#[test]
fn table_shows_only_failures_unless_wide() {
    let target = Target {
        version: Some("4.21.0".to_string()),
        image: "quay.io/r/release@sha256:bb".to_string(),
        digest: Some("sha256:bb".to_string()),
        architecture: None,
        served_by: Some("m/release@sha256:bb".to_string()),
        outcome: ImageOutcome::Served,
        signature: None,
        listed_in: None,
        risks: Vec::new(),
        recommended: None,
        oc_refusal: None,
        oc_target: None,
        detail: String::new(),
    };
    let r = report(
        target,
        vec![
            image("cli", ImageOutcome::Served),
            image("etcd", ImageOutcome::Missing),
        ],
    );
    let layout = Layout::default();
    let mut narrow = Vec::new();
    write_text(&mut narrow, &r, false, &layout).unwrap();
    let narrow = String::from_utf8(narrow).unwrap();
    assert!(narrow.contains("NOT READY"), "{narrow}");
    assert!(
        narrow.contains("etcd") && !narrow.contains(" cli "),
        "{narrow}"
    );
    assert!(
        narrow.contains("missing: mirror the release again"),
        "{narrow}"
    );
    let mut wide = Vec::new();
    write_text(&mut wide, &r, true, &layout).unwrap();
    assert!(String::from_utf8(wide).unwrap().contains(" cli "));
}
