//! The verifier over generated certificate shapes, each with Go's verdict
//! (`crypto/x509` `Certificate.Verify` as crypto/tls calls it). The same
//! shapes are checked against the real kubectl in tests/it/cli_cluster.rs.

use super::*;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, SanType,
};

struct Made {
    der: CertificateDer<'static>,
}

fn ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(p, KeyPair::generate().unwrap()).unwrap()
}

fn intermediate(
    name: &str,
    issuer: &CertifiedIssuer<'static, KeyPair>,
) -> CertifiedIssuer<'static, KeyPair> {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::signed_by(p, KeyPair::generate().unwrap(), issuer).unwrap()
}

/// A leaf for 127.0.0.1; `edit` changes its parameters.
fn leaf(
    issuer: Option<&CertifiedIssuer<'static, KeyPair>>,
    edit: impl FnOnce(&mut CertificateParams),
) -> Made {
    let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
    p.subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse().unwrap()));
    p.distinguished_name.push(DnType::CommonName, "127.0.0.1");
    edit(&mut p);
    let key = KeyPair::generate().unwrap();
    let cert = match issuer {
        Some(issuer) => p.signed_by(&key, issuer).unwrap(),
        None => p.self_signed(&key).unwrap(),
    };
    Made {
        der: cert.der().clone(),
    }
}

fn trust(certs: &[&CertificateDer<'static>]) -> Trust {
    let mut t = Trust::default();
    t.add(
        "the test roots",
        certs.iter().map(|c| (*c).clone()).collect(),
    );
    t
}

fn verify(trust: &Trust, chain: &[&CertificateDer<'static>], host: &str) -> Result<(), String> {
    let verifier = GoVerifier::new(trust, provider());
    let name = ServerName::try_from(host.to_string()).unwrap();
    let intermediates: Vec<CertificateDer<'static>> =
        chain[1..].iter().map(|c| (*c).clone()).collect();
    verifier
        .verify_server_cert(chain[0], &intermediates, &name, &[], UnixTime::now())
        .map(|_| ())
        .map_err(|e| describe(&e))
}

fn expired(p: &mut CertificateParams) {
    p.not_before = rcgen::date_time_ymd(2001, 1, 1);
    p.not_after = rcgen::date_time_ymd(2002, 1, 1);
}

#[test]
fn go_verdicts_over_certificate_shapes() {
    let root = ca("root-ca");
    let other = ca("unrelated-ca");
    let inter = intermediate("intermediate-ca", &root);
    let signed = leaf(Some(&root), |_| {});
    let self_signed_ca = leaf(None, |p| {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained)
    });
    let ca_leaf_signed = leaf(Some(&root), |p| {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained)
    });
    let via_inter = leaf(Some(&inter), |_| {});
    let ca_leaf_via_inter = leaf(Some(&inter), |p| {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained)
    });
    let wrong_san = leaf(Some(&root), |p| {
        p.subject_alt_names = vec![SanType::DnsName("elsewhere.example".try_into().unwrap())]
    });
    let cn_only = leaf(Some(&root), |p| p.subject_alt_names.clear());
    let old = leaf(Some(&root), expired);
    let old_self = leaf(None, expired);
    let client_only = leaf(Some(&root), |p| {
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth]
    });
    let (root_der, other_der, inter_der) = (root.der(), other.der(), inter.der());
    let ok = "ok";
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<&CertificateDer<'static>>, Vec<&CertificateDer<'static>>, &str)> = vec![
        ("CA in pool", vec![root_der], vec![&signed.der], ok),
        ("leaf in pool", vec![&signed.der], vec![&signed.der], ok),
        ("leaf in pool, chain sent", vec![&signed.der], vec![&signed.der, root_der], ok),
        ("self-signed CA:TRUE leaf in pool", vec![&self_signed_ca.der], vec![&self_signed_ca.der], ok),
        ("self-signed CA:TRUE leaf, other pool", vec![other_der], vec![&self_signed_ca.der], "signed by unknown authority"),
        ("CA:TRUE leaf signed by CA in pool", vec![root_der], vec![&ca_leaf_signed.der], ok),
        ("CA:TRUE leaf via intermediate", vec![root_der], vec![&ca_leaf_via_inter.der, inter_der], ok),
        ("CA:TRUE leaf, intermediate not sent", vec![root_der], vec![&ca_leaf_via_inter.der], "signed by unknown authority"),
        ("CA:TRUE leaf signed by CA, unrelated pool", vec![other_der], vec![&ca_leaf_signed.der], "signed by unknown authority"),
        ("unrelated CA", vec![other_der], vec![&signed.der], "signed by unknown authority"),
        ("intermediate sent", vec![root_der], vec![&via_inter.der, inter_der], ok),
        ("intermediate not sent", vec![root_der], vec![&via_inter.der], "signed by unknown authority"),
        ("intermediate as the root", vec![inter_der], vec![&via_inter.der], ok),
        ("wrong SAN, leaf in pool", vec![&wrong_san.der], vec![&wrong_san.der], "because it doesn't contain any IP SANs"),
        ("wrong SAN, CA in pool", vec![root_der], vec![&wrong_san.der], "because it doesn't contain any IP SANs"),
        ("expired leaf in pool", vec![&old.der], vec![&old.der], "has expired or is not yet valid: current time"),
        ("expired self-signed in pool", vec![&old_self.der], vec![&old_self.der], "has expired or is not yet valid"),
        ("expired leaf, CA in pool", vec![root_der], vec![&old.der], "has expired or is not yet valid"),
        ("client-auth-only leaf in pool", vec![&client_only.der], vec![&client_only.der], "incompatible key usage"),
        ("no pool at all", vec![], vec![&signed.der], "signed by unknown authority"),
    ];
    for (name, pool, chain, want) in cases {
        let got = verify(&trust(&pool), &chain, "127.0.0.1");
        match (got, want) {
            (Ok(()), "ok") => {}
            (Err(e), w) if w != "ok" && e.contains(w) => {
                assert!(
                    e.starts_with("tls: failed to verify certificate: x509: "),
                    "{name}: {e}"
                );
            }
            (got, w) => panic!("{name}: got {got:?}, want {w}"),
        }
    }
    // No SAN, the address only in the common name: Go's own words.
    let e = verify(&trust(&[root_der]), &[&cn_only.der], "127.0.0.1").unwrap_err();
    assert!(
        e.ends_with("relies on legacy Common Name field, use SANs instead"),
        "{e}"
    );
}

