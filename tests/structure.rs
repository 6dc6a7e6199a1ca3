//! The shape of the sources: no function outside tests is longer than
//! [`MAX_LINES`] lines. A longer one is split into steps a reader can name.
//!
//! Every `src/**/*.rs` file is parsed with `syn`; a function's length runs
//! from the line of its `fn` to the line of its closing brace (its doc
//! comment and attributes not counted). Test code is skipped: `#[test]`
//! functions and anything under `#[cfg(test)]`.

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

#[test]
fn no_function_outside_tests_is_longer_than_80_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let all = functions(&src);
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
