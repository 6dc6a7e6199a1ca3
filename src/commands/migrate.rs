//! `migrate-icsp`: ImageContentSourcePolicy → ImageDigestMirrorSet (and
//! ImageTagMirrorSet), proven equivalent by rendering before and after,
//! written to stdout or `--dest-dir`, or applied to the live cluster after a
//! server-side dry run and a confirmation.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use crate::output::migrate::{self as out, Done, Note};
use mirrorpolicy::migrate::{
    self, Action, Equivalence, Holders, PlanRow, Problem, Proof, Replacement, Step,
};
use mirrorpolicy::source::api::{
    self as live, Connection, Deletion, Preconditions, Reply, IMAGE_CONTENT_SOURCE_POLICIES,
    IMAGE_DIGEST_MIRROR_SETS, IMAGE_TAG_MIRROR_SETS, MIRROR_CONFIG,
};
use mirrorpolicy::source::Inputs;

use crate::cli::{MigrateArgs, MigrateFormat};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

/// The field manager of server-side apply.
pub const FIELD_MANAGER: &str = "kubectl-mirrorpolicy";

/// Runs `migrate-icsp`.
pub fn run(settings: &Settings, args: &MigrateArgs) -> Result<ExitCode> {
    check_usage(args)?;
    let wait = delete_wait(args)?;
    let inputs = inputs::load_valid_objects(settings, &args.paths(), MIRROR_CONFIG, None)?;
    if inputs.icsps.is_empty() {
        note(Note::NothingToMigrate {
            source: &source_name(&args.paths()),
        });
        return Ok(ExitCode::Success);
    }
    let options = migrate::Options {
        tag_mirrors: args.with_tag_mirrors,
        keep_gitops_markers: args.keep_labels,
    };
    let replacements: Vec<Replacement> = inputs
        .icsps
        .iter()
        .flat_map(|icsp| migrate::convert(icsp, options))
        .collect();
    check_names(args, &inputs, &replacements)?;
    check_file_names(args, &replacements)?;
    if !args.keep_labels {
        for icsp in &inputs.icsps {
            let markers = migrate::gitops_markers(&icsp.metadata);
            if !markers.is_empty() {
                note(Note::MarkersNotCopied {
                    name: &icsp.metadata.name,
                    markers: &markers,
                });
            }
        }
    }
    if args.with_tag_mirrors {
        note(Note::TagMirrors);
    }
    let checks = migrate::check(&inputs, &replacements);
    for w in &checks.warnings {
        note(Note::Warning(w));
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
        return apply(settings, args, &inputs, &replacements, wait);
    }
    if let Some(dir) = &args.dest_dir {
        write_files(dir, &replacements)?;
        return Ok(ExitCode::Success);
    }
    settings.print(|w| match args.output {
        MigrateFormat::Yaml => out::write_yaml(w, &replacements),
        MigrateFormat::Json => out::write_json(w, &replacements),
    })?;
    Ok(ExitCode::Success)
}

/// `--delete-icsp` and `--yes` act only with `--apply`. clap's `requires`
/// does not hold once `-f` is given (`--apply` conflicts with it), so they
/// are checked here: silently ignoring `--delete-icsp` would let a user
/// believe the ICSPs were deleted.
fn check_usage(args: &MigrateArgs) -> Result<()> {
    if args.apply {
        return Ok(());
    }
    let flag = if args.delete_icsp {
        "--delete-icsp"
    } else if args.yes {
        "--yes"
    } else {
        return Ok(());
    };
    Err(Failure::input(format!(
        "{flag} works only with --apply: ImageContentSourcePolicies are deleted (and the plan confirmed) only on the live cluster, after their replacements are applied; without --apply nothing is applied or deleted"
    ))
    .with_hint(if args.paths().is_empty() {
        "add --apply to apply the replacements to the cluster, or drop the flag to print them"
    } else {
        "--apply works on the live cluster, not on -f files: drop -f and add --apply, or drop the flag to print the replacements"
    })
    .into())
}

/// How long `--delete-icsp` waits for each deleted ICSP to go
/// (`--timeout`, 60 s by default). kubectl's `delete` waits a week when
/// told 0; here the wait is always bounded, so 0 is refused.
fn delete_wait(args: &MigrateArgs) -> Result<Duration> {
    let Some(text) = &args.timeout else {
        return Ok(DELETE_WAIT);
    };
    live::parse_request_timeout(text)
        .map_err(|e| Failure::input(format!("--timeout: {e}")))?
        .ok_or_else(|| {
            Failure::input("--timeout: 0 would wait forever on an ICSP that finalizers hold; give a duration such as 60s").into()
        })
}

