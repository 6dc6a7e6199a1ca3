# Shell helpers shared by the end-to-end scripts (e2e-probe.sh,
# e2e-shortnames.sh, e2e-operator.sh): sourced, never run. The script sets
# E2E_NAME (the prefix of its messages) first, and is in the repository's
# root folder (each script `cd`s there).
#
# What is here: the arguments (`--skopeo host|root|COMMAND` and the binary),
# the skopeo judged (the host's, or skopeo 1.18 of the Debian 13 root of
# scripts/debian13-root.sh), the work folder and its cleanup, certificates,
# ports, registries (CNCF distribution, Debian `docker-registry`), OCI
# layouts pushed with skopeo, the ok/fail counters, and running the
# `skopeo copy` lines the tool prints. Images built in Python are pushed by
# scripts/oci_push.py.

# The `__pycache__` of scripts/oci_push.py is not left in the checkout.
export PYTHONDONTWRITEBYTECODE=1
ROOT_SCRIPT=$PWD/scripts/debian13-root.sh

e2e_die() { # CODE MESSAGE
    echo "$E2E_NAME: $2" >&2
    E2E_ENDED=yes
    exit "$1"
}

# Under `set -e` a command that fails outside a check's own handling (a
# setup step, or a `$(...)` whose output a check reads) ends the script.
# The ERR trap (inherited by functions: `set -E`) notes where; the EXIT trap
# of e2e_workdir then reports it as a FAIL line with the summary, so no run
# ends without them. A check should still catch its own failures and go on
# to its FAIL line: this is the net under it.
set -E
E2E_ENDED=
E2E_FAILED_AT=
trap 'E2E_FAILED_AT="${BASH_SOURCE[0]##*/} line $LINENO: $BASH_COMMAND"' ERR

# e2e_args ARGS...: `--skopeo host|root|COMMAND` (else E2E_SKOPEO, else
# host) into SKOPEO_SPEC, and the binary (default
# target/debug/kubectl-mirrorpolicy) into BIN, as an absolute path.
e2e_args() {
    SKOPEO_SPEC=${E2E_SKOPEO:-host}
    while [ $# -gt 0 ]; do
        case "$1" in
        --skopeo) SKOPEO_SPEC=${2:?--skopeo needs host, root or a command}; shift 2 ;;
        --skopeo=*) SKOPEO_SPEC=${1#--skopeo=}; shift ;;
        -*) e2e_die 2 "unknown option $1" ;;
        *) break ;;
        esac
    done
    e2e_binary "${1:-target/debug/kubectl-mirrorpolicy}"
}

e2e_binary() { # PATH: BIN, absolute; it must be built
    BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    [ -x "$BIN" ] || e2e_die 2 "$BIN is not built"
}

e2e_need() { # COMMAND...
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || e2e_die 2 "$tool is not installed"
    done
}

root_built() { [ -f "$("$ROOT_SCRIPT" path)/.mirrorpolicy-complete" ]; }

# e2e_skopeo: the skopeo of SKOPEO_SPEC (host: `skopeo` on PATH; root:
# skopeo 1.18 in the Debian 13 root; else a command) into the array
# SKOPEO, and its version into SKOPEO_VERSION.
e2e_skopeo() {
    case "$SKOPEO_SPEC" in
    host) SKOPEO=(skopeo) ;;
    root) SKOPEO=("$ROOT_SCRIPT" run skopeo) ;;
    *) read -r -a SKOPEO <<<"$SKOPEO_SPEC" ;;
    esac
    if [[ ${SKOPEO[0]} == *debian13-root.sh ]] && ! root_built; then
        e2e_die 2 "the Debian 13 root is not built: run scripts/debian13-root.sh build"
    fi
    command -v "${SKOPEO[0]}" >/dev/null || e2e_die 2 "${SKOPEO[0]} is not installed"
    SKOPEO_VERSION=$("${SKOPEO[@]}" --version) || e2e_die 2 "${SKOPEO[*]} --version failed"
    SKOPEO_VERSION=${SKOPEO_VERSION#skopeo version }
}

# e2e_workdir: WORK, a new folder under the temporary folder the Debian 13
# root shares (at the same path), removed on exit (E2E_KEEP=1 keeps it) after
# every process whose id is in WORK/*/pid is stopped (registries and
# proxies are started from command substitutions, subshells: their ids are
# kept in files). HOME and the runtime folder are in it, and the client
# settings of the caller's environment are unset.
e2e_workdir() {
    WORK=$(cd "$(mktemp -d)" && pwd -P)
    trap e2e_cleanup EXIT
    export HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/run"
    mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
    unset REGISTRY_AUTH_FILE DOCKER_CONFIG XDG_CONFIG_HOME XDG_CACHE_HOME CONTAINERS_REGISTRIES_CONF
}

