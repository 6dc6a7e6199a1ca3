//! One MCO sync over the cluster objects: from [`Inputs`] to the node files
//! and the generated MachineConfig of a pool (`registriesConfigIgnition`).
//!
//! Objects are taken in name order (the MCO's listers are unordered; name
//! order makes the output and the first reported error deterministic).

use std::collections::BTreeMap;

use crate::admission::{
    involved, mirror_set_refusals, release_with_check, render_warning as admission_warning,
};
use crate::objects::install_config::Generated;
use crate::objects::{Image, MirrorSourcePolicy, ObjectMeta};
use crate::objects::{Inputs, MachineConfigPool};
use crate::origin::Origin;

use super::encode::encode_registries_conf;
pub use super::findings::RenderError;
use super::findings::{Release, RenderWarning};
use super::machineconfig::{generated_machine_config, ignition_json, NodeFile};
use super::payload::{blocked_and_allowed_as, BlockedAndAllowed};
use super::policy::{
    namespaced_policy_path, render_policies_as, PolicyLists, PolicyRender, ScopePolicies,
    POLICY_JSON, POLICY_JSON_TEMPLATE,
};
use super::registries::{
    edit_registries_config_as, order_conflicts, validate_scopes_as, MirrorSet, RegistriesInput,
    SourcePolicy, V2RegistriesConf,
};
use super::sigstore::{generate_sigstore_registries_d, SIGSTORE_REGISTRIES_D};

pub use crate::node_paths::{REGISTRIES_CONF, SEARCH_REGISTRIES_CONF};
/// The registries.conf a node keeps when nothing touches it (the MCO template).
pub const REGISTRIES_TEMPLATE: &str =
    "unqualified-search-registries = ['registry.access.redhat.com', 'docker.io']\n";

pub use super::release::{McoProfile, NEWEST_MODELLED, OLDEST_MODELLED};

/// What one sync produces for one pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    pub pool: String,
    /// The files of the generated MachineConfig, in its order.
    pub files: Vec<NodeFile>,
    /// The registries.conf model (with origins), when the MCO regenerates it.
    pub registries: Option<V2RegistriesConf>,
    /// The output differences of the MCO release rendered for.
    pub profile: McoProfile,
    /// Sources whose mirror lists are ordered differently by different
    /// objects (source → messages): the merged order is decided by name.
    pub order_conflicts: BTreeMap<String, Vec<String>>,
    /// The signature policy scopes (ClusterImagePolicy, ImagePolicy) the files were built from.
    pub scope_policies: ScopePolicies,
    /// Blocked scopes written to policy.json (after payload protection).
    pub policy_blocked: Option<Vec<String>>,
    /// Allowed scopes written to policy.json (after payload protection).
    pub allowed: Option<Vec<String>>,
    /// What the MCO only logs, and what this tool had to assume.
    pub warnings: Vec<RenderWarning>,
    /// Files a node of the pool gets from another MachineConfig, which
    /// sorts after the generated one in the pool's merge: path →
    /// MachineConfig name ([`Rendered::override_file`]).
    pub overridden: BTreeMap<String, String>,
    /// The namespaces the MCO wrote a CRI-O policy of their own for
    /// (`/etc/crio/policies/<namespace>.json`), in order.
    pub policy_namespaces: Vec<String>,
}

impl Rendered {
    /// Puts `contents` at `path` as the node has it from MachineConfig
    /// `config` instead of what the MCO generated: the view of a pool whose
    /// own MachineConfig overrides a generated file.
    pub fn override_file(&mut self, path: &str, config: &str, contents: String) {
        match self.files.iter_mut().find(|f| f.path == path) {
            Some(f) => f.contents = contents,
            None => self.files.push(NodeFile {
                path: path.to_string(),
                contents,
            }),
        }
        self.overridden.insert(path.to_string(), config.to_string());
    }

    /// The exact Ignition JSON of the generated MachineConfig's `spec.config`.
    pub fn ignition(&self) -> String {
        ignition_json(
            &self.files,
            self.profile.ignition_version,
            self.profile.ignition_layout,
        )
    }

    /// The generated MachineConfig object.
    pub fn machine_config(&self) -> serde_json::Value {
        generated_machine_config(
            &self.pool,
            &self.files,
            self.profile.ignition_version,
            self.profile.ignition_layout,
        )
    }

    /// The content of one node file, if the render writes it.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.as_str())
    }
}

fn policy_of(p: &Option<MirrorSourcePolicy>) -> SourcePolicy {
    match p {
        Some(MirrorSourcePolicy::NeverContactSource) => SourcePolicy::NeverContactSource,
        _ => SourcePolicy::AllowContactingSource,
    }
}

