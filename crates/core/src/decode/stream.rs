//! Reads YAML documents with serde-saphyr straight into typed objects, in
//! one pass and without a `serde_json::Value` per document.
//!
//! A document's keys are read in order; the few before `kind` and
//! `apiVersion` (usually none) are kept as values. Once both are known the
//! document is either skipped (a kind the command does not read: the rest
//! is parsed, as the API server would, but nothing is built) or decoded as
//! its typed object from the kept values followed by the rest of the
//! mapping. `items` of a list are read the same way, item by item. Whatever
//! does not fit this shape (a wrong `apiVersion`, a missing `kind`, a
//! workload for `audit`, a list item without its own `kind`) is kept as a
//! `Value` and staged as the file reader ([`super`]) stages any document, and a
//! document that needs the whole `Value` after all (an `items` sequence in
//! an object that turns out not to be a list) makes the caller read the
//! file that way. Values are read through [`Strict`], so a typed object is
//! the one decoded from the document's `Value`.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::kind::{Kind, Object, NONE};
use super::strict::Strict;
use crate::objects::Node;

/// What one document (or list item) turned into.
pub(super) enum Part {
    /// A typed object and its path inside the document (`items[3]`).
    Object(Box<Object>, String),
    /// A document of a kind that is not read: `apiVersion/kind`.
    Skip(String),
    /// A document staged from its `Value`, at this path.
    Value(Value, String),
    /// The file must be read document by document as `Value`s.
    Whole,
}

/// The parts of one document, as serde-saphyr yields documents. `W`: whether
/// objects that reference images are read (`audit`).
pub(super) struct Document<const W: bool>(pub(super) Vec<Part>);

impl<'de, const W: bool> Deserialize<'de> for Document<W> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let parts = Strict(d).deserialize_any(ObjectVisitor {
            workloads: W,
            item: None,
        })?;
        Ok(Self(parts))
    }
}

/// Reads a mapping that may be an object: a document, or a list item
/// (`item` is its index).
struct ObjectVisitor {
    workloads: bool,
    item: Option<usize>,
}

impl ObjectVisitor {
    fn path(&self) -> String {
        self.item.map(|i| format!("items[{i}]")).unwrap_or_default()
    }

    fn value(&self, value: Value) -> Vec<Part> {
        vec![Part::Value(value, self.path())]
    }
}

/// What to do with a mapping once its `kind` is known.
enum Decision {
    /// Keep reading: the `apiVersion` is still to come, or (a list) `items`.
    Wait,
    /// Decode as this kind from here on.
    Decode(Kind),
    /// Not read: parse the rest and count it.
    Skip,
    /// Keep the whole mapping as a `Value`.
    Keep,
}

fn is_list_kind(kind: &str) -> bool {
    kind.ends_with("List")
}

fn decide(kind: &str, api: Option<Option<&str>>, workloads: bool, item: bool) -> Decision {
    if kind == crate::objects::install_config::KIND && !item {
        // Staged from its `Value`, as install-config.yaml.
        return Decision::Keep;
    }
    if is_list_kind(kind) {
        // A list in a list is left to the `Value` staging.
        return if item { Decision::Keep } else { Decision::Wait };
    }
    let workload_name = workloads
        && crate::objects::workload::WORKLOAD_KINDS
            .iter()
            .any(|w| w.kind == kind);
    let known = Kind::from_name(kind);
    if known.is_none() && crate::objects::schema::misspelt_kind(kind).is_some() {
        // Staged from its `Value`, which says what it was meant to be.
        return Decision::Keep;
    }
    let Some(api) = api else {
        // An item without its own apiVersion may take its list's.
        return if known.is_none() && !workload_name && !item {
            // Skipped whatever the apiVersion; only the count needs it.
            Decision::Skip
        } else {
            Decision::Wait
        };
    };
    if workload_name
        && api.is_some_and(|a| crate::objects::workload::workload_kind(a, kind).is_some())
    {
        return Decision::Keep;
    }
    match known {
        Some(k) if api.is_some_and(|a| k.spec().serves(a)) => Decision::Decode(k),
        // A missing or wrong apiVersion: warnings or a skip, as staged.
        Some(_) => Decision::Keep,
        None => Decision::Skip,
    }
}

