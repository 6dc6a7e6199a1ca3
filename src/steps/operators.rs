//! The operator update pipeline `operator-check` runs and `audit --updates`
//! reuses: for each Subscription (or a package), the catalog image pulled
//! through the mirrors as CRI-O on its registry pod's node pulls it, its
//! file-based configs read layer by layer for the wanted packages, OLM's
//! update path walked from the installed CSV, and every image of every hop
//! probed as `upgrade-check` probes images (with the policy of the
//! namespace its pod runs in); a verdict per Subscription. One module per
//! stage; the options come as a plain [`OperatorPlan`], never as flags.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Result;

use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::olm::catalog::Catalog;
use mirrorpolicy::olm::check::{
    CatalogCheck, Found, HopCheck, HopImage, ImageRole, SubscriptionCheck,
};
use mirrorpolicy::olm::sources::GLOBAL_NAMESPACE;
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::source::api::{Read, MACHINE_CONFIG_POOLS, MIRROR_CONFIG, NODES};

use crate::settings::Settings;
use crate::steps::inputs;
use crate::steps::probe::{self as probe_cmd, ProbeSetup};

mod bundles;
mod cache;
mod extensions;
mod fbc;
mod hops;
mod secrets;
mod subscriptions;
mod views;
mod visible;
mod wanted;

use fbc::{open_catalog, read_opened};
use hops::{finish, probe_images, resolve_one, ImageProbe};
use subscriptions::{images_to_read, wanted, worker_arch};
pub use subscriptions::{read as read_olm, OlmObjects};
use views::{ViewKey, Views};
use wanted::{CatalogKey, Wanted};

/// What the pipeline checks and how: the Subscriptions (read from
/// `filenames`, or live in the settings' namespace or every namespace), or
/// one package of a catalog image; how far the path goes; how images are
/// probed.
pub struct OperatorPlan {
    /// Files and folders to read instead of the live cluster.
    pub filenames: Vec<PathBuf>,
    /// Live: every namespace instead of the settings' namespace.
    pub all_namespaces: bool,
    /// Only the Subscriptions of these names (all when empty).
    pub subscriptions: Vec<String>,
    /// A catalog image to check instead of the Subscriptions' sources.
    pub catalog_image: Option<String>,
    /// One package of `catalog_image`, checked without a Subscription.
    pub package: Option<String>,
    /// The package's channel (its default channel when `None`).
    pub channel: Option<String>,
    /// The package's installed CSV.
    pub installed: Option<String>,
    /// The package's `startingCSV`.
    pub starting_csv: Option<String>,
    /// The CSV the path ends at (the channel head when `None`).
    pub to: Option<String>,
    /// At most this many hops from the installed CSV.
    pub max_hops: usize,
    /// The operand images of the CSVs too.
    pub operands: bool,
    /// The nodes' architecture (the workers' when `None`).
    pub arch: Option<String>,
    /// Where the catalogs read are kept between runs.
    pub cache_dir: Option<PathBuf>,
    /// Every image must be served by a mirror.
    pub require_mirror: bool,
    /// The registry client's set-up.
    pub probe: ProbeSetup,
    /// No Subscription found is an input error (else no verdict at all).
    pub require_subscriptions: bool,
}

/// The pool whose nodes run the operators, the bundle unpack Jobs, and
/// the registry pod of a CatalogSource without a nodeSelector.
const WORKER_POOL: &str = "worker";

/// Read live on top of the mirror configuration: the pools (which one runs
/// a catalog's registry pod) and the Nodes (their architecture).
pub const POOLS_AND_NODES: &[Read] = &[Read::one(&[MACHINE_CONFIG_POOLS]), Read::one(&[NODES])];

/// Every verdict of `plan`, in the order the Subscriptions were read.
pub fn check(settings: &Settings, plan: &OperatorPlan) -> Result<Vec<SubscriptionCheck>> {
    let reads: Vec<Read> = MIRROR_CONFIG
        .iter()
        .chain(POOLS_AND_NODES)
        .copied()
        .collect();
    let inputs = inputs::load_objects(settings, &plan.filenames, &reads, None)?;
    check_loaded(settings, plan, &inputs, None, None)
}

/// [`check`] over objects already read (the mirror configuration of every
/// namespace, and [`POOLS_AND_NODES`]; OLM's objects when the caller read
/// them with [`read_olm`], else they are read here), probing with `ctx`
/// when the caller has one for the workers' render (else it is made here,
/// from `plan.probe`).
pub fn check_loaded(
    settings: &Settings,
    plan: &OperatorPlan,
    inputs: &Inputs,
    ctx: Option<&ProbeContext>,
    olm: Option<OlmObjects>,
) -> Result<Vec<SubscriptionCheck>> {
    let mut wanted = wanted(settings, plan, inputs, olm)?;
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let mut views = views_of(settings, inputs, &wanted)?;
    for w in &mut wanted {
        w.catalog_view = views.key(&w.pool.pool, &w.sub.source_namespace);
    }
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let made;
    let ctx = match ctx {
        Some(ctx) => ctx,
        None => {
            let (probe, files, workers) = (&plan.probe, &plan.filenames, views.workers());
            made = probe_cmd::context_for_objects(settings, probe, files, workers, inputs)?;
            &made
        }
    };
    let runtime = inputs::runtime()?;
    let arch = plan.arch.clone().or_else(|| worker_arch(inputs));
    let secret_read = secrets::read(settings, plan.filenames.is_empty(), &wanted)?;
    for w in &mut wanted {
        w.secret_notes = secrets::notes(w, &secret_read);
    }
    let reader = visible::Reader {
        settings,
        plan,
        inputs,
        runtime: &runtime,
        ctx,
        mode,
        arch: arch.as_deref(),
    };
    let (catalogs, opened) = read_catalogs(&reader, &views, &wanted, &secret_read)?;
    let own = visible::Own {
        secrets: &secret_read,
        opened,
    };
    let others = visible::read(&reader, &mut views, &mut wanted, &catalogs, own)?;
    let mut resolved = resolve_each(&wanted, &catalogs, &others, plan);
    hops::prevented(&wanted, &mut resolved);
    let probe = Probe {
        runtime: &runtime,
        ctx,
        views: &views,
        mode,
        concurrency: plan.probe.concurrency,
    };
    let probed = probe.with_bundles(&wanted, &mut resolved, arch.as_deref());
    Ok(wanted
        .into_iter()
        .zip(resolved)
        .zip(probed)
        .map(|((w, (found, hops)), probed)| finish(w, found, hops, &probed, plan.require_mirror))
        .collect())
}

