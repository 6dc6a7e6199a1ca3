//! Certificates assembled here, element by element, so that each row
//! names the one thing it changes; the fields Go's rules read are checked
//! one by one.

use super::*;

/// Days since 1970-01-01 of a date.
fn days_from_civil(year: i16, month: i8, day: i8) -> i64 {
    jiff::tz::Offset::UTC
        .to_timestamp(
            jiff::civil::date(year, month, day).to_datetime(jiff::civil::Time::midnight()),
        )
        .unwrap()
        .as_second()
        / 86_400
}

/// One DER element (lengths up to 65535).
fn tlv(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    let contents = parts.concat();
    let n = contents.len();
    let mut out = vec![tag];
    if n < 0x80 {
        out.push(n as u8);
    } else if n < 0x100 {
        out.extend([0x81, n as u8]);
    } else {
        out.extend([0x82, (n >> 8) as u8, n as u8]);
    }
    out.extend(contents);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, parts)
}

const OID_CN: &[u8] = &[0x55, 0x04, 0x03];
const OID_ORGANIZATION: &[u8] = &[0x55, 0x04, 0x0a];
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];

/// A Name of one attribute per RDN.
fn name(attributes: &[(&[u8], &str)]) -> Vec<u8> {
    let rdns: Vec<Vec<u8>> = attributes
        .iter()
        .map(|(oid, value)| {
            let atv = seq(&[&tlv(0x06, &[oid]), &tlv(0x0c, &[value.as_bytes()])]);
            tlv(0x31, &[&atv])
        })
        .collect();
    seq(&rdns.iter().map(Vec::as_slice).collect::<Vec<_>>())
}

fn extension(oid: &[u8], critical: bool, value: &[u8]) -> Vec<u8> {
    let critical = if critical {
        tlv(0x01, &[&[0xff]])
    } else {
        Vec::new()
    };
    seq(&[&tlv(0x06, &[oid]), &critical, &tlv(0x04, &[value])])
}

fn id_ce(n: u8) -> Vec<u8> {
    vec![0x55, 0x1d, n]
}

/// The parts a test changes; the rest is fixed.
struct Parts {
    version: Option<u8>,
    issuer: Vec<u8>,
    subject: Vec<u8>,
    validity: Vec<u8>,
    extensions: Vec<Vec<u8>>,
    signature: Vec<u8>,
}

impl Default for Parts {
    fn default() -> Self {
        Parts {
            version: Some(2),
            issuer: name(&[(OID_CN, "issuer")]),
            subject: name(&[(OID_CN, "subject")]),
            validity: seq(&[
                &tlv(0x17, &[b"250101000000Z"]),
                &tlv(0x18, &[b"20500101120000Z"]),
            ]),
            extensions: Vec::new(),
            signature: tlv(0x03, &[&[0], &[0xaa; 64]]),
        }
    }
}

const KEY: [u8; 32] = [0x11; 32];

fn algorithm() -> Vec<u8> {
    seq(&[&tlv(0x06, &[OID_ED25519])])
}

fn spki() -> Vec<u8> {
    seq(&[&algorithm(), &tlv(0x03, &[&[0], &KEY])])
}

impl Parts {
    fn tbs(&self) -> Vec<u8> {
        let version = match self.version {
            Some(v) => tlv(0xa0, &[&tlv(0x02, &[&[v]])]),
            None => Vec::new(),
        };
        let extensions = if self.extensions.is_empty() {
            Vec::new()
        } else {
            let list: Vec<&[u8]> = self.extensions.iter().map(Vec::as_slice).collect();
            tlv(0xa3, &[&seq(&list)])
        };
        seq(&[
            &version,
            &tlv(0x02, &[&[0x01]]),
            &algorithm(),
            &self.issuer,
            &self.validity,
            &self.subject,
            &spki(),
            &extensions,
        ])
    }

    fn der(&self) -> Vec<u8> {
        seq(&[&self.tbs(), &algorithm(), &self.signature])
    }
}

fn with_extensions(extensions: Vec<Vec<u8>>) -> Vec<u8> {
    Parts {
        extensions,
        ..Parts::default()
    }
    .der()
}

