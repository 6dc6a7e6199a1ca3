//! OLM's update path for one Subscription, as the v0 resolver computes it
//! (operator-lifecycle-manager `pkg/controller/registry/resolver`:
//! `getSubscriptionVariables`, `sortChannel`, and the predicates of
//! `cache/predicates.go`), walked one hop at a time.
//!
//! The Subscription's channel (every channel when it names none: the
//! default channel first, then the others by name) is ordered from its
//! head down the replaces chain, skipped entries left out; a channel with
//! several heads or a cycle fails resolution. The candidates for the
//! installed CSV are the ordered entries that replace it, skip it, or whose
//! `skipRange` contains its version; the first whose required packages and
//! GVKs some bundle of the catalog provides wins. With nothing installed,
//! the first hop installs the `startingCSV`, or the head.
//!
//! Left to the caller: which catalog, and the images each hop pulls.

use std::collections::BTreeSet;

pub use semver::Version;
use serde::Serialize;

use super::catalog::{Bundle, Catalog, ChannelEntry, Package};
use super::range::Range;
use super::requirement::unparsable_requirement;

/// What the resolver is asked.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The Subscription's name, for the resolver's messages.
    pub subscription: &'a str,
    /// `namespace/name` of the CatalogSource, for the resolver's messages.
    pub catalog: &'a str,
    pub package: &'a str,
    pub channel: Option<&'a str>,
    /// The installed CSV and its version (`spec.version` of the CSV, else the catalog's).
    pub installed: Option<(&'a str, Option<Version>)>,
    pub starting_csv: Option<&'a str>,
    /// Stop once this CSV is reached.
    pub to: Option<&'a str>,
    pub max_hops: usize,
}

/// Why OLM cannot resolve the Subscription.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "reason", content = "message")]
pub enum Stop {
    PackageNotFound(String),
    ChannelNotFound(String),
    #[serde(rename = "startingCSVNotFound")]
    StartingCsvNotFound(String),
    InvalidChannel(String),
    NoUpdatePath(String),
    UnsatisfiedDependency(String),
    /// OLM v1: a version constraint no bundle of the package satisfies.
    VersionNotFound(String),
    /// OLM v1: the best bundle is offered by several catalogs of the same priority.
    CatalogsAtSamePriority(String),
    /// OLM v1: a ClusterExtension's version constraint or catalog selector
    /// operator-controller cannot parse.
    InvalidSpec(String),
    /// OLM v0: a CatalogSource the namespace resolves over cannot be
    /// listed, which fails the resolution of every Subscription of the
    /// namespace (the condition `ResolutionFailed`, reason
    /// `ErrorPreventedResolution`).
    ErrorPreventedResolution(String),
    /// OLM v0: the namespace has no OperatorGroup or several, so the
    /// catalog operator resolves nothing in it.
    OperatorGroupCount(String),
    /// OLM v0: the Subscription's InstallPlan failed before its CSV was
    /// created, and OLM does not resolve the Subscription again while it
    /// points at that plan.
    InstallPlanFailed(String),
}

impl Stop {
    /// The reason code of the verdict.
    pub fn reason(&self) -> &'static str {
        match self {
            Stop::PackageNotFound(_) => "packageNotFound",
            Stop::ChannelNotFound(_) => "channelNotFound",
            Stop::StartingCsvNotFound(_) => "startingCSVNotFound",
            Stop::InvalidChannel(_) => "invalidChannel",
            Stop::NoUpdatePath(_) => "noUpdatePath",
            Stop::UnsatisfiedDependency(_) => "unsatisfiedDependency",
            Stop::VersionNotFound(_) => "versionNotFound",
            Stop::CatalogsAtSamePriority(_) => "catalogsAtSamePriority",
            Stop::InvalidSpec(_) => "invalidSpec",
            Stop::ErrorPreventedResolution(_) => "errorPreventedResolution",
            Stop::OperatorGroupCount(_) => "operatorGroupCount",
            Stop::InstallPlanFailed(_) => "installPlanFailed",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Stop::PackageNotFound(m)
            | Stop::ChannelNotFound(m)
            | Stop::StartingCsvNotFound(m)
            | Stop::InvalidChannel(m)
            | Stop::NoUpdatePath(m)
            | Stop::UnsatisfiedDependency(m)
            | Stop::VersionNotFound(m)
            | Stop::CatalogsAtSamePriority(m)
            | Stop::InvalidSpec(m)
            | Stop::ErrorPreventedResolution(m)
            | Stop::OperatorGroupCount(m)
            | Stop::InstallPlanFailed(m) => m,
        }
    }
}

