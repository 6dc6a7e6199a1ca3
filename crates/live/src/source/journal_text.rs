//! The bounded reader of CRI-O journal text, for every path that reads
//! one: a `--journal-file`, a must-gather's journal files and a node's log
//! answer. Bytes are pushed in as they come (gzip decoded on the way, so a
//! gzip bomb meets the same caps); a line longer than [`LINE_CAP`] is
//! dropped up to its newline and counted. Parsing the lines is the journal
//! module's; where the bytes come from is the caller's.
//!
//! Two more caps: [`READ_CAP`] on what one source sends (decoded, long
//! lines included, and as received), so that an endless line or answer
//! ends; and [`TEXT_CAP`] on the text kept by all the sources of one
//! command together (a [`Budget`]), so that memory stays bounded when
//! several nodes are read at once and their lines are parsed (the parsed
//! lines take about twice the text). A source that fails gives its share of
//! the budget back.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The longest line kept, without its line ending: CRI-O's lines are a few
/// KiB, a pull error with a long chain of causes tens of KiB.
pub const LINE_CAP: usize = 1 << 20;

/// The most journal text one source is read for (decoded, long lines
/// included), and the most bytes it may send (compressed or not).
pub const READ_CAP: usize = 128 << 20;

/// The most journal text one command keeps, all its files or node answers
/// together.
pub const TEXT_CAP: usize = 64 << 20;

/// The size of a cap as said to the user (`1 MiB`, `128 MiB`).
pub fn size_words(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// What one command may still keep of journal text, shared by every source
/// it reads (several nodes are read at once), and what each source may send.
#[derive(Debug)]
pub struct Budget {
    cap: usize,
    read_cap: usize,
    left: AtomicUsize,
}

impl Budget {
    /// A budget of `cap` bytes kept in all, `read_cap` read from each source.
    pub fn new(cap: usize, read_cap: usize) -> Self {
        Self {
            cap,
            read_cap,
            left: AtomicUsize::new(cap),
        }
    }

    /// Takes `n` bytes; false (and nothing taken) when fewer are left.
    fn take(&self, n: usize) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            })
            .is_ok()
    }

    /// Gives back `n` bytes taken.
    fn give(&self, n: usize) {
        self.left.fetch_add(n, Ordering::Relaxed);
    }
}

impl Default for Budget {
    fn default() -> Self {
        Self::new(TEXT_CAP, READ_CAP)
    }
}

/// The lines longer than the line cap that were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LongLines {
    /// How many.
    pub count: u64,
    /// The first one's line number (from 1, in the decoded text).
    pub first: u64,
}

impl LongLines {
    /// The warning about them, naming the source.
    pub fn warning(&self, name: &str, line_cap: usize) -> String {
        let lines = if self.count == 1 {
            format!("line {} is", self.first)
        } else {
            format!(
                "{} lines are (the first is line {})",
                self.count, self.first
            )
        };
        format!(
            "{name}: {lines} longer than {} and skipped (CRI-O's lines are a few KiB); a pull logged there is not seen",
            size_words(line_cap)
        )
    }
}

/// The text read, its long lines left out.
#[derive(Debug, Default)]
pub struct Text {
    pub text: String,
    pub long_lines: Option<LongLines>,
}

/// Why a source's text was not read.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error("{name} is larger than {} of journal text (lines longer than {} count too)", size_words(*.cap), size_words(LINE_CAP))]
    TooLarge { name: String, cap: usize },
    #[error("{name}: the journal text read goes over {}, the most one command keeps (its files, or all the nodes read, together)", size_words(*.cap))]
    OverBudget { name: String, cap: usize },
    #[error("{name} is not valid gzip: {detail}")]
    Gzip { name: String, detail: String },
    #[error("cannot read {name}: {detail}")]
    Read { name: String, detail: String },
}

/// A line handed on as it ends (without its line ending).
pub type EachLine<'a> = Box<dyn FnMut(&str) + Send + 'a>;

