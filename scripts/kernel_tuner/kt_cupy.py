"""Runs a Kernel Tuner script on Kernel Tuner's CuPy backend (the device machine has CuPy, not
PyCUDA): tune_kernel and run_kernel get lang="cupy" where the script gives none or "CUDA" (which
is PyCUDA's backend there), a script named test_*.py runs under pytest, and
OCCBENCH_MAX_FEVALS caps a brute-force tuning as occbench's does (a random sample of that many)."""
import os
import runpy
import sys

import kernel_tuner


def with_cupy(function, sample):
    def call(*args, **kwargs):
        if str(kwargs.get("lang") or "CUDA").upper() == "CUDA":
            kwargs["lang"] = "cupy"
        cap = os.environ.get("OCCBENCH_MAX_FEVALS")
        if sample and cap and kwargs.get("strategy") in (None, "brute_force"):
            tune_params = args[4] if len(args) > 4 else kwargs["tune_params"]
            size = 1
            for values in tune_params.values():
                size *= len(values)
            if size > int(cap):
                kwargs["strategy"] = "random_sample"
                kwargs["strategy_options"] = dict(kwargs.get("strategy_options") or {}, max_fevals=int(cap))
        return function(*args, **kwargs)
    return call


kernel_tuner.tune_kernel = with_cupy(kernel_tuner.tune_kernel, True)
kernel_tuner.run_kernel = with_cupy(kernel_tuner.run_kernel, False)
sys.argv = sys.argv[1:]
if os.path.basename(sys.argv[0]).startswith("test_"):
    import pytest
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[0]]))
runpy.run_path(sys.argv[0], run_name="__main__")
