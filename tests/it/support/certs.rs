//! Generated server certificate shapes for 127.0.0.1, each with the roots
//! a client is given and Go's verdict (crypto/x509 as kubectl and
//! containers/image use it): the matrix the TLS tests run against the real
//! kubectl and through the binary.

#![allow(dead_code)]

use base64::Engine;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, SanType,
};

/// What a client should make of a shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    UnknownAuthority,
    WrongName,
    Expired,
    KeyUsage,
    SignatureLimit,
}

/// The class of a TLS error text (Go's words), or `None` for another error.
pub fn verdict_of(text: &str) -> Option<Verdict> {
    [
        ("signed by unknown authority", Verdict::UnknownAuthority),
        ("doesn't contain any IP SANs", Verdict::WrongName),
        ("certificate is valid for", Verdict::WrongName),
        ("legacy Common Name field", Verdict::WrongName),
        ("has expired or is not yet valid", Verdict::Expired),
        ("incompatible key usage", Verdict::KeyUsage),
        (
            "signature check attempts limit reached",
            Verdict::SignatureLimit,
        ),
    ]
    .into_iter()
    .find(|(phrase, _)| text.contains(phrase))
    .map(|(_, v)| v)
}

/// One shape: the chain the server presents (DER, leaf first) with its
/// key, the roots (PEM) the client trusts, and Go's verdict.
pub struct Shape {
    pub name: &'static str,
    pub chain: Vec<Vec<u8>>,
    pub key_pkcs8: Vec<u8>,
    pub roots_pem: String,
    pub go: Verdict,
}

/// PEM of one DER certificate.
pub fn pem(der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = String::from("-----BEGIN CERTIFICATE-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).expect("base64"));
        out.push('\n');
    }
    out.push_str("-----END CERTIFICATE-----\n");
    out
}

/// A CA (self-signed, or signed by `issuer`).
pub fn ca(
    name: &str,
    issuer: Option<&CertifiedIssuer<'static, KeyPair>>,
) -> CertifiedIssuer<'static, KeyPair> {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.distinguished_name.push(DnType::CommonName, name);
    let key = KeyPair::generate().expect("key");
    match issuer {
        Some(issuer) => CertifiedIssuer::signed_by(p, key, issuer).expect("CA"),
        None => CertifiedIssuer::self_signed(p, key).expect("CA"),
    }
}

/// A server certificate for 127.0.0.1 (its DER and PKCS#8 key), changed
/// by `edit`, signed by `issuer` or self-signed.
pub fn server(
    issuer: Option<&CertifiedIssuer<'static, KeyPair>>,
    edit: impl FnOnce(&mut CertificateParams),
) -> (Vec<u8>, Vec<u8>) {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse().expect("ip")));
    p.distinguished_name.push(DnType::CommonName, "127.0.0.1");
    edit(&mut p);
    let key = KeyPair::generate().expect("key");
    let cert = match issuer {
        Some(issuer) => p.signed_by(&key, issuer).expect("certificate"),
        None => p.self_signed(&key).expect("certificate"),
    };
    (cert.der().to_vec(), key.serialize_der())
}

fn as_ca(p: &mut CertificateParams) {
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
}

fn expired(p: &mut CertificateParams) {
    p.not_before = rcgen::date_time_ymd(2001, 1, 1);
    p.not_after = rcgen::date_time_ymd(2002, 1, 1);
}

fn wrong_san(p: &mut CertificateParams) {
    p.subject_alt_names = vec![SanType::DnsName(
        "elsewhere.example".try_into().expect("name"),
    )];
}