#[test]
fn fields_go_reads() {
    let parts = Parts {
        subject: name(&[
            (OID_ORGANIZATION, "Example"),
            (OID_CN, "first"),
            (OID_CN, "last"),
        ]),
        extensions: vec![
            extension(
                &id_ce(19),
                true,
                &seq(&[&tlv(0x01, &[&[0xff]]), &tlv(0x02, &[&[3]])]),
            ),
            extension(
                &id_ce(17),
                false,
                &seq(&[
                    &tlv(0x82, &[b"a.example.com"]),
                    &tlv(0x82, &[b"b", &[0xff]]),
                    &tlv(0x81, &[b"someone@example.com"]),
                    &tlv(0x87, &[&[10, 0, 0, 1]]),
                    &tlv(0x87, &[&[0; 15], &[1]]),
                ]),
            ),
            extension(
                &id_ce(37),
                false,
                &seq(&[
                    &tlv(0x06, &[EKU_SERVER_AUTH]),
                    &tlv(0x06, &[&[0x2a, 0x03, 0x04]]),
                    &tlv(0x06, &[EKU_SERVER_AUTH]),
                ]),
            ),
            extension(&id_ce(30), true, &seq(&[])),
            extension(&id_ce(15), true, &tlv(0x03, &[&[0x07, 0x80]])),
        ],
        ..Parts::default()
    };
    let der = parts.der();
    let c = Certificate::parse(&der).unwrap();
    assert_eq!(c.der, der.as_slice());
    assert_eq!(c.tbs, parts.tbs().as_slice());
    assert_eq!(c.signature_algorithm, tlv(0x06, &[OID_ED25519]).as_slice());
    assert_eq!(c.signature, &[0xaa; 64]);
    assert_eq!(c.issuer, parts.issuer.as_slice());
    assert_eq!(c.subject, parts.subject.as_slice());
    assert_eq!(c.key_algorithm, tlv(0x06, &[OID_ED25519]).as_slice());
    assert_eq!(c.key, &KEY);
    assert_eq!(c.version, 2);
    assert_eq!(c.not_before, days_from_civil(2025, 1, 1) * 86_400);
    assert_eq!(
        c.not_after,
        days_from_civil(2050, 1, 1) * 86_400 + 12 * 3600
    );
    assert_eq!(c.basic_constraints, Some((true, Some(3))));
    let other: &[u8] = &[0x2a, 0x03, 0x04];
    assert_eq!(
        c.ext_key_usage,
        Some(vec![EKU_SERVER_AUTH, other, EKU_SERVER_AUTH])
    );
    assert!(c.has_san);
    assert_eq!(c.dns_names, ["a.example.com", "b\u{fffd}"]);
    assert_eq!(
        c.ip_addresses,
        [
            "10.0.0.1".parse::<IpAddr>().unwrap(),
            "::1".parse().unwrap()
        ]
    );
    assert!(c.has_name_constraints);
    assert!(!c.unhandled_critical);
    assert_eq!(c.common_name.as_deref(), Some("last"));
    assert_eq!(c.label(), "CN=last");
    assert!(!c.self_issued());
}

#[test]
fn a_version_1_certificate() {
    let parts = Parts {
        version: None,
        issuer: name(&[(OID_ORGANIZATION, "Example")]),
        subject: name(&[(OID_ORGANIZATION, "Example")]),
        ..Parts::default()
    };
    let der = parts.der();
    let c = Certificate::parse(&der).unwrap();
    assert_eq!(c.version, 0);
    assert_eq!(c.tbs, parts.tbs().as_slice());
    assert_eq!(c.issuer, parts.issuer.as_slice());
    assert_eq!(c.basic_constraints, None);
    assert_eq!(c.ext_key_usage, None);
    assert!(!c.has_san && !c.has_name_constraints && !c.unhandled_critical);
    assert_eq!(c.common_name, None);
    assert_eq!(c.label(), "a certificate without a common name");
    assert!(c.self_issued());
}

