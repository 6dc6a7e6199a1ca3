//! OLM v1: a `ClusterExtension` (olm.operatorframework.io/v1) resolved over
//! the `ClusterCatalog`s its selector picks, as operator-controller's
//! `CatalogResolver.Resolve` (`internal/operator-controller/resolve/catalog.go`)
//! chooses the bundle to install; walked again from each bundle chosen, so
//! the path shows every resolution until the chosen bundle is the one
//! installed.
//!
//! Per catalog, the package's bundles are filtered: in one of
//! `spec.source.catalog.channels` (every channel when empty); within the
//! Masterminds `version` constraint ([`crate::olm::constraint`]); and,
//! unless `upgradeConstraintPolicy: SelfCertified`, a successor of the
//! installed bundle (`filter.SuccessorsOf`: an entry of the listed channels
//! that replaces or skips it, or whose blang `skipRange` contains its
//! version) or the installed version itself. The rest are ordered
//! non-deprecated first, then by version and release (highest first): the
//! first is the catalog's offer. Across catalogs a non-deprecated offer
//! beats a deprecated one, then the highest `spec.priority`; several at the
//! same priority fail resolution. One jump, not hop by hop as OLM v0; no
//! dependency resolution.
//!
//! Left to the caller: reading the catalogs, and the images each hop pulls.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::catalog::{ChannelEntry, Package};
use super::constraint::Constraint;
use super::range::precedence;
use super::resolve::{self, Edge, End, Hop, Stop, UpdatePath, Version};
use crate::objects::LabelSelector;

/// The label catalogd puts on every ClusterCatalog: its name.
pub const METADATA_NAME_LABEL: &str = "olm.operatorframework.io/metadata.name";

/// The bundle a ClusterExtension has installed (`status.install.bundle`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstalledBundle {
    pub name: String,
    pub version: String,
}

/// A ClusterExtension: what it asks of the catalogs and what it has installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterExtension {
    pub name: String,
    /// `spec.namespace`: where its operator runs.
    pub install_namespace: String,
    pub package: String,
    /// `spec.source.catalog.version`: a Masterminds constraint.
    pub version: Option<String>,
    pub channels: Vec<String>,
    pub selector: LabelSelector,
    /// `upgradeConstraintPolicy: SelfCertified`.
    pub self_certified: bool,
    pub installed: Option<InstalledBundle>,
}

impl ClusterExtension {
    /// The ClusterExtension of `value`, read at `at` (for messages).
    pub fn from_value(at: &str, value: &Value) -> Result<ClusterExtension, String> {
        let s = |p: &str| {
            value
                .pointer(p)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let name = s("/metadata/name").unwrap_or_default();
        let fail = |what: &str| format!("{at}: ClusterExtension {name} {what}");
        let source_type = s("/spec/source/sourceType").unwrap_or_default();
        if source_type != "Catalog" {
            return Err(fail(&format!(
                "has spec.source.sourceType {source_type:?}, not \"Catalog\""
            )));
        }
        let package = s("/spec/source/catalog/packageName")
            .ok_or_else(|| fail("has no spec.source.catalog.packageName"))?;
        let selector = match value.pointer("/spec/source/catalog/selector") {
            None | Some(Value::Null) => LabelSelector::default(),
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| fail(&format!("spec.source.catalog.selector: {e}")))?,
        };
        let channels = value
            .pointer("/spec/source/catalog/channels")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        let installed = s("/status/install/bundle/name").map(|n| InstalledBundle {
            name: n,
            version: s("/status/install/bundle/version").unwrap_or_default(),
        });
        Ok(ClusterExtension {
            install_namespace: s("/spec/namespace").unwrap_or_default(),
            package,
            version: s("/spec/source/catalog/version"),
            channels,
            selector,
            self_certified: s("/spec/source/catalog/upgradeConstraintPolicy").as_deref()
                == Some("SelfCertified"),
            installed,
            name,
        })
    }
}

/// A ClusterCatalog: its labels, priority and image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterCatalog {
    pub name: String,
    /// Its labels, with catalogd's [`METADATA_NAME_LABEL`].
    pub labels: BTreeMap<String, String>,
    pub priority: i32,
    /// `spec.source.image.ref`: the image catalogd pulls, at every unpack.
    pub image: Option<String>,
    /// `status.resolvedSource.image.ref`: the digest it last unpacked.
    pub resolved: Option<String>,
    /// `spec.availabilityMode: Unavailable`: left out of resolution.
    pub unavailable: bool,
}

