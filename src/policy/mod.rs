//! policy.json (containers-policy.json(5)): strict parsing as
//! containers/image `signature/policy_config.go` does it, and selecting the
//! requirements that apply to a reference (`requirementsForImageRef` with
//! the docker transport's scope identity and namespaces).
//!
//! Evaluating signatures is left to CRI-O; this module says which
//! requirements apply and whether they reject the image or verify
//! signatures. Reading the file is left to the command layer.

mod json;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use self::json::{parse_strict, StrictValue};
use crate::origin::Origin;
use crate::reference::{is_valid_domain, Reference};

/// Why a policy.json cannot be used; names the file and the place in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("policy \"{file}\": {path}{message}")]
pub struct PolicyError {
    pub file: String,
    /// `transports.docker."quay.io"[0]: ` or empty.
    path: String,
    pub message: String,
}

/// One requirement, kept as written (validated), with its type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Requirement(Value);

impl Requirement {
    /// The requirement's `type`.
    pub fn kind(&self) -> &str {
        self.0
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// Whether it always denies the image: `reject`, `signedBaseLayer`
    /// (not implemented upstream, so it denies), and `signedBy` with a key
    /// type other than `GPGKeys` (parsed, but rejected at evaluation).
    pub fn rejects(&self) -> bool {
        match self.kind() {
            "reject" | "signedBaseLayer" => true,
            "signedBy" => self.0.get("keyType").and_then(Value::as_str) != Some("GPGKeys"),
            _ => false,
        }
    }

    /// Whether it requires a verified signature (`signedBy`, `sigstoreSigned`).
    pub fn verifies_signatures(&self) -> bool {
        matches!(self.kind(), "signedBy" | "sigstoreSigned")
    }

    /// The requirement as policy.json JSON.
    pub fn as_json(&self) -> &Value {
        &self.0
    }

    /// A one-line human summary.
    pub fn summary(&self) -> String {
        summarize_requirement(&self.0)
    }
}

/// A one-line human summary of a requirement in its policy.json form.
pub fn summarize_requirement(req: &Value) -> String {
    let field = |k: &str| req.get(k).and_then(Value::as_str);
    let kind = field("type").unwrap_or_default();
    let identity = req
        .get("signedIdentity")
        .and_then(|i| i.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("matchRepoDigestOrExact");
    match kind {
        "signedBy" => format!(
            "signedBy ({} {}, identity {identity})",
            field("keyType").unwrap_or_default(),
            field("keyPath").unwrap_or("inline key data")
        ),
        "sigstoreSigned" => {
            let trust = if let Some(p) = field("keyPath") {
                format!("key {p}")
            } else if req.get("fulcio").is_some() {
                "Fulcio certificate".to_string()
            } else if req.get("pki").is_some() {
                "PKI certificate".to_string()
            } else {
                "inline key data".to_string()
            };
            format!("sigstoreSigned ({trust}, identity {identity})")
        }
        other => other.to_string(),
    }
}

/// A parsed policy.json.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// The file the policy came from.
    pub file: String,
    pub default: Vec<Requirement>,
    /// transport → scope → requirements.
    pub transports: BTreeMap<String, BTreeMap<String, Vec<Requirement>>>,
}

/// The requirements selected for a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeMatch<'a> {
    /// None: the global `default`; `Some("")`: the transport default; else the winning scope.
    pub scope: Option<String>,
    pub requirements: &'a [Requirement],
    pub origin: Origin,
}

/// The docker transport's `PolicyConfigurationIdentity`: `name:tag` or `name@digest`.
pub fn policy_identity(r: &Reference) -> String {
    r.to_string()
}

/// The docker transport's `PolicyConfigurationNamespaces`: the repository,
/// each parent namespace, the host with its port, then `*.` wildcards of
/// the port-less host, most specific first.
pub fn policy_namespaces(r: &Reference) -> Vec<String> {
    let mut out = Vec::new();
    let mut name = r.name();
    loop {
        out.push(name.clone());
        match name.rfind('/') {
            Some(i) => name.truncate(i),
            None => break,
        }
    }
    let mut host = match name.find(':') {
        Some(i) => name[..i].to_string(),
        None => name,
    };
    while let Some(i) = host.find('.') {
        host = host[i + 1..].to_string();
        out.push(format!("*.{host}"));
    }
    out
}

