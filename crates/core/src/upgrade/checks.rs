//! What the cluster-version operator checks before it starts an update,
//! beside the images: the release's OpenPGP signature (the ConfigMap store
//! of library-go's `verify/store/configmap`) and the administrator
//! acknowledgements (`admin-gates` and `admin-acks`, the CVO's `adminack`
//! risk source).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

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
    /// The keys of `binaryData`.
    pub binary_keys: Vec<String>,
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
            binary_keys: value
                .get("binaryData")
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default(),
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
    /// The signature is there; the gate is acknowledged.
    Found,
    /// No signature in the cluster.
    Missing,
    /// The gate applies and is not acknowledged.
    NotAcked,
    /// The gate is acknowledged.
    Acked,
    /// The CVO refuses the gate (a malformed name, no description, a
    /// ConfigMap it cannot read): the update is blocked until it is fixed.
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
            CheckOutcome::Missing | CheckOutcome::NotAcked | CheckOutcome::Invalid
        )
    }
}

/// The OpenPGP signature of the payload, as the CVO looks for it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenPgp {
    pub outcome: CheckOutcome,
    /// The ConfigMap holding the signature (`namespace/name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_map: Option<String>,
    /// Its `binaryData` key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The stores the CVO tries when no ConfigMap holds the signature
    /// (`store-*` of `release-verification`, or
    /// `ClusterVersion.spec.signatureStores` when set).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stores: Vec<String>,
    /// Where the stores come from: `release-verification` or
    /// `ClusterVersion.spec.signatureStores`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stores_from: Option<String>,
    pub detail: String,
}

/// The key prefix of the signatures of `digest` (`sha256:<hex>` →
/// `sha256-<hex>`), as library-go writes and looks them up.
pub fn signature_key_prefix(digest: &str) -> Option<String> {
    match digest.split(':').collect::<Vec<_>>().as_slice() {
        [algo, hash] if !algo.is_empty() && !hash.is_empty() => Some(format!("{algo}-{hash}")),
        _ => None,
    }
}

/// Looks for the signature of the payload `digest` in the labelled
/// ConfigMaps of [`CONFIG_MANAGED`]: any `binaryData` key starting with
/// the digest's key prefix.
pub fn openpgp(
    digest: Option<&str>,
    maps: &ConfigMaps,
    custom: Option<&[crate::objects::SignatureStore]>,
) -> OpenPgp {
    let none = |outcome, detail: String| OpenPgp {
        outcome,
        config_map: None,
        key: None,
        stores: Vec::new(),
        stores_from: None,
        detail,
    };
    if !maps.managed_read {
        return none(CheckOutcome::NotRead, format!("no ConfigMap of {CONFIG_MANAGED} was read (give the must-gather, or run against the cluster)"));
    }
    let Some(prefix) = digest.and_then(signature_key_prefix) else {
        return none(
            CheckOutcome::NotChecked,
            "the payload's digest is not known".to_string(),
        );
    };
    let labelled = maps
        .maps
        .iter()
        .filter(|m| m.namespace == CONFIG_MANAGED && m.labels.contains_key(SIGNATURES_LABEL));
    for m in labelled {
        if let Some(key) = m.binary_keys.iter().find(|k| k.starts_with(&prefix)) {
            return OpenPgp {
                outcome: CheckOutcome::Found,
                config_map: Some(format!("{}/{}", m.namespace, m.name)),
                key: Some(key.clone()),
                stores: Vec::new(),
                stores_from: None,
                detail: format!("ConfigMap {}/{} binaryData key {key}", m.namespace, m.name),
            };
        }
    }
    let (stores, from, tried) = fallback(maps, custom);
    OpenPgp {
        outcome: CheckOutcome::Missing,
        config_map: None,
        key: None,
        detail: format!("no ConfigMap of {CONFIG_MANAGED} labelled {SIGNATURES_LABEL} has a binaryData key {prefix}-*: {tried}; a cluster that cannot reach them fails with \"The update cannot be verified\""),
        stores,
        stores_from: Some(from.to_string()),
    }
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
        let digest = format!("sha256:{}", "ab".repeat(32));
        let mut sig = cm(CONFIG_MANAGED, "mirrored", &[]);
        sig.binary_keys = vec![format!("sha256-{}-1", "ab".repeat(32))];
        let unlabelled = read(vec![sig.clone()]);
        assert_eq!(
            openpgp(Some(&digest), &unlabelled, None).outcome,
            CheckOutcome::Missing
        );
        sig.labels
            .insert(SIGNATURES_LABEL.to_string(), String::new());
        let found = openpgp(Some(&digest), &read(vec![sig.clone()]), None);
        assert_eq!(found.outcome, CheckOutcome::Found);
        assert_eq!(
            found.config_map.as_deref(),
            Some("openshift-config-managed/mirrored")
        );
        let other = format!("sha256:{}", "cd".repeat(32));
        let verification = cm(
            CONFIG_MANAGED,
            VERIFICATION,
            &[
                (
                    "store-openshift-official-release",
                    " https://mirror.example/sigs ",
                ),
                ("verifier-public-key-redhat", "k"),
            ],
        );
        let missing = openpgp(
            Some(&other),
            &read(vec![sig.clone(), verification.clone()]),
            None,
        );
        assert_eq!(missing.outcome, CheckOutcome::Missing);
        assert_eq!(missing.stores, vec!["https://mirror.example/sigs"]);
        assert!(
            missing.detail.contains("The update cannot be verified"),
            "{}",
            missing.detail
        );
        assert_eq!(
            openpgp(None, &read(vec![]), None).outcome,
            CheckOutcome::NotChecked
        );
        assert_eq!(
            openpgp(Some(&digest), &ConfigMaps::default(), None).outcome,
            CheckOutcome::NotRead
        );
        // ClusterVersion spec.signatureStores replaces the default stores.
        let custom = [crate::objects::SignatureStore {
            url: "https://sigs.example/store".to_string(),
            ca: None,
        }];
        let maps = read(vec![sig, verification]);
        let set = openpgp(Some(&other), &maps, Some(&custom));
        assert_eq!(set.stores, vec!["https://sigs.example/store"]);
        assert_eq!(
            set.stores_from.as_deref(),
            Some("ClusterVersion.spec.signatureStores")
        );
        let empty = openpgp(Some(&other), &maps, Some(&[]));
        assert!(
            empty.stores.is_empty() && empty.detail.contains("empty array"),
            "{}",
            empty.detail
        );
    }
}
