#!/usr/bin/env bash
# End-to-end check of `explain --probe` against real components: the CNCF
# distribution registry (Debian `docker-registry`) on 127.0.0.1 with TLS and
# htpasswd, and the containers/image client (Debian `skopeo`). For each
# scenario, the source skopeo actually pulls from (its --debug log) must be
# the `servedBy` of `kubectl-mirrorpolicy explain --probe`. The TLS
# scenarios trust what Go's crypto/x509 trusts: a self-signed leaf made the
# usual way (openssl marks it CA:TRUE), a CA-signed leaf pinned alone in
# the cert dir, a CA:TRUE leaf signed by the CA (`openssl req -x509 -CA`),
# and, refused by both, a cert dir holding the wrong certificate.
#
# Two more sources are small TLS proxies (python3) in front of a real
# registry: one that holds every answer (skopeo waits for it and pulls from
# it; the probe, given less time, must say undetermined and exit 3, not name
# the next source) and one that asks the registry for another manifest than
# the digest requested (skopeo fails the pull; the probe must say
# digestMismatch and exit 1). A third never completes a connection: both
# give it up after 30s and go on to the next source.
#
# Last, the pull log: skopeo's own `Trying to access` lines, made into a
# CRI-O journal, must be replayed by `explain --journal-file` and `audit
# --journal-file` to the source skopeo used.
#
# And `upgrade-check --to-image`: a release built and pushed here, its
# mirror lacking a component and some signatures; skopeo is the oracle for
# every servedBy and (where it is built with sigstore) every signature; the
# tool's own fix lines are run until the update is ready.
#
# Usage: scripts/e2e-probe.sh [BINARY]   (default target/debug/kubectl-mirrorpolicy)
# Needs: docker-registry, skopeo, openssl, htpasswd (apache2-utils), python3 with
# its cryptography module (Debian python3-cryptography). No network.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${1:-target/debug/kubectl-mirrorpolicy}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
for tool in docker-registry skopeo openssl htpasswd python3; do
    command -v "$tool" >/dev/null || { echo "e2e-probe: $tool is not installed" >&2; exit 2; }
