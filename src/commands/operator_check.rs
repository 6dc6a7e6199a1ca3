//! `operator-check`: for each Subscription (or `--package`), the catalog
//! image pulled as CRI-O on a worker pulls it through the mirrors, its
//! file-based configs read layer by layer for the wanted packages, OLM's
//! update path walked from the installed CSV, and every image of every hop
//! probed as `upgrade-check` probes images; a verdict per Subscription.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use anyhow::Result;
use futures_util::StreamExt;

use crate::output;
use mirrorpolicy::digest::sha256_hex;
use mirrorpolicy::explain::{self as core, Config, Explanation};
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::olm::catalog::{self, Catalog};
use mirrorpolicy::olm::check::{
    self, CatalogCheck, Found, HopCheck, HopImage, ImageClass, ImageRole, SubscriptionCheck,
};
use mirrorpolicy::olm::fs::{self as layers, ConfigsTree};
use mirrorpolicy::olm::image::{self, CatalogManifest};
use mirrorpolicy::olm::objects::{self as olm, CatalogOrigin, CatalogSource, Subscription};
use mirrorpolicy::olm::resolve::{self, Request};
use mirrorpolicy::probe::{self, ProbeContext};
use mirrorpolicy::reference::Reference;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::source::api::MIRROR_CONFIG;
use mirrorpolicy::source::file;
use mirrorpolicy::upgrade::{self, ImageCheck, ImageOutcome, Readiness};

use crate::cli::{OperatorCheckArgs, OperatorFormat};
use crate::exit::{ExitCode, Failure};
use crate::settings::Settings;
use crate::steps::probe::{self as probe_cmd, ProbeSetup};
use crate::steps::{blob, inputs};
use crate::term;

/// The pool whose nodes run the catalog's registry pod and the operators
/// (a CatalogSource without a nodeSelector lands on a worker).
const WORKER_POOL: &str = "worker";

