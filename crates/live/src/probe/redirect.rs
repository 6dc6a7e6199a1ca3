//! Redirects as Go's `net/http` client follows them (`Client.do`,
//! `redirectBehavior`, `shouldCopyHeaderOnRedirect`), which is what
//! containers/image's registry client does: at most 10 requests, the
//! initial request's headers copied to each hop, its credentials
//! (`Authorization`, cookies, `Www-Authenticate`, the proxy's) dropped for
//! good once a hop leaves the initial host and its subdomains (the port
//! and scheme do not count), 301/302/303 turning a request other than GET
//! or HEAD into a body-less GET, 307/308 repeating it with its body.

use reqwest::header::{HeaderMap, HeaderName, LOCATION};
use reqwest::{Method, StatusCode, Url};

/// Go's `defaultCheckRedirect`: the most requests one exchange sends.
pub const MAX_REQUESTS: usize = 10;

/// The headers Go treats as sensitive on a redirect.
const SENSITIVE: [&str; 6] = [
    "authorization",
    "www-authenticate",
    "cookie",
    "cookie2",
    "proxy-authorization",
    "proxy-authenticate",
];

/// What is followed: the initial request, and whether its credentials
/// have been dropped.
pub struct Chain {
    initial: Url,
    /// The initial request's method (Go names the error after it), and
    /// the current one.
    method: Method,
    current: Method,
    headers: HeaderMap,
    body: Option<Vec<u8>>,
    sent: usize,
    stripped: bool,
    include_body: bool,
}

/// The next request of a chain.
pub struct Hop {
    pub method: Method,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Option<Vec<u8>>,
}

impl Chain {
    /// A chain starting with the request of `method` to `url`.
    pub fn new(method: Method, url: Url, headers: HeaderMap, body: Option<Vec<u8>>) -> Self {
        Chain {
            initial: url,
            current: method.clone(),
            method,
            headers,
            body,
            sent: 1,
            stripped: false,
            include_body: true,
        }
    }

