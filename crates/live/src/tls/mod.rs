//! Server certificates verified as Go's `crypto/x509` verifies them, for
//! every TLS client of the tool (the API server, registries, a hub's
//! cluster-proxy route): kubectl and containers/image are Go programs, and
//! the tool must trust exactly what they trust.
//!
//! `Certificate.Verify` first checks the presented leaf on its own (no
//! unhandled critical extension, the validity period, a server-auth
//! extended key usage when it lists any, the host name against its SANs,
//! never its common name), then accepts it when its DER is one of the
//! roots (a chain of one: a self-signed `CA:TRUE` certificate, or a leaf
//! pinned as its own CA), and otherwise builds a chain to a root. The chain
//! is built by webpki, except for a leaf marked `CA:TRUE`: webpki refuses a
//! CA as an end entity while Go does not look at a leaf's basic
//! constraints, so such a leaf is chained as Go chains it, in [`chain`].

pub use crate::x509;

mod chain;
mod hostname;

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::verify_server_cert_signed_by_trust_anchor;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};

use x509::Certificate;

/// The certificates a client trusts as roots, each set with where it came
/// from (named in verification errors).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Trust {
    sources: Vec<Source>,
    /// Said after the sources: roots that were looked for and not found.
    notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Source {
    origin: String,
    /// Shared by every clone: a fleet's clusters hold the same roots.
    certs: std::sync::Arc<[CertificateDer<'static>]>,
    /// Described by count only (the system pool is long).
    summarized: bool,
}

impl Trust {
    /// The machine's roots (Go's `SystemCertPool` on Linux: the usual
    /// bundle files and folders, `SSL_CERT_FILE`, `SSL_CERT_DIR`).
    pub fn system() -> Self {
        let mut trust = Trust::default();
        trust.add_system();
        trust
    }

    /// Adds the machine's roots (read once per process).
    pub fn add_system(&mut self) {
        static SYSTEM: std::sync::OnceLock<std::sync::Arc<[CertificateDer<'static>]>> =
            std::sync::OnceLock::new();
        let certs = SYSTEM.get_or_init(|| rustls_native_certs::load_native_certs().certs.into());
        self.sources.push(Source {
            origin: "the system roots".to_string(),
            certs: certs.clone(),
            summarized: true,
        });
    }

    /// Adds `certs`, trusted as roots, found in `origin`.
    pub fn add(&mut self, origin: impl Into<String>, certs: Vec<CertificateDer<'static>>) {
        self.sources.push(Source {
            origin: origin.into(),
            certs: certs.into(),
            summarized: false,
        });
    }

    /// Adds the certificates of a PEM bundle; an error when it holds none
    /// or one does not decode.
    pub fn add_pem(&mut self, origin: impl Into<String>, pem: &[u8]) -> Result<(), String> {
        let certs = pem_certificates(pem)?;
        self.add(origin, certs);
        Ok(())
    }

    /// Adds every source (and note) of `other`.
    pub fn extend(&mut self, other: &Trust) {
        self.sources.extend(other.sources.iter().cloned());
        self.notes.extend(other.notes.iter().cloned());
    }

    /// Notes roots that were looked for and could not be had, said with
    /// the roots in errors.
    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    fn certificates(&self) -> impl Iterator<Item = &CertificateDer<'static>> {
        self.sources.iter().flat_map(|s| s.certs.iter())
    }

    /// The roots for a message: each source and what it holds.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.sources.iter().map(Source::describe).collect();
        if parts.is_empty() {
            parts.push("no roots".to_string());
        }
        parts.extend(self.notes.iter().cloned());
        parts.join("; ")
    }
}

impl Source {
    fn describe(&self) -> String {
        let n = self.certs.len();
        if self.summarized || n > 4 {
            return format!(
                "{} ({n} certificate{})",
                self.origin,
                if n == 1 { "" } else { "s" }
            );
        }
        let labels: Vec<String> = self
            .certs
            .iter()
            .map(|c| {
                Certificate::parse(c)
                    .map_or_else(|_| "an unparsable certificate".to_string(), |c| c.label())
            })
            .collect();
        format!("{} ({})", self.origin, labels.join(", "))
    }
}

/// The certificates of a PEM bundle.
pub fn pem_certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("not PEM certificates: {e}"))?;
    if certs.is_empty() {
        return Err("no PEM certificate".to_string());
    }
    Ok(certs)
}

/// The crypto provider every client of the tool uses.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A client identity: a certificate chain and its key.
pub type Identity = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// A rustls client configuration that verifies servers against `trust` as
/// Go does, or (`None`, `insecure-skip-tls-verify`) not at all, presenting
/// `identity` when given. ALPN is left to the caller.
pub fn client_config(
    trust: Option<&Trust>,
    identity: Option<Identity>,
) -> Result<ClientConfig, rustls::Error> {
    let provider = provider();
    let verifier: Arc<dyn ServerCertVerifier> = match trust {
        Some(trust) => Arc::new(GoVerifier::new(trust, Arc::clone(&provider))),
        None => Arc::new(NoVerification(Arc::clone(&provider))),
    };
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    match identity {
        Some((chain, key)) => builder.with_client_auth_cert(chain, key),
        None => Ok(builder.with_no_client_auth()),
    }
}

