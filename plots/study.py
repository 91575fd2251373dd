"""A results file read for plotting, and what every figure shares: load_results() checks a
document (schema_version 1) and Study holds one family's rows of it; the helpers name sizes, pick
the swept axis, find the fastest row and lay out axes. occplot.py (one file's figures) and
overlay.py (several files in one figure) both build on this module; it imports neither.
"""
import json
import math
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

try:
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display

    import numpy  # noqa: F401 (checked here, used by the figures)
    from matplotlib.ticker import FuncFormatter, NullLocator
except ImportError as missing:  # say what to install instead of a traceback (exit 2: the setup)
    print(f"occplot: Python module '{missing.name}' is missing; install the plotting dependencies with\n"
          f"  pip install -r {Path(__file__).resolve().parent / 'requirements.txt'}\n"
          "or, on Debian/Ubuntu: apt install python3-matplotlib python3-numpy", file=sys.stderr)
    sys.exit(2)

SCHEMA_VERSION = 1
KINDS = ("sweep", "compare", "roofline", "occupancy", "sensitivity", "hierarchy", "energy", "search")
OCCUPANCY_LIMIT = "occupancy_limit"  # occbench's harness axis that forces resident blocks per SM
KNEE_TOLERANCE = 0.05  # the knee: the lowest occupancy within 5% of the best time (as occbench report)
MARKERS = "osD^vP*Xh<>"
LIMITER_SHORT = {"warps": "warps", "registers": "regs", "shared_memory": "smem",
                 "blocks_per_sm": "blocks"}


class ResultsError(Exception):
    """A results file that cannot be plotted; the message names the file and what was expected."""


def load_results(path):
    """Read and check one results document; raise ResultsError saying what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise ResultsError(f"{path}: cannot read the file ({reason}); expected an occbench "
                           "results JSON file") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise ResultsError(f"{path}: not valid JSON ({error.msg} at line {error.lineno} column "
                           f"{error.colno}); expected an occbench results JSON file") from None
    if not isinstance(doc, dict):
        raise ResultsError(f"{path}: expected a JSON object with schema_version and results, "
                           f"found a JSON {type(doc).__name__}")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ResultsError(f"{path}: schema_version is {json.dumps(version)}, expected "
                           f"{SCHEMA_VERSION} (an occbench results file)")
    results = doc.get("results")
    if not isinstance(results, list) or not results:
        raise ResultsError(f"{path}: no results: expected a non-empty 'results' list")
    for index, row in enumerate(results):
        if not (isinstance(row, dict) and isinstance(row.get("variant"), str)
                and isinstance(row.get("params"), dict)):
            raise ResultsError(f"{path}: results[{index}]: expected an object with a 'variant' "
                               "string and a 'params' object")
    return doc


def field(row, dotted):
    """row['a']['b'] for 'a.b', or None where any level is missing or null."""
    value = row
    for key in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def number(row, dotted):
    value = field(row, dotted)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


def short_number(value):
    """16777216 -> '16Mi', 20000 -> '20k', 2475 -> '2475': short enough for tick labels."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{value:g}" if isinstance(value, float) else str(value)
    for shift, suffix in ((30, "Gi"), (20, "Mi")):
        if value and value % (1 << shift) == 0:
            return f"{value >> shift}{suffix}"
    for scale, suffix in ((10**9, "G"), (10**6, "M"), (10**4, "k")):
        if abs(value) >= scale:
            scaled = value / (scale if suffix != "k" else 1000)
            return f"{scaled:.3g}{suffix}"
    return str(value)


def speedup_label(baseline_ms, variant_ms):
    """'2.3× faster' / '1.15× slower' than the baseline, from two times."""
    ratio = baseline_ms / variant_ms
    factor = max(ratio, 1 / ratio)
    if round(factor, 2) == 1.0:
        return "≈ baseline"
    text = f"{factor:.0f}" if factor >= 100 else f"{factor:.3g}"
    return f"{text}× {'faster' if ratio > 1 else 'slower'}"


def spans_decades(values):
    values = [v for v in values if v is not None and v > 0]
    return len(values) > 1 and max(values) / min(values) >= 10


