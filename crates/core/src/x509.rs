//! The fields of an X.509 certificate that Go's `crypto/x509` looks at
//! when it verifies a server: names, validity, basic constraints, extended
//! key usages, critical extensions, and the signed parts. The DER is read
//! by `x509-parser`; what is kept of it is decided here, as Go decides it
//! (which critical extensions count as handled, the last common name, DNS
//! names that are not UTF-8). The signature itself is checked with the
//! crypto provider.

use std::borrow::Cow;
use std::net::IpAddr;

use x509_parser::asn1_rs::{self, Any, BitString, Class, ParseResult, Tag};
use x509_parser::certificate::X509CertificateParser;
use x509_parser::error::X509Error;
use x509_parser::extensions::{
    AuthorityKeyIdentifier, BasicConstraints, GeneralName, KeyIdentifier, SubjectAlternativeName,
    X509Extension,
};
use x509_parser::nom::error::ErrorKind;
use x509_parser::nom::Parser;
use x509_parser::prelude::FromDer;
use x509_parser::x509::SubjectPublicKeyInfo;

/// A certificate, borrowed from its DER.
#[derive(Debug, Clone)]
pub struct Certificate<'a> {
    /// The whole certificate.
    pub der: &'a [u8],
    /// `tbsCertificate`, tag and length included (what is signed).
    pub tbs: &'a [u8],
    /// The contents of `signatureAlgorithm` (inside its SEQUENCE).
    pub signature_algorithm: &'a [u8],
    /// The signature bits.
    pub signature: &'a [u8],
    /// `issuer` and `subject`, tag and length included (Go's `RawIssuer`,
    /// `RawSubject`).
    pub issuer: &'a [u8],
    pub subject: &'a [u8],
    /// The contents of the key's AlgorithmIdentifier, and the key bits.
    pub key_algorithm: &'a [u8],
    pub key: &'a [u8],
    /// 0 for v1, 2 for v3.
    pub version: u8,
    /// Validity, in seconds since the Unix epoch.
    pub not_before: i64,
    pub not_after: i64,
    /// Basic constraints: `Some((is_ca, max_path_len))` when present.
    pub basic_constraints: Option<(bool, Option<u64>)>,
    /// Extended key usages (OID contents), `None` without the extension.
    pub ext_key_usage: Option<Vec<&'a [u8]>>,
    pub has_san: bool,
    pub dns_names: Vec<String>,
    pub ip_addresses: Vec<IpAddr>,
    pub has_name_constraints: bool,
    /// A critical extension Go does not handle.
    pub unhandled_critical: bool,
    /// The last common name of the subject (Go's `Subject.CommonName`).
    pub common_name: Option<String>,
    /// Go's `SubjectKeyId` and `AuthorityKeyId` (the keyIdentifier of the
    /// extension), empty without them: Go tries the issuers whose key
    /// identifier matches first.
    pub subject_key_id: &'a [u8],
    pub authority_key_id: &'a [u8],
    /// The subjectAltName extension's value, as Go compares it to tell a
    /// certificate already in the chain.
    pub san: Option<&'a [u8]>,
}

/// OID contents of the extended key usages Go knows as server auth and any.
pub const EKU_SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
pub const EKU_ANY: &[u8] = &[0x55, 0x1d, 0x25, 0x00];

/// `id-ce` (2.5.29): the extensions Go parses are `id-ce` 14, 15, 17, 19,
/// 30, 31, 32, 35 and 37, and `id-pe-authorityInfoAccess`.
const ID_CE: &[u8] = &[0x55, 0x1d];
const HANDLED_ID_CE: &[u8] = &[14, 15, 17, 19, 30, 31, 32, 35, 37];
const OID_AUTHORITY_INFO: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];

impl<'a> Certificate<'a> {
    /// Parses a DER certificate (bytes after it are ignored).
    pub fn parse(der: &'a [u8]) -> Result<Self, String> {
        // The extensions Go's rules read are read below, each on its own;
        // the others are not looked into, as Go leaves them.
        let (_, x509) = X509CertificateParser::new()
            .with_deep_parse_extensions(false)
            .parse(der)
            .map_err(|e| unreadable("certificate", e))?;
        let tbs = &x509.tbs_certificate;
        let raw = RawParts::read(der)?;
        // The crate passes over what it cannot read inside a name: the
        // common name is only taken from a subject read to its end.
        if tbs.subject.as_raw() != raw.subject {
            return Err("malformed subject".to_string());
        }
        let mut c = Certificate {
            der,
            tbs: raw.tbs,
            signature_algorithm: raw.signature_algorithm,
            signature: whole_bytes(&x509.signature_value)?,
            issuer: raw.issuer,
            subject: raw.subject,
            key_algorithm: raw.key_algorithm,
            key: whole_bytes(&tbs.subject_pki.subject_public_key)?,
            version: u8::try_from(tbs.version.0).map_err(|_| "malformed version")?,
            not_before: tbs.validity.not_before.timestamp(),
            not_after: tbs.validity.not_after.timestamp(),
            basic_constraints: None,
            ext_key_usage: None,
            has_san: false,
            dns_names: Vec::new(),
            ip_addresses: Vec::new(),
            has_name_constraints: false,
            unhandled_critical: false,
            subject_key_id: &[],
            authority_key_id: &[],
            san: None,
            common_name: tbs
                .subject
                .iter_common_name()
                .last()
                .map(|cn| String::from_utf8_lossy(cn.as_slice()).into_owned()),
        };
        for extension in tbs.extensions() {
            c.add_extension(extension)?;
        }
        Ok(c)
    }

