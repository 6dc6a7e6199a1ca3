//! The fields of an X.509 certificate that Go's `crypto/x509` looks at
//! when it verifies a server: names, validity, basic constraints, extended
//! key usages, critical extensions, and the signed parts. A small DER
//! reader; the signature itself is checked with the crypto provider.

use std::net::IpAddr;

use crate::calendar::{civil_from_days, days_from_civil};

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
}

/// OID contents of the extended key usages Go knows as server auth and any.
pub const EKU_SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
pub const EKU_ANY: &[u8] = &[0x55, 0x1d, 0x25, 0x00];

const OID_COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];
/// `id-ce` (2.5.29): the extensions Go parses are `id-ce` 14, 15, 17, 19,
/// 30, 31, 32, 35 and 37, and `id-pe-authorityInfoAccess`.
const ID_CE: &[u8] = &[0x55, 0x1d];
const HANDLED_ID_CE: &[u8] = &[14, 15, 17, 19, 30, 31, 32, 35, 37];
const OID_AUTHORITY_INFO: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];

/// A DER element reader over a byte slice.
struct Der<'a> {
    rest: &'a [u8],
}

/// One element: its tag, contents, and the whole encoding.
struct Element<'a> {
    tag: u8,
    contents: &'a [u8],
    whole: &'a [u8],
}

impl<'a> Der<'a> {
    fn new(data: &'a [u8]) -> Self {
        Der { rest: data }
    }

    fn peek(&self) -> Option<u8> {
        self.rest.first().copied()
    }

    fn next(&mut self) -> Result<Element<'a>, String> {
        let data = self.rest;
        let (&tag, after) = data.split_first().ok_or("truncated DER")?;
        if tag & 0x1f == 0x1f {
            return Err("unsupported DER tag".to_string());
        }
        let (&first, after) = after.split_first().ok_or("truncated DER length")?;
        let (len, after) = if first < 0x80 {
            (usize::from(first), after)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || after.len() < n {
                return Err("bad DER length".to_string());
            }
            let len = after[..n]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, &after[n..])
        };
        if after.len() < len {
            return Err("truncated DER contents".to_string());
        }
        let header = data.len() - after.len();
        self.rest = &after[len..];
        Ok(Element {
            tag,
            contents: &after[..len],
            whole: &data[..header + len],
        })
    }

    fn expect(&mut self, tag: u8, what: &str) -> Result<Element<'a>, String> {
        let e = self.next()?;
        if e.tag != tag {
            return Err(format!("malformed {what}"));
        }
        Ok(e)
    }
}

/// The bits of a BIT STRING (whole bytes only, as keys and signatures are).
fn bit_string(contents: &[u8]) -> Result<&[u8], String> {
    match contents.split_first() {
        Some((0, bits)) => Ok(bits),
        _ => Err("malformed bit string".to_string()),
    }
}

impl<'a> Certificate<'a> {
    /// Parses a DER certificate.
    pub fn parse(der: &'a [u8]) -> Result<Self, String> {
        let mut outer = Der::new(der);
        let cert = outer.expect(0x30, "certificate")?;
        let mut parts = Der::new(cert.contents);
        let tbs = parts.expect(0x30, "tbsCertificate")?;
        let algorithm = parts.expect(0x30, "signatureAlgorithm")?;
        let signature = parts.expect(0x03, "signature")?;
        let mut c = Certificate {
            der,
            tbs: tbs.whole,
            signature_algorithm: algorithm.contents,
            signature: bit_string(signature.contents)?,
            issuer: &[],
            subject: &[],
            key_algorithm: &[],
            key: &[],
            version: 0,
            not_before: 0,
            not_after: 0,
            basic_constraints: None,
            ext_key_usage: None,
            has_san: false,
            dns_names: Vec::new(),
            ip_addresses: Vec::new(),
            has_name_constraints: false,
            unhandled_critical: false,
            common_name: None,
        };
        c.parse_tbs(tbs.contents)?;
        Ok(c)
    }

    fn parse_tbs(&mut self, tbs: &'a [u8]) -> Result<(), String> {
        let mut d = Der::new(tbs);
        if d.peek() == Some(0xa0) {
            let explicit = d.next()?;
            let n = Der::new(explicit.contents)
                .expect(0x02, "version")?
                .contents;
            self.version = match n {
                [v] => *v,
                _ => return Err("malformed version".to_string()),
            };
        }
        d.expect(0x02, "serial number")?;
        d.expect(0x30, "signature algorithm")?;
        self.issuer = d.expect(0x30, "issuer")?.whole;
        let validity = d.expect(0x30, "validity")?;
        let mut v = Der::new(validity.contents);
        self.not_before = time(&v.next()?)?;
        self.not_after = time(&v.next()?)?;
        let subject = d.expect(0x30, "subject")?;
        self.subject = subject.whole;
        self.common_name = common_name(subject.contents)?;
        let spki = d.expect(0x30, "subjectPublicKeyInfo")?;
        let mut k = Der::new(spki.contents);
        self.key_algorithm = k.expect(0x30, "key algorithm")?.contents;
        self.key = bit_string(k.expect(0x03, "public key")?.contents)?;
        while let Some(tag) = d.peek() {
            let e = d.next()?;
            if tag == 0xa3 {
                let list = Der::new(e.contents).expect(0x30, "extensions")?;
                self.parse_extensions(list.contents)?;
            }
        }
        Ok(())
    }

