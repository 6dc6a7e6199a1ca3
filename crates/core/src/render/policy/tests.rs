//! Tests of `policy`, beside it rather than inside it.

use super::*;
use serde_json::{json, Value};

const RELEASE: &str = "release-reg.io/image/release";
const FULCIO_CA: &str = "dGVzdC1jYS1kYXRhLWRhdGE=";
const REKOR_KEY: &str = "dGVzdC1yZWtvci1rZXktZGF0YQ==";
const KEY: &str = "dGVzdC1rZXktZGF0YQ==";
const CERTS: &str =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJBVEE9Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0=";

/// The template as the upstream unit tests build it (`json.Encoder`: compact, trailing newline).
const COMPACT_TEMPLATE: &str = "{\"default\":[{\"type\":\"insecureAcceptAnything\"}],\"transports\":{\"docker-daemon\":{\"\":[{\"type\":\"insecureAcceptAnything\"}]}}}\n";

fn cip(name: &str, scopes: &[&str], policy: Value) -> ClusterImagePolicy {
    serde_json::from_value(json!({
        "apiVersion": "config.openshift.io/v1",
        "kind": "ClusterImagePolicy",
        "metadata": {"name": name},
        "spec": {"scopes": scopes, "policy": policy},
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn ip(namespace: &str, name: &str, scopes: &[&str], policy: Value) -> ImagePolicy {
    serde_json::from_value(json!({
        "apiVersion": "config.openshift.io/v1",
        "kind": "ImagePolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"scopes": scopes, "policy": policy},
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn remap() -> Value {
    json!({"matchPolicy": "RemapIdentity", "remapIdentity": {"prefix": "test-remap-prefix", "signedPrefix": "test-remap-signed-prefix"}})
}

fn public_key(key: &str) -> Value {
    json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": key}}})
}

/// MCO helpers_test.go `clusterImagePolicyTestCRs`.
fn cluster_crs(name: &str) -> ClusterImagePolicy {
    match name {
            "test-cr0" => cip(
                name,
                &["test0.com"],
                json!({"rootOfTrust": {"policyType": "FulcioCAWithRekor", "fulcioCAWithRekor": {
                    "fulcioCAData": FULCIO_CA, "rekorKeyData": REKOR_KEY,
                    "fulcioSubject": {"oidcIssuer": "https://OIDC.example.com", "signedEmail": "test-user@example.com"}}},
                    "signedIdentity": remap()}),
            ),
            "test-cr1" => cip(
                name,
                &["test0.com", "test1.com"],
                json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": KEY, "rekorKeyData": REKOR_KEY}},
                    "signedIdentity": remap()}),
            ),
            "test-cr2" => cip(
                name,
                &[
                    "a.com/a1/a2",
                    "a.com/a1/a2@sha256:0000000000000000000000000000000000000000000000000000000000000000",
                    "*.example.com",
                    "policy.scope",
                    "foo.example.com/ns/repo",
                ],
                json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": KEY, "rekorKeyData": REKOR_KEY}}}),
            ),
            "test-cr3" => cip(
                name,
                &["test3.com/ns/repo"],
                json!({"rootOfTrust": {"policyType": "PKI", "pki": {
                    "caRootsData": CERTS, "caIntermediatesData": CERTS,
                    "pkiCertificateSubject": {"email": "test-user@example.com", "hostname": "my-host.example.com"}}}}),
            ),
            _ => unreachable!("{name}"),
        }
}

/// MCO helpers_test.go `imagePolicyTestCRs`.
fn namespace_crs(name: &str) -> ImagePolicy {
    match name {
        "test-cr0" => ip(
            "testnamespace",
            name,
            &["test0.com", "test2.com"],
            public_key(KEY),
        ),
        "test-cr3" => ip("test-1-namespace", name, &["test3.com"], public_key(KEY)),
        "test-cr4" => ip(
            "testnamespace",
            name,
            &["test4.com/ns-policy/repo"],
            json!({"rootOfTrust": {"policyType": "PKI", "pki": {
                    "caRootsData": CERTS, "caIntermediatesData": CERTS,
                    "pkiCertificateSubject": {"email": "test-user@example.com", "hostname": "my-host.example.com"}}}}),
        ),
        _ => unreachable!("{name}"),
    }
}

fn fulcio_req() -> Value {
    json!({"type": "sigstoreSigned",
            "fulcio": {"caData": FULCIO_CA, "oidcIssuer": "https://OIDC.example.com", "subjectEmail": "test-user@example.com"},
            "rekorPublicKeyData": REKOR_KEY,
            "signedIdentity": {"type": "remapIdentity", "prefix": "test-remap-prefix", "signedPrefix": "test-remap-signed-prefix"}})
}

fn key_rekor_remap_req() -> Value {
    json!({"type": "sigstoreSigned", "keyData": KEY, "rekorPublicKeyData": REKOR_KEY,
            "signedIdentity": {"type": "remapIdentity", "prefix": "test-remap-prefix", "signedPrefix": "test-remap-signed-prefix"}})
}

fn key_req() -> Value {
    json!({"type": "sigstoreSigned", "keyData": KEY, "signedIdentity": {"type": "matchRepoDigestOrExact"}})
}

fn pki_req() -> Value {
    json!({"type": "sigstoreSigned",
            "pki": {"caRootsData": CERTS, "caIntermediatesData": CERTS, "subjectEmail": "test-user@example.com", "subjectHostname": "my-host.example.com"},
            "signedIdentity": {"type": "matchRepoDigestOrExact"}})
}

fn accept() -> Value {
    json!({"type": "insecureAcceptAnything"})
}

fn reject() -> Value {
    json!({"type": "reject"})
}

/// A policy with `default` and the template's docker-daemon transport,
/// `docker` = `scopes` and `atomic` = the scopes with fewer than 3 slashes.
fn want_policy(default: Value, scopes: Value) -> Value {
    let mut transports = json!({"docker-daemon": {"": [accept()]}});
    if scopes.as_object().is_some_and(|m| !m.is_empty()) {
        let atomic: serde_json::Map<String, Value> = scopes
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.matches('/').count() < 3)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        transports["docker"] = scopes;
        transports["atomic"] = Value::Object(atomic);
    }
    json!({"default": [default], "transports": transports})
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// The sigstore `registries.d` file `cluster` writes beside this render
/// (no registries.conf in these cases).
fn sigstore_of(got: &PolicyRender) -> Option<String> {
    got.policy_json.as_ref()?;
    crate::render::sigstore::generate_sigstore_registries_d(got.scope_policies.scopes(), None)
        .unwrap()
}

fn scopes_of(cips: &[&ClusterImagePolicy], ips: &[&ImagePolicy]) -> ScopePolicies {
    get_valid_scope_policies(cips, ips).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn template_reencodes_as_go_marshal_indent() {
    let policy = Policy::from_json(POLICY_JSON_TEMPLATE).unwrap();
    assert_eq!(
        policy.to_json(),
        r#"{
  "default": [
    {
      "type": "insecureAcceptAnything"
    }
  ],
  "transports": {
    "docker-daemon": {
      "": [
        {
          "type": "insecureAcceptAnything"
        }
      ]
    }
  }
}"#
    );
    assert_eq!(Policy::from_json(COMPACT_TEMPLATE).unwrap(), policy);
}

/// Ported from MCO helpers_test.go `TestUpdatePolicyJSON`.
#[test]
fn upstream_update_policy_json_cases() {
    let cr0 = cluster_crs("test-cr0");
    type Case<'a> = (
        &'a str,
        Option<Vec<String>>,
        Option<Vec<String>>,
        bool,
        Option<Value>,
    );
    let cases: Vec<Case> = vec![
            ("unchanged", None, None, false, None),
            (
                "allowed",
                Some(strings(&["allow.io", "*.allowed-example.com"])),
                None,
                false,
                Some(want_policy(reject(), json!({"allow.io": [accept()], "*.allowed-example.com": [accept()]}))),
            ),
            (
                "blocked",
                None,
                Some(strings(&["block.com", "*.blocked-example.com"])),
                false,
                Some(want_policy(accept(), json!({"block.com": [reject()], "*.blocked-example.com": [reject()]}))),
            ),
            (
                "block payload image",
                Some(strings(&[RELEASE])),
                Some(strings(&["block.com"])),
                false,
                Some(want_policy(accept(), json!({"block.com": [reject()], RELEASE: [accept()]}))),
            ),
            (
                "block registry of payload image",
                Some(strings(&[RELEASE])),
                Some(strings(&["block.com", "release-reg.io"])),
                false,
                Some(want_policy(accept(), json!({"block.com": [reject()], "release-reg.io": [reject()], RELEASE: [accept()]}))),
            ),
            (
                "blocked list and allowed list is set but allowed list doesn't contain the payload repo",
                Some(strings(&["allow.io"])),
                Some(strings(&["block.com", "another-block.io"])),
                false,
                None,
            ),
            (
                "allowed registries: atomic does not allow deep namespaces",
                Some(strings(&["allow.io", "allow.io/namespace1/namespace2", "allowed-example.com/namespace1/namespace2/namespace3"])),
                None,
                false,
                Some(want_policy(reject(), json!({
                    "allow.io": [accept()],
                    "allow.io/namespace1/namespace2": [accept()],
                    "allowed-example.com/namespace1/namespace2/namespace3": [accept()],
                }))),
            ),
            (
                "blocked registries: atomic does not allow deep namespaces",
                None,
                Some(strings(&["block.com", "block.com/namespace1/namespace2", "blocked-example.com/namespace1/namespace2/namespace3"])),
                false,
                Some(want_policy(accept(), json!({
                    "block.com": [reject()],
                    "block.com/namespace1/namespace2": [reject()],
                    "blocked-example.com/namespace1/namespace2/namespace3": [reject()],
                }))),
            ),
            (
                "add ClusterImagePolicy CR to policy json",
                Some(strings(&["allow.io", "test0.com"])),
                None,
                true,
                Some(want_policy(reject(), json!({"allow.io": [accept()], "test0.com": [fulcio_req()]}))),
            ),
        ];
    for (name, allowed, blocked, with_cip, want) in cases {
        let cips: Vec<&ClusterImagePolicy> = if with_cip { vec![&cr0] } else { vec![] };
        let scopes = scopes_of(&cips, &[]);
        let got = update_policy_json(
            COMPACT_TEMPLATE,
            blocked.as_deref(),
            allowed.as_deref(),
            Some(RELEASE),
            &scopes.cluster,
        );
        match (name, got, want) {
                ("unchanged", Ok(text), None) => assert_eq!(text, COMPACT_TEMPLATE, "{name}"),
                (_, Err(e), None) => assert_eq!(
                    e.to_string(),
                    "invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified",
                    "{name}"
                ),
                (_, Ok(text), Some(want)) => {
                    assert_eq!(parse(&text), want, "{name}");
                    // Ensure the generated configuration is valid, as upstream does.
                    Policy::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert!(!text.ends_with('\n'), "{name}");
                }
                (_, got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
    }
}

/// Byte-exact output of `TestUpdatePolicyJSON` "add ClusterImagePolicy CR to policy json".
#[test]
fn cluster_image_policy_policy_json_bytes() {
    let cr0 = cluster_crs("test-cr0");
    let scopes = scopes_of(&[&cr0], &[]);
    let allowed = strings(&["allow.io", "test0.com"]);
    let got = update_policy_json(
        POLICY_JSON_TEMPLATE,
        None,
        Some(&allowed),
        Some(RELEASE),
        &scopes.cluster,
    )
    .unwrap();
    let req = r#"[
        {
          "type": "sigstoreSigned",
          "fulcio": {
            "caData": "dGVzdC1jYS1kYXRhLWRhdGE=",
            "oidcIssuer": "https://OIDC.example.com",
            "subjectEmail": "test-user@example.com"
          },
          "rekorPublicKeyData": "dGVzdC1yZWtvci1rZXktZGF0YQ==",
          "signedIdentity": {
            "type": "remapIdentity",
            "prefix": "test-remap-prefix",
            "signedPrefix": "test-remap-signed-prefix"
          }
        }
      ]"#;
    let accept = r#"[
        {
          "type": "insecureAcceptAnything"
        }
      ]"#;
    let want = format!(
        r#"{{
  "default": [
    {{
      "type": "reject"
    }}
  ],
  "transports": {{
    "atomic": {{
      "allow.io": {accept},
      "test0.com": {req}
    }},
    "docker": {{
      "allow.io": {accept},
      "test0.com": {req}
    }},
    "docker-daemon": {{
      "": {accept}
    }}
  }}
}}"#
    );
    assert_eq!(got, want);
}

/// Ported from MCO helpers_test.go `TestGeneratePolicyJSON`.
#[test]
fn upstream_generate_policy_json() {
    let (cr0, cr3) = (cluster_crs("test-cr0"), cluster_crs("test-cr3"));
    let scopes = scopes_of(&[&cr0, &cr3], &[]);
    let got = update_policy_json(
        COMPACT_TEMPLATE,
        Some(&[]),
        Some(&[]),
        Some(RELEASE),
        &scopes.cluster,
    )
    .unwrap();
    assert_eq!(
        parse(&got),
        want_policy(
            accept(),
            json!({"test0.com": [fulcio_req()], "test3.com/ns/repo": [pki_req()]})
        )
    );
}

/// Ported from MCO helpers_test.go `TestGetValidScopePolicies`.
#[test]
fn upstream_get_valid_scope_policies_cases() {
    let (cr0, cr1) = (cluster_crs("test-cr0"), cluster_crs("test-cr1"));
    let ip0 = namespace_crs("test-cr0");
    let req = |p: &ClusterImagePolicy| policy_item_from_spec(&p.spec.policy).unwrap();
    let ip_req = policy_item_from_spec(&ip0.spec.policy).unwrap();

    // "cluster CRs contain the same scope" (given in reverse: name order decides).
    let got = scopes_of(&[&cr1, &cr0], &[]);
    let flat = |m: &ClusterScopes| -> BTreeMap<String, Vec<Requirement>> {
        m.iter()
            .map(|(s, r)| (s.clone(), r.iter().map(|r| r.requirement.clone()).collect()))
            .collect()
    };
    let want: BTreeMap<String, Vec<Requirement>> = [
        ("test0.com".to_string(), vec![req(&cr0), req(&cr1)]),
        ("test1.com".to_string(), vec![req(&cr1)]),
    ]
    .into_iter()
    .collect();
    assert_eq!(flat(&got.cluster), want);
    assert!(got.namespaced.is_empty());
    assert_eq!(
        got.cluster["test0.com"]
            .iter()
            .map(|r| r.origin.as_str())
            .collect::<Vec<_>>(),
        ["ClusterImagePolicy/test-cr0", "ClusterImagePolicy/test-cr1"]
    );

    // "cluster and namespace CRs contains the same scope": test0.com is dropped.
    let got = scopes_of(&[&cr0, &cr1], &[&ip0]);
    assert_eq!(flat(&got.cluster), want);
    assert_eq!(got.namespaced.keys().collect::<Vec<_>>(), ["test2.com"]);
    assert_eq!(
        got.namespaced["test2.com"]["testnamespace"]
            .iter()
            .map(|r| r.requirement.clone())
            .collect::<Vec<_>>(),
        vec![ip_req]
    );
    assert_eq!(
            got.conflicts,
            vec![ScopeConflict {
                origin: Origin::from("ImagePolicy/testnamespace/test-cr0"),
                namespace: "testnamespace".into(),
                name: "test-cr0".into(),
                scopes: vec!["test0.com".into()],
                message: "has conflicting scope(s) [\"test0.com\"] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied".into(),
            }]
        );
}

#[test]
fn nested_namespace_scopes_conflict_but_wider_ones_do_not() {
    let wide = cip("wide", &["*.example.com", "quay.io/ns"], public_key(KEY));
    let p = ip(
        "team",
        "p",
        &[
            "a.example.com/x",
            "quay.io/ns/app",
            "quay.io",
            "quay.io/other",
        ],
        public_key(KEY),
    );
    let got = scopes_of(&[&wide], &[&p]);
    assert_eq!(
        got.namespaced.keys().collect::<Vec<_>>(),
        ["quay.io", "quay.io/other"]
    );
    assert_eq!(
        got.conflicts[0].scopes,
        ["a.example.com/x", "quay.io/ns/app"]
    );
    assert!(got.conflicts[0]
        .message
        .starts_with("has conflicting scope(s) [\"a.example.com/x\" \"quay.io/ns/app\"] that"));
}

/// Ported from MCO helpers_test.go `TestValidateClusterImagePolicyWithAllowedBlockedRegistries`.
#[test]
fn upstream_validate_cluster_image_policy_with_allowed_blocked_registries() {
    fn cluster(scopes: &[&str]) -> ClusterScopes {
        scopes.iter().map(|s| (s.to_string(), vec![])).collect()
    }
    fn namespaced(scopes: &[&str]) -> NamespacedScopes {
        scopes
            .iter()
            .map(|s| (s.to_string(), BTreeMap::new()))
            .collect()
    }
    type Case<'a> = (
        &'a str,
        &'a [&'a str],
        &'a [&'a str],
        &'a [&'a str],
        &'a [&'a str],
        Option<&'a str>,
    );
    let cases: Vec<Case> = vec![
            ("allowed and blocked registries are not set", &[], &[], &["example.com", "test.registries.com"], &["exaple.app.com", "testapp.registries.com"], None),
            ("success test allowed registries set", &["example.com", "allowed.io/namespace1"], &[], &["allowed.io/namespace1/policysigned", "example.com"], &["allowed.io/namespace1/app/policysigned"], None),
            ("failure test allowed registries set", &["allowed.io/namespace1/namespace2"], &[], &["allowed.io/policysigned"], &[], Some("clusterimagePolicy configured for the scope allowed.io/policysigned is not nested inside allowedRegistries")),
            ("success test blocked registries set", &[], &["blocked.io/namespace1/namespace2", "blocked.example.com/namespace1/namespace2"], &["allowed.io/policysigned", "blocked.io"], &["allowed.io/namespace1/app/policysigned", "blocked.example.com/app/policysigned"], None),
            ("failure test blocked registries set", &[], &["blocked.io", "blocker-reg.com/namespace1"], &["blocker-reg.com/namespace1/policysigned", "blocked.io"], &[], Some("clusterimagePolicy configured for the scope blocked.io is nested inside blockedRegistries")),
            ("imagepolicy failure test allowed registries set", &["allowed.io/namespace1/namespace2"], &[], &[], &["allowed.io/app/policysigned"], Some("imagePolicy configured for the scope allowed.io/app/policysigned is not nested inside allowedRegistries")),
            ("imagepolicy failure test blocked registries set", &[], &["blocked.io", "blocker-reg.com/namespace1"], &[], &["blocker-reg.com/namespace1/policysigned", "blocked.io"], Some("imagePolicy configured for the scope blocked.io is nested inside blockedRegistries")),
        ];
    for (name, allowed, blocked, c, n, want) in cases {
        let got = validate_image_policy_with_allowed_blocked(
            Some(&cluster(c)),
            Some(&namespaced(n)),
            &strings(allowed),
            &strings(blocked),
        );
        assert_eq!(got.err().map(|e| e.to_string()).as_deref(), want, "{name}");
    }
}

