#!/usr/bin/env bash
# There, on the GPU (issue 13's study): the occupancy GPU tests (forced blocks per SM against the
# occupancy API, the latency probe, every variant's verification incl. the __launch_bounds__ ones),
# then each configs/occupancy_*.json sweep, then `occbench report` of each. Logs and results go
# into one tarball, $OUT/occupancy.tgz; a summary is printed last.
#   BUILD_DIR=build-h100-bin bash scripts/studies/occupancy_study.sh configs/occupancy_*.json
set -uo pipefail
BUILD=${BUILD_DIR:-build-h100}
OUT=${OUT:-device-out}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/results" "$WORK/logs"
summary=()
note() { summary+=("$1"); echo "== $1"; }
pack() { tar -C "$WORK" -czf "$OUT/occupancy.tgz" .; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$WORK/logs/nvidia-smi.csv" 2>&1
filter=${GPU_FILTER:-GpuOccupancyLimit.*:GpuLatencyProbe.*:GpuHarness.Calculator*:GpuCovariance.EveryVariantEveryParameterFullMatrix:GpuMatmul.EveryVariantCorrectAtAwkwardSizes}
"$BUILD/tests/occbench_gpu_tests" --gtest_filter="$filter" > "$WORK/logs/gpu_tests.log" 2>&1
note "gpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$WORK/logs/gpu_tests.log" | tr '\n' ' '))"
pack

for config in "$@"; do
  name=$(basename "$config" .json)
  "$BUILD/occbench" run "$config" --out "$WORK/results" > "$WORK/logs/run_$name.log" 2>&1
  note "run $config: exit $? ($(grep -E '^[0-9]+ ok, ' "$WORK/logs/run_$name.log"))"
  for json in "$WORK"/results/"$name"-*.json; do
    [ -e "$json" ] && "$BUILD/occbench" report "$json" > "$WORK/logs/report_$name.md" 2>&1
  done
  pack  # what is done so far survives a timeout
done
printf '%s\n' "${summary[@]}" > "$WORK/logs/summary.txt"
pack
echo
printf '%s\n' "${summary[@]}"
