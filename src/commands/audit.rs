//! `audit`: every image the workloads reference, classified against the
//! cluster's mirror and signature configuration.

mod catalogs;
mod pull_log;

use std::collections::BTreeMap;

use anyhow::{Context, Result};

use crate::output;
use mirrorpolicy::audit::{self, Configs, Level};
use mirrorpolicy::explain::Config;
use mirrorpolicy::journal::fleet::Fleet;
use mirrorpolicy::labels::Selector;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::render::node::NodeView;
use mirrorpolicy::source::api::{
    Read, CATALOG_SOURCES, CLUSTER_SERVICE_VERSIONS, IMAGE_POLICIES, IMAGE_POLICIES_V1ALPHA1,
    MIRROR_CONFIG, WORKLOADS,
};
use mirrorpolicy::upgrade::Readiness;

use crate::cli::{AuditArgs, AuditOutput, FailOn};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::operators::{self, OlmObjects, OperatorPlan};
use crate::steps::{inputs, probe};
use crate::term;

/// The cluster's view, and one per namespace that has its own policy file.
struct Views {
    cluster: NodeView,
    namespaced: BTreeMap<String, NodeView>,
}

impl Configs for Views {
    fn for_namespace(&self, namespace: &str) -> Config<'_> {
        Config::from(self.namespaced.get(namespace).unwrap_or(&self.cluster))
    }
}

