//! Where a node keeps the files CRI-O and containers/image read, and which
//! names in their folders they read: the one home of both, for every path
//! (a node's files read live or from a collected folder, local files given
//! by flag, the MCO's render).
//!
//! The name rules are containers/image's own, written with Go's
//! `filepath.Ext` semantics: the suffix from the last `.` of the name, so a
//! file named exactly `.conf` has the extension `.conf` and is read (Rust's
//! `Path::extension` says it has none). Reading the files is left to
//! `source/` (a local folder) and `node_files` (a node's record).

/// The main registries configuration (containers/image
/// `builtinRegistriesConfPath`).
pub const REGISTRIES_CONF: &str = "/etc/containers/registries.conf";
/// The registries.conf drop-in folder (`builtinRegistriesConfDirPath`).
pub const REGISTRIES_CONF_D: &str = "/etc/containers/registries.conf.d";
/// The signature-storage configuration folder (docker
/// `builtinRegistriesDirPath`).
pub const REGISTRIES_D: &str = "/etc/containers/registries.d";
/// The cluster-wide signature policy.
pub const POLICY_JSON: &str = "/etc/containers/policy.json";
/// CRI-O's per-namespace signature policies, `<namespace>.json`
/// (`constants.CrioPoliciesDir`).
pub const CRIO_POLICIES: &str = "/etc/crio/policies";
/// The machine-config daemon's record of the config it applied.
pub const CURRENT_CONFIG: &str = "/etc/machine-config-daemon/currentconfig";
/// The machine-written short-name aliases root podman and CRI-O read
/// before registries.conf.
pub const SHORT_NAME_ALIASES: &str = "/var/cache/containers/short-name-aliases.conf";
/// The drop-in the MCO writes for `Image.spec.registrySources.containerRuntimeSearchRegistries`.
pub const SEARCH_REGISTRIES_CONF: &str =
    "/etc/containers/registries.conf.d/01-image-searchRegistries.conf";
/// The registries.d file the MCO writes for sigstore attachments.
pub const SIGSTORE_REGISTRIES_D: &str = "/etc/containers/registries.d/sigstore-registries.yaml";

/// Single files a node's runtime reads (and the daemon's record).
pub const FILES: &[&str] = &[REGISTRIES_CONF, POLICY_JSON, CURRENT_CONFIG];

/// Folders whose direct children the runtime reads.
pub const FOLDERS: &[&str] = &[REGISTRIES_CONF_D, REGISTRIES_D, CRIO_POLICIES];

/// Folders of per-registry certificate folders (`<dir>/<host[:port]>/<file>`).
pub const CERT_FOLDERS: &[&str] = &["/etc/docker/certs.d", "/etc/containers/certs.d"];

/// CRI-O's policy of `namespace` (`<namespace>.json` in [`CRIO_POLICIES`],
/// as CRI-O's `contextForNamespace` joins it).
pub fn crio_policy_path(namespace: &str) -> String {
    format!("{CRIO_POLICIES}/{namespace}.json")
}

/// The namespace whose CRI-O policy `path` is ([`crio_policy_path`]).
pub fn crio_policy_namespace(path: &str) -> Option<&str> {
    path.strip_prefix(CRIO_POLICIES)?
        .strip_prefix('/')?
        .strip_suffix(".json")
        .filter(|ns| is_plain_name(ns))
}

/// Go's `filepath.Ext`: the suffix of `path` from the last `.` of its last
/// element, empty when that element has none (`.conf` for `.conf`).
pub fn go_ext(path: &str) -> &str {
    for (i, c) in path.char_indices().rev() {
        match c {
            '/' => break,
            '.' => return &path[i..],
            _ => {}
        }
    }
    ""
}

/// A folder of [`FOLDERS`], with the rule its reader lists it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropInFolder {
    /// registries.conf.d: pkg/sysregistriesv2 `dropInConfigs` walks it with
    /// `filepath.WalkDir` (names in byte order; the folder itself not
    /// followed when a link; sub-folders skipped; every other entry whose
    /// path ends in `.conf`, links and hidden names included).
    RegistriesConfD,
    /// registries.d: docker `loadAndMergeConfig` opens it with `os.Open`
    /// (a link followed) and reads every name ending in `.yaml`, in
    /// directory order (a folder so named fails the read).
    RegistriesD,
    /// /etc/crio/policies: CRI-O opens `<namespace>.json`.
    CrioPolicies,
}

impl DropInFolder {
    /// The folder of [`FOLDERS`] at `path`.
    pub fn at(path: &str) -> Option<Self> {
        match path {
            REGISTRIES_CONF_D => Some(Self::RegistriesConfD),
            REGISTRIES_D => Some(Self::RegistriesD),
            CRIO_POLICIES => Some(Self::CrioPolicies),
            _ => None,
        }
    }

