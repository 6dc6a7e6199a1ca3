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
//! A requirement an operator installed in the Subscription's namespace
//! satisfies installs nothing: the resolver puts the namespace's CSVs in a
//! virtual catalog (`source_csvs.go`) whose entries are candidates of every
//! dependency, and the solver keeps the fewest bundles besides those
//! already chosen (`solver/solve.go`), so it keeps the installed one.
//!
//! A requirement the Subscription's catalog leaves unsatisfied is looked
//! for in the other CatalogSources the namespace sees, in the resolver's
//! order (`FindPreferred`, [`crate::olm::sources`]): the catalog of the
//! bundle that declares it first, then the others ([`missing`] says what to
//! look for, [`packages_for`] which packages of a catalog to read for it).

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::Value;

use super::catalog::{Bundle, Catalog, Gvk, Provider, RequiredPackage};
use super::objects::Subscription;
use super::requirement::{requirements, requirements_of, satisfies, Requirement, Satisfiable};
use super::resolve::sort_channel;

/// The packages (not read in full) whose bundles may satisfy a
/// requirement of a bundle read in full, and so on for theirs: all of them
/// at once, from the index of every bundle's provided and required APIs
/// ([`Catalog::providers`]), so one more read of the catalog gives
/// [`dependencies`] all it needs.
pub fn packages_to_read(catalog: &Catalog) -> BTreeSet<String> {
    let pending = catalog
        .packages
        .values()
        .flat_map(|p| p.bundles.values())
        .map(|b| (b.package.as_str(), requirements(b)))
        .collect();
    packages_providing(catalog, pending)
}

/// The packages of `catalog` (read for its index of providers alone) whose
/// bundles may satisfy a requirement of `requirers` (bundles of other
/// catalogs, with the requirements their own catalogs leave unsatisfied:
/// [`missing`]), and those their bundles require in turn.
pub fn packages_for(catalog: &Catalog, requirers: &[Provider]) -> BTreeSet<String> {
    let pending = requirers
        .iter()
        .map(|r| {
            let reqs = requirements_of(&r.required_packages, &r.required_gvks);
            (r.package.as_str(), reqs)
        })
        .collect();
    packages_providing(catalog, pending)
}

/// The requirements of the bundles read in full of `catalogs` that no
/// bundle of another package in any of them provides, or only bundles the
/// solver cannot install (their own requirements unmet there: another
/// catalog may offer one it can, `TestSolveOperators_IgnoreUnsatisfiableDependencies`);
/// an installed operator counts when a catalog is [`with_installed`]. Each
/// as its requiring bundle, with those requirements alone.
pub fn missing(catalogs: &[&Catalog]) -> Vec<Provider> {
    let mut solvable = Satisfiable::new(catalogs.iter().flat_map(|c| &c.providers));
    let bundles = catalogs
        .iter()
        .flat_map(|c| c.packages.values())
        .flat_map(|p| p.bundles.values());
    let mut out = Vec::new();
    for b in bundles {
        let mut requirer = provider(b.name.clone());
        requirer.package = b.package.clone();
        for req in requirements(b) {
            if solvable.requirement_unmet(&b.package, &req).is_none() {
                continue;
            }
            match req {
                Requirement::Package(r, _) => requirer.required_packages.push(r.clone()),
                Requirement::Gvk(g) => requirer.required_gvks.push(g.clone()),
            }
        }
        if !requirer.required_packages.is_empty() || !requirer.required_gvks.is_empty() {
            out.push(requirer);
        }
    }
    out
}

/// The packages of `catalog` not read in full whose bundles satisfy a
/// requirement of `pending`, and so on for theirs.
fn packages_providing<'a>(
    catalog: &'a Catalog,
    mut pending: Vec<(&'a str, Vec<Requirement<'a>>)>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
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

/// A catalog the resolver offers dependencies from: its CatalogSource
/// (`namespace/name`; `None` for a catalog image checked by itself) and
/// what was read of it.
#[derive(Debug, Clone, Copy)]
pub struct Source<'c> {
    pub name: Option<&'c str>,
    pub catalog: &'c Catalog,
}

/// A bundle OLM installs with another, and the catalog it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Dependency<'c> {
    pub catalog: Option<&'c str>,
    pub bundle: &'c Bundle,
}

/// What OLM does for the requirements of a bundle: the bundles it installs
/// with it, and the installed operators that satisfy the others.
#[derive(Debug, Default)]
pub struct Dependencies<'c, 'i> {
    pub bundles: Vec<Dependency<'c>>,
    pub installed: Vec<&'i Provider>,
}

