//! Registry credentials, found as containers/image finds them
//! (`pkg/docker/config`): the auth files in order, in each the
//! most specific key first (`host/ns/repo`, then `host/ns`, then `host`),
//! then the keys normalized as `docker login` used to write them.
//!
//! Credentials are never printed: [`Credentials`] redacts itself in
//! `Debug`, and results name only the file and the key they came from.
//!
//! A file's `credHelpers` entry for the registry sends the lookup to
//! `docker-credential-<name> get` (`getCredsFromCredHelper`, by registry
//! only, never by namespace); a helper that has nothing for the registry
//! lets the lookup go on to the next file, a helper that fails (or is not
//! on `PATH`) fails the lookup, and containers/image then fails that pull
//! source without contacting it. Docker's `credsStore` is not read by
//! containers/image (`pkg/docker/config` has no such field): the probe
//! only says so.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::Deserialize;

/// A user name and password (or identity token) for one registry.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
    /// An OAuth2 refresh token (`identitytoken`): the bearer flow then posts it.
    pub identity_token: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Credentials(redacted)")
    }
}

/// One auth file, parsed.
#[derive(Debug, Clone)]
pub struct AuthFile {
    /// How the file is named in results: a path, or the Secret it comes from.
    pub name: String,
    /// `~/.dockercfg`: keys are registries, looked up by the registry only.
    pub legacy: bool,
    auths: BTreeMap<String, Entry>,
    cred_helpers: BTreeMap<String, String>,
    /// Docker's `credsStore`, which containers/image ignores.
    pub creds_store: Option<String>,
}

#[derive(Clone, Default, Deserialize)]
struct Entry {
    #[serde(default)]
    auth: String,
    #[serde(default, rename = "identitytoken")]
    identity_token: String,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Entry(redacted)")
    }
}

#[derive(Deserialize)]
struct FileJson {
    #[serde(default)]
    auths: BTreeMap<String, Entry>,
    #[serde(default, rename = "credHelpers")]
    cred_helpers: BTreeMap<String, String>,
    #[serde(default, rename = "credsStore")]
    creds_store: Option<String>,
}

/// Why an auth file cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{name}: {message}")]
pub struct AuthError {
    pub name: String,
    pub message: String,
}

impl AuthFile {
    /// Parses an auth.json / config.json (or, `legacy`, a `.dockercfg`).
    pub fn parse(name: &str, text: &str, legacy: bool) -> Result<Self, AuthError> {
        let err = |message: String| AuthError {
            name: name.to_string(),
            message,
        };
        let (auths, cred_helpers, creds_store) = if legacy {
            let auths: BTreeMap<String, Entry> =
                serde_json::from_str(text).map_err(|e| err(format!("not a .dockercfg: {e}")))?;
            (auths, BTreeMap::new(), None)
        } else {
            let f: FileJson = serde_json::from_str(text)
                .map_err(|e| err(format!("not a containers auth file: {e}")))?;
            (f.auths, f.cred_helpers, f.creds_store)
        };
        Ok(AuthFile {
            name: name.to_string(),
            legacy,
            auths,
            cred_helpers,
            creds_store: creds_store.filter(|s| !s.is_empty()),
        })
    }
}

/// What the lookup found for one repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Credentials, from `file` under `key`.
    Credentials {
        credentials: Credentials,
        file: String,
        key: String,
    },
    /// The credential helper the file names for this registry failed:
    /// containers/image fails the pull source without contacting it.
    HelperFailed {
        file: String,
        helper: String,
        message: String,
    },
    /// No file has credentials: the pull is anonymous.
    None,
}

/// What `docker-credential-<name> get` answered for a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelperAnswer {
    Found(Credentials),
    /// `credentials not found in native keychain`: the lookup goes on.
    NotFound,
    /// The helper is missing, failed or answered something else.
    Failed(String),
}

