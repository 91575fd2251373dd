#!/usr/bin/env bash
# There, on the GPU (the device call runs it from the repository root with the binaries carried):
#   BUILD_DIR=build-h100-bin STAGES="tests agreement cost cupti" bash scripts/device/counters_device.sh
# The hardware-counter checks (issue 11), everything in one tarball $OUT/counters.tgz:
#   tests      the counters' GPU tests (physical facts) and CPU tests
#   agreement  scripts/ncu/ncu_counters_agreement.py over AGREEMENT_CONFIGS (default: every shipped config)
#   cost       each of COST_CONFIGS run without, then with --counters: wall times and their ratio
#              (the --counters records are the studies' counter results)
#   cupti      CUPTI_CONFIG with --counters twice, event-pair timing and OCCBENCH_TIMING_SOURCE=cupti
#              (activity tracing): both must count, with equal exact counts (scripts/studies/compare_counters.py)
set -uo pipefail
BUILD=${BUILD_DIR:-build-h100-bin}
OUT=${OUT:-device-out}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/logs" "$WORK/cost"
STAGES=${STAGES:-tests agreement cost cupti}
summary() { echo "== $*" | tee -a "$WORK/logs/summary.txt"; }
pack() { tar -C "$WORK" -czf "$OUT/counters.tgz" .; }
trap pack EXIT

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$WORK/logs/nvidia-smi.csv" 2>&1
(ncu --version || echo "no ncu") > "$WORK/logs/ncu_version.txt" 2>&1

for stage in $STAGES; do
  case $stage in
    tests)
      "$BUILD/tests/occbench_gpu_tests" --gtest_filter="${GPU_FILTER:-GpuCounters.*:GpuHarness.*}" > "$WORK/logs/gpu_tests.log" 2>&1
      summary "gpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$WORK/logs/gpu_tests.log" | tr '\n' ' '))"
      "$BUILD/tests/occbench_cpu_tests" > "$WORK/logs/cpu_tests.log" 2>&1
      summary "cpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED) ' "$WORK/logs/cpu_tests.log" | tr '\n' ' '))"
      ;;
    agreement)
      configs=${AGREEMENT_CONFIGS:-$(ls configs/*.json | grep -v schema.json)}
      # shellcheck disable=SC2086
      python3 scripts/ncu/ncu_counters_agreement.py --occbench "$BUILD/occbench" --out "$WORK/agreement" $configs \
        > "$WORK/logs/agreement.log" 2>&1
      summary "agreement: exit $? ($(grep -E 'points compared' "$WORK/logs/agreement.log"))"
      ;;
    cost)
      for config in ${COST_CONFIGS:-configs/covariance_chunk_sweep.json configs/adjacent_difference.json configs/transpose.json configs/stencil.json configs/cost_volume.json}; do
        name=$(basename "$config" .json)
        # with: the default (profiler enabled once for the run); with_point: OCCBENCH_COUNTERS_ENABLE=point;
        # with_config_run: also configured once for the run (OCCBENCH_COUNTERS_CONFIG=run)
        for mode in ${COST_MODES:-without with with_config_run}; do
          flag=""; [ "$mode" != without ] && flag="--counters"
          enable=run; [ "$mode" = with_point ] && enable=point
          configure=point; [ "$mode" = with_config_run ] && configure=run
          start=$(date +%s.%N)
          OCCBENCH_COUNTERS_ENABLE=$enable OCCBENCH_COUNTERS_CONFIG=$configure \
            "$BUILD/occbench" run "$config" $flag --out "$WORK/cost/$mode" \
            > "$WORK/logs/run_${name}_$mode.log" 2>&1
          code=$?
          end=$(date +%s.%N)
          echo "$name $mode exit=$code process_wall_s=$(python3 -c "print(round($end - $start, 3))")" >> "$WORK/logs/cost.txt"
        done
        summary "cost $name: $(grep "^$name " "$WORK/logs/cost.txt" | tr '\n' ' ')"
      done
      ;;
    cupti)
      config=${CUPTI_CONFIG:-configs/transpose.json}
      name=$(basename "$config" .json)
      for source in event cupti; do
        OCCBENCH_TIMING_SOURCE=$source "$BUILD/occbench" run "$config" --counters --out "$WORK/cupti/$source" \
          > "$WORK/logs/cupti_${name}_$source.log" 2>&1
        summary "cupti $name timing source $source: exit $?"
      done
      # shellcheck disable=SC2012
      python3 scripts/studies/compare_counters.py "$(ls -t "$WORK"/cupti/event/*.json | head -1)" \
        "$(ls -t "$WORK"/cupti/cupti/*.json | head -1)" \
        > "$WORK/logs/cupti_compare.txt" 2>&1
      summary "cupti compare: exit $? ($(tail -1 "$WORK/logs/cupti_compare.txt"))"
      ;;
    *) summary "unknown stage $stage" ;;
  esac
done