/// How long `--delete-icsp` waits for a deleted ICSP to go by default.
pub const DELETE_WAIT: Duration = Duration::from_secs(60);

/// Every ICSP name, and the name of every replacement, must be one the API
/// server takes (a DNS-1123 subdomain): a name is also a file name in
/// `--dest-dir`, and `a/../../x` would leave it. Checked before anything
/// is written (exit 2, naming the file and the object).
fn check_names(args: &MigrateArgs, inputs: &Inputs, replacements: &[Replacement]) -> Result<()> {
    let mut problems = Vec::new();
    let mut bad_icsps = BTreeSet::new();
    for icsp in &inputs.icsps {
        let name = &icsp.metadata.name;
        if let Some(problem) = migrate::name_problem(name) {
            problems.push(format!(
                "{}: {}: metadata.name: {problem}",
                origin_of(args, name),
                icsp_label(name)
            ));
            bad_icsps.insert(name.as_str());
        }
    }
    for r in replacements {
        if bad_icsps.contains(r.name()) {
            continue;
        }
        if let Some(problem) = migrate::name_problem(r.name()) {
            problems.push(format!(
                "{}: {}/{}: metadata.name: {problem} (the replacement of {})",
                origin_of(args, r.name()),
                r.kind(),
                r.name().escape_debug(),
                icsp_label(r.name())
            ));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failure::input(format!(
        "{} invalid name(s), nothing written:\n  {}",
        problems.len(),
        problems.join("\n  ")
    ))
    .with_hint("the API server takes only names of lowercase letters, digits, '-' and '.' (at most 253, starting and ending with a letter or digit); rename the object and run again")
    .into())
}

/// With `--dest-dir`, every file name must fit the file system
/// (`NAME_MAX`, 255 bytes): a name the API server takes (up to 253
/// characters) can still make a file name too long. That is no fault of
/// the name, so it is its own error (exit 2), before anything is written.
fn check_file_names(args: &MigrateArgs, replacements: &[Replacement]) -> Result<()> {
    if args.dest_dir.is_none() {
        return Ok(());
    }
    let problems: Vec<String> = replacements
        .iter()
        .filter(|r| r.file_name().len() > migrate::FILE_NAME_MAX)
        .map(|r| {
            format!(
                "{}: {}: the file name {} would be {} bytes",
                origin_of(args, r.name()),
                icsp_label(r.name()),
                r.file_name(),
                r.file_name().len(),
            )
        })
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failure::input(format!(
        "{} file name(s) too long for the file system (at most {} bytes), nothing written:\n  {}",
        problems.len(),
        migrate::FILE_NAME_MAX,
        problems.join("\n  ")
    ))
    .with_hint("the API server takes these names, but a file system does not take such file names: print the replacements to stdout (without --dest-dir), or rename the ICSP")
    .into())
}

/// `ImageContentSourcePolicy/name`, the name escaped as Rust prints it
/// (an empty name shows as `(no name)`).
fn icsp_label(name: &str) -> String {
    if name.is_empty() {
        "ImageContentSourcePolicy (no name)".to_string()
    } else {
        format!("ImageContentSourcePolicy/{}", name.escape_debug())
    }
}

/// Where the ICSP `name` was read: the file among `-f` that holds it, or
/// the cluster. Used only in error messages, so reading the files again is
/// fine.
fn origin_of(args: &MigrateArgs, name: &str) -> String {
    if args.paths().is_empty() {
        return "the cluster".to_string();
    }
    let holds = |file: &Path| {
        mirrorpolicy::source::load_paths(&[file.to_path_buf()], std::io::empty())
            .is_ok_and(|i| i.icsps.iter().any(|o| o.metadata.name == name))
    };
    let mut stdin = false;
    for path in &args.paths() {
        if path.as_os_str() == "-" {
            stdin = true;
            continue;
        }
        let mut files = Vec::new();
        manifest_files(path, &mut files);
        if let Some(file) = files.iter().find(|f| holds(f)) {
            return file.display().to_string();
        }
    }
    if stdin {
        "<stdin>".to_string()
    } else {
        source_name(&args.paths())
    }
}

