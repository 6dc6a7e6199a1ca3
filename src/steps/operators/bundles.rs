//! The CSVs the catalog does not carry: a hop whose bundle has only
//! `olm.csv.metadata` (real catalogs) gets its deployment images from the
//! bundle image itself, read from the source that served it to the probe,
//! its layers streamed as the catalog's are.

use std::collections::{BTreeMap, BTreeSet};

use mirrorpolicy::oci::layer::{self, LayerError};
use mirrorpolicy::olm::bundle::{BundleCsv, BundleTree};
use mirrorpolicy::olm::catalog::CsvSource;
use mirrorpolicy::olm::check::{Found, HopCheck, HopImage, ImageClass, ImageRole};
use mirrorpolicy::probe::ProbeContext;
use mirrorpolicy::reference::Reference;
use mirrorpolicy::upgrade::ImageOutcome;

use super::fbc::image_parts;
use super::hops::ImageProbe;
use crate::steps::blob;

/// Where to read bundle images from: what the probes gave (the source that
/// served each image, as the unpack Job's pull found it).
pub(super) struct Pulled<'a> {
    pub ctx: &'a ProbeContext,
    pub arch: Option<&'a str>,
    pub probed: &'a BTreeMap<String, ImageProbe>,
}

/// Adds to every hop without the catalog's CSV the deployment images of its
/// bundle image's CSV (or says why they are unknown), and likewise for the
/// bundles of its dependencies; returns the images added that were not
/// probed yet. Each bundle image is read once.
pub(super) async fn add_deployment_images(
    pulled: &Pulled<'_>,
    resolved: &mut [(Found, Option<Vec<HopCheck>>)],
) -> BTreeSet<String> {
    let mut read: BTreeMap<String, Result<BundleCsv, String>> = BTreeMap::new();
    let mut added = BTreeSet::new();
    let hops = resolved
        .iter_mut()
        .filter_map(|r| r.1.as_mut())
        .flat_map(|h| h.iter_mut());
    for hop in hops {
        for target in targets(hop) {
            let Some(bundle) = bundle_of(hop, &target) else {
                if target.is_none() {
                    hop.deployment_images_unknown =
                        Some("the catalog names no bundle image for this CSV".into());
                }
                continue;
            };
            if !read.contains_key(&bundle) {
                let csv = read_bundle(pulled, &bundle).await;
                read.insert(bundle.clone(), csv);
            }
            match &read[&bundle] {
                Ok(csv) => {
                    add_operator_images(hop, target.as_deref(), &csv.images);
                    set_source(hop, target.as_deref());
                    let new = csv
                        .images
                        .iter()
                        .filter(|i| !pulled.probed.contains_key(*i));
                    added.extend(new.cloned());
                }
                Err(why) => {
                    let why = match &target {
                        None => why.clone(),
                        Some(d) => format!("dependency {d}: {why}"),
                    };
                    let all = match hop.deployment_images_unknown.take() {
                        Some(before) => format!("{before}; {why}"),
                        None => why,
                    };
                    hop.deployment_images_unknown = Some(all);
                }
            }
        }
    }
    added
}

/// The bundles of a hop whose CSV the catalog does not carry: the hop's
/// own (`None`) and its dependencies' (their CSV names).
fn targets(hop: &HopCheck) -> Vec<Option<String>> {
    let own = (hop.csv_source != CsvSource::BundleObject).then_some(None);
    let deps = hop
        .dependencies
        .iter()
        .filter(|d| d.csv_source != CsvSource::BundleObject)
        .map(|d| Some(d.name.clone()));
    own.into_iter().chain(deps).collect()
}

/// The bundle image of the hop (`None`) or of one of its dependencies.
fn bundle_of(hop: &HopCheck, target: &Option<String>) -> Option<String> {
    hop.images
        .iter()
        .find(|m| match target {
            None => m.role == ImageRole::Bundle,
            Some(d) => m.role == ImageRole::Dependency && m.name == *d,
        })
        .map(|m| m.reference.clone())
        .filter(|r| !r.is_empty())
}

fn set_source(hop: &mut HopCheck, target: Option<&str>) {
    match target {
        None => hop.csv_source = CsvSource::BundleImage,
        Some(d) => hop
            .dependencies
            .iter_mut()
            .filter(|x| x.name == d)
            .for_each(|x| x.csv_source = CsvSource::BundleImage),
    }
}

