//! `migrate-icsp` through the binary: offline on files (stdout, --dest-dir,
//! the checks that refuse), and live against the fake API server (dry run
//! first, confirmation, conflicts, failures half-way, --delete-icsp).

use crate::support;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use support::apiserver::{Builder, Change, FakeApiServer, Fault, Logged, Trigger};

const CLUSTER: &str = "tests/fixtures/migrate/cluster.yaml";

use support::bin;

fn write(dir: &TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn stdout_has_one_idms_per_icsp_and_the_proof() {
    let out = bin()
        .args(["migrate-icsp", "-f", CLUSTER])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "equivalent: nodes get byte-identical files from the 2 ImageContentSourcePolicy objects and from the 2 ImageDigestMirrorSet objects replacing them (4 sources; 1 file rendered)",
        ))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["kind"], "ImageDigestMirrorSet");
    assert_eq!(docs[0]["metadata"]["name"], "operators");
    assert_eq!(docs[1]["metadata"]["name"], "release");
    // Server-owned metadata and the last-applied copy are gone; the rest is kept.
    let meta = &docs[0]["metadata"];
    for gone in ["uid", "resourceVersion", "generation", "creationTimestamp"] {
        assert!(meta.get(gone).is_none(), "{gone} kept: {meta}");
    }
    assert_eq!(meta["annotations"].as_object().unwrap().len(), 1, "{meta}");
    assert_eq!(
        meta["annotations"]["mirror.example.com/owner"],
        "platform-team"
    );
    assert_eq!(meta["labels"]["operators.openshift.org/catalog"], "true");
    // Same sources and mirrors, in the ICSP's order.
    assert_eq!(
        docs[1]["spec"]["imageDigestMirrors"][2],
        serde_json::json!({"mirrors": ["backup.corp.example.com/openshift4", "mirror.corp.example.com:5000/openshift4"], "source": "registry.redhat.io/openshift4"})
    );
    // The replacements really render what the ICSPs did.
    let dir = TempDir::new().unwrap();
    let replaced = write(&dir, "idms.yaml", &text);
    let only_new = write(
        &dir,
        "rest.yaml",
        &std::fs::read_to_string(CLUSTER)
            .unwrap()
            .split("- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    // Drop the ICSPs: keep the List header only.
                    "apiVersion: v1\nkind: List\nitems:\n".to_string()
                } else {
                    format!(
                        "- apiVersion: config.openshift.io/v1\n  kind: ImageDigestMirrorSet{part}"
                    )
                }
            })
            .collect::<String>(),
    );
    let file = "/etc/containers/registries.conf";
    let before = bin()
        .args(["render", "-f", CLUSTER, "--file", file])
        .output()
        .unwrap();
    let after = bin()
        .args(["render", "-f", &only_new, "-f", &replaced, "--file", file])
        .output()
        .unwrap();
    assert!(
        after.status.success(),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
    assert_eq!(before.stdout, after.stdout);
}

#[test]
fn json_output_is_a_list() {
    let out = bin()
        .args(["migrate-icsp", "-f", CLUSTER, "-o", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["kind"], "List");
    assert_eq!(v["items"].as_array().unwrap().len(), 2);
}

#[test]
fn dest_dir_writes_files_once_and_never_overwrites() {
    let dir = TempDir::new().unwrap();
    let dest = dir.path().join("out");
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "wrote ImageDigestMirrorSet to {}",
            dest.join("imagedigestmirrorset_operators.yaml").display()
        )));
    let mut names: Vec<String> = std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "imagedigestmirrorset_operators.yaml",
            "imagedigestmirrorset_release.yaml"
        ]
    );
    // Again: identical files are left alone.
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .success()
        .stderr(predicate::str::contains("unchanged"))
        .stdout("");
    // A different file of the same name: refused, nothing written.
    let release = dest.join("imagedigestmirrorset_release.yaml");
    std::fs::write(&release, "edited by hand\n").unwrap();
    std::fs::remove_file(dest.join("imagedigestmirrorset_operators.yaml")).unwrap();
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "would overwrite 1 file(s) with different content",
        ));
    assert_eq!(
        std::fs::read_to_string(&release).unwrap(),
        "edited by hand\n"
    );
    assert!(!dest.join("imagedigestmirrorset_operators.yaml").exists());
}

#[test]
fn tag_mirrors_come_with_a_warning_and_keep_digest_pulls() {
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--with-tag-mirrors"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning: --with-tag-mirrors"))
        .stderr(predicate::str::contains(
            "with tag mirrors: pulls by digest are unchanged",
        ))
        .stderr(predicate::str::contains(
            "+    pull-from-mirror = \"tag-only\"",
        ))
        .stdout(predicate::str::contains("kind: ImageTagMirrorSet"))
        .stdout(predicate::str::contains("imageTagMirrors:"));
}

#[test]
fn invalid_mirror_is_refused_naming_icsp_entry_and_rule() {
    let dir = TempDir::new().unwrap();
    let f = write(
        &dir,
        "bad.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: bad\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/ok\n    mirrors: [m.example.com/ok]\n  - source: quay.io/x\n    mirrors: [\"https://m.example.com/x\"]\n",
    );
    bin()
        .args(["migrate-icsp", "-f", &f])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/bad entry 1: ImageDigestMirrorSet/bad: spec.imageDigestMirrors[1].mirrors[0]: \"https://m.example.com/x\" does not match the mirror pattern",
        ))
        .stdout("");
}

#[test]
fn an_existing_idms_of_the_same_name_with_other_mirrors_is_refused() {
    let dir = TempDir::new().unwrap();
    let f = write(
        &dir,
        "clash.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: same\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: same\nspec:\n  imageDigestMirrors:\n  - source: quay.io/y\n    mirrors: [m.example.com/y]\n",
    );
    bin()
        .args(["migrate-icsp", "-f", &f])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "ImageDigestMirrorSet/same already exists with other mirrors than ImageContentSourcePolicy/same",
        ));
}

