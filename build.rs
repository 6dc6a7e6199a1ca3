//! Records the git commit the binary is built from, for `--version`:
//! `git rev-parse --short HEAD` in the source tree, or `unknown` when there
//! is no git or no repository (a source archive, a crate download).

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Built again when HEAD moves: HEAD itself, the branch it names and the
/// packed refs (only files that exist, or cargo would build again every time).
fn watch_head() {
    println!("cargo:rerun-if-changed=build.rs");
    let mut paths = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    paths.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        paths.push(git(&["rev-parse", "--git-path", &branch]));
    }
    for path in paths.into_iter().flatten() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

fn main() {
    watch_head();
    let commit = git(&["rev-parse", "--short", "HEAD"])
        .filter(|c| c.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=MIRRORPOLICY_GIT_COMMIT={commit}");
}
