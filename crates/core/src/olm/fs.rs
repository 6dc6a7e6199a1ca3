//! The configs folder of a catalog image, put together layer by layer as
//! the container's root file system is: a later layer's file replaces an
//! earlier one, `.wh.<name>` removes a path and `.wh..wh..opq` empties a
//! folder of what earlier layers put there. Each file under the configs
//! folder is read as it streams by ([`catalog::read_file`]), so only what
//! the wanted packages need is held; a file's error counts only when the
//! file survives. At the end, files matched by an `.indexignore` (gitignore
//! rules, relative to the folder holding it, as operator-registry's
//! `walkFiles` applies them) are left out, and so are `.indexignore` files
//! themselves.
//!
//! The layering itself and the tar walk are [`crate::oci::layer`]'s.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::catalog::{self, Catalog, CatalogError, FileContent};
use crate::oci::layer::{
    self, is_whiteout, normalize, parent, Budget, LayerError, LayerSink, Layered,
};

const INDEX_IGNORE: &str = ".indexignore";

/// A file of the configs folder: a catalog file read, or an `.indexignore`'s text.
enum ConfigFile {
    Catalog(Result<FileContent, CatalogError>),
    Ignore(String),
}

/// The configs folder as the layers have built it so far, and what the
/// layers have taken of the image's [`Budget`]: every layer of the image
/// counts, whatever it holds.
pub struct ConfigsTree {
    dir: String,
    files: Layered<ConfigFile>,
    budget: Budget,
}

impl ConfigsTree {
    /// A tree for the configs folder `dir` (the label's value, absolute or not).
    pub fn new(dir: &str) -> ConfigsTree {
        ConfigsTree::with_budget(dir, Budget::per_file(MAX_FILE_BYTES))
    }

    /// [`ConfigsTree::new`] whose layers are read within `budget`.
    pub fn with_budget(dir: &str, budget: Budget) -> ConfigsTree {
        ConfigsTree {
            dir: normalize(dir),
            files: Layered::default(),
            budget,
        }
    }

    /// Starts the next layer: an opaque folder hides only earlier layers.
    pub fn next_layer(&mut self) {
        self.files.next_layer();
    }

    /// Whether a layer entry at `path` concerns the configs folder (a file
    /// under it, or a whiteout that may remove one).
    pub fn concerns(&mut self, path: &str) -> bool {
        let p = normalize(path);
        let under = self.relative(&p).is_some();
        under || (is_whiteout(&p) && self.dir.starts_with(parent(&p)))
    }

    /// A regular file of the current layer at `path`, with its text.
    pub fn add_file(&mut self, path: &str, text: &str, wanted: &dyn Fn(&str) -> bool) {
        let p = normalize(path);
        let Some(rel) = self.relative(&p) else {
            return;
        };
        let name = rel.rsplit('/').next().unwrap_or_default();
        let file = if name == INDEX_IGNORE {
            ConfigFile::Ignore(text.to_string())
        } else {
            ConfigFile::Catalog(catalog::read_file(&format!("/{p}"), text, wanted))
        };
        self.files.insert(&p, file);
    }

    /// A whiteout entry at `path` (`…/.wh.name` or `…/.wh..wh..opq`).
    pub fn whiteout(&mut self, path: &str) {
        self.files.whiteout(path);
    }

    /// The catalog of the surviving files, or the first error among them (in path order).
    pub fn finish(self) -> Result<Catalog, CatalogError> {
        let dir = self.dir;
        let mut ignores = BTreeMap::new();
        let mut reads = Vec::new();
        for (p, file) in self.files.into_files() {
            let Some(rel) = relative_to(&dir, &p) else {
                continue;
            };
            match file {
                ConfigFile::Ignore(text) => drop(ignores.insert(rel.to_string(), text)),
                ConfigFile::Catalog(read) => reads.push((rel.to_string(), read)),
            }
        }
        let matchers = matchers(&ignores);
        let mut contents = Vec::with_capacity(reads.len());
        for (rel, read) in reads {
            if ignored(&matchers, &rel) {
                continue;
            }
            contents.push(read?);
        }
        Ok(Catalog::assemble(contents))
    }

    fn relative<'a>(&self, p: &'a str) -> Option<&'a str> {
        relative_to(&self.dir, p)
    }
}