done
python3 -c "import cryptography" 2>/dev/null ||
    { echo "e2e-probe: the python3 cryptography module is not installed (python3-cryptography)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "e2e-probe: $BIN is not built" >&2; exit 2; }

WORK=$(mktemp -d)
# Registries are started from command substitutions (subshells): their
# process ids are kept in files, and stopped by id on exit.
cleanup() {
    local f pid
    for f in "$WORK"/*/pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    [ -n "${E2E_KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
export HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
unset REGISTRY_AUTH_FILE DOCKER_CONFIG XDG_CONFIG_HOME
T="timeout 60"

# --- certificates: a trusted CA, and another one nobody trusts -------------
ca() { # NAME
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$1" \
        -keyout "$WORK/$1.key" -out "$WORK/$1.crt" 2>/dev/null
}
server_cert() { # CA NAME
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$WORK/$2.key" -out "$WORK/$2.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$WORK/$2.ext"
    openssl x509 -req -in "$WORK/$2.csr" -CA "$WORK/$1.crt" -CAkey "$WORK/$1.key" \
        -CAcreateserial -days 2 -extfile "$WORK/$2.ext" -out "$WORK/$2.crt" 2>/dev/null
}
ca trusted-ca
ca unknown-ca
server_cert trusted-ca server
server_cert unknown-ca rogue
# A self-signed leaf as `openssl req -x509` makes one (basicConstraints
# CA:TRUE), another one nobody serves, a leaf of pinned-ca (only the leaf
# will be trusted), and a CA:TRUE leaf signed by catrue-ca.
self_signed() { # NAME
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
        -addext subjectAltName=IP:127.0.0.1 -keyout "$WORK/$1.key" -out "$WORK/$1.crt" 2>/dev/null
}
self_signed selfsigned
self_signed stranger
ca pinned-ca
server_cert pinned-ca pinned
ca catrue-ca
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -CA "$WORK/catrue-ca.crt" -CAkey "$WORK/catrue-ca.key" \
    -keyout "$WORK/catrue.key" -out "$WORK/catrue.crt" 2>/dev/null
openssl x509 -in "$WORK/selfsigned.crt" -noout -text | grep -q 'CA:TRUE' ||
    { echo "e2e-probe: openssl did not mark the self-signed leaf CA:TRUE" >&2; exit 1; }
openssl x509 -in "$WORK/catrue.crt" -noout -text | grep -q 'CA:TRUE' ||
    { echo "e2e-probe: openssl did not mark the CA-signed leaf CA:TRUE" >&2; exit 1; }
mkdir -p "$WORK/certs"
cp "$WORK/trusted-ca.crt" "$WORK/certs/ca.crt"
cert_dir() { # NAME CERT... : the trusted CA plus these certificates
    local d="$WORK/certs-$1" c; shift
    mkdir -p "$d"; cp "$WORK/trusted-ca.crt" "$d/ca.crt"
    for c in "$@"; do cp "$WORK/$c.crt" "$d/$c.crt"; done
}
cert_dir selfsigned selfsigned
cert_dir pinned pinned
cert_dir catrue catrue-ca
cert_dir wrong stranger
htpasswd -Bbn puller pullpw >"$WORK/htpasswd" 2>/dev/null

# --- four registries ------------------------------------------------------
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
    done
    echo "e2e-probe: no free port" >&2; exit 1
}
start_registry() { # NAME CERT AUTH(yes|no)
    local port; port=$(free_port)
    mkdir -p "$WORK/$1"
    {
        printf 'version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\n' "$WORK/$1/data"
        printf 'http:\n  addr: 127.0.0.1:%s\n  tls:\n    certificate: %s\n    key: %s\n' "$port" "$WORK/$2.crt" "$WORK/$2.key"
        if [ "$3" = yes ]; then
            printf 'auth:\n  htpasswd:\n    realm: e2e\n    path: %s\n' "$WORK/htpasswd"
        fi
    } >"$WORK/$1/config.yml"
    docker-registry serve "$WORK/$1/config.yml" >"$WORK/$1/log" 2>&1 </dev/null &
    echo $! >"$WORK/$1/pid"
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "127.0.0.1:$port"; return
        fi
        sleep 0.1
    done
    echo "e2e-probe: registry $1 did not start" >&2; cat "$WORK/$1/log" >&2; exit 1
}
AUTHED=$(start_registry authed server yes)   # mirror with htpasswd
PLAIN=$(start_registry plain server no)      # mirror without auth
SOURCE=$(start_registry source server no)    # the image's own registry
ROGUE=$(start_registry rogue rogue no)       # a mirror with an unknown CA
SELF=$(start_registry selfsigned selfsigned no)  # a self-signed CA:TRUE leaf
PINNED=$(start_registry pinned pinned no)        # a leaf of a CA nobody trusts
CATRUE=$(start_registry catrue catrue no)        # a CA:TRUE leaf of catrue-ca

# --- test images from a local OCI layout (no network) ---------------------
layout() { # DIR SEED
    local d=$1 blobs=$1/blobs/sha256
    mkdir -p "$blobs"
    printf '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
    local tarf="$WORK/layer-$2.tar"
    mkdir -p "$WORK/rootfs-$2"; echo "$2" >"$WORK/rootfs-$2/seed"
    tar -C "$WORK/rootfs-$2" -cf "$tarf" seed
    local layer; layer=$(sha256sum "$tarf" | cut -d' ' -f1); cp "$tarf" "$blobs/$layer"
    local lsize; lsize=$(stat -c %s "$tarf")
    printf '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"config":{}}' "$layer" >"$WORK/config-$2"
    local cfg; cfg=$(sha256sum "$WORK/config-$2" | cut -d' ' -f1); cp "$WORK/config-$2" "$blobs/$cfg"
    local csize; csize=$(stat -c %s "$WORK/config-$2")
    printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
        "$cfg" "$csize" "$layer" "$lsize" >"$WORK/manifest-$2"
    local man; man=$(sha256sum "$WORK/manifest-$2" | cut -d' ' -f1); cp "$WORK/manifest-$2" "$blobs/$man"
    local msize; msize=$(stat -c %s "$WORK/manifest-$2")
    printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"v1"}}]}' \
        "$man" "$msize" >"$d/index.json"
    echo "sha256:$man"
}
APP=$(layout "$WORK/oci-app" app)
LONE=$(layout "$WORK/oci-lone" lone)
push() { # LAYOUT REGISTRY REPO CERTS [CREDS]
    local creds=()
    [ -n "${5:-}" ] && creds=(--dest-creds "$5")
    $T skopeo copy --quiet --preserve-digests --dest-cert-dir "$4" "${creds[@]}" \
        "oci:$1:v1" "docker://$2/$3:v1"
}
mkdir -p "$WORK/rogue-certs"; cp "$WORK/unknown-ca.crt" "$WORK/rogue-certs/ca.crt"
push "$WORK/oci-app" "$AUTHED" ns/app "$WORK/certs" puller:pullpw
push "$WORK/oci-app" "$PLAIN" ns/app "$WORK/certs"
push "$WORK/oci-app" "$SOURCE" ns/app "$WORK/certs"
push "$WORK/oci-app" "$ROGUE" ns/app "$WORK/rogue-certs"
push "$WORK/oci-app" "$SELF" ns/app "$WORK/certs-selfsigned"
push "$WORK/oci-app" "$PINNED" ns/app "$WORK/certs-pinned"
push "$WORK/oci-app" "$CATRUE" ns/app "$WORK/certs-catrue"
push "$WORK/oci-lone" "$AUTHED" ns/lone "$WORK/certs" puller:pullpw
push "$WORK/oci-lone" "$SOURCE" ns/lone "$WORK/certs"

auth_file() { # FILE KEY=USER:PASS...
    local f=$1; shift
    local entries=() kv key up
    for kv in "$@"; do
        key=${kv%%=*}; up=${kv#*=}
        entries+=("\"$key\": {\"auth\": \"$(printf '%s' "$up" | base64 -w0)\"}")
    done
    local IFS=,
    printf '{"auths": {%s}}\n' "${entries[*]}" >"$f"
}
auth_file "$WORK/good-auth.json" "$AUTHED=puller:pullpw"
auth_file "$WORK/specific-auth.json" "$AUTHED=puller:wrong" "$AUTHED/ns=puller:pullpw"
auth_file "$WORK/wrong-auth.json" "$AUTHED=puller:wrong"
echo '{"auths": {}}' >"$WORK/no-auth.json"
# A credential helper (docker-credential-helpers' protocol: `get`, the
# registry on stdin) that knows the authenticated registry only.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/docker-credential-e2e" <<HELPER
#!/bin/sh
server=\$(cat)
if [ "\$1" = get ] && [ "\$server" = "$AUTHED" ]; then
    echo '{"ServerURL": "$AUTHED", "Username": "puller", "Secret": "pullpw"}'
else
    echo 'credentials not found in native keychain'
    exit 1
fi
HELPER
chmod +x "$WORK/bin/docker-credential-e2e"
export PATH="$WORK/bin:$PATH"
printf '{"credHelpers": {"%s": "e2e"}}\n' "$AUTHED" >"$WORK/helper-auth.json"
printf '{"credHelpers": {"%s": "absent"}}\n' "$AUTHED" >"$WORK/absent-helper-auth.json"

conf() { # FILE REPO MIRROR-OPTS EXTRA MIRROR...
    local f=$1 repo=$2 opts=$3 extra=$4; shift 4
    {
        printf '[[registry]]\nprefix = "%s/%s"\nlocation = "%s/%s"\n' "$SOURCE" "$repo" "$SOURCE" "$repo"
        for m in "$@"; do printf '[[registry.mirror]]\nlocation = "%s/%s"\n%s' "$m" "$repo" "$opts"; done
        printf '%s' "$extra"
    } >"$f"
}

PASS=0
FAIL=0
# scenario NAME CONF IMAGE AUTHFILE EXPECTED-HOST [CERT-DIR]
scenario() {
    local name=$1 conf=$2 image=$3 auth=$4 want=$5 certs=${6:-$WORK/certs}
    local log="$WORK/$name.skopeo.log"
    if ! $T skopeo --registries-conf "$conf" --debug inspect --raw --cert-dir "$certs" \
        --authfile "$auth" "docker://$image" >"$WORK/$name.raw" 2>"$log"; then
        echo "FAIL $name: skopeo could not pull $image"; tail -5 "$log"; FAIL=$((FAIL + 1)); return
    fi
    # The last endpoint skopeo tried is the one that served the pull.
    local pulled
    pulled=$(sed -n 's/.*Trying to access \\"\([^\\]*\)\\".*/\1/p' "$log" | tail -1)
    local json served
    json=$($T "$BIN" explain "$image" --registries-conf "$conf" --probe --cert-dir "$certs" \
        --authfile "$auth" -o json) || true
    printf '%s' "$json" >"$WORK/$name.json"
    served=$(printf '%s' "$json" | sed -n 's/^ *"servedBy": "\(.*\)",\{0,1\}$/\1/p' | head -1)
    if [ -n "$pulled" ] && [ "$pulled" = "$served" ] && [ "${served%%/*}" = "$want" ]; then
        echo "ok   $name: served by $served"
        PASS=$((PASS + 1))
    else
        echo "FAIL $name: skopeo pulled from '$pulled', explain --probe says '$served', expected host $want"
        FAIL=$((FAIL + 1))
    fi
}

conf "$WORK/c1.conf" ns/app "" "" "$AUTHED" "$PLAIN"
scenario mirror-without-credentials "$WORK/c1.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$PLAIN"

conf "$WORK/c2.conf" ns/lone "" "" "$PLAIN" "$AUTHED"
scenario image-missing-on-first-mirror "$WORK/c2.conf" "$SOURCE/ns/lone@$LONE" "$WORK/good-auth.json" "$AUTHED"

conf "$WORK/c3.conf" ns/app 'pull-from-mirror = "digest-only"
' "" "$PLAIN" "$AUTHED"
scenario tag-skips-digest-only-mirrors "$WORK/c3.conf" "$SOURCE/ns/app:v1" "$WORK/good-auth.json" "$SOURCE"

conf "$WORK/c4.conf" ns/app "" "[[registry]]
location = \"$PLAIN\"
blocked = true
" "$PLAIN" "$AUTHED"
scenario blocked-mirror-not-tried "$WORK/c4.conf" "$SOURCE/ns/app@$APP" "$WORK/good-auth.json" "$AUTHED"

conf "$WORK/c5.conf" ns/app "" "" "$ROGUE" "$PLAIN"
scenario unknown-ca "$WORK/c5.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$PLAIN"

conf "$WORK/c6.conf" ns/app "" "" "$AUTHED" "$PLAIN"
scenario most-specific-credentials-win "$WORK/c6.conf" "$SOURCE/ns/app@$APP" "$WORK/specific-auth.json" "$AUTHED"
scenario host-credentials-refused "$WORK/c6.conf" "$SOURCE/ns/app@$APP" "$WORK/wrong-auth.json" "$PLAIN"

# credHelpers: the helper's credentials open the first mirror; a helper that
# is not installed fails that mirror only, and the next one serves.
scenario credential-helper "$WORK/c6.conf" "$SOURCE/ns/app@$APP" "$WORK/helper-auth.json" "$AUTHED"
scenario missing-credential-helper "$WORK/c6.conf" "$SOURCE/ns/app@$APP" "$WORK/absent-helper-auth.json" "$PLAIN"

conf "$WORK/c7.conf" ns/app "" "" "$AUTHED"
scenario tag-pull-through-mirror "$WORK/c7.conf" "$SOURCE/ns/app:v1" "$WORK/good-auth.json" "$AUTHED"

# TLS as Go: each first mirror is trusted by skopeo through the cert dir.
conf "$WORK/c8.conf" ns/app "" "" "$SELF" "$PLAIN"
scenario self-signed-ca-true-leaf-in-cert-dir "$WORK/c8.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$SELF" "$WORK/certs-selfsigned"
conf "$WORK/c9.conf" ns/app "" "" "$PINNED" "$PLAIN"
scenario ca-signed-leaf-alone-in-cert-dir "$WORK/c9.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$PINNED" "$WORK/certs-pinned"
conf "$WORK/c10.conf" ns/app "" "" "$CATRUE" "$PLAIN"
scenario ca-true-leaf-signed-by-ca-in-cert-dir "$WORK/c10.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$CATRUE" "$WORK/certs-catrue"
# The wrong certificate in the cert dir: skopeo and the tool both refuse
# the first mirror and pull from the next.
scenario wrong-cert-in-cert-dir "$WORK/c8.conf" "$SOURCE/ns/app@$APP" "$WORK/no-auth.json" "$PLAIN" "$WORK/certs-wrong"
if grep -q '"tlsError"' "$WORK/wrong-cert-in-cert-dir.json" &&
    grep -q 'signed by unknown authority.*(roots tried: ' "$WORK/wrong-cert-in-cert-dir.json"; then
    echo "ok   wrong-cert-in-cert-dir: the refusal names the roots tried"; PASS=$((PASS + 1))
else
    echo "FAIL wrong-cert-in-cert-dir: no tlsError naming the roots"; FAIL=$((FAIL + 1))
fi

# audit --probe: a workload's image mirrored (NeverContactSource) to the
# self-signed registry is served by it, not missing on the mirror.
mkdir -p "$WORK/audit"
cat >"$WORK/audit/objects.yaml" <<OBJECTS
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: self-signed-mirror
spec:
  imageDigestMirrors:
  - source: $SOURCE/ns/app
    mirrors:
    - $SELF/ns/app
    mirrorSourcePolicy: NeverContactSource
---
apiVersion: v1
kind: Pod
metadata:
  name: app
  namespace: e2e
spec:
  containers:
  - name: app
    image: $SOURCE/ns/app@$APP
OBJECTS
audit_json=$($T "$BIN" audit -f "$WORK/audit" --probe --cert-dir "$WORK/certs-selfsigned" \
    --authfile "$WORK/no-auth.json" -o json) || true
if printf '%s' "$audit_json" | grep -q "\"servedBy\": \"$SELF/ns/app@$APP\"" &&
    ! printf '%s' "$audit_json" | grep -q '"class": "missingOnMirror"'; then
    echo "ok   audit-self-signed-mirror: served by $SELF/ns/app@$APP"; PASS=$((PASS + 1))
else
    echo "FAIL audit-self-signed-mirror: expected servedBy $SELF/ns/app@$APP, got:"
    printf '%s\n' "$audit_json" | grep -E '"(servedBy|class|detail)"'; FAIL=$((FAIL + 1))
fi

# --- a slow mirror and a tampering mirror (TLS proxies on 127.0.0.1) -------
# The proxy terminates TLS with the trusted server certificate (the
# handshake is never held), forwards to the registry over TLS, and, with
# --delay, holds the first bytes of each answer; with --rewrite, replaces
# bytes in the requests. It stops by itself after --lifetime seconds.
cat >"$WORK/proxy.py" <<'PROXY'
import argparse, asyncio, ssl

p = argparse.ArgumentParser()
p.add_argument("--listen", type=int, required=True)
p.add_argument("--upstream", required=True)
p.add_argument("--cert", required=True)
p.add_argument("--key", required=True)
p.add_argument("--ca", required=True)
p.add_argument("--delay", type=float, default=0.0)
p.add_argument("--rewrite", nargs=2, action="append", default=[])
p.add_argument("--lifetime", type=float, default=300.0)
a = p.parse_args()
server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
server_ctx.load_cert_chain(a.cert, a.key)
client_ctx = ssl.create_default_context(cafile=a.ca)
host, port = a.upstream.rsplit(":", 1)


async def requests(reader, writer, asked):
    while data := await reader.read(65536):
        for old, new in a.rewrite:
            data = data.replace(old.encode(), new.encode())
        asked.set()
        writer.write(data)
        await writer.drain()
    writer.close()


async def answers(reader, writer, asked):
    while data := await reader.read(65536):
        if asked.is_set():
            asked.clear()
            await asyncio.sleep(a.delay)
        writer.write(data)
        await writer.drain()
    writer.close()


async def handle(client_r, client_w):
    try:
        up_r, up_w = await asyncio.open_connection(host, int(port), ssl=client_ctx, server_hostname=host)
    except OSError:
        client_w.close()
        return
    asked = asyncio.Event()
    await asyncio.gather(requests(client_r, up_w, asked), answers(up_r, client_w, asked),
                         return_exceptions=True)


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", a.listen, ssl=server_ctx)
    async with server:
        await asyncio.sleep(a.lifetime)


asyncio.run(main())
PROXY
start_proxy() { # NAME UPSTREAM PROXY-ARGS...
    local name=$1 upstream=$2; shift 2
    local port; port=$(free_port)
    mkdir -p "$WORK/$name"
    python3 "$WORK/proxy.py" --listen "$port" --upstream "$upstream" --cert "$WORK/server.crt" \
        --key "$WORK/server.key" --ca "$WORK/trusted-ca.crt" --lifetime 600 "$@" \
        >"$WORK/$name/log" 2>&1 </dev/null &
    echo $! >"$WORK/$name/pid"
    for _ in $(seq 1 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "127.0.0.1:$port"; return
        fi
        sleep 0.1
    done
    echo "e2e-probe: proxy $name did not start" >&2; cat "$WORK/$name/log" >&2; exit 1
}
# A JSON field of the first candidate (python3 reads the probe's output).
field() { # JSON PYTHON-EXPRESSION-ON-c
    printf '%s' "$1" | python3 -c "import json, sys
d = json.load(sys.stdin)
c = (d[0] if isinstance(d, list) else d)['candidates'][0]
print($2)"
}
last_tried() { # SKOPEO-LOG
    sed -n 's/.*Trying to access \\"\([^\\]*\)\\".*/\1/p' "$1" | tail -1
}
SLOW=$(start_proxy slow "$PLAIN" --delay 3)
# The tampering mirror asks the registry for the lone image's manifest
# whenever the app's digest is requested.
$T skopeo copy --quiet --preserve-digests --dest-cert-dir "$WORK/certs" \
    "oci:$WORK/oci-lone:v1" "docker://$PLAIN/ns/app:lone"
TAMPER=$(start_proxy tamper "$PLAIN" --rewrite "${APP#sha256:}" "${LONE#sha256:}")

# A slow mirror: containers/image sets no response timeout, so skopeo waits
# and pulls from it. The probe, given 1s, must not name the next source:
# timedOut, servedBy null, undetermined, exit 3. Given 10s, it agrees.
conf "$WORK/c8.conf" ns/app "" "" "$SLOW" "$PLAIN"
slow_mirror() {
    local image="$SOURCE/ns/app@$APP" log="$WORK/slow-mirror.skopeo.log" pulled json code
    if ! $T skopeo --registries-conf "$WORK/c8.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" "docker://$image" >/dev/null 2>"$log"; then
        echo "FAIL slow-mirror: skopeo could not pull $image"; tail -5 "$log"; FAIL=$((FAIL + 1)); return
    fi
    pulled=$(last_tried "$log")
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c8.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --probe-timeout 1 -o json) && code=0 || code=$?
    local outcome served undetermined
    outcome=$(field "$json" "c['sources'][0]['probe']['outcome']")
    served=$(field "$json" "c['servedBy']")
    undetermined=$(field "$json" "c.get('undetermined', '')")
    if [ "${pulled%%/*}" = "$SLOW" ] && [ "$code" = 3 ] && [ "$outcome" = timedOut ] && [ "$served" = None ] \
        && [ "$undetermined" = "$SLOW/ns/app@$APP did not answer within 1s; CRI-O would keep waiting" ]; then
        echo "ok   slow-mirror: skopeo waited for $pulled; explain --probe says undetermined (exit 3)"
        PASS=$((PASS + 1))
    else
        echo "FAIL slow-mirror: skopeo pulled from '$pulled'; explain --probe exit $code, $outcome, servedBy '$served', undetermined '$undetermined'"
        FAIL=$((FAIL + 1))
    fi
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c8.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --probe-timeout 10 -o json) && code=0 || code=$?
    served=$(field "$json" "c['servedBy']")
    if [ "$code" = 0 ] && [ "$served" = "$pulled" ]; then
        echo "ok   slow-mirror-within-timeout: served by $served"
        PASS=$((PASS + 1))
    else
        echo "FAIL slow-mirror-within-timeout: skopeo pulled from '$pulled', explain --probe (exit $code) says '$served'"
        FAIL=$((FAIL + 1))
    fi
}
slow_mirror

