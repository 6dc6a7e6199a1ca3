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
//! The layering itself ([`Layered`]) and the tar walk ([`read_tar`] into a
//! [`LayerSink`]) are shared with the bundle image's read
//! ([`crate::olm::bundle`]).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::catalog::{self, Catalog, CatalogError, FileContent};

const INDEX_IGNORE: &str = ".indexignore";
const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";

/// The files of an image's root file system as its layers build it: a
/// later layer's file replaces an earlier one, `.wh.<name>` removes a path
/// and `.wh..wh..opq` empties a folder of what earlier layers put there.
/// Paths are kept normalized (no leading `/` or `./`).
pub struct Layered<T> {
    layer: usize,
    files: BTreeMap<String, (usize, T)>,
}

impl<T> Default for Layered<T> {
    fn default() -> Self {
        Layered {
            layer: 0,
            files: BTreeMap::new(),
        }
    }
}

impl<T> Layered<T> {
    /// Starts the next layer: an opaque folder hides only earlier layers.
    pub fn next_layer(&mut self) {
        self.layer += 1;
    }

    /// A regular file of the current layer.
    pub fn insert(&mut self, path: &str, value: T) {
        self.files.insert(normalize(path), (self.layer, value));
    }

    /// A whiteout entry at `path` (`…/.wh.name` or `…/.wh..wh..opq`).
    pub fn whiteout(&mut self, path: &str) {
        let p = normalize(path);
        let (folder, name) = match p.rsplit_once('/') {
            Some((f, n)) => (f.to_string(), n),
            None => (String::new(), p.as_str()),
        };
        let layer = self.layer;
        if name == OPAQUE {
            let inside = |k: &str| folder.is_empty() || k.starts_with(&format!("{folder}/"));
            self.files.retain(|k, v| !(v.0 < layer && inside(k)));
        } else if let Some(target) = name.strip_prefix(WHITEOUT) {
            let removed = join(&folder, target);
            let under = format!("{removed}/");
            self.files
                .retain(|k, _| k != &removed && !k.starts_with(&under));
        }
    }

    /// The surviving files, in path order.
    pub fn into_files(self) -> impl Iterator<Item = (String, T)> {
        self.files.into_iter().map(|(k, (_, v))| (k, v))
    }
}

/// Where the layers of an image are streamed to: [`read_tar`] hands it
/// every whiteout and every regular file it is concerned with.
pub trait LayerSink {
    /// Starts the next layer.
    fn next_layer(&mut self);
    /// Whether a regular file at `path` is read.
    fn concerns(&self, path: &str) -> bool;
    /// A whiteout entry.
    fn whiteout(&mut self, path: &str);
    /// A regular file of the current layer, with its text.
    fn add(&mut self, path: &str, text: &str);
}

/// A file of the configs folder: a catalog file read, or an `.indexignore`'s text.
enum ConfigFile {
    Catalog(Result<FileContent, CatalogError>),
    Ignore(String),
}

/// The configs folder as the layers have built it so far.
pub struct ConfigsTree {
    dir: String,
    files: Layered<ConfigFile>,
}

impl ConfigsTree {
    /// A tree for the configs folder `dir` (the label's value, absolute or not).
    pub fn new(dir: &str) -> ConfigsTree {
        ConfigsTree {
            dir: normalize(dir),
            files: Layered::default(),
        }
    }

    /// Starts the next layer: an opaque folder hides only earlier layers.
    pub fn next_layer(&mut self) {
        self.files.next_layer();
    }

    /// Whether a layer entry at `path` concerns the configs folder (a file
    /// under it, or a whiteout that may remove one).
    pub fn concerns(&self, path: &str) -> bool {
        let p = normalize(path);
        let under = self.relative(&p).is_some();
        under || (p.contains(WHITEOUT) && self.dir.starts_with(parent(&p)))
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
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Streams one layer (a gzip-compressed or plain tar) into `tree`: the
/// files under the configs folder are read as they pass, whiteouts applied.
pub fn read_layer(
    reader: impl Read,
    tree: &mut ConfigsTree,
    wanted: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    read_tar(reader, &mut Configs { tree, wanted })
}

/// The configs tree with the packages wanted, as a [`LayerSink`].
struct Configs<'a> {
    tree: &'a mut ConfigsTree,
    wanted: &'a dyn Fn(&str) -> bool,
}

impl LayerSink for Configs<'_> {
    fn next_layer(&mut self) {
        self.tree.next_layer();
    }
    fn concerns(&self, path: &str) -> bool {
        self.tree.concerns(path)
    }
    fn whiteout(&mut self, path: &str) {
        self.tree.whiteout(path);
    }
    fn add(&mut self, path: &str, text: &str) {
        self.tree.add_file(path, text, self.wanted);
    }
}

