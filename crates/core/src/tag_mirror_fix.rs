//! The fix for a pull by tag whose mirrors are all digest-only: the
//! ImageTagMirrorSet that lets tag pulls use the same mirrors.
//!
//! containers/image never uses a digest-only mirror (`mirror-by-digest-only`,
//! or `pull-from-mirror = "digest-only"`, which the MCO writes for every
//! ImageDigestMirrorSet and ImageContentSourcePolicy) for a reference by tag
//! (containers-registries.conf(5)), so such a pull goes to the source. Pinning
//! a digest is one way out, which means changing every pod spec. The other is
//! an ImageTagMirrorSet for the same source with the same mirrors, in the same
//! order (the MCO writes its mirrors as `pull-from-mirror = "tag-only"`, see
//! the OpenShift config API `ImageTagMirrorSet`); for mirrors an
//! ImageContentSourcePolicy lists, `migrate-icsp --with-tag-mirrors` writes it.
//!
//! This module builds that fix from the matched `[[registry]]` entry and the
//! mirrors the pull skipped. Whether each mirror holds the tag is the probe's
//! to find out (the live crate fills [`FixMirror::probe`]); rendering the fix
//! is left to `output`.

use serde::Serialize;

use crate::go_yaml::portable_scalar;
use crate::origin::Origin;
use crate::probe_result::{Outcome, SourceProbe};
use crate::reference::Reference;
use crate::registries::lookup::SkippedMirror;
use crate::registries::Registry;

/// The command that replaces ImageContentSourcePolicies by an
/// ImageDigestMirrorSet and an ImageTagMirrorSet each.
pub const MIGRATE_ICSP_WITH_TAGS: &str = "kubectl mirrorpolicy migrate-icsp --with-tag-mirrors";

/// What kind of fix this is (the JSON's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FixKind {
    /// An ImageTagMirrorSet listing the digest-only mirrors for tag pulls too.
    ImageTagMirrorSet,
}

/// How a pull by tag can use the mirrors it skips as digest-only.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TagMirrorFix {
    pub kind: FixKind,
    /// The ImageTagMirrorSet's `source`: the matched entry's prefix.
    pub source: String,
    /// The mirrors, in the order digest pulls use them.
    pub mirrors: Vec<FixMirror>,
    /// `NeverContactSource` when the entry's source is blocked by an
    /// ImageDigestMirrorSet: the MCO refuses a source whose mirror sets
    /// disagree on it, so the ImageTagMirrorSet must say the same.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mirror_source_policy: Option<&'static str>,
    /// The ImageTagMirrorSet to apply, as YAML; absent when the entry
    /// cannot be one (a registries.conf prefix rewritten to another
    /// location).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_tag_mirror_set: Option<String>,
    /// When ImageContentSourcePolicies list the mirrors: the command that
    /// replaces them by an ImageDigestMirrorSet and an ImageTagMirrorSet
    /// each, and those policies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub migrate_icsp: Option<MigrateIcsp>,
    /// With cluster objects: how to see the pull with the
    /// ImageTagMirrorSet before applying it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// With a registries.conf read from files: the edit that lets tag
    /// pulls use the mirrors where the MCO does not write that file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registries_conf: Option<String>,
    /// Tags are mutable: what to do before the mirrors serve them.
    pub caveat: String,
    /// What else to know about this fix (a blocked source).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The other way out.
    pub alternative: String,
}

/// The ImageContentSourcePolicies behind the mirrors and the command that
/// migrates them with their tag mirrors.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MigrateIcsp {
    pub command: String,
    /// `ImageContentSourcePolicy/<name>`.
    pub objects: Vec<Origin>,
}

/// One mirror of the fix.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FixMirror {
    /// The mirror's location: an entry of the ImageTagMirrorSet's `mirrors`.
    pub location: String,
    /// The pull spec the tag pull would use on this mirror.
    pub reference: String,
    /// The mirror's own `insecure` flag.
    pub insecure: bool,
    pub origins: Vec<Origin>,
    /// With `--probe`: what the mirror answered for the tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<SourceProbe>,
    /// With `--probe`: whether the mirror holds the tag, when its answer
    /// tells (served or not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holds_tag: Option<bool>,
}