fn relative_to<'a>(dir: &str, p: &'a str) -> Option<&'a str> {
    if dir.is_empty() {
        return Some(p);
    }
    p.strip_prefix(dir)?.strip_prefix('/')
}

fn matchers(ignores: &BTreeMap<String, String>) -> Vec<(String, Gitignore)> {
    let mut out: Vec<(String, Gitignore)> = ignores
        .iter()
        .map(|(rel, text)| {
            let folder = parent(rel).to_string();
            let mut b = GitignoreBuilder::new(Path::new("/").join(&folder));
            for line in text.lines() {
                // A line the gitignore rules cannot read is left out, as go-gitignore leaves it.
                let _ = b.add_line(None, line);
            }
            let g = b.build().unwrap_or_else(|_| Gitignore::empty());
            (folder, g)
        })
        .collect();
    // The deepest folder's rules decide first, as in git.
    out.sort_by_key(|(f, _)| {
        std::cmp::Reverse(f.matches('/').count() + usize::from(!f.is_empty()))
    });
    out
}

fn ignored(matchers: &[(String, Gitignore)], rel: &str) -> bool {
    for (folder, g) in matchers {
        let inside = folder.is_empty() || rel.starts_with(&format!("{folder}/"));
        if !inside {
            continue;
        }
        let m = g.matched_path_or_any_parents(Path::new("/").join(rel), false);
        if m.is_ignore() {
            return true;
        }
        if m.is_whitelist() {
            return false;
        }
    }
    false
}

/// The largest catalog file read (a Red Hat catalog's biggest package file is a few MiB).
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Streams one layer (a gzip- or zstd-compressed or plain tar) into
/// `tree`: the files under the configs folder are read as they pass,
/// whiteouts applied, within the tree's budget: at most [`MAX_FILE_BYTES`]
/// a file, and the layers read into it unpacked to at most
/// [`layer::MAX_STREAM_BYTES`] together, the files passed over counted (a
/// decompression bomb ends in an error, not in an endless read). Whether
/// the layer holds anything of the configs folder (a file, or a whiteout
/// that may remove one): a layer that holds nothing of it need not be read
/// again for other packages.
pub fn read_layer(
    reader: impl Read,
    tree: &mut ConfigsTree,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<bool, LayerError> {
    let mut budget = std::mem::replace(&mut tree.budget, Budget::per_file(0));
    let mut sink = Configs {
        tree,
        wanted,
        touched: false,
    };
    let read = layer::read_tar(reader, &mut sink, &mut budget);
    let touched = sink.touched;
    tree.budget = budget;
    read.map(|()| touched)
}

/// The configs tree with the packages wanted, as a [`LayerSink`].
struct Configs<'a> {
    tree: &'a mut ConfigsTree,
    wanted: &'a dyn Fn(&str) -> bool,
    /// Whether the layer holds anything of the configs folder.
    touched: bool,
}

