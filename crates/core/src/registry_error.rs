//! What containers/image says of a registry's error answer
//! (`docker/errors.go` `registryHTTPResponseToError`,
//! `docker/distribution_error.go` `handleErrorResponse`, and the
//! docker/distribution `errcode` descriptors it registers): the words that
//! follow `reading manifest TAG in REPO: ` in CRI-O's log and in an event.

use serde_json::Value;

use crate::quote::go_quote;

/// The error codes containers/image knows (`errcode` and
/// `registry/api/v2`), each with its default message. A code not listed
/// is read as `UNKNOWN`.
const DESCRIPTORS: [(&str, &str); 21] = [
    ("UNKNOWN", "unknown error"),
    ("UNSUPPORTED", "The operation is unsupported."),
    ("UNAUTHORIZED", "authentication required"),
    ("DENIED", "requested access to the resource is denied"),
    ("UNAVAILABLE", "service unavailable"),
    ("TOOMANYREQUESTS", "too many requests"),
    (
        "DIGEST_INVALID",
        "provided digest did not match uploaded content",
    ),
    (
        "SIZE_INVALID",
        "provided length did not match content length",
    ),
    ("NAME_INVALID", "invalid repository name"),
    ("TAG_INVALID", "manifest tag did not match URI"),
    ("NAME_UNKNOWN", "repository name not known to registry"),
    ("MANIFEST_UNKNOWN", "manifest unknown"),
    ("MANIFEST_INVALID", "manifest invalid"),
    (
        "MANIFEST_UNVERIFIED",
        "manifest failed signature verification",
    ),
    ("MANIFEST_BLOB_UNKNOWN", "blob unknown to registry"),
    ("BLOB_UNKNOWN", "blob unknown to registry"),
    ("BLOB_UPLOAD_UNKNOWN", "blob upload unknown to registry"),
    ("BLOB_UPLOAD_INVALID", "blob upload invalid"),
    (
        "PAGINATION_NUMBER_INVALID",
        "invalid number of results requested",
    ),
    ("RANGE_INVALID", "invalid content range"),
    ("UNSUPPORTED_MANIFEST", "manifest type is not supported"),
];

/// An error code: its registered value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Code(&'static str, &'static str);

impl Code {
    /// `ParseErrorCode`: an unregistered value is `UNKNOWN`.
    fn parse(value: &str) -> Self {
        let (v, m) = DESCRIPTORS
            .iter()
            .find(|(v, _)| *v == value)
            .copied()
            .unwrap_or(DESCRIPTORS[0]);
        Code(v, m)
    }

    /// `ErrorCode.Error`: the value in lower case, `_` as spaces.
    fn words(self) -> String {
        self.0.replace('_', " ").to_lowercase()
    }

    fn message(self) -> &'static str {
        self.1
    }
}

/// One error of an answer: a bare code, or a code with its message.
enum Parsed {
    Code(Code),
    Error {
        code: Code,
        message: String,
    },
    /// `unexpectedHTTPResponseError`: a body that says no error.
    Unexpected,
}

/// A bearer challenge's `error` and `error_description` (RFC 6750), as a
/// 401 carries them in `WWW-Authenticate`.
pub struct BearerError<'a> {
    pub error: &'a str,
    pub description: &'a str,
}

