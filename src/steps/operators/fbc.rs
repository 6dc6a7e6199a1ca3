//! The catalog image probed through the mirrors and its file-based configs read.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;

use mirrorpolicy::digest::sha256_hex;
use mirrorpolicy::explain::Config;
use mirrorpolicy::oci::manifest::{self, Manifest, ManifestError};
use mirrorpolicy::olm::catalog::{self, Catalog};
use mirrorpolicy::olm::check::CatalogCheck;
use mirrorpolicy::olm::deps;
use mirrorpolicy::olm::fs::{self as layers, ConfigsTree};
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::reference::Reference;
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::upgrade::ImageOutcome;

use super::cache;
use super::hops::{probe_image, ImageProbe};
use crate::exit::Failure;
use crate::steps::blob;

/// A catalog image probed and, when a source serves it, its manifest
/// fetched from that source: what every read of it for some packages
/// starts from (each read after the first fetches neither again, nor its
/// config, and streams only the layers that hold configs).
pub(super) struct Opened {
    check: CatalogCheck,
    served: Option<Served>,
}

/// The source that serves a catalog image, its manifest, and (once read)
/// where it keeps its configs.
struct Served {
    source: Source,
    manifest: Vec<u8>,
    digest: String,
    /// `Err(why)`: a catalog this tool does not read (a SQLite index).
    configs: Option<Result<Configs, String>>,
}

/// The catalog image probed (`probed`: its probe, when it already was,
/// with the same view and pull secrets), and its manifest fetched from the
/// source that serves it.
pub(super) async fn open_catalog(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
    probed: Option<ImageProbe>,
) -> Result<Opened> {
    let probe = match probed {
        Some(p) => p,
        None => probe_image(ctx, config, image, mode, "catalog").await,
    };
    let probed = probe.check;
    let mut check = CatalogCheck {
        pool: None,
        pool_reason: None,
        pull_secrets: Vec::new(),
        source: None,
        image: image.to_string(),
        digest: None,
        check: Some(probed.clone()),
        undetermined: None,
        refused: None,
    };
    let Some(by) = probed
        .served_by
        .clone()
        .filter(|_| probed.outcome == ImageOutcome::Served)
    else {
        check.undetermined = (probed.outcome == ImageOutcome::Undetermined)
            .then(|| format!("the catalog image {image}: {}", probed.detail));
        return Ok(Opened {
            check,
            served: None,
        });
    };
    let insecure = probe.insecure;
    let physical = Reference::parse(&by)
        .map_err(|e| Failure::input(format!("the serving pull spec {by:?} is invalid: {e}")))?;
    let attempt = ctx.prober.attempt(&physical, insecure).await;
    let manifest = attempt.manifest.ok_or_else(|| {
        Failure::cluster(format!(
            "{by} served the catalog manifest once, then: {}",
            attempt.detail
        ))
    })?;
    let digest = format!("sha256:{}", sha256_hex(&manifest));
    check.digest = Some(digest.clone());
    let source = Source { physical, insecure };
    Ok(Opened {
        check,
        served: Some(Served {
            source,
            manifest,
            digest,
            configs: None,
        }),
    })
}

/// The opened catalog read for `packages` (from `--cache-dir` when it
/// holds that read), and its check.
pub(super) async fn read_opened(
    ctx: &ProbeContext,
    opened: &mut Opened,
    image: &str,
    packages: BTreeSet<String>,
    arch: Option<&str>,
    cache_dir: Option<&Path>,
) -> Result<(CatalogCheck, Option<Catalog>)> {
    let mut check = opened.check.clone();
    let Some(served) = opened.served.as_mut() else {
        return Ok((check, None));
    };
    let digest = served.digest.clone();
    // An index's instances may hold other catalogs: the one read is the
    // architecture's, and so is its cache.
    let index = matches!(
        parse_image_manifest(&served.manifest),
        Ok(Manifest::Index(_))
    );
    let key = mirrorpolicy::olm::cache::Key {
        digest: &digest,
        arch: arch.filter(|_| index),
        packages: &packages,
    };
    let cached = cache_dir.and_then(|dir| cache::load(dir, key));
    let read = match cached {
        Some(catalog) => Ok(catalog),
        None => {
            let read = read_with_dependencies(ctx, served, image, &packages, arch).await?;
            if let (Some(dir), Ok(catalog)) = (cache_dir, &read) {
                cache::store(dir, key, catalog);
            }
            read
        }
    };
    match read {
        Ok(catalog) => {
            check.refused = catalog.refused.clone();
            Ok((check, Some(catalog)))
        }
        Err(why) => {
            check.undetermined = Some(why);
            Ok((check, None))
        }
    }
}

/// The most of an image config read: a catalog's is a few KiB (its labels
/// and history); the registry could send up to the blob cap.
const CONFIG_MAX_BYTES: usize = 16 << 20;

/// The wanted packages read from the catalog's layers; then, when a
/// dependency may come from other packages (known from that read's index of
/// every bundle), those packages alone, read in full so the resolver can
/// pick their bundles. The manifest and config are read once for every
/// read of the image; after the first read, only the layers that hold any
/// of the configs folder are streamed.
async fn read_with_dependencies(
    ctx: &ProbeContext,
    served: &mut Served,
    image: &str,
    packages: &BTreeSet<String>,
    arch: Option<&str>,
) -> Result<Result<Catalog, String>> {
    let configs = match &served.configs {
        Some(known) => known.clone(),
        None => {
            let found = configs_of(ctx, &served.source, image, &served.manifest, arch).await?;
            served.configs = Some(found.clone());
            found
        }
    };
    let configs = match configs {
        Ok(c) => c,
        Err(why) => return Ok(Err(why)),
    };
    let (mut catalog, touched) =
        match read_configs(ctx, &served.source, image, &configs, packages.clone()).await? {
            Ok(read) => read,
            Err(why) => return Ok(Err(why)),
        };
    // Whether a layer holds anything of the configs folder does not depend
    // on the packages read: later reads skip the others.
    let configs = Configs {
        layers: touched,
        ..configs
    };
    served.configs = Some(Ok(configs.clone()));
    let more = deps::packages_to_read(&catalog);
    if more.is_empty() {
        return Ok(Ok(catalog));
    }
    match read_configs(ctx, &served.source, image, &configs, more).await? {
        Ok((dependencies, _)) => {
            catalog.packages.extend(dependencies.packages);
            Ok(Ok(catalog))
        }
        Err(why) => Ok(Err(why)),
    }
}