impl FixMirror {
    /// Records what the mirror answered for the tag.
    pub fn record_probe(&mut self, probe: SourceProbe) {
        self.holds_tag = match probe.outcome {
            Outcome::Served => Some(true),
            Outcome::NotFound => Some(false),
            _ => None,
        };
        self.probe = Some(probe);
    }

    /// What the probe found, as a sentence; `None` when not probed.
    pub fn probe_summary(&self) -> Option<String> {
        let p = self.probe.as_ref()?;
        Some(match self.holds_tag {
            Some(true) => "the mirror holds this tag".to_string(),
            Some(false) => "the mirror does not hold this tag: mirror it first".to_string(),
            None => format!(
                "whether the mirror holds this tag is not known ({}: {})",
                p.outcome.as_str(),
                p.detail
            ),
        })
    }
}

impl TagMirrorFix {
    /// The commands the fix names, to be said as the user ran the plugin.
    pub fn commands_mut(&mut self) -> impl Iterator<Item = &mut String> {
        self.migrate_icsp
            .iter_mut()
            .map(|m| &mut m.command)
            .chain(self.check.iter_mut())
    }

    /// One line for a report row: what to add (and what to migrate), and
    /// what the probe found on each mirror.
    pub fn summary(&self) -> String {
        let locations: Vec<&str> = self.mirrors.iter().map(|m| m.location.as_str()).collect();
        let mut out = format!(
            "mirror the tags, then add an ImageTagMirrorSet for {} with the same mirrors ({})",
            self.source,
            locations.join(", ")
        );
        if let Some(policy) = self.mirror_source_policy {
            out.push_str(&format!(" and mirrorSourcePolicy: {policy}"));
        }
        if let Some(m) = &self.migrate_icsp {
            let names: Vec<&str> = m.objects.iter().map(Origin::as_str).collect();
            out.push_str(&format!(" (for {}: {})", names.join(", "), m.command));
        }
        out
    }
}

/// The mirror set kinds whose names origins carry (`Kind/name`).
const SET_KINDS: [&str; 3] = [
    "ImageDigestMirrorSet/",
    "ImageContentSourcePolicy/",
    "ImageTagMirrorSet/",
];

/// The fix for `reference`, pulled by tag through `registry`, when the pull
/// uses no mirror and `skipped` (the digest-only mirrors it skipped, in
/// order) is not empty; `None` otherwise. `mirrors_used` says whether an
/// endpoint the pull tries (and is not refused) is a mirror.
pub fn tag_mirror_fix(
    registry: &Registry,
    reference: &Reference,
    skipped: &[SkippedMirror],
    mirrors_used: bool,
) -> Option<TagMirrorFix> {
    if reference.is_digested() || skipped.is_empty() || mirrors_used {
        return None;
    }
    let mirrors = fix_mirrors(registry, skipped);
    let origins: Vec<&Origin> = registry
        .origins
        .iter()
        .chain(mirrors.iter().flat_map(|m| &m.origins))
        .collect();
    let from_objects = origins
        .iter()
        .any(|o| SET_KINDS.iter().any(|k| o.as_str().starts_with(k)));
    let icsps = icsps_of(&mirrors);
    let (mirror_source_policy, mut notes) = source_policy(registry, &origins);
    if from_objects && registry.mirror_by_digest_only {
        notes.push(
            "these mirrors are written with mirror-by-digest-only, as OpenShift releases before 4.13 \
             write them, which have no ImageTagMirrorSet: on such a release, pin a digest"
                .to_string(),
        );
    }
    let source = registry.prefix.clone();
    let expressible =
        source == registry.location || (source.starts_with("*.") && registry.location.is_empty());
    let locations: Vec<&str> = mirrors.iter().map(|m| m.location.as_str()).collect();
    let image_tag_mirror_set =
        expressible.then(|| itms_yaml(&source, &locations, mirror_source_policy));
    let check = (from_objects && expressible).then(|| {
        format!(
            "kubectl mirrorpolicy explain {} --with {}",
            reference,
            file_name(&source)
        )
    });
    let registries_conf = (!from_objects).then(|| registries_conf_edit(registry, &locations));
    let never = mirror_source_policy.is_some() || registry.blocked;
    Some(TagMirrorFix {
        kind: FixKind::ImageTagMirrorSet,
        source,
        mirrors,
        mirror_source_policy,
        image_tag_mirror_set,
        migrate_icsp: (!icsps.is_empty()).then(|| MigrateIcsp {
            command: MIGRATE_ICSP_WITH_TAGS.to_string(),
            objects: icsps,
        }),
        check,
        registries_conf,
        caveat: caveat(never),
        notes,
        alternative: format!(
            "pin a digest ({}@sha256:...): digest pulls use the mirrors as they are",
            reference.name()
        ),
    })
}

