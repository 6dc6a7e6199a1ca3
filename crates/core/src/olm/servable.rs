//! Whether the registry pod's `opm serve` can serve a file-based catalog.
//! opm builds its cache package by package: each package's metas
//! (`olm.package`, `olm.channel`, `olm.bundle`, grouped by package name)
//! go through `declcfg.ConvertToModel` and `model.Validate`, and the first
//! error ends `opm serve`: the registry pod crash-loops, the CatalogSource
//! is not READY and OLM cannot list its bundles. A pre-built cache
//! (`--cache-dir`) does not change that: its digest is computed over every
//! meta of the configs, so a cache is intact only for the very configs
//! `opm serve --cache-only` converted when the image was built, and with a
//! digest that does not match `opm serve --cache-dir` exits ("integrity
//! check failed") or rebuilds (operator-registry `pkg/cache/cache.go`,
//! `cmd/opm/serve/serve.go`).
//!
//! Only names are kept of each document ([`Facts`]): package names and
//! default channels, channel entries and their edges, bundle names with
//! their version and what was wrong with their properties, so every
//! package of a large catalog is checked without holding it. The rules and
//! their messages are operator-registry's `alpha/declcfg/declcfg_to_model.go`
//! and `alpha/model/model.go`; `model.Validate`'s tree of errors is given
//! as one line, its first branch. opm converts packages concurrently, so
//! of several broken packages it may name any: here the first by name.
//! Deprecations are not checked.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::range::Range;
use crate::reference::Reference;

/// Why opm cannot serve a catalog: its own words, and the file of the
/// document they are about (the configs folder's path in the image).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub message: String,
    pub file: String,
}

/// What one catalog file tells of the catalog's servability: names only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    packages: Vec<PackageFact>,
    channels: Vec<ChannelFact>,
    bundles: Vec<BundleFact>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct PackageFact {
    name: String,
    default_channel: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ChannelFact {
    package: String,
    name: String,
    entries: Vec<EntryFact>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct EntryFact {
    name: String,
    replaces: String,
    skips: Vec<String>,
    skip_range: String,
}

/// What opm needs of an `olm.bundle`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BundleFact {
    package: String,
    name: String,
    /// The first of ConvertToModel's per-bundle errors (properties, pull
    /// specs, version), in opm's words.
    problem: Option<String>,
    /// The version as opm prints it (`Version.String()`).
    version: String,
    /// An image, or an `olm.bundle.object` (model's `Objects`).
    has_image: bool,
}

fn text(doc: &Value, key: &str) -> String {
    doc.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl Facts {
    /// An `olm.package` document.
    pub fn package(&mut self, doc: &Value) {
        self.packages.push(PackageFact {
            name: text(doc, "name"),
            default_channel: text(doc, "defaultChannel"),
        });
    }

    /// An `olm.channel` document.
    pub fn channel(&mut self, doc: &Value) {
        let entries = doc.get("entries").and_then(Value::as_array);
        let entries = entries
            .into_iter()
            .flatten()
            .map(|e| EntryFact {
                name: text(e, "name"),
                replaces: text(e, "replaces"),
                skips: e
                    .get("skips")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|s| s.as_str().unwrap_or_default().to_string())
                    .collect(),
                skip_range: text(e, "skipRange"),
            })
            .collect();
        self.channels.push(ChannelFact {
            package: text(doc, "package"),
            name: text(doc, "name"),
            entries,
        });
    }

    /// An `olm.bundle`: its name, package, image, relatedImages' images and
    /// properties (type and value).
    pub fn bundle<'a>(
        &mut self,
        name: &str,
        package: &str,
        image: &str,
        related: impl Iterator<Item = &'a str>,
        properties: impl Iterator<Item = (&'a str, &'a Value)>,
    ) {
        let mut packages = Vec::new();
        let mut has_object = false;
        for (kind, value) in properties {
            match kind {
                "olm.package" => {
                    packages.push((text(value, "packageName"), text(value, "version")))
                }
                "olm.bundle.object" => has_object = true,
                _ => {}
            }
        }
        let problem = bundle_problem(name, package, image, related, &packages);
        let version = packages
            .first()
            .and_then(|(_, v)| semver::Version::parse(v).ok())
            .map(|v| v.to_string())
            .unwrap_or_else(|| "0.0.0".to_string());
        self.bundles.push(BundleFact {
            package: package.to_string(),
            name: name.to_string(),
            problem,
            version,
            has_image: !image.is_empty() || has_object,
        });
    }
}

