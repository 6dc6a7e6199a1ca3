//! Exec credential plugins (client.authentication.k8s.io), run as
//! client-go's `plugin/pkg/client/auth/exec` runs them: once per process for
//! a given plugin and cluster, the credential reused until its
//! `status.expirationTimestamp` passes (or a 401 comes back), with
//! `KUBERNETES_EXEC_INFO` telling the plugin whether it may talk to the
//! user.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::process::{Command, Stdio};
use std::sync::{Arc, LazyLock, Mutex};

use k8s_openapi::jiff::Timestamp;
use kube::config::{ExecConfig, ExecInteractiveMode};
use serde_json::{json, Value};

/// The API versions client-go accepts (v1alpha1 was removed in 1.24).
const API_VERSIONS: &[&str] = &[
    "client.authentication.k8s.io/v1beta1",
    "client.authentication.k8s.io/v1",
];

/// What a plugin returned.
#[derive(Debug)]
pub struct Credentials {
    pub token: Option<String>,
    /// PEM.
    pub client_certificate_data: Option<String>,
    /// PEM.
    pub client_key_data: Option<String>,
}

#[derive(Debug)]
struct Cached {
    credentials: Arc<Credentials>,
    expires: Option<Timestamp>,
}

/// One plugin for one cluster; the mutex also makes sure it never runs
/// twice at once (it may be asking the user something).
#[derive(Debug)]
pub struct ExecPlugin {
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    api_version: String,
    mode: ExecInteractiveMode,
    install_hint: Option<String>,
    cluster: Option<Value>,
    cached: Mutex<Option<Cached>>,
}

/// Plugins by configuration, for the life of the process (client-go's
/// `globalCache`): every connection a command makes shares one.
static PLUGINS: LazyLock<Mutex<HashMap<String, Arc<ExecPlugin>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The process-wide plugin for this configuration and cluster.
pub fn plugin(
    config: &ExecConfig,
    mode: ExecInteractiveMode,
    cluster: Option<Value>,
) -> Result<Arc<ExecPlugin>, String> {
    let api_version = config.api_version.clone().unwrap_or_default();
    if !API_VERSIONS.contains(&api_version.as_str()) {
        return Err(format!("exec plugin: invalid apiVersion \"{api_version}\""));
    }
    let env: Vec<(String, String)> = config
        .env
        .iter()
        .flatten()
        .filter_map(|e| Some((e.get("name")?.clone(), e.get("value")?.clone())))
        .collect();
    let plugin = ExecPlugin {
        command: config.command.clone().unwrap_or_default(),
        args: config.args.clone().unwrap_or_default(),
        env,
        api_version,
        mode,
        install_hint: config.install_hint.clone().filter(|h| !h.is_empty()),
        cluster,
        cached: Mutex::new(None),
    };
    let key = format!(
        "{:?}|{:?}|{:?}|{}|{:?}|{:?}",
        plugin.command,
        plugin.args,
        plugin.env,
        plugin.api_version,
        plugin.mode,
        plugin.cluster.as_ref().map(Value::to_string)
    );
    let mut plugins = PLUGINS.lock().unwrap_or_else(|e| e.into_inner());
    Ok(Arc::clone(
        plugins.entry(key).or_insert_with(|| Arc::new(plugin)),
    ))
}

/// client-go's `isInteractive`: whether the plugin may use the terminal.
pub fn is_interactive(
    mode: &ExecInteractiveMode,
    stdin_is_terminal: bool,
    stdin_unavailable: bool,
) -> Result<bool, String> {
    match mode {
        ExecInteractiveMode::Never => Ok(false),
        ExecInteractiveMode::IfAvailable => Ok(!stdin_unavailable && stdin_is_terminal),
        ExecInteractiveMode::Always => {
            if !stdin_is_terminal {
                return Err("standard input is not a terminal".to_string());
            }
            if stdin_unavailable {
                return Err("standard input is unavailable".to_string());
            }
            Ok(true)
        }
    }
}

impl ExecPlugin {
    /// The cached credential while it has not expired, else a new one from
    /// the plugin.
    pub fn credentials(&self) -> Result<Arc<Credentials>, String> {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref() {
            if c.expires.is_none_or(|at| Timestamp::now() <= at) {
                return Ok(Arc::clone(&c.credentials));
            }
        }
        let fresh = self.run()?;
        let credentials = Arc::clone(&fresh.credentials);
        *cached = Some(fresh);
        Ok(credentials)
    }

