//! The Subscriptions to check and the catalog each reads: from the files of
//! `-f`, or from the live cluster (the Subscriptions of `-n`, the context's
//! namespace or every namespace with `-A`, then the CatalogSource, the
//! installed ClusterServiceVersion and the InstallPlan each one names).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use futures_util::StreamExt;
use serde_json::Value;

use mirrorpolicy::objects::Inputs;
use mirrorpolicy::olm::catalog::Provider;
use mirrorpolicy::olm::deps;
use mirrorpolicy::olm::objects::{
    self as olm, CatalogOrigin, CatalogSource, InstallPlan, OperatorGroup, Subscription,
};
use mirrorpolicy::olm::placement::registry_pool;
use mirrorpolicy::olm::sources::{visible_to, GLOBAL_NAMESPACE};
use mirrorpolicy::olm::{located, non_empty, text_or_empty, with_kind};
use mirrorpolicy::source::api::{
    self as live, ClusterError, Resource, CATALOG_SOURCES, CLUSTER_SERVICE_VERSIONS, INSTALL_PLANS,
    SUBSCRIPTIONS,
};

use super::extensions;
use super::visible::{self, Groups};
use super::wanted::{CatalogKey, Wanted};

use super::OperatorPlan;
use crate::exit::Failure;
use crate::settings::Settings;
use crate::steps::inputs;

/// The OLM objects read, each `(where it was read, object)`, and where
/// from: read once for a command, by [`read`], and passed along.
pub struct OlmObjects {
    found: Vec<(String, Value)>,
    /// `Some(namespace)` (`None`: every namespace) when read from the cluster.
    live: Option<Option<String>>,
    /// Live, the OperatorGroups of each namespace whose Subscriptions were
    /// read (a namespace whose list was forbidden has none); `None` from
    /// files, whose OperatorGroups are among `found`.
    groups: Option<Groups>,
}

impl OlmObjects {
    /// Every object read, `(where it was read, object)`, its `kind` set.
    pub fn found(&self) -> &[(String, Value)] {
        &self.found
    }
}

/// The OLM objects `plan` checks, read once: from the files of `-f`
/// (standard input too), or live; passed to [`wanted`] by a caller that
/// also uses them.
pub fn read(settings: &Settings, plan: &OperatorPlan) -> Result<OlmObjects> {
    olm_objects(settings, plan, want_of(plan))
}

/// Which of OLM's objects `plan` reads: names of one kind only, and the
/// other kind is not read.
fn want_of(plan: &OperatorPlan) -> Want {
    let (sub_names, ext_names) = extensions::split_names(&plan.subscriptions);
    Want {
        v0: !sub_names.is_empty() || ext_names.is_empty(),
        v1: plan.package.is_none() && (!ext_names.is_empty() || sub_names.is_empty()),
    }
}

/// The Subscriptions of `read` (those named, in `-n`), or the `--package`
/// one; each catalog's pool from the Nodes and pools of `inputs`. `read`
/// is read here when the caller has not.
pub(super) fn wanted(
    settings: &Settings,
    options: &OperatorPlan,
    inputs: &Inputs,
    read: Option<OlmObjects>,
) -> Result<Vec<Wanted>> {
    let (sub_names, ext_names) = extensions::split_names(&options.subscriptions);
    let want = want_of(options);
    let read = match read {
        Some(read) => read,
        None => olm_objects(settings, options, want)?,
    };
    let place = match &read.live {
        Some(_) => "the cluster",
        None => "the files read",
    };
    let extensions = if want.v1 {
        extensions::wanted(&read.found, &ext_names, place)?
    } else {
        Vec::new()
    };
    let named = Named {
        subscriptions: &sub_names,
        others: extensions.len(),
    };
    let mut found = if want.v0 || options.package.is_some() {
        subscription_wants(settings, options, inputs, &read, &named)?
    } else {
        Vec::new()
    };
    found.extend(extensions);
    Ok(found)
}

