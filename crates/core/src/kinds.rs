//! The kinds the tool reads, in one table: each kind's name, API group,
//! the versions it is served under (preferred first), its resource name,
//! scope, and whether `lint` holds its CRD's field tree. The file decoder,
//! the API server client, the CRD checks and each object type take their
//! names from here.

/// One kind of object the tool reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindSpec {
    /// The `kind` as objects spell it.
    pub kind: &'static str,
    /// API group; empty for the core group.
    pub group: &'static str,
    /// The versions it is served under, the preferred first.
    pub versions: &'static [&'static str],
    /// The plural resource name of paths, RBAC rules and the CRD's name.
    pub plural: &'static str,
    pub namespaced: bool,
    /// Whether `lint` checks its objects against the CRD's field tree.
    pub crd_checked: bool,
}

impl KindSpec {
    /// The CustomResourceDefinition's name, `<plural>.<group>`.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }

    /// Whether it is served under `api_version` (`group/version`, or
    /// `version` for the core group).
    pub fn serves(&self, api_version: &str) -> bool {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        group == self.group && self.versions.contains(&version)
    }

    /// The `apiVersion` the tool writes: the first of [`Self::versions`].
    pub fn api_version(&self) -> String {
        self.api_versions()
            .next()
            .expect("every kind has a version")
    }

    /// Every `apiVersion` it is served under, `group/version` (or `v1`).
    pub fn api_versions(&self) -> impl Iterator<Item = String> + '_ {
        self.versions.iter().map(|v| {
            if self.group.is_empty() {
                (*v).to_string()
            } else {
                format!("{}/{v}", self.group)
            }
        })
    }
}

const CONFIG: &str = "config.openshift.io";
const MACHINECONFIGURATION: &str = "machineconfiguration.openshift.io";

pub const ICSP: KindSpec = KindSpec {
    kind: "ImageContentSourcePolicy",
    group: "operator.openshift.io",
    versions: &["v1alpha1"],
    plural: "imagecontentsourcepolicies",
    namespaced: false,
    crd_checked: true,
};
pub const IDMS: KindSpec = KindSpec {
    kind: "ImageDigestMirrorSet",
    group: CONFIG,
    versions: &["v1"],
    plural: "imagedigestmirrorsets",
    namespaced: false,
    crd_checked: true,
};
pub const ITMS: KindSpec = KindSpec {
    kind: "ImageTagMirrorSet",
    group: CONFIG,
    versions: &["v1"],
    plural: "imagetagmirrorsets",
    namespaced: false,
    crd_checked: true,
};
pub const IMAGE: KindSpec = KindSpec {
    kind: "Image",
    group: CONFIG,
    versions: &["v1"],
    plural: "images",
    namespaced: false,
    crd_checked: true,
};
pub const CLUSTER_VERSION: KindSpec = KindSpec {
    kind: "ClusterVersion",
    group: CONFIG,
    versions: &["v1"],
    plural: "clusterversions",
    namespaced: false,
    crd_checked: false,
};
/// v1 from OpenShift 4.20; v1alpha1 on 4.16 – 4.19 (tech preview).
pub const CLUSTER_IMAGE_POLICY: KindSpec = KindSpec {
    kind: "ClusterImagePolicy",
    group: CONFIG,
    versions: &["v1", "v1alpha1"],
    plural: "clusterimagepolicies",
    namespaced: false,
    crd_checked: true,
};
pub const IMAGE_POLICY: KindSpec = KindSpec {
    kind: "ImagePolicy",
    group: CONFIG,
    versions: &["v1", "v1alpha1"],
    plural: "imagepolicies",
    namespaced: true,
    crd_checked: true,
};
pub const MACHINE_CONFIG: KindSpec = KindSpec {
    kind: "MachineConfig",
    group: MACHINECONFIGURATION,
    versions: &["v1"],
    plural: "machineconfigs",
    namespaced: false,
    crd_checked: true,
};
pub const MACHINE_CONFIG_POOL: KindSpec = KindSpec {
    kind: "MachineConfigPool",
    group: MACHINECONFIGURATION,
    versions: &["v1"],
    plural: "machineconfigpools",
    namespaced: false,
    crd_checked: true,
};
/// Checked by `lint` only (its `registries` rendering is refused by the MCO).
pub const CONTAINER_RUNTIME_CONFIG: KindSpec = KindSpec {
    kind: "ContainerRuntimeConfig",
    group: MACHINECONFIGURATION,
    versions: &["v1"],
    plural: "containerruntimeconfigs",
    namespaced: false,
    crd_checked: true,
};
pub const NODE: KindSpec = KindSpec {
    kind: "Node",
    group: "",
    versions: &["v1"],
    plural: "nodes",
    namespaced: false,
    crd_checked: false,
};

