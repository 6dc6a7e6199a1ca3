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
pub mod render;
pub mod table;
pub mod upgrade;

use std::io::{self, Write};

use serde::Serialize;

/// `{"kind": "List", "items": [...]}`, the shape kubectl uses for several objects.
#[derive(Debug, Serialize)]
pub struct List<'a, T: Serialize> {
    pub kind: &'static str,
    pub items: &'a [T],
}

impl<'a, T: Serialize> List<'a, T> {
    /// Wraps items in a `List`.
    pub fn new(items: &'a [T]) -> Self {
        Self {
            kind: "List",
            items,
        }
    }
}

/// Writes one object, or a `List` when there are several.
pub fn write_json<T: Serialize>(out: &mut dyn Write, items: &[T]) -> io::Result<()> {
    if let [one] = items {
        serde_json::to_writer_pretty(&mut *out, one)?;
    } else {
        serde_json::to_writer_pretty(&mut *out, &List::new(items))?;
    }
    writeln!(out)
}

/// Writes Kubernetes objects as `kubectl get -o json` does: one object as
/// itself, several as a `v1` `List` (`apiVersion`, `items`, `kind`,
/// `metadata: {resourceVersion: ""}`, in that order), which `kubectl
/// apply -f` takes; a `List` without `apiVersion` it refuses.
pub fn write_objects_json(out: &mut dyn Write, objects: &[serde_json::Value]) -> io::Result<()> {
    if let [one] = objects {
        serde_json::to_writer_pretty(&mut *out, one)?;
    } else {
        let mut list = serde_json::Map::new();
        list.insert("apiVersion".into(), "v1".into());
        list.insert("items".into(), objects.into());
        list.insert("kind".into(), "List".into());
        list.insert(
            "metadata".into(),
            serde_json::json!({"resourceVersion": ""}),
        );
        serde_json::to_writer_pretty(&mut *out, &list)?;
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
