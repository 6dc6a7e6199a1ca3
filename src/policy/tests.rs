//! Table tests for policy.json parsing and scope selection.

use super::*;

fn r(s: &str) -> Reference {
    Reference::parse_docker_transport(s).unwrap()
}

/// containers/image docker/policyconfiguration/naming_test.go `TestDockerReference`.
#[test]
fn namespaces_upstream_cases() {
    for (input, want) in [
        (
            "example.com/ns/repo:tag",
            vec![
                "example.com/ns/repo",
                "example.com/ns",
                "example.com",
                "*.com",
            ],
        ),
        (
            "yet.another.example.com:8443/ns/repo:tag",
            vec![
                "yet.another.example.com:8443/ns/repo",
                "yet.another.example.com:8443/ns",
                "yet.another.example.com:8443",
                "*.another.example.com",
                "*.example.com",
                "*.com",
            ],
        ),
        ("localhost/repo:tag", vec!["localhost/repo", "localhost"]),
        (
            "localhost:5000/a/b/c:tag",
            vec![
                "localhost:5000/a/b/c",
                "localhost:5000/a/b",
                "localhost:5000/a",
                "localhost:5000",
            ],
        ),
        (
            "busybox",
            vec![
                "docker.io/library/busybox",
                "docker.io/library",
                "docker.io",
                "*.io",
            ],
        ),
    ] {
        assert_eq!(policy_namespaces(&r(input)), want, "{input}");
    }
    assert_eq!(
        policy_identity(&r("busybox")),
        "docker.io/library/busybox:latest"
    );
    let d = format!("example.com/ns/repo@sha256:{}", "a".repeat(64));
    assert_eq!(policy_identity(&r(&d)), d);
}

const SCOPED: &str = r#"{
  "default": [{"type": "reject"}],
  "transports": {
    "docker": {
      "example.com/ns/repo:tag": [{"type": "insecureAcceptAnything"}],
      "example.com/ns/repo": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/repo.gpg"}],
      "example.com/ns": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/ns.gpg"}],
      "example.com": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/host.gpg"}],
      "*.example.com": [{"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/wild.gpg"}],
      "example.com:5000": [{"type": "reject"}],
      "": [{"type": "insecureAcceptAnything"}]
    },
    "atomic": {"": [{"type": "reject"}]}
  }
}"#;

/// signature/policy_eval_test.go `TestPolicyContextRequirementsForImageRef`:
/// the most specific scope wins, then the transport default, then `default`.
#[test]
fn requirements_for_upstream_precedence() {
    let p = parse_policy("policy.json", SCOPED).unwrap();
    for (input, want) in [
        ("example.com/ns/repo:tag", Some("example.com/ns/repo:tag")),
        ("example.com/ns/repo:other", Some("example.com/ns/repo")),
        ("example.com/ns/other:tag", Some("example.com/ns")),
        ("example.com/other/x:tag", Some("example.com")),
        ("a.example.com/x:tag", Some("*.example.com")),
        ("a.b.example.com:5000/x:tag", Some("*.example.com")),
        ("example.com:5000/x:tag", Some("example.com:5000")),
        ("example.com:6000/x:tag", Some("")),
        ("quay.io/x/y:1", Some("")),
    ] {
        let m = p.requirements_for("docker", &r(input));
        assert_eq!(m.scope.as_deref(), want, "{input}");
    }
    let m = p.requirements_for("containers-storage", &r("quay.io/x:1"));
    assert_eq!(m.scope, None);
    assert_eq!(m.requirements[0].kind(), "reject");
    assert_eq!(m.origin.as_str(), "policy.json: default");
}

#[test]
fn scopes_are_not_normalized() {
    let p = parse_policy(
        "p",
        r#"{"default":[{"type":"reject"}],"transports":{"docker":{"busybox":[{"type":"insecureAcceptAnything"}],"docker.io/busybox":[{"type":"insecureAcceptAnything"}]}}}"#,
    )
    .unwrap();
    assert_eq!(p.requirements_for("docker", &r("busybox")).scope, None);
}

