#!/usr/bin/env bash
# Short-name resolution checked against podman 5.4 (containers/image 5.34,
# the `pkg/shortnames` that CRI-O uses too). For each scenario, podman
# pulls a short name (rootful, no terminal: stdin from /dev/null) and its
# debug log gives the candidates it tried, in order, and the one that
# served, or its error; `kubectl-mirrorpolicy explain --probe -o json` on
# the same files must give the same candidates in the same order, the same
# serving candidate, or a refusal where podman refuses.
#
# Scenarios: each short-name mode (enforcing, permissive, disabled) with an
# alias in registries.conf, an alias in a drop-in overriding the main file,
# an alias in the machine-written short-name-aliases.conf overriding both
# (given to the tool with --short-name-aliases; rootful podman, like CRI-O,
# reads /var/cache/containers/short-name-aliases.conf, rootless podman
# ~/.cache/containers/short-name-aliases.conf), no alias and one search
# registry, several search registries, none; then an image only the second
# search registry holds, short names with a tag and with a digest, aliases
# given a tag and a digest, tombstones (a drop-in's and the alias file's),
# alias values refused (in registries.conf: the files do not load; in the
# alias file: short names fail, qualified names do not read it), the mode
# set by a drop-in or not at all, and `localhost/` names (rewritten by a
# [[registry]] entry, with a port, and served by nothing).
#
# podman runs without a terminal, as CRI-O always does: with one it would
# prompt in enforcing and permissive mode and record the choice in
# short-name-aliases.conf; the tool never models a prompt. Where both
# refuse, the tool's message must contain podman's (the tool adds the
# candidates to the enforcing refusal and the place in the file to a
# loading error).
#
# How: three CNCF distribution registries (Debian `docker-registry`) on
# 127.0.0.1 with TLS from a CA trusted through a cert dir (podman pull
# --cert-dir, explain --cert-dir), images pushed from a local OCI layout
# with the host's skopeo; podman runs in the Debian 13 root of
# scripts/debian13-root.sh, in a private mount namespace where its own
# empty (or the scenario's) folders are mounted over
# /etc/containers/registries.conf.d (the root's distribution aliases) and
# /var/cache (where rootful containers/image reads short-name-aliases.conf),
# with storage (vfs), run and temporary folders under this script's work
# folder, so nothing else in the root or on the host changes.
#
# Usage: scripts/e2e-shortnames.sh [BINARY]   (default target/debug/kubectl-mirrorpolicy)
# Needs: root (or a password-less sudo), the root built (scripts/debian13-root.sh
# build), docker-registry, skopeo, openssl and jq on the host. No network.
# E2E_KEEP=1 keeps the work folder (logs and JSON of every scenario).
set -euo pipefail
cd "$(dirname "$0")/.."

E2E_NAME=e2e-shortnames
. scripts/e2e-lib.sh
e2e_need docker-registry skopeo openssl jq
e2e_binary "${1:-target/debug/kubectl-mirrorpolicy}"
DEBIAN13=$ROOT_SCRIPT
ROOTDIR=$("$DEBIAN13" path)
AS_ROOT=()
[ "$(id -u)" -eq 0 ] || AS_ROOT=(sudo -n -E)
"$DEBIAN13" run podman --version >/dev/null 2>&1 ||
    e2e_die 2 "no podman in the Debian 13 root (scripts/debian13-root.sh build)"
# The images are pushed by the host's skopeo.
SKOPEO=(skopeo)

e2e_workdir
T="timeout 120"

# --- a CA the clients trust through a cert dir, and one server certificate
ca ca e2e-shortnames-ca
server_cert ca server
mkdir -p "$WORK/certs"
cp "$WORK/ca.crt" "$WORK/certs/ca.crt"

# --- three registries -----------------------------------------------------
R1=$(start_registry r1)   # first search registry
R2=$(start_registry r2)   # second search registry
R3=$(start_registry r3)   # where aliases point