/// Objects in (namespace, name) order: the MCO's listers have no order, so
/// this is what makes output and the first reported error deterministic.
fn by_name<T>(objects: &[T], meta: impl Fn(&T) -> &ObjectMeta) -> Vec<&T> {
    let mut sorted: Vec<&T> = objects.iter().collect();
    sorted.sort_by(|a, b| {
        let (a, b) = (meta(a), meta(b));
        (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name))
    });
    sorted
}

/// The labels of one object's entries: the object's own, shared by all
/// (one reference-counted label, not one per entry: oc-mirror-scale
/// objects have 100,000s), or for an object the installer writes from
/// install-config.yaml, each entry's line there.
struct EntryOrigins<'a> {
    object: Origin,
    generated: Option<&'a Generated>,
}

impl<'a> EntryOrigins<'a> {
    fn of(inputs: &'a Inputs, object: Origin) -> Self {
        let generated = inputs.generated(&object);
        Self { object, generated }
    }

    fn get(&self, i: usize) -> Origin {
        match self.generated {
            Some(g) => g.entry_origin(i).clone(),
            None => self.object.clone(),
        }
    }
}

/// The mirror sets of the inputs, in name order per kind.
pub fn registries_input(inputs: &Inputs) -> RegistriesInput {
    let idms = by_name(&inputs.idmss, |o| &o.metadata);
    let icsp = by_name(&inputs.icsps, |o| &o.metadata);
    let itms = by_name(&inputs.itmss, |o| &o.metadata);
    let sources = inputs
        .image
        .as_ref()
        .map(|i| i.spec.registry_sources.clone())
        .unwrap_or_default();
    RegistriesInput {
        idms: idms
            .iter()
            .flat_map(|o| {
                let origins = EntryOrigins::of(inputs, o.origin());
                o.spec
                    .image_digest_mirrors
                    .iter()
                    .enumerate()
                    .map(move |(i, m)| MirrorSet {
                        source: m.source.clone(),
                        mirrors: m.mirrors.clone(),
                        policy: policy_of(&m.mirror_source_policy),
                        origin: origins.get(i),
                    })
            })
            .collect(),
        icsp: icsp
            .iter()
            .flat_map(|o| {
                let origins = EntryOrigins::of(inputs, o.origin());
                o.spec
                    .repository_digest_mirrors
                    .iter()
                    .enumerate()
                    .map(move |(i, m)| MirrorSet {
                        source: m.source.clone(),
                        mirrors: m.mirrors.clone(),
                        policy: SourcePolicy::AllowContactingSource,
                        origin: origins.get(i),
                    })
            })
            .collect(),
        itms: itms
            .iter()
            .flat_map(|o| {
                // One label per object, shared by its sources.
                let origin = o.origin();
                o.spec.image_tag_mirrors.iter().map(move |m| MirrorSet {
                    source: m.source.clone(),
                    mirrors: m.mirrors.clone(),
                    policy: policy_of(&m.mirror_source_policy),
                    origin: origin.clone(),
                })
            })
            .collect(),
        insecure: sources.insecure_registries,
        blocked: sources.blocked_registries,
        image_origin: Some(Origin::object(Image::KIND, Image::CLUSTER)),
    }
}

/// What the render assumes when the input names no release it models.
fn release_assumed(inputs: &Inputs) -> Option<RenderWarning> {
    let (release, rendered_as) = match &inputs.cluster_version {
        None => (Release::Absent, NEWEST_MODELLED),
        Some(cv) => match cv.openshift_minor() {
            None => (Release::Unnamed, NEWEST_MODELLED),
            Some(m) if m < OLDEST_MODELLED => (Release::Minor(m), OLDEST_MODELLED),
            Some(m) if m > NEWEST_MODELLED => (Release::Minor(m), NEWEST_MODELLED),
            Some(_) => return None,
        },
    };
    Some(RenderWarning::ReleaseAssumed {
        release,
        rendered_as,
    })
}

