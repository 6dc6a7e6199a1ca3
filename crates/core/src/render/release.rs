//! What differs between the Machine Config Operator releases this tool
//! models, OpenShift 4.4 to 4.22, as far as the rendered registries
//! MachineConfig differs.
//!
//! Each release branch of openshift/machine-config-operator vendors its own
//! containers/image (the `V2RegistriesConf` struct, so the keys written),
//! BurntSushi/toml (the writer's string escapes) and openshift/runtime-utils
//! (`EditRegistriesConfig`), and its own controller code (which objects it
//! reads, payload protection, policy.json). The families, from each
//! branch's `go.mod`, vendor tree and `pkg/controller/container-runtime-config`:
//!
//! | release | runtime-utils | containers/image | toml | Ignition (types, file contents) |
//! |---|---|---|---|---|
//! | 4.4, 4.5 | 9169de69 | v3 (no short-name-mode) | v0.3.1 | 2.2.0, `data:text/plain,` escaped |
//! | 4.6 | c45d4ff3 (same edit) | v3 | v0.3.1 | 3.1.0, `data:text/plain,` escaped |
//! | 4.7, 4.8 | c45d4ff3 | v3 | v0.3.1 | 3.2.0, `data:text/plain,` escaped |
//! | 4.9 | 8b8348d8 (wildcards) | v5.14.0 | v0.3.1 | 3.2.0, `data:text/plain,` escaped |
//! | 4.10 | 8b8348d8 | v5.14.0 | v0.4.1 | 3.2.0, `data:text/plain,` escaped |
//! | 4.11, 4.12 | c736ec4e / 3beb0b58 (nested scopes) | v5.22.0 | v1.2.0 | 3.2.0, base64 |
//! | 4.13 – 4.22 | 7bdb5b9c (pull-from-mirror) | v5.24 – v5.35 | v1.2.1 – v1.5.0 | 3.2.0 – 3.5.0, base64 (`kernelArguments` from 3.4.0, 4.14) |
//!
//! Signature policies (the controller's listers and `getValidScopePolicies`):
//! ClusterImagePolicy from 4.16 (behind `SigstoreImageVerification`; 4.16
//! skips scopes holding the payload repository and lists only the policy
//! scopes in `registries.d`, 4.17 adds their mirrors), ImagePolicy and the
//! per-namespace `/etc/crio/policies/<namespace>.json` from 4.18.
//!
//! This module only names the differences; `registries`, `encode`,
//! `payload`, `policy` and `cluster` apply them.

/// The oldest OpenShift 4 minor release whose MCO output is modelled.
pub const OLDEST_MODELLED: u32 = 4;
/// The newest OpenShift 4 minor release whose MCO output is modelled.
pub const NEWEST_MODELLED: u32 = 22;

/// Which BurntSushi/toml writer the MCO release vendors, as far as its
/// basic strings differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TomlQuoting {
    /// v0.3.1 (OpenShift 4.4–4.9): only tab, newline, carriage return,
    /// `"` and `\` are escaped; other control characters are written as they are.
    V0_3,
    /// v0.4.1 and later (4.10+): every control character is escaped,
    /// `\b \t \n \f \r` short, the others as `\u00xx` in lower-case hex.
    V0_4,
}

/// Which containers/image and BurntSushi/toml the MCO release vendors, as
/// far as the output differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeProfile {
    /// containers/image/v5 as imported from OpenShift 4.9 (v5.14+) writes
    /// `short-name-mode = ""`; the v3 package of 4.4–4.8 has no such key.
    pub short_name_mode: bool,
    /// containers/image v5.32+ (OpenShift 4.19+) writes `additional-layer-store-auth-helper = ""`.
    pub additional_layer_store_auth_helper: bool,
    pub quoting: TomlQuoting,
}

impl Default for EncodeProfile {
    fn default() -> Self {
        Self {
            short_name_mode: true,
            additional_layer_store_auth_helper: true,
            quoting: TomlQuoting::V0_4,
        }
    }
}

