//! What a node holds on disk: the files CRI-O and containers/image read,
//! as read from the node itself (through its machine-config-daemon pod) or
//! from a folder written by `collect-node-files`.
//!
//! Contents are kept for the files the runtime reads; for the certificate
//! folders only each file's SHA-256 is kept (a CA or client key is compared,
//! never copied). Each path also keeps what `lstat` says of it on the host
//! (type, mode, owner: what the machine-config daemon checks) and where its
//! links lead; a path whose links cannot be resolved keeps why.
//!
//! Which of those files the runtime reads is [`crate::node_paths`]'s rule
//! (`explain --node` and `diff --on-disk` both use it).

use std::collections::BTreeMap;

use crate::crio::NodeRuntime;
use crate::node_paths::{
    folder_of, follows_folder_link, is_cert_path, is_plain_name, runtime_use, RuntimeUse,
    CRIO_POLICIES, POLICY_JSON, REGISTRIES_CONF, REGISTRIES_CONF_D, REGISTRIES_D,
};

/// What a path is on the host, as `lstat` reports it once its parent
/// folders are resolved (what the machine-config daemon's
/// `checkFileContentsAndMode` sees).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    /// `st_mode`: the file type bits and the permissions.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    /// The host path it resolves to, when not itself (a link, or a parent
    /// folder that is one).
    pub target: Option<String>,
}

/// A file's type as the host has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Link,
    Folder,
    /// A named pipe, socket or device: what it is.
    Other(&'static str),
}

impl FileKind {
    /// As a word: `regular`, `link`, `folder`, or the other type.
    pub fn word(self) -> &'static str {
        match self {
            FileKind::Regular => "regular",
            FileKind::Link => "link",
            FileKind::Folder => "folder",
            FileKind::Other(what) => what,
        }
    }
}

impl FileMeta {
    pub fn kind(&self) -> FileKind {
        match self.mode & 0o170_000 {
            0o100_000 => FileKind::Regular,
            0o120_000 => FileKind::Link,
            0o040_000 => FileKind::Folder,
            0o010_000 => FileKind::Other("named pipe"),
            0o140_000 => FileKind::Other("socket"),
            0o020_000 => FileKind::Other("character device"),
            0o060_000 => FileKind::Other("block device"),
            _ => FileKind::Other("unknown type"),
        }
    }

    /// The mode as Go's `os.Lstat` reports it (`os.FileMode`): the
    /// permissions, the type bits and setuid/setgid/sticky in Go's places.
    pub fn go_mode(&self) -> u32 {
        let mut mode = self.mode & 0o777;
        mode |= match self.kind() {
            FileKind::Folder => GO_DIR,
            FileKind::Link => GO_SYMLINK,
            FileKind::Other("named pipe") => GO_NAMED_PIPE,
            FileKind::Other("socket") => GO_SOCKET,
            FileKind::Other("character device") => GO_DEVICE | GO_CHAR_DEVICE,
            FileKind::Other("block device") => GO_DEVICE,
            _ => 0,
        };
        for (bit, go) in [
            (0o4000, GO_SETUID),
            (0o2000, GO_SETGID),
            (0o1000, GO_STICKY),
        ] {
            if self.mode & bit != 0 {
                mode |= go;
            }
        }
        mode
    }
}

const GO_DIR: u32 = 1 << 31;
const GO_SYMLINK: u32 = 1 << 27;
const GO_DEVICE: u32 = 1 << 26;
const GO_NAMED_PIPE: u32 = 1 << 25;
const GO_SOCKET: u32 = 1 << 24;
const GO_SETUID: u32 = 1 << 23;
const GO_SETGID: u32 = 1 << 22;
const GO_CHAR_DEVICE: u32 = 1 << 21;
const GO_STICKY: u32 = 1 << 20;

/// A Go `os.FileMode` as the daemon prints it in `mode mismatch` (`%v/%d/%#o`):
/// `-rw-r--r--/420/0644`, `Lrwxrwxrwx/134218239/01000000777`.
pub fn go_mode_words(mode: u32) -> String {
    const TYPES: &str = "dalTLDpSugct?";
    let mut text = String::new();
    for (i, c) in TYPES.chars().enumerate() {
        if mode & (1 << (31 - i)) != 0 {
            text.push(c);
        }
    }
    if text.is_empty() {
        text.push('-');
    }
    for (i, c) in "rwxrwxrwx".chars().enumerate() {
        text.push(if mode & (1 << (8 - i)) != 0 { c } else { '-' });
    }
    let octal = if mode == 0 {
        "0".to_string()
    } else {
        format!("0{mode:o}")
    };
    format!("{text}/{mode}/{octal}")
}