/// The Subscriptions of `read` (or the `--package` one), each with its
/// CatalogSource, installed CSV's version and InstallPlan; each catalog's
/// pool from the Nodes and pools of `inputs`.
fn subscription_wants(
    settings: &Settings,
    options: &OperatorPlan,
    inputs: &Inputs,
    read: &OlmObjects,
    named: &Named<'_>,
) -> Result<Vec<Wanted>> {
    let of_kind = |k: &'static str| {
        read.found
            .iter()
            .filter(move |(_, v)| v.get("kind").and_then(|x| x.as_str()) == Some(k))
    };
    let sources: Vec<CatalogSource> = of_kind(olm::CATALOG_SOURCE)
        .map(|(_, v)| CatalogSource::from_value(v))
        .collect();
    let plans: Vec<InstallPlan> = of_kind(olm::INSTALL_PLAN)
        .map(|(_, v)| InstallPlan::from_value(v))
        .collect();
    let versions: BTreeMap<(String, String), String> = of_kind(olm::CSV)
        .filter_map(|(_, v)| {
            let (ns, name, version) = olm::csv_version(v);
            Some(((ns, name), version?))
        })
        .collect();
    let csvs: Vec<&Value> = of_kind(olm::CSV).map(|(_, v)| v).collect();
    let groups = operator_groups(read);
    let every_sub: Vec<Subscription> = of_kind(olm::SUBSCRIPTION)
        .filter_map(|(at, v)| Subscription::from_value(at, v).ok())
        .collect();
    let subs = match &options.package {
        Some(package) => vec![package_subscription(options, package)],
        None => subscriptions(settings, options, read, of_kind(olm::SUBSCRIPTION), named)?,
    };
    let live = read.live.is_some();
    Ok(subs
        .into_iter()
        .map(|sub| {
            let source = sources
                .iter()
                .find(|c| c.name == sub.source && c.namespace == sub.source_namespace);
            let catalog = catalog_of(options, &sub, source, live);
            let selector = source.map(|c| c.node_selector.clone()).unwrap_or_default();
            let pool = registry_pool(&selector, &inputs.nodes, &inputs.pools);
            let installed_version = installed_version(&versions, &sub);
            let plan = sub.install_plan.as_ref().and_then(|name| {
                plans
                    .iter()
                    .find(|p| &p.name == name && p.namespace == sub.namespace)
                    .cloned()
            });
            Wanted {
                unreadable: deps::unreadable_properties(&sub.namespace, &csvs),
                installed_error: deps::unparsable_installed(&sub.namespace, &csvs),
                operator_groups: groups_in(read, &groups, &sub.namespace),
                prevented: None,
                source: source.cloned(),
                visible: Some(visible_of(&sources, &sub)),
                installed: installed_in(&sub.namespace, &csvs, &every_sub),
                bundle_pool: super::WORKER_POOL.to_string(),
                operator_namespace: sub.namespace.clone(),
                v1: None,
                sub,
                catalog,
                installed_version,
                plan,
                catalog_view: (pool.pool.clone(), None),
                pool,
                secrets: source.map(|c| c.secrets.clone()).unwrap_or_default(),
                secret_notes: Vec::new(),
            }
        })
        .collect())
}

/// The `spec.version` of `sub`'s installed CSV, among `versions` (by
/// namespace and name); with `--package` there is no namespace: a CSV of
/// that name in any.
fn installed_version(
    versions: &BTreeMap<(String, String), String>,
    sub: &Subscription,
) -> Option<String> {
    let csv = sub.installed_csv.as_ref()?;
    versions
        .iter()
        .find(|((ns, name), _)| name == csv && (sub.namespace.is_empty() || *ns == sub.namespace))
        .map(|(_, v)| v.clone())
}

/// The CatalogSources besides its own that `sub`'s namespace resolves
/// over, of those read (live, its namespace's and the global namespace's
/// were listed with the Subscriptions); with `--package` there is no
/// namespace, and none.
fn visible_of(sources: &[CatalogSource], sub: &Subscription) -> Vec<CatalogSource> {
    if sub.namespace.is_empty() {
        return Vec::new();
    }
    sources
        .iter()
        .filter(|c| visible_to(c, &sub.namespace))
        .filter(|c| !(c.name == sub.source && c.namespace == sub.source_namespace))
        .cloned()
        .collect()
}

/// The OperatorGroups read.
fn operator_groups(read: &OlmObjects) -> Vec<OperatorGroup> {
    read.found
        .iter()
        .filter(|(_, v)| v.get("kind").and_then(Value::as_str) == Some(olm::OPERATOR_GROUP))
        .map(|(_, v)| OperatorGroup::from_value(v))
        .collect()
}

