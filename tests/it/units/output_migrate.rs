//! The unit tests of `output::migrate` in the binary's library.

use std::path::PathBuf;

use serde_json::json;

use kubectl_mirrorpolicy::output::migrate::*;
use mirrorpolicy::migrate::Problem;
use mirrorpolicy::migrate::{Equivalence, GitOpsMarker, Holders, PlanRow, Replacement, Step};
use mirrorpolicy::objects::{ImageDigestMirrorSet, ImageTagMirrorSet};
use mirrorpolicy::render::pool::REGISTRIES_CONF;
use std::io::{self, Write};
use std::time::Duration;

fn render(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    f(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn replacements() -> Vec<Replacement> {
    let idms: ImageDigestMirrorSet = serde_json::from_value(json!({
        "apiVersion": "config.openshift.io/v1", "kind": "ImageDigestMirrorSet",
        "metadata": {"name": "apps"},
        "spec": {"imageDigestMirrors": [{"source": "registry.example.com/apps",
            "mirrors": ["mirror.example.com/apps"]}]}
    }))
    .unwrap();
    let itms: ImageTagMirrorSet = serde_json::from_value(json!({
        "apiVersion": "config.openshift.io/v1", "kind": "ImageTagMirrorSet",
        "metadata": {"name": "apps"},
        "spec": {"imageTagMirrors": [{"source": "registry.example.com/apps",
            "mirrors": ["mirror.example.com/apps"]}]}
    }))
    .unwrap();
    vec![Replacement::Idms(idms), Replacement::Itms(itms)]
}

#[test]
fn yaml_documents_are_separated_as_oc_writes_them() {
    let all = replacements();
    let text = render(|out| write_yaml(out, &all));
    assert_eq!(
        text,
        "apiVersion: config.openshift.io/v1\n\
         kind: ImageDigestMirrorSet\n\
         metadata:\n\
         \x20   name: apps\n\
         spec:\n\
         \x20   imageDigestMirrors:\n\
         \x20       - mirrors:\n\
         \x20           - mirror.example.com/apps\n\
         \x20         source: registry.example.com/apps\n\
         ---\n\
         apiVersion: config.openshift.io/v1\n\
         kind: ImageTagMirrorSet\n\
         metadata:\n\
         \x20   name: apps\n\
         spec:\n\
         \x20   imageTagMirrors:\n\
         \x20       - mirrors:\n\
         \x20           - mirror.example.com/apps\n\
         \x20         source: registry.example.com/apps\n"
    );
    let one = render(|out| write_yaml(out, &all[..1]));
    assert!(!one.contains("---"), "{one}");
}

#[test]
fn json_is_one_object_or_a_list() {
    let all = replacements();
    let one: serde_json::Value =
        serde_json::from_str(&render(|out| write_json(out, &all[..1]))).unwrap();
    assert_eq!(one["kind"], json!("ImageDigestMirrorSet"));
    assert_eq!(
        one["spec"]["imageDigestMirrors"][0]["mirrors"],
        json!(["mirror.example.com/apps"])
    );
    let text = render(|out| write_json(out, &all));
    assert!(text.ends_with("}\n"), "{text}");
    let list: serde_json::Value = serde_json::from_str(&text).unwrap();
    // As `kubectl get -o json` prints a List: its keys in this order.
    let keys: Vec<&String> = list.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "items", "kind", "metadata"]);
    assert_eq!(list["apiVersion"], json!("v1"));
    assert_eq!(list["kind"], json!("List"));
    assert_eq!(list["metadata"], json!({"resourceVersion": ""}));
    assert_eq!(list["items"][1]["kind"], json!("ImageTagMirrorSet"));
}

