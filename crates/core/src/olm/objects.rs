//! The OLM objects `operator-check` reads (operators.coreos.com/v1alpha1):
//! Subscriptions, CatalogSources and ClusterServiceVersions, the fields it
//! needs and nothing else.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::kinds;

pub const SUBSCRIPTION: &str = kinds::SUBSCRIPTION.kind;
pub const CATALOG_SOURCE: &str = kinds::CATALOG_SOURCE.kind;
pub const CSV: &str = kinds::CLUSTER_SERVICE_VERSION.kind;
pub const INSTALL_PLAN: &str = kinds::INSTALL_PLAN.kind;
pub const OPERATOR_GROUP: &str = kinds::OPERATOR_GROUP.kind;

#[derive(Debug, Clone, Default, Deserialize)]
struct Meta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
}

/// A Subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub namespace: String,
    pub name: String,
    pub package: String,
    pub channel: Option<String>,
    pub source: String,
    pub source_namespace: String,
    pub starting_csv: Option<String>,
    pub approval: String,
    pub installed_csv: Option<String>,
    /// `status.currentCSV`: the CSV the Subscription is progressing to.
    pub current_csv: Option<String>,
    /// `status.state` (`UpgradePending` while an InstallPlan is pending).
    pub state: Option<String>,
    /// The InstallPlan of `status.installPlanRef` (else the deprecated
    /// `status.installplan`): the latest one holding the current CSV.
    pub install_plan: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSubscription {
    #[serde(default)]
    metadata: Meta,
    #[serde(default)]
    spec: Option<SubscriptionSpec>,
    #[serde(default)]
    status: Option<SubscriptionStatus>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionSpec {
    #[serde(default)]
    name: String,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    source_namespace: String,
    #[serde(default, rename = "startingCSV")]
    starting_csv: Option<String>,
    #[serde(default)]
    install_plan_approval: Option<String>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionStatus {
    #[serde(default, rename = "installedCSV")]
    installed_csv: Option<String>,
    #[serde(default, rename = "currentCSV")]
    current_csv: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    install_plan_ref: Option<NameRef>,
    #[serde(default, rename = "installplan")]
    install_plan: Option<NameRef>,
}

/// A reference to an object by name (`ObjectReference`, `InstallPlanReference`).
#[derive(Deserialize)]
struct NameRef {
    #[serde(default)]
    name: String,
}

impl Subscription {
    /// The Subscription of `value`, read at `at` (for messages).
    pub fn from_value(at: &str, value: &Value) -> Result<Subscription, String> {
        let raw: RawSubscription = serde_json::from_value(value.clone())
            .map_err(|e| format!("{at}: Subscription: {e}"))?;
        let name = raw.metadata.name;
        let spec = raw
            .spec
            .ok_or_else(|| format!("{at}: Subscription {name} has no spec"))?;
        for (field, v) in [("spec.name", &spec.name), ("spec.source", &spec.source)] {
            if v.is_empty() {
                return Err(format!("{at}: Subscription {name} has no {field}"));
            }
        }
        let nonempty = |s: Option<String>| s.filter(|s| !s.is_empty());
        let status = raw.status.unwrap_or_default();
        let install_plan = status
            .install_plan_ref
            .or(status.install_plan)
            .map(|r| r.name);
        Ok(Subscription {
            source_namespace: if spec.source_namespace.is_empty() {
                raw.metadata.namespace.clone()
            } else {
                spec.source_namespace
            },
            namespace: raw.metadata.namespace,
            name,
            package: spec.name,
            channel: nonempty(spec.channel),
            source: spec.source,
            starting_csv: nonempty(spec.starting_csv),
            approval: nonempty(spec.install_plan_approval)
                .unwrap_or_else(|| "Automatic".to_string()),
            installed_csv: nonempty(status.installed_csv),
            current_csv: nonempty(status.current_csv),
            state: nonempty(status.state),
            install_plan: nonempty(install_plan),
        })
    }
}

/// Where a CatalogSource's catalog comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogOrigin {
    /// A grpc source with an image (the registry pod runs it).
    Image(String),
    /// Anything else (an address, a ConfigMap, no image): why it is not read.
    Other(String),
}

/// A CatalogSource: its namespace, name and origin, where its registry pod
/// runs and the pull secrets it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogSource {
    pub namespace: String,
    pub name: String,
    pub origin: CatalogOrigin,
    /// `spec.grpcPodConfig.nodeSelector`: the registry pod's nodeSelector.
    pub node_selector: BTreeMap<String, String>,
    /// `spec.secrets`: pull secrets of its namespace for the catalog image.
    pub secrets: Vec<String>,
    /// `spec.priority`: the resolver offers the bundles of a higher one
    /// first to a dependency (0 when unset).
    pub priority: i64,
}

impl CatalogSource {
    pub fn from_value(value: &Value) -> CatalogSource {
        let s = |p: &str| super::text_or_empty(value, p);
        let (image, address, config_map, kind) = (
            s("/spec/image"),
            s("/spec/address"),
            s("/spec/configMap"),
            s("/spec/sourceType"),
        );
        let origin = if !address.is_empty() {
            CatalogOrigin::Other(format!(
                "it serves the address {address}, not an image: its catalog is not read"
            ))
        } else if !config_map.is_empty() || kind == "configmap" || kind == "internal" {
            CatalogOrigin::Other(
                "its catalog is a ConfigMap, not an image: it is not read".to_string(),
            )
        } else if image.is_empty() {
            CatalogOrigin::Other("it has no spec.image".to_string())
        } else {
            CatalogOrigin::Image(image)
        };
        let node_selector = value
            .pointer("/spec/grpcPodConfig/nodeSelector")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect();
        let secrets = value
            .pointer("/spec/secrets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        CatalogSource {
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
            origin,
            node_selector,
            secrets,
            priority: value
                .pointer("/spec/priority")
                .and_then(Value::as_i64)
                .unwrap_or(0),
        }
    }
}