/// The OperatorGroups of `namespace`: live, those listed (`None` when the
/// list was forbidden); among those read from files (`groups`), `None`
/// when the files hold none at all (they were not exported).
fn groups_in(
    read: &OlmObjects,
    groups: &[OperatorGroup],
    namespace: &str,
) -> Option<Vec<OperatorGroup>> {
    if let Some(listed) = &read.groups {
        return listed.get(namespace).cloned();
    }
    if groups.is_empty() {
        return None;
    }
    Some(
        groups
            .iter()
            .filter(|g| g.namespace == namespace)
            .cloned()
            .collect(),
    )
}

/// The operators installed in `namespace` (with `--package` there is no
/// namespace, and nothing installed).
fn installed_in(namespace: &str, csvs: &[&Value], subs: &[Subscription]) -> Vec<Provider> {
    if namespace.is_empty() {
        return Vec::new();
    }
    deps::installed_operators(namespace, csvs, subs)
}

/// Which OLM's objects are read: Subscriptions (v0), ClusterExtensions (v1).
#[derive(Debug, Clone, Copy)]
struct Want {
    v0: bool,
    v1: bool,
}

/// The Subscriptions named (all when none), and how many ClusterExtensions
/// are checked besides.
struct Named<'a> {
    subscriptions: &'a [String],
    others: usize,
}

/// The OLM objects of the files of `-f`; else, unless `--package` needs
/// none, the cluster's.
fn olm_objects(settings: &Settings, plan: &OperatorPlan, want: Want) -> Result<OlmObjects> {
    if !plan.filenames.is_empty() {
        let kinds = [
            olm::SUBSCRIPTION,
            olm::CATALOG_SOURCE,
            olm::CSV,
            olm::INSTALL_PLAN,
            olm::OPERATOR_GROUP,
            mirrorpolicy::kinds::CLUSTER_EXTENSION.kind,
            mirrorpolicy::kinds::CLUSTER_CATALOG.kind,
        ];
        let found = inputs::olm_objects(&plan.filenames, &kinds)?;
        return Ok(OlmObjects {
            found,
            live: None,
            groups: None,
        });
    }
    if plan.package.is_some() {
        return Ok(OlmObjects {
            found: Vec::new(),
            live: Some(None),
            groups: Some(Groups::new()),
        });
    }
    read_cluster(settings, plan, want)
}

/// The OLM objects of the cluster: the Subscriptions of `-n` (or every
/// namespace) and what they name, and the ClusterExtensions.
fn read_cluster(settings: &Settings, plan: &OperatorPlan, want: Want) -> Result<OlmObjects> {
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let all = plan.all_namespaces;
    let flag = settings.namespace().map(str::to_string);
    let (_, ext_names) = extensions::split_names(&plan.subscriptions);
    let (namespace, found, groups) = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let namespace = match (all, flag) {
                (true, _) => None,
                (false, Some(ns)) => Some(ns),
                (false, None) => Some(connection.default_namespace.clone()),
            };
            settings.verbose(|| {
                format!(
                    "reading Subscriptions from {} ({})",
                    connection.server,
                    namespace
                        .as_deref()
                        .map_or("every namespace".to_string(), |ns| format!(
                            "namespace {ns}"
                        ))
                )
            });
            let (found, groups) = if want.v0 {
                match read_live(&connection, namespace.as_deref()).await? {
                    Some((found, groups)) => (Some(found), groups),
                    None => (None, Groups::new()),
                }
            } else {
                (Some(Vec::new()), Groups::new())
            };
            let v1 = if want.v1 {
                extensions::read_live(&connection, &ext_names).await?
            } else {
                None
            };
            let found = match (found, v1) {
                (Some(mut v0), Some(v1)) => {
                    v0.extend(v1);
                    Some(v0)
                }
                (None, Some(v1)) if !v1.is_empty() => Some(v1),
                (v0, _) => v0,
            };
            Ok::<_, ClusterError>((namespace, found, groups))
        })
        .map_err(inputs::cluster_failure)?;
    let Some(found) = found else {
        return Err(Failure::cluster(format!(
            "the cluster does not serve {} (no such CRD): OLM is not installed",
            SUBSCRIPTIONS.name()
        ))
        .with_hint("check a package of a catalog image with --package and --catalog-image, or read exported objects with -f")
        .into());
    };
    Ok(OlmObjects {
        found,
        live: Some(namespace),
        groups: Some(groups),
    })
}