# A by-digest mirror that answers another manifest: skopeo fails the pull
# there (it does not try the next source); the probe says digestMismatch,
# servedBy null, the candidate's error, exit 1.
conf "$WORK/c9.conf" ns/app "" "" "$TAMPER" "$PLAIN"
digest_mismatch() {
    local image="$SOURCE/ns/app@$APP" log="$WORK/digest-mismatch.skopeo.log" tried json code
    if $T skopeo --registries-conf "$WORK/c9.conf" --debug copy --quiet --src-cert-dir "$WORK/certs" \
        --src-authfile "$WORK/no-auth.json" "docker://$image" "dir:$WORK/mismatch-copy" 2>"$log"; then
        echo "FAIL digest-mismatch: skopeo pulled $image from the tampering mirror"; FAIL=$((FAIL + 1)); return
    fi
    tried=$(last_tried "$log")
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c9.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json) && code=0 || code=$?
    local outcomes served error
    outcomes=$(field "$json" "' '.join(s['probe']['outcome'] for s in c['sources'])")
    served=$(field "$json" "c['servedBy']")
    error=$(field "$json" "c.get('error', '')")
    if [ "${tried%%/*}" = "$TAMPER" ] && grep -q 'Manifest does not match provided manifest digest' "$log" \
        && [ "$code" = 1 ] \
        && [ "$outcomes" = "digestMismatch notTried notTried" ] && [ "$served" = None ] \
        && [[ "$error" == "$TAMPER/ns/app@$APP answers with manifest $LONE, which does not match the digest"* ]]; then
        echo "ok   digest-mismatch: skopeo fails at $tried; explain --probe says digestMismatch (exit 1)"
        PASS=$((PASS + 1))
    else
        echo "FAIL digest-mismatch: skopeo last tried '$tried' ($(tail -1 "$log")); explain --probe exit $code, [$outcomes], servedBy '$served', error '$error'"
        FAIL=$((FAIL + 1))
    fi
}
digest_mismatch

