#!/usr/bin/env python3
"""Builds and pushes the operator catalog of scripts/e2e-operator.sh.

Two registries on loopback: SOURCE stands for quay.io and registry.redhat.io
(everything is there), MIRROR for the disconnected cluster's mirror registry,
filled as oc-mirror v2 fills it under the `olm/` prefix, but without the
bundles of etcd.v0.9.2 and etcd.v0.9.3 (oc-mirror mirrored the channel's
head, and one bundle more).

Images, each pushed with the registry's HTTP API by scripts/oci_push.py
(python3's standard library only):

* bundle images with the labels `opm`/`operator-sdk` write
  (`operators.operatorframework.io.bundle.*`) and a layer holding
  `manifests/` (the CSV, a CRD) and `metadata/annotations.yaml`;
* the operator image of each version and the operand, by digest; the
  backup image by tag only (`v0.9.4`), as community content often names it;
* a file-based catalog image as `opm` builds one: a base layer (`bin/opm`),
  the `/configs` layer (config label
  `operators.operatorframework.io.index.configs.v1`) with one file per
  bundle, YAML and JSON mixed (`olm.csv.metadata` on the older bundles, the
  CSV as `olm.bundle.object` on the head), a JSON-stream file (package and
  channel), a YAML multi-document file (a whole package), an `.indexignore`
  leaving out a README and a broken scratch file, and the `tmp/cache` layer
  `opm serve --cache-dir` writes; tag `v4.21`;
* tag `v4.21-pruned`: the same layers and one more whiting out the
  backup-tools package's file;
* tag `v4.10`: a SQLite index (label
  `operators.operatorframework.io.index.database.v1`, no configs label).

Usage: e2e-operator-build.py SOURCE MIRROR CA-FILE
Prints a JSON object: the catalog's pull specs and every image by role.
"""

import base64
import gzip
import json
import sys

from oci_push import image as oci_image, push, rootfs, sha, tar, trust

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
DATABASE_LABEL = "operators.operatorframework.io.index.database.v1"
MIRROR_PREFIX = "olm"
CATALOG_REPO = "redhat/redhat-operator-index"

# etcd's channel `stable`: (csv, version, replaces, skipRange). The head
# skips 0.9.2 and 0.9.3 by its skipRange, as real heads do.
ETCD = [
    ("etcd.v0.9.0", "0.9.0", None, None),
    ("etcd.v0.9.2", "0.9.2", "etcd.v0.9.0", None),
    ("etcd.v0.9.3", "0.9.3", "etcd.v0.9.2", None),
    ("etcd.v0.9.4", "0.9.4", "etcd.v0.9.3", ">=0.9.2 <0.9.4"),
]
# The bundles oc-mirror left out of the mirror.
NOT_MIRRORED = {"etcd.v0.9.2", "etcd.v0.9.3"}


def image(labels, layer_tars):
    """An OCI image (manifest bytes, blobs) of gzip layers and a config with `labels`."""
    layers = [gzip.compress(t, mtime=0) for t in layer_tars]
    config = rootfs({"config": {"Labels": labels} if labels else {}}, layers)
    return oci_image(config, layers)


def digest_of(img):
    return sha(img[0])


def small(path, text):
    """An image of one file (an operator or operand binary)."""
    return image({}, [tar([(path, text.encode())])])


def csv_of(name, version, replaces, operator, related):
    """The ClusterServiceVersion of one bundle (a JSON object)."""
    spec = {
        "version": version,
        "displayName": "etcd",
        "install": {"strategy": "deployment", "spec": {"deployments": [{
            "name": "etcd-operator",
            "spec": {"template": {"spec": {"containers": [
                {"name": "etcd-operator", "image": operator},
            ]}}},
        }]}},
        "customresourcedefinitions": {"owned": [
            {"name": "etcdclusters.etcd.database.coreos.com", "kind": "EtcdCluster", "version": "v1beta2"}]},
        "relatedImages": [{"name": n, "image": i} for n, i in related],
    }
    if replaces:
        spec["replaces"] = replaces
    return {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "annotations": {"containerImage": operator}}, "spec": spec}


CRD = b"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: etcdclusters.etcd.database.coreos.com
spec:
  group: etcd.database.coreos.com
  names: {kind: EtcdCluster, plural: etcdclusters}
  scope: Namespaced
  versions:
  - {name: v1beta2, served: true, storage: true}
