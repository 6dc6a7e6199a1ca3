//! Field trees as data: the tool's own (from [`super::schema`]) and those
//! of a CustomResourceDefinition's `openAPIV3Schema`, compared with each
//! other and used to check an object's fields.
//!
//! A CRD's tree is the union of every served version's structural schema
//! (`apiextensions.k8s.io/v1`): `properties` are an object's fields,
//! `items` a list's, and a subtree marked
//! `x-kubernetes-preserve-unknown-fields` (or a map with
//! `additionalProperties`) takes any field. `metadata` is left out: the
//! API server decodes it as `metav1.ObjectMeta` whatever the CRD says.

use std::collections::BTreeMap;

use serde_json::Value;

/// One node of a field tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    /// A scalar, a map of free keys, or a subtree that keeps unknown
    /// fields: nothing below it is checked.
    Any,
    /// A list whose items are all of this shape.
    List(Box<Tree>),
    /// An object with exactly these fields.
    Object(BTreeMap<String, Tree>),
}

impl Tree {
    /// A list of `item`; a list of scalars is a leaf like a scalar.
    pub fn list(item: Tree) -> Tree {
        match item {
            Tree::Any => Tree::Any,
            item => Tree::List(Box::new(item)),
        }
    }

    /// The union of two trees: every field of either (what the API server
    /// serving both versions, or every feature set, accepts).
    pub fn merge(self, other: Tree) -> Tree {
        match (self, other) {
            (Tree::Object(mut a), Tree::Object(b)) => {
                for (key, tree) in b {
                    let merged = match a.remove(&key) {
                        Some(old) => old.merge(tree),
                        None => tree,
                    };
                    a.insert(key, merged);
                }
                Tree::Object(a)
            }
            (Tree::List(a), Tree::List(b)) => Tree::list(a.merge(*b)),
            _ => Tree::Any,
        }
    }

    /// The field tree of one `openAPIV3Schema` (or a property of one).
    pub fn from_openapi(schema: &Value) -> Tree {
        let flag = |name: &str| schema.get(name).and_then(Value::as_bool) == Some(true);
        if flag("x-kubernetes-preserve-unknown-fields") || flag("x-kubernetes-int-or-string") {
            return Tree::Any;
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => match schema.get("properties").and_then(Value::as_object) {
                Some(properties) => Tree::Object(
                    properties
                        .iter()
                        .map(|(key, s)| (key.clone(), Tree::from_openapi(s)))
                        .collect(),
                ),
                None if schema.get("additionalProperties").is_some() => Tree::Any,
                // `type: object` and nothing else: every field is pruned.
                None => Tree::Object(BTreeMap::new()),
            },
            Some("array") => Tree::list(schema.get("items").map_or(Tree::Any, Tree::from_openapi)),
            _ => Tree::Any,
        }
    }

    /// A structural `openAPIV3Schema` of exactly this tree (scalars as
    /// strings, free subtrees kept whole): what a CRD declaring these
    /// fields and no others holds.
    pub fn to_openapi(&self) -> Value {
        match self {
            Tree::Any => serde_json::json!({
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": true
            }),
            Tree::List(item) => serde_json::json!({"type": "array", "items": item.to_openapi()}),
            Tree::Object(fields) => {
                let properties: serde_json::Map<String, Value> = fields
                    .iter()
                    .map(|(k, t)| (k.clone(), t.to_openapi()))
                    .collect();
                serde_json::json!({"type": "object", "properties": properties})
            }
        }
    }

    /// The fields directly below, when this is an object.
    pub fn fields(&self) -> Option<&BTreeMap<String, Tree>> {
        match self {
            Tree::Object(fields) => Some(fields),
            _ => None,
        }
    }
}

/// The field tree a CustomResourceDefinition gives its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrdSchema {
    /// `metadata.name`, e.g. `imagedigestmirrorsets.config.openshift.io`.
    pub name: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// The union of every served version's schema, without `metadata`.
    pub tree: Tree,
    /// Where it was read: a file, or the cluster.
    pub from: String,
}

