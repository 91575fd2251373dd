"""Kernel Tuner's integration module, in its results file format (version 1.0), so that files
either tool wrote are read by the other: ``store_results`` keeps the best configurations of a
tuning per GPU and problem size, ``TuneResults`` picks one for a GPU and problem size, and
``create_device_targets`` writes a header of #defines per GPU.

The choice (``TuneResults.get_best_config``): the GPU's own best at that problem size; else, for
that GPU, the configuration that was among the best at the most problem sizes (the lowest summed
objective breaking ties); else the same over every GPU. Failed configurations are never stored.
Unlike Kernel Tuner's (which returns the file's whole entry there), the answer is always the
tunable parameters alone."""

import json
import os
import re

from ._source import looks_like_a_file_name
from .interface import OBJECTIVE_HIGHER_IS_BETTER
from .util import ErrorConfig

VERSION = "1.0"


def _objective(objective, higher):
    objective = objective or "time"
    if higher is None:
        if objective not in OBJECTIVE_HIGHER_IS_BETTER:
            raise ValueError(f"objective_higher_is_better: occbench does not know whether a higher '{objective}' is better; say it")
        higher = OBJECTIVE_HIGHER_IS_BETTER[objective]
    return objective, bool(higher)


def _size_text(problem_size):
    if isinstance(problem_size, str):
        return problem_size
    sizes = problem_size if isinstance(problem_size, (list, tuple)) else (problem_size,)
    return "x".join(str(s) for s in sizes)


def _device_key(name):
    return re.sub("[^0-9a-zA-Z]+", "_", str(name).strip())


def _valid(result, objective):
    value = result.get(objective)
    return "__error__" not in result and not isinstance(value, (ErrorConfig, bool)) and isinstance(value, (int, float))


