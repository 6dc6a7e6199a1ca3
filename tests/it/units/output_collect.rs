//! The unit tests of `output::collect` in the binary's library.

use kubectl_mirrorpolicy::output::collect::*;
use mirrorpolicy::node_files::NodeFiles;
use std::path::Path;

#[test]
fn one_line_per_node_with_its_counts() {
    let mut a = NodeFiles {
        node: "worker-0".to_string(),
        ..NodeFiles::default()
    };
    a.files
        .insert("/etc/containers/registries.conf".to_string(), b"x".to_vec());
    a.certs
        .insert("/etc/docker/certs.d/m/ca.crt".to_string(), "0".repeat(64));
    let b = NodeFiles {
        node: "worker-1".to_string(),
        ..NodeFiles::default()
    };
    let mut out = Vec::new();
    write_collected(&mut out, Path::new("out"), &[&a, &b]).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "collected worker-0 into out/worker-0 (1 file(s), 1 certificate digest(s))\ncollected worker-1 into out/worker-1 (0 file(s), 0 certificate digest(s))\n"
    );
}
