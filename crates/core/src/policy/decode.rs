//! The strict policy.json decoder: containers/image `Policy.UnmarshalJSON`
//! and the `UnmarshalJSON` of every requirement and identity type
//! (signature/policy_config.go, policy_config_sigstore.go), with upstream's
//! messages. Each error also says where in the document it is
//! (`transports.docker."quay.io"[0].signedIdentity`), which upstream does not.

use std::collections::BTreeMap;

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::Engine;

use super::json::Json;
use super::model::{
    Fulcio, Pki, Policy, Requirement, Scopes, SignedBy, SignedIdentity, SigstoreSigned,
};
use crate::quote::go_quote;

/// Why a policy.json document does not decode: upstream's message, and
/// where in the document (empty for the whole document). `Display` is the
/// message alone, as upstream prints it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    /// `transports.docker."quay.io"[0]`, or empty.
    pub path: String,
    pub message: String,
}

/// Puts a value-level message at a place in the document.
trait At<T> {
    fn at(self, path: &str) -> Result<T, DecodeError>;
}

impl<T> At<T> for Result<T, String> {
    fn at(self, path: &str) -> Result<T, DecodeError> {
        self.map_err(|message| DecodeError {
            path: path.to_string(),
            message,
        })
    }
}

fn fail<T>(path: &str, message: impl Into<String>) -> Result<T, DecodeError> {
    Err(message.into()).at(path)
}

fn cannot_unmarshal(v: &Json, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        v.kind()
    )
}

fn object(v: &Json) -> Result<&[(String, Json)], String> {
    match v {
        Json::Object(fields) => Ok(fields),
        _ => Err(format!("JSON object expected, got {}", v.kind())),
    }
}

fn string(v: &Json) -> Result<String, String> {
    match v {
        Json::String(s) => Ok(s.clone()),
        Json::Null => Ok(String::new()),
        _ => Err(cannot_unmarshal(v, "string")),
    }
}

fn strings(v: &Json) -> Result<Option<Vec<String>>, String> {
    match v {
        Json::Null => Ok(None),
        Json::Array(items) => items.iter().map(string).collect::<Result<_, _>>().map(Some),
        _ => Err(cannot_unmarshal(v, "[]string")),
    }
}

/// Go's `base64.StdEncoding` as `encoding/json` uses it for `[]byte`:
/// padding required, line breaks ignored, non-zero trailing bits accepted.
const GO_STD_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// Decodes base64 as Go's `encoding/json` decodes a `[]byte` field.
pub fn decode_go_base64(s: &str) -> Result<Vec<u8>, String> {
    let cleaned: String = s.chars().filter(|&c| c != '\r' && c != '\n').collect();
    GO_STD_BASE64
        .decode(cleaned.as_bytes())
        .map_err(|e| format!("illegal base64 data: {e}"))
}

fn bytes(v: &Json) -> Result<Option<Vec<u8>>, String> {
    match v {
        Json::Null => Ok(None),
        Json::String(s) => decode_go_base64(s).map(Some),
        _ => Err(cannot_unmarshal(v, "[]uint8")),
    }
}

fn bytes_list(v: &Json) -> Result<Option<Vec<Vec<u8>>>, String> {
    match v {
        Json::Null => Ok(None),
        Json::Array(items) => items
            .iter()
            .map(|i| bytes(i).map(Option::unwrap_or_default))
            .collect::<Result<_, _>>()
            .map(Some),
        _ => Err(cannot_unmarshal(v, "[][]uint8")),
    }
}

fn unknown_key(key: &str) -> String {
    format!("Unknown key {}", go_quote(key))
}

/// `ParanoidUnmarshalJSONObjectExactFields`: exactly these keys.
fn exact_fields<'a>(
    fields: &'a [(String, Json)],
    wanted: &[&str],
) -> Result<Vec<&'a Json>, String> {
    if let Some((k, _)) = fields.iter().find(|(k, _)| !wanted.contains(&k.as_str())) {
        return Err(unknown_key(k));
    }
    wanted
        .iter()
        .map(|w| {
            fields
                .iter()
                .find(|(k, _)| k == w)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("Key {} missing in a JSON object", go_quote(w)))
        })
        .collect()
}

