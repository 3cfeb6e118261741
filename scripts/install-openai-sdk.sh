#!/usr/bin/env bash
# Installs the official OpenAI Python SDK, pinned, into a virtual environment in the cache
# directory (never into the repository), for the Responses API conformance test
# (tests/it/sdk_conformance.rs drives the mock provider and the embedded gateway through it).
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/openai-sdk-<version>/
#   bin/python     the virtualenv's interpreter, with openai==<version> importable
#
# Idempotent: an existing environment that imports the pinned version is reused. Exits non-zero
# with a message saying what failed. Prints the interpreter as OPENAI_SDK_PYTHON=<path>.
set -euo pipefail

OPENAI_VERSION="3.57.0"
# The SDK's strict models are pydantic models; the pydantic release decides what "strict" means.
PYDANTIC_VERSION="2.14.4"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/openai-sdk-${OPENAI_VERSION}"
PYTHON="${PREFIX}/bin/python"

die() {
    echo "install-openai-sdk: error: $*" >&2
    exit 1
}

log() {
    echo "install-openai-sdk: $*" >&2
}

# Returns 0 when the environment imports the pinned openai and pydantic.
verify() {
    [[ -x "$PYTHON" ]] || return 1
    "$PYTHON" - "$OPENAI_VERSION" "$PYDANTIC_VERSION" <<'PY'
import sys
import openai, pydantic
want_openai, want_pydantic = sys.argv[1], sys.argv[2]
if openai.__version__ != want_openai or pydantic.VERSION != want_pydantic:
    sys.exit(f"have openai {openai.__version__} / pydantic {pydantic.VERSION}")
PY
}

main() {
    if verify 2>/dev/null; then
        log "reusing $PREFIX"
    else
        command -v python3 >/dev/null || die "python3 is not on PATH; install Python 3.9 or newer"
        mkdir -p "$CACHE_ROOT" || die "cannot create $CACHE_ROOT; set TOOLSEARCH_QA_CACHE to a writable directory"
        rm -rf "$PREFIX"
        python3 -m venv "$PREFIX" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
        log "installing openai==${OPENAI_VERSION} pydantic==${PYDANTIC_VERSION}"
        "$PYTHON" -m pip install --quiet --disable-pip-version-check \
            "openai==${OPENAI_VERSION}" "pydantic==${PYDANTIC_VERSION}" >&2 \
            || die "pip could not install openai==${OPENAI_VERSION}; check the package index access"
        verify || die "the environment in $PREFIX does not import the pinned versions; remove it and retry"
    fi
    echo "OPENAI_SDK_PYTHON=$PYTHON"
}

main "$@"
