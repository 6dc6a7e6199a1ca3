//! Tests of `reference`, beside it rather than inside it.

use super::*;

const F64: &str = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

/// (input, domain, path, tag, digest)
type ParseCase<'a> = (String, &'a str, &'a str, Option<&'a str>, Option<String>);

/// Ported from containers/image docker/reference/reference_test.go
/// `TestReferenceParse`: input → (name, tag, digest), or an error kind.
#[test]
fn reference_parse_upstream_cases() {
    let sha = format!("sha256:{F64}");
    let sha512 = format!("sha512:{F64}{F64}");
    let ok: Vec<ParseCase> = vec![
        ("test_com".into(), "", "test_com", None, None),
        ("test.com:tag".into(), "", "test.com", Some("tag"), None),
        ("test.com:5000".into(), "", "test.com", Some("5000"), None),
        (
            "test.com/repo:tag".into(),
            "test.com",
            "repo",
            Some("tag"),
            None,
        ),
        ("test:5000/repo".into(), "test:5000", "repo", None, None),
        (
            "test:5000/repo:tag".into(),
            "test:5000",
            "repo",
            Some("tag"),
            None,
        ),
        (
            format!("test:5000/repo@{sha}"),
            "test:5000",
            "repo",
            None,
            Some(sha.clone()),
        ),
        (
            format!("test:5000/repo:tag@{sha}"),
            "test:5000",
            "repo",
            Some("tag"),
            Some(sha.clone()),
        ),
        (
            "lowercase:Uppercase".into(),
            "",
            "lowercase",
            Some("Uppercase"),
            None,
        ),
        (
            format!("{}a:tag-puts-this-over-max", "a/".repeat(127)),
            "a",
            "",
            Some("tag-puts-this-over-max"),
            None,
        ),
        (
            "sub-dom1.foo.com/bar/baz/quux".into(),
            "sub-dom1.foo.com",
            "bar/baz/quux",
            None,
            None,
        ),
        (
            "sub-dom1.foo.com/bar/baz/quux:some-long-tag".into(),
            "sub-dom1.foo.com",
            "bar/baz/quux",
            Some("some-long-tag"),
            None,
        ),
        (
            "b.gcr.io/test.example.com/my-app:test.example.com".into(),
            "b.gcr.io",
            "test.example.com/my-app",
            Some("test.example.com"),
            None,
        ),
        (
            "xn--n3h.com/myimage:xn--n3h.com".into(),
            "xn--n3h.com",
            "myimage",
            Some("xn--n3h.com"),
            None,
        ),
        (
            format!("xn--7o8h.com/myimage:xn--7o8h.com@{sha512}"),
            "xn--7o8h.com",
            "myimage",
            Some("xn--7o8h.com"),
            Some(sha512.clone()),
        ),
        (
            "foo_bar.com:8080".into(),
            "",
            "foo_bar.com",
            Some("8080"),
            None,
        ),
        (
            "foo/foo_bar.com:8080".into(),
            "foo",
            "foo_bar.com",
            Some("8080"),
            None,
        ),
        ("192.168.1.1".into(), "", "192.168.1.1", None, None),
        (
            "192.168.1.1:tag".into(),
            "",
            "192.168.1.1",
            Some("tag"),
            None,
        ),
        (
            "192.168.1.1:5000".into(),
            "",
            "192.168.1.1",
            Some("5000"),
            None,
        ),
        ("192.168.1.1/repo".into(), "192.168.1.1", "repo", None, None),
        (
            "192.168.1.1:5000/repo".into(),
            "192.168.1.1:5000",
            "repo",
            None,
            None,
        ),
        (
            "Uppercase/lowercase:tag".into(),
            "Uppercase",
            "lowercase",
            Some("tag"),
            None,
        ),
    ];
    for (input, domain, path, tag, digest) in ok {
        let r = Reference::parse(&input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(r.domain(), domain, "{input}");
        if !path.is_empty() {
            assert_eq!(r.path(), path, "{input}");
        }
        assert_eq!(r.tag(), tag, "{input}");
        assert_eq!(r.digest(), digest.as_deref(), "{input}");
        assert_eq!(r.to_string(), input, "{input} round-trips");
    }
}

fn kind(e: &ReferenceError) -> &'static str {
    match e {
        ReferenceError::NameEmpty => "empty",
        ReferenceError::NameContainsUppercase { .. } => "uppercase",
        ReferenceError::InvalidFormat { .. } => "format",
        ReferenceError::NameTooLong { .. } => "too-long",
        ReferenceError::DigestUnsupported { .. } => "digest-unsupported",
        ReferenceError::DigestInvalidFormat { .. } => "digest-format",
        ReferenceError::DigestInvalidLength { .. } => "digest-length",
        ReferenceError::HexRepository(_) => "hex",
        ReferenceError::NotCanonical { .. } => "not-canonical",
        ReferenceError::TagAndDigest => "tag-and-digest",
    }
}

