//! `lint` against the cluster's own CustomResourceDefinitions: `--crd`,
//! a must-gather's CRD files and the live cluster's. A field the CRD
//! declares and the tool does not model is a warning; one the CRD lacks,
//! or neither knows, an error. MachineConfig, MachineConfigPool and
//! ContainerRuntimeConfig fields are checked too.

use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use mirrorpolicy::objects::crd_schema::Tree;
use mirrorpolicy::objects::schema::{builtin_tree, crd_name};
use predicates::prelude::*;
use predicates::str::contains;
use serde_json::{json, Value};
use support::apiserver::Builder;
use support::bin;

const IDMS: &str = "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: apps
spec:
  imageDigestMirrors:
  - source: registry.example.com/apps
    mirrors:
    - mirror.corp.example.com:5000/apps
    mirrorSourcePolicy: AllowContactingSource
    newUpstreamField: true
";

/// A CRD manifest of `kind` generated from the tool's own tree, changed by
/// `mutate` (given the fields of one `imageDigestMirrors[]` entry for an
/// IDMS, of `spec` otherwise).
fn crd_manifest(kind: &str, mutate: impl FnOnce(&mut BTreeMap<String, Tree>)) -> Value {
    let mut tree = builtin_tree(kind).unwrap().clone();
    let Tree::Object(top) = &mut tree else {
        panic!()
    };
    let Some(Tree::Object(spec)) = top.get_mut("spec") else {
        panic!()
    };
    let target = match spec.get_mut("imageDigestMirrors") {
        Some(Tree::List(item)) => match &mut **item {
            Tree::Object(entry) => entry,
            _ => panic!(),
        },
        _ => spec,
    };
    mutate(target);
    let name = crd_name(kind).unwrap();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": name},
        "spec": {
            "group": name.split_once('.').unwrap().1,
            "names": {"kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                          "schema": {"openAPIV3Schema": tree.to_openapi()}}]
        }
    })
}

fn write(path: &Path, text: &str) -> String {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.display().to_string()
}

fn added(fields: &mut BTreeMap<String, Tree>) {
    fields.insert("newUpstreamField".to_string(), Tree::Any);
}

#[test]
fn crd_flag_turns_a_field_added_upstream_into_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let idms = write(&dir.path().join("idms.yaml"), IDMS);
    // The tool's own tree: the new field is unknown.
    bin()
        .args(["lint", "-f", &idms])
        .assert()
        .code(1)
        .stdout(contains(
            "spec.imageDigestMirrors[0].newUpstreamField: unknown field",
        ));
    // The CRD declares it: a warning, not an error.
    let crd = crd_manifest("ImageDigestMirrorSet", added);
    let crd_file = write(&dir.path().join("crds/idms.json"), &crd.to_string());
    let out = bin()
        .args(["lint", "-f", &idms, "--crd", &crd_file])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("warning:"), "{out}");
    assert!(
        out.contains("ImageDigestMirrorSet/apps: spec.imageDigestMirrors[0].newUpstreamField: declared by the CustomResourceDefinition imagedigestmirrorsets.config.openshift.io"),
        "{out}"
    );
    assert!(out.contains("not modelled by this tool"), "{out}");
    // A folder works as well.
    bin()
        .args(["lint", "-f", &idms, "--crd"])
        .arg(dir.path().join("crds"))
        .assert()
        .code(0);
}

#[test]
fn crd_flag_refuses_a_field_the_crd_removed_and_one_neither_knows() {
    let dir = tempfile::tempdir().unwrap();
    let text = IDMS.replace("newUpstreamField", "neverDeclared");
    let idms = write(&dir.path().join("idms.yaml"), &text);
    let crd = crd_manifest("ImageDigestMirrorSet", |f| {
        f.remove("mirrorSourcePolicy");
    });
    let crd_file = write(&dir.path().join("idms-crd.json"), &crd.to_string());
    bin()
        .args(["lint", "-f", &idms, "--crd", &crd_file])
        .assert()
        .code(1)
        .stdout(contains(
            "spec.imageDigestMirrors[0].mirrorSourcePolicy: unknown field (the CustomResourceDefinition imagedigestmirrorsets.config.openshift.io",
        ))
        .stdout(contains("spec.imageDigestMirrors[0].neverDeclared: unknown field"))
        .stdout(contains("2 error(s)"));
}

