//! Renderers: data in, text out to any writer. The core never prints.
//!
//! `json` and `yaml` serialize the stable contracts; `explain` draws the
//! human table. Colour is decided by the caller and passed in.

pub mod audit;
pub mod collect;
pub mod diff;
pub mod explain;
pub mod lint;
pub mod list;
pub mod many;
pub mod migrate;
pub mod operator;
pub mod pull_log;
pub mod render;
pub mod table;
pub mod upgrade;

use std::io::{self, Write};

use mirrorpolicy::olm::check::CheckedKind;
use serde::Serialize;

/// An operator check's name as a user passes it to `operator-check`:
/// `clusterextension/NAME` for an OLM v1 ClusterExtension, `NAMESPACE/NAME`
/// for a Subscription (its name alone when no namespace is known, as for
/// `--package`). The one spelling of every table and summary line.
pub fn operator_name(kind: CheckedKind, namespace: &str, name: &str) -> String {
    match kind {
        CheckedKind::ClusterExtension => format!("clusterextension/{name}"),
        CheckedKind::Subscription if namespace.is_empty() => name.to_string(),
        CheckedKind::Subscription => format!("{namespace}/{name}"),
    }
}

/// `{"apiVersion": "v1", "items": [...], "kind": "List", "metadata":
/// {"resourceVersion": ""}}`, in that order: the shape `kubectl get -o json`
/// prints for several objects (an empty one included).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct List<'a, T: Serialize> {
    pub api_version: &'static str,
    pub items: &'a [T],
    pub kind: &'static str,
    pub metadata: ListMeta,
}

/// A `List`'s `metadata`: an empty `resourceVersion`, as kubectl prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    pub resource_version: &'static str,
}

impl<'a, T: Serialize> List<'a, T> {
    /// Wraps items in a `List`.
    pub fn new(items: &'a [T]) -> Self {
        Self {
            api_version: "v1",
            items,
            kind: "List",
            metadata: ListMeta {
                resource_version: "",
            },
        }
    }
}

/// Writes one object as itself, or several as kubectl's `v1` [`List`],
/// which `kubectl apply -f` takes (a `List` without `apiVersion` it refuses).
pub fn write_json<T: Serialize>(out: &mut dyn Write, items: &[T]) -> io::Result<()> {
    if let [one] = items {
        serde_json::to_writer_pretty(&mut *out, one)?;
    } else {
        serde_json::to_writer_pretty(&mut *out, &List::new(items))?;
    }
    writeln!(out)
}

/// Writes one object, or a `List` when there are several, as YAML.
pub fn write_yaml<T: Serialize>(out: &mut dyn Write, items: &[T]) -> io::Result<()> {
    let text = if let [one] = items {
        serde_saphyr::to_string(one)
    } else {
        serde_saphyr::to_string(&List::new(items))
    }
    .map_err(|e| io::Error::other(e.to_string()))?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}
