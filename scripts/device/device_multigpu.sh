#!/usr/bin/env bash
# There, on a machine with two GPUs of one model (the device tool's nvidia-h200-x2), from the
# carried folder holding build-h100-bin (scripts/device/device_build.sh), configs, examples and scripts:
#   BUILD_DIR=build-h100-bin bash scripts/device/device_multigpu.sh
# (a) the GPU tests, with two GPUs (the GpuMultiDevice tests need them);
# (b) run --devices 0 against run --devices 0,1 on SCALING_CONFIGS: wall times and occbench compare;
# (c) every shipped config (configs/*.json) on device 0 alone: the reference results of this GPU;
# (d) the searches of SEARCHES shared by both GPUs (results/reference/h100/search.md's table).
# Everything lands in $OUT/device.tgz; a summary is printed last. Steps of (c) that would start
# after DEADLINE_S seconds are left out (and said so), so the tarball is written inside a time limit;
# SKIP_REFERENCE=1 leaves (c) out; GPU_TEST_FILTER (a --gtest_filter) runs only some GPU tests; no
# step runs past STEP_LIMIT_S seconds (default 120), so the tarball is written even then. The GPU
# tests read configs from the folder they were built in (OCCBENCH_SOURCE_DIR): link it to the
# carried folder there when it differs.
set -uo pipefail
BUILD=${BUILD_DIR:-build-h100-bin}
OUT=${OUT:-device-out}
DEADLINE_S=${DEADLINE_S:-270}
SCALING_CONFIGS=${SCALING_CONFIGS:-"covariance_chunk_sweep stencil adjacent_difference"}
STEP_LIMIT_S=${STEP_LIMIT_S:-120}
SEARCH_DEVICES=${SEARCH_DEVICES:-0,1}  # 0 on one GPU: the step's own check
SEARCHES=${SEARCHES-"convolution-model=examples/search/convolution/convolution.json:model:175:1
  convolution-local=examples/search/convolution/convolution.json:local:175:1 syrk-local=examples/search/syrk/syrk.json:local:133:1"}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/logs" "$WORK/scaling" "$WORK/reference"
summary=()
note() { summary+=("$1"); echo "== $1"; }
started=$(date +%s)
now() { date +%s.%N; }

nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv > "$WORK/logs/nvidia-smi.csv" 2>&1
nproc > "$WORK/logs/nproc.txt"

timeout "$STEP_LIMIT_S" "$BUILD/tests/occbench_gpu_tests" --gtest_filter="${GPU_TEST_FILTER:-*}" > "$WORK/logs/gpu_tests.log" 2>&1
note "gpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$WORK/logs/gpu_tests.log" | tr '\n' ' '))"

for name in $SCALING_CONFIGS; do
  for devices in 0 0,1; do
    tag=$name-devices${devices/,/_}
    t0=$(now)
    timeout "$STEP_LIMIT_S" "$BUILD/occbench" run "configs/$name.json" --devices "$devices" --out "$WORK/scaling/$tag" > "$WORK/logs/$tag.log" 2>&1
    code=$?
    t1=$(now)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    echo "$name $devices $wall $code" >> "$WORK/logs/scaling_walls.txt"
    note "run $name --devices $devices: exit $code, wall $wall s ($(grep -E 'all devices: ' "$WORK/logs/$tag.log"))"
  done
  one=$(ls "$WORK/scaling/$name-devices0"/*.json) two=$(ls "$WORK/scaling/$name-devices0_1"/*.json)
  "$BUILD/occbench" compare "$one" "$two" > "$WORK/logs/compare_$name.log" 2>&1
  note "compare $name 1 GPU vs 2 GPUs: exit $? ($(grep -iE 'summary|faster|slower|unchanged' "$WORK/logs/compare_$name.log" | tail -3 | tr '\n' ' '))"
done

for config in configs/*.json; do
  name=$(basename "$config" .json)
  [ "$name" = schema ] || [ -n "${SKIP_REFERENCE:-}" ] && continue
  if [ $(( $(date +%s) - started )) -gt "$DEADLINE_S" ]; then note "run $config: left out (past ${DEADLINE_S} s)"; continue; fi
  "$BUILD/occbench" run "$config" --device 0 --out "$WORK/reference" > "$WORK/logs/run_$name.log" 2>&1
  note "run $config: exit $? ($(grep -E '^[0-9]+ ok, ' "$WORK/logs/run_$name.log"))"
done

# (d) searches shared by the two GPUs: LABEL=CONFIG:STRATEGY:POINTS:SEED each; the records slimmed to
# what scripts/studies/multi_gpu_table.py --searches reads (each point's GPU, status and median).
mkdir -p "$WORK/searches"
for search in $SEARCHES; do
  label=${search%%=*}
  IFS=: read -r config strategy points seed <<< "${search#*=}"
  t0=$(now)
  timeout "$STEP_LIMIT_S" "$BUILD/occbench" run "$config" --devices "$SEARCH_DEVICES" --strategy "$strategy" --max-points "$points" \
    --seed "$seed" --out "$WORK/searches/$label" > "$WORK/logs/search_$label.log" 2>&1
  code=$?
  wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}')
  echo "$label $wall $code" >> "$WORK/logs/search_walls.txt"
  record=$(ls "$WORK/searches/$label"/*.json 2>/dev/null | head -1)
  [ -n "$record" ] && python3 scripts/studies/slim_history.py "$WORK/searches/$label.tar.xz" "$record"
  note "search $label ($config, $strategy, $points points, seed $seed) on GPUs $SEARCH_DEVICES: exit $code, wall $wall s"
done

printf '%s\n' "${summary[@]}" > "$WORK/logs/summary.txt"
tar -C "$WORK" -czf "$OUT/device.tgz" .
echo
printf '%s\n' "${summary[@]}"
echo "elapsed $(( $(date +%s) - started )) s"
