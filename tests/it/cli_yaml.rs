//! How `-f` input is read, through the built binary: YAML exactly as a full
//! YAML parser (and so the API server) reads it, and inputs that never end
//! refused instead of read forever.

use std::fs;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

fn plugin() -> Command {
    let mut cmd = Command::cargo_bin("kubectl-mirrorpolicy").expect("binary built");
    cmd.env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .timeout(Duration::from_secs(60));
    cmd
}

/// Block style throughout, as `oc get -o yaml` writes it.
const IDMS: &str = "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: ops
  labels:
    team: a
spec:
  imageDigestMirrors:
  - source: quay.io/x
    mirrors:
    - m.io/x
";

/// `list -f <paths> -o json`: exit code, parsed stdout (if any), stderr.
fn list(paths: &[&Path]) -> (i32, Option<Value>, String) {
    let mut cmd = plugin();
    cmd.arg("list");
    for p in paths {
        cmd.arg("-f").arg(p);
    }
    let out = cmd.args(["-o", "json"]).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).ok(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).expect("writes");
    path
}

/// `list`'s rules as `(source, blocked, objects)`.
fn rules(json: &Value) -> Vec<(String, bool, Vec<String>)> {
    json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|r| {
            (
                r["source"].as_str().expect("source").to_string(),
                r["blocked"].as_bool().expect("blocked"),
                r["objects"]
                    .as_array()
                    .expect("objects")
                    .iter()
                    .map(|o| o.as_str().expect("object").to_string())
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn issue_12_space_before_a_colon_is_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let spaced = IDMS
        .replace("kind:", "kind :")
        .replace("  name:", "  name :")
        .replace("imageDigestMirrors:", "imageDigestMirrors :")
        + "    mirrorSourcePolicy : NeverContactSource\n";
    let file = write(dir.path(), "idms.yaml", &spaced);
    let (code, json, stderr) = list(&[&file]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        rules(&json.expect("JSON")),
        [(
            "quay.io/x".to_string(),
            true,
            vec!["ImageDigestMirrorSet/ops".to_string()]
        )]
    );

    let image = write(
        dir.path(),
        "image.yaml",
        "apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    blockedRegistries :\n    - quay.io\n",
    );
    let out = plugin()
        .args(["explain", "quay.io/a/b:1", "-o", "json", "-f"])
        .arg(&image)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["candidates"][0]["registry"]["blocked"], true, "{json}");

    let icsp = write(
        dir.path(),
        "icsp.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name : ops\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors:\n    - m.io/x\n",
    );
    let out = plugin()
        .args(["migrate-icsp", "-f"])
        .arg(&icsp)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let yaml = String::from_utf8(out.stdout).unwrap();
    assert!(yaml.contains("\n    name: ops\n"), "{yaml}");
}

#[test]
fn issue_12_unicode_spaces_after_a_value_are_part_of_it() {
    let dir = tempfile::tempdir().unwrap();
    for space in ['\u{a0}', '\u{2003}', '\u{3000}', '\u{85}', '\u{2028}'] {
        let file = write(
            dir.path(),
            "idms.yaml",
            &IDMS.replace("source: quay.io/x", &format!("source: quay.io/x{space}")),
        );
        let (code, _, stderr) = list(&[&file]);
        assert_eq!(code, 2, "U+{:04X}: {stderr}", space as u32);
        assert!(
            stderr.contains(
                "ImageDigestMirrorSet/ops: spec.imageDigestMirrors[0].source: \"quay.io/x\\u{"
            ),
            "U+{:04X}: {stderr}",
            space as u32
        );
    }
}

#[test]
fn issue_12_control_characters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for c in ['\u{1}', '\u{0}', '\u{7f}'] {
        let file = write(
            dir.path(),
            "idms.yaml",
            &IDMS.replace("name: ops", &format!("name: o{c}ps")),
        );
        let (code, _, stderr) = list(&[&file]);
        assert_eq!(code, 2, "{c:?}: {stderr}");
        assert!(
            stderr.contains("idms.yaml: document 1: invalid YAML at line 4"),
            "{c:?}: {stderr}"
        );
    }
}

