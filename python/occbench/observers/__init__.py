"""Kernel Tuner's observers, as far as occbench has them: ``NVMLObserver`` (energy, power and the
temperature per configuration, from occbench's energy reading: ``run --energy``)."""
from .nvml import NVMLObserver

__all__ = ["NVMLObserver"]