/// The skipped mirrors as the fix lists them, each with its own
/// `insecure` flag (which a pull through the fix would use).
fn fix_mirrors(registry: &Registry, skipped: &[SkippedMirror]) -> Vec<FixMirror> {
    skipped
        .iter()
        .map(|s| FixMirror {
            location: s.location.clone(),
            reference: s.reference.clone(),
            insecure: registry
                .mirrors
                .iter()
                .find(|m| m.location == s.location)
                .is_some_and(|m| m.insecure),
            origins: s.origins.clone(),
            probe: None,
            holds_tag: None,
        })
        .collect()
}

/// The ImageContentSourcePolicies that list the mirrors, each once.
fn icsps_of(mirrors: &[FixMirror]) -> Vec<Origin> {
    let mut icsps: Vec<Origin> = Vec::new();
    for o in mirrors.iter().flat_map(|m| &m.origins) {
        if o.as_str().starts_with("ImageContentSourcePolicy/") {
            Origin::push_unique(&mut icsps, o);
        }
    }
    icsps
}

/// The `mirrorSourcePolicy` the ImageTagMirrorSet must carry, and a note
/// when that cannot be told from the rendered entry: a blocked entry is
/// `NeverContactSource` of an ImageDigestMirrorSet unless the Image
/// config's `blockedRegistries` may block it instead.
fn source_policy(registry: &Registry, origins: &[&Origin]) -> (Option<&'static str>, Vec<String>) {
    if !registry.blocked {
        return (None, Vec::new());
    }
    let by_idms = origins
        .iter()
        .any(|o| o.as_str().starts_with("ImageDigestMirrorSet/"));
    let by_image = registry
        .origins
        .iter()
        .any(|o| o.as_str().starts_with("Image/"));
    if by_idms && !by_image {
        return (Some("NeverContactSource"), Vec::new());
    }
    let note = format!(
        "the source {} is blocked: if an ImageDigestMirrorSet for it sets mirrorSourcePolicy: \
         NeverContactSource, set the same in the ImageTagMirrorSet (the MCO refuses a source \
         whose mirror sets disagree on it)",
        registry.prefix
    );
    (None, vec![note])
}

/// Why the mirrors must hold the tags first, and keep them.
fn caveat(never_contact_source: bool) -> String {
    let mut out =
        "tags are mutable: a tag on a mirror may point at other content than the same tag \
         on the source, and CRI-O takes the first mirror that has it without asking the source; \
         mirror the tags first (oc-mirror, or skopeo copy --all docker://SOURCE:TAG \
         docker://MIRROR:TAG) and keep them in sync"
            .to_string();
    if never_contact_source {
        out.push_str(
            "; with mirrorSourcePolicy: NeverContactSource the source is never checked, and a tag \
             no mirror holds fails the pull",
        );
    } else {
        out.push_str("; a tag no mirror holds is still pulled from the source");
    }
    out
}

/// The edit of a hand-written registries.conf that lets tag pulls use the
/// entry's mirrors.
fn registries_conf_edit(registry: &Registry, locations: &[&str]) -> String {
    let how = if registry.mirror_by_digest_only {
        "remove mirror-by-digest-only = true from".to_string()
    } else {
        format!(
            "set pull-from-mirror = \"all\" on the mirrors ({}) of",
            locations.join(", ")
        )
    };
    format!(
        "where registries.conf is not written by the MCO: {how} the [[registry]] entry for \"{}\", \
         so that its mirrors serve tags too",
        registry.prefix
    )
}

