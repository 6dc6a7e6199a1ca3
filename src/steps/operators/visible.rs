//! The other CatalogSources a Subscription's namespace resolves over: OLM
//! v0's resolver lists the bundles of every CatalogSource of the
//! namespace and of the global catalog namespace
//! ([`mirrorpolicy::olm::sources`]), from the files of `-f`, or listed live
//! in the two namespaces (a forbidden list is a warning, and the check
//! goes on with the own catalog). Each one's image is probed as its
//! registry pod pulls it: one that cannot be pulled fails the resolution
//! of the whole namespace. When the own catalog (with the operators
//! installed in the namespace) leaves a requirement unsatisfied, they are
//! read in the resolver's order, as the own catalog is (its image
//! explained for its registry pod's pool and namespace, its configs
//! streamed), first for the index of providers, then for the packages that
//! provide what is missing, until nothing is.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use mirrorpolicy::objects::Inputs;
use mirrorpolicy::olm::catalog::{Catalog, Provider};
use mirrorpolicy::olm::check::{self, CatalogCheck, UnlistedCatalog};
use mirrorpolicy::olm::objects::{CatalogOrigin, CatalogSource, OperatorGroup};
use mirrorpolicy::olm::placement::registry_pool;
use mirrorpolicy::olm::resolve::Stop;
use mirrorpolicy::olm::sources::{self, GLOBAL_NAMESPACE};
use mirrorpolicy::olm::{deps, plan};
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::source::api::{
    self as live, ClusterError, Resource, CATALOG_SOURCES, OPERATOR_GROUPS,
};
use mirrorpolicy::upgrade::ImageOutcome;

use super::fbc::{open_catalog, read_opened, Opened};
use super::hops::{probe_image, ImageProbe};
use super::secrets;
use super::views::{ViewKey, Views};
use super::wanted::{CatalogKey, Other, Wanted};
use super::OperatorPlan;
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

/// What reading the other catalogs needs.
pub(super) struct Reader<'a> {
    pub settings: &'a Settings,
    pub plan: &'a OperatorPlan,
    pub inputs: &'a Inputs,
    pub runtime: &'a tokio::runtime::Runtime,
    pub ctx: &'a ProbeContext,
    pub mode: ShortNameMode,
    pub arch: Option<&'a str>,
}

/// The reader, and the pull secrets the other CatalogSources name (read
/// live; with `-f`, not read): each catalog image is pulled with its own
/// first, as its registry pod pulls it.
struct Pulled<'a> {
    r: &'a Reader<'a>,
    secrets: &'a secrets::Read,
}

impl Pulled<'_> {
    /// The pull secrets of `cs` that were read, `(namespace, name)` in its
    /// order: with the reader's, the credentials its registry pod pulls
    /// with.
    fn read_secrets(&self, cs: &CatalogSource) -> Vec<(String, String)> {
        cs.secrets
            .iter()
            .map(|s| (cs.namespace.clone(), s.clone()))
            .filter(|k| self.secrets.get(k).is_some_and(|r| r.is_ok()))
            .collect()
    }

    /// The probe context of `cs`'s registry pod when it differs from the
    /// reader's: its pull secrets that were read before the global pull
    /// secret.
    fn ctx_for(&self, cs: &CatalogSource) -> Option<ProbeContext> {
        let files: Vec<_> = self
            .read_secrets(cs)
            .iter()
            .filter_map(|k| self.secrets.get(k))
            .filter_map(|r| r.as_ref().ok().cloned())
            .collect();
        (!files.is_empty()).then(|| ProbeContext {
            prober: self.r.ctx.prober.with_auth_first(files),
            registries_d: self.r.ctx.registries_d.clone(),
        })
    }

    /// Whether every pull secret `cs` names was read.
    fn all_read(&self, cs: &CatalogSource) -> bool {
        cs.secrets.iter().all(|s| {
            self.secrets
                .get(&(cs.namespace.clone(), s.clone()))
                .is_some_and(|r| r.is_ok())
        })
    }
}

