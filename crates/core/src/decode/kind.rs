//! The kinds of object the file reader reads, and one decoded object: what
//! the file reader ([`super`]) and the one-pass YAML reader
//! ([`super::stream`]) share, below both so that the file reader uses the
//! stream reader and not the other way round.

use crate::crd::workload::Workload;
use crate::crd::{
    ClusterImagePolicy, ClusterVersion, Image, ImageContentSourcePolicy, ImageDigestMirrorSet,
    ImagePolicy, ImageTagMirrorSet, MachineConfig, MachineConfigPool, Node, CONFIG_V1,
    CONFIG_V1ALPHA1, CORE_V1, MACHINECONFIGURATION_V1, OPERATOR_V1ALPHA1,
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
    pub(super) fn from_name(kind: &str) -> Option<Self> {
        Some(match kind {
            "ImageContentSourcePolicy" => Self::Icsp,
            "ImageDigestMirrorSet" => Self::Idms,
            "ImageTagMirrorSet" => Self::Itms,
            "Image" => Self::Image,
            "ClusterVersion" => Self::ClusterVersion,
            "ClusterImagePolicy" => Self::ClusterImagePolicy,
            "ImagePolicy" => Self::ImagePolicy,
            "MachineConfig" => Self::MachineConfig,
            "MachineConfigPool" => Self::MachineConfigPool,
            "Node" => Self::Node,
            _ => return None,
        })
    }

    /// The API versions the kind is served under.
    pub(super) fn api_versions(self) -> &'static [&'static str] {
        match self {
            Self::Icsp => &[OPERATOR_V1ALPHA1],
            Self::Idms | Self::Itms | Self::Image | Self::ClusterVersion => &[CONFIG_V1],
            Self::ClusterImagePolicy | Self::ImagePolicy => &[CONFIG_V1, CONFIG_V1ALPHA1],
            Self::MachineConfig | Self::MachineConfigPool => &[MACHINECONFIGURATION_V1],
            Self::Node => &[CORE_V1],
        }
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
                self.api_versions().iter().any(|v| api_group(v) == group)
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