/// Ported from MCO helpers_test.go `TestUpdateNamespacedPolicyJSONs`.
#[test]
fn upstream_update_namespaced_policy_jsons() {
    let none =
        update_namespaced_policy_jsons(COMPACT_TEMPLATE, None, None, &BTreeMap::new()).unwrap();
    assert!(none.is_empty());

    let (cr0, cr1) = (cluster_crs("test-cr0"), cluster_crs("test-cr1"));
    let (ip0, ip3, ip4) = (
        namespace_crs("test-cr0"),
        namespace_crs("test-cr3"),
        namespace_crs("test-cr4"),
    );
    let scopes = scopes_of(&[&cr0, &cr1], &[&ip0, &ip3, &ip4]);
    let cluster_policy = update_policy_json(
        COMPACT_TEMPLATE,
        Some(&[]),
        Some(&[]),
        Some(RELEASE),
        &scopes.cluster,
    )
    .unwrap();
    let cluster_scopes = json!({
        "test0.com": [fulcio_req(), key_rekor_remap_req()],
        "test1.com": [key_rekor_remap_req()],
    });
    assert_eq!(
        parse(&cluster_policy),
        want_policy(accept(), cluster_scopes.clone())
    );

    let got =
        update_namespaced_policy_jsons(&cluster_policy, None, None, &scopes.namespaced).unwrap();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        ["test-1-namespace", "testnamespace"]
    );
    let with = |extra: Value| {
        let mut scopes = cluster_scopes.clone();
        for (k, v) in extra.as_object().unwrap() {
            scopes[k] = v.clone();
        }
        want_policy(accept(), scopes)
    };
    assert_eq!(
        parse(&got["testnamespace"]),
        with(json!({"test2.com": [key_req()], "test4.com/ns-policy/repo": [pki_req()]}))
    );
    assert_eq!(
        parse(&got["test-1-namespace"]),
        with(json!({"test3.com": [key_req()]}))
    );
}

