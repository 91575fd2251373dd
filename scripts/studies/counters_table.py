#!/usr/bin/env python3
"""The hardware counters of a few points (occbench run --counters), side by side, as a write-up's
table: one column per point, one row per counter.

    python3 scripts/studies/counters_table.py "LABEL=RECORD.json#POINT_ID" ...

RECORD may lie inside an archive (ARCHIVE.tar.xz:PATH); without #POINT_ID a record's first point.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)


def spaced(v):
    return f"{v:,.0f}".replace(",", " ")


ROWS = [  # (label, the counter, how it is shown)
    ("duration (ns)", "duration_ns", spaced),
    ("SM cycles", "sm_cycles", lambda v: f"{v / 1e6:.2f} M"),
    ("issue slots busy (% of peak)", "sm_issue_active_pct_of_peak", lambda v: f"{v:.1f}"),
    ("achieved occupancy", "achieved_occupancy", lambda v: f"{v:.3f}"),
    ("shared load instructions", "shared_load_instructions", lambda v: f"{v / 1e6:.0f} M"),
    ("L2 bytes", "l2_bytes", lambda v: f"{v / 1e9:.2f} GB"),
    ("DRAM bytes", "dram_bytes", lambda v: f"{v / 1e9:.2f} GB"),
]


def counters_of(spec):
    """(label, the counters of the point a "LABEL=RECORD#POINT" names)."""
    label, _, where = spec.partition("=")
    record, _, point = where.partition("#")
    results = json.loads(text_of(record))["results"]
    found = [r for r in results if not point or r["point_id"] == point]
    if not found or (found[0].get("counters") or {}).get("status") != "measured":
        sys.exit(f"counters_table: {record}: no measured counters for {point or 'its first point'}")
    return label, found[0]["counters"]


def main():
    columns = [counters_of(spec) for spec in sys.argv[1:]]
    print("| | " + " | ".join(label for label, _ in columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for label, field, shown in ROWS:
        print(f"| {label} | " + " | ".join(shown(c[field]) for _, c in columns) + " |")


if __name__ == "__main__":
    main()
