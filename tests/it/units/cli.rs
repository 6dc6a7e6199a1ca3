//! The unit tests of `cli` in the binary's library.

use clap::CommandFactory;
use kubectl_mirrorpolicy::cli::*;

#[test]
fn issue_14_commands_are_said_as_run() {
    let oc = "oc mirrorpolicy";
    for (text, want) in [
        (
            "migrate it (kubectl mirrorpolicy migrate-icsp)",
            "migrate it (oc mirrorpolicy migrate-icsp)",
        ),
        (
            "check --context (kubectl config get-contexts lists them)",
            "check --context (oc config get-contexts lists them)",
        ),
        (
            "kubectl get machineconfigpools lists them",
            "oc get machineconfigpools lists them",
        ),
        (
            "run `kubectl mirrorpolicy x` again",
            "run `oc mirrorpolicy x` again",
        ),
        (
            "kubectl.kubernetes.io/last-applied-configuration",
            "kubectl.kubernetes.io/last-applied-configuration",
        ),
        ("a/kubectl b", "a/kubectl b"),
    ] {
        assert_eq!(as_said_by(oc, text), want, "{text}");
        assert_eq!(as_said_by("kubectl mirrorpolicy", text), text);
    }
}

#[test]
fn cli_is_consistent() {
    Cli::command().debug_assert();
}

/// clap wraps help text at the terminal's width: an example line that
/// fits 80 columns is never broken between a flag and its value.
#[test]
fn issue_14_examples_fit_80_columns() {
    for examples in [
        EXPLAIN_EXAMPLES,
        RENDER_EXAMPLES,
        LIST_EXAMPLES,
        LINT_EXAMPLES,
        COMPLETION_EXAMPLES,
        MIGRATE_EXAMPLES,
        AUDIT_EXAMPLES,
        DIFF_EXAMPLES,
    ] {
        for line in examples.lines() {
            // "oc mirrorpolicy" is shorter than "kubectl mirrorpolicy".
            assert!(line.chars().count() < 80, "{line:?}");
        }
    }
}

#[test]
fn display_name_follows_argv0() {
    assert_eq!(
        display_name("/usr/local/bin/oc-mirrorpolicy"),
        "oc mirrorpolicy"
    );
    assert_eq!(display_name("kubectl-mirrorpolicy"), "kubectl mirrorpolicy");
    assert_eq!(
        display_name("C:\\bin\\oc-mirrorpolicy.exe"),
        "oc mirrorpolicy"
    );
}
