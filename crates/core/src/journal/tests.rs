use proptest::prelude::*;

use super::line::{parse_line, source_failures, Event};
use super::read;
use super::record::{
    DivergenceKind, Expected, ExpectedCandidate, ExpectedSource, Outcome, Verdict,
};
use super::replay::replay;

const OLD: &str = "2024-05-01 10:00:00.123456789Z";
const NEW: &str = "2025-06-01T10:00:00.123456789Z";

fn line(time: &str, rest: &str) -> String {
    format!("Jun 01 10:00:00.123456 worker-0 crio[2345]: time=\"{time}\" {rest}")
}

#[test]
fn real_line_shapes() {
    let id = "id=5e3f0c9a-1b2c-4d5e-8f90-0123456789ab name=/runtime.v1.ImageService/PullImage";
    for (text, want) in [
        (
            line(OLD, &format!("level=info msg=\"Pulling image: quay.io/ns/app:v1\" {id}")),
            Event::Pulling { image: "quay.io/ns/app:v1".into() },
        ),
        (
            line(NEW, "level=info msg=\"Trying to access \\\"mirror.example.com:5000/ns/app:v1\\\"\""),
            Event::Trying { reference: "mirror.example.com:5000/ns/app:v1".into() },
        ),
        (
            line(NEW, &format!("level=info msg=\"Pulled image: quay.io/ns/app@sha256:0123\" {id}")),
            Event::Pulled { result: "quay.io/ns/app@sha256:0123".into() },
        ),
        (
            line(NEW, "level=debug msg=\"Accessing \\\"m.example.com/a:v1\\\" failed: reading manifest v1 in m.example.com/a: manifest unknown\""),
            Event::AccessFailed { reference: "m.example.com/a:v1".into(), error: "reading manifest v1 in m.example.com/a: manifest unknown".into() },
        ),
        (
            line(OLD, "level=info msg=\"Resolved \\\"busybox\\\" as an alias (/etc/containers/registries.conf.d/000-shortnames.conf)\""),
            Event::ShortName { input: "busybox".into(), how: "Resolved as an alias (/etc/containers/registries.conf.d/000-shortnames.conf)".into() },
        ),
        (
            line(NEW, "level=info msg=\"Resolving \\\"app\\\" using unqualified-search registries (/etc/containers/registries.conf)\""),
            Event::ShortName { input: "app".into(), how: "Resolving using unqualified-search registries (/etc/containers/registries.conf)".into() },
        ),
        (
            line(NEW, &format!("level=debug msg=\"Error pulling image quay.io/ns/app:v1: unauthorized\" {id}")),
            Event::PullError { candidate: "quay.io/ns/app:v1".into(), error: "unauthorized".into() },
        ),
    ] {
        let parsed = parse_line(&text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(parsed.event, want, "{text}");
        assert_eq!(parsed.host, "worker-0", "{text}");
    }
    let pulling = parse_line(&line(
        OLD,
        &format!("level=info msg=\"Pulling image: a/b:c\" {id}"),
    ))
    .unwrap();
    assert_eq!(
        pulling.id.as_deref(),
        Some("5e3f0c9a-1b2c-4d5e-8f90-0123456789ab")
    );
    assert_eq!(pulling.time.to_string(), "2024-05-01T10:00:00.123456789Z");
    assert_eq!(pulling.level, "info");
}

#[test]
fn artifact_fallback_error_with_newlines() {
    // CRI-O 1.35's info line: the image pull's whole error, %q-quoted, the
    // mirrors joined with "\n" by containers/image.
    let msg = "Falling back to pull quay.io/ns/app:v1 as an OCI artifact: initializing source docker://quay.io/ns/app:v1: (Mirrors also failed: [m1.example.com/ns/app:v1: pinging container registry m1.example.com: Get \\\"https://m1.example.com/v2/\\\": dial tcp: lookup m1.example.com: no such host]\\n[m2.example.com/ns/app:v1: reading manifest v1 in m2.example.com/ns/app: manifest unknown]): quay.io/ns/app:v1: reading manifest v1 in quay.io/ns/app: unauthorized";
    let parsed = parse_line(&line(NEW, &format!("level=info msg=\"{msg}\" id=x name=y"))).unwrap();
    let Event::ArtifactFallback { candidate, error } = parsed.event else {
        panic!("{:?}", parsed.event);
    };
    assert_eq!(candidate, "quay.io/ns/app:v1");
    assert!(error.contains("manifest unknown]): quay.io"), "{error}");
    let failures = source_failures(&error);
    let refs: Vec<&str> = failures.iter().map(|f| f.reference.as_str()).collect();
    assert_eq!(
        refs,
        [
            "m1.example.com/ns/app:v1",
            "m2.example.com/ns/app:v1",
            "quay.io/ns/app:v1"
        ]
    );
    assert!(
        failures[0].error.ends_with("no such host"),
        "{:?}",
        failures[0]
    );
    assert!(failures[0].error.contains("\"https://m1.example.com/v2/\""));
    assert_eq!(
        failures[2].error,
        "reading manifest v1 in quay.io/ns/app: unauthorized"
    );
}

#[test]
fn lines_left_out() {
    for text in [
        "-- Boot 0123 --",
        "Jun 01 10:00:00.123456 worker-0 crio[2345]: time=\"2025-06-01T10:00:00Z\" level=info msg=\"Created container abc\"",
        "Jun 01 10:00:00.123456 worker-0 systemd[1]: Started crio.service.",
        "Jun 01 10:00:00.123456 worker-0 crio[2345]: time=\"2025-06-01T10:00:00Z\" level=info msg=\"Trying to access \\\"unterminated",
        "Jun 01 10:00:00.123456 worker-0 crio[2345]: time=\"yesterday\" level=info msg=\"Pulling image: a\"",
    ] {
        assert_eq!(parse_line(text), None, "{text}");
    }
    let err = read("crio.log", "not a journal\nat all")
        .unwrap_err()
        .to_string();
    assert!(err.contains("crio.log: line 1"), "{err}");
    assert!(read("crio.log", "-- No entries --\n").unwrap().is_empty());
}

fn source(r: &str, mirror: bool, blocked: bool) -> ExpectedSource {
    ExpectedSource {
        reference: r.into(),
        mirror,
        blocked,
    }
}

fn expected(image: &str, sources: Vec<ExpectedSource>) -> Expected {
    Expected {
        image: image.into(),
        candidates: vec![ExpectedCandidate {
            reference: image.into(),
            sources,
        }],
    }
}

/// A journal of `(id, message)` pairs on worker-0, one second apart.
fn journal(entries: &[(&str, &str)]) -> String {
    entries
        .iter()
        .enumerate()
        .map(|(i, (id, msg))| {
            let msg = msg.replace('"', "\\\"");
            let id = if id.is_empty() { String::new() } else { format!(" id={id} name=/runtime.v1.ImageService/PullImage") };
            format!("Jun 01 10:00:{i:02}.000000 worker-0 crio[1]: time=\"2025-06-01T10:00:{i:02}Z\" level=info msg=\"{msg}\"{id}\n")
        })
        .collect()
}

/// A name, the journal's entries, the verdict, divergence and outcome wanted.
type Case<'a> = (
    &'a str,
    Vec<(&'a str, &'a str)>,
    Verdict,
    Option<DivergenceKind>,
    Outcome,
);