fn type_field(v: &Json, go_type: &str) -> Result<String, String> {
    match v {
        Json::Object(fields) => match fields.iter().find(|(k, _)| k == "type") {
            Some((_, t)) => string(t),
            None => Ok(String::new()),
        },
        Json::Null => Ok(String::new()),
        _ => Err(cannot_unmarshal(v, go_type)),
    }
}

/// `Policy.UnmarshalJSON`.
pub fn decode_policy(v: &Json) -> Result<Policy, DecodeError> {
    let fields = object(v).at("")?;
    let mut policy = Policy::default();
    let mut has_default = false;
    for (key, value) in fields {
        match key.as_str() {
            "default" => {
                policy.default = decode_requirements(value, "default")?;
                has_default = true;
            }
            "transports" => policy.transports = decode_transports(value)?,
            _ => return fail("", unknown_key(key)),
        }
    }
    if !has_default {
        return fail("", "Default policy is missing");
    }
    Ok(policy)
}

fn decode_transports(v: &Json) -> Result<BTreeMap<String, Scopes>, DecodeError> {
    let mut out = BTreeMap::new();
    // No transport the MCO or CRI-O links in validates docker scopes
    // (docker accepts all; atomic and docker-daemon are not registered).
    for (transport, scopes) in object(v).at("transports")? {
        let tpath = format!("transports.{transport}");
        let mut decoded = BTreeMap::new();
        for (scope, reqs) in object(scopes).at(&tpath)? {
            let spath = format!("{tpath}.{}", go_quote(scope));
            decoded.insert(scope.clone(), decode_requirements(reqs, &spath)?);
        }
        out.insert(transport.clone(), decoded);
    }
    Ok(out)
}

/// `PolicyRequirements.UnmarshalJSON`.
fn decode_requirements(v: &Json, path: &str) -> Result<Vec<Requirement>, DecodeError> {
    let items = match v {
        Json::Array(items) => items.as_slice(),
        Json::Null => &[],
        _ => return fail(path, cannot_unmarshal(v, "[]json.RawMessage")),
    };
    if items.is_empty() {
        return fail(
            path,
            "List of verification policy requirements must not be empty",
        );
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| decode_requirement(item, &format!("{path}[{i}]")))
        .collect()
}

/// `newPolicyRequirementFromJSON`.
fn decode_requirement(v: &Json, path: &str) -> Result<Requirement, DecodeError> {
    let kind = type_field(v, "signature.prCommon").at(path)?;
    let fields = || object(v).at(path);
    match kind.as_str() {
        "insecureAcceptAnything" => {
            exact_fields(fields()?, &["type"]).at(path)?;
            Ok(Requirement::InsecureAcceptAnything)
        }
        "reject" => {
            exact_fields(fields()?, &["type"]).at(path)?;
            Ok(Requirement::Reject)
        }
        "signedBy" => decode_signed_by(fields()?, path),
        "signedBaseLayer" => {
            let f = exact_fields(fields()?, &["type", "baseLayerIdentity"]).at(path)?;
            Ok(Requirement::SignedBaseLayer {
                base_layer_identity: decode_identity(f[1], &format!("{path}.baseLayerIdentity"))?,
            })
        }
        "sigstoreSigned" => decode_sigstore_signed(fields()?, path),
        other => fail(
            path,
            format!("Unknown policy requirement type {}", go_quote(other)),
        ),
    }
}

/// `sbKeyType.UnmarshalJSON`.
fn key_type(v: &Json) -> Result<String, String> {
    let s = string(v)?;
    if !matches!(
        s.as_str(),
        "GPGKeys" | "signedByGPGKeys" | "X509Certificates" | "signedByX509CAs"
    ) {
        return Err(format!("Unrecognized keyType value {}", go_quote(&s)));
    }
    Ok(s)
}

