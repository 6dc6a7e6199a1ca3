//! `audit` of one namespace: the CatalogSources of other namespaces its
//! Subscriptions use (`spec.source` in `spec.sourceNamespace`, most often
//! `openshift-marketplace`). The namespace's operators depend on their
//! index images, which OLM runs as each catalog's registry pod in the
//! CatalogSource's namespace: they are audited as that namespace's
//! CatalogSources are when every namespace is (`-A`), with its policy.

use std::collections::BTreeSet;

use anyhow::Result;
use futures_util::StreamExt;
use serde_json::Value;

use mirrorpolicy::audit::Workload;
use mirrorpolicy::labels::Selector;
use mirrorpolicy::objects::workload::{workload_from, workload_kind};
use mirrorpolicy::olm::objects::{self as olm, Subscription};
use mirrorpolicy::olm::{located, text_or_empty, with_kind};
use mirrorpolicy::source::api::{self as live, ClusterError, CATALOG_SOURCES, SUBSCRIPTIONS};

use crate::cli::AuditArgs;
use crate::exit::Failure;
use crate::settings::Settings;
use crate::steps::inputs;
use crate::steps::operators::OlmObjects;
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

/// The CatalogSources outside `namespace` its Subscriptions use: among
/// `olm` when the caller read OLM's objects already (`--updates`), else
/// from the files of `-f` (standard input too), or live (the Subscriptions
/// listed in `namespace`, each CatalogSource read by name). Live, a
/// cluster without OLM has none, and a read the user is forbidden is
/// warned about and left out.
pub(super) fn used(
    settings: &Settings,
    args: &AuditArgs,
    namespace: &str,
    selector: Option<&Selector>,
    olm: Option<&OlmObjects>,
) -> Result<Used> {
    let live = args.filenames.is_empty();
    let (named, sources) = match olm {
        Some(olm) => {
            let named = named_by(namespace, olm.found());
            let sources = of_kind(olm.found(), olm::CATALOG_SOURCE)
                .filter(|(_, v)| named.contains(&key(v)))
                .cloned()
                .collect();
            (named, sources)
        }
        None if !live => {
            let found = inputs::olm_objects(&args.filenames, &[olm::SUBSCRIPTION])?;
            (named_by(namespace, &found), Vec::new())
        }
        None => read(namespace, &settings.cluster_options()?)?,
    };
    say(settings, namespace, &named);
    if !live {
        // From files, the CatalogSources are among the workloads read.
        return Ok(Used {
            named,
            read: Vec::new(),
        });
    }
    let read = workloads_of(&sources, selector)?;
    Ok(Used { named, read })
}

/// Live with `--updates`, the ClusterServiceVersions and CatalogSources
/// of `namespace` among OLM's objects (listed once, for the update check
/// too), as workloads audited, selected by `selector`.
pub(super) fn own_workloads(
    olm: &OlmObjects,
    namespace: &str,
    selector: Option<&Selector>,
) -> Result<Vec<Workload>> {
    let own: Vec<(String, Value)> = [olm::CSV, olm::CATALOG_SOURCE]
        .into_iter()
        .flat_map(|kind| of_kind(olm.found(), kind))
        .filter(|(_, v)| text_or_empty(v, "/metadata/namespace") == namespace)
        .cloned()
        .collect();
    workloads_of(&own, selector)
}

/// The workloads of OLM's objects read live (`kind` set), selected by
/// `selector`; one that does not decode names where it was read and the
/// field.
fn workloads_of(read: &[(String, Value)], selector: Option<&Selector>) -> Result<Vec<Workload>> {
    let mut workloads = Vec::new();
    for (at, v) in read {
        let kind = text_or_empty(v, "/kind");
        let api = text_or_empty(v, "/apiVersion");
        let api = if api.is_empty() {
            "operators.coreos.com/v1alpha1"
        } else {
            api.as_str()
        };
        let Some(kind) = workload_kind(api, &kind) else {
            continue;
        };
        let w = workload_from(kind, v)
            .map_err(|(field, message)| Failure::input(format!("{at}: {field}: {message}")))?;
        workloads.extend(w.filter(|w| selector.is_none_or(|s| s.matches(&w.labels))));
    }
    Ok(workloads)
}

/// The objects of `kind` among `found`.
fn of_kind<'a>(
    found: &'a [(String, Value)],
    kind: &'a str,
) -> impl Iterator<Item = &'a (String, Value)> + 'a {
    found
        .iter()
        .filter(move |(_, v)| v.get("kind").and_then(Value::as_str) == Some(kind))
}

/// An object's namespace and name.
fn key(v: &Value) -> (String, String) {
    (
        text_or_empty(v, "/metadata/namespace"),
        text_or_empty(v, "/metadata/name"),
    )
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
    of_kind(found, olm::SUBSCRIPTION)
        .filter_map(|(at, v)| {
            Subscription::from_value(at, v)
                .map_err(|e| term::warn(format!("{e}: the CatalogSource it uses is not audited")))
                .ok()
        })
        .filter(|s| s.namespace == namespace && s.source_namespace != namespace)
        .map(|s| (s.source_namespace, s.source))
        .collect()
}

/// Live, the CatalogSources named by the Subscriptions of `namespace`
/// and those that exist, each `(where it was read, object)`; a read the
/// user is forbidden is warned about.
fn read(namespace: &str, options: &live::ClusterOptions) -> Result<(Named, Vec<(String, Value)>)> {
    let runtime = inputs::runtime()?;
    let (named, values, forbidden) = runtime
        .block_on(async {
            let connection = live::connect(options).await?;
            read_live(&connection, namespace).await
        })
        .map_err(inputs::cluster_failure)?;
    for why in forbidden {
        term::warn(format!(
            "{why}: the CatalogSources the Subscriptions of namespace {namespace} use are not audited"
        ));
    }
    Ok((named, values))
}

/// The CatalogSources named, the objects read (those that exist), and why
/// a read was forbidden.
type LiveRead = (Named, Vec<(String, Value)>, Vec<String>);

/// How many CatalogSources are read by name at once.
const LIVE_GETS: usize = 16;

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
    let server = connection.server.as_str();
    let found: Vec<(String, Value)> = subs
        .into_iter()
        .map(|v| {
            let kind = SUBSCRIPTIONS.kind;
            (located(server, kind, &v), with_kind(kind, v))
        })
        .collect();
    let named = named_by(namespace, &found);
    let gets = futures_util::stream::iter(
        named
            .iter()
            .map(|(ns, name)| async move { connection.get_in(&CATALOG_SOURCES, ns, name).await }),
    )
    .buffered(LIVE_GETS)
    .collect::<Vec<_>>()
    .await;
    let mut values = Vec::new();
    for got in gets {
        match got {
            Ok(v) => values.extend(v.map(|v| {
                let kind = CATALOG_SOURCES.kind;
                (located(server, kind, &v), with_kind(kind, v))
            })),
            Err(ClusterError::Forbidden(f)) => {
                forbidden.extend(f.iter().map(ToString::to_string));
            }
            Err(e) => return Err(e),
        }
    }
    Ok((named, values, forbidden))
}
