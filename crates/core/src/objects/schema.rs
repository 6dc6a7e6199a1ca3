//! The fields each kind's CRD declares, for what kubectl's default
//! `--validate=strict` refuses: a field the schema does not declare
//! (`unknown field "spec.imageDigestMirrors[0].mirror"`), a kind no API
//! group serves, an object name that is not a DNS-1123 subdomain.
//!
//! The typed models ignore fields they do not use (so objects from newer
//! clusters load); this module holds the whole field tree of each kind's
//! structural schema instead: the union of every feature set's CRD in
//! openshift/api (`config/v1`, `config/v1alpha1` before the move to v1,
//! `operator/v1alpha1`), and `metav1.ObjectMeta` for `metadata`.
//! Types, patterns and CEL rules stay with the kinds' `validate()`.
//!
//! Upstream: <https://github.com/openshift/api>, the
//! `zz_generated.featuregated-crd-manifests` of `imagedigestmirrorsets`,
//! `imagetagmirrorsets`, `images`, `clusterimagepolicies`, `imagepolicies`
//! (config.openshift.io), `imagecontentsourcepolicies`
//! (operator.openshift.io), `machineconfigs`, `machineconfigpools` and
//! `containerruntimeconfigs` (machineconfiguration.openshift.io). The trees
//! are checked against those manifests by `tests/it/crd_upstream.rs`; `lint`
//! checks against a cluster's own CRD when it has one
//! ([`check_fields`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use serde_json::Value;

use super::crd_schema::{CrdSchema, Tree};
use super::validate::FieldError;
use super::ObjectMeta;
use crate::kinds;
use crate::labels::{label_value_problems, qualified_name_problems};
use crate::origin::Origin;

/// One node of a schema's field tree.
#[derive(Debug)]
enum Field {
    /// A scalar, or a free-form value (labels, annotations, `fieldsV1`):
    /// nothing below it is checked.
    Any,
    /// A list whose items are all of this shape.
    List(&'static Field),
    /// An object with exactly these properties.
    Object(&'static [(&'static str, Field)]),
}

use Field::{Any, List, Object};

/// `metav1.ObjectMeta`, as the API server decodes `metadata`.
const OBJECT_META: Field = Object(&[
    ("annotations", Any),
    ("creationTimestamp", Any),
    ("deletionGracePeriodSeconds", Any),
    ("deletionTimestamp", Any),
    ("finalizers", Any),
    ("generateName", Any),
    ("generation", Any),
    ("labels", Any),
    (
        "managedFields",
        List(&Object(&[
            ("apiVersion", Any),
            ("fieldsType", Any),
            ("fieldsV1", Any),
            ("manager", Any),
            ("operation", Any),
            ("subresource", Any),
            ("time", Any),
        ])),
    ),
    ("name", Any),
    ("namespace", Any),
    (
        "ownerReferences",
        List(&Object(&[
            ("apiVersion", Any),
            ("blockOwnerDeletion", Any),
            ("controller", Any),
            ("kind", Any),
            ("name", Any),
            ("uid", Any),
        ])),
    ),
    ("resourceVersion", Any),
    ("selfLink", Any),
    ("uid", Any),
]);

/// `imageDigestMirrors[]` / `imageTagMirrors[]`.
const MIRRORS_ENTRY: Field = Object(&[
    ("mirrorSourcePolicy", Any),
    ("mirrors", Any),
    ("source", Any),
]);

const IMAGE_DIGEST_MIRROR_SET: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[("imageDigestMirrors", List(&MIRRORS_ENTRY))]),
    ),
    // `type: object` without properties: every field in it is pruned.
    ("status", Object(&[])),
]);

const IMAGE_TAG_MIRROR_SET: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    ("spec", Object(&[("imageTagMirrors", List(&MIRRORS_ENTRY))])),
    ("status", Object(&[])),
]);

const IMAGE_CONTENT_SOURCE_POLICY: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[(
            "repositoryDigestMirrors",
            List(&Object(&[("mirrors", Any), ("source", Any)])),
        )]),
    ),
]);

const IMAGE: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            ("additionalTrustedCA", Object(&[("name", Any)])),
            (
                "allowedRegistriesForImport",
                List(&Object(&[("domainName", Any), ("insecure", Any)])),
            ),
            ("externalRegistryHostnames", Any),
            ("imageStreamImportMode", Any),
            (
                "registrySources",
                Object(&[
                    ("allowedRegistries", Any),
                    ("blockedRegistries", Any),
                    ("containerRuntimeSearchRegistries", Any),
                    ("insecureRegistries", Any),
                ]),
            ),
        ]),
    ),
    (
        "status",
        Object(&[
            ("externalRegistryHostnames", Any),
            ("imageStreamImportMode", Any),
            ("internalRegistryHostname", Any),
        ]),
    ),
]);

