#!/usr/bin/env python3
"""The tables of results/reference/<gpu>/energy.md, each from the runs it names in a spec
(results/reference/h100/tables/energy_tables.json), read from the study folders or from inside
their archive (energy/evidence.tar.xz):

    python3 scripts/studies/energy_tables.py --table NAME [--spec SPEC]

Kinds of table: "spread" (joules per launch of the same point in two runs, or in the two windows of
one run; with "temperature", how much hotter and more power the second run drew, in the median),
"cost" (the wall time of each config's command without and with --energy), "front" (per size, the
fastest and the least-energy point) and "clock" (per kernel, the least-energy SM clock against the
default clocks). energy_agreement.py prints one study's spread and cost tables whole.
"""
import argparse
import csv
import io
import json
import statistics
import sys
from pathlib import Path, PurePosixPath

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "search"))
from study_files import study_files, walls  # noqa: E402  (one reader of a study folder or archive)
from energy_agreement import spread_row  # noqa: E402  (one spread row for a study and for a spec)

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "results" / "reference" / "h100" / "tables" / "energy_tables.json"


def csv_points(text):
    """A results CSV's rows as records: point_id, variant, params unread, the energy_* columns as energy."""
    out = []
    for row in csv.DictReader(io.StringIO(text)):
        energy = {k[len("energy_"):]: _value(v) for k, v in row.items() if k.startswith("energy_")}
        out.append({"point_id": row["point_id"], "variant": row.get("variant"), "params": {}, "energy": energy,
                    "timing": {"median_ms": _value(row.get("timing_median_ms"))}})
    return {"results": out, "config": {}}


