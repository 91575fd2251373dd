"""Seed inputs of the fuzz targets besides the shipped configs (scripts/fuzz/fuzz.sh): recorded results
and .jsonl logs cut to their first points (under libFuzzer's -max_len), expressions, flag lines and
.npy files, each in the format its target reads (tests/fuzz/fuzz_support.hpp)."""
import json
import struct
import sys
from pathlib import Path

EXPRESSIONS = {  # first byte: 0 restriction, 1 grid, 2 count, 3 scalar, 4 kernel name, 5 dynamic smem, 6 flops
    0: ["block_size * items <= 1024", "block_size % 32 == 0 && items >= 1", "n >= block_size || items == 1"],
    1: ["ceil_div(n, block_size * items)", "[ceil(n / 256), 1]", "max(1, n / block_size)"],
    2: ["n", "2 * n + 1", "ceil_div(n, 4) * 4"],
    3: ["n", "3", "block_size * 2"],
    4: ["scale_kernel<{items}>", "scale_kernel<{items * 2}>", "ns::kernel<{items}, float>"],
    5: ["block_size * 4", "0"],
    6: ["n", "2 * n * items"],
}
FLAGS = {  # first byte: the command (tests/fuzz/fuzz_support.cpp, flags_target)
    0: ["--filter\nglobal", "--set\nblock_size=128,256", "--axis\nblock_size=[64]", "--variants\nglobal,vectorized",
        "--shard\n1/4", "--strategy\nrandom\n--max-points\n5\n--seed\n3", "--strategy\nlocal\n--max-points\n4\n--time-limit\n10"],
    1: ["--gpu\nt4", "--filter\nn=16", "--set\nn=1024"],
    2: ["--fail-on-regression\n5", "--noise-factor\n2\n--min-change\n1"],
    3: ["--format\ncsv", "--format\njson\n--out\nreport.json"],
    4: ["--objective\nmetrics.achieved_bandwidth_gbps:max", "--out\nbest"],
    5: [""],
    6: ["--set\nitems=1", "--filter\nitems=4"],
    7: ["base.jsonl"],
}


def npy(shape, descr="<f4", element=4):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ", ".join(map(str, shape)) + ("," if len(shape) == 1 else ""))
    header = header.encode() + b" " * ((64 - (10 + len(header) + 1) % 64) % 64) + b"\n"
    count = 1
    for extent in shape:
        count *= extent
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(count * element)


REFERENCE = Path(__file__).resolve().parents[2] / "results" / "reference" / "h100"
POINTS = 6  # records kept of each recorded run


def recorded_results(out):
    for path in sorted(REFERENCE.glob("*.json")):
        doc = json.loads(path.read_text())
        if isinstance(doc, dict) and isinstance(doc.get("results"), list):
            doc["results"] = doc["results"][:POINTS]
            (out / path.name).write_text(json.dumps(doc, indent=1))


def recorded_logs(out):
    for path in sorted(REFERENCE.glob("*.jsonl")):
        lines = path.read_text().splitlines()[: POINTS + 1]
        (out / path.name).write_text("\n".join(lines) + "\n")


def main(target, folder):
    out = Path(folder)
    if target == "results":
        recorded_results(out)
    elif target == "jsonl":
        recorded_logs(out)
    elif target == "expression":
        items = [(k, text) for k, texts in EXPRESSIONS.items() for text in texts]
        for i, (k, text) in enumerate(items):
            (out / f"seed{i}").write_bytes(bytes([k]) + text.encode())
    elif target == "flags":
        items = [(k, text) for k, texts in FLAGS.items() for text in texts]
        for i, (k, text) in enumerate(items):
            (out / f"seed{i}").write_bytes(bytes([k]) + text.encode())
    elif target == "npy":
        (out / "f4_16.npy").write_bytes(npy([16]))
        (out / "f4_4x4.npy").write_bytes(npy([4, 4]))
        (out / "f8_16.npy").write_bytes(npy([16], "<f8", 8))
    else:
        sys.exit(f"fuzz_seeds.py: no seeds for target {target}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
