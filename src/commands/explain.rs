//! `explain`: explain each image against what the MCO renders from the
//! cluster's objects (live or `-f`), or against a node's registries.conf,
//! drop-ins and policy.json.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use crate::output;
use mirrorpolicy::explain::{self, Config, Explanation};
use mirrorpolicy::policy::{self, PolicyFile};
use mirrorpolicy::quote::go_quote;
use mirrorpolicy::registries::{self, ConfigFile, RegistriesConf, ShortNameMode, Undetermined};

use mirrorpolicy::crio::{effective_short_name_mode, NodeRuntime, ShortNameResolver};
use mirrorpolicy::node_files::{is_absent, pull_breakers, NodeFiles, NodeRead};
use mirrorpolicy::node_paths::{
    crio_policy_path, folder_of, runtime_use, DropInFolder, RuntimeUse, POLICY_JSON,
    REGISTRIES_CONF, REGISTRIES_CONF_D,
};
use mirrorpolicy::objects::ClusterVersion;
use mirrorpolicy::render::findings::RenderWarning;
use mirrorpolicy::render::node::NodeView;
use mirrorpolicy::source::api::{
    Read, CLUSTER_VERSIONS, MACHINE_CONFIG_POOLS, MIRROR_CONFIG, NODES,
};
use mirrorpolicy::source::drop_in_dir::{self, Listing};
use mirrorpolicy::source::{node_dir, node_live};

use crate::cli::{ExplainArgs, ExplainOutput, NodeReadArgs};
use crate::exit::{ExitCode, Failure};
use crate::settings::{node_read_options, Settings};
use crate::steps::at_exit::release;
use crate::steps::{inputs, journal, probe};
use crate::term;
use mirrorpolicy::probe::Verdict;

/// Runs `explain`, printing the explanations in `format`: 0 when every
/// image pulls as configured, 1 when at least one pull would be refused or
/// fail, 2 when an image reference is invalid. Warnings name its commands
/// as the user ran the plugin.
pub fn run(settings: &Settings, args: &ExplainArgs, format: ExplainOutput) -> Result<ExitCode> {
    let (mut items, code) = report(settings, args)?;
    print(settings, format, &mut items)?;
    Ok(code)
}

/// The explanation of each image, and the exit code they call for (as
/// [`run`] says), without printing them: what `run` prints and `-o
/// summary` counts.
pub fn report(settings: &Settings, args: &ExplainArgs) -> Result<(Vec<Explanation>, ExitCode)> {
    check_node_args(args)?;
    if let Some(node) = &args.node {
        let (files, runtime) = match &args.node_files {
            Some(dir) => (
                load_node(dir, node)?,
                offline_runtime(settings, args, node)?,
            ),
            None => read_node(
                settings,
                args,
                node,
                args.node_timeout.as_deref().unwrap_or("60s"),
            )?,
        };
        let resolver = ShortNameResolver::of_node(&runtime);
        return match node_config(settings, &files, &runtime) {
            Ok(setup) => {
                let warnings = setup.warnings;
                explain_files(
                    settings,
                    args,
                    setup.registries,
                    setup.policy,
                    setup.namespace.as_deref(),
                    resolver,
                    &warnings,
                )
            }
            Err(broken) => explain_broken(settings, args, &files.node, &broken, resolver),
        };
    }
    if args.registries_conf.is_none() && args.registries_conf_d.is_none() {
        if args.policy_json.is_some() {
            return Err(Failure::input(
                "--policy-json needs the node's registries configuration too",
            )
            .with_hint("add --registries-conf (and --registries-conf-d), or drop --policy-json to explain against the cluster")
            .into());
        }
        return run_on_objects(settings, args);
    }
    let flag_runtime = flag_runtime(args)?;
    let resolver = ShortNameResolver::of_files(flag_runtime.as_ref());
    let runtime = flag_runtime.unwrap_or_default();
    let mut warnings = Vec::new();
    let mut conf = load_registries(
        args.registries_conf.as_deref(),
        args.registries_conf_d.as_deref(),
        &runtime,
        &mut warnings,
    )?;
    if let Some(path) = &args.short_name_aliases {
        match load_short_name_aliases(path, &runtime)? {
            Ok(aliases) => conf.add_short_name_aliases(aliases),
            Err(message) => conf.refuse_short_names(message),
        }
    }
    let policy = args.policy_json.as_deref().map(load_policy).transpose()?;
    explain_files(settings, args, conf, policy, None, resolver, &warnings)
}

