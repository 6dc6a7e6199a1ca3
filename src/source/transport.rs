//! The HTTP client of an API server: kube's own layers (base URI, auth,
//! extra headers) over hyper-util and hyper-rustls, as kube's
//! `Client::try_from` stacks them (an `http`, `https` or `socks5` proxy,
//! the connect/read/write timeouts, `tls-server-name`, a client
//! certificate), but with the TLS configuration of [`crate::tls`]: servers
//! verified as Go's crypto/x509 verifies them, so the tool trusts what
//! kubectl trusts.

use base64::Engine;
use hyper_rustls::{FixedServerNameResolver, HttpsConnector};
use hyper_timeout::TimeoutConnector;
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use hyper_util::client::legacy::connect::{Connection, HttpConnector};
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use kube::{Client, Config};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::ClientConfig;
use tower::{BoxError, ServiceBuilder};

use crate::tls::{Identity, Trust};

/// A client for `config`'s server, verifying it against `trust` (`None`:
/// `insecure-skip-tls-verify`).
pub fn build(config: &Config, trust: Option<&Trust>) -> Result<Client, String> {
    let identity = identity(config)?;
    let tls = crate::tls::client_config(trust, identity).map_err(|e| e.to_string())?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let Some(proxy) = config.proxy_url.clone() else {
        return finish(config, tls, http);
    };
    match proxy.scheme_str() {
        Some("socks5") => finish(config, tls, SocksV5::new(proxy, http)),
        Some("http") => {
            let tunnel = with_proxy_auth(&proxy, Tunnel::new(proxy.clone(), http));
            finish(config, tls, tunnel)
        }
        Some("https") => {
            // Go dials an https proxy with the same roots, verified for the
            // proxy's own name.
            let to_proxy = hyper_rustls::HttpsConnectorBuilder::new()
                .with_tls_config(tls.clone())
                .https_or_http()
                .enable_http1()
                .wrap_connector(http);
            let tunnel = with_proxy_auth(&proxy, Tunnel::new(proxy.clone(), to_proxy));
            finish(config, tls, tunnel)
        }
        _ => Err(format!(
            "proxy URL \"{proxy}\": only http, https and socks5 proxies are supported"
        )),
    }
}

/// `Proxy-Authorization: Basic` from the proxy URL's user information,
/// percent-decoded first.
fn with_proxy_auth<C>(proxy: &http::Uri, tunnel: Tunnel<C>) -> Tunnel<C> {
    let Some((userinfo, _)) = proxy.authority().and_then(|a| a.as_str().split_once('@')) else {
        return tunnel;
    };
    let decoded: Vec<u8> = percent_encoding::percent_decode_str(userinfo).collect();
    let value = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(decoded)
    );
    match http::HeaderValue::from_str(&value) {
        Ok(header) => tunnel.with_auth(header),
        Err(_) => tunnel,
    }
}

/// The TLS connector over `connector`, the timeouts, the HTTP client, and
/// kube's layers.
fn finish<C>(config: &Config, tls: ClientConfig, connector: C) -> Result<Client, String>
where
    C: tower::Service<http::Uri> + Clone + Send + Sync + 'static,
    C::Response: Connection + hyper::rt::Read + hyper::rt::Write + Send + Unpin + 'static,
    C::Future: Send + 'static,
    C::Error: Into<BoxError>,
{
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    let builder = match &config.tls_server_name {
        Some(name) => {
            let name = ServerName::try_from(name.clone())
                .map_err(|e| format!("invalid tls-server-name \"{name}\": {e}"))?;
            builder.with_server_name_resolver(FixedServerNameResolver::new(name))
        }
        None => builder,
    };
    let https: HttpsConnector<C> = builder.enable_http1().wrap_connector(connector);
    let mut timed = TimeoutConnector::new(https);
    timed.set_connect_timeout(config.connect_timeout);
    timed.set_read_timeout(config.read_timeout);
    timed.set_write_timeout(config.write_timeout);
    timed.set_reset_reader_on_write(config.reset_reader_on_write);
    let client: hyper_util::client::legacy::Client<_, kube::client::Body> =
        hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(timed);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer().map_err(|e| e.to_string())?)
        .layer(config.extra_headers_layer().map_err(|e| e.to_string())?)
        .map_err(BoxError::from)
        .service(client);
    Ok(Client::new(service, config.default_namespace.clone()))
}

/// The client certificate and key of the kubeconfig user (data before
/// files, as kube and client-go read them).
fn identity(config: &Config) -> Result<Option<Identity>, String> {
    let auth = &config.auth_info;
    let cert = read_pem(
        auth.client_certificate_data.as_deref(),
        auth.client_certificate.as_deref(),
        "client certificate",
    )?;
    let key_data = auth.client_key_data.as_ref().map(|k| {
        use secrecy::ExposeSecret;
        k.expose_secret().to_string()
    });
    let key = read_pem(
        key_data.as_deref(),
        auth.client_key.as_deref(),
        "client key",
    )?;
    let (Some(cert), Some(key)) = (cert, key) else {
        return Ok(None);
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the client certificate is not PEM: {e}"))?;
    if chain.is_empty() {
        return Err("the client certificate holds no PEM certificate".to_string());
    }
    let key = PrivateKeyDer::from_pem_slice(&key)
        .map_err(|e| format!("the client key is not a PEM private key: {e}"))?;
    Ok(Some((chain, key)))
}

/// Base64 data, else the file's bytes.
fn read_pem(data: Option<&str>, file: Option<&str>, what: &str) -> Result<Option<Vec<u8>>, String> {
    if let Some(data) = data.filter(|d| !d.is_empty()) {
        return base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map(Some)
            .map_err(|e| format!("the {what} data is not base64: {e}"));
    }
    match file.filter(|f| !f.is_empty()) {
        Some(path) => std::fs::read(path)
            .map(Some)
            .map_err(|e| format!("cannot read the {what} {path}: {e}")),
        None => Ok(None),
    }
}
