//! The bundles OLM installs with a hop's bundle: for each of its
//! `olm.package.required` and `olm.gvk.required`, the first bundle of
//! another package that satisfies it, in the order the v0 resolver offers
//! them to the solver (operator-lifecycle-manager
//! `pkg/controller/registry/resolver/resolver.go`: `getBundleVariables`
//! sorts the candidates with `sortBundles`, the default channel first, then
//! by package and channel name, each channel from its head down the
//! replaces chain; the dependency predicate filters after sorting, and
//! `solver.Dependency` prefers the first). Dependencies of dependencies
//! follow, as the resolver's bundle stack does.
//!
//! Only the catalog of the Subscription is read, and a dependency already
//! installed in the namespace is not looked for: OLM would keep it.

use std::collections::BTreeSet;

use super::catalog::{Bundle, Catalog, Gvk, RequiredPackage};
use super::range::Range;
use super::resolve::{sort_channel, Version};

/// One requirement of a bundle.
enum Requirement<'b> {
    Package(&'b RequiredPackage, Option<Range>),
    Gvk(&'b Gvk),
}

fn requirements(bundle: &Bundle) -> Vec<Requirement<'_>> {
    requirements_of(&bundle.required_packages, &bundle.required_gvks)
}

fn requirements_of<'b>(packages: &'b [RequiredPackage], gvks: &'b [Gvk]) -> Vec<Requirement<'b>> {
    let packages = packages.iter().map(|r| {
        let range = Some(r.version_range.as_str())
            .filter(|v| !v.is_empty())
            .and_then(|v| Range::parse(v).ok());
        Requirement::Package(r, range)
    });
    let gvks = gvks.iter().map(Requirement::Gvk);
    packages.chain(gvks).collect()
}

/// Whether a bundle of `package`, at `version` and providing `gvks`, satisfies `req`.
fn satisfies(req: &Requirement<'_>, package: &str, version: Option<&str>, gvks: &[Gvk]) -> bool {
    match req {
        Requirement::Package(r, range) => {
            r.package_name == package
                && range.as_ref().is_none_or(|range| {
                    version
                        .and_then(|v| Version::parse(v).ok())
                        .is_some_and(|v| range.contains(&v))
                })
        }
        Requirement::Gvk(g) => gvks.contains(g),
    }
}

/// The packages (not read in full) whose bundles may satisfy a
/// requirement of a bundle read in full, and so on for theirs: all of them
/// at once, from the index of every bundle's provided and required APIs
/// ([`Catalog::providers`]), so one more read of the catalog gives
/// [`dependencies`] all it needs.
pub fn packages_to_read(catalog: &Catalog) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut pending: Vec<(&str, Vec<Requirement<'_>>)> = catalog
        .packages
        .values()
        .flat_map(|p| p.bundles.values())
        .map(|b| (b.package.as_str(), requirements(b)))
        .collect();
    while let Some((package, reqs)) = pending.pop() {
        for req in &reqs {
            let providers = catalog.providers.iter().filter(|p| {
                p.package != package && satisfies(req, &p.package, p.version.as_deref(), &p.gvks)
            });
            for p in providers {
                if catalog.packages.contains_key(&p.package) || !out.insert(p.package.clone()) {
                    continue;
                }
                let bundles = catalog.providers.iter().filter(|q| q.package == p.package);
                pending.extend(bundles.map(|q| {
                    let reqs = requirements_of(&q.required_packages, &q.required_gvks);
                    (q.package.as_str(), reqs)
                }));
            }
        }
    }
    out
}

/// The bundles of the catalog in `sortBundles`' order: each package's
/// default channel first, then by package and channel name, each channel
/// from its head (a channel OLM cannot order is left out).
fn preference(catalog: &Catalog) -> Vec<&Bundle> {
    let mut channels: Vec<(bool, &str, &str)> = catalog
        .packages
        .values()
        .flat_map(|p| {
            p.channels.keys().map(move |c| {
                let default = p.default_channel.as_deref() == Some(c.as_str());
                (!default, p.name.as_str(), c.as_str())
            })
        })
        .collect();
    channels.sort();
    let mut out = Vec::new();
    for (_, package, channel) in channels {
        let p = &catalog.packages[package];
        let Ok(sorted) = sort_channel(&p.channels[channel], package, channel) else {
            continue;
        };
        out.extend(sorted.iter().filter_map(|e| p.bundles.get(&e.name)));
    }
    out
}