/// The combinations clap cannot say: `-f` with `--node` only reads the
/// node's CRI-O version beside `--node-files`, and `--crio-version` is for
/// node files.
fn check_node_args(args: &ExplainArgs) -> Result<()> {
    if args.node.is_some() && !args.filenames.is_empty() && args.node_files.is_none() {
        return Err(Failure::input(
            "-f with --node: the Node and ClusterVersion objects are read from files only beside --node-files DIR",
        )
        .with_hint("drop -f to read the node live, or add --node-files DIR")
        .into());
    }
    let node_files =
        args.node.is_some() || args.registries_conf.is_some() || args.registries_conf_d.is_some();
    if args.short_name_aliases.is_some()
        && args.registries_conf.is_none()
        && args.registries_conf_d.is_none()
    {
        return Err(Failure::input(
            "--short-name-aliases is for node files: give --registries-conf or --registries-conf-d",
        )
        .into());
    }
    if args.crio_version.is_some() && !node_files {
        return Err(Failure::input(
            "--crio-version is for node files: give --node, --registries-conf or --registries-conf-d",
        )
        .into());
    }
    Ok(())
}

/// A node whose files break every pull: each image carries why, exit 1;
/// exit 3 when that depends on the node's CRI-O release, which is not known.
fn explain_broken(
    settings: &Settings,
    args: &ExplainArgs,
    node: &str,
    broken: &Broken,
    resolver: ShortNameResolver,
) -> Result<(Vec<Explanation>, ExitCode)> {
    let mode = effective_short_name_mode(flag_mode(args), None, resolver);
    let whys = broken.whys.join("; ");
    let why = match broken.undetermined {
        Some(Undetermined::ReleaseUnknown) => format!(
            "every pull on node {node} fails unless its CRI-O loads these files: {whys} \
             (give the node's version with --crio-version, as its Node's \
             status.nodeInfo.containerRuntimeVersion says)"
        ),
        Some(Undetermined::NotModelled | Undetermined::MapOrder) => {
            format!("every pull on node {node} fails unless its CRI-O loads these files: {whys}")
        }
        None => format!("every pull on node {node} fails: {whys}"),
    };
    let items: Vec<Explanation> = args
        .images
        .iter()
        .map(|image| Explanation {
            image: image.clone(),
            namespace: settings.namespace().map(str::to_string),
            short_name_mode: mode,
            candidates: Vec::new(),
            warnings: Vec::new(),
            error: Some(why.clone()),
            undetermined: broken.undetermined.is_some(),
            journal: None,
        })
        .collect();
    let code = if broken.undetermined.is_some() {
        ExitCode::Cluster
    } else {
        ExitCode::Findings
    };
    Ok((items, code))
}

/// `--short-name-mode`, when given.
fn flag_mode(args: &ExplainArgs) -> Option<ShortNameMode> {
    args.short_name_mode.map(ShortNameMode::from)
}

/// Explains against a node's registries configuration and policy, in the
/// namespace given, with the short-name mode of who reads them.
fn explain_files(
    settings: &Settings,
    args: &ExplainArgs,
    conf: RegistriesConf,
    policy: Option<PolicyFile>,
    namespace: Option<&str>,
    resolver: ShortNameResolver,
    warnings: &[String],
) -> Result<(Vec<Explanation>, ExitCode)> {
    let mode = effective_short_name_mode(flag_mode(args), conf.short_name_mode, resolver);
    let config = Config {
        registries: &conf,
        policy: policy.as_ref(),
        scope_origins: None,
    };
    let (mut items, code) = explain_all(&config, &args.images, mode, namespace);
    for item in &mut items {
        item.warnings.extend(warnings.iter().cloned());
    }
    let setup = super::probe_setup(&args.probe);
    let (mut items, code) = if setup.enabled {
        let ctx = probe::context(
            &setup,
            probe::offline_auth(&setup)?,
            probe::tls_settings(&setup)?,
            probe::registries_d_from_dir(setup.registries_d.as_deref())?,
        );
        probe_items(ctx, items, code, setup.concurrency)?
    } else {
        (items, code)
    };
    let code = journal::attach(settings, &journal_plan(args), &mut items, code)?;
    // The process exits once the items are printed: freeing a
    // configuration of 100,000s of entries one allocation at a time would
    // only delay that.
    std::mem::forget(conf);
    Ok((items, code))
}