/// The auth files in lookup order; the first that has credentials wins.
#[derive(Debug, Clone, Default)]
pub struct AuthSources {
    pub files: Vec<AuthFile>,
}

impl AuthSources {
    /// `getCredentialsWithHomeDir` over the files, for the repository
    /// `name` (`host[:port]/path`) of the endpoint contacted; `helper`
    /// runs a credential helper (`(name, registry)`).
    pub fn lookup(&self, name: &str, helper: &mut dyn FnMut(&str, &str) -> HelperAnswer) -> Found {
        let registry = name.split('/').next().unwrap_or(name);
        for file in &self.files {
            if let Some(h) = file.cred_helpers.get(registry) {
                match helper(h, registry) {
                    HelperAnswer::Found(credentials) if credentials != Credentials::default() => {
                        return Found::Credentials {
                            credentials,
                            file: format!(
                                "credential helper \"{h}\" (credHelpers in {})",
                                file.name
                            ),
                            key: registry.to_string(),
                        }
                    }
                    HelperAnswer::Found(_) | HelperAnswer::NotFound => continue,
                    HelperAnswer::Failed(message) => {
                        return Found::HelperFailed {
                            file: file.name.clone(),
                            helper: h.clone(),
                            message,
                        }
                    }
                }
            }
            let mut found: Option<(&str, &Entry)> = None;
            for key in key_lookup_order(name, registry, file.legacy) {
                if let Some((k, e)) = file.auths.get_key_value(key) {
                    found = Some((k, e));
                    break;
                }
            }
            if found.is_none() {
                let registry = normalize_registry(registry);
                found = file
                    .auths
                    .iter()
                    .find(|(k, _)| normalize_key(k, file.legacy) == registry)
                    .map(|(k, e)| (k.as_str(), e));
            }
            if let Some((key, entry)) = found {
                if let Some(credentials) = decode(entry) {
                    return Found::Credentials {
                        credentials,
                        file: file.name.clone(),
                        key: key.to_string(),
                    };
                }
            }
        }
        Found::None
    }
}

impl AuthSources {
    /// Whether a file sends some registry to a credential helper.
    pub fn has_helpers(&self) -> bool {
        self.files.iter().any(|f| !f.cred_helpers.is_empty())
    }

    /// The files that set Docker's `credsStore`, which containers/image does not read.
    pub fn ignored_creds_stores(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .filter_map(|f| Some((f.name.clone(), f.creds_store.clone()?)))
            .collect()
    }
}

/// What `docker-credential-helpers`' `client.Get` reports for "nothing stored".
const CREDENTIALS_NOT_FOUND: &str = "credentials not found in native keychain";
/// The most of a helper's answer that is read.
const MAX_HELPER_OUTPUT: u64 = 1 << 20;

/// `getCredsFromCredHelper`: runs `docker-credential-<helper> get` with the
/// registry on stdin, as docker-credential-helpers' client does, and reads
/// `{"Username", "Secret"}` (`<token>` as the user name means an identity
/// token). A helper that does not answer within `timeout` is killed.
pub fn run_helper(helper: &str, registry: &str, timeout: std::time::Duration) -> HelperAnswer {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let program = format!("docker-credential-{helper}");
    let mut child = match Command::new(&program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return HelperAnswer::Failed(format!("{program}: executable file not found in $PATH"))
        }
        Err(e) => return HelperAnswer::Failed(format!("{program}: {e}")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A helper that exits without reading closes the pipe: its exit status tells.
        let _ = stdin.write_all(registry.as_bytes());
    }
    let reader = child.stdout.take().map(|out| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = out.take(MAX_HELPER_OUTPUT).read_to_end(&mut buf);
            buf
        })
    });
    let deadline = std::time::Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return HelperAnswer::Failed(format!(
                    "{program} get: no answer within {}s",
                    timeout.as_secs_f64()
                ));
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(5)),
            Err(e) => return HelperAnswer::Failed(format!("{program} get: {e}")),
        }
    };
    let out = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    let text = String::from_utf8_lossy(&out);
    if !status.success() {
        let t = text.trim();
        if t == CREDENTIALS_NOT_FOUND {
            return HelperAnswer::NotFound;
        }
        // The helper's message names what failed; it is cut short, never a secret's worth.
        let t: String = t.chars().take(200).collect();
        return HelperAnswer::Failed(format!("{program} get: {status}: {t}"));
    }
    #[derive(Deserialize)]
    struct Answer {
        #[serde(default, rename = "Username")]
        username: String,
        #[serde(default, rename = "Secret")]
        secret: String,
    }
    match serde_json::from_slice::<Answer>(&out) {
        Ok(a) if a.username == "<token>" => HelperAnswer::Found(Credentials {
            identity_token: a.secret,
            ..Credentials::default()
        }),
        Ok(a) => HelperAnswer::Found(Credentials {
            username: a.username,
            password: a.secret,
            identity_token: String::new(),
        }),
        Err(e) => HelperAnswer::Failed(format!("{program} get: not a credentials answer: {e}")),
    }
}

