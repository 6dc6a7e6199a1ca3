//! The MCO's payload protection (`getValidBlockedAndAllowedRegistries`):
//! a blocked registry that would make the release payload unpullable is
//! dropped, and the payload repository is allowed when it stays reachable.
//!
//! The MCO only logs what it drops here; this module returns it as
//! warnings so the user learns what the controller hid.

use crate::reference::Reference;
use crate::registries::{self, lookup, ConfigFile};

use super::encode::encode_registries_conf;
use super::findings::{RenderError, RenderWarning};
use super::registries::{edit_registries_config_as, RegistriesInput, V2RegistriesConf};
use super::release::{McoProfile, PayloadFamily};
use super::scope::scope_is_nested_inside_scope;

/// The lists the MCO renders with after payload protection. `None` is Go's nil.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockedAndAllowed {
    /// Blocked scopes for registries.conf.
    pub registries_blocked: Option<Vec<String>>,
    /// Blocked scopes for policy.json.
    pub policy_blocked: Option<Vec<String>>,
    /// Allowed scopes for policy.json.
    pub allowed: Option<Vec<String>>,
    /// What the MCO only logs: dropped blocks, or every list dropped.
    pub warnings: Vec<RenderWarning>,
}

fn push(list: &mut Option<Vec<String>>, s: &str) {
    list.get_or_insert_with(Vec::new).push(s.to_string());
}

/// Applies payload protection. `release_image` is `ClusterVersion/version`
/// `status.desired.image`; without it the lists pass through unfiltered.
pub fn blocked_and_allowed(
    release_image: Option<&str>,
    input: &RegistriesInput,
    blocked: Option<&[String]>,
    allowed: Option<&[String]>,
) -> Result<BlockedAndAllowed, RenderError> {
    blocked_and_allowed_as(
        release_image,
        input,
        blocked,
        allowed,
        &McoProfile::default(),
    )
}

/// [`blocked_and_allowed`] as the release of `profile` applies it.
pub fn blocked_and_allowed_as(
    release_image: Option<&str>,
    input: &RegistriesInput,
    blocked: Option<&[String]>,
    allowed: Option<&[String]>,
    profile: &McoProfile,
) -> Result<BlockedAndAllowed, RenderError> {
    let mut out = BlockedAndAllowed::default();
    let Some(release_image) = release_image else {
        for b in blocked.unwrap_or_default() {
            push(&mut out.registries_blocked, b);
            push(&mut out.policy_blocked, b);
        }
        for a in allowed.unwrap_or_default() {
            push(&mut out.allowed, a);
        }
        if blocked.is_some_and(|b| !b.is_empty()) {
            out.warnings.push(RenderWarning::NoReleaseImage);
        }
        return Ok(out);
    };
    let reference =
        Reference::parse_named(release_image).map_err(|e| RenderError::ReleaseImage {
            image: release_image.to_string(),
            reason: e.to_string(),
        })?;
    if profile.payload == PayloadFamily::RegistryHost {
        return Ok(registry_host_protection(&reference, blocked, allowed));
    }
    let payload_repo = reference.name();
    let blocked_list = blocked.unwrap_or_default();
    let mut refused = Vec::new();
    for reg in blocked_list {
        if scope_is_nested_inside_scope(&payload_repo, reg) {
            match has_unblocked_mirror(&reference, input, blocked_list, profile) {
                Err(reason) => {
                    return Ok(BlockedAndAllowed {
                        warnings: vec![RenderWarning::PayloadCheckFailed {
                            payload_repo,
                            reason,
                        }],
                        ..Default::default()
                    })
                }
                Ok(false) => {
                    refused.push(reg.clone());
                    continue;
                }
                Ok(true) => {
                    push(&mut out.registries_blocked, reg);
                    if payload_repo != *reg {
                        push(&mut out.policy_blocked, reg);
                    }
                    push(&mut out.allowed, &payload_repo);
                    continue;
                }
            }
        }
        push(&mut out.registries_blocked, reg);
        push(&mut out.policy_blocked, reg);
    }
    if !refused.is_empty() {
        out.warnings.push(RenderWarning::PayloadBlocked {
            registries: refused,
        });
    }
    for a in allowed.unwrap_or_default() {
        push(&mut out.allowed, a);
    }
    Ok(out)
}

/// OpenShift 4.4–4.10 `getValidBlockedRegistries`: the first blocked entry
/// equal to the release image's registry host is dropped (the entries after
/// it are kept unchecked); the same list goes to registries.conf and
/// policy.json, and the allowed list passes through.
fn registry_host_protection(
    reference: &Reference,
    blocked: Option<&[String]>,
    allowed: Option<&[String]>,
) -> BlockedAndAllowed {
    let mut out = BlockedAndAllowed::default();
    let list = blocked.unwrap_or_default();
    let host = reference.domain();
    let kept: Vec<&String> = match list.iter().position(|reg| reg == host) {
        Some(i) => {
            out.warnings.push(RenderWarning::PayloadBlocked {
                registries: vec![list[i].clone()],
            });
            list[..i].iter().chain(&list[i + 1..]).collect()
        }
        None => list.iter().collect(),
    };
    for reg in kept {
        push(&mut out.registries_blocked, reg);
        push(&mut out.policy_blocked, reg);
    }
    for a in allowed.unwrap_or_default() {
        push(&mut out.allowed, a);
    }
    out
}

