#!/usr/bin/env bash
# Configures and builds occbench into BUILD_DIR (default build/). Needs no GPU.
#   bash scripts/build.sh                         # everything: every architecture of the built-in GPU
#                                                 # table (75 80 86 89 90 100), the tests, occbench_gbench
#   CUDA_ARCHS="90" bash scripts/build.sh         # one architecture (faster; plan then knows sm_90 GPUs)
#   OCCBENCH_TESTS=OFF OCCBENCH_GBENCH=OFF bash scripts/build.sh occbench   # the command alone
#   OCCBENCH_CCACHE=OFF ...                       # without ccache (a first build: its misses cost ~50%)
# Arguments are targets to build (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
CUDA_ARCHS=${CUDA_ARCHS:-75 80 86 89 90 100}
export PATH="$PATH:/usr/local/cuda/bin"

args=(-S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS// /;}"
      "-DOCCBENCH_BUILD_TESTS=${OCCBENCH_TESTS:-ON}" "-DOCCBENCH_BUILD_GBENCH=${OCCBENCH_GBENCH:-ON}")
if [ "${OCCBENCH_CCACHE:-ON}" = ON ] && command -v ccache >/dev/null 2>&1; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
else
  args+=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_CUDA_COMPILER_LAUNCHER)
fi
cmake "${args[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$BUILD_DIR" --parallel "$(nproc)" "${targets[@]}"
