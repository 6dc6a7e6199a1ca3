//! Table tests for the policy.json model: decoding (both entry points),
//! encoding, scope selection.

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
    assert_eq!(m.requirements[0].type_name(), "reject");
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
/// `TestPolicyUnmarshalJSON`, `TestPolicyRequirementsUnmarshalJSON`,
/// `TestNewPolicyRequirementFromJSON`, `TestPRSignedByUnmarshalJSON`,
/// `TestSBKeyTypeUnmarshalJSON`, `TestPRSignedBaseLayerUnmarshalJSON`,
/// `TestNewPolicyReferenceMatchFromJSON`, `TestPRMExactReferenceUnmarshalJSON`,
/// `TestNewPRMRemapIdentity` and policy_config_sigstore_test.go
/// `TestPRSigstoreSignedUnmarshalJSON`, `TestPRSigstoreSignedFulcioUnmarshalJSON`,
/// `TestPRSigstoreSignedPKIUnmarshalJSON`: documents that must be refused,
/// with upstream's message and where in the file the error is.
#[test]
fn invalid_policies_upstream_cases() {
    let wrap = |req: &str| format!(r#"{{"default":[{req}]}}"#);
    for (doc, want) in [
        ("{}".to_string(), "Default policy is missing"),
        ("[]".to_string(), "JSON object expected, got array"),
        (
            r#"{"default":[]}"#.to_string(),
            "default: List of verification policy requirements must not be empty",
        ),
        (
            r#"{"default":[{"type":"reject"}],"unknown":1}"#.to_string(),
            "Unknown key \"unknown\"",
        ),
        (
            r#"{"default":[{"type":"reject"}],"transports":{"docker":{"x":[]}}}"#.to_string(),
            "transports.docker.\"x\": List of verification policy requirements must not be empty",
        ),
        (
            r#"{"default":[{"type":"reject"}],"transports":{"docker":[]}}"#.to_string(),
            "transports.docker: JSON object expected, got array",
        ),
        (
            wrap(r#"{"type":"reject","x":1}"#),
            "default[0]: Unknown key \"x\"",
        ),
        (
            wrap(r#"{"type":"this is invalid"}"#),
            "default[0]: Unknown policy requirement type \"this is invalid\"",
        ),
        (wrap(r#"{}"#), "default[0]: Unknown policy requirement type \"\""),
        (
            wrap(r#"{"type":"signedBy","keyPath":"/k"}"#),
            "default[0]: invalid keyType \"\"",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"PGP","keyPath":"/k"}"#),
            "default[0]: Unrecognized keyType value \"PGP\"",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"GPGKeys"}"#),
            "default[0]: Exactly one of keyPath, keyPaths and keyData must be specified, none of them present",
        ),
        (
            wrap(r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","keyData":"eA=="}"#),
            "default[0]: Exactly one of keyPath, keyPaths and keyData must be specified, more than one present",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"nope"}}"#,
            ),
            "default[0].signedIdentity: Unknown policy reference match type \"nope\"",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"exactReference","dockerReference":"busybox"}}"#,
            ),
            "default[0].signedIdentity: dockerReference \"busybox\" contains neither a tag nor digest",
        ),
        (
            wrap(
                r#"{"type":"signedBy","keyType":"GPGKeys","keyPath":"/k","signedIdentity":{"type":"remapIdentity","prefix":"example.com","signedPrefix":"example.com/Bad"}}"#,
            ),
            "default[0].signedIdentity: prefix \"example.com/Bad\" is not valid",
        ),
        (
            wrap(r#"{"type":"sigstoreSigned"}"#),
            "default[0]: exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified",
        ),
        (
            wrap(r#"{"type":"sigstoreSigned","keyPath":"/k","fulcio":{}}"#),
            "default[0].fulcio: At least one of caPath and caData must be specified",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","fulcio":{"caPath":"/ca","oidcIssuer":"https://x","subjectEmail":"a@b"}}"#,
            ),
            "default[0]: At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","fulcio":{"caPath":"/ca","subjectEmail":"a@b"},"rekorPublicKeyPath":"/r"}"#,
            ),
            "default[0].fulcio: oidcIssuer not specified",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","keyPath":"/k","rekorPublicKeyPath":"/r","rekorPublicKeyData":"eA=="}"#,
            ),
            "default[0]: at most one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas can be used simultaneously",
        ),
        (
            wrap(
                r#"{"type":"sigstoreSigned","pki":{"caRootsPath":"/r","subjectEmail":"a@b"},"rekorPublicKeyPath":"/r"}"#,
            ),
            "default[0]: rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas are not supported for pki",
        ),
        (
            wrap(r#"{"type":"sigstoreSigned","pki":{"caRootsPath":"/r"}}"#),
            "default[0].pki: At least one of subjectEmail, subjectHostname must be specified",
        ),
        (
            wrap(r#"{"type":"sigstoreSigned","keyPaths":[]}"#),
            "default[0]: \"keyPaths\" contains no entries",
        ),
        (
            wrap(r#"{"type":"signedBaseLayer"}"#),
            "default[0]: Key \"baseLayerIdentity\" missing in a JSON object",
        ),
    ] {
        let err = parse_policy("p.json", &doc).unwrap_err().to_string();
        assert_eq!(err, format!("policy \"p.json\": {want}"), "{doc}");
    }
}

/// Go's `json.Unmarshal` (what `NewPolicyFromBytes` uses) refuses duplicate
/// keys at every level and data after the document, unlike the MCO's
/// `json.Decoder` read of its template.
#[test]
fn node_files_are_read_as_whole_documents() {
    for (doc, want) in [
        (
            r#"{"default":[{"type":"reject"}],"default":[{"type":"reject"}]}"#,
            "Duplicate key \"default\"",
        ),
        (
            r#"{"default":[{"type":"reject","type":"reject"}]}"#,
            "Duplicate key \"type\"",
        ),
        (
            r#"{"default":[{"type":"reject"}]} x"#,
            "trailing characters",
        ),
    ] {
        let err = parse_policy("p.json", doc).unwrap_err().to_string();
        assert!(err.starts_with("policy \"p.json\": "), "{err}");
        assert!(err.contains(want), "{doc}: {err}");
    }
    assert!(Policy::from_json(r#"{"default":[{"type":"reject"}]} x"#).is_ok());
}

/// The same document decodes to the same model on both paths (a node's
/// file and the MCO's template), and re-encodes to itself.
#[test]
fn node_file_and_mco_read_agree_and_round_trip() {
    let text = r#"{
  "default": [
    {
      "type": "insecureAcceptAnything"
    }
  ],
  "transports": {
    "docker": {
      "a.com/x": [
        {
          "type": "sigstoreSigned",
          "keyData": "AAEC",
          "signedIdentity": {
            "type": "remapIdentity",
            "prefix": "a.com",
            "signedPrefix": "b.com:5000/y"
          }
        }
      ]
    }
  }
}"#;
    let file = parse_policy("p.json", text).unwrap();
    assert_eq!(file.policy, Policy::from_json(text).unwrap());
    assert_eq!(file.policy.to_json(), text);
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
        let reqs = &p.policy.transports["docker"][scope];
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
        p.policy.transports["docker"]["a.io"][0].summary(),
        "sigstoreSigned (key /k, identity matchRepository)"
    );
    // Requirements serialize in Go field order, as containers/image reads them.
    assert_eq!(
        serde_json::to_string(&p.policy.transports["docker"]["a.io"][0]).unwrap(),
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

#[test]
fn decoder_round_trips_every_requirement_type_in_go_field_order() {
    let text = r#"{"transports": {"docker": {
            "a.com": [
                {"type": "signedBy", "keyType": "GPGKeys", "keyPath": "/k.gpg", "signedIdentity": {"type": "matchExact"}},
                {"type": "signedBy", "keyData": "AAEC", "keyType": "X509Certificates"},
                {"type": "signedBaseLayer", "baseLayerIdentity": {"dockerReference": "b.com/x:1", "type": "exactReference"}},
                {"signedIdentity": {"signedPrefix": "c.com", "prefix": "b.com", "type": "remapIdentity"},
                 "rekorPublicKeyPaths": ["/r1", "/r2"], "keyDatas": ["AAEC", "AwQ="], "type": "sigstoreSigned"},
                {"type": "sigstoreSigned", "pki": {"subjectEmail": "a@b", "caRootsPath": "/roots", "caIntermediatesPath": "/int"}},
                {"type": "sigstoreSigned", "rekorPublicKeyPath": "/r", "fulcio": {"subjectEmail": "a@b", "oidcIssuer": "https://i", "caPath": "/ca"}}
            ]}}, "default": [{"type": "reject"}]}"#;
    let policy = Policy::from_json(text).unwrap();
    assert_eq!(
        policy.to_json(),
        r#"{
  "default": [
    {
      "type": "reject"
    }
  ],
  "transports": {
    "docker": {
      "a.com": [
        {
          "type": "signedBy",
          "keyType": "GPGKeys",
          "keyPath": "/k.gpg",
          "signedIdentity": {
            "type": "matchExact"
          }
        },
        {
          "type": "signedBy",
          "keyType": "X509Certificates",
          "keyData": "AAEC",
          "signedIdentity": {
            "type": "matchRepoDigestOrExact"
          }
        },
        {
          "type": "signedBaseLayer",
          "baseLayerIdentity": {
            "type": "exactReference",
            "dockerReference": "b.com/x:1"
          }
        },
        {
          "type": "sigstoreSigned",
          "keyDatas": [
            "AAEC",
            "AwQ="
          ],
          "rekorPublicKeyPaths": [
            "/r1",
            "/r2"
          ],
          "signedIdentity": {
            "type": "remapIdentity",
            "prefix": "b.com",
            "signedPrefix": "c.com"
          }
        },
        {
          "type": "sigstoreSigned",
          "pki": {
            "caRootsPath": "/roots",
            "caIntermediatesPath": "/int",
            "subjectEmail": "a@b"
          },
          "signedIdentity": {
            "type": "matchRepoDigestOrExact"
          }
        },
        {
          "type": "sigstoreSigned",
          "fulcio": {
            "caPath": "/ca",
            "oidcIssuer": "https://i",
            "subjectEmail": "a@b"
          },
          "rekorPublicKeyPath": "/r",
          "signedIdentity": {
            "type": "matchRepoDigestOrExact"
          }
        }
      ]
    }
  }
}"#
    );
    assert_eq!(Policy::from_json(&policy.to_json()).unwrap(), policy);
}

