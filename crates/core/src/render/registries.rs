//! `/etc/containers/registries.conf` as the MCO renders it from mirror sets
//! and the Image config's insecure and blocked registries.
//!
//! Validation follows the MCO's `validateRegistriesConfScopes`; the edit
//! follows openshift/runtime-utils `EditRegistriesConfig` step by step
//! (digest sets, tag sets, blocked entries, insecure, blocked, nested
//! mirror propagation), with the same entry order and the same quirks. The
//! upstream edit is quadratic in the number of sources; this one indexes
//! entries by scope and only visits the few mirror-less entries when
//! propagating mirrors, so it stays linear. Every entry and mirror keeps the
//! origins (CR objects) that caused it.

use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use super::findings::{McoFinding, RenderError};
use super::release::{EditFamily, ValidationFamily};
use super::scope::{
    is_valid_mirror, is_valid_registries_conf_scope, is_valid_source, scope_is_nested_inside_scope,
};
use super::topo::merged_mirrors;
use crate::origin::Origin;

/// `pull-from-mirror` values the MCO writes.
pub const DIGEST_ONLY: &str = "digest-only";
/// `pull-from-mirror` for tag mirrors.
pub const TAG_ONLY: &str = "tag-only";

/// `mirrorSourcePolicy`; ICSP entries and an empty policy count as `AllowContactingSource`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourcePolicy {
    #[default]
    AllowContactingSource,
    NeverContactSource,
}

impl SourcePolicy {
    /// The CR spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AllowContactingSource => "AllowContactingSource",
            Self::NeverContactSource => "NeverContactSource",
        }
    }
}

/// One `imageDigestMirrors` / `repositoryDigestMirrors` / `imageTagMirrors` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorSet {
    pub source: String,
    pub mirrors: Vec<String>,
    pub policy: SourcePolicy,
    /// The CR the item comes from.
    pub origin: Origin,
}

/// The MCO's inputs to registries.conf, already filtered for payload protection.
#[derive(Debug, Clone, Default)]
pub struct RegistriesInput {
    /// ImageDigestMirrorSet items, in object order.
    pub idms: Vec<MirrorSet>,
    /// ImageContentSourcePolicy items, in object order.
    pub icsp: Vec<MirrorSet>,
    /// ImageTagMirrorSet items, in object order.
    pub itms: Vec<MirrorSet>,
    /// `Image.spec.registrySources.insecureRegistries` (None when absent).
    pub insecure: Option<Vec<String>>,
    /// Blocked registries for registries.conf after payload protection (None when nothing is blocked).
    pub blocked: Option<Vec<String>>,
    /// The object the Image-config facts come from (`Image/cluster`).
    pub image_origin: Option<Origin>,
}

/// The MCO's `validateRegistriesConfScopes`: every finding, in the order
/// the MCO checks (insecure, blocked and allowed entries, then each set's
/// source, policy and mirrors).
pub fn scope_findings(
    insecure: &[String],
    blocked: &[String],
    allowed: &[String],
    input: &RegistriesInput,
) -> Vec<McoFinding> {
    let mut out = list_findings(insecure, blocked, allowed);
    out.extend(set_findings(input));
    out
}

/// The Image-config half of `validateRegistriesConfScopes`: entries
/// `IsValidRegistriesConfScope` refuses.
pub fn list_findings(
    insecure: &[String],
    blocked: &[String],
    allowed: &[String],
) -> Vec<McoFinding> {
    let invalid = |list: &[String], finding: fn(String) -> McoFinding| {
        list.iter()
            .filter(|s| !is_valid_registries_conf_scope(s))
            .map(|s| finding(s.clone()))
            .collect::<Vec<_>>()
    };
    let mut out = invalid(insecure, McoFinding::InvalidInsecure);
    out.extend(invalid(blocked, McoFinding::InvalidBlocked));
    out.extend(invalid(allowed, McoFinding::InvalidAllowed));
    out
}

/// The mirror-set half of `validateRegistriesConfScopes`.
pub fn set_findings(input: &RegistriesInput) -> Vec<McoFinding> {
    let mut out = Vec::new();
    let mut policies: HashMap<&str, (SourcePolicy, &Origin)> = HashMap::new();
    for set in input.idms.iter().chain(&input.icsp).chain(&input.itms) {
        let origin = || set.origin.clone();
        if !is_valid_source(&set.source) {
            out.push(McoFinding::InvalidSource {
                scope: set.source.clone(),
                origin: origin(),
            });
        }
        match policies.get(set.source.as_str()) {
            Some((p, first)) if *p != set.policy => out.push(McoFinding::ConflictingPolicy {
                scope: set.source.clone(),
                origin: origin(),
                first: (*first).clone(),
            }),
            Some(_) => {}
            None => {
                policies.insert(&set.source, (set.policy, &set.origin));
            }
        }
        for m in &set.mirrors {
            if !is_valid_mirror(m) {
                out.push(McoFinding::InvalidMirror {
                    mirror: m.clone(),
                    origin: origin(),
                });
            }
            if set.policy == SourcePolicy::NeverContactSource && *m == set.source {
                out.push(McoFinding::NeverContactSourceIsMirror {
                    scope: set.source.clone(),
                    origin: origin(),
                });
            }
        }
    }
    out
}

/// The MCO's `validateRegistriesConfScopes` as the MCO runs it: it stops
/// at the first finding.
pub fn validate_scopes(
    insecure: &[String],
    blocked: &[String],
    allowed: &[String],
    input: &RegistriesInput,
) -> Result<(), McoFinding> {
    validate_scopes_as(
        insecure,
        blocked,
        allowed,
        input,
        ValidationFamily::Patterns,
    )
}

