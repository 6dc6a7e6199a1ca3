//! `migrate-icsp`: ImageContentSourcePolicy → ImageDigestMirrorSet (and
//! ImageTagMirrorSet), proven equivalent by rendering before and after,
//! written to stdout or `--dest-dir`, or applied to the live cluster after a
//! server-side dry run and a confirmation.

use std::collections::BTreeSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Result;
use comfy_table::{presets, Attribute, Cell, ContentArrangement, Table};

use mirrorpolicy::migrate::{self, Action, Proof, Replacement};
use mirrorpolicy::output;
use mirrorpolicy::render::cluster::{Rendered, REGISTRIES_CONF};
use mirrorpolicy::source::cluster::{
    self as live, Connection, Reply, IMAGE_CONTENT_SOURCE_POLICIES, IMAGE_DIGEST_MIRROR_SETS,
    IMAGE_TAG_MIRROR_SETS, MIRROR_CONFIG,
};
use mirrorpolicy::source::Inputs;

use crate::cli::{MigrateArgs, MigrateFormat};
use crate::commands::cluster;
use crate::exit::{ExitCode, Failure};
use crate::term;

/// The field manager of server-side apply.
pub const FIELD_MANAGER: &str = "kubectl-mirrorpolicy";

/// Runs `migrate-icsp`.
pub fn run(args: &MigrateArgs) -> Result<ExitCode> {
    let inputs = cluster::load_valid_objects(&args.filenames, MIRROR_CONFIG, None)?;
    if inputs.icsps.is_empty() {
        eprintln!(
            "nothing to migrate: no ImageContentSourcePolicy in {}",
            source_name(&args.filenames)
        );
        return Ok(ExitCode::Success);
    }
    let replacements: Vec<Replacement> = inputs
        .icsps
        .iter()
        .flat_map(|icsp| migrate::convert(icsp, args.with_tag_mirrors))
        .collect();
    if args.with_tag_mirrors {
        eprintln!(
            "warning: --with-tag-mirrors: pulls by tag will use the mirrors; a tag on a mirror can point to another image than the same tag at the source (tags move, digests do not)"
        );
    }
    let checks = migrate::check(&inputs, &replacements);
    for w in &checks.warnings {
        eprintln!("warning: {w}");
    }
    if checks.refused() {
        let mut problems = checks.invalid.clone();
        problems.extend(checks.name_conflicts.iter().cloned());
        return Err(Failure::refused(format!(
            "refused: {} problem(s), nothing written:\n  {}",
            problems.len(),
            problems.join("\n  ")
        ))
        .with_hint("fix the objects named above and run again")
        .into());
    }
    prove(&inputs, &replacements)?;

    if args.apply {
        return apply(args, &inputs, &replacements);
    }
    if let Some(dir) = &args.dest_dir {
        write_files(dir, &replacements)?;
        return Ok(ExitCode::Success);
    }
    term::print(|out| match args.output {
        MigrateFormat::Yaml => {
            for (i, r) in replacements.iter().enumerate() {
                if i > 0 {
                    writeln!(out, "---")?;
                }
                out.write_all(r.to_yaml().as_bytes())?;
            }
            Ok(())
        }
        MigrateFormat::Json => {
            let items: Vec<serde_json::Value> =
                replacements.iter().map(Replacement::to_json).collect();
            output::write_json(out, &items)
        }
    })?;
    Ok(ExitCode::Success)
}

