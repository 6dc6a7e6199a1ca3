//! What the cluster-version operator checks before it starts an update,
//! beside the images: the release's OpenPGP signature (the ConfigMap store
//! of library-go's `verify/store/configmap`) and the administrator
//! acknowledgements (`admin-gates` and `admin-acks`, the CVO's `adminack`
//! risk source).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::openpgp::{self, Keyring};

/// The namespace of the signature ConfigMaps, the verification ConfigMap
/// and `admin-gates`.
pub const CONFIG_MANAGED: &str = "openshift-config-managed";
/// The namespace of `admin-acks`.
pub const CONFIG: &str = "openshift-config";
/// The label that marks a ConfigMap of [`CONFIG_MANAGED`] as holding
/// release signatures (its presence counts, not its value).
pub const SIGNATURES_LABEL: &str = "release.openshift.io/verification-signatures";
/// The ConfigMap naming the signature stores and keys of the running release.
pub const VERIFICATION: &str = "release-verification";
pub const ADMIN_GATES: &str = "admin-gates";
pub const ADMIN_ACKS: &str = "admin-acks";

/// A ConfigMap, as far as these checks read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigMap {
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// `data`, string values only.
    pub data: BTreeMap<String, String>,
    /// `binaryData`, decoded from base64; a value that does not decode
    /// keeps the reason.
    pub binary: BTreeMap<String, Result<Vec<u8>, String>>,
}

/// A `binaryData` value: base64, as the API server keeps it.
fn decode_binary(value: &Value) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let text = value
        .as_str()
        .ok_or_else(|| "binaryData value is not a string".to_string())?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("binaryData value is not base64: {e}"))
}

impl ConfigMap {
    /// The ConfigMap in `value` (an API object).
    pub fn from_value(value: &Value) -> Self {
        let strings = |v: Option<&Value>| -> BTreeMap<String, String> {
            v.and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        };
        let text = |p: &str| {
            value
                .pointer(p)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        ConfigMap {
            namespace: text("/metadata/namespace"),
            name: text("/metadata/name"),
            labels: strings(value.pointer("/metadata/labels")),
            data: strings(value.get("data")),
            binary: value
                .get("binaryData")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.clone(), decode_binary(v)))
                .collect(),
        }
    }

    fn is(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.name == name
    }
}

/// The ConfigMaps the checks read, and whether each namespace was read.
#[derive(Debug, Clone, Default)]
pub struct ConfigMaps {
    pub maps: Vec<ConfigMap>,
    /// Whether [`CONFIG_MANAGED`] was read (live: always; files: when they
    /// hold one of its ConfigMaps).
    pub managed_read: bool,
    /// Whether [`CONFIG`] was read.
    pub config_read: bool,
}

impl ConfigMaps {
    fn get(&self, namespace: &str, name: &str) -> Option<&ConfigMap> {
        self.maps.iter().find(|m| m.is(namespace, name))
    }
}

/// What became of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckOutcome {
    /// Signatures are there and look like the release's, but the keys they
    /// should be verified with were not read; the gate is acknowledged.
    Found,
    /// Every keyring of the verification ConfigMap verified a signature.
    Verified,
    /// Signatures are there, and some keyring verified none of them.
    Rejected,
    /// No signature in the cluster.
    Missing,
    /// The gate applies and is not acknowledged.
    NotAcked,
    /// The gate is acknowledged.
    Acked,
    /// The CVO refuses the gate (a malformed name, no description, a
    /// ConfigMap it cannot read), or the verification ConfigMap: the update
    /// is blocked until it is fixed.
    Invalid,
    /// The gate is for another version, or the update is a patch update.
    NotApplicable,
    /// The ConfigMaps were not read (files without them): not checked.
    NotRead,
    /// The payload's digest is not known (it was not served): not checked.
    NotChecked,
}