/// The API group and version of a CustomResourceDefinition.
pub const APIEXTENSIONS_V1: &str = "apiextensions.k8s.io/v1";

/// Whether a document is a CustomResourceDefinition (any version).
pub fn is_crd(value: &Value) -> bool {
    value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && value
            .get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|api| api.starts_with("apiextensions.k8s.io/"))
}

/// Reads a CustomResourceDefinition manifest (`from` names it in
/// messages): its name, group, kind and the union of its served versions'
/// schemas.
pub fn parse_crd(value: &Value, from: &str) -> Result<CrdSchema, String> {
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| format!("{from}: CustomResourceDefinition has no {pointer}"))
    };
    let api = value.get("apiVersion").and_then(Value::as_str);
    if api != Some(APIEXTENSIONS_V1) {
        return Err(format!(
            "{from}: apiVersion {} is not {APIEXTENSIONS_V1}",
            api.unwrap_or("<none>")
        ));
    }
    let name = text("/metadata/name")?;
    let group = text("/spec/group")?;
    let kind = text("/spec/names/kind")?;
    let versions = value
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{from}: CustomResourceDefinition {name} has no spec.versions"))?;
    let mut tree: Option<Tree> = None;
    for version in versions {
        if version.get("served").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        let schema = version.pointer("/schema/openAPIV3Schema").ok_or_else(|| {
            format!("{from}: CustomResourceDefinition {name}: a served version has no schema.openAPIV3Schema")
        })?;
        let this = Tree::from_openapi(schema);
        tree = Some(match tree {
            Some(t) => t.merge(this),
            None => this,
        });
    }
    let mut tree =
        tree.ok_or_else(|| format!("{from}: CustomResourceDefinition {name} serves no version"))?;
    if let Tree::Object(fields) = &mut tree {
        fields.remove("metadata");
    }
    Ok(CrdSchema {
        name,
        group,
        kind,
        tree,
        from: from.to_string(),
    })
}

/// How the tool's field tree and a CRD's differ, as field paths
/// (`spec.imageDigestMirrors[].source`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Fields the CRD declares and the tool does not know (or a subtree
    /// the CRD leaves open that the tool checks field by field).
    pub unknown_to_tool: Vec<String>,
    /// Fields the tool knows and the CRD does not declare.
    pub missing_from_crd: Vec<String>,
}

impl Comparison {
    /// Whether the trees agree.
    pub fn is_empty(&self) -> bool {
        self.unknown_to_tool.is_empty() && self.missing_from_crd.is_empty()
    }
}