def read_results_file(path):
    """(meta, entries) of a results file, checked: its version, and each entry's keys."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a results file ({e})") from None
    if not isinstance(data, dict) or data.get("version_number") != VERSION:
        raise ValueError(f"{path}: not a results file of version {VERSION} (version_number: {data.get('version_number') if isinstance(data, dict) else None})")
    for key in ("kernel_name", "tunable_parameters", "objective", "data"):
        if key not in data:
            raise ValueError(f"{path}: no '{key}'")
    meta = {k: v for k, v in data.items() if k != "data"}
    meta.setdefault("objective_higher_is_better", False)
    for i, entry in enumerate(data["data"]):
        missing = [k for k in ("device_name", "problem_size", "tunable_parameters", meta["objective"]) if k not in entry]
        missing += [k for k in meta["tunable_parameters"] if k not in entry.get("tunable_parameters", {})]
        if missing:
            raise ValueError(f"{path}: data[{i}] lacks {', '.join(missing)}")
    return meta, data["data"]


def store_results(results_filename, kernel_name, kernel_string, tune_params, problem_size, results, env, top=3, objective=None,
                  objective_higher_is_better=None):
    """Keeps the configurations within `top` percent of the best (by the objective) of this GPU
    (env["device_name"]) and problem size in the file, replacing what it held for them."""
    objective, higher = _objective(objective, objective_higher_is_better)
    valid = [r for r in results if _valid(r, objective)]
    if not valid:
        raise ValueError(f"results: none passed with a value of '{objective}'; nothing to store")
    best = (max if higher else min)(r[objective] for r in valid)
    margin = top / 100.0
    kept = [r for r in valid if (r[objective] >= best * (1 - margin) if higher else r[objective] <= best * (1 + margin))]
    if os.path.isfile(results_filename):
        meta, data = read_results_file(results_filename)
        if meta["kernel_name"] != kernel_name or meta["objective"] != objective or not all(p in meta["tunable_parameters"] for p in tune_params):
            raise ValueError(f"{results_filename}: holds {meta['kernel_name']} by {meta['objective']} over {meta['tunable_parameters']}; "
                             f"not {kernel_name} by {objective} over {list(tune_params)}")
    else:
        meta = {"version_number": VERSION, "kernel_name": kernel_name, "objective": objective, "objective_higher_is_better": higher,
                "tunable_parameters": list(tune_params)}
        if isinstance(kernel_string, str) and kernel_string:
            is_file = "\n" not in kernel_string and os.path.isfile(kernel_string) or looks_like_a_file_name(kernel_string)
            meta["kernel_string"] = open(kernel_string).read() if is_file and os.path.isfile(kernel_string) else kernel_string
        data = []
    device, size = _device_key(env["device_name"]), _size_text(problem_size)
    data = [d for d in data if not (d["device_name"] == device and d["problem_size"] == size)]
    for r in kept:
        data.append({"device_name": device, "problem_size": size, "tunable_parameters": {k: r[k] for k in tune_params},
                     objective: r[objective]})
    with open(results_filename, "w") as f:
        json.dump(dict(meta, data=data), f, indent="")


def _most_common(entries, objective, higher):
    counts, totals, params = {}, {}, {}
    for e in entries:
        key = json.dumps(e["tunable_parameters"], sort_keys=True)
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, 0) + e[objective]
        params[key] = e["tunable_parameters"]
    top = max(counts.values())
    candidates = [k for k in counts if counts[k] == top]
    chosen = (max if higher else min)(candidates, key=lambda k: totals[k])
    return dict(params[chosen])


class TuneResults:
    """A results file, to choose a configuration for a GPU and problem size."""

    def __init__(self, results_filename):
        if not os.path.isfile(results_filename):
            raise ValueError(f"results_filename: no file {results_filename}")
        self.meta, self.data = read_results_file(results_filename)
        if not self.data:
            raise ValueError(f"{results_filename}: holds no results")
        self.objective = self.meta["objective"]
        self.objective_higher_is_better = bool(self.meta.get("objective_higher_is_better", False))

    def choose(self, gpu_name="default", problem_size=None):
        """(the tunable parameters, why: "this GPU at this problem size" | "this GPU, another size" | "another GPU")."""
        gpu = _device_key(gpu_name)
        higher, objective = self.objective_higher_is_better, self.objective
        on_gpu = [e for e in self.data if e["device_name"] == gpu]
        if on_gpu and problem_size is not None:
            exact = [e for e in on_gpu if e["problem_size"] == _size_text(problem_size)]
            if exact:
                return dict((max if higher else min)(exact, key=lambda e: e[objective])["tunable_parameters"]), \
                    "this GPU at this problem size"
        if on_gpu:
            return _most_common(on_gpu, objective, higher), "this GPU, the configuration best at the most problem sizes"
        return _most_common(self.data, objective, higher), "no result of this GPU: the configuration best on the most GPUs and sizes"

    def get_best_config(self, gpu_name="default", problem_size=None):
        return self.choose(gpu_name, problem_size)[0]


def create_device_targets(header_filename, results_filename, objective=None, objective_higher_is_better=None):
    """A header of #defines for each GPU of the results file (TARGET_<gpu>), and a default for any other."""
    results = TuneResults(results_filename)
    targets = {gpu: results.get_best_config(gpu) for gpu in sorted({e["device_name"] for e in results.data})}
    blocks = []
    for i, (gpu, params) in enumerate(targets.items()):
        blocks.append(("#ifdef" if i == 0 else "#elif defined(") + f" TARGET_{gpu}" + ("" if i == 0 else ")") + "\n"
                      + "\n".join(f"#define {k} {v}" for k, v in params.items()))
    default = "\n".join(f"#define {k} {v}" for k, v in results.get_best_config().items())
    text = ("/* written by occbench.integration.create_device_targets from " + os.path.basename(results_filename) + " */\n"
            "#pragma once\n#ifndef kernel_tuner /* only when not tuning */\n" + "\n".join(blocks)
            + ("\n#else /* any other GPU */\n" if blocks else "\n") + default + ("\n#endif" if blocks else "") + "\n#endif /* kernel_tuner */\n")
    with open(header_filename, "w") as f:
        f.write(text)