/// An object name for the ImageTagMirrorSet of `source`: its letters and
/// digits, `-` for the rest, then `-tag-mirrors` (a DNS subdomain name).
fn object_name(source: &str) -> String {
    let mut name = String::new();
    for c in source.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    let mut name: String = name.trim_end_matches('-').chars().take(200).collect();
    if name.ends_with('-') {
        name.pop();
    }
    if name.is_empty() {
        "tag-mirrors".to_string()
    } else {
        format!("{name}-tag-mirrors")
    }
}

/// The file the ImageTagMirrorSet is saved in, for the check command.
fn file_name(source: &str) -> String {
    format!("{}.yaml", object_name(source))
}

/// The ImageTagMirrorSet for `source` with `mirrors`, in that order.
fn itms_yaml(source: &str, mirrors: &[&str], policy: Option<&str>) -> String {
    let mut out = format!(
        "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: {}\nspec:\n  imageTagMirrors:\n  - source: {}\n    mirrors:\n",
        object_name(source),
        portable_scalar(source)
    );
    for m in mirrors {
        out.push_str(&format!("    - {}\n", portable_scalar(m)));
    }
    if let Some(p) = policy {
        out.push_str(&format!("    mirrorSourcePolicy: {p}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registries::lookup::{pull_sources, Role};
    use crate::registries::{Mirror, PullFromMirror};

    fn registry(prefix: &str, mirrors: &[(&str, &str)], blocked: bool) -> Registry {
        Registry {
            prefix: prefix.to_string(),
            location: if prefix.starts_with("*.") {
                String::new()
            } else {
                prefix.to_string()
            },
            blocked,
            mirrors: mirrors
                .iter()
                .map(|(location, origin)| Mirror {
                    location: location.to_string(),
                    insecure: false,
                    pull_from_mirror: PullFromMirror::DigestOnly,
                    origins: vec![Origin::from(*origin)],
                })
                .collect(),
            origins: mirrors.iter().map(|(_, o)| Origin::from(*o)).collect(),
            ..Registry::default()
        }
    }

    fn fix_of(r: &Registry, image: &str) -> Option<TagMirrorFix> {
        let reference = Reference::parse_named(image).unwrap();
        let plan = pull_sources(r, &reference).unwrap();
        let used = plan.sources.iter().any(|s| s.role == Role::Mirror);
        tag_mirror_fix(r, &reference, &plan.skipped, used)
    }

    /// Issue 36: the ImageTagMirrorSet lists the digest mirrors in their
    /// order, reads back as a valid object, and names the ICSPs to migrate.
    #[test]
    fn issue_36_itms_mirrors_the_digest_mirrors_in_order() {
        let r = registry(
            "quay.io/ns",
            &[
                ("m2.example.com/ns", "ImageContentSourcePolicy/old"),
                ("m1.example.com/ns", "ImageDigestMirrorSet/new"),
            ],
            false,
        );
        let fix = fix_of(&r, "quay.io/ns/app:v1").expect("a fix");
        let yaml = fix.image_tag_mirror_set.as_deref().expect("yaml");
        assert_eq!(
            yaml,
            "apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: quay-io-ns-tag-mirrors\nspec:\n  imageTagMirrors:\n  - source: quay.io/ns\n    mirrors:\n    - m2.example.com/ns\n    - m1.example.com/ns\n"
        );
        let mut inputs = crate::objects::Inputs::default();
        crate::decode::parse_documents("itms.yaml", yaml, &mut inputs).unwrap();
        let itms = &inputs.itmss[0];
        assert!(itms.validate().is_empty(), "{:?}", itms.validate());
        let refs: Vec<&str> = fix.mirrors.iter().map(|m| m.reference.as_str()).collect();
        assert_eq!(
            refs,
            ["m2.example.com/ns/app:v1", "m1.example.com/ns/app:v1"]
        );
        let migrate = fix.migrate_icsp.as_ref().expect("migrate");
        assert_eq!(migrate.command, MIGRATE_ICSP_WITH_TAGS);
        assert_eq!(
            migrate.objects,
            [Origin::from("ImageContentSourcePolicy/old")]
        );
        assert_eq!(
            fix.check.as_deref(),
            Some(
                "kubectl mirrorpolicy explain quay.io/ns/app:v1 --with quay-io-ns-tag-mirrors.yaml"
            )
        );
        assert_eq!(fix.registries_conf, None);
        assert_eq!(fix.mirror_source_policy, None);
    }

    #[test]
    fn issue_36_no_fix_for_digests_or_used_mirrors() {
        let r = registry(
            "quay.io/ns",
            &[("m.io/ns", "ImageDigestMirrorSet/a")],
            false,
        );
        let digest = format!("quay.io/ns/app@sha256:{}", "a".repeat(64));
        assert!(fix_of(&r, &digest).is_none(), "by digest");
        let mut tags = r.clone();
        tags.mirrors[0].pull_from_mirror = PullFromMirror::All;
        assert!(fix_of(&tags, "quay.io/ns/app:v1").is_none(), "mirror used");
    }

    /// A blocked source: `NeverContactSource` when only an IDMS can block
    /// it, a note when the Image config may be the one.
    #[test]
    fn issue_36_blocked_source_policy() {
        let r = registry("quay.io/ns", &[("m.io/ns", "ImageDigestMirrorSet/a")], true);
        let fix = fix_of(&r, "quay.io/ns/app:v1").unwrap();
        assert_eq!(fix.mirror_source_policy, Some("NeverContactSource"));
        assert!(fix
            .image_tag_mirror_set
            .unwrap()
            .ends_with("    mirrorSourcePolicy: NeverContactSource\n"));
        assert!(fix.caveat.contains("never checked"), "{}", fix.caveat);
        let mut both = r.clone();
        both.origins.push(Origin::from("Image/cluster"));
        let fix = fix_of(&both, "quay.io/ns/app:v1").unwrap();
        assert_eq!(fix.mirror_source_policy, None);
        assert!(fix.notes[0].contains("is blocked"), "{:?}", fix.notes);
    }

    /// A hand-written registries.conf gets its own edit; a wildcard source
    /// is quoted in the YAML; a prefix rewritten elsewhere is no ITMS.
    #[test]
    fn issue_36_files_and_wildcards() {
        let mut r = registry("*.example.com", &[("m.io/x", "/etc/r.conf:3")], false);
        r.mirror_by_digest_only = true;
        let fix = fix_of(&r, "a.example.com/ns/app:v1").unwrap();
        assert!(fix
            .image_tag_mirror_set
            .as_deref()
            .unwrap()
            .contains("  - source: \"*.example.com\"\n"));
        assert_eq!(fix.check, None);
        assert!(fix
            .registries_conf
            .as_deref()
            .unwrap()
            .contains("remove mirror-by-digest-only = true"));
        let mut elsewhere = registry("quay.io/ns", &[("m.io/ns", "/r.conf:1")], false);
        elsewhere.location = "internal.io/ns".to_string();
        let fix = fix_of(&elsewhere, "quay.io/ns/app:v1").unwrap();
        assert_eq!(fix.image_tag_mirror_set, None);
        assert!(fix
            .registries_conf
            .as_deref()
            .unwrap()
            .contains("pull-from-mirror = \"all\""));
    }

    #[test]
    fn object_names() {
        for (source, want) in [
            ("quay.io/ns", "quay-io-ns-tag-mirrors"),
            ("*.example.com", "example-com-tag-mirrors"),
            ("Reg.io:5000/a_b", "reg-io-5000-a-b-tag-mirrors"),
            ("", "tag-mirrors"),
        ] {
            assert_eq!(object_name(source), want, "{source}");
        }
    }

    #[test]
    fn probe_answers() {
        let mut m = FixMirror {
            location: "m.io/ns".into(),
            reference: "m.io/ns/app:v1".into(),
            insecure: false,
            origins: Vec::new(),
            probe: None,
            holds_tag: None,
        };
        assert_eq!(m.probe_summary(), None);
        for (outcome, holds, want) in [
            (Outcome::Served, Some(true), "the mirror holds this tag"),
            (
                Outcome::NotFound,
                Some(false),
                "the mirror does not hold this tag: mirror it first",
            ),
            (
                Outcome::Unauthorized,
                None,
                "whether the mirror holds this tag is not known (unauthorized: x)",
            ),
        ] {
            m.record_probe(SourceProbe::not_contacted(outcome, "x"));
            assert_eq!(m.holds_tag, holds, "{outcome:?}");
            assert_eq!(m.probe_summary().as_deref(), Some(want), "{outcome:?}");
        }
    }
}
