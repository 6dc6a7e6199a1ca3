//! Errors are one line a person can act on.

use crate::support;

use support::bin;

#[test]
fn issue_14_system_errors_carry_no_os_error_code() {
    let out = bin()
        .args(["list", "-f", "no-such-file.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot read \"no-such-file.yaml\": No such file or directory\n"
    );
}

#[test]
fn issue_13_errors_keep_their_chain() {
    // What the plugin was doing, then what happened, each on its own line.
    let out = bin()
        .args([
            "explain",
            "quay.io/ns/app:1",
            "--registries-conf",
            "no-such-registries.conf",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot read registries.conf \"no-such-registries.conf\"\n  caused by: No such file or directory\n"
    );
    let out = bin()
        .args(["list", "-f", "examples/disconnected-cluster"])
        .args(["--with", "no-such-idms.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: cannot read the proposed objects of --with\n  caused by: cannot read \"no-such-idms.yaml\": No such file or directory\n"
    );
}
