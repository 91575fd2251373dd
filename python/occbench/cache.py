"""Kernel Tuner's cache files: read, resumed and written in Kernel Tuner's own format, so a
space measured by either tool is a cache of the other (and ``occbench replay`` reads it).

The format: a JSON object with device_name, kernel_name, problem_size, tune_params_keys,
tune_params, objective and cache, the last a map from "v1,v2,..." (the parameters' values in
tune_params_keys' order) to the result. As Kernel Tuner does, the file is kept open (without its
closing "}\\n}") while a tuning runs and each configuration is appended as soon as it is measured,
so a tuning killed at any moment loses at most the configuration in flight; it is closed at the end.

A cache is never a wrong answer: one for another kernel, problem size, device or set of parameters
is refused as Kernel Tuner refuses it, and only the configurations asked for come back."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np

from ._results import metric_value
from .util import ERROR_CLASSES, ErrorConfig


def cache_key(params, keys):
    return ",".join(str(params[k]) for k in keys)


def _plain(value):
    if isinstance(value, ErrorConfig):
        return str(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _text(path):
    """The file's text; a path that is no regular file (a folder, a FIFO) is refused, not opened."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except OSError as e:
        raise ValueError(f"cache: cannot read {path}: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"cache: {path} is not a regular file; expected a Kernel Tuner cache file (.json)")
    try:
        return path.read_text()
    except UnicodeDecodeError as e:
        raise ValueError(f"cache: {path} is not a Kernel Tuner cache file (not UTF-8 text at byte {e.start})") from None


def read_cache(path):
    """A Kernel Tuner cache file as a dict (closed or left open by an interrupted run); failed
    entries get their error class in ``__error__``, as Kernel Tuner reads them."""
    text = _text(path).strip()
    if text and text[-3:] not in ("}\n}", "}}}") and not text.endswith("}}"):
        if not text.endswith((",", "{")) and "},\n" in text:  # a kill in the middle of appending: the last entry is torn
            text = text[: text.rindex("},\n") + 2]
        text = text.rstrip(",") + ("}\n}" if not text.rstrip(",").endswith("{") else "}}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"cache: {path} is not a Kernel Tuner cache file (line {e.lineno}: {e.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"cache: {path} is not a Kernel Tuner cache file: expected a JSON object")
    for key in ("tune_params_keys", "cache"):
        if key not in data:
            raise ValueError(f"cache: {path} is not a Kernel Tuner cache file: no '{key}'")
    for entry in data["cache"].values():
        for value in list(entry.values()):
            if isinstance(value, str) and value in ERROR_CLASSES:
                entry["__error__"] = ERROR_CLASSES[value]()
    return data


def _entry(result):
    return {k: _plain(v) for k, v in result.items() if k != "__error__" and (not isinstance(v, (list, dict)) or k in ("grid", "block", "times"))}


def write_cache(path, data):
    """Writes a cache dict as a closed Kernel Tuner cache file."""
    out = dict(data)
    out["cache"] = {k: _entry(e) for k, e in data["cache"].items()}
    Path(path).write_text(json.dumps(out, indent=1, default=_plain))


def _open_for_appending(path, data):
    """The file as Kernel Tuner leaves it while tuning: its entries, each ending in ",", and no
    closing "}\n}"."""
    head = {k: v for k, v in data.items() if k != "cache"}
    text = json.dumps(head, indent="", default=_plain)[:-2] + ',\n"cache": {'
    for key, entry in data["cache"].items():
        text += "\n" + json.dumps({key: _entry(entry)}, default=_plain)[1:-1] + ","
    Path(path).write_text(text)


def _same_problem_size(cached, requested):
    as_list = lambda p: list(p) if isinstance(p, (list, tuple)) else [p]
    return [str(v) for v in as_list(cached)] == [str(v) for v in as_list(requested)]


class Cache:
    """tune_kernel's cache=: the configurations already measured (skipped, returned as they are)
    and the file each new one is appended to as it is measured."""

    def __init__(self, path, data):
        self.path, self.data = Path(path), data
        self.keys = data["tune_params_keys"]

    @property
    def entries(self):
        return self.data["cache"]

    def requested(self, tune_params, restrictions=None):
        """The cached configurations this tuning asks for: each value among its tune_params and,
        where given, passing its restrictions; a cache holding more gives back only these."""
        allowed = {k: {str(v) for v in values} for k, values in tune_params.items()}
        out = {}
        for key, entry in self.entries.items():
            if not all(k in entry and str(entry[k]) in allowed[k] for k in self.keys):
                continue
            if restrictions is not None and not restrictions({k: entry[k] for k in self.keys}):
                continue
            out[key] = entry
        return out

    def append(self, result):
        """One configuration measured: appended to the open file at once (Kernel Tuner's store_cache)."""
        key = cache_key(result, self.keys)
        entry = _entry(result)
        with open(self.path, "a") as f:
            f.write("\n" + json.dumps({key: entry}, default=_plain)[1:-1] + ",")
            f.flush()
            os.fsync(f.fileno())
        self.entries[key] = dict(entry, **({"__error__": result["__error__"]} if "__error__" in result else {}))

    def close(self, results, requested, metrics=None):
        """The file closed with every configuration it holds; returns those asked for (cached ones
        first, with the metrics they lack), then this run's."""
        on_disk = read_cache(self.path)["cache"] if self.path.is_file() else {}
        self.entries.update(on_disk)
        for r in results:
            self.entries[cache_key(r, self.keys)] = r
        write_cache(self.path, self.data)
        fresh = {cache_key(r, self.keys) for r in results}
        merged = [dict(e) for k, e in requested.items() if k not in fresh] + [dict(r) for r in results]
        for entry in merged:
            for name, metric in (metrics or {}).items():
                if name not in entry and isinstance(entry.get("time"), (int, float)) and "__error__" not in entry:
                    entry[name] = metric_value(metric, entry)
        return merged

    # Kept for scripts that used it: the new results added and the file closed.
    def merge(self, results, document, metrics=None):
        device = document.get("device", {}).get("name")
        if self.data.get("device_name") in (None, "") and device:
            self.data["device_name"] = device
        requested = dict(self.entries)
        return self.close(results, requested, metrics)


def device_name(index):
    """The name CUDA gives device `index` (as the run's record and Kernel Tuner's cache say it),
    asked in a child process (this one must not start CUDA: its measuring children are forks);
    None where no GPU answers."""
    code = ("import ctypes, sys\n"
            "c = ctypes.CDLL('libcuda.so.1')\n"
            "d, name = ctypes.c_int(), ctypes.create_string_buffer(256)\n"
            "ok = c.cuInit(0) == 0 and c.cuDeviceGet(ctypes.byref(d), int(sys.argv[1])) == 0 and c.cuDeviceGetName(name, 256, d) == 0\n"
            "print(name.value.decode() if ok else '')\n")
    try:
        out = subprocess.run([sys.executable, "-c", code, str(int(index))], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def open_cache(path, kernel_name, problem_size, tune_params, device=None):
    """The cache at path, checked as Kernel Tuner checks it (the same kernel, problem size, device
    and parameters), left open for appending; or a new one. `device`: this run's GPU's name, where
    known (a cache of another GPU is refused)."""
    path = Path(str(path) if str(path).endswith(".json") else str(path) + ".json")
    keys = list(tune_params)
    sized = problem_size if not callable(problem_size) else "callable"
    if not path.exists() and not path.is_symlink():
        data = {"device_name": device or "", "kernel_name": kernel_name, "problem_size": sized, "tune_params_keys": keys,
                "tune_params": tune_params, "objective": "time", "cache": {}}
        try:
            _open_for_appending(path, data)
        except OSError as e:
            raise ValueError(f"cache: cannot write {path}: {e.strerror}") from None
        return Cache(path, data)
    data = read_cache(path)
    if data.get("kernel_name") != kernel_name:
        raise ValueError(f"cache: {path} holds results of the kernel '{data.get('kernel_name')}', not '{kernel_name}'")
    if not callable(problem_size) and "problem_size" in data and not _same_problem_size(data["problem_size"], problem_size):
        raise ValueError(f"cache: {path} holds results for the problem_size {data['problem_size']}, not {problem_size} "
                         "(Kernel Tuner: Cannot load cache which contains results for different problem_size)")
    if data["tune_params_keys"] != keys:
        raise ValueError(f"cache: {path} holds results over the parameters {data['tune_params_keys']}; this tuning has {keys}"
                         + (" (the same names in another order: the order makes the keys)" if sorted(keys) == sorted(data["tune_params_keys"]) else ""))
    if device and data.get("device_name") and data["device_name"] != device:
        raise ValueError(f"cache: {path} holds results of the GPU '{data['device_name']}', not this run's '{device}' "
                         "(Kernel Tuner: Cannot load cache which contains results for different device)")
    if device and not data.get("device_name"):
        data["device_name"] = device
    _open_for_appending(path, data)
    return Cache(path, data)