impl CheckOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckOutcome::Found => "found",
            CheckOutcome::Verified => "verified",
            CheckOutcome::Rejected => "rejected",
            CheckOutcome::Missing => "missing",
            CheckOutcome::NotAcked => "notAcked",
            CheckOutcome::Acked => "acked",
            CheckOutcome::Invalid => "invalid",
            CheckOutcome::NotApplicable => "notApplicable",
            CheckOutcome::NotRead => "notRead",
            CheckOutcome::NotChecked => "notChecked",
        }
    }

    /// Whether the update cannot start with this outcome.
    pub fn fails(self) -> bool {
        matches!(
            self,
            CheckOutcome::Missing
                | CheckOutcome::Rejected
                | CheckOutcome::NotAcked
                | CheckOutcome::Invalid
        )
    }
}

/// The OpenPGP signature of the payload, as the CVO looks for it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenPgp {
    pub outcome: CheckOutcome,
    /// The ConfigMap holding the signature (`namespace/name`): the first
    /// verified one, else the first found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_map: Option<String>,
    /// Its `binaryData` key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The stores the CVO tries when no ConfigMap holds a signature it
    /// accepts (`store-*` of `release-verification`, or
    /// `ClusterVersion.spec.signatureStores` when set).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stores: Vec<String>,
    /// Where the stores come from: `release-verification` or
    /// `ClusterVersion.spec.signatureStores`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stores_from: Option<String>,
    /// Every signature of the digest in the labelled ConfigMaps, and what
    /// the verification made of it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<FoundSignature>,
    /// The keyrings each release must be signed by (`verifier-public-key-*`
    /// of `release-verification`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verifiers: Vec<Verifier>,
    pub detail: String,
}

/// What became of one signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SignatureState {
    /// A keyring's key verified it, over a payload naming the digest.
    Verified,
    /// Not an OpenPGP signed message, no keyring's key made it, or its
    /// payload is not the release's.
    Rejected,
    /// Well-formed and naming the digest; no keys were read to verify it.
    NotVerified,
}

/// One signature found for the release digest.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundSignature {
    /// `namespace/name` of the ConfigMap.
    pub config_map: String,
    /// The `binaryData` key.
    pub key: String,
    pub verification: SignatureState,
    /// The keyring (`verifier-public-key-*`) that verified it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified_by: Option<String>,
    /// The fingerprint of the key that made it, upper-case hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// That key's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    pub detail: String,
    /// Every keyring that verified it.
    #[serde(skip)]
    pub keyrings: Vec<String>,
}

/// One keyring every release must be signed by.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verifier {
    /// The `release-verification` key (`verifier-public-key-redhat`).
    pub name: String,
    /// Its primary keys' fingerprints.
    pub fingerprints: Vec<String>,
    /// Whether it verified a signature of the release.
    pub verified: bool,
}

/// The key prefix of the signatures of `digest` (`sha256:<hex>` →
/// `sha256-<hex>`), as library-go writes and looks them up.
pub fn signature_key_prefix(digest: &str) -> Option<String> {
    match digest.split(':').collect::<Vec<_>>().as_slice() {
        [algo, hash] if !algo.is_empty() && !hash.is_empty() => Some(format!("{algo}-{hash}")),
        _ => None,
    }
}

/// The keyrings of `release-verification`: `None` when the ConfigMap was
/// not read; an error (the CVO's words) when one does not parse or there
/// is none.
fn keyrings(maps: &ConfigMaps) -> Option<Result<Vec<Keyring>, String>> {
    let cm = maps.get(CONFIG_MANAGED, VERIFICATION)?;
    let src = format!("the config map {CONFIG_MANAGED}/{VERIFICATION}");
    let rings: Result<Vec<Keyring>, String> = cm
        .data
        .iter()
        .filter(|(k, _)| k.starts_with(openpgp::VERIFIER_KEY_PREFIX))
        .map(|(k, v)| {
            openpgp::parse_keyring(k, v.as_bytes()).map_err(|e| format!("{src} has an {e}"))
        })
        .collect();
    Some(rings.and_then(|r| {
        if r.is_empty() {
            Err(format!("{src} did not provide any GPG public keys to verify signatures from and cannot be used"))
        } else {
            Ok(r)
        }
    }))
}