    /// Drops `used` so the next request runs the plugin again, unless the
    /// credential was already replaced.
    pub fn forget(&self, used: &Arc<Credentials>) {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if cached
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(&c.credentials, used))
        {
            *cached = None;
        }
    }

    fn run(&self) -> Result<Cached, String> {
        let interactive = is_interactive(&self.mode, std::io::stdin().is_terminal(), false)
            .map_err(|e| format!("exec plugin cannot support interactive mode: {e}"))?;
        let mut spec = serde_json::Map::new();
        if let Some(cluster) = &self.cluster {
            spec.insert("cluster".into(), cluster.clone());
        }
        spec.insert("interactive".into(), json!(interactive));
        let info = json!({
            "kind": "ExecCredential",
            "apiVersion": self.api_version,
            "spec": spec,
        });
        let mut command = Command::new(&self.command);
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("KUBERNETES_EXEC_INFO", info.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .stdin(if interactive {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        let output = command.output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                let mut message = format!("exec: executable {} not found", self.command);
                if let Some(hint) = &self.install_hint {
                    message.push_str(&format!(" ({})", hint.trim()));
                }
                message
            } else {
                format!("exec: {e}")
            }
        })?;
        if !output.status.success() {
            return Err(match output.status.code() {
                Some(code) => format!(
                    "exec: executable {} failed with exit code {code}",
                    self.command
                ),
                None => format!("exec: executable {} was killed by a signal", self.command),
            });
        }
        self.decode(&output.stdout)
    }

    /// Reads the plugin's `ExecCredential` (JSON, or YAML as client-go's
    /// decoder also accepts) and checks it as client-go does.
    fn decode(&self, stdout: &[u8]) -> Result<Cached, String> {
        let text = String::from_utf8_lossy(stdout);
        let value: Value =
            serde_saphyr::from_str(&text).map_err(|e| format!("decoding stdout: {e}"))?;
        let returned = value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if returned != self.api_version {
            return Err(format!(
                "exec plugin is configured to use API version {}, plugin returned version {returned}",
                self.api_version
            ));
        }
        let Some(status) = value.get("status").filter(|s| s.is_object()) else {
            return Err("exec plugin didn't return a status field".to_string());
        };
        let field = |name: &str| {
            status
                .get(name)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let credentials = Credentials {
            token: field("token"),
            client_certificate_data: field("clientCertificateData"),
            client_key_data: field("clientKeyData"),
        };
        if credentials.token.is_none()
            && credentials.client_certificate_data.is_none()
            && credentials.client_key_data.is_none()
        {
            return Err("exec plugin didn't return a token or cert/key pair".to_string());
        }
        if credentials.client_certificate_data.is_some() != credentials.client_key_data.is_some() {
            return Err("exec plugin returned only certificate or key, not both".to_string());
        }
        let expires = field("expirationTimestamp")
            .map(|t| {
                t.parse::<Timestamp>().map_err(|e| {
                    format!("decoding stdout: status.expirationTimestamp \"{t}\": {e}")
                })
            })
            .transpose()?;
        Ok(Cached {
            credentials: Arc::new(credentials),
            expires,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // client-go plugin/pkg/client/auth/exec/exec_test.go TestIsInteractive
    // (the rows that do not involve StdinUnavailableMessage).
    #[test]
    fn interactive_as_client_go() {
        use ExecInteractiveMode::*;
        for (mode, terminal, unavailable, want) in [
            (Never, true, false, Ok(false)),
            (Never, false, false, Ok(false)),
            (IfAvailable, true, false, Ok(true)),
            (IfAvailable, false, false, Ok(false)),
            (IfAvailable, true, true, Ok(false)),
            (Always, true, false, Ok(true)),
            (
                Always,
                false,
                false,
                Err("standard input is not a terminal".to_string()),
            ),
            (
                Always,
                true,
                true,
                Err("standard input is unavailable".to_string()),
            ),
        ] {
            assert_eq!(
                is_interactive(&mode, terminal, unavailable),
                want,
                "{mode:?} terminal={terminal} unavailable={unavailable}"
            );
        }
    }

    fn plugin_for(api_version: &str) -> ExecPlugin {
        ExecPlugin {
            command: "p".into(),
            args: Vec::new(),
            env: Vec::new(),
            api_version: api_version.into(),
            mode: ExecInteractiveMode::Never,
            install_hint: None,
            cluster: None,
            cached: Mutex::new(None),
        }
    }

    // exec_test.go TestRefreshCreds: the output checks.
    #[test]
    fn decoding_the_plugin_output() {
        let p = plugin_for("client.authentication.k8s.io/v1beta1");
        let ok = p
            .decode(br#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"token":"foo","expirationTimestamp":"2099-01-01T00:00:00Z"}}"#)
            .unwrap();
        assert_eq!(ok.credentials.token.as_deref(), Some("foo"));
        assert!(ok.expires.is_some());
        let yaml = p
            .decode(b"kind: ExecCredential\napiVersion: client.authentication.k8s.io/v1beta1\nstatus:\n  token: bar\n")
            .unwrap();
        assert_eq!(yaml.credentials.token.as_deref(), Some("bar"));
        assert!(yaml.expires.is_none());
        for (output, want) in [
            (
                r#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":"foo"}}"#,
                "exec plugin is configured to use API version client.authentication.k8s.io/v1beta1, plugin returned version client.authentication.k8s.io/v1",
            ),
            (
                r#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1"}"#,
                "exec plugin didn't return a status field",
            ),
            (
                r#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{}}"#,
                "exec plugin didn't return a token or cert/key pair",
            ),
            (
                r#"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","status":{"clientKeyData":"k"}}"#,
                "exec plugin returned only certificate or key, not both",
            ),
        ] {
            assert_eq!(p.decode(output.as_bytes()).unwrap_err(), want, "{output}");
        }
    }

    #[test]
    fn only_known_api_versions() {
        let config = ExecConfig {
            api_version: Some("client.authentication.k8s.io/v1alpha1".into()),
            command: Some("p".into()),
            ..ExecConfig::default()
        };
        assert_eq!(
            plugin(&config, ExecInteractiveMode::Never, None).unwrap_err(),
            "exec plugin: invalid apiVersion \"client.authentication.k8s.io/v1alpha1\""
        );
    }
}
