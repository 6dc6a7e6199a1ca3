//! An Open Cluster Management (Red Hat ACM / multicluster engine) hub: its
//! `ManagedCluster`s, and the cluster-proxy add-on's user server through
//! which each is reached as `https://<route host>/<cluster name>`, the hub
//! user's credential sent along (the user server impersonates that user on
//! the managed cluster).
//!
//! A cluster the hub itself reports it cannot reach — not accepted, or
//! its `ManagedClusterConditionAvailable` condition not `True` — is known
//! from its ManagedCluster ([`ManagedCluster::unavailable`]), so that it is
//! reported without a request.
//!
//! The add-on exposes its user server as the Route `cluster-proxy-addon-user`
//! in the namespace of the multicluster engine (`multicluster-engine` by
//! default); see stolostron/cluster-proxy-addon and
//! open-cluster-management-io/cluster-proxy.

use serde_json::Value;

use super::api::{ClusterError, Connection, CONFIG_MAPS, MANAGED_CLUSTERS, ROUTES};

/// The Route of the cluster-proxy add-on's user server.
pub const USER_ROUTE: &str = "cluster-proxy-addon-user";
/// Where the multicluster engine installs it by default.
pub const USER_ROUTE_NAMESPACE: &str = "multicluster-engine";

/// Why a hub could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error("the hub at {server} serves no ManagedClusters (managedclusters.cluster.open-cluster-management.io): it is not an Open Cluster Management hub")]
    NotAHub { server: String },
    #[error("the cluster-proxy add-on is not installed on the hub at {server}: there is no Route {USER_ROUTE} (looked in namespace {USER_ROUTE_NAMESPACE}, then in every namespace)")]
    NoClusterProxy { server: String },
    #[error("Route {namespace}/{USER_ROUTE} on the hub has no spec.host")]
    RouteWithoutHost { namespace: String },
    #[error("the hub has no ManagedCluster{}", selector.as_ref().map_or(String::new(), |s| format!(" matching --hub-selector {s:?}")))]
    NoClusters { selector: Option<String> },
}

/// The hub's managed clusters and the user server that reaches them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hub {
    /// `https://<route host>`, without a trailing slash.
    pub proxy: String,
    /// The ManagedClusters, sorted by name.
    pub clusters: Vec<ManagedCluster>,
}

/// One ManagedCluster, as the hub reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedCluster {
    pub name: String,
    /// Why the hub cannot reach it, from its own object: not accepted
    /// (`spec.hubAcceptsClient` false), or unavailable (its
    /// `ManagedClusterConditionAvailable` condition not `True`). `None` for
    /// a cluster the hub reports available.
    pub unavailable: Option<String>,
}

/// The condition the registration controller sets on a ManagedCluster when
/// its agent (the klusterlet) keeps its lease and its API server is healthy
/// (open-cluster-management-io/api, `cluster/v1`).
pub const AVAILABLE: &str = "ManagedClusterConditionAvailable";

impl ManagedCluster {
    /// Reads a listed ManagedCluster object; `None` without a name.
    pub fn from_object(object: &Value) -> Option<Self> {
        Some(Self {
            name: name_of(object)?,
            unavailable: unavailable_reason(object),
        })
    }
}

/// Why the hub cannot reach the cluster of `object`, or `None`. A cluster
/// the hub has not accepted never joins (the registration controller
/// denies its agent); one whose Available condition is not `True` (lost
/// lease: `Unknown`; unhealthy: `False`; not yet reported) answers through
/// the cluster-proxy with a 503.
fn unavailable_reason(object: &Value) -> Option<String> {
    let accepted = object
        .pointer("/spec/hubAcceptsClient")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !accepted {
        return Some("not accepted by the hub (spec.hubAcceptsClient is false)".to_string());
    }
    let condition = object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(AVAILABLE));
    let Some(condition) = condition else {
        return Some(format!("unavailable (condition {AVAILABLE} not reported)"));
    };
    let field = |k: &str| {
        condition
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
    };
    let status = field("status");
    if status == "True" {
        return None;
    }
    let said: Vec<&str> = [field("reason"), field("message")]
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let status = if status.is_empty() { "unset" } else { status };
    Some(if said.is_empty() {
        format!("unavailable (condition {AVAILABLE} is {status})")
    } else {
        format!(
            "unavailable (condition {AVAILABLE} is {status}: {})",
            said.join(", ")
        )
    })
}

impl Hub {
    /// The API server URL of `cluster` through the user server.
    pub fn cluster_url(&self, cluster: &str) -> String {
        format!("{}/{cluster}", self.proxy)
    }
}

