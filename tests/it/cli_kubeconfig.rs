//! Connecting as kubectl (client-go) connects, through the built binary
//! against the fake API server: server URLs without a scheme, token files,
//! proxies, credentials never sent over plain HTTP, names that do not
//! exist, exec credential plugins (small shell scripts written here),
//! `insecure-skip-tls-verify` with a CA, and 429s with `Retry-After`.

use crate::support;

use std::path::Path;
use std::time::{Duration, Instant};

use predicates::prelude::*;
use tempfile::TempDir;

use support::apiserver::{Builder, FakeApiServer, Fault, Logged};
use support::bin;
use support::kubeconfig::{ca_line, kubeconfig, write};
use support::proxy::{Protocol, Proxy};

const EXAMPLE: &str = "examples/disconnected-cluster";
const AUDIT_CLUSTER: &str = "tests/fixtures/audit-cluster";

fn token_line(server: &FakeApiServer) -> String {
    format!("    token: {}\n", server.token)
}

/// `list` with this kubeconfig: exit code and stderr.
fn list(config: &Path) -> (Option<i32>, String) {
    let out = bin()
        .env("KUBECONFIG", config)
        .args(["list"])
        .write_stdin("")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn authorizations(log: &[Logged]) -> Vec<Option<String>> {
    log.iter().map(|l| l.authorization.clone()).collect()
}

#[test]
fn issue_12_server_without_scheme_is_plain_http_as_in_kubectl() {
    // client-go's DefaultServerURL gives a host without a scheme http://
    // (IsConfigTransportTLS is asked before any TLS setting is merged), so
    // kubectl talks plain HTTP, without the user's credentials.
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .plain_http()
        .anonymous()
        .start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.addr.to_string(),
            &ca_line(&server),
            &token_line(&server),
        ),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    let log = server.log();
    assert!(!log.is_empty());
    assert!(authorizations(&log).iter().all(Option::is_none), "{log:?}");

    // Against a TLS server the same kubeconfig fails cleanly (no panic),
    // naming the http:// URL it tried.
    let tls = Builder::openshift().objects_from(EXAMPLE).start();
    let config = write(
        dir.path(),
        "tls",
        &kubeconfig(&tls.addr.to_string(), &ca_line(&tls), &token_line(&tls)),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains(&format!("http://{}", tls.addr)), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn issue_12_token_file_with_a_trailing_newline() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let token = write(dir.path(), "token", &format!("{}\n", server.token));
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &ca_line(&server),
            &format!("    tokenFile: {}\n", token.display()),
        ),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    let want = Some(format!("Bearer {}", server.token));
    assert!(
        authorizations(&server.log()).iter().all(|a| *a == want),
        "{:?}",
        server.log()
    );
    // A token file with nothing but white space is refused as kubectl
    // refuses it; nothing is sent.
    server.clear_log();
    std::fs::write(&token, " \n").unwrap();
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "read empty token from file \"{}\"",
            token.display()
        )),
        "{stderr}"
    );
    assert!(server.log().is_empty());
}

fn through_proxy(protocol: Protocol) {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let proxy = Proxy::start(protocol);
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &format!("{}    proxy-url: {}\n", ca_line(&server), proxy.url()),
            &token_line(&server),
        ),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{protocol:?}: {stderr}");
    let targets = proxy.targets();
    assert!(!targets.is_empty(), "{protocol:?}: no tunnel opened");
    assert!(
        targets.iter().all(|t| *t == server.addr.to_string()),
        "{protocol:?}: {targets:?}"
    );
    assert!(!server.log().is_empty());
}

#[test]
fn issue_12_proxy_url_http() {
    through_proxy(Protocol::HttpConnect);
}

#[test]
fn issue_12_proxy_url_socks5() {
    through_proxy(Protocol::Socks5);
}

#[test]
fn issue_12_no_bearer_token_over_plain_http() {
    // kubectl reads the user's credentials only for a https:// server.
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .plain_http()
        .anonymous()
        .start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(&server.url(), "", &token_line(&server)),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        authorizations(&server.log()).iter().all(Option::is_none),
        "{:?}",
        server.log()
    );
    // A server that wants a token answers 401, as it does to kubectl.
    let strict = Builder::openshift()
        .objects_from(EXAMPLE)
        .plain_http()
        .start();
    let config = write(
        dir.path(),
        "strict",
        &kubeconfig(&strict.url(), "", &token_line(&strict)),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("401"), "{stderr}");
    assert!(authorizations(&strict.log()).iter().all(Option::is_none));
}

#[test]
fn issue_12_unknown_user_context_or_cluster_is_an_error() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    for (flag, want) in [
        ("--user", "error: auth info \"nope\" does not exist"),
        ("--context", "error: context \"nope\" does not exist"),
        ("--cluster", "error: cluster \"nope\" does not exist"),
    ] {
        bin()
            .env("KUBECONFIG", &config)
            .args(["list", flag, "nope"])
            .assert()
            .code(3)
            .stderr(predicate::str::contains(want));
    }
    assert!(server.log().is_empty(), "{:?}", server.log());
}

