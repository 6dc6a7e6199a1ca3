//! Property tests over generated input, run in every `cargo test`:
//!
//! - the fast registries.conf reader against the full TOML parser (the
//!   `toml` crate): over generated and mutated files, the loader gives the
//!   same configuration, or the same error, whichever reader it uses;
//! - the migrate writer's round trip: what `migrate-icsp` writes reads back
//!   as the objects it wrote.
//!
//! The fuzz targets in `fuzz/` check the same properties (`checks.rs`).

use crate::checks;

use std::collections::BTreeMap;

use mirrorpolicy::objects::{ImageContentSourcePolicy, RepositoryDigestMirrors};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

// ---------------------------------------------------------------------------
// registries.conf text
//
// The files are built by plain functions from a sequence of choices that
// proptest generates and shrinks (fewer and smaller choices: the first,
// plainest option of each). That keeps 10,000 files a second or two in a
// debug build. Each builder takes `noisy`: without it, it writes plain
// lines, mostly inside the fast reader's subset and mostly valid; with it,
// anything, including TOML the full parser refuses or only TOML 1.1 allows.

/// Draws choices from proptest's sequence; past its end, always the first.
struct Choices<'a> {
    seq: &'a [u16],
    at: usize,
}

impl Choices<'_> {
    fn below(&mut self, n: usize) -> usize {
        let c = self.seq.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        usize::from(c) % n.max(1)
    }

    /// True with probability about `percent`/100 (false past the end).
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) >= 100 - percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const HOSTS: &[&str] = &[
    "quay.io",
    "docker.io",
    "registry.example.com:5000/ns",
    "mirror.local/x",
    "localhost",
    "m.example.com/a/b",
    "registry-1.io:443",
    "x.io/a_b",
];

/// Characters that need care inside strings, all allowed there.
const CAREFUL: &[&str] = &[
    "#", "'", "=", "[", "]", ",", "{", "}", ".", "é", "\u{a0}", "\u{2028}", "\u{85}", "\t", "😀",
    "\\", "\u{3000}", "\u{feff}", " ", "\u{2003}",
];

/// Characters TOML refuses in strings, or whitespace it does not count.
const ODD: &[&str] = &[
    "\u{7f}", "\u{1}", "\u{0}", "\r", "\n", "\u{1b}", "\u{b}", "\u{c}", "\u{a0}", "\u{2003}",
    "\u{3000}", "\u{85}", "\u{2028}", "\u{feff}",
];

/// A backslash escape, valid in TOML 1.0 or not.
const ESCAPES: &[&str] = &[
    "\\n",
    "\\t",
    "\\\"",
    "\\\\",
    "\\b",
    "\\f",
    "\\r",
    "\\u0041",
    "\\u00e9",
    "\\U0001F600",
    "\\u002F",
    "\\u0000", // valid
    "\\e",
    "\\x41",
    "\\xe9", // TOML 1.1 only
    "\\a",
    "\\/",
    "\\u12",
    "\\uD800",
    "\\U00110000",
    "\\ ",
    "\\0",
    "\\",
    "\\\n", // invalid
];

/// Values that are not strings: booleans, numbers, dates (some TOML 1.1 only).
const NON_STRINGS: &[&str] = &[
    "true",
    "false",
    "True",
    "FALSE",
    "1",
    "0",
    "-0",
    "+1",
    "0x1F",
    "0o7",
    "0b1",
    "1_000",
    "1__0",
    "1.5",
    "1e3",
    "inf",
    "-nan",
    "1979-05-27",
    "07:32:00",
    "07:32",
    "1979-05-27T07:32:00Z",
    "1979-05-27 07:32",
    "yes",
    "null",
];

/// Keys: the schema's own and case variants of them, others, odd ones.
const KEYS: &[&str] = &[
    "location",
    "prefix",
    "insecure",
    "blocked",
    "mirror-by-digest-only",
    "pull-from-mirror",
    "mirror",
    "registry",
    "registries",
    "aliases",
    "unqualified-search-registries",
    "credential-helpers",
    "short-name-mode",
    "additional-layer-store-auth-helper",
    "Location",
    "INSECURE",
    "in\u{17f}ecure",
    "Mirror",
    "fedora",
    "ubi",
    "other",
    "x_y",
    "1",
    "true",
    "é",
    "a b",
    "",
];

/// Whitespace around tokens: TOML's own, and when noisy other characters.
fn ws(c: &mut Choices, noisy: bool) -> &'static str {
    if noisy && c.chance(4) {
        return c.pick(ODD);
    }
    c.pick(&["", " ", "", "\t", "  "])
}

