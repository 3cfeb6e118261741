#!/usr/bin/env bash
# Installs the Berkeley Function-Calling Leaderboard's data (PyPI bfcl-eval, pinned; Apache-2.0)
# into a cache directory (never into the repository), for `quality --bfcl`: a tool-retrieval
# set this project did not write. pip downloads the wheel alone (--no-deps: none of its Python
# code runs, only its JSON data files are read), and the wheel's data directory is unpacked next
# to it. Nothing is fetched at run time.
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/bfcl-eval-<version>/
#   bfcl_eval-<version>-py3-none-any.whl     the wheel as downloaded
#   bfcl_eval/data/BFCL_v4_<subset>.json     questions (JSON lines), unpacked from the wheel
#   bfcl_eval/data/possible_answer/...        their answers
#
# Idempotent: an install whose wheel has the expected SHA-256 and whose data is unpacked is
# reused. Exits non-zero with a message saying what failed. Prints BFCL_DIR=<dir> on success.
set -euo pipefail

PACKAGE="bfcl-eval"
VERSION="2026.3.23"
WHEEL="bfcl_eval-${VERSION}-py3-none-any.whl"
# SHA-256 of that wheel: the data the committed baselines were measured on.
WHEEL_SHA256="3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
SUBSETS=(simple_python multiple live_simple live_multiple)
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/bfcl-eval-${VERSION}"

die() {
    echo "install-bfcl: error: $*" >&2
    exit 1
}

log() {
    echo "install-bfcl: $*" >&2
}

# Returns 0 when the wheel is the pinned one and the four subsets are unpacked.
verify() {
    [[ -s "${PREFIX}/${WHEEL}" ]] || { log "missing ${PREFIX}/${WHEEL}"; return 1; }
    local sum subset
    sum="$(sha256sum "${PREFIX}/${WHEEL}" | cut -d' ' -f1)"
    [[ "$sum" == "$WHEEL_SHA256" ]] || { log "${WHEEL} has sha256 $sum, want $WHEEL_SHA256"; return 1; }
    for subset in "${SUBSETS[@]}"; do
        [[ -s "${PREFIX}/bfcl_eval/data/BFCL_v4_${subset}.json" ]] || return 1
        [[ -s "${PREFIX}/bfcl_eval/data/possible_answer/BFCL_v4_${subset}.json" ]] || return 1
    done
}

main() {
    if verify 2>/dev/null; then
        log "reusing the install in $PREFIX"
    else
        command -v python3 >/dev/null || die "python3 is not on PATH; install Python 3 and pip first"
        python3 -m pip --version >/dev/null 2>&1 || die "python3 has no pip; install pip first"
        mkdir -p "$PREFIX" || die "cannot create $PREFIX; set TOOLSEARCH_QA_CACHE to a writable directory"
        log "downloading ${PACKAGE}==${VERSION} (about 1.9 MB) into $PREFIX"
        python3 -m pip download --quiet --disable-pip-version-check --no-deps \
            --dest "$PREFIX" "${PACKAGE}==${VERSION}" >&2 \
            || die "pip could not download ${PACKAGE}==${VERSION}; check pip's registry access"
        rm -rf "${PREFIX}/bfcl_eval"
        # The wheel is a zip archive: unpack its data directory only (Python's own zipfile, so no
        # unzip binary is needed).
        python3 - "${PREFIX}/${WHEEL}" "$PREFIX" <<'PY' || die "could not unpack ${WHEEL}"
import sys, zipfile
wheel, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    z.extractall(dest, [n for n in z.namelist() if n.startswith("bfcl_eval/data/")])
PY
        verify || die "the install in $PREFIX is incomplete or not the pinned wheel; remove that directory and retry"
    fi
    echo "BFCL_DIR=$PREFIX"
}

main "$@"
