#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine with the CUDA toolkit: install what it needs,
# build occbench for this machine's GPU, run the default sweep (adjacent difference, seed 003) and
# draw its plots. Without a GPU it builds for the H100 and plans the same sweep for it instead
# (occupancy and work model; timings need a GPU). The tests and the other architectures are built
# by scripts/test.sh (or CUDA_ARCHS="..." scripts/build.sh): plan for another GPU needs its own.
# Each step's wall time is printed at the end (docs/install.md has the breakdown).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/adjacent_difference.json}
OUT=${OUT:-results}
export PATH="$PATH:/usr/local/cuda/bin"
times=()
t0=$(date +%s)
step() { local now; now=$(date +%s); times+=("$1 $((now - t0)) s"); t0=$now; }

# OCCBENCH_NO_INSTALL=1: the packages come otherwise (a cluster's modules, an offline machine; CMake
# finds them through CMAKE_PREFIX_PATH) and none is installed here.
[ -n "${OCCBENCH_NO_INSTALL:-}" ] || bash scripts/install-deps.sh
step packages

# The architecture of the GPU here (nvidia-smi's compute capability, 9.0 -> 90), else the H100's.
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .' || true)
[[ "$arch" =~ ^[0-9]+$ ]] || arch=90
# No ccache for this first build: its misses would cost a third more (later builds use it). The
# build's levers for a first build instead: precompiled headers and unity builds (docs/install.md).
first_build=(CUDA_ARCHS=$arch OCCBENCH_TESTS=OFF OCCBENCH_GBENCH=OFF OCCBENCH_CCACHE=OFF OCCBENCH_PCH=ON OCCBENCH_UNITY=ON)
env "${first_build[@]}" bash scripts/build.sh occbench
step "build (sm_$arch)"
# The Python package (docs/python.md): its module over the same build, and .venv (install-deps.sh
# made it) importing this checkout's package from build/python. `pip install .` installs it anywhere.
if [ -x .venv/bin/python ] && .venv/bin/python -m nanobind --cmake_dir >/dev/null 2>&1; then
  env "${first_build[@]}" bash scripts/build.sh _engine
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$PWD/build/python" > "$site/occbench-checkout.pth"
  step "python package"
fi

set +e
./build/occbench run "$CONFIG" --out "$OUT"
status=$?
set -e
if [ $status -eq 3 ]; then
  echo
  echo "quickstart: no GPU here, so planning the sweep for an H100 instead (timings need a GPU; occbench doctor says what this machine can do)"
  ./build/occbench plan "$CONFIG" --gpu h100 --out "$OUT"
elif [ $status -ne 0 ]; then
  exit $status
fi
step "run or plan"

latest=$(ls -t "$OUT"/*.json | head -n 1)
python=python3
python3 -c "import matplotlib" >/dev/null 2>&1 || python=/usr/bin/python3
"$python" plots/occplot.py "$latest" --out "$OUT/plots"
step plots
echo "quickstart: results in $latest (the .csv is beside it), figures in $OUT/plots/"
if [ -x .venv/bin/python ]; then
  echo "quickstart: from Python: .venv/bin/python -c 'from occbench import tune_kernel' (docs/python.md)"
fi
echo "quickstart: time per step: $(IFS=';'; echo "${times[*]}" | sed 's/;/, /g')"
