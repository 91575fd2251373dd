#!/usr/bin/env bash
# Shared-memory bank conflicts of the transpose kernels, counted by Nsight Compute.
#
#   scripts/ncu/ncu_bank_conflicts.sh [BUILD_DIR] [ROWS] [COLS]      (defaults: build 4096 4096)
#
# Runs `occbench run` on a tiny transpose sweep (one point per variant, block_rows 8, one sample)
# under ncu, and prints per kernel: shared-memory load/store instructions and the bank conflicts
# of each. The unpadded 32 x 32 tile should show ~31 extra wavefronts per column-read (32-way
# conflict); the padded tile (33 floats per row) and the naive kernel none.
# Needs ncu (PATH, /usr/local/cuda/bin or NCU=...) and permission to read GPU counters.
# METRICS=... replaces the metric list (comma-separated) if a name is not known to this ncu.
set -euo pipefail

BUILD_DIR=${1:-build}
ROWS=${2:-4096}
COLS=${3:-4096}
OCCBENCH="$BUILD_DIR/occbench"
[[ -x "$OCCBENCH" ]] || { echo "error: $OCCBENCH not found (build occbench first, or pass the build folder)" >&2; exit 2; }

NCU=${NCU:-$(command -v ncu || true)}
if [[ -z "$NCU" ]]; then
  for candidate in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [[ -x "$candidate" ]] && NCU=$candidate && break
  done
fi
[[ -n "$NCU" && -x "$NCU" ]] || { echo "error: ncu (Nsight Compute) not found; set NCU=/path/to/ncu" >&2; exit 2; }

METRICS=${METRICS:-l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum}

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/transpose_ncu.json" <<EOF
{
  "name": "transpose_ncu",
  "description": "Tiny transpose sweep for scripts/ncu/ncu_bank_conflicts.sh: one point per variant, one sample.",
  "family": "transpose",
  "variants": ["naive", "shared_tile", "shared_tile_padded"],
  "baseline": "naive",
  "sizes": {"rows": [$ROWS], "cols": [$COLS]},
  "axes": {"block_rows": [8]},
  "measurement": {"mode": "hot", "warmup_runs": 0, "min_samples": 1, "max_samples": 1, "min_time_s": 0, "timeout_s": 1.0, "seed": 1}
}
EOF

echo "ncu: $NCU ($("$NCU" --version | tail -1))"
echo "transpose ${ROWS} x ${COLS}, block 32 x 8; metrics: $METRICS"
# Each kernel runs twice per point (verification, then one timed sample); every launch is profiled.
"$NCU" --clock-control none --kernel-name-base demangled --kernel-name "regex:occbench::transpose::" \
  --metrics "$METRICS" --csv --print-units base --log-file "$WORK/ncu.csv" \
  "$OCCBENCH" run "$WORK/transpose_ncu.json" --out "$WORK/results" > "$WORK/occbench.log" 2>&1 || {
  status=$?
  echo "error: ncu or occbench failed (exit $status); occbench log:" >&2
  cat "$WORK/occbench.log" >&2
  [[ -f "$WORK/ncu.csv" ]] && cat "$WORK/ncu.csv" >&2
  exit $status
}

python3 - "$WORK/ncu.csv" <<'PY'
import csv, sys
from collections import OrderedDict

lines = open(sys.argv[1], newline="").read().splitlines()
table = [l for l in lines if l.startswith('"')]  # ncu's own ==PROF== / ==WARNING== lines left out
if not table or not table[0].startswith('"ID"'):
    print("no profiled kernels in the ncu output (counter permission? ERR_NVGPUCTRPERM):\n" + "\n".join(lines))
    sys.exit(1)
rows = list(csv.DictReader(table))
# Per kernel (and launch shape): the metrics of its first profiled launch, and how many launches.
kernels = OrderedDict()
for r in rows:
    key = (r["Kernel Name"], r.get("Block Size", ""), r.get("Grid Size", ""))
    entry = kernels.setdefault(key, {"ids": set(), "values": OrderedDict()})
    entry["ids"].add(r["ID"])
    value = r["Metric Value"].replace(",", "")
    entry["values"].setdefault(r["Metric Name"], value)

def num(v):
    try:
        return float(v)
    except ValueError:
        return None

for (name, block, grid), entry in kernels.items():
    print(f"\n{name}  block {block} grid {grid}  ({len(entry['ids'])} launches profiled; first shown)")
    values = entry["values"]
    for metric, value in values.items():
        print(f"  {metric:58s} {value:>16s}")
    for op in ("ld", "st"):
        conflicts = num(values.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum", ""))
        insts = num(values.get(f"smsp__inst_executed_op_shared_{op}.sum", ""))
        if conflicts is not None and insts:
            print(f"  shared {op}: {conflicts / insts:.2f} conflicts per warp instruction")
PY