/// Rejections from reference_test.go `TestReferenceParse`.
#[test]
fn reference_parse_upstream_rejections() {
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "empty"),
        (":justtag".into(), "format"),
        (format!("@sha256:{F64}"), "format"),
        (
            "repo@sha256:ffffffffffffffffffffffffffffffffff".into(),
            "digest-length",
        ),
        (
            format!("validname@invaliddigest:{F64}"),
            "digest-unsupported",
        ),
        ("Uppercase:tag".into(), "uppercase"),
        ("test:5000/Uppercase/lowercase:tag".into(), "uppercase"),
        (format!("{}a:tag", "a/".repeat(128)), "too-long"),
        ("aa/asdf$$^/aa".into(), "format"),
        ("[2001:db8::1]".into(), "format"),
        ("[2001:db8::1]:5000/repo".into(), "format"),
        (format!("foo:{}", "a".repeat(129)), "format"),
        (
            format!("repo@sha256:{}", F64.to_uppercase()),
            "digest-format",
        ),
        (format!("repo@SHA256:{F64}"), "digest-format"),
    ];
    for (input, want) in cases {
        let err = Reference::parse(&input).expect_err(&input);
        assert_eq!(kind(&err), want, "{input}: {err}");
    }
}

/// normalize_test.go `TestValidateReferenceName`, through `ParseNormalizedNamed`.
#[test]
fn validate_reference_name_upstream_cases() {
    for valid in [
        "docker/docker",
        "library/debian",
        "debian",
        "docker.io/docker/docker",
        "docker.io/library/debian",
        "docker.io/debian",
        "index.docker.io/docker/docker",
        "index.docker.io/library/debian",
        "index.docker.io/debian",
        "127.0.0.1:5000/docker/docker",
        "127.0.0.1:5000/library/debian",
        "127.0.0.1:5000/debian",
        "192.168.0.1",
        "192.168.0.1:80",
        "192.168.0.1:8/debian",
        "192.168.0.2:25000/debian",
        "thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev",
        "docker-rules/docker",
        "docker---rules/docker",
        "dock__er/docker",
        "localhost:5000/foo/bar",
    ] {
        assert!(
            Reference::parse_normalized_named(valid).is_ok(),
            "{valid} should be valid"
        );
    }
    for invalid in [
        "https://github.com/docker/docker",
        "docker/Docker",
        "-docker",
        "-docker/docker",
        "-docker.io/docker/docker",
        "docker///docker",
        "docker.io/docker/Docker",
        "docker.io/docker///docker",
        "1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
        "docker/-docker",
        "docker/docker-",
        "dock_-er/docker",
        "do..cker/docker",
        "docker/",
    ] {
        assert!(
            Reference::parse_normalized_named(invalid).is_err(),
            "{invalid} should be invalid"
        );
    }
}

