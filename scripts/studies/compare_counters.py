#!/usr/bin/env python3
"""Compare the `counters` sections of two occbench records of the same config, point by point.

Made for issue 11's check that the counters and CUPTI activity timing coexist:

    occbench run CONFIG --counters --out A
    OCCBENCH_TIMING_SOURCE=cupti occbench run CONFIG --counters --out B
    python3 scripts/studies/compare_counters.py A/<name>.json B/<name>.json

Counts that do not depend on timing or cache state (L1/TEX global bytes, shared-memory
instructions) must be equal; every other counter is reported with its largest difference.
Exit 1 when a point is missing, not measured in either record, or an exact count differs.
"""
import argparse
import json
import sys

EXACT = ("l1_global_load_bytes", "l1_global_store_bytes", "shared_load_instructions", "shared_store_instructions")


def measured(path):
    doc = json.load(open(path))
    return {r["point_id"]: r.get("counters") or {} for r in doc["results"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first")
    ap.add_argument("second")
    args = ap.parse_args()
    a, b = measured(args.first), measured(args.second)
    problems, worst = [], {}
    for point in sorted(set(a) | set(b)):
        ca, cb = a.get(point), b.get(point)
        if ca is None or cb is None:
            problems.append(f"{point}: only in {'the first' if cb is None else 'the second'} record")
            continue
        if ca.get("status") != "measured" or cb.get("status") != "measured":
            if ca.get("status") == cb.get("status") == "unavailable" and "host variant" in ca.get("reason", ""):
                continue
            problems.append(f"{point}: counters {ca.get('status')} / {cb.get('status')} "
                            f"({ca.get('reason') or cb.get('reason')})")
            continue
        for field in EXACT:
            if ca[field] != cb[field]:
                problems.append(f"{point}: {field} {ca[field]} != {cb[field]}")
        for field, value in ca.items():
            other = cb.get(field)
            if field.startswith("added") or not isinstance(value, (int, float)) or not isinstance(other, (int, float)):
                continue
            diff = abs(value - other) / abs(other) if other else (0.0 if value == other else float("inf"))
            if diff >= worst.get(field, (-1.0, ""))[0]:
                worst[field] = (diff, point)
    for field, (diff, point) in sorted(worst.items()):
        print(f"{field:40s} largest difference {100 * diff:8.3f}%  ({point})")
    for p in problems:
        print("MISMATCH", p)
    print(f"{len(set(a) & set(b))} points compared, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
