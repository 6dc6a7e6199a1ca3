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
//!
//! A file that comes from the cluster (the global pull secret) never runs a
//! program: whoever can edit a Secret must not choose what runs on the
//! administrator's machine, nor where its answer is sent. The kubelet reads
//! only the `auths` entries of a pull secret and hands CRI-O the
//! credentials, and a node has no credential helpers, so a cluster file's
//! `credHelpers` are kept only to say that they were ignored.

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
    /// `credHelpers` of a file that came from the cluster: never run.
    ignored_helpers: BTreeMap<String, String>,
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
            ignored_helpers: BTreeMap::new(),
            creds_store: creds_store.filter(|s| !s.is_empty()),
        })
    }

    /// Parses an auth file that a cluster object holds (a pull secret's
    /// `.dockerconfigjson`): its `credHelpers` are kept aside and never run,
    /// so only its `auths` entries give credentials.
    pub fn parse_from_cluster(name: &str, text: &str) -> Result<Self, AuthError> {
        let mut file = Self::parse(name, text, false)?;
        file.ignored_helpers = std::mem::take(&mut file.cred_helpers);
        Ok(file)
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
    /// The entry under `key` has an `auth` value that is not base64:
    /// containers/image fails the lookup, and with it the pull source.
    Invalid {
        file: String,
        key: String,
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
                match decode(entry) {
                    Ok(Some(credentials)) => {
                        return Found::Credentials {
                            credentials,
                            file: file.name.clone(),
                            key: key.to_string(),
                        }
                    }
                    Ok(None) => {}
                    Err(message) => {
                        return Found::Invalid {
                            file: file.name.clone(),
                            key: key.to_string(),
                            message,
                        }
                    }
                }
            }
        }
        Found::None
    }

    /// The cluster files whose `credHelpers` name a helper for the registry
    /// of `name`, as `(file, helper)`: helpers that were not run.
    pub fn ignored_helpers(&self, name: &str) -> Vec<(String, String)> {
        let registry = name.split('/').next().unwrap_or(name);
        self.files
            .iter()
            .filter_map(|f| Some((f.name.clone(), f.ignored_helpers.get(registry)?.clone())))
            .collect()
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
            return HelperAnswer::Failed(not_got(
                &format!("exec: \"{program}\": executable file not found in $PATH"),
                "",
            ))
        }
        Err(e) => return HelperAnswer::Failed(not_got(&format!("exec: \"{program}\": {e}"), "")),
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
    if out.len() as u64 >= MAX_HELPER_OUTPUT {
        return HelperAnswer::Failed(format!(
            "{program} get: an answer of {} MiB or more, which this tool does not read",
            MAX_HELPER_OUTPUT >> 20
        ));
    }
    helper_answer(&program, status, &out)
}

/// docker-credential-helpers' `client.Get` failure, as containers/image
/// passes it on: the program's error, then what it wrote.
fn not_got(err: &str, out: &str) -> String {
    format!("error getting credentials - err: {err}, out: `{out}`")
}

/// What a helper that exited with `status` after writing `out` answered.
fn helper_answer(program: &str, status: std::process::ExitStatus, out: &[u8]) -> HelperAnswer {
    let text = String::from_utf8_lossy(out);
    if !status.success() {
        let t = text.trim();
        if t == CREDENTIALS_NOT_FOUND {
            return HelperAnswer::NotFound;
        }
        // The helper's message names what failed; it is cut short, never a secret's worth.
        let t: String = t.chars().take(200).collect();
        let err = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => status.to_string(),
        };
        return HelperAnswer::Failed(not_got(&err, &t));
    }
    #[derive(Deserialize)]
    struct Answer {
        #[serde(default, rename = "Username")]
        username: String,
        #[serde(default, rename = "Secret")]
        secret: String,
    }
    match serde_json::from_slice::<Answer>(out) {
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

/// Go's `base64.StdEncoding` as the crate's engine: padded, and (not being
/// `Strict`) accepting non-zero bits after the last symbol.
const GO_STD_ENCODING: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireCanonical),
);