/// Keeps the lines written to it up to the line cap, charging what it keeps
/// to the budget (given back when dropped unfinished); past the budget or
/// the budget's cap of bytes written, every write fails. With a line
/// handler, each line is handed on as it ends and not kept.
pub struct LineWriter<'a> {
    budget: &'a Budget,
    each: Option<EachLine<'a>>,
    line_cap: usize,
    /// Bytes written so far, kept or not.
    written: usize,
    /// Bytes of `buf` taken from the budget.
    charged: usize,
    buf: Vec<u8>,
    /// Where the current (unfinished) line starts in `buf`.
    line_start: usize,
    /// The current line's number, from 1.
    line: u64,
    /// Dropping the current line up to its newline.
    skipping: bool,
    long: Option<LongLines>,
    over: Option<Over>,
}

/// Which cap a writer went over.
#[derive(Debug, Clone, Copy)]
enum Over {
    Read,
    Keep,
}

impl<'a> LineWriter<'a> {
    /// A writer with the line cap [`LINE_CAP`] charging `budget`.
    pub fn new(budget: &'a Budget) -> Self {
        Self::with_line_cap(budget, LINE_CAP)
    }

    /// A writer keeping lines of up to `line_cap` bytes.
    pub fn with_line_cap(budget: &'a Budget, line_cap: usize) -> Self {
        Self {
            budget,
            each: None,
            line_cap,
            written: 0,
            charged: 0,
            buf: Vec::new(),
            line_start: 0,
            line: 1,
            skipping: false,
            long: None,
            over: None,
        }
    }

    /// A writer handing each line to `each` as it ends, keeping none.
    pub fn each_line(budget: &'a Budget, each: EachLine<'a>) -> Self {
        let mut w = Self::new(budget);
        w.each = Some(each);
        w
    }

    /// Appends `data` to the current line, charged to the budget; false
    /// (nothing appended) when the budget is out.
    fn keep(&mut self, data: &[u8]) -> bool {
        if !self.budget.take(data.len()) {
            self.over = Some(Over::Keep);
            return false;
        }
        self.charged += data.len();
        self.buf.extend_from_slice(data);
        true
    }

    fn long_line(&mut self) {
        let dropped = self.buf.len() - self.line_start;
        self.budget.give(dropped);
        self.charged -= dropped;
        self.buf.truncate(self.line_start);
        let long = self.long.get_or_insert(LongLines {
            count: 0,
            first: self.line,
        });
        long.count += 1;
    }

    /// Ends the current line (kept): invalid UTF-8 becomes U+FFFD here, so
    /// the text never needs a second, lossy copy.
    fn end_line(&mut self) -> bool {
        if let Err(e) = std::str::from_utf8(&self.buf[self.line_start..]) {
            let valid = self.line_start + e.valid_up_to();
            let fixed = String::from_utf8_lossy(&self.buf[valid..]).into_owned();
            let before = self.buf.len() - valid;
            self.buf.truncate(valid);
            self.budget.give(before);
            self.charged -= before;
            if !self.keep(fixed.as_bytes()) {
                return false;
            }
        }
        if let Some(each) = &mut self.each {
            let line = &self.buf[self.line_start..];
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            // Valid UTF-8 since the fix above.
            each(std::str::from_utf8(line).unwrap_or_default());
            self.budget.give(self.charged);
            self.charged = 0;
            self.buf.clear();
        }
        self.line_start = self.buf.len();
        self.line += 1;
        true
    }

    /// Takes in `data`; false once past the budget.
    fn push(&mut self, mut data: &[u8]) -> bool {
        self.written = self.written.saturating_add(data.len());
        if self.written > self.budget.read_cap {
            self.over = self.over.or(Some(Over::Read));
        }
        if self.over.is_some() {
            return false;
        }
        while !data.is_empty() {
            let newline = memchr::memchr(b'\n', data);
            if self.skipping {
                match newline {
                    Some(i) => {
                        self.skipping = false;
                        self.line += 1;
                        data = &data[i + 1..];
                        continue;
                    }
                    None => return true,
                }
            }
            let pending = self.buf.len() - self.line_start;
            let Some(i) = newline else {
                // One byte more than the cap may be a CR before the newline.
                if pending + data.len() > self.line_cap + 1 {
                    self.long_line();
                    self.skipping = true;
                    return true;
                }
                return self.keep(data);
            };
            let cr = match i {
                0 => self.buf.len() > self.line_start && self.buf.last() == Some(&b'\r'),
                _ => data[i - 1] == b'\r',
            };
            if pending + i - usize::from(cr) > self.line_cap {
                self.long_line();
                self.line += 1;
            } else if !self.keep(&data[..=i]) || !self.end_line() {
                return false;
            }
            data = &data[i + 1..];
        }
        true
    }

