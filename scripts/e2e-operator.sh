#!/usr/bin/env bash
# End-to-end check of `operator-check` against real components: two CNCF
# distribution registries (Debian `docker-registry`) on 127.0.0.1 with TLS,
# a "source" standing for quay.io and registry.redhat.io and the
# disconnected cluster's "mirror", and the containers/image client
# (`skopeo`) as the oracle.
#
# scripts/e2e-operator-build.py (python3's standard library only) pushes a
# real file-based catalog image (config label, a `/configs` layer with a
# JSON-stream file, a YAML multi-document file, one file per bundle in YAML
# and JSON, an `.indexignore`, a base layer and a `tmp/cache` layer; a tag
# whose last layer whites out a package's file; a SQLite index), bundle
# images with operator-sdk's labels and their CSV in `manifests/`, operator
# and operand images by digest and one related image by tag only. Both
# registries hold everything but the mirror, as oc-mirror left it, lacks
# the bundles of etcd.v0.9.2 and etcd.v0.9.3.
#
# The cluster's objects are files as oc-mirror v2 writes them in
# `working-dir/cluster-resources/`: the IDMS (with NeverContactSource, as a
# disconnected cluster sets it), the ITMS (the catalog and the by-tag image),
# the CatalogSource (naming the catalog by its source name), and the
# Subscription on etcd.v0.9.0, channel stable (replaces chain 0.9.0 <- 0.9.2
# <- 0.9.3 <- 0.9.4, the head's skipRange `>=0.9.2 <0.9.4`), so OLM's path is
# 0.9.0 -> 0.9.2 (replaces) -> 0.9.4 (skipRange).
#
# Checks: the verdict and the path the rules imply; skopeo, through the
# registries.conf `render` writes for the workers from the same objects, is
# the oracle of every `servedBy` (its inspect of the source pull spec
# succeeds exactly for the served images, from the same source); the
# catalog's digest. Then the `skopeo copy` lines the tool prints are run
# (with the cert dirs this machine trusts both registries with) and the
# check runs again until ready, in at most three rounds. Then: without the
# ITMS entry for the by-tag image it is `tagSkipsDigestMirrors` (skopeo,
# too, cannot pull it); the SQLite index is undetermined with the reason;
# the whited-out tag reads the catalog without the whited-out package.
#
# Usage: scripts/e2e-operator.sh [--skopeo host|root|COMMAND] [BINARY]
#   BINARY   default target/debug/kubectl-mirrorpolicy
#   --skopeo the skopeo to judge by (or E2E_SKOPEO): host (default, `skopeo`
#            on PATH), root (skopeo 1.18 in the Debian 13 root of
#            scripts/debian13-root.sh) or a command.
# Needs: docker-registry, skopeo, openssl and python3. No network.
# E2E_KEEP=1 keeps the work folder; E2E_OPERATOR_SHOW=1 prints the text
# output of the first round as docs/operator-check.md shows it.
set -euo pipefail
cd "$(dirname "$0")/.."

E2E_NAME=e2e-operator
. scripts/e2e-lib.sh
e2e_args "$@"
BUILD=$PWD/scripts/e2e-operator-build.py
e2e_need docker-registry openssl python3
e2e_skopeo
echo "e2e-operator: judged by skopeo $SKOPEO_VERSION (${SKOPEO[*]})"

e2e_workdir
T="timeout 120"
echo '{"auths": {}}' >"$WORK/no-auth.json"

# --- a CA this machine trusts (a cert dir), and the registries' leaf -------
ca ca e2e-operator-ca
server_cert ca server
mkdir -p "$WORK/certs"
cp "$WORK/ca.crt" "$WORK/certs/ca.crt"

SOURCE=$(start_registry source)
MIRROR=$(start_registry mirror)

if ! $T python3 "$BUILD" "$SOURCE" "$MIRROR" "$WORK/ca.crt" >"$WORK/built.json" 2>"$WORK/built.err"; then
    fail "build: could not build and push the catalog and its images: $(tail -1 "$WORK/built.err")"
    e2e_finish
