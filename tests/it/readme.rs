//! The documentation cannot drift from the binary: README.md and every page
//! of docs/ are checked here.
//!
//! - Every plain fenced block that starts with `$ kubectl mirrorpolicy ...`
//!   (one command line, then its output) is run, and must print what the
//!   page shows. A block may end with `$ echo $?` and the exit code the
//!   command must give (else it must succeed).
//! - A command shown in any other block (```` ```console ````, a run against
//!   a fake API server or registry) must be one of [`RUN_ELSEWHERE`], each
//!   run by the named test (or end-to-end script against real registries,
//!   run by `.ci/run`); a command shown that no test runs fails.
//! - A block said to come from a golden file (`from `tests/golden/...``)
//!   is that file.
//! - Every relative link resolves to a file, and every `#anchor` to a
//!   heading of its page.
//! - Every command of `--help` has its page, linked from README.md, and
//!   every flag of a command's `--help` is named on its page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Examples run by another test, which reads the page and compares: (page,
/// the first line of the command shown, without `$ `; the test's file; the
/// test).
const RUN_ELSEWHERE: &[(&str, &str, &str, &str)] = &[
    (
        "docs/many-clusters.md",
        "kubectl mirrorpolicy list --context prod-east,prod-west,lab",
        "tests/it/cli_many.rs",
        "fn issue_17_docs_example_of_several_clusters_is_real",
    ),
    (
        "docs/many-clusters.md",
        "kubectl mirrorpolicy audit -A --context prod-east,prod-west,lab -o summary",
        "tests/it/cli_many.rs",
        "fn issue_26_docs_summary_example_is_real",
    ),
    (
        "docs/upgrade-check.md",
        "kubectl mirrorpolicy upgrade-check -f cluster.yaml --cert-dir certs/ \\",
        "tests/it/cli_upgrade.rs",
        "fn docs_example_is_real",
    ),
    (
        "docs/operator-check.md",
        "kubectl mirrorpolicy operator-check -f cluster-resources/ --cert-dir certs/",
        "scripts/e2e-operator.sh",
        "docs_example",
    ),
    (
        "docs/operator-check.md",
        "kubectl mirrorpolicy operator-check -f cluster-resources-v1/ --cert-dir certs/ clusterextension/etcd",
        "scripts/e2e-operator.sh",
        "docs_example",
    ),
    (
        "docs/collect-node-files.md",
        "kubectl mirrorpolicy collect-node-files --pool worker --dest-dir node-files/",
        "tests/it/cli_node_files.rs",
        "fn docs_example_is_real",
    ),
];

/// What a line showing a command of this tool starts with.
const SHOWN: [&str; 3] = [
    "$ kubectl mirrorpolicy ",
    "$ kubectl-mirrorpolicy ",
    "$ oc mirrorpolicy ",
];

struct Block {
    page: String,
    /// The line of the opening fence, from 1.
    line: usize,
    /// The info string after the fence (`console`, `json`, or empty).
    info: String,
    body: String,
}

/// README.md and every `*.md` under docs/, by path from the repository.
fn pages() -> BTreeMap<String, String> {
    let mut pages = BTreeMap::new();
    let mut folders = vec![PathBuf::from(ROOT).join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("docs/") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let name = path.strip_prefix(ROOT).unwrap().to_string_lossy();
                let name = name.replace('\\', "/");
                pages.insert(name, std::fs::read_to_string(&path).expect("a page"));
            }
        }
    }
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README.md");
    pages.insert("README.md".to_string(), readme);
    pages
}

/// The fenced blocks of a page.
fn blocks(page: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        match open.take() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Block {
                        page: page.to_string(),
                        line: n + 1,
                        info: info.trim().to_string(),
                        body: String::new(),
                    });
                }
            }
            Some(block) if line == "```" => blocks.push(block),
            Some(mut block) => {
                block.body.push_str(line);
                block.body.push('\n');
                open = Some(block);
            }
        }
    }
    assert!(open.is_none(), "{page}: a block is not closed");
    blocks
}