/// `path` itself, or the manifest files under it, sorted.
fn manifest_files(path: &Path, out: &mut Vec<PathBuf>) {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            manifest_files(&p, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "yaml" | "yml" | "json"))
        {
            out.push(p);
        }
    }
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
        unified(&path, &old, &new);
        return Err(Failure::refused(format!(
            "not equivalent: {path} rendered from the replacements differs from today's (diff above); nothing written"
        ))
        .with_hint("the MCO merges ImageDigestMirrorSets before ImageContentSourcePolicies, so mirror lists that disagree across objects can come out in another order; make the orders agree, then migrate")
        .into());
    }
    if let Some((path, _, _)) = migrate::first_difference(&before, &between) {
        note(Note::RollsOutTwice { path: &path });
    }
    note(Note::Equivalent(&Equivalence::of(
        inputs,
        replacements,
        &after,
    )));
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
            unified(&path, &old, &new);
            note(Note::TagMirrorsUsed { path: &path });
        }
    }
    Ok(())
}

/// Writes a message to stderr (a warning's input-borne control characters
/// escaped, as every warning's).
fn note(note: Note) {
    let mut buf = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = out::write_note(&mut buf, &note);
    let text = String::from_utf8_lossy(&buf);
    match note {
        Note::Warning(_) => eprint!("{}", term::escape_controls(&text, false)),
        _ => eprint!("{text}"),
    }
}

/// Writes the difference of `path` before and after the migration to stderr.
fn unified(path: &str, old: &str, new: &str) {
    let mut buf = Vec::new();
    let _ = out::write_unified(&mut buf, path, old, new);
    eprint!("{}", String::from_utf8_lossy(&buf));
}

/// Writes what was done to stdout.
fn done(done: Done) -> Result<()> {
    term::print(|w| out::write_done(w, &done))?;
    Ok(())
}

/// Writes one file per object into `dir`; an existing different file
/// refuses the whole write, an identical one is left alone.
///
/// Names were checked before ([`check_names`]): a file name is one path
/// component, so every file lands in `dir`. Each file is first written to
/// a temporary file created exclusively in `dir` (a random name, never
/// following a link), then moved to its name without replacing anything
/// there: a link or file that appears meanwhile stops the write. The
/// temporary files are all written before the first is moved, and a
/// failure removes what this run moved, so the folder gets all files or
/// none.
fn write_files(dir: &Path, replacements: &[Replacement]) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::input(format!(
            "--dest-dir {}: exists and is not a folder",
            dir.display()
        ))
        .into());
    }
    let (plan, unchanged) = plan_files(dir, replacements)?;
    for path in &unchanged {
        note(Note::UnchangedFile { path });
    }
    if plan.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)
        .with_context(|| Failure::input(format!("cannot create {}", dir.display())))?;
    let moved = write_all_or_none(dir, plan)?;
    for (r, path) in &moved {
        done(Done::Wrote {
            kind: r.kind(),
            path,
        })?;
    }
    Ok(())
}

/// A file to write: the replacement, its path, its YAML.
type PlannedFile<'a> = (&'a Replacement, PathBuf, String);

/// The files to write and those already holding their replacement; any
/// other file (or link) in the way refuses the whole write.
fn plan_files<'a>(
    dir: &Path,
    replacements: &'a [Replacement],
) -> Result<(Vec<PlannedFile<'a>>, Vec<PathBuf>)> {
    let mut plan = Vec::new();
    let mut clashes = Vec::new();
    let mut unchanged = Vec::new();
    for r in replacements {
        let path = dir.join(r.file_name());
        let yaml = r.to_yaml();
        let cannot_read = || Failure::input(format!("cannot read {}", path.display()));
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => clashes.push(format!(
                "{} (a symbolic link: never followed)",
                path.display()
            )),
            Ok(meta) if !meta.is_file() => {
                clashes.push(format!("{} (not a regular file)", path.display()))
            }
            Ok(_) => match std::fs::read(&path) {
                Ok(existing) if existing == yaml.as_bytes() => unchanged.push(path),
                Ok(_) => clashes.push(path.display().to_string()),
                Err(e) => return Err(e).with_context(cannot_read),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => plan.push((r, path, yaml)),
            Err(e) => return Err(e).with_context(cannot_read),
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
    Ok((plan, unchanged))
}

/// Writes every planned file to a temporary file first, then moves each to
/// its name without replacing anything; a failure removes what was moved.
fn write_all_or_none<'a>(
    dir: &Path,
    plan: Vec<PlannedFile<'a>>,
) -> Result<Vec<(&'a Replacement, PathBuf)>> {
    let mut written = Vec::new();
    for (r, path, yaml) in plan {
        let temp = temp_file(dir, &yaml).map_err(|e| {
            Failure::input(format!(
                "cannot write a temporary file in {}: {e}; nothing written",
                dir.display()
            ))
        })?;
        written.push((r, path, temp));
    }
    let mut moved: Vec<(&Replacement, PathBuf)> = Vec::new();
    for (r, path, temp) in written {
        // On an early return the temporary files not yet moved are removed
        // when dropped.
        if let Err(e) = temp.persist_noclobber(&path) {
            // What this run moved into place goes again: all or nothing.
            for (_, done) in &moved {
                let _ = std::fs::remove_file(done);
            }
            let why = if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                "it appeared meanwhile and is never replaced".to_string()
            } else {
                e.error.to_string()
            };
            return Err(Failure::input(format!(
                "cannot write {}: {why}; nothing written",
                path.display()
            ))
            .into());
        }
        moved.push((r, path));
    }
    Ok(moved)
}

