#!/usr/bin/env bash
# User kernels (source-defined families) on the GPU, in one call. Run from a folder holding
# $BIN (occbench, tests/, libmuparser beside them), examples/ and configs/:
#   BIN=build-h100-bin bash scripts/device/own_kernel_device.sh
#   SECTIONS="broken memcheck" BIN=... bash scripts/device/own_kernel_device.sh   # some parts only
# 1. GPU tests; 2. compute-sanitizer memcheck over a small run of each user example;
# 3. the equivalence check: the built-in adjacent_difference family and the same kernels as a user
#    source, then occbench compare; 4. the deliberately broken kernels (examples/broken/), each under
#    a time limit; 5. NVRTC compile time of 10 instantiations, cold cache vs warm (occbench plan).
# Everything goes into one tarball under $OUT; a summary is printed last.
set -uo pipefail
BIN=${BIN:-build-h100-bin}
OUT=${OUT:-device-out}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/results" "$WORK/logs"
export OCCBENCH_CACHE_DIR="$WORK/nvrtc-cache"
# NVRTC (libnvrtc.so.13) comes from the machine's CUDA toolkit; libmuparser is carried beside the binaries.
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# SECTIONS picks parts (default all): tests memcheck equivalence studies broken compile gbench
SECTIONS=${SECTIONS:-tests memcheck equivalence studies broken compile gbench}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
summary=()
note() { summary+=("$1"); echo "== $1"; }
occbench="$BIN/occbench"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$WORK/logs/nvidia-smi.csv" 2>&1

if want tests && [ -x "$BIN/tests/occbench_gpu_tests" ]; then
  "$BIN/tests/occbench_gpu_tests" > "$WORK/logs/gpu_tests.log" 2>&1
  note "gpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$WORK/logs/gpu_tests.log" | tr '\n' ' '))"
fi

# A small copy of a config (its sizes replaced), written beside it so its relative paths hold.
small_config() {  # config sizes_json -> path
  python3 - "$1" "$2" <<'PY'
import json, sys, os
path, sizes = sys.argv[1], json.loads(sys.argv[2])
d = json.load(open(path))
d["sizes"] = {k: [sizes[k]] for k in d["sizes"]}
d["name"] = d.get("name", "x") + "_small"
d["measurement"] = {"min_samples": 3, "max_samples": 5, "timeout_s": 0.2, "warmup_runs": 0}
out = os.path.join(os.path.dirname(path), "small_" + os.path.basename(path))
json.dump(d, open(out, "w"), indent=1)
print(out)
PY
}

want memcheck && for config in examples/adjacent_difference/adjacent_difference.json examples/covariance/covariance.json \
    examples/compile_benchmark/compile_benchmark.json examples/reduction/reduction.json examples/histogram/histogram.json \
    examples/histogram/histogram_skewed.json ${EXTRA_EXAMPLES:-}; do
  sizes='{"n": 1000003}'
  case "$config" in *covariance*) sizes='{"m": 1001, "n": 257}' ;; esac
  small=$(small_config "$config" "$sizes")
  name=$(basename "$config" .json)
  compute-sanitizer --tool memcheck --error-exitcode 99 "$occbench" run "$small" --no-supervisor --out "$WORK/results/sanitizer" \
    > "$WORK/logs/memcheck_$name.log" 2>&1
  note "memcheck $name: exit $? ($(grep -E 'ERROR SUMMARY' "$WORK/logs/memcheck_$name.log" | tail -1)) $(grep -E '^[0-9]+ ok, ' "$WORK/logs/memcheck_$name.log")"
done

# Equivalence: the built-in family and the same kernels as a user source, with the same point ids
# (same family name), built-in first: occbench compare, and resources point by point.
equivalence() {  # label builtin_config user_config
  local label=$1 base user
  "$occbench" run "$2" --out "$WORK/results/equivalence" > "$WORK/logs/run_builtin_$label.log" 2>&1
  note "run built-in $label: exit $? ($(grep -E '^[0-9]+ ok, ' "$WORK/logs/run_builtin_$label.log"))"
  "$occbench" run "$3" --out "$WORK/results/equivalence" > "$WORK/logs/run_user_$label.log" 2>&1
  note "run user $label: exit $? ($(grep -E '^[0-9]+ ok, ' "$WORK/logs/run_user_$label.log"))"
  base=$(ls "$WORK"/results/equivalence/builtin_"$label"-*.json 2>/dev/null | head -1)
  user=$(ls "$WORK"/results/equivalence/user_"$label"-*.json 2>/dev/null | head -1)
  [ -n "$base" ] && [ -n "$user" ] || return
  "$occbench" compare "$base" "$user" > "$WORK/logs/compare_$label.md" 2>&1
  note "compare built-in vs user $label: exit $? ($(grep -E '^Summary' "$WORK/logs/compare_$label.md" | tail -1))"
  python3 - "$base" "$user" > "$WORK/logs/resources_$label.txt" 2>&1 <<'PY'
import json, sys
b, u = (json.load(open(p))["results"] for p in sys.argv[1:3])
ub = {r["point_id"]: r for r in u}
same = 0
for r in b:
    o = ub.get(r["point_id"])
    if not o: print("missing in user run:", r["point_id"]); continue
    keys = [("resources", "registers_per_thread"), ("resources", "static_smem_bytes"), ("occupancy", "theoretical"), ("occupancy", "limiter")]
    diff = [(a, k, r[a][k], o[a][k]) for a, k in keys if (r.get(a) or {}).get(k) != (o.get(a) or {}).get(k)]
    if diff: print(r["point_id"], diff)
    else: same += 1
print(f"{same} of {len(b)} points: same registers, static shared memory, occupancy and limiter")
PY
  note "resources $label: $(tail -1 "$WORK/logs/resources_$label.txt")"
}
if want equivalence; then
  equivalence adjacent_difference examples/adjacent_difference/builtin_adjacent_difference.json \
    examples/adjacent_difference/adjacent_difference.json
  equivalence covariance examples/covariance/builtin_covariance.json examples/covariance/covariance.json