/// Text inside a string: registry-like words and characters that need care.
fn text(c: &mut Choices, noisy: bool) -> String {
    let mut s = String::new();
    for _ in 0..c.below(3) {
        match c.below(10) {
            0 => s.push_str(c.pick(CAREFUL)),
            1 if noisy => s.push_str(c.pick(ODD)),
            2 | 3 => {
                for _ in 0..c.below(8) {
                    s.push(char::from(c.pick(b"abcz09.:/*_-")));
                }
            }
            _ => s.push_str(c.pick(HOSTS)),
        }
    }
    s
}

/// A basic or literal string; when noisy also with escapes, raw quotes
/// and backslashes, or multi-line (basic and literal).
fn string(c: &mut Choices, content: String, noisy: bool) -> String {
    let choice = if noisy { c.below(8) } else { c.below(2) };
    match choice {
        0 | 2 => format!("\"{}\"", content.replace(['"', '\\'], "")),
        1 | 3 => format!("'{}'", content.replace('\'', "")),
        4 => format!("\"{content}\""),
        5 => {
            let mut s = String::from("\"");
            for _ in 0..1 + c.below(3) {
                s.push_str(&text(c, true).replace(['"', '\\'], ""));
                s.push_str(c.pick(ESCAPES));
            }
            s.push('"');
            s
        }
        6 => {
            let nl = c.pick(&["", "\n", "\r\n", "\\\n  "]);
            format!("\"\"\"{nl}{content}\n{}\"\"\"", text(c, true))
        }
        _ => {
            let nl = c.pick(&["", "\n"]);
            format!("'''{nl}{content}\n{}'''", text(c, true))
        }
    }
}

/// An array on one line or over several, with comments and trailing commas.
fn array(c: &mut Choices, noisy: bool, item: &mut dyn FnMut(&mut Choices) -> String) -> String {
    let mut seps = vec![
        ", ",
        ",\n  ",
        " , ",
        ", # c\n  ",
        ",",
        "\n  ,",
        ",\n\n  # c\n  ",
        "\t,\t",
    ];
    let mut closes = vec!["", ",", ",\n", "\n", " # last\n", ", "];
    if noisy {
        seps.extend([",\r\n  ", "", ",,", ",\r  "]);
        closes.extend([",,", "\r\n"]);
    }
    let mut s = format!("[{}", c.pick(&["", "\n  ", " # open\n  "]));
    let n = c.below(4);
    for i in 0..n {
        if i > 0 {
            s.push_str(c.pick(&seps));
        }
        if noisy && c.chance(10) {
            s.push_str(&any_value(c, 1));
        } else {
            s.push_str(&item(c));
        }
    }
    if n > 0 {
        s.push_str(c.pick(&closes));
    }
    s.push(']');
    s
}

/// Any value: strings, other scalars, arrays, inline tables (with TOML
/// 1.1's newlines and trailing comma sometimes).
fn any_value(c: &mut Choices, depth: usize) -> String {
    match c.below(if depth > 1 { 2 } else { 4 }) {
        0 => {
            let t = text(c, true);
            string(c, t, true)
        }
        1 => c.pick(NON_STRINGS).to_string(),
        2 => array(c, true, &mut |c| {
            let t = text(c, true);
            string(c, t, true)
        }),
        _ => {
            let mut pairs = Vec::new();
            for _ in 0..c.below(3) {
                let k = key(c, true);
                pairs.push(format!("{k} = {}", any_value(c, depth + 1)));
            }
            let sep = c.pick(&[", ", ",\n", ","]);
            format!("{{ {}{} }}", pairs.join(sep), c.pick(&["", ",", "\n"]))
        }
    }
}

/// A key, bare or quoted, and when noisy dotted or with escapes.
fn key(c: &mut Choices, noisy: bool) -> String {
    let name = c.pick(KEYS);
    match if noisy { c.below(5) } else { c.below(3) } {
        0 => name.to_string(),
        1 => format!("\"{name}\""),
        2 => format!("'{name}'"),
        3 => c
            .pick(&[
                "\"loc\\u0061tion\"",
                "\"ns/x\"",
                "'quoted key'",
                "\"\"",
                "\"a\\eb\"",
            ])
            .to_string(),
        _ => format!("{name}{}.{}{}", ws(c, true), ws(c, true), c.pick(KEYS)),
    }
}

