//! What a node of the pool ends up with after a render, read back the way
//! CRI-O reads it, with every fact traced to the cluster objects.
//!
//! The rendered registries.conf (or the template a node keeps when nothing
//! touches it) and the search-registries drop-in go through the same
//! containers/image loader as node files do, so explain over CRs and
//! explain over node files cannot disagree; then the file-and-line origins
//! are replaced by the CR objects that produced each entry and mirror. The
//! MCO's own registries.conf reaches the loader as the tables its encoder
//! wrote rather than as text to parse again (`registries::load_written`;
//! `tests/it/properties.rs` holds the two readings equal).

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use crate::crio::NodeRuntime;
use crate::objects::Image;
use crate::origin::Origin;
use crate::policy::{self, PolicyError, PolicyFile};
use crate::registries::{self, ConfigFile, RegistriesConf, RegistriesError};

use super::encode::written_registries_conf;
use super::policy::{namespaced_policy_path, POLICY_JSON, POLICY_JSON_TEMPLATE};
use super::pool::{Rendered, REGISTRIES_CONF, REGISTRIES_TEMPLATE, SEARCH_REGISTRIES_CONF};

/// The configuration CRI-O on a node of the pool uses.
#[derive(Debug, Clone)]
pub struct NodeView {
    pub registries: RegistriesConf,
    /// The policy CRI-O uses for the namespace (its own file if the MCO wrote one).
    pub policy: PolicyFile,
    /// Which objects each policy.json scope comes from (`""` scope: none; the
    /// global default is keyed by `"default"`).
    pub scope_origins: BTreeMap<String, Vec<Origin>>,
}

/// Why the rendered files cannot be read back (a bug in rendering, or a
/// configuration containers/image itself refuses).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeViewError {
    #[error(transparent)]
    Registries(#[from] RegistriesError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

fn image_origin() -> Origin {
    Origin::object(Image::KIND, Image::CLUSTER)
}

/// Builds the node view of a render, for pods of `namespace` when given.
/// A file another MachineConfig overrides is named after it
/// (`MachineConfig/99-infra-registries:/etc/containers/registries.conf`),
/// so that its facts are traced to that config's lines.
pub fn node_view(rendered: &Rendered, namespace: Option<&str>) -> Result<NodeView, NodeViewError> {
    node_view_on(rendered, namespace, &NodeRuntime::unknown())
}

/// [`node_view`] for nodes that run `runtime`: how their CRI-O reads a
/// registries file another MachineConfig wrote (the MCO's own output reads
/// alike on every release).
pub fn node_view_on(
    rendered: &Rendered,
    namespace: Option<&str>,
    runtime: &NodeRuntime,
) -> Result<NodeView, NodeViewError> {
    let name = |path: &str| match rendered.overridden.get(path) {
        Some(config) => format!("MachineConfig/{config}:{path}"),
        None => path.to_string(),
    };
    let (main_name, search_name) = (name(REGISTRIES_CONF), name(SEARCH_REGISTRIES_CONF));
    let main_text = rendered
        .file(REGISTRIES_CONF)
        .unwrap_or(REGISTRIES_TEMPLATE);
    let main = ConfigFile {
        name: &main_name,
        text: main_text,
    };
    let drop_ins: Vec<ConfigFile> = rendered
        .file(SEARCH_REGISTRIES_CONF)
        .map(|text| ConfigFile {
            name: &search_name,
            text,
        })
        .into_iter()
        .collect();
    let written = rendered
        .registries
        .as_ref()
        .filter(|_| !rendered.overridden.contains_key(REGISTRIES_CONF))
        .map(|v2| written_registries_conf(v2, rendered.profile.encode))
        .filter(|(_, length)| *length == main_text.len());
    let mut conf = match written {
        // The MCO's own output: the loader takes what the encoder wrote.
        Some((written, _)) => registries::load_written(&main, written, &drop_ins, runtime)?,
        None => registries::load_on(Some(&main), &drop_ins, runtime)?,
    };
    attach_origins(&mut conf, rendered);

    let ns_path = namespace.map(namespaced_policy_path);
    let (policy_name, policy_text) = match ns_path
        .as_deref()
        .and_then(|p| rendered.file(p).map(|t| (p, t)))
    {
        Some((p, t)) => (p.to_string(), t),
        None => (
            POLICY_JSON.to_string(),
            rendered.file(POLICY_JSON).unwrap_or(POLICY_JSON_TEMPLATE),
        ),
    };
    let policy = policy::parse_policy(&name(&policy_name), policy_text)?;
    // A policy another config wrote owes nothing to the objects.
    let scope_origins = if rendered.overridden.contains_key(&policy_name) {
        BTreeMap::new()
    } else {
        scope_origins(rendered, namespace)
    };
    Ok(NodeView {
        registries: conf,
        policy,
        scope_origins,
    })
}

/// Replaces file:line origins with the objects recorded by the render.
fn attach_origins(conf: &mut RegistriesConf, rendered: &Rendered) {
    let registries = rendered
        .registries
        .as_ref()
        .filter(|_| !rendered.overridden.contains_key(REGISTRIES_CONF));
    if let Some(v2) = registries {
        // The last entry of a scope, as collecting into a map keeps it.
        let mut by_scope: HashMap<&str, _> = HashMap::with_capacity(v2.registries.len());
        for r in &v2.registries {
            by_scope.insert(r.scope(), r);
        }
        for r in &mut conf.registries {
            let Some(entry) = by_scope.get(r.prefix.as_str()) else {
                continue;
            };
            r.origins = entry.origins.clone();
            for (m, em) in r.mirrors.iter_mut().zip(&entry.mirrors) {
                if m.location == em.location {
                    m.origins = em.origins.clone();
                }
            }
        }
    }
    if rendered.file(SEARCH_REGISTRIES_CONF).is_some()
        && !rendered.overridden.contains_key(SEARCH_REGISTRIES_CONF)
    {
        conf.search_registries_origin = Some(image_origin());
    }
}

fn push_all(map: &mut BTreeMap<String, Vec<Origin>>, scope: &str, origins: &[Origin]) {
    let entry = map.entry(scope.to_string()).or_default();
    for o in origins {
        Origin::push_unique(entry, o);
    }
}

fn scope_origins(rendered: &Rendered, namespace: Option<&str>) -> BTreeMap<String, Vec<Origin>> {
    let mut map = BTreeMap::new();
    let image = [image_origin()];
    for scope in rendered
        .allowed
        .iter()
        .chain(&rendered.policy_blocked)
        .flatten()
    {
        push_all(&mut map, scope, &image);
    }
    if rendered.allowed.as_ref().is_some_and(|a| !a.is_empty()) {
        push_all(&mut map, "default", &image);
    }
    for (scope, reqs) in &rendered.scope_policies.cluster {
        let origins: Vec<Origin> = reqs.iter().map(|r| r.origin.clone()).collect();
        push_all(&mut map, scope, &origins);
    }
    if let Some(ns) = namespace {
        for (scope, by_ns) in &rendered.scope_policies.namespaced {
            if let Some(reqs) = by_ns.get(ns) {
                let origins: Vec<Origin> = reqs.iter().map(|r| r.origin.clone()).collect();
                push_all(&mut map, scope, &origins);
            }
        }
    }
    map
}