# --- test images from a local OCI layout (no network) ---------------------
push() { # LAYOUT REGISTRY/REPO: tagged latest and v1
    local tag
    for tag in latest v1; do push_layout "$1" "$2:$tag" "$WORK/certs"; done
}
APP=$(layout "$WORK/oci-app" app)
layout "$WORK/oci-other" other >/dev/null
push "$WORK/oci-app" "$R1/app"           # on both search registries
push "$WORK/oci-app" "$R2/app"
push "$WORK/oci-other" "$R2/second"      # on the second one only
push "$WORK/oci-other" "$R1/ns/shadowed" # the value an overridden alias had
for repo in aliased dropin cached; do push "$WORK/oci-other" "$R3/ns/$repo"; done

# --- podman in the root ---------------------------------------------------
# Built-in defaults only (no containers.conf of the root), and every folder
# podman writes to under the work folder.
mkdir -p "$WORK/empty.d" "$WORK/netconf"
cat >"$WORK/containers.conf" <<CONF
[engine]
events_logger = "none"
cgroup_manager = "cgroupfs"
image_copy_tmp_dir = "$WORK/copytmp"
[network]
network_config_dir = "$WORK/netconf"
CONF
mkdir -p "$WORK/copytmp"

# podman_pull NAME CONF DROPINS CACHE IMAGE: podman's exit code; its log in NAME.podman.log.
# DROPINS is mounted over /etc/containers/registries.conf.d, CACHE over /var/cache.
podman_pull() {
    local name=$1 conf=$2 dropins=$3 cache=$4 image=$5 s=$WORK/podman/$1
    mkdir -p "$s/root" "$s/run" "$s/tmp"
    local rc=0
    PODMAN_IGNORE_CGROUPSV1_WARNING=1 CONTAINERS_CONF="$WORK/containers.conf" CONTAINERS_REGISTRIES_CONF="$conf" \
        $T "${AS_ROOT[@]}" unshare --mount --propagation private /bin/sh -c \
        'mount --rbind "$3" "$3" && mount --rbind /sys "$3/sys" &&
            mount --bind "$1" "$3/etc/containers/registries.conf.d" && mount --bind "$2" "$3/var/cache" &&
            shift 3 && exec "$@"' \
        sh "$dropins" "$cache" "$ROOTDIR" \
        "$DEBIAN13" run podman --root "$s/root" --runroot "$s/run" --tmpdir "$s/tmp" --storage-driver vfs \
        --log-level debug pull --cert-dir "$WORK/certs" "$image" \
        </dev/null >"$WORK/$name.podman.out" 2>"$WORK/$name.podman.log" || rc=$?
    # The pulled images are not needed any more: vfs copies every layer.
    rm -rf "$s"
    return "$rc"
}

# --- the tool ---------------------------------------------------------------
# A copy, so a rebuild while this runs does not change what is tested.
cp "$BIN" "$WORK/kubectl-mirrorpolicy"
BIN=$WORK/kubectl-mirrorpolicy

# --- what each side did, one line each -----------------------------------
# podman_outcome NAME RC: "served CANDIDATE ENDPOINT | tried C1 C2..." or
# "failed | tried C1 C2..." or "refused MESSAGE".
podman_outcome() {
    local log=$WORK/$1.podman.log tried
    tried=$(sed -n 's/.*msg="Attempting to pull candidate \([^ ]*\) for .*/\1/p' "$log" | tr '\n' ' ')
    if [ "$2" -eq 0 ]; then
        # The last endpoint tried is the one that served the pull.
        local endpoint
        endpoint=$(sed -n 's/.*msg="Trying to access \\"\([^\\]*\)\\"".*/\1/p' "$log" | tail -1)
        printf 'served %s %s | tried %s\n' "$(echo "$tried" | awk '{print $NF}')" "$endpoint" "${tried% }"
    elif [ -n "$tried" ]; then
        printf 'failed | tried %s\n' "${tried% }"
    else
        printf 'refused %s\n' "$(sed -n 's/^Error: //p' "$log" | head -1)"
    fi
}
# tool_outcome JSON: the same line from `explain --probe -o json`, where
# "tried" is every candidate up to the one that serves (all when none does).
tool_outcome() {
    jq -r '(if .items then .items[0] else . end) as $i
        | if $i.error and ($i.candidates | length) == 0 then "refused " + $i.error
          else ([$i.candidates[] | .reference]) as $all
          | ([$i.candidates | to_entries[] | select(.value.servedBy != null)] | first) as $s
          | if $s == null then "failed | tried " + ($all | join(" "))
            else "served " + $s.value.reference + " " + $s.value.servedBy
              + " | tried " + ($all[0:$s.key + 1] | join(" "))
            end
          end' "$1"
}