/// A temporary file created exclusively (`O_EXCL`, random name) in `dir`
/// and holding `text`: as readable as a file `std::fs::write` creates.
fn temp_file(dir: &Path, text: &str) -> std::io::Result<tempfile::TempPath> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".mirrorpolicy-").suffix(".yaml.tmp");
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o666)
    };
    #[cfg(unix)]
    builder.permissions(permissions);
    let mut file = builder.tempfile_in(dir)?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    Ok(file.into_temp_path())
}

fn resource_of(r: &Replacement) -> &'static live::Resource {
    match r {
        Replacement::Idms(_) => &IMAGE_DIGEST_MIRROR_SETS,
        Replacement::Itms(_) => &IMAGE_TAG_MIRROR_SETS,
    }
}

/// The hint for a problem of the plan.
fn hint(problem: &Problem) -> String {
    match problem {
        Problem::Clash => "an object of the same name holds other mirrors: rename the ICSP's replacement or reconcile the two".to_string(),
        Problem::NoCrd(resource) => format!(
            "the cluster does not serve {resource}: its CRD is missing (OpenShift 4.13 and later have it); the ImageContentSourcePolicies keep working until then"
        ),
        Problem::Server => "the server refused the dry run (its answer is in the plan above): resolve that and run again".to_string(),
        Problem::Changed => "an ImageContentSourcePolicy changed since it was read: run again to migrate it as it is now".to_string(),
    }
}

/// The command that runs this migration again.
fn rerun(args: &MigrateArgs) -> String {
    let mut command = "kubectl mirrorpolicy migrate-icsp --apply".to_string();
    if args.with_tag_mirrors {
        command.push_str(" --with-tag-mirrors");
    }
    if args.delete_icsp {
        command.push_str(" --delete-icsp");
    }
    command
}

/// `--apply`: dry run every write, show the plan, confirm, check that the
/// ICSPs did not change meanwhile, apply, then delete each ICSP whose
/// replacement the server returns as planned, once the proof holds on the
/// server's objects, and only at the version that was proven.
fn apply(
    settings: &Settings,
    args: &MigrateArgs,
    inputs: &Inputs,
    replacements: &[Replacement],
    wait: Duration,
) -> Result<ExitCode> {
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    runtime.block_on(async {
        let connection = live::connect(&options)
            .await
            .map_err(inputs::cluster_failure)?;
        let (mut rows, to_apply) = plan_replacements(&connection, replacements).await?;
        if args.delete_icsp {
            rows.extend(plan_deletes(&connection, inputs).await?);
        }
        let shown = show_plan(&rows);
        show_holders(inputs, args.delete_icsp, wait);
        shown?;
        if to_apply.is_empty() && !args.delete_icsp {
            note(Note::NothingToApply);
            return Ok(ExitCode::Success);
        }
        confirm(args, &connection)?;
        unchanged_since_plan(&connection, args, inputs).await?;
        apply_replacements(&connection, &to_apply).await?;
        if args.delete_icsp {
            delete_icsps(&connection, args, inputs, replacements, wait).await?;
        }
        Ok(ExitCode::Success)
    })
}

