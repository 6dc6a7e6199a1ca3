//! OLM v1: the ClusterExtensions to check (from the files of `-f`, or
//! listed live), the ClusterCatalogs each one's selector picks, and the
//! update path OLM v1 resolves over them.
//!
//! Who pulls what, as OpenShift deploys OLM v1 (operator-framework-operator-controller
//! `openshift/catalogd/manifests.yaml` and `openshift/operator-controller/manifests.yaml`):
//! catalogd pulls each ClusterCatalog's `spec.source.image.ref` (at every unpack; its
//! `status.resolvedSource` only records the digest it got) and operator-controller
//! pulls the bundle images, both with containers/image in their own pods on the
//! control-plane nodes, which mount the node's `/etc/containers` (registries.conf,
//! policy.json, registries.d) and read the global pull secret
//! (`--global-pull-secret=openshift-config/pull-secret`). So the catalog and bundle
//! images are explained with the `master` pool's rendered files and the cluster-wide
//! policy (CRI-O's per-namespace policies do not apply), and probed as a CatalogSource's
//! image is. The operator's deployment and related images are pulled by CRI-O on the
//! workers, in the ClusterExtension's `spec.namespace`.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;
use futures_util::StreamExt;
use serde_json::Value;

use mirrorpolicy::olm::catalog::Catalog;
use mirrorpolicy::olm::check::{
    CatalogCheck, ExtensionCatalog, ExtensionCheck, Found, HopCheck, PulledBy,
};
use mirrorpolicy::olm::objects::Subscription;
use mirrorpolicy::olm::placement::Placement;
use mirrorpolicy::olm::resolve::{Stop, UpdatePath};
use mirrorpolicy::olm::v1::{self, ClusterCatalog, ClusterExtension, Offer};
use mirrorpolicy::olm::{located, with_kind};
use mirrorpolicy::source::api::{self as live, ClusterError, CLUSTER_CATALOGS, CLUSTER_EXTENSIONS};

use super::hops::{hop_check, unread};
use super::wanted::{CatalogKey, Wanted, V1};
use super::OperatorPlan;
use crate::exit::Failure;

/// The pool of the control-plane nodes catalogd and operator-controller run on.
const CONTROL_PLANE_POOL: &str = "master";

/// The prefix of a positional argument that names a ClusterExtension.
pub(super) const NAME_PREFIX: &str = "clusterextension/";

/// The positional names split into Subscription names and ClusterExtension
/// names (`clusterextension/NAME`).
pub(super) fn split_names(names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut subs = Vec::new();
    let mut exts = Vec::new();
    for name in names {
        match name.strip_prefix(NAME_PREFIX) {
            Some(ext) => exts.push(ext.to_string()),
            None => subs.push(name.clone()),
        }
    }
    (subs, exts)
}

/// The ClusterExtensions of `found` (those of `names` when some are
/// named), each with the ClusterCatalogs of `found` its selector picks.
pub(super) fn wanted(
    found: &[(String, Value)],
    names: &[String],
    place: &str,
) -> Result<Vec<Wanted>> {
    let of_kind = |k: &'static str| {
        found
            .iter()
            .filter(move |(_, v)| v.get("kind").and_then(Value::as_str) == Some(k))
    };
    let catalogs: Vec<ClusterCatalog> = of_kind(mirrorpolicy::kinds::CLUSTER_CATALOG.kind)
        .map(|(_, v)| ClusterCatalog::from_value(v))
        .collect();
    let mut exts = Vec::new();
    for (at, v) in of_kind(mirrorpolicy::kinds::CLUSTER_EXTENSION.kind) {
        exts.push(ClusterExtension::from_value(at, v).map_err(Failure::input)?);
    }
    for name in names {
        if !exts.iter().any(|e| &e.name == name) {
            return Err(Failure::input(format!(
                "ClusterExtension {name:?} was not found in {place}"
            ))
            .into());
        }
    }
    if !names.is_empty() {
        exts.retain(|e| names.contains(&e.name));
    }
    Ok(exts
        .into_iter()
        .map(|ext| {
            let picked = v1::selected(&ext, &catalogs)
                .map(|picked| picked.into_iter().cloned().collect::<Vec<_>>());
            wanted_one(ext, picked)
        })
        .collect())
}