/// A signature value found: its ConfigMap, key and bytes.
type Found<'a> = (&'a ConfigMap, &'a str, &'a Result<Vec<u8>, String>);

/// The signatures of `prefix` in the labelled ConfigMaps of
/// [`CONFIG_MANAGED`], in the order the CVO reads them: any `binaryData`
/// key starting with the prefix.
fn found_signatures<'a>(maps: &'a ConfigMaps, prefix: &str) -> Vec<Found<'a>> {
    maps.maps
        .iter()
        .filter(|m| m.namespace == CONFIG_MANAGED && m.labels.contains_key(SIGNATURES_LABEL))
        .flat_map(|m| {
            m.binary
                .iter()
                .filter(|(k, _)| k.starts_with(prefix))
                .map(move |(k, v)| (m, k.as_str(), v))
        })
        .collect()
}

/// One signature checked against the keyrings (when read), as the CVO
/// checks it: the first keyring whose key made it, over a payload naming
/// `digest`.
fn judge(
    cm: &ConfigMap,
    key: &str,
    bytes: &Result<Vec<u8>, String>,
    digest: &str,
    rings: Option<&[Keyring]>,
    now: i64,
) -> FoundSignature {
    let mut found = FoundSignature {
        config_map: format!("{}/{}", cm.namespace, cm.name),
        key: key.to_string(),
        verification: SignatureState::Rejected,
        verified_by: None,
        fingerprint: None,
        key_id: None,
        detail: String::new(),
        keyrings: Vec::new(),
    };
    let signed = bytes
        .as_deref()
        .map_err(Clone::clone)
        .and_then(|b| openpgp::read_message(b).map_err(|e| e.to_string()));
    let signed = match signed {
        Ok(s) => s,
        Err(e) => {
            found.detail = e;
            return found;
        }
    };
    if let Err(e) = openpgp::check_content(&signed.content, digest) {
        found.detail = e.to_string();
        return found;
    }
    let Some(rings) = rings else {
        found.verification = SignatureState::NotVerified;
        found.detail = "an OpenPGP signed message naming the release digest; not verified: the keys were not read".to_string();
        return found;
    };
    // Like the CVO, one signature counts for every keyring that verifies it.
    let mut why = Vec::new();
    for ring in rings {
        match openpgp::verify(&signed, ring, now) {
            Ok(by) if found.verified_by.is_none() => {
                found.detail = format!("verified by {} (key {})", by.keyring, by.fingerprint);
                found.verification = SignatureState::Verified;
                found.verified_by = Some(by.keyring.clone());
                found.fingerprint = Some(by.fingerprint);
                found.key_id = Some(by.key_id);
                found.keyrings.push(by.keyring);
            }
            Ok(by) => found.keyrings.push(by.keyring),
            Err(e) => why.push(e.to_string()),
        }
    }
    if found.verified_by.is_none() {
        found.detail = why.join("; ");
    }
    found
}