#[test]
fn namespace_requirements_append_to_allowed_scopes() {
    let p = ip("team", "p", &["allow.io/app"], public_key(KEY));
    let scopes = scopes_of(&[], &[&p]);
    let allowed = strings(&["allow.io", "allow.io/app"]);
    let cluster = update_policy_json(
        COMPACT_TEMPLATE,
        None,
        Some(&allowed),
        None,
        &scopes.cluster,
    )
    .unwrap();
    let got =
        update_namespaced_policy_jsons(&cluster, None, Some(&allowed), &scopes.namespaced).unwrap();
    assert_eq!(
        parse(&got["team"]),
        want_policy(
            reject(),
            json!({"allow.io": [accept()], "allow.io/app": [accept(), key_req()]})
        )
    );
    let err = update_namespaced_policy_jsons(
        &cluster,
        None,
        Some(&strings(&["other.io"])),
        &scopes.namespaced,
    )
    .unwrap_err();
    assert_eq!(
            err.to_string(),
            "ImagePolicy/team/p: imagePolicy configured for the scope allow.io/app is not nested inside allowedRegistries"
        );
}

#[test]
fn only_namespace_policies_keep_the_template_text() {
    let p = ip("team", "p", &["quay.io/a/b/c"], public_key(KEY));
    let got = render_policies(POLICY_JSON_TEMPLATE, None, None, None, &[], &[&p]).unwrap();
    assert_eq!(got.policy_json.as_deref(), Some(POLICY_JSON_TEMPLATE));
    // A deep scope is left out of atomic, which the MCO still creates.
    assert_eq!(
        got.namespaced["team"],
        r#"{
  "default": [
    {
      "type": "insecureAcceptAnything"
    }
  ],
  "transports": {
    "atomic": {},
    "docker": {
      "quay.io/a/b/c": [
        {
          "type": "sigstoreSigned",
          "keyData": "dGVzdC1rZXktZGF0YQ==",
          "signedIdentity": {
            "type": "matchRepoDigestOrExact"
          }
        }
      ]
    },
    "docker-daemon": {
      "": [
        {
          "type": "insecureAcceptAnything"
        }
      ]
    }
  }
}"#
    );
    assert_eq!(
        sigstore_of(&got).as_deref(),
        Some("docker:\n  quay.io/a/b/c:\n    use-sigstore-attachments: true\n")
    );
}