/// [`validate_scopes`] as the release of `family` runs it.
pub fn validate_scopes_as(
    insecure: &[String],
    blocked: &[String],
    allowed: &[String],
    input: &RegistriesInput,
    family: ValidationFamily,
) -> Result<(), McoFinding> {
    let mut findings = list_findings_as(insecure, blocked, allowed, family);
    findings.extend(set_findings_as(input, family));
    match findings.into_iter().next() {
        Some(first) => Err(first),
        None => Ok(()),
    }
}

/// [`list_findings`] as the release of `family` checks: runtime-utils
/// before 4.11 took an empty entry as a valid scope; before 4.9 nothing is
/// checked.
pub fn list_findings_as(
    insecure: &[String],
    blocked: &[String],
    allowed: &[String],
    family: ValidationFamily,
) -> Vec<McoFinding> {
    let mut findings = match family {
        ValidationFamily::None => Vec::new(),
        _ => list_findings(insecure, blocked, allowed),
    };
    if family == ValidationFamily::Wildcards {
        findings.retain(|f| {
            !matches!(f, McoFinding::InvalidInsecure(s) | McoFinding::InvalidBlocked(s)
                | McoFinding::InvalidAllowed(s) if s.is_empty())
        });
    }
    findings
}

/// [`set_findings`] as the release of `family` checks: before 4.13 only
/// ImageContentSourcePolicy sets, for `*` (and from 4.11 empty entries);
/// 4.13–4.15 every set with the empty and wildcard checks; from 4.16 the
/// source and mirror patterns.
pub fn set_findings_as(input: &RegistriesInput, family: ValidationFamily) -> Vec<McoFinding> {
    use ValidationFamily::*;
    let sets: Vec<&MirrorSet> = match family {
        None => return Vec::new(),
        Patterns => return set_findings(input),
        Wildcards | EmptyAndWildcards => input.icsp.iter().collect(),
        MirrorSets | MirrorSetsNamingIcsp => input
            .idms
            .iter()
            .chain(&input.icsp)
            .chain(&input.itms)
            .collect(),
    };
    let empty_checked = family != Wildcards;
    let policies_checked = matches!(family, MirrorSets | MirrorSetsNamingIcsp);
    let mut out = Vec::new();
    let mut policies: HashMap<&str, (SourcePolicy, &Origin)> = HashMap::new();
    let entry_finding = |entry: &str, origin: &Origin, empty: McoFinding| {
        if empty_checked && entry.is_empty() {
            Some(empty)
        } else if entry.contains('*') {
            Some(McoFinding::WildcardMirrorConfiguration {
                entry: entry.to_string(),
                origin: origin.clone(),
            })
        } else {
            Option::None
        }
    };
    for set in sets {
        let origin = &set.origin;
        let empty = McoFinding::EmptySource {
            origin: origin.clone(),
        };
        out.extend(entry_finding(&set.source, origin, empty));
        if policies_checked {
            out.extend(policy_conflict(&mut policies, set, family));
        }
        for m in &set.mirrors {
            let empty = McoFinding::EmptyMirror {
                origin: origin.clone(),
            };
            out.extend(entry_finding(m, origin, empty));
            if policies_checked
                && set.policy == SourcePolicy::NeverContactSource
                && *m == set.source
            {
                out.push(McoFinding::NeverContactSourceIsMirror {
                    scope: set.source.clone(),
                    origin: origin.clone(),
                });
            }
        }
    }
    out
}

/// A set whose `mirrorSourcePolicy` differs from an earlier set's for the
/// same source, worded as the release of `family` words it.
fn policy_conflict<'a>(
    policies: &mut HashMap<&'a str, (SourcePolicy, &'a Origin)>,
    set: &'a MirrorSet,
    family: ValidationFamily,
) -> Option<McoFinding> {
    match policies.get(set.source.as_str()) {
        Some((p, first)) if *p != set.policy => {
            let (scope, origin, first) = (set.source.clone(), set.origin.clone(), (*first).clone());
            Some(match family {
                ValidationFamily::MirrorSets => McoFinding::ConflictingPolicyInSets {
                    scope,
                    origin,
                    first,
                },
                _ => McoFinding::ConflictingPolicy {
                    scope,
                    origin,
                    first,
                },
            })
        }
        Some(_) => None,
        None => {
            policies.insert(&set.source, (set.policy, &set.origin));
            None
        }
    }
}

/// registries.conf in the shape the MCO encodes (containers/image `V2RegistriesConf`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct V2RegistriesConf {
    pub registries: Vec<RegistryEntry>,
    /// None: absent (nil); Some(empty): written as `[]`.
    pub unqualified_search_registries: Option<Vec<String>>,
    pub credential_helpers: Option<Vec<String>>,
    pub short_name_mode: String,
    pub additional_layer_store_auth_helper: String,
}

/// A `[[registry]]` table as the MCO writes it (prefix empty unless a wildcard).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistryEntry {
    pub prefix: String,
    pub location: String,
    pub insecure: bool,
    pub blocked: bool,
    pub mirror_by_digest_only: bool,
    pub mirrors: Vec<Endpoint>,
    /// The CR objects that caused the entry or its flags.
    pub origins: Vec<Origin>,
}

impl RegistryEntry {
    /// runtime-utils `registryScope`: the prefix, or the location when it is empty.
    pub fn scope(&self) -> &str {
        if self.prefix.is_empty() {
            &self.location
        } else {
            &self.prefix
        }
    }
}

