//! Shared by the commands that read cluster objects: load them from `-f`
//! files or the live cluster, check them as the API server would, and
//! render a pool as the MCO does.

use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use anyhow::{Context, Result};

use mirrorpolicy::decode;
use mirrorpolicy::diff::{layers, Files};
use mirrorpolicy::labels::Selector;
use mirrorpolicy::objects::crd_schema::CrdSchema;
use mirrorpolicy::objects::MachineConfigPool;
use mirrorpolicy::render::findings::{Release, RenderWarning};
use mirrorpolicy::render::machineconfig::generated_registries_name;
use mirrorpolicy::render::node::{node_view, node_view_on, NodeView, NodeViewError};
use mirrorpolicy::render::policy::POLICY_JSON;
use mirrorpolicy::render::pool::{
    generating_pool, render_pool, Rendered, REGISTRIES_CONF, SEARCH_REGISTRIES_CONF,
};
use mirrorpolicy::source::api::{
    self as live, ClusterError, Read, MACHINE_CONFIG_POOLS, MIRROR_CONFIG,
};
use mirrorpolicy::source::{file, load_paths_checked, load_paths_with, Inputs};
use serde_json::Value;

use crate::exit::Failure;
use crate::settings::Settings;

/// Reads the mirror configuration: from the files named by `-f`, or from
/// the live cluster when there are none.
/// Files are read strictly: every field is checked against the kind's CRD.
/// Fields are checked against the first of `crds` for each kind, then
/// the CRDs among the files (a must-gather's), then the tool's own trees.
pub fn read_inputs(settings: &Settings, paths: &[PathBuf], crds: &[CrdSchema]) -> Result<Inputs> {
    read_selected(settings, paths, MIRROR_CONFIG, None, None, Some(crds))
}

/// Reads the mirror configuration, warning about objects the API server
/// would refuse today.
pub fn load_inputs(settings: &Settings, paths: &[PathBuf]) -> Result<Inputs> {
    load_objects(settings, paths, MIRROR_CONFIG, None)
}

/// Reads `reads` from the live cluster (namespaced ones in `namespace`
/// only, or in all namespaces), or everything the files named by `-f` hold.
/// With `strict`, files are checked field by field against the kinds'
/// CRDs, as kubectl's `--validate=strict` does (live objects were already
/// checked by the API server that stored them).
pub fn read_objects(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
    strict: bool,
) -> Result<Inputs> {
    read_selected(
        settings,
        paths,
        reads,
        namespace,
        None,
        strict.then_some(&[]),
    )
}

/// [`read_objects`], keeping only the objects that reference images whose
/// labels `selector` selects (live, the API server selects them). With
/// `strict`, the CRDs whose schemas files are checked against first.
fn read_selected(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
    selector: Option<&Selector>,
    strict: Option<&[CrdSchema]>,
) -> Result<Inputs> {
    if paths.is_empty() {
        let mut inputs = read_live(settings, reads, namespace, selector.map(Selector::as_str))?;
        if let Some(selector) = selector {
            inputs.workloads.retain(|w| selector.matches(&w.labels));
        }
        return Ok(inputs);
    }
    let workloads = live::reads_workloads(reads);
    let stdin = stdin_of(paths)?;
    let read = match strict {
        Some(crds) => load_paths_checked(paths, stdin, workloads, crds),
        None => load_paths_with(paths, stdin, workloads, false),
    };
    let mut inputs = read.map_err(|e| Failure::input(e.to_string()))?;
    let strict = strict.is_some();
    for w in &inputs.warnings {
        settings.warn(w);
    }
    report_read(settings, &inputs);
    // A strict reader reports what the API server would refuse (a misspelt
    // kind) even when nothing else was read.
    let reportable = strict && !inputs.refused.is_empty();
    if inputs.is_empty() && !reportable {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let refused = inputs
            .refused
            .first()
            .map_or(String::new(), |e| format!(" ({e})"));
        return Err(Failure::input(format!(
            "no {} in {}{refused}",
            kinds_read(" or "),
            named.join(", ")
        ))
        .with_hint("pass YAML or JSON exported with `oc get ... -o yaml`, a must-gather folder or an install-config.yaml (-v lists what was skipped)")
        .into());
    }
    if let Some(selector) = selector {
        inputs.workloads.retain(|w| selector.matches(&w.labels));
    }
    Ok(inputs)
}

