//! Which CRI-O a node runs, as far as the tool knows, and what that changes
//! in how the node reads its files.
//!
//! containers/image decodes registries.conf with BurntSushi/toml, which
//! reads TOML 1.0 up to v1.5.0 and TOML 1.1 from v1.6.0 ("Enable TOML 1.1
//! by default"), vendored from CRI-O 1.35 (OpenShift 4.22). OpenShift 4.x
//! ships CRI-O 1.(x+13): 4.21 runs CRI-O 1.34, 4.22 runs CRI-O 1.35.

use crate::objects::ClusterVersion;
use crate::registries::ShortNameMode;

/// Who resolves short names over a set of files: what decides their
/// short-name mode ([`effective_short_name_mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShortNameResolver {
    /// containers/image on its own, as podman and skopeo run it (files
    /// given without a CRI-O release): the files' `short-name-mode`.
    ContainersImage,
    /// CRI-O of this 1.x minor.
    Crio(u32),
    /// A CRI-O whose release is not known: taken as the newest.
    CrioUnknown,
}

impl ShortNameResolver {
    /// The CRI-O of a node: its minor when known, else the newest it may
    /// run (as a cluster is taken at its desired release), else unknown.
    pub fn of_node(runtime: &NodeRuntime) -> Self {
        match (runtime.crio_minor, runtime.possible.iter().max()) {
            (Some(minor), _) | (None, Some(&minor)) => Self::Crio(minor),
            (None, None) => Self::CrioUnknown,
        }
    }

    /// Files given on their own: the node's CRI-O when one was named
    /// (`--crio-version`), else containers/image alone.
    pub fn of_files(runtime: Option<&NodeRuntime>) -> Self {
        runtime.map_or(Self::ContainersImage, Self::of_node)
    }

    /// The nodes of a cluster: the CRI-O of its ClusterVersion's release,
    /// unknown without one.
    pub fn of_cluster(cluster_version: Option<&ClusterVersion>) -> Self {
        Self::of_openshift(cluster_version.and_then(ClusterVersion::openshift_minor))
    }

    fn of_openshift(openshift_minor: Option<u32>) -> Self {
        openshift_minor.map_or(Self::CrioUnknown, |m| Self::Crio(m + OPENSHIFT_TO_CRIO))
    }
}

/// The first CRI-O minor that resolves short names in crio.conf's
/// `short_name_mode` (default `enforcing`) instead of always `disabled`.
pub const SHORT_NAMES_ENFORCED_FROM: u32 = 34;

/// The first CRI-O minor whose OpenShift release has the MCO write
/// `short_name_mode = "disabled"` into crio.conf (machine-config-operator
/// `templates/*/01-*-container-runtime/_base/files/crio.yaml`, on
/// release-4.22 and later; "crio: disable short_name_mode until we
/// introduce ctrcfg api for it"): OpenShift 4.22, CRI-O 1.35. The same
/// change reached release-4.21 in February 2026, in a 4.21 z-stream the
/// tool cannot name, so 4.21 is taken as released (CRI-O's `enforcing`).
pub const MCO_DISABLES_SHORT_NAMES_FROM: u32 = 35;

/// The short-name mode a pull resolves with: the one rule for every path
/// (node files, `--registries-conf`, `-f`, the live cluster, audit,
/// upgrade-check). `--short-name-mode` (`flag`) wins. A CRI-O sets
/// containers/image's `SystemContext.ShortNameMode`, which wins over the
/// files' `short-name-mode` (sysregistriesv2 `GetShortNameMode`), so the
/// files' own setting never counts on a node: CRI-O 1.21 to 1.33 set
/// `disabled` in `CandidatesForPotentiallyShortImageName`, and CRI-O 1.20
/// tried every search registry in order on its own, as `disabled` does;
/// from 1.34 crio.conf's `short_name_mode` decides, `enforcing` unless
/// `disabled` (pkg/config `SetSystemContext`); the crio.conf a node runs is
/// not read: the MCO's sets `disabled` from OpenShift 4.22 (CRI-O 1.35,
/// [`MCO_DISABLES_SHORT_NAMES_FROM`]), and CRI-O 1.34 is taken with its
/// default. An unknown CRI-O is taken as one that enforces (CRI-O's own
/// default: whether an MCO wrote its crio.conf is not known). containers/image alone reads `files`, else its
/// `defaultShortNameMode`, permissive (which, with no terminal to ask at,
/// tries every candidate as disabled does).
pub fn effective_short_name_mode(
    flag: Option<ShortNameMode>,
    files: Option<ShortNameMode>,
    resolver: ShortNameResolver,
) -> ShortNameMode {
    if let Some(mode) = flag {
        return mode;
    }
    match resolver {
        ShortNameResolver::ContainersImage => files.unwrap_or(ShortNameMode::Permissive),
        ShortNameResolver::Crio(minor)
            if !(SHORT_NAMES_ENFORCED_FROM..MCO_DISABLES_SHORT_NAMES_FROM).contains(&minor) =>
        {
            ShortNameMode::Disabled
        }
        ShortNameResolver::Crio(_) | ShortNameResolver::CrioUnknown => ShortNameMode::Enforcing,
    }
}

