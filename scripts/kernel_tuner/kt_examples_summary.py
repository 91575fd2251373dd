"""The table of Kernel Tuner's examples run by occbench.tune_kernel and by Kernel Tuner, one after
the other on one GPU (scripts/device/device_python.sh examples): configurations, each tool's best and its
time, the time occbench measured for Kernel Tuner's best (where occbench measured that
configuration too), and the wall time of the whole script.

    python3 scripts/kernel_tuner/kt_examples_summary.py FOLDER...   # folders of extracted examples.tar.gz + walls.txt
    python3 scripts/kernel_tuner/kt_examples_summary.py --bests FOLDER EXAMPLE...   # each tool's best, for kt_examples_ncu.py
    python3 scripts/kernel_tuner/kt_examples_summary.py --table SUMMARY.json [GPU [EXAMPLE[=GPU] ...]]
        # its rows as docs/python.md's Markdown table (only those of the examples named, each on its GPU)
    python3 scripts/kernel_tuner/kt_examples_summary.py --ncu-table SUMMARY.json NCU.json
        # each tool's best timed by ncu (kt_examples_ncu.py's NCU.json) beside each tool's own time of it
(SUMMARY.json and NCU.json: files, or ARCHIVE.tar.xz:PATH inside an evidence archive)
"""
import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import text_of  # noqa: E402  (one reader of a file in an archive)


def walls(folder):
    out = {}
    for line in (folder / "walls.txt").read_text().splitlines():
        name, tool, rc, wall = line.split()
        out[(name, tool)] = (int(rc.split("=")[1]), float(wall.split("=")[1]))
    return out


def results_of(folder, example, tool):
    """Every results file the script wrote (a list of dicts, or (results, env)), joined."""
    rows = []
    for f in sorted((folder / "files").glob(f"{example}.{tool}.*.json")):
        if f.name.endswith("-metadata.json"):
            continue
        data = json.loads(f.read_text())
        if isinstance(data, list) and data and isinstance(data[0], list):
            data = data[0]
        if isinstance(data, dict) and "results" in data:  # the T4 format (store_output_file)
            data = [dict(r["configuration"], **{m["name"]: m["value"] for m in r["measurements"]}) for r in data["results"]]
        if isinstance(data, dict):
            data = [data] if "time" in data else []
        rows.append((f.name.split(".", 2)[2], [r for r in data if isinstance(r, dict)]))
    return rows


def logged_best(folder, example, tool):
    """The BEST PERFORMING CONFIGURATION line each tool prints, where the script writes no results file."""
    lines = (folder / f"{example}.{tool}.log").read_text(errors="replace").splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.startswith("BEST PERFORMING CONFIGURATION") and i + 1 < len(lines):
            found.append(dict(item.split("=", 1) for item in lines[i + 1].split(", ")))
    return found


def last_error(folder, example, tool):
    """The last line of a failed run's log that names an exception ("AttributeError: ...")."""
    log = folder / f"{example}.{tool}.log"
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    errors = [l.strip() for l in lines if l.strip() and l.split(":")[0].strip().endswith(("Error", "Exception"))]
    return errors[-1] if errors else None


def best(rows):
    timed = [r for r in rows if isinstance(r.get("time"), (int, float)) and "__error__" not in r]
    return min(timed, key=lambda r: r["time"]) if timed else None


def params_of(r, keys):
    return tuple(r.get(k) for k in keys)