/// `decodeDockerAuth`: `Ok(None)` for an entry without `user:password`
/// (what a credential helper leaves behind), which does not stop the
/// lookup; `Err` (Go's `CorruptInputError` text) for an `auth` value that
/// is not base64, which does.
fn decode(entry: &Entry) -> Result<Option<Credentials>, String> {
    if let Some(at) = go_corrupt_offset(entry.auth.as_bytes()) {
        return Err(format!("illegal base64 data at input byte {at}"));
    }
    // Go's decoder skips line breaks anywhere in the text, and nothing else.
    let auth: Vec<u8> = entry
        .auth
        .bytes()
        .filter(|b| *b != b'\r' && *b != b'\n')
        .collect();
    let decoded = GO_STD_ENCODING
        .decode(&auth)
        .map_err(|e| format!("illegal base64 data: {e}"))?;
    let text = String::from_utf8_lossy(&decoded);
    let Some((user, password)) = text.split_once(':') else {
        return Ok(None);
    };
    Ok(Some(Credentials {
        username: user.to_string(),
        password: password.trim_matches('\0').to_string(),
        identity_token: entry.identity_token.clone(),
    }))
}

/// Where Go's `StdEncoding.DecodeString` refuses `src` (the offset its
/// `CorruptInputError` names), or `None` when it decodes: quantum by
/// quantum as `decodeQuantum` reads them. Only the error's position comes
/// from here; the bytes come from the `base64` crate, and a property test
/// holds the two to the same verdict.
fn go_corrupt_offset(src: &[u8]) -> Option<usize> {
    let symbol = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let newline = |b: u8| b == b'\n' || b == b'\r';
    let mut si = 0;
    loop {
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                return match j {
                    0 => None,
                    _ => Some(si - j),
                };
            }
            let b = src[si];
            si += 1;
            if symbol(b) {
                j += 1;
                continue;
            }
            if newline(b) {
                continue;
            }
            if b != b'=' || j < 2 {
                return Some(si - 1);
            }
            if j == 2 {
                while si < src.len() && newline(src[si]) {
                    si += 1;
                }
                if si == src.len() {
                    return Some(src.len());
                }
                if src[si] != b'=' {
                    return Some(si - 1);
                }
                si += 1;
            }
            while si < src.len() && newline(src[si]) {
                si += 1;
            }
            // Padding ends the text: anything after it is trailing garbage.
            return (si < src.len()).then_some(si);
        }
    }
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

    // Go encoding/base64 TestDecodeCorrupt (StdEncoding): the offset each
    // corrupt text is refused at, -1 where it decodes.
    #[test]
    fn go_base64_corrupt_offsets() {
        for (text, want) in [
            ("", -1),
            ("\n", -1),
            ("AAA=\n", -1),
            ("AAAA\n", -1),
            ("!!!!", 0),
            ("====", 0),
            ("x===", 1),
            ("=AAA", 0),
            ("A=AA", 1),
            ("AA=A", 2),
            ("AA==A", 4),
            ("AAA=AAAA", 4),
            ("AAAAA", 4),
            ("AAAAAA", 4),
            ("A=", 1),
            ("A==", 1),
            ("AA=", 3),
            ("AA==", -1),
            ("AAA=", -1),
            ("AAAA", -1),
            ("AAAAAA=", 7),
            ("YWJjZA=====", 8),
            ("A!\n", 1),
            ("A=\n", 1),
        ] {
            let entry = Entry {
                auth: text.to_string(),
                identity_token: String::new(),
            };
            let got = match decode(&entry) {
                Ok(_) => -1,
                Err(m) => m
                    .strip_prefix("illegal base64 data at input byte ")
                    .and_then(|n| n.parse::<i64>().ok())
                    .unwrap_or_else(|| panic!("{text:?}: {m}")),
            };
            assert_eq!(got, want, "{text:?}");
        }
    }

    // An `auth` that is not base64 fails the lookup (containers/image
    // `decodeDockerAuth` returns the decoder's error), naming file and key;
    // one without a colon is skipped, as docker does.
    #[test]
    fn issue_39_invalid_base64_fails_the_lookup() {
        let f = file("a.json", r#"{"auths": {"r.io": {"auth": "not base64!"}}}"#);
        let second = file(
            "b.json",
            &format!(
                r#"{{"auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
                auth("u", "p")
            ),
        );
        let sources = AuthSources {
            files: vec![f, second.clone()],
        };
        match sources.lookup("r.io/x", &mut no_helper) {
            Found::Invalid { file, key, message } => {
                assert_eq!((file.as_str(), key.as_str()), ("a.json", "r.io"));
                assert_eq!(message, "illegal base64 data at input byte 3");
            }
            other => panic!("{other:?}"),
        }
        let no_colon = base64::engine::general_purpose::STANDARD.encode("nocolon");
        let f = file(
            "a.json",
            &format!(r#"{{"auths": {{"r.io": {{"auth": "{no_colon}"}}}}}}"#),
        );
        let sources = AuthSources {
            files: vec![f, second],
        };
        assert_eq!(
            user(sources.lookup("r.io/x", &mut no_helper)),
            Some(("u".to_string(), "r.io".to_string()))
        );
    }

    // A pull secret's credHelpers are never run: only its auths entries count.
    #[test]
    fn issue_39_cluster_file_never_runs_a_helper() {
        let json = format!(
            r#"{{"credHelpers": {{"r.io": "evil", "other.io": "evil"}}, "auths": {{"r.io": {{"auth": "{}"}}}}}}"#,
            auth("u", "p")
        );
        let sources = AuthSources {
            files: vec![
                AuthFile::parse_from_cluster("Secret/openshift-config/pull-secret", &json)
                    .expect("parse"),
            ],
        };
        assert!(!sources.has_helpers());
        assert_eq!(
            user(sources.lookup("r.io/x", &mut no_helper)),
            Some(("u".to_string(), "r.io".to_string()))
        );
        assert_eq!(sources.lookup("other.io/x", &mut no_helper), Found::None);
        assert_eq!(
            sources.ignored_helpers("other.io/x"),
            [(
                "Secret/openshift-config/pull-secret".to_string(),
                "evil".to_string()
            )]
        );
        assert!(sources.ignored_helpers("third.io/x").is_empty());
        // The same text from a local file does run it.
        let local = AuthSources {
            files: vec![file("auth.json", &json)],
        };
        let mut asked = Vec::new();
        local.lookup("other.io/x", &mut |h, r| {
            asked.push((h.to_string(), r.to_string()));
            HelperAnswer::NotFound
        });
        assert_eq!(asked, [("evil".to_string(), "other.io".to_string())]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        // The Go-position scanner and the crate agree on which texts decode,
        // over texts made of symbols, padding, line breaks and a stray byte.
        #[test]
        fn go_corrupt_offset_agrees_with_the_crate(text in "[A-Za-z0-9+/=\r\n!]{0,16}") {
            let stripped: Vec<u8> = text.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect();
            let crate_ok = GO_STD_ENCODING.decode(&stripped).is_ok();
            proptest::prop_assert_eq!(go_corrupt_offset(text.as_bytes()).is_none(), crate_ok, "{:?}", text);
        }

        // Valid encodings with one byte inserted, where most corner cases live.
        #[test]
        fn go_corrupt_offset_agrees_on_mutated_encodings(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
            at in proptest::prelude::any::<usize>(),
            insert in "[=\r\nA!]",
        ) {
            let mut text = GO_STD_ENCODING.encode(&bytes);
            text.insert_str(at % (text.len() + 1), &insert);
            let stripped: Vec<u8> = text.bytes().filter(|b| *b != b'\r' && *b != b'\n').collect();
            let crate_ok = GO_STD_ENCODING.decode(&stripped).is_ok();
            proptest::prop_assert_eq!(go_corrupt_offset(text.as_bytes()).is_none(), crate_ok, "{:?}", text);
        }
    }
}