#[test]
fn render_conditions_follow_go_nil_checks() {
    let nothing =
        render_policies(POLICY_JSON_TEMPLATE, None, None, Some(RELEASE), &[], &[]).unwrap();
    assert_eq!(nothing, PolicyRender::default());

    // An empty but present list re-encodes the template.
    let empty = render_policies(
        POLICY_JSON_TEMPLATE,
        Some(&[]),
        None,
        Some(RELEASE),
        &[],
        &[],
    )
    .unwrap();
    let reencoded = Policy::from_json(POLICY_JSON_TEMPLATE).unwrap().to_json();
    assert_eq!(empty.policy_json, Some(reencoded));
    assert!(empty.namespaced.is_empty());
    assert_eq!(sigstore_of(&empty), None);
}

#[test]
fn render_warns_about_scope_conflicts() {
    let (cr0, ip0) = (cluster_crs("test-cr0"), namespace_crs("test-cr0"));
    let got = render_policies(
        POLICY_JSON_TEMPLATE,
        None,
        None,
        Some(RELEASE),
        &[&cr0],
        &[&ip0],
    )
    .unwrap();
    assert_eq!(
            got.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["ImagePolicy/testnamespace/test-cr0: has conflicting scope(s) [\"test0.com\"] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied"]
        );
    assert_eq!(got.namespaced.keys().collect::<Vec<_>>(), ["testnamespace"]);
    assert_eq!(
            sigstore_of(&got).as_deref(),
            Some("docker:\n  test0.com:\n    use-sigstore-attachments: true\n  test2.com:\n    use-sigstore-attachments: true\n")
        );
}