    /// The error of a writer over a cap.
    fn over_error(&self, name: &str) -> Option<TextError> {
        let name = name.to_string();
        self.over.map(|over| match over {
            Over::Read => TextError::TooLarge {
                name,
                cap: self.budget.read_cap,
            },
            Over::Keep => TextError::OverBudget {
                name,
                cap: self.budget.cap,
            },
        })
    }

    /// The text kept; an error naming `name` when over a cap.
    pub fn finish(mut self, name: &str) -> Result<Text, TextError> {
        if let Some(e) = self.over_error(name) {
            return Err(e);
        }
        let pending = &self.buf[self.line_start..];
        if !self.skipping && !pending.is_empty() {
            let cr = usize::from(pending.last() == Some(&b'\r'));
            if pending.len() - cr > self.line_cap {
                self.long_line();
            } else if !self.end_line() {
                return Err(self.over_error(name).expect("over a cap"));
            }
        }
        // The text is the caller's now: its bytes stay taken.
        self.charged = 0;
        let text = String::from_utf8(std::mem::take(&mut self.buf))
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        Ok(Text {
            text,
            long_lines: self.long.take(),
        })
    }
}

impl std::fmt::Debug for LineWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineWriter")
            .field("line", &self.line)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

impl Drop for LineWriter<'_> {
    fn drop(&mut self) {
        self.budget.give(self.charged);
    }
}

impl Write for LineWriter<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.push(data) {
            Ok(data.len())
        } else {
            Err(io::Error::other("journal text over its cap"))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A source's bytes as they come, plain or gzip, into a [`LineWriter`]; the
/// bytes received are capped at the budget's cap too (a gzip stream that
/// decodes to nothing would otherwise never end).
pub struct Decoder<'a> {
    name: String,
    received: usize,
    sink: Sink<'a>,
}

enum Sink<'a> {
    Plain(LineWriter<'a>),
    Gzip(Box<flate2::write::MultiGzDecoder<LineWriter<'a>>>),
}

impl<'a> Decoder<'a> {
    /// A decoder for the source called `name` (in messages), gunzipping
    /// when `gzip`.
    pub fn new(name: &str, budget: &'a Budget, gzip: bool) -> Self {
        Self::with_writer(name, LineWriter::new(budget), gzip)
    }

    /// A decoder handing each line to `each` as it ends (see
    /// [`LineWriter::each_line`]).
    pub fn each_line(name: &str, budget: &'a Budget, gzip: bool, each: EachLine<'a>) -> Self {
        Self::with_writer(name, LineWriter::each_line(budget, each), gzip)
    }

    fn with_writer(name: &str, writer: LineWriter<'a>, gzip: bool) -> Self {
        Self {
            name: name.to_string(),
            received: 0,
            sink: match gzip {
                true => Sink::Gzip(Box::new(flate2::write::MultiGzDecoder::new(writer))),
                false => Sink::Plain(writer),
            },
        }
    }

    fn writer(&self) -> &LineWriter<'a> {
        match &self.sink {
            Sink::Plain(w) => w,
            Sink::Gzip(d) => d.get_ref(),
        }
    }

    fn gzip_error(&self, e: &io::Error) -> TextError {
        if let Some(over) = self.writer().over_error(&self.name) {
            return over;
        }
        TextError::Gzip {
            name: self.name.clone(),
            detail: e.to_string(),
        }
    }

    /// Takes in the next bytes of the source.
    pub fn push(&mut self, data: &[u8]) -> Result<(), TextError> {
        self.received = self.received.saturating_add(data.len());
        let read_cap = self.writer().budget.read_cap;
        if self.received > read_cap {
            return Err(TextError::TooLarge {
                name: self.name.clone(),
                cap: read_cap,
            });
        }
        let result = match &mut self.sink {
            Sink::Plain(w) => w.write_all(data),
            Sink::Gzip(d) => d.write_all(data),
        };
        result.map_err(|e| self.gzip_error(&e))
    }

    /// The text, once the source has ended.
    pub fn finish(self) -> Result<Text, TextError> {
        let name = self.name;
        let writer = match self.sink {
            Sink::Plain(w) => w,
            Sink::Gzip(d) => {
                let over = d.get_ref().over_error(&name);
                d.finish().map_err(|e| {
                    over.unwrap_or_else(|| TextError::Gzip {
                        name: name.clone(),
                        detail: e.to_string(),
                    })
                })?
            }
        };
        writer.finish(&name)
    }
}

