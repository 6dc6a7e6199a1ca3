//! The JSON reader under the policy.json decoder: objects keep their key
//! order and refuse duplicate keys, as containers/image's
//! `ParanoidUnmarshalJSONObject` does at every level, and scalars keep
//! their JSON kind so the decoder can say what it got.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::quote::go_quote;

/// A JSON value whose objects keep their keys in order, without duplicates.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool,
    Number,
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The JSON kind, as Go's `encoding/json` names it in its errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool => "bool",
            Json::Number => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Json, E> {
        Ok(Json::Bool)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Json, E> {
        Ok(Json::Number)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Json, E> {
        Ok(Json::Number)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Json, E> {
        Ok(Json::Number)
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut fields: Vec<(String, Json)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!(
                    "Duplicate key {}",
                    go_quote(&key)
                )));
            }
            let value = map.next_value()?;
            fields.push((key, value));
        }
        Ok(Json::Object(fields))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// Reads a whole document, as Go's `json.Unmarshal` does: data after the
/// value is an error. Syntax errors carry line and column.
pub fn parse_document(text: &str) -> Result<Json, String> {
    // Go's scanner takes a byte order mark for a stray character.
    if text.starts_with('\u{feff}') {
        return Err("invalid character 'ï' looking for beginning of value \
                    (the file begins with a UTF-8 byte order mark, which Go's encoding/json refuses)"
            .to_string());
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let v = Json::deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(v)
}

/// Reads the first value only, as Go's `json.Decoder.Decode` does (what the
/// MCO uses on its template); an empty text is `EOF`.
pub fn parse_first(text: &str) -> Result<Json, String> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Json>()
        .next()
        .ok_or_else(|| "EOF".to_string())?
        .map_err(|e| e.to_string())
}