#[test]
fn every_verdict_class() {
    const IMG: &str = "quay.io/ns/app:v1";
    let exp = expected(
        IMG,
        vec![
            source("m1.example.com/ns/app:v1", true, false),
            source("m2.example.com/ns/app:v1", true, false),
            source(IMG, false, true),
        ],
    );
    let cases: [Case; 10] = [
        (
            "served by the second mirror",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("a", "Pulled image: quay.io/ns/app@sha256:1"),
            ],
            Verdict::AsExpected,
            None,
            Outcome::Pulled,
        ),
        // A blocked source's own line is expected: it is listed and refused.
        (
            "blocked source tried, pull fails",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("", "Trying to access \"quay.io/ns/app:v1\""),
                ("a", "Pulling image: quay.io/ns/app:v1"),
            ],
            Verdict::AsExpected,
            None,
            Outcome::Failed,
        ),
        (
            "served by the blocked source",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("", "Trying to access \"quay.io/ns/app:v1\""),
                ("a", "Pulled image: quay.io/ns/app@sha256:1"),
            ],
            Verdict::Diverges,
            Some(DivergenceKind::ServedByBlockedSource),
            Outcome::Pulled,
        ),
        (
            "a mirror skipped",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("a", "Pulled image: quay.io/ns/app@sha256:1"),
            ],
            Verdict::Diverges,
            Some(DivergenceKind::MirrorSkipped),
            Outcome::Pulled,
        ),
        (
            "another configuration",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"other.example.com/ns/app:v1\""),
                ("a", "Pulled image: quay.io/ns/app@sha256:1"),
            ],
            Verdict::Diverges,
            Some(DivergenceKind::UnexpectedSource),
            Outcome::Pulled,
        ),
        (
            "log ends first",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
            ],
            Verdict::Undetermined,
            None,
            Outcome::Unfinished,
        ),
        // Issue 37: the source named twice in a row is one access.
        (
            "double access",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("a", "Pulled image: quay.io/ns/app@sha256:1"),
            ],
            Verdict::AsExpected,
            None,
            Outcome::Pulled,
        ),
        // Issue 37: refused at the blocked source, the log going on.
        (
            "blocked source last, later lines",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("", "Trying to access \"quay.io/ns/app:v1\""),
                ("b", "Pulling image: quay.io/other/db:v2"),
            ],
            Verdict::AsExpected,
            None,
            Outcome::Failed,
        ),
        (
            "blocked source last, the log ends",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("", "Trying to access \"quay.io/ns/app:v1\""),
            ],
            Verdict::Undetermined,
            None,
            Outcome::Unfinished,
        ),
        // Issue 37: CRI-O 1.35.1+'s fallback line is the image pull's failure.
        (
            "artifact fallback, nothing after",
            vec![
                ("a", "Pulling image: quay.io/ns/app:v1"),
                ("", "Trying to access \"m1.example.com/ns/app:v1\""),
                ("", "Trying to access \"m2.example.com/ns/app:v1\""),
                ("", "Trying to access \"quay.io/ns/app:v1\""),
                ("a", "Falling back to pull quay.io/ns/app:v1 as an OCI artifact: (Mirrors also failed: [m1.example.com/ns/app:v1: manifest unknown]\\n[m2.example.com/ns/app:v1: unauthorized]): quay.io/ns/app:v1: blocked"),
                ("b", "Pulling image: quay.io/other/db:v2"),
            ],
            Verdict::AsExpected,
            None,
            Outcome::Failed,
        ),
    ];
    for (name, entries, verdict, kind, outcome) in cases {
        let lines = read("j", &journal(&entries)).unwrap();
        let pulls = replay(&lines, &exp);
        assert_eq!(pulls[0].pulls.len(), 1, "{name}: {:?}", pulls[0]);
        let a = &pulls[0].pulls[0];
        assert_eq!(a.verdict, verdict, "{name}: {a:?}");
        assert_eq!(a.divergence.as_ref().map(|d| d.kind), kind, "{name}");
        assert_eq!(a.outcome, outcome, "{name}");
        assert_eq!(pulls[0].outcome, outcome, "{name}");
    }
}

