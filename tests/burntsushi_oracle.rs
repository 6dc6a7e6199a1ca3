//! The node's registries.conf parser against the real one: a Go program
//! (tests/oracle/burntsushi) decoding with github.com/BurntSushi/toml,
//! built at run time from the Go path of the machine (Debian's
//! golang-github-burntsushi-toml-dev, BurntSushi/toml 1.2.0). BurntSushi
//! v1.2.0 stands for v1.1.0 to v1.3.2 on what these tests generate (their
//! parse.go differs only in error positions, `Meta.Keys` order, the UTF-8
//! BOM and TOML 1.1 behind BURNTSUSHI_TOML_110): CRI-O 1.24 to 1.30, here
//! CRI-O 1.27 (OpenShift 4.14). Without `go` or that library the tests say
//! they are skipped and pass.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::Value;

/// CRI-O 1.27 vendors BurntSushi/toml v1.2.1.
const CRIO: u32 = 27;

/// The oracle binary, built once per test run; `Err` says why it cannot be.
fn oracle() -> &'static Result<PathBuf, String> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let gopath = PathBuf::from("/usr/share/gocode");
        if !gopath.join("src/github.com/BurntSushi/toml").is_dir() {
            return Err(
                "no BurntSushi/toml in /usr/share/gocode (golang-github-burntsushi-toml-dev)"
                    .into(),
            );
        }
        let dir = std::env::temp_dir().join(format!("burntsushi-oracle-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let bin = dir.join("oracle");
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/burntsushi");
        let out = Command::new("go")
            .args(["build", "-o"])
            .arg(&bin)
            .arg(".")
            .current_dir(&src)
            .env("GO111MODULE", "off")
            .env("GOPATH", &gopath)
            .env("GOCACHE", dir.join("cache"))
            .env("GOFLAGS", "-mod=mod")
            .output()
            .map_err(|e| format!("go cannot run: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "go build failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(bin)
    })
}

/// Each text's verdict: `Ok(decoded)` or `Err(reason)`; `None` when the
/// oracle cannot run here.
fn verdicts(texts: &[String]) -> Option<Vec<Result<Value, String>>> {
    use std::io::Write;
    let bin = match oracle() {
        Ok(bin) => bin,
        Err(why) => {
            eprintln!("skipped: {why}");
            return None;
        }
    };
    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the oracle runs");
    let input = serde_json::to_vec(texts).expect("texts encode");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("oracle stdin");
    let out = child.wait_with_output().expect("oracle output");
    assert!(out.status.success(), "the oracle failed");
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).expect("oracle JSON");
    Some(
        all.into_iter()
            .map(|v| match v["ok"].as_bool() {
                Some(true) => Ok(v["value"].clone()),
                _ => Err(v["error"].as_str().unwrap_or_default().to_string()),
            })
            .collect(),
    )
}

/// The tool's verdict, in the oracle's terms.
fn tool(text: &str) -> Result<Value, String> {
    mirrorpolicy::registries::node_reads_toml(text, CRIO)
}

/// Compares the tool with the oracle on `texts`; the disagreements.
fn disagreements(texts: &[String]) -> Option<(Vec<String>, usize)> {
    let oracle = verdicts(texts)?;
    let mut wrong = Vec::new();
    let mut accepted = 0;
    for (text, want) in texts.iter().zip(oracle) {
        let got = tool(text);
        accepted += usize::from(want.is_ok());
        match (&got, &want) {
            (Ok(g), Ok(w)) if g != w => wrong.push(format!("{text:?}: tool {g}, BurntSushi {w}")),
            (Ok(_), Err(e)) => wrong.push(format!("{text:?}: tool reads it, BurntSushi: {e}")),
            (Err(e), Ok(_)) => wrong.push(format!("{text:?}: BurntSushi reads it, tool: {e}")),
            _ => {}
        }
    }
    Some((wrong, accepted))
}

