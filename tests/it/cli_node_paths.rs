//! Node paths resolved as the host resolves them (issue 22), proven against
//! the real oracles over a generated matrix of link shapes:
//!
//! - the kernel: each case is a node tree in a temp folder; the plugin reads
//!   it through the fake API server's `pods/exec` (the script run by the real
//!   `sh` with the tree as `/rootfs`) into a collected folder, and every
//!   path must read as `chroot TREE /usr/bin/cat PATH` reads it — the same
//!   bytes, or the same error (`no such file or directory`, `too many levels
//!   of symbolic links`, `not a directory`, `is a directory`);
//! - skopeo: the same kind of tree with skopeo and its libraries linked in,
//!   `chroot TREE skopeo --debug inspect` against refused local ports: the
//!   sources it tries, in order (its `Trying to access` lines), or that it
//!   cannot load the configuration at all, must be what `explain --node`
//!   says. A chroot, not a bind mount over /etc/containers: absolute link
//!   targets must resolve inside the tree, as on the node. skopeo 1.9
//!   (containers/image 5.23) fails on a drop-in whose link dangles where
//!   the containers/image of current CRI-O skips it (it ignores ENOENT
//!   between listing and reading), so that ending is left out of the skopeo
//!   matrix; the kernel matrix has it.
//!
//! Both need root (chroot); without it they print why and pass.

use crate::support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

use mirrorpolicy::node_files::{FileKind, NodeFiles};
use mirrorpolicy::source::node_dir;

use support::apiserver::{Builder, FakeApiServer};
use support::bin;

/// A small deterministic generator (xorshift64*), so a failing case can be
/// rebuilt from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

/// How one link of a chain names the next one.
#[derive(Debug, Clone, Copy)]
enum Hop {
    /// `/srv/c/h3`
    Absolute,
    /// `../../srv/c/h3`, up to the root exactly
    Relative,
    /// `../../../../../../srv/c/h3`: above the root, where `..` stays at `/`
    Climbing,
    /// `/srv/via/h3`, `/srv/via` a link to the folder `/srv/c`
    ThroughFolderLink,
    /// `/srv/./c/../c/h3`
    Dots,
}

const HOPS: &[Hop] = &[
    Hop::Absolute,
    Hop::Relative,
    Hop::Climbing,
    Hop::ThroughFolderLink,
    Hop::Dots,
];

/// Where the last link of a chain leads.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// A regular file.
    File,
    /// Nothing there.
    Dangling,
    /// Back to the first link.
    Loop,
    /// A folder.
    Folder,
    /// Through a regular file as if it were a folder.
    ThroughFile,
    /// A regular file named with a trailing slash.
    TrailingSlash,
}

const ENDS: &[End] = &[
    End::File,
    End::File,
    End::File,
    End::Dangling,
    End::Loop,
    End::Folder,
    End::ThroughFile,
    End::TrailingSlash,
];

/// Chain lengths (links after the first), around the kernel's limit of 40.
const LENGTHS: &[usize] = &[0, 0, 1, 2, 3, 5, 38, 39, 40];

/// A node tree being built: real folders and files first, links last, so
/// nothing is ever written through a link (which would leave the tree).
struct Tree {
    root: PathBuf,
    links: Vec<(String, String)>,
}

impl Tree {
    fn new(root: PathBuf) -> Self {
        fs::create_dir_all(root.join("etc")).unwrap();
        Self {
            root,
            links: Vec::new(),
        }
    }

    fn local(&self, host: &str) -> PathBuf {
        self.root.join(host.trim_start_matches('/'))
    }