/// How standard input is named in messages.
const STDIN_NAME: &str = "<stdin>";

/// Standard input, read once when a command names it (`-f -`): the
/// loader and the readers of OLM's objects ([`olm_objects`]) read the
/// same text.
static STDIN: OnceLock<Vec<u8>> = OnceLock::new();

/// Standard input as read once (empty when `paths` do not name it). At
/// most one byte more than the loader takes is read, so that the loader
/// still refuses an input too large.
fn stdin_of(paths: &[PathBuf]) -> Result<&'static [u8]> {
    if !paths.iter().any(|p| p.as_os_str() == "-") {
        return Ok(&[]);
    }
    if let Some(read) = STDIN.get() {
        return Ok(read);
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(file::MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::input(format!("cannot read {STDIN_NAME}: {e}")))?;
    Ok(STDIN.get_or_init(|| bytes))
}

/// Every object of one of `kinds` (OLM's, which the tool reads as JSON)
/// in the files and folders of `-f`, standard input (`-`) as the loader
/// read it, as `(where it was read, object)`.
pub fn olm_objects(paths: &[PathBuf], kinds: &[&str]) -> Result<Vec<(String, Value)>> {
    let mut found = Vec::new();
    for path in paths {
        if path.as_os_str() != "-" {
            let read = file::objects(std::slice::from_ref(path), kinds);
            found.extend(read.map_err(|e| Failure::input(e.to_string()))?);
            continue;
        }
        let text = std::str::from_utf8(stdin_of(paths)?)
            .map_err(|_| Failure::input(format!("{STDIN_NAME} is not UTF-8 text")))?;
        let read = decode::objects_in(STDIN_NAME, text, kinds);
        found.extend(read.map_err(|e| Failure::input(e.to_string()))?);
    }
    Ok(found)
}

/// [`read_objects`], with a warning for each object the API server would
/// refuse today: objects stored in a cluster may predate today's CRD rules
/// (validation ratcheting) and the MCO renders them, so reading is lenient.
pub fn load_objects(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
) -> Result<Inputs> {
    load_selected(settings, paths, reads, namespace, None)
}

/// [`load_objects`], keeping only the objects that reference images whose
/// labels `selector` selects (`audit -l`).
pub fn load_selected(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
    selector: Option<&Selector>,
) -> Result<Inputs> {
    let inputs = read_selected(settings, paths, reads, namespace, selector, None)?;
    for e in inputs.validate() {
        settings.warn(format_args!(
            "the API server would refuse this object today: {e}"
        ));
    }
    Ok(inputs)
}

/// [`read_objects`], refusing objects the API server would refuse: for a
/// command that writes objects derived from them.
pub fn load_valid_objects(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
) -> Result<Inputs> {
    let inputs = read_objects(settings, paths, reads, namespace, true)?;
    let invalid = inputs.validate();
    if let Some(first) = invalid.first() {
        let more = match invalid.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(Failure::input(format!("{first}{more}; nothing written"))
            .with_hint("the API server refuses such an object; fix the field and run again")
            .into());
    }
    Ok(inputs)
}

/// Lays the proposed objects of `--with` over `inputs`, as `kubectl apply`
/// would leave them (same kind and name replaces). With `validate`, a
/// proposed object the API server would refuse is an input error.
pub fn overlay(
    settings: &Settings,
    inputs: &mut Inputs,
    with: &[PathBuf],
    validate: bool,
) -> Result<()> {
    overlay_checked(settings, inputs, with, validate, &[])
}