/// What the input holds that the MCO of the rendered release does not read
/// (objects and fields added in later releases): left out, with a warning.
fn not_read_by_release(inputs: &Inputs, profile: &McoProfile) -> Vec<RenderWarning> {
    let mut out = Vec::new();
    let mut warn = |since: u32, ignored: Vec<String>| {
        if !ignored.is_empty() {
            out.push(RenderWarning::NotReadByRelease {
                minor: profile.minor,
                since,
                ignored,
            });
        }
    };
    if !profile.mirror_sets {
        let idms = by_name(&inputs.idmss, |o| &o.metadata);
        let itms = by_name(&inputs.itmss, |o| &o.metadata);
        let names = idms.iter().map(|o| o.origin().to_string());
        warn(
            13,
            names
                .chain(itms.iter().map(|o| o.origin().to_string()))
                .collect(),
        );
    }
    if !profile.search_registries {
        let search = inputs.image.as_ref().and_then(|i| {
            i.spec
                .registry_sources
                .container_runtime_search_registries
                .as_ref()
        });
        if search.is_some() {
            let field = "spec.registrySources.containerRuntimeSearchRegistries";
            warn(
                7,
                vec![format!("{}/{} {field}", Image::KIND, Image::CLUSTER)],
            );
        }
    }
    if !profile.cluster_image_policies {
        let cips = by_name(&inputs.cluster_image_policies, |o| &o.metadata);
        warn(16, cips.iter().map(|o| o.origin().to_string()).collect());
    }
    if !profile.namespaced_policies {
        let ips = by_name(&inputs.image_policies, |o| &o.metadata);
        warn(18, ips.iter().map(|o| o.origin().to_string()).collect());
    }
    out
}

/// What the API server of the inputs' release (ClusterVersion) refuses
/// among these objects because of the others ([`crate::admission`]).
fn refused_by_api_server(inputs: &Inputs) -> Option<RenderWarning> {
    let release = inputs
        .cluster_version
        .as_ref()
        .and_then(release_with_check)?;
    let refusals = mirror_set_refusals(inputs, release);
    Some(RenderWarning::RefusedByApiServer {
        message: admission_warning(&refusals)?,
        objects: involved(&refusals),
    })
}

/// The release `inputs` name (ClusterVersion), as the profile rendered for.
pub fn profile_of(inputs: &Inputs) -> McoProfile {
    McoProfile::for_minor(
        inputs
            .cluster_version
            .as_ref()
            .and_then(|cv| cv.openshift_minor()),
    )
}

/// The pool whose generated registries MachineConfig `pool`'s nodes get: a
/// custom pool of the inputs (no built-in label) gets that of the role its
/// `machineConfigSelector` selects, the MCO generating none for it; any
/// other pool its own. `Err` says why no generated MachineConfig reaches
/// the pool's nodes.
pub fn generating_pool<'a>(inputs: &'a Inputs, pool: &'a str) -> Result<&'a str, String> {
    let Some(mcp) = inputs.pools.iter().find(|p| p.metadata.name == pool) else {
        return Ok(pool);
    };
    mcp.generating_pool(&inputs.pools)
        .ok_or_else(|| no_generated_config(mcp))
}

/// Why no generated registries MachineConfig reaches a custom pool's nodes.
pub fn no_generated_config(pool: &MachineConfigPool) -> String {
    format!(
        "MachineConfigPool/{} selects no generated registries MachineConfig: the MCO generates \
         none for a custom pool, and its spec.machineConfigSelector selects none of the \
         master, worker and arbiter roles' (usually it selects the worker role: \
         matchExpressions [{{key: machineconfiguration.openshift.io/role, operator: In, \
         values: [worker, {}]}}]); its nodes keep the registries files of their image",
        pool.metadata.name, pool.metadata.name
    )
}

/// Renders the generated registries MachineConfig of `pool` from the inputs,
/// as the MCO of the inputs' release (ClusterVersion) renders it.
pub fn render_pool(inputs: &Inputs, pool: &str) -> Result<Rendered, RenderError> {
    let profile = profile_of(inputs);
    let mut warnings: Vec<RenderWarning> = release_assumed(inputs).into_iter().collect();
    warnings.extend(not_read_by_release(inputs, &profile));
    warnings.extend(refused_by_api_server(inputs));
    // At install the release creates Image/cluster with an empty spec
    // (create-only), which is what is rendered: nothing to warn about
    // before the cluster exists.
    if inputs.image.is_none() && inputs.install_configs.is_empty() {
        warnings.push(RenderWarning::NoImageConfig);
    }
    let release_image = inputs
        .cluster_version
        .as_ref()
        .and_then(|cv| cv.release_image());
    let mut input = registries_input(inputs);
    if !profile.mirror_sets {
        input.idms.clear();
        input.itms.clear();
    }
    let sources = inputs
        .image
        .as_ref()
        .map(|i| i.spec.registry_sources.clone())
        .unwrap_or_default();
    let lists = blocked_and_allowed_as(
        release_image,
        &input,
        sources.blocked_registries.as_deref(),
        sources.allowed_registries.as_deref(),
        &profile,
    )?;
    warnings.extend(lists.warnings.iter().cloned());
    input.blocked = lists.registries_blocked.clone();

    let mut files = Vec::new();
    let registries = registries_conf(&input, &profile)?;
    if let Some(conf) = &registries {
        files.push(NodeFile {
            path: REGISTRIES_CONF.to_string(),
            contents: encode_registries_conf(conf, profile.encode),
        });
    }
    let policies = pool_policies(inputs, &lists, release_image, &profile)?;
    warnings.extend(policies.warnings.iter().cloned());
    let policy_namespaces = policies.namespaced.keys().cloned().collect();
    let sigstore_registries = registries.as_ref().filter(|_| profile.sigstore_mirrors);
    files.extend(policy_files(&policies, sigstore_registries)?);
    let search = sources
        .container_runtime_search_registries
        .filter(|_| profile.search_registries);
    if let Some(search) = search {
        let conf = V2RegistriesConf {
            unqualified_search_registries: Some(search),
            ..Default::default()
        };
        files.push(NodeFile {
            path: SEARCH_REGISTRIES_CONF.to_string(),
            contents: encode_registries_conf(&conf, profile.encode),
        });
    }
    Ok(Rendered {
        pool: pool.to_string(),
        profile,
        files,
        registries,
        order_conflicts: order_conflicts(&input),
        scope_policies: policies.scope_policies,
        policy_blocked: lists.policy_blocked,
        allowed: lists.allowed,
        warnings,
        overridden: BTreeMap::new(),
        policy_namespaces,
    })
}