    /// Takes in one extension: whether Go handles it when it is critical,
    /// and the values of those Go's rules read.
    fn add_extension(&mut self, extension: &X509Extension<'a>) -> Result<(), String> {
        let oid = extension.oid.as_bytes();
        let handled = match oid {
            [0x55, 0x1d, n] => HANDLED_ID_CE.contains(n),
            o => o == OID_AUTHORITY_INFO,
        };
        if extension.critical && !handled {
            self.unhandled_critical = true;
        }
        let value = extension.value;
        match oid.strip_prefix(ID_CE) {
            Some([19]) => {
                let (_, constraints) =
                    BasicConstraints::from_der(value).map_err(|_| "malformed basicConstraints")?;
                let path_len = constraints.path_len_constraint.map(u64::from);
                self.basic_constraints = Some((constraints.ca, path_len));
            }
            Some([17]) => {
                self.san = Some(value);
                self.add_names(value)?;
            }
            Some([14]) => {
                let (_, KeyIdentifier(id)) =
                    KeyIdentifier::from_der(value).map_err(|_| "invalid subject key identifier")?;
                self.subject_key_id = id;
            }
            Some([35]) => {
                let (_, akid) = AuthorityKeyIdentifier::from_der(value)
                    .map_err(|_| "invalid authority key identifier")?;
                self.authority_key_id = akid.key_identifier.map_or(&[], |KeyIdentifier(id)| id);
            }
            Some([37]) => self.ext_key_usage = Some(key_purposes(value)?),
            Some([30]) => self.has_name_constraints = true,
            _ => {}
        }
        Ok(())
    }