/// Why a server certificate was refused, in Go's words, with the roots
/// that were tried.
#[derive(Debug, Clone, thiserror::Error)]
#[error("tls: failed to verify certificate: {message}")]
pub struct VerifyError {
    pub message: String,
}

/// The text of a TLS error: a [`VerifyError`] as itself, any other as
/// rustls words it.
pub fn describe(error: &rustls::Error) -> String {
    if let rustls::Error::InvalidCertificate(CertificateError::Other(other)) = error {
        if let Some(verify) = other.0.downcast_ref::<VerifyError>() {
            return verify.to_string();
        }
    }
    error.to_string()
}

/// The rustls error inside a chain of errors (through the `io::Error`s
/// that hide their inner error from `source()`).
pub fn find_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = next {
        if let Some(t) = e.downcast_ref::<rustls::Error>() {
            return Some(t);
        }
        next = match e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

fn refuse(message: String) -> rustls::Error {
    rustls::Error::InvalidCertificate(CertificateError::Other(rustls::OtherError(Arc::new(
        VerifyError { message },
    ))))
}

/// Go's `Certificate.Verify` for a TLS server (see the module).
#[derive(Debug)]
pub struct GoVerifier {
    /// The roots as DER, for the exact match and for [`chain`].
    roots: Vec<CertificateDer<'static>>,
    store: Arc<RootCertStore>,
    described: String,
    provider: Arc<CryptoProvider>,
}

impl GoVerifier {
    pub fn new(trust: &Trust, provider: Arc<CryptoProvider>) -> Self {
        let roots: Vec<CertificateDer<'static>> = trust.certificates().cloned().collect();
        let mut store = RootCertStore::empty();
        for cert in &roots {
            // A root webpki cannot use as an anchor is still matched exactly
            // and by the Go chain builder, as Go keeps it in the pool.
            let _ = store.add(cert.clone());
        }
        GoVerifier {
            roots,
            store: Arc::new(store),
            described: trust.describe(),
            provider,
        }
    }

    fn untrusted(&self, what: &str) -> rustls::Error {
        refuse(format!("{what} (roots tried: {})", self.described))
    }
}

/// Go's `isValid` for the leaf, then `VerifyHostname`.
fn check_leaf(leaf: &Certificate<'_>, host: &str, now: i64) -> Result<(), String> {
    if leaf.unhandled_critical {
        return Err("x509: unhandled critical extension".to_string());
    }
    check_validity(leaf, now)?;
    if !server_auth_allowed(leaf) {
        return Err("x509: certificate specifies an incompatible key usage".to_string());
    }
    hostname::verify(leaf, host)
}

fn check_validity(cert: &Certificate<'_>, now: i64) -> Result<(), String> {
    let detail = if now < cert.not_before {
        format!(
            "current time {} is before {}",
            x509::rfc3339(now),
            x509::rfc3339(cert.not_before)
        )
    } else if now > cert.not_after {
        format!(
            "current time {} is after {}",
            x509::rfc3339(now),
            x509::rfc3339(cert.not_after)
        )
    } else {
        return Ok(());
    };
    Err(format!(
        "x509: certificate has expired or is not yet valid: {detail}"
    ))
}

/// Go: a certificate that lists extended key usages must list server auth
/// or any.
fn server_auth_allowed(cert: &Certificate<'_>) -> bool {
    cert.ext_key_usage.as_ref().is_none_or(|usages| {
        usages
            .iter()
            .any(|u| *u == x509::EKU_SERVER_AUTH || *u == x509::EKU_ANY)
    })
}

fn host_of(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(d) => d.as_ref().to_string(),
        ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        _ => String::new(),
    }
}

impl ServerCertVerifier for GoVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let leaf = Certificate::parse(end_entity)
            .map_err(|e| refuse(format!("x509: cannot parse the server's certificate: {e}")))?;
        let seconds = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
        check_leaf(&leaf, &host_of(server_name), seconds).map_err(refuse)?;
        if self.roots.iter().any(|r| r.as_ref() == end_entity.as_ref()) {
            return Ok(ServerCertVerified::assertion());
        }
        let algorithms = self.provider.signature_verification_algorithms.all;
        if matches!(leaf.basic_constraints, Some((true, _))) {
            // webpki refuses a CA as an end entity; Go does not look.
            return chain::verify(&leaf, intermediates, &self.roots, seconds, algorithms)
                .map(|()| ServerCertVerified::assertion())
                .map_err(|what| self.untrusted(&what));
        }
        let parsed = ParsedCertificate::try_from(end_entity)
            .map_err(|e| self.untrusted(&format!("x509: {e}")))?;
        match verify_server_cert_signed_by_trust_anchor(
            &parsed,
            &self.store,
            intermediates,
            now,
            algorithms,
        ) {
            Ok(()) => Ok(ServerCertVerified::assertion()),
            // webpki's refusals are not Go's (its limits of six intermediates
            // and path-building budgets; a candidate whose signature fails is
            // its BadSignature, Go's unknown authority with a hint): Go's
            // chain builder decides, and says why in Go's words.
            Err(_) => chain::verify(&leaf, intermediates, &self.roots, seconds, algorithms)
                .map(|()| ServerCertVerified::assertion())
                .map_err(|what| self.untrusted(&what)),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// `InsecureSkipVerify`: any certificate is accepted; handshake signatures
/// are still checked so the connection itself is sound.
#[derive(Debug)]
pub struct NoVerification(pub Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests;