/// CRI-O's short-name mode on a cluster's nodes, without a flag:
/// [`effective_short_name_mode`] of [`ShortNameResolver::of_cluster`].
pub fn short_name_mode(cluster_version: Option<&ClusterVersion>) -> ShortNameMode {
    effective_short_name_mode(None, None, ShortNameResolver::of_cluster(cluster_version))
}

/// While the cluster updates from a release whose CRI-O resolves short
/// names one way to one that resolves them another (4.20 to 4.21: disabled
/// to enforcing), a node runs the older mode until its pool is updated:
/// `(older mode, its release, target mode, target release)`; `None` when
/// no such update is in progress.
pub fn short_name_modes_during_update(
    cv: &ClusterVersion,
) -> Option<(ShortNameMode, String, ShortNameMode, String)> {
    let (from, to) = update_in_progress(cv)?;
    let from_minor = crate::objects::cluster::openshift_minor_of(from);
    let older = effective_short_name_mode(None, None, ShortNameResolver::of_openshift(from_minor));
    let newer = short_name_mode(Some(cv));
    (from_minor.is_some() && older != newer)
        .then(|| (older, from.to_string(), newer, to.to_string()))
}

/// The update in progress, `(last completed version, target version)`:
/// the newest `status.history` entry is `Partial` (the CVO lists the newest
/// first) and an older one `Completed`.
fn update_in_progress(cv: &ClusterVersion) -> Option<(&str, &str)> {
    let newest = cv.status.history.first()?;
    if newest.state != "Partial" {
        return None;
    }
    let from = cv
        .status
        .history
        .iter()
        .skip(1)
        .find(|h| h.state == "Completed")
        .map_or("", |h| h.version.as_str());
    Some((from, cv.version()?))
}

/// The registries.conf reader of a CRI-O release: the BurntSushi/toml
/// release its 1.x minor vendors (the release branch's `go.mod`), which
/// containers/image decodes registries.conf with. Every difference in how
/// a node reads the file follows from it, through its methods: the TOML
/// 0.4 model (v0.3.1), v0.4.1's bare carriage return, the byte order mark
/// (skipped from v1.3.0), TOML 1.1 (v1.6.0), and the table bookkeeping of
/// each release family (`registries::burntsushi`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TomlReader {
    /// TOML 0.4, CRI-O 1.21 and earlier.
    V0_3_1,
    /// CRI-O 1.22 and 1.23.
    V0_4_1,
    /// CRI-O 1.24.
    V1_1_0,
    /// CRI-O 1.25 to 1.27.
    V1_2_1,
    /// CRI-O 1.28 to 1.30.
    V1_3_2,
    /// CRI-O 1.31 and 1.32.
    V1_4_0,
    /// CRI-O 1.33 and 1.34.
    V1_5_0,
    /// TOML 1.1 by default, CRI-O 1.35 and later.
    V1_6_0,
}

impl TomlReader {
    /// Every reader, oldest first.
    pub const ALL: [Self; 8] = [
        Self::V0_3_1,
        Self::V0_4_1,
        Self::V1_1_0,
        Self::V1_2_1,
        Self::V1_3_2,
        Self::V1_4_0,
        Self::V1_5_0,
        Self::V1_6_0,
    ];