/// A replacement to apply, with the object the server is sent.
type Desired<'a> = (&'a Replacement, serde_json::Value);

/// Dry runs every replacement: a plan row each, and those to create.
async fn plan_replacements<'a>(
    connection: &Connection,
    replacements: &'a [Replacement],
) -> Result<(Vec<PlanRow>, Vec<Desired<'a>>)> {
    let mut rows = Vec::new();
    let mut to_apply = Vec::new();
    for r in replacements {
        let desired = r.to_json();
        let resource = resource_of(r);
        let existing = connection
            .get(resource, r.name())
            .await
            .map_err(inputs::cluster_failure)?;
        let step = match migrate::plan(&desired, existing.as_ref()) {
            Action::Unchanged => Step::Unchanged,
            Action::Conflict(why) => Step::Clash(why),
            Action::Create => match connection
                .apply(resource, &desired, FIELD_MANAGER, true)
                .await
                .map_err(inputs::cluster_failure)?
            {
                Reply::Ok(_) => Step::Create,
                Reply::Conflict(m) => Step::DryRunRefused(m),
                Reply::NotFound => Step::NoCrd {
                    resource: resource.name(),
                    kind: resource.kind.to_string(),
                },
                Reply::Forbidden(m) => Step::Refused(m),
            },
        };
        if step == Step::Create {
            to_apply.push((r, desired));
        }
        rows.push(PlanRow {
            object: r.label(),
            step,
        });
    }
    Ok((rows, to_apply))
}

/// Dry runs the delete of every ICSP, at the version that was read.
async fn plan_deletes(connection: &Connection, inputs: &Inputs) -> Result<Vec<PlanRow>> {
    let mut rows = Vec::new();
    for icsp in &inputs.icsps {
        let name = &icsp.metadata.name;
        let object = format!("ImageContentSourcePolicy/{name}");
        let Some(preconditions) = Preconditions::of(&icsp.metadata) else {
            rows.push(PlanRow {
                object,
                step: Step::NoPreconditions,
            });
            continue;
        };
        let dry = connection
            .delete(
                &IMAGE_CONTENT_SOURCE_POLICIES,
                name,
                Some(&preconditions),
                true,
            )
            .await
            .map_err(inputs::cluster_failure)?;
        let step = match dry {
            Reply::Ok(_) => Step::Delete {
                resource_version: preconditions.resource_version,
                name: name.clone(),
            },
            Reply::NotFound => Step::AlreadyDeleted,
            Reply::Conflict(m) => Step::Changed(m),
            Reply::Forbidden(m) => Step::Refused(m),
        };
        rows.push(PlanRow { object, step });
    }
    Ok(rows)
}

/// Shows the plan on stderr; refuses when a row has a problem (exit 4),
/// with one hint per kind of problem.
fn show_plan(rows: &[PlanRow]) -> Result<()> {
    let mut buf = Vec::new();
    out::write_plan(&mut buf, rows)?;
    eprint!(
        "{}",
        term::escape_controls(&String::from_utf8_lossy(&buf), false)
    );
    let mut hints: Vec<String> = Vec::new();
    for p in rows.iter().filter_map(|r| r.step.problem()) {
        let hint = hint(&p);
        if !hints.contains(&hint) {
            hints.push(hint);
        }
    }
    if hints.is_empty() {
        return Ok(());
    }
    Err(
        Failure::refused("refused: the dry run found conflicts (above); nothing was written")
            .with_hint(hints.join("; "))
            .into(),
    )
}

/// Shows, under the plan, the finalizers, owners and GitOps markers of
/// each ICSP that has any, and with `deleting` what they mean for its
/// delete.
fn show_holders(inputs: &Inputs, deleting: bool, wait: Duration) {
    let holders: Vec<Holders> = inputs.icsps.iter().filter_map(Holders::of).collect();
    if holders.is_empty() {
        return;
    }
    let mut buf = Vec::new();
    let _ = out::write_holders(&mut buf, &holders, deleting, wait);
    eprint!(
        "{}",
        term::escape_controls(&String::from_utf8_lossy(&buf), false)
    );
}

