//! What a node holds on disk: the files CRI-O and containers/image read,
//! as read from the node itself (through its machine-config-daemon pod) or
//! from a folder written by `collect-node-files`.
//!
//! Contents are kept for the files the runtime reads; for the certificate
//! folders only each file's SHA-256 is kept (a CA or client key is compared,
//! never copied).

use std::collections::BTreeMap;

/// Single files a node's runtime reads.
pub const FILES: &[&str] = &[
    "/etc/containers/registries.conf",
    "/etc/containers/policy.json",
    "/etc/machine-config-daemon/currentconfig",
];

/// Folders whose direct children (regular files) the runtime reads.
pub const FOLDERS: &[&str] = &[
    "/etc/containers/registries.conf.d",
    "/etc/containers/registries.d",
    "/etc/crio/policies",
];

/// Folders of per-registry certificate folders (`<dir>/<host[:port]>/<file>`):
/// only names and SHA-256 digests are read.
pub const CERT_FOLDERS: &[&str] = &["/etc/docker/certs.d", "/etc/containers/certs.d"];

/// Whether `path` (an absolute host path) is a file whose content is read:
/// one of [`FILES`] or a direct child of one of [`FOLDERS`].
pub fn is_content_path(path: &str) -> bool {
    FILES.contains(&path)
        || FOLDERS.iter().any(|dir| {
            path.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(is_plain_name)
        })
}

/// Whether `path` is a file in a per-registry certificate folder
/// (`/etc/docker/certs.d/<host>/<file>`).
pub fn is_cert_path(path: &str) -> bool {
    CERT_FOLDERS.iter().any(|dir| {
        path.strip_prefix(dir)
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(host, file)| is_plain_name(host) && is_plain_name(file))
    })
}

/// One path component: not empty, not `.`/`..`, no separator or NUL.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// The files one node holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFiles {
    /// The Node's name.
    pub node: String,
    /// Host path → content, for every [`is_content_path`] file present.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Host path → lowercase hex SHA-256, for every [`is_cert_path`] file present.
    pub certs: BTreeMap<String, String>,
}

impl NodeFiles {
    /// A file's content as text, when present and UTF-8.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .get(path)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
    }

    /// The drop-ins present in a folder of [`FOLDERS`], in name order.
    pub fn children<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = (&'a str, &'a [u8])> {
        self.files.iter().filter_map(move |(path, bytes)| {
            let name = path.strip_prefix(folder)?.strip_prefix('/')?;
            is_plain_name(name).then_some((path.as_str(), bytes.as_slice()))
        })
    }
}

/// The result of reading one node: its files, or why they could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeRead {
    Read(NodeFiles),
    NotRead { node: String, why: String },
}

impl NodeRead {
    pub fn node(&self) -> &str {
        match self {
            NodeRead::Read(files) => &files.node,
            NodeRead::NotRead { node, .. } => node,
        }
    }
}

/// The certificate digests as `sha256sum` prints them (`<hex>  <path>`), one
/// line per file in path order: how a collected folder stores them.
pub fn format_cert_digests(certs: &BTreeMap<String, String>) -> String {
    certs
        .iter()
        .map(|(path, digest)| format!("{digest}  {path}\n"))
        .collect()
}

/// Parses [`format_cert_digests`] output; an error names the line.
pub fn parse_cert_digests(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut certs = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = || {
            format!(
                "line {}: expected \"<sha256 hex>  <path>\", got {line:?}",
                index + 1
            )
        };
        let (digest, path) = line.split_once("  ").ok_or_else(bad)?;
        let hex = digest.len() == 64
            && digest
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !hex || !is_cert_path(path) {
            return Err(bad());
        }
        certs.insert(path.to_string(), digest.to_string());
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_paths() {
        for (path, want) in [
            ("/etc/containers/registries.conf", true),
            ("/etc/containers/policy.json", true),
            ("/etc/machine-config-daemon/currentconfig", true),
            ("/etc/containers/registries.conf.d/01-x.conf", true),
            (
                "/etc/containers/registries.d/sigstore-registries.yaml",
                true,
            ),
            ("/etc/crio/policies/team-a.json", true),
            ("/etc/containers/registries.conf.d/sub/x.conf", false),
            ("/etc/containers/registries.conf.d/", false),
            ("/etc/containers/registries.conf.d/..", false),
            ("/etc/containers/registries.confx", false),
            ("/etc/docker/certs.d/host/ca.crt", false),
            ("/etc/passwd", false),
        ] {
            assert_eq!(is_content_path(path), want, "{path}");
        }
    }

    #[test]
    fn cert_paths() {
        for (path, want) in [
            ("/etc/docker/certs.d/mirror.example.com:5000/ca.crt", true),
            ("/etc/containers/certs.d/mirror/client.cert", true),
            ("/etc/docker/certs.d/ca.crt", false),
            ("/etc/docker/certs.d/host/sub/ca.crt", false),
            ("/etc/docker/certs.d/../ca.crt", false),
        ] {
            assert_eq!(is_cert_path(path), want, "{path}");
        }
    }

    #[test]
    fn cert_digests_round_trip() {
        let mut certs = BTreeMap::new();
        certs.insert(
            "/etc/docker/certs.d/m:5000/ca.crt".to_string(),
            "a".repeat(64),
        );
        certs.insert(
            "/etc/containers/certs.d/m/ca.crt".to_string(),
            "0".repeat(64),
        );
        let text = format_cert_digests(&certs);
        assert_eq!(parse_cert_digests(&text).unwrap(), certs);
    }

    #[test]
    fn cert_digests_refuse_bad_lines() {
        for text in [
            "abc  /etc/docker/certs.d/m/ca.crt",
            &format!("{}  /etc/passwd", "a".repeat(64)),
            &format!("{} /etc/docker/certs.d/m/ca.crt", "a".repeat(64)),
            &format!("{}  /etc/docker/certs.d/m/ca.crt", "A".repeat(64)),
        ] {
            let err = parse_cert_digests(text).unwrap_err();
            assert!(err.starts_with("line 1: "), "{err}");
        }
    }

    #[test]
    fn children_in_name_order() {
        let mut files = NodeFiles::default();
        for path in [
            "/etc/containers/registries.conf",
            "/etc/containers/registries.conf.d/b.conf",
            "/etc/containers/registries.conf.d/a.conf",
            "/etc/containers/registries.d/x.yaml",
        ] {
            files
                .files
                .insert(path.to_string(), path.as_bytes().to_vec());
        }
        let names: Vec<_> = files
            .children("/etc/containers/registries.conf.d")
            .map(|(path, _)| path)
            .collect();
        assert_eq!(
            names,
            [
                "/etc/containers/registries.conf.d/a.conf",
                "/etc/containers/registries.conf.d/b.conf"
            ]
        );
        assert_eq!(
            files.text("/etc/containers/registries.conf"),
            Some("/etc/containers/registries.conf")
        );
    }
}
