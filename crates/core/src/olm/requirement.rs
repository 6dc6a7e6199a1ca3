//! What a bundle requires, and whether OLM's solver can meet it: each
//! `olm.package.required` (a blang range, [`crate::olm::range`]) and
//! `olm.gvk.required`, the providers that satisfy it, dependencies of
//! dependencies included (operator-lifecycle-manager
//! `pkg/controller/registry/resolver/resolver.go`: `getBundleVariables`,
//! `newPackageRequiredPredicate`). Used by the update path
//! ([`crate::olm::resolve`]) and the bundles installed with a hop
//! ([`crate::olm::deps`]).

use std::collections::BTreeSet;

use semver::Version;

use super::catalog::{Bundle, Gvk, Provider, RequiredPackage};
use super::range::{Range, RangeError};

/// One requirement of a bundle.
pub(crate) enum Requirement<'b> {
    Package(&'b RequiredPackage, Result<Range, RangeError>),
    Gvk(&'b Gvk),
}

pub(crate) fn requirements(bundle: &Bundle) -> Vec<Requirement<'_>> {
    requirements_of(&bundle.required_packages, &bundle.required_gvks)
}

pub(crate) fn requirements_of<'b>(
    packages: &'b [RequiredPackage],
    gvks: &'b [Gvk],
) -> Vec<Requirement<'b>> {
    let packages = packages
        .iter()
        .map(|r| Requirement::Package(r, required_range(r)));
    let gvks = gvks.iter().map(Requirement::Gvk);
    packages.chain(gvks).collect()
}

/// Whether a bundle of `package`, at `version` and providing `gvks`, satisfies `req`.
pub(crate) fn satisfies(
    req: &Requirement<'_>,
    package: &str,
    version: Option<&str>,
    gvks: &[Gvk],
) -> bool {
    match req {
        Requirement::Package(r, range) => {
            r.package_name == package
                && range.as_ref().is_ok_and(|range| {
                    version
                        .and_then(|v| Version::parse(v).ok())
                        .is_some_and(|v| range.contains(&v))
                })
        }
        Requirement::Gvk(g) => gvks.contains(g),
    }
}

/// The versions an `olm.package.required` property admits, as OLM's
/// resolver reads it (`newPackageRequiredPredicate` in `resolver.go`):
/// blang's `ParseRange` of its `versionRange`, which fails on an empty
/// one too. A bundle whose range does not parse fails the resolution of
/// the namespace when the resolver meets it (`getBundleVariables` returns
/// the error; [`unparsable_requirement`], which [`crate::olm::resolve::update_path`] checks
/// for every candidate); until then it satisfies nothing.
pub fn required_range(req: &RequiredPackage) -> Result<Range, RangeError> {
    Range::parse(&req.version_range)
}

/// The error OLM's resolver returns for `bundle` when one of its
/// `olm.package.required` ranges does not parse (`convertDependencyProperties`
/// stops at the first): blang's words, then the bundle and property.
pub fn unparsable_requirement(bundle: &Bundle) -> Option<String> {
    unparsable_range(&bundle.name, &bundle.required_packages)
}

/// [`unparsable_requirement`] of the bundle `name` requiring `required`.
pub fn unparsable_range(name: &str, required: &[RequiredPackage]) -> Option<String> {
    required.iter().find_map(|r| {
        required_range(r).err().map(|e| {
            format!(
                "{e} (bundle {name}: olm.package.required {} versionRange {:?})",
                r.package_name, r.version_range
            )
        })
    })
}

/// Why OLM's solver cannot install a bundle of `package` with these
/// requirements over `providers` (the resolver's cache: every catalog's
/// index and the installed operators), when it cannot: a requirement no
/// bundle of another package provides, or whose every provider has such a
/// requirement in turn (`getBundleVariables` gives each bundle a
/// `solver.Dependency` on all its providers, so the solver looks through
/// every one of them, dependencies of dependencies included). A
/// requirement met again on its own path (a cycle) counts as satisfied:
/// installing the whole cycle satisfies it.
pub fn unsatisfiable(
    providers: &[Provider],
    package: &str,
    packages: &[RequiredPackage],
    gvks: &[Gvk],
) -> Option<String> {
    Satisfiable::new(providers.iter()).unmet(package, &requirements_of(packages, gvks))
}