#[test]
fn issue_12_null_and_merge_keys_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (key, message) in [
        ("~: x", "null is not allowed here"),
        ("null: x", "null is not allowed here"),
        (
            "<<: x",
            "YAML merge value must be mapping or sequence of mappings",
        ),
    ] {
        let file = write(dir.path(), "idms.yaml", &IDMS.replace("team: a", key));
        let (code, _, stderr) = list(&[&file]);
        assert_eq!(code, 2, "{key}: {stderr}");
        assert!(
            stderr.contains(&format!("invalid YAML at line 6, column 5: {message}"))
                || stderr.contains(&format!("invalid YAML at line 6, column 9: {message}")),
            "{key}: {stderr}"
        );
    }
}

#[test]
fn issue_12_line_breaks_and_markers_are_yaml_s() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // A lone CR ends a line: `x` is then a key without a value.
        ("lone-cr", IDMS.replace("name: ops", "name: ops\rx")),
        (
            "bom-later",
            format!("{IDMS}---\n\u{feff}{}", IDMS.replace("ops", "two")),
        ),
        (
            "nbsp-marker",
            format!("{IDMS}---\u{a0}\n{}", IDMS.replace("ops", "two")),
        ),
    ];
    for (name, text) in cases {
        let file = write(dir.path(), &format!("{name}.yaml"), &text);
        let (code, _, stderr) = list(&[&file]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains("invalid YAML at line"), "{name}: {stderr}");
    }
}

#[test]
fn issue_12_deep_nesting_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!(
        "kind: ImageDigestMirrorSet\nspec:\n{}x\n",
        "- ".repeat(20_000)
    );
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    write(&folder, "deep.yaml", &deep);
    let file = write(dir.path(), "deep.yaml", &deep);
    for path in [&file, &folder] {
        let (code, _, stderr) = list(&[path]);
        assert_eq!(code, 2, "{}: {stderr}", path.display());
        assert!(
            stderr.contains("deep.yaml: document 1: invalid YAML at line 3")
                && stderr.contains("limits breached"),
            "{stderr}"
        );
    }
    let out = plugin()
        .args(["list", "-f", "-"])
        .write_stdin(deep)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("<stdin>: document 1: invalid YAML"),
        "{stderr}"
    );
}

#[test]
fn issue_12_flow_style_file_in_a_folder_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let flow = "{apiVersion: config.openshift.io/v1, kind: ImageDigestMirrorSet, metadata: {name: flow}, spec: {imageDigestMirrors: [{source: quay.io/flow, mirrors: [m.io/flow]}]}}\n";
    let file = write(dir.path(), "flow.yaml", flow);
    let (code, alone, stderr) = list(&[&file]);
    assert_eq!(code, 0, "{stderr}");
    let (code, in_folder, stderr) = list(&[dir.path()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(in_folder, alone);
    assert_eq!(
        rules(&in_folder.unwrap()),
        [(
            "quay.io/flow".to_string(),
            false,
            vec!["ImageDigestMirrorSet/flow".to_string()]
        )]
    );
}

#[cfg(unix)]
#[test]
fn issue_12_endless_inputs_are_refused() {
    let (code, _, stderr) = list(&[Path::new("/dev/zero")]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("\"/dev/zero\" holds more than 256 MiB, the most one input may hold"),
        "{stderr}"
    );

    let mut child =
        std::process::Command::new(assert_cmd::cargo::cargo_bin("kubectl-mirrorpolicy"))
            .args(["list", "-f", "-"])
            .stdin(fs::File::open("/dev/zero").unwrap())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "stdin from /dev/zero hangs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("\"<stdin>\" holds more than 256 MiB"),
        "{stderr}"
    );

    // A FIFO in a folder is not read (nobody writes it: reading would hang).
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "idms.yaml", IDMS);
    let fifo = dir.path().join("pipe.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (code, json, stderr) = list(&[dir.path()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rules(&json.unwrap()).len(), 1);
    assert!(
        stderr.contains("pipe.yaml: not a regular file (a pipe, socket or device); skipped"),
        "{stderr}"
    );

    // Named, it is read; without a writer it is empty, not a wait.
    let (code, _, stderr) = list(&[&fifo]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no ImageContentSourcePolicy"), "{stderr}");
}
