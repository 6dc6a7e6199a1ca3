//! OLM's update path for each Subscription and the images of every hop, probed.

use std::collections::{BTreeMap, BTreeSet};

use futures_util::StreamExt;

use mirrorpolicy::explain::Config;
use mirrorpolicy::olm::catalog::{self, Catalog};
use mirrorpolicy::olm::check::{
    self, CatalogCheck, DependencyBundle, Found, HopCheck, HopImage, ImageClass, ImageRole,
    SubscriptionCheck,
};
use mirrorpolicy::olm::deps;
use mirrorpolicy::olm::plan;
use mirrorpolicy::olm::resolve::{self, Request};
use mirrorpolicy::probe::{self, ProbeContext};
use mirrorpolicy::registries::ShortNameMode;
use mirrorpolicy::upgrade::{self, ImageCheck, Readiness};

use super::explain_one;
use super::wanted::{CatalogKey, Other, Wanted};
use super::OperatorPlan;

/// The resolver's answer for one Subscription, and its hops (images unprobed).
pub(super) fn resolve_one(
    w: &Wanted,
    catalogs: &BTreeMap<CatalogKey, (CatalogCheck, Option<Catalog>)>,
    others: &[Other],
    options: &OperatorPlan,
) -> (Found, Option<Vec<HopCheck>>) {
    let (source, image, catalog) = match &w.catalog {
        Err((source, why)) => {
            let check = CatalogCheck {
                pool: None,
                pool_reason: None,
                pull_secrets: Vec::new(),
                source: source.clone(),
                image: String::new(),
                digest: None,
                check: None,
                undetermined: Some(why.clone()),
                refused: None,
            };
            return unread(check);
        }
        Ok((source, image)) => (source, image, &catalogs[&w.catalog_key(image)]),
    };
    let mut check = catalog.0.clone();
    check.source = source.clone();
    check.pool = Some(w.pool.pool.clone());
    check.pool_reason = Some(w.pool.why.clone());
    check.pull_secrets = w.secret_notes.clone();
    // A catalog opm cannot serve offers OLM nothing: no path is resolved.
    let Some(cat) = catalog.1.as_ref().filter(|_| check.refused.is_none()) else {
        return unread(check);
    };
    let s = &w.sub;
    let name = source.clone().unwrap_or_else(|| image.clone());
    let own_read = with_own_packages(cat, source.as_deref(), others);
    let with_installed = deps::with_installed(&own_read, &providers_seen(w, others));
    let cat = with_installed.as_ref();
    let sources = dependency_sources(source.as_deref(), &own_read, others);
    let installed = installed(w, cat);
    let req = Request {
        subscription: &s.name,
        catalog: &name,
        package: &s.package,
        channel: s.channel.as_deref(),
        installed,
        starting_csv: s.starting_csv.as_deref(),
        to: options.to.as_deref(),
        max_hops: options.max_hops,
    };
    let (resolved, plan) = path_of(cat, &req, w);
    match resolved {
        Err(stop) => (
            Found {
                catalog: check,
                path: Some(Err(stop)),
                plan,
                extension: None,
            },
            None,
        ),
        Ok(path) => {
            let mut hops = hop_checks(
                &sources,
                &cat.packages[&s.package],
                &path,
                &s.approval,
                (options.operands, &w.installed),
            );
            with_plan_approval(&mut hops, plan.as_ref());
            let found = Found {
                catalog: check,
                path: Some(Ok((path.head, path.end, Vec::new()))),
                plan,
                extension: None,
            };
            (found, Some(hops))
        }
    }
}

/// Every provider the resolver sees besides the own catalog's: the
/// installed operators', and those of the other catalogs read for the
/// dependencies.
fn providers_seen(w: &Wanted, others: &[Other]) -> Vec<catalog::Provider> {
    let own = w.catalog.as_ref().ok().and_then(|(s, _)| s.as_deref());
    let mut providers = w.installed.clone();
    providers.extend(
        others
            .iter()
            .filter(|(n, _)| Some(n.as_str()) != own)
            .filter_map(|(_, c)| c.as_ref())
            .flat_map(|c| c.providers.iter().cloned()),
    );
    providers
}

