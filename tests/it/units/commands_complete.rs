//! The unit tests of `commands::complete` in the binary's library.

use kubectl_mirrorpolicy::commands::complete::*;
use mirrorpolicy::source::api::Resource;

struct Table;

impl Names for Table {
    fn names(&self, resource: &Resource, _: &[String]) -> Vec<String> {
        match resource.plural {
            "machineconfigpools" => vec!["master".into(), "worker".into(), "infra".into()],
            "namespaces" => vec!["default".into(), "payments".into()],
            _ => Vec::new(),
        }
    }
    fn kubeconfig(&self, what: &str, _: &[String]) -> Vec<String> {
        vec![format!("{what}-a"), format!("{what}-b")]
    }
}

fn values(args: &[&str]) -> (Vec<String>, u8) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (c, d) = complete(&args, &Table);
    (c.into_iter().map(|c| c.value).collect(), d)
}

#[test]
fn subcommands_flags_and_values() {
    let (v, d) = values(&["ex"]);
    assert_eq!(v, ["explain"]);
    assert_eq!(d, NO_FILE);
    let (v, _) = values(&[""]);
    for want in ["explain", "render", "list", "lint", "completion"] {
        assert!(v.contains(&want.to_string()), "{want} in {v:?}");
    }
    assert!(!v.iter().any(|s| s.starts_with("__")), "{v:?}");
    let (v, _) = values(&["render", "--po"]);
    assert_eq!(v, ["--pool"]);
    let (v, _) = values(&["render", "--pool", ""]);
    assert_eq!(v, ["master", "worker", "infra"]);
    let (v, _) = values(&["render", "--pool", "w"]);
    assert_eq!(v, ["worker"]);
    let (v, _) = values(&["render", "--pool=m"]);
    assert_eq!(v, ["--pool=master"]);
    let (v, _) = values(&["render", "-o", ""]);
    assert_eq!(v, ["files", "machineconfig", "json"]);
    let (v, _) = values(&["explain", "x", "-n", "pay"]);
    assert_eq!(v, ["payments"]);
    let (v, _) = values(&["explain", "x", "--context", ""]);
    assert_eq!(v, ["context-a", "context-b"]);
    let (v, _) = values(&["render", "--file", "/etc/containers/reg"]);
    assert_eq!(
        v,
        [
            "/etc/containers/registries.conf",
            "/etc/containers/registries.conf.d/01-image-searchRegistries.conf",
            "/etc/containers/registries.d/sigstore-registries.yaml"
        ]
    );
    // -f completes files: the shell's own completion.
    let (v, d) = values(&["list", "-f", ""]);
    assert!(v.is_empty());
    assert_eq!(d, DEFAULT);
    // Global flags after the subcommand.
    let (v, _) = values(&["list", "--kube"]);
    assert_eq!(v, ["--kubeconfig"]);
    // A flag value already given does not confuse the walk.
    let (v, _) = values(&["-n", "payments", "exp"]);
    assert_eq!(v, ["explain"]);
    let (v, _) = values(&["completion", ""]);
    assert_eq!(v, ["bash", "elvish", "fish", "powershell", "zsh"]);
}
