//! What the MCO refuses and what it reports, as typed values: the one
//! error enum of the render layer ([`RenderError`]), the findings of its
//! validation ([`McoFinding`], every one collected so `lint` can list them
//! all while `render` stops at the first as the MCO does), and what a
//! render only warns about ([`RenderWarning`]). Messages are the MCO's (or
//! containers/image's) own; this module imports no other render module.

use std::fmt;

use serde::Serialize;

use crate::objects::Image;
use crate::origin::Origin;
use crate::policy::DecodeError;

/// Which policy kind a scope came from, spelled as the MCO's messages spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyKind {
    /// `clusterimagePolicy` in messages.
    ClusterImagePolicy,
    /// `imagePolicy` in messages.
    ImagePolicy,
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ClusterImagePolicy => "clusterimagePolicy",
            Self::ImagePolicy => "imagePolicy",
        })
    }
}

fn origins_prefix(origins: &[Origin]) -> String {
    if origins.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = origins.iter().map(Origin::as_str).collect();
    format!("{}: ", names.join(", "))
}

/// One thing the MCO's validation of the Image config and the mirror sets
/// refuses (`validateRegistriesConfScopes`, and allowed with blocked
/// registries in `updatePolicyJSON`). `Display` is the message `render`
/// prints; [`McoFinding::object`] and [`McoFinding::message`] are the same
/// facts split for a list of findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McoFinding {
    /// An `insecureRegistries` entry `IsValidRegistriesConfScope` refuses.
    InvalidInsecure(String),
    /// A `blockedRegistries` entry `IsValidRegistriesConfScope` refuses.
    InvalidBlocked(String),
    /// An `allowedRegistries` entry `IsValidRegistriesConfScope` refuses.
    InvalidAllowed(String),
    /// Allowed and blocked registries together, beyond the payload exception.
    AllowedAndBlocked,
    /// A mirror-set source outside the source pattern.
    InvalidSource { scope: String, origin: Origin },
    /// A mirror outside the mirror pattern.
    InvalidMirror { mirror: String, origin: Origin },
    /// Two sets give one source different `mirrorSourcePolicy` values.
    ConflictingPolicy {
        scope: String,
        origin: Origin,
        first: Origin,
    },
    /// `NeverContactSource` with the source among its own mirrors.
    NeverContactSourceIsMirror { scope: String, origin: Origin },
    /// An empty mirror-set source (4.11–4.15).
    EmptySource { origin: Origin },
    /// An empty mirror (4.11–4.15).
    EmptyMirror { origin: Origin },
    /// A source or mirror holding `*` (4.9–4.15).
    WildcardMirrorConfiguration { entry: String, origin: Origin },
    /// [`Self::ConflictingPolicy`] as 4.13–4.14 word it.
    ConflictingPolicyInSets {
        scope: String,
        origin: Origin,
        first: Origin,
    },
}

impl McoFinding {
    /// The object at fault: the mirror set, or `Image/cluster` for its lists.
    pub fn object(&self) -> Origin {
        match self {
            Self::InvalidInsecure(_)
            | Self::InvalidBlocked(_)
            | Self::InvalidAllowed(_)
            | Self::AllowedAndBlocked => Origin::object(Image::KIND, Image::CLUSTER),
            Self::InvalidSource { origin, .. }
            | Self::InvalidMirror { origin, .. }
            | Self::ConflictingPolicy { origin, .. }
            | Self::NeverContactSourceIsMirror { origin, .. }
            | Self::EmptySource { origin }
            | Self::EmptyMirror { origin }
            | Self::WildcardMirrorConfiguration { origin, .. }
            | Self::ConflictingPolicyInSets { origin, .. } => origin.clone(),
        }
    }

    /// The MCO's message, without the object.
    pub fn message(&self) -> String {
        match self {
            Self::InvalidInsecure(s) => format!("invalid entry for insecure registries \"{s}\""),
            Self::InvalidBlocked(s) => format!("invalid entry for blocked registries \"{s}\""),
            Self::InvalidAllowed(s) => format!("invalid entry for allowed registries \"{s}\""),
            Self::AllowedAndBlocked => "invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified".to_string(),
            Self::InvalidSource { scope, .. } => format!("invalid format for source \"{scope}\""),
            Self::InvalidMirror { mirror, .. } => format!("invalid format for mirror \"{mirror}\""),
            Self::ConflictingPolicy { scope, first, .. } => format!(
                "conflicting mirrorSourcePolicy is set for the same source \"{scope}\" in imagedigestmirrorsets, imagetagmirrorsets, or imagecontentsourcepolicies (first set by {first})"
            ),
            Self::NeverContactSourceIsMirror { scope, .. } => format!(
                "cannot set mirrorSourcePolicy: NeverContactSource if the source \"{scope}\" is one of the mirrors"
            ),
            Self::EmptySource { .. } => "invalid empty entry for source configuration".to_string(),
            Self::EmptyMirror { .. } => "invalid empty entry for mirror configuration".to_string(),
            Self::WildcardMirrorConfiguration { entry, .. } => format!(
                "wildcard entries are not supported with mirror configuration \"{entry}\""
            ),
            Self::ConflictingPolicyInSets { scope, first, .. } => format!(
                "conflicting mirrorSourcePolicy is set for the same source \"{scope}\" in imagedigestmirrorsets and/or imagetagmirrorsets (first set by {first})"
            ),
        }
    }