/// Each catalog image read, by its key: its check, and the catalog.
type Catalogs = BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>;

/// Each catalog image of `wanted`, read once for the packages wanted from
/// it (with the pull secrets of the first CatalogSource naming it), and
/// each opened, by its pull, for the reads of the resolver's catalogs.
fn read_catalogs(
    r: &visible::Reader<'_>,
    views: &Views,
    wanted: &[Wanted],
    secret_read: &secrets::Read,
) -> Result<(Catalogs, visible::Opens)> {
    let mut catalogs = BTreeMap::new();
    let mut opens = visible::Opens::new();
    for (key, (first, packages)) in images_to_read(wanted) {
        let config = views.config(&key.1);
        let files = secrets::files(&wanted[first], secret_read);
        let with_secrets;
        let probe_ctx = if files.is_empty() {
            r.ctx
        } else {
            with_secrets = ProbeContext {
                prober: r.ctx.prober.with_auth_first(files),
                registries_d: r.ctx.registries_d.clone(),
            };
            &with_secrets
        };
        let cache_dir = r.plan.cache_dir.as_deref();
        let (read, opened) = r.runtime.block_on(async {
            let mut opened = open_catalog(probe_ctx, &config, &key.0, r.mode, None).await?;
            let read =
                read_opened(probe_ctx, &mut opened, &key.0, packages, r.arch, cache_dir).await?;
            Ok::<_, anyhow::Error>((read, opened))
        })?;
        let pulled = secrets::read_names(&wanted[first], secret_read);
        opens.insert((key.0.clone(), key.1.clone(), pulled), opened);
        catalogs.insert(key, read);
    }
    Ok((catalogs, opens))
}

/// The views of the pools the catalogs' registry pods run on (and the
/// workers'), with the own policies of the namespaces the pods run in.
fn views_of(settings: &Settings, inputs: &Inputs, wanted: &[Wanted]) -> Result<Views> {
    let pools: BTreeSet<String> = wanted.iter().map(|w| w.pool.pool.clone()).collect();
    let namespaces: BTreeSet<String> = wanted
        .iter()
        .flat_map(|w| [w.sub.source_namespace.clone(), w.operator_namespace.clone()])
        .chain([GLOBAL_NAMESPACE.to_string()])
        .filter(|ns| !ns.is_empty())
        .collect();
    Views::build(settings, inputs, &pools, &namespaces)
}

/// Each one's update path: OLM v0's for a Subscription, OLM v1's for a
/// ClusterExtension (images unprobed).
fn resolve_each(
    wanted: &[Wanted],
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
    others: &[Vec<wanted::Other>],
    plan: &OperatorPlan,
) -> Vec<(Found, Option<Vec<HopCheck>>)> {
    wanted
        .iter()
        .zip(others)
        .map(|(w, others)| match &w.v1 {
            Some(v1) => extensions::resolve(w, v1, catalogs, plan),
            None => resolve_one(w, catalogs, others, plan),
        })
        .collect()
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
type Probed = BTreeMap<String, ImageProbe>;

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
        let pulled = bundles::Pulled {
            ctx: self.ctx,
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
                .flat_map(|h| h.images.iter().map(move |i| (h, i)))
                .filter(|(_, i)| only.is_none_or(|o| o.contains(&i.reference)));
            let mine: Vec<(String, ViewKey)> = images
                .map(|(h, i)| {
                    let key = if i.unpacked {
                        self.views.key(&w.bundle_pool, unpacked_in(w, h, i))
                    } else {
                        self.views.key(WORKER_POOL, &w.operator_namespace)
                    };
                    (i.reference.clone(), key)
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

/// The namespace of the CatalogSource whose unpack Job pulls bundle `i`
/// of hop `h`: a dependency's catalog's, else the Subscription's catalog's.
fn unpacked_in<'a>(w: &'a Wanted, h: &'a HopCheck, i: &HopImage) -> &'a str {
    let dependency_catalog = (i.role == ImageRole::Dependency)
        .then(|| h.dependencies.iter().find(|d| d.name == i.name))
        .flatten()
        .and_then(|d| d.catalog.as_deref())
        .and_then(|c| c.split_once('/'))
        .map(|(ns, _)| ns);
    dependency_catalog.unwrap_or(&w.sub.source_namespace)
}

fn explain_one(config: &Config<'_>, image: &str, mode: ShortNameMode) -> Explanation {
    core::explain(config, image, mode, None)
        .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e))
}
