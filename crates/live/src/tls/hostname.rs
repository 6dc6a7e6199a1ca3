//! Go's `Certificate.VerifyHostname` and its `HostnameError` messages: an
//! IP address matches IP SANs only, a name matches DNS SANs (a left-most
//! `*` label as a wildcard, when both are valid host names), and the
//! subject's common name is never used.

use std::net::IpAddr;

use super::x509::Certificate;

/// Ok when `host` is one of the certificate's names; otherwise Go's message.
pub fn verify(cert: &Certificate<'_>, host: &str) -> Result<(), String> {
    if matches(&cert.dns_names, &cert.ip_addresses, host) {
        return Ok(());
    }
    Err(message(cert, unbracketed(host)))
}

/// An IP address may be written in `[ ]`.
fn unbracketed(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .filter(|_| host.len() >= 3)
        .unwrap_or(host)
}

/// The matching of `VerifyHostname`, over a certificate's SANs.
fn matches(dns_names: &[String], ip_addresses: &[IpAddr], host: &str) -> bool {
    if let Ok(ip) = unbracketed(host).parse::<IpAddr>() {
        return ip_addresses.iter().any(|c| same_ip(*c, ip));
    }
    let name = host.to_ascii_lowercase();
    let valid_name = valid_hostname(&name, false);
    dns_names.iter().any(|pattern| {
        if valid_name && valid_hostname(pattern, true) {
            match_hostnames(pattern, &name)
        } else {
            match_exactly(pattern, &name)
        }
    })
}

/// `net.IP.Equal`: an IPv4 address equals its IPv4-in-IPv6 form.
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    let canonical = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    canonical(a) == canonical(b)
}

/// RFC 6125 host names, with Go's leniency (`_` allowed, a trailing dot
/// on input).
fn valid_hostname(host: &str, pattern: bool) -> bool {
    let host = if pattern {
        host
    } else {
        host.strip_suffix('.').unwrap_or(host)
    };
    if host.is_empty() {
        return false;
    }
    host.split('.').enumerate().all(|(i, part)| {
        if part.is_empty() {
            return false;
        }
        if pattern && i == 0 && part == "*" {
            return true;
        }
        part.char_indices()
            .all(|(j, c)| c.is_ascii_alphanumeric() || c == '_' || (c == '-' && j != 0))
    })
}

fn match_exactly(a: &str, b: &str) -> bool {
    if a.is_empty() || a == "." || b.is_empty() || b == "." {
        return false;
    }
    a.eq_ignore_ascii_case(b)
}

fn match_hostnames(pattern: &str, host: &str) -> bool {
    let pattern = pattern.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if pattern.is_empty() || host.is_empty() {
        return false;
    }
    let p: Vec<&str> = pattern.split('.').collect();
    let h: Vec<&str> = host.split('.').collect();
    p.len() == h.len()
        && p.iter()
            .zip(&h)
            .enumerate()
            .all(|(i, (p, h))| (i == 0 && *p == "*") || p == h)
}

/// `HostnameError.Error()`.
fn message(cert: &Certificate<'_>, host: &str) -> String {
    if !cert.has_san
        && cert
            .common_name
            .as_deref()
            .is_some_and(|cn| match_hostnames(cn, host))
    {
        return "x509: certificate relies on legacy Common Name field, use SANs instead"
            .to_string();
    }
    let valid = if host.parse::<IpAddr>().is_ok() {
        if cert.ip_addresses.is_empty() {
            return format!(
                "x509: cannot validate certificate for {host} because it doesn't contain any IP SANs"
            );
        }
        cert.ip_addresses
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        cert.dns_names.join(", ")
    };
    if valid.is_empty() {
        return format!("x509: certificate is not valid for any names, but wanted to match {host}");
    }
    format!("x509: certificate is valid for {valid}, not {host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    // Go's x509_test.go TestMatchHostnames: a certificate whose only DNS
    // SAN is the pattern, verified for the host.
    #[test]
    fn go_test_match_hostnames() {
        for (pattern, host, ok) in [
            ("a.b.c", "a.b.c", true),
            ("a.b.c", "b.b.c", false),
            ("", "b.b.c", false),
            ("a.b.c", "", false),
            ("example.com", "example.com", true),
            ("example.com", "www.example.com", false),
            ("*.example.com", "example.com", false),
            ("*.example.com", "www.example.com", true),
            ("*.example.com", "www.example.com.", true),
            ("*.example.com", "xyz.www.example.com", false),
            ("*.example.com", "https://www.example.com", false),
            ("*.example..com", "www.example..com", false),
            ("www.example..com", "www.example..com", true),
            ("*.*.example.com", "xyz.www.example.com", false),
            ("*.www.*.com", "xyz.www.example.com", false),
            ("*bar.example.com", "foobar.example.com", false),
            ("f*.example.com", "foobar.example.com", false),
            ("www.example.com", "*.example.com", false),
            ("", ".", false),
            (".", "", false),
            (".", ".", false),
            ("example.com", "example.com.", true),
            ("example.com.", "example.com", false),
            ("example.com.", "example.com.", true),
            ("*.com.", "example.com.", false),
            ("*.com.", "example.com", false),
            ("*.com", "example.com", true),
            ("*.com", "example.com.", true),
            ("foo:bar", "foo:bar", true),
            ("*.foo:bar", "xxx.foo:bar", false),
            ("*.2.3.4", "1.2.3.4", false),
            ("*.2.3.4", "[1.2.3.4]", false),
            ("*:4860:4860::8888", "2001:4860:4860::8888", false),
            ("*:4860:4860::8888", "[2001:4860:4860::8888]", false),
            ("2001:4860:4860::8888", "2001:4860:4860::8888", false),
            ("2001:4860:4860::8888", "[2001:4860:4860::8888]", false),
            ("[2001:4860:4860::8888]", "2001:4860:4860::8888", false),
            ("[2001:4860:4860::8888]", "[2001:4860:4860::8888]", false),
        ] {
            let got = matches(&[pattern.to_string()], &[], host);
            assert_eq!(got, ok, "{pattern:?} vs {host:?}");
        }
    }

    // Go's x509_test.go TestMatchIP: IP SANs, bracketed or not.
    #[test]
    fn go_test_match_ip() {
        let ips: Vec<IpAddr> = vec!["127.0.0.1".parse().unwrap(), "::1".parse().unwrap()];
        for host in ["127.0.0.1", "::1", "[::1]"] {
            assert!(matches(&[], &ips, host), "{host}");
        }
        assert!(!matches(&["*.2.3.4".to_string()], &[], "1.2.3.4"));
    }

    #[test]
    fn ipv4_in_ipv6_is_the_same_address() {
        let v4: IpAddr = "127.0.0.1".parse().unwrap();
        let v6: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        assert!(same_ip(v4, v6));
        assert!(!same_ip(v4, "::1".parse().unwrap()));
    }
}