/// The bundles installed with `bundle` of `sources[own]`, dependencies of
/// dependencies included, each once, in the order they are found; a
/// requirement one of the `installed` operators satisfies takes none (nor
/// its dependencies: they are installed with it). Each requirement's
/// candidates come from the catalog of the bundle that declares it first,
/// then from the other `sources` in their order (the resolver's, given by
/// [`crate::olm::sources::order`]).
pub fn dependencies<'c, 'i>(
    sources: &[Source<'c>],
    own: usize,
    bundle: &Bundle,
    installed: &'i [Provider],
) -> Dependencies<'c, 'i> {
    let orders: Vec<Vec<&'c Bundle>> = sources.iter().map(|s| preference(s.catalog)).collect();
    let providers = sources.iter().flat_map(|s| s.catalog.providers.iter());
    let mut solvable = Satisfiable::new(providers.chain(installed));
    let mut found = Dependencies::default();
    let mut seen = BTreeSet::from([bundle.name.clone()]);
    let mut stack = vec![(bundle.clone(), own)];
    while let Some((b, from)) = stack.pop() {
        for req in requirements(&b) {
            let kept = installed.iter().find(|i| {
                i.package != b.package && satisfies(&req, &i.package, i.version.as_deref(), &i.gvks)
            });
            if let Some(kept) = kept {
                if !found.installed.iter().any(|k| k.name == kept.name) {
                    found.installed.push(kept);
                }
                continue;
            }
            let catalogs = std::iter::once(from).chain((0..sources.len()).filter(|&i| i != from));
            let pick = catalogs
                .filter(|&i| i < orders.len())
                .flat_map(|i| orders[i].iter().map(move |c| (i, *c)))
                .find(|(_, c)| {
                    c.package != b.package
                        && satisfies(&req, &c.package, c.version.as_deref(), &c.provided_gvks)
                        && solvable.installable(c)
                });
            if let Some((i, pick)) = pick.filter(|(_, p)| seen.insert(p.name.clone())) {
                found.bundles.push(Dependency {
                    catalog: sources[i].name,
                    bundle: pick,
                });
                stack.push((pick.clone(), i));
            }
        }
    }
    found
}

/// The catalog whose index of providers holds the `installed` operators
/// too, as the resolver's cache holds the namespace's virtual catalog
/// beside the CatalogSources: a candidate whose requirement only an
/// installed operator satisfies is no `unsatisfiedDependency`.
pub fn with_installed<'c>(catalog: &'c Catalog, installed: &[Provider]) -> Cow<'c, Catalog> {
    if installed.is_empty() {
        return Cow::Borrowed(catalog);
    }
    let mut with = catalog.clone();
    with.providers.extend(installed.iter().cloned());
    Cow::Owned(with)
}

/// The annotation OLM projects a CSV's properties onto.
const PROPERTIES_ANNOTATION: &str = "operatorframework.io/properties";

/// The operators installed in `namespace` as the resolver's virtual
/// catalog holds them (operator-lifecycle-manager
/// `pkg/controller/registry/resolver/source_csvs.go`): every CSV of the
/// namespace but the copies OLM makes, with the properties of its
/// `operatorframework.io/properties` annotation; without one, the APIs its
/// owned CRDs and APIServices provide, and the package of the Subscription
/// whose `status.installedCSV` names it (when exactly one package does) at
/// its `spec.version`.
pub fn installed_operators(
    namespace: &str,
    csvs: &[&Value],
    subs: &[Subscription],
) -> Vec<Provider> {
    of_namespace(namespace, csvs)
        .map(|v| {
            let name = super::text(v, "/metadata/name").unwrap_or_default();
            match properties_annotation(v) {
                Some(a) => from_properties(name, a),
                None => inferred(name, v, namespace, subs),
            }
        })
        .collect()
}

/// The errors of the namespace's virtual catalog of installed operators:
/// each CSV of `namespace` (not a copy) whose `operatorframework.io/properties`
/// annotation OLM cannot read, which fails the snapshot of that catalog
/// (`source_csvs.go`: `failed to retrieve properties of csv %q: %w`, from
/// `projection.PropertyListFromPropertiesAnnotation`: `failed to
/// unmarshal properties annotation: %w`), and with it the namespace's
/// resolution. The annotation is read as Go's `encoding/json` reads it into
/// `{properties: [{type: string, value: raw}]}`: invalid JSON, or a field
/// of another type, fails; `null` anywhere is no error.
pub fn unreadable_properties(namespace: &str, csvs: &[&Value]) -> Vec<String> {
    of_namespace(namespace, csvs)
        .filter_map(|v| {
            let why = annotation_error(properties_annotation(v)?)?;
            let name = super::text(v, "/metadata/name").unwrap_or_default();
            Some(format!(
                "failed to retrieve properties of csv {name:?}: failed to unmarshal properties annotation: {why}"
            ))
        })
        .collect()
}

