//! Tests of `image_policy`, beside it rather than inside it.

use super::*;
use serde_json::json;

/// Base64 of a PEM public key (the key from openshift/api's tests).
const KEY: &str = "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFK0tpN0I3K2tpTFdPSmRQWXBZanRqUmtXVnBxRgpuNHl1TjU2VjZHaGdLRm5SZjJqemlweEFWR084cm0vWUVQU3d2clBORHJqdnA0YlpoNm5NR0Z0NzhBPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0t";

fn b64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, &b| (acc << 8) | b as u32) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn cert() -> String {
    b64(&format!(
        "{CERTIFICATE_BEGIN}\n{}\n{CERTIFICATE_END}\n",
        "A".repeat(64)
    ))
}

fn cip(spec: serde_json::Value) -> ClusterImagePolicy {
    serde_json::from_value(json!({
        "apiVersion": "config.openshift.io/v1",
        "kind": "ClusterImagePolicy",
        "metadata": {"name": "p"},
        "spec": spec,
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn public_key_policy() -> serde_json::Value {
    json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": KEY}}})
}

fn check(spec: serde_json::Value, want: &[(&str, &str)]) {
    let got = cip(spec.clone()).validate();
    assert_eq!(got.len(), want.len(), "{spec}: {got:#?}");
    for (g, (field, message)) in got.iter().zip(want) {
        assert_eq!(g.field, *field, "{spec}");
        assert!(g.message.contains(message), "{spec}: {}", g.message);
    }
}

/// Ported from openshift/api `config/v1/tests/clusterimagepolicies.config.openshift.io/SigstoreImageVerification.yaml`.
#[test]
fn upstream_sigstore_cases() {
    check(
        json!({"scopes": ["example.com"], "policy": public_key_policy()}),
        &[],
    );
    check(
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {
                "policyType": "FulcioCAWithRekor",
                "fulcioCAWithRekor": {"fulcioCAData": cert(), "rekorKeyData": KEY,
                    "fulcioSubject": {"oidcIssuer": "https://oidc.localhost", "signedEmail": "test-user@example.com"}}}}}),
        &[],
    );
    check(
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "PublicKey"}}}),
        &[(
            "spec.policy.rootOfTrust",
            "publicKey is required when policyType is PublicKey, and forbidden otherwise",
        )],
    );
    check(
            json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "FulcioCAWithRekor"}}}),
            &[("spec.policy.rootOfTrust", "fulcioCAWithRekor is required when policyType is FulcioCAWithRekor, and forbidden otherwise")],
        );
    check(
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "FulcioCAWithRekor", "publicKey": {"keyData": KEY}}}}),
        &[
            (
                "spec.policy.rootOfTrust",
                "publicKey is required when policyType is PublicKey, and forbidden otherwise",
            ),
            (
                "spec.policy.rootOfTrust",
                "fulcioCAWithRekor is required when policyType is FulcioCAWithRekor",
            ),
        ],
    );
    let with_identity = |identity: serde_json::Value, want: &[(&str, &str)]| {
        let mut policy = public_key_policy();
        policy["signedIdentity"] = identity;
        check(json!({"scopes": ["example.com"], "policy": policy}), want);
    };
    with_identity(
            json!({"matchPolicy": "ExactRepository"}),
            &[("spec.policy.signedIdentity", "exactRepository is required when matchPolicy is ExactRepository, and forbidden otherwise")],
        );
    with_identity(
        json!({"matchPolicy": "RemapIdentity"}),
        &[(
            "spec.policy.signedIdentity",
            "remapIdentity is required when matchPolicy is RemapIdentity, and forbidden otherwise",
        )],
    );
    with_identity(
        json!({"matchPolicy": "ExactRepository", "exactRepository": {"repository": "example.com/namespace/namespace:latest"}}),
        &[
            (
                "spec.policy.signedIdentity.exactRepository.repository",
                "should not include the tag or digest",
            ),
            (
                "spec.policy.signedIdentity.exactRepository.repository",
                "must starts with 'localhost'",
            ),
        ],
    );
    with_identity(
        json!({"matchPolicy": "RemapIdentity", "remapIdentity": {"prefix": "example.com/namespace:latest", "signedPrefix": "example.com/namespace"}}),
        &[
            (
                "spec.policy.signedIdentity.remapIdentity.prefix",
                "should not include the tag or digest",
            ),
            (
                "spec.policy.signedIdentity.remapIdentity.prefix",
                "must starts with 'localhost'",
            ),
        ],
    );
    with_identity(
        json!({"matchPolicy": "ExactRepository", "exactRepository": {"repository": "example.com"}}),
        &[],
    );
    with_identity(
        json!({"matchPolicy": "RemapIdentity", "remapIdentity": {"prefix": "example.com", "signedPrefix": "mirror.com"}}),
        &[],
    );
    with_identity(
        json!({"matchPolicy": "MatchRepository", "exactRepository": {"repository": "example.com"}}),
        &[(
            "spec.policy.signedIdentity",
            "exactRepository is required when matchPolicy is ExactRepository",
        )],
    );
    with_identity(
        json!({"matchPolicy": "Whatever"}),
        &[(
            "spec.policy.signedIdentity.matchPolicy",
            "is not a supported value",
        )],
    );
    for (scope, want) in [
            ("busybox", Some("invalid image scope format, scope must contain a fully qualified domain name or 'localhost'")),
            ("registry:5000/x", Some("invalid image scope format")),
            ("*.example.com/test", Some("invalid image scope with wildcard")),
            ("example.com/namespace/namespace@sha256:12dsdf", Some("invalid repository namespace or image specification in the image scope")),
            ("localhost:1234/namespace/namespace", None),
            ("localhost/foo/bar", None),
            ("example.com/foo/bar:latest", None),
            ("*.example.com", None),
        ] {
            let mut want: Vec<(&str, &str)> = want.map(|m| ("spec.scopes[0]", m)).into_iter().collect();
            // A host without a dot also fails the repository rule, as the API server reports.
            if !scope.split('/').next().unwrap().contains('.') && !scope.starts_with("localhost") {
                want.push(("spec.scopes[0]", "invalid repository namespace or image specification"));
            }
            check(json!({"scopes": [scope], "policy": public_key_policy()}), &want);
        }
}

