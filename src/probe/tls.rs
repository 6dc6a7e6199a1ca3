//! The TLS client configuration of one registry endpoint, as containers/image
//! builds it: the system roots, plus a certificate folder as skopeo's and
//! podman's `--cert-dir` reads it (`pkg/tlsclientconfig.SetupCertificates`:
//! `*.crt` CAs, `*.cert`/`*.key` client pairs), plus per-host CAs (on a
//! node, what the MCO writes to `/etc/docker/certs.d/<host[:port]>/` from
//! the Image config's `additionalTrustedCA`). An `insecure` endpoint is not
//! verified at all (`InsecureSkipVerify`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// Why a certificate file or folder cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct TlsError {
    pub path: String,
    pub message: String,
}

fn tls_err(path: &Path, message: impl Into<String>) -> TlsError {
    TlsError {
        path: path.display().to_string(),
        message: message.into(),
    }
}

/// A client certificate chain and its key.
#[derive(Debug)]
struct ClientPair {
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl Clone for ClientPair {
    fn clone(&self) -> Self {
        ClientPair {
            chain: self.chain.clone(),
            key: self.key.clone_key(),
        }
    }
}

/// Everything that decides how endpoints are verified.
#[derive(Debug, Clone, Default)]
pub struct TlsSettings {
    system_roots: Vec<CertificateDer<'static>>,
    /// `--cert-dir`: CAs for every endpoint.
    extra_roots: Vec<CertificateDer<'static>>,
    client: Option<ClientPair>,
    /// CAs for one `host[:port]` only.
    host_roots: BTreeMap<String, Vec<CertificateDer<'static>>>,
}

impl TlsSettings {
    /// The machine's trusted roots (as Go's `x509.SystemCertPool`).
    pub fn with_system_roots() -> Self {
        let loaded = rustls_native_certs::load_native_certs();
        TlsSettings {
            system_roots: loaded.certs,
            ..Default::default()
        }
    }

    /// Reads a certificate folder as `tlsclientconfig.SetupCertificates`
    /// does; a missing folder adds nothing.
    pub fn add_cert_dir(&mut self, dir: &Path) -> Result<(), TlsError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(tls_err(dir, format!("cannot read the folder: {e}"))),
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in &names {
            let path = dir.join(name);
            if let Some(base) = name.strip_suffix(".crt") {
                let _ = base;
                let certs = read_certs(&path)?;
                self.extra_roots.extend(certs);
            } else if let Some(base) = name.strip_suffix(".cert") {
                let key_name = format!("{base}.key");
                if !names.contains(&key_name) {
                    return Err(tls_err(
                        &path,
                        format!("missing key {key_name} for this client certificate (CA certificates use the extension .crt)"),
                    ));
                }
                let chain = read_certs(&path)?;
                let key_path = dir.join(&key_name);
                let key = PrivateKeyDer::from_pem_file(&key_path)
                    .map_err(|e| tls_err(&key_path, format!("not a PEM private key: {e}")))?;
                if self.client.is_none() {
                    self.client = Some(ClientPair { chain, key });
                }
            } else if let Some(base) = name.strip_suffix(".key") {
                let cert_name = format!("{base}.cert");
                if !names.contains(&cert_name) {
                    return Err(tls_err(
                        &path,
                        format!("missing client certificate {cert_name} for this key"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Trusts the CAs of `pem` for the endpoint `host_port` only.
    pub fn add_host_cas(
        &mut self,
        host_port: &str,
        origin: &str,
        pem: &str,
    ) -> Result<(), TlsError> {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem.as_bytes())
            .collect::<Result<_, _>>()
            .map_err(|e| TlsError {
                path: origin.to_string(),
                message: format!("not PEM certificates: {e}"),
            })?;
        if certs.is_empty() {
            return Err(TlsError {
                path: origin.to_string(),
                message: "no PEM certificate".to_string(),
            });
        }
        self.host_roots
            .entry(host_port.to_string())
            .or_default()
            .extend(certs);
        Ok(())
    }

    /// The rustls configuration for the endpoint `host_port`.
    pub fn client_config(&self, host_port: &str, insecure: bool) -> ClientConfig {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions");
        let builder = if insecure {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
        } else {
            let mut roots = RootCertStore::empty();
            let host = self.host_roots.get(host_port).into_iter().flatten();
            for cert in self
                .system_roots
                .iter()
                .chain(&self.extra_roots)
                .chain(host)
            {
                // Unparseable system roots are skipped, as Go skips them.
                let _ = roots.add(cert.clone());
            }
            builder.with_root_certificates(roots)
        };
        let mut config = match &self.client {
            Some(pair) => {
                let pair = pair.clone();
                match builder.with_client_auth_cert(pair.chain, pair.key) {
                    Ok(c) => c,
                    Err(_) => self.without_client(host_port, insecure),
                }
            }
            None => builder.with_no_client_auth(),
        };
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        config
    }

    fn without_client(&self, host_port: &str, insecure: bool) -> ClientConfig {
        let mut copy = self.clone();
        copy.client = None;
        copy.client_config(host_port, insecure)
    }
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .map_err(|e| tls_err(path, format!("cannot read: {e}")))?
        .collect::<Result<_, _>>()
        .map_err(|e| tls_err(path, format!("not PEM certificates: {e}")))?;
    if certs.is_empty() {
        return Err(tls_err(path, "no PEM certificate"));
    }
    Ok(certs)
}

/// `InsecureSkipVerify`: any certificate is accepted; handshake signatures
/// are still checked so the connection itself is sound.
#[derive(Debug)]
struct NoVerification(Arc<rustls::crypto::CryptoProvider>);

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
mod tests {
    use super::*;

    #[test]
    fn missing_cert_dir_adds_nothing() {
        let mut s = TlsSettings::default();
        s.add_cert_dir(Path::new("/nonexistent/certs.d"))
            .expect("missing is fine");
        assert!(s.extra_roots.is_empty());
    }

    // tlsclientconfig_test.go: a key without its certificate, and a client
    // certificate without its key, are errors.
    #[test]
    fn unpaired_client_files_are_errors() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("client.key"), "x").expect("write");
        let err = TlsSettings::default()
            .add_cert_dir(dir.path())
            .expect_err("unpaired key");
        assert!(
            err.message
                .contains("missing client certificate client.cert"),
            "{err}"
        );
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("client.cert"), "x").expect("write");
        let err = TlsSettings::default()
            .add_cert_dir(dir.path())
            .expect_err("unpaired cert");
        assert!(err.message.contains("missing key client.key"), "{err}");
    }

    #[test]
    fn bad_ca_file_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("ca.crt"), "not pem").expect("write");
        let err = TlsSettings::default()
            .add_cert_dir(dir.path())
            .expect_err("bad CA");
        assert!(err.path.ends_with("ca.crt"), "{err}");
    }
}