/// The error OLM's resolver returns first for the installed operators of
/// `namespace` (`Resolve` makes variables of them before anything else,
/// and `getBundleVariables` stops at an `olm.package.required` whose
/// `versionRange` blang cannot parse, [`crate::olm::requirement::required_range`]):
/// blang's words, then the CSV and property. Read from the CSVs'
/// `operatorframework.io/properties` annotations (a CSV without one has
/// no package requirement; one OLM cannot read is [`unreadable_properties`]).
pub fn unparsable_installed(namespace: &str, csvs: &[&Value]) -> Option<String> {
    of_namespace(namespace, csvs).find_map(|v| {
        let annotation = properties_annotation(v)?;
        let props: Value = serde_json::from_str(annotation).ok()?;
        let name = super::text(v, "/metadata/name").unwrap_or_default();
        let items = props.get("properties")?.as_array()?;
        items
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("olm.package.required"))
            .find_map(|p| {
                let value = p.get("value")?;
                let field = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
                let required = RequiredPackage {
                    package_name: field("packageName").to_string(),
                    version_range: field("versionRange").to_string(),
                };
                let e = crate::olm::requirement::required_range(&required).err()?;
                Some(format!(
                    "{e} (installed CSV {name}: olm.package.required {} versionRange {:?})",
                    required.package_name, required.version_range
                ))
            })
    })
}

/// The CSVs of `namespace` the resolver's virtual catalog holds: not the
/// copies OLM makes of them (`source_csvs.go`).
fn of_namespace<'v>(namespace: &'v str, csvs: &'v [&'v Value]) -> impl Iterator<Item = &'v Value> {
    csvs.iter()
        .copied()
        .filter(move |v| super::text(v, "/metadata/namespace").as_deref() == Some(namespace))
        .filter(|v| !crate::objects::workload::is_olm_copy(v))
}

/// The `operatorframework.io/properties` annotation of a CSV, when it has one.
fn properties_annotation(v: &Value) -> Option<&str> {
    v.pointer("/metadata/annotations")
        .and_then(|a| a.get(PROPERTIES_ANNOTATION))
        .and_then(Value::as_str)
}

/// Why OLM cannot read `annotation`, when it cannot: Go's `encoding/json`
/// into `propertiesAnnotation` (`{properties: [{type: string, value:
/// raw}]}`), whose field names match in any case.
fn annotation_error(annotation: &str) -> Option<String> {
    let value: Value = match serde_json::from_str(annotation) {
        Ok(v) => v,
        Err(e) => return Some(e.to_string()),
    };
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let refused = |v: &Value, into: &str| Some(format!("cannot unmarshal {} into {into}", kind(v)));
    let field = |o: &serde_json::Map<String, Value>, name: &str| {
        o.get(name)
            .or_else(|| {
                o.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v)
            })
            .cloned()
            .unwrap_or(Value::Null)
    };
    let object = match &value {
        Value::Null => return None,
        Value::Object(o) => o,
        other => return refused(other, "the annotation (an object)"),
    };
    let items = match field(object, "properties") {
        Value::Null => return None,
        Value::Array(items) => items,
        other => return refused(&other, "properties (an array)"),
    };
    for item in &items {
        match item {
            Value::Null => {}
            Value::Object(p) => match field(p, "type") {
                Value::Null | Value::String(_) => {}
                other => return refused(&other, "a property's type (a string)"),
            },
            other => return refused(other, "a property (an object)"),
        }
    }
    None
}

/// An installed operator of the properties annotation (`{"properties":[...]}`);
/// one OLM cannot read has none (and fails the namespace's resolution:
/// [`unreadable_properties`]).
fn from_properties(name: String, annotation: &str) -> Provider {
    let mut p = provider(name);
    let props: Value = serde_json::from_str(annotation).unwrap_or_default();
    for prop in props
        .get("properties")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let value = prop.get("value").cloned().unwrap_or_default();
        match prop.get("type").and_then(Value::as_str) {
            Some("olm.package") => {
                let s = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_string);
                p.package = s("packageName").unwrap_or_default();
                p.version = s("version").filter(|v| !v.is_empty());
            }
            Some("olm.gvk") => p.gvks.extend(serde_json::from_value::<Gvk>(value).ok()),
            _ => {}
        }
    }
    p
}

