//! One large YAML stream parsed on several threads: the text is cut at
//! document start markers (`---` at the start of a line) into runs of whole
//! documents of about equal size, each run is parsed by the full parser on
//! its own thread, and the documents are put back in order with their
//! lines counted from the start of the file.
//!
//! A `---` line at the start of a line always starts a document in YAML
//! (YAML 1.2 §9.1.4: it cannot be content of a scalar, and a quoted scalar
//! or flow collection cut by it is an error), so the runs hold the same
//! documents the whole stream does. Whatever this cannot vouch for is
//! parsed whole, on one thread: a stream with directives (`%YAML`, `%TAG`
//! lines, which belong to the document after them), a small one, and any
//! run that does not parse (the whole stream then decides, and reports).

/// Below this size a stream is parsed on one thread: a thread costs more
/// than it saves.
const MIN_SPLIT_BYTES: usize = 256 * 1024;

/// A run of whole documents of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run<'a> {
    text: &'a str,
    /// Lines of the stream before this run.
    lines_before: usize,
}

/// Whether `line` (from the start of a line) is a document start marker.
fn is_start_marker(line: &[u8]) -> bool {
    line.starts_with(b"---") && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

/// The offset of the first document start marker line at or after `from`
/// (a line start, or inside a line: then from the next line).
fn next_marker(text: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    if at > 0 && text.get(at - 1) != Some(&b'\n') {
        at += memchr::memchr(b'\n', &text[at..])? + 1;
    }
    loop {
        if is_start_marker(&text[at..]) {
            return Some(at);
        }
        let finder = memchr::memmem::find(&text[at..], b"\n---")?;
        at += finder + 1;
    }
}

/// Cuts `text` into at most `parts` runs of whole documents, each after the
/// first starting at a `---` line; `None` when it is parsed whole.
fn runs(text: &str, parts: usize, min_bytes: usize) -> Option<Vec<Run<'_>>> {
    let bytes = text.as_bytes();
    if parts < 2 || bytes.len() < min_bytes {
        return None;
    }
    if bytes.first() == Some(&b'%') || memchr::memmem::find(bytes, b"\n%").is_some() {
        return None;
    }
    let mut cuts = vec![0];
    for k in 1..parts {
        let last = *cuts.last()?;
        let target = (bytes.len() / parts * k).max(last + 1);
        match next_marker(bytes, target) {
            Some(at) if at > last => cuts.push(at),
            _ => break,
        }
    }
    if cuts.len() < 2 {
        return None;
    }
    cuts.push(bytes.len());
    let mut lines_before = 0;
    let runs = cuts
        .windows(2)
        .map(|w| {
            let run = Run {
                text: &text[w[0]..w[1]],
                lines_before,
            };
            lines_before += memchr::memchr_iter(b'\n', run.text.as_bytes()).count();
            run
        })
        .collect();
    Some(runs)
}

/// Parses `text` with `parse` (which gives each document with its 1-based
/// first line), on up to `parts` threads when the stream is large: the
/// documents in order, lines counted from the start of `text`. `None` when
/// `parse` refuses the whole stream.
pub(super) fn parse_documents<T: Send>(
    text: &str,
    parts: usize,
    parse: impl Fn(&str) -> Option<Vec<(usize, T)>> + Sync,
) -> Option<Vec<(usize, T)>> {
    parse_in_runs(text, parts, MIN_SPLIT_BYTES, parse)
}

/// [`parse_documents`], cutting streams of `min_bytes` or more.
pub(super) fn parse_in_runs<T: Send>(
    text: &str,
    parts: usize,
    min_bytes: usize,
    parse: impl Fn(&str) -> Option<Vec<(usize, T)>> + Sync,
) -> Option<Vec<(usize, T)>> {
    let Some(runs) = runs(text, parts, min_bytes) else {
        return parse(text);
    };
    let parsed =
        crate::parallel::map_until(runs.len(), runs.len(), |i| parse(runs[i].text), |_| false);
    if parsed.iter().any(Option::is_none) {
        // A run that does not parse: the whole stream says what it is.
        return parse(text);
    }
    let mut out = Vec::new();
    for (run, docs) in runs.iter().zip(parsed.into_iter().flatten()) {
        out.extend(
            docs.into_iter()
                .map(|(line, doc)| (line + run.lines_before, doc)),
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_only_at_document_start_lines() {
        let doc = "kind: A\nspec:\n  x: |\n    ---\n  y: \"---\"\n";
        let text = format!("{}---\n{}", doc.repeat(20_000), doc.repeat(10_000));
        let runs = runs(&text, 2, MIN_SPLIT_BYTES).expect("a cut");
        assert_eq!(runs.len(), 2);
        assert!(runs[1].text.starts_with("---\n"));
        assert_eq!(runs[0].text.len() + runs[1].text.len(), text.len());
        assert_eq!(runs[1].lines_before, 5 * 20_000);
    }

    #[test]
    fn small_streams_and_directives_are_parsed_whole() {
        assert_eq!(runs("a: 1\n---\nb: 2\n", 2, MIN_SPLIT_BYTES), None);
        let big = "a: 1\n---\n".repeat(50_000);
        assert!(runs(&big, 2, MIN_SPLIT_BYTES).is_some());
        assert_eq!(runs(&big, 1, MIN_SPLIT_BYTES), None);
        assert_eq!(runs(&format!("%YAML 1.2\n{big}"), 2, MIN_SPLIT_BYTES), None);
        assert_eq!(
            runs(
                &format!("{big}%TAG ! tag:x,2000:\n---\na: 1\n"),
                2,
                MIN_SPLIT_BYTES
            ),
            None
        );
        // No marker after the middle: one run.
        let one = format!("---\n{}", "a: 1\n".repeat(100_000));
        assert_eq!(runs(&one, 2, MIN_SPLIT_BYTES), None);
    }

    #[test]
    fn markers_need_a_break_after_them() {
        assert!(is_start_marker(b"---"));
        assert!(is_start_marker(b"--- |\n"));
        assert!(is_start_marker(b"---\r\n"));
        assert!(!is_start_marker(b"----\n"));
        assert!(!is_start_marker(b"---x\n"));
        assert_eq!(next_marker(b"a\n---x\n---\n", 0), Some(7));
        assert_eq!(next_marker(b"---\na\n---\n", 1), Some(6));
    }
}
