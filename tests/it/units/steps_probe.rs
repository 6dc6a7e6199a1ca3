//! The unit tests of `steps::probe` in the binary's library.

use base64::Engine;
use kubectl_mirrorpolicy::steps::probe::*;
use mirrorpolicy::probe::auth::{AuthSources, Found};

fn secret(key: &str, text: &str) -> serde_json::Value {
    let data = base64::engine::general_purpose::STANDARD.encode(text);
    serde_json::json!({"data": {key: data}})
}

#[test]
fn pull_secrets_of_either_type_give_their_credentials() {
    let auth = base64::engine::general_purpose::STANDARD.encode("u:p");
    for (key, text) in [
        (
            ".dockerconfigjson",
            format!(r#"{{"auths":{{"r.io":{{"auth":"{auth}"}}}}}}"#),
        ),
        (".dockercfg", format!(r#"{{"r.io":{{"auth":"{auth}"}}}}"#)),
    ] {
        let file = secret_auth_file("Secret/ns/s", &secret(key, &text)).unwrap();
        let found = AuthSources { files: vec![file] }
            .lookup("r.io/a/b", &mut |_, _| unreachable!("no helper"));
        let Found::Credentials { credentials, .. } = found else {
            panic!("{key}: {found:?}");
        };
        assert_eq!(
            (credentials.username.as_str(), credentials.password.as_str()),
            ("u", "p"),
            "{key}"
        );
    }
    for (value, want) in [
        (
            serde_json::json!({"data": {}}),
            "Secret/ns/s: no data field .dockerconfigjson",
        ),
        (
            serde_json::json!({"data": {".dockerconfigjson": "%%"}}),
            "Secret/ns/s: data.\".dockerconfigjson\" is not base64",
        ),
    ] {
        assert_eq!(secret_auth_file("Secret/ns/s", &value).unwrap_err(), want);
    }
}