/// `payloadRepoHasUnblockedMirror`: whether a pull source of the release
/// image is outside every blocked scope, in a registries.conf rendered (as
/// the release renders it) from the digest mirror sets, the insecure list
/// and the unfiltered blocked list.
fn has_unblocked_mirror(
    reference: &Reference,
    input: &RegistriesInput,
    blocked: &[String],
    profile: &McoProfile,
) -> Result<bool, String> {
    let temp_input = RegistriesInput {
        idms: input.idms.clone(),
        icsp: input.icsp.clone(),
        itms: Vec::new(),
        insecure: input.insecure.clone(),
        blocked: Some(blocked.to_vec()),
        image_origin: None,
    };
    let mut conf = V2RegistriesConf::default();
    edit_registries_config_as(&mut conf, &temp_input, profile.edit).map_err(|e| e.to_string())?;
    let text = encode_registries_conf(&conf, profile.encode);
    let file = ConfigFile {
        name: "registries.conf",
        text: &text,
    };
    let loaded = registries::load(Some(&file), &[]).map_err(|e| e.to_string())?;
    let sources = match lookup::find_registry(&loaded, &reference.name()) {
        Some(r) => lookup::pull_sources(r, reference)
            .map_err(|e| e.to_string())?
            .sources
            .into_iter()
            .map(|s| s.reference.name())
            .collect(),
        None => vec![reference.name()],
    };
    Ok(sources.iter().any(|name| {
        !blocked
            .iter()
            .any(|b| scope_is_nested_inside_scope(name, b))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origin::Origin;
    use crate::render::registries::{MirrorSet, SourcePolicy};

    const RELEASE: &str = "quay.io/openshift-release-dev/ocp-release@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn mirrored() -> RegistriesInput {
        RegistriesInput {
            idms: vec![MirrorSet {
                source: "quay.io/openshift-release-dev/ocp-release".into(),
                mirrors: strings(&["mirror.example.com/ocp/release"]),
                policy: SourcePolicy::AllowContactingSource,
                origin: Origin::from("ImageDigestMirrorSet/release"),
            }],
            ..Default::default()
        }
    }

    /// MCO helpers_test.go `TestGetValidBlockedRegistries` behaviour: a
    /// blocked payload registry without a usable mirror is dropped.
    #[test]
    fn blocking_the_payload_registry_without_mirror_is_dropped() {
        let blocked = strings(&["quay.io", "bad.io"]);
        let got = blocked_and_allowed(
            Some(RELEASE),
            &RegistriesInput::default(),
            Some(&blocked),
            None,
        )
        .unwrap();
        assert_eq!(got.registries_blocked, Some(strings(&["bad.io"])));
        assert_eq!(got.policy_blocked, Some(strings(&["bad.io"])));
        assert_eq!(got.allowed, None);
        assert!(
            got.warnings[0].to_string().contains("\"quay.io\""),
            "{:?}",
            got.warnings
        );
    }

    #[test]
    fn blocking_the_payload_registry_with_a_mirror_allows_the_payload_repo() {
        let blocked = strings(&["quay.io"]);
        let got = blocked_and_allowed(Some(RELEASE), &mirrored(), Some(&blocked), None).unwrap();
        assert_eq!(got.registries_blocked, Some(strings(&["quay.io"])));
        assert_eq!(got.policy_blocked, Some(strings(&["quay.io"])));
        assert_eq!(
            got.allowed,
            Some(strings(&["quay.io/openshift-release-dev/ocp-release"]))
        );
        assert!(got.warnings.is_empty());
    }

    #[test]
    fn blocking_exactly_the_payload_repo_keeps_policy_unblocked() {
        let blocked = strings(&["quay.io/openshift-release-dev/ocp-release"]);
        let got = blocked_and_allowed(Some(RELEASE), &mirrored(), Some(&blocked), None).unwrap();
        assert_eq!(got.registries_blocked, Some(blocked.clone()));
        assert_eq!(got.policy_blocked, None);
        assert_eq!(got.allowed, Some(blocked));
    }

    #[test]
    fn a_tag_release_image_cannot_use_digest_mirrors() {
        let blocked = strings(&["quay.io"]);
        let got = blocked_and_allowed(
            Some("quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"),
            &mirrored(),
            Some(&blocked),
            None,
        )
        .unwrap();
        assert_eq!(got.registries_blocked, None);
        assert!(!got.warnings.is_empty());
    }

    #[test]
    fn release_image_that_does_not_parse_fails() {
        assert!(blocked_and_allowed(Some("Not A Ref"), &mirrored(), None, None).is_err());
    }

    #[test]
    fn allowed_passes_through_and_empty_stays_nil() {
        let allowed = strings(&["quay.io", "registry.redhat.io"]);
        let got = blocked_and_allowed(Some(RELEASE), &mirrored(), None, Some(&allowed)).unwrap();
        assert_eq!(got.allowed, Some(allowed));
        let got = blocked_and_allowed(Some(RELEASE), &mirrored(), Some(&[]), Some(&[])).unwrap();
        assert_eq!(got, BlockedAndAllowed::default());
    }
}
