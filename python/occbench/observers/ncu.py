"""Kernel Tuner's NCUObserver: asks tune_kernel for occbench's hardware counters per configuration
(CUPTI's range profiler, docs/counters.md), in the result's ``counters`` section."""
from .observer import BenchmarkObserver


class NCUObserver(BenchmarkObserver):
    def __init__(self, metrics=None, device=0):
        self.metrics = list(metrics or [])
        self.device = device

    def get_results(self):
        return {}