/// A catalog image pulled by a registry pod: the image, the view of the
/// pod's pool and namespace, and the pull secrets of its CatalogSource
/// that were read ([`Pulled::read_secrets`]). Two CatalogSources of one
/// image with other pull secrets are two pulls, whose answers can differ.
pub(super) type PullKey = (String, ViewKey, Vec<(String, String)>);

/// Catalog images opened, by pull.
pub(super) type Opens = BTreeMap<PullKey, Opened>;

/// What the reads of the Subscriptions' own catalogs leave: the pull
/// secrets read for them, and each image opened (read again, for what
/// another catalog's bundles need, it is neither probed nor fetched again).
pub(super) struct Own<'a> {
    pub secrets: &'a secrets::Read,
    pub opened: Opens,
}

/// What was learnt of each catalog image pull, once for every
/// Subscription: its probe (the listability check's, which its read
/// reuses), the image opened for reading (manifest, config and the layers
/// holding configs fetched once), and its reads for some packages.
#[derive(Default)]
struct Memo {
    probed: BTreeMap<PullKey, ImageProbe>,
    opened: Opens,
    reads: BTreeMap<(PullKey, BTreeSet<String>), Option<Catalog>>,
}

impl Memo {
    fn new(opened: Opens) -> Memo {
        Memo {
            opened,
            ..Memo::default()
        }
    }
}

/// For each of `wanted`, the catalogs besides its own that its
/// dependencies come from, in the resolver's order (its own among them);
/// empty when its own catalog satisfies every requirement.
pub(super) fn read(
    r: &Reader<'_>,
    views: &mut Views,
    wanted: &mut [Wanted],
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
    own: Own<'_>,
) -> Result<Vec<Vec<Other>>> {
    list_unknown(r.settings, wanted)?;
    wanted.iter_mut().for_each(apply_operator_group);
    wanted.iter_mut().for_each(apply_failed_plan);
    // The own CatalogSource's too: it is read anew for what another
    // catalog's bundles need, with its pull secrets as its first read.
    let named = wanted
        .iter()
        .flat_map(|w| w.visible.iter().flatten().chain(w.source.as_ref()))
        .flat_map(|c| c.secrets.iter().map(|s| (c.namespace.clone(), s.clone())))
        .filter(|k| !own.secrets.contains_key(k))
        .collect();
    let mut secret_read = secrets::read_named(r.settings, r.plan.filenames.is_empty(), named)?;
    secret_read.extend(own.secrets.iter().map(|(k, v)| (k.clone(), v.clone())));
    let pulled = Pulled {
        r,
        secrets: &secret_read,
    };
    let mut memo = Memo::new(own.opened);
    check_listable(&pulled, views, wanted, &mut memo)?;
    let needs: Vec<(usize, Vec<Provider>)> = wanted
        .iter()
        .enumerate()
        .filter(|(_, w)| w.prevented.is_none())
        .filter_map(|(i, w)| Some((i, missing_from_own(w, catalogs)?)))
        .collect();
    let mut out = vec![Vec::new(); wanted.len()];
    for (i, missing) in needs {
        out[i] = read_for(&pulled, views, &wanted[i], catalogs, missing, &mut memo)?;
    }
    Ok(out)
}

/// A Subscription whose InstallPlan failed before creating its CSV is not
/// resolved again ([`plan::failed_plan`]): OLM skips it before resolving
/// the namespace, so only a namespace it does not sync at all
/// (`operatorGroupCount`) says otherwise.
fn apply_failed_plan(w: &mut Wanted) {
    if !resolves_a_namespace(w) || matches!(w.prevented, Some((Stop::OperatorGroupCount(_), _))) {
        return;
    }
    let Some(p) = &w.plan else { return };
    let current = w.sub.current_csv.as_deref();
    let created = w.installed.iter().any(|i| Some(i.name.as_str()) == current);
    if let Some(stuck) = plan::failed_plan(&w.sub, p, created, w.operator_groups.as_deref()) {
        w.prevented = Some(stuck);
    }
}

