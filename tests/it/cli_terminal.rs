//! Text output for a person never passes the input's control characters to
//! the terminal raw; JSON output stays exact.

use crate::support;

use support::bin;

/// An object whose name and mirror hold terminal escapes: clear screen and
/// set the window title.
const HOSTILE: &str = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: \"evil\\e[2J\\e]0;owned\\a\"\nspec:\n  imageDigestMirrors:\n  - source: quay.io/ns\n    mirrors: [\"m.example.com/ns\"]\n";

const IMAGE: &str =
    "quay.io/ns/app@sha256:0000000000000000000000000000000000000000000000000000000000000000";

fn hostile_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("hostile.yaml");
    std::fs::write(&path, HOSTILE).unwrap();
    path.display().to_string()
}

fn no_raw_controls(bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what} holds a raw control character:\n{text}"
    );
}

#[test]
fn issue_12_control_characters_are_escaped_in_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_file(&dir);
    for args in [
        vec!["explain", IMAGE, "-f", &file],
        vec!["list", "-f", &file],
        vec!["list", "-o", "wide", "-f", &file],
        vec!["lint", "-f", &file],
        vec!["-v", "list", "-f", &file],
    ] {
        let out = bin().env("NO_COLOR", "1").args(&args).output().unwrap();
        no_raw_controls(&out.stdout, &format!("stdout of {args:?}"));
        no_raw_controls(&out.stderr, &format!("stderr of {args:?}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        if args[0] != "lint" {
            assert!(
                stdout.contains(r"ImageDigestMirrorSet/evil\x1b[2J\x1b]0;owned\x07"),
                "{args:?}: the name is shown escaped:\n{stdout}"
            );
        }
    }
}

#[test]
fn issue_12_colour_is_kept_and_input_escapes_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_file(&dir);
    let out = bin()
        .args(["--color", "always", "explain", IMAGE, "-f", &file])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\x1b[1m"), "colour kept:\n{stdout}");
    assert!(
        !stdout.contains("\x1b]0;"),
        "title escape passed:\n{stdout}"
    );
    assert!(!stdout.contains("\x07"), "bell passed:\n{stdout}");
}

#[test]
fn issue_12_json_output_stays_exact() {
    let dir = tempfile::tempdir().unwrap();
    let file = hostile_file(&dir);
    let out = bin()
        .args(["list", "-o", "json", "-f", &file])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = json.to_string();
    assert!(
        text.contains("ImageDigestMirrorSet/evil\\u001b[2J\\u001b]0;owned\\u0007"),
        "{text}"
    );
}
