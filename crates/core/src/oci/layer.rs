//! An image's layers put together as the container's root file system:
//! each layer a tar archive, gzip- or zstd-compressed or plain (the magic
//! numbers decide, as containers/image's `DetectCompression`); a later
//! layer's file replaces an earlier one, `.wh.<name>` removes a path and
//! `.wh..wh..opq` empties a folder of what earlier layers put there (the
//! OCI image spec, `layer.md`). [`read_tar`] streams one layer into a
//! [`LayerSink`], which says which files it reads; [`Layered`] keeps what
//! survives. Each file read is bounded ([`Budget`]): a file past the cap
//! per file, or past the total of an image, stops the read.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};

const WHITEOUT: &str = ".wh.";
const OPAQUE: &str = ".wh..wh..opq";
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

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

    /// The files so far, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &T)> {
        self.files.iter().map(|(k, (_, v))| (k.as_str(), v))
    }

    /// The surviving files, in path order.
    pub fn into_files(self) -> impl Iterator<Item = (String, T)> {
        self.files.into_iter().map(|(k, (_, v))| (k, v))
    }
}

/// Whether a layer entry at `path` is a whiteout (`.wh.<name>`, `.wh..wh..opq`).
pub fn is_whiteout(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|name| name.starts_with(WHITEOUT))
}

/// Where the layers of an image are streamed to: [`read_tar`] hands it
/// every whiteout and every regular file it is concerned with.
pub trait LayerSink {
    /// Starts the next layer.
    fn next_layer(&mut self);
    /// Whether a regular file at `path` (as the tar names it) is read
    /// (a sink may note the files it passes over).
    fn concerns(&mut self, path: &str) -> bool;
    /// A whiteout entry.
    fn whiteout(&mut self, path: &str);
    /// A regular file of the current layer, with its bytes.
    fn add(&mut self, path: &str, body: Vec<u8>);
}

/// How much of an image's files is read: at most `per_file` bytes of one
/// file, and at most `total` (when set) of all files read, over every
/// layer streamed with this budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub per_file: u64,
    pub total: Option<u64>,
    /// Bytes read so far.
    pub read: u64,
}

impl Budget {
    /// At most `per_file` bytes per file, no total.
    pub fn per_file(per_file: u64) -> Budget {
        Budget {
            per_file,
            total: None,
            read: 0,
        }
    }

    /// With a total cap of `total` bytes over all files.
    pub fn with_total(self, total: u64) -> Budget {
        Budget {
            total: Some(total),
            ..self
        }
    }

    /// Takes `size` bytes of the file at `path`, or says which cap it passes.
    fn take(&mut self, path: &str, size: u64) -> Result<(), LayerError> {
        if size > self.per_file {
            return Err(LayerError::FileTooLarge {
                path: path.to_string(),
                limit: self.per_file,
            });
        }
        let read = self.read.saturating_add(size);
        if let Some(total) = self.total.filter(|t| read > *t) {
            return Err(LayerError::TotalTooLarge {
                path: path.to_string(),
                limit: total,
            });
        }
        self.read = read;
        Ok(())
    }
}

/// How a layer's bytes are compressed, by their magic numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
    None,
}

impl Compression {
    /// The compression the first bytes of a stream name.
    pub fn of(head: &[u8]) -> Compression {
        if head.starts_with(&GZIP_MAGIC) {
            Compression::Gzip
        } else if head.starts_with(&ZSTD_MAGIC) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Why a layer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayerError {
    /// The stream failed (the network, the gzip or zstd decoder).
    #[error("{0}")]
    Read(String),
    /// The tar reader's own complaint: the (decompressed) bytes are no tar.
    #[error("{message}")]
    NotTar {
        message: String,
        compression: Compression,
        /// The first bytes of the (decompressed) stream, in hex.
        found: String,
    },
    #[error("{path} is larger than {limit} bytes")]
    FileTooLarge { path: String, limit: u64 },
    #[error("{path} takes the files read past {limit} bytes in all")]
    TotalTooLarge { path: String, limit: u64 },
    #[error("{path}: {message}")]
    File { path: String, message: String },
}

/// How many leading bytes of a layer a [`LayerError::NotTar`] shows.
const SHOWN_BYTES: usize = 16;

/// A reader that keeps the first [`SHOWN_BYTES`] bytes read through it.
struct Head<R> {
    inner: R,
    seen: std::rc::Rc<std::cell::RefCell<Vec<u8>>>,
}

impl<R: Read> Read for Head<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut seen = self.seen.borrow_mut();
        let room = SHOWN_BYTES.saturating_sub(seen.len()).min(n);
        seen.extend_from_slice(&buf[..room]);
        Ok(n)
    }
}