/// containers/image's words for an answer of `status` (`reason` its
/// phrase, `500 Internal Server Error`) with `body`: a 4xx as the registry's
/// first error says it (`manifest unknown`, `denied: ...`), another status
/// as `received unexpected HTTP status: 500 Internal Server Error`.
pub fn words(status: u16, reason: &str, body: &[u8], bearer: &[BearerError<'_>]) -> String {
    if status == 401 {
        let first = bearer.iter().find_map(|b| {
            let code = match b.error {
                "invalid_token" => Code::parse("UNAUTHORIZED"),
                "insufficient_scope" => Code::parse("DENIED"),
                _ => return None,
            };
            let message = match b.description {
                "" => code.message().to_string(),
                d => d.to_string(),
            };
            Some(Parsed::Error { code, message })
        });
        if let Some(first) = first {
            return said(first, status, body);
        }
    }
    if !(400..500).contains(&status) {
        return format!("received unexpected HTTP status: {status} {reason}");
    }
    let first = parse(status, body);
    let first = match first {
        Parsed::Unexpected if status == 401 => Parsed::Error {
            code: Code::parse("UNAUTHORIZED"),
            message: Code::parse("UNAUTHORIZED").message().to_string(),
        },
        other => other,
    };
    said(first, status, body)
}

/// `registryHTTPResponseToError` on the first error.
fn said(first: Parsed, status: u16, body: &[u8]) -> String {
    match first {
        Parsed::Code(code) => code.words(),
        Parsed::Error { code, message } if message == code.message() => message,
        Parsed::Error { code, message } => format!("{}: {message}", code.words()),
        Parsed::Unexpected => {
            let text = String::from_utf8_lossy(body);
            let mut response: String = text.chars().collect();
            // Go cuts the string at byte 50.
            if response.len() > 50 {
                let mut cut = 50;
                while !response.is_char_boundary(cut) {
                    cut -= 1;
                }
                response.truncate(cut);
                response.push_str("...");
            }
            format!("StatusCode: {status}, {}", go_quote(&response))
        }
    }
}

/// `parseHTTPErrorResponse`: the first error of the body.
fn parse(status: u16, body: &[u8]) -> Parsed {
    let value: Option<Value> = serde_json::from_slice(body).ok();
    let object = value.as_ref().and_then(Value::as_object);
    if let Some(Value::String(details)) = object.and_then(|o| field(o, "details")) {
        if !details.is_empty() {
            let code = match status {
                401 => "UNAUTHORIZED",
                429 => "TOOMANYREQUESTS",
                _ => "UNKNOWN",
            };
            return Parsed::Error {
                code: Code::parse(code),
                message: details.clone(),
            };
        }
    }
    let Some(errors) = object.and_then(|o| field(o, "errors")) else {
        return Parsed::Unexpected;
    };
    let Some(first) = errors.as_array().and_then(|a| a.first()) else {
        return Parsed::Unexpected;
    };
    let Some(e) = first.as_object() else {
        return Parsed::Unexpected;
    };
    let code = match field(e, "code") {
        Some(Value::String(c)) => Code::parse(c),
        None | Some(Value::Null) => Code::parse(""),
        Some(_) => return Parsed::Unexpected,
    };
    let message = match field(e, "message") {
        Some(Value::String(m)) => m.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Parsed::Unexpected,
    };
    let detail = field(e, "detail").is_some_and(|d| !d.is_null());
    if !detail && (message.is_empty() || message == code.message()) {
        Parsed::Code(code)
    } else {
        Parsed::Error { code, message }
    }
}

/// Go's `encoding/json` field match: the exact key, else the first that
/// matches ignoring case.
fn field<'a>(o: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    o.get(name).or_else(|| {
        o.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers of docker/distribution, Quay, Harbor and Artifactory, and
    /// what containers/image makes of each.
    #[test]
    fn containers_image_words() {
        let cases: [(u16, &str, &str); 12] = [
            (
                404,
                r#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"v9"}}]}"#,
                "manifest unknown",
            ),
            (
                404,
                r#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}"#,
                "manifest unknown",
            ),
            (
                404,
                r#"{"errors":[{"code":"NAME_UNKNOWN","message":"repository name not known to registry","detail":{"name":"ns/app"}}]}"#,
                "repository name not known to registry",
            ),
            (
                404,
                r#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{}}]}"#,
                "manifest unknown",
            ),
            (
                401,
                r#"{"errors":[{"code":"UNAUTHORIZED","message":"access to the requested resource is not authorized","detail":[]}]}"#,
                "unauthorized: access to the requested resource is not authorized",
            ),
            (
                403,
                r#"{"errors":[{"code":"DENIED","message":""}]}"#,
                "denied",
            ),
            (
                404,
                r#"{"errors":[{"code":"NOT_FOUND","message":"artifact ns/app:v9 not found"}]}"#,
                "unknown: artifact ns/app:v9 not found",
            ),
            (
                404,
                r#"{"errors":[]}"#,
                "StatusCode: 404, \"{\\\"errors\\\":[]}\"",
            ),
            (
                404,
                "<html><body>Not Found</body></html>",
                "StatusCode: 404, \"<html><body>Not Found</body></html>\"",
            ),
            (401, "", "authentication required"),
            (
                429,
                r#"{"details":"slow down"}"#,
                "toomanyrequests: slow down",
            ),
            (
                404,
                r#"{"errors":[{"code":"MANIFEST_UNKNOWN","detail":"x"}]}"#,
                "manifest unknown: ",
            ),
        ];
        for (status, body, want) in cases {
            assert_eq!(words(status, "", body.as_bytes(), &[]), want, "{body}");
        }
    }

    #[test]
    fn long_bodies_are_cut_at_50_bytes() {
        let body = "x".repeat(80);
        assert_eq!(
            words(400, "Bad Request", body.as_bytes(), &[]),
            format!("StatusCode: 400, \"{}...\"", "x".repeat(50))
        );
    }

    #[test]
    fn other_statuses_and_bearer_errors() {
        assert_eq!(
            words(500, "Internal Server Error", b"{}", &[]),
            "received unexpected HTTP status: 500 Internal Server Error"
        );
        let scope = [BearerError {
            error: "insufficient_scope",
            description: "",
        }];
        assert_eq!(
            words(401, "Unauthorized", b"", &scope),
            "requested access to the resource is denied"
        );
        let invalid = [BearerError {
            error: "invalid_token",
            description: "token expired",
        }];
        assert_eq!(
            words(401, "Unauthorized", b"", &invalid),
            "unauthorized: token expired"
        );
    }
}