/// The Subscriptions of `namespace` (every one: `None`); the
/// CatalogSources and OperatorGroups of their namespaces (and of
/// `namespace`, which has none perhaps) and the
/// CatalogSources of the global namespace, listed (the catalogs OLM's
/// resolver of each namespace reads); the CatalogSources they name
/// elsewhere (or where the list was forbidden) and the InstallPlans they
/// name, each read by name once; and the CSVs of their namespaces (the
/// installed operators OLM's resolver sees). `None` when the server does
/// not serve Subscriptions.
async fn read_live(
    connection: &live::Connection,
    namespace: Option<&str>,
) -> Result<Option<(Vec<(String, Value)>, Groups)>, ClusterError> {
    let Some(subs) = connection
        .list_objects(&SUBSCRIPTIONS, namespace, None)
        .await?
    else {
        return Ok(None);
    };
    // The namespace read is read whole even without a Subscription: a
    // caller that audits it takes its CSVs and CatalogSources from here.
    let sub_namespaces: BTreeSet<String> = subs
        .iter()
        .map(|sub| text_or_empty(sub, "/metadata/namespace"))
        .chain(namespace.map(str::to_string))
        .collect();
    let mut to_list = sub_namespaces.clone();
    if !to_list.is_empty() {
        to_list.insert(GLOBAL_NAMESPACE.to_string());
    }
    let listed = visible::list_in(connection, &to_list).await?;
    let gets = by_name(connection, &subs, &listed.namespaces).await;
    let server = connection.server.as_str();
    let mut found: Vec<(String, Value)> = Vec::new();
    let mut push = |resource: &Resource, v: Value| {
        found.push((
            located(server, resource.kind, &v),
            with_kind(resource.kind, v),
        ));
    };
    for v in subs {
        push(&SUBSCRIPTIONS, v);
    }
    for v in listed.sources {
        push(&CATALOG_SOURCES, v);
    }
    for got in gets {
        if let Some((r, v)) = got? {
            push(&r, v);
        }
    }
    let csvs = CLUSTER_SERVICE_VERSIONS;
    for ns in &sub_namespaces {
        let listed = connection.list_objects(&csvs, Some(ns), None).await?;
        for v in listed.unwrap_or_default() {
            push(&csvs, v);
        }
    }
    Ok(Some((found, listed.groups)))
}

/// The objects `subs` name that no list held, each read by name once, a
/// few at a time: the CatalogSources outside the namespaces in `listed`,
/// and the InstallPlans.
async fn by_name(
    connection: &live::Connection,
    subs: &[Value],
    listed: &BTreeSet<String>,
) -> Vec<Result<Option<(Resource, Value)>, ClusterError>> {
    let mut named: BTreeSet<(Resource, String, String)> = BTreeSet::new();
    for sub in subs {
        let ns = text_or_empty(sub, "/metadata/namespace");
        let source_ns = non_empty(sub, "/spec/sourceNamespace").unwrap_or_else(|| ns.clone());
        if let Some(source) = non_empty(sub, "/spec/source") {
            if !listed.contains(&source_ns) {
                named.insert((CATALOG_SOURCES, source_ns, source));
            }
        }
        let plan = non_empty(sub, "/status/installPlanRef/name")
            .or_else(|| non_empty(sub, "/status/installplan/name"));
        if let Some(plan) = plan {
            named.insert((INSTALL_PLANS, ns, plan));
        }
    }
    futures_util::stream::iter(named.into_iter().map(|(r, ns, name)| async move {
        let got = connection.get_in(&r, &ns, &name).await?;
        Ok::<_, ClusterError>(got.map(|v| (r, v)))
    }))
    .buffered(LIVE_GETS)
    .collect::<Vec<_>>()
    .await
}

/// How many objects are read by name at once.
const LIVE_GETS: usize = 16;

fn package_subscription(options: &OperatorPlan, package: &str) -> Subscription {
    Subscription {
        namespace: String::new(),
        name: package.to_string(),
        package: package.to_string(),
        channel: options.channel.clone(),
        source: String::new(),
        source_namespace: String::new(),
        starting_csv: options.starting_csv.clone(),
        approval: "Automatic".to_string(),
        installed_csv: options.installed.clone(),
        current_csv: None,
        state: None,
        install_plan: None,
    }
}