#[test]
fn critical_extensions_go_does_not_handle() {
    let authority_info = OID_AUTHORITY_INFO;
    let private_key_usage = id_ce(16);
    let key_usage = id_ce(15);
    let other: &[u8] = &[0x2a, 0x03, 0x04];
    for (oid, critical, unhandled) in [
        (&key_usage[..], true, false),
        (authority_info, true, false),
        (&private_key_usage[..], true, true),
        (&private_key_usage[..], false, false),
        (other, true, true),
        (other, false, false),
    ] {
        let der = with_extensions(vec![extension(oid, critical, &[0x05, 0x00])]);
        let c = Certificate::parse(&der).unwrap();
        assert_eq!(
            c.unhandled_critical, unhandled,
            "{oid:x?} critical={critical}"
        );
    }
}

#[test]
fn refusals() {
    let san = |names: &[&[u8]]| with_extensions(vec![extension(&id_ce(17), false, &seq(names))]);
    let garbled_subject = {
        let rdn = &name(&[(OID_CN, "subject")])[2..];
        Parts {
            subject: seq(&[rdn, &[0x05, 0x00]]),
            ..Parts::default()
        }
        .der()
    };
    for (what, der, want) in [
        (
            "IP of 5 bytes",
            san(&[&tlv(0x87, &[&[10, 0, 0, 1, 0]])]),
            "malformed IP address in subjectAltName",
        ),
        (
            "SAN not a sequence",
            with_extensions(vec![extension(&id_ce(17), false, &[0x05, 0x00])]),
            "malformed subjectAltName",
        ),
        (
            "basic constraints not a sequence",
            with_extensions(vec![extension(&id_ce(19), false, &[0x05, 0x00])]),
            "malformed basicConstraints",
        ),
        (
            "key purpose not an OID",
            with_extensions(vec![extension(&id_ce(37), false, &seq(&[&[0x05, 0x00]]))]),
            "malformed key purpose",
        ),
        (
            "key purposes not a sequence",
            with_extensions(vec![extension(&id_ce(37), false, &[0x05, 0x00])]),
            "malformed extKeyUsage",
        ),
        (
            "signature of a partial byte",
            Parts {
                signature: tlv(0x03, &[&[4], &[0xa0; 64]]),
                ..Parts::default()
            }
            .der(),
            "malformed bit string",
        ),
        (
            "subject with a stray element",
            garbled_subject,
            "malformed subject",
        ),
        (
            "not a certificate",
            vec![0x05, 0x00],
            "malformed certificate",
        ),
        (
            "a day February does not have",
            Parts {
                validity: seq(&[
                    &tlv(0x17, &[b"250230000000Z"]),
                    &tlv(0x17, &[b"260101000000Z"]),
                ]),
                ..Parts::default()
            }
            .der(),
            "malformed certificate: invalid date",
        ),
    ] {
        assert_eq!(Certificate::parse(&der).unwrap_err(), want, "{what}");
    }
}

#[test]
fn truncated_input_is_an_error() {
    let der = Parts::default().der();
    for len in 0..der.len() {
        assert!(Certificate::parse(&der[..len]).is_err(), "{len}");
    }
    assert_eq!(
        Certificate::parse(&der[..der.len() - 1]).unwrap_err(),
        "truncated DER contents"
    );
}

#[test]
fn public_keys() {
    let der = spki();
    let (algorithm, key) = public_key_info(&der).unwrap();
    assert_eq!(algorithm, tlv(0x06, &[OID_ED25519]).as_slice());
    assert_eq!(key, &KEY);
    let trailing = [der.as_slice(), &[0]].concat();
    assert_eq!(
        public_key_info(&trailing).unwrap_err(),
        "trailing data after the public key"
    );
    assert_eq!(
        public_key_info(&der[..der.len() - 1]).unwrap_err(),
        "truncated DER contents"
    );
    assert_eq!(
        public_key_info(&[0x05, 0x00]).unwrap_err(),
        "malformed subjectPublicKeyInfo"
    );
}

#[test]
fn dates_round_trip() {
    for (secs, text) in [
        (0, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (4_102_444_799, "2099-12-31T23:59:59Z"),
    ] {
        assert_eq!(rfc3339(secs), text, "{secs}");
        let (y, m, d) = (&text[..4], &text[5..7], &text[8..10]);
        let days = days_from_civil(y.parse().unwrap(), m.parse().unwrap(), d.parse().unwrap());
        assert_eq!(days * 86_400, secs - secs.rem_euclid(86_400), "{text}");
    }
}
