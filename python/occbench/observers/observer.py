"""Kernel Tuner's observer classes. A ``BenchmarkObserver`` subclass of the user's own is told, in
the process that measures, the configuration and ``before_start``/``after_start`` before its
samples, ``during`` between them, ``after_finish`` after them, and its ``get_results()`` go into
the configuration's result (and the record's ``observers`` section). Kernel Tuner calls the hooks
around each of its iterations; occbench around the configuration's samples, which it times itself
(cold L2, until the noise is low): an observer reads the whole of them. An ``OutputObserver`` sees
the outputs of the verified launch (``process_output(answer, outputs)``)."""

from abc import ABC, abstractmethod


class BenchmarkObserver(ABC):
    def register_device(self, dev):
        self.dev = dev

    def register_configuration(self, params):
        pass

    def before_start(self):
        pass

    def after_start(self):
        pass

    def during(self):
        pass

    def after_finish(self):
        pass

    @abstractmethod
    def get_results(self):
        pass


class IterationObserver(BenchmarkObserver):
    pass


class OutputObserver(BenchmarkObserver):
    """Sees the outputs of the verified launch of each configuration."""

    @abstractmethod
    def process_output(self, answer, output):
        pass


class PrologueObserver(BenchmarkObserver):
    """Measures something before the configuration's samples (Kernel Tuner: in a launch of its own)."""

    @abstractmethod
    def before_start(self):
        pass

    @abstractmethod
    def after_finish(self):
        pass


class ContinuousObserver(BenchmarkObserver):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("ContinuousObserver: occbench reads power and energy itself over a configuration's samples "
                                  "(NVMLObserver, docs/energy.md); a continuous observer of another power meter is not supported")
