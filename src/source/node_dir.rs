//! A folder of node files, as `collect-node-files --dest-dir DIR` writes it
//! and `--node-files DIR` reads it:
//!
//! ```text
//! DIR/<node>/etc/containers/registries.conf
//! DIR/<node>/etc/containers/registries.conf.d/<drop-in>
//! DIR/<node>/etc/containers/policy.json
//! DIR/<node>/etc/containers/registries.d/<file>
//! DIR/<node>/etc/crio/policies/<namespace>.json
//! DIR/<node>/etc/machine-config-daemon/currentconfig
//! DIR/<node>/certs.sha256      ("<sha256>  /etc/docker/certs.d/<host>/<file>" lines)
//! ```
//!
//! A node folder holds what was read; a file absent from it was absent on
//! the node.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::node_files::{parse_cert_digests, NodeFiles, FILES, FOLDERS};

/// The name of the certificate digest list in a node folder.
pub const CERT_DIGESTS: &str = "certs.sha256";

/// Why a node-files folder could not be read.
#[derive(Debug, Error)]
pub enum NodeDirError {
    #[error("cannot read \"{path}\": {source}")]
    Read {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("\"{path}\": {message}")]
    Invalid { path: String, message: String },
    #[error("\"{dir}\" holds no node folder (expected DIR/<node>/etc/containers/...)")]
    Empty { dir: String },
}

fn read_error(path: &Path) -> impl FnOnce(io::Error) -> NodeDirError + '_ {
    move |source| NodeDirError::Read {
        path: path.display().to_string(),
        source,
    }
}

/// The host path `host` (absolute) inside a node folder.
pub fn host_path(node_dir: &Path, host: &str) -> PathBuf {
    node_dir.join(host.trim_start_matches('/'))
}

/// Reads every node folder of `dir`, in name order.
pub fn read(dir: &Path) -> Result<Vec<NodeFiles>, NodeDirError> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(read_error(dir))? {
        let entry = entry.map_err(read_error(dir))?;
        if entry
            .file_type()
            .map_err(read_error(&entry.path()))?
            .is_dir()
        {
            if let Some(name) = entry.file_name().to_str() {
                names.push(name.to_string());
            }
        }
    }
    if names.is_empty() {
        return Err(NodeDirError::Empty {
            dir: dir.display().to_string(),
        });
    }
    names.sort();
    names
        .into_iter()
        .map(|name| read_node(&dir.join(&name), name))
        .collect()
}

/// Reads one node folder.
pub fn read_node(node_dir: &Path, node: String) -> Result<NodeFiles, NodeDirError> {
    let mut files = NodeFiles {
        node,
        ..NodeFiles::default()
    };
    for host in FILES {
        if let Some(bytes) = read_if_present(&host_path(node_dir, host))? {
            files.files.insert(host.to_string(), bytes);
        }
    }
    for folder in FOLDERS {
        let local = host_path(node_dir, folder);
        let entries = match fs::read_dir(&local) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(read_error(&local)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(read_error(&local))?;
            let path = entry.path();
            if !entry.file_type().map_err(read_error(&path))?.is_file() {
                continue;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let bytes = fs::read(&path).map_err(read_error(&path))?;
            files.files.insert(format!("{folder}/{name}"), bytes);
        }
    }
    let digests = node_dir.join(CERT_DIGESTS);
    if let Some(bytes) = read_if_present(&digests)? {
        let text = String::from_utf8(bytes).map_err(|_| NodeDirError::Invalid {
            path: digests.display().to_string(),
            message: "not UTF-8 text".to_string(),
        })?;
        files.certs = parse_cert_digests(&text).map_err(|message| NodeDirError::Invalid {
            path: digests.display().to_string(),
            message,
        })?;
    }
    Ok(files)
}

fn read_if_present(path: &Path) -> Result<Option<Vec<u8>>, NodeDirError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(read_error(path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_nodes_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "worker-1/etc/containers/registries.conf", "a");
        write(dir.path(), "worker-0/etc/containers/registries.conf", "b");
        write(
            dir.path(),
            "worker-0/etc/containers/registries.conf.d/x.conf",
            "c",
        );
        write(
            dir.path(),
            "worker-0/etc/containers/registries.conf.d/sub/y.conf",
            "ignored",
        );
        write(dir.path(), "worker-0/etc/crio/policies/ns.json", "{}");
        write(dir.path(), "worker-0/etc/unrelated", "ignored");
        let digest = "e".repeat(64);
        write(
            dir.path(),
            "worker-0/certs.sha256",
            &format!("{digest}  /etc/docker/certs.d/m:5000/ca.crt\n"),
        );
        let nodes = read(dir.path()).unwrap();
        assert_eq!(
            nodes.iter().map(|n| n.node.as_str()).collect::<Vec<_>>(),
            ["worker-0", "worker-1"]
        );
        let w0 = &nodes[0];
        assert_eq!(
            w0.files.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "/etc/containers/registries.conf",
                "/etc/containers/registries.conf.d/x.conf",
                "/etc/crio/policies/ns.json",
            ]
        );
        assert_eq!(w0.certs["/etc/docker/certs.d/m:5000/ca.crt"], digest);
        assert_eq!(nodes[1].text("/etc/containers/registries.conf"), Some("a"));
    }

    #[test]
    fn errors_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let err = read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("holds no node folder"), "{err}");
        write(dir.path(), "n/certs.sha256", "nonsense\n");
        let err = read(dir.path()).unwrap_err().to_string();
        assert!(err.contains("certs.sha256\": line 1:"), "{err}");
        let err = read(&dir.path().join("missing")).unwrap_err().to_string();
        assert!(err.starts_with("cannot read \""), "{err}");
    }
}