/// Reads `reader` to its end through a [`Decoder`], gunzipping when it
/// starts with gzip's magic bytes (looked for until two bytes have come or
/// the stream ended, however they are split).
pub fn read_from(name: &str, budget: &Budget, reader: impl Read) -> Result<Text, TextError> {
    decode_from(name, reader, |gzip| Decoder::new(name, budget, gzip))
}

/// Streams `reader` to its end, plain or gzip as [`read_from`], handing
/// each line to `each` as it ends: only the line being read is kept (the
/// line cap still applies), and no cap of bytes read. The long lines
/// skipped are in the answer; its text is empty.
pub fn stream_from(
    name: &str,
    reader: impl Read,
    each: impl FnMut(&str) + Send,
) -> Result<Option<LongLines>, TextError> {
    let budget = Budget::new(LINE_CAP * 2, usize::MAX);
    let mut each: Option<EachLine<'_>> = Some(Box::new(each));
    let text = decode_from(name, reader, |gzip| {
        let each = each.take().unwrap_or_else(|| Box::new(|_| {}));
        Decoder::each_line(name, &budget, gzip, each)
    })?;
    Ok(text.long_lines)
}

fn decode_from<'a>(
    name: &str,
    mut reader: impl Read,
    decoder: impl FnOnce(bool) -> Decoder<'a>,
) -> Result<Text, TextError> {
    let failed = |e: io::Error| TextError::Read {
        name: name.to_string(),
        detail: e.to_string(),
    };
    let mut chunk = vec![0u8; 64 << 10];
    let mut head = 0;
    while head < 2 {
        match reader.read(&mut chunk[head..]) {
            Ok(0) => break,
            Ok(n) => head += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(e)),
        }
    }
    let mut decoder = decoder(chunk[..head].starts_with(&[0x1f, 0x8b]));
    decoder.push(&chunk[..head])?;
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => decoder.push(&chunk[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(e)),
        }
    }
    decoder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keep(cap: usize, chunks: &[&[u8]]) -> (String, Option<LongLines>) {
        let budget = Budget::new(1 << 20, 1 << 20);
        let mut w = LineWriter::with_line_cap(&budget, cap);
        for c in chunks {
            w.write_all(c).unwrap();
        }
        let t = w.finish("x").unwrap();
        (t.text, t.long_lines)
    }

    #[test]
    fn lines_up_to_the_cap_are_kept_longer_ones_skipped() {
        let long = |count, first| Some(LongLines { count, first });
        for (input, want, dropped) in [
            ("abcd\nxy\n", "abcd\nxy\n", None),
            ("abcde\nxy\n", "xy\n", long(1, 1)),
            ("xy\nabcd\r\nz", "xy\nabcd\r\nz", None),
            ("xy\nabcde\r\nz\n", "xy\nz\n", long(1, 2)),
            ("xy\nabcd", "xy\nabcd", None),
            ("xy\nabcd\r", "xy\nabcd\r", None),
            ("xy\nabcde", "xy\n", long(1, 2)),
            ("a\nbbbbbbbbbbbb\nc\ndddddd\ne", "a\nc\ne", long(2, 2)),
            ("\n\nabcdef\n", "\n\n", long(1, 3)),
            ("", "", None),
        ] {
            // Whole, and one byte at a time (every split of a line and its CR).
            assert_eq!(
                keep(4, &[input.as_bytes()]),
                (want.to_string(), dropped),
                "{input:?}"
            );
            let bytes: Vec<&[u8]> = input.as_bytes().chunks(1).collect();
            assert_eq!(
                keep(4, &bytes),
                (want.to_string(), dropped),
                "{input:?} by bytes"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_line_by_line() {
        let (text, _) = keep(16, &[b"a\xff", b"b\nc\n"]);
        assert_eq!(text, "a\u{fffd}b\nc\n");
    }

    #[test]
    fn a_source_reads_up_to_the_cap_skipped_bytes_included() {
        let budget = Budget::new(100, 10);
        let mut w = LineWriter::with_line_cap(&budget, 2);
        w.write_all(b"aaaaaa\n").unwrap();
        assert!(w.write_all(b"bbbb\n").is_err());
        let err = w.finish("node n's CRI-O log").unwrap_err();
        assert_eq!(
            err.to_string(),
            "node n's CRI-O log is larger than 10 bytes of journal text (lines longer than 1 MiB count too)"
        );
    }

    #[test]
    fn the_text_kept_is_shared_and_a_failed_source_gives_it_back() {
        let budget = Budget::new(10, 100);
        let mut a = LineWriter::new(&budget);
        a.write_all(b"123456\n").unwrap();
        let mut b = LineWriter::new(&budget);
        b.write_all(b"12\n").unwrap();
        assert!(b.write_all(b"34\n").is_err());
        assert_eq!(
            b.finish("b").unwrap_err().to_string(),
            "b: the journal text read goes over 10 bytes, the most one command keeps (its files, or all the nodes read, together)"
        );
        let mut c = LineWriter::new(&budget);
        c.write_all(b"12\n").unwrap();
        // Skipped bytes are read, not kept.
        let mut d = LineWriter::with_line_cap(&budget, 1);
        d.write_all(b"12345678\n").unwrap();
        assert_eq!(d.finish("d").unwrap().long_lines.map(|l| l.count), Some(1));
        assert_eq!(a.finish("a").unwrap().text, "123456\n");
        assert_eq!(c.finish("c").unwrap().text, "12\n");
    }

    #[test]
    fn gzip_is_decoded_into_the_same_caps() {
        let gz = |data: &[u8]| {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let budget = Budget::default();
        let t = read_from("f", &budget, gz(b"a\nb\n").as_slice()).unwrap();
        assert_eq!(t.text, "a\nb\n");
        // A bomb: 32 MiB of one byte in a few KiB.
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![b'a'; 1 << 20];
        for _ in 0..32 {
            e.write_all(&block).unwrap();
        }
        let bomb = e.finish().unwrap();
        let budget = Budget::new(64 << 20, 4 << 20);
        let err = read_from("bomb.gz", &budget, bomb.as_slice()).unwrap_err();
        assert!(matches!(err, TextError::TooLarge { .. }), "{err}");
        // Two bytes of magic split over two reads.
        let split = gz(b"x\n");
        let reader = io::Read::chain(&split[..1], &split[1..]);
        let t = read_from("f", &Budget::default(), reader).unwrap();
        assert_eq!(t.text, "x\n");
        let err = read_from("f", &Budget::default(), &split[..10]).unwrap_err();
        assert!(matches!(err, TextError::Gzip { .. }), "{err}");
    }

    #[test]
    fn streamed_lines_are_handed_on_one_at_a_time() {
        let long = "x".repeat(LINE_CAP + 10);
        let mut text = format!("a\r\n{long}\nb").into_bytes();
        text.extend_from_slice(b"\xff\nc");
        let mut lines = Vec::new();
        let skipped = stream_from("f", text.as_slice(), |l| lines.push(l.to_string())).unwrap();
        assert_eq!(lines, ["a", "b\u{fffd}", "c"]);
        assert_eq!(skipped, Some(LongLines { count: 1, first: 2 }));
    }

    #[test]
    fn long_lines_are_said_with_the_first() {
        let one = LongLines { count: 1, first: 7 };
        assert_eq!(
            one.warning("journal file \"j\"", LINE_CAP),
            "journal file \"j\": line 7 is longer than 1 MiB and skipped (CRI-O's lines are a few KiB); a pull logged there is not seen"
        );
        let two = LongLines { count: 2, first: 7 };
        assert!(two
            .warning("f", LINE_CAP)
            .contains("2 lines are (the first is line 7) longer than 1 MiB"));
    }
}