#[test]
fn a_configuration_the_mco_refuses_is_not_migrated() {
    let dir = TempDir::new().unwrap();
    let f = write(
        &dir,
        "never.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: a\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/team/app\n    mirrors: [m1.example.com/app]\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: z\nspec:\n  imageDigestMirrors:\n  - source: quay.io/team/app\n    mirrorSourcePolicy: NeverContactSource\n    mirrors: [m2.example.com/app]\n",
    );
    bin()
        .args(["migrate-icsp", "-f", &f])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "the MCO already refuses to render the current objects",
        ))
        .stderr(predicate::str::contains("conflicting mirrorSourcePolicy"));
}

#[test]
fn empty_and_covered_entries_are_warned_about() {
    let dir = TempDir::new().unwrap();
    let f = write(
        &dir,
        "w.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: dup\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n  - source: quay.io/empty\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: has-x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n",
    );
    bin()
        .args(["migrate-icsp", "-f", &f])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/dup entry 1 (quay.io/empty) has no mirrors",
        ));
}

/// Issue 36: an ICSP entry whose source has no registry host is carried
/// over as is, with a warning saying it applies to none of the images
/// meant, before or after, and the proof counts it rather than calling it
/// plainly equivalent. Sources with a host say nothing.
#[test]
fn issue_36_a_source_without_a_registry_host_is_not_carried_over_silently() {
    let out = bin()
        .args(["migrate-icsp", "-f", "tests/fixtures/issue-36/icsp.yaml"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warning = "warning: ImageContentSourcePolicy/operators entry 0 (operator-framework) does not apply to the images meant: \"operator-framework\" is no registry host (no \".\" or \":\", not \"localhost\"): an image written operator-framework/... is the Docker Hub name docker.io/operator-framework/..., so the rule matches no image but those of a registry operator-framework:PORT (containers/image's port rule); its replacement is carried over as is and does not either (the nodes' files stay the same, and those images use these mirrors neither before nor after); in the replacement, write the source with its registry host (for example quay.io/operator-framework, or docker.io/operator-framework for Docker Hub)\n";
    let proof = "equivalent: nodes get byte-identical files from the 1 ImageContentSourcePolicy object and from the 1 ImageDigestMirrorSet object replacing them (2 sources, 1 of which has no registry host: see the warning above; 1 file rendered)\n";
    assert!(stderr.contains(warning), "{stderr}");
    assert!(stderr.ends_with(proof), "{stderr}");
    assert_eq!(stderr.matches("no registry host").count(), 2, "{stderr}");
    // The replacement keeps the source as written: the tool does not guess.
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(
        docs[0]["spec"]["imageDigestMirrors"][0]["source"],
        "operator-framework"
    );
    // Sources with a host: no such warning, the plain proof.
    bin()
        .args(["migrate-icsp", "-f", CLUSTER])
        .assert()
        .success()
        .stderr(predicate::str::contains("registry host").not());
}

#[test]
fn nothing_to_migrate() {
    bin()
        .args([
            "migrate-icsp",
            "-f",
            "examples/disconnected-cluster/cluster-scoped-resources/config.openshift.io/imagedigestmirrorsets",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("nothing to migrate"))
        .stdout("");
}

#[test]
fn usage_errors() {
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--apply"])
        .assert()
        .code(2);
    bin()
        .args(["migrate-icsp", "--delete-icsp"])
        .assert()
        .code(2);
}

// ---- live ----

struct Live {
    server: FakeApiServer,
    _dir: TempDir,
    kubeconfig: std::path::PathBuf,
}

fn live(builder: Builder) -> Live {
    let server = builder.objects_from(CLUSTER).start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    Live {
        server,
        _dir: dir,
        kubeconfig,
    }
}

impl Live {
    fn cmd(&self) -> Command {
        let mut cmd = bin();
        cmd.env("KUBECONFIG", &self.kubeconfig);
        cmd
    }

    fn writes(&self) -> Vec<Logged> {
        self.server
            .log()
            .into_iter()
            .filter(Logged::writes)
            .collect()
    }
}

#[test]
fn apply_dry_runs_first_and_needs_confirmation() {
    let l = live(Builder::openshift());
    // No terminal and no --yes: the plan is shown, nothing is written.
    l.cmd()
        .args(["migrate-icsp", "--apply", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(predicate::str::is_match(r"ImageDigestMirrorSet/operators\s+create").unwrap())
        .stderr(predicate::str::contains("not confirmed: no terminal"));
    assert!(l.writes().is_empty(), "{:?}", l.writes());
    let dry: Vec<Logged> = l.server.log().into_iter().filter(Logged::dry_run).collect();
    assert_eq!(
        dry.len(),
        4,
        "two dry-run applies and two dry-run deletes: {dry:?}"
    );
    assert!(dry.iter().all(|d| d.method != "PATCH"
        || d.query.get("fieldManager").map(String::as_str) == Some("kubectl-mirrorpolicy")));
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
}

#[test]
fn apply_and_delete_then_rerun_is_idempotent() {
    let l = live(Builder::openshift());
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ImageDigestMirrorSet/operators created",
        ));
    assert_eq!(
        l.server.names("imagedigestmirrorsets"),
        ["operators", "release", "ubi"]
    );
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
    // Every real write came after its dry run.
    let log = l.server.log();
    let first_write = log.iter().position(Logged::writes).unwrap();
    assert!(log[..first_write].iter().any(Logged::dry_run));
    // Again, now deleting: the replacements are unchanged, the ICSPs go.
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stderr(predicate::str::is_match(r"ImageDigestMirrorSet/release\s+unchanged").unwrap())
        .stdout(predicate::str::contains(
            "ImageContentSourcePolicy/release deleted",
        ));
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
    // Once more: nothing left to migrate.
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stderr(predicate::str::contains("nothing to migrate"));
    let stored = l
        .server
        .object("imagedigestmirrorsets", "", "operators")
        .unwrap();
    assert_eq!(
        stored["metadata"]["labels"]["operators.openshift.org/catalog"],
        "true"
    );
}

#[test]
fn a_dry_run_conflict_stops_before_any_write() {
    let l = live(Builder::openshift().fault(
        Some(hyper::Method::PATCH),
        "/imagedigestmirrorsets/release",
        0,
        None,
        Fault::Status(409),
    ));
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(predicate::str::is_match(r"ImageDigestMirrorSet/release\s+conflict").unwrap())
        .stderr(predicate::str::contains("nothing was written"));
    assert!(l.writes().is_empty(), "{:?}", l.writes());
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
}

#[test]
fn a_failure_half_way_loses_nothing_and_a_rerun_converges() {
    // The second real apply fails (its dry run went through).
    let l = live(Builder::openshift());
    l.server.add_fault(
        Some(hyper::Method::PATCH),
        "/imagedigestmirrorsets/release",
        1,
        Some(1),
        Fault::Status(500),
    );
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(3);
    assert_eq!(
        l.server.names("imagedigestmirrorsets"),
        ["operators", "ubi"]
    );
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
    assert!(l.writes().iter().all(|w| w.method != "DELETE"));
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stderr(predicate::str::is_match(r"ImageDigestMirrorSet/operators\s+unchanged").unwrap());
    assert_eq!(
        l.server.names("imagedigestmirrorsets"),
        ["operators", "release", "ubi"]
    );
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
}

#[test]
fn an_icsp_whose_idms_is_missing_is_never_deleted() {
    // The apply of `release` answers 200 but the server keeps nothing.
    let l = live(Builder::openshift());
    l.server.add_fault(
        Some(hyper::Method::PATCH),
        "/imagedigestmirrorsets/release",
        1,
        None,
        Fault::Status(200),
    );
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/release kept: ImageDigestMirrorSet/release is missing on the server",
        ));
    assert_eq!(l.server.names("imagecontentsourcepolicies"), ["release"]);
}

// ---- issue 12: delete only what was verified ----

/// A merge patch that adds a rule to ICSP/operators, as someone editing it
/// would (`kubectl patch --type merge` replaces the whole list).
fn new_rule_for_operators() -> Change {
    Change::merge_patch(
        "imagecontentsourcepolicies",
        "operators",
        serde_json::json!({"spec": {"repositoryDigestMirrors": [
            {"mirrors": ["mirror.corp.example.com:5000/redhat"], "source": "registry.redhat.io/redhat"},
            {"mirrors": ["mirror.corp.example.com:5000/openshift4", "backup.corp.example.com/openshift4"], "source": "registry.redhat.io/openshift4"},
            {"mirrors": ["mirror.corp.example.com:5000/new-team"], "source": "quay.io/new-team"},
        ]}}),
    )
}

fn sources_of(object: &serde_json::Value, list: &str) -> Vec<String> {
    object["spec"][list]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["source"].as_str().unwrap().to_string())
        .collect()
}