    /// Whether the MCO's own message names the object (the mirror-set
    /// findings); the Image-config ones are printed without it.
    fn names_object(&self) -> bool {
        !matches!(
            self,
            Self::InvalidInsecure(_)
                | Self::InvalidBlocked(_)
                | Self::InvalidAllowed(_)
                | Self::AllowedAndBlocked
        )
    }
}

impl fmt::Display for McoFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.names_object() {
            write!(f, "{}: ", self.object())?;
        }
        f.write_str(&self.message())
    }
}

impl std::error::Error for McoFinding {}

/// Why the MCO refuses to render (the whole sync fails). Messages after
/// the optional origin prefix are the MCO's (or containers/image's) own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The first validation finding, where the MCO stops.
    #[error(transparent)]
    Invalid(#[from] McoFinding),
    /// runtime-utils cannot propagate mirrors into a scope nested in a wildcard.
    #[error("internal error: mirrorsAdjustedForNestedScope for a wildcard scope \"{0}\"")]
    WildcardNestedScope(String),
    /// Payload protection cannot parse the release image.
    #[error("error parsing the release image \"{image}\": {reason}")]
    ReleaseImage { image: String, reason: String },
    /// The release image does not parse (`errParsingReference`, `updatePolicyJSON`).
    #[error("error parsing reference of release image")]
    ParsingReleaseImage,
    /// A policy scope outside every allowed registry.
    #[error("{}{kind} configured for the scope {scope} is not nested inside allowedRegistries", origins_prefix(.origins))]
    NotNestedInAllowed {
        kind: PolicyKind,
        scope: String,
        origins: Vec<Origin>,
    },
    /// A policy scope inside a blocked registry.
    #[error("{}{kind} configured for the scope {scope} is nested inside blockedRegistries", origins_prefix(.origins))]
    NestedInBlocked {
        kind: PolicyKind,
        scope: String,
        origins: Vec<Origin>,
    },
    /// `policyItemFromSpec` (a containers/image constructor) refused the spec.
    #[error("{origin}: {message}")]
    InvalidPolicy { origin: Origin, message: String },
    /// The template (or a given policy.json) does not decode.
    #[error("error decoding policy json: {0}")]
    DecodePolicy(DecodeError),
    /// The cluster policy does not decode for a namespace's policy.
    #[error("error decoding policy json for namespaced policies: {0}")]
    DecodeNamespacedPolicy(DecodeError),
    /// `updateNamespacedPolicyJSONs` was given no cluster policy.
    #[error("cluster override policy is empty")]
    EmptyClusterPolicy,
    /// Expanding a scope through registries.conf failed.
    #[error("error adding clusterimagepolicy scope {scope} relevant mirrors: {message}")]
    SigstoreScope { scope: String, message: String },
    /// containers/image refused to load the rendered registries.conf.
    #[error("{0}")]
    RegistriesConf(String),
}

impl RenderError {
    /// The objects the refusal is about, when it names any.
    pub fn objects(&self) -> Vec<Origin> {
        match self {
            Self::Invalid(f) => vec![f.object()],
            Self::InvalidPolicy { origin, .. } => vec![origin.clone()],
            Self::NotNestedInAllowed { origins, .. } | Self::NestedInBlocked { origins, .. } => {
                origins.clone()
            }
            _ => Vec::new(),
        }
    }
}

