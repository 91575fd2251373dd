"""Kernel Tuner's accuracy module: arguments that depend on a tunable parameter (``Tunable``, and
``TunablePrecision``: the same data in the precision a parameter names, such as float_type in
["float", "double", "half"]), and ``AccuracyObserver``: the error of each configuration's output
against the answer, by a named metric.

occbench hands the engine each argument once, so a tuning whose arguments depend on parameters is
run as one tuning per combination of those parameters' values (the rest of the space each), the
results joined; a budget (max_fevals) is shared out between them."""

import itertools
import re
from collections import UserDict

import numpy as np

from .observers.observer import OutputObserver


class Tunable(UserDict):
    """An argument chosen by a tunable parameter's value: Tunable("layout", {"c": a, "f": a.T.copy()})."""

    def __init__(self, param_key, arrays):
        if isinstance(arrays, (tuple, list)):
            arrays = dict(enumerate(arrays))
        super().__init__(arrays)
        if not isinstance(param_key, str):
            raise NotImplementedError("Tunable: occbench selects by a parameter's name; a function or expression is not supported")
        self.param_key = param_key

    def select_for_configuration(self, params):
        option = params[self.param_key]
        if option not in self.data:
            raise KeyError(f"Tunable('{self.param_key}'): '{option}' is not among its values ({', '.join(map(str, self.data))})")
        return self.data[option]

    def __call__(self, params):
        return self.select_for_configuration(params)


def _float_type(name):
    key = name.lower() if isinstance(name, str) else name
    if key in ("half", "f16", "float16", "__half", "khalf", 16):
        return np.float16
    if key in ("float", "single", "f32", "float32", "kfloat", 32):
        return np.float32
    if key in ("double", "f64", "float64", "kdouble", 64):
        return np.float64
    if key in ("bfloat16", "bf16", "kbfloat16", "__nv_bfloat16"):
        raise NotImplementedError("TunablePrecision: bfloat16 arrays are not passed by occbench (NumPy has no such type)")
    return np.dtype(name).type


class TunablePrecision(Tunable):
    """The array in the precision the parameter names (default: double, float, half)."""

    def __init__(self, param_key, array, dtypes=None):
        names = dtypes or {"double": np.float64, "float": np.float32, "half": np.float16}
        if isinstance(names, (list, tuple)):
            names = {name: _float_type(name) for name in names}
        super().__init__(param_key, {name: np.asarray(array).astype(dtype) for name, dtype in names.items()})


def split_by_tunables(arguments, tune_params):
    """[(tune_params with the Tunables' parameters fixed, the arguments chosen for them)]: one
    tuning per combination of their values (one, unchanged, without Tunables)."""
    keys = sorted({a.param_key for a in arguments if isinstance(a, Tunable)})
    if not keys:
        return [(tune_params, list(arguments))]
    for k in keys:
        if k not in tune_params:
            raise ValueError(f"Tunable('{k}'): '{k}' is not a tunable parameter")
    splits = []
    for values in itertools.product(*(tune_params[k] for k in keys)):
        chosen = dict(zip(keys, values))
        narrowed = {k: ([chosen[k]] if k in chosen else v) for k, v in tune_params.items()}
        splits.append((narrowed, [a(chosen) if isinstance(a, Tunable) else a for a in arguments]))
    return splits


def error_metric_from_name(key, EPS=1e-8):
    """An error metric by name (MSE, RMSE, NRMSE, MAE, MRE, RMSRE, RMSLE, MALE, max, max rel), as Kernel Tuner names them."""
    name = re.sub(r"\berror\b", " ", key.lower())
    name = re.sub(r"[\s_-]+", " ", name).strip()
    for word, full in (("average", "mean"), ("avg", "mean"), ("square", "squared"), ("sq", "squared"), ("max", "maximum"),
                       ("rel", "relative"), ("abs", "absolute"), ("log", "logarithmic")):
        name = re.sub(rf"\b{word}\b", full, name)
    metrics = {
        ("mse", "mean squared"): lambda a, b: np.average(np.square(a - b)),
        ("rmse", "root mean squared"): lambda a, b: np.sqrt(np.average(np.square(a - b))),
        ("nrmse", "normalized root mean squared"): lambda a, b: np.sqrt(np.average(np.square(a - b)) / np.average(np.square(a))),
        ("mae", "absolute", "mean absolute"): lambda a, b: np.average(np.abs(a - b)),
        ("mre", "relative", "mean relative"): lambda a, b: np.average(np.abs(a - b) / np.maximum(np.abs(a), EPS)),
        ("rmsre", "root mean squared relative"): lambda a, b: np.sqrt(np.average(np.square(a - b) / np.square(np.maximum(np.abs(a), EPS)))),
        ("rmsle", "root mean squared logarithmic"): lambda a, b: np.sqrt(np.average(np.square(np.log(np.abs(a) + 1) - np.log(np.abs(b) + 1)))),
        ("male", "mean absolute logarithmic"): lambda a, b: np.average(np.abs(np.log(np.abs(a) + 1) - np.log(np.abs(b) + 1))),
        ("maximum", "maximum absolute"): lambda a, b: np.amax(np.abs(a - b)),
        ("maximum relative",): lambda a, b: np.amax(np.abs(a - b) / np.maximum(np.abs(a), EPS)),
    }
    for names, metric in metrics.items():
        if name in names:
            return metric
    raise ValueError(f"AccuracyObserver: unknown error metric '{key}'; known: MSE, RMSE, NRMSE, MAE, MRE, RMSRE, RMSLE, MALE, "
                     "max, max rel")


class AccuracyObserver(OutputObserver):
    """The error of each configuration's outputs against the answer (the largest over the outputs
    that have one), under `key` in its result. With one, Kernel Tuner's default check of the
    answer is left out: the error is what is measured."""

    def __init__(self, metric=None, key="error", *, atol=1e-8):
        self.metric = error_metric_from_name(metric or "rmse", atol) if not callable(metric) else metric
        self.key = key
        self.result = None

    def process_output(self, answer, output):
        errors = [self.metric(np.asarray(a, dtype=np.float64), np.asarray(o, dtype=np.float64))
                  for a, o in zip(answer, output) if a is not None and o is not None]
        self.result = float(max(errors)) if errors else None

    def get_results(self):
        return {self.key: self.result}