/// The uid and resourceVersion of a stored object.
fn version_of(l: &Live, plural: &str, name: &str) -> (String, String) {
    let o = l.server.object(plural, "", name).unwrap();
    (
        o["metadata"]["uid"].as_str().unwrap().to_string(),
        o["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

/// The DELETE requests of the ICSP `name` (dry runs included).
fn deletes_of(l: &Live, name: &str) -> Vec<Logged> {
    l.server
        .log()
        .into_iter()
        .filter(|r| {
            r.method == "DELETE"
                && r.path
                    .ends_with(&format!("/imagecontentsourcepolicies/{name}"))
        })
        .collect()
}

#[test]
fn issue_12_an_icsp_edited_while_the_plan_is_shown_stops_before_any_write() {
    // The edit lands once the plan's last dry run is answered: while a
    // user would be reading the plan at the prompt.
    let l = live(Builder::openshift().change_on(
        Trigger::after_dry_run(hyper::Method::DELETE, "/imagecontentsourcepolicies/release"),
        new_rule_for_operators(),
    ));
    let (_, before) = version_of(&l, "imagecontentsourcepolicies", "operators");
    let out = l
        .cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(l.server.changes_made());
    let (_, after) = version_of(&l, "imagecontentsourcepolicies", "operators");
    assert!(
        stderr.contains(&format!(
            "ImageContentSourcePolicy/operators changed on the server after it was read (resourceVersion {before} → {after}) while the plan was shown; nothing was written"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("run `kubectl mirrorpolicy migrate-icsp --apply --delete-icsp` again"),
        "{stderr}"
    );
    assert!(l.writes().is_empty(), "{:?}", l.writes());
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
    // Running again migrates the ICSP as it is now, new rule included.
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "ImageContentSourcePolicy/operators deleted",
        ));
    let idms = l
        .server
        .object("imagedigestmirrorsets", "", "operators")
        .unwrap();
    assert!(
        sources_of(&idms, "imageDigestMirrors").contains(&"quay.io/new-team".to_string()),
        "{idms}"
    );
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
}

#[test]
fn issue_12_an_icsp_edited_after_the_apply_is_kept_with_its_new_rule() {
    // The edit lands just before the first real write: after the check
    // that follows the prompt, so the replacements are applied from the
    // version read before. The check before the deletes finds the change.
    let l = live(Builder::openshift().change_on(Trigger::first_write(), new_rule_for_operators()));
    let (uid, release_rv) = version_of(&l, "imagecontentsourcepolicies", "release");
    let out = l
        .cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(l.server.changes_made());
    assert!(
        stderr.contains("ImageContentSourcePolicy/operators changed on the server after it was read (resourceVersion 81234 → "),
        "{stderr}"
    );
    assert!(stderr.contains("): not deleted"), "{stderr}");
    assert!(
        stderr.contains("run `kubectl mirrorpolicy migrate-icsp --apply --delete-icsp` again"),
        "{stderr}"
    );
    assert!(
        stderr.contains("kubectl get imagecontentsourcepolicy operators -o yaml"),
        "{stderr}"
    );
    // The new rule is still on the cluster; the unchanged ICSP went, at
    // the version that was proven.
    assert_eq!(l.server.names("imagecontentsourcepolicies"), ["operators"]);
    let kept = l
        .server
        .object("imagecontentsourcepolicies", "", "operators")
        .unwrap();
    assert!(sources_of(&kept, "repositoryDigestMirrors").contains(&"quay.io/new-team".to_string()));
    let real: Vec<Logged> = deletes_of(&l, "release")
        .into_iter()
        .filter(Logged::writes)
        .collect();
    assert_eq!(real.len(), 1, "{real:?}");
    assert_eq!(real[0].json()["preconditions"]["uid"], uid.as_str());
    assert_eq!(
        real[0].json()["preconditions"]["resourceVersion"],
        release_rv.as_str()
    );
    assert!(deletes_of(&l, "operators").iter().all(|d| d.dry_run()));
    // The hint holds: a run as it is refuses the old replacement ...
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "ImageDigestMirrorSet/operators already exists with other mirrors than ImageContentSourcePolicy/operators",
        ));
    // ... and once it is deleted, the ICSP is migrated as it is now.
    l.server.change(&Change::Remove {
        plural: "imagedigestmirrorsets".into(),
        name: "operators".into(),
    });
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success();
    let idms = l
        .server
        .object("imagedigestmirrorsets", "", "operators")
        .unwrap();
    assert!(sources_of(&idms, "imageDigestMirrors").contains(&"quay.io/new-team".to_string()));
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
}

#[test]
fn issue_12_an_icsp_edited_right_before_its_delete_is_refused_by_the_server() {
    // The edit lands between the last check and the DELETE itself: only
    // the preconditions stop it (409), and no later ICSP is deleted.
    let l = live(Builder::openshift().change_on(
        Trigger::before_write(
            hyper::Method::DELETE,
            "/imagecontentsourcepolicies/operators",
        ),
        new_rule_for_operators(),
    ));
    let out = l
        .cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(l.server.changes_made());
    assert!(
        stderr.contains("equivalent on the server: the files rendered from the objects there now stay byte-identical without ImageContentSourcePolicy/operators, ImageContentSourcePolicy/release"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ImageContentSourcePolicy/operators changed on the server after it was read (resourceVersion 81234 → "),
        "{stderr}"
    );
    assert!(
        stderr.contains("ImageContentSourcePolicy/release not deleted either"),
        "{stderr}"
    );
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
    let real: Vec<Logged> = deletes_of(&l, "operators")
        .into_iter()
        .filter(Logged::writes)
        .collect();
    assert_eq!(real.len(), 1, "{real:?}");
    assert_eq!(real[0].status, 409);
    assert_eq!(real[0].json()["preconditions"]["resourceVersion"], "81234");
    assert!(deletes_of(&l, "release").iter().all(|d| d.dry_run()));
}

#[test]
fn issue_12_unchanged_icsps_are_deleted_with_preconditions() {
    let l = live(Builder::openshift());
    let versions: Vec<(String, (String, String))> = ["operators", "release"]
        .iter()
        .map(|n| {
            (
                n.to_string(),
                version_of(&l, "imagecontentsourcepolicies", n),
            )
        })
        .collect();
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stderr(predicate::str::contains("equivalent on the server"))
        .stderr(
            predicate::str::is_match(
                r"ImageContentSourcePolicy/operators\s+delete at resourceVersion 81234, once",
            )
            .unwrap(),
        )
        .stdout(predicate::str::contains(
            "ImageContentSourcePolicy/operators deleted",
        ))
        .stdout(predicate::str::contains(
            "ImageContentSourcePolicy/release deleted",
        ));
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
    for (name, (uid, rv)) in versions {
        let deletes = deletes_of(&l, &name);
        // The dry run and the delete: both at the version that was read.
        assert_eq!(deletes.len(), 2, "{deletes:?}");
        assert!(deletes[0].dry_run() && deletes[1].writes(), "{deletes:?}");
        for d in deletes {
            let body = d.json();
            assert_eq!(body["kind"], "DeleteOptions", "{}", d.body);
            assert_eq!(body["preconditions"]["uid"], uid.as_str(), "{}", d.body);
            assert_eq!(
                body["preconditions"]["resourceVersion"],
                rv.as_str(),
                "{}",
                d.body
            );
        }
    }
}

#[test]
fn issue_12_delete_icsp_without_apply_is_a_usage_error() {
    for args in [
        vec!["migrate-icsp", "-f", CLUSTER, "--delete-icsp"],
        vec!["migrate-icsp", "--delete-icsp"],
    ] {
        bin().args(&args).assert().code(2).stdout("").stderr(
            predicate::str::contains("--delete-icsp").and(predicate::str::contains("--apply")),
        );
    }
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--delete-icsp"])
        .assert()
        .stderr(predicate::str::contains(
            "--delete-icsp works only with --apply",
        ))
        .stderr(predicate::str::contains(
            "--apply works on the live cluster, not on -f files",
        ));
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--yes"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--yes works only with --apply"));
}

#[test]
fn issue_12_a_missing_idms_crd_is_named_as_such() {
    let l = live(Builder::openshift().without("imagedigestmirrorsets.config.openshift.io"));
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(
            predicate::str::is_match(
                r"ImageDigestMirrorSet/operators\s+cannot create: the server does not serve imagedigestmirrorsets.config.openshift.io \(the ImageDigestMirrorSet CRD is missing\)",
            )
            .unwrap(),
        )
        .stderr(predicate::str::contains(
            "the cluster does not serve imagedigestmirrorsets.config.openshift.io: its CRD is missing",
        ))
        .stderr(predicate::str::contains("holds other mirrors").not());
    assert!(l.writes().is_empty(), "{:?}", l.writes());
}

#[test]
fn issue_12_failed_writes_say_what_was_being_written() {
    let l = live(Builder::openshift());
    // The real apply of `release` fails (its dry run went through).
    l.server.add_fault(
        Some(hyper::Method::PATCH),
        "/imagedigestmirrorsets/release",
        1,
        Some(1),
        Fault::Status(500),
    );
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "applying ImageDigestMirrorSet/release on https://",
        ))
        .stderr(predicate::str::contains("failed (PATCH /apis/config.openshift.io/v1/imagedigestmirrorsets/release?fieldManager=kubectl-mirrorpolicy): 500"))
        .stderr(predicate::str::contains("reading").not());
    // The real delete of `operators` fails (its dry run went through).
    l.server.add_fault(
        Some(hyper::Method::DELETE),
        "/imagecontentsourcepolicies/operators",
        1,
        Some(1),
        Fault::Status(500),
    );
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains(
            "deleting ImageContentSourcePolicy/operators on https://",
        ))
        .stderr(predicate::str::contains("reading").not());
    assert_eq!(
        l.server.names("imagecontentsourcepolicies"),
        ["operators", "release"]
    );
}