fi
built() { python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$WORK/built.json" "$1"; }
CATALOG=$(built catalog) || { fail "build: the builder named no catalog"; e2e_finish; }

# --- the cluster, as oc-mirror v2 writes its cluster-resources -------------
objects() { # DIR WITH-TAG-ITMS(yes|no)
    local d=$1
    mkdir -p "$d"
    cat >"$d/idms-oc-mirror.yaml" <<EOF
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: idms-operator-0
spec:
  imageDigestMirrors:
  - mirrors:
    - $MIRROR/olm/etcd
    source: $SOURCE/etcd
    mirrorSourcePolicy: NeverContactSource
  - mirrors:
    - $MIRROR/olm/backup
    source: $SOURCE/backup
    mirrorSourcePolicy: NeverContactSource
EOF
    {
        cat <<EOF
apiVersion: config.openshift.io/v1
kind: ImageTagMirrorSet
metadata:
  name: itms-operator-0
spec:
  imageTagMirrors:
  - mirrors:
    - $MIRROR/olm/redhat/redhat-operator-index
    source: $SOURCE/redhat/redhat-operator-index
    mirrorSourcePolicy: NeverContactSource
EOF
        [ "$2" = no ] || cat <<EOF
  - mirrors:
    - $MIRROR/olm/etcd/etcd-backup
    source: $SOURCE/etcd/etcd-backup
    mirrorSourcePolicy: NeverContactSource
EOF
    } >"$d/itms-oc-mirror.yaml"
    cat >"$d/cs-redhat-operator-index-v4-21.yaml" <<EOF
apiVersion: operators.coreos.com/v1alpha1
kind: CatalogSource
metadata:
  name: redhat-operator-index
  namespace: openshift-marketplace
spec:
  sourceType: grpc
  image: $CATALOG
  displayName: Red Hat Operators
  publisher: Red Hat
EOF
    cat >"$d/subscription.yaml" <<EOF
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata:
  name: etcd
  namespace: operators
spec:
  name: etcd
  channel: stable
  source: redhat-operator-index
  sourceNamespace: openshift-marketplace
  installPlanApproval: Manual
status:
  installedCSV: etcd.v0.9.0
EOF
    $T "$BIN" render -f "$d" --pool worker --file /etc/containers/registries.conf \
        >"$d.registries.conf" 2>"$d.render.err"
}
OBJECTS=$WORK/cluster-resources
if ! objects "$OBJECTS" yes; then
    fail "render: $(cat "$OBJECTS.render.err")"; e2e_finish
fi

# operator-check -o json of DIR with ARGS into NAME.json; its exit code in NAME.code.
check() { # NAME DIR ARGS...
    local name=$1 dir=$2 code; shift 2
    $T "$BIN" operator-check -f "$dir" --cert-dir "$WORK/certs" --authfile "$WORK/no-auth.json" \
        -o json "$@" >"$WORK/$name.json" 2>"$WORK/$name.err" && code=0 || code=$?
    echo "$code" >"$WORK/$name.code"
}
# A summary of NAME.json: `readiness reason`, the path, the failing images.
summary() { # NAME
    python3 - "$WORK/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["readiness"], d["reason"])
print(" ".join(f'{h.get("from") or "-"}>{h["to"]}:{h["edge"]}' for h in d["hops"]) or "-")
bad = sorted(f'{i["role"]}:{i["reference"]}:{(i.get("check") or {}).get("outcome", "-")}'
             for h in d["hops"] for i in h["images"]
             if i["counted"] and (i.get("check") or {}).get("outcome") != "served")
print(" ".join(bad) or "-")
print(d["message"])
PY
}
# Every image of NAME.json (the catalog, then each hop's) with its servedBy or `-`.
served_list() { # NAME
    python3 - "$WORK/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["catalog"]["check"]
if c:
    print(d["catalog"]["image"], c.get("servedBy") or "-")
seen = set()
for h in d["hops"]:
    for i in h["images"]:
        if i.get("check") is not None and i["reference"] not in seen:
            seen.add(i["reference"])
            print(i["reference"], i["check"].get("servedBy") or "-")
PY
}
# skopeo, through the registries.conf rendered for the workers from DIR,
# pulls every image of NAME.json (inspect --raw of its source pull spec): it
# succeeds exactly for those the tool says served, from their servedBy.
oracle() { # NAME DIR
    local name=$1 regconf=$2.registries.conf ref served pulled log n=0 agree=0 disagree=()
    while read -r ref served; do
        n=$((n + 1)); log="$WORK/$name.skopeo.$n.log"
        if $T "${SKOPEO[@]}" --registries-conf "$regconf" --debug inspect --raw --cert-dir "$WORK/certs" \
            --authfile "$WORK/no-auth.json" "docker://$ref" >/dev/null 2>"$log"; then
            pulled=$(last_tried "$log")
        else
            pulled=-
        fi
        if [ "$pulled" = "$served" ]; then
            agree=$((agree + 1))
        else
            disagree+=("$ref: skopeo pulled from '$pulled', servedBy '$served'")
        fi
    done < <(served_list "$name")
    if [ "$n" -gt 0 ] && [ "${#disagree[@]}" -eq 0 ]; then
        ok "$name-skopeo: skopeo agrees on the $n images' sources (the catalog's and every hop's)"
    else
        fail "$name-skopeo: $agree of $n agree"; printf '     %s\n' "${disagree[@]}"
    fi
}
# NAME EXIT "READINESS REASON" PATH FAILING: the verdict, the path and the
# counted images that are not served.
expect() {
    local name=$1 want_code=$2 want_verdict=$3 want_path=$4 want_bad=$5 code got
    code=$(cat "$WORK/$name.code")
    got=$(summary "$name" 2>&1) || got="(not the JSON of operator-check: $(tail -2 "$WORK/$name.err"))"
    if [ "$code" = "$want_code" ] && [ "$(sed -n 1p <<<"$got")" = "$want_verdict" ] \
        && [ "$(sed -n 2p <<<"$got")" = "$want_path" ] && [ "$(sed -n 3p <<<"$got")" = "$want_bad" ]; then
        ok "$name: exit $code, $want_verdict, path $want_path"
        return 0
    fi
    fail "$name: exit $code (expected $want_code)"
    printf '     got:      %s\n' "$(sed -n 1,3p <<<"$got" | paste -sd'|')"
    printf '     expected: %s|%s|%s\n' "$want_verdict" "$want_path" "$want_bad"
    tail -2 "$WORK/$name.err" | sed 's/^/     /'
    return 1
}
PATH_WANTED="etcd.v0.9.0>etcd.v0.9.2:replaces etcd.v0.9.2>etcd.v0.9.4:skipRange"
BUNDLE_092=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["etcd"]["bundles"]["etcd.v0.9.2"])' "$WORK/built.json") ||
    BUNDLE_092="(the builder named no etcd.v0.9.2 bundle)"

