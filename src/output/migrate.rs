//! The `migrate-icsp` output: the replacements (YAML as `oc adm migrate
//! icsp` writes it, or JSON), the proof's messages and differences, the
//! `--apply` plan, its confirmation, and what was written.
//!
//! Which stream each part goes to is the command's choice: the
//! replacements and what was written are data (stdout), the proof and the
//! plan are messages (stderr).

use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

use comfy_table::{presets, Attribute, Cell, ContentArrangement, Table};

use mirrorpolicy::migrate::{Equivalence, GitOpsMarker, Holders, PlanRow, Replacement, Step};
use mirrorpolicy::render::pool::REGISTRIES_CONF;

/// Writes the replacements as YAML documents separated by `---`.
pub fn write_yaml(out: &mut dyn Write, replacements: &[Replacement]) -> io::Result<()> {
    for (i, r) in replacements.iter().enumerate() {
        if i > 0 {
            writeln!(out, "---")?;
        }
        out.write_all(r.to_yaml().as_bytes())?;
    }
    Ok(())
}

/// Writes the replacement as one JSON object, or several as a `v1` `List`
/// (as `kubectl get -o json` prints one).
pub fn write_json(out: &mut dyn Write, replacements: &[Replacement]) -> io::Result<()> {
    let items: Vec<serde_json::Value> = replacements.iter().map(Replacement::to_json).collect();
    super::write_json(out, &items)
}

/// Writes the unified difference of `path` between today's render (`old`)
/// and the render after the migration (`new`).
pub fn write_unified(out: &mut dyn Write, path: &str, old: &str, new: &str) -> io::Result<()> {
    let diff = similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{path} (today)"),
            &format!("{path} (after the migration)"),
        )
        .to_string();
    out.write_all(diff.as_bytes())
}