/// policy.json and the namespaces' policies, from the signature policy
/// objects the release reads.
fn pool_policies(
    inputs: &Inputs,
    lists: &BlockedAndAllowed,
    release_image: Option<&str>,
    profile: &McoProfile,
) -> Result<PolicyRender, RenderError> {
    let cips = match profile.cluster_image_policies {
        true => by_name(&inputs.cluster_image_policies, |o| &o.metadata),
        false => Vec::new(),
    };
    let ips = match profile.namespaced_policies {
        true => by_name(&inputs.image_policies, |o| &o.metadata),
        false => Vec::new(),
    };
    let lists = PolicyLists {
        blocked: lists.policy_blocked.as_deref(),
        allowed: lists.allowed.as_deref(),
        release_image,
    };
    render_policies_as(POLICY_JSON_TEMPLATE, lists, &cips, &ips, profile)
}

/// The MCO's registries.conf: its template edited by the mirror sets and
/// the insecure and blocked lists, once their scopes are valid (from 4.9;
/// earlier releases did not check them); `None` when nothing touches it.
fn registries_conf(
    input: &RegistriesInput,
    profile: &McoProfile,
) -> Result<Option<V2RegistriesConf>, RenderError> {
    let touched = input.insecure.is_some()
        || input.blocked.is_some()
        || !input.idms.is_empty()
        || !input.icsp.is_empty()
        || !input.itms.is_empty();
    if !touched {
        return Ok(None);
    }
    validate_scopes_as(
        input.insecure.as_deref().unwrap_or_default(),
        input.blocked.as_deref().unwrap_or_default(),
        &[],
        input,
        profile.validation,
    )?;
    let mut conf = template_conf();
    edit_registries_config_as(&mut conf, input, profile.edit)?;
    Ok(Some(conf))
}

/// policy.json, the sigstore registries.d file that goes with it (seeing
/// the registries.conf of the same sync), and the namespaces' policies.
fn policy_files(
    policies: &PolicyRender,
    registries: Option<&V2RegistriesConf>,
) -> Result<Vec<NodeFile>, RenderError> {
    let mut files = Vec::new();
    let Some(policy) = &policies.policy_json else {
        return Ok(namespaced_files(policies));
    };
    files.push(NodeFile {
        path: POLICY_JSON.to_string(),
        contents: policy.clone(),
    });
    if let Some(sigstore) =
        generate_sigstore_registries_d(policies.scope_policies.scopes(), registries)?
    {
        files.push(NodeFile {
            path: SIGSTORE_REGISTRIES_D.to_string(),
            contents: sigstore,
        });
    }
    files.extend(namespaced_files(policies));
    Ok(files)
}

fn namespaced_files(policies: &PolicyRender) -> Vec<NodeFile> {
    policies
        .namespaced
        .iter()
        .map(|(ns, policy)| NodeFile {
            path: namespaced_policy_path(ns),
            contents: policy.clone(),
        })
        .collect()
}

/// The decoded MCO registries.conf template (the same from 4.4 on).
pub fn template_conf() -> V2RegistriesConf {
    V2RegistriesConf {
        unqualified_search_registries: Some(vec![
            "registry.access.redhat.com".to_string(),
            "docker.io".to_string(),
        ]),
        ..Default::default()
    }
}
