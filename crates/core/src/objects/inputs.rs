//! [`Inputs`]: every cluster object a command reads, whichever source
//! (files, a must-gather, a live cluster) produced them, with the overlay of
//! proposed objects (`--with`) and the identity rules that keep an object
//! read twice once.
//!
//! The core works on this type alone; `source/` fills it.

use std::collections::{BTreeMap, HashMap};

use crate::objects::crd_schema::CrdSchema;
use crate::objects::install_config::{Generated, PullSecret, TrustedBundle};
use crate::objects::schema::{check_fields, metadata_errors, name_error};
use crate::objects::workload::Workload;
use crate::objects::{
    ClusterImagePolicy, ClusterVersion, FieldError, Image, ImageContentSourcePolicy,
    ImageDigestMirrorSet, ImagePolicy, ImageTagMirrorSet, MachineConfig, MachineConfigPool, Node,
    ObjectMeta,
};
use crate::origin::Origin;

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
    /// The install-config.yaml documents read (`InstallConfig/<name>`),
    /// whose mirror objects are among the lists above.
    pub install_configs: Vec<Origin>,
    /// Whether the inputs contain oc-mirror's
    /// `working-dir/cluster-resources/` folder (the folder, a folder
    /// holding it, or one of its files), which never holds a ClusterVersion
    /// or an Image config: when the inputs hold neither, the render's
    /// defaults for them are said once, in those terms. Set by the file
    /// reader, which knows the paths; false for the live cluster.
    pub oc_mirror_resources: bool,
    /// The objects among the lists above that the installer writes from an
    /// install-config.yaml, with where each of their entries was written.
    pub generated: Vec<Generated>,
    /// CAs every node trusts, for every registry: install-config.yaml's
    /// `additionalTrustBundle`.
    pub node_trust: Vec<TrustedBundle>,
    /// install-config.yaml's `pullSecret`, the global pull secret its
    /// cluster gets (the last one read).
    pub pull_secret: Option<PullSecret>,
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
    /// What the API server would refuse, found while reading rather than
    /// in a typed object: a field the CRD does not declare, a wrong or
    /// missing `apiVersion`, a misspelt kind. Part of [`Inputs::validate`].
    pub refused: Vec<FieldError>,
    /// Fields of an object read strictly that the CustomResourceDefinition
    /// its fields were checked against declares and the tool's own field
    /// tree does not: the API server keeps them, the tool may not apply
    /// them.
    pub field_warnings: Vec<FieldError>,
    /// CustomResourceDefinitions of the checked kinds found among the
    /// files read strictly (a must-gather's
    /// `cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions`).
    pub crds: Vec<CrdSchema>,
    /// Why a CustomResourceDefinition of a checked kind among the files
    /// could not be used (also among [`Inputs::warnings`]).
    pub crd_problems: Vec<String>,
    /// Objects read strictly whose fields are checked once every file is
    /// read ([`Inputs::check_fields`]), against the CRDs read with them.
    pub(crate) unchecked: Vec<Unchecked>,
    /// Where each object was read, by its label (`Kind/name`): `file:line`
    /// (the line its document starts on, then `(items[N])` for an item of a
    /// list), or the resource and server it was listed from. A later copy of an object moves it to where that copy was read.
    pub read_from: HashMap<Origin, Origin>,
    /// The objects [`Inputs::overlay`] laid over the others (`--with`), in
    /// the order given: what is about to be applied rather than what is
    /// there, for the API server's checks that depend on other objects.
    pub proposed: Vec<Proposed>,
    /// Where each object sits in its list, so that adding one is not a
    /// search of the list.
    pub(crate) index: Indexes,
}

/// An object laid over the others by [`Inputs::overlay`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposed {
    /// `Kind/name` (`ImagePolicy/<namespace>/<name>`).
    pub object: Origin,
    /// Whether it replaces an object of the same kind and name (the API
    /// server's update), rather than adding one (its create).
    pub replaces: bool,
}

/// An object read strictly, its fields not checked yet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unchecked {
    pub(crate) kind: String,
    /// The group of its `apiVersion`.
    pub(crate) group: String,
    pub(crate) object: Origin,
    /// Where it was read.
    pub(crate) file: Origin,
    pub(crate) value: serde_json::Value,
}

/// Position of each object in its list, by identity.
#[derive(Debug, Clone, Default)]
pub(crate) struct Indexes {
    pub(crate) icsps: Index,
    pub(crate) idmss: Index,
    pub(crate) itmss: Index,
    pub(crate) cluster_image_policies: Index,
    pub(crate) image_policies: Index,
    pub(crate) machine_configs: Index,
    pub(crate) pools: Index,
    pub(crate) nodes: Index,
    pub(crate) workloads: Index,
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

    /// Whether nothing the tool reads was read: no object of its kinds and
    /// no install-config.yaml (which may hold no mirrors).
    pub fn is_empty(&self) -> bool {
        self.object_count() == 0 && self.install_configs.is_empty()
    }

    /// The record of the object `label` when the installer writes it from
    /// an install-config.yaml.
    pub fn generated(&self, label: &Origin) -> Option<&Generated> {
        // A handful at most: one or two per install-config.yaml.
        self.generated.iter().find(|g| g.object == *label)
    }

