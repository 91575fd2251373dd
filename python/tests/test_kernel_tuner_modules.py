"""Kernel Tuner's modules under occbench's names, without a GPU: integration (results files, the
choice for a GPU and problem size, device targets), kernelbuilder's choice from a results file,
accuracy (Tunable arguments splitting the space, error metrics), and observers (sorted by what
occbench does with each; what it cannot read raises)."""
import json
import types

import numpy as np
import pytest

from occbench import accuracy, integration, kernelbuilder
from occbench._observers import ObserverSet
from occbench.observers import (BenchmarkObserver, NCUObserver, NVMLObserver, OutputObserver, PowerSensorObserver,
                                RegisterObserver, TegraObserver)
from occbench.observers.nvml import get_nvml_pwr_limits
from occbench.util import RuntimeFailedConfig


def results_of(times, failed=()):
    out = [{"block_size_x": b, "time": t} for b, t in times.items()]
    out += [{"block_size_x": b, "time": RuntimeFailedConfig("x"), "__error__": RuntimeFailedConfig()} for b in failed]
    return out


def test_results_files_keep_the_best_per_gpu_and_size_and_choose_by_the_documented_rule(tmp_path):
    path = str(tmp_path / "results.json")
    tune = {"block_size_x": [64, 128, 256]}
    integration.store_results(path, "k", "__global__ void k() {}", tune, 1000, results_of({64: 1.0, 128: 0.5, 256: 0.51}, [32]),
                              {"device_name": "NVIDIA H200"})
    integration.store_results(path, "k", "", tune, 2000, results_of({64: 1.0, 128: 2.0, 256: 0.9}), {"device_name": "NVIDIA H200"})
    integration.store_results(path, "k", "", tune, 1000, results_of({64: 0.2, 128: 0.5}), {"device_name": "Tesla T4"})
    data = json.loads(open(path).read())
    assert data["version_number"] == "1.0" and {d["device_name"] for d in data["data"]} == {"NVIDIA_H200", "Tesla_T4"}
    assert not any(d["tunable_parameters"]["block_size_x"] == 32 for d in data["data"])  # a failed one is never stored
    results = integration.TuneResults(path)
    assert results.choose("NVIDIA H200", 1000) == ({"block_size_x": 128}, "this GPU at this problem size")
    assert results.choose("NVIDIA H200", 2000)[0] == {"block_size_x": 256}
    assert results.choose("NVIDIA H200", 5000) == ({"block_size_x": 256},
                                                   "this GPU, the configuration best at the most problem sizes")
    assert results.choose("NVIDIA A100", 1000)[1].startswith("no result of this GPU")
    header = tmp_path / "targets.h"
    integration.create_device_targets(str(header), path)
    text = header.read_text()
    assert "#ifdef TARGET_NVIDIA_H200\n#define block_size_x 256" in text and "TARGET_Tesla_T4" in text
    with pytest.raises(ValueError, match="not k2 by time"):
        integration.store_results(path, "k2", "", tune, 1000, results_of({64: 1.0}), {"device_name": "NVIDIA H200"})
    with pytest.raises(ValueError, match="none passed"):
        integration.store_results(path, "k", "", tune, 1000, results_of({}, [64]), {"device_name": "NVIDIA H200"})


def test_python_kernel_takes_its_configuration_from_a_results_file(tmp_path, monkeypatch):
    path = str(tmp_path / "results.json")
    integration.store_results(path, "vector_add", "", {"block_size_x": [64, 128]}, 100, results_of({64: 1.0, 128: 0.5}),
                              {"device_name": "NVIDIA H200"})
    from occbench import cache
    monkeypatch.setattr(cache, "device_name", lambda index: "NVIDIA H200")
    a = np.ones(100, np.float32)
    k = kernelbuilder.PythonKernel("vector_add", "__global__ void vector_add(float *c, float *a, float *b, int n) {}", 100,
                                   [a, a, a, np.int32(100)], results_file=path, verbose=False)
    assert k.params == {"block_size_x": 128} and "this GPU at this problem size" in k.why
    with pytest.raises(ValueError, match="inputs, outputs: expected 4 flags"):
        kernelbuilder.PythonKernel("vector_add", "", 100, [a, a, a, np.int32(100)], inputs=[True])


def test_tunable_arguments_split_the_space_and_precision_converts_the_array():
    x = np.linspace(0, 1, 8)
    arg = accuracy.TunablePrecision("float_type", x)
    assert {k: v.dtype for k, v in arg.items()} == {"double": np.float64, "float": np.float32, "half": np.float16}
    splits = accuracy.split_by_tunables([np.int32(8), arg], {"float_type": ["float", "half"], "block_size_x": [32, 64]})
    assert [s[0] for s in splits] == [{"float_type": ["float"], "block_size_x": [32, 64]},
                                      {"float_type": ["half"], "block_size_x": [32, 64]}]
    assert splits[1][1][1].dtype == np.float16 and splits[1][1][0] == np.int32(8)
    with pytest.raises(ValueError, match="'float_type' is not a tunable parameter"):
        accuracy.split_by_tunables([arg], {"block_size_x": [32]})
    with pytest.raises(KeyError, match="'quad' is not among its values"):
        arg({"float_type": "quad"})