"""


def bundle(package, channel, csv):
    """A bundle image: operator-sdk's labels, manifests/ and metadata/."""
    labels = {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": package,
        "operators.operatorframework.io.bundle.channels.v1": channel,
        "operators.operatorframework.io.bundle.channel.default.v1": channel,
    }
    annotations = "annotations:\n" + "".join(f"  {k}: {v}\n" for k, v in labels.items())
    name = csv["metadata"]["name"]
    files = [("manifests", None), ("metadata", None),
             (f"manifests/{name}.clusterserviceversion.yaml", json.dumps(csv, indent=2).encode()),
             ("manifests/etcd.database.coreos.com_etcdclusters.yaml", CRD),
             ("metadata/annotations.yaml", annotations.encode())]
    return image(labels, [tar(files)])


def yaml_bundle(doc):
    """An olm.bundle as `opm render -o yaml` writes it (JSON is YAML: flow style for values)."""
    out = [f"---\nschema: olm.bundle\nname: {doc['name']}\npackage: {doc['package']}\nimage: {doc['image']}\nproperties:\n"]
    for p in doc["properties"]:
        out.append(f"- type: {p['type']}\n  value: {json.dumps(p['value'])}\n")
    out.append("relatedImages:\n")
    for r in doc["relatedImages"]:
        out.append(f"- name: {json.dumps(r['name'])}\n  image: {r['image']}\n")
    return "".join(out)


def etcd(source, pushes):
    """etcd's images and catalog files; the images by role."""
    files, roles = [], {"bundles": {}, "operators": {}}
    operand = small("usr/local/bin/etcd", "etcd 3.5.17")
    operand_ref = f"{source}/etcd/etcd@{digest_of(operand)}"
    pushes.append(("etcd/etcd", digest_of(operand), operand, True))
    backup = small("usr/local/bin/etcd-backup", "etcd-backup 0.9.4")
    backup_ref = f"{source}/etcd/etcd-backup:v0.9.4"
    pushes.append(("etcd/etcd-backup", "v0.9.4", backup, True))
    entries = []
    for name, version, replaces, skip_range in ETCD:
        op = small("usr/local/bin/etcd-operator", f"etcd-operator {version}")
        op_ref = f"{source}/etcd/etcd-operator@{digest_of(op)}"
        pushes.append(("etcd/etcd-operator", digest_of(op), op, True))
        head = skip_range is not None
        related = [("etcd-operator", op_ref)]
        if head:
            related += [("etcd", operand_ref), ("backup", backup_ref)]
        csv = csv_of(name, version, replaces, op_ref, related)
        if head:
            csv["metadata"]["annotations"]["olm.skipRange"] = skip_range
        b = bundle("etcd", "stable", csv)
        b_ref = f"{source}/etcd/etcd-operator-bundle@{digest_of(b)}"
        pushes.append(("etcd/etcd-operator-bundle", digest_of(b), b, name not in NOT_MIRRORED))
        roles["bundles"][name], roles["operators"][name] = b_ref, op_ref
        props = [{"type": "olm.gvk", "value": {"group": "etcd.database.coreos.com", "kind": "EtcdCluster", "version": "v1beta2"}},
                 {"type": "olm.package", "value": {"packageName": "etcd", "version": version}}]
        if head:
            blob = base64.b64encode(json.dumps(csv).encode()).decode()
            props.append({"type": "olm.bundle.object", "value": {"data": blob}})
        else:
            props.append({"type": "olm.csv.metadata", "value": {"displayName": "etcd", "provider": {"name": "etcd"}}})
        # opm lists the bundle image itself among relatedImages, with no name.
        doc = {"schema": "olm.bundle", "name": name, "package": "etcd", "image": b_ref, "properties": props,
               "relatedImages": [{"name": "", "image": b_ref}] + [{"name": n, "image": i} for n, i in related]}
        # One file per bundle, YAML and JSON mixed.
        if version in ("0.9.2", "0.9.4"):
            files.append((f"configs/etcd/bundles/{name}.yaml", yaml_bundle(doc).encode()))
        else:
            files.append((f"configs/etcd/bundles/{name}.json", json.dumps(doc, indent=4).encode()))
        entry = {"name": name}
        if replaces:
            entry["replaces"] = replaces
        if skip_range:
            entry["skipRange"] = skip_range
        entries.append(entry)
    stream = [{"schema": "olm.package", "name": "etcd", "defaultChannel": "stable",
               "description": "etcd operator"},
              {"schema": "olm.channel", "package": "etcd", "name": "stable", "entries": entries},
              {"schema": "olm.channel", "package": "etcd", "name": "alpha", "entries": [{"name": "etcd.v0.9.0"}]}]
    files.append(("configs/etcd/catalog.json", "".join(json.dumps(d, indent=2) + "\n" for d in stream).encode()))
    roles.update(operand=operand_ref, backup=backup_ref)
    return files, roles