/// `prSignedBy.UnmarshalJSON`, then `newPRSignedBy`.
fn decode_signed_by(fields: &[(String, Json)], path: &str) -> Result<Requirement, DecodeError> {
    let mut key_type_value = String::new();
    let (mut key_path, mut key_paths, mut key_data) = (None, None, None);
    let mut identity = None;
    for (key, value) in fields {
        match key.as_str() {
            "type" => {
                string(value).at(path)?;
            }
            "keyType" => key_type_value = key_type(value).at(path)?,
            "keyPath" => key_path = Some(string(value).at(path)?),
            "keyPaths" => key_paths = Some(strings(value).at(path)?),
            "keyData" => key_data = Some(bytes(value).at(path)?),
            "signedIdentity" => identity = Some(value),
            _ => return fail(path, unknown_key(key)),
        }
    }
    let signed_identity = match identity {
        Some(v) => decode_identity(v, &format!("{path}.signedIdentity"))?,
        None => SignedIdentity::MatchRepoDigestOrExact,
    };
    match (key_path.is_some(), key_paths.is_some(), key_data.is_some()) {
        (false, false, false) => return fail(
            path,
            "Exactly one of keyPath, keyPaths and keyData must be specified, none of them present",
        ),
        (true, false, false) | (false, true, false) | (false, false, true) => {}
        _ => return fail(
            path,
            "Exactly one of keyPath, keyPaths and keyData must be specified, more than one present",
        ),
    }
    if key_type_value.is_empty() {
        return fail(path, "invalid keyType \"\"");
    }
    let signed_by = SignedBy {
        key_type: key_type_value,
        key_path: key_path.unwrap_or_default(),
        key_paths: key_paths.flatten(),
        key_data: key_data.flatten(),
        signed_identity,
    };
    let sources = usize::from(!signed_by.key_path.is_empty())
        + usize::from(signed_by.key_paths.is_some())
        + usize::from(signed_by.key_data.is_some());
    if sources != 1 {
        return fail(
            path,
            "exactly one of keyPath, keyPaths and keyData must be specified",
        );
    }
    Ok(Requirement::SignedBy(signed_by))
}

fn non_empty<T>(name: &str, v: Option<Vec<T>>) -> Result<Option<Vec<T>>, String> {
    match v {
        Some(list) if !list.is_empty() => Ok(Some(list)),
        _ => Err(format!("\"{name}\" contains no entries")),
    }
}

/// The list-valued options `prSigstoreSigned.UnmarshalJSON` checks for
/// entries, by their upstream spelling (`rekorPublickey…`, sic).
#[derive(Default)]
struct ListsGiven {
    key_paths: bool,
    key_datas: bool,
    rekor_paths: bool,
    rekor_datas: bool,
}

/// `prSigstoreSigned.UnmarshalJSON`, then `newPRSigstoreSigned`.
fn decode_sigstore_signed(
    fields: &[(String, Json)],
    path: &str,
) -> Result<Requirement, DecodeError> {
    let mut s = SigstoreSigned::with_identity(SignedIdentity::MatchRepoDigestOrExact);
    let mut given = ListsGiven::default();
    let mut identity = None;
    for (key, value) in fields {
        match key.as_str() {
            "type" => {
                string(value).at(path)?;
            }
            "keyPath" => s.key_path = string(value).at(path)?,
            "keyPaths" => {
                given.key_paths = true;
                s.key_paths = strings(value).at(path)?;
            }
            "keyData" => s.key_data = bytes(value).at(path)?,
            "keyDatas" => {
                given.key_datas = true;
                s.key_datas = bytes_list(value).at(path)?;
            }
            "fulcio" => s.fulcio = Some(decode_fulcio(value, &format!("{path}.fulcio"))?),
            "rekorPublicKeyPath" => s.rekor_public_key_path = string(value).at(path)?,
            "rekorPublicKeyPaths" => {
                given.rekor_paths = true;
                s.rekor_public_key_paths = strings(value).at(path)?;
            }
            "rekorPublicKeyData" => s.rekor_public_key_data = bytes(value).at(path)?,
            "rekorPublicKeyDatas" => {
                given.rekor_datas = true;
                s.rekor_public_key_datas = bytes_list(value).at(path)?;
            }
            "pki" => s.pki = Some(decode_pki(value, &format!("{path}.pki"))?),
            "signedIdentity" => identity = Some(value),
            _ => return fail(path, unknown_key(key)),
        }
    }
    if let Some(v) = identity {
        s.signed_identity = decode_identity(v, &format!("{path}.signedIdentity"))?;
    }
    // The options in the order UnmarshalJSON applies them.
    if given.key_paths {
        s.key_paths = non_empty("keyPaths", s.key_paths.take()).at(path)?;
    }
    if given.key_datas {
        s.key_datas = non_empty("keyDatas", s.key_datas.take()).at(path)?;
    }
    if given.rekor_paths {
        s.rekor_public_key_paths =
            non_empty("rekorPublickeyPaths", s.rekor_public_key_paths.take()).at(path)?;
    }
    if given.rekor_datas {
        s.rekor_public_key_datas =
            non_empty("rekorPublickeyDatas", s.rekor_public_key_datas.take()).at(path)?;
    }
    s.check().at(path)?;
    Ok(Requirement::SigstoreSigned(Box::new(s)))
}