/// Applies the replacements; the first refusal stops (no ICSP deleted).
async fn apply_replacements(connection: &Connection, to_apply: &[Desired<'_>]) -> Result<()> {
    for (r, desired) in to_apply {
        match connection
            .apply(resource_of(r), desired, FIELD_MANAGER, false)
            .await
            .map_err(inputs::cluster_failure)?
        {
            Reply::Ok(_) => done(Done::Created { label: &r.label() })?,
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
                    "{}: the server does not serve {} (the {} CRD is missing); no ImageContentSourcePolicy was deleted",
                    r.label(),
                    resource_of(r).name(),
                    resource_of(r).kind
                ))
                .into())
            }
        }
    }
    Ok(())
}

/// The `uid` and `resourceVersion` of an object as the server returned it.
fn preconditions_of(object: &serde_json::Value) -> Option<Preconditions> {
    let field = |name: &str| {
        object
            .pointer(&format!("/metadata/{name}"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    };
    Some(Preconditions {
        uid: field("uid")?,
        resource_version: field("resourceVersion")?,
    })
}

/// How an ICSP now on the server differs from the version that was read
/// (`now`: `None` when it is gone).
fn change_of(name: &str, was: Option<&Preconditions>, now: Option<&Preconditions>) -> String {
    let object = format!("ImageContentSourcePolicy/{name}");
    match (was, now) {
        (_, None) => format!("{object} was deleted on the server after it was read"),
        (Some(was), Some(now)) if was.uid != now.uid => format!(
            "{object} was deleted and created again on the server after it was read (uid {} → {})",
            was.uid, now.uid
        ),
        (Some(was), Some(now)) => format!(
            "{object} changed on the server after it was read (resourceVersion {} → {})",
            was.resource_version, now.resource_version
        ),
        (None, Some(_)) => format!("{object} was read without uid and resourceVersion"),
    }
}

/// After the confirmation, before any write: every ICSP must still be the
/// version the plan was made from. Someone may have edited one while the
/// plan was shown; its replacement would then miss the edit.
async fn unchanged_since_plan(
    connection: &Connection,
    args: &MigrateArgs,
    inputs: &Inputs,
) -> Result<()> {
    let mut changed = Vec::new();
    for icsp in &inputs.icsps {
        let name = &icsp.metadata.name;
        let was = Preconditions::of(&icsp.metadata);
        let now = connection
            .get(&IMAGE_CONTENT_SOURCE_POLICIES, name)
            .await
            .map_err(inputs::cluster_failure)?;
        let is = now.as_ref().and_then(preconditions_of);
        if is.is_some() && is == was {
            continue;
        }
        changed.push(change_of(name, was.as_ref(), is.as_ref()));
    }
    if changed.is_empty() {
        return Ok(());
    }
    Err(Failure::refused(format!(
        "{} while the plan was shown; nothing was written",
        changed.join("; ")
    ))
    .with_hint(format!(
        "run `{}` again: it converts and proves the objects as they are now",
        rerun(args)
    ))
    .into())
}

/// Deletes the ICSPs, each only when (1) it is still the version that was
/// converted and proven, (2) its IDMS is on the server with the planned
/// spec, and (3) rendering the server's objects as they are now, with and
/// without those ICSPs, gives byte-identical files. Each delete carries
/// the proven `uid` and `resourceVersion` as preconditions: an ICSP edited
/// after the proof is refused by the server (409), and then nothing more
/// is deleted. Any ICSP kept fails the command (exit 4).
async fn delete_icsps(
    connection: &Connection,
    args: &MigrateArgs,
    inputs: &Inputs,
    replacements: &[Replacement],
    wait: Duration,
) -> Result<()> {
    let now = live::read(connection, MIRROR_CONFIG, None)
        .await
        .map_err(inputs::cluster_failure)?
        .inputs;
    let mut kept = Kept::default();
    let deletable = deletable_icsps(&now, inputs, replacements, &mut kept)?;
    if !deletable.is_empty() {
        prove_deletion(&now, &deletable)?;
    }
    let deleted = delete_proven(connection, &deletable, wait, &mut kept).await?;
    await_deletes(connection, &deleted, wait, &mut kept).await?;
    if kept.reasons.is_empty() && kept.held.is_empty() {
        return Ok(());
    }
    if kept.reasons.is_empty() {
        return Err(held_failure(args, &kept.held, wait).into());
    }
    kept.reasons.extend(kept.held.iter().cloned());
    let hint = if !kept.changed.is_empty() {
        let names = kept.changed.join(" ");
        format!(
            "nothing was lost: the change is on the server, in the ImageContentSourcePolicy; its replacement was applied from the version read before. Look at the change (kubectl get imagecontentsourcepolicy {names} -o yaml), then run `{}` again; if the change touched its mirrors, that run refuses the old replacement of the same name: delete it first (kubectl delete imagedigestmirrorset {names}; the ICSP still holds its rules)",
            rerun(args)
        )
    } else {
        "run again: replacements already applied show as unchanged".to_string()
    };
    Err(Failure::refused(kept.reasons.join("; "))
        .with_hint(hint)
        .into())
}

/// The ICSPs not deleted, why, and those of them that changed on the server.
#[derive(Default)]
struct Kept<'a> {
    reasons: Vec<String>,
    changed: Vec<&'a str>,
    /// Deleted, but marked only: finalizers still hold them.
    held: Vec<String>,
}

/// An ICSP whose delete the server accepted: its name and `uid`.
type Deleted<'a> = (&'a str, String);

