"""``tune_kernel`` and ``run_kernel`` with Kernel Tuner's signature and meaning, on occbench's
engine in this process (occbench._engine): the arguments become a config whose arrays, launches,
restrictions and verification stay in memory; the command's run measures, verifies and supervises
it (a faulting kernel fails its point in a child process, forked from this one); the records come
back as Kernel Tuner's results, each with occbench's fields beside."""

import contextlib
import json
import numbers
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from . import _engine
from ._arguments import Arguments, write_back
from ._observers import ObserverSet
from ._results import Results, environment, records_to_results, total_timings
from ._signature import check_arguments
from ._source import KernelSource
from .accuracy import split_by_tunables
from ._space import Launch, Restrictions, TuneParams, unroll_pragmas
from . import cache as cache_file

# Kernel Tuner's strategies by the occbench strategy that does their job (docs/python.md).
STRATEGIES = {
    "brute_force": "exhaustive", "random_sample": "random",
    "greedy_ils": "local", "greedy_mls": "local", "mls": "local", "ordered_greedy_mls": "local",
    "simulated_annealing": "local", "dual_annealing": "local", "basinhopping": "local", "minimize": "local",
    "genetic_algorithm": "genetic", "diff_evo": "genetic", "pso": "genetic", "firefly_algorithm": "genetic",
    "bayes_opt": "bayes",
}
OCCBENCH_STRATEGIES = ["exhaustive", "random", "local", "genetic", "model", "bayes"]
_KNOWN_OPTIONS = {"max_fevals", "time_limit", "fraction"}
_LANGS = {None, "cuda", "cupy", "nvcuda"}


# Kernel Tuner's budget of a strategy given none (its default max_fevals, or the product of its
# default population and iterations); the others run until the space is spent.
_KT_DEFAULT_FEVALS = {"greedy_ils": 100, "greedy_mls": 100, "mls": 100, "ordered_greedy_mls": 100, "bayes_opt": 100,
                      "genetic_algorithm": 26 * 90, "pso": 50 * 190, "firefly_algorithm": 20 * 100}


def _strategy_name(strategy):
    """A strategy's name: a string, or a strategy module (kernel_tuner.strategies.pso) by its own name."""
    if strategy is None:
        return "brute_force"
    if isinstance(strategy, str):
        if not strategy:
            raise ValueError("strategy: an empty name; expected one of Kernel Tuner's strategy names or occbench's")
        return strategy.lower()
    module = getattr(strategy, "__name__", None)
    if isinstance(module, str) and module:
        if callable(getattr(strategy, "tune", None)) and not module.startswith("kernel_tuner.strategies."):
            raise NotImplementedError(f"strategy: {module} is a strategy of one's own (a tune function over Kernel Tuner's "
                                      "internals); occbench runs its own strategies, by Kernel Tuner's names")
        return module.rsplit(".", 1)[-1].lower()
    raise TypeError(f"strategy: expected a strategy's name or module, got {type(strategy).__name__}")


def _budget(name, options, space_size):
    """The number of configurations to measure: max_fevals, else fraction, else Kernel Tuner's default."""
    if options.get("max_fevals") is not None:
        value = options["max_fevals"]
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value or value < 1:
            raise ValueError(f"strategy_options['max_fevals']: expected a whole number of at least 1, got {value!r}")
        return int(min(value, space_size)) if space_size else int(value)
    if options.get("fraction") is not None:
        value = options["fraction"]
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= 1:
            raise ValueError(f"strategy_options['fraction']: expected a number in (0, 1], got {value!r}")
        return max(1, int(value * space_size))
    space_size = space_size or 10
    if name in ("random_sample", "random"):
        return max(1, int(0.1 * space_size))  # Kernel Tuner's random_sample: 10%
    return min(_KT_DEFAULT_FEVALS.get(name, space_size), space_size)


