//! Help and usage: every command has examples, typos get a suggestion, the
//! usage text follows the name the plugin was run as (oc or kubectl), and
//! `--version` names the commit the binary was built from.

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
    // A link, not a copy: a copy just written can still be open for
    // writing in a child another test forks, and exec fails (ETXTBSY).
    std::os::unix::fs::symlink(BIN, &oc).unwrap();
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

/// The commit of the checkout the tests run in, as the build records it.
fn checkout_commit() -> String {
    Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let version = env!("CARGO_PKG_VERSION");
    let commit = checkout_commit();
    let (code, out, err) = run(BIN, &["--version"]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert_eq!(
        out,
        format!("kubectl-mirrorpolicy {version} (commit {commit})\n")
    );
    let (code, out, _) = run(BIN, &["explain", "--version"]);
    assert_eq!(code, 0);
    assert!(
        out.ends_with(&format!(" {version} (commit {commit})\n")),
        "{out}"
    );
    // -V is the short form: the version only.
    let (code, out, _) = run(BIN, &["-V"]);
    assert_eq!(
        (code, out),
        (0, format!("kubectl-mirrorpolicy {version}\n"))
    );
}
