#!/usr/bin/env python3
"""transpose.md's bank-conflict table from ncu_bank_conflicts.sh's output: per kernel, shared load and
store instructions, their bank conflicts and conflicts per instruction (the first profiled launch).

    python3 scripts/ncu/bank_conflicts_table.py LOG   # the script's output, a file or ARCHIVE.tar.xz:PATH
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)

KERNEL = re.compile(r"^(?:void )?(\w+(?:<\d+>)?)\(.*launches profiled", re.M)
METRIC = re.compile(r"^\s+(\S+)\s+(\d+)\s*$", re.M)


def kernels(text):
    """{kernel: {metric: count}} in the order the log shows them."""
    out = {}
    starts = [(m.start(), m.group(1)) for m in KERNEL.finditer(text)] + [(len(text), None)]
    for (start, name), (end, _) in zip(starts, starts[1:]):
        out[name] = {metric: int(value) for metric, value in METRIC.findall(text[start:end])}
    return out


def per(conflicts, instructions):
    return f"{conflicts / instructions:.2f}" if instructions else "–"


def main(log):
    print("| kernel | shared ld instructions | ld bank conflicts | conflicts per ld | shared st instructions | "
          "st conflicts (per st) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, m in kernels(text_of(log)).items():
        ld, st = m["smsp__inst_executed_op_shared_ld.sum"], m["smsp__inst_executed_op_shared_st.sum"]
        ld_c = m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
        st_c = m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
        print(f"| {name} | {ld:,} | {ld_c:,} | {per(ld_c, ld)} | {st:,} | {st_c:,} ({per(st_c, st)}) |")


if __name__ == "__main__":
    main(sys.argv[1])