/// The own catalog `cat` with the packages read anew of it for another
/// catalog's bundles (the entry of `others` named `own`, when it holds a
/// read).
fn with_own_packages<'c>(
    cat: &'c Catalog,
    own: Option<&str>,
    others: &[Other],
) -> std::borrow::Cow<'c, Catalog> {
    let more = others
        .iter()
        .find(|(n, _)| Some(n.as_str()) == own)
        .and_then(|(_, c)| c.as_ref());
    match more {
        Some(more) => {
            let mut with = cat.clone();
            for (name, package) in &more.packages {
                with.packages
                    .entry(name.clone())
                    .or_insert_with(|| package.clone());
            }
            std::borrow::Cow::Owned(with)
        }
        None => std::borrow::Cow::Borrowed(cat),
    }
}

/// The catalogs the dependencies come from, in the resolver's order
/// (`others`, the own catalog `cat` in its place, which is the entry
/// without a read or named `name`, else first), and the own catalog's
/// index among them. `cat` is the own catalog with its own index alone:
/// the others' providers come with their sources, and the installed
/// operators with [`deps::dependencies`]' own argument, so the walk of what
/// can be installed sees each provider once.
fn dependency_sources<'c>(
    name: Option<&'c str>,
    cat: &'c Catalog,
    others: &'c [Other],
) -> (Vec<deps::Source<'c>>, usize) {
    let own = deps::Source { name, catalog: cat };
    let is_own = |n: &str, c: &Option<Catalog>| c.is_none() || Some(n) == name;
    let source = |(n, c): &'c Other| match c {
        Some(c) if Some(n.as_str()) != name => deps::Source {
            name: Some(n.as_str()),
            catalog: c,
        },
        _ => own,
    };
    match others.iter().position(|(n, c)| is_own(n, c)) {
        Some(at) => (others.iter().map(source).collect(), at),
        // Its CatalogSource is not among those read (`--catalog-image`):
        // searched first all the same, as the catalog of the bundles that
        // declare the requirements.
        None => (
            std::iter::once(own)
                .chain(others.iter().map(source))
                .collect(),
            0,
        ),
    }
}

/// The InstallPlan's hop waits for the plan's own approval (a Manual plan
/// stays Manual after the Subscription is switched to Automatic).
fn with_plan_approval(hops: &mut [HopCheck], plan: Option<&plan::PlanCheck>) {
    if let (Some(first), Some(p)) = (hops.first_mut(), plan) {
        if first.edge == resolve::Edge::InstallPlan && !p.approval.is_empty() {
            first.approval = p.approval.clone();
        }
    }
}

/// A Subscription whose catalog was not read: no path.
pub(super) fn unread(catalog: CatalogCheck) -> (Found, Option<Vec<HopCheck>>) {
    let found = Found {
        catalog,
        path: None,
        plan: None,
        extension: None,
    };
    (found, None)
}

/// The resolver's path, its first hop the pending InstallPlan's when there is one.
fn path_of(
    cat: &Catalog,
    req: &Request<'_>,
    w: &Wanted,
) -> (
    Result<resolve::UpdatePath, resolve::Stop>,
    Option<plan::PlanCheck>,
) {
    let pending = w
        .plan
        .as_ref()
        .and_then(|p| plan::pending_csv(&w.sub, p, cat).map(|csv| (p, csv)));
    match pending {
        Some((p, csv)) => {
            let (path, said) = plan::update_path(cat, req, p, &csv);
            (path, Some(said))
        }
        None => (resolve::update_path(cat, req), None),
    }
}