    fn file(&self, host: &str, bytes: &[u8]) {
        let path = self.local(host);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    fn folder(&self, host: &str) {
        fs::create_dir_all(self.local(host)).unwrap();
    }

    fn link(&mut self, host: &str, target: &str) {
        self.links.push((host.to_string(), target.to_string()));
    }

    /// Creates the links, each in a real folder.
    fn finish(&self) {
        for (host, target) in &self.links {
            let path = self.local(host);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            symlink(target, path).unwrap();
        }
    }

    /// Hard-links (or copies) `binaries` and the libraries `ldd` names for
    /// them into the tree, at the same paths, for `chroot TREE BINARY`.
    fn tools(&self, binaries: &[&str]) {
        let out = Command::new("ldd").args(binaries).output().unwrap();
        let listed = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut paths: Vec<String> = binaries.iter().map(|b| b.to_string()).collect();
        for word in listed.split_whitespace() {
            if word.starts_with('/') && !word.ends_with(':') {
                paths.push(word.to_string());
            }
        }
        for path in paths {
            let source = fs::canonicalize(&path).unwrap();
            let dest = self.local(&path);
            if dest.exists() {
                continue;
            }
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            if fs::hard_link(&source, &dest).is_err() {
                fs::copy(&source, &dest).unwrap();
            }
        }
    }
}

/// How the parent folder of the probed path is reached.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Parent {
    Real,
    /// `/etc/containers` is a link to `/usr/etc/containers`.
    LinkedContainers,
    /// `/etc/containers/registries.conf.d` is a link to `/srv/dropins`.
    LinkedDropIns,
}

const REGISTRIES_CONF: &str = "/etc/containers/registries.conf";
const DROP_IN: &str = "/etc/containers/registries.conf.d/50-case.conf";

/// The paths a case probes.
const PROBED: &[&str] = &[
    "/etc/containers/registries.conf",
    "/etc/containers/policy.json",
    "/etc/containers/registries.conf.d/50-case.conf",
    "/etc/containers/registries.d/case.yaml",
    "/etc/docker/certs.d/mirror.example.com:5000/ca.crt",
];

/// One generated case: a link chain at `path`.
#[derive(Debug)]
struct Case {
    path: &'static str,
    parent: Parent,
    hops: Vec<Hop>,
    end: End,
}

/// The folder `host` physically is in, once `parent` is taken into account.
fn physical(path: &str, parent: Parent) -> String {
    match parent {
        Parent::LinkedContainers => path.replacen("/etc/containers/", "/usr/etc/containers/", 1),
        Parent::LinkedDropIns => {
            path.replacen("/etc/containers/registries.conf.d/", "/srv/dropins/", 1)
        }
        Parent::Real => path.to_string(),
    }
}

fn depth(physical_path: &str) -> usize {
    physical_path.trim_start_matches('/').matches('/').count()
}

/// How the link at `from` (a physical host path) names `to`.
fn name_of(hop: Hop, from: &str, to: &str) -> String {
    let rest = to.trim_start_matches('/');
    match hop {
        Hop::Absolute => to.to_string(),
        Hop::Relative => format!("{}{rest}", "../".repeat(depth(from))),
        Hop::Climbing => format!("{}{rest}", "../".repeat(depth(from) + 3)),
        Hop::ThroughFolderLink => to.replacen("/srv/c/", "/srv/via/", 1),
        Hop::Dots => to.replacen("/srv/c/", "/srv/./c/../c/", 1),
    }
}

fn generate(rng: &mut Rng) -> Case {
    let path = *rng.pick(PROBED);
    let parent = match path {
        p if p.starts_with("/etc/containers/registries.conf.d/") => *rng.pick(&[
            Parent::Real,
            Parent::LinkedContainers,
            Parent::LinkedDropIns,
        ]),
        p if p.starts_with("/etc/containers/") => {
            *rng.pick(&[Parent::Real, Parent::Real, Parent::LinkedContainers])
        }
        _ => Parent::Real,
    };
    let length = *rng.pick(LENGTHS);
    let hops = (0..=length).map(|_| *rng.pick(HOPS)).collect();
    Case {
        path,
        parent,
        hops,
        end: *rng.pick(ENDS),
    }
}