    /// The reader a CRI-O 1.x minor vendors.
    pub const fn of_crio(minor: u32) -> Self {
        match minor {
            ..=21 => Self::V0_3_1,
            22..=23 => Self::V0_4_1,
            24 => Self::V1_1_0,
            25..=27 => Self::V1_2_1,
            28..=30 => Self::V1_3_2,
            31..=32 => Self::V1_4_0,
            33..=34 => Self::V1_5_0,
            _ => Self::V1_6_0,
        }
    }

    /// The first CRI-O 1.x minor that vendors it (0: every earlier one).
    pub const fn first_crio(self) -> u32 {
        match self {
            Self::V0_3_1 => 0,
            Self::V0_4_1 => 22,
            Self::V1_1_0 => 24,
            Self::V1_2_1 => 25,
            Self::V1_3_2 => 28,
            Self::V1_4_0 => 31,
            Self::V1_5_0 => 33,
            Self::V1_6_0 => 35,
        }
    }

    /// The release's tag, `v1.2.1`.
    pub fn release(self) -> &'static str {
        match self {
            Self::V0_3_1 => "v0.3.1",
            Self::V0_4_1 => "v0.4.1",
            Self::V1_1_0 => "v1.1.0",
            Self::V1_2_1 => "v1.2.1",
            Self::V1_3_2 => "v1.3.2",
            Self::V1_4_0 => "v1.4.0",
            Self::V1_5_0 => "v1.5.0",
            Self::V1_6_0 => "v1.6.0",
        }
    }

    /// Whether it reads TOML 1.1 (else TOML 1.0, or 0.4 for v0.3.1).
    pub fn reads_toml_1_1(self) -> bool {
        self >= Self::V1_6_0
    }

    /// Whether it skips a leading UTF-8 byte order mark (v1.3.0 and later);
    /// v0.4.1 to v1.2.1 stop at it.
    pub fn skips_byte_order_mark(self) -> bool {
        self >= Self::V1_3_2
    }
}

/// CRI-O's minor version is OpenShift's plus this (OpenShift 4.22, CRI-O 1.35).
const OPENSHIFT_TO_CRIO: u32 = 13;

/// The node's CRI-O, when known, and how it was learned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeRuntime {
    /// The CRI-O 1.x minor version (`35` for CRI-O 1.35.1); `None` when unknown.
    pub crio_minor: Option<u32>,
    /// Where the version comes from, in words; when unknown, why (or
    /// empty).
    pub basis: String,
    /// When the version is unknown: the CRI-O minors the node may run,
    /// oldest first; empty when it may run any.
    pub possible: Vec<u32>,
}

impl NodeRuntime {
    /// A node whose CRI-O version is unknown: its files are read as every
    /// CRI-O release reads them (undetermined where they disagree).
    pub fn unknown() -> Self {
        Self::default()
    }

    /// From a Node's `status.nodeInfo.containerRuntimeVersion`
    /// (`cri-o://1.35.1-3.rhaos4.22.el9`); `None` when it names no CRI-O
    /// version.
    pub fn from_node(runtime_version: &str) -> Option<Self> {
        let version = runtime_version.strip_prefix("cri-o://")?;
        let minor = crio_minor(version)?;
        Some(Self {
            crio_minor: Some(minor),
            basis: format!(
                "the node runs CRI-O {} (its Node's status.nodeInfo.containerRuntimeVersion)",
                version_part(version)
            ),
            possible: Vec::new(),
        })
    }

    /// From the cluster's OpenShift release (the ClusterVersion's
    /// `status.desired.version`), when the node's own is not known.
    pub fn from_release(openshift_minor: u32, version: &str) -> Self {
        let minor = openshift_minor + OPENSHIFT_TO_CRIO;
        Self {
            crio_minor: Some(minor),
            basis: format!("ClusterVersion/version is {version}, whose nodes run CRI-O 1.{minor}"),
            possible: Vec::new(),
        }
    }

    /// From `--crio-version` (`1.35` or `1.35.1`).
    pub fn from_flag(value: &str) -> Result<Self, String> {
        let minor = crio_minor(value).ok_or_else(|| {
            format!("--crio-version {value:?}: expected a CRI-O version such as 1.35 or 1.34.2")
        })?;
        Ok(Self {
            crio_minor: Some(minor),
            basis: format!("--crio-version {}", version_part(value)),
            possible: Vec::new(),
        })
    }

