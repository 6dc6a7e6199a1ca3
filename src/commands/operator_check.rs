//! `operator-check`: for each Subscription (or `--package`), the catalog
//! image pulled through the mirrors as CRI-O on its registry pod's node
//! pulls it, its file-based configs read layer by layer for the wanted
//! packages, OLM's update path walked from the installed CSV, and every
//! image of every hop probed as `upgrade-check` probes images (with the
//! policy of the namespace its pod runs in); a verdict per Subscription.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use crate::output;
use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::olm::check::{Found, HopCheck, ImageClass, ImageRole, SubscriptionCheck};
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::source::api::{Read, MACHINE_CONFIG_POOLS, MIRROR_CONFIG, NODES};
use mirrorpolicy::upgrade::{ImageCheck, Readiness};

use crate::cli::{OperatorCheckArgs, OperatorFormat};
use crate::exit::ExitCode;
use crate::settings::Settings;
use crate::steps::inputs;
use crate::steps::probe as probe_cmd;
use crate::term;

mod bundles;
mod cache;
mod fbc;
mod hops;
mod secrets;
mod subscriptions;
mod views;

use fbc::read_catalog;
use hops::{finish, probe_images, resolve_one};
use subscriptions::{images_to_read, wanted, worker_arch, Wanted};
use views::{ViewKey, Views};

/// The pool whose nodes run the operators, the bundle unpack Jobs, and
/// the registry pod of a CatalogSource without a nodeSelector.
const WORKER_POOL: &str = "worker";

/// Read live on top of the mirror configuration: the pools (which one runs
/// a catalog's registry pod) and the Nodes (their architecture).
const POOLS_AND_NODES: &[Read] = &[Read::one(&[MACHINE_CONFIG_POOLS]), Read::one(&[NODES])];

/// Runs `operator-check`, printing one verdict per Subscription.
pub fn run(settings: &Settings, args: &OperatorCheckArgs) -> Result<ExitCode> {
    let checks = collect(settings, args)?;
    let exit = exit_code(&checks);
    let sink = match args.output {
        OperatorFormat::Table | OperatorFormat::Wide | OperatorFormat::Summary => term::Sink::Text,
        OperatorFormat::Json | OperatorFormat::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    let wide = args.output == OperatorFormat::Wide;
    settings.print_to(sink, |out| match args.output {
        OperatorFormat::Table | OperatorFormat::Wide => {
            output::operator::write_text(out, &checks, &layout, wide)
        }
        OperatorFormat::Summary => output::operator::write_summary(out, &checks, exit as i32),
        OperatorFormat::Json => output::write_json(out, &checks),
        OperatorFormat::Yaml => output::write_yaml(out, &checks),
    })?;
    Ok(exit)
}

/// Exit 1 when a Subscription is not ready, else 3 when one is undetermined, else 0.
fn exit_code(checks: &[SubscriptionCheck]) -> ExitCode {
    let any = |r: Readiness| checks.iter().any(|c| c.readiness == r);
    if any(Readiness::NotReady) {
        ExitCode::Findings
    } else if any(Readiness::Undetermined) {
        ExitCode::Cluster
    } else {
        ExitCode::Success
    }
}

/// Every verdict, in the order the Subscriptions were read.
fn collect(settings: &Settings, args: &OperatorCheckArgs) -> Result<Vec<SubscriptionCheck>> {
    let reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(POOLS_AND_NODES)
        .copied()
        .collect();
    let inputs = inputs::load_objects(settings, &args.filenames, &reads, None)?;
    let mut wanted = wanted(settings, args, &inputs)?;
    let pools: BTreeSet<String> = wanted.iter().map(|w| w.pool.pool.clone()).collect();
    let namespaces: BTreeSet<String> = wanted
        .iter()
        .flat_map(|w| [w.sub.source_namespace.clone(), w.sub.namespace.clone()])
        .filter(|ns| !ns.is_empty())
        .collect();
    let views = Views::build(settings, &inputs, &pools, &namespaces)?;
    for w in &mut wanted {
        w.catalog_view = views.key(&w.pool.pool, &w.sub.source_namespace);
    }
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let ctx = probe_cmd::context_for_objects(
        settings,
        &super::registry_probe_setup(&args.probe),
        &args.filenames,
        views.workers(),
        &inputs,
    )?;
    let runtime = inputs::runtime()?;
    let arch = args.arch.clone().or_else(|| worker_arch(&inputs));
    let secret_read = secrets::read(settings, args.filenames.is_empty(), &wanted)?;
    for w in &mut wanted {
        w.secret_notes = secrets::notes(w, &secret_read);
    }
    let mut catalogs = BTreeMap::new();
    for (key, (first, packages)) in images_to_read(&wanted) {
        let config = views.config(&key.1);
        let files = secrets::files(&wanted[first], &secret_read);
        let with_secrets;
        let probe_ctx = if files.is_empty() {
            &ctx
        } else {
            with_secrets = ProbeContext {
                prober: ctx.prober.with_auth_first(files),
                registries_d: ctx.registries_d.clone(),
            };
            &with_secrets
        };
        let read = runtime.block_on(read_catalog(
            probe_ctx,
            &config,
            &key.0,
            mode,
            packages,
            arch.as_deref(),
            args.cache_dir.as_deref(),
        ))?;
        catalogs.insert(key, read);
    }
    let resolved: Vec<_> = wanted
        .iter()
        .map(|w| resolve_one(w, &catalogs, args))
        .collect();
    let probe = Probe {
        runtime: &runtime,
        ctx: &ctx,
        views: &views,
        mode,
        concurrency: usize::from(args.probe.probe_concurrency),
    };
    let mut resolved = resolved;
    let probed = probe.with_bundles(&wanted, &mut resolved, arch.as_deref());
    Ok(wanted
        .into_iter()
        .zip(resolved)
        .zip(probed)
        .map(|((w, (found, hops)), probed)| finish(w, found, hops, &probed, args.require_mirror))
        .collect())
}

/// What probing the images of the hops needs.
struct Probe<'a> {
    runtime: &'a tokio::runtime::Runtime,
    ctx: &'a ProbeContext,
    views: &'a Views,
    mode: ShortNameMode,
    concurrency: usize,
}