/// `spec` and `status` of ClusterImagePolicy and ImagePolicy (v1 and v1alpha1 alike).
const IMAGE_POLICY: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            (
                "policy",
                Object(&[
                    (
                        "rootOfTrust",
                        Object(&[
                            (
                                "fulcioCAWithRekor",
                                Object(&[
                                    ("fulcioCAData", Any),
                                    (
                                        "fulcioSubject",
                                        Object(&[("oidcIssuer", Any), ("signedEmail", Any)]),
                                    ),
                                    ("rekorKeyData", Any),
                                ]),
                            ),
                            (
                                "pki",
                                Object(&[
                                    ("caIntermediatesData", Any),
                                    ("caRootsData", Any),
                                    (
                                        "pkiCertificateSubject",
                                        Object(&[("email", Any), ("hostname", Any)]),
                                    ),
                                ]),
                            ),
                            ("policyType", Any),
                            (
                                "publicKey",
                                Object(&[("keyData", Any), ("rekorKeyData", Any)]),
                            ),
                        ]),
                    ),
                    (
                        "signedIdentity",
                        Object(&[
                            ("exactRepository", Object(&[("repository", Any)])),
                            ("matchPolicy", Any),
                            (
                                "remapIdentity",
                                Object(&[("prefix", Any), ("signedPrefix", Any)]),
                            ),
                        ]),
                    ),
                ]),
            ),
            ("scopes", Any),
        ]),
    ),
    (
        "status",
        Object(&[(
            "conditions",
            List(&Object(&[
                ("lastTransitionTime", Any),
                ("message", Any),
                ("observedGeneration", Any),
                ("reason", Any),
                ("status", Any),
                ("type", Any),
            ])),
        )]),
    ),
]);

/// The ContainerRuntimeConfig / MachineConfigPool label selector
/// (`metav1.LabelSelector`).
const LABEL_SELECTOR: Field = Object(&[
    (
        "matchExpressions",
        List(&Object(&[("key", Any), ("operator", Any), ("values", Any)])),
    ),
    ("matchLabels", Any),
]);

/// `status.conditions[]` of the machineconfiguration kinds (no
/// `observedGeneration` in them).
const MCO_CONDITIONS: Field = List(&Object(&[
    ("lastTransitionTime", Any),
    ("message", Any),
    ("reason", Any),
    ("status", Any),
    ("type", Any),
]));

/// `spec.config` is an Ignition config, kept as is
/// (`x-kubernetes-preserve-unknown-fields`).
const MACHINE_CONFIG: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            ("baseOSExtensionsContainerImage", Any),
            ("config", Any),
            ("extensions", Any),
            ("fips", Any),
            ("kernelArguments", Any),
            ("kernelType", Any),
            ("osImageURL", Any),
        ]),
    ),
]);

/// `spec.configuration` / `status.configuration`: the rendered
/// MachineConfig and the configs it came from (`corev1.ObjectReference`).
const POOL_CONFIGURATION: Field = Object(&[
    ("apiVersion", Any),
    ("fieldPath", Any),
    ("kind", Any),
    ("name", Any),
    ("namespace", Any),
    ("resourceVersion", Any),
    (
        "source",
        List(&Object(&[
            ("apiVersion", Any),
            ("fieldPath", Any),
            ("kind", Any),
            ("name", Any),
            ("namespace", Any),
            ("resourceVersion", Any),
            ("uid", Any),
        ])),
    ),
    ("uid", Any),
]);

const MACHINE_CONFIG_POOL: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            ("configuration", POOL_CONFIGURATION),
            ("machineConfigSelector", LABEL_SELECTOR),
            ("maxUnavailable", Any),
            ("nodeSelector", LABEL_SELECTOR),
            ("osImageStream", Object(&[("name", Any)])),
            ("paused", Any),
            ("pinnedImageSets", List(&Object(&[("name", Any)]))),
        ]),
    ),
    (
        "status",
        Object(&[
            (
                "certExpirys",
                List(&Object(&[
                    ("bundle", Any),
                    ("expiry", Any),
                    ("subject", Any),
                ])),
            ),
            ("conditions", MCO_CONDITIONS),
            ("configuration", POOL_CONFIGURATION),
            ("degradedMachineCount", Any),
            ("machineCount", Any),
            ("observedGeneration", Any),
            ("osImageStream", Object(&[("name", Any)])),
            (
                "poolSynchronizersStatus",
                List(&Object(&[
                    ("availableMachineCount", Any),
                    ("machineCount", Any),
                    ("observedGeneration", Any),
                    ("poolSynchronizerType", Any),
                    ("readyMachineCount", Any),
                    ("unavailableMachineCount", Any),
                    ("updatedMachineCount", Any),
                ])),
            ),
            ("readyMachineCount", Any),
            ("unavailableMachineCount", Any),
            ("updatedMachineCount", Any),
        ]),
    ),
]);