#[test]
fn decoder_is_as_strict_as_containers_image() {
    for (text, want) in [
            ("", "EOF"),
            ("{}", "Default policy is missing"),
            ("{\"default\": null}", "List of verification policy requirements must not be empty"),
            ("{\"default\": [{\"type\": \"reject\"}], \"extra\": 1}", "Unknown key \"extra\""),
            ("{\"default\": [{\"type\": \"reject\"}], \"default\": []}", "Duplicate key \"default\""),
            ("{\"default\": [{\"type\": \"reject\", \"x\": 1}]}", "Unknown key \"x\""),
            ("{\"default\": [{\"type\": \"nope\"}]}", "Unknown policy requirement type \"nope\""),
            ("{\"default\": [{\"type\": \"reject\"}], \"transports\": {\"docker\": {\"a\": []}}}", "List of verification policy requirements must not be empty"),
            ("{\"default\": [{\"type\": \"signedBy\", \"keyType\": \"GPGKeys\"}]}", "Exactly one of keyPath, keyPaths and keyData must be specified, none of them present"),
            ("{\"default\": [{\"type\": \"signedBy\", \"keyType\": \"PGP\", \"keyPath\": \"/k\"}]}", "Unrecognized keyType value \"PGP\""),
            ("{\"default\": [{\"type\": \"sigstoreSigned\"}]}", "exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified"),
            ("{\"default\": [{\"type\": \"sigstoreSigned\", \"keyPaths\": []}]}", "\"keyPaths\" contains no entries"),
            ("{\"default\": [{\"type\": \"sigstoreSigned\", \"fulcio\": {\"caPath\": \"/c\", \"oidcIssuer\": \"i\", \"subjectEmail\": \"e\"}}]}", "At least one of rekorPublickeyPath, rekorPublicKeyPaths, rekorPublickeyData and rekorPublicKeyDatas must be specified if fulcio is used"),
            ("{\"default\": [{\"type\": \"sigstoreSigned\", \"keyPath\": \"/k\", \"signedIdentity\": {\"type\": \"exactRepository\"}}]}", "Key \"dockerRepository\" missing in a JSON object"),
            ("{\"default\": [{\"type\": \"sigstoreSigned\", \"keyPath\": \"/k\", \"signedIdentity\": {\"type\": \"exactReference\", \"dockerReference\": \"a.com/b\"}}]}", "dockerReference \"a.com/b\" contains neither a tag nor digest"),
        ] {
            // serde_json adds the position to syntax-level errors.
            let got = Policy::from_json(text).unwrap_err().to_string();
            assert!(got.starts_with(want), "{text}: {got}");
        }
    // Like Go's json.Decoder, only the first value is read.
    assert!(Policy::from_json("{\"default\": [{\"type\": \"reject\"}]} trailing").is_ok());
}

