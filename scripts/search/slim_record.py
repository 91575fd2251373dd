#!/usr/bin/env python3
"""A measured space kept small enough to commit and to replay (occbench replay):

    python3 scripts/search/slim_record.py FULL.jsonl OUT.jsonl

Keeps the header line and, of each point, what replay and best read: its id, family, variant,
params, status and reason, the launch's grid and dynamic shared memory, registers and static shared
memory, theoretical occupancy and resident blocks (model_plan's features), the timing's median,
noise and samples, the metrics, the verification's status and time_use. The full record (a few kB
a point) stays with the run."""
import json
import sys

KEEP = {
    "launch": ["grid", "block", "dynamic_smem_bytes"],
    "resources": ["registers_per_thread", "static_smem_bytes"],
    "occupancy": ["theoretical", "active_blocks_per_sm", "limiter"],
    "timing": ["median_ms", "noise", "samples"],
    "verification": ["status"],
}


def slim(record):
    out = {k: record[k] for k in ("point_id", "family", "variant", "params", "status", "reason") if k in record}
    for section, keys in KEEP.items():
        if isinstance(record.get(section), dict):
            out[section] = {k: record[section][k] for k in keys if k in record[section]}
    for section in ("metrics", "time_use"):
        if section in record:
            out[section] = record[section]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
        for line in f:
            if not line.strip():
                continue
            record = json.loads(line)
            out.write(json.dumps(record if "point_id" not in record else slim(record), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
