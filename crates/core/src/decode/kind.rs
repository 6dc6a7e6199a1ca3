//! The kinds of object the file reader reads, and one decoded object: what
//! the file reader ([`super`]) and the one-pass YAML reader
//! ([`super::stream`]) share, below both so that the file reader uses the
//! stream reader and not the other way round.

use crate::kinds::{self, KindSpec};
use crate::objects::workload::Workload;
use crate::objects::{
    ClusterImagePolicy, ClusterVersion, Image, ImageContentSourcePolicy, ImageDigestMirrorSet,
    ImagePolicy, ImageTagMirrorSet, MachineConfig, MachineConfigPool, Node,
};

/// Key of [`Inputs::skipped`] parts that are missing.
pub(super) const NONE: &str = "<none>";

/// The kinds this tool reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Icsp,
    Idms,
    Itms,
    Image,
    ClusterVersion,
    ClusterImagePolicy,
    ImagePolicy,
    MachineConfig,
    MachineConfigPool,
    Node,
}

impl Kind {
    /// Every kind the decoder reads.
    pub(super) const ALL: [Self; 10] = [
        Self::Icsp,
        Self::Idms,
        Self::Itms,
        Self::Image,
        Self::ClusterVersion,
        Self::ClusterImagePolicy,
        Self::ImagePolicy,
        Self::MachineConfig,
        Self::MachineConfigPool,
        Self::Node,
    ];

    /// The kind's row of the kinds table.
    pub(super) fn spec(self) -> &'static KindSpec {
        match self {
            Self::Icsp => &kinds::ICSP,
            Self::Idms => &kinds::IDMS,
            Self::Itms => &kinds::ITMS,
            Self::Image => &kinds::IMAGE,
            Self::ClusterVersion => &kinds::CLUSTER_VERSION,
            Self::ClusterImagePolicy => &kinds::CLUSTER_IMAGE_POLICY,
            Self::ImagePolicy => &kinds::IMAGE_POLICY,
            Self::MachineConfig => &kinds::MACHINE_CONFIG,
            Self::MachineConfigPool => &kinds::MACHINE_CONFIG_POOL,
            Self::Node => &kinds::NODE,
        }
    }

    pub(super) fn from_name(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.spec().kind == kind)
    }

    /// Whether a document of this kind under `api`, which is not one the
    /// kind is served as, is still read (the API server would refuse it).
    /// The mirror-set kind names are unique to OpenShift and often written
    /// with the wrong group, so any `*.openshift.io` group will do; `Image`
    /// and `ClusterImagePolicy` exist in other groups as different things,
    /// so for them only another version of their own group.
    pub(super) fn read_under_wrong_version(self, api: &str) -> bool {
        let group = api_group(api);
        match self {
            Self::Icsp | Self::Idms | Self::Itms => group.ends_with("openshift.io"),
            Self::Image | Self::ClusterImagePolicy | Self::ImagePolicy => {
                self.spec().group == group
            }
            _ => false,
        }
    }
}

/// One decoded object, before it joins [`Inputs`].
pub(super) enum Object {
    Icsp(ImageContentSourcePolicy),
    Idms(ImageDigestMirrorSet),
    Itms(ImageTagMirrorSet),
    Image(Image),
    ClusterVersion(ClusterVersion),
    ClusterImagePolicy(ClusterImagePolicy),
    ImagePolicy(ImagePolicy),
    MachineConfig(MachineConfig),
    MachineConfigPool(MachineConfigPool),
    Node(Node),
    Workload(Workload),
}

/// The group of an `apiVersion` (empty for the core group's `v1`).
pub(super) fn api_group(api: &str) -> &str {
    api.rsplit_once('/').map_or("", |(group, _)| group)
}