/// A value of the type the loader wants for `key`, mostly valid.
fn typed_value(c: &mut Choices, key: &str) -> String {
    let quoted = |c: &mut Choices, items: &[&str]| {
        let content = if c.chance(10) {
            text(c, false)
        } else {
            c.pick(items).to_string()
        };
        string(c, content, false)
    };
    match key {
        "location" => quoted(c, HOSTS),
        "prefix" => quoted(c, &[HOSTS, &["*.example.com", "*.io"]].concat()),
        "pull-from-mirror" => quoted(c, &["", "all", "digest-only", "tag-only"]),
        "short-name-mode" => quoted(c, &["enforcing", "", "permissive", "disabled"]),
        "insecure" | "blocked" | "mirror-by-digest-only" => c.pick(&["true", "false"]).to_string(),
        "unqualified-search-registries" => array(c, false, &mut |c| {
            quoted(
                c,
                &["quay.io", "docker.io", "registry-1.io:443", "localhost"],
            )
        }),
        "credential-helpers" => array(c, false, &mut |c| {
            quoted(c, &["containers-auth.json", "secretservice"])
        }),
        "additional-layer-store-auth-helper" => quoted(c, &["", "helper"]),
        _ => quoted(
            c,
            &[
                "registry.fedoraproject.org/fedora",
                "quay.io/ns/x",
                "docker.io/library/busybox",
                "",
            ],
        ),
    }
}

/// The known keys of `table` (the aliases' are examples); the first is
/// always written in a plain table.
fn table_keys(table: &str) -> &'static [&'static str] {
    match table {
        "root" => &[
            "unqualified-search-registries",
            "short-name-mode",
            "credential-helpers",
            "additional-layer-store-auth-helper",
        ],
        "registry" => &[
            "location",
            "prefix",
            "insecure",
            "blocked",
            "mirror-by-digest-only",
        ],
        "mirror" => &["location", "pull-from-mirror", "insecure"],
        _ => &[
            "fedora",
            "ubi",
            "\"ns/x\"",
            "'quoted key'",
            "busybox",
            "\"\"",
        ],
    }
}

/// The lines of `table`. Plain: each known key at most once with a value
/// of its type, sometimes an unknown key, comments, in any order. Noisy:
/// known and other keys with any value, any whitespace, duplicates.
fn table_lines(c: &mut Choices, table: &str, noisy: bool, out: &mut Vec<String>) {
    let keys = table_keys(table);
    if noisy {
        for _ in 0..c.below(5) {
            let line = match c.below(5) {
                0 | 1 => format!("{} = {}", c.pick(keys), any_value(c, 0)),
                2 => {
                    let (k, typed_as) = (c.pick(keys), c.pick(keys));
                    format!("{k} = {}", typed_value(c, typed_as))
                }
                3 => {
                    let (k, w1, w2) = (key(c, true), ws(c, true), ws(c, true));
                    format!("{k}{w1}={w2}{}", any_value(c, 0))
                }
                _ => c
                    .pick(&["# a comment \"[x]\"", "", " \u{7f}", "# \u{1}"])
                    .to_string(),
            };
            let (w1, w2) = (ws(c, true), ws(c, true));
            let trailing = c.pick(&["", " # trailing", "#c", " x", " # \u{0}"]);
            out.push(format!("{w1}{line}{w2}{trailing}"));
        }
        return;
    }
    let mut lines = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let always = i == 0 && matches!(table, "registry" | "mirror") && !c.chance(5);
        if always || c.chance(40) {
            let v = typed_value(c, k);
            lines.push((*k).to_string() + c.pick(&[" = ", "=", " =\t", "  =  "]) + &v);
        }
    }
    if c.chance(20) {
        let k = c.pick(&["other", "x_y", "\"quoted key\"", "'lit'", "9"]);
        let v = text(c, false);
        let v = string(c, v, false);
        lines.push(format!("{k} = {v}"));
    }
    if c.chance(20) {
        lines.push(c.pick(&["# a comment \"[x]\"", "", "  \t"]).to_string());
    }
    if c.chance(12) {
        let k = c.pick(&["other", "x_y", "\"quoted key\""]);
        lines.push(format!("{k} = {}", toml_version_value(c)));
    }
    // A plain shuffle, keeping the table's first key first most of the time.
    for i in (1..lines.len()).rev() {
        if c.chance(20) {
            let j = c.below(i + 1);
            lines.swap(i, j);
        }
    }
    for line in lines {
        let indent = c.pick(&["", "", "  ", "\t"]);
        let trailing = c.pick(&["", "", "", " # trailing", "#c", " # \"quoted\" ]", "\t"]);
        out.push(format!("{indent}{line}{trailing}"));
    }
}

