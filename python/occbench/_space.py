"""Kernel Tuner's meaning of a tuning space, evaluated in Python exactly as Kernel Tuner does it:
the tunable parameters, the restrictions (strings in Python syntax, or functions), and each
point's launch (problem_size, grid_div_x/y/z, block_size_names, smem_args, defines), kernel
name and code (a code generator's, written with its #define lines as Kernel Tuner writes them). The engine
calls these for each point (harness/family/host_hooks.hpp); every mistake a user can make in
them is a Python exception raised before anything runs, naming the argument."""

import builtins
import math
import numbers
import re

import numpy as np

DEFAULT_BLOCK_SIZE_NAMES = ["block_size_x", "block_size_y", "block_size_z"]
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_MAX_VALUES = 1_000_000  # a parameter's values (range(10**12) was listed until memory ran out)
# What one launch may have: the grid's x, y, z and the block's (CUDA's limits).
_GRID_MAX, _BLOCK_MAX = (2 ** 31 - 1, 65535, 65535), (1024, 1024, 64)


def _plain_value(name, v):
    """A parameter's value as Python's own int, float, str or bool (NumPy's scalars converted)."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        if not math.isfinite(float(v)):
            raise ValueError(f"tune_params['{name}']: the value {v!r} is not a finite number")
        return float(v)
    raise TypeError(f"tune_params['{name}']: the value {v!r} is a {type(v).__name__}; expected an int, float, str or bool, "
                    "as Kernel Tuner writes each into a #define line")


class TuneParams:
    """Kernel Tuner's tune_params, of any type it takes (integers, floats, strings, booleans).

    ``values`` holds each parameter's values as given. A parameter whose values are all integers
    goes to the engine as they are; any other is a labelled axis there (harness/family/registry.hpp's
    ParamLabel: its records and ids hold the values, the engine's own value is the position), or,
    where the engine cannot hold its values as JSON labels (a string with '/' or quotes, 1 beside
    1.0), handed over by position alone. Every function the engine calls back (launch,
    restrictions, the source) gets the values themselves through ``decode``; the results through
    ``from_record``."""

    def __init__(self, tune_params):
        if not isinstance(tune_params, dict) or not tune_params:
            raise TypeError(f"tune_params: expected a dict of parameter names and their values, got {type(tune_params).__name__}")
        self.values, self.by_position, self.labelled = {}, set(), set()
        for name, values in tune_params.items():
            if not isinstance(name, str) or not _IDENTIFIER.match(name):
                raise ValueError(f"tune_params: '{name}' is not a valid parameter name (letters, digits and '_')")
            if hasattr(values, "__len__") and not isinstance(values, (str, bytes)) and len(values) > _MAX_VALUES:
                raise ValueError(f"tune_params['{name}']: {len(values)} values; occbench takes at most {_MAX_VALUES} a parameter")
            values = list(values) if not isinstance(values, (str, bytes)) and np.iterable(values) else None
            if not values:
                raise ValueError(f"tune_params['{name}']: expected a non-empty list of values")
            plain = [_plain_value(name, v) for v in values]
            if len({(type(v), v) for v in plain}) != len(plain):
                raise ValueError(f"tune_params['{name}']: a value appears twice: {values}")
            if name in self.REFUSED:
                raise NotImplementedError(f"tune_params['{name}']: {self.REFUSED[name]}")
            self.values[name] = plain
            if not all(type(v) is int and _INT64[0] <= v <= _INT64[1] for v in plain):
                self.by_position.add(name)
                if _labels_hold(plain):
                    self.labelled.add(name)

    # Kernel Tuner's parameters that are engine axes of another name: the SM clock NVML locks.
    ENGINE_NAMES = {"nvml_gr_clock": "sm_clock_mhz"}
    REFUSED = {"nvml_mem_clock": "occbench does not lock the memory clock (only the SM clock: nvml_gr_clock)",
               "nvml_pwr_limit": "occbench never changes the GPU's power limit"}

    def axes(self):
        """The engine's axes: integers and labels as they are, other values by their position."""
        return {self.ENGINE_NAMES.get(n, n): (list(range(len(v))) if n in self.by_position - self.labelled else v)
                for n, v in self.values.items()}

    def from_record(self, record_params):
        """The tunable parameters of a record's params (a labelled axis's value as it is, a position
        turned back into its value)."""
        out = {}
        for n in self.values:
            engine = self.ENGINE_NAMES.get(n, n)
            if engine in record_params:
                value = record_params[engine]
                out[n] = self.values[n][value] if n in self.by_position - self.labelled else value
        return out

    def decode(self, engine_params):
        """The tunable parameters the engine has bound, with their own values."""
        out = {}
        for n in self.values:
            engine = self.ENGINE_NAMES.get(n, n)
            if engine in engine_params:
                out[n] = self.values[n][engine_params[engine]] if n in self.by_position else engine_params[engine]
        return out

    def size(self):
        total = 1
        for values in self.values.values():
            total *= len(values)
        return total


def _labels_hold(values):
    """Whether the engine can hold these values as a labelled axis's JSON labels: strings it can
    put in point ids, and no two values that JSON takes for one (1 and 1.0, 1 and True stay apart
    in JSON but 1 and 1.0 do not), no integer past 64 bits."""
    if any(isinstance(v, str) and (not v or any(c in v for c in "/\"'\\\n\r")) for v in values):
        return False
    if any(type(v) is int and not _INT64[0] <= v <= _INT64[1] for v in values):
        return False  # JSON would read it back as a float
    numbers = [float(v) for v in values if not isinstance(v, (str, bool))]
    return len(set(numbers)) == len(numbers)


def check_tune_params(tune_params):
    """Kernel Tuner's tune_params checked: name -> list of values (int, float, str or bool)."""
    return TuneParams(tune_params).values


class Restrictions:
    """Kernel Tuner's restrictions: a list of strings (Python expressions of the parameters) or
    functions of the parameters' dict, or one function; compiled once, checked for names."""

    def __init__(self, restrictions, tune_params, allowed_names=()):
        if restrictions is None:
            restrictions = []
        elif callable(restrictions) or isinstance(restrictions, str):
            restrictions = [restrictions]
        elif not isinstance(restrictions, (list, tuple)):
            raise TypeError(f"restrictions: expected a list of strings or functions, got {type(restrictions).__name__}")
        self._checks = []
        self._skip, self._keys = set(), list(tune_params)
        names = set(tune_params) | set(allowed_names)
        for i, r in enumerate(restrictions):
            if isinstance(r, str):
                check, uses = self._compile(i, r, names, tune_params)
                self._checks.append((f"restrictions[{i}] \"{r}\"", check, uses))
            elif callable(r):
                self._checks.append((f"restrictions[{i}] ({getattr(r, '__name__', 'a function')})", r, None))
            else:
                raise TypeError(f"restrictions[{i}]: expected a string or a function, got {type(r).__name__}")

    @staticmethod
    def _compile(i, text, names, tune_params):
        """The restriction as a function of the parameters, and the parameters it reads."""
        try:
            code = compile(text, f"restrictions[{i}]", "eval")
        except SyntaxError as e:
            raise ValueError(f"restrictions[{i}] \"{text}\": not a Python expression ({e.msg})") from None
        unknown = [n for n in code.co_names if n not in names and not hasattr(builtins, n) and not hasattr(math, n)]
        if unknown:
            raise ValueError(f"restrictions[{i}] \"{text}\": unknown parameter name '{unknown[0]}'; the tunable parameters "
                             f"are: {', '.join(sorted(names))}")
        scope = {n: getattr(math, n) for n in dir(math) if not n.startswith("_")}
        return (lambda params: eval(code, scope, params)), sorted(n for n in set(code.co_names) if n in tune_params)

    @staticmethod
    def _judged(what, check):
        def judge(params):
            try:
                return bool(check(params))
            except Exception as e:  # a restriction that fails at a point names itself and the point
                raise ValueError(f"{what} raised {type(e).__name__}: {e} at {params}") from None
        return judge

    def conditions(self):
        """(the parameters it reads, a function of them) for the engine to decide each as soon as
        its parameters are bound: a string restriction over the names it uses; the functions
        and the cache's configurations over the whole configuration (an empty list)."""
        out = [(uses, self._judged(what, check)) for what, check, uses in self._checks if uses]
        whole = [(what, check) for what, check, uses in self._checks if not uses]
        if whole or self._skip:
            out.append(([], lambda params: self._whole(params, whole)))
        return out

    def _whole(self, params, checks):
        if self._skip and ",".join(str(params[k]) for k in self._keys) in self._skip:
            return False
        return all(self._judged(what, check)(params) for what, check in checks)

    def skip(self, keys):
        """Configurations already measured (a cache's keys, "v1,v2,..."): not run again."""
        self._skip = set(keys)

    def __call__(self, params):
        """Whether a whole configuration passes every restriction."""
        return all(check(params) for _, check in self.conditions())


_COMPILED = {}


def _compiled(text):
    """A string expression compiled once (the engine asks for every point of a space)."""
    code = _COMPILED.get(text)
    if code is None:
        code = _COMPILED[text] = compile(text, "<expression>", "eval")
    return code


def _evaluate(value, params, what):
    """An integer from Kernel Tuner's forms: int, a string expression of the parameters, or a function."""
    if callable(value):
        result = value(params)
    elif isinstance(value, str):
        if value in params:  # a parameter's name, the common case (grid_div_x=["block_size_x"])
            return params[value]
        try:
            result = eval(_compiled(value), {}, params)
        except Exception as e:
            raise ValueError(f"{what} \"{value}\": {type(e).__name__}: {e} at {params}") from None
    else:
        result = value
    if isinstance(result, (bool, np.bool_)) or not isinstance(result, numbers.Real):
        raise ValueError(f"{what}: expected a number, got {result!r} at {params}")
    return result


def check_problem_size(problem_size):
    """problem_size: an int, a string (an expression of the parameters), a function, or a tuple of up to three."""
    if callable(problem_size):
        return problem_size
    items = problem_size if isinstance(problem_size, (tuple, list)) else (problem_size,)
    if not 1 <= len(items) <= 3:
        raise ValueError(f"problem_size: expected 1 to 3 dimensions, got {len(items)}")
    for i, s in enumerate(items):
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, (numbers.Integral, str)):
            raise TypeError(f"problem_size[{i}]: expected an integer or a string expression of the parameters, got {s!r}")
        if isinstance(s, numbers.Integral) and s < 1:
            raise ValueError(f"problem_size[{i}]: expected at least 1, got {s}")
    return problem_size


