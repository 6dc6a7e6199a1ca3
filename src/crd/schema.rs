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
//! (config.openshift.io) and `imagecontentsourcepolicies`
//! (operator.openshift.io).

use serde_json::Value;

use super::validate::FieldError;
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

/// The kinds whose CRDs this module holds, as `kind` spells them.
pub const CHECKED_KINDS: [&str; 6] = [
    "ImageContentSourcePolicy",
    "ImageDigestMirrorSet",
    "ImageTagMirrorSet",
    "Image",
    "ClusterImagePolicy",
    "ImagePolicy",
];

fn schema_of(kind: &str) -> Option<&'static Field> {
    Some(match kind {
        "ImageContentSourcePolicy" => &IMAGE_CONTENT_SOURCE_POLICY,
        "ImageDigestMirrorSet" => &IMAGE_DIGEST_MIRROR_SET,
        "ImageTagMirrorSet" => &IMAGE_TAG_MIRROR_SET,
        "Image" => &IMAGE,
        "ClusterImagePolicy" | "ImagePolicy" => &IMAGE_POLICY,
        _ => return None,
    })
}

/// Every field of `value` (a whole object of `kind`) that the kind's CRD
/// does not declare, as the API server's strict field validation names
/// them; nothing for a kind this module holds no schema of.
pub fn unknown_fields(kind: &str, object: &Origin, value: &Value) -> Vec<FieldError> {
    let mut out = Vec::new();
    if let Some(schema) = schema_of(kind) {
        walk(schema, value, "", object, &mut out);
    }
    out
}

fn walk(field: &Field, value: &Value, path: &str, object: &Origin, out: &mut Vec<FieldError>) {
    match (field, value) {
        (Any, _) => {}
        (List(item), Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                walk(item, v, &format!("{path}[{i}]"), object, out);
            }
        }
        (Object(properties), Value::Object(map)) => {
            for (key, v) in map {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match properties.iter().find(|(name, _)| name == key) {
                    Some((_, f)) => walk(f, v, &child, object, out),
                    None => {
                        let suggestion = did_you_mean(key, properties.iter().map(|(n, _)| *n))
                            .map_or(String::new(), |s| format!(" (did you mean \"{s}\"?)"));
                        out.push(FieldError {
                            object: object.clone(),
                            file: None,
                            field: child,
                            value: String::new(),
                            message: format!("unknown field{suggestion}"),
                        });
                    }
                }
            }
        }
        // A value of another type: the typed decoding reports it.
        _ => {}
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
}
