//! The shape of the sources: no function outside tests is longer than
//! [`MAX_LINES`] lines (a longer one is split into steps a reader can name),
//! module imports run one way (no import circle), and a command module does
//! not import another command module.
//!
//! The crates depend one way (the binary on the live crate on the core),
//! and the core's dependency tree holds no async runtime, Kubernetes
//! client, HTTP or TLS stack, nor the command line.
//!
//! Every `src/**/*.rs` file of the three crates is parsed with `syn`; a function's length runs
//! from the line of its `fn` to the line of its closing brace (its doc
//! comment and attributes not counted). Test code is skipped: `#[test]`
//! functions and anything under `#[cfg(test)]`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The longest a function outside tests may be, in lines.
const MAX_LINES: usize = 80;

/// Functions still longer than [`MAX_LINES`], to be split: the test fails
/// when one grows past it that is not listed, and when a listed one has
/// been split (so the list only shrinks).
const NOT_YET_SPLIT: &[(&str, &str)] = &[];

/// One function: where it is, and how long.
#[derive(Debug)]
struct Function {
    file: PathBuf,
    name: String,
    line: usize,
    lines: usize,
}

/// Collects the functions of one file, skipping test code.
struct Collector<'a> {
    file: &'a Path,
    found: Vec<Function>,
}

fn is_test_code(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        if !a.path().is_ident("cfg") {
            return false;
        }
        // `#[cfg(test)]`, also inside `all(...)`/`any(...)`; `not(test)` is not test code.
        let mut test = false;
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("test") {
                test = true;
            } else if meta.path.is_ident("all") || meta.path.is_ident("any") {
                meta.parse_nested_meta(|inner| {
                    test |= inner.path.is_ident("test");
                    Ok(())
                })?;
            } else if meta.input.peek(syn::token::Paren) {
                let _skip: proc_macro2::Group = meta.input.parse()?;
            }
            Ok(())
        });
        test
    })
}

