//! An image's layers put together as the container's root file system:
//! each layer a tar archive, gzip- or zstd-compressed or plain (the magic
//! numbers decide, as containers/image's `DetectCompression`); a later
//! layer's file replaces an earlier one, `.wh.<name>` removes a path and
//! `.wh..wh..opq` empties a folder of what earlier layers put there (the
//! OCI image spec, `layer.md`). [`read_tar`] streams one layer into a
//! [`LayerSink`], which says which files it reads; [`Layered`] keeps what
//! survives. Each file read is bounded ([`Budget`]): a file past the cap
//! per file, or past the total of an image, stops the read. A zstd frame
//! asking for a window past [`MAX_ZSTD_WINDOW`] (containers/image's) is
//! refused at its header.

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

/// How many bytes the layers of one image may unpack to, over all the
/// layers read with one [`Budget`]: every byte of the decompressed tar
/// streams counts, the headers and the files passed over too (the tar
/// reader decompresses a file it skips to get past it). A catalog image
/// is walked whole (its base image, `opm`, the serve cache and the configs
/// folder), not only its configs: the configs of Red Hat's catalogs are a
/// few hundred MiB unpacked and the whole image a few GiB at most, so
/// 8 GiB refuses no real catalog, bundle or payload, while a
/// decompression bomb (a gzip layer unpacks to about 1,000 times its size,
/// a zstd one to far more) ends within seconds of decoding, not in an
/// endless read.
pub const MAX_STREAM_BYTES: u64 = 8 << 30;

/// How much of an image is read: at most `per_file` bytes of one file, at
/// most `total` (when set) of all files read, and at most `stream` bytes of
/// the layers unpacked (every entry counted, read or not), over every layer
/// streamed with this budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub per_file: u64,
    pub total: Option<u64>,
    /// Bytes of files read so far.
    pub read: u64,
    pub stream: u64,
    /// Bytes of the layers unpacked so far.
    pub streamed: u64,
}

impl Budget {
    /// At most `per_file` bytes per file, no total, the layers unpacked to
    /// at most [`MAX_STREAM_BYTES`].
    pub fn per_file(per_file: u64) -> Budget {
        Budget {
            per_file,
            total: None,
            read: 0,
            stream: MAX_STREAM_BYTES,
            streamed: 0,
        }
    }

    /// With the layers unpacked to at most `stream` bytes.
    pub fn with_stream(self, stream: u64) -> Budget {
        Budget { stream, ..self }
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
    /// The layers unpack past [`Budget::stream`]: at the entry `path` when
    /// its size says so before it is read, else in a header or padding.
    #[error("{}the layers unpack past {limit} bytes in all (files passed over counted)", at(path.as_deref()))]
    StreamTooLarge { path: Option<String>, limit: u64 },
    /// A zstd frame asks for a window past [`MAX_ZSTD_WINDOW`].
    #[error("a zstd frame asks for a window of {window} bytes, past the {limit} bytes containers/image's zstd decoder (klauspost/compress) accepts")]
    ZstdWindow { window: u64, limit: u64 },
}

fn at(path: Option<&str>) -> String {
    path.map(|p| format!("{p}: ")).unwrap_or_default()
}

/// Why a reader under the tar walk stopped it, when that is a cap of ours
/// rather than the stream's failure: the walk says it as it is, whatever
/// the tar reader made of the error.
type Stop = std::rc::Rc<std::cell::RefCell<Option<LayerError>>>;

/// How many leading bytes of a layer a [`LayerError::NotTar`] shows.
const SHOWN_BYTES: usize = 16;

/// The unpacked stream as the tar reader takes it: its first
/// [`SHOWN_BYTES`] bytes kept (for [`LayerError::NotTar`]), every byte
/// counted against [`Budget::stream`].
struct Tracked<R> {
    inner: R,
    seen: Vec<u8>,
    /// Bytes unpacked so far, this layer's and the earlier ones'.
    streamed: std::rc::Rc<std::cell::Cell<u64>>,
    cap: u64,
    stop: Stop,
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let room = SHOWN_BYTES.saturating_sub(self.seen.len()).min(n);
        self.seen.extend_from_slice(&buf[..room]);
        let streamed = count(self.streamed.get(), n as u64, self.cap, &self.stop)?;
        self.streamed.set(streamed);
        Ok(n)
    }
}

