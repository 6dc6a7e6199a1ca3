//! The built-in field trees against openshift/api's own CRD manifests.
//!
//! Set `MIRRORPOLICY_CRD_DIR` to a folder of CustomResourceDefinition
//! manifests (an openshift/api checkout, or a must-gather's
//! `cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions`):
//! every checked kind's tree must match the union of the manifests of its
//! CRD found there (every served version, every feature set). Unset, the
//! test says it is skipped and passes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mirrorpolicy::objects::crd_schema::{compare, Tree};
use mirrorpolicy::objects::schema::{builtin_tree, CHECKED_KINDS};
use mirrorpolicy::source::load_paths_with;

/// Every `.yaml`/`.yml`/`.json` file below `dir` that holds a
/// CustomResourceDefinition, in sorted order (`.git` left out).
fn crd_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != ".git") {
                crd_files(&path, out);
            }
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            && std::fs::read_to_string(&path).is_ok_and(|t| t.contains("CustomResourceDefinition"))
        {
            out.push(path);
        }
    }
}

#[test]
fn builtin_trees_match_the_crd_manifests() {
    let Some(dir) = std::env::var_os("MIRRORPOLICY_CRD_DIR") else {
        println!("skipped: set MIRRORPOLICY_CRD_DIR to a folder of CRD manifests (an openshift/api checkout)");
        return;
    };
    let mut files = Vec::new();
    crd_files(Path::new(&dir), &mut files);
    let mut by_kind: BTreeMap<String, (Tree, Vec<String>)> = BTreeMap::new();
    for file in &files {
        // Files that are not single readable manifests (test suites,
        // templates) are not what this checks.
        let Ok(read) = load_paths_with(std::slice::from_ref(file), std::io::empty(), false, true)
        else {
            continue;
        };
        for crd in read.crds {
            let entry = by_kind
                .entry(crd.kind.clone())
                .or_insert_with(|| (Tree::Object(BTreeMap::new()), Vec::new()));
            entry.0 = std::mem::replace(&mut entry.0, Tree::Any).merge(crd.tree);
            entry.1.push(crd.from);
        }
    }
    let mut failures = Vec::new();
    for kind in CHECKED_KINDS {
        let Some((tree, from)) = by_kind.get(kind) else {
            failures.push(format!("{kind}: no CustomResourceDefinition in the folder"));
            continue;
        };
        let c = compare(builtin_tree(kind).expect("built-in tree"), tree);
        println!("{kind}: {} manifest(s)", from.len());
        for path in &c.unknown_to_tool {
            failures.push(format!(
                "{kind}: the CRD declares {path}, the tool does not"
            ));
        }
        for path in &c.missing_from_crd {
            failures.push(format!(
                "{kind}: the tool knows {path}, the CRD does not declare it"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
