"""``tune_kernel`` and ``run_kernel`` with Kernel Tuner's signature and meaning, on occbench's
engine in this process (occbench._engine): the arguments become a config whose arrays, launches,
restrictions and verification stay in memory; the command's run measures, verifies and supervises
it (a faulting kernel fails its point in a child process, forked from this one); the records come
back as Kernel Tuner's results, each with occbench's fields beside."""

import contextlib
import json
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from . import _engine
from ._arguments import Arguments
from ._results import Results, environment, records_to_results
from ._space import Launch, Restrictions, check_tune_params, unroll_pragmas
from . import cache as cache_file

# Kernel Tuner's strategies by the occbench strategy that does their job (docs/python.md).
STRATEGIES = {
    "brute_force": "exhaustive", "random_sample": "random",
    "greedy_ils": "local", "greedy_mls": "local", "mls": "local", "ordered_greedy_mls": "local",
    "simulated_annealing": "local", "dual_annealing": "local", "basinhopping": "local", "minimize": "local",
    "genetic_algorithm": "genetic", "diff_evo": "genetic", "pso": "genetic", "firefly_algorithm": "genetic",
    "bayes_opt": "model",
}
OCCBENCH_STRATEGIES = ["exhaustive", "random", "local", "genetic", "model"]
_KNOWN_OPTIONS = {"max_fevals", "time_limit", "fraction"}
_LANGS = {None, "cuda", "cupy", "nvcuda"}


def _strategy_flags(strategy, strategy_options, space_size_hint=None):
    name = (strategy or "brute_force").lower()
    if name in OCCBENCH_STRATEGIES:
        engine = name
    elif name in STRATEGIES:
        engine = STRATEGIES[name]
    else:
        raise ValueError(f"strategy: unknown strategy '{strategy}'; occbench has {', '.join(OCCBENCH_STRATEGIES)} and maps "
                         f"Kernel Tuner's {', '.join(sorted(STRATEGIES))} to them")
    options = dict(strategy_options or {})
    unknown = sorted(set(options) - _KNOWN_OPTIONS)
    if unknown:
        warnings.warn(f"strategy_options: occbench does not use {', '.join(unknown)} (it uses max_fevals, time_limit, fraction)")
    flags = ["--strategy", engine] if engine != "exhaustive" else []
    max_fevals = options.get("max_fevals")
    if max_fevals is None and "fraction" in options and space_size_hint:
        max_fevals = max(1, int(options["fraction"] * space_size_hint))
    if max_fevals is not None:
        if int(max_fevals) < 1:
            raise ValueError(f"strategy_options['max_fevals']: expected at least 1, got {max_fevals}")
        flags += ["--max-points", str(int(max_fevals))]
    elif engine == "random":
        flags += ["--max-points", str(max(1, int(0.1 * (space_size_hint or 10))))]  # Kernel Tuner's random_sample: 10%
    if options.get("time_limit") is not None:
        flags += ["--time-limit", repr(float(options["time_limit"]))]
    return engine, flags


def _observer_flags(observers):
    flags = []
    for o in observers or []:
        kind = o if isinstance(o, str) else type(o).__name__
        if kind in ("energy", "NVMLObserver", "PowerSensorObserver"):
            flags.append("--energy")
        elif kind in ("counters", "NCUObserver"):
            flags.append("--counters")
        else:
            raise ValueError(f"observers: occbench has no observer like {kind}; it has 'energy' (power, energy and the SM "
                             "clock per point, as NVMLObserver) and 'counters' (hardware counters, as NCUObserver)")
    return sorted(set(flags))


