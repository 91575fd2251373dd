"""occbench's Python package without a GPU: Kernel Tuner's signature and meaning (arguments,
restrictions, launches), the errors a bad argument raises, the engine's own check of the config it
writes (in this process), cache files Kernel Tuner wrote, the T4 format and the DataFrame."""
import inspect
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

import occbench
from occbench import _engine
from occbench._results import records_to_results
from occbench._space import Launch, Restrictions, check_tune_params, unroll_pragmas
from occbench.cache import open_cache, read_cache, write_cache
from occbench.file_utils import get_t4_results
from occbench.interface import _Tuning, _in_process_flags, _strategy_flags
from occbench.util import CompilationFailedConfig, InvalidConfig, RuntimeFailedConfig, get_best_config

DATA = Path(__file__).parent / "data"
KERNEL_TUNER_KEYWORDS = ("grid_div_x grid_div_y grid_div_z restrictions answer atol verify verbose lang device platform "
                         "smem_args cmem_args texmem_args compiler compiler_options defines log iterations block_size_names "
                         "quiet strategy strategy_options cache metrics simulation_mode parallel observers objective "
                         "objective_higher_is_better objectives seed").split()
VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}"""


def vector_args(n=4096):
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    return [np.zeros_like(a), a, a.copy(), np.int32(n)], a + a


def tuning(tune_params=None, restrictions=None, **kw):
    args, expected = vector_args()
    options = dict(answer=[expected, None, None, None], atol=1e-6, verify=None, smem_args=None, cmem_args=None,
                   compiler_options=None, defines=None, block_size_names=None, iterations=7, lang=None)
    options.update(kw)
    return _Tuning("vector_add", options.pop("source", VECTOR_ADD), 4096, args, tune_params or {"block_size_x": [64, 128, 256]},
                   options.pop("grid_div", (None, None, None)), restrictions, options["answer"], options["atol"],
                   options["verify"], options["smem_args"], options["cmem_args"], options["compiler_options"],
                   options["defines"], options["block_size_names"], options["iterations"], options["lang"])


def validate(t):
    with tempfile.TemporaryDirectory() as folder:
        return t.validate(Path(folder))


def test_the_signature_is_kernel_tuners():
    tune = inspect.signature(occbench.tune_kernel).parameters
    assert list(tune)[:5] == ["kernel_name", "kernel_source", "problem_size", "arguments", "tune_params"]
    assert [k for k in KERNEL_TUNER_KEYWORDS if k not in tune] == []
    assert tune["atol"].default == 1e-6 and tune["iterations"].default == 7
    run = inspect.signature(occbench.run_kernel).parameters
    assert list(run)[:5] == ["kernel_name", "kernel_source", "problem_size", "arguments", "params"]


def test_the_engine_checks_the_config_and_applies_the_restrictions_here():
    summary = validate(tuning({"block_size_x": [64, 128, 256, 512, 2048]}, ["block_size_x != 128"]))
    assert "3 points" in summary  # 128 ruled out; 2048 over Kernel Tuner's 1024 threads


def test_restrictions_in_kernel_tuners_python_syntax_and_as_functions():
    r = Restrictions(["block_size_x * tile == 256 or tile == 1", lambda p: p["block_size_x"] >= 64], {"block_size_x": [], "tile": []})
    assert r({"block_size_x": 128, "tile": 2}) and r({"block_size_x": 64, "tile": 1})
    assert not r({"block_size_x": 128, "tile": 4}) and not r({"block_size_x": 32, "tile": 1})
    assert Restrictions(["max(block_size_x, 32) % 32 == 0"], {"block_size_x": []})({"block_size_x": 96})


@pytest.mark.parametrize("restriction, error, words", [
    ("block_size_y <= 4", ValueError, "unknown parameter name 'block_size_y'"),
    ("block_size_x <=", ValueError, "not a Python expression"),
    (42, TypeError, "expected a string or a function"),
])
def test_a_bad_restriction_raises_naming_it(restriction, error, words):
    with pytest.raises(error, match=words):
        tuning(restrictions=[restriction])


@pytest.mark.parametrize("change, error, words", [
    (dict(arguments=[np.zeros(4, np.float32), 7]), TypeError, r"arguments\[1\]: a Python int"),
    (dict(arguments=[np.zeros(4, np.longdouble)]), TypeError, r"arguments\[0\]: NumPy type float128"),
    (dict(tune_params={"block_size_x": [None]}), TypeError, "expected an int, float, str or bool"),
    (dict(tune_params={"block size": [64]}), ValueError, "not a valid parameter name"),
    (dict(problem_size=(1, 2, 3, 4)), ValueError, "problem_size: expected 1 to 3 dimensions"),
    (dict(problem_size=0), ValueError, r"problem_size\[0\]: expected at least 1"),
    (dict(problem_size=1.5), TypeError, r"problem_size\[0\]"),
    (dict(strategy="simulated_annealing_2"), ValueError, "unknown strategy 'simulated_annealing_2'; occbench has exhaustive"),
    (dict(lang="OpenCL"), NotImplementedError, "lang: occbench compiles CUDA with NVRTC"),
    (dict(lang="C"), NotImplementedError, "it tunes no host code"),
    (dict(cmem_args={"d_filter": np.ones(4, np.float32)}), ValueError, "cmem_args\\['d_filter'\\]: the kernel's source declares no"),
    (dict(texmem_args={"t": np.ones(4)}), NotImplementedError, "texmem_args"),
    (dict(answer=[np.zeros(3, np.float32), None, None, None]), TypeError, r"answer\[0\]: 3 elements"),
    (dict(observers=["power_meter"]), ValueError, "no observer like power_meter"),
    (dict(objective="GFLOP/s"), ValueError, "objective: 'GFLOP/s' is not a field of the results"),
])
def test_a_bad_argument_raises_naming_it(change, error, words):
    args, expected = vector_args()
    call = dict(kernel_name="vector_add", kernel_source=VECTOR_ADD, problem_size=4096, arguments=args,
                tune_params={"block_size_x": [64]}, quiet=True)
    call.update(change)
    with pytest.raises(error, match=words):
        occbench.tune_kernel(**call)


def test_launches_as_kernel_tuner_computes_them():
    launch = Launch((1000, "rows"), (["block_size_x", "tile"], "block_size_y / 2", None), None, {"size": "block_size_x * 4"}, None)
    grid, block, smem, macros = launch({"block_size_x": 64, "tile": 2, "block_size_y": 4, "rows": 10})
    assert grid == (8, 5, 1) and block == (64, 4, 1) and smem == 256
    assert ("grid_size_x", "8") in macros and ("kernel_tuner", "1") in macros and ("tile", "2") in macros
    assert Launch(100, (None, None, None), None, None, None).block({}) == (256, 1, 1)  # Kernel Tuner's default block
    assert Launch("n", ([], None, None), None, None, None).grid({"n": 7}) == (7, 1, 1)  # grid_div_x=[]: the problem size
    with pytest.raises(ValueError, match="grid_div_x"):
        Launch(100, (["zero"], None, None), None, None, None).grid({"zero": 0})


def test_loop_unroll_factor_zero_means_no_pragma():
    source = unroll_pragmas("    #pragma unroll loop_unroll_factor_0\n    for (;;) {}\n", {"loop_unroll_factor_0": [0, 4]})
    assert "constexpr int occbench_loop_unroll_factor_0 = loop_unroll_factor_0;" in source
    assert "#if loop_unroll_factor_0 != 0" in source and "#pragma unroll occbench_loop_unroll_factor_0" in source


def test_kernel_tuners_strategies_map_to_occbench_and_take_its_options():
    assert _strategy_flags("bayes_opt", {"max_fevals": 150, "time_limit": 60})[1] == ["--strategy", "bayes", "--max-points", "150",
                                                                                     "--time-limit", "60.0"]
    assert _strategy_flags(None, None)[1] == []
    assert _strategy_flags("random_sample", {"fraction": 0.1}, 200)[1] == ["--strategy", "random", "--max-points", "20"]
    assert _strategy_flags("greedy_ils", None)[0] == "local"


def test_occbench_in_process_turns_the_forked_child_off_only_when_asked(monkeypatch):
    monkeypatch.delenv("OCCBENCH_IN_PROCESS", raising=False)
    assert _in_process_flags() == []
    monkeypatch.setenv("OCCBENCH_IN_PROCESS", "0")
    assert _in_process_flags() == []
    monkeypatch.setenv("OCCBENCH_IN_PROCESS", "1")
    assert _in_process_flags() == ["--no-supervisor"]


def test_check_tune_params_keeps_values_in_order():
    assert check_tune_params({"b": [np.int64(2), 4], "a": [True, False]}) == {"b": [2, 4], "a": [True, False]}


def record(params, status="ok", median=None, reason=""):
    r = {"point_id": "x", "params": dict(params, kernel_tuner=1), "status": status, "reason": reason,
         "occupancy": {"theoretical": 0.5, "limiter": "registers"}, "verification": {"status": "passed"}}
    if median is not None:
        r["timing"] = {"median_ms": median, "noise": 0.01, "samples": 10}
    return r


def test_records_become_kernel_tuners_results_with_occbench_fields():
    document = {"results": [record({"b": 64}, median=2.0), record({"b": 128}, median=1.0),
                            record({"b": 256}, "failed", reason="NVRTC could not compile k.cu"),
                            record({"b": 512}, "failed", reason="wrong result: 3 of 4096 elements"),
                            record({"b": 2048}, "skipped", reason="needs 2048 threads")]}
    results = records_to_results(document, {"b": [64, 128, 256, 512, 2048]}, {"GB/s": lambda p: 8 / p["time"], "x2": "time * 2"})
    assert [r["b"] for r in results] == [64, 128, 256, 512, 2048]
    assert results[1]["time"] == 1.0 and results[1]["GB/s"] == 8.0 and results[1]["x2"] == 2.0
    assert results[0]["occupancy"] == 0.5 and results[0]["occupancy_limiter"] == "registers" and results[0]["noise"] == 0.01
    assert isinstance(results[2]["time"], CompilationFailedConfig) and isinstance(results[3]["time"], RuntimeFailedConfig)
    assert isinstance(results[4]["time"], InvalidConfig) and str(results[4]["time"]) == "InvalidConfig"
    assert get_best_config(results, "time")["b"] == 128
    frame = occbench.Results(results).frame()
    assert list(frame["b"]) == [64, 128, 256, 512, 2048] and frame.loc[2, "time"] == "CompilationFailedConfig"
    json.dumps(results)  # as Kernel Tuner's scripts save them


def test_a_cache_file_kernel_tuner_wrote_is_read_and_its_configurations_skipped(tmp_path):
    cache_path = tmp_path / "cache.json"
    shutil.copy(DATA / "kernel_tuner_cache_vector_add.json", cache_path)
    data = read_cache(cache_path)
    assert data["device_name"] == "NVIDIA RTX A4000" and len(data["cache"]) == 15
    cached = open_cache(cache_path, "vector_add", 100, {"block_size_x": data["tune_params"]["block_size_x"]})
    assert "128" in cached.entries
    with pytest.raises(ValueError, match="holds results of the kernel 'vector_add', not 'other'"):
        open_cache(cache_path, "other", 100, {"block_size_x": [128]})
    with pytest.raises(ValueError, match="over the parameters"):
        open_cache(cache_path, "vector_add", 100, {"tile": [1]})
    t = tuning({"block_size_x": [128, 192, 2000 // 2]})
    t.restrictions.skip(cached.entries)
    assert "1 points" in validate(t)  # 128 and 192 are in the cache


def test_a_cache_round_trips_and_an_interrupted_one_is_read(tmp_path):
    path = tmp_path / "c.json"
    cache = open_cache(path, "k", (10, 1), {"x": [1, 2]})
    results = cache.merge([{"x": 1, "time": 0.5}, {"x": 2, "time": RuntimeFailedConfig("fault"), "__error__": RuntimeFailedConfig()}],
                          {"device": {"name": "NVIDIA H100 80GB HBM3"}})
    assert len(results) == 2
    again = read_cache(path)
    assert again["device_name"] == "NVIDIA H100 80GB HBM3" and again["cache"]["1"]["time"] == 0.5
    assert isinstance(again["cache"]["2"]["__error__"], RuntimeFailedConfig)
    text = path.read_text().rstrip()
    path.write_text(text[: text.rfind("}", 0, len(text) - 2)] + ",")  # left open, as an interrupted Kernel Tuner leaves it
    assert "1" in read_cache(path)["cache"]


def test_the_t4_results_format_holds_kernel_tuners_schema():
    jsonschema = pytest.importorskip("jsonschema")
    document = {"results": [record({"b": 64}, median=2.0), record({"b": 256}, "failed", reason="NVRTC could not compile")]}
    results = records_to_results(document, {"b": [64, 256]}, {})
    t4 = get_t4_results(results, {"b": [64, 256]})
    jsonschema.validate(t4, json.loads((DATA / "t4-results-schema.json").read_text()))
    assert t4["results"][1]["invalidity"] == "compile" and t4["results"][0]["configuration"] == {"b": 64}


def test_the_engine_is_this_packages_build():
    assert _engine.version().startswith("occbench ")
    assert occbench.__version__ == _engine.version().split()[1]


def test_occbench_replay_reads_the_cache_tune_kernel_writes(tmp_path):
    path = tmp_path / "c.json"
    cache = open_cache(path, "k", 10, {"x": [1, 2, 3, 4]})
    cache.merge([{"x": x, "time": 1.0 / x} for x in (1, 2, 3, 4)], {"device": {"name": "NVIDIA H100 80GB HBM3"}})
    assert _engine.run(["occbench", "replay", str(path), "--seeds", "2", "--out", str(tmp_path / "replay.json")],
                       {}, {}, {}, {}, {}) == 0
    replayed = json.loads((tmp_path / "replay.json").read_text())
    assert "x=4" in json.dumps(replayed)  # the optimum


def test_an_occbench_run_record_is_written_in_the_t4_format(tmp_path):
    document = {"config": {"axes": {"b": [64, 256]}, "sizes": {"n": [10]}},
                "results": [record({"b": 64, "n": 10}, median=2.0), record({"b": 256, "n": 10}, "failed", reason="trap")]}
    (tmp_path / "run.json").write_text(json.dumps(document))
    t4 = occbench.file_utils.record_to_t4(tmp_path / "run.json", tmp_path / "run-t4.json")
    written = json.loads(t4.read_text())
    assert [r["invalidity"] for r in written["results"]] == ["correct", "runtime"]
    assert written["results"][0]["configuration"] == {"b": 64}


def test_kernel_tuners_examples_differ_only_in_their_import_lines():
    folder = Path(__file__).resolve().parents[2] / "examples" / "kernel_tuner_python"
    scripts = sorted(folder.glob("*.py"))
    assert len(scripts) >= 10
    for script in scripts:
        for line in script.read_text().splitlines():
            assert not line.startswith(("import kernel_tuner", "from kernel_tuner")), f"{script.name}: {line}"
            if "occbench" in line:
                assert line.startswith(("import occbench as kernel_tuner", "from occbench")), f"{script.name}: {line}"


def test_kernel_tuners_nvml_observer_asks_for_occbench_energy_under_its_names():
    from occbench._observers import ObserverSet
    from occbench.observers.nvml import NVMLObserver
    assert ObserverSet([NVMLObserver(["nvml_energy", "temperature"])]).engine_flags() == ["--energy"]
    with pytest.raises(ValueError, match="unknown observable"):
        NVMLObserver(["gpu_magic"])
    r = record({"b": 64}, median=2.0)
    r["energy"] = {"status": "ok", "joules_per_launch": 0.01, "average_w": 500.0, "gpu_temperature_c": 40}
    result = records_to_results({"results": [r]}, {"b": [64]}, {"GFLOPS/W": lambda p: 1 / p["nvml_energy"]})[0]
    assert (result["nvml_energy"], result["nvml_power"], result["temperature"]) == (0.01, 500.0, 40)
    assert result["GFLOPS/W"] == 100


def test_a_tuning_whose_every_configuration_is_cached_runs_nothing(tmp_path, monkeypatch):
    """Kernel Tuner's cache as a simulation: no GPU is needed when the cache holds the whole space."""
    monkeypatch.setattr(occbench.cache, "device_name", lambda index: None)  # as where no GPU answers (the file is an A4000's)
    cache_path = tmp_path / "cache.json"
    shutil.copy(DATA / "kernel_tuner_cache_vector_add.json", cache_path)
    args, _ = vector_args(100)
    block_sizes = read_cache(cache_path)["tune_params"]["block_size_x"]
    results, env = occbench.tune_kernel("vector_add", VECTOR_ADD, 100, args, {"block_size_x": block_sizes}, cache=str(cache_path),
                                        metrics={"GB/s": lambda p: 1.0 / p["time"]}, quiet=True)
    assert len(results) == 15 and env["best_config"]["block_size_x"] == 768
    assert all(r["GB/s"] == 1.0 / r["time"] for r in results)


def test_the_t4_metadata_holds_kernel_tuners_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    path = occbench.store_metadata_file(tmp_path / "meta")
    metadata = json.loads(path.read_text())
    jsonschema.validate(metadata, json.loads((DATA / "t4-metadata-schema.json").read_text()))
    assert metadata["metadata"]["environment"]["requirements"][0].startswith("occbench ")
