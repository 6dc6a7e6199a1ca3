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
# every servedBy and every signature; the tool's own fix lines are run until
# the update is ready. Then the release's OpenPGP signature, made by gpg, is
# verified (and refused when another key made it), and the amd64 payload
# checked for arm64 is not ready.
#
# And sigstore signatures for `explain --probe`: each signedIdentity kind
# against identities by digest, by tag and a bare name, RSA, ECDSA P-256 and
# P-384 and Ed25519 keys by keyData and keyPath, a Fulcio CA and a PKI.
# Every signature verdict is skopeo 1.18's own (`skopeo copy` under the
# policy): the skopeo judged when it is 1.18 or later, else the one of the
# Debian 13 root (scripts/debian13-root.sh), which must then be built.
#
# Usage: scripts/e2e-probe.sh [--skopeo host|root|COMMAND] [BINARY]
#   BINARY   default target/debug/kubectl-mirrorpolicy
#   --skopeo the skopeo to judge by (or E2E_SKOPEO): host (default, `skopeo`
#            on PATH: Debian 12's 1.9.3), root (skopeo 1.18 in the Debian 13
#            root) or a command. Each verdict line names its skopeo version.
# Needs: docker-registry, skopeo, gpg, openssl, htpasswd (apache2-utils), python3 with
# its cryptography module (Debian python3-cryptography), and the Debian 13
# root unless the skopeo judged is 1.18 or later. No network.
set -euo pipefail
cd "$(dirname "$0")/.."

E2E_NAME=e2e-probe
. scripts/e2e-lib.sh
e2e_args "$@"
e2e_need docker-registry openssl htpasswd python3
e2e_skopeo
python3 -c "import cryptography" 2>/dev/null ||
    e2e_die 2 "the python3 cryptography module is not installed (python3-cryptography)"
# Sigstore signatures are judged by skopeo 1.18 or later (containers/image
# 5.34, sigstore built in): this skopeo when it is one, else the root's.
at_least_1_18() { # VERSION
    local major=${1%%.*} rest=${1#*.}
    [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "${rest%%.*}" -ge 18 ]; }
}
if at_least_1_18 "$SKOPEO_VERSION"; then
    SIG_SKOPEO=("${SKOPEO[@]}")
    SIG_VERSION=$SKOPEO_VERSION
elif root_built; then
    SIG_SKOPEO=("$ROOT_SCRIPT" run skopeo)
    SIG_VERSION=$("${SIG_SKOPEO[@]}" --version)
    SIG_VERSION=${SIG_VERSION#skopeo version }
else
    e2e_die 2 "skopeo $SKOPEO_VERSION has no sigstore: the signature scenarios are judged by skopeo 1.18 in the Debian 13 root, which is not built (run scripts/debian13-root.sh build)"
fi
echo "e2e-probe: judged by skopeo $SKOPEO_VERSION (${SKOPEO[*]}); sigstore signatures by skopeo $SIG_VERSION (${SIG_SKOPEO[*]})"

e2e_workdir
T="timeout 60"

# --- certificates: a trusted CA, and another one nobody trusts -------------
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
    e2e_die 1 "openssl did not mark the self-signed leaf CA:TRUE"
openssl x509 -in "$WORK/catrue.crt" -noout -text | grep -q 'CA:TRUE' ||
    e2e_die 1 "openssl did not mark the CA-signed leaf CA:TRUE"
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

# --- the registries ---------------------------------------------------------
AUTHED=$(start_registry authed server yes)   # mirror with htpasswd
PLAIN=$(start_registry plain server no)      # mirror without auth
SOURCE=$(start_registry source server no)    # the image's own registry
ROGUE=$(start_registry rogue rogue no)       # a mirror with an unknown CA
SELF=$(start_registry selfsigned selfsigned no)  # a self-signed CA:TRUE leaf
PINNED=$(start_registry pinned pinned no)        # a leaf of a CA nobody trusts
CATRUE=$(start_registry catrue catrue no)        # a CA:TRUE leaf of catrue-ca
HTTPREG=$(start_registry http - no)              # plain HTTP, no TLS

# --- test images from a local OCI layout (no network) ---------------------
APP=$(layout "$WORK/oci-app" app)
LONE=$(layout "$WORK/oci-lone" lone)
push() { # LAYOUT REGISTRY REPO CERTS [CREDS]
    push_layout "$1" "$2/$3:v1" "$4" "${5:-}"
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
$T "${SKOPEO[@]}" copy --quiet --preserve-digests --dest-tls-verify=false \
    "oci:$WORK/oci-app:v1" "docker://$HTTPREG/ns/app:v1"
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
# The root resets PATH: the helper is put on it there too.
in_root() { # ARRAY-NAME
    local -n cmd=$1
    if [[ ${cmd[0]} == *debian13-root.sh ]] && [ "${cmd[1]:-}" = run ]; then
        cmd=("${cmd[0]}" run env "PATH=$WORK/bin:/usr/local/bin:/usr/bin:/bin" "${cmd[@]:2}")
    fi
}
in_root SKOPEO
in_root SIG_SKOPEO
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

# scenario NAME CONF IMAGE AUTHFILE EXPECTED-HOST [CERT-DIR]
scenario() {
    local name=$1 conf=$2 image=$3 auth=$4 want=$5 certs=${6:-$WORK/certs}
    local log="$WORK/$name.skopeo.log"
    if ! $T "${SKOPEO[@]}" --registries-conf "$conf" --debug inspect --raw --cert-dir "$certs" \
        --authfile "$auth" "docker://$image" >"$WORK/$name.raw" 2>"$log"; then
        fail "$name: skopeo could not pull $image"; tail -5 "$log"; return
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
        ok "$name: served by $served"
    else
        fail "$name: skopeo pulled from '$pulled', explain --probe says '$served', expected host $want"
    fi
    failed_words "$name" "$log" "$WORK/$name.json"
}

# failed_words NAME SKOPEO-LOG TOOL-JSON: each source skopeo gave up
# (containers/image's debug line `Accessing "REF" failed: ERR`) has a probe
# detail in the tool that holds ERR, the words CRI-O logs and events carry.
# Judged by today's containers/image (skopeo 1.18 or later): older releases
# word registry errors otherwise (`manifest unknown: manifest unknown`), and
# Go before 1.20 TLS errors. The registries.conf paths in a blocked
# endpoint's refusal are the node's in the tool, skopeo's own in skopeo.
failed_words() {
    local name=$1 verdict
    at_least_1_18 "$SKOPEO_VERSION" || return 0
    verdict=$(python3 - "$2" "$3" <<'PY'
import json, re, sys
said = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.search(r'msg="((?:[^"\\]|\\.)*)"', line)
    if not m:
        continue
    msg = json.loads('"' + m.group(1) + '"')
    f = re.match(r'Accessing "([^"]*)" failed: (.*)', msg, re.S)
    if f:
        said[f.group(1)] = f.group(2).strip()
paths = re.compile(r"is blocked in \S+ or \S+")
said = {k: paths.sub("is blocked in CONF", v) for k, v in said.items()}
try:
    data = json.load(open(sys.argv[2]))
except ValueError:
    print("no JSON from explain --probe"); sys.exit()
sources = {s["reference"]: paths.sub("is blocked in CONF", (s.get("probe") or {}).get("detail", ""))
           for c in data.get("candidates", []) for s in c.get("sources", [])}
bad = [f"{ref}: skopeo said {err!r}, the tool {sources.get(ref)!r}"
       for ref, err in said.items() if err not in (sources.get(ref) or "")]
print("; ".join(bad) if bad else f"ok {len(said)}")
PY
) || verdict="the skopeo log and the tool's JSON could not be compared"
    case $verdict in
    "ok 0") ;;
    ok\ *) ok "$name: the tool's detail holds skopeo's words for each failed source (${verdict#ok })" ;;
    *) fail "$name: $verdict" ;;
    esac
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
    ok "wrong-cert-in-cert-dir: the refusal names the roots tried"