// ---- issue 13: an I/O error keeps its cause ----

#[test]
fn issue_13_a_dest_dir_that_cannot_be_read_shows_why() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder\n").unwrap();
    let dest = file.join("out");
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "error: cannot read {}\n  caused by: Not a directory\n",
            dest.join("imagedigestmirrorset_operators.yaml").display()
        )))
        .stderr(predicate::str::contains("os error").not());
    assert_eq!(tree(dir.path()), ["a-file"]);
}

#[cfg(unix)]
#[test]
fn issue_13_a_dest_dir_that_cannot_be_created_shows_why() {
    let dir = TempDir::new().unwrap();
    // A link to nothing: the files under it are not there, and the folder
    // cannot be made through it.
    let link = dir.path().join("gone");
    std::os::unix::fs::symlink(dir.path().join("missing"), &link).unwrap();
    let dest = link.join("out");
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "error: cannot create {}\n  caused by: File exists\n",
            dest.display()
        )))
        .stderr(predicate::str::contains("os error").not());
    assert_eq!(tree(dir.path()), ["gone"]);
}

// ---- issue 12: --dest-dir never writes outside the folder ----

fn icsp_named(name: &str, source: &str) -> String {
    format!(
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: {}\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/{source}\n    mirrors: [m.example.com/{source}]\n",
        serde_json::to_string(name).unwrap()
    )
}