/// The CSV's images after its bundle image: the hop's as operator images
/// (a relatedImage naming the same image becomes that), a dependency's as
/// its `<csv>/operator` images.
fn add_operator_images(hop: &mut HopCheck, target: Option<&str>, images: &[String]) {
    let (role, name) = match target {
        None => (ImageRole::Operator, String::new()),
        Some(d) => (ImageRole::Dependency, format!("{d}/operator")),
    };
    let mut at = hop
        .images
        .iter()
        .position(|m| match target {
            None => m.role == ImageRole::Bundle,
            Some(d) => m.role == ImageRole::Dependency && m.name == d,
        })
        .map_or(0, |i| i + 1);
    for image in images {
        if hop
            .images
            .iter()
            .any(|m| m.reference == *image && (m.role == ImageRole::Operator || m.name == name))
        {
            continue;
        }
        if target.is_none() {
            hop.images
                .retain(|m| !(m.role == ImageRole::Related && m.reference == *image));
        }
        let operator = HopImage {
            role,
            name: name.clone(),
            reference: image.clone(),
            class: if image.is_empty() {
                ImageClass::EmptyReference
            } else {
                ImageClass::Digest
            },
            counted: !image.is_empty(),
            unpacked: false,
            check: None,
        };
        hop.images.insert(at.min(hop.images.len()), operator);
        at += 1;
    }
}

/// The CSV of bundle image `reference`, read from the source that served
/// it; why not when it was not served or cannot be read.
async fn read_bundle(pulled: &Pulled<'_>, reference: &str) -> Result<BundleCsv, String> {
    let probe = pulled.probed.get(reference);
    let served = probe.filter(|p| p.check.outcome == ImageOutcome::Served);
    let Some((by, insecure)) = served.and_then(|p| Some((p.check.served_by.clone()?, p.insecure)))
    else {
        let outcome = probe.map_or("unprobed", |p| p.check.outcome.as_str());
        return Err(format!(
            "the bundle image is {outcome}, so its CSV was not read"
        ));
    };
    let physical =
        Reference::parse(&by).map_err(|e| format!("the serving pull spec {by:?}: {e}"))?;
    let ctx = pulled.ctx;
    let attempt = ctx.prober.attempt(&physical, insecure).await;
    let manifest = attempt.manifest.ok_or_else(|| {
        format!(
            "{by} served the bundle manifest once, then: {}",
            attempt.detail
        )
    })?;
    let what = format!("bundle image {reference}");
    let (_, layers) = image_parts(ctx, &physical, insecure, &what, &manifest, pulled.arch)
        .await
        .map_err(|e| format!("{e:#}"))?;
    let image = Image {
        physical,
        insecure,
        what,
        layers,
    };
    let tree = read_layers(ctx, &image, BundleTree::default()).await?;
    let tree = match tree.folder_missed() {
        Some(folder) => read_layers(ctx, &image, BundleTree::for_folder(&folder)).await?,
        None => tree,
    };
    tree.finish().map_err(|e| format!("{}: {e}", image.what))
}

/// A bundle image on the source that serves it: its layers, and its name in messages.
struct Image {
    physical: Reference,
    insecure: bool,
    what: String,
    layers: Vec<String>,
}

/// The layers of `image` streamed into `tree`, within [`BundleTree::budget`].
async fn read_layers(
    ctx: &ProbeContext,
    image: &Image,
    tree: BundleTree,
) -> Result<BundleTree, String> {
    let (physical, insecure, what) = (&image.physical, image.insecure, &image.what);
    let mut tree = tree;
    let mut budget = BundleTree::budget();
    for digest in &image.layers {
        let (back, read) = blob::stream(ctx, physical, insecure, digest, "the bundle", move |r| {
            let read = layer::read_tar(r, &mut tree, &mut budget);
            ((tree, budget), read)
        })
        .await
        .map_err(|e| format!("{e:#}"))?;
        (tree, budget) = back;
        read.map_err(|e| match e {
            LayerError::TotalTooLarge { path, limit } => format!(
                "{what}: layer {digest}: at /{}, the files OLM's unpack Job reads (the annotations and the manifests folder) pass {} MiB, which this tool does not read (the Job itself holds at most 1 MiB of them, gzip-compressed)",
                layer::normalize(&path),
                limit >> 20
            ),
            LayerError::StreamTooLarge { path, limit } => format!(
                "{what}: layer {digest}: {}its layers unpack past {} GiB in all (every entry counted, those OLM's unpack Job does not copy too), which this tool does not read (no real bundle image is that large)",
                path.map(|p| format!("at /{}, ", layer::normalize(&p)))
                    .unwrap_or_default(),
                limit >> 30
            ),
            e => format!("{what}: layer {digest}: {e}"),
        })?;
    }
    Ok(tree)
}
