//! The unit tests of `exit` in the binary's library.

use kubectl_mirrorpolicy::exit::without_os_error_code;

#[test]
fn issue_14_os_error_codes_are_dropped() {
    for (input, want) in [
        (
            "cannot read \"x\": No such file or directory (os error 2)",
            "cannot read \"x\": No such file or directory",
        ),
        ("a (os error 13) and b (os error 2)", "a and b"),
        ("no code (os error x)", "no code (os error x)"),
        ("plain", "plain"),
    ] {
        assert_eq!(without_os_error_code(input), want, "{input}");
    }
}
