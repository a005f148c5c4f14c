#!/usr/bin/env bash
# Step "LibTorch headers" of action.yml, run only when the action builds the op library (its build
# input): native-ops/scripts/torch-headers.sh takes the headers of LIBTORCH_VERSION from the first of
# TORCH_INCLUDE_DIR, the torch wheel (pip), the LibTorch zip at LIBTORCH_URL and libtorch-dev from apt,
# prints one line naming it, and the include dir is exported to the build as TORCH_INCLUDE_DIR.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache="${OPCHECK4J_HEADERS_CACHE:-$HOME/.cache/opcheck4j/torch-headers}"
bash "$here/../../native-ops/scripts/torch-headers.sh" "$cache" "${LIBTORCH_VERSION:?the libtorch-version input}"
echo "TORCH_INCLUDE_DIR=$(cat "$cache/include-dir.txt")" >> "${GITHUB_ENV:?GITHUB_ENV is set by the runner}"