/// An image's class and probe.
type Probed = BTreeMap<String, (ImageClass, ImageCheck)>;

impl Probe<'_> {
    /// Every image of the hops probed; then, for a bundle without the
    /// catalog's CSV, its deployment images read from the bundle image (on
    /// the source that served it), added to its hop, and probed.
    fn with_bundles(
        &self,
        wanted: &[Wanted],
        resolved: &mut [(Found, Option<Vec<HopCheck>>)],
        arch: Option<&str>,
    ) -> Vec<Probed> {
        let mut probed = self.each(wanted, resolved, None);
        let served: Probed = probed.iter().flat_map(|p| p.clone()).collect();
        let workers = self.views.config(&(WORKER_POOL.to_string(), None));
        let pulled = bundles::Pulled {
            ctx: self.ctx,
            config: &workers,
            mode: self.mode,
            arch,
            probed: &served,
        };
        let added = self
            .runtime
            .block_on(bundles::add_deployment_images(&pulled, resolved));
        if !added.is_empty() {
            let more = self.each(wanted, resolved, Some(&added));
            for (mine, new) in probed.iter_mut().zip(more) {
                mine.extend(new);
            }
        }
        probed
    }

    /// The images of every Subscription's hops, each probed once per
    /// configuration it is pulled with: a bundle by the unpack Job in the
    /// CatalogSource's namespace, the others in the Subscription's (each
    /// namespace's own policy, when it has one); for each Subscription, its
    /// images' probes.
    /// With `only`, just those images.
    fn each(
        &self,
        wanted: &[Wanted],
        resolved: &[(Found, Option<Vec<HopCheck>>)],
        only: Option<&BTreeSet<String>>,
    ) -> Vec<Probed> {
        let mut keyed: Vec<Vec<(String, ViewKey)>> = Vec::new();
        let mut groups: BTreeMap<ViewKey, BTreeSet<String>> = BTreeMap::new();
        for (w, (_, hops)) in wanted.iter().zip(resolved) {
            let images = hops
                .iter()
                .flatten()
                .flat_map(|h| &h.images)
                .filter(|i| only.is_none_or(|o| o.contains(&i.reference)));
            let mine: Vec<(String, ViewKey)> = images
                .map(|i| {
                    let ns = match i.role {
                        ImageRole::Bundle => &w.sub.source_namespace,
                        _ => &w.sub.namespace,
                    };
                    (i.reference.clone(), self.views.key(WORKER_POOL, ns))
                })
                .collect();
            for (reference, key) in &mine {
                groups
                    .entry(key.clone())
                    .or_default()
                    .insert(reference.clone());
            }
            keyed.push(mine);
        }
        let mut results: BTreeMap<ViewKey, Probed> = BTreeMap::new();
        for (key, references) in groups {
            let config = self.views.config(&key);
            let probed = self.runtime.block_on(probe_images(
                self.ctx,
                &config,
                self.mode,
                references,
                self.concurrency,
            ));
            results.insert(key, probed);
        }
        keyed
            .into_iter()
            .map(|mine| {
                mine.into_iter()
                    .filter_map(|(reference, key)| {
                        let got = results.get(&key)?.get(&reference)?.clone();
                        Some((reference, got))
                    })
                    .collect()
            })
            .collect()
    }
}

pub(super) fn explain_one(config: &Config<'_>, image: &str, mode: ShortNameMode) -> Explanation {
    core::explain(config, image, mode, None)
        .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e))
}