fi

# The two studies: each best variant's bandwidth as a fraction of the measured copy bandwidth.
want studies && for config in examples/reduction/reduction.json examples/histogram/histogram.json \
    examples/histogram/histogram_skewed.json; do
  name=$(basename "$config" .json)
  "$occbench" run "$config" --out "$WORK/results/studies" > "$WORK/logs/run_$name.log" 2>&1
  note "run $name: exit $? ($(grep -E '^[0-9]+ ok, ' "$WORK/logs/run_$name.log"))"
  result=$(ls "$WORK"/results/studies/"$name"-*.json 2>/dev/null | grep -v plan | head -1)
  [ -n "$result" ] && python3 - "$result" > "$WORK/logs/best_$name.md" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
copy = d["device"].get("measured_bandwidth_gbps")
print(f"# {d['config'].get('name')}: best point per variant and size (copy bandwidth {copy:.0f} GB/s)\n")
print("| n | variant | params | median | GB/s | of copy | occupancy |")
print("|---:|---|---|---:|---:|---:|---:|")
best = {}
for r in d["results"]:
    if r.get("status") != "ok": continue
    key = (r["params"]["n"], r["variant"])
    if key not in best or r["timing"]["median_ms"] < best[key]["timing"]["median_ms"]: best[key] = r
for (n, v), r in sorted(best.items(), key=lambda kv: (kv[0][0], kv[1]["timing"]["median_ms"])):
    gbps = r["metrics"]["achieved_bandwidth_gbps"]
    params = " ".join(f"{k}={x}" for k, x in r["params"].items() if k != "n")
    print(f"| {n} | {v} | {params} | {r['timing']['median_ms']*1000:.1f} us | {gbps:.0f} | {gbps/copy:.1%} | {r['occupancy']['theoretical']:.2f} |")
PY
  note "best $name: $(sed -n 5p "$WORK/logs/best_$name.md" 2>/dev/null)"
done

# Broken kernels: each must fail with its reason and keep the other points; a hang must be stopped.
want broken && for config in examples/broken/*.json; do
  name=$(basename "$config" .json)
  case "$name" in small_*) continue ;; esac
  timeout "${BROKEN_TIMEOUT_S:-120}" "$occbench" run "$config" --out "$WORK/results/broken" --watchdog 15 \
    > "$WORK/logs/broken_$name.log" 2>&1
  code=$?
  note "broken $name: exit $code; $(grep -E '^[0-9]+ ok, ' "$WORK/logs/broken_$name.log")"
done

# NVRTC compile time: 10 instantiations, empty cache, then the same again (all hits).
if want compile; then
rm -rf "$OCCBENCH_CACHE_DIR"
start=$(date +%s.%N); "$occbench" plan examples/compile_benchmark/compile_benchmark.json --gpu h100 --out "$WORK/results/plan" \
  > "$WORK/logs/compile_cold.log" 2>&1; end=$(date +%s.%N)
cold=$(python3 -c "print(f'{$end - $start:.2f}')")
start=$(date +%s.%N); "$occbench" plan examples/compile_benchmark/compile_benchmark.json --gpu h100 --out "$WORK/results/plan" \
  > "$WORK/logs/compile_warm.log" 2>&1; end=$(date +%s.%N)
warm=$(python3 -c "print(f'{$end - $start:.2f}')")
note "NVRTC 10 instantiations ($(nproc) cores): cold cache ${cold} s, warm cache ${warm} s (whole occbench plan)"
fi

# The Google Benchmark front end takes a user-kernel config too.
if want gbench && [ -x "$BIN/bench/occbench_gbench" ]; then
  "$BIN/bench/occbench_gbench" --config examples/my_scale/my_scale.json --benchmark_out="$WORK/results/gbench_my_scale.json" \
    > "$WORK/logs/gbench_my_scale.log" 2>&1
  note "gbench my_scale: exit $? ($(grep -c manual_time "$WORK/logs/gbench_my_scale.log") benchmarks)"
fi

tar -C "$WORK" -czf "$OUT/own_kernel.tgz" .
echo
printf '%s\n' "${summary[@]}"
