use pgp::composed::{
    ArmorOptions, KeyType, MessageBuilder, SecretKeyParamsBuilder, SignedPublicKey,
    SignedSecretKey, SubkeyParamsBuilder,
};
use pgp::crypto::hash::HashAlgorithm;
use pgp::types::{CompressionAlgorithm, KeyDetails, Password};
use rand::SeedableRng;

use super::*;

const DIGEST: &str = "sha256:c5715ac78b40e236a0cf2927612957cbe42ffc1980874ace40b3e18a8fe8a0e6";

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// An Ed25519 key that signs with its primary key, or with a signing
/// subkey when `subkey`.
pub(crate) fn key(seed: u64, subkey: bool) -> SignedSecretKey {
    let mut params = SecretKeyParamsBuilder::default();
    params
        .key_type(KeyType::Ed25519Legacy)
        .can_certify(true)
        .can_sign(!subkey)
        .primary_user_id("Release signer <release@example.com>".into())
        // A fixed creation time: the same seed makes the same key (fingerprint).
        .created_at(pgp::types::Timestamp::from_secs(1_700_000_000));
    if subkey {
        let mut sub = SubkeyParamsBuilder::default();
        sub.key_type(KeyType::Ed25519Legacy).can_sign(true);
        params.subkeys(vec![sub.build().unwrap()]);
    }
    params.build().unwrap().generate(rng(seed)).unwrap()
}