/// Why a hop goes to its CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Edge {
    /// Nothing installed: the channel head, or the startingCSV.
    Install,
    Replaces,
    Skips,
    SkipRange,
    /// A pending InstallPlan installs it (hop 1 only).
    InstallPlan,
    /// OLM v1 with `upgradeConstraintPolicy: SelfCertified`: any version
    /// the constraint allows, with no edge of the catalog.
    SelfCertified,
}

/// One step of the update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    pub from: Option<String>,
    pub to: String,
    pub edge: Edge,
}

/// How the walk ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum End {
    /// At the channel head.
    Head,
    /// At `--to`.
    Target,
    /// After `--max-hops` hops.
    MaxHops,
}

/// The update path from the installed CSV.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePath {
    pub head: String,
    pub hops: Vec<Hop>,
    pub end: End,
}

/// The update path for `req` over `catalog`.
pub fn update_path(catalog: &Catalog, req: &Request<'_>) -> Result<UpdatePath, Stop> {
    let package = find_package(catalog, req)?;
    let ordered = ordered_entries(package, req)?;
    let head = ordered.first().map(|e| e.name.clone()).ok_or_else(|| {
        Stop::InvalidChannel(format!(
            "found no replacement chains in channel {:?} of package {:?}",
            req.channel.unwrap_or_default(),
            req.package
        ))
    })?;
    let mut hops = Vec::new();
    let mut current = match req.installed.clone() {
        Some((name, version)) => (name.to_string(), version),
        None => {
            let first = first_install(catalog, package, &ordered, req)?;
            hops.push(Hop {
                from: None,
                to: first.clone(),
                edge: Edge::Install,
            });
            let version = version_of(package, &first);
            (first, version)
        }
    };
    let mut seen = BTreeSet::from([current.0.clone()]);
    loop {
        if req.to == Some(current.0.as_str()) {
            return Ok(UpdatePath {
                head,
                hops,
                end: End::Target,
            });
        }
        if hops.len() >= req.max_hops {
            return Ok(UpdatePath {
                head,
                hops,
                end: End::MaxHops,
            });
        }
        let Some((next, edge)) = next_hop(catalog, package, &ordered, &current, req)? else {
            if current.0 == head {
                return Ok(UpdatePath {
                    head,
                    hops,
                    end: End::Head,
                });
            }
            return Err(no_update_path(req, &current.0, &head));
        };
        if !seen.insert(next.clone()) {
            return Err(Stop::InvalidChannel(format!(
                "the update path from {:?} comes back to {next:?} in package {:?}",
                current.0, req.package
            )));
        }
        hops.push(Hop {
            from: Some(current.0.clone()),
            to: next.clone(),
            edge,
        });
        let version = version_of(package, &next);
        current = (next, version);
    }
}

fn no_update_path(req: &Request<'_>, installed: &str, head: &str) -> Stop {
    Stop::NoUpdatePath(format!(
        "the catalog {} has no update path from {installed} in package {} (head {head}): no entry replaces or skips it, nor has a skipRange containing its version; mirror the package with minVersion at or below {installed}'s version",
        req.catalog, req.package
    ))
}

fn find_package<'c>(catalog: &'c Catalog, req: &Request<'_>) -> Result<&'c Package, Stop> {
    if catalog.packages.values().all(|p| p.bundles.is_empty()) && catalog.providers.is_empty() {
        return Err(Stop::PackageNotFound(format!(
            "no operators found from catalog {} referenced by subscription {}",
            req.catalog, req.subscription
        )));
    }
    match catalog.packages.get(req.package) {
        Some(p) if !p.bundles.is_empty() => Ok(p),
        _ => Err(Stop::PackageNotFound(format!(
            "no operators found in package {} in the catalog referenced by subscription {}",
            req.package, req.subscription
        ))),
    }
}