/// `{path}` entries of the additional stores.
const STORE: Field = List(&Object(&[("path", Any)]));

const CONTAINER_RUNTIME_CONFIG: Field = Object(&[
    ("apiVersion", Any),
    ("kind", Any),
    ("metadata", OBJECT_META),
    (
        "spec",
        Object(&[
            (
                "containerRuntimeConfig",
                Object(&[
                    ("additionalArtifactStores", STORE),
                    ("additionalImageStores", STORE),
                    ("additionalLayerStores", STORE),
                    ("containerGomaxprocsBehavior", Any),
                    ("defaultRuntime", Any),
                    ("logLevel", Any),
                    ("logSizeMax", Any),
                    ("overlaySize", Any),
                    ("pidsLimit", Any),
                ]),
            ),
            ("machineConfigPoolSelector", LABEL_SELECTOR),
        ]),
    ),
    (
        "status",
        Object(&[("conditions", MCO_CONDITIONS), ("observedGeneration", Any)]),
    ),
]);

/// The kinds whose CRDs this module holds, as `kind` spells them (the
/// kinds table's `crd_checked`).
pub const CHECKED_KINDS: [&str; 9] = [
    kinds::ICSP.kind,
    kinds::IDMS.kind,
    kinds::ITMS.kind,
    kinds::IMAGE.kind,
    kinds::CLUSTER_IMAGE_POLICY.kind,
    kinds::IMAGE_POLICY.kind,
    kinds::MACHINE_CONFIG.kind,
    kinds::MACHINE_CONFIG_POOL.kind,
    kinds::CONTAINER_RUNTIME_CONFIG.kind,
];

/// The name of each checked kind's CustomResourceDefinition, as the
/// cluster serves it (`<plural>.<group>`).
pub fn crd_name(kind: &str) -> Option<String> {
    kinds::named(kind)
        .filter(|k| k.crd_checked)
        .map(kinds::KindSpec::crd_name)
}

fn schema_of(kind: &str) -> Option<&'static Field> {
    Some(match kind {
        "ImageContentSourcePolicy" => &IMAGE_CONTENT_SOURCE_POLICY,
        "ImageDigestMirrorSet" => &IMAGE_DIGEST_MIRROR_SET,
        "ImageTagMirrorSet" => &IMAGE_TAG_MIRROR_SET,
        "Image" => &IMAGE,
        "ClusterImagePolicy" | "ImagePolicy" => &IMAGE_POLICY,
        "MachineConfig" => &MACHINE_CONFIG,
        "MachineConfigPool" => &MACHINE_CONFIG_POOL,
        "ContainerRuntimeConfig" => &CONTAINER_RUNTIME_CONFIG,
        _ => return None,
    })
}

fn to_tree(field: &Field) -> Tree {
    match field {
        Any => Tree::Any,
        List(item) => Tree::list(to_tree(item)),
        Object(fields) => Tree::Object(
            fields
                .iter()
                .map(|(name, f)| ((*name).to_string(), to_tree(f)))
                .collect(),
        ),
    }
}

/// The tool's own field tree of `kind` (one of [`CHECKED_KINDS`]).
pub fn builtin_tree(kind: &str) -> Option<&'static Tree> {
    static TREES: OnceLock<HashMap<&'static str, Tree>> = OnceLock::new();
    TREES
        .get_or_init(|| {
            CHECKED_KINDS
                .iter()
                .filter_map(|k| Some((*k, to_tree(schema_of(k)?))))
                .collect()
        })
        .get(kind)
}

/// Every field of `value` (a whole object of `kind`) that the kind's CRD
/// does not declare, as the API server's strict field validation names
/// them; nothing for a kind this module holds no schema of.
pub fn unknown_fields(kind: &str, object: &Origin, value: &Value) -> Vec<FieldError> {
    check_fields(kind, object, value, None).errors
}

/// What checking an object's fields found.
#[derive(Debug, Default)]
pub struct FieldCheck {
    /// Fields the API server refuses (`unknown field`).
    pub errors: Vec<FieldError>,
    /// Fields the CRD given declares and the tool's tree does not: the
    /// object is valid, but the tool may not apply them.
    pub warnings: Vec<FieldError>,
}