/// Which openshift/runtime-utils `EditRegistriesConfig` the release vendors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditFamily {
    /// 4.4–4.8: entries matched by location only (no wildcard prefixes),
    /// insecure entries created before blocked ones, `mirror-by-digest-only`
    /// on each mirrored entry, no propagation to nested scopes.
    ExactLocation,
    /// 4.9–4.10: `*.domain` scopes as prefixes, blocked entries created
    /// first, still no propagation to nested scopes.
    Wildcards,
    /// 4.11–4.12: mirrors (and `mirror-by-digest-only`) copied to entries
    /// nested inside a mirrored source.
    NestedMirrors,
    /// 4.13 and later: `pull-from-mirror` per mirror, ImageDigestMirrorSet,
    /// ImageTagMirrorSet and `NeverContactSource`.
    PullFromMirror,
}

impl EditFamily {
    /// Whether mirrors are written with `pull-from-mirror` (else the entry
    /// gets `mirror-by-digest-only = true`).
    pub fn pull_from_mirror(self) -> bool {
        self == Self::PullFromMirror
    }
}

/// How the release's payload protection treats blocked registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadFamily {
    /// 4.4–4.10 `getValidBlockedRegistries`: a blocked entry equal to the
    /// release image's registry host is dropped; nothing else is checked.
    RegistryHost,
    /// 4.11 and later `getValidBlockedAndAllowedRegistries`: a blocked scope
    /// holding the payload repository is kept only when a mirror serves it.
    PullSources,
}

/// The shape of the generated MachineConfig's Ignition JSON: the
/// `coreos/ignition` config types the release's container-runtime-config
/// controller builds (`createNewIgnition`), marshalled by Go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnitionLayout {
    /// 4.4–4.5, `config/v2_2/types`: `networkd`, no `proxy`, files with
    /// `"filesystem":"root"` and no user, group or overwrite; contents
    /// `dataurl.New(data, "text/plain")` with `EncodingASCII`.
    V2,
    /// 4.6–4.10, `v3_1`/`v3_2` types, contents as in [`Self::V2`] (no
    /// `compression` key).
    V3Ascii,
    /// 4.11–4.13, `v3_2` types through `NewIgnFileBytesOverwriting`:
    /// `dataurl.EncodeBytes` (sniffed MIME type, base64) and `"compression":""`.
    V3,
    /// 4.14 and later, `v3_4`/`v3_5` types: as [`Self::V3`] with `kernelArguments`.
    V3KernelArguments,
}

/// Which `validateRegistriesConfScopes` the release runs (4.9+).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationFamily {
    /// 4.4–4.8: no validation.
    None,
    /// 4.9–4.10: runtime-utils 8b8348d8 takes an empty list entry as valid;
    /// an ICSP source or mirror holding `*` is refused ("wildcard entries
    /// are not supported with mirror configuration").
    Wildcards,
    /// 4.11–4.12: empty list entries, sources and mirrors refused too.
    EmptyAndWildcards,
    /// 4.13–4.14: every mirror set (IDMS, ICSP, ITMS): empty, wildcard,
    /// conflicting `mirrorSourcePolicy` ("… in imagedigestmirrorsets
    /// and/or imagetagmirrorsets") and `NeverContactSource` checks.
    MirrorSets,
    /// 4.15: as [`Self::MirrorSets`], the conflict message naming
    /// imagecontentsourcepolicies too.
    MirrorSetsNamingIcsp,
    /// 4.16 and later: sources and mirrors matched against the
    /// `sourceRegex` / `mirrorRegex` patterns ("invalid format for …").
    Patterns,
}

