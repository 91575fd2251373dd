"""occbench's records as Kernel Tuner's results: a list of dicts with the tunable parameters and
``time`` in ms, each with occbench's fields beside, flat so that a DataFrame of them reads well."""

import datetime
import warnings

from ._space import TuneParams
from .util import CompilationFailedConfig, InvalidConfig, RuntimeFailedConfig


class Results(list):
    """Kernel Tuner's results list; ``frame()`` is a pandas DataFrame of it, one row per configuration."""

    def frame(self):
        import pandas as pd
        rows = [{k: (str(v) if k in ("time", "__error__") and isinstance(v, str) else v) for k, v in r.items()} for r in self]
        return pd.DataFrame(rows)


def to_dataframe(results):
    """A pandas DataFrame of tune_kernel's results (or of any list of result dicts)."""
    return Results(results).frame()


def _error(record):
    reason = record.get("reason", "")
    if record.get("status") == "skipped":
        return InvalidConfig(reason)
    if any(word in reason.lower() for word in ("nvrtc", "compil", "ptxas")):
        return CompilationFailedConfig(reason)
    return RuntimeFailedConfig(reason)


def _occbench_fields(record):
    timing, occupancy = record.get("timing") or {}, record.get("occupancy") or {}
    resources, verification = record.get("resources") or {}, record.get("verification") or {}
    metrics, launch = record.get("metrics") or {}, record.get("launch") or {}
    fields = {
        "status": record.get("status"),
        "reason": record.get("reason", ""),
        "verification": verification.get("status"),
        "noise": timing.get("noise"),
        "samples": timing.get("samples"),
        "min_time": timing.get("min_ms"),
        "occupancy": occupancy.get("theoretical"),
        "occupancy_limiter": occupancy.get("limiter"),
        "registers_per_thread": resources.get("registers_per_thread"),
        "static_smem_bytes": resources.get("static_smem_bytes"),
        "grid": launch.get("grid"),
        "block": launch.get("block"),
        "achieved_bandwidth_gbps": metrics.get("achieved_bandwidth_gbps"),
        "point_id": record.get("point_id"),
    }
    for section in ("energy", "counters", "clocks"):
        if section in record:
            fields[section] = record[section]
    energy = record.get("energy") or {}
    if energy.get("status") == "ok":  # Kernel Tuner's NVMLObserver's names
        fields.update(nvml_energy=energy.get("joules_per_launch"), nvml_power=energy.get("average_w"),
                      temperature=energy.get("gpu_temperature_c"))
    return fields


def _kernel_tuner_times(record):
    """Kernel Tuner's per-configuration times in ms: compile, verification, benchmark, the strategy's
    (the engine's time to choose the configuration, outside its own wall time), and the framework's share (the rest of the point's wall time: its buffers, launches and records)."""
    compile_block = record.get("compile") or {}
    uses = record.get("time_use") or {}
    timing = record.get("timing") or {}
    times = {
        "compile_time": float(compile_block.get("compile_ms", 0) or 0),  # 0 where NVRTC's disk cache held it
        "verification_time": 1e3 * float(uses.get("verify_s", 0) or 0),
        "benchmark_time": 1e3 * float(timing.get("sampling_wall_s", uses.get("sampling_s", 0)) or 0),
        "strategy_time": 1e3 * float(uses.get("search_s", 0) or 0),  # the search's choice of this configuration
    }
    point_ms = 1e3 * float(uses.get("point_s", 0) or 0)
    times["framework_time"] = max(0.0, point_ms - times["compile_time"] - times["verification_time"] - times["benchmark_time"])
    return times


def metric_value(metric, result):
    """A Kernel Tuner metric of one result: a function of it, or a string expression of its keys."""
    return metric(result) if callable(metric) else eval(metric, {}, dict(result))


def _metric_or_none(name, metric, result):
    """A metric of one result; None (said once) where it reads a value this result lacks, such as
    an energy a configuration too short to read has none of: one configuration's gap never ends the tuning."""
    try:
        return metric_value(metric, result)
    except (KeyError, NameError, TypeError, ZeroDivisionError) as e:
        warnings.warn(f"metrics['{name}']: {type(e).__name__}: {e} for the configuration "
                      f"{ {k: v for k, v in result.items() if not isinstance(v, (dict, list))} }; its value is None")
        return None


def records_to_results(document, space, metrics, registers=False, observed=None):
    """One result per record of the tuned kernel, in the order the run measured them; ``space``
    (occbench._space.TuneParams) gives each parameter its own value back."""
    space = space if isinstance(space, TuneParams) else TuneParams(space)
    results = []
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat()
    for record in document.get("results", []):
        result = space.from_record(record.get("params", {}))
        if len(result) != len(space.values):
            continue  # not a point of the tuned kernel
        if record.get("status") == "ok":
            result["time"] = float(record["timing"]["median_ms"])
            result["times"] = list((record.get("timing") or {}).get("samples_ms") or [result["time"]])
        else:
            result["time"] = result["__error__"] = _error(record)
        result.update(_kernel_tuner_times(record))
        result["timestamp"] = (record.get("time_use") or {}).get("finished_utc") or stamp
        result.update(_occbench_fields(record))  # before the metrics: they may use an observer's values
        result.update(record.get("observers") or {})  # the caller's own observers' results (Kernel Tuner's names)
        if registers:  # RegisterObserver
            result["num_regs"] = (record.get("resources") or {}).get("registers_per_thread")
        if observed is not None:  # NCUObserver's metrics under Nsight Compute's names
            result.update(observed.record_values(record))
        for name, metric in metrics.items():
            if "__error__" in result:
                result[name] = result["__error__"]
            else:
                result[name] = _metric_or_none(name, metric, result)
        results.append(result)
    return results


def environment(document, tuning, strategy, wall_s, exit_code):
    """Kernel Tuner's env (device, problem, options) with occbench's device and run blocks."""
    device = document.get("device", {})
    problem_size = tuning.problem_size
    if callable(problem_size):
        problem_size = "callable"
    elif isinstance(problem_size, (tuple, list)):
        problem_size = [p if isinstance(p, str) else int(p) for p in problem_size]
    elif not isinstance(problem_size, str):
        problem_size = int(problem_size)
    capability = str(device.get("compute_capability", "")).replace(".", "")
    env = {
        "device_name": device.get("name"),
        "pci_bus_id": device.get("pci_bus_id"),
        "cuda_version": device.get("driver_version"),
        "compute_capability": capability or None,
        "device_properties": {k: v for k, v in device.items() if not isinstance(v, dict)},
        "compiler_options": tuning.options,
        "problem_size": problem_size,
        "kernel_name": tuning.kernel_name,
        "tune_params": tuning.tune_params,
        "strategy": strategy,
        "iterations": tuning.iterations,
        "total_time": wall_s * 1e3,
        "occbench": {"version": document.get("tool", {}).get("version"), "device": device, "run": document.get("run", {}),
                     "exit_code": exit_code, "measurement": document.get("config", {}).get("measurement")},
    }
    return env


def total_timings(results, env):
    """Kernel Tuner's totals over the results (get_total_timings), in ms; overhead_time: the rest of the wall."""
    names = ("framework_time", "strategy_time", "compile_time", "verification_time", "benchmark_time")
    for name in names:
        env[f"total_{name}"] = sum(float(r.get(name, 0) or 0) for r in results)
    env["overhead_time"] = env["total_time"] - sum(env[f"total_{name}"] for name in names)
    return env