# The text output of the first round, as docs/operator-check.md shows it:
# the mirror as mirror.example.com:5000, the source as quay.io and
# registry.redhat.io, each table aligned again for those names as the tool
# aligns it (cells apart by two spaces or more, the last one not padded).
# The page's run must be this one, digests aside (they follow the source's
# port, which is in the catalog and the CSVs).
docs_example() { # NAME ARGS...: `operator-check ARGS` run in the work folder
    local name=$1 code; shift
    (cd "$WORK" && COLUMNS=100 NO_COLOR=1 $T "$BIN" operator-check "$@" \
        >"$WORK/$name.raw" 2>"$WORK/$name.err") && code=0 || code=$?
    printf '$ echo $?\n%s\n' "$code" >>"$WORK/$name.raw"
    if ! python3 - "$WORK/$name.raw" "$MIRROR" "$SOURCE" "docs/operator-check.md" "$*" >"$WORK/$name.txt" 2>"$WORK/$name.diff" <<'PY'; then
import re, sys
raw, mirror, source, page, args = sys.argv[1:6]
text = open(raw).read()

def realign(text):
    out, block = [], []
    def flush():
        if block:
            rows = [re.split(r"  +", l) for l in block]
            widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
            out.extend("  ".join(c.ljust(widths[i]) if i + 1 < len(r) else c for i, c in enumerate(r)) for r in rows)
            block.clear()
    for line in text.split("\n"):
        if line.startswith("HOP ") or (block and line):
            block.append(line)
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out)

if realign(text) != text:
    sys.exit("the tables are not aligned as this check assumes (cells apart by two spaces or more)")
shown = realign(text.replace(mirror, "mirror.example.com:5000")
                .replace(source + "/redhat/", "registry.redhat.io/redhat/").replace(source, "quay.io"))
print(shown, end="")
doc = open(page).read()
start = f"```console\n$ kubectl mirrorpolicy operator-check {args}\n"
if start not in doc:
    sys.exit(f"{page} shows no run `$ kubectl mirrorpolicy operator-check {args}`")