class Study:
    """The points of one family in one results file, with what the figures need to know."""

    def __init__(self, doc, family, rows):
        self.device = doc.get("device") or {}
        self.config = doc.get("config") or {}
        self.run_kind = field(doc, "run.kind") or "run"
        self.family = family
        self.rows = rows
        # Sizes are the problem dimensions (n, m, ...); everything else in params is a launch or
        # tuning axis. The config is the input echoed, so sizes left to their defaults are missing
        # from it: then a size is any parameter that no axes or variant_axes entry names.
        config_sizes = self.config.get("sizes")
        axis_names = set(self.config.get("axes") or {})
        for per_variant in (self.config.get("variant_axes") or {}).values():
            axis_names |= set(per_variant or {})
        if isinstance(config_sizes, dict):
            self.size_keys = list(config_sizes)
        elif axis_names:
            self.size_keys = sorted({k for r in rows for k in r["params"]} - axis_names)
        else:
            self.size_keys = []
        order = [v for v in self.config.get("variants") or [] if isinstance(v, str)]
        seen = [r["variant"] for r in rows]
        self.variants = list(dict.fromkeys([v for v in order if v in seen] + seen))
        # occbench's default baseline is the first variant of the sweep, and so of the results.
        self.baseline = self.config.get("baseline") or (order or seen)[0]
        self.timed = [r for r in rows if r.get("status") == "ok" and number(r, "timing.median_ms")]
        palette = matplotlib.colormaps["tab10"].colors
        self.style = {v: (palette[i % 10], MARKERS[i % len(MARKERS)])
                      for i, v in enumerate(self.variants)}

    def sizes_of(self, row):
        return tuple((k, row["params"][k]) for k in self.size_keys if k in row["params"])

    def axes_of(self, row):
        return [k for k in row["params"] if k not in self.size_keys]

    def device_name(self):
        return self.device.get("name") or "unknown device"

    def left_out_note(self, rows):
        """How many points the timing plots leave out and why, or '' if none."""
        left_out = Counter(r.get("status") or "no status" for r in rows
                           if r.get("status") != "ok" or not number(r, "timing.median_ms"))
        if not left_out:
            return ""
        detail = ", ".join(f"{count} {status}" for status, count in sorted(left_out.items()))
        return (f"{sum(left_out.values())} of {len(rows)} points not ok, left out of the "
                f"timing plots ({detail})")


def sizes_text(sizes, compact=False):
    if compact:
        return " ".join(f"{k}={short_number(v)}" for k, v in sizes) or "all"
    return ", ".join(f"{k} = {v:,}" if isinstance(v, int) else f"{k} = {v}" for k, v in sizes)


def all_sizes_text(study, rows):
    per_key = defaultdict(set)
    for row in rows:
        for key, value in study.sizes_of(row):
            per_key[key].add(value)
    return "; ".join(f"{k} = " + ", ".join(f"{v:,}" if isinstance(v, int) else str(v)
                                           for v in sorted(vals))
                     for k, vals in per_key.items())


def pick_swept_axis(study, rows, numeric=False):
    """The non-size parameter with the most values within one variant (None if none varies);
    with numeric, only parameters whose values are all numbers (they go on an x axis)."""
    values = defaultdict(set)
    for row in rows:
        for key in study.axes_of(row):
            values[(row["variant"], key)].add(row["params"][key])
    if numeric:
        values = {k: vals for k, vals in values.items()
                  if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)}
    best = {}
    for (_, key), vals in values.items():
        best[key] = max(best.get(key, 0), len(vals))
    order = list(study.config.get("axes") or {})
    candidates = [k for k, count in best.items() if count >= 2]
    if not candidates:
        return None
    return max(candidates, key=lambda k: (best[k], -order.index(k) if k in order else -99))


def use_param_axis(ax, values):
    """Ticks at exactly the swept values; log2 spacing when they grow geometrically (2..32)."""
    values = sorted(set(values))
    if len(values) >= 3 and values[0] > 0 and values[-1] / values[0] >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(values)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())


def scatter_variants(ax, study, rows, x, y, **style):
    """One scatter per variant, in its colour and marker, of x(row) against y(row); returns
    {variant: its rows} for the variants drawn."""
    drawn = {}
    for variant in study.variants:
        mine = [r for r in rows if r["variant"] == variant]
        if not mine:
            continue
        color, marker = study.style[variant]
        ax.scatter([x(r) for r in mine], [y(r) for r in mine], color=color, marker=marker, label=variant, zorder=3, **style)
        drawn[variant] = mine
    return drawn


def best_by_time(rows):
    return min(rows, key=lambda r: number(r, "timing.median_ms"))


def figure_title(fig, what, study, detail, note=""):
    lines = [f"{study.family}: {what}", f"{study.device_name()}  ·  {detail or 'all sizes'}",
             note]
    # Wrapped to the figure's width so a long size list or note is never cut off at the edges.
    width = int(fig.get_figwidth() * 10)
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in lines if line), fontsize=11)


def make_room_above(ax, values, log, share=0.72):
    """Limits so the bars use `share` of the height and the rotated labels fit above them."""
    values = [v for v in values if v and v > 0]
    if not values:
        return
    top = max(values)
    if log:
        ax.set_yscale("log")
        bottom = min(values) / 3
        ax.set_ylim(bottom, bottom * (top / bottom) ** (1 / share))
    else:
        ax.set_ylim(0, top / share)