/// The files one node holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFiles {
    /// The Node's name.
    pub node: String,
    /// Host path → content, for every [`crate::node_paths::is_content_path`] file present.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Host path → lowercase hex SHA-256, for every [`crate::node_paths::is_cert_path`] file present.
    pub certs: BTreeMap<String, String>,
    /// Host path → what `lstat` says of it, for every path recorded (files,
    /// drop-ins, the folders, certificates); empty when not recorded (a
    /// folder collected before types and modes were).
    pub meta: BTreeMap<String, FileMeta>,
    /// Host path → why it cannot be resolved or read on the host (a link
    /// that dangles or loops, a folder in its way).
    pub unreadable: BTreeMap<String, String>,
}

impl NodeFiles {
    /// A file's content as text, when present and UTF-8.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .get(path)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
    }

    /// The record of `folder` when it is a symbolic link.
    pub fn linked_folder(&self, folder: &str) -> Option<&FileMeta> {
        self.meta
            .get(folder)
            .filter(|meta| meta.kind() == FileKind::Link)
    }

    /// Whether the runtime lists `folder` on this node: it is no link, or a
    /// link the runtime follows ([`follows_folder_link`]).
    pub fn runtime_lists(&self, folder: &str) -> bool {
        follows_folder_link(folder) || self.linked_folder(folder).is_none()
    }

    /// The files of a folder of [`crate::node_paths::FOLDERS`] the runtime reads
    /// ([`runtime_use`]), in name order: none when it does not list the
    /// folder.
    pub fn runtime_children<'a>(
        &'a self,
        folder: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a [u8])> {
        let listed = self.runtime_lists(folder);
        self.children(folder)
            .filter(move |(path, _)| listed && runtime_use(path) == RuntimeUse::Read)
    }

    /// The files present that the runtime never reads, with why, in path
    /// order: names it skips, and every drop-in behind a folder link it
    /// does not follow.
    pub fn ignored(&self) -> Vec<(&str, String)> {
        let paths = self
            .files
            .keys()
            .chain(self.certs.keys())
            .chain(self.unreadable.keys());
        let mut out: Vec<(&str, String)> = Vec::new();
        for path in paths {
            let folder = folder_of(path);
            let why = match (runtime_use(path), folder) {
                (_, Some(folder)) if !self.runtime_lists(folder) => format!(
                    "{folder} is a link, and containers/image reads no drop-in behind a linked folder"
                ),
                (RuntimeUse::Ignored(why), _) => why.to_string(),
                _ => continue,
            };
            out.push((path.as_str(), why));
        }
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The drop-ins present in a folder of [`crate::node_paths::FOLDERS`], in name order.
    pub fn children<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = (&'a str, &'a [u8])> {
        self.files.iter().filter_map(move |(path, bytes)| {
            let name = path.strip_prefix(folder)?.strip_prefix('/')?;
            is_plain_name(name).then_some((path.as_str(), bytes.as_slice()))
        })
    }
}

/// Whether a reason of [`NodeFiles::unreadable`] means the file is absent
/// in the end (a link that dangles): containers/image then takes the file as
/// missing (`os.IsNotExist`), where any other failure is an error.
pub fn is_absent(why: &str) -> bool {
    why.ends_with("no such file or directory") || why.ends_with("(an empty link)")
}

/// Why every pull on the node fails, file by file (host path, why): a file
/// the runtime reads that cannot be resolved or read (other than absent;
/// policy.json absent too), is not UTF-8 (policy.json excepted: Go's
/// encoding/json replaces invalid UTF-8), or does not load as
/// containers/image loads it (registries.conf and its drop-ins together,
/// policy.json, the registries.d YAML files). CRI-O's per-namespace policies
/// break only their namespace's pulls and are not listed. `runtime` is the
/// node's CRI-O: which TOML its registries.conf parser reads.
pub fn pull_breakers(files: &NodeFiles, runtime: &NodeRuntime) -> Vec<Breaker> {
    let mut undetermined: Vec<(String, String, crate::registries::Undetermined)> = Vec::new();
    let mut out = unreadable_breakers(files);
    registries_breakers(files, runtime, &mut out, &mut undetermined);
    let text = |path: &str| -> Option<Result<&str, (String, String)>> {
        let bytes = files.files.get(path)?;
        Some(std::str::from_utf8(bytes).map_err(|_| {
            (
                path.to_string(),
                format!("{path} is not UTF-8 text (a binary file)"),
            )
        }))
    };
    // Go's encoding/json reads bytes: invalid UTF-8 in a string is replaced.
    if let Some(policy) = files.files.get(POLICY_JSON) {
        if let Err(e) = crate::policy::parse_policy_bytes(POLICY_JSON, policy) {
            out.push((POLICY_JSON.to_string(), e.to_string()));
        }
    }
    let yaml: Vec<&str> = files
        .runtime_children(REGISTRIES_D)
        .map(|(p, _)| p)
        .collect();
    for path in yaml {
        match text(path) {
            Some(Ok(text)) => {
                if let Err(e) = serde_saphyr::from_str::<serde_json::Value>(text) {
                    out.push((path.to_string(), format!("parsing {path}: {e}")));
                }
            }
            Some(Err(broken)) => out.push(broken),
            None => {}
        }
    }
    let broken = out.into_iter().map(|(path, why)| Breaker {
        path,
        why,
        undetermined: None,
    });
    let undetermined = undetermined.into_iter().map(|(path, why, reason)| Breaker {
        path,
        why,
        undetermined: Some(reason),
    });
    broken.chain(undetermined).collect()
}

