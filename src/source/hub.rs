//! An Open Cluster Management (Red Hat ACM / multicluster engine) hub: its
//! `ManagedCluster`s, and the cluster-proxy add-on's user server through
//! which each is reached as `https://<route host>/<cluster name>`, the hub
//! user's credential sent along (the user server impersonates that user on
//! the managed cluster).
//!
//! The add-on exposes its user server as the Route `cluster-proxy-addon-user`
//! in the namespace of the multicluster engine (`multicluster-engine` by
//! default); see stolostron/cluster-proxy-addon and
//! open-cluster-management-io/cluster-proxy.

use serde_json::Value;

use super::cluster::{ClusterError, Connection, CONFIG_MAPS, MANAGED_CLUSTERS, ROUTES};

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
    /// The ManagedClusters' names, sorted.
    pub clusters: Vec<String>,
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
    let mut clusters: Vec<String> = managed.iter().filter_map(name_of).collect();
    clusters.sort();
    clusters.dedup();
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
    use super::Hub;

    #[test]
    fn issue_17_cluster_url_is_the_user_server_and_the_name() {
        let hub = Hub {
            proxy: "https://cluster-proxy-user.apps.hub.example.com".to_string(),
            clusters: vec!["east".to_string()],
        };
        assert_eq!(
            hub.cluster_url("east"),
            "https://cluster-proxy-user.apps.hub.example.com/east"
        );
    }
}