pub(crate) fn payload(digest: &str) -> Vec<u8> {
    format!(r#"{{"critical":{{"type":"atomic container signature","image":{{"docker-manifest-digest":"{digest}"}},"identity":{{"docker-reference":"quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64"}}}},"optional":{{"creator":"test"}}}}"#).into_bytes()
}

pub(crate) fn sign(key: &SignedSecretKey, content: &[u8], compress: bool) -> Vec<u8> {
    let mut builder = MessageBuilder::from_bytes("", content.to_vec());
    match key.secret_subkeys.first() {
        Some(sub) => builder.sign(&sub.key, Password::empty(), HashAlgorithm::Sha256),
        None => builder.sign(&key.primary_key, Password::empty(), HashAlgorithm::Sha256),
    };
    if compress {
        builder.compression(CompressionAlgorithm::ZLIB);
    }
    builder.to_vec(rng(7)).unwrap()
}

/// The armored public key of `key`, as a `verifier-public-key-*` value.
pub(crate) fn armored_key(key: &SignedSecretKey) -> String {
    let public = SignedPublicKey::from(key.clone());
    public.to_armored_string(ArmorOptions::default()).unwrap()
}

fn keyring(name: &str, key: &SignedSecretKey) -> Keyring {
    parse_keyring(name, armored_key(key).as_bytes()).unwrap()
}

fn check(bytes: &[u8], ring: &Keyring) -> Result<SignedBy, OpenPgpError> {
    let signed = read_message(bytes)?;
    let by = verify(&signed, ring, 0)?;
    check_content(&signed.content, DIGEST)?;
    Ok(by)
}

/// library-go's verify_test `TestVerifier` cases, on keys and signatures
/// made here: a signature verifies with its key and names the digest;
/// another key, another digest, an empty value and garbage do not.
#[test]
fn signatures_verify_as_the_cvo_verifies_them() {
    let signer = key(1, false);
    let other = key(2, false);
    let ring = keyring("verifier-public-key-redhat", &signer);
    let good = sign(&signer, &payload(DIGEST), true);
    let by = check(&good, &ring).unwrap();
    assert_eq!(by.keyring, "verifier-public-key-redhat");
    assert_eq!(
        by.fingerprint,
        format!("{:X}", signer.primary_key.fingerprint())
    );
    assert_eq!(by.key_id, by.fingerprint[by.fingerprint.len() - 16..]);
    assert_eq!(ring.fingerprints(), vec![by.fingerprint.clone()]);
    check(&sign(&signer, &payload(DIGEST), false), &ring).expect("uncompressed");

    let other_digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    let armored = {
        let mut b = MessageBuilder::from_bytes("", payload(DIGEST));
        b.sign(
            &signer.primary_key,
            Password::empty(),
            HashAlgorithm::Sha256,
        );
        b.to_armored_string(rng(3), ArmorOptions::default())
            .unwrap()
    };
    let literal_only = MessageBuilder::from_bytes("", payload(DIGEST))
        .to_vec(rng(4))
        .unwrap();
    type Case = (&'static str, Vec<u8>, fn(&OpenPgpError) -> bool);
    let cases: Vec<Case> = vec![
        ("another key", sign(&other, &payload(DIGEST), true), |e| matches!(e, OpenPgpError::WrongKey { .. })),
        ("another digest", sign(&signer, &payload(other_digest), true), |e| matches!(e, OpenPgpError::Digest(d) if d.ends_with("0000"))),
        ("empty", Vec::new(), |e| *e == OpenPgpError::Empty),
        ("garbage", b"not a signature at all".to_vec(), |e| matches!(e, OpenPgpError::Message(_))),
        ("armored (the CVO reads binary)", armored.into_bytes(), |e| matches!(e, OpenPgpError::Message(_))),
        ("not signed", literal_only, |e| *e == OpenPgpError::NotSigned),
        ("not JSON", sign(&signer, b"hello", true), |e| matches!(e, OpenPgpError::Json(_))),
        ("unknown field", sign(&signer, br#"{"critical":{"type":"atomic container signature","image":{"docker-manifest-digest":"x"},"identity":{"docker-reference":"r"},"extra":1}}"#, true), |e| matches!(e, OpenPgpError::Json(_))),
        ("wrong type", sign(&signer, br#"{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"x"},"identity":{"docker-reference":"r"}}}"#, true), |e| matches!(e, OpenPgpError::Type(_))),
        ("no identity", sign(&signer, format!(r#"{{"critical":{{"type":"atomic container signature","image":{{"docker-manifest-digest":"{DIGEST}"}}}}}}"#).as_bytes(), true), |e| *e == OpenPgpError::NoIdentity),
    ];
    for (name, bytes, want) in cases {
        let got = check(&bytes, &ring).expect_err(name);
        assert!(want(&got), "{name}: {got:?}");
    }
}

/// A key whose signing subkey made the signature: the subkey verifies it
/// (Go's `KeysById` looks at subkeys too) and is the one named.
#[test]
fn a_signing_subkey_verifies() {
    let signer = key(5, true);
    let ring = keyring("verifier-public-key-sub", &signer);
    let by = check(&sign(&signer, &payload(DIGEST), true), &ring).unwrap();
    let sub = format!("{:X}", signer.secret_subkeys[0].key.fingerprint());
    assert_eq!(by.fingerprint, sub);
    assert_ne!(ring.fingerprints(), vec![sub]);
}

/// Keyrings are read armored or binary, several keys in one value; a value
/// that is neither is refused with library-go's words.
#[test]
fn keyrings_read_armored_or_binary() {
    let (a, b) = (key(8, false), key(9, false));
    let mut binary = Vec::new();
    for k in [&a, &b] {
        let public = SignedPublicKey::from(k.clone());
        binary.extend(pgp::ser::Serialize::to_bytes(&public).unwrap());
    }
    let ring = parse_keyring("verifier-public-key-two", &binary).unwrap();
    assert_eq!(ring.fingerprints().len(), 2);
    check(&sign(&b, &payload(DIGEST), true), &ring).expect("the second key of the keyring");
    for bad in [
        &b""[..],
        b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnope\n",
        b"garbage",
    ] {
        let err = parse_keyring("verifier-public-key-x", bad).unwrap_err();
        assert!(
            err.to_string().starts_with("invalid key \"verifier-public-key-x\" that must be a GPG public key: unable to read keyring with armor"),
            "{bad:?}: {err}"
        );
    }
}

/// library-go's verify_test `TestVerifier` "valid signature for sha over
/// file": a signature Red Hat made (a v3 one-pass signature and a v3
/// signature, RSA 4096 with SHA-256, ZIP-compressed) verifies with Red
/// Hat's release key 2 for its digest, and for no other.
#[test]
fn a_red_hat_signature_verifies_with_the_red_hat_key() {
    let key = include_bytes!("testdata/redhat-release-key-2.asc");
    let ring = parse_keyring("verifier-public-key-redhat", key).unwrap();
    assert_eq!(
        ring.fingerprints(),
        ["567E347AD0044ADE55BA8A5F199E2F91FD431D51"]
    );
    let signed = read_message(include_bytes!("testdata/rhel7-7.6.sig")).unwrap();
    let by = verify(&signed, &ring, 0).unwrap();
    assert_eq!(by.fingerprint, "567E347AD0044ADE55BA8A5F199E2F91FD431D51");
    assert_eq!(by.key_id, "199E2F91FD431D51");
    let digest = "sha256:e3f12513a4b22a2d7c0e7c9207f52128113758d9d68c7d06b11a0ac7672966f7";
    check_content(&signed.content, digest).unwrap();
    assert!(matches!(
        check_content(&signed.content, DIGEST),
        Err(OpenPgpError::Digest(_))
    ));
    let other = keyring("verifier-public-key-other", &key_for_tests());
    assert!(matches!(
        verify(&signed, &other, 0),
        Err(OpenPgpError::WrongKey { .. })
    ));
}

fn key_for_tests() -> SignedSecretKey {
    key(21, false)
}

/// A signature with a lifetime verifies until creation + lifetime, and is
/// refused after it, as the CVO refuses it ("signature expired on").
#[test]
fn an_expired_signature_is_refused() {
    use pgp::composed::SubpacketConfig;
    use pgp::packet::{Subpacket, SubpacketData};
    use pgp::types::{Duration, Timestamp};
    let signer = key(31, false);
    let created = 1_700_000_000;
    let hashed = vec![
        Subpacket::regular(SubpacketData::SignatureCreationTime(Timestamp::from_secs(
            created,
        )))
        .unwrap(),
        Subpacket::regular(SubpacketData::SignatureExpirationTime(Duration::from_secs(
            3600,
        )))
        .unwrap(),
        Subpacket::regular(SubpacketData::IssuerFingerprint(
            signer.primary_key.fingerprint(),
        ))
        .unwrap(),
    ];
    let unhashed = vec![Subpacket::regular(SubpacketData::IssuerKeyId(
        signer.primary_key.legacy_key_id(),
    ))
    .unwrap()];
    let mut builder = MessageBuilder::from_bytes("", payload(DIGEST));
    builder.sign_with_subpackets(
        &signer.primary_key,
        Password::empty(),
        HashAlgorithm::Sha256,
        SubpacketConfig::UserDefined { hashed, unhashed },
    );
    let bytes = builder.to_vec(rng(32)).unwrap();
    let ring = keyring("verifier-public-key-redhat", &signer);
    let signed = read_message(&bytes).unwrap();
    let created = i64::from(created);
    verify(&signed, &ring, created + 100).expect("within its lifetime");
    let expired = verify(&signed, &ring, created + 7200).unwrap_err();
    assert_eq!(
        expired,
        OpenPgpError::Expired {
            expiry: created + 3600
        }
    );
    assert_eq!(
        expired.to_string(),
        "signature expired on 2023-11-14T23:13:20Z"
    );
}
