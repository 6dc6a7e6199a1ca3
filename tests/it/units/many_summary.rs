//! The unit tests of `many::summary` in the binary's library.

use std::collections::BTreeMap;

use mirrorpolicy::audit::{AuditedImage, Class};
use mirrorpolicy::explain::Explanation;
use mirrorpolicy::journal::fleet::{NodeNote, NodeReason};
use mirrorpolicy::registries::ShortNameMode;

use kubectl_mirrorpolicy::exit::Described;
use kubectl_mirrorpolicy::exit::ExitCode;
use kubectl_mirrorpolicy::many::summary::*;
use kubectl_mirrorpolicy::many::Outcome;
use kubectl_mirrorpolicy::many::Ran;
use kubectl_mirrorpolicy::output::many::Tally;

fn read(context: &str, counts: Vec<(&'static str, usize)>, code: ExitCode) -> Ran<Counted> {
    Outcome {
        context: context.to_string(),
        server: None,
        result: Ok(((counts, code), Vec::new())),
    }
}

fn audited(reference: &str, class: Class) -> AuditedImage {
    AuditedImage {
        reference: reference.to_string(),
        class,
        objects: Vec::new(),
        signature_required: false,
        detail: String::new(),
        fix: None,
        probe: None,
        pull_secrets: Vec::new(),
    }
}

/// Each report's line: the verdict its exit code gives for its
/// command, then the counts its type gives, in their order.
#[test]
fn issue_26_counts_of_each_report() {
    let audit = mirrorpolicy::audit::Report {
        images: vec![
            audited("quay.io/a/x:1", Class::Direct),
            audited("quay.io/a/y:1", Class::Mirrored),
        ],
        summary: BTreeMap::from([("direct", 1), ("mirrored", 1)]),
        updates: None,
    };
    let unresolved = Explanation {
        image: "app".to_string(),
        namespace: None,
        short_name_mode: ShortNameMode::Enforcing,
        candidates: Vec::new(),
        warnings: Vec::new(),
        error: Some("cannot resolve".to_string()),
        undetermined: false,
        journal: None,
    };
    let diff = mirrorpolicy::diff::Report {
        pools: Vec::new(),
        drift: None,
        not_read: vec![mirrorpolicy::diff::NotRead {
            node: "w1".to_string(),
            reason: "forbidden".to_string(),
        }],
    };
    let note = NodeNote {
        node: "w2".to_string(),
        pool: None,
        reason: NodeReason::Cut,
        message: "cut".to_string(),
    };
    let pull_log = mirrorpolicy::journal::fleet::fleet(Vec::new(), vec![note], None);
    let mut tally = Tally::default();
    for (kind, counts, code, want) in [
        (
            Summary::Audit,
            audit.summary_counts(),
            ExitCode::Findings,
            "east findings images=2 direct=1 mirrored=1",
        ),
        (
            Summary::Explain,
            mirrorpolicy::explain::summary_counts(&[unresolved]),
            ExitCode::Findings,
            "east findings images=1 fromMirror=0 fromSource=0",
        ),
        (
            Summary::Diff,
            diff.summary_counts(),
            ExitCode::Cluster,
            "east undetermined pools=0 drifting=0 notRead=1",
        ),
        (
            Summary::Audit,
            pull_log.summary_counts(),
            ExitCode::Success,
            "east ok images=0 pulls=0 diverging=0 undeterminedNodes=1",
        ),
    ] {
        let line = summary_line(kind, &read("east", counts, code), &mut tally);
        assert_eq!(line, want, "{kind:?}");
    }
    let want = Tally {
        clusters: 4,
        ok: 1,
        findings: 2,
        errors: 1,
    };
    assert_eq!(tally, want);
}

#[test]
fn issue_26_verdict_of_each_exit_code() {
    use ExitCode::*;
    for (kind, code, want) in [
        (Summary::Explain, Success, "ok"),
        (Summary::Explain, Findings, "findings"),
        (Summary::Audit, Findings, "findings"),
        (Summary::Diff, Findings, "drift"),
        (Summary::UpgradeCheck, Findings, "not-ready"),
        (Summary::UpgradeCheck, Input, "input-error"),
        (Summary::Diff, Cluster, "undetermined"),
        (Summary::Audit, Refused, "refused"),
    ] {
        assert_eq!(verdict(kind, code), want, "{kind:?} {code:?}");
    }
}

/// A cluster not read is an error only: no verdict, no counts; one
/// read with an input error shows its counts and is counted an error.
#[test]
fn issue_26_a_cluster_not_read_counts_as_an_error_only() {
    let outcome = Outcome {
        context: "a".to_string(),
        server: None,
        result: Err(Described {
            lines: vec!["cannot reach the cluster".to_string()],
            hint: None,
            code: ExitCode::Cluster,
        }),
    };
    let mut tally = Tally::default();
    let line = summary_line(Summary::Audit, &outcome, &mut tally);
    assert_eq!(line, "a error: cannot reach the cluster");
    assert_eq!((tally.clusters, tally.ok, tally.errors), (1, 0, 1));
    let counts = vec![("images", 0), ("direct", 0)];
    let line = summary_line(
        Summary::Audit,
        &read("b", counts, ExitCode::Input),
        &mut tally,
    );
    assert_eq!(line, "b input-error images=0 direct=0");
    assert_eq!((tally.clusters, tally.ok, tally.errors), (2, 0, 2));
}