def summarise(folder):
    for (example, tool), (rc, wall) in walls(folder).items():
        if tool != "occbench":
            continue
        kt_rc, kt_wall = walls(folder).get((example, "kernel_tuner"), (None, None))
        kt_error = last_error(folder, example, "kernel_tuner") if kt_rc else None
        occ_files, kt_files = dict(results_of(folder, example, "occbench")), dict(results_of(folder, example, "kernel_tuner"))
        if not occ_files and not kt_files and rc and kt_rc:  # neither tool ran it: each one's reason
            yield {"example": example, "results": None, "occbench_rc": rc, "occbench_error": last_error(folder, example, "occbench"),
                   "occbench_wall_s": wall, "kernel_tuner_rc": kt_rc, "kernel_tuner_error": kt_error, "kernel_tuner_wall_s": kt_wall,
                   "occbench_best": None, "occbench_best_ms": None, "kernel_tuner_best": None,
                   "kernel_tuner_best_ms_by_kernel_tuner": None}
            continue
        if not occ_files and not kt_files:
            for i, (ob, kb) in enumerate(zip(logged_best(folder, example, "occbench"), logged_best(folder, example, "kernel_tuner"))):
                ot, kt = float(ob.pop("time").rstrip("ms")), float(kb.pop("time").rstrip("ms"))
                yield {"example": example, "results": f"(printed best, tuning {i + 1})", "occbench_rc": rc, "occbench_wall_s": wall,
                       "kernel_tuner_rc": kt_rc, "kernel_tuner_wall_s": kt_wall, "occbench_best": ob, "occbench_best_ms": ot,
                       "kernel_tuner_best": kb, "kernel_tuner_best_ms_by_kernel_tuner": kt}
        for name in sorted(set(occ_files) | set(kt_files)):
            occ, kt = occ_files.get(name, []), kt_files.get(name, [])
            first = list((occ or kt or [{"time": 0}])[0])
            keys = first[:first.index("time")] if "time" in first else []  # the parameters come first, in both tools
            ob, kb = best(occ), best(kt)
            occ_by = {params_of(r, keys): r for r in occ}
            kt_best_by_occ = occ_by.get(params_of(kb, keys)) if kb else None
            yield {
                "example": example, "results": name, "occbench_rc": rc, "occbench_wall_s": wall, "kernel_tuner_rc": kt_rc,
                "occbench_error": last_error(folder, example, "occbench") if rc else None,
                "kernel_tuner_error": kt_error,
                "kernel_tuner_wall_s": kt_wall, "occbench_points": len(occ),
                "occbench_failed": sum(1 for r in occ if "__error__" in r or isinstance(r.get("time"), str)),
                "kernel_tuner_points": len(kt),
                "occbench_best": {k: ob[k] for k in keys} if ob else None, "occbench_best_ms": ob["time"] if ob else None,
                "kernel_tuner_best": {k: kb[k] for k in keys} if kb else None,
                "kernel_tuner_best_ms_by_kernel_tuner": kb["time"] if kb else None,
                "kernel_tuner_best_ms_by_occbench": kt_best_by_occ["time"] if kt_best_by_occ and isinstance(kt_best_by_occ.get("time"), float) else None,
            }


def bests(folder, examples):
    """{example: {tool: params}}: each tool's printed best (the first tuning of each script)."""
    out = {}
    for example in examples:
        found = {tool: logged_best(folder, example, tool) for tool in ("occbench", "kernel_tuner")}
        if all(found.values()):
            out[example] = {tool: {k: int(v) for k, v in b[0].items() if k != "time" and v.lstrip("-").isdigit()}
                            for tool, b in found.items()}
    return out


def _config(params):
    return ", ".join(f"{k}={v}" for k, v in (params or {}).items()) or "–"


def _ms(value):
    return f"{value:.4f} ms" if isinstance(value, (int, float)) else "–"


def chosen(rows, gpu, only):
    """(row, its GPU) of the rows of the examples `only` names ("EXAMPLE" or "EXAMPLE=GPU"; every row
    where it names none), in the summary's order: a summary over runs on two machines says which ran where."""
    named = dict((o.split("=", 1) + [gpu])[:2] for o in only)
    return [(r, named.get(r["example"], gpu)) for r in rows if not named or r["example"] in named]