/// Looks for the signatures of the payload `digest` in the labelled
/// ConfigMaps of [`CONFIG_MANAGED`] and verifies them with the keyrings of
/// `release-verification` as the CVO does: each keyring must verify one
/// of them (library-go `releaseVerifier.Verify`). `now` (unix seconds)
/// decides whether a signature has expired.
pub fn openpgp(
    digest: Option<&str>,
    maps: &ConfigMaps,
    custom: Option<&[crate::objects::SignatureStore]>,
    now: i64,
) -> OpenPgp {
    let none = |outcome, detail: String| OpenPgp {
        outcome,
        config_map: None,
        key: None,
        stores: Vec::new(),
        stores_from: None,
        signatures: Vec::new(),
        verifiers: Vec::new(),
        detail,
    };
    if !maps.managed_read {
        return none(CheckOutcome::NotRead, format!("no ConfigMap of {CONFIG_MANAGED} was read (give the must-gather, or run against the cluster)"));
    }
    let (Some(digest), Some(prefix)) = (digest, digest.and_then(signature_key_prefix)) else {
        return none(
            CheckOutcome::NotChecked,
            "the payload's digest is not known".to_string(),
        );
    };
    let found = found_signatures(maps, &prefix);
    let (stores, from, tried) = fallback(maps, custom);
    if found.is_empty() {
        let mut out = none(CheckOutcome::Missing, format!("no ConfigMap of {CONFIG_MANAGED} labelled {SIGNATURES_LABEL} has a binaryData key {prefix}-*: {tried}; a cluster that cannot reach them fails with \"The update cannot be verified\""));
        out.stores = stores;
        out.stores_from = Some(from.to_string());
        return out;
    }
    let rings = match keyrings(maps) {
        Some(Err(why)) => {
            return none(
                CheckOutcome::Invalid,
                format!("{why}: the CVO verifies no release"),
            )
        }
        Some(Ok(r)) => Some(r),
        None => None,
    };
    let signatures: Vec<FoundSignature> = found
        .iter()
        .map(|(cm, key, bytes)| judge(cm, key, bytes, digest, rings.as_deref(), now))
        .collect();
    let mut out = none(CheckOutcome::Found, String::new());
    let chosen = signatures
        .iter()
        .find(|s| s.verification == SignatureState::Verified)
        .or_else(|| {
            signatures
                .iter()
                .find(|s| s.verification == SignatureState::NotVerified)
        });
    out.config_map = chosen.map(|s| s.config_map.clone());
    out.key = chosen.map(|s| s.key.clone());
    out.verifiers = rings
        .iter()
        .flatten()
        .map(|r| Verifier {
            name: r.name.clone(),
            fingerprints: r.fingerprints(),
            verified: signatures.iter().any(|s| s.keyrings.contains(&r.name)),
        })
        .collect();
    (out.outcome, out.detail) =
        verdict(digest, &signatures, &out.verifiers, rings.is_some(), &tried);
    if out.outcome == CheckOutcome::Rejected {
        out.stores = stores;
        out.stores_from = Some(from.to_string());
    }
    out.signatures = signatures;
    out
}

/// The outcome of the signatures found and why.
fn verdict(
    digest: &str,
    signatures: &[FoundSignature],
    verifiers: &[Verifier],
    keys_read: bool,
    tried: &str,
) -> (CheckOutcome, String) {
    let named = |s: &FoundSignature| format!("ConfigMap {} binaryData key {}", s.config_map, s.key);
    let rejected: Vec<String> = signatures
        .iter()
        .filter(|s| s.verification == SignatureState::Rejected)
        .map(|s| format!("{}: {}", named(s), s.detail))
        .collect();
    if !keys_read {
        if let Some(s) = signatures
            .iter()
            .find(|s| s.verification == SignatureState::NotVerified)
        {
            return (CheckOutcome::Found, format!("{}, not verified: ConfigMap {CONFIG_MANAGED}/{VERIFICATION} (the CVO's verifier-public-key-* keys) was not read", named(s)));
        }
        return (
            CheckOutcome::Rejected,
            format!(
                "no signature of {digest} is an OpenPGP signed release signature ({}); {tried}",
                rejected.join("; ")
            ),
        );
    }
    let missing: Vec<&str> = verifiers
        .iter()
        .filter(|v| !v.verified)
        .map(|v| v.name.as_str())
        .collect();
    if missing.is_empty() {
        let by: Vec<String> = signatures
            .iter()
            .filter(|s| s.verification == SignatureState::Verified)
            .map(|s| format!("{} {}", named(s), s.detail))
            .collect();
        return (CheckOutcome::Verified, by.join("; "));
    }
    let why = if rejected.is_empty() {
        String::new()
    } else {
        format!(" ({})", rejected.join("; "))
    };
    (
        CheckOutcome::Rejected,
        format!(
            "unable to verify {digest} against keyrings: {}{why}; {tried}",
            missing.join(", "),
        ),
    )
}