/// An installed operator without the annotation: `inferProperties` and
/// `newEntryFromV1Alpha1CSV`.
fn inferred(name: String, v: &Value, namespace: &str, subs: &[Subscription]) -> Provider {
    let mut p = provider(name);
    let owned = |path: &str| {
        v.pointer(path)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let s = |o: &Value, k: &str| {
        o.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    for crd in owned("/spec/customresourcedefinitions/owned") {
        if let Some((_, group)) = s(&crd, "name").split_once('.') {
            p.gvks.push(Gvk {
                group: group.to_string(),
                version: s(&crd, "version"),
                kind: s(&crd, "kind"),
            });
        }
    }
    for api in owned("/spec/apiservicedefinitions/owned") {
        p.gvks.push(Gvk {
            group: s(&api, "group"),
            version: s(&api, "version"),
            kind: s(&api, "kind"),
        });
    }
    let packages: BTreeSet<&str> = subs
        .iter()
        .filter(|s| s.namespace == namespace && s.installed_csv.as_deref() == Some(&p.name))
        .map(|s| s.package.as_str())
        .filter(|pkg| !pkg.is_empty())
        .collect();
    if let [package] = packages.into_iter().collect::<Vec<_>>()[..] {
        p.package = package.to_string();
        p.version = v
            .pointer("/spec/version")
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty() && *v != "0.0.0")
            .map(str::to_string);
    }
    p
}

fn provider(name: String) -> Provider {
    Provider {
        package: String::new(),
        name,
        version: None,
        gvks: Vec::new(),
        required_packages: Vec::new(),
        required_gvks: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::olm::catalog::read_file;
    use crate::olm::requirement::{unparsable_among_providers, unsatisfiable};

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

    fn one(c: &Catalog) -> [Source<'_>; 1] {
        [Source {
            name: None,
            catalog: c,
        }]
    }

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
        let got: Vec<&str> = dependencies(&one(&c), 0, app, &[])
            .bundles
            .iter()
            .map(|d| d.bundle.name.as_str())
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
        let got: Vec<&str> = dependencies(&one(&c), 0, b, &[])
            .bundles
            .iter()
            .map(|d| d.bundle.name.as_str())
            .collect();
        assert_eq!(got, ["packageD.v1.0.1"]);
    }

    /// resolver.go `newPackageRequiredPredicate`, the same function
    /// [`crate::olm::resolve`] uses: a versionRange blang cannot parse,
    /// empty included, is an error (which fails resolution), never "any
    /// version": no bundle is picked for it.
    #[test]
    fn an_unparsable_range_picks_no_bundle() {
        for (range, want) in [
            ("1.0.1", Some("packageD.v1.0.1")),
            ("", None),
            ("1.0", None),
            ("latest", None),
        ] {
            let text = format!(
                r#"{{"schema":"olm.package","name":"packageD","defaultChannel":"alpha"}}
{{"schema":"olm.channel","package":"packageD","name":"alpha","entries":[{{"name":"packageD.v1.0.1"}}]}}
{{"schema":"olm.bundle","name":"packageD.v1.0.1","package":"packageD","properties":[{{"type":"olm.package","value":{{"packageName":"packageD","version":"1.0.1"}}}}]}}
{{"schema":"olm.bundle","name":"a.v1","package":"a","properties":[{{"type":"olm.package.required","value":{{"packageName":"packageD","versionRange":"{range}"}}}}]}}
"#
            );
            let c = Catalog::assemble([read_file("c.json", &text, &|_| true).unwrap()]);
            let b = &c.packages["a"].bundles["a.v1"];
            let got = dependencies(&one(&c), 0, b, &[]);
            let got = got.bundles.first().map(|d| d.bundle.name.as_str());
            assert_eq!(got, want, "{range:?}");
            assert_eq!(
                crate::olm::requirement::unparsable_requirement(b).is_some(),
                want.is_none(),
                "{range:?}"
            );
        }
    }

    fn names<'c>(d: &Dependencies<'c, '_>) -> (Vec<&'c str>, Vec<String>) {
        let bundles = d.bundles.iter().map(|b| b.bundle.name.as_str()).collect();
        let installed = d.installed.iter().map(|p| p.name.clone()).collect();
        (bundles, installed)
    }

    fn csv(name: &str, extra: Value) -> Value {
        let mut v = serde_json::json!({
            "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "namespace": "olm"},
            "spec": {"version": "1.0.0"}
        });
        merge(&mut v, extra);
        v
    }

    fn merge(into: &mut Value, from: Value) {
        match (into, from) {
            (Value::Object(a), Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k).or_insert(Value::Null), v);
                }
            }
            (_, Value::Null) => {}
            (a, b) => *a = b,
        }
    }

    fn sub(package: &str, installed: &str) -> Subscription {
        Subscription {
            namespace: "olm".into(),
            name: package.into(),
            package: package.into(),
            channel: None,
            source: "community".into(),
            source_namespace: "olm".into(),
            starting_csv: None,
            approval: "Automatic".into(),
            installed_csv: Some(installed.into()),
            current_csv: None,
            state: None,
            install_plan: None,
        }
    }

    /// A case: its name, the namespace's CSVs and Subscriptions, the
    /// bundles installed with app.v1 and the installed operators kept.
    type Case = (
        &'static str,
        Vec<Value>,
        Vec<Subscription>,
        Vec<&'static str>,
        Vec<&'static str>,
    );

    /// operator-lifecycle-manager: which installed operator satisfies a
    /// requirement, so that no bundle is installed for it.
    #[test]
    fn a_requirement_an_installed_operator_satisfies() {
        let c = catalog(&["app", "cache", "db", "log"]);
        let app = &c.packages["app"].bundles["app.v1"];
        let owns_cache = serde_json::json!({"spec": {"customresourcedefinitions": {"owned": [
            {"name": "caches.c.io", "version": "v1", "kind": "Cache"}]}}});
        let db_annotation = serde_json::json!({"metadata": {"annotations": {PROPERTIES_ANNOTATION:
            r#"{"properties":[{"type":"olm.package","value":{"packageName":"db","version":"1.0.0"}}]}"#}}});
        let db_too_new = serde_json::json!({"metadata": {"annotations": {PROPERTIES_ANNOTATION:
            r#"{"properties":[{"type":"olm.package","value":{"packageName":"db","version":"2.0.0"}}]}"#}}});
        let copied = serde_json::json!({"metadata": {"labels": {"olm.copiedFrom": "other"}}, "spec": {"customresourcedefinitions": {"owned": [
            {"name": "caches.c.io", "version": "v1", "kind": "Cache"}]}}});
        let cases: Vec<Case> = vec![
            // TestSolveOperators_WithGVKDependencies: an installed operator
            // that provides nothing leaves the catalog's bundles.
            (
                "nothing provided",
                vec![csv("other.v1", Value::Null)],
                vec![sub("other", "other.v1")],
                vec!["db.v1.1.0", "cache.v1", "log.v1"],
                vec![],
            ),
            // TestSolveOperators_SubscriptionlessOperatorsSatisfyDependencies:
            // a CSV without a Subscription providing the GVK.
            (
                "gvk by a CSV without Subscription",
                vec![csv("cache.v0", owns_cache.clone())],
                vec![],
                vec!["db.v1.1.0", "log.v1"],
                vec!["cache.v0"],
            ),
            // TestSolveOperatorsWithClusterServiceVersionHavingDependency:
            // the package in range, from the properties annotation; the
            // dependency's own requirement (log) is not looked for.
            (
                "package in range",
                vec![csv("db.v1.0.0", db_annotation)],
                vec![],
                vec!["cache.v1"],
                vec!["db.v1.0.0"],
            ),
            (
                "package out of range",
                vec![csv("db.v2.0.0", db_too_new)],
                vec![],
                vec!["db.v1.1.0", "cache.v1", "log.v1"],
                vec![],
            ),
            // inferProperties: the package of the Subscription that installed it.
            (
                "package of the Subscription",
                vec![csv("db.v1.0.0", Value::Null)],
                vec![sub("db", "db.v1.0.0")],
                vec!["cache.v1"],
                vec!["db.v1.0.0"],
            ),
            // source_csvs.go skips the copies OLM makes.
            (
                "a copy",
                vec![csv("cache.v0", copied)],
                vec![],
                vec!["db.v1.1.0", "cache.v1", "log.v1"],
                vec![],
            ),
        ];
        for (case, csvs, subs, bundles, installed) in cases {
            let csvs: Vec<&Value> = csvs.iter().collect();
            let ops = installed_operators("olm", &csvs, &subs);
            let got = dependencies(&one(&c), 0, app, &ops);
            let (b, i) = names(&got);
            assert_eq!(b, bundles, "{case}");
            assert_eq!(i, installed, "{case}");
        }
    }

    /// `TestSolveOperators_PackageCannotSelfSatisfy`: the requiring
    /// package's own installed CSV does not satisfy it; and a CSV of
    /// another namespace is not installed in this one.
    #[test]
    fn the_own_package_and_other_namespaces_do_not_count() {
        let c = catalog(&["app", "cache", "db", "log"]);
        let app = &c.packages["app"].bundles["app.v1"];
        let own = csv(
            "app.v0",
            serde_json::json!({"spec": {"customresourcedefinitions": {"owned": [
            {"name": "caches.c.io", "version": "v1", "kind": "Cache"}]}}}),
        );
        let mut other_ns = csv(
            "cache.v0",
            serde_json::json!({"spec": {"customresourcedefinitions": {"owned": [
            {"name": "caches.c.io", "version": "v1", "kind": "Cache"}]}}}),
        );
        other_ns["metadata"]["namespace"] = "elsewhere".into();
        let csvs = [&own, &other_ns];
        let ops = installed_operators("olm", &csvs, &[sub("app", "app.v0")]);
        let (b, i) = names(&dependencies(&one(&c), 0, app, &ops));
        assert_eq!(b, ["db.v1.1.0", "cache.v1", "log.v1"]);
        assert!(i.is_empty());
    }

    /// A catalog of one package `name` at 1.0.0 whose bundle `image` is
    /// `q.io/<catalog>/<name>`, requiring `requires` when given.
    fn one_package(catalog: &str, name: &str, requires: Option<&str>) -> Catalog {
        let required = requires.map_or(String::new(), |r| {
            format!(r#",{{"type":"olm.package.required","value":{{"packageName":"{r}","versionRange":">=1.0.0"}}}}"#)
        });
        let text = format!(
            r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"stable"}}
{{"schema":"olm.channel","package":"{name}","name":"stable","entries":[{{"name":"{name}.v1.0.0"}}]}}
{{"schema":"olm.bundle","name":"{name}.v1.0.0","package":"{name}","image":"q.io/{catalog}/{name}","properties":[{{"type":"olm.package","value":{{"packageName":"{name}","version":"1.0.0"}}}}{required}]}}
"#
        );
        Catalog::assemble([read_file("c.json", &text, &|_| true).unwrap()])
    }

    /// operator-lifecycle-manager `TestSolveOperators_CatsrcPrioritySorting`
    /// (resolver_test.go): packageA in catalog `community` requires
    /// packageB, which `community-operator` and `high-priority-operator`
    /// provide; the higher priority wins, the name at equal priority, and
    /// the declaring catalog before either when it provides packageB too.
    /// And what is missing from the declaring catalog, and where to read it.
    #[test]
    fn olm_test_solve_operators_catsrc_priority_sorting() {
        use crate::olm::objects::{CatalogOrigin, CatalogSource};
        use crate::olm::sources::order;
        let own = one_package("community", "packageA", Some("packageB"));
        let own_with_b = {
            let mut c = own.clone();
            let b = one_package("community", "packageB", None);
            c.packages.extend(b.packages);
            c.providers.extend(b.providers);
            c
        };
        let community = one_package("community-operator", "packageB", None);
        let high = one_package("high-priority-operator", "packageB", None);
        let cs = |name: &str, priority| CatalogSource {
            namespace: "olm".into(),
            name: name.into(),
            origin: CatalogOrigin::Image(String::new()),
            node_selector: Default::default(),
            secrets: Vec::new(),
            priority,
        };
        let missing_b = missing(&[&own]);
        assert_eq!(missing_b.len(), 1);
        assert_eq!(missing_b[0].required_packages[0].package_name, "packageB");
        assert!(missing(&[&own_with_b]).is_empty());
        assert!(missing(&[&own, &community]).is_empty());
        // The other catalog read for its index of providers alone.
        let index = Catalog {
            packages: Default::default(),
            providers: community.providers.clone(),
            refused: None,
        };
        assert_eq!(
            packages_for(&index, &missing_b)
                .into_iter()
                .collect::<Vec<_>>(),
            ["packageB"]
        );
        assert!(packages_for(&own, &missing_b).is_empty());
        for (case, own, priorities, want) in [
            (
                "priority 100 wins",
                &own,
                (0, 100),
                "q.io/high-priority-operator/packageB",
            ),
            (
                "equal priority: the name",
                &own,
                (100, 100),
                "q.io/community-operator/packageB",
            ),
            (
                "the declaring catalog first",
                &own_with_b,
                (0, 0),
                "q.io/community/packageB",
            ),
        ] {
            let others = [
                cs("community-operator", priorities.0),
                cs("high-priority-operator", priorities.1),
            ];
            let sorted = order(&others.iter().collect::<Vec<_>>(), "olm");
            let catalog_of = |name: &str| {
                if name == "community-operator" {
                    &community
                } else {
                    &high
                }
            };
            let mut sources = vec![Source {
                name: Some("olm/community"),
                catalog: own,
            }];
            let names: Vec<String> = sorted.iter().map(|s| format!("olm/{}", s.name)).collect();
            for (s, name) in sorted.iter().zip(&names) {
                sources.push(Source {
                    name: Some(name),
                    catalog: catalog_of(&s.name),
                });
            }
            let a = &own.packages["packageA"].bundles["packageA.v1.0.0"];
            let got = dependencies(&sources, 0, a, &[]);
            let images: Vec<&str> = got
                .bundles
                .iter()
                .map(|d| d.bundle.image.as_str())
                .collect();
            assert_eq!(images, [want], "{case}");
            let catalog = want.split('/').nth(1).unwrap();
            assert_eq!(
                got.bundles[0].catalog,
                Some(format!("olm/{catalog}").as_str()),
                "{case}"
            );
        }
    }

    /// A package of one bundle at `version` in catalog `catalog`, requiring
    /// `requires` (a package and its versionRange) when given.
    fn bundle_requiring(
        catalog: &str,
        name: &str,
        version: &str,
        requires: Option<(&str, &str)>,
    ) -> Catalog {
        let required = requires.map_or(String::new(), |(r, range)| {
            format!(r#",{{"type":"olm.package.required","value":{{"packageName":"{r}","versionRange":"{range}"}}}}"#)
        });
        let text = format!(
            r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"alpha"}}
{{"schema":"olm.channel","package":"{name}","name":"alpha","entries":[{{"name":"{name}.v1"}}]}}
{{"schema":"olm.bundle","name":"{name}.v1","package":"{name}","image":"q.io/{catalog}/{name}","properties":[{{"type":"olm.package","value":{{"packageName":"{name}","version":"{version}"}}}}{required}]}}
"#
        );
        Catalog::assemble([read_file("c.json", &text, &|_| true).unwrap()])
    }

    fn merged(catalogs: &[Catalog]) -> Catalog {
        let mut all = Catalog::default();
        for c in catalogs {
            all.packages.extend(c.packages.clone());
            all.providers.extend(c.providers.clone());
        }
        all
    }

    /// operator-lifecycle-manager `TestSolveOperators_IgnoreUnsatisfiableDependencies`
    /// (resolver_test.go): another-package.v1 of `community` requires
    /// packageC 0.1.0; community's packageC.v1 requires packageD, which no
    /// catalog has, so the solver takes certified's packageC.v1, though
    /// the declaring catalog comes first. With certified's packageC
    /// requiring packageD too, nothing can be installed for it:
    /// [`unsatisfiable`] says why, through the dependency.
    #[test]
    fn olm_test_solve_operators_ignore_unsatisfiable_dependencies() {
        // another-package needs packageC, which needs `c_needs`.
        let community_with = |c_needs: (&str, &str)| {
            merged(&[
                bundle_requiring(
                    "community",
                    "another-package",
                    "1.0.0",
                    Some(("packageC", "0.1.0")),
                ),
                bundle_requiring("community", "packageC", "0.1.0", Some(c_needs)),
            ])
        };
        let community = community_with(("packageD", "0.1.0"));
        let certified = bundle_requiring("certified", "packageC", "0.1.0", None);
        let sources = [
            Source {
                name: Some("olm/community"),
                catalog: &community,
            },
            Source {
                name: Some("olm/certified"),
                catalog: &certified,
            },
        ];
        let another = &community.packages["another-package"].bundles["another-package.v1"];
        let got = dependencies(&sources, 0, another, &[]);
        let picked: Vec<(Option<&str>, &str)> = got
            .bundles
            .iter()
            .map(|d| (d.catalog, d.bundle.image.as_str()))
            .collect();
        assert_eq!(picked, [(Some("olm/certified"), "q.io/certified/packageC")]);
        let providers = merged(&[community.clone(), certified]).providers;
        let why = |providers: &[Provider]| {
            unsatisfiable(
                providers,
                "another-package",
                &another.required_packages,
                &[],
            )
        };
        assert_eq!(why(&providers), None);
        let unsatisfied = why(&community.providers);
        assert_eq!(
            unsatisfied.as_deref(),
            Some("requires package packageC 0.1.0 (packageC.v1: requires package packageD 0.1.0)")
        );
        // A cycle (packageC needs another-package) is satisfied by both.
        let cycle = community_with(("another-package", "1.0.0"));
        assert_eq!(why(&cycle.providers), None);
    }

    /// `getBundleVariables` visits every provider of every requirement,
    /// dependencies of dependencies included: a range one of them cannot
    /// parse is found, though a satisfiable provider comes first; one
    /// no requirement reaches is not.
    #[test]
    fn an_unparsable_range_among_the_providers() {
        let c = merged(&[
            bundle_requiring("c", "app", "1.0.0", Some(("db", ">=1.0.0"))),
            bundle_requiring("c", "db", "1.0.0", Some(("log", ">=1.0.0"))),
            bundle_requiring("c", "log", "1.0.0", Some(("tools", "latest"))),
            bundle_requiring("c", "unrelated", "1.0.0", Some(("x", ">=1.0"))),
        ]);
        let app = &c.packages["app"].bundles["app.v1"];
        let roots = [("app", &app.required_packages[..], &app.required_gvks[..])];
        let got = unparsable_among_providers(&c.providers, roots);
        let got = got.unwrap();
        assert!(
            got.ends_with("(bundle log.v1: olm.package.required tools versionRange \"latest\")"),
            "{got}"
        );
        let db = &c.packages["db"].bundles["db.v1"];
        let without_log: Vec<Provider> = c
            .providers
            .iter()
            .filter(|p| p.package != "log")
            .cloned()
            .collect();
        let roots = [("db", &db.required_packages[..], &db.required_gvks[..])];
        assert_eq!(unparsable_among_providers(&without_log, roots), None);
    }

    /// resolver.go `Resolve` and `newPackageRequiredPredicate`: an
    /// installed CSV's package requirement whose range does not parse is
    /// the resolver's first error; a good range, a copy or another
    /// namespace's CSV is none.
    #[test]
    fn an_installed_requirement_blang_cannot_parse() {
        let with = |range: &str| {
            let annotation = format!(
                r#"{{"properties":[{{"type":"olm.package","value":{{"packageName":"a","version":"1.0.0"}}}},{{"type":"olm.package.required","value":{{"packageName":"b","versionRange":"{range}"}}}}]}}"#
            );
            csv(
                "a.v1",
                serde_json::json!({"metadata": {"annotations": {PROPERTIES_ANNOTATION: annotation}}}),
            )
        };
        assert_eq!(unparsable_installed("olm", &[&with(">=1.0.0")]), None);
        assert_eq!(
            unparsable_installed("olm", &[&with("")]).as_deref(),
            Some("Last element in range is '||' (installed CSV a.v1: olm.package.required b versionRange \"\")")
        );
        assert_eq!(unparsable_installed("elsewhere", &[&with("")]), None);
        let mut copied = with("");
        copied["metadata"]["labels"] = serde_json::json!({"olm.copiedFrom": "other"});
        assert_eq!(unparsable_installed("olm", &[&copied]), None);
    }

    /// source_csvs.go and projection `PropertyListFromPropertiesAnnotation`:
    /// which annotations OLM cannot read (each names its CSV), and a copy or
    /// a CSV of another namespace that does not count.
    #[test]
    fn an_unreadable_properties_annotation() {
        let with = |name: &str, annotation: &str| {
            csv(
                name,
                serde_json::json!({"metadata": {"annotations": {PROPERTIES_ANNOTATION: annotation}}}),
            )
        };
        let cases = [
            (
                r#"{"properties":[{"type":"olm.package","value":{}}]}"#,
                false,
            ),
            ("null", false),
            (r#"{"properties":null}"#, false),
            (r#"{"properties":[null]}"#, false),
            (r#"{"other":1}"#, false),
            (r#"{"properties":"#, true),
            ("[]", true),
            (r#"{"properties":{}}"#, true),
            (r#"{"properties":[{"type":7}]}"#, true),
            (r#"{"properties":[[1]]}"#, true),
            (r#"{"Properties":{}}"#, true),
        ];
        for (annotation, fails) in cases {
            let v = with("broken.v1", annotation);
            let got = unreadable_properties("olm", &[&v]);
            assert_eq!(got.len(), usize::from(fails), "{annotation}: {got:?}");
            if fails {
                assert!(
                    got[0].starts_with(
                        "failed to retrieve properties of csv \"broken.v1\": failed to unmarshal properties annotation: "
                    ),
                    "{got:?}"
                );
            }
        }
        let mut copied = with("broken.v1", "[]");
        copied["metadata"]["labels"] = serde_json::json!({"olm.copiedFrom": "other"});
        assert!(unreadable_properties("olm", &[&copied]).is_empty());
        assert!(unreadable_properties("elsewhere", &[&with("broken.v1", "[]")]).is_empty());
    }
}
