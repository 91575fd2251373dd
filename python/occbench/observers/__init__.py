"""Kernel Tuner's observers: ``NVMLObserver`` (energy, power and temperature per configuration,
from occbench's energy reading; ``nvml_gr_clock`` as a tunable parameter locks the SM clock),
``NCUObserver`` (occbench's hardware counters), ``RegisterObserver`` (``num_regs``), and the
base classes for a user's own (``BenchmarkObserver``, ``IterationObserver``, ``OutputObserver``,
``PrologueObserver``); observers of hardware occbench cannot read raise NotImplementedError."""
from .ncu import NCUObserver
from .nvml import NVMLObserver
from .observer import BenchmarkObserver, ContinuousObserver, IterationObserver, OutputObserver, PrologueObserver
from .register import RegisterObserver
from .unsupported import PMTObserver, PowerSensorObserver, TegraObserver

__all__ = ["NVMLObserver", "NCUObserver", "RegisterObserver", "BenchmarkObserver", "IterationObserver", "OutputObserver",
           "PrologueObserver", "ContinuousObserver", "PowerSensorObserver", "PMTObserver", "TegraObserver"]