fn wanted_one(ext: ClusterExtension, catalogs: Result<Vec<ClusterCatalog>, Stop>) -> Wanted {
    let sub = Subscription {
        namespace: String::new(),
        name: ext.name.clone(),
        package: ext.package.clone(),
        channel: None,
        source: String::new(),
        source_namespace: String::new(),
        starting_csv: None,
        approval: "Automatic".to_string(),
        installed_csv: ext.installed.as_ref().map(|b| b.name.clone()),
        current_csv: None,
        state: None,
        install_plan: None,
    };
    let first = catalogs.as_ref().ok().and_then(|c| c.first());
    let catalog = match first {
        Some(c) => Ok((Some(c.name.clone()), c.image.clone().unwrap_or_default())),
        None => Err((None, String::new())),
    };
    Wanted {
        unreadable: Vec::new(),
        installed_error: None,
        operator_groups: None,
        prevented: None,
        source: None,
        visible: Some(Vec::new()),
        installed: Vec::new(),
        installed_version: ext.installed.as_ref().map(|b| b.version.clone()),
        plan: None,
        pool: Placement {
            pool: CONTROL_PLANE_POOL.to_string(),
            why: "catalogd runs on the control-plane nodes and pulls with their /etc/containers"
                .to_string(),
        },
        catalog_view: (CONTROL_PLANE_POOL.to_string(), None),
        secrets: Vec::new(),
        secret_notes: Vec::new(),
        bundle_pool: CONTROL_PLANE_POOL.to_string(),
        operator_namespace: ext.install_namespace.clone(),
        v1: Some(V1 { ext, catalogs }),
        sub,
        catalog,
    }
}

/// The cluster's ClusterExtensions (those of `names` when some are named,
/// each read by name: one that does not exist is not among them), and
/// its ClusterCatalogs when there are some; `None` when the server does
/// not serve ClusterExtensions.
pub(super) async fn read_live(
    connection: &live::Connection,
    names: &[String],
) -> Result<Option<Vec<(String, Value)>>, ClusterError> {
    let exts = if names.is_empty() {
        let listed = connection.list_objects(&CLUSTER_EXTENSIONS, None, None);
        let Some(exts) = listed.await? else {
            return Ok(None);
        };
        exts
    } else {
        let named: BTreeSet<&String> = names.iter().collect();
        let gets = futures_util::stream::iter(
            named
                .into_iter()
                .map(|name| connection.get(&CLUSTER_EXTENSIONS, name)),
        )
        .buffered(LIVE_GETS)
        .collect::<Vec<_>>()
        .await;
        let mut exts = Vec::new();
        for got in gets {
            exts.extend(got?);
        }
        exts
    };
    let catalogs = if exts.is_empty() {
        Vec::new()
    } else {
        connection
            .list_objects(&CLUSTER_CATALOGS, None, None)
            .await?
            .unwrap_or_default()
    };
    let server = connection.server.as_str();
    let read = |kind: &str, v: Value| (located(server, kind, &v), with_kind(kind, v));
    let mut found: Vec<(String, Value)> = exts
        .into_iter()
        .map(|v| read(CLUSTER_EXTENSIONS.kind, v))
        .collect();
    found.extend(catalogs.into_iter().map(|v| read(CLUSTER_CATALOGS.kind, v)));
    Ok(Some(found))
}

/// How many ClusterExtensions are read by name at once.
const LIVE_GETS: usize = 16;

/// The catalog checks and reads of the selected catalogs, in order.
type Reads<'a> = Vec<(&'a ClusterCatalog, CatalogCheck, Option<&'a Catalog>)>;

