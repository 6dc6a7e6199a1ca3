//! `operator-check`: for each Subscription (or `--package`), the catalog
//! image pulled as CRI-O on a worker pulls it through the mirrors, its
//! file-based configs read layer by layer for the wanted packages, OLM's
//! update path walked from the installed CSV, and every image of every hop
//! probed as `upgrade-check` probes images; a verdict per Subscription.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use crate::output;
use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::olm::catalog::Catalog;
use mirrorpolicy::olm::check::{CatalogCheck, SubscriptionCheck};
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::source::api::{Read, MACHINE_CONFIG_POOLS, MIRROR_CONFIG, NODES};
use mirrorpolicy::upgrade::Readiness;

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
mod subscriptions;

use fbc::read_catalog;
use hops::{finish, probe_images, resolve_one};
use subscriptions::{images_to_read, wanted, worker_arch};

/// The pool whose nodes run the catalog's registry pod and the operators
/// (a CatalogSource without a nodeSelector lands on a worker).
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
    let wanted = wanted(settings, args)?;
    let reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(POOLS_AND_NODES)
        .copied()
        .collect();
    let inputs = inputs::load_objects(settings, &args.filenames, &reads, None)?;
    let (rendered, view) = inputs::render_view(settings, &inputs, WORKER_POOL, None)?;
    let config = Config::from(&view);
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let ctx = probe_cmd::context_for_objects(
        settings,
        &super::registry_probe_setup(&args.probe),
        &args.filenames,
        &rendered,
        &inputs,
    )?;
    let runtime = inputs::runtime()?;
    let arch = args.arch.clone().or_else(|| worker_arch(&inputs));
    let mut catalogs: BTreeMap<String, (CatalogCheck, Option<Catalog>)> = BTreeMap::new();
    for (image, packages) in images_to_read(&wanted) {
        let read = runtime.block_on(read_catalog(
            &ctx,
            &config,
            &image,
            mode,
            packages,
            arch.as_deref(),
            args.cache_dir.as_deref(),
        ))?;
        catalogs.insert(image, read);
    }
    let mut resolved = Vec::new();
    for w in &wanted {
        resolved.push(resolve_one(w, &catalogs, args));
    }
    let references: BTreeSet<String> = resolved
        .iter()
        .flat_map(|r| {
            r.1.iter().flat_map(|p| {
                p.iter()
                    .flat_map(|h| h.images.iter().map(|i| i.reference.clone()))
            })
        })
        .collect();
    let concurrency = usize::from(args.probe.probe_concurrency);
    let mut probed = runtime.block_on(probe_images(&ctx, &config, mode, references, concurrency));
    let pulled = bundles::Pulled {
        ctx: &ctx,
        config: &config,
        mode,
        arch: arch.as_deref(),
        probed: &probed,
    };
    let added = runtime.block_on(bundles::add_deployment_images(&pulled, &mut resolved));
    let more = runtime.block_on(probe_images(&ctx, &config, mode, added, concurrency));
    probed.extend(more);
    Ok(wanted
        .into_iter()
        .zip(resolved)
        .map(|(w, (found, hops))| finish(w, found, hops, &probed, args.require_mirror))
        .collect())
}

pub(super) fn explain_one(config: &Config<'_>, image: &str, mode: ShortNameMode) -> Explanation {
    core::explain(config, image, mode, None)
        .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e))
}