def current_problem_size(problem_size, params):
    if callable(problem_size):
        problem_size = problem_size(params)
    items = problem_size if isinstance(problem_size, (tuple, list)) else (problem_size,)
    size = [1, 1, 1]
    for i, s in enumerate(items):
        value = _evaluate(s, params, f"problem_size[{i}]")
        if not float(value).is_integer() or value < 1:
            raise ValueError(f"problem_size[{i}]: expected a whole number of at least 1, got {value} at {params}")
        size[i] = int(value)
    return size


class Launch:
    """A point's grid, block, dynamic shared memory and macros, as Kernel Tuner computes them."""

    def __init__(self, problem_size, grid_div, block_size_names, smem_args, defines):
        self.problem_size = check_problem_size(problem_size)
        self.grid_div = grid_div
        self.block_size_names = list(block_size_names or DEFAULT_BLOCK_SIZE_NAMES)
        if len(self.block_size_names) > 3 or not all(isinstance(n, str) for n in self.block_size_names):
            raise ValueError(f"block_size_names: expected up to three names, got {block_size_names!r}")
        self.block_size_names += DEFAULT_BLOCK_SIZE_NAMES[len(self.block_size_names):]
        self.smem_args = smem_args or {}
        if not isinstance(self.smem_args, dict) or set(self.smem_args) - {"size", "dtype"}:
            raise ValueError(f"smem_args: expected {{'size': bytes or a function of the parameters}}, got {smem_args!r}")
        self.defines = defines
        if defines is not None and not isinstance(defines, dict):
            raise TypeError(f"defines: expected a dict of macro names and values, got {type(defines).__name__}")

    def fits(self, params):
        """Kernel Tuner leaves out configurations of more than 1024 threads per block (the device's limit)."""
        x, y, z = self._block_sizes(params)
        return x * y * z <= 1024 and all(1 <= size <= most for size, most in zip((x, y, z), _BLOCK_MAX))

    def _block_sizes(self, params):
        return tuple(int(params.get(n, 256 if i == 0 else 1)) for i, n in enumerate(self.block_size_names))

    def block(self, params):
        block = self._block_sizes(params)
        for axis, size, most in zip("xyz", block, _BLOCK_MAX):
            if not 1 <= size <= most:
                raise ValueError(f"{self.block_size_names['xyz'.index(axis)]}: a block of {size} threads in {axis} at {params}; "
                                 f"a launch takes 1 to {most}")
        return block

    def _divisor(self, divisor, default, params, what):
        if divisor is None:
            return params.get(default, 1)
        if isinstance(divisor, (str, numbers.Real)) or callable(divisor):
            return _evaluate(divisor, params, what)
        if np.iterable(divisor):
            product = 1
            for j, d in enumerate(divisor):
                product *= self._divisor(d, None, params, f"{what}[{j}]") if d is not None else 1
            return product
        raise TypeError(f"{what}: expected a list of parameter names, expressions or numbers, got {divisor!r}")

    def grid(self, params):
        size = current_problem_size(self.problem_size, params)
        grid = []
        for i, axis in enumerate("xyz"):
            divisor = self._divisor(self.grid_div[i], self.block_size_names[i], params, f"grid_div_{axis}")
            if not divisor > 0:
                raise ValueError(f"grid_div_{axis}: the divisor is {divisor} at {params}; expected a positive number")
            blocks = math.ceil(float(size[i]) / float(divisor))
            if not 1 <= blocks <= _GRID_MAX[i]:
                raise ValueError(f"problem_size / grid_div_{axis}: a grid of {blocks} blocks in {axis} at {params}; a launch "
                                 f"takes 1 to {_GRID_MAX[i]}")
            grid.append(int(blocks))
        return tuple(grid)

    def smem_bytes(self, params):
        if "size" not in self.smem_args:
            return 0
        value = _evaluate(self.smem_args["size"], params, "smem_args['size']")
        dtype = self.smem_args.get("dtype")
        size = value * (np.dtype(dtype).itemsize if dtype is not None else 1)
        if not 0 <= size <= 2 ** 31 or not float(size).is_integer():
            raise ValueError(f"smem_args['size']: {size} bytes at {params}; expected a whole number of bytes from 0 to 2^31")
        return int(size)

    def macros(self, params, grid, block):
        if self.defines is None:  # Kernel Tuner's default: grid and block sizes, every parameter, kernel_tuner
            macros = {f"grid_size_{a}": g for a, g in zip("xyz", grid)}
            macros.update({n: b for n, b in zip(self.block_size_names, block)})
            macros.update(params)
            macros["kernel_tuner"] = 1
        else:
            macros = {}
            for name, value in self.defines.items():
                if callable(value):
                    value = value(params)
                elif isinstance(value, str):
                    value = re.sub(r"\b(" + "|".join(map(re.escape, params)) + r")\b", lambda m: str(params[m.group(1)]), value) if params else value
                macros[name] = value
        return [(name, str(value)) for name, value in macros.items()]

    def __call__(self, params):
        grid, block = self.grid(params), self.block(params)
        return grid, block, self.smem_bytes(params), self.macros(params, grid, block)


def unroll_pragmas(source, tune_params):
    """Kernel Tuner's loop_unroll_factor parameters: 0 means no '#pragma unroll' at all, N an unroll
    by N (through a constexpr, as Kernel Tuner does: a pragma's argument is not macro-expanded)."""
    prefix = ""
    for name in tune_params:
        if "loop_unroll_factor" not in name:
            continue
        constant = "occbench_" + name
        pattern = r"^([ \t]*)#pragma\s+unroll\s+" + re.escape(name) + r"\b.*$"
        if re.search(pattern, source, flags=re.M):
            prefix += f"constexpr int {constant} = {name};\n"
            source = re.sub(pattern, lambda m: f"{m.group(1)}#if {name} != 0\n{m.group(1)}#pragma unroll {constant}\n"
                                               f"{m.group(1)}#endif", source, flags=re.M)
    return prefix + ("#line 1\n" if prefix else "") + source
