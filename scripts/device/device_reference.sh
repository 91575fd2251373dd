#!/usr/bin/env bash
# There, on the H100 (after device_build.sh here): every shipped config and example study run
# again, each compared with its committed reference run (results/reference/h100/) by
# `occbench compare`, so a change that must not move a number shows that it did not.
#   BUILD_DIR=build-h100-bin OUT=DIR bash scripts/device/device_reference.sh [CONFIG ...]
# Without arguments: configs/*.json and the examples that have a reference. Writes DIR/runs/ (the
# new results), DIR/compare/<name>.txt and DIR/reference_compare.md (one line per config: compare's
# summary); prints the summary last.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build-h100}
OUT=${OUT:-device-out}
REFERENCE=${REFERENCE:-results/reference/h100}
mkdir -p "$OUT/runs" "$OUT/compare"
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  for c in configs/*.json examples/histogram/*.json examples/reduction/reduction.json; do
    [ "$(basename "$c")" = schema.json ] || configs+=("$c")
  done
fi
summary="$OUT/reference_compare.md"
echo "| config | exit | reference | occbench compare |" > "$summary"
echo "| --- | --- | --- | --- |" >> "$summary"
for config in "${configs[@]}"; do
  name=$(basename "$config" .json)
  ref=$(ls "$REFERENCE/$name.json" "$REFERENCE/occupancy/$name.json" 2>/dev/null | head -n 1)
  "$BUILD/occbench" run "$config" --out "$OUT/runs/$name" > "$OUT/runs/$name.log" 2>&1
  code=$?
  new=$(ls -t "$OUT/runs/$name"/*.json 2>/dev/null | head -n 1)
  if [ -z "$ref" ] || [ -z "$new" ]; then
    echo "| $name | $code | ${ref:-none} | no comparison |" >> "$summary"
    continue
  fi
  "$BUILD/occbench" compare "$ref" "$new" > "$OUT/compare/$name.txt" 2>&1
  echo "| $name | $code | $ref | $(grep '^Summary:' "$OUT/compare/$name.txt" | sed 's/^Summary: //') |" >> "$summary"
done
cat "$summary"