/// While the cluster updates between releases whose CRI-O resolves short
/// names differently, a node resolves them the older way until its pool is
/// updated: an image that resolves otherwise in the older mode is
/// undetermined (exit 3 unless a pull fails), saying both.
fn short_names_during_update(
    config: &Config<'_>,
    cv: &ClusterVersion,
    items: &mut [Explanation],
    code: ExitCode,
    namespace: Option<&str>,
) -> ExitCode {
    let Some((older, from, newer, to)) = mirrorpolicy::crio::short_name_modes_during_update(cv)
    else {
        return code;
    };
    let resolution = |mode| {
        move |image: &str| match explain::explain(config, image, mode, namespace) {
            Ok(e) => match e.error {
                Some(error) => Err(error),
                None => Ok(e
                    .candidates
                    .iter()
                    .map(|c| c.reference.clone())
                    .collect::<Vec<_>>()),
            },
            Err(e) => Err(e.to_string()),
        }
    };
    let mut undetermined = false;
    for item in items.iter_mut() {
        let (was, now) = (
            resolution(older)(&item.image),
            resolution(newer)(&item.image),
        );
        if was == now {
            continue;
        }
        let say = |r: &Result<Vec<String>, String>| match r {
            Ok(candidates) => format!("tries {}", candidates.join(", ")),
            Err(e) => format!("fails ({e})"),
        };
        item.undetermined = true;
        item.error = Some(format!(
            "ClusterVersion/version is updating from {from} to {to}: a node not yet \
             updated resolves short names with short-name-mode {} and {}; an updated one, with {}, {}",
            older.as_str(),
            say(&was),
            newer.as_str(),
            say(&now)
        ));
        undetermined = true;
    }
    let failing = items.iter().any(|i| i.error.is_some() && !i.undetermined);
    match code {
        ExitCode::Input => ExitCode::Input,
        _ if failing => ExitCode::Findings,
        _ if undetermined => ExitCode::Cluster,
        other => other,
    }
}

/// Explains against what the MCO renders from cluster objects for a pool.
fn run_on_objects(settings: &Settings, args: &ExplainArgs) -> Result<(Vec<Explanation>, ExitCode)> {
    let namespace = settings.namespace();
    let mut inputs = inputs::load_for_pool(
        settings,
        &args.filenames,
        MIRROR_CONFIG,
        namespace,
        &args.pool,
    )?;
    inputs::overlay(settings, &mut inputs, &args.with, true)?;
    let (rendered, view) =
        inputs::render_view_releasing_sets(settings, &mut inputs, &args.pool, namespace)?;
    let mode = effective_short_name_mode(
        flag_mode(args),
        view.registries.short_name_mode,
        ShortNameResolver::of_cluster(inputs.cluster_version.as_ref()),
    );
    let config = Config::from(&view);
    let (mut items, mut code) = explain_all(&config, &args.images, mode, namespace);
    if args.short_name_mode.is_none() {
        if let Some(cv) = &inputs.cluster_version {
            code = short_names_during_update(&config, cv, &mut items, code, namespace);
        }
    }
    let setup = super::probe_setup(&args.probe);
    if setup.enabled {
        let ctx =
            probe::context_for_objects(settings, &setup, &args.filenames, &rendered, &inputs)?;
        (items, code) = probe_items(ctx, items, code, setup.concurrency)?;
    }
    match namespace {
        None => {
            let views = inputs::namespace_views(&inputs, &rendered, &args.pool, |_| true)?;
            add_namespace_policies(&mut items, &views, &view.registries, mode);
        }
        Some(ns) => {
            if !inputs
                .image_policies
                .iter()
                .any(|p| p.metadata.namespace.as_deref() == Some(ns))
            {
                for item in &mut items {
                    item.warnings.push(format!(
                        "namespace {ns} has no ImagePolicy: its pods get the cluster-wide policy"
                    ));
                }
            }
        }
    }
    for item in &mut items {
        let prefixes: Vec<String> = item
            .candidates
            .iter()
            .filter_map(|c| c.registry.as_ref().map(|r| r.prefix.clone()))
            .collect();
        for p in prefixes {
            for c in rendered.order_conflicts.get(&p).into_iter().flatten() {
                let w = format!("{p}: {c}");
                if !item.warnings.contains(&w) {
                    item.warnings.push(w);
                }
            }
        }
    }
    for item in &mut items {
        add_refused_by_api_server(item, &rendered.warnings);
    }
    if let Some(ns) = namespace {
        for item in &mut items {
            add_scope_conflicts(item, &rendered.warnings, ns);
        }
    }
    let code = journal::attach(settings, &journal_plan(args), &mut items, code)?;
    release((inputs, rendered, view));
    Ok((items, code))
}