/// A value of an unknown key (so the file loads either way) that TOML 1.1
/// allows and TOML 1.0 does not, or a TOML 1.0 near miss of one: inline
/// tables over lines, with comments or a trailing comma, the `\e` and
/// `\xHH` escapes, times without seconds.
fn toml_version_value(c: &mut Choices) -> String {
    const ONLY_1_1: &[&str] = &[
        "{ a = \"x\",\n  b = 1 }",
        "{\n  a = \"x\"\n}",
        "{ a = \"x\", }",
        "{ a = { b = 1, }, c = 2 }",
        "{ # c\n a = 1 }",
        "[ { a = 1,\n } ]",
        "\"\\e[0m\"",
        "\"quay.io\\x2fns\"",
        "\"\"\"\n\\x41\"\"\"",
        "07:32",
        "1979-05-27T07:32Z",
        "1979-05-27 07:32",
        "1979-05-27T07:32-07:00",
        "[ 07:32:00, 07:32 ]",
    ];
    const ONLY_1_0: &[&str] = &[
        "{ a = \"x\", b = [\n  1,\n  2,\n] }",
        "[ { a = 1 }, # c\n  { b = 2 },\n]",
        "\"\\\\e \\\\x41 \\u001b\"",
        "'\\e \\x41'",
        "'''\n\\x41'''",
        "\"\"\"a\\\n  b\"\"\"\"\"",
        "07:32:00",
        "1979-05-27T07:32:00Z",
        "1979-05-27 07:32:00.5",
        "1979-05-27T07:32:00-07:00",
        "\"07:32 {a=1,}\" # 07:32 { ,}",
    ];
    if c.chance(50) {
        c.pick(ONLY_1_1).to_string()
    } else {
        c.pick(ONLY_1_0).to_string()
    }
}

/// A header: the schema's, and when noisy other tables and the schema's
/// spelled other ways; with the table its keys belong to.
fn header(c: &mut Choices, noisy: bool) -> (&'static str, &'static str) {
    const ODD_HEADERS: &[(&str, &str)] = &[
        ("[registries.search]", "root"),
        ("[registries.insecure]", "root"),
        ("[registries.block]", "root"),
        ("[registry]", "registry"),
        ("[[aliases]]", "aliases"),
        ("[ registry ]", "registry"),
        ("[[ registry ]]", "registry"),
        ("[[ registry . mirror ]]", "mirror"),
        ("[[\"registry\"]]", "registry"),
        ("[['registry'.\"mirror\"]]", "mirror"),
        ("[[Registry]]", "registry"),
        ("[[registry.MIRROR]]", "mirror"),
        ("[Aliases]", "aliases"),
        ("[other]", "root"),
        ("[[registry.mirror.x]]", "mirror"),
        ("[aliases.sub]", "aliases"),
        ("[[registry]]]", "registry"),
        ("[[registry] ]", "registry"),
        ("[]", "root"),
        ("[registry.mirror]", "mirror"),
        ("[[registry.location]]", "registry"),
    ];
    if noisy && c.chance(20) {
        return c.pick(ODD_HEADERS);
    }
    c.pick(&[
        ("[[registry]]", "registry"),
        ("[[registry.mirror]]", "mirror"),
        ("[[registry]]", "registry"),
        ("[aliases]", "aliases"),
        ("[[registry.mirror]]", "mirror"),
    ])
}

fn push_table(c: &mut Choices, h: &str, table: &str, noisy: bool, out: &mut Vec<String>) {
    let trailing = c.pick(&["", "", " # c", "#c", "\t", " x"][..if noisy { 6 } else { 5 }]);
    out.push(format!(
        "{}{h}{trailing}",
        if noisy { ws(c, true) } else { "" }
    ));
    table_lines(c, table, noisy, out);
}

/// Inserts, deletes, duplicates or swaps at chosen places.
fn mutate(c: &mut Choices, text: &mut String) {
    const HAZARDS: &[&str] = &[
        "\u{feff}",
        "\u{a0}",
        "\u{2003}",
        "\u{3000}",
        "\u{2028}",
        "\u{85}",
        "\r",
        "\r\n",
        "\n",
        "\u{0}",
        "\u{1}",
        "\u{7f}",
        "\u{1b}",
        "\t",
        " ",
        "\"",
        "'",
        "\\",
        "#",
        "=",
        "[",
        "]",
        ",",
        "{",
        "}",
        ".",
        "\\e",
        "\\x41",
        "\\u0041",
        "\\U0001F600",
        "\\uD800",
        "\"\"\"",
        "'''",
        "[[registry]]\n",
        "[aliases]\n",
        "é",
        "true",
        "1",
    ];
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    match c.below(8) {
        0..=3 => {
            let at = boundaries[c.below(boundaries.len())];
            text.insert_str(at, c.pick(HAZARDS));
        }
        4 | 5 => {
            if boundaries.len() > 1 {
                let at = boundaries[c.below(boundaries.len() - 1)];
                text.remove(at);
            }
        }
        kind => {
            let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
            if lines.is_empty() {
                return;
            }
            let a = c.below(lines.len());
            if kind == 6 {
                lines.insert(a, lines[a]);
            } else {
                let b = c.below(lines.len());
                lines.swap(a, b);
            }
            *text = lines.concat();
        }
    }
}