fn source_name(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        "the cluster".to_string()
    } else {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Renders before, in between and after; refuses unless nodes would see
/// no change (exit 4, with the difference).
fn prove(inputs: &Inputs, replacements: &[Replacement]) -> Result<()> {
    let Proof {
        before,
        between,
        after,
        with_tags,
    } = migrate::prove(inputs, replacements);
    let before = before.map_err(|e| {
        Failure::refused(format!(
            "the MCO already refuses to render the current objects: {e}"
        ))
        .with_hint("fix that first: until then nodes keep their previous configuration, and no migration can be proven")
    })?;
    let between = between.map_err(|e| {
        Failure::refused(format!(
            "with the ImageContentSourcePolicies and their replacements both present (the state while migrating), the MCO refuses to render: {e}"
        ))
        .with_hint("the MCO would stop updating registries.conf mid-migration; resolve the conflict named above first")
    })?;
    let after = after.map_err(|e| {
        Failure::refused(format!(
            "without the ImageContentSourcePolicies, the MCO refuses to render the replacements: {e}"
        ))
    })?;
    if let Some((path, old, new)) = migrate::first_difference(&before, &after) {
        eprint!("{}", unified(&path, &old, &new));
        return Err(Failure::refused(format!(
            "not equivalent: {path} rendered from the replacements differs from today's (diff above); nothing written"
        ))
        .with_hint("the MCO merges ImageDigestMirrorSets before ImageContentSourcePolicies, so mirror lists that disagree across objects can come out in another order; make the orders agree, then migrate")
        .into());
    }
    if let Some((path, _, _)) = migrate::first_difference(&before, &between) {
        eprintln!(
            "warning: while both the ImageContentSourcePolicies and their replacements exist, {path} differs from today's: nodes would roll out twice"
        );
    }
    let icsps = inputs.icsps.len();
    let idms = replacements
        .iter()
        .filter(|r| matches!(r, Replacement::Idms(_)))
        .count();
    let sources: BTreeSet<&str> = inputs
        .icsps
        .iter()
        .flat_map(|i| &i.spec.repository_digest_mirrors)
        .map(|e| e.source.as_str())
        .collect();
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("{n} {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    eprintln!(
        "equivalent: nodes get byte-identical files from the {} and from the {} replacing them ({}; {})",
        plural(icsps, "ImageContentSourcePolicy object"),
        plural(idms, "ImageDigestMirrorSet object"),
        plural(sources.len(), "source"),
        describe_files(&after)
    );
    if let Some(tagged) = with_tags {
        let tagged = tagged.map_err(|e| {
            Failure::refused(format!(
                "with the ImageTagMirrorSets, the MCO refuses to render: {e}"
            ))
        })?;
        let problems = migrate::digest_pulls_unchanged(&after, &tagged);
        if !problems.is_empty() {
            return Err(Failure::refused(format!(
                "the ImageTagMirrorSets would change pulls by digest: {}",
                problems.join("; ")
            ))
            .into());
        }
        if let Some((path, old, new)) = migrate::first_difference(&after, &tagged) {
            eprint!("{}", unified(&path, &old, &new));
            eprintln!(
                "with tag mirrors: pulls by digest are unchanged; pulls by tag now use the mirrors above ({path})"
            );
        }
    }
    Ok(())
}

fn describe_files(rendered: &Rendered) -> String {
    match rendered.files.len() {
        0 => format!("no file rendered; {REGISTRIES_CONF} keeps its template"),
        1 => "1 file rendered".to_string(),
        n => format!("{n} files rendered"),
    }
}

fn unified(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{path} (today)"),
            &format!("{path} (after the migration)"),
        )
        .to_string()
}

/// Writes one file per object; an existing different file refuses the
/// whole write, an identical one is left alone. Each file is written to a
/// temporary name and renamed, so a file is never half written.
fn write_files(dir: &Path, replacements: &[Replacement]) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::input(format!(
            "--dest-dir {}: exists and is not a folder",
            dir.display()
        ))
        .into());
    }
    let mut plan = Vec::new();
    let mut clashes = Vec::new();
    for r in replacements {
        let path = dir.join(r.file_name());
        let yaml = r.to_yaml();
        match std::fs::read(&path) {
            Ok(existing) if existing == yaml.as_bytes() => plan.push((path, yaml, false)),
            Ok(_) => clashes.push(path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => plan.push((path, yaml, true)),
            Err(e) => {
                return Err(Failure::input(format!("cannot read {}: {e}", path.display())).into())
            }
        }
    }
    if !clashes.is_empty() {
        return Err(Failure::refused(format!(
            "refused: would overwrite {} file(s) with different content: {}; nothing written",
            clashes.len(),
            clashes.join(", ")
        ))
        .with_hint("move them away or pick another --dest-dir")
        .into());
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::input(format!("cannot create {}: {e}", dir.display())))?;
    for (path, yaml, write) in plan {
        let kind = if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("imagetagmirrorset_"))
        {
            "ImageTagMirrorSet"
        } else {
            "ImageDigestMirrorSet"
        };
        if !write {
            eprintln!("unchanged {} (same content)", path.display());
            continue;
        }
        let tmp = path.with_extension("yaml.tmp");
        std::fs::write(&tmp, &yaml)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                Failure::input(format!("cannot write {}: {e}", path.display()))
            })?;
        // oc's own message, so scripts that read it keep working.
        println!("wrote {kind} to {}", path.display());
    }
    Ok(())
}