impl Policy {
    /// `requirementsForImageRef`: the most specific matching scope of the
    /// transport, its `""` default, or the global default.
    pub fn requirements_for(&self, transport: &str, r: &Reference) -> ScopeMatch<'_> {
        if let Some(scopes) = self.transports.get(transport) {
            let identity = policy_identity(r);
            let candidates = std::iter::once(identity).chain(policy_namespaces(r));
            for scope in candidates.chain(std::iter::once(String::new())) {
                if let Some(reqs) = scopes.get(&scope) {
                    return ScopeMatch {
                        origin: Origin::from(format!(
                            "{}: transports.{transport}.\"{scope}\"",
                            self.file
                        )),
                        scope: Some(scope),
                        requirements: reqs,
                    };
                }
            }
        }
        ScopeMatch {
            scope: None,
            requirements: &self.default,
            origin: Origin::from(format!("{}: default", self.file)),
        }
    }
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, path: &str, message: impl Into<String>) -> PolicyError {
        PolicyError {
            file: self.file.to_string(),
            path: if path.is_empty() {
                String::new()
            } else {
                format!("{path}: ")
            },
            message: message.into(),
        }
    }
}

/// Parses policy.json text strictly: unknown or duplicate keys, a missing
/// `default`, empty requirement lists and invalid requirements are errors.
pub fn parse_policy(name: &str, text: &str) -> Result<Policy, PolicyError> {
    let ctx = Ctx { file: name };
    let root = parse_strict(text).map_err(|e| ctx.err("", e))?;
    let obj = object(&ctx, "", &root)?;
    let mut default = None;
    let mut transports = BTreeMap::new();
    for (k, v) in obj {
        match k.as_str() {
            "default" => default = Some(requirements(&ctx, "default", v)?),
            "transports" => {
                for (t, scopes_v) in object(&ctx, "transports", v)? {
                    let tpath = format!("transports.{t}");
                    let mut scopes = BTreeMap::new();
                    for (scope, reqs) in object(&ctx, &tpath, scopes_v)? {
                        let spath = format!("{tpath}.\"{scope}\"");
                        scopes.insert(scope.clone(), requirements(&ctx, &spath, reqs)?);
                    }
                    transports.insert(t.clone(), scopes);
                }
            }
            other => return Err(ctx.err("", format!("Unknown key \"{other}\""))),
        }
    }
    Ok(Policy {
        file: name.to_string(),
        default: default.ok_or_else(|| ctx.err("", "Default policy is missing"))?,
        transports,
    })
}

fn object<'v>(
    ctx: &Ctx<'_>,
    path: &str,
    v: &'v StrictValue,
) -> Result<&'v [(String, StrictValue)], PolicyError> {
    match v {
        StrictValue::Object(o) => Ok(o),
        _ => Err(ctx.err(path, "expected a JSON object")),
    }
}

fn requirements(
    ctx: &Ctx<'_>,
    path: &str,
    v: &StrictValue,
) -> Result<Vec<Requirement>, PolicyError> {
    let StrictValue::Array(items) = v else {
        return Err(ctx.err(path, "expected a JSON array of requirements"));
    };
    if items.is_empty() {
        return Err(ctx.err(
            path,
            "List of verification policy requirements must not be empty",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| requirement(ctx, &format!("{path}[{i}]"), item))
        .collect()
}

/// Checks an object's keys: all known, the required ones present.
fn keys<'v>(
    ctx: &Ctx<'_>,
    path: &str,
    obj: &'v [(String, StrictValue)],
    allowed: &[&str],
) -> Result<BTreeMap<&'v str, &'v StrictValue>, PolicyError> {
    let mut out = BTreeMap::new();
    for (k, v) in obj {
        if !allowed.contains(&k.as_str()) {
            return Err(ctx.err(path, format!("Unknown key \"{k}\"")));
        }
        out.insert(k.as_str(), v);
    }
    Ok(out)
}

fn string<'v>(
    ctx: &Ctx<'_>,
    path: &str,
    key: &str,
    v: &'v StrictValue,
) -> Result<&'v str, PolicyError> {
    match v {
        StrictValue::String(s) => Ok(s),
        _ => Err(ctx.err(path, format!("\"{key}\" must be a string"))),
    }
}

fn strings(ctx: &Ctx<'_>, path: &str, key: &str, v: &StrictValue) -> Result<usize, PolicyError> {
    match v {
        StrictValue::Array(items) => {
            for item in items {
                string(ctx, path, key, item)?;
            }
            Ok(items.len())
        }
        _ => Err(ctx.err(path, format!("\"{key}\" must be an array of strings"))),
    }
}

/// Exactly one of `names` present (`what` names the group in the message).
fn exactly_one(
    ctx: &Ctx<'_>,
    path: &str,
    fields: &BTreeMap<&str, &StrictValue>,
    names: &[&str],
    what: &str,
) -> Result<(), PolicyError> {
    match names.iter().filter(|n| fields.contains_key(*n)).count() {
        1 => Ok(()),
        0 => Err(ctx.err(
            path,
            format!("{what}: one of {} must be specified", names.join(", ")),
        )),
        _ => Err(ctx.err(
            path,
            format!("{what}: only one of {} may be specified", names.join(", ")),
        )),
    }
}