#[test]
fn crd_flag_bad_input_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let idms = write(&dir.path().join("idms.yaml"), IDMS);
    bin()
        .args(["lint", "-f", &idms, "--crd", &idms])
        .assert()
        .code(2)
        .stderr(contains("--crd: no CustomResourceDefinition"));
    let mut crd = crd_manifest("ImageDigestMirrorSet", added);
    crd["spec"]["versions"][0]
        .as_object_mut()
        .unwrap()
        .remove("schema");
    let bad = write(&dir.path().join("bad.json"), &crd.to_string());
    bin()
        .args(["lint", "-f", &idms, "--crd", &bad])
        .assert()
        .code(2)
        .stderr(contains("bad.json"))
        .stderr(contains("has no schema.openAPIV3Schema"));
    // Every unusable manifest is named in one run, not one per run.
    let also = write(&dir.path().join("also-bad.json"), &crd.to_string());
    bin()
        .args(["lint", "-f", &idms, "--crd", &bad, "--crd", &also])
        .assert()
        .code(2)
        .stderr(contains("/bad.json"))
        .stderr(contains("also-bad.json"));
}

#[test]
fn must_gather_crds_are_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("must-gather");
    write(
        &root.join("cluster-scoped-resources/config.openshift.io/imagedigestmirrorsets/apps.yaml"),
        IDMS,
    );
    let crd = crd_manifest("ImageDigestMirrorSet", added);
    write(
        &root.join("cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions/imagedigestmirrorsets.config.openshift.io.yaml"),
        &crd.to_string(),
    );
    bin()
        .args(["lint", "-f"])
        .arg(&root)
        .assert()
        .code(0)
        .stdout(contains(
            "newUpstreamField: declared by the CustomResourceDefinition",
        ));
}

#[test]
fn machine_config_kinds_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let text = "apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-x
  labels: {machineconfiguration.openshift.io/role: worker}
spec:
  config: {ignition: {version: 3.2.0}, anything: {goes: here}}
  kernelArgument: [a]
---
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata: {name: infra}
spec:
  machineConfigSelector: {matchLabel: {a: b}}
  nodeSelector: {matchLabels: {a: b}}
---
apiVersion: machineconfiguration.openshift.io/v1
kind: ContainerRuntimeConfig
metadata: {name: pids}
spec:
  machineConfigPoolSelector: {matchLabels: {a: b}}
  containerRuntimeConfig: {pidLimit: 2048}
";
    let file = write(&dir.path().join("mc.yaml"), text);
    bin()
        .args(["lint", "-f", &file])
        .assert()
        .code(1)
        .stdout(contains(
            "MachineConfig/99-worker-x: spec.kernelArgument: unknown field (did you mean \"kernelArguments\"?)",
        ))
        .stdout(contains(
            "MachineConfigPool/infra: spec.machineConfigSelector.matchLabel: unknown field (did you mean \"matchLabels\"?)",
        ))
        .stdout(contains(
            "ContainerRuntimeConfig/pids: spec.containerRuntimeConfig.pidLimit: unknown field (did you mean \"pidsLimit\"?)",
        ))
        .stdout(contains("3 error(s)"))
        .stdout(contains("anything").not());
}

fn live_lint(builder: Builder, crds: &[Value]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let server = builder.start();
    for crd in crds {
        server.add_objects_from_yaml(&crd.to_string());
    }
    let kubeconfig = server.write_kubeconfig(dir.path());
    let proposed = write(&dir.path().join("idms.yaml"), IDMS);
    let out = bin()
        .env("KUBECONFIG", &kubeconfig)
        .args(["lint", "--with", &proposed])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn live_lint_checks_with_objects_against_the_clusters_crds() {
    let crd = crd_manifest("ImageDigestMirrorSet", added);
    let (code, out, err) = live_lint(Builder::openshift(), &[crd]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("newUpstreamField: declared by the CustomResourceDefinition imagedigestmirrorsets.config.openshift.io"),
        "{out}"
    );
    // CRDs the cluster lacks: the built-in tree, with a warning each.
    assert!(
        err.contains("customresourcedefinition imagetagmirrorsets.config.openshift.io not found"),
        "{err}"
    );
}

#[test]
fn live_lint_without_access_to_crds_uses_the_builtin_trees() {
    let crd = crd_manifest("ImageDigestMirrorSet", added);
    let builder = Builder::openshift().forbid("get", "customresourcedefinitions");
    let (code, out, err) = live_lint(builder, &[crd]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("spec.imageDigestMirrors[0].newUpstreamField: unknown field"),
        "{out}"
    );
    assert!(
        err.contains("cannot get customresourcedefinitions"),
        "{err}"
    );
    assert_eq!(err.matches("customresourcedefinitions").count(), 2, "{err}");
}