/// Adds to `item` the render's warning that the API server of the
/// cluster's release refuses some of the objects beside the others, where
/// one of them gives a candidate its mirrors: what is explained is then
/// not what the cluster has or gets.
fn add_refused_by_api_server(item: &mut Explanation, warnings: &[RenderWarning]) {
    for w in warnings {
        let RenderWarning::RefusedByApiServer { objects, .. } = w else {
            continue;
        };
        let uses = item.candidates.iter().any(|c| {
            c.registry
                .iter()
                .flat_map(|r| &r.origins)
                .chain(c.sources.iter().flat_map(|s| &s.origins))
                .chain(c.skipped.iter().flat_map(|s| &s.origins))
                .any(|o| objects.contains(o))
        });
        let w = w.to_string();
        if uses && !item.warnings.contains(&w) {
            item.warnings.push(w);
        }
    }
}

/// Adds to `item` the warnings of ImagePolicies of namespace `ns` whose
/// scopes the MCO dropped for a ClusterImagePolicy's, where a dropped scope
/// applies to one of the item's candidates (for other images the drop
/// changes nothing).
fn add_scope_conflicts(item: &mut Explanation, warnings: &[RenderWarning], ns: &str) {
    use mirrorpolicy::reference::Reference;
    let references: Vec<Reference> = item
        .candidates
        .iter()
        .filter_map(|c| Reference::parse(&c.reference).ok())
        .collect();
    for w in warnings {
        let RenderWarning::ScopeConflict {
            namespace, scopes, ..
        } = w
        else {
            continue;
        };
        let concerns = scopes.iter().any(|s| {
            references
                .iter()
                .any(|r| mirrorpolicy::policy::scope_covers(s, r))
        });
        if namespace == ns && concerns {
            item.warnings.push(w.to_string());
        }
    }
}

/// Without `-n`: explains each image again with the policy of every
/// namespace the MCO wrote one for (`/etc/crio/policies/<ns>.json`), and
/// records where it differs from the cluster-wide policy.
fn add_namespace_policies(
    items: &mut [Explanation],
    views: &BTreeMap<String, NodeView>,
    registries: &RegistriesConf,
    mode: ShortNameMode,
) {
    for (ns, view) in views {
        let config = Config {
            registries,
            policy: Some(&view.policy),
            scope_origins: Some(&view.scope_origins),
        };
        for item in items.iter_mut().filter(|i| !i.candidates.is_empty()) {
            if let Ok(theirs) = explain::explain(&config, &item.image, mode, Some(ns)) {
                explain::add_namespace_policies(item, &[(ns.to_string(), theirs)]);
            }
        }
    }
}