const OPERATORS: &str = "operators.coreos.com";

/// OLM's objects (`operator-check`, `audit`); their CRDs are OLM's, not checked by `lint`.
pub const SUBSCRIPTION: KindSpec = KindSpec {
    kind: "Subscription",
    group: OPERATORS,
    versions: &["v1alpha1"],
    plural: "subscriptions",
    namespaced: true,
    crd_checked: false,
};
pub const CATALOG_SOURCE: KindSpec = KindSpec {
    kind: "CatalogSource",
    group: OPERATORS,
    versions: &["v1alpha1"],
    plural: "catalogsources",
    namespaced: true,
    crd_checked: false,
};
pub const CLUSTER_SERVICE_VERSION: KindSpec = KindSpec {
    kind: "ClusterServiceVersion",
    group: OPERATORS,
    versions: &["v1alpha1"],
    plural: "clusterserviceversions",
    namespaced: true,
    crd_checked: false,
};
pub const INSTALL_PLAN: KindSpec = KindSpec {
    kind: "InstallPlan",
    group: OPERATORS,
    versions: &["v1alpha1"],
    plural: "installplans",
    namespaced: true,
    crd_checked: false,
};

pub const OPERATOR_GROUP: KindSpec = KindSpec {
    kind: "OperatorGroup",
    group: OPERATORS,
    versions: &["v1"],
    plural: "operatorgroups",
    namespaced: true,
    crd_checked: false,
};

const OLM_V1: &str = "olm.operatorframework.io";

/// OLM v1's objects (`operator-check`), cluster-scoped; their CRDs are operator-controller's.
pub const CLUSTER_EXTENSION: KindSpec = KindSpec {
    kind: "ClusterExtension",
    group: OLM_V1,
    versions: &["v1"],
    plural: "clusterextensions",
    namespaced: false,
    crd_checked: false,
};
pub const CLUSTER_CATALOG: KindSpec = KindSpec {
    kind: "ClusterCatalog",
    group: OLM_V1,
    versions: &["v1"],
    plural: "clustercatalogs",
    namespaced: false,
    crd_checked: false,
};

/// Every kind of the table.
pub const ALL: [&KindSpec; 18] = [
    &ICSP,
    &IDMS,
    &ITMS,
    &IMAGE,
    &CLUSTER_VERSION,
    &CLUSTER_IMAGE_POLICY,
    &IMAGE_POLICY,
    &MACHINE_CONFIG,
    &MACHINE_CONFIG_POOL,
    &CONTAINER_RUNTIME_CONFIG,
    &NODE,
    &SUBSCRIPTION,
    &CATALOG_SOURCE,
    &CLUSTER_SERVICE_VERSION,
    &INSTALL_PLAN,
    &OPERATOR_GROUP,
    &CLUSTER_EXTENSION,
    &CLUSTER_CATALOG,
];

/// The kind named `kind` (exact spelling).
pub fn named(kind: &str) -> Option<&'static KindSpec> {
    ALL.into_iter().find(|k| k.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for k in ALL {
            assert_eq!(named(k.kind), Some(k));
            assert_eq!(ALL.iter().filter(|o| o.kind == k.kind).count(), 1);
            assert!(!k.versions.is_empty(), "{}", k.kind);
        }
        assert_eq!(named("image"), None);
        assert_eq!(IDMS.crd_name(), "imagedigestmirrorsets.config.openshift.io");
        assert_eq!(NODE.api_versions().collect::<Vec<_>>(), ["v1"]);
        assert_eq!(
            IMAGE_POLICY.api_versions().collect::<Vec<_>>(),
            ["config.openshift.io/v1", "config.openshift.io/v1alpha1"]
        );
    }
}