/// Ported from `SigstoreImageVerificationPKI.yaml`.
#[test]
fn upstream_pki_cases() {
    let pki = |subject: serde_json::Value, roots: String| {
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "PKI",
                "pki": {"caRootsData": roots, "caIntermediatesData": cert(), "pkiCertificateSubject": subject}}}})
    };
    check(
        pki(
            json!({"email": "test-user@example.com", "hostname": "myhost.example.com"}),
            cert(),
        ),
        &[],
    );
    check(pki(json!({"hostname": "*.example.com"}), cert()), &[]);
    check(
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "PKI"}}}),
        &[(
            "spec.policy.rootOfTrust",
            "pki is required when policyType is PKI, and forbidden otherwise",
        )],
    );
    check(
        pki(json!({"email": "invalid-email"}), cert()),
        &[(
            "spec.policy.rootOfTrust.pki.pkiCertificateSubject.email",
            "invalid email address",
        )],
    );
    check(
        pki(json!({"hostname": "invaild-.com"}), cert()),
        &[(
            "spec.policy.rootOfTrust.pki.pkiCertificateSubject.hostname",
            "hostname must be a valid dns 1123 subdomain name",
        )],
    );
    check(
        pki(json!({}), cert()),
        &[(
            "spec.policy.rootOfTrust.pki.pkiCertificateSubject",
            "at least one of email or hostname must be set",
        )],
    );
    let not_pem = b64(&format!("foo bar {}", "x".repeat(60)));
    check(
        pki(json!({"email": "a@b"}), not_pem),
        &[
            (
                "spec.policy.rootOfTrust.pki.caRootsData",
                "the caRootsData must start with base64 encoding of '-----BEGIN CERTIFICATE-----'.",
            ),
            (
                "spec.policy.rootOfTrust.pki.caRootsData",
                "the caRootsData must end with base64 encoding of '-----END CERTIFICATE-----'.",
            ),
        ],
    );
    check(
        pki(json!({"email": "a@b"}), "Zm9vIGJhcg==".to_string()),
        &[(
            "spec.policy.rootOfTrust.pki.caRootsData",
            "has 12 characters, at least 72 are required",
        )],
    );
    let unbalanced = b64(&format!(
        "{CERTIFICATE_BEGIN}\n{CERTIFICATE_BEGIN}\n{}\n{CERTIFICATE_END}\n",
        "A".repeat(64)
    ));
    check(
        pki(json!({"email": "a@b"}), unbalanced),
        &[(
            "spec.policy.rootOfTrust.pki.caRootsData",
            "caRootsData must be base64 encoding of valid PEM format data contain the same number",
        )],
    );
}