/// Issue 37: a failed image pull's walk repeated with no line between
/// (CRI-O 1.33/1.34's OCI-artifact attempt), or after the fallback line
/// (1.35.1+), is one pull: the image attempt and the artifact attempt, each
/// as expected, the pull failed once the log goes on.
#[test]
fn issue_37_artifact_attempt_repeats_the_walk() {
    const IMG: &str = "quay.io/ns/app:v1";
    let exp = expected(
        IMG,
        vec![
            source("m1.example.com/ns/app:v1", true, false),
            source(IMG, false, true),
        ],
    );
    let walk = [
        ("", "Trying to access \"m1.example.com/ns/app:v1\""),
        ("", "Trying to access \"quay.io/ns/app:v1\""),
    ];
    let fallback = ("a", "Falling back to pull quay.io/ns/app:v1 as an OCI artifact: (Mirrors also failed: [m1.example.com/ns/app:v1: manifest unknown]): quay.io/ns/app:v1: blocked");
    for (name, with_fallback) in [("1.33", false), ("1.35", true)] {
        let mut entries = vec![("a", "Pulling image: quay.io/ns/app:v1")];
        entries.extend(walk);
        entries.extend(with_fallback.then_some(fallback));
        entries.extend(walk);
        entries.push(("b", "Pulling image: quay.io/other/db:v2"));
        let pulls = replay(&read("j", &journal(&entries)).unwrap(), &exp);
        assert_eq!(pulls.len(), 1, "{name}");
        let p = &pulls[0];
        assert_eq!(p.outcome, Outcome::Failed, "{name}: {p:?}");
        let flags: Vec<bool> = p.pulls.iter().map(|a| a.oci_artifact).collect();
        assert_eq!(flags, [false, true], "{name}");
        for a in &p.pulls {
            assert_eq!(a.verdict, Verdict::AsExpected, "{name}: {a:?}");
            assert_eq!(a.tried.len(), 2, "{name}");
            assert_eq!(a.served_by, None, "{name}");
        }
        if with_fallback {
            let reasons: Vec<&str> = p.pulls[0].errors.iter().map(|e| e.error.as_str()).collect();
            assert_eq!(reasons, ["manifest unknown", "blocked"], "{name}");
        }
    }
}