/// Compares the tool's tree of a kind with a CRD's (`metadata` aside).
pub fn compare(tool: &Tree, crd: &Tree) -> Comparison {
    let mut out = Comparison::default();
    compare_at(tool, crd, "", &mut out);
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Every field path below `tree`, `path` first (a leaf is itself).
fn paths_below(tree: &Tree, path: &str, out: &mut Vec<String>) {
    match tree {
        Tree::Object(fields) if !fields.is_empty() => {
            for (key, t) in fields {
                paths_below(t, &join(path, key), out);
            }
        }
        Tree::List(item) => paths_below(item, &format!("{path}[]"), out),
        _ => out.push(path.to_string()),
    }
}

fn compare_at(tool: &Tree, crd: &Tree, path: &str, out: &mut Comparison) {
    match (tool, crd) {
        (Tree::Any, Tree::Any) => {}
        (Tree::Object(a), Tree::Object(b)) => {
            for (key, t) in b {
                if key == "metadata" && path.is_empty() {
                    continue;
                }
                match a.get(key) {
                    Some(mine) => compare_at(mine, t, &join(path, key), out),
                    None => paths_below(t, &join(path, key), &mut out.unknown_to_tool),
                }
            }
            for (key, t) in a {
                let declared = b.contains_key(key) || (key == "metadata" && path.is_empty());
                if !declared {
                    paths_below(t, &join(path, key), &mut out.missing_from_crd);
                }
            }
        }
        (Tree::List(a), Tree::List(b)) => compare_at(a, b, &format!("{path}[]"), out),
        // The tool takes anything where the CRD checks fields: those
        // fields are unknown to the tool's check.
        (Tree::Any, _) => paths_below(crd, path, &mut out.unknown_to_tool),
        // The CRD takes anything (or another shape) where the tool checks.
        (_, _) => out.unknown_to_tool.push(format!(
            "{path} (the CRD declares another shape or keeps any field)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(versions: Value) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Thing"}, "versions": versions}
        })
    }

    fn obj(props: Value) -> Value {
        json!({"type": "object", "properties": props})
    }

    #[test]
    fn served_versions_are_merged_and_open_subtrees_take_anything() {
        let v1 = obj(json!({
            "metadata": {"type": "object"},
            "spec": obj(json!({
                "a": {"type": "string"},
                "list": {"type": "array", "items": obj(json!({"x": {"type": "string"}}))},
                "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                         "properties": {"y": {"type": "string"}}},
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
            })),
        }));
        let v2 = obj(json!({"spec": obj(json!({"b": {"type": "integer"}}))}));
        let unserved = obj(json!({"spec": obj(json!({"c": {"type": "integer"}}))}));
        let value = crd(json!([
            {"name": "v1", "served": true, "schema": {"openAPIV3Schema": v1}},
            {"name": "v2", "served": true, "schema": {"openAPIV3Schema": v2}},
            {"name": "v0", "served": false, "schema": {"openAPIV3Schema": unserved}},
        ]));
        let parsed = parse_crd(&value, "t.yaml").unwrap();
        assert_eq!(parsed.kind, "Thing");
        let spec = parsed.tree.fields().unwrap()["spec"].fields().unwrap();
        let keys: Vec<&str> = spec.keys().map(String::as_str).collect();
        assert_eq!(keys, ["a", "b", "list", "map", "open"]);
        assert_eq!(spec["open"], Tree::Any);
        assert_eq!(spec["map"], Tree::Any);
        assert!(matches!(spec["list"], Tree::List(_)));
        assert!(!parsed.tree.fields().unwrap().contains_key("metadata"));
    }

    #[test]
    fn bad_manifests_are_named() {
        let no_schema = crd(json!([{"name": "v1", "served": true}]));
        assert!(parse_crd(&no_schema, "x.yaml")
            .unwrap_err()
            .contains("x.yaml: CustomResourceDefinition things.example.com"));
        let none_served = crd(json!([{"name": "v1", "served": false}]));
        assert!(parse_crd(&none_served, "x.yaml")
            .unwrap_err()
            .contains("serves no version"));
        let mut old = crd(json!([]));
        old["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
        assert!(parse_crd(&old, "x.yaml").unwrap_err().contains("v1beta1"));
    }

    #[test]
    fn comparison_lists_both_sides() {
        let tool = Tree::Object(BTreeMap::from([
            ("kind".to_string(), Tree::Any),
            (
                "spec".to_string(),
                Tree::Object(BTreeMap::from([
                    ("old".to_string(), Tree::Any),
                    ("free".to_string(), Tree::Any),
                ])),
            ),
        ]));
        let crd_tree = Tree::from_openapi(&obj(json!({
            "kind": {"type": "string"},
            "spec": obj(json!({
                "new": {"type": "string"},
                "free": obj(json!({"deep": {"type": "array", "items": obj(json!({"z": {"type": "string"}}))}})),
            })),
        })));
        let c = compare(&tool, &crd_tree);
        assert_eq!(c.unknown_to_tool, ["spec.free.deep[].z", "spec.new"]);
        assert_eq!(c.missing_from_crd, ["spec.old"]);
        assert!(compare(&crd_tree, &crd_tree).is_empty());
    }
}