else
    fail "wrong-cert-in-cert-dir: no tlsError naming the roots"
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
    ok "audit-self-signed-mirror: served by $SELF/ns/app@$APP"
else
    fail "audit-self-signed-mirror: expected servedBy $SELF/ns/app@$APP, got:"
    printf '%s\n' "$audit_json" | grep -E '"(servedBy|class|detail)"'
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
    listening "$port" || e2e_die 1 "proxy $name did not start: $(cat "$WORK/$name/log")"
    echo "127.0.0.1:$port"
}
# A JSON field of the first candidate (python3 reads the probe's output);
# when the output has no such field, says so instead (the check then
# prints its FAIL line with it).
field() { # JSON PYTHON-EXPRESSION-ON-c
    printf '%s' "$1" | python3 -c "import json, sys
try:
    d = json.load(sys.stdin)
    c = (d[0] if isinstance(d, list) else d)['candidates'][0]
    print($2)
except Exception as e:
    print(f'(not in the JSON of explain: {type(e).__name__}: {e})')"
}
SLOW=$(start_proxy slow "$PLAIN" --delay 3)
# The tampering mirror asks the registry for the lone image's manifest
# whenever the app's digest is requested.
$T "${SKOPEO[@]}" copy --quiet --preserve-digests --dest-cert-dir "$WORK/certs" \
    "oci:$WORK/oci-lone:v1" "docker://$PLAIN/ns/app:lone"
TAMPER=$(start_proxy tamper "$PLAIN" --rewrite "${APP#sha256:}" "${LONE#sha256:}")

# A slow mirror: containers/image sets no response timeout, so skopeo waits
# and pulls from it. The probe, given 1s, must not name the next source:
# timedOut, servedBy null, undetermined, exit 3. Given 10s, it agrees.
conf "$WORK/c8.conf" ns/app "" "" "$SLOW" "$PLAIN"
slow_mirror() {
    local image="$SOURCE/ns/app@$APP" log="$WORK/slow-mirror.skopeo.log" pulled json code
    if ! $T "${SKOPEO[@]}" --registries-conf "$WORK/c8.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" "docker://$image" >/dev/null 2>"$log"; then
        fail "slow-mirror: skopeo could not pull $image"; tail -5 "$log"; return
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
        ok "slow-mirror: skopeo waited for $pulled; explain --probe says undetermined (exit 3)"
    else
        fail "slow-mirror: skopeo pulled from '$pulled'; explain --probe exit $code, $outcome, servedBy '$served', undetermined '$undetermined'"
    fi
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c8.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --probe-timeout 10 -o json) && code=0 || code=$?
    served=$(field "$json" "c['servedBy']")
    if [ "$code" = 0 ] && [ "$served" = "$pulled" ]; then
        ok "slow-mirror-within-timeout: served by $served"
    else
        fail "slow-mirror-within-timeout: skopeo pulled from '$pulled', explain --probe (exit $code) says '$served'"
    fi
}
slow_mirror

