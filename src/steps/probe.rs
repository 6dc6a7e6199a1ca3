//! The `--probe` flags of `explain` and `audit`, and the credentials and
//! TLS trust they are probed with.
//!
//! Offline (node files or `-f`): `--authfile`, or containers/image's own
//! auth-file lookup (`REGISTRY_AUTH_FILE`, `$XDG_RUNTIME_DIR/containers/auth.json`,
//! `~/.config/containers/auth.json`, `~/.docker/config.json`, `~/.dockercfg`).
//! TLS: the system roots plus `--cert-dir`, as skopeo and podman read it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};

use mirrorpolicy::node_paths::DropInFolder;
use mirrorpolicy::objects::install_config::PullSecret;
use mirrorpolicy::objects::Inputs;
use mirrorpolicy::probe::auth::{self, AuthFile, AuthSources};
use mirrorpolicy::probe::tls::TlsSettings;
use mirrorpolicy::probe::{ProbeContext, Prober, RegistriesD};
use mirrorpolicy::source::drop_in_dir::{self, Listing};

use crate::exit::Failure;

/// How the registries are probed, resolved from the command's flags
/// (`--probe`, `--authfile`, `--cert-dir`, `--registries-d`,
/// `--probe-timeout`, `--probe-concurrency`) before anything is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeSetup {
    /// Whether the pull sources are probed at all.
    pub enabled: bool,
    pub authfile: Option<PathBuf>,
    pub cert_dir: Option<PathBuf>,
    /// registries.d to read instead of the rendered one.
    pub registries_d: Option<PathBuf>,
    /// How long one registry may take to answer (at least a second).
    pub timeout: Duration,
    /// How many images are probed at once.
    pub concurrency: usize,
}

/// Reads an auth file; a missing one is skipped, as containers/image does.
fn read_auth_file(path: &Path, legacy: bool) -> Result<Option<AuthFile>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(e).with_context(|| {
                Failure::input(format!("cannot read auth file \"{}\"", path.display()))
            })
        }
    };
    AuthFile::parse(&path.display().to_string(), &text, legacy)
        .map(Some)
        .map_err(|e| Failure::input(e.to_string()).into())
}

/// The auth files read offline, in containers/image's order.
pub fn offline_auth(args: &ProbeSetup) -> Result<AuthSources> {
    if let Some(p) = &args.authfile {
        if !p.is_file() {
            return Err(Failure::input(format!(
                "--authfile \"{}\" is not a readable file",
                p.display()
            ))
            .into());
        }
    }
    let env = |k: &str| std::env::var(k).ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let uid = uid();
    let mut files = Vec::new();
    for (path, legacy) in auth::default_paths(args.authfile.as_deref(), &env, home.as_deref(), uid)
    {
        if let Some(f) = read_auth_file(&path, legacy)? {
            files.push(f);
        }
    }
    Ok(AuthSources { files })
}

fn uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(0)
}

/// The system roots plus `--cert-dir`.
pub fn tls_settings(args: &ProbeSetup) -> Result<TlsSettings> {
    let mut tls = TlsSettings::with_system_roots();
    if let Some(dir) = &args.cert_dir {
        if !dir.is_dir() {
            return Err(Failure::input(format!(
                "--cert-dir \"{}\" is not a folder",
                dir.display()
            ))
            .into());
        }
        tls.add_cert_dir(dir).with_context(|| {
            Failure::input(format!("cannot read --cert-dir \"{}\"", dir.display()))
        })?;
    }
    Ok(tls)
}

/// registries.d from `--registries-d`, listed and read as containers/image
/// reads it ([`drop_in_dir`]: `*.yaml`, hidden names and links included).
pub fn registries_d_from_dir(dir: Option<&Path>) -> Result<RegistriesD> {
    let Some(dir) = dir else {
        return Ok(RegistriesD::default());
    };
    let cannot_list = || {
        Failure::input(format!(
            "cannot read registries.d folder \"{}\"",
            dir.display()
        ))
    };
    // registries.d is opened through a link: every listing is of files.
    let paths = match drop_in_dir::list(dir, DropInFolder::RegistriesD).with_context(cannot_list)? {
        Listing::Files(paths) => paths,
        Listing::LinkNotFollowed { .. } => Vec::new(),
    };
    let mut files = Vec::new();
    for p in paths {
        let text = drop_in_dir::read(&p).with_context(|| {
            Failure::input(format!("cannot read registries.d file \"{}\"", p.display()))
        })?;
        if let Some(text) = text {
            files.push((p.display().to_string(), text));
        }
    }
    RegistriesD::load(&files).map_err(|e| Failure::input(e.to_string()).into())
}

/// registries.d from the text of one rendered file.
pub fn registries_d_from_text(name: &str, text: Option<&str>) -> Result<RegistriesD> {
    match text {
        None => Ok(RegistriesD::default()),
        Some(t) => RegistriesD::load(&[(name.to_string(), t.to_string())])
            .map_err(|e| Failure::input(e.to_string()).into()),
    }
}