/// Issue 13: both reads of policy.json (a node's file, the MCO's template)
/// give containers/image's message for an unknown key type.
#[test]
fn issue_13_one_message_for_an_unknown_key_type() {
    let doc = r#"{"default":[{"type":"signedBy","keyType":"PGP","keyPath":"/k"}]}"#;
    let want = "Unrecognized keyType value \"PGP\"";
    assert_eq!(Policy::from_json(doc).unwrap_err().to_string(), want);
    let err = parse_policy("p.json", doc).unwrap_err();
    assert_eq!(err.error.path, "default[0]");
    assert_eq!(err.error.message, want);
}

/// Go's `utf8.DecodeRune` gives size 1 on every byte that does not begin a
/// valid sequence, and encoding/json writes one U+FFFD for each: a truncated
/// sequence is one per byte, an encoded surrogate three.
#[test]
fn invalid_utf8_is_replaced_per_byte_as_go_does() {
    for (bytes, want) in [
        (&b"plain"[..], "plain"),
        (b"caf\xe9", "caf\u{fffd}"),
        (b"\xe2\x82x", "\u{fffd}\u{fffd}x"),
        (b"\xed\xa0\x80", "\u{fffd}\u{fffd}\u{fffd}"),
        (b"\xf0\x9f\x98\x80\xff", "\u{1f600}\u{fffd}"),
        (b"\xc0\xaf", "\u{fffd}\u{fffd}"),
    ] {
        assert_eq!(super::go_lossy_utf8(bytes), want, "{bytes:?}");
    }
}