/// Every file under `dir`, relative, sorted (links included, not followed).
fn tree(dir: &std::path::Path) -> Vec<String> {
    fn walk(base: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(base, &path, out);
            } else {
                out.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn issue_12_a_name_with_slashes_never_leaves_the_dest_dir() {
    let dir = TempDir::new().unwrap();
    let work = dir.path().join("work");
    let dest = work.join("out");
    // With this folder there, the name's `..` would resolve.
    std::fs::create_dir_all(dest.join("imagedigestmirrorset_a")).unwrap();
    let input = dir.path().join("bad.yaml");
    std::fs::write(&input, icsp_named("a/../../escaped", "x")).unwrap();
    bin()
        .current_dir(&work)
        .args(["migrate-icsp", "-f"])
        .arg(&input)
        .arg("--dest-dir")
        .arg(&dest)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "{}:1: ImageContentSourcePolicy/a/../../escaped: metadata.name: Invalid value: \"a/../../escaped\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
            input.display()
        )))
        .stderr(predicate::str::contains("nothing written"));
    assert_eq!(tree(dir.path()), ["bad.yaml"]);
}

#[test]
fn issue_12_names_the_api_server_refuses_are_refused_before_any_write() {
    for bad in ["", "..", "UPPER", "../../outside/pwned"] {
        let dir = TempDir::new().unwrap();
        // A folder of inputs: the message names the file inside it.
        let inputs = dir.path().join("in");
        std::fs::create_dir(&inputs).unwrap();
        std::fs::write(inputs.join("a-good.yaml"), icsp_named("good", "good")).unwrap();
        std::fs::write(inputs.join("b-bad.yaml"), icsp_named(bad, "bad")).unwrap();
        let dest = dir.path().join("deep").join("er").join("out");
        let shown = if bad.is_empty() {
            "ImageContentSourcePolicy (no name)".to_string()
        } else {
            format!("ImageContentSourcePolicy/{bad}")
        };
        bin()
            .current_dir(dir.path())
            .args(["migrate-icsp", "-f"])
            .arg(&inputs)
            .arg("--dest-dir")
            .arg(&dest)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "{}:1: {shown}: metadata.name: ",
                inputs.join("b-bad.yaml").display()
            )))
            .stderr(predicate::str::contains("nothing written"));
        // Not even the valid object's file: all or nothing.
        assert_eq!(
            tree(dir.path()),
            ["in/a-good.yaml", "in/b-bad.yaml"],
            "{bad:?}"
        );
        // On stdout too: nothing the API server would refuse is printed.
        bin()
            .args(["migrate-icsp", "-f"])
            .arg(&inputs)
            .assert()
            .code(2)
            .stdout("");
    }
}