/// `authKeyLookupOrder`: the key, then each parent namespace up to the
/// registry; a legacy file only by registry.
fn key_lookup_order<'a>(name: &'a str, registry: &'a str, legacy: bool) -> Vec<&'a str> {
    if legacy {
        return vec![registry];
    }
    let mut out = vec![name];
    let mut key = name;
    while let Some(i) = key.rfind('/') {
        key = &key[..i];
        out.push(key);
    }
    out
}

/// `normalizeRegistry`.
fn normalize_registry(registry: &str) -> &str {
    match registry {
        "registry-1.docker.io" | "docker.io" => "index.docker.io",
        r => r,
    }
}

/// `normalizeAuthFileKey`: URL keys (`https://host/v1/`) by their host.
fn normalize_key(key: &str, legacy: bool) -> &str {
    let stripped = key
        .strip_prefix("http://")
        .or_else(|| key.strip_prefix("https://"));
    let mut out = stripped.unwrap_or(key);
    if legacy || stripped.is_some() {
        out = out.split('/').next().unwrap_or(out);
    }
    normalize_registry(out)
}

/// `decodeDockerAuth`: `None` for an entry without `user:password` (what a
/// credential helper leaves behind), which does not stop the lookup.
fn decode(entry: &Entry) -> Option<Credentials> {
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(entry.auth.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    Some(Credentials {
        username: user.to_string(),
        password: password.trim_matches('\0').to_string(),
        identity_token: entry.identity_token.clone(),
    })
}

/// The auth files containers/image reads when no `--authfile` is given, in
/// order (`getAuthFilePaths`), with whether each is a legacy `.dockercfg`.
/// `REGISTRY_AUTH_FILE` is what skopeo and podman pass as the auth file
/// when `--authfile` is absent: then it is the only file.
pub fn default_paths(
    authfile: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    home: Option<&Path>,
    uid: u32,
) -> Vec<(PathBuf, bool)> {
    let env = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(p) = authfile {
        return vec![(p.to_path_buf(), false)];
    }
    if let Some(p) = env("REGISTRY_AUTH_FILE") {
        return vec![(PathBuf::from(p), false)];
    }
    let mut out = Vec::new();
    match env("XDG_RUNTIME_DIR") {
        Some(dir) => out.push((Path::new(&dir).join("containers/auth.json"), false)),
        None => out.push((
            PathBuf::from(format!("/run/containers/{uid}/auth.json")),
            false,
        )),
    }
    let Some(home) = home else {
        return out;
    };
    let config_home = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".config"));
    out.push((config_home.join("containers/auth.json"), false));
    match env("DOCKER_CONFIG") {
        Some(dir) => out.push((Path::new(&dir).join("config.json"), false)),
        None => out.push((home.join(".docker/config.json"), false)),
    }
    out.push((home.join(".dockercfg"), true));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(user: &str, pass: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"))
    }

    fn file(name: &str, json: &str) -> AuthFile {
        AuthFile::parse(name, json, false).expect("auth file")
    }

    fn no_helper(_: &str, _: &str) -> HelperAnswer {
        panic!("no helper expected")
    }

    fn user(found: Found) -> Option<(String, String)> {
        match found {
            Found::Credentials {
                credentials, key, ..
            } => Some((credentials.username, key)),
            _ => None,
        }
    }

    // containers/image pkg/docker/config TestGetAuth "match one" / "namespaced":
    // the most specific key wins, parents are tried in order.
    #[test]
    fn most_specific_key_wins() {
        let json = format!(
            r#"{{"auths": {{
                "example.org": {{"auth": "{}"}},
                "example.org/ns": {{"auth": "{}"}},
                "example.org/ns/repo": {{"auth": "{}"}}
            }}}}"#,
            auth("host", "p"),
            auth("ns", "p"),
            auth("repo", "p")
        );
        let s = AuthSources {
            files: vec![file("a.json", &json)],
        };
        assert_eq!(
            user(s.lookup("example.org/ns/repo", &mut no_helper)),
            Some(("repo".into(), "example.org/ns/repo".into()))
        );
        assert_eq!(
            user(s.lookup("example.org/ns/other", &mut no_helper)),
            Some(("ns".into(), "example.org/ns".into()))
        );
        assert_eq!(
            user(s.lookup("example.org/other/repo", &mut no_helper)),
            Some(("host".into(), "example.org".into()))
        );
        assert_eq!(s.lookup("other.org/ns/repo", &mut no_helper), Found::None);
    }

    // TestGetAuth "normalize registry": URL keys and docker.io aliases.
    #[test]
    fn normalized_keys_match_by_registry() {
        let json = format!(
            r#"{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{}"}},
                            "http://example.org/v2/": {{"auth": "{}"}}}}}}"#,
            auth("docker", "p"),
            auth("url", "p")
        );
        let s = AuthSources {
            files: vec![file("a.json", &json)],
        };
        assert_eq!(
            user(s.lookup("docker.io/library/busybox", &mut no_helper)).map(|u| u.0),
            Some("docker".into())
        );
        assert_eq!(
            user(s.lookup("example.org/a/b", &mut no_helper)).map(|u| u.0),
            Some("url".into())
        );
    }

    // The first file with credentials wins; an empty entry (a credential
    // helper marker) does not stop the lookup.
    #[test]
    fn files_in_order_and_empty_entries_skipped() {
        let first = file("first", r#"{"auths": {"example.org": {}}}"#);
        let second = file(
            "second",
            &format!(
                r#"{{"auths": {{"example.org": {{"auth": "{}"}}}}}}"#,
                auth("b", "p")
            ),
        );
        let s = AuthSources {
            files: vec![first, second],
        };
        match s.lookup("example.org/a", &mut no_helper) {
            Found::Credentials { file, .. } => assert_eq!(file, "second"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn password_keeps_colons_and_drops_nuls() {
        let json = format!(
            r#"{{"auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
            base64::engine::general_purpose::STANDARD.encode("u:pa:ss\0")
        );
        let s = AuthSources {
            files: vec![file("a", &json)],
        };
        match s.lookup("r.io/x", &mut no_helper) {
            Found::Credentials { credentials, .. } => {
                assert_eq!(credentials.password, "pa:ss");
                assert_eq!(format!("{credentials:?}"), "Credentials(redacted)");
            }
            other => panic!("{other:?}"),
        }
    }

    // pkg/docker/config findCredentialsInFile: credHelpers by registry
    // first; "not found" goes on to the next file; a failure stops the lookup.
    #[test]
    fn cred_helpers_run_by_registry() {
        let first = file(
            "first",
            r#"{"credHelpers": {"r.io": "ecr-login"}, "auths": {"r.io/x": {"auth": "dTpw"}}}"#,
        );
        let second = file(
            "second",
            &format!(
                r#"{{"auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
                auth("b", "p")
            ),
        );
        let s = AuthSources {
            files: vec![first, second],
        };
        let mut asked = Vec::new();
        let found = s.lookup("r.io/x/y", &mut |h, r| {
            asked.push((h.to_string(), r.to_string()));
            HelperAnswer::Found(Credentials {
                username: "h".into(),
                password: "p".into(),
                identity_token: String::new(),
            })
        });
        assert_eq!(asked, vec![("ecr-login".to_string(), "r.io".to_string())]);
        match found {
            Found::Credentials {
                credentials,
                file,
                key,
            } => {
                assert_eq!(credentials.username, "h");
                assert_eq!(key, "r.io");
                assert!(
                    file.contains("\"ecr-login\"") && file.contains("first"),
                    "{file}"
                );
            }
            other => panic!("{other:?}"),
        }
        // The helper has nothing: the file's own auths are not read, the next file is.
        match s.lookup("r.io/x/y", &mut |_, _| HelperAnswer::NotFound) {
            Found::Credentials {
                file, credentials, ..
            } => {
                assert_eq!(file, "second");
                assert_eq!(credentials.username, "b");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            s.lookup("r.io/x/y", &mut |_, _| HelperAnswer::Failed("gone".into())),
            Found::HelperFailed { helper, message, .. } if helper == "ecr-login" && message == "gone"
        ));
    }

    #[test]
    fn creds_store_is_kept_but_not_used() {
        let f = file("a", r#"{"credsStore": "desktop"}"#);
        assert_eq!(f.creds_store.as_deref(), Some("desktop"));
        let s = AuthSources { files: vec![f] };
        assert_eq!(s.lookup("r.io/x", &mut no_helper), Found::None);
    }

    #[test]
    fn legacy_files_match_by_registry_only() {
        let f = AuthFile::parse(
            ".dockercfg",
            &format!(
                r#"{{"https://r.io/v1/": {{"auth": "{}"}}}}"#,
                auth("old", "p")
            ),
            true,
        )
        .expect("legacy");
        let s = AuthSources { files: vec![f] };
        assert_eq!(
            user(s.lookup("r.io/a/b", &mut no_helper)).map(|u| u.0),
            Some("old".into())
        );
    }

    // getAuthFilePaths / getPathToAuthWithOS.
    #[test]
    fn default_paths_follow_containers_image() {
        let none = |_: &str| None;
        let home = Path::new("/h");
        let paths = default_paths(None, &none, Some(home), 7);
        assert_eq!(
            paths,
            vec![
                (PathBuf::from("/run/containers/7/auth.json"), false),
                (PathBuf::from("/h/.config/containers/auth.json"), false),
                (PathBuf::from("/h/.docker/config.json"), false),
                (PathBuf::from("/h/.dockercfg"), true),
            ]
        );
        let env = |k: &str| match k {
            "XDG_RUNTIME_DIR" => Some("/x".to_string()),
            "DOCKER_CONFIG" => Some("/d".to_string()),
            _ => None,
        };
        let paths = default_paths(None, &env, Some(home), 7);
        assert_eq!(paths[0].0, PathBuf::from("/x/containers/auth.json"));
        assert_eq!(paths[2].0, PathBuf::from("/d/config.json"));
        let env = |k: &str| (k == "REGISTRY_AUTH_FILE").then(|| "/r.json".to_string());
        assert_eq!(
            default_paths(None, &env, Some(home), 7),
            vec![(PathBuf::from("/r.json"), false)]
        );
        assert_eq!(
            default_paths(Some(Path::new("/a.json")), &env, Some(home), 7),
            vec![(PathBuf::from("/a.json"), false)]
        );
    }
}