/// A file that breaks every pull on the node, or may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breaker {
    /// The host path.
    pub path: String,
    /// Why, in containers/image's words where it has some.
    pub why: String,
    /// Set when the file breaks every pull only on some CRI-O releases and
    /// the node's is not known, or as a release the tool does not model
    /// reads it: undetermined, not broken.
    pub undetermined: Option<crate::registries::Undetermined>,
}

/// The runtime files that cannot be resolved, other than absent.
fn unreadable_breakers(files: &NodeFiles) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (path, why) in &files.unreadable {
        let read = match folder_of(path) {
            Some(CRIO_POLICIES) => false,
            Some(folder) => files.runtime_lists(folder) && runtime_use(path) == RuntimeUse::Read,
            None => [
                REGISTRIES_CONF,
                POLICY_JSON,
                REGISTRIES_CONF_D,
                REGISTRIES_D,
            ]
            .contains(&path.as_str()),
        };
        if read && (path == POLICY_JSON || !is_absent(why)) {
            out.push((path.clone(), format!("{path} cannot be resolved: {why}")));
        }
    }
    out
}

/// registries.conf and the drop-ins the runtime reads: each on its own,
/// then all together, as containers/image loads them.
fn registries_breakers(
    files: &NodeFiles,
    runtime: &NodeRuntime,
    out: &mut Vec<(String, String)>,
    undetermined: &mut Vec<(String, String, crate::registries::Undetermined)>,
) {
    let text = |path: &str| -> Option<Result<&str, (String, String)>> {
        let bytes = files.files.get(path)?;
        Some(std::str::from_utf8(bytes).map_err(|_| {
            (
                path.to_string(),
                format!("{path} is not UTF-8 text (a binary file)"),
            )
        }))
    };
    let mut registries: Vec<(String, String)> = Vec::new();
    let conf_files = std::iter::once(REGISTRIES_CONF)
        .chain(files.runtime_children(REGISTRIES_CONF_D).map(|(p, _)| p));
    for path in conf_files {
        match text(path) {
            Some(Ok(text)) => registries.push((path.to_string(), text.to_string())),
            Some(Err(broken)) => out.push(broken),
            None => {}
        }
    }
    for (path, conf) in &registries {
        let file = crate::registries::ConfigFile {
            name: path,
            text: conf,
        };
        let loaded = if path == REGISTRIES_CONF {
            crate::registries::load_on(Some(&file), &[], runtime)
        } else {
            crate::registries::load_on(None, std::slice::from_ref(&file), runtime)
        };
        if let Err(e) = loaded {
            match e.undetermined {
                Some(reason) => undetermined.push((path.clone(), e.to_string(), reason)),
                None => out.push((path.clone(), e.to_string())),
            }
        }
    }
    if out.is_empty() && undetermined.is_empty() && !registries.is_empty() {
        let (main, drop_ins) = match registries.split_first() {
            Some((first, rest)) if first.0 == REGISTRIES_CONF => (Some(first), rest),
            _ => (None, &registries[..]),
        };
        let main = main.map(|(name, text)| crate::registries::ConfigFile { name, text });
        let drop_ins: Vec<_> = drop_ins
            .iter()
            .map(|(name, text)| crate::registries::ConfigFile { name, text })
            .collect();
        if let Err(e) = crate::registries::load_on(main.as_ref(), &drop_ins, runtime) {
            match e.undetermined {
                Some(reason) => undetermined.push((e.file.clone(), e.to_string(), reason)),
                None => out.push((e.file.clone(), e.to_string())),
            }
        }
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

    /// Go's `os.FileMode` words as the daemon prints them, for the modes
    /// `lstat` gives (os.FileMode.String, `%d`, `%#o`).
    #[test]
    fn go_mode_words_as_the_daemon_prints_them() {
        for (st_mode, want) in [
            (0o100644, "-rw-r--r--/420/0644"),
            (0o100600, "-rw-------/384/0600"),
            (0o120777, "Lrwxrwxrwx/134218239/01000000777"),
            (0o040755, "drwxr-xr-x/2147484141/020000000755"),
            (0o010644, "prw-r--r--/33554852/0200000644"),
            (0o104755, "urwxr-xr-x/8389101/040000755"),
            (0o100000, "----------/0/0"),
        ] {
            let meta = FileMeta {
                mode: st_mode,
                uid: 0,
                gid: 0,
                target: None,
            };
            assert_eq!(go_mode_words(meta.go_mode()), want, "{st_mode:o}");
        }
        // The MachineConfig's mode is taken as is (os.FileMode(*f.Mode)).
        assert_eq!(go_mode_words(420), "-rw-r--r--/420/0644");
    }

    #[test]
    fn a_linked_drop_in_folder_is_not_read() {
        let mut files = NodeFiles::default();
        for path in [
            "/etc/containers/registries.conf.d/a.conf",
            "/etc/containers/registries.conf.d/b.conf.bak",
            "/etc/containers/registries.d/x.yaml",
        ] {
            files.files.insert(path.to_string(), Vec::new());
        }
        let read: Vec<&str> = files
            .runtime_children(REGISTRIES_CONF_D)
            .map(|(p, _)| p)
            .collect();
        assert_eq!(read, ["/etc/containers/registries.conf.d/a.conf"]);
        assert_eq!(
            files.ignored(),
            [(
                "/etc/containers/registries.conf.d/b.conf.bak",
                "containers/image reads only *.conf files in /etc/containers/registries.conf.d"
                    .to_string()
            )]
        );
        files.meta.insert(
            REGISTRIES_CONF_D.to_string(),
            FileMeta {
                mode: 0o120777,
                uid: 0,
                gid: 0,
                target: Some("/etc/alt".to_string()),
            },
        );
        assert_eq!(files.runtime_children(REGISTRIES_CONF_D).count(), 0);
        assert_eq!(files.runtime_children(REGISTRIES_D).count(), 1);
        let ignored: Vec<&str> = files.ignored().iter().map(|(p, _)| *p).collect();
        assert_eq!(
            ignored,
            [
                "/etc/containers/registries.conf.d/a.conf",
                "/etc/containers/registries.conf.d/b.conf.bak"
            ]
        );
    }

    /// What breaks every pull, and what does not (an empty YAML file, a
    /// dangling drop-in, a file CRI-O never reads).
    #[test]
    fn pull_breakers_as_containers_image_loads() {
        let node = |entries: &[(&str, &[u8])], unreadable: &[(&str, &str)]| {
            let mut files = NodeFiles::default();
            for (path, bytes) in entries {
                files.files.insert(path.to_string(), bytes.to_vec());
            }
            for (path, why) in unreadable {
                files.unreadable.insert(path.to_string(), why.to_string());
            }
            pull_breakers(&files, &NodeRuntime::unknown())
                .into_iter()
                .map(|b| b.path)
                .collect::<Vec<_>>()
        };
        let ok: Vec<String> = Vec::new();
        assert_eq!(
            node(
                &[
                    (
                        REGISTRIES_CONF,
                        b"[[registry]]\nlocation = \"a.example.com\"\n"
                    ),
                    ("/etc/containers/registries.d/empty.yaml", b""),
                    ("/etc/containers/registries.d/comment.yaml", b"# nothing\n"),
                    ("/etc/containers/registries.conf.d/x.conf.bak", &[0xff, 0]),
                    (
                        POLICY_JSON,
                        b"{\"default\":[{\"type\":\"insecureAcceptAnything\"}]}"
                    ),
                ],
                &[(
                    "/etc/containers/registries.conf.d/gone.conf",
                    "/nowhere: no such file or directory"
                )],
            ),
            ok
        );
        assert_eq!(
            node(
                &[
                    ("/etc/containers/registries.conf.d/b.conf", &[0xff, 0]),
                    ("/etc/containers/registries.d/bad.yaml", b"docker: [\n"),
                    (POLICY_JSON, b"{"),
                ],
                &[
                    (REGISTRIES_CONF, "too many levels of symbolic links"),
                    (
                        "/etc/containers/registries.conf.d/dir.conf",
                        "/srv: is a directory"
                    ),
                ],
            ),
            [
                REGISTRIES_CONF,
                "/etc/containers/registries.conf.d/dir.conf",
                "/etc/containers/registries.conf.d/b.conf",
                POLICY_JSON,
                "/etc/containers/registries.d/bad.yaml",
            ]
        );
        // policy.json that dangles fails every pull (it must exist).
        assert_eq!(
            node(&[], &[(POLICY_JSON, "/nowhere: no such file or directory")]),
            [POLICY_JSON]
        );
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