/// `audit --probe`, live: the `imagePullSecrets` of the service accounts the
/// workloads' pods run as, which the pods get at admission (a Pod already
/// lists them; a controller's template does not). Names only. A service
/// account that cannot be read (`get serviceaccounts` forbidden) is warned
/// about once per namespace and left out.
fn add_service_account_pull_secrets(
    settings: &Settings,
    workloads: &mut [audit::Workload],
) -> Result<()> {
    use mirrorpolicy::source::api::{self as live, ClusterError, SERVICE_ACCOUNTS};
    let wanted: std::collections::BTreeSet<(String, String)> = workloads
        .iter()
        .flat_map(|w| {
            w.service_accounts
                .iter()
                .map(|a| (w.namespace.clone(), a.clone()))
        })
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let (found, forbidden) = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let mut found: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
            let mut forbidden: BTreeMap<String, String> = BTreeMap::new();
            for (ns, name) in &wanted {
                if forbidden.contains_key(ns) {
                    continue;
                }
                match connection.get_in(&SERVICE_ACCOUNTS, ns, name).await {
                    Ok(Some(sa)) => {
                        let names = sa
                            .get("imagePullSecrets")
                            .and_then(|v| v.as_array())
                            .into_iter()
                            .flatten()
                            .filter_map(|r| r.get("name").and_then(|n| n.as_str()))
                            .filter(|n| !n.is_empty())
                            .map(str::to_string)
                            .collect();
                        found.insert((ns.clone(), name.clone()), names);
                    }
                    Ok(None) => {}
                    Err(ClusterError::Forbidden(f)) => {
                        let rule = f.first().map(|f| f.rule()).unwrap_or_default();
                        forbidden.insert(ns.clone(), rule);
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok::<_, ClusterError>((found, forbidden))
        })
        .map_err(inputs::cluster_failure)?;
    for (ns, rule) in &forbidden {
        term::warn(format!(
            "cannot get serviceaccounts in namespace {ns} (needs {rule}): the pull secrets of its service accounts are not checked"
        ));
    }
    for w in workloads.iter_mut() {
        for account in &w.service_accounts {
            for name in found
                .get(&(w.namespace.clone(), account.clone()))
                .into_iter()
                .flatten()
            {
                if !w.pull_secrets.contains(name) {
                    w.pull_secrets.push(name.clone());
                }
            }
        }
    }
    Ok(())
}

/// What `audit` found on one cluster (or in `-f` files).
pub enum Audited {
    /// The images the workloads reference, classified.
    Images(audit::Report),
    /// With `--journal` or `--journal-file`: the pulls of the pull logs,
    /// and the logs' name.
    PullLog { fleet: Fleet, name: String },
}

/// Runs `audit`, printing its report in `format`.
pub fn run(settings: &Settings, args: &AuditArgs, format: AuditOutput) -> Result<ExitCode> {
    let (audited, code) = report(settings, args)?;
    match &audited {
        Audited::Images(report) => print(settings, args, format, report)?,
        Audited::PullLog { fleet, name } => pull_log::print(settings, format, fleet, name)?,
    }
    Ok(code)
}

/// The audit (or, with `--journal` or `--journal-file`, the pull log) and
/// the exit code it calls for, without printing it: what [`run`] prints
/// and `-o summary` counts.
pub fn report(settings: &Settings, args: &AuditArgs) -> Result<(Audited, ExitCode)> {
    if args.journal_file.is_some() || args.journal {
        let (fleet, name, code) = pull_log::report(settings, args)?;
        return Ok((Audited::PullLog { fleet, name }, code));
    }
    let (report, code) = collect(settings, args)?;
    Ok((Audited::Images(report), code))
}

/// Prints the audit `report` in `format`.
fn print(
    settings: &Settings,
    args: &AuditArgs,
    format: AuditOutput,
    report: &audit::Report,
) -> Result<()> {
    let sink = match format {
        AuditOutput::Table | AuditOutput::Wide => term::Sink::Text,
        AuditOutput::Json | AuditOutput::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    settings.print_to(sink, |out| match format {
        AuditOutput::Table => output::audit::write_table(out, report, false, &layout),
        AuditOutput::Wide => output::audit::write_table(out, report, true, &layout),
        AuditOutput::Json => output::write_json(out, std::slice::from_ref(report)),
        AuditOutput::Yaml => output::write_yaml(out, std::slice::from_ref(report)),
    })?;
    Ok(())
}

/// `-l/--selector`, parsed.
fn selector_of(args: &AuditArgs) -> Result<Option<Selector>> {
    Ok(match &args.selector {
        Some(text) => Some(Selector::parse(text).map_err(|e| {
            Failure::input(format!("invalid label selector {text:?} (-l): {e}")).with_hint(
                "kubectl's syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key, joined by commas",
            )
        })?),
        None => None,
    })
}

/// The pool whose nodes run the workloads audited: the worker's.
const POOL: &str = "worker";

/// Leaves out the ClusterServiceVersions OLM copied into the target
/// namespaces of their OperatorGroups (no pod of theirs runs there), saying
/// so with `-v`; returns how many.
fn skip_olm_copies(settings: &Settings, workloads: &mut Vec<audit::Workload>) -> usize {
    let copies = audit::take_olm_copies(workloads);
    for copy in &copies {
        settings.verbose(|| {
            let from = match copy.copied_from.as_deref() {
                Some(ns) if !ns.is_empty() => format!("from namespace {ns} (label olm.copiedFrom)"),
                _ => "(status.reason: Copied)".to_string(),
            };
            format!(
                "skipped {}: a copy OLM made {from} for its OperatorGroup; no pod of it runs in {}, its images are audited with the original",
                copy.label(),
                copy.namespace
            )
        });
    }
    copies.len()
}

/// Exit 1 when `--fail-on` (or `--require-mirror`) matches an image, or a
/// level matches a `notReady` update (an error); else exit 3 when the probe
/// of an image is undetermined (a level does not match such an image,
/// naming the class does) or an update is undetermined.
fn exit_code(args: &AuditArgs, report: &audit::Report) -> ExitCode {
    let level_of = |class: audit::Class| {
        if args.require_mirror {
            class.level_requiring_mirror()
        } else {
            class.level()
        }
    };
    let determined = || {
        report
            .images
            .iter()
            .filter(|i| i.class != audit::Class::Undetermined)
    };
    let updates = report.updates.iter().flatten();
    let not_ready = updates.clone().any(|u| u.readiness == Readiness::NotReady);
    // A notReady update is an error, matched by either level.
    let failing = |level: Level| not_ready || determined().any(|i| level_of(i.class) <= level);
    let classes: Vec<audit::Class> = args.fail_on.iter().filter_map(|f| f.class()).collect();
    let fail = if args.fail_on.is_empty() {
        args.require_mirror && failing(Level::Error)
    } else {
        (args.fail_on.contains(&FailOn::Error) && failing(Level::Error))
            || (args.fail_on.contains(&FailOn::Warning) && failing(Level::Warning))
            || report.images.iter().any(|i| classes.contains(&i.class))
    };
    if fail {
        ExitCode::Findings
    } else if report
        .images
        .iter()
        .any(|i| i.class == audit::Class::Undetermined)
        || updates
            .clone()
            .any(|u| u.readiness == Readiness::Undetermined)
    {
        ExitCode::Cluster
    } else {
        ExitCode::Success
    }
}

/// The audit of the cluster (or `-f` files) of `settings`, and the exit
/// code it calls for.
pub fn collect(settings: &Settings, args: &AuditArgs) -> Result<(audit::Report, ExitCode)> {
    let selector = selector_of(args)?;
    let live = args.filenames.is_empty();
    let namespace = match (args.all_namespaces, settings.namespace()) {
        (true, _) => None,
        (false, Some(ns)) => Some(ns.to_string()),
        (false, None) if live => Some(inputs::context_namespace(settings)?),
        (false, None) => None,
    };
    let (mut inputs, olm) = read_inputs(settings, args, namespace.as_deref(), selector.as_ref())?;
    let copies = skip_olm_copies(settings, &mut inputs.workloads);
    let (rendered, cluster) = inputs::render_view(settings, &inputs, POOL, None)?;
    let namespaced = inputs::namespace_views(&inputs, &rendered, POOL, |ns| {
        inputs.workloads.iter().any(|w| w.namespace == ns)
    })?;
    let views = Views {
        cluster,
        namespaced,
    };
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let setup = super::probe_setup(&args.probe);
    if setup.enabled && live {
        add_service_account_pull_secrets(settings, &mut inputs.workloads)?;
    }
    let mut report = audit::audit(&inputs.workloads, &views, mode);
    let split = inputs
        .cluster_version
        .as_ref()
        .and_then(mirrorpolicy::crio::short_name_modes_during_update);
    if let Some((older, from, newer, to)) = split {
        let before = audit::audit(&inputs.workloads, &views, older);
        let why = format!(
            "ClusterVersion/version is updating from {from} (short-name-mode {}) to {to} ({}), and each node resolves short names the older way until its pool is updated",
            older.as_str(),
            newer.as_str()
        );
        audit::undetermined_between(&mut report, &before, &why);
    }
    // One probe set-up (credentials, trust, registries.d) for the images and the updates.
    let ctx = (setup.enabled || args.updates)
        .then(|| probe::context_for_objects(settings, &setup, &args.filenames, &rendered, &inputs))
        .transpose()?;
    // Shared, not copied: the update check reuses the endpoints pinged and the tokens got.
    if let Some(ctx) = ctx.as_ref().filter(|_| setup.enabled) {
        let targets = audit::probe_targets(&inputs.workloads, &views, mode);
        let probed = mirrorpolicy::probe::probe_all(ctx, targets, setup.concurrency)
            .context(Failure::cluster("cannot start the network runtime"))?;
        audit::apply_probes(&mut report, &probed);
    }
    if report.images.is_empty() {
        eprintln!(
            "no image references: no Pod, workload controller, ClusterServiceVersion or CatalogSource{}{}{}",
            selector
                .as_ref()
                .map_or_else(String::new, |s| format!(" matching -l {:?}", s.as_str())),
            namespace
                .as_deref()
                .map_or_else(String::new, |ns| format!(" in namespace {ns} (-A for all)")),
            match copies {
                0 => String::new(),
                n => format!(
                    " ({n} ClusterServiceVersion(s) OLM copied there skipped: their pods run in the original's namespace)"
                ),
            }
        );
    }
    if let Some(ctx) = ctx.as_ref().filter(|_| args.updates) {
        let plan = updates_plan(args);
        let checks = operators::check_loaded(settings, &plan, &inputs, Some(ctx), olm)?;
        report.updates = Some(checks.iter().map(audit::OperatorUpdate::of).collect());
    }
    say_fix_commands(settings, &mut report);
    let code = exit_code(args, &report);
    Ok((report, code))
}

/// The objects audited: the mirror configuration and the workloads (of
/// `namespace`, selected by `selector`, with the CatalogSources of other
/// namespaces its Subscriptions use); with `--updates`, the pools and
/// Nodes the update check needs, read with them. Live in one namespace,
/// the ImagePolicies of those CatalogSources' namespaces too (the registry
/// pod runs there), or with `--updates` every namespace's (a
/// CatalogSource's namespace has its own policy for its registry pod and
/// the bundle unpack Job). With `--updates`, OLM's objects too, read once
/// for the CatalogSources used and the update check.
fn read_inputs(
    settings: &Settings,
    args: &AuditArgs,
    namespace: Option<&str>,
    selector: Option<&Selector>,
) -> Result<(Inputs, Option<OlmObjects>)> {
    const IMAGE_POLICY: &[Read] = &[Read::one(&[IMAGE_POLICIES, IMAGE_POLICIES_V1ALPHA1])];
    const OLM_LISTED: &[Read] = &[
        Read::one(&[CLUSTER_SERVICE_VERSIONS]),
        Read::one(&[CATALOG_SOURCES]),
    ];
    // Live in one namespace with --updates, the update check's read lists
    // the namespace's CSVs and CatalogSources: they are not listed twice.
    let olm_lists = args.updates && namespace.is_some() && args.filenames.is_empty();
    let mut reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(WORKLOADS)
        .filter(|r| !(olm_lists && OLM_LISTED.contains(r)))
        .copied()
        .collect();
    if args.updates {
        reads.extend(operators::POOLS_AND_NODES);
    }
    let mut inputs = inputs::load_selected(settings, &args.filenames, &reads, namespace, selector)?;
    let olm = args
        .updates
        .then(|| operators::read_olm(settings, &updates_plan(args)))
        .transpose()?;
    let Some(ns) = namespace else {
        return Ok((inputs, olm));
    };
    if let Some(olm) = olm.as_ref().filter(|_| olm_lists) {
        let own = catalogs::own_workloads(olm, ns, selector)?;
        inputs.workloads.extend(own);
    }
    let used = catalogs::used(settings, args, ns, selector, olm.as_ref())?;
    inputs
        .workloads
        .retain(|w| w.namespace == ns || used.holds(w));
    if !args.filenames.is_empty() {
        return Ok((inputs, olm));
    }
    if args.updates {
        let every = inputs::load_objects(settings, &[], IMAGE_POLICY, None)?;
        inputs.image_policies = every.image_policies;
    } else {
        for other in used.namespaces().into_iter().filter(|o| *o != ns) {
            let theirs = inputs::load_objects(settings, &[], IMAGE_POLICY, Some(other))?;
            inputs.image_policies.extend(theirs.image_policies);
        }
    }
    inputs.workloads.extend(used.read);
    Ok((inputs, olm))
}

/// `--updates`: the next hop of every Subscription of the namespaces
/// audited, checked as `operator-check --max-hops 1` checks it (always
/// probed; with `--registries-d` when given, else the registries.d the
/// cluster renders).
fn updates_plan(args: &AuditArgs) -> OperatorPlan {
    let mut probe = super::probe_setup(&args.probe);
    probe.enabled = true;
    OperatorPlan {
        filenames: args.filenames.clone(),
        all_namespaces: args.all_namespaces,
        subscriptions: Vec::new(),
        catalog_image: None,
        package: None,
        channel: None,
        installed: None,
        starting_csv: None,
        to: None,
        max_hops: 1,
        operands: false,
        arch: None,
        cache_dir: None,
        require_mirror: args.require_mirror,
        probe,
        require_subscriptions: false,
    }
}

/// The commands the fixes name (in their JSON and in each detail), said
/// as the user ran the plugin (`oc mirrorpolicy migrate-icsp ...`).
fn say_fix_commands(settings: &Settings, report: &mut audit::Report) {
    for image in &mut report.images {
        let Some(fix) = image.fix.as_mut() else {
            continue;
        };
        for command in fix.commands_mut() {
            *command = crate::cli::as_said_by(settings.name, command).into_owned();
        }
        image.detail = crate::cli::as_said_by(settings.name, &image.detail).into_owned();
    }
}
