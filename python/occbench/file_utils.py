"""Kernel Tuner's result files: the autotuning community's T4 results format
(schema T4 1.0.0, as Kernel Tuner writes it) and its metadata file."""

import json
import platform
import subprocess
from pathlib import Path

from .cache import _plain
from .util import CompilationFailedConfig, InvalidConfig, RuntimeFailedConfig

T4_VERSION = "1.0.0"
_TIMINGS = {"compilation": "compile_time", "benchmark": "benchmark_time", "framework": "framework_time",
            "search_algorithm": "strategy_time", "validation": "verification_time"}


def _invalidity(result):
    error = result.get("__error__")
    if error is None:
        return "correct"
    if isinstance(error, CompilationFailedConfig):
        return "compile"
    if isinstance(error, InvalidConfig):
        return "constraints"
    return "runtime"


def _t4_value(value):
    """T4's measurement values are numbers, strings or arrays: a flag is 1 or 0."""
    return int(value) if isinstance(value, bool) else value


def _measurements(result):
    """A result's values as T4 measurements hold them (numbers, strings, lists): sections such as
    energy become one measurement per field ("energy.joules"), values that are not there are left out."""
    for k, v in result.items():
        if isinstance(v, dict):
            for name, value in v.items():
                if value is not None and not isinstance(value, (dict, list)):
                    yield f"{k}.{name}", _t4_value(value)
        elif v is not None:
            yield k, _t4_value(v)


def get_t4_results(results, tune_params, objective="time"):
    """The T4 document of tune_kernel's results (Kernel Tuner's get_t4_results): one entry per
    configuration with its timings, validity, correctness and every measured value."""
    if isinstance(objective, (list, tuple)):
        raise ValueError("objective: the T4 format holds one objective")
    skip = set(tune_params) | set(_TIMINGS.values()) | {"timestamp", "times", "__error__"}
    entries = []
    for r in results:
        entry = {"timestamp": r["timestamp"]} if "timestamp" in r else {}
        entry["configuration"] = {k: _plain(v) for k, v in r.items() if k in tune_params}
        entry["times"] = {t4: r.get(key, 0) for t4, key in _TIMINGS.items()}
        entry["times"]["runtimes"] = list(r.get("times", []))
        entry["invalidity"] = _invalidity(r)
        entry["correctness"] = 0 if r.get("verification") == "failed" else 1
        entry["measurements"] = [{"name": k, "value": _plain(v), "unit": "ms" if k.startswith("time") else ""}
                                 for k, v in _measurements(r) if k not in skip]
        entry["objectives"] = [objective]
        entries.append(entry)
    return {"results": entries, "schema_version": T4_VERSION, "metadata": {"timeunit": "milliseconds"}}


def _json_path(name):
    return Path(name if str(name).endswith(".json") else str(name) + ".json")


def store_output_file(output_filename, results, tune_params, objective="time"):
    """Writes tune_kernel's results in the T4 results format (as Kernel Tuner's store_output_file)."""
    path = _json_path(output_filename)
    path.write_text(json.dumps(get_t4_results(results, tune_params, objective), default=_plain))
    return path


def get_t4_metadata():
    """The T4 metadata document: this machine (its OS), its GPUs (nvidia-smi's query, where there
    is one) and the Python libraries occbench ran with, under T4's names."""
    from importlib import metadata as importlib_metadata
    from . import _engine
    query = {}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        if out.returncode == 0:
            query = {"gpus": [line.strip() for line in out.stdout.splitlines() if line.strip()]}
    except (OSError, subprocess.SubprocessError):
        pass
    requirements = [_engine.version()]
    for name in ("numpy", "pandas"):
        try:
            requirements.append(f"{name}=={importlib_metadata.version(name)}")
        except importlib_metadata.PackageNotFoundError:
            pass
    return {"schema_version": T4_VERSION,
            "metadata": {"hardware": {"hardware_description": [{"processor": platform.processor() or platform.machine()}],
                                      "operating_system": platform.platform()},
                         "environment": {"device_query": query, "requirements": requirements}}}


def store_metadata_file(metadata_filename):
    """Writes the T4 metadata file (as Kernel Tuner's store_metadata_file)."""
    path = _json_path(metadata_filename)
    path.write_text(json.dumps(get_t4_metadata(), indent=1))
    return path


def record_to_t4(record_path, output_filename, objective="time"):
    """An occbench run's results document (``occbench run`` writes it) in the T4 results format:
    each point's axes as its configuration (sizes left out), its median as ``time``."""
    from ._results import records_to_results
    document = json.loads(Path(record_path).read_text())
    config = document.get("config", {})
    axes = dict(config.get("axes", {}))
    for variant_axes in (config.get("variant_axes") or {}).values():
        axes.update(variant_axes)
    results = records_to_results(document, axes, {})
    return store_output_file(output_filename, results, axes, objective)
