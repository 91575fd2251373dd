"""Kernel Tuner's kernel_tuner.observers.pmt: the Power Measurement Toolkit, which occbench does not read."""
from .unsupported import PMTObserver

__all__ = ["PMTObserver"]