/// `Some` non-empty string, as [`super`] reads `apiVersion` and `kind`.
fn str_of(value: &Value) -> Option<String> {
    value.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Vec<Part>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a Kubernetes object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<Part>, A::Error> {
        let mut kept: Vec<(String, Value)> = Vec::new();
        // `None`: not seen yet; `Some(None)`: seen, not a non-empty string.
        let mut api: Option<Option<String>> = None;
        let mut kind: Option<String> = None;
        let mut items: Option<Option<Vec<Part>>> = None;
        let mut keep_all = false;
        loop {
            if let (Some(k), false) = (kind.as_deref(), keep_all) {
                let decision = decide(
                    k,
                    api.as_ref().map(Option::as_deref),
                    self.workloads,
                    self.item.is_some(),
                );
                let not_a_list = !is_list_kind(k) && items.is_some();
                match decision {
                    _ if not_a_list => {
                        // `items` was read as a list's, but this is no list.
                        drain(&mut map)?;
                        return Ok(vec![Part::Whole]);
                    }
                    Decision::Decode(known) => {
                        let replay = Replay {
                            kept: kept.into_iter(),
                            value: None,
                            rest: map,
                        };
                        let object = decode(known, replay)?;
                        return Ok(vec![Part::Object(Box::new(object), self.path())]);
                    }
                    Decision::Skip => {
                        if api.is_none() {
                            api = Some(drain(&mut map)?);
                        } else {
                            drain(&mut map)?;
                        }
                        let api = api.flatten();
                        return Ok(vec![Part::Skip(format!(
                            "{}/{k}",
                            api.as_deref().unwrap_or(NONE)
                        ))]);
                    }
                    Decision::Keep => keep_all = true,
                    Decision::Wait => {}
                }
            }
            let Some(key) = map.next_key::<String>()? else {
                break;
            };
            let stream_items = key == "items"
                && self.item.is_none()
                && !keep_all
                && items.is_none()
                && kind.as_deref().is_none_or(is_list_kind);
            if stream_items {
                items = Some(map.next_value_seed(ItemsSeed {
                    workloads: self.workloads,
                })?);
                continue;
            }
            let value: Value = map.next_value()?;
            match key.as_str() {
                "apiVersion" => api = Some(str_of(&value)),
                "kind" => kind = str_of(&value),
                _ => {}
            }
            kept.push((key, value));
        }
        match items {
            None => Ok(self.value(Value::Object(kept.into_iter().collect::<Map<_, _>>()))),
            Some(Some(parts)) if kind.as_deref().is_some_and(is_list_kind) => {
                Ok(inherit(parts, kind.as_deref(), api.flatten().as_deref()))
            }
            Some(_) => Ok(vec![Part::Whole]),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<Part>, A::Error> {
        let value = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(self.value(value))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::from(v)))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Vec<Part>, E> {
        let value = Value::deserialize(de::value::I128Deserializer::<E>::new(v))
            .map_err(de::Error::custom)?;
        Ok(self.value(value))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Vec<Part>, E> {
        let value = Value::deserialize(de::value::U128Deserializer::<E>::new(v))
            .map_err(de::Error::custom)?;
        Ok(self.value(value))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::from(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::String(v.to_string())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Vec<Part>, E> {
        Ok(self.value(Value::Null))
    }
}

/// Parses the rest of a mapping, as a `Value` would, keeping only its
/// `apiVersion` (a non-empty string).
fn drain<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<String>, A::Error> {
    let mut api = None;
    while let Some(key) = map.next_key::<String>()? {
        if key == "apiVersion" {
            api = str_of(&map.next_value::<Value>()?);
        } else {
            map.next_value::<IgnoredAny>()?;
        }
    }
    Ok(api)
}

/// A list's items: apiVersion and kind the list gives its items, applied
/// to the items kept as `Value`s (typed items had their own).
fn inherit(parts: Vec<Part>, kind: Option<&str>, api: Option<&str>) -> Vec<Part> {
    let item_kind = kind
        .and_then(|k| k.strip_suffix("List"))
        .filter(|k| !k.is_empty());
    parts
        .into_iter()
        .map(|part| match part {
            Part::Value(mut value, path) => {
                if let (Some(object), Some(item_kind)) = (value.as_object_mut(), item_kind) {
                    object
                        .entry("kind")
                        .or_insert_with(|| Value::String(item_kind.to_string()));
                    if let Some(api) = api {
                        object
                            .entry("apiVersion")
                            .or_insert_with(|| Value::String(api.to_string()));
                    }
                }
                Part::Value(value, path)
            }
            other => other,
        })
        .collect()
}

/// `items`: a sequence is read item by item; anything else means the
/// document is read as a whole `Value` (`None`).
struct ItemsSeed {
    workloads: bool,
}

impl<'de> DeserializeSeed<'de> for ItemsSeed {
    type Value = Option<Vec<Part>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsSeed {
    type Value = Option<Vec<Part>>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("list items")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut parts = Vec::new();
        let mut index = 0;
        while let Some(item) = seq.next_element_seed(ItemSeed {
            workloads: self.workloads,
            index,
        })? {
            parts.extend(item);
            index += 1;
        }
        Ok(Some(parts))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i128<E: de::Error>(self, _: i128) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u128<E: de::Error>(self, _: u128) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

struct ItemSeed {
    workloads: bool,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for ItemSeed {
    type Value = Vec<Part>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ObjectVisitor {
            workloads: self.workloads,
            item: Some(self.index),
        })
    }
}

/// The kept entries of a mapping, then the rest of it.
struct Replay<A> {
    kept: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
    rest: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if let Some((key, value)) = self.kept.next() {
            self.value = Some(value);
            return seed
                .deserialize(de::value::StringDeserializer::<A::Error>::new(key))
                .map(Some);
        }
        self.rest.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value).map_err(de::Error::custom),
            None => self.rest.next_value_seed(seed),
        }
    }
}

fn typed<'de, T: Deserialize<'de>, A: MapAccess<'de>>(map: A) -> Result<T, A::Error> {
    T::deserialize(de::value::MapAccessDeserializer::new(map))
}

fn decode<'de, A: MapAccess<'de>>(kind: Kind, map: A) -> Result<Object, A::Error> {
    Ok(match kind {
        Kind::Icsp => Object::Icsp(typed(map)?),
        Kind::Idms => Object::Idms(typed(map)?),
        Kind::Itms => Object::Itms(typed(map)?),
        Kind::Image => Object::Image(typed(map)?),
        Kind::ClusterVersion => Object::ClusterVersion(typed(map)?),
        Kind::ClusterImagePolicy => Object::ClusterImagePolicy(typed(map)?),
        Kind::ImagePolicy => Object::ImagePolicy(typed(map)?),
        Kind::MachineConfig => Object::MachineConfig(typed(map)?),
        Kind::MachineConfigPool => Object::MachineConfigPool(typed(map)?),
        Kind::Node => Object::Node(Node::from(typed::<k8s_openapi::api::core::v1::Node, _>(
            map,
        )?)),
    })
}
