//! Where the cluster objects come from, gathered into one [`Inputs`].
//!
//! `file` reads exported YAML/JSON (`-f`): single objects, multi-document
//! streams, `List`s, folders and must-gather / `oc adm inspect` trees.
//! `cluster` lists the same kinds from a live cluster and stages them
//! through `file`'s code. The
//! core only ever sees `Inputs`, so it cannot tell files from a live
//! cluster. Validation of what was read is left to [`crate::crd`] and the
//! rendering modules.

use std::collections::BTreeMap;

use crate::audit::Workload;
use crate::crd::{
    ClusterImagePolicy, ClusterVersion, FieldError, Image, ImageContentSourcePolicy,
    ImageDigestMirrorSet, ImagePolicy, ImageTagMirrorSet, MachineConfig, MachineConfigPool, Node,
};

pub mod cluster;
mod exec;
mod fast_yaml;
pub mod file;
mod kubeconfig;

/// Whether `s` can be a plain (unquoted) YAML scalar as far as its
/// characters go: no indicator first, no `: ` or ` #` inside, no `:` last.
pub fn plain_scalar_ok(s: &str) -> bool {
    !s.is_empty() && fast_yaml::plain_ok(s)
}

pub use file::{load_paths, load_paths_with, parse_documents, parse_documents_with, SourceError};

/// Everything the tool reads from a cluster or from files.
///
/// Lists keep the order objects were read in. An object read twice (same
/// kind, namespace and name) is kept once, at its first position, with the
/// content of the last copy, as `kubectl apply -f a -f b` would leave it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    /// ImageContentSourcePolicy objects.
    pub icsps: Vec<ImageContentSourcePolicy>,
    /// ImageDigestMirrorSet objects.
    pub idmss: Vec<ImageDigestMirrorSet>,
    /// ImageTagMirrorSet objects.
    pub itmss: Vec<ImageTagMirrorSet>,
    /// `Image/cluster`, if present.
    pub image: Option<Image>,
    /// `ClusterVersion/version`, if present.
    pub cluster_version: Option<ClusterVersion>,
    /// ClusterImagePolicy objects, v1 and v1alpha1 alike.
    pub cluster_image_policies: Vec<ClusterImagePolicy>,
    /// ImagePolicy objects of every namespace.
    pub image_policies: Vec<ImagePolicy>,
    /// MachineConfig objects.
    pub machine_configs: Vec<MachineConfig>,
    /// MachineConfigPool objects.
    pub pools: Vec<MachineConfigPool>,
    /// Node objects.
    pub nodes: Vec<Node>,
    /// Objects that reference images (Pods, workload controllers,
    /// ClusterServiceVersions): read only when asked for (`audit`).
    pub workloads: Vec<Workload>,
    /// Documents of other kinds, counted by `apiVersion/kind` (`<none>` for
    /// a missing part).
    pub skipped: BTreeMap<String, usize>,
    /// Files found inside folders that name none of the kinds above and
    /// were therefore not parsed.
    pub skipped_files: usize,
    /// Things worth telling the user that did not stop the load: a wrong
    /// `apiVersion` read anyway, a duplicate that differed, an Image not
    /// named `cluster`, and so on. Each names its file and document.
    pub warnings: Vec<String>,
}

impl Inputs {
    /// How many objects of the tool's kinds were read.
    pub fn object_count(&self) -> usize {
        self.icsps.len()
            + self.idmss.len()
            + self.itmss.len()
            + usize::from(self.image.is_some())
            + usize::from(self.cluster_version.is_some())
            + self.cluster_image_policies.len()
            + self.image_policies.len()
            + self.machine_configs.len()
            + self.pools.len()
            + self.nodes.len()
            + self.workloads.len()
    }

    /// Whether no object of the tool's kinds was read.
    pub fn is_empty(&self) -> bool {
        self.object_count() == 0
    }

    /// Lays `proposed` over these objects, as `kubectl apply -f` would: an
    /// object of the same kind and name is replaced, a new one is added.
    /// Only the kinds that render node files are taken from `proposed`.
    pub fn overlay(&mut self, proposed: Inputs) {
        let name = |m: &crate::crd::ObjectMeta| (m.namespace.clone(), m.name.clone());
        for o in proposed.icsps {
            upsert(&mut self.icsps, o, |a, b| {
                name(&a.metadata) == name(&b.metadata)
            });
        }
        for o in proposed.idmss {
            upsert(&mut self.idmss, o, |a, b| {
                name(&a.metadata) == name(&b.metadata)
            });
        }
        for o in proposed.itmss {
            upsert(&mut self.itmss, o, |a, b| {
                name(&a.metadata) == name(&b.metadata)
            });
        }
        for o in proposed.cluster_image_policies {
            upsert(&mut self.cluster_image_policies, o, |a, b| {
                name(&a.metadata) == name(&b.metadata)
            });
        }
        for o in proposed.image_policies {
            upsert(&mut self.image_policies, o, |a, b| {
                name(&a.metadata) == name(&b.metadata)
            });
        }
        if proposed.image.is_some() {
            self.image = proposed.image;
        }
    }

    /// CRD validation of every object, in input order, kind by kind.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        errors.extend(self.icsps.iter().flat_map(|o| o.validate()));
        errors.extend(self.idmss.iter().flat_map(|o| o.validate()));
        errors.extend(self.itmss.iter().flat_map(|o| o.validate()));
        errors.extend(self.image.iter().flat_map(|o| o.validate()));
        errors.extend(
            self.cluster_image_policies
                .iter()
                .flat_map(|o| o.validate()),
        );
        errors.extend(self.image_policies.iter().flat_map(|o| o.validate()));
        errors
    }
}

/// Adds `item`, or replaces an object with the same identity in place.
/// Returns `false` when it replaced a copy with different content.
pub(crate) fn upsert<T: PartialEq>(
    list: &mut Vec<T>,
    item: T,
    same: impl Fn(&T, &T) -> bool,
) -> bool {
    match list.iter_mut().find(|existing| same(existing, &item)) {
        Some(existing) => {
            let identical = *existing == item;
            *existing = item;
            identical
        }
        None => {
            list.push(item);
            true
        }
    }
}