/// A registries.conf file, plain or noisy: root keys, then `[[registry]]`
/// entries with their mirrors, `[aliases]` and (noisy) other tables;
/// joined with LF, CRLF or (rarely) lone CR line ends, perhaps behind a
/// BOM; then, in two files of five, one to three mutations.
fn build_registries_conf(c: &mut Choices) -> String {
    let noisy = c.chance(50);
    let mut lines = Vec::new();
    table_lines(c, "root", noisy, &mut lines);
    for _ in 0..c.below(5) {
        if noisy {
            let (h, table) = header(c, true);
            push_table(c, h, table, true, &mut lines);
        } else if c.chance(15) {
            push_table(c, "[aliases]", "aliases", false, &mut lines);
        } else {
            push_table(c, "[[registry]]", "registry", false, &mut lines);
            for _ in 0..c.below(3) {
                push_table(c, "[[registry.mirror]]", "mirror", false, &mut lines);
            }
        }
    }
    let eol = c.pick(&["\n", "\n", "\n", "\n", "\r\n", "\n", "\r"]);
    let bom = if c.chance(7) { "\u{feff}" } else { "" };
    let mut text = format!("{bom}{}", lines.join(eol));
    if !lines.is_empty() && !c.chance(30) {
        text.push_str(eol);
    }
    if c.chance(40) {
        for _ in 0..1 + c.below(3) {
            mutate(c, &mut text);
        }
    }
    text
}

fn registries_conf() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u16>(), 0..400)
        .prop_map(|seq| build_registries_conf(&mut Choices { seq: &seq, at: 0 }))
}