/// Probes every explained image; exit 1 when one is not served (or served
/// without its signature, or with another digest), else exit 3 when what
/// one gives cannot be told (a source did not answer in time).
fn probe_items(
    ctx: mirrorpolicy::probe::ProbeContext,
    items: Vec<Explanation>,
    code: ExitCode,
    concurrency: usize,
) -> Result<(Vec<Explanation>, ExitCode)> {
    let items = mirrorpolicy::probe::probe_all(&ctx, items, concurrency)
        .context(Failure::cluster("cannot start the network runtime"))?;
    let verdicts: Vec<Verdict> = items.iter().map(mirrorpolicy::probe::verdict).collect();
    let fails = verdicts.iter().any(|v| {
        !matches!(
            v,
            Verdict::Served(_) | Verdict::NotProbed | Verdict::Undetermined(_)
        )
    });
    let undetermined = verdicts
        .iter()
        .any(|v| matches!(v, Verdict::Undetermined(_)));
    let code = match code {
        ExitCode::Success if fails => ExitCode::Findings,
        ExitCode::Success if undetermined => ExitCode::Cluster,
        other => other,
    };
    Ok((items, code))
}

/// Explains every image, each on its own: one that cannot be resolved
/// carries its error and the others are still explained. Returns the exit
/// code the results call for, and prints a hint for the failures once.
fn explain_all(
    config: &Config<'_>,
    images: &[String],
    mode: ShortNameMode,
    namespace: Option<&str>,
) -> (Vec<Explanation>, ExitCode) {
    let mut code = ExitCode::Success;
    let mut hints: Vec<&'static str> = Vec::new();
    let items = images
        .iter()
        .map(
            |image| match explain::explain(config, image, mode, namespace) {
                Ok(item) => {
                    if item.error.is_some() && code == ExitCode::Success {
                        code = ExitCode::Findings;
                    }
                    item
                }
                Err(e) => {
                    code = match (&e, code) {
                        (explain::ExplainError::InvalidReference { .. }, _) => ExitCode::Input,
                        (_, ExitCode::Input) => ExitCode::Input,
                        _ => ExitCode::Findings,
                    };
                    if matches!(e, explain::ExplainError::InvalidReference { .. }) {
                        eprintln!("error: {}", term::escape_controls(&e.to_string(), false));
                    }
                    if let Some(h) = hint_for(&e) {
                        if !hints.contains(&h) {
                            hints.push(h);
                        }
                    }
                    let mut item = Explanation::unresolved(image, mode, namespace, &e);
                    // A rule that can never match still says why it does
                    // not apply, even when the name does not resolve.
                    item.warnings = explain::hostless_prefix_warnings(config.registries, image);
                    item
                }
            },
        )
        .collect();
    for h in hints {
        eprintln!("hint: {h}");
    }
    (items, code)
}

fn print(settings: &Settings, format: ExplainOutput, items: &mut [Explanation]) -> Result<()> {
    for item in items.iter_mut() {
        for w in &mut item.warnings {
            *w = crate::cli::as_said_by(settings.name, w).into_owned();
        }
        for fix in item.candidates.iter_mut().filter_map(|c| c.fix.as_mut()) {
            for command in fix.commands_mut() {
                *command = crate::cli::as_said_by(settings.name, command).into_owned();
            }
        }
    }
    let items = &*items;
    let sink = if format == ExplainOutput::Table {
        term::Sink::Text
    } else {
        term::Sink::Exact
    };
    settings.print_to(sink, |out| match format {
        ExplainOutput::Table => output::explain::write_table(out, items, &settings.layout(false)),
        ExplainOutput::Json => output::write_json(out, items),
        ExplainOutput::Yaml => output::write_yaml(out, items),
    })?;
    Ok(())
}

fn hint_for(e: &explain::ExplainError) -> Option<&'static str> {
    match e {
        explain::ExplainError::ShortName { .. } => Some(
            "use a fully-qualified reference (registry/namespace/name:tag), add an [aliases] entry, \
             or try --short-name-mode disabled to see every candidate",
        ),
        explain::ExplainError::InvalidReference { .. } => None,
    }
}

fn read(path: &Path, what: &str) -> Result<String> {
    fs::read_to_string(path)
        .with_context(|| Failure::input(format!("cannot read {what} \"{}\"", path.display())))
}