#[test]
fn key_data_checks() {
    let policy = |key: &str| json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": key}}}});
    check(
        policy(&"!".repeat(80)),
        &[(
            "spec.policy.rootOfTrust.publicKey.keyData",
            "is not valid base64",
        )],
    );
    check(
        policy("Zm9vIGJhcg=="),
        &[("spec.policy.rootOfTrust.publicKey.keyData", "at least 68")],
    );
    check(
        policy(&"A".repeat(8196)),
        &[("spec.policy.rootOfTrust.publicKey.keyData", "at most 8192")],
    );
    let cert_as_key = cert();
    check(
        policy(&cert_as_key),
        &[
            (
                "spec.policy.rootOfTrust.publicKey.keyData",
                "must start with base64 encoding of '-----BEGIN PUBLIC KEY-----'",
            ),
            (
                "spec.policy.rootOfTrust.publicKey.keyData",
                "must end with base64 encoding of '-----END PUBLIC KEY-----'",
            ),
        ],
    );
}

#[test]
fn fulcio_subject_checks() {
    let spec = |issuer: &str, email: &str| {
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "FulcioCAWithRekor",
                "fulcioCAWithRekor": {"fulcioCAData": cert(), "rekorKeyData": KEY,
                    "fulcioSubject": {"oidcIssuer": issuer, "signedEmail": email}}}}})
    };
    // A workflow URI with an "@" passes the CRD's e-mail rule.
    check(
        spec(
            "https://token.actions.githubusercontent.com",
            "https://github.com/o/r/.github/workflows/w.yml@refs/heads/main",
        ),
        &[],
    );
    check(
        spec(
            "https://token.actions.githubusercontent.com",
            "not-an-email",
        ),
        &[(
            "spec.policy.rootOfTrust.fulcioCAWithRekor.fulcioSubject.signedEmail",
            "invalid email address",
        )],
    );
    check(
        spec("oidc.example.com", "a@b.c"),
        &[(
            "spec.policy.rootOfTrust.fulcioCAWithRekor.fulcioSubject.oidcIssuer",
            "oidcIssuer must be a valid URL",
        )],
    );
}

#[test]
fn scopes_are_a_set_of_at_most_256() {
    check(
        json!({"scopes": ["a.com", "b.com", "a.com"], "policy": public_key_policy()}),
        &[("spec.scopes[2]", "is a duplicate of spec.scopes[0]")],
    );
    let many: Vec<String> = (0..257).map(|i| format!("r{i}.example.com")).collect();
    check(
        json!({"scopes": many, "policy": public_key_policy()}),
        &[("spec.scopes", "has 257 items, at most 256")],
    );
    check(
        json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "GPG"}}}),
        &[(
            "spec.policy.rootOfTrust.policyType",
            "is not a supported value",
        )],
    );
}

#[test]
fn origins() {
    let ip: ImagePolicy = serde_json::from_value(json!({
        "metadata": {"name": "p", "namespace": "team-a"},
        "spec": {"scopes": ["example.com"], "policy": public_key_policy()},
    }))
    .unwrap();
    assert_eq!(ip.origin().as_str(), "ImagePolicy/team-a/p");
    assert!(ip.validate().is_empty());
    assert_eq!(
        cip(json!({"scopes": [], "policy": public_key_policy()}))
            .origin()
            .as_str(),
        "ClusterImagePolicy/p"
    );
}

#[test]
fn round_trips_field_names() {
    let spec = json!({"scopes": ["example.com"], "policy": {"rootOfTrust": {"policyType": "FulcioCAWithRekor",
            "fulcioCAWithRekor": {"fulcioCAData": "QQ==", "rekorKeyData": "QQ==",
                "fulcioSubject": {"oidcIssuer": "https://x", "signedEmail": "a@b"}}},
            "signedIdentity": {"matchPolicy": "RemapIdentity", "remapIdentity": {"prefix": "a.com", "signedPrefix": "b.com"}}}});
    let parsed = cip(spec.clone());
    assert_eq!(serde_json::to_value(&parsed.spec).unwrap(), spec);
}
