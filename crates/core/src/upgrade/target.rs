//! `--to VERSION`: the release the cluster-version operator offers under
//! that version, as `oc adm upgrade --to` finds it: first in
//! `status.availableUpdates`, then in `status.conditionalUpdates` (with
//! the risks that apply, from its `Recommended` condition).

use serde::Serialize;

use crate::objects::ClusterVersion;

/// A risk of a conditional update.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    pub name: String,
    pub message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
}

/// A release the cluster offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub version: String,
    pub image: String,
    /// `availableUpdates` or `conditionalUpdates`.
    pub listed_in: &'static str,
    /// The conditional update's risks (empty for an available update).
    pub risks: Vec<Risk>,
    /// The `Recommended` condition of a conditional update: `True`,
    /// `False` or `Unknown`, with its reason and message.
    pub recommended: Option<(String, String)>,
    /// How `oc adm upgrade` is asked for it: `--to VERSION`, or
    /// `--to-image IMAGE` when it was found by its image.
    pub oc_target: String,
}

impl Offered {
    /// What `oc adm upgrade --to` answers for this update when it refuses it
    /// without `--allow-not-recommended`: a conditional update whose
    /// `Recommended` condition is there and not `True` (oc's
    /// `pkg/cli/admin/upgrade`, in its words).
    pub fn oc_refusal(&self) -> Option<String> {
        let (status, _) = self.recommended.as_ref()?;
        if self.listed_in != "conditionalUpdates" || status == "True" {
            return None;
        }
        Some(format!(
            "the update {} is not one of the recommended updates, but is available as a conditional update. To accept the Recommended={status} risk and to proceed with update use --allow-not-recommended.",
            self.version
        ))
    }
}

/// Why `--to VERSION` is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotOffered {
    #[error("the cluster has no ClusterVersion/version: --to cannot be resolved")]
    NoClusterVersion,
    #[error("version {version} is not among the updates ClusterVersion/version offers ({})", offered_list(.offered))]
    NotListed {
        version: String,
        offered: Vec<String>,
    },
    #[error(
        "ClusterVersion/version lists version {version} without a release image in {listed_in}"
    )]
    NoImage {
        version: String,
        listed_in: &'static str,
    },
}

fn offered_list(offered: &[String]) -> String {
    if offered.is_empty() {
        "none: status.availableUpdates and status.conditionalUpdates are empty".to_string()
    } else {
        format!("offered: {}", offered.join(", "))
    }
}

/// Finds `version` among the updates `cv` offers.
pub fn find_update(cv: Option<&ClusterVersion>, version: &str) -> Result<Offered, NotOffered> {
    let cv = cv.ok_or(NotOffered::NoClusterVersion)?;
    let status = &cv.status;
    let wanted = version.trim_start_matches('v');
    if let Some(r) = status
        .available_updates
        .iter()
        .find(|r| r.version == wanted)
    {
        return offered(wanted, &r.image, "availableUpdates", Vec::new(), None);
    }
    if let Some(c) = status
        .conditional_updates
        .iter()
        .find(|c| c.release.version == wanted)
    {
        return conditional(c, &c.release.image);
    }
    let mut listed: Vec<String> = status
        .available_updates
        .iter()
        .map(|r| r.version.clone())
        .chain(
            status
                .conditional_updates
                .iter()
                .map(|c| format!("{} (conditional)", c.release.version)),
        )
        .collect();
    listed.sort();
    Err(NotOffered::NotListed {
        version: wanted.to_string(),
        offered: listed,
    })
}

/// The update `--to-image IMAGE` is, if the cluster offers it: the same
/// image, or one with the same digest (oc's `targetMatch`), available
/// first, then conditional; its image is the one given, as oc keeps it.
pub fn find_update_by_image(cv: Option<&ClusterVersion>, image: &str) -> Option<Offered> {
    let status = &cv?.status;
    let digest = |i: &str| {
        crate::reference::Reference::parse_normalized_named(i)
            .ok()
            .and_then(|r| r.digest().map(str::to_string))
    };
    let wanted = digest(image);
    let matches =
        |offered: &str| offered == image || (wanted.is_some() && digest(offered) == wanted);
    let by_image = |o: Offered| Offered {
        oc_target: format!("--to-image {image}"),
        ..o
    };
    if let Some(r) = status.available_updates.iter().find(|r| matches(&r.image)) {
        return offered(&r.version, image, "availableUpdates", Vec::new(), None)
            .ok()
            .map(by_image);
    }
    let c = status
        .conditional_updates
        .iter()
        .find(|c| matches(&c.release.image))?;
    conditional(c, image).ok().map(by_image)
}