/// [`overlay`], the proposed objects' fields checked against the first of
/// `crds` for each kind (then the tool's own trees).
pub fn overlay_checked(
    settings: &Settings,
    inputs: &mut Inputs,
    with: &[PathBuf],
    validate: bool,
    crds: &[CrdSchema],
) -> Result<()> {
    if with.is_empty() {
        return Ok(());
    }
    // Proposed objects are about to be applied: checked as strictly as `lint`.
    let proposed = load_paths_checked(with, std::io::stdin().lock(), false, crds)
        .context(Failure::input("cannot read the proposed objects of --with"))?;
    for w in &proposed.warnings {
        settings.warn(format_args!("--with: {w}"));
    }
    if proposed.is_empty() {
        let named: Vec<String> = with.iter().map(|p| p.display().to_string()).collect();
        let refused = proposed
            .refused
            .first()
            .map_or(String::new(), |e| format!(" ({e})"));
        return Err(Failure::input(format!(
            "--with: no ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Image or image policy in {}{refused}",
            named.join(", ")
        ))
        .into());
    }
    if validate {
        if let Some(first) = proposed.validate().first() {
            return Err(Failure::input(format!("--with: {first}"))
                .with_hint("the API server would refuse the proposed object")
                .into());
        }
    }
    inputs.overlay(proposed);
    Ok(())
}

/// The namespace of the current kubeconfig context (`default` when it sets
/// none), as kubectl uses when no `-n` is given. Nothing is sent.
pub fn context_namespace(settings: &Settings) -> Result<String> {
    let options = settings.cluster_options()?;
    let runtime = runtime()?;
    let connection = runtime
        .block_on(live::connect(&options))
        .map_err(cluster_failure)?;
    Ok(connection.default_namespace)
}

/// The live cluster's own CustomResourceDefinitions of the checked kinds,
/// each one it cannot give (404, 403) a warning: that kind is checked
/// against the tool's own field tree.
pub fn cluster_crds(settings: &Settings) -> Result<Vec<CrdSchema>> {
    let options = settings.cluster_options()?;
    let runtime = runtime()?;
    let (crds, warnings) = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let kinds = mirrorpolicy::objects::schema::CHECKED_KINDS;
            Ok::<_, ClusterError>(live::read_crds(&connection, &kinds).await)
        })
        .map_err(cluster_failure)?;
    for w in warnings {
        settings.warn(w);
    }
    Ok(crds)
}

/// A runtime for the API calls of one command.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context(Failure::cluster("cannot start the network runtime"))
}

