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
use super::hops::probe_image;
use crate::exit::Failure;
use crate::steps::blob;

/// The catalog image probed, then read from the source that serves it.
pub(super) async fn read_catalog(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
    packages: BTreeSet<String>,
    arch: Option<&str>,
    cache_dir: Option<&Path>,
) -> Result<(CatalogCheck, Option<Catalog>)> {
    let probe = probe_image(ctx, config, image, mode, "catalog").await;
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
    let cached = cache_dir.and_then(|dir| cache::load(dir, &digest, &packages));
    let read = match cached {
        Some(catalog) => Ok(catalog),
        None => {
            let source = Source { physical, insecure };
            let read =
                read_with_dependencies(ctx, &source, image, &manifest, &packages, arch).await?;
            if let (Some(dir), Ok(catalog)) = (cache_dir, &read) {
                cache::store(dir, &digest, &packages, catalog);
            }
            read
        }
    };
    match read {
        Ok(catalog) => Ok((check, Some(catalog))),
        Err(why) => {
            check.undetermined = Some(why);
            Ok((check, None))
        }
    }
}

/// The most of an image config read: a catalog's is a few KiB (its labels
/// and history); the registry could send up to the blob cap.
const CONFIG_MAX_BYTES: usize = 16 << 20;

/// The wanted packages read from the catalog's layers, and again with the
/// packages that may satisfy a dependency (read in full too, so the
/// resolver can pick their bundles) until none is missing.
async fn read_with_dependencies(
    ctx: &ProbeContext,
    source: &Source,
    image: &str,
    manifest: &[u8],
    packages: &BTreeSet<String>,
    arch: Option<&str>,
) -> Result<Result<Catalog, String>> {
    let mut packages = packages.clone();
    loop {
        let catalog =
            match read_configs(ctx, source, image, manifest, packages.clone(), arch).await? {
                Ok(c) => c,
                Err(why) => return Ok(Err(why)),
            };
        let mut more = deps::providing_packages(&catalog);
        more.retain(|p| !packages.contains(p));
        if more.is_empty() {
            return Ok(Ok(catalog));
        }
        packages.extend(more);
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
    let what = format!("catalog image {image}");
    let (config_digest, layer_digests) =
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
