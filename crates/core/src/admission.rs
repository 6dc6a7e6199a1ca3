//! What the OpenShift API server refuses because of other objects, by
//! release: its own admission plugins, which look at what the cluster
//! already holds. The rules of one object alone (the CRDs) are
//! [`crate::objects`]'s; `lint` reports these refusals as errors, the render
//! as a warning that the objects read cannot all have been created.
//!
//! One such check exists: from OpenShift 4.13.0 the kube-apiserver's
//! `config.openshift.io/ValidateImageDigestMirrorSet`,
//! `ValidateImageTagMirrorSet` and
//! `operator.openshift.io/ValidateImageContentSourcePolicy` plugins
//! (openshift/kubernetes#1310,
//! `openshift-kube-apiserver/admission/customresourcevalidation/imagedigestmirrorset`,
//! `imagetagmirrorset`, `imagecontentsourcepolicy`) refuse to create or
//! update an ImageDigestMirrorSet or ImageTagMirrorSet while any
//! ImageContentSourcePolicy exists, and an ImageContentSourcePolicy while
//! any ImageDigestMirrorSet (checked first) or ImageTagMirrorSet exists.
//! openshift/kubernetes#1685 dropped them for 4.15, and the backports
//! #1780 (release-4.14, OCPBUGS-22861) and #1798 (release-4.13,
//! OCPBUGS-23521) for 4.14.3 and 4.13.27: the release notes of both
//! (openshift-docs#72317 and #72316, OCPBUGS-22275) list the fix under
//! 4.14.3 and 4.13.27. The same z-streams dropped the MCO's
//! `RejectMultiUpdateMirrorSetObjs` (machine-config-operator#3995 on
//! release-4.14, merged 2023-11-07; #4027 on release-4.13, merged
//! 2023-12-05), which kept the previous configuration while both kinds
//! existed. The pre-releases of a fixed z-stream (`4.13.27-rc.0`) are
//! taken as having the check: which build first carried the fix is not
//! known.

use crate::objects::inputs::Proposed;
use crate::objects::{
    ClusterVersion, ImageContentSourcePolicy, ImageDigestMirrorSet, ImageTagMirrorSet, Inputs,
};
use crate::origin::Origin;

/// For each minor release with the check, the first z-stream without it.
const FIRST_WITHOUT_CHECK: [(u32, u32); 2] = [(13, 27), (14, 3)];

/// An OpenShift version's parts: `(major, minor, patch, pre-release)`
/// (`4.14.0-rc.2` is `(4, 14, 0, true)`; build metadata after `+` is
/// ignored).
fn version_parts(version: &str) -> Option<(u32, u32, u32, bool)> {
    let version = version.split('+').next().unwrap_or(version);
    let (core, pre) = match version.split_once('-') {
        Some((core, _)) => (core, true),
        None => (version, false),
    };
    let mut parts = core.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((major, minor, patch, pre))
}

/// Whether the API server of OpenShift `version` refuses an
/// ImageDigestMirrorSet or ImageTagMirrorSet while an
/// ImageContentSourcePolicy exists (and the reverse): 4.13.0 to 4.13.26
/// and 4.14.0 to 4.14.2, their pre-releases and those of 4.13.27 and
/// 4.14.3. A version that does not parse is taken as without the check.
pub fn refuses_mirror_sets_beside_icsps(version: &str) -> bool {
    let Some((4, minor, patch, pre)) = version_parts(version) else {
        return false;
    };
    FIRST_WITHOUT_CHECK
        .iter()
        .any(|&(m, first)| m == minor && (patch < first || (patch == first && pre)))
}

/// The first release of `version`'s minor without the check (`4.13.27`
/// for `4.13.10`), when that minor has it.
pub fn first_release_without_check(version: &str) -> Option<String> {
    let (_, minor, _, _) = version_parts(version)?;
    FIRST_WITHOUT_CHECK
        .iter()
        .find(|&&(m, _)| m == minor)
        .map(|(m, first)| format!("4.{m}.{first}"))
}