/// The stores the CVO asks when no ConfigMap has the signature, where they
/// come from, and what it does: `ClusterVersion.spec.signatureStores` when
/// set replaces the default stores (an empty list is refused), else the
/// `store-*` URLs of `release-verification`.
fn fallback(
    maps: &ConfigMaps,
    custom: Option<&[crate::objects::SignatureStore]>,
) -> (Vec<String>, &'static str, String) {
    const SPEC: &str = "ClusterVersion.spec.signatureStores";
    match custom {
        Some([]) => (Vec::new(), SPEC, format!("{SPEC} is an empty array, which the CVO refuses (\"Unset signatureStores entirely if you want to enable the default signature stores\")")),
        Some(list) => {
            let urls: Vec<String> = list.iter().map(|s| s.url.clone()).collect();
            let why = format!("{SPEC} replaces the default stores: the CVO will try {}", urls.join(", "));
            (urls, SPEC, why)
        }
        None => {
            let stores = stores(maps);
            let why = if stores.is_empty() {
                format!("ConfigMap {CONFIG_MANAGED}/{VERIFICATION} names no store-* URL")
            } else {
                format!(
                    "the CVO will try the stores of ConfigMap {CONFIG_MANAGED}/{VERIFICATION} ({})",
                    stores.join(", ")
                )
            };
            (stores, VERIFICATION, why)
        }
    }
}

