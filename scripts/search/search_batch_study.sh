#!/usr/bin/env bash
# On the device machine: live searches of POINTS (default 120) points of examples/search/convolution
# (Kernel Tuner's convolution kernel, 7x7 filter, 3488 points), each from an empty NVRTC cache, and at the end
# the best point of every search timed again in one process (scripts/search/search_bests.py). PARTS
# (default: all of them) picks:
#   before     a local search one point at a time by BIN_BEFORE (the code before batches), SEEDS
#   batches    a local search in batches (as many as the compilers: the workers and the measuring process), SEEDS
#   random     a random sample of POINTS, RANDOM_SEEDS
#   strategies each of STRATEGIES (default: model genetic) in batches, SEEDS
#   two_cores  on two cores (taskset -c 0,1): one at a time by BIN_BEFORE, in batches by BIN
#   pairs      per seed of SEEDS, one after the other: the compile probe, before, batches, random
#              (the machine's compile speed varies by 2x within a call: pairs see the same)
#   kernel_tuner  Kernel Tuner's KT_STRATEGIES, 120 configurations each (scripts/kernel_tuner/kt_convolution_search.py;
#              KT_SITE: where kernel_tuner is installed), one after another
#   ab_batches per seed of SEEDS, one after the other: BIN_BEFORE's batches and BIN's (a change to a strategy)
#   ab_random  per seed of RANDOM_SEEDS, one after the other: BIN_BEFORE's random sample and BIN's
#   ab_two_cores  per seed of SEEDS, as ab_batches on two cores (taskset -c 0,1)
#   bests      every run's best point (Kernel Tuner's too), timed again together by BIN, with the
#              point BESTS_EXTRA names (an id: the space's optimum, say)
#   contention one 8 x 8-tile kernel compiled by 1, 8 and 16 processes at once (each its own
#              cache): how much slower a compilation is beside others (walls_contention.txt)
#   ab_compiler per seed of SEEDS, one after the other: the local search in batches with NVRTC
#              (batch-s*), then with nvcc (nvcc-batch-s*: the config with "compiler": "nvcc");
#              with bests, every best is also timed as nvcc builds it (bests_nvcc.md)
#   ab_compiler_random  per seed of RANDOM_SEEDS, the random sample of POINTS with NVRTC, then with nvcc
#   ab_compiler_two_cores  per seed of SEEDS, ab_compiler on two cores (taskset -c 0,1)
# Writes each run's log (its time line) and results under $OUT, and walls.txt.
#   OUT=DIR BIN_BEFORE=old/occbench SEEDS="1 2 3 4 5" bash scripts/search/search_batch_study.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${BIN:-build-h100-bin/occbench}
bin_before=${BIN_BEFORE:-$bin}
config=examples/search/convolution/convolution.json
out=${OUT:-results/search_batch}
mkdir -p "$out"
seeds=${SEEDS:-1}
points=${POINTS:-120}
parts=${PARTS:-before batches random two_cores bests}

# The config with "compile": {"compiler": "nvcc"}, beside the original (its source path holds).
config_nvcc=${config%.json}.nvcc.json
make_nvcc_config() {
  python3 - "$config" "$config_nvcc" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc.setdefault("compile", {})["compiler"] = "nvcc"
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
}

# run NAME BINARY CPUS BATCH ARGS...: one search from an empty cache (CPUS: taskset's list, or
# all), of RUN_CONFIG (default: the config).
run() {
  local name=$1 binary=$2 cpus=$3 batch=$4
  shift 4
  local cache start prefix=()
  cache=$(mktemp -d)
  if [ "$cpus" != all ]; then prefix=(taskset -c "$cpus" env OCCBENCH_COMPILE_PROCESSES=2); fi
  start=$(date +%s%N)
  env OCCBENCH_CACHE_DIR="$cache" CUDA_CACHE_DISABLE=1 ${batch:+OCCBENCH_SEARCH_BATCH=$batch} \
    "${prefix[@]}" "$binary" run "${RUN_CONFIG:-$config}" --out "$out/$name" "$@" > "$out/$name.log" 2>&1
  echo "$name rc=$? wall_s=$(( ($(date +%s%N) - start) / 1000000 ))e-3" | tee -a "$out/walls.txt"
  compile_times "$name" "$cache" "$start" "$out/timeline_$name.json" >> "$out/walls_compile.txt"
  rm -rf "$cache"
}