#[test]
fn served_by_source_names_the_mirrors_reasons() {
    const IMG: &str = "quay.io/ns/app:v1";
    let exp = expected(
        IMG,
        vec![
            source("m1.example.com/ns/app:v1", true, false),
            source(IMG, false, false),
        ],
    );
    let mut text = journal(&[
        ("a", "Pulling image: quay.io/ns/app:v1"),
        ("", "Trying to access \"m1.example.com/ns/app:v1\""),
    ]);
    text.push_str("Jun 01 10:00:05.000000 worker-0 crio[1]: time=\"2025-06-01T10:00:05Z\" level=debug msg=\"Accessing \\\"m1.example.com/ns/app:v1\\\" failed: manifest unknown\"\n");
    text.push_str(&journal(&[
        ("", ""),
        ("", ""),
        ("", ""),
        ("", ""),
        ("", ""),
        ("", ""),
        ("", "Trying to access \"quay.io/ns/app:v1\""),
        ("a", "Pulled image: quay.io/ns/app@sha256:1"),
    ]));
    let pulls = replay(&read("j", &text).unwrap(), &exp);
    let a = &pulls[0].pulls[0];
    assert_eq!(a.served_by.as_deref(), Some(IMG));
    let d = a.divergence.as_ref().unwrap();
    assert_eq!(d.kind, DivergenceKind::ServedBySource);
    assert!(
        d.message
            .contains("m1.example.com/ns/app:v1: manifest unknown"),
        "{}",
        d.message
    );
}

#[test]
fn deduplicated_pull_shares_the_first() {
    const IMG: &str = "quay.io/ns/app:v1";
    let exp = expected(
        IMG,
        vec![
            source("m1.example.com/ns/app:v1", true, false),
            source(IMG, false, false),
        ],
    );
    let text = journal(&[
        ("a", "Pulling image: quay.io/ns/app:v1"),
        ("b", "Pulling image: quay.io/ns/app:v1"),
        ("", "Trying to access \"m1.example.com/ns/app:v1\""),
        ("a", "Pulled image: quay.io/ns/app@sha256:1"),
        ("b", "Pulled image: quay.io/ns/app@sha256:1"),
    ]);
    let pulls = replay(&read("j", &text).unwrap(), &exp);
    assert_eq!(pulls.len(), 2);
    assert_eq!(
        pulls[0].pulls[0].served_by.as_deref(),
        Some("m1.example.com/ns/app:v1")
    );
    assert!(pulls[1].pulls.is_empty());
    assert_eq!(pulls[1].shared_with, Some(pulls[0].time));
    assert_eq!(pulls[1].outcome, Outcome::Pulled);
}

/// One generated image: its sources (the last is the source) and its pulls,
/// each served by the source at an index, or failing (`None`).
#[derive(Debug, Clone)]
struct Gen {
    sources: usize,
    blocked_source: bool,
    pulls: Vec<Option<usize>>,
}

fn gen_image() -> impl Strategy<Value = Gen> {
    (1usize..4, any::<bool>()).prop_flat_map(|(sources, blocked_source)| {
        let served = prop::option::weighted(0.8, 0..sources);
        prop::collection::vec(served, 1..4).prop_map(move |pulls| Gen {
            sources,
            blocked_source,
            pulls,
        })
    })
}

fn gen_expected(i: usize, g: &Gen) -> Expected {
    let image = format!("quay.io/ns/app{i}:v1");
    let mut sources: Vec<ExpectedSource> = (0..g.sources - 1)
        .map(|m| source(&format!("m{m}.example.com/ns/app{i}:v1"), true, false))
        .collect();
    sources.push(source(&image, false, g.blocked_source));
    expected(&image, sources)
}