impl ClusterCatalog {
    pub fn from_value(value: &Value) -> ClusterCatalog {
        let s = |p: &str| {
            value
                .pointer(p)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let name = s("/metadata/name").unwrap_or_default();
        let mut labels: BTreeMap<String, String> = value
            .pointer("/metadata/labels")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect();
        labels
            .entry(METADATA_NAME_LABEL.to_string())
            .or_insert_with(|| name.clone());
        let priority = value
            .pointer("/spec/priority")
            .and_then(Value::as_i64)
            .and_then(|p| i32::try_from(p).ok())
            .unwrap_or(0);
        ClusterCatalog {
            labels,
            priority,
            image: s("/spec/source/image/ref"),
            resolved: s("/status/resolvedSource/image/ref"),
            unavailable: s("/spec/availabilityMode").as_deref() == Some("Unavailable"),
            name,
        }
    }
}

/// The catalogs resolution walks for `ext`: those its selector picks, not
/// `Unavailable`, in name order (as the API server lists them).
pub fn selected<'c>(
    ext: &ClusterExtension,
    catalogs: &'c [ClusterCatalog],
) -> Result<Vec<&'c ClusterCatalog>, Stop> {
    let operators = ["In", "NotIn", "Exists", "DoesNotExist"];
    if let Some(bad) = ext
        .selector
        .match_expressions
        .iter()
        .find(|r| !operators.contains(&r.operator.as_str()))
    {
        return Err(Stop::InvalidSpec(format!(
            "desired catalog selector is invalid: {:?} is not a valid label selector operator",
            bad.operator
        )));
    }
    let mut picked: Vec<&ClusterCatalog> = catalogs
        .iter()
        .filter(|c| !c.unavailable && ext.selector.matches(&c.labels))
        .collect();
    picked.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(picked)
}

/// What one selected catalog holds of the package.
#[derive(Debug, Clone, Copy)]
pub struct Offer<'a> {
    pub catalog: &'a str,
    pub priority: i32,
    /// `None` when the catalog has nothing of the package.
    pub package: Option<&'a Package>,
}

/// A bundle's version and release as operator-controller reads them
/// (`bundleutil.ParseLegacyVersionRelease`): build metadata that parses as
/// a release is the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRelease {
    pub version: Version,
    release: Vec<semver::Prerelease>,
}

impl VersionRelease {
    pub fn parse(s: &str) -> Option<VersionRelease> {
        let version = Version::parse(s).ok()?;
        let build = version.build.as_str();
        let release = if build.is_empty() || build.len() > 20 {
            Vec::new()
        } else {
            let parts: Option<Vec<semver::Prerelease>> = build
                .split('.')
                .map(|p| semver::Prerelease::new(p).ok())
                .collect();
            parts.unwrap_or_default()
        };
        Some(VersionRelease { version, release })
    }

    /// `VersionRelease.Compare`: the version by precedence, then the
    /// release (none below any).
    fn compare(&self, other: &VersionRelease) -> Ordering {
        precedence(&self.version, &other.version).then_with(|| {
            match (self.release.is_empty(), other.release.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                _ => {
                    let join = |r: &[semver::Prerelease]| {
                        let text: Vec<&str> = r.iter().map(|p| p.as_str()).collect();
                        semver::Prerelease::new(&text.join(".")).ok()
                    };
                    join(&self.release).cmp(&join(&other.release))
                }
            }
        })
    }
}

/// The bundle resolution chose, the catalog that offered it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub bundle: String,
    pub version: String,
    pub catalog: String,
    /// `None`: the installed bundle itself (no update).
    pub edge: Option<Edge>,
}