/// The source that serves the catalog image.
struct Source {
    physical: Reference,
    insecure: bool,
}

/// Where a catalog image keeps its configs: the folder its label names, and
/// the layers to read (base first).
#[derive(Clone)]
struct Configs {
    dir: String,
    layers: Vec<String>,
}

/// The configs folder and layers of the catalog image on `source`;
/// `Ok(Err(why))` when the catalog cannot be read by this tool (a SQLite
/// index).
async fn configs_of(
    ctx: &ProbeContext,
    source: &Source,
    image: &str,
    manifest: &[u8],
    arch: Option<&str>,
) -> Result<Result<Configs, String>> {
    let (physical, insecure) = (&source.physical, source.insecure);
    let what = format!("catalog image {image}");
    let (config_digest, layers) =
        image_parts(ctx, physical, insecure, &what, manifest, arch).await?;
    let config_blob = match blob::read_small(
        ctx,
        physical,
        insecure,
        &config_digest,
        "the catalog",
        CONFIG_MAX_BYTES,
    )
    .await
    {
        Ok(body) => body,
        Err(blob::SmallBlob::Failed(e)) => return Err(e),
        Err(blob::SmallBlob::TooLarge) => {
            return Err(Failure::input(format!(
                "catalog image {image}: its config {config_digest} is larger than {} MiB, which no catalog's config is",
                CONFIG_MAX_BYTES >> 20
            ))
            .into())
        }
    };
    let labels = manifest::config_labels(&config_blob)
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
    Ok(Ok(Configs {
        dir: dir.clone(),
        layers,
    }))
}

/// The wanted packages of the catalog's configs, read from `configs`'
/// layers on `source`, and the layers that hold any of the configs folder;
/// `Ok(Err(why))` when a layer cannot be read by this tool.
async fn read_configs(
    ctx: &ProbeContext,
    source: &Source,
    image: &str,
    configs: &Configs,
    packages: BTreeSet<String>,
) -> Result<Result<(Catalog, Vec<String>), String>> {
    let (physical, insecure) = (&source.physical, source.insecure);
    let mut tree = ConfigsTree::new(&configs.dir);
    let mut touched = Vec::new();
    for digest in &configs.layers {
        let wanted = packages.clone();
        let (back, read) = blob::stream(ctx, physical, insecure, digest, "the catalog", move |r| {
            let read = layers::read_layer(r, &mut tree, &|p: &str| wanted.contains(p));
            (tree, read)
        })
        .await?;
        tree = back;
        match read {
            Ok(true) => touched.push(digest.clone()),
            Ok(false) => {}
            Err(e) => {
                return Ok(Err(format!(
                    "the catalog image {image}: layer {digest}: {e}"
                )))
            }
        }
    }
    let catalog = tree
        .finish()
        .map_err(|e| Failure::input(format!("catalog image {image}: {e}")))?;
    Ok(Ok((catalog, touched)))
}

/// The config and layer digests of an image (the platform of `arch` in an
/// index); `what` names it in messages (`catalog image REF`).
pub(super) async fn image_parts(
    ctx: &ProbeContext,
    physical: &Reference,
    insecure: bool,
    what: &str,
    manifest: &[u8],
    arch: Option<&str>,
) -> Result<(String, Vec<String>)> {
    let fail = |e: String| Failure::input(format!("{what}: {e}"));
    let parsed = match parse_image_manifest(manifest).map_err(fail)? {
        Manifest::Index(entries) => {
            let digest = manifest::pick_arch(&entries, arch).map_err(|e| {
                Failure::input(format!("{what}: {e}"))
                    .with_hint("pass --arch amd64 (or arm64, ppc64le, s390x)")
            })?;
            let attempt = ctx.prober.fetch_manifest(physical, insecure, &digest).await;
            let body = attempt.manifest.ok_or_else(|| {
                Failure::cluster(format!("{}@{digest}: {}", physical.name(), attempt.detail))
            })?;
            parse_image_manifest(&body).map_err(fail)?
        }
        m => m,
    };
    match parsed {
        Manifest::Image { config, layers, .. } => Ok((
            config.map(|c| c.digest).unwrap_or_default(),
            layers.into_iter().map(|l| l.digest).collect(),
        )),
        Manifest::Index(_) => Err(fail("an index inside an index".to_string()).into()),
    }
}

/// A catalog's or a bundle's manifest: an index, or an image with a config.
fn parse_image_manifest(body: &[u8]) -> Result<Manifest, String> {
    let parsed = manifest::parse_manifest(body).map_err(|e| match e {
        ManifestError::NotJson(e) => format!("its manifest is not JSON: {e}"),
        ManifestError::SchemaVersion(v) => {
            format!("its manifest is schema version {v}, not an image with a config")
        }
    })?;
    if matches!(&parsed, Manifest::Image { config: None, .. }) {
        return Err("its manifest has no config".to_string());
    }
    Ok(parsed)
}