# compile_times NAME CACHE START_NS TIMELINE: NVRTC's seconds for the kernels the run compiled
# (its cache entries keep them): their sum, the slowest, and how many; and into TIMELINE each
# kernel's end (its entry's time) and start (less its NVRTC time), in seconds from the run's start.
compile_times() {
  python3 - "$@" <<'PY'
import glob, json, os, sys
name, cache, start_ns, timeline = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
kernels = []
for path in glob.glob(cache + "/*.json"):
    try:
        s = json.load(open(path)).get("compile_ms", 0) / 1e3
        end = os.stat(path).st_mtime_ns / 1e9 - start_ns / 1e9
        kernels.append({"key": os.path.basename(path)[:-5], "start_s": round(end - s, 3), "end_s": round(end, 3), "compile_s": round(s, 3)})
    except (OSError, ValueError):
        pass
kernels.sort(key=lambda k: k["start_s"])
json.dump(kernels, open(timeline, "w"), indent=0)
ms = [k["compile_s"] for k in kernels]
print(f"{name} kernels={len(ms)} compile_s_sum={sum(ms):.1f} compile_s_max={max(ms, default=0):.1f}")
PY
}

# probe NAME: the machine's compile speed now: 64 fixed points of the space compiled by plan's
# workers (one per core) from an empty cache; the wall goes to walls_probe.txt.
probe() {
  local cache start
  cache=$(mktemp -d)
  start=$(date +%s%N)
  OCCBENCH_CACHE_DIR="$cache" CUDA_CACHE_DISABLE=1 "$bin" plan "$config" --gpu h100 --out "$cache/plan" \
    --set block_size_x=32,64 block_size_y=2,4 tile_size_x=2,4 tile_size_y=2,4 > /dev/null 2>&1
  echo "$1 compile_64_s=$(( ($(date +%s%N) - start) / 1000000 ))e-3" | tee -a "$out/walls_probe.txt"
  rm -rf "$cache"
}

# contention N: N processes compile the same 8 x 8-tile kernel at once, each into its own empty
# cache; each one's NVRTC seconds go to walls_contention.txt.
contention() {
  local dirs=() i
  for ((i = 0; i < $1; i++)); do dirs+=("$(mktemp -d)"); done
  for dir in "${dirs[@]}"; do
    OCCBENCH_CACHE_DIR="$dir" OCCBENCH_COMPILE_PROCESSES=1 CUDA_CACHE_DISABLE=1 "$bin" plan "$config" --gpu h100 --out "$dir/plan" \
      --set block_size_x=32 block_size_y=2 tile_size_x=8 tile_size_y=8 use_padding=0 read_only=0 > /dev/null 2>&1 &
  done
  wait
  python3 - "$1" "${dirs[@]}" <<'PY' | tee -a "$out/walls_contention.txt"
import glob, json, sys
# each cache also holds the reference variant's kernel (a fraction of a second): the tiled one is its slowest
s = sorted(max(json.load(open(p))["compile_ms"] / 1e3 for p in glob.glob(d + "/*.json")) for d in sys.argv[2:])
print(f"at_once={sys.argv[1]} kernels={len(s)} compile_s_min={s[0]:.2f} median={s[len(s) // 2]:.2f} max={s[-1]:.2f}")
PY
  rm -rf "${dirs[@]}"
}

wants() { [[ " $parts " == *" $1 "* ]]; }
if wants contention; then
  lscpu > "$out/lscpu.txt" 2>&1
  for n in 1 8 16 1; do contention "$n"; done
fi
if wants pairs; then
  for seed in $seeds; do
    probe "probe-s$seed"
    run "before-one-s$seed" "$bin_before" all 1 --strategy local --max-points "$points" --seed "$seed"
    run "local-batch-s$seed" "$bin" all "" --strategy local --max-points "$points" --seed "$seed"
    run "random-s$seed" "$bin" all "" --strategy random --max-points "$points" --seed "$seed"
  done
fi
if wants before; then
  for seed in $seeds; do run "before-one-s$seed" "$bin_before" all 1 --strategy local --max-points "$points" --seed "$seed"; done