#[test]
fn issue_12_a_file_name_too_long_for_the_file_system_is_refused() {
    let dir = TempDir::new().unwrap();
    // A valid name (253 characters) whose file name would be 279 bytes.
    let name = format!("{}.{}", "a".repeat(126), "b".repeat(126));
    let input = write(&dir, "long.yaml", &icsp_named(&name, "x"));
    let dest = dir.path().join("out");
    bin()
        .args(["migrate-icsp", "-f", &input, "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "1 file name(s) too long for the file system (at most 255 bytes), nothing written",
        ))
        .stderr(predicate::str::contains("would be 279 bytes"))
        // Its own error: the name is one the API server takes.
        .stderr(predicate::str::contains("invalid name").not())
        .stderr(predicate::str::contains("the API server takes only names").not())
        .stderr(predicate::str::contains(
            "hint: the API server takes these names, but a file system does not take such file names",
        ));
    assert!(!dest.exists());
    // On stdout it is fine: the API server takes the name.
    bin()
        .args(["migrate-icsp", "-f", &input])
        .assert()
        .success();
}

#[cfg(unix)]
#[test]
fn issue_12_a_link_at_the_old_temporary_name_is_not_followed() {
    let dir = TempDir::new().unwrap();
    let dest = dir.path().join("out");
    std::fs::create_dir(&dest).unwrap();
    let target = dir.path().join("precious.txt");
    std::fs::write(&target, "precious\n").unwrap();
    let link = dest.join("imagedigestmirrorset_operators.yaml.tmp");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    let written = dest.join("imagedigestmirrorset_operators.yaml");
    let meta = std::fs::symlink_metadata(&written).unwrap();
    assert!(meta.is_file());
    assert!(std::fs::read_to_string(&written)
        .unwrap()
        .contains("name: operators"));
    // Readable as a file written the usual way (not the 0600 of a temporary file).
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(meta.permissions().mode() & 0o777, 0o600);
    // No temporary file is left behind.
    assert_eq!(
        tree(&dest),
        [
            "imagedigestmirrorset_operators.yaml",
            "imagedigestmirrorset_operators.yaml.tmp",
            "imagedigestmirrorset_release.yaml"
        ]
    );
}

#[cfg(unix)]
#[test]
fn issue_12_a_link_at_the_file_name_is_refused() {
    let dir = TempDir::new().unwrap();
    let dest = dir.path().join("out");
    std::fs::create_dir(&dest).unwrap();
    let outside = dir.path().join("outside").join("new.yaml");
    std::fs::create_dir(outside.parent().unwrap()).unwrap();
    let link = dest.join("imagedigestmirrorset_release.yaml");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    bin()
        .args(["migrate-icsp", "-f", CLUSTER, "--dest-dir"])
        .arg(&dest)
        .assert()
        .code(4)
        .stderr(predicate::str::contains(format!(
            "{} (a symbolic link: never followed)",
            link.display()
        )))
        .stdout("");
    assert!(!outside.exists());
    assert_eq!(tree(&dest), ["imagedigestmirrorset_release.yaml"]);
}

#[test]
fn issue_12_an_icsp_edited_during_the_dry_runs_is_a_conflict_in_the_plan() {
    // The edit lands between the read and the ICSP's dry-run delete,
    // which carries the preconditions: the server's 409 is in the plan.
    let l = live(Builder::openshift().change_on(
        Trigger {
            method: Some(hyper::Method::PATCH),
            path: "/imagedigestmirrorsets/release".into(),
            dry_run: Some(true),
            skip: 0,
            after: true,
        },
        new_rule_for_operators(),
    ));
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .code(4)
        .stderr(
            predicate::str::is_match(
                r"ImageContentSourcePolicy/operators\s+conflict: Operation cannot be fulfilled on imagecontentsourcepolicies.operator.openshift.io .operators.: .*Precondition failed: ResourceVersion in precondition: 81234",
            )
            .unwrap(),
        )
        .stderr(predicate::str::contains(
            "an ImageContentSourcePolicy changed since it was read: run again",
        ));
    assert!(l.server.changes_made());
    assert!(l.writes().is_empty(), "{:?}", l.writes());
}

#[test]
fn issue_12_tag_mirrors_are_applied_and_the_icsps_deleted_after_the_proof() {
    let l = live(Builder::openshift());
    l.cmd()
        .args([
            "migrate-icsp",
            "--apply",
            "--yes",
            "--delete-icsp",
            "--with-tag-mirrors",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("equivalent on the server"));
    assert_eq!(
        l.server.names("imagetagmirrorsets"),
        ["operators", "release"]
    );
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());
}

#[test]
fn issue_14_positional_files_as_oc_adm_migrate_icsp() {
    let dir = TempDir::new().unwrap();
    let first = write(&dir, "icsp.yaml", "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: one\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/one\n    mirrors: [mirror.example.com/one]\n");
    let second = write(&dir, "icsp-2.yaml", "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: two\nspec:\n  repositoryDigestMirrors:\n  - source: registry.example.com/two\n    mirrors: [mirror.example.com/two]\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    bin()
        .args(["migrate-icsp", &first, &second, "--dest-dir"])
        .arg(&out)
        .assert()
        .success();
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "imagedigestmirrorset_one.yaml",
            "imagedigestmirrorset_two.yaml"
        ]
    );
    // Positional files are offline input: --apply refuses them as it refuses -f.
    bin()
        .args(["migrate-icsp", &first, "--apply"])
        .assert()
        .code(2);
}

// ---- issue 28: finalizers, GitOps markers, kubectl's List, messages ----

/// An ICSP as a GitOps tool leaves it: Argo CD's tracking annotation and
/// label, a finalizer, an owner.
const HELD: &str = "apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: held
  finalizers: [example.com/hold]
  labels:
    app.kubernetes.io/instance: platform
    team: mirrors
  annotations:
    argocd.argoproj.io/tracking-id: platform:operator.openshift.io/ImageContentSourcePolicy:/held
  ownerReferences:
  - apiVersion: argoproj.io/v1alpha1
    kind: Application
    name: platform
    uid: 11111111-2222-4333-8444-555555555555