/// One resolution from `installed` (`None`: an install).
pub fn resolve(
    ext: &ClusterExtension,
    installed: Option<&InstalledBundle>,
    offers: &[Offer<'_>],
) -> Result<Choice, Stop> {
    let constraint = match &ext.version {
        Some(v) => Some(Constraint::parse(v).map_err(|e| {
            Stop::InvalidSpec(format!("desired version range {v:?} is invalid: {e}"))
        })?),
        None => None,
    };
    let installed_vr = match installed {
        Some(b) => Some(VersionRelease::parse(&b.version).ok_or_else(|| {
            Stop::NoUpdatePath(format!(
                "error finding upgrade edges: getting successorsPredicate: error parsing installed bundle version: {:?} is not a semantic version",
                b.version
            ))
        })?),
        None => None,
    };
    let from = installed.zip(installed_vr.as_ref());
    let mut found = offered(ext, offers, from, constraint.as_ref());
    if found.len() > 1 {
        found.sort_by_key(|f| std::cmp::Reverse(f.priority));
        if found[0].priority != found[1].priority {
            found.truncate(1);
        }
    }
    if found.len() != 1 {
        return Err(resolution_error(
            ext,
            installed,
            offers,
            &found,
            constraint.as_ref(),
        ));
    }
    let chosen = &found[0];
    Ok(Choice {
        bundle: chosen.name.to_string(),
        version: chosen.package.bundles[chosen.name]
            .version
            .clone()
            .unwrap_or_default(),
        catalog: chosen.catalog.to_string(),
        edge: edge_of(ext, chosen, from),
    })
}

/// Each catalog's best candidate, deprecated offers dropped when another
/// catalog offers a non-deprecated one (the walk of `Resolve`).
fn offered<'a>(
    ext: &ClusterExtension,
    offers: &[Offer<'a>],
    from: Option<(&InstalledBundle, &VersionRelease)>,
    constraint: Option<&Constraint>,
) -> Vec<Found<'a>> {
    let mut found: Vec<Found<'a>> = Vec::new();
    let mut prior_deprecated = false;
    for offer in offers {
        let Some(package) = offer.package.filter(|p| !is_empty(p)) else {
            continue;
        };
        let mut candidates = candidates(ext, package, from, constraint);
        if candidates.is_empty() {
            continue;
        }
        candidates.sort_by(|a, b| {
            let da = package.deprecated_bundles.contains(a.0);
            let db = package.deprecated_bundles.contains(b.0);
            da.cmp(&db).then_with(|| by_version(&b.1, &a.1))
        });
        let (name, vr) = candidates.swap_remove(0);
        let deprecated = package.deprecated_bundles.contains(name);
        if !found.is_empty() {
            if deprecated && !prior_deprecated {
                continue;
            }
            if !deprecated && prior_deprecated {
                found.clear();
            }
        }
        found.push(Found {
            name,
            version: vr,
            package,
            catalog: offer.catalog,
            priority: offer.priority,
        });
        prior_deprecated = deprecated;
    }
    found
}

/// A catalog's offer.
struct Found<'a> {
    name: &'a str,
    version: Option<VersionRelease>,
    package: &'a Package,
    catalog: &'a str,
    priority: i32,
}

/// `isFBCEmpty`: nothing of the package.
fn is_empty(p: &Package) -> bool {
    p.bundles.is_empty() && p.channels.is_empty() && p.deprecated_bundles.is_empty()
}

/// Highest first; a bundle without a version below every other
/// (`compare.ByVersionAndRelease`).
fn by_version(a: &Option<VersionRelease>, b: &Option<VersionRelease>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.compare(b),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => Ordering::Equal,
    }
}

/// The channels whose entries count: the listed ones (every one when none is).
fn channels<'p>(ext: &ClusterExtension, package: &'p Package) -> Vec<&'p [ChannelEntry]> {
    package
        .channels
        .iter()
        .filter(|(name, _)| ext.channels.is_empty() || ext.channels.contains(name))
        .map(|(_, entries)| entries.as_slice())
        .collect()
}

type Candidate<'p> = (&'p str, Option<VersionRelease>);

/// The package's bundles the predicates keep (`filterutil.And` of
/// `InAnyChannel`, `InSemverRange` and `SuccessorsOf`).
fn candidates<'p>(
    ext: &ClusterExtension,
    package: &'p Package,
    from: Option<(&InstalledBundle, &VersionRelease)>,
    constraint: Option<&Constraint>,
) -> Vec<Candidate<'p>> {
    let listed = channels(ext, package);
    let in_channels = |name: &str| listed.iter().any(|c| c.iter().any(|e| e.name == name));
    package
        .bundles
        .values()
        .map(|b| {
            let vr = b.version.as_deref().and_then(VersionRelease::parse);
            (b.name.as_str(), vr)
        })
        .filter(|(name, _)| ext.channels.is_empty() || in_channels(name))
        .filter(|(_, vr)| {
            constraint.is_none_or(|c| vr.as_ref().is_some_and(|v| c.contains(&v.version)))
        })
        .filter(|(name, vr)| match from {
            Some((installed, installed_vr)) if !ext.self_certified => {
                let same = vr
                    .as_ref()
                    .is_some_and(|v| v.compare(installed_vr) == Ordering::Equal);
                same || successor_edge(&listed, name, installed, installed_vr).is_some()
            }
            _ => true,
        })
        .collect()
}

/// The edge by which a channel entry named `name` succeeds `installed`
/// (`legacySuccessor`).
fn successor_edge(
    listed: &[&[ChannelEntry]],
    name: &str,
    installed: &InstalledBundle,
    installed_vr: &VersionRelease,
) -> Option<Edge> {
    listed
        .iter()
        .flat_map(|c| c.iter())
        .filter(|e| e.name == name)
        .find_map(|e| resolve::edge(e, &installed.name, Some(&installed_vr.version)))
}

