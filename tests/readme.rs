//! The README's example commands run and print what the README shows.

use assert_cmd::Command;

/// Every fenced block that starts with `$ kubectl mirrorpolicy ...` (one
/// command line, then its output) must match the built binary's output.
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
        let out = Command::cargo_bin("kubectl-mirrorpolicy")
            .expect("binary built")
            .env("NO_COLOR", "1")
            // The examples are shown fitted to 100 columns.
            .env("COLUMNS", "100")
            .args(command.split_whitespace())
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
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