    /// The node's registries.conf reader, when its CRI-O is known.
    pub fn toml_reader(&self) -> Option<TomlReader> {
        self.crio_minor.map(TomlReader::of_crio)
    }

    /// Whether the node's registries.conf parser reads TOML 1.1.
    pub fn reads_toml_1_1(&self) -> bool {
        self.toml_reader().is_some_and(TomlReader::reads_toml_1_1)
    }

    /// Why TOML 1.0 is the grammar the node reads, for an error about a
    /// TOML 1.1 construct: the CRI-O and the parser it vendors. (A node
    /// whose CRI-O is unknown has its files read as every release reads
    /// them, and no such error.)
    pub fn toml_1_0_basis(&self) -> String {
        match self.crio_minor {
            Some(minor) => format!(
                "{}, whose registries.conf parser is BurntSushi/toml {}",
                self.basis,
                TomlReader::of_crio(minor).release()
            ),
            None => self.basis.clone(),
        }
    }
}

/// The CRI-O of node `name`: its Node's `containerRuntimeVersion` when one
/// of `nodes` names a CRI-O version, else the releases its nodes may run by
/// the ClusterVersion and the pools ([`of_cluster`]), else unknown.
pub fn of_node(
    name: &str,
    nodes: &[crate::objects::Node],
    cluster_version: Option<&crate::objects::ClusterVersion>,
    pools: &[crate::objects::MachineConfigPool],
) -> NodeRuntime {
    let own = nodes
        .iter()
        .filter(|n| n.metadata.name == name)
        .find_map(|n| NodeRuntime::from_node(&n.status.node_info.container_runtime_version));
    own.or_else(|| cluster_version.map(|cv| of_cluster(cv, pools)))
        .unwrap_or_default()
}

