//! registries.d (containers-registries.d(5)): only what decides whether
//! the docker transport looks for sigstore attachments
//! (`use-sigstore-attachments`), merged and looked up as containers/image's
//! `docker/registries_d.go` does.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::policy::{policy_identity, policy_namespaces};
use crate::reference::Reference;

#[derive(Debug, Clone, Default, Deserialize)]
struct Namespace {
    #[serde(default, rename = "use-sigstore-attachments")]
    use_sigstore_attachments: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
struct FileYaml {
    #[serde(default, rename = "default-docker")]
    default_docker: Option<Namespace>,
    #[serde(default)]
    docker: Option<BTreeMap<String, Namespace>>,
}

/// The merged registries.d configuration.
#[derive(Debug, Clone, Default)]
pub struct RegistriesD {
    default_docker: Option<Namespace>,
    docker: BTreeMap<String, Namespace>,
}

/// Why registries.d cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct RegistriesDError {
    pub file: String,
    pub message: String,
}

impl RegistriesD {
    /// `loadAndMergeConfig` over `(name, text)` files: a namespace or
    /// `default-docker` defined twice is an error.
    pub fn load(files: &[(String, String)]) -> Result<Self, RegistriesDError> {
        let mut merged = RegistriesD::default();
        let mut default_from = String::new();
        let mut from: BTreeMap<String, String> = BTreeMap::new();
        for (name, text) in files {
            let parsed: FileYaml = if text.trim().is_empty() {
                FileYaml::default()
            } else {
                serde_saphyr::from_str(text).map_err(|e| RegistriesDError {
                    file: name.clone(),
                    message: e.to_string(),
                })?
            };
            if let Some(d) = parsed.default_docker {
                if merged.default_docker.is_some() {
                    return Err(RegistriesDError {
                        file: name.clone(),
                        message: format!("\"default-docker\" is also defined in {default_from}"),
                    });
                }
                merged.default_docker = Some(d);
                default_from = name.clone();
            }
            for (ns, conf) in parsed.docker.unwrap_or_default() {
                if let Some(other) = from.get(&ns) {
                    return Err(RegistriesDError {
                        file: name.clone(),
                        message: format!(
                            "\"docker\" namespace \"{ns}\" is also defined in {other}"
                        ),
                    });
                }
                from.insert(ns.clone(), name.clone());
                merged.docker.insert(ns, conf);
            }
        }
        Ok(merged)
    }

    /// `useSigstoreAttachments` for the endpoint reference contacted.
    pub fn use_sigstore_attachments(&self, physical: &Reference) -> bool {
        let keys = std::iter::once(policy_identity(physical)).chain(policy_namespaces(physical));
        for key in keys {
            if let Some(ns) = self.docker.get(&key) {
                if let Some(v) = ns.use_sigstore_attachments {
                    return v;
                }
            }
        }
        self.default_docker
            .as_ref()
            .and_then(|d| d.use_sigstore_attachments)
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Reference {
        Reference::parse_normalized_named(s).expect("reference")
    }

    #[test]
    fn most_specific_namespace_with_a_value_wins() {
        let d = RegistriesD::load(&[(
            "a.yaml".into(),
            "docker:\n  mirror.example.com/ns:\n    use-sigstore-attachments: true\n  mirror.example.com/ns/off:\n    use-sigstore-attachments: false\n  mirror.example.com/ns/unset: {}\n  '*.wild.io':\n    use-sigstore-attachments: true\n".into(),
        )])
        .expect("load");
        assert!(d.use_sigstore_attachments(&r("mirror.example.com/ns/app:1")));
        assert!(!d.use_sigstore_attachments(&r("mirror.example.com/ns/off:1")));
        // An entry without the key falls through to its parents.
        assert!(d.use_sigstore_attachments(&r("mirror.example.com/ns/unset:1")));
        assert!(d.use_sigstore_attachments(&r("a.wild.io/x:1")));
        assert!(!d.use_sigstore_attachments(&r("other.example.com/ns/app:1")));
    }

    #[test]
    fn default_docker_and_duplicates() {
        let d = RegistriesD::load(&[(
            "d.yaml".into(),
            "default-docker:\n  use-sigstore-attachments: true\n".into(),
        )])
        .expect("load");
        assert!(d.use_sigstore_attachments(&r("any.io/x:1")));
        let err = RegistriesD::load(&[
            ("a.yaml".into(), "docker:\n  q.io: {}\n".into()),
            ("b.yaml".into(), "docker:\n  q.io: {}\n".into()),
        ])
        .expect_err("duplicate");
        assert!(err.to_string().contains("also defined in a.yaml"), "{err}");
    }
}