/// The walk of [`unsatisfiable`]: what is known of each provider (by index).
pub(crate) struct Satisfiable<'p> {
    providers: Vec<&'p Provider>,
    known: Vec<Option<Option<String>>>,
    open: BTreeSet<usize>,
}

impl<'p> Satisfiable<'p> {
    pub(crate) fn new(providers: impl Iterator<Item = &'p Provider>) -> Self {
        let providers: Vec<&Provider> = providers.collect();
        Satisfiable {
            known: vec![None; providers.len()],
            open: BTreeSet::new(),
            providers,
        }
    }

    /// Whether the solver can install `bundle` (its requirements met, dependencies of dependencies included).
    pub(crate) fn installable(&mut self, bundle: &Bundle) -> bool {
        let reqs = requirements(bundle);
        self.unmet(&bundle.package, &reqs).is_none()
    }

    fn unmet(&mut self, package: &str, reqs: &[Requirement<'_>]) -> Option<String> {
        reqs.iter()
            .find_map(|req| self.requirement_unmet(package, req))
    }

    /// Why no provider the solver can install meets `req` of a bundle of
    /// `package`, when none does.
    pub(crate) fn requirement_unmet(
        &mut self,
        package: &str,
        req: &Requirement<'_>,
    ) -> Option<String> {
        let fitting: Vec<usize> = (0..self.providers.len())
            .filter(|&i| {
                let p = self.providers[i];
                p.package != package && satisfies(req, &p.package, p.version.as_deref(), &p.gvks)
            })
            .collect();
        let mut first_why = None;
        for i in fitting {
            match self.provider_unmet(i) {
                None => return None,
                Some(why) => {
                    first_why.get_or_insert((i, why));
                }
            }
        }
        match first_why {
            None => Some(described(req)),
            Some((i, why)) => {
                let by = &self.providers[i].name;
                Some(format!("{} ({by}: {why})", described(req)))
            }
        }
    }

    fn provider_unmet(&mut self, i: usize) -> Option<String> {
        if let Some(known) = &self.known[i] {
            return known.clone();
        }
        if !self.open.insert(i) {
            return None;
        }
        let p = self.providers[i];
        let reqs = requirements_of(&p.required_packages, &p.required_gvks);
        let why = self.unmet(&p.package, &reqs);
        self.open.remove(&i);
        self.known[i] = Some(why.clone());
        why
    }
}

/// A requirement in the words of the resolver's verdicts.
fn described(req: &Requirement<'_>) -> String {
    match req {
        Requirement::Package(r, _) => {
            format!("requires package {} {}", r.package_name, r.version_range)
        }
        Requirement::Gvk(g) => format!("requires {}/{} {}", g.group, g.version, g.kind),
    }
}

/// The first `olm.package.required` range that does not parse among the
/// bundles the resolver visits from `roots` (each a bundle's package and
/// requirements): `getBundleVariables` makes a variable of every provider
/// of every requirement, dependencies of dependencies included, and stops
/// the resolution at the first range blang refuses
/// ([`unparsable_requirement`]).
pub fn unparsable_among_providers<'a>(
    providers: &[Provider],
    roots: impl IntoIterator<Item = (&'a str, &'a [RequiredPackage], &'a [Gvk])>,
) -> Option<String> {
    let mut visited = vec![false; providers.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut visit =
        |package: &str, packages: &[RequiredPackage], gvks: &[Gvk], stack: &mut Vec<usize>| {
            for req in requirements_of(packages, gvks) {
                for (i, p) in providers.iter().enumerate() {
                    if !visited[i]
                        && p.package != package
                        && satisfies(&req, &p.package, p.version.as_deref(), &p.gvks)
                    {
                        visited[i] = true;
                        stack.push(i);
                    }
                }
            }
        };
    for (package, packages, gvks) in roots {
        visit(package, packages, gvks, &mut stack);
    }
    while let Some(i) = stack.pop() {
        let p = &providers[i];
        if let Some(e) = unparsable_range(&p.name, &p.required_packages) {
            return Some(e);
        }
        visit(
            &p.package,
            &p.required_packages,
            &p.required_gvks,
            &mut stack,
        );
    }
    None
}
