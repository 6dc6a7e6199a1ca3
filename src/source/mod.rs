//! Where the cluster objects come from, gathered into one [`Inputs`].
//!
//! `file` reads exported YAML/JSON (`-f`): single objects, multi-document
//! streams, `List`s, folders and must-gather / `oc adm inspect` trees.
//! `cluster` lists the same kinds from a live cluster and stages them
//! through `file`'s code. The
//! core only ever sees `Inputs`, so it cannot tell files from a live
//! cluster. Validation of what was read is left to [`crate::crd`] and the
//! rendering modules.

use std::collections::{BTreeMap, HashMap};

use crate::audit::Workload;
use crate::crd::{
    ClusterImagePolicy, ClusterVersion, FieldError, Image, ImageContentSourcePolicy,
    ImageDigestMirrorSet, ImagePolicy, ImageTagMirrorSet, MachineConfig, MachineConfigPool, Node,
};

pub mod cluster;
mod exec;
pub mod file;
mod kubeconfig;
mod stream;
mod strict;

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
    /// Where each object sits in its list, so that adding one is not a
    /// search of the list.
    index: Indexes,
}

/// Position of each object in its list, by identity.
#[derive(Debug, Clone, Default)]
struct Indexes {
    icsps: Index,
    idmss: Index,
    itmss: Index,
    cluster_image_policies: Index,
    image_policies: Index,
    machine_configs: Index,
    pools: Index,
    nodes: Index,
    workloads: Index,
}

/// Never part of what two [`Inputs`] hold.
impl PartialEq for Indexes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Positions of a list's objects by identity key, for one way of keying
/// them. The lists are public and may change behind the index: it is
/// rebuilt when its length, its keying or the object at a position it
/// names does not match.
#[derive(Debug, Clone, Default)]
pub(crate) struct Index {
    keying: &'static str,
    len: usize,
    positions: HashMap<String, usize>,
}

impl Index {
    fn rebuild<T>(&mut self, list: &[T], keying: &'static str, key: &impl Fn(&T) -> String) {
        self.keying = keying;
        self.len = list.len();
        self.positions.clear();
        for (i, item) in list.iter().enumerate() {
            // The first of several with the same key, as a search would find.
            self.positions.entry(key(item)).or_insert(i);
        }
    }
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
        const KEYING: &str = "namespace/name";
        let name = |m: &crate::crd::ObjectMeta| format!("{:?}\0{}", m.namespace, m.name);
        let index = &mut self.index;
        for o in proposed.icsps {
            upsert(&mut self.icsps, &mut index.icsps, o, KEYING, |o| {
                name(&o.metadata)
            });
        }
        for o in proposed.idmss {
            upsert(&mut self.idmss, &mut index.idmss, o, KEYING, |o| {
                name(&o.metadata)
            });
        }
        for o in proposed.itmss {
            upsert(&mut self.itmss, &mut index.itmss, o, KEYING, |o| {
                name(&o.metadata)
            });
        }
        for o in proposed.cluster_image_policies {
            upsert(
                &mut self.cluster_image_policies,
                &mut index.cluster_image_policies,
                o,
                KEYING,
                |o| name(&o.metadata),
            );
        }
        for o in proposed.image_policies {
            upsert(
                &mut self.image_policies,
                &mut index.image_policies,
                o,
                KEYING,
                |o| name(&o.metadata),
            );
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

/// Adds `item`, or replaces an object with the same identity (`key`) in
/// place. Returns `false` when it replaced a copy with different content.
/// `keying` names the way `key` identifies objects.
pub(crate) fn upsert<T: PartialEq>(
    list: &mut Vec<T>,
    index: &mut Index,
    item: T,
    keying: &'static str,
    key: impl Fn(&T) -> String,
) -> bool {
    if index.keying != keying || index.len != list.len() {
        index.rebuild(list, keying, &key);
    }
    let k = key(&item);
    let found = match index.positions.get(&k) {
        Some(&i) if list.get(i).is_some_and(|o| key(o) == k) => Some(i),
        Some(_) => {
            index.rebuild(list, keying, &key);
            index.positions.get(&k).copied()
        }
        None => None,
    };
    match found {
        Some(i) => {
            let identical = list[i] == item;
            list[i] = item;
            identical
        }
        None => {
            index.positions.insert(k, list.len());
            list.push(item);
            index.len = list.len();
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idms(name: &str, source: &str) -> ImageDigestMirrorSet {
        let mut inputs = Inputs::default();
        crate::source::parse_documents(
            "t.yaml",
            &format!("apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {{name: {name}}}\nspec: {{imageDigestMirrors: [{{source: {source}}}]}}\n"),
            &mut inputs,
        )
        .unwrap();
        inputs.idmss.remove(0)
    }

    fn names(list: &[ImageDigestMirrorSet]) -> Vec<&str> {
        list.iter().map(|o| o.metadata.name.as_str()).collect()
    }

    /// The index gives what a search of the list gave: the first position,
    /// the later content, and it follows changes made to the public list.
    #[test]
    fn upsert_by_index_keeps_first_position_and_last_content() {
        let mut list = Vec::new();
        let mut index = Index::default();
        let key = |o: &ImageDigestMirrorSet| o.metadata.name.clone();
        assert!(upsert(
            &mut list,
            &mut index,
            idms("a", "q.io/1"),
            "name",
            key
        ));
        assert!(upsert(
            &mut list,
            &mut index,
            idms("b", "q.io/1"),
            "name",
            key
        ));
        assert!(upsert(
            &mut list,
            &mut index,
            idms("a", "q.io/1"),
            "name",
            key
        ));
        assert!(!upsert(
            &mut list,
            &mut index,
            idms("a", "q.io/2"),
            "name",
            key
        ));
        assert_eq!(names(&list), ["a", "b"]);
        assert_eq!(list[0].spec.image_digest_mirrors[0].source, "q.io/2");

        // Changed behind the index: removed, renamed in place, pushed.
        list.remove(0);
        assert!(upsert(
            &mut list,
            &mut index,
            idms("a", "q.io/3"),
            "name",
            key
        ));
        assert_eq!(names(&list), ["b", "a"]);
        list[0].metadata.name = "c".to_string();
        assert!(upsert(
            &mut list,
            &mut index,
            idms("b", "q.io/4"),
            "name",
            key
        ));
        assert_eq!(names(&list), ["c", "a", "b"]);
        list.push(idms("d", "q.io/5"));
        assert!(!upsert(
            &mut list,
            &mut index,
            idms("d", "q.io/6"),
            "name",
            key
        ));
        assert_eq!(names(&list), ["c", "a", "b", "d"]);
    }

    #[test]
    fn overlay_replaces_by_namespace_and_name_after_a_load_by_name() {
        let mut inputs = Inputs::default();
        crate::source::parse_documents(
            "a.yaml",
            "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: a}\nspec: {}\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata: {name: b}\nspec: {}\n",
            &mut inputs,
        )
        .unwrap();
        let proposed = Inputs {
            idmss: vec![idms("b", "q.io/new"), idms("c", "q.io/c")],
            ..Inputs::default()
        };
        inputs.overlay(proposed);
        assert_eq!(names(&inputs.idmss), ["a", "b", "c"]);
        assert_eq!(
            inputs.idmss[1].spec.image_digest_mirrors[0].source,
            "q.io/new"
        );
    }
}