fn requirement(ctx: &Ctx<'_>, path: &str, v: &StrictValue) -> Result<Requirement, PolicyError> {
    let obj = object(ctx, path, v)?;
    let kind = obj
        .iter()
        .find(|(k, _)| k == "type")
        .map(|(_, v)| string(ctx, path, "type", v))
        .transpose()?
        .ok_or_else(|| ctx.err(path, "Missing \"type\" field"))?;
    match kind {
        "insecureAcceptAnything" | "reject" => {
            keys(ctx, path, obj, &["type"])?;
        }
        "signedBy" => {
            let f = keys(
                ctx,
                path,
                obj,
                &[
                    "type",
                    "keyType",
                    "keyPath",
                    "keyPaths",
                    "keyData",
                    "signedIdentity",
                ],
            )?;
            let key_type = f
                .get("keyType")
                .map(|v| string(ctx, path, "keyType", v))
                .transpose()?
                .ok_or_else(|| ctx.err(path, "keyType field missing in signedBy"))?;
            if ![
                "GPGKeys",
                "signedByGPGKeys",
                "X509Certificates",
                "signedByX509CAs",
            ]
            .contains(&key_type)
            {
                return Err(ctx.err(path, format!("Unknown key type \"{key_type}\"")));
            }
            exactly_one(
                ctx,
                path,
                &f,
                &["keyPath", "keyPaths", "keyData"],
                "signedBy",
            )?;
            check_key_fields(ctx, path, &f)?;
            if let Some(id) = f.get("signedIdentity") {
                signed_identity(ctx, &format!("{path}.signedIdentity"), id)?;
            }
        }
        "sigstoreSigned" => sigstore_signed(ctx, path, obj)?,
        "signedBaseLayer" => {
            let f = keys(ctx, path, obj, &["type", "baseLayerIdentity"])?;
            let id = f
                .get("baseLayerIdentity")
                .ok_or_else(|| ctx.err(path, "baseLayerIdentity field missing"))?;
            signed_identity(ctx, &format!("{path}.baseLayerIdentity"), id)?;
        }
        other => return Err(ctx.err(path, format!("Unknown policy requirement type \"{other}\""))),
    }
    Ok(Requirement(v.to_json()))
}

fn check_key_fields(
    ctx: &Ctx<'_>,
    path: &str,
    f: &BTreeMap<&str, &StrictValue>,
) -> Result<(), PolicyError> {
    for (k, v) in f {
        match *k {
            "keyPath" | "keyData" | "rekorPublicKeyPath" | "rekorPublicKeyData" => {
                string(ctx, path, k, v)?;
            }
            "keyPaths" | "keyDatas" | "rekorPublicKeyPaths" | "rekorPublicKeyDatas"
                if strings(ctx, path, k, v)? == 0 =>
            {
                return Err(ctx.err(path, format!("\"{k}\" must not be empty")));
            }
            _ => {}
        }
    }
    Ok(())
}

fn sigstore_signed(
    ctx: &Ctx<'_>,
    path: &str,
    obj: &[(String, StrictValue)],
) -> Result<(), PolicyError> {
    let f = keys(
        ctx,
        path,
        obj,
        &[
            "type",
            "keyPath",
            "keyPaths",
            "keyData",
            "keyDatas",
            "fulcio",
            "pki",
            "rekorPublicKeyPath",
            "rekorPublicKeyPaths",
            "rekorPublicKeyData",
            "rekorPublicKeyDatas",
            "signedIdentity",
        ],
    )?;
    exactly_one(
        ctx,
        path,
        &f,
        &[
            "keyPath", "keyPaths", "keyData", "keyDatas", "fulcio", "pki",
        ],
        "sigstoreSigned",
    )?;
    check_key_fields(ctx, path, &f)?;
    let rekor = [
        "rekorPublicKeyPath",
        "rekorPublicKeyPaths",
        "rekorPublicKeyData",
        "rekorPublicKeyDatas",
    ];
    let rekor_count = rekor.iter().filter(|k| f.contains_key(*k)).count();
    if rekor_count > 1 {
        return Err(ctx.err(
            path,
            "sigstoreSigned: only one of the rekorPublicKey fields may be specified",
        ));
    }
    if let Some(fulcio) = f.get("fulcio") {
        if rekor_count == 0 {
            return Err(ctx.err(
                path,
                "sigstoreSigned: fulcio requires a rekorPublicKey field",
            ));
        }
        let fpath = format!("{path}.fulcio");
        let ff = keys(
            ctx,
            &fpath,
            object(ctx, &fpath, fulcio)?,
            &["caPath", "caData", "oidcIssuer", "subjectEmail"],
        )?;
        exactly_one(ctx, &fpath, &ff, &["caPath", "caData"], "fulcio")?;
        for required in ["oidcIssuer", "subjectEmail"] {
            let v = ff.get(required).ok_or_else(|| {
                ctx.err(&fpath, format!("fulcio: \"{required}\" must be specified"))
            })?;
            string(ctx, &fpath, required, v)?;
        }
    }
    if let Some(pki) = f.get("pki") {
        if rekor_count > 0 {
            return Err(ctx.err(
                path,
                "sigstoreSigned: rekorPublicKey fields must not be specified with pki",
            ));
        }
        let ppath = format!("{path}.pki");
        let pf = keys(
            ctx,
            &ppath,
            object(ctx, &ppath, pki)?,
            &[
                "caRootsPath",
                "caRootsData",
                "caIntermediatesPath",
                "caIntermediatesData",
                "subjectEmail",
                "subjectHostname",
            ],
        )?;
        exactly_one(ctx, &ppath, &pf, &["caRootsPath", "caRootsData"], "pki")?;
        if pf.contains_key("caIntermediatesPath") && pf.contains_key("caIntermediatesData") {
            return Err(ctx.err(
                &ppath,
                "pki: only one of caIntermediatesPath, caIntermediatesData may be specified",
            ));
        }
        if !pf.contains_key("subjectEmail") && !pf.contains_key("subjectHostname") {
            return Err(ctx.err(
                &ppath,
                "pki: at least one of subjectEmail, subjectHostname must be specified",
            ));
        }
    }
    if let Some(id) = f.get("signedIdentity") {
        signed_identity(ctx, &format!("{path}.signedIdentity"), id)?;
    }
    Ok(())
}

