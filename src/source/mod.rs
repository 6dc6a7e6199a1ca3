//! Where the cluster objects come from, gathered into one
//! [`crate::crd::Inputs`].
//!
//! `file` reads exported YAML/JSON (`-f`): single objects, multi-document
//! streams, `List`s, folders and must-gather / `oc adm inspect` trees.
//! `cluster` lists the same kinds from a live cluster and stages them
//! through `file`'s code. The core only ever sees `Inputs`, so it cannot
//! tell files from a live cluster. Validation of what was read is left to
//! [`crate::crd`] and the rendering modules.

mod chunks;
pub mod cluster;
pub mod drop_in_dir;
mod exec;
pub mod file;
pub mod hub;
pub mod journal_files;
pub mod journal_text;
mod kind;
mod kubeconfig;
pub mod node_dir;
pub mod node_exec;
pub mod node_live;
pub mod node_logs;
mod stream;
mod strict;
mod transport;

pub use file::{
    load_paths, load_paths_checked, load_paths_with, parse_documents, parse_documents_with,
    SourceError,
};

pub use crate::crd::Inputs;

#[cfg(test)]
mod tests {
    use crate::crd::inputs::{upsert, Index};
    use crate::crd::{ImageDigestMirrorSet, Inputs};

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