/// Streams one layer (a gzip- or zstd-compressed or plain tar) into
/// `sink`: whiteouts handed over, the files it is concerned with read.
pub fn read_tar(reader: impl Read, sink: &mut dyn LayerSink) -> Result<(), String> {
    let mut reader = reader;
    let head = crate::upgrade::payload::read_magic(&mut reader).map_err(|e| e.to_string())?;
    let buffered = BufReader::new(std::io::Cursor::new(head.clone()).chain(reader));
    let stream: Box<dyn Read> = if head.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(buffered))
    } else if head.starts_with(&ZSTD_MAGIC) {
        Box::new(ZstdFrames::new(buffered))
    } else {
        Box::new(buffered)
    };
    sink.next_layer();
    let mut archive = tar::Archive::new(stream);
    for entry in archive.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let path = entry
            .path()
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .into_owned();
        let name = path.rsplit('/').next().unwrap_or_default();
        if name.starts_with(WHITEOUT) {
            sink.whiteout(&path);
            continue;
        }
        if !entry.header().entry_type().is_file() || !sink.concerns(&path) {
            continue;
        }
        if entry.size() > MAX_FILE_BYTES {
            return Err(format!("{path} is larger than {MAX_FILE_BYTES} bytes"));
        }
        let mut body = Vec::new();
        entry
            .read_to_end(&mut body)
            .map_err(|e| format!("{path}: {e}"))?;
        let text = String::from_utf8_lossy(&body);
        sink.add(&path, &text);
    }
    Ok(())
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// A zstd stream of one frame or more (zstd:chunked layers are many),
/// skippable frames passed over, as the zstd library's reader reads it.
struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: ruzstd::decoding::FrameDecoder,
    in_frame: bool,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        ZstdFrames {
            source,
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
        }
    }

    /// Starts the next frame; false at the end of the stream.
    fn next_frame(&mut self) -> std::io::Result<bool> {
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.init(&mut self.source) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    let skipped = std::io::copy(
                        &mut (&mut self.source).take(u64::from(length)),
                        &mut std::io::sink(),
                    )?;
                    if skipped < u64::from(length) {
                        return Err(std::io::Error::other("a skippable zstd frame is cut short"));
                    }
                }
                Err(e) => return Err(std::io::Error::other(e)),
            }
        }
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                self.in_frame = true;
            }
            let d = &mut self.decoder;
            while d.can_collect() < buf.len() && !d.is_finished() {
                let wanted = BlockDecodingStrategy::UptoBytes(buf.len() - d.can_collect());
                d.decode_blocks(&mut self.source, wanted)
                    .map_err(std::io::Error::other)?;
            }
            let n = d.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            self.in_frame = false;
        }
    }
}

/// A path without `./`, leading or trailing `/`.
fn normalize(p: &str) -> String {
    let p = p.trim_start_matches("./").trim_matches('/');
    p.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(f, _)| f)
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn layers_are_read_gzip_plain_or_zstd() {
        let tar_of = |files: &[(&str, &str)]| {
            let mut b = tar::Builder::new(Vec::new());
            for (path, body) in files {
                let mut h = tar::Header::new_gnu();
                h.set_size(body.len() as u64);
                h.set_mode(0o644);
                h.set_cksum();
                b.append_data(&mut h, path, body.as_bytes()).unwrap();
            }
            b.into_inner().unwrap()
        };
        let all = |_: &str| true;
        let mut t = ConfigsTree::new("/configs");
        let first = tar_of(&[
            ("configs/a/catalog.json", &pkg("a")),
            ("configs/b/catalog.json", &pkg("b")),
            ("bin/x", "elf"),
        ]);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &first).unwrap();
        read_layer(&gz.finish().unwrap()[..], &mut t, &all).unwrap();
        read_layer(
            &tar_of(&[("configs/b/.wh.catalog.json", "")])[..],
            &mut t,
            &all,
        )
        .unwrap();
        assert_eq!(names(t), ["a"]);
        // zstd, in two frames with a skippable frame between (as zstd:chunked writes them).
        let layer = tar_of(&[
            ("configs/z/catalog.json", &pkg("z")),
            ("configs/y/catalog.json", &pkg("y")),
        ]);
        let (one, two) = layer.split_at(700);
        let level = ruzstd::encoding::CompressionLevel::Fastest;
        let mut zstd = ruzstd::encoding::compress_to_vec(one, level);
        zstd.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        zstd.extend(ruzstd::encoding::compress_to_vec(two, level));
        let mut t = ConfigsTree::new("configs");
        read_layer(&zstd[..], &mut t, &all).unwrap();
        assert_eq!(names(t), ["y", "z"]);
        let broken = [0x28, 0xb5, 0x2f, 0xfd, 0, 0];
        assert!(read_layer(&broken[..], &mut ConfigsTree::new("configs"), &all).is_err());
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