/// A `[[registry.mirror]]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoint {
    pub location: String,
    pub insecure: bool,
    pub pull_from_mirror: String,
    /// The CR objects that list this mirror for the entry's source.
    pub origins: Vec<Origin>,
}

/// One source after merging all sets that name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedSet {
    pub source: String,
    pub mirrors: Vec<String>,
    pub never_contact_source: bool,
    /// For each mirror (same index), the objects that list it.
    pub mirror_origins: Vec<Vec<Origin>>,
    /// The objects whose sets for this source were used.
    pub origins: Vec<Origin>,
}

/// runtime-utils `mergedDigestMirrorSets` / `mergedTagMirrorSets`: sets with no
/// real mirror are ignored (their policy too); sources come out byte-wise sorted.
pub fn merge_sets<'a>(sets: impl IntoIterator<Item = &'a MirrorSet>) -> Vec<MergedSet> {
    let mut sets: Vec<&MirrorSet> = sets
        .into_iter()
        .filter(|set| set.mirrors.iter().any(|m| *m != set.source))
        .collect();
    // Stable: the sets of one source stay in input order.
    sets.sort_by(|a, b| a.source.cmp(&b.source));
    sets.chunk_by(|a, b| a.source == b.source)
        .map(merge_source)
        .collect()
}

/// The sets of one source (at least one), merged.
fn merge_source(group: &[&MirrorSet]) -> MergedSet {
    let source = &group[0].source;
    let lists: Vec<&[String]> = group.iter().map(|s| s.mirrors.as_slice()).collect();
    let mut origins = Vec::with_capacity(1);
    for set in group {
        Origin::push_unique(&mut origins, &set.origin);
    }
    let mirrors = merged_mirrors(source, &lists);
    let mirror_origins = mirrors
        .iter()
        .map(|m| {
            let mut origins = Vec::with_capacity(1);
            for set in group.iter().filter(|set| set.mirrors.contains(m)) {
                Origin::push_unique(&mut origins, &set.origin);
            }
            origins
        })
        .collect();
    MergedSet {
        source: source.clone(),
        mirrors,
        never_contact_source: group
            .iter()
            .any(|s| s.policy == SourcePolicy::NeverContactSource),
        mirror_origins,
        origins,
    }
}

struct Editor<'c> {
    conf: &'c mut V2RegistriesConf,
    index: HashMap<String, usize>,
    family: EditFamily,
}

/// The scope an entry is found by: runtime-utils before 4.9 matched the
/// location only (it never wrote prefixes), later its `registryScope`.
fn entry_key(r: &RegistryEntry, family: EditFamily) -> &str {
    match family {
        EditFamily::ExactLocation => &r.location,
        _ => r.scope(),
    }
}

/// Whether `sub` is `sup` or inside it: runtime-utils before 4.9
/// (`scopeMatchesRegistry`) knew no wildcards.
fn nested_in(sub: &str, sup: &str, family: EditFamily) -> bool {
    match family {
        EditFamily::ExactLocation => {
            sub == sup
                || (sub.len() > sup.len()
                    && sub.starts_with(sup)
                    && sub.as_bytes()[sup.len()] == b'/')
        }
        _ => scope_is_nested_inside_scope(sub, sup),
    }
}

impl<'c> Editor<'c> {
    fn new(conf: &'c mut V2RegistriesConf, family: EditFamily) -> Self {
        let mut index = HashMap::new();
        for (i, r) in conf.registries.iter().enumerate() {
            index.entry(entry_key(r, family).to_string()).or_insert(i);
        }
        Self {
            conf,
            index,
            family,
        }
    }

    /// runtime-utils `getRegistryEntry`: the first entry with this scope, or a new one at the end.
    fn entry(&mut self, scope: &str) -> usize {
        if let Some(&i) = self.index.get(scope) {
            return i;
        }
        let mut r = RegistryEntry::default();
        if scope.starts_with("*.") && self.family != EditFamily::ExactLocation {
            r.prefix = scope.to_string();
        } else {
            r.location = scope.to_string();
        }
        self.conf.registries.push(r);
        let i = self.conf.registries.len() - 1;
        self.index.insert(scope.to_string(), i);
        i
    }

    fn add_sets(&mut self, sets: &[MergedSet], pull_from_mirror: &str) {
        for set in sets {
            let i = self.entry(&set.source);
            let r = &mut self.conf.registries[i];
            if set.never_contact_source {
                r.blocked = true;
            }
            if !self.family.pull_from_mirror() {
                r.mirror_by_digest_only = true;
            }
            for o in &set.origins {
                Origin::push_unique(&mut r.origins, o);
            }
            for (m, origins) in set.mirrors.iter().zip(&set.mirror_origins) {
                r.mirrors.push(Endpoint {
                    location: m.clone(),
                    insecure: false,
                    pull_from_mirror: if self.family.pull_from_mirror() {
                        pull_from_mirror.to_string()
                    } else {
                        String::new()
                    },
                    origins: origins.clone(),
                });
            }
        }
    }
}

/// runtime-utils `EditRegistriesConfig` of OpenShift 4.13 and later,
/// applied to `conf` (the decoded template).
pub fn edit_registries_config(
    conf: &mut V2RegistriesConf,
    input: &RegistriesInput,
) -> Result<(), RenderError> {
    edit_registries_config_as(conf, input, EditFamily::PullFromMirror)
}

