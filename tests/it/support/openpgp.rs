//! OpenPGP keys and release signatures made here with the `pgp` crate, as
//! `oc adm release mirror` and the release signing service produce them: a
//! compressed one-pass signed message whose literal data is the "atomic
//! container signature" JSON naming the release digest.

use base64::Engine;
use pgp::composed::{
    ArmorOptions, KeyType, MessageBuilder, SecretKeyParamsBuilder, SignedPublicKey, SignedSecretKey,
};
use pgp::crypto::hash::HashAlgorithm;
use pgp::types::{CompressionAlgorithm, KeyDetails, Password};
use rand::SeedableRng;

/// A signing key, made from `seed` (the same seed, the same key).
pub struct Key(SignedSecretKey);

impl Key {
    pub fn new(seed: u64) -> Self {
        let mut params = SecretKeyParamsBuilder::default();
        params
            .key_type(KeyType::Ed25519Legacy)
            .can_certify(true)
            .can_sign(true)
            .primary_user_id("Release signer <release@example.com>".into())
            // A fixed creation time: the same seed makes the same key (fingerprint).
            .created_at(pgp::types::Timestamp::from_secs(1_700_000_000));
        let rng = rand::rngs::StdRng::seed_from_u64(seed);
        Key(params.build().expect("params").generate(rng).expect("key"))
    }

    /// The armored public key, as a `verifier-public-key-*` value.
    pub fn armored_public(&self) -> String {
        SignedPublicKey::from(self.0.clone())
            .to_armored_string(ArmorOptions::default())
            .expect("armor")
    }

    /// The fingerprint, upper-case hex.
    pub fn fingerprint(&self) -> String {
        format!("{:X}", self.0.primary_key.fingerprint())
    }

    /// A release signature of `digest`, binary, as a signature ConfigMap
    /// holds it.
    pub fn sign_release(&self, digest: &str) -> Vec<u8> {
        let payload = format!(
            r#"{{"critical":{{"type":"atomic container signature","image":{{"docker-manifest-digest":"{digest}"}},"identity":{{"docker-reference":"quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64"}}}},"optional":{{"creator":"tests"}}}}"#
        );
        let mut builder = MessageBuilder::from_bytes("", payload.into_bytes());
        builder
            .sign(
                &self.0.primary_key,
                Password::empty(),
                HashAlgorithm::Sha256,
            )
            .compression(CompressionAlgorithm::ZLIB);
        builder
            .to_vec(rand::rngs::StdRng::seed_from_u64(1))
            .expect("sign")
    }
}

/// `bytes` as a ConfigMap's `binaryData` value.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