/// Lists every read at once from the live cluster.
fn read_live(
    settings: &Settings,
    reads: &[Read],
    namespace: Option<&str>,
    selector: Option<&str>,
) -> Result<Inputs> {
    let options = settings.cluster_options()?;
    let runtime = runtime()?;
    let live = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            settings.verbose(|| {
                format!(
                    "reading {} from {}{}",
                    live::describe(reads),
                    connection.server,
                    namespace.map_or(String::new(), |ns| format!(" (namespaced ones in {ns})"))
                )
            });
            let read = live::read_selected(&connection, reads, namespace, selector).await?;
            Ok::<_, ClusterError>((connection, read))
        })
        .map_err(cluster_failure)?;
    let (connection, read) = live;
    settings.verbose(|| format!("{} request(s) sent", read.requests));
    for absent in &read.absent {
        settings.verbose(|| {
            format!(
                "{} is not served by the cluster (no such CRD): read as none",
                absent.name()
            )
        });
    }
    if read.is_openshift_missing() {
        return Err(Failure::cluster(format!(
            "no OpenShift mirror configuration: the cluster at {} serves none of {}",
            connection.server,
            read.absent
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint("this is not an OpenShift cluster (or not one with mirror support); for a plain CRI-O node pass its files with --registries-conf")
        .into());
    }
    for w in &read.inputs.warnings {
        settings.warn(w);
    }
    report_read(settings, &read.inputs);
    Ok(read.inputs)
}

/// Maps a cluster error to its exit code (3, or 2 for objects that do not
/// decode) and a hint that says what to do.
pub fn cluster_failure(e: ClusterError) -> anyhow::Error {
    let hint = match &e {
        ClusterError::NoConfig(_) => {
            "log in (oc login), point KUBECONFIG or --kubeconfig at a kubeconfig, or read exported objects with -f FILE|FOLDER"
        }
        ClusterError::Config(_) => "check the kubeconfig, --context, --cluster and --user (kubectl config get-contexts lists them)",
        ClusterError::Credentials(_) => {
            "check the kubeconfig user's credential (kubectl config view --minify shows it); an exec plugin's own message is above"
        }
        ClusterError::Unreachable { .. } => {
            "check the server address, the network or VPN and the CA in the kubeconfig; kubectl cluster-info uses the same kubeconfig"
        }
        ClusterError::Unauthorized { .. } => "log in again (oc login) or refresh the token of the kubeconfig user",
        ClusterError::Forbidden(_) => {
            "ask a cluster admin for the rules above, or run on exported objects or a must-gather with -f"
        }
        ClusterError::Timeout { .. } => "raise --request-timeout, or check the API server's health",
        ClusterError::Request { .. } => "run again; if it persists, check the API server's health",
        ClusterError::Write { .. } => {
            "check the API server's health and run again: a write that went through shows as unchanged on the next run"
        }
        ClusterError::Decode(_) => {
            return Failure::input(e.to_string())
                .with_hint("the cluster holds an object the tool cannot read; report it with the object's YAML")
                .into()
        }
    };
    let message = match &e {
        ClusterError::Forbidden(list) => match list.first().map(|f| f.message.as_str()) {
            Some(server) if !server.is_empty() => format!("{e} (server: {server})"),
            _ => e.to_string(),
        },
        _ => e.to_string(),
    };
    Failure::cluster(message).with_hint(hint).into()
}

/// The kinds the files are read as, `InstallConfig` named as the file it
/// is, the last joined by `last` (`" or "`, `" and "`).
fn kinds_read(last: &str) -> String {
    let mut kinds: Vec<String> = mirrorpolicy::decode::kinds_read()
        .into_iter()
        .map(|k| match k {
            mirrorpolicy::objects::install_config::KIND => {
                format!("{k} (install-config.yaml: apiVersion v1, no kind)")
            }
            k => k.to_string(),
        })
        .collect();
    let tail = kinds.pop().unwrap_or_default();
    format!("{}{last}{tail}", kinds.join(", "))
}

/// `-v`: what was read and what was skipped.
pub fn report_read(settings: &Settings, inputs: &Inputs) {
    settings.verbose(|| {
        format!(
            "read {} ImageContentSourcePolicy, {} ImageDigestMirrorSet, {} ImageTagMirrorSet, {} Image, \
             {} ClusterVersion, {} ClusterImagePolicy, {} ImagePolicy, {} MachineConfig, {} MachineConfigPool, {} Node, \
             {} object(s) referencing images",
            inputs.icsps.len(),
            inputs.idmss.len(),
            inputs.itmss.len(),
            usize::from(inputs.image.is_some()),
            usize::from(inputs.cluster_version.is_some()),
            inputs.cluster_image_policies.len(),
            inputs.image_policies.len(),
            inputs.machine_configs.len(),
            inputs.pools.len(),
            inputs.nodes.len(),
            inputs.workloads.len(),
        )
    });
    for g in &inputs.generated {
        settings.verbose(|| {
            format!(
                "{}: {} read as {}, as the installer writes it",
                g.file, g.field, g.object
            )
        });
    }
    for (kind, count) in &inputs.skipped {
        settings.verbose(|| format!("skipped {count} object(s) of kind {kind}"));
    }
    if !inputs.skipped.is_empty() {
        settings.verbose(|| format!("the kinds read: {}", kinds_read(" and ")));
    }
    if inputs.skipped_files > 0 {
        settings.verbose(|| {
            format!(
                "skipped {} file(s) naming no known kind",
                inputs.skipped_files
            )
        });
    }
}

/// Renders a pool; a configuration the MCO refuses is an input error with the MCO's reason.
/// The message names where the objects at fault were read.
pub fn render(inputs: &Inputs, pool: &str) -> Result<Rendered> {
    render_pool(inputs, pool).map_err(|e| {
        let read_from: Vec<String> = e
            .objects()
            .iter()
            .filter_map(|o| Some(format!("{o} from {}", inputs.read_from(o)?)))
            .collect();
        let read_from = if read_from.is_empty() {
            String::new()
        } else {
            format!(" ({})", read_from.join(", "))
        };
        Failure::input(format!(
            "the MCO refuses to render this configuration: {e}{read_from}"
        ))
        .with_hint("the MCO only logs this and keeps the previous MachineConfig; nodes do not get the change")
        .into()
    })
}

/// `pool` rendered as the MCO does (its warnings printed) and read back as
/// its nodes read it (`namespace`: with that namespace's own policy file).
///
/// A custom pool's nodes get the generated MachineConfig of the role its
/// selector selects (usually the worker's), then the pool's own
/// MachineConfigs: one that sorts after the generated one and writes a
/// registries or policy file replaces it, and the view is of the file the
/// nodes have, traced to that MachineConfig's lines.
pub fn render_view(
    settings: &Settings,
    inputs: &Inputs,
    pool: &str,
    namespace: Option<&str>,
) -> Result<(Rendered, NodeView)> {
    let rendered = render_pool_files(settings, inputs, pool, Say::Warnings)?;
    let view = view_of(inputs, &rendered, pool, namespace)?;
    Ok((rendered, view))
}

/// [`render_view`] of a configuration the user did not write as such (the
/// cluster's objects after an update): nothing is said on stderr, the
/// render of the objects as they are having said it already.
pub fn render_view_quietly(
    settings: &Settings,
    inputs: &Inputs,
    pool: &str,
) -> Result<(Rendered, NodeView)> {
    let rendered = render_pool_files(settings, inputs, pool, Say::Nothing)?;
    let view = view_of(inputs, &rendered, pool, None)?;
    Ok((rendered, view))
}

/// The view of each namespace with a CRI-O policy of its own in
/// `rendered` (pool `pool`) for which `wanted` holds, read back as
/// [`render_view`] reads the cluster-wide one.
pub fn namespace_views(
    inputs: &Inputs,
    rendered: &Rendered,
    pool: &str,
    wanted: impl Fn(&str) -> bool,
) -> Result<BTreeMap<String, NodeView>> {
    let mut views = BTreeMap::new();
    for ns in rendered.policy_namespaces.iter().filter(|ns| wanted(ns)) {
        let view = view_of(inputs, rendered, pool, Some(ns)).with_context(|| {
            Failure::input(format!(
                "cannot read back the rendered policy of namespace {ns}"
            ))
        })?;
        views.insert(ns.clone(), view);
    }
    Ok(views)
}

/// Whether a render says its warnings and the pool's overriding
/// MachineConfigs on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Say {
    Warnings,
    Nothing,
}

