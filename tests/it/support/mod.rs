//! Test support shared by the integration tests.

pub mod apiserver;
pub mod certs;
pub mod kubeconfig;
pub mod layers;
pub mod mco;
pub mod node_files;
pub mod openpgp;
pub mod proxy;
pub mod registry;
pub mod rss;

pub use rss::peak_rss;

/// The built binary, isolated from the machine's kubeconfig and terminal:
/// no colour, a fixed width, no KUBECONFIG, a HOME without `.kube`.
#[allow(dead_code)]
pub fn bin() -> assert_cmd::Command {
    assert_cmd::Command::from_std(std_bin())
}

/// [`bin`] as a `std::process::Command`.
pub fn std_bin() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"));
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", "/nonexistent-home-for-tests");
    cmd
}

/// The JSON a run printed, once its exit code is `code` (its stderr in the
/// failure message otherwise).
#[allow(dead_code)]
pub fn json_with_code(out: &std::process::Output, code: i32) -> serde_json::Value {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A copy of `examples/disconnected-cluster` in `dir`, its ClusterVersion
/// (4.21.2) updating from `from`: the newest history entry `Partial`, the
/// one before `Completed`. The copy's folder and its ClusterVersion file.
#[allow(dead_code)]
pub fn example_updating_from(
    dir: &std::path::Path,
    from: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let copy = dir.join("cluster");
    let status = std::process::Command::new("cp")
        .args(["-a", "examples/disconnected-cluster"])
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(status.success());
    let cv = copy.join("cluster-scoped-resources/config.openshift.io/clusterversions/version.yaml");
    let mut text = std::fs::read_to_string(&cv).expect("ClusterVersion");
    text.push_str(&format!(
        "  history:\n  - state: Partial\n    version: 4.21.2\n  - state: Completed\n    version: {from}\n"
    ));
    std::fs::write(&cv, text).expect("ClusterVersion");
    (copy, cv)
}

/// The example a page of the documentation (`README.md`, `docs/*.md`)
/// shows in a ```` ```console ```` block whose first line is `$ FIRST`: the
/// command (its `\` continuation lines joined) and the rest of the block,
/// as the page shows it. The doc test (tests/it/readme.rs) lists the examples
/// that the named tests run this way.
#[allow(dead_code)]
pub fn docs_example(page: &str, first: &str) -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{page}: {e}"));
    let start = format!("```console\n$ {first}");
    let at = text
        .find(&start)
        .unwrap_or_else(|| panic!("{page} shows no example `$ {first}`"))
        + "```console\n$ ".len();
    let block = &text[at..at + text[at..].find("\n```\n").expect("a closed block") + 1];
    let mut command = String::new();
    let mut rest = block;
    while let Some((line, tail)) = rest.split_once('\n') {
        rest = tail;
        match line.strip_suffix('\\') {
            Some(part) => command.push_str(part.trim()),
            None => {
                command.push_str(line.trim());
                break;
            }
        }
        command.push(' ');
    }
    (command, rest.to_string())
}