/// The bundles installed with `bundle`, dependencies of dependencies
/// included, each once, in the order they are found.
pub fn dependencies<'c>(catalog: &'c Catalog, bundle: &Bundle) -> Vec<&'c Bundle> {
    let order = preference(catalog);
    let mut found: Vec<&Bundle> = Vec::new();
    let mut seen = BTreeSet::from([bundle.name.clone()]);
    let mut stack = vec![bundle.clone()];
    while let Some(b) = stack.pop() {
        for req in requirements(&b) {
            let pick = order.iter().find(|c| {
                c.package != b.package
                    && satisfies(&req, &c.package, c.version.as_deref(), &c.provided_gvks)
            });
            if let Some(pick) = pick.filter(|p| seen.insert(p.name.clone())) {
                found.push(pick);
                stack.push((*pick).clone());
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::olm::catalog::read_file;

    const CATALOG: &str = r#"{"schema":"olm.package","name":"app","defaultChannel":"stable"}
{"schema":"olm.channel","package":"app","name":"stable","entries":[{"name":"app.v1"}]}
{"schema":"olm.bundle","name":"app.v1","package":"app","image":"q.io/app-bundle:1","properties":[
 {"type":"olm.package","value":{"packageName":"app","version":"1.0.0"}},
 {"type":"olm.package.required","value":{"packageName":"db","versionRange":"<2.0.0"}},
 {"type":"olm.gvk.required","value":{"group":"c.io","version":"v1","kind":"Cache"}}]}
{"schema":"olm.package","name":"db","defaultChannel":"stable"}
{"schema":"olm.channel","package":"db","name":"alpha","entries":[{"name":"db.v1.9.0"}]}
{"schema":"olm.channel","package":"db","name":"stable","entries":[{"name":"db.v1.0.0"},{"name":"db.v1.1.0","replaces":"db.v1.0.0"},{"name":"db.v2.0.0","replaces":"db.v1.1.0"}]}
{"schema":"olm.bundle","name":"db.v1.0.0","package":"db","image":"q.io/db-bundle:1.0","properties":[{"type":"olm.package","value":{"packageName":"db","version":"1.0.0"}}]}
{"schema":"olm.bundle","name":"db.v1.1.0","package":"db","image":"q.io/db-bundle:1.1","properties":[{"type":"olm.package","value":{"packageName":"db","version":"1.1.0"}},
 {"type":"olm.gvk.required","value":{"group":"l.io","version":"v1","kind":"Log"}}]}
{"schema":"olm.bundle","name":"db.v1.9.0","package":"db","image":"q.io/db-bundle:1.9","properties":[{"type":"olm.package","value":{"packageName":"db","version":"1.9.0"}}]}
{"schema":"olm.bundle","name":"db.v2.0.0","package":"db","image":"q.io/db-bundle:2","properties":[{"type":"olm.package","value":{"packageName":"db","version":"2.0.0"}}]}
{"schema":"olm.package","name":"cache"}
{"schema":"olm.channel","package":"cache","name":"a","entries":[{"name":"cache.v1"}]}
{"schema":"olm.bundle","name":"cache.v1","package":"cache","image":"q.io/cache-bundle:1","properties":[{"type":"olm.package","value":{"packageName":"cache","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"c.io","version":"v1","kind":"Cache"}}]}
{"schema":"olm.package","name":"log"}
{"schema":"olm.channel","package":"log","name":"a","entries":[{"name":"log.v1"}]}
{"schema":"olm.bundle","name":"log.v1","package":"log","image":"q.io/log-bundle:1","properties":[{"type":"olm.package","value":{"packageName":"log","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"l.io","version":"v1","kind":"Log"}}]}
"#;

    fn catalog(wanted: &[&str]) -> Catalog {
        let content = read_file("c.json", CATALOG, &|p| wanted.contains(&p)).unwrap();
        Catalog::assemble([content])
    }

    /// Every package a dependency may come from, at once: db.v1.1.0's own
    /// requirement (log) is known from the index before db is read in full.
    #[test]
    fn the_packages_to_read_for_the_dependencies() {
        let c = catalog(&["app"]);
        let got: Vec<String> = packages_to_read(&c).into_iter().collect();
        assert_eq!(got, ["cache", "db", "log"]);
        let c = catalog(&["app", "cache", "db"]);
        let got: Vec<String> = packages_to_read(&c).into_iter().collect();
        assert_eq!(got, ["log"], "db.v1.1.0's own requirement");
        assert!(packages_to_read(&catalog(&["app", "cache", "db", "log"])).is_empty());
        assert!(packages_to_read(&catalog(&["log"])).is_empty());
    }

    /// operator-lifecycle-manager `TestSolveOperators_PreferDefaultChannelInResolution`
    /// and `TestSolveOperators_FindLatestVersionWithDependencies`: the
    /// default channel's head-most bundle in range (db.v1.1.0, not the head
    /// db.v2.0.0 out of range, not db.v1.9.0 of channel alpha); and
    /// `TestSolveOperators_WithNestedGVKDependencies`: its own dependency.
    #[test]
    fn the_head_most_bundle_of_the_default_channel_in_range() {
        let c = catalog(&["app", "cache", "db", "log"]);
        let app = &c.packages["app"].bundles["app.v1"];
        let got: Vec<&str> = dependencies(&c, app)
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(got, ["db.v1.1.0", "cache.v1", "log.v1"]);
    }

    /// `TestSolveOperators_FindLatestVersionWithDependencies`: an exact
    /// version among 1.0.0, 1.0.1 and 1.0.2 of one channel.
    #[test]
    fn an_exact_version_required() {
        let text = r#"{"schema":"olm.package","name":"packageD","defaultChannel":"alpha"}
{"schema":"olm.channel","package":"packageD","name":"alpha","entries":[{"name":"packageD.v1.0.0"},{"name":"packageD.v1.0.1","replaces":"packageD.v1.0.0"},{"name":"packageD.v1.0.2","replaces":"packageD.v1.0.1"}]}
{"schema":"olm.bundle","name":"packageD.v1.0.0","package":"packageD","properties":[{"type":"olm.package","value":{"packageName":"packageD","version":"1.0.0"}}]}
{"schema":"olm.bundle","name":"packageD.v1.0.1","package":"packageD","properties":[{"type":"olm.package","value":{"packageName":"packageD","version":"1.0.1"}}]}
{"schema":"olm.bundle","name":"packageD.v1.0.2","package":"packageD","properties":[{"type":"olm.package","value":{"packageName":"packageD","version":"1.0.2"}}]}
{"schema":"olm.bundle","name":"another-package.v1.0.1","package":"another-package","properties":[{"type":"olm.package.required","value":{"packageName":"packageD","versionRange":"1.0.1"}}]}
"#;
        let c = Catalog::assemble([read_file("c.json", text, &|_| true).unwrap()]);
        let b = &c.packages["another-package"].bundles["another-package.v1.0.1"];
        let got: Vec<&str> = dependencies(&c, b)
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(got, ["packageD.v1.0.1"]);
    }
}