/// [`render_view`] for a command that does not read the mirror sets of
/// `inputs` again: they are released once rendered, before the nodes' view
/// is built, so that the objects, the render and the view of an
/// oc-mirror-scale input are never all held at once.
pub fn render_view_releasing_sets(
    settings: &Settings,
    inputs: &mut Inputs,
    pool: &str,
    namespace: Option<&str>,
) -> Result<(Rendered, NodeView)> {
    let rendered = render_pool_files(settings, inputs, pool, Say::Warnings)?;
    // Freed, not left to the exit: the view reuses their memory.
    drop(std::mem::take(&mut inputs.idmss));
    drop(std::mem::take(&mut inputs.icsps));
    drop(std::mem::take(&mut inputs.itmss));
    let view = view_of(inputs, &rendered, pool, namespace)?;
    Ok((rendered, view))
}

/// The files a node of `pool` gets: the generated MachineConfig's, then
/// the pool's own MachineConfigs' over them.
fn render_pool_files(
    settings: &Settings,
    inputs: &Inputs,
    pool: &str,
    say: Say,
) -> Result<Rendered> {
    let generating = generating_pool(inputs, pool).map_err(Failure::input)?;
    let mut rendered = render(inputs, generating)?;
    if say == Say::Warnings {
        print_warnings(settings, inputs, &rendered);
    }
    if let Some(mcp) = inputs.pools.iter().find(|p| p.metadata.name == pool) {
        apply_pool_overrides(settings, inputs, mcp, generating, &mut rendered, say)?;
    }
    Ok(rendered)
}