/// The text of a page outside its fenced blocks.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn run_example(block: &Block) {
    let where_ = format!("{}:{}", block.page, block.line);
    let (command, expected) = block
        .body
        .split_once('\n')
        .expect("command line then output");
    let command = &command["$ kubectl mirrorpolicy ".len()..];
    let (expected, code) = match expected.rsplit_once("$ echo $?\n") {
        Some((output, code)) => (output, code.trim().parse::<i32>().expect("an exit code")),
        None => (expected, 0),
    };
    assert!(
        !expected.lines().any(|l| l.starts_with("$ ")),
        "{where_}: one command per block"
    );
    let out = Command::cargo_bin("kubectl-mirrorpolicy")
        .expect("binary built")
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        // The examples are shown fitted to 100 columns.
        .env("COLUMNS", "100")
        .env_remove("KUBECONFIG")
        .args(command.split_whitespace())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{where_}: {command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expected,
        "{where_}: the output of `{command}`"
    );
}

#[test]
fn doc_examples_match_the_binary() {
    let mut checked = 0;
    for (page, text) in pages() {
        for block in blocks(&page, &text) {
            if block.info.is_empty() && block.body.starts_with("$ kubectl mirrorpolicy ") {
                run_example(&block);
                checked += 1;
            }
        }
    }
    assert!(checked >= 15, "only {checked} examples found");
}

/// The first line of each block that shows a command no test here runs.
fn shown_elsewhere(block: &Block) -> Option<&str> {
    if block.info.is_empty() && block.body.starts_with("$ kubectl mirrorpolicy ") {
        return None;
    }
    block
        .body
        .lines()
        .find(|l| SHOWN.iter().any(|s| l.starts_with(s)))
}

#[test]
fn every_command_shown_is_run_by_a_test() {
    let pages = pages();
    let mut found = vec![0; RUN_ELSEWHERE.len()];
    for (page, text) in &pages {
        for block in blocks(page, text) {
            let Some(line) = shown_elsewhere(&block) else {
                continue;
            };
            let known = RUN_ELSEWHERE
                .iter()
                .position(|(p, first, _, _)| p == page && line.strip_prefix("$ ") == Some(first));
            match known {
                Some(i) => found[i] += 1,
                None => panic!(
                    "{page}:{}: `{line}` is shown in a ```{} block that no test runs: show it in a \
                     plain ``` block (run by this test), or add the test that runs it to RUN_ELSEWHERE",
                    block.line, block.info
                ),
            }
        }
    }
    for ((page, first, test_file, test), n) in RUN_ELSEWHERE.iter().zip(found) {
        assert_eq!(n, 1, "{page} shows `$ {first}` {n} times, not once");
        let source = std::fs::read_to_string(Path::new(ROOT).join(test_file)).expect(test_file);
        let at = source.find(&format!("{test}()")).unwrap_or_else(|| {
            panic!("{test_file} has no `{test}`, which runs the example of {page}")
        });
        let body = &source[at..];
        let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
        assert!(
            body.contains(&format!("\"{page}\"")),
            "{test_file}: `{test}` does not read {page}"
        );
    }
}

#[test]
fn blocks_from_golden_files_are_those_files() {
    let mut checked = 0;
    for (page, text) in pages() {
        const FROM: &str = "(from `tests/golden/";
        for (at, _) in text.match_indices(FROM) {
            let file = &text[at + FROM.len() - "tests/golden/".len()..];
            let file = &file[..file.find('`').unwrap()];
            let line = text[..at].lines().count();
            let block = blocks(&page, &text)
                .into_iter()
                .find(|b| b.line > line)
                .unwrap_or_else(|| panic!("{page}: no block after the mention of {file}"));
            let golden = std::fs::read_to_string(Path::new(ROOT).join(file)).expect(file);
            assert_eq!(block.body, golden, "{page}:{}: not {file}", block.line);
            checked += 1;
        }
    }
    assert!(checked >= 1, "no block from a golden file");
}