/// normalize_test.go `TestParseRepositoryInfo` and the normalization
/// table of the semantics notes: input → (name, familiar name).
#[test]
fn parse_repository_info_upstream_cases() {
    for (input, name, familiar) in [
        ("fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
        ("library/ubuntu", "docker.io/library/ubuntu", "ubuntu"),
        (
            "nonlibrary/ubuntu",
            "docker.io/nonlibrary/ubuntu",
            "nonlibrary/ubuntu",
        ),
        ("ubuntu", "docker.io/library/ubuntu", "ubuntu"),
        ("other/library", "docker.io/other/library", "other/library"),
        (
            "127.0.0.1:8000/private/moonbase",
            "127.0.0.1:8000/private/moonbase",
            "127.0.0.1:8000/private/moonbase",
        ),
        (
            "127.0.0.1:8000/privatebase",
            "127.0.0.1:8000/privatebase",
            "127.0.0.1:8000/privatebase",
        ),
        (
            "localhost:8000/private/moonbase",
            "localhost:8000/private/moonbase",
            "localhost:8000/private/moonbase",
        ),
        (
            "localhost/privatebase",
            "localhost/privatebase",
            "localhost/privatebase",
        ),
        (
            "example.com/private/moonbase",
            "example.com/private/moonbase",
            "example.com/private/moonbase",
        ),
        (
            "example.com:8000/privatebase",
            "example.com:8000/privatebase",
            "example.com:8000/privatebase",
        ),
        ("docker.io/fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
        ("index.docker.io/fooo/bar", "docker.io/fooo/bar", "fooo/bar"),
        (
            "index.docker.io/library/ubuntu",
            "docker.io/library/ubuntu",
            "ubuntu",
        ),
        (
            "ubuntu-12.04-base",
            "docker.io/library/ubuntu-12.04-base",
            "ubuntu-12.04-base",
        ),
        (
            "docker.io/ubuntu-12.04-base",
            "docker.io/library/ubuntu-12.04-base",
            "ubuntu-12.04-base",
        ),
        // The semantics notes' normalization table.
        ("busybox", "docker.io/library/busybox", "busybox"),
        ("docker.io/busybox", "docker.io/library/busybox", "busybox"),
        (
            "notlocalhost/repo",
            "docker.io/notlocalhost/repo",
            "notlocalhost/repo",
        ),
        ("localhost", "docker.io/library/localhost", "localhost"),
        ("docker.io", "docker.io/library/docker.io", "docker.io"),
        ("Foo.com/bar", "Foo.com/bar", "Foo.com/bar"),
    ] {
        let r = Reference::parse_normalized_named(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(r.name(), name, "{input}");
        assert_eq!(r.familiar_string(), familiar, "{input}");
    }
}

#[test]
fn normalization_edge_cases() {
    let r = Reference::parse_normalized_named("example.com:5000").unwrap();
    assert_eq!(r.name(), "docker.io/library/example.com");
    assert_eq!(r.tag(), Some("5000"));
    let r = Reference::parse_normalized_named(&format!("sha256:{F64}")).unwrap();
    assert_eq!(r.name(), "docker.io/library/sha256");
    assert_eq!(r.tag(), Some(F64));
    assert!(Reference::parse_normalized_named(&"a".repeat(237)).is_ok());
    let err = Reference::parse_normalized_named(&"a".repeat(238)).unwrap_err();
    assert_eq!(kind(&err), "too-long");
    assert!(Reference::parse_normalized_named(&format!("foo:{}", "t".repeat(128))).is_ok());
    let err = Reference::parse_normalized_named("Uppercase/lowercase:tag").unwrap_err();
    assert_eq!(kind(&err), "uppercase");
    let err = Reference::parse_normalized_named(F64).unwrap_err();
    assert_eq!(kind(&err), "hex");
}

#[test]
fn tag_name_only_and_docker_transport() {
    let r = Reference::parse_docker_transport("busybox").unwrap();
    assert_eq!(r.to_string(), "docker.io/library/busybox:latest");
    let d = format!("quay.io/ns/app@sha256:{F64}");
    assert_eq!(
        Reference::parse_docker_transport(&d).unwrap().to_string(),
        d
    );
    let both = format!("quay.io/ns/app:v1@sha256:{F64}");
    assert_eq!(
        kind(&Reference::parse_docker_transport(&both).unwrap_err()),
        "tag-and-digest"
    );
    let r = Reference::parse_normalized_named(&both)
        .unwrap()
        .strip_tag_if_digested();
    assert_eq!(r.to_string(), d);
}

/// reference_test.go `TestParseNamed` / the canonical check of `ParseNamed`.
#[test]
fn parse_named_requires_canonical() {
    assert!(Reference::parse_named("docker.io/library/busybox:latest").is_ok());
    assert!(Reference::parse_named("quay.io/x/y").is_ok());
    for not_canonical in ["busybox", "docker.io/busybox", "index.docker.io/library/x"] {
        let err = Reference::parse_named(not_canonical).unwrap_err();
        assert_eq!(kind(&err), "not-canonical", "{not_canonical}");
    }
}

/// pkg/shortnames shortnames_test.go `TestIsShortName`.
#[test]
fn is_short_name_upstream_cases() {
    for (input, short) in [
        ("busybox", true),
        ("busybox:latest", true),
        ("library/busybox", true),
        ("docker.io/busybox", false),
        ("localhost/busybox", false),
        ("localhost:5000/busybox", false),
        ("quay.io/repo/busybox", false),
        (&format!("busybox@sha256:{F64}"), true),
        (&format!("busybox:tag@sha256:{F64}"), true),
    ] {
        assert_eq!(is_short_name(input).unwrap(), short, "{input}");
    }
    assert!(
        is_short_name("Foo/bar").is_ok(),
        "upper-case domain is a domain"
    );
    assert!(is_short_name("foo//bar").is_err());
}

#[test]
fn errors_say_which_part_is_wrong() {
    for (input, want) in [
        ("quay.io/ns/app:", "the tag after ':' is empty"),
        ("quay.io/ns/app:-v1", "tag \"-v1\""),
        ("quay.io//app", "empty path component"),
        (
            "quay.io/ns/App",
            "path component \"App\" has upper-case letters",
        ),
        ("quay.io/ns/app@sha256:abc", "digest \"sha256:abc\""),
        ("quay.io/ns/app_/x", "path component \"app_\""),
        ("https://quay.io/ns/app", "no URL scheme"),
        ("[::1]:5000/foo", "IPv6"),
        ("bad_host.com:5000/x", "\"bad_host.com:5000\""),
    ] {
        let err = Reference::parse_normalized_named(input)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{input}: {err}");
    }
    let long = format!("foo:{}", "a".repeat(129));
    let err = Reference::parse(&long).unwrap_err().to_string();
    assert!(err.contains("129 characters"), "{err}");
}

#[test]
fn with_tag_and_digest() {
    let r = Reference::parse_normalized_named("quay.io/a/b").unwrap();
    assert_eq!(r.with_tag("v1").unwrap().to_string(), "quay.io/a/b:v1");
    let d = format!("sha256:{F64}");
    assert_eq!(
        r.with_digest(&d).unwrap().to_string(),
        format!("quay.io/a/b@{d}")
    );
    assert!(r.with_tag(".bad").is_err());
    assert!(r.with_digest("sha256:abc").is_err());
}

/// containers/image signature/policy_config_test.go `TestValidateIdentityRemappingPrefix`.
#[test]
fn identity_remapping_prefix_upstream_cases() {
    let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    for s in [
        "localhost",
        "example.com",
        "example.com:80",
        "example.com/repo",
        "example.com/ns1/ns2/ns3/repo.with.dots-dashes_underscores",
        "example.com:80/ns1/ns2/ns3/repo.with.dots-dashes_underscores",
        "shortname",
        "ns/shortname",
    ] {
        assert!(is_valid_identity_remapping_prefix(s), "{s}");
    }
    for s in [
        String::new(),
        "repo_with_underscores".to_string(),
        "example.com/".to_string(),
        "example.com/UPPERCASEISINVALID".to_string(),
        "example.com/repo/".to_string(),
        "example.com/repo:tag".to_string(),
        format!("example.com/repo@{digest}"),
        format!("example.com/repo:tag@{digest}"),
    ] {
        assert!(!is_valid_identity_remapping_prefix(&s), "{s}");
    }
}

#[test]
fn valid_domain() {
    for (d, ok) in [
        ("quay.io", true),
        ("localhost:5000", true),
        ("registry", true),
        ("quay.io/ns", false),
        ("-bad.io", false),
        ("", false),
    ] {
        assert_eq!(is_valid_domain(d), ok, "{d}");
    }
}