/// What a render reports without failing: what the MCO only logs or sets
/// as a status condition, and what this tool had to assume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderWarning {
    /// No `Image/cluster`: rendered as if its spec were empty.
    NoImageConfig,
    /// No release image: payload protection was not applied.
    NoReleaseImage,
    /// The input names no release the tool models; rendered as `rendered_as`.
    ReleaseAssumed { release: Release, rendered_as: u32 },
    /// Objects or fields the MCO of the rendered release does not read
    /// (added in 4.`since`): left out of the render.
    NotReadByRelease {
        minor: u32,
        since: u32,
        ignored: Vec<String>,
    },
    /// Blocked registries the MCO drops because they would block the payload.
    PayloadBlocked { registries: Vec<String> },
    /// Checking the payload failed, so the MCO drops every blocked and allowed registry.
    PayloadCheckFailed {
        payload_repo: String,
        reason: String,
    },
    /// ClusterImagePolicy scopes holding the payload repository, dropped by
    /// the MCO of OpenShift 4.16 (a status condition).
    PayloadScopesSkipped {
        origin: Origin,
        /// The scopes dropped, in spec order.
        scopes: Vec<String>,
        message: String,
    },
    /// Objects the API server of the inputs' release refuses beside others
    /// (an ImageDigestMirrorSet or ImageTagMirrorSet beside an
    /// ImageContentSourcePolicy, OpenShift 4.13.0–4.13.26 and
    /// 4.14.0–4.14.2: [`crate::admission`]): a proposed one never takes
    /// effect, and those read cannot all have been created.
    RefusedByApiServer {
        /// The objects concerned ([`crate::admission::involved`]).
        objects: Vec<Origin>,
        /// What it means, as [`crate::admission::render_warning`] says it.
        message: String,
    },
    /// ImagePolicy scopes dropped for a ClusterImagePolicy's (a status condition).
    ScopeConflict {
        origin: Origin,
        /// The ImagePolicy's namespace.
        namespace: String,
        /// The scopes dropped.
        scopes: Vec<String>,
        message: String,
    },
}

/// The OpenShift release an input names, when the tool does not model it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// No ClusterVersion at all.
    Absent,
    /// A ClusterVersion without an OpenShift 4 version.
    Unnamed,
    /// OpenShift 4.minor, outside the modelled range.
    Minor(u32),
}

impl RenderWarning {
    /// Whether the MCO silently drops part of the configuration (what
    /// `lint` reports as an error).
    pub fn drops_configuration(&self) -> bool {
        matches!(
            self,
            Self::PayloadBlocked { .. } | Self::PayloadCheckFailed { .. }
        )
    }
}

impl fmt::Display for RenderWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoImageConfig => f.write_str(
                "no Image/cluster object: the MCO does not sync without it; rendered as if its spec were empty",
            ),
            Self::NoReleaseImage => f.write_str(
                "no ClusterVersion/version with status.desired.image: the MCO's payload protection \
                 (dropping a blocked registry that serves the release image) was not applied",
            ),
            Self::ReleaseAssumed {
                release,
                rendered_as,
            } => match release {
                Release::Absent => write!(
                    f,
                    "no ClusterVersion in the input: rendered as the newest release modelled, OpenShift 4.{rendered_as} \
                     (older releases write another Ignition version and registries.conf keys); add ClusterVersion/version \
                     (oc get clusterversion version -o yaml) to render for the cluster's release"
                ),
                Release::Unnamed => write!(
                    f,
                    "ClusterVersion/version names no OpenShift 4 release: rendered as the newest release modelled, 4.{rendered_as}"
                ),
                Release::Minor(m) if m < rendered_as => write!(
                    f,
                    "ClusterVersion/version is OpenShift 4.{m}, older than the oldest release modelled (4.{rendered_as}): \
                     rendered as 4.{rendered_as}"
                ),
                Release::Minor(m) => write!(
                    f,
                    "ClusterVersion/version is OpenShift 4.{m}, newer than the newest release modelled (4.{rendered_as}): \
                     rendered as 4.{rendered_as}"
                ),
            },
            Self::NotReadByRelease {
                minor,
                since,
                ignored,
            } => write!(
                f,
                "the MCO of OpenShift 4.{minor} does not read {} (read from 4.{since} on): left out of the render, \
                 as the cluster's MCO leaves it out",
                ignored.join(", ")
            ),
            Self::PayloadBlocked { registries } => {
                let quoted: Vec<String> = registries.iter().map(|r| format!("\"{r}\"")).collect();
                write!(
                    f,
                    "error adding [{}] to blocked registries, cannot block the repository being used by the payload \
                     (the MCO logs this and renders without these entries)",
                    quoted.join(" ")
                )
            }
            Self::PayloadCheckFailed { payload_repo, reason } => write!(
                f,
                "the MCO drops every blocked and allowed registry from the render: \
                 checking whether the release payload {payload_repo} stays reachable failed: {reason}"
            ),
            Self::RefusedByApiServer { message, .. } => f.write_str(message),
            Self::ScopeConflict {
                origin, message, ..
            }
            | Self::PayloadScopesSkipped {
                origin, message, ..
            } => write!(f, "{origin}: {message}"),
        }
    }
}

impl Serialize for RenderWarning {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