/// ConvertToModel's checks of one bundle's own content, in its order.
fn bundle_problem<'a>(
    name: &str,
    package: &str,
    image: &str,
    related: impl Iterator<Item = &'a str>,
    packages: &[(String, String)],
) -> Option<String> {
    let [(property_package, version)] = packages else {
        return Some(format!(
            "package {package:?} bundle {name:?} must have exactly 1 \"olm.package\" property, found {}",
            packages.len()
        ));
    };
    if property_package != package {
        return Some(format!(
            "package {package:?} does not match \"olm.package\" property {property_package:?}"
        ));
    }
    let pull_spec = |spec: &str, what: String| {
        if spec.is_empty() {
            return None;
        }
        let e = Reference::parse_normalized_named(spec).err()?;
        Some(format!("{what}: invalid image pull spec {spec:?}: {e}"))
    };
    let what = format!("package {package:?} bundle {name:?} image");
    if let Some(p) = pull_spec(image, what) {
        return Some(p);
    }
    for (i, spec) in related.enumerate() {
        let what = format!("package {package:?} bundle {name:?} relatedImages[{i}].image");
        if let Some(p) = pull_spec(spec, what) {
            return Some(p);
        }
    }
    semver::Version::parse(version)
        .err()
        .map(|e| format!("error parsing bundle {name:?} version {version:?}: {e}"))
}

/// A file's facts with the file's index.
type At<'a, T> = (usize, &'a T);

/// One package's metas, as opm groups them to convert it.
#[derive(Default)]
struct Group<'a> {
    packages: Vec<At<'a, PackageFact>>,
    channels: Vec<At<'a, ChannelFact>>,
    bundles: Vec<At<'a, BundleFact>>,
}

/// The first reason opm cannot serve the catalog of `files` (name and
/// facts, in walk order), or `None` when it can.
pub fn check(files: &[(&str, &Facts)]) -> Option<Refusal> {
    let mut groups: BTreeMap<&str, Group> = BTreeMap::new();
    for (i, (_, facts)) in files.iter().enumerate() {
        for p in &facts.packages {
            groups.entry(&p.name).or_default().packages.push((i, p));
        }
        for c in &facts.channels {
            groups.entry(&c.package).or_default().channels.push((i, c));
        }
        for b in &facts.bundles {
            groups.entry(&b.package).or_default().bundles.push((i, b));
        }
    }
    groups.into_iter().find_map(|(name, group)| {
        let (message, at) = convert(name, &group).or_else(|| validate(name, &group))?;
        Some(Refusal {
            message,
            file: files[at].0.to_string(),
        })
    })
}

/// An error and the index of the file it is about.
type Found = Option<(String, usize)>;

/// `declcfg.ConvertToModel`'s errors for one package, in its order.
fn convert(name: &str, g: &Group<'_>) -> Found {
    let mut seen = false;
    for &(at, p) in &g.packages {
        let why = if p.name.is_empty() {
            Some("config contains package with no name".to_string())
        } else if seen {
            Some(format!("duplicate package {:?}", p.name))
        } else {
            dns1123_label(&p.name).map(|e| format!("invalid package name {:?}: [{e}]", p.name))
        };
        if let Some(why) = why {
            return Some((why, at));
        }
        seen = true;
    }
    let mut channels = BTreeSet::new();
    for &(at, c) in &g.channels {
        let why = channel_problem(name, c, seen, &mut channels);
        if let Some(why) = why {
            return Some((why, at));
        }
    }
    convert_bundles(name, g)
}

fn channel_problem<'a>(
    name: &str,
    c: &'a ChannelFact,
    known: bool,
    channels: &mut BTreeSet<&'a str>,
) -> Option<String> {
    if !known {
        return Some(format!("unknown package {name:?} for channel {:?}", c.name));
    }
    if c.name.is_empty() {
        return Some(format!("package {name:?} contains channel with no name"));
    }
    if !channels.insert(&c.name) {
        return Some(format!(
            "package {name:?} has duplicate channel {:?}",
            c.name
        ));
    }
    let mut entries = BTreeSet::new();
    c.entries.iter().find_map(|e| {
        (!entries.insert(e.name.as_str())).then(|| {
            format!(
                "invalid package {name:?}, channel {:?}: duplicate entry {:?}",
                c.name, e.name
            )
        })
    })
}