def _strategy_flags(strategy, strategy_options, space_size_hint=None):
    name = _strategy_name(strategy)
    if name in OCCBENCH_STRATEGIES:
        engine = name
    elif name in STRATEGIES:
        engine = STRATEGIES[name]
    else:
        raise ValueError(f"strategy: unknown strategy '{name}'; occbench has {', '.join(OCCBENCH_STRATEGIES)} and maps "
                         f"Kernel Tuner's {', '.join(sorted(STRATEGIES))} to them")
    if strategy_options is not None and not isinstance(strategy_options, dict):
        raise TypeError(f"strategy_options: expected a dict, got {type(strategy_options).__name__}")
    options = dict(strategy_options or {})
    unknown = sorted(set(options) - _KNOWN_OPTIONS)
    if unknown:
        warnings.warn(f"strategy_options: occbench does not use {', '.join(unknown)} (it uses max_fevals, time_limit, fraction)")
    if engine == "exhaustive":
        flags = []
    else:
        flags = ["--strategy", engine, "--max-points", str(_budget(name, options, space_size_hint))]
    if options.get("time_limit") is not None:
        limit = options["time_limit"]
        if isinstance(limit, bool) or not isinstance(limit, numbers.Real) or not limit > 0:
            raise ValueError(f"strategy_options['time_limit']: expected a number of seconds above 0, got {limit!r}")
        flags += ["--time-limit", repr(float(limit))]
    return engine, flags


# Whether higher is better, for Kernel Tuner's quantities (kernel_tuner.util.objective_default_map)
# and occbench's own fields of a result.
OBJECTIVE_HIGHER_IS_BETTER = {
    "time": False, "energy": False, "fitness": True, "cost": False, "loss": False, "GFLOP/s": True, "TFLOP/s": True,
    "GB/s": True, "TB/s": True, "GFLOPS/W": True, "TFLOPS/W": True, "GFLOP/J": True, "TFLOP/J": True,
    "nvml_energy": False, "nvml_power": False, "min_time": False, "noise": False, "occupancy": True,
    "achieved_bandwidth_gbps": True, "registers_per_thread": False,
}
# The objectives the engine's search can follow itself (its record's fields); a metric of Python's
# is chosen by after the run, the search following time.
_ENGINE_OBJECTIVES = {"time": None, "nvml_energy": "energy.joules_per_launch", "min_time": "timing.min_ms",
                      "achieved_bandwidth_gbps": "metrics.achieved_bandwidth_gbps:max"}


def objective_direction(objective, objective_higher_is_better, metrics, observers_flags):
    """(objective, higher is better): Kernel Tuner's defaults, and a refusal where neither is known."""
    objective = objective or "time"
    if not isinstance(objective, str):
        raise TypeError(f"objective: expected the name of a result's field, got {type(objective).__name__}")
    fields = {"time", "min_time", "noise", "occupancy", "achieved_bandwidth_gbps", "registers_per_thread"} | set(metrics)
    if "--energy" in observers_flags:
        fields |= {"nvml_energy", "nvml_power"}
    if objective not in fields:
        raise ValueError(f"objective: '{objective}' is not a field of the results; expected 'time', one of the metrics "
                         f"({', '.join(metrics) or 'none given'}) or an observer's field (nvml_energy and nvml_power with "
                         "NVMLObserver)")
    if objective_higher_is_better is None:
        if objective not in OBJECTIVE_HIGHER_IS_BETTER:
            raise ValueError(f"objective_higher_is_better: occbench does not know whether a higher '{objective}' is better; "
                             "say it (True or False), as Kernel Tuner asks")
        return objective, OBJECTIVE_HIGHER_IS_BETTER[objective]
    if not isinstance(objective_higher_is_better, (bool, np.bool_)):
        raise TypeError(f"objective_higher_is_better: expected True or False, got {objective_higher_is_better!r}")
    return objective, bool(objective_higher_is_better)


def replace_param_occurrences(text, params):
    """Kernel Tuner's substitution of the parameters' values into a name ("vector_add<float_type>")."""
    return "".join(str(params[part]) if part in params else part for part in re.split("([a-zA-Z0-9_]+)", text))


def _config_name(kernel_name):
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", kernel_name)[:100]
    return name or "kernel"


@contextlib.contextmanager
def _captured_fd(fd, path):
    """What the engine writes to fd (this process's and its children's) into a file."""
    stream = sys.stderr if fd == 2 else sys.stdout
    stream.flush()
    saved = os.dup(fd)
    with open(path, "wb") as f:
        os.dup2(f.fileno(), fd)
    try:
        yield
    finally:
        stream.flush()
        os.dup2(saved, fd)
        os.close(saved)