/// `prSigstoreSignedFulcio.UnmarshalJSON`.
fn decode_fulcio(v: &Json, path: &str) -> Result<Fulcio, DecodeError> {
    let mut f = Fulcio::default();
    for (key, value) in object(v).at(path)? {
        match key.as_str() {
            "caPath" => f.ca_path = string(value).at(path)?,
            "caData" => f.ca_data = bytes(value).at(path)?,
            "oidcIssuer" => f.oidc_issuer = string(value).at(path)?,
            "subjectEmail" => f.subject_email = string(value).at(path)?,
            _ => return fail(path, unknown_key(key)),
        }
    }
    f.check().at(path)?;
    Ok(f)
}

/// `prSigstoreSignedPKI.UnmarshalJSON`.
fn decode_pki(v: &Json, path: &str) -> Result<Pki, DecodeError> {
    let mut p = Pki::default();
    for (key, value) in object(v).at(path)? {
        match key.as_str() {
            "caRootsPath" => p.ca_roots_path = string(value).at(path)?,
            "caRootsData" => p.ca_roots_data = bytes(value).at(path)?,
            "caIntermediatesPath" => p.ca_intermediates_path = string(value).at(path)?,
            "caIntermediatesData" => p.ca_intermediates_data = bytes(value).at(path)?,
            "subjectEmail" => p.subject_email = string(value).at(path)?,
            "subjectHostname" => p.subject_hostname = string(value).at(path)?,
            _ => return fail(path, unknown_key(key)),
        }
    }
    p.check().at(path)?;
    Ok(p)
}

/// `newPolicyReferenceMatchFromJSON`.
fn decode_identity(v: &Json, path: &str) -> Result<SignedIdentity, DecodeError> {
    let kind = type_field(v, "signature.prmCommon").at(path)?;
    let fields = || object(v).at(path);
    let exact = |wanted: &[&str]| -> Result<Vec<String>, DecodeError> {
        exact_fields(fields()?, wanted)
            .at(path)?
            .into_iter()
            .map(|f| string(f).at(path))
            .collect()
    };
    match kind.as_str() {
        "matchExact" => {
            exact(&["type"])?;
            Ok(SignedIdentity::MatchExact)
        }
        "matchRepoDigestOrExact" => {
            exact(&["type"])?;
            Ok(SignedIdentity::MatchRepoDigestOrExact)
        }
        "matchRepository" => {
            exact(&["type"])?;
            Ok(SignedIdentity::MatchRepository)
        }
        "exactReference" => {
            let f = exact(&["type", "dockerReference"])?;
            SignedIdentity::exact_reference(&f[1]).at(path)
        }
        "exactRepository" => {
            let f = exact(&["type", "dockerRepository"])?;
            SignedIdentity::exact_repository(&f[1]).at(path)
        }
        "remapIdentity" => {
            let f = exact(&["type", "prefix", "signedPrefix"])?;
            SignedIdentity::remap_identity(&f[1], &f[2]).at(path)
        }
        other => fail(
            path,
            format!("Unknown policy reference match type {}", go_quote(other)),
        ),
    }
}