# A mirror that never completes a connection (a listener whose one-slot
# queue is held full: further SYNs are dropped, as by a firewall): the
# connection is given up after 30s (containers/image's dialer timeout) and
# the next source serves. The probe must wait as long and agree with skopeo
# (unreachable, not timedOut: nothing is undetermined). Both run at once.
cat >"$WORK/blackhole.py" <<'BLACKHOLE'
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
port = s.getsockname()[1]
held = socket.create_connection(("127.0.0.1", port))
print(port, flush=True)
time.sleep(float(sys.argv[1]))
BLACKHOLE
mkdir -p "$WORK/blackhole"
python3 "$WORK/blackhole.py" 300 >"$WORK/blackhole/port" 2>"$WORK/blackhole/log" </dev/null &
echo $! >"$WORK/blackhole/pid"
for _ in $(seq 1 100); do [ -s "$WORK/blackhole/port" ] && break; sleep 0.1; done
BLACKHOLE="127.0.0.1:$(cat "$WORK/blackhole/port")"
conf "$WORK/c10.conf" ns/app "" "" "$BLACKHOLE" "$PLAIN"
silent_connect() {
    local image="$SOURCE/ns/app@$APP" log="$WORK/silent-connect.skopeo.log" pulled json code skopeo_pid
    # Older containers/image (skopeo 1.9) also pings /v1/_ping after the
    # /v2/ ping fails: another 30s, the same verdict. Hence its own limit.
    timeout 150 skopeo --registries-conf "$WORK/c10.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" "docker://$image" >/dev/null 2>"$log" &
    skopeo_pid=$!
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c10.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --probe-timeout 1 -o json) && code=0 || code=$?
    if ! wait "$skopeo_pid"; then
        echo "FAIL silent-connect: skopeo could not pull $image"; tail -5 "$log"; FAIL=$((FAIL + 1)); return
    fi
    pulled=$(last_tried "$log")
    local outcome served
    outcome=$(field "$json" "c['sources'][0]['probe']['outcome'] + ': ' + c['sources'][0]['probe']['detail']")
    served=$(field "$json" "c['servedBy']")
    if [ "${pulled%%/*}" = "$PLAIN" ] && [ "$served" = "$pulled" ] && [ "$code" = 0 ] \
        && [[ "$outcome" == "unreachable: "*"no connection within 30s"* ]]; then
        echo "ok   silent-connect: both give up $BLACKHOLE after 30s; served by $served"
        PASS=$((PASS + 1))
    else
        echo "FAIL silent-connect: skopeo pulled from '$pulled'; explain --probe exit $code, servedBy '$served', first source '$outcome'"
        FAIL=$((FAIL + 1))
    fi
}
silent_connect