#[test]
fn holders_and_what_they_mean_for_a_delete() {
    let holders = [Holders {
        name: "apps".to_string(),
        finalizers: vec!["example.com/hold".to_string()],
        deletion_timestamp: None,
        owners: vec!["Application/platform (controller)".to_string()],
        markers: vec![GitOpsMarker {
            tool: "Argo CD",
            place: "annotation",
            key: "argocd.argoproj.io/tracking-id".to_string(),
            value: "platform:x".to_string(),
        }],
    }];
    let wait = Duration::from_secs(60);
    let shown = render(|out| write_holders(out, &holders, false, wait));
    assert_eq!(
        shown,
        "ImageContentSourcePolicy/apps:\n  finalizers: [example.com/hold]\n  ownerReferences: Application/platform (controller)\n  GitOps: annotation argocd.argoproj.io/tracking-id=platform:x (Argo CD)\n"
    );
    let deleting = render(|out| write_holders(out, &holders, true, wait));
    let warnings: Vec<&str> = deleting.lines().skip(4).collect();
    assert_eq!(
        warnings,
        [
            "warning: ImageContentSourcePolicy/apps is managed by Argo CD: a GitOps tool recreates an object deleted behind its back; remove the ICSP from its Git source (and add the replacement there) rather than deleting it here",
            "warning: ImageContentSourcePolicy/apps has owners (Application/platform (controller)): an owner's controller may recreate it once deleted",
            "warning: ImageContentSourcePolicy/apps: finalizers [example.com/hold] hold it: its delete only marks it until they are removed; this run waits up to 60s for that (--timeout)",
        ]
    );
    for (note, want) in [
        (
            Note::Marked {
                name: "apps",
                finalizers: &["a".to_string(), "b".to_string()],
                wait: Duration::from_millis(1500),
            },
            "ImageContentSourcePolicy/apps marked for deletion, held by finalizers [a, b]; waiting up to 1.5s for them to be removed (--timeout)",
        ),
        (
            Note::Recreated { name: "apps", uid: "u2" },
            "warning: ImageContentSourcePolicy/apps was created again right after its delete (uid u2): a GitOps tool or an owner recreates it; remove it at its source",
        ),
        (
            Note::MarkersNotCopied { name: "apps", markers: &holders[0].markers },
            "note: ImageContentSourcePolicy/apps: its GitOps markers are not copied to its replacement (annotation argocd.argoproj.io/tracking-id=platform:x (Argo CD)): the replacement is in no GitOps source, and a tool would prune it or claim it; --keep-labels copies them",
        ),
    ] {
        assert_eq!(render(|out| write_note(out, &note)), format!("{want}\n"));
    }
}

#[test]
fn unified_diff_names_today_and_after() {
    let text =
        render(|out| write_unified(out, REGISTRIES_CONF, "a = 1\nb = 2\n", "a = 1\nb = 3\n"));
    assert_eq!(
        text,
        "--- /etc/containers/registries.conf (today)\n\
         +++ /etc/containers/registries.conf (after the migration)\n\
         @@ -1,2 +1,2 @@\n\
         \x20a = 1\n\
         -b = 2\n\
         +b = 3\n"
    );
    assert_eq!(
        render(|out| write_unified(out, "x", "same\n", "same\n")),
        ""
    );
}

#[test]
fn notes_and_warnings() {
    let one = Equivalence {
        icsps: 1,
        idms: 1,
        sources: 1,
        files: 1,
        hostless: 0,
    };
    let many = Equivalence {
        icsps: 2,
        idms: 2,
        sources: 3,
        files: 2,
        hostless: 0,
    };
    let none = Equivalence { files: 0, ..one };
    let dead = Equivalence {
        hostless: 1,
        ..many
    };
    let folder = PathBuf::from("out/imagedigestmirrorset_apps.yaml");
    for (note, want) in [
        (Note::NothingToMigrate { source: "cluster.yaml" }, "nothing to migrate: no ImageContentSourcePolicy in cluster.yaml"),
        (Note::TagMirrors, "warning: --with-tag-mirrors: pulls by tag will use the mirrors; a tag on a mirror can point to another image than the same tag at the source (tags move, digests do not)"),
        (Note::Warning("ImageContentSourcePolicy/x entry 0: no mirrors"), "warning: ImageContentSourcePolicy/x entry 0: no mirrors"),
        (Note::RollsOutTwice { path: REGISTRIES_CONF }, "warning: while both the ImageContentSourcePolicies and their replacements exist, /etc/containers/registries.conf differs from today's: nodes would roll out twice"),
        (Note::Equivalent(&one), "equivalent: nodes get byte-identical files from the 1 ImageContentSourcePolicy object and from the 1 ImageDigestMirrorSet object replacing them (1 source; 1 file rendered)"),
        (Note::Equivalent(&many), "equivalent: nodes get byte-identical files from the 2 ImageContentSourcePolicy objects and from the 2 ImageDigestMirrorSet objects replacing them (3 sources; 2 files rendered)"),
        (Note::Equivalent(&none), "equivalent: nodes get byte-identical files from the 1 ImageContentSourcePolicy object and from the 1 ImageDigestMirrorSet object replacing them (1 source; no file rendered; /etc/containers/registries.conf keeps its template)"),
        (Note::Equivalent(&dead), "equivalent: nodes get byte-identical files from the 2 ImageContentSourcePolicy objects and from the 2 ImageDigestMirrorSet objects replacing them (3 sources, 1 of which has no registry host: see the warning above; 2 files rendered)"),
        (Note::TagMirrorsUsed { path: REGISTRIES_CONF }, "with tag mirrors: pulls by digest are unchanged; pulls by tag now use the mirrors above (/etc/containers/registries.conf)"),
        (Note::UnchangedFile { path: &folder }, "unchanged out/imagedigestmirrorset_apps.yaml (same content)"),
        (Note::NothingToApply, "nothing to apply: every replacement is already on the cluster"),
        (Note::EquivalentOnServer { names: "ImageContentSourcePolicy/a, ImageContentSourcePolicy/b" }, "equivalent on the server: the files rendered from the objects there now stay byte-identical without ImageContentSourcePolicy/a, ImageContentSourcePolicy/b"),
    ] {
        assert_eq!(render(|out| write_note(out, &note)), format!("{want}\n"), "{note:?}");
    }
}

