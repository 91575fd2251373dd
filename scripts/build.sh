#!/usr/bin/env bash
# Configures and builds occbench into BUILD_DIR (default build/). Needs no GPU.
#   CUDA_ARCHS="90" scripts/build.sh    # one architecture only (faster); default: every architecture
#                                       # of the built-in GPU table (75 80 86 89 90 100)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
export PATH="$PATH:/usr/local/cuda/bin"

args=(-S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release)
[ -n "${CUDA_ARCHS:-}" ] && args+=("-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS// /;}")
if command -v ccache >/dev/null 2>&1; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake "${args[@]}" >/dev/null
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
