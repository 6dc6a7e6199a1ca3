//! The release's OpenPGP signatures, verified as the cluster-version
//! operator verifies them (library-go `pkg/verify`): each signature is an
//! OpenPGP one-pass signed message, made by a key of a keyring the CVO
//! trusts, whose literal data is an "atomic container signature" naming the
//! release digest. The OpenPGP packets, keys and cryptography are the `pgp`
//! crate's; which keys, which message and which payload count are ours.
//! Where the signatures and keys come from is [`super::checks`]'s.

use std::io::Read;

use pgp::composed::{Deserializable, Message, SignedPublicKey};
use pgp::packet::Signature;
use pgp::types::{KeyDetails, VerifyingKey};
use serde::Deserialize;

/// The key prefix, in the verification ConfigMap, of each keyring every
/// release must be signed by (library-go `verifierPublicKeyPrefix`).
pub const VERIFIER_KEY_PREFIX: &str = "verifier-public-key-";

/// The `critical.type` of a release signature.
pub const SIGNATURE_TYPE: &str = "atomic container signature";

/// The public keys of one `verifier-public-key-*` entry: the release must
/// carry a signature from one of them.
#[derive(Debug, Clone)]
pub struct Keyring {
    /// The ConfigMap key (`verifier-public-key-redhat`).
    pub name: String,
    keys: Vec<SignedPublicKey>,
}

impl Keyring {
    /// The fingerprints of the keyring's primary keys, upper-case hex as
    /// the CVO prints them.
    pub fn fingerprints(&self) -> Vec<String> {
        self.keys
            .iter()
            .map(|k| format!("{:X}", k.primary_key.fingerprint()))
            .collect()
    }
}

/// Why a keyring or a signature is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenPgpError {
    /// A `verifier-public-key-*` value that is no OpenPGP public key.
    #[error("invalid key {name:?} that must be a GPG public key: {reason}")]
    Key { name: String, reason: String },
    /// Empty bytes.
    #[error("the signature is empty")]
    Empty,
    /// Bytes that are not an OpenPGP message.
    #[error("could not read the message: {0}")]
    Message(String),
    /// An OpenPGP message without a one-pass signature.
    #[error("not signed")]
    NotSigned,
    /// Signed, by no key of the keyring.
    #[error("invalid signature: no key of {keyring} made it")]
    WrongKey { keyring: String },
    /// Signed, with a signature lifetime that has passed.
    #[error("signature expired on {}", crate::x509::rfc3339(*.expiry))]
    Expired { expiry: i64 },
    /// The signed data is not a release signature.
    #[error("the signature is not valid JSON: {0}")]
    Json(String),
    #[error("signature is not the correct type: {0:?}")]
    Type(String),
    #[error("signature must have an identity")]
    NoIdentity,
    #[error("signature digest does not match: it names {0}")]
    Digest(String),
}

/// Reads the keyring of `name` from armored or binary OpenPGP data, as
/// library-go's `loadArmoredOrUnarmoredGPGKeyRing`.
pub fn parse_keyring(name: &str, text: &[u8]) -> Result<Keyring, OpenPgpError> {
    let refuse = |reason: String| OpenPgpError::Key {
        name: name.to_string(),
        reason,
    };
    let armored = SignedPublicKey::from_armor_many(text)
        .map_err(|e| e.to_string())
        .and_then(|(keys, _)| collect_keys(keys));
    let keys = match armored {
        Ok(keys) => keys,
        Err(armor) => SignedPublicKey::from_bytes_many(text)
            .map_err(|e| e.to_string())
            .and_then(collect_keys)
            .map_err(|binary| {
                refuse(format!(
                    "unable to read keyring with armor ({armor}) or without armor ({binary})"
                ))
            })?,
    };
    Ok(Keyring {
        name: name.to_string(),
        keys,
    })
}

fn collect_keys(
    keys: impl Iterator<Item = pgp::errors::Result<SignedPublicKey>>,
) -> Result<Vec<SignedPublicKey>, String> {
    let keys: Vec<SignedPublicKey> = keys.collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    if keys.is_empty() {
        return Err("no public key".to_string());
    }
    Ok(keys)
}

/// A signature's signed data, and the message it came in.
pub struct Signed<'a> {
    message: Message<'a>,
    /// The literal data: what was signed.
    pub content: Vec<u8>,
}

/// Reads `bytes` as the CVO's `openpgp.ReadMessage` does: a binary
/// OpenPGP message, possibly compressed, that is one-pass signed; its
/// literal data read to the end.
pub fn read_message(bytes: &[u8]) -> Result<Signed<'_>, OpenPgpError> {
    if bytes.is_empty() {
        return Err(OpenPgpError::Empty);
    }
    let message = |e: pgp::errors::Error| OpenPgpError::Message(e.to_string());
    let mut msg = Message::from_bytes(bytes).map_err(message)?;
    // A compressed message may hold another compressed message.
    for _ in 0..4 {
        if !msg.is_compressed() {
            break;
        }
        msg = msg.decompress().map_err(message)?;
    }
    if !msg.is_one_pass_signed() {
        return Err(OpenPgpError::NotSigned);
    }
    let mut content = Vec::new();
    msg.read_to_end(&mut content)
        .map_err(|e| OpenPgpError::Message(e.to_string()))?;
    Ok(Signed {
        message: msg,
        content,
    })
}

