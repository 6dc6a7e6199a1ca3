//! policy.json as Go writes it: `json.MarshalIndent(p, "", "  ")` of
//! containers/image's `signature.Policy`, byte for byte. Fields come in Go
//! struct-declaration order with `omitempty`, map keys sorted byte-wise,
//! `[]byte` as padded standard base64, strings HTML-escaped, no trailing
//! newline.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{Map, Value};

use super::model::{Fulcio, Pki, Policy, Requirement, SignedIdentity, SigstoreSigned};
use crate::quote::go_json_string;

/// An object under construction, its fields in Go struct order.
#[derive(Default)]
struct Fields(Map<String, Value>);

impl Fields {
    fn str(mut self, key: &str, value: &str) -> Self {
        self.0
            .insert(key.to_string(), Value::String(value.to_string()));
        self
    }
    fn str_omitempty(self, key: &str, value: &str) -> Self {
        if value.is_empty() {
            self
        } else {
            self.str(key, value)
        }
    }
    fn strs_omitempty(mut self, key: &str, value: &Option<Vec<String>>) -> Self {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            let items = v.iter().map(|s| Value::String(s.clone())).collect();
            self.0.insert(key.to_string(), Value::Array(items));
        }
        self
    }
    fn bytes_omitempty(mut self, key: &str, value: &Option<Vec<u8>>) -> Self {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            self.0
                .insert(key.to_string(), Value::String(STANDARD.encode(v)));
        }
        self
    }
    fn bytes_list_omitempty(mut self, key: &str, value: &Option<Vec<Vec<u8>>>) -> Self {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            let items = v
                .iter()
                .map(|b| Value::String(STANDARD.encode(b)))
                .collect();
            self.0.insert(key.to_string(), Value::Array(items));
        }
        self
    }
    fn value(mut self, key: &str, value: Value) -> Self {
        self.0.insert(key.to_string(), value);
        self
    }
    fn done(self) -> Value {
        Value::Object(self.0)
    }
}

impl SignedIdentity {
    /// The identity's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::MatchExact => "matchExact",
            Self::MatchRepoDigestOrExact => "matchRepoDigestOrExact",
            Self::MatchRepository => "matchRepository",
            Self::ExactReference { .. } => "exactReference",
            Self::ExactRepository { .. } => "exactRepository",
            Self::RemapIdentity { .. } => "remapIdentity",
        }
    }

    /// The identity as Go encodes it (fields in struct order).
    pub fn to_value(&self) -> Value {
        let f = Fields::default().str("type", self.type_name());
        match self {
            Self::MatchExact | Self::MatchRepoDigestOrExact | Self::MatchRepository => f,
            Self::ExactReference { docker_reference } => f.str("dockerReference", docker_reference),
            Self::ExactRepository { docker_repository } => {
                f.str("dockerRepository", docker_repository)
            }
            Self::RemapIdentity {
                prefix,
                signed_prefix,
            } => f.str("prefix", prefix).str("signedPrefix", signed_prefix),
        }
        .done()
    }
}

fn fulcio_value(fulcio: &Fulcio) -> Value {
    Fields::default()
        .str_omitempty("caPath", &fulcio.ca_path)
        .bytes_omitempty("caData", &fulcio.ca_data)
        .str_omitempty("oidcIssuer", &fulcio.oidc_issuer)
        .str_omitempty("subjectEmail", &fulcio.subject_email)
        .done()
}

fn pki_value(pki: &Pki) -> Value {
    Fields::default()
        .str_omitempty("caRootsPath", &pki.ca_roots_path)
        .bytes_omitempty("caRootsData", &pki.ca_roots_data)
        .str_omitempty("caIntermediatesPath", &pki.ca_intermediates_path)
        .bytes_omitempty("caIntermediatesData", &pki.ca_intermediates_data)
        .str_omitempty("subjectEmail", &pki.subject_email)
        .str_omitempty("subjectHostname", &pki.subject_hostname)
        .done()
}