/// Reads the hub behind `connection`: its ManagedClusters (those
/// `selector` selects) and the cluster-proxy user server's Route.
pub async fn read_hub(connection: &Connection, selector: Option<&str>) -> Result<Hub, HubError> {
    let Some(managed) = connection
        .list_objects(&MANAGED_CLUSTERS, None, selector)
        .await?
    else {
        return Err(HubError::NotAHub {
            server: connection.server.clone(),
        });
    };
    let mut clusters: Vec<ManagedCluster> = managed
        .iter()
        .filter_map(ManagedCluster::from_object)
        .collect();
    clusters.sort_by(|a, b| a.name.cmp(&b.name));
    clusters.dedup_by(|a, b| a.name == b.name);
    if clusters.is_empty() {
        return Err(HubError::NoClusters {
            selector: selector.map(str::to_string),
        });
    }
    let route = match connection
        .get_in(&ROUTES, USER_ROUTE_NAMESPACE, USER_ROUTE)
        .await?
    {
        Some(route) => Some(route),
        // Installed elsewhere: any namespace's Route of that name.
        None => connection
            .list_objects(&ROUTES, None, None)
            .await?
            .into_iter()
            .flatten()
            .find(|r| name_of(r).as_deref() == Some(USER_ROUTE)),
    };
    let Some(route) = route else {
        return Err(HubError::NoClusterProxy {
            server: connection.server.clone(),
        });
    };
    let host = route
        .pointer("/spec/host")
        .and_then(Value::as_str)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| HubError::RouteWithoutHost {
            namespace: route
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        })?;
    Ok(Hub {
        proxy: format!("https://{}", host.trim_end_matches('/')),
        clusters,
    })
}

/// Where OpenShift publishes the CA of its default ingress certificate:
/// the router's, which serves every Route (the cluster-proxy user server's
/// among them), not the API server's.
pub const INGRESS_CA_NAMESPACE: &str = "openshift-config-managed";
pub const INGRESS_CA_CONFIG_MAP: &str = "default-ingress-cert";
pub const INGRESS_CA_KEY: &str = "ca-bundle.crt";

/// The hub's ingress CA, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngressCa {
    /// The PEM bundle.
    Found(String),
    /// Not there, or not readable: why.
    Missing(String),
}

/// Reads the hub's ingress CA; a ConfigMap that is missing, forbidden or
/// without the key is [`IngressCa::Missing`], other failures are errors.
pub async fn read_ingress_ca(connection: &Connection) -> Result<IngressCa, HubError> {
    let read = connection
        .get_in(&CONFIG_MAPS, INGRESS_CA_NAMESPACE, INGRESS_CA_CONFIG_MAP)
        .await;
    let config_map = match read {
        Ok(Some(config_map)) => config_map,
        Ok(None) => return Ok(IngressCa::Missing("not found".to_string())),
        Err(ClusterError::Forbidden(_)) => return Ok(IngressCa::Missing("forbidden".to_string())),
        Err(e) => return Err(e.into()),
    };
    Ok(
        match config_map
            .get("data")
            .and_then(|d| d.get(INGRESS_CA_KEY))
            .and_then(Value::as_str)
        {
            Some(pem) => IngressCa::Found(pem.to_string()),
            None => IngressCa::Missing(format!("it has no key {INGRESS_CA_KEY}")),
        },
    )
}

fn name_of(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::{Hub, ManagedCluster};
    use serde_json::json;

    #[test]
    fn issue_28_unavailable_and_not_accepted_from_the_object() {
        let available = json!([{"type": "HubAcceptedManagedCluster", "status": "True"},
            {"type": "ManagedClusterConditionAvailable", "status": "True", "reason": "ManagedClusterAvailable"}]);
        for (spec, conditions, want) in [
            (json!({"hubAcceptsClient": true}), available.clone(), None),
            (
                json!({"hubAcceptsClient": false}),
                available.clone(),
                Some("not accepted by the hub (spec.hubAcceptsClient is false)"),
            ),
            (
                json!({}),
                json!([]),
                Some("not accepted by the hub (spec.hubAcceptsClient is false)"),
            ),
            (
                json!({"hubAcceptsClient": true}),
                json!([{"type": "ManagedClusterConditionAvailable", "status": "Unknown",
                    "reason": "ManagedClusterLeaseUpdateStopped",
                    "message": "Registration agent stopped updating its lease."}]),
                Some("unavailable (condition ManagedClusterConditionAvailable is Unknown: ManagedClusterLeaseUpdateStopped, Registration agent stopped updating its lease.)"),
            ),
            (
                json!({"hubAcceptsClient": true}),
                json!([{"type": "ManagedClusterConditionAvailable", "status": "False"}]),
                Some("unavailable (condition ManagedClusterConditionAvailable is False)"),
            ),
            (
                json!({"hubAcceptsClient": true}),
                json!([{"type": "ManagedClusterJoined", "status": "True"}]),
                Some("unavailable (condition ManagedClusterConditionAvailable not reported)"),
            ),
        ] {
            let object = json!({"metadata": {"name": "east"}, "spec": spec,
                "status": {"conditions": conditions}});
            let cluster = ManagedCluster::from_object(&object).unwrap();
            assert_eq!(cluster.unavailable.as_deref(), want, "{object}");
        }
        assert_eq!(ManagedCluster::from_object(&json!({"spec": {}})), None);
    }

    #[test]
    fn issue_17_cluster_url_is_the_user_server_and_the_name() {
        let hub = Hub {
            proxy: "https://cluster-proxy-user.apps.hub.example.com".to_string(),
            clusters: Vec::new(),
        };
        assert_eq!(
            hub.cluster_url("east"),
            "https://cluster-proxy-user.apps.hub.example.com/east"
        );
    }
}