fn edge_of(
    ext: &ClusterExtension,
    chosen: &Found<'_>,
    from: Option<(&InstalledBundle, &VersionRelease)>,
) -> Option<Edge> {
    let Some((installed, installed_vr)) = from else {
        return Some(Edge::Install);
    };
    let same = chosen
        .version
        .as_ref()
        .is_some_and(|v| v.compare(installed_vr) == Ordering::Equal);
    if same {
        return None;
    }
    if ext.self_certified {
        return Some(Edge::SelfCertified);
    }
    let listed = channels(ext, chosen.package);
    successor_edge(&listed, chosen.name, installed, installed_vr)
}

/// operator-controller's `resolutionError`, with the reason it stands for.
fn resolution_error(
    ext: &ClusterExtension,
    installed: Option<&InstalledBundle>,
    offers: &[Offer<'_>],
    found: &[Found<'_>],
    constraint: Option<&Constraint>,
) -> Stop {
    let mut text = String::new();
    if let Some(b) = installed {
        text.push_str(&format!(
            "error upgrading from currently installed version {:?}: ",
            b.version
        ));
    }
    if found.len() > 1 {
        text.push_str(&format!("found bundles for package {:?} ", ext.package));
    } else {
        text.push_str(&format!("no bundles found for package {:?} ", ext.package));
    }
    if let Some(v) = &ext.version {
        text.push_str(&format!("matching version {v:?} "));
    }
    if !ext.channels.is_empty() {
        text.push_str(&format!("in channels [{}] ", ext.channels.join(" ")));
    }
    if found.len() > 1 {
        let mut names: Vec<&str> = found.iter().map(|f| f.catalog).collect();
        names.sort_unstable();
        text.push_str(&format!(
            "in multiple catalogs with the same priority [{}] ",
            names.join(" ")
        ));
    }
    let message = text.trim().to_string();
    if found.len() > 1 {
        return Stop::CatalogsAtSamePriority(message);
    }
    let packages: Vec<&Package> = offers
        .iter()
        .filter_map(|o| o.package)
        .filter(|p| !is_empty(p))
        .collect();
    if packages.is_empty() {
        return Stop::PackageNotFound(message);
    }
    let has_channel = |p: &&Package| ext.channels.iter().any(|c| p.channels.contains_key(c));
    if !ext.channels.is_empty() && !packages.iter().any(has_channel) {
        return Stop::ChannelNotFound(message);
    }
    let vr = installed.and_then(|b| VersionRelease::parse(&b.version));
    let from = installed.zip(vr.as_ref());
    let without_version = packages
        .iter()
        .any(|p| !candidates(ext, p, from, None).is_empty());
    if constraint.is_some() && without_version {
        return Stop::VersionNotFound(message);
    }
    if installed.is_some() {
        return Stop::NoUpdatePath(message);
    }
    if ext.channels.is_empty() {
        Stop::PackageNotFound(message)
    } else {
        Stop::ChannelNotFound(message)
    }
}

/// A hop of the path and the catalog whose bundle it installs.
pub type CatalogHop = (Hop, String);

/// Every resolution from the installed bundle (an install when none),
/// each from the bundle the last one chose, until one chooses the bundle
/// installed (the head), `to`, or `max_hops`. The head is the bundle
/// installed when no resolution moves.
pub fn update_path(
    ext: &ClusterExtension,
    offers: &[Offer<'_>],
    to: Option<&str>,
    max_hops: usize,
) -> Result<(UpdatePath, Vec<String>), Stop> {
    let mut current = ext.installed.clone();
    let mut hops: Vec<Hop> = Vec::new();
    let mut catalogs: Vec<String> = Vec::new();
    let mut seen: BTreeSet<String> = current.iter().map(|b| b.name.clone()).collect();
    loop {
        let at = current.as_ref().map(|b| b.name.clone());
        let path = |end: End, hops: Vec<Hop>| UpdatePath {
            head: at.clone().unwrap_or_default(),
            hops,
            end,
        };
        if at.is_some() && at.as_deref() == to {
            return Ok((path(End::Target, hops), catalogs));
        }
        if hops.len() >= max_hops {
            return Ok((path(End::MaxHops, hops), catalogs));
        }
        let choice = resolve(ext, current.as_ref(), offers)?;
        let Some(edge) = choice
            .edge
            .filter(|_| at.as_deref() != Some(&choice.bundle))
        else {
            return Ok((path(End::Head, hops), catalogs));
        };
        if !seen.insert(choice.bundle.clone()) {
            return Ok((path(End::Head, hops), catalogs));
        }
        hops.push(Hop {
            from: at,
            to: choice.bundle.clone(),
            edge,
        });
        catalogs.push(choice.catalog.clone());
        current = Some(InstalledBundle {
            name: choice.bundle,
            version: choice.version,
        });
    }
}

#[cfg(test)]
mod tests;