/// runtime-utils `EditRegistriesConfig` as the release family vendors it.
/// Before 4.13 only ImageContentSourcePolicy sets exist: the caller leaves
/// the ImageDigestMirrorSet and ImageTagMirrorSet lists empty.
pub fn edit_registries_config_as(
    conf: &mut V2RegistriesConf,
    input: &RegistriesInput,
    family: EditFamily,
) -> Result<(), RenderError> {
    let digest_sets = merge_sets(input.idms.iter().chain(&input.icsp));
    let tag_sets = merge_sets(&input.itms);
    let insecure = input.insecure.as_deref().unwrap_or_default();
    let blocked = input.blocked.as_deref().unwrap_or_default();
    // One entry per source at most, and for each blocked scope.
    conf.registries
        .reserve(digest_sets.len() + tag_sets.len() + input.blocked.as_ref().map_or(0, Vec::len));
    let mut ed = Editor::new(conf, family);

    ed.add_sets(&digest_sets, DIGEST_ONLY);
    ed.add_sets(&tag_sets, TAG_ONLY);
    // From 4.9 blocked entries exist before the insecure pass, so that a
    // blocked scope nested in an insecure one is marked insecure too.
    if family != EditFamily::ExactLocation {
        for scope in blocked {
            ed.entry(scope);
        }
    }
    ed.mark_insecure(insecure, input.image_origin.as_ref());
    ed.mark_blocked(blocked, input.image_origin.as_ref());
    match family {
        EditFamily::ExactLocation | EditFamily::Wildcards => Ok(()),
        EditFamily::NestedMirrors | EditFamily::PullFromMirror => {
            propagate_nested_mirrors(ed.conf, &ed.index, &digest_sets, &tag_sets)
        }
    }
}

impl Editor<'_> {
    fn mark_insecure(&mut self, insecure: &[String], image_origin: Option<&Origin>) {
        let family = self.family;
        for scope in insecure {
            let i = self.entry(scope);
            self.conf.registries[i].insecure = true;
            for r in &mut self.conf.registries {
                if nested_in(entry_key(r, family), scope, family) {
                    r.insecure = true;
                    if let Some(o) = image_origin {
                        Origin::push_unique(&mut r.origins, o);
                    }
                }
                for m in &mut r.mirrors {
                    if nested_in(&m.location, scope, family) {
                        m.insecure = true;
                        if let Some(o) = image_origin {
                            Origin::push_unique(&mut m.origins, o);
                        }
                    }
                }
            }
        }
    }

    fn mark_blocked(&mut self, blocked: &[String], image_origin: Option<&Origin>) {
        let family = self.family;
        for scope in blocked {
            let i = self.entry(scope);
            self.conf.registries[i].blocked = true;
            for r in &mut self.conf.registries {
                if nested_in(entry_key(r, family), scope, family) {
                    r.blocked = true;
                    if let Some(o) = image_origin {
                        Origin::push_unique(&mut r.origins, o);
                    }
                }
            }
        }
    }
}

/// Step G: an entry without mirrors that is nested inside a mirrored source
/// gets copies of that source's mirrors, from the first such set in
/// (digest sets, then tag sets) order. Only mirror-less entries are visited.
fn propagate_nested_mirrors(
    conf: &mut V2RegistriesConf,
    index: &HashMap<String, usize>,
    digest_sets: &[MergedSet],
    tag_sets: &[MergedSet],
) -> Result<(), RenderError> {
    let empty: Vec<usize> = (0..conf.registries.len())
        .filter(|&i| conf.registries[i].mirrors.is_empty())
        .collect();
    if empty.is_empty() {
        return Ok(());
    }
    // The mirrored entries in set order (the entry of each set's source).
    let mirrored: Vec<usize> = digest_sets
        .iter()
        .chain(tag_sets)
        .map(|s| index[s.source.as_str()])
        .collect();
    let mut assignments: Vec<(usize, usize)> = Vec::new();
    let mut first_error: Option<(usize, String)> = None;
    for &e in &empty {
        let scope = conf.registries[e].scope().to_string();
        let found = mirrored.iter().enumerate().find(|(_, &m)| {
            let ms = conf.registries[m].scope();
            scope != ms && scope_is_nested_inside_scope(&scope, ms)
        });
        if let Some((pos, &m)) = found {
            let ms = conf.registries[m].scope();
            if ms.starts_with("*.") {
                if first_error.as_ref().is_none_or(|(p, _)| pos < *p) {
                    first_error = Some((pos, ms.to_string()));
                }
            } else {
                assignments.push((e, m));
            }
        }
    }
    if let Some((_, scope)) = first_error {
        return Err(RenderError::WildcardNestedScope(scope));
    }
    for (e, m) in assignments {
        let ms = conf.registries[m].scope().to_string();
        let suffix = conf.registries[e].scope()[ms.len()..].to_string();
        let copies: Vec<Endpoint> = conf.registries[m]
            .mirrors
            .iter()
            .map(|mirror| Endpoint {
                location: format!("{}{suffix}", mirror.location),
                ..mirror.clone()
            })
            .collect();
        let origins = conf.registries[m].origins.clone();
        let by_digest = conf.registries[m].mirror_by_digest_only;
        let entry = &mut conf.registries[e];
        entry.mirrors = copies;
        // 4.11–4.12 copy the source's `mirror-by-digest-only` along.
        entry.mirror_by_digest_only = by_digest;
        for o in &origins {
            Origin::push_unique(&mut entry.origins, o);
        }
    }
    Ok(())
}