spec:
  repositoryDigestMirrors:
  - source: quay.io/held
    mirrors: [m.example.com/held]
";

fn held_server(builder: Builder) -> Live {
    let server = builder.objects_from_yaml(HELD).start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    Live {
        server,
        _dir: dir,
        kubeconfig,
    }
}

fn remove_finalizers(name: &str) -> Change {
    Change::merge_patch(
        "imagecontentsourcepolicies",
        name,
        serde_json::json!({"metadata": {"finalizers": null}}),
    )
}

fn real_kubectl(kubeconfig: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("kubectl")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", "/nonexistent-home-for-tests")
        .output()
        .expect("kubectl is installed")
}

#[test]
fn issue_28_an_icsp_that_finalizers_hold_is_not_reported_deleted() {
    let l = held_server(Builder::openshift());
    let out = l
        .cmd()
        .args([
            "migrate-icsp",
            "--apply",
            "--yes",
            "--delete-icsp",
            "--timeout",
            "2s",
        ])
        .assert()
        .code(3)
        .stdout(predicate::str::contains("ImageDigestMirrorSet/held created"))
        .stdout(predicate::str::contains("ImageContentSourcePolicy/held deleted").not())
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/held marked for deletion, held by finalizers [example.com/hold]; waiting up to 2s",
        ))
        .stderr(predicate::str::contains(
            "error: ImageContentSourcePolicy/held marked for deletion, held by finalizers [example.com/hold]: still there after 2s",
        ))
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("hint: an ICSP goes once whoever set its finalizers removes them"),
        "{stderr}"
    );
    // The server marked it and keeps it; it was read until the deadline.
    let stored = l
        .server
        .object("imagecontentsourcepolicies", "", "held")
        .unwrap();
    assert!(
        stored["metadata"]["deletionTimestamp"].is_string(),
        "{stored}"
    );
    let reads = l
        .server
        .log()
        .iter()
        .filter(|r| r.method == "GET" && r.path.ends_with("/imagecontentsourcepolicies/held"))
        .count();
    assert!(reads >= 3, "polled {reads} time(s)");

    // The real kubectl, on the same kind of object, fails the same way.
    let k = held_server(Builder::openshift());
    let kubectl = real_kubectl(
        &k.kubeconfig,
        &["delete", "imagecontentsourcepolicy", "held", "--timeout=2s"],
    );
    assert_eq!(kubectl.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&kubectl.stderr)
            .contains("timed out waiting for the condition on imagecontentsourcepolicies/held"),
        "{}",
        String::from_utf8_lossy(&kubectl.stderr)
    );
    assert!(k
        .server
        .object("imagecontentsourcepolicies", "", "held")
        .is_some());
}

#[test]
fn issue_28_a_delete_waits_for_the_finalizers_to_go() {
    let trigger =
        || Trigger::before_write(hyper::Method::DELETE, "imagecontentsourcepolicies/held");
    let later = std::time::Duration::from_millis(1500);
    let l =
        held_server(Builder::openshift().change_after(trigger(), later, remove_finalizers("held")));
    let started = std::time::Instant::now();
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--delete-icsp"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/held marked for deletion, held by finalizers [example.com/hold]; waiting up to 60s",
        ))
        .stdout(predicate::str::contains("ImageContentSourcePolicy/held deleted"));
    assert!(started.elapsed() >= later);
    assert!(l.server.names("imagecontentsourcepolicies").is_empty());

    // As the real kubectl does: it waits, then succeeds.
    let k =
        held_server(Builder::openshift().change_after(trigger(), later, remove_finalizers("held")));
    let kubectl = real_kubectl(
        &k.kubeconfig,
        &[
            "delete",
            "imagecontentsourcepolicy",
            "held",
            "--timeout=20s",
        ],
    );
    assert!(
        kubectl.status.success(),
        "{}",
        String::from_utf8_lossy(&kubectl.stderr)
    );
    assert!(k.server.names("imagecontentsourcepolicies").is_empty());
}