def table(rows, gpu, only=()):
    """docs/python.md's table of a summary's rows: each tool's best and time, occbench's time of
    Kernel Tuner's best, and the walls of the whole scripts."""
    lines = ["| script (GPU) | configurations occbench / KT | occbench's best, its time | Kernel Tuner's best, its time "
             "| KT's best by occbench | wall occbench / KT |", "|---|---|---|---|---|---|"]
    picked = chosen(rows, gpu, only)
    tunings = collections.Counter(r["example"] for r, _ in picked)
    for r, on in picked:
        which = f", {r['results'].strip('()')}" if tunings[r["example"]] > 1 and r.get("results") else ""  # a script of several tunings
        walls = f"{r['occbench_wall_s']:.1f} s / {r['kernel_tuner_wall_s']:.1f} s"
        counts = f"{r.get('occbench_points', '–')} ({r.get('occbench_failed', 0)} failed) / {r.get('kernel_tuner_points', '–')}"
        kt = f"{_config(r['kernel_tuner_best'])}: {_ms(r['kernel_tuner_best_ms_by_kernel_tuner'])}"
        if r.get("kernel_tuner_rc"):
            kt = f"fails (exit {r['kernel_tuner_rc']}): {r['kernel_tuner_error']}" if r.get("kernel_tuner_error") else \
                f"fails (exit {r['kernel_tuner_rc']})"
        occ = f"{_config(r['occbench_best'])}: {_ms(r['occbench_best_ms'])}"
        if r.get("occbench_error"):
            occ, counts = f"fails (exit {r['occbench_rc']}): {r['occbench_error']}", "– / –"
        lines.append(f"| {r['example']}.py ({on}){which} | {counts} | {occ} "
                     f"| {kt} | {_ms(r.get('kernel_tuner_best_ms_by_occbench'))} | {walls} |")
    return "\n".join(lines) + "\n"


def _ratio(ms, ncu_ms):
    return f"{ms / ncu_ms:.3f}" if isinstance(ms, (int, float)) else "–"


def ncu_table(rows, ncu):
    """Per example that ncu timed: each tool's best (one row where they agree) by ncu, and each tool's own
    time of that configuration over ncu's (occbench's time of Kernel Tuner's best where it measured it)."""
    lines = ["| script | configuration | ncu | occbench's time / ncu | Kernel Tuner's time / ncu |", "|---|---|---|---|---|"]
    for r in (r for r in rows if r["example"] in ncu):
        timed = ncu[r["example"]]
        same = {k: str(v) for k, v in r["occbench_best"].items()} == {k: str(v) for k, v in r["kernel_tuner_best"].items()}
        mine = [("both", r["occbench_best_ms"], r["kernel_tuner_best_ms_by_kernel_tuner"], timed["occbench"])] if same else [
            ("occbench's best", r["occbench_best_ms"], None, timed["occbench"]),
            ("Kernel Tuner's best", r.get("kernel_tuner_best_ms_by_occbench"), r["kernel_tuner_best_ms_by_kernel_tuner"],
             timed["kernel_tuner"])]
        for who, occ_ms, kt_ms, by_ncu in mine:
            lines.append(f"| {r['example']}.py | {who}, {_config(by_ncu['params'])} | {by_ncu['median_ms']:.4f} ms | "
                         f"{_ratio(occ_ms, by_ncu['median_ms'])} | {_ratio(kt_ms, by_ncu['median_ms'])} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1] == "--table":  # --table SUMMARY.json [GPU [EXAMPLE[=GPU] ...]]
        print(table(json.loads(text_of(sys.argv[2])), sys.argv[3] if len(sys.argv) > 3 else "H200", sys.argv[4:]), end="")
    elif sys.argv[1] == "--ncu-table":  # --ncu-table SUMMARY.json NCU.json
        print(ncu_table(json.loads(text_of(sys.argv[2])), json.loads(text_of(sys.argv[3]))), end="")
    elif sys.argv[1] == "--bests":  # --bests FOLDER EXAMPLE...
        print(json.dumps(bests(Path(sys.argv[2]), sys.argv[3:])))
    else:
        rows = [row for folder in sys.argv[1:] for row in summarise(Path(folder))]
        print(json.dumps(rows, indent=1))