# A by-digest mirror that answers another manifest: skopeo fails the pull
# there (it does not try the next source); the probe says digestMismatch,
# servedBy null, the candidate's error, exit 1.
conf "$WORK/c9.conf" ns/app "" "" "$TAMPER" "$PLAIN"
digest_mismatch() {
    local image="$SOURCE/ns/app@$APP" log="$WORK/digest-mismatch.skopeo.log" tried json code
    if $T "${SKOPEO[@]}" --registries-conf "$WORK/c9.conf" --debug copy --quiet --src-cert-dir "$WORK/certs" \
        --src-authfile "$WORK/no-auth.json" "docker://$image" "dir:$WORK/mismatch-copy" 2>"$log"; then
        fail "digest-mismatch: skopeo pulled $image from the tampering mirror"; return
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
        ok "digest-mismatch: skopeo fails at $tried; explain --probe says digestMismatch (exit 1)"
    else
        fail "digest-mismatch: skopeo last tried '$tried' ($(tail -1 "$log")); explain --probe exit $code, [$outcomes], servedBy '$served', error '$error'"
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
    timeout 150 "${SKOPEO[@]}" --registries-conf "$WORK/c10.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" "docker://$image" >/dev/null 2>"$log" &
    skopeo_pid=$!
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c10.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --probe-timeout 1 -o json) && code=0 || code=$?
    if ! wait "$skopeo_pid"; then
        fail "silent-connect: skopeo could not pull $image"; tail -5 "$log"; return
    fi
    pulled=$(last_tried "$log")
    local outcome served
    outcome=$(field "$json" "c['sources'][0]['probe']['outcome'] + ': ' + c['sources'][0]['probe']['detail']")
    served=$(field "$json" "c['servedBy']")
    if [ "${pulled%%/*}" = "$PLAIN" ] && [ "$served" = "$pulled" ] && [ "$code" = 0 ] \
        && [[ "$outcome" == "unreachable: "*"no connection within 30s"* ]]; then
        ok "silent-connect: both give up $BLACKHOLE after 30s; served by $served"
    else
        fail "silent-connect: skopeo pulled from '$pulled'; explain --probe exit $code, servedBy '$served', first source '$outcome'"
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
to_journal() { # SKOPEO-LOG IMAGE RESULT (RESULT "-": the pull failed, a later line follows)
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
if result == "-":
    # CRI-O at info logs nothing after the refused source; the node goes on.
    print(prefix(last) + f'time="{last}" level=info msg="Checking image status: quay.io/other/x:1" id=0b0b0b0b-e2e0-4b6a-9d3c-7a1b2c3d4e5f name=/runtime.v1.ImageService/ImageStatus')
else:
    print(prefix(last) + f'time="{last}" level=info msg="Pulled image: {result}" {ident}')
PY
}
journal_replay() {
    local image="$SOURCE/ns/lone@$LONE" log="$WORK/journal.skopeo.log" verdicts code
    if ! $T "${SKOPEO[@]}" --registries-conf "$WORK/c2.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/good-auth.json" "docker://$image" >/dev/null 2>"$log"; then
        fail "journal-replay: skopeo could not pull $image"; tail -5 "$log"; return
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
        ok "journal-replay: skopeo's tries ($tried) replayed, served by $pulled, asExpected"
    else
        fail "journal-replay: skopeo tried '$tried', pulled from '$pulled'; explain --journal-file exit $code: $verdicts"
    fi
    printf 'apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: lone\nspec:\n  imageDigestMirrors:\n  - source: %s/ns/lone\n    mirrors:\n    - %s/ns/lone\n    - %s/ns/lone\n' \
        "$SOURCE" "$PLAIN" "$AUTHED" >"$WORK/idms.yaml"
    json=$($T "$BIN" audit -f "$WORK/idms.yaml" --journal-file "$WORK/crio.journal" -o json 2>/dev/null) && code=0 || code=$?
    verdicts=$(printf '%s' "$json" | python3 -c "import json, sys
(v,) = json.load(sys.stdin)['images']
(s,) = v['servedBy']
print(v['pulls'], v['verdicts']['asExpected'], s['reference'], s['role'], ' '.join(v['neverServed']))") || verdicts="(not one image: $json)"
    if [ "$code" = 0 ] && [ "$verdicts" = "1 1 $pulled mirror $PLAIN/ns/lone@$LONE" ]; then
        ok "journal-audit: 1 pull served by the mirror $pulled; $PLAIN never served"
    else
        fail "journal-audit: skopeo pulled from '$pulled'; audit --journal-file exit $code: $verdicts"
    fi
}
journal_replay

# A walk that ends at a blocked source (NeverContactSource): skopeo logs
# `Trying to access` for the blocked source too, then refuses it; the pull
# failed as configured: asExpected, no servedBy.
journal_blocked_last() {
    local image="$SOURCE/ns/lone@$LONE" log="$WORK/journal-blocked.skopeo.log" verdicts code tried
    printf '[[registry]]\nprefix = "%s/ns/lone"\nlocation = "%s/ns/lone"\nblocked = true\n[[registry.mirror]]\nlocation = "%s/ns/lone"\n' \
        "$SOURCE" "$SOURCE" "$PLAIN" >"$WORK/c-blocked.conf"
    if $T "${SKOPEO[@]}" --registries-conf "$WORK/c-blocked.conf" --debug inspect --raw --cert-dir "$WORK/certs" \
        --authfile "$WORK/good-auth.json" "docker://$image" >/dev/null 2>"$log"; then
        fail "journal-blocked-last: skopeo pulled $image, which only a blocked source holds"; return
    fi
    tried=$(sed -n 's/.*Trying to access \\"\([^\\]*\)\\".*/\1/p' "$log" | paste -sd' ')
    to_journal "$log" "$image" - >"$WORK/crio-blocked.journal"
    local json
    json=$($T "$BIN" explain "$image" --registries-conf "$WORK/c-blocked.conf" \
        --journal-file "$WORK/crio-blocked.journal" -o json) && code=0 || code=$?
    verdicts=$(printf '%s' "$json" | python3 -c "import json, sys
d = json.load(sys.stdin)
(r,) = d['journal']
(a,) = r['pulls']
print(r['outcome'], a['verdict'], a['servedBy'], ' '.join(a['tried']))") || verdicts="(no single pull: $json)"
    if [ "$verdicts" = "failed asExpected None $tried" ] && [ "${tried##* }" = "$image" ]; then
        ok "journal-blocked-last: skopeo's tries ($tried) end at the blocked source: failed, asExpected (exit $code)"
    else
        fail "journal-blocked-last: skopeo tried '$tried'; explain --journal-file exit $code: $verdicts"
    fi
}
journal_blocked_last

# The cluster's additionalTrustedCA read from the files (-f): the mirrors'
# CA only in the ConfigMap Image.spec.additionalTrustedCA names (one key
# per registry host, `..` for `:`), no --cert-dir: explain --probe verifies
# them and is served by the mirror skopeo (given the CA) pulls from.
trusted_ca_from_files() {
    local image="$SOURCE/ns/lone@$LONE" files="$WORK/trusted-ca-objects.yaml" served pulled
    pulled=$(last_tried "$WORK/journal.skopeo.log")
    {
        printf 'apiVersion: config.openshift.io/v1\nkind: Image\nmetadata: {name: cluster}\nspec:\n  additionalTrustedCA: {name: registry-cas}\n---\n'
        printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: registry-cas, namespace: openshift-config}\ndata:\n'
        for host in "$PLAIN" "$AUTHED"; do
            printf '  %s: |\n' "${host/:/..}"
            sed 's/^/    /' "$WORK/certs/ca.crt"
        done
        printf -- '---\n'
        cat "$WORK/idms.yaml"
    } >"$files"
    served=$($T "$BIN" explain "$image" -f "$files" --probe --authfile "$WORK/good-auth.json" -o json |
        sed -n 's/^ *"servedBy": "\(.*\)",\{0,1\}$/\1/p' | head -1) || true
    if [ -n "$pulled" ] && [ "$served" = "$pulled" ]; then
        ok "trusted-ca-from-files: the mirrors' CA only in additionalTrustedCA's ConfigMap: served by $served, as skopeo"
    else
        fail "trusted-ca-from-files: skopeo pulled from '$pulled', explain --probe -f says '$served'"
    fi
}
trusted_ca_from_files

# A plain-HTTP mirror (no TLS at all) not listed as insecure: containers/image
# asks it over HTTPS, Go says `http: server gave HTTP response to HTTPS
# client`, and the next source serves. The tool's probe of that mirror must
# be tlsError with skopeo's words (both skopeo versions log the same Go
# sentence) and name the fix: the Image config's
# spec.registrySources.insecureRegistries, or TLS. Then the same mirror
# listed there (-f: the Image config and an IDMS; skopeo reads the
# registries.conf `render` writes from them): served by it, as skopeo.
plain_http_mirror() {
    local image="$SOURCE/ns/app@$APP" name=plain-http-mirror-not-insecure
    conf "$WORK/c-http.conf" ns/app "" "" "$HTTPREG" "$PLAIN"
    scenario "$name" "$WORK/c-http.conf" "$image" "$WORK/no-auth.json" "$PLAIN"
    local words='http: server gave HTTP response to HTTPS client' said tool
    said=$(grep -c "Accessing .*$HTTPREG.* failed: pinging container registry $HTTPREG: .*$words" \
        "$WORK/$name.skopeo.log") || true
    tool=$(field "$(cat "$WORK/$name.json")" "c['sources'][0]['probe']['outcome'] + ' ' + c['sources'][0]['probe']['detail']")
    if [ "$said" -ge 1 ] && [[ "$tool" == "tlsError pinging container registry $HTTPREG: "*"$words"* ]] \
        && [[ "$tool" == *"Image config's spec.registrySources.insecureRegistries"*"or serve TLS"* ]]; then
        ok "$name: skopeo and the tool say '$words' for $HTTPREG (tlsError), the fix names insecureRegistries"
    else
        fail "$name: skopeo said it $said time(s); the tool: $tool"
    fi
    local objects="$WORK/http-objects" pulled served
    mkdir -p "$objects"
    cat >"$objects/objects.yaml" <<OBJECTS
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: http-mirror
spec:
  imageDigestMirrors:
  - source: $SOURCE/ns/app
    mirrors:
    - $HTTPREG/ns/app
    - $PLAIN/ns/app
---
apiVersion: config.openshift.io/v1
kind: Image
metadata:
  name: cluster
spec:
  registrySources:
    insecureRegistries:
    - $HTTPREG
OBJECTS
    if ! $T "$BIN" render -f "$objects" --pool worker --file /etc/containers/registries.conf \
        >"$WORK/c-http-insecure.conf" 2>"$WORK/c-http-insecure.err"; then
        fail "plain-http-mirror-insecure: render: $(cat "$WORK/c-http-insecure.err")"; return
    fi
    if ! $T "${SKOPEO[@]}" --registries-conf "$WORK/c-http-insecure.conf" --debug inspect --raw \
        --cert-dir "$WORK/certs" --authfile "$WORK/no-auth.json" "docker://$image" >/dev/null \
        2>"$WORK/plain-http-insecure.skopeo.log"; then
        fail "plain-http-mirror-insecure: skopeo could not pull $image"; return
    fi
    pulled=$(last_tried "$WORK/plain-http-insecure.skopeo.log")
    served=$($T "$BIN" explain "$image" -f "$objects" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json 2>/dev/null | sed -n 's/^ *"servedBy": "\(.*\)",\{0,1\}$/\1/p' | head -1) || true
    if [ "$pulled" = "$HTTPREG/ns/app@$APP" ] && [ "$served" = "$pulled" ]; then
        ok "plain-http-mirror-insecure: listed in insecureRegistries, served by $served, as skopeo"
    else
        fail "plain-http-mirror-insecure: skopeo pulled from '$pulled', explain --probe -f says '$served'"
    fi
}
plain_http_mirror

# A pull failing at every source: the plain-HTTP mirror (not insecure), the
# next mirror and the source, both without the manifest. skopeo copy fails
# with the error CRI-O returns (containers/image's `initializing source
# docker://REF: (Mirrors also failed: [REF: ERR]\n[REF: ERR]): REF: ERR`);
# the tool's crioError must be that sentence, word for word (skopeo 1.18 or
# later: older releases word a missing manifest otherwise).
mirrors_also_failed() {
    local image="$SOURCE/ns/app@sha256:$(printf '%064d' 7)" log="$WORK/mirrors-also-failed.skopeo.log" said tool code
    if $T "${SKOPEO[@]}" --registries-conf "$WORK/c-http.conf" copy --quiet --src-cert-dir "$WORK/certs" \
        --src-authfile "$WORK/no-auth.json" "docker://$image" "dir:$WORK/mirrors-also-failed" 2>"$log"; then
        fail "mirrors-also-failed: skopeo pulled $image, which no source holds"; return
    fi
    said=$(python3 - "$log" <<'PY'
import json, re, sys
m = re.search(r'level=fatal msg="((?:[^"\\]|\\.)*)"', open(sys.argv[1]).read())
print(json.loads('"' + m.group(1) + '"') if m else "(no fatal line)")
PY
)
    tool=$($T "$BIN" explain "$image" --registries-conf "$WORK/c-http.conf" --probe --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json) && code=0 || code=$?
    tool=$(field "$tool" "c.get('crioError', '(none)')")
    if ! at_least_1_18 "$SKOPEO_VERSION" && [ "$code" = 1 ] && [[ "$said" == *"(Mirrors also failed: ["* ]] \
        && [[ "$tool" == "initializing source docker://$image: (Mirrors also failed: ["* ]]; then
        ok "mirrors-also-failed: both fail, and both say (Mirrors also failed: ...)"
    elif [ "$code" = 1 ] && [ "$said" = "$tool" ] && [[ "$said" == *"(Mirrors also failed: ["* ]]; then
        ok "mirrors-also-failed: exit 1, crioError is skopeo's error word for word"
    else
        fail "mirrors-also-failed: exit $code"; printf '     skopeo:   %s\n     the tool: %s\n' "$said" "$tool"
    fi
}
mirrors_also_failed

# --- upgrade-check: a release payload through its mirror -------------------
# A small release built by python3 (cryptography) and pushed with the
# registry's HTTP API: the payload (config label io.openshift.release; its
# last layer, a gzip tar, holds release-manifests/image-references, the
# release-metadata and the `openshift` ClusterImagePolicy with the release
# key) and four components, each with its sigstore attachment
# `sha256-<hex>.sig` (ECDSA P-256 over the simple-signing payload), all on
# the source registry. The mirror holds the payload and its signature, and
# all components but network-operator: cli signed, etcd unsigned,
# machine-config-operator signed by another key. The cluster's IDMS maps
# the repositories as oc-mirror v2 does (ocp-release to
# openshift/release-images, ocp-v4.0-art-dev to openshift/release), with
# NeverContactSource added as on a disconnected cluster. One more round
# takes oc-mirror v2's IDMS as it writes it (source and mirrors only: CRI-O
# falls back to the source) with the source registry stopped: the mirror's
# "not found" decides, network-operator is missing (exit 1, not
# undetermined), and its detail says the source is not reachable from this
# machine. The oracles: skopeo inspect through the registries.conf
# `render` writes from the same objects (the source it pulls from is every
# servedBy; it fails where the tool says missing), and skopeo copy under a
# policy.json requiring sigstoreSigned by the release key, reading the
# attachments (use-sigstore-attachments), for every signature verdict. Then
# the tool's own fix lines are run and the update becomes ready.
RELMIRROR=$(start_registry release-mirror server no)
# The release's own source registry, stopped for the oc-mirror round.
RELSRC=$(start_registry release-source server no)
cat >"$WORK/release.py" <<'PY'
import base64, json, sys
from oci_push import image, key, push, rootfs, sha, signature, tgz, trust

source, mirror, cafile, keyfile, otherkeyfile = sys.argv[1:6]
trust(cafile)
RELEASE, ART = "openshift-release-dev/ocp-release", "openshift-release-dev/ocp-v4.0-art-dev"
M_RELEASE, M_ART = "openshift/release-images", "openshift/release"
VERSION = "4.21.0"

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
upgrade_check() {
    local up="$WORK/upgrade" release code
    mkdir -p "$up/registries.d" "$up/objects"
    if ! release=$(PYTHONPATH=$PWD/scripts $T python3 "$WORK/release.py" "$RELSRC" "$RELMIRROR" "$WORK/trusted-ca.crt" \
        "$up/release.pub" "$up/other.pub"); then
        fail "upgrade-check: could not build and push the release"; return
    fi
    local payload
    if ! payload=$(printf '%s' "$release" | python3 -c 'import json, sys; print(json.load(sys.stdin)["payload"])'); then
        fail "upgrade-check: the release builder named no payload: $release"; return
    fi
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
        fail "upgrade-check: render: $(cat "$up/render.err")"; return
    fi
    printf '{"default":[{"type":"insecureAcceptAnything"}],"transports":{"docker":{"%s/openshift-release-dev":[{"type":"sigstoreSigned","keyPath":"%s","signedIdentity":{"type":"matchRepoDigestOrExact"}}]}}}\n' \
        "$RELSRC" "$up/release.pub" >"$up/policy.json"
    printf 'default-docker:\n  use-sigstore-attachments: true\n' >"$up/registries.d/default.yaml"
    PAYLOAD="$RELSRC/openshift-release-dev/ocp-release@$payload"
    upgrade_round first 1 "cli=served/verified etcd=unsigned/missing machine-config-operator=badSignature/rejected network-operator=missing/-" \
        || return
    upgrade_oc_mirror || return
    upgrade_blocked || return
    # The fix lines the tool printed, with this machine's trust.
    run_fix_lines upgrade-check-fix "$up/first.json" || return
    upgrade_round fixed 1 "cli=served/verified etcd=served/verified machine-config-operator=served/verified network-operator=unsigned/missing" \
        || return
    run_fix_lines upgrade-check-fix "$up/fixed.json" || return
    upgrade_round ready 0 "cli=served/verified etcd=served/verified machine-config-operator=served/verified network-operator=served/verified" \
        || return
    upgrade_openpgp
    upgrade_arch
}
# upgrade_openpgp: the release's OpenPGP signature made by gpg (a binary,
# compressed, one-pass signed message, as `gpg --sign` writes it), in the
# signature ConfigMap, verified with the key of release-verification; the
# same signature by another key is rejected.
upgrade_openpgp() {
    local up="$WORK/upgrade" digest=${PAYLOAD#*@} gh="$WORK/gnupg" fpr
    mkdir -p -m 700 "$gh"
    for who in release other; do
        if ! GNUPGHOME="$gh" gpg --batch --quiet --pinentry-mode loopback --passphrase '' \
            --quick-gen-key "$who <$who@example.com>" rsa3072 sign never 2>/dev/null; then
            fail "upgrade-check-openpgp: gpg could not make the key of $who"; return
        fi
    done
    printf '{"critical":{"identity":{"docker-reference":"%s"},"image":{"docker-manifest-digest":"%s"},"type":"atomic container signature"},"optional":{"creator":"e2e"}}' \
        "$PAYLOAD" "$digest" >"$up/openpgp.json"
    for who in release other; do
        if ! GNUPGHOME="$gh" gpg --batch --yes --quiet -u "$who@example.com" --sign -o "$up/openpgp-$who.sig" "$up/openpgp.json"; then
            fail "upgrade-check-openpgp: gpg could not sign as $who"; return
        fi
    done
    fpr=$(GNUPGHOME="$gh" gpg --batch --quiet --with-colons --fingerprint release@example.com 2>/dev/null |
        awk -F: '/^fpr/ {print $10; exit}') || fpr="(no fingerprint from gpg)"
    openpgp_round release 0 "verified $fpr"
    openpgp_round other 1 "rejected -"
    rm -f "$up/objects/openpgp.yaml"
}
# openpgp_round SIGNER EXIT EXPECTED: the signature of SIGNER in the
# ConfigMaps, release@'s key trusted; the outcome and the verifying key.
openpgp_round() {
    local who=$1 want_code=$2 want=$3 up="$WORK/upgrade" key=${PAYLOAD#*@} got code
    key=${key/:/-}
    {
        printf 'apiVersion: v1\nkind: ConfigMapList\nitems:\n'
        printf -- '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: %s\n    namespace: openshift-config-managed\n' "$key"
        printf "    labels: {release.openshift.io/verification-signatures: ''}\n  binaryData:\n    %s-1: %s\n" "$key" "$(base64 -w0 "$up/openpgp-$who.sig")"
        printf -- '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: release-verification\n    namespace: openshift-config-managed\n'
        printf '  data:\n    verifier-public-key-redhat: |\n'
        GNUPGHOME="$WORK/gnupg" gpg --batch --armor --export release@example.com | sed 's/^/      /'
    } >"$up/objects/openpgp.yaml"
    $T "$BIN" upgrade-check -f "$up/objects" --to-image "$PAYLOAD" --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json >"$up/openpgp-$who.json" 2>"$up/openpgp-$who.err" && code=0 || code=$?
    got=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["signatures"]["openpgp"]
print(p["outcome"], (p.get("signatures") or [{}])[0].get("fingerprint", "-"))' "$up/openpgp-$who.json" 2>&1) || got="(no JSON: $(tail -1 "$up/openpgp-$who.err"))"
    if [ "$code" = "$want_code" ] && [ "$got" = "$want" ]; then
        ok "upgrade-check-openpgp-$who: gpg's signature by $who: exit $code, $got"
    else
        fail "upgrade-check-openpgp-$who: exit $code (expected $want_code), $got (expected $want)"
    fi
}
# upgrade_arch: the single-architecture amd64 payload checked for arm64
# has no image for it: not ready, as the control plane could not run it.
upgrade_arch() {
    local up="$WORK/upgrade" code got
    $T "$BIN" upgrade-check -f "$up/objects" --to-image "$PAYLOAD" --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" --arch arm64 -o json >"$up/arch.json" 2>"$up/arch.err" && code=0 || code=$?
    got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["target"]["outcome"])' "$up/arch.json" 2>&1) || got="(no JSON)"
    if [ "$code" = 1 ] && [ "$got" = missingArchitecture ]; then
        ok "upgrade-check-arch: the amd64 payload for --arch arm64: exit 1, $got"
    else
        fail "upgrade-check-arch: exit $code (expected 1), $got (expected missingArchitecture)"
    fi
}
# The IDMS as oc-mirror v2 writes it (no mirrorSourcePolicy), the release's
# source registry stopped: the same verdicts as the first round, skopeo
# agreeing (it fails network-operator after the mirror's 404 and the
# refused source), and network-operator's detail naming both.
upgrade_oc_mirror() {
    local up="$WORK/upgrade" objects="$WORK/upgrade/objects-oc-mirror" detail
    mkdir -p "$objects"
    grep -v mirrorSourcePolicy "$up/objects/idms.yaml" >"$objects/idms.yaml"
    if ! $T "$BIN" render -f "$objects" --pool master --file /etc/containers/registries.conf \
        >"$up/registries-oc-mirror.conf" 2>"$up/render.err"; then
        fail "upgrade-check-oc-mirror: render: $(cat "$up/render.err")"; return 1
    fi
    e2e_stop "$(cat "$WORK/release-source/pid")"
    OBJECTS=$objects REGCONF=$up/registries-oc-mirror.conf \
        upgrade_round oc-mirror 1 "cli=served/verified etcd=unsigned/missing machine-config-operator=badSignature/rejected network-operator=missing/-"
    local code=$?
    detail=$(python3 -c "import json, sys
(i,) = [i for i in json.load(open(sys.argv[1]))['images'] if i['name'] == 'network-operator']
print(i['detail'])" "$up/oc-mirror.json" 2>&1) || detail="(not the JSON of upgrade-check: $detail)"
    case "$detail" in
        "not found on any mirror: $RELMIRROR/openshift/release@"*"; $RELSRC/openshift-release-dev/ocp-v4.0-art-dev@"*": not reachable from this machine ("*)
            ok "upgrade-check-oc-mirror-detail: the mirror's answer and the unreachable source" ;;
        *) fail "upgrade-check-oc-mirror-detail: $detail"; code=1 ;;
    esac
    # The source again, for the fix lines of the next rounds.
    serve_registry release-source && return "$code"
    fail "upgrade-check-oc-mirror: the source registry did not start again"; return 1
}
# A hardened Image config blocking the source registry: the target's MCO
# refuses the release's `openshift` ClusterImagePolicy (its scopes are
# nested inside the blocked registry), so the nodes keep today's
# configuration: mcoRefusal names the policy and the entry (exit 1), and
# the images are still probed, each servedBy the source skopeo pulls from
# through the registries.conf rendered from these objects.
upgrade_blocked() {
    local up="$WORK/upgrade" objects="$WORK/upgrade/objects-blocked" json code got ref served pulled n=0 bad=()
    mkdir -p "$objects"
    cp "$up/objects/idms.yaml" "$objects/"
    printf 'apiVersion: config.openshift.io/v1\nkind: Image\nmetadata:\n  name: cluster\nspec:\n  registrySources:\n    blockedRegistries: ["%s"]\n' \
        "$RELSRC" >"$objects/image.yaml"
    if ! $T "$BIN" render -f "$objects" --pool master --file /etc/containers/registries.conf \
        >"$up/registries-blocked.conf" 2>"$up/render.err"; then
        fail "upgrade-check-blocked: render: $(cat "$up/render.err")"; return 1
    fi
    json=$($T "$BIN" upgrade-check -f "$objects" --to-image "$PAYLOAD" --cert-dir "$WORK/certs" \
        --authfile "$WORK/no-auth.json" -o json 2>"$up/blocked.err") && code=0 || code=$?
    printf '%s' "$json" >"$up/blocked.json"
    got=$(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
r = d.get('mcoRefusal') or {}
print(r.get('objects'), r.get('entries'), d['target']['outcome'], d['target'].get('signature'))
for i in [d['target']] + d['images']:
    print(i.get('reference', i.get('image')), i['servedBy'] or '-')" "$up/blocked.json" 2>&1) ||
        got="(not the JSON of upgrade-check: $got)"
    if [ "$code" != 1 ] || [ "$(head -1 <<<"$got")" != "['ClusterImagePolicy/openshift'] ['$RELSRC'] served None" ]; then
        fail "upgrade-check-blocked: exit $code: $(head -1 <<<"$got")"; tail -3 "$up/blocked.err"; return 1
    fi
    ok "upgrade-check-blocked: exit 1, the MCO refuses ClusterImagePolicy/openshift nested inside blocked $RELSRC"
    while read -r ref served; do
        n=$((n + 1))
        if $T "${SKOPEO[@]}" --registries-conf "$up/registries-blocked.conf" --debug inspect --raw \
            --cert-dir "$WORK/certs" --authfile "$WORK/no-auth.json" "docker://$ref" >/dev/null 2>"$up/blocked.$n.log"; then
            pulled=$(last_tried "$up/blocked.$n.log")
        else
            pulled=-
        fi
        [ "$pulled" = "$served" ] || bad+=("$ref: skopeo '$pulled', servedBy '$served'")
    done < <(sed -n '2,$p' <<<"$got")
    if [ "${#bad[@]}" -eq 0 ] && [ "$n" -eq 5 ]; then
        ok "upgrade-check-blocked-skopeo: skopeo agrees on the 5 images' sources"
    else
        fail "upgrade-check-blocked-skopeo: $n image(s)"; printf '     %s\n' "${bad[@]}"; return 1
    fi
}
# upgrade_round NAME EXIT EXPECTED: upgrade-check, its verdicts (python3 reads
# the JSON), and skopeo's for each image. OBJECTS and REGCONF: the objects and
# their rendered registries.conf, when not the IDMS with NeverContactSource.
upgrade_round() {
    local name=$1 want_code=$2 want=$3 up="$WORK/upgrade" json code got
    json=$($T "$BIN" upgrade-check -f "${OBJECTS:-$up/objects}" --to-image "$PAYLOAD" --cert-dir "$WORK/certs" \
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
        ok "upgrade-check-$name: exit $code, $want"
    else
        fail "upgrade-check-$name: exit $code (expected $want_code): $(head -2 "$up/$name.verdicts" | paste -sd' ')"
        echo "     expected: served verified, $want"; tail -3 "$up/$name.err"; return 1
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
        if $T "${SKOPEO[@]}" --registries-conf "${REGCONF:-$up/registries.conf}" --debug inspect --raw --cert-dir "$WORK/certs" \
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
print((i.get('signature') or {}).get('verification', '-'))" "$up/$name.json" "$ref" 2>/dev/null) ||
            verdict="(not in the JSON of upgrade-check)"
        rm -rf "$up/copy"
        if $T "${SIG_SKOPEO[@]}" --registries-conf "${REGCONF:-$up/registries.conf}" --registries.d "$up/registries.d" \
            --policy "$up/policy.json" copy --quiet --src-cert-dir "$WORK/certs" \
            --src-authfile "$WORK/no-auth.json" "docker://$ref" "dir:$up/copy" 2>"$log.sig"; then
            signed=verified
        else
            signed=refused
        fi
        case "$verdict/$signed" in
            verified/verified | missing/refused | rejected/refused) agree=$((agree + 1)) ;;
            *) disagree+=("$ref: skopeo's signature check $signed ($(tail -1 "$log.sig")), the tool's $verdict") ;;
        esac
    done < <(sed -n '3,$p' "$up/$name.verdicts")
    if [ "${#disagree[@]}" -eq 0 ] && [ "$agree" -eq 5 ]; then
        ok "upgrade-check-$name-skopeo: skopeo agrees on the 5 images' sources; skopeo $SIG_VERSION on their signatures"
    else
        fail "upgrade-check-$name-skopeo: $agree of 5 agree"; printf '     %s\n' "${disagree[@]}"
        return 1
    fi
}
# A failed round returns early (the rounds after it build on it); its FAIL
# line is printed, and the checks after upgrade-check still run.
upgrade_check || true

# --- sigstore signatures, judged by skopeo 1.18 ----------------------------
# One image on a mirror (the source holds nothing), under a name per case,
# each with its sigstore attachment made by python3 (cryptography): signed
# identities by digest, by tag and a bare repository name (and the same
# three under a remapped prefix); ECDSA P-256 and P-384, RSA and Ed25519
# keys; another key; no attachment at all. For each policy.json (one per
# signedIdentity kind, the keys by keyPath and by keyData, a Fulcio CA and
# a PKI), every image is pulled by digest and by tag: skopeo copy under
# that policy (use-sigstore-attachments) decides whether the pull is
# allowed, and `explain --probe --policy-json --registries-d` must say the
# same: served (exit 0), or a refused signature (exit 1). A trust the tool
# does not verify (Fulcio, PKI) must be reported so, never as verified.
SIGMIRROR=$(start_registry sig-mirror server no)
cat >"$WORK/sigs.py" <<'PY'
import json, sys
from oci_push import image, key, push, rootfs, sha, signature, tgz, trust

mirror, source, cafile, keydir = sys.argv[1:5]
trust(cafile)
layer = tgz([("etc/signed", b"signed")])
manifest, blobs = image(rootfs({"config": {}}, [layer]), [layer])
digest = sha(manifest)
keys = {kind: key(f"{keydir}/{kind}.pub", kind)[0] for kind in ["p256", "p384", "rsa", "ed25519"]}
other, _ = key(f"{keydir}/other.pub")
name = lambda case: f"{source}/sig/{case}"
remapped = lambda case: f"remapped.example.com/sig/{case}"
cases = {  # repository: (key, signed identity)
    "digest": (keys["p256"], f"{name('digest')}@{digest}"),
    "tag": (keys["p256"], f"{name('tag')}:v1"),
    "bare": (keys["p256"], name("bare")),
    "remap-digest": (keys["p256"], f"{remapped('remap-digest')}@{digest}"),
    "remap-tag": (keys["p256"], f"{remapped('remap-tag')}:v1"),
    "remap-bare": (keys["p256"], remapped("remap-bare")),
    "p384": (keys["p384"], f"{name('p384')}@{digest}"),
    "rsa": (keys["rsa"], f"{name('rsa')}@{digest}"),
    "ed25519": (keys["ed25519"], f"{name('ed25519')}@{digest}"),
    "other-key": (other, f"{name('other-key')}@{digest}"),
    "unsigned": (None, None),
}
for case, (k, identity) in cases.items():
    push(mirror, f"sig/{case}", "v1", manifest, blobs)
    if k is not None:
        m, b, tag = signature(k, digest, identity)
        push(mirror, f"sig/{case}", tag, m, b)
print(digest)
PY
signature_matrix() {
    local sd="$WORK/sigs" digest
    mkdir -p "$sd/keys" "$sd/registries.d"
    if ! digest=$(PYTHONPATH=$PWD/scripts $T python3 "$WORK/sigs.py" "$SIGMIRROR" "$SOURCE" "$WORK/trusted-ca.crt" "$sd/keys"); then
        fail "signatures: could not build and push the signed images"; return
    fi
    printf '[[registry]]\nprefix = "%s/sig"\nlocation = "%s/sig"\n[[registry.mirror]]\nlocation = "%s/sig"\n' \
        "$SOURCE" "$SOURCE" "$SIGMIRROR" >"$sd/registries.conf"
    printf 'default-docker:\n  use-sigstore-attachments: true\n' >"$sd/registries.d/default.yaml"
    local identity="digest tag bare" remap="remap-digest remap-tag remap-bare digest"
    local keys="digest p384 rsa ed25519 other-key unsigned"
    local s="$SOURCE/sig/tag:v1"
    # Each signedIdentity kind with the key inline (keyData, which the tool
    # verifies); exactReference names sig/tag:v1, exactRepository sig/tag.
    sig_policy matchExact "$identity" '"signedIdentity":{"type":"matchExact"}' data
    sig_policy matchRepoDigestOrExact "$identity" '"signedIdentity":{"type":"matchRepoDigestOrExact"}' data
    sig_policy matchRepository "$identity" '"signedIdentity":{"type":"matchRepository"}' data
    sig_policy exactReference "$identity" '"signedIdentity":{"type":"exactReference","dockerReference":"'"$s"'"}' data
    sig_policy exactRepository "$identity" '"signedIdentity":{"type":"exactRepository","dockerRepository":"'"${s%:v1}"'"}' data
    sig_policy remapIdentity "$remap" '"signedIdentity":{"type":"remapIdentity","prefix":"'"$SOURCE/sig"'","signedPrefix":"remapped.example.com/sig"}' data
    # Each key type by keyData (verified by the tool) and by keyPath (a file
    # on the node: the tool checks presence only).
    sig_policy keyPath "$keys" '"signedIdentity":{"type":"matchRepoDigestOrExact"}' path
    sig_policy keyData "$keys" '"signedIdentity":{"type":"matchRepoDigestOrExact"}' data
    # A Fulcio CA (with Rekor) and a PKI: skopeo verifies them (and refuses
    # these key-signed attachments); the tool checks presence only.
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=sigstore-e2e \
        -keyout "$sd/keys/fulcio.key" -out "$sd/keys/fulcio.crt" 2>/dev/null
    sig_policy fulcio "digest" '"fulcio":{"caPath":"'"$sd/keys/fulcio.crt"'","oidcIssuer":"https://issuer.example.com","subjectEmail":"e2e@example.com"},"rekorPublicKeyPath":"'"$sd/keys/p256.pub"'","signedIdentity":{"type":"matchRepoDigestOrExact"}' none
    sig_policy pki "digest" '"pki":{"caRootsPath":"'"$sd/keys/fulcio.crt"'","subjectEmail":"e2e@example.com"},"signedIdentity":{"type":"matchRepoDigestOrExact"}' none
}
# sig_policy NAME CASES REQUIREMENT path|data|none: a policy.json whose
# scope per case requires sigstoreSigned (the case's key by keyPath or
# keyData; `none`: the requirement as given), then every case pulled by
# digest and by tag under it.
sig_policy() {
    local pname=$1 cases=$2 req=$3 keymode=$4 sd="$WORK/sigs"
    python3 - "$sd/$pname.policy.json" "$SOURCE" "$sd/keys" "$keymode" "$req" $cases <<'PY'
import base64, json, sys
out, source, keydir, mode, req = sys.argv[1:6]
scopes = {}
for case in sys.argv[6:]:
    # other-key is signed by another key than the P-256 one required.
    kind = case if case in ("p384", "rsa", "ed25519") else "p256"
    r = json.loads("{" + req + "}")
    r["type"] = "sigstoreSigned"
    if mode == "path":
        r["keyPath"] = f"{keydir}/{kind}.pub"
    elif mode == "data":
        r["keyData"] = base64.b64encode(open(f"{keydir}/{kind}.pub", "rb").read()).decode()
    scopes[f"{source}/sig/{case}"] = [r]
json.dump({"default": [{"type": "insecureAcceptAnything"}], "transports": {"docker": scopes}}, open(out, "w"))
PY
    local case ref how
    for case in $cases; do
        for how in digest tag; do
            ref="$SOURCE/sig/$case:v1"
            [ "$how" = digest ] && ref="$SOURCE/sig/$case@$digest"
            sig_case "$pname" "$case-by-$how" "$ref" "$keymode"
        done
    done
}
# sig_case POLICY NAME REF KEYMODE: skopeo 1.18's verdict against the
# tool's. With an inline key they must agree: allowed and verified (exit
# 0), or refused and rejected or missing (exit 1). Otherwise the tool must
# say presence only (exit 0) for a signature that is there, whatever skopeo
# decides, and both refuse an image without one.
sig_case() {
    local pname=$1 name="$1/$2" ref=$3 keymode=$4 sd="$WORK/sigs" log json code skopeo tool why verification
    log="$sd/${pname}.$2.skopeo.log"
    rm -rf "$sd/copy"
    if $T "${SIG_SKOPEO[@]}" --registries-conf "$sd/registries.conf" --registries.d "$sd/registries.d" \
        --policy "$sd/$pname.policy.json" copy --quiet --src-cert-dir "$WORK/certs" \
        --src-authfile "$WORK/no-auth.json" "docker://$ref" "dir:$sd/copy" 2>"$log"; then
        skopeo=allowed
    else
        skopeo=refused
    fi
    why=$(tail -1 "$log" | sed 's/^time="[^"]*" level=[a-z]* msg="\(.*\)"$/\1/; s/\\"/"/g')
    json=$($T "$BIN" explain "$ref" --registries-conf "$sd/registries.conf" --policy-json "$sd/$pname.policy.json" \
        --probe --registries-d "$sd/registries.d" --cert-dir "$WORK/certs" --authfile "$WORK/no-auth.json" \
        -o json 2>"$sd/$pname.$2.err") && code=0 || code=$?
    printf '%s' "$json" >"$sd/$pname.$2.json"
    tool=$(field "$json" "(c['servedBy'] or '-') + ' ' + json.dumps(c.get('signatureProbe'))")
    [ -n "$json" ] || tool="(no JSON: $(tail -1 "$sd/$pname.$2.err"))"
    verification=$(field "$json" "(c.get('signatureProbe') or {}).get('verification', '-')")
    [ "$skopeo" = allowed ] && why="the pull is allowed"
    case "$keymode/$skopeo/$code/$verification" in
    data/allowed/0/verified | data/refused/1/rejected | */refused/1/-)
        ok "signature $name: skopeo $SIG_VERSION: $why; explain --probe: exit $code, ${verification/-/missing}" ;;
    path/*/0/presenceOnly | none/*/0/presenceOnly)
        ok "signature $name: skopeo $SIG_VERSION: $why; explain --probe: exit 0, presence only (not verified by the tool)" ;;
    *) fail "signature $name: skopeo $SIG_VERSION: $skopeo ($why); explain --probe exit $code: $tool" ;;
    esac
}
signature_matrix

if [ -n "${E2E_PROBE_SHOW:-}" ]; then
    # The text output of the first scenario, as docs/probe.md shows it.
    cp "$WORK/c1.conf" "$WORK/registries.conf"
    (cd "$WORK" && COLUMNS=100 NO_COLOR=1 $T "$BIN" explain "$SOURCE/ns/app@$APP" \
        --registries-conf registries.conf --probe --cert-dir certs --authfile no-auth.json) || true
fi
e2e_finish