/// Checks the fields of `value` (a whole object of `kind`) against `crd`
/// (the cluster's schema of the kind) when given, else against the
/// tool's own tree. A field neither knows is an error; one the CRD
/// declares and the tool does not, a warning.
pub fn check_fields(
    kind: &str,
    object: &Origin,
    value: &Value,
    crd: Option<&CrdSchema>,
) -> FieldCheck {
    let mut out = FieldCheck::default();
    let Some(tool) = builtin_tree(kind) else {
        return out;
    };
    let mut walk = Walk {
        object,
        crd,
        tool_meta: tool.fields().and_then(|f| f.get("metadata")),
        out: &mut out,
    };
    walk.value(Some(tool), crd.map_or(tool, |c| &c.tree), value, "");
    out
}

static ANY: Tree = Tree::Any;

struct Walk<'a> {
    object: &'a Origin,
    crd: Option<&'a CrdSchema>,
    /// `metadata`, which the API server checks as `ObjectMeta` whatever
    /// the CRD says.
    tool_meta: Option<&'a Tree>,
    out: &'a mut FieldCheck,
}

impl<'a> Walk<'a> {
    fn error(&self, field: String, message: String) -> FieldError {
        FieldError {
            object: self.object.clone(),
            file: None,
            field,
            value: String::new(),
            message,
        }
    }

    /// Walks `value` against `auth` (the schema that decides), with the
    /// tool's tree of the same place (`None` below a field it lacks).
    fn value(&mut self, tool: Option<&'a Tree>, auth: &'a Tree, value: &Value, path: &str) {
        match (auth, value) {
            (Tree::List(item), Value::Array(items)) => {
                let tool_item = match tool {
                    Some(Tree::List(t)) => Some(&**t),
                    Some(Tree::Any) => Some(&ANY),
                    _ => None,
                };
                for (i, v) in items.iter().enumerate() {
                    self.value(tool_item, item, v, &format!("{path}[{i}]"));
                }
            }
            (Tree::Object(fields), Value::Object(map)) => {
                for (key, v) in map {
                    self.field(tool, fields, key, v, path);
                }
            }
            // Anything goes, or a value of another type: the typed
            // decoding reports it.
            _ => {}
        }
    }

    fn field(
        &mut self,
        tool: Option<&'a Tree>,
        fields: &'a BTreeMap<String, Tree>,
        key: &str,
        v: &Value,
        path: &str,
    ) {
        let child = if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        };
        let tool_child = match tool {
            Some(Tree::Object(t)) => t.get(key),
            Some(Tree::Any) => Some(&ANY),
            _ => None,
        };
        let is_meta = path.is_empty() && key == "metadata";
        let auth_child = if is_meta && self.crd.is_some() {
            self.tool_meta
        } else {
            fields.get(key)
        };
        match (auth_child, self.crd) {
            (Some(a), Some(crd)) => {
                if matches!(tool, Some(Tree::Object(_))) && tool_child.is_none() {
                    let message = format!(
                        "declared by the CustomResourceDefinition {} ({}) but not modelled by this tool: the API server keeps it; the tool's results may not reflect it",
                        crd.name, crd.from
                    );
                    let warning = self.error(child.clone(), message);
                    self.out.warnings.push(warning);
                }
                self.value(tool_child, a, v, &child);
            }
            (Some(a), None) => self.value(tool_child, a, v, &child),
            (None, crd) => {
                let suggestion = did_you_mean(key, fields.keys().map(String::as_str))
                    .map_or(String::new(), |s| format!(" (did you mean \"{s}\"?)"));
                let cause = match crd {
                    Some(crd) if tool_child.is_some() => format!(
                        " (the CustomResourceDefinition {} ({}) does not declare it)",
                        crd.name, crd.from
                    ),
                    _ => String::new(),
                };
                let error = self.error(child, format!("unknown field{suggestion}{cause}"));
                self.out.errors.push(error);
            }
        }
    }
}

/// The candidate closest to a misspelt `word`: the same but for case, or
/// within a few edits (one per four letters, at least one).
pub fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| *d <= (c.len() / 4).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The kind a document's `kind` was probably meant to be, when it is not
/// one the API server serves but is close to one of [`CHECKED_KINDS`]: a
/// different case, a plural (`ImageContentSourcePolicys`), a typo in a
/// long name. Short or unrelated kinds (`ConfigMap`, `ImageStream`) are
/// not near any.
pub fn misspelt_kind(kind: &str) -> Option<&'static str> {
    if CHECKED_KINDS.contains(&kind) {
        return None;
    }
    let lower = kind.to_lowercase();
    CHECKED_KINDS.into_iter().find(|k| {
        let k_lower = k.to_lowercase();
        let plural = match k_lower.strip_suffix('y') {
            Some(stem) => format!("{stem}ies"),
            None => format!("{k_lower}s"),
        };
        let edits = strsim::damerau_levenshtein(&lower, &k_lower);
        lower == k_lower
            || lower == plural
            || lower == format!("{k_lower}s")
            || (k.len() >= 16 && edits <= 2)
            || (k.len() >= 11 && edits <= 1)
    })
}