/// Everything a probe needs.
pub fn context(
    args: &ProbeSetup,
    auth: AuthSources,
    tls: TlsSettings,
    registries_d: RegistriesD,
) -> ProbeContext {
    ProbeContext {
        prober: Prober::new(tls, auth, args.timeout),
        registries_d,
    }
}

/// The namespace of the global pull secret and the additional CAs.
const OPENSHIFT_CONFIG: &str = "openshift-config";
const PULL_SECRET: &str = "pull-secret";

/// Explain over cluster objects: offline (`-f`) with the local auth files,
/// live with the cluster's global pull secret (what the kubelet writes to
/// `/var/lib/kubelet/config.json` and CRI-O reads; `--authfile` overrides
/// it) and the CAs of `Image.spec.additionalTrustedCA`. An install-config.yaml
/// among the files gives what its cluster's nodes will have: its
/// `additionalTrustBundle`, trusted for every registry, and its
/// `pullSecret` as the credentials (`--authfile` overrides it).
pub fn context_for_objects(
    settings: &crate::settings::Settings,
    args: &ProbeSetup,
    filenames: &[PathBuf],
    rendered: &mirrorpolicy::render::pool::Rendered,
    inputs: &Inputs,
) -> Result<ProbeContext> {
    use mirrorpolicy::render::sigstore::SIGSTORE_REGISTRIES_D;
    let registries_d = match &args.registries_d {
        Some(dir) => registries_d_from_dir(Some(dir))?,
        None => {
            registries_d_from_text(SIGSTORE_REGISTRIES_D, rendered.file(SIGSTORE_REGISTRIES_D))?
        }
    };
    let mut tls = tls_settings(args)?;
    let auth = if filenames.is_empty() {
        let trust = read_live_trust(settings, args.authfile.is_none())?;
        for (host_port, origin, pem) in &trust.cas {
            tls.add_host_cas(host_port, origin, pem)
                .map_err(|e| Failure::cluster(e.to_string()))?;
        }
        match trust.pull_secret {
            Some(file) => AuthSources { files: vec![file] },
            None => offline_auth(args)?,
        }
    } else {
        for ca in &inputs.node_trust {
            tls.add_trusted_pem(ca.origin.as_str(), &ca.pem)
                .map_err(|e| Failure::input(e.to_string()))?;
        }
        for (host_port, origin, pem) in &file_trusted_cas(settings, filenames, inputs)? {
            tls.add_host_cas(host_port, origin, pem)
                .map_err(|e| Failure::input(e.to_string()))?;
        }
        match (&inputs.pull_secret, &args.authfile) {
            (Some(secret), None) => install_config_auth(settings, secret)?,
            _ => offline_auth(args)?,
        }
    };
    Ok(context(args, auth, tls, registries_d))
}

/// The credentials of install-config.yaml's `pullSecret`, the global pull
/// secret the installer gives the cluster. A secret that is not an auth
/// file is refused without quoting it (the installer refuses it too).
fn install_config_auth(
    settings: &crate::settings::Settings,
    secret: &PullSecret,
) -> Result<AuthSources> {
    let origin = secret.origin.as_str();
    let file = AuthFile::parse_from_cluster(origin, secret.expose()).map_err(|_| {
        Failure::input(format!(
            "{origin}: not a JSON auth file ({{\"auths\": {{...}}}}), which the installer requires"
        ))
    })?;
    settings.verbose(|| {
        format!("registries are probed with the credentials of {origin}, the global pull secret of the cluster to be installed (--authfile overrides it)")
    });
    Ok(AuthSources { files: vec![file] })
}

/// What the live cluster gives the probe.
struct LiveTrust {
    pull_secret: Option<AuthFile>,
    /// `(host[:port], origin, PEM)` from the additionalTrustedCA ConfigMap.
    cas: Vec<(String, String, String)>,
}

/// The cluster's global pull secret (read only when `want_secret`; its
/// absence is warned about) and the CAs of `Image.spec.additionalTrustedCA`.
fn read_live_trust(settings: &crate::settings::Settings, want_secret: bool) -> Result<LiveTrust> {
    let TrustObjects { secret, config_map } = fetch_live_trust(settings, want_secret)?;
    let origin = format!("Secret/{OPENSHIFT_CONFIG}/{PULL_SECRET}");
    let pull_secret = match secret {
        None if want_secret => {
            settings.warn(format!(
                "{origin} does not exist: registries are probed without credentials"
            ));
            None
        }
        None => None,
        Some(s) => Some(decode_pull_secret(&origin, &s)?),
    };
    let cas = match config_map {
        Some((name, cm)) => trusted_cas(&name, &cm),
        None => Vec::new(),
    };
    Ok(LiveTrust { pull_secret, cas })
}

/// The objects the probe's trust comes from, as the API server has them.
struct TrustObjects {
    /// The global pull secret, when asked for and it exists.
    secret: Option<serde_json::Value>,
    /// The additionalTrustedCA ConfigMap with its name, when the Image
    /// config names one and it exists.
    config_map: Option<(String, serde_json::Value)>,
}