/// The channel's entries (every channel's, default first) ordered by [`sort_channel`].
fn ordered_entries<'p>(
    package: &'p Package,
    req: &Request<'_>,
) -> Result<Vec<&'p ChannelEntry>, Stop> {
    let channels: Vec<&String> = match req.channel {
        Some(c) => {
            let found = package.channels.get_key_value(c).map(|(k, _)| k);
            vec![found.ok_or_else(|| Stop::ChannelNotFound(format!(
                "no operators found in channel {c} of package {} in the catalog referenced by subscription {}",
                req.package, req.subscription
            )))?]
        }
        None => {
            let default = package.default_channel.as_deref();
            let mut all: Vec<&String> = package.channels.keys().collect();
            all.sort_by_key(|c| (Some(c.as_str()) != default, c.as_str()));
            all
        }
    };
    let mut ordered = Vec::new();
    for c in channels {
        let sorted =
            sort_channel(&package.channels[c], &package.name, c).map_err(Stop::InvalidChannel)?;
        ordered.extend(sorted);
    }
    Ok(ordered)
}

/// A channel's entries from the head down the replaces chain, skipped
/// entries left out; OLM's `sortChannel`, with its messages.
pub fn sort_channel<'e>(
    entries: &'e [ChannelEntry],
    package: &str,
    channel: &str,
) -> Result<Vec<&'e ChannelEntry>, String> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let index = |name: &str| entries.iter().rposition(|e| e.name == name);
    let mut replaced_by = vec![false; entries.len()];
    let mut replaces: Vec<Option<usize>> = vec![None; entries.len()];
    let mut skipped = BTreeSet::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(r) = e.replaces.as_deref().and_then(index) {
            replaced_by[r] = true;
            replaces[i] = Some(r);
        }
        for s in &e.skips {
            if let Some(r) = index(s) {
                replaced_by[r] = true;
                skipped.insert(s.as_str());
            }
        }
    }
    let heads: Vec<usize> = (0..entries.len()).filter(|&i| !replaced_by[i]).collect();
    if heads.is_empty() {
        return Err(format!("no channel heads (entries not replaced by another entry) found in channel {channel:?} of package {package:?}"));
    }
    let mut chains = Vec::new();
    for &head in &heads {
        let mut chain = Vec::new();
        let mut visited = BTreeSet::new();
        let mut current = head;
        loop {
            visited.insert(current);
            if !skipped.contains(entries[current].name.as_str()) {
                chain.push(&entries[current]);
            }
            let Some(next) = replaces[current] else { break };
            if visited.contains(&next) {
                return Err(format!("a cycle exists in the chain of replacement beginning with {:?} in channel {channel:?} of package {package:?}", entries[head].name));
            }
            current = next;
        }
        chains.push(chain);
    }
    if chains.len() > 1 {
        let named: Vec<String> = chains
            .iter()
            .map(|c| match c.as_slice() {
                [] => "[]".to_string(),
                [one] => one.name.clone(),
                [first, .., last] => format!("{}...{}", first.name, last.name),
            })
            .collect();
        return Err(format!("a unique replacement chain within a channel is required to determine the relative order between channel entries, but {} replacement chains were found in channel {channel:?} of package {package:?}: {}", named.len(), named.join(", ")));
    }
    Ok(chains.pop().unwrap_or_default())
}

fn first_install(
    catalog: &Catalog,
    package: &Package,
    ordered: &[&ChannelEntry],
    req: &Request<'_>,
) -> Result<String, Stop> {
    let first = first_install_candidate(package, ordered, req)?;
    // The startingCSV alone is a candidate, else every bundle of the
    // channel's order.
    let candidates: Vec<(&str, Edge)> = match req.starting_csv {
        Some(_) => vec![(first.as_str(), Edge::Install)],
        None => ordered
            .iter()
            .map(|e| (e.name.as_str(), Edge::Install))
            .collect(),
    };
    let what = (
        "to install",
        "OLM's resolution fails (the Subscription's condition ResolutionFailed, reason ConstraintsNotSatisfiable)",
    );
    let chosen = choose(catalog, package, &candidates, what, req)?;
    Ok(chosen.map_or(first, |(name, _)| name))
}

fn first_install_candidate(
    package: &Package,
    ordered: &[&ChannelEntry],
    req: &Request<'_>,
) -> Result<String, Stop> {
    match req.starting_csv {
        Some(csv) if ordered.iter().any(|e| e.name == csv) => Ok(csv.to_string()),
        // An entry left out of the order (skipped) is still a bundle of the channel.
        Some(csv) if in_channels(package, req.channel, csv) => Ok(csv.to_string()),
        Some(csv) => Err(Stop::StartingCsvNotFound(format!(
            "no operators found with name {csv} in channel {} of package {} in the catalog referenced by subscription {}",
            req.channel.unwrap_or_default(), req.package, req.subscription
        ))),
        None => Ok(ordered[0].name.clone()),
    }
}