#[test]
fn what_was_done() {
    let path = PathBuf::from("out/imagedigestmirrorset_apps.yaml");
    for (done, want) in [
        (
            Done::Wrote {
                kind: "ImageDigestMirrorSet",
                path: &path,
            },
            "wrote ImageDigestMirrorSet to out/imagedigestmirrorset_apps.yaml",
        ),
        (
            Done::Created {
                label: "ImageDigestMirrorSet/apps",
            },
            "ImageDigestMirrorSet/apps created",
        ),
        (
            Done::Deleted { name: "apps" },
            "ImageContentSourcePolicy/apps deleted",
        ),
        (
            Done::AlreadyDeleted { name: "apps" },
            "ImageContentSourcePolicy/apps already deleted",
        ),
    ] {
        assert_eq!(
            render(|out| write_done(out, &done)),
            format!("{want}\n"),
            "{done:?}"
        );
    }
}

#[test]
fn plan_rows_and_their_problems() {
    let row = |object: &str, step: Step| PlanRow {
        object: object.to_string(),
        step,
    };
    let rows = [
        row("ImageDigestMirrorSet/apps", Step::Create),
        row("ImageDigestMirrorSet/db", Step::Unchanged),
        row(
            "ImageDigestMirrorSet/web",
            Step::Clash("exists with another spec".to_string()),
        ),
        row(
            "ImageTagMirrorSet/apps",
            Step::NoCrd {
                resource: "imagetagmirrorsets.config.openshift.io".to_string(),
                kind: "ImageTagMirrorSet".to_string(),
            },
        ),
        row(
            "ImageContentSourcePolicy/apps",
            Step::Delete {
                resource_version: "42".to_string(),
                name: "apps".to_string(),
            },
        ),
        row("ImageContentSourcePolicy/db", Step::AlreadyDeleted),
        row("ImageContentSourcePolicy/web", Step::NoPreconditions),
    ];
    let text = render(|out| write_plan(out, &rows));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "plan (server-side dry run passed unless marked):",
        "{text}"
    );
    let squeezed: Vec<String> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        squeezed,
        [
            "OBJECT ACTION",
            "ImageDigestMirrorSet/apps create",
            "ImageDigestMirrorSet/db unchanged",
            "ImageDigestMirrorSet/web conflict: exists with another spec",
            "ImageTagMirrorSet/apps cannot create: the server does not serve imagetagmirrorsets.config.openshift.io (the ImageTagMirrorSet CRD is missing)",
            "ImageContentSourcePolicy/apps delete at resourceVersion 42, once ImageDigestMirrorSet/apps is read back as planned",
            "ImageContentSourcePolicy/db already deleted",
            "ImageContentSourcePolicy/web conflict: read without uid and resourceVersion, so it cannot be deleted at the version proven",
        ]
    );
    assert!(text.ends_with("proven\n"), "{text:?}");
    assert!(lines.iter().all(|l| l == &l.trim_end()), "{text:?}");
    let problems: Vec<Option<Problem>> = rows.iter().map(|r| r.step.problem()).collect();
    assert_eq!(
        problems,
        [
            None,
            None,
            Some(Problem::Clash),
            Some(Problem::NoCrd(
                "imagetagmirrorsets.config.openshift.io".to_string()
            )),
            None,
            None,
            Some(Problem::Server),
        ]
    );
    for (step, want) in [
        (
            Step::DryRunRefused("admission webhook denied".to_string()),
            "conflict: the server's dry run: admission webhook denied",
        ),
        (
            Step::Refused("forbidden".to_string()),
            "conflict: forbidden",
        ),
        (
            Step::Changed("the object has been modified".to_string()),
            "conflict: the object has been modified",
        ),
    ] {
        assert_eq!(describe_step(&step), want, "{step:?}");
    }
    assert_eq!(
        Step::Changed(String::new()).problem(),
        Some(Problem::Changed)
    );
}

#[test]
fn confirmation_names_the_server() {
    assert_eq!(
        confirmation("https://api.example.com:6443"),
        "Apply this plan to https://api.example.com:6443?"
    );
}
