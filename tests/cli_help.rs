//! Help and usage: every command has examples, typos get a suggestion, and
//! the usage text follows the name the plugin was run as (oc or kubectl).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");
const COMMANDS: &[&str] = &[
    "explain",
    "render",
    "list",
    "lint",
    "diff",
    "audit",
    "migrate-icsp",
    "completion",
];

fn run(bin: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn every_command_has_examples() {
    let (_, top, _) = run(BIN, &["--help"]);
    for command in COMMANDS {
        assert!(top.contains(command), "{command} missing from --help");
        let (code, help, _) = run(BIN, &[command, "--help"]);
        assert_eq!(code, 0, "{command}");
        assert!(
            help.contains("Examples:\n"),
            "{command} --help has no examples"
        );
        assert!(
            help.contains(&format!("kubectl mirrorpolicy {command}"))
                || help.contains("kubectl-mirrorpolicy completion"),
            "{command}: examples do not run the command"
        );
    }
}

#[test]
fn typos_get_a_suggestion() {
    for (args, tip) in [
        (&["explain", "x", "--namspace", "a"][..], "'--namespace'"),
        (&["explian", "x"], "'explain'"),
        // `--all` alone is now nearer `--all-contexts`.
        (&["audit", "--all-namespace"], "'--all-namespaces'"),
        (&["list", "--all-context"], "'--all-contexts'"),
    ] {
        let (code, _, err) = run(BIN, args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.contains("tip: a similar") && err.contains(tip),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn usage_follows_the_name_it_was_run_as() {
    let dir = tempfile::tempdir().unwrap();
    let oc = dir.path().join("oc-mirrorpolicy");
    std::fs::copy(BIN, &oc).unwrap();
    let (_, help, _) = run(oc.to_str().unwrap(), &["explain", "--help"]);
    assert!(help.contains("Usage: oc mirrorpolicy explain"), "{help}");
    assert!(
        help.contains("  oc mirrorpolicy explain registry.redhat.io"),
        "{help}"
    );
    assert!(!help.contains("kubectl mirrorpolicy"), "{help}");
    let (_, help, _) = run(BIN, &["explain", "--help"]);
    assert!(
        help.contains("Usage: kubectl mirrorpolicy explain"),
        "{help}"
    );
}
