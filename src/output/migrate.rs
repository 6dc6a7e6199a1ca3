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