/// A `remapIdentity` prefix: a `host[:port]`, or a canonical repository name.
fn valid_remap_prefix(s: &str) -> bool {
    is_valid_domain(s) || Reference::parse_named(s).is_ok_and(|r| r.is_name_only())
}

fn signed_identity(ctx: &Ctx<'_>, path: &str, v: &StrictValue) -> Result<(), PolicyError> {
    let obj = object(ctx, path, v)?;
    let kind = obj
        .iter()
        .find(|(k, _)| k == "type")
        .map(|(_, v)| string(ctx, path, "type", v))
        .transpose()?
        .ok_or_else(|| ctx.err(path, "Missing \"type\" field"))?;
    match kind {
        "matchExact" | "matchRepoDigestOrExact" | "matchRepository" => {
            keys(ctx, path, obj, &["type"])?;
        }
        "exactReference" => {
            let f = keys(ctx, path, obj, &["type", "dockerReference"])?;
            let r = f
                .get("dockerReference")
                .ok_or_else(|| ctx.err(path, "dockerReference field missing"))?;
            let r = string(ctx, path, "dockerReference", r)?;
            let parsed = Reference::parse_normalized_named(r).map_err(|e| {
                ctx.err(
                    path,
                    format!("Invalid format of dockerReference \"{r}\": {e}"),
                )
            })?;
            if parsed.is_name_only() {
                return Err(ctx.err(
                    path,
                    format!("dockerReference \"{r}\" does not contain a tag or digest"),
                ));
            }
        }
        "exactRepository" => {
            let f = keys(ctx, path, obj, &["type", "dockerRepository"])?;
            let r = f
                .get("dockerRepository")
                .ok_or_else(|| ctx.err(path, "dockerRepository field missing"))?;
            let r = string(ctx, path, "dockerRepository", r)?;
            Reference::parse_normalized_named(r).map_err(|e| {
                ctx.err(
                    path,
                    format!("Invalid format of dockerRepository \"{r}\": {e}"),
                )
            })?;
        }
        "remapIdentity" => {
            let f = keys(ctx, path, obj, &["type", "prefix", "signedPrefix"])?;
            for k in ["prefix", "signedPrefix"] {
                let p = f
                    .get(k)
                    .ok_or_else(|| ctx.err(path, format!("{k} field missing")))?;
                let p = string(ctx, path, k, p)?;
                if !valid_remap_prefix(p) {
                    return Err(ctx.err(
                        path,
                        format!("Invalid {k} \"{p}\": must be a host[:port] or a repository name"),
                    ));
                }
            }
        }
        other => {
            return Err(ctx.err(
                path,
                format!("Unknown policy reference match type \"{other}\""),
            ))
        }
    }
    Ok(())
}

impl StrictValue {
    fn to_json(&self) -> Value {
        match self {
            StrictValue::Null => Value::Null,
            StrictValue::Bool(b) => Value::Bool(*b),
            StrictValue::Number(n) => Value::Number(n.clone()),
            StrictValue::String(s) => Value::String(s.clone()),
            StrictValue::Array(a) => Value::Array(a.iter().map(StrictValue::to_json).collect()),
            StrictValue::Object(o) => {
                let mut m = Map::new();
                for (k, v) in o {
                    m.insert(k.clone(), v.to_json());
                }
                Value::Object(m)
            }
        }
    }
}

#[cfg(test)]
mod tests;