/// toml-test cases BurntSushi/toml v1.1.0 to v1.5.0 skip in their own test
/// suite (toml_test.go): invalid in TOML 1.0, read by the node, each with
/// the document BurntSushi decodes; and spec/table-9-1, which it refuses.
#[test]
fn toml_test_cases_burntsushi_skips() {
    use serde_json::json;
    let cases: [(&str, &str, Result<Value, ()>); 10] = [
        (
            "invalid/table/append-with-dotted-keys-1",
            "[[a.b]]\n\n[a]\nb.y = 2\n",
            Ok(json!({"a": {"b": [{"y": 2}]}})),
        ),
        (
            "invalid/table/append-with-dotted-keys-2",
            "[a.b.c]\n  z = 9\n\n[a]\n  b.c.t = \"x\"\n",
            Ok(json!({"a": {"b": {"c": {"t": "x", "z": 9}}}})),
        ),
        (
            "invalid/spec/table-9-1",
            "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple]\n",
            Err(()),
        ),
        (
            "invalid/table/redefine-2",
            "[t1]\nt2.t3.v = 0\n[t1.t2]\n",
            Ok(json!({"t1": {"t2": {"t3": {"v": 0}}}})),
        ),
        (
            "invalid/table/redefine-3",
            "[t1]\nt2.t3.v = 0\n[t1.t2.t3]\n",
            Ok(json!({"t1": {"t2": {"t3": {"v": 0}}}})),
        ),
        (
            "invalid/inline-table/overwrite-08",
            "a.b=0\na={}\n",
            Err(()),
        ),
        (
            "invalid/array/extend-defined-aot",
            "[[tab.arr]]\n[tab]\narr.val1=1\n",
            Ok(json!({"tab": {"arr": [{"val1": 1}]}})),
        ),
        (
            "an array value set twice",
            "a=[1]\na=[2]\n",
            Ok(json!({"a": [2]})),
        ),
        ("a table defined twice", "[a]\nb=1\n[a]\n", Err(())),
        (
            "dotted keys twice, then the header",
            "a.b=1\na.c=2\n[a]\n",
            Err(()),
        ),
    ];
    for (name, text, want) in &cases {
        let got = tool(text).map_err(|_| ());
        assert_eq!(&got, want, "{name}: {text:?}");
    }
    let texts: Vec<String> = cases.iter().map(|c| c.1.to_string()).collect();
    if let Some((wrong, _)) = disagreements(&texts) {
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

/// A registries.conf-shaped statement, biased to what BurntSushi and
/// TOML 1.0 disagree on: dotted keys, headers reopening tables, inline
/// tables, arrays of tables, keys set twice, TOML 1.1-only syntax.
fn statement() -> impl Strategy<Value = String> {
    let name = proptest::sample::select(vec!["registry", "mirror", "a", "\"a\"", "b"]);
    let value = proptest::sample::select(vec![
        "\"x\"",
        "1",
        "true",
        "[]",
        "[1, 2]",
        "{}",
        "{ location = \"q\" }",
        "{ b.c = 1 }",
        "[{ location = \"m\" }, { b.c = 2 }]",
        "{ b = { c = 1 } }",
        "[{ }]",
        "{ b = 1, }",
        "\"\\e\"",
        "{\n b = 1 }",
        "[[1], [{ c = 1 }]]",
    ]);
    (0u8..7, name.clone(), name.clone(), name, value).prop_map(|(form, n1, n2, n3, v)| match form {
        0 => format!("[{n1}]"),
        1 => format!("[{n1}.{n2}]"),
        2 => format!("[[{n1}]]"),
        3 => format!("[[{n1}.{n2}]]"),
        4 => format!("{n1} = {v}"),
        5 => format!("{n1}.{n2} = {v}"),
        _ => format!("{n1}.{n2}.{n3} = {v}"),
    })
}

fn document() -> impl Strategy<Value = String> {
    proptest::collection::vec(statement(), 1..7).prop_map(|lines| lines.join("\n") + "\n")
}

/// 5,000 generated documents: the tool's node parser for CRI-O 1.27
/// accepts, refuses and decodes each exactly as BurntSushi/toml does.
#[test]
fn issue_25_node_toml_as_burntsushi_reads_it() {
    let mut runner = TestRunner::deterministic();
    let strategy = document();
    let texts: Vec<String> = (0..5000)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("a document")
                .current()
        })
        .collect();
    let Some((wrong, accepted)) = disagreements(&texts) else {
        return;
    };
    let strict = texts
        .iter()
        .filter(|t| toml::from_str::<toml::Table>(t).is_err())
        .count();
    eprintln!(
        "{} documents: {accepted} read by BurntSushi, {strict} refused by the toml crate",
        texts.len()
    );
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        accepted >= 1000 && strict >= 1000,
        "too few cases of each kind"
    );
}