fi
# ab_local SUFFIX CPUS: per seed of SEEDS, BIN_BEFORE's local search in batches, then BIN's.
ab_local() {
  for seed in $seeds; do
    run "before-batch$1-s$seed" "$bin_before" "$2" "" --strategy local --max-points "$points" --seed "$seed"
    run "local-batch$1-s$seed" "$bin" "$2" "" --strategy local --max-points "$points" --seed "$seed"
  done
}
if wants ab_batches; then ab_local "" all; fi
# ab_compiler NAME SEEDS CPUS ARGS...: per seed, NAME-s* with NVRTC, then nvcc-NAME-s* with nvcc.
ab_compiler() {
  local name=$1 seed_list=$2 cpus=$3
  shift 3
  make_nvcc_config
  for seed in $seed_list; do
    run "$name-s$seed" "$bin" "$cpus" "" "$@" --max-points "$points" --seed "$seed"
    RUN_CONFIG=$config_nvcc run "nvcc-$name-s$seed" "$bin" "$cpus" "" "$@" --max-points "$points" --seed "$seed"
  done
}
if wants ab_compiler; then ab_compiler batch "$seeds" all --strategy local; fi
if wants ab_compiler_random; then ab_compiler random "${RANDOM_SEEDS:-1}" all --strategy random; fi
if wants ab_compiler_two_cores; then ab_compiler batch-2cores "$seeds" 0,1 --strategy local; fi
if wants ab_two_cores; then ab_local -2cores 0,1; fi
if wants ab_random; then
  for seed in ${RANDOM_SEEDS:-1}; do
    run "before-random-s$seed" "$bin_before" all "" --strategy random --max-points "$points" --seed "$seed"
    run "random-s$seed" "$bin" all "" --strategy random --max-points "$points" --seed "$seed"
  done
fi
if wants batches; then
  for seed in $seeds; do run "local-batch-s$seed" "$bin" all "" --strategy local --max-points "$points" --seed "$seed"; done
fi
if wants strategies; then
  for strategy in ${STRATEGIES:-model genetic}; do
    for seed in $seeds; do run "$strategy-batch-s$seed" "$bin" all "" --strategy "$strategy" --max-points "$points" --seed "$seed"; done
  done
fi
if wants random; then
  for seed in ${RANDOM_SEEDS:-1}; do run "random-s$seed" "$bin" all "" --strategy random --max-points "$points" --seed "$seed"; done
fi
if wants two_cores; then
  run before-one-2cores "$bin_before" 0,1 1 --strategy local --max-points "$points" --seed 1
  run local-batch-2cores "$bin" 0,1 "" --strategy local --max-points "$points" --seed 1
fi
if wants kernel_tuner; then
  for strategy in ${KT_STRATEGIES:-greedy_ils random_sample}; do
    PYTHONPATH=${KT_SITE:-} python3 scripts/kernel_tuner/kt_convolution_search.py "$strategy" > "$out/kt-$strategy.json" 2> "$out/kt-$strategy.log"
    echo "kt-$strategy rc=$? $(python3 -c 'import json,sys; print("wall_s=%s" % json.load(open(sys.argv[1]))["wall_s"])' "$out/kt-$strategy.json")" \
      | tee -a "$out/walls_kernel_tuner.txt"
  done
fi
if wants bests; then  # one process times every search's best point: their times compare without run-to-run noise
  filter=$(python3 scripts/search/search_bests.py ids "$out")
  if [ -n "${BESTS_EXTRA:-}" ]; then filter="^(${BESTS_EXTRA}|${filter#^(}"; fi
  "$bin" run "$config" --filter "$filter" --out "$out/bests" > "$out/bests.log" 2>&1
  python3 scripts/search/search_bests.py table "$out" | tee "$out/bests.md"
  if compgen -G "$out/nvcc-*" > /dev/null; then  # searches built by nvcc: their bests as nvcc builds them too
    make_nvcc_config
    "$bin" run "$config_nvcc" --filter "$filter" --out "$out/bests_nvcc" > "$out/bests_nvcc.log" 2>&1
    python3 scripts/search/search_bests.py table "$out" bests_nvcc | tee "$out/bests_nvcc.md"
  fi
fi
rm -f "$config_nvcc"
for log in "$out"/*.log; do echo "== $(basename "$log")"; grep -E "timed samples|waiting for the compiler|^[0-9]+ ok, " "$log" | tail -3; done
