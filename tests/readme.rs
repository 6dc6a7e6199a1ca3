//! The README's example commands run and print what the README shows.

use assert_cmd::Command;

/// Every fenced block that starts with `$ kubectl mirrorpolicy ...` (one
/// command line, then its output) must match the built binary's output. A
/// block may end with `$ echo $?` and the exit code the command must give
/// (else it must succeed).
#[test]
fn readme_examples_match_the_binary() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let mut checked = 0;
    const START: &str = "```\n$ kubectl mirrorpolicy ";
    for (at, _) in readme.match_indices(START) {
        let rest = &readme[at + START.len()..];
        let end = rest.find("\n```\n").expect("closed block") + 1;
        let (command, expected) = rest[..end]
            .split_once('\n')
            .expect("command line then output");
        let (expected, code) = match expected.rsplit_once("$ echo $?\n") {
            Some((output, code)) => (output, code.trim().parse::<i32>().expect("an exit code")),
            None => (expected, 0),
        };
        let out = Command::cargo_bin("kubectl-mirrorpolicy")
            .expect("binary built")
            .env("NO_COLOR", "1")
            // The examples are shown fitted to 100 columns.
            .env("COLUMNS", "100")
            .args(command.split_whitespace())
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "README output of `{command}`"
        );
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} README examples found");
}