/// For each source, the pairs of mirrors that two sets order oppositely.
pub fn order_conflicts(input: &RegistriesInput) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let kinds = [
        input.idms.iter().chain(&input.icsp).collect::<Vec<_>>(),
        input.itms.iter().collect(),
    ];
    for sets in kinds {
        for (source, sets) in shared_sources(&sets) {
            for (i, a) in sets.iter().enumerate() {
                for b in &sets[i + 1..] {
                    for (x, m1) in a.mirrors.iter().enumerate() {
                        for m2 in &a.mirrors[x + 1..] {
                            let p1 = b.mirrors.iter().position(|m| m == m1);
                            let p2 = b.mirrors.iter().position(|m| m == m2);
                            if let (Some(p1), Some(p2)) = (p1, p2) {
                                if p2 < p1 {
                                    out.entry(source.to_string()).or_default().push(format!(
                                        "{} lists {m1} before {m2}, {} the other way round: the merged order is unspecified",
                                        a.origin, b.origin
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// The sources that two or more of `sets` list, each with its sets in
/// order; a source listed once (nearly all of them at oc-mirror scale) is
/// only hashed.
fn shared_sources<'s>(sets: &[&'s MirrorSet]) -> BTreeMap<&'s str, Vec<&'s MirrorSet>> {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(sets.len());
    let mut shared: BTreeMap<&str, Vec<&MirrorSet>> = BTreeMap::new();
    for (i, s) in sets.iter().enumerate() {
        match first.entry(s.source.as_str()) {
            Entry::Vacant(v) => {
                v.insert(i);
            }
            Entry::Occupied(o) => shared
                .entry(s.source.as_str())
                .or_insert_with(|| vec![sets[*o.get()]])
                .push(s),
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(source: &str, mirrors: &[&str], policy: SourcePolicy, origin: &str) -> MirrorSet {
        MirrorSet {
            source: source.to_string(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            policy,
            origin: Origin::from(origin.to_string()),
        }
    }

    use SourcePolicy::{AllowContactingSource as Allow, NeverContactSource as Never};

    /// runtime-utils registries_test.go `TestRDMContainsARealMirror`, through `merge_sets`.
    #[test]
    fn sets_without_a_real_mirror_are_ignored_upstream_cases() {
        let source = "source.example.com";
        for (mirrors, real) in [
            (vec![], false),
            (vec!["mirror.local"], true),
            (vec![source], false),
            (vec![source, source, source], false),
            (vec!["mirror.local", source], true),
            (vec![source, "mirror.local"], true),
            (vec!["m1.local", "m2.local", "m3.local"], true),
        ] {
            let s = set(source, &mirrors, Allow, "ImageContentSourcePolicy/x");
            assert_eq!(merge_sets([&s]).len() == 1, real, "{mirrors:?}");
        }
    }

    type Sets<'a> = Vec<(&'a str, Vec<&'a str>)>;

    /// runtime-utils registries_test.go `TestMergedMirrorSets`.
    #[test]
    fn merged_mirror_sets_upstream_cases() {
        let cases: Vec<(&str, Sets, Sets)> = vec![
            (
                "irrelevant singletons",
                vec![("a.example.com", vec![]), ("b.example.com", vec![])],
                vec![],
            ),
            (
                "separate mirror sets",
                vec![
                    (
                        "source.example.net",
                        vec!["z1.example.net", "y2.example.net", "x3.example.net"],
                    ),
                    (
                        "source.example.com",
                        vec!["z1.example.com", "y2.example.com", "x3.example.com"],
                    ),
                ],
                vec![
                    (
                        "source.example.com",
                        vec!["z1.example.com", "y2.example.com", "x3.example.com"],
                    ),
                    (
                        "source.example.net",
                        vec!["z1.example.net", "y2.example.net", "x3.example.net"],
                    ),
                ],
            ),
            (
                "sets with a shared element - strict order",
                vec![
                    (
                        "source.example.net",
                        vec!["z1.example.net", "y2.example.net"],
                    ),
                    (
                        "source.example.com",
                        vec!["z1.example.com", "y2.example.com"],
                    ),
                    (
                        "source.example.net",
                        vec!["y2.example.net", "x3.example.net"],
                    ),
                    (
                        "source.example.com",
                        vec!["y2.example.com", "x3.example.com"],
                    ),
                ],
                vec![
                    (
                        "source.example.com",
                        vec!["z1.example.com", "y2.example.com", "x3.example.com"],
                    ),
                    (
                        "source.example.net",
                        vec!["z1.example.net", "y2.example.net", "x3.example.net"],
                    ),
                ],
            ),
            (
                "source included in mirrors",
                vec![
                    (
                        "source.example.com",
                        vec!["z1.example.com", "source.example.com", "y2.example.com"],
                    ),
                    (
                        "source.example.com",
                        vec!["source.example.com", "y2.example.com", "x3.example.com"],
                    ),
                ],
                vec![(
                    "source.example.com",
                    vec![
                        "z1.example.com",
                        "source.example.com",
                        "y2.example.com",
                        "x3.example.com",
                    ],
                )],
            ),
            (
                "mirrors include only the source",
                vec![
                    ("source.example.com", vec!["source.example.com"]),
                    (
                        "source.example.net",
                        vec!["source.example.net", "source.example.net"],
                    ),
                ],
                vec![],
            ),
            (
                "example",
                vec![
                    ("source.vendor.com", vec!["registry2.vendor.com"]),
                    (
                        "source.vendor2.com",
                        vec!["registry1.vendor2.com", "registry2.vendor2.com"],
                    ),
                    ("source.vendor.com", vec!["local-mirror.example.com"]),
                    (
                        "source.vendor2.com",
                        vec![
                            "local-mirror2.example.com",
                            "registry2.vendor2.com",
                            "registry1.vendor2.com",
                        ],
                    ),
                ],
                vec![
                    (
                        "source.vendor.com",
                        vec!["local-mirror.example.com", "registry2.vendor.com"],
                    ),
                    (
                        "source.vendor2.com",
                        vec![
                            "local-mirror2.example.com",
                            "registry1.vendor2.com",
                            "registry2.vendor2.com",
                        ],
                    ),
                ],
            ),
        ];
        for (name, input, want) in cases {
            let sets: Vec<MirrorSet> = input
                .iter()
                .map(|(src, m)| set(src, m, Allow, "ImageContentSourcePolicy/x"))
                .collect();
            let got: Vec<(String, Vec<String>)> = merge_sets(&sets)
                .into_iter()
                .map(|m| (m.source, m.mirrors))
                .collect();
            let want: Vec<(String, Vec<String>)> = want
                .into_iter()
                .map(|(s, m)| (s.to_string(), m.into_iter().map(str::to_string).collect()))
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }

    /// runtime-utils registries_test.go `TestEditRegistriesConfig`, case
    /// "insecure+blocked": entries in blocked-then-insecure order.
    #[test]
    fn edit_insecure_and_blocked_upstream_case() {
        let input = RegistriesInput {
            insecure: Some(vec![
                "registry.access.redhat.com".into(),
                "insecure.com".into(),
                "common.com".into(),
            ]),
            blocked: Some(vec![
                "blocked.com".into(),
                "common.com".into(),
                "docker.io".into(),
            ]),
            ..Default::default()
        };
        assert_eq!(
            summary(&edit(&input).unwrap()),
            vec![
                "blocked.com blocked -> []",
                "common.com blocked insecure -> []",
                "docker.io blocked -> []",
                "registry.access.redhat.com insecure -> []",
                "insecure.com insecure -> []",
            ]
        );
    }

    /// runtime-utils registries_test.go `TestEditRegistriesConfig`, case
    /// "insecure+blocked prefixes with wildcard entries" (digest mirrors now
    /// carry `pull-from-mirror = "digest-only"` instead of the registry's
    /// `mirror-by-digest-only`).
    #[test]
    fn edit_wildcard_insecure_and_blocked_upstream_case() {
        let p = "ImageContentSourcePolicy/p";
        let input = RegistriesInput {
            icsp: vec![
                set(
                    "insecure.com/ns-i1",
                    &["blocked.com/ns-b1", "other.com/ns-o1"],
                    Allow,
                    p,
                ),
                set(
                    "blocked.com/ns-b/ns2-b",
                    &["other.com/ns-o2", "insecure.com/ns-i2"],
                    Allow,
                    p,
                ),
                set(
                    "other.com/ns-o3",
                    &[
                        "insecure.com/ns-i2",
                        "blocked.com/ns-b/ns3-b",
                        "foo.insecure-example.com/bar",
                    ],
                    Allow,
                    p,
                ),
            ],
            insecure: Some(vec![
                "insecure.com".into(),
                "*.insecure-example.com".into(),
                "*.insecure.blocked-example.com".into(),
            ]),
            blocked: Some(vec![
                "blocked.com".into(),
                "*.blocked.insecure-example.com".into(),
                "*.blocked-example.com".into(),
            ]),
            ..Default::default()
        };
        assert_eq!(
            summary(&edit(&input).unwrap()),
            vec![
                "blocked.com/ns-b/ns2-b blocked -> [other.com/ns-o2(digest-only), insecure.com/ns-i2!(digest-only)]",
                "insecure.com/ns-i1 insecure -> [blocked.com/ns-b1(digest-only), other.com/ns-o1(digest-only)]",
                "other.com/ns-o3 -> [insecure.com/ns-i2!(digest-only), blocked.com/ns-b/ns3-b(digest-only), foo.insecure-example.com/bar!(digest-only)]",
                "blocked.com blocked -> []",
                "*.blocked.insecure-example.com blocked insecure -> []",
                "*.blocked-example.com blocked -> []",
                "insecure.com insecure -> []",
                "*.insecure-example.com insecure -> []",
                "*.insecure.blocked-example.com blocked insecure -> []",
            ]
        );
    }

    #[test]
    fn source_and_mirror_patterns() {
        for (s, source_ok, mirror_ok) in [
            ("quay.io", true, true),
            ("quay.io/ns/repo", true, true),
            ("registry.example.com:5000/a/b", true, true),
            ("*.example.com", true, false),
            ("Quay.io/ns", true, true),
            ("quay.io/NS", false, false),
            ("quay.io/ns:tag", false, false),
            ("quay.io/ns@sha256:abc", false, false),
            ("https://quay.io", false, false),
            ("", false, false),
        ] {
            assert_eq!(is_valid_source(s), source_ok, "source {s}");
            assert_eq!(is_valid_mirror(s), mirror_ok, "mirror {s}");
        }
    }

    /// MCO helpers_test.go `TestValidateRegistriesConfScopes` rules.
    /// Issue 13: validation returns every finding as a typed value, in the
    /// MCO's order; `validate_scopes` (what `render` uses) stops at the first.
    #[test]
    fn issue_13_scope_findings_are_collected_in_mco_order() {
        let input = RegistriesInput {
            idms: vec![
                set(
                    "quay.io/a",
                    &["bad mirror"],
                    Never,
                    "ImageDigestMirrorSet/x",
                ),
                set("Bad Source", &["m.io/b"], Allow, "ImageDigestMirrorSet/y"),
            ],
            icsp: vec![set(
                "quay.io/a",
                &["m.io/a"],
                Allow,
                "ImageContentSourcePolicy/z",
            )],
            ..Default::default()
        };
        let all = scope_findings(&["*.a/b".into()], &[], &["**.c".into()], &input);
        let origin = |s: &str| Origin::from(s.to_string());
        assert_eq!(
            all,
            [
                McoFinding::InvalidInsecure("*.a/b".into()),
                McoFinding::InvalidAllowed("**.c".into()),
                McoFinding::InvalidMirror {
                    mirror: "bad mirror".into(),
                    origin: origin("ImageDigestMirrorSet/x"),
                },
                McoFinding::InvalidSource {
                    scope: "Bad Source".into(),
                    origin: origin("ImageDigestMirrorSet/y"),
                },
                McoFinding::ConflictingPolicy {
                    scope: "quay.io/a".into(),
                    origin: origin("ImageContentSourcePolicy/z"),
                    first: origin("ImageDigestMirrorSet/x"),
                },
            ]
        );
        assert_eq!(
            validate_scopes(&["*.a/b".into()], &[], &["**.c".into()], &input),
            Err(all[0].clone())
        );
        // The object and the MCO's message, split for a list of findings.
        assert_eq!(all[0].object().as_str(), "Image/cluster");
        assert_eq!(all[0].to_string(), all[0].message());
        assert_eq!(all[2].object().as_str(), "ImageDigestMirrorSet/x");
        assert_eq!(
            all[2].to_string(),
            format!("ImageDigestMirrorSet/x: {}", all[2].message())
        );
    }

    #[test]
    fn validate_scopes_rules() {
        let ok = RegistriesInput {
            idms: vec![set(
                "quay.io/a",
                &["m.io/a"],
                Never,
                "ImageDigestMirrorSet/x",
            )],
            ..Default::default()
        };
        assert_eq!(validate_scopes(&[], &[], &[], &ok), Ok(()));
        assert_eq!(
            validate_scopes(&["*.x.com:5000".into()], &[], &[], &ok),
            Err(McoFinding::InvalidInsecure("*.x.com:5000".into()))
        );
        assert_eq!(
            validate_scopes(&[], &["".into()], &[], &ok),
            Err(McoFinding::InvalidBlocked(String::new()))
        );
        let conflict = RegistriesInput {
            idms: vec![set(
                "quay.io/a",
                &["m.io/a"],
                Never,
                "ImageDigestMirrorSet/x",
            )],
            icsp: vec![set(
                "quay.io/a",
                &["m.io/b"],
                Allow,
                "ImageContentSourcePolicy/y",
            )],
            ..Default::default()
        };
        let err = validate_scopes(&[], &[], &[], &conflict).unwrap_err();
        assert!(matches!(err, McoFinding::ConflictingPolicy { .. }), "{err}");
        assert!(err.to_string().contains("ImageContentSourcePolicy/y"));
        // Sets without mirrors still record their policy.
        let empty_conflict = RegistriesInput {
            idms: vec![set("quay.io/a", &[], Never, "ImageDigestMirrorSet/x")],
            itms: vec![set("quay.io/a", &["m.io/a"], Allow, "ImageTagMirrorSet/t")],
            ..Default::default()
        };
        assert!(validate_scopes(&[], &[], &[], &empty_conflict).is_err());
        let self_mirror = RegistriesInput {
            idms: vec![set(
                "quay.io/a",
                &["quay.io/a"],
                Never,
                "ImageDigestMirrorSet/x",
            )],
            ..Default::default()
        };
        assert!(matches!(
            validate_scopes(&[], &[], &[], &self_mirror),
            Err(McoFinding::NeverContactSourceIsMirror { .. })
        ));
        let bad_mirror = RegistriesInput {
            icsp: vec![set(
                "quay.io/a",
                &["*.m.io"],
                Allow,
                "ImageContentSourcePolicy/y",
            )],
            ..Default::default()
        };
        assert!(matches!(
            validate_scopes(&[], &[], &[], &bad_mirror),
            Err(McoFinding::InvalidMirror { .. })
        ));
    }

    fn edit(input: &RegistriesInput) -> Result<V2RegistriesConf, RenderError> {
        let mut conf = V2RegistriesConf::default();
        edit_registries_config(&mut conf, input).map(|()| conf)
    }

    fn summary(conf: &V2RegistriesConf) -> Vec<String> {
        conf.registries
            .iter()
            .map(|r| {
                let mirrors: Vec<String> = r
                    .mirrors
                    .iter()
                    .map(|m| {
                        format!(
                            "{}{}({})",
                            m.location,
                            if m.insecure { "!" } else { "" },
                            m.pull_from_mirror
                        )
                    })
                    .collect();
                format!(
                    "{}{}{} -> [{}]",
                    r.scope(),
                    if r.blocked { " blocked" } else { "" },
                    if r.insecure { " insecure" } else { "" },
                    mirrors.join(", ")
                )
            })
            .collect()
    }

    /// runtime-utils registries_test.go `TestEditRegistriesConfig`: the shape
    /// of its main case (digest and tag sets, blocked and insecure scopes,
    /// nested propagation).
    #[test]
    fn edit_registries_config_main_case() {
        let input = RegistriesInput {
            idms: vec![
                set(
                    "insecure.com/ns-i1",
                    &["blocked.com/ns-b1", "other.com/ns-o1"],
                    Allow,
                    "ImageDigestMirrorSet/a",
                ),
                set(
                    "blocked.com/ns-b/ns2-b",
                    &["other.com/ns-o2", "insecure.com/ns-i2"],
                    Allow,
                    "ImageDigestMirrorSet/a",
                ),
                set(
                    "other.com/ns-o3",
                    &[
                        "insecure.com/ns-i2",
                        "blocked.com/ns-b/ns3-b",
                        "foo.insecure-example.com/bar",
                    ],
                    Allow,
                    "ImageDigestMirrorSet/b",
                ),
                set(
                    "source.com/ns",
                    &["mirror.com/ns"],
                    Never,
                    "ImageDigestMirrorSet/c",
                ),
            ],
            itms: vec![set(
                "tag.com/ns",
                &["tag-mirror.com/ns"],
                Allow,
                "ImageTagMirrorSet/t",
            )],
            insecure: Some(vec!["insecure.com".into(), "*.insecure-example.com".into()]),
            blocked: Some(vec!["blocked.com".into(), "source.com/ns/blocked".into()]),
            image_origin: Some(Origin::from("Image/cluster")),
            ..Default::default()
        };
        let conf = edit(&input).unwrap();
        assert_eq!(
            summary(&conf),
            vec![
                "blocked.com/ns-b/ns2-b blocked -> [other.com/ns-o2(digest-only), insecure.com/ns-i2!(digest-only)]",
                "insecure.com/ns-i1 insecure -> [blocked.com/ns-b1(digest-only), other.com/ns-o1(digest-only)]",
                "other.com/ns-o3 -> [insecure.com/ns-i2!(digest-only), blocked.com/ns-b/ns3-b(digest-only), foo.insecure-example.com/bar!(digest-only)]",
                "source.com/ns blocked -> [mirror.com/ns(digest-only)]",
                "tag.com/ns -> [tag-mirror.com/ns(tag-only)]",
                "blocked.com blocked -> []",
                "source.com/ns/blocked blocked -> [mirror.com/ns/blocked(digest-only)]",
                "insecure.com insecure -> []",
                "*.insecure-example.com insecure -> []",
            ]
        );
        let entry = &conf.registries[3];
        assert_eq!(entry.origins, vec![Origin::from("ImageDigestMirrorSet/c")]);
    }

    #[test]
    fn never_contact_source_without_real_mirror_is_ignored() {
        let input = RegistriesInput {
            idms: vec![
                set("quay.io/a", &[], Never, "ImageDigestMirrorSet/x"),
                set("quay.io/b", &["quay.io/b"], Never, "ImageDigestMirrorSet/x"),
            ],
            ..Default::default()
        };
        assert!(edit(&input).unwrap().registries.is_empty());
    }

    #[test]
    fn icsp_and_idms_merge_and_tag_mirrors_follow_digest_mirrors() {
        let input = RegistriesInput {
            idms: vec![set(
                "quay.io/a",
                &["m2.io/a", "m1.io/a"],
                Allow,
                "ImageDigestMirrorSet/x",
            )],
            icsp: vec![set(
                "quay.io/a",
                &["m1.io/a", "m3.io/a"],
                Allow,
                "ImageContentSourcePolicy/y",
            )],
            itms: vec![set("quay.io/a", &["m1.io/a"], Allow, "ImageTagMirrorSet/t")],
            ..Default::default()
        };
        let conf = edit(&input).unwrap();
        assert_eq!(
            summary(&conf),
            vec!["quay.io/a -> [m2.io/a(digest-only), m1.io/a(digest-only), m3.io/a(digest-only), m1.io/a(tag-only)]"]
        );
        let m1 = &conf.registries[0].mirrors[1];
        assert_eq!(
            m1.origins,
            vec![
                Origin::from("ImageDigestMirrorSet/x"),
                Origin::from("ImageContentSourcePolicy/y")
            ]
        );
    }

    #[test]
    fn wildcard_source_with_nested_mirrorless_entry_fails() {
        let input = RegistriesInput {
            idms: vec![set(
                "*.example.com",
                &["mirror.io/x"],
                Allow,
                "ImageDigestMirrorSet/w",
            )],
            blocked: Some(vec!["foo.example.com".into()]),
            ..Default::default()
        };
        assert_eq!(
            edit(&input),
            Err(RenderError::WildcardNestedScope("*.example.com".into()))
        );
        let alone = RegistriesInput {
            idms: vec![set(
                "*.example.com",
                &["mirror.io/x"],
                Allow,
                "ImageDigestMirrorSet/w",
            )],
            ..Default::default()
        };
        let conf = edit(&alone).unwrap();
        assert_eq!(conf.registries[0].prefix, "*.example.com");
        assert_eq!(conf.registries[0].location, "");
    }

    #[test]
    fn nested_propagation_takes_the_first_mirrored_ancestor() {
        let input = RegistriesInput {
            idms: vec![
                set("a.com", &["m.io/top"], Allow, "ImageDigestMirrorSet/top"),
                set("a.com/ns", &["n.io/ns"], Allow, "ImageDigestMirrorSet/ns"),
            ],
            insecure: Some(vec!["a.com/ns/repo".into()]),
            ..Default::default()
        };
        let conf = edit(&input).unwrap();
        assert_eq!(
            summary(&conf)[2],
            "a.com/ns/repo insecure -> [m.io/top/ns/repo(digest-only)]"
        );
    }
}
