#!/usr/bin/env bash
# Fuzzes every reader of user input (tests/fuzz: configs, expressions, flags, .npy files, results
# documents, .jsonl logs) with libFuzzer: builds build-fuzz/ with Clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, makes each target's seed corpus from the shipped configs, examples and
# recorded results (and the inputs kept in tests/fuzz/regressions/), and runs the targets in turn,
# seeded, so that a run repeats. No GPU needed.
#   bash scripts/fuzz/fuzz.sh                        # CI: RUNS=1500 inputs per target, a few minutes
#   RUNS=20000 bash scripts/fuzz/fuzz.sh             # a long run (100,000+ inputs; docs/fuzzing.md)
#   TARGETS="config jsonl" SEED=7 bash scripts/fuzz/fuzz.sh
#   SEEDS="$(seq -s' ' 1 16)" JOBS=96 RUNS=1100 bash scripts/fuzz/fuzz.sh   # many seeds a target, in parallel
#   KEEP_CORPUS=1 SKIP_BUILD=1 ... bash scripts/fuzz/fuzz.sh               # on from build-fuzz/corpus and tally/
#   MAX_TIME=480 RUNS=1000000 ... bash scripts/fuzz/fuzz.sh                 # each run stops after 480 s
# A broken promise stops its target and saves the input in build-fuzz/findings/<target>/: keep it in
# tests/fuzz/regressions/<target>/ under a name that says what it is, fix the cause, commit both
# (every build replays the kept inputs: ctest -R fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=$(realpath -m "${FUZZ_BUILD_DIR:-build-fuzz}")  # absolute: the target works in a scratch folder of its own
RUNS=${RUNS:-1500}
SEED=${SEED:-1}
SEEDS=${SEEDS:-$SEED}  # each target runs once per seed; JOBS of those runs at a time
JOBS=${JOBS:-1}
TARGETS=${TARGETS:-config expression flags npy results jsonl}
export PATH="$PATH:/usr/local/cuda/bin"

if [ -z "${SKIP_BUILD:-}" ] && ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz.sh: clang++ not found: sudo apt-get install clang libclang-rt-dev (scripts/install-deps.sh --test)" >&2
  exit 1
fi

sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link -fno-omit-frame-pointer"
args=(-S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++
      "-DCMAKE_CXX_FLAGS=$sanitizers" "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined -Wl,--as-needed"
      -DCMAKE_CUDA_ARCHITECTURES=90 -DOCCBENCH_FUZZ=ON -DOCCBENCH_BUILD_GBENCH=OFF -DOCCBENCH_BUILD_TESTS=ON)
if command -v ccache >/dev/null 2>&1; then
  args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  # A fresh clone elsewhere (CI's) hits the cache too: paths relative to the tree, the folder of
  # a -g compilation not hashed.
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true
fi
if [ -z "${SKIP_BUILD:-}" ]; then  # SKIP_BUILD=1: a second run beside one that built it
  cmake "${args[@]}" >/dev/null
  cmake --build "$BUILD_DIR" --parallel "$(nproc)" --target occbench_fuzz
fi

# The CUDA runtime maps memory where AddressSanitizer keeps its shadow gap; its allocations at
# start-up are never freed (not leaks of ours).
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Seeds: what users give occbench, as shipped.
seed_corpus() {
  local target=$1 dir=$2
  rm -rf "$dir" && mkdir -p "$dir"
  case $target in
    config) find configs examples -name '*.json' ! -name schema.json -exec cp {} "$dir/" \; ;;
    *) python3 scripts/fuzz/fuzz_seeds.py "$target" "$dir" ;;
  esac
  if [ -d "tests/fuzz/regressions/$target" ]; then cp tests/fuzz/regressions/"$target"/* "$dir/"; fi
}

# One target's run with one seed; its tally in tally/TARGET.SEED.json (fuzz_tally_table.py adds them).
fuzz_one() {
  local target=$1 seed=$2 log="$BUILD_DIR/logs/$1.$2.log"
  local corpus="$BUILD_DIR/corpus/$target" findings="$BUILD_DIR/findings/$target"
  if ! OCCBENCH_FUZZ_TARGET=$target OCCBENCH_FUZZ_TALLY="$BUILD_DIR/tally/$target.$seed.json" \
       "$BUILD_DIR/tests/fuzz/occbench_fuzz" "$corpus" -runs="$RUNS" -seed="$seed" -timeout=30 -max_len=65536 \
       -rss_limit_mb=4096 -malloc_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$findings/" \
       -dict="$PWD/tests/fuzz/occbench.dict" ${MAX_TIME:+-max_total_time=$MAX_TIME} 2>"$log"; then
    echo "fuzz.sh: target $target (seed $seed) broke a promise; the input is in $findings/:" >&2
    grep -A30 "occ-fuzz: a promise broke\|ERROR: \(Address\|libFuzzer\)\|runtime error" "$log" | head -60 >&2 || tail -40 "$log" >&2
    return 1
  fi
  [ "$JOBS" -gt 1 ] || grep -A12 "^occ-fuzz: target" "$log" || true
}

[ -n "${KEEP_CORPUS:-}" ] || rm -rf "$BUILD_DIR/tally" "$BUILD_DIR/logs"
mkdir -p "$BUILD_DIR/tally" "$BUILD_DIR/logs"
for target in $TARGETS; do
  # KEEP_CORPUS=1: go on from the corpus an earlier run grew (or one carried to another machine).
  [ -n "${KEEP_CORPUS:-}" ] || seed_corpus "$target" "$BUILD_DIR/corpus/$target"
  mkdir -p "$BUILD_DIR/findings/$target"
done
status=0 running=0
for target in $TARGETS; do
  for seed in $SEEDS; do
    echo "fuzz.sh: target $target: $RUNS inputs, seed $seed"
    if [ "$JOBS" -le 1 ]; then fuzz_one "$target" "$seed" || status=1; continue; fi
    fuzz_one "$target" "$seed" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then wait -n || status=1; running=$((running - 1)); fi
  done
done
while [ "$running" -gt 0 ]; do wait -n || status=1; running=$((running - 1)); done
exit $status
