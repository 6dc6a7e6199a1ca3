//! Test support shared by the integration tests.

pub mod apiserver;
pub mod certs;
pub mod kubeconfig;
pub mod mco;
pub mod node_files;
pub mod openpgp;
pub mod proxy;
pub mod registry;

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

/// What [`peak_rss`] saw of one run.
#[allow(dead_code)]
pub struct Measured {
    /// The process's peak resident memory, in KiB, from the kernel.
    pub peak_kib: i64,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` to its end, reading its peak resident memory (`VmHWM`) from
/// /proc as it runs. Not `getrusage`: Linux carries the high-water mark
/// of the memory a child had before `exec` (the test process's, which
/// spawned it) into the child's `ru_maxrss`.
#[allow(dead_code)]
pub fn peak_rss(mut cmd: std::process::Command) -> Measured {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).expect("read");
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let status = loop {
        // VmHWM is the process's own high-water mark; it is gone once the
        // process has exited, so it is read until then.
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Measured {
        peak_kib,
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
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