/// The cluster's release (`status.desired.version`) when its API server
/// has the check.
pub fn release_with_check(cv: &ClusterVersion) -> Option<&str> {
    cv.version().filter(|v| refuses_mirror_sets_beside_icsps(v))
}

/// The release whose API server may answer a write, when it has the
/// check: the desired one, or while an update is in progress (the
/// newest `status.history` entry `Partial`) the last completed one, as
/// the API servers roll to the new release one by one.
pub fn release_answering_with_check(cv: &ClusterVersion) -> Option<&str> {
    release_with_check(cv).or_else(|| {
        let newest = cv.status.history.first()?;
        if newest.state != "Partial" {
            return None;
        }
        cv.status
            .history
            .iter()
            .skip(1)
            .find(|h| h.state == "Completed")
            .map(|h| h.version.as_str())
            .filter(|v| refuses_mirror_sets_beside_icsps(v))
    })
}

/// The API server's two verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Create,
    Update,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Update => "update",
        }
    }
}

/// One object the API server refuses because of others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The object refused (`Kind/name`).
    pub object: Origin,
    /// Its kind.
    pub kind: &'static str,
    /// What was asked of the API server: an object among the proposed
    /// ones (`--with`) replacing one of the same name is an update; any
    /// other a create.
    pub action: Action,
    /// Whether the object is among the proposed ones, rather than among
    /// those read as the cluster's.
    pub proposed: bool,
    /// The kind whose objects make the API server refuse it.
    pub existing_kind: &'static str,
    /// Those objects.
    pub existing: Vec<Origin>,
    /// The release whose API server refuses it.
    pub release: String,
}

impl Refusal {
    /// The API server's own words (`field.Forbidden` on the path
    /// `Kind.<kind>`).
    pub fn api_server_message(&self) -> String {
        format!(
            "Kind.{kind}: Forbidden: can't {action} {kind} when {existing} resources exist",
            kind = self.kind,
            action = self.action.as_str(),
            existing = self.existing_kind,
        )
    }

    /// The first release of the refusing release's minor without the check.
    pub fn first_without_check(&self) -> String {
        first_release_without_check(&self.release).unwrap_or_else(|| "4.15".to_string())
    }
}

/// What the API server of `release` refuses among the mirror objects of
/// `inputs`, when it has the check (else nothing).
///
/// A proposed ImageContentSourcePolicy is refused when an
/// ImageDigestMirrorSet or ImageTagMirrorSet is among the objects read as
/// the cluster's. Every ImageDigestMirrorSet and ImageTagMirrorSet, then,
/// is refused while an ImageContentSourcePolicy that is not refused
/// exists: when the order the objects came in is not known (all read as
/// the cluster's, or all proposed), the newer kinds are the ones taken as
/// refused, a cluster updated to 4.13 having its ImageContentSourcePolicies
/// already.
pub fn mirror_set_refusals(inputs: &Inputs, release: &str) -> Vec<Refusal> {
    if !refuses_mirror_sets_beside_icsps(release)
        || inputs.icsps.is_empty()
        || (inputs.idmss.is_empty() && inputs.itmss.is_empty())
    {
        return Vec::new();
    }
    let proposed = |o: &Origin| inputs.proposed.iter().find(|p| p.object == *o);
    let refusal = |object: Origin, kind, found: Option<&Proposed>, existing_kind, existing| {
        let action = match found {
            Some(p) if p.replaces => Action::Update,
            _ => Action::Create,
        };
        Refusal {
            object,
            kind,
            action,
            proposed: found.is_some(),
            existing_kind,
            existing,
            release: release.to_string(),
        }
    };
    let existing = |origins: Vec<Origin>| -> Vec<Origin> {
        origins
            .into_iter()
            .filter(|o| proposed(o).is_none())
            .collect()
    };
    let existing_idmss = existing(inputs.idmss.iter().map(|o| o.origin()).collect());
    let existing_itmss = existing(inputs.itmss.iter().map(|o| o.origin()).collect());
    let mut out = Vec::new();
    let mut kept_icsps = Vec::new();
    for origin in inputs.icsps.iter().map(ImageContentSourcePolicy::origin) {
        let found = proposed(&origin);
        // The plugin lists ImageDigestMirrorSets first.
        let blocking = if existing_idmss.is_empty() {
            (ImageTagMirrorSet::KIND, &existing_itmss)
        } else {
            (ImageDigestMirrorSet::KIND, &existing_idmss)
        };
        if found.is_some() && !blocking.1.is_empty() {
            let kind = ImageContentSourcePolicy::KIND;
            out.push(refusal(origin, kind, found, blocking.0, blocking.1.clone()));
        } else {
            kept_icsps.push(origin);
        }
    }
    if kept_icsps.is_empty() {
        return out;
    }
    let sets = (inputs
        .idmss
        .iter()
        .map(|o| (o.origin(), ImageDigestMirrorSet::KIND)))
    .chain(
        inputs
            .itmss
            .iter()
            .map(|o| (o.origin(), ImageTagMirrorSet::KIND)),
    );
    for (origin, kind) in sets {
        let found = proposed(&origin);
        let icsp = ImageContentSourcePolicy::KIND;
        out.push(refusal(origin, kind, found, icsp, kept_icsps.clone()));
    }
    out
}

