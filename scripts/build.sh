#!/usr/bin/env bash
# Configures and builds occbench into BUILD_DIR (default build/). Needs no GPU.
#   bash scripts/build.sh                         # everything: every architecture of the built-in GPU
#                                                 # table (75 80 86 89 90 100), the tests, occbench_gbench
#   CUDA_ARCHS="90" bash scripts/build.sh         # one architecture (faster; plan then knows sm_90 GPUs)
#   OCCBENCH_TESTS=OFF OCCBENCH_GBENCH=OFF bash scripts/build.sh occbench   # the command alone
#   OCCBENCH_CCACHE=OFF ...                       # without ccache (a first build: its misses cost ~50%)
#   OCCBENCH_PCH=ON OCCBENCH_UNITY=ON ...         # precompiled headers, unity builds (a first build without ccache)
#   OCCBENCH_PYTHON=OFF / PYTHON=python3.12 ...   # the Python module (BUILD_DIR/python/occbench): built
#                                                 # where $PYTHON (default .venv's, else python3) has nanobind
# Arguments are targets to build (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
CUDA_ARCHS=${CUDA_ARCHS:-75 80 86 89 90 100}
export PATH="$PATH:/usr/local/cuda/bin"

args=(-S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHS// /;}"
      "-DOCCBENCH_BUILD_TESTS=${OCCBENCH_TESTS:-ON}" "-DOCCBENCH_BUILD_GBENCH=${OCCBENCH_GBENCH:-ON}"
      "-DOCCBENCH_PCH=${OCCBENCH_PCH:-OFF}" "-DOCCBENCH_UNITY=${OCCBENCH_UNITY:-OFF}")
python=${PYTHON:-}
if [ -z "$python" ]; then python=python3; [ -x .venv/bin/python ] && python=.venv/bin/python; fi
if [ "${OCCBENCH_PYTHON:-}" = "" ]; then
  OCCBENCH_PYTHON=OFF
  if "$python" -m nanobind --cmake_dir >/dev/null 2>&1; then OCCBENCH_PYTHON=ON; fi
fi
args+=("-DOCCBENCH_PYTHON=$OCCBENCH_PYTHON")
if [ "$OCCBENCH_PYTHON" = ON ]; then args+=("-DPython_EXECUTABLE=$(realpath -s "$(command -v "$python")")"); fi
if [ "${OCCBENCH_CCACHE:-ON}" = ON ] && command -v ccache >/dev/null 2>&1; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
else
  args+=(-UCMAKE_CXX_COMPILER_LAUNCHER -UCMAKE_CUDA_COMPILER_LAUNCHER)
fi
cmake "${args[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$BUILD_DIR" --parallel "$(nproc)" "${targets[@]}"
