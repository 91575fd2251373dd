#!/usr/bin/env bash
# On the device machine: live 120-point searches of examples/search/convolution (Kernel Tuner's
# convolution kernel, 7x7 filter, 3488 points), each from an empty NVRTC cache: a local search one
# point at a time (OCCBENCH_SEARCH_BATCH=1, as before batches) and in batches (the default: as many
# as the compilers: the workers and the measuring process), a random sample, on every core and on two (taskset -c 0,1). Writes each
# run's log (its time line) and results under $OUT, and walls.txt.
#   OUT=DIR bash scripts/search_batch_study.sh            # BIN: the occbench binary (build-h100-bin/occbench)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-build-h100-bin/occbench}
config=examples/search/convolution/convolution.json
out=${OUT:-results/search_batch}
mkdir -p "$out"
seeds=${SEEDS:-1}

# run NAME CPUS BATCH ARGS...: one search from an empty cache (CPUS: taskset's list, or all).
run() {
  local name=$1 cpus=$2 batch=$3
  shift 3
  local cache start prefix=()
  cache=$(mktemp -d)
  if [ "$cpus" != all ]; then prefix=(taskset -c "$cpus" env OCCBENCH_COMPILE_PROCESSES=2); fi
  start=$(date +%s%N)
  env OCCBENCH_CACHE_DIR="$cache" CUDA_CACHE_DISABLE=1 ${batch:+OCCBENCH_SEARCH_BATCH=$batch} \
    "${prefix[@]}" "$bin" run "$config" --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  echo "$name rc=$? wall_s=$(( ($(date +%s%N) - start) / 1000000 ))e-3" | tee -a "$out/walls.txt"
  rm -rf "$cache"
}

for seed in $seeds; do
  run "local-one-s$seed" all 1 --strategy local --max-points 120 --seed "$seed"
  run "local-batch-s$seed" all "" --strategy local --max-points 120 --seed "$seed"
done
run random-all all "" --strategy random --max-points 120 --seed 1
if [ "${TWO_CORES:-1}" = 1 ]; then
  run local-one-2cores 0,1 1 --strategy local --max-points 120 --seed 1
  run local-batch-2cores 0,1 "" --strategy local --max-points 120 --seed 1
fi
for log in "$out"/*.log; do echo "== $(basename "$log")"; grep -E "timed samples|waiting for the compiler|^[0-9]+ ok, " "$log" | tail -3; done