# --- the pull log: containers/image's own "Trying to access" lines --------
# skopeo walks the mirrors of c2.conf (the first lacks the image) as CRI-O
# would; its logrus lines, at CRI-O's info level behind journald's prefix
# and between CRI-O's Pulling/Pulled lines, are a node's pull log. The
# replay must name the source skopeo used as servedBy, with the same tries
# in the same order, and say asExpected; audit --journal-file, the same
# pull judged against the equivalent ImageDigestMirrorSet.
to_journal() { # SKOPEO-LOG IMAGE RESULT
    python3 - "$@" <<'PY'
import datetime, re, sys
log, image, result = sys.argv[1:4]
out = []
for line in open(log, encoding="utf-8"):
    m = re.match(r'time="([^"]+)" level=\w+ (msg="Trying to access .*)$', line.rstrip("\n"))
    if m:
        out.append((m.group(1), m.group(2)))
if not out:
    sys.exit("no Trying to access line in " + log)
def prefix(t):
    when = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).astimezone(datetime.timezone.utc)
    return when.strftime("%b %d %H:%M:%S.%f") + " e2e-node crio[4242]: "
ident = "id=5e2f0c1a-e2e0-4b6a-9d3c-7a1b2c3d4e5f name=/runtime.v1.ImageService/PullImage"
first, last = out[0][0], out[-1][0]
print(prefix(first) + f'time="{first}" level=info msg="Pulling image: {image}" {ident}')
for t, msg in out:
    print(prefix(t) + f'time="{t}" level=info {msg}')