/// A conditional update, with its risks and `Recommended` condition.
fn conditional(
    c: &crate::objects::cluster::ConditionalUpdate,
    image: &str,
) -> Result<Offered, NotOffered> {
    let risks = c
        .risks
        .iter()
        .map(|r| Risk {
            name: r.name.clone(),
            message: r.message.clone(),
            url: r.url.clone(),
        })
        .collect();
    let recommended = c
        .conditions
        .iter()
        .find(|c| c.type_ == "Recommended")
        .map(|c| (c.status.clone(), join_reason(&c.reason, &c.message)));
    offered(
        c.release.version.trim_start_matches('v'),
        image,
        "conditionalUpdates",
        risks,
        recommended,
    )
}

fn offered(
    version: &str,
    image: &str,
    listed_in: &'static str,
    risks: Vec<Risk>,
    recommended: Option<(String, String)>,
) -> Result<Offered, NotOffered> {
    if image.is_empty() {
        return Err(NotOffered::NoImage {
            version: version.to_string(),
            listed_in,
        });
    }
    Ok(Offered {
        version: version.to_string(),
        image: image.to_string(),
        listed_in,
        risks,
        recommended,
        oc_target: format!("--to {version}"),
    })
}

fn join_reason(reason: &str, message: &str) -> String {
    match (reason.is_empty(), message.is_empty()) {
        (true, _) => message.to_string(),
        (false, true) => reason.to_string(),
        (false, false) => format!("{reason}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(yaml: &str) -> ClusterVersion {
        serde_saphyr::from_str(yaml).expect("ClusterVersion")
    }

    const CV: &str = "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata: {name: version}\nstatus:\n  desired: {version: 4.20.3, image: q/r@sha256:aa}\n  availableUpdates:\n  - {version: 4.20.5, image: q/r@sha256:bb}\n  conditionalUpdates:\n  - release: {version: 4.21.0, image: q/r@sha256:cc}\n    risks: [{name: AROBrokenDNS, message: DNS breaks, url: https://example.com/r}]\n    conditions: [{type: Recommended, status: 'False', reason: AROBrokenDNS, message: DNS breaks}]\n";

    #[test]
    fn available_then_conditional() {
        let cv = cv(CV);
        let a = find_update(Some(&cv), "4.20.5").expect("available");
        assert_eq!(a.image, "q/r@sha256:bb");
        assert_eq!(a.listed_in, "availableUpdates");
        assert!(a.risks.is_empty());
        let c = find_update(Some(&cv), "v4.21.0").expect("conditional");
        assert_eq!(c.image, "q/r@sha256:cc");
        assert_eq!(c.risks[0].name, "AROBrokenDNS");
        assert_eq!(
            c.recommended,
            Some(("False".to_string(), "AROBrokenDNS: DNS breaks".to_string()))
        );
        assert_eq!(a.oc_refusal(), None);
        assert_eq!(
            c.oc_refusal().as_deref(),
            Some("the update 4.21.0 is not one of the recommended updates, but is available as a conditional update. To accept the Recommended=False risk and to proceed with update use --allow-not-recommended.")
        );
        let recommended = CV.replace("status: 'False'", "status: 'True'");
        let recommended: ClusterVersion = serde_saphyr::from_str(&recommended).expect("cv");
        let r = find_update(Some(&recommended), "4.21.0").expect("conditional");
        assert_eq!(r.oc_refusal(), None, "Recommended=True");
    }

    /// oc's `targetMatch` for `--to-image`: the same image or its digest.
    #[test]
    fn to_image_finds_the_offered_update_by_digest() {
        let (bb, cc, dd) = ("b".repeat(64), "c".repeat(64), "d".repeat(64));
        let cv = cv(&CV
            .replace("sha256:bb", &format!("sha256:{bb}"))
            .replace("sha256:cc", &format!("sha256:{cc}")));
        let mirrored = format!("mirror.example.com/r@sha256:{cc}");
        let c = find_update_by_image(Some(&cv), &mirrored).expect("offered");
        assert_eq!(
            (c.version.as_str(), c.listed_in, c.image.as_str()),
            ("4.21.0", "conditionalUpdates", mirrored.as_str())
        );
        assert!(c.oc_refusal().is_some());
        let a = find_update_by_image(Some(&cv), &format!("q/r@sha256:{bb}")).expect("offered");
        assert_eq!(
            (a.version.as_str(), a.listed_in),
            ("4.20.5", "availableUpdates")
        );
        assert!(find_update_by_image(Some(&cv), &format!("q/r@sha256:{dd}")).is_none());
        assert!(find_update_by_image(Some(&cv), "q/r:4.21.0").is_none());
    }

    #[test]
    fn not_offered_lists_what_is() {
        let cv = cv(CV);
        let e = find_update(Some(&cv), "4.22.0").unwrap_err();
        assert_eq!(
            e.to_string(),
            "version 4.22.0 is not among the updates ClusterVersion/version offers (offered: 4.20.5, 4.21.0 (conditional))"
        );
        assert_eq!(
            find_update(None, "4.20.5").unwrap_err(),
            NotOffered::NoClusterVersion
        );
    }
}