    fn parse_extensions(&mut self, list: &'a [u8]) -> Result<(), String> {
        let mut exts = Der::new(list);
        while exts.peek().is_some() {
            let ext = exts.expect(0x30, "extension")?;
            let mut e = Der::new(ext.contents);
            let oid = e.expect(0x06, "extension id")?.contents;
            let mut critical = false;
            if e.peek() == Some(0x01) {
                critical = e.next()?.contents.first().is_some_and(|b| *b != 0);
            }
            let value = e.expect(0x04, "extension value")?.contents;
            let handled = match oid {
                [0x55, 0x1d, n] => HANDLED_ID_CE.contains(n),
                o => o == OID_AUTHORITY_INFO,
            };
            if critical && !handled {
                self.unhandled_critical = true;
            }
            match oid.strip_prefix(ID_CE) {
                Some([19]) => self.basic_constraints = Some(basic_constraints(value)?),
                Some([17]) => self.parse_san(value)?,
                Some([37]) => self.ext_key_usage = Some(oids(value)?),
                Some([30]) => self.has_name_constraints = true,
                _ => {}
            }
        }
        Ok(())
    }

    fn parse_san(&mut self, value: &'a [u8]) -> Result<(), String> {
        self.has_san = true;
        let seq = Der::new(value).expect(0x30, "subjectAltName")?;
        let mut names = Der::new(seq.contents);
        while names.peek().is_some() {
            let name = names.next()?;
            match name.tag {
                0x82 => self
                    .dns_names
                    .push(String::from_utf8_lossy(name.contents).into_owned()),
                0x87 => match name.contents.len() {
                    4 => {
                        let b: [u8; 4] = name.contents.try_into().map_err(|_| "bad IP")?;
                        self.ip_addresses.push(IpAddr::from(b));
                    }
                    16 => {
                        let b: [u8; 16] = name.contents.try_into().map_err(|_| "bad IP")?;
                        self.ip_addresses.push(IpAddr::from(b));
                    }
                    _ => return Err("malformed IP address in subjectAltName".to_string()),
                },
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

fn basic_constraints(value: &[u8]) -> Result<(bool, Option<u64>), String> {
    let seq = Der::new(value).expect(0x30, "basicConstraints")?;
    let mut d = Der::new(seq.contents);
    let mut ca = false;
    let mut path_len = None;
    if d.peek() == Some(0x01) {
        ca = d.next()?.contents.first().is_some_and(|b| *b != 0);
    }
    if d.peek() == Some(0x02) {
        let n = d.next()?.contents;
        if n.len() > 8 || n.first().is_some_and(|b| *b & 0x80 != 0) {
            return Err("malformed pathLenConstraint".to_string());
        }
        path_len = Some(n.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)));
    }
    Ok((ca, path_len))
}

fn oids(value: &[u8]) -> Result<Vec<&[u8]>, String> {
    let seq = Der::new(value).expect(0x30, "extKeyUsage")?;
    let mut d = Der::new(seq.contents);
    let mut out = Vec::new();
    while d.peek().is_some() {
        out.push(d.expect(0x06, "key purpose")?.contents);
    }
    Ok(out)
}

/// The last common name of a Name's RDN sequence.
fn common_name(name: &[u8]) -> Result<Option<String>, String> {
    let mut rdns = Der::new(name);
    let mut found = None;
    while rdns.peek().is_some() {
        let set = rdns.expect(0x31, "name")?;
        let mut atvs = Der::new(set.contents);
        while atvs.peek().is_some() {
            let atv = atvs.expect(0x30, "name attribute")?;
            let mut a = Der::new(atv.contents);
            let oid = a.expect(0x06, "attribute type")?.contents;
            let value = a.next()?;
            if oid == OID_COMMON_NAME {
                found = Some(String::from_utf8_lossy(value.contents).into_owned());
            }
        }
    }
    Ok(found)
}

/// UTCTime or GeneralizedTime (`...Z`), in seconds since the epoch.
fn time(e: &Element<'_>) -> Result<i64, String> {
    let text = std::str::from_utf8(e.contents).map_err(|_| "malformed time")?;
    let digits = text.strip_suffix('Z').ok_or("time not in UTC")?;
    let (year, rest) = match (e.tag, digits.len()) {
        (0x17, 12) => {
            let yy: i64 = digits[..2].parse().map_err(|_| "malformed time")?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &digits[2..])
        }
        (0x18, 14) => (
            digits[..4].parse().map_err(|_| "malformed time")?,
            &digits[4..],
        ),
        _ => return Err("malformed time".to_string()),
    };
    let field = |i: usize| -> Result<i64, String> {
        rest[i..i + 2]
            .parse::<i64>()
            .map_err(|_| "malformed time".to_string())
    };
    let (month, day, hour, minute, second) =
        (field(0)?, field(2)?, field(4)?, field(6)?, field(8)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return Err("malformed time".to_string());
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second)
}

/// RFC 3339 text of seconds since the epoch, as Go prints times in its
/// verification errors.
pub fn rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A `SubjectPublicKeyInfo` (a PEM `PUBLIC KEY`), borrowed from its DER:
/// the contents of its AlgorithmIdentifier and the key bits, in the form
/// [`Certificate::key_algorithm`] and [`Certificate::key`] take.
pub fn public_key_info(der: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let mut outer = Der::new(der);
    let spki = outer.expect(0x30, "subjectPublicKeyInfo")?;
    if outer.peek().is_some() {
        return Err("trailing data after the public key".to_string());
    }
    let mut k = Der::new(spki.contents);
    let algorithm = k.expect(0x30, "key algorithm")?.contents;
    let key = bit_string(k.expect(0x03, "public key")?.contents)?;
    Ok((algorithm, key))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn truncated_input_is_an_error() {
        assert!(Certificate::parse(&[0x30, 0x05, 0x30]).is_err());
        assert!(Certificate::parse(&[]).is_err());
    }
}