block = doc[doc.index(start) + len(start):]
block = block[:block.index("```\n")]
digestless = lambda t: re.sub(r"sha256:[0-9a-f]{64}", "sha256:DIGEST", t)
if digestless(block) != digestless(shown):
    import difflib
    sys.stdout.flush()
    sys.stderr.writelines(difflib.unified_diff(digestless(block).splitlines(True), digestless(shown).splitlines(True), page, "this run"))
    sys.exit(1)
PY
        fail "$name: docs/operator-check.md does not show this run (E2E_OPERATOR_SHOW=1 prints it; digests aside):"
        sed 's/^/     /' "$WORK/$name.diff" | head -40
    else
        ok "$name: docs/operator-check.md shows this run (exit $code)"
    fi
    [ -z "${E2E_OPERATOR_SHOW:-}" ] || cat "$WORK/$name.txt"
}

# --- OLM v1: the catalog as a ClusterCatalog, a ClusterExtension on etcd.v0.9.0 --
# The same mirror sets; catalogd and operator-controller pull the catalog and
# the bundles on the control plane with its files, so skopeo judges them by
# the registries.conf rendered for the master pool. v1 resolves one jump at a
# time: etcd.v0.9.2 (replaces), then the highest successor, etcd.v0.9.4.
V1=$WORK/cluster-resources-v1
v1_objects() { # DIR
    local d=$1
    mkdir -p "$d"
    cp "$OBJECTS/idms-oc-mirror.yaml" "$OBJECTS/itms-oc-mirror.yaml" "$d/"
    cat >"$d/clustercatalog.yaml" <<EOF
apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata:
  name: redhat-operators
spec:
  priority: -100
  source:
    type: Image
    image:
      ref: $CATALOG
      pollIntervalMinutes: 10
EOF
    cat >"$d/clusterextension.yaml" <<EOF
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: etcd
spec:
  namespace: etcd-operator
  serviceAccount:
    name: etcd-installer
  source:
    sourceType: Catalog
    catalog:
      packageName: etcd
      channels: [stable]
status:
  install:
    bundle:
      name: etcd.v0.9.0
      version: 0.9.0
EOF
    $T "$BIN" render -f "$d" --pool master --file /etc/containers/registries.conf \
        >"$d.registries.conf" 2>"$d.render.err"
}
V1_READY=no
if v1_objects "$V1"; then
    V1_READY=yes
    check v1-round-1 "$V1" clusterextension/etcd
    expect v1-round-1 1 "notReady imagesNotServed" "$PATH_WANTED" "bundle:$BUNDLE_092:missing" || true
    oracle v1-round-1 "$V1"
    docs_example docs-example-v1 -f cluster-resources-v1/ --cert-dir certs/ clusterextension/etcd
else
    fail "v1: render: $(cat "$V1.render.err")"
fi

# --- the rounds: check, run the printed lines, until ready ------------------
round=1
while :; do
    check "round-$round" "$OBJECTS"
    if [ "$round" -eq 1 ]; then
        # The mirror lacks hop 1's bundle: oc-mirror mirrored the head only.
        expect round-1 1 "notReady imagesNotServed" "$PATH_WANTED" "bundle:$BUNDLE_092:missing" || true
        message=$(summary round-1 2>/dev/null | sed -n 4p) || message="(not the JSON of operator-check)"
        case "$message" in
        *"hop 1 (etcd.v0.9.0 -> etcd.v0.9.2)"*) ok "round-1-message: $message" ;;
        *) fail "round-1-message: '$message' does not name hop 1 (etcd.v0.9.0 -> etcd.v0.9.2)" ;;
        esac
        digest=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["catalog"]["digest"])' "$WORK/round-1.json" 2>/dev/null || echo -)
        if $T "${SKOPEO[@]}" --registries-conf "$OBJECTS.registries.conf" inspect --raw --cert-dir "$WORK/certs" \
            --authfile "$WORK/no-auth.json" "docker://$CATALOG" >"$WORK/catalog.raw" 2>"$WORK/catalog.skopeo.err"; then
            raw=sha256:$(sha256sum <"$WORK/catalog.raw" | cut -d' ' -f1)
        else
            raw="nothing ($(tail -1 "$WORK/catalog.skopeo.err"))"
        fi
        pushed=$(built catalogDigest) || pushed=-
        if [ "$digest" = "$pushed" ] && [ "$digest" = "$raw" ]; then
            ok "round-1-catalog: the catalog read is the one skopeo pulls ($digest)"
        else
            fail "round-1-catalog: the tool read $digest, skopeo pulled $raw, the builder pushed $pushed"
        fi
        docs_example docs-example -f cluster-resources/ --cert-dir certs/
    fi
    oracle "round-$round" "$OBJECTS"
    code=$(cat "$WORK/round-$round.code")
    [ "$code" = 0 ] && break
    if [ "$round" -ge 3 ]; then
        fail "rounds: still not ready (exit $code) after $round rounds: $(summary "round-$round" | sed -n 4p)"
        break
    fi
    run_fix_lines "round-$round-fix" "$WORK/round-$round.json" || break
    round=$((round + 1))