def test_error_metrics_by_kernel_tuners_names():
    a, b = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.5, 3.0])
    assert accuracy.error_metric_from_name("RMSE")(a, b) == pytest.approx(np.sqrt((0.25 + 1) / 3))
    assert accuracy.error_metric_from_name("max abs error")(a, b) == 1.0
    assert accuracy.error_metric_from_name("MRE")(a, b) == pytest.approx((0.25 + 0.25) / 3)
    with pytest.raises(ValueError, match="unknown error metric 'wobble'"):
        accuracy.error_metric_from_name("wobble")
    obs = accuracy.AccuracyObserver("MAE", "error_mae")
    obs.process_output([None, a], [np.zeros(3), b])
    assert obs.get_results() == {"error_mae": pytest.approx(0.5)}


class Counting(BenchmarkObserver):
    def __init__(self):
        self.calls = []

    def register_configuration(self, params):
        self.calls.append(("config", params))

    def before_start(self):
        self.calls.append("before_start")

    def during(self):
        self.calls.append("during")

    def after_finish(self):
        self.calls.append("after_finish")

    def get_results(self):
        return {"count": np.int64(len(self.calls))}


def test_observers_are_sorted_by_what_occbench_does_with_each():
    own = Counting()
    s = ObserverSet([NVMLObserver(["nvml_energy"]), NCUObserver(), RegisterObserver(), own, accuracy.AccuracyObserver()])
    assert s.engine_flags() == ["--counters", "--energy"] and s.registers and len(s.own) == 2 and len(s.outputs) == 1
    assert ObserverSet("energy").engine_flags() == ["--energy"]  # one observer, not its letters
    before, between, after = s.hooks(lambda p: {"b": p["b"]})
    before({"b": 64, "kernel_tuner": 1})
    between()
    assert json.loads(after()) == {"count": 4, "error": None}
    assert own.calls[0] == ("config", {"b": 64})
    for unsupported in (lambda: PowerSensorObserver(["ps_energy"]), lambda: TegraObserver(["core_freq"]), lambda: get_nvml_pwr_limits()):
        with pytest.raises(NotImplementedError):
            unsupported()
    with pytest.raises(ValueError, match="no observer like magic"):
        ObserverSet(["magic"])


@pytest.mark.parametrize("module, name, call", [
    ("occbench.observers.pmt", "PMTObserver", lambda c: c([("nvidia", 0), "rapl"])),
    ("occbench.observers.tegra", "TegraObserver", lambda c: c(["core_freq"])),
    ("occbench.observers.powersensor", "PowerSensorObserver", lambda c: c(["ps_energy"])),
    ("occbench.energy.energy", "create_power_frequency_model", lambda c: c(device=0, n_samples=10)),
])
def test_kernel_tuners_modules_of_what_occbench_cannot_read_import_and_raise_naming_it(module, name, call):
    import importlib
    thing = getattr(importlib.import_module(module), name)  # the import itself works, as in Kernel Tuner's scripts
    with pytest.raises(NotImplementedError, match=name):
        call(thing)


def test_clocks_as_tunable_parameters_map_to_the_sm_clock_axis_and_power_limits_are_refused():
    from occbench._space import TuneParams
    space = TuneParams({"block_size_x": [64], "nvml_gr_clock": [1980, 1245]})
    assert space.axes() == {"block_size_x": [64], "sm_clock_mhz": [1980, 1245]}
    assert space.decode({"block_size_x": 64, "sm_clock_mhz": 1245}) == {"block_size_x": 64, "nvml_gr_clock": 1245}
    with pytest.raises(NotImplementedError, match="never changes the GPU's power limit"):
        TuneParams({"nvml_pwr_limit": [300]})


def test_ncu_observers_metrics_come_from_occbenchs_counters_under_their_names():
    obs = NCUObserver(["dram__bytes.sum", "gpu__time_duration.sum"])
    s = ObserverSet([obs])
    assert s.engine_flags() == ["--counters"]
    record = {"counters": {"status": "ok", "dram_read_bytes": 100, "dram_write_bytes": 50, "duration_ns": 7}}
    assert s.record_values(record) == {"dram__bytes.sum": 150, "gpu__time_duration.sum": 7}
    assert s.record_values({"counters": {"status": "unavailable"}})["dram__bytes.sum"] is None
    with pytest.raises(NotImplementedError, match="smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"):
        NCUObserver(["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"])