/// `counted` bytes and `n` more, within `cap`; past it, the walk stops
/// with [`LayerError::StreamTooLarge`] ([`stopped`]). The one count of
/// what the layers unpack, and of the skippable zstd frames read.
fn count(counted: u64, n: u64, cap: u64, stop: &Stop) -> std::io::Result<u64> {
    let total = counted.saturating_add(n);
    if total > cap {
        let e = LayerError::StreamTooLarge {
            path: None,
            limit: cap,
        };
        return Err(stopped(stop, e));
    }
    Ok(total)
}

/// The error a reader under the tar walk returns to stop it with `e`,
/// which the walk then says as it is (whatever the tar reader makes of
/// the io error).
fn stopped(stop: &Stop, e: LayerError) -> std::io::Error {
    let message = e.to_string();
    *stop.borrow_mut() = Some(e);
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

/// The first four bytes of a layer (fewer when it is shorter): the magic
/// numbers are read whole before choosing, as a registry, proxy or TLS
/// terminator may hand the first byte alone.
fn read_magic(reader: &mut impl Read) -> std::io::Result<Vec<u8>> {
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
/// within `budget`, the layer unpacked within it too. Bytes that are no
/// tar archive are said as such ([`LayerError::NotTar`], with the first
/// bytes), apart from the stream's own failures.
pub fn read_tar(
    reader: impl Read,
    sink: &mut dyn LayerSink,
    budget: &mut Budget,
) -> Result<(), LayerError> {
    let mut reader = reader;
    let head = read_magic(&mut reader).map_err(|e| LayerError::Read(e.to_string()))?;
    let compression = Compression::of(&head);
    let buffered = BufReader::new(std::io::Cursor::new(head).chain(reader));
    let stop = Stop::default();
    let stream: Box<dyn Read> = match compression {
        Compression::Gzip => Box::new(flate2::read::GzDecoder::new(buffered)),
        Compression::Zstd => Box::new(ZstdFrames::new(buffered, Stop::clone(&stop), budget.stream)),
        Compression::None => Box::new(buffered),
    };
    let streamed = std::rc::Rc::new(std::cell::Cell::new(budget.streamed));
    let mut archive = tar::Archive::new(Tracked {
        inner: stream,
        seen: Vec::new(),
        streamed: std::rc::Rc::clone(&streamed),
        cap: budget.stream,
        stop: Stop::clone(&stop),
    });
    sink.next_layer();
    let walked = walk(&mut archive, sink, budget, &stop, &streamed);
    budget.streamed = streamed.get();
    let tracked = archive.into_inner();
    walked.map_err(|e| match e {
        Walk::Layer(e) => e,
        Walk::Io(e) => {
            if let Some(stopped) = stop.borrow_mut().take() {
                return stopped;
            }
            // The tar reader's own complaints (kind `Other`) quote the bytes
            // it read; anything else is the stream's (gzip, zstd, the network).
            if e.kind() != std::io::ErrorKind::Other {
                return LayerError::Read(e.to_string());
            }
            let found: Vec<String> = tracked.seen.iter().map(|b| format!("{b:02x}")).collect();
            LayerError::NotTar {
                message: e.to_string(),
                compression,
                found: found.join(" "),
            }
        }
    })
}

/// Why [`walk`] stopped: a [`LayerError`] said as it is, or an error of
/// the tar reader or the stream under it, to be told apart by [`read_tar`].
enum Walk {
    Layer(LayerError),
    Io(std::io::Error),
}

impl From<std::io::Error> for Walk {
    fn from(e: std::io::Error) -> Self {
        Walk::Io(e)
    }
}

/// The entries of one layer into `sink`, each within `budget`; `streamed`
/// is what the layers have unpacked so far.
fn walk<R: Read>(
    archive: &mut tar::Archive<Tracked<R>>,
    sink: &mut dyn LayerSink,
    budget: &mut Budget,
    stop: &Stop,
    streamed: &std::cell::Cell<u64>,
) -> Result<(), Walk> {
    for entry in archive.entries()? {
        let mut entry = entry?;
        let path = entry.path()?.to_string_lossy().into_owned();
        // Passed over or read, an entry is unpacked: one whose size takes
        // the layers past the cap is refused before it is.
        if streamed.get().saturating_add(entry.size()) > budget.stream {
            return Err(Walk::Layer(LayerError::StreamTooLarge {
                path: Some(path),
                limit: budget.stream,
            }));
        }
        if is_whiteout(&path) {
            sink.whiteout(&path);
            continue;
        }
        if !entry.header().entry_type().is_file() || !sink.concerns(&path) {
            continue;
        }
        budget.take(&path, entry.size()).map_err(Walk::Layer)?;
        let mut body = Vec::new();
        entry.read_to_end(&mut body).map_err(|e| {
            Walk::Layer(
                stop.borrow_mut()
                    .take()
                    .unwrap_or_else(|| LayerError::File {
                        path: path.clone(),
                        message: e.to_string(),
                    }),
            )
        })?;
        sink.add(&path, body);
    }
    Ok(())
}

/// The largest window a zstd frame of a layer may ask for: klauspost/compress's
/// `MaxWindowSize` (512 MiB), the default of its decoder's
/// `WithDecoderMaxWindow`. containers/image decodes zstd layers with that
/// decoder as it comes (`zstd.NewReader` without options, in
/// `pkg/compression/zstd.go`), and CRI-O through it, so a frame past it is
/// a layer the node cannot pull either. A single-segment frame's window is
/// its content size, checked the same way (klauspost's frame decoder).
pub const MAX_ZSTD_WINDOW: u64 = 1 << 29;

/// zstd's frame magic number and the range of the skippable frames' (RFC 8878 §3.1).
const ZSTD_FRAME: u32 = 0xfd2f_b528;
const ZSTD_SKIPPABLE: std::ops::RangeInclusive<u32> = 0x184d_2a50..=0x184d_2a5f;

/// How a zstd frame starts.
#[derive(Debug, PartialEq, Eq)]
enum FrameStart {
    /// A skippable frame of this many bytes after its header.
    Skippable(u32),
    /// A frame: its whole header, and the window it asks for.
    Frame { header: Vec<u8>, window: u64 },
}

/// Reads a zstd frame header (RFC 8878 §3.1.1.1): the frame header
/// descriptor says which fields follow; the window is the window
/// descriptor's, or a single-segment frame's content size.
fn read_frame_start(source: &mut impl Read) -> std::io::Result<FrameStart> {
    let mut magic = [0u8; 4];
    source.read_exact(&mut magic)?;
    let number = u32::from_le_bytes(magic);
    if ZSTD_SKIPPABLE.contains(&number) {
        let mut length = [0u8; 4];
        source.read_exact(&mut length)?;
        return Ok(FrameStart::Skippable(u32::from_le_bytes(length)));
    }
    if number != ZSTD_FRAME {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("no zstd frame starts with the magic number 0x{number:08x}"),
        ));
    }
    let mut descriptor = [0u8; 1];
    source.read_exact(&mut descriptor)?;
    let fhd = descriptor[0];
    let single_segment = fhd & 0x20 != 0;
    let window_bytes = usize::from(!single_segment);
    let dictionary_bytes = [0, 1, 2, 4][usize::from(fhd & 3)];
    let content_size_bytes = match fhd >> 6 {
        0 => usize::from(single_segment),
        flag => 1 << flag,
    };
    let mut rest = vec![0u8; window_bytes + dictionary_bytes + content_size_bytes];
    source.read_exact(&mut rest)?;
    let window = if single_segment {
        let field = &rest[dictionary_bytes..];
        let mut le = [0u8; 8];
        le[..field.len()].copy_from_slice(field);
        let size = u64::from_le_bytes(le);
        // A two-byte field counts from 256.
        if field.len() == 2 {
            size + 256
        } else {
            size
        }
    } else {
        let (exponent, mantissa) = (u64::from(rest[0] >> 3), u64::from(rest[0] & 7));
        let base = 1u64 << (10 + exponent);
        base + base / 8 * mantissa
    };
    let mut header = Vec::with_capacity(5 + rest.len());
    header.extend_from_slice(&magic);
    header.push(fhd);
    header.extend_from_slice(&rest);
    Ok(FrameStart::Frame { header, window })
}