    /// The DNS names and IP addresses of a subjectAltName extension.
    fn add_names(&mut self, value: &[u8]) -> Result<(), String> {
        self.has_san = true;
        let (_, names) =
            SubjectAlternativeName::from_der(value).map_err(|_| "malformed subjectAltName")?;
        for name in &names.general_names {
            match name {
                GeneralName::DNSName(dns) => self.dns_names.push((*dns).to_string()),
                // A dNSName that is not UTF-8 is still a name (one that
                // matches no host).
                GeneralName::Invalid(Tag(2), bytes) => self
                    .dns_names
                    .push(String::from_utf8_lossy(bytes).into_owned()),
                GeneralName::IPAddress(bytes) => self.ip_addresses.push(ip_address(bytes)?),
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether the certificate is self-issued (subject = issuer).
    pub fn self_issued(&self) -> bool {
        self.subject == self.issuer
    }

    /// A short name for messages: `CN=...`, or the subject's size.
    pub fn label(&self) -> String {
        match &self.common_name {
            Some(cn) if !cn.is_empty() => format!("CN={cn}"),
            _ => "a certificate without a common name".to_string(),
        }
    }
}

/// An iPAddress of a subjectAltName: 4 or 16 bytes.
fn ip_address(bytes: &[u8]) -> Result<IpAddr, String> {
    if let Ok(v4) = <[u8; 4]>::try_from(bytes) {
        return Ok(IpAddr::from(v4));
    }
    if let Ok(v6) = <[u8; 16]>::try_from(bytes) {
        return Ok(IpAddr::from(v6));
    }
    Err("malformed IP address in subjectAltName".to_string())
}

/// Why `x509-parser` could not read `what`: input cut short and bad DER
/// in the words this module has always used (the crate's own for these
/// are debug output), a bad field in the crate's (`invalid date`).
fn unreadable(what: &str, e: x509_parser::nom::Err<X509Error>) -> String {
    match X509Error::from(e) {
        X509Error::Der(asn1_rs::Error::Incomplete(_)) | X509Error::NomError(ErrorKind::Eof) => {
            "truncated DER contents".to_string()
        }
        X509Error::Der(_) | X509Error::NomError(_) => format!("malformed {what}"),
        e => format!("malformed {what}: {e}"),
    }
}

/// The key purposes of an extKeyUsage extension, as OID contents. Each
/// must be an OBJECT IDENTIFIER: asn1-rs reads an OID without looking at
/// its tag, and a purpose is what Go's rules decide by.
fn key_purposes(value: &[u8]) -> Result<Vec<&[u8]>, String> {
    let parsed: ParseResult<'_, Vec<Any<'_>>> = Vec::from_der(value);
    let (_, purposes) = parsed.map_err(|_| "malformed extKeyUsage")?;
    purposes
        .into_iter()
        .map(|p| {
            let oid = p.header.is_universal() && p.header.is_primitive() && p.tag() == Tag::Oid;
            oid.then_some(p.data)
                .ok_or_else(|| "malformed key purpose".to_string())
        })
        .collect()
}

/// The bits of a BIT STRING, borrowed from the DER: whole bytes only, as
/// keys and signatures are.
fn whole_bytes<'a>(bits: &BitString<'a>) -> Result<&'a [u8], String> {
    match (bits.unused_bits, &bits.data) {
        (0, Cow::Borrowed(bytes)) => Ok(*bytes),
        _ => Err("malformed bit string".to_string()),
    }
}

/// The element at the start of `input` (read by asn1-rs): its whole
/// encoding, itself, and the bytes after it.
fn element(input: &[u8]) -> Result<(&[u8], Any<'_>, &[u8]), String> {
    let (rest, any) = Any::from_der(input).map_err(|_| "malformed DER")?;
    Ok((&input[..input.len() - rest.len()], any, rest))
}

/// The parts of a certificate used as bytes, taken as they are in the DER
/// once `x509-parser` has read the certificate: the signature covers
/// `tbsCertificate`, Go compares names by their encoding (`RawIssuer`,
/// `RawSubject`), and rustls names algorithms by the bytes of their
/// identifiers. Not the crate's own `raw` slices: those end where its
/// reading ended, before any bytes it passed over inside a SEQUENCE.
struct RawParts<'a> {
    /// Tag and length included.
    tbs: &'a [u8],
    /// The contents of `signatureAlgorithm`.
    signature_algorithm: &'a [u8],
    /// Tag and length included.
    issuer: &'a [u8],
    subject: &'a [u8],
    /// The contents of the key's AlgorithmIdentifier.
    key_algorithm: &'a [u8],
}

impl<'a> RawParts<'a> {
    fn read(der: &'a [u8]) -> Result<Self, String> {
        let (_, certificate, _) = element(der)?;
        let (tbs, fields, rest) = element(certificate.data)?;
        let (_, signature_algorithm, _) = element(rest)?;
        let mut rest = fields.data;
        let (_, first, after) = element(rest)?;
        if first.class() == Class::ContextSpecific && first.tag() == Tag(0) {
            rest = after; // the version, when it is written
        }
        // serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo
        let mut fields: [&'a [u8]; 6] = [&[]; 6];
        for field in &mut fields {
            let (whole, _, after) = element(rest)?;
            *field = whole;
            rest = after;
        }
        let [_, _, issuer, _, subject, key_info] = fields;
        Ok(RawParts {
            tbs,
            signature_algorithm: signature_algorithm.data,
            issuer,
            subject,
            key_algorithm: key_algorithm(key_info)?,
        })
    }
}

/// The contents of the AlgorithmIdentifier of a `SubjectPublicKeyInfo`,
/// as they are in the DER.
fn key_algorithm(spki: &[u8]) -> Result<&[u8], String> {
    let (_, info, _) = element(spki)?;
    let (_, algorithm, _) = element(info.data)?;
    Ok(algorithm.data)
}

/// RFC 3339 text of seconds since the epoch, as Go prints times in its
/// verification errors.
pub fn rfc3339(secs: i64) -> String {
    match jiff::Timestamp::from_second(secs) {
        Ok(t) => t.to_string(),
        // Beyond the years 9999, which no certificate time can hold.
        Err(_) => format!("@{secs}"),
    }
}

/// A `SubjectPublicKeyInfo` (a PEM `PUBLIC KEY`), borrowed from its DER:
/// the contents of its AlgorithmIdentifier and the key bits, in the form
/// [`Certificate::key_algorithm`] and [`Certificate::key`] take.
pub fn public_key_info(der: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let (rest, info) =
        SubjectPublicKeyInfo::from_der(der).map_err(|e| unreadable("subjectPublicKeyInfo", e))?;
    if !rest.is_empty() {
        return Err("trailing data after the public key".to_string());
    }
    Ok((key_algorithm(der)?, whole_bytes(&info.subject_public_key)?))
}

#[cfg(test)]
mod tests;
