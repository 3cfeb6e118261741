#!/usr/bin/env bash
# Installs the official Anthropic Python SDK, pinned, into a virtual environment in the cache
# directory (never into the repository), for the provider-native tool search conformance check
# (tests/it/sdk_native_conformance.py validates Messages bodies against the SDK's own models).
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/anthropic-sdk-<version>/
#   bin/python     the virtualenv's interpreter, with anthropic==<version> importable
#
# Idempotent: an existing environment that imports the pinned version is reused. Exits non-zero
# with a message saying what failed. Prints the interpreter as ANTHROPIC_SDK_PYTHON=<path>.
set -euo pipefail

ANTHROPIC_VERSION="2.15.0"
# The SDK's strict models are pydantic models; the pydantic release decides what "strict" means.
# The same pin as scripts/install-openai-sdk.sh, so both SDKs are judged by the same rules.
PYDANTIC_VERSION="2.14.4"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/anthropic-sdk-${ANTHROPIC_VERSION}"
PYTHON="${PREFIX}/bin/python"

die() {
    echo "install-anthropic-sdk: error: $*" >&2
    exit 1
}

log() {
    echo "install-anthropic-sdk: $*" >&2
}

# Returns 0 when the environment imports the pinned anthropic and pydantic, and the tool search
# types this project validates against (a release without them is the wrong pin).
verify() {
    [[ -x "$PYTHON" ]] || return 1
    "$PYTHON" - "$ANTHROPIC_VERSION" "$PYDANTIC_VERSION" <<'PY'
import sys
import anthropic, pydantic
want_anthropic, want_pydantic = sys.argv[1], sys.argv[2]
if anthropic.__version__ != want_anthropic or pydantic.VERSION != want_pydantic:
    sys.exit(f"have anthropic {anthropic.__version__} / pydantic {pydantic.VERSION}")
from anthropic.types import ToolSearchToolResultBlock, ToolSearchToolBm25_20251119Param  # noqa: F401
PY
}

main() {
    if verify 2>/dev/null; then
        log "reusing $PREFIX"
    else
        command -v python3 >/dev/null || die "python3 is not on PATH; install Python 3.10 or newer"
        python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
            || die "anthropic==${ANTHROPIC_VERSION} needs Python 3.10 or newer; python3 is $(python3 -V 2>&1)"
        mkdir -p "$CACHE_ROOT" || die "cannot create $CACHE_ROOT; set TOOLSEARCH_QA_CACHE to a writable directory"
        rm -rf "$PREFIX"
        python3 -m venv "$PREFIX" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
        log "installing anthropic==${ANTHROPIC_VERSION} pydantic==${PYDANTIC_VERSION}"
        "$PYTHON" -m pip install --quiet --disable-pip-version-check \
            "anthropic==${ANTHROPIC_VERSION}" "pydantic==${PYDANTIC_VERSION}" >&2 \
            || die "pip could not install anthropic==${ANTHROPIC_VERSION}; check the package index access"
        verify || die "the environment in $PREFIX does not import the pinned versions; remove it and retry"
    fi
    echo "ANTHROPIC_SDK_PYTHON=$PYTHON"
}

main "$@"