print(prefix(last) + f'time="{last}" level=info msg="Pulled image: {result}" {ident}')
PY
}
journal_replay() {
    local image="$SOURCE/ns/lone@$LONE" log="$WORK/journal.skopeo.log" verdicts code
    if ! $T skopeo --registries-conf "$WORK/c2.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/good-auth.json" "docker://$image" >/dev/null 2>"$log"; then
        echo "FAIL journal-replay: skopeo could not pull $image"; tail -5 "$log"; FAIL=$((FAIL + 1)); return
    fi
    local pulled tried
    pulled=$(last_tried "$log")
    tried=$(sed -n 's/.*Trying to access \\"\([^\\]*\)\\".*/\1/p' "$log" | paste -sd' ')
    to_journal "$log" "$image" "$image" >"$WORK/crio.journal"
    local json
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c2.conf" \
        --journal-file "$WORK/crio.journal" -o json) && code=0 || code=$?
    verdicts=$(printf '%s' "$json" | python3 -c "import json, sys
d = json.load(sys.stdin)
(r,) = d['journal']
(a,) = r['pulls']
print(r['node'], r['outcome'], a['servedBy'], a['verdict'], ' '.join(a['tried']))") || verdicts="(no single pull: $json)"
    if [ "$code" = 0 ] && [ "${pulled%%/*}" = "$AUTHED" ] \
        && [ "$verdicts" = "e2e-node pulled $pulled asExpected $tried" ]; then
        echo "ok   journal-replay: skopeo's tries ($tried) replayed, served by $pulled, asExpected"
        PASS=$((PASS + 1))
    else
        echo "FAIL journal-replay: skopeo tried '$tried', pulled from '$pulled'; explain --journal-file exit $code: $verdicts"
        FAIL=$((FAIL + 1))
    fi
    printf 'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: lone\nspec:\n  imageDigestMirrors:\n  - source: %s/ns/lone\n    mirrors:\n    - %s/ns/lone\n    - %s/ns/lone\n' \
        "$SOURCE" "$PLAIN" "$AUTHED" >"$WORK/idms.yaml"
    json=$($T "$BIN" audit -f "$WORK/idms.yaml" --journal-file "$WORK/crio.journal" -o json 2>/dev/null) && code=0 || code=$?
    verdicts=$(printf '%s' "$json" | python3 -c "import json, sys
(v,) = json.load(sys.stdin)['images']
(s,) = v['servedBy']
print(v['pulls'], v['verdicts']['asExpected'], s['reference'], s['role'], ' '.join(v['neverServed']))") || verdicts="(not one image: $json)"
    if [ "$code" = 0 ] && [ "$verdicts" = "1 1 $pulled mirror $PLAIN/ns/lone@$LONE" ]; then
        echo "ok   journal-audit: 1 pull served by the mirror $pulled; $PLAIN never served"
        PASS=$((PASS + 1))
    else
        echo "FAIL journal-audit: skopeo pulled from '$pulled'; audit --journal-file exit $code: $verdicts"
        FAIL=$((FAIL + 1))
    fi
}
journal_replay

# --- upgrade-check: a release payload through its mirror -------------------
# A small release built by python3 (cryptography) and pushed with the
# registry's HTTP API: the payload (config label io.openshift.release; its
# last layer, a gzip tar, holds release-manifests/image-references, the
# release-metadata and the `openshift` ClusterImagePolicy with the release
# key) and four components, each with its sigstore attachment
# `sha256-<hex>.sig` (ECDSA P-256 over the simple-signing payload), all on
# the source registry. The mirror holds the payload and its signature, and
# all components but network-operator: cli signed, etcd unsigned,
# machine-config-operator signed by another key. The cluster's IDMS is the
# one oc-mirror v2 writes (ocp-release to openshift/release-images,
# ocp-v4.0-art-dev to openshift/release), with NeverContactSource as on a
# disconnected cluster. The oracles: skopeo inspect through the registries.conf
# `render` writes from the same objects (the source it pulls from is every
# servedBy; it fails where the tool says missing), and skopeo copy under a
# policy.json requiring sigstoreSigned by the release key, reading the
# attachments (use-sigstore-attachments), for every signature verdict. Then
# the tool's own fix lines are run and the update becomes ready.
RELMIRROR=$(start_registry release-mirror server no)
RELSRC=$SOURCE
cat >"$WORK/release.py" <<'PY'
import base64, gzip, hashlib, http.client, io, json, ssl, sys, tarfile, urllib.parse
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

source, mirror, cafile, keyfile, otherkeyfile = sys.argv[1:6]
ctx = ssl.create_default_context(cafile=cafile)
RELEASE, ART = "openshift-release-dev/ocp-release", "openshift-release-dev/ocp-v4.0-art-dev"
M_RELEASE, M_ART = "openshift/release-images", "openshift/release"
VERSION = "4.21.0"


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def request(host, method, path, body=b"", headers=None):
    c = http.client.HTTPSConnection(host, context=ctx, timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    if r.status >= 300:
        sys.exit(f"{method} {host}{path}: {r.status} {data[:200]!r}")
    return r


def push(host, repo, ref, manifest, blobs):
    for b in blobs:
        r = request(host, "POST", f"/v2/{repo}/blobs/uploads/")
        loc = urllib.parse.urlparse(r.getheader("Location"))
        q = (loc.query + "&" if loc.query else "") + "digest=" + sha(b)
        request(host, "PUT", f"{loc.path}?{q}", b, {"Content-Type": "application/octet-stream"})
    request(host, "PUT", f"/v2/{repo}/manifests/{ref}", manifest,
            {"Content-Type": "application/vnd.oci.image.manifest.v1+json"})


def tgz(files):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, body in files:
            i = tarfile.TarInfo(name)
            i.size, i.mode, i.mtime = len(body), 0o644, 0
            t.addfile(i, io.BytesIO(body))
    return gzip.compress(raw.getvalue(), mtime=0)


def image(config, layers):
    desc = lambda mt, b: {"mediaType": mt, "digest": sha(b), "size": len(b)}
    m = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
         "config": desc("application/vnd.oci.image.config.v1+json", config),
         "layers": [desc("application/vnd.oci.image.layer.v1.tar+gzip", l) for l in layers]}
    return json.dumps(m).encode(), [config] + layers


def rootfs(config, layers):
    diff = ["sha256:" + hashlib.sha256(gzip.decompress(l)).hexdigest() for l in layers]
    config.update({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": diff}})
    return json.dumps(config).encode()


def key(path):
    k = ec.generate_private_key(ec.SECP256R1())
    pem = k.public_key().public_bytes(serialization.Encoding.PEM,
                                      serialization.PublicFormat.SubjectPublicKeyInfo)
    open(path, "wb").write(pem)
    return k, pem


def signature(k, digest, identity):
    """The sigstore attachment of `digest`: an OCI manifest whose layer is
    the simple-signing payload, signed (ECDSA P-256, SHA-256) in the
    dev.cosignproject.cosign/signature annotation, as cosign writes it."""
    payload = json.dumps({"critical": {"identity": {"docker-reference": identity},
                                       "image": {"docker-manifest-digest": digest},
                                       "type": "cosign container image signature"},
                          "optional": None}).encode()
    sig = base64.b64encode(k.sign(payload, ec.ECDSA(hashes.SHA256()))).decode()
    config = b"{}"
    m = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
         "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(config), "size": 2},
         "layers": [{"mediaType": "application/vnd.dev.cosign.simplesigning.v1+json", "digest": sha(payload),
                     "size": len(payload), "annotations": {"dev.cosignproject.cosign/signature": sig}}]}
    return json.dumps(m).encode(), [config, payload], digest.replace(":", "-", 1) + ".sig"


good, good_pem = key(keyfile)
other, _ = key(otherkeyfile)
names = ["cli", "etcd", "machine-config-operator", "network-operator"]
components = {}
for n in names:
    layer = tgz([(f"usr/bin/{n}", n.encode())])
    components[n] = image(rootfs({"config": {}}, [layer]), [layer])
digests = {n: sha(m) for n, (m, _) in components.items()}
refs = {"kind": "ImageStream", "apiVersion": "image.openshift.io/v1", "metadata": {"name": VERSION},
        "spec": {"tags": [{"name": n, "from": {"kind": "DockerImage", "name": f"{source}/{ART}@{digests[n]}"}}
                          for n in names]}}
# The openshift ClusterImagePolicy of the release (cluster-update-keys):
# the payload and the components need a signature by the release key.
policy = f"""apiVersion: config.openshift.io/v1
kind: ClusterImagePolicy
metadata:
  name: openshift
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
spec:
  scopes:
  - {source}/{RELEASE}
  - {source}/{ART}
  policy:
    rootOfTrust:
      policyType: PublicKey
      publicKey:
        keyData: {base64.b64encode(good_pem).decode()}
    signedIdentity:
      matchPolicy: MatchRepoDigestOrExact
"""
first = tgz([("usr/bin/cluster-version-operator", b"cvo")])
last = tgz([("release-manifests/0000_00_cluster-version-operator_00_namespace.yaml", b"kind: Namespace\n"),
            ("release-manifests/0000_90_openshift-cluster-image-policy.yaml", policy.encode()),
            ("release-manifests/image-references", json.dumps(refs).encode()),
            ("release-manifests/release-metadata",
             json.dumps({"kind": "cincinnati-metadata-v0", "version": VERSION}).encode())])
payload = image(rootfs({"config": {"Labels": {"io.openshift.release": VERSION}}}, [first, last]), [first, last])
pd = sha(payload[0])
tag = VERSION + "-x86_64"

# The source holds everything, each image with its signature.
push(source, RELEASE, tag, *payload)
m, blobs, sig_tag = signature(good, pd, f"{source}/{RELEASE}:{tag}")
push(source, RELEASE, sig_tag, m, blobs)
push(mirror, M_RELEASE, tag, *payload)
push(mirror, M_RELEASE, sig_tag, m, blobs)
for n in names:
    push(source, ART, digests[n], *components[n])
    m, blobs, sig_tag = signature(good, digests[n], f"{source}/{ART}@{digests[n]}")
    push(source, ART, sig_tag, m, blobs)
    if n == "network-operator":
        continue  # missing on the mirror
    push(mirror, M_ART, digests[n], *components[n])
    if n == "cli":
        push(mirror, M_ART, sig_tag, m, blobs)
    elif n == "machine-config-operator":  # signed by another key on the mirror
        m, blobs, sig_tag = signature(other, digests[n], f"{source}/{ART}@{digests[n]}")
        push(mirror, M_ART, sig_tag, m, blobs)
    # etcd: no signature on the mirror
print(json.dumps({"payload": pd, "components": digests}))
PY
cat >"$WORK/sigcheck.py" <<'PY'
import base64, hashlib, http.client, json, ssl, sys
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

# The sigstore attachment of IMAGE (host/repo@digest) on that repository,
# verified with the public key: verified, missing or rejected.
image, keyfile, cafile = sys.argv[1:4]
name, digest = image.split("@")
host, repo = name.split("/", 1)
key = serialization.load_pem_public_key(open(keyfile, "rb").read())
ctx = ssl.create_default_context(cafile=cafile)


def get(path, accept="application/vnd.oci.image.manifest.v1+json"):
    c = http.client.HTTPSConnection(host, context=ctx, timeout=30)
    c.request("GET", path, headers={"Accept": accept})
    r = c.getresponse()
    return r.status, r.read()


status, body = get(f"/v2/{repo}/manifests/{digest.replace(':', '-', 1)}.sig")
if status == 404:
    print("missing")
    sys.exit()
if status != 200:
    sys.exit(f"{status} for the attachment of {image}")
for layer in json.loads(body).get("layers", []):
    if layer.get("mediaType") != "application/vnd.dev.cosign.simplesigning.v1+json":
        continue
    status, payload = get(f"/v2/{repo}/blobs/{layer['digest']}", "*/*")
    if status != 200 or "sha256:" + hashlib.sha256(payload).hexdigest() != layer["digest"]:
        continue
    sig = base64.b64decode(layer.get("annotations", {}).get("dev.cosignproject.cosign/signature", ""))
    try:
        key.verify(sig, payload, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        continue
    if json.loads(payload)["critical"]["image"]["docker-manifest-digest"] == digest:
        print("verified")
        sys.exit()
print("rejected")
PY
SIGSTORE_ORACLE="skopeo copy (policy.json sigstoreSigned)"
upgrade_check() {
    local up="$WORK/upgrade" release code
    mkdir -p "$up/registries.d" "$up/objects"
    if ! release=$($T python3 "$WORK/release.py" "$RELSRC" "$RELMIRROR" "$WORK/trusted-ca.crt" \
        "$up/release.pub" "$up/other.pub"); then
        echo "FAIL upgrade-check: could not build and push the release"; FAIL=$((FAIL + 1)); return
    fi
    local payload; payload=$(printf '%s' "$release" | python3 -c 'import json, sys; print(json.load(sys.stdin)["payload"])')
    cat >"$up/objects/idms.yaml" <<IDMS
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: idms-release-0
spec:
  imageDigestMirrors:
  - mirrors:
    - $RELMIRROR/openshift/release
    source: $RELSRC/openshift-release-dev/ocp-v4.0-art-dev
    mirrorSourcePolicy: NeverContactSource
  - mirrors:
    - $RELMIRROR/openshift/release-images
    source: $RELSRC/openshift-release-dev/ocp-release
    mirrorSourcePolicy: NeverContactSource
IDMS
    if ! $T "$BIN" render -f "$up/objects" --pool master --file /etc/containers/registries.conf \
        >"$up/registries.conf" 2>"$up/render.err"; then
        echo "FAIL upgrade-check: render: $(cat "$up/render.err")"; FAIL=$((FAIL + 1)); return
    fi
    printf '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"%s/openshift-release-dev":[{"type":"sigstoreSigned","keyPath":"%s","signedIdentity":{"type":"matchRepoDigestOrExact"}}]}}}\n' \
        "$RELSRC" "$up/release.pub" >"$up/policy.json"
    printf 'default-docker:\n  use-sigstore-attachments: true\n' >"$up/registries.d/default.yaml"
    PAYLOAD="$RELSRC/openshift-release-dev/ocp-release@$payload"
    upgrade_round first 1 "cli=served/verified etcd=unsigned/missing machine-config-operator=badSignature/rejected network-operator=missing/-" \
        || return
    # The fix lines the tool printed, with this machine's trust.
    run_fix_lines "$up/first.json" || return
    upgrade_round fixed 1 "cli=served/verified etcd=served/verified machine-config-operator=served/verified network-operator=unsigned/missing" \
        || return
    run_fix_lines "$up/fixed.json" || return
    upgrade_round ready 0 "cli=served/verified etcd=served/verified machine-config-operator=served/verified network-operator=served/verified"
}
# upgrade_round NAME EXIT EXPECTED: upgrade-check, its verdicts (python3 reads
# the JSON), and skopeo's for each image.
upgrade_round() {
    local name=$1 want_code=$2 want=$3 up="$WORK/upgrade" json code got
    json=$($T "$BIN" upgrade-check -f "$up/objects" --to-image "$PAYLOAD" --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json 2>"$up/$name.err") && code=0 || code=$?
    printf '%s' "$json" >"$up/$name.json"
    got=$(python3 - "$up/$name.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
t = d["target"]
print(t["outcome"], (t.get("signature") or {}).get("verification", "-"), d["ready"])
for i in sorted(d["images"], key=lambda i: i["name"]):
    print(f'{i["name"]}={i["outcome"]}/{(i.get("signature") or {}).get("verification", "-")}', end=" ")
print()
print(t["image"], t["servedBy"] or "-")
for i in d["images"]:
    print(i["reference"], i["servedBy"] or "-")
PY
) || got="(not the JSON of upgrade-check: $got)"
    printf '%s\n' "$got" >"$up/$name.verdicts"
    local head; head=$(sed -n 2p "$up/$name.verdicts")
    if [ "$code" = "$want_code" ] && [ "$(sed -n 1p "$up/$name.verdicts")" = "served verified $([ "$want_code" = 0 ] && echo True || echo False)" ] \
        && [ "$head" = "$want " ]; then
        echo "ok   upgrade-check-$name: exit $code, $want"; PASS=$((PASS + 1))
    else
        echo "FAIL upgrade-check-$name: exit $code (expected $want_code): $(head -2 "$up/$name.verdicts" | paste -sd' ')"
        echo "     expected: served verified, $want"; tail -3 "$up/$name.err"; FAIL=$((FAIL + 1)); return 1
    fi
    upgrade_oracle "$name"
}
# skopeo, through the rendered registries.conf: every servedBy is the source
# skopeo pulls from, every image without one is not pulled; and its
# signature verdict (a copy under the sigstoreSigned policy) matches the
# tool's verified / missing / rejected.
upgrade_oracle() {
    local name=$1 up="$WORK/upgrade" ref served pulled log agree=0 disagree=()
    local i=0
    while read -r ref served; do
        i=$((i + 1)); log="$up/$name.$i.log"
        if $T skopeo --registries-conf "$up/registries.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
            --authfile "$WORK/no-auth.json" "docker://$ref" >/dev/null 2>"$log"; then
            pulled=$(last_tried "$log")
        else
            pulled=-
        fi
        [ "$pulled" = "$served" ] || { disagree+=("$ref: skopeo '$pulled', servedBy '$served'"); continue; }
        [ "$served" = - ] && { agree=$((agree + 1)); continue; }
        local verdict signed
        verdict=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
(i,) = [i for i in [d['target']] + d['images'] if i.get('reference', i.get('image')) == sys.argv[2]]
print((i.get('signature') or {}).get('verification', '-'))" "$up/$name.json" "$ref")
        rm -rf "$up/copy"
        if $T skopeo --registries-conf "$up/registries.conf" --registries.d "$up/registries.d" \
            --policy "$up/policy.json" copy --quiet --src-cert-dir "$WORK/certs" \
            --src-authfile "$WORK/no-auth.json" "docker://$ref" "dir:$up/copy" 2>"$log.sig"; then
            signed=verified
        elif grep -q 'sigstore disabled' "$log.sig"; then
            # Debian's skopeo is built without sigstore: the attachment on
            # the serving repository is verified by python3 (cryptography).
            SIGSTORE_ORACLE="python3 cryptography (this skopeo is built without sigstore)"
            signed=$($T python3 "$WORK/sigcheck.py" "$served" "$up/release.pub" "$WORK/trusted-ca.crt" 2>"$log.sig") ||
                signed="error: $(tail -1 "$log.sig")"
            [ "$signed" = verified ] || signed=refused
        else
            signed=refused
        fi
        case "$verdict/$signed" in
            verified/verified | missing/refused | rejected/refused) agree=$((agree + 1)) ;;
            *) disagree+=("$ref: skopeo's signature check $signed ($(tail -1 "$log.sig")), the tool's $verdict") ;;
        esac
    done < <(sed -n '3,$p' "$up/$name.verdicts")
    if [ "${#disagree[@]}" -eq 0 ] && [ "$agree" -eq 5 ]; then
        echo "ok   upgrade-check-$name-skopeo: skopeo agrees on the 5 images' sources; signatures judged by $SIGSTORE_ORACLE"
        PASS=$((PASS + 1))
    else
        echo "FAIL upgrade-check-$name-skopeo: $agree of 5 agree"; printf '     %s\n' "${disagree[@]}"
        FAIL=$((FAIL + 1)); return 1
    fi
}
# Runs every `skopeo copy` line of the tool's next steps, adding the cert
# dir this machine trusts both registries with.
run_fix_lines() { # JSON
    local line n=0
    while read -r line; do
        [ -n "$line" ] || continue
        n=$((n + 1))
        # shellcheck disable=SC2086
        if ! $T skopeo copy --quiet --src-cert-dir "$WORK/certs" --dest-cert-dir "$WORK/certs" \
            ${line#skopeo copy } >"$WORK/upgrade/fix.log" 2>&1; then
            echo "FAIL upgrade-check-fix: $line: $(tail -1 "$WORK/upgrade/fix.log")"; FAIL=$((FAIL + 1)); return 1
        fi
    done < <(python3 -c "import json, sys
for s in json.load(open(sys.argv[1]))['nextSteps']:
    for c in s.get('commands', []):
        print(c if c.startswith('skopeo copy ') else '')" "$1")
    if [ "$n" -eq 0 ]; then
        echo "FAIL upgrade-check-fix: the tool printed no skopeo copy line"; FAIL=$((FAIL + 1)); return 1
    fi
    echo "ok   upgrade-check-fix: ran the $n skopeo copy line(s) the tool printed"; PASS=$((PASS + 1))
}
upgrade_check

if [ -n "${E2E_PROBE_SHOW:-}" ]; then
    # The text output of the first scenario, as docs/probe.md shows it.
    cp "$WORK/c1.conf" "$WORK/registries.conf"
    (cd "$WORK" && COLUMNS=100 NO_COLOR=1 $T "$BIN" explain "$SOURCE/ns/app@$APP" \
        --registries-conf registries.conf --probe --cert-dir certs --authfile no-auth.json) || true
fi
echo "e2e-probe: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