/// Whether OLM v0 resolves `w`'s namespace: a Subscription's, not a
/// ClusterExtension's nor a `--package` check's.
fn resolves_a_namespace(w: &Wanted) -> bool {
    w.v1.is_none() && !w.sub.namespace.is_empty()
}

/// Live, the CatalogSources every Subscription's namespace resolves over,
/// listed in its namespace and the global one.
fn list_unknown(settings: &Settings, wanted: &mut [Wanted]) -> Result<()> {
    let unknown = |w: &Wanted| resolves_a_namespace(w) && w.visible.is_none();
    let to_list: BTreeSet<String> = wanted
        .iter()
        .filter(|w| unknown(w))
        .flat_map(|w| [w.sub.namespace.clone(), GLOBAL_NAMESPACE.to_string()])
        .collect();
    if to_list.is_empty() {
        return Ok(());
    }
    let (listed, groups) = list_live(settings, &to_list)?;
    for w in wanted.iter_mut().filter(|w| unknown(w)) {
        let (ns, own) = (&w.sub.namespace, (&w.sub.source_namespace, &w.sub.source));
        let visible = listed
            .iter()
            .filter(|c| sources::visible_to(c, ns))
            .filter(|c| (&c.namespace, &c.name) != own)
            .cloned()
            .collect();
        w.visible = Some(visible);
        w.operator_groups = groups.get(ns).cloned();
    }
    Ok(())
}

/// The OperatorGroup of `w`'s namespace applied: with the annotation, the
/// global namespace's CatalogSources are out of its resolution (its own
/// catalog too, when it is there: the resolver finds no operators from
/// it); with no OperatorGroup or several, nothing is resolved.
fn apply_operator_group(w: &mut Wanted) {
    if !resolves_a_namespace(w) {
        return;
    }
    let ns = w.sub.namespace.clone();
    match sources::includes_global(&ns, w.operator_groups.as_deref()) {
        Ok(true) => {}
        Ok(false) => {
            if let Some(visible) = &mut w.visible {
                visible.retain(|c| c.namespace == ns);
            }
            if w.sub.source_namespace == GLOBAL_NAMESPACE && ns != GLOBAL_NAMESPACE {
                w.prevented = Some(sources::excluded_catalog(&w.sub));
            }
        }
        Err(stop) => {
            w.prevented = Some(stop);
            return;
        }
    }
    // The installed CSVs are the resolver's first variables: their error
    // comes before any catalog's (resolver.go `Resolve`).
    if let Some(e) = &w.installed_error {
        w.prevented = Some(check::installed_prevented(&ns, e));
    }
}