def _stdout_is_fd1():
    """Whether Python's stdout is the process's fd 1 (a terminal or a file), where the engine's lines
    appear as they come; not in Jupyter, whose stdout is its own stream."""
    try:
        return sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):
        return False


class _Tuning:
    """One tune_kernel or run_kernel call: its config, the hooks it hands over, and the engine's run."""

    def __init__(self, kernel_name, kernel_source, problem_size, arguments, tune_params, grid_div, restrictions, answer,
                 atol, verify, smem_args, cmem_args, compiler_options, defines, block_size_names, iterations, lang, observer_set=None):
        if not isinstance(kernel_name, str) or not kernel_name:
            raise TypeError(f"kernel_name: expected the __global__ function's name, got {kernel_name!r}")
        if (lang.lower() if isinstance(lang, str) else lang) not in _LANGS:
            raise NotImplementedError(f"lang: occbench compiles CUDA with NVRTC; '{lang}' is not supported (use CUDA, cupy or nvcuda): "
                                      "it tunes no host code (Kernel Tuner's C backend), OpenCL, HIP or Fortran")
        self.space = TuneParams(tune_params)
        self.tune_params = self.space.values
        self.kernel_name = kernel_name
        self.problem_size = problem_size
        self.restrictions = Restrictions(restrictions, self.tune_params)
        self.launch = Launch(problem_size, grid_div, block_size_names, smem_args, defines)
        self.observer_set = observer_set or ObserverSet(None)
        observed = self.observer_set.process_output if self.observer_set.outputs else None
        self.args = Arguments(arguments, answer, verify if verify is not None else observed, cmem_args, atol)
        self.verify = self.args.verifier(verify, answer, arguments, observed)
        self.source = KernelSource(kernel_source)
        check_arguments(self.source.text, kernel_name, self.args.host)
        self._per_point = {}  # the engine's parameters -> the launch it was given (asked many times a point)
        for name in cmem_args or {}:
            if self.source.text is not None and not re.search(
                    r"\b(__constant__|__device__)\b[^;{}()]*\b" + re.escape(str(name)) + r"\b", self.source.text):
                raise ValueError(f"cmem_args['{name}']: the kernel's source declares no __constant__ or __device__ variable "
                                 f"named '{name}'")
        self.options = self._options(compiler_options)
        self.iterations = iterations

    @staticmethod
    def _options(compiler_options):
        options = []
        for o in compiler_options or []:
            if not isinstance(o, str) or not o.startswith("-"):
                raise ValueError(f"compiler_options: expected options starting with '-', got {o!r}")
            if re.match(r"-(arch|-gpu-architecture|code)\b", o):
                warnings.warn(f"compiler_options: {o} is left out; occbench compiles for the GPU it runs on")
                continue
            options.append(o)
        return options

    def _params(self, engine_params):
        """The tunable parameters the engine has bound (all of them, or those a condition uses), with their own values."""
        return self.space.decode(engine_params)

    def _launch(self, engine_params):
        """A point's grid, block, shared memory, #defines, kernel name and, from a code generator,
        its code: computed once a point (the engine asks again as it compiles ahead)."""
        key = tuple(engine_params.items())
        found = self._per_point.get(key)
        if found is None:
            params = self._params(engine_params)
            grid, block, smem, macros = self.launch(params)
            name = replace_param_occurrences(self.kernel_name, params)
            code = unroll_pragmas(self.source.code(params), self.tune_params) if self.source.generator else None
            found = self._per_point[key] = (grid, block, smem, macros, name if name != self.kernel_name else None, code)
        return found

    def _conditions(self):
        """[(name, uses, function)]: the restrictions, each decided as soon as its parameters are
        bound, and Kernel Tuner's limit of 1024 threads per block over the block's parameters."""
        blocks = [n for n in self.launch.block_size_names if n in self.tune_params]
        conditions = [("threads", blocks, self.launch.fits)] if blocks else []
        for i, (uses, check) in enumerate(self.restrictions.conditions()):
            conditions.append((f"restriction{i}", uses, check))
        return conditions

    def hooks(self):
        launches = {"launch": self._launch}
        conditions = {name: (lambda f: lambda p: f(self._params(p)))(check) for name, _, check in self._conditions()}
        verifiers = {"verify": self.verify} if self.verify else {}
        return launches, conditions, verifiers

    def config(self, folder):
        source = folder / "kernel.cu"
        source.write_text(unroll_pragmas(self.source.text, self.tune_params) if self.source.generator is None else
                          f"// each configuration's code comes from {self.source.name}\n")
        kernel = {"kernel": self.kernel_name, "launch": {"host": "launch"}}
        if self.options:
            kernel["options"] = self.options
        config = {
            "name": _config_name(self.kernel_name),
            "description": f"tune_kernel('{self.kernel_name}') from Python (occbench.tune_kernel)",
            "source": str(source),
            "compile": {"include_dirs": [str(d) for d in [self.source.folder] + self.source.include_dirs]},
            "variants": ["tuned"],
            "sizes": {"kernel_tuner": [1]},
            "axes": self.space.axes(),
            "arguments": self.args.config,
            "kernels": {"tuned": kernel},
            "reference": self.args.reference("verify" if self.verify else None),
        }
        conditions = self._conditions()  # Kernel Tuner's restrictions, and at most 1024 threads a block
        if conditions:
            engine = TuneParams.ENGINE_NAMES
            config["restrictions"] = [dict({"host": name}, **({"uses": [engine.get(u, u) for u in uses]} if uses else {}))
                                      for name, uses, _ in conditions]
        if self.iterations == 0:  # run_kernel: the verified launch and one sample
            config["measurement"] = {"min_samples": 1, "max_samples": 1, "warmup_runs": 0, "min_time_s": 0}
        elif self.iterations is not None:  # Kernel Tuner's iterations: at least that many samples (occbench adds more while noisy)
            config["measurement"] = {"min_samples": int(self.iterations), "max_samples": max(1000, int(self.iterations))}
        return config

    def _call(self, argv, folder, captures=None, stdout=False, record_written=None):
        """One engine command over this tuning's config; returns (exit code, messages, printed)."""
        config_path = folder / "config.json"
        config_path.write_text(json.dumps(self.config(folder), indent=1))
        arrays = {name: (array, descr) for name, (array, descr) in self.args.arrays.items()}
        launches, conditions, verifiers = self.hooks()
        log, printed = folder / "engine.log", folder / "engine.out"
        with _captured_fd(2, log), (_captured_fd(1, printed) if stdout else contextlib.nullcontext()):
            code = _engine.run(["occbench", argv[0], str(config_path)] + argv[1:], arrays, launches, conditions, verifiers,
                               captures or {}, record_written, self.observer_set.hooks(self.space.decode))
        messages = log.read_text(errors="replace").replace(str(config_path), "tune_kernel's arguments")  # not a deleted temporary file
        if code == 2:
            raise ValueError(_bad_input(messages))
        return code, messages, printed.read_text(errors="replace") if stdout else ""

    def plan(self, folder, gpu="h100"):
        """The engine's plan (no GPU: NVRTC compiles each configuration for `gpu`): (exit code, its table and messages)."""
        code, messages, printed = self._call(["plan", "--gpu", gpu, "--out", str(folder / "plan")], folder, stdout=True)
        return code, printed + messages

    def validate(self, folder):
        """The engine's validate (no GPU): its summary, with the number of configurations the restrictions keep."""
        code, messages, printed = self._call(["validate"], folder, stdout=True)
        return printed + messages

    def run(self, flags, folder, captures=None, quiet=False, record_written=None):
        """Runs the engine; returns the result document (occbench's record) and the exit code.
        quiet: the run's progress lines and table are not shown (its messages still are);
        record_written: called with each point's record (JSON text) as soon as it is measured."""
        out = folder / "out"
        live = _stdout_is_fd1()
        flags = flags + _in_process_flags()
        code, messages, printed = self._call(["run", "--out", str(out)] + flags, folder, captures, stdout=quiet or not live,
                                             record_written=record_written)
        if not quiet and not live:  # Jupyter: the engine's lines, which went to fd 1, shown where Python prints
            sys.stdout.write(printed)
        if messages.strip():
            sys.stderr.write(messages)
        documents = sorted(p for p in out.glob("*.json")) if out.is_dir() else []
        if not documents:
            raise RuntimeError(f"occbench's run ended with exit code {code} and wrote no results:\n{messages[-4000:]}")
        return json.loads(documents[-1].read_text()), code