/// signature/policy_config_test.go `TestNewPolicyFromBytes`,
/// `TestPolicyUnmarshalJSON` and the per-requirement `UnmarshalJSON` tests:
/// documents that must be refused.
#[test]
fn invalid_policies_upstream_cases() {
    let wrap = |req: &str| format!(r#"{{"default":[{req}]}}"#);
    for (doc, want) in [
        ("{}".to_string(), "Default policy is missing"),
        ("[]".to_string(), "expected a JSON object"),
        (r#"{"default":[]}"#.to_string(), "must not be empty"),
        (
            r#"{"default":[{"type":"reject"}],"unknown":1}"#.to_string(),
            "Unknown key \"unknown\"",
        ),
        (
            r#"{"default":[{"type":"reject"}],"default":[{"type":"reject"}]}"#.to_string(),
            "Duplicate key \"default\"",
        ),
        (
            r#"{"default":[{"type":"reject"}]} x"#.to_string(),
            "trailing",
        ),
        (
            r#"{"default":[{"type":"reject"}],"transports":{"docker":{"x":[]}}}"#.to_string(),
            "transports.docker.\"x\"",
        ),
        (wrap(r#"{"type":"reject","x":1}"#), "Unknown key \"x\""),
        (
            wrap(r#"{"type":"this is invalid"}"#),
            "Unknown policy requirement type",
        ),
        (wrap(r#"{}"#), "Missing \"type\""),
        (wrap(r#"{"type":"signedBy","keyPath":"/k"}"#), "keyType"),
        (
            wrap(r#"{"type":"signedBy","keyType":"bad","keyPath":"/k"}"#),
            "Unknown key type",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"GPGKeys"}"#),
            "one of keyPath",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","keyData":"eA=="}"#),
            "only one of",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"GPGKeys","keyPaths":[]}"#),
            "must not be empty",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"nope"}}"#,
            ),
            "Unknown policy reference match type",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"exactReference","dockerReference":"busybox"}}"#,
            ),
            "does not contain a tag or digest",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"remapIdentity","prefix":"example.com","signedPrefix":"example.com/Bad"}}"#,
            ),
            "Invalid signedPrefix",
        ),
        (wrap(r#"{"type":"sigstoreSigned"}"#), "one of keyPath"),
        (
            wrap(r#"{"type":"sigstoreSigned","keyPath":"/k","fulcio":{}}"#),
            "only one of",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","fulcio":{"caPath":"/ca","oidcIssuer":"https://x","subjectEmail":"a@b"}}"#,
            ),
            "requires a rekorPublicKey",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","fulcio":{"caPath":"/ca","subjectEmail":"a@b"},"rekorPublicKeyPath":"/r"}"#,
            ),
            "oidcIssuer",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","keyPath":"/k","rekorPublicKeyPath":"/r","rekorPublicKeyData":"eA=="}"#,
            ),
            "only one of the rekorPublicKey",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","pki":{"caRootsPath":"/r","subjectEmail":"a@b"},"rekorPublicKeyPath":"/r"}"#,
            ),
            "must not be specified with pki",
        ),
        (
            wrap(r#"{"type":"sigstoreSigned","pki":{"caRootsPath":"/r"}}"#),
            "at least one of subjectEmail",
        ),
        (wrap(r#"{"type":"signedBaseLayer"}"#), "baseLayerIdentity"),
    ] {
        let err = parse_policy("p.json", &doc).unwrap_err().to_string();
        assert!(err.contains(want), "{doc}: {err}");
        assert!(err.starts_with("policy \"p.json\": "), "{err}");
    }
}

#[test]
fn valid_requirements_parse_and_classify() {
    let doc = r#"{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{
      "a.io":[{"type":"sigstoreSigned","keyPath":"/k","signedIdentity":{"type":"matchRepository"}}],
      "b.io":[{"type":"sigstoreSigned","fulcio":{"caData":"eA==","oidcIssuer":"https://o","subjectEmail":"a@b"},"rekorPublicKeyData":"eA=="}],
      "c.io":[{"type":"sigstoreSigned","pki":{"caRootsData":"eA==","subjectHostname":"h"}}],
      "d.io":[{"type":"signedBy","keyType":"X509Certificates","keyPath":"/k"}],
      "e.io":[{"type":"signedBy","keyType":"GPGKeys","keyPaths":["/a","/b"],"signedIdentity":{"type":"remapIdentity","prefix":"example.com/a","signedPrefix":"mirror.example.com:5000"}}],
      "f.io":[{"type":"signedBaseLayer","baseLayerIdentity":{"type":"exactRepository","dockerRepository":"busybox"}}]
    }}}"#;
    let p = parse_policy("p", doc).unwrap();
    let kinds = |scope: &str| {
        let reqs = &p.transports["docker"][scope];
        (reqs[0].rejects(), reqs[0].verifies_signatures())
    };
    assert_eq!(kinds("a.io"), (false, true));
    assert_eq!(kinds("b.io"), (false, true));
    assert_eq!(kinds("c.io"), (false, true));
    assert_eq!(kinds("d.io"), (true, true), "only GPGKeys is implemented");
    assert_eq!(kinds("e.io"), (false, true));
    assert_eq!(
        kinds("f.io"),
        (true, false),
        "signedBaseLayer always denies"
    );
    assert_eq!(
        p.transports["docker"]["a.io"][0].summary(),
        "sigstoreSigned (key /k, identity matchRepository)"
    );
    // Requirements keep their key order.
    assert_eq!(
        serde_json::to_string(&p.transports["docker"]["a.io"][0]).unwrap(),
        r#"{"type":"sigstoreSigned","keyPath":"/k","signedIdentity":{"type":"matchRepository"}}"#
    );
}

#[test]
fn malformed_json_names_line_and_column() {
    let err = parse_policy(
        "p.json",
        "{\n  \"default\": [\n    {\"type\": reject}\n  ]\n}",
    )
    .unwrap_err();
    assert!(err.to_string().contains("line 3"), "{err}");
}
