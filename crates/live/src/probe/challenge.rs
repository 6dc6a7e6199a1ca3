//! `WWW-Authenticate` challenges, parsed as containers/image's docker
//! transport parses them (`docker/wwwauthenticate.go`): one challenge per
//! header value, the scheme lower-cased, then `key=value` parameters
//! (token or quoted string), keys lower-cased.

use std::collections::BTreeMap;

/// One authentication challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// `basic` or `bearer` (lower-cased); others are ignored by the pull.
    pub scheme: String,
    pub parameters: BTreeMap<String, String>,
}

/// `parseValueAndParams`: the scheme and parameters of one header value.
pub fn parse(header: &str) -> Challenge {
    let s = header.trim_start();
    let end = s.find(|c: char| !is_token_char(c)).unwrap_or(s.len());
    let scheme = s[..end].to_ascii_lowercase();
    let mut rest = &s[end..];
    let mut parameters = BTreeMap::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_ascii_whitespace());
        let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        let key = rest[..end].to_ascii_lowercase();
        rest = rest[end..].trim_start();
        let Some(after) = rest.strip_prefix('=') else {
            break;
        };
        rest = after.trim_start();
        let value;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = quoted.char_indices();
            let mut consumed = quoted.len();
            let mut closed = false;
            while let Some((i, c)) = chars.next() {
                match c {
                    '"' => {
                        consumed = i + 1;
                        closed = true;
                        break;
                    }
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            out.push(n);
                        }
                    }
                    c => out.push(c),
                }
            }
            if !closed {
                break;
            }
            value = out;
            rest = &quoted[consumed..];
        } else {
            let end = rest.find(|c: char| !is_token_char(c)).unwrap_or(rest.len());
            value = rest[..end].to_string();
            rest = &rest[end..];
        }
        parameters.insert(key, value);
    }
    Challenge { scheme, parameters }
}

/// RFC 7230 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    // containers/image docker/wwwauthenticate_test.go TestParseValueAndParams.
    #[test]
    fn parses_containers_image_cases() {
        type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
        let cases: &[Case] = &[
            (
                r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull""#,
                "bearer",
                &[
                    ("realm", "https://auth.docker.io/token"),
                    ("service", "registry.docker.io"),
                    ("scope", "repository:library/busybox:pull"),
                ],
            ),
            (
                r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull,push""#,
                "bearer",
                &[
                    ("realm", "https://auth.docker.io/token"),
                    ("service", "registry.docker.io"),
                    ("scope", "repository:library/busybox:pull,push"),
                ],
            ),
            (
                r#"Bearer realm="http://127.0.0.1:5000/openshift/token""#,
                "bearer",
                &[("realm", "http://127.0.0.1:5000/openshift/token")],
            ),
            (
                r#"Basic realm="Registry Realm""#,
                "basic",
                &[("realm", "Registry Realm")],
            ),
            (
                r#"BASIC Realm=unquoted, charset="UTF-8""#,
                "basic",
                &[("realm", "unquoted"), ("charset", "UTF-8")],
            ),
        ];
        for (input, scheme, params) in cases {
            let c = parse(input);
            assert_eq!(c.scheme, *scheme, "{input}");
            let want: BTreeMap<String, String> = params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(c.parameters, want, "{input}");
        }
    }

    #[test]
    fn quoted_escapes_and_truncation() {
        let c = parse(r#"Bearer realm="a\"b",broken="unterminated"#);
        assert_eq!(c.parameters.get("realm").map(String::as_str), Some("a\"b"));
        assert!(!c.parameters.contains_key("broken"));
    }
}
