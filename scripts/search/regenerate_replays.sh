#!/usr/bin/env bash
# The search write-ups' replayed data, made again from the committed records by one occbench
# binary, each part in its own process (minutes on the device machine's 16 cores, an hour or more on
# two): after a change to a strategy, the numbers its tables show move, and are made again, not
# typed. Then `python3 scripts/checks/generated_tables.py --write` writes the tables.
#
#   bash scripts/search/regenerate_replays.sh [OCCBENCH]      # default build/occbench
#
# KT_STORE (default .carry/kt_runs.jsonl): Kernel Tuner's runs (kt_simulation.py kernel-tuner), which
# kt_simulation.py run reads; one it lacks is run here. Kernel Tuner has to be installed either way
# (run names its version from the package's metadata).
# PYTHON (default python3): a Python with scipy.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OCC=${1:-build/occbench}
PY=${PYTHON:-python3}
STORE=${KT_STORE:-.carry/kt_runs.jsonl}
SYRK=results/reference/h100/search/syrk/syrk_full.jsonl
CONV=results/reference/h100/search/convolution/convolution_full.jsonl
COMPILE_BOUND="--compile-s 0.8 --cores 16"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The convolution with the compile times live runs measured (the replay_wall tables' model).
"$PY" scripts/search/compile_model_space.py "$CONV" results/reference/h100/search/evidence.tar.xz \
  --runs 'batches/study22to24_logs_csv/study24/' --out "$work/model.jsonl" || exit 1

part() {  # NAME COMMAND...: in the background, its log in $work
  local name=$1
  shift
  ("$@" > "$work/$name.log" 2>&1; echo "$name: exit $?" >> "$work/status") &
}
sim=results/reference/cpu/kt_simulation
part kt_one "$PY" scripts/search/kt_simulation.py run "$OCC" "$SYRK" "$CONV" --out $sim/summary.json --store "$STORE"
part kt_compile "$PY" scripts/search/kt_simulation.py run "$OCC" "$SYRK" "$CONV" --model "$COMPILE_BOUND" \
  --out $sim/summary_compile_bound.json --store "$STORE"
part significance "$PY" scripts/search/replay_significance.py run "$OCC" "$SYRK" "$CONV" \
  --out results/reference/cpu/search_width/significance.json
wall=results/reference/cpu/replay_wall
for cores in 16 2; do
  part "wall_$cores" "$PY" scripts/search/replay_wall_table.py run "$OCC" "$work/model.jsonl" --cores $cores \
    --out $wall/convolution_${cores}_cores.json
  part "wall_${cores}_batch16" "$PY" scripts/search/replay_wall_table.py run "$OCC" "$work/model.jsonl" --cores $cores \
    --batch 16 --out $wall/convolution_${cores}_cores_batch16.json
done
wait
sort "$work/status"
for log in "$work"/*.log; do
  if [ -s "$log" ]; then echo "--- $(basename "$log")"; tail -5 "$log"; fi
done
! grep -qv ": exit 0$" "$work/status"