fn resource_of(r: &Replacement) -> &'static live::Resource {
    match r {
        Replacement::Idms(_) => &IMAGE_DIGEST_MIRROR_SETS,
        Replacement::Itms(_) => &IMAGE_TAG_MIRROR_SETS,
    }
}

/// One row of the plan.
struct Row {
    object: String,
    action: String,
    conflict: bool,
}

/// `--apply`: dry run every write, show the plan, confirm, apply, then
/// delete each ICSP whose replacement the server returns as planned.
fn apply(args: &MigrateArgs, inputs: &Inputs, replacements: &[Replacement]) -> Result<ExitCode> {
    let options = cluster::cluster_options()?;
    let runtime = cluster::runtime()?;
    runtime.block_on(async {
        let connection = live::connect(&options)
            .await
            .map_err(cluster::cluster_failure)?;
        let mut rows = Vec::new();
        let mut to_apply = Vec::new();
        for r in replacements {
            let desired = r.to_json();
            let resource = resource_of(r);
            let existing = connection
                .get(resource, r.name())
                .await
                .map_err(cluster::cluster_failure)?;
            let mut action = migrate::plan(&desired, existing.as_ref());
            if action != Action::Unchanged {
                match connection
                    .apply(resource, &desired, FIELD_MANAGER, true)
                    .await
                    .map_err(cluster::cluster_failure)?
                {
                    Reply::Ok(_) => {}
                    Reply::Conflict(m) => action = Action::Conflict(format!("the server's dry run: {m}")),
                    Reply::NotFound => {
                        action = Action::Conflict(format!(
                            "the server does not serve {} (no such CRD)",
                            resource.name()
                        ))
                    }
                    Reply::Forbidden(m) => action = Action::Conflict(m),
                }
            }
            let (text, conflict) = match &action {
                Action::Create => ("create".to_string(), false),
                Action::Unchanged => ("unchanged".to_string(), false),
                Action::Conflict(why) => (format!("conflict: {why}"), true),
            };
            if action == Action::Create || matches!(action, Action::Conflict(_)) {
                to_apply.push((r, desired));
            }
            rows.push(Row {
                object: r.label(),
                action: text,
                conflict,
            });
        }
        if args.delete_icsp {
            for icsp in &inputs.icsps {
                let name = &icsp.metadata.name;
                let dry = connection
                    .delete(&IMAGE_CONTENT_SOURCE_POLICIES, name, true)
                    .await
                    .map_err(cluster::cluster_failure)?;
                let (action, conflict) = match dry {
                    Reply::Ok(_) => (
                        "delete, once ImageDigestMirrorSet/".to_string() + name + " is read back as planned",
                        false,
                    ),
                    Reply::NotFound => ("already deleted".to_string(), false),
                    Reply::Conflict(m) | Reply::Forbidden(m) => (format!("conflict: {m}"), true),
                };
                rows.push(Row {
                    object: format!("ImageContentSourcePolicy/{name}"),
                    action,
                    conflict,
                });
            }
        }
        print_plan(&rows)?;
        if rows.iter().any(|r| r.conflict) {
            return Err(Failure::refused(
                "refused: the dry run found conflicts (above); nothing was written",
            )
            .with_hint("an object of the same name holds other mirrors: rename the ICSP's replacement or reconcile the two")
            .into());
        }
        if to_apply.is_empty() && !args.delete_icsp {
            eprintln!("nothing to apply: every replacement is already on the cluster");
            return Ok(ExitCode::Success);
        }
        confirm(args, &connection)?;
        for (r, desired) in &to_apply {
            match connection
                .apply(resource_of(r), desired, FIELD_MANAGER, false)
                .await
                .map_err(cluster::cluster_failure)?
            {
                Reply::Ok(_) => println!("{} created", r.label()),
                Reply::Conflict(m) | Reply::Forbidden(m) => {
                    return Err(Failure::refused(format!(
                        "{}: the server refused the apply: {m}; no ImageContentSourcePolicy was deleted",
                        r.label()
                    ))
                    .with_hint("run again once resolved: objects already applied show as unchanged")
                    .into())
                }
                Reply::NotFound => {
                    return Err(Failure::cluster(format!(
                        "{}: the server does not serve {}",
                        r.label(),
                        resource_of(r).name()
                    ))
                    .into())
                }
            }
        }
        if args.delete_icsp {
            delete_icsps(&connection, inputs, replacements).await?;
        }
        Ok(ExitCode::Success)
    })
}

