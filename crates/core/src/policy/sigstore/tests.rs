use super::*;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_ASN1_SIGNING};

/// The SubjectPublicKeyInfo prefix of an uncompressed P-256 point.
const P256_SPKI: &[u8] = &[
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

fn pem(der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    format!("-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----\n")
}

fn key_pair() -> (EcdsaKeyPair, String) {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng).unwrap();
    let kp =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let spki = [P256_SPKI, kp.public_key().as_ref()].concat();
    (kp, pem(&spki))
}

fn payload(digest: &str, reference: &str) -> Vec<u8> {
    format!(r#"{{"critical":{{"identity":{{"docker-reference":"{reference}"}},"image":{{"docker-manifest-digest":"{digest}"}},"type":"cosign container image signature"}},"optional":{{"creator":"test"}}}}"#).into_bytes()
}

fn layer(kp: &EcdsaKeyPair, body: &[u8]) -> AttachmentLayer {
    let signature = kp.sign(&SystemRandom::new(), body).unwrap();
    let mut annotations = BTreeMap::new();
    annotations.insert(
        SIGNATURE_ANNOTATION.to_string(),
        base64::engine::general_purpose::STANDARD.encode(signature.as_ref()),
    );
    AttachmentLayer {
        media_type: SIGNATURE_MIME.to_string(),
        digest: String::new(),
        annotations,
    }
}

const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[test]
fn a_signature_by_the_key_over_the_image_is_accepted_and_nothing_else() {
    let (kp, key_pem) = key_pair();
    let (_, other_pem) = key_pair();
    let key = parse_public_key(key_pem.as_bytes()).expect("key");
    assert_eq!(key.kind, "ECDSA P-256");
    let other = parse_public_key(other_pem.as_bytes()).expect("key");
    let image = Reference::parse_normalized_named(&format!("quay.io/o/r@{DIGEST}")).unwrap();
    let identity = SignedIdentity::MatchRepoDigestOrExact;
    let expected = Expected {
        image: &image,
        digest: DIGEST,
        identity: &identity,
    };
    let body = payload(DIGEST, "quay.io/o/r:4.21");
    let l = layer(&kp, &body);
    accept(std::slice::from_ref(&key), &l, &body, &expected).expect("accepted");
    let both = [other, key];
    accept(&both, &l, &body, &expected).expect("any key");
    let wrong_key = accept(&both[..1], &l, &body, &expected).unwrap_err();
    assert!(
        wrong_key.starts_with("cryptographic signature verification failed"),
        "{wrong_key}"
    );
    let other_digest = payload(&DIGEST.replace("01", "10"), "quay.io/o/r:4.21");
    let l2 = layer(&kp, &other_digest);
    let e = accept(&both[1..], &l2, &other_digest, &expected).unwrap_err();
    assert!(e.contains("does not match"), "{e}");
    let other_repo = payload(DIGEST, "quay.io/o/other:4.21");
    let l3 = layer(&kp, &other_repo);
    let e = accept(&both[1..], &l3, &other_repo, &expected).unwrap_err();
    assert!(e.contains("is not accepted"), "{e}");
    let mut bare = l.clone();
    bare.annotations.clear();
    let e = accept(&both[1..], &bare, &body, &expected).unwrap_err();
    assert_eq!(e, format!("missing {SIGNATURE_ANNOTATION} annotation"));
}

#[test]
fn payloads_are_read_strictly() {
    // containers/image signature/internal sigstore_payload_test.go:
    // TestUntrustedSigstorePayloadUnmarshalJSON.
    let good = payload(DIGEST, "quay.io/o/r:1");
    assert_eq!(
        parse_payload(&good).unwrap(),
        (DIGEST.to_string(), "quay.io/o/r:1".to_string())
    );
    let cases: &[(&str, &str)] = &[
        ("not JSON", "x"),
        ("not an object", "1"),
        ("missing critical", r#"{"optional":{}}"#),
        (
            "extra top field",
            r#"{"critical":{},"optional":{},"unexpected":1}"#,
        ),
        (
            "bad type",
            r#"{"critical":{"type":"other","image":{"docker-manifest-digest":"sha256:a"},"identity":{"docker-reference":"r"}},"optional":null}"#,
        ),
        (
            "extra critical field",
            r#"{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"sha256:a"},"identity":{"docker-reference":"r"},"x":1},"optional":null}"#,
        ),
        (
            "bad digest",
            r#"{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"nodigest"},"identity":{"docker-reference":"r"}},"optional":null}"#,
        ),
        (
            "fractional timestamp",
            r#"{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"sha256:a"},"identity":{"docker-reference":"r"}},"optional":{"timestamp":1.5}}"#,
        ),
    ];
    for (what, text) in cases {
        assert!(parse_payload(text.as_bytes()).is_err(), "{what}");
    }
    // cosign writes "optional": null.
    let null_optional = r#"{"critical":{"type":"cosign container image signature","image":{"docker-manifest-digest":"sha256:a"},"identity":{"docker-reference":"r"}},"optional":null}"#;
    assert!(parse_payload(null_optional.as_bytes()).is_ok());
}

#[test]
fn identities_match_as_containers_image_matches_them() {
    // containers/image signature/policy_reference_match_test.go:
    // TestPRMMatchRepoDigestOrExactMatchesDockerReference and friends.
    let d = DIGEST;
    let e = "sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
    let cases: Vec<(SignedIdentity, String, String, bool)> = vec![
        (
            SignedIdentity::MatchRepoDigestOrExact,
            format!("busybox@{d}"),
            "busybox:latest".into(),
            true,
        ),
        (
            SignedIdentity::MatchRepoDigestOrExact,
            format!("busybox@{d}"),
            format!("busybox@{e}"),
            true,
        ),
        (
            SignedIdentity::MatchRepoDigestOrExact,
            format!("busybox@{d}"),
            "busybox".into(),
            false,
        ),
        (
            SignedIdentity::MatchRepoDigestOrExact,
            format!("busybox@{d}"),
            "other:latest".into(),
            false,
        ),
        (
            SignedIdentity::MatchRepoDigestOrExact,
            "busybox:latest".into(),
            "busybox:latest".into(),
            true,
        ),
        (
            SignedIdentity::MatchRepoDigestOrExact,
            "busybox:latest".into(),
            "busybox:notlatest".into(),
            false,
        ),
        (
            SignedIdentity::MatchExact,
            format!("busybox@{d}"),
            format!("busybox@{d}"),
            true,
        ),
        (
            SignedIdentity::MatchExact,
            format!("busybox@{d}"),
            "busybox:latest".into(),
            false,
        ),
        (
            SignedIdentity::MatchRepository,
            format!("busybox@{d}"),
            "busybox".into(),
            true,
        ),
        (
            SignedIdentity::MatchRepository,
            format!("busybox@{d}"),
            "other".into(),
            false,
        ),
        (
            SignedIdentity::ExactRepository {
                docker_repository: "quay.io/a/b".into(),
            },
            format!("busybox@{d}"),
            "quay.io/a/b:x".into(),
            true,
        ),
        (
            SignedIdentity::ExactReference {
                docker_reference: "quay.io/a/b:x".into(),
            },
            format!("busybox@{d}"),
            "quay.io/a/b:x".into(),
            true,
        ),
        (
            SignedIdentity::ExactReference {
                docker_reference: "quay.io/a/b:x".into(),
            },
            format!("busybox@{d}"),
            "quay.io/a/b:y".into(),
            false,
        ),
        (
            SignedIdentity::RemapIdentity {
                prefix: "mirror.example/ocp".into(),
                signed_prefix: "quay.io/openshift-release-dev".into(),
            },
            format!("mirror.example/ocp/ocp-release@{d}"),
            "quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64".into(),
            true,
        ),
        (
            SignedIdentity::RemapIdentity {
                prefix: "mirror.example/ocp".into(),
                signed_prefix: "quay.io/openshift-release-dev".into(),
            },
            format!("mirror.example/ocpx/ocp-release@{d}"),
            "quay.io/openshift-release-dev/ocp-release:4.21.0".into(),
            false,
        ),
    ];
    for (identity, image, signed, want) in cases {
        let image_ref = Reference::parse_normalized_named(&image).unwrap();
        assert_eq!(
            matches_identity(&identity, &image_ref, &signed),
            want,
            "{identity:?} {image} {signed}"
        );
    }
}

#[test]
fn keys_of_every_kind_sigstore_loads() {
    // The Red Hat release key of the openshift ClusterImagePolicy is RSA 4096.
    let rsa = "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUlJQ0lqQU5CZ2txaGtpRzl3MEJBUUVGQUFPQ0FnOEFNSUlDQ2dLQ0FnRUEwQVN5dUgyVExXdkJVcVBIWjRJcAo3NWc3RW5jQmtnUUhkSm5qenhBVzVLUVRNaC9zaUJvQi9Cb1NydGlQTXduQ2hiVENuUU9JUWVadURpRm5odUo3Ck0vRDNiN0pvWDBtMTIzTmNDU242N21BZGpCYTZCZzZrdWtaZ0NQNFpVWmVFU2FqV1gvRWp5bEZjUkZPWFc1N3AKUkRDRU40MkovallsVnF0K2c5K0dya2VyOFN6ODZIM2wwdGJxT2RqYnovVnhIWWh3RjBjdFVNSHN5VlJEcTJRUAp0cXpOWGxtbE1oUy9Qb0ZyNlI0dS83SENuL0srTGVnY08yZkFGT2I0MEt2S1NLS1ZENmxld1VaRXJob3AxQ2dKClhqRHRHbW1POWRHTUY3MW1mNkhFZmFLU2R5K0VFNmlTRjJBMlZ2OVFoQmF3TWlxMmtPekVpTGc0bkFkSlQ4d2cKWnJNQW1QQ3FHSXNYTkdaNC9RK1lUd3dsY2UzZ2xxYjVMOXRmTm96RWRTUjlOODVERVNmUUxRRWRZM0NhbHdLTQpCVDFPRWhFWDF3SFJDVTRkck1PZWo2Qk5XMFZ0c2NHdEhtQ3JzNzRqUGV6aHdOVDh5cGt5UytUMHpUNFRzeTZmClZYa0o4WVNIeWVuU3pNQjJPcDJidnNFM2dyWStzNzRXaEc5VUlBNkRCeGNUaWUxNU5Tekt3Znphb05XT0RjTEYKcDdCWThhYUhFMk1xRnhZRlgrSWJqcGtRUmZhZVFRc291REZkQ2tYRUZWZlBwYkQyZGs2RmxlYU1UUHV5eHRJVApnalZFdEdRSzJxR0NGR2lRSEZkNGhmVitlQ0E2M0pybzF6MHpvQk01QmJJSVEzK2VWRnd0M0FsWnA1VVZ3cjZkCnNlY3FraS95cm12M1kwZHFaOVZPbjNVQ0F3RUFBUT09Ci0tLS0tRU5EIFBVQkxJQyBLRVktLS0tLQ==";
    let pem = base64::engine::general_purpose::STANDARD
        .decode(rsa)
        .unwrap();
    assert_eq!(parse_public_key(&pem).expect("rsa").kind, "RSA");
    assert!(parse_public_key(b"not pem").is_err());
    let cert = "-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n";
    assert!(parse_public_key(cert.as_bytes()).is_err());
}

#[test]
fn attachment_manifests_are_oci_manifests() {
    let m = format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{{}},"layers":[{{"mediaType":"{SIGNATURE_MIME}","digest":"sha256:a","size":1,"annotations":{{"{SIGNATURE_ANNOTATION}":"c2ln"}}}}]}}"#
    );
    let layers = attachment_layers(m.as_bytes()).unwrap();
    assert_eq!(layers[0].annotations[SIGNATURE_ANNOTATION], "c2ln");
    let docker = r#"{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","layers":[]}"#;
    assert!(attachment_layers(docker.as_bytes()).is_err());
}
