//! `audit` of one namespace: the CatalogSources of other namespaces its
//! Subscriptions use (`spec.source` in `spec.sourceNamespace`, most often
//! `openshift-marketplace`). The namespace's operators depend on their
//! index images, which OLM runs as each catalog's registry pod in the
//! CatalogSource's namespace: they are audited as that namespace's
//! CatalogSources are when every namespace is (`-A`), with its policy.

use std::collections::BTreeSet;

use anyhow::Result;
use serde_json::Value;

use mirrorpolicy::audit::Workload;
use mirrorpolicy::labels::Selector;
use mirrorpolicy::objects::workload::{workload_from, workload_kind};
use mirrorpolicy::olm::objects::{self as olm, Subscription};
use mirrorpolicy::source::api::{self as live, ClusterError, CATALOG_SOURCES, SUBSCRIPTIONS};
use mirrorpolicy::source::file;

use crate::cli::AuditArgs;
use crate::exit::Failure;
use crate::settings::Settings;
use crate::steps::inputs;
use crate::term;

/// A CatalogSource by namespace and name.
type Named = BTreeSet<(String, String)>;

/// The CatalogSources outside `namespace` that its Subscriptions use.
pub(super) struct Used {
    /// Their namespaces and names.
    pub named: Named,
    /// Live, the CatalogSources read (the namespace's own read did not
    /// hold them), selected by `-l`; from files they are among the
    /// workloads read already.
    pub read: Vec<Workload>,
}

impl Used {
    /// Whether `w` is one of the CatalogSources used.
    pub fn holds(&self, w: &Workload) -> bool {
        w.kind == olm::CATALOG_SOURCE && self.named.contains(&(w.namespace.clone(), w.name.clone()))
    }

    /// The namespaces of the CatalogSources used.
    pub fn namespaces(&self) -> BTreeSet<&str> {
        self.named.iter().map(|(ns, _)| ns.as_str()).collect()
    }
}

/// The CatalogSources outside `namespace` its Subscriptions use: from the
/// files of `-f`, or live (the Subscriptions listed in `namespace`, each
/// CatalogSource read by name). Live, a cluster without OLM has none, and
/// a read the user is forbidden is warned about and left out.
pub(super) fn used(
    settings: &Settings,
    args: &AuditArgs,
    namespace: &str,
    selector: Option<&Selector>,
) -> Result<Used> {
    if !args.filenames.is_empty() {
        let found = file::objects(&args.filenames, &[olm::SUBSCRIPTION])
            .map_err(|e| Failure::input(e.to_string()))?;
        let named = named_by(namespace, &found);
        say(settings, namespace, &named);
        return Ok(Used {
            named,
            read: Vec::new(),
        });
    }
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let (named, values, forbidden) = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            read_live(&connection, namespace).await
        })
        .map_err(inputs::cluster_failure)?;
    for why in forbidden {
        term::warn(format!(
            "{why}: the CatalogSources the Subscriptions of namespace {namespace} use are not audited"
        ));
    }
    let kind = workload_kind("operators.coreos.com/v1alpha1", olm::CATALOG_SOURCE)
        .expect("CatalogSource is a workload kind");
    let mut read = Vec::new();
    for v in &values {
        let label = format!(
            "CatalogSource/{}/{}",
            text(v, "/metadata/namespace").unwrap_or_default(),
            text(v, "/metadata/name").unwrap_or_default()
        );
        let w = workload_from(kind, v)
            .map_err(|(field, message)| Failure::input(format!("{label}: {field}: {message}")))?;
        read.extend(w.filter(|w| selector.is_none_or(|s| s.matches(&w.labels))));
    }
    say(settings, namespace, &named);
    Ok(Used { named, read })
}

/// `-v`: each CatalogSource audited for the namespace's Subscriptions.
fn say(settings: &Settings, namespace: &str, named: &Named) {
    for (ns, name) in named {
        settings.verbose(|| {
            format!(
                "auditing CatalogSource/{ns}/{name} too: Subscriptions of namespace {namespace} use its catalog, whose registry pod runs in {ns}"
            )
        });
    }
}

/// The CatalogSources outside `namespace` that its Subscriptions among
/// `found` name (one without `spec.source` names none).
fn named_by(namespace: &str, found: &[(String, Value)]) -> Named {
    found
        .iter()
        .filter_map(|(at, v)| {
            Subscription::from_value(at, v)
                .map_err(|e| term::warn(format!("{e}: the CatalogSource it uses is not audited")))
                .ok()
        })
        .filter(|s| s.namespace == namespace && s.source_namespace != namespace)
        .map(|s| (s.source_namespace, s.source))
        .collect()
}

/// The CatalogSources named, the objects read (those that exist), and why
/// a read was forbidden.
type LiveRead = (Named, Vec<Value>, Vec<String>);

async fn read_live(
    connection: &live::Connection,
    namespace: &str,
) -> Result<LiveRead, ClusterError> {
    let mut forbidden = Vec::new();
    let subs = match connection
        .list_objects(&SUBSCRIPTIONS, Some(namespace), None)
        .await
    {
        Ok(subs) => subs.unwrap_or_default(),
        Err(ClusterError::Forbidden(f)) => {
            forbidden.extend(f.iter().map(ToString::to_string));
            Vec::new()
        }
        Err(e) => return Err(e),
    };
    let found: Vec<(String, Value)> = subs
        .into_iter()
        .map(|v| (format!("{}: Subscription", connection.server), v))
        .collect();
    let named = named_by(namespace, &found);
    let mut values = Vec::new();
    for (ns, name) in &named {
        match connection.get_in(&CATALOG_SOURCES, ns, name).await {
            Ok(v) => values.extend(v),
            Err(ClusterError::Forbidden(f)) => {
                forbidden.extend(f.iter().map(ToString::to_string));
            }
            Err(e) => return Err(e),
        }
    }
    Ok((named, values, forbidden))
}

fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}
