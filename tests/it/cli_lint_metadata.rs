//! Label and annotation keys and values the API server refuses
//! (apimachinery `ValidateLabels`, `ValidateAnnotations`): `lint` fails on
//! them, `migrate-icsp` refuses them, reading commands warn; the messages
//! are those the real `kubectl` prints where it checks the same rule on
//! the client (`kubectl taint` for qualified names, `kubectl label` for
//! label values).

use crate::support;

use std::path::Path;
use std::process::Command;

use predicates::prelude::*;
use tempfile::TempDir;

use support::apiserver::Builder;
use support::bin;

fn idms(labels: &[(&str, &str)], annotations: &[(&str, &str)]) -> String {
    let map = |pairs: &[(&str, &str)]| {
        let m: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect();
        serde_json::Value::Object(m)
    };
    serde_json::json!({
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImageDigestMirrorSet",
        "metadata": {"name": "labelled", "labels": map(labels), "annotations": map(annotations)},
        "spec": {"imageDigestMirrors": [{"source": "quay.io/x", "mirrors": ["m.example.com/x"]}]},
    })
    .to_string()
}

fn lint(dir: &TempDir, text: &str) -> (Option<i32>, String) {
    let path = dir.path().join("object.json");
    std::fs::write(&path, text).unwrap();
    let out = bin().arg("lint").arg("-f").arg(&path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn kubectl(kubeconfig: &Path, args: &[&str]) -> String {
    let out = Command::new("kubectl")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", "/nonexistent-home-for-tests")
        .output()
        .expect("kubectl is installed");
    assert!(!out.status.success(), "kubectl {args:?} took it");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The problems kubectl names for `what`, after its `prefix`, split as
/// apimachinery joins them (`; `).
fn kubectl_problems(stderr: &str, prefix: &str) -> Vec<String> {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in {stderr}"));
    line.split("; ").map(str::to_string).collect()
}

#[test]
fn issue_28_label_keys_fail_lint_with_kubectls_messages() {
    let server = Builder::openshift().start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let long_name = "a".repeat(64);
    let long_prefix = format!("{}/abc", "a".repeat(254));
    for key in [
        "a b",
        // apimachinery's "nospecialchars%^=@" without the '=', which
        // kubectl's own `key=value` syntax would split on.
        "nospecialchars%^@",
        "cantendwithadash-",
        "-cantstartwithadash-",
        "only/one/slash",
        "Example.com/abc",
        "example_com/abc",
        "example.com/",
        "/simple",
        long_name.as_str(),
        long_prefix.as_str(),
    ] {
        let (code, text) = lint(&dir, &idms(&[(key, "x")], &[]));
        assert_eq!(code, Some(1), "{key}: {text}");
        // kubectl taint checks a taint key as a qualified name, as the API
        // server checks a label key.
        let spec = format!("{key}=v:NoSchedule");
        let stderr = kubectl(&kubeconfig, &["taint", "nodes", "n", "--", &spec]);
        let problems = kubectl_problems(&stderr, &format!("error: invalid taint spec: {spec}, "));
        for problem in &problems {
            let want = format!(
                "ImageDigestMirrorSet/labelled: metadata.labels: Invalid value: {}: {problem} (the API server refuses this object)",
                serde_json::to_string(key).unwrap()
            );
            assert!(text.contains(&want), "{key}: {want}\n---\n{text}");
        }
        assert_eq!(
            text.matches("metadata.labels: Invalid value").count(),
            problems.len(),
            "{key}: {text}"
        );
    }
    let (code, text) = lint(
        &dir,
        &idms(&[("example.com/Uppercase_Is_OK_123", "x"), ("k", "")], &[]),
    );
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn issue_28_label_values_fail_lint_with_kubectls_messages() {
    let server = Builder::openshift().start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let file = dir.path().join("plain.json");
    std::fs::write(&file, idms(&[], &[])).unwrap();
    let long = "a".repeat(64);
    for value in [
        "bad value",
        "nospecialchars%^@",
        "Tama-nui-te-rā.is.Māori.sun",
        "-starts-with-dash",
        "ends.with.dot.",
        long.as_str(),
    ] {
        let (code, text) = lint(&dir, &idms(&[("k", value)], &[]));
        assert_eq!(code, Some(1), "{value}: {text}");
        let pair = format!("k={value}");
        let stderr = kubectl(
            &kubeconfig,
            &[
                "label",
                "--local",
                "-o",
                "yaml",
                "-f",
                file.to_str().unwrap(),
                "--",
                &pair,
            ],
        );
        let prefix = format!(
            "error: invalid label value: {}: ",
            serde_json::to_string(&pair).unwrap()
        );
        for problem in kubectl_problems(&stderr, &prefix) {
            let want = format!(
                "metadata.labels: Invalid value: {}: {problem}",
                serde_json::to_string(value).unwrap()
            );
            assert!(text.contains(&want), "{value}: {want}\n---\n{text}");
        }
    }
}

#[test]
fn issue_28_annotation_keys_and_size_fail_lint() {
    let dir = TempDir::new().unwrap();
    // Annotation keys are checked lowercased: an uppercase prefix passes.
    let (code, text) = lint(&dir, &idms(&[], &[("Example.COM/Owner", "x")]));
    assert_eq!(code, Some(0), "{text}");
    let (code, text) = lint(&dir, &idms(&[], &[("only/one/slash", "x")]));
    assert_eq!(code, Some(1));
    assert!(
        text.contains("ImageDigestMirrorSet/labelled: metadata.annotations: Invalid value: \"only/one/slash\": a qualified name must consist of alphanumeric characters"),
        "{text}"
    );
    let big = "b".repeat(256 * 1024);
    let (code, text) = lint(&dir, &idms(&[], &[("a", &big)]));
    assert_eq!(code, Some(1));
    assert!(
        text.contains("ImageDigestMirrorSet/labelled: metadata.annotations: Too long: may not be more than 262144 bytes (the API server refuses this object)"),
        "{text}"
    );
    let (code, _) = lint(&dir, &idms(&[], &[("a", &big[1..])]));
    assert_eq!(code, Some(0));
}

#[test]
fn issue_28_reading_commands_warn_and_migrate_refuses() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("mixed.yaml");
    std::fs::write(
        &path,
        format!(
            "{}\n---\napiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: old\n  labels:\n    team: bad value\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/y\n    mirrors: [m.example.com/y]\n",
            idms(&[("a b", "x")], &[])
        ),
    )
    .unwrap();
    bin()
        .arg("list")
        .arg("-f")
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: the API server would refuse this object today:",
        ))
        .stderr(predicate::str::contains(
            "metadata.labels: Invalid value: \"a b\"",
        ));
    bin()
        .arg("migrate-icsp")
        .arg("-f")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/old: metadata.labels: Invalid value: \"bad value\": a valid label must be an empty string",
        ))
        .stdout("");
}
