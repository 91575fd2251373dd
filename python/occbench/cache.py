"""Kernel Tuner's cache files: read, resumed and written in Kernel Tuner's own format, so a
space measured by either tool is a cache of the other (and ``occbench replay`` reads it).

The format: a JSON object with device_name, kernel_name, problem_size, tune_params_keys,
tune_params, objective and cache, the last a map from "v1,v2,..." (the parameters' values in
tune_params_keys' order) to the result; Kernel Tuner writes it open (without the closing "}\\n}")
while it tunes, so an interrupted run can go on."""

import json
from pathlib import Path

import numpy as np

from ._results import metric_value
from .util import ERROR_CLASSES


def cache_key(params, keys):
    return ",".join(str(params[k]) for k in keys)


def _plain(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value) if isinstance(value, str) else value


def read_cache(path):
    """A Kernel Tuner cache file as a dict (closed or left open by an interrupted run); failed
    entries get their error class in ``__error__``, as Kernel Tuner reads them."""
    text = Path(path).read_text().strip()
    if text and text[-3:] not in ("}\n}", "}}}") and not text.endswith("}}"):
        text = text.rstrip(",") + "}\n}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: not a Kernel Tuner cache file (line {e.lineno}: {e.msg})") from None
    for key in ("tune_params_keys", "cache"):
        if key not in data:
            raise ValueError(f"{path}: not a Kernel Tuner cache file: no '{key}'")
    for entry in data["cache"].values():
        for value in list(entry.values()):
            if isinstance(value, str) and value in ERROR_CLASSES:
                entry["__error__"] = ERROR_CLASSES[value]()
    return data


def write_cache(path, data):
    """Writes a cache dict as a closed Kernel Tuner cache file."""
    out = dict(data)
    out["cache"] = {k: {n: _plain(v) for n, v in e.items() if n != "__error__"} for k, e in data["cache"].items()}
    Path(path).write_text(json.dumps(out, indent=1, default=_plain))


class Cache:
    """tune_kernel's cache=: the entries already measured (skipped, returned as they are) and the file the new ones join."""

    def __init__(self, path, data):
        self.path, self.data = Path(path), data
        self.keys = data["tune_params_keys"]

    @property
    def entries(self):
        return self.data["cache"]

    def merge(self, results, document, metrics=None):
        """The new results added to the file; returns every entry, cached ones with the metrics they lack."""
        device = document.get("device", {}).get("name")
        if self.data.get("device_name") in (None, "") and device:
            self.data["device_name"] = device
        for r in results:
            entry = {k: v for k, v in r.items() if not isinstance(v, (list, dict)) or k in ("grid", "block")}
            self.entries[cache_key(r, self.keys)] = entry
        write_cache(self.path, self.data)
        merged = [dict(e) for e in self.entries.values()]
        for entry in merged:
            for name, metric in (metrics or {}).items():
                if name not in entry and isinstance(entry.get("time"), (int, float)) and "__error__" not in entry:
                    entry[name] = metric_value(metric, entry)
        return merged


def open_cache(path, kernel_name, problem_size, tune_params):
    """The cache at path (Kernel Tuner's checks: the same kernel and parameters), or a new one."""
    path = Path(str(path) if str(path).endswith(".json") else str(path) + ".json")
    keys = list(tune_params)
    if not path.exists():
        data = {"device_name": "", "kernel_name": kernel_name,
                "problem_size": problem_size if not callable(problem_size) else "callable",
                "tune_params_keys": keys, "tune_params": tune_params, "objective": "time", "cache": {}}
        return Cache(path, data)
    data = read_cache(path)
    if data.get("kernel_name") != kernel_name:
        raise ValueError(f"cache: {path} holds results of the kernel '{data.get('kernel_name')}', not '{kernel_name}'")
    if data["tune_params_keys"] != keys:
        raise ValueError(f"cache: {path} holds results over the parameters {data['tune_params_keys']}; this tuning has {keys}")
    return Cache(path, data)