    /// Its path on a node.
    pub fn path(self) -> &'static str {
        match self {
            Self::RegistriesConfD => REGISTRIES_CONF_D,
            Self::RegistriesD => REGISTRIES_D,
            Self::CrioPolicies => CRIO_POLICIES,
        }
    }

    /// The extension (Go's `filepath.Ext`) of the names it reads.
    pub fn extension(self) -> &'static str {
        match self {
            Self::RegistriesConfD => ".conf",
            Self::RegistriesD => ".yaml",
            Self::CrioPolicies => ".json",
        }
    }

    /// Whether the reader reads an entry named `name` (a sub-folder aside:
    /// [`DropInFolder::skips_folders`]). Go's `strings.HasSuffix(name, ext)`
    /// upstream, which for these one-dot extensions is `filepath.Ext(name) == ext`.
    pub fn reads_name(self, name: &str) -> bool {
        go_ext(name) == self.extension()
    }

    /// Whether a sub-folder is skipped whatever its name (`filepath.SkipDir`
    /// in registries.conf.d); elsewhere a folder with a read name fails the
    /// read.
    pub fn skips_folders(self) -> bool {
        self == Self::RegistriesConfD
    }

    /// Whether the reader lists the folder through a symbolic link. Go's
    /// `filepath.WalkDir` `lstat`s registries.conf.d itself: a link there is
    /// a file, not a folder, and no drop-in behind it is read. registries.d
    /// (`os.Open`) and the CRI-O policies are opened through links.
    pub fn follows_link(self) -> bool {
        self != Self::RegistriesConfD
    }

    /// Why an entry of this folder is not read, in words.
    pub fn skipped_why(self) -> &'static str {
        match self {
            Self::RegistriesConfD => {
                "containers/image reads only *.conf files in /etc/containers/registries.conf.d"
            }
            Self::RegistriesD => {
                "containers/image reads only *.yaml files in /etc/containers/registries.d"
            }
            Self::CrioPolicies => "CRI-O reads only <namespace>.json files in /etc/crio/policies",
        }
    }
}

/// Whether `path` (an absolute host path) is a file whose content is read:
/// one of [`FILES`] or a direct child of one of [`FOLDERS`].
pub fn is_content_path(path: &str) -> bool {
    FILES.contains(&path) || folder_of(path).is_some()
}