/// Waits, up to `wait` for all, until every deleted ICSP is gone, as
/// `kubectl delete` waits; one that finalizers still hold is kept in
/// `kept.held`, one created again is deleted with a warning.
async fn await_deletes<'a>(
    connection: &Connection,
    deleted: &[Deleted<'a>],
    wait: Duration,
    kept: &mut Kept<'a>,
) -> Result<()> {
    let deadline = tokio::time::Instant::now() + wait;
    for (name, uid) in deleted {
        match connection
            .wait_deleted(&IMAGE_CONTENT_SOURCE_POLICIES, name, uid, deadline)
            .await
            .map_err(inputs::cluster_failure)?
        {
            Deletion::Gone => done(Done::Deleted { name })?,
            Deletion::Recreated { uid } => {
                done(Done::Deleted { name })?;
                note(Note::Recreated { name, uid: &uid });
            }
            Deletion::Stays(object) => {
                let finalizers = finalizers_of(&object);
                kept.held.push(format!(
                    "ImageContentSourcePolicy/{name} marked for deletion, held by finalizers [{}]: still there after {}",
                    finalizers.join(", "),
                    mirrorpolicy::duration::text(wait)
                ));
            }
        }
    }
    Ok(())
}

/// The error for ICSPs that finalizers still hold (exit 3: whether and
/// when they go is up to whoever set the finalizers).
fn held_failure(args: &MigrateArgs, held: &[String], wait: Duration) -> Failure {
    Failure::cluster(held.join("; ")).with_hint(format!(
        "an ICSP goes once whoever set its finalizers removes them (`kubectl get imagecontentsourcepolicy NAME -o yaml` shows them); until then the MCO keeps rendering it, and its replacement gives the nodes the same files. Run `{}` again later, or with a --timeout longer than {}",
        rerun(args),
        mirrorpolicy::duration::text(wait)
    ))
}

/// The finalizers of an object a DELETE answered with, when the server
/// only marked it (`deletionTimestamp`); `None` when the answer is a
/// `Status` or the object was not marked.
pub fn marked_by(answer: &str) -> Option<Vec<String>> {
    let object: serde_json::Value = serde_json::from_str(answer).ok()?;
    if object.get("kind").and_then(serde_json::Value::as_str) == Some("Status") {
        return None;
    }
    object.pointer("/metadata/deletionTimestamp")?;
    Some(finalizers_of(&object))
}

/// `metadata.finalizers` of an object as the server answered it.
fn finalizers_of(object: &serde_json::Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The ICSPs that may go, each with the version proven: still the version
/// converted, its IDMS on the server with the planned spec.
fn deletable_icsps<'a>(
    now: &Inputs,
    inputs: &'a Inputs,
    replacements: &[Replacement],
    kept: &mut Kept<'a>,
) -> Result<Vec<(&'a str, Preconditions)>> {
    let mut deletable = Vec::new();
    for icsp in &inputs.icsps {
        let name = icsp.metadata.name.as_str();
        let Some(Replacement::Idms(idms)) = replacements
            .iter()
            .find(|r| matches!(r, Replacement::Idms(_)) && r.name() == name)
        else {
            continue;
        };
        let was = Preconditions::of(&icsp.metadata);
        let Some(current) = now.icsps.iter().find(|o| o.metadata.name == name) else {
            done(Done::AlreadyDeleted { name })?;
            continue;
        };
        let is = Preconditions::of(&current.metadata);
        let Some(proven) = was.clone().filter(|w| Some(w) == is.as_ref()) else {
            kept.reasons.push(format!(
                "{}: not deleted",
                change_of(name, was.as_ref(), is.as_ref())
            ));
            kept.changed.push(name);
            continue;
        };
        match now.idmss.iter().find(|o| o.metadata.name == name) {
            Some(o) if o.spec == idms.spec => deletable.push((name, proven)),
            on_server => kept.reasons.push(format!(
                "ImageContentSourcePolicy/{name} kept: ImageDigestMirrorSet/{name} is {} on the server",
                if on_server.is_some() { "different" } else { "missing" }
            )),
        }
    }
    Ok(deletable)
}