/// Every shape, freshly generated.
pub fn shapes() -> Vec<Shape> {
    use Verdict::*;
    let root = ca("root-ca", None);
    let other = ca("unrelated-ca", None);
    let inter = ca("intermediate-ca", Some(&root));
    let (root_pem, other_pem, inter_pem) = (pem(root.der()), pem(other.der()), pem(inter.der()));
    let inter_der = inter.der().to_vec();
    let mut out = Vec::new();
    let mut add =
        |name, (leaf, key): (Vec<u8>, Vec<u8>), extra: Vec<Vec<u8>>, roots: Option<String>, go| {
            let roots_pem = roots.unwrap_or_else(|| pem(&leaf));
            let mut chain = vec![leaf];
            chain.extend(extra);
            out.push(Shape {
                name,
                chain,
                key_pkcs8: key,
                roots_pem,
                go,
            });
        };
    add(
        "CA in the roots",
        server(Some(&root), |_| {}),
        vec![],
        Some(root_pem.clone()),
        Accepted,
    );
    add(
        "CA-signed leaf in the roots",
        server(Some(&root), |_| {}),
        vec![],
        None,
        Accepted,
    );
    add(
        "self-signed CA:TRUE leaf in the roots",
        server(None, as_ca),
        vec![],
        None,
        Accepted,
    );
    add(
        "self-signed leaf in the roots",
        server(None, |_| {}),
        vec![],
        None,
        Accepted,
    );
    add(
        "CA:TRUE leaf signed by the CA in the roots",
        server(Some(&root), as_ca),
        vec![],
        Some(root_pem.clone()),
        Accepted,
    );
    add(
        "self-signed CA:TRUE leaf, unrelated roots",
        server(None, as_ca),
        vec![],
        Some(other_pem.clone()),
        UnknownAuthority,
    );
    add(
        "unrelated CA",
        server(Some(&root), |_| {}),
        vec![],
        Some(other_pem.clone()),
        UnknownAuthority,
    );
    add(
        "wrong SAN, CA in the roots",
        server(Some(&root), wrong_san),
        vec![],
        Some(root_pem.clone()),
        WrongName,
    );
    add(
        "wrong SAN, leaf in the roots",
        server(Some(&root), wrong_san),
        vec![],
        None,
        WrongName,
    );
    add(
        "expired leaf, CA in the roots",
        server(Some(&root), expired),
        vec![],
        Some(root_pem.clone()),
        Expired,
    );
    add(
        "expired leaf in the roots",
        server(Some(&root), expired),
        vec![],
        None,
        Expired,
    );
    add(
        "client-auth-only leaf in the roots",
        server(Some(&root), |p| {
            p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth]
        }),
        vec![],
        None,
        KeyUsage,
    );
    add(
        "intermediate sent, root in the roots",
        server(Some(&inter), |_| {}),
        vec![inter_der.clone()],
        Some(root_pem.clone()),
        Accepted,
    );
    add(
        "intermediate not sent, root in the roots",
        server(Some(&inter), |_| {}),
        vec![],
        Some(root_pem.clone()),
        UnknownAuthority,
    );
    add(
        "intermediate in the roots",
        server(Some(&inter), |_| {}),
        vec![],
        Some(inter_pem),
        Accepted,
    );
    add(
        "CA:TRUE leaf via a sent intermediate",
        server(Some(&inter), as_ca),
        vec![inter_der],
        Some(root_pem),
        Accepted,
    );
    out.extend(same_named_issuers());
    out
}

/// Chains where many sent certificates share the issuer's name: Go tries
/// them in the order of `CertPool.findPotentialParents` and gives up after
/// 100 signature checks.
fn same_named_issuers() -> Vec<Shape> {
    let with_akid = |p: &mut CertificateParams| p.use_authority_key_identifier_extension = true;
    // Go's TestPathologicalChain (crypto/x509 verify_test.go): 99
    // intermediates of one name, each signed by the one before; their
    // names match their issuers', so none has an authority key identifier.
    let root = ca("Root CA", None);
    let mut sent = Vec::new();
    let mut parent = ca("Intermediate CA", Some(&root));
    sent.push(parent.der().to_vec());
    for _ in 2..100 {
        parent = ca("Intermediate CA", Some(&parent));
        sent.push(parent.der().to_vec());
    }
    let (leaf, key) = server(Some(&parent), with_akid);
    let pathological = Shape {
        name: "99 same-named intermediates (Go's TestPathologicalChain)",
        chain: std::iter::once(leaf).chain(sent).collect(),
        key_pkcs8: key,
        roots_pem: pem(root.der()),
        go: Verdict::SignatureLimit,
    };
    // The issuer sent after 100 decoys of its name: its key identifier
    // matches the leaf's authority key identifier, so Go tries it first.
    let root = ca("decoys' root", None);
    let issuer = ca("decoyed intermediate", Some(&root));
    let mut sent: Vec<Vec<u8>> = (0..100)
        .map(|_| ca("decoyed intermediate", Some(&root)).der().to_vec())
        .collect();
    sent.push(issuer.der().to_vec());
    let (leaf, key) = server(Some(&issuer), with_akid);
    let decoyed = Shape {
        name: "the issuer after 100 decoys of its name, matched by key identifier",
        chain: std::iter::once(leaf).chain(sent).collect(),
        key_pkcs8: key,
        roots_pem: pem(root.der()),
        go: Verdict::Accepted,
    };
    // Go's TestLongChain: 14 intermediates of distinct names (webpki
    // alone stops at six).
    let root = ca("long chain root", None);
    let mut sent = Vec::new();
    let mut parent = ca("Intermediate CA #1", Some(&root));
    sent.push(parent.der().to_vec());
    for i in 2..15 {
        parent = ca(&format!("Intermediate CA #{i}"), Some(&parent));
        sent.push(parent.der().to_vec());
    }
    let (leaf, key) = server(Some(&parent), |_| {});
    sent.reverse();
    let long = Shape {
        name: "14 intermediates (Go's TestLongChain)",
        chain: std::iter::once(leaf).chain(sent).collect(),
        key_pkcs8: key,
        roots_pem: pem(root.der()),
        go: Verdict::Accepted,
    };
    vec![pathological, decoyed, long]
}
