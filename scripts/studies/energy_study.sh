#!/usr/bin/env bash
# The energy measurements of results/reference/<gpu>/energy.md, on the GPU machine:
#   bash scripts/studies/energy_study.sh OUT_DIR [BUILD_DIR] [repeat]
# (repeat: only the two processes and the cost of adjacent_difference and covariance_chunk_sweep)
# 1. repeatability: adjacent_difference and covariance_chunk_sweep with --energy in two processes;
# 2. window length: the same sweeps with energy_window_s 0.3 and 1.0 (and 0.1 for adjacent_difference);
# 3. cost: adjacent_difference, covariance_chunk_sweep, covariance_seed_size and matmul without
#    and then with --energy, the whole command timed (walls.tsv);
# 4. the study: matmul with --energy and the two SM-clock sweeps (configs/energy_clock_*.json).
set -euo pipefail
out=${1:?usage: energy_study.sh OUT_DIR [BUILD_DIR] [repeat]}
bin=${2:-build-h100-bin}/occbench
only_repeat=${3:-}
mkdir -p "$out"/configs
timed() {  # timed NAME ARGS...: runs occbench ARGS, its log in NAME.log, its wall milliseconds in walls.tsv
  local name=$1; shift
  local t0=$(date +%s%N)
  "$bin" "$@" > "$out/$name.log" 2>&1 || echo "$name: exit $?" >> "$out/failures.txt"
  echo -e "$name\t$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$out/walls.tsv"  # milliseconds
}
window() {  # window CONFIG SECONDS: a copy of CONFIG with measurement.energy_window_s
  python3 - "$1" "$2" "$out/configs" <<'PY'
import json, os, sys
config, seconds, folder = sys.argv[1], float(sys.argv[2]), sys.argv[3]
d = json.load(open(config))
d["measurement"]["energy_window_s"] = seconds
d.pop("$schema", None)
path = os.path.join(folder, f"{d['name']}_window{seconds:g}.json")
json.dump(d, open(path, "w"), indent=1)
print(path)
PY
}
for sweep in adjacent_difference covariance_chunk_sweep; do
  timed "$sweep-plain" run "configs/$sweep.json" --out "$out/plain"  # the cost: against -energy-p1, run next
  for rep in 1 2; do timed "$sweep-energy-p$rep" run "configs/$sweep.json" --energy --out "$out/p$rep"; done
  [ -n "$only_repeat" ] && continue
  windows="0.3 1.0"
  [ "$sweep" = adjacent_difference ] && windows="0.1 0.3 1.0"  # 0.1: one counter update, the cheapest
  for seconds in $windows; do timed "$sweep-window$seconds" run "$(window "configs/$sweep.json" $seconds)" --energy --out "$out/window$seconds"; done
done
[ -n "$only_repeat" ] && exit 0
for sweep in covariance_seed_size matmul; do
  timed "$sweep-plain" run "configs/$sweep.json" --out "$out/plain"
  timed "$sweep-energy" run "configs/$sweep.json" --energy --out "$out/energy"
done
for sweep in energy_clock_adjacent_difference energy_clock_matmul; do timed "$sweep" run "configs/$sweep.json" --out "$out/clock"; done