fn print_plan(rows: &[Row]) -> Result<()> {
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
        t.add_row(vec![Cell::new(&r.object), Cell::new(&r.action)]);
    }
    let text = t
        .to_string()
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n");
    eprintln!("plan (server-side dry run passed unless marked):\n{text}");
    Ok(())
}

fn confirm(args: &MigrateArgs, connection: &Connection) -> Result<()> {
    if args.yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return Err(
            Failure::refused("not confirmed: no terminal to ask on; nothing was written")
                .with_hint("review the plan above and pass --yes to apply it")
                .into(),
        );
    }
    let confirmed = dialoguer::Confirm::new()
        .with_prompt(format!("Apply this plan to {}?", connection.server))
        .default(false)
        .interact()
        .unwrap_or(false);
    if confirmed {
        Ok(())
    } else {
        Err(Failure::refused("not confirmed; nothing was written").into())
    }
}

/// Deletes each ICSP whose IDMS the server returns with the planned spec;
/// any other ICSP is kept and the command fails (exit 4).
async fn delete_icsps(
    connection: &Connection,
    inputs: &Inputs,
    replacements: &[Replacement],
) -> Result<()> {
    let mut kept = Vec::new();
    for icsp in &inputs.icsps {
        let name = &icsp.metadata.name;
        let Some(idms) = replacements
            .iter()
            .find(|r| matches!(r, Replacement::Idms(_)) && r.name() == name)
        else {
            continue;
        };
        let on_server = connection
            .get(&IMAGE_DIGEST_MIRROR_SETS, name)
            .await
            .map_err(cluster::cluster_failure)?;
        let matches = on_server
            .as_ref()
            .is_some_and(|o| o.get("spec") == idms.to_json().get("spec"));
        if !matches {
            kept.push(format!(
                "ImageContentSourcePolicy/{name} kept: ImageDigestMirrorSet/{name} is {} on the server",
                if on_server.is_some() { "different" } else { "missing" }
            ));
            continue;
        }
        match connection
            .delete(&IMAGE_CONTENT_SOURCE_POLICIES, name, false)
            .await
            .map_err(cluster::cluster_failure)?
        {
            Reply::Ok(_) => println!("ImageContentSourcePolicy/{name} deleted"),
            Reply::NotFound => println!("ImageContentSourcePolicy/{name} already deleted"),
            Reply::Conflict(m) | Reply::Forbidden(m) => {
                kept.push(format!("ImageContentSourcePolicy/{name} kept: {m}"))
            }
        }
    }
    if kept.is_empty() {
        Ok(())
    } else {
        Err(Failure::refused(kept.join("; "))
            .with_hint("run again: replacements already applied show as unchanged")
            .into())
    }
}
