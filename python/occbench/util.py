"""Kernel Tuner's helpers for results, under the same names (``from occbench import util``)."""



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


def _valid(result, objective):
    v = result.get(objective)
    return "__error__" not in result and isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def valid_results(results, objective="time"):
    """The results that passed and have a number for ``objective``."""
    return [r for r in results if _valid(r, objective)]


def get_best_config(results, objective="time", objective_higher_is_better=False):
    """The best result by ``objective``; failed configurations are never the best, and where none
    passed there is no best (ValueError; Kernel Tuner returns a failed one)."""
    valid = valid_results(results, objective)
    if not valid:
        raise ValueError(f"get_best_config: none of the {len(results)} results passed with a value of '{objective}'")
    return (max if objective_higher_is_better else min)(valid, key=lambda r: r[objective])
