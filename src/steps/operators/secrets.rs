//! A CatalogSource's `spec.secrets`: pull secrets of its namespace that
//! OLM puts on the registry pod's ServiceAccount (`imagePullSecrets`,
//! operator-lifecycle-manager `pkg/controller/registry/reconciler/grpc.go`),
//! which the pod gets. The kubelet looks a pod's pull secrets up before
//! the node's credentials (the global pull secret), so live, each is read and its auth file put before the global
//! one for the probe of that catalog image; one that cannot be read
//! (forbidden, missing, not a pull secret) is named in the output, and the
//! catalog is probed with the global pull secret. With `-f`, Secrets are
//! not read.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::Result;

use mirrorpolicy::olm::check::PullSecretNote;
use mirrorpolicy::probe::auth::AuthFile;
use mirrorpolicy::source::api::{self as live, ClusterError, SECRETS};

use super::wanted::Wanted;
use crate::settings::Settings;
use crate::steps::{inputs, probe};

/// Each pull secret named, by `(namespace, name)`: its auth file, or why
/// it could not be read.
pub(super) type Read = BTreeMap<(String, String), Result<AuthFile, String>>;

/// The pull secrets the CatalogSources of `wanted` name: read live, or
/// (with `-f`) each one not read.
pub(super) fn read(settings: &Settings, live: bool, wanted: &[Wanted]) -> Result<Read> {
    let named: BTreeSet<(String, String)> = wanted
        .iter()
        .flat_map(|w| {
            w.secrets
                .iter()
                .map(|s| (w.sub.source_namespace.clone(), s.clone()))
        })
        .collect();
    read_named(settings, live, named)
}

/// The pull secrets `named` (`(namespace, name)`): read live, or (with
/// `-f`) each one not read.
pub(super) fn read_named(
    settings: &Settings,
    live: bool,
    named: BTreeSet<(String, String)>,
) -> Result<Read> {
    if named.is_empty() {
        return Ok(Read::new());
    }
    if !live {
        let why = "Secrets are not read from the files of -f".to_string();
        return Ok(named.into_iter().map(|k| (k, Err(why.clone()))).collect());
    }
    let options = settings.cluster_options()?;
    let runtime = inputs::runtime()?;
    let got = runtime
        .block_on(async {
            let connection = live::connect(&options).await?;
            let mut got = Vec::new();
            for (ns, name) in named {
                let answer = match connection.get_in(&SECRETS, &ns, &name).await {
                    Ok(Some(secret)) => {
                        probe::secret_auth_file(&format!("Secret/{ns}/{name}"), &secret)
                    }
                    Ok(None) => Err("it does not exist".to_string()),
                    Err(ClusterError::Forbidden(f)) => Err(format!(
                        "forbidden (needs {})",
                        f.first().map(|f| f.rule()).unwrap_or_default()
                    )),
                    Err(e) => return Err(e),
                };
                got.push(((ns, name), answer));
            }
            Ok::<_, ClusterError>(got)
        })
        .map_err(inputs::cluster_failure)?;
    Ok(got.into_iter().collect())
}

/// The auth files of `w`'s CatalogSource's pull secrets that were read, in its order.
pub(super) fn files(w: &Wanted, read: &Read) -> Vec<AuthFile> {
    read_names(w, read)
        .iter()
        .filter_map(|k| read.get(k))
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect()
}

/// The pull secrets of `w`'s CatalogSource that were read, `(namespace,
/// name)` in its order: what its registry pod pulls with, besides the
/// global pull secret.
pub(super) fn read_names(w: &Wanted, read: &Read) -> Vec<(String, String)> {
    w.secrets
        .iter()
        .map(|s| (w.sub.source_namespace.clone(), s.clone()))
        .filter(|k| read.get(k).is_some_and(|r| r.is_ok()))
        .collect()
}

/// What the output says of each pull secret `w`'s CatalogSource names.
pub(super) fn notes(w: &Wanted, read: &Read) -> Vec<PullSecretNote> {
    let source = match &w.catalog {
        Ok((Some(s), _)) | Err((Some(s), _)) => s.clone(),
        _ => format!("{}/{}", w.sub.source_namespace, w.sub.source),
    };
    w.secrets
        .iter()
        .map(|name| {
            let got = read.get(&(w.sub.source_namespace.clone(), name.clone()));
            match got {
                Some(Ok(_)) => PullSecretNote {
                    name: name.clone(),
                    read: true,
                    message: format!("pull secret {name} of CatalogSource {source}: its credentials are tried before the global pull secret's"),
                },
                Some(Err(why)) => PullSecretNote {
                    name: name.clone(),
                    read: false,
                    message: format!("CatalogSource {source} names pull secret {name}, which could not be read: {why}; the catalog is probed without it"),
                },
                None => PullSecretNote {
                    name: name.clone(),
                    read: false,
                    message: format!("CatalogSource {source} names pull secret {name}, which was not read"),
                },
            }
        })
        .collect()
}