fn in_channels(package: &Package, channel: Option<&str>, csv: &str) -> bool {
    package
        .channels
        .iter()
        .filter(|(c, _)| channel.is_none_or(|want| want == c.as_str()))
        .any(|(_, entries)| entries.iter().any(|e| e.name == csv))
}

/// The bundle's version, as OLM reads it (`olm.package`), when it is semver.
pub fn version_of(package: &Package, csv: &str) -> Option<Version> {
    let v = package.bundles.get(csv)?.version.as_deref()?;
    Version::parse(v).ok()
}

/// The next CSV from `current`, and the edge that leads there.
fn next_hop(
    catalog: &Catalog,
    package: &Package,
    ordered: &[&ChannelEntry],
    current: &(String, Option<Version>),
    req: &Request<'_>,
) -> Result<Option<(String, Edge)>, Stop> {
    let (name, version) = current;
    let candidates: Vec<(&str, Edge)> = ordered
        .iter()
        .filter(|e| e.name != *name)
        .filter_map(|e| edge(e, name, version.as_ref()).map(|k| (e.name.as_str(), k)))
        .collect();
    choose(
        catalog,
        package,
        &candidates,
        (
            &format!("to replace {name}"),
            &format!("OLM keeps {name} (its solver falls back to the installed CSV: no InstallPlan, no error shown)"),
        ),
        req,
    )
}

/// The first of `candidates` whose dependencies the catalogs satisfy, as
/// the solver prefers them; none when there is no candidate. The resolver
/// makes a variable of every candidate, and of every provider of their
/// requirements, before choosing one: a range among them that does not
/// parse fails the namespace's resolution (`getBundleVariables`).
fn choose(
    catalog: &Catalog,
    package: &Package,
    candidates: &[(&str, Edge)],
    (what, effect): (&str, &str),
    req: &Request<'_>,
) -> Result<Option<(String, Edge)>, Stop> {
    let bundles = || {
        candidates
            .iter()
            .filter_map(|(c, _)| package.bundles.get(*c))
    };
    let roots = bundles().map(|b| {
        let (packages, gvks) = (&b.required_packages[..], &b.required_gvks[..]);
        (b.package.as_str(), packages, gvks)
    });
    let unparsable = bundles()
        .find_map(unparsable_requirement)
        .or_else(|| super::requirement::unparsable_among_providers(&catalog.providers, roots));
    if let Some(e) = unparsable {
        return Err(Stop::ErrorPreventedResolution(e));
    }
    let mut unsatisfied = Vec::new();
    for (candidate, kind) in candidates {
        match package.bundles.get(*candidate) {
            Some(b) => match unsatisfied_requirement(catalog, b) {
                None => return Ok(Some((candidate.to_string(), *kind))),
                Some(why) => unsatisfied.push(format!("{candidate}: {why}")),
            },
            None => unsatisfied.push(format!(
                "{candidate}: no olm.bundle of that name in package {}",
                req.package
            )),
        }
    }
    if unsatisfied.is_empty() {
        return Ok(None);
    }
    Err(Stop::UnsatisfiedDependency(format!(
        "no candidate {what} has its dependencies in the catalogs, so {effect}: {}",
        unsatisfied.join("; ")
    )))
}

/// Why the solver cannot install `bundle` over the catalogs' providers
/// ([`super::requirement::unsatisfiable`]).
fn unsatisfied_requirement(catalog: &Catalog, bundle: &Bundle) -> Option<String> {
    super::requirement::unsatisfiable(
        &catalog.providers,
        &bundle.package,
        &bundle.required_packages,
        &bundle.required_gvks,
    )
}

/// Why `entry` is a candidate for `installed`: `ReplacesPredicate` (replaces or skips) or `SkipRangeIncludesPredicate`.
pub(crate) fn edge(
    entry: &ChannelEntry,
    installed: &str,
    version: Option<&Version>,
) -> Option<Edge> {
    if entry.replaces.as_deref() == Some(installed) {
        return Some(Edge::Replaces);
    }
    if entry.skips.iter().any(|s| s == installed) {
        return Some(Edge::Skips);
    }
    // A skipRange OLM cannot parse is no skipRange (source_registry.go).
    let range = entry
        .skip_range
        .as_deref()
        .and_then(|r| Range::parse(r).ok())?;
    version
        .filter(|v| range.contains(v))
        .map(|_| Edge::SkipRange)
}

#[cfg(test)]
mod tests;