    /// The hop an answer asks for from `current`: `Ok(None)` when the
    /// answer is the final one (not a redirect, or one without a
    /// `Location`), `Err` in Go's words when the chain stops.
    pub fn next(
        &mut self,
        current: &Url,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> Result<Option<Hop>, String> {
        let method = match status.as_u16() {
            301..=303 => {
                self.include_body = false;
                match self.current {
                    Method::GET | Method::HEAD => self.current.clone(),
                    _ => Method::GET,
                }
            }
            307 | 308 => self.current.clone(),
            _ => return Ok(None),
        };
        let Some(location) = headers.get(LOCATION) else {
            return Ok(None);
        };
        let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
        let url = current
            .join(&location)
            .map_err(|e| format!("failed to parse Location header {location:?}: {e}"))?;
        if !self.stripped && authority(&url) != authority(&self.initial) {
            self.stripped = !domain_or_subdomain(&hostname(&url), &hostname(&self.initial));
        }
        if self.sent >= MAX_REQUESTS {
            return Err(format!(
                "{} {location:?}: stopped after {MAX_REQUESTS} redirects",
                operation(&self.method)
            ));
        }
        self.sent += 1;
        self.current = method.clone();
        let mut copied = self.headers.clone();
        if self.stripped {
            for name in SENSITIVE {
                copied.remove(HeaderName::from_static(name));
            }
        }
        let body = self.body.clone().filter(|_| self.include_body);
        Ok(Some(Hop {
            method,
            url,
            headers: copied,
            body,
        }))
    }
}

/// Go's `url.Error` operation: `Get`, `Post`.
fn operation(method: &Method) -> String {
    let m = method.as_str();
    let mut out = m[..1].to_string();
    out.push_str(&m[1..].to_ascii_lowercase());
    out
}

/// Go's `URL.Host`: the host and the port as written.
fn authority(url: &Url) -> String {
    match url.port() {
        Some(p) => format!("{}:{p}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    }
}

/// Go's `URL.Hostname` in ASCII form: without the port or IPv6 brackets.
fn hostname(url: &Url) -> String {
    url.host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string()
}

/// Go's `isDomainOrSubdomain`.
fn domain_or_subdomain(sub: &str, parent: &str) -> bool {
    if sub == parent {
        return true;
    }
    if sub.contains([':', '%']) {
        return false;
    }
    sub.strip_suffix(parent)
        .is_some_and(|head| head.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION};

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn chain(from: &str) -> Chain {
        let mut h = HeaderMap::new();
        h.insert(AUTHORIZATION, HeaderValue::from_static("Bearer t"));
        h.insert(ACCEPT, HeaderValue::from_static("application/json"));
        Chain::new(Method::GET, url(from), h, None)
    }

    fn location(to: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(LOCATION, HeaderValue::from_str(to).unwrap());
        h
    }

    fn hop(c: &mut Chain, from: &str, to: &str) -> Hop {
        c.next(&url(from), StatusCode::TEMPORARY_REDIRECT, &location(to))
            .unwrap()
            .expect("a hop")
    }

    /// Go's TestShouldCopyHeaderOnRedirect (net/http client_test.go),
    /// each case once (but the IPv6 zone, which the `url` crate does not
    /// parse), then a registry's loopback and IPv6 hosts.
    #[test]
    fn credentials_follow_go_rules() {
        let cases = [
            ("http://foo.com/", "http://bar.com/", false),
            ("http://foo.com/", "https://foo.com/", true),
            ("http://foo.com:1234/", "http://foo.com:4321/", true),
            ("http://foo.com/", "http://foo.com/", true),
            ("http://foo.com/", "http://sub.foo.com/", true),
            ("http://foo.com/", "http://notfoo.com/", false),
            ("http://foo.com:80/", "http://foo.com/", true),
            ("http://foo.com:80/", "http://sub.foo.com/", true),
            ("http://foo.com:443/", "https://foo.com/", true),
            ("http://foo.com:443/", "https://sub.foo.com/", true),
            ("http://foo.com:1234/", "http://foo.com/", true),
            ("https://127.0.0.1:5000/", "https://127.0.0.1:6000/", true),
            ("https://127.0.0.1/", "https://localhost/", false),
            ("https://[::1]:5000/", "https://[::1]:6000/", true),
        ];
        for (from, to, kept) in cases {
            let mut c = chain(from);
            let h = hop(&mut c, from, to);
            assert_eq!(
                h.headers.contains_key(AUTHORIZATION),
                kept,
                "{from} -> {to}"
            );
            assert!(h.headers.contains_key(ACCEPT));
        }
    }

    #[test]
    fn once_dropped_credentials_stay_dropped() {
        let mut c = chain("https://a.example/");
        let h = hop(&mut c, "https://a.example/", "https://b.example/");
        assert!(!h.headers.contains_key(AUTHORIZATION));
        let h = hop(&mut c, "https://b.example/", "https://a.example/x");
        assert!(!h.headers.contains_key(AUTHORIZATION));
    }

    #[test]
    fn ten_requests_at_most_in_go_words() {
        let mut c = chain("https://a.example/");
        for _ in 1..MAX_REQUESTS {
            hop(&mut c, "https://a.example/", "/again");
        }
        let err = c
            .next(
                &url("https://a.example/"),
                StatusCode::FOUND,
                &location("/again"),
            )
            .err()
            .unwrap();
        assert_eq!(err, "Get \"/again\": stopped after 10 redirects");
    }

    #[test]
    fn methods_and_bodies() {
        let mut c = Chain::new(
            Method::POST,
            url("https://a.example/token"),
            HeaderMap::new(),
            Some(b"form".to_vec()),
        );
        let h = hop(&mut c, "https://a.example/token", "/t2");
        assert_eq!((h.method, h.body), (Method::POST, Some(b"form".to_vec())));
        let h = c
            .next(
                &url("https://a.example/t2"),
                StatusCode::SEE_OTHER,
                &location("/t3"),
            )
            .unwrap()
            .unwrap();
        assert_eq!((h.method, h.body), (Method::GET, None));
        let h = hop(&mut c, "https://a.example/t3", "/t4");
        assert_eq!((h.method, h.body), (Method::GET, None));
        let none = c
            .next(
                &url("https://a.example/t4"),
                StatusCode::FOUND,
                &HeaderMap::new(),
            )
            .unwrap();
        assert!(none.is_none(), "a redirect without Location is the answer");
        let none = c
            .next(
                &url("https://a.example/t4"),
                StatusCode::OK,
                &location("/x"),
            )
            .unwrap();
        assert!(none.is_none());
    }
}
