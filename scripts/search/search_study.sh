#!/usr/bin/env bash
# The GPU measurements of results/reference/<gpu>/search.md (issue 27, items 5, 6 and 8), on the
# GPU machine, in the order a short device session can afford them:
#   DEVICES=0,1 bash scripts/search/search_study.sh OUT_DIR SPACE [BUILD_DIR]
# SPACE: syrk (examples/search/syrk, 2640 points) or convolution (examples/search/convolution,
# 3488 points). DEVICES (default 0): the GPUs of the full sweep and of the live searches, so their
# walls compare like with like. Each step's wall time goes to OUT_DIR/walls.tsv, its log beside it.
# 1. full:    plan (compiles every instantiation ahead, one process per core), then the whole space;
# 2. live:    the strategies searching the GPU live with 5% of the points, seeds 1 and 2 (NVRTC's
#             cache warm from step 1), and once more with a cold cache (the compiler's share;
#             COLD=0 leaves it out);
# 3. syrk:    cuBLAS SSYRK at the same size and the best point found, both with --counters (item 8);
# 4. resume:  a search on one GPU killed with kill -9 after 20 points and resumed, and the same
#             search uninterrupted: the same points in the same order.
# STEPS (default "full live syrk resume") picks steps.
# The replays need no GPU: occbench replay OUT_DIR/full/*.jsonl, here or anywhere.
set -euo pipefail
out=${1:?usage: search_study.sh OUT_DIR syrk|convolution [BUILD_DIR]}
space=${2:?usage: search_study.sh OUT_DIR syrk|convolution [BUILD_DIR]}
bin=${3:-build-h100-bin}/occbench
devices=${DEVICES:-0}
case $space in
  syrk) config=examples/search/syrk/syrk.json ;;
  convolution) config=examples/search/convolution/convolution.json ;;
  *) echo "search_study.sh: SPACE is syrk or convolution, not $space" >&2; exit 2 ;;
esac
on_devices=(--devices "$devices")
[[ $devices == *,* ]] || on_devices=(--device "$devices")
mkdir -p "$out"
timed() {  # timed NAME ARGS...: occbench ARGS, its log in NAME.log, its wall milliseconds in walls.tsv
  local name=$1; shift
  local t0=$(date +%s%N)
  "$bin" "$@" > "$out/$name.log" 2>&1 || echo "$name: exit $?" >> "$out/failures.txt"
  echo -e "$name\t$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$out/walls.tsv"
}
points=$("$bin" validate "$config" | sed -n 's/.* \([0-9]*\) points$/\1/p')
budget=$(( (points * 5 + 99) / 100 ))
steps=" ${STEPS:-full live syrk resume} "
want() { [[ $steps == *" $1 "* ]]; }
if want full; then
  timed "$space-plan" plan "$config" --out "$out/plan"
  timed "$space-full" run "$config" "${on_devices[@]}" --out "$out/full"
fi
want live && for strategy in model local; do
  for seed in 1 2; do
    timed "$space-live-$strategy-$seed" run "$config" "${on_devices[@]}" --strategy $strategy --max-points $budget --seed $seed --out "$out/live-$strategy-$seed"
  done
done
! want live || [ "${COLD:-1}" = 0 ] || OCCBENCH_CACHE_DIR=$(mktemp -d) timed "$space-live-model-1-cold" run "$config" "${on_devices[@]}" --strategy model --max-points $budget --seed 1 --out "$out/live-model-1-cold"

if [ "$space" = syrk ] && want syrk; then
  full=$(ls "$out"/full/*.jsonl | head -1)
  "$bin" best "$full" --out "$out/best" > "$out/best.log" 2>&1 || true
  best=$(python3 -c 'import json,sys; print([b["point_id"] for b in json.load(open(sys.argv[1]))["best"] if b["variant"] == "register_tiled"][0])' "$out/best.json" 2>/dev/null || true)
  timed "$space-cublas" run configs/covariance_chunk_sweep.json --variants cublas_syrk --counters --out "$out/cublas"
  [ -n "$best" ] && timed "$space-best-counters" run "$config" --filter "^${best//+/\\+}\$" --counters --out "$out/best-counters"
fi

# Killed with kill -9 after 20 points, then resumed; and the same search uninterrupted.
want resume || exit 0
"$bin" run "$config" --strategy model --max-points 40 --seed 3 --out "$out/resume" > "$out/resume-killed.log" 2>&1 &
pid=$!
jsonl=""
while kill -0 $pid 2>/dev/null; do
  jsonl=$(ls "$out"/resume/*.jsonl 2>/dev/null | head -1 || true)
  if [ -n "$jsonl" ] && [ "$(wc -l < "$jsonl")" -gt 20 ]; then pkill -9 -P $pid || true; kill -9 $pid || true; break; fi
  sleep 0.2
done
wait $pid 2>/dev/null || true
[ -n "$jsonl" ] && cp "$jsonl" "$out/resume-killed.jsonl" || echo "resume: no .jsonl to kill" >> "$out/failures.txt"
timed "$space-resume" run --resume "$jsonl"
timed "$space-uninterrupted" run "$config" --strategy model --max-points 40 --seed 3 --out "$out/uninterrupted"
echo "search_study: $out (walls.tsv, full/, live-*/, resume/, uninterrupted/)"