fn subscriptions<'a>(
    settings: &Settings,
    options: &OperatorPlan,
    read: &OlmObjects,
    found: impl Iterator<Item = &'a (String, serde_json::Value)>,
    named: &Named<'_>,
) -> Result<Vec<Subscription>> {
    let mut subs = Vec::new();
    for (at, v) in found {
        subs.push(Subscription::from_value(at, v).map_err(Failure::input)?);
    }
    let (place, scope) = match &read.live {
        Some(Some(ns)) => ("the cluster", Some(ns.clone())),
        Some(None) => ("the cluster", None),
        None => {
            let ns = settings.namespace().filter(|_| !options.all_namespaces);
            if let Some(ns) = ns {
                subs.retain(|s| s.namespace == ns);
            }
            ("the files read", ns.map(str::to_string))
        }
    };
    let scope = scope
        .map(|n| format!(" (namespace {n})"))
        .unwrap_or_default();
    for name in named.subscriptions {
        if !subs.iter().any(|s| &s.name == name) {
            return Err(Failure::input(format!(
                "Subscription {name:?} was not found in {place}{scope}"
            ))
            .into());
        }
    }
    if !named.subscriptions.is_empty() {
        subs.retain(|s| named.subscriptions.contains(&s.name));
    }
    if subs.is_empty() && named.others == 0 && options.require_subscriptions {
        let hint = if read.live.is_some() {
            "name another namespace with -n, or every namespace with -A; or a package with --package and --catalog-image"
        } else {
            "pass the Subscriptions with -f, or name a package with --package and --catalog-image"
        };
        return Err(
            Failure::input(format!("no Subscription was found in {place}{scope}"))
                .with_hint(hint)
                .into(),
        );
    }
    Ok(subs)
}

/// The catalog image of a Subscription (`--catalog-image` first), with its
/// CatalogSource; or why it cannot be read.
fn catalog_of(
    options: &OperatorPlan,
    sub: &Subscription,
    source: Option<&CatalogSource>,
    live: bool,
) -> Result<(Option<String>, String), (Option<String>, String)> {
    let named =
        (!sub.source.is_empty()).then(|| format!("{}/{}", sub.source_namespace, sub.source));
    if let Some(image) = &options.catalog_image {
        return Ok((named, image.clone()));
    }
    let Some(cs) = source else {
        let name = named.clone().unwrap_or_default();
        let why = if live {
            format!("CatalogSource {name} does not exist in the cluster")
        } else {
            format!("CatalogSource {name} was not read: pass it with -f, or its image with --catalog-image")
        };
        return Err((named, why));
    };
    match &cs.origin {
        CatalogOrigin::Image(image) => Ok((named, image.clone())),
        CatalogOrigin::Other(why) => Err((
            named,
            format!("CatalogSource {}/{}: {why}", cs.namespace, cs.name),
        )),
    }
}

/// Each catalog image to read, with the configuration and pull secrets it
/// is probed with: the first Subscription that reads it, and the packages
/// wanted from it.
pub(super) fn images_to_read(wanted: &[Wanted]) -> BTreeMap<CatalogKey, (usize, BTreeSet<String>)> {
    let mut images: BTreeMap<CatalogKey, (usize, BTreeSet<String>)> = BTreeMap::new();
    for (i, w) in wanted.iter().enumerate() {
        let v1_images = w.v1.iter().flat_map(|v| v.images());
        let v0_image = w.catalog.as_ref().ok().filter(|_| w.v1.is_none());
        for image in v0_image
            .map(|(_, image)| image.as_str())
            .into_iter()
            .chain(v1_images)
        {
            images
                .entry(w.catalog_key(image))
                .or_insert_with(|| (i, BTreeSet::new()))
                .1
                .insert(w.sub.package.clone());
        }
    }
    images
}

/// The workers' architecture, when every worker Node read says the same.
pub(super) fn worker_arch(inputs: &Inputs) -> Option<String> {
    let mut arches: Vec<&String> = inputs
        .nodes
        .iter()
        .filter(|n| {
            n.metadata
                .labels
                .contains_key("node-role.kubernetes.io/worker")
        })
        .filter_map(|n| n.metadata.labels.get("kubernetes.io/arch"))
        .collect();
    arches.sort();
    arches.dedup();
    match arches.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}