/// OLM v1's path for one ClusterExtension and its hops (images unprobed).
pub(super) fn resolve(
    w: &Wanted,
    v1: &V1,
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
    options: &OperatorPlan,
) -> (Found, Option<Vec<HopCheck>>) {
    let ext = &v1.ext;
    let selected = match &v1.catalogs {
        Ok(s) => s,
        Err(stop) => return stopped(catalog_check(w, None, None), None, stop.clone()),
    };
    let mut reads: Reads<'_> = Vec::new();
    for c in selected {
        let Some(image) = &c.image else {
            let mut check = catalog_check(w, Some(c), None);
            check.undetermined = Some(format!(
                "ClusterCatalog {} has no spec.source.image.ref: catalogd cannot unpack it",
                c.name
            ));
            return unread(check);
        };
        let (read_check, cat) = &catalogs[&w.catalog_key(image)];
        reads.push((c, catalog_check(w, Some(c), Some(read_check)), cat.as_ref()));
    }
    let extension = extension_check(v1, &reads);
    let failing = reads
        .iter()
        .find(|(_, check, _)| check.check.as_ref().is_some_and(|c| c.outcome.fails()));
    let unread_one = reads.iter().find(|(_, _, cat)| cat.is_none());
    if let Some((_, check, _)) = failing.or(unread_one) {
        let (mut found, hops) = unread(check.clone());
        found.extension = Some(extension);
        return (found, hops);
    }
    let offers: Vec<Offer<'_>> = reads
        .iter()
        .map(|(c, _, cat)| Offer {
            catalog: &c.name,
            priority: c.priority,
            package: cat.and_then(|cat| cat.packages.get(&ext.package)),
        })
        .collect();
    let first = reads
        .first()
        .map(|(_, check, _)| check.clone())
        .unwrap_or_else(|| catalog_check(w, None, None));
    match v1::update_path(ext, &offers, options.to.as_deref(), options.max_hops) {
        Err(stop) => stopped(first, Some(extension), stop),
        Ok((path, from)) => {
            let hops = hops_of(w, &path, &from, &reads, options.operands);
            let winner = from
                .last()
                .and_then(|name| reads.iter().find(|(c, _, _)| &c.name == name))
                .map_or(first, |(_, check, _)| check.clone());
            let found = Found {
                catalog: winner,
                path: Some(Ok((path.head, path.end, Vec::new()))),
                plan: None,
                extension: Some(extension),
            };
            (found, Some(hops))
        }
    }
}

/// Each hop with the images of the bundle of the catalog that offered it
/// (relatedImages counted for the last hop, every hop with `operands`).
fn hops_of(
    w: &Wanted,
    path: &UpdatePath,
    from: &[String],
    reads: &Reads<'_>,
    operands: bool,
) -> Vec<HopCheck> {
    let package = &w.sub.package;
    let last = path.hops.len().saturating_sub(1);
    path.hops
        .iter()
        .zip(from)
        .enumerate()
        .map(|(i, (hop, catalog))| {
            let bundle = reads
                .iter()
                .find(|(c, _, _)| &c.name == catalog)
                .and_then(|(_, _, cat)| cat.as_ref()?.packages.get(package))
                .and_then(|p| p.bundles.get(&hop.to));
            hop_check(
                hop,
                bundle,
                &Default::default(),
                &w.sub.approval,
                operands || i == last,
            )
        })
        .collect()
}

fn stopped(
    catalog: CatalogCheck,
    extension: Option<ExtensionCheck>,
    stop: Stop,
) -> (Found, Option<Vec<HopCheck>>) {
    let found = Found {
        catalog,
        path: Some(Err(stop)),
        plan: None,
        extension,
    };
    (found, None)
}

/// The catalog as the output shows it: the read's probe with the
/// ClusterCatalog's name and the pool catalogd pulls with.
fn catalog_check(
    w: &Wanted,
    catalog: Option<&ClusterCatalog>,
    read: Option<&CatalogCheck>,
) -> CatalogCheck {
    let mut check = read.cloned().unwrap_or_else(|| CatalogCheck {
        pool: None,
        pool_reason: None,
        pull_secrets: Vec::new(),
        source: None,
        image: String::new(),
        digest: None,
        check: None,
        undetermined: None,
        refused: None,
    });
    // catalogd serves the configs as they are: opm's checks are OLM v0's.
    check.refused = None;
    if let Some(c) = catalog {
        check.source = Some(c.name.clone());
        check.image = c.image.clone().unwrap_or_default();
    }
    check.pool = Some(w.pool.pool.clone());
    check.pool_reason = Some(w.pool.why.clone());
    check
}

fn extension_check(v1: &V1, reads: &Reads<'_>) -> ExtensionCheck {
    let ext = &v1.ext;
    ExtensionCheck {
        install_namespace: ext.install_namespace.clone(),
        version: ext.version.clone(),
        channels: ext.channels.clone(),
        upgrade_constraint_policy: if ext.self_certified {
            "SelfCertified"
        } else {
            "CatalogProvided"
        },
        installed_version: ext.installed.as_ref().map(|b| b.version.clone()),
        catalogs: reads
            .iter()
            .map(|(c, check, cat)| ExtensionCatalog {
                name: c.name.clone(),
                priority: c.priority,
                image: c.image.clone(),
                resolved_image: c.resolved.clone(),
                has_package: cat.is_some_and(|cat| {
                    cat.packages
                        .get(&ext.package)
                        .is_some_and(|p| !p.bundles.is_empty())
                }),
                check: check.check.clone(),
            })
            .collect(),
        pulled_by: PulledBy,
    }
}