def _in_process_flags():
    """OCCBENCH_IN_PROCESS=1: the engine measures in the Python process itself, not in a forked child
    (for a profiler that does not follow forks); a faulting kernel then ends Python. So it does, with
    a warning, where this process has already started CUDA (CuPy or PyTorch on the GPU): a forked
    child could not use the GPU then."""
    if os.environ.get("OCCBENCH_IN_PROCESS") == "1":
        return ["--no-supervisor"]
    if _engine.cuda_initialized():
        warnings.warn("CUDA was started in this process (CuPy or PyTorch): occbench measures here, not in a forked child, "
                      "so a kernel that faults ends this process")
        return ["--no-supervisor"]
    return []


def _bad_input(messages):
    lines = [l for l in messages.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower() or ": expected" in l or "expected" in l]
    return "\n".join(errors or lines[-5:]) or "occbench refused the input"


def _sample_cap(strategy, strategy_options, size):
    """OCCBENCH_MAX_FEVALS=N: a brute-force tuning of a space larger than N measures a random sample
    of N instead (for running scripts written for days of tuning, such as Kernel Tuner's
    convolution example, in minutes); it says so."""
    cap = os.environ.get("OCCBENCH_MAX_FEVALS")
    if not cap or (strategy not in (None, "brute_force", "exhaustive")) or size <= int(cap):
        return strategy, strategy_options
    print(f"occbench: OCCBENCH_MAX_FEVALS={cap}: a random sample of {cap} of the {size} combinations instead of all of them",
          file=sys.stderr)
    return "random_sample", dict(strategy_options or {}, max_fevals=int(cap))


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params, grid_div_x=None, grid_div_y=None,
                grid_div_z=None, restrictions=None, answer=None, atol=1e-6, verify=None, verbose=False, lang=None, device=0,
                platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None, compiler_options=None,
                defines=None, log=None, iterations=7, block_size_names=None, quiet=False, strategy=None,
                strategy_options=None, cache=None, metrics=None, simulation_mode=None, parallel=None, observers=None,
                objective=None, objective_higher_is_better=None, objectives=None, seed=None):
    """Tunes a kernel as Kernel Tuner's tune_kernel does, on occbench's measurement.

    Returns ``(results, env)``: one dict per configuration measured, with the tunable parameters,
    ``time`` (the median in ms, occbench's cold-L2 timing) and occbench's own fields (occupancy,
    its limiter, verification, noise, counters or energy when asked); ``results.frame()`` is a
    pandas DataFrame of them. A configuration that fails to compile, faults or is wrong has an
    error in ``time`` (as Kernel Tuner marks them) and is never the best.
    """
    if parallel:
        warnings.warn("parallel=True: occbench tunes from Python on the one GPU given by device (its own compile workers "
                      "already compile on every core while the GPU measures); `occbench run --devices all` spreads a config "
                      "over every GPU")
    for name, value in (("texmem_args", texmem_args), ("simulation_mode", simulation_mode),
                        ("objectives", objectives), ("compiler", compiler)):
        if value:
            raise NotImplementedError(f"{name}: not supported by occbench.tune_kernel (docs/python.md lists what is)")
    started = time.perf_counter()
    _start_log(log, kernel_name)
    observed = ObserverSet(observers)
    metrics = _checked_metrics(metrics)
    objective, higher = objective_direction(objective, objective_higher_is_better, metrics, observed.engine_flags())
    splits = split_by_tunables(arguments, tune_params)
    shared = dict(strategy=strategy, strategy_options=_shared_budget(strategy_options, len(splits)), seed=seed, device=device,
                  cache=cache, quiet=quiet, metrics=metrics, objective=objective, higher=higher)
    results, last = [], None
    for split_params, split_arguments in splits:
        tuning = _Tuning(kernel_name, kernel_source, problem_size, split_arguments, split_params,
                         (grid_div_x, grid_div_y, grid_div_z), restrictions, answer, atol, verify, smem_args, cmem_args,
                         compiler_options, defines, block_size_names, iterations, lang, observed)
        found, document, code, engine_strategy = _tune_one(tuning, kernel_name, problem_size, observed, **shared)
        results += found
        last = (tuning, document, code, engine_strategy)
    tuning, document, code, engine_strategy = last
    tuning.tune_params = TuneParams(tune_params).values  # env and the report name the whole space
    env = total_timings(results, environment(document, tuning, engine_strategy, time.perf_counter() - started, code))
    _report(results, tuning, verbose and not quiet)
    env["best_config"] = _best(results, objective, higher, list(tuning.tune_params) + [objective] + list(metrics), quiet)
    return Results(results), env