def backup_tools(source, pushes):
    """A whole package in one YAML multi-document file (whited out by `v4.21-pruned`)."""
    op = small("usr/local/bin/backup-tools", "backup-tools 1.2.0")
    op_ref = f"{source}/backup/backup-tools-operator@{digest_of(op)}"
    pushes.append(("backup/backup-tools-operator", digest_of(op), op, True))
    csv = csv_of("backup-tools.v1.2.0", "1.2.0", None, op_ref, [("operator", op_ref)])
    b = bundle("backup-tools", "stable", csv)
    b_ref = f"{source}/backup/backup-tools-bundle@{digest_of(b)}"
    pushes.append(("backup/backup-tools-bundle", digest_of(b), b, True))
    text = f"""---
schema: olm.package
name: backup-tools
defaultChannel: stable
---
schema: olm.channel
package: backup-tools
name: stable
entries:
- name: backup-tools.v1.2.0
  skipRange: '<1.2.0'
---
schema: olm.bundle
name: backup-tools.v1.2.0
package: backup-tools
image: {b_ref}
properties:
- type: olm.package
  value:
    packageName: backup-tools
    version: 1.2.0
- type: olm.csv.metadata
  value:
    displayName: Backup tools
relatedImages:
- name: operator
  image: {op_ref}
"""
    return [("configs/backup-tools/catalog.yaml", text.encode())], {"bundle": b_ref, "operator": op_ref}


def main():
    source, mirror, cafile = sys.argv[1:4]
    trust(cafile)
    pushes = []  # (repo, tag or digest, image, on the mirror too)
    etcd_files, etcd_roles = etcd(source, pushes)
    tools_files, tools_roles = backup_tools(source, pushes)
    configs = [("configs", None), ("configs/etcd", None), ("configs/etcd/bundles", None),
               ("configs/backup-tools", None), ("configs/scratch", None)]
    configs += etcd_files + tools_files
    configs += [("configs/.indexignore", b"# opm skips what matches here\n*.md\n/scratch\n"),
                ("configs/README.md", b"# {not a catalog file"),
                ("configs/scratch/broken.json", b'{"schema": "olm.bundle", ')]
    base = tar([("bin", None), ("bin/opm", b"\x7fELF opm"), ("etc", None),
                ("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")])
    cache = tar([("tmp", None), ("tmp/cache", None), ("tmp/cache/cache", None),
                 ("tmp/cache/cache/packages.json", json.dumps(["backup-tools", "etcd"]).encode()),
                 ("tmp/cache/pogreb.v1", None),
                 ("tmp/cache/pogreb.v1/db/00000-1.psg", bytes(range(256)) * 4)])
    labels = {CONFIGS_LABEL: "/configs"}
    catalog = image(labels, [base, tar(configs), cache])
    pruned = image(labels, [base, tar(configs), cache,
                            tar([("configs/backup-tools/.wh.catalog.yaml", b"")])])
    sqlite = image({DATABASE_LABEL: "/database/index.db"},
                   [base, tar([("database", None), ("database/index.db", b"SQLite format 3\x00" + bytes(4080))])])
    for tag, img in [("v4.21", catalog), ("v4.21-pruned", pruned), ("v4.10", sqlite)]:
        pushes.append((CATALOG_REPO, tag, img, True))
    for repo, ref, img, mirrored in pushes:
        push(source, repo, ref, *img)
        if mirrored:
            push(mirror, f"{MIRROR_PREFIX}/{repo}", ref, *img)
    print(json.dumps({
        "catalog": f"{source}/{CATALOG_REPO}:v4.21",
        "pruned": f"{source}/{CATALOG_REPO}:v4.21-pruned",
        "sqlite": f"{source}/{CATALOG_REPO}:v4.10",
        "catalogDigest": digest_of(catalog),
        "etcd": etcd_roles,
        "backupTools": tools_roles,
    }, indent=2))


if __name__ == "__main__":
    main()
