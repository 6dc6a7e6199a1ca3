//! The unit tests of `output::many` in the binary's library.

use kubectl_mirrorpolicy::output::many::*;

#[derive(serde::Serialize)]
struct Item {
    context: String,
    result: serde_json::Value,
}

fn items(n: usize) -> Vec<Item> {
    (0..n)
        .map(|i| Item {
            context: format!("c{i}"),
            result: serde_json::json!({"kind": "List", "items": [], "nested": {"a": [1, {}], "b": "x\ny: \"z\""}, "empty": {}}),
        })
        .collect()
}

/// Item by item, the bytes of the whole `List` written at once.
#[test]
fn issue_26_streamed_list_is_byte_identical() {
    for yaml in [false, true] {
        for n in 0..4 {
            let items = items(n);
            let mut whole = Vec::new();
            if yaml {
                kubectl_mirrorpolicy::output::write_yaml(
                    &mut whole,
                    &[&kubectl_mirrorpolicy::output::List::new(&items)],
                )
                .unwrap();
            } else {
                kubectl_mirrorpolicy::output::write_json(
                    &mut whole,
                    &[&kubectl_mirrorpolicy::output::List::new(&items)],
                )
                .unwrap();
            }
            let mut streamed = Vec::new();
            let mut stream = ListStream::new(yaml);
            for item in &items {
                stream.item(&mut streamed, item).unwrap();
            }
            stream.finish(&mut streamed).unwrap();
            assert_eq!(
                String::from_utf8(streamed).unwrap(),
                String::from_utf8(whole).unwrap(),
                "yaml {yaml}, {n} items"
            );
        }
    }
}

#[test]
fn issue_26_summary_lines() {
    assert_eq!(
        summary_line(
            "east",
            "findings",
            &[("images".to_string(), 3), ("direct".to_string(), 1)]
        ),
        "east findings images=3 direct=1"
    );
    assert_eq!(
        summary_error_line("my ctx", "no answer"),
        "\"my ctx\" error: no answer"
    );
    let tally = Tally {
        clusters: 3,
        ok: 1,
        findings: 1,
        errors: 1,
    };
    assert_eq!(
        tally.line(3),
        "total clusters=3 ok=1 findings=1 errors=1 exit=3"
    );
}

fn text(sections: &[Section]) -> String {
    let mut out = Vec::new();
    write_sections(&mut out, sections).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn output_without_newline_is_ended_and_errors_keep_their_causes() {
    let causes = ["cannot list".to_string(), "connection refused".to_string()];
    assert_eq!(
        text(&[
            Section {
                context: "a",
                server: Some("https://a:6443"),
                result: Ok(b"no newline"),
            },
            Section {
                context: "b",
                server: Some("https://b:6443"),
                result: Err(&causes),
            },
            Section {
                context: "c",
                server: None,
                result: Ok(b""),
            },
        ]),
        "== context a (https://a:6443)\nno newline\n\n== context b (https://b:6443)\nerror: cannot list\n  caused by: connection refused\n\n== context c (no server in the kubeconfig)\n"
    );
    assert_eq!(text(&[]), "");
}