/// The `store-*` URLs of `release-verification`, in key order.
fn stores(maps: &ConfigMaps) -> Vec<String> {
    maps.get(CONFIG_MANAGED, VERIFICATION)
        .map(|m| {
            m.data
                .iter()
                .filter(|(k, _)| k.starts_with("store-"))
                .map(|(_, v)| v.trim().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The version the cluster runs, as the CVO takes it: the newest
/// `Completed` entry of `status.history`, else its oldest entry, else
/// `status.desired`.
pub fn current_version(cv: &crate::objects::ClusterVersion) -> Option<&str> {
    let history = &cv.status.history;
    history
        .iter()
        .find(|h| h.state == "Completed")
        .or(history.last())
        .map(|h| h.version.as_str())
        .or(cv.version())
        .filter(|v| !v.is_empty())
}

/// One administrator gate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gate {
    /// The `admin-gates` key (or the ConfigMap that could not be read).
    pub name: String,
    /// The gate's description, as the CVO shows it.
    pub message: String,
    pub outcome: CheckOutcome,
    pub detail: String,
}

/// `major.minor` of a version (`4.20` of `4.20.8`).
fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut parts = version.trim_start_matches('v').split(['.', '-', '+']);
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The version of a gate name, as the CVO's pattern
/// `^ack-([4-5][.][0-9]{1,})-[^-]` takes it.
fn gate_version(name: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix("ack-")?;
    let (version, tail) = rest.split_once('-')?;
    let (major, minor) = version.split_once('.')?;
    let ok = matches!(major, "4" | "5")
        && !minor.is_empty()
        && minor.bytes().all(|b| b.is_ascii_digit())
        && !tail.is_empty()
        && !tail.starts_with('-');
    ok.then(|| Some((major.parse().ok()?, minor.parse().ok()?)))?
}

/// The gates of an update from `current` to `target`: each key of
/// `admin-gates` whose version is the current minor, acknowledged when
/// `admin-acks` has it `"true"`. The CVO maps them to minor and major
/// updates only; a patch update passes them.
pub fn gates(current: Option<&str>, target: Option<&str>, maps: &ConfigMaps) -> Vec<Gate> {
    let gate = |name: &str, message: &str, outcome, detail: String| Gate {
        name: name.to_string(),
        message: message.to_string(),
        outcome,
        detail,
    };
    if !maps.managed_read {
        let why = format!("no ConfigMap of {CONFIG_MANAGED} was read (give the must-gather, or run against the cluster)");
        return vec![gate(ADMIN_GATES, "", CheckOutcome::NotRead, why)];
    }
    let (Some(now), Some(to)) = (current.and_then(major_minor), target.and_then(major_minor))
    else {
        let why = format!(
            "the cluster's version ({}) or the target's ({}) is not known",
            current.unwrap_or("none"),
            target.unwrap_or("none")
        );
        return vec![gate(ADMIN_GATES, "", CheckOutcome::NotChecked, why)];
    };
    let minor_update = to > now;
    let Some(gates_cm) = maps.get(CONFIG_MANAGED, ADMIN_GATES) else {
        let why = format!("ConfigMap {CONFIG_MANAGED}/{ADMIN_GATES} does not exist: the CVO cannot check the acknowledgements and blocks minor updates");
        let outcome = if minor_update {
            CheckOutcome::Invalid
        } else {
            CheckOutcome::NotApplicable
        };
        return vec![gate(ADMIN_GATES, "", outcome, why)];
    };
    let acks = maps.get(CONFIG, ADMIN_ACKS);
    gates_cm
        .data
        .iter()
        .map(|(name, message)| {
            let (outcome, detail) = gate_state(name, message, now, minor_update, acks, maps);
            gate(name, message, outcome, detail)
        })
        .collect()
}

/// The outcome of one gate and why.
fn gate_state(
    name: &str,
    message: &str,
    now: (u64, u64),
    minor_update: bool,
    acks: Option<&ConfigMap>,
    maps: &ConfigMaps,
) -> (CheckOutcome, String) {
    let Some(version) = gate_version(name) else {
        return gate_if(
            minor_update,
            CheckOutcome::Invalid,
            "the CVO refuses the gate name: it must match ^ack-[4-5][.][0-9]{1,}-[^-]".to_string(),
        );
    };
    if version != now {
        let why = format!(
            "for {}.{}, the cluster runs {}.{}",
            version.0, version.1, now.0, now.1
        );
        return (CheckOutcome::NotApplicable, why);
    }
    if message.is_empty() {
        return gate_if(
            minor_update,
            CheckOutcome::Invalid,
            format!("{ADMIN_GATES} gate {name} must contain a non-empty value"),
        );
    }
    let acked = acks.and_then(|a| a.data.get(name)).map(String::as_str);
    let (outcome, why) = match acked {
        Some("true") => (
            CheckOutcome::Acked,
            format!("{CONFIG}/{ADMIN_ACKS} has {name}: \"true\""),
        ),
        _ if acks.is_none() && !maps.config_read => (
            CheckOutcome::NotRead,
            format!("ConfigMap {CONFIG}/{ADMIN_ACKS} was not read"),
        ),
        None if acks.is_none() => (
            CheckOutcome::NotAcked,
            format!("ConfigMap {CONFIG}/{ADMIN_ACKS} does not exist"),
        ),
        None => (
            CheckOutcome::NotAcked,
            format!("{CONFIG}/{ADMIN_ACKS} has no key {name}"),
        ),
        Some(other) => (
            CheckOutcome::NotAcked,
            format!("{CONFIG}/{ADMIN_ACKS} has {name}: {other:?}, not \"true\""),
        ),
    };
    if outcome == CheckOutcome::Acked {
        return (outcome, why);
    }
    gate_if(minor_update, outcome, why)
}

/// `outcome` for a minor or major update; a patch update is not gated.
fn gate_if(minor_update: bool, outcome: CheckOutcome, why: String) -> (CheckOutcome, String) {
    if minor_update {
        (outcome, why)
    } else {
        (
            CheckOutcome::NotApplicable,
            format!("a patch update is not gated ({why})"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cm(ns: &str, name: &str, data: &[(&str, &str)]) -> ConfigMap {
        ConfigMap {
            namespace: ns.to_string(),
            name: name.to_string(),
            data: data
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..ConfigMap::default()
        }
    }

    fn read(maps: Vec<ConfigMap>) -> ConfigMaps {
        ConfigMaps {
            maps,
            managed_read: true,
            config_read: true,
        }
    }

    #[test]
    fn gate_names_follow_the_cvo_pattern() {
        // cluster-version-operator pkg/risk/adminack: adminAckGateFmt.
        let cases = [
            ("ack-4.20-sigstore-in-4.21", Some((4, 20))),
            ("ack-4.8-kube-1.22-api-removals-in-4.9", Some((4, 8))),
            ("ack-5.0-x", Some((5, 0))),
            ("ack-3.11-x", None),
            ("ack-4.-x", None),
            ("ack-4.20--x", None),
            ("ack-4.20-", None),
            ("ack-4.2x-y", None),
            ("4.20-x", None),
        ];
        for (name, want) in cases {
            assert_eq!(gate_version(name), want, "{name}");
        }
    }

    #[test]
    fn gates_apply_to_minor_updates_from_their_version() {
        let gate = "ack-4.20-sigstore-in-4.21";
        let gates_cm = cm(
            CONFIG_MANAGED,
            ADMIN_GATES,
            &[(gate, "mirror the signatures"), ("ack-4.19-old", "old")],
        );
        type Acks<'a> = &'a [(&'a str, &'a str)];
        let cases: &[(&str, Acks, CheckOutcome)] = &[
            ("4.21.0", &[], CheckOutcome::NotAcked),
            ("4.21.0", &[(gate, "false")], CheckOutcome::NotAcked),
            ("4.21.0", &[(gate, "true")], CheckOutcome::Acked),
            ("5.0.0", &[], CheckOutcome::NotAcked),
            ("4.20.9", &[], CheckOutcome::NotApplicable),
        ];
        for (target, acks, want) in cases {
            let maps = read(vec![gates_cm.clone(), cm(CONFIG, ADMIN_ACKS, acks)]);
            let got = gates(Some("4.20.8"), Some(target), &maps);
            let g = got.iter().find(|g| g.name == gate).expect("gate");
            assert_eq!(g.outcome, *want, "{target} {acks:?}: {}", g.detail);
            let old = got.iter().find(|g| g.name == "ack-4.19-old").expect("old");
            assert_eq!(old.outcome, CheckOutcome::NotApplicable);
        }
    }

    #[test]
    fn unreadable_or_invalid_gates_block_minor_updates() {
        let no_gates = gates(Some("4.20.8"), Some("4.21.0"), &read(vec![]));
        assert_eq!(no_gates[0].outcome, CheckOutcome::Invalid);
        let bad = read(vec![cm(
            CONFIG_MANAGED,
            ADMIN_GATES,
            &[("ack-4.20-x", ""), ("bogus", "m")],
        )]);
        let got = gates(Some("4.20.8"), Some("4.21.0"), &bad);
        assert!(
            got.iter().all(|g| g.outcome == CheckOutcome::Invalid),
            "{got:?}"
        );
        let not_read = ConfigMaps::default();
        assert_eq!(
            gates(Some("4.20.8"), Some("4.21.0"), &not_read)[0].outcome,
            CheckOutcome::NotRead
        );
    }

    #[test]
    fn openpgp_signature_is_a_binary_key_with_the_digest_prefix() {
        use crate::upgrade::openpgp::tests::{armored_key, key, payload, sign};
        let digest = format!("sha256:{}", "ab".repeat(32));
        let signer = key(11, false);
        let mut sig = cm(CONFIG_MANAGED, "mirrored", &[]);
        let good = sign(&signer, &payload(&digest), true);
        sig.binary = [(format!("sha256-{}-1", "ab".repeat(32)), Ok(good))].into();
        let unlabelled = read(vec![sig.clone()]);
        assert_eq!(
            openpgp(Some(&digest), &unlabelled, None, 0).outcome,
            CheckOutcome::Missing
        );
        sig.labels
            .insert(SIGNATURES_LABEL.to_string(), String::new());
        let found = openpgp(Some(&digest), &read(vec![sig.clone()]), None, 0);
        assert_eq!(found.outcome, CheckOutcome::Found, "{}", found.detail);
        assert_eq!(
            found.config_map.as_deref(),
            Some("openshift-config-managed/mirrored")
        );
        let other = format!("sha256:{}", "cd".repeat(32));
        let keys = |k: &str| {
            cm(
                CONFIG_MANAGED,
                VERIFICATION,
                &[
                    (
                        "store-openshift-official-release",
                        " https://mirror.example/sigs ",
                    ),
                    ("verifier-public-key-redhat", k),
                ],
            )
        };
        let verification = keys(&armored_key(&signer));
        let verified = openpgp(
            Some(&digest),
            &read(vec![sig.clone(), verification.clone()]),
            None,
            0,
        );
        assert_eq!(
            verified.outcome,
            CheckOutcome::Verified,
            "{}",
            verified.detail
        );
        assert!(
            verified
                .detail
                .contains("verified by verifier-public-key-redhat"),
            "{}",
            verified.detail
        );
        assert!(verified.verifiers[0].verified);
        let wrong = keys(&armored_key(&key(12, false)));
        let rejected = openpgp(Some(&digest), &read(vec![sig.clone(), wrong]), None, 0);
        assert_eq!(
            rejected.outcome,
            CheckOutcome::Rejected,
            "{}",
            rejected.detail
        );
        assert_eq!(rejected.stores, vec!["https://mirror.example/sigs"]);
        // Every keyring must verify a signature; one signature counts for
        // each keyring holding its key (library-go releaseVerifier.Verify).
        let mut two = verification.clone();
        two.data
            .insert("verifier-public-key-also".to_string(), armored_key(&signer));
        let both = openpgp(
            Some(&digest),
            &read(vec![sig.clone(), two.clone()]),
            None,
            0,
        );
        assert_eq!(both.outcome, CheckOutcome::Verified, "{}", both.detail);
        assert!(
            both.verifiers.iter().all(|v| v.verified),
            "{:?}",
            both.verifiers
        );
        two.data.insert(
            "verifier-public-key-also".to_string(),
            armored_key(&key(13, false)),
        );
        let one_short = openpgp(Some(&digest), &read(vec![sig.clone(), two]), None, 0);
        assert_eq!(
            one_short.outcome,
            CheckOutcome::Rejected,
            "{}",
            one_short.detail
        );
        assert!(
            one_short
                .detail
                .contains("against keyrings: verifier-public-key-also;"),
            "{}",
            one_short.detail
        );
        let invalid = openpgp(Some(&digest), &read(vec![sig.clone(), keys("k")]), None, 0);
        assert_eq!(invalid.outcome, CheckOutcome::Invalid, "{}", invalid.detail);
        let mut garbage = sig.clone();
        garbage.binary = [(
            format!("sha256-{}-1", "ab".repeat(32)),
            Ok(b"junk".to_vec()),
        )]
        .into();
        let junk = openpgp(Some(&digest), &read(vec![garbage]), None, 0);
        assert_eq!(junk.outcome, CheckOutcome::Rejected, "{}", junk.detail);
        let missing = openpgp(
            Some(&other),
            &read(vec![sig.clone(), verification.clone()]),
            None,
            0,
        );
        assert_eq!(missing.outcome, CheckOutcome::Missing);
        assert_eq!(missing.stores, vec!["https://mirror.example/sigs"]);
        assert!(
            missing.detail.contains("The update cannot be verified"),
            "{}",
            missing.detail
        );
        assert_eq!(
            openpgp(None, &read(vec![]), None, 0).outcome,
            CheckOutcome::NotChecked
        );
        assert_eq!(
            openpgp(Some(&digest), &ConfigMaps::default(), None, 0).outcome,
            CheckOutcome::NotRead
        );
        // ClusterVersion spec.signatureStores replaces the default stores.
        let custom = [crate::objects::SignatureStore {
            url: "https://sigs.example/store".to_string(),
            ca: None,
        }];
        let maps = read(vec![sig, verification]);
        let set = openpgp(Some(&other), &maps, Some(&custom), 0);
        assert_eq!(set.stores, vec!["https://sigs.example/store"]);
        assert_eq!(
            set.stores_from.as_deref(),
            Some("ClusterVersion.spec.signatureStores")
        );
        let empty = openpgp(Some(&other), &maps, Some(&[]), 0);
        assert!(
            empty.stores.is_empty() && empty.detail.contains("empty array"),
            "{}",
            empty.detail
        );
    }
}