/// A message of the migration, one line each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note<'a> {
    /// No ICSP in the input (`source` names it).
    NothingToMigrate { source: &'a str },
    /// `--with-tag-mirrors` was given.
    TagMirrors,
    /// A warning of the checks.
    Warning(&'a str),
    /// The state in between renders another `path` than today's.
    RollsOutTwice { path: &'a str },
    /// The proof held.
    Equivalent(&'a Equivalence),
    /// The tag mirrors change `path`, for pulls by tag only.
    TagMirrorsUsed { path: &'a str },
    /// A file in `--dest-dir` already holds the replacement.
    UnchangedFile { path: &'a Path },
    /// Every replacement is on the cluster already.
    NothingToApply,
    /// The proof held again on the server's objects, without `names`.
    EquivalentOnServer { names: &'a str },
    /// The GitOps markers of an ICSP, not copied to its replacement.
    MarkersNotCopied {
        name: &'a str,
        markers: &'a [GitOpsMarker],
    },
    /// A deleted ICSP the server only marked: finalizers hold it.
    Marked {
        name: &'a str,
        finalizers: &'a [String],
        wait: Duration,
    },
    /// A deleted ICSP that came back under another uid.
    Recreated { name: &'a str, uid: &'a str },
}

/// Writes one message line.
pub fn write_note(out: &mut dyn Write, note: &Note) -> io::Result<()> {
    match note {
        Note::NothingToMigrate { source } => writeln!(
            out,
            "nothing to migrate: no ImageContentSourcePolicy in {source}"
        ),
        Note::TagMirrors => writeln!(
            out,
            "warning: --with-tag-mirrors: pulls by tag will use the mirrors; a tag on a mirror can point to another image than the same tag at the source (tags move, digests do not)"
        ),
        Note::Warning(message) => writeln!(out, "warning: {message}"),
        Note::RollsOutTwice { path } => writeln!(
            out,
            "warning: while both the ImageContentSourcePolicies and their replacements exist, {path} differs from today's: nodes would roll out twice"
        ),
        Note::Equivalent(e) => write_equivalent(out, e),
        Note::TagMirrorsUsed { path } => writeln!(
            out,
            "with tag mirrors: pulls by digest are unchanged; pulls by tag now use the mirrors above ({path})"
        ),
        Note::UnchangedFile { path } => {
            writeln!(out, "unchanged {} (same content)", path.display())
        }
        Note::NothingToApply => writeln!(
            out,
            "nothing to apply: every replacement is already on the cluster"
        ),
        Note::EquivalentOnServer { names } => writeln!(
            out,
            "equivalent on the server: the files rendered from the objects there now stay byte-identical without {names}"
        ),
        Note::MarkersNotCopied { name, markers } => writeln!(
            out,
            "note: ImageContentSourcePolicy/{name}: its GitOps markers are not copied to its replacement ({}): the replacement is in no GitOps source, and a tool would prune it or claim it; --keep-labels copies them",
            markers
                .iter()
                .map(describe_marker)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Note::Marked {
            name,
            finalizers,
            wait,
        } => writeln!(
            out,
            "ImageContentSourcePolicy/{name} marked for deletion, held by finalizers [{}]; waiting up to {} for them to be removed (--timeout)",
            finalizers.join(", "),
            mirrorpolicy::duration::text(*wait)
        ),
        Note::Recreated { name, uid } => writeln!(
            out,
            "warning: ImageContentSourcePolicy/{name} was created again right after its delete (uid {uid}): a GitOps tool or an owner recreates it; remove it at its source"
        ),
    }
}

/// `label app.kubernetes.io/instance=platform (Argo CD)`.
pub fn describe_marker(m: &GitOpsMarker) -> String {
    format!("{} {}={} ({})", m.place, m.key, m.value, m.tool)
}

/// Writes, under the plan, what may hold or bring back each ICSP: its
/// finalizers, owners and GitOps markers; with `deleting`, a warning for
/// each way its delete may not hold (a GitOps tool or an owner recreates
/// it; finalizers keep it, only marked, up to `wait`).
pub fn write_holders(
    out: &mut dyn Write,
    holders: &[Holders],
    deleting: bool,
    wait: Duration,
) -> io::Result<()> {
    for h in holders {
        writeln!(out, "ImageContentSourcePolicy/{}:", h.name)?;
        if !h.finalizers.is_empty() || h.deletion_timestamp.is_some() {
            let marked = h
                .deletion_timestamp
                .as_ref()
                .map_or(String::new(), |t| format!(" (marked for deletion at {t})"));
            writeln!(out, "  finalizers: [{}]{marked}", h.finalizers.join(", "))?;
        }
        if !h.owners.is_empty() {
            writeln!(out, "  ownerReferences: {}", h.owners.join(", "))?;
        }
        if !h.markers.is_empty() {
            let markers: Vec<String> = h.markers.iter().map(describe_marker).collect();
            writeln!(out, "  GitOps: {}", markers.join(", "))?;
        }
        if !deleting {
            continue;
        }
        let tools = h.tools();
        if !tools.is_empty() {
            writeln!(
                out,
                "warning: ImageContentSourcePolicy/{} is managed by {}: a GitOps tool recreates an object deleted behind its back; remove the ICSP from its Git source (and add the replacement there) rather than deleting it here",
                h.name,
                tools.join(" and ")
            )?;
        }
        if !h.owners.is_empty() {
            writeln!(
                out,
                "warning: ImageContentSourcePolicy/{} has owners ({}): an owner's controller may recreate it once deleted",
                h.name,
                h.owners.join(", ")
            )?;
        }
        if !h.finalizers.is_empty() {
            writeln!(
                out,
                "warning: ImageContentSourcePolicy/{}: finalizers [{}] hold it: its delete only marks it until they are removed; this run waits up to {} for that (--timeout)",
                h.name,
                h.finalizers.join(", "),
                mirrorpolicy::duration::text(wait)
            )?;
        }
    }
    Ok(())
}

fn write_equivalent(out: &mut dyn Write, e: &Equivalence) -> io::Result<()> {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    let files = match e.files {
        0 => format!("no file rendered; {REGISTRIES_CONF} keeps its template"),
        1 => "1 file rendered".to_string(),
        n => format!("{n} files rendered"),
    };
    let hostless = match e.hostless {
        0 => String::new(),
        n => format!(
            ", {n} of which {} no registry host: see the warning above",
            if n == 1 { "has" } else { "have" }
        ),
    };
    writeln!(
        out,
        "equivalent: nodes get byte-identical files from the {} and from the {} replacing them ({}{hostless}; {files})",
        plural(e.icsps, "ImageContentSourcePolicy object"),
        plural(e.idms, "ImageDigestMirrorSet object"),
        plural(e.sources, "source"),
    )
}

/// What was done to the cluster or the folder, one line each (stdout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done<'a> {
    /// A replacement written to `path` (oc's own message, which scripts read).
    Wrote { kind: &'a str, path: &'a Path },
    /// A replacement applied (`Kind/name`).
    Created { label: &'a str },
    /// An ICSP deleted.
    Deleted { name: &'a str },
    /// An ICSP found gone.
    AlreadyDeleted { name: &'a str },
}

/// Writes one line of what was done.
pub fn write_done(out: &mut dyn Write, done: &Done) -> io::Result<()> {
    match done {
        Done::Wrote { kind, path } => writeln!(out, "wrote {kind} to {}", path.display()),
        Done::Created { label } => writeln!(out, "{label} created"),
        Done::Deleted { name } => writeln!(out, "ImageContentSourcePolicy/{name} deleted"),
        Done::AlreadyDeleted { name } => {
            writeln!(out, "ImageContentSourcePolicy/{name} already deleted")
        }
    }
}

/// The action column of a plan row.
pub fn describe_step(step: &Step) -> String {
    match step {
        Step::Unchanged => "unchanged".to_string(),
        Step::Create => "create".to_string(),
        Step::Clash(why) => format!("conflict: {why}"),
        Step::DryRunRefused(m) => format!("conflict: the server's dry run: {m}"),
        Step::NoCrd { resource, kind } => format!(
            "cannot create: the server does not serve {resource} (the {kind} CRD is missing)"
        ),
        Step::Refused(m) | Step::Changed(m) => format!("conflict: {m}"),
        Step::NoPreconditions => "conflict: read without uid and resourceVersion, so it cannot be deleted at the version proven".to_string(),
        Step::Delete {
            resource_version,
            name,
        } => format!(
            "delete at resourceVersion {resource_version}, once ImageDigestMirrorSet/{name} is read back as planned"
        ),
        Step::AlreadyDeleted => "already deleted".to_string(),
    }
}

/// Writes the `--apply` plan: a heading, then one row per object, trailing
/// blanks trimmed, no final newline after the last row but the line's own.
pub fn write_plan(out: &mut dyn Write, rows: &[PlanRow]) -> io::Result<()> {
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    t.set_header(
        ["OBJECT", "ACTION"]
            .iter()
            .map(|h| Cell::new(h).add_attribute(Attribute::Bold)),
    );
    for r in rows {
        t.add_row(vec![
            Cell::new(&r.object),
            Cell::new(describe_step(&r.step)),
        ]);
    }
    let text = t
        .to_string()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    writeln!(
        out,
        "plan (server-side dry run passed unless marked):\n{text}"
    )
}

/// The question asked before applying the plan to `server`.
pub fn confirmation(server: &str) -> String {
    format!("Apply this plan to {server}?")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;
    use mirrorpolicy::migrate::Problem;
    use mirrorpolicy::objects::{ImageDigestMirrorSet, ImageTagMirrorSet};

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
}