/// The OperatorGroup annotation that leaves the global catalog namespace
/// out of its namespace's resolution (operator-lifecycle-manager
/// `step_resolver.go`: `exclusionAnnotation`).
pub const EXCLUDE_GLOBAL_ANNOTATION: &str =
    "olm.operatorframework.io/exclude-global-namespace-resolution";

/// An OperatorGroup: its namespace, name, and whether it leaves the global
/// catalog namespace out of resolution (its annotation is `"true"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorGroup {
    pub namespace: String,
    pub name: String,
    pub exclude_global: bool,
    /// `spec.upgradeStrategy.name` is [`FAIL_FORWARD`]: OLM resolves past a
    /// failed InstallPlan.
    pub fail_forward: bool,
}

/// The OperatorGroup upgrade strategy that lets OLM resolve a Subscription
/// again after its InstallPlan failed (operator-framework/api
/// `UpgradeStrategyUnsafeFailForward`).
pub const FAIL_FORWARD: &str = "TechPreviewUnsafeFailForward";

impl OperatorGroup {
    pub fn from_value(value: &Value) -> OperatorGroup {
        let s = |p: &str| super::text_or_empty(value, p);
        let exclude_global = value
            .pointer("/metadata/annotations")
            .and_then(|a| a.get(EXCLUDE_GLOBAL_ANNOTATION))
            .and_then(Value::as_str)
            == Some("true");
        OperatorGroup {
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
            exclude_global,
            fail_forward: s("/spec/upgradeStrategy/name") == FAIL_FORWARD,
        }
    }
}

/// A ClusterServiceVersion's namespace, name and `spec.version`.
pub fn csv_version(value: &Value) -> (String, String, Option<String>) {
    let s = |p: &str| super::text(value, p);
    (
        s("/metadata/namespace").unwrap_or_default(),
        s("/metadata/name").unwrap_or_default(),
        s("/spec/version"),
    )
}

/// An InstallPlan: the CSVs it installs, its approval and phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallPlan {
    pub namespace: String,
    pub name: String,
    /// `spec.clusterServiceVersionNames`.
    pub csv_names: Vec<String>,
    /// `spec.approval`: `Automatic` or `Manual`.
    pub approval: String,
    /// `spec.approved`: a Manual plan waits until it is true.
    pub approved: bool,
    /// `status.phase`: `Planning`, `RequiresApproval`, `Installing`, `Complete`, `Failed`.
    pub phase: String,
}

impl InstallPlan {
    pub fn from_value(value: &Value) -> InstallPlan {
        let s = |p: &str| super::text_or_empty(value, p);
        InstallPlan {
            namespace: s("/metadata/namespace"),
            name: s("/metadata/name"),
            csv_names: value
                .pointer("/spec/clusterServiceVersionNames")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            approval: s("/spec/approval"),
            approved: value
                .pointer("/spec/approved")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            phase: s("/status/phase"),
        }
    }

    /// Whether it has not run to its end: not `Complete`, not `Failed`
    /// (OLM's `InstallPlanPhase`s).
    pub fn is_pending(&self) -> bool {
        !matches!(self.phase.as_str(), "Complete" | "Failed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_subscription_and_refuses_one_without_a_package() {
        let v = serde_json::json!({"kind":"Subscription","metadata":{"name":"etcd","namespace":"ops"},
            "spec":{"name":"etcd","channel":"stable","source":"cat","sourceNamespace":"openshift-marketplace","installPlanApproval":"Manual"},
            "status":{"installedCSV":"etcd.v1"}});
        let s = Subscription::from_value("a.yaml", &v).unwrap();
        assert_eq!(
            (
                s.package.as_str(),
                s.approval.as_str(),
                s.installed_csv.as_deref()
            ),
            ("etcd", "Manual", Some("etcd.v1"))
        );
        let v = serde_json::json!({"kind":"Subscription","metadata":{"name":"etcd"},"spec":{"source":"cat"}});
        assert_eq!(
            Subscription::from_value("a.yaml", &v).unwrap_err(),
            "a.yaml: Subscription etcd has no spec.name"
        );
    }

    #[test]
    fn catalog_sources_that_are_not_images() {
        let origin =
            |spec: Value| CatalogSource::from_value(&serde_json::json!({"spec": spec})).origin;
        assert_eq!(
            origin(serde_json::json!({"sourceType":"grpc","image":"q.io/c:1"})),
            CatalogOrigin::Image("q.io/c:1".into())
        );
        assert!(matches!(
            origin(serde_json::json!({"sourceType":"grpc","address":"c.svc:50051"})),
            CatalogOrigin::Other(_)
        ));
        assert!(matches!(
            origin(serde_json::json!({"sourceType":"configmap","configMap":"c"})),
            CatalogOrigin::Other(_)
        ));
    }
}
