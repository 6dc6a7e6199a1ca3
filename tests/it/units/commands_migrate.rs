//! The unit tests of `commands::migrate` in the binary's library.

use kubectl_mirrorpolicy::commands::migrate::*;

/// A DELETE is answered with a `Status` (gone), the deleted object (as
/// registries that return it do: gone too), or the object marked with
/// `deletionTimestamp` (200, or 202 when the client asked to orphan
/// nothing): only the last is held, by its finalizers.
#[test]
fn what_a_delete_answer_says() {
    for (answer, want) in [
        (
            r#"{"kind":"Status","apiVersion":"v1","status":"Success"}"#,
            None,
        ),
        (
            r#"{"kind":"ImageContentSourcePolicy","metadata":{"name":"a"}}"#,
            None,
        ),
        (
            r#"{"kind":"ImageContentSourcePolicy","metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["x/y","z"]}}"#,
            Some(vec!["x/y".to_string(), "z".to_string()]),
        ),
        (
            r#"{"kind":"ImageContentSourcePolicy","metadata":{"name":"a","deletionTimestamp":"2026-01-01T00:00:00Z"}}"#,
            Some(vec![]),
        ),
        ("not json", None),
    ] {
        assert_eq!(marked_by(answer), want, "{answer}");
    }
}