/// The drop-ins of a registries.conf.d folder, as containers/image lists
/// and reads them ([`drop_in_dir`]), with what it skips: a linked folder.
fn read_drop_ins(dir: &Path, warnings: &mut Vec<String>) -> Result<Vec<(String, String)>> {
    let listing = drop_in_dir::list(dir, DropInFolder::RegistriesConfD).with_context(|| {
        Failure::input(format!(
            "cannot read registries.conf.d folder \"{}\"",
            dir.display()
        ))
    })?;
    let paths = match listing {
        Listing::Files(paths) => paths,
        Listing::LinkNotFollowed { target } => {
            warnings.push(format!(
                "{} is a link to {}: containers/image lists the folder without following a link, so CRI-O reads none of the drop-ins behind it",
                dir.display(),
                target.display()
            ));
            Vec::new()
        }
    };
    let mut drop_ins = Vec::new();
    for p in paths {
        let text = drop_in_dir::read(&p).with_context(|| {
            Failure::input(format!(
                "cannot read registries.conf drop-in \"{}\"",
                p.display()
            ))
        })?;
        if let Some(text) = text {
            drop_ins.push((p.display().to_string(), text));
        }
    }
    Ok(drop_ins)
}

/// Reads the main file and the drop-ins of a folder as containers/image
/// does ([`read_drop_ins`]); `warnings` gets what it skips.
fn load_registries(
    main: Option<&Path>,
    dir: Option<&Path>,
    runtime: &NodeRuntime,
    warnings: &mut Vec<String>,
) -> Result<RegistriesConf> {
    let main_text = main.map(|p| read(p, "registries.conf")).transpose()?;
    let main_name = main.map(|p| p.display().to_string());
    let drop_ins = match dir {
        Some(dir) => read_drop_ins(dir, warnings)?,
        None => Vec::new(),
    };
    let main_file = match (&main_name, &main_text) {
        (Some(name), Some(text)) => Some(ConfigFile { name, text }),
        _ => None,
    };
    let drop_in_files: Vec<ConfigFile> = drop_ins
        .iter()
        .map(|(name, text)| ConfigFile { name, text })
        .collect();
    registries::load_on(main_file.as_ref(), &drop_in_files, runtime).map_err(|e| {
        match e.undetermined {
            Some(Undetermined::ReleaseUnknown) => Failure::cluster(format!("undetermined: {e}"))
                .with_hint("give the CRI-O version of the host the files come from with --crio-version (crio --version, or the Node's status.nodeInfo.containerRuntimeVersion)")
                .into(),
            Some(Undetermined::NotModelled | Undetermined::MapOrder) => {
                Failure::cluster(format!("undetermined: {e}")).into()
            }
            None => Failure::input(e.to_string()).into(),
        }
    })
}

/// Reads the machine-written short-name-aliases.conf: its aliases, or
/// upstream's message when it cannot be loaded (every short name fails
/// with it; qualified names do not read the file). Undetermined when that
/// depends on the CRI-O release.
fn load_short_name_aliases(
    path: &Path,
    runtime: &NodeRuntime,
) -> Result<Result<BTreeMap<String, registries::Alias>, String>> {
    let name = path.display().to_string();
    let text = read(path, "short-name-aliases.conf")?;
    let file = ConfigFile {
        name: &name,
        text: &text,
    };
    match registries::load_short_name_aliases(&file, runtime) {
        Ok(aliases) => Ok(Ok(aliases)),
        Err(e) => {
            // Upstream names this file, without registries.conf's
            // "validating short-name aliases" or the place in it.
            let message = format!(
                "loading short-name aliases config file {}: {}",
                go_quote(&name),
                e.message
                    .strip_prefix("validating short-name aliases: ")
                    .unwrap_or(&e.message)
            );
            match e.undetermined {
                Some(_) => Err(Failure::cluster(format!("undetermined: {message}")).into()),
                None => Ok(Err(message)),
            }
        }
    }
}

/// `--crio-version`, when given.
fn flag_runtime(args: &ExplainArgs) -> Result<Option<NodeRuntime>> {
    args.crio_version
        .as_deref()
        .map(|v| NodeRuntime::from_flag(v).map_err(|e| Failure::input(e).into()))
        .transpose()
}