/// Each CatalogSource a Subscription's namespace resolves over, its image
/// probed as CRI-O on its registry pod's node pulls it (once per image and
/// configuration and pull secrets): OLM's resolver lists the bundles of every one of them,
/// and one whose registry pod cannot pull its catalog fails the
/// resolution of the whole namespace ([`check::resolution_prevented`]), as
/// an installed CSV whose properties OLM cannot read does; so does one
/// whose image is pulled but whose catalog its `opm serve` refuses (its
/// index is read for that, once: [`read_one`]).
fn check_listable(
    p: &Pulled<'_>,
    views: &mut Views,
    wanted: &mut [Wanted],
    memo: &mut Memo,
) -> Result<()> {
    let r = p.r;
    // A namespace without exactly one OperatorGroup is not resolved at all;
    // one whose own catalog is out of it still is, and a catalog that cannot
    // be listed fails it first (`namespacedCache.Error()`, resolver.go:118).
    let checked = |w: &&mut Wanted| {
        resolves_a_namespace(w)
            && w.prevented
                .as_ref()
                .is_none_or(|(stop, _)| matches!(stop, Stop::PackageNotFound(_)))
    };
    for w in wanted.iter_mut().filter(checked) {
        let mut unlisted = Vec::new();
        for cs in w.visible.iter().flatten() {
            let CatalogOrigin::Image(image) = &cs.origin else {
                continue;
            };
            let pool = registry_pool(&cs.node_selector, &r.inputs.nodes, &r.inputs.pools).pool;
            views.ensure(r.settings, r.inputs, &pool, &cs.namespace)?;
            let view = views.key(&pool, &cs.namespace);
            let key = (image.clone(), view, p.read_secrets(cs));
            if !memo.probed.contains_key(&key) {
                let config = views.config(&key.1);
                let own = p.ctx_for(cs);
                let ctx = own.as_ref().unwrap_or(r.ctx);
                let got = r
                    .runtime
                    .block_on(probe_image(ctx, &config, image, r.mode, "catalog"));
                memo.probed.insert(key.clone(), got);
            }
            let check = memo.probed[&key].check.clone();
            // A catalog its registry pod pulls is listed only when its
            // `opm serve` accepts it: read for its index (which a
            // dependency's search reuses) to know.
            let refused = match check.outcome {
                ImageOutcome::Served => {
                    read_one(p, views, cs, BTreeSet::new(), memo)?.and_then(|c| c.refused)
                }
                _ => None,
            };
            // Refused credentials with a pull secret of its own not read:
            // whether its registry pod can pull is not known here.
            let unknown = check.outcome == ImageOutcome::Unauthorized && !p.all_read(cs);
            if (check.outcome.fails() && !unknown) || refused.is_some() {
                let source = format!("{}/{}", cs.namespace, cs.name);
                unlisted.push(UnlistedCatalog {
                    source,
                    check,
                    refused,
                });
            }
        }
        if let Some(prevented) =
            check::resolution_prevented(&w.sub.namespace, &w.unreadable, &unlisted)
        {
            w.prevented = Some(prevented);
        }
    }
    Ok(())
}

/// What `w`'s own catalog (with the operators installed in its namespace)
/// leaves unsatisfied, when it was read and something is.
fn missing_from_own(
    w: &Wanted,
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
) -> Option<Vec<Provider>> {
    if w.v1.is_some() || w.sub.namespace.is_empty() {
        return None;
    }
    let (_, image) = w.catalog.as_ref().ok()?;
    let own = catalogs.get(&w.catalog_key(image))?.1.as_ref()?;
    let with_installed = deps::with_installed(own, &w.installed);
    let missing = deps::missing(&[with_installed.as_ref()]);
    (!missing.is_empty()).then_some(missing)
}

/// The CatalogSources of `namespaces` and the OperatorGroups of each,
/// listed live; a namespace whose list is forbidden is a warning naming
/// the rule (and counts none; its OperatorGroups are not known).
fn list_live(
    settings: &Settings,
    namespaces: &BTreeSet<String>,
) -> Result<(Vec<CatalogSource>, Groups)> {
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let listed = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            list_in(&connection, namespaces).await
        })
        .map_err(inputs::cluster_failure)?;
    let sources = listed
        .sources
        .iter()
        .map(CatalogSource::from_value)
        .collect();
    Ok((sources, listed.groups))
}

/// What [`list_in`] listed.
pub(super) struct Listed {
    /// The CatalogSources of the namespaces listed, as read.
    pub sources: Vec<serde_json::Value>,
    /// The namespaces whose CatalogSources were listed (not forbidden).
    pub namespaces: BTreeSet<String>,
    /// The OperatorGroups of each namespace listed (none of the global one).
    pub groups: Groups,
}