/// The first four bytes of a layer (fewer when it is shorter): the magic
/// numbers are read whole before choosing, as a registry, proxy or TLS
/// terminator may hand the first byte alone.
pub fn read_magic(reader: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(4);
    while head.len() < 4 {
        let mut byte = [0u8; 4];
        let want = 4 - head.len();
        match reader.read(&mut byte[..want]) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&byte[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(head)
}

/// Streams one layer (a gzip- or zstd-compressed or plain tar) into
/// `sink`: whiteouts handed over, the files it is concerned with read
/// within `budget`. Bytes that are no tar archive are said as such
/// ([`LayerError::NotTar`], with the first bytes), apart from the
/// stream's own failures.
pub fn read_tar(
    reader: impl Read,
    sink: &mut dyn LayerSink,
    budget: &mut Budget,
) -> Result<(), LayerError> {
    let mut reader = reader;
    let head = read_magic(&mut reader).map_err(|e| LayerError::Read(e.to_string()))?;
    let compression = Compression::of(&head);
    let buffered = BufReader::new(std::io::Cursor::new(head).chain(reader));
    let stream: Box<dyn Read> = match compression {
        Compression::Gzip => Box::new(flate2::read::GzDecoder::new(buffered)),
        Compression::Zstd => Box::new(ZstdFrames::new(buffered)),
        Compression::None => Box::new(buffered),
    };
    let seen = std::rc::Rc::default();
    let stream = Head {
        inner: stream,
        seen: std::rc::Rc::clone(&seen),
    };
    let failed = |e: std::io::Error| {
        // The tar reader's own complaints (kind `Other`) quote the bytes it
        // read; anything else is the stream's (gzip, zstd, the network).
        if e.kind() != std::io::ErrorKind::Other {
            return LayerError::Read(e.to_string());
        }
        let found: Vec<String> = seen.borrow().iter().map(|b| format!("{b:02x}")).collect();
        LayerError::NotTar {
            message: e.to_string(),
            compression,
            found: found.join(" "),
        }
    };
    sink.next_layer();
    let mut archive = tar::Archive::new(stream);
    for entry in archive.entries().map_err(failed)? {
        let mut entry = entry.map_err(failed)?;
        let path = entry.path().map_err(failed)?.to_string_lossy().into_owned();
        if is_whiteout(&path) {
            sink.whiteout(&path);
            continue;
        }
        if !entry.header().entry_type().is_file() || !sink.concerns(&path) {
            continue;
        }
        budget.take(&path, entry.size())?;
        let mut body = Vec::new();
        entry.read_to_end(&mut body).map_err(|e| LayerError::File {
            path: path.clone(),
            message: e.to_string(),
        })?;
        sink.add(&path, body);
    }
    Ok(())
}

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
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            "a skippable zstd frame is cut short",
                        ));
                    }
                }
                Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
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
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            }
            let n = d.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            self.in_frame = false;
        }
    }
}

/// A path without `./`, leading or trailing `/`, or empty and `.` components.
pub fn normalize(p: &str) -> String {
    let p = p.trim_start_matches("./").trim_matches('/');
    p.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The folder of a normalized path (`""` at the root).
pub fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(f, _)| f)
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

/// Layers for the tests of the modules that read them.
#[cfg(test)]
pub(crate) mod testing {
    /// A plain tar of text files, each a regular file.
    pub fn tar_of(files: &[(&str, &str)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (path, body) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(body.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, path, body.as_bytes()).unwrap();
        }
        b.into_inner().unwrap()
    }