def _source_text(kernel_source):
    """Kernel Tuner's kernel_source: a file name, a list whose first item is the kernel's file, or code."""
    first = kernel_source[0] if isinstance(kernel_source, (list, tuple)) else kernel_source
    if callable(first):
        raise TypeError("kernel_source: a code-generating function is not supported; pass the generated code as a string")
    if isinstance(first, Path) or (isinstance(first, str) and "\n" not in first and first.endswith((".cu", ".cuh", ".h"))):
        path = Path(first)
        if not path.is_file():
            raise FileNotFoundError(f"kernel_source: no file {path}")
        return path.read_text(), path.resolve().parent
    if not isinstance(first, str):
        raise TypeError(f"kernel_source: expected a file name or the kernel's code, got {type(first).__name__}")
    return first, Path.cwd()


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
                 atol, verify, smem_args, cmem_args, compiler_options, defines, block_size_names, iterations, lang):
        if not isinstance(kernel_name, str) or not kernel_name:
            raise TypeError(f"kernel_name: expected the __global__ function's name, got {kernel_name!r}")
        if (lang.lower() if isinstance(lang, str) else lang) not in _LANGS:
            raise ValueError(f"lang: occbench compiles CUDA with NVRTC; '{lang}' is not supported (use CUDA, cupy or nvcuda)")
        self.tune_params = check_tune_params(tune_params)
        self.kernel_name = kernel_name
        self.problem_size = problem_size
        self.restrictions = Restrictions(restrictions, self.tune_params)
        self.launch = Launch(problem_size, grid_div, block_size_names, smem_args, defines)
        self.args = Arguments(arguments, answer, verify, cmem_args, atol)
        self.verify = self.args.verifier(verify, answer, arguments) if verify is not None else None
        self.source, self.source_dir = _source_text(kernel_source)
        for name in cmem_args or {}:
            if not re.search(r"\b(__constant__|__device__)\b[^;{}()]*\b" + re.escape(str(name)) + r"\b", self.source):
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
        """The tunable parameters the engine has bound (all of them, or those a condition uses)."""
        return {k: engine_params[k] for k in self.tune_params if k in engine_params}

    def _conditions(self):
        """[(name, uses, function)]: the restrictions, each decided as soon as its parameters are
        bound, and Kernel Tuner's limit of 1024 threads per block over the block's parameters."""
        blocks = [n for n in self.launch.block_size_names if n in self.tune_params]
        conditions = [("threads", blocks, self.launch.fits)] if blocks else []
        for i, (uses, check) in enumerate(self.restrictions.conditions()):
            conditions.append((f"restriction{i}", uses, check))
        return conditions

    def hooks(self):
        launches = {"launch": lambda p: self.launch(self._params(p))}
        conditions = {name: (lambda f: lambda p: f(self._params(p)))(check) for name, _, check in self._conditions()}
        verifiers = {"verify": self.verify} if self.verify else {}
        return launches, conditions, verifiers

    def config(self, folder):
        source = folder / "kernel.cu"
        source.write_text(unroll_pragmas(self.source, self.tune_params))
        kernel = {"kernel": self.kernel_name, "launch": {"host": "launch"}}
        if self.options:
            kernel["options"] = self.options
        config = {
            "name": _config_name(self.kernel_name),
            "description": f"tune_kernel('{self.kernel_name}') from Python (occbench.tune_kernel)",
            "source": str(source),
            "compile": {"include_dirs": [str(self.source_dir)]},
            "variants": ["tuned"],
            "sizes": {"kernel_tuner": [1]},
            "axes": self.tune_params,
            "arguments": self.args.config,
            "kernels": {"tuned": kernel},
            "reference": self.args.reference("verify" if self.verify else None),
        }
        conditions = self._conditions()  # Kernel Tuner's restrictions, and at most 1024 threads a block
        if conditions:
            config["restrictions"] = [dict({"host": name}, **({"uses": uses} if uses else {})) for name, uses, _ in conditions]
        if self.iterations == 0:  # run_kernel: the verified launch and one sample
            config["measurement"] = {"min_samples": 1, "max_samples": 1, "warmup_runs": 0, "min_time_s": 0}
        elif self.iterations is not None:  # Kernel Tuner's iterations: at least that many samples (occbench adds more while noisy)
            config["measurement"] = {"min_samples": int(self.iterations), "max_samples": max(1000, int(self.iterations))}
        return config

    def _call(self, argv, folder, captures=None, stdout=False):
        """One engine command over this tuning's config; returns (exit code, messages, printed)."""
        config_path = folder / "config.json"
        config_path.write_text(json.dumps(self.config(folder), indent=1))
        arrays = {name: (array, descr) for name, (array, descr) in self.args.arrays.items()}
        launches, conditions, verifiers = self.hooks()
        log, printed = folder / "engine.log", folder / "engine.out"
        with _captured_fd(2, log), (_captured_fd(1, printed) if stdout else contextlib.nullcontext()):
            code = _engine.run(["occbench", argv[0], str(config_path)] + argv[1:], arrays, launches, conditions, verifiers,
                               captures or {})
        messages = log.read_text(errors="replace")
        if code == 2:
            raise ValueError(_bad_input(messages))
        return code, messages, printed.read_text(errors="replace") if stdout else ""

    def validate(self, folder):
        """The engine's validate (no GPU): its summary, with the number of configurations the restrictions keep."""
        code, messages, printed = self._call(["validate"], folder, stdout=True)
        return printed + messages

    def run(self, flags, folder, captures=None, quiet=False):
        """Runs the engine; returns the result document (occbench's record) and the exit code.
        quiet: the run's progress lines and table are not shown (its messages still are)."""
        out = folder / "out"
        live = _stdout_is_fd1()
        flags = flags + _in_process_flags()
        code, messages, printed = self._call(["run", "--out", str(out)] + flags, folder, captures, stdout=quiet or not live)
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
    (for a profiler that does not follow forks); a faulting kernel then ends Python."""
    return ["--no-supervisor"] if os.environ.get("OCCBENCH_IN_PROCESS") == "1" else []


def _bad_input(messages):
    lines = [l for l in messages.splitlines() if l.strip()]
    errors = [l for l in lines if "error" in l.lower() or ": expected" in l or "expected" in l]
    return "\n".join(errors or lines[-5:]) or "occbench refused the input"


def _space_size(tuning):
    total = 1
    for values in tuning.tune_params.values():
        total *= len(values)
    return total


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
    for name, value in (("texmem_args", texmem_args), ("simulation_mode", simulation_mode), ("parallel", parallel),
                        ("objectives", objectives), ("compiler", compiler)):
        if value:
            raise NotImplementedError(f"{name}: not supported by occbench.tune_kernel (docs/python.md lists what is)")
    started = time.perf_counter()
    tuning = _Tuning(kernel_name, kernel_source, problem_size, arguments, tune_params, (grid_div_x, grid_div_y, grid_div_z),
                     restrictions, answer, atol, verify, smem_args, cmem_args, compiler_options, defines, block_size_names,
                     iterations, lang)
    objective = objective or "time"
    higher = bool(objective_higher_is_better) if objective_higher_is_better is not None else objective not in ("time",)
    metrics = dict(metrics or {})
    if objective != "time" and objective not in metrics:
        raise ValueError(f"objective: '{objective}' is neither 'time' nor one of the metrics ({', '.join(metrics) or 'none'})")
    size = _space_size(tuning)
    strategy, strategy_options = _sample_cap(strategy, strategy_options, size)
    engine_strategy, flags = _strategy_flags(strategy, strategy_options, size)
    flags += _observer_flags(observers) + ["--device", str(int(device))]
    if seed is not None:
        flags += ["--seed", str(int(seed))]
    cached = cache_file.open_cache(cache, kernel_name, problem_size, tuning.tune_params) if cache else None
    if cached is not None and cached.entries:
        tuning.restrictions.skip(set(cached.entries))
    with tempfile.TemporaryDirectory(prefix="occbench-") as folder:
        try:
            document, code = tuning.run(flags, Path(folder), quiet=quiet)
        except ValueError as e:  # every configuration is in the cache: nothing to run (no GPU needed)
            if cached is None or not cached.entries or "rule out all" not in str(e):
                raise
            document, code = {"results": [], "device": {"name": cached.data.get("device_name")}}, 0
    results = records_to_results(document, tuning.tune_params, metrics)
    if cached is not None:
        results = cached.merge(results, document, metrics)
    env = environment(document, tuning, engine_strategy, time.perf_counter() - started, code)
    if results:
        from .util import get_best_config
        env["best_config"] = get_best_config(results, objective, higher)
        if not quiet:
            from .util import get_config_string
            keys = list(tuning.tune_params) + [objective] + list(metrics)
            print(f"\nBEST PERFORMING CONFIGURATION FOR OBJECTIVE {objective}:")
            print(get_config_string(env["best_config"], keys, {"time": "ms"}))
    return Results(results), env


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
    captures, outputs = _shared_outputs(arguments)
    with tempfile.TemporaryDirectory(prefix="occbench-") as folder:
        document, code = tuning.run(["--device", str(int(device))], Path(folder), captures, quiet=True)
    record = next(r for r in document.get("results", []))
    if record.get("status") != "ok":
        raise RuntimeError(f"run_kernel: {kernel_name} at {params} {record.get('status')}: {record.get('reason')}")
    return [outputs[i].reshape(a.shape).copy() if i in outputs else a for i, a in enumerate(arguments)]


def _shared_outputs(arguments):
    """Memory the supervised child writes each array argument into (shared: the child is a fork)."""
    import mmap
    captures, outputs = {}, {}
    for i, a in enumerate(arguments):
        if isinstance(a, np.ndarray):
            buffer = mmap.mmap(-1, max(1, a.nbytes))
            outputs[i] = np.frombuffer(buffer, dtype=a.dtype, count=a.size)
            captures[f"arg{i}"] = outputs[i]
    return captures, outputs