/// ConvertToModel's bundle errors, then its channel entries without a
/// bundle: opm keeps the entries of a package's last channel alone for
/// that check (the others' fail `model.Validate`, [`validate`]).
fn convert_bundles(name: &str, g: &Group<'_>) -> Found {
    let in_channels: BTreeSet<&str> = g
        .channels
        .iter()
        .flat_map(|(_, c)| c.entries.iter().map(|e| e.name.as_str()))
        .collect();
    let mut bundles = BTreeSet::new();
    for &(at, b) in &g.bundles {
        let why = if b.package.is_empty() {
            Some(format!("package name must be set for bundle {:?}", b.name))
        } else if g.packages.is_empty() {
            Some(format!("unknown package {name:?} for bundle {:?}", b.name))
        } else if !bundles.insert(b.name.as_str()) {
            Some(format!(
                "package {name:?} has duplicate bundle {:?}",
                b.name
            ))
        } else if let Some(p) = &b.problem {
            Some(p.clone())
        } else if !in_channels.contains(b.name.as_str()) {
            Some(format!(
                "package {name:?}, bundle {:?} not found in any channel entries",
                b.name
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Some((why, at));
        }
    }
    let &(at, last) = g.channels.last()?;
    let missing: BTreeSet<&str> = last
        .entries
        .iter()
        .map(|e| e.name.as_str())
        .filter(|e| !bundles.contains(e))
        .collect();
    (!missing.is_empty()).then(|| {
        let listed: Vec<&str> = missing.into_iter().collect();
        let why = format!(
            "no olm.bundle blobs found in package {name:?} for olm.channel entries [{}]",
            listed.join(" ")
        );
        (why, at)
    })
}

/// `model.Validate`'s first error for one converted package, its tree as one line.
fn validate(name: &str, g: &Group<'_>) -> Found {
    let (package_at, package) = *g.packages.first()?;
    let within = |e: String| format!("invalid index: invalid package {name:?}: {e}");
    if package.default_channel.is_empty() {
        return Some((within("default channel must be set".into()), package_at));
    }
    let bundles: BTreeMap<&str, At<'_, BundleFact>> = g
        .bundles
        .iter()
        .map(|&(at, b)| (b.name.as_str(), (at, b)))
        .collect();
    let mut channels: Vec<At<'_, ChannelFact>> = g.channels.clone();
    channels.sort_by(|a, b| a.1.name.cmp(&b.1.name));
    // ConvertToModel adds a named default channel that has no `olm.channel`, empty.
    if !channels
        .iter()
        .any(|(_, c)| c.name == package.default_channel)
    {
        let why = format!(
            "invalid channel {:?}: channel must contain at least one bundle",
            package.default_channel
        );
        return Some((within(why), package_at));
    }
    for (at, c) in channels {
        if let Some((why, at)) = validate_channel(c, &bundles, at) {
            return Some((within(format!("invalid channel {:?}: {why}", c.name)), at));
        }
    }
    duplicate_versions(g, &bundles).map(|why| (within(why), package_at))
}

fn validate_channel(
    c: &ChannelFact,
    bundles: &BTreeMap<&str, At<'_, BundleFact>>,
    at: usize,
) -> Found {
    if c.entries.is_empty() {
        return Some(("channel must contain at least one bundle".into(), at));
    }
    if let Err(why) = replaces_chain(&c.entries) {
        return Some((why, at));
    }
    let mut entries: Vec<&EntryFact> = c.entries.iter().collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries.into_iter().find_map(|e| {
        let bundle = bundles.get(e.name.as_str());
        let why = validate_bundle(e, bundle.map(|(_, b)| *b))?;
        let at = bundle.map_or(at, |(at, _)| *at);
        Some((format!("invalid bundle {:?}: {why}", e.name), at))
    })
}

/// `Bundle.Validate` of a channel entry and its `olm.bundle` (none: an
/// entry of another channel than the last without one).
fn validate_bundle(e: &EntryFact, b: Option<&BundleFact>) -> Option<String> {
    if let Some(i) = e.skips.iter().position(String::is_empty) {
        return Some(format!("skip[{i}] is empty"));
    }
    if !e.skip_range.is_empty() {
        if let Err(err) = Range::parse(&e.skip_range) {
            return Some(format!("invalid skipRange {:?}: {err}", e.skip_range));
        }
    }
    match b {
        None => Some("must be exactly one property with type \"olm.package\"".into()),
        Some(b) if !b.has_image => Some("bundle image must be set".into()),
        Some(_) => None,
    }
}

/// `validateReplacesChain`: one head; from it, the replaces chain reaches
/// every entry no other skips, without a cycle.
fn replaces_chain(entries: &[EntryFact]) -> Result<(), String> {
    let by_name: BTreeMap<&str, &EntryFact> =
        entries.iter().map(|e| (e.name.as_str(), e)).collect();
    let mut incoming = BTreeSet::new();
    let mut skipped = BTreeSet::new();
    for e in entries {
        if !e.replaces.is_empty() {
            incoming.insert(e.replaces.as_str());
        }
        for s in &e.skips {
            incoming.insert(s.as_str());
            skipped.insert(s.as_str());
        }
    }
    let heads: Vec<&str> = by_name
        .keys()
        .copied()
        .filter(|n| !incoming.contains(n))
        .collect();
    let head = match heads.as_slice() {
        [] => return Err("no channel head found in graph".into()),
        [one] => by_name[one],
        several => {
            return Err(format!(
                "multiple channel heads found in graph: {}",
                several.join(", ")
            ))
        }
    };
    let mut chain: BTreeSet<&str> = BTreeSet::from([head.name.as_str()]);
    let mut path: Vec<&str> = Vec::new();
    let mut cur = Some(head);
    while let Some(b) = cur {
        path.push(&b.name);
        if skipped.contains(b.replaces.as_str()) {
            break;
        }
        if chain.contains(b.replaces.as_str()) {
            let from = path.iter().position(|n| *n == b.replaces).unwrap_or(0);
            let mut cycle = path[from..].to_vec();
            cycle.push(&b.replaces);
            return Err(format!(
                "detected cycle in replaces chain of upgrade graph: {}",
                cycle.join(" -> ")
            ));
        }
        chain.insert(&b.replaces);
        cur = by_name.get(b.replaces.as_str()).copied();
    }
    let stranded: Vec<&str> = by_name
        .keys()
        .copied()
        .filter(|n| !chain.contains(n) && !skipped.contains(n))
        .collect();
    if stranded.is_empty() {
        return Ok(());
    }
    Err(format!(
        "channel contains one or more stranded bundles: {}",
        stranded.join(", ")
    ))
}

/// `validateUniqueBundleVersions` over every entry of every channel (an
/// entry without a bundle has opm's zero version).
fn duplicate_versions(
    g: &Group<'_>,
    bundles: &BTreeMap<&str, At<'_, BundleFact>>,
) -> Option<String> {
    let mut by_version: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (_, c) in &g.channels {
        for e in &c.entries {
            let version = bundles
                .get(e.name.as_str())
                .map_or("0.0.0", |(_, b)| b.version.as_str());
            by_version.entry(version).or_default().insert(&e.name);
        }
    }
    let duplicates: Vec<String> = by_version
        .into_iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(v, names)| {
            let names: Vec<&str> = names.into_iter().collect();
            format!("{{{v}: [{}]}}", names.join(", "))
        })
        .collect();
    (!duplicates.is_empty()).then(|| {
        format!(
            "duplicate versions found in bundles: [{}]",
            duplicates.join(" ")
        )
    })
}

/// k8s `validation.IsDNS1123Label`'s errors, joined as Go prints a slice.
fn dns1123_label(name: &str) -> Option<String> {
    let mut errs = Vec::new();
    if name.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    let label = |s: &str| {
        let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        let b = s.as_bytes();
        !b.is_empty()
            && alnum(b[0])
            && alnum(b[b.len() - 1])
            && b.iter().all(|&c| alnum(c) || c == b'-')
    };
    if !label(name) {
        if name.split('.').all(label) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string());
        }
    }
    (!errs.is_empty()).then(|| errs.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of a one-document-a-line JSON stream.
    fn facts(text: &str) -> Facts {
        let mut f = Facts::default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let doc: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            match doc["schema"].as_str().unwrap_or_default() {
                "olm.package" => f.package(&doc),
                "olm.channel" => f.channel(&doc),
                "olm.bundle" => {
                    let props: Vec<(&str, &Value)> = doc["properties"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|p| (p["type"].as_str().unwrap_or_default(), &p["value"]))
                        .collect();
                    let related = doc["relatedImages"].as_array().into_iter().flatten();
                    f.bundle(
                        doc["name"].as_str().unwrap_or_default(),
                        doc["package"].as_str().unwrap_or_default(),
                        doc["image"].as_str().unwrap_or_default(),
                        related.map(|r| r["image"].as_str().unwrap_or_default()),
                        props.into_iter(),
                    )
                }
                _ => {}
            }
        }
        f
    }

    fn refusal(text: &str) -> Option<String> {
        let f = facts(text);
        check(&[("/configs/c.json", &f)]).map(|r| r.message)
    }

    fn package(name: &str, default: &str) -> String {
        format!(r#"{{"schema":"olm.package","name":"{name}","defaultChannel":"{default}"}}"#)
    }

    fn channel(package: &str, name: &str, entries: &str) -> String {
        format!(
            r#"{{"schema":"olm.channel","package":"{package}","name":"{name}","entries":[{entries}]}}"#
        )
    }

    fn bundle(package: &str, version: &str) -> String {
        format!(
            r#"{{"schema":"olm.bundle","name":"{package}.v{version}","package":"{package}","image":"q.io/{package}/b:v{version}","properties":[{{"type":"olm.package","value":{{"packageName":"{package}","version":"{version}"}}}}]}}"#
        )
    }

    fn lines(docs: &[String]) -> String {
        docs.join("\n")
    }

    /// operator-registry `TestConvertToModel` (alpha/declcfg/declcfg_to_model_test.go).
    #[test]
    fn convert_to_model_cases() {
        let foo = package("foo", "alpha");
        let alpha = channel("foo", "alpha", r#"{"name":"foo.v0.1.0"}"#);
        let b010 = bundle("foo", "0.1.0");
        let no_props =
            r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","image":"q.io/b:1"}"#;
        let two_props = r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","image":"q.io/b:1","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}},{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}}]}"#;
        let mismatch = r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","image":"q.io/b:1","properties":[{"type":"olm.package","value":{"packageName":"foooperator","version":"0.1.0"}}]}"#;
        let data_no_image = r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}},{"type":"olm.bundle.object","value":{"data":"e30="}}]}"#;
        let ssha = r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","image":"q.io/b@ssha256:0123456789012345678901234567890123456789012345678901234567890123","properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}}]}"#;
        let related = r#"{"schema":"olm.bundle","name":"foo.v0.1.0","package":"foo","image":"q.io/b:1","relatedImages":[{"image":"q.io/r@ssha256:0123456789012345678901234567890123456789012345678901234567890123"}],"properties":[{"type":"olm.package","value":{"packageName":"foo","version":"0.1.0"}}]}"#;
        let cases: Vec<(&str, String, Option<&str>)> = vec![
            (
                "Error/PackageNoName",
                lines(&[package("", "alpha")]),
                Some("config contains package with no name"),
            ),
            (
                "Error/BundleMissingPackageName",
                lines(&[foo.clone(), bundle("", "0.1.0")]),
                Some(r#"package name must be set for bundle ".v0.1.0""#),
            ),
            (
                "Error/BundleUnknownPackage",
                lines(&[
                    foo.clone(),
                    alpha.clone(),
                    b010.clone(),
                    bundle("bar", "0.1.0"),
                ]),
                Some(r#"unknown package "bar" for bundle "bar.v0.1.0""#),
            ),
            (
                "Error/BundleMissingChannel",
                lines(&[foo.clone(), b010.clone()]),
                Some(r#"package "foo", bundle "foo.v0.1.0" not found in any channel entries"#),
            ),
            (
                "Error/BundlePackageMismatch",
                lines(&[foo.clone(), alpha.clone(), mismatch.into()]),
                Some(r#"package "foo" does not match "olm.package" property "foooperator""#),
            ),
            (
                "Error/PackageMissingDefaultChannel",
                lines(&[
                    package("foo", ""),
                    channel("foo", "bar", r#"{"name":"foo.v0.1.0"}"#),
                    b010.clone(),
                ]),
                Some(r#"invalid index: invalid package "foo": default channel must be set"#),
            ),
            (
                "Error/PackageNonExistentDefaultChannel",
                lines(&[
                    package("foo", "bar"),
                    channel("foo", "alpha", r#"{"name":"foo.v0.1.0"}"#),
                    b010.clone(),
                ]),
                Some(
                    r#"invalid index: invalid package "foo": invalid channel "bar": channel must contain at least one bundle"#,
                ),
            ),
            (
                "Error/BundleMissingPackageProperty",
                lines(&[foo.clone(), alpha.clone(), no_props.into()]),
                Some(
                    r#"package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 0"#,
                ),
            ),
            (
                "Error/BundleMultiplePackageProperty",
                lines(&[foo.clone(), alpha.clone(), two_props.into()]),
                Some(
                    r#"package "foo" bundle "foo.v0.1.0" must have exactly 1 "olm.package" property, found 2"#,
                ),
            ),
            (
                "Success/BundleWithDataButMissingImage",
                lines(&[foo.clone(), alpha.clone(), data_no_image.into()]),
                None,
            ),
            (
                "Error/ChannelEntryWithoutBundle",
                lines(&[foo.clone(), alpha.clone()]),
                Some(
                    r#"no olm.bundle blobs found in package "foo" for olm.channel entries [foo.v0.1.0]"#,
                ),
            ),
            (
                "Error/BundleWithoutChannelEntry",
                lines(&[foo.clone(), alpha.clone(), bundle("foo", "0.2.0")]),
                Some(r#"package "foo", bundle "foo.v0.2.0" not found in any channel entries"#),
            ),
            (
                "Error/ChannelMissingName",
                lines(&[
                    foo.clone(),
                    channel("foo", "", r#"{"name":"foo.v0.1.0"}"#),
                    b010.clone(),
                ]),
                Some(r#"package "foo" contains channel with no name"#),
            ),
            (
                "Error/ChannelMissingPackageName",
                lines(&[
                    channel("", "alpha", r#"{"name":"foo.v0.1.0"}"#),
                    foo.clone(),
                    alpha.clone(),
                    b010.clone(),
                ]),
                Some(r#"unknown package "" for channel "alpha""#),
            ),
            (
                "Error/ChannelNonExistentPackage",
                lines(&[
                    foo.clone(),
                    alpha.clone(),
                    b010.clone(),
                    channel("non-existent", "alpha", r#"{"name":"foo.v0.1.0"}"#),
                ]),
                Some(r#"unknown package "non-existent" for channel "alpha""#),
            ),
            (
                "Error/ChannelDuplicateEntry",
                lines(&[
                    foo.clone(),
                    channel(
                        "foo",
                        "alpha",
                        r#"{"name":"foo.v0.1.0"},{"name":"foo.v0.1.0"}"#,
                    ),
                    b010.clone(),
                ]),
                Some(r#"invalid package "foo", channel "alpha": duplicate entry "foo.v0.1.0""#),
            ),
            (
                "Error/DuplicatePackage",
                lines(&[foo.clone(), foo.clone(), alpha.clone(), b010.clone()]),
                Some(r#"duplicate package "foo""#),
            ),
            // Upstream's channel and bundle are of package "foo"; opm serve
            // converts each package apart, so here they are "foo.bar"'s.
            (
                "Error/PackageBreaksRFC1123",
                lines(&[
                    package("foo.bar", "alpha"),
                    channel("foo.bar", "alpha", r#"{"name":"foo.bar.v0.1.0"}"#),
                    bundle("foo.bar", "0.1.0"),
                ]),
                Some(r#"invalid package name "foo.bar": [must not contain dots]"#),
            ),
            (
                "Error/DuplicateChannel",
                lines(&[foo.clone(), alpha.clone(), alpha.clone(), b010.clone()]),
                Some(r#"package "foo" has duplicate channel "alpha""#),
            ),
            (
                "Error/DuplicateBundle",
                lines(&[foo.clone(), alpha.clone(), b010.clone(), b010.clone()]),
                Some(r#"package "foo" has duplicate bundle "foo.v0.1.0""#),
            ),
            (
                "Success/ValidModel",
                lines(&[foo.clone(), alpha.clone(), b010.clone()]),
                None,
            ),
            (
                "Error/BundleImageInvalidPullSpecUnsupportedDigestSsha256",
                lines(&[foo.clone(), alpha.clone(), ssha.into()]),
                Some(
                    r#"package "foo" bundle "foo.v0.1.0" image: invalid image pull spec "q.io/b@ssha256:"#,
                ),
            ),
            (
                "Error/BundleRelatedImageInvalidPullSpecSsha256",
                lines(&[foo.clone(), alpha.clone(), related.into()]),
                Some(
                    r#"package "foo" bundle "foo.v0.1.0" relatedImages[0].image: invalid image pull spec "q.io/r@ssha256:"#,
                ),
            ),
            (
                "Error/BundleInvalidVersion",
                lines(&[
                    foo.clone(),
                    alpha.clone(),
                    bundle("foo", "0.1.0.1").replace("foo.v0.1.0.1", "foo.v0.1.0"),
                ]),
                Some(r#"error parsing bundle "foo.v0.1.0" version "0.1.0.1": "#),
            ),
            (
                "Error/BundleMissingVersion",
                lines(&[
                    foo.clone(),
                    channel("foo", "alpha", r#"{"name":"foo.v"}"#),
                    bundle("foo", ""),
                ]),
                Some(r#"error parsing bundle "foo.v" version "": "#),
            ),
        ];
        for (name, text, want) in cases {
            let got = refusal(&text);
            match want {
                None => assert_eq!(got, None, "{name}"),
                Some(want) => {
                    let got = got.unwrap_or_else(|| panic!("{name}: served"));
                    assert!(got.starts_with(want), "{name}: {got}");
                }
            }
        }
    }

    /// operator-registry `TestChannelHead` and `TestValidReplacesChain`
    /// (alpha/model/model_test.go), over a channel of package "anakin".
    #[test]
    fn replaces_chain_cases() {
        let cases = [
            ("Head/Success/Valid", r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.2"},{"name":"anakin.v0.0.3","replaces":"anakin.v0.0.1","skips":["anakin.v0.0.2"]}"#, None),
            ("Head/Error/NoChannelHead", r#"{"name":"anakin.v0.0.1","replaces":"anakin.v0.0.3"},{"name":"anakin.v0.0.3","replaces":"anakin.v0.0.1","skips":["anakin.v0.0.2"]}"#, Some("no channel head found in graph")),
            ("Head/Error/MultipleChannelHeads", r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.3","replaces":"anakin.v0.0.1","skips":["anakin.v0.0.2"]},{"name":"anakin.v0.0.4","replaces":"anakin.v0.0.1"}"#, Some("multiple channel heads found in graph: anakin.v0.0.3, anakin.v0.0.4")),
            ("Success/Valid", r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.2","skips":["anakin.v0.0.1"]},{"name":"anakin.v0.0.3","skips":["anakin.v0.0.2"]},{"name":"anakin.v0.0.4","replaces":"anakin.v0.0.3"}"#, None),
            ("Error/CycleNoHops", r#"{"name":"anakin.v0.0.4","replaces":"anakin.v0.0.4"},{"name":"anakin.v0.0.5","replaces":"anakin.v0.0.4"}"#, Some("detected cycle in replaces chain of upgrade graph: anakin.v0.0.4 -> anakin.v0.0.4")),
            ("Error/CycleMultipleHops", r#"{"name":"anakin.v0.0.1","replaces":"anakin.v0.0.3"},{"name":"anakin.v0.0.2","replaces":"anakin.v0.0.1"},{"name":"anakin.v0.0.3","replaces":"anakin.v0.0.2"},{"name":"anakin.v0.0.4","replaces":"anakin.v0.0.3"}"#, Some("detected cycle in replaces chain of upgrade graph: anakin.v0.0.3 -> anakin.v0.0.2 -> anakin.v0.0.1 -> anakin.v0.0.3")),
            ("Error/Stranded", r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.2","replaces":"anakin.v0.0.1"},{"name":"anakin.v0.0.3","skips":["anakin.v0.0.2"]}"#, Some("channel contains one or more stranded bundles: anakin.v0.0.1")),
            ("Error/SkippedReplacesStranded", r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.2","replaces":"anakin.v0.0.1"},{"name":"anakin.v0.0.3","replaces":"anakin.v0.0.2","skips":["anakin.v0.0.2"]}"#, Some("channel contains one or more stranded bundles: anakin.v0.0.1")),
        ];
        for (name, entries, want) in cases {
            let text = format!("{{\"entries\":[{entries}]}}");
            let doc: Value = serde_json::from_str(&text).unwrap();
            let mut f = Facts::default();
            f.channel(&doc);
            let got = replaces_chain(&f.channels[0].entries).err();
            assert_eq!(got.as_deref(), want, "{name}");
        }
    }

    /// operator-registry `TestValidators` (alpha/model/model_test.go): the
    /// package, channel and bundle cases a catalog can reach.
    #[test]
    fn validate_cases() {
        let anakin = package("anakin", "light");
        let b = |v: &str| bundle("anakin", v);
        let cases = [
            (
                "Package/Error/DuplicateBundleVersions",
                lines(&[
                    anakin.clone(),
                    channel(
                        "anakin",
                        "light",
                        r#"{"name":"anakin.v0.0.1"},{"name":"anakin.v0.0.2","replaces":"anakin.v0.0.1"},{"name":"anakin.v1.0.1","replaces":"anakin.v0.0.2"},{"name":"anakin.v1.0.2","replaces":"anakin.v1.0.1"}"#,
                    ),
                    b("0.0.1"),
                    b("0.0.1").replace("anakin.v0.0.1", "anakin.v0.0.2"),
                    b("1.0.1"),
                    b("1.0.1").replace("anakin.v1.0.1", "anakin.v1.0.2"),
                ]),
                Some(
                    r#"invalid index: invalid package "anakin": duplicate versions found in bundles: [{0.0.1: [anakin.v0.0.1, anakin.v0.0.2]} {1.0.1: [anakin.v1.0.1, anakin.v1.0.2]}]"#,
                ),
            ),
            (
                "Bundle/Error/EmptySkipsValue",
                lines(&[
                    anakin.clone(),
                    channel(
                        "anakin",
                        "light",
                        r#"{"name":"anakin.v0.1.0","replaces":"anakin.v0.0.1","skips":[""]}"#,
                    ),
                    b("0.1.0"),
                ]),
                Some(
                    r#"invalid index: invalid package "anakin": invalid channel "light": invalid bundle "anakin.v0.1.0": skip[0] is empty"#,
                ),
            ),
            (
                "Bundle/Success/ValidSkipRange",
                lines(&[
                    anakin.clone(),
                    channel(
                        "anakin",
                        "light",
                        r#"{"name":"anakin.v0.1.0","replaces":"anakin.v0.0.1","skipRange":">=1.0.0 <2.0.0"}"#,
                    ),
                    b("0.1.0"),
                ]),
                None,
            ),
            (
                "Bundle/Error/InvalidSkipRange/LeadingV",
                lines(&[
                    anakin.clone(),
                    channel(
                        "anakin",
                        "light",
                        r#"{"name":"anakin.v0.1.0","skipRange":">v0.1.0"}"#,
                    ),
                    b("0.1.0"),
                ]),
                Some(
                    r#"invalid index: invalid package "anakin": invalid channel "light": invalid bundle "anakin.v0.1.0": invalid skipRange ">v0.1.0": Could not parse Range ">v0.1.0": Could not parse comparator ">v" in ">v0.1.0""#,
                ),
            ),
            (
                "Bundle/Error/NoBundleImage",
                lines(&[
                    anakin.clone(),
                    channel("anakin", "light", r#"{"name":"anakin.v0.1.0"}"#),
                    b("0.1.0").replace(r#""image":"q.io/anakin/b:v0.1.0","#, ""),
                ]),
                Some(
                    r#"invalid index: invalid package "anakin": invalid channel "light": invalid bundle "anakin.v0.1.0": bundle image must be set"#,
                ),
            ),
            // An entry of a channel but the last one, without a bundle: the
            // model's bundle has no properties and no image.
            (
                "ChannelEntryWithoutBundle/NotLastChannel",
                lines(&[
                    anakin.clone(),
                    channel("anakin", "dark", r#"{"name":"anakin.v0.0.9"}"#),
                    channel("anakin", "light", r#"{"name":"anakin.v0.1.0"}"#),
                    b("0.1.0"),
                ]),
                Some(
                    r#"invalid index: invalid package "anakin": invalid channel "dark": invalid bundle "anakin.v0.0.9": must be exactly one property with type "olm.package""#,
                ),
            ),
        ];
        for (name, text, want) in cases {
            assert_eq!(refusal(&text).as_deref(), want, "{name}");
        }
    }

    #[test]
    fn the_refusal_names_the_file_and_the_first_package() {
        let ok = facts(&lines(&[
            package("a", "s"),
            channel("a", "s", r#"{"name":"a.v1.0.0"}"#),
            bundle("a", "1.0.0"),
        ]));
        let broken = facts(&lines(&[package("b", "s"), bundle("b", "1.0.0")]));
        let also = facts(&lines(&[package("c", "s"), bundle("c", "1.0.0")]));
        let r = check(&[
            ("/configs/a.json", &ok),
            ("/configs/c.json", &also),
            ("/configs/b.yaml", &broken),
        ])
        .unwrap();
        assert_eq!(r.file, "/configs/b.yaml");
        assert_eq!(
            r.message,
            r#"package "b", bundle "b.v1.0.0" not found in any channel entries"#
        );
        assert_eq!(check(&[("/configs/a.json", &ok)]), None);
    }
}