#[test]
fn update_policy_json_errors() {
    let none = BTreeMap::new();
    let err = |blocked: &[&str], allowed: &[&str], release: Option<&str>| {
        update_policy_json(
            POLICY_JSON_TEMPLATE,
            Some(&strings(blocked)),
            Some(&strings(allowed)),
            release,
            &none,
        )
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        err(&["*.a/b"], &[], Some(RELEASE)),
        "invalid entry for blocked registries \"*.a/b\""
    );
    assert_eq!(
        err(&[], &["a.com", "**.b"], Some(RELEASE)),
        "invalid entry for allowed registries \"**.b\""
    );
    assert_eq!(
        err(&["b.com"], &[RELEASE], Some("not a reference!")),
        "error parsing reference of release image"
    );
    // issue 28: no release image (no ClusterVersion): the fault is that both
    // lists are set, not a reference that does not parse.
    assert_eq!(
        err(&["b.com"], &[RELEASE], None),
        "invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified"
    );
    // Only the payload repository may be allowed next to blocked registries.
    assert_eq!(
            err(&["b.com"], &[RELEASE, "c.com"], Some(RELEASE)),
            "invalid images config: only one of AllowedRegistries or BlockedRegistries may be specified"
        );
    let blocked_scope = cip("signed", &["b.com/app"], public_key(KEY));
    let scopes = scopes_of(&[&blocked_scope], &[]);
    let e = update_policy_json(
        POLICY_JSON_TEMPLATE,
        Some(&strings(&["b.com"])),
        None,
        Some(RELEASE),
        &scopes.cluster,
    )
    .unwrap_err();
    assert_eq!(
            e.to_string(),
            "ClusterImagePolicy/signed: clusterimagePolicy configured for the scope b.com/app is nested inside blockedRegistries"
        );
    assert!(matches!(e, RenderError::NestedInBlocked { .. }));
    let bad = update_policy_json("{\"default\": []}", Some(&[]), None, None, &none).unwrap_err();
    assert_eq!(
        bad.to_string(),
        "error decoding policy json: List of verification policy requirements must not be empty"
    );
}