/// The CRI-O a node of the cluster runs, by its ClusterVersion and its
/// MachineConfigPools: the desired release's once the newest update has
/// completed and every pool given is updated. A node runs the CRI-O of
/// the release its pool was last updated to, so while an update is in
/// progress (the newest `status.history` entry is `Partial`) it may run the
/// last completed release's, and in a pool not updated (paused, as in an
/// EUS-to-EUS update, or still rolling) that of any earlier completed
/// release. Known only when those releases ship the same CRI-O minor; else
/// unknown, with the minors it may be.
pub fn of_cluster(
    cv: &crate::objects::ClusterVersion,
    pools: &[crate::objects::MachineConfigPool],
) -> NodeRuntime {
    let Some((minor, version)) = cv.openshift_minor().zip(cv.version()) else {
        return NodeRuntime::unknown();
    };
    let target = NodeRuntime::from_release(minor, version);
    let lagging: Vec<&str> = pools
        .iter()
        .filter(|p| !pool_updated(p))
        .map(|p| p.metadata.name.as_str())
        .collect();
    let updating = update_in_progress(cv);
    let mut earlier: Vec<&str> = match (&updating, lagging.is_empty()) {
        (_, false) => cv
            .status
            .history
            .iter()
            .filter(|h| h.state == "Completed")
            .map(|h| h.version.as_str())
            .collect(),
        (Some((from, _)), true) => vec![*from],
        (None, true) => Vec::new(),
    };
    earlier.retain(|v| *v != version);
    let mut minors: Vec<Option<u32>> = earlier
        .iter()
        .map(|v| crate::objects::cluster::openshift_minor_of(v).map(|m| m + OPENSHIFT_TO_CRIO))
        .collect();
    minors.push(Some(minor + OPENSHIFT_TO_CRIO));
    minors.sort_unstable();
    minors.dedup();
    if minors.len() == 1 {
        return target;
    }
    let why = match (&updating, lagging.is_empty()) {
        (_, false) => format!(
            "{} not updated: its nodes may still run the CRI-O of an earlier release",
            lagging
                .iter()
                .map(|p| format!("MachineConfigPool/{p}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "each node runs the older CRI-O until its pool is updated".to_string(),
    };
    let from = match &updating {
        Some((from, _)) if !from.is_empty() => {
            let crio = crate::objects::cluster::openshift_minor_of(from)
                .map_or(String::new(), |m| format!(" ({})", crio_of_release(m)));
            format!("updating from {from}{crio} to")
        }
        Some(_) => "updating from an unrecorded release to".to_string(),
        None => "at".to_string(),
    };
    NodeRuntime {
        crio_minor: None,
        basis: format!(
            "ClusterVersion/version is {from} {version} ({}): {why}, and this node's own version \
             (its Node's status.nodeInfo.containerRuntimeVersion) is not known",
            crio_of_release(minor)
        ),
        // An unknown earlier release may be anything.
        possible: if minors.contains(&None) {
            Vec::new()
        } else {
            minors.into_iter().flatten().collect()
        },
    }
}

/// Whether every machine of the pool runs its current configuration: no
/// machine left to update, and the `Updated` condition true where the pool
/// has one.
fn pool_updated(pool: &crate::objects::MachineConfigPool) -> bool {
    let updated = pool.condition("Updated").is_none_or(|c| c.status == "True");
    updated && pool.status.updated_machine_count >= pool.status.machine_count
}

/// `CRI-O 1.34`, the CRI-O of OpenShift 4.`openshift_minor`.
fn crio_of_release(openshift_minor: u32) -> String {
    format!("CRI-O 1.{}", openshift_minor + OPENSHIFT_TO_CRIO)
}

/// The version without its build suffix (`1.35.1` of `1.35.1-3.rhaos4.22.el9`).
fn version_part(version: &str) -> &str {
    version.split(['-', '+']).next().unwrap_or(version)
}

/// The 1.x minor of a CRI-O version `1.x[.y][-build]`.
fn crio_minor(version: &str) -> Option<u32> {
    let mut parts = version_part(version).trim().split('.');
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next()?.parse().ok()?;
    if let Some(patch) = parts.next() {
        patch.parse::<u32>().ok()?;
    }
    (major == 1 && parts.next().is_none()).then_some(minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one rule, over every resolver: the flag wins; a CRI-O ignores
    /// the files' mode (cri-o `CandidatesForPotentiallyShortImageName` to
    /// 1.33, pkg/config `SetSystemContext` from 1.34); containers/image
    /// alone reads it (sysregistriesv2 `GetShortNameMode`,
    /// `defaultShortNameMode`).
    #[test]
    fn effective_short_name_mode_table() {
        use ShortNameMode::{Disabled, Enforcing, Permissive};
        use ShortNameResolver::{ContainersImage, Crio, CrioUnknown};
        for (flag, files, resolver, want) in [
            (Some(Disabled), Some(Enforcing), Crio(34), Disabled),
            (Some(Enforcing), None, ContainersImage, Enforcing),
            (None, Some(Permissive), Crio(34), Enforcing),
            (None, Some(Enforcing), Crio(34), Enforcing),
            // OpenShift 4.22's MCO writes crio.conf with short_name_mode = "disabled".
            (None, None, Crio(35), Disabled),
            (None, Some(Enforcing), Crio(33), Disabled),
            (None, Some(Permissive), Crio(21), Disabled),
            (None, None, Crio(20), Disabled),
            (None, Some(Disabled), CrioUnknown, Enforcing),
            (None, Some(Disabled), ContainersImage, Disabled),
            (None, Some(Enforcing), ContainersImage, Enforcing),
            (None, None, ContainersImage, Permissive),
        ] {
            assert_eq!(
                effective_short_name_mode(flag, files, resolver),
                want,
                "{flag:?} {files:?} {resolver:?}"
            );
        }
    }

    #[test]
    fn resolvers_of_nodes_files_and_clusters() {
        let known = NodeRuntime::from_flag("1.34.2").unwrap();
        assert_eq!(
            ShortNameResolver::of_node(&known),
            ShortNameResolver::Crio(34)
        );
        assert_eq!(
            ShortNameResolver::of_files(Some(&known)),
            ShortNameResolver::Crio(34)
        );
        assert_eq!(
            ShortNameResolver::of_files(None),
            ShortNameResolver::ContainersImage
        );
        let unknown = NodeRuntime::unknown();
        assert_eq!(
            ShortNameResolver::of_node(&unknown),
            ShortNameResolver::CrioUnknown
        );
        let either = NodeRuntime {
            possible: vec![33, 34],
            ..NodeRuntime::unknown()
        };
        assert_eq!(
            ShortNameResolver::of_node(&either),
            ShortNameResolver::Crio(34)
        );
        assert_eq!(
            ShortNameResolver::of_cluster(None),
            ShortNameResolver::CrioUnknown
        );
    }

    // CRI-O 1.34 (OpenShift 4.21) enforces short names; an unknown release
    // is taken as the newest.
    #[test]
    fn short_name_mode_by_release() {
        for (version, want) in [
            (Some("4.20.3"), ShortNameMode::Disabled),
            (Some("4.13.0"), ShortNameMode::Disabled),
            (Some("4.21.0"), ShortNameMode::Enforcing),
            // The MCO's crio.conf sets short_name_mode = "disabled" from 4.22.
            (Some("4.22.1"), ShortNameMode::Disabled),
            (Some("4.23.0"), ShortNameMode::Disabled),
            (None, ShortNameMode::Enforcing),
        ] {
            let cv: Option<ClusterVersion> = version.map(|v| {
                serde_json::from_value(serde_json::json!({
                    "apiVersion": "config.openshift.io/v1",
                    "kind": "ClusterVersion",
                    "metadata": {"name": "version"},
                    "status": {"desired": {"version": v, "image": "quay.io/x/y@sha256:0"}}
                }))
                .expect("cluster version")
            });
            assert_eq!(short_name_mode(cv.as_ref()), want, "{version:?}");
        }
    }

    #[test]
    fn node_runtime_versions() {
        let cases = [
            ("cri-o://1.35.1-3.rhaos4.22.el9", Some(35), true),
            ("cri-o://1.34.2-2.rhaos4.21.gitabc.el9", Some(34), false),
            ("cri-o://1.27.0", Some(27), false),
            ("containerd://1.7.0", None, false),
            ("cri-o://", None, false),
            ("cri-o://2.0.0", None, false),
            ("cri-o://1.x", None, false),
        ];
        for (value, minor, toml11) in cases {
            let got = NodeRuntime::from_node(value);
            assert_eq!(got.as_ref().and_then(|r| r.crio_minor), minor, "{value}");
            assert_eq!(got.is_some_and(|r| r.reads_toml_1_1()), toml11, "{value}");
        }
    }

    #[test]
    fn releases_map_to_crio() {
        assert!(!NodeRuntime::from_release(21, "4.21.3").reads_toml_1_1());
        assert!(NodeRuntime::from_release(22, "4.22.0").reads_toml_1_1());
        assert!(NodeRuntime::from_release(22, "4.22.0")
            .basis
            .contains("CRI-O 1.35"));
        assert!(!NodeRuntime::unknown().reads_toml_1_1());
        assert_eq!(NodeRuntime::unknown().crio_minor, None);
    }

    fn cluster_version(desired: &str, history: &[(&str, &str)]) -> ClusterVersion {
        let history: Vec<_> = history
            .iter()
            .map(|(state, version)| serde_json::json!({"state": state, "version": version}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "apiVersion": "config.openshift.io/v1",
            "kind": "ClusterVersion",
            "metadata": {"name": "version"},
            "status": {"desired": {"version": desired, "image": "quay.io/x/y@sha256:0"},
                       "history": history}
        }))
        .expect("cluster version")
    }

    // The CVO lists the newest update first; `Partial` while it is under way.
    #[test]
    fn cluster_runtime_during_an_update() {
        for (desired, history, want) in [
            ("4.22.1", vec![], Some(35)),
            (
                "4.22.1",
                vec![("Completed", "4.22.1"), ("Completed", "4.21.4")],
                Some(35),
            ),
            (
                "4.22.1",
                vec![("Partial", "4.22.1"), ("Completed", "4.21.4")],
                None,
            ),
            (
                "4.22.1",
                vec![
                    ("Partial", "4.22.1"),
                    ("Partial", "4.21.9"),
                    ("Completed", "4.21.4"),
                ],
                None,
            ),
            (
                "4.22.3",
                vec![("Partial", "4.22.3"), ("Completed", "4.22.1")],
                Some(35),
            ),
            ("4.22.3", vec![("Partial", "4.22.3")], None),
            ("", vec![], None),
        ] {
            let cv = cluster_version(desired, &history);
            assert_eq!(
                of_cluster(&cv, &[]).crio_minor,
                want,
                "{desired} {history:?}"
            );
        }
        let updating = of_cluster(
            &cluster_version("4.22.1", &[("Partial", "4.22.1"), ("Completed", "4.21.4")]),
            &[],
        );
        assert_eq!(updating.possible, [34, 35]);
        assert!(
            updating.basis.starts_with(
                "ClusterVersion/version is updating from 4.21.4 (CRI-O 1.34) to 4.22.1 (CRI-O 1.35)"
            ),
            "{}",
            updating.basis
        );
        // The Node's own version wins over the cluster's.
        let node: crate::objects::Node = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "w1"},
            "status": {"nodeInfo": {"containerRuntimeVersion": "cri-o://1.34.2-3.rhaos4.21.el9"}}
        }))
        .expect("node");
        let cv = cluster_version("4.22.1", &[("Partial", "4.22.1"), ("Completed", "4.21.4")]);
        assert_eq!(of_node("w1", &[node], Some(&cv), &[]).crio_minor, Some(34));
    }

    #[test]
    fn short_name_modes_during_an_update() {
        let cv = cluster_version("4.21.1", &[("Partial", "4.21.1"), ("Completed", "4.20.9")]);
        assert_eq!(
            short_name_modes_during_update(&cv),
            Some((
                ShortNameMode::Disabled,
                "4.20.9".to_string(),
                ShortNameMode::Enforcing,
                "4.21.1".to_string()
            ))
        );
        // 4.21 to 4.22: CRI-O's enforcing, then the MCO's crio.conf's disabled.
        let cv = cluster_version("4.22.0", &[("Partial", "4.22.0"), ("Completed", "4.21.3")]);
        assert_eq!(
            short_name_modes_during_update(&cv),
            Some((
                ShortNameMode::Enforcing,
                "4.21.3".to_string(),
                ShortNameMode::Disabled,
                "4.22.0".to_string()
            ))
        );
        for (desired, history) in [
            (
                "4.21.1",
                vec![("Completed", "4.21.1"), ("Completed", "4.20.9")],
            ),
            ("4.21.1", vec![("Partial", "4.21.1")]),
            ("4.21.1", vec![]),
        ] {
            let cv = cluster_version(desired, &history);
            assert_eq!(
                short_name_modes_during_update(&cv),
                None,
                "{desired} {history:?}"
            );
        }
    }

    #[test]
    fn flag_values() {
        assert!(NodeRuntime::from_flag("1.35").unwrap().reads_toml_1_1());
        assert!(NodeRuntime::from_flag("1.34.2")
            .unwrap()
            .toml_1_0_basis()
            .ends_with(
                "--crio-version 1.34.2, whose registries.conf parser is BurntSushi/toml v1.5.0"
            ));
        assert!(!NodeRuntime::from_flag("1.34.2").unwrap().reads_toml_1_1());
        for bad in ["", "4.22", "1", "1.35.1.2", "v1.35"] {
            assert!(NodeRuntime::from_flag(bad).is_err(), "{bad}");
        }
    }

    /// The `github.com/BurntSushi/toml` line of each cri-o/cri-o
    /// release-1.x branch's `go.mod`, 1.14 to 1.37.
    #[test]
    fn toml_reader_by_crio_release() {
        for (crio, want) in [
            (14, "v0.3.1"),
            (21, "v0.3.1"),
            (22, "v0.4.1"),
            (23, "v0.4.1"),
            (24, "v1.1.0"),
            (25, "v1.2.1"),
            (27, "v1.2.1"),
            (28, "v1.3.2"),
            (30, "v1.3.2"),
            (31, "v1.4.0"),
            (32, "v1.4.0"),
            (33, "v1.5.0"),
            (34, "v1.5.0"),
            (35, "v1.6.0"),
            (37, "v1.6.0"),
        ] {
            let reader = TomlReader::of_crio(crio);
            assert_eq!(reader.release(), want, "CRI-O 1.{crio}");
            assert!(reader.first_crio() <= crio, "CRI-O 1.{crio}");
        }
        for pair in TomlReader::ALL.windows(2) {
            assert!(pair[0] < pair[1]);
            assert_eq!(TomlReader::of_crio(pair[1].first_crio()), pair[1]);
            assert_eq!(TomlReader::of_crio(pair[1].first_crio() - 1), pair[0]);
        }
        assert_eq!(TomlReader::V1_6_0.first_crio(), 35);
        assert!(!TomlReader::V1_2_1.skips_byte_order_mark());
        assert!(TomlReader::V1_3_2.skips_byte_order_mark());
    }
}