def _value(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return text


class Runs:
    """The records of the spec's runs, "FOLDER/RUN" inside the archive (or a folder beside it)."""

    def __init__(self, archive):
        self.files = study_files(f"{archive}:." if archive.endswith(".tar.xz") else archive)

    def doc(self, run, sweep):
        """The results document of `sweep` in `run` (JSON, or CSV where the run kept only that)."""
        for suffix, read in ((".json", json.loads), (".csv", csv_points)):
            found = [text for name, text in sorted(self.files.items())
                     if str(PurePosixPath(name).parent) == run and PurePosixPath(name).name.startswith(f"{sweep}-")
                     and name.endswith(suffix)]
            if found:
                return read(found[0])
        sys.exit(f"energy_tables: no {sweep}-*.json or .csv in {run}")

    def points(self, run, sweep):
        """{point_id: record} of the points with an energy reading."""
        return {r["point_id"]: r for r in self.doc(run, sweep)["results"]
                if (r.get("energy") or {}).get("status") == "ok"}

    def walls(self, study):
        text = self.files.get(f"{study}/logs/walls.tsv") or self.files.get(f"{study}/walls.tsv")
        return walls(text) if text else {}


def second_window(points):
    """The same points read in their second window (one process, two windows per point)."""
    return {k: {**r, "energy": {**r["energy"], **r["energy"]["second_window"]}} for k, r in points.items()}


def spread_table(runs, spec):
    head = "| compared | points | median | worst | within 3% |"
    if spec.get("temperature"):
        head += " the second run, in the median |"
    out = [head, "|---" + "|---:" * 4 + ("|---" if spec.get("temperature") else "") + "|"]
    for row in spec["rows"]:
        a = runs.points(row["a"], row["sweep"])
        b = second_window(a) if row["b"] == "second_window" else runs.points(row["b"], row["sweep"])
        line = spread_row(row["label"], a, b, 3)
        if spec.get("temperature"):
            line += f" {_median_change(a, b, 'gpu_temperature_c', absolute=True):+.0f} °C, " \
                    f"{_median_change(a, b, 'average_w'):+.1f}% power |"
        out.append(line)
    return out


def _median_change(a, b, field, absolute=False):
    """The median over the points both runs have of b's field against a's (a difference, or a change in %)."""
    if absolute:
        return statistics.median(b[k]["energy"][field] - a[k]["energy"][field] for k in a if k in b)
    return statistics.median((b[k]["energy"][field] / a[k]["energy"][field] - 1) * 100 for k in a if k in b)


def cost_table(runs, spec):
    """Per config: device points, those read at the power limit, the plain run's wall and each --energy run's."""
    out = ["| config | device points | at the power limit | without | with | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for row in spec["rows"]:
        study, config = row["study"], row["config"]
        timed = runs.walls(study)
        plain = timed[f"{config}-plain"]
        names = [f"{config}-energy" + (f"-{run}" if run != "energy" else "") for run in row["runs"]]
        first = runs.doc(f"{study}/{row['runs'][0]}", config)["results"]
        device = [r for r in first if r.get("energy")]
        at_limit = sum(bool(r["energy"].get("at_power_limit")) for r in device)
        out.append(f"| {config} | {len(device)} | {at_limit} | {plain:.1f} s | "
                   f"{', '.join(f'{timed[n]:.1f} s' for n in names)} | "
                   f"{', '.join(f'{timed[n] / plain:.2f}×' for n in names)} (`{row['commit']}`) |")
    return out


def sizes_of(doc, r):
    keys = doc["config"].get("sizes") or {}
    return tuple((k, r["params"][k]) for k in keys if k in r["params"])


def point_text(r, sizes):
    rest = ", ".join(f"{k} {v}" for k, v in r["params"].items() if k not in dict(sizes))
    return f"{r['variant']}{', ' + rest if rest else ''}"


def joules_text(joules):
    return f"{joules:.3g} J" if joules >= 0.1 else f"{joules * 1e3:.3g} mJ"


def ms_text(ms):
    return f"{ms * 1e3:.1f} µs" if ms < 1 else f"{ms:.3g} ms"


def front_table(runs, spec):
    """Per sweep and size: the fastest point, the least-energy one, and what the second saves and costs."""
    out = ["| sweep | sizes | fastest | least energy | least energy saves / costs | at the power limit |",
           "|---|---|---|---|---|---|"]
    for row in spec["rows"]:
        doc = runs.doc(row["run"], row["sweep"])
        groups = {}
        for r in doc["results"]:
            if (r.get("energy") or {}).get("status") == "ok":
                groups.setdefault(sizes_of(doc, r), []).append(r)
        for sizes, points in groups.items():
            fastest = min(points, key=lambda r: r["timing"]["median_ms"])
            least = min(points, key=lambda r: r["energy"]["joules_per_launch"])
            same = least is fastest
            saving = 1 - least["energy"]["joules_per_launch"] / fastest["energy"]["joules_per_launch"]
            cost = least["timing"]["median_ms"] / fastest["timing"]["median_ms"] - 1
            capped = [x for x in (fastest, least) if x["energy"].get("at_power_limit")]
            out.append(f"| {row['sweep']} | {' '.join(f'{k}={v}' for k, v in sizes)} | {point_text(fastest, sizes)}: "
                       f"{ms_text(fastest['timing']['median_ms'])}, {joules_text(fastest['energy']['joules_per_launch'])} | "
                       f"{'the fastest' if same else point_text(least, sizes) + ': ' + joules_text(least['energy']['joules_per_launch'])} | "
                       f"{'–' if same else f'{100 * saving:.1f}% / {100 * cost:+.1f}% time'} | "
                       f"{'both' if len(capped) == 2 and not same else 'yes' if capped else 'no'} |")
    return out


def clock_table(runs, spec):
    """Per kernel of a clock sweep: the locked clock of least energy per launch, its energy and time
    against the default clocks (sm_clock_mhz 0), and the highest locked clock's."""
    out = ["| kernel | least-energy clock (measured) | energy per launch, against default | time, against default | "
           "at the highest locked clock |", "|---|---|---|---|---|"]
    for row in spec["rows"]:
        curves = {}
        for r in runs.doc(row["run"], row["sweep"])["results"]:
            if (r.get("energy") or {}).get("status") == "ok":
                curves.setdefault(r["variant"], []).append(r)
        for variant, points in curves.items():
            default = next(r for r in points if r["params"]["sm_clock_mhz"] == 0)
            locked = [r for r in points if r["params"]["sm_clock_mhz"] != 0]
            best = min(locked, key=lambda r: r["energy"]["joules_per_launch"])
            top = max(locked, key=lambda r: r["params"]["sm_clock_mhz"])
            j, t = (lambda r: r["energy"]["joules_per_launch"]), (lambda r: r["timing"]["median_ms"])
            out.append(f"| {row['sweep'].removeprefix('energy_clock_')} `{variant}` | {best['params']['sm_clock_mhz']} MHz "
                       f"({best['sm_clock']['observed_sm_mhz']:.0f}) | {joules_text(j(best))}, {100 * (j(best) / j(default) - 1):+.1f}% | "
                       f"{ms_text(t(best))}, {100 * (t(best) / t(default) - 1):+.1f}% | "
                       f"{top['params']['sm_clock_mhz']} MHz: {joules_text(j(top))}, {ms_text(t(top))} |")
    return out


KINDS = {"spread": spread_table, "cost": cost_table, "front": front_table, "clock": clock_table}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", required=True, help="a table of the spec")
    ap.add_argument("--spec", default=str(SPEC))
    a = ap.parse_args()
    spec = json.loads(Path(a.spec).read_text())
    table = spec["tables"][a.table]
    print("\n".join(KINDS[table["kind"]](Runs(str(ROOT / spec["archive"])), table)))


if __name__ == "__main__":
    main()