#[test]
fn allowed_scope_with_cluster_policy_replaces_accept_and_html_is_escaped() {
    let signed = cip("signed", &["example.com"], public_key(KEY));
    let scopes = scopes_of(&[&signed], &[]);
    let allowed = strings(&["example.com", "a&b.com"]);
    let got = update_policy_json(
        POLICY_JSON_TEMPLATE,
        None,
        Some(&allowed),
        None,
        &scopes.cluster,
    )
    .unwrap();
    assert_eq!(
        parse(&got),
        want_policy(
            reject(),
            json!({"example.com": [key_req()], "a&b.com": [accept()]})
        )
    );
    assert!(got.contains("\"a\\u0026b.com\": ["), "{got}");
}

#[test]
fn policy_item_from_spec_checks() {
    let check = |policy: Value| -> Result<Value, String> {
        let p: ImageSigstoreVerificationPolicy = serde_json::from_value(policy).unwrap();
        policy_item_from_spec(&p).map(|r| {
            let text = Policy {
                default: vec![r],
                transports: BTreeMap::new(),
            }
            .to_json();
            parse(&text)["default"][0].clone()
        })
    };
    let with_identity = |identity: Value| {
        let mut p = public_key(KEY);
        p["signedIdentity"] = identity;
        check(p)
    };
    for (prefix, ok) in [
        ("test-remap-prefix", true),
        ("example.com", true),
        ("example.com:5000", true),
        ("example.com/ns/repo", true),
        ("localhost/ns", true),
        ("ns/repo", true),
        ("repo", true),
        ("example.com/NS", false),
        ("example.com/ns:tag", false),
        ("example.com/", false),
        ("*.example.com", false),
        ("", false),
    ] {
        let got = with_identity(json!({"matchPolicy": "RemapIdentity",
                "remapIdentity": {"prefix": prefix, "signedPrefix": "mirror.example.com"}}));
        match ok {
                true => assert!(got.is_ok(), "{prefix}: {got:?}"),
                false => assert_eq!(
                    got.unwrap_err(),
                    format!("error getting signedIdentity for RemapIdentity: prefix \"{prefix}\" is not valid"),
                ),
            }
    }
    assert_eq!(
        with_identity(json!({"matchPolicy": "RemapIdentity",
                "remapIdentity": {"prefix": "example.com", "signedPrefix": "bad prefix"}}))
        .unwrap_err(),
        "error getting signedIdentity for RemapIdentity: prefix \"bad prefix\" is not valid"
    );
    assert_eq!(
            with_identity(json!({"matchPolicy": "ExactRepository", "exactRepository": {"repository": "example.com/ns/repo"}}))
                .unwrap()["signedIdentity"],
            json!({"type": "exactRepository", "dockerRepository": "example.com/ns/repo"})
        );
    assert!(with_identity(json!({"matchPolicy": "ExactRepository", "exactRepository": {"repository": "Example/Repo"}}))
            .unwrap_err()
            .starts_with("error getting signedIdentity for ExactRepository: Invalid format of dockerRepository \"Example/Repo\": "));
    assert_eq!(
        with_identity(json!({"matchPolicy": "MatchRepository"})).unwrap()["signedIdentity"],
        json!({"type": "matchRepository"})
    );
    assert_eq!(
        with_identity(json!({"matchPolicy": "Other"})).unwrap_err(),
        "unknown signedIdentity match policy: Other"
    );
    assert_eq!(
        check(json!({"rootOfTrust": {"policyType": "GPG"}})).unwrap_err(),
        "exactly one of keyPath, keyPaths, keyData, keyDatas, fulcio, and pki must be specified"
    );
    assert_eq!(
            check(json!({"rootOfTrust": {"policyType": "PKI", "pki": {"caRootsData": CERTS, "pkiCertificateSubject": {}}}}))
                .unwrap_err(),
            "At least one of subjectEmail, subjectHostname must be specified"
        );
    assert_eq!(
        check(
            json!({"rootOfTrust": {"policyType": "FulcioCAWithRekor", "fulcioCAWithRekor": {
                "fulcioCAData": FULCIO_CA, "rekorKeyData": REKOR_KEY,
                "fulcioSubject": {"oidcIssuer": "https://o", "signedEmail": ""}}}})
        )
        .unwrap_err(),
        "subjectEmail not specified"
    );
    // An empty Rekor key is left out; a key with line breaks is written canonically.
    assert_eq!(
            check(json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": "dGVzdC1r\nZXktZGF0YQ==", "rekorKeyData": ""}}}))
                .unwrap(),
            key_req()
        );
    // Only the hostname: no subjectEmail, no intermediates.
    assert_eq!(
            check(json!({"rootOfTrust": {"policyType": "PKI", "pki": {"caRootsData": CERTS, "pkiCertificateSubject": {"hostname": "h.example.com"}}}}))
                .unwrap(),
            json!({"type": "sigstoreSigned", "pki": {"caRootsData": CERTS, "subjectHostname": "h.example.com"},
                "signedIdentity": {"type": "matchRepoDigestOrExact"}})
        );
    assert!(check(
        json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": "not base64!"}}})
    )
    .unwrap_err()
    .starts_with("publicKey.keyData: illegal base64 data"));
}

#[test]
fn invalid_policy_fails_the_render_naming_the_object() {
    let bad = cip(
        "bad",
        &["a.com"],
        json!({"rootOfTrust": {"policyType": "PublicKey", "publicKey": {"keyData": KEY}},
            "signedIdentity": {"matchPolicy": "RemapIdentity", "remapIdentity": {"prefix": "a.com/", "signedPrefix": "b.com"}}}),
    );
    let err = render_policies(POLICY_JSON_TEMPLATE, None, None, None, &[&bad], &[]).unwrap_err();
    assert_eq!(
            err.to_string(),
            "ClusterImagePolicy/bad: error getting signedIdentity for RemapIdentity: prefix \"a.com/\" is not valid"
        );
}

/// release-4.16 helpers_test.go `TestGetValidScopePolicies`: the MCO of
/// 4.16 skips a ClusterImagePolicy scope holding the payload repository
/// ("clusterimagepolicy CRs has scope has super scope of release image");
/// release-4.17's same test keeps every scope.
#[test]
fn upstream_4_16_get_valid_scope_policies_skips_payload_scopes() {
    let (cr0, cr1) = (cluster_crs("test-cr0"), cluster_crs("test-cr1"));
    let render = |minor: u32, release: &str| {
        let lists = PolicyLists {
            release_image: Some(release),
            ..Default::default()
        };
        let profile = McoProfile::for_minor(Some(minor));
        render_policies_as(COMPACT_TEMPLATE, lists, &[&cr0, &cr1], &[], &profile).unwrap()
    };
    let keys = |got: &PolicyRender| -> Vec<String> {
        got.scope_policies.cluster.keys().cloned().collect()
    };
    // "cluster CRs contain the same scope": test0.com has both requirements, cr0's first.
    let got = render(16, "release-reg.io/image/release");
    assert_eq!(keys(&got), ["test0.com", "test1.com"]);
    let test0: Vec<String> = got.scope_policies.cluster["test0.com"]
        .iter()
        .map(|r| r.origin.to_string())
        .collect();
    assert_eq!(
        test0,
        ["ClusterImagePolicy/test-cr0", "ClusterImagePolicy/test-cr1"]
    );
    assert!(got.warnings.is_empty(), "{:?}", got.warnings);

    let got = render(16, "test1.com/image/release");
    assert_eq!(keys(&got), ["test0.com"]);
    assert_eq!(
        got.warnings.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
        ["ClusterImagePolicy/test-cr1: has conflict scope(s) [\"test1.com\"] of Openshift payload repository test1.com/image/release, skip the scope(s)"]
    );
    let policy = got.policy_json.unwrap();
    assert!(!policy.contains("test1.com"), "{policy}");
    assert_eq!(
        sigstore_of(&render(16, "test1.com/image/release")).as_deref(),
        Some("docker:\n  test0.com:\n    use-sigstore-attachments: true\n")
    );

    for minor in [17, 18, 22] {
        let got = render(minor, "test1.com/image/release");
        assert_eq!(keys(&got), ["test0.com", "test1.com"], "4.{minor}");
        assert!(got.warnings.is_empty(), "4.{minor}");
    }
    // An unparsable release image fails the 4.16 sync (`errParsingReference`).
    let lists = PolicyLists {
        release_image: Some("Not A Reference"),
        ..Default::default()
    };
    let profile = McoProfile::for_minor(Some(16));
    assert_eq!(
        render_policies_as(COMPACT_TEMPLATE, lists, &[&cr0], &[], &profile),
        Err(RenderError::ParsingReleaseImage)
    );
}
