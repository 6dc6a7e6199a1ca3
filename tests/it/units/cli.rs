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
/// fits 80 columns is never broken between a flag and its value. Every
/// command's examples (its `after_help` and `after_long_help`, wherever the
/// text is defined), comments and RBAC notes included.
#[test]
fn issue_14_examples_fit_80_columns() {
    fn check(cmd: &clap::Command, checked: &mut usize) {
        for text in [cmd.get_after_help(), cmd.get_after_long_help()]
            .into_iter()
            .flatten()
        {
            *checked += 1;
            for line in text.to_string().lines() {
                // "oc mirrorpolicy" is shorter than "kubectl mirrorpolicy".
                assert!(line.chars().count() < 80, "{}: {line:?}", cmd.get_name());
            }
        }
        for sub in cmd.get_subcommands() {
            check(sub, checked);
        }
    }
    let mut checked = 0;
    check(&Cli::command(), &mut checked);
    // Every command a user sees has examples, in both help texts.
    let commands = Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .count();
    assert!(
        checked >= 2 * commands,
        "{checked} texts for {commands} commands"
    );
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
