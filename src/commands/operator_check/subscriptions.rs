//! The Subscriptions to check and the catalog each reads, from the files of `-f`.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use mirrorpolicy::objects::Inputs;
use mirrorpolicy::olm::objects::{self as olm, CatalogOrigin, CatalogSource, Subscription};
use mirrorpolicy::source::file;

use crate::cli::OperatorCheckArgs;
use crate::exit::Failure;
use crate::settings::Settings;

/// One Subscription to check: the skeleton of its verdict, and the catalog it reads.
pub(super) struct Wanted {
    pub sub: Subscription,
    pub catalog: Result<(Option<String>, String), (Option<String>, String)>,
    pub installed_version: Option<String>,
}

/// The Subscriptions of `-f` (those named, in `-n`), or the `--package` one.
pub(super) fn wanted(settings: &Settings, args: &OperatorCheckArgs) -> Result<Vec<Wanted>> {
    let kinds = [olm::SUBSCRIPTION, olm::CATALOG_SOURCE, olm::CSV];
    let objects =
        file::objects(&args.filenames, &kinds).map_err(|e| Failure::input(e.to_string()))?;
    let of_kind = |k: &'static str| {
        objects
            .iter()
            .filter(move |(_, v)| v.get("kind").and_then(|x| x.as_str()) == Some(k))
    };
    let sources: Vec<CatalogSource> = of_kind(olm::CATALOG_SOURCE)
        .map(|(_, v)| CatalogSource::from_value(v))
        .collect();
    let versions: BTreeMap<(String, String), String> = of_kind(olm::CSV)
        .filter_map(|(_, v)| {
            let (ns, name, version) = olm::csv_version(v);
            Some(((ns, name), version?))
        })
        .collect();
    let subs = match &args.package {
        Some(package) => vec![package_subscription(args, package)],
        None => subscriptions(settings, args, of_kind(olm::SUBSCRIPTION))?,
    };
    Ok(subs
        .into_iter()
        .map(|sub| {
            let catalog = catalog_of(args, &sub, &sources);
            // With --package there is no namespace: a CSV of that name in any.
            let installed_version = sub.installed_csv.as_ref().and_then(|csv| {
                versions
                    .iter()
                    .find(|((ns, name), _)| {
                        name == csv && (sub.namespace.is_empty() || *ns == sub.namespace)
                    })
                    .map(|(_, v)| v.clone())
            });
            Wanted {
                sub,
                catalog,
                installed_version,
            }
        })
        .collect())
}

fn package_subscription(args: &OperatorCheckArgs, package: &str) -> Subscription {
    Subscription {
        namespace: String::new(),
        name: package.to_string(),
        package: package.to_string(),
        channel: args.channel.clone(),
        source: String::new(),
        source_namespace: String::new(),
        starting_csv: args.starting_csv.clone(),
        approval: "Automatic".to_string(),
        installed_csv: args.installed.clone(),
    }
}

fn subscriptions<'a>(
    settings: &Settings,
    args: &OperatorCheckArgs,
    found: impl Iterator<Item = &'a (String, serde_json::Value)>,
) -> Result<Vec<Subscription>> {
    let mut subs = Vec::new();
    for (at, v) in found {
        subs.push(Subscription::from_value(at, v).map_err(Failure::input)?);
    }
    if let Some(ns) = settings.namespace() {
        subs.retain(|s| s.namespace == ns);
    }
    for name in &args.subscriptions {
        if !subs.iter().any(|s| &s.name == name) {
            return Err(Failure::input(format!(
                "Subscription {name:?} was not found in the files read{}",
                settings
                    .namespace()
                    .map(|n| format!(" (namespace {n})"))
                    .unwrap_or_default()
            ))
            .into());
        }
    }
    if !args.subscriptions.is_empty() {
        subs.retain(|s| args.subscriptions.contains(&s.name));
    }
    if subs.is_empty() {
        return Err(Failure::input("no Subscription was found in the files read")
            .with_hint("pass the Subscriptions with -f, or name a package with --package and --catalog-image")
            .into());
    }
    Ok(subs)
}

/// The catalog image of a Subscription (`--catalog-image` first), with its
/// CatalogSource; or why it cannot be read.
fn catalog_of(
    args: &OperatorCheckArgs,
    sub: &Subscription,
    sources: &[CatalogSource],
) -> Result<(Option<String>, String), (Option<String>, String)> {
    let named =
        (!sub.source.is_empty()).then(|| format!("{}/{}", sub.source_namespace, sub.source));
    if let Some(image) = &args.catalog_image {
        return Ok((named, image.clone()));
    }
    let Some(cs) = sources
        .iter()
        .find(|c| c.name == sub.source && c.namespace == sub.source_namespace)
    else {
        let name = named.clone().unwrap_or_default();
        return Err((named, format!("CatalogSource {name} was not read: pass it with -f, or its image with --catalog-image")));
    };
    match &cs.origin {
        CatalogOrigin::Image(image) => Ok((named, image.clone())),
        CatalogOrigin::Other(why) => Err((
            named,
            format!("CatalogSource {}/{}: {why}", cs.namespace, cs.name),
        )),
    }
}

/// Each catalog image to read, with the packages wanted from it.
pub(super) fn images_to_read(wanted: &[Wanted]) -> BTreeMap<String, BTreeSet<String>> {
    let mut images: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for w in wanted {
        if let Ok((_, image)) = &w.catalog {
            images
                .entry(image.clone())
                .or_default()
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
