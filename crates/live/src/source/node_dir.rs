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
//! DIR/<node>/node-files.json   (what lstat said of each path, links, what could not be read)
//! ```
//!
//! A node folder holds what was read; a file absent from it was absent on
//! the node. A file the node held through a link is stored as a regular
//! file with its content; `node-files.json` records that it was a link:
//!
//! ```json
//! {"format": 2,
//!  "paths": {"/etc/containers/registries.conf": {"mode": "120777", "uid": 0, "gid": 0,
//!            "target": "/usr/share/containers/registries.conf"}},
//!  "unreadable": {"/etc/containers/registries.conf.d/10.conf": "too many levels of symbolic links"}}
//! ```
//!
//! (`mode` is the octal `st_mode`, file type bits included). A folder
//! written before `node-files.json` existed reads the same, without types
//! and modes. Without `certs.sha256`, the digests are computed from the
//! certificate files the folder holds (`DIR/<node>/etc/docker/certs.d/...`).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use serde_json::{json, Map, Value};

use crate::digest::sha256_hex;
use crate::node_files::{parse_cert_digests, FileMeta, NodeFiles};
use crate::node_paths::{is_cert_path, is_recorded_path, CERT_FOLDERS, FILES, FOLDERS};

/// The name of the certificate digest list in a node folder.
pub const CERT_DIGESTS: &str = "certs.sha256";

/// The name of the record of types, modes, owners and links in a node folder.
pub const MANIFEST: &str = "node-files.json";

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
    match read_if_present(&digests)? {
        Some(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| NodeDirError::Invalid {
                path: digests.display().to_string(),
                message: "not UTF-8 text".to_string(),
            })?;
            files.certs = parse_cert_digests(&text).map_err(|message| NodeDirError::Invalid {
                path: digests.display().to_string(),
                message,
            })?;
        }
        None => files.certs = cert_files(node_dir)?,
    }
    let manifest = node_dir.join(MANIFEST);
    if let Some(bytes) = read_if_present(&manifest)? {
        parse_manifest(&bytes, &mut files).map_err(|message| NodeDirError::Invalid {
            path: manifest.display().to_string(),
            message,
        })?;
    }
    Ok(files)
}

/// The digests of the certificate files a node folder holds, for a folder
/// without `certs.sha256` (a copy of the node's tree).
fn cert_files(node_dir: &Path) -> Result<BTreeMap<String, String>, NodeDirError> {
    let mut certs = BTreeMap::new();
    for folder in CERT_FOLDERS {
        for host in entries(&host_path(node_dir, folder))? {
            for file in entries(&host)? {
                let (Some(host_name), Some(name)) = (
                    host.file_name().and_then(|n| n.to_str()),
                    file.file_name().and_then(|n| n.to_str()),
                ) else {
                    continue;
                };
                let path = format!("{folder}/{host_name}/{name}");
                if is_cert_path(&path) && file.is_file() {
                    let bytes = fs::read(&file).map_err(read_error(&file))?;
                    certs.insert(path, sha256_hex(&bytes));
                }
            }
        }
    }
    Ok(certs)
}

/// The entries of a folder, none when it is absent or not a folder.
fn entries(dir: &Path) -> Result<Vec<PathBuf>, NodeDirError> {
    let listing = match fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Vec::new())
        }
        Err(e) => return Err(read_error(dir)(e)),
    };
    let mut out = Vec::new();
    for entry in listing {
        out.push(entry.map_err(read_error(dir))?.path());
    }
    out.sort();
    Ok(out)
}

/// `node-files.json` of a node: what lstat said of each path and what could
/// not be read.
pub fn format_manifest(files: &NodeFiles) -> String {
    let paths: Map<String, Value> = files
        .meta
        .iter()
        .map(|(path, meta)| {
            let mut entry = json!({
                "mode": format!("{:o}", meta.mode),
                "uid": meta.uid,
                "gid": meta.gid,
            });
            if let Some(target) = &meta.target {
                entry["target"] = json!(target);
            }
            (path.clone(), entry)
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "format": 2,
        "paths": paths,
        "unreadable": files.unreadable,
    }))
    .unwrap_or_default();
    text.push('\n');
    text
}