/// Output differences between MCO releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McoProfile {
    /// The OpenShift 4 minor release rendered for.
    pub minor: u32,
    pub encode: EncodeProfile,
    /// Ignition spec version of generated MachineConfigs.
    pub ignition_version: &'static str,
    /// The Ignition JSON layout of generated MachineConfigs.
    pub ignition_layout: IgnitionLayout,
    pub edit: EditFamily,
    pub payload: PayloadFamily,
    /// ImageDigestMirrorSet and ImageTagMirrorSet are read (4.13+).
    pub mirror_sets: bool,
    /// `containerRuntimeSearchRegistries` is written to its drop-in (4.7+).
    pub search_registries: bool,
    /// Which `validateRegistriesConfScopes` runs (4.9+).
    pub validation: ValidationFamily,
    /// An allowed list holding only the payload repository may come with a
    /// blocked list (4.11+); before, both lists set is an error.
    pub payload_allowed_exemption: bool,
    /// The `atomic` transport keeps only scopes with fewer than three
    /// slashes (4.14+); before, it is the `docker` transport's copy.
    pub atomic_filter: bool,
    /// ClusterImagePolicy is read (4.16+, behind the
    /// `SigstoreImageVerification` feature gate).
    pub cluster_image_policies: bool,
    /// ImagePolicy is read and written to `/etc/crio/policies/<namespace>.json`
    /// (4.18+; release-4.16 and release-4.17 have no ImagePolicy lister).
    pub namespaced_policies: bool,
    /// ClusterImagePolicy scopes that hold the payload repository are
    /// skipped, and the object's status says so (4.16 only:
    /// `getValidScopePolicies(cips, releaseImage, ctrl)`).
    pub payload_policy_scopes_skipped: bool,
    /// The sigstore `registries.d` file also turns attachments on for the
    /// mirrors of each policy scope, read from the registries.conf of the
    /// same sync (4.17+); 4.16 lists the policy scopes only.
    pub sigstore_mirrors: bool,
    /// policy.json is written by `json.MarshalIndent(p, "", "  ")` (4.17+);
    /// before, by `json.Marshal` on one line.
    pub policy_indent: bool,
}

impl Default for McoProfile {
    fn default() -> Self {
        Self::for_minor(Some(NEWEST_MODELLED))
    }
}

impl McoProfile {
    /// The profile for an OpenShift 4.x minor version (from ClusterVersion),
    /// or the newest modelled when unknown; a minor outside the modelled
    /// range gets the nearest modelled release's profile.
    pub fn for_minor(minor: Option<u32>) -> Self {
        let m = minor
            .unwrap_or(NEWEST_MODELLED)
            .clamp(OLDEST_MODELLED, NEWEST_MODELLED);
        let edit = match m {
            ..=8 => EditFamily::ExactLocation,
            9..=10 => EditFamily::Wildcards,
            11..=12 => EditFamily::NestedMirrors,
            _ => EditFamily::PullFromMirror,
        };
        Self {
            minor: m,
            encode: EncodeProfile {
                short_name_mode: m >= 9,
                additional_layer_store_auth_helper: m >= 19,
                quoting: if m <= 9 {
                    TomlQuoting::V0_3
                } else {
                    TomlQuoting::V0_4
                },
            },
            ignition_version: match m {
                ..=5 => "2.2.0",
                6 => "3.1.0",
                7..=13 => "3.2.0",
                14..=18 => "3.4.0",
                _ => "3.5.0",
            },
            ignition_layout: match m {
                ..=5 => IgnitionLayout::V2,
                6..=10 => IgnitionLayout::V3Ascii,
                11..=13 => IgnitionLayout::V3,
                _ => IgnitionLayout::V3KernelArguments,
            },
            edit,
            payload: if m >= 11 {
                PayloadFamily::PullSources
            } else {
                PayloadFamily::RegistryHost
            },
            mirror_sets: m >= 13,
            search_registries: m >= 7,
            validation: match m {
                ..=8 => ValidationFamily::None,
                9..=10 => ValidationFamily::Wildcards,
                11..=12 => ValidationFamily::EmptyAndWildcards,
                13..=14 => ValidationFamily::MirrorSets,
                15 => ValidationFamily::MirrorSetsNamingIcsp,
                _ => ValidationFamily::Patterns,
            },
            payload_allowed_exemption: m >= 11,
            atomic_filter: m >= 14,
            cluster_image_policies: m >= 16,
            namespaced_policies: m >= 18,
            payload_policy_scopes_skipped: m == 16,
            sigstore_mirrors: m >= 17,
            policy_indent: m >= 17,
        }
    }
}

#[cfg(test)]
mod tests;