/// The CRI-O of a node read from a node-files folder: `--crio-version`,
/// else its Node or the ClusterVersion among the `-f` objects, else unknown.
fn offline_runtime(settings: &Settings, args: &ExplainArgs, node: &str) -> Result<NodeRuntime> {
    if let Some(runtime) = flag_runtime(args)? {
        return Ok(runtime);
    }
    if args.filenames.is_empty() {
        return Ok(NodeRuntime::unknown());
    }
    let inputs = inputs::load_objects(settings, &args.filenames, NODE_RUNTIME, None)?;
    Ok(mirrorpolicy::crio::of_node(
        node,
        &inputs.nodes,
        inputs.cluster_version.as_ref(),
        &inputs.pools,
    ))
}

/// What `explain --node --node-files -f` reads: the node's CRI-O version.
const NODE_RUNTIME: &[Read] = &[
    Read::one(&[NODES]),
    Read::one(&[CLUSTER_VERSIONS]),
    Read::one(&[MACHINE_CONFIG_POOLS]),
];

/// One node's files from a node-files folder.
fn load_node(dir: &Path, node: &str) -> Result<NodeFiles> {
    let nodes = node_dir::read(dir).map_err(|e| Failure::input(e.to_string()))?;
    let known: Vec<&str> = nodes.iter().map(|n| n.node.as_str()).collect();
    if !known.contains(&node) {
        return Err(Failure::input(format!(
            "no node {node} in \"{}\" (found: {})",
            dir.display(),
            known.join(", ")
        ))
        .into());
    }
    Ok(nodes
        .into_iter()
        .find(|n| n.node == node)
        .unwrap_or_default())
}

/// One node's files read live through its machine-config-daemon pod, within
/// `timeout`: a node the cluster does not have is an input error (exit 2)
/// naming the known ones, a node that cannot be read a cluster error (exit
/// 3) saying why.
fn read_node(
    settings: &Settings,
    args: &ExplainArgs,
    node: &str,
    timeout: &str,
) -> Result<(NodeFiles, NodeRuntime)> {
    let read = NodeReadArgs {
        concurrency: 1,
        timeout: timeout.to_string(),
    };
    let options = node_read_options(&read)?;
    let cluster_options = settings.cluster_options()?;
    let rt = inputs::runtime()?;
    let nodes = node_live::list_nodes(&rt, &cluster_options).map_err(inputs::cluster_failure)?;
    let known: Vec<&str> = nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    let wanted = [node.to_string()];
    if let Some(message) = node_live::unknown_node(&wanted, &known) {
        return Err(Failure::input(message).into());
    }
    let runtime = match flag_runtime(args)? {
        Some(runtime) => runtime,
        None => mirrorpolicy::crio::of_node(node, &nodes, None, &[]),
    };
    let reads = node_live::read_live(&rt, &cluster_options, &wanted, &options, |m| {
        settings.verbose(|| m)
    })
    .map_err(inputs::cluster_failure)?;
    match reads.into_iter().next() {
        Some(NodeRead::Read(files)) => Ok((files, runtime)),
        Some(NodeRead::NotRead { why, .. }) => Err(Failure::cluster(format!(
            "node {node}: files not read: {why}"
        ))
        .with_hint("check the node's machine-config-daemon pod, or explain against a collect-node-files folder with --node-files DIR")
        .into()),
        None => Err(Failure::cluster(format!("node {node}: files not read")).into()),
    }
}

/// Why every pull on a node fails, or may fail.
struct Broken {
    whys: Vec<String>,
    /// Set when it depends on the node's CRI-O release, which is not
    /// known, or on a reading the tool does not model.
    undetermined: Option<Undetermined>,
}

/// What CRI-O loads from a node's files.
struct NodeSetup {
    registries: RegistriesConf,
    policy: Option<PolicyFile>,
    namespace: Option<String>,
    /// What the runtime skips or takes as absent, said on every image.
    warnings: Vec<String>,
}

