#!/usr/bin/env bash
# The GPU measurements of issue 29 (kernels written for other tuners), on the GPU machine:
#   bash scripts/studies/tuner_kernels_study.sh OUT_DIR [BUILD_DIR]
# 1. faults (item 3): examples/broken/mostly_faults.json (12 of 18 points fail: 6 write 4 GiB past
#    their output, 6 trap) three times as shipped (the writes caught in the guard zones, the traps
#    losing the context) and once with "guard_zone_gib": 0 (all 12 lose the context), each traced
#    (OCCBENCH_SUPERVISOR_TRACE=1: where each fault's time went), its correct points alone
#    (--variants copy), and examples/broken/one_thread_faults.json (the same copy points, 12 one-
#    thread writes far out of bounds) with and without zones. STEPS="faults" runs this part alone.
# 2. compile ahead (item 2): Kernel Tuner's matmul (examples/kernel_tuner/matmul) at n = 1024, 231
#    instantiations, each run with a cold NVRTC cache: OCCBENCH_COMPILE_AHEAD=0 (before) and the
#    default (after), on every core and on two (taskset -c 0,1 and OCCBENCH_COMPILE_PROCESSES=2, a
#    2-core machine with this GPU); plan of the same sweep, one process and every core; and the
#    17 x 17 Kernel Tuner convolution on a random sample of 200 points (its workers compile the
#    sample). The records' compile blocks say how long the measuring process compiled and waited.
# Each step's wall milliseconds go to OUT_DIR/walls.tsv, its log beside it; the tables:
# python3 scripts/studies/tuner_kernels_summary.py OUT_DIR.
set -uo pipefail
out=${1:?usage: tuner_kernels_study.sh OUT_DIR [BUILD_DIR]}
bin=$(realpath "${2:-build-h100-bin}")/occbench
mkdir -p "$out"
timed() {  # timed NAME [ENV=V...] [taskset ...] occbench ARGS...: the wall in walls.tsv, the log in NAME.log
  local name=$1; shift
  local t0=$(date +%s%N)
  env "$@" > "$out/$name.log" 2>&1
  local code=$?
  echo -e "$name\t$(( ($(date +%s%N) - t0) / 1000000 ))\texit $code" >> "$out/walls.tsv"
}
matmul=(examples/kernel_tuner/matmul/matmul.json --set n=1024)
cold() { echo "OCCBENCH_CACHE_DIR=$(mktemp -d)"; }
# A copy of a config without guard zones (its source named by absolute path).
nozones() {
  mkdir -p "$out/configs"
  python3 -c 'import json, os, sys; d = json.load(open(sys.argv[1])); d["source"] = os.path.abspath(os.path.join(os.path.dirname(sys.argv[1]), d["source"])); d["guard_zone_gib"] = 0; json.dump(d, open(sys.argv[2], "w"), indent=1)' "$1" "$out/configs/$2"
  echo "$out/configs/$2"
}
faults=examples/broken/mostly_faults.json
onethread=examples/broken/one_thread_faults.json
for i in 1 2 3; do timed faults-zones-$i OCCBENCH_SUPERVISOR_TRACE=1 "$bin" run $faults --out "$out/faults-zones-$i"; done
timed faults-nozones-1 OCCBENCH_SUPERVISOR_TRACE=1 "$bin" run "$(nozones $faults mostly_faults_nozones.json)" --out "$out/faults-nozones-1"
timed faults-correct "$bin" run $faults --variants copy --out "$out/faults-correct"
timed faults-onethread-zones-1 OCCBENCH_SUPERVISOR_TRACE=1 "$bin" run $onethread --out "$out/faults-onethread-zones-1"
timed faults-onethread-nozones-1 OCCBENCH_SUPERVISOR_TRACE=1 "$bin" run "$(nozones $onethread one_thread_faults_nozones.json)" --out "$out/faults-onethread-nozones-1"
[ "${STEPS:-all}" = faults ] && exit 0
timed matmul-before "$(cold)" OCCBENCH_COMPILE_AHEAD=0 "$bin" run "${matmul[@]}" --out "$out/matmul-before"
timed matmul-after "$(cold)" "$bin" run "${matmul[@]}" --out "$out/matmul-after"
timed matmul-2core-after "$(cold)" OCCBENCH_COMPILE_PROCESSES=2 taskset -c 0,1 "$bin" run "${matmul[@]}" --out "$out/matmul-2core-after"
timed matmul-2core-before "$(cold)" OCCBENCH_COMPILE_AHEAD=0 OCCBENCH_COMPILE_PROCESSES=2 taskset -c 0,1 "$bin" run "${matmul[@]}" --out "$out/matmul-2core-before"
timed plan-1process "$(cold)" OCCBENCH_COMPILE_PROCESSES=1 "$bin" plan "${matmul[@]}" --out "$out/plan-1process"
timed plan-all "$(cold)" "$bin" plan "${matmul[@]}" --out "$out/plan-all"
timed kt-conv17 "$(cold)" "$bin" run examples/kernel_tuner/convolution/convolution.json --strategy random --max-points 200 --seed 1 --out "$out/kt-conv17"
nproc > "$out/nproc.txt"

echo "tuner_kernels_study: $out (walls.tsv, matmul-*/, plan-*/, faults-*/, kt-conv17/)"