/// Builds the case's tree: `content` at the end of the chain when it ends
/// at a file.
fn build(case: &Case, root: PathBuf, content: &[u8]) -> Tree {
    let mut tree = Tree::new(root);
    tree.folder("/srv/c");
    tree.folder(&physical("/etc/containers/registries.d/", case.parent));
    tree.file("/srv/data/file", content);
    tree.link("/srv/via", "c");
    match case.parent {
        Parent::LinkedContainers => {
            tree.folder("/usr/etc/containers/registries.conf.d");
            tree.link("/etc/containers", "/usr/etc/containers");
        }
        Parent::LinkedDropIns => {
            tree.folder("/srv/dropins");
            tree.link("/etc/containers/registries.conf.d", "/srv/dropins");
        }
        Parent::Real => {}
    }
    // Link k sits at `at[k]` (physical) and names link k+1, the last one
    // names the end.
    let first = physical(case.path, case.parent);
    let mut at = vec![first.clone()];
    for k in 1..case.hops.len() {
        at.push(format!("/srv/c/h{k}"));
    }
    for (k, hop) in case.hops.iter().enumerate() {
        let target = if k + 1 < case.hops.len() {
            name_of(*hop, &at[k], &at[k + 1])
        } else {
            match case.end {
                End::File => name_of(*hop, &at[k], "/srv/c/../data/file"),
                End::Dangling => "/nowhere/file".to_string(),
                End::Loop => case.path.to_string(),
                End::Folder => name_of(*hop, &at[k], "/srv/c/../data"),
                End::ThroughFile => "/srv/data/file/x".to_string(),
                End::TrailingSlash => "/srv/data/file/".to_string(),
            }
        };
        tree.link(&at[k], &target);
    }
    tree
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `chroot root cat path`: the bytes, or the error as strerror words in
/// lower case.
fn kernel_reads(root: &Path, path: &str) -> Result<Vec<u8>, String> {
    let out = Command::new("chroot")
        .arg(root)
        .args(["/usr/bin/cat", path])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    if out.status.success() {
        return Ok(out.stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
    let why = stderr.trim().rsplit(": ").next().unwrap_or_default();
    Err(why.to_string())
}

fn fake_cluster(names: &[String], roots: &Path, dir: &Path) -> (FakeApiServer, PathBuf) {
    let mut yaml = String::new();
    let mut builder = Builder::openshift();
    for name in names {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n---\n"
        ));
        builder = builder.node_root(name, roots.join(name));
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let server = builder.objects_from_yaml(&yaml).daemon_pods(&refs).start();
    let kubeconfig = server.write_kubeconfig(dir);
    (server, kubeconfig)
}

fn collect(kubeconfig: &Path, dest: &Path) -> Vec<NodeFiles> {
    let out = bin()
        .env("KUBECONFIG", kubeconfig)
        .args(["collect-node-files", "--dest-dir"])
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    node_dir::read(dest).unwrap()
}

/// The kernel's own path resolution, over 64 generated link shapes: what
/// the plugin reads through the daemon pod (and from the folder it
/// collects) is what `chroot TREE cat PATH` reads, or fails the same way.
#[test]
fn issue_22_paths_resolve_as_the_kernel_resolves_them() {
    if !is_root() {
        eprintln!("not root: chroot needs root; the kernel oracle is skipped (CI runs it as root)");
        return;
    }
    let dir = TempDir::new().unwrap();
    let roots = dir.path().join("roots");
    let mut rng = Rng(0x5eed_0022_1234_5678);
    let mut cases = Vec::new();
    let mut names = Vec::new();
    // The kernel's limit exactly (40 links read, 41 refused), and the two
    // shapes of the issue, then generated ones.
    let fixed = [
        (REGISTRIES_CONF, vec![Hop::Absolute; 40]),
        (REGISTRIES_CONF, vec![Hop::Absolute; 41]),
        (REGISTRIES_CONF, vec![Hop::Absolute, Hop::Absolute]),
        (DROP_IN, vec![Hop::Climbing]),
    ];
    for i in 0..64 {
        let case = match fixed.get(i) {
            Some((path, hops)) => Case {
                path,
                parent: Parent::Real,
                hops: hops.clone(),
                end: End::File,
            },
            None => generate(&mut rng),
        };
        let name = format!("case-{i:02}");
        let content = format!("content of {name}: {case:?}\n").into_bytes();
        let tree = build(&case, roots.join(&name), &content);
        tree.finish();
        tree.tools(&["/usr/bin/cat"]);
        names.push(name);
        cases.push(case);
    }
    let (_server, kubeconfig) = fake_cluster(&names, &roots, dir.path());
    let collected = collect(&kubeconfig, &dir.path().join("collected"));
    assert!(collected[0].files.contains_key(REGISTRIES_CONF), "40 links");
    assert_eq!(
        collected[1].unreadable[REGISTRIES_CONF], "too many levels of symbolic links",
        "41 links"
    );
    let mut errors_seen = std::collections::BTreeSet::new();
    for (name, case) in names.iter().zip(&cases) {
        let files = collected.iter().find(|n| &n.node == name).unwrap();
        let at = format!("{name} {case:?}");
        let kernel = kernel_reads(&roots.join(name), case.path);
        let meta = &files.meta[case.path];
        assert_eq!(meta.kind(), FileKind::Link, "{at}");
        match kernel {
            Ok(bytes) if case.path.contains("/certs.d/") => {
                assert_eq!(
                    files.certs.get(case.path),
                    Some(&mirrorpolicy::digest::sha256_hex(&bytes)),
                    "{at}"
                );
            }
            Ok(bytes) => {
                assert_eq!(files.files.get(case.path), Some(&bytes), "{at}");
                assert!(!files.unreadable.contains_key(case.path), "{at}");
            }
            Err(why) => {
                assert!(!files.files.contains_key(case.path), "{at}");
                assert!(!files.certs.contains_key(case.path), "{at}");
                let ours = files
                    .unreadable
                    .get(case.path)
                    .unwrap_or_else(|| panic!("{at}: the kernel says {why:?}, the plugin nothing"));
                assert!(
                    ours.ends_with(&why),
                    "{at}: kernel {why:?}, plugin {ours:?}"
                );
                errors_seen.insert(why);
            }
        }
    }
    // The matrix reached every failure the kernel has for a path.
    for why in [
        "no such file or directory",
        "too many levels of symbolic links",
        "not a directory",
        "is a directory",
    ] {
        assert!(
            errors_seen.contains(why),
            "{why} never generated: {errors_seen:?}"
        );
    }
}

/// What skopeo does with a tree: the pull sources it tries for `image`, in
/// order, or `Err` when it cannot load the registries configuration.
fn skopeo_tries(root: &Path, image: &str) -> Result<Vec<String>, String> {
    let out = Command::new("chroot")
        .arg(root)
        .args([
            "/usr/bin/skopeo",
            "--debug",
            "inspect",
            "--retry-times",
            "0",
        ])
        .arg(format!("docker://{image}"))
        .env("HOME", "/root")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let tried: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.split("msg=\"Trying to access \\\"").nth(1))
        .filter_map(|rest| rest.split("\\\"").next())
        .map(str::to_string)
        .collect();
    if tried.is_empty() {
        return Err(stderr);
    }
    Ok(tried)
}

/// The sources `explain --node` gives for each image, or `Err` with the
/// error when the node's files break every pull.
fn plugin_sources(
    node: &str,
    folder: &Path,
    images: &[String],
) -> Vec<Result<Vec<String>, String>> {
    let out = bin()
        .args(["explain", "-o", "json", "--node", node, "--node-files"])
        .arg(folder)
        .args(images)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let items: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{node}: {e}: {stderr}"));
    let list = items.get("items").unwrap_or(&items);
    list.as_array()
        .unwrap_or_else(|| panic!("{node}: {items}"))
        .iter()
        .map(|item| {
            if let Some(error) = item["error"].as_str() {
                assert_eq!(out.status.code(), Some(1), "{node}: {stderr}");
                return Err(error.to_string());
            }
            Ok(item["candidates"][0]["sources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["reference"].as_str().unwrap().to_string())
                .collect())
        })
        .collect()
}

/// Ends of the skopeo matrix: no dangling drop-in (see the module's doc).
const SKOPEO_ENDS: &[End] = &[End::File, End::File, End::File, End::Loop, End::Folder];

/// A registries configuration naming `prefix` with one mirror on a refused
/// local port, the source on another.
fn registry(prefix: &str, mirror: &str) -> String {
    format!(
        "[[registry]]\nprefix = \"{prefix}\"\nlocation = \"127.0.0.1:1/{mirror}-source\"\n\n[[registry.mirror]]\nlocation = \"127.0.0.1:2/{mirror}\"\n"
    )
}

/// skopeo, reading the tree as CRI-O's containers/image does, tries the
/// sources `explain --node` lists, in the same order, over generated trees
/// whose registries.conf and drop-ins are reached through link chains (and
/// a drop-in folder that is sometimes a link): the drop-ins behind a linked
/// folder are read by neither, a looping or folder drop-in breaks every pull
/// for both.
#[test]
fn issue_22_explain_node_tries_the_sources_skopeo_tries() {
    if !is_root() {
        eprintln!("not root: chroot needs root; the skopeo oracle is skipped (CI runs it as root)");
        return;
    }
    let dir = TempDir::new().unwrap();
    let roots = dir.path().join("roots");
    let mut rng = Rng(0x5c09_e022_8765_4321);
    let mut names = Vec::new();
    for i in 0..12 {
        let name = format!("tree-{i:02}");
        let root = roots.join(&name);
        let linked = i % 3 == 1;
        let mut tree = Tree::new(root.clone());
        tree.folder("/srv/c");
        tree.link("/srv/via", "c");
        let dropins = if linked {
            tree.link("/etc/containers/registries.conf.d", "/srv/dropins");
            "/srv/dropins"
        } else {
            "/etc/containers/registries.conf.d"
        };
        tree.folder(dropins);
        // registries.conf through a chain ending at a file.
        let hops: Vec<Hop> = (0..=*rng.pick(&[0usize, 1, 3]))
            .map(|_| *rng.pick(HOPS))
            .collect();
        chain(
            &mut tree,
            "/etc/containers/registries.conf",
            &hops,
            End::File,
            "main",
            registry("example.com/app", "main").as_bytes(),
        );
        for k in 0..3 {
            let hops: Vec<Hop> = (0..=*rng.pick(&[0usize, 1, 2]))
                .map(|_| *rng.pick(HOPS))
                .collect();
            let end = if i == 0 {
                End::File
            } else {
                *rng.pick(SKOPEO_ENDS)
            };
            chain(
                &mut tree,
                &format!("{dropins}/{k}0-drop.conf"),
                &hops,
                end,
                &format!("d{k}"),
                registry(&format!("example.com/d{k}"), &format!("d{k}")).as_bytes(),
            );
        }
        tree.finish();
        tree.tools(&["/usr/bin/skopeo"]);
        names.push(name);
    }
    let (_server, kubeconfig) = fake_cluster(&names, &roots, dir.path());
    let folder = dir.path().join("collected");
    collect(&kubeconfig, &folder);
    let images: Vec<String> = ["app", "d0", "d1", "d2"]
        .iter()
        .map(|r| format!("example.com/{r}:1"))
        .collect();
    let mut seen = (false, false, false);
    for name in &names {
        let plugin = plugin_sources(name, &folder, &images);
        for (image, ours) in images.iter().zip(plugin) {
            let theirs = skopeo_tries(&roots.join(name), image);
            match (&theirs, &ours) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{name} {image}");
                    if a.len() == 2 && image.contains("/d") {
                        seen.0 = true;
                    }
                    if a.len() == 1 {
                        seen.1 = true;
                    }
                }
                (Err(_), Err(ours)) => {
                    assert!(
                        ours.starts_with(&format!("every pull on node {name} fails")),
                        "{ours}"
                    );
                    seen.2 = true;
                }
                _ => panic!("{name} {image}: skopeo {theirs:?}, plugin {ours:?}"),
            }
        }
    }
    // Drop-ins read through links, drop-ins not read (a linked folder),
    // trees whose configuration breaks every pull: all met.
    assert_eq!(seen, (true, true, true));
}

/// A chain of links at `path` (physical) ending as `end`, with `content`
/// at the end when it is a file (under /srv/data/<tag>).
fn chain(tree: &mut Tree, path: &str, hops: &[Hop], end: End, tag: &str, content: &[u8]) {
    let data = format!("/srv/data/{tag}");
    tree.file(&data, content);
    let mut at = vec![path.to_string()];
    for k in 1..hops.len() {
        at.push(format!("/srv/c/{tag}-h{k}"));
    }
    for (k, hop) in hops.iter().enumerate() {
        let target = if k + 1 < hops.len() {
            name_of(*hop, &at[k], &at[k + 1])
        } else {
            match end {
                End::Loop => path.to_string(),
                End::Folder => "/srv/c".to_string(),
                _ => name_of(*hop, &at[k], &format!("/srv/c/../data/{tag}")),
            }
        };
        tree.link(&at[k], &target);
    }
}