done
if [ "$(cat "$WORK/round-$round.code")" = 0 ]; then
    expect "round-$round" 0 "ready pathServed" "$PATH_WANTED" "-" || true
    # One line per missing image: the one bundle the mirror lacked on the path.
    if [ "$round" = 2 ] && [ "$FIXED" = 1 ]; then
        ok "rounds: ready after running the 1 line printed (hop 1's bundle copied to the mirror)"
    else
        fail "rounds: ready after $round rounds and $FIXED lines (expected 2 rounds, 1 line)"
    fi
fi

# The v0 rounds copied hop 1's bundle: the ClusterExtension's path is served too.
if [ "$V1_READY" = yes ]; then
    check v1-round-2 "$V1" clusterextension/etcd
    expect v1-round-2 0 "ready pathServed" "$PATH_WANTED" "-" || true
    oracle v1-round-2 "$V1"
fi

# --- the by-tag image without its ITMS entry: tagSkipsDigestMirrors ---------
NOTAG=$WORK/cluster-resources-no-tag-mirror
if objects "$NOTAG" no; then
    check no-tag-mirror "$NOTAG"
    BACKUP=$(built etcd.backup) || BACKUP="(the builder named no etcd.backup)"
    expect no-tag-mirror 1 "notReady imagesNotServed" "$PATH_WANTED" "related:$BACKUP:blocked" || true
    cls=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted({i["class"] for h in d["hops"] for i in h["images"] if i["reference"] == sys.argv[2]})),
      " ".join(s["outcome"] for s in d["nextSteps"]))' "$WORK/no-tag-mirror.json" "$BACKUP" 2>&1) || true
    case "$cls" in
    "tagSkipsDigestMirrors "*tagSkipsDigestMirrors*) ok "no-tag-mirror-class: $BACKUP is tagSkipsDigestMirrors, with its next step" ;;
    *) fail "no-tag-mirror-class: $cls" ;;
    esac
    oracle no-tag-mirror "$NOTAG"
else
    fail "no-tag-mirror: render: $(cat "$NOTAG.render.err")"
fi

# --- the SQLite index: undetermined, saying why -----------------------------
SQLITE=$(built sqlite) || SQLITE="(the builder named no sqlite index)"
check sqlite "$OBJECTS" --catalog-image "$SQLITE" --package etcd --installed etcd.v0.9.0
why=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["readiness"], d["reason"], "|", d["catalog"].get("undetermined") or "")' "$WORK/sqlite.json" 2>&1) || true
case "$(cat "$WORK/sqlite.code") $why" in
"3 undetermined catalogUndetermined | "*SQLite*) ok "sqlite: exit 3, undetermined: ${why#*| }" ;;
*) fail "sqlite: exit $(cat "$WORK/sqlite.code"): $why" ;;
esac

# --- the whiteout: the pruned tag reads the catalog without the file --------
check whole "$OBJECTS" --catalog-image "$CATALOG" --package backup-tools
expect whole 0 "ready pathServed" "->backup-tools.v1.2.0:install" "-" || true
oracle whole "$OBJECTS"
PRUNED=$(built pruned) || PRUNED="(the builder named no pruned tag)"
check pruned "$OBJECTS" --catalog-image "$PRUNED" --package backup-tools
expect pruned 1 "notReady packageNotFound" "-" "-" || true
check pruned-etcd "$OBJECTS" --catalog-image "$PRUNED"
expect pruned-etcd 0 "ready pathServed" "$PATH_WANTED" "-" || true

e2e_finish