e2e_cleanup() {
    local status=$? f
    if [ "$status" -ne 0 ] && [ -z "$E2E_ENDED" ]; then
        fail "aborted (exit $status) at ${E2E_FAILED_AT:-an unknown line}"
        e2e_summary
    fi
    for f in "$WORK"/*/pid; do
        [ -f "$f" ] || continue
        e2e_stop "$(cat "$f")"
    done
    [ -n "${E2E_KEEP:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}

e2e_stop() { # PID: stopped, waiting up to 5s for it to exit
    kill "$1" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
}

# --- certificates --------------------------------------------------------
ca() { # NAME [CN]: WORK/NAME.crt and .key, a self-signed CA
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=${2:-$1}" \
        -keyout "$WORK/$1.key" -out "$WORK/$1.crt" 2>/dev/null
}
server_cert() { # CA NAME: WORK/NAME.crt and .key, for 127.0.0.1 and localhost, signed by CA
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$WORK/$2.key" -out "$WORK/$2.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$WORK/$2.ext"
    openssl x509 -req -in "$WORK/$2.csr" -CA "$WORK/$1.crt" -CAkey "$WORK/$1.key" \
        -CAcreateserial -days 2 -extfile "$WORK/$2.ext" -out "$WORK/$2.crt" 2>/dev/null
}

# --- ports and registries --------------------------------------------------
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 20000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
    done
    e2e_die 1 "no free port"
}
listening() { # PORT: whether something accepts connections there within 10s
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
# start_registry NAME [CERT|- [AUTH(yes|no)]]: a registry on 127.0.0.1 with
# TLS from WORK/CERT.crt (default `server`; `-`: plain HTTP), with
# WORK/htpasswd when AUTH is yes; prints 127.0.0.1:PORT. Its folder is
# WORK/NAME (config.yml, data, log, pid).
start_registry() {
    local cert=${2:-server} port; port=$(free_port)
    mkdir -p "$WORK/$1"
    {
        printf 'version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\n' "$WORK/$1/data"
        printf 'http:\n  addr: 127.0.0.1:%s\n' "$port"
        [ "$cert" = - ] || printf '  tls:\n    certificate: %s\n    key: %s\n' "$WORK/$cert.crt" "$WORK/$cert.key"
        if [ "${3:-no}" = yes ]; then
            printf 'auth:\n  htpasswd:\n    realm: e2e\n    path: %s\n' "$WORK/htpasswd"
        fi
    } >"$WORK/$1/config.yml"
    serve_registry "$1" || e2e_die 1 "registry $1 did not start: $(cat "$WORK/$1/log")"
    echo "127.0.0.1:$port"
}
serve_registry() { # NAME: (again) the registry of WORK/NAME/config.yml, until it listens
    local port
    port=$(sed -n 's/^  addr: 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$WORK/$1/config.yml")
    docker-registry serve "$WORK/$1/config.yml" >>"$WORK/$1/log" 2>&1 </dev/null &
    echo $! >"$WORK/$1/pid"
    listening "$port"
}

# --- test images from a local OCI layout (no network) -----------------------
layout() { # DIR SEED: an image of one file, tagged v1; prints its manifest digest
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
# push_layout LAYOUT REF CERT-DIR [USER:PASS]: the layout's v1 pushed to
# docker://REF by SKOPEO, digests kept.
push_layout() {
    local creds=()
    [ -n "${4:-}" ] && creds=(--dest-creds "$4")
    $T "${SKOPEO[@]}" copy --quiet --preserve-digests --dest-cert-dir "$3" "${creds[@]}" \
        "oci:$1:v1" "docker://$2"
}

# --- verdicts ----------------------------------------------------------------
# Every verdict line names the skopeo it was judged by, when there is one.
PASS=0
FAIL=0
ok() { echo "ok   ${SKOPEO_VERSION:+[skopeo $SKOPEO_VERSION] }$*"; PASS=$((PASS + 1)); }
fail() { echo "FAIL ${SKOPEO_VERSION:+[skopeo $SKOPEO_VERSION] }$*"; FAIL=$((FAIL + 1)); }
e2e_summary() {
    echo "$E2E_NAME: ${SKOPEO_VERSION:+skopeo $SKOPEO_VERSION: }$PASS passed, $FAIL failed"
}
e2e_finish() { # the counts; exit 1 when a check failed
    e2e_summary
    E2E_ENDED=yes
    [ "$FAIL" -eq 0 ] || exit 1
    exit 0
}

last_tried() { # SKOPEO-LOG: the last endpoint a --debug skopeo tried (the one that served)
    sed -n 's/.*Trying to access \\"\([^\\]*\)\\".*/\1/p' "$1" | tail -1
}

# run_fix_lines NAME JSON: runs every `skopeo copy` line of the tool's next
# steps in JSON, adding the cert dir WORK/certs this machine trusts the
# registries with; their count in FIXED. A verdict named NAME.
FIXED=0
run_fix_lines() {
    local line n=0 args
    while read -r line; do
        [ -n "$line" ] || continue
        n=$((n + 1))
        # Split into words without glob expansion: the line comes from
        # catalog and cluster data.
        read -r -a args <<<"${line#skopeo copy }"
        if ! $T "${SKOPEO[@]}" copy --quiet --src-cert-dir "$WORK/certs" --dest-cert-dir "$WORK/certs" \
            "${args[@]}" >"$WORK/$1.log" 2>&1; then
            fail "$1: $line: $(tail -1 "$WORK/$1.log")"; return 1
        fi
    done < <(python3 -c "import json, sys
for s in json.load(open(sys.argv[1]))['nextSteps']:
    for c in s.get('commands', []):
        print(c if c.startswith('skopeo copy ') else '')" "$2")
    FIXED=$n
    if [ "$n" -eq 0 ]; then
        fail "$1: the tool printed no skopeo copy line"; return 1
    fi
    ok "$1: ran the $n skopeo copy line(s) the tool printed"
}