/// The longest object name the API server takes (`DNS1123SubdomainMaxLength`).
pub const NAME_MAX: usize = 253;

/// Why the API server would refuse `name` as the name of a cluster-scoped
/// custom resource, in its words (apimachinery `NameIsDNSSubdomain`:
/// at most 253 characters, lowercase alphanumerics, `-` and `.`, starting
/// and ending with an alphanumeric), or `None` when it takes it. Such a
/// name is also a safe file name: no `/`, no `..`, nothing hidden.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("Required value: name or generateName is required".to_string());
    }
    let mut problems = Vec::new();
    if name.len() > NAME_MAX {
        problems.push(format!("must be no more than {NAME_MAX} characters"));
    }
    if !dns1123_subdomain_pattern(name) {
        problems.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string());
    }
    (!problems.is_empty()).then(|| {
        format!(
            "Invalid value: {}: {}",
            crate::quote::go_quote(name),
            problems.join(", ")
        )
    })
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`, any length:
/// dot-separated labels of lowercase alphanumerics and `-`, each starting
/// and ending with an alphanumeric.
fn dns1123_subdomain_pattern(name: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    name.split('.').all(|label| {
        let bytes = label.as_bytes();
        match (bytes.first(), bytes.last()) {
            (Some(&first), Some(&last)) => {
                alnum(first) && alnum(last) && bytes.iter().all(|&b| alnum(b) || b == b'-')
            }
            _ => false,
        }
    })
}

/// `metadata.name` of a custom resource, as the API server checks every
/// custom resource ([`name_problem`]).
pub fn name_error(object: &Origin, name: &str) -> Option<FieldError> {
    Some(FieldError {
        object: object.clone(),
        file: None,
        field: "metadata.name".to_string(),
        value: String::new(),
        message: name_problem(name)?,
    })
}

/// The most bytes the keys and values of an object's annotations may
/// hold together (apimachinery `TotalAnnotationSizeLimitB`, 256 KiB).
pub const ANNOTATIONS_SIZE_MAX: usize = 256 * 1024;

/// What the API server refuses in `metadata.labels` and
/// `metadata.annotations`, in its words (apimachinery
/// `metav1validation.ValidateLabels` and `ValidateAnnotations`): every
/// label key a qualified name, every value a label value, every
/// annotation key a qualified name once lowercased, and the annotations
/// at most [`ANNOTATIONS_SIZE_MAX`] bytes. One error per problem, keys in
/// order.
pub fn metadata_errors(object: &Origin, meta: &ObjectMeta) -> Vec<FieldError> {
    let error = |field: &str, message: String| FieldError {
        object: object.clone(),
        file: None,
        field: field.to_string(),
        value: String::new(),
        message,
    };
    let invalid = |value: &str, problem: &str| {
        format!(
            "Invalid value: {}: {problem}",
            crate::quote::go_quote(value)
        )
    };
    let mut errors = Vec::new();
    for (key, value) in &meta.labels {
        for problem in qualified_name_problems(key) {
            errors.push(error("metadata.labels", invalid(key, &problem)));
        }
        for problem in label_value_problems(value) {
            errors.push(error("metadata.labels", invalid(value, &problem)));
        }
    }
    for key in meta.annotations.keys() {
        for problem in qualified_name_problems(&key.to_lowercase()) {
            errors.push(error("metadata.annotations", invalid(key, &problem)));
        }
    }
    let size: usize = meta
        .annotations
        .iter()
        .map(|(k, v)| k.len() + v.len())
        .sum();
    if size > ANNOTATIONS_SIZE_MAX {
        errors.push(error(
            "metadata.annotations",
            format!("Too long: may not be more than {ANNOTATIONS_SIZE_MAX} bytes"),
        ));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(kind: &str, json: &str) -> Vec<String> {
        let value: Value = serde_json::from_str(json).unwrap();
        unknown_fields(kind, &Origin::from("K/n"), &value)
            .into_iter()
            .map(|e| format!("{}{}", e.field, e.message))
            .collect()
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        for (kind, json, want) in [
            (
                "ImageDigestMirrorSet",
                r#"{"spec":{"imageDigestMirror":[]}}"#,
                vec!["spec.imageDigestMirrorunknown field (did you mean \"imageDigestMirrors\"?)"],
            ),
            (
                "ImageDigestMirrorSet",
                r#"{"spec":{"imageDigestMirrors":[{"source":"a"},{"source":"b","mirror":["c"]}]}}"#,
                vec!["spec.imageDigestMirrors[1].mirrorunknown field (did you mean \"mirrors\"?)"],
            ),
            (
                "ImageDigestMirrorSet",
                r#"{"spec":{"params":[{"name":"x"}]}}"#,
                vec!["spec.paramsunknown field"],
            ),
            (
                "ImageTagMirrorSet",
                r#"{"metadata":{"name":"a","labels":{"x":"y"},"managedFields":[{"fieldsV1":{"f:spec":{}}}]},"status":{}}"#,
                vec![],
            ),
            (
                "Image",
                r#"{"spec":{"registrySources":{"allowedregistries":[]},"allowedRegistriesForImport":[{"domainName":"a","insecur":true}]}}"#,
                vec![
                    "spec.registrySources.allowedregistriesunknown field (did you mean \"allowedRegistries\"?)",
                    "spec.allowedRegistriesForImport[0].insecurunknown field (did you mean \"insecure\"?)",
                ],
            ),
            (
                "ClusterImagePolicy",
                r#"{"spec":{"scopes":["a"],"policy":{"rootOfTrust":{"policyType":"PublicKey","publicKey":{"keydata":"x"}}}}}"#,
                vec!["spec.policy.rootOfTrust.publicKey.keydataunknown field (did you mean \"keyData\"?)"],
            ),
            ("ConfigMap", r#"{"data":{"a":"b"}}"#, vec![]),
        ] {
            let mut got = unknown(kind, json);
            got.sort();
            let mut want: Vec<String> = want.into_iter().map(String::from).collect();
            want.sort();
            assert_eq!(got, want, "{kind} {json}");
        }
    }

    /// A CustomResourceDefinition of `kind` whose schema is `tree`.
    fn manifest(kind: &str, tree: &Tree) -> Value {
        let name = crd_name(kind).unwrap();
        let group = name.split_once('.').unwrap().1;
        serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": name},
            "spec": {
                "group": group,
                "names": {"kind": kind},
                "versions": [{"name": "v1", "served": true, "schema": {"openAPIV3Schema": tree.to_openapi()}}]
            }
        })
    }

    fn spec_mut(tree: &mut Tree) -> &mut BTreeMap<String, Tree> {
        match tree {
            Tree::Object(fields) => match fields.get_mut("spec") {
                Some(Tree::Object(spec)) => spec,
                _ => panic!("no spec"),
            },
            _ => panic!("not an object"),
        }
    }

    /// Every built-in tree against a CRD generated from it: the same; with
    /// a field added to or removed from the CRD, the checker names it.
    #[test]
    fn generated_crds_agree_and_mutations_are_reported() {
        use super::super::crd_schema::{compare, parse_crd};
        for kind in CHECKED_KINDS {
            let tool = builtin_tree(kind).unwrap();
            let same = parse_crd(&manifest(kind, tool), "gen").unwrap();
            assert!(compare(tool, &same.tree).is_empty(), "{kind}");
            let mut added = tool.clone();
            spec_mut(&mut added).insert("addedUpstream".to_string(), Tree::Any);
            let c = compare(
                tool,
                &parse_crd(&manifest(kind, &added), "gen").unwrap().tree,
            );
            assert_eq!(c.unknown_to_tool, ["spec.addedUpstream"], "{kind}");
            assert!(c.missing_from_crd.is_empty(), "{kind}");
            let mut removed = tool.clone();
            let first = spec_mut(&mut removed).keys().next().unwrap().clone();
            spec_mut(&mut removed).remove(&first);
            let c = compare(
                tool,
                &parse_crd(&manifest(kind, &removed), "gen").unwrap().tree,
            );
            assert!(c.unknown_to_tool.is_empty(), "{kind}");
            assert!(!c.missing_from_crd.is_empty(), "{kind}");
            assert!(
                c.missing_from_crd
                    .iter()
                    .all(|p| p.starts_with(&format!("spec.{first}"))),
                "{kind}: {c:?}"
            );
        }
    }

    /// Against a CRD: a field only it declares is a warning, one only the
    /// tool knows or neither knows an error.
    #[test]
    fn fields_checked_against_a_crd() {
        use super::super::crd_schema::parse_crd;
        let tool = builtin_tree("ImageDigestMirrorSet").unwrap();
        let mut crd_tree = tool.clone();
        let entry = match spec_mut(&mut crd_tree).get_mut("imageDigestMirrors") {
            Some(Tree::List(item)) => match &mut **item {
                Tree::Object(f) => f,
                _ => panic!(),
            },
            _ => panic!(),
        };
        entry.insert("newField".to_string(), Tree::Any);
        entry.remove("mirrorSourcePolicy");
        let crd = parse_crd(&manifest("ImageDigestMirrorSet", &crd_tree), "c.yaml").unwrap();
        let value: Value = serde_json::from_str(
            r#"{"metadata":{"name":"a","labelz":{}},"spec":{"imageDigestMirrors":[{"source":"a","newField":1,"mirrorSourcePolicy":"x","nope":2}]}}"#,
        )
        .unwrap();
        let found = check_fields(
            "ImageDigestMirrorSet",
            &Origin::from("I/a"),
            &value,
            Some(&crd),
        );
        let show = |v: &[FieldError]| {
            v.iter()
                .map(|e| format!("{}: {}", e.field, e.message))
                .collect::<Vec<_>>()
        };
        let errors = show(&found.errors);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(
            errors[0].starts_with("metadata.labelz: unknown field (did you mean \"labels\"?)"),
            "{errors:?}"
        );
        assert_eq!(errors[1], "spec.imageDigestMirrors[0].mirrorSourcePolicy: unknown field (the CustomResourceDefinition imagedigestmirrorsets.config.openshift.io (c.yaml) does not declare it)");
        assert_eq!(errors[2], "spec.imageDigestMirrors[0].nope: unknown field");
        let warnings = show(&found.warnings);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("spec.imageDigestMirrors[0].newField: declared by the CustomResourceDefinition imagedigestmirrorsets.config.openshift.io (c.yaml) but not modelled"), "{warnings:?}");
    }

    #[test]
    fn misspelt_kinds() {
        for (kind, want) in [
            ("ImageDigestMirrorset", Some("ImageDigestMirrorSet")),
            (
                "ImageContentSourcePolicys",
                Some("ImageContentSourcePolicy"),
            ),
            (
                "ImageContentSourcePolicies",
                Some("ImageContentSourcePolicy"),
            ),
            ("ImageTagMirorSet", Some("ImageTagMirrorSet")),
            ("imagepolicy", Some("ImagePolicy")),
            ("Images", Some("Image")),
            ("ImageDigestMirrorSet", None),
            ("ConfigMap", None),
            ("Deployment", None),
            ("ImageStream", None),
            ("ImageTag", None),
            ("MachineConfig", None),
        ] {
            assert_eq!(misspelt_kind(kind), want, "{kind}");
        }
    }

    #[test]
    fn names() {
        let o = Origin::from("K/n");
        for (name, bad) in [
            ("my-idms", false),
            ("a.b", false),
            ("", true),
            ("My_IDMS", true),
            ("-a", true),
        ] {
            assert_eq!(name_error(&o, name).is_some(), bad, "{name}");
        }
    }

    fn meta(labels: &[(&str, &str)], annotations: &[(&str, &str)]) -> ObjectMeta {
        let mut m = ObjectMeta::named("x");
        let own = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        m.labels = own(labels);
        m.annotations = own(annotations);
        m
    }

    fn problems(m: &ObjectMeta) -> Vec<String> {
        metadata_errors(&Origin::from("K/x"), m)
            .iter()
            .map(FieldError::detail)
            .collect()
    }

    /// apimachinery pkg/util/validation/validation_test.go
    /// TestIsQualifiedName, as label keys (and annotation keys).
    #[test]
    fn label_keys_as_is_qualified_name() {
        let long_prefix = format!("{}/{}", "a".repeat(253), "b".repeat(63));
        for good in [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "1234",
            "simple/simple",
            "now-with-dashes/simple",
            "now-with-dashes/now-with-dashes",
            "now.with.dots/simple",
            "now-with.dashes-and.dots/simple",
            "1-num.2-num/3-num",
            "1234/5678",
            "1.2.3.4/5678",
            "Uppercase_Is_OK_123",
            "example.com/Uppercase_Is_OK_123",
            "requests.storage-foo",
            &"a".repeat(63),
            &long_prefix,
        ] {
            assert_eq!(
                problems(&meta(&[(good, "v")], &[])),
                Vec::<String>::new(),
                "{good}"
            );
            assert_eq!(
                problems(&meta(&[], &[(good, "v")])),
                Vec::<String>::new(),
                "{good}"
            );
        }
        let too_long_prefix = format!("{}/abc", "a".repeat(254));
        for bad in [
            "nospecialchars%^=@",
            "cantendwithadash-",
            "-cantstartwithadash-",
            "only/one/slash",
            "Example.com/abc",
            "example_com/abc",
            "example.com/",
            "/simple",
            &"a".repeat(64),
            &too_long_prefix,
        ] {
            let found = problems(&meta(&[(bad, "v")], &[]));
            assert!(!found.is_empty(), "{bad}");
            assert!(
                found.iter().all(|p| p.starts_with(&format!(
                    "metadata.labels: Invalid value: {}: ",
                    crate::quote::go_quote(bad)
                ))),
                "{bad}: {found:?}"
            );
        }
        // The messages, as the API server words them.
        assert_eq!(
            problems(&meta(&[("a b", "v")], &[])),
            ["metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
        );
        assert_eq!(
            problems(&meta(&[("example.com/", "v")], &[])),
            [
                "metadata.labels: Invalid value: \"example.com/\": name part must be non-empty",
                "metadata.labels: Invalid value: \"example.com/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            ]
        );
        assert_eq!(
            problems(&meta(&[(&"a".repeat(64), "v")], &[])),
            [format!(
                "metadata.labels: Invalid value: \"{}\": name part must be no more than 63 characters",
                "a".repeat(64)
            )]
        );
        assert_eq!(
            problems(&meta(&[("Example.com/abc", "v")], &[])),
            ["metadata.labels: Invalid value: \"Example.com/abc\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
    }

    /// apimachinery pkg/util/validation/validation_test.go
    /// TestIsValidLabelValue.
    #[test]
    fn label_values_as_is_valid_label_value() {
        for good in [
            "simple",
            "now-with-dashes",
            "1-starts-with-num",
            "end-with-num-1",
            "1234",
            &"a".repeat(63),
            "",
        ] {
            assert_eq!(
                problems(&meta(&[("k", good)], &[])),
                Vec::<String>::new(),
                "{good}"
            );
        }
        for bad in [
            "nospecialchars%^=@",
            "Tama-nui-te-rā.is.Māori.sun",
            "\\backslashes\\are\\bad",
            "-starts-with-dash",
            "ends-with-dash-",
            ".starts.with.dot",
            "ends.with.dot.",
            &"a".repeat(64),
        ] {
            let found = problems(&meta(&[("k", bad)], &[]));
            assert_eq!(found.len(), 1, "{bad}: {found:?}");
        }
        assert_eq!(
            problems(&meta(&[("k", "bad value")], &[])),
            ["metadata.labels: Invalid value: \"bad value\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]
        );
        assert_eq!(
            problems(&meta(&[("k", &"a".repeat(64))], &[])),
            [format!(
                "metadata.labels: Invalid value: \"{}\": must be no more than 63 characters",
                "a".repeat(64)
            )]
        );
    }

    /// apimachinery pkg/api/validation/objectmeta_test.go
    /// TestValidateAnnotations: keys (any case) and the total size.
    #[test]
    fn annotations_as_validate_annotations() {
        let limit = ANNOTATIONS_SIZE_MAX;
        let (b, half_b, d) = (
            "b".repeat(limit - 1),
            "b".repeat(limit / 2 - 1),
            "d".repeat(limit / 2 - 1),
        );
        for good in [
            vec![("simple", "bar")],
            vec![("now-with-dashes", "bar")],
            vec![("1-starts-with-num", "bar")],
            vec![("1234", "bar")],
            vec![("simple/simple", "bar")],
            vec![("now-with-dashes/simple", "bar")],
            vec![("now-with-dashes/now-with-dashes", "bar")],
            vec![("now.with.dots/simple", "bar")],
            vec![("now-with.dashes-and.dots/simple", "bar")],
            vec![("1-num.2-num/3-num", "bar")],
            vec![("1234/5678", "bar")],
            vec![("1.2.3.4/5678", "bar")],
            vec![("UpperCase123", "bar")],
            vec![("a", b.as_str())],
            vec![("a", half_b.as_str()), ("c", d.as_str())],
            // Annotation keys are checked lowercased: an uppercase prefix passes.
            vec![("Example.COM/Key", "bar")],
        ] {
            assert_eq!(
                problems(&meta(&[], &good)),
                Vec::<String>::new(),
                "{good:?}"
            );
        }
        let long = "a".repeat(254);
        for (bad, expect) in [
            ("nospecialchars^=@", "name part must consist of"),
            ("cantendwithadash-", "name part must consist of"),
            ("only/one/slash", "a qualified name must consist of"),
            (long.as_str(), "must be no more than"),
        ] {
            let found = problems(&meta(&[], &[(bad, "bar")]));
            assert_eq!(found.len(), 1, "{bad}: {found:?}");
            assert!(
                found[0].starts_with("metadata.annotations: Invalid value: "),
                "{found:?}"
            );
            assert!(found[0].contains(expect), "{bad}: {found:?}");
        }
        let (full, half, other) = (
            "b".repeat(limit),
            "b".repeat(limit / 2),
            "d".repeat(limit / 2),
        );
        for too_big in [
            vec![("a", full.as_str())],
            vec![("a", half.as_str()), ("c", other.as_str())],
        ] {
            assert_eq!(
                problems(&meta(&[], &too_big)),
                ["metadata.annotations: Too long: may not be more than 262144 bytes"]
            );
        }
    }
}
