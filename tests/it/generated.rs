//! Generated files committed to the repository are up to date: the shell
//! completion scripts in `completions/`, the man page in `man/`, and the
//! rendered MachineConfigs of the example cluster and the must-gather
//! fixture (the MCO's merge of each pool's
//! MachineConfigs, `tests/it/support/mco.rs`). Run with `UPDATE_GENERATED=1`
//! to rewrite them after changing the CLI or the example's MachineConfigs.
//!
//! Also: the scripts load in bash, and the real `kubectl` completes
//! `kubectl mirrorpolicy ...` through `completions/kubectl_complete-mirrorpolicy`,
//! with pool names read from a (fake) cluster.

#[allow(dead_code)]
#[path = "../../src/cli.rs"]
mod cli;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::CommandFactory;

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-mirrorpolicy");

fn check(path: &str, generated: &[u8]) {
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(path, generated).unwrap();
        return;
    }
    let committed = std::fs::read(path).unwrap_or_default();
    assert!(
        committed == generated,
        "{path} is out of date: run `UPDATE_GENERATED=1 cargo test --test it generated::` and commit it"
    );
}

#[test]
fn completion_scripts_are_up_to_date() {
    for (shell, file) in [
        ("bash", "completions/kubectl-mirrorpolicy.bash"),
        ("zsh", "completions/_kubectl-mirrorpolicy"),
        ("fish", "completions/kubectl-mirrorpolicy.fish"),
        ("powershell", "completions/_kubectl-mirrorpolicy.ps1"),
        ("elvish", "completions/kubectl-mirrorpolicy.elv"),
    ] {
        let out = Command::new(BIN)
            .args(["completion", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        assert!(!out.stdout.is_empty(), "{shell}");
        check(file, &out.stdout);
    }
}

#[test]
fn man_pages_are_up_to_date() {
    // The pages give the version without the commit (`--version` adds it).
    let mut cmd = cli::Cli::command()
        .name("kubectl-mirrorpolicy")
        .long_version(None::<&str>);
    // Built, so that the global flags (--kubeconfig, -n, ...) appear on
    // every subcommand's page.
    cmd.build();
    let mut pages = vec![("kubectl-mirrorpolicy".to_string(), cmd.clone())];
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name: &'static str =
            Box::leak(format!("kubectl-mirrorpolicy-{}", sub.get_name()).into_boxed_str());
        pages.push((name.to_string(), sub.clone().name(name)));
    }
    let mut expected = Vec::new();
    for (name, page) in pages {
        let mut roff = Vec::new();
        clap_mangen::Man::new(page).render(&mut roff).unwrap();
        let text = String::from_utf8(roff.clone()).unwrap();
        assert!(text.contains(".TH "), "{name}: not roff");
        if name != "kubectl-mirrorpolicy" {
            assert!(
                text.contains("Examples:"),
                "{name}: the man page has no examples"
            );
        }
        let path = format!("man/{name}.1");
        check(&path, &roff);
        expected.push(format!("{name}.1"));
    }
    // No stale page of a removed command.
    let mut present: Vec<String> = std::fs::read_dir("man")
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    present.sort();
    expected.sort();
    assert_eq!(present, expected);
}

/// A YAML or JSON object file.
fn read_object(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn rendered_machine_configs_are_the_mco_merge() {
    for dir in [
        "examples/disconnected-cluster",
        "tests/fixtures/must-gather",
    ] {
        rendered_machine_configs_of(
            &Path::new(dir).join("cluster-scoped-resources/machineconfiguration.openshift.io"),
        );
    }
}

/// Each pool's target under `root` is the MCO's merge of the MachineConfigs
/// the pool selects, and `configuration.source` lists them in merge order.
fn rendered_machine_configs_of(root: &Path) {
    let mut configs = Vec::new();
    let mut rendered = Vec::new();
    for entry in std::fs::read_dir(root.join("machineconfigs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("rendered-") {
            rendered.push(name);
        } else {
            configs.push(read_object(&path));
        }
    }
    let mut expected = Vec::new();
    for entry in std::fs::read_dir(root.join("machineconfigpools")).unwrap() {
        let pool = read_object(&entry.unwrap().path());
        let pool_name = pool["metadata"]["name"].as_str().unwrap();
        let labels = pool["spec"]["machineConfigSelector"]["matchLabels"]
            .as_object()
            .unwrap();
        let selected: Vec<serde_json::Value> = configs
            .iter()
            .filter(|c| {
                labels
                    .iter()
                    .all(|(k, v)| &c["metadata"]["labels"][k.as_str()] == v)
            })
            .cloned()
            .collect();
        let order: Vec<String> = support::mco::merge_order(&selected)
            .iter()
            .map(|c| c["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        assert!(
            order.contains(&format!("99-{pool_name}-generated-registries")),
            "{order:?}"
        );
        for at in ["spec", "status"] {
            let source: Vec<String> = pool[at]["configuration"]["source"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["name"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(
                source, order,
                "MachineConfigPool/{pool_name} {at}.configuration.source"
            );
        }
        let name = pool["spec"]["configuration"]["name"].as_str().unwrap();
        let merged = support::mco::render(name, pool_name, &selected);
        let mut text = serde_json::to_string_pretty(&merged).unwrap();
        text.push('\n');
        let file = format!("{name}.json");
        check(
            &root.join("machineconfigs").join(&file).to_string_lossy(),
            text.as_bytes(),
        );
        expected.push(file);
    }
    rendered.sort();
    expected.sort();
    assert_eq!(
        rendered, expected,
        "a rendered MachineConfig no pool targets"
    );
}

#[test]
fn bash_loads_the_script() {
    let out = Command::new("bash")
        .args([
            "-c",
            "source completions/kubectl-mirrorpolicy.bash && complete -p kubectl-mirrorpolicy",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kubectl-mirrorpolicy"));
}

fn path_with(dirs: &[&Path]) -> String {
    let mut parts: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    parts.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(parts)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn kubectl_complete(args: &[&str], kubeconfig: &Path) -> String {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let completions = std::fs::canonicalize("completions").unwrap();
    let out = Command::new("kubectl")
        .arg("__complete")
        .arg("mirrorpolicy")
        .args(args)
        .env("PATH", path_with(&[&completions, bin_dir]))
        .env("KUBECONFIG", kubeconfig)
        .output()
        .expect("kubectl is installed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn kubectl_completes_the_plugin() {
    let server = support::apiserver::Builder::openshift()
        .objects_from("examples/disconnected-cluster")
        .start();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());

    let out = kubectl_complete(&["ex"], &kubeconfig);
    assert!(out.starts_with("explain\t"), "{out}");
    assert!(out.trim_end().ends_with(":4"), "{out}");

    let out = kubectl_complete(&["render", "--pool", ""], &kubeconfig);
    let pools: Vec<&str> = out.lines().filter(|l| !l.starts_with(':')).collect();
    assert_eq!(pools, server.names("machineconfigpools"), "{out}");
    assert!(!pools.is_empty());

    let out = kubectl_complete(&["list", "--context", ""], &kubeconfig);
    assert!(out.lines().any(|l| l == "fake"), "{out}");

    let out = kubectl_complete(&["lint", "-o", "j"], &kubeconfig);
    assert!(out.starts_with("json"), "{out}");

    // -f leaves file names to the shell (directive 0).
    let out = kubectl_complete(&["list", "-f", ""], &kubeconfig);
    assert_eq!(out.trim_end(), ":0");
}

#[test]
fn oc_script_falls_back_to_the_kubectl_binary() {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let out = Command::new("completions/oc_complete-mirrorpolicy")
        .args(["completion", ""])
        .env("PATH", path_with(&[bin_dir]))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "bash\nelvish\nfish\npowershell\nzsh\n:4\n");
}

/// The example's node-files folder: each node holds what its rendered
/// MachineConfig writes, except worker-1, where registries.conf was edited
/// by hand (the blocked source of registry.redhat.io/rhel9 unblocked) and a
/// drop-in no MachineConfig writes was added.
#[test]
fn example_node_files_are_the_rendered_configs() {
    let example = Path::new("examples/disconnected-cluster");
    let root = example.join("node-files");
    let machine_configs =
        example.join("cluster-scoped-resources/machineconfiguration.openshift.io/machineconfigs");
    // The cluster's registry CA, as the daemon writes it on every node.
    let certs = format!(
        "{}  /etc/docker/certs.d/mirror.corp.example.com:5000/ca.crt\n",
        "3f2c8e6a1b0d4f7e9a5c2b8d6e4f1a3c7b9d0e2f4a6c8e1b3d5f7a9c0e2b4d6f"
    );
    let mut expected: Vec<PathBuf> = Vec::new();
    let mut emit = |path: PathBuf, bytes: &[u8]| {
        if std::env::var_os("UPDATE_GENERATED").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        }
        check(&path.to_string_lossy(), bytes);
        expected.push(path);
    };
    let mut nodes: Vec<PathBuf> =
        std::fs::read_dir(example.join("cluster-scoped-resources/core/nodes"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
    nodes.sort();
    for path in nodes {
        let node = read_object(&path);
        let name = node["metadata"]["name"].as_str().unwrap();
        let current = node["metadata"]["annotations"]
            ["machineconfiguration.openshift.io/currentConfig"]
            .as_str()
            .unwrap();
        let rendered = read_object(&machine_configs.join(format!("{current}.json")));
        let mut files = support::node_files::files_of(&rendered);
        if name == "worker-1.corp.example.com" {
            let conf = files.get_mut("/etc/containers/registries.conf").unwrap();
            let text = String::from_utf8(conf.clone()).unwrap();
            let edited = text.replacen(
                "location = \"registry.redhat.io/rhel9\"\n  blocked = true\n",
                "location = \"registry.redhat.io/rhel9\"\n",
                1,
            );
            assert_ne!(
                edited, text,
                "the rendered registries.conf changed: update the edit"
            );
            *conf = edited.into_bytes();
            files.insert(
                "/etc/containers/registries.conf.d/99-lab-registry.conf".to_string(),
                b"# Added by hand while testing the lab registry\n[[registry]]\nlocation = \"registry.lab.example.com:5001\"\ninsecure = true\n".to_vec(),
            );
        }
        for (host, bytes) in &files {
            emit(root.join(name).join(host.trim_start_matches('/')), bytes);
        }
        emit(root.join(name).join("certs.sha256"), certs.as_bytes());
    }
    // Nothing else in the folder.
    let mut present = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                present.push(path);
            }
        }
    }
    present.sort();
    expected.sort();
    assert_eq!(present, expected, "a stale file in {}", root.display());
}