#[test]
fn dns_names_and_the_legacy_common_name() {
    let root = ca("root-ca");
    let named = leaf(Some(&root), |p| {
        p.subject_alt_names = vec![SanType::DnsName("*.apps.example.com".try_into().unwrap())]
    });
    let t = trust(&[root.der()]);
    assert!(verify(&t, &[&named.der], "route.apps.example.com").is_ok());
    let e = verify(&t, &[&named.der], "apps.example.com").unwrap_err();
    assert!(
        e.ends_with("x509: certificate is valid for *.apps.example.com, not apps.example.com"),
        "{e}"
    );
    let cn_only = leaf(Some(&root), |p| {
        p.subject_alt_names.clear();
        p.distinguished_name
            .push(DnType::CommonName, "registry.example.com");
    });
    let e = verify(&t, &[&cn_only.der], "registry.example.com").unwrap_err();
    assert!(
        e.ends_with("x509: certificate relies on legacy Common Name field, use SANs instead"),
        "{e}"
    );
}

#[test]
fn refusals_name_the_roots_tried() {
    let root = ca("root-ca");
    let other = ca("unrelated-ca");
    let signed = leaf(Some(&root), |_| {});
    let mut t = trust(&[other.der()]);
    t.add("--hub-ca hub.crt", vec![other.der().clone()]);
    let e = verify(&t, &[&signed.der], "127.0.0.1").unwrap_err();
    assert_eq!(
        e,
        "tls: failed to verify certificate: x509: certificate signed by unknown authority (roots tried: the test roots (CN=unrelated-ca); --hub-ca hub.crt (CN=unrelated-ca))"
    );
}

#[test]
fn the_error_is_found_through_io_errors() {
    let inner = refuse("x509: test".to_string());
    let io = std::io::Error::other(inner);
    let found = find_error(&io).expect("found");
    assert_eq!(
        describe(found),
        "tls: failed to verify certificate: x509: test"
    );
}

// Go's UnknownAuthorityError names the candidate whose signature failed:
// a pool holding another self-signed certificate of the same subject.
#[test]
fn a_same_named_stranger_is_the_hint() {
    let served = leaf(None, |p| {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained)
    });
    let stranger = leaf(None, |p| {
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained)
    });
    let e = verify(&trust(&[&stranger.der]), &[&served.der], "127.0.0.1").unwrap_err();
    assert!(
        e.contains("x509: certificate signed by unknown authority (possibly because of \"x509: ECDSA verification failure\" while trying to verify candidate authority certificate \"127.0.0.1\")"),
        "{e}"
    );
}