/// Runs `operator-check`, printing one verdict per Subscription.
pub fn run(settings: &Settings, args: &OperatorCheckArgs) -> Result<ExitCode> {
    let checks = collect(settings, args)?;
    let sink = match args.output {
        OperatorFormat::Table => term::Sink::Text,
        OperatorFormat::Json | OperatorFormat::Yaml => term::Sink::Exact,
    };
    let layout = settings.layout(args.no_headers);
    settings.print_to(sink, |out| match args.output {
        OperatorFormat::Table => output::operator::write_text(out, &checks, &layout),
        OperatorFormat::Json => output::write_json(out, &checks),
        OperatorFormat::Yaml => output::write_yaml(out, &checks),
    })?;
    Ok(exit_code(&checks))
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

/// One Subscription to check: the skeleton of its verdict, and the catalog it reads.
struct Wanted {
    sub: Subscription,
    catalog: Result<(Option<String>, String), (Option<String>, String)>,
    installed_version: Option<String>,
}

/// Every verdict, in the order the Subscriptions were read.
fn collect(settings: &Settings, args: &OperatorCheckArgs) -> Result<Vec<SubscriptionCheck>> {
    let inputs = inputs::load_objects(settings, &args.filenames, MIRROR_CONFIG, None)?;
    let wanted = wanted(settings, args)?;
    let (rendered, view) = inputs::render_view(settings, &inputs, WORKER_POOL, None)?;
    let config = Config::from(&view);
    let mode = mirrorpolicy::crio::short_name_mode(inputs.cluster_version.as_ref());
    let ctx = probe_cmd::context_for_objects(
        settings,
        &probe_setup(args),
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
    let probed = runtime.block_on(probe_images(
        &ctx,
        &config,
        mode,
        references,
        usize::from(args.probe_concurrency),
    ));
    Ok(wanted
        .into_iter()
        .zip(resolved)
        .map(|(w, (found, hops))| finish(w, found, hops, &probed))
        .collect())
}

/// The Subscriptions of `-f` (those named, in `-n`), or the `--package` one.
fn wanted(settings: &Settings, args: &OperatorCheckArgs) -> Result<Vec<Wanted>> {
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
fn images_to_read(wanted: &[Wanted]) -> BTreeMap<String, BTreeSet<String>> {
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
fn worker_arch(inputs: &Inputs) -> Option<String> {
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

fn probe_setup(args: &OperatorCheckArgs) -> ProbeSetup {
    ProbeSetup {
        enabled: true,
        authfile: args.authfile.clone(),
        cert_dir: args.cert_dir.clone(),
        registries_d: None,
        timeout: std::time::Duration::from_secs(args.probe_timeout.max(1)),
        concurrency: usize::from(args.probe_concurrency),
    }
}

fn explain_one(config: &Config<'_>, image: &str, mode: ShortNameMode) -> Explanation {
    core::explain(config, image, mode, None)
        .unwrap_or_else(|e| Explanation::unresolved(image, mode, None, &e))
}

/// The catalog image probed, then read from the source that serves it.
async fn read_catalog(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
    packages: BTreeSet<String>,
    arch: Option<&str>,
) -> Result<(CatalogCheck, Option<Catalog>)> {
    let mut item = explain_one(config, image, mode);
    probe::probe_explanation(ctx, &mut item).await;
    let probed = upgrade::check_image("catalog", &item);
    let mut check = CatalogCheck {
        source: None,
        image: image.to_string(),
        digest: None,
        check: Some(probed.clone()),
        undetermined: None,
    };
    let Some(by) = probed
        .served_by
        .clone()
        .filter(|_| probed.outcome == ImageOutcome::Served)
    else {
        check.undetermined = (probed.outcome == ImageOutcome::Undetermined)
            .then(|| format!("the catalog image {image}: {}", probed.detail));
        return Ok((check, None));
    };
    let insecure = item
        .candidates
        .iter()
        .flat_map(|c| &c.sources)
        .find(|s| s.reference == by)
        .is_some_and(|s| s.insecure);
    let physical = Reference::parse(&by)
        .map_err(|e| Failure::input(format!("the serving pull spec {by:?} is invalid: {e}")))?;
    let attempt = ctx.prober.attempt(&physical, insecure).await;
    let manifest = attempt.manifest.ok_or_else(|| {
        Failure::cluster(format!(
            "{by} served the catalog manifest once, then: {}",
            attempt.detail
        ))
    })?;
    check.digest = Some(format!("sha256:{}", sha256_hex(&manifest)));
    let source = Source { physical, insecure };
    match read_configs(ctx, &source, image, &manifest, packages, arch).await? {
        Ok(catalog) => Ok((check, Some(catalog))),
        Err(why) => {
            check.undetermined = Some(why);
            Ok((check, None))
        }
    }
}

/// The source that serves the catalog image.
struct Source {
    physical: Reference,
    insecure: bool,
}

/// The wanted packages of the catalog's configs, read from its layers on
/// `source`; `Ok(Err(why))` when the catalog cannot be read by this tool
/// (a SQLite index, a zstd layer).
async fn read_configs(
    ctx: &ProbeContext,
    source: &Source,
    image: &str,
    manifest: &[u8],
    packages: BTreeSet<String>,
    arch: Option<&str>,
) -> Result<Result<Catalog, String>> {
    let (physical, insecure) = (&source.physical, source.insecure);
    let (config_digest, layer_digests) =
        image_parts(ctx, physical, insecure, image, manifest, arch).await?;
    let config_blob = blob::stream(
        ctx,
        physical,
        insecure,
        &config_digest,
        "the catalog",
        |mut r| {
            let mut body = Vec::new();
            r.read_to_end(&mut body).map(|_| body)
        },
    )
    .await?
    .map_err(|e| Failure::cluster(format!("{}: reading the config: {e}", physical.name())))?;
    let labels = image::config_labels(&config_blob)
        .map_err(|e| Failure::input(format!("catalog image {image}: {e}")))?;
    let Some(dir) = labels.get(catalog::CONFIGS_LABEL) else {
        if labels.contains_key(catalog::DATABASE_LABEL) {
            return Ok(Err(format!("the catalog image {image} is a SQLite index (label {}), which operator-check does not read: only file-based catalogs are", catalog::DATABASE_LABEL)));
        }
        return Err(Failure::input(format!(
            "{image} is not a catalog image: its config has no label {}",
            catalog::CONFIGS_LABEL
        ))
        .into());
    };
    let mut tree = ConfigsTree::new(dir);
    for digest in layer_digests {
        let wanted = packages.clone();
        let (back, read) =
            blob::stream(ctx, physical, insecure, &digest, "the catalog", move |r| {
                let read = layers::read_layer(r, &mut tree, &|p: &str| wanted.contains(p));
                (tree, read)
            })
            .await?;
        tree = back;
        if let Err(e) = read {
            return Ok(Err(format!(
                "the catalog image {image}: layer {digest}: {e}"
            )));
        }
    }
    let catalog = tree
        .finish()
        .map_err(|e| Failure::input(format!("catalog image {image}: {e}")))?;
    Ok(Ok(catalog))
}

/// The config and layer digests of the catalog image (the platform of `arch` in an index).
async fn image_parts(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    image: &str,
    manifest: &[u8],
    arch: Option<&str>,
) -> Result<(String, Vec<String>)> {
    let fail = |e: String| Failure::input(format!("catalog image {image}: {e}"));
    let parsed = match image::parse_manifest(manifest).map_err(fail)? {
        CatalogManifest::Index(entries) => {
            let digest = upgrade::payload::pick_arch(&entries, arch).map_err(|e| {
                Failure::input(format!("catalog image {image}: {e}"))
                    .with_hint("pass --arch amd64 (or arm64, ppc64le, s390x)")
            })?;
            let attempt = ctx.prober.fetch_manifest(physical, insecure, &digest).await;
            let body = attempt.manifest.ok_or_else(|| {
                Failure::cluster(format!("{}@{digest}: {}", physical.name(), attempt.detail))
            })?;
            image::parse_manifest(&body).map_err(fail)?
        }
        m => m,
    };
    match parsed {
        CatalogManifest::Image { config, layers } => Ok((
            config.digest,
            layers.into_iter().map(|l| l.digest).collect(),
        )),
        CatalogManifest::Index(_) => Err(fail("an index inside an index".to_string()).into()),
    }
}

/// The resolver's answer for one Subscription, and its hops (images unprobed).
fn resolve_one(
    w: &Wanted,
    catalogs: &BTreeMap<String, (CatalogCheck, Option<Catalog>)>,
    args: &OperatorCheckArgs,
) -> (Found, Option<Vec<HopCheck>>) {
    let (source, image, catalog) = match &w.catalog {
        Err((source, why)) => {
            let check = CatalogCheck {
                source: source.clone(),
                image: String::new(),
                digest: None,
                check: None,
                undetermined: Some(why.clone()),
            };
            return (
                Found {
                    catalog: check,
                    path: None,
                },
                None,
            );
        }
        Ok((source, image)) => (source, image, &catalogs[image]),
    };
    let mut check = catalog.0.clone();
    check.source = source.clone();
    let Some(cat) = &catalog.1 else {
        return (
            Found {
                catalog: check,
                path: None,
            },
            None,
        );
    };
    let s = &w.sub;
    let name = source.clone().unwrap_or_else(|| image.clone());
    let installed_version = w
        .installed_version
        .as_deref()
        .and_then(|v| resolve::Version::parse(v).ok());
    let installed = s.installed_csv.as_deref().map(|csv| {
        let version = installed_version.clone().or_else(|| {
            cat.packages
                .get(&s.package)
                .and_then(|p| resolve::version_of(p, csv))
        });
        (csv, version)
    });
    let req = Request {
        subscription: &s.name,
        catalog: &name,
        package: &s.package,
        channel: s.channel.as_deref(),
        installed,
        starting_csv: s.starting_csv.as_deref(),
        to: args.to.as_deref(),
        max_hops: args.max_hops,
    };
    match resolve::update_path(cat, &req) {
        Err(stop) => (
            Found {
                catalog: check,
                path: Some(Err(stop)),
            },
            None,
        ),
        Ok(path) => {
            let hops = hop_checks(&cat.packages[&s.package], &path, &s.approval, args.operands);
            let found = Found {
                catalog: check,
                path: Some(Ok((path.head, path.end, Vec::new()))),
            };
            (found, Some(hops))
        }
    }
}

/// The hops with the images each pulls (bundle, deployments, relatedImages), unprobed.
fn hop_checks(
    package: &catalog::Package,
    path: &resolve::UpdatePath,
    approval: &str,
    operands: bool,
) -> Vec<HopCheck> {
    let last = path.hops.len().saturating_sub(1);
    path.hops
        .iter()
        .enumerate()
        .map(|(i, hop)| {
            let bundle = package.bundles.get(&hop.to);
            let mut images: Vec<HopImage> = Vec::new();
            let mut add = |role, name: &str, reference: &str, counted| {
                if !reference.is_empty()
                    && images.iter().any(|m: &HopImage| m.reference == reference)
                {
                    return;
                }
                let class = if reference.is_empty() {
                    ImageClass::EmptyReference
                } else {
                    ImageClass::Digest
                };
                images.push(HopImage {
                    role,
                    name: name.to_string(),
                    reference: reference.to_string(),
                    class,
                    counted: counted && !reference.is_empty(),
                    check: None,
                });
            };
            if let Some(b) = bundle {
                add(ImageRole::Bundle, "", &b.image, true);
                b.deployment_images
                    .iter()
                    .for_each(|d| add(ImageRole::Operator, "", d, true));
                b.related_images.iter().for_each(|r| {
                    add(ImageRole::Related, &r.name, &r.image, operands || i == last)
                });
            }
            HopCheck {
                from: hop.from.clone(),
                to: hop.to.clone(),
                edge: hop.edge,
                approval: approval.to_string(),
                csv_source: bundle.map_or(catalog::CsvSource::None, |b| b.csv_source),
                images,
            }
        })
        .collect()
}

/// Each image explained (its class decided there, before probing) and probed, once.
async fn probe_images(
    ctx: &ProbeContext,
    config: &Config<'_>,
    mode: ShortNameMode,
    references: BTreeSet<String>,
    concurrency: usize,
) -> BTreeMap<String, (ImageClass, ImageCheck)> {
    let items: Vec<Explanation> = references
        .iter()
        .map(|r| explain_one(config, r, mode))
        .collect();
    let probed = futures_util::stream::iter(items.into_iter().map(|mut item| async move {
        let class = check::image_class(&item);
        probe::probe_explanation(ctx, &mut item).await;
        let sig = probe::signature::check(ctx, &item).await;
        let checked =
            upgrade::with_signature(upgrade::check_image(&item.image.clone(), &item), sig);
        (item.image.clone(), (class, checked))
    }))
    .buffered(concurrency.max(1))
    .collect::<Vec<_>>()
    .await;
    probed.into_iter().collect()
}

/// The verdict of one Subscription with its images' probes.
fn finish(
    w: Wanted,
    mut found: Found,
    hops: Option<Vec<HopCheck>>,
    probed: &BTreeMap<String, (ImageClass, ImageCheck)>,
) -> SubscriptionCheck {
    if let (Some(Ok(path)), Some(mut hops)) = (found.path.as_mut(), hops) {
        for image in hops.iter_mut().flat_map(|h| h.images.iter_mut()) {
            if let Some((class, checked)) = probed.get(&image.reference) {
                image.class = *class;
                image.check = Some(checked.clone());
            }
        }
        path.2 = hops;
    }
    let s = w.sub;
    let skeleton = SubscriptionCheck {
        namespace: s.namespace,
        name: s.name,
        package: s.package,
        channel: s.channel,
        installed_csv: s.installed_csv,
        starting_csv: s.starting_csv,
        catalog: found.catalog.clone(),
        head: None,
        end: None,
        hops: Vec::new(),
        readiness: Readiness::Undetermined,
        reason: String::new(),
        message: String::new(),
        next_steps: Vec::new(),
        ready: false,
    };
    check::verdict(skeleton, found)
}