/// A node's registries configuration and policy from its files, read as
/// CRI-O reads them: registries.conf and the drop-ins of
/// [`NodeFiles::runtime_children`] in name order, then the namespace's CRI-O
/// policy (`/etc/crio/policies/<ns>.json`) when `-n` names one the node has,
/// else policy.json; each file named `<node>:<host path>`. `Err` holds why
/// every pull (of the namespace) fails: [`pull_breakers`], or a namespace
/// policy that does not load.
fn node_config(
    settings: &Settings,
    files: &NodeFiles,
    runtime: &NodeRuntime,
) -> Result<NodeSetup, Broken> {
    let breakers = pull_breakers(files, runtime);
    if !breakers.is_empty() {
        // A file that breaks every pull whatever the release decides it.
        let undetermined = breakers
            .iter()
            .map(|b| b.undetermined)
            .collect::<Option<Vec<_>>>()
            .and_then(|reasons| reasons.first().copied());
        return Err(Broken {
            whys: breakers
                .into_iter()
                .filter(|b| b.undetermined.is_some() == undetermined.is_some())
                .map(|b| b.why)
                .collect(),
            undetermined,
        });
    }
    let node = files.node.as_str();
    // pull_breakers has checked every file below is UTF-8 and loads.
    let text = |path: &str| -> Option<(String, &str)> {
        let text = std::str::from_utf8(files.files.get(path)?).ok()?;
        Some((format!("{node}:{path}"), text))
    };
    let main = text(REGISTRIES_CONF);
    let drop_ins: Vec<(String, &str)> = files
        .runtime_children(REGISTRIES_CONF_D)
        .filter_map(|(path, _)| text(path))
        .collect();
    let main_file = main.as_ref().map(|(name, text)| ConfigFile { name, text });
    let drop_in_files: Vec<ConfigFile> = drop_ins
        .iter()
        .map(|(name, text)| ConfigFile { name, text })
        .collect();
    let registries =
        registries::load_on(main_file.as_ref(), &drop_in_files, runtime).map_err(|e| Broken {
            whys: vec![e.to_string()],
            undetermined: e.undetermined,
        })?;
    let namespace = settings
        .namespace()
        .filter(|ns| files.files.contains_key(&crio_policy_path(ns)))
        .map(str::to_string);
    let policy_path = match &namespace {
        Some(ns) => crio_policy_path(ns),
        None => POLICY_JSON.to_string(),
    };
    let policy = match files.files.get(&policy_path) {
        None => None,
        Some(bytes) => {
            let name = format!("{node}:{policy_path}");
            Some(
                policy::parse_policy_bytes(&name, bytes).map_err(|e| Broken {
                    whys: vec![e.to_string()],
                    undetermined: None,
                })?,
            )
        }
    };
    Ok(NodeSetup {
        registries,
        policy,
        namespace,
        warnings: node_warnings(files),
    })
}

/// What the runtime skips on a node: a linked drop-in folder, files it
/// never reads, links that dangle (read as absent).
fn node_warnings(files: &NodeFiles) -> Vec<String> {
    let node = files.node.as_str();
    let mut out = Vec::new();
    if let Some(link) = files.linked_folder(REGISTRIES_CONF_D) {
        out.push(format!(
            "{node}:{REGISTRIES_CONF_D} is a link to {}: containers/image lists the folder without following a link, so CRI-O reads none of the drop-ins behind it",
            link.target.as_deref().unwrap_or("?")
        ));
    }
    for (path, why) in files.ignored() {
        if folder_of(path).is_some() && files.runtime_lists(folder_of(path).unwrap_or_default()) {
            out.push(format!("{node}:{path} is ignored: {why}"));
        }
    }
    for (path, why) in &files.unreadable {
        if is_absent(why) && runtime_use(path) == RuntimeUse::Read {
            out.push(format!(
                "{node}:{path} cannot be resolved ({why}): containers/image takes it as absent"
            ));
        }
    }
    out
}

fn load_policy(path: &Path) -> Result<PolicyFile> {
    let bytes = fs::read(path).with_context(|| {
        Failure::input(format!("cannot read policy.json \"{}\"", path.display()))
    })?;
    policy::parse_policy_bytes(&path.display().to_string(), &bytes)
        .map_err(|e| Failure::input(e.to_string()).into())
}

/// The pull log `explain` replays, from its flags.
fn journal_plan(args: &ExplainArgs) -> journal::JournalPlan<'_> {
    journal::JournalPlan {
        file: args.journal.journal_file.as_deref(),
        journal: args.journal.journal,
        must_gather: &args.filenames,
        node: args.node.as_deref(),
        since: args.journal.since.as_deref(),
        until: args.journal.until.as_deref(),
    }
}