impl LayerSink for Configs<'_> {
    fn next_layer(&mut self) {
        self.tree.next_layer();
    }
    fn concerns(&mut self, path: &str) -> bool {
        let concerns = self.tree.concerns(path);
        self.touched |= concerns;
        concerns
    }
    fn whiteout(&mut self, path: &str) {
        self.touched |= self.tree.concerns(path);
        self.tree.whiteout(path);
    }
    fn add(&mut self, path: &str, body: Vec<u8>) {
        self.tree
            .add_file(path, &String::from_utf8_lossy(&body), self.wanted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oci::layer::testing::{gzip, tar_of};

    fn pkg(name: &str) -> String {
        format!("{{\"schema\":\"olm.package\",\"name\":\"{name}\"}}\n")
    }

    fn names(tree: ConfigsTree) -> Vec<String> {
        tree.finish().unwrap().packages.into_keys().collect()
    }

    #[test]
    fn later_layers_replace_and_whiteouts_remove() {
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("/configs");
        t.add_file("configs/a/catalog.json", &pkg("a"), &all);
        t.add_file("configs/b/catalog.json", &pkg("b"), &all);
        t.add_file("configs/c/catalog.json", &pkg("c"), &all);
        t.add_file("etc/passwd", "root", &all);
        t.next_layer();
        t.whiteout("configs/b/.wh.catalog.json");
        t.add_file("configs/c/catalog.json", &pkg("c2"), &all);
        assert_eq!(names(t), ["a", "c2"]);
    }

    #[test]
    fn an_opaque_folder_hides_only_earlier_layers() {
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("configs");
        t.add_file("configs/a/catalog.json", &pkg("a"), &all);
        t.next_layer();
        t.add_file("configs/b.json", &pkg("b"), &all);
        t.whiteout("configs/.wh..wh..opq");
        assert_eq!(names(t), ["b"]);
        let mut t = ConfigsTree::new("configs");
        t.add_file("configs/a.json", &pkg("a"), &all);
        t.next_layer();
        t.whiteout(".wh.configs");
        assert!(names(t).is_empty(), "whiteout of the folder itself");
    }

    /// operator-registry `TestWalkFS`'s shape: `.indexignore` at the root
    /// and in a sub-folder, patterns relative to their folder; a broken
    /// file that is ignored is not an error.
    #[test]
    fn indexignore_files_are_honoured() {
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("configs");
        t.add_file("configs/.indexignore", "*.md\n/junk\n", &all);
        t.add_file("configs/README.md", "# not a catalog {", &all);
        t.add_file("configs/junk/x.json", "{broken", &all);
        t.add_file("configs/a/.indexignore", "skip.yaml\n", &all);
        t.add_file("configs/a/skip.yaml", "schema: [", &all);
        t.add_file(
            "configs/a/catalog.yaml",
            "schema: olm.package\nname: a\n",
            &all,
        );
        t.add_file("configs/sub/junk/y.json", &pkg("kept"), &all);
        assert_eq!(names(t), ["a", "kept"]);
    }

    #[test]
    fn layers_are_read_with_their_whiteouts() {
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("/configs");
        let first = tar_of(&[
            ("configs/a/catalog.json", &pkg("a")),
            ("configs/b/catalog.json", &pkg("b")),
            ("bin/x", "elf"),
        ]);
        let touched = read_layer(&gzip(&first)[..], &mut t, &all).unwrap();
        assert!(touched, "configs files");
        let whiteout = tar_of(&[("configs/b/.wh.catalog.json", "")]);
        assert!(
            read_layer(&whiteout[..], &mut t, &all).unwrap(),
            "a whiteout in it"
        );
        let other = tar_of(&[("tmp/cache/x", "{}"), ("tmp/.wh.y", "")]);
        assert!(
            !read_layer(&other[..], &mut t, &all).unwrap(),
            "nothing of it"
        );
        assert_eq!(names(t), ["a"]);
    }

    /// The layers of one tree share its budget: a layer of files passed
    /// over (outside the configs folder) counts, and the next layer passes
    /// the cap, naming the entry.
    #[test]
    fn the_layers_of_a_catalog_unpack_within_one_budget() {
        let all = |_: &str| true;
        let passed_over = "x".repeat(1000);
        let base = gzip(&tar_of(&[("usr/bin/opm", &passed_over)]));
        let configs = tar_of(&[("configs/a/catalog.json", &pkg("a"))]);
        let mut t = ConfigsTree::with_budget(
            "configs",
            Budget::per_file(MAX_FILE_BYTES).with_stream(2560),
        );
        // The base layer unpacks to 2,048 bytes (header, body padded to
        // 1,024, end block), the configs layer's header to 512 more: its
        // file passes the cap.
        assert!(!read_layer(&base[..], &mut t, &all).unwrap());
        let e = read_layer(&configs[..], &mut t, &all).unwrap_err();
        assert_eq!(
            e.to_string(),
            "configs/a/catalog.json: the layers unpack past 2560 bytes in all (files passed over counted)"
        );
        let mut t = ConfigsTree::new("configs");
        read_layer(&base[..], &mut t, &all).unwrap();
        read_layer(&configs[..], &mut t, &all).unwrap();
        assert_eq!(names(t), ["a"]);
    }

    #[test]
    fn a_surviving_broken_file_is_the_error() {
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("configs");
        t.add_file(
            "configs/a.json",
            "{\"schema\":\"olm.package\",\"name\":\"a\"}\n{oops",
            &all,
        );
        let e = t.finish().unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("/configs/a.json", 2), "{e}");
    }
}