impl Collector<'_> {
    fn record(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        self.found.push(Function {
            file: self.file.to_path_buf(),
            name: name.to_string(),
            line: start,
            lines: end + 1 - start,
        });
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test_code(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_test_code(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if is_test_code(&item.attrs) {
            return;
        }
        self.record(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_item_fn(self, item);
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        if is_test_code(&item.attrs) {
            return;
        }
        self.record(&item.sig.ident, &item.sig, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if is_test_code(&item.attrs) {
            return;
        }
        if let Some(block) = &item.default {
            self.record(&item.sig.ident, &item.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, item);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every function outside tests in the Rust files under `dir`.
fn functions(dir: &Path) -> Vec<Function> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut all = Vec::new();
    for file in &files {
        // A `tests.rs` beside its module is the module's test table.
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let syntax =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        let mut collector = Collector {
            file: file
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(file),
            found: Vec::new(),
        };
        collector.visit_file(&syntax);
        all.extend(collector.found);
    }
    all
}

/// The source roots of the workspace's crates: the binary's, the live
/// crate's and the core's.
fn source_roots() -> Vec<PathBuf> {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["src", "crates/live/src", "crates/core/src"]
        .iter()
        .map(|dir| top.join(dir))
        .collect()
}

#[test]
fn no_function_outside_tests_is_longer_than_80_lines() {
    let all: Vec<Function> = source_roots()
        .iter()
        .flat_map(|src| functions(src))
        .collect();
    assert!(all.len() > 100, "found only {} functions", all.len());
    let listed = |f: &Function| {
        NOT_YET_SPLIT
            .iter()
            .any(|(file, name)| f.file == Path::new(file) && f.name == *name)
    };
    let split: Vec<&(&str, &str)> = NOT_YET_SPLIT
        .iter()
        .filter(|(file, name)| {
            !all.iter()
                .any(|f| f.file == Path::new(file) && f.name == *name && f.lines > MAX_LINES)
        })
        .collect();
    assert!(
        split.is_empty(),
        "no longer longer than {MAX_LINES} lines: remove from NOT_YET_SPLIT: {split:?}"
    );
    let mut long: Vec<&Function> = all
        .iter()
        .filter(|f| f.lines > MAX_LINES && !listed(f))
        .collect();
    long.sort_by_key(|f| std::cmp::Reverse(f.lines));
    let report: Vec<String> = long
        .iter()
        .map(|f| {
            format!(
                "{}:{}: fn {} is {} lines",
                f.file.display(),
                f.line,
                f.name,
                f.lines
            )
        })
        .collect();
    assert!(
        long.is_empty(),
        "{} function(s) longer than {MAX_LINES} lines; split them into named steps:\n{}",
        long.len(),
        report.join("\n")
    );
}

#[test]
fn the_measure_counts_from_fn_to_the_closing_brace_and_skips_tests() {
    let dir = tempfile::tempdir().unwrap();
    let body = |n: usize| "    let _ = 1;\n".repeat(n);
    let text = format!(
        "/// Doc lines are not counted.\n#[inline]\nfn long() {{\n{}}}\n\
         fn short() {{}}\n\
         struct S;\nimpl S {{\n    fn method(&self) {{\n{}    }}\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn helper() {{\n{}    }}\n}}\n\
         #[test]\nfn a_test() {{\n{}}}\n",
        body(79),
        body(3),
        body(200),
        body(200)
    );
    std::fs::write(dir.path().join("x.rs"), text).unwrap();
    std::fs::write(
        dir.path().join("tests.rs"),
        format!("fn table() {{\n{}}}\n", body(200)),
    )
    .unwrap();
    let found: Vec<(String, usize)> = functions(dir.path())
        .into_iter()
        .map(|f| (f.name, f.lines))
        .collect();
    assert_eq!(
        found,
        [
            ("long".to_string(), 81),
            ("short".to_string(), 1),
            ("method".to_string(), 5)
        ]
    );
}

// ---------------------------------------------------------------------------
// Imports: no module import circle, and no command module importing another.
//
// Every crate (the binary, `src/main.rs`, its library, `src/lib.rs`, the live
// and the core crates under `crates/`) shares one module namespace here: their
// top-level module names do not clash, and each reaches the ones below it as
// `mirrorpolicy::`, `mirrorpolicy_live::` or `mirrorpolicy_core::` (or as
// `crate::` through the re-exports). A module is one file
// (`src/a/b.rs` or `src/a/b/mod.rs` is `a::b`); an inline module belongs to its
// file. An edge runs from a module to the module that a `use` or a path in its
// code (outside tests) names: `crate::`, `mirrorpolicy::`, `super::`, `self::`
// or a child module, cut to the longest known module. Edges between a module
// and its own ancestor (a parent's facade, a child's `super::`) are not counted.

/// The module path of a file under the source root, or `None` for a crate root.
fn module_of(root: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(root).ok()?.with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        return None;
    }
    Some(parts)
}

/// The paths named in one file's code outside tests, as written, each with
/// the inline modules it sits in.
#[derive(Default)]
struct Imports {
    inline: Vec<String>,
    found: Vec<(Vec<String>, Vec<String>)>,
}

impl Imports {
    fn push(&mut self, path: Vec<String>) {
        if !path.is_empty() {
            self.found.push((self.inline.clone(), path));
        }
    }

    fn tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.push(full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.push(full);
            }
            syn::UseTree::Glob(_) => self.push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.tree(prefix, t);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Imports {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if is_test_code(&item.attrs) {
            return;
        }
        self.inline.push(item.ident.to_string());
        syn::visit::visit_item_mod(self, item);
        self.inline.pop();
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        if !is_test_code(&item.attrs) {
            syn::visit::visit_item_impl(self, item);
        }
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        if !is_test_code(&item.attrs) {
            syn::visit::visit_item_fn(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if !is_test_code(&item.attrs) {
            self.tree(&mut Vec::new(), &item.tree);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
}

/// Where `path`, written in module `at`, points: the longest known module
/// it names, or `None` for another crate or a local name.
fn resolve(modules: &BTreeSet<Vec<String>>, at: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = at.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate" | "mirrorpolicy" | "mirrorpolicy_live" | "mirrorpolicy_core") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            let mut child = base.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    let mut full = base;
    full.extend(rest.iter().cloned());
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| !m.is_empty() && modules.contains(m))
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The import edges between the modules of the Rust files under `dirs`
/// (source roots sharing one module namespace).
fn import_graph(dirs: &[PathBuf]) -> Graph {
    let mut files = Vec::new();
    for dir in dirs {
        let mut found = Vec::new();
        rust_files(dir, &mut found);
        found.retain(|f| f.file_name().is_none_or(|n| n != "tests.rs"));
        files.extend(found.into_iter().map(|f| (dir.as_path(), f)));
    }
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .filter_map(|(dir, f)| module_of(dir, f))
        .collect();
    let mut graph = Graph::new();
    for (dir, file) in &files {
        let Some(module) = module_of(dir, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        let syntax =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        let mut imports = Imports::default();
        imports.visit_file(&syntax);
        let name = module.join("::");
        let edges = graph.entry(name.clone()).or_default();
        for (inline, path) in imports.found {
            let mut at = module.clone();
            at.extend(inline);
            let Some(target) = resolve(&modules, &at, &path) else {
                continue;
            };
            let related = target.starts_with(&module) || module.starts_with(&target);
            if !related {
                edges.insert(target.join("::"));
            }
        }
    }
    graph
}

/// The import circles: every strongly connected set of more than one module.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(m) = todo.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for (m, r) in &reaches {
        if done.contains(*m) || !r.contains(*m) {
            continue;
        }
        let set: Vec<String> = r
            .iter()
            .filter(|o| reaches.get(o).is_some_and(|back| back.contains(*m)))
            .cloned()
            .collect();
        done.extend(set.iter().cloned());
        out.push(set);
    }
    out
}

/// Command modules that still import another command module, to be moved
/// below the commands: the test fails when one not listed appears, and when
/// a listed one is gone (so the list only shrinks).
const NOT_YET_MOVED: &[&str] = &[];

/// Command modules (`commands::x`) that import another command module.
fn commands_calling_commands(graph: &Graph) -> Vec<String> {
    let command = |m: &str| {
        m.strip_prefix("commands::")
            .map(|r| r.split("::").next().unwrap().to_string())
    };
    let mut out = Vec::new();
    for (from, targets) in graph {
        let Some(a) = command(from) else { continue };
        for to in targets {
            if command(to).is_some_and(|b| b != a) {
                out.push(format!("{from} -> {to}"));
            }
        }
    }
    out
}

/// The edges from a module below the command layer (`steps`, `many`,
/// `output`, the live and core crates) to the command line's types
/// (`cli`): the flags are resolved into typed settings by the commands.
fn below_commands_naming_the_cli(graph: &Graph) -> Vec<String> {
    /// The command layer: what parses, resolves and dispatches the flags.
    const COMMAND_LAYER: &[&str] = &["cli", "commands", "exit", "main", "many", "settings"];
    graph
        .iter()
        .filter(|(from, _)| {
            let top = from.split("::").next().unwrap_or_default();
            !COMMAND_LAYER.contains(&top)
        })
        .flat_map(|(from, targets)| {
            targets
                .iter()
                .filter(|to| to.as_str() == "cli")
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect()
}

#[test]
fn no_clap_type_below_the_command_layer() {
    let graph = import_graph(&source_roots());
    let found = below_commands_naming_the_cli(&graph);
    assert!(
        found.is_empty(),
        "modules below the commands name the command line; resolve the flags into settings at the top of the command:\n{}",
        found.join("\n")
    );
    let mut example = Graph::new();
    example.insert("steps::probe".into(), ["cli".to_string()].into());
    example.insert("commands::explain".into(), ["cli".to_string()].into());
    assert_eq!(
        below_commands_naming_the_cli(&example),
        ["steps::probe -> cli"]
    );
}

#[test]
fn no_module_import_circle_and_no_command_importing_a_command() {
    let graph = import_graph(&source_roots());
    assert!(graph.len() > 50, "found only {} modules", graph.len());
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(edges > 100, "found only {edges} import edges");
    let found = circles(&graph);
    let all_calls = commands_calling_commands(&graph);
    let gone: Vec<&&str> = NOT_YET_MOVED
        .iter()
        .filter(|c| !all_calls.iter().any(|a| a == *c))
        .collect();
    assert!(
        gone.is_empty(),
        "no longer imported: remove from NOT_YET_MOVED: {gone:?}"
    );
    let calls: Vec<String> = all_calls
        .into_iter()
        .filter(|c| !NOT_YET_MOVED.contains(&c.as_str()))
        .collect();
    let report: Vec<String> = found.iter().map(|c| c.join(" <-> ")).collect();
    assert!(
        found.is_empty() && calls.is_empty(),
        "{} import circle(s); make the imports run one way:\n{}\n\
         {} command module(s) importing another command module; move the shared code below them:\n{}",
        found.len(),
        report.join("\n"),
        calls.len(),
        calls.join("\n")
    );
}

#[test]
fn the_import_check_finds_circles_and_commands_importing_commands() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n");
    write("main.rs", "mod commands;\nuse mirrorpolicy::a::A;\n");
    // a -> b by a `use`, b -> a by a path in code: a circle.
    write("a.rs", "use crate::b::{self, B};\npub struct A;\n");
    write(
        "b.rs",
        "pub struct B;\nfn f() { let _ = super::a::A; }\n\
         #[cfg(test)]\nmod tests { use crate::d::D; }\n",
    );
    // A parent and its child naming each other is no circle; d is below c.
    write(
        "c/mod.rs",
        "pub mod inner;\npub use inner::C;\nuse crate::d::D;\n",
    );
    write(
        "c/inner.rs",
        "use super::super::d::D;\npub struct C;\nfn g() -> super::C { C }\n",
    );
    // d names c only in its tests: no edge, so no circle with c.
    write(
        "d.rs",
        "pub struct D;\n#[test]\nfn t() { let _ = crate::c::C; }\n",
    );
    write("d/tests.rs", "use crate::c::C;\n");
    write("commands/mod.rs", "pub mod x;\npub mod y;\n");
    write(
        "commands/x.rs",
        "use crate::commands::y;\nuse mirrorpolicy::c::inner::C;\n",
    );
    write("commands/y.rs", "use std::io;\nuse serde::Serialize;\n");
    let graph = import_graph(&[dir.path().to_path_buf()]);
    let edges = |m: &str| graph[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a"), ["b"]);
    assert_eq!(edges("b"), ["a"]);
    assert_eq!(edges("c"), ["d"]);
    assert_eq!(edges("c::inner"), ["d"]);
    assert!(edges("d").is_empty());
    assert_eq!(edges("commands::x"), ["c::inner", "commands::y"]);
    assert!(edges("commands::y").is_empty());
    assert_eq!(circles(&graph), [vec!["a".to_string(), "b".to_string()]]);
    assert_eq!(
        commands_calling_commands(&graph),
        ["commands::x -> commands::y"]
    );
}

// ---------------------------------------------------------------------------
// Crates: the dependency direction, from Cargo.lock.

/// What the core must never depend on, however indirectly: the async
/// runtime, the Kubernetes client, HTTP and TLS, the command line, and the
/// two crates above it.
const NOT_BELOW_CORE: &[&str] = &[
    "tokio",
    "kube",
    "kube-client",
    "hyper",
    "hyper-util",
    "reqwest",
    "rustls",
    "clap",
    "mirrorpolicy-live",
    "kubectl-mirrorpolicy",
];

/// Each package of a Cargo.lock with the names of the packages it depends
/// on (every feature and target, dev-dependencies included: a superset).
fn lock_graph(lock: &str) -> BTreeMap<String, Vec<String>> {
    let doc: toml::Table = toml::from_str(lock).unwrap();
    let mut graph = BTreeMap::new();
    for package in doc["package"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap().to_string();
        let deps: Vec<String> = package
            .get("dependencies")
            .and_then(|d| d.as_array())
            .map(|d| {
                d.iter()
                    .filter_map(|v| v.as_str())
                    .map(|v| v.split(' ').next().unwrap_or(v).to_string())
                    .collect()
            })
            .unwrap_or_default();
        graph.entry(name).or_insert_with(Vec::new).extend(deps);
    }
    graph
}

/// Every package reachable from `from`.
fn reachable(graph: &BTreeMap<String, Vec<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(name) = todo.pop() {
        for dep in graph.get(&name).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    seen
}

#[test]
fn the_core_depends_on_nothing_of_the_network_or_the_command_line() {
    let lock =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock")).unwrap();
    let graph = lock_graph(&lock);
    let core = reachable(&graph, "mirrorpolicy-core");
    assert!(core.contains("serde"), "{core:?}");
    let found: Vec<&&str> = NOT_BELOW_CORE
        .iter()
        .filter(|c| core.contains(**c))
        .collect();
    assert!(found.is_empty(), "mirrorpolicy-core depends on {found:?}");
    let live = reachable(&graph, "mirrorpolicy-live");
    assert!(live.contains("mirrorpolicy-core") && live.contains("kube"));
    assert!(!live.contains("kubectl-mirrorpolicy") && !live.contains("clap"));
    assert!(reachable(&graph, "kubectl-mirrorpolicy").contains("mirrorpolicy-live"));
}

#[test]
fn the_crate_check_finds_a_dependency_however_indirect() {
    let lock = "version = 4\n\
        [[package]]\nname = \"mirrorpolicy-core\"\ndependencies = [\"serde\", \"a\"]\n\
        [[package]]\nname = \"a\"\ndependencies = [\"b 1.0.0\"]\n\
        [[package]]\nname = \"b\"\ndependencies = [\"tokio\"]\n\
        [[package]]\nname = \"serde\"\n[[package]]\nname = \"tokio\"\n";
    let core = reachable(&lock_graph(lock), "mirrorpolicy-core");
    assert_eq!(
        core.into_iter().collect::<Vec<_>>(),
        ["a", "b", "serde", "tokio"]
    );
}

// ---------------------------------------------------------------------------
// The binary's package has no unit-test target (`test = false` on its library
// and binary, see Cargo.toml): a test written beside its code there would
// never run. Its modules' tests live in `tests/it/units/`.

/// The files under `dir` holding a `#[test]` or `#[cfg(test)]`.
fn files_with_tests(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.contains("#[test]") || text.contains("#[cfg(test)]")
        })
        .map(|f| f.display().to_string())
        .collect()
}

#[test]
fn no_test_in_the_binary_package_where_it_would_never_run() {
    let found = files_with_tests(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        found.is_empty(),
        "tests in src/ never run (the binary's package has no unit-test target): move them to tests/it/units/:\n{}",
        found.join("\n")
    );
}