/// The key of a keyring that verified a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedBy {
    /// The keyring's ConfigMap key.
    pub keyring: String,
    /// The fingerprint of the (sub)key that made the signature.
    pub fingerprint: String,
    /// Its key id (the fingerprint's last 16 hex digits for a v4 key).
    pub key_id: String,
}

/// Verifies the signature of `signed` with the keys of `keyring` (primary
/// keys and subkeys), and its lifetime against `now` (unix seconds): the
/// CVO's `verifySignatureWithKeyring`. Each signature packet is checked
/// over the literal data as Go's `openpgp.ReadMessage` checks it, v3
/// signatures included: Red Hat's release signatures are a v3 one-pass
/// signature with a v3 signature, which RFC 9580 no longer pairs and the
/// `pgp` crate's message-level check refuses.
pub fn verify(signed: &Signed<'_>, keyring: &Keyring, now: i64) -> Result<SignedBy, OpenPgpError> {
    let Message::Signed { reader, .. } = &signed.message else {
        return Err(OpenPgpError::NotSigned);
    };
    let packets = reader.signatures().unwrap_or_default();
    for sig in packets.iter().map(|p| p.signature()) {
        for key in &keyring.keys {
            let by = made_by(sig, &key.primary_key, &signed.content).or_else(|| {
                key.public_subkeys
                    .iter()
                    .find_map(|s| made_by(sig, &s.key, &signed.content))
            });
            if let Some((fingerprint, key_id)) = by {
                check_lifetime(sig, now)?;
                return Ok(SignedBy {
                    keyring: keyring.name.clone(),
                    fingerprint,
                    key_id,
                });
            }
        }
    }
    Err(OpenPgpError::WrongKey {
        keyring: keyring.name.clone(),
    })
}

/// The fingerprint and key id of `key` when it made `sig` over `content`.
fn made_by<K: VerifyingKey>(sig: &Signature, key: &K, content: &[u8]) -> Option<(String, String)> {
    sig.verify(key, content).ok()?;
    let id = key.legacy_key_id();
    Some((
        format!("{:X}", key.fingerprint()),
        id.as_ref().iter().map(|b| format!("{b:02X}")).collect(),
    ))
}

/// A signature past its lifetime is refused. Go's openpgp takes any
/// lifetime, zero included, as creation + lifetime.
fn check_lifetime(sig: &Signature, now: i64) -> Result<(), OpenPgpError> {
    if let (Some(created), Some(life)) = (sig.created(), sig.signature_expiration_time()) {
        let expiry = i64::from(created.as_secs()) + i64::from(life.as_secs());
        if now > expiry {
            return Err(OpenPgpError::Expired { expiry });
        }
    }
    Ok(())
}

/// An atomic container signature, every field as library-go decodes it
/// (unknown fields refused).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // fields are read by the decoder's checks
struct AtomicSignature {
    #[serde(default)]
    critical: Critical,
    #[serde(default)]
    optional: Optional,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Critical {
    #[serde(default, rename = "type")]
    kind: String,
    #[serde(default)]
    image: Image,
    #[serde(default)]
    identity: Identity,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Image {
    #[serde(default, rename = "docker-manifest-digest")]
    docker_manifest_digest: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Identity {
    #[serde(default, rename = "docker-reference")]
    docker_reference: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Optional {
    #[serde(default)]
    creator: String,
    #[serde(default)]
    timestamp: i64,
}

/// Checks that `content` authenticates `digest`: the CVO's
/// `verifyAtomicContainerSignature`. Like Go's `json.Decoder`, only the
/// first JSON value is read.
pub fn check_content(content: &[u8], digest: &str) -> Result<(), OpenPgpError> {
    let first = serde_json::Deserializer::from_slice(content)
        .into_iter::<AtomicSignature>()
        .next()
        .unwrap_or_else(|| serde_json::from_slice::<AtomicSignature>(b""));
    let sig = first.map_err(|e| OpenPgpError::Json(e.to_string()))?;
    if sig.critical.kind != SIGNATURE_TYPE {
        return Err(OpenPgpError::Type(sig.critical.kind));
    }
    if sig.critical.identity.docker_reference.is_empty() {
        return Err(OpenPgpError::NoIdentity);
    }
    if sig.critical.image.docker_manifest_digest != digest {
        return Err(OpenPgpError::Digest(
            sig.critical.image.docker_manifest_digest,
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