    /// `raw` gzip-compressed.
    pub fn gzip(raw: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, raw).unwrap();
        e.finish().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{gzip, tar_of};
    use super::*;

    /// Every file, as text.
    #[derive(Default)]
    struct All(Layered<String>);

    impl LayerSink for All {
        fn next_layer(&mut self) {
            self.0.next_layer();
        }
        fn concerns(&mut self, _: &str) -> bool {
            true
        }
        fn whiteout(&mut self, path: &str) {
            self.0.whiteout(path);
        }
        fn add(&mut self, path: &str, body: Vec<u8>) {
            self.0
                .insert(path, String::from_utf8_lossy(&body).into_owned());
        }
    }

    fn paths(sink: All) -> Vec<String> {
        sink.0.into_files().map(|(p, _)| p).collect()
    }

    #[test]
    fn later_layers_replace_whiteouts_remove_opaque_folders_hide_earlier_layers() {
        let mut l = All::default();
        for p in ["a/x", "b/y", "c/z", "d/w"] {
            l.0.insert(p, "1".into());
        }
        l.next_layer();
        l.whiteout("./b/.wh.y");
        l.whiteout(".wh.c");
        l.0.insert("/d/v", "2".into());
        l.whiteout("d/.wh..wh..opq");
        assert_eq!(paths(l), ["a/x", "d/v"]);
    }

    #[test]
    fn layers_are_read_gzip_plain_or_zstd() {
        let mut l = All::default();
        let mut budget = Budget::per_file(1 << 20);
        let first = gzip(&tar_of(&[("a/x", "1"), ("b/y", "2")]));
        read_tar(&first[..], &mut l, &mut budget).unwrap();
        read_tar(&tar_of(&[("b/.wh.y", "")])[..], &mut l, &mut budget).unwrap();
        // zstd, in two frames with a skippable frame between (as zstd:chunked writes them).
        let layer = tar_of(&[("z/1", "z"), ("y/1", "y")]);
        let (one, two) = layer.split_at(700);
        let level = ruzstd::encoding::CompressionLevel::Fastest;
        let mut zstd = ruzstd::encoding::compress_to_vec(one, level);
        zstd.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
        zstd.extend(ruzstd::encoding::compress_to_vec(two, level));
        read_tar(&zstd[..], &mut l, &mut budget).unwrap();
        assert_eq!(paths(l), ["a/x", "y/1", "z/1"]);
        assert_eq!(budget.read, 4);
        let broken = [0x28, 0xb5, 0x2f, 0xfd, 0, 0];
        let e = read_tar(&broken[..], &mut All::default(), &mut budget).unwrap_err();
        assert!(matches!(e, LayerError::Read(_)), "{e:?}");
    }

    #[test]
    fn bytes_that_are_no_tar_are_said_with_their_first_bytes() {
        let garbage: Vec<u8> = (0..2048u32).map(|i| (i * 7 % 256) as u8).collect();
        let mut budget = Budget::per_file(1);
        let e = read_tar(&garbage[..], &mut All::default(), &mut budget).unwrap_err();
        let LayerError::NotTar {
            compression, found, ..
        } = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(compression, Compression::None);
        assert_eq!(found, "00 07 0e 15 1c 23 2a 31 38 3f 46 4d 54 5b 62 69");
    }

    #[test]
    fn the_budget_caps_each_file_and_the_total() {
        let layer = tar_of(&[("a", "1234"), ("b", "123"), ("c", "12")]);
        let mut budget = Budget::per_file(3);
        let e = read_tar(&layer[..], &mut All::default(), &mut budget).unwrap_err();
        assert_eq!(e.to_string(), "a is larger than 3 bytes");
        let mut budget = Budget::per_file(4).with_total(8);
        let e = read_tar(&layer[..], &mut All::default(), &mut budget).unwrap_err();
        assert_eq!(e.to_string(), "c takes the files read past 8 bytes in all");
        assert_eq!(budget.read, 7, "a and b");
        let mut budget = Budget::per_file(4).with_total(9);
        read_tar(&layer[..], &mut All::default(), &mut budget).unwrap();
    }
}