/// At least 10,000 generated and mutated files per run: the fast reader
/// and the `toml` crate give the loader the same configuration, or the
/// same error. A good share of the files must be read by the fast reader
/// itself, and a good share refused, or the comparison proves little.
#[test]
fn issue_12_fast_registries_reader_agrees_with_toml() {
    const CASES: u32 = 10_000;
    let mut runner = runner(CASES);
    let fast = std::cell::Cell::new(0u32);
    let loaded = std::cell::Cell::new(0u32);
    let toml_1_1 = std::cell::Cell::new(0u32);
    let result = runner.run(&registries_conf(), |text| {
        let seen = checks::registries_readers_agree(&text).map_err(TestCaseError::fail)?;
        fast.set(fast.get() + u32::from(seen.fast_reader));
        loaded.set(loaded.get() + u32::from(seen.loaded));
        // TOML 1.1 that TOML 1.0 refuses: the loader refuses it too.
        if is_toml_1_1_only(&text) {
            toml_1_1.set(toml_1_1.get() + 1);
            prop_assert!(!seen.loaded, "TOML 1.1-only text loaded: {text:?}");
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (fast, loaded, toml_1_1) = (fast.get(), loaded.get(), toml_1_1.get());
    eprintln!(
        "{CASES} files: {fast} read by the fast reader, {loaded} loaded, {toml_1_1} TOML 1.1 only"
    );
    at_least(toml_1_1, CASES / 50, "files TOML 1.1 only");
    at_least(fast, CASES / 4, "files read by the fast reader");
    at_least(loaded, CASES / 8, "files loaded");
    at_least(CASES - loaded, CASES / 4, "files refused");
}

/// A runner of `cases` cases that keeps no failure file in the tree.
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

/// Fails unless `count` cases of a run were `what`: a generator that
/// rarely reaches a case proves little about it.
fn at_least(count: u32, floor: u32, what: &str) {
    assert!(
        count >= floor,
        "only {count} {what} (at least {floor} wanted)"
    );
}

/// A TOML 1.1 document that is not TOML 1.0.
fn is_toml_1_1_only(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok()
        && !mirrorpolicy::registries::reads_as_toml_1_0(text)
}

/// What Python's `tomllib` (TOML 1.0, Python 3.11 and later) says of each
/// text: `Some(accepted)`, or `None` with why when it cannot run here.
fn tomllib_verdicts(texts: &[String]) -> Result<Vec<bool>, String> {
    use std::io::Write;
    const SCRIPT: &str = "import json, sys, tomllib\n\
        out = []\n\
        for t in json.load(sys.stdin):\n\
        \x20   try:\n\
        \x20       tomllib.loads(t)\n\
        \x20       out.append(True)\n\
        \x20   except tomllib.TOMLDecodeError:\n\
        \x20       out.append(False)\n\
        json.dump(out, sys.stdout)\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 cannot run: {e}"))?;
    let input = serde_json::to_vec(texts).expect("texts encode");
    child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(&input)
        .map_err(|e| format!("writing to python3: {e}"))?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "python3 has no tomllib (Python 3.11 or later): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("python3's answer: {e}"))
}

/// The tool's TOML 1.0 (what it refuses as TOML in a node's
/// registries.conf) against Python's `tomllib` as the oracle, over 6,000
/// generated and mutated files, TOML 1.1-only constructs among them. A
/// leading BOM is removed first: BurntSushi/toml skips it, `tomllib` does not.
#[test]
fn issue_25_toml_1_0_as_tomllib_reads_it() {
    let mut runner = TestRunner::deterministic();
    let strategy = registries_conf();
    let texts: Vec<String> = (0..6000)
        .map(|_| {
            let text = strategy.new_tree(&mut runner).expect("a file").current();
            text.strip_prefix('\u{feff}').unwrap_or(&text).to_string()
        })
        .collect();
    let verdicts = match tomllib_verdicts(&texts) {
        Ok(v) => v,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let mut wrong = Vec::new();
    let (mut accepted, mut only_1_1) = (0, 0);
    for (text, &tomllib) in texts.iter().zip(&verdicts) {
        accepted += usize::from(tomllib);
        only_1_1 += usize::from(is_toml_1_1_only(text));
        if mirrorpolicy::registries::reads_as_toml_1_0(text) != tomllib {
            wrong.push(format!(
                "tomllib {}: {text:?}",
                if tomllib { "reads" } else { "refuses" }
            ));
        }
    }
    eprintln!(
        "{} files: {accepted} TOML 1.0, {only_1_1} TOML 1.1 only",
        texts.len()
    );
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        accepted >= 1000 && only_1_1 >= 100,
        "too few cases of each kind"
    );
}

/// The generator itself: its files cover what the property claims to.
#[test]
fn registries_generator_covers_the_syntax() {
    let mut runner = TestRunner::deterministic();
    let strategy = registries_conf();
    let mut all = String::new();
    for _ in 0..3000 {
        all.push_str(&strategy.new_tree(&mut runner).expect("a file").current());
    }
    for needle in [
        "[[registry]]",
        "[[registry.mirror]]",
        "[aliases]",
        "[registries.search]",
        "\"\"\"",
        "'''",
        "\\u",
        "\\U",
        "\\e",
        "\\x",
        "# ",
        ",\n",
        ",]",
        "{ ",
        ".",
        "\r\n",
        "\r",
        "\u{feff}",
        "\u{a0}",
        "\u{2003}",
        "\u{0}",
        "= 1",
        "= 1.5",
        "= true",
        "in\u{17f}ecure",
        "'quoted key'",
    ] {
        assert!(
            all.contains(needle),
            "the generator never writes {needle:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// migrate-icsp round trip

/// Strings for names, labels, annotations, sources and mirrors: valid
/// image scopes most of the time, else anything, including YAML's
/// indicators, reserved words, numbers and non-printing characters.
fn yaml_string() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[a-z0-9]{1,8}(\\.[a-z0-9]{1,6}){0,2}(:[0-9]{2,5})?(/[a-z0-9]{1,6}([._-][a-z0-9]{1,4})?){0,3}",
        1 => "\\*(\\.[a-z0-9]{1,6}){1,3}",
        1 => prop::sample::select(vec![
            "", " ", "-", "- x", "? x", ": x", "a: b", "a #b", "#x", "&a", "*a", "!t", "|", ">",
            "'q'", "\"d\"", "%x", "@x", "`x", "{x}", "[x]", "~", "null", "Null", "true", "no", "on",
            "y", "0", "-1", "1e3", "0x1F", "0o7", ".5", ".inf", "-.Inf", ".nan", "1_000", "12:30",
            "2001-12-14", "---", "...", "x\ny", "x\r\ny", "\t", "x ", " x", "a\u{85}b", "\u{a0}",
            "\u{2028}", "\u{feff}x", "\u{0}", "\u{7f}", "\u{1b}[31m", "é", "😀", "\\", "\\n",
            "a\"b'c", "<<", "=", "!!str", "x:", "x,y",
        ])
        .prop_map(str::to_string),
        1 => any::<String>(),
    ]
    .boxed()
}

fn icsp() -> impl Strategy<Value = ImageContentSourcePolicy> {
    (
        yaml_string(),
        prop::collection::btree_map(yaml_string(), yaml_string(), 0..3),
        prop::collection::btree_map(yaml_string(), yaml_string(), 0..3),
        prop::collection::vec(
            (yaml_string(), prop::collection::vec(yaml_string(), 0..3)),
            0..4,
        ),
    )
        .prop_map(|(name, labels, annotations, entries)| {
            let mut o = ImageContentSourcePolicy::new(&name);
            o.metadata.labels = labels;
            o.metadata.annotations = annotations;
            o.spec.repository_digest_mirrors = entries
                .into_iter()
                .map(|(source, mirrors)| RepositoryDigestMirrors { source, mirrors })
                .collect();
            o
        })
}

/// A few hundred ICSPs with arbitrary names, labels, annotations, sources
/// and mirrors: the IDMS and ITMS `migrate-icsp` writes read back, with
/// the tool's YAML loader, as exactly those objects.
#[test]
fn issue_12_migrate_output_reads_back_as_the_same_objects() {
    let mut runner = runner(400);
    let result = runner.run(&icsp(), |o| {
        checks::migrate_round_trip(&o).map_err(TestCaseError::fail)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn migrate_round_trip_keeps_every_field() {
    let mut o = ImageContentSourcePolicy::new("x");
    o.metadata.labels = BTreeMap::from([("a: b".into(), "- x".into())]);
    o.metadata.annotations = BTreeMap::from([("n".into(), "line\nbreak".into())]);
    o.spec.repository_digest_mirrors = vec![RepositoryDigestMirrors {
        source: "quay.io/a".into(),
        mirrors: vec!["m.example.com/a".into(), "true".into()],
    }];
    checks::migrate_round_trip(&o).expect("round trip");
}

// ---------------------------------------------------------------------------
// The rendered registries.conf, taken from its writer

/// Scopes and values for the generated configurations: valid ones most of
/// the time (often the same few, so that entries collide), else strings
/// TOML must escape, that the loader refuses, or that only some readers take.
fn conf_string() -> BoxedStrategy<String> {
    prop_oneof![
        8 => prop::sample::select(vec![
            "quay.io", "quay.io/a", "docker.io/library/busybox", "registry.example.com:5000/ns",
            "*.example.com", "*.quay.io", "localhost", "localhost:5000/x", "mirror.local/x",
            "enforcing", "permissive", "disabled", "digest-only", "tag-only", "containers-auth.json",
        ])
        .prop_map(str::to_string),
        4 => "[a-z0-9]{1,6}(\\.[a-z0-9]{1,4}){0,2}(:[0-9]{2,5})?(/[a-z0-9._-]{1,6}){0,2}(@sha256:[0-9a-f]{2}|:[a-z]{1,3})?",
        1 => prop::sample::select(vec![
            "", " ", "*", "*.", "a*b", "http://x.io", "x.io/", "UPPER.io/A", "a\"b", "a\\b",
            "tab\there", "nl\nx", "cr\rx", "\u{1}", "\u{7f}", "\u{8}", "\u{c}", "é.io", "😀",
            "\u{feff}x", "'single'", "# not a comment", "= x", "[[registry]]",
        ])
        .prop_map(str::to_string),
        1 => any::<String>(),
    ]
    .boxed()
}

/// One of `valid` most of the time, else any [`conf_string`].
fn mostly(valid: &'static [&'static str]) -> BoxedStrategy<String> {
    prop_oneof![
        6 => prop::sample::select(valid).prop_map(str::to_string),
        1 => conf_string(),
    ]
    .boxed()
}

fn endpoint() -> impl Strategy<Value = mirrorpolicy::render::registries::Endpoint> {
    let pull = mostly(&["all", "digest-only", "tag-only"]);
    (conf_string(), any::<bool>(), pull, any::<u8>()).prop_map(
        |(location, insecure, pull, choice)| mirrorpolicy::render::registries::Endpoint {
            location: if choice % 5 == 0 {
                String::new()
            } else {
                location
            },
            insecure,
            pull_from_mirror: if choice % 3 == 0 { String::new() } else { pull },
            origins: vec![],
        },
    )
}

fn registry_entry() -> impl Strategy<Value = mirrorpolicy::render::registries::RegistryEntry> {
    (
        conf_string(),
        conf_string(),
        any::<[bool; 3]>(),
        prop::collection::vec(endpoint(), 0..3),
        any::<u8>(),
    )
        .prop_map(
            |(prefix, location, [insecure, blocked, digest_only], mirrors, choice)| {
                mirrorpolicy::render::registries::RegistryEntry {
                    prefix: if choice % 4 == 0 {
                        prefix
                    } else {
                        String::new()
                    },
                    location: if choice % 7 == 0 {
                        String::new()
                    } else {
                        location
                    },
                    insecure,
                    blocked,
                    mirror_by_digest_only: digest_only,
                    mirrors,
                    origins: vec![],
                }
            },
        )
}

fn v2_conf() -> impl Strategy<Value = mirrorpolicy::render::registries::V2RegistriesConf> {
    (
        prop::collection::vec(registry_entry(), 0..4),
        prop::option::of(prop::collection::vec(conf_string(), 0..3)),
        prop::option::of(prop::collection::vec(conf_string(), 0..2)),
        mostly(&["enforcing", "permissive", "disabled"]),
        conf_string(),
        any::<u8>(),
    )
        .prop_map(|(registries, search, helpers, mode, helper, choice)| {
            mirrorpolicy::render::registries::V2RegistriesConf {
                registries,
                unqualified_search_registries: search,
                credential_helpers: helpers,
                short_name_mode: if choice % 2 == 0 { String::new() } else { mode },
                additional_layer_store_auth_helper: if choice % 3 == 0 {
                    helper
                } else {
                    String::new()
                },
            }
        })
}

fn encode_profile() -> impl Strategy<Value = mirrorpolicy::render::encode::EncodeProfile> {
    use mirrorpolicy::render::encode::{EncodeProfile, TomlQuoting};
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(mode, helper, old)| EncodeProfile {
        short_name_mode: mode,
        additional_layer_store_auth_helper: helper,
        quoting: if old {
            TomlQuoting::V0_3
        } else {
            TomlQuoting::V0_4
        },
    })
}

/// Thousands of generated configurations, encoded as the MCO writes them:
/// loading the file with the tables its writer recorded
/// (`registries::load_written`, what `explain -f` does with a render)
/// gives exactly what loading its text gives: the same entries, lines,
/// origins, search list and mode, or the same error. Taken from the writer
/// or read from the text (a string that is not written as it is), a good
/// share of each, and of loads and refusals.
#[test]
fn rendered_registries_conf_taken_from_its_writer_reads_as_its_text() {
    use mirrorpolicy::crio::NodeRuntime;
    use mirrorpolicy::registries::{load_on, load_written, ConfigFile};
    use mirrorpolicy::render::encode::{encode_registries_conf, written_registries_conf};
    const CASES: u32 = 5_000;
    let mut runner = runner(CASES);
    let taken = std::cell::Cell::new(0u32);
    let loaded = std::cell::Cell::new(0u32);
    let both = std::cell::Cell::new(0u32);
    let result = runner.run(&(v2_conf(), encode_profile()), |(conf, profile)| {
        let text = encode_registries_conf(&conf, profile);
        let (written, length) = written_registries_conf(&conf, profile);
        prop_assert_eq!(length, text.len(), "length of {:?}", text);
        let file = ConfigFile {
            name: "/etc/containers/registries.conf",
            text: &text,
        };
        let runtime = NodeRuntime::unknown();
        let plain = written.is_plain();
        taken.set(taken.get() + u32::from(plain));
        let from_writer = load_written(&file, written, &[], &runtime);
        let from_text = load_on(Some(&file), &[], &runtime);
        loaded.set(loaded.get() + u32::from(from_text.is_ok()));
        both.set(both.get() + u32::from(plain && from_text.is_ok()));
        prop_assert_eq!(from_writer, from_text, "text:\n{}", text);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (taken, loaded, both) = (taken.get(), loaded.get(), both.get());
    eprintln!(
        "{CASES} configurations: {taken} taken from the writer, {loaded} loaded, {both} both"
    );
    at_least(both, CASES / 10, "taken from the writer and loaded");
    at_least(taken, CASES / 4, "taken from the writer");
    at_least(CASES - taken, CASES / 10, "read from the text");
    at_least(loaded, CASES / 4, "loaded");
    at_least(CASES - loaded, CASES / 10, "refused");
}