def _shared_budget(strategy_options, parts):
    """A max_fevals shared out between the tunings a Tunable argument splits the space into."""
    if parts == 1 or not isinstance(strategy_options, dict) or strategy_options.get("max_fevals") is None:
        return strategy_options
    value = strategy_options["max_fevals"]
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value >= 1:
        return dict(strategy_options, max_fevals=max(1, -(-int(value) // parts)))
    return strategy_options


def _tune_one(tuning, kernel_name, problem_size, observed, strategy, strategy_options, seed, device, cache, quiet, metrics,
              objective, higher):
    """One engine run over the tuning's space: (results, the engine's document, its exit code, the engine's strategy)."""
    size = tuning.space.size()
    strategy, strategy_options = _sample_cap(strategy, strategy_options, size)
    engine_strategy, flags = _strategy_flags(strategy, strategy_options, size)
    flags += _search_objective(objective, higher, engine_strategy) + observed.engine_flags() + ["--device", str(int(device))]
    if seed is not None:
        flags += ["--seed", str(int(seed))]
    cached, requested = _cache_for(cache, tuning, kernel_name, problem_size, device)
    with tempfile.TemporaryDirectory(prefix="occbench-") as folder:
        try:
            document, code = tuning.run(flags, Path(folder), quiet=quiet, record_written=_appender(cached, tuning, metrics))
        except ValueError as e:  # every configuration is in the cache: nothing to run (no GPU needed)
            if not requested or "rule out all" not in str(e):
                raise
            document, code = {"results": [], "device": {"name": cached.data.get("device_name")}}, 0
    results = records_to_results(document, tuning.space, metrics, registers=observed.registers, observed=observed)
    if cached is not None:
        results = cached.close(results, requested, metrics)
    return results, document, code, engine_strategy


def _start_log(log, kernel_name):
    """Kernel Tuner's log=LEVEL: Python's logging to KERNEL_NAME<date>.log at that level."""
    if log:
        import datetime
        import logging
        logging.basicConfig(filename=kernel_name + datetime.datetime.now().strftime("%Y%m%d-%H:%M:%S") + ".log", level=log)
        logging.debug("tune_kernel called")


def _report(results, tuning, verbose):
    """verbose: each configuration that failed or was left out, with why (Kernel Tuner's verbose);
    every configuration to Python's log at INFO (Kernel Tuner's log)."""
    import logging
    from .util import get_config_string
    keys = list(tuning.tune_params)
    for r in results:
        failed = "__error__" in r
        logging.info("%s: %s", get_config_string(r, keys), r.get("reason") if failed else f"time={r.get('time')} ms")
        if verbose and failed:
            print(f"skipping config {get_config_string(r, keys)} reason: {type(r['__error__']).__name__}: {r.get('reason', '')}")


def _checked_metrics(metrics):
    if metrics is None:
        return {}
    if not isinstance(metrics, dict):
        raise TypeError(f"metrics: expected a dict of names and functions (or string expressions), got {type(metrics).__name__}")
    for name, metric in metrics.items():
        if not callable(metric) and not isinstance(metric, str):
            raise TypeError(f"metrics['{name}']: expected a function of a result or a string expression, got {type(metric).__name__}")
    return dict(metrics)


def _search_objective(objective, higher, engine_strategy):
    """The engine's --objective where a search follows results: the field of its record that is
    the objective; a Python metric is not in the record, so the search follows time (said once)."""
    if engine_strategy in ("exhaustive", "random") or objective == "time":
        return []
    field = _ENGINE_OBJECTIVES.get(objective)
    if field is None:
        warnings.warn(f"objective: the {engine_strategy} search is guided by time; '{objective}' chooses the best of what it measured")
        return []
    return ["--objective", field]


def _cache_for(cache, tuning, kernel_name, problem_size, device):
    """(the cache, the configurations of it this tuning asks for); the engine skips those."""
    if not cache:
        return None, {}
    if not isinstance(cache, (str, os.PathLike)):
        raise TypeError(f"cache: expected a file name, got {type(cache).__name__}")
    cached = cache_file.open_cache(cache, kernel_name, problem_size, tuning.tune_params, device=cache_file.device_name(device))
    requested = cached.requested(tuning.tune_params, tuning.restrictions)
    if requested:
        tuning.restrictions.skip(set(requested))
    return cached, requested


def _appender(cached, tuning, metrics):
    """Each configuration into the cache file as soon as it is measured (a kill loses at most the one in flight)."""
    if cached is None:
        return None

    def append(record_text):
        for result in records_to_results({"results": [json.loads(record_text)]}, tuning.space, metrics):
            cached.append(result)
    return append


def _best(results, objective, higher, keys, quiet):
    """The best configuration that passed; none (said so) where none did: a failed one is never the best."""
    from .util import get_config_string, valid_results
    if not valid_results(results, objective):
        if not quiet and results:
            print(f"\nNO CONFIGURATION PASSED: all {len(results)} failed or were ruled out; there is no best for {objective}")
        return None
    from .util import get_best_config
    best = get_best_config(results, objective, higher)
    if not quiet:
        print(f"\nBEST PERFORMING CONFIGURATION FOR OBJECTIVE {objective}:")
        print(get_config_string(best, keys, {"time": "ms"}))
    return best


def run_kernel(kernel_name, kernel_source, problem_size, arguments, params, grid_div_x=None, grid_div_y=None,
               grid_div_z=None, lang=None, device=0, platform=0, smem_args=None, cmem_args=None, texmem_args=None,
               compiler=None, compiler_options=None, defines=None, block_size_names=None, quiet=False, log=None):
    """Runs one configuration once, as Kernel Tuner's run_kernel does; returns every argument as the
    kernel left it (arrays copied back; scalars as given), in order."""
    if texmem_args or compiler:
        raise NotImplementedError("texmem_args and compiler are not supported by occbench.run_kernel")
    if not isinstance(params, dict):
        raise TypeError(f"params: expected a dict of parameter values, got {type(params).__name__}")
    tune_params = {k: [v] for k, v in params.items()}
    tuning = _Tuning(kernel_name, kernel_source, problem_size, arguments, tune_params, (grid_div_x, grid_div_y, grid_div_z),
                     None, None, 1e-6, None, smem_args, cmem_args, compiler_options, defines, block_size_names, 0, lang)
    captures, outputs = _shared_outputs(tuning.args.host)
    with tempfile.TemporaryDirectory(prefix="occbench-") as folder:
        document, code = tuning.run(["--device", str(int(device))], Path(folder), captures, quiet=True)
    record = next(r for r in document.get("results", []))
    if record.get("status") != "ok":
        raise RuntimeError(f"run_kernel: {kernel_name} at {params} {record.get('status')}: {record.get('reason')}")
    left = [outputs[i].reshape(a.shape).copy() if i in outputs else a for i, a in enumerate(tuning.args.host)]
    write_back(arguments, left)  # a CuPy or PyTorch argument holds what the kernel left, as under Kernel Tuner
    return left


def _shared_outputs(arguments):
    """Memory the supervised child writes each array argument into (shared: the child is a fork)."""
    import mmap
    captures, outputs = {}, {}
    for i, a in enumerate(arguments):
        if isinstance(a, np.ndarray):
            buffer = mmap.mmap(-1, max(1, a.nbytes))
            captures[f"arg{i}"] = np.frombuffer(buffer, dtype=np.uint8, count=a.nbytes)  # the engine writes bytes
            outputs[i] = captures[f"arg{i}"].view(a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype)
    return captures, outputs
