//! The unit tests of `term` in the binary's library.

use kubectl_mirrorpolicy::term::escape_controls;

#[test]
fn issue_12_control_characters_are_escaped() {
    for (input, keep_sgr, want) in [
        ("plain quay.io/ns/app", false, "plain quay.io/ns/app"),
        ("two\nlines\tand tab", false, "two\nlines\tand tab"),
        (
            "evil\x1b]0;title\x07name",
            false,
            "evil\\x1b]0;title\\x07name",
        ),
        ("clear\x1b[2Jscreen", true, "clear\\x1b[2Jscreen"),
        ("\x1b[1mbold\x1b[0m", true, "\x1b[1mbold\x1b[0m"),
        ("\x1b[1mbold\x1b[0m", false, "\\x1b[1mbold\\x1b[0m"),
        ("carriage\rreturn", false, "carriage\\rreturn"),
        ("nul\0del\x7fc1\u{85}", false, "nul\\x00del\\x7fc1\\x85"),
        ("ls\u{2028}bidi\u{202e}x", false, "ls\\u2028bidi\\u202ex"),
        ("unicode ü — 漢字", false, "unicode ü — 漢字"),
    ] {
        assert_eq!(escape_controls(input, keep_sgr), want, "{input:?}");
    }
}