    /// Lays `proposed` over these objects, as `kubectl apply -f` would: an
    /// object of the same kind and name is replaced, a new one is added.
    /// Only the kinds that render node files are taken from `proposed`.
    pub fn overlay(&mut self, proposed: Inputs) {
        const KEYING: &str = "namespace/name";
        let name = |m: &crate::objects::ObjectMeta| format!("{:?}\0{}", m.namespace, m.name);
        let index = &mut self.index;
        let laid = &mut self.proposed;
        // Whether `upsert` added an object (a create) or replaced one (an update).
        let mut record = |object: Origin, before: usize, after: usize| {
            laid.push(Proposed {
                object,
                replaces: before == after,
            });
        };
        for o in proposed.icsps {
            let (origin, before) = (o.origin(), self.icsps.len());
            upsert(&mut self.icsps, &mut index.icsps, o, KEYING, |o| {
                name(&o.metadata)
            });
            record(origin, before, self.icsps.len());
        }
        for o in proposed.idmss {
            let (origin, before) = (o.origin(), self.idmss.len());
            upsert(&mut self.idmss, &mut index.idmss, o, KEYING, |o| {
                name(&o.metadata)
            });
            record(origin, before, self.idmss.len());
        }
        for o in proposed.itmss {
            let (origin, before) = (o.origin(), self.itmss.len());
            upsert(&mut self.itmss, &mut index.itmss, o, KEYING, |o| {
                name(&o.metadata)
            });
            record(origin, before, self.itmss.len());
        }
        for o in proposed.cluster_image_policies {
            let (origin, before) = (o.origin(), self.cluster_image_policies.len());
            upsert(
                &mut self.cluster_image_policies,
                &mut index.cluster_image_policies,
                o,
                KEYING,
                |o| name(&o.metadata),
            );
            record(origin, before, self.cluster_image_policies.len());
        }
        for o in proposed.image_policies {
            let (origin, before) = (o.origin(), self.image_policies.len());
            upsert(
                &mut self.image_policies,
                &mut index.image_policies,
                o,
                KEYING,
                |o| name(&o.metadata),
            );
            record(origin, before, self.image_policies.len());
        }
        if proposed.image.is_some() {
            self.image = proposed.image;
        }
        self.take_install_configs(proposed.install_configs, proposed.generated);
        self.node_trust.extend(proposed.node_trust);
        if proposed.pull_secret.is_some() {
            self.pull_secret = proposed.pull_secret;
        }
        self.refused.extend(proposed.refused);
        self.field_warnings.extend(proposed.field_warnings);
        self.read_from.extend(proposed.read_from);
    }

    /// Adds install-config.yaml documents read and the objects they give;
    /// a later record of an object replaces the earlier one, as the later
    /// object replaced it.
    pub(crate) fn take_install_configs(&mut self, read: Vec<Origin>, generated: Vec<Generated>) {
        for o in read {
            Origin::push_unique(&mut self.install_configs, &o);
        }
        for g in generated {
            self.generated.retain(|old| old.object != g.object);
            self.generated.push(g);
        }
    }

    /// Checks the fields of every object read strictly and not checked
    /// yet: against the first of `given` (then of [`Inputs::crds`]) for
    /// its kind and group, else against the tool's own field tree. Fields
    /// the API server refuses join [`Inputs::refused`]; fields only the
    /// CRD declares, [`Inputs::field_warnings`].
    pub fn check_fields(&mut self, given: &[CrdSchema]) {
        for u in std::mem::take(&mut self.unchecked) {
            let crd = given
                .iter()
                .chain(&self.crds)
                .find(|c| c.kind == u.kind && c.group == u.group);
            let found = check_fields(&u.kind, &u.object, &u.value, crd);
            for mut e in found.errors {
                e.file = Some(u.file.clone());
                self.refused.push(e);
            }
            for mut w in found.warnings {
                w.file = Some(u.file.clone());
                self.field_warnings.push(w);
            }
        }
    }

    /// Where the object `label` (`Kind/name`) was read, when known.
    pub fn read_from(&self, label: &Origin) -> Option<&Origin> {
        self.read_from.get(label)
    }

    /// What the API server would refuse: the problems found while reading
    /// ([`Inputs::refused`]), then the CRD validation of every object (its
    /// name, its fields), in input order, kind by kind. Each error names
    /// where its object was read when that is known.
    pub fn validate(&self) -> Vec<FieldError> {
        fn named<'a>(
            errors: &mut Vec<FieldError>,
            objects: impl Iterator<Item = (Origin, &'a ObjectMeta, Vec<FieldError>)>,
        ) {
            for (origin, meta, found) in objects {
                errors.extend(name_error(&origin, &meta.name));
                errors.extend(metadata_errors(&origin, meta));
                errors.extend(found);
            }
        }
        let mut errors = self.refused.clone();
        named(
            &mut errors,
            self.icsps
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        named(
            &mut errors,
            self.idmss
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        named(
            &mut errors,
            self.itmss
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        named(
            &mut errors,
            self.image
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        named(
            &mut errors,
            self.cluster_image_policies
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        named(
            &mut errors,
            self.image_policies
                .iter()
                .map(|o| (o.origin(), &o.metadata, o.validate())),
        );
        for e in &mut errors {
            if let Some(g) = self.generated(&e.object) {
                // Said of the install-config.yaml field it was written as.
                if let Some((field, line)) = g.locate(&e.field) {
                    e.field = field;
                    e.file = Some(Origin::file_line(&g.file, line));
                }
            }
            if e.file.is_none() {
                e.file = self.read_from.get(&e.object).cloned();
            }
        }
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
    use super::{upsert, Index};
    use crate::objects::{ImageDigestMirrorSet, Inputs};

    fn idms(name: &str, source: &str) -> ImageDigestMirrorSet {
        let mut inputs = Inputs::default();
        crate::decode::parse_documents(
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
        crate::decode::parse_documents(
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
