//! Errors are one line a person can act on.

mod support;

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
