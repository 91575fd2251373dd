#!/usr/bin/env bash
# The measurements of results/reference/<gpu>/search.md (issue 27, items 5, 6 and 8), on the GPU
# machine, in the order a short device session can afford them:
#   bash scripts/search_study.sh OUT_DIR SPACE [BUILD_DIR]
# SPACE: syrk (examples/search/syrk, 2640 points) or convolution (examples/kernel_tuner/convolution,
# 2834 points). Each step's wall time goes to OUT_DIR/walls.tsv, its log beside it.
# 1. full:    plan (compiles every instantiation ahead, one process per core), then the whole space;
# 2. replay:  every strategy against the full record, 50 seeds (no GPU);
# 3. live:    the best strategies searching the GPU live with 5% of the points, seeds 1 and 2;
# 4. resume:  a live search killed with kill -9 after 20 points and resumed: the same next point.
set -euo pipefail
out=${1:?usage: search_study.sh OUT_DIR syrk|convolution [BUILD_DIR]}
space=${2:?usage: search_study.sh OUT_DIR syrk|convolution [BUILD_DIR]}
bin=${3:-build-h100-bin}/occbench
case $space in
  syrk) config=examples/search/syrk/syrk.json ;;
  convolution) config=examples/kernel_tuner/convolution/convolution.json ;;
  *) echo "search_study.sh: SPACE is syrk or convolution, not $space" >&2; exit 2 ;;
esac
mkdir -p "$out"
timed() {  # timed NAME ARGS...: occbench ARGS, its log in NAME.log, its wall milliseconds in walls.tsv
  local name=$1; shift
  local t0=$(date +%s%N)
  "$bin" "$@" > "$out/$name.log" 2>&1 || echo "$name: exit $?" >> "$out/failures.txt"
  echo -e "$name\t$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$out/walls.tsv"
}
points=$("$bin" validate "$config" | sed -n 's/.* \([0-9]*\) points$/\1/p')
budget=$(( (points * 5 + 99) / 100 ))
timed "$space-plan" plan "$config" --out "$out/plan"
timed "$space-full" run "$config" --out "$out/full"
full=$(ls "$out"/full/*.jsonl | head -1)
timed "$space-replay" replay "$full" --seeds 50 --strategy local,genetic,model,model_plan --out "$out/replay_$space.json"
for strategy in model local; do
  for seed in 1 2; do timed "$space-live-$strategy-$seed" run "$config" --strategy $strategy --max-points $budget --seed $seed --out "$out/live-$strategy-$seed"; done
done
# Killed with kill -9 after 20 points, then resumed.
"$bin" run "$config" --strategy model --max-points 40 --seed 3 --out "$out/resume" > "$out/resume-killed.log" 2>&1 &
pid=$!
jsonl=""
while kill -0 $pid 2>/dev/null; do
  jsonl=$(ls "$out"/resume/*.jsonl 2>/dev/null | head -1)
  if [ -n "$jsonl" ] && [ "$(wc -l < "$jsonl")" -gt 20 ]; then pkill -9 -P $pid || true; kill -9 $pid || true; break; fi
  sleep 0.2
done
wait $pid 2>/dev/null || true
cp "$jsonl" "$out/resume-killed.jsonl"
timed "$space-resume" run --resume "$jsonl"
echo "search_study: $out (walls.tsv, replay_$space.json, full/, live-*/, resume/)"