/// An exec plugin that appends a line to `runs` each time it runs, saves
/// `KUBERNETES_EXEC_INFO` to `info`, and prints a token expiring at
/// `expires`.
fn exec_user(dir: &Path, token: &str, expires: &str, mode: Option<&str>) -> String {
    let script = write(
        dir,
        "plugin.sh",
        &format!(
            "#!/bin/sh\necho run >> \"$RUNS\"\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$INFO\"\nprintf '%s' '{{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"status\":{{\"token\":\"{token}\",\"expirationTimestamp\":\"{expires}\"}}}}'\n"
        ),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mode = mode.map_or(String::new(), |m| format!("      interactiveMode: {m}\n"));
    format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n{mode}      env:\n      - name: RUNS\n        value: {}\n      - name: INFO\n        value: {}\n",
        script.display(),
        dir.join("runs").display(),
        dir.join("info").display()
    )
}

fn runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn issue_12_exec_plugin_runs_once_per_process() {
    for (args, fixture) in [
        (&["list"][..], EXAMPLE),
        (&["audit", "-o", "json"][..], AUDIT_CLUSTER),
    ] {
        let server = Builder::openshift().objects_from(fixture).start();
        let dir = TempDir::new().unwrap();
        let user = exec_user(dir.path(), &server.token, "2099-01-01T00:00:00Z", None);
        let config = write(
            dir.path(),
            "config",
            &kubeconfig(&server.url(), &ca_line(&server), &user),
        );
        let out = bin()
            .env("KUBECONFIG", &config)
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(server.log().len() > 1, "{args:?}");
        assert_eq!(runs(dir.path()), 1, "{args:?}");
        let want = Some(format!("Bearer {}", server.token));
        assert!(
            authorizations(&server.log()).iter().all(|a| *a == want),
            "{args:?}"
        );
    }
}

#[test]
fn issue_12_expired_exec_credential_is_renewed() {
    // A credential whose expirationTimestamp has passed is not reused:
    // client-go runs the plugin again for each request.
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let user = exec_user(dir.path(), &server.token, "2000-01-01T00:00:00Z", None);
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(&server.url(), &ca_line(&server), &user),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(runs(dir.path()), server.log().len());
}

#[test]
fn issue_12_exec_plugin_is_not_interactive_without_a_terminal() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    // v1beta1 without interactiveMode is IfAvailable: stdin here is a pipe.
    let user = exec_user(dir.path(), &server.token, "2099-01-01T00:00:00Z", None);
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(&server.url(), &ca_line(&server), &user),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("info")).unwrap()).unwrap();
    assert_eq!(
        info,
        serde_json::json!({
            "kind": "ExecCredential",
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "spec": {"interactive": false},
        })
    );
    // interactiveMode: Always needs a terminal: refused before the plugin
    // runs and before anything is sent.
    let dir = TempDir::new().unwrap();
    server.clear_log();
    let user = exec_user(
        dir.path(),
        &server.token,
        "2099-01-01T00:00:00Z",
        Some("Always"),
    );
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(&server.url(), &ca_line(&server), &user),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal"
        ),
        "{stderr}"
    );
    assert_eq!(runs(dir.path()), 0);
    assert!(server.log().is_empty());
}

#[test]
fn issue_12_insecure_skip_tls_verify_with_a_ca_is_refused() {
    let server = Builder::openshift().objects_from(EXAMPLE).start();
    let dir = TempDir::new().unwrap();
    let config = write(
        dir.path(),
        "config",
        &kubeconfig(
            &server.url(),
            &format!("{}    insecure-skip-tls-verify: true\n", ca_line(&server)),
            &token_line(&server),
        ),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains(
            "error: specifying a root certificates file with the insecure flag is not allowed"
        ),
        "{stderr}"
    );
    assert!(server.log().is_empty());
    // Without the CA, insecure-skip-tls-verify connects to the server whose
    // certificate nothing here trusts.
    let config = write(
        dir.path(),
        "insecure",
        &kubeconfig(
            &server.url(),
            "    insecure-skip-tls-verify: true\n",
            &token_line(&server),
        ),
    );
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
}

fn requests_to(server: &FakeApiServer, path: &str) -> usize {
    server
        .log()
        .iter()
        .filter(|l| l.path.ends_with(path))
        .count()
}

#[test]
fn issue_12_429_with_retry_after_is_retried() {
    // client-go's checkWait: 429 (or 5xx) with an integer Retry-After is
    // sent again after that many seconds.
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .fault(
            None,
            "/imagedigestmirrorsets",
            0,
            Some(2),
            Fault::RetryAfter(429, "1".into()),
        )
        .start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    let started = Instant::now();
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(started.elapsed() >= Duration::from_secs(2));
    assert_eq!(requests_to(&server, "/imagedigestmirrorsets"), 3);
    let offline = bin().args(["list", "-f", EXAMPLE]).output().unwrap();
    let online = bin()
        .env("KUBECONFIG", &config)
        .args(["list"])
        .output()
        .unwrap();
    assert_eq!(online.stdout, offline.stdout);
}

#[test]
fn issue_12_retries_stop_after_ten() {
    // maxRetries is 10: the 11th answer is the error.
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .fault(
            None,
            "/imagedigestmirrorsets",
            0,
            None,
            Fault::RetryAfter(503, "0".into()),
        )
        .start();
    let dir = TempDir::new().unwrap();
    let config = server.write_kubeconfig(dir.path());
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("503"), "{stderr}");
    assert_eq!(requests_to(&server, "/imagedigestmirrorsets"), 11);
    // Without Retry-After a 429 is not retried (client-go's checkWait).
    let server = Builder::openshift()
        .objects_from(EXAMPLE)
        .fault(None, "/imagedigestmirrorsets", 0, None, Fault::Status(429))
        .start();
    let config = server.write_kubeconfig(dir.path());
    let (code, stderr) = list(&config);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(requests_to(&server, "/imagedigestmirrorsets"), 1);
}
