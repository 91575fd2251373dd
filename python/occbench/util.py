"""Kernel Tuner's helpers for results, under the same names (``from occbench import util``)."""

import sys


class ErrorConfig(str):
    """A configuration that gave no time: its ``time`` (and ``__error__``) holds one of these."""

    def __new__(cls, reason=""):
        obj = super().__new__(cls, cls.__name__)
        obj.reason = reason
        return obj

    def __str__(self):
        return self.__class__.__name__

    def __repr__(self):
        return self.__class__.__name__


class InvalidConfig(ErrorConfig):
    """Ruled out before it ran: a launch the GPU refuses (threads, shared memory)."""


class CompilationFailedConfig(ErrorConfig):
    """NVRTC (or ptxas, for resources) refused the instantiation."""


class RuntimeFailedConfig(ErrorConfig):
    """It ran and faulted, hung, wrote out of bounds or gave a wrong result."""


ERROR_CLASSES = {c.__name__: c for c in (ErrorConfig, InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig)}


def get_config_string(params, keys=None, units=None):
    """``block_size_x=128, time=0.123ms``: Kernel Tuner's compact form of a result."""

    def compact(v):
        return "{:.3f}".format(round(v, 3)) if isinstance(v, float) else str(v)

    keys = keys or params.keys()
    items = []
    for k, v in params.items():
        if k in keys:
            unit = units.get(k, "") if isinstance(units, dict) and not isinstance(v, ErrorConfig) else ""
            items.append(k + "=" + compact(v) + unit)
    return ", ".join(items)


def get_best_config(results, objective="time", objective_higher_is_better=False):
    """The best result by ``objective``; failed configurations are never the best."""
    pick = max if objective_higher_is_better else min
    ignore = -sys.float_info.max if objective_higher_is_better else sys.float_info.max

    def key(r):
        v = r.get(objective)
        return v if "__error__" not in r and isinstance(v, (int, float)) and not isinstance(v, bool) else ignore

    return pick(results, key=key)