# scenario NAME IMAGE CONF [DROPINS [CACHE]]: podman and the tool on the same files.
# DROPINS is a registries.conf.d folder, CACHE a folder holding
# containers/short-name-aliases.conf (rootful podman's /var/cache).
scenario() {
    local name=$1 image=$2 conf=$3 dropins=${4:-$WORK/empty.d} cache=${5:-}
    if [ -z "$cache" ]; then cache=$WORK/cache/$name; mkdir -p "$cache"; fi
    local rc=0
    podman_pull "$name" "$conf" "$dropins" "$cache" "$image" || rc=$?
    local want got
    want=$(podman_outcome "$name" "$rc")
    local args=(explain "$image" --registries-conf "$conf" --registries-conf-d "$dropins"
        --probe --cert-dir "$WORK/certs" -o json)
    if [ -f "$cache/containers/short-name-aliases.conf" ]; then
        args+=(--short-name-aliases "$cache/containers/short-name-aliases.conf")
    fi
    $T "$BIN" "${args[@]}" >"$WORK/$name.json" 2>"$WORK/$name.err" || true
    if [ -s "$WORK/$name.json" ]; then
        got=$(tool_outcome "$WORK/$name.json" 2>&1) || got="unreadable JSON: $(head -c 300 "$WORK/$name.json")"
    else
        # Files the tool refuses to load: its message on stderr.
        got="refused $(sed -n '1s/^error: //p' "$WORK/$name.err")"
    fi
    # The tool says where in a file the problem is ("[aliases] (line 4): "); podman does not.
    got=$(printf '%s' "$got" | sed 's/\[[^]]*\] (line [0-9]*): //')
    # podman names the drop-ins where it sees them, inside the root.
    want=${want//\/etc\/containers\/registries.conf.d\//$dropins/}
    want=${want//\/var\/cache\//$cache/}
    if [ "$want" = "$got" ] || { [ "${want%% *}" = refused ] && [ "${got%% *}" = refused ] &&
        [[ "$got" == *"${want#refused }"* ]]; }; then
        ok "$name: $want"
    else
        fail "$name"
        echo "     podman: $want"
        echo "     tool:   $got"
    fi
}

# conf FILE MODE SEARCH...: a registries.conf; more TOML from stdin is appended.
conf() {
    local f=$1 mode=$2 list="" r; shift 2
    for r in "$@"; do list="$list${list:+, }\"$r\""; done
    {
        printf 'unqualified-search-registries = [%s]\n' "$list"
        [ "$mode" = unset ] || printf 'short-name-mode = "%s"\n' "$mode"
        cat
    } >"$f"
}
dropins() { # DIR: one drop-in, 50-e2e.conf, from stdin
    mkdir -p "$1"; cat >"$1/50-e2e.conf"
}

for mode in enforcing permissive disabled; do
    m=$WORK/$mode; mkdir -p "$m"
    # An alias wins over the search registries in every mode.
    conf "$m/alias.conf" "$mode" "$R1" "$R2" <<<"[aliases]
\"myapp\" = \"$R3/ns/aliased\""
    scenario "$mode-alias-in-registries-conf" myapp "$m/alias.conf"
    # A drop-in's alias replaces the main file's.
    conf "$m/shadowed.conf" "$mode" "$R1" "$R2" <<<"[aliases]
\"myapp\" = \"$R1/ns/shadowed\""
    dropins "$m/dropin.d" <<<"[aliases]
\"myapp\" = \"$R3/ns/dropin\""
    scenario "$mode-alias-in-drop-in" myapp "$m/shadowed.conf" "$m/dropin.d"
    # The machine-written short-name-aliases.conf wins over both.
    mkdir -p "$m/cache/containers"
    printf '[aliases]\n"myapp" = "%s/ns/cached"\n' "$R3" >"$m/cache/containers/short-name-aliases.conf"
    scenario "$mode-alias-in-short-name-aliases-conf" myapp "$m/shadowed.conf" "$m/dropin.d" "$m/cache"
    conf "$m/one.conf" "$mode" "$R1" </dev/null
    scenario "$mode-one-search-registry" app "$m/one.conf"
    conf "$m/two.conf" "$mode" "$R1" "$R2" </dev/null
    scenario "$mode-two-search-registries" app "$m/two.conf"
    conf "$m/none.conf" "$mode" </dev/null
    scenario "$mode-no-search-registries" app "$m/none.conf"
done

# An image only the second search registry holds: the first answers
# "manifest unknown" and the second serves (enforcing refuses the name).
for mode in permissive disabled; do
    scenario "$mode-only-on-second-search-registry" second "$WORK/$mode/two.conf"
done
scenario enforcing-only-on-second-search-registry second "$WORK/enforcing/two.conf"
scenario permissive-short-name-with-tag app:v1 "$WORK/permissive/two.conf"
scenario permissive-short-name-with-digest "app@$APP" "$WORK/permissive/two.conf"
scenario enforcing-one-search-registry-with-digest "app@$APP" "$WORK/enforcing/one.conf"
scenario enforcing-alias-with-tag myapp:v1 "$WORK/enforcing/alias.conf"
OTHER=$(sed -n 's/.*"digest":"\(sha256:[0-9a-f]*\)".*ref.name.*/\1/p' "$WORK/oci-other/index.json")
scenario enforcing-alias-with-digest "myapp@$OTHER" "$WORK/enforcing/alias.conf"

# Without short-name-mode the mode is permissive.
conf "$WORK/unset.conf" unset "$R1" "$R2" </dev/null
scenario mode-unset-two-search-registries app "$WORK/unset.conf"
# A drop-in's short-name-mode replaces the main file's.
dropins "$WORK/mode.d" <<<'short-name-mode = "disabled"'
scenario mode-from-drop-in-two-search-registries app "$WORK/enforcing/two.conf" "$WORK/mode.d"
# An empty alias in a drop-in erases the main file's: the search list applies.
conf "$WORK/tomb.conf" enforcing "$R1" <<<"[aliases]
\"app\" = \"$R3/ns/aliased\""
dropins "$WORK/tomb.d" <<<'[aliases]
"app" = ""'
scenario enforcing-alias-erased-by-drop-in app "$WORK/tomb.conf" "$WORK/tomb.d"
# An empty alias in short-name-aliases.conf erases the files' alias too.
mkdir -p "$WORK/tomb-cache/containers"
printf '[aliases]\n"app" = ""\n' >"$WORK/tomb-cache/containers/short-name-aliases.conf"
scenario enforcing-alias-erased-by-short-name-aliases-conf app "$WORK/tomb.conf" "$WORK/empty.d" "$WORK/tomb-cache"
# A short-name-aliases.conf alias with a tag: every short name is refused.
mkdir -p "$WORK/bad-cache/containers"
printf '[aliases]\n"other" = "%s/ns/aliased:v1"\n' "$R3" >"$WORK/bad-cache/containers/short-name-aliases.conf"
scenario invalid-short-name-aliases-conf-refused app "$WORK/enforcing/one.conf" "$WORK/empty.d" "$WORK/bad-cache"
# ... and a qualified name does not read that file.
scenario invalid-short-name-aliases-conf-qualified-name "$R1/app" "$WORK/enforcing/one.conf" "$WORK/empty.d" "$WORK/bad-cache"
# An alias value with a tag is refused when the files are read.
conf "$WORK/tagged-alias.conf" permissive "$R1" <<<"[aliases]
\"myapp\" = \"$R3/ns/aliased:v1\""
scenario alias-value-with-tag-refused myapp "$WORK/tagged-alias.conf"

# localhost/ names are qualified, never short: a [[registry]] entry can
# send them to a registry, else they go to localhost itself.
conf "$WORK/localhost.conf" enforcing "$R1" "$R2" <<<"[[registry]]
prefix = \"localhost/ns\"
location = \"$R3/ns\""
scenario localhost-rewritten-by-registry-entry localhost/ns/aliased:v1 "$WORK/localhost.conf"
scenario localhost-with-port "localhost:${R3#127.0.0.1:}/ns/aliased" "$WORK/localhost.conf"
scenario localhost-served-by-nothing localhost/app "$WORK/localhost.conf"

e2e_finish