fn sigstore_signed_fields(f: Fields, s: &SigstoreSigned) -> Fields {
    let mut f = f
        .str_omitempty("keyPath", &s.key_path)
        .strs_omitempty("keyPaths", &s.key_paths)
        .bytes_omitempty("keyData", &s.key_data)
        .bytes_list_omitempty("keyDatas", &s.key_datas);
    if let Some(fulcio) = &s.fulcio {
        f = f.value("fulcio", fulcio_value(fulcio));
    }
    f = f
        .str_omitempty("rekorPublicKeyPath", &s.rekor_public_key_path)
        .strs_omitempty("rekorPublicKeyPaths", &s.rekor_public_key_paths)
        .bytes_omitempty("rekorPublicKeyData", &s.rekor_public_key_data)
        .bytes_list_omitempty("rekorPublicKeyDatas", &s.rekor_public_key_datas);
    if let Some(pki) = &s.pki {
        f = f.value("pki", pki_value(pki));
    }
    f.value("signedIdentity", s.signed_identity.to_value())
}

impl Requirement {
    /// The requirement's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::InsecureAcceptAnything => "insecureAcceptAnything",
            Self::Reject => "reject",
            Self::SignedBy(_) => "signedBy",
            Self::SignedBaseLayer { .. } => "signedBaseLayer",
            Self::SigstoreSigned(_) => "sigstoreSigned",
        }
    }

    /// The requirement as Go encodes it (fields in struct order).
    pub fn to_value(&self) -> Value {
        let f = Fields::default().str("type", self.type_name());
        match self {
            Self::InsecureAcceptAnything | Self::Reject => f,
            Self::SignedBy(s) => f
                .str("keyType", &s.key_type)
                .str_omitempty("keyPath", &s.key_path)
                .strs_omitempty("keyPaths", &s.key_paths)
                .bytes_omitempty("keyData", &s.key_data)
                .value("signedIdentity", s.signed_identity.to_value()),
            Self::SignedBaseLayer {
                base_layer_identity,
            } => f.value("baseLayerIdentity", base_layer_identity.to_value()),
            Self::SigstoreSigned(s) => sigstore_signed_fields(f, s),
        }
        .done()
    }
}

impl serde::Serialize for Requirement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

fn requirements_value(reqs: &[Requirement]) -> Value {
    Value::Array(reqs.iter().map(Requirement::to_value).collect())
}

impl Policy {
    /// The document as Go encodes it.
    pub fn to_value(&self) -> Value {
        let transports = self
            .transports
            .iter()
            .map(|(transport, scopes)| {
                let scopes = scopes
                    .iter()
                    .map(|(scope, reqs)| (scope.clone(), requirements_value(reqs)))
                    .collect();
                (transport.clone(), Value::Object(scopes))
            })
            .collect();
        Fields::default()
            .value("default", requirements_value(&self.default))
            .value("transports", Value::Object(transports))
            .done()
    }

    /// Go `json.MarshalIndent(p, "", "  ")`, byte for byte.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        marshal(&mut out, &self.to_value(), Some(0));
        out
    }

    /// Go `json.Marshal(p)` (one line), byte for byte: policy.json as the
    /// MCO wrote it before OpenShift 4.17.
    pub fn to_json_compact(&self) -> String {
        let mut out = String::new();
        marshal(&mut out, &self.to_value(), None);
        out
    }
}

/// Go's `json.MarshalIndent(v, "", "  ")` of an ordered value at `depth`,
/// or its `json.Marshal(v)` when `depth` is `None`.
fn marshal(out: &mut String, v: &Value, depth: Option<usize>) {
    let newline = |out: &mut String, depth: Option<usize>| {
        if let Some(depth) = depth {
            out.push('\n');
            for _ in 0..depth {
                out.push_str("  ");
            }
        }
    };
    let inner = depth.map(|d| d + 1);
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&go_json_string(s)),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(fields) if fields.is_empty() => out.push_str("{}"),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, inner);
                marshal(out, item, inner);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(fields) => {
            out.push('{');
            for (i, (key, value)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, inner);
                out.push_str(&go_json_string(key));
                out.push_str(if depth.is_some() { ": " } else { ":" });
                marshal(out, value, inner);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}
