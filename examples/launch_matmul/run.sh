#!/usr/bin/env bash
# The loop of issue 58 on a GPU, end to end (results/reference/h200/launch_example.md is made from
# its outputs by scripts/studies/launch_example_table.py):
#   1. the application, untuned, runs at each size with OCCBENCH_CAPTURE=matmul: its launches are
#      written out as configs with their inputs and outputs (.npy);
#   2. occbench tunes each capture with a search of BUDGET points, verified against the
#      application's own outputs;
#   3. the application runs again with the tuning's results, at the captured sizes and one more
#      (the nearest tuned size's best), comparing every bit with the defaults and timing both.
# usage: examples/launch_matmul/run.sh OUT [BUILD]   (BUILD: occbench's build folder, default build)
set -euo pipefail
out=${1:?usage: run.sh OUT [BUILD]}
build=${2:-build}
app=$build/examples/launch_matmul/launch_matmul
occbench=$build/occbench
sizes=${SIZES:-1024,2048}
more=${MORE_SIZES:-3072}
budget=${BUDGET:-60}
strategy=${STRATEGY:-local}
mkdir -p "$out/tuning"

OCCBENCH_CAPTURE=matmul OCCBENCH_CAPTURE_DIR="$out/captures" "$app" --sizes "$sizes" --out "$out/untuned.json" 2> "$out/untuned.log"
cat "$out/untuned.log"

results=()
for config in "$out"/captures/*/config.json; do
  name=$(basename "$(dirname "$config")")
  "$occbench" run "$config" --strategy "$strategy" --max-points "$budget" --seed 1 --out "$out/tuning/$name" \
    > "$out/tuning/$name.log" 2>&1
  tail -n 3 "$out/tuning/$name.log"
  results+=("$(ls "$out/tuning/$name"/*.json)")
done

"$app" --sizes "$sizes,$more" --results "${results[@]}" --out "$out/tuned.json" 2> "$out/tuned.log"
cat "$out/tuned.log"
