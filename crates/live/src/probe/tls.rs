//! The TLS client configuration of one registry endpoint, as containers/image
//! builds it: the system roots, plus a certificate folder as skopeo's and
//! podman's `--cert-dir` reads it (`pkg/tlsclientconfig.SetupCertificates`:
//! `*.crt` CAs, `*.cert`/`*.key` client pairs), plus per-host CAs (on a
//! node, what the MCO writes to `/etc/docker/certs.d/<host[:port]>/` from
//! the Image config's `additionalTrustedCA`). An `insecure` endpoint is not
//! verified at all (`InsecureSkipVerify`).

use std::collections::BTreeMap;
use std::path::Path;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ClientConfig;

use crate::tls::Trust;

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

/// Everything that decides how endpoints are verified (as Go's
/// `crypto/x509` does, see [`crate::tls`]).
#[derive(Debug, Clone, Default)]
pub struct TlsSettings {
    /// The system roots and `--cert-dir`: CAs for every endpoint.
    trust: Trust,
    client: Option<ClientPair>,
    /// CAs for one `host[:port]` only.
    host_trust: BTreeMap<String, Trust>,
}

impl TlsSettings {
    /// The machine's trusted roots (as Go's `x509.SystemCertPool`).
    pub fn with_system_roots() -> Self {
        TlsSettings {
            trust: Trust::system(),
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
            if name.ends_with(".crt") {
                let certs = read_certs(&path)?;
                self.trust.add(path.display().to_string(), certs);
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

    /// Trusts the CAs of `pem` for every endpoint, as a node trusts the
    /// CAs of its system trust store (install-config.yaml's
    /// `additionalTrustBundle`).
    pub fn add_trusted_pem(&mut self, origin: &str, pem: &str) -> Result<(), TlsError> {
        self.trust
            .add_pem(origin, pem.as_bytes())
            .map_err(|message| TlsError {
                path: origin.to_string(),
                message,
            })
    }

    /// Trusts the CAs of `pem` for the endpoint `host_port` only.
    pub fn add_host_cas(
        &mut self,
        host_port: &str,
        origin: &str,
        pem: &str,
    ) -> Result<(), TlsError> {
        self.host_trust
            .entry(host_port.to_string())
            .or_default()
            .add_pem(origin, pem.as_bytes())
            .map_err(|message| TlsError {
                path: origin.to_string(),
                message,
            })
    }

    /// The rustls configuration for the endpoint `host_port`.
    pub fn client_config(&self, host_port: &str, insecure: bool) -> ClientConfig {
        let mut trust = self.trust.clone();
        if let Some(host) = self.host_trust.get(host_port) {
            trust.extend(host);
        }
        let verified = (!insecure).then_some(&trust);
        let identity = self.client.clone().map(|pair| (pair.chain, pair.key));
        // A client key rustls refuses is left out, as before.
        let mut config = crate::tls::client_config(verified, identity)
            .or_else(|_| crate::tls::client_config(verified, None))
            .expect("ring supports the default protocol versions");
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        config
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_cert_dir_adds_nothing() {
        let mut s = TlsSettings::default();
        s.add_cert_dir(Path::new("/nonexistent/certs.d"))
            .expect("missing is fine");
        assert!(s.trust.is_empty());
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