/// The objects `refusals` are about, each once in order: the refused
/// ones, and for those read as the cluster's the ones they were refused
/// beside (had those come later, they would have been the ones refused).
pub fn involved(refusals: &[Refusal]) -> Vec<Origin> {
    let mut out: Vec<Origin> = Vec::new();
    for r in refusals {
        let beside = if r.proposed { &[][..] } else { &r.existing[..] };
        for o in std::iter::once(&r.object).chain(beside) {
            if !out.contains(o) {
                out.push(o.clone());
            }
        }
    }
    out
}

/// What the objects of `refusals` mean for a render of them: a proposed
/// object is refused, so it never takes effect; objects read as the
/// cluster's cannot all have been created through the API server, and
/// the MCO of that release keeps its previous configuration while both
/// kinds exist. `None` when there is no refusal.
pub fn render_warning(refusals: &[Refusal]) -> Option<String> {
    if refusals.is_empty() {
        return None;
    }
    let names = |proposed: bool| -> Vec<String> {
        refusals
            .iter()
            .filter(|r| r.proposed == proposed)
            .map(|r| r.object.to_string())
            .collect()
    };
    let mut parts = Vec::new();
    let proposed = names(true);
    if let Some(r) = refusals.iter().find(|r| r.proposed) {
        parts.push(format!(
            "the API server of OpenShift {} refuses the proposed {} (\"{}\"): rendered as if {} been created",
            r.release,
            proposed.join(", "),
            r.api_server_message(),
            if proposed.len() == 1 { "it had" } else { "they had" },
        ));
    }
    let read = names(false);
    if let Some(r) = refusals.iter().find(|r| !r.proposed) {
        let existing: Vec<String> = r.existing.iter().map(ToString::to_string).collect();
        // `RejectMultiUpdateMirrorSetObjs` names ImageDigestMirrorSets first.
        let idms = ImageDigestMirrorSet::KIND;
        let mco_kind = if refusals.iter().any(|r| !r.proposed && r.kind == idms) {
            "imagedigestmirrorset"
        } else {
            "imagetagmirrorset"
        };
        parts.push(format!(
            "the API server of OpenShift {} refuses {} beside {} (\"{}\"), and the latter had they \
             come after: these objects cannot all have been created through it; the MCO of that \
             release does not render both kinds together either (\"error: both \
             imagecontentsourcepolicy and {mco_kind} exist\") and keeps its previous \
             configuration: rendered as {} and later render them",
            r.release,
            read.join(", "),
            existing.join(", "),
            r.api_server_message(),
            r.first_without_check(),
        ));
    }
    Some(parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_with_the_check() {
        for (version, want) in [
            ("4.13.0", true),
            ("4.13.0-rc.3", true),
            ("4.13.0-ec.2", true),
            ("4.13.0-0.okd-2023-10-28-065448", true),
            ("4.13.10", true),
            ("4.13.26", true),
            ("4.13.27-rc.0", true),
            ("4.13.27", false),
            ("4.13.50", false),
            ("4.14.0", true),
            ("4.14.0-rc.7", true),
            ("4.14.2", true),
            ("4.14.3", false),
            ("4.14.3+build.1", false),
            ("4.14.40", false),
            ("4.12.40", false),
            ("4.15.0", false),
            ("4.15.0-ec.1", false),
            ("4.22.1", false),
            ("5.13.0", false),
            ("4.13", false),
            ("4.13.x", false),
            ("", false),
        ] {
            assert_eq!(refuses_mirror_sets_beside_icsps(version), want, "{version}");
        }
    }

    #[test]
    fn the_first_release_without_the_check() {
        for (version, want) in [
            ("4.13.10", Some("4.13.27")),
            ("4.14.0-rc.1", Some("4.14.3")),
            ("4.15.2", None),
            ("nonsense", None),
        ] {
            assert_eq!(
                first_release_without_check(version).as_deref(),
                want,
                "{version}"
            );
        }
    }

    fn cluster_version(desired: &str, history: &[(&str, &str)]) -> ClusterVersion {
        let history: Vec<serde_json::Value> = history
            .iter()
            .map(|(state, version)| serde_json::json!({"state": state, "version": version}))
            .collect();
        serde_json::from_value(serde_json::json!({
            "apiVersion": "config.openshift.io/v1",
            "kind": "ClusterVersion",
            "metadata": {"name": "version"},
            "status": {"desired": {"version": desired, "image": "quay.io/x/y@sha256:0"},
                       "history": history}
        }))
        .unwrap()
    }

    #[test]
    fn the_release_answering_a_write() {
        for (desired, history, now, answering) in [
            ("4.13.10", vec![], Some("4.13.10"), Some("4.13.10")),
            ("4.13.27", vec![], None, None),
            // Updating to a fixed release: the API server left may answer.
            (
                "4.13.30",
                vec![("Partial", "4.13.30"), ("Completed", "4.13.20")],
                None,
                Some("4.13.20"),
            ),
            // The update is done.
            (
                "4.13.30",
                vec![("Completed", "4.13.30"), ("Completed", "4.13.20")],
                None,
                None,
            ),
            (
                "4.14.1",
                vec![("Partial", "4.14.1"), ("Completed", "4.13.40")],
                Some("4.14.1"),
                Some("4.14.1"),
            ),
            ("", vec![], None, None),
        ] {
            let cv = cluster_version(desired, &history);
            assert_eq!(release_with_check(&cv), now, "{desired} {history:?}");
            assert_eq!(
                release_answering_with_check(&cv),
                answering,
                "{desired} {history:?}"
            );
        }
    }

    fn inputs(icsps: &[&str], idmss: &[&str], itmss: &[&str]) -> Inputs {
        Inputs {
            icsps: icsps
                .iter()
                .map(|n| ImageContentSourcePolicy::new(n))
                .collect(),
            idmss: idmss.iter().map(|n| ImageDigestMirrorSet::new(n)).collect(),
            itmss: itmss.iter().map(|n| ImageTagMirrorSet::new(n)).collect(),
            ..Inputs::default()
        }
    }

    fn said(refusals: &[Refusal]) -> Vec<String> {
        refusals
            .iter()
            .map(|r| format!("{}: {}", r.object, r.api_server_message()))
            .collect()
    }

    #[test]
    fn the_newer_kinds_are_refused_beside_icsps() {
        let read = inputs(&["legacy"], &["apps"], &["tags"]);
        assert_eq!(
            said(&mirror_set_refusals(&read, "4.13.10")),
            [
                "ImageDigestMirrorSet/apps: Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist",
                "ImageTagMirrorSet/tags: Kind.ImageTagMirrorSet: Forbidden: can't create ImageTagMirrorSet when ImageContentSourcePolicy resources exist",
            ]
        );
        assert!(mirror_set_refusals(&read, "4.13.27").is_empty());
        assert!(mirror_set_refusals(&read, "4.15.0").is_empty());
        for alone in [
            inputs(&["legacy"], &[], &[]),
            inputs(&[], &["apps"], &["tags"]),
        ] {
            assert!(mirror_set_refusals(&alone, "4.13.10").is_empty());
        }
    }

    #[test]
    fn a_proposal_is_refused_by_what_the_cluster_holds() {
        // A proposed ImageDigestMirrorSet replacing one of the same name: an update.
        let mut cluster = inputs(&["legacy"], &["apps"], &[]);
        let mut proposal = inputs(&[], &["apps", "new"], &[]);
        proposal.idmss[0].spec.image_digest_mirrors = Vec::new();
        cluster.overlay(proposal);
        let refusals = mirror_set_refusals(&cluster, "4.14.2");
        assert_eq!(
            said(&refusals),
            [
                "ImageDigestMirrorSet/apps: Kind.ImageDigestMirrorSet: Forbidden: can't update ImageDigestMirrorSet when ImageContentSourcePolicy resources exist",
                "ImageDigestMirrorSet/new: Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist",
            ]
        );
        assert!(refusals.iter().all(|r| r.proposed));
        assert_eq!(
            involved(&refusals),
            [
                Origin::from("ImageDigestMirrorSet/apps"),
                Origin::from("ImageDigestMirrorSet/new")
            ]
        );
        // A proposed ICSP beside the cluster's ImageTagMirrorSet: the ICSP
        // is refused, and nothing else.
        let mut cluster = inputs(&[], &[], &["tags"]);
        cluster.overlay(inputs(&["legacy"], &[], &[]));
        let refusals = mirror_set_refusals(&cluster, "4.13.0");
        assert_eq!(
            said(&refusals),
            ["ImageContentSourcePolicy/legacy: Kind.ImageContentSourcePolicy: Forbidden: can't create ImageContentSourcePolicy when ImageTagMirrorSet resources exist"]
        );
        // ImageDigestMirrorSets are named first when both kinds exist.
        let mut cluster = inputs(&[], &["apps"], &["tags"]);
        cluster.overlay(inputs(&["legacy"], &[], &[]));
        assert!(said(&mirror_set_refusals(&cluster, "4.13.0"))[0]
            .ends_with("when ImageDigestMirrorSet resources exist"));
    }

    #[test]
    fn the_render_warning_says_which_would_be_refused() {
        let read = inputs(&["legacy"], &["apps"], &[]);
        let warning = render_warning(&mirror_set_refusals(&read, "4.13.10")).unwrap();
        assert!(
            warning.starts_with("the API server of OpenShift 4.13.10 refuses ImageDigestMirrorSet/apps beside ImageContentSourcePolicy/legacy (\"Kind.ImageDigestMirrorSet: Forbidden: can't create ImageDigestMirrorSet when ImageContentSourcePolicy resources exist\"), and the latter had they come after: these objects cannot all have been created through it;"),
            "{warning}"
        );
        assert!(
            warning.ends_with("rendered as 4.13.27 and later render them"),
            "{warning}"
        );
        // The MCO names the kind it found: ImageDigestMirrorSets first.
        let read = inputs(&["legacy"], &[], &["tags"]);
        let warning = render_warning(&mirror_set_refusals(&read, "4.14.0")).unwrap();
        assert!(
            warning
                .contains("(\"error: both imagecontentsourcepolicy and imagetagmirrorset exist\")"),
            "{warning}"
        );
        let mut cluster = inputs(&["legacy"], &[], &[]);
        cluster.overlay(inputs(&[], &[], &["tags"]));
        let warning = render_warning(&mirror_set_refusals(&cluster, "4.14.2")).unwrap();
        assert_eq!(
            warning,
            "the API server of OpenShift 4.14.2 refuses the proposed ImageTagMirrorSet/tags (\"Kind.ImageTagMirrorSet: Forbidden: can't create ImageTagMirrorSet when ImageContentSourcePolicy resources exist\"): rendered as if it had been created"
        );
        assert_eq!(render_warning(&[]), None);
    }
}
