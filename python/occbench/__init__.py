"""occbench from Python: Kernel Tuner's ``tune_kernel`` and ``run_kernel``, unchanged, on
occbench's engine in this process (cold-L2 timing, every configuration verified, faults
contained to their configuration, occupancy and its limiter per configuration).

    from occbench import tune_kernel
    results, env = tune_kernel("vector_add", kernel_string, size, args, tune_params)
    results.frame()          # a pandas DataFrame, one row per configuration

docs/python.md is the manual."""

from . import _engine, util
from . import accuracy, integration, kernelbuilder, observers, strategies
from ._results import Results, to_dataframe
from .cache import read_cache, write_cache
from .file_utils import get_t4_results, store_metadata_file, store_output_file
from .interface import STRATEGIES, run_kernel, tune_kernel

__version__ = _engine.version().split()[1]

__all__ = ["tune_kernel", "run_kernel", "to_dataframe", "Results", "read_cache", "write_cache", "store_output_file",
           "store_metadata_file", "get_t4_results", "util", "STRATEGIES", "__version__", "accuracy", "integration", "kernelbuilder", "observers",
           "strategies"]