/// Each image's lines: its pulls one after the other, each one's lines in
/// order, each line with the pull it is of.
fn gen_lines(i: usize, g: &Gen, exp: &Expected) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for (k, served) in g.pulls.iter().enumerate() {
        let id = format!("p{i}x{k}");
        let sources = &exp.candidates[0].sources;
        out.push((id.clone(), format!("Pulling image: {}", exp.image), k));
        let last = served.unwrap_or(sources.len() - 1);
        for s in &sources[..=last] {
            out.push((
                String::new(),
                format!("Trying to access \"{}\"", s.reference),
                k,
            ));
        }
        if served.is_some() {
            out.push((id, format!("Pulled image: {}@sha256:{k}", exp.image), k));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn interleaved_pulls_are_matched_back(images in prop::collection::vec(gen_image(), 1..4), order in prop::collection::vec(0usize..4, 0..80)) {
        let expectations: Vec<Expected> = images.iter().enumerate().map(|(i, g)| gen_expected(i, g)).collect();
        let mut queues: Vec<std::collections::VecDeque<(String, String, usize)>> = images.iter().enumerate().map(|(i, g)| gen_lines(i, g, &expectations[i]).into()).collect();
        // Interleave: take from the queue `order` names, then drain the rest.
        let mut merged: Vec<(String, String, (usize, usize))> = Vec::new();
        for o in order.iter().chain(std::iter::repeat_n(&0, 1000)) {
            if queues.iter().all(|q| q.is_empty()) { break; }
            let n = queues.len();
            let q = (0..n).map(|d| (o + d) % n).find(|&q| !queues[q].is_empty()).unwrap();
            let (id, msg, k) = queues[q].pop_front().unwrap();
            merged.push((id, msg, (q, k)));
        }
        // Whether the log goes on after a pull's last line.
        let later = |pull: (usize, usize)| merged.iter().rposition(|e| e.2 == pull).is_some_and(|at| at + 1 < merged.len());
        let entries: Vec<(&str, &str)> = merged.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
        let text: String = entries.chunks(60).enumerate().map(|(c, chunk)| journal(chunk).replace("10:00:", &format!("10:{c:02}:"))).collect();
        let lines = read("j", &text).unwrap();
        for (i, g) in images.iter().enumerate() {
            let pulls = replay(&lines, &expectations[i]);
            prop_assert_eq!(pulls.len(), g.pulls.len());
            let sources = &expectations[i].candidates[0].sources;
            for (k, (p, served)) in pulls.iter().zip(&g.pulls).enumerate() {
                let last = served.unwrap_or(sources.len() - 1);
                let want: Vec<&str> = sources[..=last].iter().map(|s| s.reference.as_str()).collect();
                prop_assert_eq!(p.id.clone(), Some(format!("p{i}x{k}")));
                prop_assert_eq!(p.pulls.len(), 1);
                prop_assert_eq!(&p.pulls[0].tried, &want);
                // A walk that ended at a blocked source, the log going on: failed.
                let outcome = match served {
                    Some(_) => Outcome::Pulled,
                    None if k + 1 < g.pulls.len() => Outcome::Failed,
                    None if g.blocked_source && later((i, k)) => Outcome::Failed,
                    None => Outcome::Unfinished,
                };
                prop_assert_eq!(p.outcome, outcome);
                prop_assert_eq!(p.pulls[0].served_by.as_deref(), served.map(|s| sources[s].reference.as_str()));
                let diverges = served.is_some_and(|s| sources[s].blocked || (s + 1 == sources.len() && s > 0));
                prop_assert_eq!(p.pulls[0].verdict == Verdict::Diverges, diverges);
            }
        }
    }
}

/// Issue 37: with every image of the log replayed at once (audit), a line of
/// a source another image's open pull has in its order goes to that pull,
/// not to a waiting pull of an image it merely resembles (same tag, same
/// last path component).
#[test]
fn issue_37_a_line_goes_to_the_image_whose_order_has_it() {
    let a = expected(
        "quay.io/a/app:v1",
        vec![
            source("m1.example.com/a/app:v1", true, false),
            source("quay.io/a/app:v1", false, true),
        ],
    );
    let b = expected(
        "quay.io/b/app:v1",
        vec![
            source("m1.example.com/b/app:v1", true, false),
            source("quay.io/b/app:v1", false, false),
        ],
    );
    let text = journal(&[
        ("a", "Pulling image: quay.io/a/app:v1"),
        ("", "Trying to access \"m1.example.com/a/app:v1\""),
        ("", "Trying to access \"quay.io/a/app:v1\""),
        ("b", "Pulling image: quay.io/b/app:v1"),
        ("", "Trying to access \"m1.example.com/b/app:v1\""),
        ("b", "Pulled image: quay.io/b/app@sha256:1"),
    ]);
    let mut r = super::Replay::new();
    r.add(a);
    r.add(b);
    for l in read("j", &text).unwrap() {
        r.push(&l);
    }
    let out = r.finish();
    let (pa, pb) = (&out[0][0], &out[1][0]);
    assert_eq!(
        pa.pulls[0].tried,
        ["m1.example.com/a/app:v1", "quay.io/a/app:v1"]
    );
    assert_eq!(pa.outcome, Outcome::Failed, "{pa:?}");
    assert_eq!(pa.pulls[0].verdict, Verdict::AsExpected);
    assert_eq!(
        pb.pulls[0].served_by.as_deref(),
        Some("m1.example.com/b/app:v1")
    );
}