/// The folder of [`FOLDERS`] `path` is a direct child of.
pub fn folder_of(path: &str) -> Option<&'static str> {
    FOLDERS.iter().copied().find(|dir| {
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

/// Whether a node's record may name `path`: a content path, one of
/// [`FOLDERS`] or a certificate path.
pub fn is_recorded_path(path: &str) -> bool {
    is_content_path(path) || FOLDERS.contains(&path) || is_cert_path(path)
}

/// One path component: not empty, not `.`/`..`, no separator or NUL.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// How the runtime treats a host path of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeUse {
    /// CRI-O (through containers/image) reads it.
    Read,
    /// It sits in a folder the runtime reads, but the runtime never opens
    /// it: why.
    Ignored(&'static str),
    /// Not a runtime file (the daemon's own record).
    Daemon,
}

/// The one list of what containers/image and CRI-O read, as upstream reads
/// it: registries.conf; `*.conf` in registries.conf.d (pkg/sysregistriesv2
/// `dropInConfigs`); `*.yaml` in registries.d (docker `loadAndMergeConfig`);
/// policy.json; `<namespace>.json` in /etc/crio/policies; `*.crt`, `*.cert`
/// and `*.key` in a certs.d host folder (pkg/tlsclientconfig
/// `SetupCertificates`).
pub fn runtime_use(path: &str) -> RuntimeUse {
    if path == REGISTRIES_CONF || path == POLICY_JSON {
        return RuntimeUse::Read;
    }
    if path == CURRENT_CONFIG {
        return RuntimeUse::Daemon;
    }
    if let Some(folder) = folder_of(path).and_then(DropInFolder::at) {
        return if folder.reads_name(path) {
            RuntimeUse::Read
        } else {
            RuntimeUse::Ignored(folder.skipped_why())
        };
    }
    if !is_cert_path(path) {
        return RuntimeUse::Ignored("not a file CRI-O reads");
    }
    if [".crt", ".cert", ".key"].contains(&go_ext(path)) {
        RuntimeUse::Read
    } else {
        RuntimeUse::Ignored(
            "containers/image reads only *.crt, *.cert and *.key files in a certs.d folder",
        )
    }
}

/// Whether the runtime lists `folder` (one of [`FOLDERS`] or a certs.d
/// folder) through a symbolic link ([`DropInFolder::follows_link`]).
pub fn follows_folder_link(folder: &str) -> bool {
    DropInFolder::at(folder).is_none_or(DropInFolder::follows_link)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `path/filepath` `TestExt` rows, and the names a drop-in folder
    /// holds.
    #[test]
    fn go_ext_as_filepath_ext() {
        for (path, want) in [
            ("path.go", ".go"),
            ("path.pb.go", ".go"),
            ("a.dir/b", ""),
            ("a.dir/b.go", ".go"),
            ("a.dir/", ""),
            (".conf", ".conf"),
            ("/etc/containers/registries.conf.d/.conf", ".conf"),
            ("..conf", ".conf"),
            ("x.conf.", "."),
            ("conf", ""),
            ("x.CONF", ".CONF"),
            ("x.yml", ".yml"),
            ("é.conf", ".conf"),
        ] {
            assert_eq!(go_ext(path), want, "{path}");
        }
    }

    /// sysregistriesv2 `dropInConfigs` (`strings.HasSuffix(path, ".conf")`)
    /// and docker `loadAndMergeConfig` (`strings.HasSuffix(name, ".yaml")`).
    #[test]
    fn drop_in_names_as_upstream_reads_them() {
        use DropInFolder::*;
        for (folder, name, read) in [
            (RegistriesConfD, "99-x.conf", true),
            (RegistriesConfD, ".conf", true),
            (RegistriesConfD, ".hidden.conf", true),
            (RegistriesConfD, "x.conf.bak", false),
            (RegistriesConfD, "x.CONF", false),
            (RegistriesConfD, "conf", false),
            (RegistriesConfD, "config-3.ignore", false),
            (RegistriesD, "x.yaml", true),
            (RegistriesD, ".yaml", true),
            (RegistriesD, "x.yml", false),
            (RegistriesD, "x.YAML", false),
            (CrioPolicies, "ns.json", true),
            (CrioPolicies, "ns.yaml", false),
        ] {
            assert_eq!(folder.reads_name(name), read, "{folder:?} {name}");
            let path = format!("{}/{name}", folder.path());
            let want = if read {
                RuntimeUse::Read
            } else {
                RuntimeUse::Ignored(folder.skipped_why())
            };
            assert_eq!(runtime_use(&path), want, "{path}");
        }
    }

    #[test]
    fn crio_policy_paths() {
        assert_eq!(crio_policy_path("team-a"), "/etc/crio/policies/team-a.json");
        for (path, want) in [
            ("/etc/crio/policies/team-a.json", Some("team-a")),
            ("/etc/crio/policies/team-a.yaml", None),
            ("/etc/crio/policies/sub/team-a.json", None),
            ("/etc/crio/policiesx/team-a.json", None),
            ("/etc/containers/policy.json", None),
        ] {
            assert_eq!(crio_policy_namespace(path), want, "{path}");
        }
    }

    #[test]
    fn folder_links_and_sub_folders() {
        assert!(!follows_folder_link(REGISTRIES_CONF_D));
        assert!(follows_folder_link(REGISTRIES_D));
        assert!(follows_folder_link(CRIO_POLICIES));
        assert!(follows_folder_link("/etc/docker/certs.d"));
        assert!(DropInFolder::RegistriesConfD.skips_folders());
        assert!(!DropInFolder::RegistriesD.skips_folders());
    }

    #[test]
    fn runtime_use_of_node_paths() {
        for (path, want) in [
            (REGISTRIES_CONF, RuntimeUse::Read),
            (POLICY_JSON, RuntimeUse::Read),
            (CURRENT_CONFIG, RuntimeUse::Daemon),
            (SEARCH_REGISTRIES_CONF, RuntimeUse::Read),
            (SIGSTORE_REGISTRIES_D, RuntimeUse::Read),
            ("/etc/containers/certs.d/q:5000/ca.crt", RuntimeUse::Read),
            ("/etc/docker/certs.d/q/client.key", RuntimeUse::Read),
            (
                "/etc/docker/certs.d/q/README",
                RuntimeUse::Ignored(
                    "containers/image reads only *.crt, *.cert and *.key files in a certs.d folder",
                ),
            ),
            (
                "/etc/containers/registries.conf.d/sub/y.conf",
                RuntimeUse::Ignored("not a file CRI-O reads"),
            ),
        ] {
            assert_eq!(runtime_use(path), want, "{path}");
        }
    }

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
    fn what_the_runtime_reads() {
        for (path, want) in [
            ("/etc/containers/registries.conf", true),
            ("/etc/containers/policy.json", true),
            ("/etc/containers/registries.conf.d/99-x.conf", true),
            ("/etc/containers/registries.conf.d/.conf", true),
            ("/etc/containers/registries.conf.d/99-x.conf.bak", false),
            ("/etc/containers/registries.conf.d/99-x.toml", false),
            ("/etc/containers/registries.d/sigstore.yaml", true),
            ("/etc/containers/registries.d/sigstore.yml", false),
            ("/etc/containers/registries.d/notes.txt", false),
            ("/etc/crio/policies/team-a.json", true),
            ("/etc/crio/policies/team-a.json.orig", false),
            ("/etc/docker/certs.d/m:5000/ca.crt", true),
            ("/etc/docker/certs.d/m:5000/client.cert", true),
            ("/etc/docker/certs.d/m:5000/client.key", true),
            ("/etc/docker/certs.d/m:5000/ca.pem", false),
        ] {
            assert_eq!(runtime_use(path) == RuntimeUse::Read, want, "{path}");
        }
        assert_eq!(runtime_use(CURRENT_CONFIG), RuntimeUse::Daemon);
    }
}