/// A heading's anchor as GitHub makes it: lower case, spaces to `-`, other
/// punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (a repeated heading gets `-1`, `-2`).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in prose(text).lines() {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#'));
        let n = seen.entry(base.clone()).or_insert(0);
        out.push(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// The targets of a page's links (`[text](target)`) outside code.
fn links(text: &str) -> Vec<String> {
    let prose = prose(text);
    let mut out = Vec::new();
    for line in prose.lines() {
        // Inline code is not a link.
        let plain: String = line
            .split('`')
            .enumerate()
            .map(|(i, part)| if i % 2 == 0 { part } else { "" })
            .collect();
        for (at, _) in plain.match_indices("](") {
            let rest = &plain[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn every_link_resolves() {
    let pages = pages();
    let mut checked = 0;
    for (page, text) in &pages {
        for target in links(text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                page.clone()
            } else {
                let dir = Path::new(page).parent().unwrap();
                let joined = Path::new(ROOT).join(dir).join(path);
                let resolved = joined
                    .canonicalize()
                    .unwrap_or_else(|_| panic!("{page}: the link ({target}) names no file"));
                let name = resolved
                    .strip_prefix(Path::new(ROOT).canonicalize().unwrap())
                    .unwrap_or_else(|_| panic!("{page}: ({target}) is outside the repository"));
                name.to_string_lossy().replace('\\', "/")
            };
            if let Some(anchor) = anchor {
                let text = pages
                    .get(&linked)
                    .cloned()
                    .or_else(|| std::fs::read_to_string(Path::new(ROOT).join(&linked)).ok())
                    .unwrap_or_else(|| panic!("{page}: ({target}): {linked} is not a page"));
                assert!(
                    anchors(&text).iter().any(|a| a == anchor),
                    "{page}: ({target}): {linked} has no heading #{anchor}; it has {:?}",
                    anchors(&text)
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} links found");
}

fn help(args: &[&str]) -> String {
    let out = Command::cargo_bin("kubectl-mirrorpolicy")
        .expect("binary built")
        .args(args)
        .arg("--help")
        .output()
        .expect("runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The commands `--help` lists (not `help`).
fn commands() -> Vec<String> {
    let text = help(&[]);
    let list = &text[text.find("Commands:\n").expect("a command list") + "Commands:\n".len()..];
    list.lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|c| c != "help")
        .collect()
}

/// The long flags an option line of `--help` defines (`  -f, --filename <PATH>`).
fn flag_of(line: &str) -> Option<String> {
    let line = line.trim_start();
    let line = match line.strip_prefix('-') {
        Some(rest) if !rest.starts_with('-') => line.split_once(", ")?.1,
        _ => line,
    };
    let name = line.strip_prefix("--")?;
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(name.len());
    Some(format!("--{}", &name[..end]))
}

fn names_flag(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(at, _)| {
        !text[at + flag.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '-')
    })
}

#[test]
fn every_command_and_flag_has_its_page() {
    let pages = pages();
    let readme = &pages["README.md"];
    let every_page: String = pages.values().map(String::as_str).collect();
    let commands = commands();
    assert!(commands.len() >= 10, "{commands:?}");
    for command in commands {
        let page = format!("docs/{command}.md");
        let text = pages
            .get(&page)
            .unwrap_or_else(|| panic!("`{command}` has no page {page}"));
        assert!(
            readme.contains(&format!("]({page})")),
            "README.md does not link {page}"
        );
        let help = help(&[&command]);
        let (own, common) = help.split_once("\nCluster:\n").unwrap_or((&help, ""));
        for flag in own.lines().filter_map(flag_of) {
            if ["--help", "--version", "--color", "--verbose"].contains(&flag.as_str()) {
                continue;
            }
            assert!(
                names_flag(text, &flag),
                "{page} does not name {command}'s {flag}"
            );
        }
        let common = common.split("\nExamples:\n").next().unwrap();
        for flag in common
            .lines()
            .filter_map(flag_of)
            .chain(["--color".to_string(), "--verbose".to_string()])
        {
            assert!(
                names_flag(&every_page, &flag),
                "no page names {command}'s {flag}"
            );
        }
    }
}
