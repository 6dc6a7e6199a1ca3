//! The unit tests of `many` in the binary's library.

use kubectl_mirrorpolicy::exit::{Described, ExitCode};
use kubectl_mirrorpolicy::many::*;

/// Each cluster's `List` item.
fn list_items(sections: &[Outcome<Vec<u8>>], shape: Shape) -> Vec<Item> {
    sections.iter().map(|s| list_item(s, shape)).collect()
}

fn described(line: &str, code: ExitCode) -> Described {
    Described {
        lines: vec![line.to_string()],
        hint: None,
        code,
    }
}

#[test]
fn issue_17_sections_name_context_and_server() {
    let sections = vec![
        Outcome {
            context: "a".to_string(),
            server: Some("https://a:6443".to_string()),
            result: Ok(b"rules of a\n".to_vec()),
        },
        Outcome {
            context: "b".to_string(),
            server: None,
            result: Err(described("cannot reach b", ExitCode::Cluster)),
        },
    ];
    let mut out = Vec::new();
    write_sections(&mut out, &sections).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "== context a (https://a:6443)\nrules of a\n\n== context b (no server in the kubeconfig)\nerror: cannot reach b\n"
    );
}

#[test]
fn issue_17_list_items_carry_result_or_error() {
    let sections = vec![
        Outcome {
            context: "a".to_string(),
            server: Some("https://a".to_string()),
            result: Ok(b"{\"kind\": \"List\", \"items\": []}\n".to_vec()),
        },
        Outcome {
            context: "b".to_string(),
            server: Some("https://b".to_string()),
            result: Err(described("forbidden", ExitCode::Cluster)),
        },
    ];
    let items = list_items(&sections, Shape::Json);
    let v = serde_json::to_value(&items).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"context": "a", "server": "https://a", "result": {"kind": "List", "items": []}},
            {"context": "b", "server": "https://b", "error": "forbidden"},
        ])
    );
    let yaml = list_items(
        &[Outcome {
            context: "c".to_string(),
            server: None,
            result: Ok(b"kind: List\nitems: []\n".to_vec()),
        }],
        Shape::Yaml,
    );
    assert_eq!(
        yaml[0].result,
        Some(serde_json::json!({"kind": "List", "items": []}))
    );
}

#[test]
fn issue_26_thousands_and_window() {
    for (n, want) in [
        (0, "0"),
        (999, "999"),
        (1234, "1,234"),
        (3000, "3,000"),
        (1234567, "1,234,567"),
    ] {
        assert_eq!(thousands(n), want);
    }
    assert_eq!(window(8), 64);
    assert_eq!(window(64), 256);
}

#[test]
fn issue_17_worst_exit_code() {
    use ExitCode::*;
    for (a, b, want) in [
        (Success, Findings, Findings),
        (Cluster, Input, Cluster),
        (Input, Cluster, Cluster),
        (Findings, Success, Findings),
    ] {
        assert_eq!(worse(a, b), want, "{a:?} {b:?}");
    }
}