/// The installed CSV and its version (its CSV's `spec.version`, else the catalog's).
fn installed<'w>(w: &'w Wanted, cat: &Catalog) -> Option<(&'w str, Option<resolve::Version>)> {
    let s = &w.sub;
    let installed_version = w
        .installed_version
        .as_deref()
        .and_then(|v| resolve::Version::parse(v).ok());
    s.installed_csv.as_deref().map(|csv| {
        let version = installed_version.clone().or_else(|| {
            cat.packages
                .get(&s.package)
                .and_then(|p| resolve::version_of(p, csv))
        });
        (csv, version)
    })
}

/// The hops with the images each pulls (bundle, deployments, relatedImages, dependencies), unprobed.
fn hop_checks(
    (sources, own): &(Vec<deps::Source<'_>>, usize),
    package: &catalog::Package,
    path: &resolve::UpdatePath,
    approval: &str,
    (operands, installed): (bool, &[catalog::Provider]),
) -> Vec<HopCheck> {
    let last = path.hops.len().saturating_sub(1);
    path.hops
        .iter()
        .enumerate()
        .map(|(i, hop)| {
            let bundle = package.bundles.get(&hop.to);
            let dependencies = bundle
                .map(|b| deps::dependencies(sources, *own, b, installed))
                .unwrap_or_default();
            hop_check(hop, bundle, &dependencies, approval, operands || i == last)
        })
        .collect()
}

/// One hop and what it pulls: its bundle's images, and its dependencies'
/// (relatedImages counted when `operands`).
pub(super) fn hop_check(
    hop: &resolve::Hop,
    bundle: Option<&catalog::Bundle>,
    dependencies: &deps::Dependencies<'_, '_>,
    approval: &str,
    operands: bool,
) -> HopCheck {
    let bundles: Vec<&catalog::Bundle> = dependencies.bundles.iter().map(|d| d.bundle).collect();
    let images = hop_images(bundle, &bundles, operands);
    let installed = dependencies.installed.iter().map(|p| DependencyBundle {
        name: p.name.clone(),
        package: p.package.clone(),
        catalog: None,
        csv_source: catalog::CsvSource::None,
        satisfied_by: Some(format!("installed CSV {}", p.name)),
    });
    let dependencies = dependencies
        .bundles
        .iter()
        .map(|d| DependencyBundle {
            name: d.bundle.name.clone(),
            package: d.bundle.package.clone(),
            catalog: d.catalog.map(str::to_string),
            csv_source: d.bundle.csv_source,
            satisfied_by: None,
        })
        .chain(installed)
        .collect();
    HopCheck {
        from: hop.from.clone(),
        to: hop.to.clone(),
        edge: hop.edge,
        approval: approval.to_string(),
        csv_source: bundle.map_or(catalog::CsvSource::None, |b| b.csv_source),
        deployment_images_unknown: None,
        dependencies,
        images,
    }
}

/// The images of a hop's bundle and of its dependencies' bundles, each
/// once (relatedImages counted when `operands`).
fn hop_images(
    bundle: Option<&catalog::Bundle>,
    dependencies: &[&catalog::Bundle],
    operands: bool,
) -> Vec<HopImage> {
    let mut images: Vec<HopImage> = Vec::new();
    // `unpacked`: the unpack Job pulls it (a bundle image).
    let mut add = |role, name: &str, reference: &str, counted, unpacked| {
        if !reference.is_empty() && images.iter().any(|m: &HopImage| m.reference == reference) {
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
            unpacked,
            check: None,
        });
    };
    if let Some(b) = bundle {
        add(ImageRole::Bundle, "", &b.image, true, true);
        b.deployment_images
            .iter()
            .for_each(|d| add(ImageRole::Operator, "", d, true, false));
        b.related_images
            .iter()
            .for_each(|r| add(ImageRole::Related, &r.name, &r.image, operands, false));
    }
    for d in dependencies {
        add(ImageRole::Dependency, &d.name, &d.image, true, true);
        let operator = format!("{}/operator", d.name);
        d.deployment_images
            .iter()
            .for_each(|r| add(ImageRole::Dependency, &operator, r, true, false));
        for r in &d.related_images {
            let name = format!("{}/{}", d.name, r.name);
            add(ImageRole::Dependency, &name, &r.image, operands, false);
        }
    }
    images
}