/// Reads the [`TrustObjects`] from the cluster; the pull secret only when
/// `want_secret`.
fn fetch_live_trust(
    settings: &crate::settings::Settings,
    want_secret: bool,
) -> Result<TrustObjects> {
    use mirrorpolicy::source::api::{self as live, CONFIG_MAPS, IMAGES, SECRETS};
    let options = settings.cluster_options()?;
    let runtime = crate::steps::inputs::runtime()?;
    let fetched = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let secret = if want_secret {
                connection
                    .get_in(&SECRETS, OPENSHIFT_CONFIG, PULL_SECRET)
                    .await?
            } else {
                None
            };
            let image = connection.get(&IMAGES, "cluster").await?;
            let ca_name = image
                .as_ref()
                .and_then(|i| i.pointer("/spec/additionalTrustedCA/name"))
                .and_then(|n| n.as_str())
                .filter(|n| !n.is_empty())
                .map(str::to_string);
            let config_map = match &ca_name {
                Some(name) => connection
                    .get_in(&CONFIG_MAPS, OPENSHIFT_CONFIG, name)
                    .await?
                    .map(|cm| (name.clone(), cm)),
                None => None,
            };
            Ok::<_, live::ClusterError>(TrustObjects { secret, config_map })
        })
        .map_err(crate::steps::inputs::cluster_failure)?;
    Ok(fetched)
}

/// The auth file in the pull secret `s` (named `origin` in errors): its
/// `data.".dockerconfigjson"`, base64-decoded.
fn decode_pull_secret(origin: &str, s: &serde_json::Value) -> Result<AuthFile> {
    secret_auth_file(origin, s).map_err(|e| Failure::cluster(e).into())
}

/// The auth file of a pull secret `s` (named `origin` in messages): its
/// `data.".dockerconfigjson"` (`kubernetes.io/dockerconfigjson`), or a
/// legacy `data.".dockercfg"` (`kubernetes.io/dockercfg`), base64-decoded.
/// Helpers it names are never run.
pub fn secret_auth_file(origin: &str, s: &serde_json::Value) -> Result<AuthFile, String> {
    use base64::Engine;
    let (key, legacy) = match s.pointer("/data/.dockerconfigjson") {
        Some(_) => (".dockerconfigjson", false),
        None if s.pointer("/data/.dockercfg").is_some() => (".dockercfg", true),
        None => return Err(format!("{origin}: no data field .dockerconfigjson")),
    };
    let data = s
        .pointer(&format!("/data/{key}"))
        .and_then(|v| v.as_str())
        .ok_or_else(|| format!("{origin}: data.\"{key}\" is not a string"))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.trim())
        .map_err(|_| format!("{origin}: data.\"{key}\" is not base64"))?;
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{origin}: data.\"{key}\" is not UTF-8"))?;
    let file = if legacy {
        AuthFile::parse(origin, &text, true)
    } else {
        AuthFile::parse_from_cluster(origin, &text)
    };
    file.map_err(|e| e.to_string())
}

/// The CAs of the ConfigMap `Image.spec.additionalTrustedCA` names, from
/// the files and folders of `-f` (a must-gather's
/// `namespaces/openshift-config/core/configmaps.yaml`), read as the live
/// cluster's. One the Image config names that the files lack is warned about.
fn file_trusted_cas(
    settings: &crate::settings::Settings,
    filenames: &[PathBuf],
    inputs: &Inputs,
) -> Result<Vec<(String, String, String)>> {
    let name = inputs
        .image
        .as_ref()
        .and_then(|i| i.spec.additional_trusted_ca.as_ref())
        .map(|c| c.name.as_str())
        .filter(|n| !n.is_empty());
    let Some(name) = name else {
        return Ok(Vec::new());
    };
    let maps = mirrorpolicy::source::file::config_maps(filenames, &[OPENSHIFT_CONFIG])
        .map_err(|e| Failure::input(e.to_string()))?;
    let named = |cm: &serde_json::Value| {
        cm.pointer("/metadata/name").and_then(|n| n.as_str()) == Some(name)
    };
    match maps.iter().find(|(_, cm)| named(cm)) {
        Some((_, cm)) => Ok(trusted_cas(name, cm)),
        None => {
            settings.warn(format!(
                "Image/cluster spec.additionalTrustedCA names ConfigMap/{OPENSHIFT_CONFIG}/{name}, which is not among the files: registries are probed without its CAs (add it to -f, or pass --cert-dir)"
            ));
            Ok(Vec::new())
        }
    }
}

/// The CAs of the additionalTrustedCA ConfigMap `name`, one per string
/// key of its data, as `(host[:port], origin, PEM)`.
fn trusted_cas(name: &str, cm: &serde_json::Value) -> Vec<(String, String, String)> {
    let mut cas = Vec::new();
    if let Some(data) = cm.get("data").and_then(|d| d.as_object()) {
        for (key, value) in data {
            if let Some(pem) = value.as_str() {
                // The MCO writes each key to /etc/docker/certs.d/<key with ".." as ":">/ca.crt.
                cas.push((
                    key.replace("..", ":"),
                    format!("ConfigMap/{OPENSHIFT_CONFIG}/{name} key \"{key}\""),
                    pem.to_string(),
                ));
            }
        }
    }
    cas
}
