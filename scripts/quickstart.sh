#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine with the CUDA toolkit: install the dependencies,
# build, run the default sweep (adjacent difference, seed 003) and draw its plots. Without a GPU it
# plans the same sweep for an H100 instead (occupancy and work model; timings need a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/adjacent_difference.json}
OUT=${OUT:-results}

bash scripts/install-deps.sh
bash scripts/build.sh

set +e
./build/occbench run "$CONFIG" --out "$OUT"
status=$?
set -e
if [ $status -eq 3 ]; then
  echo
  echo "quickstart: no GPU here, so planning the sweep for an H100 instead (timings need a GPU)"
  ./build/occbench plan "$CONFIG" --gpu h100 --out "$OUT"
elif [ $status -ne 0 ]; then
  exit $status
fi

latest=$(ls -t "$OUT"/*.json | head -n 1)
python=python3
python3 -c "import matplotlib" >/dev/null 2>&1 || python=/usr/bin/python3
"$python" plots/occplot.py "$latest" --out "$OUT/plots"
echo "quickstart: results in $latest (the .csv is beside it), figures in $OUT/plots/"