/// An image's probe: its class (decided on the explanation, before
/// probing), its check with the signature, and whether the source that
/// served it is insecure (to read the image from it again).
#[derive(Debug, Clone)]
pub(super) struct ImageProbe {
    pub class: ImageClass,
    pub check: ImageCheck,
    pub insecure: bool,
}

/// `image` explained with `config` and probed as CRI-O pulls it, its
/// signature checked; `name` names it in the check.
pub(super) async fn probe_image(
    ctx: &ProbeContext,
    config: &Config<'_>,
    image: &str,
    mode: ShortNameMode,
    name: &str,
) -> ImageProbe {
    let mut item = explain_one(config, image, mode);
    let class = check::image_class(&item);
    probe::probe_explanation(ctx, &mut item).await;
    let sig = probe::signature::check(ctx, &item).await;
    let check = upgrade::with_signature(upgrade::check_image(name, &item), sig);
    let insecure = check
        .served_by
        .as_deref()
        .is_some_and(|by| item.source_is_insecure(by));
    ImageProbe {
        class,
        check,
        insecure,
    }
}

/// Each image probed ([`probe_image`]), once, at most `concurrency` at a time.
pub(super) async fn probe_images(
    ctx: &ProbeContext,
    config: &Config<'_>,
    mode: ShortNameMode,
    references: BTreeSet<String>,
    concurrency: usize,
) -> BTreeMap<String, ImageProbe> {
    let probed = futures_util::stream::iter(references.into_iter().map(|r| async move {
        let probed = probe_image(ctx, config, &r, mode, &r).await;
        (r, probed)
    }))
    .buffered(concurrency.max(1))
    .collect::<Vec<_>>()
    .await;
    probed.into_iter().collect()
}

/// A Subscription whose namespace's resolution fails (a CatalogSource it
/// resolves over cannot be listed) has no path, whatever its own catalog
/// gives: OLM resolves nothing in the namespace.
pub(super) fn prevented(wanted: &[Wanted], resolved: &mut [(Found, Option<Vec<HopCheck>>)]) {
    for (w, (found, hops)) in wanted.iter().zip(resolved) {
        if let (Some((stop, _)), Some(_)) = (&w.prevented, &found.path) {
            found.path = Some(Err(stop.clone()));
            *hops = None;
        }
    }
}

/// The verdict of one Subscription with its images' probes.
pub(super) fn finish(
    mut w: Wanted,
    mut found: Found,
    hops: Option<Vec<HopCheck>>,
    probed: &BTreeMap<String, ImageProbe>,
    require_mirror: bool,
) -> SubscriptionCheck {
    if let (Some(Ok(path)), Some(mut hops)) = (found.path.as_mut(), hops) {
        for image in hops.iter_mut().flat_map(|h| h.images.iter_mut()) {
            if let Some(p) = probed.get(&image.reference) {
                image.class = p.class;
                image.check = Some(p.check.clone());
            }
            if require_mirror {
                check::require_mirror(image);
            }
        }
        path.2 = hops;
    }
    let kind = if w.v1.is_some() {
        check::CheckedKind::ClusterExtension
    } else {
        check::CheckedKind::Subscription
    };
    let s = w.sub;
    let skeleton = SubscriptionCheck {
        kind,
        extension: None,
        namespace: s.namespace,
        name: s.name,
        package: s.package,
        channel: s.channel,
        installed_csv: s.installed_csv,
        starting_csv: s.starting_csv,
        install_plan: None,
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
    let prevented = w.prevented.take();
    let mut checked = check::verdict(skeleton, found);
    if let Some((stop, step)) = prevented {
        if checked.reason == stop.reason() {
            checked.next_steps.push(step);
        }
    }
    checked
}
