//! The unit tests of `commands::collect` in the binary's library.

use kubectl_mirrorpolicy::commands::collect::*;
use kubectl_mirrorpolicy::exit::{ExitCode, Failure};
use mirrorpolicy::node_files::NodeFiles;
use mirrorpolicy::source::node_dir;

fn node(name: &str) -> NodeFiles {
    let mut files = NodeFiles {
        node: name.to_string(),
        ..NodeFiles::default()
    };
    files.files.insert(
        "/etc/containers/registries.conf".to_string(),
        format!("# {name}\n").into_bytes(),
    );
    files.files.insert(
        "/etc/containers/registries.conf.d/99-x.conf".to_string(),
        vec![0, 159, 146, 150],
    );
    files.certs.insert(
        "/etc/docker/certs.d/m:5000/ca.crt".to_string(),
        "e".repeat(64),
    );
    files.meta.insert(
        "/etc/containers/registries.conf".to_string(),
        mirrorpolicy::node_files::FileMeta {
            mode: 0o120777,
            uid: 0,
            gid: 0,
            target: Some("/usr/share/containers/registries.conf".to_string()),
        },
    );
    files.unreadable.insert(
        "/etc/containers/registries.conf.d/loop.conf".to_string(),
        "too many levels of symbolic links".to_string(),
    );
    files
}

#[test]
fn written_folders_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out");
    let (a, b) = (node("worker-0"), node("worker-1"));
    write_nodes(&dest, &[&a, &b]).unwrap();
    assert_eq!(node_dir::read(&dest).unwrap(), vec![a.clone(), b]);
    // No staging folder is left behind.
    let names: Vec<_> = std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // A second write of the same node is refused, nothing changed.
    let err = write_nodes(&dest, &[&a]).unwrap_err();
    let failure = err.downcast_ref::<Failure>().unwrap();
    assert_eq!(failure.code, ExitCode::Refused);
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_in_place_of_a_node_folder_is_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("worker-0")).unwrap();
    let a = node("worker-0");
    let b = node("worker-1");
    assert!(write_nodes(dir.path(), &[&b, &a]).is_err());
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    assert!(!dir.path().join("worker-1").exists());
}

#[test]
fn node_names_are_plain_folder_names() {
    for bad in ["", ".", "..", ".hidden", "a/b", "certs.sha256"] {
        assert!(check_node_name(bad).is_err(), "{bad}");
    }
    check_node_name("worker-0.example.com").unwrap();
}