/// A zstd stream of one frame or more (zstd:chunked layers are many),
/// skippable frames passed over, as the zstd library's reader reads it.
/// Each frame's window is checked against [`MAX_ZSTD_WINDOW`] before the
/// decoder starts on it, so a hostile header allocates nothing.
struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: ruzstd::decoding::FrameDecoder,
    in_frame: bool,
    stop: Stop,
    /// Bytes of skippable frames passed over, and their cap (the stream's:
    /// they unpack to nothing, so the unpacked count never sees them).
    skipped: u64,
    skip_cap: u64,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R, stop: Stop, skip_cap: u64) -> Self {
        ZstdFrames {
            source,
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
            stop,
            skipped: 0,
            skip_cap,
        }
    }

    /// Starts the next frame; false at the end of the stream.
    fn next_frame(&mut self) -> std::io::Result<bool> {
        use ruzstd::decoding::errors::FrameDecoderError;
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            let (header, window) = match read_frame_start(&mut self.source)? {
                FrameStart::Frame { header, window } => (header, window),
                FrameStart::Skippable(length) => {
                    let length = u64::from(length);
                    self.skipped = count(self.skipped, length, self.skip_cap, &self.stop)?;
                    let skipped =
                        std::io::copy(&mut (&mut self.source).take(length), &mut std::io::sink())?;
                    if skipped < length {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            "a skippable zstd frame is cut short",
                        ));
                    }
                    continue;
                }
            };
            if window > MAX_ZSTD_WINDOW {
                let e = LayerError::ZstdWindow {
                    window,
                    limit: MAX_ZSTD_WINDOW,
                };
                return Err(stopped(&self.stop, e));
            }
            let started = match self.decoder.init(&header[..]) {
                // ruzstd reuses a decoder's buffers for a later frame up to
                // its own 100 MiB window, which is not the limit: a larger
                // one (within ours) gets a decoder of its own.
                Err(FrameDecoderError::WindowSizeTooBig { .. }) => {
                    self.decoder = ruzstd::decoding::FrameDecoder::new();
                    self.decoder.init(&header[..])
                }
                started => started,
            };
            started.map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
            return Ok(true);
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

    /// `raw` zstd-compressed, in one frame.
    pub fn zstd(raw: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(raw, ruzstd::encoding::CompressionLevel::Fastest)
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

    /// Skippable frames unpack to nothing, yet are read: they count against
    /// the stream's cap, refused at the header that passes it.
    #[test]
    fn skippable_zstd_frames_count_against_the_stream_cap() {
        // A layer is found zstd by a frame's magic: an empty frame first.
        let level = ruzstd::encoding::CompressionLevel::Fastest;
        let mut zstd = ruzstd::encoding::compress_to_vec(&[][..], level);
        for _ in 0..3 {
            zstd.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 0, 4, 0, 0]);
            zstd.extend_from_slice(&[0u8; 1024]);
        }
        let mut budget = Budget::per_file(1 << 20).with_stream(2500);
        let e = read_tar(&zstd[..], &mut All::default(), &mut budget).unwrap_err();
        assert_eq!(
            e,
            LayerError::StreamTooLarge {
                path: None,
                limit: 2500
            }
        );
    }

    /// A zstd frame of raw blocks holding `content`, its header `fhd` and
    /// the fields after it (window descriptor, dictionary id, content size).
    fn raw_frame(fhd: u8, fields: &[u8], content: &[u8]) -> Vec<u8> {
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, fhd];
        frame.extend_from_slice(fields);
        let blocks: Vec<&[u8]> = content.chunks(128 << 10).collect();
        for (i, block) in blocks.iter().enumerate() {
            let last = u32::from(i + 1 == blocks.len());
            let header = last | (block.len() as u32) << 3;
            frame.extend_from_slice(&header.to_le_bytes()[..3]);
            frame.extend_from_slice(block);
        }
        frame
    }

    /// RFC 8878 §3.1.1.1: the window descriptor's exponent and mantissa, or
    /// a single-segment frame's content size (a two-byte field from 256),
    /// past a dictionary id when there is one.
    #[test]
    fn frame_headers_say_their_window() {
        for (fhd, fields, want) in [
            (0x00, &[0x00][..], 1u64 << 10),
            (0x00, &[0x53], (1 << 20) + 3 * (1 << 17)),
            (0x00, &[0x98], 1 << 29),
            (0x00, &[0xa0], 1 << 30),
            (0x01, &[0x98, 7], 1 << 29),
            (0x20, &[200], 200),
            (0x60, &[0x00, 0x01], 256 + 256),
            (0xa1, &[9, 0, 0, 0, 0x40], 1 << 30),
            (0xe0, &[0, 0, 0, 0, 0, 1, 0, 0], 1 << 40),
            (0x40, &[0x50, 0xff, 0xff], 1 << 20),
        ] {
            let mut bytes = vec![0x28, 0xb5, 0x2f, 0xfd, fhd];
            bytes.extend_from_slice(fields);
            let header = bytes.clone();
            bytes.extend_from_slice(b"blocks");
            let got = read_frame_start(&mut &bytes[..]).unwrap();
            assert_eq!(
                got,
                FrameStart::Frame {
                    header,
                    window: want
                },
                "{fhd:#x} {fields:?}"
            );
        }
        let skippable = [0x5f, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3];
        let got = read_frame_start(&mut &skippable[..]).unwrap();
        assert_eq!(got, FrameStart::Skippable(3));
    }

    /// A frame asking for a window past klauspost/compress's 512 MiB is
    /// refused at its header, first frame or later, window descriptor or
    /// single-segment content size alike; up to it, frames decode (ruzstd's
    /// own 100 MiB cap on later frames is not the limit).
    #[test]
    fn zstd_windows_past_containers_image_limit_are_refused() {
        let layer = tar_of(&[("a/x", "1")]);
        let read = |zstd: &[u8]| {
            let mut budget = Budget::per_file(1 << 20);
            let mut sink = All::default();
            read_tar(zstd, &mut sink, &mut budget).map(|()| paths(sink))
        };
        let window = |window: u64| LayerError::ZstdWindow {
            window,
            limit: 1 << 29,
        };
        let at_limit = raw_frame(0x00, &[0x98], &layer);
        assert_eq!(read(&at_limit).unwrap(), ["a/x"]);
        let gib = raw_frame(0x00, &[0xa0], &layer);
        assert_eq!(read(&gib).unwrap_err(), window(1 << 30));
        assert_eq!(
            window(1 << 30).to_string(),
            "a zstd frame asks for a window of 1073741824 bytes, past the 536870912 bytes containers/image's zstd decoder (klauspost/compress) accepts"
        );
        // Single segment: the 4-byte content size is the window.
        let content = raw_frame(0xa0, &(600u32 << 20).to_le_bytes(), &layer);
        assert_eq!(read(&content).unwrap_err(), window(600 << 20));
        // A header asking for 2 TiB is refused before the decoder starts on it.
        let huge = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xf8];
        assert_eq!(read(&huge).unwrap_err(), window(1 << 41));
        // Later frames: the same limit, not ruzstd's 100 MiB.
        let (one, two) = layer.split_at(512);
        let mut frames = raw_frame(0x00, &[0x00], one);
        frames.extend(raw_frame(0x00, &[0x90], two));
        assert_eq!(read(&frames).unwrap(), ["a/x"], "a 256 MiB window");
        let mut frames = raw_frame(0x00, &[0x00], one);
        frames.extend(raw_frame(0x00, &[0xa0], two));
        assert_eq!(read(&frames).unwrap_err(), window(1 << 30));
    }

    /// A sink concerned with no file: every entry is passed over.
    struct Nothing;

    impl LayerSink for Nothing {
        fn next_layer(&mut self) {}
        fn concerns(&mut self, _: &str) -> bool {
            false
        }
        fn whiteout(&mut self, _: &str) {}
        fn add(&mut self, _: &str, _: Vec<u8>) {}
    }

    /// Every byte a layer unpacks to counts against the stream cap, files
    /// passed over and headers too, over all the layers of one budget: an
    /// entry whose size passes it is refused before it is unpacked.
    #[test]
    fn the_layers_unpack_within_the_stream_cap() {
        let zeros = "\0".repeat(4096);
        let bomb = gzip(&tar_of(&[("usr/big", zeros.as_str())]));
        let mut budget = Budget::per_file(1 << 20).with_stream(4096);
        let e = read_tar(&bomb[..], &mut Nothing, &mut budget).unwrap_err();
        assert_eq!(
            e.to_string(),
            "usr/big: the layers unpack past 4096 bytes in all (files passed over counted)"
        );
        assert_eq!(budget.streamed, 512, "the header only");
        // Two layers of one budget: the second passes the cap.
        let layer = tar_of(&[("x", &zeros[..1000])]);
        let mut budget = Budget::per_file(1 << 20).with_stream(3000);
        read_tar(&layer[..], &mut Nothing, &mut budget).unwrap();
        assert_eq!(
            budget.streamed,
            512 + 1024 + 512,
            "header, padded body, end"
        );
        let e = read_tar(&layer[..], &mut Nothing, &mut budget).unwrap_err();
        assert_eq!(
            e,
            LayerError::StreamTooLarge {
                path: Some("x".to_string()),
                limit: 3000
            }
        );
        // Empty files: their headers pass it.
        let empty: Vec<(String, &str)> = (0..10).map(|i| (format!("e{i}"), "")).collect();
        let empty: Vec<(&str, &str)> = empty.iter().map(|(p, b)| (p.as_str(), *b)).collect();
        let mut budget = Budget::per_file(1 << 20).with_stream(2048);
        let e = read_tar(&tar_of(&empty)[..], &mut All::default(), &mut budget).unwrap_err();
        assert_eq!(
            e,
            LayerError::StreamTooLarge {
                path: None,
                limit: 2048
            }
        );
        assert_eq!(
            e.to_string(),
            "the layers unpack past 2048 bytes in all (files passed over counted)"
        );
        let mut budget = Budget::per_file(1 << 20);
        assert_eq!(budget.stream, MAX_STREAM_BYTES);
        read_tar(&bomb[..], &mut Nothing, &mut budget).unwrap();
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
