//! The GitHub workflows: CI runs `.ci/run`, and the release on a `v*` tag
//! builds, packages and publishes exactly the platforms that
//! `scripts/release.py` packages and `krew/mirrorpolicy.yaml` installs.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

type Platforms = BTreeSet<(String, String)>;

fn yaml(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(v: &Value) -> String {
    v.as_str()
        .unwrap_or_else(|| panic!("not a string: {v}"))
        .to_string()
}

/// Every `run:` script of a job's steps, and every `uses:` action.
fn steps(job: &Value) -> (Vec<String>, Vec<String>) {
    let steps = job["steps"].as_array().expect("a job has steps");
    let field = |k: &str| {
        steps
            .iter()
            .filter_map(|s| s[k].as_str())
            .map(str::to_string)
            .collect()
    };
    (field("run"), field("uses"))
}

/// The platforms of the release workflow's build matrix, each checked
/// against its Rust target (static musl on Linux).
fn matrix_platforms(workflow: &Value) -> Platforms {
    let include = workflow["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("the build job has a matrix of platforms");
    let mut out = Platforms::new();
    for entry in include {
        let (os, arch, target) = (
            text(&entry["os"]),
            text(&entry["arch"]),
            text(&entry["target"]),
        );
        let cpu = match arch.as_str() {
            "amd64" => "x86_64",
            "arm64" => "aarch64",
            other => panic!("unknown arch {other}"),
        };
        let system = match os.as_str() {
            "linux" => "unknown-linux-musl",
            "darwin" => "apple-darwin",
            "windows" => "pc-windows-msvc",
            other => panic!("unknown os {other}"),
        };
        assert_eq!(target, format!("{cpu}-{system}"), "{os}/{arch}");
        assert!(!text(&entry["runner"]).is_empty(), "{os}/{arch}: no runner");
        assert!(out.insert((os, arch)), "{entry}: listed twice");
    }
    out
}

/// The platforms `scripts/release.py` packages.
fn release_py_platforms() -> Platforms {
    let out = Command::new("python3")
        .args(["scripts/release.py", "platforms"])
        .output()
        .expect("python3 is installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (os, arch) = l.split_once('/').expect("os/arch");
            (os.to_string(), arch.to_string())
        })
        .collect()
}

/// The platforms of the krew manifest template (its bot lines, which are
/// not YAML, left out).
fn krew_platforms() -> Platforms {
    let template = std::fs::read_to_string("krew/mirrorpolicy.yaml").unwrap();
    let filled: String = template
        .lines()
        .filter(|l| !l.contains("addURIAndSha"))
        .map(|l| l.replace("{{ .TagName }}", "v0.0.0") + "\n")
        .collect();
    let manifest: Value = serde_saphyr::from_str(&filled).expect("the template is YAML");
    let platforms = manifest["spec"]["platforms"].as_array().unwrap();
    let set: Platforms = platforms
        .iter()
        .map(|p| {
            let labels = &p["selector"]["matchLabels"];
            (text(&labels["os"]), text(&labels["arch"]))
        })
        .collect();
    assert_eq!(set.len(), platforms.len(), "a platform listed twice");
    set
}

#[test]
fn release_matrix_release_py_and_krew_name_the_same_six_platforms() {
    let expected: Platforms = ["linux", "darwin", "windows"]
        .iter()
        .flat_map(|os| ["amd64", "arm64"].map(|arch| (os.to_string(), arch.to_string())))
        .collect();
    let workflow = yaml(".github/workflows/release.yml");
    assert_eq!(
        matrix_platforms(&workflow),
        expected,
        "release.yml's matrix"
    );
    assert_eq!(release_py_platforms(), expected, "scripts/release.py");
    assert_eq!(krew_platforms(), expected, "krew/mirrorpolicy.yaml");
}

#[test]
fn the_release_runs_on_v_tags_packages_publishes_and_updates_krew() {
    let workflow = yaml(".github/workflows/release.yml");
    let tags: Vec<String> = workflow["on"]["push"]["tags"]
        .as_array()
        .expect("on.push.tags")
        .iter()
        .map(text)
        .collect();
    assert_eq!(tags, ["v*"]);
    let jobs = &workflow["jobs"];
    let (build, _) = steps(&jobs["build"]);
    let build = build.join("\n");
    assert!(build.contains("--target ${{ matrix.target }}"), "{build}");
    assert!(build.contains("scripts/release.py package"), "{build}");
    assert!(
        build.contains("--os ${{ matrix.os }} --arch ${{ matrix.arch }}"),
        "{build}"
    );
    let (release, _) = steps(&jobs["release"]);
    let release = release.join("\n");
    assert!(release.contains("sha256sum"), "{release}");
    assert!(release.contains("gh release create"), "{release}");
    assert!(release.contains("dist/checksums.txt"), "{release}");
    assert_eq!(text(&jobs["release"]["permissions"]["contents"]), "write");
    let krew = &jobs["krew"];
    let (_, uses) = steps(krew);
    assert!(
        uses.iter()
            .any(|u| u.starts_with("rajatjindal/krew-release-bot@")),
        "{uses:?}"
    );
    let bot = krew["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("krew-release-bot"))
        })
        .unwrap();
    assert_eq!(
        text(&bot["with"]["krew_template_file"]),
        "krew/mirrorpolicy.yaml"
    );
}

#[test]
fn ci_runs_the_ci_script() {
    let workflow = yaml(".github/workflows/ci.yml");
    let jobs = workflow["jobs"].as_object().expect("jobs");
    let runs: Vec<String> = jobs.values().flat_map(|j| steps(j).0).collect();
    assert!(runs.iter().any(|r| r.trim() == ".ci/run"), "{runs:?}");
    assert!(std::path::Path::new(".ci/run").is_file());
}
