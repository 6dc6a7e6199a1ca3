//! oc-mirror v2's `working-dir/cluster-resources/` given as it is with
//! `-f` (`tests/fixtures/oc-mirror/cluster-resources`: the files and objects
//! oc-mirror's `clusterresources` package writes): it never holds a
//! ClusterVersion or an Image config, so what the render assumes for them is
//! said once, in those terms, not as two warnings about objects missing
//! from a cluster.

use assert_cmd::Command;

const RESOURCES: &str = "tests/fixtures/oc-mirror/cluster-resources";

const SAID_ONCE: &str = "warning: oc-mirror cluster-resources hold no ClusterVersion or Image config: \
rendered for OpenShift 4.22 with the Image config's defaults (no blocked, allowed or insecure registries); \
to render for the cluster, add `oc get clusterversion version -o yaml` and \
`oc get image.config.openshift.io cluster -o yaml` with -f\n";

fn plugin() -> Command {
    let mut cmd = Command::cargo_bin("kubectl-mirrorpolicy").expect("binary built");
    cmd.env("NO_COLOR", "1").env("COLUMNS", "200");
    cmd
}

/// Runs the binary; its exit code, stdout and stderr.
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = plugin().args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cluster_resources_say_the_missing_objects_once() {
    let image =
        "quay.io/openshift-release-dev/ocp-release@sha256:0000000000000000000000000000000000000000000000000000000000000001";
    let idms = format!("{RESOURCES}/idms-oc-mirror.yaml");
    for args in [
        vec![
            "render",
            "-f",
            RESOURCES,
            "--file",
            "/etc/containers/registries.conf",
        ],
        vec!["list", "-f", RESOURCES],
        vec!["explain", image, "-f", RESOURCES],
        // One of its files, and the folder with a trailing slash.
        vec!["list", "-f", &idms],
        vec!["list", "-f", "tests/fixtures/oc-mirror/cluster-resources/"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
        assert_eq!(err, SAID_ONCE, "{args:?}");
    }
    // The mirror sets are read and rendered as usual.
    let (_, out, _) = run(&["list", "-f", RESOURCES]);
    for source in [
        "quay.io/openshift-release-dev/ocp-release",
        "registry.redhat.io/redhat/redhat-operator-index",
        "registry.redhat.io/rhel9",
    ] {
        assert!(out.contains(source), "{source} in:\n{out}");
    }
}

/// Beside other inputs that give no ClusterVersion or Image config (more
/// mirror sets, standard input), the cluster-resources are still what
/// lacks them: said once, as for the folder alone.
#[test]
fn cluster_resources_beside_other_mirror_sets_say_it_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let extra = dir.path().join("extra-idms.yaml");
    std::fs::write(
        &extra,
        "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: extra\nspec:\n  imageDigestMirrors:\n  - source: quay.io/extra\n    mirrors: [mirror.example.com/extra]\n",
    )
    .expect("write");
    let extra = extra.display().to_string();
    let idms = format!("{RESOURCES}/idms-oc-mirror.yaml");
    for args in [
        vec!["list", "-f", RESOURCES, "-f", &extra],
        vec!["list", "-f", &extra, "-f", &idms],
        // The folder that holds cluster-resources (oc-mirror's working-dir).
        vec!["list", "-f", "tests/fixtures/oc-mirror"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(err, SAID_ONCE, "{args:?}");
        if args.contains(&extra.as_str()) {
            assert!(out.contains("quay.io/extra"), "{args:?}: {out}");
        }
    }
    let out = plugin()
        .args(["list", "-f", RESOURCES, "-f", "-"])
        .write_stdin(std::fs::read_to_string(dir.path().join("extra-idms.yaml")).expect("read"))
        .output()
        .expect("runs");
    assert_eq!(String::from_utf8_lossy(&out.stderr), SAID_ONCE);
}

/// With a ClusterVersion or an Image config beside them, only what is
/// still missing is said, as for any input.
#[test]
fn cluster_resources_with_other_files_warn_as_any_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cv = dir.path().join("clusterversion.yaml");
    std::fs::write(
        &cv,
        "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nstatus:\n  desired:\n    version: 4.20.8\n",
    )
    .expect("write");
    let cv = cv.display().to_string();
    let (code, _, err) = run(&["list", "-f", RESOURCES, "-f", &cv]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        err,
        "warning: no Image/cluster object: the MCO does not sync without it; rendered as if its spec were empty\n"
    );
    // A folder of other mirror sets is no oc-mirror output either.
    let other = dir.path().join("sets");
    std::fs::create_dir(&other).expect("mkdir");
    std::fs::copy(
        format!("{RESOURCES}/idms-oc-mirror.yaml"),
        other.join("idms.yaml"),
    )
    .expect("copy");
    let (code, _, err) = run(&["list", "-f", &other.display().to_string()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("warning: no ClusterVersion in the input"),
        "{err}"
    );
    assert!(err.contains("warning: no Image/cluster object"), "{err}");
    assert!(!err.contains("oc-mirror"), "{err}");
}