/// The CatalogSources of `namespaces` and the OperatorGroups of each
/// (the global namespace's are not OLM's concern here), each list made
/// once; a forbidden list is a warning naming the rule.
pub(super) async fn list_in(
    connection: &live::Connection,
    namespaces: &BTreeSet<String>,
) -> Result<Listed, ClusterError> {
    let mut listed = Listed {
        sources: Vec::new(),
        namespaces: BTreeSet::new(),
        groups: Groups::new(),
    };
    for ns in namespaces {
        if let Some(sources) = list_or_warn(connection, &CATALOG_SOURCES, ns).await? {
            listed.sources.extend(sources);
            listed.namespaces.insert(ns.clone());
        }
        if ns == GLOBAL_NAMESPACE {
            continue;
        }
        if let Some(groups) = list_or_warn(connection, &OPERATOR_GROUPS, ns).await? {
            let of_ns = groups.iter().map(OperatorGroup::from_value).collect();
            listed.groups.insert(ns.clone(), of_ns);
        }
    }
    Ok(listed)
}

/// Each namespace's OperatorGroups, listed.
pub(super) type Groups = BTreeMap<String, Vec<OperatorGroup>>;

/// The objects of `resource` in `ns`; `None` when the server does not
/// serve them, or forbids the list (a warning naming the rule).
async fn list_or_warn(
    connection: &live::Connection,
    resource: &Resource,
    ns: &str,
) -> Result<Option<Vec<serde_json::Value>>, ClusterError> {
    match connection.list_objects(resource, Some(ns), None).await {
        Ok(listed) => Ok(listed),
        Err(ClusterError::Forbidden(f)) => {
            term::warn(format!(
                "cannot list the {} of namespace {ns} (needs {}): OLM's resolution of the namespace is checked without them",
                resource.name(),
                f.first().map(|f| f.rule()).unwrap_or_default()
            ));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The other catalogs of `w`, in the resolver's order, each read for the
/// packages it offers to what is `missing` from the own catalog, then to
/// what each catalog read leaves unsatisfied of its own bundles' needs (the
/// own catalog too is read for the packages it offers to those)
/// (`FindPreferred` offers a requirement from the declaring bundle's
/// catalog first, then from every other in order: the own catalog can be
/// one of them, and a catalog before it is then preferred); those that
/// provide nothing asked are left out. Passes repeat while a catalog is
/// read for more: a dependency found in a later catalog can need a package
/// only an earlier one offers.
fn read_for(
    p: &Pulled<'_>,
    views: &mut Views,
    w: &Wanted,
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
    mut missing: Vec<Provider>,
    memo: &mut Memo,
) -> Result<Vec<Other>> {
    let Ok((_, image)) = &w.catalog else {
        return Ok(Vec::new());
    };
    let Some(own) = catalogs
        .get(&w.catalog_key(image))
        .and_then(|c| c.1.as_ref())
    else {
        return Ok(Vec::new());
    };
    let own_with_installed = deps::with_installed(own, &w.installed);
    let visible = w.visible.clone().unwrap_or_default();
    let own_source = w.source.clone();
    let mut all: Vec<&CatalogSource> = visible.iter().collect();
    all.extend(own_source.as_ref());
    let order = sources::order(&all, &w.sub.namespace);
    let is_own = |cs: &CatalogSource| own_source.as_ref() == Some(cs);
    let mut packages: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
    let mut reads: BTreeMap<usize, Catalog> = BTreeMap::new();
    loop {
        let mut grew = false;
        for (i, cs) in order.iter().enumerate() {
            // The own catalog's index is its read: only the packages it
            // offers to another catalog's bundles are read anew.
            let read_index;
            let index = if is_own(cs) {
                own
            } else {
                match read_one(p, views, cs, BTreeSet::new(), memo)? {
                    Some(index) => {
                        read_index = index;
                        &read_index
                    }
                    None => continue,
                }
            };
            let more = deps::packages_for(index, &missing);
            let wanted = packages.entry(i).or_default();
            if more.is_subset(wanted) {
                continue;
            }
            wanted.extend(more);
            grew = true;
            let Some(read) = read_one(p, views, cs, wanted.clone(), memo)? else {
                continue;
            };
            reads.insert(i, read);
            missing = unmet_by_each(own_with_installed.as_ref(), reads.values(), &w.installed);
        }
        if !grew {
            break;
        }
    }
    if reads.is_empty() {
        return Ok(Vec::new());
    }
    // The own catalog is `None` in its place, or the packages read anew of
    // it, which the resolver takes as part of it.
    let out = order
        .iter()
        .enumerate()
        .filter_map(|(i, cs)| {
            let name = format!("{}/{}", cs.namespace, cs.name);
            match reads.remove(&i) {
                Some(read) => Some((name, Some(read))),
                None => is_own(cs).then_some((name, None)),
            }
        })
        .collect();
    Ok(out)
}

/// What each catalog read leaves unsatisfied of its own bundles'
/// requirements (the installed operators counted), the own catalog's
/// first: each is looked for in every other catalog.
fn unmet_by_each<'c>(
    own: &Catalog,
    reads: impl Iterator<Item = &'c Catalog>,
    installed: &[Provider],
) -> Vec<Provider> {
    let mut unmet = deps::missing(&[own]);
    for read in reads {
        unmet.extend(deps::missing(&[
            deps::with_installed(read, installed).as_ref()
        ]));
    }
    unmet
}

/// CatalogSource `cs` read for `packages` (none: its index of providers
/// alone), as the own catalog is; one that cannot be read is a warning.
fn read_one(
    p: &Pulled<'_>,
    views: &mut Views,
    cs: &CatalogSource,
    packages: BTreeSet<String>,
    memo: &mut Memo,
) -> Result<Option<Catalog>> {
    let r = p.r;
    let name = format!("{}/{}", cs.namespace, cs.name);
    let CatalogOrigin::Image(image) = &cs.origin else {
        if packages.is_empty() {
            if let CatalogOrigin::Other(why) = &cs.origin {
                term::warn(format!(
                    "CatalogSource {name}: {why}: its bundles are not looked at for the dependencies"
                ));
            }
        }
        return Ok(None);
    };
    let pool = registry_pool(&cs.node_selector, &r.inputs.nodes, &r.inputs.pools).pool;
    views.ensure(r.settings, r.inputs, &pool, &cs.namespace)?;
    let view = views.key(&pool, &cs.namespace);
    let key: PullKey = (image.clone(), view, p.read_secrets(cs));
    let memo_key = (key.clone(), packages.clone());
    if let Some(read) = memo.reads.get(&memo_key) {
        return Ok(read.clone());
    }
    let own = p.ctx_for(cs);
    let ctx = own.as_ref().unwrap_or(r.ctx);
    let read = r.runtime.block_on(async {
        let opened = match memo.opened.entry(key.clone()) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(first) => {
                let (config, probed) = (views.config(&key.1), memo.probed.get(&key).cloned());
                first.insert(open_catalog(ctx, &config, image, r.mode, probed).await?)
            }
        };
        let cache_dir = r.plan.cache_dir.as_deref();
        read_opened(ctx, opened, image, packages, r.arch, cache_dir).await
    });
    let read = match read {
        Ok((_, Some(catalog))) => Some(catalog),
        Ok((check, None)) => {
            let why = check
                .undetermined
                .or_else(|| check.check.map(|c| c.detail))
                .unwrap_or_default();
            term::warn(format!(
                "the catalog of CatalogSource {name} ({image}) was not read: {why}; its bundles are not looked at for the dependencies"
            ));
            None
        }
        Err(e) => {
            term::warn(format!(
                "the catalog of CatalogSource {name} ({image}) was not read: {e:#}; its bundles are not looked at for the dependencies"
            ));
            None
        }
    };
    memo.reads.insert(memo_key, read.clone());
    Ok(read)
}