fn parse_manifest(bytes: &[u8], files: &mut NodeFiles) -> Result<(), String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if value.get("format") != Some(&json!(2)) {
        return Err("expected \"format\": 2".to_string());
    }
    let object = |key: &str| -> Result<Map<String, Value>, String> {
        match value.get(key) {
            None => Ok(Map::new()),
            Some(Value::Object(map)) => Ok(map.clone()),
            Some(_) => Err(format!("\"{key}\" is not an object")),
        }
    };
    for (path, entry) in object("paths")? {
        let bad = || {
            format!("paths.\"{path}\": expected {{\"mode\": \"<octal>\", \"uid\": N, \"gid\": N}}")
        };
        if !is_recorded_path(&path) {
            return Err(format!("paths.\"{path}\": not a path the node files hold"));
        }
        let number = |key: &str| {
            entry
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(bad)
        };
        let mode = entry
            .get("mode")
            .and_then(Value::as_str)
            .and_then(|m| u32::from_str_radix(m, 8).ok())
            .ok_or_else(bad)?;
        let target = match entry.get("target") {
            None => None,
            Some(Value::String(t)) => Some(t.clone()),
            Some(_) => return Err(bad()),
        };
        let meta = FileMeta {
            mode,
            uid: number("uid")?,
            gid: number("gid")?,
            target,
        };
        files.meta.insert(path, meta);
    }
    for (path, why) in object("unreadable")? {
        let why = why
            .as_str()
            .ok_or_else(|| format!("unreadable.\"{path}\": not a string"))?;
        if !is_recorded_path(&path) {
            return Err(format!(
                "unreadable.\"{path}\": not a path the node files hold"
            ));
        }
        files.unreadable.insert(path, why.to_string());
    }
    Ok(())
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
    fn certificate_files_without_a_digest_list_get_digests() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "n/etc/docker/certs.d/m:5000/ca.crt", "abc");
        write(dir.path(), "n/etc/containers/certs.d/q/client.cert", "");
        write(
            dir.path(),
            "n/etc/docker/certs.d/stray.crt",
            "not in a host folder",
        );
        let nodes = read(dir.path()).unwrap();
        assert_eq!(
            nodes[0].certs,
            BTreeMap::from([
                (
                    "/etc/containers/certs.d/q/client.cert".to_string(),
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855".to_string()
                ),
                (
                    "/etc/docker/certs.d/m:5000/ca.crt".to_string(),
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".to_string()
                ),
            ])
        );
        // A digest list wins over the files.
        write(dir.path(), "n/certs.sha256", "");
        assert!(read(dir.path()).unwrap()[0].certs.is_empty());
    }

    #[test]
    fn the_manifest_round_trips_and_refuses_nonsense() {
        let mut files = NodeFiles {
            node: "n".to_string(),
            ..NodeFiles::default()
        };
        files.meta.insert(
            "/etc/containers/registries.conf.d".to_string(),
            FileMeta {
                mode: 0o120777,
                uid: 0,
                gid: 0,
                target: Some("/etc/alt".to_string()),
            },
        );
        files.meta.insert(
            "/etc/containers/policy.json".to_string(),
            FileMeta {
                mode: 0o100600,
                uid: 1000,
                gid: 10,
                target: None,
            },
        );
        files.unreadable.insert(
            "/etc/containers/registries.conf".to_string(),
            "/nowhere: no such file or directory".to_string(),
        );
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "n/node-files.json", &format_manifest(&files));
        assert_eq!(read(dir.path()).unwrap(), vec![files]);
        for (text, want) in [
            ("{}", "expected \"format\": 2"),
            ("{\"format\": 2, \"paths\": []}", "\"paths\" is not an object"),
            (
                "{\"format\": 2, \"paths\": {\"/etc/passwd\": {\"mode\": \"100644\", \"uid\": 0, \"gid\": 0}}}",
                "not a path the node files hold",
            ),
            (
                "{\"format\": 2, \"paths\": {\"/etc/containers/policy.json\": {\"mode\": \"9\", \"uid\": 0, \"gid\": 0}}}",
                "expected {\"mode\"",
            ),
            (
                "{\"format\": 2, \"unreadable\": {\"/etc/containers/policy.json\": 1}}",
                "not a string",
            ),
        ] {
            write(dir.path(), "n/node-files.json", text);
            let err = read(dir.path()).unwrap_err().to_string();
            assert!(err.contains("node-files.json\": "), "{err}");
            assert!(err.contains(want), "{text}: {err}");
        }
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
