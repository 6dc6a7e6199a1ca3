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
use mirrorpolicy::olm::sources::visible_to;
use mirrorpolicy::source::api::{
    self as live, ClusterError, Resource, CATALOG_SOURCES, CLUSTER_SERVICE_VERSIONS, INSTALL_PLANS,
    SUBSCRIPTIONS,
};
use mirrorpolicy::source::file;

use super::extensions;
use super::wanted::{CatalogKey, Wanted};

use super::OperatorPlan;
use crate::exit::Failure;
use crate::settings::Settings;
use crate::steps::inputs;

/// The OLM objects read, each `(where it was read, object)`, and where from.
struct OlmObjects {
    found: Vec<(String, Value)>,
    /// `Some(namespace)` (`None`: every namespace) when read from the cluster.
    live: Option<Option<String>>,
}

/// The Subscriptions read (those named, in `-n`), or the `--package` one;
/// each catalog's pool from the Nodes and pools of `inputs`.
pub(super) fn wanted(
    settings: &Settings,
    options: &OperatorPlan,
    inputs: &Inputs,
) -> Result<Vec<Wanted>> {
    let (sub_names, ext_names) = extensions::split_names(&options.subscriptions);
    // Names of one kind only: the other kind is not read.
    let want = Want {
        v0: !sub_names.is_empty() || ext_names.is_empty(),
        v1: options.package.is_none() && (!ext_names.is_empty() || sub_names.is_empty()),
    };
    let read = olm_objects(settings, options, want)?;
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
                operator_groups: groups_in(&groups, &sub.namespace),
                prevented: None,
                source: source.cloned(),
                visible: visible_of(&sources, &sub, live),
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
/// over, of those read from files (live: `None`, listed afterwards for
/// every Subscription; with `--package` there is no namespace, and none).
fn visible_of(
    sources: &[CatalogSource],
    sub: &Subscription,
    live: bool,
) -> Option<Vec<CatalogSource>> {
    if sub.namespace.is_empty() {
        return Some(Vec::new());
    }
    (!live).then(|| {
        sources
            .iter()
            .filter(|c| visible_to(c, &sub.namespace))
            .filter(|c| !(c.name == sub.source && c.namespace == sub.source_namespace))
            .cloned()
            .collect()
    })
}

/// The OperatorGroups read.
fn operator_groups(read: &OlmObjects) -> Vec<OperatorGroup> {
    read.found
        .iter()
        .filter(|(_, v)| v.get("kind").and_then(Value::as_str) == Some(olm::OPERATOR_GROUP))
        .map(|(_, v)| OperatorGroup::from_value(v))
        .collect()
}

/// The OperatorGroups of `namespace` among those read from files; `None`
/// when the files hold none at all (they were not exported), or live
/// (listed when needed).
fn groups_in(groups: &[OperatorGroup], namespace: &str) -> Option<Vec<OperatorGroup>> {
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
        let found =
            file::objects(&plan.filenames, &kinds).map_err(|e| Failure::input(e.to_string()))?;
        return Ok(OlmObjects { found, live: None });
    }
    if plan.package.is_some() {
        return Ok(OlmObjects {
            found: Vec::new(),
            live: Some(None),
        });
    }
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let all = plan.all_namespaces;
    let flag = settings.namespace().map(str::to_string);
    let (namespace, found) = runtime
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
            let found = if want.v0 {
                read_live(&connection, namespace.as_deref()).await?
            } else {
                Some(Vec::new())
            };
            let v1 = if want.v1 {
                extensions::read_live(&connection).await?
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
            Ok::<_, ClusterError>((namespace, found))
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
    })
}

/// The Subscriptions of `namespace` (every one: `None`), then the
/// CatalogSources and InstallPlans they name, each read by name, and the
/// CSVs of their namespaces (the installed operators OLM's resolver
/// sees); `None` when the server does not serve Subscriptions.
async fn read_live(
    connection: &live::Connection,
    namespace: Option<&str>,
) -> Result<Option<Vec<(String, Value)>>, ClusterError> {
    let Some(subs) = connection
        .list_objects(&SUBSCRIPTIONS, namespace, None)
        .await?
    else {
        return Ok(None);
    };
    let text = |v: &Value, p: &str| {
        v.pointer(p)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let mut named: BTreeSet<(Resource, String, String)> = BTreeSet::new();
    let mut csv_namespaces: BTreeSet<String> = BTreeSet::new();
    for sub in &subs {
        let ns = text(sub, "/metadata/namespace").unwrap_or_default();
        let source_ns = text(sub, "/spec/sourceNamespace").unwrap_or_else(|| ns.clone());
        if let Some(source) = text(sub, "/spec/source") {
            named.insert((CATALOG_SOURCES, source_ns, source));
        }
        csv_namespaces.insert(ns.clone());
        let plan = text(sub, "/status/installPlanRef/name")
            .or_else(|| text(sub, "/status/installplan/name"));
        if let Some(plan) = plan {
            named.insert((INSTALL_PLANS, ns, plan));
        }
    }
    let gets = futures_util::stream::iter(named.into_iter().map(|(r, ns, name)| async move {
        let got = connection.get_in(&r, &ns, &name).await?;
        Ok::<_, ClusterError>(got.map(|v| (r, v)))
    }))
    .buffered(LIVE_GETS)
    .collect::<Vec<_>>()
    .await;
    let mut found: Vec<(String, Value)> = subs
        .into_iter()
        .map(|v| {
            (
                at(&connection.server, &SUBSCRIPTIONS, &v),
                with_kind(&SUBSCRIPTIONS, v),
            )
        })
        .collect();
    for got in gets {
        if let Some((r, v)) = got? {
            found.push((at(&connection.server, &r, &v), with_kind(&r, v)));
        }
    }
    let csvs = CLUSTER_SERVICE_VERSIONS;
    for ns in &csv_namespaces {
        let listed = connection.list_objects(&csvs, Some(ns), None).await?;
        for v in listed.unwrap_or_default() {
            found.push((at(&connection.server, &csvs, &v), with_kind(&csvs, v)));
        }
    }
    Ok(Some(found))
}

/// How many objects are read by name at once.
const LIVE_GETS: usize = 16;

/// Where a live object was read, for messages: `<server>: <Kind> <ns>/<name>`.
fn at(server: &str, resource: &Resource, v: &Value) -> String {
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or_default();
    format!(
        "{server}: {} {}/{}",
        resource.kind,
        s("/metadata/namespace"),
        s("/metadata/name")
    )
}

/// The object with its `kind` (list items may leave it out).
fn with_kind(resource: &Resource, mut v: Value) -> Value {
    if let Some(map) = v.as_object_mut() {
        map.entry("kind")
            .or_insert_with(|| Value::String(resource.kind.to_string()));
    }
    v
}

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