/// The rendered files as `pool`'s nodes read them.
fn view_of(
    inputs: &Inputs,
    rendered: &Rendered,
    pool: &str,
    namespace: Option<&str>,
) -> Result<NodeView> {
    if rendered.overridden.is_empty() {
        let view = node_view(rendered, namespace).context(Failure::input(
            "cannot read back the rendered configuration",
        ))?;
        return Ok(view);
    }
    // A file another MachineConfig wrote is read as the pool's CRI-O reads it.
    let runtime = inputs
        .cluster_version
        .as_ref()
        .map(|cv| mirrorpolicy::crio::of_cluster(cv, &inputs.pools))
        .unwrap_or_default();
    match node_view_on(rendered, namespace, &runtime) {
        Ok(view) => Ok(view),
        Err(NodeViewError::Registries(e)) => {
            let failure = match e.undetermined {
                Some(_) => Failure::cluster(format!(
                    "undetermined: whether pool {pool}'s nodes load their registries configuration: {e}"
                )),
                None => Failure::input(format!(
                    "every pull on pool {pool}'s nodes fails: their CRI-O cannot load the registries configuration: {e}"
                )),
            };
            Err(failure.into())
        }
        Err(e) => Err(anyhow::Error::new(e)
            .context(Failure::input("cannot read back the pool's configuration"))),
    }
}

/// The files `mcp`'s own MachineConfigs write over the generated ones, put
/// into `rendered` (each said on stderr).
fn apply_pool_overrides(
    settings: &Settings,
    inputs: &Inputs,
    mcp: &MachineConfigPool,
    generating: &str,
    rendered: &mut Rendered,
    say: Say,
) -> Result<()> {
    let configs = layers::pool_configs(&inputs.machine_configs, mcp);
    let generated_name = generated_registries_name(generating);
    let generated: Files = rendered
        .files
        .iter()
        .map(|f| (f.path.clone(), f.contents.clone()))
        .collect();
    let on_node = layers::layered(&configs, generating, &generated_name, &generated, true)
        .map_err(|e| Failure::input(format!("MachineConfigPool/{}: {e}", mcp.metadata.name)))?;
    for (path, source) in &on_node.sources {
        let layers::Source::Config(config) = source else {
            continue;
        };
        // What the node view reads: the generated files, and the ones it
        // would otherwise take from the MCO's templates.
        let read = generated.contains_key(path)
            || [REGISTRIES_CONF, POLICY_JSON, SEARCH_REGISTRIES_CONF].contains(&path.as_str());
        if !read {
            continue;
        }
        let Some(contents) = on_node.files.get(path) else {
            continue;
        };
        if say == Say::Warnings {
            settings.warn(format!(
                "MachineConfig/{config} of pool {} writes {path} after {generated_name}: the pool's nodes use its file, explained here",
                mcp.metadata.name
            ));
        }
        rendered.override_file(path, config, contents.clone());
    }
    Ok(())
}