/// Deletes each ICSP at its proven version; a conflict stops the rest (the
/// proof counted on that ICSP as it was). Returns the deletes the server
/// accepted, to wait for (an ICSP that finalizers hold is only marked).
async fn delete_proven<'a>(
    connection: &Connection,
    deletable: &[(&'a str, Preconditions)],
    wait: Duration,
    kept: &mut Kept<'a>,
) -> Result<Vec<Deleted<'a>>> {
    let mut deleted = Vec::new();
    for (i, (name, proven)) in deletable.iter().enumerate() {
        match connection
            .delete(&IMAGE_CONTENT_SOURCE_POLICIES, name, Some(proven), false)
            .await
            .map_err(inputs::cluster_failure)?
        {
            Reply::Ok(answer) => {
                if let Some(finalizers) = marked_by(&answer) {
                    note(Note::Marked {
                        name,
                        finalizers: &finalizers,
                        wait,
                    });
                }
                deleted.push((*name, proven.uid.clone()));
            }
            Reply::NotFound => done(Done::AlreadyDeleted { name })?,
            Reply::Conflict(message) => {
                let current = connection
                    .get(&IMAGE_CONTENT_SOURCE_POLICIES, name)
                    .await
                    .map_err(inputs::cluster_failure)?;
                let is = current.as_ref().and_then(preconditions_of);
                if current.is_some() && is.as_ref() == Some(proven) {
                    kept.reasons.push(format!(
                        "ImageContentSourcePolicy/{name} kept: the server refused the delete: {message}"
                    ));
                } else {
                    kept.reasons.push(format!(
                        "{}: not deleted",
                        change_of(name, Some(proven), is.as_ref())
                    ));
                    kept.changed.push(name);
                }
                let rest: Vec<String> = deletable[i + 1..]
                    .iter()
                    .map(|(n, _)| format!("ImageContentSourcePolicy/{n}"))
                    .collect();
                if !rest.is_empty() {
                    kept.reasons.push(format!(
                        "{} not deleted either: the proof counted on ImageContentSourcePolicy/{name} as it was",
                        rest.join(", ")
                    ));
                }
                break;
            }
            Reply::Forbidden(message) => kept.reasons.push(format!(
                "ImageContentSourcePolicy/{name} kept: the server refused the delete: {message}"
            )),
        }
    }
    Ok(deleted)
}

/// The proof again, on the server's objects as they are right before the
/// deletes: the rendered files must not change when the ICSPs go.
fn prove_deletion(now: &Inputs, deletable: &[(&str, Preconditions)]) -> Result<()> {
    let mut after = now.clone();
    after
        .icsps
        .retain(|o| !deletable.iter().any(|(n, _)| *n == o.metadata.name));
    let names = deletable
        .iter()
        .map(|(n, _)| format!("ImageContentSourcePolicy/{n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let render = |inputs: &Inputs| {
        mirrorpolicy::render::pool::render_pool(inputs, "worker").map_err(|e| {
            Failure::refused(format!(
                "not deleted ({names}): the MCO refuses to render the objects now on the server: {e}"
            ))
        })
    };
    let (before, after) = (render(now)?, render(&after)?);
    if let Some((path, old, new)) = migrate::first_difference(&before, &after) {
        unified(&path, &old, &new);
        return Err(Failure::refused(format!(
            "not deleted ({names}): on the objects now on the server, {path} would change without them (diff above)"
        ))
        .with_hint("the objects changed since the plan; look at the diff, then run again to convert and prove them as they are now")
        .into());
    }
    note(Note::EquivalentOnServer { names: &names });
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
        .with_prompt(out::confirmation(&connection.server))
        .default(false)
        .interact()
        .unwrap_or(false);
    if confirmed {
        Ok(())
    } else {
        Err(Failure::refused("not confirmed; nothing was written").into())
    }
}