#[test]
fn issue_28_timeout_is_bounded_and_needs_delete_icsp() {
    let l = held_server(Builder::openshift());
    l.cmd()
        .args([
            "migrate-icsp",
            "--apply",
            "--yes",
            "--delete-icsp",
            "--timeout",
            "0",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--timeout: 0 would wait forever"));
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes", "--timeout", "5s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--delete-icsp"));
    assert!(l.writes().is_empty(), "{:?}", l.writes());
}

#[test]
fn issue_28_the_plan_names_finalizers_owners_and_gitops_markers() {
    let l = held_server(Builder::openshift());
    // No terminal, no --yes: the plan is shown, nothing written.
    let out = l
        .cmd()
        .args(["migrate-icsp", "--apply", "--delete-icsp"])
        .assert()
        .code(4)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    for want in [
        "ImageContentSourcePolicy/held:\n  finalizers: [example.com/hold]\n  ownerReferences: Application/platform\n  GitOps: label app.kubernetes.io/instance=platform (Argo CD), annotation argocd.argoproj.io/tracking-id=platform:operator.openshift.io/ImageContentSourcePolicy:/held (Argo CD)\n",
        "warning: ImageContentSourcePolicy/held is managed by Argo CD: a GitOps tool recreates an object deleted behind its back",
        "warning: ImageContentSourcePolicy/held has owners (Application/platform): an owner's controller may recreate it once deleted",
        "warning: ImageContentSourcePolicy/held: finalizers [example.com/hold] hold it: its delete only marks it until they are removed; this run waits up to 60s",
        "note: ImageContentSourcePolicy/held: its GitOps markers are not copied to its replacement (label app.kubernetes.io/instance=platform (Argo CD), annotation argocd.argoproj.io/tracking-id=",
    ] {
        assert!(stderr.contains(want), "{want}\n---\n{stderr}");
    }
    assert!(l.writes().is_empty(), "{:?}", l.writes());

    // Applied without --delete-icsp: the holders are shown, no delete warning;
    // the replacement carries the other labels, not the markers.
    l.cmd()
        .args(["migrate-icsp", "--apply", "--yes"])
        .assert()
        .success()
        .stderr(predicate::str::contains("  finalizers: [example.com/hold]"))
        .stderr(predicate::str::contains("is managed by Argo CD").not());
    let idms = l
        .server
        .object("imagedigestmirrorsets", "", "held")
        .unwrap();
    assert_eq!(
        idms["metadata"]["labels"],
        serde_json::json!({"team": "mirrors"})
    );
    assert!(idms["metadata"].get("annotations").is_none(), "{idms}");
    assert!(idms["metadata"].get("finalizers").is_none(), "{idms}");
    assert!(idms["metadata"].get("ownerReferences").is_none(), "{idms}");
}

#[test]
fn issue_28_keep_labels_copies_the_gitops_markers() {
    let dir = TempDir::new().unwrap();
    let input = write(&dir, "held.yaml", HELD);
    let dropped = bin()
        .args(["migrate-icsp", "-f", &input, "-o", "json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("--keep-labels copies them"))
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&dropped).unwrap();
    assert_eq!(
        v["metadata"],
        serde_json::json!({"labels": {"team": "mirrors"}, "name": "held"})
    );
    let kept = bin()
        .args(["migrate-icsp", "-f", &input, "-o", "json", "--keep-labels"])
        .assert()
        .success()
        .stderr(predicate::str::contains("GitOps markers").not())
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&kept).unwrap();
    assert_eq!(
        v["metadata"]["labels"]["app.kubernetes.io/instance"],
        "platform"
    );
    assert!(v["metadata"]["annotations"]["argocd.argoproj.io/tracking-id"].is_string());
    assert!(v["metadata"].get("finalizers").is_none());
}

/// Runs the real `kubectl` on `input` (stdin), against the fake server.
fn kubectl_stdin(
    kubeconfig: &std::path::Path,
    args: &[&str],
    input: &[u8],
) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new("kubectl")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", "/nonexistent-home-for-tests")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl is installed");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn issue_28_every_object_output_is_what_kubectl_applies() {
    let server = Builder::openshift().start();
    let dir = TempDir::new().unwrap();
    let kubeconfig = server.write_kubeconfig(dir.path());
    let apply = ["apply", "--dry-run=client", "-f", "-"];
    // The oracle refuses what the tool printed before: a List without apiVersion.
    let old = br#"{"kind": "List", "items": [{"apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet", "metadata": {"name": "a"}, "spec": {}}]}"#;
    let refused = kubectl_stdin(&kubeconfig, &apply, old);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("apiVersion not set"));
    for args in [
        vec!["migrate-icsp", "-f", CLUSTER, "-o", "json"],
        vec!["migrate-icsp", "-f", CLUSTER, "-o", "yaml"],
        vec![
            "migrate-icsp",
            "-f",
            CLUSTER,
            "-o",
            "json",
            "--with-tag-mirrors",
        ],
        vec![
            "migrate-icsp",
            "-f",
            CLUSTER,
            "-o",
            "yaml",
            "--with-tag-mirrors",
        ],
        vec!["render", "-f", CLUSTER, "-o", "machineconfig"],
    ] {
        let printed = bin().args(&args).output().unwrap();
        assert!(printed.status.success(), "{args:?}");
        let out = kubectl_stdin(&kubeconfig, &apply, &printed.stdout);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&printed.stdout)
        );
        let objects = stdout.lines().filter(|l| l.ends_with("(dry run)")).count();
        let want = match (args[0], args.len()) {
            ("render", _) => 1,
            (_, 6) => 4,
            _ => 2,
        };
        assert_eq!(objects, want, "{args:?}: {stdout}");
    }
    let json = bin()
        .args(["migrate-icsp", "-f", CLUSTER, "-o", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "items", "kind", "metadata"]);
    assert_eq!(v["metadata"], serde_json::json!({"resourceVersion": ""}));
    // The List shape is kubectl's own: what `kubectl get -o json` prints.
    let listed = Builder::openshift().objects_from(CLUSTER).start();
    let listed_kc = listed.write_kubeconfig(dir.path());
    let got = real_kubectl(
        &listed_kc,
        &["get", "imagecontentsourcepolicies", "-o", "json"],
    );
    let k: serde_json::Value = serde_json::from_slice(&got.stdout).unwrap();
    let k_keys: Vec<&String> = k.as_object().unwrap().keys().collect();
    assert_eq!(keys, k_keys);
    assert_eq!(v["apiVersion"], k["apiVersion"]);
    assert_eq!(v["metadata"], k["metadata"]);
}

#[test]
fn issue_28_an_entry_without_mirrors_is_not_already_in_an_idms() {
    let dir = TempDir::new().unwrap();
    let f = write(
        &dir,
        "w.yaml",
        "apiVersion: operator.openshift.io/v1alpha1\nkind: ImageContentSourcePolicy\nmetadata:\n  name: empty\nspec:\n  repositoryDigestMirrors:\n  - source: quay.io/x\n---\napiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: has-x\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.example.com/x]\n",
    );
    bin()
        .args(["migrate-icsp", "-f", &f])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "ImageContentSourcePolicy/empty entry 0 (quay.io/x) has no mirrors",
        ))
        .stderr(predicate::str::contains("already in an existing ImageDigestMirrorSet").not());
}