/// The pools a configuration can be rendered for: `master` and `worker`,
/// which every OpenShift cluster has, the input's MachineConfigPools and
/// the pools its generated MachineConfigs name.
fn known_pools(inputs: &Inputs) -> Vec<String> {
    let from_pools = inputs.pools.iter().map(|p| p.metadata.name.clone());
    let from_generated = inputs.machine_configs.iter().filter_map(|mc| {
        let rest = mc.metadata.name.strip_prefix("99-")?;
        Some(rest.split_once("-generated-")?.0.to_string())
    });
    let mut pools = vec!["master".to_string(), "worker".to_string()];
    for pool in from_pools.chain(from_generated) {
        if !pools.contains(&pool) {
            pools.push(pool);
        }
    }
    pools
}

/// Refuses a pool the cluster does not have, naming the ones it has.
pub fn check_pool(inputs: &Inputs, pool: &str) -> Result<()> {
    let known = known_pools(inputs);
    if known.iter().any(|p| p == pool) {
        return Ok(());
    }
    let close = known
        .iter()
        .filter(|p| strsim::jaro(p, pool) > 0.8)
        .max_by(|a, b| strsim::jaro(a, pool).total_cmp(&strsim::jaro(b, pool)));
    let suggestion = close.map_or(String::new(), |p| format!(" (did you mean \"{p}\"?)"));
    let hint = if inputs.pools.is_empty() {
        "the input has no MachineConfigPools, so only master, worker and the pools of generated MachineConfigs are known: add the pool's YAML with -f"
    } else {
        "kubectl get machineconfigpools lists them"
    };
    Err(Failure::input(format!(
        "no MachineConfigPool \"{pool}\"{suggestion}; the pools are {}",
        known.join(", ")
    ))
    .with_hint(hint)
    .into())
}

/// [`load_objects`] for a render of `pool`, which must exist: live, the
/// MachineConfigPools are read too when the pool is not one every
/// OpenShift cluster has.
pub fn load_for_pool(
    settings: &Settings,
    paths: &[PathBuf],
    reads: &[Read],
    namespace: Option<&str>,
    pool: &str,
) -> Result<Inputs> {
    const POOLS: Read = Read::one(&[MACHINE_CONFIG_POOLS]);
    let inputs = if paths.is_empty() && pool != "master" && pool != "worker" {
        let reads: Vec<Read> = reads.iter().copied().chain([POOLS]).collect();
        load_objects(settings, paths, &reads, namespace)?
    } else {
        load_objects(settings, paths, reads, namespace)?
    };
    check_pool(&inputs, pool)?;
    Ok(inputs)
}

/// Prints what the MCO only logs. When the inputs contain oc-mirror's
/// cluster-resources, which never hold a ClusterVersion or an Image config,
/// and nothing else gave either, the render's defaults for both are said in
/// one line instead of a warning each.
pub fn print_warnings(settings: &Settings, inputs: &Inputs, rendered: &Rendered) {
    let oc_mirror =
        inputs.oc_mirror_resources && inputs.cluster_version.is_none() && inputs.image.is_none();
    let mut assumed = None;
    for w in &rendered.warnings {
        match w {
            RenderWarning::ReleaseAssumed {
                release: Release::Absent,
                rendered_as,
            } if oc_mirror => assumed = Some(*rendered_as),
            RenderWarning::NoImageConfig if oc_mirror => {}
            w => settings.warn(w),
        }
    }
    if let Some(minor) = assumed {
        settings.warn(format_args!(
            "oc-mirror cluster-resources hold no ClusterVersion or Image config: rendered for OpenShift 4.{minor} \
             with the Image config's defaults (no blocked, allowed or insecure registries); to render for the cluster, \
             add `oc get clusterversion version -o yaml` and `oc get image.config.openshift.io cluster -o yaml` with -f"
        ));
    }
}
