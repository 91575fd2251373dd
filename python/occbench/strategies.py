"""Kernel Tuner's strategies as module objects (``kernel_tuner.strategies.minimize``), for scripts
that pass a strategy module rather than its name: each stands for the occbench strategy that does
its job (occbench.interface.STRATEGIES); a strategy of one's own (a module with a ``tune``
function of Kernel Tuner's internals) is not run by occbench."""

import types

from .interface import OCCBENCH_STRATEGIES, STRATEGIES

for _name in list(STRATEGIES) + OCCBENCH_STRATEGIES:
    globals()[_name] = types.ModuleType(f"occbench.strategies.{_name}", f"Kernel Tuner's {_name}, as occbench runs it")
